/* Recurrent family (gru, gruCell, lstm, lstmCell): wiring, limits, the resolvers. */
#include "proto/schema.h"

static bool check_activations(struct wnn_resolving *c, const Webnn__Ipc__RecurrentActivation *acts,
			      size_t n, size_t want)
{
	if (n == 0)
		return true; /* absent: the spec defaults */
	if (n != want)
		return wnn_failf(c, "activations has %zu items, expected %zu", n, want);
	for (size_t i = 0; i < n; i++)
		if (!wnn_check_enum(c, (int)acts[i], WEBNN__IPC__RECURRENT_ACTIVATION__ACT_TANH,
				"activations item"))
			return false;
	return true;
}

/* Checks an optional recurrent operand against a shape of 1 to 3 dims. */
static bool check_rnn_operand(struct wnn_resolving *c, bool has, uint32_t id, const char *role,
			      const struct wnn_desc *x, uint64_t d0, uint64_t d1, uint64_t d2,
			      uint32_t rank, const char *what)
{
	if (!has)
		return true;
	const struct wnn_desc *d = D(c, id);
	const uint64_t want[3] = { d0, d1, d2 };
	return wnn_check_same_type(c, d, role, x, "input") && wnn_check_shape(c, d, role, want, rank, what);
}

static bool check_hidden_size(struct wnn_resolving *c, uint32_t hidden, uint64_t gates)
{
	if (hidden == 0 || (uint64_t)hidden * gates * 2 > MAX_DIM)
		return wnn_failf(c, "hiddenSize %" PRIu32 " is not valid: hiddenSize * %" PRIu64
			     " must be a valid dimension", hidden, gates * 2);
	return true;
}

/* The recurrent output shapes, in wnn_op_outputs order: the hidden state [numDirections,
 * batchSize, hiddenSize] ([batchSize, hiddenSize] for the cells), lstm's cell state of the same
 * shape, then with returnSequence the hidden states of every step [steps, numDirections,
 * batchSize, hiddenSize]. Reads p's type, lstm, cell, steps, num_dirs, batch, hidden and
 * return_sequence; returns the number of outputs. */
static size_t rnn_output_shapes(const struct wnn_rnn_attrs *p, struct wnn_desc out[3])
{
	struct wnn_desc state = { .type = p->type };
	if (!p->cell)
		state.dims[state.rank++] = p->num_dirs;
	state.dims[state.rank++] = p->batch;
	state.dims[state.rank++] = p->hidden;
	size_t n = 0;
	out[n++] = state;
	if (p->lstm)
		out[n++] = state;
	if (p->return_sequence) {
		struct wnn_desc *seq = &out[n++];
		*seq = (struct wnn_desc){ .type = p->type, .rank = state.rank + 1 };
		seq->dims[0] = p->steps;
		memcpy(seq->dims + 1, state.dims, state.rank * sizeof(uint32_t));
	}
	return n;
}

/* What the four recurrent messages carry, in one shape (cell forms: steps 1, one direction,
 * the states required). */
struct rnn_wire {
	uint32_t in, w, rw, b, rb, ph, h0, c0;
	bool has_b, has_rb, has_ph, has_h0, has_c0;
	const uint32_t *outs;
	size_t n_outs;
	const Webnn__Ipc__RecurrentActivation *acts;
	size_t n_acts;
	int layout;
};

static void rnn_wire_gru(const Webnn__Ipc__Gru *m, struct rnn_wire *w, struct wnn_rnn_attrs *p)
{
	*w = (struct rnn_wire){ .in = m->input, .w = m->weight, .rw = m->recurrent_weight,
				.b = m->bias, .has_b = m->has_bias, .rb = m->recurrent_bias,
				.has_rb = m->has_recurrent_bias, .h0 = m->initial_hidden_state,
				.has_h0 = m->has_initial_hidden_state, .outs = m->outputs,
				.n_outs = m->n_outputs, .acts = m->activations,
				.n_acts = m->n_activations, .layout = (int)m->layout };
	p->steps = m->steps, p->hidden = m->hidden_size;
	p->reset_after = m->reset_after, p->return_sequence = m->return_sequence;
	p->num_dirs = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BOTH ? 2 : 1;
	p->backward = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BACKWARD;
}

