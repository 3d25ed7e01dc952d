/* Tests of the reduction family (reduce*, argMin/argMax, cumulativeSum): hand-computed vectors through libwebnn, the reference backend's kernels, the OpenCL backend against the reference. */
#include <math.h>

#include "daemon/backend/opencl/ocl.h"
#include "tests/ocltest.h"
#include "tests/opvectors.h"
#include "tests/reftest.h"
#include "tests/test.h"

/* ==== hand-computed vectors through libwebnn on both backends (tests/opvectors.h) */

static const uint32_t axis0[] = { 0 }, axis1[] = { 1 };

/* A reduction along axes (NULL: every axis, the default) with keepDimensions. */
#define REDUCE_BUILD(fn_, op_, axes_, n_axes_, keep_)                                          \
	static enum webnn_status fn_(struct webnn_builder *b, struct webnn_operand *const *in, \
				     struct webnn_operand **out)                               \
	{                                                                                      \
		struct webnn_reduce_options o = WEBNN_REDUCE_OPTIONS_INIT;                     \
		o.axes = axes_;                                                                \
		o.n_axes = n_axes_;                                                            \
		o.keep_dimensions = keep_;                                                     \
		return webnn_builder_##op_(b, in[0], &o, out);                                 \
	}
REDUCE_BUILD(sum_all_default, reduce_sum, NULL, 0, false)
REDUCE_BUILD(sum_axis0, reduce_sum, axis0, 1, false)
REDUCE_BUILD(sum_axis1_keep, reduce_sum, axis1, 1, true)
REDUCE_BUILD(l1_axis1, reduce_l1, axis1, 1, false)
REDUCE_BUILD(l2_axis1, reduce_l2, axis1, 1, false)
REDUCE_BUILD(log_sum_axis1, reduce_log_sum, axis1, 1, false)
REDUCE_BUILD(log_sum_exp_axis1, reduce_log_sum_exp, axis1, 1, false)
REDUCE_BUILD(max_axis1, reduce_max, axis1, 1, false)
REDUCE_BUILD(mean_axis1, reduce_mean, axis1, 1, false)
REDUCE_BUILD(mean_all_default, reduce_mean, NULL, 0, false)
REDUCE_BUILD(min_axis1, reduce_min, axis1, 1, false)
REDUCE_BUILD(product_axis1, reduce_product, axis1, 1, false)
REDUCE_BUILD(sum_square_axis1, reduce_sum_square, axis1, 1, false)

static enum webnn_status arg_max_axis1(struct webnn_builder *b, struct webnn_operand *const *in,
				       struct webnn_operand **out)
{
	return webnn_builder_arg_max(b, in[0], 1, NULL, out);
}

static enum webnn_status arg_max_axis0_keep_i64(struct webnn_builder *b,
						struct webnn_operand *const *in,
						struct webnn_operand **out)
{
	struct webnn_arg_min_max_options o = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
	o.keep_dimensions = true;
	o.output_data_type = WEBNN_INT64;
	return webnn_builder_arg_max(b, in[0], 0, &o, out);
}

static enum webnn_status arg_min_axis1(struct webnn_builder *b, struct webnn_operand *const *in,
				       struct webnn_operand **out)
{
	return webnn_builder_arg_min(b, in[0], 1, NULL, out);
}

#define CUMSUM_BUILD(fn_, exclusive_, reversed_)                                               \
	static enum webnn_status fn_(struct webnn_builder *b, struct webnn_operand *const *in, \
				     struct webnn_operand **out)                               \
	{                                                                                      \
		struct webnn_cumulative_sum_options o = WEBNN_CUMULATIVE_SUM_OPTIONS_INIT;     \
		o.exclusive = exclusive_;                                                      \
		o.reversed = reversed_;                                                        \
		return webnn_builder_cumulative_sum(b, in[0], 0, &o, out);                     \
	}
CUMSUM_BUILD(cumsum_default, false, false)
CUMSUM_BUILD(cumsum_exclusive, true, false)
CUMSUM_BUILD(cumsum_reversed, false, true)
CUMSUM_BUILD(cumsum_exclusive_reversed, true, true)

static enum webnn_status cumsum_axis1_null(struct webnn_builder *b,
					   struct webnn_operand *const *in,
					   struct webnn_operand **out)
{
	return webnn_builder_cumulative_sum(b, in[0], 1, NULL, out);
}

