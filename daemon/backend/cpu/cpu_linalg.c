/* The cpu backend's linalg family: gemm and matmul as oneDNN matmul primitives (alpha as output scale, C as bias or an accumulated prefill). */
#include <math.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"

/*
 * gemm's transposes are only strides on A and B, so oneDNN reads both where they lie; a
 * constant B is reordered once into the layout oneDNN picks (format_tag_any). oneDNN 2.x adds
 * a matmul's bias before its output scale, dst = alpha * (A.B + bias), so the C term is:
 *  - BIAS:    C itself when alpha == beta and C is one row ({1, N}: brg matmul takes no other
 *             bias shape, a full one gets ref:any);
 *  - OWNED:   a constant one-row C times beta / alpha, made once here ({1, N});
 *  - PREFILL: otherwise dst is filled with C (broadcast) before each run and a sum post-op,
 *             first of all (before the epilogue's activation), adds beta * C.
 * matmul's batch dims broadcast as oneDNN's do (a size-1 dim against the other's size).
 */

enum cpu_gemm_c { CPU_GEMM_C_NONE, CPU_GEMM_C_BIAS, CPU_GEMM_C_OWNED, CPU_GEMM_C_PREFILL };

/* What one attempt describes to oneDNN. */
struct cpu_mm_geom {
	int rank;
	dnnl_dims_t a_dims, a_strides, b_dims, b_strides, d_dims, d_strides;
	uint32_t a, b, output;
	int split;     /* the output dim chunks slice (rank - 2: rows), -1: none */
	int64_t chunk; /* its entries per chunk */
	int64_t cols;  /* columns per chunk (tiles of rows x columns), 0: all */
	int64_t col;   /* a chunk's first column (where C and the channel vector start) */
};

static void cpu_linalg_undo(struct cpu_step *s)
{
	if (s->destroy && s->priv)
		s->destroy(s->priv);
	s->priv = NULL;
	s->destroy = NULL;
	s->run = NULL;
	s->impl = NULL;
	s->epilogue_after = false;
}

static enum webnn_status cpu_linalg_oom(const struct graph_node *n, struct wnn_diag *diag)
{
	char name[96];
	return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
			    graph_node_name(n, name, sizeof name));
}

static void cpu_linalg_dense(int rank, const int64_t *dims, int64_t *strides)
{
	int64_t s = 1;
	for (int i = rank - 1; i >= 0; i--) {
		strides[i] = s;
		s *= dims[i];
	}
}

/* Fills the output with C broadcast to M x N, for the sum post-op of the PREFILL mode. */
static enum webnn_status cpu_gemm_run_prefill(const struct cpu_step *s, void *const *bufs,
					      const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_gemm_attrs *a = &s->n->attrs.gemm;
	const float *c = bufs[a->c];
	float *o = bufs[a->output];
	uint32_t M = a->m, N = a->n;
	uint64_t csm = a->c_stride_m, csn = a->c_stride_n;
#pragma omp parallel for num_threads(x->threads) if ((uint64_t)M * N > 32768)
	for (uint32_t m = 0; m < M; m++) {
		const float *cr = c + m * csm;
		float *orow = o + (uint64_t)m * N;
		if (csn == 1) {
			memcpy(orow, cr, (size_t)N * sizeof *orow);
		} else {
			for (uint32_t j = 0; j < N; j++)
				orow[j] = cr[j * csn];
		}
	}
	return cpu_dnnl_chunks_exec(s->priv, s->n, bufs, x, diag);
}

/* The constant one-row C term as an owned bias: beta / alpha * C, broadcast along N if C is;
 * a chunk of columns owns its part, from column col. */
static enum webnn_status cpu_gemm_owned_bias(const struct cpu_build *b, struct cpu_dnnl_prim *p,
					     const struct graph_node *n,
					     const dnnl_memory_desc_t *md, int64_t col,
					     struct wnn_diag *diag)
{
	const struct wnn_gemm_attrs *a = &n->attrs.gemm;
	dnnl_memory_t mem = NULL;
	enum webnn_status r = cpu_dnnl_bind_owned(b, p, DNNL_ARG_BIAS, md, &mem, n, diag);
	if (r != WEBNN_STATUS_OK)
		return r;
	void *h = NULL;
	if ((r = cpu_dnnl_check(dnnl_memory_get_data_handle(mem, &h), n, "bias memory", diag)))
		return r;
	float *dst = h;
	const float *c = (const float *)b->g->values[a->c].data + col * (int64_t)a->c_stride_n;
	float scale = (float)a->beta / (float)a->alpha;
	for (int64_t j = 0; j < md->dims[1]; j++)
		dst[j] = scale * c[j * a->c_stride_n];
	return WEBNN_STATUS_OK;
}

