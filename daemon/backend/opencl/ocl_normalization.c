/* OpenCL lowering of the normalization family: batch, layer and instance normalization, softmax. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void lower_softmax(struct ocl_build *b)
{
	struct wnn_softmax_attrs p = b->node->attrs.softmax;
	ocl_check_u32(b, p.outer * p.axis_size * p.inner, "softmax input");
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "normalization.cl", p.type, &prog))
		return;
	struct ocl_step *s = ocl_step_kernel(b, prog, "softmax");
	cl_uint outer = (cl_uint)p.outer, axis = (cl_uint)p.axis_size, inner = (cl_uint)p.inner;
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg(b, s, 2, sizeof outer, &outer);
	ocl_arg(b, s, 3, sizeof axis, &axis);
	ocl_arg(b, s, 4, sizeof inner, &inner);
	ocl_step_range1(s, p.outer * p.inner);
}

static void lower_batchnorm(struct ocl_build *b)
{
	struct wnn_batchnorm_attrs p = b->node->attrs.batchnorm;
	uint32_t sx = ocl_operand_slot(b, p.input), sm = ocl_operand_slot(b, p.mean);
	uint32_t sv = ocl_operand_slot(b, p.variance);
	uint32_t ss = p.has_scale ? ocl_operand_slot(b, p.scale) : sm;
	uint32_t sb = p.has_bias ? ocl_operand_slot(b, p.bias) : sm;
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "normalization.cl", p.type, &prog))
		return;
	struct ocl_step *s = ocl_step_kernel(b, prog, "batchnorm");
	size_t count = ocl_desc_count(b, p.input);
	cl_uint n = (cl_uint)count, ch = (cl_uint)p.channels, inner = (cl_uint)p.inner;
	cl_float eps = (cl_float)p.epsilon;
	cl_uint hs = p.has_scale, hb = p.has_bias;
	ocl_arg_mem(b, s, 0, sx);
	ocl_arg_mem(b, s, 1, sm);
	ocl_arg_mem(b, s, 2, sv);
	ocl_arg_mem(b, s, 3, ss);
	ocl_arg_mem(b, s, 4, sb);
	ocl_arg_mem(b, s, 5, so);
	ocl_arg(b, s, 6, sizeof n, &n);
	ocl_arg(b, s, 7, sizeof ch, &ch);
	ocl_arg(b, s, 8, sizeof inner, &inner);
	ocl_arg(b, s, 9, sizeof eps, &eps);
	ocl_arg(b, s, 10, sizeof hs, &hs);
	ocl_arg(b, s, 11, sizeof hb, &hb);
	ocl_step_range1(s, count);
}

static void lower_norm(struct ocl_build *b)
{
	struct wnn_norm_attrs p = b->node->attrs.norm;
	uint32_t si = ocl_operand_slot(b, p.input);
	uint32_t ss = p.has_scale ? ocl_operand_slot(b, p.scale) : si;
	uint32_t sb = p.has_bias ? ocl_operand_slot(b, p.bias) : si;
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "normalization.cl", p.type, &prog))
		return;
	const struct wnn_reduction *r = &p.r;
	struct ocl_step *s = ocl_kernel_n(b, prog, "norm_groups", r->kept_count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, ss);
	ocl_arg_mem(b, s, 2, sb);
	ocl_arg_mem(b, s, 3, so);
	ocl_arg_u(b, s, 4, ocl_u32(b, r->kept_count, "groups"));
	ocl_arg_reduction(b, s, 5, r);
	ocl_arg_f(b, s, 11, (float)p.epsilon);
	ocl_arg_u(b, s, 12, p.has_scale);
	ocl_arg_u(b, s, 13, p.has_bias);
	ocl_arg_u(b, s, 14, 1);
	ocl_arg_u(b, s, 15, p.per_channel ? p.channels : 0);
}

void ocl_lower_normalization(struct ocl_build *b, enum wnn_op op)
{
	switch (wnn_ops[op].attrs) {
	case WNN_ATTRS_SOFTMAX:
		lower_softmax(b);
		break;
	case WNN_ATTRS_BATCH_NORMALIZATION:
		lower_batchnorm(b);
		break;
	case WNN_ATTRS_LAYER_NORMALIZATION:
	case WNN_ATTRS_INSTANCE_NORMALIZATION:
		lower_norm(b);
		break;
	default:
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR, "%s: no OpenCL lowering", b->what);
	}
}
