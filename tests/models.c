/* The model graphs of shared/models/README.md (and a seeded mobile classifier) built through libwebnn, for the model tests and benches. */
#include "tests/models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/npy.h"

void model_expect_shape(const struct webnn_operand *op, const char *what, uint32_t rank,
			const uint32_t *shape)
{
	struct webnn_operand_desc d;
	webnn_operand_get_desc(op, &d);
	bool same = d.data_type == WEBNN_FLOAT32 && d.rank == rank;
	for (uint32_t i = 0; same && i < rank; i++)
		same = d.shape[i] == shape[i];
	if (!same) {
		char got[96] = "", want[96] = "";
		for (uint32_t i = 0; i < d.rank && i < WEBNN_MAX_RANK; i++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u", i ? "," : "",
				 d.shape[i]);
		for (uint32_t i = 0; i < rank; i++)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%u",
				 i ? "," : "", shape[i]);
		FAIL("%s: shape [%s] (%s), README says [%s] (float32)", what, got,
		     webnn_data_type_name(d.data_type) ? webnn_data_type_name(d.data_type) : "?",
		     want);
	}
}

/* The named weight as a constant; rank > 0: its shape must be shape. */
static struct webnn_operand *model_weight(struct model *m, const char *name, uint32_t rank,
					  const uint32_t *shape)
{
	char path[8192], err[9000];
	struct webnn_operand *op;
	snprintf(path, sizeof(path), "%s/weights/%s.npy", m->dir, name);
	ASSERT_MSG(npy_constant(m->ctx, m->b, path, &op, err, sizeof(err)), "%s", err);
	if (rank)
		model_expect_shape(op, name, rank, shape);
	return op;
}

/* ---- SqueezeNet 1.0 */

/* conv2d <name>_kernel (ohwi) + <name>_Conv2D_bias, then relu. */
static struct webnn_operand *sqz_conv(struct model *m, struct webnn_operand *x, const char *name,
				      uint32_t stride, uint32_t pad_begin, uint32_t pad_end)
{
	char w[128], bias[128];
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	struct webnn_operand *y;
	snprintf(w, sizeof(w), "%s_kernel", name);
	snprintf(bias, sizeof(bias), "%s_Conv2D_bias", name);
	o.input_layout = WEBNN_LAYOUT_NHWC;
	o.filter_layout = WEBNN_FILTER_OHWI;
	o.bias = model_weight(m, bias, 0, NULL);
	o.strides[0] = o.strides[1] = stride;
	o.n_strides = 2;
	o.padding[0] = o.padding[2] = pad_begin;
	o.padding[1] = o.padding[3] = pad_end;
	o.n_padding = 4;
	MODEL_OK(m->ctx, webnn_builder_conv2d(m->b, x, model_weight(m, w, 0, NULL), &o, &y), name);
	MODEL_OK(m->ctx, webnn_builder_relu(m->b, y, &y), "relu");
	return y;
}

static struct webnn_operand *sqz_pool(struct model *m, struct webnn_operand *x, bool max,
				      uint32_t window, uint32_t stride)
{
	struct webnn_pool2d_options o = WEBNN_POOL2D_OPTIONS_INIT;
	struct webnn_operand *y;
	o.window_dimensions[0] = o.window_dimensions[1] = window;
	o.n_window_dimensions = 2;
	o.strides[0] = o.strides[1] = stride;
	o.n_strides = 2;
	o.layout = WEBNN_LAYOUT_NHWC;
	MODEL_OK(m->ctx,
		 max ? webnn_builder_max_pool2d(m->b, x, &o, &y)
		     : webnn_builder_average_pool2d(m->b, x, &o, &y),
		 "pool2d");
	return y;
}

