/* The cpu backend's conv family: conv2d and convTranspose2d as oneDNN (de)convolution primitives over the values' own layouts. */
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"

/*
 * Activations are described through the resolved (n, c, y, x) strides, so either layout is
 * read in place (after the layout pass that is NHWC, which brgconv reads without reorders).
 * oneDNN picks the weights layout (format_tag_any): a constant filter is reordered into it once
 * here, a filter that is a graph input at each run (its plain layout would get oneDNN's
 * reference implementation). Groups use oneDNN's 5-D grouped weights {G, O/G, I/G, KH, KW}.
 */

/* Everything oneDNN is told about one node, in oneDNN's terms. */
struct cpu_conv_geom {
	bool transpose; /* convTranspose2d: a deconvolution */
	uint32_t input, filter, bias, output;
	bool has_bias;
	uint32_t c_out;
	/* dnnl_dims_t throughout: oneDNN's prototypes take whole DNNL_MAX_NDIMS arrays */
	dnnl_dims_t src_dims, src_strides, dst_dims, dst_strides;
	int w_rank;
	dnnl_dims_t w_dims, w_strides;
	dnnl_dims_t strides, dilates, pad_l, pad_r;
	/* float32, or an int8 conv2d's (graph_node.qdq) quantized input, output and weights */
	dnnl_data_type_t src_t, dst_t, w_t;
	uint64_t src_es, dst_es; /* bytes per element */
};

static void cpu_conv_copy4(int64_t *dst, const uint64_t *src)
{
	for (int i = 0; i < 4; i++)
		dst[i] = (int64_t)src[i];
}

static void cpu_conv_geom_conv2d(const struct wnn_conv2d_attrs *a, struct cpu_conv_geom *k)
{
	const uint64_t *fs = a->filter_stride; /* (o absolute, i within the group, ky, kx) */
	*k = (struct cpu_conv_geom){
		.input = a->input, .filter = a->filter, .bias = a->bias, .output = a->output,
		.has_bias = a->has_bias, .c_out = a->c_out,
		.src_dims = { a->n, a->c_in, a->h, a->w },
		.dst_dims = { a->n, a->c_out, a->out_h, a->out_w },
		.strides = { a->stride_h, a->stride_w },
		.dilates = { (int64_t)a->dil_h - 1, (int64_t)a->dil_w - 1 },
		.pad_l = { a->pad_top, a->pad_left },
		.pad_r = { a->pad_bottom, a->pad_right },
	};
	cpu_conv_copy4(k->src_strides, a->in_stride);
	cpu_conv_copy4(k->dst_strides, a->out_stride);
	k->src_t = k->dst_t = k->w_t = dnnl_f32;
	k->src_es = k->dst_es = sizeof(float);
	if (a->groups == 1) {
		k->w_rank = 4;
		int64_t d[4] = { a->c_out, a->c_in_g, a->kh, a->kw };
		for (int i = 0; i < 4; i++)
			k->w_dims[i] = d[i], k->w_strides[i] = (int64_t)fs[i];
	} else {
		k->w_rank = 5;
		int64_t d[5] = { a->groups, a->c_out_g, a->c_in_g, a->kh, a->kw };
		int64_t st[5] = { (int64_t)(a->c_out_g * fs[0]), (int64_t)fs[0], (int64_t)fs[1],
				  (int64_t)fs[2], (int64_t)fs[3] };
		for (int i = 0; i < 5; i++)
			k->w_dims[i] = d[i], k->w_strides[i] = st[i];
	}
}

/* oneDNN's deconvolution is WebNN's convTranspose2d: dst(oy) += src(iy) * w(ky) where
 * oy = iy * stride + ky * dilation - pad_top. Its weights are {O, I, KH, KW}; WebNN's filter
 * element (ic, o, ky, kx) is at filter_stride (ic, o, ky, kx). outputPadding or outputSizes
 * add at most stride - 1 rows at the end, which oneDNN's size check (integer division)
 * accepts with the client's own bottom/right padding. */
static void cpu_conv_geom_transpose(const struct wnn_conv_transpose2d_attrs *a,
				    struct cpu_conv_geom *k)
{
	const uint64_t *fs = a->filter_stride;
	*k = (struct cpu_conv_geom){
		.transpose = true,
		.input = a->input, .filter = a->filter, .bias = a->bias, .output = a->output,
		.has_bias = a->has_bias, .c_out = a->c_out,
		.src_dims = { a->n, a->c_in, a->h, a->w },
		.dst_dims = { a->n, a->c_out, a->out_h, a->out_w },
		.strides = { a->stride_h, a->stride_w },
		.dilates = { (int64_t)a->dil_h - 1, (int64_t)a->dil_w - 1 },
		.pad_l = { a->pad_top, a->pad_left },
		.pad_r = { a->pad_bottom, a->pad_right },
	};
	cpu_conv_copy4(k->src_strides, a->in_stride);
	cpu_conv_copy4(k->dst_strides, a->out_stride);
	k->src_t = k->dst_t = k->w_t = dnnl_f32;
	k->src_es = k->dst_es = sizeof(float);
	if (a->groups == 1) {
		k->w_rank = 4;
		int64_t d[4] = { a->c_out, a->c_in, a->kh, a->kw };
		int64_t st[4] = { (int64_t)fs[1], (int64_t)fs[0], (int64_t)fs[2], (int64_t)fs[3] };
		for (int i = 0; i < 4; i++)
			k->w_dims[i] = d[i], k->w_strides[i] = st[i];
	} else {
		k->w_rank = 5;
		int64_t d[5] = { a->groups, a->c_out_g, a->c_in_g, a->kh, a->kw };
		int64_t st[5] = { (int64_t)(a->c_in_g * fs[0]), (int64_t)fs[1], (int64_t)fs[0],
				  (int64_t)fs[2], (int64_t)fs[3] };
		for (int i = 0; i < 5; i++)
			k->w_dims[i] = d[i], k->w_strides[i] = st[i];
	}
}

