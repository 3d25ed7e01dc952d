/* Host kernels: gemm and matmul: textbook triple loops accumulating in double. */
#include "daemon/backend/host/kernels.h"

static enum webnn_status run_gemm(const struct hk_step *s, void *const *bufs,
				  struct wnn_diag *diag)
{
	const struct wnn_gemm_attrs *p = &s->a->gemm;
	const void *A = bufs[p->a], *B = bufs[p->b], *C = p->has_c ? bufs[p->c] : NULL;
	void *O = bufs[p->output];
	(void)diag;
	for (uint32_t m = 0; m < p->m; m++)
		for (uint32_t n = 0; n < p->n; n++) {
			if (hk_poll(s, n))
				return hk_cancel_status(s, diag);
			double acc = 0;
			for (uint32_t k = 0; k < p->k; k++)
				acc += hk_load_f(A, p->type, m * p->a_stride_m + k * p->a_stride_k) *
				       hk_load_f(B, p->type, k * p->b_stride_k + n * p->b_stride_n);
			acc *= p->alpha;
			if (C)
				acc += p->beta *
				       hk_load_f(C, p->type, m * p->c_stride_m + n * p->c_stride_n);
			hk_store_f(O, p->type, (uint64_t)m * p->n + n, acc);
		}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_matmul(const struct hk_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_matmul_attrs *p = &s->a->matmul;
	const void *A = bufs[p->a], *B = bufs[p->b];
	void *O = bufs[p->output];
	uint64_t mn = (uint64_t)p->m * p->n;
	(void)diag;
	for (uint64_t b = 0; b < p->batch; b++) {
		uint64_t ao = wnn_shape_offset(p->batch_rank, p->batch_dims, p->a_batch_strides, b);
		uint64_t bo = wnn_shape_offset(p->batch_rank, p->batch_dims, p->b_batch_strides, b);
		for (uint32_t m = 0; m < p->m; m++)
			for (uint32_t n = 0; n < p->n; n++) {
				if (hk_poll(s, n))
					return hk_cancel_status(s, diag);
				double acc = 0;
				for (uint32_t k = 0; k < p->k; k++)
					acc += hk_load_f(A, p->type,
							 ao + m * p->a_stride_m + k * p->a_stride_k) *
					       hk_load_f(B, p->type,
							 bo + k * p->b_stride_k + n * p->b_stride_n);
				hk_store_f(O, p->type, b * mn + (uint64_t)m * p->n + n, acc);
			}
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status hk_linalg_prepare(const struct graph_node *n, struct hk_step *s,
				    struct wnn_diag *diag)
{
	if (n->op == WNN_OP_GEMM) {
		s->run = run_gemm;
		return hk_check_supported(n->op, n->attrs.gemm.type, diag);
	}
	s->run = run_matmul;
	return hk_check_supported(n->op, n->attrs.matmul.type, diag);
}
