/* Reference backend as a whole (plans, evaluation, support, resolve) and cases spanning several families. */
#include <math.h>

#include "daemon/backend/host/kernels.h"
#include "tests/reftest.h"
#include "tests/test.h"

/* ---- graphs, support and errors */

TEST(reference_chain_of_operations_with_intermediate_and_two_outputs)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(2, 2));
	uint32_t s = rt_binary(&t, WNN_OP_ADD, a, a);
	uint32_t r = rt_unary(&t, WNN_OP_RELU, s);
	uint32_t p = rt_binary(&t, WNN_OP_MUL, r, a);
	tg_output(&t, p);
	tg_output(&t, s);
	void **outs = rt_run(&t, INS(D(1, -2, 3, -4)));
	rt_check(&t, outs, 0, D(2, 0, 18, 0), 0, 0);
	rt_check(&t, outs, 1, D(2, -4, 6, -8), 0, 0);
	tg_free(&t);
}

/* ---- plans over the graph IR and single-node evaluation */

TEST(reference_compile_needs_an_optimised_graph_and_reuses_plan_buffers)
{
	struct tg_graph t;
	struct wnn_diag diag = { 0 };
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(4));
	uint32_t v = x;
	for (int i = 0; i < 5; i++) /* neg five times: intermediates alternate two buffers */
		v = rt_unary(&t, WNN_OP_NEG, v);
	uint32_t o = rt_binary(&t, WNN_OP_MUL, v, x);
	tg_output(&t, o);
	tg_output(&t, o); /* bound twice: written once, copied */
	static char second[] = "again";
	t.out_named[1]->name = second;
	const struct graph_ir *g = tg_finish(&t, &diag);
	ASSERT_MSG(g, "%s", diag.message);
	struct backend *be;
	struct backend_context *ctx;
	struct backend_plan *plan;
	struct backend_context_options opts = { 0 };
	ASSERT_EQ(backend_reference.init(NULL, &be, &diag), WEBNN_STATUS_OK);
	ASSERT_EQ(backend_reference.context_create(be, &opts, &ctx, &diag), WEBNN_STATUS_OK);
	ASSERT_EQ(backend_reference.compile(ctx, g, &plan, &diag), WEBNN_STATUS_OPERATION_ERROR);
	ASSERT_CONTAINS(diag.message, "reference: graph was not optimised");
	wnn_diag_clear(&diag);
	ASSERT_EQ(tg_optimize(t.ir, &backend_reference, ctx, &diag), WEBNN_STATUS_OK);
	ASSERT_EQ(g->plan.n_buffers, 2u);
	for (uint32_t i = 0; i < g->n_nodes; i++)
		ASSERT(g->nodes[i].state == GRAPH_NODE_LIVE);
	backend_reference.context_destroy(ctx);
	backend_reference.shutdown(be);
	float in[4] = { 1, -2, 3.5f, 0 }, out0[4], out1[4];
	ASSERT_EQ(tg_run(&backend_reference, NULL, g, (const void *const[]){ in },
			 (void *const[]){ out0, out1 }, &diag), WEBNN_STATUS_OK);
	const float want[4] = { -1, -4, -12.25f, 0 }; /* -x * x */
	for (int i = 0; i < 4; i++)
		ASSERT(out0[i] == want[i] && out1[i] == want[i]);
	tg_free(&t);
}

/* Calls hk_evaluate on node k of g with inputs given in order. */
static enum webnn_status evaluate_node(const struct graph_ir *g, uint32_t k,
				       const void *const *inputs, void *const *outputs,
				       struct wnn_diag *diag)
{
	return hk_evaluate(&g->nodes[k], g->values, inputs, outputs, NULL, diag);
}

TEST(reference_host_evaluator_runs_one_node_on_host_memory)
{
	struct tg_graph t;
	struct wnn_diag diag = { 0 };
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(2, 3));
	uint32_t b = tg_input(&t, WNN_F32, SHAPE(3));
	uint32_t s = rt_binary(&t, WNN_OP_SUB, a, b);
	Webnn__Ipc__Split *sp = MSG(Webnn__Ipc__Split, WEBNN__IPC__SPLIT__INIT);
	sp->input = s, sp->axis = 1;
	LIST(sp, sizes, 1, 2);
	LIST(sp, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_SPLIT, sp);
	uint32_t c = tg_input(&t, WNN_I32, SHAPE(2));
	Webnn__Ipc__Concat *cm = MSG(Webnn__Ipc__Concat, WEBNN__IPC__CONCAT__INIT);
	LIST(cm, inputs, c, c, c);
	cm->axis = 0, cm->output = tg_next(&t);
	uint32_t cat = rt_op(&t, WNN_OP_CONCAT, cm);
	tg_output(&t, sp->outputs[0]);
	tg_output(&t, sp->outputs[1]);
	tg_output(&t, cat);
	const struct graph_ir *g = tg_finish(&t, &diag);
	ASSERT(g && g->n_nodes == 3);

	/* broadcast binary */
	float av[6] = { 1, 2, 3, 4, 5, 6 }, bv[3] = { 1, 1, 2 }, sv[6] = { 0 };
	ASSERT_EQ(evaluate_node(g, 0, (const void *const[]){ av, bv }, (void *const[]){ sv }, &diag),
		  WEBNN_STATUS_OK);
	const float want_s[6] = { 0, 1, 1, 3, 4, 4 };
	ASSERT(memcmp(sv, want_s, sizeof(sv)) == 0);
	/* two outputs */
	float o0[2] = { 0 }, o1[4] = { 0 };
	ASSERT_EQ(evaluate_node(g, 1, (const void *const[]){ sv }, (void *const[]){ o0, o1 }, &diag),
		  WEBNN_STATUS_OK);
	ASSERT(o0[0] == 0 && o0[1] == 3);
	ASSERT(o1[0] == 1 && o1[1] == 1 && o1[2] == 4 && o1[3] == 4);
	/* the same value three times (concat reads its inputs' descriptors) */
	int32_t cv[2] = { 7, -9 }, co[6] = { 0 };
	ASSERT_EQ(evaluate_node(g, 2, (const void *const[]){ cv, cv, cv }, (void *const[]){ co },
				&diag), WEBNN_STATUS_OK);
	for (int i = 0; i < 6; i++)
		ASSERT_EQ(co[i], i % 2 ? -9 : 7);
	ASSERT(b == 1 && s == 2); /* ids as the graph's values */
	tg_free(&t);
}

