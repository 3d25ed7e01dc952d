/* Tests of the pooling family (averagePool2d, l2Pool2d, maxPool2d): hand-computed vectors through libwebnn, validation, the reference backend's kernels, the OpenCL backend against the reference. */
#include <math.h>

#include "daemon/backend/opencl/ocl.h"
#include "tests/ocltest.h"
#include "tests/opvectors.h"
#include "tests/reftest.h"
#include "tests/opfixture.h"
#include "tests/test.h"

/* ==== hand-computed vectors through libwebnn on both backends (tests/opvectors.h) */

/* window 2x2 (n_window 0: the whole spatial size, the default) */
#define POOL_BUILD(fn_, op_, window_)                                                          \
	static enum webnn_status fn_(struct webnn_builder *b, struct webnn_operand *const *in, \
				     struct webnn_operand **out)                               \
	{                                                                                      \
		struct webnn_pool2d_options o = WEBNN_POOL2D_OPTIONS_INIT;                     \
		if (window_) {                                                                 \
			o.n_window_dimensions = 2;                                             \
			o.window_dimensions[0] = o.window_dimensions[1] = window_;             \
			return webnn_builder_##op_(b, in[0], &o, out);                         \
		}                                                                              \
		return webnn_builder_##op_(b, in[0], NULL, out);                               \
	}
POOL_BUILD(average_global, average_pool2d, 0)
POOL_BUILD(average_2x2, average_pool2d, 2)
POOL_BUILD(l2_global, l2_pool2d, 0)
POOL_BUILD(l2_2x2, l2_pool2d, 2)
POOL_BUILD(max_global, max_pool2d, 0)
POOL_BUILD(max_2x2, max_pool2d, 2)

#define IMAGE(type_) OV_IN(type_, 4, OV_SHAPE(1, 1, 3, 3), 1, -2, 3, 4, 5, -6, 7, 8, 9)
#define ONE(...) OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 1, 1), __VA_ARGS__)
#define TWO_BY_TWO(type_, ...) OV_IN(type_, 4, OV_SHAPE(1, 1, 2, 2), __VA_ARGS__)

static const struct op_vector pool_vectors[] = {
	{ WNN_OP_AVERAGE_POOL2D, "float32 default (global)", .build = average_global,
	  .in = { IMAGE(WEBNN_FLOAT32) }, .want = { ONE(3.2222222222222223) } },
	{ WNN_OP_AVERAGE_POOL2D, "float32 window 2x2", .build = average_2x2,
	  .in = { IMAGE(WEBNN_FLOAT32) }, .want = { TWO_BY_TWO(WEBNN_FLOAT32, 2, 0, 6, 4) } },
	{ WNN_OP_L2_POOL2D, "float32 default (global)", .build = l2_global,
	  .in = { IMAGE(WEBNN_FLOAT32) }, .want = { ONE(16.881943016134134) } },
	{ WNN_OP_L2_POOL2D, "float32 window 2x2", .build = l2_2x2,
	  .in = { IMAGE(WEBNN_FLOAT32) },
	  .want = { TWO_BY_TWO(WEBNN_FLOAT32, 6.782329983125268, 8.602325267042627,
			       12.409673645990857, 14.352700094407323) } },
	{ WNN_OP_MAX_POOL2D, "float32 default (global)", .build = max_global,
	  .in = { IMAGE(WEBNN_FLOAT32) }, .want = { ONE(9) } },
	{ WNN_OP_MAX_POOL2D, "float32 window 2x2", .build = max_2x2,
	  .in = { IMAGE(WEBNN_FLOAT32) }, .want = { TWO_BY_TWO(WEBNN_FLOAT32, 5, 5, 8, 9) } },
	{ WNN_OP_MAX_POOL2D, "int8 window 2x2", .build = max_2x2,
	  .in = { IMAGE(WEBNN_INT8) }, .want = { TWO_BY_TWO(WEBNN_INT8, 5, 5, 8, 9) } },
};
OV_TABLE(POOL, pool_vectors);

