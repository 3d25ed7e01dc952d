/* OpenCL backend as a whole: aliasing, supports table, program caches, cross-family fusion, shutdown. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/backend/opencl/ocl.h"
#include "tests/graphs.h"
#include "tests/ocltest.h"
#include "tests/test.h"

/* ------------------------------------------------------------------ the whole backend */

/* A chain that exercises aliasing (reshape/identity of intermediates), buffer reuse, a graph
 * output that is also consumed, and the same operand named as two outputs. */
TEST(opencl_graph_chain_aliasing)
{
	struct backend *be = ot_backend();
	struct tg_graph tg;
	tg_init(&tg);
	struct wnn_diag diag = { 0 };
	uint32_t x = tg_input(&tg, WNN_F32, 2, (uint32_t[]){ 4, 6 });
	Webnn__Ipc__ElementwiseUnary u1 = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	u1.input = x;
	u1.output = tg_next(&tg);
	Webnn__Ipc__Operation o1 = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o1, WNN_OP_RELU, &u1);
	ASSERT(tg_op(&tg, &o1, &diag) == WEBNN_STATUS_OK);
	uint32_t shape[2] = { 3, 8 };
	Webnn__Ipc__Reshape r = WEBNN__IPC__RESHAPE__INIT;
	r.input = u1.output;
	r.output = tg_next(&tg);
	r.n_new_shape = 2;
	r.new_shape = shape;
	Webnn__Ipc__Operation o2 = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o2, WNN_OP_RESHAPE, &r);
	ASSERT(tg_op(&tg, &o2, &diag) == WEBNN_STATUS_OK);
	Webnn__Ipc__ElementwiseUnary u3 = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	u3.input = r.output;
	u3.output = tg_next(&tg);
	Webnn__Ipc__Operation o3 = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o3, WNN_OP_IDENTITY, &u3);
	ASSERT(tg_op(&tg, &o3, &diag) == WEBNN_STATUS_OK);
	Webnn__Ipc__Softmax s = WEBNN__IPC__SOFTMAX__INIT;
	s.input = u3.output;
	s.output = tg_next(&tg);
	s.axis = 1;
	Webnn__Ipc__Operation o4 = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o4, WNN_OP_SOFTMAX, &s);
	ASSERT(tg_op(&tg, &o4, &diag) == WEBNN_STATUS_OK);
	Webnn__Ipc__ElementwiseBinary a = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
	a.a = s.output;
	a.b = u3.output;
	a.output = tg_next(&tg);
	Webnn__Ipc__Operation o5 = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o5, WNN_OP_ADD, &a);
	ASSERT(tg_op(&tg, &o5, &diag) == WEBNN_STATUS_OK);
	tg_output(&tg, a.output);
	tg_output(&tg, s.output);
	tg_output(&tg, u3.output);
	const struct graph_ir *g = tg_finish(&tg, &diag);
	ASSERT_MSG(g, "%s", diag.message);
	ot_check(be, g, -3, 3, TOL_EW, "chain");
	tg_free(&tg);
	backend_opencl.shutdown(be);
}

TEST(opencl_supports_and_errors)
{
	struct backend *be = ot_backend();
	ASSERT(backend_opencl.supports(be, WNN_OP_CONV2D, WNN_F32));
	ASSERT(backend_opencl.supports(be, WNN_OP_CONV2D, WNN_F16));
	ASSERT(!backend_opencl.supports(be, WNN_OP_CONV2D, WNN_I32));
	ASSERT(backend_opencl.supports(be, WNN_OP_MAX_POOL2D, WNN_U8));
	ASSERT(!backend_opencl.supports(be, WNN_OP_AVERAGE_POOL2D, WNN_U8));
	ASSERT(!backend_opencl.supports(be, WNN_OP_COUNT, WNN_F32));

	/* an unsupported operator fails compile with a message naming it */
	struct tg_graph tg;
	tg_init(&tg);
	struct wnn_diag diag = { 0 };
	uint32_t x = tg_input(&tg, WNN_F32, 2, (uint32_t[]){ 2, 3 });
	Webnn__Ipc__Cast c = WEBNN__IPC__CAST__INIT;
	c.input = x;
	c.output = tg_next(&tg);
	c.data_type = WEBNN__IPC__DATA_TYPE__INT32;
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, WNN_OP_CAST, &c);
	const struct graph_ir *g = ot_finish(&tg, &o, "cast");
	if (!backend_opencl.supports(be, WNN_OP_CAST, WNN_F32)) {
		struct backend_context *ctx;
		struct backend_context_options opts = { .accelerated = true };
		ASSERT(backend_opencl.context_create(be, &opts, &ctx, &diag) == WEBNN_STATUS_OK);
		struct backend_device_info info;
		backend_opencl.context_info(ctx, &info);
		ASSERT(info.device_name[0]);
		ASSERT(strcmp(info.device_type, "cpu") == 0 || info.accelerated);
		struct backend_plan *plan = NULL;
		ASSERT(tg_optimize((struct graph_ir *)g, &backend_opencl, ctx, &diag) ==
		       WEBNN_STATUS_OK);
		ASSERT(backend_opencl.compile(ctx, g, &plan, &diag) == WEBNN_STATUS_NOT_SUPPORTED);
		ASSERT_CONTAINS(diag.message, "cast");
		backend_opencl.context_destroy(ctx);
	}
	tg_free(&tg);
	backend_opencl.shutdown(be);
}

