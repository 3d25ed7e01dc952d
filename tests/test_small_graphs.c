/* Small-graph passes on the cpu backend: scale/shift folded into weights, pow as multiplication, transposes read through matmul's strides, reshapes as views, batchNormalization in the backend's layout, elementwise chains as one step; numerics against the reference backend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"
#include "daemon/graph/passes.h"
#include "tests/graphs.h"
#include "tests/models.h"
#include "tests/test.h"

/* ---- building graphs whose operation messages live as long as the builder */

/* A float32 constant of seeded values in [lo, hi]. */
static uint32_t sb_const(struct tg_builder *b, uint32_t rank, const uint32_t *dims, double lo, double hi)
{
	struct wnn_desc d = { .type = WNN_F32, .rank = rank };
	if (rank)
		memcpy(d.dims, dims, rank * sizeof *dims);
	float *data = malloc(tg_bytes(&d) + 4);
	ASSERT(data);
	tg_random(data, WNN_F32, tg_bytes(&d) / 4, b->seed++, lo, hi);
	uint32_t id = tg_constant(&b->t, WNN_F32, rank, dims, data);
	free(data);
	return id;
}

static uint32_t sb_scalar(struct tg_builder *b, enum wnn_dtype t, double v)
{
	uint8_t bytes[8];
	tg_pack(bytes, t, &v, 1);
	return tg_constant(&b->t, t, 0, NULL, bytes);
}

/* 3x3 convolution with padding 1, optional bias: NCHW with an OIHW filter or NHWC with OHWI. */
static uint32_t sb_conv(struct tg_builder *b, uint32_t x, uint32_t filter, uint32_t bias, bool nhwc)
{
	Webnn__Ipc__Conv2d m = WEBNN__IPC__CONV2D__INIT;
	for (int k = 0; k < 4; k++)
		b->ids[b->n][k] = 1;
	m.input = x;
	m.filter = filter;
	m.has_bias = bias != GRAPH_NONE;
	m.bias = bias != GRAPH_NONE ? bias : 0;
	m.n_padding = 4;
	m.padding = b->ids[b->n];
	m.output = tg_next(&b->t);
	m.has_input_layout = 1;
	m.input_layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC : WEBNN__IPC__INPUT_LAYOUT__NCHW;
	m.has_filter_layout = nhwc;
	m.filter_layout = nhwc ? WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI
			       : WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW;
	b->msgs[b->n].conv = m;
	return tb_add(b, WNN_OP_CONV2D);
}

/* 2x2 transposed convolution with stride 2 (IOHW filter), NCHW. */
static uint32_t sb_convt(struct tg_builder *b, uint32_t x, uint32_t filter, uint32_t groups)
{
	Webnn__Ipc__ConvTranspose2d m = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
	m.has_groups = 1;
	m.groups = groups;
	b->ids[b->n][0] = b->ids[b->n][1] = 2;
	m.input = x;
	m.filter = filter;
	m.n_strides = 2;
	m.strides = b->ids[b->n];
	m.output = tg_next(&b->t);
	b->msgs[b->n].convt = m;
	return tb_add(b, WNN_OP_CONV_TRANSPOSE2D);
}

static uint32_t sb_bn(struct tg_builder *b, uint32_t x, uint32_t axis, uint32_t channels, bool scale,
		      bool bias)
{
	Webnn__Ipc__BatchNormalization m = WEBNN__IPC__BATCH_NORMALIZATION__INIT;
	m.input = x;
	m.mean = sb_const(b, 1, &channels, -2, 2);
	m.variance = sb_const(b, 1, &channels, 0.1, 3);
	if (scale)
		m.has_scale = 1, m.scale = sb_const(b, 1, &channels, -2, 2);
	if (bias)
		m.has_bias = 1, m.bias = sb_const(b, 1, &channels, -1, 1);
	m.has_axis = 1;
	m.axis = axis;
	m.output = tg_next(&b->t);
	b->msgs[b->n].bn = m;
	return tb_add(b, WNN_OP_BATCH_NORMALIZATION);
}

static uint32_t sb_gemm(struct tg_builder *b, uint32_t x, uint32_t y, uint32_t c, bool b_transpose)
{
	Webnn__Ipc__Gemm m = WEBNN__IPC__GEMM__INIT;
	m.a = x;
	m.b = y;
	if (c != GRAPH_NONE)
		m.has_c = 1, m.c = c, m.has_beta = 1, m.beta = 0.5;
	m.has_b_transpose = b_transpose;
	m.b_transpose = b_transpose;
	m.output = tg_next(&b->t);
	b->msgs[b->n].gemm = m;
	return tb_add(b, WNN_OP_GEMM);
}

static uint32_t sb_matmul(struct tg_builder *b, uint32_t x, uint32_t y)
{
	Webnn__Ipc__Matmul m = WEBNN__IPC__MATMUL__INIT;
	m.a = x;
	m.b = y;
	m.output = tg_next(&b->t);
	b->msgs[b->n].matmul = m;
	return tb_add(b, WNN_OP_MATMUL);
}

/* global average pooling, NCHW */
static uint32_t sb_global_pool(struct tg_builder *b, uint32_t x)
{
	Webnn__Ipc__Pool2d m = WEBNN__IPC__POOL2D__INIT;
	m.input = x;
	m.output = tg_next(&b->t);
	b->msgs[b->n].pool = m;
	return tb_add(b, WNN_OP_AVERAGE_POOL2D);
}

/* hardSigmoid with alpha 1/6, beta 0.5 (how hard-swish's gate is often exported) */
static uint32_t sb_hard_sigmoid(struct tg_builder *b, uint32_t x)
{
	Webnn__Ipc__ElementwiseUnary m = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	m.input = x;
	m.output = tg_next(&b->t);
	m.has_alpha = m.has_beta = 1;
	m.alpha = 1.0 / 6;
	m.beta = 0.5;
	b->msgs[b->n].unary = m;
	return tb_add(b, WNN_OP_HARD_SIGMOID);
}

/* hard-swish as exporters write it: x * clamp(x + 3, 0, 6) / 6 (four operations). */
static uint32_t sb_hard_swish4(struct tg_builder *b, uint32_t x, enum wnn_dtype t)
{
	uint32_t three = sb_scalar(b, t, 3), six = sb_scalar(b, t, 6);
	uint32_t y = tb_clamp(b, tb_binary(b, WNN_OP_ADD, x, three), 0, 6);
	return tb_binary(b, WNN_OP_DIV, tb_binary(b, WNN_OP_MUL, x, y), six);
}

static struct graph_ir *sb_finish(struct tg_builder *b)
{
	const struct graph_ir *g = tg_finish(&b->t, &b->diag);
	ASSERT_MSG(g, "tg_finish: %s", b->diag.message);
	return (struct graph_ir *)g;
}

/* ---- what the cpu backend's passes make of a graph */

struct sb_shape {
	uint32_t live, transposes, chains, live_bn, folded, views;
	uint32_t live_op[WNN_OP_COUNT];
};

static void sb_optimised(const struct graph_ir *g, struct sb_shape *s)
{
	struct graph_ir *c = graph_clone(g);
	ASSERT(c);
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(tg_optimize(c, &backend_cpu, NULL, &diag) == WEBNN_STATUS_OK, "optimise: %s",
		   diag.message);
	memset(s, 0, sizeof *s);
	for (uint32_t i = 0; i < c->n_nodes; i++) {
		const struct graph_node *n = &c->nodes[i];
		s->folded += n->state == GRAPH_NODE_FOLDED;
		if (n->state != GRAPH_NODE_LIVE)
			continue;
		s->live++;
		s->live_op[n->op]++;
		s->views += n->view;
		s->transposes += n->op == WNN_OP_TRANSPOSE;
		s->chains += n->chain.members != NULL;
		s->live_bn += n->op == WNN_OP_BATCH_NORMALIZATION;
	}
	graph_destroy(c);
}

