/* Tests of the elementwise family (unary, binary, logical, activations, clamp, prelu, where): hand-computed vectors through libwebnn, validation, libwebnn graphs, the reference backend's kernels, the OpenCL backend against the reference. */
#include <math.h>

#include "daemon/backend/opencl/ocl.h"
#include "tests/clienttest.h"
#include "tests/ocltest.h"
#include "tests/opvectors.h"
#include "tests/reftest.h"
#include "tests/opfixture.h"
#include "tests/test.h"

/* ==== hand-computed vectors through libwebnn on both backends (tests/opvectors.h) */

/* ---- operators with scalar options: the spec defaults (NULL options) and explicit ones */

static enum webnn_status build_elu_default(struct webnn_builder *b, struct webnn_operand *const *in,
					   struct webnn_operand **out)
{
	return webnn_builder_elu(b, in[0], NULL, out);
}

static enum webnn_status build_elu_alpha2(struct webnn_builder *b, struct webnn_operand *const *in,
					  struct webnn_operand **out)
{
	struct webnn_elu_options o = WEBNN_ELU_OPTIONS_INIT;
	o.alpha = 2;
	return webnn_builder_elu(b, in[0], &o, out);
}

static enum webnn_status build_leaky_relu_default(struct webnn_builder *b,
						  struct webnn_operand *const *in,
						  struct webnn_operand **out)
{
	return webnn_builder_leaky_relu(b, in[0], NULL, out);
}

static enum webnn_status build_leaky_relu_alpha(struct webnn_builder *b,
						struct webnn_operand *const *in,
						struct webnn_operand **out)
{
	struct webnn_leaky_relu_options o = WEBNN_LEAKY_RELU_OPTIONS_INIT;
	o.alpha = 0.5;
	return webnn_builder_leaky_relu(b, in[0], &o, out);
}

static enum webnn_status build_hard_sigmoid_default(struct webnn_builder *b,
						    struct webnn_operand *const *in,
						    struct webnn_operand **out)
{
	return webnn_builder_hard_sigmoid(b, in[0], NULL, out);
}

static enum webnn_status build_hard_sigmoid_opts(struct webnn_builder *b,
						 struct webnn_operand *const *in,
						 struct webnn_operand **out)
{
	struct webnn_hard_sigmoid_options o = WEBNN_HARD_SIGMOID_OPTIONS_INIT;
	o.alpha = 0.5;
	o.beta = 0.25;
	return webnn_builder_hard_sigmoid(b, in[0], &o, out);
}

static enum webnn_status build_linear_default(struct webnn_builder *b,
					      struct webnn_operand *const *in,
					      struct webnn_operand **out)
{
	return webnn_builder_linear(b, in[0], NULL, out);
}

static enum webnn_status build_linear_opts(struct webnn_builder *b, struct webnn_operand *const *in,
					   struct webnn_operand **out)
{
	struct webnn_linear_options o = WEBNN_LINEAR_OPTIONS_INIT;
	o.alpha = 2;
	o.beta = -1;
	return webnn_builder_linear(b, in[0], &o, out);
}

static enum webnn_status build_clamp_default(struct webnn_builder *b,
					     struct webnn_operand *const *in,
					     struct webnn_operand **out)
{
	return webnn_builder_clamp(b, in[0], NULL, out);
}

static enum webnn_status build_clamp_both(struct webnn_builder *b, struct webnn_operand *const *in,
					  struct webnn_operand **out)
{
	struct webnn_clamp_options o = WEBNN_CLAMP_OPTIONS_INIT;
	o.has_min_value = o.has_max_value = true;
	o.min_value = -1;
	o.max_value = 1;
	return webnn_builder_clamp(b, in[0], &o, out);
}

static enum webnn_status build_clamp_int(struct webnn_builder *b, struct webnn_operand *const *in,
					 struct webnn_operand **out)
{
	struct webnn_clamp_options o = WEBNN_CLAMP_OPTIONS_INIT;
	o.has_min_value = o.has_max_value = true;
	o.min_value = 0;
	o.max_value = 10;
	return webnn_builder_clamp(b, in[0], &o, out);
}

/* bounds are cast to uint8: -5 saturates to 0 and 300 to 255 */
static enum webnn_status build_clamp_saturated_bounds(struct webnn_builder *b,
						      struct webnn_operand *const *in,
						      struct webnn_operand **out)
{
	struct webnn_clamp_options o = WEBNN_CLAMP_OPTIONS_INIT;
	o.has_min_value = o.has_max_value = true;
	o.min_value = -5;
	o.max_value = 300;
	return webnn_builder_clamp(b, in[0], &o, out);
}

static enum webnn_status build_prelu(struct webnn_builder *b, struct webnn_operand *const *in,
				     struct webnn_operand **out)
{
	return webnn_builder_prelu(b, in[0], in[1], out);
}

static enum webnn_status build_where(struct webnn_builder *b, struct webnn_operand *const *in,
				     struct webnn_operand **out)
{
	return webnn_builder_where(b, in[0], in[1], in[2], out);
}

/* Comparison inputs: NaN compares false (unequal) and -0 equals +0. */
#define CMP_A OV_F32(5, 1, 2, 3, NAN, -0.0)
#define CMP_B OV_F32(5, 2, 2, 1, 1, 0)
#define ICMP_A OV_I32(4, 1, 2, 3, -4)
#define ICMP_B OV_I32(4, 2, 2, 1, -5)
#define LOGIC_A OV_U8(6, 0, 0, 1, 1, 2, 0)
#define LOGIC_B OV_U8(6, 0, 1, 0, 1, 3, 255)

