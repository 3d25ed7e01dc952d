/* Typed math beyond elementwise: argMin/argMax, cumulativeSum, reductions, prelu, normalisation,
 * resample2d, convTranspose2d and the recurrent (gru/lstm) gate kernels. */

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

/* ------------------------------------------------------------------ prelu */

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

#ifdef IS_FLOAT

/* ------------------------------------------------------------------ normalisation */

/* Normalises groups of elements: group i is the kept coordinates (kdims/kstr), its members the
 * reduced coordinates (rdims/rstr). Scale and bias are indexed by (r / sdiv) % smod of the
 * member index r: layerNormalization uses (1, count) (scale has the reduced shape, in axes
 * order), instanceNormalization (1, 1) after choosing one group per (n, c) and passing
 * the channel as `chan`. */
__kernel void norm_groups(__global const T *X, __global const T *S, __global const T *B,
			__global T *O, uint n, uint krank, uint8 kdims_, uint8 kstr_, uint rrank,
			uint8 rdims_, uint8 rstr_, float eps, uint has_scale, uint has_bias,
			uint chan_div, uint chan_mod)
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
	uint count = 1;
	for (uint d = 0; d < rrank; d++)
		count *= rd[d];
	float sum = 0;
	for (uint r = 0; r < count; r++)
		sum += (float)LD(X, base + walk(r, rrank, rd, rs));
	float mean = sum / (float)count;
	float var = 0;
	for (uint r = 0; r < count; r++) {
		float d = (float)LD(X, base + walk(r, rrank, rd, rs)) - mean;
		var += d * d;
	}
	var /= (float)count;
	float inv = 1.0f / sqrt(var + eps);
	/* chan_mod > 0: instance normalisation, one channel per group */
	uint chan = chan_mod ? (i / chan_div) % chan_mod : 0;
	for (uint r = 0; r < count; r++) {
		ulong at = base + walk(r, rrank, rd, rs);
		uint si = chan_mod ? chan : r;
		float v = ((float)LD(X, at) - mean) * inv;
		if (has_scale)
			v *= (float)LD(S, si);
		if (has_bias)
			v += (float)LD(B, si);
		ST(O, at, v);
	}
}

/* ------------------------------------------------------------------ convTranspose2d */

/* Taps of convTranspose2d, tabulated on the host per output row and column:
 * TAB = [ycnt[OH] | yk[OH][KH] | yi[OH][KH] | xcnt[OW] | xk[OW][KW] | xi[OW][KW]]: output row oy
 * receives input row yi[oy][a] through filter row yk[oy][a] for a < ycnt[oy] (columns alike). */
#define TAPS_DECL(OH, KH, OW, KW)                                                              \
	__global const uint *yc = TAB, *yk = TAB + (OH), *yi = yk + (ulong)(OH) * (KH);        \
	__global const uint *xc = yi + (ulong)(OH) * (KH), *xk = xc + (OW);                    \
	__global const uint *xi = xk + (ulong)(OW) * (KW)

/* (n, oc, oy, ox) of output element i in memory order, nhwc or nchw. */
inline void out_coords(uint i, uint nhwc, uint OC, uint OH, uint OW, uint *n, uint *oc, uint *oy,
		       uint *ox)
{
	if (nhwc) {
		*oc = i % OC;
		*ox = (i / OC) % OW;
		*oy = (i / (OC * OW)) % OH;
		*n = i / (OC * OW * OH);
	} else {
		*ox = i % OW;
		*oy = (i / OW) % OH;
		*oc = (i / (OW * OH)) % OC;
		*n = i / (OW * OH * OC);
	}
}

/* p: s0 C_in per group, s1 H, s2 W, s3 KH, s4 KW, s5 OH, s6 OW, sd C_out per group, se C_out,
 * sf has_bias. is: (n, c, y, x) strides of the input; fs: (i, o, ky, kx) strides of the filter
 * with o inside the group. One work-item per output element in memory order. */
__kernel void conv_transpose2d(__global const T *X, __global const T *W, __global const T *Bi,
			       __global T *O, __global const uint *TAB, uint total, uint nhwc,
			       uint16 p, uint4 is, uint4 fs)
{
	uint i = get_global_id(0);
	if (i >= total)
		return;
	uint ICg = p.s0, KH = p.s3, KW = p.s4, OH = p.s5, OW = p.s6;
	uint OCg = p.sd, OC = p.se;
	TAPS_DECL(OH, KH, OW, KW);
	uint n, oc, oy, ox;
	out_coords(i, nhwc, OC, OH, OW, &n, &oc, &oy, &ox);
	uint g = oc / OCg, o = oc % OCg;
	float sum = p.sf ? (float)LD(Bi, oc) : 0.0f;
	for (uint a = 0; a < yc[oy]; a++) {
		uint ky = yk[oy * KH + a], iy = yi[oy * KH + a];
		for (uint c2 = 0; c2 < xc[ox]; c2++) {
			uint kx = xk[ox * KW + c2], ix = xi[ox * KW + c2];
			ulong xb = (ulong)n * is.s0 + (ulong)iy * is.s2 + (ulong)ix * is.s3;
			ulong wb = (ulong)o * fs.s1 + (ulong)ky * fs.s2 + (ulong)kx * fs.s3;
			for (uint c = 0; c < ICg; c++) {
				uint ic = g * ICg + c;
				sum += (float)LD(X, xb + (ulong)ic * is.s1) *
				       (float)LD(W, wb + (ulong)ic * fs.s0);
			}
		}
	}
	ST(O, i, sum);
}

