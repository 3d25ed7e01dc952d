/* Reduction kernels: argMin/argMax, cumulativeSum and the reduce* operators. */

/* The prefix defines T (storage), ACC (compute: float for float types, long/ulong for integers),
 * LD(p, i), ST(p, i, v), LOWEST, CONVERT_SAT(v) and IS_FLOAT or IS_INT. dims and strides travel
 * as uint8 vectors (rank <= 8). */

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

/* ------------------------------------------------------------------ argMin / argMax */

/* Input viewed as [outer, axis, inner]; the first extreme element wins ties and NaN never
 * wins (a leading NaN is replaced by the first number). */
inline bool better(ACC v, ACC best, uint is_max)
{
#ifdef IS_FLOAT
	if (isnan(v))
		return false;
	if (isnan(best))
		return true;
#endif
	return is_max ? v > best : v < best;
}

#define ARGMM(name, OT)                                                                        \
	__kernel void name(__global const T *X, __global OT *O, uint n, uint axis, uint inner,  \
			   uint is_max)                                                        \
	{                                                                                      \
		uint i = get_global_id(0);                                                     \
		if (i >= n)                                                                    \
			return;                                                                \
		ulong base = (ulong)(i / inner) * axis * inner + i % inner;                    \
		ACC best = LD(X, base);                                                        \
		uint bi = 0;                                                                   \
		for (uint k = 1; k < axis; k++) {                                              \
			ACC v = LD(X, base + (ulong)k * inner);                                \
			if (better(v, best, is_max)) {                                         \
				best = v;                                                      \
				bi = k;                                                        \
			}                                                                      \
		}                                                                              \
		O[i] = (OT)bi;                                                                 \
	}
ARGMM(argminmax_i32, int)
ARGMM(argminmax_i64, long)

/* ------------------------------------------------------------------ cumulativeSum */

__kernel void cumsum(__global const T *X, __global T *O, uint n, uint axis, uint inner,
		     uint exclusive, uint reversed)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	ulong base = (ulong)(i / inner) * axis * inner + i % inner;
	ACC sum = 0;
	for (uint k = 0; k < axis; k++) {
		ulong at = base + (ulong)(reversed ? axis - 1 - k : k) * inner;
		ACC v = LD(X, at);
		if (exclusive) {
			ST(O, at, sum);
			sum += v;
		} else {
			sum += v;
			ST(O, at, sum);
		}
	}
}

/* ------------------------------------------------------------------ reductions */

#ifdef IS_FLOAT
/* The running maximum of logSumExp: like fmax, but a NaN anywhere makes the result NaN (as
 * log(sum(exp(x))) does), where fmax would skip it and let a +inf win. */
inline float lse_max(float m, float v)
{
	return isnan(m) || isnan(v) ? NAN : fmax(m, v);
}
#endif

/* kind: 0 L1, 1 L2, 2 logSum, 3 logSumExp, 4 max, 5 mean, 6 min, 7 product, 8 sum,
 * 9 sumSquare. Output element i is the kept coordinates (kdims, input strides kstr); the
 * reduced space (rdims, rstr) is walked with its last dimension as the inner loop. */
__kernel void reduce(__global const T *X, __global T *O, uint n, uint krank, uint8 kdims_,
		     uint8 kstr_, uint rrank, uint8 rdims_, uint8 rstr_, uint kind)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint kd[8], ks[8], rd[8], rs[8];
	vstore8(kdims_, 0, kd);
	vstore8(kstr_, 0, ks);
	vstore8(rdims_, 0, rd);
	vstore8(rstr_, 0, rs);
	ulong base = walk(i, krank, kd, ks);
	uint last = rrank ? rd[rrank - 1] : 1, lstr = rrank ? rs[rrank - 1] : 0;
	uint outer = 1;
	for (uint d = 0; d + 1 < rrank; d++)
		outer *= rd[d];
	uint orank = rrank ? rrank - 1 : 0;
#ifdef IS_FLOAT
	float m = -INFINITY;
	if (kind == 3) {
		for (uint o = 0; o < outer; o++) {
			ulong b = base + walk(o, orank, rd, rs);
			for (uint k = 0; k < last; k++)
				m = lse_max(m, (float)LD(X, b + (ulong)k * lstr));
		}
	}
#endif
	ACC acc = 0;
	if (kind == 7)
		acc = 1;
	bool first = true;
	for (uint o = 0; o < outer; o++) {
		ulong b = base + walk(o, orank, rd, rs);
		for (uint k = 0; k < last; k++) {
			ACC v = LD(X, b + (ulong)k * lstr);
			switch (kind) {
			case 0:
#ifdef IS_FLOAT
				acc += fabs(v);
#else
				acc += v < 0 ? -v : v;
#endif
				break;
			case 1:
			case 9:
				acc += v * v;
				break;
			case 3:
#ifdef IS_FLOAT
				acc += exp(v - m);
#endif
				break;
			case 4:
				acc = first || v > acc ? v : acc;
				break;
			case 6:
				acc = first || v < acc ? v : acc;
				break;
			case 7:
				acc *= v;
				break;
			default:
				acc += v;
				break;
			}
#ifdef IS_FLOAT
			/* max/min keep NaN */
			if ((kind == 4 || kind == 6) && isnan(v))
				acc = v;
#endif
			first = false;
		}
	}
