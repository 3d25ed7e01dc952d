/* Elementwise kernels: unary/binary (EWB/EWU lines from ops.def appended), clamp, prelu, where. */

#ifdef WHERE_SELECT
/* where moves values only: the prefix defines T as an unsigned integer type of the element size. */
inline void unpack_u(uint8 v, uint *a)
{
	vstore8(v, 0, a);
}

/* where: condition (uchar) and the two values broadcast to the output. */
__kernel void where_select(__global const uchar *C, __global const T *A, __global const T *B,
			   __global T *D, uint n, uint rank, uint8 dims_, uint8 cs_, uint8 as_,
			   uint8 bs_)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint dims[8], cs[8], as[8], bs[8];
	unpack_u(dims_, dims);
	unpack_u(cs_, cs);
	unpack_u(as_, as);
	unpack_u(bs_, bs);
	ulong oc = 0, oa = 0, ob = 0;
	uint j = i;
	for (int d = (int)rank - 1; d >= 0; d--) {
		uint c = j % dims[d];
		j /= dims[d];
		oc += (ulong)c * cs[d];
		oa += (ulong)c * as[d];
		ob += (ulong)c * bs[d];
	}
	D[i] = C[oc] ? A[oa] : B[ob];
}

#else

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

/* Offset of element j of a space of `rank` dims, walked through strides. */
inline ulong walk(uint j, uint rank, const uint *dims, const uint *str)
{
	ulong off = 0;
	for (int d = (int)rank - 1; d >= 0; d--) {
		off += (ulong)(j % dims[d]) * str[d];
		j /= dims[d];
	}
	return off;
}

/* prelu: x < 0 ? x * slope : x, both read through broadcast strides. */
__kernel void prelu(__global const T *X, __global const T *S, __global T *O, uint n, uint rank,
		    uint8 dims_, uint8 xs_, uint8 ss_)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint dims[8], xs[8], ss[8];
	vstore8(dims_, 0, dims);
	vstore8(xs_, 0, xs);
	vstore8(ss_, 0, ss);
	ulong ox = walk(i, rank, dims, xs), os = walk(i, rank, dims, ss);
	ACC x = LD(X, ox), s = LD(S, os);
	ST(O, i, x < 0 ? x * s : x);
}
#endif
