/* OpenCL lowering of the gather family: gather, gatherElements/ND, scatterElements/ND. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gather.cl for elements of t's size, reading indices of type it (WNN_DT_NONE: none). */
static enum webnn_status index_program(struct ocl_build *b, enum wnn_dtype t, enum wnn_dtype it,
				      cl_program *out)
{
	static const char *const by_size[9] = { [1] = "uchar", [2] = "ushort", [4] = "uint",
						[8] = "ulong" };
	const char *itype = "long";
	int unsig = 0;
	if (it == WNN_I32)
		itype = "int";
	else if (it == WNN_U32) {
		itype = "uint";
		unsig = 1;
	} else if (it == WNN_U64) {
		itype = "ulong";
		unsig = 1;
	} else if (it != WNN_I64 && it != WNN_DT_NONE) {
		return wnn_diag_set(b->diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "%s: indices of type %s are not supported", b->what,
				    wnn_dtype_name(it));
	}
	char prefix[128];
	snprintf(prefix, sizeof prefix, "#define T %s\n#define IT %s\n#define IT_UNSIGNED %d\n",
		 by_size[wnn_dtype_size(t)], itype, unsig);
	return ocl_program_get(b->plan->ctx->be, b->plan->ctx->dev, "gather.cl", prefix, "",
			       OCL_CL_OPTIONS, out, b->diag);
}

static void lower_gather(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_gather_attrs p = b->node->attrs.gather;
	uint32_t si = ocl_operand_slot(b, p.input), sx = ocl_operand_slot(b, p.indices);
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || index_program(b, p.type, p.index_type, &prog))
		return;
	struct ocl_step *s;
	if (kind == WNN_OP_GATHER) {
		s = ocl_kernel_n(b, prog, "gather", p.count);
		ocl_arg_u(b, s, 4, ocl_u32(b, p.axis_size, "axis"));
		ocl_arg_u(b, s, 5, ocl_u32(b, p.inner, "input"));
		ocl_arg_u(b, s, 6, ocl_u32(b, p.n_indices, "indices"));
	} else if (kind == WNN_OP_GATHER_ELEMENTS) {
		s = ocl_kernel_n(b, prog, "gather_elements", p.count);
		ocl_arg_u(b, s, 4, p.rank);
		ocl_arg_u8(b, s, 5, ocl_u8dims(p.rank, p.out_dims));
		ocl_arg_u8(b, s, 6, ocl_u8_wide(b, p.rank, p.in_strides));
		ocl_arg_u(b, s, 7, p.axis);
		ocl_arg_u(b, s, 8, ocl_u32(b, p.axis_size, "axis"));
	} else {
		s = ocl_kernel_n(b, prog, "gather_nd", p.count);
		ocl_arg_u(b, s, 4, p.k);
		ocl_arg_u(b, s, 5, ocl_u32(b, p.slice, "slice"));
		ocl_arg_u8(b, s, 6, ocl_u8dims(p.in_rank, p.in_dims));
		ocl_arg_u8(b, s, 7, ocl_u8_wide(b, p.in_rank, p.in_strides));
	}
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, sx);
	ocl_arg_mem(b, s, 2, so);
	ocl_arg_u(b, s, 3, ocl_u32(b, p.count, "output"));
}

static void lower_scatter(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_scatter_attrs p = b->node->attrs.scatter;
	uint32_t si = ocl_operand_slot(b, p.input), sx = ocl_operand_slot(b, p.indices);
	uint32_t su = ocl_operand_slot(b, p.updates), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || index_program(b, p.type, p.index_type, &prog))
		return;
	ocl_step_copy(b, si, 0, so, 0, (size_t)p.count * wnn_dtype_size(p.type));
	struct ocl_step *s;
	if (kind == WNN_OP_SCATTER_ELEMENTS) {
		uint64_t lines = p.n_updates / p.idx_dims[p.axis];
		uint64_t ustr[WNN_MAX_RANK];
		wnn_shape_strides(p.rank, p.idx_dims, ustr);
		s = ocl_kernel_n(b, prog, "scatter_elements", lines);
		ocl_arg_u(b, s, 3, ocl_u32(b, lines, "updates"));
		ocl_arg_u(b, s, 4, p.rank);
		ocl_arg_u8(b, s, 5, ocl_u8dims(p.rank, p.idx_dims));
		ocl_arg_u8(b, s, 6, ocl_u8_wide(b, p.rank, ustr));
		ocl_arg_u8(b, s, 7, ocl_u8_wide(b, p.rank, p.in_strides));
		ocl_arg_u(b, s, 8, p.axis);
		ocl_arg_u(b, s, 9, ocl_u32(b, p.axis_size, "axis"));
	} else {
		s = ocl_kernel_n(b, prog, "scatter_nd", p.slice);
		ocl_arg_u(b, s, 3, ocl_u32(b, p.slice, "slice"));
		ocl_arg_u(b, s, 4, ocl_u32(b, p.n_tuples, "indices"));
		ocl_arg_u(b, s, 5, p.k);
		ocl_arg_u8(b, s, 6, ocl_u8dims(p.rank, p.in_dims));
		ocl_arg_u8(b, s, 7, ocl_u8_wide(b, p.rank, p.in_strides));
	}
	ocl_arg_mem(b, s, 0, sx);
	ocl_arg_mem(b, s, 1, su);
	ocl_arg_mem(b, s, 2, so);
}

void ocl_lower_gather(struct ocl_build *b, enum wnn_op op)
{
	switch (wnn_ops[op].attrs) {
	case WNN_ATTRS_GATHER:
		lower_gather(b, op);
		break;
	case WNN_ATTRS_SCATTER:
		lower_scatter(b, op);
		break;
	default:
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR, "%s: no OpenCL lowering", b->what);
	}
}
