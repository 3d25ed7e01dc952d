/* The cpu backend's elementwise family: ops.def expressions expanded into typed, vectorised, threaded loops with broadcasting; clamp, prelu and where as direct kernels. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"
#include "daemon/backend/cpu/cpu_elementwise_half.h"

/* The kernels below may raise floating-point exceptions the C code would not (nothing reads
 * the flags): without this the compiler keeps every conditional of relu, clamp or a compare as
 * a branch and vectorises none of them. It permits no value-changing transformation; nor does
 * the AVX2/AVX-512 build (below) fuse a multiply and an add, which would round once instead of
 * twice as the reference does. */
#pragma GCC optimize("no-trapping-math", "fp-contract=off")

/* ---- plans: a broadcast shape collapsed to the fewest dimensions, walked row by row; the
 * innermost dimension of every input is contiguous or one broadcast element, so each row is
 * a loop the compiler vectorises. */

#define EW_MAX_IN WNN_MAX_BCAST_INPUTS

struct ew_plan;
/* A row of n output elements from offsets into each operand (elements). */
struct ew_args {
	const uint8_t *in[EW_MAX_IN];
	uint8_t *out;
};
typedef void (*ew_row_fn)(const struct ew_plan *pl, const struct ew_args *a, const uint64_t *off,
			  uint64_t out_off, uint64_t n);
/* Two-operand rows (binary expressions, prelu): a and b advance by 1 or stay (sa/sb 0). */
typedef void (*ew_bin_fn)(const void *a, const void *b, void *o, uint64_t n, int sa, int sb);
/* One-operand rows (unary expressions, clamp); options come from the plan. */
typedef void (*ew_un_fn)(const void *x, void *o, uint64_t n, const struct ew_plan *pl);

struct ew_plan {
	uint32_t rank; /* collapsed, >= 1 */
	int n_in;
	uint64_t count;
	uint64_t dims[WNN_MAX_RANK];
	uint64_t strides[EW_MAX_IN][WNN_MAX_RANK];
	int contig[EW_MAX_IN]; /* innermost stride: 1, or 0 for a broadcast element */

	uint32_t in_ids[EW_MAX_IN], out_id;
	size_t in_es[EW_MAX_IN], out_es;
	ew_row_fn row;
	ew_bin_fn bin;
	ew_un_fn un;
	cpu_f32_unary_fn f32un; /* run by un = ew_u_f32 */
	bool half_in, half_out; /* float16 through float32 blocks */
	double alpha, beta;     /* unary options */
	double fmin, fmax;      /* clamp bounds per domain */
	int64_t imin, imax;
	uint64_t umin, umax;
};

/* Drops dimensions of size 1 and merges neighbours that every operand reads contiguously
 * (or broadcasts) across, so that a same-shape operation is one row and a channel broadcast
 * two or three dimensions. */
static void ew_collapse(struct ew_plan *pl, const struct wnn_bcast *bc)
{
	uint64_t dims[WNN_MAX_RANK], strides[EW_MAX_IN][WNN_MAX_RANK];
	uint32_t r = 0;
	pl->n_in = bc->n_inputs;
	pl->count = bc->count;
	for (int d = (int)bc->rank - 1; d >= 0; d--) {
		if (bc->dims[d] == 1)
			continue;
		bool merge = r > 0;
		for (int k = 0; merge && k < bc->n_inputs; k++)
			merge = bc->strides[k][d] == strides[k][r - 1] * dims[r - 1];
		if (merge) {
			dims[r - 1] *= bc->dims[d];
			continue;
		}
		dims[r] = bc->dims[d];
		for (int k = 0; k < bc->n_inputs; k++)
			strides[k][r] = bc->strides[k][d];
		r++;
	}
	if (r == 0) { /* one element */
		dims[0] = 1;
		for (int k = 0; k < bc->n_inputs; k++)
			strides[k][0] = 1;
		r = 1;
	}
	pl->rank = r;
	for (uint32_t d = 0; d < r; d++) {
		pl->dims[d] = dims[r - 1 - d];
		for (int k = 0; k < bc->n_inputs; k++)
			pl->strides[k][d] = strides[k][r - 1 - d];
	}
	for (int k = 0; k < bc->n_inputs; k++)
		pl->contig[k] = pl->strides[k][r - 1] != 0;
}

/* Same-shape operands of count elements: one contiguous row. */
static void ew_flat(struct ew_plan *pl, int n_in, uint64_t count)
{
	pl->rank = 1;
	pl->n_in = n_in;
	pl->count = count;
	pl->dims[0] = count;
	for (int k = 0; k < n_in; k++) {
		pl->strides[k][0] = 1;
		pl->contig[k] = 1;
	}
}

/* Output elements [begin, end) row by row, operand offsets carried from row to row. */
static void ew_walk(const struct ew_plan *pl, const struct ew_args *a, uint64_t begin,
		    uint64_t end)
{
	if (begin >= end)
		return;
	int r = (int)pl->rank, n_in = pl->n_in;
	uint64_t coord[WNN_MAX_RANK], off[EW_MAX_IN] = { 0 };
	uint64_t rem = begin;
	for (int d = r - 1; d >= 0; d--) {
		coord[d] = rem % pl->dims[d];
		rem /= pl->dims[d];
		for (int k = 0; k < n_in; k++)
			off[k] += coord[d] * pl->strides[k][d];
	}
	uint64_t inner = pl->dims[r - 1], pos = begin;
	for (;;) {
		uint64_t n = inner - coord[r - 1];
		if (n > end - pos)
			n = end - pos;
		pl->row(pl, a, off, pos, n);
		pos += n;
		if (pos >= end)
			return;
		for (int k = 0; k < n_in; k++)
			off[k] -= coord[r - 1] * pl->strides[k][r - 1];
		coord[r - 1] = 0;
		for (int d = r - 2; d >= 0; d--) {
			for (int k = 0; k < n_in; k++)
				off[k] += pl->strides[k][d];
			if (++coord[d] < pl->dims[d])
				break;
			for (int k = 0; k < n_in; k++)
				off[k] -= pl->dims[d] * pl->strides[k][d];
			coord[d] = 0;
		}
	}
}

