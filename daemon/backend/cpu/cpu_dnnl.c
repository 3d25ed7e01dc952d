/* The cpu backend's thin layer over the oneDNN 2.x C API: descriptors, primitives bound to graph values, constant reorders, epilogue post-ops. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl_debug.h>

#include "daemon/backend/cpu/cpu.h"

static enum webnn_status cpu_dnnl_chunks_run(const struct cpu_step *s, void *const *bufs,
					     const struct cpu_exec *x, struct wnn_diag *diag);

/* The run function cpu_dnnl_step installs: cpu_dnnl_exec of s->priv. */
static enum webnn_status cpu_dnnl_run(const struct cpu_step *s, void *const *bufs,
				      const struct cpu_exec *x, struct wnn_diag *diag);

enum webnn_status cpu_dnnl_check(dnnl_status_t st, const struct graph_node *n, const char *what,
				 struct wnn_diag *diag)
{
	if (st == dnnl_success)
		return WEBNN_STATUS_OK;
	char name[96];
	if (st == dnnl_out_of_memory)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: oneDNN %s: out of memory",
				    graph_node_name(n, name, sizeof(name)), what);
	return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR, "%s: oneDNN %s failed: %s",
			    graph_node_name(n, name, sizeof(name)), what, dnnl_status2str(st));
}

dnnl_data_type_t cpu_dnnl_type(enum wnn_dtype t)
{
	switch (t) {
	case WNN_F32: return dnnl_f32;
	case WNN_F16: return dnnl_f16;
	case WNN_I8: return dnnl_s8;
	case WNN_U8: return dnnl_u8;
	case WNN_I32: return dnnl_s32;
	default: return dnnl_data_type_undef;
	}
}

dnnl_status_t cpu_dnnl_md_strided(dnnl_memory_desc_t *md, int rank, const int64_t *dims,
				  const int64_t *strides, dnnl_data_type_t type)
{
	/* oneDNN's prototype takes whole dnnl_dims_t arrays */
	dnnl_dims_t d = { 0 }, s = { 0 };
	if (rank < 1 || rank > DNNL_MAX_NDIMS)
		return dnnl_invalid_arguments;
	memcpy(d, dims, (size_t)rank * sizeof(*dims));
	memcpy(s, strides, (size_t)rank * sizeof(*strides));
	return dnnl_memory_desc_init_by_strides(md, rank, d, type, s);
}

dnnl_status_t cpu_dnnl_md_plain(dnnl_memory_desc_t *md, const struct wnn_desc *d)
{
	int64_t dims[WNN_MAX_RANK], strides[WNN_MAX_RANK];
	int rank = d->rank ? (int)d->rank : 1;
	dims[0] = 1;
	for (uint32_t k = 0; k < d->rank; k++)
		dims[k] = d->dims[k];
	int64_t s = 1;
	for (int k = rank - 1; k >= 0; k--) {
		strides[k] = s;
		s *= dims[k] ? dims[k] : 1;
	}
	return cpu_dnnl_md_strided(md, rank, dims, strides, cpu_dnnl_type(d->type));
}

void cpu_dnnl_prim_fini(struct cpu_dnnl_prim *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->n_args; i++) {
		void *shared = NULL;
		if (p->args[i].memory && p->value[i] == CPU_VALUE_WEIGHTS)
			dnnl_memory_get_data_handle(p->args[i].memory, &shared);
		if (p->args[i].memory && p->value[i] != CPU_VALUE_SHARED)
			dnnl_memory_destroy(p->args[i].memory);
		if (shared)
			cpu_weights_release(shared);
	}
	p->n_args = 0;
	if (p->prim)
		dnnl_primitive_destroy(p->prim);
	p->prim = NULL;
}

static void dnnl_step_destroy(void *priv)
{
	cpu_dnnl_prim_fini(priv);
	free(priv);
}