/* [[1, -2, 3], [4, 0.5, -6]] */
#define X23 OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 1, -2, 3, 4, 0.5, -6)
#define X23_POS OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 1, 2, 3, 4, 0.5, 6)
#define I23 OV_IN(WEBNN_INT32, 2, OV_SHAPE(2, 3), 1, -2, 3, 4, 5, -6)

static const struct op_vector reduce_vectors[] = {
	{ WNN_OP_REDUCE_SUM, "float32 every axis (default options)", .build = sum_all_default,
	  .in = { X23 }, .want = { OV_IN(WEBNN_FLOAT32, 0, OV_SHAPE(0), 0.5) } },
	{ WNN_OP_REDUCE_SUM, "float32 axis 0", .build = sum_axis0,
	  .in = { X23 }, .want = { OV_F32(3, 5, -1.5, -3) } },
	{ WNN_OP_REDUCE_SUM, "float32 axis 1 keepDimensions", .build = sum_axis1_keep,
	  .in = { X23 }, .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 1), 2, -1.5) } },
	{ WNN_OP_REDUCE_SUM, "int32 axis 1", .build = sum_axis1_keep,
	  .in = { I23 }, .want = { OV_IN(WEBNN_INT32, 2, OV_SHAPE(2, 1), 2, 3) } },
	{ WNN_OP_REDUCE_L1, "float32 axis 1", .build = l1_axis1,
	  .in = { X23 }, .want = { OV_F32(2, 6, 10.5) } },
	{ WNN_OP_REDUCE_L1, "int32 axis 1", .build = l1_axis1,
	  .in = { I23 }, .want = { OV_I32(2, 6, 15) } },
	{ WNN_OP_REDUCE_L2, "float32 axis 1", .build = l2_axis1,
	  .in = { X23 }, .want = { OV_F32(2, 3.7416573867739413, 7.22841614740048) } },
	{ WNN_OP_REDUCE_LOG_SUM, "float32 axis 1", .build = log_sum_axis1,
	  .in = { X23_POS }, .want = { OV_F32(2, 1.791759469228055, 2.3513752571634776) } },
	{ WNN_OP_REDUCE_LOG_SUM_EXP, "float32 axis 1", .build = log_sum_exp_axis1,
	  .in = { X23 }, .want = { OV_F32(2, 3.1328452337275756, 4.029794486458149) } },
	{ WNN_OP_REDUCE_MAX, "float32 axis 1", .build = max_axis1,
	  .in = { X23 }, .want = { OV_F32(2, 3, 4) } },
	{ WNN_OP_REDUCE_MAX, "int32 axis 1", .build = max_axis1,
	  .in = { I23 }, .want = { OV_I32(2, 3, 5) } },
	{ WNN_OP_REDUCE_MEAN, "float32 axis 1", .build = mean_axis1,
	  .in = { X23 }, .want = { OV_F32(2, 0.6666666666666666, -0.5) } },
	{ WNN_OP_REDUCE_MEAN, "float32 every axis (default options)", .build = mean_all_default,
	  .in = { X23 }, .want = { OV_IN(WEBNN_FLOAT32, 0, OV_SHAPE(0), 0.08333333333333333) } },
	{ WNN_OP_REDUCE_MIN, "float32 axis 1", .build = min_axis1,
	  .in = { X23 }, .want = { OV_F32(2, -2, -6) } },
	{ WNN_OP_REDUCE_MIN, "int32 axis 1", .build = min_axis1,
	  .in = { I23 }, .want = { OV_I32(2, -2, -6) } },
	{ WNN_OP_REDUCE_PRODUCT, "float32 axis 1", .build = product_axis1,
	  .in = { X23 }, .want = { OV_F32(2, -6, -12) } },
	{ WNN_OP_REDUCE_PRODUCT, "int32 axis 1", .build = product_axis1,
	  .in = { I23 }, .want = { OV_I32(2, -6, -120) } },
	{ WNN_OP_REDUCE_SUM_SQUARE, "float32 axis 1", .build = sum_square_axis1,
	  .in = { X23 }, .want = { OV_F32(2, 14, 52.25) } },
	{ WNN_OP_REDUCE_SUM_SQUARE, "int32 axis 1", .build = sum_square_axis1,
	  .in = { I23 }, .want = { OV_I32(2, 14, 77) } },

	{ WNN_OP_ARG_MAX, "float32 axis 1 (default options: int32)", .build = arg_max_axis1,
	  .in = { X23 }, .want = { OV_I32(2, 2, 0) } },
	{ WNN_OP_ARG_MAX, "int32 axis 0 keepDimensions int64", .build = arg_max_axis0_keep_i64,
	  .in = { I23 }, .want = { OV_IN(WEBNN_INT64, 2, OV_SHAPE(1, 3), 1, 1, 0) } },
	{ WNN_OP_ARG_MIN, "float32 axis 1", .build = arg_min_axis1,
	  .in = { X23 }, .want = { OV_I32(2, 1, 2) } },
	{ WNN_OP_ARG_MIN, "int32 axis 1", .build = arg_min_axis1,
	  .in = { I23 }, .want = { OV_I32(2, 1, 2) } },

	{ WNN_OP_CUMULATIVE_SUM, "float32 (default options)", .build = cumsum_default,
	  .in = { OV_F32(4, 1, 2, 3, 4.5) }, .want = { OV_F32(4, 1, 3, 6, 10.5) } },
	{ WNN_OP_CUMULATIVE_SUM, "float32 exclusive", .build = cumsum_exclusive,
	  .in = { OV_F32(4, 1, 2, 3, 4.5) }, .want = { OV_F32(4, 0, 1, 3, 6) } },
	{ WNN_OP_CUMULATIVE_SUM, "float32 reversed", .build = cumsum_reversed,
	  .in = { OV_F32(4, 1, 2, 3, 4.5) }, .want = { OV_F32(4, 10.5, 9.5, 7.5, 4.5) } },
	{ WNN_OP_CUMULATIVE_SUM, "int32 exclusive reversed", .build = cumsum_exclusive_reversed,
	  .in = { OV_I32(4, 1, -2, 3, 4) }, .want = { OV_I32(4, 5, 7, 4, 0) } },
	{ WNN_OP_CUMULATIVE_SUM, "float32 axis 1 NULL options", .build = cumsum_axis1_null,
	  .in = { X23 }, .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 1, -1, 2, 4, 4.5,
			  -1.5) } },
};
OV_TABLE(REDUCE, reduce_vectors);

