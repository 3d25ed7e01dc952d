/* webnn-run's operators: one handler per attrs kind of ops.def reads that kind's options from JSON
 * and calls the builder; the operator list of webnn_ops.h ties every spec name to its handler. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <webnn_ops.h>

#include "run.h"

static const char *const layouts[] = { "nchw", "nhwc", NULL };
static const char *const directions[] = { "forward", "backward", "both", NULL };
static const char *const gru_layouts[] = { "zrn", "rzn", NULL };
static const char *const lstm_layouts[] = { "iofg", "ifgo", NULL };

/* An operator of a kind whose C signature webnn.h changed: a loud failure, never a silent pass. */
static bool no_function(struct replay *r)
{
	replay_fail(r, "webnn_builder function of an unexpected signature for its attrs kind");
	return false;
}

/* ---------------------------------------------------------------- elementwise */

static bool attrs_binary(struct replay *r, const struct run_op *op, struct op_call *c)
{
	if (!op->fn.binary)
		return no_function(r);
	if (!replay_want_args(r, c, 2, 2) || !opt_check(r, c->options, opt_none))
		return false;
	return replay_check_build(r, op->fn.binary(r->b, c->args[0].op, c->args[1].op, &c->out));
}

static bool attrs_ternary(struct replay *r, const struct run_op *op, struct op_call *c)
{
	if (!op->fn.ternary)
		return no_function(r);
	if (!replay_want_args(r, c, 3, 3) || !opt_check(r, c->options, opt_none))
		return false;
	return replay_check_build(r, op->fn.ternary(r->b, c->args[0].op, c->args[1].op, c->args[2].op,
				       &c->out));
}

/* Unary operators with scalar options alpha (and beta) each have their own options struct. */
static bool unary_scalar_options(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const alpha[] = { "alpha", NULL };
	static const char *const alpha_beta[] = { "alpha", "beta", NULL };
	bool beta = op->fn.hard_sigmoid || op->fn.linear;
	struct webnn_operand *x;
	if (!replay_want_args(r, c, 1, 1) || !opt_check(r, c->options, beta ? alpha_beta : alpha))
		return false;
	x = c->args[0].op;
	if (op->fn.elu) {
		struct webnn_elu_options o = WEBNN_ELU_OPTIONS_INIT;
		return opt_double(r, c->options, "alpha", &o.alpha) &&
		       replay_check_build(r, op->fn.elu(r->b, x, &o, &c->out));
	}
	if (op->fn.leaky_relu) {
		struct webnn_leaky_relu_options o = WEBNN_LEAKY_RELU_OPTIONS_INIT;
		return opt_double(r, c->options, "alpha", &o.alpha) &&
		       replay_check_build(r, op->fn.leaky_relu(r->b, x, &o, &c->out));
	}
	if (op->fn.hard_sigmoid) {
		struct webnn_hard_sigmoid_options o = WEBNN_HARD_SIGMOID_OPTIONS_INIT;
		return opt_double(r, c->options, "alpha", &o.alpha) &&
		       opt_double(r, c->options, "beta", &o.beta) &&
		       replay_check_build(r, op->fn.hard_sigmoid(r->b, x, &o, &c->out));
	}
	if (op->fn.linear) {
		struct webnn_linear_options o = WEBNN_LINEAR_OPTIONS_INIT;
		return opt_double(r, c->options, "alpha", &o.alpha) &&
		       opt_double(r, c->options, "beta", &o.beta) &&
		       replay_check_build(r, op->fn.linear(r->b, x, &o, &c->out));
	}
	return no_function(r);
}

static bool attrs_unary(struct replay *r, const struct run_op *op, struct op_call *c)
{
	if (!op->fn.unary)
		return unary_scalar_options(r, op, c);
	if (!replay_want_args(r, c, 1, 1) || !opt_check(r, c->options, opt_none))
		return false;
	return replay_check_build(r, op->fn.unary(r->b, c->args[0].op, &c->out));
}

static bool attrs_clamp(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "minValue", "maxValue", NULL };
	struct webnn_clamp_options o = WEBNN_CLAMP_OPTIONS_INIT;
	(void)op;
	if (!replay_want_args(r, c, 1, 1) || !opt_check(r, c->options, known) ||
	    !opt_number(r, c->options, "minValue", &o.min_number) ||
	    !opt_number(r, c->options, "maxValue", &o.max_number))
		return false;
	return replay_check_build(r, webnn_builder_clamp(r->b, c->args[0].op, &o, &c->out));
}

/* ---------------------------------------------------------------- cast and quantize */

