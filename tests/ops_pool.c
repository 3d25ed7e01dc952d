/* Hand-computed vectors of the pooling family (averagePool2d, l2Pool2d, maxPool2d) on both backends. */
#include "tests/opvectors.h"

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
