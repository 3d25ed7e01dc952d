/* ONNX elementwise operators (unary, binary, variadic, activations, Clip, Where, Mod) as WebNN calls. */
#include "importers/onnx/onnx_internal.h"

#include <math.h>
#include <string.h>

typedef enum webnn_status (*unary_fn)(struct webnn_builder *, struct webnn_operand *,
				      struct webnn_operand **);
typedef enum webnn_status (*binary_fn)(struct webnn_builder *, struct webnn_operand *,
				       struct webnn_operand *, struct webnn_operand **);

static const struct {
	const char *onnx, *webnn;
	unary_fn fn;
	bool boolean; /* the result is an ONNX bool */
} unaries[] = {
	{ "Abs", "abs", webnn_builder_abs, false },
	{ "Neg", "neg", webnn_builder_neg, false },
	{ "Ceil", "ceil", webnn_builder_ceil, false },
	{ "Floor", "floor", webnn_builder_floor, false },
	{ "Exp", "exp", webnn_builder_exp, false },
	{ "Log", "log", webnn_builder_log, false },
	{ "Sqrt", "sqrt", webnn_builder_sqrt, false },
	{ "Sin", "sin", webnn_builder_sin, false },
	{ "Cos", "cos", webnn_builder_cos, false },
	{ "Tan", "tan", webnn_builder_tan, false },
	{ "Erf", "erf", webnn_builder_erf, false },
	{ "Reciprocal", "reciprocal", webnn_builder_reciprocal, false },
	{ "Sign", "sign", webnn_builder_sign, false },
	{ "Relu", "relu", webnn_builder_relu, false },
	{ "Sigmoid", "sigmoid", webnn_builder_sigmoid, false },
	{ "Tanh", "tanh", webnn_builder_tanh, false },
	{ "Softplus", "softplus", webnn_builder_softplus, false },
	{ "Softsign", "softsign", webnn_builder_softsign, false },
	{ "Not", "logicalNot", webnn_builder_logical_not, true },
	{ "IsNaN", "isNaN", webnn_builder_is_nan, true },
	{ "Round", "roundEven", webnn_builder_round_even, false },
	{ "Identity", "identity", webnn_builder_identity, false },
	{ "HardSwish", "hardSwish", webnn_builder_hard_swish, false },
};

static const struct {
	const char *onnx, *webnn;
	binary_fn fn;
	bool boolean;
} binaries[] = {
	{ "Add", "add", webnn_builder_add, false },
	{ "Sub", "sub", webnn_builder_sub, false },
	{ "Mul", "mul", webnn_builder_mul, false },
	{ "Div", "div", webnn_builder_div, false },
	{ "Pow", "pow", webnn_builder_pow, false },
	{ "Max", "max", webnn_builder_max, false },
	{ "Min", "min", webnn_builder_min, false },
	{ "Sum", "add", webnn_builder_add, false },
	{ "Mean", "add", webnn_builder_add, false },
	{ "Equal", "equal", webnn_builder_equal, true },
	{ "Greater", "greater", webnn_builder_greater, true },
	{ "Less", "lesser", webnn_builder_lesser, true },
	{ "GreaterOrEqual", "greaterOrEqual", webnn_builder_greater_or_equal, true },
	{ "LessOrEqual", "lesserOrEqual", webnn_builder_lesser_or_equal, true },
	{ "And", "logicalAnd", webnn_builder_logical_and, true },
	{ "Or", "logicalOr", webnn_builder_logical_or, true },
	{ "Xor", "logicalXor", webnn_builder_logical_xor, true },
};

static int set_bool(struct ox_node *n, struct webnn_operand *o)
{
	ox_set(n, 0, o);
	if (n->n_out)
		n->out[0].onnx_type = OX_BOOL;
	return 0;
}

static enum webnn_data_type in_type(struct ox_node *n, size_t i)
{
	return n->in[i] ? n->in[i]->type : WEBNN_FLOAT32;
}

