/* Hand-computed vectors of the normalization family (batch/instance/layer normalization, softmax) on both backends. */
#include "tests/opvectors.h"

static enum webnn_status bn_default(struct webnn_builder *b, struct webnn_operand *const *in,
				    struct webnn_operand **out)
{
	return webnn_builder_batch_normalization(b, in[0], in[1], in[2], NULL, out);
}

static enum webnn_status bn_scale_bias(struct webnn_builder *b, struct webnn_operand *const *in,
				       struct webnn_operand **out)
{
	struct webnn_batch_normalization_options o = WEBNN_BATCH_NORMALIZATION_OPTIONS_INIT;
	o.scale = in[3];
	o.bias = in[4];
	o.epsilon = 0;
	return webnn_builder_batch_normalization(b, in[0], in[1], in[2], &o, out);
}

static enum webnn_status in_default(struct webnn_builder *b, struct webnn_operand *const *in,
				    struct webnn_operand **out)
{
	return webnn_builder_instance_normalization(b, in[0], NULL, out);
}

static enum webnn_status in_scale_bias(struct webnn_builder *b, struct webnn_operand *const *in,
				       struct webnn_operand **out)
{
	struct webnn_instance_normalization_options o = WEBNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
	o.scale = in[1];
	o.bias = in[2];
	o.epsilon = 0.5;
	return webnn_builder_instance_normalization(b, in[0], &o, out);
}

static enum webnn_status ln_default(struct webnn_builder *b, struct webnn_operand *const *in,
				    struct webnn_operand **out)
{
	return webnn_builder_layer_normalization(b, in[0], NULL, out);
}

static enum webnn_status ln_scale_bias(struct webnn_builder *b, struct webnn_operand *const *in,
				       struct webnn_operand **out)
{
	static const uint32_t axes[] = { 1 };
	struct webnn_layer_normalization_options o = WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT;
	o.scale = in[1];
	o.bias = in[2];
	o.axes = axes;
	o.n_axes = 1;
	o.epsilon = 0.5;
	return webnn_builder_layer_normalization(b, in[0], &o, out);
}

static enum webnn_status softmax_axis1(struct webnn_builder *b, struct webnn_operand *const *in,
				       struct webnn_operand **out)
{
	return webnn_builder_softmax(b, in[0], 1, out);
}

/* Two groups normalised independently: [1, 2, 3] (mean 2, variance 2/3) and [2, 4, 9] (mean 5,
 * variance 26/3). */
#define GROUPS_NCHW OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 2, 1, 3), 1, 2, 3, 2, 4, 9)
#define GROUPS_ROWS OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 1, 2, 3, 2, 4, 9)
/* (x - mean) / sqrt(variance + 1e-5), the default epsilon */
#define GROUPS_NORMALISED -1.2247356859083902, 0.0, 1.2247356859083902, \
	-1.0190487428175694, -0.3396829142725232, 1.3587316570900927

static const struct op_vector normalization_vectors[] = {
	{ WNN_OP_BATCH_NORMALIZATION, "float32 [2,2] axis 1, default epsilon", .build = bn_default,
	  .in = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 2), 1, 2, 3, 4), OV_F32(2, 2, 3),
		  OV_F32(2, 1, 4) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 2), -0.9999950000374997,
			  -0.49999937500117186, 0.9999950000374997, 0.49999937500117186) } },
	{ WNN_OP_BATCH_NORMALIZATION, "float32 scale, bias, epsilon 0", .build = bn_scale_bias,
	  .in = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 2), 1, 2, 3, 4), OV_F32(2, 2, 3),
		  OV_F32(2, 1, 4), OV_F32(2, 2, 0.5), OV_F32(2, 1, -1) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 2), -1, -1.25, 3, -0.75) } },
	{ WNN_OP_INSTANCE_NORMALIZATION, "float32 NCHW, default options", .build = in_default,
	  .in = { GROUPS_NCHW },
	  .want = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 2, 1, 3), GROUPS_NORMALISED) } },
	{ WNN_OP_INSTANCE_NORMALIZATION, "float32 scale, bias, epsilon 0.5", .build = in_scale_bias,
	  .in = { GROUPS_NCHW, OV_F32(2, 2, -1), OV_F32(2, 1, 0.5) },
	  .want = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 2, 1, 3), -0.8516401995451031, 1.0,
			  2.851640199545103, 1.4908673886137245, 0.8302891295379082,
			  -0.8211565181516327) } },
	{ WNN_OP_LAYER_NORMALIZATION, "float32 [2,3], default options (axes [1])",
	  .build = ln_default, .in = { GROUPS_ROWS },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), GROUPS_NORMALISED) } },
	{ WNN_OP_LAYER_NORMALIZATION, "float32 [1,3] scale, bias, epsilon 0.5",
	  .build = ln_scale_bias,
	  .in = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(1, 3), 1, 2, 3), OV_F32(3, 2, 1, -1),
		  OV_F32(3, 1, 0, 0.5) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(1, 3), -0.8516401995451031, 0.0,
			  -0.42582009977255153) },
	  .atol = 1e-6 },
	{ WNN_OP_SOFTMAX, "float32 axis 1, large values stay finite", .build = softmax_axis1,
	  .in = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 1, 2, 3, -1, 0, 1000) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 0.09003057317038046,
			  0.24472847105479764, 0.6652409557748218, 0, 0, 1) } },
};
OV_TABLE(NORMALIZATION, normalization_vectors);

OV_FAMILY_TESTS(NORMALIZATION, normalization)
