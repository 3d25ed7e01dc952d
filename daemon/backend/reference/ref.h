/* Private to the reference backend: plan steps, kernel signature and typed element access. */
#ifndef DAEMON_BACKEND_REFERENCE_REF_H
#define DAEMON_BACKEND_REFERENCE_REF_H

#include <string.h>

#include "daemon/backend/backend.h"
#include "daemon/backend/params.h"

struct ref_step;
/* bufs[id] is the host memory of operand id for this run (inputs, constants, outputs,
 * intermediates); kernels read their inputs and write their output there. */
typedef enum webnn_status (*ref_kernel)(const struct ref_step *s, void *const *bufs,
					struct wnn_diag *diag);

struct ref_step {
	enum wnn_op op;
	ref_kernel run;
	const struct wnn_desc *descs; /* the graph's, for ops that need more than params */
	union {
		struct params_binary binary;
		struct params_unary unary;
		struct params_clamp clamp;
		struct params_conv2d conv2d;
		struct params_pool2d pool2d;
		struct params_gemm gemm;
		struct params_matmul matmul;
		struct params_transpose transpose;
		struct params_concat concat;
		struct params_reshape reshape;
		struct params_softmax softmax;
		struct params_batchnorm batchnorm;
	} p;
};

/* Resolves one operation into a step (params + kernel); NOT_SUPPORTED for what the reference
 * backend does not implement. Defined per family in the ref_*.c files. */
enum webnn_status ref_prepare(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, struct ref_step *s, struct wnn_diag *diag);
bool ref_supports(enum wnn_op op, enum wnn_dtype type);

enum webnn_status ref_prepare_elementwise(const Webnn__Ipc__Operation *op,
					  const struct wnn_desc *descs, size_t n_descs,
					  struct ref_step *s, struct wnn_diag *diag);
enum webnn_status ref_prepare_conv(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct ref_step *s, struct wnn_diag *diag);
enum webnn_status ref_prepare_linalg(const Webnn__Ipc__Operation *op,
				     const struct wnn_desc *descs, size_t n_descs,
				     struct ref_step *s, struct wnn_diag *diag);
enum webnn_status ref_prepare_misc(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct ref_step *s, struct wnn_diag *diag);

/* ---- typed element access. Floats go through double (float16 stored as half), signed
 * integers through __int128 and unsigned through uint64_t, so every value is exact and integer
 * arithmetic wraps on the store instead of overflowing. */

static inline bool ref_is_float(enum wnn_dtype t)
{
	return t == WNN_F32 || t == WNN_F16;
}

static inline bool ref_is_signed_int(enum wnn_dtype t)
{
	return t == WNN_I32 || t == WNN_I64 || t == WNN_I8;
}

static inline double ref_load_f(const void *p, enum wnn_dtype t, uint64_t i)
{
	if (t == WNN_F16)
		return wnn_f16_to_f32(((const uint16_t *)p)[i]);
	return ((const float *)p)[i];
}

static inline void ref_store_f(void *p, enum wnn_dtype t, uint64_t i, double v)
{
	if (t == WNN_F16)
		((uint16_t *)p)[i] = wnn_f32_to_f16((float)v);
	else
		((float *)p)[i] = (float)v;
}

static inline __int128 ref_load_i(const void *p, enum wnn_dtype t, uint64_t i)
{
	switch (t) {
	case WNN_I8:
		return ((const int8_t *)p)[i];
	case WNN_I32:
		return ((const int32_t *)p)[i];
	case WNN_I64:
		return ((const int64_t *)p)[i];
	case WNN_U8:
		return ((const uint8_t *)p)[i];
	case WNN_U32:
		return ((const uint32_t *)p)[i];
	case WNN_U64:
		return ((const uint64_t *)p)[i];
	default:
		return 0;
	}
}

static inline uint64_t ref_load_u(const void *p, enum wnn_dtype t, uint64_t i)
{
	return (uint64_t)ref_load_i(p, t, i);
}

/* Stores the low bits (two's complement wrap, like a device would). */
static inline void ref_store_i(void *p, enum wnn_dtype t, uint64_t i, __int128 v)
{
	uint64_t u = (uint64_t)(unsigned __int128)v;
	switch (t) {
	case WNN_I8:
	case WNN_U8:
		((uint8_t *)p)[i] = (uint8_t)u;
		break;
	case WNN_I32:
	case WNN_U32:
		((uint32_t *)p)[i] = (uint32_t)u;
		break;
	case WNN_I64:
	case WNN_U64:
		((uint64_t *)p)[i] = u;
		break;
	default:
		break;
	}
}

#endif
