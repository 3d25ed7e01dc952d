/* Objects of one connection: reference counted, typed by a kind that finalizes them, named by ids. */
#ifndef DAEMON_OBJ_H
#define DAEMON_OBJ_H

#include <stdbool.h>
#include <stdint.h>

struct obj;
struct session;

/* What an object is: each module defines its kind, so releasing an object needs no list of
 * modules. finalize runs when the last reference goes (it may defer the release to the
 * object's timeline, so that device memory is released in order). */
struct obj_kind {
	const char *name; /* for messages: "tensor", "shm slot" */
	void (*finalize)(struct obj *o);
	/* Optional: its connection is closing; queued work must be dropped rather than run. */
	void (*abandon)(struct obj *o);
};

struct obj {
	uint32_t id;
	const struct obj_kind *kind;
	int refs;                /* loop thread only */
	struct session *s;       /* the connection that named it (it holds a session reference) */
	const struct obj *owner; /* the context it was created from; NULL for contexts, shm slots */
	struct obj *dead_next;
};

/* What an allocation of n bytes takes from the heap: glibc's chunk (n plus its 8-byte header,
 * rounded up to 16, at least 32). */
static inline uint64_t obj_heap_bytes(uint64_t n)
{
	uint64_t c = (n + 8 + 15) & ~(uint64_t)15;
	return c < 32 ? 32 : c;
}
/* What an object of `size` bytes costs its connection besides its contents: its chunk, its
 * share of the id map (at most 4 slots of 8 bytes at the map's half load) and the command that
 * creates or releases it on its timeline (OBJ_CMD_BYTES, an upper bound of struct cmd's
 * chunk: checked in timeline.c). Charged with the object (issue 18: headers were not). */
#define OBJ_CMD_BYTES 768u
static inline uint64_t obj_charge_bytes(uint64_t size)
{
	return obj_heap_bytes(size) + 4 * sizeof(void *) + OBJ_CMD_BYTES;
}

/* One reference, owned by the caller. Taking the session reference is the caller's part. */
void obj_init(struct obj *o, const struct obj_kind *kind, struct session *s, uint32_t id);
void obj_ref(struct obj *o);
/* Drops a reference; the last one calls the kind's finalizer. */
void obj_unref(struct obj *o);

/* Client-chosen ids of one connection: open addressing over a hash keyed with a per-process
 * random key, so that a client cannot choose ids that collide. */
struct idmap {
	struct obj **slots;
	uint32_t cap, count;
};
void idmap_init(struct idmap *m);
void idmap_finish(struct idmap *m);
/* 0, -EEXIST when the id is live, -ENOMEM. */
int idmap_insert(struct idmap *m, struct obj *o);
struct obj *idmap_get(const struct idmap *m, uint32_t id);
struct obj *idmap_remove(struct idmap *m, uint32_t id);
/* Removes every object matching pred (all when pred is NULL) and returns them chained through
 * dead_next, still holding the map's references (the caller drops them). Allocation-free. */
struct obj *idmap_take(struct idmap *m, bool (*pred)(const struct obj *o, void *ud), void *ud);

#endif
