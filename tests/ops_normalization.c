/* Tests of the normalization family (batch/instance/layer normalization, softmax): hand-computed vectors through libwebnn, validation, the reference backend's kernels, the OpenCL backend against the reference. */
#include <math.h>

#include "daemon/backend/opencl/ocl.h"
#include "tests/ocltest.h"
#include "tests/opvectors.h"
#include "tests/reftest.h"
#include "tests/opfixture.h"
#include "tests/test.h"

/* ==== hand-computed vectors through libwebnn on both backends (tests/opvectors.h) */

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

/* ==== validation and shape inference (proto/schema_<family>.c) */

TEST(ops_normalization_schema_softmax)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 3, 5), i = T(&f, WNN_I32, 3, 5), o = SLOT(&f);
	Webnn__Ipc__Softmax m = WEBNN__IPC__SOFTMAX__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_SOFTMAX);
	op.softmax = &m;
	m.input = x, m.output = o, m.axis = 1;
	OK_OUT(&f, &op, 0, WNN_F32, 3, 5);
	m.axis = 4;
	ERR(&f, &op, "softmax: axis 4 is out of range for rank 2");
	m.axis = 0, m.input = i;
	ERR(&f, &op, "softmax: input data type int32 is not allowed");
}

TEST(ops_normalization_schema_batch_normalization)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2, 3, 4, 4), mean = T(&f, WNN_F32, 3), var = T(&f, WNN_F32, 3);
	uint32_t m4 = T(&f, WNN_F32, 4), sh = T(&f, WNN_F16, 3), o = SLOT(&f);
	Webnn__Ipc__BatchNormalization m = WEBNN__IPC__BATCH_NORMALIZATION__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_BATCH_NORMALIZATION);
	op.batch_normalization = &m;
	m.input = x, m.mean = mean, m.variance = var, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4, 4);
	m.has_scale = m.has_bias = true, m.scale = mean, m.bias = var;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4, 4);
	m.mean = m4;
	ERR(&f, &op, "batchNormalization: mean shape [4] is not [3] (input.shape[axis])");
	m.axis = 3;
	m.scale = m.bias = m4;
	ERR(&f, &op, "batchNormalization: variance shape [3] is not [4] (input.shape[axis])");
	m.variance = m4;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4, 4);
	m.bias = sh;
	ERR(&f, &op, "batchNormalization: bias data type float16 does not match input data type "
		     "float32");
	m.axis = 4;
	ERR(&f, &op, "batchNormalization: axis 4 is out of range for rank 4");
	uint32_t xi = T(&f, WNN_I32, 2, 3);
	m.input = xi, m.axis = 1;
	ERR(&f, &op, "batchNormalization: input data type int32 is not allowed");
}

TEST(ops_normalization_schema_instance_layer_normalization)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F16, 1, 2, 3, 5), s2 = T(&f, WNN_F16, 2), s5 = T(&f, WNN_F16, 5);
	uint32_t s35 = T(&f, WNN_F16, 3, 5), o = SLOT(&f);
	Webnn__Ipc__InstanceNormalization in = WEBNN__IPC__INSTANCE_NORMALIZATION__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_INSTANCE_NORMALIZATION);
	op.instance_normalization = &in;
	in.input = x, in.output = o, in.has_scale = true, in.scale = s2;
	OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3, 5);
	in.layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	ERR(&f, &op, "instanceNormalization: scale shape [2] is not [5] (input channels)");
	in.scale = s5;
	OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3, 5);

	Webnn__Ipc__LayerNormalization ln = WEBNN__IPC__LAYER_NORMALIZATION__INIT;
	uint32_t axes[] = { 2, 3 };
	op = st_mkop(WNN_OP_LAYER_NORMALIZATION);
	op.layer_normalization = &ln;
	ln.input = x, ln.output = o;
	OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3, 5);
	ln.has_scale = true, ln.scale = s35;
	ERR(&f, &op, "layerNormalization: scale rank is 2, expected 3 (the number of axes)");
	ln.has_axes = true, ln.axes = axes, ln.n_axes = 2;
	OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3, 5);
	axes[1] = 2;
	ERR(&f, &op, "layerNormalization: axes contain the axis 2 more than once");
	axes[0] = 3, axes[1] = 2;
	ERR(&f, &op, "layerNormalization: scale shape [3, 5] does not match the input dimensions");
}