static int op_unary(struct ox_node *n)
{
	int f = ox_fold_elementwise(n);
	if (f)
		return f < 0 ? -1 : 0;
	for (size_t k = 0; k < sizeof(unaries) / sizeof(unaries[0]); k++) {
		if (strcmp(unaries[k].onnx, n->node->op_type) != 0)
			continue;
		struct webnn_operand *x, *o;
		OX_IN(n, 0, x);
		if (ox_need_type(n, unaries[k].webnn, NULL, in_type(n, 0)))
			return -1;
		OX_B(n, unaries[k].webnn, unaries[k].fn(n->M->b, x, &o));
		return unaries[k].boolean ? set_bool(n, o) : ox_set(n, 0, o);
	}
	return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "no unary mapping");
}

/* Integer Pow and mixed-type exponents: ONNX lets the exponent's type differ. */
static int op_binary(struct ox_node *n)
{
	int f = ox_fold_elementwise(n);
	if (f)
		return f < 0 ? -1 : 0;
	for (size_t k = 0; k < sizeof(binaries) / sizeof(binaries[0]); k++) {
		if (strcmp(binaries[k].onnx, n->node->op_type) != 0)
			continue;
		if (n->n_in < 1 || !n->in[0])
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no inputs");
		if (ox_need_type(n, binaries[k].webnn, NULL, in_type(n, 0)))
			return -1;
		struct webnn_operand *acc, *o;
		OX_IN(n, 0, acc);
		for (size_t i = 1; i < n->n_in; i++) {
			struct webnn_operand *y;
			OX_IN(n, i, y);
			if (n->opset < 7 && ox_attr_i(n, "broadcast", 0) && ox_attr(n, "axis")) {
				/* legacy broadcast: y's dimensions line up with x's from axis on */
				struct ox_val *a = n->in[0], *bv = n->in[i];
				uint32_t ax, d[WEBNN_MAX_RANK];
				if (ox_axis(n, ox_attr_i(n, "axis", 0), a->rank, &ax))
					return -1;
				if (ax + bv->rank > a->rank)
					return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "axis %u too large", ax);
				for (uint32_t k = 0; k < a->rank - ax; k++)
					d[k] = k < bv->rank ? bv->dims[k] : 1;
				if (!(y = ox_reshape(n, y, a->rank - ax, d)))
					return -1;
			}
			if (in_type(n, i) != in_type(n, 0)) {
				if (strcmp(n->node->op_type, "Pow") != 0)
					return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
						       "inputs of types %s and %s",
						       webnn_data_type_name(in_type(n, 0)),
						       webnn_data_type_name(in_type(n, i)));
				OX_B(n, "cast", webnn_builder_cast(n->M->b, y, in_type(n, 0), &y));
			}
			OX_B(n, binaries[k].webnn, binaries[k].fn(n->M->b, acc, y, &o));
			acc = o;
		}
		if (strcmp(n->node->op_type, "Mean") == 0 && n->n_in > 1) {
			struct webnn_operand *c = ox_scalar(n, in_type(n, 0), (double)n->n_in);
			if (!c)
				return -1;
			OX_B(n, "div", webnn_builder_div(n->M->b, acc, c, &acc));
		} else if (n->n_in == 1) {
			OX_B(n, "identity", webnn_builder_identity(n->M->b, acc, &acc));
		}
		return binaries[k].boolean ? set_bool(n, acc) : ox_set(n, 0, acc);
	}
	return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "no binary mapping");
}

static int op_elu(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	if (ox_need_type(n, "elu", NULL, in_type(n, 0)))
		return -1;
	struct webnn_elu_options eo = WEBNN_ELU_OPTIONS_INIT;
	eo.alpha = ox_attr_f(n, "alpha", 1.0f);
	OX_B(n, "elu", webnn_builder_elu(n->M->b, x, &eo, &o));
	return ox_set(n, 0, o);
}

