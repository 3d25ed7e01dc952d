/* float32 erf, gelu, tanh, exp, log, sigmoid and pow computed in float32 with FMA, eight or sixteen lanes a register, within a few ulp of the correctly rounded result. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"

/*
 * The generic elementwise kernels (cpu_elementwise.c) compute float32 in double so that they give
 * the reference's bits; for these functions that costs a double polynomial of degree 13-23 two or
 * four lanes a register (one thread: erf 6.1 ns an element, gelu 4.8, pow 5.7, tanh 2.2).
 * WPT allows erf 1/1024 absolute, exp 32 ulp, log 8, tanh 16, sigmoid 34, gelu 18 and pow 32: the
 * kernels here stay within 5 ulp (tests/test_cpu_elementwise.c checks a sample of every float32
 * input against libm in double) and run in float32, with fused multiply-adds where a product must
 * not round. They run on AVX2+FMA and AVX-512 (the default clone exists because target_clones
 * needs one); without FMA, for float16 storage (which keeps the reference's bits) or with
 * WEBNN_CPU_EXACT_MATH set, the double kernels run.
 *
 * Every function is branch-free (selects) so that the element loops vectorise; bit patterns are
 * read through memcpy and integer arithmetic is unsigned where it may wrap.
 */

/* As cpu_elementwise.c: conditionals become selects only when they may raise exceptions the C
 * code would not (nothing reads the flags); products and sums are contracted only where written
 * as fmaf (the two-part sums below rely on it). */
#pragma GCC optimize("no-trapping-math", "fp-contract=off")

#define TR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define TR_INLINE static inline __attribute__((always_inline))

TR_INLINE uint32_t tr_bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

TR_INLINE float tr_float(uint32_t u)
{
	float x;
	memcpy(&x, &u, sizeof x);
	return x;
}

/* e^x: k = round(x / ln 2) by the 1.5 * 2^23 shifter (its low bits are k), r = x - k ln 2 in two
 * fused steps (|r| <= ln 2 / 2), e^r by Taylor to degree 7 (truncation 5e-9 relative), and 2^k
 * as two normal powers so that results down to the smallest subnormal round once. x is held in
 * [-104, 89], where the result already is 0 or inf; NaN passes through every step. */
TR_INLINE float tr_exp(float x)
{
	const float shifter = 0x1.8p23f;
	float xc = x > 89.0f ? 89.0f : x < -104.0f ? -104.0f : x;
	float t = xc * 0x1.715476p0f + shifter;
	float k = t - shifter;
	uint32_t ki = tr_bits(t) - tr_bits(shifter); /* k modulo 2^32 */
	float r = __builtin_fmaf(-k, 0x1.62e43p-1f, xc);
	r = __builtin_fmaf(-k, -0x1.05c610p-29f, r);
	float p = 1.0f / 5040.0f;
	p = __builtin_fmaf(p, r, 1.0f / 720.0f);
	p = __builtin_fmaf(p, r, 1.0f / 120.0f);
	p = __builtin_fmaf(p, r, 1.0f / 24.0f);
	p = __builtin_fmaf(p, r, 1.0f / 6.0f);
	p = __builtin_fmaf(p, r, 0.5f);
	p = __builtin_fmaf(p, r, 1.0f);
	p = __builtin_fmaf(p, r, 1.0f);
	/* k in [-150, 129]: halves in [-75, 65], each a normal power */
	uint32_t k1 = (uint32_t)((int32_t)ki / 2), k2 = ki - k1;
	float s1 = tr_float((k1 + 127u) << 23), s2 = tr_float((k2 + 127u) << 23);
	return p * s1 * s2;
}