static enum webnn_status ew_run(const struct cpu_step *s, void *const *bufs,
				const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct ew_plan *pl = s->priv;
	struct ew_args a = { .out = bufs[pl->out_id] };
	for (int k = 0; k < pl->n_in; k++)
		a.in[k] = bufs[pl->in_ids[k]];
	uint64_t count = pl->count;
	/* no parallel region at all when serial: even one whose if() is false costs libgomp
	 * about 1.5 us (a team of one set up and torn down), half a small step's fixed cost */
	if (x->threads <= 1 || count < CPU_EW_PAR_MIN) {
		for (uint64_t at = 0; at < count && !cpu_cancelled(x); at += CPU_CANCEL_BLOCK)
			ew_walk(pl, &a, at, count - at < CPU_CANCEL_BLOCK ? count : at + CPU_CANCEL_BLOCK);
		return cpu_kernel_status(x, diag);
	}
#pragma omp parallel num_threads(x->threads)
	{
		uint64_t b, e;
		cpu_ew_split(count, omp_get_thread_num(), omp_get_num_threads(), &b, &e);
		for (uint64_t at = b; at < e && !cpu_cancelled(x); at += CPU_CANCEL_BLOCK)
			ew_walk(pl, &a, at, e - at < CPU_CANCEL_BLOCK ? e : at + CPU_CANCEL_BLOCK);
	}
	return cpu_kernel_status(x, diag);
}

/* ---- rows */

static void row_bin(const struct ew_plan *pl, const struct ew_args *a, const uint64_t *off,
		    uint64_t o, uint64_t n)
{
	const uint8_t *pa = a->in[0] + off[0] * pl->in_es[0], *pb = a->in[1] + off[1] * pl->in_es[1];
	uint8_t *po = a->out + o * pl->out_es;
	int sa = pl->contig[0], sb = pl->contig[1];
	if (!pl->half_in) {
		pl->bin(pa, pb, po, n, sa, sb);
		return;
	}
	/* float16: the float32 kernel (which computes as the reference does, through double) on
	 * converted blocks */
	float ta[CPU_EW_BLOCK], tb[CPU_EW_BLOCK], to[CPU_EW_BLOCK];
	for (uint64_t i = 0; i < n; i += CPU_EW_BLOCK) {
		uint64_t m = n - i < CPU_EW_BLOCK ? n - i : CPU_EW_BLOCK;
		cpu_half_to_float(ta, (const uint16_t *)pa + (sa ? i : 0), sa ? m : 1);
		cpu_half_to_float(tb, (const uint16_t *)pb + (sb ? i : 0), sb ? m : 1);
		if (pl->half_out) {
			pl->bin(ta, tb, to, m, sa, sb);
			cpu_float_to_half((uint16_t *)po + i, to, m);
		} else {
			pl->bin(ta, tb, po + i * pl->out_es, m, sa, sb);
		}
	}
}

static void row_un(const struct ew_plan *pl, const struct ew_args *a, const uint64_t *off,
		   uint64_t o, uint64_t n)
{
	const uint8_t *px = a->in[0] + off[0] * pl->in_es[0];
	uint8_t *po = a->out + o * pl->out_es;
	if (!pl->half_in) {
		pl->un(px, po, n, pl);
		return;
	}
	float tx[CPU_EW_BLOCK], to[CPU_EW_BLOCK];
	for (uint64_t i = 0; i < n; i += CPU_EW_BLOCK) {
		uint64_t m = n - i < CPU_EW_BLOCK ? n - i : CPU_EW_BLOCK;
		cpu_half_to_float(tx, (const uint16_t *)px + i, m);
		if (pl->half_out) {
			pl->un(tx, to, m, pl);
			cpu_float_to_half((uint16_t *)po + i, to, m);
		} else {
			pl->un(tx, po + i * pl->out_es, m, pl);
		}
	}
}

/* where moves elements: one kernel per element size, one loop per pattern of broadcast
 * operands (a scalar operand read once per row) so that each is a vector select. */
#define EW_WHERE_LOOP(IC, IT, IF)                                                              \
	_Pragma("omp simd") for (uint64_t i = 0; i < n; i++)                                   \
	{                                                                                      \
		uint8_t cv = c[IC];                                                            \
		ew_t tv = T[IT], fv = F[IF];                                                   \
		O[i] = cv ? tv : fv;                                                           \
	}
#define EW_WHERE(BITS)                                                                         \
	static void where_##BITS(const uint8_t *c, int sc, const void *pt, int st, const void *pf, \
				 int sf, void *po, uint64_t n)                                 \
	{                                                                                      \
		typedef uint##BITS##_t ew_t;                                                   \
		const ew_t *T = pt, *F = pf;                                                   \
		ew_t *O = po;                                                                  \
		switch ((sc ? 4 : 0) | (st ? 2 : 0) | (sf ? 1 : 0)) {                          \
		case 7: EW_WHERE_LOOP(i, i, i) break;                                          \
		case 6: EW_WHERE_LOOP(i, i, 0) break;                                          \
		case 5: EW_WHERE_LOOP(i, 0, i) break;                                          \
		case 4: EW_WHERE_LOOP(i, 0, 0) break;                                          \
		case 3: EW_WHERE_LOOP(0, i, i) break;                                          \
		case 2: EW_WHERE_LOOP(0, i, 0) break;                                          \
		case 1: EW_WHERE_LOOP(0, 0, i) break;                                          \
		default: EW_WHERE_LOOP(0, 0, 0) break;                                         \
		}                                                                              \
	}
EW_WHERE(8)
EW_WHERE(16)
EW_WHERE(32)
EW_WHERE(64)

static void row_where(const struct ew_plan *pl, const struct ew_args *a, const uint64_t *off,
		      uint64_t o, uint64_t n)
{
	size_t es = pl->out_es;
	const uint8_t *c = a->in[0] + off[0];
	const uint8_t *t = a->in[1] + off[1] * es, *f = a->in[2] + off[2] * es;
	uint8_t *po = a->out + o * es;
	int sc = pl->contig[0], st = pl->contig[1], sf = pl->contig[2];
	switch (es) {
	case 1: where_8(c, sc, t, st, f, sf, po, n); break;
	case 2: where_16(c, sc, t, st, f, sf, po, n); break;
	case 4: where_32(c, sc, t, st, f, sf, po, n); break;
	default: where_64(c, sc, t, st, f, sf, po, n); break;
	}
}

/* ---- typed kernels from the ops.def expressions.
 *
 * Each storage type computes in the domain the reference computes in, so that results are
 * the same bits: float32 (and float16, through float32 blocks) in double, rounded to float
 * on the store (for + - * / that is exactly float arithmetic, which the compiler still
 * vectorises); 8- and 32-bit integers in 64-bit (every expression of two such operands is exact
 * there, and the store wraps as the reference's does); int64 in __int128 as the reference,
 * so that INT64_MIN / -1 and -INT64_MIN wrap instead of trapping; unsigned in uint64_t. */

#define EW_TYPES(M, ...)                                                                       \
	M(F32, float, double, F, __VA_ARGS__)                                                  \
	M(I32, int32_t, int64_t, S, __VA_ARGS__)                                               \
	M(U32, uint32_t, uint64_t, U, __VA_ARGS__)                                             \
	M(I64, int64_t, __int128, S, __VA_ARGS__)                                              \
	M(U64, uint64_t, uint64_t, U, __VA_ARGS__)                                             \
	M(I8, int8_t, int64_t, S, __VA_ARGS__)                                                 \
	M(U8, uint8_t, uint64_t, U, __VA_ARGS__)