static bool attrs_cast(struct replay *r, const struct run_op *op, struct op_call *c)
{
	enum webnn_data_type t;
	(void)op;
	if (!replay_want_args(r, c, 1, 2) || !opt_check(r, c->options, opt_none))
		return false;
	if (!replay_parse_dtype(json_string_value(c->args[1].value), &t)) {
		replay_fail(r, "data type %s not supported by libwebnn",
			json_is_string(c->args[1].value) ? json_string_value(c->args[1].value)
							 : "?");
		r->skip = true;
		return false;
	}
	return replay_check_build(r, webnn_builder_cast(r->b, c->args[0].op, t, &c->out));
}

/* ---------------------------------------------------------------- reduce */

static bool attrs_reduce(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "axes", "keepDimensions", NULL };
	struct webnn_reduce_options o = WEBNN_REDUCE_OPTIONS_INIT;
	uint32_t axes[WEBNN_MAX_RANK];
	bool has_axes;
	if (!op->fn.reduce)
		return no_function(r);
	if (!replay_want_args(r, c, 1, 1) || !opt_check(r, c->options, known) ||
	    !opt_list(r, c->options, "axes", axes, WEBNN_MAX_RANK, &o.n_axes, &has_axes) ||
	    !opt_bool(r, c->options, "keepDimensions", &o.keep_dimensions))
		return false;
	o.axes = has_axes ? axes : NULL;
	return replay_check_build(r, op->fn.reduce(r->b, c->args[0].op, &o, &c->out));
}

static bool attrs_arg_min_max(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "keepDimensions", "outputDataType", NULL };
	struct webnn_arg_min_max_options o = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
	uint32_t axis;
	if (!op->fn.arg_min_max)
		return no_function(r);
	if (!replay_want_args(r, c, 1, 2) || !opt_check(r, c->options, known) ||
	    !opt_arg_u32(r, c, 1, &axis) ||
	    !opt_bool(r, c->options, "keepDimensions", &o.keep_dimensions) ||
	    !opt_data_type(r, c->options, "outputDataType", &o.output_data_type))
		return false;
	return replay_check_build(r, op->fn.arg_min_max(r->b, c->args[0].op, axis, &o, &c->out));
}

static bool attrs_cumulative_sum(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "exclusive", "reversed", NULL };
	struct webnn_cumulative_sum_options o = WEBNN_CUMULATIVE_SUM_OPTIONS_INIT;
	uint32_t axis;
	(void)op;
	if (!replay_want_args(r, c, 1, 2) || !opt_check(r, c->options, known) ||
	    !opt_arg_u32(r, c, 1, &axis) || !opt_bool(r, c->options, "exclusive", &o.exclusive) ||
	    !opt_bool(r, c->options, "reversed", &o.reversed))
		return false;
	return replay_check_build(r, webnn_builder_cumulative_sum(r->b, c->args[0].op, axis, &o, &c->out));
}

/* ---------------------------------------------------------------- normalization */

static bool attrs_batch_normalization(struct replay *r, const struct run_op *op,
				      struct op_call *c)
{
	static const char *const known[] = { "scale", "bias", "axis", "epsilon", NULL };
	struct webnn_batch_normalization_options o = WEBNN_BATCH_NORMALIZATION_OPTIONS_INIT;
	json_t *axis = json_object_get(c->options, "axis");
	(void)op;
	if (!replay_want_args(r, c, 3, 3) || !opt_check(r, c->options, known) ||
	    !opt_operand(r, c->options, "scale", &o.scale) ||
	    !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_double(r, c->options, "epsilon", &o.epsilon))
		return false;
	if (axis && !replay_json_u32(axis, &o.axis)) {
		replay_fail(r, "option axis is not an unsigned integer");
		return false;
	}
	return replay_check_build(r, webnn_builder_batch_normalization(r->b, c->args[0].op, c->args[1].op,
							  c->args[2].op, &o, &c->out));
}

static bool attrs_instance_normalization(struct replay *r, const struct run_op *op,
					 struct op_call *c)
{
	static const char *const known[] = { "scale", "bias", "epsilon", "layout", NULL };
	struct webnn_instance_normalization_options o = WEBNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
	int layout = (int)o.layout;
	(void)op;
	if (!replay_want_args(r, c, 1, 1) || !opt_check(r, c->options, known) ||
	    !opt_operand(r, c->options, "scale", &o.scale) ||
	    !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_double(r, c->options, "epsilon", &o.epsilon) ||
	    !opt_enum(r, c->options, "layout", layouts, &layout))
		return false;
	o.layout = (enum webnn_layout)layout;
	return replay_check_build(r, webnn_builder_instance_normalization(r->b, c->args[0].op, &o, &c->out));
}

