/* libwebnn builder: recurrent networks (gru, gruCell, lstm, lstmCell). */
#include "client/builder.h"

#include <inttypes.h>

static enum webnn_status activations_arg(struct webnn_builder *b, const char *what,
					 const enum webnn_recurrent_activation *acts, uint32_t n,
					 uint32_t cap, size_t *n_out,
					 Webnn__Ipc__RecurrentActivation **out)
{
	*n_out = 0;
	*out = NULL;
	if (n > cap)
		return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
				 "%s: activations has %" PRIu32 " items, expected %" PRIu32, what, n,
				 cap);
	if (!n)
		return WEBNN_STATUS_OK;
	*out = wnnc_arena_alloc(b, n * sizeof(**out));
	if (!*out)
		return wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
	for (uint32_t i = 0; i < n; i++) {
		enum webnn_status s = wnnc_check_enum(b, what, "activation", (int)acts[i],
						      WEBNN_ACTIVATION_TANH + 1);
		if (s != WEBNN_STATUS_OK)
			return s;
		(*out)[i] = (Webnn__Ipc__RecurrentActivation)acts[i];
	}
	*n_out = n;
	return WEBNN_STATUS_OK;
}

/* The three operands every recurrent op takes first. */
static enum webnn_status use_weights(struct webnn_builder *b, const char *what,
				     struct webnn_operand *input, struct webnn_operand *weight,
				     struct webnn_operand *recurrent_weight)
{
	enum webnn_status s = wnnc_use(b, what, "input", input);
	if (s == WEBNN_STATUS_OK)
		s = wnnc_use(b, what, "weight", weight);
	if (s == WEBNN_STATUS_OK)
		s = wnnc_use(b, what, "recurrentWeight", recurrent_weight);
	return s;
}

/* Those operands and the optional bias and recurrentBias, set on message m (every recurrent
 * op's options and wire message name them alike). */
#define RNN_WEIGHTS(m, input, weight, recurrent_weight, opt)                                   \
	do {                                                                                   \
		m->input = input->id;                                                          \
		m->weight = weight->id;                                                        \
		m->recurrent_weight = recurrent_weight->id;                                    \
		WNNC_TRY(wnnc_opt_operand(b, what, "bias", opt.bias, &m->has_bias, &m->bias)); \
		WNNC_TRY(wnnc_opt_operand(b, what, "recurrentBias", opt.recurrent_bias,         \
					  &m->has_recurrent_bias, &m->recurrent_bias));          \
	} while (0)

enum webnn_status webnn_builder_gru(struct webnn_builder *b, struct webnn_operand *input,
				    struct webnn_operand *weight,
				    struct webnn_operand *recurrent_weight, uint32_t steps,
				    uint32_t hidden_size, const struct webnn_gru_options *o,
				    struct webnn_operand **outs, size_t max_outs, size_t *n_outs)
{
	WNNC_MULTI_BEGIN("gru")
	WNNC_OPTIONS(struct webnn_gru_options, opt, o, WEBNN_GRU_OPTIONS_INIT)
	WNNC_TRY(use_weights(b, what, input, weight, recurrent_weight));
	WNNC_TRY(wnnc_check_enum(b, what, "direction", (int)opt.direction, 3));
	WNNC_TRY(wnnc_check_enum(b, what, "layout", (int)opt.layout, 2));
	WNNC_NEW_OP(m, Webnn__Ipc__Gru, WNN_OP_GRU)
	RNN_WEIGHTS(m, input, weight, recurrent_weight, opt);
	WNNC_TRY(wnnc_opt_operand(b, what, "initialHiddenState", opt.initial_hidden_state,
				  &m->has_initial_hidden_state, &m->initial_hidden_state));
	m->steps = steps;
	m->hidden_size = hidden_size;
	m->has_reset_after = m->has_return_sequence = m->has_direction = m->has_layout = true;
	m->reset_after = opt.reset_after;
	m->return_sequence = opt.return_sequence;
	m->direction = (Webnn__Ipc__RecurrentDirection)opt.direction;
	m->layout = (Webnn__Ipc__GruWeightLayout)opt.layout;
	WNNC_TRY(activations_arg(b, what, opt.activations, opt.n_activations, 2,
				 &m->n_activations, &m->activations));
	WNNC_TRY(wnnc_output_list(b, what, opt.return_sequence ? 2 : 1, &m->n_outputs, &m->outputs));
	s = wnnc_finish_n(b, what, op, outs, max_outs, n_outs);
	WNNC_MULTI_END
}

