/* Convolution kernels: im2col, GEMM epilogues, small GEMM, depthwise, direct, convTranspose2d. */

#ifndef EPI_ONLY
/* p: s0 ICg, s1 H, s2 W, s3 KH, s4 KW, s5 OH, s6 OW, s7 stride_h, s8 stride_w, s9 dil_h,
 *    sa dil_w, sb pad_top, sc pad_left, sd groups, se N.
 * is: input element strides of (n, c, y, x).
 * NCHW: col is [n][g][(ic*KH+ky)*KW+kx][oy*OW+ox] (the GEMM's B); one work-item per
 * (n, g, ic, ky, kx, oy) copies one output row (NHWC is im2col_nhwc below).
 * Index arithmetic is amortised over the inner loop: per-element divisions cost more than the
 * copy on CPU devices. */
__kernel void im2col(__global const T *in, __global T *col, uint total, uint16 p, uint4 is)
{
	uint i = get_global_id(0);
	if (i >= total)
		return;
	uint ICg = p.s0, KH = p.s3, KW = p.s4, OH = p.s5, OW = p.s6;
	uint Kg = ICg * KH * KW, P = OH * OW;
	uint oy = i % OH, r = i / OH;
	uint k = r % Kg, ng = r / Kg;
	uint g = ng % p.sd, n = ng / p.sd;
	uint kx = k % KW, ky = (k / KW) % KH, ic = k / (KW * KH);
	int y = (int)(oy * p.s7 + ky * p.s9) - (int)p.sb;
	uint dst = r * P + oy * OW;
	if (y < 0 || y >= (int)p.s1) {
		for (uint ox = 0; ox < OW; ox++)
			ST(col, dst + ox, 0);
		return;
	}
	uint src = n * is.s0 + (g * ICg + ic) * is.s1 + (uint)y * is.s2;
	int x = (int)(kx * p.sa) - (int)p.sc;
	for (uint ox = 0; ox < OW; ox++, x += (int)p.s8) {
		ACC v = 0;
		if (x >= 0 && x < (int)p.s2)
			v = LD(in, src + (uint)x * is.s3);
		ST(col, dst + ox, v);
	}
}

/* NHWC im2col: col is [g][n*OH*OW][(ky*KW+kx)*ICg+ic] (rows of the GEMM's A). One work-item
 * per (g, row, ky): the KW taps of one filter row are neighbouring input pixels, so each item
 * writes KW * ICg values of the row of col from one input row; 7x fewer items than one per
 * tap, which matters for few channels (SqueezeNet's 7x7 conv1 on RGB: 6.6 -> about 1 ms).
 * p, is as im2col. */
__kernel void im2col_nhwc(__global const T *in, __global T *col, uint total, uint16 p, uint4 is)
{
	uint i = get_global_id(0);
	if (i >= total)
		return;
	uint ICg = p.s0, KH = p.s3, KW = p.s4, OH = p.s5, OW = p.s6;
	uint Kg = ICg * KH * KW, P = OH * OW;
	uint ky = i % KH, r = i / KH;
	uint rows = p.se * P;
	uint g = r / rows, rr = r % rows;
	uint n = rr / P, oy = (rr % P) / OW, ox = rr % OW;
	int y = (int)(oy * p.s7 + ky * p.s9) - (int)p.sb;
	uint dst = r * Kg + ky * KW * ICg;
	if (y < 0 || y >= (int)p.s1) {
		for (uint k = 0; k < KW * ICg; k++)
			ST(col, dst + k, 0);
		return;
	}
	uint src = n * is.s0 + g * ICg * is.s1 + (uint)y * is.s2;
	int x = (int)(ox * p.s8) - (int)p.sc;
	for (uint kx = 0; kx < KW; kx++, x += (int)p.sa, dst += ICg) {
		if (x >= 0 && x < (int)p.s2) {
			uint s = src + (uint)x * is.s3;
			for (uint ic = 0; ic < ICg; ic++)
				ST(col, dst + ic, LD(in, s + ic * is.s1));
		} else {
			for (uint ic = 0; ic < ICg; ic++)
				ST(col, dst + ic, 0);
		}
	}
}

