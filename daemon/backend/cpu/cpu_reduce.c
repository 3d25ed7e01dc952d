/* The cpu backend's reduce family: reduce*, argMin/argMax and cumulativeSum as threaded C loops over [outer, axis, inner] views. */
#include <math.h>
#include <stdlib.h>

#include "daemon/backend/cpu/cpu.h"

/* cpu_normalization.c: runs the float32 kernel prepared in s on float32 copies of the node's
 * float16 operands (its declaration belongs in cpu.h). */

/*
 * Why C and not oneDNN's reduction: oneDNN 2.6's max/min drop NaN (the spec propagates it), it
 * has no logSumExp, and its jit reduction covers only some shapes (the rest is its slow
 * reference). Every reduction here is memory bound; a contiguous inner loop per row (reduced
 * axes innermost) or per column block (kept axes innermost, e.g. NHWC spatial means) reads the
 * input once at full bandwidth.
 */

#define CPU_COL_BLOCK 256 /* kept elements per task in the column form (1 KiB of floats) */

/* The [A, R, B] view (see struct cpu_axes) of a reduction. */
static bool cpu_axes_view(const struct wnn_reduction *r, struct cpu_axes *v)
{
	uint64_t prev = 0;
	bool any = false;
	for (uint32_t i = 0; i < r->red_rank; i++) {
		if (r->red_dims[i] == 1)
			continue;
		if (any && r->red_strides[i] * r->red_dims[i] != prev)
			return false;
		prev = r->red_strides[i];
		any = true;
	}
	v->B = any ? prev : 1;
	v->R = r->red_count;
	if (v->B == 0 || r->kept_count % v->B != 0)
		return false;
	v->A = r->kept_count / v->B;
	return true;
}

struct cpu_axes *cpu_axes_new(const struct wnn_reduction *r, bool gather, bool *oom)
{
	struct cpu_axes v = { 0 };
	*oom = false;
	bool view = cpu_axes_view(r, &v);
	if (!view && (!gather || r->red_count > CPU_GATHER_MAX))
		return NULL;
	struct cpu_axes *a = malloc(sizeof *a);
	if (a && !view) {
		v.R = r->red_count;
		v.roff = malloc(v.R * sizeof *v.roff);
		for (uint64_t j = 0; v.roff && j < v.R; j++)
			v.roff[j] = wnn_shape_offset(r->red_rank, r->red_dims, r->red_strides, j);
	}
	if (!a || (!view && !v.roff)) {
		free(a);
		*oom = true;
		return NULL;
	}
	*a = v;
	return a;
}

void cpu_axes_free(void *axes)
{
	struct cpu_axes *a = axes;
	if (a)
		free(a->roff);
	free(a);
}

/* ---- reduce* on float32 */