/* The post-ops of attr (the epilogue's) with a sum first: beta times the C the run prefills
 * must be added before the epilogue's activation. The binary operands bound to p move up one
 * post-op index with their post-ops. */
static enum webnn_status cpu_gemm_sum_first(dnnl_primitive_attr_t attr, struct cpu_dnnl_prim *p,
					    float beta, const struct graph_node *n,
					    struct wnn_diag *diag)
{
	const_dnnl_post_ops_t old = NULL;
	dnnl_post_ops_t po = NULL;
	dnnl_status_t st = dnnl_primitive_attr_get_post_ops(attr, &old);
	if (st == dnnl_success)
		st = dnnl_post_ops_create(&po);
	if (st == dnnl_success)
		st = dnnl_post_ops_append_sum(po, beta);
	int len = st == dnnl_success && old ? dnnl_post_ops_len(old) : 0;
	for (int i = 0; st == dnnl_success && i < len; i++) {
		dnnl_alg_kind_t alg;
		if (dnnl_post_ops_get_kind(old, i) == dnnl_eltwise) {
			float scale, alpha, b2;
			st = dnnl_post_ops_get_params_eltwise(old, i, &scale, &alg, &alpha, &b2);
			if (st == dnnl_success)
				st = dnnl_post_ops_append_eltwise(po, scale, alg, alpha, b2);
		} else if (dnnl_post_ops_get_kind(old, i) == dnnl_binary) {
			const dnnl_memory_desc_t *md = NULL;
			st = dnnl_post_ops_get_params_binary(old, i, &alg, &md);
			if (st == dnnl_success)
				st = dnnl_post_ops_append_binary(po, alg, md);
		} else {
			st = dnnl_invalid_arguments; /* the epilogue makes no other kind */
		}
	}
	if (st == dnnl_success)
		st = dnnl_primitive_attr_set_post_ops(attr, po);
	if (po)
		dnnl_post_ops_destroy(po);
	for (int i = 0; st == dnnl_success && i < p->n_args; i++)
		if (p->args[i].arg >= DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE &&
		    p->args[i].arg < DNNL_ARG_ATTR_INPUT_SCALES)
			p->args[i].arg += DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE;
	return cpu_dnnl_check(st, n, "post-ops", diag);
}

/* Cuts c's dim d to [start, start + len), adding the byte offsets of A's, B's and the output's
 * first element. An operand's dim of 1 there is broadcast: it does not move; B is whole in
 * every chunk of rows, A in every chunk of columns. */
static void cpu_mm_cut(struct cpu_mm_geom *c, int d, int64_t start, int64_t len, uint64_t *a_off,
		       uint64_t *b_off, uint64_t *d_off)
{
	c->d_dims[d] = len;
	*d_off += (uint64_t)(start * c->d_strides[d]) * sizeof(float);
	if (d == c->rank - 1) {
		c->b_dims[d] = len;
		*b_off += (uint64_t)(start * c->b_strides[d]) * sizeof(float);
		c->col = start;
		return;
	}
	if (c->a_dims[d] != 1 || d == c->rank - 2) {
		c->a_dims[d] = len;
		*a_off += (uint64_t)(start * c->a_strides[d]) * sizeof(float);
	}
	if (d < c->rank - 2 && c->b_dims[d] != 1) {
		c->b_dims[d] = len;
		*b_off += (uint64_t)(start * c->b_strides[d]) * sizeof(float);
	}
}

/* Chunk i's slice of the geometry (chunks in row-major order of the tiles) and its offsets. */
static void cpu_mm_slice(const struct cpu_mm_geom *k, uint32_t i, struct cpu_mm_geom *c,
			 uint64_t *a_off, uint64_t *b_off, uint64_t *d_off)
{
	*c = *k;
	c->col = 0;
	*a_off = *b_off = *d_off = 0;
	int last = k->rank - 1;
	int64_t n_cols = k->cols ? (k->d_dims[last] + k->cols - 1) / k->cols : 1;
	int64_t r = (int64_t)i / n_cols, j = (int64_t)i % n_cols;
	if (k->split >= 0) {
		int64_t start = r * k->chunk, total = k->d_dims[k->split];
		cpu_mm_cut(c, k->split, start, total - start < k->chunk ? total - start : k->chunk,
			   a_off, b_off, d_off);
	}
	if (k->cols) {
		int64_t start = j * k->cols, total = k->d_dims[last];
		cpu_mm_cut(c, last, start, total - start < k->cols ? total - start : k->cols, a_off,
			   b_off, d_off);
	}
}

