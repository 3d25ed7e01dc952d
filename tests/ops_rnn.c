/* Hand-computed vectors of the recurrent family (gru, gruCell, lstm, lstmCell) on both backends. */
#include "tests/opvectors.h"

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
