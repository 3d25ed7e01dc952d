/* libwebnn builder: gather and scatter (gather, gatherElements, gatherND, scatterElements/ND). */
#include "client/builder.h"

static enum webnn_status gather(struct webnn_builder *b, enum wnn_op id, struct webnn_operand *x,
				struct webnn_operand *indices, const struct webnn_gather_options *o,
				struct webnn_operand **out)
{
	WNNC_OP_BEGIN(wnn_ops[id].name)
	WNNC_OPTIONS(struct webnn_gather_options, opt, o, WEBNN_GATHER_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_use(b, what, "indices", indices));
	WNNC_NEW_OP(m, Webnn__Ipc__Gather, id)
	m->input = x->id;
	m->indices = indices->id;
	m->output = (uint32_t)b->n_operands;
	if (id != WNN_OP_GATHER_ND) {
		m->has_axis = true;
		m->axis = opt.axis;
	}
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_gather(struct webnn_builder *b, struct webnn_operand *x,
				       struct webnn_operand *indices,
				       const struct webnn_gather_options *o,
				       struct webnn_operand **out)
{
	return gather(b, WNN_OP_GATHER, x, indices, o, out);
}

enum webnn_status webnn_builder_gather_elements(struct webnn_builder *b, struct webnn_operand *x,
						struct webnn_operand *indices,
						const struct webnn_gather_options *o,
						struct webnn_operand **out)
{
	return gather(b, WNN_OP_GATHER_ELEMENTS, x, indices, o, out);
}

enum webnn_status webnn_builder_gather_nd(struct webnn_builder *b, struct webnn_operand *x,
					  struct webnn_operand *indices,
					  struct webnn_operand **out)
{
	return gather(b, WNN_OP_GATHER_ND, x, indices, NULL, out);
}

/* ---- scatter family */

static enum webnn_status scatter(struct webnn_builder *b, enum wnn_op id, struct webnn_operand *x,
				 struct webnn_operand *indices, struct webnn_operand *updates,
				 const struct webnn_scatter_options *o, struct webnn_operand **out)
{
	WNNC_OP_BEGIN(wnn_ops[id].name)
	WNNC_OPTIONS(struct webnn_scatter_options, opt, o, WEBNN_SCATTER_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_use(b, what, "indices", indices));
	WNNC_TRY(wnnc_use(b, what, "updates", updates));
	WNNC_NEW_OP(m, Webnn__Ipc__Scatter, id)
	m->input = x->id;
	m->indices = indices->id;
	m->updates = updates->id;
	m->output = (uint32_t)b->n_operands;
	if (id != WNN_OP_SCATTER_ND) {
		m->has_axis = true;
		m->axis = opt.axis;
	}
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_scatter_elements(struct webnn_builder *b, struct webnn_operand *x,
						 struct webnn_operand *indices,
						 struct webnn_operand *updates,
						 const struct webnn_scatter_options *o,
						 struct webnn_operand **out)
{
	return scatter(b, WNN_OP_SCATTER_ELEMENTS, x, indices, updates, o, out);
}

enum webnn_status webnn_builder_scatter_nd(struct webnn_builder *b, struct webnn_operand *x,
					   struct webnn_operand *indices,
					   struct webnn_operand *updates,
					   struct webnn_operand **out)
{
	return scatter(b, WNN_OP_SCATTER_ND, x, indices, updates, NULL, out);
}