struct cpu_dnnl_prim *cpu_dnnl_step(struct cpu_step *s)
{
	struct cpu_dnnl_prim *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	s->priv = p;
	s->destroy = dnnl_step_destroy;
	s->run = cpu_dnnl_run;
	s->impl = "oneDNN";
	return p;
}

enum webnn_status cpu_dnnl_attr_create(dnnl_primitive_attr_t *attr, const struct graph_node *n,
				       struct wnn_diag *diag)
{
	enum webnn_status st = cpu_dnnl_check(dnnl_primitive_attr_create(attr), n, "attributes",
					      diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	st = cpu_dnnl_check(dnnl_primitive_attr_set_scratchpad_mode(*attr,
								     dnnl_scratchpad_mode_user),
			    n, "attributes", diag);
	if (st != WEBNN_STATUS_OK) {
		dnnl_primitive_attr_destroy(*attr);
		*attr = NULL;
	}
	return st;
}

/* The plan's shared scratchpad for pd, which must have been made with cpu_dnnl_attr_create. */
static enum webnn_status bind_scratchpad(const struct cpu_build *b, struct cpu_dnnl_prim *p,
					 const_dnnl_primitive_desc_t pd,
					 const struct graph_node *n, struct wnn_diag *diag)
{
	const_dnnl_primitive_attr_t attr = NULL;
	dnnl_scratchpad_mode_t mode = dnnl_scratchpad_mode_library;
	char name[96];
	if (dnnl_primitive_desc_get_attr(pd, &attr) != dnnl_success || !attr ||
	    dnnl_primitive_attr_get_scratchpad_mode(attr, &mode) != dnnl_success ||
	    mode != dnnl_scratchpad_mode_user)
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
				    "%s: cpu backend: a oneDNN primitive without the user scratchpad "
				    "(cpu_dnnl_attr_create)", graph_node_name(n, name, sizeof(name)));
	const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
	size_t bytes = md ? dnnl_memory_desc_get_size(md) : 0;
	if (bytes == 0)
		return WEBNN_STATUS_OK;
	/* steps are built in parallel (cpu_backend.c plan_steps) */
#pragma omp critical(cpu_scratch_bytes)
	if (b->scratch_bytes && bytes > *b->scratch_bytes)
		*b->scratch_bytes = bytes;
	enum webnn_status st = cpu_dnnl_bind(b, p, DNNL_ARG_SCRATCHPAD, md, GRAPH_NONE, n, diag);
	if (st == WEBNN_STATUS_OK)
		p->value[p->n_args - 1] = CPU_VALUE_SCRATCH;
	return st;
}

enum webnn_status cpu_dnnl_create(const struct cpu_build *b, struct cpu_dnnl_prim *p,
				  dnnl_primitive_desc_t pd, const struct graph_node *n,
				  struct wnn_diag *diag)
{
	enum webnn_status sst = bind_scratchpad(b, p, pd, n, diag);
	if (sst != WEBNN_STATUS_OK) {
		dnnl_primitive_desc_destroy(pd);
		return sst;
	}
	const char *impl = NULL;
	if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success &&
	    impl)
		snprintf(p->impl, sizeof(p->impl), "%s", impl);
	dnnl_status_t st = dnnl_primitive_create(&p->prim, pd);
	dnnl_primitive_desc_destroy(pd);
	if (st == dnnl_success && b->primitives)
		atomic_fetch_add_explicit(b->primitives, 1, memory_order_relaxed);
	/* what oneDNN read for its thread count (step_prepare sets 1 for a serial step) */
	if (st == dnnl_success && b->team_primitives && omp_get_max_threads() > 1)
		atomic_fetch_add_explicit(b->team_primitives, 1, memory_order_relaxed);
	return cpu_dnnl_check(st, n, "primitive creation", diag);
}