static int op_selu(struct ox_node *n)
{
	struct webnn_operand *x, *o, *g;
	OX_IN(n, 0, x);
	if (ox_need_type(n, "elu", NULL, in_type(n, 0)))
		return -1;
	struct webnn_elu_options eo = WEBNN_ELU_OPTIONS_INIT;
	eo.alpha = ox_attr_f(n, "alpha", 1.67326319217681884765625f);
	OX_B(n, "elu", webnn_builder_elu(n->M->b, x, &eo, &o));
	if (!(g = ox_scalar(n, in_type(n, 0), ox_attr_f(n, "gamma", 1.05070102214813232421875f))))
		return -1;
	OX_B(n, "mul", webnn_builder_mul(n->M->b, o, g, &o));
	return ox_set(n, 0, o);
}

/* celu(x) = alpha * elu(x / alpha). */
static int op_celu(struct ox_node *n)
{
	struct webnn_operand *x, *o, *a;
	OX_IN(n, 0, x);
	if (ox_need_type(n, "elu", NULL, in_type(n, 0)))
		return -1;
	double alpha = ox_attr_f(n, "alpha", 1.0f);
	if (!(a = ox_scalar(n, in_type(n, 0), alpha)))
		return -1;
	OX_B(n, "div", webnn_builder_div(n->M->b, x, a, &o));
	struct webnn_elu_options eo = WEBNN_ELU_OPTIONS_INIT;
	OX_B(n, "elu", webnn_builder_elu(n->M->b, o, &eo, &o));
	OX_B(n, "mul", webnn_builder_mul(n->M->b, o, a, &o));
	return ox_set(n, 0, o);
}

static int op_leaky_relu(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	if (ox_need_type(n, "leakyRelu", NULL, in_type(n, 0)))
		return -1;
	struct webnn_leaky_relu_options lo = WEBNN_LEAKY_RELU_OPTIONS_INIT;
	lo.alpha = ox_attr_f(n, "alpha", 0.01f);
	OX_B(n, "leakyRelu", webnn_builder_leaky_relu(n->M->b, x, &lo, &o));
	return ox_set(n, 0, o);
}

static int op_hard_sigmoid(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	if (ox_need_type(n, "hardSigmoid", NULL, in_type(n, 0)))
		return -1;
	struct webnn_hard_sigmoid_options ho = WEBNN_HARD_SIGMOID_OPTIONS_INIT;
	ho.alpha = ox_attr_f(n, "alpha", 0.2f);
	ho.beta = ox_attr_f(n, "beta", 0.5f);
	OX_B(n, "hardSigmoid", webnn_builder_hard_sigmoid(n->M->b, x, &ho, &o));
	return ox_set(n, 0, o);
}

static int op_thresholded_relu(struct ox_node *n)
{
	struct webnn_operand *x, *o, *a, *z, *c;
	OX_IN(n, 0, x);
	enum webnn_data_type t = in_type(n, 0);
	if (!(a = ox_scalar(n, t, ox_attr_f(n, "alpha", 1.0f))) || !(z = ox_scalar(n, t, 0)))
		return -1;
	OX_B(n, "greater", webnn_builder_greater(n->M->b, x, a, &c));
	OX_B(n, "where", webnn_builder_where(n->M->b, c, x, z, &o));
	return ox_set(n, 0, o);
}

/* mish(x) = x * tanh(softplus(x)). */
static int op_mish(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	if (ox_need_type(n, "softplus", NULL, in_type(n, 0)))
		return -1;
	OX_B(n, "softplus", webnn_builder_softplus(n->M->b, x, &o));
	OX_B(n, "tanh", webnn_builder_tanh(n->M->b, o, &o));
	OX_B(n, "mul", webnn_builder_mul(n->M->b, x, o, &o));
	return ox_set(n, 0, o);
}

