/* Tests of the convolution family (conv2d, convTranspose2d): hand-computed vectors through libwebnn, validation, the reference backend's kernels, the OpenCL backend against the reference. */
#include "daemon/backend/opencl/ocl.h"
#include "tests/ocltest.h"
#include "tests/opvectors.h"
#include "tests/reftest.h"
#include "tests/opfixture.h"
#include "tests/test.h"

/* ==== hand-computed vectors through libwebnn on both backends (tests/opvectors.h) */

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

/* ==== validation and shape inference (proto/schema_<family>.c) */

TEST(ops_conv_schema_conv2d_shapes)
{
	struct fx f = { 0 };
	struct conv c;
	uint32_t x = T(&f, WNN_F32, 1, 3, 5, 5), w = T(&f, WNN_F32, 2, 3, 3, 3), o = SLOT(&f);
	st_conv_init(&c, x, w, o);
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 2, 3, 3);
	uint32_t pad[] = { 1, 1, 1, 1 }, strides[] = { 2, 2 }, dil[] = { 2, 1 };
	c.m.padding = pad, c.m.n_padding = 4;
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 2, 5, 5);
	c.m.strides = strides, c.m.n_strides = 2;
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 2, 3, 3);
	c.m.dilations = dil, c.m.n_dilations = 2;
	/* height: (5 - 5 + 2) / 2 + 1 = 2; width: (5 - 3 + 2) / 2 + 1 = 3 */
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 2, 2, 3);

	/* nhwc input with each filter layout */
	uint32_t xn = T(&f, WNN_F16, 2, 7, 6, 4);
	uint32_t hwio = T(&f, WNN_F16, 3, 2, 4, 8), ohwi = T(&f, WNN_F16, 8, 3, 2, 4);
	uint32_t ihwo = T(&f, WNN_F16, 4, 3, 2, 8), oihw = T(&f, WNN_F16, 8, 4, 3, 2);
	st_conv_init(&c, xn, hwio, o);
	c.m.input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	c.m.filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__HWIO;
	OK_OUT(&f, &c.op, 0, WNN_F16, 2, 5, 5, 8);
	c.m.filter = ohwi, c.m.filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI;
	OK_OUT(&f, &c.op, 0, WNN_F16, 2, 5, 5, 8);
	c.m.filter = ihwo, c.m.filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO;
	OK_OUT(&f, &c.op, 0, WNN_F16, 2, 5, 5, 8);
	c.m.filter = oihw, c.m.filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW;
	OK_OUT(&f, &c.op, 0, WNN_F16, 2, 5, 5, 8);
}

TEST(ops_conv_schema_conv2d_groups_and_bias)
{
	struct fx f = { 0 };
	struct conv c;
	/* depthwise: 8 channels, groups 8, filter [8, 1, 3, 3] */
	uint32_t x = T(&f, WNN_F32, 1, 8, 4, 4), w = T(&f, WNN_F32, 8, 1, 3, 3);
	uint32_t b = T(&f, WNN_F32, 8), bad_b = T(&f, WNN_F32, 4), bh = T(&f, WNN_F16, 8);
	uint32_t o = SLOT(&f);
	st_conv_init(&c, x, w, o);
	c.m.groups = 8;
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 8, 2, 2);
	c.m.has_bias = true, c.m.bias = b;
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 8, 2, 2);
	c.m.bias = bad_b;
	ERR(&f, &c.op, "conv2d: bias shape [4] is not [8] (output channels)");
	c.m.bias = bh;
	ERR(&f, &c.op, "conv2d: bias data type float16 does not match input data type float32");
	c.m.has_bias = false;
	c.m.groups = 3;
	ERR(&f, &c.op, "conv2d: input channels 8 are not divisible by groups 3");
	c.m.groups = 2;
	ERR(&f, &c.op, "conv2d: filter input channels 1 do not match input channels 8 / groups 2");
	uint32_t w3 = T(&f, WNN_F32, 3, 4, 3, 3);
	c.m.filter = w3;
	ERR(&f, &c.op, "conv2d: output channels 3 are not divisible by groups 2");
	c.m.groups = 0;
	ERR(&f, &c.op, "conv2d: groups must not be 0");
}

TEST(ops_conv_schema_conv2d_errors)
{
	struct fx f = { 0 };
	struct conv c;
	uint32_t x = T(&f, WNN_F32, 1, 3, 5, 5), w = T(&f, WNN_F32, 2, 3, 3, 3);
	uint32_t w3 = T(&f, WNN_F32, 2, 3, 3), x3 = T(&f, WNN_F32, 3, 5, 5);
	uint32_t xi = T(&f, WNN_I32, 1, 3, 5, 5), wh = T(&f, WNN_F16, 2, 3, 3, 3);
	uint32_t wbig = T(&f, WNN_F32, 2, 3, 7, 7), o = SLOT(&f);
	st_conv_init(&c, x, w3, o);
	ERR(&f, &c.op, "conv2d: filter rank is 3, expected 4");
	st_conv_init(&c, x3, w, o);
	ERR(&f, &c.op, "conv2d: input rank is 3, expected 4");
	st_conv_init(&c, xi, w, o);
	ERR(&f, &c.op, "conv2d: input data type int32 is not allowed, expected float32, float16");
	st_conv_init(&c, x, wh, o);
	ERR(&f, &c.op, "conv2d: filter data type float16 does not match input data type float32");
	st_conv_init(&c, x, wbig, o);
	ERR(&f, &c.op, "conv2d: output height is -1, expected a valid dimension");
	st_conv_init(&c, x, w, o);
	uint32_t three[] = { 1, 1, 1 }, zero[] = { 1, 0 };
	c.m.padding = three, c.m.n_padding = 3;
	ERR(&f, &c.op, "conv2d: padding has 3 values, expected 4");
	c.m.n_padding = 0;
	c.m.strides = zero, c.m.n_strides = 2;
	ERR(&f, &c.op, "conv2d: strides [1, 0] must not contain 0");
	c.m.n_strides = 0;
	c.m.dilations = three, c.m.n_dilations = 3;
	ERR(&f, &c.op, "conv2d: dilations has 3 values, expected 2");
	c.m.dilations = zero, c.m.n_dilations = 2;
	ERR(&f, &c.op, "conv2d: dilations [1, 0] must not contain 0");
	c.m.n_dilations = 0;
	c.m.filter_layout = (Webnn__Ipc__Conv2dFilterLayout)9;
	ERR(&f, &c.op, "conv2d: filterLayout value 9 is not valid");
}

