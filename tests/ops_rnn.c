/* Tests of the recurrent family (gru, gruCell, lstm, lstmCell): hand-computed vectors through libwebnn, validation, libwebnn graphs, the reference backend's kernels, the OpenCL backend against the reference. */
#include <math.h>

#include "daemon/backend/opencl/ocl.h"
#include "tests/clienttest.h"
#include "tests/ocltest.h"
#include "tests/opvectors.h"
#include "tests/reftest.h"
#include "tests/opfixture.h"
#include "tests/test.h"

/* ==== hand-computed vectors through libwebnn on both backends (tests/opvectors.h) */

static enum webnn_status gru_cell_default(struct webnn_builder *b, struct webnn_operand *const *in,
					  struct webnn_operand **out)
{
	return webnn_builder_gru_cell(b, in[0], in[1], in[2], in[3], 1, NULL, out);
}

static enum webnn_status gru_cell_bias_reset_before(struct webnn_builder *b,
						    struct webnn_operand *const *in,
						    struct webnn_operand **out)
{
	struct webnn_gru_cell_options o = WEBNN_GRU_CELL_OPTIONS_INIT;
	o.bias = in[4];
	o.recurrent_bias = in[5];
	o.reset_after = false;
	return webnn_builder_gru_cell(b, in[0], in[1], in[2], in[3], 1, &o, out);
}

static enum webnn_status gru_default(struct webnn_builder *b, struct webnn_operand *const *in,
				     struct webnn_operand **out)
{
	size_t n = 0;
	return webnn_builder_gru(b, in[0], in[1], in[2], 2, 1, NULL, out, OV_MAX_OUT, &n);
}

static enum webnn_status gru_bias_sequence(struct webnn_builder *b,
					   struct webnn_operand *const *in,
					   struct webnn_operand **out)
{
	struct webnn_gru_options o = WEBNN_GRU_OPTIONS_INIT;
	o.bias = in[3];
	o.return_sequence = true;
	size_t n = 0;
	return webnn_builder_gru(b, in[0], in[1], in[2], 2, 1, &o, out, OV_MAX_OUT, &n);
}

static enum webnn_status lstm_cell_default(struct webnn_builder *b,
					   struct webnn_operand *const *in,
					   struct webnn_operand **out)
{
	size_t n = 0;
	return webnn_builder_lstm_cell(b, in[0], in[1], in[2], in[3], in[4], 1, NULL, out,
				       OV_MAX_OUT, &n);
}

static enum webnn_status lstm_cell_bias_peephole(struct webnn_builder *b,
						 struct webnn_operand *const *in,
						 struct webnn_operand **out)
{
	struct webnn_lstm_cell_options o = WEBNN_LSTM_CELL_OPTIONS_INIT;
	o.bias = in[5];
	o.peephole_weight = in[6];
	size_t n = 0;
	return webnn_builder_lstm_cell(b, in[0], in[1], in[2], in[3], in[4], 1, &o, out,
				       OV_MAX_OUT, &n);
}

static enum webnn_status lstm_sequence(struct webnn_builder *b, struct webnn_operand *const *in,
				       struct webnn_operand **out)
{
	struct webnn_lstm_options o = WEBNN_LSTM_OPTIONS_INIT;
	o.return_sequence = true;
	size_t n = 0;
	return webnn_builder_lstm(b, in[0], in[1], in[2], 2, 1, &o, out, OV_MAX_OUT, &n);
}

static enum webnn_status lstm_default(struct webnn_builder *b, struct webnn_operand *const *in,
				      struct webnn_operand **out)
{
	size_t n = 0;
	return webnn_builder_lstm(b, in[0], in[1], in[2], 2, 1, NULL, out, OV_MAX_OUT, &n);
}

#define F32(rank_, shape_, ...) OV_IN(WEBNN_FLOAT32, rank_, shape_, __VA_ARGS__)
/* gruCell: input size 2, hidden size 1; weight rows z, r, n (the default layout) */
#define GRU_CELL_OPERANDS                                                                       \
	F32(2, OV_SHAPE(1, 2), 1, 2), F32(2, OV_SHAPE(3, 2), 0.1, 0.2, 0.3, -0.1, 0.5, 0.4),    \
		F32(2, OV_SHAPE(3, 1), 0.2, -0.3, 0.6), F32(2, OV_SHAPE(1, 1), 0.5)
/* gru: 2 steps of input size 1, hidden size 1, initial hidden state zeros */
#define GRU_OPERANDS                                                                            \
	F32(3, OV_SHAPE(2, 1, 1), 1, -2), F32(3, OV_SHAPE(1, 3, 1), 0.5, -0.5, 1),              \
		F32(3, OV_SHAPE(1, 3, 1), 0.3, 0.2, -0.4)
/* lstm weights: rows i, o, f, g (the default layout) */
#define LSTM_WEIGHTS(rank_, ...)                                                                \
	F32(rank_, OV_SHAPE(__VA_ARGS__), 0.5, -0.3, 0.8, 0.2),                                 \
		F32(rank_, OV_SHAPE(__VA_ARGS__), 0.1, 0.2, -0.1, 0.4)
#define LSTM_CELL_OPERANDS                                                                      \
	F32(2, OV_SHAPE(1, 1), 2), LSTM_WEIGHTS(2, 4, 1), F32(2, OV_SHAPE(1, 1), 0.5),          \
		F32(2, OV_SHAPE(1, 1), -1)
#define ONE_BY_ONE(...) F32(2, OV_SHAPE(1, 1), __VA_ARGS__)
#define STATE(...) F32(3, OV_SHAPE(1, 1, 1), __VA_ARGS__)

static const struct op_vector rnn_vectors[] = {
	{ WNN_OP_GRU_CELL, "float32 default options (resetAfter, sigmoid/tanh)",
	  .build = gru_cell_default, .in = { GRU_CELL_OPERANDS },
	  .want = { ONE_BY_ONE(0.639947698248508) } },
	{ WNN_OP_GRU_CELL, "float32 bias, recurrentBias, resetAfter false",
	  .build = gru_cell_bias_reset_before,
	  .in = { GRU_CELL_OPERANDS, OV_F32(3, 0.1, 0.2, -0.1), OV_F32(3, 0.05, 0.1, 0.2) },
	  .want = { ONE_BY_ONE(0.6337219209214767) } },
	{ WNN_OP_GRU, "float32 2 steps, default options", .build = gru_default,
	  .in = { GRU_OPERANDS }, .want = { STATE(-0.6097556259570833) } },
	{ WNN_OP_GRU, "float32 2 steps, bias, returnSequence", .build = gru_bias_sequence,
	  .in = { GRU_OPERANDS, F32(2, OV_SHAPE(1, 3), 0.1, 0.2, 0.3) },
	  .want = { STATE(-0.5605046871170476),
		    F32(4, OV_SHAPE(2, 1, 1, 1), 0.3053461672818544, -0.5605046871170476) } },
	{ WNN_OP_LSTM_CELL, "float32 default options", .build = lstm_cell_default,
	  .in = { LSTM_CELL_OPERANDS },
	  .want = { ONE_BY_ONE(-0.15210316382074077), ONE_BY_ONE(-0.42708089298717106) } },
	/* the spec's decomposition feeds the output gate's peephole the previous cell state */
	{ WNN_OP_LSTM_CELL, "float32 bias and peephole weights", .build = lstm_cell_bias_peephole,
	  .in = { LSTM_CELL_OPERANDS, OV_F32(4, 0.1, 0, -0.1, 0.2), OV_F32(3, 0.3, -0.2, 0.1) },
	  .want = { ONE_BY_ONE(-0.1351385730559632), ONE_BY_ONE(-0.3289272855548594) } },
	{ WNN_OP_LSTM, "float32 2 steps, default options", .build = lstm_default,
	  .in = { F32(3, OV_SHAPE(2, 1, 1), 1, -1), LSTM_WEIGHTS(3, 1, 4, 1) },
	  .want = { STATE(-0.01684396290652278), STATE(-0.029201419346105283) } },
	{ WNN_OP_LSTM, "float32 2 steps, returnSequence", .build = lstm_sequence,
	  .in = { F32(3, OV_SHAPE(2, 1, 1), 1, -1), LSTM_WEIGHTS(3, 1, 4, 1) },
	  .want = { STATE(-0.01684396290652278), STATE(-0.029201419346105283),
		    F32(4, OV_SHAPE(2, 1, 1, 1), 0.05202171044770445, -0.01684396290652278) } },
};
OV_TABLE(RNN, rnn_vectors);