/* Forgets a half-built step so that the core runs the reference kernel instead. */
static void cpu_conv_undo(struct cpu_step *s)
{
	if (s->destroy && s->priv)
		s->destroy(s->priv);
	s->priv = NULL;
	s->destroy = NULL;
	s->run = NULL;
	s->impl = NULL;
	s->epilogue_after = false;
}

/* Writes the memory descriptors of k; a oneDNN status. */
static dnnl_status_t cpu_conv_mds(const struct cpu_conv_geom *k, dnnl_memory_desc_t *src,
				  dnnl_memory_desc_t *w_plain, dnnl_memory_desc_t *w_any,
				  dnnl_memory_desc_t *bias, dnnl_memory_desc_t *dst)
{
	dnnl_status_t st = cpu_dnnl_md_strided(src, 4, k->src_dims, k->src_strides, k->src_t);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(dst, 4, k->dst_dims, k->dst_strides, k->dst_t);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(w_plain, k->w_rank, k->w_dims, k->w_strides, k->w_t);
	if (st == dnnl_success)
		st = dnnl_memory_desc_init_by_tag(w_any, k->w_rank, k->w_dims, k->w_t,
						  dnnl_format_tag_any);
	if (st == dnnl_success && k->has_bias) {
		dnnl_dims_t bd = { k->c_out }, bs = { 1 };
		st = cpu_dnnl_md_strided(bias, 1, bd, bs, dnnl_f32);
	}
	return st;
}

/*
 * A step's primitives. A long convolution (cpu.h CPU_CHUNK_NS) runs as chunks, one primitive
 * per slice of its output (rows for conv2d, images for convTranspose2d), with a cancel check
 * between them; each chunk reads the slice of the input that its rows need, with the padding
 * that slice has. Chunks share the first chunk's weights when they want the same layout. A
 * filter that is a graph input is reordered once per run, into the weights they share.
 */
struct cpu_conv_chunk {
	struct cpu_dnnl_prim in, conv, out; /* in/out: Winograd's blocked copies, else unused */
};
struct cpu_conv_priv {
	struct cpu_dnnl_prim reorder; /* a filter that is a graph input, into the weights */
	uint32_t count;
	struct cpu_conv_chunk c[];
};

static void cpu_conv_destroy(void *priv)
{
	struct cpu_conv_priv *c = priv;
	cpu_dnnl_prim_fini(&c->reorder);
	/* later chunks may borrow the first one's weights: they go first */
	for (uint32_t i = c->count; i-- > 0;) {
		cpu_dnnl_prim_fini(&c->c[i].out);
		cpu_dnnl_prim_fini(&c->c[i].conv);
		cpu_dnnl_prim_fini(&c->c[i].in);
	}
	free(c);
}

static enum webnn_status cpu_conv_run(const struct cpu_step *s, void *const *bufs,
				      const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct cpu_conv_priv *c = s->priv;
	enum webnn_status r = WEBNN_STATUS_OK;
	if (c->reorder.prim)
		r = cpu_dnnl_exec(&c->reorder, s->n, bufs, x, diag);
	for (uint32_t i = 0; i < c->count && r == WEBNN_STATUS_OK; i++) {
		const struct cpu_conv_chunk *k = &c->c[i];
		if (i > 0 && backend_cancelled(x->cancel))
			return backend_cancelled_status(diag, x->work ? x->work : "dispatch");
		if (k->in.prim)
			r = cpu_dnnl_exec(&k->in, s->n, bufs, x, diag);
		if (r == WEBNN_STATUS_OK)
			r = cpu_dnnl_exec(&k->conv, s->n, bufs, x, diag);
		if (r == WEBNN_STATUS_OK && k->out.prim)
			r = cpu_dnnl_exec(&k->out, s->n, bufs, x, diag);
	}
	return r;
}

/* How a step is cut: each image on its own, in rows pieces of per output rows (conv2d; one
 * piece of all its rows for convTranspose2d); count 1: whole. */
struct cpu_conv_split {
	uint32_t count;
	int64_t pieces, per;
};

/* The dense stride of a size-1 outermost dim (what oneDNN's layout checks expect of a view). */
static int64_t cpu_conv_outer_stride(const int64_t *dims, const int64_t *strides)
{
	int64_t s = 1;
	for (int d = 1; d < 4; d++)
		if (dims[d] * strides[d] > s)
			s = dims[d] * strides[d];
	return s;
}

/* Chunk i of sp: k's slice of one image (i / sp.pieces) and its output rows of piece
 * i % sp.pieces, with the byte offsets of its input's and output's first element. */