static const struct op_vector elementwise_vectors[] = {
	/* unary float32, expected values from Python's math module */
	{ WNN_OP_ABS, "float32 edge values", .unary = webnn_builder_abs,
	  .in = { OV_F32(10, -3, -1.5, -0.0, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(10, 3, 1.5, 0, 0, 0.25, 1, 2.5, INFINITY, INFINITY, NAN) },
			  .zero_sign = true },
	{ WNN_OP_CEIL, "float32 edge values", .unary = webnn_builder_ceil,
	  .in = { OV_F32(10, -3, -1.5, -0.0, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(10, -3, -1, -0.0, 0, 1, 1, 3, INFINITY, -INFINITY, NAN) },
			  .zero_sign = true },
	{ WNN_OP_FLOOR, "float32 edge values", .unary = webnn_builder_floor,
	  .in = { OV_F32(10, -3, -1.5, -0.0, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(10, -3, -2, -0.0, 0, 0, 1, 2, INFINITY, -INFINITY, NAN) },
			  .zero_sign = true },
	{ WNN_OP_COS, "float32 edge values", .unary = webnn_builder_cos,
	  .in = { OV_F32(7, -3, -1.5, 0, 0.25, 1, 2.5, NAN) },
	  .want = { OV_F32(7, -0.9899924966004454, 0.0707372016677029, 1, 0.9689124217106447,
			  0.5403023058681398, -0.8011436155469337, NAN) } },
	{ WNN_OP_SIN, "float32 edge values", .unary = webnn_builder_sin,
	  .in = { OV_F32(7, -3, -1.5, -0.0, 0.25, 1, 2.5, NAN) },
	  .want = { OV_F32(7, -0.1411200080598672, -0.9974949866040544, -0.0, 0.24740395925452294,
			  0.8414709848078965, 0.5984721441039565, NAN) } },
	{ WNN_OP_TAN, "float32 edge values", .unary = webnn_builder_tan,
	  .in = { OV_F32(7, -3, -1.5, 0, 0.25, 1, 2.5, NAN) },
	  .want = { OV_F32(7, 0.1425465430742778, -14.101419947171719, 0, 0.25534192122103627,
			  1.5574077246549023, -0.7470222972386603, NAN) } },
	{ WNN_OP_ERF, "float32 edge values", .unary = webnn_builder_erf,
	  .in = { OV_F32(10, -3, -1.5, -0.0, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(10, -0.9999779095030014, -0.9661051464753108, -0.0, 0,
			  0.2763263901682369, 0.8427007929497149, 0.999593047982555, 1, -1,
			  NAN) } },
	{ WNN_OP_EXP, "float32 edge values", .unary = webnn_builder_exp,
	  .in = { OV_F32(10, -3, -1.5, -0.0, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(10, 0.049787068367863944, 0.22313016014842982, 1, 1, 1.2840254166877414,
			  2.718281828459045, 12.182493960703473, INFINITY, 0, NAN) } },
	{ WNN_OP_IDENTITY, "float32 edge values", .unary = webnn_builder_identity,
	  .in = { OV_F32(10, -3, -1.5, -0.0, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(10, -3, -1.5, -0.0, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
			  .zero_sign = true },
	{ WNN_OP_LOG, "float32 edge values", .unary = webnn_builder_log,
	  .in = { OV_F32(9, -1, -0.0, 0, 0.25, 1, 2.5, 10, INFINITY, NAN) },
	  .want = { OV_F32(9, NAN, -INFINITY, -INFINITY, -1.3862943611198906, 0, 0.9162907318741551,
			  2.302585092994046, INFINITY, NAN) } },
	{ WNN_OP_NEG, "float32 edge values", .unary = webnn_builder_neg,
	  .in = { OV_F32(10, -3, -1.5, -0.0, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(10, 3, 1.5, 0, -0.0, -0.25, -1, -2.5, -INFINITY, INFINITY, NAN) },
			  .zero_sign = true },
	{ WNN_OP_RECIPROCAL, "float32 edge values", .unary = webnn_builder_reciprocal,
	  .in = { OV_F32(10, -4, -0.0, 0, 0.25, 1, 2.5, 3, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(10, -0.25, -INFINITY, INFINITY, 4, 1, 0.4, 0.3333333333333333, 0, -0.0,
			  NAN) }, .zero_sign = true },
	{ WNN_OP_ROUND_EVEN, "float32 edge values", .unary = webnn_builder_round_even,
	  .in = { OV_F32(10, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7, -3.7, INFINITY, NAN) },
	  .want = { OV_F32(10, -2, -2, -0.0, 0, 2, 2, 4, -4, INFINITY, NAN) }, .zero_sign = true },
	{ WNN_OP_SIGN, "float32 edge values", .unary = webnn_builder_sign,
	  .in = { OV_F32(9, -3, -1.5, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(9, -1, -1, 0, 1, 1, 1, 1, -1, NAN) } },
	{ WNN_OP_SQRT, "float32 edge values", .unary = webnn_builder_sqrt,
	  .in = { OV_F32(8, -1, -0.0, 0, 0.25, 2, 9, INFINITY, NAN) },
	  .want = { OV_F32(8, NAN, -0.0, 0, 0.5, 1.4142135623730951, 3, INFINITY, NAN) },
			  .zero_sign = true },
	{ WNN_OP_RELU, "float32 edge values", .unary = webnn_builder_relu,
	  .in = { OV_F32(8, -3, -1.5, 0, 0.25, 1, 2.5, INFINITY, -INFINITY) },
	  .want = { OV_F32(8, 0, 0, 0, 0.25, 1, 2.5, INFINITY, 0) } },
	{ WNN_OP_SIGMOID, "float32 edge values", .unary = webnn_builder_sigmoid,
	  .in = { OV_F32(10, -3, -1.5, -0.0, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(10, 0.04742587317756678, 0.18242552380635635, 0.5, 0.5,
			  0.5621765008857981, 0.7310585786300049, 0.9241418199787566, 1, 0,
			  NAN) } },
	{ WNN_OP_TANH, "float32 edge values", .unary = webnn_builder_tanh,
	  .in = { OV_F32(10, -3, -1.5, -0.0, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(10, -0.9950547536867305, -0.9051482536448664, -0.0, 0,
			  0.24491866240370913, 0.7615941559557649, 0.9866142981514303, 1, -1,
			  NAN) } },
	{ WNN_OP_SOFTPLUS, "float32 edge values", .unary = webnn_builder_softplus,
	  .in = { OV_F32(10, -3, -1.5, 0, 0.25, 1, 2.5, 30, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(10, 0.04858735157374206, 0.2014132779827524, 0.6931471805599453,
			  0.8259394198788436, 1.3132616875182228, 2.5788897342925496,
			  30.000000000000092, INFINITY, 0, NAN) } },
	{ WNN_OP_SOFTSIGN, "float32 edge values", .unary = webnn_builder_softsign,
	  .in = { OV_F32(8, -3, -1.5, -0.0, 0, 0.25, 1, 2.5, NAN) },
	  .want = { OV_F32(8, -0.75, -0.6, -0.0, 0, 0.2, 0.5, 0.7142857142857143, NAN) } },
	{ WNN_OP_GELU, "float32 edge values", .unary = webnn_builder_gelu,
	  .in = { OV_F32(8, -3, -1.5, 0, 0.25, 1, 2.5, INFINITY, NAN) },
	  .want = { OV_F32(8, -0.00404969409489031, -0.10021080190328713, 0, 0.14967658142073093,
			  0.8413447460685429, 2.4844758366855597, INFINITY, NAN) },
	  /* 1 + erf(x / sqrt 2) cancels for negative x in float32 */
	  .rtol = 1e-5, .atol = 1e-7 },
	{ WNN_OP_HARD_SWISH, "float32 edge values", .unary = webnn_builder_hard_swish,
	  .in = { OV_F32(10, -4, -3, -1.5, 0, 0.25, 1, 2.5, 3, 6, NAN) },
	  .want = { OV_F32(10, -0.0, -0.0, -0.375, 0, 0.13541666666666666, 0.6666666666666666,
			  2.2916666666666665, 3, 6, NAN) } },
	{ WNN_OP_ELU, "float32 NULL options: alpha 1", .build = build_elu_default,
	  .in = { OV_F32(9, -3, -1.5, 0, 0.25, 1, 2.5, -INFINITY, INFINITY, NAN) },
	  .want = { OV_F32(9, -0.950212931632136, -0.7768698398515702, 0, 0.25, 1, 2.5, -1,
			  INFINITY, NAN) } },
	{ WNN_OP_ELU, "float32 alpha 2", .build = build_elu_alpha2,
	  .in = { OV_F32(6, -3, -1.5, 0, 0.25, 1, 2.5) },
	  .want = { OV_F32(6, -1.900425863264272, -1.5537396797031404, 0, 0.25, 1, 2.5) } },
	{ WNN_OP_LEAKY_RELU, "float32 NULL options: alpha 0.01", .build = build_leaky_relu_default,
	  .in = { OV_F32(9, -3, -1.5, 0, 0.25, 1, 2.5, -INFINITY, INFINITY, NAN) },
	  .want = { OV_F32(9, -0.03, -0.015, 0, 0.25, 1, 2.5, -INFINITY, INFINITY, NAN) } },
	{ WNN_OP_LEAKY_RELU, "float32 alpha 0.5", .build = build_leaky_relu_alpha,
	  .in = { OV_F32(6, -3, -1.5, 0, 0.25, 1, 2.5) },
	  .want = { OV_F32(6, -1.5, -0.75, 0, 0.25, 1, 2.5) } },
	{ WNN_OP_HARD_SIGMOID, "float32 NULL options: alpha 0.2, beta 0.5",
	  .build = build_hard_sigmoid_default,
	  .in = { OV_F32(10, -3, -2.5, -1.5, 0, 0.25, 1, 2.5, 3, -INFINITY, INFINITY) },
	  .want = { OV_F32(10, 0, 0, 0.19999999999999996, 0.5, 0.55, 0.7, 1, 1, 0, 1) } },
	{ WNN_OP_HARD_SIGMOID, "float32 alpha 0.5, beta 0.25", .build = build_hard_sigmoid_opts,
	  .in = { OV_F32(6, -3, -1.5, 0, 0.25, 1, 2.5) },
	  .want = { OV_F32(6, 0, 0, 0.25, 0.375, 0.75, 1) } },
	{ WNN_OP_LINEAR, "float32 NULL options: alpha 1, beta 0", .build = build_linear_default,
	  .in = { OV_F32(9, -3, -1.5, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) },
	  .want = { OV_F32(9, -3, -1.5, 0, 0.25, 1, 2.5, INFINITY, -INFINITY, NAN) } },
	{ WNN_OP_LINEAR, "float32 alpha 2, beta -1", .build = build_linear_opts,
	  .in = { OV_F32(6, -3, -1.5, 0, 0.25, 1, 2.5) },
	  .want = { OV_F32(6, -7, -4, -1, -0.5, 1, 4) } },

	/* unary integer forms */
	{ WNN_OP_ABS, "int32", .unary = webnn_builder_abs,
	  .in = { OV_I32(4, -3, 0, 5, -128) }, .want = { OV_I32(4, 3, 0, 5, 128) } },
	{ WNN_OP_ABS, "int8", .unary = webnn_builder_abs,
	  .in = { OV_I8(4, -3, 0, 5, -127) }, .want = { OV_I8(4, 3, 0, 5, 127) } },
	{ WNN_OP_IDENTITY, "int64", .unary = webnn_builder_identity,
	  .in = { OV_I64(3, -5, 0, 1099511627776) }, .want = { OV_I64(3, -5, 0, 1099511627776) } },
	{ WNN_OP_NEG, "int32", .unary = webnn_builder_neg,
	  .in = { OV_I32(3, -3, 0, 5) }, .want = { OV_I32(3, 3, 0, -5) } },
	{ WNN_OP_SIGN, "int32", .unary = webnn_builder_sign,
	  .in = { OV_I32(3, -7, 0, 9) }, .want = { OV_I32(3, -1, 0, 1) } },
	{ WNN_OP_RELU, "int32", .unary = webnn_builder_relu,
	  .in = { OV_I32(3, -7, 0, 9) }, .want = { OV_I32(3, 0, 0, 9) } },
	{ WNN_OP_RELU, "int8", .unary = webnn_builder_relu,
	  .in = { OV_I8(4, -128, -1, 0, 127) }, .want = { OV_I8(4, 0, 0, 0, 127) } },
	{ WNN_OP_LOGICAL_NOT, "uint8", .unary = webnn_builder_logical_not,
	  .in = { OV_U8(4, 0, 1, 2, 255) }, .want = { OV_U8(4, 1, 0, 0, 0) } },
	{ WNN_OP_IS_NAN, "float32", .unary = webnn_builder_is_nan,
	  .in = { OV_F32(5, 0, -1.5, INFINITY, -INFINITY, NAN) }, .want = { OV_U8(5, 0, 0, 0, 0,
			  1) } },
	{ WNN_OP_IS_INFINITE, "float32", .unary = webnn_builder_is_infinite,
	  .in = { OV_F32(5, 0, -1.5, INFINITY, -INFINITY, NAN) }, .want = { OV_U8(5, 0, 0, 1, 1,
			  0) } },

	/* float16: the same math at half precision */
	{ WNN_OP_EXP, "float16", .unary = webnn_builder_exp,
	  .in = { OV_F16(4, -1, 0, 0.5, 1) },
	  .want = { OV_F16(4, 0.36787944117144233, 1, 1.6487212707001282, 2.718281828459045) } },
	{ WNN_OP_SIGMOID, "float16", .unary = webnn_builder_sigmoid,
	  .in = { OV_F16(3, -2, 0, 0.5) },
	  .want = { OV_F16(3, 0.11920292202211755, 0.5, 0.6224593312018546) } },
	{ WNN_OP_RELU, "float16", .unary = webnn_builder_relu,
	  .in = { OV_F16(4, -2, 0, 0.5, 65504) }, .want = { OV_F16(4, 0, 0, 0.5, 65504) } },
	{ WNN_OP_ADD, "float16", .binary = webnn_builder_add,
	  .in = { OV_F16(3, 1, 0.5, 65504), OV_F16(3, 2, 0.25, 65504) },
	  .want = { OV_F16(3, 3, 0.75, INFINITY) } },

	/* binary float32 */
	{ WNN_OP_ADD, "float32", .binary = webnn_builder_add,
	  .in = { OV_F32(6, 1, -2.5, INFINITY, INFINITY, NAN, -0.0),
		  OV_F32(6, 2, 2.5, 1, -INFINITY, 1, -0.0) },
	  .want = { OV_F32(6, 3, 0, INFINITY, NAN, NAN, -0.0) }, .zero_sign = true },
	{ WNN_OP_ADD, "float32 broadcast [2,3] + [3]", .binary = webnn_builder_add,
	  .in = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 1, 2, 3, 4, 5, 6),
		  OV_F32(3, 10, 20, 30) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 11, 22, 33, 14, 25, 36) } },
	{ WNN_OP_SUB, "float32", .binary = webnn_builder_sub,
	  .in = { OV_F32(6, 1, -2.5, INFINITY, INFINITY, NAN, 0.5),
		  OV_F32(6, 2, 2.5, 1, INFINITY, 1, 0.25) },
	  .want = { OV_F32(6, -1, -5, INFINITY, NAN, NAN, 0.25) } },
	{ WNN_OP_MUL, "float32", .binary = webnn_builder_mul,
	  .in = { OV_F32(6, 1.5, -2, INFINITY, INFINITY, NAN, -0.0), OV_F32(6, 2, 2.5, -1, 0, 1,
			  3) },
	  .want = { OV_F32(6, 3, -5, -INFINITY, NAN, NAN, -0.0) }, .zero_sign = true },
	{ WNN_OP_DIV, "float32", .binary = webnn_builder_div,
	  .in = { OV_F32(7, 1, -3, 1, -1, 0, NAN, 6), OV_F32(7, 4, 2, 0, 0, 0, 1, INFINITY) },
	  .want = { OV_F32(7, 0.25, -1.5, INFINITY, -INFINITY, NAN, NAN, 0) } },
	{ WNN_OP_MAX, "float32", .binary = webnn_builder_max,
	  .in = { OV_F32(4, 1, -2, 3, -0.5), OV_F32(4, 2, -3, 3, -0.25) },
	  .want = { OV_F32(4, 2, -2, 3, -0.25) } },
	{ WNN_OP_MIN, "float32", .binary = webnn_builder_min,
	  .in = { OV_F32(4, 1, -2, 3, -0.5), OV_F32(4, 2, -3, 3, -0.25) },
	  .want = { OV_F32(4, 1, -3, 3, -0.5) } },
	{ WNN_OP_POW, "float32", .binary = webnn_builder_pow,
	  .in = { OV_F32(8, 2, 2, 4, -2, -2, 9, 0, -8), OV_F32(8, 3, -1, 0.5, 2, 3, -0.5, 0, 0.5) },
	  .want = { OV_F32(8, 8, 0.5, 2, 4, -8, 0.3333333333333333, 1, NAN) } },
	{ WNN_OP_EQUAL, "float32", .binary = webnn_builder_equal,
	  .in = { CMP_A, CMP_B }, .want = { OV_U8(5, 0, 1, 0, 0, 1) } },
	{ WNN_OP_NOT_EQUAL, "float32", .binary = webnn_builder_not_equal,
	  .in = { CMP_A, CMP_B }, .want = { OV_U8(5, 1, 0, 1, 1, 0) } },
	{ WNN_OP_GREATER, "float32", .binary = webnn_builder_greater,
	  .in = { CMP_A, CMP_B }, .want = { OV_U8(5, 0, 0, 1, 0, 0) } },
	{ WNN_OP_GREATER_OR_EQUAL, "float32", .binary = webnn_builder_greater_or_equal,
	  .in = { CMP_A, CMP_B }, .want = { OV_U8(5, 0, 1, 1, 0, 1) } },
	{ WNN_OP_LESSER, "float32", .binary = webnn_builder_lesser,
	  .in = { CMP_A, CMP_B }, .want = { OV_U8(5, 1, 0, 0, 0, 0) } },
	{ WNN_OP_LESSER_OR_EQUAL, "float32", .binary = webnn_builder_lesser_or_equal,
	  .in = { CMP_A, CMP_B }, .want = { OV_U8(5, 1, 1, 0, 0, 1) } },

	/* binary integer forms (division truncates toward zero) */
	{ WNN_OP_ADD, "int32", .binary = webnn_builder_add,
	  .in = { OV_I32(4, 1, -2, 100, -7), OV_I32(4, 2, 5, -300, -8) },
	  .want = { OV_I32(4, 3, 3, -200, -15) } },
	{ WNN_OP_ADD, "int64", .binary = webnn_builder_add,
	  .in = { OV_I64(2, 1099511627776, -5), OV_I64(2, 1, 2) },
	  .want = { OV_I64(2, 1099511627777, -3) } },
	{ WNN_OP_ADD, "uint8", .binary = webnn_builder_add,
	  .in = { OV_U8(2, 200, 7), OV_U8(2, 55, 8) }, .want = { OV_U8(2, 255, 15) } },
	{ WNN_OP_SUB, "int32", .binary = webnn_builder_sub,
	  .in = { OV_I32(4, 1, -2, 100, -7), OV_I32(4, 2, 5, -300, -8) },
	  .want = { OV_I32(4, -1, -7, 400, 1) } },
	{ WNN_OP_MUL, "int32", .binary = webnn_builder_mul,
	  .in = { OV_I32(4, 3, -4, 7, -5), OV_I32(4, 2, 5, -3, -6) },
	  .want = { OV_I32(4, 6, -20, -21, 30) } },
	{ WNN_OP_DIV, "int32", .binary = webnn_builder_div,
	  .in = { OV_I32(5, 7, -7, 8, -9, 7), OV_I32(5, 2, 2, -2, -2, 7) },
	  .want = { OV_I32(5, 3, -3, -4, 4, 1) } },
	{ WNN_OP_DIV, "uint32", .binary = webnn_builder_div,
	  .in = { OV_U32(2, 4000000000, 7), OV_U32(2, 3, 2) },
	  .want = { OV_U32(2, 1333333333, 3) } },
	{ WNN_OP_MAX, "int32", .binary = webnn_builder_max,
	  .in = { OV_I32(4, 3, -4, 7, -5), OV_I32(4, 2, 5, -3, -6) },
	  .want = { OV_I32(4, 3, 5, 7, -5) } },
	{ WNN_OP_MIN, "int32", .binary = webnn_builder_min,
	  .in = { OV_I32(4, 3, -4, 7, -5), OV_I32(4, 2, 5, -3, -6) },
	  .want = { OV_I32(4, 2, -4, -3, -6) } },
	{ WNN_OP_EQUAL, "int32", .binary = webnn_builder_equal,
	  .in = { ICMP_A, ICMP_B }, .want = { OV_U8(4, 0, 1, 0, 0) } },
	{ WNN_OP_NOT_EQUAL, "int32", .binary = webnn_builder_not_equal,
	  .in = { ICMP_A, ICMP_B }, .want = { OV_U8(4, 1, 0, 1, 1) } },
	{ WNN_OP_GREATER, "int32", .binary = webnn_builder_greater,
	  .in = { ICMP_A, ICMP_B }, .want = { OV_U8(4, 0, 0, 1, 1) } },
	{ WNN_OP_GREATER_OR_EQUAL, "int32", .binary = webnn_builder_greater_or_equal,
	  .in = { ICMP_A, ICMP_B }, .want = { OV_U8(4, 0, 1, 1, 1) } },
	{ WNN_OP_LESSER, "int32", .binary = webnn_builder_lesser,
	  .in = { ICMP_A, ICMP_B }, .want = { OV_U8(4, 1, 0, 0, 0) } },
	{ WNN_OP_LESSER_OR_EQUAL, "int32", .binary = webnn_builder_lesser_or_equal,
	  .in = { ICMP_A, ICMP_B }, .want = { OV_U8(4, 1, 1, 0, 0) } },
	{ WNN_OP_LOGICAL_AND, "uint8", .binary = webnn_builder_logical_and,
	  .in = { LOGIC_A, LOGIC_B }, .want = { OV_U8(6, 0, 0, 0, 1, 1, 0) } },
	{ WNN_OP_LOGICAL_OR, "uint8", .binary = webnn_builder_logical_or,
	  .in = { LOGIC_A, LOGIC_B }, .want = { OV_U8(6, 0, 1, 1, 1, 1, 1) } },
	{ WNN_OP_LOGICAL_XOR, "uint8", .binary = webnn_builder_logical_xor,
	  .in = { LOGIC_A, LOGIC_B }, .want = { OV_U8(6, 0, 1, 1, 0, 0, 1) } },

	/* clamp, prelu, where */
	{ WNN_OP_CLAMP, "float32 no bounds (default)", .build = build_clamp_default,
	  .in = { OV_F32(4, -3e38, -1, 0.5, INFINITY) },
	  .want = { OV_F32(4, -3e38, -1, 0.5, INFINITY) } },
	{ WNN_OP_CLAMP, "float32 [-1, 1]", .build = build_clamp_both,
	  .in = { OV_F32(7, -3, -1, 0, 0.5, 2, INFINITY, -INFINITY) },
	  .want = { OV_F32(7, -1, -1, 0, 0.5, 1, 1, -1) } },
	{ WNN_OP_CLAMP, "int32 [0, 10]", .build = build_clamp_int,
	  .in = { OV_I32(4, -5, 0, 5, 11) }, .want = { OV_I32(4, 0, 0, 5, 10) } },
	{ WNN_OP_CLAMP, "uint8 bounds -5 and 300 cast to 0 and 255",
	  .build = build_clamp_saturated_bounds,
	  .in = { OV_U8(3, 0, 7, 255) }, .want = { OV_U8(3, 0, 7, 255) } },
	{ WNN_OP_PRELU, "float32 slope broadcast [2,3] x [3]", .build = build_prelu,
	  .in = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), -2, -1, 0, 1, 2, -3),
		  OV_F32(3, 0.5, 0.25, 2) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), -1, -0.25, 0, 1, 2, -6) } },
	{ WNN_OP_PRELU, "int32", .build = build_prelu,
	  .in = { OV_I32(4, -2, 3, -4, 5), OV_I32(1, 3) }, .want = { OV_I32(4, -6, 3, -12, 5) } },
	{ WNN_OP_WHERE, "float32 values", .build = build_where,
	  .in = { OV_U8(4, 1, 0, 2, 0), OV_F32(4, 1, 2, 3, 4), OV_F32(4, -1, -2, -3, -4) },
	  .want = { OV_F32(4, 1, -2, 3, -4) } },
	{ WNN_OP_WHERE, "int32 values, broadcast false value", .build = build_where,
	  .in = { OV_U8(4, 0, 1, 255, 0), OV_I32(4, 1, 2, 3, 4), OV_I32(1, -9) },
	  .want = { OV_I32(4, -9, 2, 3, -9) } },
};
OV_TABLE(ELEMENTWISE, elementwise_vectors);

OV_FAMILY_TESTS(ELEMENTWISE, elementwise)

/* ==== validation and shape inference (proto/schema_<family>.c) */

/* ---- binary */

TEST(ops_elementwise_schema_binary_broadcast)
{
	struct fx f = { 0 };
	Webnn__Ipc__ElementwiseBinary m;
	uint32_t a = T(&f, WNN_F32, 2, 1, 4), b = T(&f, WNN_F32, 3, 1), o = SLOT(&f);
	Webnn__Ipc__Operation op = st_binary(WNN_OP_ADD, &m, a, b, o);
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4);
	const enum wnn_op same[] = { WNN_OP_SUB, WNN_OP_MUL, WNN_OP_DIV, WNN_OP_MAX, WNN_OP_MIN,
				     WNN_OP_POW };
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		op = st_binary(same[i], &m, a, b, o);
		OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4);
	}
	uint32_t s = SCALAR(&f, WNN_F32);
	op = st_binary(WNN_OP_MUL, &m, s, a, o);
	OK_OUT(&f, &op, 0, WNN_F32, 2, 1, 4);
	op = st_binary(WNN_OP_MUL, &m, s, s, o);
	OK_SCALAR(&f, &op, WNN_F32);
	uint32_t i1 = T(&f, WNN_I64, 5), i2 = T(&f, WNN_I64, 1);
	op = st_binary(WNN_OP_POW, &m, i1, i2, o);
	OK_OUT(&f, &op, 0, WNN_I64, 5);
}

TEST(ops_elementwise_schema_binary_errors)
{
	struct fx f = { 0 };
	Webnn__Ipc__ElementwiseBinary m;
	uint32_t a = T(&f, WNN_F32, 2, 3), b = T(&f, WNN_F32, 4), h = T(&f, WNN_F16, 2, 3);
	uint32_t o = SLOT(&f);
	Webnn__Ipc__Operation op = st_binary(WNN_OP_ADD, &m, a, b, o);
	ERR(&f, &op, "add: input shapes [2, 3] and [4] are not broadcastable");
	op = st_binary(WNN_OP_SUB, &m, a, h, o);
	ERR(&f, &op, "sub: b data type float16 does not match a data type float32");
	op = st_binary(WNN_OP_DIV, &m, a, 99, o);
	ERR(&f, &op, "div: b operand id 99 is out of range");
	op = st_binary(WNN_OP_MAX, &m, a, o, o);
	ERR(&f, &op, "max: b operand 3 is used before it is defined");
	op = st_binary(WNN_OP_MIN, &m, a, a, 77);
	ERR(&f, &op, "min: output operand id 77 is out of range");
	op = st_binary(WNN_OP_POW, &m, a, a, o);
	op.label = (char *)"my pow";
	op.binary->b = b;
	ERR(&f, &op, "(operator \"my pow\")");
}

TEST(ops_elementwise_schema_logical_ops)
{
	struct fx f = { 0 };
	Webnn__Ipc__ElementwiseBinary m;
	uint32_t a = T(&f, WNN_F32, 2, 3), b = T(&f, WNN_F32, 3), u = T(&f, WNN_U8, 3);
	uint32_t o = SLOT(&f);
	Webnn__Ipc__Operation op = st_binary(WNN_OP_GREATER, &m, a, b, o);
	OK_OUT(&f, &op, 0, WNN_U8, 2, 3);
	op = st_binary(WNN_OP_LOGICAL_AND, &m, u, u, o);
	OK_OUT(&f, &op, 0, WNN_U8, 3);
	op = st_binary(WNN_OP_LOGICAL_XOR, &m, a, b, o);
	ERR(&f, &op, "logicalXor: a data type float32 is not allowed, expected uint8");

	Webnn__Ipc__ElementwiseUnary un = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	op = st_mkop(WNN_OP_LOGICAL_NOT);
	op.unary = &un;
	un.input = a, un.output = o;
	ERR(&f, &op, "logicalNot: a data type float32 is not allowed");
	un.input = u;
	OK_OUT(&f, &op, 0, WNN_U8, 3);
	op.op = wnn_ops[WNN_OP_IS_NAN].id;
	un.input = a;
	OK_OUT(&f, &op, 0, WNN_U8, 2, 3);
	un.input = u;
	ERR(&f, &op, "isNaN: a data type uint8 is not allowed, expected float32, float16");
}

/* ---- unary and activations */

TEST(ops_elementwise_schema_unary_types)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F16, 1, 2, 3), i = T(&f, WNN_I32, 4), u = T(&f, WNN_U32, 4);
	uint32_t o = SLOT(&f);
	Webnn__Ipc__ElementwiseUnary un = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_RELU);
	op.unary = &un;
	un.input = x, un.output = o;
	OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3);
	un.input = i;
	OK_OUT(&f, &op, 0, WNN_I32, 4);
	un.input = u;
	ERR(&f, &op, "relu: input data type uint32 is not allowed, expected float32, float16, int32, "
		     "int64, int8");
	const enum wnn_op float_only[] = { WNN_OP_SIGMOID, WNN_OP_TANH, WNN_OP_GELU,
					   WNN_OP_HARD_SWISH, WNN_OP_ELU, WNN_OP_LEAKY_RELU,
					   WNN_OP_SQRT, WNN_OP_EXP, WNN_OP_SOFTPLUS };
	for (size_t k = 0; k < sizeof(float_only) / sizeof(float_only[0]); k++) {
		op.op = wnn_ops[float_only[k]].id;
		un.input = x;
		OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3);
		un.input = i;
		ERR(&f, &op, "input data type int32 is not allowed, expected float32, float16");
		ASSERT_CONTAINS(f.diag.message, wnn_ops[float_only[k]].name);
	}
	op.op = wnn_ops[WNN_OP_IDENTITY].id;
	un.input = u;
	OK_OUT(&f, &op, 0, WNN_U32, 4);
	op.op = wnn_ops[WNN_OP_ABS].id;
	un.input = i;
	OK_OUT(&f, &op, 0, WNN_I32, 4);
}