TEST(reference_supports_exactly_what_it_implements)
{
	bool (*sup)(struct backend *, enum wnn_op, enum wnn_dtype) = backend_reference.supports;
	ASSERT(sup(NULL, WNN_OP_ADD, WNN_F32) && sup(NULL, WNN_OP_ADD, WNN_I64));
	ASSERT(sup(NULL, WNN_OP_ADD, WNN_F16) && sup(NULL, WNN_OP_DIV, WNN_U8));
	ASSERT(sup(NULL, WNN_OP_POW, WNN_I32));         /* integer pow: a loop in kernels_elementwise.c */
	ASSERT(!sup(NULL, WNN_OP_LOGICAL_AND, WNN_F32)); /* uint8 only */
	ASSERT(!sup(NULL, WNN_OP_ABS, WNN_U32));
	ASSERT(sup(NULL, WNN_OP_ABS, WNN_I8) && sup(NULL, WNN_OP_GELU, WNN_F16));
	ASSERT(!sup(NULL, WNN_OP_EXP, WNN_I32));
	ASSERT(sup(NULL, WNN_OP_CLAMP, WNN_U64) && sup(NULL, WNN_OP_IDENTITY, WNN_I8));
	ASSERT(sup(NULL, WNN_OP_CONV2D, WNN_F16) && !sup(NULL, WNN_OP_CONV2D, WNN_I32));
	ASSERT(sup(NULL, WNN_OP_MAX_POOL2D, WNN_U8) && !sup(NULL, WNN_OP_AVERAGE_POOL2D, WNN_I32));
	ASSERT(sup(NULL, WNN_OP_L2_POOL2D, WNN_F32) && sup(NULL, WNN_OP_GEMM, WNN_F16));
	ASSERT(sup(NULL, WNN_OP_MATMUL, WNN_F32) && !sup(NULL, WNN_OP_MATMUL, WNN_I32));
	ASSERT(sup(NULL, WNN_OP_TRANSPOSE, WNN_U64) && sup(NULL, WNN_OP_CONCAT, WNN_I8));
	ASSERT(sup(NULL, WNN_OP_RESHAPE, WNN_I64) && sup(NULL, WNN_OP_SOFTMAX, WNN_F16));
	ASSERT(sup(NULL, WNN_OP_BATCH_NORMALIZATION, WNN_F32));
	ASSERT(sup(NULL, WNN_OP_CAST, WNN_F32) && sup(NULL, WNN_OP_GATHER, WNN_F32));
	ASSERT(!sup(NULL, WNN_OP_ADD, WNN_DT_NONE) && !sup(NULL, WNN_OP_COUNT, WNN_F32));
	/* every elementwise operator has at least one supported type */
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		uint32_t fam = wnn_ops[op].attrs;
		if (fam != WEBNN__IPC__OPERATION__ATTRS_BINARY && fam != WEBNN__IPC__OPERATION__ATTRS_UNARY)
			continue;
		bool any = false;
		for (int ty = 1; ty < WNN_DT_COUNT; ty++)
			any |= sup(NULL, (enum wnn_op)op, (enum wnn_dtype)ty);
		ASSERT_MSG(any, "%s has no supported type", wnn_ops[op].name);
	}
}

TEST(reference_unsupported_operation_and_bad_sizes_fail_clearly)
{
	struct tg_graph t;
	struct wnn_diag diag = { 0 };
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2));
	Webnn__Ipc__Cast ci = WEBNN__IPC__CAST__INIT, *cm = rt_arena(sizeof(*cm));
	*cm = ci;
	cm->input = x, cm->output = tg_next(&t), cm->data_type = WEBNN__IPC__DATA_TYPE__INT32;
	rt_op(&t, WNN_OP_CAST, cm);
	const struct graph_ir *g = tg_finish(&t, &diag);
	ASSERT(g);
	float in[2] = { 1, 2 };
	int32_t out[2];
	/* every operator is implemented now: cast runs (inconsistent operations are rejected
	 * when they are resolved: reference_resolve_rejects_inconsistent_operations) */
	ASSERT_EQ(tg_run(&backend_reference, NULL, g, (const void *const[]){ in },
			 (void *const[]){ out }, &diag), WEBNN_STATUS_OK);
	ASSERT(out[0] == 1 && out[1] == 2);
	tg_free(&t);

	struct backend *be;
	struct backend_context *ctx;
	struct backend_tensor *ten;
	struct backend_context_options opts = { 0 };
	struct backend_device_info info;
	wnn_diag_clear(&diag);
	ASSERT_EQ(backend_reference.init(NULL, &be, &diag), WEBNN_STATUS_OK);
	ASSERT_EQ(backend_reference.context_create(be, &opts, &ctx, &diag), WEBNN_STATUS_OK);
	backend_reference.context_info(ctx, &info);
	ASSERT_STREQ(info.device_type, "cpu");
	ASSERT(!info.accelerated);
	struct wnn_desc d = { .type = WNN_F32, .rank = 1, .dims = { 4 } };
	ASSERT_EQ(backend_reference.tensor_create(ctx, &d, &ten, &diag), WEBNN_STATUS_OK);
	float zeros[4] = { 1, 1, 1, 1 };
	ASSERT_EQ(backend_reference.tensor_read(ten, zeros, sizeof(zeros), &diag), WEBNN_STATUS_OK);
	ASSERT(zeros[0] == 0 && zeros[3] == 0); /* new tensors read as zeros */
	ASSERT_EQ(backend_reference.tensor_write(ten, zeros, 8, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "8 bytes");
	backend_reference.tensor_destroy(ten);
	backend_reference.context_destroy(ctx);
	backend_reference.shutdown(be);
}