/* One chunk's primitive in p: OK with *unimplemented set when oneDNN has no implementation; or
 * an error. *weights is the first chunk's constant B (reordered once, shared by the chunks that
 * want the same layout when every chunk reads all of B), NULL before it is made. */
static enum webnn_status cpu_mm_chunk(const struct cpu_build *b, struct cpu_dnnl_prim *p,
				      const struct graph_node *n, const struct cpu_mm_geom *k,
				      uint64_t a_off, uint64_t b_off, uint64_t d_off,
				      enum cpu_gemm_c mode,
				      bool fuse, dnnl_memory_t *weights,
				      dnnl_memory_desc_t *weights_md, bool *unimplemented,
				      struct wnn_diag *diag)
{
	const struct wnn_gemm_attrs *ga = n->op == WNN_OP_GEMM ? &n->attrs.gemm : NULL;
	const struct graph_value *bv = &b->g->values[k->b];
	bool const_b = bv->kind == GRAPH_VALUE_CONSTANT && bv->data != NULL;
	dnnl_memory_desc_t a_md, b_plain, b_pd, bias_md, d_md;
	*unimplemented = false;
	dnnl_status_t st = cpu_dnnl_md_strided(&a_md, k->rank, k->a_dims, k->a_strides, dnnl_f32);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(&b_plain, k->rank, k->b_dims, k->b_strides, dnnl_f32);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(&d_md, k->rank, k->d_dims, k->d_strides, dnnl_f32);
	b_pd = b_plain;
	if (st == dnnl_success && const_b)
		st = dnnl_memory_desc_init_by_tag(&b_pd, k->rank, k->b_dims, dnnl_f32,
						  dnnl_format_tag_any);
	if (st == dnnl_success && (mode == CPU_GEMM_C_BIAS || mode == CPU_GEMM_C_OWNED)) {
		/* one row (the chunk's columns of it): C's own strides, or the owned copy's */
		dnnl_dims_t dims = { 1, k->d_dims[1] };
		dnnl_dims_t strides = { ga->n, mode == CPU_GEMM_C_OWNED ? 1
								: (int64_t)ga->c_stride_n };
		st = cpu_dnnl_md_strided(&bias_md, 2, dims, strides, dnnl_f32);
	}
	if (st != dnnl_success)
		return cpu_dnnl_check(st, n, "memory descriptor", diag);
	bool with_bias = mode == CPU_GEMM_C_BIAS || mode == CPU_GEMM_C_OWNED;

	dnnl_matmul_desc_t md;
	st = dnnl_matmul_desc_init(&md, &a_md, &b_pd, with_bias ? &bias_md : NULL, &d_md);
	if (st == dnnl_unimplemented) {
		*unimplemented = true;
		return WEBNN_STATUS_OK;
	}
	if (st != dnnl_success)
		return cpu_dnnl_check(st, n, "matmul", diag);

