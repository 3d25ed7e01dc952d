/* Recurrent kernels: gru/gruCell/lstm/lstmCell gates (float32) and the gathering of outputs. */

/* The gates are computed in float32. x * W^T for every step comes from
 * one CLBlast gemm; the recurrent product h * R^T is either computed here, fused into the gate
 * kernel (fused = 1: small layers, where a gemm call costs more than the math), or by a CLBlast
 * gemm per step into a buffer (fused = 0). */

/* Activations: 0 relu, 1 sigmoid, 2 tanh (Webnn__Ipc__RecurrentActivation). */
inline float act(float x, uint a)
{
	if (a == 0)
		return fmax(x, 0.0f);
	if (a == 1)
		return 1.0f / (1.0f + exp(-x));
	return tanh(x);
}

/* Row `row` of the H-wide matrix at m_off times the H-vector at v_off. */
inline float dot_row(__global const float *M, ulong m_off, uint row, __global const float *V,
		     ulong v_off, uint H)
{
	ulong r = m_off + (ulong)row * H;
	float a = 0.0f;
	for (uint j = 0; j < H; j++)
		a += M[r + j] * V[v_off + j];
	return a;
}

/* Sums follow the spec's decomposition, (bias + recurrentBias) + (x * W^T + h * R^T), so that
 * float rounding matches what the conformance data was made with. */
#define XW_(k) XW[xw_off + (ulong)b * GH + (k) * H + h]
#define BG(k) (has_b ? Bv[b_off + (k) * H + h] : 0.0f)
#define RBG(k) (has_rb ? RB[rb_off + (k) * H + h] : 0.0f)
/* h * R^T of gate block k: fused, HRR is R (row k * H + h); else it holds the gemm result. */
#define HG(k)                                                                                  \
	(fused ? dot_row(HRR, r_off, (k) * H + h, Hs, h_off + (ulong)b * H, H)                 \
	       : HRR[(ulong)b * GH + (k) * H + h])
#define GATE(k) ((BG(k) + RBG(k)) + (XW_(k) + HG(k)))

/* gru, reset after (phase 0) or the first half of reset before (phase 1: writes r * h into RH).
 * go: gate blocks z | r << 4 | n << 8. Hs holds the states: h_off is read, out_off written. */
__kernel void gru_gates(__global const float *XW, uint xw_off, __global const float *HRR,
			uint r_off, uint fused, __global const float *Bv, uint b_off,
			__global const float *RB, uint rb_off, __global float *Hs, uint h_off,
			uint out_off, __global float *RH, uint B_, uint H, uint has_b, uint has_rb,
			uint go, uint act_f, uint act_g, uint phase)
{
	uint i = get_global_id(0);
	if (i >= B_ * H)
		return;
	uint b = i / H, h = i % H, GH = 3 * H;
	uint zo = go & 15, ro = (go >> 4) & 15, no = (go >> 8) & 15;
	float hp = Hs[h_off + i];
	float r = act(GATE(ro), act_f);
	if (phase == 1) {
		RH[i] = r * hp;
		return;
	}
	float z = act(GATE(zo), act_f);
	float n = act(BG(no) + (XW_(no) + r * (RBG(no) + HG(no))), act_g);
	Hs[out_off + i] = z * hp + (1.0f - z) * n;
}

/* gru, reset before, second half. fused: X is r * h (from phase 1) and the candidate's
 * recurrent term is R_n row h times it; else X already holds (r * h) * R_n^T. */
__kernel void gru_before(__global const float *XW, uint xw_off, __global const float *HRR,
			 uint r_off, uint fused, __global const float *Bv, uint b_off,
			 __global const float *RB, uint rb_off, __global float *Hs, uint h_off,
			 uint out_off, __global const float *X, uint B_, uint H, uint has_b,
			 uint has_rb, uint go, uint act_f, uint act_g)
{
	uint i = get_global_id(0);
	if (i >= B_ * H)
		return;
	uint b = i / H, h = i % H, GH = 3 * H;
	uint zo = go & 15, no = (go >> 8) & 15;
	float hp = Hs[h_off + i];
	float z = act(GATE(zo), act_f);
	float rn = fused ? dot_row(HRR, r_off, no * H + h, X, (ulong)b * H, H) : X[i];
	float n = act((BG(no) + RBG(no)) + (XW_(no) + rn), act_g);
	Hs[out_off + i] = z * hp + (1.0f - z) * n;
}

/* lstm: Bv is bias + recurrentBias. fused: HRR is R; else XW already holds this step's
 * x * W^T + h * R^T (the recurrent gemm accumulated onto it). go = i | o << 4 | f << 8 | g << 12
 * (gate blocks); the peephole vector is always (i, o, f). Cs: cell states (c_off read,
 * cout_off written). */
__kernel void lstm_gates(__global const float *XW, uint xw_off, __global const float *HRR,
			 uint r_off, uint fused, __global const float *Bv, uint b_off, uint has_b,
			 __global const float *P, uint p_off, uint has_p, __global float *Hs,
			 uint h_off, uint out_off, __global float *Cs, uint c_off, uint cout_off,
			 uint B_, uint H, uint go, uint act_f, uint act_g, uint act_h)
{
	uint i = get_global_id(0);
	if (i >= B_ * H)
		return;
	uint b = i / H, h = i % H, GH = 4 * H;
	uint io = go & 15, oo = (go >> 4) & 15, fo = (go >> 8) & 15, gg = (go >> 12) & 15;
	float c = Cs[c_off + i];
	float pi = has_p ? P[p_off + h] : 0.0f, po = has_p ? P[p_off + H + h] : 0.0f;
	float pf = has_p ? P[p_off + 2 * H + h] : 0.0f;
	/* unfused, XW already holds x * W^T + h * R^T */
#define LG(k)                                                                                  \
	(BG(k) + (fused ? XW_(k) + dot_row(HRR, r_off, (k) * H + h, Hs, h_off + (ulong)b * H, H) \
			: XW_(k)))
	float ig = act(c * pi + LG(io), act_f);
	float fg = act(c * pf + LG(fo), act_f);
	float gt = act(LG(gg), act_g);
	float og = act(c * po + LG(oo), act_f);
	float ct = fg * c + ig * gt;
	Cs[cout_off + i] = ct;
	Hs[out_off + i] = og * act(ct, act_h);
}

/* O = A + B over n floats (lstm's two bias vectors folded into one). */
__kernel void vec_add(__global const float *A, __global const float *B, __global float *O, uint n)
{
	uint i = get_global_id(0);
	if (i < n)
		O[i] = A[i] + B[i];
}

#ifdef IS_FLOAT
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
#endif
