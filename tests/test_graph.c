/* The shared graph passes checked structurally: folding, dead code, fusion, concat in place, layout, memory plan. */
#include "daemon/graph/passes.h"
#include "graphs.h"
#include "test.h"

#include <math.h>

/* ---- building small graphs whose operation messages live as long as the builder */

/* 1x1 convolution (OIHW filter), no padding. */
static uint32_t gb_conv(struct tg_builder *b, uint32_t x, uint32_t filter, bool nhwc)
{
	Webnn__Ipc__Conv2d m = WEBNN__IPC__CONV2D__INIT;
	m.input = x;
	m.filter = filter;
	m.output = tg_next(&b->t);
	m.has_input_layout = 1;
	m.input_layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC : WEBNN__IPC__INPUT_LAYOUT__NCHW;
	b->msgs[b->n].conv = m;
	return tb_add(b, WNN_OP_CONV2D);
}

static uint32_t gb_max_pool(struct tg_builder *b, uint32_t x, bool nhwc)
{
	Webnn__Ipc__Pool2d m = WEBNN__IPC__POOL2D__INIT;
	b->ids[b->n][0] = b->ids[b->n][1] = 2;
	m.input = x;
	m.output = tg_next(&b->t);
	m.n_window_dimensions = 2;
	m.window_dimensions = b->ids[b->n];
	m.n_strides = 2;
	m.strides = b->ids[b->n];
	m.has_layout = 1;
	m.layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC : WEBNN__IPC__INPUT_LAYOUT__NCHW;
	b->msgs[b->n].pool = m;
	return tb_add(b, WNN_OP_MAX_POOL2D);
}

static uint32_t gb_concat(struct tg_builder *b, const uint32_t *in, uint32_t n, uint32_t axis)
{
	Webnn__Ipc__Concat m = WEBNN__IPC__CONCAT__INIT;
	memcpy(b->ids[b->n], in, n * sizeof *in);
	m.n_inputs = n;
	m.inputs = b->ids[b->n];
	m.axis = axis;
	m.output = tg_next(&b->t);
	b->msgs[b->n].concat = m;
	return tb_add(b, WNN_OP_CONCAT);
}

static uint32_t gb_transpose(struct tg_builder *b, uint32_t x, uint32_t rank, const uint32_t *perm)
{
	Webnn__Ipc__Transpose m = WEBNN__IPC__TRANSPOSE__INIT;
	memcpy(b->ids[b->n], perm, rank * sizeof *perm);
	m.input = x;
	m.output = tg_next(&b->t);
	m.has_has_permutation = 1;
	m.has_permutation = 1;
	m.n_permutation = rank;
	m.permutation = b->ids[b->n];
	b->msgs[b->n].transpose = m;
	return tb_add(b, WNN_OP_TRANSPOSE);
}

static uint32_t gb_gemm(struct tg_builder *b, uint32_t x, uint32_t y)
{
	Webnn__Ipc__Gemm m = WEBNN__IPC__GEMM__INIT;
	m.a = x;
	m.b = y;
	m.output = tg_next(&b->t);
	b->msgs[b->n].gemm = m;
	return tb_add(b, WNN_OP_GEMM);
}

static uint32_t gb_const(struct tg_builder *b, uint32_t rank, const uint32_t *dims, uint64_t seed)
{
	float data[256];
	struct wnn_desc d = { .type = WNN_F32, .rank = rank };
	if (rank) /* a scalar passes no dims */
		memcpy(d.dims, dims, rank * sizeof *dims);
	ASSERT(tg_bytes(&d) <= sizeof data);
	tg_random(data, WNN_F32, tg_bytes(&d) / 4, seed, -1, 1);
	return tg_constant(&b->t, WNN_F32, rank, dims, data);
}

static struct graph_ir *gb_finish(struct tg_builder *b)
{
	const struct graph_ir *g = tg_finish(&b->t, &b->diag);
	ASSERT_MSG(g, "tg_finish: %s", b->diag.message);
	return (struct graph_ir *)g;
}

/* ---- a host evaluator for folding and for running optimised graphs in these tests (float32
 * transpose, relu, add, mul, concat, conv2d, maxPool2d) */

/* conv2d read through the resolved (n, c, y, x) strides, so either layout evaluates. */
static enum webnn_status eval_conv(const struct wnn_conv2d_attrs *a, const void *const *inputs,
				   float *out)
{
	const float *x = inputs[0], *f = inputs[1], *bias = a->has_bias ? inputs[2] : NULL;
	const uint64_t *is = a->in_stride, *os = a->out_stride, *fs = a->filter_stride;
	for (uint32_t n = 0; n < a->n; n++)
		for (uint32_t o = 0; o < a->c_out; o++)
			for (uint32_t oy = 0; oy < a->out_h; oy++)
				for (uint32_t ox = 0; ox < a->out_w; ox++) {
					float sum = bias ? bias[o] : 0;
					uint32_t g = o / a->c_out_g;
					for (uint32_t i = 0; i < a->c_in_g; i++)
						for (uint32_t ky = 0; ky < a->kh; ky++)
							for (uint32_t kx = 0; kx < a->kw; kx++) {
								int64_t iy = (int64_t)oy * a->stride_h + ky * a->dil_h - a->pad_top;
								int64_t ix = (int64_t)ox * a->stride_w + kx * a->dil_w - a->pad_left;
								if (iy < 0 || ix < 0 || iy >= a->h || ix >= a->w)
									continue;
								sum += x[n * is[0] + (g * a->c_in_g + i) * is[1] + iy * is[2] + ix * is[3]] *
								       f[o * fs[0] + i * fs[1] + ky * fs[2] + kx * fs[3]];
							}
					out[n * os[0] + o * os[1] + oy * os[2] + ox * os[3]] = sum;
				}
	return WEBNN_STATUS_OK;
}

static enum webnn_status eval_max_pool(const struct wnn_pool2d_attrs *a, const float *x, float *out)
{
	const uint64_t *is = a->in_stride, *os = a->out_stride;
	for (uint32_t n = 0; n < a->n; n++)
		for (uint32_t c = 0; c < a->c; c++)
			for (uint32_t oy = 0; oy < a->out_h; oy++)
				for (uint32_t ox = 0; ox < a->out_w; ox++) {
					float m = -INFINITY;
					for (uint32_t ky = 0; ky < a->win_h; ky++)
						for (uint32_t kx = 0; kx < a->win_w; kx++) {
							uint64_t iy = (uint64_t)oy * a->stride_h + ky;
							uint64_t ix = (uint64_t)ox * a->stride_w + kx;
							float v = x[n * is[0] + c * is[1] + iy * is[2] + ix * is[3]];
							m = v > m ? v : m;
						}
					out[n * os[0] + c * os[1] + oy * os[2] + ox * os[3]] = m;
				}
	return WEBNN_STATUS_OK;
}