OV_FAMILY_TESTS(POOL, pool)

/* ==== validation and shape inference (proto/schema_<family>.c) */

TEST(ops_pool_schema_pool2d)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 1, 2, 5, 5), xi = T(&f, WNN_I8, 1, 5, 5, 2), o = SLOT(&f);
	uint32_t win[] = { 3, 3 }, pad[] = { 1, 0, 0, 1 }, strides[] = { 2, 2 }, osz[] = { 3, 3 };
	Webnn__Ipc__Pool2d m = WEBNN__IPC__POOL2D__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_AVERAGE_POOL2D);
	op.pool2d = &m;
	m.input = x, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 1, 1); /* global pooling */
	m.window_dimensions = win, m.n_window_dimensions = 2;
	m.padding = pad, m.n_padding = 4;
	m.strides = strides, m.n_strides = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 2, 2); /* floor(1.5) + 1 */
	m.output_shape_rounding = WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 3, 3);
	m.output_sizes = osz, m.n_output_sizes = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 3, 3);
	osz[1] = 2;
	ERR(&f, &op, "averagePool2d: outputSizes [3, 2] match neither the floor sizes [2, 2] nor the "
		     "ceil sizes [3, 3]");
	m.n_output_sizes = 0;
	op.op = wnn_ops[WNN_OP_MAX_POOL2D].id;
	m.input = xi, m.layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	OK_OUT(&f, &op, 0, WNN_I8, 1, 3, 3, 2);
	op.op = wnn_ops[WNN_OP_L2_POOL2D].id;
	ERR(&f, &op, "l2Pool2d: input data type int8 is not allowed, expected float32, float16");
	op.op = wnn_ops[WNN_OP_MAX_POOL2D].id;
	win[0] = 0;
	ERR(&f, &op, "maxPool2d: windowDimensions [0, 3] must not contain 0");
	win[0] = 9;
	ERR(&f, &op, "maxPool2d: output height is 0, expected a valid dimension"); /* ceil(-1.5)+1 */
	win[0] = 3;
	m.n_padding = 2;
	ERR(&f, &op, "maxPool2d: padding has 2 values, expected 4");
	uint32_t x3 = T(&f, WNN_F32, 2, 5, 5);
	m.input = x3, m.n_padding = 4;
	ERR(&f, &op, "maxPool2d: input rank is 3, expected 4");
}

/* ==== reference backend: hand-computed and literal WPT values through its kernels */

TEST(ops_pool_reference_global_defaults)
{
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		static const struct {
			enum wnn_op op;
			double want;
		} cases[] = { { WNN_OP_AVERAGE_POOL2D, 2.5 },
			      { WNN_OP_MAX_POOL2D, 4 },
			      { WNN_OP_L2_POOL2D, 5.477225575051661 } };
		for (size_t i = 0; i < 3; i++) {
			struct tg_graph t;
			tg_init(&t);
			uint32_t x = tg_input(&t, ty, SHAPE(1, 1, 2, 2));
			uint32_t o = rt_pool(&t, cases[i].op, rt_pool_msg(&t, x));
			rt_expect_shape(&t, o, SHAPE(1, 1, 1, 1));
			rt_expect(&t, INS(D(1, 2, 3, 4)), &cases[i].want, 1);
			tg_free(&t);
		}
	}
}

TEST(ops_pool_reference_average_excludes_padding)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	Webnn__Ipc__Pool2d *m = rt_pool_msg(&t, x);
	LIST(m, window_dimensions, 2, 2);
	LIST(m, padding, 1, 1, 1, 1);
	uint32_t o = rt_pool(&t, WNN_OP_AVERAGE_POOL2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 3, 3));
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4), 0);
	tg_free(&t);
}

static const double iota25[] = { 1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
				   14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25 };