static void cpu_conv_slice(const struct cpu_conv_geom *k, struct cpu_conv_split sp, uint32_t i,
			   struct cpu_conv_geom *c, uint64_t *src_off, uint64_t *dst_off)
{
	*c = *k;
	*src_off = *dst_off = 0;
	if (sp.count <= 1)
		return;
	int64_t image = (int64_t)i / sp.pieces, piece = (int64_t)i % sp.pieces;
	c->src_dims[0] = c->dst_dims[0] = 1;
	*src_off = (uint64_t)(image * k->src_strides[0]) * k->src_es;
	*dst_off = (uint64_t)(image * k->dst_strides[0]) * k->dst_es;
	if (sp.pieces > 1) {
		int64_t start = piece * sp.per, out_h = k->dst_dims[2];
		int64_t len = out_h - start < sp.per ? out_h - start : sp.per;
		c->dst_dims[2] = len;
		*dst_off += (uint64_t)(start * k->dst_strides[2]) * k->dst_es;
		/* the input rows these output rows read, and the padding they read past it */
		int64_t kh = k->w_dims[k->w_rank - 2], dh = k->dilates[0] + 1;
		int64_t first = start * k->strides[0] - k->pad_l[0];
		int64_t end = (start + len - 1) * k->strides[0] - k->pad_l[0] + (kh - 1) * dh + 1;
		int64_t lo = first > 0 ? first : 0, hi = end < k->src_dims[2] ? end : k->src_dims[2];
		c->src_dims[2] = hi - lo;
		c->pad_l[0] = lo - first;
		c->pad_r[0] = end - hi;
		*src_off += (uint64_t)(lo * k->src_strides[2]) * k->src_es;
	}
	c->src_strides[0] = cpu_conv_outer_stride(c->src_dims, c->src_strides);
	c->dst_strides[0] = cpu_conv_outer_stride(c->dst_dims, c->dst_strides);
}

/* The chunks of a node: its estimate over the chunk target (cpu_chunks_for), as images, each
 * cut into pieces of output rows for conv2d (a transposed convolution's output rows gather
 * from input rows unevenly: it is cut by images only). Whole when that makes fewer than
 * CPU_CHUNK_MIN chunks, or a piece would read no input row (padding alone). */
static struct cpu_conv_split cpu_conv_split_for(const struct cpu_build *b,
						 const struct graph_node *n,
						 const struct cpu_conv_geom *k)
{
	struct cpu_conv_split whole = { 1, 1, 0 }, sp = { 1, 1, k->dst_dims[2] };
	int64_t images = k->dst_dims[0], out_h = k->dst_dims[2];
	uint32_t chunks = cpu_chunks_for(b, n, (uint64_t)(images * (k->transpose ? 1 : out_h)));
	if (chunks <= 1)
		return whole;
	if (!k->transpose && (int64_t)chunks > images) {
		int64_t pieces = ((int64_t)chunks + images - 1) / images;
		sp.per = (out_h + pieces - 1) / pieces;
		/* a piece of fewer input rows than the kernel spans gets only oneDNN's reference
		 * implementation (a thousand times slower): a piece spans the kernel at least */
		int64_t span = (k->w_dims[k->w_rank - 2] - 1) * (k->dilates[0] + 1) + 1;
		if (sp.per < span)
			sp.per = span;
		sp.pieces = (out_h + sp.per - 1) / sp.per;
	}
	if (images * sp.pieces < CPU_CHUNK_MIN || images * sp.pieces > UINT32_MAX)
		return whole;
	sp.count = (uint32_t)(images * sp.pieces);
	for (uint32_t i = 0; i < sp.count && sp.pieces > 1; i++) {
		struct cpu_conv_geom c;
		uint64_t so, doff;
		cpu_conv_slice(k, sp, i, &c, &so, &doff);
		if (c.src_dims[2] < 1)
			return whole;
	}
	return sp;
}

/* Moves a chunk primitive's bound input and output (and the residual its epilogue adds) to the
 * chunk's slice. */
static void cpu_conv_offsets(struct cpu_dnnl_prim *p, const struct graph_node *n,
			     const struct cpu_conv_geom *k, uint32_t out, uint64_t src_off,
			     uint64_t dst_off)
{
	for (int i = 0; i < p->n_args; i++) {
		int arg = p->args[i].arg;
		uint32_t v = p->value[i];
		if ((arg == DNNL_ARG_SRC || arg == DNNL_ARG_FROM) && v == k->input)
			p->offset[i] = src_off;
		else if (((arg == DNNL_ARG_DST || arg == DNNL_ARG_TO) && v == out) ||
			 (arg >= DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE &&
			  arg < DNNL_ARG_ATTR_INPUT_SCALES && v == n->epilogue.residual))
			p->offset[i] = dst_off;
	}
}

/* A chunk's weights: reordered from the constant (the first chunk, or a chunk whose layout
 * differs), or the first chunk's (*weights, in *weights_md). */
static enum webnn_status cpu_conv_bind_const_weights(const struct cpu_build *b,
						     struct cpu_dnnl_prim *p,
						     const dnnl_memory_desc_t *plain,
						     const void *data,
						     const dnnl_memory_desc_t *want,
						     dnnl_memory_t *weights,
						     dnnl_memory_desc_t *weights_md,
						     const struct graph_node *n,
						     struct wnn_diag *diag)
{
	if (*weights && dnnl_memory_desc_equal(want, weights_md))
		return cpu_dnnl_bind_shared(p, DNNL_ARG_WEIGHTS, *weights, n, diag);
	enum webnn_status r = cpu_dnnl_bind_constant(b, p, DNNL_ARG_WEIGHTS, plain, data, want, n,
						     diag);
	if (r == WEBNN_STATUS_OK && !*weights) {
		*weights = p->args[p->n_args - 1].memory;
		*weights_md = *want;
	}
	return r;
}

/* Allocates the step's record for count chunks (s->priv, s->destroy, s->run). */
static struct cpu_conv_priv *cpu_conv_priv_new(struct cpu_step *s, uint32_t count,
					       struct wnn_diag *diag)
{
	struct cpu_conv_priv *c = calloc(1, sizeof(*c) + (size_t)count * sizeof(c->c[0]));
	if (!c) {
		char name[96];
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
			     graph_node_name(s->n, name, sizeof name));
		return NULL;
	}
	c->count = count;
	s->priv = c;
	s->destroy = cpu_conv_destroy;
	s->run = cpu_conv_run;
	s->impl = "oneDNN";
	return c;
}