TEST(ops_elementwise_schema_clamp)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2, 2), u8 = T(&f, WNN_U8, 3), o = SLOT(&f);
	Webnn__Ipc__Clamp m = WEBNN__IPC__CLAMP__INIT;
	Webnn__Ipc__Number lo = WEBNN__IPC__NUMBER__INIT, hi = WEBNN__IPC__NUMBER__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_CLAMP);
	op.clamp = &m;
	m.input = x, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 2); /* no bounds */
	lo.value_case = hi.value_case = WEBNN__IPC__NUMBER__VALUE_F;
	lo.f = 1, hi.f = 6;
	m.min_value = &lo, m.max_value = &hi;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 2);
	lo.f = 7;
	ERR(&f, &op, "clamp: minValue 7 is greater than maxValue 6");
	/* After casting to uint8 both saturate to 255: equal, so valid. */
	lo.f = 300, hi.f = 256;
	m.input = u8;
	OK_OUT(&f, &op, 0, WNN_U8, 3);
	lo.f = 3, hi.f = -5; /* -5 saturates to 0 */
	ERR(&f, &op, "after casting to uint8");
	m.max_value = NULL;
	OK_OUT(&f, &op, 0, WNN_U8, 3);
}

TEST(ops_elementwise_schema_unary_family_wrong_attrs)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2), o = SLOT(&f);
	Webnn__Ipc__ElementwiseBinary m;
	Webnn__Ipc__Operation op = st_binary(WNN_OP_ADD, &m, x, x, o);
	op.op = wnn_ops[WNN_OP_RELU].id; /* relu with binary attrs */
	ERR(&f, &op, "relu: operation carries binary attributes, expected unary");
	op.op = 12345;
	ERR(&f, &op, "unknown operator id 12345");
	op = st_mkop(WNN_OP_SIGMOID);
	op.attrs_case = WEBNN__IPC__OPERATION__ATTRS__NOT_SET;
	ERR(&f, &op, "sigmoid: operation carries none attributes, expected unary");
	op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_UNARY; /* member set but pointer missing */
	ERR(&f, &op, "sigmoid: operation attributes are missing");
}