/* ==== reference backend: hand-computed and literal WPT values through its kernels */

TEST(ops_normalization_reference_softmax_axes)
{
	double e = exp(1), e2 = exp(2), s = 1 + e + e2;
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, ty, SHAPE(2, 3));
		rt_softmax(&t, x, 1);
		rt_expect(&t, INS(D(0, 1, 2, 5, 5, 5)),
		       D(1 / s, e / s, e2 / s, 1.0 / 3, 1.0 / 3, 1.0 / 3), 1);
		tg_free(&t);

		tg_init(&t);
		x = tg_input(&t, ty, SHAPE(2, 2));
		rt_softmax(&t, x, 0);
		rt_expect(&t, INS(D(1, 1, 0, 3)),
		       D(e / (e + 1), 1 / (1 + e2), 1 / (e + 1), e2 / (1 + e2)), 1);
		tg_free(&t);
	}
}

TEST(ops_normalization_reference_batch_normalization_with_and_without_scale_bias)
{
	double eps = (float)1e-5;
	double n0 = 1 / sqrt(4 + eps), n1 = 1 / sqrt(1 + eps);
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 2, 1, 2));
	uint32_t mean = rt_constant(&t, WNN_F32, SHAPE(2), D(1, 3));
	uint32_t var = rt_constant(&t, WNN_F32, SHAPE(2), D(4, 1));
	rt_op(&t, WNN_OP_BATCH_NORMALIZATION, rt_bn_msg(&t, x, mean, var));
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(0, n0, 0, n1), 1);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 2, 1, 2));
	mean = rt_constant(&t, WNN_F32, SHAPE(2), D(1, 3));
	var = rt_constant(&t, WNN_F32, SHAPE(2), D(4, 1));
	uint32_t scale = rt_constant(&t, WNN_F32, SHAPE(2), D(2, 3));
	uint32_t bias = rt_constant(&t, WNN_F32, SHAPE(2), D(1, -1));
	Webnn__Ipc__BatchNormalization *m = rt_bn_msg(&t, x, mean, var);
	m->has_scale = true, m->scale = scale, m->has_bias = true, m->bias = bias;
	rt_op(&t, WNN_OP_BATCH_NORMALIZATION, m);
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(1, 1 + 2 * n0, -1, -1 + 3 * n1), 1);
	tg_free(&t);

	/* axis 0 of a [2, 2] tensor, only bias, epsilon 0.5, float16 */
	tg_init(&t);
	x = tg_input(&t, WNN_F16, SHAPE(2, 2));
	mean = rt_constant(&t, WNN_F16, SHAPE(2), D(0, 2));
	var = rt_constant(&t, WNN_F16, SHAPE(2), D(3.5, 0.5));
	bias = rt_constant(&t, WNN_F16, SHAPE(2), D(10, 20));
	m = rt_bn_msg(&t, x, mean, var);
	m->axis = 0, m->has_epsilon = true, m->epsilon = 0.5, m->has_bias = true, m->bias = bias;
	rt_op(&t, WNN_OP_BATCH_NORMALIZATION, m);
	rt_expect(&t, INS(D(2, -2, 3, 1)), D(11, 9, 21, 19), 0);
	tg_free(&t);
}