TEST(opencl_supports_exactly_the_spec_types)
{
	struct backend *be = ot_backend();
	static const enum wnn_op ops[] = {
		WNN_OP_ARG_MIN, WNN_OP_ARG_MAX, WNN_OP_CAST, WNN_OP_CUMULATIVE_SUM,
		WNN_OP_CONV_TRANSPOSE2D, WNN_OP_QUANTIZE_LINEAR, WNN_OP_DEQUANTIZE_LINEAR,
		WNN_OP_EXPAND, WNN_OP_GATHER, WNN_OP_GATHER_ELEMENTS, WNN_OP_GATHER_ND,
		WNN_OP_SCATTER_ELEMENTS, WNN_OP_SCATTER_ND, WNN_OP_GRU, WNN_OP_GRU_CELL,
		WNN_OP_LSTM, WNN_OP_LSTM_CELL, WNN_OP_INSTANCE_NORMALIZATION,
		WNN_OP_LAYER_NORMALIZATION, WNN_OP_PAD, WNN_OP_PRELU, WNN_OP_REDUCE_L1,
		WNN_OP_REDUCE_L2, WNN_OP_REDUCE_LOG_SUM, WNN_OP_REDUCE_LOG_SUM_EXP,
		WNN_OP_REDUCE_MAX, WNN_OP_REDUCE_MEAN, WNN_OP_REDUCE_MIN, WNN_OP_REDUCE_PRODUCT,
		WNN_OP_REDUCE_SUM, WNN_OP_REDUCE_SUM_SQUARE, WNN_OP_RESAMPLE2D, WNN_OP_REVERSE,
		WNN_OP_SLICE, WNN_OP_SPLIT, WNN_OP_TILE, WNN_OP_TRIANGULAR, WNN_OP_WHERE,
	};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		for (size_t ti = 0; ti < OT_N_TYPES; ti++) {
			enum wnn_dtype t = ALL_TYPES[ti];
			bool want = (wnn_ops[ops[i]].dtypes & WNN_DT_BIT(t)) != 0;
			ASSERT_MSG(backend_opencl.supports(be, ops[i], t) == want, "%s %s: %d",
				   wnn_ops[ops[i]].name, wnn_dtype_name(t), !want);
		}
	/* every operator of ops.def is now covered for every type its column allows */
	for (int op = 0; op < WNN_OP_COUNT; op++)
		for (size_t ti = 0; ti < OT_N_TYPES; ti++) {
			enum wnn_dtype t = ALL_TYPES[ti];
			if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
				continue;
			bool ew = wnn_ops[op].attrs == WNN_ATTRS_UNARY ||
				  wnn_ops[op].attrs == WNN_ATTRS_BINARY;
			if (ew)
				continue;
			ASSERT_MSG(backend_opencl.supports(be, (enum wnn_op)op, t), "%s %s",
				   wnn_ops[op].name, wnn_dtype_name(t));
		}
	backend_opencl.shutdown(be);
}