TEST(ops_conv_schema_conv_transpose2d)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 1, 1, 3, 3), w = T(&f, WNN_F32, 1, 2, 3, 3), o = SLOT(&f);
	uint32_t strides[] = { 3, 2 }, osz[] = { 10, 8 }, opad[] = { 1, 1 };
	Webnn__Ipc__ConvTranspose2d m = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_CONV_TRANSPOSE2D);
	op.conv_transpose2d = &m;
	m.input = x, m.filter = w, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 5, 5);
	m.strides = strides, m.n_strides = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 9, 7);
	m.output_padding = opad, m.n_output_padding = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 10, 8);
	m.n_output_padding = 0;
	m.output_sizes = osz, m.n_output_sizes = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 10, 8);
	osz[0] = 12;
	ERR(&f, &op, "convTranspose2d: outputSizes item 0 is 12, expected at least 9 and less than 12");
	m.n_output_sizes = 0;
	opad[1] = 2;
	m.n_output_padding = 2;
	ERR(&f, &op, "convTranspose2d: outputPadding [1, 2] must be smaller than strides [3, 2]");
	m.n_output_padding = 0;
	m.groups = 2;
	/* The spec does not require groups to divide the input channels of convTranspose2d; the
	 * resolver does when resolving for kernels (a group of no input channel has no meaning),
	 * so this graph fails at build time in the daemon rather than at validation. */
	OK_OUT(&f, &op, 0, WNN_F32, 1, 4, 9, 7);
	union wnn_attrs attrs;
	struct wnn_diag diag;
	ASSERT_EQ(st_resolve(&f, &op, &attrs, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "convTranspose2d: input channels 1 are not divisible by groups 2");
	uint32_t w2 = T(&f, WNN_F32, 2, 2, 3, 3);
	m.filter = w2;
	ERR(&f, &op, "convTranspose2d: filter input channels 2 do not match input channels 1");
}

/* ==== reference backend: hand-computed and literal WPT values through its kernels */

static Webnn__Ipc__Conv2d *conv_msg(struct tg_graph *t, uint32_t in, uint32_t filter)
{
	Webnn__Ipc__Conv2d init = WEBNN__IPC__CONV2D__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = in, m->filter = filter, m->output = tg_next(t);
	return m;
}

/* ---- conv2d. Input 1..9 as 3x3; the filter of two output channels is, as [o][ky][kx],
 * o0 = {1,0,0,1}, o1 = {0,1,2,0}. */

TEST(ops_conv_reference_basic_and_f16)
{
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, ty, SHAPE(1, 1, 3, 3));
		uint32_t f = rt_constant(&t, ty, SHAPE(1, 1, 2, 2), D(1, 0, 0, 1));
		uint32_t o = rt_op(&t, WNN_OP_CONV2D, conv_msg(&t, x, f));
		rt_expect_shape(&t, o, SHAPE(1, 1, 2, 2));
		rt_expect(&t, INS(rt_iota9), D(6, 8, 12, 14), 0);
		tg_free(&t);
	}
}

TEST(ops_conv_reference_padding_strides_dilations_bias)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
	uint32_t f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 1, 1, 1));
	Webnn__Ipc__Conv2d *m = conv_msg(&t, x, f);
	LIST(m, padding, 1, 1, 1, 1);
	LIST(m, strides, 2, 2);
	uint32_t o = rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 2, 2));
	rt_expect(&t, INS(rt_iota9), D(1, 5, 11, 28), 0);
	tg_free(&t);

	/* asymmetric padding: only the bottom and right */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
	f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 1, 1, 1));
	m = conv_msg(&t, x, f);
	LIST(m, padding, 0, 1, 0, 1);
	LIST(m, strides, 2, 2);
	o = rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 2, 2));
	rt_expect(&t, INS(rt_iota9), D(12, 9, 15, 9), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
	f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 1, 1, 1));
	m = conv_msg(&t, x, f);
	LIST(m, dilations, 2, 2);
	o = rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 1, 1));
	rt_expect(&t, INS(rt_iota9), D(20), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
	f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 0, 0, 1));
	uint32_t b = rt_constant(&t, WNN_F32, SHAPE(1), D(0.5));
	m = conv_msg(&t, x, f);
	m->has_bias = true, m->bias = b;
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(rt_iota9), D(6.5, 8.5, 12.5, 14.5), 0);
	tg_free(&t);
}

TEST(ops_conv_reference_filter_layouts_and_nhwc)
{
	static const struct {
		Webnn__Ipc__Conv2dFilterLayout layout;
		uint32_t dims[4];
		double data[8];
	} layouts[] = {
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW, { 2, 1, 2, 2 }, { 1, 0, 0, 1, 0, 1, 2, 0 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__HWIO, { 2, 2, 1, 2 }, { 1, 0, 0, 1, 0, 2, 1, 0 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI, { 2, 2, 2, 1 }, { 1, 0, 0, 1, 0, 1, 2, 0 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO, { 1, 2, 2, 2 }, { 1, 0, 0, 1, 0, 2, 1, 0 } },
	};
	for (size_t i = 0; i < 4; i++)
		for (int nhwc = 0; nhwc < 2; nhwc++) {
			struct tg_graph t;
			tg_init(&t);
			uint32_t x = nhwc ? tg_input(&t, WNN_F32, SHAPE(1, 3, 3, 1))
					  : tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
			uint32_t f = rt_constant(&t, WNN_F32, 4, layouts[i].dims, layouts[i].data);
			Webnn__Ipc__Conv2d *m = conv_msg(&t, x, f);
			m->filter_layout = layouts[i].layout;
			m->input_layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC
					       : WEBNN__IPC__INPUT_LAYOUT__NCHW;
			uint32_t o = rt_op(&t, WNN_OP_CONV2D, m);
			if (nhwc) {
				rt_expect_shape(&t, o, SHAPE(1, 2, 2, 2));
				rt_expect(&t, INS(rt_iota9), D(6, 10, 8, 13, 12, 19, 14, 22), 0);
			} else {
				rt_expect_shape(&t, o, SHAPE(1, 2, 2, 2));
				rt_expect(&t, INS(rt_iota9), D(6, 8, 12, 14, 10, 13, 19, 22), 0);
			}
			tg_free(&t);
		}
}

TEST(ops_conv_reference_groups_and_depthwise)
{
	/* depthwise: groups = input channels = output channels = 2 */
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 2, 2, 2));
	uint32_t f = rt_constant(&t, WNN_F32, SHAPE(2, 1, 2, 2), D(1, 1, 1, 1, 1, 0, 0, -1));
	Webnn__Ipc__Conv2d *m = conv_msg(&t, x, f);
	m->groups = 2;
	uint32_t o = rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 2, 1, 1));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6, 7, 8)), D(10, -3), 0);
	tg_free(&t);

	/* two groups of one input channel and two output channels each */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 2, 1, 1));
	f = rt_constant(&t, WNN_F32, SHAPE(4, 1, 1, 1), D(1, 2, 3, 4));
	m = conv_msg(&t, x, f);
	m->groups = 2;
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(D(10, 100)), D(10, 20, 300, 400), 0);
	tg_free(&t);

	/* two groups of two input channels (filter [o][i] with i within the group), nhwc + ohwi */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 1, 4));
	f = rt_constant(&t, WNN_F32, SHAPE(2, 1, 1, 2), D(1, 10, 100, 1000));
	m = conv_msg(&t, x, f);
	m->groups = 2;
	m->input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	m->filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI;
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(21, 4300), 0);
	tg_free(&t);
}

