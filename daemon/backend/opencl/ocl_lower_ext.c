/* OpenCL lowering of the operators beyond the first CNN set (reductions, data movement, RNNs...). */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAILED(b) ((b)->diag->status != WEBNN_STATUS_OK)

static bool is_float(enum wnn_dtype t)
{
	return t == WNN_F32 || t == WNN_F16;
}

bool ocl_ext_supports(enum wnn_op op, enum wnn_dtype t)
{
	if (op >= WNN_OP_COUNT || t <= WNN_DT_NONE || t >= WNN_DT_COUNT)
		return false;
	/* ops.def's column is the spec's table for the first input; every type it allows is
	 * implemented below (float16 computed in float). */
	if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
		return false;
	switch (op) {
	case WNN_OP_ARG_MIN:
	case WNN_OP_ARG_MAX:
	case WNN_OP_CAST:
	case WNN_OP_CUMULATIVE_SUM:
	case WNN_OP_CONV_TRANSPOSE2D:
	case WNN_OP_QUANTIZE_LINEAR:
	case WNN_OP_DEQUANTIZE_LINEAR:
	case WNN_OP_EXPAND:
	case WNN_OP_GATHER:
	case WNN_OP_GATHER_ELEMENTS:
	case WNN_OP_GATHER_ND:
	case WNN_OP_SCATTER_ELEMENTS:
	case WNN_OP_SCATTER_ND:
	case WNN_OP_GRU:
	case WNN_OP_GRU_CELL:
	case WNN_OP_LSTM:
	case WNN_OP_LSTM_CELL:
	case WNN_OP_INSTANCE_NORMALIZATION:
	case WNN_OP_LAYER_NORMALIZATION:
	case WNN_OP_PAD:
	case WNN_OP_PRELU:
	case WNN_OP_REDUCE_L1:
	case WNN_OP_REDUCE_L2:
	case WNN_OP_REDUCE_LOG_SUM:
	case WNN_OP_REDUCE_LOG_SUM_EXP:
	case WNN_OP_REDUCE_MAX:
	case WNN_OP_REDUCE_MEAN:
	case WNN_OP_REDUCE_MIN:
	case WNN_OP_REDUCE_PRODUCT:
	case WNN_OP_REDUCE_SUM:
	case WNN_OP_REDUCE_SUM_SQUARE:
	case WNN_OP_RESAMPLE2D:
	case WNN_OP_REVERSE:
	case WNN_OP_SLICE:
	case WNN_OP_SPLIT:
	case WNN_OP_TILE:
	case WNN_OP_TRIANGULAR:
	case WNN_OP_WHERE:
		return true;
	default:
		return false;
	}
}

/* ------------------------------------------------------------------ shared helpers */

static cl_uint8 u8_wide(struct ocl_build *b, uint32_t rank, const uint64_t *v)
{
	cl_uint8 out;
	memset(&out, 0, sizeof out);
	for (uint32_t i = 0; i < rank && i < 8; i++) {
		ocl_check_u32(b, v[i], "stride");
		out.s[i] = (cl_uint)v[i];
	}
	return out;
}

static cl_uint u32(struct ocl_build *b, uint64_t v, const char *what)
{
	ocl_check_u32(b, v, what);
	return (cl_uint)v;
}

static void arg_u(struct ocl_build *b, struct ocl_step *s, cl_uint i, cl_uint v)
{
	ocl_arg(b, s, i, sizeof v, &v);
}

/* A macro: passing 32-byte vectors by value draws ABI notes from GCC. */
#define arg_u8(b, s, i, expr)                                                                  \
	do {                                                                                   \
		cl_uint8 v_ = (expr);                                                          \
		ocl_arg((b), (s), (i), sizeof v_, &v_);                                        \
	} while (0)

static void arg_f(struct ocl_build *b, struct ocl_step *s, cl_uint i, float v)
{
	cl_float f = v;
	ocl_arg(b, s, i, sizeof f, &f);
}

/* A kernel step over n work-items. */
static struct ocl_step *kernel_n(struct ocl_build *b, cl_program prog, const char *name, size_t n)
{
	struct ocl_step *s = ocl_step_kernel(b, prog, name);
	ocl_step_range1(s, n);
	return s;
}

static void step_zero(struct ocl_build *b, uint32_t dst, size_t off, size_t bytes)
{
	struct ocl_step *s = ocl_step_new(b, OCL_STEP_FILL);
	if (!s)
		return;
	s->dst = dst;
	s->dst_off = off;
	s->size = bytes;
	s->pattern = 0;
	ocl_slot_use(b, dst);
}

/* Row-major float32 gemm C[m x n] = op(A)[m x k] * op(B) + beta * C, with element offsets. */
static void gemm(struct ocl_build *b, uint32_t a, size_t a_off, size_t lda, bool a_trans,
		 uint32_t bm, size_t b_off, size_t ldb, bool b_trans, uint32_t c, size_t c_off,
		 size_t ldc, size_t m, size_t n, size_t k, float beta)
{
	struct ocl_gemm gm = {
		.a_trans = a_trans, .b_trans = b_trans, .m = m, .n = n, .k = k, .alpha = 1,
		.beta = beta, .a = a, .b = bm, .c = c, .lda = lda, .ldb = ldb, .ldc = ldc,
	};
	ocl_add_gemm(b, &gm, 1, &a_off, &b_off, &c_off);
}

/* ---- programs */

static enum webnn_status math_program(struct ocl_build *b, enum wnn_dtype t, cl_program *out)
{
	return ocl_typed_program(b, "ext_math.cl", t, out);
}

/* ext_data.cl for elements of t's size, reading indices of type it (WNN_DT_NONE: none). */
static enum webnn_status data_program(struct ocl_build *b, enum wnn_dtype t, enum wnn_dtype it,
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
	return ocl_program_get(b->plan->ctx->be, b->plan->ctx->dev, "ext_data.cl", prefix, "",
			       OCL_CL_OPTIONS, out, b->diag);
}

/* ------------------------------------------------------------------ data movement */

/* dst[i] = src[base + sum c_d * strides_d] over the dims (signed strides); a contiguous view is
 * one buffer copy. */