/* ==== libwebnn builders and small graphs against a reference-backend webnnd */

TEST(ops_elementwise_client_every_wrapper_maps_to_an_op)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand_desc df = ct_desc_of(WEBNN_FLOAT32, 1, (uint32_t[]){ 4 });
	struct webnn_operand_desc du = ct_desc_of(WEBNN_UINT8, 1, (uint32_t[]){ 4 });
	struct webnn_operand *f, *u, *r;
	OK(ctx, webnn_builder_input(b, "f", &df, &f));
	OK(ctx, webnn_builder_input(b, "u", &du, &u));
#define BIN_(name)                                                                             \
	{                                                                                      \
		bool logical = strncmp(#name, "logical", 7) == 0;                              \
		OK(ctx, webnn_builder_##name(b, logical ? u : f, logical ? u : f, &r));         \
	}
	WEBNN_BINARY_OPS(BIN_)
#undef BIN_
#define UN_(name)                                                                              \
	{                                                                                      \
		bool logical = strcmp(#name, "logical_not") == 0;                              \
		OK(ctx, webnn_builder_##name(b, logical ? u : f, &r));                         \
	}
	WEBNN_UNARY_OPS(UN_)
#undef UN_
	struct webnn_elu_options eo = WEBNN_ELU_OPTIONS_INIT;
	OK(ctx, webnn_builder_elu(b, f, &eo, &r));
	OK(ctx, webnn_builder_leaky_relu(b, f, NULL, &r));
	OK(ctx, webnn_builder_hard_sigmoid(b, f, NULL, &r));
	OK(ctx, webnn_builder_linear(b, f, NULL, &r));
	OK(ctx, webnn_builder_softmax(b, f, 0, &r));
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ==== reference backend: hand-computed and literal WPT values through its kernels */

/* ---- binary */

TEST(ops_elementwise_reference_add_broadcast_f32)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(2, 3)), b = tg_input(&t, WNN_F32, SHAPE(3));
	uint32_t o = rt_binary(&t, WNN_OP_ADD, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 3));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(10, 20, 30)), D(11, 22, 33, 14, 25, 36), 0);
	tg_free(&t);
}

