/* OpenCL lowering of the operators beyond the first CNN set (reductions, data movement, RNNs...). */
#include "daemon/backend/opencl/ocl.h"

bool ocl_ext_supports(enum wnn_op op, enum wnn_dtype t)
{
	(void)op;
	(void)t;
	return false;
}

enum webnn_status ocl_lower_ext(struct ocl_build *b, enum wnn_op op)
{
	return wnn_diag_set(b->diag, WEBNN_STATUS_NOT_SUPPORTED,
			    "%s: not supported by the OpenCL backend", wnn_ops[op].name);
}