enum webnn_status webnn_builder_gru_cell(struct webnn_builder *b, struct webnn_operand *input,
					 struct webnn_operand *weight,
					 struct webnn_operand *recurrent_weight,
					 struct webnn_operand *hidden_state, uint32_t hidden_size,
					 const struct webnn_gru_cell_options *o,
					 struct webnn_operand **out)
{
	WNNC_OP_BEGIN("gruCell")
	WNNC_OPTIONS(struct webnn_gru_cell_options, opt, o, WEBNN_GRU_CELL_OPTIONS_INIT)
	WNNC_TRY(use_weights(b, what, input, weight, recurrent_weight));
	WNNC_TRY(wnnc_use(b, what, "hiddenState", hidden_state));
	WNNC_TRY(wnnc_check_enum(b, what, "layout", (int)opt.layout, 2));
	WNNC_NEW_OP(m, Webnn__Ipc__GruCell, WNN_OP_GRU_CELL)
	RNN_WEIGHTS(m, input, weight, recurrent_weight, opt);
	m->hidden_state = hidden_state->id;
	m->output = (uint32_t)b->n_operands;
	m->hidden_size = hidden_size;
	m->has_reset_after = m->has_layout = true;
	m->reset_after = opt.reset_after;
	m->layout = (Webnn__Ipc__GruWeightLayout)opt.layout;
	WNNC_TRY(activations_arg(b, what, opt.activations, opt.n_activations, 2,
				 &m->n_activations, &m->activations));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_lstm(struct webnn_builder *b, struct webnn_operand *input,
				     struct webnn_operand *weight,
				     struct webnn_operand *recurrent_weight, uint32_t steps,
				     uint32_t hidden_size, const struct webnn_lstm_options *o,
				     struct webnn_operand **outs, size_t max_outs, size_t *n_outs)
{
	WNNC_MULTI_BEGIN("lstm")
	WNNC_OPTIONS(struct webnn_lstm_options, opt, o, WEBNN_LSTM_OPTIONS_INIT)
	WNNC_TRY(use_weights(b, what, input, weight, recurrent_weight));
	WNNC_TRY(wnnc_check_enum(b, what, "direction", (int)opt.direction, 3));
	WNNC_TRY(wnnc_check_enum(b, what, "layout", (int)opt.layout, 2));
	WNNC_NEW_OP(m, Webnn__Ipc__Lstm, WNN_OP_LSTM)
	RNN_WEIGHTS(m, input, weight, recurrent_weight, opt);
	WNNC_TRY(wnnc_opt_operand(b, what, "peepholeWeight", opt.peephole_weight,
				  &m->has_peephole_weight, &m->peephole_weight));
	WNNC_TRY(wnnc_opt_operand(b, what, "initialHiddenState", opt.initial_hidden_state,
				  &m->has_initial_hidden_state, &m->initial_hidden_state));
	WNNC_TRY(wnnc_opt_operand(b, what, "initialCellState", opt.initial_cell_state,
				  &m->has_initial_cell_state, &m->initial_cell_state));
	m->steps = steps;
	m->hidden_size = hidden_size;
	m->has_return_sequence = m->has_direction = m->has_layout = true;
	m->return_sequence = opt.return_sequence;
	m->direction = (Webnn__Ipc__RecurrentDirection)opt.direction;
	m->layout = (Webnn__Ipc__LstmWeightLayout)opt.layout;
	WNNC_TRY(activations_arg(b, what, opt.activations, opt.n_activations, 3,
				 &m->n_activations, &m->activations));
	WNNC_TRY(wnnc_output_list(b, what, opt.return_sequence ? 3 : 2, &m->n_outputs, &m->outputs));
	s = wnnc_finish_n(b, what, op, outs, max_outs, n_outs);
	WNNC_MULTI_END
}

enum webnn_status webnn_builder_lstm_cell(struct webnn_builder *b, struct webnn_operand *input,
					  struct webnn_operand *weight,
					  struct webnn_operand *recurrent_weight,
					  struct webnn_operand *hidden_state,
					  struct webnn_operand *cell_state, uint32_t hidden_size,
					  const struct webnn_lstm_cell_options *o,
					  struct webnn_operand **outs, size_t max_outs,
					  size_t *n_outs)
{
	WNNC_MULTI_BEGIN("lstmCell")
	WNNC_OPTIONS(struct webnn_lstm_cell_options, opt, o, WEBNN_LSTM_CELL_OPTIONS_INIT)
	WNNC_TRY(use_weights(b, what, input, weight, recurrent_weight));
	WNNC_TRY(wnnc_use(b, what, "hiddenState", hidden_state));
	WNNC_TRY(wnnc_use(b, what, "cellState", cell_state));
	WNNC_TRY(wnnc_check_enum(b, what, "layout", (int)opt.layout, 2));
	WNNC_NEW_OP(m, Webnn__Ipc__LstmCell, WNN_OP_LSTM_CELL)
	RNN_WEIGHTS(m, input, weight, recurrent_weight, opt);
	m->hidden_state = hidden_state->id;
	m->cell_state = cell_state->id;
	WNNC_TRY(wnnc_opt_operand(b, what, "peepholeWeight", opt.peephole_weight,
				  &m->has_peephole_weight, &m->peephole_weight));
	m->hidden_size = hidden_size;
	m->has_layout = true;
	m->layout = (Webnn__Ipc__LstmWeightLayout)opt.layout;
	WNNC_TRY(activations_arg(b, what, opt.activations, opt.n_activations, 3,
				 &m->n_activations, &m->activations));
	WNNC_TRY(wnnc_output_list(b, what, 2, &m->n_outputs, &m->outputs));
	s = wnnc_finish_n(b, what, op, outs, max_outs, n_outs);
	WNNC_MULTI_END
}
