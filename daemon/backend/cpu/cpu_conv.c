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
	dnnl_status_t st = cpu_dnnl_md_strided(src, 4, k->src_dims, k->src_strides, dnnl_f32);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(dst, 4, k->dst_dims, k->dst_strides, dnnl_f32);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(w_plain, k->w_rank, k->w_dims, k->w_strides, dnnl_f32);
	if (st == dnnl_success)
		st = dnnl_memory_desc_init_by_tag(w_any, k->w_rank, k->w_dims, dnnl_f32,
						  dnnl_format_tag_any);
	if (st == dnnl_success && k->has_bias) {
		dnnl_dims_t bd = { k->c_out }, bs = { 1 };
		st = cpu_dnnl_md_strided(bias, 1, bd, bs, dnnl_f32);
	}
	return st;
}

/* A step's primitives: the (de)convolution, and for a filter that is a graph input, the
 * reorder of it into the convolution's own weights layout before each run. */
struct cpu_conv_priv {
	struct cpu_dnnl_prim conv, reorder;
};

static void cpu_conv_destroy(void *priv)
{
	struct cpu_conv_priv *c = priv;
	cpu_dnnl_prim_fini(&c->reorder);
	cpu_dnnl_prim_fini(&c->conv);
	free(c);
}

static enum webnn_status cpu_conv_run(const struct cpu_step *s, void *const *bufs,
				      const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct cpu_conv_priv *c = s->priv;
	return cpu_dnnl_exec(&c->conv, s->n, bufs, x, diag);
}

static enum webnn_status cpu_conv_run_reorder(const struct cpu_step *s, void *const *bufs,
					      const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct cpu_conv_priv *c = s->priv;
	enum webnn_status r = cpu_dnnl_exec(&c->reorder, s->n, bufs, x, diag);
	return r == WEBNN_STATUS_OK ? cpu_dnnl_exec(&c->conv, s->n, bufs, x, diag) : r;
}

/*
 * The weights of a filter that is a graph input: read as they lie when the convolution takes
 * that layout; else reordered at each run into a buffer the step owns (a few hundred KiB at
 * most, against the reference implementation oneDNN would otherwise run on plain weights,
 * a thousand times slower).
 */
