/* The cpu backend's rnn family: gru, gruCell, lstm and lstmCell (float16 through float32): the gate products as oneDNN sgemm calls, the cell updates as C loops. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"

/* cpu_normalization.c: runs the float32 kernel prepared in s on float32 copies of the node's
 * float16 operands (its declaration belongs in cpu.h). */

/*
 * The same steps as kernels_rnn.c in float32. The input products of all steps do not depend on
 * the recurrence: one sgemm [steps*batch, I] x W^T gives them all. Each step then needs one
 * sgemm [batch, H] x R^T (plus one for gru's candidate without resetAfter, which multiplies
 * r * h) and the cell's elementwise update. oneDNN's sgemm is its AVX-512 jit gemm, threaded
 * with the same OpenMP runtime.
 */

/* C[M, N] = A[M, K] x B^T (B is [N, K] row-major with leading dimension ldb). */
static enum webnn_status cpu_rnn_gemm(const struct graph_node *n, uint64_t M, uint64_t N,
				      uint64_t K, const float *A, const float *B, uint64_t ldb,
				      float *C, uint64_t ldc, struct wnn_diag *diag)
{
	dnnl_status_t st = dnnl_sgemm('N', 'T', (dnnl_dim_t)M, (dnnl_dim_t)N, (dnnl_dim_t)K, 1.0f,
				      A, (dnnl_dim_t)K, B, (dnnl_dim_t)ldb, 0.0f, C, (dnnl_dim_t)ldc);
	return cpu_dnnl_check(st, n, "sgemm", diag);
}

static inline float cpu_act(enum wnn_activation a, float x)
{
	switch (a) {
	case WNN_ACT_RELU:
		return x > 0 ? x : 0;
	case WNN_ACT_SIGMOID:
		return 1 / (1 + expf(-x));
	default:
		return tanhf(x);
	}
}

static enum webnn_status cpu_rnn_steps(const struct cpu_step *s, void *const *bufs,
				       const struct cpu_exec *x, struct wnn_diag *diag);

/* oneDNN's sgemm forks as many threads as omp_get_max_threads() says when it runs: the step's
 * own count (one for a serial step, and on the quick path, whose loop thread otherwise has the
 * default of one per core). A [1,64]x[64,256] product took 2.1 us on one thread and 46 us on
 * a team of two at load 6 (Silero VAD's LSTM: 0.028-0.035 ms a step before). */
static enum webnn_status cpu_run_rnn(const struct cpu_step *s, void *const *bufs,
				     const struct cpu_exec *x, struct wnn_diag *diag)
{
	int team = omp_get_max_threads();
	if (x->threads != team)
		omp_set_num_threads(x->threads);
	enum webnn_status st = cpu_rnn_steps(s, bufs, x, diag);
	if (x->threads != team)
		omp_set_num_threads(team);
	return st;
}