	enum webnn_status r = WEBNN_STATUS_OK;
	dnnl_primitive_attr_t attr = NULL;
	if ((r = fuse ? cpu_dnnl_epilogue_attr(b, p, n, &d_md, &attr, diag)
		      : cpu_dnnl_attr_create(&attr, n, diag)) != WEBNN_STATUS_OK)
		return r;
	bool scaled = ga && ga->alpha != 1;
	if (scaled) {
		float alpha = (float)ga->alpha;
		if ((r = cpu_dnnl_check(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &alpha),
					n, "output scales", diag)))
			goto fail_attr;
	}
	if (mode == CPU_GEMM_C_PREFILL &&
	    (r = cpu_gemm_sum_first(attr, p, (float)ga->beta, n, diag)) != WEBNN_STATUS_OK)
		goto fail_attr;
	dnnl_primitive_desc_t pd = NULL;
	st = dnnl_primitive_desc_create(&pd, &md, attr, b->engine, NULL);
	dnnl_primitive_attr_destroy(attr);
	if (st == dnnl_unimplemented) {
		*unimplemented = true;
		return WEBNN_STATUS_OK;
	}
	if ((r = cpu_dnnl_check(st, n, "primitive descriptor", diag)) != WEBNN_STATUS_OK)
		return r;
	dnnl_memory_desc_t b_want = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	if ((r = cpu_dnnl_create(b, p, pd, n, diag)) != WEBNN_STATUS_OK)
		return r;
	uint32_t out = fuse ? n->epilogue.output : k->output;
	bool share = const_b && *weights && k->split == k->rank - 2 && !k->cols &&
		     dnnl_memory_desc_equal(&b_want, weights_md);
	if ((r = cpu_dnnl_bind(b, p, DNNL_ARG_SRC, &a_md, k->a, n, diag)) ||
	    (r = share ? cpu_dnnl_bind_shared(p, DNNL_ARG_WEIGHTS, *weights, n, diag)
	     : const_b ? cpu_dnnl_bind_constant(b, p, DNNL_ARG_WEIGHTS, &b_plain,
						(const char *)bv->data + b_off, &b_want, n, diag)
		       : cpu_dnnl_bind(b, p, DNNL_ARG_WEIGHTS, &b_plain, k->b, n, diag)) ||
	    (mode == CPU_GEMM_C_BIAS &&
	     (r = cpu_dnnl_bind(b, p, DNNL_ARG_BIAS, &bias_md, ga->c, n, diag))) ||
	    (mode == CPU_GEMM_C_OWNED &&
	     (r = cpu_gemm_owned_bias(b, p, n, &bias_md, k->col, diag))) ||
	    (r = cpu_dnnl_bind(b, p, DNNL_ARG_DST, &d_md, out, n, diag)))
		return r;
	if (const_b && !*weights) {
		for (int i = 0; i < p->n_args; i++)
			if (p->args[i].arg == DNNL_ARG_WEIGHTS)
				*weights = p->args[i].memory;
		*weights_md = b_want;
	}
	/* the chunk's slice: A's rows, B's columns, and the output's with the residual the
	 * epilogue adds; a chunk of columns reads its part of C's row and of the channel vector */
	for (int i = 0; i < p->n_args; i++) {
		int arg = p->args[i].arg;
		bool post = fuse && arg >= DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE &&
			    arg < DNNL_ARG_ATTR_INPUT_SCALES;
		if (arg == DNNL_ARG_SRC)
			p->offset[i] = a_off;
		else if (arg == DNNL_ARG_WEIGHTS && !const_b)
			p->offset[i] = b_off;
		else if (arg == DNNL_ARG_DST || (post && p->value[i] == n->epilogue.residual))
			p->offset[i] = d_off;
		else if (post && p->value[i] == n->epilogue.channel)
			p->offset[i] = (uint64_t)k->col * sizeof(float);
		else if (arg == DNNL_ARG_BIAS && mode == CPU_GEMM_C_BIAS)
			p->offset[i] = (uint64_t)k->col * ga->c_stride_n * sizeof(float);
	}
	return WEBNN_STATUS_OK;
fail_attr:
	dnnl_primitive_attr_destroy(attr);
	return r;
}

/* One try: OK with s->run set; OK with s->run NULL when oneDNN has no implementation; or an
 * error. mode is the gemm C term (NONE for matmul); fuse puts the epilogue in post-ops. A step
 * split in chunks (k->split) gets one primitive per chunk, equal but for the last: oneDNN's
 * primitive cache makes the equal ones once. */
static enum webnn_status cpu_mm_try(const struct cpu_build *b, struct cpu_step *s,
				    const struct cpu_mm_geom *k, enum cpu_gemm_c mode, bool fuse,
				    struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	int64_t rows = k->split < 0 ? 1 : (k->d_dims[k->split] + k->chunk - 1) / k->chunk;
	int64_t cols = k->cols ? (k->d_dims[k->rank - 1] + k->cols - 1) / k->cols : 1;
	uint32_t count = (uint32_t)(rows * cols);
	struct cpu_dnnl_chunks *cs = cpu_dnnl_chunks_step(s, count);
	if (!cs)
		return cpu_linalg_oom(n, diag);
	dnnl_memory_t weights = NULL;
	dnnl_memory_desc_t weights_md;
	memset(&weights_md, 0, sizeof(weights_md));
	for (uint32_t i = 0; i < count; i++) {
		struct cpu_mm_geom c;
		uint64_t a_off, b_off, d_off;
		cpu_mm_slice(k, i, &c, &a_off, &b_off, &d_off);
		bool unimplemented;
		enum webnn_status r = cpu_mm_chunk(b, &cs->p[i], n, &c, a_off, b_off, d_off, mode,
						   fuse,
						   &weights, &weights_md, &unimplemented, diag);
		if (r != WEBNN_STATUS_OK || unimplemented) {
			cpu_linalg_undo(s);
			return r;
		}
	}
	s->impl = cs->p[0].impl;
	if (mode == CPU_GEMM_C_PREFILL)
		s->run = cpu_gemm_run_prefill;
	s->epilogue_after = n->epilogue.used && !fuse;
	return WEBNN_STATUS_OK;
}