OV_FAMILY_TESTS(RNN, rnn)

/* ==== validation and shape inference (proto/schema_<family>.c) */

TEST(ops_rnn_schema_recurrent)
{
	struct fx f = { 0 };
	/* steps 2, batch 3, input 4, hidden 5 */
	uint32_t x = T(&f, WNN_F32, 2, 3, 4), w = T(&f, WNN_F32, 2, 15, 4);
	uint32_t rw = T(&f, WNN_F32, 2, 15, 5), b = T(&f, WNN_F32, 2, 15), h0 = T(&f, WNN_F32, 2, 3, 5);
	uint32_t o[3] = { SLOT(&f), SLOT(&f), SLOT(&f) };
	Webnn__Ipc__Gru gm = WEBNN__IPC__GRU__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_GRU);
	op.gru = &gm;
	gm.input = x, gm.weight = w, gm.recurrent_weight = rw, gm.steps = 2, gm.hidden_size = 5;
	gm.direction = WEBNN__IPC__RECURRENT_DIRECTION__BOTH, gm.outputs = o, gm.n_outputs = 1;
	gm.has_bias = gm.has_recurrent_bias = gm.has_initial_hidden_state = true;
	gm.bias = gm.recurrent_bias = b, gm.initial_hidden_state = h0;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 5);
	gm.return_sequence = true, gm.n_outputs = 2;
	OK_OUT(&f, &op, 1, WNN_F32, 2, 2, 3, 5);
	gm.steps = 3;
	ERR(&f, &op, "gru: input.shape[0] is 2, expected steps 3");
	gm.steps = 2, gm.hidden_size = 4;
	ERR(&f, &op, "gru: weight shape [2, 15, 4] is not [2, 12, 4]");
	gm.hidden_size = 5, gm.direction = WEBNN__IPC__RECURRENT_DIRECTION__FORWARD;
	ERR(&f, &op, "gru: weight shape [2, 15, 4] is not [1, 15, 4]");
	gm.direction = WEBNN__IPC__RECURRENT_DIRECTION__BOTH;
	Webnn__Ipc__RecurrentActivation acts[3] = { 0 };
	gm.activations = acts, gm.n_activations = 3;
	ERR(&f, &op, "gru: activations has 3 items, expected 2");

	/* lstm: 4 gates */
	uint32_t lw = T(&f, WNN_F32, 1, 20, 4), lrw = T(&f, WNN_F32, 1, 20, 5);
	uint32_t pw = T(&f, WNN_F32, 1, 15), pbad = T(&f, WNN_F32, 1, 20);
	Webnn__Ipc__Lstm lm = WEBNN__IPC__LSTM__INIT;
	op = st_mkop(WNN_OP_LSTM);
	op.lstm = &lm;
	lm.input = x, lm.weight = lw, lm.recurrent_weight = lrw, lm.steps = 2, lm.hidden_size = 5;
	lm.outputs = o, lm.n_outputs = 2;
	OK_OUT(&f, &op, 1, WNN_F32, 1, 3, 5);
	lm.has_peephole_weight = true, lm.peephole_weight = pbad;
	ERR(&f, &op, "lstm: peepholeWeight shape [1, 20] is not [1, 15]");
	lm.peephole_weight = pw, lm.return_sequence = true, lm.n_outputs = 3;
	OK_OUT(&f, &op, 2, WNN_F32, 2, 1, 3, 5);
	lm.n_outputs = 2;
	ERR(&f, &op, "lstm: operation lists 2 output operands, the operator produces 3");

	/* cells */
	uint32_t cx = T(&f, WNN_F32, 3, 4), cw = T(&f, WNN_F32, 15, 4), crw = T(&f, WNN_F32, 15, 5);
	uint32_t hs = T(&f, WNN_F32, 3, 5), hbad = T(&f, WNN_F32, 3, 4);
	Webnn__Ipc__GruCell gc = WEBNN__IPC__GRU_CELL__INIT;
	op = st_mkop(WNN_OP_GRU_CELL);
	op.gru_cell = &gc;
	gc.input = cx, gc.weight = cw, gc.recurrent_weight = crw, gc.hidden_state = hs;
	gc.hidden_size = 5, gc.output = o[0];
	OK_OUT(&f, &op, 0, WNN_F32, 3, 5);
	gc.hidden_state = hbad;
	ERR(&f, &op, "gruCell: hiddenState shape [3, 4] is not [3, 5]");

	uint32_t lcw = T(&f, WNN_F32, 20, 4), lcrw = T(&f, WNN_F32, 20, 5);
	Webnn__Ipc__LstmCell lc = WEBNN__IPC__LSTM_CELL__INIT;
	op = st_mkop(WNN_OP_LSTM_CELL);
	op.lstm_cell = &lc;
	lc.input = cx, lc.weight = lcw, lc.recurrent_weight = lcrw, lc.hidden_state = hs;
	lc.cell_state = hs, lc.hidden_size = 5, lc.outputs = o, lc.n_outputs = 2;
	OK_OUT(&f, &op, 1, WNN_F32, 3, 5);
	lc.cell_state = hbad;
	ERR(&f, &op, "lstmCell: cellState shape [3, 4] is not [3, 5]");
}

/* ==== libwebnn builders and small graphs against a reference-backend webnnd */

/* Zero weights make the cells closed-form: gates are sigmoid(0) = 1/2 and candidates tanh(0) = 0,
 * so gruCell gives h/2 and lstmCell gives c' = c/2, h' = tanh(c/2)/2. */