TEST(ops_normalization_reference_instance_and_layer_normalization)
{
	const double eps = 1e-5;
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 2, 1, 2));
	uint32_t sc = rt_constant(&t, WNN_F32, SHAPE(2), D(2, 1));
	uint32_t bi = rt_constant(&t, WNN_F32, SHAPE(2), D(0, 5));
	Webnn__Ipc__InstanceNormalization *m =
		MSG(Webnn__Ipc__InstanceNormalization, WEBNN__IPC__INSTANCE_NORMALIZATION__INIT);
	m->input = x, m->output = tg_next(&t);
	m->has_scale = true, m->scale = sc, m->has_bias = true, m->bias = bi;
	rt_op(&t, WNN_OP_INSTANCE_NORMALIZATION, m);
	double a = 2 / sqrt(1 + eps), b = 5 / sqrt(25 + eps);
	rt_expect(&t, INS(D(1, 3, 10, 20)), D(-a, a, 5 - b, 5 + b), 2);
	tg_free(&t);

	/* NHWC: channels last, the same numbers rearranged */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	m = MSG(Webnn__Ipc__InstanceNormalization, WEBNN__IPC__INSTANCE_NORMALIZATION__INIT);
	m->input = x, m->output = tg_next(&t), m->layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	rt_op(&t, WNN_OP_INSTANCE_NORMALIZATION, m);
	double u = 1 / sqrt(1 + eps), v = 1 / sqrt(25 + eps);
	rt_expect(&t, INS(D(1, 10, 3, 20)), D(-u, -5 * v, u, 5 * v), 2);
	tg_free(&t);

	/* layer: default axes [1..rank), scale/bias indexed in axes order */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 2));
	Webnn__Ipc__LayerNormalization *l =
		MSG(Webnn__Ipc__LayerNormalization, WEBNN__IPC__LAYER_NORMALIZATION__INIT);
	l->input = x, l->output = tg_next(&t);
	rt_op(&t, WNN_OP_LAYER_NORMALIZATION, l);
	rt_expect(&t, INS(D(1, 3, 10, 20)), D(-u, u, -5 * v, 5 * v), 2);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 2));
	sc = rt_constant(&t, WNN_F32, SHAPE(2), D(1, 10));
	l = MSG(Webnn__Ipc__LayerNormalization, WEBNN__IPC__LAYER_NORMALIZATION__INIT);
	l->input = x, l->output = tg_next(&t), l->has_axes = true, l->has_epsilon = true,
	       l->epsilon = 0;
	l->has_scale = true, l->scale = sc;
	LIST(l, axes, 0); /* normalise columns; scale indexed by row */
	rt_op(&t, WNN_OP_LAYER_NORMALIZATION, l);
	rt_expect(&t, INS(D(1, 3, 5, 7)), D(-1, -1, 10, 10), 2);
	tg_free(&t);
}

/* ==== OpenCL backend against the reference: seeded inputs through both (tests/ocltest.h) */

OT_TEST(ops_normalization, softmax_batchnorm, 300)
{
	struct backend *be = ot_backend();
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype t = f16 ? WNN_F16 : WNN_F32;
		for (uint32_t axis = 0; axis < 3; axis++) {
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t x = tg_input(&tg, t, 3, (uint32_t[]){ 3, 17, 5 });
			Webnn__Ipc__Softmax m = WEBNN__IPC__SOFTMAX__INIT;
			m.input = x;
			m.output = tg_next(&tg);
			m.axis = axis;
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_SOFTMAX, &m);
			ot_check(be, ot_finish(&tg, &o, "softmax"), -5, 5, f16 ? TOL_F16 : TOL_EW,
				"softmax");
			tg_free(&tg);
		}
		for (int variant = 0; variant < 4; variant++) {
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t x = tg_input(&tg, t, 4, (uint32_t[]){ 2, 4, 3, 5 });
			uint32_t axis = variant == 3 ? 3 : 1, ch = axis == 3 ? 5 : 4;
			uint32_t mean = tg_input(&tg, t, 1, &ch);
			uint32_t var = tg_input(&tg, t, 1, &ch);
			uint32_t sc = variant & 1 ? tg_input(&tg, t, 1, &ch) : 0;
			uint32_t bi = variant & 2 ? tg_input(&tg, t, 1, &ch) : 0;
			Webnn__Ipc__BatchNormalization m = WEBNN__IPC__BATCH_NORMALIZATION__INIT;
			m.input = x;
			m.mean = mean;
			m.variance = var;
			m.has_scale = (variant & 1) != 0;
			m.scale = sc;
			m.has_bias = (variant & 2) != 0;
			m.bias = bi;
			m.output = tg_next(&tg);
			m.has_axis = 1;
			m.axis = axis;
			m.has_epsilon = 1;
			m.epsilon = 1e-3;
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_BATCH_NORMALIZATION, &m);
			/* variance inputs in (0, 2]: keep them positive */
			ot_check(be, ot_finish(&tg, &o, "batchNormalization"), 0.05, 2,
				f16 ? TOL_F16 : TOL_EW, "batchNormalization");
			tg_free(&tg);
		}
	}
	ot_impl->shutdown(be);
}

