/* The cpu backend's reordered weights, shared by every plan of the worker that reorders the same constant bytes into the same layout. */
#include "daemon/backend/cpu/cpu.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * A plan's weight reorder depends only on the source bytes' address, the source layout and the
 * layout the primitive wants. Constants are shared by content within the worker
 * (daemon/worker/weights.h), so graphs loading the same weights hand the backend the same address,
 * and one reordered copy serves them all. An entry lives while a plan binds it; each such plan
 * keeps its source alive (the graph references the constant until the plan is destroyed), so
 * an address in the table always still holds the bytes it was reordered from. Each plan still
 * counts the copy in its own charge (plan_bytes): over the budgets' truth when plans share,
 * never under it.
 *
 * The graph cache (daemon/worker/graphcache.h) saves a plan's copies with the graph and, in a later
 * process, offers them back before the compile (cpu_weights_adopt): an adopted copy lies in
 * the mapped cache entry, is never freed here, and is found only by a compile whose source
 * and wanted descriptors equal its saved ones byte for byte (the saved ones are not trusted:
 * they are never handed to oneDNN) and whose layout is a plain blocked one (its bytes are
 * then numbers only, nothing oneDNN reads as offsets or sizes).
 */
struct cpu_weight {
	struct cpu_weight *next;
	const void *src;
	dnnl_memory_desc_t src_md, dst_md;
	void *buf;
	uint64_t bytes;       /* adopted: the bytes stored */
	uint32_t refs;
	bool adopted;         /* buf lies in a mapped cache entry (not freed here) */
};

/* cpu_weights_take hands out both descriptors as one key */
_Static_assert(offsetof(struct cpu_weight, dst_md) ==
		       offsetof(struct cpu_weight, src_md) + sizeof(dnnl_memory_desc_t),
	       "the key is src_md and dst_md, adjacent");

static pthread_mutex_t weights_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cpu_weight *weights_list;

/* Under the lock. */
static struct cpu_weight *find(const void *src, const dnnl_memory_desc_t *src_md,
			       const dnnl_memory_desc_t *dst_md)
{
	for (struct cpu_weight *w = weights_list; w; w = w->next) {
		if (w->src != src)
			continue;
		if (w->adopted) {
			if (dst_md->format_kind == dnnl_blocked &&
			    memcmp(&w->src_md, src_md, sizeof(*src_md)) == 0 &&
			    memcmp(&w->dst_md, dst_md, sizeof(*dst_md)) == 0 &&
			    w->bytes >= dnnl_memory_desc_get_size(dst_md))
				return w;
		} else if (dnnl_memory_desc_equal(&w->src_md, src_md) &&
			   dnnl_memory_desc_equal(&w->dst_md, dst_md)) {
			return w;
		}
	}
	return NULL;
}

void *cpu_weights_get(const void *src, const dnnl_memory_desc_t *src_md,
		      const dnnl_memory_desc_t *dst_md, bool *adopted)
{
	pthread_mutex_lock(&weights_lock);
	struct cpu_weight *w = find(src, src_md, dst_md);
	if (w)
		w->refs++;
	*adopted = w && w->adopted;
	pthread_mutex_unlock(&weights_lock);
	return w ? w->buf : NULL;
}

void *cpu_weights_put(const void *src, const dnnl_memory_desc_t *src_md,
		      const dnnl_memory_desc_t *dst_md, void *buf)
{
	struct cpu_weight *n = malloc(sizeof(*n));
	pthread_mutex_lock(&weights_lock);
	struct cpu_weight *w = find(src, src_md, dst_md);
	if (w) {
		w->refs++;
		buf = w->buf; /* another plan reordered the same meanwhile: the caller frees its own */
	} else if (n) {
		*n = (struct cpu_weight){ .next = weights_list, .src = src, .src_md = *src_md,
					  .dst_md = *dst_md, .buf = buf, .refs = 1 };
		weights_list = n;
		n = NULL;
	} else {
		buf = NULL;
	}
	pthread_mutex_unlock(&weights_lock);
	free(n);
	return buf;
}