/* erf(x) / x = P(x^2) for |x| < 0.875, degree 6 (error 2e-10), fitted with mpmath.chebyfit. */
TR_INLINE float tr_erf_small(float z)
{
	float p = 8.690368907e-05f;
	p = __builtin_fmaf(p, z, -8.214570887e-04f);
	p = __builtin_fmaf(p, z, 5.207048911e-03f);
	p = __builtin_fmaf(p, z, -2.686170583e-02f);
	p = __builtin_fmaf(p, z, 1.128373521e-01f);
	p = __builtin_fmaf(p, z, -3.761263621e-01f);
	p = __builtin_fmaf(p, z, 1.128379167e+00f);
	return p;
}

/* erfc(a) for a >= 0.875 given a^2 as hi + lo: e^(-a^2) R(a), R = erfc e^(a^2) a polynomial of
 * degree 8 in t = (1 / (a + 1) - c) / h on [0.875, 2.5] and on [2.5, 10.5] (relative error
 * 3e-10; centred so that its coefficients fall off and float32 Horner loses nothing), the
 * lane's interval picked per coefficient. lo corrects e^(-hi) to first order: a^2 rounded moves
 * erfc by 2 a^2 2^-24 relative (100 ulp at a = 10), which gelu's negative tail would show. */
static const float tr_erfc_near[9] = {
	3.905555308e-08f, -7.725990454e-08f, -1.325677552e-06f, 1.326752595e-05f, -1.597827572e-05f,
	-8.444857755e-04f, 6.213827538e-03f,  1.275839051e-01f,	 3.313624110e-01f,
};
static const float tr_erfc_far[9] = {
	-1.797520670e-08f, -8.867585314e-08f, 1.028103778e-06f, 2.059048564e-06f, -6.162918378e-05f,
	-1.145488676e-04f, 6.157232790e-03f,  7.876981064e-02f, 1.260525182e-01f,
};

struct tr_pair {
	float hi, lo;
};

/* erfc(a) as the product hi lo (hi = e^(-a^2), lo = the rest), so that a caller scaling it can
 * multiply hi first: hi lo alone is subnormal from a = 9.3 on, where rounding it would cost
 * gelu several ulp. */
TR_INLINE struct tr_pair tr_erfc_tail(float a, float a2, float a2lo)
{
	float ac = a > 10.5f ? 10.5f : a;
	bool far = ac >= 2.5f;
	float u = 1.0f / (ac + 1.0f);
	float t = far ? (u - 0.18633540372670807f) * 10.0625f
		      : (u - 0.4095238095238095f) * 8.076923076923077f;
	float r = far ? tr_erfc_far[0] : tr_erfc_near[0];
#define TR_HB(i) r = __builtin_fmaf(r, t, far ? tr_erfc_far[i] : tr_erfc_near[i])
	TR_HB(1);
	TR_HB(2);
	TR_HB(3);
	TR_HB(4);
	TR_HB(5);
	TR_HB(6);
	TR_HB(7);
	TR_HB(8);
#undef TR_HB
	return (struct tr_pair){ tr_exp(-a2), __builtin_fmaf(-a2lo, r, r) };
}

/* erfc(a) e^(a^2) on [0.875, 4] (where erf leaves 1 in float32) as one polynomial of degree 11
 * in t = (a - 2.4375) / 1.5625 (relative error 1.5e-7, so erf within 3e-8 absolute; fitted
 * with mpmath.chebyfit): the erf tail needs no division and no second interval. */
static const float tr_erf_tail[12] = {
	-7.047290807e-05f, 1.809951838e-04f, -2.434042769e-04f, 5.740396922e-04f,
	-1.551264944e-03f, 3.517781067e-03f, -7.612086665e-03f, 1.613701212e-02f,
	-3.299003445e-02f, 6.469321114e-02f, -1.211887939e-01f, 2.155524660e-01f,
};