OT_TEST(ops_normalization, instance_layer_prelu, 120)
{
	struct backend *be = ot_backend();
	char label[128];
	for (int f = 0; f < 2; f++) {
		enum wnn_dtype t = f ? WNN_F16 : WNN_F32;
		struct tol tol = f ? TOL_F16_SUM : TOL_SUM;
		for (int v = 0; v < 4; v++) {
			bool nhwc = v & 1, sb = v & 2;
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t x = tg_input(&tg, t, 4,
					      nhwc ? (uint32_t[]){ 2, 5, 6, 3 } : (uint32_t[]){ 2, 3, 5, 6 });
			Webnn__Ipc__InstanceNormalization m =
				WEBNN__IPC__INSTANCE_NORMALIZATION__INIT;
			m.input = x;
			if (sb) {
				m.has_scale = m.has_bias = 1;
				m.scale = tg_input(&tg, t, 1, (uint32_t[]){ 3 });
				m.bias = tg_input(&tg, t, 1, (uint32_t[]){ 3 });
			}
			m.has_layout = 1;
			m.layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC : WEBNN__IPC__INPUT_LAYOUT__NCHW;
			m.has_epsilon = 1;
			m.epsilon = 1e-3;
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_INSTANCE_NORMALIZATION, &m);
			snprintf(label, sizeof label, "instanceNormalization %d %s", v,
				 wnn_dtype_name(t));
			const struct graph_ir *g = ot_finish(&tg, &o, label);
			ot_check_counted(be, g, -3, 3, tol, label);
			tg_free(&tg);
		}
		static const struct {
			int n;
			uint32_t axes[3];
		} sets[] = { { -1, { 0 } }, { 2, { 1, 2 } }, { 2, { 2, 1 } }, { 1, { 0 } }, { 0, { 0 } } };
		static const uint32_t xd[3] = { 2, 3, 4 };
		for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t x = tg_input(&tg, t, 3, xd);
			Webnn__Ipc__LayerNormalization m = WEBNN__IPC__LAYER_NORMALIZATION__INIT;
			uint32_t axes[3];
			memcpy(axes, sets[si].axes, sizeof axes);
			m.input = x;
			uint32_t sdims[3], sr = 0;
			if (sets[si].n >= 0) {
				m.n_axes = (size_t)sets[si].n;
				m.axes = axes;
				m.has_has_axes = 1;
				m.has_axes = 1;
				for (int k = 0; k < sets[si].n; k++)
					sdims[sr++] = xd[axes[k]];
			} else {
				sdims[sr++] = xd[1];
				sdims[sr++] = xd[2];
			}
			if (si != 3) {
				m.has_scale = m.has_bias = 1;
				m.scale = tg_input(&tg, t, sr, sdims);
				m.bias = tg_input(&tg, t, sr, sdims);
			}
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_LAYER_NORMALIZATION, &m);
			snprintf(label, sizeof label, "layerNormalization %zu %s", si,
				 wnn_dtype_name(t));
			const struct graph_ir *g = ot_finish(&tg, &o, label);
			ot_check_counted(be, g, -3, 3, tol, label);
			tg_free(&tg);
		}
	}
	static const enum wnn_dtype ptypes[] = { WNN_F32, WNN_F16, WNN_I32, WNN_I64, WNN_I8 };
	for (size_t ti = 0; ti < 5; ti++) {
		enum wnn_dtype t = ptypes[ti];
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t x = tg_input(&tg, t, 3, (uint32_t[]){ 2, 3, 4 });
		uint32_t s = tg_input(&tg, t, 2, (uint32_t[]){ 3, 1 });
		Webnn__Ipc__Prelu m = WEBNN__IPC__PRELU__INIT;
		m.input = x;
		m.slope = s;
		m.output = tg_next(&tg);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, WNN_OP_PRELU, &m);
		snprintf(label, sizeof label, "prelu %s", wnn_dtype_name(t));
		const struct graph_ir *g = ot_finish(&tg, &o, label);
		ot_check_counted(be, g, -5, 5, t == WNN_F16 ? TOL_F16 : TOL_EW, label);
		tg_free(&tg);
	}
	ot_impl->shutdown(be);
}