TEST(ops_rnn_client_graph_recurrent_cells)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client_builders");
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	const uint32_t s12[] = { 1, 2 }, g_w[] = { 6, 2 }, g_rw[] = { 6, 2 }, l_w[] = { 8, 2 },
		       l_rw[] = { 8, 2 };
	static const float zeros[16] = { 0 };
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, s12);
	struct webnn_operand *hid = ct_input(ctx, b, "h", WEBNN_FLOAT32, 2, s12);
	struct webnn_operand *cell = ct_input(ctx, b, "c", WEBNN_FLOAT32, 2, s12);
	struct webnn_operand *gw = ct_const(ctx, b, WEBNN_FLOAT32, 2, g_w, zeros);
	struct webnn_operand *grw = ct_const(ctx, b, WEBNN_FLOAT32, 2, g_rw, zeros);
	struct webnn_operand *lw = ct_const(ctx, b, WEBNN_FLOAT32, 2, l_w, zeros);
	struct webnn_operand *lrw = ct_const(ctx, b, WEBNN_FLOAT32, 2, l_rw, zeros);
	struct webnn_operand *g_out = NULL, *l_outs[2];
	size_t n = 0;
	OK(ctx, webnn_builder_gru_cell(b, x, gw, grw, hid, 2, NULL, &g_out));
	OK(ctx, webnn_builder_lstm_cell(b, x, lw, lrw, hid, cell, 2, NULL, l_outs, 2, &n));
	ASSERT_EQ(n, 2);
	float xin[2] = { 0.3f, -0.7f }, hin[2] = { 0.8f, -0.4f }, cin[2] = { 1.0f, -2.0f };
	float o_g[2], o_h[2], o_c[2];
	const struct ct_io in[] = { { "x", NULL, xin }, { "h", NULL, hin }, { "c", NULL, cin } };
	const struct ct_io outs[] = { { "gru", g_out, o_g },
				       { "lstm_h", l_outs[0], o_h },
				       { "lstm_c", l_outs[1], o_c } };
	ct_run(ctx, b, "gruCell+lstmCell", in, 3, outs, 3);
	const float w_g[] = { 0.4f, -0.2f }, w_c[] = { 0.5f, -1.0f };
	const float w_h[] = { 0.5f * tanhf(0.5f), 0.5f * tanhf(-1.0f) };
	ct_assert_floats("gruCell", o_g, w_g, 2, 1e-6f);
	ct_assert_floats("lstmCell cell", o_c, w_c, 2, 1e-6f);
	ct_assert_floats("lstmCell hidden", o_h, w_h, 2, 1e-6f);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ==== reference backend: hand-computed and literal WPT values through its kernels */

/* ---- recurrent cells, against the spec's formulas written out */

static double sigm(double x)
{
	return 1 / (1 + exp(-x));
}

TEST(ops_rnn_reference_gru_cell_reset_after_and_layouts)
{
	/* input 1, hidden 1, batch 1: W = [z, r, n], R = [z, r, n] in zrn layout */
	const double wz = 0.5, wr = -1, wn = 2, rz = 1, rr = 0.5, rn = -1;
	const double b[3] = { 0.1, 0.2, 0.3 }, rb[3] = { 0.4, 0.5, 0.6 }, xv = 1, h = 0.5;
	for (int k = 0; k < 4; k++) {
		bool reset_after = k & 1, rzn = k >= 2;
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1));
		uint32_t w = rzn ? rt_constant(&t, WNN_F32, SHAPE(3, 1), D(wr, wz, wn))
				 : rt_constant(&t, WNN_F32, SHAPE(3, 1), D(wz, wr, wn));
		uint32_t r = rzn ? rt_constant(&t, WNN_F32, SHAPE(3, 1), D(rr, rz, rn))
				 : rt_constant(&t, WNN_F32, SHAPE(3, 1), D(rz, rr, rn));
		uint32_t hs = tg_input(&t, WNN_F32, SHAPE(1, 1));
		uint32_t bb = rzn ? rt_constant(&t, WNN_F32, SHAPE(3), D(b[1], b[0], b[2]))
				  : rt_constant(&t, WNN_F32, SHAPE(3), b);
		uint32_t rbb = rzn ? rt_constant(&t, WNN_F32, SHAPE(3), D(rb[1], rb[0], rb[2]))
				   : rt_constant(&t, WNN_F32, SHAPE(3), rb);
		Webnn__Ipc__GruCell *m = MSG(Webnn__Ipc__GruCell, WEBNN__IPC__GRU_CELL__INIT);
		m->input = x, m->weight = w, m->recurrent_weight = r, m->hidden_state = hs;
		m->has_bias = true, m->bias = bb, m->has_recurrent_bias = true, m->recurrent_bias = rbb;
		m->output = tg_next(&t), m->hidden_size = 1, m->reset_after = reset_after;
		m->has_layout = true;
		m->layout = rzn ? WEBNN__IPC__GRU_WEIGHT_LAYOUT__RZN : WEBNN__IPC__GRU_WEIGHT_LAYOUT__ZRN;
		rt_op(&t, WNN_OP_GRU_CELL, m);
		double z = sigm(wz * xv + rz * h + b[0] + rb[0]);
		double rg = sigm(wr * xv + rr * h + b[1] + rb[1]);
		double n = reset_after ? tanh(wn * xv + b[2] + rg * (rn * h + rb[2]))
				       : tanh(wn * xv + rn * (rg * h) + b[2] + rb[2]);
		double want = z * h + (1 - z) * n;
		rt_expect(&t, INS(D(xv), D(h)), D(want), 4);
		tg_free(&t);
	}
}

TEST(ops_rnn_reference_lstm_cell_peephole_and_activations)
{
	/* iofg layout; gates i, o, f, g; peephole (i, o, f) against the incoming cell state */
	const double w[4] = { 0.5, -0.25, 1, 0.75 }, rw[4] = { 0.1, 0.2, -0.3, 0.4 };
	const double bias[4] = { 0.01, 0.02, 0.03, 0.04 }, ph[3] = { 0.5, -0.5, 0.25 };
	const double xv = 2, h = -1, c = 0.5;
	for (int relu = 0; relu < 2; relu++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1));
		uint32_t wc = rt_constant(&t, WNN_F32, SHAPE(4, 1), w);
		uint32_t rc = rt_constant(&t, WNN_F32, SHAPE(4, 1), rw);
		uint32_t hs = tg_input(&t, WNN_F32, SHAPE(1, 1));
		uint32_t cs = tg_input(&t, WNN_F32, SHAPE(1, 1));
		uint32_t bc = rt_constant(&t, WNN_F32, SHAPE(4), bias);
		uint32_t pc = rt_constant(&t, WNN_F32, SHAPE(3), ph);
		Webnn__Ipc__LstmCell *m = MSG(Webnn__Ipc__LstmCell, WEBNN__IPC__LSTM_CELL__INIT);
		m->input = x, m->weight = wc, m->recurrent_weight = rc, m->hidden_state = hs;
		m->cell_state = cs, m->has_bias = true, m->bias = bc;
		m->has_peephole_weight = true, m->peephole_weight = pc, m->hidden_size = 1;
		LIST(m, outputs, tg_next(&t), tg_next(&t) + 1);
		if (relu) {
			m->n_activations = 3;
			m->activations = rt_arena(3 * sizeof(*m->activations));
			for (int i = 0; i < 3; i++)
				m->activations[i] = WEBNN__IPC__RECURRENT_ACTIVATION__ACT_RELU;
		}
		rt_op(&t, WNN_OP_LSTM_CELL, m);
		double (*fa)(double) = relu ? NULL : sigm;