static float cpu_row_reduce(enum wnn_op op, const float *restrict x, uint64_t R)
{
	float acc = 0;
	switch (op) {
	case WNN_OP_REDUCE_MAX:
	case WNN_OP_REDUCE_MIN: {
		bool mx = op == WNN_OP_REDUCE_MAX;
		float m = mx ? -INFINITY : INFINITY;
		int nan = 0;
		if (mx) {
#pragma omp simd reduction(max : m) reduction(| : nan)
			for (uint64_t i = 0; i < R; i++) {
				m = x[i] > m ? x[i] : m;
				nan |= x[i] != x[i];
			}
		} else {
#pragma omp simd reduction(min : m) reduction(| : nan)
			for (uint64_t i = 0; i < R; i++) {
				m = x[i] < m ? x[i] : m;
				nan |= x[i] != x[i];
			}
		}
		return nan ? NAN : m;
	}
	case WNN_OP_REDUCE_PRODUCT: {
		float p = 1;
#pragma omp simd reduction(* : p)
		for (uint64_t i = 0; i < R; i++)
			p *= x[i];
		return p;
	}
	case WNN_OP_REDUCE_L1:
#pragma omp simd reduction(+ : acc)
		for (uint64_t i = 0; i < R; i++)
			acc += fabsf(x[i]);
		return acc;
	case WNN_OP_REDUCE_L2:
	case WNN_OP_REDUCE_SUM_SQUARE:
#pragma omp simd reduction(+ : acc)
		for (uint64_t i = 0; i < R; i++)
			acc += x[i] * x[i];
		return op == WNN_OP_REDUCE_L2 ? sqrtf(acc) : acc;
	case WNN_OP_REDUCE_LOG_SUM_EXP: {
		float m = -INFINITY;
		int nan = 0;
#pragma omp simd reduction(max : m) reduction(| : nan)
		for (uint64_t i = 0; i < R; i++) {
			m = x[i] > m ? x[i] : m;
			nan |= x[i] != x[i];
		}
		if (nan)
			return NAN;
		float sub = isinf(m) ? 0 : m;
		for (uint64_t i = 0; i < R; i++)
			acc += expf(x[i] - sub);
		return logf(acc) + sub;
	}
	default: /* sum, mean, logSum */
#pragma omp simd reduction(+ : acc)
		for (uint64_t i = 0; i < R; i++)
			acc += x[i];
		if (op == WNN_OP_REDUCE_MEAN)
			return acc / (float)R;
		if (op == WNN_OP_REDUCE_LOG_SUM)
			return logf(acc);
		return acc;
	}
}

/* o[b] for b < nb reduces x[r * B + b] over r (o is the output row, used as accumulator). */
static void cpu_col_reduce(enum wnn_op op, const float *restrict x, float *restrict o, uint64_t R,
			   uint64_t B, uint64_t nb)
{
	float init = op == WNN_OP_REDUCE_MAX	       ? -INFINITY
		     : op == WNN_OP_REDUCE_MIN	       ? INFINITY
		     : op == WNN_OP_REDUCE_PRODUCT ? 1
						   : 0;
	if (op == WNN_OP_REDUCE_LOG_SUM_EXP) {
		for (uint64_t b = 0; b < nb; b++) {
			float m = -INFINITY;
			bool nan = false;
			for (uint64_t r = 0; r < R; r++) {
				float v = x[r * B + b];
				m = v > m ? v : m;
				nan |= v != v;
			}
			float sub = isinf(m) ? 0 : m, acc = 0;
			for (uint64_t r = 0; r < R && !nan; r++)
				acc += expf(x[r * B + b] - sub);
			o[b] = nan ? NAN : logf(acc) + sub;
		}
		return;
	}
	for (uint64_t b = 0; b < nb; b++)
		o[b] = init;
	for (uint64_t r = 0; r < R; r++) {
		const float *restrict xr = x + r * B;
		switch (op) {
		case WNN_OP_REDUCE_MAX:
#pragma omp simd
			for (uint64_t b = 0; b < nb; b++)
				o[b] = xr[b] > o[b] || xr[b] != xr[b] ? xr[b] : o[b];
			break;
		case WNN_OP_REDUCE_MIN:
#pragma omp simd
			for (uint64_t b = 0; b < nb; b++)
				o[b] = xr[b] < o[b] || xr[b] != xr[b] ? xr[b] : o[b];
			break;
		case WNN_OP_REDUCE_PRODUCT:
#pragma omp simd
			for (uint64_t b = 0; b < nb; b++)
				o[b] *= xr[b];
			break;
		case WNN_OP_REDUCE_L1:
#pragma omp simd
			for (uint64_t b = 0; b < nb; b++)
				o[b] += fabsf(xr[b]);
			break;
		case WNN_OP_REDUCE_L2:
		case WNN_OP_REDUCE_SUM_SQUARE:
#pragma omp simd
			for (uint64_t b = 0; b < nb; b++)
				o[b] += xr[b] * xr[b];
			break;
		default:
#pragma omp simd
			for (uint64_t b = 0; b < nb; b++)
				o[b] += xr[b];
			break;
		}
	}
	switch (op) {
	case WNN_OP_REDUCE_MEAN:
		for (uint64_t b = 0; b < nb; b++)
			o[b] /= (float)R;
		break;
	case WNN_OP_REDUCE_L2:
		for (uint64_t b = 0; b < nb; b++)
			o[b] = sqrtf(o[b]);
		break;
	case WNN_OP_REDUCE_LOG_SUM:
		for (uint64_t b = 0; b < nb; b++)
			o[b] = logf(o[b]);
		break;
	default:
		break;
	}
}

