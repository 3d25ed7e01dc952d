/* Host kernels: elementwise: ops.def BINARY/UNARY rows expanded from their expressions, clamp, prelu, where. */
#include <math.h>

#include "daemon/backend/host/kernels.h"

typedef double (*ref_ffn)(double a, double b, double x, double alpha, double beta);
typedef __int128 (*ref_sfn)(__int128 a, __int128 b, __int128 x);
typedef uint64_t (*ref_ufn)(uint64_t a, uint64_t b, uint64_t x);

/* One function per row and numeric domain with a signature wide enough for any expression
 * column (binary rows use a, b; unary rows x, alpha, beta; other families are the constant 0).
 * Signed integers are computed in __int128 so that e.g. INT64_MIN / -1 or -INT64_MIN cannot
 * trap or overflow; the store wraps to the storage type. Unsigned expressions such as
 * (x < 0 ? -x : x) are generated for every row even though ops.def never allows unsigned types
 * for them, hence the type-limits pragma. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define X(ENUM, name, id, FAMILY, ATTRS, DTYPES, OUT, DEFAULTS, FEXPR, IEXPR)                                    \
	static double ref_f_##ENUM(double a, double b, double x, double alpha, double beta)     \
	{                                                                                      \
		return (double)(FEXPR);                                                        \
	}                                                                                      \
	static __int128 ref_s_##ENUM(__int128 a, __int128 b, __int128 x)                       \
	{                                                                                      \
		return (__int128)(IEXPR);                                                      \
	}                                                                                      \
	static uint64_t ref_u_##ENUM(uint64_t a, uint64_t b, uint64_t x)                       \
	{                                                                                      \
		return (uint64_t)(IEXPR);                                                      \
	}
#include "proto/ops.def"
#undef X
#pragma GCC diagnostic pop

static const ref_ffn ref_f[WNN_OP_COUNT] = {
#define X(ENUM, name, id, FAMILY, ATTRS, DTYPES, OUT, DEFAULTS, FEXPR, IEXPR) [WNN_OP_##ENUM] = ref_f_##ENUM,
#include "proto/ops.def"
#undef X
};
static const ref_sfn ref_s[WNN_OP_COUNT] = {
#define X(ENUM, name, id, FAMILY, ATTRS, DTYPES, OUT, DEFAULTS, FEXPR, IEXPR) [WNN_OP_##ENUM] = ref_s_##ENUM,
#include "proto/ops.def"
#undef X
};
static const ref_ufn ref_u[WNN_OP_COUNT] = {
#define X(ENUM, name, id, FAMILY, ATTRS, DTYPES, OUT, DEFAULTS, FEXPR, IEXPR) [WNN_OP_##ENUM] = ref_u_##ENUM,
#include "proto/ops.def"
#undef X
};

/* Integer pow: exact a^b by repeated squaring in 64-bit unsigned arithmetic, which wraps
 * modulo 2^64 and so leaves the correct low bits for every storage type (the store truncates,
 * as integer mul does). A negative exponent gives the truncated value of 1 / a^|b|: 1 for
 * a = 1, +-1 for a = -1 (sign by parity), 0 otherwise (including a = 0, where the division
 * by zero maps to 0 as integer div does). */
uint64_t hk_ipow_u(uint64_t a, uint64_t b)
{
	uint64_t r = 1;
	while (b) {
		if (b & 1)
			r *= a;
		a *= a;
		b >>= 1;
	}
	return r;
}

__int128 hk_ipow_s(__int128 a, __int128 b)
{
	if (b < 0) {
		if (a == 1)
			return 1;
		if (a == -1)
			return (b & 1) ? -1 : 1;
		return 0;
	}
	/* operands come from at most 64-bit storage, so 0 <= b < 2^63 here */
	return (__int128)(int64_t)hk_ipow_u((uint64_t)(unsigned __int128)a, (uint64_t)b);
}

/* Comparison and logical outputs are uint8 0/1 whatever the input domain. */
static void store_result_f(void *o, enum wnn_dtype t, uint64_t i, double v)
{
	if (hk_is_float(t))
		hk_store_f(o, t, i, v);
	else
		hk_store_i(o, t, i, (__int128)v);
}