static bool attrs_layer_normalization(struct replay *r, const struct run_op *op,
				      struct op_call *c)
{
	static const char *const known[] = { "scale", "bias", "axes", "epsilon", NULL };
	struct webnn_layer_normalization_options o = WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT;
	uint32_t axes[WEBNN_MAX_RANK];
	bool has_axes;
	(void)op;
	if (!replay_want_args(r, c, 1, 1) || !opt_check(r, c->options, known) ||
	    !opt_operand(r, c->options, "scale", &o.scale) ||
	    !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_list(r, c->options, "axes", axes, WEBNN_MAX_RANK, &o.n_axes, &has_axes) ||
	    !opt_double(r, c->options, "epsilon", &o.epsilon))
		return false;
	o.axes = has_axes ? axes : NULL;
	return replay_check_build(r, webnn_builder_layer_normalization(r->b, c->args[0].op, &o, &c->out));
}

static bool attrs_softmax(struct replay *r, const struct run_op *op, struct op_call *c)
{
	uint32_t axis;
	(void)op;
	if (!replay_want_args(r, c, 1, 2) || !opt_check(r, c->options, opt_none))
		return false;
	if (!replay_json_u32(c->args[1].value, &axis)) {
		replay_fail(r, "axis is not an unsigned integer");
		return false;
	}
	return replay_check_build(r, webnn_builder_softmax(r->b, c->args[0].op, axis, &c->out));
}

/* ---------------------------------------------------------------- conv and pool */

static bool attrs_conv2d(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "padding", "strides", "dilations", "groups",
					     "inputLayout", "filterLayout", "bias", NULL };
	static const char *const filter_layouts[] = { "oihw", "hwio", "ohwi", "ihwo", NULL };
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	int il = (int)o.input_layout, fl = (int)o.filter_layout;
	(void)op;
	if (!replay_want_args(r, c, 2, 2) || !opt_check(r, c->options, known) ||
	    !opt_u32_array(r, c->options, "padding", o.padding, 4, &o.n_padding) ||
	    !opt_u32_array(r, c->options, "strides", o.strides, 2, &o.n_strides) ||
	    !opt_u32_array(r, c->options, "dilations", o.dilations, 2, &o.n_dilations) ||
	    !opt_enum(r, c->options, "inputLayout", layouts, &il) ||
	    !opt_enum(r, c->options, "filterLayout", filter_layouts, &fl) ||
	    !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_u32(r, c->options, "groups", &o.groups))
		return false;
	o.input_layout = (enum webnn_layout)il;
	o.filter_layout = (enum webnn_conv2d_filter_layout)fl;
	return replay_check_build(r, webnn_builder_conv2d(r->b, c->args[0].op, c->args[1].op, &o, &c->out));
}

static bool attrs_conv_transpose2d(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "padding", "strides", "dilations", "outputPadding",
					     "outputSizes", "groups", "inputLayout",
					     "filterLayout", "bias", NULL };
	static const char *const filter_layouts[] = { "iohw", "hwoi", "ohwi", NULL };
	struct webnn_conv_transpose2d_options o = WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
	int il = (int)o.input_layout, fl = (int)o.filter_layout;
	(void)op;
	if (!replay_want_args(r, c, 2, 2) || !opt_check(r, c->options, known) ||
	    !opt_u32_array(r, c->options, "padding", o.padding, 4, &o.n_padding) ||
	    !opt_u32_array(r, c->options, "strides", o.strides, 2, &o.n_strides) ||
	    !opt_u32_array(r, c->options, "dilations", o.dilations, 2, &o.n_dilations) ||
	    !opt_u32_array(r, c->options, "outputPadding", o.output_padding, 2,
			   &o.n_output_padding) ||
	    !opt_u32_array(r, c->options, "outputSizes", o.output_sizes, 2, &o.n_output_sizes) ||
	    !opt_u32(r, c->options, "groups", &o.groups) ||
	    !opt_enum(r, c->options, "inputLayout", layouts, &il) ||
	    !opt_enum(r, c->options, "filterLayout", filter_layouts, &fl) ||
	    !opt_operand(r, c->options, "bias", &o.bias))
		return false;
	o.input_layout = (enum webnn_layout)il;
	o.filter_layout = (enum webnn_conv_transpose2d_filter_layout)fl;
	return replay_check_build(r, webnn_builder_conv_transpose2d(r->b, c->args[0].op, c->args[1].op, &o,
						       &c->out));
}