static enum webnn_status cpu_conv_bind_input_weights(const struct cpu_build *b,
						     struct cpu_step *s,
						     const struct cpu_conv_geom *k,
						     const dnnl_memory_desc_t *plain,
						     const dnnl_memory_desc_t *want,
						     struct wnn_diag *diag)
{
	struct cpu_conv_priv *c = s->priv;
	const struct graph_node *n = s->n;
	if (dnnl_memory_desc_equal(plain, want))
		return cpu_dnnl_bind(b, &c->conv, DNNL_ARG_WEIGHTS, plain, k->filter, n, diag);
	dnnl_memory_t mem = NULL;
	void *h = NULL;
	dnnl_primitive_desc_t rpd = NULL;
	dnnl_primitive_attr_t attr = NULL;
	enum webnn_status r;
	if ((r = cpu_dnnl_bind_owned(b, &c->conv, DNNL_ARG_WEIGHTS, want, &mem, n, diag)) ||
	    (r = cpu_dnnl_check(dnnl_memory_get_data_handle(mem, &h), n, "weights", diag)) ||
	    (r = cpu_dnnl_attr_create(&attr, n, diag)))
		return r;
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
	if ((r = cpu_dnnl_check(dnnl_memory_set_data_handle(to, h), n, "weights", diag)))
		return r;
	s->run = cpu_conv_run_reorder;
	return WEBNN_STATUS_OK;
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

/* One try at the primitive, with the epilogue as post-ops (fuse) or not: OK with s->run set;
 * OK with s->run NULL when oneDNN has no implementation for it; or an error. */
static enum webnn_status cpu_conv_try(const struct cpu_build *b, struct cpu_step *s,
				      const struct cpu_conv_geom *k, bool fuse,
				      struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	const struct graph_value *fv = &b->g->values[k->filter];
	bool const_w = fv->kind == GRAPH_VALUE_CONSTANT && fv->data != NULL;
	dnnl_memory_desc_t src, w_plain, w_any, bias, dst;
	dnnl_status_t st = cpu_conv_mds(k, &src, &w_plain, &w_any, &bias, &dst);
	if (st != dnnl_success)
		return cpu_dnnl_check(st, n, "memory descriptor", diag);

	dnnl_convolution_desc_t cd;
	if (k->transpose)
		st = dnnl_dilated_deconvolution_forward_desc_init(
			&cd, dnnl_forward_inference, dnnl_deconvolution_direct, &src, &w_any,
			k->has_bias ? &bias : NULL, &dst, k->strides, k->dilates, k->pad_l, k->pad_r);
	else
		st = dnnl_dilated_convolution_forward_desc_init(
			&cd, dnnl_forward_inference, dnnl_convolution_direct, &src, &w_any,
			k->has_bias ? &bias : NULL, &dst, k->strides, k->dilates, k->pad_l, k->pad_r);
	if (st == dnnl_unimplemented) {
		s->run = NULL;
		return WEBNN_STATUS_OK;
	}
	if (st != dnnl_success)
		return cpu_dnnl_check(st, n, k->transpose ? "deconvolution" : "convolution", diag);

	struct cpu_conv_priv *c = calloc(1, sizeof *c);
	if (!c) {
		char name[96];
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    graph_node_name(n, name, sizeof name));
	}
	s->priv = c;
	s->destroy = cpu_conv_destroy;
	s->run = cpu_conv_run;
	s->impl = "oneDNN";
	struct cpu_dnnl_prim *p = &c->conv;
	enum webnn_status r = WEBNN_STATUS_OK;
	dnnl_primitive_attr_t attr = NULL;
	if ((r = fuse ? cpu_dnnl_epilogue_attr(b, p, n, &dst, &attr, diag)
		      : cpu_dnnl_attr_create(&attr, n, diag)) != WEBNN_STATUS_OK)
		goto fail;
	dnnl_primitive_desc_t pd = NULL;
	st = dnnl_primitive_desc_create(&pd, &cd, attr, b->engine, NULL);
	dnnl_primitive_attr_destroy(attr);
	if (st == dnnl_success && fuse && cpu_conv_bad_residual(pd, n)) {
		dnnl_primitive_desc_destroy(pd);
		st = dnnl_unimplemented;
	}
	if (st == dnnl_unimplemented) {
		cpu_conv_undo(s);
		return WEBNN_STATUS_OK;
	}
	if ((r = cpu_dnnl_check(st, n, "primitive descriptor", diag)) != WEBNN_STATUS_OK)
		goto fail;
	/* pd belongs to p from here on: keep what is needed of it first */
	dnnl_memory_desc_t w_want = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	if ((r = cpu_dnnl_create(b, p, pd, n, diag)) != WEBNN_STATUS_OK)
		goto fail;
	s->impl = p->impl;
	uint32_t out = fuse ? n->epilogue.output : k->output;
	if ((r = cpu_dnnl_bind(b, p, DNNL_ARG_SRC, &src, k->input, n, diag)) ||
	    (r = const_w ? cpu_dnnl_bind_constant(b, p, DNNL_ARG_WEIGHTS, &w_plain, fv->data,
						  &w_want, n, diag)
			 : cpu_conv_bind_input_weights(b, s, k, &w_plain, &w_want, diag)) ||
	    (k->has_bias && (r = cpu_dnnl_bind(b, p, DNNL_ARG_BIAS, &bias, k->bias, n, diag))) ||
	    (r = cpu_dnnl_bind(b, p, DNNL_ARG_DST, &dst, out, n, diag)))
		goto fail;
	s->epilogue_after = n->epilogue.used && !fuse;
	return WEBNN_STATUS_OK;
fail:
	cpu_conv_undo(s);
	return r;
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
struct cpu_conv_wino {
	struct cpu_dnnl_prim in, conv, out;
};

static void cpu_conv_wino_destroy(void *priv)
{
	struct cpu_conv_wino *w = priv;
	cpu_dnnl_prim_fini(&w->out);
	cpu_dnnl_prim_fini(&w->conv);
	cpu_dnnl_prim_fini(&w->in);
	free(w);
}

static enum webnn_status cpu_conv_wino_run(const struct cpu_step *s, void *const *bufs,
					   const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct cpu_conv_wino *w = s->priv;
	enum webnn_status r = cpu_dnnl_exec(&w->in, s->n, bufs, x, diag);
	if (r == WEBNN_STATUS_OK)
		r = cpu_dnnl_exec(&w->conv, s->n, bufs, x, diag);
	return r == WEBNN_STATUS_OK ? cpu_dnnl_exec(&w->out, s->n, bufs, x, diag) : r;
}

static bool cpu_conv_wino_worth(const struct cpu_build *b, const struct cpu_conv_geom *k)
{
	const struct graph_value *fv = &b->g->values[k->filter];
	return !k->transpose && k->w_rank == 4 && k->w_dims[2] == 3 && k->w_dims[3] == 3 &&
	       k->strides[0] == 1 && k->strides[1] == 1 && k->dilates[0] == 0 &&
	       k->dilates[1] == 0 && k->src_dims[1] >= 32 && k->dst_dims[1] >= 64 &&
	       k->dst_dims[2] * k->dst_dims[3] >= 13 * 13 && fv->kind == GRAPH_VALUE_CONSTANT &&
	       fv->data != NULL;
}

/* A reorder between a value (plain md, value v) and memory of the convolution (want, whose
 * buffer is handle): from the value when to_conv, else to it. */
static enum webnn_status cpu_conv_wino_reorder(const struct cpu_build *b, struct cpu_dnnl_prim *r,
					       const dnnl_memory_desc_t *plain, uint32_t v,
					       const dnnl_memory_desc_t *want, void *handle,
					       bool to_conv, const struct graph_node *n,
					       struct wnn_diag *diag)
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
		st = cpu_dnnl_bind(b, r, to_conv ? DNNL_ARG_TO : DNNL_ARG_FROM, want, GRAPH_NONE, n,
				   diag);
	/* bound to no value: the handle set here (the convolution's own buffer) stays */
	if (st == WEBNN_STATUS_OK)
		st = cpu_dnnl_check(dnnl_memory_set_data_handle(r->args[r->n_args - 1].memory,
								handle),
				    n, "activation reorder", diag);
	return st;
}