/* ---- running on both backends */

static struct backend *sb_cpu(int threads)
{
	return tg_cpu_team(threads); /* the chains' sizes straddle CPU_EW_PAR_MIN */
}

/* Runs g (its inputs seeded in [lo, hi]) on the reference backend as built and on the cpu
 * backend after its passes; output 0 must agree within ulp or atol + rtol * |ref|. */
static void sb_compare(struct backend *be, const struct graph_ir *g, double lo, double hi,
		       double ulp, double atol, double rtol, const char *label)
{
	void *in[TG_MAX_OPERANDS] = { 0 }, *ref = NULL, *out = NULL;
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		in[i] = malloc(tg_bytes(d) + 8);
		ASSERT(in[i]);
		tg_random(in[i], d->type, count, 1000 + i, lo, hi);
	}
	const struct wnn_desc *od = &g->values[g->outputs[0]].desc;
	uint64_t count = 1;
	wnn_desc_count(od, &count);
	ref = calloc(1, tg_bytes(od) + 8);
	out = calloc(1, tg_bytes(od) + 8);
	ASSERT(ref && out);
	void *refs[TG_MAX_OPERANDS] = { ref }, *outs[TG_MAX_OPERANDS] = { out };
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(tg_run(&backend_reference, NULL, g, (const void *const *)in, refs, &diag) ==
			   WEBNN_STATUS_OK,
		   "%s: reference: %s", label, diag.message);
	wnn_diag_clear(&diag);
	ASSERT_MSG(tg_run(&backend_cpu, be, g, (const void *const *)in, outs, &diag) ==
			   WEBNN_STATUS_OK,
		   "%s: cpu: %s", label, diag.message);
	char msg[256];
	ASSERT_MSG(tg_compare(out, ref, od->type, count, ulp, atol, rtol, msg, sizeof msg),
		   "%s: %s", label, msg);
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++)
		free(in[i]);
	free(ref);
	free(out);
}

/* ---- scale/shift folding */

/* conv2d (NCHW, as ONNX exports it) -> batchNormalization -> hard-swish in four operations: the
 * cpu backend's graph is a transpose in, the convolution with the normalization in its weights,
 * the activation as one chain step, a transpose out. */
TEST_TIMEOUT(graph_fold_batchnorm_into_conv, 120)
{
	struct tg_builder *b = tb_new();
	uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 4, 7, 6 });
	uint32_t w = sb_const(b, 4, (uint32_t[]){ 8, 4, 3, 3 }, -0.5, 0.5);
	uint32_t y = sb_bn(b, sb_conv(b, x, w, GRAPH_NONE, false), 1, 8, true, true);
	sb_hard_swish4(b, y, WNN_F32);
	struct graph_ir *g = sb_finish(b);
	struct sb_shape s;
	sb_optimised(g, &s);
	ASSERT_EQ(s.live_bn, 0u);
	ASSERT_EQ(s.folded, 1u);
	ASSERT_EQ(s.live_op[WNN_OP_CONV2D], 1u);
	ASSERT_EQ(s.chains, 1u);
	ASSERT_EQ(s.transposes, 2u);
	ASSERT_EQ(s.live, 4u);
	struct backend *be = sb_cpu(2);
	sb_compare(be, g, -1, 1, 0, 1e-5, 1e-5, "conv+batchNormalization+hard-swish");
	backend_cpu.shutdown(be);
	tb_free(b);
}

/* The same fold after convTranspose2d, gemm (with a per-column C, B transposed) and matmul (a
 * scale only: it has no bias), and constant mul/add/sub after a conv2d with a bias in NHWC. */
TEST_TIMEOUT(graph_fold_scale_shift_producers, 120)
{
	struct backend *be = sb_cpu(2);
	struct sb_shape s;
	{
		struct tg_builder *b = tb_new();
		/* two groups: output channel (ic / 2) * 3 + o of filter element (ic, o, y, x) */
		uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 2, 4, 4, 5 });
		uint32_t w = sb_const(b, 4, (uint32_t[]){ 4, 3, 2, 2 }, -1, 1);
		sb_bn(b, sb_convt(b, x, w, 2), 1, 6, false, true);
		struct graph_ir *g = sb_finish(b);
		sb_optimised(g, &s);
		ASSERT_EQ(s.live_bn, 0u);
		ASSERT_EQ(s.live_op[WNN_OP_CONV_TRANSPOSE2D], 1u);
		sb_compare(be, g, -1, 1, 0, 1e-5, 1e-5, "convTranspose2d+batchNormalization");
		tb_free(b);
	}
	{
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 5, 7 });
		uint32_t w = sb_const(b, 2, (uint32_t[]){ 9, 7 }, -1, 1);
		uint32_t c = sb_const(b, 1, (uint32_t[]){ 9 }, -1, 1);
		sb_bn(b, sb_gemm(b, x, w, c, true), 1, 9, true, true);
		struct graph_ir *g = sb_finish(b);
		sb_optimised(g, &s);
		ASSERT_EQ(s.live, 1u);
		ASSERT_EQ(s.live_op[WNN_OP_GEMM], 1u);
		sb_compare(be, g, -1, 1, 0, 1e-5, 1e-5, "gemm+batchNormalization");
		tb_free(b);
	}
	{
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 3, (uint32_t[]){ 2, 3, 5 });
		uint32_t w = sb_const(b, 2, (uint32_t[]){ 5, 4 }, -1, 1);
		uint32_t k = sb_const(b, 1, (uint32_t[]){ 4 }, -2, 2);
		tb_binary(b, WNN_OP_MUL, k, sb_matmul(b, x, w));
		struct graph_ir *g = sb_finish(b);
		sb_optimised(g, &s);
		ASSERT_EQ(s.live, 1u);
		sb_compare(be, g, -1, 1, 0, 1e-5, 1e-5, "matmul*scale");
		tb_free(b);
	}
	{
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 5, 5, 4 });
		/* an OHWI filter: the scale goes along its first axis, read through its strides */
		uint32_t w = sb_const(b, 4, (uint32_t[]){ 6, 3, 3, 4 }, -0.5, 0.5);
		uint32_t bias = sb_const(b, 1, (uint32_t[]){ 6 }, -1, 1);
		uint32_t k = sb_const(b, 3, (uint32_t[]){ 1, 1, 6 }, -2, 2);
		uint32_t sh = sb_const(b, 1, (uint32_t[]){ 6 }, -1, 1);
		uint32_t y = tb_binary(b, WNN_OP_MUL, sb_conv(b, x, w, bias, true), k);
		y = tb_binary(b, WNN_OP_ADD, y, sh);
		tb_binary(b, WNN_OP_SUB, y, sb_scalar(b, WNN_F32, 0.25));
		struct graph_ir *g = sb_finish(b);
		sb_optimised(g, &s);
		ASSERT_EQ(s.live, 1u);
		ASSERT_EQ(s.folded, 3u);
		sb_compare(be, g, -1, 1, 0, 1e-5, 1e-5, "conv2d(bias)*k+shift-0.25");
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* What must not fold: a producer whose output has another reader, a normalization along another
 * axis, a subtrahend that is the conv's output, float16. */