/*
 * The weights of a filter that is a graph input: read as they lie when the convolution takes
 * that layout; else reordered at each run into a buffer the first chunk owns (a few hundred KiB
 * at most, against the reference implementation oneDNN would otherwise run on plain weights,
 * a thousand times slower), which the other chunks share (*weights). A later chunk that wants
 * another layout sets *unimplemented: the step is then built whole.
 */
static enum webnn_status cpu_conv_bind_input_weights(const struct cpu_build *b,
						     struct cpu_step *s, struct cpu_dnnl_prim *p,
						     const struct cpu_conv_geom *k,
						     const dnnl_memory_desc_t *plain,
						     const dnnl_memory_desc_t *want,
						     dnnl_memory_t *weights,
						     dnnl_memory_desc_t *weights_md,
						     bool *unimplemented, struct wnn_diag *diag)
{
	struct cpu_conv_priv *c = s->priv;
	const struct graph_node *n = s->n;
	if (dnnl_memory_desc_equal(plain, want))
		return cpu_dnnl_bind(b, p, DNNL_ARG_WEIGHTS, plain, k->filter, n, diag);
	if (*weights) {
		if (!dnnl_memory_desc_equal(want, weights_md)) {
			*unimplemented = true;
			return WEBNN_STATUS_OK;
		}
		return cpu_dnnl_bind_shared(p, DNNL_ARG_WEIGHTS, *weights, n, diag);
	}
	dnnl_memory_t mem = NULL;
	void *h = NULL;
	dnnl_primitive_desc_t rpd = NULL;
	dnnl_primitive_attr_t attr = NULL;
	enum webnn_status r;
	if ((r = cpu_dnnl_bind_owned(b, p, DNNL_ARG_WEIGHTS, want, &mem, n, diag)) ||
	    (r = cpu_dnnl_check(dnnl_memory_get_data_handle(mem, &h), n, "weights", diag)) ||
	    (r = cpu_dnnl_attr_create(&attr, n, diag)))
		return r;
	*weights = mem;
	*weights_md = *want;
	r = cpu_dnnl_check(dnnl_reorder_primitive_desc_create(&rpd, plain, b->engine, want,
							       b->engine, attr),
			   n, "weight reorder", diag);
	dnnl_primitive_attr_destroy(attr);
	if (r != WEBNN_STATUS_OK ||
	    (r = cpu_dnnl_create(b, &c->reorder, rpd, n, diag)) ||
	    (r = cpu_dnnl_bind(b, &c->reorder, DNNL_ARG_FROM, plain, k->filter, n, diag)) ||
	    (r = cpu_dnnl_bind(b, &c->reorder, DNNL_ARG_TO, want, GRAPH_NONE, n, diag)))
		return r;
	/* bound to no value: the handle set here (the convolution's weights) stays */
	dnnl_memory_t to = c->reorder.args[c->reorder.n_args - 1].memory;
	return cpu_dnnl_check(dnnl_memory_set_data_handle(to, h), n, "weights", diag);
}

/* oneDNN 2.6's gemm:jit convolution adds a full-shape binary post-op operand wrongly in NHWC
 * with a single output channel, or with groups (seen on AVX-512 and on AVX2, where it also
 * runs grouped convolutions): a residual is left to the core wherever gemm:jit was picked. */
static bool cpu_conv_bad_residual(const_dnnl_primitive_desc_t pd, const struct graph_node *n)
{
	const char *impl = NULL;
	if (n->epilogue.residual == GRAPH_NONE)
		return false;
	return dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success ||
	       !impl || strstr(impl, "gemm") != NULL;
}

/* The (de)convolution descriptor of k; a oneDNN status. */
static dnnl_status_t cpu_conv_desc(const struct cpu_conv_geom *k, dnnl_convolution_desc_t *cd,
				   const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *w_any,
				   const dnnl_memory_desc_t *bias, const dnnl_memory_desc_t *dst)
{
	if (k->transpose)
		return dnnl_dilated_deconvolution_forward_desc_init(
			cd, dnnl_forward_inference, dnnl_deconvolution_direct, src, w_any,
			k->has_bias ? bias : NULL, dst, k->strides, k->dilates, k->pad_l, k->pad_r);
	return dnnl_dilated_convolution_forward_desc_init(
		cd, dnnl_forward_inference, dnnl_convolution_direct, src, w_any,
		k->has_bias ? bias : NULL, dst, k->strides, k->dilates, k->pad_l, k->pad_r);
}

/* One chunk's primitive in ch->conv (k: the chunk's slice of the geometry; src_off/dst_off its
 * offsets; chunked: one of several), with the epilogue as post-ops (fuse) or not: OK, with
 * *unimplemented set when oneDNN has no implementation for it (or, for a chunk, only its
 * reference one); or an error. */