/* One work-item per output element, in the output's memory order.
 * p: s0 ICg, s1 H, s2 W, s3 KH, s4 KW, s5 OH, s6 OW, s7 stride_h, s8 stride_w, s9 dil_h,
 *    sa dil_w, sb pad_top, sc pad_left, sd OCg, se OC, sf has_bias
 * is/fs: element strides of the input (n, c, y, x) and filter (o, i, ky, kx).
 * flags: a fused epilogue as gemm_epilogue's (EPI_V2, EPI_RES, activation), applied in float. */
__kernel void conv2d_direct(__global const T *in, __global const T *f, __global const T *bias,
			    __global const T *v2, __global const T *res, __global T *out,
			    uint total, uint nhwc, uint16 p, uint4 is, uint4 fs, uint flags,
			    float lo, float hi)
{
	uint i = get_global_id(0);
	if (i >= total)
		return;
	uint OC = p.se, OH = p.s5, OW = p.s6;
	uint n, oc, oy, ox;
	if (nhwc) {
		oc = i % OC;
		ox = (i / OC) % OW;
		oy = (i / (OC * OW)) % OH;
		n = i / (OC * OW * OH);
	} else {
		ox = i % OW;
		oy = (i / OW) % OH;
		oc = (i / (OW * OH)) % OC;
		n = i / (OW * OH * OC);
	}
	uint ICg = p.s0, g = oc / p.sd;
	float acc = p.sf ? (float)LD(bias, oc) : 0.0f;
	int y0 = (int)(oy * p.s7) - (int)p.sb, x0 = (int)(ox * p.s8) - (int)p.sc;
	uint ibase = n * is.s0 + g * ICg * is.s1;
	for (uint ky = 0; ky < p.s3; ky++) {
		int y = y0 + (int)(ky * p.s9);
		if (y < 0 || y >= (int)p.s1)
			continue;
		for (uint kx = 0; kx < p.s4; kx++) {
			int x = x0 + (int)(kx * p.sa);
			if (x < 0 || x >= (int)p.s2)
				continue;
			uint ib = ibase + (uint)y * is.s2 + (uint)x * is.s3;
			uint fb = oc * fs.s0 + ky * fs.s2 + kx * fs.s3;
			for (uint ic = 0; ic < ICg; ic++)
				acc += (float)LD(in, ib + ic * is.s1) * (float)LD(f, fb + ic * fs.s1);
		}
	}
	if (flags & 2u)
		acc += (float)LD(v2, oc);
	if (flags & 4u)
		acc += (float)LD(res, i);
	uint act = (flags >> 4) & 3u;
	if (act == 1)
		acc = acc > 0 ? acc : (isnan(acc) ? acc : 0.0f);
	else if (act == 2)
		acc = acc < lo ? lo : (acc > hi ? hi : acc);
	ST(out, i, acc);
}

#endif /* EPI_ONLY */

/* ---- fused epilogues and the fast depthwise kernels (float32 only) */

/* flags: bit 0 per-channel vector v1 (the bias), bit 1 a second one v2 (a fused add of a
 * broadcast vector), bit 2 a residual r (a fused add of a tensor of the output's shape, dense),
 * bits 4-5 the activation: 1 relu (NaN kept, as ops.def), 2 clamp to [lo, hi]. */
#define EPI_V1 1u
#define EPI_V2 2u
#define EPI_RES 4u
#define EPI_ACT(f) (((f) >> 4) & 3u)

inline float epi_apply(float v, uint c, uint ri, uint flags, __global const float *v1,
		       __global const float *v2, __global const float *r, float lo, float hi)
{
	if (flags & EPI_V1)
		v += v1[c];
	if (flags & EPI_V2)
		v += v2[c];
	if (flags & EPI_RES)
		v += r[ri];
	uint act = EPI_ACT(flags);
	if (act == 1)
		v = v > 0 ? v : (isnan(v) ? v : 0.0f);
	else if (act == 2)
		v = v < lo ? lo : (v > hi ? hi : v);
	return v;
}