static void rnn_wire_gru_cell(const Webnn__Ipc__GruCell *m, struct rnn_wire *w,
			      struct wnn_rnn_attrs *p)
{
	*w = (struct rnn_wire){ .in = m->input, .w = m->weight, .rw = m->recurrent_weight,
				.b = m->bias, .has_b = m->has_bias, .rb = m->recurrent_bias,
				.has_rb = m->has_recurrent_bias, .h0 = m->hidden_state,
				.has_h0 = true, .outs = &m->output, .n_outs = 1,
				.acts = m->activations, .n_acts = m->n_activations,
				.layout = (int)m->layout };
	p->steps = 1, p->hidden = m->hidden_size, p->num_dirs = 1;
	p->reset_after = m->reset_after;
	p->cell = true;
}

static void rnn_wire_lstm(const Webnn__Ipc__Lstm *m, struct rnn_wire *w, struct wnn_rnn_attrs *p)
{
	*w = (struct rnn_wire){ .in = m->input, .w = m->weight, .rw = m->recurrent_weight,
				.b = m->bias, .has_b = m->has_bias, .rb = m->recurrent_bias,
				.has_rb = m->has_recurrent_bias, .ph = m->peephole_weight,
				.has_ph = m->has_peephole_weight, .h0 = m->initial_hidden_state,
				.has_h0 = m->has_initial_hidden_state, .c0 = m->initial_cell_state,
				.has_c0 = m->has_initial_cell_state, .outs = m->outputs,
				.n_outs = m->n_outputs, .acts = m->activations,
				.n_acts = m->n_activations, .layout = (int)m->layout };
	p->steps = m->steps, p->hidden = m->hidden_size;
	p->return_sequence = m->return_sequence;
	p->num_dirs = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BOTH ? 2 : 1;
	p->backward = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BACKWARD;
	p->lstm = true;
}

static void rnn_wire_lstm_cell(const Webnn__Ipc__LstmCell *m, struct rnn_wire *w,
			       struct wnn_rnn_attrs *p)
{
	*w = (struct rnn_wire){ .in = m->input, .w = m->weight, .rw = m->recurrent_weight,
				.b = m->bias, .has_b = m->has_bias, .rb = m->recurrent_bias,
				.has_rb = m->has_recurrent_bias, .ph = m->peephole_weight,
				.has_ph = m->has_peephole_weight, .h0 = m->hidden_state,
				.has_h0 = true, .c0 = m->cell_state, .has_c0 = true,
				.outs = m->outputs, .n_outs = m->n_outputs, .acts = m->activations,
				.n_acts = m->n_activations, .layout = (int)m->layout };
	p->steps = 1, p->hidden = m->hidden_size, p->num_dirs = 1;
	p->lstm = true, p->cell = true;
}

/* The resolved recurrent attributes once the rules hold (p has the wire's fields): operand
 * ids, the spec's default activations (gru: sigmoid, tanh; lstm: sigmoid, tanh, tanh), the row
 * block of each canonical gate for the weight layout; appends the outputs. */
static bool rnn_resolved(struct wnn_resolving *c, const struct rnn_wire *w, const struct wnn_desc *x,
			 struct wnn_rnn_attrs *p)
{
	static const uint8_t lstm_blocks[2][4] = {
		[WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IFGO] = { [WNN_LSTM_I] = 0, [WNN_LSTM_F] = 1,
							   [WNN_LSTM_G] = 2, [WNN_LSTM_O] = 3 },
		[WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IOFG] = { [WNN_LSTM_I] = 0, [WNN_LSTM_O] = 1,
							   [WNN_LSTM_F] = 2, [WNN_LSTM_G] = 3 },
	};
	static const uint8_t gru_blocks[2][3] = {
		[WEBNN__IPC__GRU_WEIGHT_LAYOUT__ZRN] = { [WNN_GRU_Z] = 0, [WNN_GRU_R] = 1,
							 [WNN_GRU_N] = 2 },
		[WEBNN__IPC__GRU_WEIGHT_LAYOUT__RZN] = { [WNN_GRU_R] = 0, [WNN_GRU_Z] = 1,
							 [WNN_GRU_N] = 2 },
	};
	p->op = c->kind;
	p->input = w->in;
	p->type = x->type;
	p->batch = x->dims[p->cell ? 0 : 1];
	p->input_size = x->dims[p->cell ? 1 : 2];
	p->gates = p->lstm ? 4 : 3;
	p->weight = w->w, p->recurrent_weight = w->rw;
	p->bias = w->has_b ? w->b : WNN_NO_OPERAND;
	p->recurrent_bias = w->has_rb ? w->rb : WNN_NO_OPERAND;
	p->peephole = w->has_ph ? w->ph : WNN_NO_OPERAND;
	p->initial_hidden = w->has_h0 ? w->h0 : WNN_NO_OPERAND;
	p->initial_cell = w->has_c0 ? w->c0 : WNN_NO_OPERAND;
	p->has_bias = w->has_b, p->has_recurrent_bias = w->has_rb, p->has_peephole = w->has_ph;
	p->has_initial_hidden = w->has_h0, p->has_initial_cell = w->has_c0;
	p->act[0] = WNN_ACT_SIGMOID, p->act[1] = WNN_ACT_TANH, p->act[2] = WNN_ACT_TANH;
	for (size_t i = 0; i < w->n_acts; i++) /* count and values checked above */
		p->act[i] = (enum wnn_activation)w->acts[i];
	for (uint32_t g = 0; g < p->gates; g++)
		p->gate_block[g] = p->lstm ? lstm_blocks[w->layout][g] : gru_blocks[w->layout][g];
	struct wnn_desc shapes[3];
	size_t n = rnn_output_shapes(p, shapes);
	for (size_t i = 0; i < n; i++)
		wnn_result_copy(c, &shapes[i]);
	p->out_hidden = p->out_cell = p->out_sequence = WNN_NO_OPERAND;
	if (w->n_outs == n) { /* else the driver reports the count */
		p->out_hidden = w->outs[0];
		if (p->lstm)
			p->out_cell = w->outs[1];
		if (p->return_sequence)
			p->out_sequence = w->outs[n - 1];
	}
	return true;
}