/* Any axes (not consecutive, or out of order): each kept index's elements are gathered
 * through a table of the reduced offsets into a contiguous row, then reduced as a row. */

static enum webnn_status cpu_run_reduce_gather(const struct cpu_step *s, const float *I,
					       float *O, const struct cpu_exec *x,
					       struct wnn_diag *diag)
{
	const struct wnn_reduce_attrs *p = &s->n->attrs.reduce;
	const struct wnn_reduction *r = &p->r;
	const struct cpu_axes *v = s->priv;
	const uint64_t K = r->kept_count, R = v->R;
	bool oom = false;
#pragma omp parallel num_threads(x->threads) if (K * R > CPU_PAR_MIN && K > 1)
	{
		float *row = malloc(R * sizeof *row);
		if (!row) {
#pragma omp atomic write
			oom = true;
		}
#pragma omp for
		for (uint64_t k = 0; k < K; k++) {
			if (!row)
				continue;
			const float *base =
				I + wnn_shape_offset(r->kept_rank, r->kept_dims, r->kept_strides, k);
			for (uint64_t j = 0; j < R; j++)
				row[j] = base[v->roff[j]];
			O[k] = cpu_row_reduce(p->op, row, R);
		}
		free(row);
	}
	if (oom)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    wnn_ops[p->op].name);
	return WEBNN_STATUS_OK;
}

static enum webnn_status cpu_run_reduce(const struct cpu_step *s, void *const *bufs,
					const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_reduce_attrs *p = &s->n->attrs.reduce;
	const struct cpu_axes *v = s->priv;
	const float *I = bufs[p->input];
	float *O = bufs[p->output];
	const uint64_t A = v->A, R = v->R, B = v->B;
	const enum wnn_op op = p->op;
	if (v->roff)
		return cpu_run_reduce_gather(s, I, O, x, diag);
	/* no parallel region when it would have one thread: even one whose if() is false costs
	 * libgomp about 1.5 us (see ew_run), more than a layer norm's reduceMean of 128 values */
	const uint64_t nblk = B == 1 ? 1 : (B + CPU_COL_BLOCK - 1) / CPU_COL_BLOCK;
	const bool team = x->threads > 1 && A * R * B > CPU_PAR_MIN && A * nblk > 1;
	if (B == 1 && !team) {
		for (uint64_t a = 0; a < A && !cpu_cancelled(x); a++)
			O[a] = cpu_row_reduce(op, I + a * R, R);
		return WEBNN_STATUS_OK;
	}
	if (B == 1) {
#pragma omp parallel for num_threads(x->threads)
		for (uint64_t a = 0; a < A; a++) {
			if (cpu_cancelled(x))
				continue;
			O[a] = cpu_row_reduce(op, I + a * R, R);
		}
		return WEBNN_STATUS_OK;
	}
	if (!team) {
		for (uint64_t t = 0; t < A * nblk && !cpu_cancelled(x); t++) {
			uint64_t a = t / nblk, b0 = (t % nblk) * CPU_COL_BLOCK;
			uint64_t nb = B - b0 < CPU_COL_BLOCK ? B - b0 : CPU_COL_BLOCK;
			cpu_col_reduce(op, I + a * R * B + b0, O + a * B + b0, R, B, nb);
		}
		return WEBNN_STATUS_OK;
	}
#pragma omp parallel for num_threads(x->threads)
	for (uint64_t t = 0; t < A * nblk; t++) {
		if (cpu_cancelled(x))
			continue;
		uint64_t a = t / nblk, b0 = (t % nblk) * CPU_COL_BLOCK;
		uint64_t nb = B - b0 < CPU_COL_BLOCK ? B - b0 : CPU_COL_BLOCK;
		cpu_col_reduce(op, I + a * R * B + b0, O + a * B + b0, R, B, nb);
	}
	return WEBNN_STATUS_OK;
}