static struct webnn_operand *sqz_fire(struct model *m, struct webnn_operand *x, int n)
{
	char name[64];
	snprintf(name, sizeof(name), "fire%d_squeeze", n);
	struct webnn_operand *s = sqz_conv(m, x, name, 1, 0, 0), *e[2], *y;
	snprintf(name, sizeof(name), "fire%d_e1x1", n);
	e[0] = sqz_conv(m, s, name, 1, 0, 0);
	snprintf(name, sizeof(name), "fire%d_e3x3", n);
	e[1] = sqz_conv(m, s, name, 1, 1, 1);
	MODEL_OK(m->ctx, webnn_builder_concat(m->b, e, 2, 3, &y), "concat");
	return y;
}

/* shared/models/README.md, "SqueezeNet 1.0 NHWC graph". */
struct webnn_operand *model_squeezenet(struct model *m, struct webnn_operand *x)
{
	static const uint32_t flat[2] = { 1, MODEL_CLASSES };
	x = sqz_pool(m, sqz_conv(m, x, "conv1", 2, 2, 3), true, 3, 2);
	x = sqz_pool(m, sqz_fire(m, sqz_fire(m, sqz_fire(m, x, 2), 3), 4), true, 3, 2);
	x = sqz_fire(m, sqz_fire(m, sqz_fire(m, sqz_fire(m, x, 5), 6), 7), 8);
	x = sqz_pool(m, x, true, 3, 2);
	x = sqz_conv(m, sqz_fire(m, x, 9), "conv10", 1, 0, 0);
	x = sqz_pool(m, x, false, 13, 1);
	MODEL_OK(m->ctx, webnn_builder_reshape(m->b, x, flat, 2, &x), "reshape");
	MODEL_OK(m->ctx, webnn_builder_softmax(m->b, x, 1, &x), "softmax");
	return x;
}

/* ---- MobileNetV2 */

/* The README's block table ("MobileNet V2 NHWC graph"): filters, expanded channels C, stride,
 * output channels, residual add, output height = width. */
static const struct mn_block {
	const char *expand, *depthwise, *project;
	uint32_t c, stride, out_c;
	bool residual;
	uint32_t out_hw;
} mn_blocks[16] = {
	{ "Const_165", "Const_99", "Const_73", 96, 2, 24, false, 56 },
	{ "Const_3", "Const_119", "Const_115", 144, 1, 24, true, 56 },
	{ "Const_255", "Const_216", "Const_157", 144, 2, 32, false, 28 },
	{ "Const_227", "Const_221", "Const_193", 192, 1, 32, true, 28 },
	{ "Const_243", "Const_102", "Const_215", 192, 1, 32, true, 28 },
	{ "Const_226", "Const_163", "Const_229", 192, 2, 64, false, 14 },
	{ "Const_104", "Const_254", "Const_143", 384, 1, 64, true, 14 },
	{ "Const_25", "Const_142", "Const_202", 384, 1, 64, true, 14 },
	{ "Const_225", "Const_129", "Const_98", 384, 1, 64, true, 14 },
	{ "Const_169", "Const_2", "Const_246", 384, 1, 96, false, 14 },
	{ "Const_162", "Const_87", "Const_106", 576, 1, 96, true, 14 },
	{ "Const_52", "Const_22", "Const_40", 576, 1, 96, true, 14 },
	{ "Const_114", "Const_65", "Const_242", 576, 2, 160, false, 7 },
	{ "Const_203", "Const_250", "Const_92", 960, 1, 160, true, 7 },
	{ "Const_133", "Const_130", "Const_258", 960, 1, 160, true, 7 },
	{ "Const_60", "Const_248", "Const_100", 960, 1, 320, false, 7 },
};