static enum webnn_status eval_concat(const struct graph_node *n, const struct graph_value *values,
				     const void *const *inputs, float *out)
{
	const struct wnn_concat_attrs *a = &n->attrs.concat;
	uint64_t offset = 0;
	for (uint32_t k = 0; k < n->n_inputs; k++) {
		uint32_t size = values[n->inputs[k]].desc.dims[a->axis];
		const float *in = inputs[k];
		for (uint64_t o = 0; o < a->outer; o++)
			memcpy(out + (o * a->out_axis + offset) * a->inner, in + o * size * a->inner,
			       size * a->inner * sizeof *out);
		offset += size;
	}
	return WEBNN_STATUS_OK;
}

/* resample2d, nearest neighbour, any two axes of a 4-D tensor */
static enum webnn_status eval_nearest(const struct wnn_resample_attrs *a, const float *x,
				      float *out, struct wnn_diag *diag)
{
	if (a->mode != WNN_INTERP_NEAREST)
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED, "eval: linear resample2d");
	uint64_t count = wnn_shape_count(4, a->out_dims);
	for (uint64_t i = 0; i < count; i++) {
		uint32_t c[4];
		uint64_t rest = i, off = 0;
		for (int d = 3; d >= 0; d--) {
			c[d] = (uint32_t)(rest % a->out_dims[d]);
			rest /= a->out_dims[d];
		}
		for (int k = 0; k < 2; k++)
			c[a->axes[k]] = wnn_resample_nearest(a, k, c[a->axes[k]]);
		for (int d = 0; d < 4; d++)
			off += c[d] * a->in_strides[d];
		out[i] = x[off];
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status eval_values(const struct graph_node *n, const struct graph_value *values,
				    const void *const *inputs, void *const *outputs,
				    struct wnn_diag *diag)
{
	const struct wnn_desc *od = &values[n->outputs[0]].desc;
	uint64_t count = 0;
	wnn_desc_count(od, &count);
	float *out = outputs[0];
	const float *x = inputs[0];
	if (od->type != WNN_F32)
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED, "eval: float32 only");
	if (n->op == WNN_OP_CONCAT)
		return eval_concat(n, values, inputs, out);
	if (n->op == WNN_OP_CONV2D)
		return eval_conv(&n->attrs.conv2d, inputs, out);
	if (n->op == WNN_OP_MAX_POOL2D)
		return eval_max_pool(&n->attrs.pool2d, x, out);
	if (n->op == WNN_OP_RESAMPLE2D)
		return eval_nearest(&n->attrs.resample, x, out, diag);
	if (n->op == WNN_OP_REDUCE_MEAN) {
		const struct wnn_reduction *r = &n->attrs.reduce.r;
		for (uint64_t k = 0; k < r->kept_count; k++) {
			uint64_t base = wnn_shape_offset(r->kept_rank, r->kept_dims, r->kept_strides, k);
			float sum = 0;
			for (uint64_t j = 0; j < r->red_count; j++)
				sum += x[base + wnn_shape_offset(r->red_rank, r->red_dims,
								 r->red_strides, j)];
			out[k] = sum / (float)r->red_count;
		}
		return WEBNN_STATUS_OK;
	}
	if (n->op == WNN_OP_SIGMOID) {
		for (uint64_t i = 0; i < count; i++)
			out[i] = 1 / (1 + expf(-x[i]));
		return WEBNN_STATUS_OK;
	}
	if (n->op != WNN_OP_TRANSPOSE && n->op != WNN_OP_RELU && n->op != WNN_OP_ADD &&
	    n->op != WNN_OP_MUL)
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED, "eval: %s", wnn_ops[n->op].name);
	for (uint64_t i = 0; i < count; i++) {
		if (n->op == WNN_OP_TRANSPOSE) {
			const struct wnn_transpose_attrs *a = &n->attrs.transpose;
			out[i] = x[wnn_shape_offset(a->rank, a->out_dims, a->in_strides, i)];
		} else if (n->op == WNN_OP_RELU) {
			out[i] = x[i] > 0 ? x[i] : 0;
		} else {
			const struct wnn_bcast *bc = &n->attrs.binary.bc;
			float a = x[wnn_shape_offset(bc->rank, bc->dims, bc->strides[0], i)];
			float b = ((const float *)inputs[1])[wnn_shape_offset(bc->rank, bc->dims,
									       bc->strides[1], i)];
			out[i] = n->op == WNN_OP_ADD ? a + b : a * b;
		}
	}
	return WEBNN_STATUS_OK;
}

/* graph_caps.evaluate over eval_values. */
static enum webnn_status eval_node(const struct graph_caps *caps, const struct graph_ir *g,
				   const struct graph_node *n, const void *const *inputs,
				   void *const *outputs, struct wnn_diag *diag)
{
	(void)caps;
	return eval_values(n, g->values, inputs, outputs, diag);
}

/* Runs the live nodes of g on the host (no fusion groups); returns graph output k's bytes in
 * outs[k] (malloc'd). inputs[k]: bytes of graph input k. */
static void run_host(const struct graph_ir *g, const void *const *inputs, float **outs)
{
	float **bufs = calloc(g->n_values, sizeof *bufs);
	const void **data = calloc(g->n_values, sizeof *data);
	ASSERT(bufs && data);
	for (uint32_t k = 0; k < g->n_inputs; k++)
		data[g->inputs[k]] = inputs[k];
	for (uint32_t v = 0; v < g->n_values; v++)
		if (g->values[v].kind == GRAPH_VALUE_CONSTANT)
			data[v] = g->values[v].data;
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		const struct graph_node *n = &g->nodes[i];
		const void *in[8];
		void *out[1];
		ASSERT(n->n_inputs <= 8 && n->n_outputs == 1 && !n->epilogue.used && !n->chain.members);
		for (uint32_t k = 0; k < n->n_inputs; k++)
			ASSERT_MSG((in[k] = data[n->inputs[k]]), "node %u reads undefined value %u", i,
				   n->inputs[k]);
		uint32_t o = n->outputs[0];
		ASSERT((bufs[o] = calloc(1, tg_bytes(&g->values[o].desc))));
		data[o] = out[0] = bufs[o];
		struct wnn_diag diag = { 0 };
		ASSERT_MSG(eval_values(n, g->values, in, out, &diag) == WEBNN_STATUS_OK, "%s",
			   diag.message);
	}
	for (uint32_t k = 0; k < g->n_outputs; k++) {
		size_t bytes = tg_bytes(&g->values[g->outputs[k]].desc);
		ASSERT((outs[k] = malloc(bytes)) && data[g->outputs[k]]);
		memcpy(outs[k], data[g->outputs[k]], bytes);
	}
	for (uint32_t v = 0; v < g->n_values; v++)
		free(bufs[v]);
	free(bufs);
	free(data);
}

