/* OpenCL lowering of the elementwise family: unary, binary, clamp, prelu, where. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Elementwise expressions of proto/ops.def, stringified for the OpenCL compiler. */
static const struct {
	const char *fexpr, *iexpr;
} ew_exprs[WNN_OP_COUNT] = {
#define X(ENUM, name, id, FAMILY, ATTRS, DTYPES, OUT, DEFAULTS, FEXPR, IEXPR) [WNN_OP_##ENUM] = { #FEXPR, #IEXPR },
#include "proto/ops.def"
#undef X
};

static enum webnn_status elementwise_program(struct ocl_build *b, enum wnn_dtype t, cl_program *out)
{
	struct ocl_device *dev = b->plan->ctx->dev;
	char prefix[512];
	bool fl = t == WNN_F32 || t == WNN_F16;
	bool is_signed = t == WNN_I32 || t == WNN_I64 || t == WNN_I8;
	if (t == WNN_F32)
		snprintf(prefix, sizeof prefix,
			 "#define T float\n#define ACC float\n#define FACC float\n#define IS_FLOAT 1\n"
			 "#define LD(p, i) ((p)[i])\n#define ST(p, i, v) ((p)[i] = (float)(v))\n"
			 "#define CONVERT_SAT(v) (v)\n");
	else if (t == WNN_F16)
		snprintf(prefix, sizeof prefix,
			 "#define T half\n#define ACC float\n#define FACC float\n#define IS_FLOAT 1\n"
			 "#define LD(p, i) vload_half((i), (p))\n"
			 "#define ST(p, i, v) vstore_half_rte((float)(v), (i), (p))\n"
			 "#define CONVERT_SAT(v) (v)\n");
	else
		snprintf(prefix, sizeof prefix,
			 "%s#define T %s\n#define ACC %s\n#define FACC %s\n#define IS_INT 1\n"
			 "#define LD(p, i) ((ACC)(p)[i])\n#define ST(p, i, v) ((p)[i] = (T)(v))\n"
			 "#define CONVERT_SAT(v) convert_%s_sat_rte(v)\n",
			 dev->fp64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "",
			 ocl_cl_types[t], is_signed ? "long" : "ulong", dev->fp64 ? "double" : "float",
			 ocl_cl_types[t]);
	/* One kernel per operator that exists for this type, from the ops.def expressions. */
	size_t cap = 8192, len = 0;
	char *suffix = malloc(cap);
	if (!suffix)
		return wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
	suffix[0] = 0;
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		uint32_t fam = wnn_ops[op].attrs;
		bool bin = fam == WEBNN__IPC__OPERATION__ATTRS_BINARY;
		if ((!bin && fam != WEBNN__IPC__OPERATION__ATTRS_UNARY) ||
		    !(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
			continue;
		const char *expr = NULL, *macro = bin ? "EWB" : "EWU";
		if (op == WNN_OP_POW && !fl)
			expr = "ew_ipow(a, b)"; /* exact, as the reference: see elementwise.cl */
		else if (fl && wnn_ops[op].has_float_expr)
			expr = ew_exprs[op].fexpr;
		else if (!fl && wnn_ops[op].has_int_expr)
			expr = ew_exprs[op].iexpr;
		else if (!fl && bin && wnn_ops[op].has_float_expr) {
			expr = ew_exprs[op].fexpr;
			macro = "EWBF";
		}
		if (!expr)
			continue;
		size_t need = strlen(expr) + strlen(wnn_ops[op].name) + 32;
		if (len + need >= cap) {
			cap = (cap + need) * 2;
			char *n = realloc(suffix, cap);
			if (!n) {
				free(suffix);
				return wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY,
						    "%s: out of memory", b->what);
			}
			suffix = n;
		}
		len += (size_t)snprintf(suffix + len, cap - len, "%s(%s, %s, %s)\n", macro,
					wnn_ops[op].name,
					wnn_ops[op].out == WNN_OUT_U8 ? "U8" : "SAME", expr);
	}
	enum webnn_status st = ocl_program_get(b->plan->ctx->be, dev, "elementwise.cl", prefix,
					       suffix, OCL_CL_OPTIONS, out, b->diag);
	free(suffix);
	return st;
}