static enum webnn_status add_arg(struct cpu_dnnl_prim *p, int arg, dnnl_memory_t mem, uint32_t v,
				 const struct graph_node *n, struct wnn_diag *diag)
{
	char name[96];
	if (p->n_args == CPU_DNNL_MAX_ARGS) {
		dnnl_memory_destroy(mem);
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
				    "%s: more than %d oneDNN arguments",
				    graph_node_name(n, name, sizeof(name)), CPU_DNNL_MAX_ARGS);
	}
	p->args[p->n_args] = (dnnl_exec_arg_t){ arg, mem };
	p->value[p->n_args++] = v;
	return WEBNN_STATUS_OK;
}

enum webnn_status cpu_dnnl_bind(const struct cpu_build *b, struct cpu_dnnl_prim *p, int arg,
				const dnnl_memory_desc_t *md, uint32_t v, const struct graph_node *n,
				struct wnn_diag *diag)
{
	dnnl_memory_t mem;
	enum webnn_status st = cpu_dnnl_check(dnnl_memory_create(&mem, md, b->engine,
								  DNNL_MEMORY_NONE),
					      n, "memory creation", diag);
	return st == WEBNN_STATUS_OK ? add_arg(p, arg, mem, v, n, diag) : st;
}

enum webnn_status cpu_dnnl_bind_owned(const struct cpu_build *b, struct cpu_dnnl_prim *p, int arg,
				      const dnnl_memory_desc_t *md, dnnl_memory_t *out,
				      const struct graph_node *n, struct wnn_diag *diag)
{
	dnnl_memory_t mem;
	enum webnn_status st = cpu_dnnl_check(dnnl_memory_create(&mem, md, b->engine,
								  DNNL_MEMORY_ALLOCATE),
					      n, "memory allocation", diag);
	if (st == WEBNN_STATUS_OK && b->owned_bytes)
		atomic_fetch_add_explicit(b->owned_bytes, dnnl_memory_desc_get_size(md) + 64,
					  memory_order_relaxed);
	if (st == WEBNN_STATUS_OK)
		st = add_arg(p, arg, mem, GRAPH_NONE, n, diag);
	if (st == WEBNN_STATUS_OK && out)
		*out = mem;
	return st;
}

/* One reorder, src -> dst, run now on the build's stream. */
static dnnl_status_t reorder_now(const struct cpu_build *b, dnnl_memory_t src,
				 const dnnl_memory_desc_t *src_md, dnnl_memory_t dst,
				 const dnnl_memory_desc_t *dst_md)
{
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t r;
	dnnl_status_t st =
		dnnl_reorder_primitive_desc_create(&pd, src_md, b->engine, dst_md, b->engine, NULL);
	if (st != dnnl_success)
		return st;
	st = dnnl_primitive_create(&r, pd);
	dnnl_primitive_desc_destroy(pd);
	if (st != dnnl_success)
		return st;
	dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, src }, { DNNL_ARG_TO, dst } };
	st = dnnl_primitive_execute(r, b->stream, 2, args);
	if (st == dnnl_success)
		st = dnnl_stream_wait(b->stream);
	dnnl_primitive_destroy(r);
	return st;
}

/* src -> dst through the dense row-major layout of the same dims, for layouts (Winograd's
 * weights) that oneDNN reorders into only from a plain tag, not from arbitrary strides. */
static dnnl_status_t reorder_via_plain(const struct cpu_build *b, dnnl_memory_t src,
				       const dnnl_memory_desc_t *src_md, dnnl_memory_t dst,
				       const dnnl_memory_desc_t *dst_md)
{
	static const dnnl_format_tag_t plain[] = { dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd,
						   dnnl_abcde, dnnl_abcdef };
	if (src_md->ndims < 1 || src_md->ndims > 6)
		return dnnl_unimplemented;
	dnnl_memory_desc_t mid_md;
	dnnl_memory_t mid;
	dnnl_status_t st = dnnl_memory_desc_init_by_tag(&mid_md, src_md->ndims, src_md->dims,
							src_md->data_type,
							plain[src_md->ndims - 1]);
	if (st != dnnl_success ||
	    (st = dnnl_memory_create(&mid, &mid_md, b->engine, DNNL_MEMORY_ALLOCATE)))
		return st;
	st = reorder_now(b, src, src_md, mid, &mid_md);
	if (st == dnnl_success)
		st = reorder_now(b, mid, &mid_md, dst, dst_md);
	dnnl_memory_destroy(mid);
	return st;
}

