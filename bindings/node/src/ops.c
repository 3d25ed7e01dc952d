/* MLGraphBuilder's operators: one handler per attrs kind of ops.def reads the JavaScript arguments
 * and options and calls libwebnn; the operator list generated from ops.def ties each method to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webnn_ops.h>

#include "addon.h"

#define MAX_ARGS 8
#define MAX_OUTS 64


/* One call: the builder, the operator and its JavaScript arguments (undefined past argc). */
struct call {
	napi_env env;
	struct wnn_obj *b;
	const struct node_op *op;
	napi_value a[MAX_ARGS];
	uint32_t argc;
	struct webnn_operand *out;
	struct webnn_operand *outs[MAX_OUTS];
	size_t n_outs;
	bool sequence;
};

struct node_op {
	const char *name;
	bool (*build)(struct call *c);
	struct webnn_builder_fns fn;
};

static bool done(struct call *c, enum webnn_status s)
{
	if (s != WEBNN_STATUS_OK) {
		wnn_throw_status(c->env, c->b->owner, s);
		return false;
	}
	return true;
}

static bool operand(struct call *c, uint32_t i, const char *what, struct webnn_operand **out)
{
	char w[96];
	snprintf(w, sizeof(w), "%s: %s", c->op->name, what);
	return wnn_get_operand(c->env, c->a[i], w, out);
}

static bool arg_u32(struct call *c, uint32_t i, const char *what, uint32_t *out)
{
	char w[96];
	snprintf(w, sizeof(w), "%s: %s", c->op->name, what);
	return wnn_get_u32(c->env, c->a[i], w, out);
}

static bool arg_list(struct call *c, uint32_t i, const char *what, uint32_t *out, uint32_t max,
		     uint32_t *n)
{
	char w[96];
	snprintf(w, sizeof(w), "%s: %s", c->op->name, what);
	return wnn_get_u32_list(c->env, c->a[i], w, out, max, n);
}

/* ---- options: o is the options argument; each reader leaves *out as is when absent. */

static bool opt_f64(struct call *c, napi_value o, const char *key, double *out)
{
	napi_value v;
	bool has;
	char w[96];
	snprintf(w, sizeof(w), "%s: options.%s", c->op->name, key);
	return wnn_member(c->env, o, key, &v, &has) && (!has || wnn_get_f64(c->env, v, w, out));
}

static bool opt_u32(struct call *c, napi_value o, const char *key, uint32_t *out)
{
	napi_value v;
	bool has;
	char w[96];
	snprintf(w, sizeof(w), "%s: options.%s", c->op->name, key);
	return wnn_member(c->env, o, key, &v, &has) && (!has || wnn_get_u32(c->env, v, w, out));
}

static bool opt_bool(struct call *c, napi_value o, const char *key, bool *out)
{
	napi_value v;
	bool has;
	if (!wnn_member(c->env, o, key, &v, &has))
		return false;
	if (has && (napi_coerce_to_bool(c->env, v, &v) != napi_ok ||
		    napi_get_value_bool(c->env, v, out) != napi_ok)) {
		wnn_throw_last(c->env);
		return false;
	}
	return true;
}

/* A fixed-length list (padding, strides ...): *n stays 0 when absent. */
static bool opt_fixed(struct call *c, napi_value o, const char *key, uint32_t *out, uint32_t len,
		      uint32_t *n)
{
	napi_value v;
	bool has;
	char w[96];
	snprintf(w, sizeof(w), "%s: options.%s", c->op->name, key);
	*n = 0;
	if (!wnn_member(c->env, o, key, &v, &has))
		return false;
	if (!has)
		return true;
	uint32_t tmp[WEBNN_MAX_RANK];
	if (!wnn_get_u32_list(c->env, v, w, tmp, WEBNN_MAX_RANK, n))
		return false;
	if (*n != len) {
		wnn_throw(c->env, "TypeError", "%s has %u entries, expected %u", w, *n, len);
		return false;
	}
	memcpy(out, tmp, len * sizeof(*out));
	return true;
}

/* A variable-length list: *present says whether it was given (an empty list differs). */
static bool opt_list(struct call *c, napi_value o, const char *key, uint32_t *out, uint32_t max,
		     uint32_t *n, bool *present)
{
	napi_value v;
	char w[96];
	snprintf(w, sizeof(w), "%s: options.%s", c->op->name, key);
	*n = 0;
	return wnn_member(c->env, o, key, &v, present) &&
	       (!*present || wnn_get_u32_list(c->env, v, w, out, max, n));
}

static bool opt_enum(struct call *c, napi_value o, const char *key, const char *const *names,
		     int *out)
{
	napi_value v;
	bool has;
	char s[64], w[96];
	snprintf(w, sizeof(w), "%s: options.%s", c->op->name, key);
	if (!wnn_member(c->env, o, key, &v, &has))
		return false;
	if (!has)
		return true;
	if (!wnn_get_string(c->env, v, w, s, sizeof(s)))
		return false;
	for (int i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return true;
		}
	wnn_throw(c->env, "TypeError", "%s: \"%s\" is not a valid value", w, s);
	return false;
}