OV_FAMILY_TESTS(REDUCE, reduce)

/* ==== reference backend: hand-computed and literal WPT values through its kernels */

TEST(ops_reduce_reference_arg_min_max_ties_axes_and_output_types)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	Webnn__Ipc__ArgMinMax *m = MSG(Webnn__Ipc__ArgMinMax, WEBNN__IPC__ARG_MIN_MAX__INIT);
	m->input = x, m->output = tg_next(&t), m->axis = 1;
	uint32_t o = rt_op(&t, WNN_OP_ARG_MAX, m);
	rt_expect_shape(&t, o, SHAPE(2));
	rt_expect(&t, INS(D(1, 5, 5, 7, NAN, 2)), D(1, 0), 0); /* ties: first; NaN never wins */
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_I64, SHAPE(2, 3));
	m = MSG(Webnn__Ipc__ArgMinMax, WEBNN__IPC__ARG_MIN_MAX__INIT);
	m->input = x, m->output = tg_next(&t), m->axis = 0, m->keep_dimensions = true;
	m->has_output_data_type = true, m->output_data_type = WEBNN__IPC__DATA_TYPE__INT64;
	o = rt_op(&t, WNN_OP_ARG_MIN, m);
	rt_expect_shape(&t, o, SHAPE(1, 3));
	ASSERT_EQ(t.descs[o].type, WNN_I64);
	rt_expect(&t, INS(D(3, -4, 9, 3, -5, 8)), D(0, 1, 1), 0);
	tg_free(&t);
}