static enum webnn_status cpu_conv_chunk(const struct cpu_build *b, struct cpu_step *s,
					struct cpu_conv_chunk *ch, const struct cpu_conv_geom *k,
					uint64_t src_off, uint64_t dst_off, bool chunked, bool fuse,
					dnnl_memory_t *weights, dnnl_memory_desc_t *weights_md,
					bool *unimplemented, struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	const struct graph_value *fv = &b->g->values[k->filter];
	bool const_w = fv->kind == GRAPH_VALUE_CONSTANT && fv->data != NULL;
	dnnl_memory_desc_t src, w_plain, w_any, bias, dst;
	dnnl_status_t st = cpu_conv_mds(k, &src, &w_plain, &w_any, &bias, &dst);
	if (st != dnnl_success)
		return cpu_dnnl_check(st, n, "memory descriptor", diag);
	dnnl_convolution_desc_t cd;
	st = cpu_conv_desc(k, &cd, &src, &w_any, &bias, &dst);
	if (st == dnnl_unimplemented) {
		*unimplemented = true;
		return WEBNN_STATUS_OK;
	}
	if (st != dnnl_success)
		return cpu_dnnl_check(st, n, k->transpose ? "deconvolution" : "convolution", diag);
	struct cpu_dnnl_prim *p = &ch->conv;
	enum webnn_status r = WEBNN_STATUS_OK;
	dnnl_primitive_attr_t attr = NULL;
	if ((r = n->qdq.used ? cpu_dnnl_qdq_attr(b, p, n, &dst, fuse, &attr, diag)
	     : fuse	     ? cpu_dnnl_epilogue_attr(b, p, n, &dst, &attr, diag)
			     : cpu_dnnl_attr_create(&attr, n, diag)) != WEBNN_STATUS_OK)
		return r;
	dnnl_primitive_desc_t pd = NULL;
	st = dnnl_primitive_desc_create(&pd, &cd, attr, b->engine, NULL);
	dnnl_primitive_attr_destroy(attr);
	if (st == dnnl_success && fuse && cpu_conv_bad_residual(pd, n)) {
		dnnl_primitive_desc_destroy(pd);
		st = dnnl_unimplemented;
	}
	if (st == dnnl_unimplemented) {
		*unimplemented = true;
		return WEBNN_STATUS_OK;
	}
	if ((r = cpu_dnnl_check(st, n, "primitive descriptor", diag)) != WEBNN_STATUS_OK)
		return r;
	/* pd belongs to p from here on: keep what is needed of it first */
	dnnl_memory_desc_t w_want = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	if ((r = cpu_dnnl_create(b, p, pd, n, diag)) != WEBNN_STATUS_OK)
		return r;
	/* a slice that only oneDNN's reference implementation takes: the step is built whole */
	if (chunked && strncmp(p->impl, "ref", 3) == 0) {
		*unimplemented = true;
		return WEBNN_STATUS_OK;
	}
	uint32_t out = fuse ? n->epilogue.output : k->output;
	if ((r = cpu_dnnl_bind(b, p, DNNL_ARG_SRC, &src, k->input, n, diag)) ||
	    (r = const_w ? cpu_conv_bind_const_weights(b, p, &w_plain, fv->data, &w_want, weights,
						       weights_md, n, diag)
			 : cpu_conv_bind_input_weights(b, s, p, k, &w_plain, &w_want, weights,
						       weights_md, unimplemented, diag)) ||
	    *unimplemented ||
	    (k->has_bias && (r = cpu_dnnl_bind(b, p, DNNL_ARG_BIAS, &bias, k->bias, n, diag))) ||
	    (r = cpu_dnnl_bind(b, p, DNNL_ARG_DST, &dst, out, n, diag)))
		return r;
	cpu_conv_offsets(p, n, k, out, src_off, dst_off);
	return WEBNN_STATUS_OK;
}

/*
 * Winograd F(4x4, 3x3) for the large 3x3 stride-1 convolutions: 2.4 multiplies where direct
 * convolution does 9, measured 2.7x faster on 27x27x64->256 (371 vs 995 us, 2 threads), past the
 * FMA peak a direct convolution is bound by. oneDNN runs it only on its blocked activation
 * layouts, so the step reorders the input into it and the output back (two memory-bound
 * copies, a few percent of the convolution). Its rounding differs from direct summation by a
 * few float32 ulps of the largest partial sums; small convolutions (where a WPT tolerance of
 * a few ulps would notice) are never given to it.
 */
static bool cpu_conv_wino_worth(const struct cpu_build *b, const struct cpu_conv_geom *k)
{
	const struct graph_value *fv = &b->g->values[k->filter];
	return !k->transpose && k->w_rank == 4 && k->w_dims[2] == 3 && k->w_dims[3] == 3 &&
	       k->strides[0] == 1 && k->strides[1] == 1 && k->dilates[0] == 0 &&
	       k->dilates[1] == 0 && k->src_dims[1] >= 32 && k->dst_dims[1] >= 64 &&
	       k->dst_dims[2] * k->dst_dims[3] >= 13 * 13 && fv->kind == GRAPH_VALUE_CONSTANT &&
	       fv->data != NULL;
}

/* A reorder between a value (plain md, value v, at byte offset off) and memory of the
 * convolution (want, whose buffer is handle): from the value when to_conv, else to it. */
