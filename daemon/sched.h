/* Time slices under the kernel's fair scheduler: short for threads that answer, long for threads that compute. */
#ifndef DAEMON_SCHED_H
#define DAEMON_SCHED_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Under EEVDF (Linux 6.6+) a waking thread waits until the running one used up its slice
 * (RUN_TO_PARITY) unless its own slice is shorter (PREEMPT_SHORT, 6.12+). The worker's loop
 * thread asks for the shortest slice (it answers requests in microseconds), compute threads
 * for a long one (they run for milliseconds): then a request, and any other process's thread
 * with the default slice, preempts a computation at once instead of waiting up to a slice
 * (measured: a small dispatch's p99 beside a large one 2-4 ms, its whole slice, against
 * 0.09 ms alone). Only the calling thread changes; its nice value is kept.
 */
#define SCHED_SLICE_ANSWER_NS (100u * 1000u)          /* the kernel's minimum */
#define SCHED_SLICE_COMPUTE_NS (20u * 1000u * 1000u)

/* Asks for a slice of ns for the calling thread. false with why filled when the kernel refused
 * (older kernels ignore the request or refuse it; nothing else changes then). */
bool sched_ask_slice(uint64_t ns, char *why, unsigned len);

#endif