static bool slice_everything(const struct graph_node *n, const struct wnn_desc *out)
{
	return n->op == WNN_OP_CONV2D && out->type == WNN_F32;
}

/* ---- plan invariants, checked on every optimised test graph */

/* First and last computing node of each value with a buffer, derived here from the nodes. */
static void value_range(const struct graph_ir *g, uint32_t v, uint32_t *first, uint32_t *last)
{
	*first = UINT32_MAX;
	*last = 0;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		if (n->state != GRAPH_NODE_LIVE && n->state != GRAPH_NODE_FUSED)
			continue;
		uint32_t at = n->state == GRAPH_NODE_FUSED ? n->fused_into : i;
		for (uint32_t k = 0; k < n->n_outputs; k++) {
			uint32_t o = n->outputs[k];
			if ((o == v || g->values[o].slice_of == v) && at < *first)
				*first = at;
		}
		for (uint32_t k = 0; k < n->n_inputs; k++)
			if (n->inputs[k] == v && at > *last)
				*last = at;
	}
	if (*last < *first)
		*last = *first;
}

static void check_plan(const struct graph_ir *g)
{
	uint64_t sum = 0;
	for (uint32_t k = 0; k < g->plan.n_buffers; k++)
		sum += g->plan.buffer_bytes[k];
	ASSERT_EQ(sum, g->plan.peak_bytes);
	ASSERT(g->plan.peak_bytes <= g->plan.unplanned_bytes);
	for (uint32_t v = 0; v < g->n_values; v++) {
		const struct graph_value *a = &g->values[v];
		ASSERT_EQ(a->buffer != GRAPH_NONE, graph_value_needs_buffer(g, v));
		if (a->buffer == GRAPH_NONE)
			continue;
		ASSERT(a->buffer < g->plan.n_buffers);
		ASSERT(tg_bytes(&a->desc) <= g->plan.buffer_bytes[a->buffer]);
		uint32_t f1, l1;
		value_range(g, v, &f1, &l1);
		for (uint32_t w = v + 1; w < g->n_values; w++) {
			if (g->values[w].buffer != a->buffer)
				continue;
			uint32_t f2, l2;
			value_range(g, w, &f2, &l2);
			ASSERT_MSG(l1 < f2 || l2 < f1, "values %u [%u,%u] and %u [%u,%u] share buffer %u",
				   v, f1, l1, w, f2, l2, a->buffer);
		}
	}
}

static void optimize(struct graph_ir *g, const struct graph_caps *caps)
{
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(graph_optimize(g, caps, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	check_plan(g);
}

static uint32_t count_op(const struct graph_ir *g, enum wnn_op op)
{
	uint32_t n = 0;
	GRAPH_FOR_EACH_LIVE_NODE(g, i)
		n += g->nodes[i].op == op;
	return n;
}

static const struct graph_node *producer_of(const struct graph_ir *g, uint32_t v)
{
	ASSERT(g->values[v].producer != GRAPH_NONE);
	return &g->nodes[g->values[v].producer];
}

/* ---- constant folding and dead code */

/* transpose(c) -> relu -> add(x, .): the two constant nodes fold, in one sweep. */
static struct tg_builder *fold_graph(uint32_t *c, uint32_t *relu, uint32_t *sum)
{
	struct tg_builder *b = tb_new();
	uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 3, 2 });
	*c = gb_const(b, 2, (uint32_t[]){ 2, 3 }, 5);
	uint32_t tr = gb_transpose(b, *c, 2, (uint32_t[]){ 1, 0 });
	*relu = tb_unary(b, WNN_OP_RELU, tr);
	*sum = tb_binary(b, WNN_OP_ADD, x, *relu);
	return b;
}

TEST(graph_fold_constant_chain)
{
	uint32_t c, relu, sum;
	struct tg_builder *b = fold_graph(&c, &relu, &sum);
	struct graph_ir *g = gb_finish(b);
	struct graph_caps caps = { .evaluate = eval_node, .fold_max_bytes = 1 << 20 };
	optimize(g, &caps);
	ASSERT_EQ(g->nodes[0].state, GRAPH_NODE_FOLDED);
	ASSERT_EQ(g->nodes[1].state, GRAPH_NODE_FOLDED);
	ASSERT_EQ(g->nodes[2].state, GRAPH_NODE_LIVE);
	ASSERT_EQ(g->folded_bytes, 2 * 24);
	ASSERT_EQ(g->values[relu].kind, GRAPH_VALUE_CONSTANT);
	ASSERT_EQ(g->values[relu].n_uses, 1);
	ASSERT_EQ(g->values[c].n_uses, 0);
	const float *src = g->values[c].data, *got = g->values[relu].data;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++) {
			float want = src[j * 3 + i] > 0 ? src[j * 3 + i] : 0;
			ASSERT_MSG(got[i * 2 + j] == want, "[%d][%d]: %g != %g", i, j, got[i * 2 + j],
				   want);
		}
	ASSERT_EQ(g->plan.n_buffers, 0);
	tb_free(b);
}

TEST(graph_fold_limit_and_outputs)
{
	uint32_t c, relu, sum;
	struct tg_builder *b = fold_graph(&c, &relu, &sum);
	struct graph_ir *g = gb_finish(b);
	/* Room for the transpose's 24 bytes, not for the relu's too. */
	struct graph_caps caps = { .evaluate = eval_node, .fold_max_bytes = 40 };
	optimize(g, &caps);
	ASSERT_EQ(g->nodes[0].state, GRAPH_NODE_FOLDED);
	ASSERT_EQ(g->nodes[1].state, GRAPH_NODE_LIVE);
	ASSERT_EQ(g->folded_bytes, 24);
	tb_free(b);

	/* A graph output is produced into its tensor: never folded away. */
	b = tb_new();
	c = gb_const(b, 2, (uint32_t[]){ 2, 3 }, 5);
	relu = tb_unary(b, WNN_OP_RELU, c);
	g = gb_finish(b);
	caps.fold_max_bytes = 1 << 20;
	optimize(g, &caps);
	ASSERT_EQ(g->nodes[0].state, GRAPH_NODE_LIVE);
	ASSERT_EQ(g->folded_bytes, 0);
	tb_free(b);
}

/* The time budget: a node whose estimate does not fit in what is left of fold_max_ns stays
 * live (and so does what reads it); the estimate is the caller's cost table's. */