TR_INLINE float tr_erf(float x)
{
	float a = fabsf(x);
	float ac = a > 4.0f ? 4.0f : a < 0.875f ? 0.875f : a; /* erf(4) rounds to 1 */
	float t = (ac - 2.4375f) * 0.64f;
	/* Horner written out: a loop over the coefficients would keep the element loop scalar */
	float r = tr_erf_tail[0];
	r = __builtin_fmaf(r, t, tr_erf_tail[1]);
	r = __builtin_fmaf(r, t, tr_erf_tail[2]);
	r = __builtin_fmaf(r, t, tr_erf_tail[3]);
	r = __builtin_fmaf(r, t, tr_erf_tail[4]);
	r = __builtin_fmaf(r, t, tr_erf_tail[5]);
	r = __builtin_fmaf(r, t, tr_erf_tail[6]);
	r = __builtin_fmaf(r, t, tr_erf_tail[7]);
	r = __builtin_fmaf(r, t, tr_erf_tail[8]);
	r = __builtin_fmaf(r, t, tr_erf_tail[9]);
	r = __builtin_fmaf(r, t, tr_erf_tail[10]);
	r = __builtin_fmaf(r, t, tr_erf_tail[11]);
	float tail = 1.0f - tr_exp(-(ac * ac)) * r;
	float small = x * tr_erf_small(x * x);
	float y = a < 0.875f ? small : copysignf(tail, x);
	return x != x ? x + x : y;
}

/* gelu(x) = x/2 erfc(-x / sqrt 2). Beyond |x / sqrt 2| >= 0.875 erfc comes from the tail:
 * 2 - erfc(w) above, erfc(|w|) below, there with w^2 = x^2 / 2 exact as hi + lo (x^2 by a fused
 * multiply-add, halved exactly). x is held at -20 for the tail (gelu is -0 there already) so that
 * x^2 stays finite; the product with the unheld x gives -0, NaN for -inf, as the reference. */
TR_INLINE float tr_gelu(float x)
{
	float xc = x < -20.0f ? -20.0f : x > 20.0f ? 20.0f : x;
	float w = xc * 0.70710678118654752f;
	float aw = fabsf(w);
	float s = xc * xc, slo = __builtin_fmaf(xc, xc, -s);
	struct tr_pair ec = tr_erfc_tail(aw < 0.875f ? 0.875f : aw, 0.5f * s, 0.5f * slo);
	float near = __builtin_fmaf(w, tr_erf_small(w * w), 1.0f);
	float hx = 0.5f * x;
	float pos = hx * (2.0f - ec.hi * ec.lo), neg = (hx * ec.hi) * ec.lo;
	return aw < 0.875f ? hx * near : w > 0 ? pos : neg;
}

/* tanh: x + x^3 P(x^2) below 0.55 (degree 5, error 4e-10), 1 - 2 / (e^(2|x|) + 1) above (where
 * the subtraction loses nothing: the result is over 1/2); the sign put back. */
TR_INLINE float tr_tanh(float x)
{
	float a = fabsf(x), z = x * x;
	float p = 2.526390711e-03f;
	p = __builtin_fmaf(p, z, -8.526333058e-03f);
	p = __builtin_fmaf(p, z, 2.181844913e-02f);
	p = __builtin_fmaf(p, z, -5.396470045e-02f);
	p = __builtin_fmaf(p, z, 1.333332420e-01f);
	p = __builtin_fmaf(p, z, -3.333333330e-01f);
	float small = __builtin_fmaf(x * z, p, x);
	float e = tr_exp(2.0f * (a > 9.5f ? 9.5f : a));
	float big = 1.0f - 2.0f / (e + 1.0f);
	float y = a < 0.55f ? small : big;
	return a != a ? x + x : copysignf(y, x);
}

/* sigmoid: e = e^-|x| (never overflows), 1 / (1 + e) or e / (1 + e). */
TR_INLINE float tr_sigmoid(float x)
{
	float e = tr_exp(-fabsf(x));
	return (x < 0 ? e : 1.0f) / (1.0f + e);
}

/* log: x = 2^k m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), log(1 + f) = f - s (f - R)
 * with s = f / (2 + f) and R = 2 atanh(s) - 2 s to s^9 (|s| <= 0.172: truncation 4e-9), plus
 * k ln 2 in two parts (ln2_hi has 16 bits, so k ln2_hi is exact). Subnormals are scaled by 2^23
 * first. */
