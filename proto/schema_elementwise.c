/* Elementwise family (binary, unary, clamp, where, ...): wiring, limits, the resolvers. */
#include "proto/schema.h"

static const char *unary_role(uint32_t wire_id)
{
	enum wnn_op k = wnn_op_from_id(wire_id);
	/* logicalNot/isNaN/isInfinite name their operand "a" (MLLogicalNotSupportLimits). */
	if (k == WNN_OP_LOGICAL_NOT || k == WNN_OP_IS_NAN || k == WNN_OP_IS_INFINITE)
		return "a";
	return "input";
}

/* The output of broadcast inputs: bc gets the strides of each input, the result their shape.
 * Fails quietly (the caller names the rule) when they do not broadcast. */
static bool bcast_result(struct wnn_resolving *c, const struct wnn_desc *const *in, int n,
			 enum wnn_dtype type, struct wnn_bcast *bc)
{
	struct wnn_diag ignored = { 0 };
	if (wnn_broadcast(in, n, bc, c->name, &ignored) != WEBNN_STATUS_OK)
		return false;
	struct wnn_desc *r = wnn_result(c, type, bc->rank);
	memcpy(r->dims, bc->dims, sizeof(r->dims));
	return true;
}

static bool resolve_binary(struct wnn_resolving *c, struct wnn_binary_attrs *p)
{
	const Webnn__Ipc__ElementwiseBinary *m = c->op->binary;
	const struct wnn_desc *a = D(c, m->a), *b = D(c, m->b);
	char sa[96], sb[96];
	if (!wnn_check_type(c, a, "a", first_mask(c)) || !wnn_check_same_type(c, b, "b", a, "a"))
		return false;
	p->op = c->kind;
	p->a = m->a, p->b = m->b, p->output = m->output;
	p->type = a->type;
	p->out_type = wnn_ops[c->kind].out == WNN_OUT_U8 ? WNN_U8 : a->type;
	if (!bcast_result(c, (const struct wnn_desc *[2]){ a, b }, 2, p->out_type, &p->bc))
		return wnn_failf(c, "input shapes %s and %s are not broadcastable", SHAPE(a, sa),
			     SHAPE(b, sb));
	return true;
}

static bool resolve_unary(struct wnn_resolving *c, struct wnn_unary_attrs *p)
{
	const Webnn__Ipc__ElementwiseUnary *m = c->op->unary;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, unary_role(c->op->op), first_mask(c)))
		return false;
	struct wnn_desc *r = wnn_result_copy(c, x);
	if (wnn_ops[c->kind].out == WNN_OUT_U8)
		r->type = WNN_U8;
	p->op = c->kind;
	p->input = m->input, p->output = m->output;
	p->type = x->type, p->out_type = r->type;
	p->count = wnn_shape_count(x->rank, x->dims);
	double alpha = wnn_ops[p->op].defaults.alpha, beta = wnn_ops[p->op].defaults.beta;
	if (m->has_alpha)
		alpha = m->alpha;
	if (m->has_beta)
		beta = m->beta;
	p->alpha = wnn_cast_float(alpha, p->type);
	p->beta = wnn_cast_float(beta, p->type);
	return true;
}

/* Compares two MLNumbers after the spec's cast to t: 1 when a > b, else 0 (NaN compares
 * false, as in the spec). */
static int number_gt(const Webnn__Ipc__Number *a, const Webnn__Ipc__Number *b, enum wnn_dtype t)
{
	union {
		int8_t i8;
		uint8_t u8;
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
	} x, y;
	switch (t) {
	case WNN_F32:
		return (float)wnn_number_to_double(a) > (float)wnn_number_to_double(b);
	case WNN_F16:
		return wnn_f16_to_f32(wnn_f32_to_f16((float)wnn_number_to_double(a))) >
		       wnn_f16_to_f32(wnn_f32_to_f16((float)wnn_number_to_double(b)));
	default:
		break;
	}
	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	wnn_number_to_bytes(a, t, &x);
	wnn_number_to_bytes(b, t, &y);
	switch (t) {
	case WNN_I8: return x.i8 > y.i8;
	case WNN_U8: return x.u8 > y.u8;
	case WNN_I32: return x.i32 > y.i32;
	case WNN_U32: return x.u32 > y.u32;
	case WNN_I64: return x.i64 > y.i64;
	case WNN_U64: return x.u64 > y.u64;
	default: return 0;
	}
}