static bool opt_operand(struct call *c, napi_value o, const char *key, struct webnn_operand **out)
{
	napi_value v;
	bool has;
	char w[96];
	snprintf(w, sizeof(w), "%s: options.%s", c->op->name, key);
	return wnn_member(c->env, o, key, &v, &has) &&
	       (!has || wnn_get_operand(c->env, v, w, out));
}

/* An MLNumber: a Number, or a BigInt kept exact (saturating beyond 64 bits). */
static bool opt_number(struct call *c, napi_value o, const char *key, struct webnn_number *out)
{
	napi_value v;
	bool has;
	napi_valuetype t;
	char w[96];
	snprintf(w, sizeof(w), "%s: options.%s", c->op->name, key);
	if (!wnn_member(c->env, o, key, &v, &has))
		return false;
	if (!has)
		return true;
	if (napi_typeof(c->env, v, &t) != napi_ok)
		return false;
	if (t == napi_bigint) {
		int64_t i;
		uint64_t u;
		bool lossless;
		if (napi_get_value_bigint_int64(c->env, v, &i, &lossless) != napi_ok)
			return false;
		if (lossless) {
			*out = WEBNN_NUMBER_I64(i);
			return true;
		}
		/* Beyond int64: negative saturates low; positive is uint64 or saturates high. */
		int sign = 0;
		size_t words = 4;
		uint64_t buf[4];
		if (napi_get_value_bigint_words(c->env, v, &sign, &words, buf) != napi_ok)
			return false;
		if (sign) {
			*out = WEBNN_NUMBER_I64(INT64_MIN);
			return true;
		}
		napi_get_value_bigint_uint64(c->env, v, &u, &lossless);
		*out = WEBNN_NUMBER_U64(lossless ? u : UINT64_MAX);
		return true;
	}
	double d;
	if (!wnn_get_f64(c->env, v, w, &d))
		return false;
	*out = WEBNN_NUMBER_F64(d);
	return true;
}

static bool opt_data_type(struct call *c, napi_value o, const char *key, enum webnn_data_type *t)
{
	napi_value v;
	bool has;
	char w[96];
	snprintf(w, sizeof(w), "%s: options.%s", c->op->name, key);
	return wnn_member(c->env, o, key, &v, &has) &&
	       (!has || wnn_get_data_type(c->env, v, w, t));
}

static bool opt_activations(struct call *c, napi_value o, enum webnn_recurrent_activation *out,
			    uint32_t max, uint32_t *n)
{
	static const char *const names[] = { "relu", "sigmoid", "tanh", NULL };
	napi_value v;
	bool has, is_array;
	uint32_t len;
	*n = 0;
	if (!wnn_member(c->env, o, "activations", &v, &has))
		return false;
	if (!has)
		return true;
	if (napi_is_array(c->env, v, &is_array) != napi_ok || !is_array ||
	    napi_get_array_length(c->env, v, &len) != napi_ok || len > max) {
		wnn_throw(c->env, "TypeError",
			  "%s: options.activations must be a sequence of at most %u names",
			  c->op->name, max);
		return false;
	}
	for (uint32_t i = 0; i < len; i++) {
		napi_value e;
		char s[32];
		if (napi_get_element(c->env, v, i, &e) != napi_ok ||
		    !wnn_get_string(c->env, e, "activation", s, sizeof(s)))
			return false;
		int k = 0;
		while (names[k] && strcmp(names[k], s) != 0)
			k++;
		if (!names[k]) {
			wnn_throw(c->env, "TypeError",
				  "%s: \"%s\" is not a valid MLRecurrentNetworkActivation",
				  c->op->name, s);
			return false;
		}
		out[i] = (enum webnn_recurrent_activation)k;
	}
	*n = len;
	return true;
}

static const char *const layouts[] = { "nchw", "nhwc", NULL };
static const char *const directions[] = { "forward", "backward", "both", NULL };
static const char *const gru_layouts[] = { "zrn", "rzn", NULL };
static const char *const lstm_layouts[] = { "iofg", "ifgo", NULL };

static bool no_function(struct call *c)
{
	wnn_throw(c->env, "OperationError", "%s: libwebnn's function has an unexpected signature",
		  c->op->name);
	return false;
}

/* ---------------------------------------------------------------- elementwise */

static bool attrs_binary(struct call *c)
{
	struct webnn_operand *x, *y;
	if (!c->op->fn.binary)
		return no_function(c);
	return operand(c, 0, "a", &x) && operand(c, 1, "b", &y) &&
	       done(c, c->op->fn.binary(c->b->p, x, y, &c->out));
}

static bool attrs_ternary(struct call *c)
{
	struct webnn_operand *x, *y, *z;
	if (!c->op->fn.ternary)
		return no_function(c);
	return operand(c, 0, "first operand", &x) && operand(c, 1, "second operand", &y) &&
	       operand(c, 2, "third operand", &z) &&
	       done(c, c->op->fn.ternary(c->b->p, x, y, z, &c->out));
}