TEST_TIMEOUT(graph_fold_scale_shift_limits, 120)
{
	struct backend *be = sb_cpu(2);
	struct sb_shape s;
	{
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 3, 4, 4 });
		uint32_t w = sb_const(b, 4, (uint32_t[]){ 3, 3, 3, 3 }, -1, 1);
		uint32_t y = sb_conv(b, x, w, GRAPH_NONE, false);
		uint32_t z = sb_bn(b, y, 1, 3, true, true);
		tb_binary(b, WNN_OP_ADD, z, y);
		struct graph_ir *g = sb_finish(b);
		sb_optimised(g, &s);
		ASSERT_EQ(s.folded, 0u);
		ASSERT_EQ(s.live_bn, 1u);
		/* the normalization runs in NHWC beside the conv: one transpose in, one out */
		ASSERT_EQ(s.transposes, 2u);
		sb_compare(be, g, -1, 1, 0, 1e-5, 1e-5, "conv read twice");
		tb_free(b);
	}
	{
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 3, 4, 4 });
		uint32_t w = sb_const(b, 4, (uint32_t[]){ 4, 3, 3, 3 }, -1, 1);
		sb_bn(b, sb_conv(b, x, w, GRAPH_NONE, false), 2, 4, false, false);
		struct graph_ir *g = sb_finish(b);
		sb_optimised(g, &s);
		ASSERT_EQ(s.folded, 0u);
		sb_compare(be, g, -1, 1, 0, 1e-5, 1e-5, "batchNormalization along height");
		tb_free(b);
	}
	{
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 3, 4 });
		uint32_t w = sb_const(b, 2, (uint32_t[]){ 4, 5 }, -1, 1);
		tb_binary(b, WNN_OP_SUB, sb_scalar(b, WNN_F32, 1), sb_gemm(b, x, w, GRAPH_NONE, false));
		struct graph_ir *g = sb_finish(b);
		sb_optimised(g, &s);
		ASSERT_EQ(s.folded, 0u);
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* The cpu backend's own batchNormalization (not folded: its input is a graph input) rounds once,
 * as the reference does: the WPT case shape [3,3,4,4], axis 3, with a bias was 7 ulp off. */
TEST_TIMEOUT(cpu_batchnorm_rounds_once, 120)
{
	struct backend *be = sb_cpu(2);
	for (uint32_t axis = 0; axis < 4; axis++) {
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 3, 3, 4, 4 });
		sb_bn(b, x, axis, axis < 2 ? 3 : 4, axis != 1, true);
		struct graph_ir *g = sb_finish(b);
		char label[64];
		snprintf(label, sizeof label, "batchNormalization axis %u", axis);
		sb_compare(be, g, -100, 100, 1, 0, 0, label);
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* A squeeze-and-excitation block (MobileNetV3): the activation times a gate [1,C,1,1] computed
 * from its pooled channels. The gate broadcasts the same in NHWC, so the mul stays there beside
 * the convolutions: only the graph's input and output are transposed. */
TEST_TIMEOUT(graph_layout_broadcast_gate_stays_nhwc, 120)
{
	struct tg_builder *b = tb_new();
	uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 8, 6, 6 });
	uint32_t w1 = sb_const(b, 4, (uint32_t[]){ 8, 8, 3, 3 }, -0.3, 0.3);
	uint32_t w2 = sb_const(b, 4, (uint32_t[]){ 8, 8, 3, 3 }, -0.3, 0.3);
	uint32_t w3 = sb_const(b, 4, (uint32_t[]){ 4, 8, 3, 3 }, -0.3, 0.3);
	uint32_t y = sb_conv(b, x, w1, GRAPH_NONE, false);
	uint32_t gate = sb_hard_sigmoid(b, sb_conv(b, sb_global_pool(b, y), w2, GRAPH_NONE, false));
	sb_conv(b, tb_binary(b, WNN_OP_MUL, y, gate), w3, GRAPH_NONE, false);
	struct graph_ir *g = sb_finish(b);
	struct sb_shape s;
	sb_optimised(g, &s);
	ASSERT_EQ(s.transposes, 2u);
	struct backend *be = sb_cpu(2);
	sb_compare(be, g, -1, 1, 0, 1e-5, 1e-5, "squeeze-and-excitation");
	backend_cpu.shutdown(be);
	tb_free(b);
}

/* ---- pow by small integers */

TEST_TIMEOUT(graph_pow_small_integer_exponent, 120)
{
	struct backend *be = sb_cpu(2);
	static const struct {
		double e;
		enum wnn_dtype t;
		enum wnn_op becomes;
		double ulp;
	} cases[] = {
		{ 2, WNN_F32, WNN_OP_MUL, 0 },	      { 2, WNN_F16, WNN_OP_MUL, 0 },
		{ -1, WNN_F32, WNN_OP_RECIPROCAL, 0 }, { -1, WNN_F16, WNN_OP_RECIPROCAL, 0 },
		{ 3, WNN_F32, WNN_OP_MUL, 2 },	      { 4, WNN_F32, WNN_OP_MUL, 2 },
		{ 2.5, WNN_F32, WNN_OP_POW, 8 },      { 3, WNN_F16, WNN_OP_POW, 0 },
	};
	/* pow(float32, 2.5) stays pow: a float32 kernel within 8 ulp (cpu_transcendental.c) */
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, cases[k].t, 2, (uint32_t[]){ 37, 41 });
		tb_binary(b, WNN_OP_POW, x, sb_scalar(b, cases[k].t, cases[k].e));
		struct graph_ir *g = sb_finish(b);
		struct sb_shape s;
		sb_optimised(g, &s);
		char label[64];
		snprintf(label, sizeof label, "pow(%s, %g)", wnn_dtype_name(cases[k].t), cases[k].e);
		ASSERT_MSG(s.live_op[cases[k].becomes] >= 1 && s.live_op[WNN_OP_POW] ==
				   (cases[k].becomes == WNN_OP_POW),
			   "%s: %u pow, %u %s", label, s.live_op[WNN_OP_POW],
			   s.live_op[cases[k].becomes], wnn_ops[cases[k].becomes].name);
		/* positive and negative, so that odd powers and reciprocals see both signs */
		sb_compare(be, g, cases[k].e == 2.5 ? 0 : -3, 3, cases[k].ulp, 0, 0, label);
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* ---- transposes read through matmul's strides */

/* transpose with a permutation (ids[n] holds it) */
static uint32_t sb_transpose(struct tg_builder *b, uint32_t x, uint32_t rank, const uint32_t *perm)
{
	Webnn__Ipc__Transpose m = WEBNN__IPC__TRANSPOSE__INIT;
	m.input = x;
	m.output = tg_next(&b->t);
	memcpy(b->ids[b->n], perm, rank * sizeof *perm);
	m.permutation = b->ids[b->n];
	m.n_permutation = rank;
	m.has_permutation = 1;
	b->msgs[b->n].transpose = m;
	return tb_add(b, WNN_OP_TRANSPOSE);
}

/* Attention scores as PyTorch exports them, q.matmul(k.transpose(-2, -1)), a tied output layer
 * matmul(x, transpose(E)) with a constant E, and a transposed left operand (each above
 * CPU_TINY_WORK, so oneDNN runs them, not the reference loop): the cpu backend's
 * graph has no transpose left, and its results agree with the reference's. A transpose also
 * read elsewhere stays for that reader; one of other axes, or feeding both operands of one
 * matmul, is left alone. */