TEST(reference_resolve_defaults)
{
	/* pool window defaults to the spatial size; conv strides/dilations to 1; gemm alpha/beta 1 */
	struct wnn_desc descs[3] = { { .type = WNN_F32, .rank = 4, .dims = { 1, 3, 4, 5 } },
				     { .type = WNN_F32, .rank = 4, .dims = { 1, 3, 1, 1 } } };
	Webnn__Ipc__Pool2d pm = WEBNN__IPC__POOL2D__INIT;
	pm.input = 0, pm.output = 1;
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_L2_POOL2D, &pm);
	union wnn_attrs ra;
	enum wnn_op rk;
	struct wnn_diag diag = { 0 };
	ASSERT_EQ(wnn_resolve(&op, descs, 2, &rk, &ra, &diag), WEBNN_STATUS_OK);
	const struct wnn_pool2d_attrs pp = ra.pool2d;
	ASSERT(pp.kind == WNN_POOL_L2 && pp.win_h == 4 && pp.win_w == 5 && pp.stride_h == 1 &&
	       pp.dil_w == 1 && pp.out_h == 1 && pp.out_w == 1 && !pp.nhwc);

	Webnn__Ipc__ElementwiseUnary um = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	um.input = 0, um.output = 1;
	descs[1] = descs[0];
	tg_set_op(&op, WNN_OP_HARD_SIGMOID, &um);
	ASSERT_EQ(wnn_resolve(&op, descs, 2, &rk, &ra, &diag), WEBNN_STATUS_OK);
	ASSERT(ra.unary.alpha == (double)0.2f && ra.unary.beta == 0.5);
	tg_set_op(&op, WNN_OP_LEAKY_RELU, &um);
	ASSERT_EQ(wnn_resolve(&op, descs, 2, &rk, &ra, &diag), WEBNN_STATUS_OK);
	ASSERT(ra.unary.alpha == (double)0.01f);

	/* a mismatched attrs member is refused, naming the operator */
	tg_set_op(&op, WNN_OP_RELU, &um);
	op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_BINARY;
	ASSERT_EQ(wnn_resolve(&op, descs, 2, &rk, &ra, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "relu");
	wnn_diag_clear(&diag);
	tg_set_op(&op, WNN_OP_RELU, &um);
	um.input = 7;
	ASSERT_EQ(wnn_resolve(&op, descs, 2, &rk, &ra, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "relu: input operand id 7");
}

/* ---- literal WPT conformance cases (../shared/conformance), copied so this file stands alone */

/* gemm.json: "gemm two float32 2D tensors broadcast options.c [3, 1] => [3, 5]"
 * (tolerance ULP 9) */
static const double cf_gemm_inputA[] = {
	82.98884582519531, 90.51641082763672, 59.638519287109375, 36.271873474121094,
	18.9648494720459, 43.89479446411133, 98.89488220214844, 91.46013641357422,
	50.51683807373047, 40.45679473876953, 50.76741409301758, 9.336554527282715
};
static const double cf_gemm_inputB[] = {
	25.14739227294922, 66.6923828125, 63.29909896850586, 10.629964828491211, 61.32737731933594,
	0.0037256532814353704, 16.4991455078125, 3.036668062210083, 93.14022064208984,
	70.08265686035156, 75.74880981445312, 96.60688018798828, 99.10041809082031,
	23.2437744140625, 86.11856842041016, 42.90679168701172, 34.08055114746094,
	87.37654876708984, 92.34209442138672, 60.32209014892578
};
static const double cf_gemm_inputC[] = {
	6.20251989364624, 81.40641784667969, 73.00516510009766
};
static const double cf_gemm_out[] = {
	8167.349609375, 14032.0263671875, 14613.703125, 14054.734375, 18763.30078125,
	11973.9169921875, 14741.3818359375, 19207.154296875, 15115.68359375, 18354.486328125,
	5589.6953125, 9332.2724609375, 9240.3974609375, 6420.33544921875, 10941.607421875
};

/* matmul.json: "matmul float32 3D and 3D (broadcast) tensors"
 * (tolerance ULP 8) */
static const double cf_matmul_inputA[] = {
	56.46701431274414, 99.86045837402344, 71.054931640625, 32.454383850097656,
	17.310747146606445, 2.586275100708008, 92.31499481201172, 96.9758529663086,
	26.472131729125977, 77.67031860351562, 29.278789520263672, 82.12142181396484,
	89.89308166503906, 82.49795532226562, 64.36865997314453, 23.75928497314453,
	6.670266628265381, 81.55583190917969, 16.142963409423828, 57.45134735107422,
	26.826417922973633, 85.02970123291016, 36.1988639831543, 89.60960388183594
};
static const double cf_matmul_inputB[] = {
	27.829805374145508, 83.1454849243164, 34.41289520263672, 83.20379638671875
};
static const double cf_matmul_out[] = {
	15019.9462890625, 11942.376953125, 15035.0322265625, 13553.013671875, 12302.328125,
	16517.9765625
};

/* softmax.json: "softmax float32 3D constant tensor"
 * (tolerance ULP 12) */
static const double cf_softmax_softmaxInput[] = {
	0.4301910996437073, 0.5471914410591125, -1.1637765169143677, 0.18390046060085297,
	0.583903968334198, 0.17356790602207184, 0.5397239923477173, -0.9535139799118042,
	-0.5920282602310181, -0.17344485223293304, 0.14395014941692352, -0.37920907139778137
};
static const double cf_softmax_out[] = {
	0.39589041471481323, 0.45983806252479553, 0.09812675416469574, 0.529077410697937,
	0.4616699814796448, 0.31647709012031555, 0.5390242338180542, 0.16964708268642426,
	0.142439603805542, 0.22368484735488892, 0.36284899711608887, 0.3012755215167999
};

/* batch_normalization.json: "batchNormalization float32 4D NHWC tensor all options"
 * (tolerance ULP 6) */
static const double cf_bn_bnInput[] = {
	-41.30733108520508, 83.02227020263672, -40.90216064453125, 64.08863830566406,
	-80.08049011230469, 56.96306228637695, -63.376670837402344, -62.144378662109375,
	37.37249755859375, -46.790367126464844, -0.10012771934270859, 57.046478271484375,
	82.05680084228516, -21.35103988647461, -85.36802673339844, -86.1164321899414,
	-96.93824005126953, 62.35185241699219, 76.8831787109375, -9.359310150146484,
	-68.4724349975586, 97.03362274169922, 80.20824432373047, -12.10716724395752
};
static const double cf_bn_bnMean[] = {
	51.629150390625, 99.36075592041016, -96.1473617553711
};
static const double cf_bn_bnVariance[] = {
	30.448015213012695, 86.36219024658203, 73.88455200195312
};
static const double cf_bn_bnScale[] = {
	65.50171661376953, -71.007568359375, -5.569730758666992
};
static const double cf_bn_bnBias[] = {
	64.2044677734375, 75.28591918945312, -84.57243347167969
};
static const double cf_bn_out[] = {
	-1039.0085734071204, 200.12613597546277, -120.36987167541395, 212.10626540432202,
	1446.3732126569944, -183.78396479879416, -1300.9852072279227, 1309.3257094058545,
	-171.08979404258523, -1104.0956031373803, 835.2536189871761, -183.83801576309426,
	425.3993215144054, 997.6290832897452, -91.55716013805052, -1570.920072497096,
	1575.1810627320297, -187.2757593197739, 363.98524710447384, 906.0018322105,
	-102.5050592863526, 603.1834043179756, 221.6277675074517, -139.02827100419768
};

/* l2Pool2d.json: "l2Pool2d float32 4D tensor options.outputShapeRounding=ceil with asymmetric window"
 * (tolerance ULP 8) */
static const double cf_l2pool_l2Pool2dInput[] = {
	3.0, 3.0, 3.0, 3.0, 1.0, 4.0, 4.0, 4.0, 4.0, 2.0, 5.0, 5.0, 5.0, 5.0, 2.0, 3.0, 3.0, 3.0,
	3.0, 2.0, 4.0, 4.0, 4.0, 4.0, 1.0
};
static const double cf_l2pool_out[] = {
	10.0, 10.0, 3.0, 10.0, 10.0, 3.0
};

/* averagePool2d.json: "averagePool2d float16 4D tensor options.padding"
 * (tolerance ULP 27) */
static const double cf_avgpool16_averagePool2dInput[] = {
	22.96875, 78.125, 9.6875, 51.3125, 32.1875, 87.625, 87.25, 39.5, 80.125, 10.21875, 52.59375,
	1.4130859375, 11.953125, 85.0, 64.8125, 88.0625, 11.3359375, 70.625, 84.875, 79.0625,
	7.328125, 35.96875, 10.1796875, 1.4140625, 78.125, 91.625, 65.625, 55.15625, 18.4375,
	49.34375, 15.6484375, 68.0, 20.34375, 26.734375, 64.875, 46.5625, 79.5625, 4.33984375,
	38.1875, 45.25, 81.0, 67.5625, 6.02734375, 29.78125, 58.59375, 2.23828125, 14.5078125,
	68.75, 76.4375, 23.53125
};
static const double cf_avgpool16_out[] = {
	52.4375, 49.84375, 47.28125, 46.15625, 46.625, 43.625, 44.71875, 44.0625
};
static const uint16_t cf_avgpool16_bits[] = {
	21134, 21051, 20969, 20933, 20948, 20852, 20887, 20866
};

TEST(reference_conformance_gemm_matmul_softmax)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(3, 4)), b = tg_input(&t, WNN_F32, SHAPE(4, 5));
	uint32_t c = tg_input(&t, WNN_F32, SHAPE(3, 1));
	Webnn__Ipc__Gemm *m = rt_gemm_msg(&t, a, b);
	m->has_c = true, m->c = c;
	rt_op(&t, WNN_OP_GEMM, m);
	rt_expect(&t, INS(cf_gemm_inputA, cf_gemm_inputB, cf_gemm_inputC), cf_gemm_out, 9);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 3, 4));
	b = tg_input(&t, WNN_F32, SHAPE(1, 4, 1));
	uint32_t o = rt_matmul(&t, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 3, 1));
	rt_expect(&t, INS(cf_matmul_inputA, cf_matmul_inputB), cf_matmul_out, 8);
	tg_free(&t);

	tg_init(&t);
	uint32_t x = rt_constant(&t, WNN_F32, SHAPE(1, 3, 4), cf_softmax_softmaxInput);
	rt_softmax(&t, x, 1);
	rt_expect(&t, INS(NULL), cf_softmax_out, 12);
	tg_free(&t);
}