static bool attrs_unary(struct call *c)
{
	struct webnn_operand *x;
	napi_value o = c->a[1];
	if (!operand(c, 0, "input", &x))
		return false;
	if (c->op->fn.unary)
		return done(c, c->op->fn.unary(c->b->p, x, &c->out));
	if (c->op->fn.elu) {
		struct webnn_elu_options e = WEBNN_ELU_OPTIONS_INIT;
		return opt_f64(c, o, "alpha", &e.alpha) &&
		       done(c, c->op->fn.elu(c->b->p, x, &e, &c->out));
	}
	if (c->op->fn.leaky_relu) {
		struct webnn_leaky_relu_options e = WEBNN_LEAKY_RELU_OPTIONS_INIT;
		return opt_f64(c, o, "alpha", &e.alpha) &&
		       done(c, c->op->fn.leaky_relu(c->b->p, x, &e, &c->out));
	}
	if (c->op->fn.hard_sigmoid) {
		struct webnn_hard_sigmoid_options e = WEBNN_HARD_SIGMOID_OPTIONS_INIT;
		return opt_f64(c, o, "alpha", &e.alpha) && opt_f64(c, o, "beta", &e.beta) &&
		       done(c, c->op->fn.hard_sigmoid(c->b->p, x, &e, &c->out));
	}
	if (c->op->fn.linear) {
		struct webnn_linear_options e = WEBNN_LINEAR_OPTIONS_INIT;
		return opt_f64(c, o, "alpha", &e.alpha) && opt_f64(c, o, "beta", &e.beta) &&
		       done(c, c->op->fn.linear(c->b->p, x, &e, &c->out));
	}
	return no_function(c);
}

static bool attrs_clamp(struct call *c)
{
	struct webnn_clamp_options o = WEBNN_CLAMP_OPTIONS_INIT;
	struct webnn_operand *x;
	return operand(c, 0, "input", &x) && opt_number(c, c->a[1], "minValue", &o.min_number) &&
	       opt_number(c, c->a[1], "maxValue", &o.max_number) &&
	       done(c, webnn_builder_clamp(c->b->p, x, &o, &c->out));
}

static bool attrs_cast(struct call *c)
{
	struct webnn_operand *x;
	enum webnn_data_type t;
	return operand(c, 0, "input", &x) && wnn_get_data_type(c->env, c->a[1], "cast: type", &t) &&
	       done(c, webnn_builder_cast(c->b->p, x, t, &c->out));
}

/* ---------------------------------------------------------------- reduce */

static bool attrs_reduce(struct call *c)
{
	struct webnn_reduce_options o = WEBNN_REDUCE_OPTIONS_INIT;
	struct webnn_operand *x;
	uint32_t axes[WEBNN_MAX_RANK];
	bool has_axes;
	if (!c->op->fn.reduce)
		return no_function(c);
	if (!operand(c, 0, "input", &x) ||
	    !opt_list(c, c->a[1], "axes", axes, WEBNN_MAX_RANK, &o.n_axes, &has_axes) ||
	    !opt_bool(c, c->a[1], "keepDimensions", &o.keep_dimensions))
		return false;
	o.axes = has_axes ? axes : NULL;
	return done(c, c->op->fn.reduce(c->b->p, x, &o, &c->out));
}

static bool attrs_arg_min_max(struct call *c)
{
	struct webnn_arg_min_max_options o = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
	struct webnn_operand *x;
	uint32_t axis;
	if (!c->op->fn.arg_min_max)
		return no_function(c);
	return operand(c, 0, "input", &x) && arg_u32(c, 1, "axis", &axis) &&
	       opt_bool(c, c->a[2], "keepDimensions", &o.keep_dimensions) &&
	       opt_data_type(c, c->a[2], "outputDataType", &o.output_data_type) &&
	       done(c, c->op->fn.arg_min_max(c->b->p, x, axis, &o, &c->out));
}

static bool attrs_cumulative_sum(struct call *c)
{
	struct webnn_cumulative_sum_options o = WEBNN_CUMULATIVE_SUM_OPTIONS_INIT;
	struct webnn_operand *x;
	uint32_t axis;
	return operand(c, 0, "input", &x) && arg_u32(c, 1, "axis", &axis) &&
	       opt_bool(c, c->a[2], "exclusive", &o.exclusive) &&
	       opt_bool(c, c->a[2], "reversed", &o.reversed) &&
	       done(c, webnn_builder_cumulative_sum(c->b->p, x, axis, &o, &c->out));
}

/* ---------------------------------------------------------------- normalization */

static bool attrs_batch_normalization(struct call *c)
{
	struct webnn_batch_normalization_options o = WEBNN_BATCH_NORMALIZATION_OPTIONS_INIT;
	struct webnn_operand *x, *mean, *var;
	napi_value opts = c->a[3];
	return operand(c, 0, "input", &x) && operand(c, 1, "mean", &mean) &&
	       operand(c, 2, "variance", &var) && opt_operand(c, opts, "scale", &o.scale) &&
	       opt_operand(c, opts, "bias", &o.bias) && opt_u32(c, opts, "axis", &o.axis) &&
	       opt_f64(c, opts, "epsilon", &o.epsilon) &&
	       done(c, webnn_builder_batch_normalization(c->b->p, x, mean, var, &o, &c->out));
}

