/* The host kernels: plain C kernels of every operator on host memory, one step per node, with typed element access; the reference backend is plans of these steps, the cpu backend falls back to them and the daemon folds constants with them. */
#ifndef DAEMON_BACKEND_HOST_KERNELS_H
#define DAEMON_BACKEND_HOST_KERNELS_H

#include <string.h>

#include "daemon/backend/backend.h"
#include "proto/resolve.h"

struct hk_step;
/* bufs[v] is the host memory of value v for this run (inputs, constants, outputs,
 * intermediates); kernels read their inputs and write their outputs there. */
typedef enum webnn_status (*hk_kernel)(const struct hk_step *s, void *const *bufs,
				       struct wnn_diag *diag);

/* One live node of the graph, ready to run: its kernel and its resolved attributes (the
 * node's own, which outlive the plan; value ids in them index bufs and descs). */
struct hk_step {
	enum wnn_op op;
	hk_kernel run;
	const union wnn_attrs *a;
	const struct wnn_desc *descs; /* per value, for kernels that need more than attrs */
	const atomic_bool *cancel;    /* the run's (NULL: never): long kernels poll it */
};

/* Whether the run was cancelled (the context lost or closed, the build abandoned): kernels whose
 * loops may run long poll it between rows and return hk_cancel_status() (CONTEXT_LOST, as
 * cancelled work always does; its result is discarded). A relaxed load: polling it once per
 * row costs nothing beside the row. */
static inline bool hk_cancelled(const struct hk_step *s)
{
	return backend_cancelled(s->cancel);
}

/* hk_cancelled every 64th iteration of a loop (i: its index), for loops over elements;
 * loops whose every iteration is long (a row, a reduction) call hk_cancelled itself. */
static inline bool hk_poll(const struct hk_step *s, uint64_t i)
{
	return (i & 63) == 0 && hk_cancelled(s);
}

static inline enum webnn_status hk_cancel_status(const struct hk_step *s,
						 struct wnn_diag *diag)
{
	return backend_cancelled_status(diag, wnn_ops[s->op].name);
}

/* Picks the kernel of a node of the family and checks that the host kernels run it on its
 * data types (NOT_SUPPORTED otherwise). s->op, s->a and s->descs are set by the caller.
 * One per ops.def family, in kernels_<family>.c; kernels.c dispatches through a table. */
#define HK_FAMILY_PREPARE_(E, name)                                                           \
	enum webnn_status hk_##name##_prepare(const struct graph_node *n, struct hk_step *s,  \
					      struct wnn_diag *diag);
WNN_FAMILIES(HK_FAMILY_PREPARE_)
#undef HK_FAMILY_PREPARE_

/* The kernel of node n (s filled; descs per value id; its runs stop early once *cancel is set,
 * NULL: never). The reference backend runs nothing else; the cpu backend runs these for the
 * operators and types it has no fast kernel for. */
enum webnn_status hk_step_prepare(const struct graph_node *n, const struct wnn_desc *descs,
				  const atomic_bool *cancel, struct hk_step *s,
				  struct wnn_diag *diag);
bool hk_supports(enum wnn_op op, enum wnn_dtype type);
/* Whether an elementwise row has a kernel for the type: ops.def expressions exist per
 * numeric domain (kernels_elementwise.c). */
bool hk_elementwise_supports(enum wnn_op op, enum wnn_dtype type);
/* The common tail of every hk_<family>_prepare: NOT_SUPPORTED naming op and type when the
 * host kernels cannot run op on data type t (the message names the reference backend, whose
 * answer it is). */
enum webnn_status hk_check_supported(enum wnn_op op, enum wnn_dtype t, struct wnn_diag *diag);
/* Exact integer power with wrap-around (kernels_elementwise.c). */
__int128 hk_ipow_s(__int128 a, __int128 b);
uint64_t hk_ipow_u(uint64_t a, uint64_t b);

/* ---- typed element access. Floats go through double (float16 stored as half), signed
 * integers through __int128 and unsigned through uint64_t, so every value is exact and integer
 * arithmetic wraps on the store instead of overflowing. */

/* Element copies by size, for kernels that move whole elements whatever their type. */
static inline void hk_copy_elem(uint8_t *dst, uint64_t di, const uint8_t *src, uint64_t si,
				size_t es)
{
	memcpy(dst + di * es, src + si * es, es);
}

static inline bool hk_is_float(enum wnn_dtype t)
{
	return t == WNN_F32 || t == WNN_F16;
}

static inline bool hk_is_signed_int(enum wnn_dtype t)
{
	return t == WNN_I32 || t == WNN_I64 || t == WNN_I8 || t == WNN_I4;
}

static inline double hk_load_f(const void *p, enum wnn_dtype t, uint64_t i)
{
	if (t == WNN_F16)
		return wnn_f16_to_f32(((const uint16_t *)p)[i]);
	return ((const float *)p)[i];
}

static inline void hk_store_f(void *p, enum wnn_dtype t, uint64_t i, double v)
{
	if (t == WNN_F16)
		((uint16_t *)p)[i] = wnn_f32_to_f16((float)v);
	else
		((float *)p)[i] = (float)v;
}

static inline __int128 hk_load_i(const void *p, enum wnn_dtype t, uint64_t i)
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
	case WNN_I4:
	case WNN_U4:
		return wnn_nibble_get(p, i, t);
	default:
		return 0;
	}
}

static inline uint64_t hk_load_u(const void *p, enum wnn_dtype t, uint64_t i)
{
	return (uint64_t)hk_load_i(p, t, i);
}

/* Stores the low bits (two's complement wrap, like a device would). */
static inline void hk_store_i(void *p, enum wnn_dtype t, uint64_t i, __int128 v)
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
	case WNN_I4:
	case WNN_U4: /* packed: read-modify-write of the byte, so one writer per byte */
		wnn_nibble_set(p, i, (int64_t)u);
		break;
	default:
		break;
	}
}

/* Integer types only: v truncated toward zero and saturated into the range of t, NaN -> 0
 * (float -> integer casts). */
static inline void hk_store_sat(void *p, enum wnn_dtype t, uint64_t i, double v)
{
	__int128 lo, hi;
	switch (t) {
	case WNN_I8: lo = INT8_MIN, hi = INT8_MAX; break;
	case WNN_U8: lo = 0, hi = UINT8_MAX; break;
	case WNN_I32: lo = INT32_MIN, hi = INT32_MAX; break;
	case WNN_U32: lo = 0, hi = UINT32_MAX; break;
	case WNN_I64: lo = INT64_MIN, hi = INT64_MAX; break;
	case WNN_U64: lo = 0, hi = UINT64_MAX; break;
	case WNN_I4: lo = -8, hi = 7; break;
	case WNN_U4: lo = 0, hi = 15; break;
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
	hk_store_i(p, t, i, r);
}

/* The host kernels on one node (a backend_host_evaluator: the registry's constant folder
 * for backends without an evaluate hook). */
enum webnn_status hk_evaluate(const struct graph_node *n, const struct graph_value *values,
			      const void *const *inputs, void *const *outputs,
			      const atomic_bool *cancel, struct wnn_diag *diag);

#endif