TEST(graph_fold_time_budget)
{
	for (int fits = 0; fits < 2; fits++) {
		uint32_t c, relu, sum;
		struct tg_builder *b = fold_graph(&c, &relu, &sum);
		struct graph_ir *g = gb_finish(b);
		uint64_t both = graph_node_cost(&graph_cost_reference, g, &g->nodes[0]) +
				graph_node_cost(&graph_cost_reference, g, &g->nodes[1]);
		struct graph_caps caps = { .evaluate = eval_node, .fold_max_bytes = 1 << 20,
					   .fold_cost = &graph_cost_reference,
					   .fold_max_ns = fits ? both : both - 1 };
		optimize(g, &caps);
		ASSERT_EQ(g->nodes[0].state, GRAPH_NODE_FOLDED);
		ASSERT_EQ(g->nodes[1].state, fits ? GRAPH_NODE_FOLDED : GRAPH_NODE_LIVE);
		ASSERT_EQ(g->folded_bytes, fits ? 48 : 24);
		tb_free(b);
	}
}

TEST(graph_fold_unsupported_stays_live)
{
	struct tg_builder *b = tb_new();
	uint32_t x = tg_input(&b->t, WNN_F32, 1, (uint32_t[]){ 4 });
	uint32_t c = gb_const(b, 1, (uint32_t[]){ 4 }, 2);
	uint32_t e = tb_unary(b, WNN_OP_EXP, c); /* the test evaluator cannot */
	tb_binary(b, WNN_OP_ADD, x, e);
	struct graph_ir *g = gb_finish(b);
	struct graph_caps caps = { .evaluate = eval_node, .fold_max_bytes = 1 << 20 };
	optimize(g, &caps);
	ASSERT_EQ(g->nodes[0].state, GRAPH_NODE_LIVE);
	ASSERT_EQ(g->values[e].kind, GRAPH_VALUE_INTERMEDIATE);
	ASSERT_EQ(g->folded_bytes, 0);
	tb_free(b);
}

TEST(graph_dead_code)
{
	struct tg_builder *b = tb_new();
	uint32_t x = tg_input(&b->t, WNN_F32, 1, (uint32_t[]){ 4 });
	uint32_t e = tb_unary(b, WNN_OP_EXP, x);
	tb_unary(b, WNN_OP_NEG, e);            /* read by nobody */
	uint32_t r = tb_unary(b, WNN_OP_RELU, x);
	uint32_t s = tb_unary(b, WNN_OP_SIGMOID, r);
	tg_output(&b->t, s);
	struct graph_ir *g = gb_finish(b);
	struct graph_caps none = { 0 };
	optimize(g, &none);
	ASSERT_EQ(g->nodes[0].state, GRAPH_NODE_DEAD);
	ASSERT_EQ(g->nodes[1].state, GRAPH_NODE_DEAD);
	ASSERT_EQ(g->nodes[2].state, GRAPH_NODE_LIVE);
	ASSERT_EQ(g->nodes[3].state, GRAPH_NODE_LIVE);
	ASSERT_EQ(g->values[e].buffer, GRAPH_NONE);
	ASSERT_EQ(g->values[x].n_uses, 1);
	ASSERT_EQ(g->plan.n_buffers, 1); /* r only */
	tb_free(b);
}

/* ---- fusion */

/* conv(x, 1x1 filter) with 2 input and 3 output channels on a 4x6 image (not square, so
 * swapped spatial strides show). */
static uint32_t conv_input(struct tg_builder *b, bool nhwc, uint32_t *x)
{
	*x = tg_input(&b->t, WNN_F32, 4, nhwc ? (uint32_t[]){ 1, 4, 6, 2 } : (uint32_t[]){ 1, 2, 4, 6 });
	uint32_t f = gb_const(b, 4, (uint32_t[]){ 3, 2, 1, 1 }, 11);
	return gb_conv(b, *x, f, nhwc);
}

static void check_fused(const struct graph_ir *g, uint32_t head, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i <= to; i++) {
		ASSERT_EQ(g->nodes[i].state, GRAPH_NODE_FUSED);
		ASSERT_EQ(g->nodes[i].fused_into, head);
	}
}

TEST(graph_fuse_conv_bias_residual_relu)
{
	for (int nhwc = 0; nhwc < 2; nhwc++) {
		struct tg_builder *b = tb_new();
		uint32_t x, conv = conv_input(b, nhwc, &x);
		uint32_t bias = gb_const(b, nhwc ? 1 : 3, nhwc ? (uint32_t[]){ 3 } : (uint32_t[]){ 3, 1, 1 }, 3);
		uint32_t res = tg_input(&b->t, WNN_F32, 4,
					nhwc ? (uint32_t[]){ 1, 4, 6, 3 } : (uint32_t[]){ 1, 3, 4, 6 });
		uint32_t a1 = tb_binary(b, WNN_OP_ADD, conv, bias);
		uint32_t a2 = tb_binary(b, WNN_OP_ADD, res, a1);
		uint32_t r = tb_unary(b, WNN_OP_RELU, a2);
		struct graph_ir *g = gb_finish(b);
		struct graph_caps caps = { .epilogues = true };
		optimize(g, &caps);
		const struct graph_epilogue *e = &g->nodes[0].epilogue;
		ASSERT(e->used);
		ASSERT_EQ(e->output, r);
		ASSERT_EQ(e->channel, bias);
		ASSERT_EQ(e->residual, res);
		ASSERT_EQ(e->channel_dim, nhwc ? 3 : 1);
		ASSERT_EQ(e->act, GRAPH_ACT_RELU);
		check_fused(g, 0, 1, 3);
		ASSERT_EQ(g->plan.n_buffers, 0); /* conv, a1, a2 never leave the kernel */
		tb_free(b);
	}
}