/* Permutes a dense 4-D tensor: out dims = in dims[perm[i]]. */
static void permute4(const float *in, const uint32_t *dims, const uint32_t *perm, float *out)
{
	uint32_t od[4];
	uint64_t is[4];
	for (int i = 0; i < 4; i++)
		od[i] = dims[perm[i]];
	wnn_shape_strides(4, dims, is);
	uint64_t k = 0;
	for (uint32_t a = 0; a < od[0]; a++)
		for (uint32_t b = 0; b < od[1]; b++)
			for (uint32_t c = 0; c < od[2]; c++)
				for (uint32_t d = 0; d < od[3]; d++)
					out[k++] = in[a * is[perm[0]] + b * is[perm[1]] +
						      c * is[perm[2]] + d * is[perm[3]]];
}

/* Every filter layout and both input layouts compute the same convolution, bit for bit (the
 * accumulation order does not depend on the layout). */
TEST(ops_conv_reference_layouts_agree_on_random_data)
{
	enum { N = 2, C = 4, H = 5, W = 6, O = 6, G = 2, KH = 3, KW = 2 };
	static float x[N * C * H * W], xh[N * C * H * W], fo[O * (C / G) * KH * KW], fl[sizeof(fo) / 4];
	static float bias[O], ref[N * O * 2 * 7], out[sizeof(ref) / 4], back[sizeof(ref) / 4];
	const uint32_t xd[4] = { N, C, H, W }, fd[4] = { O, C / G, KH, KW };
	tg_random(x, WNN_F32, N * C * H * W, 1, -1, 1);
	tg_random(fo, WNN_F32, sizeof(fo) / 4, 2, -1, 1);
	tg_random(bias, WNN_F32, O, 3, -1, 1);
	permute4(x, xd, (uint32_t[]){ 0, 2, 3, 1 }, xh);
	static const struct {
		Webnn__Ipc__Conv2dFilterLayout layout;
		uint32_t perm[4]; /* of oihw */
	} layouts[] = {
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW, { 0, 1, 2, 3 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__HWIO, { 2, 3, 1, 0 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI, { 0, 2, 3, 1 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO, { 1, 2, 3, 0 } },
	};
	for (int nhwc = 0; nhwc < 2; nhwc++)
		for (size_t l = 0; l < 4; l++) {
			uint32_t fdims[4];
			for (int i = 0; i < 4; i++)
				fdims[i] = fd[layouts[l].perm[i]];
			permute4(fo, fd, layouts[l].perm, fl);
			struct tg_graph t;
			struct wnn_diag diag = { 0 };
			tg_init(&t);
			uint32_t in = nhwc ? tg_input(&t, WNN_F32, SHAPE(N, H, W, C))
					   : tg_input(&t, WNN_F32, SHAPE(N, C, H, W));
			uint32_t f = tg_constant(&t, WNN_F32, 4, fdims, fl);
			uint32_t b = tg_constant(&t, WNN_F32, SHAPE(O), bias);
			Webnn__Ipc__Conv2d *m = conv_msg(&t, in, f);
			m->groups = G;
			m->has_bias = true, m->bias = b;
			m->filter_layout = layouts[l].layout;
			m->input_layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC
					       : WEBNN__IPC__INPUT_LAYOUT__NCHW;
			LIST(m, padding, 1, 0, 2, 1);
			LIST(m, strides, 2, 1);
			LIST(m, dilations, 1, 2);
			uint32_t o = rt_op(&t, WNN_OP_CONV2D, m);
			/* H: (5 + 1 + 0 - 3) / 2 + 1 = 2; W: (6 + 2 + 1 - 3) / 1 + 1 = 7 */
			const struct graph_ir *g = tg_finish(&t, &diag);
			ASSERT_MSG(g, "%s", diag.message);
			float *dst = l == 0 && !nhwc ? ref : out;
			ASSERT_EQ(tg_run(&backend_reference, NULL, g,
					 (const void *const[]){ nhwc ? xh : x }, (void *const[]){ dst },
					 &diag), WEBNN_STATUS_OK);
			uint32_t oh = nhwc ? t.descs[o].dims[1] : t.descs[o].dims[2];
			uint32_t ow = nhwc ? t.descs[o].dims[2] : t.descs[o].dims[3];
			ASSERT_EQ(oh, 2);
			ASSERT_EQ(ow, 7);
			if (nhwc) {
				uint32_t od[4] = { N, 2, 7, O };
				permute4(out, od, (uint32_t[]){ 0, 3, 1, 2 }, back);
				dst = back;
			}
			char msg[256];
			if (dst != ref && !tg_compare(dst, ref, WNN_F32, N * O * 2 * 7, 0, 0, 0, msg,
						      sizeof(msg)))
				FAIL("layout %zu nhwc %d: %s", l, nhwc, msg);
			tg_free(&t);
		}
}

/* ---- literal WPT conformance cases (../shared/conformance), copied so this file stands alone */

/* conv2d.json: "conv2d float32 4D input and filter tensors options.dilations"
 * (tolerance ULP 18) */
static const double cf_conv_dil_conv2dInput[] = {
	0.6124474406242371, 0.8857858777046204, 0.13667134940624237, 0.5645291209220886,
	0.8965172171592712, 0.36792829632759094, 0.6811466217041016, 0.0479511022567749,
	0.33355462551116943, 0.19882695376873016, 0.41167140007019043, 0.07934240251779556,
	0.4272463321685791, 0.535800576210022, 0.5910806059837341, 0.28415432572364807,
	0.4147258698940277, 0.026906268671154976, 0.3621256649494171, 0.9945681691169739,
	0.07184549421072006, 0.12204372137784958, 0.8422137498855591, 0.4537501037120819,
	0.21529443562030792
};
static const double cf_conv_dil_conv2dFilter[] = {
	0.3804761469364166, 0.5280312299728394, 0.21947036683559418, 0.36689770221710205,
	0.33974137902259827, 0.4200059771537781, 0.3805030882358551, 0.19443586468696594,
	0.5686976909637451
};
static const double cf_conv_dil_out[] = {
	1.3599307537078857
};

/* conv2d.json: "depthwise conv2d float32 4D input and filter tensors options.groups= input_channels"
 * (tolerance ULP 8) */
static const double cf_conv_dw_conv2dInput[] = {
	0.8444867730140686, 0.9432409405708313, 0.6556113362312317, 0.6982811689376831,
	0.9994443655014038, 0.23663610219955444, 0.36740678548812866, 0.2619246542453766,
	0.6254158616065979, 0.8403863906860352, 0.3783077001571655, 0.4543924033641815,
	0.25327208638191223, 0.5780375599861145, 0.5414554476737976, 0.37846308946609497
};
static const double cf_conv_dw_conv2dFilter[] = {
	0.27221617102622986, 0.281202495098114, 0.854483962059021, 0.1796930730342865,
	0.7762278318405151, 0.5140685439109802, 0.6374202966690063, 0.12801742553710938,
	0.8373776078224182, 0.5726001858711243, 0.09855203330516815, 0.5929878950119019,
	0.5900803804397583, 0.9690897464752197, 0.23175589740276337, 0.14805112779140472
};
static const double cf_conv_dw_out[] = {
	1.1808103322982788, 1.165167212486267, 1.311646819114685, 0.8911385536193848
};

/* conv2d.json: "conv2d float32 4D input and filter tensors options.inputLayout='nhwc' and options.filterLayout='ihwo'"
 * (tolerance ULP 8) */
static const double cf_conv_nhwc_conv2dInput[] = {
	0.7529087066650391, 0.7520291805267334, 0.5949527621269226, 0.2163185328245163,
	0.07589349150657654, 0.151067852973938, 0.1212485060095787, 0.5364335179328918,
	0.5937089920043945, 0.991003155708313, 0.3630942404270172, 0.9289674162864685,
	0.22727376222610474, 0.5414124131202698, 0.08445341885089874, 0.6765284538269043,
	0.6193256378173828, 0.3929215967655182
};
static const double cf_conv_nhwc_conv2dFilter[] = {
	0.14543837308883667, 0.6952692270278931, 0.3072136342525482, 0.9671129584312439,
	0.5070913434028625, 0.43241235613822937, 0.10836050659418106, 0.08139707148075104,
	0.9849002361297607, 0.3202308118343353, 0.5303338766098022, 0.4281076192855835
};
static const double cf_conv_nhwc_out[] = {
	0.8845428228378296, 0.9626783132553101, 0.8020333051681519, 0.7413608431816101,
	0.9108520746231079, 0.6277193427085876, 0.2897796928882599, 0.4832426905632019,
	0.4483422338962555, 0.4053896367549896, 0.4878997206687927, 0.8711439371109009,
	0.6932874917984009, 1.1787647008895874, 0.9170808792114258, 1.0369365215301514,
	0.8123774528503418, 1.082636833190918, 0.8282973766326904, 0.816078782081604,
	1.2353861331939697, 0.35335418581962585, 0.6780439019203186, 0.9810346961021423
};

/* conv2d.json: "conv2d float32 4D input and filter tensors 1D options.bias"
 * (tolerance ULP 8) */
static const double cf_conv_bias_conv2dInput[] = {
	0.7529087066650391, 0.7520291805267334, 0.5949527621269226, 0.2163185328245163,
	0.07589349150657654, 0.151067852973938, 0.1212485060095787, 0.5364335179328918,
	0.5937089920043945, 0.991003155708313, 0.3630942404270172, 0.9289674162864685,
	0.22727376222610474, 0.5414124131202698, 0.08445341885089874, 0.6765284538269043,
	0.6193256378173828, 0.3929215967655182
};
static const double cf_conv_bias_conv2dFilter[] = {
	0.14543837308883667, 0.9671129584312439, 0.10836050659418106, 0.3202308118343353,
	0.6952692270278931, 0.5070913434028625, 0.08139707148075104, 0.5303338766098022,
	0.3072136342525482, 0.43241235613822937, 0.9849002361297607, 0.4281076192855835
};
static const double cf_conv_bias_conv2dBias[] = {
	0.8135762214660645, 0.8394582867622375, 0.49444812536239624
};
static const double cf_conv_bias_out[] = {
	1.698119044303894, 1.5549371242523193, 1.103355884552002, 1.2189658880233765,
	1.8021366596221924, 1.7503103017807007, 1.3227009773254395, 1.3273580074310303,
	1.2964813709259033, 1.1221674680709839, 0.9427903890609741, 1.365592122077942,
	1.5068637132644653, 1.8505127429962158, 1.6418735980987549, 1.1669304370880127,
	2.0182230472564697, 1.6518357992172241, 1.6555371284484863, 1.5175021886825562,
	1.4115289449691772, 1.577085018157959, 1.7298341989517212, 1.4754828214645386
};

TEST(ops_conv_reference_conformance_conv2d)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
	uint32_t f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 3, 3), cf_conv_dil_conv2dFilter);
	Webnn__Ipc__Conv2d *m = conv_msg(&t, x, f);
	LIST(m, dilations, 2, 2);
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(cf_conv_dil_conv2dInput), cf_conv_dil_out, 18);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 4, 2, 2));
	f = rt_constant(&t, WNN_F32, SHAPE(4, 1, 2, 2), cf_conv_dw_conv2dFilter);
	m = conv_msg(&t, x, f);
	m->groups = 4;
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(cf_conv_dw_conv2dInput), cf_conv_dw_out, 8);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 3, 3, 1));
	f = rt_constant(&t, WNN_F32, SHAPE(1, 2, 2, 3), cf_conv_nhwc_conv2dFilter);
	m = conv_msg(&t, x, f);
	m->input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	m->filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO;
	uint32_t o = rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect_shape(&t, o, SHAPE(2, 2, 2, 3));
	rt_expect(&t, INS(cf_conv_nhwc_conv2dInput), cf_conv_nhwc_out, 8);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 1, 3, 3));
	f = rt_constant(&t, WNN_F32, SHAPE(3, 1, 2, 2), cf_conv_bias_conv2dFilter);
	uint32_t b = rt_constant(&t, WNN_F32, SHAPE(3), cf_conv_bias_conv2dBias);
	m = conv_msg(&t, x, f);
	m->has_bias = true, m->bias = b;
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(cf_conv_bias_conv2dInput), cf_conv_bias_out, 8);
	tg_free(&t);
}