static bool attrs_pool2d(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "windowDimensions", "padding", "strides", "dilations",
					     "layout", "outputShapeRounding", "outputSizes", NULL };
	static const char *const roundings[] = { "floor", "ceil", NULL };
	struct webnn_pool2d_options o = WEBNN_POOL2D_OPTIONS_INIT;
	int layout = (int)o.layout, rounding = (int)o.output_shape_rounding;
	if (!op->fn.pool)
		return no_function(r);
	if (!replay_want_args(r, c, 1, 1) || !opt_check(r, c->options, known) ||
	    !opt_u32_array(r, c->options, "windowDimensions", o.window_dimensions, 2,
			   &o.n_window_dimensions) ||
	    !opt_u32_array(r, c->options, "padding", o.padding, 4, &o.n_padding) ||
	    !opt_u32_array(r, c->options, "strides", o.strides, 2, &o.n_strides) ||
	    !opt_u32_array(r, c->options, "dilations", o.dilations, 2, &o.n_dilations) ||
	    !opt_u32_array(r, c->options, "outputSizes", o.output_sizes, 2, &o.n_output_sizes) ||
	    !opt_enum(r, c->options, "layout", layouts, &layout) ||
	    !opt_enum(r, c->options, "outputShapeRounding", roundings, &rounding))
		return false;
	o.layout = (enum webnn_layout)layout;
	o.output_shape_rounding = (enum webnn_rounding)rounding;
	return replay_check_build(r, op->fn.pool(r->b, c->args[0].op, &o, &c->out));
}

/* ---------------------------------------------------------------- linalg */

static bool attrs_gemm(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "c", "alpha", "beta", "aTranspose", "bTranspose",
					     NULL };
	struct webnn_gemm_options o = WEBNN_GEMM_OPTIONS_INIT;
	(void)op;
	if (!replay_want_args(r, c, 2, 2) || !opt_check(r, c->options, known) ||
	    !opt_operand(r, c->options, "c", &o.c) ||
	    !opt_double(r, c->options, "alpha", &o.alpha) ||
	    !opt_double(r, c->options, "beta", &o.beta) ||
	    !opt_bool(r, c->options, "aTranspose", &o.a_transpose) ||
	    !opt_bool(r, c->options, "bTranspose", &o.b_transpose))
		return false;
	return replay_check_build(r, webnn_builder_gemm(r->b, c->args[0].op, c->args[1].op, &o, &c->out));
}

/* ---------------------------------------------------------------- data movement */

static bool attrs_concat(struct replay *r, const struct run_op *op, struct op_call *c)
{
	uint32_t axis;
	(void)op;
	if (!replay_want_args(r, c, 0, 2) || !opt_check(r, c->options, opt_none))
		return false;
	json_t *list = c->args[0].value;
	if (!json_is_array(list)) {
		replay_fail(r, "inputs is not an array");
		return false;
	}
	if (!replay_json_u32(c->args[1].value, &axis)) {
		replay_fail(r, "axis is not an unsigned integer");
		return false;
	}
	size_t n = json_array_size(list);
	struct webnn_operand **ops = calloc(n ? n : 1, sizeof(*ops));
	if (!ops) {
		replay_fail(r, "out of memory");
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		bool error;
		ops[i] = replay_operand_arg(r, json_array_get(list, i), &error);
		if (!ops[i]) {
			if (!error) {
				char what[32];
				snprintf(what, sizeof(what), "inputs[%zu]", i);
				replay_not_operand(r, what, json_array_get(list, i));
			}
			free(ops);
			return false;
		}
	}
	bool ok = replay_check_build(r, webnn_builder_concat(r->b, ops, n, axis, &c->out));
	free(ops);
	return ok;
}

/* reshape, expand, tile: an input and a list of dimensions. */
static bool attrs_shape(struct replay *r, const struct run_op *op, struct op_call *c)
{
	uint32_t shape[WEBNN_MAX_RANK], n;
	if (!op->fn.shape)
		return no_function(r);
	if (!replay_want_args(r, c, 1, 2) || !opt_check(r, c->options, opt_none) ||
	    !opt_parse_u32_array(r, c->args[1].value, c->args[1].key, shape, WEBNN_MAX_RANK, &n))
		return false;
	return replay_check_build(r, op->fn.shape(r->b, c->args[0].op, shape, n, &c->out));
}

