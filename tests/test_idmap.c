/* The id map of a connection: correctness under random churn, and ids chosen to collide. */
#include "tests/test.h"

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "daemon/worker/obj.h"

static const struct obj_kind test_kind = { .name = "test object" };

/* The longest run of occupied slots: a probe for an id in it may walk all of it. */
static uint32_t longest_run(const struct idmap *m)
{
	uint32_t best = 0, run = 0;
	/* Twice round, so that a run wrapping past the end is counted whole. */
	for (uint64_t i = 0; i < 2ull * m->cap; i++) {
		run = m->slots[i & (m->cap - 1)] ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best < m->cap ? best : m->cap;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t rng_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static bool odd_id(const struct obj *o, void *ud)
{
	(*(uint32_t *)ud)++;
	return o->id & 1;
}

/* Random inserts, removals and lookups against a model (present[] over ids spread through the
 * 32-bit range), then idmap_take of a subset and of the rest. */
TEST(idmap_random_insert_remove)
{
	enum { UNIVERSE = 3000, STEPS = 200000 };
	static struct obj objs[UNIVERSE];
	static bool present[UNIVERSE];
	struct idmap m;
	idmap_init(&m);
	/* Index 0 stands for the invalid id 0. */
	for (uint32_t k = 0; k < UNIVERSE; k++)
		obj_init(&objs[k], &test_kind, NULL,
			 k ? k * 1431655u + (k & 1 ? 0x80000001u : 0) : 0);
	uint64_t rng = 12345;
	uint32_t count = 0;
	for (int step = 0; step < STEPS; step++) {
		uint32_t k = rng_next(&rng) % UNIVERSE;
		struct obj *o = &objs[k];
		switch (rng_next(&rng) % 4) {
		case 0:
		case 1:
			if (k == 0)
				break;
			if (present[k]) {
				ASSERT_EQ(idmap_insert(&m, o), -EEXIST);
			} else {
				ASSERT_EQ(idmap_insert(&m, o), 0);
				present[k] = true;
				count++;
			}
			break;
		case 2:
			ASSERT(idmap_remove(&m, o->id) == (present[k] ? o : NULL));
			if (present[k])
				count--;
			present[k] = false;
			break;
		case 3:
			ASSERT(idmap_get(&m, o->id) == (present[k] ? o : NULL));
			break;
		}
		ASSERT_EQ(m.count, count);
		if (step % 5000 == 0)
			for (uint32_t j = 0; j < UNIVERSE; j++) {
				struct obj *want = present[j] ? &objs[j] : NULL;
				ASSERT_MSG(idmap_get(&m, objs[j].id) == want, "step %d: id %u",
					   step, objs[j].id);
			}
	}
	ASSERT(count > 100);
	uint32_t asked = 0, odd = 0, rest = 0;
	for (struct obj *o = idmap_take(&m, odd_id, &asked); o; o = o->dead_next) {
		ASSERT(o->id & 1);
		ASSERT(present[o - objs]);
		present[o - objs] = false;
		odd++;
	}
	ASSERT(asked >= count); /* every member was offered to the predicate */
	ASSERT_EQ(m.count, count - odd);
	for (uint32_t j = 0; j < UNIVERSE; j++)
		ASSERT(idmap_get(&m, objs[j].id) == (present[j] ? &objs[j] : NULL));
	for (struct obj *o = idmap_take(&m, NULL, NULL); o; o = o->dead_next) {
		ASSERT(present[o - objs]);
		present[o - objs] = false;
		rest++;
	}
	ASSERT_EQ(odd + rest, count);
	ASSERT_EQ(m.count, 0);
	for (uint32_t j = 0; j < UNIVERSE; j++)
		ASSERT(!present[j]);
	idmap_finish(&m);
}

/* The map's hash before it was keyed (public, and invertible). */
static uint32_t old_hash(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/* The multiplicative inverse of an odd a modulo 2^32 (Newton: each step doubles the bits). */
static uint32_t inverse_mod32(uint32_t a)
{
	uint32_t x = a;
	for (int i = 0; i < 5; i++)
		x *= 2 - a * x;
	return x;
}

/* The id whose old hash is h: each step of old_hash undone in reverse order. */
static uint32_t old_hash_preimage(uint32_t h)
{
	h ^= h >> 16;
	h *= inverse_mod32(0x846ca68bu);
	h ^= (h >> 15) ^ (h >> 30);
	h *= inverse_mod32(0x7feb352du);
	h ^= h >> 16;
	return h;
}

/* What a hostile client did: 65536 ids whose old hashes share their low 16 bits (so they share
 * one probe run at every table size up to 65536 slots, and fill two neighbouring home slots at
 * 131072) made each insert walk the whole run: seconds of loop time. Keyed, the run stays short. */
TEST(idmap_colliding_ids_stay_fast)
{
	enum { N = 65536 };
	static struct obj objs[N];
	uint32_t n = 0; /* old_hash(0) == 0: no id here is 0 */
	for (uint32_t k = 0; k < N; k++) {
		uint32_t h = k << 16 | 0x1234;
		uint32_t id = old_hash_preimage(h);
		ASSERT_EQ(old_hash(id), h);
		obj_init(&objs[n++], &test_kind, NULL, id);
	}
	struct idmap m;
	idmap_init(&m);
	double t0 = now_s();
	for (uint32_t i = 0; i < N; i++)
		ASSERT_EQ(idmap_insert(&m, &objs[i]), 0);
	uint32_t run = longest_run(&m);
	for (uint32_t i = 0; i < N; i++)
		ASSERT(idmap_get(&m, objs[i].id) == &objs[i]);
	for (uint32_t i = 0; i < N; i++)
		ASSERT(idmap_remove(&m, objs[i].id) == &objs[i]);
	double dt = now_s() - t0;
	ASSERT_EQ(m.count, 0);
	idmap_finish(&m);
	/* Unkeyed, the run was all 65536 ids; keyed at load 1/2 it is a few dozen slots. */
	ASSERT_MSG(run < 1024, "the longest probe run holds %u slots", run);
	ASSERT_MSG(dt < 1.0, "65536 colliding ids took %.2f s to insert, find and remove", dt);
}
