/* Objects of one connection: references, finalizing through the kind, and the client-chosen id map. */
#include "daemon/worker/obj.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

void obj_init(struct obj *o, const struct obj_kind *kind, struct session *s, uint32_t id)
{
	*o = (struct obj){ .id = id, .kind = kind, .refs = 1, .s = s };
}

void obj_ref(struct obj *o)
{
	o->refs++;
}

void obj_unref(struct obj *o)
{
	if (!o || --o->refs > 0)
		return;
	o->kind->finalize(o);
}

/* ---- the id map: open addressing, linear probing, keyed hash
 *
 * Ids are chosen by the client, so the hash must not be computable by it: with a public hash a
 * client picks ids that all land in one probe run and every operation walks the whole run (65536
 * such ids stalled the loop for 7 s). SipHash-1-3 under a per-process random key makes the
 * slots of ids unpredictable; at a load of at most 1/2 probe runs then stay short. */

static uint64_t idmap_key[2];

static uint64_t rotl64(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

#define SIPROUND                                                                               \
	do {                                                                                   \
		v0 += v1, v1 = rotl64(v1, 13), v1 ^= v0, v0 = rotl64(v0, 32);                  \
		v2 += v3, v3 = rotl64(v3, 16), v3 ^= v2;                                       \
		v0 += v3, v3 = rotl64(v3, 21), v3 ^= v0;                                       \
		v2 += v1, v1 = rotl64(v1, 17), v1 ^= v2, v2 = rotl64(v2, 32);                  \
	} while (0)

/* SipHash-1-3 of the id's 4 little-endian bytes. */
static uint32_t idmap_hash(uint32_t id)
{
	uint64_t v0 = idmap_key[0] ^ 0x736f6d6570736575ull;
	uint64_t v1 = idmap_key[1] ^ 0x646f72616e646f6dull;
	uint64_t v2 = idmap_key[0] ^ 0x6c7967656e657261ull;
	uint64_t v3 = idmap_key[1] ^ 0x7465646279746573ull;
	uint64_t b = (4ull << 56) | id;
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	uint64_t h = v0 ^ v1 ^ v2 ^ v3;
	return (uint32_t)(h ^ (h >> 32));
}

/* The key is drawn before main(), so it exists before any lockdown could refuse getrandom. */
__attribute__((constructor)) static void idmap_seed(void)
{
	uint8_t key[16];
	size_t have = 0;
	/* GRND_NONBLOCK: a socket-activated daemon early in boot must not wait for entropy. */
	while (have < sizeof(key)) {
		ssize_t n = getrandom(key + have, sizeof(key) - have, GRND_NONBLOCK);
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	if (have < sizeof(key)) {
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		while (fd >= 0 && have < sizeof(key)) {
			ssize_t n = read(fd, key + have, sizeof(key) - have);
			if (n <= 0)
				break;
			have += (size_t)n;
		}
		if (fd >= 0)
			close(fd);
	}
	if (have < sizeof(key)) {
		/* No randomness at all (no getrandom, no /dev): still unknown to a client in
		 * practice (address-space layout, time, pid), if weaker. */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t a = (uint64_t)(uintptr_t)&have ^ ((uint64_t)ts.tv_nsec << 32) ^
			     (uint64_t)ts.tv_sec;
		uint64_t b = (uint64_t)(uintptr_t)idmap_seed ^ ((uint64_t)getpid() << 40) ^
			     (uint64_t)clock();
		memcpy(key, &a, 8);
		memcpy(key + 8, &b, 8);
	}
	memcpy(idmap_key, key, sizeof(key));
}

void idmap_init(struct idmap *m)
{
	m->slots = NULL;
	m->cap = m->count = 0;
}

void idmap_finish(struct idmap *m)
{
	free(m->slots);
	idmap_init(m);
}

#define IDMAP_MAX_SLOTS (1u << 31)

static void idmap_put(struct obj **slots, uint32_t cap, struct obj *o)
{
	uint32_t i = idmap_hash(o->id) & (cap - 1);
	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = o;
}

int idmap_insert(struct idmap *m, struct obj *o)
{
	if (idmap_get(m, o->id))
		return -EEXIST;
	/* Keep the load at most 1/2 so probes stay short. */
	if (((uint64_t)m->count + 1) * 2 > m->cap) {
		if (m->cap >= IDMAP_MAX_SLOTS)
			return -ENOMEM; /* 2^30 live ids: far past any max_objects worth serving */
		uint32_t cap = m->cap ? m->cap * 2 : 64;
		struct obj **slots = calloc(cap, sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		for (uint32_t i = 0; i < m->cap; i++)
			if (m->slots[i])
				idmap_put(slots, cap, m->slots[i]);
		free(m->slots);
		m->slots = slots;
		m->cap = cap;
	}
	idmap_put(m->slots, m->cap, o);
	m->count++;
	return 0;
}

static int64_t idmap_find(const struct idmap *m, uint32_t id)
{
	if (!m->cap || id == 0)
		return -1;
	for (uint32_t i = idmap_hash(id) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->slots[i])
			return -1;
		if (m->slots[i]->id == id)
			return i;
	}
}

struct obj *idmap_get(const struct idmap *m, uint32_t id)
{
	int64_t i = idmap_find(m, id);
	return i < 0 ? NULL : m->slots[i];
}

struct obj *idmap_remove(struct idmap *m, uint32_t id)
{
	int64_t at = idmap_find(m, id);
	if (at < 0)
		return NULL;
	uint32_t i = (uint32_t)at, mask = m->cap - 1;
	struct obj *o = m->slots[i];
	m->slots[i] = NULL;
	m->count--;
	/* Backward-shift deletion: move later members of the probe run into the hole. */
	for (uint32_t j = (i + 1) & mask; m->slots[j]; j = (j + 1) & mask) {
		uint32_t home = idmap_hash(m->slots[j]->id) & mask;
		bool movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
		if (movable) {
			m->slots[i] = m->slots[j];
			m->slots[j] = NULL;
			i = j;
		}
	}
	return o;
}

struct obj *idmap_take(struct idmap *m, bool (*pred)(const struct obj *o, void *ud), void *ud)
{
	struct obj *chain = NULL;
	/* After a removal the backward shift may move another member into slot i: look again. */
	for (uint32_t i = 0; i < m->cap;) {
		struct obj *o = m->slots[i];
		if (o && (!pred || pred(o, ud))) {
			idmap_remove(m, o->id);
			o->dead_next = chain;
			chain = o;
		} else {
			i++;
		}
	}
	return chain;
}