/* A tile side for oneDNN's kernels: whole blocks of 64, no longer than want, at most max. */
static int64_t cpu_mm_side(double want, int64_t max)
{
	int64_t x = want < 1 ? 1 : (int64_t)want;
	if (x >= max)
		return max;
	return x > 64 ? x / 64 * 64 : x;
}

/*
 * Splits a step estimated above CPU_MM_CHUNK_MIN chunk targets: a batched matmul over its
 * outermost batch dim when no dim before it is above 1 (slices of A and the output stay one
 * block each; with fewer entries than the chunks wanted, one entry a chunk, cut in columns
 * too when B is not constant); a
 * 2-D product over rows, or in tiles of rows x columns as square as the shape allows when a
 * chunk of rows would be under CPU_MM_ROWS_MIN of a B that is not constant.
 *
 * Why both (bench_cpu_chunks, 2026-12-07, load 2.5-6 on 2 shared cores): a chunk of rows runs
 * oneDNN's brgemm kernel, as the whole step does, but reads all of B, which oneDNN repacks for
 * each chunk: 128-row chunks of a 4096^3 product took 1.06-1.08x the CPU of the whole on one
 * thread, while 512-row chunks of 2048^3 took 1.01x. A tile reads only its K x cols of B and
 * rows x K of A beside its 2 rows cols K multiply-adds; its output is strided, which only
 * oneDNN's gemm:jit takes: 768 x 768 tiles of 4096^3 took 0.94-0.97x on one thread and
 * 1.03-1.10x on two (gemm:jit's two-thread split is worse than brgemm's: 2048^3 in four
 * 1152-wide tiles took 1.27-1.32x on two threads, 0.96x on one). A constant B is reordered
 * once at build and shared by chunks of rows; tiles would each keep a copy of their part.
 */
#define CPU_MM_ROWS_MIN 256

static void cpu_mm_split(const struct cpu_build *b, const struct graph_node *n,
			 struct cpu_mm_geom *k)
{
	k->split = -1;
	k->cols = 0;
	k->col = 0;
	int d = 0;
	while (d < k->rank - 2 && k->d_dims[d] == 1)
		d++;
	int64_t M = k->d_dims[k->rank - 2], N = k->d_dims[k->rank - 1];
	const struct graph_value *bv = &b->g->values[k->b];
	bool const_b = bv->kind == GRAPH_VALUE_CONSTANT && bv->data != NULL;
	uint32_t chunks = cpu_chunks_for(b, n, d == k->rank - 2 || !const_b
						       ? (uint64_t)(k->d_dims[d] * N)
						       : (uint64_t)k->d_dims[d]);
	if (chunks <= 1)
		return;
	int64_t per = (k->d_dims[d] + chunks - 1) / chunks;
	if (d < k->rank - 2 && chunks > k->d_dims[d]) {
		/* fewer batch entries than chunks (two 4096^3 products): one entry a chunk, in
		 * chunks of columns too (B is not constant: a chunk reads its own columns) */
		int64_t per_entry = (chunks + k->d_dims[d] - 1) / k->d_dims[d];
		k->split = d;
		k->chunk = 1;
		double want = (double)N / (double)per_entry;
		int64_t nc = cpu_mm_side(want < 16 ? 16 : want, N); /* a vector of columns */
		if (nc < N)
			k->cols = nc;
		return;
	}
	if (d < k->rank - 2 || const_b || per >= CPU_MM_ROWS_MIN || N <= 64) {
		if (d == k->rank - 2)
			per = cpu_mm_side((double)per, M);
		if (per >= k->d_dims[d])
			return;
		k->split = d;
		k->chunk = per;
		return;
	}
	double area = (double)M * (double)N / chunks, side = sqrt(area);
	int64_t mc, nc;
	if (side >= (double)M) {
		mc = M;
		nc = cpu_mm_side(area / (double)M, N);
	} else if (side >= (double)N) {
		nc = N;
		mc = cpu_mm_side(area / (double)N, M);
	} else {
		mc = cpu_mm_side(side, M);
		nc = cpu_mm_side(area / (double)mc, N);
	}
	if (mc < M) {
		k->split = k->rank - 2;
		k->chunk = mc;
	}
	if (nc < N)
		k->cols = nc;
}

static void cpu_gemm_geom(const struct wnn_gemm_attrs *a, struct cpu_mm_geom *k)
{
	*k = (struct cpu_mm_geom){
		.rank = 2, .a = a->a, .b = a->b, .output = a->output,
		.a_dims = { a->m, a->k }, .a_strides = { (int64_t)a->a_stride_m, (int64_t)a->a_stride_k },
		.b_dims = { a->k, a->n }, .b_strides = { (int64_t)a->b_stride_k, (int64_t)a->b_stride_n },
		.d_dims = { a->m, a->n }, .d_strides = { a->n, 1 },
	};
}

