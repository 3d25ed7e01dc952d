/* libwebnn builder: reductions (reduce*, argMin/argMax, cumulativeSum). */
#include "client/builder.h"

static enum webnn_status reduce(struct webnn_builder *b, enum wnn_op id, struct webnn_operand *x,
				const struct webnn_reduce_options *o, struct webnn_operand **out)
{
	WNNC_OP_BEGIN(id < WNN_OP_COUNT ? wnn_ops[id].name : "reduction")
	WNNC_OPTIONS(struct webnn_reduce_options, opt, o, WEBNN_REDUCE_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Reduce, id)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	if (opt.axes) {
		m->has_has_axes = m->has_axes = true;
		WNNC_TRY(wnnc_list_arg(b, what, "axes", opt.axes, opt.n_axes, WNN_MAX_RANK,
				       &m->n_axes, &m->axes));
	}
	m->has_keep_dimensions = true;
	m->keep_dimensions = opt.keep_dimensions;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

/* The REDUCE form of the generated operator list (webnn_ops.h): a reduction is one ops.def row.
 * The operator is found by its spec name, as ops.def spells it. */
#define WNNC_DEFINE_REDUCE_(spec, c)                                                           \
	enum webnn_status webnn_builder_##c(struct webnn_builder *b, struct webnn_operand *x,  \
					    const struct webnn_reduce_options *o,              \
					    struct webnn_operand **out)                        \
	{                                                                                      \
		return reduce(b, wnn_op_from_name(#spec), x, o, out);                          \
	}
#define WNNC_DEFINE_BINARY_(spec, c)
#define WNNC_DEFINE_UNARY_(spec, c)
#define WNNC_DEFINE_UNARY_OPTIONS_(spec, c)
#define WNNC_DEFINE_OWN_(spec, c)
#define WNNC_DEFINE_FORM_(spec, c, FORM) WNNC_DEFINE_##FORM##_(spec, c)
WEBNN_BUILDER_FORMS(WNNC_DEFINE_FORM_)

static enum webnn_status arg_min_max(struct webnn_builder *b, enum wnn_op id,
				     struct webnn_operand *x, uint32_t axis,
				     const struct webnn_arg_min_max_options *o,
				     struct webnn_operand **out)
{
	WNNC_OP_BEGIN(wnn_ops[id].name)
	WNNC_OPTIONS(struct webnn_arg_min_max_options, opt, o, WEBNN_ARG_MIN_MAX_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__ArgMinMax, id)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	m->axis = axis;
	m->has_keep_dimensions = true;
	m->keep_dimensions = opt.keep_dimensions;
	m->has_output_data_type = true;
	m->output_data_type = (Webnn__Ipc__DataType)opt.output_data_type;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_arg_min(struct webnn_builder *b, struct webnn_operand *x,
					uint32_t axis, const struct webnn_arg_min_max_options *o,
					struct webnn_operand **out)
{
	return arg_min_max(b, WNN_OP_ARG_MIN, x, axis, o, out);
}

enum webnn_status webnn_builder_arg_max(struct webnn_builder *b, struct webnn_operand *x,
					uint32_t axis, const struct webnn_arg_min_max_options *o,
					struct webnn_operand **out)
{
	return arg_min_max(b, WNN_OP_ARG_MAX, x, axis, o, out);
}

enum webnn_status webnn_builder_cumulative_sum(struct webnn_builder *b, struct webnn_operand *x,
					       uint32_t axis,
					       const struct webnn_cumulative_sum_options *o,
					       struct webnn_operand **out)
{
	WNNC_OP_BEGIN("cumulativeSum")
	WNNC_OPTIONS(struct webnn_cumulative_sum_options, opt, o,
		     WEBNN_CUMULATIVE_SUM_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__CumulativeSum, WNN_OP_CUMULATIVE_SUM)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	m->axis = axis;
	m->has_exclusive = m->has_reversed = true;
	m->exclusive = opt.exclusive;
	m->reversed = opt.reversed;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}