static bool attrs_transpose(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "permutation", NULL };
	uint32_t perm[WEBNN_MAX_RANK], n = 0;
	json_t *p = json_object_get(c->options, "permutation");
	(void)op;
	if (!replay_want_args(r, c, 1, 1) || !opt_check(r, c->options, known) ||
	    (p && !opt_parse_u32_array(r, p, "permutation", perm, WEBNN_MAX_RANK, &n)))
		return false;
	return replay_check_build(r, webnn_builder_transpose(r->b, c->args[0].op, p ? perm : NULL, n, &c->out));
}

static bool attrs_pad(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "mode", "value", NULL };
	static const char *const modes[] = { "constant", "edge", "reflection", NULL };
	struct webnn_pad_options o = WEBNN_PAD_OPTIONS_INIT;
	uint32_t begin[WEBNN_MAX_RANK], end[WEBNN_MAX_RANK], nb, ne;
	int mode = (int)o.mode;
	(void)op;
	if (!replay_want_args(r, c, 1, 3) || !opt_check(r, c->options, known) ||
	    !opt_parse_u32_array(r, c->args[1].value, "beginningPadding", begin, WEBNN_MAX_RANK, &nb) ||
	    !opt_parse_u32_array(r, c->args[2].value, "endingPadding", end, WEBNN_MAX_RANK, &ne) ||
	    !opt_enum(r, c->options, "mode", modes, &mode) ||
	    !opt_number(r, c->options, "value", &o.value_number))
		return false;
	o.mode = (enum webnn_padding_mode)mode;
	return replay_check_build(r, webnn_builder_pad(r->b, c->args[0].op, begin, nb, end, ne, &o, &c->out));
}

static bool attrs_reverse(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "axes", NULL };
	struct webnn_reverse_options o = WEBNN_REVERSE_OPTIONS_INIT;
	uint32_t axes[WEBNN_MAX_RANK];
	bool has_axes;
	(void)op;
	if (!replay_want_args(r, c, 1, 1) || !opt_check(r, c->options, known) ||
	    !opt_list(r, c->options, "axes", axes, WEBNN_MAX_RANK, &o.n_axes, &has_axes))
		return false;
	o.axes = has_axes ? axes : NULL;
	return replay_check_build(r, webnn_builder_reverse(r->b, c->args[0].op, &o, &c->out));
}

static bool attrs_slice(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "strides", NULL };
	struct webnn_slice_options o = WEBNN_SLICE_OPTIONS_INIT;
	uint32_t starts[WEBNN_MAX_RANK], sizes[WEBNN_MAX_RANK], strides[WEBNN_MAX_RANK], ns, nz;
	bool has_strides;
	(void)op;
	if (!replay_want_args(r, c, 1, 3) || !opt_check(r, c->options, known) ||
	    !opt_parse_u32_array(r, c->args[1].value, "starts", starts, WEBNN_MAX_RANK, &ns) ||
	    !opt_parse_u32_array(r, c->args[2].value, "sizes", sizes, WEBNN_MAX_RANK, &nz) ||
	    !opt_list(r, c->options, "strides", strides, WEBNN_MAX_RANK, &o.n_strides,
		      &has_strides))
		return false;
	o.strides = has_strides ? strides : NULL;
	return replay_check_build(r, webnn_builder_slice(r->b, c->args[0].op, starts, ns, sizes, nz, &o,
					    &c->out));
}

/* splits: a count of equal parts, or the list of their sizes. */
static bool attrs_split(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "axis", NULL };
	struct webnn_split_options o = WEBNN_SPLIT_OPTIONS_INIT;
	uint32_t sizes[MAX_OUTS], n, count;
	json_t *splits = c->args[1].value;
	(void)op;
	if (!replay_want_args(r, c, 1, 2) || !opt_check(r, c->options, known) ||
	    !opt_u32(r, c->options, "axis", &o.axis))
		return false;
	if (json_is_array(splits)) {
		if (!opt_parse_u32_array(r, splits, "splits", sizes, MAX_OUTS, &n))
			return false;
		return replay_check_build(r, webnn_builder_split_sizes(r->b, c->args[0].op, sizes, n, &o,
							  c->outs, MAX_OUTS, &c->n_outs));
	}
	if (!opt_arg_u32(r, c, 1, &count))
		return false;
	return replay_check_build(r, webnn_builder_split(r->b, c->args[0].op, count, &o, c->outs, MAX_OUTS,
					    &c->n_outs));
}

