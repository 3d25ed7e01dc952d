/* OpenCL lowering of the rnn family: gru, gruCell, lstm, lstmCell. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * All four operators run in float32 workspaces:
 *   xw  [dirs][steps * batch][G*H]  x * W^T for every step at once (one gemm per direction),
 *   hs  [steps + 1][dirs][batch*H]  hidden states, slot k + 1 written by a direction's k-th step,
 *   cs  [2][dirs][batch*H]          lstm cell states, ping-pong,
 * then each step is a recurrent gemm plus a gate kernel, and the outputs are gathered (and
 * converted to float16) from the workspaces at the end.
 */
static void lower_rnn(struct ocl_build *b)
{
	struct wnn_rnn_attrs p;
	if (wnn_resolve_rnn(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	size_t H = p.hidden, NB = p.batch, G = p.gates, GH = G * H, S = p.steps;
	size_t D = p.num_dirs, I = p.input_size, bh = NB * H;
	ocl_check_u32(b, (uint64_t)(S + 1) * D * bh, "hidden state sequence");
	ocl_check_u32(b, (uint64_t)D * S * NB * GH, "gate buffer");
	uint32_t sx = ocl_f32_slot(b, p.input), sw = ocl_f32_slot(b, p.weight);
	uint32_t sr = ocl_f32_slot(b, p.recurrent_weight);
	uint32_t sb = p.has_bias ? ocl_f32_slot(b, p.bias) : UINT32_MAX;
	uint32_t srb = p.has_recurrent_bias ? ocl_f32_slot(b, p.recurrent_bias) : UINT32_MAX;
	uint32_t sp = p.has_peephole ? ocl_f32_slot(b, p.peephole) : UINT32_MAX;
	if (OCL_FAILED(b))
		return;
	uint32_t hs = ocl_slot_new_temp(b, (S + 1) * D * bh * 4);
	uint32_t xw = ocl_slot_new_temp(b, D * S * NB * GH * 4);
	uint32_t cs = p.lstm ? ocl_slot_new_temp(b, 2 * D * bh * 4) : UINT32_MAX;
	if (p.has_initial_hidden)
		ocl_step_copy(b, ocl_f32_slot(b, p.initial_hidden), 0, hs, 0, D * bh * 4);
	else
		ocl_step_zero(b, hs, 0, D * bh * 4);
	if (p.lstm) {
		if (p.has_initial_cell)
			ocl_step_copy(b, ocl_f32_slot(b, p.initial_cell), 0, cs, 0, D * bh * 4);
		else
			ocl_step_zero(b, cs, 0, D * bh * 4);
	}
	cl_program rnn, out;
	if (OCL_FAILED(b) || ocl_typed_program(b, "rnn.cl", WNN_F32, &rnn) ||
	    ocl_typed_program(b, "rnn.cl", p.type, &out))
		return;
	/* lstm adds both biases to every gate: fold them into one vector */
	uint32_t sbb = sb;
	bool has_bb = p.has_bias || p.has_recurrent_bias;
	if (p.lstm && p.has_bias && p.has_recurrent_bias) {
		sbb = ocl_slot_new_temp(b, D * GH * 4);
		struct ocl_step *s = ocl_kernel_n(b, rnn, "vec_add", D * GH);
		ocl_arg_mem(b, s, 0, sb);
		ocl_arg_mem(b, s, 1, srb);
		ocl_arg_mem(b, s, 2, sbb);
		ocl_arg_u(b, s, 3, (cl_uint)(D * GH));
	} else if (p.lstm && p.has_recurrent_bias) {
		sbb = srb;
	}
	for (size_t d = 0; d < D; d++)
		ocl_gemm2d(b, sx, 0, I, false, sw, d * GH * I, I, true, xw, d * S * NB * GH, GH, S * NB, GH, I, 0);
	/* Small layers compute h * R^T inside the gate kernels: a CLBlast call per step costs far
	 * more than their math. WEBNN_OCL_RNN_GEMM=1 forces the gemm path (for tests). */
	bool fused = (uint64_t)NB * GH * H <= (1u << 22) && !getenv("WEBNN_OCL_RNN_GEMM");
	uint32_t hr = UINT32_MAX, rh = UINT32_MAX, hn = UINT32_MAX;
	if (!p.lstm) {
		if (!fused)
			hr = ocl_slot_new_temp(b, NB * GH * 4);
		if (!p.reset_after) {
			rh = ocl_slot_new_temp(b, bh * 4);
			if (!fused)
				hn = ocl_slot_new_temp(b, bh * 4);
		}
	}
	const uint32_t *gb = p.gate_block;
	cl_uint go = p.lstm ? (cl_uint)(gb[WNN_LSTM_I] | gb[WNN_LSTM_O] << 4 |
					gb[WNN_LSTM_F] << 8 | gb[WNN_LSTM_G] << 12)
			    : (cl_uint)(gb[WNN_GRU_Z] | gb[WNN_GRU_R] << 4 | gb[WNN_GRU_N] << 8);
	uint32_t backward = (p.backward ? 1u : 0u) | (D == 2 ? 2u : 0u);
	for (size_t k = 0; k < S && !OCL_FAILED(b); k++) {
		for (size_t d = 0; d < D && !OCL_FAILED(b); d++) {
			size_t t = (backward >> d) & 1 ? S - 1 - k : k;
			cl_uint xw_off = (cl_uint)((d * S + t) * NB * GH);
			cl_uint h_off = (cl_uint)((k * D + d) * bh);
			cl_uint out_off = (cl_uint)(((k + 1) * D + d) * bh);
			cl_uint r_off = (cl_uint)(d * GH * H);
			if (p.lstm) {
				/* unfused, the recurrent product accumulates onto x * W^T */
				if (!fused)
					ocl_gemm2d(b, hs, h_off, H, false, sr, r_off, H, true, xw, xw_off, GH, NB,
					     GH, H, 1);
				struct ocl_step *s = ocl_kernel_n(b, rnn, "lstm_gates", bh);
				ocl_arg_mem(b, s, 0, xw);
				ocl_arg_u(b, s, 1, xw_off);
				ocl_arg_mem(b, s, 2, sr);
				ocl_arg_u(b, s, 3, r_off);
				ocl_arg_u(b, s, 4, fused);
				ocl_arg_mem(b, s, 5, has_bb ? sbb : xw);
				ocl_arg_u(b, s, 6, (cl_uint)(d * GH));
				ocl_arg_u(b, s, 7, has_bb);
				ocl_arg_mem(b, s, 8, p.has_peephole ? sp : xw);
				ocl_arg_u(b, s, 9, (cl_uint)(d * 3 * H));
				ocl_arg_u(b, s, 10, p.has_peephole);
				ocl_arg_mem(b, s, 11, hs);
				ocl_arg_u(b, s, 12, h_off);
				ocl_arg_u(b, s, 13, out_off);
				ocl_arg_mem(b, s, 14, cs);
				ocl_arg_u(b, s, 15, (cl_uint)(((k % 2) * D + d) * bh));
				ocl_arg_u(b, s, 16, (cl_uint)((((k + 1) % 2) * D + d) * bh));
				ocl_arg_u(b, s, 17, (cl_uint)NB);
				ocl_arg_u(b, s, 18, (cl_uint)H);
				ocl_arg_u(b, s, 19, go);
				ocl_arg_u(b, s, 20, p.act[0]);
				ocl_arg_u(b, s, 21, p.act[1]);
				ocl_arg_u(b, s, 22, p.act[2]);
				continue;
			}
			if (!fused)
				ocl_gemm2d(b, hs, h_off, H, false, sr, r_off, H, true, hr, 0, GH, NB, GH, H, 0);
			/* phase 0: reset after; 1 then 2: reset before (r * h first) */
			int first = p.reset_after ? 0 : 1, last = p.reset_after ? 0 : 2;
			for (int phase = first; phase <= last && !OCL_FAILED(b); phase++) {
				if (phase == 2 && !fused) {
					size_t roff = r_off + (size_t)gb[WNN_GRU_N] * H * H;
					ocl_gemm2d(b, rh, 0, H, false, sr, roff, H, true, hn, 0, H, NB, H, H, 0);
				}
				struct ocl_step *s = ocl_kernel_n(
					b, rnn, phase == 2 ? "gru_before" : "gru_gates", bh);
				uint32_t hrr = fused ? sr : hr;
				ocl_arg_mem(b, s, 0, xw);
				ocl_arg_u(b, s, 1, xw_off);
				ocl_arg_mem(b, s, 2, hrr);
				ocl_arg_u(b, s, 3, r_off);
				ocl_arg_u(b, s, 4, fused);
				ocl_arg_mem(b, s, 5, p.has_bias ? sb : xw);
				ocl_arg_u(b, s, 6, (cl_uint)(d * GH));
				ocl_arg_mem(b, s, 7, p.has_recurrent_bias ? srb : xw);
				ocl_arg_u(b, s, 8, (cl_uint)(d * GH));
				ocl_arg_mem(b, s, 9, hs);
				ocl_arg_u(b, s, 10, h_off);
				ocl_arg_u(b, s, 11, out_off);
				/* phase 1 writes r * h; phase 2 reads it (fused) or its gemm */
				uint32_t x12 = phase == 2 && !fused ? hn : (rh != UINT32_MAX ? rh : xw);
				ocl_arg_mem(b, s, 12, x12);
				ocl_arg_u(b, s, 13, (cl_uint)NB);
				ocl_arg_u(b, s, 14, (cl_uint)H);
				ocl_arg_u(b, s, 15, p.has_bias);
				ocl_arg_u(b, s, 16, p.has_recurrent_bias);
				ocl_arg_u(b, s, 17, go);
				ocl_arg_u(b, s, 18, p.act[0]);
				ocl_arg_u(b, s, 19, p.act[1]);
				if (phase != 2)
					ocl_arg_u(b, s, 20, (cl_uint)phase);
			}
		}
	}
	struct {
		uint32_t operand, src, slot;
		bool seq;
	} outs[3] = {
		{ p.out_hidden, hs, (uint32_t)S, false },
		{ p.out_cell, cs, (uint32_t)(S % 2), false },
		{ p.out_sequence, hs, 0, true },
	};
	for (int i = 0; i < 3 && !OCL_FAILED(b); i++) {
		if (outs[i].operand == WNN_NO_OPERAND)
			continue;
		uint32_t so = ocl_output_slot(b, outs[i].operand);
		size_t n = (outs[i].seq ? S : 1) * D * bh;
		struct ocl_step *s = ocl_kernel_n(b, out, "rnn_out", n);
		ocl_arg_mem(b, s, 0, outs[i].src);
		ocl_arg_mem(b, s, 1, so);
		ocl_arg_u(b, s, 2, (cl_uint)n);
		ocl_arg_u(b, s, 3, (cl_uint)S);
		ocl_arg_u(b, s, 4, (cl_uint)D);
		ocl_arg_u(b, s, 5, (cl_uint)bh);
		ocl_arg_u(b, s, 6, backward);
		ocl_arg_u(b, s, 7, outs[i].seq);
		ocl_arg_u(b, s, 8, outs[i].slot);
	}
}

void ocl_lower_rnn(struct ocl_build *b, enum wnn_op op)
{
	(void)op;
	lower_rnn(b);
}