/* Reorders data (src_md) into a new buffer laid out as want; NULL after diag. */
static void *reorder_weights(const struct cpu_build *b, const dnnl_memory_desc_t *src_md,
			     const void *data, const dnnl_memory_desc_t *want,
			     const struct graph_node *n, struct wnn_diag *diag)
{
	size_t size = dnnl_memory_desc_get_size(want);
	void *buf = aligned_alloc(64, (size + 63) & ~(size_t)63 ? (size + 63) & ~(size_t)63 : 64);
	if (!buf) {
		char name[96];
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory for %zu bytes of "
			     "reordered weights", graph_node_name(n, name, sizeof(name)), size);
		return NULL;
	}
	dnnl_memory_t src = NULL, dst = NULL;
	/* oneDNN reads through the handle only: the constant's bytes are never written */
	enum webnn_status st = cpu_dnnl_check(dnnl_memory_create(&src, src_md, b->engine,
								  (void *)data), n,
					      "memory creation", diag);
	if (st == WEBNN_STATUS_OK)
		st = cpu_dnnl_check(dnnl_memory_create(&dst, want, b->engine, buf), n,
				    "memory creation", diag);
	if (st == WEBNN_STATUS_OK) {
		/* One thread: a weight reorder is a few hundred KiB, and a thread team's barrier
		 * waits for the slowest member, which on a busy machine is a scheduler time slice
		 * away (7 ms per reorder measured at load 2, against 0.07 ms alone). */
		int team = omp_get_max_threads();
		omp_set_num_threads(1);
		dnnl_status_t rs = reorder_now(b, src, src_md, dst, want);
		if (rs == dnnl_unimplemented)
			rs = reorder_via_plain(b, src, src_md, dst, want);
		omp_set_num_threads(team);
		st = cpu_dnnl_check(rs, n, "weight reorder", diag);
	}
	if (src)
		dnnl_memory_destroy(src);
	if (dst)
		dnnl_memory_destroy(dst);
	if (st != WEBNN_STATUS_OK) {
		free(buf);
		return NULL;
	}
	return buf;
}

enum webnn_status cpu_dnnl_bind_constant(const struct cpu_build *b, struct cpu_dnnl_prim *p,
					 int arg, const dnnl_memory_desc_t *src_md, const void *data,
					 const dnnl_memory_desc_t *want, const struct graph_node *n,
					 struct wnn_diag *diag)
{
	char name[96];
	if (p->n_args == CPU_DNNL_MAX_ARGS)
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
				    "%s: more than %d oneDNN arguments",
				    graph_node_name(n, name, sizeof(name)), CPU_DNNL_MAX_ARGS);
	/* Plans of the worker binding the same constant bytes into the same layout share one
	 * reordered copy (cpu_weights.c). */
	bool adopted = false;
	void *buf = cpu_weights_get(data, src_md, want, &adopted);
	if (!buf) {
		void *mine = reorder_weights(b, src_md, data, want, n, diag);
		if (!mine)
			return diag->status;
		buf = cpu_weights_put(data, src_md, want, mine);
		if (buf != mine)
			free(mine);
		if (!buf)
			return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
					    graph_node_name(n, name, sizeof(name)));
	}
	dnnl_memory_t mem;
	enum webnn_status st = cpu_dnnl_check(dnnl_memory_create(&mem, want, b->engine, buf), n,
					      "memory creation", diag);
	if (st != WEBNN_STATUS_OK) {
		cpu_weights_release(buf);
		return st;
	}
	/* Every plan binding the copy counts it (see cpu_weights.c), but for an adopted one,
	 * whose graph charges the cache entry it lies in. */
	if (b->owned_bytes && !adopted)
		atomic_fetch_add_explicit(b->owned_bytes, dnnl_memory_desc_get_size(want) + 64,
					  memory_order_relaxed);
	if (b->binds)
		cpu_binds_add(b->binds, n, data);
	p->args[p->n_args] = (dnnl_exec_arg_t){ arg, mem };
	p->value[p->n_args++] = CPU_VALUE_WEIGHTS;
	return WEBNN_STATUS_OK;
}