TEST(graph_fuse_epilogue_limits)
{
	/* An addend made after the head, and a second activation, stay outside. */
	struct tg_builder *b = tb_new();
	uint32_t x, conv = conv_input(b, false, &x);
	uint32_t y = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 3, 4, 6 });
	uint32_t late = tb_unary(b, WNN_OP_EXP, y);
	uint32_t a = tb_binary(b, WNN_OP_ADD, conv, late);
	uint32_t c = tb_clamp(b, a, 0, 6);
	tb_unary(b, WNN_OP_RELU, c);
	struct graph_ir *g = gb_finish(b);
	struct graph_caps caps = { .epilogues = true };
	optimize(g, &caps);
	ASSERT(!g->nodes[0].epilogue.used);
	ASSERT_EQ(g->nodes[2].state, GRAPH_NODE_LIVE);
	tb_free(b);

	/* gemm: channel vector along the last dimension, then clamp ends the chain. */
	b = tb_new();
	uint32_t m = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 2, 3 });
	uint32_t w = gb_const(b, 2, (uint32_t[]){ 3, 4 }, 1);
	uint32_t v = gb_const(b, 1, (uint32_t[]){ 4 }, 2);
	uint32_t p = gb_gemm(b, m, w);
	a = tb_binary(b, WNN_OP_ADD, v, p);
	c = tb_clamp(b, a, -1, 1);
	uint32_t after = tb_unary(b, WNN_OP_RELU, c);
	g = gb_finish(b);
	optimize(g, &caps);
	const struct graph_epilogue *e = &g->nodes[0].epilogue;
	ASSERT(e->used);
	ASSERT_EQ(e->channel, v);
	ASSERT_EQ(e->residual, GRAPH_NONE);
	ASSERT_EQ(e->channel_dim, 1);
	ASSERT_EQ(e->act, GRAPH_ACT_CLAMP);
	ASSERT(e->lo == -1 && e->hi == 1);
	ASSERT_EQ(e->output, c);
	ASSERT_EQ(producer_of(g, after)->state, GRAPH_NODE_LIVE);
	tb_free(b);

	/* A product read twice is not fused. */
	b = tb_new();
	conv = conv_input(b, false, &x);
	uint32_t r = tb_unary(b, WNN_OP_RELU, conv);
	tg_output(&b->t, r);
	tg_output(&b->t, conv);
	g = gb_finish(b);
	optimize(g, &caps);
	ASSERT(!g->nodes[0].epilogue.used);
	tb_free(b);
}

TEST(graph_fuse_elementwise_chain)
{
	struct tg_builder *b = tb_new();
	uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 2, 3 });
	uint32_t k = gb_const(b, 2, (uint32_t[]){ 2, 3 }, 4);
	uint32_t one = gb_const(b, 0, NULL, 6);
	uint32_t row = gb_const(b, 1, (uint32_t[]){ 3 }, 7);
	uint32_t e = tb_unary(b, WNN_OP_EXP, x);
	uint32_t m = tb_binary(b, WNN_OP_MUL, e, k);
	uint32_t s = tb_binary(b, WNN_OP_SUB, one, m);
	uint32_t c = tb_clamp(b, s, 0, 1);
	uint32_t bc = tb_binary(b, WNN_OP_ADD, c, row); /* broadcasts: ends the chain */
	uint32_t r = tb_unary(b, WNN_OP_RELU, bc);
	tb_binary(b, WNN_OP_ADD, r, r);                 /* reads its input twice */
	struct graph_ir *g = gb_finish(b);
	struct graph_caps caps = { .elementwise_chains = true };
	optimize(g, &caps);
	const struct graph_chain *ch = &g->nodes[0].chain;
	ASSERT_EQ(ch->n_members, 4);
	for (uint32_t i = 0; i < 4; i++)
		ASSERT_EQ(ch->members[i], i);
	check_fused(g, 0, 1, 3);
	/* add(c, row) heads no chain (row broadcasts); relu -> add(r, r) does not chain either. */
	ASSERT(!g->nodes[4].chain.members);
	ASSERT(!g->nodes[5].chain.members);
	ASSERT_EQ(g->nodes[6].state, GRAPH_NODE_LIVE);
	ASSERT(g->values[c].buffer != GRAPH_NONE);
	ASSERT_EQ(g->values[e].buffer, GRAPH_NONE);
	ASSERT_EQ(g->values[m].buffer, GRAPH_NONE);
	tb_free(b);
}

/* ---- concat in place */

TEST(graph_concat_in_place)
{
	struct tg_builder *b = tb_new();
	uint32_t x, c1 = conv_input(b, false, &x);
	uint32_t f2 = gb_const(b, 4, (uint32_t[]){ 3, 2, 1, 1 }, 12);
	uint32_t c2 = gb_conv(b, x, f2, false);
	uint32_t r2 = tb_unary(b, WNN_OP_RELU, c2);
	uint32_t y = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 1, 4, 6 });
	uint32_t cat = gb_concat(b, (uint32_t[]){ y, c1, r2 }, 3, 1);
	tb_unary(b, WNN_OP_SIGMOID, cat);
	struct graph_ir *g = gb_finish(b);
	struct graph_caps caps = { .epilogues = true, .writes_concat_slice = slice_everything };
	optimize(g, &caps);
	const struct graph_slice *s1 = &g->nodes[0].slice, *s2 = &g->nodes[1].slice;
	ASSERT(s1->used && s2->used);
	ASSERT_EQ(s1->concat_output, cat);
	ASSERT_EQ(s1->axis, 1);
	ASSERT_EQ(s1->offset, 1);
	ASSERT_EQ(s2->offset, 4);
	ASSERT_EQ(s1->total, 7);
	ASSERT_EQ(g->values[c1].slice_of, cat);
	ASSERT_EQ(g->values[r2].slice_of, cat);
	ASSERT_EQ(g->values[c1].buffer, GRAPH_NONE);
	ASSERT(g->values[cat].buffer != GRAPH_NONE);
	ASSERT_EQ(g->plan.n_buffers, 1);
	tb_free(b);

	/* Along another axis than the producer's channels: no slice. */
	b = tb_new();
	c1 = conv_input(b, false, &x);
	f2 = gb_const(b, 4, (uint32_t[]){ 3, 2, 1, 1 }, 12);
	c2 = gb_conv(b, x, f2, false);
	cat = gb_concat(b, (uint32_t[]){ c1, c2 }, 2, 2);
	g = gb_finish(b);
	optimize(g, &caps);
	ASSERT(!g->nodes[0].slice.used && !g->nodes[1].slice.used);
	ASSERT_EQ(g->values[c1].slice_of, GRAPH_NONE);
	tb_free(b);
}

/* ---- memory plan */

TEST(graph_memory_reuse_along_chain)
{
	struct tg_builder *b = tb_new();
	uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 4, 4 });
	uint32_t v = x;
	for (int i = 0; i < 5; i++)
		v = tb_unary(b, i % 2 ? WNN_OP_EXP : WNN_OP_NEG, v);
	struct graph_ir *g = gb_finish(b);
	struct graph_caps none = { 0 };
	optimize(g, &none);
	/* Four intermediates before the output; two buffers alternate. */
	ASSERT_EQ(g->plan.n_buffers, 2);
	ASSERT_EQ(g->plan.peak_bytes, 2 * 64);
	ASSERT_EQ(g->plan.unplanned_bytes, 4 * 64);
	ASSERT_EQ(g->values[v].buffer, GRAPH_NONE);
	tb_free(b);
}

