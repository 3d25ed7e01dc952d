/* libwebnn builder: matrix products (gemm, matmul). */
#include "client/builder.h"

enum webnn_status webnn_builder_gemm(struct webnn_builder *b, struct webnn_operand *a,
				     struct webnn_operand *bb, const struct webnn_gemm_options *o,
				     struct webnn_operand **out)
{
	WNNC_OP_BEGIN("gemm")
	WNNC_OPTIONS(struct webnn_gemm_options, opt, o, WEBNN_GEMM_OPTIONS_INIT)
	WNNC_OPS_DEF_DEFAULT(opt, o, alpha, WNN_OP_GEMM);
	WNNC_OPS_DEF_DEFAULT(opt, o, beta, WNN_OP_GEMM);
	WNNC_TRY(wnnc_use(b, what, "a", a));
	WNNC_TRY(wnnc_use(b, what, "b", bb));
	if (opt.c)
		WNNC_TRY(wnnc_use(b, what, "c", opt.c));
	WNNC_NEW_OP(m, Webnn__Ipc__Gemm, WNN_OP_GEMM)
	m->a = a->id;
	m->b = bb->id;
	if (opt.c) {
		m->has_c = true;
		m->c = opt.c->id;
	}
	m->output = (uint32_t)b->n_operands;
	m->has_alpha = m->has_beta = true;
	m->alpha = opt.alpha;
	m->beta = opt.beta;
	m->has_a_transpose = m->has_b_transpose = true;
	m->a_transpose = opt.a_transpose;
	m->b_transpose = opt.b_transpose;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_matmul(struct webnn_builder *b, struct webnn_operand *a,
				       struct webnn_operand *bb, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("matmul")
	WNNC_TRY(wnnc_use(b, what, "a", a));
	WNNC_TRY(wnnc_use(b, what, "b", bb));
	WNNC_NEW_OP(m, Webnn__Ipc__Matmul, WNN_OP_MATMUL)
	m->a = a->id;
	m->b = bb->id;
	m->output = (uint32_t)b->n_operands;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}