/* Gelu (opset 20): approximate "none" is WebNN gelu; "tanh" is composed. */
static int op_gelu(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	const char *approx = ox_attr_s(n, "approximate", "none");
	if (ox_need_type(n, "gelu", NULL, in_type(n, 0)))
		return -1;
	if (strcmp(approx, "none") == 0) {
		OX_B(n, "gelu", webnn_builder_gelu(n->M->b, x, &o));
		return ox_set(n, 0, o);
	}
	if (strcmp(approx, "tanh") != 0)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "approximate \"%s\"", approx);
	/* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
	enum webnn_data_type t = in_type(n, 0);
	struct webnn_operand *c1, *c2, *half, *one, *x3;
	if (!(c1 = ox_scalar(n, t, 0.044715)) || !(c2 = ox_scalar(n, t, sqrt(2.0 / M_PI))) ||
	    !(half = ox_scalar(n, t, 0.5)) || !(one = ox_scalar(n, t, 1.0)))
		return -1;
	OX_B(n, "mul", webnn_builder_mul(n->M->b, x, x, &x3));
	OX_B(n, "mul", webnn_builder_mul(n->M->b, x3, x, &x3));
	OX_B(n, "mul", webnn_builder_mul(n->M->b, x3, c1, &x3));
	OX_B(n, "add", webnn_builder_add(n->M->b, x3, x, &o));
	OX_B(n, "mul", webnn_builder_mul(n->M->b, o, c2, &o));
	OX_B(n, "tanh", webnn_builder_tanh(n->M->b, o, &o));
	OX_B(n, "add", webnn_builder_add(n->M->b, o, one, &o));
	OX_B(n, "mul", webnn_builder_mul(n->M->b, o, x, &o));
	OX_B(n, "mul", webnn_builder_mul(n->M->b, o, half, &o));
	return ox_set(n, 0, o);
}

static int op_is_inf(struct ox_node *n)
{
	struct webnn_operand *x, *o, *z, *c;
	OX_IN(n, 0, x);
	if (ox_need_type(n, "isInfinite", NULL, in_type(n, 0)))
		return -1;
	int64_t neg = ox_attr_i(n, "detect_negative", 1), pos = ox_attr_i(n, "detect_positive", 1);
	OX_B(n, "isInfinite", webnn_builder_is_infinite(n->M->b, x, &o));
	if (!neg || !pos) {
		if (!(z = ox_scalar(n, in_type(n, 0), 0)))
			return -1;
		if (!neg && !pos) {
			OX_B(n, "equal", webnn_builder_not_equal(n->M->b, x, x, &c));
			OX_B(n, "logicalAnd", webnn_builder_logical_and(n->M->b, o, c, &o));
		} else {
			OX_B(n, "compare", (pos ? webnn_builder_greater : webnn_builder_lesser)(
						   n->M->b, x, z, &c));
			OX_B(n, "logicalAnd", webnn_builder_logical_and(n->M->b, o, c, &o));
		}
	}
	return set_bool(n, o);
}

/* Asin, Acos, Atan: a polynomial in WebNN's elementwise operations (importers/compose.c). */
static int op_inverse_trig(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	const char *ty = n->node->op_type;
	enum wnni_inverse_trig which = ty[1] == 's' ? WNNI_ASIN : ty[1] == 'c' ? WNNI_ACOS : WNNI_ATAN;
	enum webnn_data_type t = in_type(n, 0);
	if (t != WEBNN_FLOAT32 && t != WEBNN_FLOAT16)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a %s input (float only)",
			       webnn_data_type_name(t));
	OX_B(n, ty, wnni_inverse_trig(n->M->b, which, x, &o));
	return ox_set(n, 0, o);
}