static bool attrs_instance_normalization(struct call *c)
{
	struct webnn_instance_normalization_options o = WEBNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
	struct webnn_operand *x;
	napi_value opts = c->a[1];
	int layout = (int)o.layout;
	if (!operand(c, 0, "input", &x) || !opt_operand(c, opts, "scale", &o.scale) ||
	    !opt_operand(c, opts, "bias", &o.bias) || !opt_f64(c, opts, "epsilon", &o.epsilon) ||
	    !opt_enum(c, opts, "layout", layouts, &layout))
		return false;
	o.layout = (enum webnn_layout)layout;
	return done(c, webnn_builder_instance_normalization(c->b->p, x, &o, &c->out));
}

static bool attrs_layer_normalization(struct call *c)
{
	struct webnn_layer_normalization_options o = WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT;
	struct webnn_operand *x;
	napi_value opts = c->a[1];
	uint32_t axes[WEBNN_MAX_RANK];
	bool has_axes;
	if (!operand(c, 0, "input", &x) || !opt_operand(c, opts, "scale", &o.scale) ||
	    !opt_operand(c, opts, "bias", &o.bias) ||
	    !opt_list(c, opts, "axes", axes, WEBNN_MAX_RANK, &o.n_axes, &has_axes) ||
	    !opt_f64(c, opts, "epsilon", &o.epsilon))
		return false;
	o.axes = has_axes ? axes : NULL;
	return done(c, webnn_builder_layer_normalization(c->b->p, x, &o, &c->out));
}

static bool attrs_softmax(struct call *c)
{
	struct webnn_operand *x;
	uint32_t axis;
	return operand(c, 0, "input", &x) && arg_u32(c, 1, "axis", &axis) &&
	       done(c, webnn_builder_softmax(c->b->p, x, axis, &c->out));
}

/* ---------------------------------------------------------------- conv and pool */

static bool attrs_conv2d(struct call *c)
{
	static const char *const filter_layouts[] = { "oihw", "hwio", "ohwi", "ihwo", NULL };
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	struct webnn_operand *x, *f;
	napi_value opts = c->a[2];
	int il = (int)o.input_layout, fl = (int)o.filter_layout;
	if (!operand(c, 0, "input", &x) || !operand(c, 1, "filter", &f) ||
	    !opt_fixed(c, opts, "padding", o.padding, 4, &o.n_padding) ||
	    !opt_fixed(c, opts, "strides", o.strides, 2, &o.n_strides) ||
	    !opt_fixed(c, opts, "dilations", o.dilations, 2, &o.n_dilations) ||
	    !opt_u32(c, opts, "groups", &o.groups) ||
	    !opt_enum(c, opts, "inputLayout", layouts, &il) ||
	    !opt_enum(c, opts, "filterLayout", filter_layouts, &fl) ||
	    !opt_operand(c, opts, "bias", &o.bias))
		return false;
	o.input_layout = (enum webnn_layout)il;
	o.filter_layout = (enum webnn_conv2d_filter_layout)fl;
	return done(c, webnn_builder_conv2d(c->b->p, x, f, &o, &c->out));
}

static bool attrs_conv_transpose2d(struct call *c)
{
	static const char *const filter_layouts[] = { "iohw", "hwoi", "ohwi", NULL };
	struct webnn_conv_transpose2d_options o = WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
	struct webnn_operand *x, *f;
	napi_value opts = c->a[2];
	int il = (int)o.input_layout, fl = (int)o.filter_layout;
	if (!operand(c, 0, "input", &x) || !operand(c, 1, "filter", &f) ||
	    !opt_fixed(c, opts, "padding", o.padding, 4, &o.n_padding) ||
	    !opt_fixed(c, opts, "strides", o.strides, 2, &o.n_strides) ||
	    !opt_fixed(c, opts, "dilations", o.dilations, 2, &o.n_dilations) ||
	    !opt_fixed(c, opts, "outputPadding", o.output_padding, 2, &o.n_output_padding) ||
	    !opt_fixed(c, opts, "outputSizes", o.output_sizes, 2, &o.n_output_sizes) ||
	    !opt_u32(c, opts, "groups", &o.groups) ||
	    !opt_enum(c, opts, "inputLayout", layouts, &il) ||
	    !opt_enum(c, opts, "filterLayout", filter_layouts, &fl) ||
	    !opt_operand(c, opts, "bias", &o.bias))
		return false;
	o.input_layout = (enum webnn_layout)il;
	o.filter_layout = (enum webnn_conv_transpose2d_filter_layout)fl;
	return done(c, webnn_builder_conv_transpose2d(c->b->p, x, f, &o, &c->out));
}