/* ---- convTranspose2d */

TEST(ops_conv_reference_conv_transpose2d_strides_padding_output_padding_bias)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	uint32_t f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 1, 1, 1));
	Webnn__Ipc__ConvTranspose2d *m =
		MSG(Webnn__Ipc__ConvTranspose2d, WEBNN__IPC__CONV_TRANSPOSE2D__INIT);
	m->input = x, m->filter = f, m->output = tg_next(&t);
	uint32_t o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 3, 3));
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(1, 3, 2, 4, 10, 6, 3, 7, 4), 0);
	tg_free(&t);

	/* stride 2: each input becomes a separate 2x2 block; outputPadding adds a zero row/col
	 * (bias 10 there); padding 1 crops one from the start */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 2, 3, 4));
	uint32_t b = rt_constant(&t, WNN_F32, SHAPE(1), D(10));
	m = MSG(Webnn__Ipc__ConvTranspose2d, WEBNN__IPC__CONV_TRANSPOSE2D__INIT);
	m->input = x, m->filter = f, m->output = tg_next(&t);
	m->has_bias = true, m->bias = b;
	LIST(m, strides, 2, 2);
	LIST(m, output_padding, 1, 1);
	LIST(m, padding, 1, 0, 1, 0);
	o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 4, 4));
	/* full (uncropped) 5x5 of x=[1,0;0,0]-style blocks: row r, col c of block (i,j) =
	 * x[i][j] * f[r][c]; crop first row and column */
	rt_expect(&t, INS(D(1, 0, 0, 1)),
		D(14, 10, 10, 10, 10, 11, 12, 10, 10, 13, 14, 10, 10, 10, 10, 10), 0);
	tg_free(&t);
}