TEST(ops_elementwise_reference_broadcast_both_ways_and_scalar)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(2, 1)), b = tg_input(&t, WNN_F32, SHAPE(1, 3));
	uint32_t o = rt_binary(&t, WNN_OP_MUL, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 3));
	rt_expect(&t, INS(D(1, 2), D(10, 20, 30)), D(10, 20, 30, 20, 40, 60), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(3));
	b = tg_input(&t, WNN_F32, 0, NULL);
	rt_binary(&t, WNN_OP_SUB, a, b);
	rt_expect(&t, INS(D(1, 2, 3), D(5)), D(-4, -3, -2), 0);
	tg_free(&t);
}

TEST(ops_elementwise_reference_binary_float_ops)
{
	static const struct {
		enum wnn_op op;
		double want[4];
	} cases[] = {
		{ WNN_OP_ADD, { 3, 2, 2, 1 } },
		{ WNN_OP_SUB, { -1, -6, 4, 0 } },
		{ WNN_OP_MUL, { 2, -8, -3, 0.25 } },
		{ WNN_OP_DIV, { 0.5, -0.5, -3, 1 } },
		{ WNN_OP_MAX, { 2, 4, 3, 0.5 } },
		{ WNN_OP_MIN, { 1, -2, -1, 0.5 } },
		{ WNN_OP_POW, { 1, 16, 1.0 / 3, 0.70710678118654752 } },
		{ WNN_OP_EQUAL, { 0, 0, 0, 1 } },
		{ WNN_OP_NOT_EQUAL, { 1, 1, 1, 0 } },
		{ WNN_OP_GREATER, { 0, 0, 1, 0 } },
		{ WNN_OP_GREATER_OR_EQUAL, { 0, 0, 1, 1 } },
		{ WNN_OP_LESSER, { 1, 1, 0, 0 } },
		{ WNN_OP_LESSER_OR_EQUAL, { 1, 1, 0, 1 } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int f16 = 0; f16 < 2; f16++) {
			struct tg_graph t;
			enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
			tg_init(&t);
			uint32_t a = tg_input(&t, ty, SHAPE(4)), b = tg_input(&t, ty, SHAPE(4));
			uint32_t o = rt_binary(&t, cases[i].op, a, b);
			ASSERT_EQ(t.descs[o].type, wnn_ops[cases[i].op].out == WNN_OUT_U8 ? WNN_U8 : ty);
			rt_expect(&t, INS(D(1, -2, 3, 0.5), D(2, 4, -1, 0.5)), cases[i].want, 1);
			tg_free(&t);
		}
	}
}