static enum webnn_status run_binary(const struct hk_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_binary_attrs *p = &s->a->binary;
	const struct wnn_bcast *bc = &p->bc;
	const void *A = bufs[p->a], *B = bufs[p->b];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t i = 0; i < bc->count; i++) {
		if (hk_poll(s, i))
			return hk_cancel_status(s, diag);
		uint64_t ia = bc->same_shape[0] ? i : wnn_shape_offset(bc->rank, bc->dims, bc->strides[0], i);
		uint64_t ib = bc->same_shape[1] ? i : wnn_shape_offset(bc->rank, bc->dims, bc->strides[1], i);
		if (hk_is_float(p->type)) {
			double r = ref_f[p->op](hk_load_f(A, p->type, ia), hk_load_f(B, p->type, ib),
						0, 0, 0);
			store_result_f(O, p->out_type, i, r);
		} else if (p->op == WNN_OP_POW) {
			if (hk_is_signed_int(p->type))
				hk_store_i(O, p->out_type, i,
					   hk_ipow_s(hk_load_i(A, p->type, ia),
						     hk_load_i(B, p->type, ib)));
			else
				hk_store_i(O, p->out_type, i,
					   hk_ipow_u(hk_load_u(A, p->type, ia),
						     hk_load_u(B, p->type, ib)));
		} else if (hk_is_signed_int(p->type)) {
			hk_store_i(O, p->out_type, i,
				   ref_s[p->op](hk_load_i(A, p->type, ia), hk_load_i(B, p->type, ib), 0));
		} else {
			hk_store_i(O, p->out_type, i,
				   ref_u[p->op](hk_load_u(A, p->type, ia), hk_load_u(B, p->type, ib), 0));
		}
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_unary(const struct hk_step *s, void *const *bufs,
				   struct wnn_diag *diag)
{
	const struct wnn_unary_attrs *p = &s->a->unary;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t i = 0; i < p->count; i++) {
		if (hk_poll(s, i))
			return hk_cancel_status(s, diag);
		if (hk_is_float(p->type))
			store_result_f(O, p->out_type, i,
				       ref_f[p->op](0, 0, hk_load_f(I, p->type, i), p->alpha, p->beta));
		else if (hk_is_signed_int(p->type))
			hk_store_i(O, p->out_type, i, ref_s[p->op](0, 0, hk_load_i(I, p->type, i)));
		else
			hk_store_i(O, p->out_type, i, ref_u[p->op](0, 0, hk_load_u(I, p->type, i)));
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_clamp(const struct hk_step *s, void *const *bufs,
				   struct wnn_diag *diag)
{
	const struct wnn_clamp_attrs *p = &s->a->clamp;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t i = 0; i < p->count; i++) {
		if (hk_poll(s, i))
			return hk_cancel_status(s, diag);
		if (hk_is_float(p->type)) {
			double x = hk_load_f(I, p->type, i);
			hk_store_f(O, p->type, i, x < p->min ? p->min : x > p->max ? p->max : x);
		} else if (hk_is_signed_int(p->type)) {
			__int128 x = hk_load_i(I, p->type, i);
			hk_store_i(O, p->type, i, x < p->min_i ? p->min_i : x > p->max_i ? p->max_i : x);
		} else {
			uint64_t x = hk_load_u(I, p->type, i);
			hk_store_i(O, p->type, i, x < p->min_u ? p->min_u : x > p->max_u ? p->max_u : x);
		}
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_where(const struct hk_step *s, void *const *bufs,
				   struct wnn_diag *diag)
{
	const struct wnn_where_attrs *p = &s->a->where;
	const struct wnn_bcast *bc = &p->bc;
	const uint8_t *C = bufs[p->condition];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t i = 0; i < bc->count; i++) {
		if (hk_poll(s, i))
			return hk_cancel_status(s, diag);
		uint64_t ic = wnn_shape_offset(bc->rank, bc->dims, bc->strides[0], i);
		int k = C[ic] ? 1 : 2;
		uint32_t src = k == 1 ? p->true_value : p->false_value;
		hk_copy_elem(bufs[p->output], i, bufs[src],
			  wnn_shape_offset(bc->rank, bc->dims, bc->strides[k], i), es);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_prelu(const struct hk_step *s, void *const *bufs,
				   struct wnn_diag *diag)
{
	const struct wnn_prelu_attrs *p = &s->a->prelu;
	const struct wnn_bcast *bc = &p->bc;
	const void *I = bufs[p->input], *S = bufs[p->slope];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t i = 0; i < bc->count; i++) {
		if (hk_poll(s, i))
			return hk_cancel_status(s, diag);
		uint64_t ii = wnn_shape_offset(bc->rank, bc->dims, bc->strides[0], i);
		uint64_t is = wnn_shape_offset(bc->rank, bc->dims, bc->strides[1], i);
		if (hk_is_float(p->type)) {
			double x = hk_load_f(I, p->type, ii);
			hk_store_f(O, p->type, i, x >= 0 ? x : hk_load_f(S, p->type, is) * x);
		} else {
			__int128 x = hk_load_i(I, p->type, ii);
			hk_store_i(O, p->type, i, x >= 0 ? x : hk_load_i(S, p->type, is) * x);
		}
	}
	return WEBNN_STATUS_OK;
}

/* Every elementwise row but clamp, prelu and where is an ops.def expression; integer pow is a
 * loop rather than an expression. */
bool hk_elementwise_supports(enum wnn_op op, enum wnn_dtype type)
{
	if (op == WNN_OP_CLAMP || op == WNN_OP_PRELU || op == WNN_OP_WHERE || op == WNN_OP_POW)
		return true;
	return hk_is_float(type) ? wnn_ops[op].has_float_expr : wnn_ops[op].has_int_expr;
}

enum webnn_status hk_elementwise_prepare(const struct graph_node *n, struct hk_step *s,
					 struct wnn_diag *diag)
{
	switch (n->op) {
	case WNN_OP_CLAMP:
		s->run = run_clamp;
		return hk_check_supported(n->op, n->attrs.clamp.type, diag);
	case WNN_OP_PRELU:
		s->run = run_prelu;
		return hk_check_supported(n->op, n->attrs.prelu.type, diag);
	case WNN_OP_WHERE: /* supported by the type of its first input, the condition */
		s->run = run_where;
		return hk_check_supported(n->op, WNN_U8, diag);
	default:
		break;
	}
	/* the expression rows: binary ones read two operands, unary ones one */
	if (n->n_inputs == 2) {
		s->run = run_binary;
		return hk_check_supported(n->op, n->attrs.binary.type, diag);
	}
	s->run = run_unary;
	return hk_check_supported(n->op, n->attrs.unary.type, diag);
}