TEST(graph_memory_long_lived_value)
{
	/* x -> a -> b -> c, add(a, c): a stays live across b and c, so three buffers. */
	struct tg_builder *bld = tb_new();
	uint32_t x = tg_input(&bld->t, WNN_F32, 1, (uint32_t[]){ 8 });
	uint32_t a = tb_unary(bld, WNN_OP_EXP, x);
	uint32_t b = tb_unary(bld, WNN_OP_NEG, a);
	uint32_t c = tb_unary(bld, WNN_OP_EXP, b);
	uint32_t d = tb_unary(bld, WNN_OP_NEG, c);
	tb_binary(bld, WNN_OP_ADD, a, d);
	struct graph_ir *g = gb_finish(bld);
	struct graph_caps none = { 0 };
	optimize(g, &none);
	ASSERT_EQ(g->plan.n_buffers, 3);
	ASSERT(g->values[a].buffer != g->values[b].buffer);
	ASSERT(g->values[a].buffer != g->values[c].buffer);
	ASSERT(g->values[a].buffer != g->values[d].buffer);
	tb_free(bld);
}

/* ---- layout assignment */

struct layout_case {
	struct tg_builder *b;
	struct graph_ir *g;
	float in[4][96];
	float *before[4], *after[4];
};

/* Runs g on the host, assigns the layout (NHWC) and runs it again: same numbers, exactly (the
 * evaluator sums in the same order whatever the layout). */
static void layout_run(struct layout_case *c, enum webnn_layout layout)
{
	const void *in[4];
	for (uint32_t k = 0; k < c->g->n_inputs; k++) {
		ASSERT(tg_bytes(&c->g->values[c->g->inputs[k]].desc) <= sizeof c->in[k]);
		tg_random(c->in[k], WNN_F32, 96, 100 + k, -1, 1);
		in[k] = c->in[k];
	}
	run_host(c->g, in, c->before);
	struct graph_caps caps = { .assign_layout = true, .layout = layout };
	optimize(c->g, &caps);
	run_host(c->g, in, c->after);
	for (uint32_t k = 0; k < c->g->n_outputs; k++) {
		char msg[200];
		uint32_t v = c->g->outputs[k];
		ASSERT_MSG(tg_compare(c->after[k], c->before[k], WNN_F32,
				      tg_bytes(&c->g->values[v].desc) / 4, 0, 0, 0, msg, sizeof msg),
			   "output %u: %s", k, msg);
	}
}

static void layout_free(struct layout_case *c)
{
	for (uint32_t k = 0; k < c->g->n_outputs; k++) {
		free(c->before[k]);
		free(c->after[k]);
	}
	tb_free(c->b);
}

static void check_spatial_layout(const struct graph_ir *g, bool nhwc)
{
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		const struct graph_node *n = &g->nodes[i];
		if (n->op == WNN_OP_CONV2D)
			ASSERT_EQ(n->attrs.conv2d.nhwc, nhwc);
		if (n->op == WNN_OP_MAX_POOL2D)
			ASSERT_EQ(n->attrs.pool2d.nhwc, nhwc);
	}
}

TEST(graph_layout_conv_chain_two_transposes)
{
	struct layout_case c = { .b = tb_new() };
	uint32_t x, conv = conv_input(c.b, false, &x);
	uint32_t r = tb_unary(c.b, WNN_OP_RELU, conv);
	uint32_t f2 = gb_const(c.b, 4, (uint32_t[]){ 4, 3, 1, 1 }, 13);
	uint32_t conv2 = gb_conv(c.b, r, f2, false);
	uint32_t pool = gb_max_pool(c.b, conv2, false);
	c.g = gb_finish(c.b);
	layout_run(&c, WEBNN_LAYOUT_NHWC);
	ASSERT_EQ(count_op(c.g, WNN_OP_TRANSPOSE), 2);
	check_spatial_layout(c.g, true);
	/* The client's tensors keep their layout; the nodes' order stays topological. */
	ASSERT_EQ(c.g->values[x].desc.dims[1], 2);
	ASSERT_EQ(c.g->outputs[0], pool);
	ASSERT_EQ(c.g->values[pool].desc.dims[1], 4);
	ASSERT_EQ(producer_of(c.g, pool)->op, WNN_OP_TRANSPOSE);
	ASSERT_EQ(c.g->values[conv].kind, GRAPH_VALUE_UNUSED);
	layout_free(&c);
}

TEST(graph_layout_constant_operand_and_concat)
{
	struct layout_case c = { .b = tb_new() };
	uint32_t x, conv = conv_input(c.b, false, &x);
	uint32_t bias = gb_const(c.b, 3, (uint32_t[]){ 3, 1, 1 }, 14);
	uint32_t a = tb_binary(c.b, WNN_OP_ADD, conv, bias);
	uint32_t f2 = gb_const(c.b, 4, (uint32_t[]){ 2, 2, 1, 1 }, 15);
	uint32_t conv2 = gb_conv(c.b, x, f2, false);
	uint32_t cat = gb_concat(c.b, (uint32_t[]){ a, conv2 }, 2, 1);
	tb_unary(c.b, WNN_OP_RELU, cat);
	c.g = gb_finish(c.b);
	layout_run(&c, WEBNN_LAYOUT_NHWC);
	/* x is transposed once for both convolutions; the result once at the end. */
	ASSERT_EQ(count_op(c.g, WNN_OP_TRANSPOSE), 2);
	check_spatial_layout(c.g, true);
	GRAPH_FOR_EACH_LIVE_NODE(c.g, i)
		if (c.g->nodes[i].op == WNN_OP_CONCAT)
			ASSERT_EQ(c.g->nodes[i].attrs.concat.axis, 3);
	layout_free(&c);
}

/* resample2d over H and W (NCHW axes 2, 3), nearest neighbour, scaled by 2 */
static uint32_t gb_resample(struct tg_builder *b, uint32_t x)
{
	static float scales[2] = { 2, 2 };
	Webnn__Ipc__Resample2d m = WEBNN__IPC__RESAMPLE2D__INIT;
	b->ids[b->n][0] = 2, b->ids[b->n][1] = 3;
	m.input = x;
	m.output = tg_next(&b->t);
	m.n_scales = 2;
	m.scales = scales;
	m.n_axes = 2;
	m.axes = b->ids[b->n];
	b->msgs[b->n].resample = m;
	return tb_add(b, WNN_OP_RESAMPLE2D);
}