/* Program binaries land in the cache directory init gets and a second backend builds from them. */
TEST(opencl_program_disk_cache)
{
	if (!test_have_opencl())
		SKIP("no OpenCL device");
	char dir[4096];
	test_scratch_dir(dir, sizeof(dir), "webnn-ocl-cache");
	struct backend *be = ot_backend_cached(dir);
	struct tg_graph tg;
	tg_init(&tg);
	uint32_t x = tg_input(&tg, WNN_F32, 1, (uint32_t[]){ 10 });
	Webnn__Ipc__ElementwiseUnary u = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	u.input = x;
	u.output = tg_next(&tg);
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, WNN_OP_EXP, &u);
	const struct graph_ir *g = ot_finish(&tg, &o, "exp");
	ot_check(be, g, -1, 1, TOL_EW, "exp");
	backend_opencl.shutdown(be);
	char cmd[4400];
	snprintf(cmd, sizeof cmd, "ls %s/programs | grep -q '\\.bin$'", dir);
	ASSERT_MSG(system(cmd) == 0, "no program binary in %s/programs", dir);
	be = ot_backend_cached(dir);
	ot_check(be, g, -1, 1, TOL_EW, "exp from the disk cache");
	backend_opencl.shutdown(be);
	tg_free(&tg);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ASSERT(system(cmd) == 0);
}

/* ------------------------------------------------------------------ performance paths */

/* Number of steps of g's compiled plan that belong to operations named op (a step is named
 * after the operation it lowers, fused ones after the operation they were fused into), or with
 * op NULL all steps but the transposes the layout pass puts at the boundary of an NCHW graph
 * (the layout's cost, not the fusion's: the test graphs have no transpose of their own).
 * Shows that fusion and in-place concat really removed passes. */
static size_t plan_steps(struct backend *be, const struct graph_ir *g, const char *op)
{
	struct backend_context *ctx;
	struct backend_context_options opts = { .accelerated = true };
	struct wnn_diag diag = { 0 };
	ASSERT(backend_opencl.context_create(be, &opts, &ctx, &diag) == WEBNN_STATUS_OK);
	struct graph_ir *copy = ot_optimized_copy(ctx, g);
	struct backend_plan *plan = NULL;
	enum webnn_status st = backend_opencl.compile(ctx, copy, &plan, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "compile: %s", diag.message);
	size_t n = 0;
	for (size_t i = 0; i < plan->n_steps; i++)
		n += op ? strcmp(plan->steps[i].what, op) == 0
			: strcmp(plan->steps[i].what, "transpose") != 0;
	backend_opencl.plan_destroy(plan);
	graph_destroy(copy);
	backend_opencl.context_destroy(ctx);
	return n;
}

/* An elementwise chain (add of a one-element constant, elu with its alpha, mul with the chain
 * as second operand, clamp, sub with the chain as first operand) runs as one generated kernel
 * whose results equal the reference, in float32, float16 and int32. */