TEST(reference_conformance_batchnorm_and_pools)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 2, 2, 3));
	uint32_t mean = tg_input(&t, WNN_F32, SHAPE(3)), var = tg_input(&t, WNN_F32, SHAPE(3));
	uint32_t scale = tg_input(&t, WNN_F32, SHAPE(3)), bias = tg_input(&t, WNN_F32, SHAPE(3));
	Webnn__Ipc__BatchNormalization *m = rt_bn_msg(&t, x, mean, var);
	m->has_scale = true, m->scale = scale, m->has_bias = true, m->bias = bias;
	m->axis = 3, m->epsilon = 1e-6;
	rt_op(&t, WNN_OP_BATCH_NORMALIZATION, m);
	rt_expect(&t, INS(cf_bn_bnInput, cf_bn_bnMean, cf_bn_bnVariance, cf_bn_bnScale, cf_bn_bnBias),
	       cf_bn_out, 6);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
	Webnn__Ipc__Pool2d *p = rt_pool_msg(&t, x);
	LIST(p, window_dimensions, 3, 2);
	LIST(p, strides, 2, 2);
	p->output_shape_rounding = WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
	uint32_t o = rt_pool(&t, WNN_OP_L2_POOL2D, p);
	rt_expect_shape(&t, o, SHAPE(1, 1, 2, 3));
	rt_expect(&t, INS(cf_l2pool_l2Pool2dInput), cf_l2pool_out, 8);
	tg_free(&t);

	/* float16: compared on the expected half bit patterns with WPT's 27 ULP */
	tg_init(&t);
	x = tg_input(&t, WNN_F16, SHAPE(1, 2, 5, 5));
	p = rt_pool_msg(&t, x);
	LIST(p, padding, 1, 0, 0, 1);
	o = rt_pool(&t, WNN_OP_AVERAGE_POOL2D, p);
	rt_expect_shape(&t, o, SHAPE(1, 2, 2, 2));
	void **outs = rt_run(&t, INS(cf_avgpool16_averagePool2dInput));
	char msg[256];
	if (!tg_compare(outs[0], cf_avgpool16_bits, WNN_F16, 8, 27, 0, 0, msg, sizeof(msg)))
		FAIL("%s", msg);
	(void)cf_avgpool16_out;
	tg_free(&t);
}