TEST(ops_conv_reference_conv_transpose2d_layouts_groups_agree)
{
	/* groups 2, 2 input channels, 2 output channels per group: out channel oc of group g
	 * sums only input channel g. IOHW filter [2, 2, 1, 1]. */
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 2, 1, 1));
	uint32_t f = rt_constant(&t, WNN_F32, SHAPE(2, 2, 1, 1), D(1, 2, 3, 4));
	Webnn__Ipc__ConvTranspose2d *m =
		MSG(Webnn__Ipc__ConvTranspose2d, WEBNN__IPC__CONV_TRANSPOSE2D__INIT);
	m->input = x, m->filter = f, m->output = tg_next(&t), m->groups = 2;
	uint32_t o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 4, 1, 1));
	rt_expect(&t, INS(D(10, 100)), D(10, 20, 300, 400), 0);
	tg_free(&t);

	/* NHWC input with HWOI filter = NCHW with IOHW on the same numbers */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 2, 2, 1));
	f = rt_constant(&t, WNN_F32, SHAPE(2, 2, 1, 1), D(1, 2, 3, 4)); /* HWOI: [kh, kw, o, i] */
	m = MSG(Webnn__Ipc__ConvTranspose2d, WEBNN__IPC__CONV_TRANSPOSE2D__INIT);
	m->input = x, m->filter = f, m->output = tg_next(&t);
	m->input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	m->filter_layout = WEBNN__IPC__CONV_TRANSPOSE2D_FILTER_LAYOUT__HWOI;
	o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 3, 3, 1));
	/* input [1,2;3,4] (h, w), kernel [1,2;3,4] */
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(1, 4, 4, 6, 20, 16, 9, 24, 16), 0);
	tg_free(&t);
}

/* ---- literal WPT data copied from shared/conformance (BSD-3-Clause; see LICENSE.wpt.md there);
 * every operand is made a constant, graph inputs are covered by the tests above */

