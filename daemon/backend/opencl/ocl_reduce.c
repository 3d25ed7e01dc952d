/* OpenCL lowering of the reduce family: argMin/argMax, cumulativeSum and the reduce* operators. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void lower_arg(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_arg_attrs p = b->node->attrs.arg;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "reduce.cl", p.type, &prog))
		return;
	uint64_t n = p.outer * p.inner;
	struct ocl_step *s =
		ocl_kernel_n(b, prog, p.out_type == WNN_I64 ? "argminmax_i64" : "argminmax_i32", n);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg_u(b, s, 2, ocl_u32(b, n, "output"));
	ocl_arg_u(b, s, 3, ocl_u32(b, p.axis_size, "axis"));
	ocl_arg_u(b, s, 4, ocl_u32(b, p.inner, "input"));
	ocl_arg_u(b, s, 5, kind == WNN_OP_ARG_MAX);
}

static void lower_cumsum(struct ocl_build *b)
{
	struct wnn_cumsum_attrs p = b->node->attrs.cumsum;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "reduce.cl", p.type, &prog))
		return;
	uint64_t n = p.outer * p.inner;
	struct ocl_step *s = ocl_kernel_n(b, prog, "cumsum", n);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg_u(b, s, 2, ocl_u32(b, n, "output"));
	ocl_arg_u(b, s, 3, ocl_u32(b, p.axis_size, "axis"));
	ocl_arg_u(b, s, 4, ocl_u32(b, p.inner, "input"));
	ocl_arg_u(b, s, 5, p.exclusive);
	ocl_arg_u(b, s, 6, p.reversed);
}

static void lower_reduce_split(struct ocl_build *b, cl_program prog,
			       const struct wnn_reduce_attrs *p,
			       cl_uint kind, uint32_t parts, uint32_t si, uint32_t so)
{
	const struct wnn_reduction *r = &p->r;
	uint64_t n = r->kept_count * parts;
	/* partial accumulators in the kernels' ACC: float for float types, 64-bit integers
	 * otherwise; float ones have a second half for logSumExp's chunk maxima */
	size_t bytes = ocl_is_float(p->type) ? (size_t)n * 2 * sizeof(float) : (size_t)n * 8;
	uint32_t w = ocl_slot_new_temp(b, bytes);
	if (OCL_FAILED(b))
		return;
	struct ocl_step *s = ocl_kernel_n(b, prog, "reduce_part", n);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, w);
	ocl_arg_u(b, s, 2, ocl_u32(b, n, "output"));
	ocl_arg_u(b, s, 3, parts);
	ocl_arg_u(b, s, 4, ocl_u32(b, r->red_count, "input"));
	ocl_arg_reduction(b, s, 5, r);
	ocl_arg_u(b, s, 11, kind);
	s = ocl_kernel_n(b, prog, "reduce_fin", r->kept_count);
	ocl_arg_mem(b, s, 0, w);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg_u(b, s, 2, ocl_u32(b, r->kept_count, "output"));
	ocl_arg_u(b, s, 3, parts);
	ocl_arg_u(b, s, 4, ocl_u32(b, r->red_count, "input"));
	ocl_arg_u(b, s, 5, kind);
}

static void lower_reduce(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_reduce_attrs p = b->node->attrs.reduce;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "reduce.cl", p.type, &prog))
		return;
	/* the kernel's kind numbers follow ops.def order, reduceL1 = 0 */
	cl_uint k = (cl_uint)(kind - WNN_OP_REDUCE_L1);
	const struct wnn_reduction *r = &p.r;
	/* One work-item per output leaves most of the device idle when the outputs are few
	 * (reduceSum over 1M floats ran on one core): split each output's reduced space into
	 * chunks of at least RED_CHUNK elements, up to about RED_ITEMS work-items in all. */
	enum { RED_CHUNK = 1024, RED_ITEMS = 2048 };
	uint64_t parts = r->red_count / RED_CHUNK;
	uint64_t fill = (RED_ITEMS + r->kept_count - 1) / (r->kept_count ? r->kept_count : 1);
	if (parts > fill)
		parts = fill;
	if (parts >= 4) {
		lower_reduce_split(b, prog, &p, k, (uint32_t)parts, si, so);
		return;
	}
	struct ocl_step *s = ocl_kernel_n(b, prog, "reduce", r->kept_count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg_u(b, s, 2, ocl_u32(b, r->kept_count, "output"));
	ocl_arg_reduction(b, s, 3, r);
	ocl_arg_u(b, s, 9, k);
}

void ocl_lower_reduce(struct ocl_build *b, enum wnn_op op)
{
	switch (wnn_ops[op].attrs) {
	case WNN_ATTRS_ARG_MIN_MAX:
		lower_arg(b, op);
		break;
	case WNN_ATTRS_CUMULATIVE_SUM:
		lower_cumsum(b);
		break;
	case WNN_ATTRS_REDUCE:
		lower_reduce(b, op);
		break;
	default:
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR, "%s: no OpenCL lowering", b->what);
	}
}
