/* Constant bytes shared by content within a worker: hash, confirm by comparison, reference count. */
#include "daemon/worker/weights.h"

#include "daemon/backend/backend.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct weights {
	struct weights *next; /* in its bucket */
	uint64_t hash, bytes;
	uint32_t refs;        /* under the table's lock */
	bool in_table;        /* false: the table could not grow; shared by no one */
	void *data;
	/* Under lock (taken after the table's, never before it): */
	pthread_mutex_t lock;
	uint32_t pins;        /* readers of the bytes: compiles, saves, plans, comparisons */
	bool dropped;         /* the pages are given back; held can write them again */
	const void *held;     /* the backend's copy they can be restored from (referenced) */
	const struct backend_impl *impl;
};

static struct {
	pthread_mutex_t lock;
	struct weights **buckets;
	size_t n_buckets, count;
	uint64_t held_bytes;
} table = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* bytes given back (weights_drop) and not restored, of copies still held */
static _Atomic uint64_t given_bytes;

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t lane(uint64_t acc, uint64_t v)
{
	return rotl(acc + v * P2, 31) * P1;
}

uint64_t weights_hash(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t a = P1 + P2, b = P2, c = 0, d = (uint64_t)0 - P1;
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		a = lane(a, load64(p + i));
		b = lane(b, load64(p + i + 8));
		c = lane(c, load64(p + i + 16));
		d = lane(d, load64(p + i + 24));
	}
	uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + (uint64_t)n;
	for (; i + 8 <= n; i += 8)
		h = rotl(h ^ lane(0, load64(p + i)), 27) * P1 + P3;
	for (; i < n; i++)
		h = rotl(h ^ (p[i] * P3), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ (h >> 32);
}

/* Under the lock: the first copy with this hash and size, referenced and pinned (its bytes
 * written back first when they were given back: *restored counts them). */
static struct weights *lookup(uint64_t hash, uint64_t bytes, uint64_t *restored)
{
	if (!table.n_buckets)
		return NULL;
	for (struct weights *w = table.buckets[hash & (table.n_buckets - 1)]; w; w = w->next)
		if (w->hash == hash && w->bytes == bytes) {
			/* they stay while confirm() compares them; bytes given back are written
			 * back to be compared (and are given back again by the next compile
			 * that binds them); when they cannot be, a copy is made */
			if (!weights_pin(w, restored))
				continue;
			w->refs++;
			return w;
		}
	return NULL;
}

/* Under the lock. Growing is best effort: a full table only makes chains longer, and bytes
 * that find no table at all are simply not shared. */
static void insert(struct weights *w)
{
	if (table.count >= table.n_buckets) {
		size_t n = table.n_buckets ? table.n_buckets * 2 : 64;
		struct weights **nb = calloc(n, sizeof(*nb));
		if (nb) {
			for (size_t i = 0; i < table.n_buckets; i++)
				for (struct weights *x = table.buckets[i], *nx; x; x = nx) {
					nx = x->next;
					x->next = nb[x->hash & (n - 1)];
					nb[x->hash & (n - 1)] = x;
				}
			free(table.buckets);
			table.buckets = nb;
			table.n_buckets = n;
		}
	}
	if (!table.n_buckets)
		return;
	w->in_table = true;
	struct weights **head = &table.buckets[w->hash & (table.n_buckets - 1)];
	w->next = *head;
	*head = w;
	table.count++;
	table.held_bytes += w->bytes;
}

/* A candidate whose bytes equal src's, or NULL (a collision, or none): the reference taken by
 * lookup() is dropped when the bytes differ. Compared outside the lock: the bytes of a
 * referenced copy never change. */
static struct weights *confirm(struct weights *w, const void *src, uint64_t bytes)
{
	if (!w)
		return NULL;
	bool same = memcmp(w->data, src, bytes) == 0;
	weights_unpin(w);
	if (same)
		return w;
	weights_unref(w); /* cannot be the last: the table's owner holds one */
	return NULL;
}

struct weights *weights_find(const void *src, uint64_t bytes, uint64_t *restored)
{
	uint64_t h = weights_hash(src, bytes);
	pthread_mutex_lock(&table.lock);
	struct weights *w = lookup(h, bytes, restored);
	pthread_mutex_unlock(&table.lock);
	return confirm(w, src, bytes);
}