TEST_TIMEOUT(graph_matmul_reads_transposes_in_place, 120)
{
	struct backend *be = sb_cpu(2);
	static const uint32_t swap4[] = { 0, 1, 3, 2 }, swap2[] = { 1, 0 }, other4[] = { 0, 2, 1, 3 };
	for (int k = 0; k < 6; k++) {
		struct tg_builder *b = tb_new();
		uint32_t expect_transposes = 0, expect_matmuls = 1;
		const char *what = "";
		if (k == 0) { /* scores: [1, 4, 40, 32] x transpose([1, 4, 40, 32]) */
			what = "q k^T";
			uint32_t q = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 4, 40, 32 });
			uint32_t kk = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 4, 40, 32 });
			sb_matmul(b, q, sb_transpose(b, kk, 4, swap4));
		} else if (k == 1) { /* tied head: [5, 64] x transpose(E [300, 64]) */
			what = "x E^T, E constant";
			uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 5, 64 });
			uint32_t e = sb_const(b, 2, (uint32_t[]){ 300, 64 }, -1, 1);
			sb_matmul(b, x, sb_transpose(b, e, 2, swap2));
		} else if (k == 2) { /* transposed left operand, broadcast batch */
			what = "x^T W, batch broadcast";
			uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 2, 3, 64, 48 });
			uint32_t w = tg_input(&b->t, WNN_F32, 3, (uint32_t[]){ 1, 64, 40 });
			sb_matmul(b, sb_transpose(b, x, 4, swap4), w);
		} else if (k == 3) { /* the transposed value is also read by relu: it stays */
			what = "transpose read twice";
			uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 6, 8 });
			uint32_t w = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 11, 8 });
			uint32_t wt = sb_transpose(b, w, 2, swap2);
			uint32_t y = sb_matmul(b, x, wt);
			tb_binary(b, WNN_OP_ADD, y, sb_matmul(b, x, tb_unary(b, WNN_OP_RELU, wt)));
			expect_transposes = 1, expect_matmuls = 2;
		} else if (k == 4) { /* not the last two axes */
			what = "other axes";
			uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 5, 3, 4 });
			uint32_t w = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 3, 4, 6 });
			sb_matmul(b, sb_transpose(b, x, 4, other4), w);
			expect_transposes = 1;
		} else { /* matmul(t, t) with t square */
			what = "one transpose, both operands";
			uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 12, 12 });
			uint32_t t = sb_transpose(b, x, 2, swap2);
			sb_matmul(b, t, t);
			expect_transposes = 1;
		}
		struct graph_ir *g = sb_finish(b);
		struct sb_shape s;
		sb_optimised(g, &s);
		ASSERT_MSG(s.transposes == expect_transposes &&
				   s.live_op[WNN_OP_MATMUL] == expect_matmuls,
			   "%s: %u transposes (want %u), %u matmuls", what, s.transposes,
			   expect_transposes, s.live_op[WNN_OP_MATMUL]);
		sb_compare(be, g, -1, 1, 0, 1e-5, 1e-5, what);
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* ---- reshapes as views */

static uint32_t sb_reshape(struct tg_builder *b, uint32_t x, uint32_t rank, const uint32_t *dims)
{
	Webnn__Ipc__Reshape m = WEBNN__IPC__RESHAPE__INIT;
	m.input = x;
	m.output = tg_next(&b->t);
	memcpy(b->ids[b->n], dims, rank * sizeof *dims);
	m.new_shape = b->ids[b->n];
	m.n_new_shape = rank;
	b->msgs[b->n].reshape = m;
	return tb_add(b, WNN_OP_RESHAPE);
}

/* Reshapes run no kernel on the cpu backend: a chain of them between two operations, one of a
 * graph input, and a view read long after its storage's producer while later steps take
 * buffers (the memory plan must keep that storage for the view: reused early, the sum below
 * would read another step's result). A reshape whose output is the graph's output stays a
 * copy into the caller's tensor. Results equal the reference's. */
TEST_TIMEOUT(graph_reshapes_are_views, 120)
{
	struct backend *be = sb_cpu(2);
	for (int k = 0; k < 4; k++) {
		struct tg_builder *b = tb_new();
		uint32_t expect_views = 0;
		const char *what = "";
		if (k == 0) {
			what = "three reshapes between relu and matmul";
			uint32_t x = tg_input(&b->t, WNN_F32, 3, (uint32_t[]){ 2, 3, 8 });
			uint32_t r = tb_unary(b, WNN_OP_RELU, x);
			r = sb_reshape(b, r, 2, (uint32_t[]){ 6, 8 });
			r = sb_reshape(b, r, 1, (uint32_t[]){ 48 });
			r = sb_reshape(b, r, 2, (uint32_t[]){ 6, 8 });
			sb_matmul(b, r, sb_const(b, 2, (uint32_t[]){ 8, 5 }, -1, 1));
			expect_views = 3;
		} else if (k == 1) {
			what = "a graph input reshaped";
			uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 4, 6 });
			uint32_t r = sb_reshape(b, x, 1, (uint32_t[]){ 24 });
			tb_binary(b, WNN_OP_ADD, r, sb_const(b, 1, (uint32_t[]){ 24 }, -1, 1));
			expect_views = 1;
		} else if (k == 2) {
			what = "a view read after later steps";
			uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 8, 8 });
			uint32_t v = sb_reshape(b, tb_unary(b, WNN_OP_RELU, x), 1, (uint32_t[]){ 64 });
			uint32_t t = sb_matmul(b, x, sb_const(b, 2, (uint32_t[]){ 8, 8 }, -1, 1));
			t = sb_matmul(b, t, sb_const(b, 2, (uint32_t[]){ 8, 8 }, -1, 1));
			t = sb_matmul(b, t, sb_const(b, 2, (uint32_t[]){ 8, 8 }, -1, 1));
			tb_binary(b, WNN_OP_ADD, v, sb_reshape(b, t, 1, (uint32_t[]){ 64 }));
			expect_views = 2;
		} else {
			what = "the graph's output is a reshape";
			uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 4, 6 });
			sb_reshape(b, tb_unary(b, WNN_OP_RELU, x), 1, (uint32_t[]){ 24 });
		}
		struct graph_ir *g = sb_finish(b);
		struct sb_shape s;
		sb_optimised(g, &s);
		ASSERT_MSG(s.views == expect_views, "%s: %u views (want %u)", what, s.views,
			   expect_views);
		sb_compare(be, g, -1, 1, 0, 1e-6, 1e-6, what);
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* A transpose that moves only axes of size 1 is a view too: [1, 5, 1, 1] -> [1, 1, 1, 5] and
 * [1, 1, 1, 7] -> [1, 1, 7, 1] (what the layout pass writes around a convolution of one channel
 * or one pixel) run no kernel; [1, 5, 1, 3] -> [1, 1, 3, 5] moves data and stays a transpose. */
