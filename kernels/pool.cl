/* averagePool2d / l2Pool2d / maxPool2d for both layouts; window cells outside the input are skipped. */

/* A window that covers only padding (possible with large padding or ceil rounding) has no
 * element to reduce: every kind produces 0 there, as the reference backend does. */

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
	if (!cnt)
		m = 0;
	ST(out, i, m);
}

/* NHWC pooling over the range (C, OW, N*OH): channels are dimension 0, contiguous in memory,
 * so PoCL vectorises across work-items; the window is clipped to the input before the loops
 * (no test per cell) and the kind is tested outside them. Measured on SqueezeNet's first
 * maxPool2d (112x112x96): 2.1 ms with pool2d, whose three divisions per element dominate.
 * p and kind as pool2d; the input is dense NHWC. */
inline uint pool_first(int start, uint dil)
{
	return start < 0 ? (uint)(-start + (int)dil - 1) / dil : 0;
}
inline uint pool_end(int start, uint dil, uint win, uint size)
{
	if (start >= (int)size)
		return 0;
	uint n = (uint)((int)size - 1 - start) / dil + 1;
	return n < win ? n : win;
}

__kernel void pool2d_nhwc(__global const T *in, __global T *out, uint kind, uint16 p)
{
	uint c = get_global_id(0), ox = get_global_id(1), ny = get_global_id(2);
	uint C = p.s0, H = p.s1, W = p.s2, OH = p.s3, OW = p.s4;
	uint n = ny / OH, oy = ny % OH;
	int y0 = (int)(oy * p.s7) - (int)p.sb, x0 = (int)(ox * p.s8) - (int)p.sc;
	uint ky0 = pool_first(y0, p.s9), ky1 = pool_end(y0, p.s9, p.s5, H);
	uint kx0 = pool_first(x0, p.sa), kx1 = pool_end(x0, p.sa, p.s6, W);
	ACC m = 0;
	if (ky0 < ky1 && kx0 < kx1) {
		__global const T *base = in + (size_t)n * H * W * C + c;
		uint ys = p.s9 * W * C, xs = p.sa * C;
		size_t first = ((size_t)(y0 + (int)(ky0 * p.s9)) * W + (uint)(x0 + (int)(kx0 * p.sa))) * C;
#ifdef IS_FLOAT
		if (kind == 2) {
#endif
			m = LOWEST;
			for (uint ky = ky0; ky < ky1; ky++, first += ys) {
				size_t o = first;
				for (uint kx = kx0; kx < kx1; kx++, o += xs) {
					ACC v = LD(base, o);
#ifdef IS_FLOAT
					m = fmax(m, v);
#else
					m = v > m ? v : m;
#endif
				}
			}
#ifdef IS_FLOAT
		} else {
			float s = 0;
			for (uint ky = ky0; ky < ky1; ky++, first += ys) {
				size_t o = first;
				for (uint kx = kx0; kx < kx1; kx++, o += xs) {
					float v = LD(base, o);
					s += kind == 1 ? v * v : v;
				}
			}
			m = kind == 1 ? sqrt(s) : s / (float)((ky1 - ky0) * (kx1 - kx0));
		}
#endif
	}
	ST(out, (ny * OW + ox) * C + c, m);
}