TEST(ops_reduce_reference_cumulative_sum_exclusive_reversed)
{
	const double *want[4] = { D(1, 3, 6, 10, 5, 11, 18, 26), D(0, 1, 3, 6, 0, 5, 11, 18),
				  D(10, 9, 7, 4, 26, 21, 15, 8), D(9, 7, 4, 0, 21, 15, 8, 0) };
	for (int k = 0; k < 4; k++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, k < 2 ? WNN_F32 : WNN_I32, SHAPE(2, 4));
		Webnn__Ipc__CumulativeSum *m =
			MSG(Webnn__Ipc__CumulativeSum, WEBNN__IPC__CUMULATIVE_SUM__INIT);
		m->input = x, m->output = tg_next(&t), m->axis = 1;
		m->exclusive = k & 1, m->reversed = k >= 2;
		rt_op(&t, WNN_OP_CUMULATIVE_SUM, m);
		rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6, 7, 8)), want[k], 0);
		tg_free(&t);
	}
}

/* ---- reductions */

TEST(ops_reduce_reference_every_op_along_an_axis)
{
	const double in[6] = { 1, -2, 3, 4, 5, -6 };
	const struct {
		enum wnn_op op;
		double want[2];
	} cases[] = {
		{ WNN_OP_REDUCE_L1, { 6, 15 } },
		{ WNN_OP_REDUCE_L2, { sqrt(14), sqrt(77) } },
		{ WNN_OP_REDUCE_LOG_SUM, { log(2), log(3) } },
		{ WNN_OP_REDUCE_LOG_SUM_EXP,
		  { log(exp(1) + exp(-2) + exp(3)), log(exp(4) + exp(5) + exp(-6)) } },
		{ WNN_OP_REDUCE_MAX, { 3, 5 } },
		{ WNN_OP_REDUCE_MEAN, { 2.0 / 3, 1 } },
		{ WNN_OP_REDUCE_MIN, { -2, -6 } },
		{ WNN_OP_REDUCE_PRODUCT, { -6, -120 } },
		{ WNN_OP_REDUCE_SUM, { 2, 3 } },
		{ WNN_OP_REDUCE_SUM_SQUARE, { 14, 77 } },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
		Webnn__Ipc__Reduce *m = rt_reduce_msg(&t, x);
		m->has_axes = true;
		LIST(m, axes, 1);
		uint32_t o = rt_op(&t, cases[k].op, m);
		rt_expect_shape(&t, o, SHAPE(2));
		rt_expect(&t, INS(in), cases[k].want, 2);
		tg_free(&t);
	}
}

TEST(ops_reduce_reference_axes_default_empty_and_keep_dimensions)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	Webnn__Ipc__Reduce *m = rt_reduce_msg(&t, x); /* no axes: all */
	uint32_t all = rt_op(&t, WNN_OP_REDUCE_SUM, m);
	m = rt_reduce_msg(&t, x);
	m->keep_dimensions = true;
	uint32_t kept = rt_op(&t, WNN_OP_REDUCE_MEAN, m);
	m = rt_reduce_msg(&t, x);
	m->has_axes = true; /* empty: no reduction, the op per element */
	uint32_t none = rt_op(&t, WNN_OP_REDUCE_L1, m);
	m = rt_reduce_msg(&t, x);
	m->has_axes = true, m->keep_dimensions = true;
	LIST(m, axes, 0);
	uint32_t col = rt_op(&t, WNN_OP_REDUCE_MAX, m);
	rt_expect_shape(&t, all, 0, NULL);
	rt_expect_shape(&t, kept, SHAPE(1, 1));
	rt_expect_shape(&t, none, SHAPE(2, 3));
	rt_expect_shape(&t, col, SHAPE(1, 3));
	tg_output(&t, all), tg_output(&t, kept), tg_output(&t, none), tg_output(&t, col);
	void **outs = rt_run(&t, INS(D(1, -2, 3, 4, 5, -6)));
	rt_check(&t, outs, 0, D(5), 0, 0);
	rt_check(&t, outs, 1, D(5.0 / 6), 1, 0);
	rt_check(&t, outs, 2, D(1, 2, 3, 4, 5, 6), 0, 0);
	rt_check(&t, outs, 3, D(4, 5, 3), 0, 0);
	tg_free(&t);
}