/* conv_transpose2d.json: "convTranspose2d float32 4D input and filter tensors options.outputPadding" (tolerance ULP 18) */
/* float32 [1, 1, 3, 3] */
static const double cx_ct_opad_convTranspose2dInput[] = {
	0.05605664849281311, 0.7114229798316956, 0.6529743671417236, 0.38622909784317017,
	0.3870837390422821, 0.9461629390716553, 0.09573192149400711, 0.9234652519226074,
	0.636277973651886
};
/* float32 [1, 2, 3, 3] constant */
static const double cx_ct_opad_convTranspose2dFilter[] = {
	0.8614422678947449, 0.6267672777175903, 0.6366490125656128, 0.8382642269134521,
	0.11884837597608566, 0.9921330213546753, 0.3285411298274994, 0.8742373585700989,
	0.7205492258071899, 0.9801966547966003, 0.06169835478067398, 0.3220160901546478,
	0.7498031854629517, 0.3930714726448059, 0.13811933994293213, 0.28385090827941895,
	0.4235861301422119, 0.1448512077331543
};
/* float32 [1, 2, 10, 8] */
static const double cx_ct_opad_convTranspose2dOutput[] = {
	0.04828956723213196, 0.03513447195291519, 0.6485382318496704, 0.4458966553211212,
	1.015426516532898, 0.4092629551887512, 0.4157154858112335, 0, 0.0469902828335762,
	0.0066622416488826275, 0.6519761085510254, 0.08455146849155426, 1.2531912326812744,
	0.07760494202375412, 0.6478374600410461, 0, 0.018416915088891983, 0.04900681599974632,
	0.27412328124046326, 0.6219525337219238, 0.7271442413330078, 0.5708546042442322,
	0.4705001711845398, 0, 0.3327140808105469, 0.24207575619220734, 0.5793426632881165,
	0.24261142313480377, 1.0615012645721436, 0.593023955821991, 0.6023737192153931, 0,
	0.32376202940940857, 0.04590269923210144, 0.7076690793037415, 0.0460042729973793,
	1.177173137664795, 0.11244992911815643, 0.9387195110321045, 0, 0.12689214944839478,
	0.3376559019088745, 0.40547001361846924, 0.3384030759334564, 0.5897663235664368,
	0.8271709680557251, 0.6817569732666016, 0, 0.08246752619743347, 0.06000163406133652,
	0.8564596176147461, 0.5787978172302246, 1.1360399723052979, 0.39879822731018066,
	0.4050857424736023, 0, 0.0802486464381218, 0.011377583257853985, 0.8690866827964783,
	0.1097523421049118, 1.4495694637298584, 0.0756206065416336, 0.6312723755836487, 0,
	0.03145187348127365, 0.08369242399930954, 0.37237587571144104, 0.8073278069496155,
	0.8744456768035889, 0.556257963180542, 0.45846959948539734, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0.05494653806090355, 0.0034586030524224043, 0.7153855562210083, 0.04389362782239914,
	0.869132936000824, 0.04028744250535965, 0.21026825904846191, 0, 0.04203145205974579,
	0.02203426882624626, 0.5411697030067444, 0.2796400785446167, 0.5878635048866272,
	0.25666558742523193, 0.0901883915066719, 0, 0.015911730006337166, 0.023744819685816765,
	0.21005792915821075, 0.30134889483451843, 0.2883978486061096, 0.27659088373184204,
	0.09458412230014801, 0, 0.3785804808139801, 0.02382970042526722, 0.5037901997566223,
	0.0238824300467968, 1.0520728826522827, 0.05837669596076012, 0.3046796917915344, 0,
	0.2895958125591278, 0.15181563794612885, 0.3435823321342468, 0.15215156972408295,
	0.7628997564315796, 0.37190964818000793, 0.13068340718746185, 0, 0.1096314787864685,
	0.16360129415988922, 0.16581982374191284, 0.16396330296993256, 0.3246387541294098,
	0.400781512260437, 0.13705284893512726, 0, 0.09383610635995865, 0.00590650225058198,
	0.9360047578811646, 0.05697628855705261, 0.9210482239723206, 0.03925730288028717,
	0.20489174127578735, 0, 0.07178010046482086, 0.03762948885560036, 0.7056396007537842,
	0.36298784613609314, 0.6046316623687744, 0.2501027286052704, 0.08788229525089264, 0,
	0.027173593640327454, 0.04055071249604225, 0.27599334716796875, 0.3911670744419098,
	0.3143731355667114, 0.26951852440834045, 0.09216563403606415, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

/* conv_transpose2d.json: "convTranspose2d options.padding is the same upper padding" (tolerance ULP 18) */
/* float32 [1, 3, 3, 1] */
static const double cx_ct_nhwc_convTranspose2dInput[] = {
	0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5
};
/* float32 [2, 3, 3, 1] constant */
static const double cx_ct_nhwc_convTranspose2dFilter[] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
};
/* float32 [1, 6, 6, 2] */
static const double cx_ct_nhwc_convTranspose2dOutput[] = {
	0.5, 0.5, 0.5, 0.5, 1, 1, 0.5, 0.5, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, 0.5, 0.5, 1, 1,
	0.5, 0.5, 1, 1, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 0.5, 0.5, 0.5, 0.5, 1, 1, 0.5, 0.5, 1, 1, 0.5,
	0.5, 1, 1, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 0.5, 0.5, 0.5, 0.5, 1, 1, 0.5, 0.5, 1, 1, 0.5, 0.5
};

/* conv_transpose2d.json: "convTranspose2d float32 4D input and filter tensors options.groups=2 options.strides=[2, 2]" (tolerance ULP 8) */
/* float32 [1, 2, 2, 2] */
static const double cx_ct_groups_convTranspose2dInput[] = {
	0.8161798119544983, 0.5442776083946228, 0.7910669445991516, 0.36564111709594727,
	0.25429198145866394, 0.20815767347812653, 0.7023073434829712, 0.5734469890594482
};
/* float32 [2, 1, 2, 2] constant */
static const double cx_ct_groups_convTranspose2dFilter[] = {
	0.09232201427221298, 0.31896016001701355, 0.5445202589035034, 0.6582807898521423,
	0.9634373188018799, 0.012118860147893429, 0.9230011701583862, 0.4781944155693054
};
/* float32 [1, 2, 4, 4] */
static const double cx_ct_groups_convTranspose2dOutput[] = {
	0.07535136491060257, 0.26032882928848267, 0.050248805433511734, 0.1736028790473938,
	0.44442644715309143, 0.537275493144989, 0.29637017846107483, 0.3582874834537506,
	0.07303289324045181, 0.2523188292980194, 0.03375672549009323, 0.11662495136260986,
	0.4307519793510437, 0.5207441449165344, 0.19909898936748505, 0.24069452285766602,
	0.2449943870306015, 0.0030817289371043444, 0.20054687559604645, 0.002522633643820882,
	0.23471179604530334, 0.12160100787878036, 0.19212977588176727, 0.09953983873128891,
	0.6766291260719299, 0.008511164225637913, 0.5524802207946777, 0.00694952392950654,
	0.6482304930686951, 0.3358394503593445, 0.5292922258377075, 0.2742191553115845
};

/* conv_transpose2d.json: "convTranspose2d float32 4D input and filter tensors options.dilations" (tolerance ULP 8) */
/* float32 [1, 1, 3, 3] */
static const double cx_ct_dil_convTranspose2dInput[] = {
	0.3194596767425537, 0.9762163758277893, 0.4131408631801605, 0.47982943058013916,
	0.76741623878479, 0.9083173871040344, 0.6205142140388489, 0.6580719947814941,
	0.6553052067756653
};
/* float32 [1, 1, 2, 2] constant */
static const double cx_ct_dil_convTranspose2dFilter[] = {
	0.6835425496101379, 0.9641214609146118, 0.8272836804389954, 0.5771222710609436
};
/* float32 [1, 1, 5, 5] */
static const double cx_ct_dil_convTranspose2dOutput[] = {
	0.21836428344249725, 0.6672854423522949, 0.590397298336029, 0.9411911368370056,
	0.39831796288490295, 0.3279838263988495, 0.5245616436004639, 1.0834873914718628,
	0.7398824691772461, 0.8757283091545105, 0.6884316205978394, 1.2574280500411987,
	1.5723320245742798, 1.1978574991226196, 0.8702266216278076, 0.39695504307746887,
	0.6348709464073181, 1.0283564329147339, 0.44289299845695496, 0.5242102146148682,
	0.5133413076400757, 0.5444121956825256, 0.9002358913421631, 0.37978801131248474,
	0.3781912326812744
};

static Webnn__Ipc__ConvTranspose2d *ct_msg(struct tg_graph *t, uint32_t x, uint32_t f)
{
	Webnn__Ipc__ConvTranspose2d *m =
		MSG(Webnn__Ipc__ConvTranspose2d, WEBNN__IPC__CONV_TRANSPOSE2D__INIT);
	m->input = x, m->filter = f, m->output = tg_next(t);
	return m;
}