TEST(ops_elementwise_reference_binary_integers_wrap_and_divide_by_zero)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_I32, SHAPE(4)), b = tg_input(&t, WNN_I32, SHAPE(4));
	rt_binary(&t, WNN_OP_ADD, a, b);
	rt_expect(&t, INS(D(2147483647, -5, 7, -2147483648.0), D(1, 3, -9, -1)),
	       D(-2147483648.0, -2, -2, 2147483647), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_I32, SHAPE(4));
	b = tg_input(&t, WNN_I32, SHAPE(4));
	rt_binary(&t, WNN_OP_DIV, a, b);
	rt_expect(&t, INS(D(7, -7, 5, -2147483648.0), D(2, 2, 0, -1)), D(3, -3, 0, -2147483648.0), 0);
	tg_free(&t);

	/* INT64_MIN / -1 must neither trap nor be undefined: it wraps */
	tg_init(&t);
	a = tg_input(&t, WNN_I64, SHAPE(2));
	b = tg_input(&t, WNN_I64, SHAPE(2));
	rt_binary(&t, WNN_OP_DIV, a, b);
	rt_expect(&t, INS(D(-9223372036854775808.0, 9), D(-1, -4)), D(-9223372036854775808.0, -2), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_U32, SHAPE(2));
	b = tg_input(&t, WNN_U32, SHAPE(2));
	rt_binary(&t, WNN_OP_SUB, a, b);
	rt_expect(&t, INS(D(1, 10), D(2, 3)), D(4294967295.0, 7), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_I8, SHAPE(3));
	b = tg_input(&t, WNN_I8, SHAPE(3));
	rt_binary(&t, WNN_OP_ADD, a, b);
	rt_expect(&t, INS(D(100, -100, 1), D(100, -100, 2)), D(-56, 56, 3), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_I32, SHAPE(3));
	b = tg_input(&t, WNN_I32, SHAPE(3));
	rt_binary(&t, WNN_OP_MAX, a, b);
	rt_expect(&t, INS(D(-1, 5, 0), D(-2, 7, 0)), D(-1, 7, 0), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_U64, SHAPE(2));
	b = tg_input(&t, WNN_U64, SHAPE(2));
	uint32_t o = rt_binary(&t, WNN_OP_GREATER, a, b);
	ASSERT_EQ(t.descs[o].type, WNN_U8);
	rt_expect(&t, INS(D(18446744073709549568.0, 1), D(1, 2)), D(1, 0), 0);
	tg_free(&t);
}

TEST(ops_elementwise_reference_logical_ops)
{
	static const struct {
		enum wnn_op op;
		double want[4];
	} cases[] = {
		{ WNN_OP_LOGICAL_AND, { 0, 0, 0, 1 } },
		{ WNN_OP_LOGICAL_OR, { 0, 1, 1, 1 } },
		{ WNN_OP_LOGICAL_XOR, { 0, 1, 1, 0 } },
	};
	for (size_t i = 0; i < 3; i++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t a = tg_input(&t, WNN_U8, SHAPE(4)), b = tg_input(&t, WNN_U8, SHAPE(4));
		rt_binary(&t, cases[i].op, a, b);
		rt_expect(&t, INS(D(0, 0, 7, 255), D(0, 3, 0, 1)), cases[i].want, 0);
		tg_free(&t);
	}
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_U8, SHAPE(3));
	rt_unary(&t, WNN_OP_LOGICAL_NOT, x);
	rt_expect(&t, INS(D(0, 1, 200)), D(1, 0, 0), 0);
	tg_free(&t);
}

/* ---- unary */

static void unary_case(enum wnn_op op, enum wnn_dtype ty, const double *x, const double *want,
		       size_t n, double ulp)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t in = tg_input(&t, ty, 1, (uint32_t[]){ (uint32_t)n });
	rt_unary(&t, op, in);
	void **outs = rt_run(&t, INS(x));
	char msg[256];
	const struct wnn_desc *d = &t.descs[t.output_ids[0]];
	if (!tg_compare_values(outs[0], d->type, want, n, ulp, 0, msg, sizeof(msg)))
		FAIL("%s %s: %s", wnn_ops[op].name, wnn_dtype_name(ty), msg);
	tg_free(&t);
}

TEST(ops_elementwise_reference_unary_exact_float_ops)
{
	const double *x = D(-2, -0.5, 0, 1.5);
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		unary_case(WNN_OP_ABS, ty, x, D(2, 0.5, 0, 1.5), 4, 0);
		unary_case(WNN_OP_CEIL, ty, x, D(-2, -0.0, 0, 2), 4, 0);
		unary_case(WNN_OP_FLOOR, ty, x, D(-2, -1, 0, 1), 4, 0);
		unary_case(WNN_OP_NEG, ty, x, D(2, 0.5, -0.0, -1.5), 4, 0);
		unary_case(WNN_OP_RELU, ty, x, D(0, 0, 0, 1.5), 4, 0);
		unary_case(WNN_OP_SIGN, ty, x, D(-1, -1, 0, 1), 4, 0);
		unary_case(WNN_OP_IDENTITY, ty, x, x, 4, 0);
		unary_case(WNN_OP_RECIPROCAL, ty, x, D(-0.5, -2, INFINITY, 1 / 1.5), 4, 1);
		unary_case(WNN_OP_ROUND_EVEN, ty, D(-2.5, 0.5, 1.5, 2.5), D(-2, 0, 2, 2), 4, 0);
		unary_case(WNN_OP_SQRT, ty, D(4, 2, 0, 0.25), D(2, 1.4142135623730951, 0, 0.5), 4, 1);
		unary_case(WNN_OP_IS_NAN, ty, D(NAN, INFINITY, -INFINITY, 1), D(1, 0, 0, 0), 4, 0);
		unary_case(WNN_OP_IS_INFINITE, ty, D(NAN, INFINITY, -INFINITY, 1), D(0, 1, 1, 0), 4, 0);
	}
}

TEST(ops_elementwise_reference_unary_transcendental_ops)
{
	const double x[4] = { -1.25, -0.5, 0.25, 2 };
	double want[4];
	static const enum wnn_op ops[] = { WNN_OP_COS,     WNN_OP_ERF,      WNN_OP_EXP,
					   WNN_OP_SIN,     WNN_OP_TAN,      WNN_OP_TANH,
					   WNN_OP_SIGMOID, WNN_OP_SOFTPLUS, WNN_OP_SOFTSIGN,
					   WNN_OP_GELU,    WNN_OP_HARD_SWISH };
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		for (int i = 0; i < 4; i++) {
			double v = x[i];
			switch (ops[k]) {
			case WNN_OP_COS: want[i] = cos(v); break;
			case WNN_OP_ERF: want[i] = erf(v); break;
			case WNN_OP_EXP: want[i] = exp(v); break;
			case WNN_OP_SIN: want[i] = sin(v); break;
			case WNN_OP_TAN: want[i] = tan(v); break;
			case WNN_OP_TANH: want[i] = tanh(v); break;
			case WNN_OP_SIGMOID: want[i] = 1 / (1 + exp(-v)); break;
			case WNN_OP_SOFTPLUS: want[i] = log(1 + exp(v)); break;
			case WNN_OP_SOFTSIGN: want[i] = v / (1 + fabs(v)); break;
			case WNN_OP_GELU: want[i] = 0.5 * v * (1 + erf(v / sqrt(2))); break;
			default: want[i] = v * fmin(fmax(v + 3, 0), 6) / 6; break;
			}
		}
		unary_case(ops[k], WNN_F32, x, want, 4, 1);
		unary_case(ops[k], WNN_F16, x, want, 4, 1);
	}
	unary_case(WNN_OP_LOG, WNN_F32, D(1, 2.718281828459045, 0.5, 0), D(0, 1, -0.6931471805599453, -INFINITY), 4, 1);
	/* hard-swish corners: -3 and +3 */
	unary_case(WNN_OP_HARD_SWISH, WNN_F32, D(-4, -3, 3, 4), D(0, 0, 3, 4), 4, 0);
}