/* reduceMean over H and W keeping the dimensions: a squeeze-and-excitation block's pooling */
static uint32_t gb_mean_hw(struct tg_builder *b, uint32_t x)
{
	Webnn__Ipc__Reduce m = WEBNN__IPC__REDUCE__INIT;
	b->ids[b->n][0] = 2, b->ids[b->n][1] = 3;
	m.input = x;
	m.output = tg_next(&b->t);
	m.n_axes = 2;
	m.axes = b->ids[b->n];
	m.has_has_axes = 1;
	m.has_axes = 1;
	m.has_keep_dimensions = 1;
	m.keep_dimensions = 1;
	b->msgs[b->n].reduce = m;
	return tb_add(b, WNN_OP_REDUCE_MEAN);
}

/* conv -> resample2d -> conv and a squeeze-and-excitation gate (conv -> reduceMean -> conv ->
 * sigmoid, times the activation): both run in the backend's layout, with their axes moved,
 * so the only transposes are the graph input's and the output's. */
TEST(graph_layout_resample_and_reduce)
{
	struct layout_case c = { .b = tb_new() };
	uint32_t x, conv = conv_input(c.b, false, &x);
	uint32_t up = gb_resample(c.b, conv);
	uint32_t f2 = gb_const(c.b, 4, (uint32_t[]){ 3, 3, 1, 1 }, 21);
	uint32_t conv2 = gb_conv(c.b, up, f2, false);
	uint32_t mean = gb_mean_hw(c.b, conv2);
	uint32_t f3 = gb_const(c.b, 4, (uint32_t[]){ 3, 3, 1, 1 }, 22);
	uint32_t gate = tb_unary(c.b, WNN_OP_SIGMOID, gb_conv(c.b, mean, f3, false));
	tb_binary(c.b, WNN_OP_MUL, conv2, gate);
	c.g = gb_finish(c.b);
	layout_run(&c, WEBNN_LAYOUT_NHWC);
	ASSERT_EQ(count_op(c.g, WNN_OP_TRANSPOSE), 2);
	check_spatial_layout(c.g, true);
	GRAPH_FOR_EACH_LIVE_NODE(c.g, i) {
		const struct graph_node *n = &c.g->nodes[i];
		if (n->op == WNN_OP_RESAMPLE2D) {
			ASSERT_EQ(n->attrs.resample.axes[0], 1);
			ASSERT_EQ(n->attrs.resample.axes[1], 2);
			ASSERT_EQ(n->attrs.resample.out_dims[3], 3);
		}
		if (n->op == WNN_OP_REDUCE_MEAN) {
			ASSERT_EQ(n->attrs.reduce.r.red_count, 8 * 12);
			ASSERT_EQ(n->attrs.reduce.r.kept_count, 3);
		}
	}
	layout_free(&c);
}

TEST(graph_layout_client_reads)
{
	/* The conv's result is read in the client's layout (a graph output) and by a relu that
	 * is a graph output too: x in, conv out, relu out. */
	struct layout_case c = { .b = tb_new() };
	uint32_t x, conv = conv_input(c.b, false, &x);
	uint32_t r = tb_unary(c.b, WNN_OP_RELU, conv);
	tg_output(&c.b->t, conv);
	tg_output(&c.b->t, r);
	c.g = gb_finish(c.b);
	layout_run(&c, WEBNN_LAYOUT_NHWC);
	ASSERT_EQ(count_op(c.g, WNN_OP_TRANSPOSE), 3);
	layout_free(&c);

	/* Already in the backend's layout: nothing changes. */
	c = (struct layout_case){ .b = tb_new() };
	conv = conv_input(c.b, true, &x);
	gb_max_pool(c.b, conv, true);
	c.g = gb_finish(c.b);
	uint32_t n_nodes = c.g->n_nodes;
	layout_run(&c, WEBNN_LAYOUT_NHWC);
	ASSERT_EQ(count_op(c.g, WNN_OP_TRANSPOSE), 0);
	ASSERT_EQ(c.g->n_nodes, n_nodes);
	layout_free(&c);

	/* NHWC client, NCHW backend. */
	c = (struct layout_case){ .b = tb_new() };
	conv = conv_input(c.b, true, &x);
	r = tb_unary(c.b, WNN_OP_RELU, conv);
	gb_max_pool(c.b, r, true);
	c.g = gb_finish(c.b);
	layout_run(&c, WEBNN_LAYOUT_NCHW);
	ASSERT_EQ(count_op(c.g, WNN_OP_TRANSPOSE), 2);
	check_spatial_layout(c.g, false);
	layout_free(&c);
}

/* conv(x) -> add(., res) -> relu in NCHW, res a graph input of the conv output's shape; also
 * returns the add's output. */
static uint32_t conv_residual_relu(struct tg_builder *b, uint32_t *res, uint32_t *sum)
{
	uint32_t x, conv = conv_input(b, false, &x);
	*res = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 3, 4, 6 });
	*sum = tb_binary(b, WNN_OP_ADD, conv, *res);
	return tb_unary(b, WNN_OP_RELU, *sum);
}

TEST(graph_layout_residual_in_backend_layout)
{
	/* The add runs in NHWC on a transposed residual: x, res and the result are transposed. */
	struct layout_case c = { .b = tb_new() };
	uint32_t res, sum, r = conv_residual_relu(c.b, &res, &sum);
	c.g = gb_finish(c.b);
	layout_run(&c, WEBNN_LAYOUT_NHWC);
	ASSERT_EQ(count_op(c.g, WNN_OP_TRANSPOSE), 3);
	check_spatial_layout(c.g, true);
	ASSERT_EQ(c.g->values[sum].kind, GRAPH_VALUE_UNUSED);
	ASSERT_EQ(producer_of(c.g, r)->op, WNN_OP_TRANSPOSE);
	GRAPH_FOR_EACH_LIVE_NODE(c.g, i)
		if (c.g->nodes[i].op == WNN_OP_ADD)
			ASSERT_EQ(c.g->values[c.g->nodes[i].outputs[0]].desc.dims[3], 3);
	layout_free(&c);

	/* With epilogues the add and the relu join the conv: its residual is res's transpose, made
	 * before the conv runs. */
	struct tg_builder *b = tb_new();
	r = conv_residual_relu(b, &res, &sum);
	struct graph_ir *g = gb_finish(b);
	struct graph_caps caps = { .assign_layout = true, .layout = WEBNN_LAYOUT_NHWC,
				   .epilogues = true };
	optimize(g, &caps);
	ASSERT_EQ(count_op(g, WNN_OP_TRANSPOSE), 3);
	uint32_t head = GRAPH_NONE, fused = 0;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].op == WNN_OP_CONV2D)
			head = i;
		fused += g->nodes[i].state == GRAPH_NODE_FUSED;
	}
	ASSERT(head != GRAPH_NONE);
	const struct graph_epilogue *e = &g->nodes[head].epilogue;
	ASSERT(e->used);
	ASSERT_EQ(e->act, GRAPH_ACT_RELU);
	ASSERT_EQ(e->channel_dim, 3);
	ASSERT(e->residual != GRAPH_NONE);
	const struct graph_node *t = producer_of(g, e->residual);
	ASSERT_EQ(t->op, WNN_OP_TRANSPOSE);
	ASSERT_EQ(t->inputs[0], res);
	ASSERT(g->values[e->residual].producer < head);
	ASSERT_EQ(fused, 2); /* the add and the relu */
	GRAPH_FOR_EACH_LIVE_NODE(g, i)
		ASSERT(g->nodes[i].op == WNN_OP_TRANSPOSE || g->nodes[i].op == WNN_OP_CONV2D);
	ASSERT_EQ(producer_of(g, r)->op, WNN_OP_TRANSPOSE);
	ASSERT_EQ(producer_of(g, r)->inputs[0], e->output);
	tb_free(b);
}