struct webnn_operand *model_mobilenetv2_conv(struct model *m, struct webnn_operand *x,
					     const char *filter, const char *bias, uint32_t out_c,
					     uint32_t k, uint32_t stride, uint32_t groups,
					     bool relu6, uint32_t out_hw)
{
	struct webnn_operand_desc in;
	webnn_operand_get_desc(x, &in);
	ASSERT_EQ(in.rank, 4);
	bool dw = groups > 1;
	const uint32_t fshape[4] = { dw ? 1 : out_c, k, k, dw ? out_c : in.shape[3] };
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	struct webnn_operand *y;
	o.input_layout = WEBNN_LAYOUT_NHWC;
	o.filter_layout = dw ? WEBNN_FILTER_IHWO : WEBNN_FILTER_OHWI;
	o.groups = groups;
	o.bias = model_weight(m, bias, 1, &out_c);
	o.strides[0] = o.strides[1] = stride;
	o.n_strides = 2;
	if (k == 3) {
		o.padding[0] = o.padding[2] = stride == 1 ? 1 : 0;
		o.padding[1] = o.padding[3] = 1;
	}
	o.n_padding = 4;
	struct webnn_operand *w = model_weight(m, filter, 4, fshape);
	MODEL_OK(m->ctx, webnn_builder_set_next_label(m->b, filter), "label");
	MODEL_OK(m->ctx, webnn_builder_conv2d(m->b, x, w, &o, &y), filter);
	const uint32_t oshape[4] = { 1, out_hw, out_hw, out_c };
	model_expect_shape(y, filter, 4, oshape);
	if (relu6) {
		struct webnn_clamp_options c = WEBNN_CLAMP_OPTIONS_INIT;
		c.has_min_value = c.has_max_value = true;
		c.min_value = 0;
		c.max_value = 6;
		MODEL_OK(m->ctx, webnn_builder_clamp(m->b, y, &c, &y), "clamp");
		model_expect_shape(y, "relu6", 4, oshape);
	}
	return y;
}

/* shared/models/README.md, "MobileNet V2 NHWC graph", to the pooled features (the logits
 * weights are not in every copy of the model). */
struct webnn_operand *model_mobilenetv2_body(struct model *m, struct webnn_operand *x)
{
	static const uint32_t ishape[4] = { 1, 224, 224, 3 };
	model_expect_shape(x, "input", 4, ishape);

	x = model_mobilenetv2_conv(m, x, "Const_90", "MobilenetV2_Conv_Conv2D_bias", 32, 3, 2, 1,
				   true, 112);
	x = model_mobilenetv2_conv(m, x, "Const_238",
				   "MobilenetV2_expanded_conv_depthwise_depthwise_bias", 32, 3, 1,
				   32, true, 112);
	x = model_mobilenetv2_conv(m, x, "Const_167",
				   "MobilenetV2_expanded_conv_project_Conv2D_bias", 16, 1, 1, 1,
				   false, 112);
	if (m->stage)
		m->stage(m, "stem", x,
			 "stem: conv 3x3/2 pad [0,1,0,1] to 32 + relu6, depthwise 3x3 groups 32 + "
			 "relu6, conv 1x1 to 16 -> [1,112,112,16]");
	uint32_t hw = 112;
	for (int i = 0; i < 16; i++) {
		const struct mn_block *k = &mn_blocks[i];
		char eb[96], db[96], pb[96], name[24], what[160];
		snprintf(eb, sizeof(eb), "MobilenetV2_expanded_conv_%d_expand_Conv2D_bias", i + 1);
		snprintf(db, sizeof(db), "MobilenetV2_expanded_conv_%d_depthwise_depthwise_bias",
			 i + 1);
		snprintf(pb, sizeof(pb), "MobilenetV2_expanded_conv_%d_project_Conv2D_bias", i + 1);
		struct webnn_operand *a =
			model_mobilenetv2_conv(m, x, k->expand, eb, k->c, 1, 1, 1, true, hw);
		a = model_mobilenetv2_conv(m, a, k->depthwise, db, k->c, 3, k->stride, k->c, true,
					   k->out_hw);
		a = model_mobilenetv2_conv(m, a, k->project, pb, k->out_c, 1, 1, 1, false,
					   k->out_hw);
		if (k->residual) {
			MODEL_OK(m->ctx, webnn_builder_add(m->b, x, a, &a), "add");
			const uint32_t s[4] = { 1, k->out_hw, k->out_hw, k->out_c };
			model_expect_shape(a, "residual add", 4, s);
		}
		hw = k->out_hw;
		x = a;
		if (m->stage) {
			snprintf(name, sizeof(name), "block%d", i);
			const char *pad = k->stride == 1 ? "[1,1,1,1]" : "[0,1,0,1]";
			snprintf(what, sizeof(what),
				 "block %d: expand 1x1 to %u + relu6, depthwise 3x3 (ihwo, "
				 "groups %u) stride %u pad %s + relu6, project 1x1 to %u%s -> "
				 "[1,%u,%u,%u]",
				 i, k->c, k->c, k->stride, pad, k->out_c,
				 k->residual ? ", residual add" : "", k->out_hw, k->out_hw,
				 k->out_c);
			m->stage(m, name, x, what);
		}
	}
	x = model_mobilenetv2_conv(m, x, "Const_71", "MobilenetV2_Conv_1_Conv2D_bias",
				   MODEL_MOBILENETV2_FEATURES, 1, 1, 1, true, 7);
	if (m->stage)
		m->stage(m, "head", x, "head: conv 1x1 320 to 1280 + relu6 -> [1,7,7,1280]");

