/* OpenCL lowering of the pool family: averagePool2d, l2Pool2d, maxPool2d. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void lower_pool(struct ocl_build *b)
{
	struct wnn_pool2d_attrs p = b->node->attrs.pool2d;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "pool.cl", p.type, &prog))
		return;
	uint32_t v[13] = { p.c, p.h, p.w, p.out_h, p.out_w, p.win_h, p.win_w, p.stride_h,
			   p.stride_w, p.dil_h, p.dil_w, p.pad_top, p.pad_left };
	cl_uint16 pp;
	memset(&pp, 0, sizeof pp);
	for (int i = 0; i < 13; i++)
		pp.s[i] = v[i];
	cl_uint kind = p.kind;
	if (p.nhwc) {
		struct ocl_step *s = ocl_step_kernel(b, prog, "pool2d_nhwc");
		ocl_arg_mem(b, s, 0, si);
		ocl_arg_mem(b, s, 1, so);
		ocl_arg(b, s, 2, sizeof kind, &kind);
		ocl_arg(b, s, 3, sizeof pp, &pp);
		ocl_step_range3(s, p.c, p.out_w, (size_t)p.n * p.out_h);
		return;
	}
	struct ocl_step *s = ocl_step_kernel(b, prog, "pool2d");
	size_t total = (size_t)p.n * p.c * p.out_h * p.out_w;
	cl_uint n = (cl_uint)total, nhwc = p.nhwc;
	cl_uint4 is;
	for (int i = 0; i < 4; i++)
		is.s[i] = (cl_uint)p.in_stride[i];
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg(b, s, 2, sizeof n, &n);
	ocl_arg(b, s, 3, sizeof kind, &kind);
	ocl_arg(b, s, 4, sizeof nhwc, &nhwc);
	ocl_arg(b, s, 5, sizeof pp, &pp);
	ocl_arg(b, s, 6, sizeof is, &is);
	ocl_step_range1(s, total);
}

void ocl_lower_pool(struct ocl_build *b, enum wnn_op op)
{
	(void)op;
	lower_pool(b);
}