static bool attrs_pool2d(struct call *c)
{
	static const char *const roundings[] = { "floor", "ceil", NULL };
	struct webnn_pool2d_options o = WEBNN_POOL2D_OPTIONS_INIT;
	struct webnn_operand *x;
	napi_value opts = c->a[1];
	int layout = (int)o.layout, rounding = (int)o.output_shape_rounding;
	if (!c->op->fn.pool)
		return no_function(c);
	if (!operand(c, 0, "input", &x) ||
	    !opt_fixed(c, opts, "windowDimensions", o.window_dimensions, 2,
		       &o.n_window_dimensions) ||
	    !opt_fixed(c, opts, "padding", o.padding, 4, &o.n_padding) ||
	    !opt_fixed(c, opts, "strides", o.strides, 2, &o.n_strides) ||
	    !opt_fixed(c, opts, "dilations", o.dilations, 2, &o.n_dilations) ||
	    !opt_fixed(c, opts, "outputSizes", o.output_sizes, 2, &o.n_output_sizes) ||
	    !opt_enum(c, opts, "layout", layouts, &layout) ||
	    !opt_enum(c, opts, "roundingType", roundings, &rounding) ||
	    !opt_enum(c, opts, "outputShapeRounding", roundings, &rounding))
		return false;
	o.layout = (enum webnn_layout)layout;
	o.output_shape_rounding = (enum webnn_rounding)rounding;
	return done(c, c->op->fn.pool(c->b->p, x, &o, &c->out));
}

/* ---------------------------------------------------------------- linalg */

static bool attrs_gemm(struct call *c)
{
	struct webnn_gemm_options o = WEBNN_GEMM_OPTIONS_INIT;
	struct webnn_operand *x, *y;
	napi_value opts = c->a[2];
	return operand(c, 0, "a", &x) && operand(c, 1, "b", &y) &&
	       opt_operand(c, opts, "c", &o.c) && opt_f64(c, opts, "alpha", &o.alpha) &&
	       opt_f64(c, opts, "beta", &o.beta) && opt_bool(c, opts, "aTranspose", &o.a_transpose) &&
	       opt_bool(c, opts, "bTranspose", &o.b_transpose) &&
	       done(c, webnn_builder_gemm(c->b->p, x, y, &o, &c->out));
}

/* ---------------------------------------------------------------- data movement */

static bool attrs_concat(struct call *c)
{
	bool is_array = false;
	uint32_t n = 0, axis;
	if (napi_is_array(c->env, c->a[0], &is_array) != napi_ok || !is_array ||
	    napi_get_array_length(c->env, c->a[0], &n) != napi_ok) {
		wnn_throw(c->env, "TypeError", "concat: inputs is not a sequence of MLOperands");
		return false;
	}
	if (!arg_u32(c, 1, "axis", &axis))
		return false;
	struct webnn_operand **ops = calloc(n ? n : 1, sizeof(*ops));
	if (!ops) {
		wnn_throw(c->env, "OperationError", "out of memory");
		return false;
	}
	bool ok = true;
	for (uint32_t i = 0; i < n && ok; i++) {
		napi_value e;
		char w[64];
		snprintf(w, sizeof(w), "concat: inputs[%u]", i);
		ok = napi_get_element(c->env, c->a[0], i, &e) == napi_ok &&
		     wnn_get_operand(c->env, e, w, &ops[i]);
	}
	ok = ok && done(c, webnn_builder_concat(c->b->p, ops, n, axis, &c->out));
	free(ops);
	return ok;
}

/* reshape, expand, tile: an input and a list of dimensions. */
static bool attrs_shape(struct call *c)
{
	struct webnn_operand *x;
	uint32_t shape[WEBNN_MAX_RANK], n;
	if (!c->op->fn.shape)
		return no_function(c);
	return operand(c, 0, "input", &x) && arg_list(c, 1, "shape", shape, WEBNN_MAX_RANK, &n) &&
	       done(c, c->op->fn.shape(c->b->p, x, shape, n, &c->out));
}

static bool attrs_transpose(struct call *c)
{
	struct webnn_operand *x;
	uint32_t perm[WEBNN_MAX_RANK], n = 0;
	bool has;
	return operand(c, 0, "input", &x) &&
	       opt_list(c, c->a[1], "permutation", perm, WEBNN_MAX_RANK, &n, &has) &&
	       done(c, webnn_builder_transpose(c->b->p, x, has ? perm : NULL, n, &c->out));
}

static bool attrs_pad(struct call *c)
{
	static const char *const modes[] = { "constant", "edge", "reflection", NULL };
	struct webnn_pad_options o = WEBNN_PAD_OPTIONS_INIT;
	struct webnn_operand *x;
	uint32_t begin[WEBNN_MAX_RANK], end[WEBNN_MAX_RANK], nb, ne;
	int mode = (int)o.mode;
	if (!operand(c, 0, "input", &x) ||
	    !arg_list(c, 1, "beginningPadding", begin, WEBNN_MAX_RANK, &nb) ||
	    !arg_list(c, 2, "endingPadding", end, WEBNN_MAX_RANK, &ne) ||
	    !opt_enum(c, c->a[3], "mode", modes, &mode) ||
	    !opt_number(c, c->a[3], "value", &o.value_number))
		return false;
	o.mode = (enum webnn_padding_mode)mode;
	return done(c, webnn_builder_pad(c->b->p, x, begin, nb, end, ne, &o, &c->out));
}