TEST_TIMEOUT(graph_unit_axis_transposes_are_views, 120)
{
	struct backend *be = sb_cpu(2);
	static const uint32_t nhwc[] = { 0, 2, 3, 1 };
	static const uint32_t shapes[3][4] = { { 1, 5, 1, 1 }, { 1, 1, 1, 7 }, { 1, 5, 1, 3 } };
	for (int k = 0; k < 3; k++) {
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 4, shapes[k]);
		uint32_t t = sb_transpose(b, tb_unary(b, WNN_OP_RELU, x), 4, nhwc);
		tb_unary(b, WNN_OP_SIGMOID, t);
		struct graph_ir *g = sb_finish(b);
		struct sb_shape s;
		sb_optimised(g, &s);
		char what[64];
		snprintf(what, sizeof what, "transpose of [%u, %u, %u, %u]", shapes[k][0],
			 shapes[k][1], shapes[k][2], shapes[k][3]);
		ASSERT_MSG(s.transposes == (k == 2 ? 1u : 0u) && s.views == (k == 2 ? 0u : 1u),
			   "%s: %u transposes, %u views", what, s.transposes, s.views);
		/* float32 sigmoid computes in float32: within a few ulp */
		sb_compare(be, g, -1, 1, cpu_f32_unary(WNN_OP_SIGMOID) ? 8 : 0, 0, 0, what);
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* A squeeze-and-excitation block as exported (NCHW): conv2d -> reduceMean over [2, 3] with kept
 * dimensions -> conv2d 1x1 -> hardSigmoid -> mul with the first conv's output -> conv2d. The
 * reduction runs in the backend's layout like the elementwise steps: a transpose in and one out,
 * none around the mean; the result agrees with the reference. Without kept dimensions the
 * reduction stays in the client's layout. */
TEST_TIMEOUT(graph_layout_reduce_keeps_backend_layout, 120)
{
	struct backend *be = sb_cpu(2);
	for (int keep = 1; keep >= 0; keep--) {
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 8, 6, 5 });
		uint32_t w1 = sb_const(b, 4, (uint32_t[]){ 8, 8, 3, 3 }, -0.5, 0.5);
		uint32_t y = sb_conv(b, x, w1, GRAPH_NONE, false);
		Webnn__Ipc__Reduce m = WEBNN__IPC__REDUCE__INIT;
		uint32_t *axes = b->ids[b->n];
		axes[0] = 2, axes[1] = 3;
		m.input = y;
		m.output = tg_next(&b->t);
		m.n_axes = 2;
		m.axes = axes;
		m.has_has_axes = m.has_axes = 1;
		m.has_keep_dimensions = 1;
		m.keep_dimensions = keep;
		b->msgs[b->n].reduce = m;
		uint32_t mean = tb_add(b, WNN_OP_REDUCE_MEAN);
		if (keep) {
			uint32_t w2 = sb_const(b, 4, (uint32_t[]){ 8, 8, 1, 1 }, -0.5, 0.5);
			Webnn__Ipc__Conv2d c = WEBNN__IPC__CONV2D__INIT;
			c.input = mean;
			c.filter = w2;
			c.output = tg_next(&b->t);
			b->msgs[b->n].conv = c;
			uint32_t gate = sb_hard_sigmoid(b, tb_add(b, WNN_OP_CONV2D));
			uint32_t w3 = sb_const(b, 4, (uint32_t[]){ 4, 8, 3, 3 }, -0.5, 0.5);
			sb_conv(b, tb_binary(b, WNN_OP_MUL, y, gate), w3, GRAPH_NONE, false);
		} else {
			tb_unary(b, WNN_OP_RELU, mean);
		}
		struct graph_ir *g = sb_finish(b);
		struct sb_shape s;
		sb_optimised(g, &s);
		if (keep)
			ASSERT_MSG(s.transposes == 2, "squeeze and excitation: %u transposes",
				   s.transposes);
		else
			ASSERT_MSG(s.transposes == 2 && s.live_op[WNN_OP_REDUCE_MEAN] == 1,
				   "mean without kept dimensions: %u transposes", s.transposes);
		sb_compare(be, g, -1, 1, 0, 1e-5, 1e-5,
			   keep ? "squeeze and excitation" : "mean without kept dimensions");
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* ---- elementwise chains on the cpu backend */

/* hard-swish in four operations, x * sigmoid(x), hardSigmoid(x) * x and an integer chain: one
 * step each on the cpu backend, the reference's bits (float32 sigmoid within a few ulp), on both
 * sides of the threading threshold and the block size, with a float16 chain rounding as its
 * separate steps would. */
TEST_TIMEOUT(cpu_elementwise_chain_one_step, 300)
{
	struct backend *be = sb_cpu(2);
	static const uint32_t sizes[] = { 1, 513, 70001 };
	static const enum wnn_dtype types[] = { WNN_F32, WNN_F16 };
	for (size_t si = 0; si < 3; si++)
		for (size_t ti = 0; ti < 2; ti++)
			for (int form = 0; form < 3; form++) {
				enum wnn_dtype t = types[ti];
				struct tg_builder *b = tb_new();
				uint32_t x = tg_input(&b->t, t, 1, &sizes[si]);
				if (form == 0)
					sb_hard_swish4(b, x, t);
				else if (form == 1)
					tb_binary(b, WNN_OP_MUL, x, tb_unary(b, WNN_OP_SIGMOID, x));
				else
					tb_binary(b, WNN_OP_MUL, sb_hard_sigmoid(b, x), x);
				struct graph_ir *g = sb_finish(b);
				struct sb_shape s;
				sb_optimised(g, &s);
				char label[96];
				snprintf(label, sizeof label, "form %d %s [%u]", form,
					 wnn_dtype_name(t), sizes[si]);
				ASSERT_MSG(s.live == 1 && s.chains == 1, "%s: %u steps, %u chains",
					   label, s.live, s.chains);
				/* float32 sigmoid computes in float32 (cpu_transcendental.c) */
				double ulp = form == 1 && t == WNN_F32 && cpu_f32_unary(WNN_OP_SIGMOID)
						     ? 8
						     : 0;
				sb_compare(be, g, -8, 8, ulp, 0, 0, label);
				tb_free(b);
			}
	{
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_I32, 2, (uint32_t[]){ 301, 257 });
		uint32_t y = tg_input(&b->t, WNN_I32, 2, (uint32_t[]){ 301, 257 });
		uint32_t z = tb_binary(b, WNN_OP_MUL, tb_binary(b, WNN_OP_ADD, x, y),
				       sb_scalar(b, WNN_I32, -3));
		tb_binary(b, WNN_OP_SUB, y, tb_clamp(b, z, -1000, 5000));
		struct graph_ir *g = sb_finish(b);
		struct sb_shape s;
		sb_optimised(g, &s);
		ASSERT_EQ(s.live, 1u);
		sb_compare(be, g, -10000, 10000, 0, 0, 0, "int32 chain");
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* GELU as exporters write it, in float32: the erf form (torch: Div by sqrt 2, Erf, Add 1, Mul x,
 * Mul 0.5), the tanh form of nn.GELU(approximate='tanh') (x * x * x, kappa, Add x, beta, Tanh,
 * Add 1, Mul x, Mul 0.5: the chain reads x beside it) and the tanh form of Hugging Face's
 * NewGELU (0.5 * x first, Pow(x, 3), ...: the half is its own step, read beside the chain).
 * Each runs as one chain step (NewGELU: the half and the chain), whose erf and tanh are the
 * float32 kernels, within a few 1e-7 of the reference's separate steps. A graph where an
 * intermediate value is also an output stays in pieces. */
static uint32_t sb_gelu(struct tg_builder *b, uint32_t x, int form)
{
	enum wnn_dtype t = WNN_F32;
	if (form == 0) {
		uint32_t q = tb_binary(b, WNN_OP_DIV, x, sb_scalar(b, t, 1.4142135));
		uint32_t e = tb_unary(b, WNN_OP_ERF, q);
		uint32_t y = tb_binary(b, WNN_OP_ADD, e, sb_scalar(b, t, 1));
		return tb_binary(b, WNN_OP_MUL, tb_binary(b, WNN_OP_MUL, x, y), sb_scalar(b, t, 0.5));
	}
	uint32_t half = form == 2 ? tb_binary(b, WNN_OP_MUL, x, sb_scalar(b, t, 0.5)) : 0;
	uint32_t cube = form == 2 ? tb_binary(b, WNN_OP_POW, x, sb_scalar(b, t, 3))
				  : tb_binary(b, WNN_OP_MUL, x, tb_binary(b, WNN_OP_MUL, x, x));
	uint32_t inner = tb_binary(b, WNN_OP_ADD, x,
				   tb_binary(b, WNN_OP_MUL, sb_scalar(b, t, 0.044715), cube));
	uint32_t th = tb_unary(b, WNN_OP_TANH,
			       tb_binary(b, WNN_OP_MUL, sb_scalar(b, t, 0.7978845608), inner));
	uint32_t one = tb_binary(b, WNN_OP_ADD, sb_scalar(b, t, 1), th);
	if (form == 2)
		return tb_binary(b, WNN_OP_MUL, half, one);
	return tb_binary(b, WNN_OP_MUL, sb_scalar(b, t, 0.5), tb_binary(b, WNN_OP_MUL, x, one));
}

TEST_TIMEOUT(cpu_gelu_exported_forms_one_step, 120)
{
	struct backend *be = sb_cpu(2);
	static const char *const names[] = { "erf form", "tanh form (torch)", "tanh form (NewGELU)" };
	for (int form = 0; form < 3; form++) {
		for (int size = 0; size < 2; size++) {
			struct tg_builder *b = tb_new();
			uint32_t x = tg_input(&b->t, WNN_F32, 2,
					      size ? (uint32_t[]){ 64, 3072 } : (uint32_t[]){ 3, 7 });
			sb_gelu(b, x, form);
			struct graph_ir *g = sb_finish(b);
			struct sb_shape s;
			sb_optimised(g, &s);
			char label[96];
			snprintf(label, sizeof label, "GELU %s [%s]", names[form],
				 size ? "64, 3072" : "3, 7");
			ASSERT_MSG(s.chains == 1 && s.live == (form == 2 ? 2u : 1u) &&
					   !s.live_op[WNN_OP_ERF] && !s.live_op[WNN_OP_TANH],
				   "%s: %u steps, %u chains", label, s.live, s.chains);
			sb_compare(be, g, -6, 6, 8, 1e-6, 0, label);
			tb_free(b);
		}
	}
	/* the erf's output is an output too: the chain stops there */
	struct tg_builder *b = tb_new();
	uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 3, 7 });
	uint32_t e = tb_unary(b, WNN_OP_ERF,
			      tb_binary(b, WNN_OP_DIV, x, sb_scalar(b, WNN_F32, 1.4142135)));
	tg_output(&b->t, e);
	uint32_t one = tb_binary(b, WNN_OP_ADD, e, sb_scalar(b, WNN_F32, 1));
	tg_output(&b->t, tb_binary(b, WNN_OP_MUL, one, x));
	struct graph_ir *g = sb_finish(b);
	struct sb_shape s;
	sb_optimised(g, &s);
	ASSERT_MSG(s.chains == 2 && s.live == 2, "erf read outside: %u steps, %u chains", s.live,
		   s.chains);
	tb_free(b);
	backend_cpu.shutdown(be);
}