static enum webnn_status cpu_rnn_steps(const struct cpu_step *s, void *const *bufs,
				       const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_rnn_attrs *p = &s->n->attrs.rnn;
	const uint64_t H = p->hidden, I = p->input_size, B = p->batch, G = p->gates;
	const uint64_t GH = G * H;
	const float *X = bufs[p->input];
	const uint64_t SB = (uint64_t)p->steps * B;
	(void)x;
	/* h, c, next h / next c (B*H each); input gate sums of every step (SB*G*H); recurrent
	 * gate sums (B*G*H); r*h (B*H) */
	float *mem = malloc((5 * B * H + SB * GH + B * GH) * sizeof *mem);
	if (!mem)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    wnn_ops[s->n->op].name);
	float *hs = mem, *cs = hs + B * H, *nh = cs + B * H, *nc = nh + B * H;
	float *rh = nc + B * H, *xgs = rh + B * H, *hg = xgs + SB * GH;
	enum webnn_status st = WEBNN_STATUS_OK;
	for (uint32_t dir = 0; dir < p->num_dirs; dir++) {
		const bool backward = dir == 1 || p->backward;
		const float *W = (const float *)bufs[p->weight] + dir * GH * I;
		const float *R = (const float *)bufs[p->recurrent_weight] + dir * GH * H;
		const float *Bi = p->has_bias ? (const float *)bufs[p->bias] + dir * GH : NULL;
		const float *RB =
			p->has_recurrent_bias ? (const float *)bufs[p->recurrent_bias] + dir * GH : NULL;
		const float *PH = p->has_peephole ? (const float *)bufs[p->peephole] + dir * 3 * H : NULL;
		const uint64_t st_off = (uint64_t)dir * B * H;
		if (p->has_initial_hidden)
			memcpy(hs, (const float *)bufs[p->initial_hidden] + st_off, B * H * sizeof *hs);
		else
			memset(hs, 0, B * H * sizeof *hs);
		if (p->has_initial_cell)
			memcpy(cs, (const float *)bufs[p->initial_cell] + st_off, B * H * sizeof *cs);
		else
			memset(cs, 0, B * H * sizeof *cs);
		const uint64_t nb = (uint64_t)p->gate_block[WNN_GRU_N] * H;
		if ((st = cpu_rnn_gemm(s->n, SB, GH, I, X, W, I, xgs, GH, diag)) != WEBNN_STATUS_OK)
			goto done;
		if (Bi)
			for (uint64_t q = 0; q < SB; q++)
				for (uint64_t row = 0; row < GH; row++)
					xgs[q * GH + row] += Bi[row];
		for (uint32_t step = 0; step < p->steps; step++) {
			const uint64_t ts = backward ? p->steps - 1 - step : step;
			const float *xg = xgs + ts * B * GH;
			/* gru without resetAfter recomputes the candidate's part from r * h below */
			if ((st = cpu_rnn_gemm(s->n, B, GH, H, hs, R, H, hg, GH, diag)) !=
			    WEBNN_STATUS_OK)
				goto done;
			if (RB)
				for (uint64_t b = 0; b < B; b++)
					for (uint64_t row = 0; row < GH; row++)
						hg[b * GH + row] += RB[row];
			if (p->lstm) {
				const uint64_t ib = (uint64_t)p->gate_block[WNN_LSTM_I] * H,
					       fb = (uint64_t)p->gate_block[WNN_LSTM_F] * H,
					       gb = (uint64_t)p->gate_block[WNN_LSTM_G] * H,
					       ob = (uint64_t)p->gate_block[WNN_LSTM_O] * H;
				for (uint64_t b = 0; b < B; b++)
					for (uint64_t j = 0; j < H; j++) {
						const float *xq = xg + b * GH, *hq = hg + b * GH;
						float c = cs[b * H + j];
						float gi = xq[ib + j] + hq[ib + j];
						float gf = xq[fb + j] + hq[fb + j];
						float gg = xq[gb + j] + hq[gb + j];
						float go = xq[ob + j] + hq[ob + j];
						if (PH) { /* packing: i at 0, o at H, f at 2H */
							gi += c * PH[j];
							go += c * PH[H + j];
							gf += c * PH[2 * H + j];
						}
						float i = cpu_act(p->act[0], gi), f = cpu_act(p->act[0], gf);
						float g = cpu_act(p->act[1], gg), o = cpu_act(p->act[0], go);
						nc[b * H + j] = f * c + i * g;
						nh[b * H + j] = o * cpu_act(p->act[2], nc[b * H + j]);
					}
				memcpy(cs, nc, B * H * sizeof *cs);
			} else {
				const uint64_t zb = (uint64_t)p->gate_block[WNN_GRU_Z] * H,
					       rb = (uint64_t)p->gate_block[WNN_GRU_R] * H;
				for (uint64_t b = 0; b < B; b++)
					for (uint64_t j = 0; j < H; j++) {
						uint64_t q = b * GH;
						float r = cpu_act(p->act[0], xg[q + rb + j] + hg[q + rb + j]);
						nc[b * H + j] = r; /* r, kept for the candidate */
						rh[b * H + j] = r * hs[b * H + j];
					}
				if (!p->reset_after) {
					st = cpu_rnn_gemm(s->n, B, H, H, rh, R + nb * H, H, hg + nb, GH,
							  diag);
					if (st != WEBNN_STATUS_OK)
						goto done;
					if (RB)
						for (uint64_t b = 0; b < B; b++)
							for (uint64_t j = 0; j < H; j++)
								hg[b * GH + nb + j] += RB[nb + j];
				}
				for (uint64_t b = 0; b < B; b++)
					for (uint64_t j = 0; j < H; j++) {
						uint64_t q = b * GH;
						float z = cpu_act(p->act[0], xg[q + zb + j] + hg[q + zb + j]);
						float r = nc[b * H + j];
						float hn = p->reset_after ? r * hg[q + nb + j] : hg[q + nb + j];
						float n = cpu_act(p->act[1], xg[q + nb + j] + hn);
						nh[b * H + j] = z * hs[b * H + j] + (1 - z) * n;
					}
			}
			memcpy(hs, nh, B * H * sizeof *hs);
			if (p->out_sequence != WNN_NO_OPERAND)
				memcpy((float *)bufs[p->out_sequence] + (ts * p->num_dirs + dir) * B * H,
				       hs, B * H * sizeof *hs);
		}
		memcpy((float *)bufs[p->out_hidden] + st_off, hs, B * H * sizeof *hs);
		if (p->out_cell != WNN_NO_OPERAND)
			memcpy((float *)bufs[p->out_cell] + st_off, cs, B * H * sizeof *cs);
	}
done:
	free(mem);
	return st;
}

enum webnn_status cpu_rnn_prepare(const struct cpu_build *b, struct cpu_step *s,
				  struct wnn_diag *diag)
{
	enum wnn_dtype t = s->n->attrs.rnn.type;
	(void)b;
	s->run = NULL;
	if (t != WNN_F32 && t != WNN_F16)
		return WEBNN_STATUS_OK;
	s->run = cpu_run_rnn;
	s->impl = "C";
	/* float16 steps in float32 (the reference rounds the states to float16 each step; the
	 * difference stays within float16 tolerances) */
	return t == WNN_F16 ? cpu_f16_wrap(s, diag) : WEBNN_STATUS_OK;
}
