/* Private to the reference backend: plan steps, kernel signature and typed element access. */
#ifndef DAEMON_BACKEND_REFERENCE_REF_H
#define DAEMON_BACKEND_REFERENCE_REF_H

#include <string.h>

#include "daemon/backend/backend.h"
#include "proto/resolve.h"

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
		struct wnn_binary_attrs binary;
		struct wnn_unary_attrs unary;
		struct wnn_clamp_attrs clamp;
		struct wnn_conv2d_attrs conv2d;
		struct wnn_pool2d_attrs pool2d;
		struct wnn_gemm_attrs gemm;
		struct wnn_matmul_attrs matmul;
		struct wnn_transpose_attrs transpose;
		struct wnn_concat_attrs concat;
		struct wnn_reshape_attrs reshape;
		struct wnn_softmax_attrs softmax;
		struct wnn_batchnorm_attrs batchnorm;
		struct wnn_cast_attrs cast;
		struct wnn_arg_attrs arg;
		struct wnn_cumsum_attrs cumsum;
		struct wnn_conv_transpose2d_attrs conv_transpose2d;
		struct wnn_quantize_attrs quantize;
		struct wnn_expand_attrs expand;
		struct wnn_tile_attrs tile;
		struct wnn_gather_attrs gather;
		struct wnn_scatter_attrs scatter;
		struct wnn_rnn_attrs rnn;
		struct wnn_pad_attrs pad;
		struct wnn_prelu_attrs prelu;
		struct wnn_reduce_attrs reduce;
		struct wnn_norm_attrs norm;
		struct wnn_resample_attrs resample;
		struct wnn_reverse_attrs reverse;
		struct wnn_slice_attrs slice;
		struct wnn_split_attrs split;
		struct wnn_triangular_attrs triangular;
		struct wnn_where_attrs where;
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
/* Data movement and selection: cast, expand, tile, gather*, scatter*, pad, reverse, slice,
 * split, triangular, where, prelu (ref_data.c). */
enum webnn_status ref_prepare_data(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct ref_step *s, struct wnn_diag *diag);
/* Reductions along axes: argMin/argMax, cumulativeSum, reduce*, instance/layerNormalization
 * (ref_reduce.c). */
enum webnn_status ref_prepare_reduce(const Webnn__Ipc__Operation *op,
				     const struct wnn_desc *descs, size_t n_descs,
				     struct ref_step *s, struct wnn_diag *diag);
/* convTranspose2d, resample2d, quantizeLinear/dequantizeLinear (ref_nn.c). */
enum webnn_status ref_prepare_nn(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct ref_step *s, struct wnn_diag *diag);
/* gru, gruCell, lstm, lstmCell (ref_rnn.c). */
enum webnn_status ref_prepare_rnn(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				  size_t n_descs, struct ref_step *s, struct wnn_diag *diag);
/* The common tail of every ref_prepare_*: NOT_SUPPORTED naming op and type when the reference
 * backend cannot run op on data type t. */
enum webnn_status ref_check_supported(enum wnn_op op, enum wnn_dtype t, struct wnn_diag *diag);
/* Exact integer power with wrap-around (ref_elementwise.c). */
__int128 ref_ipow_s(__int128 a, __int128 b);
uint64_t ref_ipow_u(uint64_t a, uint64_t b);

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

/* Integer types only: v truncated toward zero and saturated into the range of t, NaN -> 0
 * (float -> integer casts). */
static inline void ref_store_sat(void *p, enum wnn_dtype t, uint64_t i, double v)
{
	__int128 lo, hi;
	switch (t) {
	case WNN_I8: lo = INT8_MIN, hi = INT8_MAX; break;
	case WNN_U8: lo = 0, hi = UINT8_MAX; break;
	case WNN_I32: lo = INT32_MIN, hi = INT32_MAX; break;
	case WNN_U32: lo = 0, hi = UINT32_MAX; break;
	case WNN_I64: lo = INT64_MIN, hi = INT64_MAX; break;
	case WNN_U64: lo = 0, hi = UINT64_MAX; break;
	default: return;
	}
	__int128 r;
	if (v != v)
		r = 0;
	else if (v <= (double)lo)
		r = lo;
	else if (v >= (double)hi) /* 2^63 / 2^64 as doubles: >= catches the rounding */
		r = hi;
	else
		r = (__int128)v;
	ref_store_i(p, t, i, r);
}

#endif