TEST_TIMEOUT(opencl_elementwise_chain_kernel, 300)
{
	struct backend *be = ot_backend();
	static const enum wnn_dtype types[] = { WNN_F32, WNN_F16, WNN_I32 };
	for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
		enum wnn_dtype t = types[ti];
		bool fl = t != WNN_I32;
		struct tg_graph tg;
		struct wnn_diag diag = { 0 };
		tg_init(&tg);
		uint32_t x = tg_input(&tg, t, 2, (uint32_t[]){ 4, 6 });
		uint32_t y = tg_input(&tg, t, 2, (uint32_t[]){ 4, 6 });
		uint16_t c16 = wnn_f32_to_f16(0.5f);
		float c32 = 0.5f;
		int32_t ci = 2;
		uint32_t c = tg_constant(&tg, t, 1, (uint32_t[]){ 1 },
					 t == WNN_F16 ? (const void *)&c16
					 : fl	      ? (const void *)&c32
						      : (const void *)&ci);
		Webnn__Ipc__ElementwiseBinary add = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
		add.a = x;
		add.b = c;
		add.output = tg_next(&tg);
		Webnn__Ipc__Operation o1 = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o1, WNN_OP_ADD, &add);
		ASSERT(tg_op(&tg, &o1, &diag) == WEBNN_STATUS_OK);
		Webnn__Ipc__ElementwiseUnary un = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
		un.input = add.output;
		un.output = tg_next(&tg);
		un.has_alpha = fl;
		un.alpha = 0.25;
		Webnn__Ipc__Operation o2 = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o2, fl ? WNN_OP_ELU : WNN_OP_NEG, &un);
		ASSERT_MSG(tg_op(&tg, &o2, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
		Webnn__Ipc__ElementwiseBinary mul = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
		mul.a = y;
		mul.b = un.output;
		mul.output = tg_next(&tg);
		Webnn__Ipc__Operation o3 = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o3, WNN_OP_MUL, &mul);
		ASSERT(tg_op(&tg, &o3, &diag) == WEBNN_STATUS_OK);
		Webnn__Ipc__Clamp cl = WEBNN__IPC__CLAMP__INIT;
		Webnn__Ipc__Number lo = WEBNN__IPC__NUMBER__INIT, hi = WEBNN__IPC__NUMBER__INIT;
		lo.value_case = hi.value_case = WEBNN__IPC__NUMBER__VALUE_F;
		lo.f = -2;
		hi.f = 1.5;
		cl.input = mul.output;
		cl.output = tg_next(&tg);
		cl.min_value = &lo;
		cl.max_value = &hi;
		Webnn__Ipc__Operation o4 = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o4, WNN_OP_CLAMP, &cl);
		ASSERT(tg_op(&tg, &o4, &diag) == WEBNN_STATUS_OK);
		Webnn__Ipc__ElementwiseBinary sub = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
		sub.a = cl.output;
		sub.b = y;
		sub.output = tg_next(&tg);
		Webnn__Ipc__Operation o5 = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o5, WNN_OP_SUB, &sub);
		ASSERT(tg_op(&tg, &o5, &diag) == WEBNN_STATUS_OK);
		const struct graph_ir *g = tg_finish(&tg, &diag);
		ASSERT_MSG(g, "%s", diag.message);
		char label[64];
		snprintf(label, sizeof label, "chain %s", wnn_dtype_name(t));
		ot_check(be, g, -3, 3, t == WNN_F16 ? TOL_F16 : fl ? TOL_EW : TOL_EXACT, label);
		size_t fused = plan_steps(be, g, NULL);
		ASSERT_MSG(fused == 1, "%s: %zu steps for a chain of 5 operations", label, fused);
		tg_free(&tg);
	}
	backend_opencl.shutdown(be);
}


/* The vectorised depthwise kernels: channel vectors of 16, 8 and 4 (and the generic kernel for
 * other counts), strides 1 and 2, MobileNet's asymmetric padding, widths that leave partial
 * blocks, both layouts, with bias, fused relu6 and a fused residual add. */
TEST_TIMEOUT(opencl_depthwise_shapes, 300)
{
	struct backend *be = ot_backend();
	static const struct {
		uint32_t n, c, h, w, stride;
		const uint32_t *pad;
		bool bias;
		int act;
	} cases[] = {
		{ 1, 32, 12, 13, 1, PAD1, true, 2 },  { 1, 32, 12, 12, 2, PAD01, true, 2 },
		{ 2, 24, 9, 17, 1, PAD1, false, 1 },  { 1, 24, 10, 10, 2, PAD01, true, 0 },
		{ 1, 12, 7, 7, 1, PAD1, true, 2 },    { 1, 12, 5, 9, 2, PAD1, true, 1 },
		{ 1, 6, 8, 8, 1, PAD1, true, 2 },     { 1, 48, 3, 3, 1, PAD1, true, 3 },
		{ 1, 16, 1, 1, 1, PAD1, true, 0 },    { 1, 16, 9, 11, 1, PAD0, true, 3 },
	};
	for (int nhwc = 0; nhwc < 2; nhwc++)
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t dims[4] = { cases[i].n, cases[i].c, cases[i].h, cases[i].w };
			if (nhwc)
				memcpy(dims, (uint32_t[]){ cases[i].n, cases[i].h, cases[i].w, cases[i].c },
				       sizeof dims);
			uint32_t x = tg_input(&tg, WNN_F32, 4, dims);
			struct ot_conv pc;
			struct ot_act pa;
			uint32_t y = ot_conv(&tg, &pc, x, WNN_F32, nhwc, cases[i].c, cases[i].c, 3,
					     cases[i].c, cases[i].stride, cases[i].pad, cases[i].bias,
					     40 + i);
			if (cases[i].act == 3) {
				/* residual: a second input of the conv output's shape */
				const struct wnn_desc *od = &tg.descs[y];
				uint32_t res = tg_input(&tg, WNN_F32, od->rank, od->dims);
				ot_act(&tg, &pa, 3, y, res);
			} else if (cases[i].act) {
				ot_act(&tg, &pa, cases[i].act, y, 0);
			}
			char label[96];
			snprintf(label, sizeof label, "depthwise %s case %zu", nhwc ? "nhwc" : "nchw",
				 i);
			const struct graph_ir *g = tg_finish(&tg, &(struct wnn_diag){ 0 });
			ASSERT_MSG(g, "%s", label);
			ot_check(be, g, -1, 1, TOL_SUM, label);
			tg_free(&tg);
		}
	backend_opencl.shutdown(be);
}