#define ACT_A(v) (fa ? fa(v) : ((v) > 0 ? (v) : 0))
#define ACT_B(v) (relu ? ((v) > 0 ? (v) : 0) : tanh(v))
		double ig = ACT_A(w[0] * xv + rw[0] * h + bias[0] + ph[0] * c);
		double og = ACT_A(w[1] * xv + rw[1] * h + bias[1] + ph[1] * c);
		double fg = ACT_A(w[2] * xv + rw[2] * h + bias[2] + ph[2] * c);
		double gg = ACT_B(w[3] * xv + rw[3] * h + bias[3]);
		double c2 = fg * c + ig * gg;
		double h2 = og * ACT_B(c2);
#undef ACT_A
#undef ACT_B
		void **outs = rt_run(&t, INS(D(xv), D(h), D(c)));
		rt_check(&t, outs, 0, D(h2), 4, 0);
		rt_check(&t, outs, 1, D(c2), 4, 0);
		tg_free(&t);
	}
}

TEST(ops_rnn_reference_gru_sequence_directions_match_cells)
{
	/* gru over 2 steps, direction both with returnSequence: direction 0 runs steps 0, 1 and
	 * direction 1 runs 1, 0; computed here with single gruCell graphs. */
	const double xs[2] = { 1, -2 }, w[3] = { 0.5, -1, 2 }, r[3] = { 1, 0.5, -1 };
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 1, 1));
	uint32_t wc = rt_constant(&t, WNN_F32, SHAPE(2, 3, 1), D(0.5, -1, 2, 0.5, -1, 2));
	uint32_t rc = rt_constant(&t, WNN_F32, SHAPE(2, 3, 1), D(1, 0.5, -1, 1, 0.5, -1));
	Webnn__Ipc__Gru *m = MSG(Webnn__Ipc__Gru, WEBNN__IPC__GRU__INIT);
	m->input = x, m->weight = wc, m->recurrent_weight = rc, m->steps = 2, m->hidden_size = 1;
	m->direction = WEBNN__IPC__RECURRENT_DIRECTION__BOTH, m->return_sequence = true;
	LIST(m, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_GRU, m);
	void **outs = rt_run(&t, INS(xs));
	/* the cell by hand (reset_after, no biases, h0 = 0) */
	double seq[2][2], fin[2];
	for (int dir = 0; dir < 2; dir++) {
		double h = 0;
		for (int step = 0; step < 2; step++) {
			int ts = dir ? 1 - step : step;
			double z = sigm(w[0] * xs[ts] + r[0] * h), rg = sigm(w[1] * xs[ts] + r[1] * h);
			double n = tanh(w[2] * xs[ts] + rg * (r[2] * h));
			h = z * h + (1 - z) * n;
			seq[ts][dir] = h;
		}
		fin[dir] = h;
	}
	rt_check(&t, outs, 0, fin, 6, 0);
	rt_check(&t, outs, 1, D(seq[0][0], seq[0][1], seq[1][0], seq[1][1]), 6, 0);
	tg_free(&t);
}

/* ---- literal data copied from shared/conformance (WPT, BSD-3-Clause; see LICENSE.wpt.md there) */

/* gru.json: "gru float32 tensors steps=2 with all options" (tolerance ULP 6) */
/* float32 [2, 3, 2] */
static const double cx_gru_all_gruInput[] = { 1, 2, 2, 1, 1, 1, 3, 4, 1, 2, 1, 1 };
/* float32 [1, 12, 2] */
static const double cx_gru_all_gruWeight[] = {
	1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0,
	0.1
};
/* float32 [1, 12, 4] */
static const double cx_gru_all_gruRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [1, 12] */
static const double cx_gru_all_gruBias[] = { 1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5 };
/* float32 [1, 12] */
static const double cx_gru_all_gruRecurrentBias[] = { 1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5 };
/* float32 [1, 3, 4] */
static const double cx_gru_all_gruInitialHiddenState[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
/* float32 [1, 3, 4] */
static const double cx_gru_all_gruOutput1[] = {
	0, 0, -0.24974998831748962, -18.59588623046875, -2.0657243728637695, -10.551867485046387,
	-1.3937838077545166, -15.2454833984375, -1.1589999198913574, -9.476999282836914,
	-1.1589999198913574, -11.319169044494629
};
/* float32 [2, 1, 3, 4] */
static const double cx_gru_all_gruOutput2[] = {
	0, 0, -0.24974998831748962, -18.59588623046875, -2.0657243728637695, -10.551867485046387,
	-1.3937838077545166, -15.2454833984375, -1.1589999198913574, -9.476999282836914,
	-1.1589999198913574, -11.319169044494629, 0, 0, -0.25, -4.760000228881836, 0, 0, -0.25,
	-3.8399999141693115, -1, -3, -1, -3.4100000858306885
};

/* gru.json: "gru float32 tensors steps=2 with options.bias, options.recurrentBias, options.direction='both' and options.returnSequence=true" (tolerance ULP 6) */
/* float32 [2, 3, 2] */
static const double cx_gru_both_gruInput[] = { 1, 2, 2, 1, 1, 1, 3, 4, 1, 2, 1, 1 };
/* float32 [2, 12, 2] */
static const double cx_gru_both_gruWeight[] = {
	1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0,
	0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5,
	-0.5, 0, 0.1
};
/* float32 [2, 12, 4] */
static const double cx_gru_both_gruRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1
};
/* float32 [2, 12] */
static const double cx_gru_both_gruBias[] = {
	1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5
};
/* float32 [2, 12] */
static const double cx_gru_both_gruRecurrentBias[] = {
	1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5
};
/* float32 [2, 3, 4] */
static const double cx_gru_both_gruOutput1[] = {
	0, 0, -0.33243751525878906, -23.753076553344727, 0, 0, 0, -2.213315725326538,
	-1.1077498197555542, -12.323249816894531, -1.1077498197555542, -14.518925666809082, 0, 0,
	-0.28068751096725464, -25.444257736206055, -1.7041922807693481, -9.28022289276123,
	-1.4041223526000977, -21.154621124267578, -1.1077498197555542, -12.323249816894531,
	-1.1077498197555542, -14.518925666809082
};
/* float32 [2, 2, 3, 4] */
static const double cx_gru_both_gruOutput2[] = {
	0, 0, -0.375, -5.7599992752075195, -6, -22.5, -3.375, -5.114999771118164, -1.5, -4.5, -1.5,
	-5.114999771118164, 0, 0, -0.28068751096725464, -25.444257736206055, -1.7041922807693481,
	-9.28022289276123, -1.4041223526000977, -21.154621124267578, -1.1077498197555542,
	-12.323249816894531, -1.1077498197555542, -14.518925666809082, 0, 0, -0.33243751525878906,
	-23.753076553344727, 0, 0, 0, -2.213315725326538, -1.1077498197555542, -12.323249816894531,
	-1.1077498197555542, -14.518925666809082, 0, 0, -0.375, -7.139999866485596, 0, 0, -0.375,
	-5.7599992752075195, -1.5, -4.5, -1.5, -5.114999771118164
};

