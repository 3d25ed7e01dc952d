/* libwebnn builder: convolutions (conv2d, convTranspose2d). */
#include "client/builder.h"

/* The window options both convolutions' options and wire messages carry under the same names
 * (padding, strides, dilations, groups, input layout): checked and copied from opt onto m. */
#define CONV_WINDOW(m, opt)                                                                    \
	do {                                                                                   \
		WNNC_TRY(wnnc_opt_array(b, what, "padding", opt.padding, opt.n_padding, 4,      \
					&m->n_padding, &m->padding));                          \
		WNNC_TRY(wnnc_opt_array(b, what, "strides", opt.strides, opt.n_strides, 2,      \
					&m->n_strides, &m->strides));                          \
		WNNC_TRY(wnnc_opt_array(b, what, "dilations", opt.dilations, opt.n_dilations,   \
					2, &m->n_dilations, &m->dilations));                   \
		m->has_groups = true;                                                          \
		m->groups = opt.groups;                                                        \
		m->has_input_layout = true;                                                    \
		m->input_layout = (Webnn__Ipc__InputLayout)opt.input_layout;                   \
	} while (0)

enum webnn_status webnn_builder_conv2d(struct webnn_builder *b, struct webnn_operand *input,
				       struct webnn_operand *filter,
				       const struct webnn_conv2d_options *o,
				       struct webnn_operand **out)
{
	WNNC_OP_BEGIN("conv2d")
	WNNC_OPTIONS(struct webnn_conv2d_options, opt, o, WEBNN_CONV2D_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_TRY(wnnc_use(b, what, "filter", filter));
	if (opt.bias)
		WNNC_TRY(wnnc_use(b, what, "bias", opt.bias));
	WNNC_TRY(wnnc_check_enum(b, what, "input layout", (int)opt.input_layout, 2));
	WNNC_TRY(wnnc_check_enum(b, what, "filter layout", (int)opt.filter_layout, 4));
	WNNC_NEW_OP(m, Webnn__Ipc__Conv2d, WNN_OP_CONV2D)
	m->input = input->id;
	m->filter = filter->id;
	if (opt.bias) {
		m->has_bias = true;
		m->bias = opt.bias->id;
	}
	m->output = (uint32_t)b->n_operands;
	CONV_WINDOW(m, opt);
	m->has_filter_layout = true;
	m->filter_layout = (Webnn__Ipc__Conv2dFilterLayout)opt.filter_layout;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_conv_transpose2d(struct webnn_builder *b,
						 struct webnn_operand *input,
						 struct webnn_operand *filter,
						 const struct webnn_conv_transpose2d_options *o,
						 struct webnn_operand **out)
{
	WNNC_OP_BEGIN("convTranspose2d")
	WNNC_OPTIONS(struct webnn_conv_transpose2d_options, opt, o,
		     WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_TRY(wnnc_use(b, what, "filter", filter));
	WNNC_TRY(wnnc_check_enum(b, what, "input layout", (int)opt.input_layout, 2));
	WNNC_TRY(wnnc_check_enum(b, what, "filter layout", (int)opt.filter_layout, 3));
	WNNC_NEW_OP(m, Webnn__Ipc__ConvTranspose2d, WNN_OP_CONV_TRANSPOSE2D)
	m->input = input->id;
	m->filter = filter->id;
	WNNC_TRY(wnnc_opt_operand(b, what, "bias", opt.bias, &m->has_bias, &m->bias));
	m->output = (uint32_t)b->n_operands;
	CONV_WINDOW(m, opt);
	WNNC_TRY(wnnc_opt_array(b, what, "outputPadding", opt.output_padding,
				opt.n_output_padding, 2, &m->n_output_padding,
				&m->output_padding));
	WNNC_TRY(wnnc_opt_array(b, what, "outputSizes", opt.output_sizes, opt.n_output_sizes, 2,
				&m->n_output_sizes, &m->output_sizes));
	m->has_filter_layout = true;
	m->filter_layout = (Webnn__Ipc__ConvTranspose2dFilterLayout)opt.filter_layout;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}