TEST(ops_conv_reference_wpt_conv_transpose2d)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_ct_opad_convTranspose2dInput, 1, 1, 3, 3);
	uint32_t f = C(&t, WNN_F32, cx_ct_opad_convTranspose2dFilter, 1, 2, 3, 3);
	Webnn__Ipc__ConvTranspose2d *m = ct_msg(&t, x, f);
	LIST(m, strides, 3, 2);
	LIST(m, output_padding, 1, 1);
	uint32_t o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 2, 10, 8));
	rt_expect(&t, NULL, cx_ct_opad_convTranspose2dOutput, 18);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_ct_nhwc_convTranspose2dInput, 1, 3, 3, 1);
	f = C(&t, WNN_F32, cx_ct_nhwc_convTranspose2dFilter, 2, 3, 3, 1);
	m = ct_msg(&t, x, f);
	LIST(m, output_sizes, 6, 6);
	LIST(m, strides, 2, 2);
	LIST(m, padding, 0, 1, 0, 1);
	m->filter_layout = WEBNN__IPC__CONV_TRANSPOSE2D_FILTER_LAYOUT__OHWI_T;
	m->input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 6, 6, 2));
	rt_expect(&t, NULL, cx_ct_nhwc_convTranspose2dOutput, 18);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_ct_groups_convTranspose2dInput, 1, 2, 2, 2);
	f = C(&t, WNN_F32, cx_ct_groups_convTranspose2dFilter, 2, 1, 2, 2);
	m = ct_msg(&t, x, f);
	LIST(m, strides, 2, 2);
	m->groups = 2;
	rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect(&t, NULL, cx_ct_groups_convTranspose2dOutput, 8);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_ct_dil_convTranspose2dInput, 1, 1, 3, 3);
	f = C(&t, WNN_F32, cx_ct_dil_convTranspose2dFilter, 1, 1, 2, 2);
	m = ct_msg(&t, x, f);
	LIST(m, dilations, 2, 2);
	rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect(&t, NULL, cx_ct_dil_convTranspose2dOutput, 8);
	tg_free(&t);
}

/* ==== OpenCL backend against the reference: seeded inputs through both (tests/ocltest.h) */

struct conv_case {
	uint32_t n, c, h, w, oc, kh, kw, groups;
	uint32_t pad[4], stride[2], dil[2];
	bool nhwc, bias;
	int filter_layout;
	enum wnn_dtype t;
};

static void conv_run(struct backend *be, const struct conv_case *c, bool const_filter)
{
	struct tg_graph tg;
	tg_init(&tg);
	uint32_t in_dims[4];
	if (c->nhwc)
		memcpy(in_dims, (uint32_t[]){ c->n, c->h, c->w, c->c }, sizeof in_dims);
	else
		memcpy(in_dims, (uint32_t[]){ c->n, c->c, c->h, c->w }, sizeof in_dims);
	uint32_t icg = c->c / c->groups, fd[4];
	switch (c->filter_layout) {
	case 0: memcpy(fd, (uint32_t[]){ c->oc, icg, c->kh, c->kw }, sizeof fd); break;
	case 1: memcpy(fd, (uint32_t[]){ c->kh, c->kw, icg, c->oc }, sizeof fd); break;
	case 2: memcpy(fd, (uint32_t[]){ c->oc, c->kh, c->kw, icg }, sizeof fd); break;
	default: memcpy(fd, (uint32_t[]){ icg, c->kh, c->kw, c->oc }, sizeof fd); break;
	}
	uint32_t x = tg_input(&tg, c->t, 4, in_dims);
	uint32_t f;
	size_t fcount = (size_t)fd[0] * fd[1] * fd[2] * fd[3];
	void *fdata = malloc(fcount * 4 + 4), *bdata = malloc(c->oc * 4 + 4);
	if (const_filter) {
		tg_random(fdata, c->t, fcount, 99, -1, 1);
		f = tg_constant(&tg, c->t, 4, fd, fdata);
	} else {
		f = tg_input(&tg, c->t, 4, fd);
	}
	uint32_t bias = 0;
	if (c->bias) {
		tg_random(bdata, c->t, c->oc, 7, -1, 1);
		bias = const_filter ? tg_constant(&tg, c->t, 1, (uint32_t[]){ c->oc }, bdata)
				    : tg_input(&tg, c->t, 1, (uint32_t[]){ c->oc });
	}
	Webnn__Ipc__Conv2d m = WEBNN__IPC__CONV2D__INIT;
	m.input = x;
	m.filter = f;
	m.has_bias = c->bias;
	m.bias = bias;
	m.output = tg_next(&tg);
	uint32_t pad[4], stride[2], dil[2];
	memcpy(pad, c->pad, sizeof pad);
	memcpy(stride, c->stride, sizeof stride);
	memcpy(dil, c->dil, sizeof dil);
	m.n_padding = 4;
	m.padding = pad;
	m.n_strides = 2;
	m.strides = stride;
	m.n_dilations = 2;
	m.dilations = dil;
	m.has_groups = 1;
	m.groups = c->groups;
	m.has_input_layout = 1;
	m.input_layout = c->nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC : WEBNN__IPC__INPUT_LAYOUT__NCHW;
	m.has_filter_layout = 1;
	m.filter_layout = (Webnn__Ipc__Conv2dFilterLayout)c->filter_layout;
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, WNN_OP_CONV2D, &m);
	char label[160];
	snprintf(label, sizeof label,
		 "conv2d %s %s filter %d g%u %ux%u s%u,%u d%u,%u p%u,%u,%u,%u bias %d const %d",
		 wnn_dtype_name(c->t), c->nhwc ? "nhwc" : "nchw", c->filter_layout, c->groups, c->kh,
		 c->kw, c->stride[0], c->stride[1], c->dil[0], c->dil[1], c->pad[0], c->pad[1],
		 c->pad[2], c->pad[3], c->bias, const_filter);
	ot_check(be, ot_finish(&tg, &o, label), -1, 1, c->t == WNN_F16 ? TOL_F16_SUM : TOL_SUM, label);
	tg_free(&tg);
	free(fdata);
	free(bdata);
}