TEST(ops_pool_reference_ceil_rounding_asymmetric_window)
{
	static const struct {
		enum wnn_op op;
		double want[6];
	} cases[] = {
		{ WNN_OP_AVERAGE_POOL2D, { 6.5, 8.5, 10, 16.5, 18.5, 20 } },
		{ WNN_OP_MAX_POOL2D, { 12, 14, 15, 22, 24, 25 } },
	};
	for (size_t i = 0; i < 2; i++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
		Webnn__Ipc__Pool2d *m = rt_pool_msg(&t, x);
		LIST(m, window_dimensions, 3, 2);
		LIST(m, strides, 2, 2);
		m->output_shape_rounding = WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
		uint32_t o = rt_pool(&t, cases[i].op, m);
		rt_expect_shape(&t, o, SHAPE(1, 1, 2, 3));
		rt_expect(&t, INS(iota25), cases[i].want, 0);
		tg_free(&t);
	}
	/* floor rounding of the same window drops the partial last column */
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
	Webnn__Ipc__Pool2d *m = rt_pool_msg(&t, x);
	LIST(m, window_dimensions, 3, 2);
	LIST(m, strides, 2, 2);
	uint32_t o = rt_pool(&t, WNN_OP_AVERAGE_POOL2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 2, 2));
	rt_expect(&t, INS(iota25), D(6.5, 8.5, 16.5, 18.5), 0);
	tg_free(&t);
}

TEST(ops_pool_reference_output_sizes_strides_dilations_nhwc)
{
	/* outputSizes picks the ceil size [3, 3] (padding kept) or the floor size [2, 2] */
	void **outs[2];
	for (int k = 0; k < 2; k++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
		Webnn__Ipc__Pool2d *m = rt_pool_msg(&t, x);
		LIST(m, window_dimensions, 3, 3);
		LIST(m, padding, 1, 0, 0, 1);
		LIST(m, strides, 2, 2);
		if (k == 0)
			LIST(m, output_sizes, 3, 3);
		else
			m->output_shape_rounding = WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
		uint32_t o = rt_pool(&t, WNN_OP_MAX_POOL2D, m);
		rt_expect_shape(&t, o, SHAPE(1, 1, 3, 3));
		outs[k] = rt_run(&t, INS(iota25));
		tg_free(&t);
	}
	ASSERT(memcmp(outs[0][0], outs[1][0], 9 * sizeof(float)) == 0);
	/* window rows -1..1 / 1..3 / 3..5, columns 0..2 / 2..4 / 4..6 */
	ASSERT(tg_compare_values(outs[0][0], WNN_F32, D(8, 10, 10, 18, 20, 20, 23, 25, 25), 9, 0, 0,
				 NULL, 0));

	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
	Webnn__Ipc__Pool2d *m = rt_pool_msg(&t, x);
	LIST(m, window_dimensions, 3, 3);
	LIST(m, padding, 1, 0, 0, 1);
	LIST(m, strides, 2, 2);
	LIST(m, output_sizes, 2, 2);
	rt_pool(&t, WNN_OP_MAX_POOL2D, m);
	rt_expect(&t, INS(iota25), D(8, 10, 18, 20), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 4, 4));
	m = rt_pool_msg(&t, x);
	LIST(m, window_dimensions, 2, 2);
	LIST(m, strides, 2, 2);
	rt_pool(&t, WNN_OP_MAX_POOL2D, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), D(6, 8, 14, 16), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
	m = rt_pool_msg(&t, x);
	LIST(m, window_dimensions, 2, 2);
	LIST(m, dilations, 2, 2);
	rt_pool(&t, WNN_OP_AVERAGE_POOL2D, m);
	rt_expect(&t, INS(rt_iota9), D(5), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 2, 2, 2));
	m = rt_pool_msg(&t, x);
	m->layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	uint32_t o = rt_pool(&t, WNN_OP_AVERAGE_POOL2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 1, 2));
	rt_expect(&t, INS(D(1, 10, 2, 20, 3, 30, 4, 40)), D(2.5, 25), 0);
	tg_free(&t);
}

/* Padding never wins a max (negative inputs stay negative); a window holding only padding gives
 * 0, as in WPT's "maxPool2d ... ceil and symmetric padding" case. */