#ifdef EPI_ONLY
/* The pass after a GEMM, built once per (EPI_FLAGS, EPI_MODE) with only this kernel in the
 * program: with the flags and the layout known at compile time the body has no branches and
 * unit-stride accesses, which PoCL vectorises across work-items (runtime strides made it
 * gather/scatter, 4-20x slower than a plain relu pass).
 * Element (a, c, b) of an A x C x B result is read at ss.s0 + a*ss.s1 + c*ss.s2 + b and
 * written at ds.s0 + a*ds.s1 + c*ds.s2 + b; v1/v2 are indexed by c; the residual is dense.
 * EPI_MODE 0: B == 1, unit c stride on both sides (NHWC rows, in place or into a concat);
 *   range (C, 1, A).
 * EPI_MODE 1: B == 1, source transposed ([C][A], the swapped small-N product); range (C, 1, A).
 * EPI_MODE 2: B > 1 (NCHW planes); range (B, C, A). */
__kernel void gemm_epilogue(__global const float *src, __global float *dst,
			    __global const float *v1, __global const float *v2,
			    __global const float *r, uint A, uint C, uint B, uint4 ss, uint4 ds,
			    float lo, float hi)
{
	uint x = get_global_id(0), y = get_global_id(1), a = get_global_id(2);
#if EPI_MODE == 2
	uint c = y, s = ss.s0 + a * ss.s1 + c * ss.s2 + x, d = ds.s0 + a * ds.s1 + c * ds.s2 + x;
	uint ri = (a * C + c) * B + x;
#elif EPI_MODE == 1
	uint c = x, s = ss.s0 + a + c * ss.s2, d = ds.s0 + a * ds.s1 + c, ri = a * C + c;
#else
	uint c = x, s = ss.s0 + a * ss.s1 + c, d = ds.s0 + a * ds.s1 + c, ri = a * C + c;
#endif
	(void)y;
	dst[d] = epi_apply(src[s], c, ri, EPI_FLAGS, v1, v2, r, lo, hi);
}
#else

/* Depthwise convolution (groups == input channels == output channels), NHWC, C % VW == 0.
 * Work-item (cv, xb, n*OH + oy) computes DW_XB neighbouring outputs of one row for VW
 * channels: each filter tap (a vector of [KH][KW][C]) is loaded once for DW_XB outputs, and
 * loads and stores are VW-wide along the contiguous channels. Explicit vectors: PoCL does not
 * widen this kernel across work-items (a scalar version ran 3-5x slower), so the widest vector
 * that divides C wins (float16 about 2x float8 and 4x float4 on AVX-512).
 * p: s0 C, s1 H, s2 W, s3 KH, s4 KW, s5 OH, s6 OW, s7 stride_h, s8 stride_w, s9 dil_h,
 *    sa dil_w, sb pad_top, sc pad_left, sd flags (EPI_*). */