/* gru.json: "gru float32 tensors steps=1 with options.bias, options.recurrentBias, options.activations=['relu', 'relu'] and options.layout='rzn'" (tolerance ULP 6) */
/* float32 [1, 3, 2] */
static const double cx_gru_rzn_gruInput[] = { 1, 2, 2, 1, 1, 1 };
/* float32 [1, 12, 2] */
static const double cx_gru_rzn_gruWeight[] = {
	1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0,
	0.1
};
/* float32 [1, 12, 4] */
static const double cx_gru_rzn_gruRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [1, 12] */
static const double cx_gru_rzn_gruBias[] = { 1, 1, 1, 1, 1, 2, 1, 2, 0.5, 0.5, 0.5, 0.5 };
/* float32 [1, 12] */
static const double cx_gru_rzn_gruRecurrentBias[] = { 1, 1, 1, 1, 1, 2, 1, 2, 0.5, 0.5, 0.5, 0.5 };
/* float32 [1, 3, 4] */
static const double cx_gru_rzn_gruOutput[] = {
	0, 0, -0.25, -3.84, -4, -15, -2.25, -3.41, -1, -3, -1, -3.41
};

/* gru_cell.json: "gruCell float32 tensors with all options" (tolerance ULP 3) */
/* float32 [3, 2] */
static const double cx_grucell_all_gruCellInput[] = { 1, 2, 2, 1, 1, 1 };
/* float32 [12, 2] */
static const double cx_grucell_all_gruCellWeight[] = {
	1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0,
	0.1
};
/* float32 [12, 4] */
static const double cx_grucell_all_gruCellRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [3, 4] */
static const double cx_grucell_all_gruCellHiddenState[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
/* float32 [12] */
static const double cx_grucell_all_gruCellBias[] = { 1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5 };
/* float32 [12] */
static const double cx_grucell_all_gruCellRecurrentBias[] = {
	1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5
};
/* float32 [3, 4] */
static const double cx_grucell_all_gruCellOutput[] = {
	0, 0, -0.25, -3.84, -4, -15, -2.25, -3.41, -1, -3, -1, -3.41
};

/* lstm.json: "lstm float32 tensors steps=2 with all options" (tolerance ULP 3) */
/* float32 [2, 2, 2] */
static const double cx_lstm_all_lstmInput[] = { 1, 2, 2, 1, 3, 4, 1, 2 };
/* float32 [1, 8, 2] constant */
static const double cx_lstm_all_lstmWeight[] = {
	1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2
};
/* float32 [1, 8, 2] constant */
static const double cx_lstm_all_lstmRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [1, 8] constant */
static const double cx_lstm_all_lstmBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [1, 8] constant */
static const double cx_lstm_all_lstmRecurrentBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [1, 6] constant */
static const double cx_lstm_all_lstmPeepholeWeight[] = { 0, 0, 0, 0, 0, 0 };
/* float32 [1, 2, 2] */
static const double cx_lstm_all_lstmInitialHiddenState[] = { 0, 0, 0, 0 };
/* float32 [1, 2, 2] */
static const double cx_lstm_all_lstmInitialCellState[] = { 0, 0, 0, 0 };
/* float32 [1, 2, 2] */
static const double cx_lstm_all_lstmOutput1[] = {
	10.469000816345215, 58.02900695800781, 74.52900695800781, 518.948974609375
};
/* float32 [1, 2, 2] */
static const double cx_lstm_all_lstmOutput2[] = {
	5.510000228881836, 20.01000213623047, 19.110000610351562, 75.20999908447266
};
/* float32 [2, 1, 2, 2] */
static const double cx_lstm_all_lstmOutput3[] = {
	10.469000816345215, 58.02900695800781, 74.52900695800781, 518.948974609375, 1, 8, 1, 8
};

/* lstm.json: "lstm float32 tensors steps=2 with options.bias, options.recurrentBias, options.activations=['relu', 'relu', 'relu'] and options.direction='backward'" (tolerance ULP 3) */
/* float32 [2, 2, 2] */
static const double cx_lstm_back_lstmInput[] = { 1, 2, 2, 1, 3, 4, 1, 2 };
/* float32 [1, 8, 2] constant */
static const double cx_lstm_back_lstmWeight[] = {
	1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2
};
/* float32 [1, 8, 2] constant */
static const double cx_lstm_back_lstmRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [1, 8] constant */
static const double cx_lstm_back_lstmBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [1, 8] constant */
static const double cx_lstm_back_lstmRecurrentBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [1, 2, 2] */
static const double cx_lstm_back_lstmOutput1[] = {
	10.469000816345215, 58.02900695800781, 74.52900695800781, 518.948974609375
};
/* float32 [1, 2, 2] */
static const double cx_lstm_back_lstmOutput2[] = {
	5.510000228881836, 20.01000213623047, 19.110000610351562, 75.20999908447266
};

/* lstm_cell.json: "lstmCell float32 tensors with options.bias, options.recurrentBias, options.activations=['relu', 'relu', 'relu'] and options.layout='ifgo'" (tolerance ULP 1) */
/* float32 [2, 2] */
static const double cx_lstmcell_ifgo_lstmCellInput[] = { 1, 2, 2, 1 };
/* float32 [8, 2] constant */
static const double cx_lstmcell_ifgo_lstmCellWeight[] = {
	1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2
};
/* float32 [8, 2] constant */
static const double cx_lstmcell_ifgo_lstmCellRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [2, 2] */
static const double cx_lstmcell_ifgo_lstmCellHiddenState[] = { 0, 0, 0, 0 };
/* float32 [2, 2] */
static const double cx_lstmcell_ifgo_lstmCellCellState[] = { 0, 0, 0, 0 };
/* float32 [8] constant */
static const double cx_lstmcell_ifgo_lstmCellBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [8] constant */
static const double cx_lstmcell_ifgo_lstmCellRecurrentBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [2, 2] */
static const double cx_lstmcell_ifgo_lstmCellOutput1[] = { 1, 8, 27, 216 };
/* float32 [2, 2] */
static const double cx_lstmcell_ifgo_lstmCellOutput2[] = { 1, 4, 9, 36 };

/* ---- literal WPT cases (webnn/conformance_tests, via shared/conformance; every operand is
 * made a constant here, graph inputs are covered by the tests above) */

static Webnn__Ipc__RecurrentActivation *relu_acts(size_t n)
{
	Webnn__Ipc__RecurrentActivation *a = rt_arena(n * sizeof(*a));
	for (size_t i = 0; i < n; i++)
		a[i] = WEBNN__IPC__RECURRENT_ACTIVATION__ACT_RELU;
	return a;
}

TEST(ops_rnn_reference_wpt_gru)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_gru_all_gruInput, 2, 3, 2);
	uint32_t w = C(&t, WNN_F32, cx_gru_all_gruWeight, 1, 12, 2);
	uint32_t r = C(&t, WNN_F32, cx_gru_all_gruRecurrentWeight, 1, 12, 4);
	uint32_t b = C(&t, WNN_F32, cx_gru_all_gruBias, 1, 12);
	uint32_t rb = C(&t, WNN_F32, cx_gru_all_gruRecurrentBias, 1, 12);
	uint32_t h0 = C(&t, WNN_F32, cx_gru_all_gruInitialHiddenState, 1, 3, 4);
	Webnn__Ipc__Gru *m = MSG(Webnn__Ipc__Gru, WEBNN__IPC__GRU__INIT);
	m->input = x, m->weight = w, m->recurrent_weight = r, m->steps = 2, m->hidden_size = 4;
	m->has_bias = true, m->bias = b, m->has_recurrent_bias = true, m->recurrent_bias = rb;
	m->has_initial_hidden_state = true, m->initial_hidden_state = h0;
	m->reset_after = false, m->return_sequence = true;
	m->direction = WEBNN__IPC__RECURRENT_DIRECTION__BACKWARD;
	m->n_activations = 2, m->activations = relu_acts(2);
	LIST(m, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_GRU, m);
	void **outs = rt_run(&t, NULL);
	rt_check(&t, outs, 0, cx_gru_all_gruOutput1, 6, 0);
	rt_check(&t, outs, 1, cx_gru_all_gruOutput2, 6, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_gru_both_gruInput, 2, 3, 2);
	w = C(&t, WNN_F32, cx_gru_both_gruWeight, 2, 12, 2);
	r = C(&t, WNN_F32, cx_gru_both_gruRecurrentWeight, 2, 12, 4);
	b = C(&t, WNN_F32, cx_gru_both_gruBias, 2, 12);
	rb = C(&t, WNN_F32, cx_gru_both_gruRecurrentBias, 2, 12);
	m = MSG(Webnn__Ipc__Gru, WEBNN__IPC__GRU__INIT);
	m->input = x, m->weight = w, m->recurrent_weight = r, m->steps = 2, m->hidden_size = 4;
	m->has_bias = true, m->bias = b, m->has_recurrent_bias = true, m->recurrent_bias = rb;
	m->reset_after = true, m->return_sequence = true;
	m->direction = WEBNN__IPC__RECURRENT_DIRECTION__BOTH;
	m->n_activations = 2, m->activations = relu_acts(2);
	LIST(m, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_GRU, m);
	outs = rt_run(&t, NULL);
	rt_check(&t, outs, 0, cx_gru_both_gruOutput1, 6, 0);
	rt_check(&t, outs, 1, cx_gru_both_gruOutput2, 6, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_gru_rzn_gruInput, 1, 3, 2);
	w = C(&t, WNN_F32, cx_gru_rzn_gruWeight, 1, 12, 2);
	r = C(&t, WNN_F32, cx_gru_rzn_gruRecurrentWeight, 1, 12, 4);
	b = C(&t, WNN_F32, cx_gru_rzn_gruBias, 1, 12);
	rb = C(&t, WNN_F32, cx_gru_rzn_gruRecurrentBias, 1, 12);
	m = MSG(Webnn__Ipc__Gru, WEBNN__IPC__GRU__INIT);
	m->input = x, m->weight = w, m->recurrent_weight = r, m->steps = 1, m->hidden_size = 4;
	m->has_bias = true, m->bias = b, m->has_recurrent_bias = true, m->recurrent_bias = rb;
	m->reset_after = false, m->layout = WEBNN__IPC__GRU_WEIGHT_LAYOUT__RZN;
	m->n_activations = 2, m->activations = relu_acts(2);
	LIST(m, outputs, tg_next(&t));
	rt_op(&t, WNN_OP_GRU, m);
	rt_check(&t, rt_run(&t, NULL), 0, cx_gru_rzn_gruOutput, 6, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_grucell_all_gruCellInput, 3, 2);
	w = C(&t, WNN_F32, cx_grucell_all_gruCellWeight, 12, 2);
	r = C(&t, WNN_F32, cx_grucell_all_gruCellRecurrentWeight, 12, 4);
	h0 = C(&t, WNN_F32, cx_grucell_all_gruCellHiddenState, 3, 4);
	b = C(&t, WNN_F32, cx_grucell_all_gruCellBias, 12);
	rb = C(&t, WNN_F32, cx_grucell_all_gruCellRecurrentBias, 12);
	Webnn__Ipc__GruCell *c = MSG(Webnn__Ipc__GruCell, WEBNN__IPC__GRU_CELL__INIT);
	c->input = x, c->weight = w, c->recurrent_weight = r, c->hidden_state = h0;
	c->has_bias = true, c->bias = b, c->has_recurrent_bias = true, c->recurrent_bias = rb;
	c->output = tg_next(&t), c->hidden_size = 4, c->reset_after = false;
	c->n_activations = 2, c->activations = relu_acts(2);
	rt_op(&t, WNN_OP_GRU_CELL, c);
	rt_check(&t, rt_run(&t, NULL), 0, cx_grucell_all_gruCellOutput, 3, 0);
	tg_free(&t);
}

