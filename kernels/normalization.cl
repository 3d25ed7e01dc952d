/* Normalization kernels: batch, layer and instance normalization, softmax (float types). */

/* The prefix defines T (storage), ACC (compute), LD(p, i), ST(p, i, v) and IS_FLOAT or IS_INT;
 * dims and strides travel as uint8 vectors (rank <= 8). */

#ifdef IS_FLOAT
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

/* batchNormalization with the input viewed as [outer, channels, inner]. */
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
#endif /* IS_FLOAT */
