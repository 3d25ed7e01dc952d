/* Int8 QDQ products (graph_fuse_qdq): the pass's rewrite, and the cpu backend's int8 oneDNN primitives against the reference backend's float evaluation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/backend/cpu/cpu.h"
#include "daemon/graph/passes.h"
#include "tests/clienttest.h"
#include "tests/ocltest.h"
#include "tests/onnx_writer.h"
#include "webnn_import.h"

/*
 * The rule the comparison follows: the reference backend dequantizes, multiplies in float and
 * quantizes; the cpu backend accumulates the integer products exactly and scales once. Both
 * compute the same real number up to float rounding, so a quantized output may differ by one
 * quantum of the output scale (a value within float error of a rounding boundary), and a float
 * output by the float tolerance of a sum (TOL_SUM).
 */

enum qdq_op { QDQ_CONV, QDQ_MATMUL, QDQ_GEMM };

struct qdq_case {
	enum qdq_op op;
	enum wnn_dtype xt;    /* activation: WNN_U8 or WNN_I8 */
	bool per_channel;     /* weights' scale per output channel */
	int act;              /* 0 none, 1 relu, 2 clamp(0, 0.75) */
	bool quant;           /* quantizeLinear at the end (else a float output) */
	bool bias;            /* conv2d's bias / gemm's C: dequantized int32 */
	uint32_t c, oc, k, groups; /* conv: channels, output channels, kernel, groups;
				      matmul/gemm: c = K, oc = N, k = rows M */
	bool nhwc;            /* conv2d's input layout (filter OHWI, or IHWO depthwise) */
	bool add;             /* an add of a float vector per output channel after the product */
	int wz;               /* weights: 0 int8, zero point 0; 1 uint8, zero point 128;
				 2 int8 in [-120, 120], zero points in [-7, 7] */
};

struct qdq_graph {
	struct tg_graph tg;
	Webnn__Ipc__QuantizeLinear dq[3], q;
	Webnn__Ipc__Conv2d conv;
	Webnn__Ipc__Matmul mm;
	Webnn__Ipc__Gemm gm;
	Webnn__Ipc__ElementwiseBinary add;
	Webnn__Ipc__Operation o[8];
	struct ot_act act;
	uint32_t pad[4], stride[2], dil[2];
};

static void qdq_op(struct qdq_graph *q, int *k, enum wnn_op op, void *msg)
{
	struct wnn_diag diag = { 0 };
	q->o[*k] = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&q->o[*k], op, msg);
	ASSERT_MSG(tg_op(&q->tg, &q->o[*k], &diag) == WEBNN_STATUS_OK, "%s: %s", wnn_ops[op].name,
		   diag.message);
	(*k)++;
}

/* A constant of `rank` ones but dimension `axis` = n (axis < 0: all ones), of type t. */
static uint32_t qdq_vector(struct tg_graph *tg, enum wnn_dtype t, uint32_t rank, int axis,
			   uint32_t n, const void *data)
{
	uint32_t d[4] = { 1, 1, 1, 1 };
	if (axis >= 0)
		d[axis] = n;
	return tg_constant(tg, t, rank, d, data);
}