TEST(ops_rnn_reference_wpt_lstm)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_lstm_all_lstmInput, 2, 2, 2);
	uint32_t w = C(&t, WNN_F32, cx_lstm_all_lstmWeight, 1, 8, 2);
	uint32_t r = C(&t, WNN_F32, cx_lstm_all_lstmRecurrentWeight, 1, 8, 2);
	uint32_t b = C(&t, WNN_F32, cx_lstm_all_lstmBias, 1, 8);
	uint32_t rb = C(&t, WNN_F32, cx_lstm_all_lstmRecurrentBias, 1, 8);
	uint32_t ph = C(&t, WNN_F32, cx_lstm_all_lstmPeepholeWeight, 1, 6);
	uint32_t h0 = C(&t, WNN_F32, cx_lstm_all_lstmInitialHiddenState, 1, 2, 2);
	uint32_t c0 = C(&t, WNN_F32, cx_lstm_all_lstmInitialCellState, 1, 2, 2);
	Webnn__Ipc__Lstm *m = MSG(Webnn__Ipc__Lstm, WEBNN__IPC__LSTM__INIT);
	m->input = x, m->weight = w, m->recurrent_weight = r, m->steps = 2, m->hidden_size = 2;
	m->has_bias = true, m->bias = b, m->has_recurrent_bias = true, m->recurrent_bias = rb;
	m->has_peephole_weight = true, m->peephole_weight = ph;
	m->has_initial_hidden_state = true, m->initial_hidden_state = h0;
	m->has_initial_cell_state = true, m->initial_cell_state = c0;
	m->return_sequence = true, m->direction = WEBNN__IPC__RECURRENT_DIRECTION__BACKWARD;
	m->layout = WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IOFG;
	m->n_activations = 3, m->activations = relu_acts(3);
	LIST(m, outputs, tg_next(&t), tg_next(&t) + 1, tg_next(&t) + 2);
	rt_op(&t, WNN_OP_LSTM, m);
	void **outs = rt_run(&t, NULL);
	rt_check(&t, outs, 0, cx_lstm_all_lstmOutput1, 3, 0);
	rt_check(&t, outs, 1, cx_lstm_all_lstmOutput2, 3, 0);
	rt_check(&t, outs, 2, cx_lstm_all_lstmOutput3, 3, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_lstm_back_lstmInput, 2, 2, 2);
	w = C(&t, WNN_F32, cx_lstm_back_lstmWeight, 1, 8, 2);
	r = C(&t, WNN_F32, cx_lstm_back_lstmRecurrentWeight, 1, 8, 2);
	b = C(&t, WNN_F32, cx_lstm_back_lstmBias, 1, 8);
	rb = C(&t, WNN_F32, cx_lstm_back_lstmRecurrentBias, 1, 8);
	m = MSG(Webnn__Ipc__Lstm, WEBNN__IPC__LSTM__INIT);
	m->input = x, m->weight = w, m->recurrent_weight = r, m->steps = 2, m->hidden_size = 2;
	m->has_bias = true, m->bias = b, m->has_recurrent_bias = true, m->recurrent_bias = rb;
	m->direction = WEBNN__IPC__RECURRENT_DIRECTION__BACKWARD;
	m->n_activations = 3, m->activations = relu_acts(3);
	LIST(m, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_LSTM, m);
	outs = rt_run(&t, NULL);
	rt_check(&t, outs, 0, cx_lstm_back_lstmOutput1, 3, 0);
	rt_check(&t, outs, 1, cx_lstm_back_lstmOutput2, 3, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellInput, 2, 2);
	w = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellWeight, 8, 2);
	r = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellRecurrentWeight, 8, 2);
	h0 = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellHiddenState, 2, 2);
	c0 = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellCellState, 2, 2);
	b = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellBias, 8);
	rb = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellRecurrentBias, 8);
	Webnn__Ipc__LstmCell *c = MSG(Webnn__Ipc__LstmCell, WEBNN__IPC__LSTM_CELL__INIT);
	c->input = x, c->weight = w, c->recurrent_weight = r, c->hidden_state = h0;
	c->cell_state = c0, c->hidden_size = 2;
	c->has_bias = true, c->bias = b, c->has_recurrent_bias = true, c->recurrent_bias = rb;
	c->layout = WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IFGO;
	c->n_activations = 3, c->activations = relu_acts(3);
	LIST(c, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_LSTM_CELL, c);
	outs = rt_run(&t, NULL);
	rt_check(&t, outs, 0, cx_lstmcell_ifgo_lstmCellOutput1, 1, 0);
	rt_check(&t, outs, 1, cx_lstmcell_ifgo_lstmCellOutput2, 1, 0);
	tg_free(&t);
}

