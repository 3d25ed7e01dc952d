/* Host kernels: reductions: argMin/argMax, cumulativeSum, the reduce* family. */
#include <math.h>

#include "daemon/backend/host/kernels.h"

/* argMin/argMax: the first extreme wins ties; NaN never wins (a NaN-only line gives 0). */
static enum webnn_status run_arg(const struct hk_step *s, void *const *bufs,
				 struct wnn_diag *diag)
{
	const struct wnn_arg_attrs *p = &s->a->arg;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	bool want_max = p->op == WNN_OP_ARG_MAX;
	(void)diag;
	for (uint64_t o = 0; o < p->outer; o++)
		for (uint64_t in = 0; in < p->inner; in++) {
			if (hk_cancelled(s))
				return hk_cancel_status(s, diag);
			uint64_t base = o * p->axis_size * p->inner + in, best = 0;
			bool have = false;
			double bf = 0;
			__int128 bi = 0;
			for (uint64_t a = 0; a < p->axis_size; a++) {
				uint64_t i = base + a * p->inner;
				bool better;
				if (hk_is_float(p->type)) {
					double v = hk_load_f(I, p->type, i);
					if (isnan(v))
						continue;
					better = !have || (want_max ? v > bf : v < bf);
					if (better)
						bf = v;
				} else {
					__int128 v = hk_load_i(I, p->type, i);
					better = !have || (want_max ? v > bi : v < bi);
					if (better)
						bi = v;
				}
				if (better)
					best = a, have = true;
			}
			hk_store_i(O, p->out_type, o * p->inner + in, (__int128)best);
		}
	return WEBNN_STATUS_OK;
}

/* Integers accumulate modulo 2^64 (the store truncates), floats in double. */
static enum webnn_status run_cumsum(const struct hk_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_cumsum_attrs *p = &s->a->cumsum;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	bool flt = hk_is_float(p->type);
	(void)diag;
	for (uint64_t o = 0; o < p->outer; o++)
		for (uint64_t in = 0; in < p->inner; in++) {
			if (hk_cancelled(s))
				return hk_cancel_status(s, diag);
			uint64_t base = o * p->axis_size * p->inner + in;
			double sf = 0;
			uint64_t su = 0;
			for (uint64_t step = 0; step < p->axis_size; step++) {
				uint64_t a = p->reversed ? p->axis_size - 1 - step : step;
				uint64_t i = base + a * p->inner;
				double vf = flt ? hk_load_f(I, p->type, i) : 0;
				uint64_t vu = flt ? 0 : hk_load_u(I, p->type, i);
				if (!p->exclusive)
					sf += vf, su += vu;
				if (flt)
					hk_store_f(O, p->type, i, sf);
				else
					hk_store_i(O, p->type, i, (__int128)su);
				if (p->exclusive)
					sf += vf, su += vu;
			}
		}
	return WEBNN_STATUS_OK;
}

