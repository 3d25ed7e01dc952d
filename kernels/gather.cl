/* Gather and scatter kernels: gather, gatherElements, gatherND, scatterElements, scatterND. */

/* The prefix defines T as an unsigned integer type of the element size (values are only moved,
 * never computed on) and IT as the index operand's type (int, uint or long).
 * dims/strides travel as uint8 vectors (rank <= 8). */

inline void unpack_u(uint8 v, uint *a)
{
	vstore8(v, 0, a);
}

/* Indices may be client shared memory written while the kernel runs: each is loaded exactly
 * once (volatile), and that value is the one fix_index checks and the kernel uses. */
inline IT load_index(__global const IT *I, ulong i)
{
	return ((__global const volatile IT *)I)[i];
}

/* An index read from hostile data, made safe: negative counts from the end, then it is clamped
 * into [0, dim - 1] so that no value can reach outside the input. */
inline ulong fix_index(IT raw, uint dim)
{
	long v = (long)raw;
#if IT_UNSIGNED
	/* uint indices are never negative, however large */
	v = (long)(ulong)raw;
#else
	if (v < 0)
		v += (long)dim;
#endif
	if (v < 0)
		v = 0;
	if (v > (long)dim - 1)
		v = (long)dim - 1;
	return (ulong)v;
}

/* gather with the input viewed as [outer, axis, inner]; output [outer, n_idx, inner]. */
__kernel void gather(__global const T *S, __global const IT *I, __global T *D, uint n,
		     uint axis_dim, uint inner, uint n_idx)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint in = i % inner, k = (i / inner) % n_idx, o = i / (inner * n_idx);
	ulong idx = fix_index(load_index(I, k), axis_dim);
	D[i] = S[((ulong)o * axis_dim + idx) * inner + in];
}

/* gatherElements: output (= indices) coordinates c; the input is read at c with the axis
 * coordinate replaced by the index. */
__kernel void gather_elements(__global const T *S, __global const IT *I, __global T *D, uint n,
			      uint rank, uint8 odims_, uint8 istr_, uint axis, uint axis_dim)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint od[8], is[8];
	unpack_u(odims_, od);
	unpack_u(istr_, is);
	ulong off = 0;
	uint j = i;
	for (int d = (int)rank - 1; d >= 0; d--) {
		uint c = j % od[d];
		j /= od[d];
		if ((uint)d != axis)
			off += (ulong)c * is[d];
	}
	off += fix_index(load_index(I, i), axis_dim) * is[axis];
	D[i] = S[off];
}

/* gatherND: indices [..., k]; output element i = (q, r) with r inside the slice of `inner`
 * elements that input coordinates idx[q][0..k) select. */
__kernel void gather_nd(__global const T *S, __global const IT *I, __global T *D, uint n,
			uint k, uint inner, uint8 idims_, uint8 istr_)
{
	uint i = get_global_id(0);
	if (i >= n)
		return;
	uint id[8], is[8];
	unpack_u(idims_, id);
	unpack_u(istr_, is);
	uint q = i / inner, r = i % inner;
	ulong off = r;
	for (uint j = 0; j < k; j++)
		off += fix_index(load_index(I, (ulong)q * k + j), id[j]) * is[j];
	D[i] = S[off];
}

/* scatterElements into D (already a copy of the input). One work-item per line of updates along
 * the axis, walked in order, so duplicate indices resolve deterministically (last one wins).
 * Lines are numbered over the updates shape with the axis dimension removed. */
__kernel void scatter_elements(__global const IT *I, __global const T *U, __global T *D,
			       uint lines, uint rank, uint8 udims_, uint8 ustr_, uint8 ostr_,
			       uint axis, uint axis_dim)
{
	uint i = get_global_id(0);
	if (i >= lines)
		return;
	uint ud[8], us[8], os[8];
	unpack_u(udims_, ud);
	unpack_u(ustr_, us);
	unpack_u(ostr_, os);
	ulong uoff = 0, ooff = 0;
	uint j = i;
	for (int d = (int)rank - 1; d >= 0; d--) {
		if ((uint)d == axis)
			continue;
		uint c = j % ud[d];
		j /= ud[d];
		uoff += (ulong)c * us[d];
		ooff += (ulong)c * os[d];
	}
	for (uint a = 0; a < ud[axis]; a++) {
		ulong u = uoff + (ulong)a * us[axis];
		D[ooff + fix_index(load_index(I, u), axis_dim) * os[axis]] = U[u];
	}
}

/* scatterND into D (already a copy of the input): indices [q, k], updates [q, inner]. One
 * work-item per position r inside the slices, walking q in order (last one wins). */
__kernel void scatter_nd(__global const IT *I, __global const T *U, __global T *D, uint inner,
			 uint nq, uint k, uint8 odims_, uint8 ostr_)
{
	uint r = get_global_id(0);
	if (r >= inner)
		return;
	uint od[8], os[8];
	unpack_u(odims_, od);
	unpack_u(ostr_, os);
	for (uint q = 0; q < nq; q++) {
		ulong off = r;
		for (uint j = 0; j < k; j++)
			off += fix_index(load_index(I, (ulong)q * k + j), od[j]) * os[j];
		D[off] = U[(ulong)q * inner + r];
	}
}