static bool attrs_triangular(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "upper", "diagonal", NULL };
	struct webnn_triangular_options o = WEBNN_TRIANGULAR_OPTIONS_INIT;
	json_t *diag = json_object_get(c->options, "diagonal");
	(void)op;
	if (!replay_want_args(r, c, 1, 1) || !opt_check(r, c->options, known) ||
	    !opt_bool(r, c->options, "upper", &o.upper))
		return false;
	if (diag) {
		double d = json_number_value(diag);
		if (!json_is_number(diag) || d != floor(d) || d < INT32_MIN || d > INT32_MAX) {
			replay_fail(r, "option diagonal is not a 32-bit integer");
			return false;
		}
		o.diagonal = (int32_t)d;
	}
	return replay_check_build(r, webnn_builder_triangular(r->b, c->args[0].op, &o, &c->out));
}

/* ---------------------------------------------------------------- gather and scatter */

/* gather, gatherElements (options.axis) and gatherND (no options). */
static bool attrs_gather(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "axis", NULL };
	struct webnn_gather_options o = WEBNN_GATHER_OPTIONS_INIT;
	if (!op->fn.gather)
		return attrs_binary(r, op, c);
	if (!replay_want_args(r, c, 2, 2) || !opt_check(r, c->options, known) ||
	    !opt_u32(r, c->options, "axis", &o.axis))
		return false;
	return replay_check_build(r, op->fn.gather(r->b, c->args[0].op, c->args[1].op, &o, &c->out));
}

/* scatterElements (options.axis) and scatterND (no options). */
static bool attrs_scatter(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "axis", NULL };
	struct webnn_scatter_options o = WEBNN_SCATTER_OPTIONS_INIT;
	if (!op->fn.scatter)
		return attrs_ternary(r, op, c);
	if (!replay_want_args(r, c, 3, 3) || !opt_check(r, c->options, known) ||
	    !opt_u32(r, c->options, "axis", &o.axis))
		return false;
	return replay_check_build(r, op->fn.scatter(r->b, c->args[0].op, c->args[1].op, c->args[2].op, &o,
				       &c->out));
}

/* ---------------------------------------------------------------- rnn */

/* gru and lstm read their arguments and options in this order: first (input, weight,
 * recurrentWeight, steps, hiddenSize, bias, recurrentBias) ... */
static bool rnn_head(struct replay *r, struct op_call *c, const char *const *known,
		     uint32_t *steps, uint32_t *hidden, struct webnn_operand **bias,
		     struct webnn_operand **recurrent_bias)
{
	return replay_want_args(r, c, 3, 5) && opt_check(r, c->options, known) &&
	       opt_arg_u32(r, c, 3, steps) && opt_arg_u32(r, c, 4, hidden) &&
	       opt_operand(r, c->options, "bias", bias) &&
	       opt_operand(r, c->options, "recurrentBias", recurrent_bias);
}

/* ... then their own options, then these (returnSequence, direction, layout, activations). */
static bool rnn_tail(struct replay *r, struct op_call *c, bool *return_sequence, int *dir,
		     const char *const *layouts, int *layout,
		     enum webnn_recurrent_activation *activations, uint32_t max_activations,
		     uint32_t *n_activations)
{
	return opt_bool(r, c->options, "returnSequence", return_sequence) &&
	       opt_enum(r, c->options, "direction", directions, dir) &&
	       opt_enum(r, c->options, "layout", layouts, layout) &&
	       opt_activations(r, c->options, activations, max_activations, n_activations);
}

static bool attrs_gru(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "bias", "recurrentBias", "initialHiddenState",
					     "resetAfter", "returnSequence", "direction",
					     "layout", "activations", NULL };
	struct webnn_gru_options o = WEBNN_GRU_OPTIONS_INIT;
	int dir = (int)o.direction, layout = (int)o.layout;
	uint32_t steps, hidden;
	(void)op;
	if (!rnn_head(r, c, known, &steps, &hidden, &o.bias, &o.recurrent_bias) ||
	    !opt_operand(r, c->options, "initialHiddenState", &o.initial_hidden_state) ||
	    !opt_bool(r, c->options, "resetAfter", &o.reset_after) ||
	    !rnn_tail(r, c, &o.return_sequence, &dir, gru_layouts, &layout, o.activations, 2,
		      &o.n_activations))
		return false;
	o.direction = (enum webnn_recurrent_direction)dir;
	o.layout = (enum webnn_gru_weight_layout)layout;
	return replay_check_build(r, webnn_builder_gru(r->b, c->args[0].op, c->args[1].op, c->args[2].op,
					  steps, hidden, &o, c->outs, MAX_OUTS, &c->n_outs));
}