static double reduce_float(enum wnn_op op, const void *I, enum wnn_dtype t,
			   const struct wnn_reduction *r, uint64_t kept_off)
{
	double acc;
	switch (op) {
	case WNN_OP_REDUCE_MAX:
		acc = -INFINITY;
		break;
	case WNN_OP_REDUCE_MIN:
		acc = INFINITY;
		break;
	case WNN_OP_REDUCE_PRODUCT:
		acc = 1;
		break;
	default:
		acc = 0;
		break;
	}
	double mx = -INFINITY;
	if (op == WNN_OP_REDUCE_LOG_SUM_EXP) /* subtract the max so exp cannot overflow */
		for (uint64_t k = 0; k < r->red_count; k++) {
			double v = hk_load_f(I, t, kept_off + wnn_shape_offset(r->red_rank, r->red_dims,
									 r->red_strides, k));
			if (v > mx || isnan(v))
				mx = v;
		}
	for (uint64_t k = 0; k < r->red_count; k++) {
		double v = hk_load_f(I, t, kept_off + wnn_shape_offset(r->red_rank, r->red_dims,
								 r->red_strides, k));
		switch (op) {
		case WNN_OP_REDUCE_L1:
			acc += fabs(v);
			break;
		case WNN_OP_REDUCE_L2:
		case WNN_OP_REDUCE_SUM_SQUARE:
			acc += v * v;
			break;
		case WNN_OP_REDUCE_LOG_SUM_EXP:
			acc += isinf(mx) ? exp(v) : exp(v - mx);
			break;
		case WNN_OP_REDUCE_MAX:
			acc = isnan(v) || v > acc ? v : acc;
			break;
		case WNN_OP_REDUCE_MIN:
			acc = isnan(v) || v < acc ? v : acc;
			break;
		case WNN_OP_REDUCE_PRODUCT:
			acc *= v;
			break;
		default: /* sum, mean, logSum */
			acc += v;
			break;
		}
		if (isnan(acc) && (op == WNN_OP_REDUCE_MAX || op == WNN_OP_REDUCE_MIN))
			break;
	}
	switch (op) {
	case WNN_OP_REDUCE_L2:
		return sqrt(acc);
	case WNN_OP_REDUCE_LOG_SUM:
		return log(acc);
	case WNN_OP_REDUCE_LOG_SUM_EXP:
		return isinf(mx) ? log(acc) : log(acc) + mx;
	case WNN_OP_REDUCE_MEAN:
		return acc / (double)r->red_count;
	default:
		return acc;
	}
}

/* Integer reductions: sums and products modulo 2^64 (the low bits of the exact result, which
 * is what the store keeps); max/min compare exact values. */
static __int128 reduce_int(enum wnn_op op, const void *I, enum wnn_dtype t,
			   const struct wnn_reduction *r, uint64_t kept_off)
{
	bool sgn = hk_is_signed_int(t);
	uint64_t acc = op == WNN_OP_REDUCE_PRODUCT ? 1 : 0;
	__int128 ext = 0;
	for (uint64_t k = 0; k < r->red_count; k++) {
		__int128 v = hk_load_i(I, t, kept_off + wnn_shape_offset(r->red_rank, r->red_dims,
								       r->red_strides, k));
		uint64_t u = (uint64_t)(unsigned __int128)v;
		switch (op) {
		case WNN_OP_REDUCE_L1:
			acc += sgn && v < 0 ? (uint64_t)(unsigned __int128)(-v) : u;
			break;
		case WNN_OP_REDUCE_SUM_SQUARE:
			acc += u * u;
			break;
		case WNN_OP_REDUCE_PRODUCT:
			acc *= u;
			break;
		case WNN_OP_REDUCE_MAX:
			ext = k == 0 || v > ext ? v : ext;
			break;
		case WNN_OP_REDUCE_MIN:
			ext = k == 0 || v < ext ? v : ext;
			break;
		default:
			acc += u;
			break;
		}
	}
	if (op == WNN_OP_REDUCE_MAX || op == WNN_OP_REDUCE_MIN)
		return ext;
	return (__int128)acc;
}

static enum webnn_status run_reduce(const struct hk_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_reduce_attrs *p = &s->a->reduce;
	const struct wnn_reduction *r = &p->r;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t k = 0; k < r->kept_count; k++) {
		if (hk_cancelled(s))
			return hk_cancel_status(s, diag);
		uint64_t off = wnn_shape_offset(r->kept_rank, r->kept_dims, r->kept_strides, k);
		if (hk_is_float(p->type))
			hk_store_f(O, p->type, k, reduce_float(p->op, I, p->type, r, off));
		else
			hk_store_i(O, p->type, k, reduce_int(p->op, I, p->type, r, off));
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status hk_reduce_prepare(const struct graph_node *n, struct hk_step *s,
				    struct wnn_diag *diag)
{
	switch (n->op) {
	case WNN_OP_ARG_MIN:
	case WNN_OP_ARG_MAX:
		s->run = run_arg;
		return hk_check_supported(n->op, n->attrs.arg.type, diag);
	case WNN_OP_CUMULATIVE_SUM:
		s->run = run_cumsum;
		return hk_check_supported(n->op, n->attrs.cumsum.type, diag);
	default:
		s->run = run_reduce;
		return hk_check_supported(n->op, n->attrs.reduce.type, diag);
	}
}
