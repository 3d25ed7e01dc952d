/* Data movement: strided n-d copy (transpose, concat, broadcast fills) and float16 <-> float32. */

/* The prefix defines T as an unsigned integer type of the element size.
 * One work-item per row (every dimension but the last); the last dimension (len elements,
 * strides sl/dl) is a loop, so index arithmetic is paid once per row. */
__kernel void copy_nd(__global const T *S, uint soff, __global T *D, uint doff, uint rows,
		      uint rank, uint8 dims_, uint8 ss_, uint8 ds_, uint len, uint sl, uint dl)
{
	uint i = get_global_id(0);
	if (i >= rows)
		return;
	uint dims[8], ss[8], ds[8];
	vstore8(dims_, 0, dims);
	vstore8(ss_, 0, ss);
	vstore8(ds_, 0, ds);
	uint s = soff, d = doff, j = i;
	for (int k = (int)rank - 1; k >= 0; k--) {
		uint c = j % dims[k];
		j /= dims[k];
		s += c * ss[k];
		d += c * ds[k];
	}
	if (sl == 1 && dl == 1) {
		for (uint x = 0; x < len; x++)
			D[d + x] = S[s + x];
	} else {
		for (uint x = 0; x < len; x++)
			D[d + x * dl] = S[s + x * sl];
	}
}

__kernel void cvt_h2f(__global const half *S, __global float *D, uint n)
{
	uint i = get_global_id(0);
	if (i < n)
		D[i] = vload_half(i, S);
}

__kernel void cvt_f2h(__global const float *S, __global half *D, uint n)
{
	uint i = get_global_id(0);
	if (i < n)
		vstore_half_rte(S[i], i, D);
}
