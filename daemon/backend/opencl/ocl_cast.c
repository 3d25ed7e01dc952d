/* OpenCL lowering of the cast family: cast, quantizeLinear, dequantizeLinear. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void lower_cast(struct ocl_build *b)
{
	struct wnn_cast_attrs p = b->node->attrs.cast;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	if (OCL_FAILED(b))
		return;
	if (p.in_type == p.out_type) {
		ocl_step_copy(b, si, 0, so, 0, (size_t)p.count * wnn_dtype_size(p.in_type));
		return;
	}
	bool fi = ocl_is_float(p.in_type), fo = ocl_is_float(p.out_type);
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
	if (ocl_program_get(b->plan->ctx->be, b->plan->ctx->dev, "cast.cl", prefix, "",
			    OCL_CL_OPTIONS, &prog, b->diag))
		return;
	struct ocl_step *s = ocl_kernel_n(b, prog, "cast", p.count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg_u(b, s, 2, ocl_u32(b, p.count, "output"));
}

static void lower_quantize(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_quantize_attrs p = b->node->attrs.quantize;
	uint32_t si = ocl_operand_slot(b, p.input), ss = ocl_operand_slot(b, p.scale);
	uint32_t sz = ocl_operand_slot(b, p.zero_point), so = ocl_output_slot(b, p.output);
	if (OCL_FAILED(b))
		return;
	enum wnn_dtype ft = p.scale_type, qt = p.zp_type;
	static const char *const qmin[WNN_DT_COUNT] = { [WNN_I8] = "CHAR_MIN", [WNN_U8] = "0",
							[WNN_I32] = "INT_MIN", [WNN_U32] = "0",
							[WNN_I4] = "-8", [WNN_U4] = "0" };
	static const char *const qmax[WNN_DT_COUNT] = { [WNN_I8] = "CHAR_MAX", [WNN_U8] = "UCHAR_MAX",
							[WNN_I32] = "INT_MAX",
							[WNN_U32] = "UINT_MAX",
							[WNN_I4] = "7", [WNN_U4] = "15" };
	if (!ocl_is_float(ft) || (unsigned)qt >= WNN_DT_COUNT || !qmin[qt])
		wnn_diag_set(b->diag, WEBNN_STATUS_NOT_SUPPORTED,
			     "%s: %s with %s zero points is not supported", b->what,
			     wnn_dtype_name(ft), wnn_dtype_name(qt));
	if (OCL_FAILED(b))
		return;
	/* int4/uint4 live packed in uchar storage, two per byte (kernels/cast.cl) */
	bool packed = wnn_dtype_is_4bit(qt);
	char prefix[512];
	snprintf(prefix, sizeof prefix,
		 "#define QUANT 1\n#define FT %s\n#define QT %s\n%s%s#define LDF(p, i) %s\n"
		 "#define STF(p, i, v) %s\n#define CVT_Q(v) clamp((long)(v), (long)%s, "
		 "(long)%s)\n",
		 ocl_cl_types[ft], packed ? "uchar" : ocl_cl_types[qt],
		 packed ? "#define PACKED4 1\n" : "", qt == WNN_I4 ? "#define SIGNED4 1\n" : "",
		 ft == WNN_F16 ? "vload_half((i), (p))" : "((p)[i])",
		 ft == WNN_F16 ? "vstore_half_rte((v), (i), (p))" : "((p)[i] = (v))", qmin[qt],
		 qmax[qt]);
	cl_program prog;
	if (ocl_program_get(b->plan->ctx->be, b->plan->ctx->dev, "cast.cl", prefix, "",
			    OCL_CL_OPTIONS, &prog, b->diag))
		return;
	uint64_t sstr[WNN_MAX_RANK];
	for (uint32_t d = 0; d < p.rank; d++)
		sstr[d] = p.scale_strides[d];
	bool quant = kind == WNN_OP_QUANTIZE_LINEAR;
	/* a packed quantize output: one work item per byte */
	size_t items = quant && packed ? (size_t)(p.count / 2 + (p.count & 1)) : (size_t)p.count;
	struct ocl_step *s = ocl_kernel_n(b, prog, quant ? "quantize" : "dequantize", items);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, ss);
	ocl_arg_mem(b, s, 2, sz);
	ocl_arg_mem(b, s, 3, so);
	ocl_arg_u(b, s, 4, ocl_u32(b, p.count, "output"));
	ocl_arg_u(b, s, 5, p.rank);
	ocl_arg_u8(b, s, 6, ocl_u8dims(p.rank, p.dims));
	ocl_arg_u8(b, s, 7, ocl_u8dims(p.rank, p.block));
	ocl_arg_u8(b, s, 8, ocl_u8_wide(b, p.rank, sstr));
}

void ocl_lower_cast(struct ocl_build *b, enum wnn_op op)
{
	switch (wnn_ops[op].attrs) {
	case WNN_ATTRS_CAST:
		lower_cast(b);
		break;
	case WNN_ATTRS_QUANTIZE_LINEAR:
		lower_quantize(b, op);
		break;
	default:
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR, "%s: no OpenCL lowering", b->what);
	}
}
