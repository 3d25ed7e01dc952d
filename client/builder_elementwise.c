/* libwebnn builder: elementwise operators (binary, unary, clamp, prelu, where). */
#include "client/builder.h"

/* What a failed call names: the spec name, or the row's name when ops.def lost the operator. */
static const char *op_name(enum wnn_op id)
{
	return id < WNN_OP_COUNT ? wnn_ops[id].name : "elementwise operator";
}

static enum webnn_status binary(struct webnn_builder *b, enum wnn_op id, struct webnn_operand *a,
				struct webnn_operand *bb, struct webnn_operand **out)
{
	WNNC_OP_BEGIN(op_name(id))
	WNNC_TRY(wnnc_use(b, what, "a", a));
	WNNC_TRY(wnnc_use(b, what, "b", bb));
	WNNC_NEW_OP(m, Webnn__Ipc__ElementwiseBinary, id)
	m->a = a->id;
	m->b = bb->id;
	m->output = (uint32_t)b->n_operands;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

/* alpha/beta NULL: the operator has no such option (absent on the wire). */
static enum webnn_status unary(struct webnn_builder *b, enum wnn_op id, struct webnn_operand *x,
			       const double *alpha, const double *beta, struct webnn_operand **out)
{
	WNNC_OP_BEGIN(op_name(id))
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__ElementwiseUnary, id)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	if (alpha) {
		m->has_alpha = true;
		m->alpha = *alpha;
	}
	if (beta) {
		m->has_beta = true;
		m->beta = *beta;
	}
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

/* The BINARY and UNARY forms of the generated operator list (webnn_ops.h), so an elementwise
 * operator is one ops.def row. The operator is found by its spec name, as ops.def spells it. */
#define WNNC_DEFINE_BINARY_(spec, c)                                                           \
	enum webnn_status webnn_builder_##c(struct webnn_builder *b, struct webnn_operand *a,  \
					    struct webnn_operand *bb,                          \
					    struct webnn_operand **out)                        \
	{                                                                                      \
		return binary(b, wnn_op_from_name(#spec), a, bb, out);                         \
	}
#define WNNC_DEFINE_UNARY_(spec, c)                                                            \
	enum webnn_status webnn_builder_##c(struct webnn_builder *b, struct webnn_operand *x,  \
					    struct webnn_operand **out)                        \
	{                                                                                      \
		return unary(b, wnn_op_from_name(#spec), x, NULL, NULL, out);                  \
	}
#define WNNC_DEFINE_UNARY_OPTIONS_(spec, c)
#define WNNC_DEFINE_REDUCE_(spec, c)
#define WNNC_DEFINE_OWN_(spec, c)
#define WNNC_DEFINE_FORM_(spec, c, FORM) WNNC_DEFINE_##FORM##_(spec, c)
WEBNN_BUILDER_FORMS(WNNC_DEFINE_FORM_)

/* The UNARY_OPTIONS form: each options struct has its own members; the defaults of a NULL or
 * older (smaller) struct are ops.def's. */
enum webnn_status webnn_builder_elu(struct webnn_builder *b, struct webnn_operand *x,
				    const struct webnn_elu_options *o, struct webnn_operand **out)
{
	double alpha = WNNC_OPT_FIELD(o, alpha, wnn_ops[WNN_OP_ELU].defaults.alpha);
	return unary(b, WNN_OP_ELU, x, &alpha, NULL, out);
}

enum webnn_status webnn_builder_leaky_relu(struct webnn_builder *b, struct webnn_operand *x,
					   const struct webnn_leaky_relu_options *o,
					   struct webnn_operand **out)
{
	double alpha = WNNC_OPT_FIELD(o, alpha, wnn_ops[WNN_OP_LEAKY_RELU].defaults.alpha);
	return unary(b, WNN_OP_LEAKY_RELU, x, &alpha, NULL, out);
}

enum webnn_status webnn_builder_hard_sigmoid(struct webnn_builder *b, struct webnn_operand *x,
					     const struct webnn_hard_sigmoid_options *o,
					     struct webnn_operand **out)
{
	const struct wnn_op_defaults *d = &wnn_ops[WNN_OP_HARD_SIGMOID].defaults;
	double alpha = WNNC_OPT_FIELD(o, alpha, d->alpha);
	double beta = WNNC_OPT_FIELD(o, beta, d->beta);
	return unary(b, WNN_OP_HARD_SIGMOID, x, &alpha, &beta, out);
}

enum webnn_status webnn_builder_linear(struct webnn_builder *b, struct webnn_operand *x,
				       const struct webnn_linear_options *o,
				       struct webnn_operand **out)
{
	const struct wnn_op_defaults *d = &wnn_ops[WNN_OP_LINEAR].defaults;
	double alpha = WNNC_OPT_FIELD(o, alpha, d->alpha);
	double beta = WNNC_OPT_FIELD(o, beta, d->beta);
	return unary(b, WNN_OP_LINEAR, x, &alpha, &beta, out);
}

enum webnn_status webnn_builder_clamp(struct webnn_builder *b, struct webnn_operand *x,
				      const struct webnn_clamp_options *o,
				      struct webnn_operand **out)
{
	WNNC_OP_BEGIN("clamp")
	WNNC_OPTIONS(struct webnn_clamp_options, opt, o, WEBNN_CLAMP_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Clamp, WNN_OP_CLAMP)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(wnnc_number(b, what, "minValue", &opt.min_number, opt.has_min_value,
			     opt.min_value, &m->min_value));
	WNNC_TRY(wnnc_number(b, what, "maxValue", &opt.max_number, opt.has_max_value,
			     opt.max_value, &m->max_value));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_prelu(struct webnn_builder *b, struct webnn_operand *x,
				      struct webnn_operand *slope, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("prelu")
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_use(b, what, "slope", slope));
	WNNC_NEW_OP(m, Webnn__Ipc__Prelu, WNN_OP_PRELU)
	m->input = x->id;
	m->slope = slope->id;
	m->output = (uint32_t)b->n_operands;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_where(struct webnn_builder *b, struct webnn_operand *condition,
				      struct webnn_operand *true_value,
				      struct webnn_operand *false_value,
				      struct webnn_operand **out)
{
	WNNC_OP_BEGIN("where")
	WNNC_TRY(wnnc_use(b, what, "condition", condition));
	WNNC_TRY(wnnc_use(b, what, "trueValue", true_value));
	WNNC_TRY(wnnc_use(b, what, "falseValue", false_value));
	WNNC_NEW_OP(m, Webnn__Ipc__Where, WNN_OP_WHERE)
	m->condition = condition->id;
	m->true_value = true_value->id;
	m->false_value = false_value->id;
	m->output = (uint32_t)b->n_operands;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}
