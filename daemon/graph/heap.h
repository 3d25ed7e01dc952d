/* What an allocation costs the heap: the one rule every layer (IR, backends, worker objects) charges budgets with. */
#ifndef DAEMON_GRAPH_HEAP_H
#define DAEMON_GRAPH_HEAP_H

#include <stdint.h>

/* What an allocation of n bytes takes from the heap: glibc's chunk (n plus its 8-byte header,
 * rounded up to 16, at least 32). */
static inline uint64_t heap_chunk_bytes(uint64_t n)
{
	uint64_t c = (n + 8 + 15) & ~(uint64_t)15;
	return c < 32 ? 32 : c;
}

#endif