static bool attrs_gru_cell(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "bias", "recurrentBias", "resetAfter", "layout",
					     "activations", NULL };
	struct webnn_gru_cell_options o = WEBNN_GRU_CELL_OPTIONS_INIT;
	int layout = (int)o.layout;
	uint32_t hidden;
	(void)op;
	if (!replay_want_args(r, c, 4, 5) || !opt_check(r, c->options, known) ||
	    !opt_arg_u32(r, c, 4, &hidden) || !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_operand(r, c->options, "recurrentBias", &o.recurrent_bias) ||
	    !opt_bool(r, c->options, "resetAfter", &o.reset_after) ||
	    !opt_enum(r, c->options, "layout", gru_layouts, &layout) ||
	    !opt_activations(r, c->options, o.activations, 2, &o.n_activations))
		return false;
	o.layout = (enum webnn_gru_weight_layout)layout;
	return replay_check_build(r, webnn_builder_gru_cell(r->b, c->args[0].op, c->args[1].op, c->args[2].op,
					       c->args[3].op, hidden, &o, &c->out));
}

static bool attrs_lstm(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "bias", "recurrentBias", "peepholeWeight",
					     "initialHiddenState", "initialCellState",
					     "returnSequence", "direction", "layout",
					     "activations", NULL };
	struct webnn_lstm_options o = WEBNN_LSTM_OPTIONS_INIT;
	int dir = (int)o.direction, layout = (int)o.layout;
	uint32_t steps, hidden;
	(void)op;
	if (!rnn_head(r, c, known, &steps, &hidden, &o.bias, &o.recurrent_bias) ||
	    !opt_operand(r, c->options, "peepholeWeight", &o.peephole_weight) ||
	    !opt_operand(r, c->options, "initialHiddenState", &o.initial_hidden_state) ||
	    !opt_operand(r, c->options, "initialCellState", &o.initial_cell_state) ||
	    !rnn_tail(r, c, &o.return_sequence, &dir, lstm_layouts, &layout, o.activations, 3,
		      &o.n_activations))
		return false;
	o.direction = (enum webnn_recurrent_direction)dir;
	o.layout = (enum webnn_lstm_weight_layout)layout;
	return replay_check_build(r, webnn_builder_lstm(r->b, c->args[0].op, c->args[1].op, c->args[2].op,
					   steps, hidden, &o, c->outs, MAX_OUTS, &c->n_outs));
}

static bool attrs_lstm_cell(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "bias", "recurrentBias", "peepholeWeight", "layout",
					     "activations", NULL };
	struct webnn_lstm_cell_options o = WEBNN_LSTM_CELL_OPTIONS_INIT;
	int layout = (int)o.layout;
	uint32_t hidden;
	(void)op;
	if (!replay_want_args(r, c, 5, 6) || !opt_check(r, c->options, known) ||
	    !opt_arg_u32(r, c, 5, &hidden) || !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_operand(r, c->options, "recurrentBias", &o.recurrent_bias) ||
	    !opt_operand(r, c->options, "peepholeWeight", &o.peephole_weight) ||
	    !opt_enum(r, c->options, "layout", lstm_layouts, &layout) ||
	    !opt_activations(r, c->options, o.activations, 3, &o.n_activations))
		return false;
	o.layout = (enum webnn_lstm_weight_layout)layout;
	return replay_check_build(r, webnn_builder_lstm_cell(r->b, c->args[0].op, c->args[1].op,
						c->args[2].op, c->args[3].op, c->args[4].op, hidden,
						&o, c->outs, MAX_OUTS, &c->n_outs));
}

/* ---------------------------------------------------------------- resample */

static bool attrs_resample2d(struct replay *r, const struct run_op *op, struct op_call *c)
{
	static const char *const known[] = { "mode", "scales", "sizes", "axes", NULL };
	static const char *const modes[] = { "nearest-neighbor", "linear", NULL };
	struct webnn_resample2d_options o = WEBNN_RESAMPLE2D_OPTIONS_INIT;
	int mode = (int)o.mode;
	bool present;
	json_t *scales = json_object_get(c->options, "scales");
	(void)op;
	if (!replay_want_args(r, c, 1, 1) || !opt_check(r, c->options, known) ||
	    !opt_enum(r, c->options, "mode", modes, &mode) ||
	    !opt_list(r, c->options, "sizes", o.sizes, 2, &o.n_sizes, &present) ||
	    !opt_list(r, c->options, "axes", o.axes, 2, &o.n_axes, &present))
		return false;
	if (scales) {
		if (!json_is_array(scales) || json_array_size(scales) > 2) {
			replay_fail(r, "option scales must be a list of at most 2 numbers");
			return false;
		}
		for (size_t i = 0; i < json_array_size(scales); i++) {
			double d;
			if (!replay_json_double(json_array_get(scales, i), &d)) {
				replay_fail(r, "scales[%zu] is not a number", i);
				return false;
			}
			o.scales[i] = (float)d;
		}
		o.n_scales = (uint32_t)json_array_size(scales);
	}
	o.mode = (enum webnn_interpolation_mode)mode;
	return replay_check_build(r, webnn_builder_resample2d(r->b, c->args[0].op, &o, &c->out));
}

