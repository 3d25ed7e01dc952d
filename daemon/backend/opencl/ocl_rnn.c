/* OpenCL lowering of the rnn family: gru, gruCell, lstm, lstmCell. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One rnn node's shapes, workspaces and choices, shared by the steps below. */
struct rnn {
	struct wnn_rnn_attrs p;
	size_t H, NB, GH, S, D, I, bh;
	uint32_t sx, sw, sr, sb, srb, sp; /* float32 operands (UINT32_MAX when absent) */
	uint32_t hs, xw, cs, sbb;         /* workspaces; sbb: the bias the lstm gates add */
	uint32_t hr, rh, hn;              /* gru temporaries (UINT32_MAX when unused) */
	bool has_bb, fused;
	cl_uint go;                       /* gate block order, 4 bits per gate */
	uint32_t backward;                /* bit d: direction d runs backward */
	cl_program rnn, out;
};

/* Operands as float32, the workspaces and the initial states. */
static void rnn_workspaces(struct ocl_build *b, struct rnn *r)
{
	const struct wnn_rnn_attrs *p = &r->p;
	size_t D = r->D, bh = r->bh;
	r->sx = ocl_f32_slot(b, p->input);
	r->sw = ocl_f32_slot(b, p->weight);
	r->sr = ocl_f32_slot(b, p->recurrent_weight);
	r->sb = p->has_bias ? ocl_f32_slot(b, p->bias) : UINT32_MAX;
	r->srb = p->has_recurrent_bias ? ocl_f32_slot(b, p->recurrent_bias) : UINT32_MAX;
	r->sp = p->has_peephole ? ocl_f32_slot(b, p->peephole) : UINT32_MAX;
	if (OCL_FAILED(b))
		return;
	r->hs = ocl_slot_new_temp(b, (r->S + 1) * D * bh * 4);
	r->xw = ocl_slot_new_temp(b, D * r->S * r->NB * r->GH * 4);
	r->cs = p->lstm ? ocl_slot_new_temp(b, 2 * D * bh * 4) : UINT32_MAX;
	if (p->has_initial_hidden)
		ocl_step_copy(b, ocl_f32_slot(b, p->initial_hidden), 0, r->hs, 0, D * bh * 4);
	else
		ocl_step_zero(b, r->hs, 0, D * bh * 4);
	if (p->lstm) {
		if (p->has_initial_cell)
			ocl_step_copy(b, ocl_f32_slot(b, p->initial_cell), 0, r->cs, 0, D * bh * 4);
		else
			ocl_step_zero(b, r->cs, 0, D * bh * 4);
	}
}

/* lstm adds both biases to every gate: they are folded into one vector. */
static void rnn_bias(struct ocl_build *b, struct rnn *r)
{
	const struct wnn_rnn_attrs *p = &r->p;
	r->sbb = r->sb;
	r->has_bb = p->has_bias || p->has_recurrent_bias;
	if (p->lstm && p->has_bias && p->has_recurrent_bias) {
		r->sbb = ocl_slot_new_temp(b, r->D * r->GH * 4);
		struct ocl_step *s = ocl_kernel_n(b, r->rnn, "vec_add", r->D * r->GH);
		ocl_arg_mem(b, s, 0, r->sb);
		ocl_arg_mem(b, s, 1, r->srb);
		ocl_arg_mem(b, s, 2, r->sbb);
		ocl_arg_u(b, s, 3, (cl_uint)(r->D * r->GH));
	} else if (p->lstm && p->has_recurrent_bias) {
		r->sbb = r->srb;
	}
}