TEST(ops_pool_reference_max_pool2d_padding_and_empty_windows)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	Webnn__Ipc__Pool2d *m = rt_pool_msg(&t, x);
	LIST(m, window_dimensions, 2, 2);
	LIST(m, padding, 1, 0, 1, 0);
	rt_pool(&t, WNN_OP_MAX_POOL2D, m);
	rt_expect(&t, INS(D(-1, -2, -3, -4)), D(-1, -1, -1, -1), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	m = rt_pool_msg(&t, x);
	LIST(m, window_dimensions, 1, 1);
	LIST(m, padding, 0, 1, 0, 1);
	LIST(m, strides, 2, 2);
	uint32_t o = rt_pool(&t, WNN_OP_MAX_POOL2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 2, 2));
	rt_expect(&t, INS(D(-1, -2, -3, -4)), D(-1, 0, 0, 0), 0);
	tg_free(&t);
}

TEST(ops_pool_reference_max_pool2d_integers)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_I32, SHAPE(1, 1, 2, 2));
	rt_pool(&t, WNN_OP_MAX_POOL2D, rt_pool_msg(&t, x));
	rt_expect(&t, INS(D(-5, 3, 7, -1)), D(7), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_U8, SHAPE(1, 1, 2, 2));
	rt_pool(&t, WNN_OP_MAX_POOL2D, rt_pool_msg(&t, x));
	rt_expect(&t, INS(D(5, 250, 7, 1)), D(250), 0);
	tg_free(&t);
}

/* ==== OpenCL backend against the reference: seeded inputs through both (tests/ocltest.h) */

OT_TEST(ops_pool, pool2d, 300)
{
	struct backend *be = ot_backend();
	static const enum wnn_op ops[3] = { WNN_OP_AVERAGE_POOL2D, WNN_OP_L2_POOL2D,
					    WNN_OP_MAX_POOL2D };
	static const struct {
		uint32_t win[2], pad[4], stride[2], dil[2];
		bool ceil, global;
	} opts[] = {
		{ { 3, 3 }, { 0, 0, 0, 0 }, { 2, 2 }, { 1, 1 }, false, false },
		{ { 3, 3 }, { 0, 0, 0, 0 }, { 2, 2 }, { 1, 1 }, true, false },
		{ { 2, 3 }, { 1, 0, 2, 1 }, { 1, 2 }, { 2, 1 }, false, false },
		{ { 0, 0 }, { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, false, true },
	};
	for (int k = 0; k < 3; k++)
		for (int nhwc = 0; nhwc < 2; nhwc++)
			for (size_t oi = 0; oi < sizeof opts / sizeof opts[0]; oi++)
				for (int f16 = 0; f16 < 2; f16++) {
					enum wnn_dtype t = f16 ? WNN_F16 : WNN_F32;
					struct tg_graph tg;
					tg_init(&tg);
					uint32_t dims[4] = { 2, 5, 11, 10 };
					if (nhwc)
						memcpy(dims, (uint32_t[]){ 2, 11, 10, 5 }, sizeof dims);
					uint32_t x = tg_input(&tg, t, 4, dims);
					Webnn__Ipc__Pool2d m = WEBNN__IPC__POOL2D__INIT;
					uint32_t win[2], pad[4], stride[2], dil[2];
					memcpy(win, opts[oi].win, sizeof win);
					memcpy(pad, opts[oi].pad, sizeof pad);
					memcpy(stride, opts[oi].stride, sizeof stride);
					memcpy(dil, opts[oi].dil, sizeof dil);
					m.input = x;
					m.output = tg_next(&tg);
					if (!opts[oi].global) {
						m.n_window_dimensions = 2;
						m.window_dimensions = win;
						m.n_padding = 4;
						m.padding = pad;
						m.n_strides = 2;
						m.strides = stride;
						m.n_dilations = 2;
						m.dilations = dil;
					}
					m.has_layout = 1;
					m.layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC
							: WEBNN__IPC__INPUT_LAYOUT__NCHW;
					m.has_output_shape_rounding = 1;
					m.output_shape_rounding =
						opts[oi].ceil ? WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL
							      : WEBNN__IPC__ROUNDING_TYPE__ROUND_FLOOR;
					Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
					tg_set_op(&o, ops[k], &m);
					char label[96];
					snprintf(label, sizeof label, "%s %s %s opts %zu",
						 wnn_ops[ops[k]].name, wnn_dtype_name(t),
						 nhwc ? "nhwc" : "nchw", oi);
					ot_check(be, ot_finish(&tg, &o, label), -2, 2,
						f16 ? TOL_F16 : TOL_SUM, label);
					tg_free(&tg);
				}
	/* maxPool2d on integers */
	static const enum wnn_dtype ints[] = { WNN_I8, WNN_U8, WNN_I32, WNN_I64, WNN_U64 };
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t x = tg_input(&tg, ints[i], 4, (uint32_t[]){ 1, 3, 6, 7 });
		Webnn__Ipc__Pool2d m = WEBNN__IPC__POOL2D__INIT;
		uint32_t win[2] = { 2, 2 }, stride[2] = { 2, 2 };
		m.input = x;
		m.output = tg_next(&tg);
		m.n_window_dimensions = 2;
		m.window_dimensions = win;
		m.n_strides = 2;
		m.strides = stride;
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, WNN_OP_MAX_POOL2D, &m);
		ot_check(be, ot_finish(&tg, &o, "maxPool2d int"), 0, 100, TOL_EXACT, "maxPool2d int");
		tg_free(&tg);
	}
	ot_impl->shutdown(be);
}