/* ---- argMin / argMax on float32 (NaN never wins; ties keep the first index) */

static void cpu_store_index(void *O, enum wnn_dtype t, uint64_t i, uint64_t v)
{
	if (t == WNN_I64)
		((int64_t *)O)[i] = (int64_t)v;
	else
		((int32_t *)O)[i] = (int32_t)v;
}

static enum webnn_status cpu_run_arg(const struct cpu_step *s, void *const *bufs,
				     const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_arg_attrs *p = &s->n->attrs.arg;
	const float *I = bufs[p->input];
	void *O = bufs[p->output];
	const uint64_t outer = p->outer, K = p->axis_size, inner = p->inner;
	const bool want_max = p->op == WNN_OP_ARG_MAX;
	const uint64_t nblk = (inner + CPU_COL_BLOCK - 1) / CPU_COL_BLOCK;
	(void)diag;
#pragma omp parallel for num_threads(x->threads) if (outer * K * inner > CPU_PAR_MIN && outer * nblk > 1)
	for (uint64_t t = 0; t < outer * nblk; t++) {
		if (cpu_cancelled(x))
			continue;
		uint64_t o = t / nblk, b0 = (t % nblk) * CPU_COL_BLOCK;
		uint64_t nb = inner - b0 < CPU_COL_BLOCK ? inner - b0 : CPU_COL_BLOCK;
		const float *base = I + o * K * inner + b0;
		float best[CPU_COL_BLOCK];
		uint32_t idx[CPU_COL_BLOCK];
		for (uint64_t b = 0; b < nb; b++) {
			best[b] = NAN;
			idx[b] = 0;
		}
		for (uint64_t a = 0; a < K; a++) {
			const float *xr = base + a * inner;
			if (want_max) {
#pragma omp simd
				for (uint64_t b = 0; b < nb; b++) {
					bool take = xr[b] == xr[b] && (best[b] != best[b] || xr[b] > best[b]);
					best[b] = take ? xr[b] : best[b];
					idx[b] = take ? (uint32_t)a : idx[b];
				}
			} else {
#pragma omp simd
				for (uint64_t b = 0; b < nb; b++) {
					bool take = xr[b] == xr[b] && (best[b] != best[b] || xr[b] < best[b]);
					best[b] = take ? xr[b] : best[b];
					idx[b] = take ? (uint32_t)a : idx[b];
				}
			}
		}
		for (uint64_t b = 0; b < nb; b++)
			cpu_store_index(O, p->out_type, o * inner + b0 + b, idx[b]);
	}
	return WEBNN_STATUS_OK;
}

/* ---- integer types: sums, products, L1 and sumSquare modulo 2^64 (the low bits of the
 * exact result, as the reference keeps them), max/min/argMin/argMax exact; over the [A, R, B]
 * view only (other axes: the reference kernel). */

#define CPU_U64(v) ((uint64_t)(int64_t)(v)) /* sign-extended for signed types, as is otherwise */

