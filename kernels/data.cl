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

/* ---- strided views, tile, pad, triangular (dims/strides travel as uint8/int8 vectors) */

inline void unpack_u(uint8 v, uint *a)
{
	vstore8(v, 0, a);
}

/* out[i] = in[base + sum c_d * s_d] over the output coordinates c; strides may be negative
 * (reverse) or 0 (expand). Serves expand, slice, split and reverse. */
__kernel void view_copy(__global const T *S, __global T *D, uint n, uint rank, uint8 dims_,
			int8 strides_, ulong base)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint dims[8];
	int st[8];
	unpack_u(dims_, dims);
	vstore8(strides_, 0, st);
	long off = (long)base;
	uint j = i;
	for (int d = (int)rank - 1; d >= 0; d--) {
		off += (long)(j % dims[d]) * st[d];
		j /= dims[d];
	}
	D[i] = S[off];
}

/* tile: input coordinate = output coordinate modulo the input size. */
__kernel void tile(__global const T *S, __global T *D, uint n, uint rank, uint8 odims_,
		   uint8 idims_, uint8 istr_)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint od[8], id[8], is[8];
	unpack_u(odims_, od);
	unpack_u(idims_, id);
	unpack_u(istr_, is);
	ulong off = 0;
	uint j = i;
	for (int d = (int)rank - 1; d >= 0; d--) {
		off += (ulong)((j % od[d]) % id[d]) * is[d];
		j /= od[d];
	}
	D[i] = S[off];
}

/* pad: mode 0 constant (value), 1 edge, 2 reflection. */
__kernel void pad(__global const T *S, __global T *D, uint n, uint rank, uint8 odims_,
		  uint8 idims_, uint8 istr_, uint8 begin_, uint mode, T value)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint od[8], id[8], is[8], bg[8];
	unpack_u(odims_, od);
	unpack_u(idims_, id);
	unpack_u(istr_, is);
	unpack_u(begin_, bg);
	ulong off = 0;
	uint j = i;
	for (int d = (int)rank - 1; d >= 0; d--) {
		long x = (long)(j % od[d]) - (long)bg[d];
		long size = (long)id[d];
		j /= od[d];
		if (x < 0 || x >= size) {
			if (mode == 0) {
				D[i] = value;
				return;
			}
			if (mode == 1) {
				x = x < 0 ? 0 : size - 1;
			} else {
				/* Reflection around the edges (without repeating them); the period
				 * keeps any padding width inside the input. */
				long period = size > 1 ? 2 * (size - 1) : 1;
				x = x % period;
				if (x < 0)
					x += period;
				if (x >= size)
					x = period - x;
			}
		}
		off += (ulong)x * is[d];
	}
	D[i] = S[off];
}

/* triangular over the last two dimensions [h, w]: keeps (r, c) where c - r >= diagonal (upper)
 * or c - r <= diagonal (lower); the rest becomes 0. */
__kernel void triangular(__global const T *S, __global T *D, uint n, uint h, uint w, uint upper,
			 long diagonal)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	long c = (long)(i % w), r = (long)((i / w) % h);
	bool keep = upper ? (c - r >= diagonal) : (c - r <= diagonal);
	D[i] = keep ? S[i] : (T)0;
}