static bool resolve_gru(struct wnn_resolving *c, struct wnn_rnn_attrs *p)
{
	const Webnn__Ipc__Gru *m = c->op->gru;
	const struct wnn_desc *x = D(c, m->input), *w = D(c, m->weight),
			      *rw = D(c, m->recurrent_weight);
	if (!wnn_check_type(c, x, "input", first_mask(c)) ||
	    !wnn_check_same_type(c, w, "weight", x, "input") ||
	    !wnn_check_same_type(c, rw, "recurrentWeight", x, "input") ||
	    !wnn_check_rank(c, x, "input", 3, 3) || !wnn_check_rank(c, w, "weight", 3, 3) ||
	    !wnn_check_rank(c, rw, "recurrentWeight", 3, 3) ||
	    !wnn_check_enum(c, (int)m->direction, WEBNN__IPC__RECURRENT_DIRECTION__BOTH, "direction") ||
	    !wnn_check_enum(c, (int)m->layout, WEBNN__IPC__GRU_WEIGHT_LAYOUT__RZN, "layout"))
		return false;
	if (m->steps == 0 || x->dims[0] != m->steps)
		return wnn_failf(c, "input.shape[0] is %" PRIu32 ", expected steps %" PRIu32, x->dims[0],
			     m->steps);
	uint32_t batch = x->dims[1], in_size = x->dims[2], h = m->hidden_size;
	uint64_t dirs = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BOTH ? 2 : 1;
	uint64_t h3 = 3 * (uint64_t)h;
	const char *wd = "[numDirections, 3 * hiddenSize, inputSize]";
	const char *rd = "[numDirections, 3 * hiddenSize, hiddenSize]";
	if (!check_rnn_operand(c, true, m->weight, "weight", x, dirs, h3, in_size, 3, wd) ||
	    !check_rnn_operand(c, true, m->recurrent_weight, "recurrentWeight", x, dirs, h3, h, 3,
			       rd) ||
	    !check_hidden_size(c, h, 3) ||
	    !check_rnn_operand(c, m->has_bias, m->bias, "bias", x, dirs, h3, 0, 2,
			       "[numDirections, 3 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_recurrent_bias, m->recurrent_bias, "recurrentBias", x, dirs,
			       h3, 0, 2, "[numDirections, 3 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_initial_hidden_state, m->initial_hidden_state,
			       "initialHiddenState", x, dirs, batch, h, 3,
			       "[numDirections, batchSize, hiddenSize]") ||
	    !check_activations(c, m->activations, m->n_activations, 2))
		return false;
	struct rnn_wire wire;
	rnn_wire_gru(m, &wire, p);
	return rnn_resolved(c, &wire, x, p);
}