/* Both operands get the output's rank; a batch dim an operand broadcasts is 1 there, which
 * is exactly its own (left-padded) shape, so dense strides describe it. */
static void cpu_matmul_geom(const struct wnn_matmul_attrs *a, struct cpu_mm_geom *k)
{
	int r = (int)a->batch_rank;
	*k = (struct cpu_mm_geom){ .rank = r + 2, .a = a->a, .b = a->b, .output = a->output };
	for (int i = 0; i < r; i++) {
		k->a_dims[i] = a->a_batch_strides[i] ? a->batch_dims[i] : 1;
		k->b_dims[i] = a->b_batch_strides[i] ? a->batch_dims[i] : 1;
		k->d_dims[i] = a->batch_dims[i];
	}
	k->a_dims[r] = a->m, k->a_dims[r + 1] = a->k;
	k->b_dims[r] = a->k, k->b_dims[r + 1] = a->n;
	k->d_dims[r] = a->m, k->d_dims[r + 1] = a->n;
	cpu_linalg_dense(r + 2, k->a_dims, k->a_strides);
	cpu_linalg_dense(r + 2, k->b_dims, k->b_strides);
	cpu_linalg_dense(r + 2, k->d_dims, k->d_strides);
	/* an operand read in place through a transpose of its last two axes */
	k->a_strides[r] = (int64_t)a->a_stride_m, k->a_strides[r + 1] = (int64_t)a->a_stride_k;
	k->b_strides[r] = (int64_t)a->b_stride_k, k->b_strides[r + 1] = (int64_t)a->b_stride_n;
}

/* An int8 gemm or matmul (graph_node.qdq) in oneDNN's terms: a matmul's batches are rows (its
 * weights are one [K, N] matrix). */
struct cpu_mm_int8 {
	uint32_t x, w, bias, out;
	int64_t rows, k, n, sa_m, sb_k, sb_n;
	dnnl_data_type_t xt, yt;
	uint64_t x_es, y_es;
};

/* Rows [r0, r0 + len) of m as primitive p, with the epilogue as post-ops (fuse) or not; the
 * weights of the first chunk shared with the others (*weights) when their layout is the same.
 * OK with *unimplemented set when oneDNN has nothing for it. */
