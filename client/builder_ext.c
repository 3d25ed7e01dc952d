/* libwebnn builder wrappers for the operators beyond the CNN set (argMin ... where). */
#include "client/builder.h"

#include <inttypes.h>
#include <stdio.h>

/* ---- argument helpers */

/* An optional operand option: validated and recorded as (has, id). */
static enum webnn_status opt_operand(struct webnn_builder *b, const char *what, const char *role,
				     const struct webnn_operand *o, protobuf_c_boolean *has,
				     uint32_t *id)
{
	if (!o)
		return WEBNN_STATUS_OK;
	enum webnn_status s = wnnc_use(b, what, role, o);
	if (s == WEBNN_STATUS_OK) {
		*has = true;
		*id = o->id;
	}
	return s;
}

/* A list argument of at most cap values; values may be NULL only for an empty list. */
static enum webnn_status list_arg(struct webnn_builder *b, const char *what, const char *name,
				  const uint32_t *values, uint32_t n, uint32_t cap, size_t *n_out,
				  uint32_t **out)
{
	if (n && !values)
		return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "%s: %s is NULL with %" PRIu32
				 " values", what, name, n);
	return wnnc_opt_array(b, what, name, values, n, cap, n_out, out);
}

/* Output ids n_operands .. n_operands + n - 1 for an operator returning a sequence. */
static enum webnn_status output_list(struct webnn_builder *b, const char *what, size_t n,
				     size_t *n_out, uint32_t **out)
{
	*n_out = n;
	*out = NULL;
	if (!n)
		return WEBNN_STATUS_OK;
	*out = wnnc_arena_alloc(b, n * sizeof(uint32_t));
	if (!*out)
		return wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
	for (size_t i = 0; i < n; i++)
		(*out)[i] = (uint32_t)(b->n_operands + i);
	return WEBNN_STATUS_OK;
}

/* Recurrent activations: at most cap given (0 means the spec defaults). */
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

/* The multi-output form of WNNC_OP_BEGIN: outs/n_outs are cleared first; out only stands for
 * "outs is not NULL" in the shared checks. */
#define WNNC_MULTI_BEGIN(what_)                                                                \
	struct webnn_operand *first_ = NULL;                                                   \
	struct webnn_operand **out = outs ? &first_ : NULL;                                    \
	if (n_outs)                                                                            \
		*n_outs = 0;                                                                   \
	for (size_t i_ = 0; outs && i_ < max_outs; i_++)                                       \
		outs[i_] = NULL;                                                               \
	WNNC_OP_BEGIN(what_)                                                                   \
	if (!n_outs) {                                                                         \
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "%s: n_outs is NULL", what);    \
		goto done;                                                                     \
	}

#define WNNC_MULTI_END                                                                         \
	done:                                                                                  \
	if (s != WEBNN_STATUS_OK) {                                                            \
		wnnc_arena_reset(b, mark);                                                     \
		for (size_t i_ = 0; outs && i_ < max_outs; i_++)                               \
			outs[i_] = NULL;                                                       \
		if (n_outs)                                                                    \
			*n_outs = 0;                                                           \
	}                                                                                      \
	wnnc_leave(b, s, consume_label);                                                       \
	return s;

/* ---- argMin / argMax */

