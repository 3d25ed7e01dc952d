/* CLBlast gemm steps and the fused epilogue kernel that follows a conv2d/gemm/matmul product. */
#include "daemon/backend/opencl/ocl.h"

#include <clblast_c.h>
#include <stdlib.h>
#include <string.h>

void ocl_add_gemm(struct ocl_build *b, const struct ocl_gemm *gm, size_t batch,
		  const size_t *aoffs, const size_t *boffs, const size_t *coffs)
{
	struct ocl_step *s = ocl_step_new(b, OCL_STEP_GEMM);
	if (!s)
		return;
	s->gemm = *gm;
	s->gemm.batch = batch;
	if (batch > 1) {
		/* Constant, non-zero strides: the strided-batched routine; else offset arrays. */
		bool strided = true;
		size_t as = aoffs[1] - aoffs[0], bs = boffs[1] - boffs[0], cs = coffs[1] - coffs[0];
		strided = aoffs[1] > aoffs[0] && boffs[1] > boffs[0] && coffs[1] > coffs[0];
		for (size_t i = 1; i < batch && strided; i++)
			strided = aoffs[i] - aoffs[i - 1] == as && boffs[i] - boffs[i - 1] == bs &&
				  coffs[i] - coffs[i - 1] == cs;
		if (strided) {
			s->gemm.strided = true;
			s->gemm.a_off = aoffs[0];
			s->gemm.b_off = boffs[0];
			s->gemm.c_off = coffs[0];
			s->gemm.a_stride = as;
			s->gemm.b_stride = bs;
			s->gemm.c_stride = cs;
		} else {
			s->gemm.a_offs = malloc(batch * sizeof(size_t));
			s->gemm.b_offs = malloc(batch * sizeof(size_t));
			s->gemm.c_offs = malloc(batch * sizeof(size_t));
			s->gemm.alphas = malloc(batch * sizeof(float));
			s->gemm.betas = malloc(batch * sizeof(float));
			if (!s->gemm.a_offs || !s->gemm.b_offs || !s->gemm.c_offs ||
			    !s->gemm.alphas || !s->gemm.betas) {
				wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
					     b->what);
				return;
			}
			memcpy(s->gemm.a_offs, aoffs, batch * sizeof(size_t));
			memcpy(s->gemm.b_offs, boffs, batch * sizeof(size_t));
			memcpy(s->gemm.c_offs, coffs, batch * sizeof(size_t));
			for (size_t i = 0; i < batch; i++) {
				s->gemm.alphas[i] = gm->alpha;
				s->gemm.betas[i] = gm->beta;
			}
		}
	} else if (batch == 1) {
		s->gemm.a_off = aoffs[0];
		s->gemm.b_off = boffs[0];
		s->gemm.c_off = coffs[0];
	}
	ocl_slot_use(b, gm->a);
	ocl_slot_use(b, gm->b);
	ocl_slot_use(b, gm->c);
}

/* Row-major float32 gemm C[m x n] = op(A)[m x k] * op(B) + beta * C, with element offsets. */
void ocl_gemm2d(struct ocl_build *b, uint32_t a, size_t a_off, size_t lda, bool a_trans,
		 uint32_t bm, size_t b_off, size_t ldb, bool b_trans, uint32_t c, size_t c_off,
		 size_t ldc, size_t m, size_t n, size_t k, float beta)
{
	struct ocl_gemm gm = {
		.a_trans = a_trans, .b_trans = b_trans, .m = m, .n = n, .k = k, .alpha = 1,
		.beta = beta, .a = a, .b = bm, .c = c, .lda = lda, .ldb = ldb, .ldc = ldc,
	};
	ocl_add_gemm(b, &gm, 1, &a_off, &b_off, &c_off);
}

/* Appends gemm_epilogue over an A x C x B result: dst = act(src + v1[c] + v2[c] + r).
 * ss/ds: element offset, a stride and c stride of source and destination (b stride 1); the
 * c stride is 1 on both sides (B == 1), or the source is [C][A] (transposed, ss[1] == 1,
 * ss[2] == A), or B > 1. */
