/* Conversions between data types: cast, quantizeLinear and dequantizeLinear. */

/* cast: the prefix defines TI/TO (storage types), LDI(p, i) (a float for float16, else the
 * value), STO(p, i, v), and FROM_FLOAT/TO_FLOAT when that side is float32 or float16.
 * Float -> integer truncates and saturates (NaN -> 0: convert_*_sat); integer -> integer wraps
 * (a plain C conversion); anything -> float rounds to nearest. */
#ifdef CAST
__kernel void cast(__global const TI *X, __global TO *O, uint n)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
#if defined(FROM_FLOAT) && !defined(TO_FLOAT)
	STO(O, i, CVT_SAT_RTZ(LDI(X, i)));
#elif defined(TO_FLOAT)
	STO(O, i, convert_float(LDI(X, i)));
#else
	STO(O, i, (TO)LDI(X, i));
#endif
}
#endif

/* quantize/dequantize: the prefix defines FT (float storage) with LDF/STF, QT (integer storage
 * type) and CVT_Q(v) (a long saturated to the integer type's range, still a long); PACKED4 (and
 * SIGNED4 for int4) when the integer type is int4/uint4, stored two per uchar: element i in
 * bits (i & 1) * 4 of byte i / 2, int4 sign-extended from bit 3. Scale/zeroPoint are read
 * blockwise: element coordinate c reads sum_d (c_d / block_d) * sstr_d. */
#ifdef QUANT
inline ulong block_index(uint i, uint rank, uint8 dims_, uint8 block_, uint8 sstr_)
{
	uint dims[8], block[8], sstr[8];
	vstore8(dims_, 0, dims);
	vstore8(block_, 0, block);
	vstore8(sstr_, 0, sstr);
	ulong off = 0;
	for (int d = (int)rank - 1; d >= 0; d--) {
		off += (ulong)((i % dims[d]) / block[d]) * sstr[d];
		i /= dims[d];
	}
	return off;
}

#ifdef PACKED4
inline long load_q(__global const QT *p, ulong i)
{
	uint v = (p[i >> 1] >> ((i & 1) * 4)) & 15u;
#ifdef SIGNED4
	return (long)((int)(v ^ 8u) - 8);
#else
	return (long)v;
#endif
}
#else
inline long load_q(__global const QT *p, ulong i)
{
	return (long)p[i];
}
#endif

inline long quantize_one(__global const FT *X, __global const FT *S, __global const QT *Z,
			 uint i, uint rank, uint8 dims, uint8 block, uint8 sstr)
{
	ulong s = block_index(i, rank, dims, block, sstr);
	float q = rint((float)LDF(X, i) / (float)LDF(S, s));
	/* saturate in float first: a huge or infinite quotient must not overflow the long (and
	 * NaN, from a zero scale, becomes 0 like a saturating conversion makes it) */
	long v = isnan(q) ? 0 : (long)clamp(q, -9.2e18f, 9.2e18f);
	return CVT_Q(v + load_q(Z, s));
}

/* Packed: one work item per byte, so that no byte has two writers; an odd count's last high
 * nibble is written 0. */
__kernel void quantize(__global const FT *X, __global const FT *S, __global const QT *Z,
		       __global QT *O, uint n, uint rank, uint8 dims, uint8 block, uint8 sstr)
{
#ifdef PACKED4
	uint j = get_global_id(0), i = 2 * j;
	if (i >= n)
		return;
	uint lo = (uint)quantize_one(X, S, Z, i, rank, dims, block, sstr) & 15u;
	uint hi = i + 1 < n ? (uint)quantize_one(X, S, Z, i + 1, rank, dims, block, sstr) & 15u
			    : 0u;
	O[j] = (QT)(lo | (hi << 4));
#else
	uint i = get_global_id(0);
	if (i >= n)
		return;
	O[i] = (QT)quantize_one(X, S, Z, i, rank, dims, block, sstr);
#endif
}

__kernel void dequantize(__global const QT *X, __global const FT *S, __global const QT *Z,
			 __global FT *O, uint n, uint rank, uint8 dims, uint8 block, uint8 sstr)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	ulong s = block_index(i, rank, dims, block, sstr);
	STF(O, i, (float)(load_q(X, i) - load_q(Z, s)) * (float)LDF(S, s));
}
#endif