static bool attrs_reverse(struct call *c)
{
	struct webnn_reverse_options o = WEBNN_REVERSE_OPTIONS_INIT;
	struct webnn_operand *x;
	uint32_t axes[WEBNN_MAX_RANK];
	bool has;
	if (!operand(c, 0, "input", &x) ||
	    !opt_list(c, c->a[1], "axes", axes, WEBNN_MAX_RANK, &o.n_axes, &has))
		return false;
	o.axes = has ? axes : NULL;
	return done(c, webnn_builder_reverse(c->b->p, x, &o, &c->out));
}

static bool attrs_slice(struct call *c)
{
	struct webnn_slice_options o = WEBNN_SLICE_OPTIONS_INIT;
	struct webnn_operand *x;
	uint32_t starts[WEBNN_MAX_RANK], sizes[WEBNN_MAX_RANK], strides[WEBNN_MAX_RANK], ns, nz;
	bool has;
	if (!operand(c, 0, "input", &x) ||
	    !arg_list(c, 1, "starts", starts, WEBNN_MAX_RANK, &ns) ||
	    !arg_list(c, 2, "sizes", sizes, WEBNN_MAX_RANK, &nz) ||
	    !opt_list(c, c->a[3], "strides", strides, WEBNN_MAX_RANK, &o.n_strides, &has))
		return false;
	o.strides = has ? strides : NULL;
	return done(c, webnn_builder_slice(c->b->p, x, starts, ns, sizes, nz, &o, &c->out));
}

/* splits: a count of equal parts, or the list of their sizes. */
static bool attrs_split(struct call *c)
{
	struct webnn_split_options o = WEBNN_SPLIT_OPTIONS_INIT;
	struct webnn_operand *x;
	bool is_array = false;
	c->sequence = true;
	if (!operand(c, 0, "input", &x) || !opt_u32(c, c->a[2], "axis", &o.axis))
		return false;
	napi_is_array(c->env, c->a[1], &is_array);
	if (is_array) {
		uint32_t sizes[MAX_OUTS], n;
		return arg_list(c, 1, "splits", sizes, MAX_OUTS, &n) &&
		       done(c, webnn_builder_split_sizes(c->b->p, x, sizes, n, &o, c->outs, MAX_OUTS,
							 &c->n_outs));
	}
	uint32_t count;
	return arg_u32(c, 1, "splits", &count) &&
	       done(c, webnn_builder_split(c->b->p, x, count, &o, c->outs, MAX_OUTS, &c->n_outs));
}

static bool attrs_triangular(struct call *c)
{
	struct webnn_triangular_options o = WEBNN_TRIANGULAR_OPTIONS_INIT;
	struct webnn_operand *x;
	napi_value v;
	bool has;
	if (!operand(c, 0, "input", &x) || !opt_bool(c, c->a[1], "upper", &o.upper) ||
	    !wnn_member(c->env, c->a[1], "diagonal", &v, &has) ||
	    (has && !wnn_get_i32(c->env, v, "triangular: options.diagonal", &o.diagonal)))
		return false;
	return done(c, webnn_builder_triangular(c->b->p, x, &o, &c->out));
}

/* ---------------------------------------------------------------- gather and scatter */

static bool attrs_gather(struct call *c)
{
	struct webnn_gather_options o = WEBNN_GATHER_OPTIONS_INIT;
	struct webnn_operand *x, *i;
	if (!c->op->fn.gather)
		return attrs_binary(c);
	return operand(c, 0, "input", &x) && operand(c, 1, "indices", &i) &&
	       opt_u32(c, c->a[2], "axis", &o.axis) &&
	       done(c, c->op->fn.gather(c->b->p, x, i, &o, &c->out));
}

static bool attrs_scatter(struct call *c)
{
	struct webnn_scatter_options o = WEBNN_SCATTER_OPTIONS_INIT;
	struct webnn_operand *x, *i, *u;
	if (!c->op->fn.scatter)
		return attrs_ternary(c);
	return operand(c, 0, "input", &x) && operand(c, 1, "indices", &i) &&
	       operand(c, 2, "updates", &u) && opt_u32(c, c->a[3], "axis", &o.axis) &&
	       done(c, c->op->fn.scatter(c->b->p, x, i, u, &o, &c->out));
}

/* ---------------------------------------------------------------- rnn */

static bool attrs_gru(struct call *c)
{
	struct webnn_gru_options o = WEBNN_GRU_OPTIONS_INIT;
	struct webnn_operand *x, *w, *r;
	uint32_t steps, hidden;
	napi_value opts = c->a[5];
	int dir = (int)o.direction, layout = (int)o.layout;
	c->sequence = true;
	if (!operand(c, 0, "input", &x) || !operand(c, 1, "weight", &w) ||
	    !operand(c, 2, "recurrentWeight", &r) || !arg_u32(c, 3, "steps", &steps) ||
	    !arg_u32(c, 4, "hiddenSize", &hidden) || !opt_operand(c, opts, "bias", &o.bias) ||
	    !opt_operand(c, opts, "recurrentBias", &o.recurrent_bias) ||
	    !opt_operand(c, opts, "initialHiddenState", &o.initial_hidden_state) ||
	    !opt_bool(c, opts, "resetAfter", &o.reset_after) ||
	    !opt_bool(c, opts, "returnSequence", &o.return_sequence) ||
	    !opt_enum(c, opts, "direction", directions, &dir) ||
	    !opt_enum(c, opts, "layout", gru_layouts, &layout) ||
	    !opt_activations(c, opts, o.activations, 2, &o.n_activations))
		return false;
	o.direction = (enum webnn_recurrent_direction)dir;
	o.layout = (enum webnn_gru_weight_layout)layout;
	return done(c, webnn_builder_gru(c->b->p, x, w, r, steps, hidden, &o, c->outs, MAX_OUTS,
					 &c->n_outs));
}