/* conv2d/gemm/matmul followed by relu, clamp, add (residual or per-channel vector): results
 * equal the reference, and the fused plans have fewer steps than the baseline's. */
TEST_TIMEOUT(opencl_fused_epilogues, 300)
{
	struct backend *be = ot_backend();
	/* conv variants: layout, kernel size, out channels, type, chain: 0 none, 1 relu, 2 clamp,
	 * 3 add residual, 4 add vector + relu, 5 add residual + clamp. NHWC float32 with channels
	 * a multiple of 8 takes small_gemm; 12, 20, 36 the swapped small-N CLBlast product (rows
	 * 2 x 12 x 13); 65 and NCHW the plain CLBlast one with the epilogue pass. */
	static const struct {
		bool nhwc;
		uint32_t k, oc;
		enum wnn_dtype t;
		int chain;
		bool bias;
	} cases[] = {
		{ true, 1, 16, WNN_F32, 1, true },   { true, 3, 16, WNN_F32, 2, true },
		{ true, 1, 80, WNN_F32, 3, true },   { true, 3, 24, WNN_F32, 4, false },
		{ false, 1, 16, WNN_F32, 1, true },  { false, 3, 24, WNN_F32, 5, true },
		{ false, 3, 8, WNN_F32, 4, true },   { true, 3, 8, WNN_F16, 1, true },
		{ false, 1, 8, WNN_F16, 5, true },   { true, 1, 64, WNN_F32, 2, true },
		{ true, 1, 65, WNN_F32, 1, true },   { true, 3, 20, WNN_F32, 5, true },
		{ true, 1, 12, WNN_F32, 4, true },   { true, 1, 36, WNN_F32, 0, true },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tg_graph tg;
		tg_init(&tg);
		struct ot_epilogue pe;
		int ch = cases[i].chain;
		/* chain 0, bias only: the swapped product still needs its transposing pass */
		ot_epilogue_case(&tg, &pe, cases[i].t, cases[i].nhwc, cases[i].k, cases[i].oc, 1, ch,
				 cases[i].bias, 70 + i);
		char label[96];
		snprintf(label, sizeof label, "fused conv case %zu (%s)", i,
			 wnn_dtype_name(cases[i].t));
		const struct graph_ir *g = tg_finish(&tg, &(struct wnn_diag){ 0 });
		ASSERT_MSG(g, "%s", label);
		ot_check(be, g, -1, 1, cases[i].t == WNN_F16 ? TOL_F16_SUM : TOL_SUM, label);
		/* An NCHW conv runs in NHWC after the layout pass, and so does an add of a tensor
		 * the client gives in NCHW (transposed before the conv): it stays in the epilogue.
		 * Every step is the conv's (gemm, im2col, epilogue): no relu, clamp or add pass.
		 * Known gap of the layout pass (as on cpu, test_cpu.c): a runtime [C,1,1] vector
		 * added to an NCHW conv is left in NCHW, so that add and the relu stay passes. */
		size_t all = plan_steps(be, g, NULL), conv = plan_steps(be, g, "conv2d");
		bool nchw_vector = !cases[i].nhwc && ch == 4;
		ASSERT_MSG(all == conv + (nchw_vector ? 2 : 0),
			   "%s: %zu steps, %zu of them the conv's", label, all, conv);
		if (ch == 3 || ch == 5) {
			/* The residual add is in the conv's epilogue in either client layout. */
			struct backend_context *ctx;
			struct backend_context_options opts = { .accelerated = true };
			struct wnn_diag diag = { 0 };
			ASSERT(backend_opencl.context_create(be, &opts, &ctx, &diag) ==
			       WEBNN_STATUS_OK);
			struct graph_ir *copy = ot_optimized_copy(ctx, g);
			GRAPH_FOR_EACH_LIVE_NODE(copy, n)
				ASSERT_MSG(copy->nodes[n].op != WNN_OP_ADD, "%s: add not fused", label);
			graph_destroy(copy);
			backend_opencl.context_destroy(ctx);
		}
		tg_free(&tg);
	}
	/* gemm + relu and matmul + add([N]) + clamp */
	for (int which = 0; which < 2; which++) {
		struct tg_graph tg;
		tg_init(&tg);
		struct ot_product pp;
		struct wnn_diag diag = { 0 };
		ot_product_epilogue(&tg, &pp, which);
		const struct graph_ir *g = tg_finish(&tg, &diag);
		ASSERT_MSG(g, "%s", diag.message);
		ot_check(be, g, -1, 1, TOL_SUM, which ? "matmul+add+clamp" : "gemm+relu");
		/* the activation and the add run in the product's epilogue, never as passes */
		const char *product = which ? "matmul" : "gemm";
		size_t all = plan_steps(be, g, NULL), own = plan_steps(be, g, product);
		ASSERT_MSG(all == own, "%s: %zu steps, %zu of them the product's", product, all, own);
		tg_free(&tg);
	}
	backend_opencl.shutdown(be);
}