static enum webnn_status cpu_conv_wino_reorder(const struct cpu_build *b, struct cpu_dnnl_prim *r,
					       const dnnl_memory_desc_t *plain, uint32_t v,
					       uint64_t off, const dnnl_memory_desc_t *want,
					       void *handle, bool to_conv,
					       const struct graph_node *n, struct wnn_diag *diag)
{
	dnnl_primitive_desc_t rpd = NULL;
	dnnl_primitive_attr_t attr = NULL;
	enum webnn_status st = cpu_dnnl_attr_create(&attr, n, diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	st = cpu_dnnl_check(dnnl_reorder_primitive_desc_create(&rpd, to_conv ? plain : want,
							       b->engine, to_conv ? want : plain,
							       b->engine, attr),
			    n, "activation reorder", diag);
	dnnl_primitive_attr_destroy(attr);
	if (st != WEBNN_STATUS_OK || (st = cpu_dnnl_create(b, r, rpd, n, diag)))
		return st;
	st = cpu_dnnl_bind(b, r, to_conv ? DNNL_ARG_FROM : DNNL_ARG_TO, plain, v, n, diag);
	if (st == WEBNN_STATUS_OK)
		r->offset[r->n_args - 1] = off;
	if (st == WEBNN_STATUS_OK)
		st = cpu_dnnl_bind(b, r, to_conv ? DNNL_ARG_TO : DNNL_ARG_FROM, want, GRAPH_NONE, n,
				   diag);
	/* bound to no value: the handle set here (the convolution's own buffer) stays */
	if (st == WEBNN_STATUS_OK)
		st = cpu_dnnl_check(dnnl_memory_set_data_handle(r->args[r->n_args - 1].memory,
								handle),
				    n, "activation reorder", diag);
	return st;
}

/* One chunk with Winograd, the epilogue fused (fuse) or left to the core: OK, with
 * *unimplemented set when oneDNN has no Winograd implementation for it; or an error. */
static enum webnn_status cpu_conv_chunk_winograd(const struct cpu_build *b, struct cpu_step *s,
						 struct cpu_conv_chunk *ch,
						 const struct cpu_conv_geom *k, uint64_t src_off,
						 uint64_t dst_off, bool fuse,
						 dnnl_memory_t *weights,
						 dnnl_memory_desc_t *weights_md,
						 bool *unimplemented, struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	dnnl_memory_desc_t src, w_plain, w_any, bias, dst, src_any, dst_any;
	dnnl_status_t st = cpu_conv_mds(k, &src, &w_plain, &w_any, &bias, &dst);
	if (st == dnnl_success)
		st = dnnl_memory_desc_init_by_tag(&src_any, 4, k->src_dims, dnnl_f32,
						  dnnl_format_tag_any);
	if (st == dnnl_success)
		st = dnnl_memory_desc_init_by_tag(&dst_any, 4, k->dst_dims, dnnl_f32,
						  dnnl_format_tag_any);
	dnnl_convolution_desc_t cd;
	if (st == dnnl_success)
		st = dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference,
							dnnl_convolution_winograd, &src_any, &w_any,
							k->has_bias ? &bias : NULL, &dst_any,
							k->strides, k->pad_l, k->pad_r);
	if (st == dnnl_unimplemented) {
		*unimplemented = true;
		return WEBNN_STATUS_OK;
	}
	if (st != dnnl_success)
		return cpu_dnnl_check(st, n, "convolution", diag);
	dnnl_primitive_attr_t attr = NULL;
	enum webnn_status r = fuse ? cpu_dnnl_epilogue_attr(b, &ch->conv, n, &dst, &attr, diag)
				   : cpu_dnnl_attr_create(&attr, n, diag);
	if (r != WEBNN_STATUS_OK)
		return r;
	dnnl_primitive_desc_t pd = NULL;
	st = dnnl_primitive_desc_create(&pd, &cd, attr, b->engine, NULL);
	dnnl_primitive_attr_destroy(attr);
	if (st == dnnl_unimplemented) {
		*unimplemented = true;
		return WEBNN_STATUS_OK;
	}
	if ((r = cpu_dnnl_check(st, n, "primitive descriptor", diag)) != WEBNN_STATUS_OK)
		return r;
	dnnl_memory_desc_t w_want = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	dnnl_memory_desc_t src_blk = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
	dnnl_memory_desc_t dst_blk = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
	if ((r = cpu_dnnl_create(b, &ch->conv, pd, n, diag)) != WEBNN_STATUS_OK)
		return r;
	dnnl_memory_t src_mem = NULL, dst_mem = NULL;
	void *src_h = NULL, *dst_h = NULL;
	uint32_t out = fuse ? n->epilogue.output : k->output;
	const struct graph_value *fv = &b->g->values[k->filter];
	if ((r = cpu_dnnl_bind_owned(b, &ch->conv, DNNL_ARG_SRC, &src_blk, &src_mem, n, diag)) ||
	    (r = cpu_conv_bind_const_weights(b, &ch->conv, &w_plain, fv->data, &w_want, weights,
					     weights_md, n, diag)) ||
	    (k->has_bias &&
	     (r = cpu_dnnl_bind(b, &ch->conv, DNNL_ARG_BIAS, &bias, k->bias, n, diag))) ||
	    (r = cpu_dnnl_bind_owned(b, &ch->conv, DNNL_ARG_DST, &dst_blk, &dst_mem, n, diag)) ||
	    (r = cpu_dnnl_check(dnnl_memory_get_data_handle(src_mem, &src_h), n, "src", diag)) ||
	    (r = cpu_dnnl_check(dnnl_memory_get_data_handle(dst_mem, &dst_h), n, "dst", diag)) ||
	    (r = cpu_conv_wino_reorder(b, &ch->in, &src, k->input, src_off, &src_blk, src_h, true,
				       n, diag)) ||
	    (r = cpu_conv_wino_reorder(b, &ch->out, &dst, out, dst_off, &dst_blk, dst_h, false, n,
				       diag)))
		return r;
	/* the residual the fused epilogue adds: the chunk's rows of it */
	cpu_conv_offsets(&ch->conv, n, k, out, src_off, dst_off);
	return WEBNN_STATUS_OK;
}

/* One try at the whole step in sp's chunks, with Winograd or direct, the epilogue fused or
 * not: OK with s->run set; OK with s->run NULL when oneDNN has no implementation for a chunk;
 * or an error. */
