/* libwebnn builder: normalizations (batch, instance, layer) and softmax. */
#include "client/builder.h"

enum webnn_status webnn_builder_batch_normalization(
	struct webnn_builder *b, struct webnn_operand *input, struct webnn_operand *mean,
	struct webnn_operand *variance, const struct webnn_batch_normalization_options *o,
	struct webnn_operand **out)
{
	WNNC_OP_BEGIN("batchNormalization")
	WNNC_OPTIONS(struct webnn_batch_normalization_options, opt, o,
		     WEBNN_BATCH_NORMALIZATION_OPTIONS_INIT)
	WNNC_OPS_DEF_DEFAULT(opt, o, epsilon, WNN_OP_BATCH_NORMALIZATION);
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_TRY(wnnc_use(b, what, "mean", mean));
	WNNC_TRY(wnnc_use(b, what, "variance", variance));
	if (opt.scale)
		WNNC_TRY(wnnc_use(b, what, "scale", opt.scale));
	if (opt.bias)
		WNNC_TRY(wnnc_use(b, what, "bias", opt.bias));
	WNNC_NEW_OP(m, Webnn__Ipc__BatchNormalization, WNN_OP_BATCH_NORMALIZATION)
	m->input = input->id;
	m->mean = mean->id;
	m->variance = variance->id;
	if (opt.scale) {
		m->has_scale = true;
		m->scale = opt.scale->id;
	}
	if (opt.bias) {
		m->has_bias = true;
		m->bias = opt.bias->id;
	}
	m->output = (uint32_t)b->n_operands;
	m->has_axis = m->has_epsilon = true;
	m->axis = opt.axis;
	m->epsilon = opt.epsilon;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_instance_normalization(
	struct webnn_builder *b, struct webnn_operand *input,
	const struct webnn_instance_normalization_options *o, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("instanceNormalization")
	WNNC_OPTIONS(struct webnn_instance_normalization_options, opt, o,
		     WEBNN_INSTANCE_NORMALIZATION_OPTIONS_INIT)
	WNNC_OPS_DEF_DEFAULT(opt, o, epsilon, WNN_OP_INSTANCE_NORMALIZATION);
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_TRY(wnnc_check_enum(b, what, "layout", (int)opt.layout, 2));
	WNNC_NEW_OP(m, Webnn__Ipc__InstanceNormalization, WNN_OP_INSTANCE_NORMALIZATION)
	m->input = input->id;
	WNNC_TRY(wnnc_opt_operand(b, what, "scale", opt.scale, &m->has_scale, &m->scale));
	WNNC_TRY(wnnc_opt_operand(b, what, "bias", opt.bias, &m->has_bias, &m->bias));
	m->output = (uint32_t)b->n_operands;
	m->has_epsilon = m->has_layout = true;
	m->epsilon = opt.epsilon;
	m->layout = (Webnn__Ipc__InputLayout)opt.layout;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_layer_normalization(
	struct webnn_builder *b, struct webnn_operand *input,
	const struct webnn_layer_normalization_options *o, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("layerNormalization")
	WNNC_OPTIONS(struct webnn_layer_normalization_options, opt, o,
		     WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT)
	WNNC_OPS_DEF_DEFAULT(opt, o, epsilon, WNN_OP_LAYER_NORMALIZATION);
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_NEW_OP(m, Webnn__Ipc__LayerNormalization, WNN_OP_LAYER_NORMALIZATION)
	m->input = input->id;
	WNNC_TRY(wnnc_opt_operand(b, what, "scale", opt.scale, &m->has_scale, &m->scale));
	WNNC_TRY(wnnc_opt_operand(b, what, "bias", opt.bias, &m->has_bias, &m->bias));
	m->output = (uint32_t)b->n_operands;
	m->has_epsilon = true;
	m->epsilon = opt.epsilon;
	if (opt.axes) {
		m->has_has_axes = m->has_axes = true;
		WNNC_TRY(wnnc_list_arg(b, what, "axes", opt.axes, opt.n_axes, WNN_MAX_RANK, &m->n_axes,
				       &m->axes));
	}
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_softmax(struct webnn_builder *b, struct webnn_operand *x,
					uint32_t axis, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("softmax")
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Softmax, WNN_OP_SOFTMAX)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	m->axis = axis;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

