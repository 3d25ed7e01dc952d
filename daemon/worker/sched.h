/* Time slices under the kernel's fair scheduler: short for threads that answer, long for threads that compute. */
#ifndef DAEMON_SCHED_H
#define DAEMON_SCHED_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Threads that answer (the worker's loop thread, running quick work) keep nice 0 and ask for
 * the shortest slice; threads that compute (the cpu backend's team, the thread pool that runs
 * builds and long dispatches) ask for a long slice and a higher nice value. Under EEVDF (Linux
 * 6.6+) a waking thread waits until the running one used up its slice
 * (RUN_TO_PARITY) unless its own slice is shorter (PREEMPT_SHORT, 6.12+). The worker's loop
 * thread asks for the shortest slice (it answers requests in microseconds), compute threads
 * for a long one (they run for milliseconds): then a request, and any other process's thread
 * with the default slice, preempts a computation at once instead of waiting up to a slice
 * (measured: a small dispatch's p99 beside a large one 2-4 ms, its whole slice, against
 * 0.09 ms alone). The slice alone is not enough: a woken thread preempts only while it is
 * eligible (it has not run more than its share), which a client doing back-to-back round trips
 * often is not, and then waits for the 4 ms tick; the weight of a higher nice value keeps it
 * eligible (bench_fairness on 2 idle cores: p99 beside one huge step 21x alone at nice 0, 1.6x
 * at +5, 1.1x at +19). Nice changes the compute threads' share only when something else wants
 * the cores, which is when fairness is asked for; WEBNN_COMPUTE_NICE sets it (0 to 19).
 */
#define SCHED_SLICE_ANSWER_NS (100u * 1000u)          /* the kernel's minimum */
#define SCHED_SLICE_COMPUTE_NS (20u * 1000u * 1000u)
#define SCHED_COMPUTE_NICE 10

/* The thread answers: the shortest slice, its nice value kept. */
bool sched_answer_thread(char *why, unsigned len);
/* The thread computes: a long slice and the compute nice value (WEBNN_COMPUTE_NICE, else
 * SCHED_COMPUTE_NICE) added to the process's. */
bool sched_compute_thread(char *why, unsigned len);

/* Both: false with why filled when the kernel refused (older kernels ignore the slice or
 * refuse it; nothing changes then). Only the calling thread changes. */

#endif