	struct webnn_pool2d_options po = WEBNN_POOL2D_OPTIONS_INIT;
	po.window_dimensions[0] = po.window_dimensions[1] = 7;
	po.n_window_dimensions = 2;
	po.layout = WEBNN_LAYOUT_NHWC;
	MODEL_OK(m->ctx, webnn_builder_average_pool2d(m->b, x, &po, &x), "averagePool2d");
	static const uint32_t pooled[4] = { 1, 1, 1, MODEL_MOBILENETV2_FEATURES };
	model_expect_shape(x, "averagePool2d", 4, pooled);
	return x;
}

/* ---- a mobile angle classifier as exporters write it (seeded weights, no files) */

/* Seeded values in [lo, hi): a 64-bit LCG, the same on every machine. */
static float *ac_values(uint64_t *state, size_t n, float lo, float hi)
{
	float *v = malloc(n * sizeof *v);
	ASSERT(v);
	for (size_t i = 0; i < n; i++) {
		*state = *state * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = lo + (hi - lo) * (float)((*state >> 40) * 0x1p-24);
	}
	return v;
}

static struct webnn_operand *ac_const(struct model *m, uint64_t *state, uint32_t rank,
				      const uint32_t *shape, float lo, float hi)
{
	struct webnn_operand_desc d = { WEBNN_FLOAT32, rank, { 0 } };
	size_t n = 1;
	for (uint32_t k = 0; k < rank; k++)
		n *= d.shape[k] = shape[k];
	float *v = ac_values(state, n, lo, hi);
	struct webnn_operand *op;
	MODEL_OK(m->ctx, webnn_builder_constant(m->b, &d, v, n * sizeof *v, &op), "constant");
	free(v);
	return op;
}

static struct webnn_operand *ac_scalar(struct model *m, double v)
{
	struct webnn_operand *op;
	MODEL_OK(m->ctx, webnn_builder_constant_scalar(m->b, WEBNN_FLOAT32, v, &op), "scalar");
	return op;
}

/* conv2d (NCHW, OIHW, 'same' padding) + batchNormalization + hard-swish; exported: a bias-less
 * conv, the normalization and x * clamp(x + 3, 0, 6) / 6 in four operations; otherwise the
 * conv's bias and one hardSwish (the same work, written by hand). */