static void view_copy(struct ocl_build *b, enum wnn_dtype t, uint32_t src, uint32_t dst,
		      uint32_t rank, const uint32_t *dims, const int64_t *strides, uint64_t base)
{
	if (FAILED(b))
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
	if (data_program(b, t, WNN_DT_NONE, &prog))
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
	struct ocl_step *s = kernel_n(b, prog, "view_copy", count);
	cl_ulong cb = base;
	ocl_arg_mem(b, s, 0, src);
	ocl_arg_mem(b, s, 1, dst);
	arg_u(b, s, 2, u32(b, count, "output"));
	arg_u(b, s, 3, rank);
	arg_u8(b, s, 4, ocl_u8dims(rank, dims));
	ocl_arg(b, s, 5, sizeof st, &st);
	ocl_arg(b, s, 6, sizeof cb, &cb);
}

static void lower_expand(struct ocl_build *b)
{
	struct wnn_expand_attrs p;
	if (wnn_resolve_expand(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	int64_t st[WNN_MAX_RANK];
	for (uint32_t d = 0; d < p.rank; d++)
		st[d] = (int64_t)p.in_strides[d];
	view_copy(b, p.type, si, so, p.rank, p.out_dims, st, 0);
}

static void lower_slice(struct ocl_build *b)
{
	struct wnn_slice_attrs p;
	if (wnn_resolve_slice(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	int64_t st[WNN_MAX_RANK];
	for (uint32_t d = 0; d < p.rank; d++)
		st[d] = (int64_t)p.step_strides[d];
	view_copy(b, p.type, si, so, p.rank, p.out_dims, st, p.base);
}

static void lower_reverse(struct ocl_build *b)
{
	struct wnn_reverse_attrs p;
	if (wnn_resolve_reverse(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
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
	view_copy(b, p.type, si, so, p.rank, p.dims, st, base);
}

static void lower_split(struct ocl_build *b)
{
	struct wnn_split_attrs p;
	if (wnn_resolve_split(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input);
	for (size_t i = 0; i < p.n_outputs && !FAILED(b); i++) {
		uint32_t so = ocl_output_slot(b, p.outputs[i]);
		uint32_t dims[3] = { u32(b, p.outer, "split"), p.sizes[i], u32(b, p.inner, "split") };
		int64_t st[3] = { (int64_t)(p.axis_size * p.inner), (int64_t)p.inner, 1 };
		view_copy(b, p.type, si, so, 3, dims, st, (uint64_t)p.offsets[i] * p.inner);
	}
}

/* An ext_data.cl step of count items, each output element reading the input through dims
 * and strides (arguments 0-6 of ext_data.cl's tile and pad); NULL when it failed. */
static struct ocl_step *remap_step(struct ocl_build *b, const char *name, enum wnn_dtype t,
				   uint32_t input, uint32_t output, uint64_t count, uint32_t rank,
				   const uint32_t *out_dims, const uint32_t *in_dims,
				   const uint64_t *in_strides)
{
	uint32_t si = ocl_operand_slot(b, input), so = ocl_output_slot(b, output);
	cl_program prog;
	if (FAILED(b) || data_program(b, t, WNN_DT_NONE, &prog))
		return NULL;
	struct ocl_step *s = kernel_n(b, prog, name, count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	arg_u(b, s, 2, u32(b, count, "output"));
	arg_u(b, s, 3, rank);
	arg_u8(b, s, 4, ocl_u8dims(rank, out_dims));
	arg_u8(b, s, 5, ocl_u8dims(rank, in_dims));
	arg_u8(b, s, 6, u8_wide(b, rank, in_strides));
	return s;
}

static void lower_tile(struct ocl_build *b)
{
	struct wnn_tile_attrs p;
	if (wnn_resolve_tile(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	remap_step(b, "tile", p.type, p.input, p.output, p.count, p.rank, p.out_dims, p.in_dims,
		   p.in_strides);
}

static void lower_pad(struct ocl_build *b)
{
	struct wnn_pad_attrs p;
	if (wnn_resolve_pad(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	struct ocl_step *s = remap_step(b, "pad", p.type, p.input, p.output, p.count, p.rank,
					p.out_dims, p.in_dims, p.in_strides);
	if (!s)
		return;
	arg_u8(b, s, 7, ocl_u8dims(p.rank, p.begin));
	arg_u(b, s, 8, (cl_uint)p.mode);
	/* the value is one element's bytes, moved as the same-sized unsigned type */
	ocl_arg(b, s, 9, wnn_dtype_size(p.type), p.value);
}

static void lower_triangular(struct ocl_build *b)
{
	struct wnn_triangular_attrs p;
	if (wnn_resolve_triangular(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || data_program(b, p.type, WNN_DT_NONE, &prog))
		return;
	uint64_t n = p.batch * p.rows * p.cols;
	struct ocl_step *s = kernel_n(b, prog, "triangular", n);
	cl_long diag = p.diagonal;
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	arg_u(b, s, 2, u32(b, n, "output"));
	arg_u(b, s, 3, u32(b, p.rows, "rows"));
	arg_u(b, s, 4, u32(b, p.cols, "columns"));
	arg_u(b, s, 5, p.upper);
	ocl_arg(b, s, 6, sizeof diag, &diag);
}

static void lower_where(struct ocl_build *b)
{
	struct wnn_where_attrs p;
	if (wnn_resolve_where(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t sc = ocl_operand_slot(b, p.condition), st = ocl_operand_slot(b, p.true_value);
	uint32_t sf = ocl_operand_slot(b, p.false_value), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || data_program(b, p.type, WNN_DT_NONE, &prog))
		return;
	struct ocl_step *s = kernel_n(b, prog, "where_select", p.bc.count);
	ocl_arg_mem(b, s, 0, sc);
	ocl_arg_mem(b, s, 1, st);
	ocl_arg_mem(b, s, 2, sf);
	ocl_arg_mem(b, s, 3, so);
	arg_u(b, s, 4, u32(b, p.bc.count, "output"));
	arg_u(b, s, 5, p.bc.rank);
	arg_u8(b, s, 6, ocl_u8dims(p.bc.rank, p.bc.dims));
	arg_u8(b, s, 7, u8_wide(b, p.bc.rank, p.bc.strides[0]));
	arg_u8(b, s, 8, u8_wide(b, p.bc.rank, p.bc.strides[1]));
	arg_u8(b, s, 9, u8_wide(b, p.bc.rank, p.bc.strides[2]));
}

/* ------------------------------------------------------------------ gather / scatter */

static void lower_gather(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_gather_attrs p;
	if (wnn_resolve_gather(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), sx = ocl_operand_slot(b, p.indices);
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || data_program(b, p.type, p.index_type, &prog))
		return;
	struct ocl_step *s;
	if (kind == WNN_OP_GATHER) {
		s = kernel_n(b, prog, "gather", p.count);
		arg_u(b, s, 4, u32(b, p.axis_size, "axis"));
		arg_u(b, s, 5, u32(b, p.inner, "input"));
		arg_u(b, s, 6, u32(b, p.n_indices, "indices"));
	} else if (kind == WNN_OP_GATHER_ELEMENTS) {
		s = kernel_n(b, prog, "gather_elements", p.count);
		arg_u(b, s, 4, p.rank);
		arg_u8(b, s, 5, ocl_u8dims(p.rank, p.out_dims));
		arg_u8(b, s, 6, u8_wide(b, p.rank, p.in_strides));
		arg_u(b, s, 7, p.axis);
		arg_u(b, s, 8, u32(b, p.axis_size, "axis"));
	} else {
		s = kernel_n(b, prog, "gather_nd", p.count);
		arg_u(b, s, 4, p.k);
		arg_u(b, s, 5, u32(b, p.slice, "slice"));
		arg_u8(b, s, 6, ocl_u8dims(p.in_rank, p.in_dims));
		arg_u8(b, s, 7, u8_wide(b, p.in_rank, p.in_strides));
	}
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, sx);
	ocl_arg_mem(b, s, 2, so);
	arg_u(b, s, 3, u32(b, p.count, "output"));
}

static void lower_scatter(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_scatter_attrs p;
	if (wnn_resolve_scatter(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), sx = ocl_operand_slot(b, p.indices);
	uint32_t su = ocl_operand_slot(b, p.updates), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || data_program(b, p.type, p.index_type, &prog))
		return;
	ocl_step_copy(b, si, 0, so, 0, (size_t)p.count * wnn_dtype_size(p.type));
	struct ocl_step *s;
	if (kind == WNN_OP_SCATTER_ELEMENTS) {
		uint64_t lines = p.n_updates / p.idx_dims[p.axis];
		uint64_t ustr[WNN_MAX_RANK];
		wnn_shape_strides(p.rank, p.idx_dims, ustr);
		s = kernel_n(b, prog, "scatter_elements", lines);
		arg_u(b, s, 3, u32(b, lines, "updates"));
		arg_u(b, s, 4, p.rank);
		arg_u8(b, s, 5, ocl_u8dims(p.rank, p.idx_dims));
		arg_u8(b, s, 6, u8_wide(b, p.rank, ustr));
		arg_u8(b, s, 7, u8_wide(b, p.rank, p.in_strides));
		arg_u(b, s, 8, p.axis);
		arg_u(b, s, 9, u32(b, p.axis_size, "axis"));
	} else {
		s = kernel_n(b, prog, "scatter_nd", p.slice);
		arg_u(b, s, 3, u32(b, p.slice, "slice"));
		arg_u(b, s, 4, u32(b, p.n_tuples, "indices"));
		arg_u(b, s, 5, p.k);
		arg_u8(b, s, 6, ocl_u8dims(p.rank, p.in_dims));
		arg_u8(b, s, 7, u8_wide(b, p.rank, p.in_strides));
	}
	ocl_arg_mem(b, s, 0, sx);
	ocl_arg_mem(b, s, 1, su);
	ocl_arg_mem(b, s, 2, so);
}

/* ------------------------------------------------------------------ type conversions */

static void lower_cast(struct ocl_build *b)
{
	struct wnn_cast_attrs p;
	if (wnn_resolve_cast(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	if (FAILED(b))
		return;
	if (p.in_type == p.out_type) {
		ocl_step_copy(b, si, 0, so, 0, (size_t)p.count * wnn_dtype_size(p.in_type));
		return;
	}
	bool fi = is_float(p.in_type), fo = is_float(p.out_type);
	char prefix[512];
	snprintf(prefix, sizeof prefix,
		 "#define CAST 1\n#define TI %s\n#define TO %s\n%s%s"
		 "#define LDI(p, i) %s\n#define STO(p, i, v) %s\n"
		 "#define CVT_SAT_RTZ(v) convert_%s_sat_rtz(v)\n",
		 ocl_cl_types[p.in_type], ocl_cl_types[p.out_type],
		 fi ? "#define FROM_FLOAT 1\n" : "",
		 fo ? "#define TO_FLOAT 1\n" : "",
		 p.in_type == WNN_F16 ? "vload_half((i), (p))" : "((p)[i])",
		 p.out_type == WNN_F16 ? "vstore_half_rte((v), (i), (p))" : "((p)[i] = (v))",
		 ocl_cl_types[p.out_type]);
	cl_program prog;
	if (ocl_program_get(b->plan->ctx->be, b->plan->ctx->dev, "ext_cast.cl", prefix, "",
			    OCL_CL_OPTIONS, &prog, b->diag))
		return;
	struct ocl_step *s = kernel_n(b, prog, "cast", p.count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	arg_u(b, s, 2, u32(b, p.count, "output"));
}

static void lower_quantize(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_quantize_attrs p;
	if (wnn_resolve_quantize(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), ss = ocl_operand_slot(b, p.scale);
	uint32_t sz = ocl_operand_slot(b, p.zero_point), so = ocl_output_slot(b, p.output);
	if (FAILED(b))
		return;
	enum wnn_dtype ft = p.scale_type, qt = p.zp_type;
	static const char *const qmin[WNN_DT_COUNT] = { [WNN_I8] = "CHAR_MIN", [WNN_U8] = "0",
							[WNN_I32] = "INT_MIN", [WNN_U32] = "0" };
	static const char *const qmax[WNN_DT_COUNT] = { [WNN_I8] = "CHAR_MAX", [WNN_U8] = "UCHAR_MAX",
							[WNN_I32] = "INT_MAX",
							[WNN_U32] = "UINT_MAX" };
	if (!is_float(ft) || !qmin[qt])
		wnn_diag_set(b->diag, WEBNN_STATUS_NOT_SUPPORTED,
			     "%s: %s with %s zero points is not supported", b->what,
			     wnn_dtype_name(ft), wnn_dtype_name(qt));
	if (FAILED(b))
		return;
	char prefix[512];
	snprintf(prefix, sizeof prefix,
		 "#define QUANT 1\n#define FT %s\n#define QT %s\n#define LDF(p, i) %s\n"
		 "#define STF(p, i, v) %s\n#define CVT_Q(v) ((QT)clamp((long)(v), (long)%s, "
		 "(long)%s))\n",
		 ocl_cl_types[ft], ocl_cl_types[qt],
		 ft == WNN_F16 ? "vload_half((i), (p))" : "((p)[i])",
		 ft == WNN_F16 ? "vstore_half_rte((v), (i), (p))" : "((p)[i] = (v))", qmin[qt],
		 qmax[qt]);
	cl_program prog;
	if (ocl_program_get(b->plan->ctx->be, b->plan->ctx->dev, "ext_cast.cl", prefix, "",
			    OCL_CL_OPTIONS, &prog, b->diag))
		return;
	uint64_t sstr[WNN_MAX_RANK];
	for (uint32_t d = 0; d < p.rank; d++)
		sstr[d] = p.scale_strides[d];
	struct ocl_step *s = kernel_n(b, prog, kind == WNN_OP_QUANTIZE_LINEAR ? "quantize"
									    : "dequantize",
				      p.count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, ss);
	ocl_arg_mem(b, s, 2, sz);
	ocl_arg_mem(b, s, 3, so);
	arg_u(b, s, 4, u32(b, p.count, "output"));
	arg_u(b, s, 5, p.rank);
	arg_u8(b, s, 6, ocl_u8dims(p.rank, p.dims));
	arg_u8(b, s, 7, ocl_u8dims(p.rank, p.block));
	arg_u8(b, s, 8, u8_wide(b, p.rank, sstr));
}

/* ------------------------------------------------------------------ math */

static void lower_arg(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_arg_attrs p;
	if (wnn_resolve_arg(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || math_program(b, p.type, &prog))
		return;
	uint64_t n = p.outer * p.inner;
	struct ocl_step *s =
		kernel_n(b, prog, p.out_type == WNN_I64 ? "argminmax_i64" : "argminmax_i32", n);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	arg_u(b, s, 2, u32(b, n, "output"));
	arg_u(b, s, 3, u32(b, p.axis_size, "axis"));
	arg_u(b, s, 4, u32(b, p.inner, "input"));
	arg_u(b, s, 5, kind == WNN_OP_ARG_MAX);
}

static void lower_cumsum(struct ocl_build *b)
{
	struct wnn_cumsum_attrs p;
	if (wnn_resolve_cumsum(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || math_program(b, p.type, &prog))
		return;
	uint64_t n = p.outer * p.inner;
	struct ocl_step *s = kernel_n(b, prog, "cumsum", n);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	arg_u(b, s, 2, u32(b, n, "output"));
	arg_u(b, s, 3, u32(b, p.axis_size, "axis"));
	arg_u(b, s, 4, u32(b, p.inner, "input"));
	arg_u(b, s, 5, p.exclusive);
	arg_u(b, s, 6, p.reversed);
}

static void lower_reduce_split(struct ocl_build *b, cl_program prog, const struct wnn_reduce_attrs *p,
			       cl_uint kind, uint32_t parts, uint32_t si, uint32_t so)
{
	const struct wnn_reduction *r = &p->r;
	uint64_t n = r->kept_count * parts;
	/* partial accumulators in the kernels' ACC: float for float types, 64-bit integers
	 * otherwise; float ones have a second half for logSumExp's chunk maxima */
	size_t bytes = is_float(p->type) ? (size_t)n * 2 * sizeof(float) : (size_t)n * 8;
	uint32_t w = ocl_slot_new_temp(b, bytes);
	if (FAILED(b))
		return;
	struct ocl_step *s = kernel_n(b, prog, "reduce_part", n);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, w);
	arg_u(b, s, 2, u32(b, n, "output"));
	arg_u(b, s, 3, parts);
	arg_u(b, s, 4, u32(b, r->red_count, "input"));
	arg_u(b, s, 5, r->kept_rank);
	arg_u8(b, s, 6, ocl_u8dims(r->kept_rank, r->kept_dims));
	arg_u8(b, s, 7, u8_wide(b, r->kept_rank, r->kept_strides));
	arg_u(b, s, 8, r->red_rank);
	arg_u8(b, s, 9, ocl_u8dims(r->red_rank, r->red_dims));
	arg_u8(b, s, 10, u8_wide(b, r->red_rank, r->red_strides));
	arg_u(b, s, 11, kind);
	s = kernel_n(b, prog, "reduce_fin", r->kept_count);
	ocl_arg_mem(b, s, 0, w);
	ocl_arg_mem(b, s, 1, so);
	arg_u(b, s, 2, u32(b, r->kept_count, "output"));
	arg_u(b, s, 3, parts);
	arg_u(b, s, 4, u32(b, r->red_count, "input"));
	arg_u(b, s, 5, kind);
}

static void lower_reduce(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_reduce_attrs p;
	if (wnn_resolve_reduce(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || math_program(b, p.type, &prog))
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
	if (parts >= 4 && !ocl_baseline()) {
		lower_reduce_split(b, prog, &p, k, (uint32_t)parts, si, so);
		return;
	}
	struct ocl_step *s = kernel_n(b, prog, "reduce", r->kept_count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	arg_u(b, s, 2, u32(b, r->kept_count, "output"));
	arg_u(b, s, 3, r->kept_rank);
	arg_u8(b, s, 4, ocl_u8dims(r->kept_rank, r->kept_dims));
	arg_u8(b, s, 5, u8_wide(b, r->kept_rank, r->kept_strides));
	arg_u(b, s, 6, r->red_rank);
	arg_u8(b, s, 7, ocl_u8dims(r->red_rank, r->red_dims));
	arg_u8(b, s, 8, u8_wide(b, r->red_rank, r->red_strides));
	arg_u(b, s, 9, k);
}

static void lower_prelu(struct ocl_build *b)
{
	struct wnn_prelu_attrs p;
	if (wnn_resolve_prelu(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), ss = ocl_operand_slot(b, p.slope);
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || math_program(b, p.type, &prog))
		return;
	struct ocl_step *s = kernel_n(b, prog, "prelu", p.bc.count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, ss);
	ocl_arg_mem(b, s, 2, so);
	arg_u(b, s, 3, u32(b, p.bc.count, "output"));
	arg_u(b, s, 4, p.bc.rank);
	arg_u8(b, s, 5, ocl_u8dims(p.bc.rank, p.bc.dims));
	arg_u8(b, s, 6, u8_wide(b, p.bc.rank, p.bc.strides[0]));
	arg_u8(b, s, 7, u8_wide(b, p.bc.rank, p.bc.strides[1]));
}

static void lower_norm(struct ocl_build *b)
{
	struct wnn_norm_attrs p;
	if (wnn_resolve_norm(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input);
	uint32_t ss = p.has_scale ? ocl_operand_slot(b, p.scale) : si;
	uint32_t sb = p.has_bias ? ocl_operand_slot(b, p.bias) : si;
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || math_program(b, p.type, &prog))
		return;
	const struct wnn_reduction *r = &p.r;
	struct ocl_step *s = kernel_n(b, prog, "norm_groups", r->kept_count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, ss);
	ocl_arg_mem(b, s, 2, sb);
	ocl_arg_mem(b, s, 3, so);
	arg_u(b, s, 4, u32(b, r->kept_count, "groups"));
	arg_u(b, s, 5, r->kept_rank);
	arg_u8(b, s, 6, ocl_u8dims(r->kept_rank, r->kept_dims));
	arg_u8(b, s, 7, u8_wide(b, r->kept_rank, r->kept_strides));
	arg_u(b, s, 8, r->red_rank);
	arg_u8(b, s, 9, ocl_u8dims(r->red_rank, r->red_dims));
	arg_u8(b, s, 10, u8_wide(b, r->red_rank, r->red_strides));
	arg_f(b, s, 11, (float)p.epsilon);
	arg_u(b, s, 12, p.has_scale);
	arg_u(b, s, 13, p.has_bias);
	arg_u(b, s, 14, 1);
	arg_u(b, s, 15, p.per_channel ? p.channels : 0);
}

static void lower_resample(struct ocl_build *b)
{
	struct wnn_resample_attrs p;
	if (wnn_resolve_resample(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || math_program(b, p.type, &prog))
		return;
	/* Source coordinates come from the shared params code, so every backend samples the
	 * same input elements. Tables go in memory order of the two axes. */
	int first = p.axes[0] < p.axes[1] ? 0 : 1;
	uint32_t a1 = p.axes[first], a2 = p.axes[1 - first];
	uint32_t oh = p.out_dims[a1], ow = p.out_dims[a2];
	size_t nidx = 2 * ((size_t)oh + ow);
	uint32_t *ix = malloc(nidx * sizeof *ix);
	float *wt = malloc(((size_t)oh + ow) * sizeof *wt);
	if (!ix || !wt) {
		free(ix);
		free(wt);
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
		return;
	}
	for (int k = 0; k < 2; k++) {
		int a = k ? 1 - first : first; /* index into p.axes / params' per-axis functions */
		uint32_t on = k ? ow : oh, in = p.in_dims[p.axes[a]];
		uint32_t *i0 = ix + (k ? 2 * (size_t)oh : 0), *i1 = i0 + on;
		float *w = wt + (k ? oh : 0);
		for (uint32_t o = 0; o < on; o++) {
			if (p.mode == WNN_INTERP_NEAREST) {
				i0[o] = wnn_resample_nearest(&p, a, o);
				i1[o] = i0[o];
				w[o] = 0;
			} else {
				double x = wnn_resample_coord(&p, a, o);
				i0[o] = (uint32_t)floor(x);
				i1[o] = (uint32_t)ceil(x);
				w[o] = (float)(x - floor(x));
			}
			if (i0[o] >= in)
				i0[o] = in - 1;
			if (i1[o] >= in)
				i1[o] = in - 1;
		}
	}
	uint32_t six = UINT32_MAX, swt = UINT32_MAX;
	ocl_slot_const(b, ix, nidx * sizeof *ix, &six);
	ocl_slot_const(b, wt, ((size_t)oh + ow) * sizeof *wt, &swt);
	free(ix);
	free(wt);
	if (FAILED(b))
		return;
	uint64_t between = 1;
	for (uint32_t d = a1 + 1; d < a2; d++)
		between *= p.out_dims[d];
	uint64_t inner = p.in_strides[a2], outer = p.count / (between * oh * ow * inner);
	struct ocl_step *s = ocl_step_kernel(b, prog, "resample2d");
	ocl_step_range3(s, (size_t)(ow * inner), oh, (size_t)(outer * between));
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg_mem(b, s, 2, six);
	ocl_arg_mem(b, s, 3, swt);
	arg_u(b, s, 4, oh);
	arg_u(b, s, 5, (cl_uint)between);
	arg_u(b, s, 6, ow);
	arg_u(b, s, 7, u32(b, inner, "stride"));
	arg_u(b, s, 8, u32(b, p.in_strides[a1] * p.in_dims[a1], "stride"));
	arg_u(b, s, 9, u32(b, p.in_strides[a1], "stride"));
	arg_u(b, s, 10, u32(b, p.in_strides[a2] * p.in_dims[a2], "stride"));
	arg_u(b, s, 11, u32(b, p.in_strides[a2], "stride"));
	arg_u(b, s, 12, p.mode == WNN_INTERP_LINEAR);
	ocl_check_u32(b, p.count, "output");
}

/* The tap tables of kernels/ext_math.cl (TAPS_DECL): for each output row the (filter row,
 * input row) pairs that reach it, from oy = iy * stride + ky * dilation - pad; columns alike. */
static uint32_t conv_transpose_taps(struct ocl_build *b, const struct wnn_conv_transpose2d_attrs *p)
{
	size_t n = (size_t)p->out_h * (1 + 2 * p->kh) + (size_t)p->out_w * (1 + 2 * p->kw);
	uint32_t *tab = calloc(n, sizeof *tab), id = UINT32_MAX;
	if (!tab) {
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
		return UINT32_MAX;
	}
	uint32_t *at = tab;
	for (int axis = 0; axis < 2; axis++) {
		uint32_t on = axis ? p->out_w : p->out_h, kn = axis ? p->kw : p->kh;
		uint32_t in = axis ? p->w : p->h, st = axis ? p->stride_w : p->stride_h;
		uint32_t dil = axis ? p->dil_w : p->dil_h, pad = axis ? p->pad_left : p->pad_top;
		uint32_t *cnt = at, *ks = at + on, *is = ks + (size_t)on * kn;
		for (uint32_t o = 0; o < on; o++)
			for (uint32_t k = 0; k < kn; k++) {
				int64_t t = (int64_t)o + pad - (int64_t)k * dil;
				if (t < 0 || t % st || t / st >= in)
					continue;
				ks[(size_t)o * kn + cnt[o]] = k;
				is[(size_t)o * kn + cnt[o]] = (uint32_t)(t / st);
				cnt[o]++;
			}
		at = is + (size_t)on * kn;
	}
	ocl_slot_const(b, tab, n * sizeof *tab, &id);
	free(tab);
	return id;
}

/* One work-item per output element, summing its input taps: for thin groups, where a gemm's
 * inner dimension (input channels per group) would be too short. */
static void conv_transpose_direct(struct ocl_build *b, const struct wnn_conv_transpose2d_attrs *params)
{
	const struct wnn_conv_transpose2d_attrs p = *params;
	uint32_t si = ocl_operand_slot(b, p.input), sf = ocl_operand_slot(b, p.filter);
	uint32_t sb = p.has_bias ? ocl_operand_slot(b, p.bias) : sf;
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || math_program(b, p.type, &prog))
		return;
	uint64_t total = (uint64_t)p.n * p.c_out * p.out_h * p.out_w;
	cl_uint16 pp;
	memset(&pp, 0, sizeof pp);
	uint32_t v[16] = { p.c_in_g,   p.h,      p.w,       p.kh,       p.kw,     p.out_h,
			   p.out_w,    p.stride_h, p.stride_w, p.dil_h,  p.dil_w,  p.pad_top,
			   p.pad_left, p.c_out_g, p.c_out,   p.has_bias };
	for (int i = 0; i < 16; i++)
		pp.s[i] = v[i];
	cl_uint4 is, fs;
	for (int i = 0; i < 4; i++) {
		is.s[i] = u32(b, p.in_stride[i], "stride");
		fs.s[i] = u32(b, p.filter_stride[i], "stride");
	}
	uint32_t tab = conv_transpose_taps(b, &p);
	struct ocl_step *s = kernel_n(b, prog, "conv_transpose2d", total);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, sf);
	ocl_arg_mem(b, s, 2, sb);
	ocl_arg_mem(b, s, 3, so);
	ocl_arg_mem(b, s, 4, tab);
	arg_u(b, s, 5, u32(b, total, "output"));
	arg_u(b, s, 6, p.nhwc);
	ocl_arg(b, s, 7, sizeof pp, &pp);
	ocl_arg(b, s, 8, sizeof is, &is);
	ocl_arg(b, s, 9, sizeof fs, &fs);
}

/* The filter as dense float32 [c_in][c_out_g][kh][kw] (IOHW): per group, the gemm's A. */
static uint32_t conv_transpose_filter(struct ocl_build *b, const struct wnn_conv_transpose2d_attrs *p)
{
	uint32_t dims[4] = { p->c_in, p->c_out_g, p->kh, p->kw };
	uint64_t dense[4];
	wnn_shape_strides(4, dims, dense);
	uint32_t src = ocl_f32_slot(b, p->filter);
	if (FAILED(b) || memcmp(dense, p->filter_stride, sizeof dense) == 0)
		return src;
	size_t count = ocl_desc_count(b, p->filter);
	uint32_t dst = ocl_slot_new_temp(b, count * 4);
	int64_t st[4];
	for (int d = 0; d < 4; d++)
		st[d] = (int64_t)p->filter_stride[d];
	view_copy(b, WNN_F32, src, dst, 4, dims, st, 0);
	return dst;
}

/* cols[n][g] = W_g^T x X_g (a gemm per batch entry and group, [c_out_g*kh*kw] x [h*w]), then
 * each output element sums the columns of the taps that land on it (col2im). */
static void conv_transpose_gemm(struct ocl_build *b, const struct wnn_conv_transpose2d_attrs *p)
{
	size_t K = (size_t)p->kh * p->kw, HW = (size_t)p->h * p->w, OK = (size_t)p->c_out_g * K;
	size_t G = p->groups, ICg = p->c_in_g;
	uint32_t sx = ocl_f32_slot(b, p->input);
	uint32_t sw = conv_transpose_filter(b, p);
	uint32_t sb = p->has_bias ? ocl_operand_slot(b, p->bias) : sw;
	uint32_t so = ocl_output_slot(b, p->output);
	if (FAILED(b))
		return;
	uint32_t cols = ocl_slot_new_temp(b, (size_t)p->n * G * OK * HW * 4);
	for (size_t n = 0; n < p->n; n++)
		for (size_t g = 0; g < G; g++) {
			size_t coff = (n * G + g) * OK * HW;
			if (p->nhwc)
				gemm(b, sw, g * ICg * OK, OK, true, sx, n * HW * p->c_in + g * ICg,
				     p->c_in, true, cols, coff, HW, OK, HW, ICg, 0);
			else
				gemm(b, sw, g * ICg * OK, OK, true, sx, (n * p->c_in + g * ICg) * HW,
				     HW, false, cols, coff, HW, OK, HW, ICg, 0);
		}
	cl_program prog;
	if (FAILED(b) || math_program(b, p->type, &prog))
		return;
	uint64_t total = (uint64_t)p->n * p->c_out * p->out_h * p->out_w;
	cl_uint16 pp;
	memset(&pp, 0, sizeof pp);
	uint32_t v[16] = { p->groups,   p->h,       p->w,        p->kh,      p->kw,     p->out_h,
			   p->out_w,    p->stride_h, p->stride_w, p->dil_h,  p->dil_w,  p->pad_top,
			   p->pad_left, p->c_out_g, p->c_out,    p->has_bias };
	for (int i = 0; i < 16; i++)
		pp.s[i] = v[i];
	uint32_t tab = conv_transpose_taps(b, p);
	struct ocl_step *s = kernel_n(b, prog, "col2im_t", total);
	ocl_arg_mem(b, s, 0, cols);
	ocl_arg_mem(b, s, 1, sb);
	ocl_arg_mem(b, s, 2, so);
	ocl_arg_mem(b, s, 3, tab);
	arg_u(b, s, 4, u32(b, total, "output"));
	arg_u(b, s, 5, p->nhwc);
	ocl_arg(b, s, 6, sizeof pp, &pp);
}

static void lower_conv_transpose(struct ocl_build *b)
{
	struct wnn_conv_transpose2d_attrs p;
	if (wnn_resolve_conv_transpose2d(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint64_t cols = (uint64_t)p.n * p.c_out * p.kh * p.kw * p.h * p.w;
	if (p.c_in_g >= 8 && cols < (1u << 26))
		conv_transpose_gemm(b, &p);
	else
		conv_transpose_direct(b, &p);
}

/* ------------------------------------------------------------------ recurrent networks */

/*
 * All four operators run in float32 workspaces:
 *   xw  [dirs][steps * batch][G*H]  x * W^T for every step at once (one gemm per direction),
 *   hs  [steps + 1][dirs][batch*H]  hidden states, slot k + 1 written by a direction's k-th step,
 *   cs  [2][dirs][batch*H]          lstm cell states, ping-pong,
 * then each step is a recurrent gemm plus a gate kernel, and the outputs are gathered (and
 * converted to float16) from the workspaces at the end.
 */
static void lower_rnn(struct ocl_build *b)
{
	struct wnn_rnn_attrs p;
	if (wnn_resolve_rnn(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	size_t H = p.hidden, NB = p.batch, G = p.gates, GH = G * H, S = p.steps;
	size_t D = p.num_dirs, I = p.input_size, bh = NB * H;
	ocl_check_u32(b, (uint64_t)(S + 1) * D * bh, "hidden state sequence");
	ocl_check_u32(b, (uint64_t)D * S * NB * GH, "gate buffer");
	uint32_t sx = ocl_f32_slot(b, p.input), sw = ocl_f32_slot(b, p.weight);
	uint32_t sr = ocl_f32_slot(b, p.recurrent_weight);
	uint32_t sb = p.has_bias ? ocl_f32_slot(b, p.bias) : UINT32_MAX;
	uint32_t srb = p.has_recurrent_bias ? ocl_f32_slot(b, p.recurrent_bias) : UINT32_MAX;
	uint32_t sp = p.has_peephole ? ocl_f32_slot(b, p.peephole) : UINT32_MAX;
	if (FAILED(b))
		return;
	uint32_t hs = ocl_slot_new_temp(b, (S + 1) * D * bh * 4);
	uint32_t xw = ocl_slot_new_temp(b, D * S * NB * GH * 4);
	uint32_t cs = p.lstm ? ocl_slot_new_temp(b, 2 * D * bh * 4) : UINT32_MAX;
	if (p.has_initial_hidden)
		ocl_step_copy(b, ocl_f32_slot(b, p.initial_hidden), 0, hs, 0, D * bh * 4);
	else
		step_zero(b, hs, 0, D * bh * 4);
	if (p.lstm) {
		if (p.has_initial_cell)
			ocl_step_copy(b, ocl_f32_slot(b, p.initial_cell), 0, cs, 0, D * bh * 4);
		else
			step_zero(b, cs, 0, D * bh * 4);
	}
	cl_program rnn, out;
	if (FAILED(b) || ocl_typed_program(b, "ext_rnn.cl", WNN_F32, &rnn) ||
	    math_program(b, p.type, &out))
		return;
	/* lstm adds both biases to every gate: fold them into one vector */
	uint32_t sbb = sb;
	bool has_bb = p.has_bias || p.has_recurrent_bias;
	if (p.lstm && p.has_bias && p.has_recurrent_bias) {
		sbb = ocl_slot_new_temp(b, D * GH * 4);
		struct ocl_step *s = kernel_n(b, rnn, "vec_add", D * GH);
		ocl_arg_mem(b, s, 0, sb);
		ocl_arg_mem(b, s, 1, srb);
		ocl_arg_mem(b, s, 2, sbb);
		arg_u(b, s, 3, (cl_uint)(D * GH));
	} else if (p.lstm && p.has_recurrent_bias) {
		sbb = srb;
	}
	for (size_t d = 0; d < D; d++)
		gemm(b, sx, 0, I, false, sw, d * GH * I, I, true, xw, d * S * NB * GH, GH, S * NB, GH, I, 0);
	/* Small layers compute h * R^T inside the gate kernels: a CLBlast call per step costs far
	 * more than their math. WEBNN_OCL_RNN_GEMM=1 forces the gemm path (for tests). */
	bool fused = (uint64_t)NB * GH * H <= (1u << 22) && !getenv("WEBNN_OCL_RNN_GEMM");
	uint32_t hr = UINT32_MAX, rh = UINT32_MAX, hn = UINT32_MAX;
	if (!p.lstm) {
		if (!fused)
			hr = ocl_slot_new_temp(b, NB * GH * 4);
		if (!p.reset_after) {
			rh = ocl_slot_new_temp(b, bh * 4);
			if (!fused)
				hn = ocl_slot_new_temp(b, bh * 4);
		}
	}
	const uint32_t *gb = p.gate_block;
	cl_uint go = p.lstm ? (cl_uint)(gb[WNN_LSTM_I] | gb[WNN_LSTM_O] << 4 |
					gb[WNN_LSTM_F] << 8 | gb[WNN_LSTM_G] << 12)
			    : (cl_uint)(gb[WNN_GRU_Z] | gb[WNN_GRU_R] << 4 | gb[WNN_GRU_N] << 8);
	uint32_t backward = (p.backward ? 1u : 0u) | (D == 2 ? 2u : 0u);
	for (size_t k = 0; k < S && !FAILED(b); k++) {
		for (size_t d = 0; d < D && !FAILED(b); d++) {
			size_t t = (backward >> d) & 1 ? S - 1 - k : k;
			cl_uint xw_off = (cl_uint)((d * S + t) * NB * GH);
			cl_uint h_off = (cl_uint)((k * D + d) * bh);
			cl_uint out_off = (cl_uint)(((k + 1) * D + d) * bh);
			cl_uint r_off = (cl_uint)(d * GH * H);
			if (p.lstm) {
				/* unfused, the recurrent product accumulates onto x * W^T */
				if (!fused)
					gemm(b, hs, h_off, H, false, sr, r_off, H, true, xw, xw_off, GH, NB,
					     GH, H, 1);
				struct ocl_step *s = kernel_n(b, rnn, "lstm_gates", bh);
				ocl_arg_mem(b, s, 0, xw);
				arg_u(b, s, 1, xw_off);
				ocl_arg_mem(b, s, 2, sr);
				arg_u(b, s, 3, r_off);
				arg_u(b, s, 4, fused);
				ocl_arg_mem(b, s, 5, has_bb ? sbb : xw);
				arg_u(b, s, 6, (cl_uint)(d * GH));
				arg_u(b, s, 7, has_bb);
				ocl_arg_mem(b, s, 8, p.has_peephole ? sp : xw);
				arg_u(b, s, 9, (cl_uint)(d * 3 * H));
				arg_u(b, s, 10, p.has_peephole);
				ocl_arg_mem(b, s, 11, hs);
				arg_u(b, s, 12, h_off);
				arg_u(b, s, 13, out_off);
				ocl_arg_mem(b, s, 14, cs);
				arg_u(b, s, 15, (cl_uint)(((k % 2) * D + d) * bh));
				arg_u(b, s, 16, (cl_uint)((((k + 1) % 2) * D + d) * bh));
				arg_u(b, s, 17, (cl_uint)NB);
				arg_u(b, s, 18, (cl_uint)H);
				arg_u(b, s, 19, go);
				arg_u(b, s, 20, p.act[0]);
				arg_u(b, s, 21, p.act[1]);
				arg_u(b, s, 22, p.act[2]);
				continue;
			}
			if (!fused)
				gemm(b, hs, h_off, H, false, sr, r_off, H, true, hr, 0, GH, NB, GH, H, 0);
			/* phase 0: reset after; 1 then 2: reset before (r * h first) */
			int first = p.reset_after ? 0 : 1, last = p.reset_after ? 0 : 2;
			for (int phase = first; phase <= last && !FAILED(b); phase++) {
				if (phase == 2 && !fused) {
					size_t roff = r_off + (size_t)gb[WNN_GRU_N] * H * H;
					gemm(b, rh, 0, H, false, sr, roff, H, true, hn, 0, H, NB, H, H, 0);
				}
				struct ocl_step *s = kernel_n(
					b, rnn, phase == 2 ? "gru_before" : "gru_gates", bh);
				uint32_t hrr = fused ? sr : hr;
				ocl_arg_mem(b, s, 0, xw);
				arg_u(b, s, 1, xw_off);
				ocl_arg_mem(b, s, 2, hrr);
				arg_u(b, s, 3, r_off);
				arg_u(b, s, 4, fused);
				ocl_arg_mem(b, s, 5, p.has_bias ? sb : xw);
				arg_u(b, s, 6, (cl_uint)(d * GH));
				ocl_arg_mem(b, s, 7, p.has_recurrent_bias ? srb : xw);
				arg_u(b, s, 8, (cl_uint)(d * GH));
				ocl_arg_mem(b, s, 9, hs);
				arg_u(b, s, 10, h_off);
				arg_u(b, s, 11, out_off);
				/* phase 1 writes r * h; phase 2 reads it (fused) or its gemm */
				uint32_t x12 = phase == 2 && !fused ? hn : (rh != UINT32_MAX ? rh : xw);
				ocl_arg_mem(b, s, 12, x12);
				arg_u(b, s, 13, (cl_uint)NB);
				arg_u(b, s, 14, (cl_uint)H);
				arg_u(b, s, 15, p.has_bias);
				arg_u(b, s, 16, p.has_recurrent_bias);
				arg_u(b, s, 17, go);
				arg_u(b, s, 18, p.act[0]);
				arg_u(b, s, 19, p.act[1]);
				if (phase != 2)
					arg_u(b, s, 20, (cl_uint)phase);
			}
		}
	}
	struct {
		uint32_t operand, src, slot;
		bool seq;
	} outs[3] = {
		{ p.out_hidden, hs, (uint32_t)S, false },
		{ p.out_cell, cs, (uint32_t)(S % 2), false },
		{ p.out_sequence, hs, 0, true },
	};
	for (int i = 0; i < 3 && !FAILED(b); i++) {
		if (outs[i].operand == WNN_NO_OPERAND)
			continue;
		uint32_t so = ocl_output_slot(b, outs[i].operand);
		size_t n = (outs[i].seq ? S : 1) * D * bh;
		struct ocl_step *s = kernel_n(b, out, "rnn_out", n);
		ocl_arg_mem(b, s, 0, outs[i].src);
		ocl_arg_mem(b, s, 1, so);
		arg_u(b, s, 2, (cl_uint)n);
		arg_u(b, s, 3, (cl_uint)S);
		arg_u(b, s, 4, (cl_uint)D);
		arg_u(b, s, 5, (cl_uint)bh);
		arg_u(b, s, 6, backward);
		arg_u(b, s, 7, outs[i].seq);
		arg_u(b, s, 8, outs[i].slot);
	}
}

/* ------------------------------------------------------------------ dispatch */

enum webnn_status ocl_lower_ext(struct ocl_build *b, enum wnn_op op)
{
	switch (op) {
	case WNN_OP_ARG_MIN:
	case WNN_OP_ARG_MAX:
		lower_arg(b, op);
		break;
	case WNN_OP_CAST:
		lower_cast(b);
		break;
	case WNN_OP_CUMULATIVE_SUM:
		lower_cumsum(b);
		break;
	case WNN_OP_CONV_TRANSPOSE2D:
		lower_conv_transpose(b);
		break;
	case WNN_OP_QUANTIZE_LINEAR:
	case WNN_OP_DEQUANTIZE_LINEAR:
		lower_quantize(b, op);
		break;
	case WNN_OP_EXPAND:
		lower_expand(b);
		break;
	case WNN_OP_GATHER:
	case WNN_OP_GATHER_ELEMENTS:
	case WNN_OP_GATHER_ND:
		lower_gather(b, op);
		break;
	case WNN_OP_SCATTER_ELEMENTS:
	case WNN_OP_SCATTER_ND:
		lower_scatter(b, op);
		break;
	case WNN_OP_GRU:
	case WNN_OP_GRU_CELL:
	case WNN_OP_LSTM:
	case WNN_OP_LSTM_CELL:
		lower_rnn(b);
		break;
	case WNN_OP_INSTANCE_NORMALIZATION:
	case WNN_OP_LAYER_NORMALIZATION:
		lower_norm(b);
		break;
	case WNN_OP_PAD:
		lower_pad(b);
		break;
	case WNN_OP_PRELU:
		lower_prelu(b);
		break;
	case WNN_OP_REDUCE_L1:
	case WNN_OP_REDUCE_L2:
	case WNN_OP_REDUCE_LOG_SUM:
	case WNN_OP_REDUCE_LOG_SUM_EXP:
	case WNN_OP_REDUCE_MAX:
	case WNN_OP_REDUCE_MEAN:
	case WNN_OP_REDUCE_MIN:
	case WNN_OP_REDUCE_PRODUCT:
	case WNN_OP_REDUCE_SUM:
	case WNN_OP_REDUCE_SUM_SQUARE:
		lower_reduce(b, op);
		break;
	case WNN_OP_RESAMPLE2D:
		lower_resample(b);
		break;
	case WNN_OP_REVERSE:
		lower_reverse(b);
		break;
	case WNN_OP_SLICE:
		lower_slice(b);
		break;
	case WNN_OP_SPLIT:
		lower_split(b);
		break;
	case WNN_OP_TILE:
		lower_tile(b);
		break;
	case WNN_OP_TRIANGULAR:
		lower_triangular(b);
		break;
	case WNN_OP_WHERE:
		lower_where(b);
		break;
	default:
		wnn_diag_set(b->diag, WEBNN_STATUS_NOT_SUPPORTED,
			     "%s: not supported by the OpenCL backend", wnn_ops[op].name);
	}
	return b->diag->status;
}