static bool resolve_gru_cell(struct wnn_resolving *c, struct wnn_rnn_attrs *p)
{
	const Webnn__Ipc__GruCell *m = c->op->gru_cell;
	const struct wnn_desc *x = D(c, m->input), *w = D(c, m->weight),
			      *rw = D(c, m->recurrent_weight), *hs = D(c, m->hidden_state);
	if (!wnn_check_type(c, x, "input", first_mask(c)) ||
	    !wnn_check_same_type(c, w, "weight", x, "input") ||
	    !wnn_check_same_type(c, rw, "recurrentWeight", x, "input") ||
	    !wnn_check_same_type(c, hs, "hiddenState", x, "input") ||
	    !wnn_check_rank(c, x, "input", 2, 2) || !wnn_check_rank(c, w, "weight", 2, 2) ||
	    !wnn_check_rank(c, rw, "recurrentWeight", 2, 2) ||
	    !wnn_check_rank(c, hs, "hiddenState", 2, 2) ||
	    !wnn_check_enum(c, (int)m->layout, WEBNN__IPC__GRU_WEIGHT_LAYOUT__RZN, "layout"))
		return false;
	uint32_t batch = x->dims[0], in_size = x->dims[1], h = m->hidden_size;
	uint64_t h3 = 3 * (uint64_t)h;
	if (!check_rnn_operand(c, true, m->weight, "weight", x, h3, in_size, 0, 2,
			       "[3 * hiddenSize, inputSize]") ||
	    !check_rnn_operand(c, true, m->recurrent_weight, "recurrentWeight", x, h3, h, 0, 2,
			       "[3 * hiddenSize, hiddenSize]") ||
	    !check_rnn_operand(c, true, m->hidden_state, "hiddenState", x, batch, h, 0, 2,
			       "[batchSize, hiddenSize]") ||
	    !check_hidden_size(c, h, 3) ||
	    !check_rnn_operand(c, m->has_bias, m->bias, "bias", x, h3, 0, 0, 1,
			       "[3 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_recurrent_bias, m->recurrent_bias, "recurrentBias", x, h3,
			       0, 0, 1, "[3 * hiddenSize]") ||
	    !check_activations(c, m->activations, m->n_activations, 2))
		return false;
	struct rnn_wire wire;
	rnn_wire_gru_cell(m, &wire, p);
	return rnn_resolved(c, &wire, x, p);
}

static bool resolve_lstm(struct wnn_resolving *c, struct wnn_rnn_attrs *p)
{
	const Webnn__Ipc__Lstm *m = c->op->lstm;
	const struct wnn_desc *x = D(c, m->input), *w = D(c, m->weight),
			      *rw = D(c, m->recurrent_weight);
	if (!wnn_check_type(c, x, "input", first_mask(c)) ||
	    !wnn_check_same_type(c, w, "weight", x, "input") ||
	    !wnn_check_same_type(c, rw, "recurrentWeight", x, "input") ||
	    !wnn_check_rank(c, x, "input", 3, 3) || !wnn_check_rank(c, w, "weight", 3, 3) ||
	    !wnn_check_rank(c, rw, "recurrentWeight", 3, 3) ||
	    !wnn_check_enum(c, (int)m->direction, WEBNN__IPC__RECURRENT_DIRECTION__BOTH, "direction") ||
	    !wnn_check_enum(c, (int)m->layout, WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IFGO, "layout"))
		return false;
	if (m->steps == 0 || x->dims[0] != m->steps)
		return wnn_failf(c, "input.shape[0] is %" PRIu32 ", expected steps %" PRIu32, x->dims[0],
			     m->steps);
	uint32_t batch = x->dims[1], in_size = x->dims[2], h = m->hidden_size;
	uint64_t dirs = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BOTH ? 2 : 1;
	uint64_t h4 = 4 * (uint64_t)h, h3 = 3 * (uint64_t)h;
	const char *st = "[numDirections, batchSize, hiddenSize]";
	if (!check_rnn_operand(c, true, m->weight, "weight", x, dirs, h4, in_size, 3,
			       "[numDirections, 4 * hiddenSize, inputSize]") ||
	    !check_rnn_operand(c, true, m->recurrent_weight, "recurrentWeight", x, dirs, h4, h, 3,
			       "[numDirections, 4 * hiddenSize, hiddenSize]") ||
	    !check_hidden_size(c, h, 4) ||
	    !check_rnn_operand(c, m->has_bias, m->bias, "bias", x, dirs, h4, 0, 2,
			       "[numDirections, 4 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_recurrent_bias, m->recurrent_bias, "recurrentBias", x, dirs,
			       h4, 0, 2, "[numDirections, 4 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_peephole_weight, m->peephole_weight, "peepholeWeight", x,
			       dirs, h3, 0, 2, "[numDirections, 3 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_initial_hidden_state, m->initial_hidden_state,
			       "initialHiddenState", x, dirs, batch, h, 3, st) ||
	    !check_rnn_operand(c, m->has_initial_cell_state, m->initial_cell_state,
			       "initialCellState", x, dirs, batch, h, 3, st) ||
	    !check_activations(c, m->activations, m->n_activations, 3))
		return false;
	struct rnn_wire wire;
	rnn_wire_lstm(m, &wire, p);
	return rnn_resolved(c, &wire, x, p);
}