TEST(ops_reduce_reference_integers_exact_and_wrapping)
{
	struct tg_graph t;
	tg_init(&t);
	uint64_t big[2] = { UINT64_MAX, 5 };
	uint32_t x = tg_constant(&t, WNN_U64, SHAPE(2), big);
	uint32_t mx = rt_op(&t, WNN_OP_REDUCE_MAX, rt_reduce_msg(&t, x));
	uint32_t sum = rt_op(&t, WNN_OP_REDUCE_SUM, rt_reduce_msg(&t, x)); /* wraps to 4 */
	uint32_t p32 = tg_input(&t, WNN_U32, SHAPE(2));
	uint32_t prod = rt_op(&t, WNN_OP_REDUCE_PRODUCT, rt_reduce_msg(&t, p32));
	uint32_t i64 = tg_input(&t, WNN_I64, SHAPE(3));
	uint32_t l1 = rt_op(&t, WNN_OP_REDUCE_L1, rt_reduce_msg(&t, i64));
	uint32_t ss = rt_op(&t, WNN_OP_REDUCE_SUM_SQUARE, rt_reduce_msg(&t, i64));
	uint32_t mn = rt_op(&t, WNN_OP_REDUCE_MIN, rt_reduce_msg(&t, i64));
	tg_output(&t, mx), tg_output(&t, sum), tg_output(&t, prod);
	tg_output(&t, l1), tg_output(&t, ss), tg_output(&t, mn);
	void **outs = rt_run(&t, INS(D(65536, 65536), D(-3, 4, -1000000)));
	ASSERT(*(uint64_t *)outs[0] == UINT64_MAX);
	ASSERT(*(uint64_t *)outs[1] == 4);
	ASSERT(*(uint32_t *)outs[2] == 0); /* 2^32 wraps */
	ASSERT(*(int64_t *)outs[3] == 1000007);
	ASSERT(*(int64_t *)outs[4] == 1000000000025LL);
	ASSERT(*(int64_t *)outs[5] == -1000000);
	tg_free(&t);
}

/* ==== OpenCL backend against the reference: seeded inputs through both (tests/ocltest.h) */

static bool is_float(enum wnn_dtype t)
{
	return t == WNN_F32 || t == WNN_F16;
}

OT_TEST(ops_reduce, arg_cumsum, 180)
{
	struct backend *be = ot_backend();
	char label[128];
	static const uint32_t dims[3] = { 3, 4, 5 };
	for (size_t ti = 0; ti < OT_N_TYPES; ti++) {
		enum wnn_dtype t = ALL_TYPES[ti];
		for (int op = 0; op < 2; op++)
			for (uint32_t axis = 0; axis < 3; axis++) {
				Webnn__Ipc__ArgMinMax m = WEBNN__IPC__ARG_MIN_MAX__INIT;
				m.axis = axis;
				m.has_keep_dimensions = 1;
				m.keep_dimensions = axis == 1;
				m.has_output_data_type = 1;
				m.output_data_type = axis == 2 ? WEBNN__IPC__DATA_TYPE__INT64
							       : WEBNN__IPC__DATA_TYPE__INT32;
				snprintf(label, sizeof label, "%s axis %u %s", op ? "argMax" : "argMin",
					 axis, wnn_dtype_name(t));
				OT_RUN1(be, t, 3, dims, op ? WNN_OP_ARG_MAX : WNN_OP_ARG_MIN, m,
				     ot_type_lo(t, -20), 20, TOL_EXACT, label);
			}
		if (!(wnn_ops[WNN_OP_CUMULATIVE_SUM].dtypes & WNN_DT_BIT(t)))
			continue;
		for (int v = 0; v < 4; v++) {
			Webnn__Ipc__CumulativeSum m = WEBNN__IPC__CUMULATIVE_SUM__INIT;
			m.axis = (uint32_t)v % 3;
			m.has_exclusive = 1;
			m.exclusive = v & 1;
			m.has_reversed = 1;
			m.reversed = (v >> 1) & 1;
			snprintf(label, sizeof label, "cumulativeSum %d %s", v, wnn_dtype_name(t));
			OT_RUN1(be, t, 3, dims, WNN_OP_CUMULATIVE_SUM, m, ot_type_lo(t, -20), 20,
			     t == WNN_F16 ? TOL_F16_SUM : TOL_SUM, label);
		}
	}
	ot_impl->shutdown(be);
}

