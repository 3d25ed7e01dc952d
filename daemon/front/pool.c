/* All users' memory budget, leased to the workers (daemon/front/pool.h). */
#include "daemon/front/pool.h"

void budget_pool_init(struct budget_pool *p, uint64_t max_total, uint64_t max_uid)
{
	*p = (struct budget_pool){ .max_total = max_total, .max_uid = max_uid };
}

void budget_pool_set_limits(struct budget_pool *p, uint64_t max_total, uint64_t max_uid)
{
	p->max_total = max_total;
	p->max_uid = max_uid;
}

bool budget_pool_ask(struct budget_pool *p, uint64_t *lease, uint64_t need, uint64_t want)
{
	if (need > want || want > p->max_uid)
		return false;
	if (want <= *lease)
		return true;
	/* Room for this worker: what is free plus what it holds already. */
	uint64_t others = p->leased - *lease;
	uint64_t room = others < p->max_total ? p->max_total - others : 0;
	uint64_t to = want < room ? want : room;
	if (to < need || to <= *lease)
		return true; /* refused (or nothing more to give): the lease stays */
	p->leased += to - *lease;
	*lease = to;
	return true;
}

void budget_pool_return(struct budget_pool *p, uint64_t *lease, uint64_t to)
{
	if (to >= *lease)
		return;
	p->leased -= *lease - to;
	*lease = to;
}

void budget_pool_drop(struct budget_pool *p, uint64_t *lease)
{
	budget_pool_return(p, lease, 0);
}