/* Hyperbolic functions and their inverses from exp, log and sqrt. */
static int op_hyperbolic(struct ox_node *n)
{
	struct webnn_operand *x, *o, *a, *b2, *one, *half;
	struct webnn_builder *b = n->M->b;
	OX_IN(n, 0, x);
	enum webnn_data_type t = in_type(n, 0);
	if (ox_need_type(n, "exp", NULL, t))
		return -1;
	if (!(one = ox_scalar(n, t, 1)) || !(half = ox_scalar(n, t, 0.5)))
		return -1;
	const char *ty = n->node->op_type;
	if (strcmp(ty, "Sinh") == 0 || strcmp(ty, "Cosh") == 0) {
		OX_B(n, "exp", webnn_builder_exp(b, x, &a));
		OX_B(n, "neg", webnn_builder_neg(b, x, &b2));
		OX_B(n, "exp", webnn_builder_exp(b, b2, &b2));
		OX_B(n, "add", (ty[0] == 'S' && ty[3] == 'h' ? webnn_builder_sub : webnn_builder_add)(
				       b, a, b2, &o));
		OX_B(n, "mul", webnn_builder_mul(b, o, half, &o));
	} else if (strcmp(ty, "Asinh") == 0 || strcmp(ty, "Acosh") == 0) {
		/* log(x + sqrt(x^2 +- 1)) */
		OX_B(n, "mul", webnn_builder_mul(b, x, x, &a));
		OX_B(n, "add", (ty[1] == 's' ? webnn_builder_add : webnn_builder_sub)(b, a, one, &a));
		OX_B(n, "sqrt", webnn_builder_sqrt(b, a, &a));
		OX_B(n, "add", webnn_builder_add(b, x, a, &o));
		OX_B(n, "log", webnn_builder_log(b, o, &o));
	} else {
		/* atanh: 0.5 log((1 + x) / (1 - x)) */
		OX_B(n, "add", webnn_builder_add(b, one, x, &a));
		OX_B(n, "sub", webnn_builder_sub(b, one, x, &b2));
		OX_B(n, "div", webnn_builder_div(b, a, b2, &o));
		OX_B(n, "log", webnn_builder_log(b, o, &o));
		OX_B(n, "mul", webnn_builder_mul(b, o, half, &o));
	}
	return ox_set(n, 0, o);
}

static int op_shrink(struct ox_node *n)
{
	struct webnn_operand *x, *o, *l, *nl, *bias, *z, *c, *v;
	struct webnn_builder *b = n->M->b;
	OX_IN(n, 0, x);
	enum webnn_data_type t = in_type(n, 0);
	double lambd = ox_attr_f(n, "lambd", 0.5f), bi = ox_attr_f(n, "bias", 0.0f);
	if (!(l = ox_scalar(n, t, lambd)) || !(nl = ox_scalar(n, t, -lambd)) ||
	    !(bias = ox_scalar(n, t, bi)) || !(z = ox_scalar(n, t, 0)))
		return -1;
	OX_B(n, "lesser", webnn_builder_lesser(b, x, nl, &c));
	OX_B(n, "add", webnn_builder_add(b, x, bias, &v));
	OX_B(n, "where", webnn_builder_where(b, c, v, z, &o));
	OX_B(n, "greater", webnn_builder_greater(b, x, l, &c));
	OX_B(n, "sub", webnn_builder_sub(b, x, bias, &v));
	OX_B(n, "where", webnn_builder_where(b, c, v, o, &o));
	return ox_set(n, 0, o);
}

static int op_prelu(struct ox_node *n)
{
	struct webnn_operand *x, *s, *o;
	OX_IN(n, 0, x);
	OX_IN(n, 1, s);
	if (ox_need_type(n, "prelu", NULL, in_type(n, 0)))
		return -1;
	struct ox_val *xv = n->in[0], *sv = n->in[1];
	if (n->opset < 7 && sv->rank == 1 && xv->rank > 2 && sv->dims[0] == xv->dims[1] &&
	    sv->dims[0] != xv->dims[xv->rank - 1]) {
		/* opset 6 and older: a [C] slope is per channel (axis 1) */
		uint32_t d[WEBNN_MAX_RANK];
		for (uint32_t i = 0; i < xv->rank - 1; i++)
			d[i] = i == 0 ? sv->dims[0] : 1;
		if (!(s = ox_reshape(n, s, xv->rank - 1, d)))
			return -1;
	}
	OX_B(n, "prelu", webnn_builder_prelu(n->M->b, x, s, &o));
	return ox_set(n, 0, o);
}

/* Clip: bounds from attributes (opset < 11) or inputs; constant bounds become clamp's
 * options, bounds computed at run time become max/min. */