TR_INLINE float tr_log(float x)
{
	bool tiny = x < 0x1p-126f;
	uint32_t b = tr_bits(tiny ? x * 0x1p23f : x);
	float k = (float)(int32_t)((b >> 23) & 0xffu) - (tiny ? 150.0f : 127.0f);
	float m = tr_float((b & 0x007fffffu) | 0x3f800000u);
	bool big = m > 1.41421356f;
	m = big ? m * 0.5f : m;
	k = big ? k + 1.0f : k;
	float f = m - 1.0f;
	float s = f / (2.0f + f), z = s * s;
	float r = 2.0f / 9.0f;
	r = __builtin_fmaf(r, z, 2.0f / 7.0f);
	r = __builtin_fmaf(r, z, 2.0f / 5.0f);
	r = __builtin_fmaf(r, z, 2.0f / 3.0f);
	r = r * z;
	float lm = f - s * (f - r);
	float y = __builtin_fmaf(k, 0x1.62e4p-1f, __builtin_fmaf(k, 0x1.7f7d1cp-20f, lm));
	return x != x ? x + x : x < 0 ? (float)NAN : x == 0 ? -INFINITY : x == INFINITY ? x : y;
}

/* log|a| as hi + lo (hi + lo within 2^-40 relative of the exact value) for pow: the log above
 * with its last steps in two parts, so that b log|a| (up to ~104 where the result is finite and
 * nonzero) keeps 2^-32 absolute and e^(b log|a|) a few ulp. */
TR_INLINE struct tr_pair tr_log2part(float x)
{
	bool tiny = x < 0x1p-126f;
	uint32_t b = tr_bits(tiny ? x * 0x1p23f : x);
	float k = (float)(int32_t)((b >> 23) & 0xffu) - (tiny ? 150.0f : 127.0f);
	float m = tr_float((b & 0x007fffffu) | 0x3f800000u);
	bool big = m > 1.41421356f;
	m = big ? m * 0.5f : m;
	k = big ? k + 1.0f : k;
	float f = m - 1.0f;
	/* s = f / (2 + f) as sh + sl: 2 + f rounds (f has 24 bits, 2 + f may need 25), its error
	 * d is exact; sl = (f - sh (2 + f)) / (2 + f) */
	float den = 2.0f + f, dlo = (2.0f - den) + f;
	float sh = f / den;
	float sl = (__builtin_fmaf(-sh, den, f) - sh * dlo) / den;
	float z = sh * sh;
	float r = 2.0f / 11.0f;
	r = __builtin_fmaf(r, z, 2.0f / 9.0f);
	r = __builtin_fmaf(r, z, 2.0f / 7.0f);
	r = __builtin_fmaf(r, z, 2.0f / 5.0f);
	r = __builtin_fmaf(r, z, 2.0f / 3.0f);
	/* log(1 + f) = 2 s + s^3 r: 2 sh exact, the rest small */
	float s3r = sh * z * r;
	float rest = __builtin_fmaf(2.0f, sl, s3r);
	/* k ln2 = k L1 + k L2 + k L3 with L1 of 16 bits (k L1 exact) */
	float kh = k * 0x1.62e4p-1f;
	float kl = __builtin_fmaf(k, 0x1.7f7d1cp-20f, k * 0x1.ef357ap-45f);
	float two_s = 2.0f * sh;
	float h = kh + two_s;
	float err = (kh - h) + two_s; /* exact when |kh| >= |2 sh| */
	float err2 = (two_s - h) + kh;	/* exact when |2 sh| > |kh| */
	float e1 = fabsf(kh) >= fabsf(two_s) ? err : err2;
	float l = e1 + kl + rest;
	float hh = h + l;
	/* log 0 = -inf, log inf = inf (the scaling above would give finite values) */
	hh = x == 0 ? -INFINITY : x == INFINITY ? x : hh;
	return (struct tr_pair){ hh, (h - hh) + l };
}