enum webnn_status cpu_dnnl_exec(const struct cpu_dnnl_prim *p, const struct graph_node *n,
				void *const *bufs, const struct cpu_exec *x, struct wnn_diag *diag)
{
	for (int i = 0; i < p->n_args; i++) {
		if (p->value[i] == GRAPH_NONE || p->value[i] == CPU_VALUE_SHARED ||
		    p->value[i] == CPU_VALUE_WEIGHTS)
			continue;
		void *h = p->value[i] == CPU_VALUE_SCRATCH ? x->scratch
			  : (char *)bufs[p->value[i]] + p->offset[i];
		dnnl_status_t st = dnnl_memory_set_data_handle(p->args[i].memory, h);
		if (st != dnnl_success)
			return cpu_dnnl_check(st, n, "binding a tensor", diag);
	}
	/* a serial step's primitive, made for one thread, also runs with one: some of oneDNN's
	 * kernels (its sgemm) read the thread count at execution */
	int team = omp_get_max_threads();
	if (x->threads != team)
		omp_set_num_threads(x->threads);
	enum webnn_status st = cpu_dnnl_check(
		dnnl_primitive_execute(p->prim, x->stream, p->n_args, p->args), n, "execute", diag);
	if (st == WEBNN_STATUS_OK)
		st = cpu_dnnl_check(dnnl_stream_wait(x->stream), n, "execute", diag);
	if (x->threads != team)
		omp_set_num_threads(team);
	return st;
}

static enum webnn_status cpu_dnnl_run(const struct cpu_step *s, void *const *bufs,
				      const struct cpu_exec *x, struct wnn_diag *diag)
{
	return cpu_dnnl_exec(s->priv, s->n, bufs, x, diag);
}

enum webnn_status cpu_dnnl_bind_shared(struct cpu_dnnl_prim *p, int arg, dnnl_memory_t mem,
				       const struct graph_node *n, struct wnn_diag *diag)
{
	char name[96];
	if (p->n_args == CPU_DNNL_MAX_ARGS)
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
				    "%s: more than %d oneDNN arguments",
				    graph_node_name(n, name, sizeof(name)), CPU_DNNL_MAX_ARGS);
	p->args[p->n_args] = (dnnl_exec_arg_t){ arg, mem };
	p->value[p->n_args++] = CPU_VALUE_SHARED;
	return WEBNN_STATUS_OK;
}

static void dnnl_chunks_destroy(void *priv)
{
	struct cpu_dnnl_chunks *c = priv;
	/* later chunks may borrow the first one's memory: they go first */
	for (uint32_t i = c->count; i-- > 0;)
		cpu_dnnl_prim_fini(&c->p[i]);
	free(c);
}

struct cpu_dnnl_chunks *cpu_dnnl_chunks_step(struct cpu_step *s, uint32_t count)
{
	struct cpu_dnnl_chunks *c = calloc(1, sizeof(*c) + (size_t)count * sizeof(c->p[0]));
	if (!c)
		return NULL;
	c->count = count;
	s->priv = c;
	s->destroy = dnnl_chunks_destroy;
	s->run = cpu_dnnl_chunks_run;
	s->impl = "oneDNN";
	return c;
}