TEST(ops_elementwise_reference_unary_alpha_beta_defaults_and_options)
{
	const double *x = D(-2, -0.5, 0, 3);
	/* elu: alpha 1 */
	unary_case(WNN_OP_ELU, WNN_F32, x, D(expm1(-2), expm1(-0.5), 0, 3), 4, 1);
	/* leakyRelu: alpha 0.01 */
	unary_case(WNN_OP_LEAKY_RELU, WNN_F32, x, D(-0.02, -0.005, 0, 3), 4, 1);
	/* hardSigmoid: 0.2 x + 0.5 clamped to [0, 1] */
	unary_case(WNN_OP_HARD_SIGMOID, WNN_F32, x, D(0.1, 0.4, 0.5, 1), 4, 1);
	/* linear: 1 x + 0 */
	unary_case(WNN_OP_LINEAR, WNN_F32, x, x, 4, 0);

	static const struct {
		enum wnn_op op;
		double alpha, beta;
		bool has_beta;
		double want[4];
	} cases[] = {
		{ WNN_OP_ELU, 2, 0, false, { 0, 0, 0, 3 } },
		{ WNN_OP_LEAKY_RELU, 0.5, 0, false, { -1, -0.25, 0, 3 } },
		{ WNN_OP_HARD_SIGMOID, 0.5, 0.25, true, { 0, 0, 0.25, 1 } },
		{ WNN_OP_LINEAR, 2, 1, true, { -3, 0, 1, 7 } },
	};
	for (size_t i = 0; i < 4; i++) {
		double want[4];
		memcpy(want, cases[i].want, sizeof(want));
		if (cases[i].op == WNN_OP_ELU)
			want[0] = 2 * expm1(-2), want[1] = 2 * expm1(-0.5);
		for (int f16 = 0; f16 < 2; f16++) {
			struct tg_graph t;
			tg_init(&t);
			uint32_t in = tg_input(&t, f16 ? WNN_F16 : WNN_F32, SHAPE(4));
			rt_unary_ab(&t, cases[i].op, in, true, cases[i].alpha, cases[i].has_beta,
				 cases[i].beta);
			rt_expect(&t, INS(x), want, 1);
			tg_free(&t);
		}
	}
}

TEST(ops_elementwise_reference_unary_integers)
{
	const double *x = D(-7, 0, 5, -2147483648.0);
	unary_case(WNN_OP_ABS, WNN_I32, x, D(7, 0, 5, -2147483648.0), 4, 0);
	unary_case(WNN_OP_NEG, WNN_I32, x, D(7, 0, -5, -2147483648.0), 4, 0);
	unary_case(WNN_OP_SIGN, WNN_I32, x, D(-1, 0, 1, -1), 4, 0);
	unary_case(WNN_OP_RELU, WNN_I32, x, D(0, 0, 5, 0), 4, 0);
	unary_case(WNN_OP_IDENTITY, WNN_I32, x, x, 4, 0);
	unary_case(WNN_OP_ABS, WNN_I8, D(-128, -3, 3, 127), D(-128, 3, 3, 127), 4, 0);
	unary_case(WNN_OP_NEG, WNN_I64, D(-9223372036854775808.0, 3), D(-9223372036854775808.0, -3), 2, 0);
	unary_case(WNN_OP_RELU, WNN_I64, D(-4, 4), D(0, 4), 2, 0);

	/* uint64 values above 2^53 go through bit-exactly */
	struct tg_graph t;
	tg_init(&t);
	uint32_t in = tg_input(&t, WNN_U64, SHAPE(2));
	rt_unary(&t, WNN_OP_IDENTITY, in);
	const struct graph_ir *g = tg_finish(&t, &(struct wnn_diag){ 0 });
	ASSERT(g);
	uint64_t src[2] = { UINT64_MAX, (1ull << 60) + 1 }, dst[2] = { 0, 0 };
	struct wnn_diag diag = { 0 };
	ASSERT_EQ(tg_run(&backend_reference, NULL, g, (const void *const[]){ src },
			 (void *const[]){ dst }, &diag), WEBNN_STATUS_OK);
	ASSERT(dst[0] == UINT64_MAX && dst[1] == (1ull << 60) + 1);
	tg_free(&t);
}

/* ---- clamp */

static Webnn__Ipc__Clamp *clamp_msg(struct tg_graph *t, uint32_t in)
{
	Webnn__Ipc__Clamp init = WEBNN__IPC__CLAMP__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = in, m->output = tg_next(t);
	return m;
}

TEST(ops_elementwise_reference_clamp_float)
{
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		struct tg_graph t;
		tg_init(&t);
		uint32_t in = tg_input(&t, ty, SHAPE(5));
		Webnn__Ipc__Clamp *m = clamp_msg(&t, in);
		m->min_value = rt_number(-1);
		m->max_value = rt_number(2);
		rt_op(&t, WNN_OP_CLAMP, m);
		rt_expect(&t, INS(D(-5, -1, 0.5, 1, 5)), D(-1, -1, 0.5, 1, 2), 0);
		tg_free(&t);

		tg_init(&t);
		in = tg_input(&t, ty, SHAPE(3));
		m = clamp_msg(&t, in);
		m->min_value = rt_number(0);
		rt_op(&t, WNN_OP_CLAMP, m);
		rt_expect(&t, INS(D(-5, 0.25, 1000)), D(0, 0.25, 1000), 0);
		tg_free(&t);

		tg_init(&t);
		in = tg_input(&t, ty, SHAPE(3));
		rt_op(&t, WNN_OP_CLAMP, clamp_msg(&t, in));
		rt_expect(&t, INS(D(-INFINITY, 3, INFINITY)), D(-INFINITY, 3, INFINITY), 0);
		tg_free(&t);
	}
}

TEST(ops_elementwise_reference_clamp_integers_exact)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t in = tg_input(&t, WNN_I64, SHAPE(3));
	Webnn__Ipc__Clamp *m = clamp_msg(&t, in);
	Webnn__Ipc__Number lo = WEBNN__IPC__NUMBER__INIT;
	lo.value_case = WEBNN__IPC__NUMBER__VALUE_I;
	lo.i = (1ll << 62) + 1; /* not representable as a double */
	m->min_value = &lo;
	rt_op(&t, WNN_OP_CLAMP, m);
	const struct graph_ir *g = tg_finish(&t, &(struct wnn_diag){ 0 });
	ASSERT(g);
	int64_t src[3] = { 1ll << 62, (1ll << 62) + 2, -5 }, dst[3];
	struct wnn_diag diag = { 0 };
	ASSERT_EQ(tg_run(&backend_reference, NULL, g, (const void *const[]){ src },
			 (void *const[]){ dst }, &diag), WEBNN_STATUS_OK);
	ASSERT(dst[0] == (1ll << 62) + 1 && dst[1] == (1ll << 62) + 2 && dst[2] == (1ll << 62) + 1);
	tg_free(&t);

	tg_init(&t);
	in = tg_input(&t, WNN_U8, SHAPE(4));
	m = clamp_msg(&t, in);
	m->min_value = rt_number(10);
	m->max_value = rt_number(200);
	rt_op(&t, WNN_OP_CLAMP, m);
	rt_expect(&t, INS(D(5, 100, 250, 200)), D(10, 100, 200, 200), 0);
	tg_free(&t);

	/* a bound outside the type saturates (casting) */
	tg_init(&t);
	in = tg_input(&t, WNN_I8, SHAPE(3));
	m = clamp_msg(&t, in);
	m->min_value = rt_number(-1000);
	m->max_value = rt_number(3);
	rt_op(&t, WNN_OP_CLAMP, m);
	rt_expect(&t, INS(D(-128, 0, 127)), D(-128, 0, 3), 0);
	tg_free(&t);
}

/* ---- integer pow */

TEST(ops_elementwise_reference_integer_pow_exact)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_I32, SHAPE(7));
	uint32_t b = tg_input(&t, WNN_I32, SHAPE(7));
	Webnn__Ipc__ElementwiseBinary *m =
		MSG(Webnn__Ipc__ElementwiseBinary, WEBNN__IPC__ELEMENTWISE_BINARY__INIT);
	m->a = a, m->b = b, m->output = tg_next(&t);
	rt_op(&t, WNN_OP_POW, m);
	/* negative exponents: 1/a^|b| truncated; 0^-1 -> 0 like integer division by zero */
	rt_expect(&t, INS(D(2, -2, 2, 1, -1, 0, 7), D(10, 3, -1, -5, -3, -1, 0)),
		D(1024, -8, 0, 1, -1, 0, 1), 0);
	tg_free(&t);

	tg_init(&t);
	int64_t base[2] = { 3, 3 }, ex[2] = { 39, 41 };
	uint32_t ca = tg_constant(&t, WNN_I64, SHAPE(2), base);
	uint32_t cb = tg_constant(&t, WNN_I64, SHAPE(2), ex);
	m = MSG(Webnn__Ipc__ElementwiseBinary, WEBNN__IPC__ELEMENTWISE_BINARY__INIT);
	m->a = ca, m->b = cb, m->output = tg_next(&t);
	rt_op(&t, WNN_OP_POW, m);
	int64_t *r = rt_run(&t, NULL)[0];
	ASSERT(r[0] == 4052555153018976267LL);                 /* 3^39, exact */
	ASSERT((uint64_t)r[1] == 4052555153018976267ULL * 9ULL); /* 3^41 mod 2^64 */
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_U8, SHAPE(3));
	b = tg_input(&t, WNN_U8, SHAPE(3));
	m = MSG(Webnn__Ipc__ElementwiseBinary, WEBNN__IPC__ELEMENTWISE_BINARY__INIT);
	m->a = a, m->b = b, m->output = tg_next(&t);
	rt_op(&t, WNN_OP_POW, m);
	rt_expect(&t, INS(D(2, 3, 0), D(8, 5, 0)), D(0, 243, 1), 0); /* 2^8 wraps; 0^0 = 1 */
	tg_free(&t);
}