/* pow in float32: e^(b log|a|) with b log|a| as a two-part product (b hi by a fused
 * multiply-add keeps its rounding error), e^(y_hi) (1 + y_lo); integer exponents up to 4 by
 * multiplication (x^2 rounds once, as the reference; x^3 and x^4 twice). C's special cases as
 * cpu_elementwise.c's ew_pow: pow(a, 0) = pow(1, b) = 1 even for NaN, a negative base takes the
 * sign of an odd integer exponent and gives NaN for a finite non-integer one, pow(-1, +-inf) = 1. */
TR_INLINE float tr_pow(float a, float b)
{
	float m = fabsf(a);
	struct tr_pair lg = tr_log2part(m);
	float lh = lg.hi, ll = lg.lo;
	float yh = b * lh;
	float yl = __builtin_fmaf(b, lh, -yh) + b * ll;
	/* beyond 128 e^yh is 0 or inf already (and yl may be NaN: log|a| infinite) */
	bool fin = fabsf(yh) < 128.0f;
	float y = m == 1.0f ? 0.0f : yh;
	float r = tr_exp(y);
	r = (fin & (r < INFINITY)) ? __builtin_fmaf(r, yl, r) : r;
	r = m == 1.0f ? 1.0f : r;
	/* small integers by squaring: x^b = prod of x^(2^i) for the bits of |b|, 1 / that for b < 0 */
	float ab = fabsf(b);
	bool integral = b == __builtin_floorf(b);
	float bh = b * 0.5f;
	bool odd = integral & (bh != __builtin_floorf(bh));
	float m2 = m * m;
	float q = ab == 1.0f ? m : ab == 2.0f ? m2 : ab == 3.0f ? m2 * m : m2 * m2;
	/* |a|^|b| out of range: the exponential form has the (subnormal, zero or infinite) result */
	bool qok = (q > 0) & (q < INFINITY);
	q = b < 0 ? 1.0f / q : q;
	r = (integral & (ab <= 4.0f) & qok) ? q : r;
	r = ((copysignf(1.0f, a) < 0) & odd) ? -r : r; /* -0 included: pow(-0, -1) = -inf */
	r = ((a < 0) & !integral & (a > -INFINITY) & (ab < INFINITY)) ? (float)NAN : r;
	r = ((a != a) | (b != b)) ? a + b : r;
	return ((b == 0) | (a == 1.0f)) ? 1.0f : r;
}

#define TR_UNARY(NAME)                                                                         \
	TR_CLONES static void tr_##NAME##_row(const float *x, float *o, uint64_t n)           \
	{                                                                                      \
		_Pragma("omp simd") for (uint64_t i = 0; i < n; i++) o[i] = tr_##NAME(x[i]);  \
	}
TR_UNARY(erf)
TR_UNARY(gelu)
TR_UNARY(tanh)
TR_UNARY(exp)
TR_UNARY(log)
TR_UNARY(sigmoid)

TR_INLINE void tr_pow_block(const float *a, const float *b, float *o, uint64_t n)
{
	_Pragma("omp simd") for (uint64_t i = 0; i < n; i++) o[i] = tr_pow(a[i], b[i]);
}

/* A broadcast operand is spread over a block first: a loop with one operand invariant turns its
 * conditions on that operand into branches and no longer vectorises. */
TR_CLONES static void tr_pow_row(const void *pa, const void *pb, void *po, uint64_t n, int sa,
				 int sb)
{
	const float *a = pa, *b = pb;
	float *o = po;
	if (sa && sb) {
		tr_pow_block(a, b, o, n);
		return;
	}
	float spread[256];
	for (int i = 0; i < 256; i++)
		spread[i] = sa ? b[0] : a[0];
	for (uint64_t i = 0; i < n; i += 256) {
		uint64_t m = n - i < 256 ? n - i : 256;
		if (sa)
			tr_pow_block(a + i, spread, o + i, m);
		else
			tr_pow_block(spread, b + i, o + i, m);
	}
}