enum webnn_status cpu_dnnl_chunks_exec(const struct cpu_dnnl_chunks *c, const struct graph_node *n,
				       void *const *bufs, const struct cpu_exec *x,
				       struct wnn_diag *diag)
{
	enum webnn_status st = WEBNN_STATUS_OK;
	for (uint32_t i = 0; i < c->count && st == WEBNN_STATUS_OK; i++) {
		if (i > 0 && backend_cancelled(x->cancel))
			return backend_cancelled_status(diag, x->work ? x->work : "dispatch");
		st = cpu_dnnl_exec(&c->p[i], n, bufs, x, diag);
	}
	return st;
}

static enum webnn_status cpu_dnnl_chunks_run(const struct cpu_step *s, void *const *bufs,
					     const struct cpu_exec *x, struct wnn_diag *diag)
{
	return cpu_dnnl_chunks_exec(s->priv, s->n, bufs, x, diag);
}

uint32_t cpu_chunks_for(const struct cpu_build *b, const struct graph_node *n,
			uint64_t max_chunks)
{
	bool conv = n->op < WNN_OP_COUNT && wnn_ops[n->op].family == WNN_FAMILY_CONV;
	uint64_t target = b->chunk_ns ? b->chunk_ns : CPU_CHUNK_NS;
	if (conv)
		target = b->chunk_ns ? b->chunk_ns / CPU_CONV_CHUNK_DIV : CPU_CONV_CHUNK_NS;
	if (!target)
		target = 1;
	uint64_t chunks = graph_node_cost(&graph_cost_fast, b->g, n) / target;
	if (chunks > max_chunks)
		chunks = max_chunks;
	if (chunks > 1024)
		chunks = 1024; /* past a few hundred a chunk is milliseconds: enough */
	return chunks < (conv ? CPU_CHUNK_MIN : CPU_MM_CHUNK_MIN) ? 1 : (uint32_t)chunks;
}

enum webnn_status cpu_dnnl_epilogue_attr(const struct cpu_build *b, struct cpu_dnnl_prim *p,
					 const struct graph_node *n, const dnnl_memory_desc_t *dst_md,
					 dnnl_primitive_attr_t *attr, struct wnn_diag *diag)
{
	const struct graph_epilogue *e = &n->epilogue;
	*attr = NULL;
	enum webnn_status st = cpu_dnnl_attr_create(attr, n, diag);
	if (st != WEBNN_STATUS_OK || !e->used)
		return st;
	dnnl_post_ops_t po;
	st = cpu_dnnl_check(dnnl_post_ops_create(&po), n, "post-ops", diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	int idx = 0;
	if (e->channel != GRAPH_NONE) {
		/* oneDNN's logical dims put a convolution's channels at 1 whatever the memory
		 * layout; matrix products have them last */
		int cdim = n->op == WNN_OP_CONV2D || n->op == WNN_OP_CONV_TRANSPOSE2D
				   ? 1 : dst_md->ndims - 1;
		int64_t dims[DNNL_MAX_NDIMS], strides[DNNL_MAX_NDIMS];
		for (int k = 0; k < dst_md->ndims; k++) {
			dims[k] = k == cdim ? dst_md->dims[k] : 1;
			strides[k] = k == cdim ? 1 : dst_md->dims[cdim];
		}
		dnnl_memory_desc_t cmd;
		st = cpu_dnnl_check(cpu_dnnl_md_strided(&cmd, dst_md->ndims, dims, strides,
							dst_md->data_type), n, "post-op operand", diag);
		if (st == WEBNN_STATUS_OK)
			st = cpu_dnnl_check(dnnl_post_ops_append_binary(po, dnnl_binary_add, &cmd), n,
					    "post-ops", diag);
		if (st == WEBNN_STATUS_OK)
			st = cpu_dnnl_bind(b, p, DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1,
					   &cmd, e->channel, n, diag);
		idx++;
	}
	if (st == WEBNN_STATUS_OK && e->residual != GRAPH_NONE) {
		st = cpu_dnnl_check(dnnl_post_ops_append_binary(po, dnnl_binary_add, dst_md), n,
				    "post-ops", diag);
		if (st == WEBNN_STATUS_OK)
			st = cpu_dnnl_bind(b, p, DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1,
					   dst_md, e->residual, n, diag);
		idx++;
	}
	if (st == WEBNN_STATUS_OK && e->act == GRAPH_ACT_RELU)
		st = cpu_dnnl_check(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0, 0),
				    n, "post-ops", diag);
	else if (st == WEBNN_STATUS_OK && e->act == GRAPH_ACT_CLAMP)
		st = cpu_dnnl_check(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_clip, e->lo,
								 e->hi), n, "post-ops", diag);
	else if (st == WEBNN_STATUS_OK && e->act == GRAPH_ACT_LEAKY_RELU)
		st = cpu_dnnl_check(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, e->alpha,
								 0), n, "post-ops", diag);
	if (st == WEBNN_STATUS_OK && e->bound)
		st = cpu_dnnl_check(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_clip,
								 e->bound_lo, e->bound_hi),
				    n, "post-ops", diag);
	if (st == WEBNN_STATUS_OK)
		st = cpu_dnnl_check(dnnl_primitive_attr_set_post_ops(*attr, po), n, "post-ops", diag);
	dnnl_post_ops_destroy(po);
	if (st != WEBNN_STATUS_OK && *attr) {
		dnnl_primitive_attr_destroy(*attr);
		*attr = NULL;
	}
	return st;
}

