/* All users' memory budget, held by the front door and leased to the workers in pieces (the worker's side is daemon/worker/budget.h). */
#ifndef DAEMON_FRONT_POOL_H
#define DAEMON_FRONT_POOL_H

#include <stdbool.h>
#include <stdint.h>

/* All users' budget, leased out to the workers. Only the front door writes it. */
struct budget_pool {
	uint64_t max_total;         /* max_total_bytes */
	uint64_t max_uid;           /* max_uid_bytes: no worker's lease is larger */
	uint64_t leased;            /* every live worker's lease together */
};

void budget_pool_init(struct budget_pool *p, uint64_t max_total, uint64_t max_uid);
/* A reload changed the limits: later asks are granted against these (leases already above them
 * stay until returned; the workers' own uid budgets shrink with the same reload). */
void budget_pool_set_limits(struct budget_pool *p, uint64_t max_total, uint64_t max_uid);
/* A worker holding *lease asks for `want` bytes, or at least `need`: grants the most of it
 * that fits (*lease grows), or nothing when `need` does not fit. An ask past max_uid_bytes (or
 * with need > want) is refused whatever is free: only a compromised worker sends one, and the
 * return says so (true: well-formed). */
bool budget_pool_ask(struct budget_pool *p, uint64_t *lease, uint64_t need, uint64_t want);
/* A worker returned room: its lease becomes `to` when that is lower (never higher). */
void budget_pool_return(struct budget_pool *p, uint64_t *lease, uint64_t to);
/* A worker died (reaped): its lease returns to the pool. */
void budget_pool_drop(struct budget_pool *p, uint64_t *lease);

#endif