/* Winograd with the epilogue fused (fuse) or left to the core: OK with s->run set, OK with
 * s->run NULL when oneDNN has no Winograd implementation for it, or an error. */
static enum webnn_status cpu_conv_try_winograd(const struct cpu_build *b, struct cpu_step *s,
					       const struct cpu_conv_geom *k, bool fuse,
					       struct wnn_diag *diag)
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
	if (st == dnnl_unimplemented)
		return WEBNN_STATUS_OK;
	if (st != dnnl_success)
		return cpu_dnnl_check(st, n, "convolution", diag);
	struct cpu_conv_wino *w = calloc(1, sizeof *w);
	if (!w) {
		char name[96];
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    graph_node_name(n, name, sizeof name));
	}
	s->priv = w;
	s->destroy = cpu_conv_wino_destroy;
	dnnl_primitive_attr_t attr = NULL;
	enum webnn_status r = fuse ? cpu_dnnl_epilogue_attr(b, &w->conv, n, &dst, &attr, diag)
				   : cpu_dnnl_attr_create(&attr, n, diag);
	if (r != WEBNN_STATUS_OK)
		goto fail;
	dnnl_primitive_desc_t pd = NULL;
	st = dnnl_primitive_desc_create(&pd, &cd, attr, b->engine, NULL);
	dnnl_primitive_attr_destroy(attr);
	if (st == dnnl_unimplemented) {
		cpu_conv_undo(s);
		return WEBNN_STATUS_OK;
	}
	if ((r = cpu_dnnl_check(st, n, "primitive descriptor", diag)) != WEBNN_STATUS_OK)
		goto fail;
	dnnl_memory_desc_t w_want = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	dnnl_memory_desc_t src_blk = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
	dnnl_memory_desc_t dst_blk = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
	if ((r = cpu_dnnl_create(b, &w->conv, pd, n, diag)) != WEBNN_STATUS_OK)
		goto fail;
	s->impl = w->conv.impl;
	dnnl_memory_t src_mem = NULL, dst_mem = NULL;
	void *src_h = NULL, *dst_h = NULL;
	uint32_t out = fuse ? n->epilogue.output : k->output;
	const struct graph_value *fv = &b->g->values[k->filter];
	if ((r = cpu_dnnl_bind_owned(b, &w->conv, DNNL_ARG_SRC, &src_blk, &src_mem, n, diag)) ||
	    (r = cpu_dnnl_bind_constant(b, &w->conv, DNNL_ARG_WEIGHTS, &w_plain, fv->data,
					&w_want, n, diag)) ||
	    (k->has_bias &&
	     (r = cpu_dnnl_bind(b, &w->conv, DNNL_ARG_BIAS, &bias, k->bias, n, diag))) ||
	    (r = cpu_dnnl_bind_owned(b, &w->conv, DNNL_ARG_DST, &dst_blk, &dst_mem, n, diag)) ||
	    (r = cpu_dnnl_check(dnnl_memory_get_data_handle(src_mem, &src_h), n, "src", diag)) ||
	    (r = cpu_dnnl_check(dnnl_memory_get_data_handle(dst_mem, &dst_h), n, "dst", diag)) ||
	    (r = cpu_conv_wino_reorder(b, &w->in, &src, k->input, &src_blk, src_h, true, n,
				       diag)) ||
	    (r = cpu_conv_wino_reorder(b, &w->out, &dst, out, &dst_blk, dst_h, false, n, diag)))
		goto fail;
	s->run = cpu_conv_wino_run;
	s->epilogue_after = n->epilogue.used && !fuse;
	return WEBNN_STATUS_OK;
fail:
	cpu_conv_undo(s);
	return r;
}

enum webnn_status cpu_conv_prepare(const struct cpu_build *b, struct cpu_step *s,
				   struct wnn_diag *diag)
{
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
	bool fuse = n->epilogue.used;
	enum webnn_status r;
	if (b->winograd && cpu_conv_wino_worth(b, &k)) {
		r = cpu_conv_try_winograd(b, s, &k, fuse, diag);
		if (r == WEBNN_STATUS_OK && !s->run && fuse)
			r = cpu_conv_try_winograd(b, s, &k, false, diag);
		if (r != WEBNN_STATUS_OK || s->run)
			return r;
	}
	r = cpu_conv_try(b, s, &k, fuse, diag);
	if (r != WEBNN_STATUS_OK || s->run || !fuse)
		return r;
	/* no implementation with these post-ops: the product alone, the core adds the epilogue */
	return cpu_conv_try(b, s, &k, false, diag);
}