#define DW_XB 8
#define DW_NHWC(KNAME, VW)                                                                     \
__kernel void KNAME(__global const float *in, __global const float *f,                        \
		    __global const float *v1, __global const float *v2,                           \
		    __global const float *r, __global float *out, uint16 p, float lo, float hi)   \
{                                                                                              \
	uint cv = get_global_id(0), xb = get_global_id(1), ny = get_global_id(2);              \
	uint C = p.s0, H = p.s1, W = p.s2, KH = p.s3, KW = p.s4, OH = p.s5, OW = p.s6;         \
	uint flags = p.sd;                                                                     \
	uint ox0 = xb * DW_XB;                                                                 \
	if (cv * VW >= C || ox0 >= OW)                                                         \
		return;                                                                        \
	uint n = ny / OH, oy = ny % OH;                                                        \
	float##VW acc[DW_XB];                                                                  \
	for (uint j = 0; j < DW_XB; j++)                                                       \
		acc[j] = (float##VW)(0.0f);                                                    \
	int y0 = (int)(oy * p.s7) - (int)p.sb;                                                 \
	int x0 = (int)(ox0 * p.s8) - (int)p.sc;                                                \
	/* Blocks whose every tap lies inside the row skip the per-output bounds tests. */     \
	bool inside = x0 >= 0 && x0 + (int)((DW_XB - 1) * p.s8 + (KW - 1) * p.sa) < (int)W &&  \
		      ox0 + DW_XB <= OW;                                                       \
	for (uint ky = 0; ky < KH; ky++) {                                                     \
		int y = y0 + (int)(ky * p.s9);                                                 \
		if (y < 0 || y >= (int)H)                                                      \
			continue;                                                              \
		__global const float *row = in + ((size_t)(n * H + (uint)y) * W) * C + cv * VW; \
		__global const float *fr = f + (size_t)ky * KW * C + cv * VW;                  \
		for (uint kx = 0; kx < KW; kx++) {                                             \
			float##VW w = vload##VW(0, fr + kx * C);                               \
			int x = x0 + (int)(kx * p.sa);                                         \
			if (inside) {                                                          \
				for (uint j = 0; j < DW_XB; j++)                               \
					acc[j] += vload##VW(0, row + (size_t)(x + (int)(j * p.s8)) * C) * w; \
			} else {                                                               \
				for (uint j = 0; j < DW_XB; j++) {                             \
					int xx = x + (int)(j * p.s8);                          \
					if (xx >= 0 && xx < (int)W && ox0 + j < OW)            \
						acc[j] += vload##VW(0, row + (size_t)xx * C) * w; \
				}                                                              \
			}                                                                      \
		}                                                                              \
	}                                                                                      \
	uint c = cv * VW;                                                                      \
	for (uint j = 0; j < DW_XB && ox0 + j < OW; j++) {                                     \
		size_t o = ((size_t)(n * OH + oy) * OW + ox0 + j) * C + c;                     \
		float##VW v = acc[j];                                                          \
		if (flags & EPI_V1)                                                            \
			v += vload##VW(0, v1 + c);                                             \
		if (flags & EPI_V2)                                                            \
			v += vload##VW(0, v2 + c);                                             \
		if (flags & EPI_RES)                                                           \
			v += vload##VW(0, r + o);                                              \
		uint act = EPI_ACT(flags);                                                     \
		if (act == 1)                                                                  \
			v = select(select((float##VW)(0.0f), v, isnan(v)), v, v > 0);         \
		else if (act == 2)                                                             \
			v = select(select(v, (float##VW)(hi), v > hi), (float##VW)(lo), v < lo); \
		vstore##VW(v, 0, out + o);                                                     \
	}                                                                                      \
}
DW_NHWC(dw_nhwc4, 4)
DW_NHWC(dw_nhwc8, 8)
DW_NHWC(dw_nhwc16, 16)

/* out = act(A . W + v1 + v2 + r) for NHWC convs with few channels (1x1 on the input itself,
 * else on im2col rows): A is [M][K] (row stride lda), W is [K][N] dense, out rows have stride
 * ldo from element off (a concat slice or the output itself); the residual is dense [M][N].
 * Work-item (nb, mb) computes SG_R rows x VW columns with the W vector of each k loaded once
 * for SG_R rows. CLBlast's tiles (64 x 128, K by 32) are mostly padding for these shapes (K
 * 16..64, N 16..96 on 112x112 images in MobileNetV2: 4-5 GFLOP/s), and this kernel applies
 * the epilogue as it stores, so no second pass. */
#define SG_R 8
#define SMALL_GEMM(KNAME, VW)                                                                  \
__kernel void KNAME(__global const float *a, __global const float *w,                         \
		    __global const float *v1, __global const float *v2,                           \
		    __global const float *r, __global float *out, uint M, uint N, uint K,         \
		    uint lda, uint ldo, uint off, uint flags, float lo, float hi)                 \
{                                                                                              \
	uint nb = get_global_id(0), mb = get_global_id(1);                                     \
	uint n0 = nb * VW, m0 = mb * SG_R;                                                     \
	if (n0 >= N || m0 >= M)                                                                \
		return;                                                                        \
	uint rows = M - m0 < SG_R ? M - m0 : SG_R;                                             \
	float##VW acc[SG_R];                                                                   \
	for (uint j = 0; j < SG_R; j++)                                                        \
		acc[j] = (float##VW)(0.0f);                                                    \
	__global const float *ap = a + (size_t)m0 * lda;                                       \
	if (rows == SG_R) {                                                                    \
		for (uint k = 0; k < K; k++) {                                                 \
			float##VW wv = vload##VW(0, w + (size_t)k * N + n0);                   \
			for (uint j = 0; j < SG_R; j++)                                        \
				acc[j] += ap[(size_t)j * lda + k] * wv;                        \
		}                                                                              \
	} else {                                                                               \
		for (uint k = 0; k < K; k++) {                                                 \
			float##VW wv = vload##VW(0, w + (size_t)k * N + n0);                   \
			for (uint j = 0; j < rows; j++)                                        \
				acc[j] += ap[(size_t)j * lda + k] * wv;                        \
		}                                                                              \
	}                                                                                      \
	float##VW b = (float##VW)(0.0f);                                                       \
	if (flags & EPI_V1)                                                                    \
		b += vload##VW(0, v1 + n0);                                                    \
	if (flags & EPI_V2)                                                                    \
		b += vload##VW(0, v2 + n0);                                                    \
	uint act = EPI_ACT(flags);                                                             \
	for (uint j = 0; j < rows; j++) {                                                      \
		float##VW v = acc[j] + b;                                                      \
		if (flags & EPI_RES)                                                           \
			v += vload##VW(0, r + (size_t)(m0 + j) * N + n0);                      \
		if (act == 1)                                                                  \
			v = select(select((float##VW)(0.0f), v, isnan(v)), v, v > 0);         \
		else if (act == 2)                                                             \
			v = select(select(v, (float##VW)(hi), v > hi), (float##VW)(lo), v < lo); \
		vstore##VW(v, 0, out + off + (size_t)(m0 + j) * ldo + n0);                     \
	}                                                                                      \
}
SMALL_GEMM(small_gemm8, 8)
SMALL_GEMM(small_gemm16, 16)

/* Depthwise convolution, NCHW: work-item (xb, oy, n*C + c) computes DW_XN neighbouring outputs
 * of one row of one channel with the KH x KW taps ([C][KH][KW]) held in registers per row.
 * p as dw_nhwc. */
#define DW_XN 8
__kernel void dw_nchw(__global const float *in, __global const float *f,
		      __global const float *v1, __global const float *v2,
		      __global const float *r, __global float *out, uint16 p, float lo, float hi)
{
	uint xb = get_global_id(0), oy = get_global_id(1), nc = get_global_id(2);
	uint C = p.s0, H = p.s1, W = p.s2, KH = p.s3, KW = p.s4, OH = p.s5, OW = p.s6;
	uint flags = p.sd;
	uint ox0 = xb * DW_XN;
	if (ox0 >= OW || oy >= OH)
		return;
	uint c = nc % C;
	float acc[DW_XN];
	for (uint j = 0; j < DW_XN; j++)
		acc[j] = 0.0f;
	int y0 = (int)(oy * p.s7) - (int)p.sb;
	int x0 = (int)(ox0 * p.s8) - (int)p.sc;
	bool inside = x0 >= 0 && x0 + (int)((DW_XN - 1) * p.s8 + (KW - 1) * p.sa) < (int)W &&
		      ox0 + DW_XN <= OW;
	for (uint ky = 0; ky < KH; ky++) {
		int y = y0 + (int)(ky * p.s9);
		if (y < 0 || y >= (int)H)
			continue;
		__global const float *row = in + (size_t)(nc * H + (uint)y) * W;
		__global const float *fr = f + ((size_t)c * KH + ky) * KW;
		for (uint kx = 0; kx < KW; kx++) {
			float w = fr[kx];
			int x = x0 + (int)(kx * p.sa);
			if (inside) {
				for (uint j = 0; j < DW_XN; j++)
					acc[j] += row[x + (int)(j * p.s8)] * w;
			} else {
				for (uint j = 0; j < DW_XN; j++) {
					int xx = x + (int)(j * p.s8);
					if (xx >= 0 && xx < (int)W && ox0 + j < OW)
						acc[j] += row[xx] * w;
				}
			}
		}
	}
	size_t o = (size_t)(nc * OH + oy) * OW + ox0;
	for (uint j = 0; j < DW_XN && ox0 + j < OW; j++)
		out[o + j] = epi_apply(acc[j], c, o + j, flags, v1, v2, r, lo, hi);
}
#endif /* EPI_ONLY */

/* ---- convTranspose2d */

#if !defined(EPI_ONLY) && defined(IS_FLOAT)
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
#endif