static bool resolve_lstm_cell(struct wnn_resolving *c, struct wnn_rnn_attrs *p)
{
	const Webnn__Ipc__LstmCell *m = c->op->lstm_cell;
	const struct wnn_desc *x = D(c, m->input), *w = D(c, m->weight),
			      *rw = D(c, m->recurrent_weight), *hs = D(c, m->hidden_state),
			      *cs = D(c, m->cell_state);
	if (!wnn_check_type(c, x, "input", first_mask(c)) ||
	    !wnn_check_same_type(c, w, "weight", x, "input") ||
	    !wnn_check_same_type(c, rw, "recurrentWeight", x, "input") ||
	    !wnn_check_same_type(c, hs, "hiddenState", x, "input") ||
	    !wnn_check_same_type(c, cs, "cellState", x, "input") ||
	    !wnn_check_rank(c, x, "input", 2, 2) || !wnn_check_rank(c, w, "weight", 2, 2) ||
	    !wnn_check_rank(c, rw, "recurrentWeight", 2, 2) ||
	    !wnn_check_rank(c, hs, "hiddenState", 2, 2) || !wnn_check_rank(c, cs, "cellState", 2, 2) ||
	    !wnn_check_enum(c, (int)m->layout, WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IFGO, "layout"))
		return false;
	uint32_t batch = x->dims[0], in_size = x->dims[1], h = m->hidden_size;
	uint64_t h4 = 4 * (uint64_t)h, h3 = 3 * (uint64_t)h;
	if (!check_rnn_operand(c, true, m->weight, "weight", x, h4, in_size, 0, 2,
			       "[4 * hiddenSize, inputSize]") ||
	    !check_rnn_operand(c, true, m->recurrent_weight, "recurrentWeight", x, h4, h, 0, 2,
			       "[4 * hiddenSize, hiddenSize]") ||
	    !check_rnn_operand(c, true, m->hidden_state, "hiddenState", x, batch, h, 0, 2,
			       "[batchSize, hiddenSize]") ||
	    !check_rnn_operand(c, true, m->cell_state, "cellState", x, batch, h, 0, 2,
			       "[batchSize, hiddenSize]") ||
	    !check_hidden_size(c, h, 4) ||
	    !check_rnn_operand(c, m->has_bias, m->bias, "bias", x, h4, 0, 0, 1,
			       "[4 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_recurrent_bias, m->recurrent_bias, "recurrentBias", x, h4,
			       0, 0, 1, "[4 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_peephole_weight, m->peephole_weight, "peepholeWeight", x,
			       h3, 0, 0, 1, "[3 * hiddenSize]") ||
	    !check_activations(c, m->activations, m->n_activations, 3))
		return false;
	struct rnn_wire wire;
	rnn_wire_lstm_cell(m, &wire, p);
	return rnn_resolved(c, &wire, x, p);
}

/* ---- the table entries: operands, role limits and the resolver by attrs kind */

static bool inputs_gru(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	const Webnn__Ipc__Gru *m = op->gru;
	NEED(m);
	IN(m->input, "input");
	IN(m->weight, "weight");
	IN(m->recurrent_weight, "recurrentWeight");
	OPT(m, bias, "bias");
	OPT(m, recurrent_bias, "recurrentBias");
	OPT(m, initial_hidden_state, "initialHiddenState");
	return true;
}

static bool outputs_gru(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_LIST(op->gru, outputs);
}

static void roles_gru(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 3, 3);
	fn(ud, "weight", t, 3, 3);
	fn(ud, "recurrentWeight", t, 3, 3);
	fn(ud, "bias", t, 2, 2);
	fn(ud, "recurrentBias", t, 2, 2);
	fn(ud, "initialHiddenState", t, 3, 3);
	fn(ud, "output0", t, 3, 3);
	fn(ud, "output1", t, 4, 4);
}