enum webnn_status cpu_dnnl_qdq_attr(const struct cpu_build *b, struct cpu_dnnl_prim *p,
				    const struct graph_node *n, const dnnl_memory_desc_t *dst_md,
				    bool fuse, dnnl_primitive_attr_t *attr, struct wnn_diag *diag)
{
	const struct graph_qdq *q = &n->qdq;
	enum webnn_status st = fuse ? cpu_dnnl_epilogue_attr(b, p, n, dst_md, attr, diag)
				    : cpu_dnnl_attr_create(attr, n, diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	const struct graph_value *sv = &b->g->values[q->scale];
	/* per channel (dim 1: a convolution's channels, a 2-D product's columns) even when every
	 * channel has the same scale: oneDNN 2.6 has no int8 implementation for a common scale
	 * given at creation */
	dnnl_status_t ds = dnnl_primitive_attr_set_output_scales(*attr, (int64_t)sv->desc.dims[0],
								  1 << 1, sv->data);
	if (ds == dnnl_success && q->zero)
		ds = dnnl_primitive_attr_set_zero_points(*attr, DNNL_ARG_SRC, 1, 0, &q->zero);
	if (ds == dnnl_success && q->y_zero)
		ds = dnnl_primitive_attr_set_zero_points(*attr, DNNL_ARG_DST, 1, 0, &q->y_zero);
	if (ds == dnnl_success && q->act != GRAPH_ACT_NONE) {
		/* applied to the scaled sum, before the zero point is added */
		dnnl_post_ops_t po;
		if ((ds = dnnl_post_ops_create(&po)) == dnnl_success) {
			ds = q->act == GRAPH_ACT_RELU
				     ? dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0, 0)
				     : dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_clip, q->lo,
								    q->hi);
			if (ds == dnnl_success)
				ds = dnnl_primitive_attr_set_post_ops(*attr, po);
			dnnl_post_ops_destroy(po);
		}
	}
	st = cpu_dnnl_check(ds, n, "int8 attributes", diag);
	if (st != WEBNN_STATUS_OK) {
		dnnl_primitive_attr_destroy(*attr);
		*attr = NULL;
	}
	return st;
}