void ocl_epilogue_step(struct ocl_build *b, uint32_t src, uint32_t dst, uint32_t v1,
			  uint32_t v2, uint32_t r, size_t A, size_t C, size_t B,
			  const uint64_t ss[3], const uint64_t ds[3], const struct graph_epilogue *e)
{
	unsigned flags = (v1 != OCL_NONE ? 1u : 0) | (v2 != OCL_NONE ? 2u : 0) | (r != OCL_NONE ? 4u : 0) |
			 ((unsigned)(e ? e->act : 0) << 4);
	unsigned mode = B > 1 ? 2 : ss[2] != 1 ? 1 : 0;
	cl_program prog;
	if (OCL_FAILED(b) || ocl_epilogue_program(b, flags, mode, &prog))
		return;
	ocl_check_u32(b, ss[0] + A * ss[1] + C * ss[2] + B, "epilogue source");
	ocl_check_u32(b, ds[0] + A * ds[1] + C * ds[2] + B, "epilogue destination");
	struct ocl_step *s = ocl_step_kernel(b, prog, "gemm_epilogue");
	cl_uint ca = (cl_uint)A, cc = (cl_uint)C, cb = (cl_uint)B;
	cl_uint4 vs = { { (cl_uint)ss[0], (cl_uint)ss[1], (cl_uint)ss[2], 1 } };
	cl_uint4 vd = { { (cl_uint)ds[0], (cl_uint)ds[1], (cl_uint)ds[2], 1 } };
	cl_float lo = e ? e->lo : 0, hi = e ? e->hi : 0;
	ocl_arg_mem(b, s, 0, src);
	ocl_arg_mem(b, s, 1, dst);
	ocl_arg_mem(b, s, 2, v1 != OCL_NONE ? v1 : dst);
	ocl_arg_mem(b, s, 3, v2 != OCL_NONE ? v2 : dst);
	ocl_arg_mem(b, s, 4, r != OCL_NONE ? r : dst);
	ocl_arg(b, s, 5, sizeof ca, &ca);
	ocl_arg(b, s, 6, sizeof cc, &cc);
	ocl_arg(b, s, 7, sizeof cb, &cb);
	ocl_arg(b, s, 8, sizeof vs, &vs);
	ocl_arg(b, s, 9, sizeof vd, &vd);
	ocl_arg(b, s, 10, sizeof lo, &lo);
	ocl_arg(b, s, 11, sizeof hi, &hi);
	if (B == 1)
		ocl_step_range3(s, C, 1, A);
	else
		ocl_step_range3(s, B, C, A);
}

/* Whether an epilogue does more than the bias. */
bool ocl_epi_extra(const struct graph_epilogue *e)
{
	return e && (e->act || e->channel != OCL_NONE || e->residual != OCL_NONE);
}

/* The fused epilogue of a gemm/matmul over its dense float32 result y ([rows][n]). */
void ocl_matrix_epilogue(struct ocl_build *b, uint32_t sy, size_t rows, size_t n,
			    const struct graph_epilogue *e)
{
	if (!ocl_epi_extra(e))
		return;
	uint32_t sv = e->channel != OCL_NONE ? ocl_f32_slot(b, e->channel) : OCL_NONE;
	uint32_t sr = e->residual != OCL_NONE ? ocl_f32_slot(b, e->residual) : OCL_NONE;
	uint64_t s3[3] = { 0, n, 1 };
	ocl_epilogue_step(b, sy, sy, OCL_NONE, sv, sr, rows, n, 1, s3, s3, e);
}

static enum webnn_status clblast_status(struct ocl_step *s, CLBlastStatusCode st,
					struct wnn_diag *diag)
{
	if (st == CLBlastSuccess)
		return WEBNN_STATUS_OK;
	if (st > -1000) /* an OpenCL error code passed through */
		return wnn_diag_set(diag, ocl_enqueue_status(st), "%s: CLBlast gemm: %s", s->what,
				    ocl_error_name(st));
	return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR, "%s: CLBlast gemm failed (status %d)",
			    s->what, (int)st);
}

enum webnn_status ocl_run_gemm(struct backend_plan *p, struct ocl_step *s, cl_mem a, cl_mem b,
				  cl_mem c, struct wnn_diag *diag)
{
	struct ocl_gemm *g = &s->gemm;
	cl_command_queue q = p->ctx->queue;
	CLBlastTranspose ta = g->a_trans ? CLBlastTransposeYes : CLBlastTransposeNo;
	CLBlastTranspose tb = g->b_trans ? CLBlastTransposeYes : CLBlastTransposeNo;
	CLBlastStatusCode st;
	if (g->batch <= 1)
		st = CLBlastSgemm(CLBlastLayoutRowMajor, ta, tb, g->m, g->n, g->k, g->alpha, a,
				  g->a_off, g->lda, b, g->b_off, g->ldb, g->beta, c, g->c_off, g->ldc,
				  &q, NULL);
	else if (g->strided)
		st = CLBlastSgemmStridedBatched(CLBlastLayoutRowMajor, ta, tb, g->m, g->n, g->k,
						g->alpha, a, g->a_off, g->lda, g->a_stride, b,
						g->b_off, g->ldb, g->b_stride, g->beta, c, g->c_off,
						g->ldc, g->c_stride, g->batch, &q, NULL);
	else
		st = CLBlastSgemmBatched(CLBlastLayoutRowMajor, ta, tb, g->m, g->n, g->k, g->alphas,
					 a, g->a_offs, g->lda, b, g->b_offs, g->ldb, g->betas, c,
					 g->c_offs, g->ldc, g->batch, &q, NULL);
	return clblast_status(s, st, diag);
}