/* No fusion where it would be wrong: the conv output is also a graph output, or has two
 * consumers, or the add's other operand is computed after the conv. */
OT_TEST_NAMED(opencl_fusion_not_applied, cpu_fusion_not_applied, 300)
{
	struct backend *be = ot_backend();
	for (int variant = 0; variant < 3; variant++) {
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t x = tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 1, 6, 6, 4 });
		struct ot_conv pc;
		struct ot_act pa[3];
		uint32_t y = ot_conv(&tg, &pc, x, WNN_F32, true, 4, 8, 1, 1, 1, PAD0, true, 90);
		if (variant == 0) {
			uint32_t r = ot_act(&tg, &pa[0], 1, y, 0);
			tg_output(&tg, r);
			tg_output(&tg, y);
		} else if (variant == 1) {
			uint32_t r1 = ot_act(&tg, &pa[0], 1, y, 0);
			uint32_t r2 = ot_act(&tg, &pa[1], 2, y, 0);
			ot_act(&tg, &pa[2], 3, r1, r2);
		} else {
			/* add(conv, relu(x')) where relu(x') comes after the conv */
			uint32_t x2 = tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 1, 6, 6, 8 });
			uint32_t r = ot_act(&tg, &pa[0], 1, x2, 0);
			ot_act(&tg, &pa[1], 3, y, r);
		}
		char label[64];
		snprintf(label, sizeof label, "unfusable variant %d", variant);
		const struct graph_ir *g = tg_finish(&tg, &(struct wnn_diag){ 0 });
		ASSERT_MSG(g, "%s", label);
		ot_check(be, g, -1, 1, TOL_SUM, label);
		tg_free(&tg);
	}
	ot_impl->shutdown(be);
}

/* A SqueezeNet fire module: both expand convs (+relu) write straight into their halves of the
 * concat output, in both layouts (nchw with batch 2: per-image slices); and a concat mixing a
 * conv with a graph input copies only the input. */