TEST(reference_triangular_where_prelu)
{
	const double in[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	const struct {
		bool upper;
		int diag;
		double want[9];
	} cases[] = {
		{ true, 0, { 1, 2, 3, 0, 5, 6, 0, 0, 9 } },
		{ true, 1, { 0, 2, 3, 0, 0, 6, 0, 0, 0 } },
		{ false, 0, { 1, 0, 0, 4, 5, 0, 7, 8, 9 } },
		{ false, -1, { 0, 0, 0, 4, 0, 0, 7, 8, 0 } },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_I32, SHAPE(3, 3));
		Webnn__Ipc__Triangular *m = MSG(Webnn__Ipc__Triangular, WEBNN__IPC__TRIANGULAR__INIT);
		m->input = x, m->output = tg_next(&t);
		m->upper = cases[k].upper, m->diagonal = cases[k].diag;
		rt_op(&t, WNN_OP_TRIANGULAR, m);
		rt_expect(&t, INS(in), cases[k].want, 0);
		tg_free(&t);
	}

	struct tg_graph t;
	tg_init(&t);
	uint32_t c = tg_input(&t, WNN_U8, SHAPE(2, 1));
	uint32_t tv = tg_input(&t, WNN_F32, SHAPE(3));
	uint32_t fv = rt_constant(&t, WNN_F32, SHAPE(1), D(-1));
	Webnn__Ipc__Where *w = MSG(Webnn__Ipc__Where, WEBNN__IPC__WHERE__INIT);
	w->condition = c, w->true_value = tv, w->false_value = fv, w->output = tg_next(&t);
	uint32_t o = rt_op(&t, WNN_OP_WHERE, w);
	rt_expect_shape(&t, o, SHAPE(2, 3));
	rt_expect(&t, INS(D(0, 7), D(1, 2, 3)), D(-1, -1, -1, 1, 2, 3), 0);
	tg_free(&t);

	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_I32, SHAPE(2, 2));
	uint32_t sl = rt_constant(&t, WNN_I32, SHAPE(2), D(2, 3));
	Webnn__Ipc__Prelu *p = MSG(Webnn__Ipc__Prelu, WEBNN__IPC__PRELU__INIT);
	p->input = x, p->slope = sl, p->output = tg_next(&t);
	rt_op(&t, WNN_OP_PRELU, p);
	rt_expect(&t, INS(D(-1, -2, 5, 0)), D(-2, -6, 5, 0), 0);
	tg_free(&t);
}

/* ---- support table and consistency checks */

TEST(reference_supports_every_operator_and_type_of_the_table)
{
	for (int op = 0; op < WNN_OP_COUNT; op++)
		for (int ty = 1; ty < WNN_DT_COUNT; ty++) {
			bool allowed = wnn_ops[op].dtypes & WNN_DT_BIT(ty);
			bool elementwise = wnn_ops[op].attrs == WNN_ATTRS_BINARY ||
					   wnn_ops[op].attrs == WNN_ATTRS_UNARY;
			if (!allowed || elementwise)
				continue;
			ASSERT_MSG(backend_reference.supports(NULL, (enum wnn_op)op, (enum wnn_dtype)ty),
				   "%s %s", wnn_ops[op].name, wnn_dtype_name((enum wnn_dtype)ty));
		}
	ASSERT(backend_reference.supports(NULL, WNN_OP_POW, WNN_U64));
	ASSERT(!backend_reference.supports(NULL, WNN_OP_GRU, WNN_I32));
}