struct weights *weights_intern(const void *src, uint64_t bytes, void *buf, bool *shared,
			       uint64_t *restored)
{
	uint64_t h = weights_hash(src, bytes);
	pthread_mutex_lock(&table.lock);
	struct weights *w = lookup(h, bytes, restored);
	pthread_mutex_unlock(&table.lock);
	if ((w = confirm(w, src, bytes))) {
		*shared = true;
		return w;
	}
	struct weights *n = malloc(sizeof(*n));
	if (!n)
		return NULL;
	if (bytes)
		memcpy(buf, src, bytes);
	*n = (struct weights){ .hash = h, .bytes = bytes, .refs = 1, .data = buf };
	pthread_mutex_init(&n->lock, NULL);
	pthread_mutex_lock(&table.lock);
	/* Another thread may have interned the same bytes while these were copied. */
	w = lookup(h, bytes, restored);
	pthread_mutex_unlock(&table.lock);
	if ((w = confirm(w, src, bytes))) {
		pthread_mutex_destroy(&n->lock);
		free(n);
		*shared = true;
		return w;
	}
	pthread_mutex_lock(&table.lock);
	insert(n);
	pthread_mutex_unlock(&table.lock);
	*shared = false;
	return n;
}

const void *weights_data(const struct weights *w)
{
	return w->data;
}

uint64_t weights_bytes(const struct weights *w)
{
	return w->bytes;
}

void weights_ref(struct weights *w)
{
	pthread_mutex_lock(&table.lock);
	w->refs++;
	pthread_mutex_unlock(&table.lock);
}

bool weights_only_ref(struct weights *w)
{
	pthread_mutex_lock(&table.lock);
	bool only = w->refs == 1;
	pthread_mutex_unlock(&table.lock);
	return only;
}

bool weights_unref(struct weights *w)
{
	pthread_mutex_lock(&table.lock);
	bool last = --w->refs == 0;
	if (last && w->in_table) {
		struct weights **pp = &table.buckets[w->hash & (table.n_buckets - 1)];
		while (*pp != w)
			pp = &(*pp)->next;
		*pp = w->next;
		table.count--;
		table.held_bytes -= w->bytes;
	}
	pthread_mutex_unlock(&table.lock);
	if (!last)
		return false;
	bool dropped = w->dropped;
	if (dropped)
		atomic_fetch_sub(&given_bytes, w->bytes);
	if (w->held)
		w->impl->prepared_release(w->held);
	pthread_mutex_destroy(&w->lock);
	free(w->data);
	free(w);
	return !dropped; /* the uid's charge for dropped bytes went with their pages */
}

bool weights_pin(struct weights *w, uint64_t *restored)
{
	pthread_mutex_lock(&w->lock);
	bool ok = true;
	if (w->dropped) {
		ok = w->impl->prepared_restore(w->held, w->data, w->bytes);
		if (ok) {
			w->impl->prepared_release(w->held);
			w->held = NULL;
			w->impl = NULL;
			w->dropped = false;
			*restored += w->bytes;
			atomic_fetch_sub(&given_bytes, w->bytes);
		}
	}
	if (ok)
		w->pins++;
	pthread_mutex_unlock(&w->lock);
	return ok;
}

void weights_unpin(struct weights *w)
{
	pthread_mutex_lock(&w->lock);
	w->pins--;
	pthread_mutex_unlock(&w->lock);
}

uint64_t weights_drop(struct weights *w, const struct backend_impl *impl)
{
	if (w->bytes < WEIGHTS_DROP_MIN || !impl->prepared_hold || !impl->prepared_restore)
		return 0;
	uint64_t given = 0;
	pthread_mutex_lock(&w->lock);
	if (!w->pins && !w->dropped && (w->held = impl->prepared_hold(w->data, w->bytes))) {
		w->impl = impl;
		w->dropped = true;
		/* the whole pages inside the buffer: the address stays this copy's (the backend's
		 * copies are found by it), and the pages read as zeros until restored */
		uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
		uintptr_t a = ((uintptr_t)w->data + page - 1) & ~(page - 1);
		uintptr_t b = ((uintptr_t)w->data + w->bytes) & ~(page - 1);
		if (b > a)
			madvise((void *)a, b - a, MADV_DONTNEED);
		given = w->bytes;
		atomic_fetch_add(&given_bytes, given);
	}
	pthread_mutex_unlock(&w->lock);
	return given;
}

bool weights_dropped(struct weights *w)
{
	pthread_mutex_lock(&w->lock);
	bool d = w->dropped;
	pthread_mutex_unlock(&w->lock);
	return d;
}

void weights_stats(uint64_t *copies, uint64_t *bytes, uint64_t *given)
{
	pthread_mutex_lock(&table.lock);
	*copies = table.count;
	*bytes = table.held_bytes;
	pthread_mutex_unlock(&table.lock);
	*given = atomic_load(&given_bytes);
}
