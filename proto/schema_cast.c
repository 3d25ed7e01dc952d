/* Cast family (cast, quantizeLinear, dequantizeLinear): wiring, limits, the resolvers. */
#include "proto/schema.h"

/* int4/uint4 are an extension of the spec's tables, as in WPT and Chromium (README.md). */
#define QUANT_TYPES (WNN_DT_QUANT | WNN_DT_BIT(WNN_U32))

static bool resolve_cast(struct wnn_resolving *c, struct wnn_cast_attrs *p)
{
	const Webnn__Ipc__Cast *m = c->op->cast;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	enum wnn_dtype to = (enum wnn_dtype)m->data_type;
	if (wnn_dtype_is_4bit(to))
		return wnn_failf(c, "target data type %s is not supported (int4/uint4 are only "
			     "quantizeLinear's output and dequantizeLinear's input)", wnn_dtype_name(to));
	if (wnn_dtype_size(to) == 0)
		return wnn_failf(c, "target data type %d is not a valid data type", (int)m->data_type);
	wnn_result_copy(c, x)->type = to;
	p->input = m->input, p->output = m->output;
	p->in_type = x->type, p->out_type = to;
	p->count = wnn_shape_count(x->rank, x->dims);
	return true;
}

static bool blockwise(const struct wnn_desc *from, const struct wnn_desc *to)
{
	if (from->rank != to->rank)
		return false;
	for (uint32_t i = 0; i < to->rank; i++)
		if (to->dims[i] % from->dims[i])
			return false;
	return true;
}

static bool resolve_quantize(struct wnn_resolving *c, struct wnn_quantize_attrs *p)
{
	const Webnn__Ipc__QuantizeLinear *m = c->op->quantize_linear;
	const struct wnn_desc *x = D(c, m->input), *s = D(c, m->scale), *z = D(c, m->zero_point);
	const uint32_t qtypes = QUANT_TYPES;
	char sa[96], sb[96];
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	if (c->kind == WNN_OP_QUANTIZE_LINEAR) {
		if (!wnn_check_type(c, s, "scale", WNN_DT_FLOAT) ||
		    !wnn_check_same_type(c, s, "scale", x, "input") ||
		    !wnn_check_type(c, z, "zeroPoint", qtypes))
			return false;
	} else {
		if (!wnn_check_type(c, s, "scale", WNN_DT_FLOAT) ||
		    !wnn_check_type(c, z, "zeroPoint", qtypes) ||
		    !wnn_check_same_type(c, z, "zeroPoint", x, "input"))
			return false;
	}
	if (s->rank != x->rank || z->rank != x->rank)
		return wnn_failf(c, "scale rank %" PRIu32 " and zeroPoint rank %" PRIu32
			     " must equal the input rank %" PRIu32, s->rank, z->rank, x->rank);
	if (memcmp(s->dims, z->dims, sizeof(uint32_t) * s->rank) != 0)
		return wnn_failf(c, "scale shape %s differs from zeroPoint shape %s", SHAPE(s, sa),
			     SHAPE(z, sb));
	if (!blockwise(s, x))
		return wnn_failf(c, "scale shape %s is not blockwise broadcastable to input shape %s",
			     SHAPE(s, sa), SHAPE(x, sb));
	p->out_type = c->kind == WNN_OP_QUANTIZE_LINEAR ? z->type : s->type;
	wnn_result_copy(c, x)->type = p->out_type;
	p->op = c->kind;
	p->input = m->input, p->scale = m->scale, p->zero_point = m->zero_point;
	p->output = m->output;
	p->in_type = x->type, p->scale_type = s->type, p->zp_type = z->type;
	p->rank = x->rank;
	for (uint32_t i = 0; i < x->rank; i++) {
		p->dims[i] = x->dims[i];
		p->scale_dims[i] = s->dims[i];
		p->block[i] = x->dims[i] / s->dims[i];
	}
	wnn_shape_strides(x->rank, s->dims, p->scale_strides);
	p->count = wnn_shape_count(x->rank, x->dims);
	return true;
}

uint64_t wnn_quantize_index(const struct wnn_quantize_attrs *p, uint64_t i)
{
	uint64_t off = 0;
	for (uint32_t d = p->rank; d-- > 0;) {
		uint64_t c = i % p->dims[d];
		i /= p->dims[d];
		off += (c / p->block[d]) * p->scale_strides[d];
	}
	return off;
}

/* ---- the table entries: operands, role limits and the resolver by attrs kind */

static bool inputs_cast(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->cast);
	IN(op->cast->input, "input");
	return true;
}

static bool outputs_cast(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->cast);
}

static void roles_cast(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "output", WNN_DT_ALL, 0, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_cast, cast)

const struct wnn_attrs_rules wnn_attrs_cast = {
	.inputs = inputs_cast,
	.outputs = outputs_cast,
	.resolve = resolve_cast_any,
	.roles = roles_cast,
};

static bool inputs_quantize_linear(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->quantize_linear);
	IN(op->quantize_linear->input, "input");
	IN(op->quantize_linear->scale, "scale");
	IN(op->quantize_linear->zero_point, "zeroPoint");
	return true;
}

static bool outputs_quantize_linear(const Webnn__Ipc__Operation *op, const uint32_t **list,
		size_t *n)
{
	OUT_ONE(op->quantize_linear);
}

static void roles_quantize_linear(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn,
		void *ud)
{
	(void)out;
	if (op == WNN_OP_QUANTIZE_LINEAR) {
		fn(ud, "input", t, 0, WNN_MAX_RANK);
		fn(ud, "scale", t, 0, WNN_MAX_RANK);
		fn(ud, "zeroPoint", QUANT_TYPES, 0, WNN_MAX_RANK);
		fn(ud, "output", QUANT_TYPES, 0, WNN_MAX_RANK);
	} else {
		fn(ud, "input", t, 0, WNN_MAX_RANK);
		fn(ud, "scale", WNN_DT_FLOAT, 0, WNN_MAX_RANK);
		fn(ud, "zeroPoint", t, 0, WNN_MAX_RANK);
		fn(ud, "output", WNN_DT_FLOAT, 0, WNN_MAX_RANK);
	}
}

WNN_RESOLVER(resolve_quantize, quantize)

const struct wnn_attrs_rules wnn_attrs_quantize_linear = {
	.inputs = inputs_quantize_linear,
	.outputs = outputs_quantize_linear,
	.resolve = resolve_quantize_any,
	.roles = roles_quantize_linear,
};
