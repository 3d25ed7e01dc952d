/* Hand-computed vectors of the reduction family (reduce*, argMin/argMax, cumulativeSum) on both backends. */
#include <math.h>

#include "tests/opvectors.h"

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
