/* libwebnn builder: casts and quantization (cast, quantizeLinear, dequantizeLinear). */
#include "client/builder.h"

enum webnn_status webnn_builder_cast(struct webnn_builder *b, struct webnn_operand *x,
				     enum webnn_data_type type, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("cast")
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Cast, WNN_OP_CAST)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	m->data_type = (Webnn__Ipc__DataType)type;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

static enum webnn_status quantize(struct webnn_builder *b, enum wnn_op id,
				  struct webnn_operand *x, struct webnn_operand *scale,
				  struct webnn_operand *zero_point, struct webnn_operand **out)
{
	WNNC_OP_BEGIN(wnn_ops[id].name)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_use(b, what, "scale", scale));
	WNNC_TRY(wnnc_use(b, what, "zeroPoint", zero_point));
	WNNC_NEW_OP(m, Webnn__Ipc__QuantizeLinear, id)
	m->input = x->id;
	m->scale = scale->id;
	m->zero_point = zero_point->id;
	m->output = (uint32_t)b->n_operands;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_quantize_linear(struct webnn_builder *b, struct webnn_operand *x,
						struct webnn_operand *scale,
						struct webnn_operand *zero_point,
						struct webnn_operand **out)
{
	return quantize(b, WNN_OP_QUANTIZE_LINEAR, x, scale, zero_point, out);
}

enum webnn_status webnn_builder_dequantize_linear(struct webnn_builder *b,
						  struct webnn_operand *x,
						  struct webnn_operand *scale,
						  struct webnn_operand *zero_point,
						  struct webnn_operand **out)
{
	return quantize(b, WNN_OP_DEQUANTIZE_LINEAR, x, scale, zero_point, out);
}