static enum webnn_status arg_min_max(struct webnn_builder *b, enum wnn_op id,
				     struct webnn_operand *x, uint32_t axis,
				     const struct webnn_arg_min_max_options *o,
				     struct webnn_operand **out)
{
	WNNC_OP_BEGIN(wnn_ops[id].name)
	WNNC_OPTIONS(struct webnn_arg_min_max_options, opt, o, WEBNN_ARG_MIN_MAX_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__ArgMinMax, id)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	m->axis = axis;
	m->has_keep_dimensions = true;
	m->keep_dimensions = opt.keep_dimensions;
	m->has_output_data_type = true;
	m->output_data_type = (Webnn__Ipc__DataType)opt.output_data_type;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_arg_min(struct webnn_builder *b, struct webnn_operand *x,
					uint32_t axis, const struct webnn_arg_min_max_options *o,
					struct webnn_operand **out)
{
	return arg_min_max(b, WNN_OP_ARG_MIN, x, axis, o, out);
}

enum webnn_status webnn_builder_arg_max(struct webnn_builder *b, struct webnn_operand *x,
					uint32_t axis, const struct webnn_arg_min_max_options *o,
					struct webnn_operand **out)
{
	return arg_min_max(b, WNN_OP_ARG_MAX, x, axis, o, out);
}

/* ---- cast, cumulativeSum */

enum webnn_status webnn_builder_cast(struct webnn_builder *b, struct webnn_operand *x,
				     enum webnn_data_type type, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("cast")
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Cast, WNN_OP_CAST)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	m->data_type = (Webnn__Ipc__DataType)type;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_cumulative_sum(struct webnn_builder *b, struct webnn_operand *x,
					       uint32_t axis,
					       const struct webnn_cumulative_sum_options *o,
					       struct webnn_operand **out)
{
	WNNC_OP_BEGIN("cumulativeSum")
	WNNC_OPTIONS(struct webnn_cumulative_sum_options, opt, o,
		     WEBNN_CUMULATIVE_SUM_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__CumulativeSum, WNN_OP_CUMULATIVE_SUM)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	m->axis = axis;
	m->has_exclusive = m->has_reversed = true;
	m->exclusive = opt.exclusive;
	m->reversed = opt.reversed;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

/* ---- convTranspose2d */

enum webnn_status webnn_builder_conv_transpose2d(struct webnn_builder *b,
						 struct webnn_operand *input,
						 struct webnn_operand *filter,
						 const struct webnn_conv_transpose2d_options *o,
						 struct webnn_operand **out)
{
	WNNC_OP_BEGIN("convTranspose2d")
	WNNC_OPTIONS(struct webnn_conv_transpose2d_options, opt, o,
		     WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_TRY(wnnc_use(b, what, "filter", filter));
	WNNC_TRY(wnnc_check_enum(b, what, "input layout", (int)opt.input_layout, 2));
	WNNC_TRY(wnnc_check_enum(b, what, "filter layout", (int)opt.filter_layout, 3));
	WNNC_NEW_OP(m, Webnn__Ipc__ConvTranspose2d, WNN_OP_CONV_TRANSPOSE2D)
	m->input = input->id;
	m->filter = filter->id;
	WNNC_TRY(opt_operand(b, what, "bias", opt.bias, &m->has_bias, &m->bias));
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(wnnc_opt_array(b, what, "padding", opt.padding, opt.n_padding, 4, &m->n_padding,
				&m->padding));
	WNNC_TRY(wnnc_opt_array(b, what, "strides", opt.strides, opt.n_strides, 2, &m->n_strides,
				&m->strides));
	WNNC_TRY(wnnc_opt_array(b, what, "dilations", opt.dilations, opt.n_dilations, 2,
				&m->n_dilations, &m->dilations));
	WNNC_TRY(wnnc_opt_array(b, what, "outputPadding", opt.output_padding,
				opt.n_output_padding, 2, &m->n_output_padding,
				&m->output_padding));
	WNNC_TRY(wnnc_opt_array(b, what, "outputSizes", opt.output_sizes, opt.n_output_sizes, 2,
				&m->n_output_sizes, &m->output_sizes));
	m->has_groups = true;
	m->groups = opt.groups;
	m->has_input_layout = true;
	m->input_layout = (Webnn__Ipc__InputLayout)opt.input_layout;
	m->has_filter_layout = true;
	m->filter_layout = (Webnn__Ipc__ConvTranspose2dFilterLayout)opt.filter_layout;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

/* ---- quantizeLinear / dequantizeLinear */

static enum webnn_status quantize(struct webnn_builder *b, enum wnn_op id,
				  struct webnn_operand *x, struct webnn_operand *scale,
				  struct webnn_operand *zero_point, struct webnn_operand **out)
{
	WNNC_OP_BEGIN(wnn_ops[id].name)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_use(b, what, "scale", scale));
	WNNC_TRY(wnnc_use(b, what, "zeroPoint", zero_point));
	WNNC_NEW_OP(m, Webnn__Ipc__QuantizeLinear, id)
	m->input = x->id;
	m->scale = scale->id;
	m->zero_point = zero_point->id;
	m->output = (uint32_t)b->n_operands;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_quantize_linear(struct webnn_builder *b, struct webnn_operand *x,
						struct webnn_operand *scale,
						struct webnn_operand *zero_point,
						struct webnn_operand **out)
{
	return quantize(b, WNN_OP_QUANTIZE_LINEAR, x, scale, zero_point, out);
}

enum webnn_status webnn_builder_dequantize_linear(struct webnn_builder *b,
						  struct webnn_operand *x,
						  struct webnn_operand *scale,
						  struct webnn_operand *zero_point,
						  struct webnn_operand **out)
{
	return quantize(b, WNN_OP_DEQUANTIZE_LINEAR, x, scale, zero_point, out);
}

/* ---- expand, tile */

enum webnn_status webnn_builder_expand(struct webnn_builder *b, struct webnn_operand *x,
				       const uint32_t *new_shape, uint32_t rank,
				       struct webnn_operand **out)
{
	WNNC_OP_BEGIN("expand")
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Expand, WNN_OP_EXPAND)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(wnnc_shape_arg(b, what, "newShape", new_shape, rank, &m->n_new_shape,
				&m->new_shape));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_tile(struct webnn_builder *b, struct webnn_operand *x,
				     const uint32_t *repetitions, uint32_t rank,
				     struct webnn_operand **out)
{
	WNNC_OP_BEGIN("tile")
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Tile, WNN_OP_TILE)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(wnnc_shape_arg(b, what, "repetitions", repetitions, rank, &m->n_repetitions,
				&m->repetitions));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

/* ---- gather family */

static enum webnn_status gather(struct webnn_builder *b, enum wnn_op id, struct webnn_operand *x,
				struct webnn_operand *indices, const struct webnn_gather_options *o,
				struct webnn_operand **out)
{
	WNNC_OP_BEGIN(wnn_ops[id].name)
	WNNC_OPTIONS(struct webnn_gather_options, opt, o, WEBNN_GATHER_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_use(b, what, "indices", indices));
	WNNC_NEW_OP(m, Webnn__Ipc__Gather, id)
	m->input = x->id;
	m->indices = indices->id;
	m->output = (uint32_t)b->n_operands;
	if (id != WNN_OP_GATHER_ND) {
		m->has_axis = true;
		m->axis = opt.axis;
	}
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_gather(struct webnn_builder *b, struct webnn_operand *x,
				       struct webnn_operand *indices,
				       const struct webnn_gather_options *o,
				       struct webnn_operand **out)
{
	return gather(b, WNN_OP_GATHER, x, indices, o, out);
}

enum webnn_status webnn_builder_gather_elements(struct webnn_builder *b, struct webnn_operand *x,
						struct webnn_operand *indices,
						const struct webnn_gather_options *o,
						struct webnn_operand **out)
{
	return gather(b, WNN_OP_GATHER_ELEMENTS, x, indices, o, out);
}

enum webnn_status webnn_builder_gather_nd(struct webnn_builder *b, struct webnn_operand *x,
					  struct webnn_operand *indices,
					  struct webnn_operand **out)
{
	return gather(b, WNN_OP_GATHER_ND, x, indices, NULL, out);
}

/* ---- scatter family */

static enum webnn_status scatter(struct webnn_builder *b, enum wnn_op id, struct webnn_operand *x,
				 struct webnn_operand *indices, struct webnn_operand *updates,
				 const struct webnn_scatter_options *o, struct webnn_operand **out)
{
	WNNC_OP_BEGIN(wnn_ops[id].name)
	WNNC_OPTIONS(struct webnn_scatter_options, opt, o, WEBNN_SCATTER_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_use(b, what, "indices", indices));
	WNNC_TRY(wnnc_use(b, what, "updates", updates));
	WNNC_NEW_OP(m, Webnn__Ipc__Scatter, id)
	m->input = x->id;
	m->indices = indices->id;
	m->updates = updates->id;
	m->output = (uint32_t)b->n_operands;
	if (id != WNN_OP_SCATTER_ND) {
		m->has_axis = true;
		m->axis = opt.axis;
	}
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_scatter_elements(struct webnn_builder *b, struct webnn_operand *x,
						 struct webnn_operand *indices,
						 struct webnn_operand *updates,
						 const struct webnn_scatter_options *o,
						 struct webnn_operand **out)
{
	return scatter(b, WNN_OP_SCATTER_ELEMENTS, x, indices, updates, o, out);
}

enum webnn_status webnn_builder_scatter_nd(struct webnn_builder *b, struct webnn_operand *x,
					   struct webnn_operand *indices,
					   struct webnn_operand *updates,
					   struct webnn_operand **out)
{
	return scatter(b, WNN_OP_SCATTER_ND, x, indices, updates, NULL, out);
}

/* ---- recurrent networks */

enum webnn_status webnn_builder_gru(struct webnn_builder *b, struct webnn_operand *input,
				    struct webnn_operand *weight,
				    struct webnn_operand *recurrent_weight, uint32_t steps,
				    uint32_t hidden_size, const struct webnn_gru_options *o,
				    struct webnn_operand **outs, size_t max_outs, size_t *n_outs)
{
	WNNC_MULTI_BEGIN("gru")
	WNNC_OPTIONS(struct webnn_gru_options, opt, o, WEBNN_GRU_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_TRY(wnnc_use(b, what, "weight", weight));
	WNNC_TRY(wnnc_use(b, what, "recurrentWeight", recurrent_weight));
	WNNC_TRY(wnnc_check_enum(b, what, "direction", (int)opt.direction, 3));
	WNNC_TRY(wnnc_check_enum(b, what, "layout", (int)opt.layout, 2));
	WNNC_NEW_OP(m, Webnn__Ipc__Gru, WNN_OP_GRU)
	m->input = input->id;
	m->weight = weight->id;
	m->recurrent_weight = recurrent_weight->id;
	WNNC_TRY(opt_operand(b, what, "bias", opt.bias, &m->has_bias, &m->bias));
	WNNC_TRY(opt_operand(b, what, "recurrentBias", opt.recurrent_bias, &m->has_recurrent_bias,
			     &m->recurrent_bias));
	WNNC_TRY(opt_operand(b, what, "initialHiddenState", opt.initial_hidden_state,
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
	WNNC_TRY(output_list(b, what, opt.return_sequence ? 2 : 1, &m->n_outputs, &m->outputs));
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
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_TRY(wnnc_use(b, what, "weight", weight));
	WNNC_TRY(wnnc_use(b, what, "recurrentWeight", recurrent_weight));
	WNNC_TRY(wnnc_use(b, what, "hiddenState", hidden_state));
	WNNC_TRY(wnnc_check_enum(b, what, "layout", (int)opt.layout, 2));
	WNNC_NEW_OP(m, Webnn__Ipc__GruCell, WNN_OP_GRU_CELL)
	m->input = input->id;
	m->weight = weight->id;
	m->recurrent_weight = recurrent_weight->id;
	m->hidden_state = hidden_state->id;
	WNNC_TRY(opt_operand(b, what, "bias", opt.bias, &m->has_bias, &m->bias));
	WNNC_TRY(opt_operand(b, what, "recurrentBias", opt.recurrent_bias, &m->has_recurrent_bias,
			     &m->recurrent_bias));
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
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_TRY(wnnc_use(b, what, "weight", weight));
	WNNC_TRY(wnnc_use(b, what, "recurrentWeight", recurrent_weight));
	WNNC_TRY(wnnc_check_enum(b, what, "direction", (int)opt.direction, 3));
	WNNC_TRY(wnnc_check_enum(b, what, "layout", (int)opt.layout, 2));
	WNNC_NEW_OP(m, Webnn__Ipc__Lstm, WNN_OP_LSTM)
	m->input = input->id;
	m->weight = weight->id;
	m->recurrent_weight = recurrent_weight->id;
	WNNC_TRY(opt_operand(b, what, "bias", opt.bias, &m->has_bias, &m->bias));
	WNNC_TRY(opt_operand(b, what, "recurrentBias", opt.recurrent_bias, &m->has_recurrent_bias,
			     &m->recurrent_bias));
	WNNC_TRY(opt_operand(b, what, "peepholeWeight", opt.peephole_weight,
			     &m->has_peephole_weight, &m->peephole_weight));
	WNNC_TRY(opt_operand(b, what, "initialHiddenState", opt.initial_hidden_state,
			     &m->has_initial_hidden_state, &m->initial_hidden_state));
	WNNC_TRY(opt_operand(b, what, "initialCellState", opt.initial_cell_state,
			     &m->has_initial_cell_state, &m->initial_cell_state));
	m->steps = steps;
	m->hidden_size = hidden_size;
	m->has_return_sequence = m->has_direction = m->has_layout = true;
	m->return_sequence = opt.return_sequence;
	m->direction = (Webnn__Ipc__RecurrentDirection)opt.direction;
	m->layout = (Webnn__Ipc__LstmWeightLayout)opt.layout;
	WNNC_TRY(activations_arg(b, what, opt.activations, opt.n_activations, 3,
				 &m->n_activations, &m->activations));
	WNNC_TRY(output_list(b, what, opt.return_sequence ? 3 : 2, &m->n_outputs, &m->outputs));
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
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_TRY(wnnc_use(b, what, "weight", weight));
	WNNC_TRY(wnnc_use(b, what, "recurrentWeight", recurrent_weight));
	WNNC_TRY(wnnc_use(b, what, "hiddenState", hidden_state));
	WNNC_TRY(wnnc_use(b, what, "cellState", cell_state));
	WNNC_TRY(wnnc_check_enum(b, what, "layout", (int)opt.layout, 2));
	WNNC_NEW_OP(m, Webnn__Ipc__LstmCell, WNN_OP_LSTM_CELL)
	m->input = input->id;
	m->weight = weight->id;
	m->recurrent_weight = recurrent_weight->id;
	m->hidden_state = hidden_state->id;
	m->cell_state = cell_state->id;
	WNNC_TRY(opt_operand(b, what, "bias", opt.bias, &m->has_bias, &m->bias));
	WNNC_TRY(opt_operand(b, what, "recurrentBias", opt.recurrent_bias, &m->has_recurrent_bias,
			     &m->recurrent_bias));
	WNNC_TRY(opt_operand(b, what, "peepholeWeight", opt.peephole_weight,
			     &m->has_peephole_weight, &m->peephole_weight));
	m->hidden_size = hidden_size;
	m->has_layout = true;
	m->layout = (Webnn__Ipc__LstmWeightLayout)opt.layout;
	WNNC_TRY(activations_arg(b, what, opt.activations, opt.n_activations, 3,
				 &m->n_activations, &m->activations));
	WNNC_TRY(output_list(b, what, 2, &m->n_outputs, &m->outputs));
	s = wnnc_finish_n(b, what, op, outs, max_outs, n_outs);
	WNNC_MULTI_END
}

/* ---- normalizations */

enum webnn_status webnn_builder_instance_normalization(
	struct webnn_builder *b, struct webnn_operand *input,
	const struct webnn_instance_normalization_options *o, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("instanceNormalization")
	WNNC_OPTIONS(struct webnn_instance_normalization_options, opt, o,
		     WEBNN_INSTANCE_NORMALIZATION_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_TRY(wnnc_check_enum(b, what, "layout", (int)opt.layout, 2));
	WNNC_NEW_OP(m, Webnn__Ipc__InstanceNormalization, WNN_OP_INSTANCE_NORMALIZATION)
	m->input = input->id;
	WNNC_TRY(opt_operand(b, what, "scale", opt.scale, &m->has_scale, &m->scale));
	WNNC_TRY(opt_operand(b, what, "bias", opt.bias, &m->has_bias, &m->bias));
	m->output = (uint32_t)b->n_operands;
	m->has_epsilon = m->has_layout = true;
	m->epsilon = opt.epsilon;
	m->layout = (Webnn__Ipc__InputLayout)opt.layout;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_layer_normalization(
	struct webnn_builder *b, struct webnn_operand *input,
	const struct webnn_layer_normalization_options *o, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("layerNormalization")
	WNNC_OPTIONS(struct webnn_layer_normalization_options, opt, o,
		     WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", input));
	WNNC_NEW_OP(m, Webnn__Ipc__LayerNormalization, WNN_OP_LAYER_NORMALIZATION)
	m->input = input->id;
	WNNC_TRY(opt_operand(b, what, "scale", opt.scale, &m->has_scale, &m->scale));
	WNNC_TRY(opt_operand(b, what, "bias", opt.bias, &m->has_bias, &m->bias));
	m->output = (uint32_t)b->n_operands;
	m->has_epsilon = true;
	m->epsilon = opt.epsilon;
	if (opt.axes) {
		m->has_has_axes = m->has_axes = true;
		WNNC_TRY(list_arg(b, what, "axes", opt.axes, opt.n_axes, WNN_MAX_RANK, &m->n_axes,
				  &m->axes));
	}
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

/* ---- pad */

enum webnn_status webnn_builder_pad(struct webnn_builder *b, struct webnn_operand *x,
				    const uint32_t *beginning_padding, uint32_t n_beginning_padding,
				    const uint32_t *ending_padding, uint32_t n_ending_padding,
				    const struct webnn_pad_options *o, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("pad")
	WNNC_OPTIONS(struct webnn_pad_options, opt, o, WEBNN_PAD_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_check_enum(b, what, "mode", (int)opt.mode, 3));
	WNNC_NEW_OP(m, Webnn__Ipc__Pad, WNN_OP_PAD)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(list_arg(b, what, "beginningPadding", beginning_padding, n_beginning_padding,
			  WNN_MAX_RANK, &m->n_beginning_padding, &m->beginning_padding));
	WNNC_TRY(list_arg(b, what, "endingPadding", ending_padding, n_ending_padding,
			  WNN_MAX_RANK, &m->n_ending_padding, &m->ending_padding));
	m->has_mode = true;
	m->mode = (Webnn__Ipc__PaddingMode)opt.mode;
	WNNC_TRY(wnnc_number(b, what, "value", &opt.value_number, true, opt.value, &m->value));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

/* ---- prelu, where */

enum webnn_status webnn_builder_prelu(struct webnn_builder *b, struct webnn_operand *x,
				      struct webnn_operand *slope, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("prelu")
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_use(b, what, "slope", slope));
	WNNC_NEW_OP(m, Webnn__Ipc__Prelu, WNN_OP_PRELU)
	m->input = x->id;
	m->slope = slope->id;
	m->output = (uint32_t)b->n_operands;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_where(struct webnn_builder *b, struct webnn_operand *condition,
				      struct webnn_operand *true_value,
				      struct webnn_operand *false_value,
				      struct webnn_operand **out)
{
	WNNC_OP_BEGIN("where")
	WNNC_TRY(wnnc_use(b, what, "condition", condition));
	WNNC_TRY(wnnc_use(b, what, "trueValue", true_value));
	WNNC_TRY(wnnc_use(b, what, "falseValue", false_value));
	WNNC_NEW_OP(m, Webnn__Ipc__Where, WNN_OP_WHERE)
	m->condition = condition->id;
	m->true_value = true_value->id;
	m->false_value = false_value->id;
	m->output = (uint32_t)b->n_operands;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

/* ---- reductions */

static enum webnn_status reduce(struct webnn_builder *b, const char *c_name,
				struct webnn_operand *x, const struct webnn_reduce_options *o,
				struct webnn_operand **out)
{
	enum wnn_op id = wnnc_op_from_c_name(c_name);
	WNNC_OP_BEGIN(id < WNN_OP_COUNT ? wnn_ops[id].name : c_name)
	WNNC_OPTIONS(struct webnn_reduce_options, opt, o, WEBNN_REDUCE_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Reduce, id)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	if (opt.axes) {
		m->has_has_axes = m->has_axes = true;
		WNNC_TRY(list_arg(b, what, "axes", opt.axes, opt.n_axes, WNN_MAX_RANK, &m->n_axes,
				  &m->axes));
	}
	m->has_keep_dimensions = true;
	m->keep_dimensions = opt.keep_dimensions;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

#define WNNC_DEFINE_REDUCE_(name)                                                              \
	enum webnn_status webnn_builder_##name(struct webnn_builder *b, struct webnn_operand *x,  \
					       const struct webnn_reduce_options *o,            \
					       struct webnn_operand **out)                      \
	{                                                                                      \
		return reduce(b, #name, x, o, out);                                            \
	}
WEBNN_REDUCE_OPS(WNNC_DEFINE_REDUCE_)
#undef WNNC_DEFINE_REDUCE_

/* ---- resample2d */

enum webnn_status webnn_builder_resample2d(struct webnn_builder *b, struct webnn_operand *x,
					   const struct webnn_resample2d_options *o,
					   struct webnn_operand **out)
{
	WNNC_OP_BEGIN("resample2d")
	WNNC_OPTIONS(struct webnn_resample2d_options, opt, o, WEBNN_RESAMPLE2D_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_check_enum(b, what, "mode", (int)opt.mode, 2));
	if (opt.n_scales > 2) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
			      "%s: scales has %" PRIu32 " values, expected at most 2", what,
			      opt.n_scales);
		goto done;
	}
	WNNC_NEW_OP(m, Webnn__Ipc__Resample2d, WNN_OP_RESAMPLE2D)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	m->has_mode = true;
	m->mode = (Webnn__Ipc__InterpolationMode)opt.mode;
	if (opt.n_scales) {
		m->scales = wnnc_arena_dup(b, opt.scales, opt.n_scales * sizeof(float));
		if (!m->scales) {
			s = wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
			goto done;
		}
		m->n_scales = opt.n_scales;
	}
	WNNC_TRY(wnnc_opt_array(b, what, "sizes", opt.sizes, opt.n_sizes, 2, &m->n_sizes,
				&m->sizes));
	WNNC_TRY(wnnc_opt_array(b, what, "axes", opt.axes, opt.n_axes, 2, &m->n_axes, &m->axes));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

/* ---- reverse, slice */

enum webnn_status webnn_builder_reverse(struct webnn_builder *b, struct webnn_operand *x,
					const struct webnn_reverse_options *o,
					struct webnn_operand **out)
{
	WNNC_OP_BEGIN("reverse")
	WNNC_OPTIONS(struct webnn_reverse_options, opt, o, WEBNN_REVERSE_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Reverse, WNN_OP_REVERSE)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	if (opt.axes) {
		m->has_has_axes = m->has_axes = true;
		WNNC_TRY(list_arg(b, what, "axes", opt.axes, opt.n_axes, WNN_MAX_RANK, &m->n_axes,
				  &m->axes));
	}
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_slice(struct webnn_builder *b, struct webnn_operand *x,
				      const uint32_t *starts, uint32_t n_starts,
				      const uint32_t *sizes, uint32_t n_sizes,
				      const struct webnn_slice_options *o,
				      struct webnn_operand **out)
{
	WNNC_OP_BEGIN("slice")
	WNNC_OPTIONS(struct webnn_slice_options, opt, o, WEBNN_SLICE_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Slice, WNN_OP_SLICE)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(list_arg(b, what, "starts", starts, n_starts, WNN_MAX_RANK, &m->n_starts,
			  &m->starts));
	WNNC_TRY(list_arg(b, what, "sizes", sizes, n_sizes, WNN_MAX_RANK, &m->n_sizes,
			  &m->sizes));
	if (opt.strides)
		WNNC_TRY(list_arg(b, what, "strides", opt.strides, opt.n_strides, WNN_MAX_RANK,
				  &m->n_strides, &m->strides));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

/* ---- split */

static enum webnn_status split(struct webnn_builder *b, struct webnn_operand *x, bool by_count,
			       uint32_t count, const uint32_t *sizes, uint32_t n_sizes,
			       const struct webnn_split_options *o, struct webnn_operand **outs,
			       size_t max_outs, size_t *n_outs)
{
	WNNC_MULTI_BEGIN("split")
	WNNC_OPTIONS(struct webnn_split_options, opt, o, WEBNN_SPLIT_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	uint32_t parts = by_count ? count : n_sizes;
	if (parts > WNN_MAX_OUTPUTS) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
			      "%s: %" PRIu32 " outputs exceed the maximum of %d outputs", what,
			      parts, WNN_MAX_OUTPUTS);
		goto done;
	}
	WNNC_NEW_OP(m, Webnn__Ipc__Split, WNN_OP_SPLIT)
	m->input = x->id;
	if (by_count) {
		m->has_count = true;
		m->count = count;
	} else {
		WNNC_TRY(list_arg(b, what, "splits", sizes, n_sizes, WNN_MAX_OUTPUTS, &m->n_sizes,
				  &m->sizes));
	}
	m->has_axis = true;
	m->axis = opt.axis;
	/* No outputs for zero parts: the spec checks then report the invalid count. */
	WNNC_TRY(output_list(b, what, parts, &m->n_outputs, &m->outputs));
	s = wnnc_finish_n(b, what, op, outs, max_outs, n_outs);
	WNNC_MULTI_END
}

enum webnn_status webnn_builder_split(struct webnn_builder *b, struct webnn_operand *x,
				      uint32_t count, const struct webnn_split_options *o,
				      struct webnn_operand **outs, size_t max_outs, size_t *n_outs)
{
	return split(b, x, true, count, NULL, 0, o, outs, max_outs, n_outs);
}

enum webnn_status webnn_builder_split_sizes(struct webnn_builder *b, struct webnn_operand *x,
					    const uint32_t *sizes, uint32_t n_sizes,
					    const struct webnn_split_options *o,
					    struct webnn_operand **outs, size_t max_outs,
					    size_t *n_outs)
{
	return split(b, x, false, 0, sizes, n_sizes, o, outs, max_outs, n_outs);
}

/* ---- triangular */

enum webnn_status webnn_builder_triangular(struct webnn_builder *b, struct webnn_operand *x,
					   const struct webnn_triangular_options *o,
					   struct webnn_operand **out)
{
	WNNC_OP_BEGIN("triangular")
	WNNC_OPTIONS(struct webnn_triangular_options, opt, o, WEBNN_TRIANGULAR_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Triangular, WNN_OP_TRIANGULAR)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	m->has_upper = m->has_diagonal = true;
	m->upper = opt.upper;
	m->diagonal = opt.diagonal;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}