void cpu_weights_release(void *buf)
{
	struct cpu_weight *gone = NULL;
	pthread_mutex_lock(&weights_lock);
	for (struct cpu_weight **pp = &weights_list; *pp; pp = &(*pp)->next)
		if ((*pp)->buf == buf) {
			if (--(*pp)->refs == 0) {
				gone = *pp;
				*pp = gone->next;
			}
			break;
		}
	pthread_mutex_unlock(&weights_lock);
	if (gone) {
		if (!gone->adopted)
			free(gone->buf);
		free(gone);
	}
}

size_t cpu_weights_take(struct backend_prepared **out)
{
	size_t n = 0, cap = 0;
	struct backend_prepared *list = NULL;
	pthread_mutex_lock(&weights_lock);
	for (struct cpu_weight *w = weights_list; w; w = w->next)
		cap++;
	if (cap)
		list = malloc(cap * sizeof(*list));
	for (struct cpu_weight *w = weights_list; list && w; w = w->next) {
		/* only plain blocked layouts: what an adopter can take (see above) */
		if (w->dst_md.format_kind != dnnl_blocked)
			continue;
		w->refs++;
		list[n++] = (struct backend_prepared){
			.src = w->src, .key = &w->src_md, .key_len = 2 * sizeof(dnnl_memory_desc_t),
			.data = w->buf, .bytes = dnnl_memory_desc_get_size(&w->dst_md) };
	}
	pthread_mutex_unlock(&weights_lock);
	*out = list;
	return n;
}

void cpu_weights_release_prepared(const void *data)
{
	cpu_weights_release((void *)data);
}

bool cpu_weights_adopt(const struct backend_prepared *p)
{
	if (p->key_len != 2 * sizeof(dnnl_memory_desc_t))
		return false;
	struct cpu_weight *n = malloc(sizeof(*n));
	if (!n)
		return false;
	*n = (struct cpu_weight){ .src = p->src, .buf = (void *)p->data, .bytes = p->bytes,
				  .refs = 1, .adopted = true };
	memcpy(&n->src_md, p->key, sizeof(n->src_md));
	memcpy(&n->dst_md, (const char *)p->key + sizeof(n->src_md), sizeof(n->dst_md));
	pthread_mutex_lock(&weights_lock);
	n->next = weights_list;
	weights_list = n;
	pthread_mutex_unlock(&weights_lock);
	return true;
}

/* ---- giving constants back: the daemon frees a constant's bytes while a copy reordered from
 * them is held (daemon/worker/weights.h), and has them written back from it when something
 * needs them again. Only a copy in a plain blocked layout of the same data type, made from a
 * dense source of exactly the constant's bytes, is a permutation of them: reordering it back
 * gives every byte exactly (padding is dropped, nothing is rounded). */

void cpu_binds_add(struct cpu_binds *b, const struct graph_node *n, const void *src)
{
	pthread_mutex_lock(&b->lock);
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		struct cpu_bind *p = realloc(b->v, cap * sizeof(*p));
		if (p)
			b->v = p, b->cap = cap;
	}
	if (b->n < b->cap)
		b->v[b->n++] = (struct cpu_bind){ src, n };
	else
		b->oom = true;
	pthread_mutex_unlock(&b->lock);
}

void cpu_binds_step(struct cpu_binds *b, const struct graph_node *n, bool built)
{
	const void *told[16];
	size_t n_told = 0;
	bool all = true;
	pthread_mutex_lock(&b->lock);
	for (size_t i = 0; i < b->n;) {
		if (b->v[i].n != n) {
			i++;
			continue;
		}
		const void *src = b->v[i].src;
		bool seen = false;
		for (size_t k = 0; k < n_told; k++)
			seen |= told[k] == src;
		if (!seen && n_told < 16)
			told[n_told++] = src;
		else if (!seen)
			all = false; /* untold: kept (its bytes stay) */
		b->v[i] = b->v[--b->n];
	}
	bool tell = built && !b->oom && all && b->g && b->g->on_prepared;
	pthread_mutex_unlock(&b->lock);
	for (size_t k = 0; tell && k < n_told; k++)
		b->g->on_prepared(b->g->on_prepared_arg, (uint32_t)(n - b->g->nodes), told[k]);
}

