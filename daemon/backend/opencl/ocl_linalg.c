/* OpenCL lowering of the linalg family: gemm and matmul on CLBlast, with their fused epilogues. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void lower_gemm(struct ocl_build *b)
{
	struct wnn_gemm_attrs p = b->node->attrs.gemm;
	const struct graph_epilogue *e = ocl_node_epilogue(b);
	bool f16 = p.type == WNN_F16;
	size_t mn = (size_t)p.m * p.n;
	uint32_t sa = ocl_f32_slot(b, p.a), sb = ocl_f32_slot(b, p.b);
	uint32_t sout = ocl_output_slot(b, e ? e->output : p.output);
	uint32_t sy = f16 ? ocl_slot_new_temp(b, mn * 4) : sout;
	if (OCL_FAILED(b))
		return;
	float beta = 0;
	if (p.has_c && p.beta != 0) {
		uint32_t sc = ocl_f32_slot(b, p.c);
		uint32_t dims[2] = { p.m, p.n };
		uint64_t ss[2] = { p.c_stride_m, p.c_stride_n }, ds[2] = { p.n, 1 };
		ocl_copy_nd(b, WNN_F32, sc, 0, sy, 0, 2, dims, ss, ds);
		beta = (float)p.beta;
	}
	struct ocl_gemm gm;
	memset(&gm, 0, sizeof gm);
	gm.m = p.m;
	gm.n = p.n;
	gm.k = p.k;
	gm.alpha = (float)p.alpha;
	gm.beta = beta;
	gm.a = sa;
	gm.a_trans = p.a_transpose;
	gm.lda = p.a_transpose ? p.m : p.k;
	gm.b = sb;
	gm.b_trans = p.b_transpose;
	gm.ldb = p.b_transpose ? p.k : p.n;
	gm.c = sy;
	gm.ldc = p.n;
	size_t zero = 0;
	ocl_add_gemm(b, &gm, 1, &zero, &zero, &zero);
	ocl_matrix_epilogue(b, sy, p.m, p.n, e);
	if (f16)
		ocl_convert(b, false, sy, sout, mn);
}

static void lower_matmul(struct ocl_build *b)
{
	struct wnn_matmul_attrs p = b->node->attrs.matmul;
	const struct graph_epilogue *e = ocl_node_epilogue(b);
	if (p.a_stride_k != 1 || p.b_stride_n != 1) {
		/* graph_absorb_transposes runs only for backends whose caps ask for it */
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR,
			     "%s: an operand read through a transpose, which this backend did not "
			     "ask for", b->what);
		return;
	}
	bool f16 = p.type == WNN_F16;
	size_t mn = (size_t)p.m * p.n, total = mn * p.batch;
	uint32_t sa = ocl_f32_slot(b, p.a), sb = ocl_f32_slot(b, p.b);
	uint32_t sout = ocl_output_slot(b, e ? e->output : p.output);
	uint32_t sy = f16 ? ocl_slot_new_temp(b, total * 4) : sout;
	if (OCL_FAILED(b))
		return;
	struct ocl_gemm gm;
	memset(&gm, 0, sizeof gm);
	gm.m = p.m;
	gm.n = p.n;
	gm.k = p.k;
	gm.alpha = 1;
	gm.beta = 0;
	gm.a = sa;
	gm.lda = p.k;
	gm.b = sb;
	gm.ldb = p.n;
	gm.c = sy;
	gm.ldc = p.n;
	bool b_shared = true;
	for (uint32_t i = 0; i < p.batch_rank; i++)
		b_shared = b_shared && p.b_batch_strides[i] == 0;
	if (p.batch > 1 && !p.a_broadcast && b_shared) {
		/* Every a matrix against the same b: one tall gemm. */
		gm.m = (size_t)p.m * p.batch;
		size_t zero = 0;
		ocl_add_gemm(b, &gm, 1, &zero, &zero, &zero);
	} else {
		size_t *offs = malloc(3 * p.batch * sizeof *offs);
		if (!offs) {
			wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
			return;
		}
		for (uint64_t i = 0; i < p.batch; i++) {
			offs[i] = wnn_shape_offset(p.batch_rank, p.batch_dims, p.a_batch_strides, i);
			offs[p.batch + i] =
				wnn_shape_offset(p.batch_rank, p.batch_dims, p.b_batch_strides, i);
			offs[2 * p.batch + i] = i * mn;
		}
		ocl_add_gemm(b, &gm, p.batch, offs, offs + p.batch, offs + 2 * p.batch);
		free(offs);
	}
	ocl_matrix_epilogue(b, sy, (size_t)p.m * p.batch, p.n, e);
	if (f16)
		ocl_convert(b, false, sy, sout, total);
}

void ocl_lower_linalg(struct ocl_build *b, enum wnn_op op)
{
	switch (wnn_ops[op].attrs) {
	case WNN_ATTRS_GEMM:
		lower_gemm(b);
		break;
	case WNN_ATTRS_MATMUL:
		lower_matmul(b);
		break;
	default:
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR, "%s: no OpenCL lowering", b->what);
	}
}
