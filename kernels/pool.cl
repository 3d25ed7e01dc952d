/* averagePool2d / l2Pool2d / maxPool2d for both layouts; window cells outside the input are skipped. */

/* p: s0 C, s1 H, s2 W, s3 OH, s4 OW, s5 win_h, s6 win_w, s7 stride_h, s8 stride_w, s9 dil_h,
 *    sa dil_w, sb pad_top, sc pad_left.  is: input strides of (n, c, y, x).
 * kind: 0 average, 1 l2, 2 max. One work-item per output element in memory order. */
__kernel void pool2d(__global const T *in, __global T *out, uint total, uint kind, uint nhwc,
		     uint16 p, uint4 is)
{
	uint i = get_global_id(0);
	if (i >= total)
		return;
	uint C = p.s0, OH = p.s3, OW = p.s4;
	uint n, c, oy, ox;
	if (nhwc) {
		c = i % C;
		ox = (i / C) % OW;
		oy = (i / (C * OW)) % OH;
		n = i / (C * OW * OH);
	} else {
		ox = i % OW;
		oy = (i / OW) % OH;
		c = (i / (OW * OH)) % C;
		n = i / (OW * OH * C);
	}
	int y0 = (int)(oy * p.s7) - (int)p.sb, x0 = (int)(ox * p.s8) - (int)p.sc;
	uint base = n * is.s0 + c * is.s1;
	ACC m = LOWEST;
#ifdef IS_FLOAT
	float s = 0;
#endif
	uint cnt = 0;
	for (uint ky = 0; ky < p.s5; ky++) {
		int y = y0 + (int)(ky * p.s9);
		if (y < 0 || y >= (int)p.s1)
			continue;
		for (uint kx = 0; kx < p.s6; kx++) {
			int x = x0 + (int)(kx * p.sa);
			if (x < 0 || x >= (int)p.s2)
				continue;
			ACC v = LD(in, base + (uint)y * is.s2 + (uint)x * is.s3);
			cnt++;
#ifdef IS_FLOAT
			if (kind == 0)
				s += v;
			else if (kind == 1)
				s += v * v;
			else
				m = fmax(m, v);
#else
			m = v > m ? v : m;
#endif
		}
	}
#ifdef IS_FLOAT
	if (kind == 0)
		m = cnt ? s / (float)cnt : 0.0f;
	else if (kind == 1)
		m = sqrt(s);
#endif
	ST(out, i, m);
}
