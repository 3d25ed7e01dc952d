/* OpenCL lowering of the data family: transpose, concat, reshape, views, tile, pad, triangular. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void lower_transpose(struct ocl_build *b)
{
	struct wnn_transpose_attrs p = b->node->attrs.transpose;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	if (OCL_FAILED(b))
		return;
	uint64_t dstr[WNN_MAX_RANK];
	wnn_shape_strides(p.rank, p.out_dims, dstr);
	ocl_copy_nd(b, p.type, si, 0, so, 0, p.rank, p.out_dims, p.in_strides, dstr);
}

static void lower_concat(struct ocl_build *b)
{
	struct wnn_concat_attrs p = b->node->attrs.concat;
	uint32_t so = ocl_output_slot(b, p.output);
	uint64_t off = 0;
	for (size_t i = 0; i < p.n_inputs && !OCL_FAILED(b); i++) {
		uint32_t size = b->g->values[p.inputs[i]].desc.dims[p.axis];
		if (b->g->values[p.inputs[i]].slice_of == p.output) {
			off += size; /* its producer wrote it in place */
			continue;
		}
		uint32_t si = ocl_operand_slot(b, p.inputs[i]);
		if (OCL_FAILED(b))
			return;
		uint32_t dims[2] = { (uint32_t)p.outer, (uint32_t)(size * p.inner) };
		uint64_t sstr[2] = { size * p.inner, 1 };
		uint64_t dstr[2] = { (uint64_t)p.out_axis * p.inner, 1 };
		ocl_copy_nd(b, p.type, si, 0, so, off * p.inner, 2, dims, sstr, dstr);
		off += size;
	}
}

static void lower_reshape(struct ocl_build *b)
{
	struct wnn_reshape_attrs p = b->node->attrs.reshape;
	ocl_alias(b, p.input, p.output);
}

/* dst[i] = src[base + sum c_d * strides_d] over the dims (signed strides); a contiguous view is
 * one buffer copy. */
void ocl_view_copy(struct ocl_build *b, enum wnn_dtype t, uint32_t src, uint32_t dst,
		   uint32_t rank, const uint32_t *dims, const int64_t *strides, uint64_t base)
{
	if (OCL_FAILED(b))
		return;
	uint64_t count = wnn_shape_count(rank, dims);
	size_t es = wnn_dtype_size(t);
	bool dense = true;
	uint64_t expect = 1;
	for (int d = (int)rank - 1; d >= 0 && dense; d--) {
		dense = dims[d] == 1 || strides[d] == (int64_t)expect;
		expect *= dims[d];
	}
	if (dense) {
		ocl_step_copy(b, src, (size_t)(base * es), dst, 0, (size_t)(count * es));
		return;
	}
	cl_program prog;
	if (ocl_typed_program(b, "data.cl", t, &prog))
		return;
	cl_int8 st;
	memset(&st, 0, sizeof st);
	for (uint32_t d = 0; d < rank; d++) {
		if (strides[d] > INT32_MAX || strides[d] < INT32_MIN) {
			wnn_diag_set(b->diag, WEBNN_STATUS_NOT_SUPPORTED,
				     "%s: stride too large for the OpenCL backend", b->what);
			return;
		}
		st.s[d] = (cl_int)strides[d];
	}
	struct ocl_step *s = ocl_kernel_n(b, prog, "view_copy", count);
	cl_ulong cb = base;
	ocl_arg_mem(b, s, 0, src);
	ocl_arg_mem(b, s, 1, dst);
	ocl_arg_u(b, s, 2, ocl_u32(b, count, "output"));
	ocl_arg_u(b, s, 3, rank);
	ocl_arg_u8(b, s, 4, ocl_u8dims(rank, dims));
	ocl_arg(b, s, 5, sizeof st, &st);
	ocl_arg(b, s, 6, sizeof cb, &cb);
}

static void lower_expand(struct ocl_build *b)
{
	struct wnn_expand_attrs p = b->node->attrs.expand;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	int64_t st[WNN_MAX_RANK];
	for (uint32_t d = 0; d < p.rank; d++)
		st[d] = (int64_t)p.in_strides[d];
	ocl_view_copy(b, p.type, si, so, p.rank, p.out_dims, st, 0);
}

static void lower_slice(struct ocl_build *b)
{
	struct wnn_slice_attrs p = b->node->attrs.slice;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	int64_t st[WNN_MAX_RANK];
	for (uint32_t d = 0; d < p.rank; d++)
		st[d] = (int64_t)p.step_strides[d];
	ocl_view_copy(b, p.type, si, so, p.rank, p.out_dims, st, p.base);
}