TEST_TIMEOUT(opencl_concat_in_place, 300)
{
	struct backend *be = ot_backend();
	/* variant 0: nchw (CLBlast, epilogue pass into the slices); 1: nhwc, expand channels a
	 * multiple of 8 (small_gemm stores into the slices); 2: nhwc, 10 and 14 channels on 144
	 * rows (swapped CLBlast product, transposing epilogue into the slices) */
	for (int variant = 0; variant < 3; variant++) {
		struct tg_graph tg;
		tg_init(&tg);
		bool nhwc = variant > 0;
		uint32_t n = nhwc ? 1 : 2, c = 12, h = variant == 2 ? 12 : 9, w = variant == 2 ? 12 : 11;
		uint32_t oc1 = variant == 1 ? 8 : 10, oc3 = variant == 1 ? 16 : 14;
		uint32_t x = tg_input(&tg, WNN_F32, 4,
				      nhwc ? (uint32_t[]){ n, h, w, c } : (uint32_t[]){ n, c, h, w });
		struct ot_conv pc[3];
		struct ot_act pa[3];
		uint32_t s = ot_act(&tg, &pa[0], 1,
				    ot_conv(&tg, &pc[0], x, WNN_F32, nhwc, c, 6, 1, 1, 1, PAD0, true, 5),
				    0);
		uint32_t e1 = ot_act(&tg, &pa[1], 1,
				     ot_conv(&tg, &pc[1], s, WNN_F32, nhwc, 6, oc1, 1, 1, 1, PAD0, true, 6),
				     0);
		uint32_t e3 = ot_act(&tg, &pa[2], 1,
				     ot_conv(&tg, &pc[2], s, WNN_F32, nhwc, 6, oc3, 3, 1, 1, PAD1, true, 7),
				     0);
		uint32_t ins[2] = { e1, e3 };
		Webnn__Ipc__Concat m = WEBNN__IPC__CONCAT__INIT;
		m.n_inputs = 2;
		m.inputs = ins;
		m.axis = nhwc ? 3 : 1;
		m.output = tg_next(&tg);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, WNN_OP_CONCAT, &m);
		char label[32];
		snprintf(label, sizeof label, "fire variant %d", variant);
		const struct graph_ir *g = ot_finish(&tg, &o, label);
		ot_check(be, g, -1, 1, TOL_SUM, label);
		/* at most 3 x (gemm + epilogue) + im2col: no relu pass and no concat copy (a plan
		 * without fusion had 3 x (bias fill + gemm + relu) + im2col + 2 concat copies) */
		size_t all = plan_steps(be, g, NULL), concat = plan_steps(be, g, "concat"),
		       relu = plan_steps(be, g, "relu");
		ASSERT_MSG(all <= 7 && concat == 0 && relu == 0,
			   "%s: %zu steps, %zu concat and %zu relu passes", label, all, concat, relu);
		tg_free(&tg);
	}
	{
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t x = tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 1, 5, 6, 7 });
		uint32_t x2 = tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 1, 5, 6, 3 });
		struct ot_conv pc;
		uint32_t y = ot_conv(&tg, &pc, x, WNN_F32, true, 7, 9, 3, 1, 1, PAD1, false, 8);
		uint32_t ins[3] = { x2, y, x2 };
		Webnn__Ipc__Concat m = WEBNN__IPC__CONCAT__INIT;
		m.n_inputs = 3;
		m.inputs = ins;
		m.axis = 3;
		m.output = tg_next(&tg);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, WNN_OP_CONCAT, &m);
		ot_check(be, ot_finish(&tg, &o, "concat mixed"), -1, 1, TOL_SUM, "concat mixed");
		tg_free(&tg);
	}
	backend_opencl.shutdown(be);
}

/* The CLBlast warm-up runs in a child process that shutdown kills: a daemon stopped while the
 * warm-up compiles into a cold cache (seconds of PoCL work) still stops at once and cleanly. */
TEST_TIMEOUT(opencl_shutdown_skips_warmup, 120)
{
	if (!test_have_opencl())
		SKIP("no OpenCL device");
	char dir[4096], cache[4200];
	test_scratch_dir(dir, sizeof(dir), "webnn-ocl-cold");
	/* The daemon creates the cache for its service user (it drops from root), which must
	 * own it and reach it. */
	ASSERT(chmod(dir, 0755) == 0);
	snprintf(cache, sizeof cache, "%s/cache", dir);
	setenv("WEBNN_CACHE_DIR", cache, 1);
	unsetenv("POCL_CACHE_DIR");
	unsetenv("WEBNN_NO_WARMUP");
	static const char *const args[] = { "--backend", "opencl", NULL };
	struct test_daemon d;
	test_daemon_start(&d, args);
	usleep(200 * 1000); /* the warm-up is compiling by now */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	test_daemon_stop(&d);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double dt = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("  stop with a cold-cache warm-up under way: %.3f s\n", dt);
	ASSERT_MSG(dt < 1.5, "shutdown took %.2f s", dt);
	char cmd[4400];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ASSERT(system(cmd) == 0);
}