#ifdef IS_FLOAT
	if (kind == 1)
		acc = sqrt(acc);
	else if (kind == 2)
		acc = log(acc);
	else if (kind == 3)
		acc = isnan(m) || isinf(m) ? m : m + log(acc);
	else if (kind == 5)
		acc = acc / (float)(outer * last);
#endif
	ST(O, i, acc);
}

/* Two-stage reduction for few outputs over many elements: reduce_part splits output i's
 * reduced space (linear order, last dimension innermost) into `parts` contiguous chunks and
 * leaves each chunk's accumulator in W[i * parts + j]; reduce_fin combines them and applies
 * the same finish as `reduce`. Sums and products accumulate in ACC as `reduce` does (integers
 * exact, wrapping like it); max/min keep NaN. logSumExp chunks keep (sum of exp(v - m), m) with
 * the chunk max m in W[n + i * parts + j], so the combine rescales each by exp(m - M). */
inline ACC red_step(ACC acc, ACC v, uint kind, bool first)
{
	switch (kind) {
	case 0:
#ifdef IS_FLOAT
		return acc + fabs(v);
#else
		return acc + (v < 0 ? -v : v);
#endif
	case 1:
	case 9:
		return acc + v * v;
	case 4:
#ifdef IS_FLOAT
		if (isnan(v))
			return v;
#endif
		return first || v > acc ? v : acc;
	case 6:
#ifdef IS_FLOAT
		if (isnan(v))
			return v;
#endif
		return first || v < acc ? v : acc;
	case 7:
		return acc * v;
	default:
		return acc + v;
	}
}

__kernel void reduce_part(__global const T *X, __global ACC *W, uint n, uint parts,
			  uint rcount, uint krank, uint8 kdims_, uint8 kstr_, uint rrank,
			  uint8 rdims_, uint8 rstr_, uint kind)
{
	uint g = get_global_id(0);
	if (g >= n)
		return;
	uint i = g / parts, j = g % parts;
	uint kd[8], ks[8], rd[8], rs[8];
	vstore8(kdims_, 0, kd);
	vstore8(kstr_, 0, ks);
	vstore8(rdims_, 0, rd);
	vstore8(rstr_, 0, rs);
	ulong base = walk(i, krank, kd, ks);
	uint r0 = (uint)((ulong)rcount * j / parts), r1 = (uint)((ulong)rcount * (j + 1) / parts);
	uint last = rrank ? rd[rrank - 1] : 1, lstr = rrank ? rs[rrank - 1] : 0;
	uint orank = rrank ? rrank - 1 : 0;
#ifdef IS_FLOAT
	float m = -INFINITY;
	if (kind == 3) {
		for (uint r = r0; r < r1;) {
			uint o = r / last, k = r % last, end = min(last, k + (r1 - r));
			ulong b = base + walk(o, orank, rd, rs);
			for (uint kk = k; kk < end; kk++)
				m = lse_max(m, (float)LD(X, b + (ulong)kk * lstr));
			r += end - k;
		}
	}
#endif
	ACC acc = kind == 7 ? 1 : 0;
	bool first = true;
	for (uint r = r0; r < r1;) {
		uint o = r / last, k = r % last, end = min(last, k + (r1 - r));
		ulong b = base + walk(o, orank, rd, rs);
		for (uint kk = k; kk < end; kk++) {
			ACC v = LD(X, b + (ulong)kk * lstr);
#ifdef IS_FLOAT
			/* v == m covers m == -inf: that chunk's weight exp(m - M) is 0 anyway */
			if (kind == 3)
				acc += v == m ? 1.0f : exp(v - m);
			else
#endif
				acc = red_step(acc, v, kind, first);
			first = false;
		}
		r += end - k;
	}
	W[g] = acc;
#ifdef IS_FLOAT
	if (kind == 3)
		W[n + g] = m;
#endif
}

__kernel void reduce_fin(__global const ACC *W, __global T *O, uint n, uint parts, uint rcount,
			 uint kind)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint at = i * parts;
	ACC acc;
#ifdef IS_FLOAT
	if (kind == 3) {
		uint np = n * parts;
		float mm = -INFINITY;
		for (uint j = 0; j < parts; j++)
			mm = lse_max(mm, W[np + at + j]);
		if (isnan(mm) || isinf(mm)) {
			ST(O, i, mm);
			return;
		}
		float s = 0;
		for (uint j = 0; j < parts; j++)
			s += W[at + j] * exp(W[np + at + j] - mm);
		ST(O, i, mm + log(s));
		return;
	}
#endif
	acc = W[at];
	for (uint j = 1; j < parts; j++) {
		ACC v = W[at + j];
		switch (kind) {
		case 4:
		case 6:
			acc = red_step(acc, v, kind, false);
			break;
		case 7:
			acc *= v;
			break;
		default:
			acc += v;
			break;
		}
	}
#ifdef IS_FLOAT
	if (kind == 1)
		acc = sqrt(acc);
	else if (kind == 2)
		acc = log(acc);
	else if (kind == 5)
		acc = acc / (float)rcount;
#endif
	ST(O, i, acc);
}