/* One softmax row of k elements after its prologue (graph_softmax_prologue): x times scale
 * (mode 1) or divided by it (mode 2; 0: neither), plus the mask (NULL: none; read with stride
 * mask_stride, 0 or 1), rounded as the separate steps round them; then the reference's formula,
 * e^(t - max) / sum, with the float32 exponential. A NaN anywhere makes the row NaN, as the
 * reference's max does; -inf - -inf and inf - inf give NaN as in it. */
TR_CLONES void cpu_f32_softmax_row(const float *restrict x, const float *restrict mask,
				   int mask_stride, float scale, int mode, float *restrict o, uint64_t k)
{
	if (mode == 1) {
		_Pragma("omp simd") for (uint64_t i = 0; i < k; i++) o[i] = x[i] * scale;
	} else if (mode == 2) {
		_Pragma("omp simd") for (uint64_t i = 0; i < k; i++) o[i] = x[i] / scale;
	} else {
		memcpy(o, x, k * sizeof *o);
	}
	if (mask && mask_stride) {
		_Pragma("omp simd") for (uint64_t i = 0; i < k; i++) o[i] += mask[i];
	} else if (mask) {
		const float m0 = mask[0];
		_Pragma("omp simd") for (uint64_t i = 0; i < k; i++) o[i] += m0;
	}
	/* max and sum over 16 partial lanes (omp simd reductions do not vectorise here); a NaN
	 * is passed over by the max but makes the sum, so the whole row, NaN */
	float pm[16], ps[16];
	for (int j = 0; j < 16; j++)
		pm[j] = -INFINITY, ps[j] = 0;
	uint64_t k16 = k & ~(uint64_t)15;
	for (uint64_t i = 0; i < k16; i += 16)
		for (int j = 0; j < 16; j++)
			pm[j] = o[i + j] > pm[j] ? o[i + j] : pm[j];
	float mx = -INFINITY;
	for (uint64_t i = k16; i < k; i++)
		mx = o[i] > mx ? o[i] : mx;
	for (int j = 0; j < 16; j++)
		mx = pm[j] > mx ? pm[j] : mx;
	_Pragma("omp simd") for (uint64_t i = 0; i < k; i++) o[i] = tr_exp(o[i] - mx);
	for (uint64_t i = 0; i < k16; i += 16)
		for (int j = 0; j < 16; j++)
			ps[j] += o[i + j];
	float sum = 0;
	for (uint64_t i = k16; i < k; i++)
		sum += o[i];
	for (int j = 0; j < 16; j++)
		sum += ps[j];
	_Pragma("omp simd") for (uint64_t i = 0; i < k; i++) o[i] = o[i] / sum;
}

/* AVX2 with FMA or better, unless WEBNN_CPU_EXACT_MATH is set (the double kernels then give the
 * reference's bits, as float16 always does). */
static bool tr_usable(void)
{
	static int cpu = -1; /* benign race: every thread computes the same value */
	if (cpu < 0)
		cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	const char *exact = getenv("WEBNN_CPU_EXACT_MATH");
	return cpu > 0 && !(exact && *exact && strcmp(exact, "0") != 0);
}

cpu_f32_unary_fn cpu_f32_unary(enum wnn_op op)
{
	if (!tr_usable())
		return NULL;
	switch (op) {
	case WNN_OP_ERF: return tr_erf_row;
	case WNN_OP_GELU: return tr_gelu_row;
	case WNN_OP_TANH: return tr_tanh_row;
	case WNN_OP_EXP: return tr_exp_row;
	case WNN_OP_LOG: return tr_log_row;
	case WNN_OP_SIGMOID: return tr_sigmoid_row;
	default: return NULL;
	}
}

cpu_f32_binary_fn cpu_f32_binary(enum wnn_op op)
{
	return op == WNN_OP_POW && tr_usable() ? tr_pow_row : NULL;
}