/* Integer pow has no expression: exact by repeated squaring modulo 2^64 (which leaves the
 * right low bits for every storage type); a negative exponent truncates 1 / a^|b| (the
 * host kernels' hk_ipow_s). */
static inline uint64_t ew_ipow_u(uint64_t a, uint64_t b)
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

static inline int64_t ew_ipow_s(int64_t a, int64_t b)
{
	if (b < 0)
		return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
	return (int64_t)ew_ipow_u((uint64_t)a, (uint64_t)b);
}

/* fmax/fmin as glibc computes them, spelled so that the compiler neither swaps the operands
 * (it treats fmax as commutative, but the sign of max(0, -0) depends on their order: the
 * second operand wins ties, as MAXSD does) nor calls out of the vectorised loop. Operands
 * come from float32 through double, so NaNs are quiet: a NaN operand yields the other. */
static inline double ew_fmax(double a, double b)
{
	return a != a ? (b != b ? a + b : b) : b != b ? a : a > b ? a : b;
}

static inline double ew_fmin(double a, double b)
{
	return a != a ? (b != b ? a + b : b) : b != b ? a : a < b ? a : b;
}

/* exp in double without a call, so that exp, sigmoid and softplus vectorise (libm's exp is a
 * call per element: sigmoid ran at 5-9 ns an element). Cody-Waite reduction by ln 2 (ln2_hi
 * has 11 trailing zero bits, so k * ln2_hi is exact), Taylor series to degree 13 on
 * |r| <= ln2 / 2 (truncation below 1e-17), 2^k built in two halves so that every k of the
 * clamped range is two normal powers. Within 2 ulp of double, like libm's, so a float32 result
 * rounded from it can differ from the reference's only when the exact value lies within about
 * 2^-51 (relative) of a float32 rounding boundary: checked on every float32 input with
 * |x| <= 110 (beyond, both saturate), exp and sigmoid give the reference's bits for all of
 * them. */
static inline double ew_pow2i(double k) /* 2^k for an integral k in [-1022, 1023] */
{
	double t = k + (0x1.8p52 + 1023.0);
	uint64_t u;
	memcpy(&u, &t, sizeof u);
	u <<= 52;
	memcpy(&t, &u, sizeof t);
	return t;
}

static inline double ew_exp(double x)
{
	const double shifter = 0x1.8p52;
	double xc = x > 710.0 ? 710.0 : x < -746.0 ? -746.0 : x; /* NaN stays NaN */
	double k = (xc * 0x1.71547652b82fep0 + shifter) - shifter;
	double r = (xc - k * 0x1.62e42fefa3800p-1) - k * 0x1.ef35793c76730p-45;
	double p = 1.0 / 6227020800.0;
	p = p * r + 1.0 / 479001600.0;
	p = p * r + 1.0 / 39916800.0;
	p = p * r + 1.0 / 3628800.0;
	p = p * r + 1.0 / 362880.0;
	p = p * r + 1.0 / 40320.0;
	p = p * r + 1.0 / 5040.0;
	p = p * r + 1.0 / 720.0;
	p = p * r + 1.0 / 120.0;
	p = p * r + 1.0 / 24.0;
	p = p * r + 1.0 / 6.0;
	p = p * r + 0.5;
	p = p * r + 1.0;
	p = p * r + 1.0;
	double k1 = (k * 0.5 + shifter) - shifter;
	double y = p * ew_pow2i(k1) * ew_pow2i(k - k1);
	return x > 0x1.62e42fefa39efp9 ? INFINITY : x < -745.1332191019412 ? 0.0 : y;
}

/* expm1 in double without a call (elu, and tanh below): the exp reduction, e^r - 1 =
 * r + r^2 q(r) kept small so that it has no cancellation near 0, scaled back as
 * 2^k (e^r - 1) + (2^k - 1); -0 stays -0. Like ew_exp, checked on every float32 input with
 * |x| <= 110: expm1 and tanh give libm's float32 results for all of them (tanh is within 6 ulp
 * of libm's in double). */
static inline double ew_expm1(double x)
{
	const double shifter = 0x1.8p52;
	double xc = x > 710.0 ? 710.0 : x < -746.0 ? -746.0 : x;
	double k = (xc * 0x1.71547652b82fep0 + shifter) - shifter;
	double r = (xc - k * 0x1.62e42fefa3800p-1) - k * 0x1.ef35793c76730p-45;
	double q = 1.0 / 87178291200.0;
	q = q * r + 1.0 / 6227020800.0;
	q = q * r + 1.0 / 479001600.0;
	q = q * r + 1.0 / 39916800.0;
	q = q * r + 1.0 / 3628800.0;
	q = q * r + 1.0 / 362880.0;
	q = q * r + 1.0 / 40320.0;
	q = q * r + 1.0 / 5040.0;
	q = q * r + 1.0 / 720.0;
	q = q * r + 1.0 / 120.0;
	q = q * r + 1.0 / 24.0;
	q = q * r + 1.0 / 6.0;
	q = q * r + 0.5;
	double e = r + r * r * q;
	double k1 = (k * 0.5 + shifter) - shifter;
	double s1 = ew_pow2i(k1), s2 = ew_pow2i(k - k1);
	double y = (e * s1) * s2 + (s1 * s2 - 1.0);
	return x == 0 ? x : x > 0x1.62e42fefa39efp9 ? INFINITY : x < -746.0 ? -1.0 : y;
}

/* tanh from expm1: t / (t + 2) with t = expm1(2|x|), the sign put back. */
static inline double ew_tanh(double x)
{
	double a = fabs(x);
	double t = ew_expm1(2.0 * (a > 40.0 ? 40.0 : a));
	double y = t / (t + 2.0);
	return a != a ? x + x : copysign(y, x);
}

/* log in double without a call: x = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact),
 * log(1 + f) = f - s (f - R(s^2)) with s = f / (2 + f) and R the rest of 2 atanh(s) to s^23,
 * plus e ln 2 in two parts. Checked on every non-negative float32: the float32 results are
 * libm's for all of them. */