/* ==== the product backends against the reference: seeded inputs through both (tests/ocltest.h) */

struct rnn_case {
	bool lstm, cell;
	uint32_t steps, batch, in, hidden;
	int dir;           /* 0 forward, 1 backward, 2 both */
	bool bias, rbias, peephole, init_h, init_c, seq, reset_after, const_w;
	int layout;
	int n_act;
	Webnn__Ipc__RecurrentActivation act[3];
};

static void run_rnn(struct backend *be, enum wnn_dtype t, const struct rnn_case *c,
		    const char *label)
{
	struct tg_graph tg;
	tg_init(&tg);
	uint32_t D = c->dir == 2 ? 2 : 1, G = c->lstm ? 4 : 3, H = c->hidden, NB = c->batch;
	uint32_t x, w, r;
	size_t n_w = (size_t)D * G * H * c->in;
	float *wdata = malloc(n_w * sizeof *wdata);
	uint16_t *hdata = malloc(n_w * sizeof *hdata);
	ASSERT(wdata && hdata);
	if (c->cell) {
		x = tg_input(&tg, t, 2, (uint32_t[]){ NB, c->in });
	} else {
		x = tg_input(&tg, t, 3, (uint32_t[]){ c->steps, NB, c->in });
	}
	uint32_t wd[3] = { D, G * H, c->in }, rd[3] = { D, G * H, H };
	const uint32_t *wdp = c->cell ? wd + 1 : wd, *rdp = c->cell ? rd + 1 : rd;
	uint32_t wr = c->cell ? 2 : 3;
	if (c->const_w) {
		size_t n = n_w;
		tg_random(wdata, WNN_F32, n, 99, -0.6, 0.6);
		for (size_t i = 0; i < n; i++)
			hdata[i] = wnn_f32_to_f16(wdata[i]);
		w = tg_constant(&tg, t, wr, wdp, t == WNN_F16 ? (void *)hdata : (void *)wdata);
	} else {
		w = tg_input(&tg, t, wr, wdp);
	}
	r = tg_input(&tg, t, wr, rdp);
	uint32_t bd[2] = { D, G * H }, pd[2] = { D, 3 * H }, hd[3] = { D, NB, H };
	const uint32_t *bdp = c->cell ? bd + 1 : bd, *pdp = c->cell ? pd + 1 : pd;
	const uint32_t *hdp = c->cell ? hd + 1 : hd;
	uint32_t br = c->cell ? 1 : 2, hr = c->cell ? 2 : 3;
	uint32_t bias = c->bias ? tg_input(&tg, t, br, bdp) : 0;
	uint32_t rbias = c->rbias ? tg_input(&tg, t, br, bdp) : 0;
	uint32_t peep = c->lstm && c->peephole ? tg_input(&tg, t, br, pdp) : 0;
	uint32_t ih = c->init_h || c->cell ? tg_input(&tg, t, hr, hdp) : 0;
	uint32_t ic = c->lstm && (c->init_c || c->cell) ? tg_input(&tg, t, hr, hdp) : 0;
	uint32_t outs[3] = { tg_next(&tg), tg_next(&tg) + 1, tg_next(&tg) + 2 };
	size_t n_outs = (c->lstm ? 2 : 1) + (!c->cell && c->seq ? 1 : 0);
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	Webnn__Ipc__RecurrentActivation act[3];
	memcpy(act, c->act, sizeof act);
	Webnn__Ipc__Gru gm = WEBNN__IPC__GRU__INIT;
	Webnn__Ipc__GruCell gc = WEBNN__IPC__GRU_CELL__INIT;
	Webnn__Ipc__Lstm lm = WEBNN__IPC__LSTM__INIT;
	Webnn__Ipc__LstmCell lc = WEBNN__IPC__LSTM_CELL__INIT;
	if (!c->lstm && !c->cell) {
		gm.input = x;
		gm.weight = w;
		gm.recurrent_weight = r;
		gm.has_bias = c->bias;
		gm.bias = bias;
		gm.has_recurrent_bias = c->rbias;
		gm.recurrent_bias = rbias;
		gm.has_initial_hidden_state = c->init_h;
		gm.initial_hidden_state = ih;
		gm.n_outputs = n_outs;
		gm.outputs = outs;
		gm.steps = c->steps;
		gm.hidden_size = H;
		gm.has_reset_after = 1;
		gm.reset_after = c->reset_after;
		gm.has_return_sequence = 1;
		gm.return_sequence = c->seq;
		gm.has_direction = 1;
		gm.direction = (Webnn__Ipc__RecurrentDirection)c->dir;
		gm.has_layout = 1;
		gm.layout = (Webnn__Ipc__GruWeightLayout)c->layout;
		gm.n_activations = (size_t)c->n_act;
		gm.activations = act;
		tg_set_op(&o, WNN_OP_GRU, &gm);
	} else if (!c->lstm) {
		gc.input = x;
		gc.weight = w;
		gc.recurrent_weight = r;
		gc.hidden_state = ih;
		gc.has_bias = c->bias;
		gc.bias = bias;
		gc.has_recurrent_bias = c->rbias;
		gc.recurrent_bias = rbias;
		gc.output = outs[0];
		gc.hidden_size = H;
		gc.has_reset_after = 1;
		gc.reset_after = c->reset_after;
		gc.has_layout = 1;
		gc.layout = (Webnn__Ipc__GruWeightLayout)c->layout;
		gc.n_activations = (size_t)c->n_act;
		gc.activations = act;
		tg_set_op(&o, WNN_OP_GRU_CELL, &gc);
	} else if (!c->cell) {
		lm.input = x;
		lm.weight = w;
		lm.recurrent_weight = r;
		lm.has_bias = c->bias;
		lm.bias = bias;
		lm.has_recurrent_bias = c->rbias;
		lm.recurrent_bias = rbias;
		lm.has_peephole_weight = c->peephole;
		lm.peephole_weight = peep;
		lm.has_initial_hidden_state = c->init_h;
		lm.initial_hidden_state = ih;
		lm.has_initial_cell_state = c->init_c;
		lm.initial_cell_state = ic;
		lm.n_outputs = n_outs;
		lm.outputs = outs;
		lm.steps = c->steps;
		lm.hidden_size = H;
		lm.has_return_sequence = 1;
		lm.return_sequence = c->seq;
		lm.has_direction = 1;
		lm.direction = (Webnn__Ipc__RecurrentDirection)c->dir;
		lm.has_layout = 1;
		lm.layout = (Webnn__Ipc__LstmWeightLayout)c->layout;
		lm.n_activations = (size_t)c->n_act;
		lm.activations = act;
		tg_set_op(&o, WNN_OP_LSTM, &lm);
	} else {
		lc.input = x;
		lc.weight = w;
		lc.recurrent_weight = r;
		lc.hidden_state = ih;
		lc.cell_state = ic;
		lc.has_bias = c->bias;
		lc.bias = bias;
		lc.has_recurrent_bias = c->rbias;
		lc.recurrent_bias = rbias;
		lc.has_peephole_weight = c->peephole;
		lc.peephole_weight = peep;
		lc.n_outputs = 2;
		lc.outputs = outs;
		lc.hidden_size = H;
		lc.has_layout = 1;
		lc.layout = (Webnn__Ipc__LstmWeightLayout)c->layout;
		lc.n_activations = (size_t)c->n_act;
		lc.activations = act;
		tg_set_op(&o, WNN_OP_LSTM_CELL, &lc);
	}
	const struct graph_ir *g = ot_finish(&tg, &o, label);
	ot_check_counted(be, g, -0.6, 0.6, t == WNN_F16 ? TOL_F16_SUM : TOL_SUM, label);
	tg_free(&tg);
	free(wdata);
	free(hdata);
}