#define CPU_INT_KERNELS(T, SGN, NAME)                                                          \
	static T NAME##_row(enum wnn_op op, const T *restrict x, uint64_t R)                   \
	{                                                                                      \
		uint64_t acc = op == WNN_OP_REDUCE_PRODUCT ? 1 : 0;                            \
		T ext = x[0];                                                                  \
		switch (op) {                                                                  \
		case WNN_OP_REDUCE_MAX:                                                        \
			for (uint64_t i = 1; i < R; i++)                                       \
				ext = x[i] > ext ? x[i] : ext;                                 \
			return ext;                                                            \
		case WNN_OP_REDUCE_MIN:                                                        \
			for (uint64_t i = 1; i < R; i++)                                       \
				ext = x[i] < ext ? x[i] : ext;                                 \
			return ext;                                                            \
		case WNN_OP_REDUCE_L1:                                                         \
			for (uint64_t i = 0; i < R; i++)                                       \
				acc += SGN && (int64_t)x[i] < 0 ? (uint64_t)0 - CPU_U64(x[i])  \
								 : CPU_U64(x[i]);              \
			break;                                                                 \
		case WNN_OP_REDUCE_SUM_SQUARE:                                                 \
			for (uint64_t i = 0; i < R; i++)                                       \
				acc += CPU_U64(x[i]) * CPU_U64(x[i]);                          \
			break;                                                                 \
		case WNN_OP_REDUCE_PRODUCT:                                                    \
			for (uint64_t i = 0; i < R; i++)                                       \
				acc *= CPU_U64(x[i]);                                          \
			break;                                                                 \
		default:                                                                       \
			for (uint64_t i = 0; i < R; i++)                                       \
				acc += CPU_U64(x[i]);                                          \
			break;                                                                 \
		}                                                                              \
		return (T)acc;                                                                 \
	}                                                                                      \
	static void NAME##_cols(enum wnn_op op, const T *restrict x, T *restrict o, uint64_t R, \
				uint64_t B, uint64_t nb)                                       \
	{                                                                                      \
		if (op == WNN_OP_REDUCE_MAX || op == WNN_OP_REDUCE_MIN) {                      \
			const bool mx = op == WNN_OP_REDUCE_MAX;                               \
			for (uint64_t b = 0; b < nb; b++)                                      \
				o[b] = x[b];                                                   \
			for (uint64_t r = 1; r < R; r++)                                       \
				for (uint64_t b = 0; b < nb; b++) {                            \
					T v = x[r * B + b];                                    \
					o[b] = (mx ? v > o[b] : v < o[b]) ? v : o[b];          \
				}                                                              \
			return;                                                                \
		}                                                                              \
		uint64_t acc[CPU_COL_BLOCK];                                                   \
		for (uint64_t b = 0; b < nb; b++)                                              \
			acc[b] = op == WNN_OP_REDUCE_PRODUCT ? 1 : 0;                          \
		for (uint64_t r = 0; r < R; r++) {                                             \
			const T *restrict xr = x + r * B;                                      \
			for (uint64_t b = 0; b < nb; b++) {                                    \
				uint64_t u = CPU_U64(xr[b]);                                   \
				switch (op) {                                                  \
				case WNN_OP_REDUCE_L1:                                         \
					acc[b] += SGN && (int64_t)xr[b] < 0 ? (uint64_t)0 - u  \
									    : u;       \
					break;                                                 \
				case WNN_OP_REDUCE_SUM_SQUARE:                                 \
					acc[b] += u * u;                                       \
					break;                                                 \
				case WNN_OP_REDUCE_PRODUCT:                                    \
					acc[b] *= u;                                           \
					break;                                                 \
				default:                                                       \
					acc[b] += u;                                           \
					break;                                                 \
				}                                                              \
			}                                                                      \
		}                                                                              \
		for (uint64_t b = 0; b < nb; b++)                                              \
			o[b] = (T)acc[b];                                                      \
	}                                                                                      \
	static void NAME##_reduce(enum wnn_op op, const T *I, T *O, uint64_t A, uint64_t R,    \
				  uint64_t B, int threads)                                     \
	{                                                                                      \
		if (B == 1) {                                                                  \
			_Pragma("omp parallel for num_threads(threads) if (A * R > CPU_PAR_MIN && A > 1)") \
			for (uint64_t a = 0; a < A; a++)                                       \
				O[a] = NAME##_row(op, I + a * R, R);                           \
			return;                                                                \
		}                                                                              \
		const uint64_t nblk = (B + CPU_COL_BLOCK - 1) / CPU_COL_BLOCK;                 \
		_Pragma("omp parallel for num_threads(threads) if (A * R * B > CPU_PAR_MIN && A * nblk > 1)") \
		for (uint64_t t = 0; t < A * nblk; t++) {                                      \
			uint64_t a = t / nblk, b0 = (t % nblk) * CPU_COL_BLOCK;                \
			uint64_t nb = B - b0 < CPU_COL_BLOCK ? B - b0 : CPU_COL_BLOCK;         \
			NAME##_cols(op, I + a * R * B + b0, O + a * B + b0, R, B, nb);         \
		}                                                                              \
	}                                                                                      \
	static void NAME##_arg(bool want_max, const T *I, void *O, enum wnn_dtype out_type,     \
			       uint64_t outer, uint64_t K, uint64_t inner, int threads)        \
	{                                                                                      \
		const uint64_t nblk = (inner + CPU_COL_BLOCK - 1) / CPU_COL_BLOCK;             \
		_Pragma("omp parallel for num_threads(threads) if (outer * K * inner > CPU_PAR_MIN && outer * nblk > 1)") \
		for (uint64_t t = 0; t < outer * nblk; t++) {                                  \
			uint64_t o = t / nblk, b0 = (t % nblk) * CPU_COL_BLOCK;                \
			uint64_t nb = inner - b0 < CPU_COL_BLOCK ? inner - b0 : CPU_COL_BLOCK; \
			const T *base = I + o * K * inner + b0;                                \
			T best[CPU_COL_BLOCK];                                                 \
			uint32_t idx[CPU_COL_BLOCK];                                           \
			for (uint64_t b = 0; b < nb; b++) {                                    \
				best[b] = base[b];                                             \
				idx[b] = 0;                                                    \
			}                                                                      \
			for (uint64_t a = 1; a < K; a++) {                                     \
				const T *xr = base + a * inner;                                \
				for (uint64_t b = 0; b < nb; b++) {                            \
					bool take = want_max ? xr[b] > best[b] : xr[b] < best[b]; \
					best[b] = take ? xr[b] : best[b];                      \
					idx[b] = take ? (uint32_t)a : idx[b];                  \
				}                                                              \
			}                                                                      \
			for (uint64_t b = 0; b < nb; b++)                                      \
				cpu_store_index(O, out_type, o * inner + b0 + b, idx[b]);      \
		}                                                                              \
	}