/* ---- attention's score scale and mask add fused into the softmax */

static uint32_t sb_softmax(struct tg_builder *b, uint32_t x, uint32_t axis)
{
	Webnn__Ipc__Softmax m = WEBNN__IPC__SOFTMAX__INIT;
	m.input = x;
	m.axis = axis;
	m.output = tg_next(&b->t);
	b->msgs[b->n].softmax = m;
	return tb_add(b, WNN_OP_SOFTMAX);
}

/* q [1, 2, 8, 16] x k^T [1, 2, 16, 8], scaled by 1/4 (a division, or a multiplication with the
 * constant on either side), plus a mask ([1, 1, 1, 8] padding after the scores or before them,
 * [1, 1, 8, 8] causal with -inf above the diagonal, [1, 2, 8, 8] random, or none), then softmax
 * over the last axis: the cpu backend runs the matmul and one softmax step, which matches the
 * reference's three steps within a few ulp. The fusion is refused where it would change what
 * is computed: a softmax over another axis, a scale that is no constant, scores that are also
 * an output, a float16 softmax. */
TEST_TIMEOUT(cpu_softmax_scale_mask_fused, 120)
{
	struct backend *be = sb_cpu(2);
	static const uint32_t mask_shapes[4][4] = {
		{ 1, 1, 1, 8 }, { 1, 1, 8, 8 }, { 1, 1, 1, 8 }, { 1, 2, 8, 8 }
	};
	static float causal[64];
	for (int r = 0; r < 8; r++)
		for (int c = 0; c < 8; c++)
			causal[r * 8 + c] = c > r ? -INFINITY : 0.0f;
	for (int scale = 0; scale < 4; scale++) {
		for (int mask = 0; mask < 5; mask++) {
			if (scale == 0 && mask == 4)
				continue; /* nothing to fuse */
			struct tg_builder *b = tb_new();
			uint32_t q = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 2, 8, 16 });
			uint32_t k = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 2, 16, 8 });
			uint32_t s = sb_matmul(b, q, k);
			if (scale == 1)
				s = tb_binary(b, WNN_OP_DIV, s, sb_scalar(b, WNN_F32, 4));
			else if (scale == 2)
				s = tb_binary(b, WNN_OP_MUL, s, sb_scalar(b, WNN_F32, 0.25));
			else if (scale == 3)
				s = tb_binary(b, WNN_OP_MUL, sb_scalar(b, WNN_F32, 0.25), s);
			if (mask < 4) {
				uint32_t m = mask == 1 ? tg_constant(&b->t, WNN_F32, 4, mask_shapes[1], causal)
						       : tg_input(&b->t, WNN_F32, 4, mask_shapes[mask]);
				s = mask == 2 ? tb_binary(b, WNN_OP_ADD, m, s)
					      : tb_binary(b, WNN_OP_ADD, s, m);
			}
			sb_softmax(b, s, 3);
			struct graph_ir *g = sb_finish(b);
			struct sb_shape sh;
			sb_optimised(g, &sh);
			char label[96];
			snprintf(label, sizeof label, "attention scale %d mask %d", scale, mask);
			ASSERT_MSG(sh.live == 2 && sh.live_op[WNN_OP_MATMUL] == 1 &&
					   sh.live_op[WNN_OP_SOFTMAX] == 1,
				   "%s: %u steps", label, sh.live);
			sb_compare(be, g, -2, 2, 8, 1e-7, 0, label);
			tb_free(b);
		}
	}
	/* refusals: axis 2; a scale read from an input; the scaled scores an output too; float16 */
	for (int which = 0; which < 4; which++) {
		struct tg_builder *b = tb_new();
		enum wnn_dtype t = which == 3 ? WNN_F16 : WNN_F32;
		uint32_t x = tg_input(&b->t, t, 4, (uint32_t[]){ 1, 2, 8, 8 });
		uint32_t c = which == 1 ? tg_input(&b->t, t, 0, NULL) : sb_scalar(b, t, 4);
		uint32_t s = tb_binary(b, WNN_OP_DIV, x, c);
		if (which == 2)
			tg_output(&b->t, s);
		uint32_t y = sb_softmax(b, s, which == 0 ? 2 : 3);
		if (which == 2)
			tg_output(&b->t, y);
		struct graph_ir *g = sb_finish(b);
		struct sb_shape sh;
		sb_optimised(g, &sh);
		ASSERT_MSG(sh.live == 2 && sh.live_op[WNN_OP_DIV] == 1,
			   "refusal %d: %u steps, %u div", which, sh.live, sh.live_op[WNN_OP_DIV]);
		if (which < 2) /* (sb_compare reads one output) */
			sb_compare(be, g, 1, 2, 8, 1e-7, 0, "refusal");
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* ---- epilogues ending in leakyRelu and a bound */

static uint32_t sb_leaky(struct tg_builder *b, uint32_t x, double alpha)
{
	Webnn__Ipc__ElementwiseUnary m = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	m.input = x;
	m.output = tg_next(&b->t);
	m.has_alpha = 1;
	m.alpha = alpha;
	b->msgs[b->n].unary = m;
	return tb_add(b, WNN_OP_LEAKY_RELU);
}

/* conv2d (NHWC, bias) -> leakyRelu -> max(x, -0.4) twice (tf2onnx's export of a keras
 * LeakyReLU with a floor), and gemm -> leakyRelu -> min by a scalar, and a conv2d -> leakyRelu ->
 * clamp: each is one step, the activation and the bound in the product's post-ops, and agrees
 * with the reference backend. A max by a non-scalar stays a step of its own. */
TEST_TIMEOUT(graph_epilogue_leaky_relu_bound, 120)
{
	struct backend *be = sb_cpu(2);
	{
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 9, 7, 6 });
		uint32_t y = x;
		for (int k = 0; k < 2; k++) {
			uint32_t w = sb_const(b, 4, (uint32_t[]){ 6, 3, 3, 6 }, -0.5, 0.5);
			uint32_t c = sb_const(b, 1, (uint32_t[]){ 6 }, -0.5, 0.5);
			y = sb_leaky(b, sb_conv(b, y, w, c, true), 0.2);
			y = tb_binary(b, WNN_OP_MAX, y, sb_scalar(b, WNN_F32, -0.4));
		}
		struct graph_ir *g = sb_finish(b);
		struct sb_shape s;
		sb_optimised(g, &s);
		ASSERT_EQ(s.live, 2u);
		ASSERT_EQ(s.live_op[WNN_OP_CONV2D], 2u);
		sb_compare(be, g, -3, 3, 0, 1e-5, 1e-5, "conv+leakyRelu+max");
		tb_free(b);
	}
	{
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 5, 40 });
		uint32_t w = sb_const(b, 2, (uint32_t[]){ 40, 24 }, -0.5, 0.5);
		uint32_t y = sb_leaky(b, sb_gemm(b, x, w, GRAPH_NONE, false), 0.3);
		tb_binary(b, WNN_OP_MIN, sb_scalar(b, WNN_F32, 0.25), y);
		struct graph_ir *g = sb_finish(b);
		struct sb_shape s;
		sb_optimised(g, &s);
		ASSERT_EQ(s.live, 1u);
		sb_compare(be, g, -3, 3, 0, 1e-5, 1e-5, "gemm+leakyRelu+min");
		tb_free(b);
	}
	{
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 2, 5, 5, 4 });
		uint32_t w = sb_const(b, 4, (uint32_t[]){ 8, 3, 3, 4 }, -0.5, 0.5);
		tb_clamp(b, sb_leaky(b, sb_conv(b, x, w, GRAPH_NONE, true), 0.1), -0.05, 0.5);
		struct graph_ir *g = sb_finish(b);
		struct sb_shape s;
		sb_optimised(g, &s);
		ASSERT_EQ(s.live, 1u);
		sb_compare(be, g, -3, 3, 0, 1e-5, 1e-5, "conv+leakyRelu+clamp");
		tb_free(b);
	}
	{
		/* max by a tensor of the output's shape: not a bound; a chain of its own */
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 3, 16 });
		uint32_t z = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 3, 8 });
		uint32_t w = sb_const(b, 2, (uint32_t[]){ 16, 8 }, -0.5, 0.5);
		tb_binary(b, WNN_OP_MAX, sb_leaky(b, sb_matmul(b, x, w), 0.2), z);
		struct graph_ir *g = sb_finish(b);
		struct sb_shape s;
		sb_optimised(g, &s);
		ASSERT_EQ(s.live, 2u);
		sb_compare(be, g, -3, 3, 0, 1e-5, 1e-5, "matmul+leakyRelu, max by a tensor");
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* ---- one-channel conv1d as a framed matrix product */