static bool attrs_gru_cell(struct call *c)
{
	struct webnn_gru_cell_options o = WEBNN_GRU_CELL_OPTIONS_INIT;
	struct webnn_operand *x, *w, *r, *h;
	uint32_t hidden;
	napi_value opts = c->a[5];
	int layout = (int)o.layout;
	if (!operand(c, 0, "input", &x) || !operand(c, 1, "weight", &w) ||
	    !operand(c, 2, "recurrentWeight", &r) || !operand(c, 3, "hiddenState", &h) ||
	    !arg_u32(c, 4, "hiddenSize", &hidden) || !opt_operand(c, opts, "bias", &o.bias) ||
	    !opt_operand(c, opts, "recurrentBias", &o.recurrent_bias) ||
	    !opt_bool(c, opts, "resetAfter", &o.reset_after) ||
	    !opt_enum(c, opts, "layout", gru_layouts, &layout) ||
	    !opt_activations(c, opts, o.activations, 2, &o.n_activations))
		return false;
	o.layout = (enum webnn_gru_weight_layout)layout;
	return done(c, webnn_builder_gru_cell(c->b->p, x, w, r, h, hidden, &o, &c->out));
}

static bool attrs_lstm(struct call *c)
{
	struct webnn_lstm_options o = WEBNN_LSTM_OPTIONS_INIT;
	struct webnn_operand *x, *w, *r;
	uint32_t steps, hidden;
	napi_value opts = c->a[5];
	int dir = (int)o.direction, layout = (int)o.layout;
	c->sequence = true;
	if (!operand(c, 0, "input", &x) || !operand(c, 1, "weight", &w) ||
	    !operand(c, 2, "recurrentWeight", &r) || !arg_u32(c, 3, "steps", &steps) ||
	    !arg_u32(c, 4, "hiddenSize", &hidden) || !opt_operand(c, opts, "bias", &o.bias) ||
	    !opt_operand(c, opts, "recurrentBias", &o.recurrent_bias) ||
	    !opt_operand(c, opts, "peepholeWeight", &o.peephole_weight) ||
	    !opt_operand(c, opts, "initialHiddenState", &o.initial_hidden_state) ||
	    !opt_operand(c, opts, "initialCellState", &o.initial_cell_state) ||
	    !opt_bool(c, opts, "returnSequence", &o.return_sequence) ||
	    !opt_enum(c, opts, "direction", directions, &dir) ||
	    !opt_enum(c, opts, "layout", lstm_layouts, &layout) ||
	    !opt_activations(c, opts, o.activations, 3, &o.n_activations))
		return false;
	o.direction = (enum webnn_recurrent_direction)dir;
	o.layout = (enum webnn_lstm_weight_layout)layout;
	return done(c, webnn_builder_lstm(c->b->p, x, w, r, steps, hidden, &o, c->outs, MAX_OUTS,
					  &c->n_outs));
}

static bool attrs_lstm_cell(struct call *c)
{
	struct webnn_lstm_cell_options o = WEBNN_LSTM_CELL_OPTIONS_INIT;
	struct webnn_operand *x, *w, *r, *h, *cs;
	uint32_t hidden;
	napi_value opts = c->a[6];
	int layout = (int)o.layout;
	c->sequence = true;
	if (!operand(c, 0, "input", &x) || !operand(c, 1, "weight", &w) ||
	    !operand(c, 2, "recurrentWeight", &r) || !operand(c, 3, "hiddenState", &h) ||
	    !operand(c, 4, "cellState", &cs) || !arg_u32(c, 5, "hiddenSize", &hidden) ||
	    !opt_operand(c, opts, "bias", &o.bias) ||
	    !opt_operand(c, opts, "recurrentBias", &o.recurrent_bias) ||
	    !opt_operand(c, opts, "peepholeWeight", &o.peephole_weight) ||
	    !opt_enum(c, opts, "layout", lstm_layouts, &layout) ||
	    !opt_activations(c, opts, o.activations, 3, &o.n_activations))
		return false;
	o.layout = (enum webnn_lstm_weight_layout)layout;
	return done(c, webnn_builder_lstm_cell(c->b->p, x, w, r, h, cs, hidden, &o, c->outs,
					       MAX_OUTS, &c->n_outs));
}

/* ---------------------------------------------------------------- resample */