/* Builds dq(x) -> op(dq(w), dq(bias)) [-> act] [-> q]. */
static const struct graph_ir *qdq_build(struct qdq_graph *q, const struct qdq_case *c)
{
	memset(q, 0, sizeof(*q));
	tg_init(&q->tg);
	struct tg_graph *tg = &q->tg;
	struct wnn_diag diag = { 0 };
	int k = 0;
	bool conv = c->op == QDQ_CONV;
	uint32_t xrank = conv ? 4 : (c->op == QDQ_MATMUL ? 3 : 2);
	uint32_t xd[4];
	if (conv && c->nhwc)
		memcpy(xd, (uint32_t[]){ 2, 9, 7, c->c }, sizeof xd);
	else if (conv)
		memcpy(xd, (uint32_t[]){ 2, c->c, 9, 7 }, sizeof xd);
	else if (c->op == QDQ_MATMUL)
		memcpy(xd, (uint32_t[]){ 2, c->k, c->c, 0 }, sizeof xd);
	else
		memcpy(xd, (uint32_t[]){ c->k, c->c, 0, 0 }, sizeof xd);
	uint32_t x = tg_input(tg, c->xt, xrank, xd);
	float xs = 0.02f;
	uint8_t xz = c->xt == WNN_U8 ? 131 : (uint8_t)(int8_t)-3;
	/* activation */
	q->dq[0].input = x;
	q->dq[0].scale = qdq_vector(tg, WNN_F32, xrank, -1, 1, &xs);
	q->dq[0].zero_point = qdq_vector(tg, c->xt, xrank, -1, 1, &xz);
	q->dq[0].output = tg_next(tg);
	qdq_op(q, &k, WNN_OP_DEQUANTIZE_LINEAR, &q->dq[0]);
	/* weights: conv [O, I/g, k, k] (OHWI / IHWO in NHWC), matmul [K, N], gemm [N, K] */
	uint32_t icg = conv ? c->c / c->groups : c->c;
	bool dw = conv && c->groups > 1 && c->groups == c->c;
	uint32_t wd[4], wrank = conv ? 4 : 2;
	int oaxis;
	if (conv && !c->nhwc)
		memcpy(wd, (uint32_t[]){ c->oc, icg, c->k, c->k }, sizeof wd), oaxis = 0;
	else if (dw)
		memcpy(wd, (uint32_t[]){ 1, c->k, c->k, c->oc }, sizeof wd), oaxis = 3;
	else if (conv)
		memcpy(wd, (uint32_t[]){ c->oc, c->k, c->k, icg }, sizeof wd), oaxis = 0;
	else if (c->op == QDQ_MATMUL)
		memcpy(wd, (uint32_t[]){ c->c, c->oc, 0, 0 }, sizeof wd), oaxis = 1;
	else
		memcpy(wd, (uint32_t[]){ c->oc, c->c, 0, 0 }, sizeof wd), oaxis = 0;
	uint32_t wcount = c->oc * icg * (conv ? c->k * c->k : 1);
	int8_t *w = malloc(wcount), *wz = calloc(c->oc, 1);
	enum wnn_dtype wt = c->wz == 1 ? WNN_U8 : WNN_I8;
	float *ws = malloc(c->oc * sizeof(float)), *bs = malloc(c->oc * sizeof(float));
	int32_t *b = malloc(c->oc * sizeof(int32_t)), *bz = calloc(c->oc, sizeof(int32_t));
	ASSERT(w && wz && ws && bs && b && bz);
	if (c->wz == 1) {
		tg_random(w, WNN_U8, wcount, 17 + c->oc, 1, 255);
		memset(wz, 128, c->oc);
	} else {
		tg_random(w, WNN_I8, wcount, 17 + c->oc, c->wz ? -120 : -127, c->wz ? 120 : 127);
		if (c->wz)
			tg_random(wz, WNN_I8, c->oc, 31, -7, 7);
	}
	tg_random(ws, WNN_F32, c->oc, 19, 0.002, 0.006);
	tg_random(b, WNN_I32, c->oc, 23, -3000, 3000);
	uint32_t nws = c->per_channel ? c->oc : 1;
	q->dq[1].input = tg_constant(tg, wt, wrank, wd, w);
	q->dq[1].scale = qdq_vector(tg, WNN_F32, wrank, c->per_channel ? oaxis : -1, nws, ws);
	q->dq[1].zero_point = qdq_vector(tg, wt, wrank, c->per_channel ? oaxis : -1, nws, wz);
	q->dq[1].output = tg_next(tg);
	qdq_op(q, &k, WNN_OP_DEQUANTIZE_LINEAR, &q->dq[1]);
	uint32_t bias = 0;
	if (c->bias) {
		/* QDQ's bias: int32 at scale x_scale * w_scale */
		for (uint32_t i = 0; i < c->oc; i++)
			bs[i] = xs * ws[c->per_channel ? i : 0];
		q->dq[2].input = tg_constant(tg, WNN_I32, 1, &c->oc, b);
		q->dq[2].scale = tg_constant(tg, WNN_F32, 1, &c->oc, bs);
		q->dq[2].zero_point = tg_constant(tg, WNN_I32, 1, &c->oc, bz);
		q->dq[2].output = bias = tg_next(tg);
		qdq_op(q, &k, WNN_OP_DEQUANTIZE_LINEAR, &q->dq[2]);
	}
	uint32_t y;
	if (conv) {
		Webnn__Ipc__Conv2d *m = &q->conv;
		*m = (Webnn__Ipc__Conv2d)WEBNN__IPC__CONV2D__INIT;
		uint32_t p = c->k / 2;
		memcpy(q->pad, (uint32_t[]){ p, p, p, p }, sizeof q->pad);
		q->stride[0] = q->stride[1] = 1;
		q->dil[0] = q->dil[1] = 1;
		m->input = q->dq[0].output, m->filter = q->dq[1].output;
		m->has_bias = c->bias, m->bias = bias;
		m->n_padding = 4, m->padding = q->pad;
		m->n_strides = 2, m->strides = q->stride;
		m->n_dilations = 2, m->dilations = q->dil;
		m->has_groups = 1, m->groups = c->groups;
		m->has_input_layout = m->has_filter_layout = 1;
		m->input_layout = c->nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC
					  : WEBNN__IPC__INPUT_LAYOUT__NCHW;
		m->filter_layout = !c->nhwc ? WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW
				   : dw	    ? WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO
					    : WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI;
		m->output = y = tg_next(tg);
		qdq_op(q, &k, WNN_OP_CONV2D, m);
	} else if (c->op == QDQ_MATMUL) {
		q->mm = (Webnn__Ipc__Matmul)WEBNN__IPC__MATMUL__INIT;
		q->mm.a = q->dq[0].output, q->mm.b = q->dq[1].output;
		q->mm.output = y = tg_next(tg);
		qdq_op(q, &k, WNN_OP_MATMUL, &q->mm);
	} else {
		q->gm = (Webnn__Ipc__Gemm)WEBNN__IPC__GEMM__INIT;
		q->gm.a = q->dq[0].output, q->gm.b = q->dq[1].output;
		q->gm.has_b_transpose = 1, q->gm.b_transpose = 1;
		q->gm.has_alpha = 1, q->gm.alpha = 0.5;
		if (c->bias) {
			q->gm.has_c = 1, q->gm.c = bias;
			q->gm.has_beta = 1, q->gm.beta = 2;
		}
		q->gm.output = y = tg_next(tg);
		qdq_op(q, &k, WNN_OP_GEMM, &q->gm);
	}
	if (c->add) {
		/* MatMul + Add as ONNX QDQ models have them: [N], or [C, 1, 1] in NCHW */
		float *v = malloc(c->oc * sizeof(float));
		ASSERT(v);
		tg_random(v, WNN_F32, c->oc, 29, -2, 2);
		uint32_t vd[3] = { c->oc, 1, 1 };
		q->add = (Webnn__Ipc__ElementwiseBinary)WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
		q->add.a = y;
		q->add.b = tg_constant(tg, WNN_F32, conv && !c->nhwc ? 3 : 1, vd, v);
		q->add.output = y = tg_next(tg);
		qdq_op(q, &k, WNN_OP_ADD, &q->add);
		free(v);
	}
	if (c->act)
		y = ot_act(tg, &q->act, c->act, y, 0);
	if (c->quant) {
		uint32_t yrank = conv ? 4 : xrank;
		float ys = 0.06f;
		uint8_t yz = c->xt == WNN_U8 ? 7 : (uint8_t)(int8_t)-5;
		q->q.input = y;
		q->q.scale = qdq_vector(tg, WNN_F32, yrank, -1, 1, &ys);
		q->q.zero_point = qdq_vector(tg, c->xt, yrank, -1, 1, &yz);
		q->q.output = tg_next(tg);
		qdq_op(q, &k, WNN_OP_QUANTIZE_LINEAR, &q->q);
	}
	free(w);
	free(wz);
	free(ws);
	free(bs);
	free(b);
	free(bz);
	const struct graph_ir *g = tg_finish(tg, &diag);
	ASSERT_MSG(g, "%s", diag.message);
	return g;
}

