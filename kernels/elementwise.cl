/* Elementwise unary/binary/clamp kernels; the EWB/EWU op lines (from proto/ops.def) are appended per data type. */

/* The prefix defines T (storage), ACC (compute), LD(p, i) and ST(p, i, v). */
#define OT_SAME T
#define OT_U8 uchar
#define ST_SAME(p, i, v) ST(p, i, v)
#define ST_U8(p, i, v) ((p)[i] = (uchar)((v) ? 1 : 0))

/* Offsets of output element i in two operands read through broadcast strides. */
inline void bc2(uint i, uint rank, uint8 dims_, uint8 as_, uint8 bs_, uint *ia, uint *ib)
{
	uint dims[8], as[8], bs[8];
	vstore8(dims_, 0, dims);
	vstore8(as_, 0, as);
	vstore8(bs_, 0, bs);
	uint oa = 0, ob = 0;
	for (int d = (int)rank - 1; d >= 0; d--) {
		uint c = i % dims[d];
		i /= dims[d];
		oa += c * as[d];
		ob += c * bs[d];
	}
	*ia = oa;
	*ib = ob;
}

#ifdef IS_INT
/* Integer pow as the reference backend computes it: exact a^b by repeated squaring modulo
 * 2^64 (the store truncates, as integer mul does); a negative exponent gives the truncated
 * 1 / a^|b|: 1 for a = 1, +-1 for a = -1 (by parity), else 0. */
inline ACC ew_ipow(ACC a, ACC b)
{
	if (b < (ACC)0)
		return a == (ACC)1 ? (ACC)1 : a == (ACC)-1 ? ((b & 1) ? (ACC)-1 : (ACC)1) : (ACC)0;
	ulong r = 1, x = (ulong)a, e = (ulong)b;
	while (e) {
		if (e & 1)
			r *= x;
		x *= x;
		e >>= 1;
	}
	return (ACC)r;
}
#endif

/* rank 0: both operands have the output's shape (flat index). */
#define EWB_(name, OUT, CT, expr)                                                              \
	__kernel void name(__global const T *A, __global const T *B, __global OT_##OUT *O,       \
				uint n, uint rank, uint8 dims, uint8 as, uint8 bs)               \
	{                                                                                      \
		uint i = get_global_id(0);                                                     \
		if (i >= n)                                                                    \
			return;                                                                \
		uint ia = i, ib = i;                                                           \
		if (rank)                                                                      \
			bc2(i, rank, dims, as, bs, &ia, &ib);                                  \
		CT a = (CT)LD(A, ia), b = (CT)LD(B, ib);                                       \
		ST_##OUT(O, i, CVT_##CT(expr));                                                \
	}
#define CVT_ACC(v) (v)
/* ew_##name is pasted here so that operator names that are also macros (max) stay names. */
#define EWB(name, OUT, expr) EWB_(ew_##name, OUT, ACC, expr)
/* Integer operators without an integer expression (pow) are computed in FACC (double when the
 * device has it) and converted back with saturation. */
#define CVT_FACC(v) CONVERT_SAT(v)
#define EWBF(name, OUT, expr) EWB_(ew_##name, OUT, FACC, expr)

#define EWU(name, OUT, expr) EWU_(ew_##name, OUT, expr)
#define EWU_(name, OUT, expr)                                                                  \
	__kernel void name(__global const T *X, __global OT_##OUT *O, uint n, float alpha_, \
				float beta_)                                                     \
	{                                                                                      \
		uint i = get_global_id(0);                                                     \
		if (i >= n)                                                                    \
			return;                                                                \
		ACC x = LD(X, i);                                                              \
		ACC alpha = (ACC)alpha_, beta = (ACC)beta_;                                    \
		(void)alpha;                                                                   \
		(void)beta;                                                                    \
		ST_##OUT(O, i, (expr));                                                        \
	}

/* clamp keeps NaN (both comparisons are false). lo/hi are in ACC (exact for 64-bit ints). */
__kernel void ew_clamp(__global const T *X, __global T *O, uint n, ACC lo, ACC hi)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	ACC x = LD(X, i);
	ST(O, i, x < lo ? lo : (x > hi ? hi : x));
}

/* batchNormalization with the input viewed as [outer, channels, inner]. */
#ifdef IS_FLOAT
__kernel void batchnorm(__global const T *X, __global const T *M, __global const T *V,
			__global const T *S, __global const T *B, __global T *O, uint n,
			uint channels, uint inner, float eps, uint has_scale, uint has_bias)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint c = (i / inner) % channels;
	float v = ((float)LD(X, i) - (float)LD(M, c)) / sqrt((float)LD(V, c) + eps);
	if (has_scale)
		v *= (float)LD(S, c);
	if (has_bias)
		v += (float)LD(B, c);
	ST(O, i, v);
}

/* softmax over the middle axis of [outer, axis, inner]; one work-item per (outer, inner). */
__kernel void softmax(__global const T *X, __global T *O, uint outer, uint axis, uint inner)
{
	uint i = get_global_id(0);
	if (i >= outer * inner)
		return;
	uint base = (i / inner) * axis * inner + i % inner;
	float m = -INFINITY;
	for (uint k = 0; k < axis; k++)
		m = fmax(m, (float)LD(X, base + k * inner));
	float s = 0;
	for (uint k = 0; k < axis; k++)
		s += exp((float)LD(X, base + k * inner) - m);
	for (uint k = 0; k < axis; k++)
		ST(O, base + k * inner, exp((float)LD(X, base + k * inner) - m) / s);
}
#endif