WNN_RESOLVER(resolve_gru, rnn)
WNN_RESOLVER(resolve_gru_cell, rnn)
WNN_RESOLVER(resolve_lstm, rnn)
WNN_RESOLVER(resolve_lstm_cell, rnn)

const struct wnn_attrs_rules wnn_attrs_gru = {
	.inputs = inputs_gru,
	.outputs = outputs_gru,
	.resolve = resolve_gru_any,
	.roles = roles_gru,
};

static bool inputs_gru_cell(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	const Webnn__Ipc__GruCell *m = op->gru_cell;
	NEED(m);
	IN(m->input, "input");
	IN(m->weight, "weight");
	IN(m->recurrent_weight, "recurrentWeight");
	IN(m->hidden_state, "hiddenState");
	OPT(m, bias, "bias");
	OPT(m, recurrent_bias, "recurrentBias");
	return true;
}

static bool outputs_gru_cell(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->gru_cell);
}

static void roles_gru_cell(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 2, 2);
	fn(ud, "weight", t, 2, 2);
	fn(ud, "recurrentWeight", t, 2, 2);
	fn(ud, "hiddenState", t, 2, 2);
	fn(ud, "bias", t, 1, 1);
	fn(ud, "recurrentBias", t, 1, 1);
	fn(ud, "output", t, 2, 2);
}

const struct wnn_attrs_rules wnn_attrs_gru_cell = {
	.inputs = inputs_gru_cell,
	.outputs = outputs_gru_cell,
	.resolve = resolve_gru_cell_any,
	.roles = roles_gru_cell,
};

static bool inputs_lstm(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	const Webnn__Ipc__Lstm *m = op->lstm;
	NEED(m);
	IN(m->input, "input");
	IN(m->weight, "weight");
	IN(m->recurrent_weight, "recurrentWeight");
	OPT(m, bias, "bias");
	OPT(m, recurrent_bias, "recurrentBias");
	OPT(m, peephole_weight, "peepholeWeight");
	OPT(m, initial_hidden_state, "initialHiddenState");
	OPT(m, initial_cell_state, "initialCellState");
	return true;
}

static bool outputs_lstm(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_LIST(op->lstm, outputs);
}

static void roles_lstm(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 3, 3);
	fn(ud, "weight", t, 3, 3);
	fn(ud, "recurrentWeight", t, 3, 3);
	fn(ud, "bias", t, 2, 2);
	fn(ud, "recurrentBias", t, 2, 2);
	fn(ud, "peepholeWeight", t, 2, 2);
	fn(ud, "initialHiddenState", t, 3, 3);
	fn(ud, "initialCellState", t, 3, 3);
	fn(ud, "output0", t, 3, 3);
	fn(ud, "output1", t, 3, 3);
	fn(ud, "output2", t, 4, 4);
}

const struct wnn_attrs_rules wnn_attrs_lstm = {
	.inputs = inputs_lstm,
	.outputs = outputs_lstm,
	.resolve = resolve_lstm_any,
	.roles = roles_lstm,
};

static bool inputs_lstm_cell(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	const Webnn__Ipc__LstmCell *m = op->lstm_cell;
	NEED(m);
	IN(m->input, "input");
	IN(m->weight, "weight");
	IN(m->recurrent_weight, "recurrentWeight");
	IN(m->hidden_state, "hiddenState");
	IN(m->cell_state, "cellState");
	OPT(m, bias, "bias");
	OPT(m, recurrent_bias, "recurrentBias");
	OPT(m, peephole_weight, "peepholeWeight");
	return true;
}

static bool outputs_lstm_cell(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_LIST(op->lstm_cell, outputs);
}

static void roles_lstm_cell(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 2, 2);
	fn(ud, "weight", t, 2, 2);
	fn(ud, "recurrentWeight", t, 2, 2);
	fn(ud, "hiddenState", t, 2, 2);
	fn(ud, "cellState", t, 2, 2);
	fn(ud, "bias", t, 1, 1);
	fn(ud, "recurrentBias", t, 1, 1);
	fn(ud, "peepholeWeight", t, 1, 1);
	fn(ud, "output0", t, 2, 2);
	fn(ud, "output1", t, 2, 2);
}

const struct wnn_attrs_rules wnn_attrs_lstm_cell = {
	.inputs = inputs_lstm_cell,
	.outputs = outputs_lstm_cell,
	.resolve = resolve_lstm_cell_any,
	.roles = roles_lstm_cell,
};