static struct webnn_operand *ac_conv_bn_hswish(struct model *m, uint64_t *state,
					       struct webnn_operand *x, uint32_t c_in,
					       uint32_t c_out, uint32_t k, uint32_t stride,
					       bool depthwise, bool exported)
{
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	uint32_t pad = k / 2;
	o.padding[0] = o.padding[1] = o.padding[2] = o.padding[3] = pad;
	o.n_padding = 4;
	o.strides[0] = o.strides[1] = stride;
	o.n_strides = 2;
	o.groups = depthwise ? c_in : 1;
	uint32_t fshape[4] = { c_out, depthwise ? 1 : c_in, k, k };
	float span = 1.5f / sqrtf((float)(fshape[1] * k * k));
	struct webnn_operand *w = ac_const(m, state, 4, fshape, -span, span), *y, *t;
	if (!exported)
		o.bias = ac_const(m, state, 1, &c_out, -0.5f, 0.5f);
	MODEL_OK(m->ctx, webnn_builder_conv2d(m->b, x, w, &o, &y), "conv2d");
	if (!exported) {
		MODEL_OK(m->ctx, webnn_builder_hard_swish(m->b, y, &t), "hardSwish");
		return t;
	}
	struct webnn_batch_normalization_options bo = WEBNN_BATCH_NORMALIZATION_OPTIONS_INIT;
	struct webnn_operand *mean = ac_const(m, state, 1, &c_out, -0.3f, 0.3f);
	struct webnn_operand *var = ac_const(m, state, 1, &c_out, 0.5f, 2.0f);
	bo.scale = ac_const(m, state, 1, &c_out, 0.5f, 1.5f);
	bo.bias = ac_const(m, state, 1, &c_out, -0.5f, 0.5f);
	MODEL_OK(m->ctx, webnn_builder_batch_normalization(m->b, y, mean, var, &bo, &y),
		 "batchNormalization");
	struct webnn_clamp_options co = WEBNN_CLAMP_OPTIONS_INIT;
	co.has_min_value = co.has_max_value = true;
	co.min_value = 0, co.max_value = 6;
	MODEL_OK(m->ctx, webnn_builder_add(m->b, y, ac_scalar(m, 3), &t), "add");
	MODEL_OK(m->ctx, webnn_builder_clamp(m->b, t, &co, &t), "clamp");
	MODEL_OK(m->ctx, webnn_builder_mul(m->b, y, t, &t), "mul");
	MODEL_OK(m->ctx, webnn_builder_div(m->b, t, ac_scalar(m, 6), &t), "div");
	return t;
}

struct webnn_operand *model_angle_classifier(struct model *m, struct webnn_operand *x,
					     bool exported)
{
	uint64_t state = 19;
	uint32_t c = 16;
	x = ac_conv_bn_hswish(m, &state, x, 3, c, 3, 2, false, exported);
	for (int blk = 0; blk < MODEL_ANGLE_BLOCKS; blk++) {
		uint32_t stride = blk == 2 || blk == 5 || blk == 9 || blk == 13 ? 2 : 1;
		uint32_t out = c + (stride == 2 && c < 64 ? 16 : 0);
		x = ac_conv_bn_hswish(m, &state, x, c, out, 1, 1, false, exported);
		x = ac_conv_bn_hswish(m, &state, x, out, out, 3, stride, true, exported);
		c = out;
	}
	struct webnn_pool2d_options po = WEBNN_POOL2D_OPTIONS_INIT;
	struct webnn_operand *y, *w = ac_const(m, &state, 2, (uint32_t[]){ c, 2 }, -4.0f, 4.0f);
	struct webnn_gemm_options go = WEBNN_GEMM_OPTIONS_INIT;
	go.c = ac_const(m, &state, 1, (uint32_t[]){ 2 }, -0.1f, 0.1f);
	MODEL_OK(m->ctx, webnn_builder_average_pool2d(m->b, x, &po, &y), "averagePool2d");
	MODEL_OK(m->ctx, webnn_builder_reshape(m->b, y, (uint32_t[]){ 1, c }, 2, &y), "reshape");
	MODEL_OK(m->ctx, webnn_builder_gemm(m->b, y, w, &go, &y), "gemm");
	MODEL_OK(m->ctx, webnn_builder_softmax(m->b, y, 1, &y), "softmax");
	return y;
}