/* Step k of direction d of an lstm: unfused, the recurrent product accumulates onto x * W^T. */
static void rnn_lstm_step(struct ocl_build *b, const struct rnn *r, size_t k, size_t d,
			  cl_uint xw_off, cl_uint h_off, cl_uint out_off, cl_uint r_off)
{
	size_t H = r->H, GH = r->GH, D = r->D, bh = r->bh;
	if (!r->fused)
		ocl_gemm2d(b, r->hs, h_off, H, false, r->sr, r_off, H, true, r->xw, xw_off, GH, r->NB,
			   GH, H, 1);
	struct ocl_step *s = ocl_kernel_n(b, r->rnn, "lstm_gates", bh);
	ocl_arg_mem(b, s, 0, r->xw);
	ocl_arg_u(b, s, 1, xw_off);
	ocl_arg_mem(b, s, 2, r->sr);
	ocl_arg_u(b, s, 3, r_off);
	ocl_arg_u(b, s, 4, r->fused);
	ocl_arg_mem(b, s, 5, r->has_bb ? r->sbb : r->xw);
	ocl_arg_u(b, s, 6, (cl_uint)(d * GH));
	ocl_arg_u(b, s, 7, r->has_bb);
	ocl_arg_mem(b, s, 8, r->p.has_peephole ? r->sp : r->xw);
	ocl_arg_u(b, s, 9, (cl_uint)(d * 3 * H));
	ocl_arg_u(b, s, 10, r->p.has_peephole);
	ocl_arg_mem(b, s, 11, r->hs);
	ocl_arg_u(b, s, 12, h_off);
	ocl_arg_u(b, s, 13, out_off);
	ocl_arg_mem(b, s, 14, r->cs);
	ocl_arg_u(b, s, 15, (cl_uint)(((k % 2) * D + d) * bh));
	ocl_arg_u(b, s, 16, (cl_uint)((((k + 1) % 2) * D + d) * bh));
	ocl_arg_u(b, s, 17, (cl_uint)r->NB);
	ocl_arg_u(b, s, 18, (cl_uint)H);
	ocl_arg_u(b, s, 19, r->go);
	ocl_arg_u(b, s, 20, r->p.act[0]);
	ocl_arg_u(b, s, 21, r->p.act[1]);
	ocl_arg_u(b, s, 22, r->p.act[2]);
}

/* One step of direction d of a gru: phase 0 resets after; 1 then 2 reset before (r * h first). */
static void rnn_gru_step(struct ocl_build *b, const struct rnn *r, size_t d, cl_uint xw_off,
			 cl_uint h_off, cl_uint out_off, cl_uint r_off)
{
	const struct wnn_rnn_attrs *p = &r->p;
	size_t H = r->H, GH = r->GH, NB = r->NB;
	if (!r->fused)
		ocl_gemm2d(b, r->hs, h_off, H, false, r->sr, r_off, H, true, r->hr, 0, GH, NB, GH, H,
			   0);
	int first = p->reset_after ? 0 : 1, last = p->reset_after ? 0 : 2;
	for (int phase = first; phase <= last && !OCL_FAILED(b); phase++) {
		if (phase == 2 && !r->fused) {
			size_t roff = r_off + (size_t)p->gate_block[WNN_GRU_N] * H * H;
			ocl_gemm2d(b, r->rh, 0, H, false, r->sr, roff, H, true, r->hn, 0, H, NB, H, H,
				   0);
		}
		struct ocl_step *s =
			ocl_kernel_n(b, r->rnn, phase == 2 ? "gru_before" : "gru_gates", r->bh);
		ocl_arg_mem(b, s, 0, r->xw);
		ocl_arg_u(b, s, 1, xw_off);
		ocl_arg_mem(b, s, 2, r->fused ? r->sr : r->hr);
		ocl_arg_u(b, s, 3, r_off);
		ocl_arg_u(b, s, 4, r->fused);
		ocl_arg_mem(b, s, 5, p->has_bias ? r->sb : r->xw);
		ocl_arg_u(b, s, 6, (cl_uint)(d * GH));
		ocl_arg_mem(b, s, 7, p->has_recurrent_bias ? r->srb : r->xw);
		ocl_arg_u(b, s, 8, (cl_uint)(d * GH));
		ocl_arg_mem(b, s, 9, r->hs);
		ocl_arg_u(b, s, 10, h_off);
		ocl_arg_u(b, s, 11, out_off);
		/* phase 1 writes r * h; phase 2 reads it (fused) or its gemm */
		uint32_t x12 = phase == 2 && !r->fused ? r->hn : (r->rh != UINT32_MAX ? r->rh : r->xw);
		ocl_arg_mem(b, s, 12, x12);
		ocl_arg_u(b, s, 13, (cl_uint)NB);
		ocl_arg_u(b, s, 14, (cl_uint)H);
		ocl_arg_u(b, s, 15, p->has_bias);
		ocl_arg_u(b, s, 16, p->has_recurrent_bias);
		ocl_arg_u(b, s, 17, r->go);
		ocl_arg_u(b, s, 18, p->act[0]);
		ocl_arg_u(b, s, 19, p->act[1]);
		if (phase != 2)
			ocl_arg_u(b, s, 20, (cl_uint)phase);
	}
}

/* Every step of every direction, in time order of the forward direction. */
static void rnn_steps(struct ocl_build *b, const struct rnn *r)
{
	size_t S = r->S, D = r->D, NB = r->NB, GH = r->GH, bh = r->bh;
	for (size_t k = 0; k < S && !OCL_FAILED(b); k++) {
		for (size_t d = 0; d < D && !OCL_FAILED(b); d++) {
			size_t t = (r->backward >> d) & 1 ? S - 1 - k : k;
			cl_uint xw_off = (cl_uint)((d * S + t) * NB * GH);
			cl_uint h_off = (cl_uint)((k * D + d) * bh);
			cl_uint out_off = (cl_uint)(((k + 1) * D + d) * bh);
			cl_uint r_off = (cl_uint)(d * GH * r->H);
			if (r->p.lstm)
				rnn_lstm_step(b, r, k, d, xw_off, h_off, out_off, r_off);
			else
				rnn_gru_step(b, r, d, xw_off, h_off, out_off, r_off);
		}
	}
}