static int op_clip(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	enum webnn_data_type t = in_type(n, 0);
	if (n->opset < 11) {
		struct webnn_clamp_options co = WEBNN_CLAMP_OPTIONS_INIT;
		co.has_min_value = co.has_max_value = true;
		co.min_value = ox_attr_f(n, "min", -INFINITY);
		co.max_value = ox_attr_f(n, "max", INFINITY);
		OX_B(n, "clamp", webnn_builder_clamp(n->M->b, x, &co, &o));
		return ox_set(n, 0, o);
	}
	o = x;
	struct webnn_clamp_options co = WEBNN_CLAMP_OPTIONS_INIT;
	bool clamp = false;
	for (int k = 1; k <= 2; k++) {
		if (!ox_has_in(n, (size_t)k))
			continue;
		struct ox_val *v = n->in[k];
		if (v->host && ox_elems(v->rank, v->dims) == 1) {
			if (t == WEBNN_INT64 || t == WEBNN_UINT64) {
				int64_t *iv;
				size_t c;
				if (ox_host_i64(n, v, "bound", &iv, &c))
					return -1;
				struct webnn_number num = t == WEBNN_INT64 ? WEBNN_NUMBER_I64(iv[0])
									   : WEBNN_NUMBER_U64((uint64_t)iv[0]);
				if (k == 1)
					co.min_number = num;
				else
					co.max_number = num;
			} else {
				double *dv;
				size_t c;
				if (ox_host_f64(n, v, "bound", &dv, &c))
					return -1;
				if (k == 1) {
					co.has_min_value = true;
					co.min_value = dv[0];
				} else {
					co.has_max_value = true;
					co.max_value = dv[0];
				}
			}
			clamp = true;
			continue;
		}
		struct webnn_operand *bnd;
		OX_IN(n, (size_t)k, bnd);
		OX_B(n, k == 1 ? "max" : "min",
		     (k == 1 ? webnn_builder_max : webnn_builder_min)(n->M->b, o, bnd, &o));
	}
	if (clamp || o == x)
		OX_B(n, "clamp", webnn_builder_clamp(n->M->b, o, &co, &o));
	return ox_set(n, 0, o);
}