/* col2im of convTranspose2d: C holds, per (n, group), float32 columns
 * [c_out_g][kh][kw][h * w] (filter tap times input pixel); each output element sums the taps
 * that land on it (TAB as above). p as for conv_transpose2d except s0 = groups. */
__kernel void col2im_t(__global const float *C, __global const T *Bi, __global T *O,
		       __global const uint *TAB, uint total, uint nhwc, uint16 p)
{
	uint i = get_global_id(0);
	if (i >= total)
		return;
	uint G = p.s0, H = p.s1, Wd = p.s2, KH = p.s3, KW = p.s4, OH = p.s5, OW = p.s6;
	uint OCg = p.sd, OC = p.se;
	TAPS_DECL(OH, KH, OW, KW);
	uint n, oc, oy, ox;
	out_coords(i, nhwc, OC, OH, OW, &n, &oc, &oy, &ox);
	uint g = oc / OCg, o = oc % OCg;
	ulong HW = (ulong)H * Wd;
	ulong base = (((ulong)n * G + g) * OCg + o) * KH * KW * HW;
	float sum = p.sf ? (float)LD(Bi, oc) : 0.0f;
	for (uint a = 0; a < yc[oy]; a++) {
		uint ky = yk[oy * KH + a], iy = yi[oy * KH + a];
		for (uint c2 = 0; c2 < xc[ox]; c2++) {
			uint kx = xk[ox * KW + c2], ix = xi[ox * KW + c2];
			sum += C[base + ((ulong)ky * KW + kx) * HW + (ulong)iy * Wd + ix];
		}
	}
	ST(O, i, sum);
}

/* ------------------------------------------------------------------ recurrent outputs */

/* The float32 hidden-state history hs[slot][dir][batch * hidden] (slot 0: the initial state,
 * slot k + 1: after the k-th step a direction processed) into an output of type T.
 * seq 0: final state [dirs, bh] from slot `slot`; seq 1: the sequence [steps, dirs, bh], where a
 * backward direction (bit d of backward) produced time step t at its step steps - 1 - t. */
__kernel void rnn_out(__global const float *HS, __global T *O, uint n, uint steps, uint dirs,
		      uint bh, uint backward, uint seq, uint slot)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint r = i % bh, d = (i / bh) % dirs, t = i / (bh * dirs);
	uint s = slot;
	if (seq)
		s = (backward >> d) & 1 ? steps - t : t + 1;
	ST(O, i, HS[((ulong)s * dirs + d) * bh + r]);
}

#endif /* IS_FLOAT */

/* ------------------------------------------------------------------ resample2d */

/* The output viewed as [A, O1, B, O2, C]: O1 and O2 are the resized axes in memory order, C the
 * contiguous run after the second. Source rows/columns come from tables made on the host with
 * the spec's coordinate rules: IX = [y0[O1], y1[O1], x0[O2], x1[O2]] (nearest: y0/x0 only),
 * WT = [ty[O1], tx[O2]] (linear weights of the second neighbour). sa/s1/sb/s2 are the input
 * strides of A, O1, B and O2. */
__kernel void resample2d(__global const T *X, __global T *O, __global const uint *IX,
			 __global const float *WT, uint O1, uint B, uint O2, uint C, uint sa, uint s1,
			 uint sb, uint s2, uint linear)
{
	/* a 3-D range (O2 * C, O1, A * B) keeps divisions out of the common cases */
	uint xc = get_global_id(0), oy = get_global_id(1), ab = get_global_id(2);
	if (xc >= O2 * C || oy >= O1)
		return;
	uint c = C == 1 ? 0 : xc % C, ox = C == 1 ? xc : xc / C;
	uint bb = B == 1 ? 0 : ab % B, a = B == 1 ? ab : ab / B;
	ulong i = ((((ulong)a * O1 + oy) * B + bb) * O2 + ox) * C + c;
	ulong base = (ulong)a * sa + (ulong)bb * sb + c;
	uint y0 = IX[oy], x0 = IX[2 * O1 + ox];
	if (!linear) {
		ST(O, i, LD(X, base + (ulong)y0 * s1 + (ulong)x0 * s2));
		return;
	}
	uint y1 = IX[O1 + oy], x1 = IX[2 * O1 + O2 + ox];
	float ty = WT[oy], tx = WT[O1 + ox];
	float v00 = (float)LD(X, base + (ulong)y0 * s1 + (ulong)x0 * s2);
	float v01 = (float)LD(X, base + (ulong)y0 * s1 + (ulong)x1 * s2);
	float v10 = (float)LD(X, base + (ulong)y1 * s1 + (ulong)x0 * s2);
	float v11 = (float)LD(X, base + (ulong)y1 * s1 + (ulong)x1 * s2);
	float vy0 = v00 * (1 - tx) + v01 * tx;
	float vy1 = v10 * (1 - tx) + v11 * tx;
	float v = vy0 * (1 - ty) + vy1 * ty;
#ifdef IS_FLOAT
	ST(O, i, v);
#else
	ST(O, i, CONVERT_SAT(v));
#endif
}