/* Live nodes of g's cpu-optimised copy: int8 products, and quantize/dequantize nodes left. */
static void qdq_counts(struct backend *be, const struct graph_ir *g, int *products, int *qdq)
{
	struct backend_context *ctx;
	struct backend_context_options opts = { .accelerated = false };
	struct wnn_diag diag = { 0 };
	ASSERT(backend_cpu.context_create(be, &opts, &ctx, &diag) == WEBNN_STATUS_OK);
	struct graph_ir *copy = graph_clone(g);
	ASSERT(copy);
	ASSERT_MSG(tg_optimize(copy, &backend_cpu, ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	*products = *qdq = 0;
	GRAPH_FOR_EACH_LIVE_NODE(copy, n) {
		*products += copy->nodes[n].qdq.used;
		*qdq += copy->nodes[n].op == WNN_OP_DEQUANTIZE_LINEAR ||
			copy->nodes[n].op == WNN_OP_QUANTIZE_LINEAR;
	}
	graph_destroy(copy);
	backend_cpu.context_destroy(ctx);
}

static void qdq_check(struct backend *be, const struct qdq_case *c)
{
	static const char *const ops[] = { "conv2d", "matmul", "gemm" };
	char label[200];
	snprintf(label, sizeof label, "%s %s%s %s weights%s%s%s%s %u->%u k %u groups %u",
		 ops[c->op], wnn_dtype_name(c->xt), c->nhwc ? " nhwc" : "",
		 c->per_channel ? "per-channel" : "per-tensor", c->bias ? " + bias" : "",
		 c->add ? " + add" : "",
		 c->act == 1 ? " relu" : c->act == 2 ? " clamp" : "",
		 c->quant ? " -> quantize" : " -> float", c->c, c->oc, c->k, c->groups);
	struct qdq_graph q;
	const struct graph_ir *g = qdq_build(&q, c);
	int products, left;
	qdq_counts(be, g, &products, &left);
	ASSERT_MSG(products == 1, "%s: %d int8 products after the passes", label, products);
	/* a float output keeps nothing of the quantization; a quantized one absorbs it all */
	ASSERT_MSG(left == 0, "%s: %d quantize/dequantize nodes left", label, left);
	ot_int_atol = 1; /* one quantum of the output scale */
	double lo = c->xt == WNN_U8 ? 0 : -128, hi = c->xt == WNN_U8 ? 255 : 127;
	ot_check_ranges(be, g, NULL, 0, lo, hi, TOL_SUM, label);
	tg_free(&q.tg);
}

static void qdq_all(struct backend *be)
{
	static const struct qdq_case cases[] = {
		/* op, x type, per-channel, act, quantized out, bias, c, oc, k, groups, nhwc */
		{ QDQ_CONV, WNN_U8, false, 0, true, true, 16, 24, 3, 1, false, false, 0 },
		{ QDQ_CONV, WNN_U8, true, 1, true, true, 16, 24, 3, 1, false, false, 0 },
		{ QDQ_CONV, WNN_I8, true, 0, true, false, 8, 32, 1, 1, false, false, 0 },
		{ QDQ_CONV, WNN_I8, false, 2, true, true, 12, 12, 3, 1, true, false, 0 },
		{ QDQ_CONV, WNN_U8, true, 1, true, true, 16, 16, 3, 16, false, false, 0 }, /* depthwise */
		{ QDQ_CONV, WNN_U8, true, 0, true, true, 16, 16, 3, 16, true, false, 0 },  /* depthwise, ihwo */
		{ QDQ_CONV, WNN_U8, true, 0, true, true, 16, 8, 3, 4, false, false, 0 },   /* groups */
		{ QDQ_CONV, WNN_U8, true, 0, false, true, 16, 24, 3, 1, false, false, 0 }, /* float out */
		{ QDQ_CONV, WNN_I8, false, 1, false, true, 8, 16, 1, 1, false, false, 0 }, /* + relu epilogue */
		{ QDQ_MATMUL, WNN_U8, false, 0, true, false, 64, 48, 5, 1, false, false, 0 },
		{ QDQ_MATMUL, WNN_I8, true, 1, true, false, 40, 24, 7, 1, false, false, 0 },
		{ QDQ_MATMUL, WNN_U8, true, 0, false, false, 64, 32, 3, 1, false, false, 0 },
		{ QDQ_GEMM, WNN_U8, true, 0, true, true, 48, 40, 6, 1, false, false, 0 },
		{ QDQ_GEMM, WNN_I8, false, 1, true, true, 32, 16, 4, 1, false, false, 0 },
		{ QDQ_GEMM, WNN_U8, false, 0, false, false, 32, 16, 4, 1, false, false, 0 },
		/* an add of a bias vector after the product becomes the node's bias */
		{ QDQ_MATMUL, WNN_U8, true, 0, true, false, 64, 48, 5, 1, false, true, 0 },
		{ QDQ_MATMUL, WNN_I8, false, 1, false, false, 32, 24, 3, 1, false, true, 0 },
		{ QDQ_CONV, WNN_U8, true, 1, true, true, 8, 16, 3, 1, false, true, 0 },
		{ QDQ_CONV, WNN_U8, true, 2, true, false, 8, 16, 1, 1, true, true, 0 },
		{ QDQ_GEMM, WNN_I8, true, 0, true, true, 32, 16, 4, 1, false, true, 0 },
		/* weights with zero points: folded into int8 weights (QLinearConv's uint8 ones) */
		{ QDQ_CONV, WNN_U8, true, 1, true, true, 16, 24, 3, 1, false, false, 1 },
		{ QDQ_CONV, WNN_U8, true, 0, true, true, 16, 16, 3, 16, true, false, 2 },
		{ QDQ_MATMUL, WNN_U8, false, 0, true, false, 64, 48, 5, 1, false, false, 1 },
		{ QDQ_GEMM, WNN_I8, true, 0, true, true, 48, 40, 6, 1, false, false, 2 },
		/* one output channel (a depth or mask head) */
		{ QDQ_CONV, WNN_U8, true, 0, true, true, 8, 1, 3, 1, false, false, 0 },
		{ QDQ_CONV, WNN_U8, false, 1, false, true, 8, 1, 1, 1, true, false, 0 },
		{ QDQ_MATMUL, WNN_U8, true, 0, true, false, 32, 1, 4, 1, false, false, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		qdq_check(be, &cases[i]);
}

TEST_TIMEOUT(cpu_qdq_products, 120)
{
	ot_impl = &backend_cpu;
	struct backend *be = ot_backend();
	qdq_all(be);
	backend_cpu.shutdown(be);
}

/* With WEBNN_CPU_CHUNK_NS at 1 ns every int8 product runs in chunks (conv2d: images and pieces
 * of output rows, each reading its rows of the quantized input; gemm/matmul: rows), sharing
 * one copy of the reordered weights: the same results. */
TEST_TIMEOUT(cpu_qdq_products_in_chunks, 120)
{
	struct backend *be = ot_cpu_backend_chunked();
	qdq_all(be);
	backend_cpu.shutdown(be);
}

/* What the pass writes into the IR: the node reads the quantized values, its per-channel
 * scale is x_scale * w_scale[c] / y_scale and its bias is in the sum's units. Nonzero
 * weight zero points and per-channel activation scales keep the float decomposition, and a
 * backend that did not ask for the pass (the reference) sees the graph unchanged. */
TEST(graph_qdq_rewrite)
{
	struct qdq_case c = { QDQ_CONV, WNN_U8, true, 1, true, true, 4, 3, 1, 1, false, false, 0 };
	struct qdq_graph q;
	const struct graph_ir *g0 = qdq_build(&q, &c);
	struct graph_caps caps = { 0 };
	struct wnn_diag diag = { 0 };
	struct graph_ir *g = graph_clone(g0);
	ASSERT(g);
	graph_recount(g);
	ASSERT(graph_fuse_qdq(g, &caps, &diag));
	uint32_t live = 0;
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		live++;
		ASSERT(!g->nodes[i].qdq.used);
	}
	ASSERT_EQ(live, 6u); /* 3 dequantize, conv2d, relu, quantize */
	caps.int8_products = true;
	caps.fold_max_bytes = UINT64_MAX;
	ASSERT(graph_fuse_qdq(g, &caps, &diag));
	const struct graph_node *conv = NULL;
	live = 0;
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		live++;
		if (g->nodes[i].op == WNN_OP_CONV2D)
			conv = &g->nodes[i];
	}
	ASSERT_EQ(live, 1u);
	ASSERT(conv && conv->qdq.used);
	ASSERT_EQ(conv->qdq.zero, 131);
	ASSERT_EQ(conv->qdq.y_zero, 7);
	ASSERT_EQ(conv->qdq.act, GRAPH_ACT_RELU);
	ASSERT_EQ(conv->attrs.conv2d.input, q.dq[0].input);
	ASSERT_EQ(conv->attrs.conv2d.filter, q.dq[1].input);
	ASSERT_EQ(g->values[conv->outputs[0]].desc.type, WNN_U8);
	const float *ws = g->values[q.dq[1].scale].data, *scale = g->values[conv->qdq.scale].data,
		    *bias = g->values[conv->attrs.conv2d.bias].data;
	const int32_t *b = g->values[q.dq[2].input].data;
	for (uint32_t i = 0; i < 3; i++) {
		ASSERT_MSG(fabs(scale[i] - 0.02 * ws[i] / 0.06) < 1e-6, "scale %u: %g", i, (double)scale[i]);
		/* the int32 bias was at scale x_scale * w_scale: the sum's units exactly */
		ASSERT_MSG(fabs(bias[i] - (double)b[i]) < 1e-3, "bias %u: %g, expected %d", i, (double)bias[i], b[i]);
	}
	graph_destroy(g);
	tg_free(&q.tg);
	/* int8 weights with a zero point: the node reads w - zp when it fits int8 everywhere
	 * and the copy fits the folding budget, else the float decomposition stays */
	c.per_channel = false;
	for (int zp = 1; zp >= -128; zp -= 129) {
		caps.fold_max_bytes = zp == 1 ? 12 : UINT64_MAX;
		g0 = qdq_build(&q, &c);
		g = graph_clone(g0);
		ASSERT(g);
		int8_t *wz = (int8_t *)g->values[q.dq[1].zero_point].data;
		const int8_t *w = g->values[q.dq[1].input].data;
		int8_t saved = *wz;
		*wz = (int8_t)zp;
		bool fits = true;
		for (uint32_t i = 0; i < 12; i++)
			fits = fits && w[i] - zp >= -128 && w[i] - zp <= 127;
		ASSERT(fits == (zp == 1)); /* the random weights have some >= 0 */
		graph_recount(g);
		ASSERT(graph_fuse_qdq(g, &caps, &diag));
		conv = NULL;
		GRAPH_FOR_EACH_LIVE_NODE(g, i)
			if (g->nodes[i].qdq.used)
				conv = &g->nodes[i];
		ASSERT(fits == (conv != NULL));
		if (conv) {
			/* one byte less of budget: no copy, no rewrite */
			graph_destroy(g);
			g = graph_clone(g0);
			ASSERT(g);
			graph_recount(g);
			caps.fold_max_bytes = 11;
			ASSERT(graph_fuse_qdq(g, &caps, &diag));
			GRAPH_FOR_EACH_LIVE_NODE(g, i)
				ASSERT(!g->nodes[i].qdq.used);
			graph_destroy(g);
			g = graph_clone(g0);
			ASSERT(g);
			graph_recount(g);
			caps.fold_max_bytes = 12;
			ASSERT(graph_fuse_qdq(g, &caps, &diag));
			conv = NULL;
			GRAPH_FOR_EACH_LIVE_NODE(g, i)
				if (g->nodes[i].qdq.used)
					conv = &g->nodes[i];
			ASSERT(conv);
		}
		if (conv) {
			const int8_t *wf = g->values[conv->attrs.conv2d.filter].data;
			for (uint32_t i = 0; i < 12; i++)
				ASSERT_EQ(wf[i], w[i] - zp);
		}
		*wz = saved;
		graph_destroy(g);
		tg_free(&q.tg);
	}
}

/* ---- ONNX models as shipped: QDQ Conv (what quantize_static writes), QLinearConv with uint8
 * weights at zero point 128, QLinearMatMul; uint8 in and out. */

#define QO_MODELS 3
#define QO_IN (2 * 8 * 9 * 9)
#define QO_OUT (2 * 16 * 9 * 9)

static void qo_write(int which, const char *path)
{
	struct onnx_writer w;
	onnx_writer_init(&w, 13);
	const int64_t xd[4] = { 2, 8, 9, 9 }, wd[4] = { 16, 8, 3, 3 }, cd[1] = { 16 },
		      md[2] = { 8, 16 }, xmd[2] = { 2 * 9 * 9, 8 }, ymd[2] = { 2 * 9 * 9, 16 };
	const int64_t yd[4] = { 2, 16, 9, 9 };
	float xs = 0.03f, ys = 0.07f, wsc[16], bsc[16];
	uint8_t xz = 117, yz = 9, wz8[16];
	int8_t w_s8[16 * 8 * 9], wz[16] = { 0 };
	uint8_t w_u8[16 * 8 * 9];
	int32_t bias[16];
	tg_random(w_s8, WNN_I8, sizeof w_s8, 5, -127, 127);
	tg_random(w_u8, WNN_U8, sizeof w_u8, 6, 0, 255);
	tg_random(wsc, WNN_F32, 16, 7, 0.002, 0.008);
	tg_random(bias, WNN_I32, 16, 8, -2000, 2000);
	memset(wz8, 128, sizeof wz8);
	for (int c = 0; c < 16; c++)
		bsc[c] = xs * wsc[c];
	onnx_writer_initializer(&w, "xs", ONNX_FLOAT, 0, NULL, &xs);
	onnx_writer_initializer(&w, "xz", ONNX_UINT8, 0, NULL, &xz);
	onnx_writer_initializer(&w, "ys", ONNX_FLOAT, 0, NULL, &ys);
	onnx_writer_initializer(&w, "yz", ONNX_UINT8, 0, NULL, &yz);
	onnx_writer_initializer(&w, "b", ONNX_INT32, 1, cd, bias);
	if (which == 0) {
		onnx_writer_input(&w, "x", ONNX_UINT8, 4, xd);
		onnx_writer_initializer(&w, "w", ONNX_INT8, 4, wd, w_s8);
		onnx_writer_initializer(&w, "ws", ONNX_FLOAT, 1, cd, wsc);
		onnx_writer_initializer(&w, "wz", ONNX_INT8, 1, cd, wz);
		onnx_writer_initializer(&w, "bs", ONNX_FLOAT, 1, cd, bsc);
		onnx_writer_node(&w, NULL, "DequantizeLinear", "", "x,xs,xz", "xf");
		onnx_writer_attr_int(&w, onnx_writer_node(&w, NULL, "DequantizeLinear", "",
							  "w,ws,wz", "wf"), "axis", 0);
		onnx_writer_attr_int(&w, onnx_writer_node(&w, NULL, "DequantizeLinear", "", "b,bs",
							  "bf"), "axis", 0);
		Onnx__NodeProto *cv = onnx_writer_node(&w, NULL, "Conv", "", "xf,wf,bf", "c");
		const int64_t pads[4] = { 1, 1, 1, 1 };
		onnx_writer_attr_ints(&w, cv, "pads", pads, 4);
		onnx_writer_node(&w, NULL, "Relu", "", "c", "r");
		onnx_writer_node(&w, NULL, "QuantizeLinear", "", "r,ys,yz", "y");
		onnx_writer_output(&w, "y", ONNX_UINT8, 4, yd);
	} else if (which == 1) {
		onnx_writer_input(&w, "x", ONNX_UINT8, 4, xd);
		onnx_writer_initializer(&w, "w", ONNX_UINT8, 4, wd, w_u8);
		onnx_writer_initializer(&w, "ws", ONNX_FLOAT, 1, cd, wsc);
		onnx_writer_initializer(&w, "wz", ONNX_UINT8, 1, cd, wz8);
		Onnx__NodeProto *cv = onnx_writer_node(&w, NULL, "QLinearConv", "",
						       "x,xs,xz,w,ws,wz,ys,yz,b", "y");
		const int64_t pads[4] = { 1, 1, 1, 1 };
		onnx_writer_attr_ints(&w, cv, "pads", pads, 4);
		onnx_writer_output(&w, "y", ONNX_UINT8, 4, yd);
	} else {
		onnx_writer_input(&w, "x", ONNX_UINT8, 2, xmd);
		onnx_writer_initializer(&w, "w", ONNX_INT8, 2, md, w_s8);
		onnx_writer_initializer(&w, "ws", ONNX_FLOAT, 0, NULL, wsc);
		onnx_writer_initializer(&w, "wz", ONNX_INT8, 0, NULL, wz);
		onnx_writer_node(&w, NULL, "QLinearMatMul", "", "x,xs,xz,w,ws,wz,ys,yz", "y");
		onnx_writer_output(&w, "y", ONNX_UINT8, 2, ymd);
	}
	ASSERT(onnx_writer_save(&w, path));
	onnx_writer_free(&w);
}

static void qo_run(struct webnn_context *ctx, const char *path, const uint8_t *x, uint8_t *y,
		   size_t y_bytes)
{
	char err[1024] = "";
	struct webnn_model *model = NULL;
	enum webnn_status st = webnn_model_load(ctx, path, NULL, &model, err, sizeof err);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: %s", path, err);
	struct webnn_named_tensor in = { "x", NULL }, out = { "y", NULL };
	struct webnn_tensor_desc ti = { .writable = true }, to = { .readable = true };
	webnn_model_input_desc(model, 0, &ti.desc);
	webnn_model_output_desc(model, 0, &to.desc);
	ASSERT(webnn_context_create_tensor(ctx, &ti, &in.tensor) == WEBNN_STATUS_OK);
	ASSERT(webnn_context_create_tensor(ctx, &to, &out.tensor) == WEBNN_STATUS_OK);
	ASSERT(webnn_context_write_tensor(ctx, in.tensor, x, QO_IN) == WEBNN_STATUS_OK);
	ASSERT(webnn_context_dispatch(ctx, webnn_model_graph(model), &in, 1, &out, 1) ==
	       WEBNN_STATUS_OK);
	ASSERT(webnn_context_read_tensor(ctx, out.tensor, y, y_bytes) == WEBNN_STATUS_OK);
	webnn_tensor_destroy(in.tensor);
	webnn_tensor_destroy(out.tensor);
	webnn_model_destroy(model);
}

/* Each model on the reference backend and the cpu backend: the cpu one runs only int8
 * products (its log shows no quantize or dequantize step) and agrees within one quantum. */
TEST_TIMEOUT(onnx_qdq_int8_products, 120)
{
	char dir[64], path[QO_MODELS][96], log[96];
	snprintf(dir, sizeof dir, "/tmp/wnn-qdq-XXXXXX");
	ASSERT(mkdtemp(dir));
	for (int m = 0; m < QO_MODELS; m++) {
		snprintf(path[m], sizeof path[m], "%s/m%d.onnx", dir, m);
		qo_write(m, path[m]);
	}
	snprintf(log, sizeof log, "%s/cpu.log", dir);
	uint8_t x[QO_IN];
	static uint8_t y[2][QO_MODELS][QO_OUT];
	tg_random(x, WNN_U8, QO_IN, 3, 0, 255);
	ct_require_webnnd();
	for (int b = 0; b < 2; b++) {
		struct test_daemon d;
		static const char *const ref_args[] = { "--backend", "reference", NULL };
		static const char *const cpu_args[] = { "--backend", "cpu", "--verbose", NULL };
		test_daemon_start_logged(&d, NULL, b ? cpu_args : ref_args, b ? log : "/dev/null");
		struct webnn_context *ctx = ct_connect(&d, "qdq");
		for (int m = 0; m < QO_MODELS; m++)
			qo_run(ctx, path[m], x, y[b][m], m == 2 ? 2 * 81 * 16 : QO_OUT);
		webnn_context_destroy(ctx);
		test_daemon_stop(&d);
	}
	static const char *const names[QO_MODELS] = { "QDQ Conv + Relu", "QLinearConv uint8 weights",
						      "QLinearMatMul" };
	for (int m = 0; m < QO_MODELS; m++) {
		size_t n = m == 2 ? 2 * 81 * 16 : QO_OUT, differ = 0, mid = 0;
		for (size_t i = 0; i < n; i++) {
			int d = abs((int)y[0][m][i] - (int)y[1][m][i]);
			ASSERT_MSG(d <= 1, "%s: element %zu: cpu %u, reference %u", names[m], i,
				   y[1][m][i], y[0][m][i]);
			differ += d != 0;
			mid += y[0][m][i] > 0 && y[0][m][i] < 255;
		}
		fprintf(stderr, "%s: %zu of %zu inside the range, %zu differ by one\n", names[m], mid, n, differ);
		/* not a saturated output, and a difference only where float rounding decides */
		ASSERT_MSG(mid > n / 2 && differ < n / 50, "%s: %zu of %zu inside the range, %zu differ",
			   names[m], mid, n, differ);
	}
	FILE *f = fopen(log, "r");
	ASSERT(f);
	char line[1024];
	int products = 0;
	while (fgets(line, sizeof line, f)) {
		ASSERT_MSG(!strstr(line, "quantizeLinear runs on"), "cpu: %s", line);
		products += strstr(line, "conv2d runs on") || strstr(line, "matmul runs on");
	}
	fclose(f);
	ASSERT_EQ(products, QO_MODELS);
	unlink(log);
	for (int m = 0; m < QO_MODELS; m++)
		unlink(path[m]);
	rmdir(dir);
}