void cpu_binds_fini(struct cpu_binds *b)
{
	free(b->v);
	b->v = NULL;
	b->n = b->cap = 0;
	pthread_mutex_destroy(&b->lock);
}

static bool invertible(const struct cpu_weight *w, uint64_t bytes)
{
	const dnnl_memory_desc_t *s = &w->src_md, *d = &w->dst_md;
	if (w->adopted || s->format_kind != dnnl_blocked || d->format_kind != dnnl_blocked ||
	    s->extra.flags != 0 || d->extra.flags != 0 || s->data_type != d->data_type ||
	    s->offset0 != 0 || s->ndims < 1 || s->ndims != d->ndims)
		return false;
	uint64_t elems = 1;
	for (int i = 0; i < s->ndims; i++) {
		if (s->padded_dims[i] != s->dims[i] || s->dims[i] != d->dims[i] ||
		    s->padded_offsets[i] != 0 || s->dims[i] <= 0)
			return false;
		elems *= (uint64_t)s->dims[i];
	}
	/* dense: exactly the constant's bytes, each element once */
	return elems * dnnl_data_type_size(s->data_type) == bytes &&
	       dnnl_memory_desc_get_size(s) == bytes;
}

const void *cpu_weights_hold(const void *src, uint64_t bytes)
{
	void *held = NULL;
	pthread_mutex_lock(&weights_lock);
	for (struct cpu_weight *w = weights_list; w && !held; w = w->next)
		if (w->src == src && invertible(w, bytes)) {
			w->refs++;
			held = w->buf;
		}
	pthread_mutex_unlock(&weights_lock);
	return held;
}

static pthread_once_t restore_once = PTHREAD_ONCE_INIT;
static dnnl_engine_t restore_engine;

static void restore_init(void)
{
	if (dnnl_engine_create(&restore_engine, dnnl_cpu, 0) != dnnl_success)
		restore_engine = NULL;
}

bool cpu_weights_restore(const void *held, void *dst, uint64_t bytes)
{
	dnnl_memory_desc_t from, to;
	bool found = false;
	pthread_mutex_lock(&weights_lock);
	for (struct cpu_weight *w = weights_list; w; w = w->next)
		if (w->buf == held && invertible(w, bytes)) {
			from = w->dst_md, to = w->src_md, found = true;
			break;
		}
	pthread_mutex_unlock(&weights_lock);
	pthread_once(&restore_once, restore_init);
	if (!found || !restore_engine)
		return false;
	/* the holder's reference keeps held's bytes while they are read */
	dnnl_primitive_desc_t pd = NULL;
	dnnl_primitive_t r = NULL;
	dnnl_memory_t a = NULL, b = NULL;
	dnnl_stream_t stream = NULL;
	bool ok = dnnl_reorder_primitive_desc_create(&pd, &from, restore_engine, &to,
						     restore_engine, NULL) == dnnl_success &&
		  dnnl_primitive_create(&r, pd) == dnnl_success &&
		  dnnl_memory_create(&a, &from, restore_engine, (void *)held) == dnnl_success &&
		  dnnl_memory_create(&b, &to, restore_engine, dst) == dnnl_success &&
		  dnnl_stream_create(&stream, restore_engine, dnnl_stream_default_flags) ==
			  dnnl_success;
	if (ok) {
		dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, a }, { DNNL_ARG_TO, b } };
		ok = dnnl_primitive_execute(r, stream, 2, args) == dnnl_success &&
		     dnnl_stream_wait(stream) == dnnl_success;
	}
	if (stream)
		dnnl_stream_destroy(stream);
	if (a)
		dnnl_memory_destroy(a);
	if (b)
		dnnl_memory_destroy(b);
	if (r)
		dnnl_primitive_destroy(r);
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	return ok;
}