static void lower_reverse(struct ocl_build *b)
{
	struct wnn_reverse_attrs p = b->node->attrs.reverse;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	uint64_t in[WNN_MAX_RANK];
	int64_t st[WNN_MAX_RANK];
	uint64_t base = 0;
	wnn_shape_strides(p.rank, p.dims, in);
	for (uint32_t d = 0; d < p.rank; d++) {
		bool rev = (p.mask >> d) & 1;
		st[d] = rev ? -(int64_t)in[d] : (int64_t)in[d];
		if (rev)
			base += (uint64_t)(p.dims[d] - 1) * in[d];
	}
	ocl_view_copy(b, p.type, si, so, p.rank, p.dims, st, base);
}

static void lower_split(struct ocl_build *b)
{
	struct wnn_split_attrs p = b->node->attrs.split;
	uint32_t si = ocl_operand_slot(b, p.input);
	for (size_t i = 0; i < p.n_outputs && !OCL_FAILED(b); i++) {
		uint32_t so = ocl_output_slot(b, p.outputs[i]);
		uint32_t dims[3] = { ocl_u32(b, p.outer, "split"), p.sizes[i], ocl_u32(b, p.inner, "split") };
		int64_t st[3] = { (int64_t)(p.axis_size * p.inner), (int64_t)p.inner, 1 };
		ocl_view_copy(b, p.type, si, so, 3, dims, st, (uint64_t)p.offsets[i] * p.inner);
	}
}

/* A data.cl step of count items, each output element reading the input through dims
 * and strides (arguments 0-6 of data.cl's tile and pad); NULL when it failed. */
static struct ocl_step *remap_step(struct ocl_build *b, const char *name, enum wnn_dtype t,
				   uint32_t input, uint32_t output, uint64_t count, uint32_t rank,
				   const uint32_t *out_dims, const uint32_t *in_dims,
				   const uint64_t *in_strides)
{
	uint32_t si = ocl_operand_slot(b, input), so = ocl_output_slot(b, output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "data.cl", t, &prog))
		return NULL;
	struct ocl_step *s = ocl_kernel_n(b, prog, name, count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg_u(b, s, 2, ocl_u32(b, count, "output"));
	ocl_arg_u(b, s, 3, rank);
	ocl_arg_u8(b, s, 4, ocl_u8dims(rank, out_dims));
	ocl_arg_u8(b, s, 5, ocl_u8dims(rank, in_dims));
	ocl_arg_u8(b, s, 6, ocl_u8_wide(b, rank, in_strides));
	return s;
}

static void lower_tile(struct ocl_build *b)
{
	struct wnn_tile_attrs p = b->node->attrs.tile;
	remap_step(b, "tile", p.type, p.input, p.output, p.count, p.rank, p.out_dims, p.in_dims,
		   p.in_strides);
}

static void lower_pad(struct ocl_build *b)
{
	struct wnn_pad_attrs p = b->node->attrs.pad;
	struct ocl_step *s = remap_step(b, "pad", p.type, p.input, p.output, p.count, p.rank,
					p.out_dims, p.in_dims, p.in_strides);
	if (!s)
		return;
	ocl_arg_u8(b, s, 7, ocl_u8dims(p.rank, p.begin));
	ocl_arg_u(b, s, 8, (cl_uint)p.mode);
	/* the value is one element's bytes, moved as the same-sized unsigned type */
	ocl_arg(b, s, 9, wnn_dtype_size(p.type), p.value);
}

static void lower_triangular(struct ocl_build *b)
{
	struct wnn_triangular_attrs p = b->node->attrs.triangular;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "data.cl", p.type, &prog))
		return;
	uint64_t n = p.batch * p.rows * p.cols;
	struct ocl_step *s = ocl_kernel_n(b, prog, "triangular", n);
	cl_long diag = p.diagonal;
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg_u(b, s, 2, ocl_u32(b, n, "output"));
	ocl_arg_u(b, s, 3, ocl_u32(b, p.rows, "rows"));
	ocl_arg_u(b, s, 4, ocl_u32(b, p.cols, "columns"));
	ocl_arg_u(b, s, 5, p.upper);
	ocl_arg(b, s, 6, sizeof diag, &diag);
}

void ocl_lower_data(struct ocl_build *b, enum wnn_op op)
{
	switch (wnn_ops[op].attrs) {
	case WNN_ATTRS_TRANSPOSE:
		lower_transpose(b);
		break;
	case WNN_ATTRS_CONCAT:
		lower_concat(b);
		break;
	case WNN_ATTRS_RESHAPE:
		lower_reshape(b);
		break;
	case WNN_ATTRS_EXPAND:
		lower_expand(b);
		break;
	case WNN_ATTRS_SLICE:
		lower_slice(b);
		break;
	case WNN_ATTRS_REVERSE:
		lower_reverse(b);
		break;
	case WNN_ATTRS_SPLIT:
		lower_split(b);
		break;
	case WNN_ATTRS_TILE:
		lower_tile(b);
		break;
	case WNN_ATTRS_PAD:
		lower_pad(b);
		break;
	case WNN_ATTRS_TRIANGULAR:
		lower_triangular(b);
		break;
	default:
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR, "%s: no OpenCL lowering", b->what);
	}
}