/* ==== OpenCL backend against the reference: seeded inputs through both (tests/ocltest.h) */

OT_TEST(ops_elementwise, binary_all_ops_types, 300)
{
	struct backend *be = ot_backend();
	static const struct {
		uint32_t ra, rb;
		uint32_t a[4], b[4];
	} shapes[] = {
		{ 3, 3, { 2, 3, 4 }, { 2, 3, 4 } },
		{ 3, 2, { 2, 1, 5 }, { 3, 1 } },
		{ 2, 0, { 4, 3 }, { 0 } },
	};
	int ran = 0;
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		if (wnn_ops[op].attrs != WNN_ATTRS_BINARY)
			continue;
		for (size_t ti = 0; ti < sizeof ALL_TYPES / sizeof ALL_TYPES[0]; ti++) {
			enum wnn_dtype t = ALL_TYPES[ti];
			if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
				continue;
			ASSERT_MSG(ot_impl->supports(be, (enum wnn_op)op, t), "%s %s",
				   wnn_ops[op].name, wnn_dtype_name(t));
			/* pow on integers has no oracle: checked by opencl_pow_integers */
			if (!backend_reference.supports(NULL, (enum wnn_op)op, t))
				continue;
			for (size_t si = 0; si < 3; si++) {
				struct tg_graph tg;
				tg_init(&tg);
				uint32_t a = tg_input(&tg, t, shapes[si].ra, shapes[si].a);
				uint32_t bb = tg_input(&tg, t, shapes[si].rb, shapes[si].b);
				Webnn__Ipc__ElementwiseBinary m = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
				m.a = a;
				m.b = bb;
				m.output = tg_next(&tg);
				Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
				tg_set_op(&o, (enum wnn_op)op, &m);
				char label[96];
				snprintf(label, sizeof label, "%s %s shape %zu", wnn_ops[op].name,
					 wnn_dtype_name(t), si);
				const struct graph_ir *g = ot_finish(&tg, &o, label);
				bool unsig = t == WNN_U8 || t == WNN_U32 || t == WNN_U64;
				double lo = unsig ? 0 : -6, hi = 6;
				if (op == WNN_OP_POW) {
					lo = unsig ? 0 : -3;
					hi = 3;
				}
				ot_check(be, g, lo, hi, t == WNN_F16 ? TOL_F16 : TOL_EW, label);
				tg_free(&tg);
				ran++;
			}
		}
	}
	ASSERT(ran > 100);
	ot_impl->shutdown(be);
}

OT_TEST(ops_elementwise, pow_integers, 0)
{
	struct backend *be = ot_backend();
	static const enum wnn_dtype types[] = { WNN_I32, WNN_I64, WNN_I8, WNN_U8 };
	for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
		enum wnn_dtype t = types[ti];
		bool unsig = t == WNN_U8;
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t a = tg_input(&tg, t, 1, (uint32_t[]){ 5 });
		uint32_t bb = tg_input(&tg, t, 1, (uint32_t[]){ 5 });
		Webnn__Ipc__ElementwiseBinary m = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
		m.a = a;
		m.b = bb;
		m.output = tg_next(&tg);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, WNN_OP_POW, &m);
		const struct graph_ir *g = ot_finish(&tg, &o, "pow int");
		double av[5] = { 2, 3, unsig ? 4 : -2, 5, 7 }, bv[5] = { 3, 2, 3, 0, 1 };
		double ev[5] = { 8, 9, unsig ? 64 : -8, 1, 7 };
		char ab[40], bb_[40], out[40];
		tg_pack(ab, t, av, 5);
		tg_pack(bb_, t, bv, 5);
		const void *in[2] = { ab, bb_ };
		void *outs[1] = { out };
		struct wnn_diag diag = { 0 };
		ASSERT_MSG(tg_run(ot_impl, be, g, in, outs, &diag) == WEBNN_STATUS_OK, "%s",
			   diag.message);
		char msg[200];
		ASSERT_MSG(tg_compare_values(out, t, ev, 5, 0, 0, msg, sizeof msg), "pow %s: %s",
			   wnn_dtype_name(t), msg);
		tg_free(&tg);
	}
	ot_impl->shutdown(be);
}

OT_TEST(ops_elementwise, unary_all_ops_types, 300)
{
	struct backend *be = ot_backend();
	int ran = 0;
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		if (wnn_ops[op].attrs != WNN_ATTRS_UNARY)
			continue;
		for (size_t ti = 0; ti < sizeof ALL_TYPES / sizeof ALL_TYPES[0]; ti++) {
			enum wnn_dtype t = ALL_TYPES[ti];
			if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
				continue;
			ASSERT_MSG(ot_impl->supports(be, (enum wnn_op)op, t), "%s %s",
				   wnn_ops[op].name, wnn_dtype_name(t));
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t x = tg_input(&tg, t, 2, (uint32_t[]){ 7, 9 });
			Webnn__Ipc__ElementwiseUnary m = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
			m.input = x;
			m.output = tg_next(&tg);
			if (op == WNN_OP_ELU || op == WNN_OP_LEAKY_RELU || op == WNN_OP_HARD_SIGMOID ||
			    op == WNN_OP_LINEAR) {
				m.has_alpha = m.has_beta = 1;
				m.alpha = 0.75;
				m.beta = op == WNN_OP_ELU || op == WNN_OP_LEAKY_RELU ? 0 : 0.25;
				m.has_beta = op != WNN_OP_ELU && op != WNN_OP_LEAKY_RELU;
			}
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, (enum wnn_op)op, &m);
			char label[96];
			snprintf(label, sizeof label, "%s %s", wnn_ops[op].name, wnn_dtype_name(t));
			const struct graph_ir *g = ot_finish(&tg, &o, label);
			bool unsig = t == WNN_U8 || t == WNN_U32 || t == WNN_U64;
			double lo = unsig ? 0 : -4, hi = 4;
			if (op == WNN_OP_LOG || op == WNN_OP_SQRT)
				lo = 0.01;
			if (op == WNN_OP_TAN)
				lo = -1.2, hi = 1.2;
			struct tol tol = t == WNN_F16 ? TOL_F16 : TOL_EW;
			ot_check(be, g, lo, hi, tol, label);
			tg_free(&tg);
			ran++;
		}
	}
	ASSERT(ran > 40);
	ot_impl->shutdown(be);
}

OT_TEST(ops_elementwise, clamp_types, 0)
{
	struct backend *be = ot_backend();
	for (size_t ti = 0; ti < sizeof ALL_TYPES / sizeof ALL_TYPES[0]; ti++) {
		enum wnn_dtype t = ALL_TYPES[ti];
		for (int bounds = 0; bounds < 3; bounds++) {
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t x = tg_input(&tg, t, 3, (uint32_t[]){ 2, 3, 5 });
			Webnn__Ipc__Number lo = WEBNN__IPC__NUMBER__INIT, hi = WEBNN__IPC__NUMBER__INIT;
			lo.value_case = WEBNN__IPC__NUMBER__VALUE_F;
			lo.f = t == WNN_U8 || t == WNN_U32 || t == WNN_U64 ? 2 : -2.5;
			hi.value_case = WEBNN__IPC__NUMBER__VALUE_F;
			hi.f = 3.5;
			Webnn__Ipc__Clamp m = WEBNN__IPC__CLAMP__INIT;
			m.input = x;
			m.output = tg_next(&tg);
			if (bounds != 1)
				m.min_value = &lo;
			if (bounds != 2)
				m.max_value = &hi;
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_CLAMP, &m);
			char label[64];
			snprintf(label, sizeof label, "clamp %s bounds %d", wnn_dtype_name(t), bounds);
			ot_check(be, ot_finish(&tg, &o, label), 0, 6, TOL_EXACT, label);
			tg_free(&tg);
		}
	}
	ot_impl->shutdown(be);
}
