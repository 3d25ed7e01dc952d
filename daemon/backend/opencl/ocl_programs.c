/* OpenCL programs: type prefixes and the specialised programs built from kernels/<family>.cl. */
#include "daemon/backend/opencl/ocl.h"

#include <stdio.h>
#include <string.h>

const char *const ocl_cl_types[WNN_DT_COUNT] = {
	[WNN_F32] = "float", [WNN_F16] = "half", [WNN_I32] = "int",  [WNN_U32] = "uint",
	[WNN_I64] = "long",  [WNN_U64] = "ulong", [WNN_I8] = "char", [WNN_U8] = "uchar",
};

static void type_prefix(struct ocl_device *dev, enum wnn_dtype t, char *buf, size_t len)
{
	const char *ct = ocl_cl_types[t];
	bool is_signed = t == WNN_I32 || t == WNN_I64 || t == WNN_I8;
	const char *facc = dev->fp64 ? "double" : "float";
	const char *fp64 = dev->fp64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "";
	static const char *const lowest[WNN_DT_COUNT] = {
		[WNN_I32] = "INT_MIN", [WNN_U32] = "0", [WNN_I64] = "LONG_MIN",
		[WNN_U64] = "0",       [WNN_I8] = "CHAR_MIN", [WNN_U8] = "0",
	};
	if (t == WNN_F32)
		snprintf(buf, len,
			 "#define T float\n#define ACC float\n#define FACC float\n#define IS_FLOAT 1\n"
			 "#define LD(p, i) ((p)[i])\n#define ST(p, i, v) ((p)[i] = (float)(v))\n"
			 "#define LOWEST (-INFINITY)\n#define CONVERT_SAT(v) (v)\n");
	else if (t == WNN_F16)
		snprintf(buf, len,
			 "#define T half\n#define ACC float\n#define FACC float\n#define IS_FLOAT 1\n"
			 "#define LD(p, i) vload_half((i), (p))\n"
			 "#define ST(p, i, v) vstore_half_rte((float)(v), (i), (p))\n"
			 "#define LOWEST (-INFINITY)\n#define CONVERT_SAT(v) (v)\n");
	else
		snprintf(buf, len,
			 "%s#define T %s\n#define ACC %s\n#define FACC %s\n#define IS_INT 1\n"
			 "#define LD(p, i) ((ACC)(p)[i])\n#define ST(p, i, v) ((p)[i] = (T)(v))\n"
			 "#define LOWEST %s\n#define CONVERT_SAT(v) convert_%s_sat_rte(v)\n",
			 fp64, ct, is_signed ? "long" : "ulong", facc, lowest[t], ct);
}

enum webnn_status ocl_epilogue_program(struct ocl_build *b, unsigned flags, unsigned mode,
				       cl_program *out)
{
	char prefix[600];
	type_prefix(b->plan->ctx->dev, WNN_F32, prefix, sizeof prefix - 80);
	size_t n = strlen(prefix);
	snprintf(prefix + n, sizeof prefix - n, "#define EPI_ONLY 1\n#define EPI_FLAGS %uu\n"
		 "#define EPI_MODE %u\n", flags, mode);
	return ocl_program_get(b->plan->ctx->be, b->plan->ctx->dev, "conv.cl", prefix, "",
			       OCL_CL_OPTIONS, out, b->diag);
}

enum webnn_status ocl_typed_program(struct ocl_build *b, const char *file, enum wnn_dtype t,
				    cl_program *out)
{
	char prefix[512];
	struct ocl_device *dev = b->plan->ctx->dev;
	if (strcmp(file, "data.cl") == 0) {
		static const char *const by_size[9] = { [1] = "uchar", [2] = "ushort", [4] = "uint",
							[8] = "ulong" };
		snprintf(prefix, sizeof prefix, "#define T %s\n", by_size[wnn_dtype_size(t)]);
	} else {
		type_prefix(dev, t, prefix, sizeof prefix);
	}
	return ocl_program_get(b->plan->ctx->be, dev, file, prefix, "", OCL_CL_OPTIONS, out,
			       b->diag);
}