CPU_INT_KERNELS(int8_t, 1, cpu_i8)
CPU_INT_KERNELS(uint8_t, 0, cpu_u8)
CPU_INT_KERNELS(int32_t, 1, cpu_i32)
CPU_INT_KERNELS(uint32_t, 0, cpu_u32)
CPU_INT_KERNELS(int64_t, 1, cpu_i64)
CPU_INT_KERNELS(uint64_t, 0, cpu_u64)

/* cumulativeSum on integer types: running sums modulo 2^64, stored truncated. */
#define CPU_INT_CUMSUM(T, NAME)                                                                \
	static void NAME##_cumsum(const struct wnn_cumsum_attrs *p, const T *I, T *O,          \
				  int threads)                                                 \
	{                                                                                      \
		const uint64_t outer = p->outer, K = p->axis_size, inner = p->inner;           \
		const uint64_t nblk = (inner + CPU_COL_BLOCK - 1) / CPU_COL_BLOCK;             \
		_Pragma("omp parallel for num_threads(threads) if (outer * K * inner > CPU_PAR_MIN && outer * nblk > 1)") \
		for (uint64_t t = 0; t < outer * nblk; t++) {                                  \
			uint64_t o = t / nblk, b0 = (t % nblk) * CPU_COL_BLOCK;                \
			uint64_t nb = inner - b0 < CPU_COL_BLOCK ? inner - b0 : CPU_COL_BLOCK; \
			uint64_t acc[CPU_COL_BLOCK] = { 0 };                                   \
			for (uint64_t step = 0; step < K; step++) {                            \
				uint64_t a = p->reversed ? K - 1 - step : step;                \
				const T *xr = I + (o * K + a) * inner + b0;                    \
				T *orow = O + (o * K + a) * inner + b0;                        \
				for (uint64_t b = 0; b < nb; b++) {                            \
					uint64_t u = CPU_U64(xr[b]);                           \
					if (!p->exclusive)                                     \
						acc[b] += u;                                   \
					orow[b] = (T)acc[b];                                   \
					if (p->exclusive)                                      \
						acc[b] += u;                                   \
				}                                                              \
			}                                                                      \
		}                                                                              \
	}
