/* Convolution helpers: im2col for the GEMM path and a direct kernel for depthwise/grouped convs. */

/* p: s0 ICg, s1 H, s2 W, s3 KH, s4 KW, s5 OH, s6 OW, s7 stride_h, s8 stride_w, s9 dil_h,
 *    sa dil_w, sb pad_top, sc pad_left, sd groups, se N.
 * is: input element strides of (n, c, y, x).
 * nhwc: col is [g][n*OH*OW][(ky*KW+kx)*ICg+ic]  (rows of the GEMM's A); one work-item per
 *       (g, row, ky, kx) copies the ICg channels of one tap.
 * else: col is [n][g][(ic*KH+ky)*KW+kx][oy*OW+ox] (the GEMM's B); one work-item per
 *       (n, g, ic, ky, kx, oy) copies one output row.
 * Index arithmetic is amortised over the inner loop: per-element divisions cost more than the
 * copy on CPU devices. */
__kernel void im2col(__global const T *in, __global T *col, uint total, uint nhwc, uint16 p,
		     uint4 is)
{
	uint i = get_global_id(0);
	if (i >= total)
		return;
	uint ICg = p.s0, KH = p.s3, KW = p.s4, OH = p.s5, OW = p.s6;
	uint Kg = ICg * KH * KW, P = OH * OW;
	if (nhwc) {
		uint tap = i % (KH * KW), r = i / (KH * KW);
		uint rows = p.se * P;
		uint g = r / rows, rr = r % rows;
		uint n = rr / P, oy = (rr % P) / OW, ox = rr % OW;
		uint ky = tap / KW, kx = tap % KW;
		int y = (int)(oy * p.s7 + ky * p.s9) - (int)p.sb;
		int x = (int)(ox * p.s8 + kx * p.sa) - (int)p.sc;
		uint dst = r * Kg + tap * ICg;
		if (y >= 0 && y < (int)p.s1 && x >= 0 && x < (int)p.s2) {
			uint src = n * is.s0 + g * ICg * is.s1 + (uint)y * is.s2 + (uint)x * is.s3;
			for (uint ic = 0; ic < ICg; ic++)
				ST(col, dst + ic, LD(in, src + ic * is.s1));
		} else {
			for (uint ic = 0; ic < ICg; ic++)
				ST(col, dst + ic, 0);
		}
	} else {
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
}

/* One work-item per output element, in the output's memory order.
 * p: s0 ICg, s1 H, s2 W, s3 KH, s4 KW, s5 OH, s6 OW, s7 stride_h, s8 stride_w, s9 dil_h,
 *    sa dil_w, sb pad_top, sc pad_left, sd OCg, se OC, sf has_bias
 * is/fs: element strides of the input (n, c, y, x) and filter (o, i, ky, kx). */
__kernel void conv2d_direct(__global const T *in, __global const T *f, __global const T *bias,
			    __global T *out, uint total, uint nhwc, uint16 p, uint4 is, uint4 fs)
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
	ST(out, i, acc);
}