static enum webnn_status cpu_mm_int8_chunk(const struct cpu_build *b, struct cpu_dnnl_prim *p,
					   const struct graph_node *n, const struct cpu_mm_int8 *m,
					   int64_t r0, int64_t len, bool fuse, dnnl_memory_t *weights,
					   dnnl_memory_desc_t *weights_md, bool *unimplemented,
					   struct wnn_diag *diag)
{
	const struct graph_ir *g = b->g;
	/* dnnl_dims_t: oneDNN's prototypes take whole DNNL_MAX_NDIMS arrays */
	dnnl_dims_t xd = { len, m->k }, xs = { m->sa_m, 1 }, wd = { m->k, m->n },
		    ws = { m->sb_k, m->sb_n }, yd = { len, m->n }, ys = { m->n, 1 },
		    bd = { 1, m->n }, bs = { m->n, 1 };
	dnnl_memory_desc_t src, w_plain, w_any, bias_md, dst;
	dnnl_status_t st = cpu_dnnl_md_strided(&src, 2, xd, xs, m->xt);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(&dst, 2, yd, ys, m->yt);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(&w_plain, 2, wd, ws, dnnl_s8);
	if (st == dnnl_success)
		st = dnnl_memory_desc_init_by_tag(&w_any, 2, wd, dnnl_s8, dnnl_format_tag_any);
	if (st == dnnl_success && m->bias != GRAPH_NONE)
		st = cpu_dnnl_md_strided(&bias_md, 2, bd, bs, dnnl_f32);
	dnnl_matmul_desc_t md;
	if (st == dnnl_success)
		st = dnnl_matmul_desc_init(&md, &src, &w_any,
					   m->bias != GRAPH_NONE ? &bias_md : NULL, &dst);
	enum webnn_status r = cpu_dnnl_check(st, n, "int8 matmul", diag);
	dnnl_primitive_attr_t attr = NULL;
	if (r != WEBNN_STATUS_OK ||
	    (r = cpu_dnnl_qdq_attr(b, p, n, &dst, fuse, &attr, diag)) != WEBNN_STATUS_OK)
		return r;
	dnnl_primitive_desc_t pd = NULL;
	st = dnnl_primitive_desc_create(&pd, &md, attr, b->engine, NULL);
	dnnl_primitive_attr_destroy(attr);
	if (st == dnnl_unimplemented) {
		*unimplemented = true;
		return WEBNN_STATUS_OK;
	}
	if ((r = cpu_dnnl_check(st, n, "int8 matmul", diag)) != WEBNN_STATUS_OK)
		return r;
	dnnl_memory_desc_t w_want = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	if ((r = cpu_dnnl_create(b, p, pd, n, diag)) != WEBNN_STATUS_OK)
		return r;
	uint32_t y = fuse ? n->epilogue.output : m->out;
	bool share = *weights && dnnl_memory_desc_equal(&w_want, weights_md);
	if ((r = cpu_dnnl_bind(b, p, DNNL_ARG_SRC, &src, m->x, n, diag)) ||
	    (r = share ? cpu_dnnl_bind_shared(p, DNNL_ARG_WEIGHTS, *weights, n, diag)
		       : cpu_dnnl_bind_constant(b, p, DNNL_ARG_WEIGHTS, &w_plain,
						g->values[m->w].data, &w_want, n, diag)) ||
	    (m->bias != GRAPH_NONE &&
	     (r = cpu_dnnl_bind(b, p, DNNL_ARG_BIAS, &bias_md, m->bias, n, diag))) ||
	    (r = cpu_dnnl_bind(b, p, DNNL_ARG_DST, &dst, y, n, diag)))
		return r;
	if (!*weights) {
		for (int i = 0; i < p->n_args; i++)
			if (p->args[i].arg == DNNL_ARG_WEIGHTS)
				*weights = p->args[i].memory;
		*weights_md = w_want;
	}
	/* the chunk's rows of the input, the output and a residual the epilogue adds */
	for (int i = 0; i < p->n_args; i++) {
		int arg = p->args[i].arg;
		if (arg == DNNL_ARG_SRC)
			p->offset[i] = (uint64_t)(r0 * m->sa_m) * m->x_es;
		else if (arg == DNNL_ARG_DST ||
			 (arg >= DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE &&
			  arg < DNNL_ARG_ATTR_INPUT_SCALES && p->value[i] == n->epilogue.residual))
			p->offset[i] = (uint64_t)(r0 * m->n) * m->y_es;
	}
	return WEBNN_STATUS_OK;
}

/* An int8 gemm or matmul (graph_node.qdq): oneDNN int8 matmuls of the quantized rows by the
 * int8 constant, in chunks of rows (cancellation, cpu.h CPU_CHUNK_NS), the epilogue of a float
 * output fused when oneDNN takes it. Nothing else can run the node, so no implementation is
 * an error. */
static enum webnn_status cpu_linalg_int8(const struct cpu_build *b, struct cpu_step *s,
					 struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	const struct graph_ir *g = b->g;
	struct cpu_mm_int8 m = { .bias = n->qdq.bias };
	if (n->op == WNN_OP_GEMM) {
		const struct wnn_gemm_attrs *a = &n->attrs.gemm;
		m.x = a->a, m.w = a->b, m.out = a->output;
		m.rows = a->m, m.k = a->k, m.n = a->n;
		m.sa_m = (int64_t)a->a_stride_m, m.sb_k = (int64_t)a->b_stride_k,
		m.sb_n = (int64_t)a->b_stride_n;
	} else {
		const struct wnn_matmul_attrs *a = &n->attrs.matmul;
		m.x = a->a, m.w = a->b, m.out = a->output;
		m.rows = (int64_t)(a->batch * a->m), m.k = a->k, m.n = a->n;
		m.sa_m = (int64_t)a->a_stride_m, m.sb_k = (int64_t)a->b_stride_k,
		m.sb_n = (int64_t)a->b_stride_n;
	}
	enum wnn_dtype xt = g->values[m.x].desc.type, yt = g->values[m.out].desc.type;
	m.xt = cpu_dnnl_type(xt), m.yt = cpu_dnnl_type(yt);
	m.x_es = wnn_dtype_size(xt), m.y_es = wnn_dtype_size(yt);
	uint32_t chunks = cpu_chunks_for(b, n, (uint64_t)m.rows);
	if (chunks < CPU_MM_CHUNK_MIN)
		chunks = 1;
	int64_t per = (m.rows + chunks - 1) / chunks;
	chunks = (uint32_t)((m.rows + per - 1) / per);
	for (int split = chunks > 1; split >= 0; split--) {
		uint32_t count = split ? chunks : 1;
		int64_t rows_each = split ? per : m.rows;
		for (int fuse = n->epilogue.used; fuse >= 0; fuse--) {
			struct cpu_dnnl_chunks *c = cpu_dnnl_chunks_step(s, count);
			if (!c)
				return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
						    "cpu: out of memory");
			dnnl_memory_t weights = NULL;
			dnnl_memory_desc_t weights_md;
			memset(&weights_md, 0, sizeof(weights_md));
			bool unimplemented = false;
			enum webnn_status r = WEBNN_STATUS_OK;
			for (uint32_t i = 0; i < count && r == WEBNN_STATUS_OK && !unimplemented;
			     i++) {
				int64_t r0 = (int64_t)i * rows_each;
				int64_t len = m.rows - r0 < rows_each ? m.rows - r0 : rows_each;
				r = cpu_mm_int8_chunk(b, &c->p[i], n, &m, r0, len, fuse, &weights,
						      &weights_md, &unimplemented, diag);
			}
			if (r == WEBNN_STATUS_OK && !unimplemented) {
				s->impl = c->p[0].impl;
				s->epilogue_after = n->epilogue.used && !fuse;
				return WEBNN_STATUS_OK;
			}
			s->destroy(s->priv);
			s->priv = NULL, s->destroy = NULL, s->run = NULL, s->impl = NULL;
			if (r != WEBNN_STATUS_OK)
				return r;
		}
	}
	char name[96];
	return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
			    "%s: oneDNN has no int8 matrix product for it",
			    graph_node_name(n, name, sizeof(name)));
}