TEST(reference_resolve_rejects_inconsistent_operations)
{
	/* resolved once in proto/ before any backend sees the node */
	struct wnn_diag diag = { 0 };
	enum wnn_op kind;
	union wnn_attrs attrs;
	/* gather whose output shape does not match (validated graphs never get here) */
	struct wnn_desc descs[3] = { { .type = WNN_F32, .rank = 2, .dims = { 2, 3 } },
				     { .type = WNN_I32, .rank = 1, .dims = { 4 } },
				     { .type = WNN_F32, .rank = 2, .dims = { 2, 5 } } };
	Webnn__Ipc__Gather gm = WEBNN__IPC__GATHER__INIT;
	gm.input = 0, gm.indices = 1, gm.output = 2, gm.axis = 1;
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_GATHER, &gm);
	ASSERT_EQ(wnn_resolve(&op, descs, 3, &kind, &attrs, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "gather: output (operand 2) is float32 [2, 5], expected float32 [2, 4]");
	/* attrs of another family */
	wnn_diag_clear(&diag);
	op.op = wnn_ops[WNN_OP_SCATTER_ND].id;
	ASSERT(wnn_resolve(&op, descs, 3, &kind, &attrs, &diag) != WEBNN_STATUS_OK);
	ASSERT_CONTAINS(diag.message, "scatterND");
	/* operand id out of range */
	wnn_diag_clear(&diag);
	op.op = wnn_ops[WNN_OP_GATHER].id;
	gm.indices = 7;
	ASSERT_EQ(wnn_resolve(&op, descs, 3, &kind, &attrs, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "gather: indices operand id 7 is out of range");
	/* an rnn with a wrong weight size */
	wnn_diag_clear(&diag);
	struct wnn_desc rd[5] = { { .type = WNN_F32, .rank = 2, .dims = { 1, 2 } },
				  { .type = WNN_F32, .rank = 2, .dims = { 3, 3 } },
				  { .type = WNN_F32, .rank = 2, .dims = { 3, 1 } },
				  { .type = WNN_F32, .rank = 2, .dims = { 1, 1 } },
				  { .type = WNN_F32, .rank = 2, .dims = { 1, 1 } } };
	Webnn__Ipc__GruCell cm = WEBNN__IPC__GRU_CELL__INIT;
	cm.input = 0, cm.weight = 1, cm.recurrent_weight = 2, cm.hidden_state = 3, cm.output = 4;
	cm.hidden_size = 1;
	tg_set_op(&op, WNN_OP_GRU_CELL, &cm);
	ASSERT_EQ(wnn_resolve(&op, rd, 5, &kind, &attrs, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "gruCell: weight");
	/* wnn_wrap_index never leaves [0, n) */
	ASSERT_EQ(wnn_wrap_index(-1, 5), 4u);
	ASSERT_EQ(wnn_wrap_index(-6, 5), 0u);
	ASSERT_EQ(wnn_wrap_index(INT64_MIN, 5), 0u);
	ASSERT_EQ(wnn_wrap_index(INT64_MAX, 5), 4u);
	ASSERT_EQ(wnn_wrap_index(3, 5), 3u);
}

/* ---- literal WPT data copied from shared/conformance (BSD-3-Clause; see LICENSE.wpt.md there);
 * every operand is made a constant, graph inputs are covered by the families' tests */

/* resample2d.json: "resample2d(upsample) float32 4D tensor options.sizes options.mode='linear'" (tolerance ULP 84) */
/* float32 [1, 1, 2, 3] */
static const double cx_rs_linear_resample2dInput[] = {
	59.92947006225586, 41.98918914794922, 66.39534759521484, 90.7006607055664, 86.95105743408203,
	79.10005187988281
};
/* float32 [1, 1, 4, 6] */
static const double cx_rs_linear_resample2dOutput[] = {
	59.92947006225586, 55.444400787353516, 46.47425842285156, 48.090728759765625,
	60.29380798339844, 66.39534759521484, 67.62226867675781, 64.02411651611328, 56.82780838012695,
	57.31512451171875, 65.48605346679688, 69.57152557373047, 83.00786590576172, 81.18354797363281,
	77.534912109375, 75.76390838623047, 75.87055206298828, 75.92387390136719, 90.7006607055664,
	89.76325988769531, 87.88845825195312, 84.9883041381836, 81.06280517578125, 79.10005187988281
};

/* resample2d.json: "resample2d(upsample) float32 4D tensor options.axes=[1, 0]" (tolerance ULP 0) */
/* float32 [3, 2, 1, 1] */
static const double cx_rs_axes_resample2dInput[] = {
	59.92947006225586, 90.7006607055664, 41.98918914794922, 86.95105743408203, 66.39534759521484,
	79.10005187988281
};
/* float32 [6, 4, 1, 1] */
static const double cx_rs_axes_resample2dOutput[] = {
	59.92947006225586, 59.92947006225586, 90.7006607055664, 90.7006607055664, 59.92947006225586,
	59.92947006225586, 90.7006607055664, 90.7006607055664, 41.98918914794922, 41.98918914794922,
	86.95105743408203, 86.95105743408203, 41.98918914794922, 41.98918914794922, 86.95105743408203,
	86.95105743408203, 66.39534759521484, 66.39534759521484, 79.10005187988281, 79.10005187988281,
	66.39534759521484, 66.39534759521484, 79.10005187988281, 79.10005187988281
};

/* layer_normalization.json: "layerNormalization float32 4D tensor all options" (tolerance ULP 14) */
/* float32 [2, 1, 4, 3] */
static const double cx_ln_all_layerNormInput[] = {
	-35.51446533203125, 54.735408782958984, 19.659019470214844, -15.882678031921387,
	65.48657989501953, 25.818492889404297, 97.55302429199219, -8.057161331176758,
	62.9412956237793, -48.91555404663086, 91.90644073486328, 46.67098617553711,
	-74.85331726074219, 30.126361846923828, 26.13089370727539, 59.30270767211914,
	-60.361995697021484, 18.55615234375, -88.03730773925781, -26.5667724609375, 70.81292724609375,
	9.105611801147461, 56.66746139526367, 21.78444480895996
};
/* float32 [2, 3, 1] constant */
static const double cx_ln_all_layerNormScale[] = {
	7.715926647186279, 1.7371079921722412, 9.13965129852295, 5.758823394775391,
	-2.8198351860046387, -0.6866958141326904
};
/* float32 [2, 3, 1] constant */
static const double cx_ln_all_layerNormBias[] = {
	-8.710672378540039, -7.642981052398682, 4.937538146972656, -2.1876745223999023,
	-4.067612648010254, -6.836254596710205
};
/* float32 [2, 1, 4, 3] */
static const double cx_ln_all_layerNormOutput[] = {
	-15.487034797668457, -5.628695964813232, 8.29687786102295, -14.294686317443848,
	-5.639192581176758, 7.11608362197876, 0.7769554257392883, -8.346451759338379,
	11.279659271240234, -22.506288528442383, -5.173816204071045, 8.506545066833496,
	-12.360523223876953, -5.77052116394043, -7.18900203704834, 3.6336634159088135,
	0.8666883707046509, -6.884884357452393, -11.648612976074219, -2.117840528488159,
	-7.396423816680908, -4.869131088256836, -5.8111701011657715, -6.714934349060059
};

/* instance_normalization.json: "instanceNormalization float32 4D tensor all options" (tolerance ULP 840) */
/* float32 [2, 2, 2, 3] */
static const double cx_in_all_instanceNormInput[] = {
	-97.949951171875, 41.33772659301758, 35.82481384277344, 29.44037628173828, -59.77853012084961,
	-6.948329448699951, -73.92131042480469, -74.66901397705078, 54.42462158203125,
	-38.11185836791992, -68.16508483886719, 47.53074645996094, 66.93562316894531,
	37.37651062011719, 73.8739242553711, 76.74034881591797, 56.252689361572266,
	-99.00035095214844, 5.6758809089660645, -16.574905395507812, -33.11322784423828,
	25.68659210205078, 42.949893951416016, -17.380685806274414
};
/* float32 [3] constant */
static const double cx_in_all_instanceNormScale[] = {
	-94.42772674560547, 66.69620513916016, -98.56572723388672
};
/* float32 [3] constant */
static const double cx_in_all_instanceNormBias[] = {
	-33.048641204833984, 4.511423587799072, -37.93617248535156
};
/* float32 [2, 2, 2, 3] */
static const double cx_in_all_instanceNormOutput[] = {
	70.77738189697266, 119.31526184082031, -50.821895599365234, -179.65554809570312,
	-22.847837448120117, 126.01134490966797, 23.540178298950195, -43.782920837402344,
	-127.71744537353516, -46.8565788269043, -34.6388053894043, -99.2166976928711,
	-108.09159851074219, 22.237276077270508, -186.15142822265625, -139.83889770507812,
	67.60342407226562, 90.01669311523438, 90.26488494873047, -107.4271011352539,
	-15.238543510437012, 25.471038818359375, 35.6320915222168, -40.37141418457031
};

/* quantizeLinear.json: "quantizeLinear float32 3D tensor with implicit block_size = [1, 2, 1]." (tolerance ULP 1) */
/* float32 [1, 4, 1] */
static const double cx_q_block_quantizeLinearInput[] = {
	-2.549168109893799, -4.794857501983643, 8.413617134094238, 6.108623504638672
};
/* float32 [1, 2, 1] constant */
static const double cx_q_block_quantizeLinearScale[] = { 0.2800687253475189, 4.617084980010986 };
/* uint8 [1, 2, 1] constant */
static const double cx_q_block_quantizeLinearZeroPoint[] = { 128, 189 };
/* uint8 [1, 4, 1] */
static const double cx_q_block_quantizeLinearOutput[] = { 119, 111, 191, 190 };

/* dequantizeLinear.json: "dequantizeLinear int8 2D tensor with float32 2D scale, block_size = [3, 2]" (tolerance ULP 1) */
/* int8 [6, 4] */
static const double cx_dq_block_dequantizeLinearInput[] = {
	-124, 0, 23, 122, 12, 23, 45, 36, 67, 78, -22, 0, -34, -45, -56, -67, 89, 30, 12, 23, 56, 67,
	56, -12
};
/* float32 [2, 2] constant */
static const double cx_dq_block_dequantizeLinearScale[] = {
	0.2800687253475189, 4.617084980010986, 1.280068725347519, 3.617084980010986
};
/* int8 [2, 2] constant */
static const double cx_dq_block_dequantizeLinearZeroPoint[] = { 1, 3, 5, 12 };
/* float32 [6, 4] */
static const double cx_dq_block_dequantizeLinearOutput[] = {
	-35.00859069824219, -0.2800687253475189, 92.3416976928711, 549.43310546875,
	3.0807559490203857, 6.1615118980407715, 193.91757202148438, 152.36380004882812,
	18.484535217285156, 21.565292358398438, -115.4271240234375, -13.851255416870117,
	-49.92267990112305, -64.0034408569336, -245.96177673339844, -285.7497253417969,
	107.52577209472656, 32.0017204284668, 0, 39.787933349609375, 65.28350830078125,
	79.36426544189453, 159.1517333984375, -86.81004333496094
};

/* reduce_log_sum_exp.json: "reduceLogSumExp avoids overflows caused by taking the exp of large inputs" (tolerance ULP 20) */
/* float32 [1] */
static const double cx_lse_big_reduceLogSumExpInput[] = { 100 };
/* float32 [] */
static const double cx_lse_big_reduceLogSumExpOutput[] = { 100 };

/* cumulative_sum.json: "cumulativeSum with float32 input and set reversed to true." (tolerance ULP 3) */
/* float32 [1, 1, 3, 4] */
static const double cx_cs_rev_cumulativeSumInput[] = {
	60.42374038696289, -86.92247772216797, -19.496112823486328, -15.150615692138672,
	13.455190658569336, 45.433597564697266, 61.082862854003906, 70.71882629394531,
	-31.278579711914062, 56.08354187011719, 38.992767333984375, -3.27536940574646
};
/* float32 [1, 1, 3, 4] */
static const double cx_cs_rev_cumulativeSumOutput[] = {
	-61.1454659, -121.5692139, -34.6467285, -15.1506157, 190.6904907, 177.2352905, 131.8016968,
	70.7188263, 60.5223618, 91.8009415, 35.7173996, -3.2753694
};

/* pad.json: "pad float32 4D tensor options.mode='reflection'" (tolerance ULP 0) */
/* float32 [1, 3, 3, 1] */
static const double cx_pad_refl_padInput[] = {
	22.76361846923828, -21.168529510498047, -91.66168975830078, 16.863798141479492,
	60.51472091674805, -70.56755065917969, -60.643272399902344, -47.8821907043457,
	68.72557830810547
};
/* float32 [1, 7, 7, 1] */
static const double cx_pad_refl_padOutput[] = {
	68.72557830810547, -47.8821907043457, -60.643272399902344, -47.8821907043457,
	68.72557830810547, -47.8821907043457, -60.643272399902344, -70.56755065917969,
	60.51472091674805, 16.863798141479492, 60.51472091674805, -70.56755065917969,
	60.51472091674805, 16.863798141479492, -91.66168975830078, -21.168529510498047,
	22.76361846923828, -21.168529510498047, -91.66168975830078, -21.168529510498047,
	22.76361846923828, -70.56755065917969, 60.51472091674805, 16.863798141479492,
	60.51472091674805, -70.56755065917969, 60.51472091674805, 16.863798141479492,
	68.72557830810547, -47.8821907043457, -60.643272399902344, -47.8821907043457,
	68.72557830810547, -47.8821907043457, -60.643272399902344, -70.56755065917969,
	60.51472091674805, 16.863798141479492, 60.51472091674805, -70.56755065917969,
	60.51472091674805, 16.863798141479492, -91.66168975830078, -21.168529510498047,
	22.76361846923828, -21.168529510498047, -91.66168975830078, -21.168529510498047,
	22.76361846923828
};

TEST(reference_wpt_resample_and_normalization)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_rs_linear_resample2dInput, 1, 1, 2, 3);
	Webnn__Ipc__Resample2d *r = MSG(Webnn__Ipc__Resample2d, WEBNN__IPC__RESAMPLE2D__INIT);
	r->input = x, r->output = tg_next(&t), r->mode = WEBNN__IPC__INTERPOLATION_MODE__LINEAR;
	LIST(r, sizes, 4, 6);
	rt_op(&t, WNN_OP_RESAMPLE2D, r);
	rt_expect(&t, NULL, cx_rs_linear_resample2dOutput, 84);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_rs_axes_resample2dInput, 3, 2, 1, 1);
	r = MSG(Webnn__Ipc__Resample2d, WEBNN__IPC__RESAMPLE2D__INIT);
	r->input = x, r->output = tg_next(&t);
	LIST(r, sizes, 4, 6);
	LIST(r, axes, 1, 0);
	uint32_t o = rt_op(&t, WNN_OP_RESAMPLE2D, r);
	rt_expect_shape(&t, o, SHAPE(6, 4, 1, 1));
	rt_expect(&t, NULL, cx_rs_axes_resample2dOutput, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_ln_all_layerNormInput, 2, 1, 4, 3);
	uint32_t s = C(&t, WNN_F32, cx_ln_all_layerNormScale, 2, 3, 1);
	uint32_t b = C(&t, WNN_F32, cx_ln_all_layerNormBias, 2, 3, 1);
	Webnn__Ipc__LayerNormalization *l =
		MSG(Webnn__Ipc__LayerNormalization, WEBNN__IPC__LAYER_NORMALIZATION__INIT);
	l->input = x, l->output = tg_next(&t), l->epsilon = 0.0001, l->has_axes = true;
	l->has_scale = true, l->scale = s, l->has_bias = true, l->bias = b;
	LIST(l, axes, 0, 3, 1);
	rt_op(&t, WNN_OP_LAYER_NORMALIZATION, l);
	rt_expect(&t, NULL, cx_ln_all_layerNormOutput, 14);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_in_all_instanceNormInput, 2, 2, 2, 3);
	s = C(&t, WNN_F32, cx_in_all_instanceNormScale, 3);
	b = C(&t, WNN_F32, cx_in_all_instanceNormBias, 3);
	Webnn__Ipc__InstanceNormalization *in =
		MSG(Webnn__Ipc__InstanceNormalization, WEBNN__IPC__INSTANCE_NORMALIZATION__INIT);
	in->input = x, in->output = tg_next(&t), in->epsilon = 1e-6;
	in->has_scale = true, in->scale = s, in->has_bias = true, in->bias = b;
	in->layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	rt_op(&t, WNN_OP_INSTANCE_NORMALIZATION, in);
	rt_expect(&t, NULL, cx_in_all_instanceNormOutput, 840);
	tg_free(&t);
}

