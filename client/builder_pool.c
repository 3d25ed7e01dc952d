/* libwebnn builder: 2-D pooling (averagePool2d, l2Pool2d, maxPool2d). */
#include "client/builder.h"

static enum webnn_status pool(struct webnn_builder *b, enum wnn_op id, struct webnn_operand *x,
			      const struct webnn_pool2d_options *o, struct webnn_operand **out)
{
	WNNC_OP_BEGIN(wnn_ops[id].name)
	WNNC_OPTIONS(struct webnn_pool2d_options, opt, o, WEBNN_POOL2D_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_check_enum(b, what, "layout", (int)opt.layout, 2));
	WNNC_TRY(wnnc_check_enum(b, what, "output shape rounding", (int)opt.output_shape_rounding, 2));
	WNNC_NEW_OP(m, Webnn__Ipc__Pool2d, id)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(wnnc_opt_array(b, what, "windowDimensions", opt.window_dimensions,
			   opt.n_window_dimensions, 2, &m->n_window_dimensions,
			   &m->window_dimensions));
	WNNC_TRY(wnnc_opt_array(b, what, "padding", opt.padding, opt.n_padding, 4, &m->n_padding,
			   &m->padding));
	WNNC_TRY(wnnc_opt_array(b, what, "strides", opt.strides, opt.n_strides, 2, &m->n_strides,
			   &m->strides));
	WNNC_TRY(wnnc_opt_array(b, what, "dilations", opt.dilations, opt.n_dilations, 2,
			   &m->n_dilations, &m->dilations));
	WNNC_TRY(wnnc_opt_array(b, what, "outputSizes", opt.output_sizes, opt.n_output_sizes, 2,
			   &m->n_output_sizes, &m->output_sizes));
	m->has_layout = true;
	m->layout = (Webnn__Ipc__InputLayout)opt.layout;
	m->has_output_shape_rounding = true;
	m->output_shape_rounding = (Webnn__Ipc__RoundingType)opt.output_shape_rounding;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_average_pool2d(struct webnn_builder *b, struct webnn_operand *x,
					       const struct webnn_pool2d_options *o,
					       struct webnn_operand **out)
{
	return pool(b, WNN_OP_AVERAGE_POOL2D, x, o, out);
}

enum webnn_status webnn_builder_l2_pool2d(struct webnn_builder *b, struct webnn_operand *x,
					  const struct webnn_pool2d_options *o,
					  struct webnn_operand **out)
{
	return pool(b, WNN_OP_L2_POOL2D, x, o, out);
}

enum webnn_status webnn_builder_max_pool2d(struct webnn_builder *b, struct webnn_operand *x,
					   const struct webnn_pool2d_options *o,
					   struct webnn_operand **out)
{
	return pool(b, WNN_OP_MAX_POOL2D, x, o, out);
}