static enum webnn_status cpu_conv_try(const struct cpu_build *b, struct cpu_step *s,
				      const struct cpu_conv_geom *k, struct cpu_conv_split sp,
				      bool winograd, bool fuse, struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	struct cpu_conv_priv *c = cpu_conv_priv_new(s, sp.count, diag);
	if (!c)
		return WEBNN_STATUS_NO_MEMORY;
	dnnl_memory_t weights = NULL;
	dnnl_memory_desc_t weights_md;
	memset(&weights_md, 0, sizeof(weights_md));
	for (uint32_t i = 0; i < sp.count; i++) {
		struct cpu_conv_geom ck;
		uint64_t src_off, dst_off;
		cpu_conv_slice(k, sp, i, &ck, &src_off, &dst_off);
		bool unimplemented = false;
		enum webnn_status r =
			winograd ? cpu_conv_chunk_winograd(b, s, &c->c[i], &ck, src_off, dst_off,
							   fuse, &weights, &weights_md,
							   &unimplemented, diag)
				 : cpu_conv_chunk(b, s, &c->c[i], &ck, src_off, dst_off,
						  sp.count > 1, fuse,
						  &weights, &weights_md, &unimplemented, diag);
		if (r != WEBNN_STATUS_OK || unimplemented) {
			cpu_conv_undo(s);
			return r;
		}
		/* a build cancelled meanwhile: the chunks left are not made */
		if (i + 1 < sp.count && backend_cancelled(b->cancel)) {
			cpu_conv_undo(s);
			return backend_cancelled_status(diag, "build");
		}
	}
	s->impl = c->c[0].conv.impl;
	s->epilogue_after = n->epilogue.used && !fuse;
	return WEBNN_STATUS_OK;
}

/*
 * A one-dimensional convolution of a single input channel with a long kernel (an STFT front end
 * written as conv1d with DFT kernels: 257 outputs, a 512-tap kernel, stride 160) is a matrix
 * product whose A rows are overlapping windows of the input: row x starts at x * stride. oneDNN's
 * convolutions handle one input channel poorly (melspectrogram: 0.06-0.07 ms on two threads per
 * conv). oneDNN refuses overlapping strides in a memory descriptor, so each run copies the
 * windows into the step's own A (out_w x kw floats: 16 KiB there), then a oneDNN matmul takes
 * the constant filter as B = [K, O], reordered once. Only one image, one row (h = kh = 1), no padding, no
 * dilation, a dense NHWC-like output (channels innermost), and a kernel of at least
 * CPU_CONV_FRAMED_MIN taps.
 */
#define CPU_CONV_FRAMED_MIN 64u

static bool cpu_conv_framed_fits(const struct cpu_build *b, const struct graph_node *n)
{
	const struct wnn_conv2d_attrs *a = &n->attrs.conv2d;
	const struct graph_value *f = &b->g->values[a->filter];
	return n->op == WNN_OP_CONV2D && a->type == WNN_F32 && a->groups == 1 && a->c_in == 1 &&
	       a->n == 1 && a->h == 1 && a->kh == 1 && a->out_h == 1 && a->dil_w == 1 &&
	       !a->pad_top && !a->pad_bottom && !a->pad_left && !a->pad_right &&
	       a->kw >= CPU_CONV_FRAMED_MIN && a->in_stride[3] == 1 && a->out_stride[1] == 1 &&
	       a->out_stride[3] == a->c_out && f->kind == GRAPH_VALUE_CONSTANT && f->data;
}

/* The windows into the step's A (the owned source memory), then the matmul. */
static enum webnn_status cpu_conv_framed_run(const struct cpu_step *s, void *const *bufs,
					     const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct cpu_dnnl_prim *p = s->priv;
	const struct wnn_conv2d_attrs *a = &s->n->attrs.conv2d;
	void *h = NULL;
	for (int i = 0; i < p->n_args; i++)
		if (p->args[i].arg == DNNL_ARG_SRC)
			dnnl_memory_get_data_handle(p->args[i].memory, &h);
	if (!h)
		return cpu_dnnl_check(dnnl_runtime_error, s->n, "framed source", diag);
	const float *in = bufs[a->input];
	float *rows = h;
	for (uint32_t r = 0; r < a->out_w; r++)
		memcpy(rows + (size_t)r * a->kw, in + (size_t)r * a->stride_w,
		       a->kw * sizeof *rows);
	return cpu_dnnl_exec(p, s->n, bufs, x, diag);
}

/* OK with s->run set, or OK with s->run NULL when oneDNN has no such matmul; or an error. */
static enum webnn_status cpu_conv_framed(const struct cpu_build *b, struct cpu_step *s, bool fuse,
					 struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	const struct wnn_conv2d_attrs *a = &n->attrs.conv2d;
	const uint64_t *fs = a->filter_stride;
	dnnl_dims_t a_dims = { a->out_w, a->kw }, a_strides = { a->kw, 1 };
	dnnl_dims_t b_dims = { a->kw, a->c_out }, b_strides = { (int64_t)fs[3], (int64_t)fs[0] };
	dnnl_dims_t d_dims = { a->out_w, a->c_out }, d_strides = { a->c_out, 1 };
	dnnl_dims_t c_dims = { 1, a->c_out }, c_strides = { a->c_out, 1 };
	dnnl_memory_desc_t a_md, b_plain, b_any, c_md, d_md;
	dnnl_status_t st = cpu_dnnl_md_strided(&a_md, 2, a_dims, a_strides, dnnl_f32);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(&b_plain, 2, b_dims, b_strides, dnnl_f32);
	if (st == dnnl_success)
		st = dnnl_memory_desc_init_by_tag(&b_any, 2, b_dims, dnnl_f32, dnnl_format_tag_any);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(&c_md, 2, c_dims, c_strides, dnnl_f32);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(&d_md, 2, d_dims, d_strides, dnnl_f32);
	dnnl_matmul_desc_t md;
	if (st == dnnl_success)
		st = dnnl_matmul_desc_init(&md, &a_md, &b_any, a->has_bias ? &c_md : NULL, &d_md);
	if (st != dnnl_success)
		return WEBNN_STATUS_OK; /* the convolution primitives then */
	struct cpu_dnnl_prim *p = cpu_dnnl_step(s);
	if (!p)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "conv2d: out of memory");
	dnnl_primitive_attr_t attr = NULL;
	enum webnn_status r = fuse ? cpu_dnnl_epilogue_attr(b, p, n, &d_md, &attr, diag)
				   : cpu_dnnl_attr_create(&attr, n, diag);
	if (r != WEBNN_STATUS_OK) {
		cpu_conv_undo(s);
		return r;
	}
	dnnl_primitive_desc_t pd = NULL;
	st = dnnl_primitive_desc_create(&pd, &md, attr, b->engine, NULL);
	dnnl_primitive_attr_destroy(attr);
	if (st != dnnl_success) {
		cpu_conv_undo(s);
		return WEBNN_STATUS_OK;
	}
	dnnl_memory_desc_t b_want = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	const void *w = b->g->values[a->filter].data;
	if ((r = cpu_dnnl_create(b, p, pd, n, diag)) ||
	    (r = cpu_dnnl_bind_owned(b, p, DNNL_ARG_SRC, &a_md, NULL, n, diag)) ||
	    (r = cpu_dnnl_bind_constant(b, p, DNNL_ARG_WEIGHTS, &b_plain, w, &b_want, n, diag)) ||
	    (a->has_bias && (r = cpu_dnnl_bind(b, p, DNNL_ARG_BIAS, &c_md, a->bias, n, diag))) ||
	    (r = cpu_dnnl_bind(b, p, DNNL_ARG_DST, &d_md, fuse ? n->epilogue.output : a->output, n,
			       diag))) {
		cpu_conv_undo(s);
		return r;
	}
	s->run = cpu_conv_framed_run;
	s->impl = p->impl;
	s->epilogue_after = n->epilogue.used && !fuse;
	return WEBNN_STATUS_OK;
}