TEST(reference_wpt_quantize_reduce_cumsum_pad)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_q_block_quantizeLinearInput, 1, 4, 1);
	uint32_t s = C(&t, WNN_F32, cx_q_block_quantizeLinearScale, 1, 2, 1);
	uint32_t z = C(&t, WNN_U8, cx_q_block_quantizeLinearZeroPoint, 1, 2, 1);
	Webnn__Ipc__QuantizeLinear *q =
		MSG(Webnn__Ipc__QuantizeLinear, WEBNN__IPC__QUANTIZE_LINEAR__INIT);
	q->input = x, q->scale = s, q->zero_point = z, q->output = tg_next(&t);
	rt_op(&t, WNN_OP_QUANTIZE_LINEAR, q);
	rt_expect(&t, NULL, cx_q_block_quantizeLinearOutput, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_I8, cx_dq_block_dequantizeLinearInput, 6, 4);
	s = C(&t, WNN_F32, cx_dq_block_dequantizeLinearScale, 2, 2);
	z = C(&t, WNN_I8, cx_dq_block_dequantizeLinearZeroPoint, 2, 2);
	q = MSG(Webnn__Ipc__QuantizeLinear, WEBNN__IPC__QUANTIZE_LINEAR__INIT);
	q->input = x, q->scale = s, q->zero_point = z, q->output = tg_next(&t);
	rt_op(&t, WNN_OP_DEQUANTIZE_LINEAR, q);
	rt_expect(&t, NULL, cx_dq_block_dequantizeLinearOutput, 1);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_lse_big_reduceLogSumExpInput, 1);
	Webnn__Ipc__Reduce *r = rt_reduce_msg(&t, x);
	r->has_axes = true;
	LIST(r, axes, 0);
	rt_op(&t, WNN_OP_REDUCE_LOG_SUM_EXP, r);
	rt_expect(&t, NULL, cx_lse_big_reduceLogSumExpOutput, 20);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_cs_rev_cumulativeSumInput, 1, 1, 3, 4);
	Webnn__Ipc__CumulativeSum *c = MSG(Webnn__Ipc__CumulativeSum, WEBNN__IPC__CUMULATIVE_SUM__INIT);
	c->input = x, c->output = tg_next(&t), c->axis = 3, c->reversed = true;
	rt_op(&t, WNN_OP_CUMULATIVE_SUM, c);
	rt_expect(&t, NULL, cx_cs_rev_cumulativeSumOutput, 3);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_pad_refl_padInput, 1, 3, 3, 1);
	Webnn__Ipc__Pad *p = MSG(Webnn__Ipc__Pad, WEBNN__IPC__PAD__INIT);
	p->input = x, p->output = tg_next(&t), p->mode = WEBNN__IPC__PADDING_MODE__PAD_REFLECTION;
	LIST(p, beginning_padding, 0, 2, 2, 0);
	LIST(p, ending_padding, 0, 2, 2, 0);
	rt_op(&t, WNN_OP_PAD, p);
	rt_expect(&t, NULL, cx_pad_refl_padOutput, 0);
	tg_free(&t);
}