OT_TEST(ops_reduce, reductions, 180)
{
	struct backend *be = ot_backend();
	char label[128];
	static const struct {
		int n; /* -1: axes absent */
		uint32_t axes[3];
	} sets[] = { { -1, { 0 } }, { 1, { 1 } }, { 2, { 2, 0 } }, { 0, { 0 } }, { 2, { 1, 2 } } };
	for (int op = WNN_OP_REDUCE_L1; op <= WNN_OP_REDUCE_SUM_SQUARE; op++)
		for (size_t ti = 0; ti < OT_N_TYPES; ti++) {
			enum wnn_dtype t = ALL_TYPES[ti];
			if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
				continue;
			for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
				Webnn__Ipc__Reduce m = WEBNN__IPC__REDUCE__INIT;
				uint32_t axes[3];
				memcpy(axes, sets[si].axes, sizeof axes);
				if (sets[si].n >= 0) {
					m.n_axes = (size_t)sets[si].n;
					m.axes = axes;
					m.has_has_axes = 1;
					m.has_axes = 1;
				}
				m.has_keep_dimensions = 1;
				m.keep_dimensions = si & 1;
				snprintf(label, sizeof label, "%s set %zu %s", wnn_ops[op].name, si,
					 wnn_dtype_name(t));
				/* positive inputs keep log and sqrt defined; small ones keep products
				 * of integers exact */
				bool logs = op == WNN_OP_REDUCE_LOG_SUM;
				double lo = logs ? 0.1 : ot_type_lo(t, -3), hi = logs ? 4 : 3;
				if (op == WNN_OP_REDUCE_PRODUCT && is_float(t)) {
					lo = 0.5;
					hi = 1.5;
				}
				struct tol tol = t == WNN_F16 ? TOL_F16_SUM : TOL_SUM;
				OT_RUN1(be, t, 3, ((uint32_t[]){ 3, 4, 5 }), (enum wnn_op)op, m, lo, hi,
				     tol, label);
			}
		}
	ot_impl->shutdown(be);
}

/* Few outputs over many elements take the two-stage (split) reduction: a whole-tensor
 * reduction, strided and non-contiguous reduced spaces, with and without keepDimensions. */
OT_TEST(ops_reduce, reductions_large, 300)
{
	struct backend *be = ot_backend();
	char label[160];
	static const struct {
		uint32_t rank, dims[4];
		int n; /* -1: axes absent */
		uint32_t axes[3];
	} sets[] = {
		{ 1, { 262144 }, -1, { 0 } },             /* one output */
		{ 3, { 16, 64, 256 }, 2, { 0, 2 } },      /* 64 outputs, walks an outer axis */
		{ 3, { 8, 4096, 3 }, 1, { 1 } },          /* 24 outputs, strided */
		{ 2, { 32, 8192 }, 1, { 1 } },            /* 32 contiguous rows */
		{ 4, { 2, 3, 64, 64 }, 3, { 3, 1, 2 } },  /* 2 outputs, axes out of order */
	};
	static const enum wnn_dtype types[] = { WNN_F32, WNN_F16, WNN_I32 };
	for (int op = WNN_OP_REDUCE_L1; op <= WNN_OP_REDUCE_SUM_SQUARE; op++)
		for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
			enum wnn_dtype t = types[ti];
			if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
				continue;
			for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
				Webnn__Ipc__Reduce m = WEBNN__IPC__REDUCE__INIT;
				uint32_t axes[3], dims[4];
				memcpy(axes, sets[si].axes, sizeof axes);
				memcpy(dims, sets[si].dims, sizeof dims);
				if (sets[si].n >= 0) {
					m.n_axes = (size_t)sets[si].n;
					m.axes = axes;
					m.has_has_axes = 1;
					m.has_axes = 1;
				}
				m.has_keep_dimensions = 1;
				m.keep_dimensions = (si + ti) & 1;
				snprintf(label, sizeof label, "%s large set %zu %s", wnn_ops[op].name,
					 si, wnn_dtype_name(t));
				/* positive inputs keep log defined; products stay near 1 (floats)
				 * or wrap modulo 2^64 alike (integers); float16 ranges keep sums
				 * of squares finite */
				double lo = t == WNN_F16 ? -0.25 : -3, hi = t == WNN_F16 ? 0.25 : 3;
				if (op == WNN_OP_REDUCE_LOG_SUM) {
					lo = 0.1;
					hi = 4;
				} else if (op == WNN_OP_REDUCE_PRODUCT) {
					lo = is_float(t) ? 0.999 : 1;
					hi = is_float(t) ? 1.001 : 3;
				}
				struct tol tol = t == WNN_F16 ? TOL_F16_SUM : TOL_SUM;
				OT_RUN1(be, t, sets[si].rank, dims, (enum wnn_op)op, m, lo, hi, tol, label);
			}
		}
	ot_impl->shutdown(be);
}