TEST(graph_layout_binary_fewest_transposes)
{
	/* The conv's result is also a graph output, so its NCHW form is made anyway: the add runs
	 * in NCHW (x and the conv's result transposed) rather than in NHWC (4 transposes). */
	struct layout_case c = { .b = tb_new() };
	uint32_t x, conv = conv_input(c.b, false, &x);
	uint32_t res = tg_input(&c.b->t, WNN_F32, 4, (uint32_t[]){ 1, 3, 4, 6 });
	uint32_t sum = tb_binary(c.b, WNN_OP_ADD, conv, res);
	tg_output(&c.b->t, conv);
	tg_output(&c.b->t, sum);
	c.g = gb_finish(c.b);
	layout_run(&c, WEBNN_LAYOUT_NHWC);
	ASSERT_EQ(count_op(c.g, WNN_OP_TRANSPOSE), 2);
	ASSERT_EQ(producer_of(c.g, sum)->op, WNN_OP_ADD);
	layout_free(&c);

	/* y is both the residual and a later conv's input: one transpose serves both, the add
	 * and everything after it stay in NHWC (x, y and the result: 3 transposes). */
	c = (struct layout_case){ .b = tb_new() };
	conv = conv_input(c.b, false, &x);
	uint32_t y = tg_input(&c.b->t, WNN_F32, 4, (uint32_t[]){ 1, 3, 4, 6 });
	uint32_t r = tb_unary(c.b, WNN_OP_RELU, tb_binary(c.b, WNN_OP_ADD, y, conv));
	uint32_t f2 = gb_const(c.b, 4, (uint32_t[]){ 3, 3, 1, 1 }, 16);
	uint32_t conv2 = gb_conv(c.b, y, f2, false);
	uint32_t out = tb_binary(c.b, WNN_OP_MUL, r, conv2);
	c.g = gb_finish(c.b);
	layout_run(&c, WEBNN_LAYOUT_NHWC);
	ASSERT_EQ(count_op(c.g, WNN_OP_TRANSPOSE), 3);
	ASSERT_EQ(producer_of(c.g, out)->op, WNN_OP_TRANSPOSE);
	layout_free(&c);

	/* A tie goes to NHWC, where the next conv reads the add's result: x, res and the result
	 * (in NCHW: x, the conv's result back, the add's result again, the result: 4). */
	c = (struct layout_case){ .b = tb_new() };
	conv = conv_input(c.b, false, &x);
	res = tg_input(&c.b->t, WNN_F32, 4, (uint32_t[]){ 1, 3, 4, 6 });
	sum = tb_binary(c.b, WNN_OP_ADD, res, conv);
	conv2 = gb_conv(c.b, sum, gb_const(c.b, 4, (uint32_t[]){ 2, 3, 1, 1 }, 17), false);
	c.g = gb_finish(c.b);
	layout_run(&c, WEBNN_LAYOUT_NHWC);
	ASSERT_EQ(count_op(c.g, WNN_OP_TRANSPOSE), 3);
	ASSERT_EQ(c.g->values[sum].kind, GRAPH_VALUE_UNUSED);
	ASSERT_EQ(producer_of(c.g, conv2)->op, WNN_OP_TRANSPOSE);
	layout_free(&c);
}

/* ---- optimised graphs on the reference backend give the numbers of the graph as built */

static void reference_outputs(struct graph_ir *g, const struct graph_caps *caps, float *out,
			      size_t len)
{
	float in[2][64];
	const void *ins[2] = { in[0], in[1] };
	void *outs[1] = { out };
	struct wnn_diag diag = { 0 };
	ASSERT(g->n_inputs <= 2 && g->n_outputs == 1);
	ASSERT(tg_bytes(&g->values[g->outputs[0]].desc) <= len * sizeof *out);
	for (uint32_t k = 0; k < g->n_inputs; k++) {
		ASSERT(tg_bytes(&g->values[g->inputs[k]].desc) <= sizeof in[k]);
		tg_random(in[k], WNN_F32, 64, 200 + k, -1, 1);
	}
	if (caps)
		optimize(g, caps);
	ASSERT_MSG(tg_run(&backend_reference, NULL, g, ins, outs, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
}

static struct tg_builder *conv_add_relu(void)
{
	struct tg_builder *b = tb_new();
	uint32_t x, conv = conv_input(b, false, &x);
	uint32_t bias = gb_const(b, 3, (uint32_t[]){ 3, 1, 1 }, 3);
	tb_unary(b, WNN_OP_RELU, tb_binary(b, WNN_OP_ADD, conv, bias));
	return b;
}

static struct tg_builder *folded_constant(void)
{
	uint32_t c, relu, sum;
	return fold_graph(&c, &relu, &sum);
}

TEST(graph_reference_matches_unoptimised)
{
	struct graph_caps fold = { .evaluate = eval_node, .fold_max_bytes = 1 << 20 };
	struct tg_builder *(*build[])(void) = { conv_add_relu, folded_constant };
	float plain[72], optimised[72];
	char msg[200];
	for (int which = 0; which < 2; which++) {
		struct tg_builder *b1 = build[which](), *b2 = build[which]();
		struct graph_ir *g1 = gb_finish(b1), *g2 = gb_finish(b2);
		reference_outputs(g1, NULL, plain, 72);
		reference_outputs(g2, &fold, optimised, 72);
		ASSERT_EQ(g2->folded_bytes, build[which] == folded_constant ? 48 : 0);
		uint64_t n = tg_bytes(&g1->values[g1->outputs[0]].desc) / 4;
		ASSERT_MSG(tg_compare(optimised, plain, WNN_F32, n, 0, 0, 0, msg, sizeof msg), "%s", msg);
		tb_free(b1);
		tb_free(b2);
	}
}
