/* resample2d: nearest-neighbour and linear resizing of two axes. */

/* The prefix defines T (storage), LD(p, i), ST(p, i, v), CONVERT_SAT(v) and IS_FLOAT or IS_INT. */

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