OT_TEST(ops_conv, layouts, 300)
{
	struct backend *be = ot_backend();
	for (int nhwc = 0; nhwc < 2; nhwc++)
		for (int fl = 0; fl < 4; fl++) {
			struct conv_case c = { 2, 6, 9, 8, 8, 3, 3, 1, { 1, 1, 1, 1 }, { 1, 1 },
					       { 1, 1 }, nhwc, fl & 1, fl, WNN_F32 };
			conv_run(be, &c, true);
			c.groups = 2;
			c.pad[1] = 0;
			c.stride[1] = 2;
			conv_run(be, &c, fl == 1);
		}
	ot_impl->shutdown(be);
}

OT_TEST(ops_conv, options, 300)
{
	struct backend *be = ot_backend();
	static const struct conv_case cases[] = {
		/* 1x1 stride 1: the input is the gemm operand directly */
		{ 1, 16, 7, 7, 24, 1, 1, 1, { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, true, true, 2, WNN_F32 },
		{ 2, 16, 7, 5, 24, 1, 1, 1, { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, false, true, 0, WNN_F32 },
		{ 1, 16, 6, 6, 8, 1, 1, 4, { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, true, false, 2, WNN_F32 },
		/* strides, dilations, asymmetric pads */
		{ 1, 3, 15, 13, 8, 3, 3, 1, { 1, 2, 0, 1 }, { 2, 2 }, { 1, 1 }, true, true, 2, WNN_F32 },
		{ 1, 4, 12, 12, 5, 3, 2, 1, { 2, 2, 1, 0 }, { 1, 2 }, { 2, 3 }, false, false, 0, WNN_F32 },
		{ 1, 3, 23, 23, 6, 7, 7, 1, { 0, 0, 0, 0 }, { 2, 2 }, { 1, 1 }, true, true, 2, WNN_F32 },
		/* depthwise (direct kernel), with multiplier 2, both layouts */
		{ 1, 8, 10, 9, 8, 3, 3, 8, { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 }, true, true, 3, WNN_F32 },
		{ 2, 8, 10, 9, 16, 3, 3, 8, { 1, 1, 1, 1 }, { 2, 1 }, { 1, 2 }, false, true, 0, WNN_F32 },
		{ 1, 8, 10, 9, 8, 3, 3, 8, { 1, 1, 1, 1 }, { 2, 2 }, { 1, 1 }, true, false, 1, WNN_F32 },
		/* float16 through the gemm and the direct kernel */
		{ 1, 4, 8, 8, 6, 3, 3, 1, { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 }, true, true, 2, WNN_F16 },
		{ 1, 4, 8, 8, 6, 3, 3, 1, { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 }, false, true, 1, WNN_F16 },
		{ 1, 6, 8, 8, 6, 3, 3, 6, { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 }, true, true, 2, WNN_F16 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		conv_run(be, &cases[i], true);
		if (i % 3 == 0)
			conv_run(be, &cases[i], false);
	}
	ot_impl->shutdown(be);
}

OT_TEST(ops_conv, conv_transpose2d, 180)
{
	struct backend *be = ot_backend();
	char label[128];
	static const struct {
		uint32_t n, cin, h, w, cout, kh, kw, groups;
		uint32_t stride, dil, pad, out_pad;
		bool nhwc, bias;
		int layout;
	} cases[] = {
		{ 1, 2, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, false, false, 0 },
		{ 2, 4, 4, 5, 6, 3, 2, 2, 2, 1, 1, 1, false, true, 0 },
		{ 1, 3, 5, 4, 2, 2, 3, 1, 3, 2, 1, 0, true, true, 1 },
		{ 1, 4, 3, 3, 4, 3, 3, 2, 2, 1, 0, 1, true, false, 2 },
		{ 2, 2, 4, 4, 2, 1, 1, 1, 1, 1, 0, 0, false, true, 2 },
		/* eight or more input channels per group: gemm + col2im */
		{ 1, 8, 4, 4, 6, 3, 3, 1, 2, 1, 1, 1, false, true, 0 },
		{ 2, 16, 3, 5, 4, 2, 2, 2, 1, 2, 0, 0, true, true, 1 },
		{ 1, 8, 5, 5, 8, 3, 3, 1, 2, 2, 2, 1, false, false, 2 },
		{ 2, 9, 3, 3, 3, 2, 3, 1, 3, 1, 1, 2, true, false, 0 },
	};
	for (int f = 0; f < 2; f++)
		for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
			enum wnn_dtype t = f ? WNN_F16 : WNN_F32;
			__typeof__(cases[0]) c = cases[ci];
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t idims[4] = { c.n, c.cin, c.h, c.w };
			if (c.nhwc) {
				idims[1] = c.h;
				idims[2] = c.w;
				idims[3] = c.cin;
			}
			uint32_t og = c.cout / c.groups;
			uint32_t fd[3][4] = { { c.cin, og, c.kh, c.kw },   /* iohw */
					      { c.kh, c.kw, og, c.cin },   /* hwoi */
					      { og, c.kh, c.kw, c.cin } }; /* ohwi */
			uint32_t x = tg_input(&tg, t, 4, idims);
			uint32_t w = tg_input(&tg, t, 4, fd[c.layout]);
			Webnn__Ipc__ConvTranspose2d m = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
			m.input = x;
			m.filter = w;
			if (c.bias) {
				m.has_bias = 1;
				m.bias = tg_input(&tg, t, 1, (uint32_t[]){ c.cout });
			}
			uint32_t strides[2] = { c.stride, c.stride }, dil[2] = { c.dil, c.dil };
			uint32_t pad[4] = { c.pad, c.pad, c.pad, 0 }, opad[2] = { c.out_pad, 0 };
			m.n_strides = 2;
			m.strides = strides;
			m.n_dilations = 2;
			m.dilations = dil;
			m.n_padding = 4;
			m.padding = pad;
			m.n_output_padding = 2;
			m.output_padding = opad;
			m.has_groups = 1;
			m.groups = c.groups;
			m.has_input_layout = 1;
			m.input_layout = c.nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC
						: WEBNN__IPC__INPUT_LAYOUT__NCHW;
			m.has_filter_layout = 1;
			m.filter_layout = (Webnn__Ipc__ConvTranspose2dFilterLayout)c.layout;
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_CONV_TRANSPOSE2D, &m);
			snprintf(label, sizeof label, "convTranspose2d case %zu %s", ci,
				 wnn_dtype_name(t));
			const struct graph_ir *g = ot_finish(&tg, &o, label);
			ot_check_counted(be, g, -1, 1, f ? TOL_F16_SUM : TOL_SUM, label);
			tg_free(&tg);
		}
	ot_impl->shutdown(be);
}