/* where moves values only: elementwise.cl's where_select over unsigned integers of t's size. */
static enum webnn_status where_program(struct ocl_build *b, enum wnn_dtype t, cl_program *out)
{
	static const char *const by_size[9] = { [1] = "uchar", [2] = "ushort", [4] = "uint",
						[8] = "ulong" };
	char prefix[64];
	snprintf(prefix, sizeof prefix, "#define T %s\n#define WHERE_SELECT 1\n",
		 by_size[wnn_dtype_size(t)]);
	return ocl_program_get(b->plan->ctx->be, b->plan->ctx->dev, "elementwise.cl", prefix, "",
			       OCL_CL_OPTIONS, out, b->diag);
}

static void lower_binary(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_binary_attrs p = b->node->attrs.binary;
	uint32_t sa = ocl_operand_slot(b, p.a), sb = ocl_operand_slot(b, p.b);
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || elementwise_program(b, p.type, &prog))
		return;
	uint64_t in[2][WNN_MAX_RANK], out[2][WNN_MAX_RANK];
	uint32_t odims[WNN_MAX_RANK];
	for (uint32_t d = 0; d < p.bc.rank; d++) {
		in[0][d] = p.bc.strides[0][d];
		in[1][d] = p.bc.strides[1][d];
	}
	uint32_t r = ocl_collapse(p.bc.rank, p.bc.dims, 2, in, odims, out);
	cl_uint rank = r;
	if (p.bc.same_shape[0] && p.bc.same_shape[1])
		rank = 0;
	char name[64];
	snprintf(name, sizeof name, "ew_%s", wnn_ops[kind].name);
	struct ocl_step *s = ocl_step_kernel(b, prog, name);
	cl_uint n = (cl_uint)p.bc.count;
	cl_uint8 vd = ocl_u8dims(r, odims), va = ocl_u8vec(r, out[0]), vb = ocl_u8vec(r, out[1]);
	ocl_arg_mem(b, s, 0, sa);
	ocl_arg_mem(b, s, 1, sb);
	ocl_arg_mem(b, s, 2, so);
	ocl_arg(b, s, 3, sizeof n, &n);
	ocl_arg(b, s, 4, sizeof rank, &rank);
	ocl_arg(b, s, 5, sizeof vd, &vd);
	ocl_arg(b, s, 6, sizeof va, &va);
	ocl_arg(b, s, 7, sizeof vb, &vb);
	ocl_step_range1(s, p.bc.count);
}

static void lower_unary(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_unary_attrs p = b->node->attrs.unary;
	if (kind == WNN_OP_IDENTITY) {
		ocl_alias(b, p.input, p.output);
		return;
	}
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || elementwise_program(b, p.type, &prog))
		return;
	char name[64];
	snprintf(name, sizeof name, "ew_%s", wnn_ops[kind].name);
	struct ocl_step *s = ocl_step_kernel(b, prog, name);
	cl_uint n = (cl_uint)p.count;
	cl_float alpha = (cl_float)p.alpha, beta = (cl_float)p.beta;
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg(b, s, 2, sizeof n, &n);
	ocl_arg(b, s, 3, sizeof alpha, &alpha);
	ocl_arg(b, s, 4, sizeof beta, &beta);
	ocl_step_range1(s, p.count);
}

static void lower_clamp(struct ocl_build *b)
{
	struct wnn_clamp_attrs p = b->node->attrs.clamp;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || elementwise_program(b, p.type, &prog))
		return;
	struct ocl_step *s = ocl_step_kernel(b, prog, "ew_clamp");
	cl_uint n = (cl_uint)p.count;
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg(b, s, 2, sizeof n, &n);
	if (p.type == WNN_F32 || p.type == WNN_F16) {
		cl_float lo = (cl_float)p.min, hi = (cl_float)p.max;
		ocl_arg(b, s, 3, sizeof lo, &lo);
		ocl_arg(b, s, 4, sizeof hi, &hi);
	} else if (p.type == WNN_U32 || p.type == WNN_U64 || p.type == WNN_U8) {
		cl_ulong lo = p.min_u, hi = p.max_u;
		ocl_arg(b, s, 3, sizeof lo, &lo);
		ocl_arg(b, s, 4, sizeof hi, &hi);
	} else {
		cl_long lo = p.min_i, hi = p.max_i;
		ocl_arg(b, s, 3, sizeof lo, &lo);
		ocl_arg(b, s, 4, sizeof hi, &hi);
	}
	ocl_step_range1(s, p.count);
}