/* maxPool2d (and the others) over a window that holds only padding produce 0, not -inf. */
OT_TEST(ops_pool, padding_only_window, 0)
{
	struct backend *be = ot_backend();
	static const enum wnn_op ops[3] = { WNN_OP_MAX_POOL2D, WNN_OP_AVERAGE_POOL2D,
					    WNN_OP_L2_POOL2D };
	static const enum wnn_dtype types[] = { WNN_F32, WNN_F16, WNN_I32, WNN_U8 };
	for (int k = 0; k < 3; k++)
		for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
			enum wnn_dtype t = types[ti];
			if (!ot_impl->supports(be, ops[k], t))
				continue;
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t x = tg_input(&tg, t, 4, (uint32_t[]){ 1, 2, 3, 3 });
			Webnn__Ipc__Pool2d m = WEBNN__IPC__POOL2D__INIT;
			uint32_t win[2] = { 2, 2 }, pad[4] = { 2, 0, 2, 0 }, stride[2] = { 1, 1 };
			m.input = x;
			m.output = tg_next(&tg);
			m.n_window_dimensions = 2;
			m.window_dimensions = win;
			m.n_padding = 4;
			m.padding = pad;
			m.n_strides = 2;
			m.strides = stride;
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, ops[k], &m);
			char label[64];
			snprintf(label, sizeof label, "%s %s padding-only window", wnn_ops[ops[k]].name,
				 wnn_dtype_name(t));
			const struct graph_ir *g = ot_finish(&tg, &o, label);
			ot_check(be, g, 1, 5, t == WNN_F16 ? TOL_F16 : TOL_SUM, label);
			/* output (0, 0): rows -2..-1, columns -2..-1 */
			double in[18], out[32]; /* 2x3x3 in, 2x4x4 out: room for any type */
			tg_random(in, t, 18, 3, 1, 5);
			const void *ins[1] = { in };
			void *outs[1] = { out };
			struct wnn_diag diag = { 0 };
			ASSERT_MSG(tg_run(ot_impl, be, g, ins, outs, &diag) == WEBNN_STATUS_OK,
				   "%s", diag.message);
			ASSERT_MSG(tg_get(out, t, 0) == 0, "%s: got %g", label, tg_get(out, t, 0));
			tg_free(&tg);
		}
	ot_impl->shutdown(be);
}
