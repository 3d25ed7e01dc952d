/* Cast family (cast, quantizeLinear, dequantizeLinear): wiring, inference, limits, resolution. */
#include "proto/schema.h"

/* int4/uint4 are an extension of the spec's tables, as in WPT and Chromium (README.md). */
#define QUANT_TYPES (WNN_DT_QUANT | WNN_DT_BIT(WNN_U32))

static bool infer_cast(struct wnn_infer *c)
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
	wnn_result_copy(c, x)->type = (enum wnn_dtype)m->data_type;
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

static bool infer_quantize(struct wnn_infer *c)
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
	wnn_result_copy(c, x)->type = c->kind == WNN_OP_QUANTIZE_LINEAR ? z->type : s->type;
	return true;
}

enum webnn_status wnn_resolve_cast(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, struct wnn_cast_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_CAST, &which, &name, diag));
	const Webnn__Ipc__Cast *m = op->cast;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(wnn_same_count(in, out, name, diag));
	p->input = m->input, p->output = m->output;
	p->in_type = in->type, p->out_type = out->type;
	p->count = wnn_shape_count(in->rank, in->dims);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_quantize(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				  size_t n_descs, struct wnn_quantize_attrs *p,
				  struct wnn_diag *diag)
{
	const char *name;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_QUANTIZE_LINEAR, &p->op, &name, diag));
	const Webnn__Ipc__QuantizeLinear *m = op->quantize_linear;
	OPERAND(in, m->input, "input");
	OPERAND(scale, m->scale, "scale");
	OPERAND(zp, m->zero_point, "zeroPoint");
	OPERAND(out, m->output, "output");
	CHECK(wnn_same_shape(in, out, name, "output shape differs from the input shape", diag));
	CHECK(wnn_same_shape(scale, zp, name, "scale and zeroPoint shapes differ", diag));
	if (scale->rank != in->rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: scale rank %u differs from the input rank %u", name,
				    scale->rank, in->rank);
	p->input = m->input, p->scale = m->scale, p->zero_point = m->zero_point;
	p->output = m->output;
	p->in_type = in->type, p->scale_type = scale->type, p->zp_type = zp->type;
	p->out_type = out->type;
	p->rank = in->rank;
	for (uint32_t i = 0; i < in->rank; i++) {
		if (in->dims[i] % scale->dims[i])
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: scale dimension %u (%u) does not divide the input "
					    "dimension %u", name, i, scale->dims[i], in->dims[i]);
		p->dims[i] = in->dims[i];
		p->scale_dims[i] = scale->dims[i];
		p->block[i] = in->dims[i] / scale->dims[i];
	}
	wnn_shape_strides(in->rank, scale->dims, p->scale_strides);
	p->count = wnn_shape_count(in->rank, in->dims);
	return WEBNN_STATUS_OK;
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

/* ---- the table entries: operands, inference, role limits and resolution by attrs kind */

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

WNN_RESOLVE_ANY(cast)

const struct wnn_attrs_rules wnn_attrs_cast = {
	.inputs = inputs_cast,
	.outputs = outputs_cast,
	.infer = infer_cast,
	.roles = roles_cast,
	.resolve = resolve_any_cast,
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

WNN_RESOLVE_ANY(quantize)

const struct wnn_attrs_rules wnn_attrs_quantize_linear = {
	.inputs = inputs_quantize_linear,
	.outputs = outputs_quantize_linear,
	.infer = infer_quantize,
	.roles = roles_quantize_linear,
	.resolve = resolve_any_quantize,
};