/* conv2d of x [1, 1, 1, W] (NCHW, as ONNX's Conv1d imports) by filter [O, 1, 1, K], stride s,
 * left/right padding pad, optional bias. */
static uint32_t sb_conv1d(struct tg_builder *b, uint32_t x, uint32_t filter, uint32_t bias,
			  uint32_t stride, uint32_t pad)
{
	Webnn__Ipc__Conv2d m = WEBNN__IPC__CONV2D__INIT;
	uint32_t *ids = b->ids[b->n];
	ids[0] = ids[1] = 0, ids[2] = ids[3] = pad; /* padding: top, bottom, left, right */
	ids[4] = 1, ids[5] = stride;                 /* strides */
	m.input = x;
	m.filter = filter;
	m.has_bias = bias != GRAPH_NONE;
	m.bias = bias != GRAPH_NONE ? bias : 0;
	m.n_padding = 4;
	m.padding = ids;
	m.n_strides = 2;
	m.strides = ids + 4;
	m.output = tg_next(&b->t);
	b->msgs[b->n].conv = m;
	return tb_add(b, WNN_OP_CONV2D);
}

/* Whether the cpu plan of g may take the quick path (no step on the whole team). */
static bool sb_plan_quick(struct backend *be, const struct graph_ir *g)
{
	const struct backend_impl *impl = &backend_cpu;
	struct backend_context *ctx = NULL;
	struct backend_plan *plan = NULL;
	struct backend_context_options copts = { 0 };
	struct wnn_diag diag = { 0 };
	ASSERT(impl->context_create(be, &copts, &ctx, &diag) == WEBNN_STATUS_OK);
	struct graph_ir *copy = graph_clone(g);
	ASSERT(copy != NULL);
	ASSERT_MSG(tg_optimize(copy, impl, ctx, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ASSERT_MSG(impl->compile(ctx, copy, &plan, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	bool quick = impl->plan_quick(plan);
	impl->plan_destroy(plan);
	graph_destroy(copy);
	impl->context_destroy(ctx);
	return quick;
}

/* A melspectrogram's STFT as exported (conv1d of one channel with 257 DFT kernels of 512 taps,
 * stride 160, on 1760 samples), then relu through the epilogue; other strides (1, and wider than
 * the kernel), a bias, and cases the framed product does not take (padding, a short kernel):
 * each agrees with the reference backend. The STFT's products (work 2.1M, under
 * CPU_SERIAL_WORK) are made for one thread, so the plan may take the quick path. */
TEST_TIMEOUT(cpu_conv1d_one_channel_framed, 120)
{
	struct backend *be = sb_cpu(2), *dflt = NULL;
	struct wnn_diag diag = { 0 };
	struct backend_options opts = { .threads = 2 };
	/* the default CPU_SERIAL_WORK (sb_cpu sets 0: every step on the team) */
	if (!getenv("WEBNN_CPU_SERIAL_WORK"))
		ASSERT_MSG(backend_cpu.init(&opts, &dflt, &diag) == WEBNN_STATUS_OK, "cpu backend: %s",
			   diag.message);
	static const struct {
		uint32_t w, o, k, stride, pad;
		bool bias, relu;
	} cases[] = {
		{ 1760, 257, 512, 160, 0, false, false }, { 1760, 257, 512, 160, 0, true, true },
		{ 300, 40, 64, 1, 0, true, false },	  { 1000, 33, 100, 130, 0, false, true },
		{ 700, 20, 128, 64, 3, true, false },	  { 200, 16, 9, 2, 0, true, true },
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		struct tg_builder *b = tb_new();
		uint32_t x = tg_input(&b->t, WNN_F32, 4, (uint32_t[]){ 1, 1, 1, cases[c].w });
		uint32_t f = sb_const(b, 4, (uint32_t[]){ cases[c].o, 1, 1, cases[c].k }, -0.5, 0.5);
		uint32_t bias = cases[c].bias ? sb_const(b, 1, &cases[c].o, -1, 1) : GRAPH_NONE;
		uint32_t y = sb_conv1d(b, x, f, bias, cases[c].stride, cases[c].pad);
		if (cases[c].relu)
			tb_unary(b, WNN_OP_RELU, y);
		struct graph_ir *g = sb_finish(b);
		char label[96];
		snprintf(label, sizeof label, "conv1d W %u O %u K %u stride %u pad %u", cases[c].w,
			 cases[c].o, cases[c].k, cases[c].stride, cases[c].pad);
		sb_compare(be, g, -1, 1, 0, 1e-4, 1e-4, label);
		if (dflt) {
			sb_compare(dflt, g, -1, 1, 0, 1e-4, 1e-4, label);
			if (c < 2)
				ASSERT_MSG(sb_plan_quick(dflt, g), "%s: a step on the whole team",
					   label);
		}
		tb_free(b);
	}
	backend_cpu.shutdown(be);
	if (dflt)
		backend_cpu.shutdown(dflt);
}

/* A layer norm's tail as exported: |x| / std * gamma + beta, then relu, where gamma and beta
 * are [C] against [1, C] (a broadcast that is the identity): one chain step, against the
 * reference; an operand that really broadcasts ([C] against [4, C]) ends the chain there. */
TEST_TIMEOUT(graph_chain_side_operands_of_equal_count, 120)
{
	struct backend *be = sb_cpu(2);
	for (int k = 0; k < 2; k++) {
		struct tg_builder *b = tb_new();
		uint32_t rows = k == 0 ? 1 : 4, c = 32;
		uint32_t x = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ rows, c });
		uint32_t sd = tg_input(&b->t, WNN_F32, 2, (uint32_t[]){ 1, 1 });
		uint32_t y = tb_binary(b, WNN_OP_DIV, tb_unary(b, WNN_OP_ABS, x), sd);
		y = tb_binary(b, WNN_OP_MUL, y, sb_const(b, 1, &c, -2, 2));
		y = tb_binary(b, WNN_OP_ADD, sb_const(b, 1, &c, -1, 1), y);
		tb_unary(b, WNN_OP_RELU, y);
		struct graph_ir *g = sb_finish(b);
		struct sb_shape s;
		sb_optimised(g, &s);
		if (k == 0)
			ASSERT_MSG(s.live == 1 && s.chains == 1, "[1, C]: %u steps, %u chains", s.live,
				   s.chains);
		else
			ASSERT_MSG(s.live > 1, "[4, C]: %u steps", s.live);
		sb_compare(be, g, 0.5, 2, 0, 0, 0, k == 0 ? "[1, C] chain" : "[4, C] chain");
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* ---- the mobile angle classifier end to end (libwebnn -> webnnd) */

struct ac_run {
	uint32_t kernels, operations;
	float out[2];
};

/* Builds the exported classifier on a fresh webnnd of the backend and runs one seeded input. */
static void ac_run(const char *backend, struct ac_run *r)
{
	const char *const args[] = { "--backend", backend, NULL };
	struct test_daemon d;
	test_daemon_start(&d, args);
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	char err[512] = "";
	co.socket_path = d.socket_path;
	struct model m = { 0 };
	enum webnn_status st = webnn_context_create(&co, &m.ctx, err, sizeof err);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "context: %s: %s", webnn_status_name(st), err);
	MODEL_OK(m.ctx, webnn_builder_create(m.ctx, &m.b), "builder");
	struct webnn_operand_desc id = { WEBNN_FLOAT32, 4, { 1, 3, 48, 192 } };
	struct webnn_operand *x;
	MODEL_OK(m.ctx, webnn_builder_input(m.b, "x", &id, &x), "input");
	struct webnn_named_operand out = { "y", model_angle_classifier(&m, x, true) };
	struct webnn_graph *g;
	MODEL_OK(m.ctx, webnn_builder_build(m.b, &out, 1, &g), "build");
	webnn_builder_destroy(m.b);
	struct webnn_graph_stats gs = WEBNN_GRAPH_STATS_INIT;
	MODEL_OK(m.ctx, webnn_graph_get_stats(g, &gs), "stats");
	r->kernels = gs.kernels;
	r->operations = gs.operations;
	size_t n = 3 * 48 * 192;
	float *in = malloc(n * sizeof *in);
	ASSERT(in);
	tg_random(in, WNN_F32, n, 7, 0, 1);
	struct webnn_tensor_desc tin = { id, false, true }, tout = { { WEBNN_FLOAT32, 2, { 1, 2 } },
								     true, false };
	struct webnn_tensor *ti, *to;
	MODEL_OK(m.ctx, webnn_context_create_tensor(m.ctx, &tin, &ti), "input tensor");
	MODEL_OK(m.ctx, webnn_context_create_tensor(m.ctx, &tout, &to), "output tensor");
	MODEL_OK(m.ctx, webnn_context_write_tensor(m.ctx, ti, in, n * sizeof *in), "write");
	struct webnn_named_tensor bi = { "x", ti }, bo = { "y", to };
	MODEL_OK(m.ctx, webnn_context_dispatch(m.ctx, g, &bi, 1, &bo, 1), "dispatch");
	MODEL_OK(m.ctx, webnn_context_read_tensor(m.ctx, to, r->out, sizeof r->out), "read");
	free(in);
	webnn_tensor_destroy(ti);
	webnn_tensor_destroy(to);
	webnn_graph_destroy(g);
	webnn_context_destroy(m.ctx);
	test_daemon_stop(&d);
}

/* 35 conv + batchNormalization + hard-swish (in four operations) pairs, as the classifier of
 * issue 19 is exported: on the cpu backend every normalization folds into its conv, every
 * hard-swish is one chain step, and the only transposes are the input's (NCHW to NHWC) and the
 * pooled features' (before the reshape, which reads the client's layout). */
TEST_TIMEOUT(small_graphs_angle_classifier, 300)
{
	struct ac_run cpu, ref;
	ac_run("cpu", &cpu);
	ac_run("reference", &ref);
	/* conv, batchNormalization, add, clamp, mul, div per pair; pool, reshape, gemm, softmax */
	ASSERT_EQ(cpu.operations, 6u * MODEL_ANGLE_CONVS + 4);
	/* a conv and a chain per pair; two transposes; pool, reshape, gemm, softmax */
	ASSERT_EQ(cpu.kernels, 2u * MODEL_ANGLE_CONVS + 2 + 4);
	printf("  cpu: %u steps for %u operations; p = %.6f %.6f (reference %.6f %.6f)\n",
	       cpu.kernels, cpu.operations, cpu.out[0], cpu.out[1], ref.out[0], ref.out[1]);
	for (int k = 0; k < 2; k++)
		ASSERT_MSG(fabsf(cpu.out[k] - ref.out[k]) <= 1e-5f + 1e-4f * fabsf(ref.out[k]),
			   "class %d: cpu %.9g, reference %.9g", k, cpu.out[k], ref.out[k]);
}

/* The same graph on the OpenCL backend, which folds the normalizations the same way. */
TEST_TIMEOUT(small_graphs_angle_classifier_opencl, 600)
{
	if (!test_have_opencl())
		SKIP("no OpenCL platform");
	struct ac_run ocl, ref;
	ac_run("opencl", &ocl);
	ac_run("reference", &ref);
	printf("  opencl: %u steps for %u operations\n", ocl.kernels, ocl.operations);
	/* as on the cpu backend: a conv and a chain per pair, two transposes, the head */
	ASSERT_EQ(ocl.kernels, 2u * MODEL_ANGLE_CONVS + 2 + 4);
	for (int k = 0; k < 2; k++)
		ASSERT_MSG(fabsf(ocl.out[k] - ref.out[k]) <= 1e-5f + 1e-4f * fabsf(ref.out[k]),
			   "class %d: opencl %.9g, reference %.9g", k, ocl.out[k], ref.out[k]);
}