static bool number_present(const Webnn__Ipc__Number *n)
{
	return n && n->value_case != WEBNN__IPC__NUMBER__VALUE__NOT_SET;
}

/* A clamp bound after the spec's casting to t (saturating for integers, NaN -> 0), as a double
 * and exactly as a signed or unsigned integer. An absent bound is the operator's default from
 * ops.def (-Infinity/+Infinity, which saturates to an integer type's range). */
static void clamp_bound(const Webnn__Ipc__Number *given, double dflt, enum wnn_dtype t, double *d,
			int64_t *si, uint64_t *ui)
{
	Webnn__Ipc__Number fallback = WEBNN__IPC__NUMBER__INIT;
	union {
		int8_t i8;
		uint8_t u8;
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
	} v;
	if (!number_present(given)) {
		fallback.value_case = WEBNN__IPC__NUMBER__VALUE_F;
		fallback.f = dflt;
		given = &fallback;
	}
	memset(&v, 0, sizeof(v));
	wnn_number_to_bytes(given, t, &v);
	*si = 0, *ui = 0;
	switch (t) {
	case WNN_I8: *si = v.i8; break;
	case WNN_I32: *si = v.i32; break;
	case WNN_I64: *si = v.i64; break;
	case WNN_U8: *ui = v.u8; break;
	case WNN_U32: *ui = v.u32; break;
	case WNN_U64: *ui = v.u64; break;
	default:
		*d = wnn_cast_float(wnn_number_to_double(given), t);
		return;
	}
	*d = *ui ? (double)*ui : (double)*si;
}

static bool resolve_clamp(struct wnn_resolving *c, struct wnn_clamp_attrs *p)
{
	const Webnn__Ipc__Clamp *m = c->op->clamp;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	/* An absent bound does not constrain (the spec's defaults are -Infinity/+Infinity). */
	if (number_present(m->min_value) && number_present(m->max_value) &&
	    number_gt(m->min_value, m->max_value, x->type))
		return wnn_failf(c, "minValue %g is greater than maxValue %g after casting to %s",
			     wnn_number_to_double(m->min_value), wnn_number_to_double(m->max_value),
			     wnn_dtype_name(x->type));
	wnn_result_copy(c, x);
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	p->count = wnn_shape_count(x->rank, x->dims);
	const struct wnn_op_defaults *dflt = &wnn_ops[c->kind].defaults;
	clamp_bound(m->min_value, dflt->min_value, p->type, &p->min, &p->min_i, &p->min_u);
	clamp_bound(m->max_value, dflt->max_value, p->type, &p->max, &p->max_i, &p->max_u);
	return true;
}

static bool resolve_prelu(struct wnn_resolving *c, struct wnn_prelu_attrs *p)
{
	const Webnn__Ipc__Prelu *m = c->op->prelu;
	const struct wnn_desc *x = D(c, m->input), *s = D(c, m->slope);
	char sa[96], sb[96];
	if (!wnn_check_type(c, x, "input", first_mask(c)) ||
	    !wnn_check_same_type(c, s, "slope", x, "input"))
		return false;
	p->input = m->input, p->slope = m->slope, p->output = m->output;
	p->type = x->type;
	if (!bcast_result(c, (const struct wnn_desc *[2]){ x, s }, 2, x->type, &p->bc))
		return wnn_failf(c, "slope shape %s is not broadcastable with input shape %s",
			     SHAPE(s, sa), SHAPE(x, sb));
	return true;
}