static inline double ew_log(double x)
{
	bool tiny = x < 0x1p-1022;
	double xs = tiny ? x * 0x1p54 : x;
	uint64_t b;
	memcpy(&b, &xs, sizeof b);
	/* the exponent as a double without an integer conversion (which would not vectorise) */
	uint64_t eb = (b >> 52) | 0x4330000000000000ull;
	double e;
	memcpy(&e, &eb, sizeof e);
	e -= 0x1p52 + 1023.0 + (tiny ? 54.0 : 0.0);
	uint64_t mb = (b & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
	double m;
	memcpy(&m, &mb, sizeof m);
	bool big = m > 0x1.6a09e667f3bcdp0;
	m = big ? m * 0.5 : m;
	e = big ? e + 1.0 : e;
	double f = m - 1.0;
	double s = f / (2.0 + f), z = s * s;
	double r = 2.0 / 23.0;
	r = r * z + 2.0 / 21.0;
	r = r * z + 2.0 / 19.0;
	r = r * z + 2.0 / 17.0;
	r = r * z + 2.0 / 15.0;
	r = r * z + 2.0 / 13.0;
	r = r * z + 2.0 / 11.0;
	r = r * z + 2.0 / 9.0;
	r = r * z + 2.0 / 7.0;
	r = r * z + 2.0 / 5.0;
	r = r * z + 2.0 / 3.0;
	r = r * z;
	double y = e * 0x1.62e42fefa3800p-1 + (f - (s * (f - r) - e * 0x1.ef35793c76730p-45));
	return x != x ? x + x : x < 0 ? (double)NAN : x == 0 ? -INFINITY : x == INFINITY ? x : y;
}

/* log1p from the log above: u = 1 + y rounds, and (y - (u - 1)) / u puts back to first order
 * what that rounding lost (u - 1 is exact). The conditions are written so that the softplus
 * loop, log1p(e^x), still vectorises (GCC 12 gives up on two selects in a row here); the
 * correction is 0/0 only where log(u) is already -inf or NaN. Checked on every float32 x:
 * softplus gives libm's float32 results for all of them (it ran at 65-90 ns an element with
 * libm's log1p, one call per element). */
static inline __attribute__((always_inline)) double ew_log1p(double y)
{
	double u = 1.0 + y;
	double c = (y - (u - 1.0)) / u;
	double r = ew_log(u) + (c == c ? c : 0.0);
	return u == 1.0 ? y : r;
}

/* erf and erfc in double without a call (libm's are a call per element: erf ran at ~7 ns an
 * element, gelu the same). |x| < 0.875: erf = x P(x^2), P of degree 10 (relative error 5e-17).
 * Beyond: erfc(a) = e^(-a^2) R(a) with R = erfc e^(a^2) smooth and slowly varying, a
 * polynomial of degree 15 in u = 1 / (a + 1) on [0.875, 2.5] and on [2.5, 10.5] (relative
 * error 1e-16; the coefficients of the lane's interval are blended, so both intervals are one
 * vectorised Horner). Fitted with mpmath.chebyfit against mpmath's erfc at 50 digits. a^2 and
 * the argument itself are rounded in double, which moves erfc by ~2 a^2 2^-53 (4e-14 at
 * a = 10): far below float32's half ulp. Past 10.5 R is held at its value there (e^(-a^2)
 * < 1e-47 makes the product vanish in float32 anyway). Checked on every float32 input: erf
 * and erfc round to libm's float32 results (tests/test_cpu_elementwise.c samples it). */
static const double ew_erf_small[11] = {
	1.0471034556935036e-08,	 -1.5624735838207127e-07, 1.6388270378106895e-06,
	-1.492102315426167e-05,	 0.00012055145523632907,  -0.0008548322128192329,
	0.005223977545559434,	 -0.026866170637514133,	  0.1128379167091783,
	-0.3761263890318304,	 1.1283791670955126,
};
static const double ew_erfc_near[16] = {
	-5.665735182084836,  35.90645686334992,	   -104.04151481101356, 180.65771196127977,
	-205.75980014974763, 156.05456843443457,   -73.57221390897688,	14.795474618472822,
	4.111226643193985,   -2.607563003610353,   0.15252948536273925, -0.4668515515374489,
	0.30870051186879527, 0.5616708155334389,   0.5643325319822543,	-3.7060469647404142e-06,
};
static const double ew_erfc_far[16] = {
	49.84729698743886,   -260.9089143277798,   534.3991752739951,	 -597.3013572699596,
	403.9408490167255,   -165.83642819982293,  38.668438789650125,	 -6.632450420135784,
	2.980365303609707,   -0.30429167417041686, -0.6902524259052689,	 -0.28312790686851075,
	0.28214660822392423, 0.5641877984917202,   0.5641896213124783,	 -3.6980413945834667e-10,
};

/* Horner steps written out: a loop over the coefficients would be an inner loop, which keeps
 * the element loop from vectorising. */
#define EW_H(p, t, c, i) ((p) * (t) + (c)[i])
#define EW_H2(p, t, c, i) EW_H(EW_H(p, t, c, i), t, c, (i) + 1)
#define EW_H4(p, t, c, i) EW_H2(EW_H2(p, t, c, i), t, c, (i) + 2)
#define EW_HB(p, u, far, i) ((p) * (u) + ((far) ? ew_erfc_far[i] : ew_erfc_near[i]))
#define EW_HB2(p, u, far, i) EW_HB(EW_HB(p, u, far, i), u, far, (i) + 1)
#define EW_HB4(p, u, far, i) EW_HB2(EW_HB2(p, u, far, i), u, far, (i) + 2)

static inline __attribute__((always_inline)) double ew_erf_near0(double x) /* |x| < 0.875 */
{
	double t = x * x, p = ew_erf_small[0];
	p = EW_H4(p, t, ew_erf_small, 1);
	p = EW_H4(p, t, ew_erf_small, 5);
	p = EW_H2(p, t, ew_erf_small, 9);
	return x * p;
}

static inline __attribute__((always_inline)) double ew_erfc_tail(double a) /* a >= 0.875 */
{
	double ac = a > 10.5 ? 10.5 : a, u = 1.0 / (ac + 1.0);
	bool far = ac >= 2.5;
	double r = far ? ew_erfc_far[0] : ew_erfc_near[0];
	r = EW_HB4(r, u, far, 1);
	r = EW_HB4(r, u, far, 5);
	r = EW_HB4(r, u, far, 9);
	r = EW_HB2(r, u, far, 13);
	r = EW_HB(r, u, far, 15);
	return ew_exp(-(a * a)) * r;
}
#undef EW_H
#undef EW_H2
#undef EW_H4
#undef EW_HB
#undef EW_HB2
#undef EW_HB4

static inline __attribute__((always_inline)) double ew_erf(double x)
{
	double a = fabs(x);
	double y = a < 0.875 ? ew_erf_near0(x) : copysign(1.0 - ew_erfc_tail(a < 30 ? a : 30), x);
	return x != x ? x + x : y;
}

static inline __attribute__((always_inline)) double ew_erfc(double x)
{
	double a = fabs(x), tail = ew_erfc_tail(a < 0.875 ? 0.875 : a < 30 ? a : 30);
	double y = a < 0.875 ? 1.0 - ew_erf_near0(x) : x > 0 ? tail : 2.0 - tail;
	return x != x ? x + x : y;
}

/* pow in double without a call: e^(b log|a|) from the two above (|b log|a|| is at most ~1100
 * where the result is finite or nonzero in float32, so its rounding moves the result by
 * < 3e-13: it rounds to libm's float32 result but where that lies within ~1e-13 of a rounding
 * boundary), with C's special cases: pow(a, 0) = pow(1, b) = 1 even for NaN, a negative base
 * takes the sign of an odd integer exponent and gives NaN for a finite non-integer one,
 * pow(-1, +-inf) = 1. Exponents of float32 or float16 are integers past 2^24, all even. */
static inline __attribute__((always_inline)) double ew_pow(double a, double b)
{
	double m = fabs(a), l = ew_log(m);
	double y = b * l;
	/* m = 1 with b infinite would be 0 * inf: the result is 1 (-1 included) */
	double r = ew_exp(m == 1.0 ? 0.0 : y);
	/* 0^-b and inf^b: b * log gives +-inf, which ew_exp takes to inf or 0; y NaN only for
	 * b * 0 with b infinite (handled) or a NaN operand (below) */
	double bh = b * 0.5;
	bool integral = b == __builtin_floor(b), odd = integral && bh != __builtin_floor(bh);
	r = copysign(1.0, a) < 0 && odd ? -r : r; /* -0 included: pow(-0, -1) = -inf */
	r = a < 0 && !integral && a > -INFINITY && b == b && fabs(b) != INFINITY ? (double)NAN : r;
	/* squares and cubes exactly as libm (a^2 of a float is exact in double; the e^(b log)
	 * form missed 81 float32 squares in 2.5e8 sampled pairs that lie on a rounding tie).
	 * "a == a" keeps each condition per element: on b alone, with b one broadcast value,
	 * it would become a branch around the loop body, and that loop would not vectorise. */
	r = b == 2.0 && a == a ? a * a : b == 3.0 && a == a ? a * a * a : r;
	return b == 0 || a == 1.0 ? 1.0 : a != a || b != b ? a + b : r;
}

#define EW_EXPR_F(ENUM, CT, FEXPR, IEXPR) (FEXPR)
/* Float kernels compute in double, two lanes an SSE2 register: they are also built for AVX2
 * and AVX-512 and picked at load time (the same bits: contraction into FMA stays off). */
#define EW_CLONES_F __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#define EW_CLONES_S
#define EW_CLONES_U
#define EW_EXPR_S(ENUM, CT, FEXPR, IEXPR)                                                      \
	(WNN_OP_##ENUM == WNN_OP_POW ? (CT)ew_ipow_s((int64_t)a, (int64_t)b) : (CT)(IEXPR))
#define EW_EXPR_U(ENUM, CT, FEXPR, IEXPR)                                                      \
	(WNN_OP_##ENUM == WNN_OP_POW ? (CT)ew_ipow_u((uint64_t)a, (uint64_t)b) : (CT)(IEXPR))
/* The element type an operator stores (ops.def OUT). */
#define EW_OUT_SAME(ST) ST
#define EW_OUT_U8(ST) uint8_t
#define EW_OUT_SPECIAL(ST) ST

/* Every row gets a binary and a unary kernel per storage type, like the reference's
 * functions; the ones its ATTRS or DTYPES rule out are empty (the condition is a constant).
 * Unsigned instances of signed-only expressions are compiled too, hence type-limits. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wdiv-by-zero" /* unary instances of binary rows (dead) */

#define EW_BIN_LOOP(ENUM, ST, CT, CLS, OUT, FEXPR, IEXPR, LA, LB)                              \
	_Pragma("omp simd") for (uint64_t i = 0; i < n; i++)                                   \
	{                                                                                      \
		CT a = LA, b = LB;                                                             \
		O[i] = (EW_OUT_##OUT(ST))EW_EXPR_##CLS(ENUM, CT, FEXPR, IEXPR);                \
	}

#define EW_BINARY(T, ST, CT, CLS, ENUM, ATTRS, DTYPES, OUT, FEXPR, IEXPR)                      \
	EW_CLONES_##CLS static void ew_b_##ENUM##_##T(const void *pa, const void *pb, void *po, \
						      uint64_t n,    \
				      int sa, int sb)                                          \
	{                                                                                      \
		if (WNN_ATTRS_##ATTRS != WNN_ATTRS_BINARY || !((DTYPES)&WNN_DT_BIT(WNN_##T)))  \
			return;                                                                \
		const ST *A = pa, *B = pb;                                                     \
		EW_OUT_##OUT(ST) *O = po;                                                      \
		const CT x = 0, alpha = 0, beta = 0;                                           \
		if (sa && sb) {                                                                \
			EW_BIN_LOOP(ENUM, ST, CT, CLS, OUT, FEXPR, IEXPR, A[i], B[i])          \
		} else if (sa) {                                                               \
			const CT b0 = B[0];                                                    \
			EW_BIN_LOOP(ENUM, ST, CT, CLS, OUT, FEXPR, IEXPR, A[i], b0)            \
		} else {                                                                       \
			const CT a0 = A[0];                                                    \
			EW_BIN_LOOP(ENUM, ST, CT, CLS, OUT, FEXPR, IEXPR, a0, B[i])            \
		}                                                                              \
	}

#define EW_UNARY(T, ST, CT, CLS, ENUM, ATTRS, DTYPES, OUT, FEXPR, IEXPR)                       \
	EW_CLONES_##CLS static void ew_u_##ENUM##_##T(const void *px, void *po, uint64_t n,    \
				      const struct ew_plan *pl)                                \
	{                                                                                      \
		if (WNN_ATTRS_##ATTRS != WNN_ATTRS_UNARY || !((DTYPES)&WNN_DT_BIT(WNN_##T)))   \
			return;                                                                \
		const ST *X = px;                                                              \
		EW_OUT_##OUT(ST) *O = po;                                                      \
		const CT a = 0, b = 0, alpha = (CT)pl->alpha, beta = (CT)pl->beta;             \
		_Pragma("omp simd") for (uint64_t i = 0; i < n; i++)                           \
		{                                                                              \
			CT x = X[i];                                                           \
			O[i] = (EW_OUT_##OUT(ST))EW_EXPR_##CLS(ENUM, CT, FEXPR, IEXPR);        \
		}                                                                              \
	}

#define fmax(a, b) ew_fmax(a, b)
#define fmin(a, b) ew_fmin(a, b)
#define exp(x) ew_exp(x)
#define expm1(x) ew_expm1(x)
#define tanh(x) ew_tanh(x)
#define log(x) ew_log(x)
#define log1p(x) ew_log1p(x)
#define erf(x) ew_erf(x)
#define erfc(x) ew_erfc(x)
#define pow(a, b) ew_pow(a, b)
#define X(ENUM, name, id, FAMILY, ATTRS, DTYPES, OUT, DEFAULTS, FEXPR, IEXPR)                  \
	EW_TYPES(EW_BINARY, ENUM, ATTRS, DTYPES, OUT, FEXPR, IEXPR)                            \
	EW_TYPES(EW_UNARY, ENUM, ATTRS, DTYPES, OUT, FEXPR, IEXPR)
#include "proto/ops.def"
#undef X
#undef fmax
#undef fmin
#undef exp
#undef expm1
#undef tanh
#undef log
#undef log1p
#undef erf
#undef erfc
#undef pow

/* clamp: the bounds are already values of the input type, so comparing in it is exact
 * (float32 compares as the reference's double compare; NaN passes through). */
#define EW_BOUNDS_F(pl) const ew_t lo = (ew_t)(pl)->fmin, hi = (ew_t)(pl)->fmax
#define EW_BOUNDS_S(pl) const ew_t lo = (ew_t)(pl)->imin, hi = (ew_t)(pl)->imax
#define EW_BOUNDS_U(pl) const ew_t lo = (ew_t)(pl)->umin, hi = (ew_t)(pl)->umax
#define EW_CLAMP(T, ST, CT, CLS, unused)                                                       \
	static void ew_clamp_##T(const void *px, void *po, uint64_t n, const struct ew_plan *pl) \
	{                                                                                      \
		typedef ST ew_t;                                                               \
		const ST *X = px;                                                              \
		ST *O = po;                                                                    \
		EW_BOUNDS_##CLS(pl);                                                           \
		_Pragma("omp simd") for (uint64_t i = 0; i < n; i++)                           \
		{                                                                              \
			ST x = X[i];                                                           \
			O[i] = x < lo ? lo : x > hi ? hi : x;                                  \
		}                                                                              \
	}
EW_TYPES(EW_CLAMP, 0)

/* prelu: x >= 0 ? x : slope * x. A float product of two float32 (or float16) values rounds
 * once either way, so float arithmetic gives the reference's bits; integers wrap as its
 * __int128 product truncated does. */
#define EW_PRELU_F(x, s) ((x) >= 0 ? (x) : (s) * (x))
#define EW_PRELU_S(x, s) ((x) >= 0 ? (x) : (ew_t)((uint64_t)(int64_t)(s) * (uint64_t)(int64_t)(x)))
#define EW_PRELU_U(x, s) (x)
#define EW_PRELU_LOOP(CLS, LX, LS)                                                             \
	_Pragma("omp simd") for (uint64_t i = 0; i < n; i++)                                   \
	{                                                                                      \
		ew_t x = LX, sl = LS;                                                          \
		O[i] = (ew_t)EW_PRELU_##CLS(x, sl);                                              \
	}
#define EW_PRELU(T, ST, CT, CLS, unused)                                                       \
	static void ew_prelu_##T(const void *px, const void *ps, void *po, uint64_t n, int sx, \
				 int ss)                                                       \
	{                                                                                      \
		typedef ST ew_t;                                                               \
		const ST *X = px, *S = ps;                                                     \
		ST *O = po;                                                                    \
		if (sx && ss) {                                                                \
			EW_PRELU_LOOP(CLS, X[i], S[i])                                         \
		} else if (sx) {                                                               \
			const ST s0 = S[0];                                                    \
			EW_PRELU_LOOP(CLS, X[i], s0)                                           \
		} else {                                                                       \
			const ST x0 = X[0];                                                    \
			EW_PRELU_LOOP(CLS, x0, S[i])                                           \
		}                                                                              \
	}
EW_TYPES(EW_PRELU, 0)

#pragma GCC diagnostic pop

/* Kernel tables by operator and storage type (float16 runs the float32 kernel). */
#define EW_BIN_ENTRY(T, ST, CT, CLS, ENUM) [WNN_##T] = ew_b_##ENUM##_##T,
#define EW_UN_ENTRY(T, ST, CT, CLS, ENUM) [WNN_##T] = ew_u_##ENUM##_##T,
static const ew_bin_fn ew_bin[WNN_OP_COUNT][WNN_DT_COUNT] = {
#define X(ENUM, name, id, FAMILY, ATTRS, DTYPES, OUT, DEFAULTS, FEXPR, IEXPR)                  \
	[WNN_OP_##ENUM] = { EW_TYPES(EW_BIN_ENTRY, ENUM) },
#include "proto/ops.def"
#undef X
};
static const ew_un_fn ew_un[WNN_OP_COUNT][WNN_DT_COUNT] = {
#define X(ENUM, name, id, FAMILY, ATTRS, DTYPES, OUT, DEFAULTS, FEXPR, IEXPR)                  \
	[WNN_OP_##ENUM] = { EW_TYPES(EW_UN_ENTRY, ENUM) },
#include "proto/ops.def"
#undef X
};
#define EW_FN_ENTRY(T, ST, CT, CLS, PREFIX) [WNN_##T] = PREFIX##T,
static const ew_un_fn ew_clamp[WNN_DT_COUNT] = { EW_TYPES(EW_FN_ENTRY, ew_clamp_) };
static const ew_bin_fn ew_prelu[WNN_DT_COUNT] = { EW_TYPES(EW_FN_ENTRY, ew_prelu_) };

/* ---- prepare */

static bool ew_is_float(enum wnn_dtype t)
{
	return t == WNN_F32 || t == WNN_F16;
}

/* The storage type whose kernel runs type t. */
static enum wnn_dtype ew_kernel_type(enum wnn_dtype t)
{
	return t == WNN_F16 ? WNN_F32 : t;
}

/* ---- kernel choice: float32 storage runs cpu_transcendental.c's float32 kernels where there
 * is one (within 5 ulp, inside WPT's tolerances, 3-5x faster than the double ones); float16 and
 * every other operator the expression kernels above, which give the reference's bits. */

static void ew_u_f32(const void *px, void *po, uint64_t n, const struct ew_plan *pl)
{
	pl->f32un(px, po, n);
}

static ew_bin_fn ew_bin_kernel(enum wnn_op op, enum wnn_dtype t)
{
	ew_bin_fn f = t == WNN_F32 ? cpu_f32_binary(op) : NULL;
	return f ? f : ew_bin[op][ew_kernel_type(t)];
}

static void ew_un_kernel(struct ew_plan *pl, enum wnn_op op, enum wnn_dtype t)
{
	pl->f32un = t == WNN_F32 ? cpu_f32_unary(op) : NULL;
	pl->un = pl->f32un ? ew_u_f32 : ew_un[op][ew_kernel_type(t)];
}

/* Whether ops.def gives op an expression (or integer pow) for type t and allows t. */
static bool ew_has_kernel(enum wnn_op op, enum wnn_dtype t)
{
	if (t <= WNN_DT_NONE || t >= WNN_DT_COUNT || !(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
		return false;
	if (ew_is_float(t))
		return wnn_ops[op].has_float_expr;
	return wnn_ops[op].has_int_expr || op == WNN_OP_POW;
}

static void ew_destroy(void *priv)
{
	free(priv);
}

enum webnn_status cpu_elementwise_prepare(const struct cpu_build *b, struct cpu_step *s,
					  struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	const union wnn_attrs *at = &n->attrs;
	(void)b;
	s->run = NULL;
	struct ew_plan *pl = calloc(1, sizeof *pl);
	if (!pl) {
		char name[128];
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    graph_node_name(n, name, sizeof name));
	}
	enum wnn_dtype t = WNN_DT_NONE, out_t = WNN_DT_NONE;
	switch (wnn_ops[n->op].attrs) {
	case WNN_ATTRS_BINARY:
		t = at->binary.type;
		out_t = at->binary.out_type;
		if (!ew_has_kernel(n->op, t))
			break;
		ew_collapse(pl, &at->binary.bc);
		pl->in_ids[0] = at->binary.a;
		pl->in_ids[1] = at->binary.b;
		pl->out_id = at->binary.output;
		pl->bin = ew_bin_kernel(n->op, t);
		pl->row = row_bin;
		break;
	case WNN_ATTRS_UNARY:
		t = at->unary.type;
		out_t = at->unary.out_type;
		if (!ew_has_kernel(n->op, t))
			break;
		ew_flat(pl, 1, at->unary.count);
		pl->in_ids[0] = at->unary.input;
		pl->out_id = at->unary.output;
		pl->alpha = at->unary.alpha;
		pl->beta = at->unary.beta;
		ew_un_kernel(pl, n->op, t);
		pl->row = row_un;
		break;
	case WNN_ATTRS_CLAMP:
		t = out_t = at->clamp.type;
		if (t <= WNN_DT_NONE || t >= WNN_DT_COUNT)
			break;
		ew_flat(pl, 1, at->clamp.count);
		pl->in_ids[0] = at->clamp.input;
		pl->out_id = at->clamp.output;
		pl->fmin = at->clamp.min;
		pl->fmax = at->clamp.max;
		pl->imin = at->clamp.min_i;
		pl->imax = at->clamp.max_i;
		pl->umin = at->clamp.min_u;
		pl->umax = at->clamp.max_u;
		pl->un = ew_clamp[ew_kernel_type(t)];
		pl->row = row_un;
		break;
	case WNN_ATTRS_PRELU:
		t = out_t = at->prelu.type;
		if (!(t == WNN_F32 || t == WNN_F16 || t == WNN_I8 || t == WNN_I32 || t == WNN_I64))
			break;
		ew_collapse(pl, &at->prelu.bc);
		pl->in_ids[0] = at->prelu.input;
		pl->in_ids[1] = at->prelu.slope;
		pl->out_id = at->prelu.output;
		pl->bin = ew_prelu[ew_kernel_type(t)];
		pl->row = row_bin;
		break;
	case WNN_ATTRS_WHERE:
		t = out_t = at->where.type;
		if (wnn_dtype_size(t) == 0)
			break;
		ew_collapse(pl, &at->where.bc);
		pl->in_ids[0] = at->where.condition;
		pl->in_ids[1] = at->where.true_value;
		pl->in_ids[2] = at->where.false_value;
		pl->out_id = at->where.output;
		pl->in_es[0] = 1;
		pl->in_es[1] = pl->in_es[2] = pl->out_es = wnn_dtype_size(t);
		pl->row = row_where;
		break;
	default:
		break;
	}
	if (!pl->row) { /* nothing here for it: the reference kernel runs it */
		free(pl);
		return WEBNN_STATUS_OK;
	}
	if (pl->row != row_where) {
		for (int k = 0; k < pl->n_in; k++)
			pl->in_es[k] = wnn_dtype_size(t);
		pl->out_es = wnn_dtype_size(out_t);
		pl->half_in = t == WNN_F16;
		pl->half_out = out_t == WNN_F16;
	}
	s->priv = pl;
	s->destroy = ew_destroy;
	s->run = ew_run;
	s->impl = "C";
	return WEBNN_STATUS_OK;
}

/* ---- elementwise chains (graph_chain): the members' kernels one after another on blocks of
 * CPU_EW_BLOCK elements held in two stack buffers, so an activation like hard-swish written as
 * add, clamp, mul and div reads its input and writes its output once instead of four times, in
 * one step. Each member runs the kernel its own step would (the same bits); float16 members
 * round their block to float16 and back after each member, as their own steps would store it. */

/* Where a member's operand comes from: the block the previous member wrote, or a value beside
 * the chain (the chain's shape, or one element broadcast). */
struct chain_operand {
	bool chained;
	uint32_t value;
	int contig; /* side value: 1 same shape, 0 one element */
};

struct chain_op {
	struct ew_plan pl; /* options (alpha, beta, clamp bounds) and kernel */
	bool binary;
	struct chain_operand in[2];
};

struct chain_plan {
	uint64_t count;
	size_t es;         /* bytes of an element of the chain's type */
	bool half;         /* float16: float32 blocks, rounded through float16 after each member */
	uint32_t out_id;
	uint32_t n_ops;
	struct chain_op ops[];
};

bool cpu_joins_chain(const struct graph_ir *g, const struct graph_node *n)
{
	(void)g;
	switch (wnn_ops[n->op].attrs) {
	case WNN_ATTRS_UNARY:
		return ew_has_kernel(n->op, n->attrs.unary.type);
	case WNN_ATTRS_BINARY:
		return ew_has_kernel(n->op, n->attrs.binary.type);
	case WNN_ATTRS_CLAMP:
		return n->attrs.clamp.type > WNN_DT_NONE && n->attrs.clamp.type < WNN_DT_COUNT;
	default:
		return false;
	}
}

/* Float16 values beside the chain are converted per block into this scratch. */
struct chain_block {
	_Alignas(64) uint8_t buf[2][CPU_EW_BLOCK * 8];
	_Alignas(64) float side[2][CPU_EW_BLOCK];
	_Alignas(64) uint16_t half[CPU_EW_BLOCK];
};

static const void *chain_side(const struct chain_plan *cp, const struct chain_operand *o,
			      void *const *bufs, uint64_t at, uint64_t m, float *conv)
{
	const uint8_t *base = bufs[o->value];
	uint64_t n = o->contig ? m : 1, off = o->contig ? at : 0;
	if (!cp->half)
		return base + off * cp->es;
	cpu_half_to_float(conv, (const uint16_t *)base + off, n);
	return conv;
}

static void chain_block_run(const struct chain_plan *cp, void *const *bufs, uint64_t at,
			    uint64_t m, struct chain_block *blk)
{
	const void *cur = NULL;
	for (uint32_t k = 0; k < cp->n_ops; k++) {
		const struct chain_op *op = &cp->ops[k];
		bool last = k + 1 == cp->n_ops;
		void *dst = last && !cp->half ? (uint8_t *)bufs[cp->out_id] + at * cp->es
					     : blk->buf[k & 1];
		const void *in[2];
		int contig[2];
		for (int j = 0; j < (op->binary ? 2 : 1); j++) {
			const struct chain_operand *o = &op->in[j];
			in[j] = o->chained ? cur : chain_side(cp, o, bufs, at, m, blk->side[j]);
			contig[j] = o->chained ? 1 : o->contig;
		}
		if (op->binary)
			op->pl.bin(in[0], in[1], dst, m, contig[0], contig[1]);
		else
			op->pl.un(in[0], dst, m, &op->pl);
		if (cp->half) {
			/* stored as the member's own step would store it */
			cpu_float_to_half(last ? (uint16_t *)bufs[cp->out_id] + at : blk->half,
					  dst, m);
			if (!last)
				cpu_half_to_float(dst, blk->half, m);
		}
		cur = dst;
	}
}

static enum webnn_status chain_run(const struct cpu_step *s, void *const *bufs,
				   const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct chain_plan *cp = s->priv;
	uint64_t count = cp->count;
	if (x->threads <= 1 || count < CPU_EW_PAR_MIN) { /* no region: see ew_run */
		struct chain_block blk;
		for (uint64_t at = 0; at < count && !cpu_cancelled(x); at += CPU_EW_BLOCK)
			chain_block_run(cp, bufs, at,
					count - at < CPU_EW_BLOCK ? count - at : CPU_EW_BLOCK, &blk);
		return cpu_kernel_status(x, diag);
	}
#pragma omp parallel num_threads(x->threads)
	{
		struct chain_block blk;
		uint64_t b, e;
		cpu_ew_split(count, omp_get_thread_num(), omp_get_num_threads(), &b, &e);
		for (uint64_t at = b; at < e && !cpu_cancelled(x); at += CPU_EW_BLOCK)
			chain_block_run(cp, bufs, at, e - at < CPU_EW_BLOCK ? e - at : CPU_EW_BLOCK,
					&blk);
	}
	return cpu_kernel_status(x, diag);
}

/* The type a chainable member computes in (and writes: chainable nodes keep their type). */
static enum wnn_dtype chain_member_type(const struct graph_node *n)
{
	switch (wnn_ops[n->op].attrs) {
	case WNN_ATTRS_UNARY:
		return n->attrs.unary.type;
	case WNN_ATTRS_BINARY:
		return n->attrs.binary.type;
	default:
		return n->attrs.clamp.type;
	}
}

/* One member's operand k (value v) given the value the previous member wrote. */
static struct chain_operand chain_operand_of(const struct graph_ir *g, uint32_t v, uint32_t prev,
					     uint64_t count)
{
	uint64_t n = 0;
	if (v == prev)
		return (struct chain_operand){ .chained = true, .value = v, .contig = 1 };
	wnn_desc_count(&g->values[v].desc, &n);
	return (struct chain_operand){ .value = v, .contig = n == count && count != 1 ? 1 : 0 };
}

enum webnn_status cpu_chain_prepare(const struct cpu_build *b, struct cpu_step *s,
				    struct wnn_diag *diag)
{
	const struct graph_node *head = s->n;
	const struct graph_ir *g = b->g;
	const struct graph_chain *c = &head->chain;
	const struct graph_node *tail = &g->nodes[c->members[c->n_members - 1]];
	char name[96];
	struct chain_plan *cp = calloc(1, sizeof *cp + c->n_members * sizeof cp->ops[0]);
	if (!cp)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    graph_node_name(head, name, sizeof name));
	const struct wnn_desc *od = &g->values[tail->outputs[0]].desc;
	enum wnn_dtype t = od->type;
	wnn_desc_count(od, &cp->count);
	cp->es = wnn_dtype_size(t);
	cp->half = t == WNN_F16;
	cp->out_id = tail->outputs[0];
	cp->n_ops = c->n_members;
	uint32_t prev = GRAPH_NONE;
	for (uint32_t k = 0; k < c->n_members; k++) {
		const struct graph_node *n = &g->nodes[c->members[k]];
		struct chain_op *op = &cp->ops[k];
		const union wnn_attrs *at = &n->attrs;
		if (!cpu_joins_chain(g, n) || chain_member_type(n) != t) {
			/* the passes asked cpu_joins_chain: this is their bug, not the client's */
			free(cp);
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "cpu: %s was chained without a kernel for it",
					    graph_node_name(n, name, sizeof name));
		}
		switch (wnn_ops[n->op].attrs) {
		case WNN_ATTRS_BINARY:
			op->binary = true;
			op->pl.bin = ew_bin_kernel(n->op, t);
			op->in[0] = chain_operand_of(g, at->binary.a, prev, cp->count);
			op->in[1] = chain_operand_of(g, at->binary.b, prev, cp->count);
			break;
		case WNN_ATTRS_UNARY:
			ew_un_kernel(&op->pl, n->op, t);
			op->pl.alpha = at->unary.alpha;
			op->pl.beta = at->unary.beta;
			op->in[0] = chain_operand_of(g, at->unary.input, prev, cp->count);
			break;
		default: /* clamp */
			op->pl.un = ew_clamp[ew_kernel_type(t)];
			op->pl.fmin = at->clamp.min;
			op->pl.fmax = at->clamp.max;
			op->pl.imin = at->clamp.min_i;
			op->pl.imax = at->clamp.max_i;
			op->pl.umin = at->clamp.min_u;
			op->pl.umax = at->clamp.max_u;
			op->in[0] = chain_operand_of(g, at->clamp.input, prev, cp->count);
		}
		prev = n->outputs[0];
	}
	/* a chain may have thousands of members: its plan is charged like the steps it replaces */
	if (b->owned_bytes)
		atomic_fetch_add_explicit(b->owned_bytes,
					  sizeof *cp + c->n_members * sizeof cp->ops[0],
					  memory_order_relaxed);
	s->priv = cp;
	s->destroy = ew_destroy;
	s->run = chain_run;
	s->impl = "C chain";
	return WEBNN_STATUS_OK;
}