static bool attrs_resample2d(struct call *c)
{
	static const char *const modes[] = { "nearest-neighbor", "linear", NULL };
	struct webnn_resample2d_options o = WEBNN_RESAMPLE2D_OPTIONS_INIT;
	struct webnn_operand *x;
	napi_value opts = c->a[1], v;
	int mode = (int)o.mode;
	bool has, is_array = false;
	uint32_t len = 0;
	if (!operand(c, 0, "input", &x) || !opt_enum(c, opts, "mode", modes, &mode) ||
	    !opt_list(c, opts, "sizes", o.sizes, 2, &o.n_sizes, &has) ||
	    !opt_list(c, opts, "axes", o.axes, 2, &o.n_axes, &has) ||
	    !wnn_member(c->env, opts, "scales", &v, &has))
		return false;
	if (has) {
		if (napi_is_array(c->env, v, &is_array) != napi_ok || !is_array ||
		    napi_get_array_length(c->env, v, &len) != napi_ok || len > 2) {
			wnn_throw(c->env, "TypeError",
				  "resample2d: options.scales must be a sequence of at most 2 numbers");
			return false;
		}
		for (uint32_t i = 0; i < len; i++) {
			napi_value e;
			double d;
			if (napi_get_element(c->env, v, i, &e) != napi_ok ||
			    !wnn_get_f64(c->env, e, "resample2d: options.scales[i]", &d))
				return false;
			o.scales[i] = (float)d;
		}
		o.n_scales = len;
	}
	o.mode = (enum webnn_interpolation_mode)mode;
	return done(c, webnn_builder_resample2d(c->b->p, x, &o, &c->out));
}

/* ---------------------------------------------------------------- the operator list */

/* The handler of each attrs kind (ops.def's ATTRS column): a new kind fails to compile here
 * until it has one; a new operator of an existing kind needs no edit. */
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

#define NODE_OP_(spec, c, FAMILY, ATTRS) { #spec, ATTRS_##ATTRS, WEBNN_BUILDER_FNS(c) },
static const struct node_op node_ops[] = { WEBNN_OPERATORS(NODE_OP_) };
#undef NODE_OP_
#define N_OPS (sizeof(node_ops) / sizeof(node_ops[0]))

napi_value wnn_operators(napi_env env)
{
	napi_value list, name;
	NAPI_OK(env, napi_create_array_with_length(env, N_OPS, &list));
	for (uint32_t i = 0; i < N_OPS; i++) {
		NAPI_OK(env, napi_create_string_utf8(env, node_ops[i].name, NAPI_AUTO_LENGTH,
						     &name));
		NAPI_OK(env, napi_set_element(env, list, i, name));
	}
	return list;
}

/* builderOp(builder, index, args, label) -> operand, or an array of them for a sequence. */
napi_value wnn_builder_op(napi_env env, napi_callback_info info)
{
	size_t argc = 4;
	napi_value argv[4];
	NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc < 3)
		return wnn_throw(env, "TypeError", "builderOp: missing arguments");
	struct call c = { .env = env };
	napi_valuetype t;
	void *p = NULL;
	uint32_t index;
	if (napi_typeof(env, argv[0], &t) != napi_ok || t != napi_external ||
	    napi_get_value_external(env, argv[0], &p) != napi_ok || !p)
		return wnn_throw(env, "TypeError", "not an MLGraphBuilder");
	c.b = p;
	if (!c.b->p || !c.b->owner->ctx)
		return wnn_throw(env, "InvalidStateError", "the MLGraphBuilder's context is destroyed");
	if (!wnn_get_u32(env, argv[1], "operator index", &index) || index >= N_OPS)
		return index >= N_OPS ? wnn_throw(env, "TypeError", "no such operator") : NULL;
	c.op = &node_ops[index];
	NAPI_OK(env, napi_get_array_length(env, argv[2], &c.argc));
	if (c.argc > MAX_ARGS)
		return wnn_throw(env, "TypeError", "%s: too many arguments", c.op->name);
	for (uint32_t i = 0; i < MAX_ARGS; i++) {
		if (i < c.argc)
			NAPI_OK(env, napi_get_element(env, argv[2], i, &c.a[i]));
		else
			napi_get_undefined(env, &c.a[i]);
	}
	/* MLOperatorOptions.label names the operation in libwebnn's errors; a call that fails
	 * here before reaching libwebnn must not leave it to the next one. */
	bool labelled = argc > 3 && !wnn_is_undefined(env, argv[3]);
	if (labelled) {
		char label[1024];
		if (!wnn_get_string(env, argv[3], "options.label", label, sizeof(label)))
			return NULL;
		enum webnn_status s = webnn_builder_set_next_label(c.b->p, label);
		if (s != WEBNN_STATUS_OK)
			return wnn_throw_status(env, c.b->owner, s);
	}
	if (!c.op->build(&c)) {
		if (labelled)
			webnn_builder_set_next_label(c.b->p, NULL);
		return NULL;
	}
	if (!c.sequence && c.n_outs == 0)
		return wnn_operand_value(env, c.out);
	napi_value arr;
	NAPI_OK(env, napi_create_array_with_length(env, c.n_outs, &arr));
	for (uint32_t i = 0; i < c.n_outs; i++) {
		napi_value v = wnn_operand_value(env, c.outs[i]);
		if (!v)
			return NULL;
		NAPI_OK(env, napi_set_element(env, arr, i, v));
	}
	return arr;
}