static void lower_prelu(struct ocl_build *b)
{
	struct wnn_prelu_attrs p = b->node->attrs.prelu;
	uint32_t si = ocl_operand_slot(b, p.input), ss = ocl_operand_slot(b, p.slope);
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || elementwise_program(b, p.type, &prog))
		return;
	struct ocl_step *s = ocl_kernel_n(b, prog, "prelu", p.bc.count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, ss);
	ocl_arg_mem(b, s, 2, so);
	ocl_arg_u(b, s, 3, ocl_u32(b, p.bc.count, "output"));
	ocl_arg_u(b, s, 4, p.bc.rank);
	ocl_arg_u8(b, s, 5, ocl_u8dims(p.bc.rank, p.bc.dims));
	ocl_arg_u8(b, s, 6, ocl_u8_wide(b, p.bc.rank, p.bc.strides[0]));
	ocl_arg_u8(b, s, 7, ocl_u8_wide(b, p.bc.rank, p.bc.strides[1]));
}

static void lower_where(struct ocl_build *b)
{
	struct wnn_where_attrs p = b->node->attrs.where;
	uint32_t sc = ocl_operand_slot(b, p.condition), st = ocl_operand_slot(b, p.true_value);
	uint32_t sf = ocl_operand_slot(b, p.false_value), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || where_program(b, p.type, &prog))
		return;
	struct ocl_step *s = ocl_kernel_n(b, prog, "where_select", p.bc.count);
	ocl_arg_mem(b, s, 0, sc);
	ocl_arg_mem(b, s, 1, st);
	ocl_arg_mem(b, s, 2, sf);
	ocl_arg_mem(b, s, 3, so);
	ocl_arg_u(b, s, 4, ocl_u32(b, p.bc.count, "output"));
	ocl_arg_u(b, s, 5, p.bc.rank);
	ocl_arg_u8(b, s, 6, ocl_u8dims(p.bc.rank, p.bc.dims));
	ocl_arg_u8(b, s, 7, ocl_u8_wide(b, p.bc.rank, p.bc.strides[0]));
	ocl_arg_u8(b, s, 8, ocl_u8_wide(b, p.bc.rank, p.bc.strides[1]));
	ocl_arg_u8(b, s, 9, ocl_u8_wide(b, p.bc.rank, p.bc.strides[2]));
}

bool ocl_supports_elementwise(enum wnn_op op, enum wnn_dtype t)
{
	switch (wnn_ops[op].attrs) {
	case WEBNN__IPC__OPERATION__ATTRS_BINARY:
	case WEBNN__IPC__OPERATION__ATTRS_UNARY:
		if (op == WNN_OP_IDENTITY)
			return true;
		if (t == WNN_F32 || t == WNN_F16)
			return wnn_ops[op].has_float_expr;
		return wnn_ops[op].has_int_expr ||
		       (wnn_ops[op].attrs == WEBNN__IPC__OPERATION__ATTRS_BINARY &&
			wnn_ops[op].has_float_expr);
	default:
		return true;
	}
}

void ocl_lower_elementwise(struct ocl_build *b, enum wnn_op op)
{
	switch (wnn_ops[op].attrs) {
	case WEBNN__IPC__OPERATION__ATTRS_BINARY:
		lower_binary(b, op);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_UNARY:
		lower_unary(b, op);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_CLAMP:
		lower_clamp(b);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_PRELU:
		lower_prelu(b);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_WHERE:
		lower_where(b);
		break;
	default:
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR, "%s: no OpenCL lowering", b->what);
	}
}