/* The two-stage reduction keeps the one-stage kernel's NaN and infinity results: NaN wins
 * max/min/sums wherever it sits, -inf chunks weigh nothing in logSumExp, all -inf stays -inf. */
OT_TEST(ops_reduce, reductions_large_nan_inf, 120)
{
	struct backend *be = ot_backend();
	enum { ROWS = 7, LEN = 8192 };
	float *x = malloc(sizeof(float) * ROWS * LEN);
	ASSERT(x);
	tg_random(x, WNN_F32, (uint64_t)ROWS * LEN, 77, -3, 3);
	x[0 * LEN + 5000] = NAN;                 /* NaN among numbers */
	for (int k = 0; k < LEN; k++)            /* -inf but one number */
		x[1 * LEN + k] = k == 7000 ? 2.0f : -INFINITY;
	for (int k = 0; k < LEN; k++)            /* all -inf */
		x[2 * LEN + k] = -INFINITY;
	x[3 * LEN + 100] = INFINITY;             /* +inf among numbers */
	x[4 * LEN + 0] = NAN;                    /* NaN first */
	for (int k = 0; k < LEN / 2; k++)        /* -inf chunks, then numbers */
		x[5 * LEN + k] = -INFINITY;
	x[6 * LEN + 10] = INFINITY;              /* +inf and NaN: NaN wins, also in logSumExp */
	x[6 * LEN + 6000] = NAN;
	static const enum wnn_op ops[] = { WNN_OP_REDUCE_MAX, WNN_OP_REDUCE_MIN,
					   WNN_OP_REDUCE_LOG_SUM_EXP, WNN_OP_REDUCE_SUM,
					   WNN_OP_REDUCE_MEAN, WNN_OP_REDUCE_L1 };
	/* Long rows take the two-stage path; the same data as rows of 16 take the one-stage one. */
	enum { SHORT = 16, MAX_OUT = ROWS * LEN / SHORT };
	float *want = malloc(sizeof(float) * MAX_OUT), *got = malloc(sizeof(float) * MAX_OUT);
	ASSERT(want && got);
	for (size_t c = 0; c < 2 * sizeof ops / sizeof ops[0]; c++) {
		size_t i = c % (sizeof ops / sizeof ops[0]);
		uint32_t rows = c < sizeof ops / sizeof ops[0] ? ROWS : MAX_OUT;
		uint32_t len = (uint32_t)(ROWS * LEN) / rows;
		struct tg_graph tg;
		struct wnn_diag diag = { 0 };
		tg_init(&tg);
		Webnn__Ipc__Reduce m = WEBNN__IPC__REDUCE__INIT;
		uint32_t axes[1] = { 1 };
		m.input = tg_input(&tg, WNN_F32, 2, (uint32_t[]){ rows, len });
		m.output = tg_next(&tg);
		m.has_has_axes = m.has_axes = 1;
		m.n_axes = 1;
		m.axes = axes;
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, ops[i], &m);
		const struct graph_ir *g = ot_finish(&tg, &o, wnn_ops[ops[i]].name);
		const void *in[1] = { x };
		void *out_ref[1] = { want }, *out_ocl[1] = { got };
		ASSERT_MSG(tg_run(&backend_reference, NULL, g, in, out_ref, &diag) ==
				   WEBNN_STATUS_OK,
			   "%s", diag.message);
		ASSERT_MSG(tg_run(ot_impl, be, g, in, out_ocl, &diag) == WEBNN_STATUS_OK,
			   "%s", diag.message);
		char msg[256];
		ASSERT_MSG(tg_compare(got, want, WNN_F32, rows, 0, TOL_SUM.atol, TOL_SUM.rtol, msg,
				      sizeof msg),
			   "%s over rows of %u: %s", wnn_ops[ops[i]].name, len, msg);
		tg_free(&tg);
	}
	free(want);
	free(got);
	free(x);
	ot_impl->shutdown(be);
}