/* An int8 conv2d (graph_node.qdq): oneDNN int8 convolutions over the quantized input and the
 * int8 filter, in chunks as a float one (cancellation), direct (oneDNN 2.6 has no int8
 * Winograd), the epilogue of a float output fused when oneDNN takes it. Nothing else can run
 * the node, so no implementation is an error. */
static enum webnn_status cpu_conv_int8(const struct cpu_build *b, struct cpu_step *s,
				       struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	const struct graph_ir *g = b->g;
	struct cpu_conv_geom k;
	cpu_conv_geom_conv2d(&n->attrs.conv2d, &k);
	const struct wnn_desc *xd = &g->values[k.input].desc, *yd = &g->values[k.output].desc;
	k.src_t = cpu_dnnl_type(xd->type);
	k.dst_t = cpu_dnnl_type(yd->type);
	k.w_t = dnnl_s8;
	k.src_es = wnn_dtype_size(xd->type);
	k.dst_es = wnn_dtype_size(yd->type);
	struct cpu_conv_split sp = cpu_conv_split_for(b, n, &k), whole = { 1, 1, 0 };
	for (int split = sp.count > 1; split >= 0; split--)
		for (int f = n->epilogue.used; f >= 0; f--) {
			enum webnn_status r = cpu_conv_try(b, s, &k, split ? sp : whole, false, f,
							   diag);
			if (r != WEBNN_STATUS_OK || s->run)
				return r;
		}
	char name[96];
	return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
			    "%s: oneDNN has no int8 convolution for it",
			    graph_node_name(n, name, sizeof(name)));
}

enum webnn_status cpu_conv_prepare(const struct cpu_build *b, struct cpu_step *s,
				   struct wnn_diag *diag)
{
	if (s->n->qdq.used)
		return cpu_conv_int8(b, s, diag);

	const struct graph_node *n = s->n;
	struct cpu_conv_geom k;
	enum wnn_dtype type;
	if (n->op == WNN_OP_CONV2D) {
		type = n->attrs.conv2d.type;
		cpu_conv_geom_conv2d(&n->attrs.conv2d, &k);
	} else {
		type = n->attrs.conv_transpose2d.type;
		cpu_conv_geom_transpose(&n->attrs.conv_transpose2d, &k);
	}
	s->run = NULL;
	/* float16 has no fast oneDNN path on this CPU; a slice of a concat is not ours to write */
	if (type != WNN_F32 || n->slice.used)
		return WEBNN_STATUS_OK;
	enum webnn_status r0;
	bool fuse = n->epilogue.used;
	/* no chunks: a framed product is one short matmul */
	if (cpu_conv_framed_fits(b, n) && cpu_chunks_for(b, n, 2) <= 1)
		for (int f = fuse; f >= 0; f--) {
			r0 = cpu_conv_framed(b, s, f, diag);
			if (r0 != WEBNN_STATUS_OK || s->run)
				return r0;
		}
	struct cpu_conv_split sp = cpu_conv_split_for(b, n, &k), whole = { 1, 1, 0 };
	enum webnn_status r;
	/*
	 * Winograd (2.7x faster) in chunks, else whole: oneDNN 2.6 has no Winograd for a conv2d's
	 * first and last row pieces (their padding is one-sided), so a large 3x3 convolution
	 * runs whole and is not interrupted (bench_cpu_chunks: direct in chunks took 3.1x the CPU
	 * of Winograd whole). Then direct, in chunks, then (a chunk's layout differs, or oneDNN
	 * has no implementation for a slice) whole. Each with fused post-ops, then without.
	 */
	bool wino = b->winograd && cpu_conv_wino_worth(b, &k);
	for (int pass = 0; pass < 4; pass++) {
		bool use_wino = pass < 2, split = pass % 2 == 0;
		if ((use_wino && !wino) || (split && sp.count <= 1))
			continue;
		for (int f = fuse; f >= 0; f--) {
			r = cpu_conv_try(b, s, &k, split ? sp : whole, use_wino, f, diag);
			if (r != WEBNN_STATUS_OK || s->run)
				return r;
		}
	}
	return WEBNN_STATUS_OK;
}