enum webnn_status cpu_linalg_prepare(const struct cpu_build *b, struct cpu_step *s,
				     struct wnn_diag *diag)
{
	if (s->n->qdq.used)
		return cpu_linalg_int8(b, s, diag);

	const struct graph_node *n = s->n;
	struct cpu_mm_geom k;
	enum cpu_gemm_c mode = CPU_GEMM_C_NONE;
	s->run = NULL;
	/* B is packed weights, not a float operand: no other kernel may run this node */
	if (n->qweight.used)
		return cpu_quantized_matmul_prepare(b, s, diag);
	if (n->op == WNN_OP_GEMM) {
		const struct wnn_gemm_attrs *a = &n->attrs.gemm;
		/* alpha 0 (beta * C alone) is left to the reference kernel */
		if (a->type != WNN_F32 || (float)a->alpha == 0)
			return WEBNN_STATUS_OK;
		cpu_gemm_geom(a, &k);
		if (a->has_c && (float)a->beta != 0) {
			/* brg matmul takes a bias of one row; per-row C would get ref:any */
			const struct graph_value *cv = &b->g->values[a->c];
			if (a->c_stride_m)
				mode = CPU_GEMM_C_PREFILL;
			else if (cv->kind == GRAPH_VALUE_CONSTANT && cv->data)
				mode = CPU_GEMM_C_OWNED;
			else if ((float)a->alpha == (float)a->beta && a->c_stride_n)
				mode = CPU_GEMM_C_BIAS;
			else
				mode = CPU_GEMM_C_PREFILL;
		}
	} else {
		if (n->attrs.matmul.type != WNN_F32)
			return WEBNN_STATUS_OK;
		cpu_matmul_geom(&n->attrs.matmul, &k);
	}
	if (n->slice.used)
		return WEBNN_STATUS_OK;
	/* A tiny product (a small MLP's layer) runs the reference loop: a oneDNN primitive costs
	 * more to start than the loop takes (bench_dispatch_clients' 1x64 @ 64x64 MLP). */
	struct graph_work w;
	graph_node_work(b->g, n, &w);
	if (w.elements <= CPU_TINY_WORK && w.ops <= CPU_TINY_WORK - w.elements)
		return WEBNN_STATUS_OK;
	/* with fused post-ops, then without them, then (a C term oneDNN would not take as a
	 * bias) through the prefill */
	enum webnn_status r;
	cpu_mm_split(b, n, &k);
	if (n->epilogue.used) {
		if ((r = cpu_mm_try(b, s, &k, mode, true, diag)) != WEBNN_STATUS_OK || s->run)
			return r;
	}
	if ((r = cpu_mm_try(b, s, &k, mode, false, diag)) != WEBNN_STATUS_OK || s->run)
		return r;
	if (mode == CPU_GEMM_C_BIAS || mode == CPU_GEMM_C_OWNED)
		return cpu_mm_try(b, s, &k, CPU_GEMM_C_PREFILL, false, diag);
	return WEBNN_STATUS_OK;
}