CPU_INT_CUMSUM(int32_t, cpu_i32)
CPU_INT_CUMSUM(uint32_t, cpu_u32)
CPU_INT_CUMSUM(int64_t, cpu_i64)
CPU_INT_CUMSUM(uint64_t, cpu_u64)


#define CPU_INT_CASES(X)                                                                       \
	X(WNN_I8, int8_t, cpu_i8)                                                              \
	X(WNN_U8, uint8_t, cpu_u8)                                                             \
	X(WNN_I32, int32_t, cpu_i32)                                                           \
	X(WNN_U32, uint32_t, cpu_u32)                                                          \
	X(WNN_I64, int64_t, cpu_i64)                                                           \
	X(WNN_U64, uint64_t, cpu_u64)

static bool cpu_int_type(enum wnn_dtype t)
{
	switch (t) {
#define CPU_INT_CASE_(E, T, NAME) case E:
		CPU_INT_CASES(CPU_INT_CASE_)
#undef CPU_INT_CASE_
		return true;
	default:
		return false;
	}
}

static enum webnn_status cpu_run_reduce_int(const struct cpu_step *s, void *const *bufs,
					    const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_reduce_attrs *p = &s->n->attrs.reduce;
	const struct cpu_axes *v = s->priv;
	(void)diag;
	switch (p->type) {
#define CPU_INT_CASE_(E, T, NAME)                                                              \
	case E:                                                                                \
		NAME##_reduce(p->op, bufs[p->input], bufs[p->output], v->A, v->R, v->B,        \
			      x->threads);                                                     \
		break;
		CPU_INT_CASES(CPU_INT_CASE_)
#undef CPU_INT_CASE_
	default:
		break;
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status cpu_run_arg_int(const struct cpu_step *s, void *const *bufs,
					 const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_arg_attrs *p = &s->n->attrs.arg;
	const bool want_max = p->op == WNN_OP_ARG_MAX;
	(void)diag;
	switch (p->type) {
#define CPU_INT_CASE_(E, T, NAME)                                                              \
	case E:                                                                                \
		NAME##_arg(want_max, bufs[p->input], bufs[p->output], p->out_type, p->outer,   \
			   p->axis_size, p->inner, x->threads);                                \
		break;
		CPU_INT_CASES(CPU_INT_CASE_)
#undef CPU_INT_CASE_
	default:
		break;
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status cpu_run_cumsum_int(const struct cpu_step *s, void *const *bufs,
					    const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_cumsum_attrs *p = &s->n->attrs.cumsum;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	(void)diag;
	switch (p->type) {
	case WNN_I32:
		cpu_i32_cumsum(p, I, O, x->threads);
		break;
	case WNN_U32:
		cpu_u32_cumsum(p, I, O, x->threads);
		break;
	case WNN_I64:
		cpu_i64_cumsum(p, I, O, x->threads);
		break;
	default:
		cpu_u64_cumsum(p, I, O, x->threads);
		break;
	}
	return WEBNN_STATUS_OK;
}

/* ---- cumulativeSum on float32: double running sums, as the reference keeps them */

static enum webnn_status cpu_run_cumsum(const struct cpu_step *s, void *const *bufs,
					const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_cumsum_attrs *p = &s->n->attrs.cumsum;
	const float *I = bufs[p->input];
	float *O = bufs[p->output];
	const uint64_t outer = p->outer, K = p->axis_size, inner = p->inner;
	const uint64_t nblk = (inner + CPU_COL_BLOCK - 1) / CPU_COL_BLOCK;
	const bool exclusive = p->exclusive, reversed = p->reversed;
	(void)diag;
#pragma omp parallel for num_threads(x->threads) if (outer * K * inner > CPU_PAR_MIN && outer * nblk > 1)
	for (uint64_t t = 0; t < outer * nblk; t++) {
		if (cpu_cancelled(x))
			continue;
		uint64_t o = t / nblk, b0 = (t % nblk) * CPU_COL_BLOCK;
		uint64_t nb = inner - b0 < CPU_COL_BLOCK ? inner - b0 : CPU_COL_BLOCK;
		double acc[CPU_COL_BLOCK];
		for (uint64_t b = 0; b < nb; b++)
			acc[b] = 0;
		for (uint64_t step = 0; step < K; step++) {
			uint64_t a = reversed ? K - 1 - step : step;
			const float *xr = I + o * K * inner + a * inner + b0;
			float *orow = O + o * K * inner + a * inner + b0;
			if (exclusive) {
#pragma omp simd
				for (uint64_t b = 0; b < nb; b++) {
					orow[b] = (float)acc[b];
					acc[b] += xr[b];
				}
			} else {
#pragma omp simd
				for (uint64_t b = 0; b < nb; b++) {
					acc[b] += xr[b];
					orow[b] = (float)acc[b];
				}
			}
		}
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status cpu_reduce_prepare_f32(const struct cpu_build *b, struct cpu_step *s,
					      struct wnn_diag *diag);

enum webnn_status cpu_reduce_prepare(const struct cpu_build *b, struct cpu_step *s,
				     struct wnn_diag *diag)
{
	enum webnn_status st = cpu_reduce_prepare_f32(b, s, diag);
	if (st != WEBNN_STATUS_OK || !s->run)
		return st;
	const struct wnn_desc *d = &s->g->values[s->n->inputs[0]].desc;
	return d->type == WNN_F16 ? cpu_f16_wrap(s, diag) : WEBNN_STATUS_OK;
}

static bool cpu_float(enum wnn_dtype t)
{
	return t == WNN_F32 || t == WNN_F16;
}

/* The kernels read float32; float16 nodes get them through cpu_f16_wrap. */
static enum webnn_status cpu_reduce_prepare_f32(const struct cpu_build *b, struct cpu_step *s,
					      struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	(void)b;
	s->run = NULL; /* the reference kernel unless a case below takes it */
	switch (n->op) {
	case WNN_OP_ARG_MIN:
	case WNN_OP_ARG_MAX:
		if (n->attrs.arg.axis_size > UINT32_MAX)
			return WEBNN_STATUS_OK;
		if (cpu_int_type(n->attrs.arg.type)) {
			s->run = cpu_run_arg_int;
			s->impl = "C";
			return WEBNN_STATUS_OK;
		}
		if (!cpu_float(n->attrs.arg.type))
			return WEBNN_STATUS_OK;
		s->run = cpu_run_arg;
		s->impl = "C";
		return WEBNN_STATUS_OK;
	case WNN_OP_CUMULATIVE_SUM:
		switch (n->attrs.cumsum.type) {
		case WNN_I32:
		case WNN_U32:
		case WNN_I64:
		case WNN_U64:
			s->run = cpu_run_cumsum_int;
			s->impl = "C";
			return WEBNN_STATUS_OK;
		default:
			break;
		}
		if (!cpu_float(n->attrs.cumsum.type))
			return WEBNN_STATUS_OK;
		s->run = cpu_run_cumsum;
		s->impl = "C";
		return WEBNN_STATUS_OK;
	default:
		break;
	}
	const struct wnn_reduce_attrs *p = &n->attrs.reduce;
	const bool integer = cpu_int_type(p->type);
	if (!cpu_float(p->type) && !integer)
		return WEBNN_STATUS_OK;
	bool oom;
	struct cpu_axes *priv = cpu_axes_new(&p->r, !integer, &oom);
	if (!priv)
		return oom ? wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
					  wnn_ops[n->op].name)
			   : WEBNN_STATUS_OK;
	s->priv = priv;
	s->destroy = cpu_axes_free;
	s->run = integer ? cpu_run_reduce_int : cpu_run_reduce;
	s->impl = "C";
	return WEBNN_STATUS_OK;
}