OT_TEST(ops_rnn, gru_lstm, 240)
{
	struct backend *be = ot_backend();
	const Webnn__Ipc__RecurrentActivation S = WEBNN__IPC__RECURRENT_ACTIVATION__ACT_SIGMOID,
					      T = WEBNN__IPC__RECURRENT_ACTIVATION__ACT_TANH,
					      R = WEBNN__IPC__RECURRENT_ACTIVATION__ACT_RELU;
	const struct rnn_case cases[] = {
		/* lstm cell steps batch in hidden dir bias rbias peep ih ic seq reset constw
		 * layout n_act act */
		{ false, false, 3, 2, 4, 5, 0, true, true, false, true, false, true, true, false, 0, 0, { S } },
		{ false, false, 4, 1, 3, 4, 1, true, false, false, false, false, true, false, true, 1, 0, { S } },
		{ false, false, 2, 3, 2, 3, 2, false, true, false, true, false, true, true, false, 0, 2, { T, R } },
		{ false, false, 3, 2, 3, 2, 2, true, true, false, false, false, false, false, false, 1, 0, { S } },
		{ false, true, 1, 3, 4, 5, 0, true, true, false, true, false, false, true, false, 1, 0, { S } },
		{ false, true, 1, 2, 3, 4, 0, false, true, false, true, false, false, false, true, 0, 2, { S, R } },
		{ true, false, 3, 2, 4, 5, 0, true, true, true, true, true, true, false, false, 0, 0, { S } },
		{ true, false, 4, 1, 3, 3, 1, false, true, false, false, true, true, false, true, 1, 0, { S } },
		{ true, false, 2, 2, 3, 2, 2, true, false, true, true, false, true, false, false, 1, 3, { S, R, T } },
		{ true, false, 3, 3, 2, 4, 2, false, false, false, false, false, false, false, false, 0, 0, { S } },
		{ true, true, 1, 3, 4, 5, 0, true, true, true, true, true, false, false, false, 0, 0, { S } },
		{ true, true, 1, 2, 3, 3, 0, true, false, false, true, true, false, false, true, 1, 3, { T, S, R } },
	};
	char label[128];
	/* f = 2 (OpenCL): float32 again with the recurrent products as CLBlast gemms instead of
	 * fused */
	bool ocl = ot_impl == &backend_opencl;
	for (int f = 0; f < (ocl ? 3 : 2); f++) {
		if (ocl)
			be->opts.rnn_gemm = f == 2; /* what $WEBNN_OCL_RNN_GEMM sets at init */
		for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
			enum wnn_dtype t = f == 1 ? WNN_F16 : WNN_F32;
			snprintf(label, sizeof label, "%s%s case %zu %s%s", cases[ci].lstm ? "lstm" : "gru",
				 cases[ci].cell ? "Cell" : "", ci, wnn_dtype_name(t),
				 f == 2 ? " gemm" : "");
			run_rnn(be, t, &cases[ci], label);
		}
	}
	/* network-sized: the cpu backend's batched gate products (oneDNN sgemm) */
	const struct rnn_case big[] = {
		{ true, false, 16, 4, 64, 128, 2, true, true, true, true, true, true, false, true, 0, 0, { S } },
		{ false, false, 16, 4, 64, 128, 0, true, true, false, true, false, true, true, true, 0, 0, { S } },
		{ false, false, 8, 2, 32, 64, 1, true, true, false, false, false, true, false, false, 1, 0, { S } },
	};
	for (size_t ci = 0; !ocl && ci < sizeof big / sizeof big[0]; ci++) {
		snprintf(label, sizeof label, "%s big case %zu", big[ci].lstm ? "lstm" : "gru", ci);
		run_rnn(be, WNN_F32, &big[ci], label);
	}
	ot_impl->shutdown(be);
}