/* ---------------------------------------------------------------- the operator list */

/* The handler of each attrs kind (the ATTRS column of ops.def): a new kind fails to compile
 * here until it has one. A new operator of an existing kind needs no edit in this tool. */
#define ATTRS_BINARY attrs_binary
#define ATTRS_UNARY attrs_unary
#define ATTRS_CLAMP attrs_clamp
#define ATTRS_CAST attrs_cast
#define ATTRS_ARG_MIN_MAX attrs_arg_min_max
#define ATTRS_BATCH_NORMALIZATION attrs_batch_normalization
#define ATTRS_INSTANCE_NORMALIZATION attrs_instance_normalization
#define ATTRS_LAYER_NORMALIZATION attrs_layer_normalization
#define ATTRS_CONCAT attrs_concat
#define ATTRS_CONV2D attrs_conv2d
#define ATTRS_CONV_TRANSPOSE2D attrs_conv_transpose2d
#define ATTRS_CUMULATIVE_SUM attrs_cumulative_sum
#define ATTRS_QUANTIZE_LINEAR attrs_ternary
#define ATTRS_EXPAND attrs_shape
#define ATTRS_GATHER attrs_gather
#define ATTRS_SCATTER attrs_scatter
#define ATTRS_GEMM attrs_gemm
#define ATTRS_MATMUL attrs_binary
#define ATTRS_GRU attrs_gru
#define ATTRS_GRU_CELL attrs_gru_cell
#define ATTRS_LSTM attrs_lstm
#define ATTRS_LSTM_CELL attrs_lstm_cell
#define ATTRS_PAD attrs_pad
#define ATTRS_POOL2D attrs_pool2d
#define ATTRS_PRELU attrs_binary
#define ATTRS_REDUCE attrs_reduce
#define ATTRS_RESAMPLE2D attrs_resample2d
#define ATTRS_RESHAPE attrs_shape
#define ATTRS_REVERSE attrs_reverse
#define ATTRS_SLICE attrs_slice
#define ATTRS_SOFTMAX attrs_softmax
#define ATTRS_SPLIT attrs_split
#define ATTRS_TILE attrs_shape
#define ATTRS_TRANSPOSE attrs_transpose
#define ATTRS_TRIANGULAR attrs_triangular
#define ATTRS_WHERE attrs_ternary

#define RUN_OP_(spec, c, FAMILY, ATTRS) { #spec, ATTRS_##ATTRS, WEBNN_BUILDER_FNS(c) },
static const struct run_op run_ops[] = { WEBNN_OPERATORS(RUN_OP_) };
#undef RUN_OP_

const struct run_op *attrs_find_op(const char *spec_name)
{
	for (size_t i = 0; i < sizeof(run_ops) / sizeof(run_ops[0]); i++)
		if (strcmp(run_ops[i].spec_name, spec_name) == 0)
			return &run_ops[i];
	return NULL;
}

/* The known operator nearest to a misspelt name, or NULL. */
static const char *attrs_nearest_op(const char *spec_name)
{
	const char *names[sizeof(run_ops) / sizeof(run_ops[0])];
	for (size_t i = 0; i < sizeof(run_ops) / sizeof(run_ops[0]); i++)
		names[i] = run_ops[i].spec_name;
	return replay_nearest_name(spec_name, names, sizeof(run_ops) / sizeof(run_ops[0]));
}

/* libwebnn has every operator of the spec, so a name it lacks is a mistake in the case. */
void attrs_unknown_op(struct replay *r, const char *spec_name)
{
	const char *near = attrs_nearest_op(spec_name);
	const char *saved = r->op_name;
	r->op_name = NULL; /* the name leads the message as written */
	if (near)
		replay_fail(r, "%s: unknown operator (did you mean %s?)", spec_name, near);
	else
		replay_fail(r, "%s: unknown operator (not an MLGraphBuilder method)", spec_name);
	r->op_name = saved;
}
