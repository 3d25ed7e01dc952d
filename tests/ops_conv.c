/* Hand-computed vectors of the convolution family (conv2d, convTranspose2d) on both backends. */
#include "tests/opvectors.h"

static enum webnn_status conv_default(struct webnn_builder *b, struct webnn_operand *const *in,
				      struct webnn_operand **out)
{
	return webnn_builder_conv2d(b, in[0], in[1], NULL, out);
}

static enum webnn_status conv_pad_stride_bias(struct webnn_builder *b,
					      struct webnn_operand *const *in,
					      struct webnn_operand **out)
{
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	o.n_padding = 4;
	o.padding[0] = o.padding[1] = o.padding[2] = o.padding[3] = 1;
	o.n_strides = 2;
	o.strides[0] = o.strides[1] = 2;
	o.bias = in[2];
	return webnn_builder_conv2d(b, in[0], in[1], &o, out);
}

static enum webnn_status conv_dilated(struct webnn_builder *b, struct webnn_operand *const *in,
				      struct webnn_operand **out)
{
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	o.n_dilations = 2;
	o.dilations[0] = o.dilations[1] = 2;
	return webnn_builder_conv2d(b, in[0], in[1], &o, out);
}

static enum webnn_status conv_groups2(struct webnn_builder *b, struct webnn_operand *const *in,
				      struct webnn_operand **out)
{
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	o.groups = 2;
	return webnn_builder_conv2d(b, in[0], in[1], &o, out);
}

static enum webnn_status conv_t_default(struct webnn_builder *b, struct webnn_operand *const *in,
					struct webnn_operand **out)
{
	return webnn_builder_conv_transpose2d(b, in[0], in[1], NULL, out);
}

static enum webnn_status conv_t_stride_bias(struct webnn_builder *b,
					    struct webnn_operand *const *in,
					    struct webnn_operand **out)
{
	struct webnn_conv_transpose2d_options o = WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
	o.n_strides = 2;
	o.strides[0] = o.strides[1] = 2;
	o.bias = in[2];
	return webnn_builder_conv_transpose2d(b, in[0], in[1], &o, out);
}

#define IMAGE_3X3 OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 3, 3), 1, 2, 3, 4, 5, 6, 7, 8, 9)
#define FILTER_2X2 OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 2, 2), 1, 2, 3, 4)

static const struct op_vector conv_vectors[] = {
	{ WNN_OP_CONV2D, "float32 3x3 * 2x2, default options", .build = conv_default,
	  .in = { IMAGE_3X3, FILTER_2X2 },
	  .want = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 2, 2), 37, 47, 67, 77) } },
	{ WNN_OP_CONV2D, "float32 padding 1, strides 2, bias, constant filter",
	  .build = conv_pad_stride_bias,
	  .in = { IMAGE_3X3, OV_CONST(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 2, 2), 1, 2, 3, 4),
		  OV_F32(1, 10) },
	  .want = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 2, 2), 14, 28, 46, 87) } },
	{ WNN_OP_CONV2D, "float32 4x4 dilations 2", .build = conv_dilated,
	  .in = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 4, 4), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
			12, 13, 14, 15, 16),
		  FILTER_2X2 },
	  .want = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 2, 2), 78, 88, 118, 128) } },
	{ WNN_OP_CONV2D, "float32 groups 2 (depthwise)", .build = conv_groups2,
	  .in = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 2, 2, 2), 1, 2, 3, 4, 5, 6, 7, 8),
		  OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(2, 1, 2, 2), 1, 1, 1, 1, 1, 0, 0, -1) },
	  .want = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 2, 1, 1), 10, -3) } },
	{ WNN_OP_CONV_TRANSPOSE2D, "float32 2x2 * 2x2, default options", .build = conv_t_default,
	  .in = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 2, 2), 1, 2, 3, 4), FILTER_2X2 },
	  .want = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 3, 3), 1, 4, 4, 6, 20, 16, 9, 24,
			  16) } },
	{ WNN_OP_CONV_TRANSPOSE2D, "float32 strides 2, bias", .build = conv_t_stride_bias,
	  .in = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 2, 2), 1, 2, 3, 4), FILTER_2X2,
		  OV_F32(1, 1) },
	  .want = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 4, 4), 2, 3, 3, 5, 4, 5, 7, 9, 4, 7, 5,
			  9, 10, 13, 13, 17) } },
};
OV_TABLE(CONV, conv_vectors);

OV_FAMILY_TESTS(CONV, conv)
