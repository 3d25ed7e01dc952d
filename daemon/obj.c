/* Objects of one connection: references, finalizing through the kind, and the client-chosen id map. */
#include "daemon/obj.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

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

/* ---- the id map: open addressing, linear probing */

static uint32_t idmap_hash(uint32_t id)
{
	id ^= id >> 16;
	id *= 0x7feb352du;
	id ^= id >> 15;
	id *= 0x846ca68bu;
	id ^= id >> 16;
	return id;
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
	if ((m->count + 1) * 2 > m->cap) {
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
