/* The cpu backend's reordered weights, shared by every plan of the worker that reorders the same constant bytes into the same layout. */
#include "daemon/backend/cpu/cpu.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * A plan's weight reorder depends only on the source bytes' address, the source layout and the
 * layout the primitive wants. Constants are shared by content within the worker
 * (daemon/worker/weights.h), so graphs loading the same weights hand the backend the same address,
 * and one reordered copy serves them all. An entry lives while a plan binds it; each such plan
 * keeps its source alive (the graph references the constant until the plan is destroyed), so
 * an address in the table always still holds the bytes it was reordered from. Each plan still
 * counts the copy in its own charge (plan_bytes): over the budgets' truth when plans share,
 * never under it.
 */
struct cpu_weight {
	struct cpu_weight *next;
	const void *src;
	dnnl_memory_desc_t src_md, dst_md;
	void *buf;
	uint32_t refs;
};

static pthread_mutex_t weights_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cpu_weight *weights_list;

/* Under the lock. */
static struct cpu_weight *find(const void *src, const dnnl_memory_desc_t *src_md,
			       const dnnl_memory_desc_t *dst_md)
{
	for (struct cpu_weight *w = weights_list; w; w = w->next)
		if (w->src == src && dnnl_memory_desc_equal(&w->src_md, src_md) &&
		    dnnl_memory_desc_equal(&w->dst_md, dst_md))
			return w;
	return NULL;
}

void *cpu_weights_get(const void *src, const dnnl_memory_desc_t *src_md,
		      const dnnl_memory_desc_t *dst_md)
{
	pthread_mutex_lock(&weights_lock);
	struct cpu_weight *w = find(src, src_md, dst_md);
	if (w)
		w->refs++;
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
		free(gone->buf);
		free(gone);
	}
}

size_t cpu_weights_count(void)
{
	size_t n = 0;
	pthread_mutex_lock(&weights_lock);
	for (struct cpu_weight *w = weights_list; w; w = w->next)
		n++;
	pthread_mutex_unlock(&weights_lock);
	return n;
}