static bool resolve_where(struct wnn_resolving *c, struct wnn_where_attrs *p)
{
	const Webnn__Ipc__Where *m = c->op->where;
	const struct wnn_desc *cond = D(c, m->condition), *t = D(c, m->true_value),
			      *f = D(c, m->false_value);
	char sa[96], sb[96];
	if (!wnn_check_type(c, cond, "condition", first_mask(c)) ||
	    !wnn_check_type(c, t, "trueValue", WNN_DT_ALL) ||
	    !wnn_check_same_type(c, f, "falseValue", t, "trueValue"))
		return false;
	struct wnn_desc tf = { 0 };
	if (!wnn_bcast_bi(t, f, &tf))
		return wnn_failf(c, "trueValue shape %s and falseValue shape %s are not broadcastable",
			     SHAPE(t, sa), SHAPE(f, sb));
	p->condition = m->condition, p->true_value = m->true_value;
	p->false_value = m->false_value, p->output = m->output;
	p->type = t->type;
	if (!bcast_result(c, (const struct wnn_desc *[3]){ cond, t, f }, 3, t->type, &p->bc))
		return wnn_failf(c, "condition shape %s is not broadcastable with %s", SHAPE(cond, sa),
			     SHAPE(&tf, sb));
	return true;
}

/* ---- the table entries: operands, role limits and the resolver by attrs kind */

static bool inputs_binary(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->binary);
	IN(op->binary->a, "a");
	IN(op->binary->b, "b");
	return true;
}

static bool outputs_binary(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->binary);
}

static void roles_binary(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	fn(ud, "a", t, 0, WNN_MAX_RANK);
	fn(ud, "b", t, 0, WNN_MAX_RANK);
	fn(ud, "output", out, 0, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_binary, binary)

const struct wnn_attrs_rules wnn_attrs_binary = {
	.inputs = inputs_binary,
	.outputs = outputs_binary,
	.roles = roles_binary,
	.resolve = resolve_binary_any,
};

static bool inputs_unary(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->unary);
	IN(op->unary->input, unary_role(op->op));
	return true;
}

static bool outputs_unary(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->unary);
}

static void roles_unary(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	bool logical = op == WNN_OP_LOGICAL_NOT || op == WNN_OP_IS_NAN ||
		       op == WNN_OP_IS_INFINITE;
	fn(ud, logical ? "a" : "input", t, 0, WNN_MAX_RANK);
	fn(ud, "output", out, 0, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_unary, unary)

const struct wnn_attrs_rules wnn_attrs_unary = {
	.inputs = inputs_unary,
	.outputs = outputs_unary,
	.roles = roles_unary,
	.resolve = resolve_unary_any,
};

static bool inputs_clamp(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->clamp);
	IN(op->clamp->input, "input");
	return true;
}

static bool outputs_clamp(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->clamp);
}

static void roles_clamp(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	/* clamp expand pad reduce* reshape reverse slice tile transpose: one input of any
	 * rank and an output of its type. */
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "output", t, 0, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_clamp, clamp)

const struct wnn_attrs_rules wnn_attrs_clamp = {
	.inputs = inputs_clamp,
	.outputs = outputs_clamp,
	.roles = roles_clamp,
	.resolve = resolve_clamp_any,
};

static bool inputs_prelu(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->prelu);
	IN(op->prelu->input, "input");
	IN(op->prelu->slope, "slope");
	return true;
}

static bool outputs_prelu(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->prelu);
}

static void roles_prelu(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "slope", t, 0, WNN_MAX_RANK);
	fn(ud, "output", t, 0, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_prelu, prelu)

const struct wnn_attrs_rules wnn_attrs_prelu = {
	.inputs = inputs_prelu,
	.outputs = outputs_prelu,
	.roles = roles_prelu,
	.resolve = resolve_prelu_any,
};

static bool inputs_where(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->where);
	IN(op->where->condition, "condition");
	IN(op->where->true_value, "trueValue");
	IN(op->where->false_value, "falseValue");
	return true;
}

static bool outputs_where(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->where);
}

static void roles_where(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "condition", t, 0, WNN_MAX_RANK);
	fn(ud, "trueValue", WNN_DT_ALL, 0, WNN_MAX_RANK);
	fn(ud, "falseValue", WNN_DT_ALL, 0, WNN_MAX_RANK);
	fn(ud, "output", WNN_DT_ALL, 0, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_where, where)

const struct wnn_attrs_rules wnn_attrs_where = {
	.inputs = inputs_where,
	.outputs = outputs_where,
	.roles = roles_where,
	.resolve = resolve_where_any,
};