static int op_where(struct ox_node *n)
{
	int f = ox_fold_elementwise(n);
	if (f)
		return f < 0 ? -1 : 0;
	struct webnn_operand *c, *a, *bb, *o;
	OX_IN(n, 0, c);
	OX_IN(n, 1, a);
	OX_IN(n, 2, bb);
	OX_B(n, "where", webnn_builder_where(n->M->b, c, a, bb, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = n->in[1]->onnx_type;
	return 0;
}

/* Mod: fmod=1 keeps the dividend's sign (C fmod), fmod=0 the divisor's (Python %). */
static int op_mod(struct ox_node *n)
{
	int f = ox_fold_elementwise(n);
	if (f)
		return f < 0 ? -1 : 0;
	struct webnn_builder *b = n->M->b;
	struct webnn_operand *x, *y, *q, *r, *z, *c1, *c2, *c, *o;
	OX_IN(n, 0, x);
	OX_IN(n, 1, y);
	enum webnn_data_type t = in_type(n, 0);
	bool fl = t == WEBNN_FLOAT32 || t == WEBNN_FLOAT16;
	int64_t fmod = ox_attr_i(n, "fmod", 0);
	if (fl && !fmod)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "fmod 0 on floating point input");
	if (!(z = ox_scalar(n, t, 0)))
		return -1;
	OX_B(n, "div", webnn_builder_div(b, x, y, &q));
	if (fl) {
		/* truncate the quotient: floor of |q| with q's sign */
		struct webnn_operand *fq, *cq;
		OX_B(n, "floor", webnn_builder_floor(b, q, &fq));
		OX_B(n, "ceil", webnn_builder_ceil(b, q, &cq));
		OX_B(n, "lesser", webnn_builder_lesser(b, q, z, &c));
		OX_B(n, "where", webnn_builder_where(b, c, cq, fq, &q));
	}
	OX_B(n, "mul", webnn_builder_mul(b, q, y, &r));
	OX_B(n, "sub", webnn_builder_sub(b, x, r, &r));
	if (fmod)
		return ox_set(n, 0, r);
	/* the remainder takes the divisor's sign: add y where r != 0 and signs differ */
	if (t == WEBNN_UINT8 || t == WEBNN_UINT32 || t == WEBNN_UINT64)
		return ox_set(n, 0, r);
	OX_B(n, "lesser", webnn_builder_lesser(b, r, z, &c1));
	OX_B(n, "lesser", webnn_builder_lesser(b, y, z, &c2));
	OX_B(n, "logicalXor", webnn_builder_logical_xor(b, c1, c2, &c));
	OX_B(n, "notEqual", webnn_builder_not_equal(b, r, z, &c1));
	OX_B(n, "logicalAnd", webnn_builder_logical_and(b, c, c1, &c));
	OX_B(n, "add", webnn_builder_add(b, r, y, &o));
	OX_B(n, "where", webnn_builder_where(b, c, o, r, &o));
	return ox_set(n, 0, o);
}

const struct ox_op ox_ops_elementwise[] = {
	{ "Abs", 1, 21, op_unary }, { "Neg", 1, 21, op_unary }, { "Ceil", 1, 21, op_unary },
	{ "Floor", 1, 21, op_unary }, { "Exp", 1, 21, op_unary }, { "Log", 1, 21, op_unary },
	{ "Sqrt", 1, 21, op_unary }, { "Sin", 7, 21, op_unary }, { "Cos", 7, 21, op_unary },
	{ "Tan", 7, 21, op_unary }, { "Erf", 9, 21, op_unary }, { "Reciprocal", 1, 21, op_unary },
	{ "Sign", 9, 21, op_unary }, { "Relu", 1, 21, op_unary }, { "Sigmoid", 1, 21, op_unary },
	{ "Tanh", 1, 21, op_unary }, { "Softplus", 1, 21, op_unary },
	{ "Softsign", 1, 21, op_unary }, { "Not", 1, 21, op_unary }, { "IsNaN", 9, 21, op_unary },
	{ "Round", 11, 21, op_unary }, { "Identity", 1, 21, op_unary },
	{ "HardSwish", 14, 21, op_unary },
	{ "Add", 1, 21, op_binary }, { "Sub", 1, 21, op_binary }, { "Mul", 1, 21, op_binary },
	{ "Div", 1, 21, op_binary }, { "Pow", 1, 21, op_binary }, { "Max", 1, 21, op_binary },
	{ "Min", 1, 21, op_binary }, { "Sum", 1, 21, op_binary }, { "Mean", 1, 21, op_binary },
	{ "Equal", 1, 21, op_binary }, { "Greater", 1, 21, op_binary },
	{ "Less", 1, 21, op_binary }, { "GreaterOrEqual", 12, 21, op_binary },
	{ "LessOrEqual", 12, 21, op_binary }, { "And", 1, 21, op_binary },
	{ "Or", 1, 21, op_binary }, { "Xor", 1, 21, op_binary },
	{ "Elu", 1, 21, op_elu }, { "Selu", 1, 21, op_selu }, { "Celu", 12, 21, op_celu },
	{ "LeakyRelu", 1, 21, op_leaky_relu }, { "HardSigmoid", 1, 21, op_hard_sigmoid },
	{ "ThresholdedRelu", 10, 21, op_thresholded_relu }, { "Mish", 18, 21, op_mish },
	{ "Gelu", 20, 21, op_gelu }, { "IsInf", 10, 21, op_is_inf },
	{ "Sinh", 9, 21, op_hyperbolic }, { "Cosh", 9, 21, op_hyperbolic },
	{ "Asin", 7, 21, op_inverse_trig }, { "Acos", 7, 21, op_inverse_trig },
	{ "Atan", 7, 21, op_inverse_trig },
	{ "Asinh", 9, 21, op_hyperbolic }, { "Acosh", 9, 21, op_hyperbolic },
	{ "Atanh", 9, 21, op_hyperbolic }, { "Shrink", 9, 21, op_shrink },
	{ "PRelu", 1, 21, op_prelu }, { "Clip", 1, 21, op_clip }, { "Where", 9, 21, op_where },
	{ "Mod", 10, 21, op_mod },
	{ NULL, 0, 0, NULL },
};
