/* Shared by the cpu backend's elementwise and cast kernels: float16 arrays through float32 blocks, thread ranges. */
#ifndef DAEMON_BACKEND_CPU_CPU_ELEMENTWISE_HALF_H
#define DAEMON_BACKEND_CPU_CPU_ELEMENTWISE_HALF_H

#include <stdint.h>

/* Below this many elements a kernel runs on the calling thread: waking the team costs more
 * than the loop of a memory-bound operator. */
#define CPU_EW_PAR_MIN 32768
/* float16 kernels convert this many elements at a time into float32 blocks on the stack. */
#define CPU_EW_BLOCK 512


/* Thread t of nt's share [*begin, *end) of count elements (multiples of 64 elements so that
 * no two threads write one cache line). */
static inline void cpu_ew_split(uint64_t count, int t, int nt, uint64_t *begin, uint64_t *end)
{
	uint64_t per = (count + (uint64_t)nt - 1) / (uint64_t)nt;
	per = (per + 63) & ~(uint64_t)63;
	uint64_t b = per * (uint64_t)t, e = b + per;
	*begin = b < count ? b : count;
	*end = e < count ? e : count;
}

#endif