/* The outputs gathered (and converted to float16) from the workspaces. */
static void rnn_outputs(struct ocl_build *b, const struct rnn *r)
{
	const struct wnn_rnn_attrs *p = &r->p;
	size_t S = r->S, D = r->D, bh = r->bh;
	struct {
		uint32_t operand, src, slot;
		bool seq;
	} outs[3] = {
		{ p->out_hidden, r->hs, (uint32_t)S, false },
		{ p->out_cell, r->cs, (uint32_t)(S % 2), false },
		{ p->out_sequence, r->hs, 0, true },
	};
	for (int i = 0; i < 3 && !OCL_FAILED(b); i++) {
		if (outs[i].operand == WNN_NO_OPERAND)
			continue;
		uint32_t so = ocl_output_slot(b, outs[i].operand);
		size_t n = (outs[i].seq ? S : 1) * D * bh;
		struct ocl_step *s = ocl_kernel_n(b, r->out, "rnn_out", n);
		ocl_arg_mem(b, s, 0, outs[i].src);
		ocl_arg_mem(b, s, 1, so);
		ocl_arg_u(b, s, 2, (cl_uint)n);
		ocl_arg_u(b, s, 3, (cl_uint)S);
		ocl_arg_u(b, s, 4, (cl_uint)D);
		ocl_arg_u(b, s, 5, (cl_uint)bh);
		ocl_arg_u(b, s, 6, r->backward);
		ocl_arg_u(b, s, 7, outs[i].seq);
		ocl_arg_u(b, s, 8, outs[i].slot);
	}
}

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
	struct rnn r = { .p = b->node->attrs.rnn };
	const struct wnn_rnn_attrs *p = &r.p;
	r.H = p->hidden;
	r.NB = p->batch;
	r.GH = (size_t)p->gates * r.H;
	r.S = p->steps;
	r.D = p->num_dirs;
	r.I = p->input_size;
	r.bh = r.NB * r.H;
	ocl_check_u32(b, (uint64_t)(r.S + 1) * r.D * r.bh, "hidden state sequence");
	ocl_check_u32(b, (uint64_t)r.D * r.S * r.NB * r.GH, "gate buffer");
	rnn_workspaces(b, &r);
	if (OCL_FAILED(b) || ocl_typed_program(b, "rnn.cl", WNN_F32, &r.rnn) ||
	    ocl_typed_program(b, "rnn.cl", p->type, &r.out))
		return;
	rnn_bias(b, &r);
	for (size_t d = 0; d < r.D; d++)
		ocl_gemm2d(b, r.sx, 0, r.I, false, r.sw, d * r.GH * r.I, r.I, true, r.xw,
			   d * r.S * r.NB * r.GH, r.GH, r.S * r.NB, r.GH, r.I, 0);
	/* Small layers compute h * R^T inside the gate kernels: a CLBlast call per step costs far
	 * more than their math. options.rnn_gemm forces the gemm path (for tests). */
	r.fused = (uint64_t)r.NB * r.GH * r.H <= (1u << 22) && !b->plan->ctx->be->opts.rnn_gemm;
	r.hr = r.rh = r.hn = UINT32_MAX;
	if (!p->lstm) {
		if (!r.fused)
			r.hr = ocl_slot_new_temp(b, r.NB * r.GH * 4);
		if (!p->reset_after) {
			r.rh = ocl_slot_new_temp(b, r.bh * 4);
			if (!r.fused)
				r.hn = ocl_slot_new_temp(b, r.bh * 4);
		}
	}
	const uint32_t *gb = p->gate_block;
	r.go = p->lstm ? (cl_uint)(gb[WNN_LSTM_I] | gb[WNN_LSTM_O] << 4 | gb[WNN_LSTM_F] << 8 |
				   gb[WNN_LSTM_G] << 12)
		       : (cl_uint)(gb[WNN_GRU_Z] | gb[WNN_GRU_R] << 4 | gb[WNN_GRU_N] << 8);
	r.backward = (p->backward ? 1u : 0u) | (r.D == 2 ? 2u : 0u);
	rnn_steps(b, &r);
	rnn_outputs(b, &r);
}

void ocl_lower_rnn(struct ocl_build *b, enum wnn_op op)
{
	(void)op;
	lower_rnn(b);
}
