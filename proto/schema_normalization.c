/* Normalization family (batch/instance/layer, softmax): wiring, inference, limits, resolution. */
#include "proto/schema.h"

static bool check_channel_operand(struct wnn_infer *c, uint32_t id, const char *role,
				  const struct wnn_desc *x, uint32_t size, const char *what)
{
	const struct wnn_desc *d = D(c, id);
	uint64_t want = size;
	return wnn_check_same_type(c, d, role, x, "input") && wnn_check_shape(c, d, role, &want, 1, what);
}

static bool infer_batch_norm(struct wnn_infer *c)
{
	const Webnn__Ipc__BatchNormalization *m = c->op->batch_normalization;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_axis(c, m->axis, x->rank, "axis"))
		return false;
	uint32_t n = x->dims[m->axis];
	const char *w = "input.shape[axis]";
	if (!check_channel_operand(c, m->mean, "mean", x, n, w) ||
	    !check_channel_operand(c, m->variance, "variance", x, n, w) ||
	    (m->has_scale && !check_channel_operand(c, m->scale, "scale", x, n, w)) ||
	    (m->has_bias && !check_channel_operand(c, m->bias, "bias", x, n, w)))
		return false;
	wnn_result_copy(c, x);
	return true;
}

static bool infer_instance_norm(struct wnn_infer *c)
{
	const Webnn__Ipc__InstanceNormalization *m = c->op->instance_normalization;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_rank(c, x, "input", 4, 4) ||
	    !wnn_check_enum(c, (int)m->layout, WEBNN__IPC__INPUT_LAYOUT__NHWC, "layout"))
		return false;
	uint32_t n = x->dims[m->layout == WEBNN__IPC__INPUT_LAYOUT__NCHW ? 1 : 3];
	const char *w = "input channels";
	if ((m->has_scale && !check_channel_operand(c, m->scale, "scale", x, n, w)) ||
	    (m->has_bias && !check_channel_operand(c, m->bias, "bias", x, n, w)))
		return false;
	wnn_result_copy(c, x);
	return true;
}

static bool infer_layer_norm(struct wnn_infer *c)
{
	const Webnn__Ipc__LayerNormalization *m = c->op->layer_normalization;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t axes[WNN_MAX_RANK], n_axes = 0, mask;
	char buf[96];
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->has_axes && !wnn_check_axes(c, m->axes, m->n_axes, x->rank, "axes", &mask))
		return false;
	n_axes = wnn_axes_or(m->has_axes, m->axes, m->n_axes, 1, x->rank, axes);
	const uint32_t ids[2] = { m->scale, m->bias };
	const bool has[2] = { m->has_scale, m->has_bias };
	const char *roles[2] = { "scale", "bias" };
	for (int k = 0; k < 2; k++) {
		if (!has[k])
			continue;
		const struct wnn_desc *d = D(c, ids[k]);
		if (!wnn_check_same_type(c, d, roles[k], x, "input"))
			return false;
		if (d->rank != n_axes)
			return wnn_failf(c, "%s rank is %" PRIu32 ", expected %" PRIu32
				     " (the number of axes)", roles[k], d->rank, n_axes);
		for (uint32_t i = 0; i < n_axes; i++)
			if (d->dims[i] != x->dims[axes[i]])
				return wnn_failf(c, "%s shape %s does not match the input dimensions "
					     "along the axes", roles[k], SHAPE(d, buf));
	}
	wnn_result_copy(c, x);
	return true;
}

static bool infer_softmax(struct wnn_infer *c)
{
	const Webnn__Ipc__Softmax *m = c->op->softmax;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_axis(c, m->axis, x->rank, "axis"))
		return false;
	wnn_result_copy(c, x);
	return true;
}

enum webnn_status wnn_resolve_softmax(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct wnn_softmax_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_SOFTMAX, &which, &name, diag));
	const Webnn__Ipc__Softmax *m = op->softmax;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	(void)out;
	CHECK(wnn_axis_in_range(m->axis, in->rank, name, diag));
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->axis = m->axis;
	wnn_axis_view(in, m->axis, &p->outer, &p->axis_size, &p->inner);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_batchnorm(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct wnn_batchnorm_attrs *p,
				   struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_BATCH_NORMALIZATION, &which, &name, diag));
	const Webnn__Ipc__BatchNormalization *m = op->batch_normalization;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	(void)out;
	CHECK(wnn_axis_in_range(m->axis, in->rank, name, diag));
	p->input = m->input, p->output = m->output, p->mean = m->mean, p->variance = m->variance;
	p->scale = WNN_NO_OPERAND, p->bias = WNN_NO_OPERAND;
	p->type = in->type;
	p->axis = m->axis;
	wnn_axis_view(in, m->axis, &p->outer, &p->channels, &p->inner);
	double eps = m->has_epsilon ? m->epsilon
				    : wnn_ops[WNN_OP_BATCH_NORMALIZATION].defaults.epsilon;
	p->epsilon = wnn_cast_float(eps, p->type);
	struct {
		uint32_t id;
		bool given;
		const char *role;
	} vec[4] = { { m->mean, true, "mean" },
		     { m->variance, true, "variance" },
		     { m->scale, m->has_scale, "scale" },
		     { m->bias, m->has_bias, "bias" } };
	for (int i = 0; i < 4; i++) {
		if (!vec[i].given)
			continue;
		OPERAND(v, vec[i].id, vec[i].role);
		if (v->rank != 1 || v->dims[0] != p->channels)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: %s shape must be [%u]", name, vec[i].role,
					    (unsigned)p->channels);
	}
	if (m->has_scale)
		p->has_scale = true, p->scale = m->scale;
	if (m->has_bias)
		p->has_bias = true, p->bias = m->bias;
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_norm(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, struct wnn_norm_attrs *p, struct wnn_diag *diag)
{
	const char *name = "operation";
	enum wnn_op o = op ? wnn_op_from_id(op->op) : WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	uint32_t family = o == WNN_OP_LAYER_NORMALIZATION
				  ? WEBNN__IPC__OPERATION__ATTRS_LAYER_NORMALIZATION
				  : WEBNN__IPC__OPERATION__ATTRS_INSTANCE_NORMALIZATION;
	CHECK(wnn_check_op(op, family, &p->op, &name, diag));
	uint32_t in_id, out_id, s_id, b_id;
	bool has_s, has_b;
	double eps;
	if (p->op == WNN_OP_INSTANCE_NORMALIZATION) {
		const Webnn__Ipc__InstanceNormalization *m = op->instance_normalization;
		in_id = m->input, out_id = m->output, s_id = m->scale, b_id = m->bias;
		has_s = m->has_scale, has_b = m->has_bias;
		eps = m->has_epsilon ? m->epsilon : wnn_ops[p->op].defaults.epsilon;
		OPERAND(in, in_id, "input");
		CHECK(wnn_rank_is(in, 4, name, "input", diag));
		bool nhwc = m->layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
		const uint32_t red_nchw[2] = { 2, 3 }, red_nhwc[2] = { 1, 2 };
		CHECK(wnn_make_reduction(in, nhwc ? red_nhwc : red_nchw, 2, &p->r, name, diag));
		p->per_channel = true;
		p->channels = in->dims[nhwc ? 3 : 1];
	} else {
		const Webnn__Ipc__LayerNormalization *m = op->layer_normalization;
		in_id = m->input, out_id = m->output, s_id = m->scale, b_id = m->bias;
		has_s = m->has_scale, has_b = m->has_bias;
		eps = m->has_epsilon ? m->epsilon : wnn_ops[p->op].defaults.epsilon;
		OPERAND(in, in_id, "input");
		if (m->has_axes && m->n_axes > in->rank)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: %zu axes for an input of rank %u", name, m->n_axes,
					    in->rank);
		uint32_t axes[WNN_MAX_RANK];
		uint32_t n_axes = wnn_axes_or(m->has_axes, m->axes, m->n_axes, 1, in->rank, axes);
		CHECK(wnn_make_reduction(in, axes, n_axes, &p->r, name, diag));
	}
	OPERAND(in, in_id, "input");
	OPERAND(out, out_id, "output");
	CHECK(wnn_same_shape(in, out, name, "output shape differs from the input shape", diag));
	p->input = in_id, p->output = out_id;
	p->scale = WNN_NO_OPERAND, p->bias = WNN_NO_OPERAND;
	p->type = in->type;
	p->epsilon = wnn_cast_float(eps, p->type);
	uint64_t want = p->per_channel ? p->channels : p->r.red_count;
	const uint32_t ids[2] = { s_id, b_id };
	const bool has[2] = { has_s, has_b };
	const char *roles[2] = { "scale", "bias" };
	for (int k = 0; k < 2; k++) {
		if (!has[k])
			continue;
		OPERAND(v, ids[k], roles[k]);
		if (v->type != p->type || wnn_shape_count(v->rank, v->dims) != want)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: %s must have %llu elements of the input type", name,
					    roles[k], (unsigned long long)want);
	}
	if (has_s)
		p->has_scale = true, p->scale = s_id;
	if (has_b)
		p->has_bias = true, p->bias = b_id;
	return WEBNN_STATUS_OK;
}

/* ---- the table entries: operands, inference, role limits and resolution by attrs kind */

static bool inputs_batch_normalization(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	const Webnn__Ipc__BatchNormalization *m = op->batch_normalization;
	NEED(m);
	IN(m->input, "input");
	IN(m->mean, "mean");
	IN(m->variance, "variance");
	OPT(m, scale, "scale");
	OPT(m, bias, "bias");
	return true;
}

static bool outputs_batch_normalization(const Webnn__Ipc__Operation *op, const uint32_t **list,
		size_t *n)
{
	OUT_ONE(op->batch_normalization);
}

static void roles_batch_normalization(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn,
		void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 1, WNN_MAX_RANK);
	fn(ud, "mean", t, 1, 1);
	fn(ud, "variance", t, 1, 1);
	fn(ud, "scale", t, 1, 1);
	fn(ud, "bias", t, 1, 1);
	fn(ud, "output", t, 1, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(batchnorm)

const struct wnn_attrs_rules wnn_attrs_batch_normalization = {
	.inputs = inputs_batch_normalization,
	.outputs = outputs_batch_normalization,
	.infer = infer_batch_norm,
	.roles = roles_batch_normalization,
	.resolve = resolve_any_batchnorm,
};

static bool inputs_instance_normalization(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	const Webnn__Ipc__InstanceNormalization *m = op->instance_normalization;
	NEED(m);
	IN(m->input, "input");
	OPT(m, scale, "scale");
	OPT(m, bias, "bias");
	return true;
}

static bool outputs_instance_normalization(const Webnn__Ipc__Operation *op, const uint32_t **list,
		size_t *n)
{
	OUT_ONE(op->instance_normalization);
}

static void roles_instance_normalization(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn,
		void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 4, 4);
	fn(ud, "scale", t, 1, 1);
	fn(ud, "bias", t, 1, 1);
	fn(ud, "output", t, 4, 4);
}

WNN_RESOLVE_ANY(norm)

const struct wnn_attrs_rules wnn_attrs_instance_normalization = {
	.inputs = inputs_instance_normalization,
	.outputs = outputs_instance_normalization,
	.infer = infer_instance_norm,
	.roles = roles_instance_normalization,
	.resolve = resolve_any_norm,
};

static bool inputs_layer_normalization(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	const Webnn__Ipc__LayerNormalization *m = op->layer_normalization;
	NEED(m);
	IN(m->input, "input");
	OPT(m, scale, "scale");
	OPT(m, bias, "bias");
	return true;
}

static bool outputs_layer_normalization(const Webnn__Ipc__Operation *op, const uint32_t **list,
		size_t *n)
{
	OUT_ONE(op->layer_normalization);
}

static void roles_layer_normalization(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn,
		void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "scale", t, 0, WNN_MAX_RANK);
	fn(ud, "bias", t, 0, WNN_MAX_RANK);
	fn(ud, "output", t, 0, WNN_MAX_RANK);
}

const struct wnn_attrs_rules wnn_attrs_layer_normalization = {
	.inputs = inputs_layer_normalization,
	.outputs = outputs_layer_normalization,
	.infer = infer_layer_norm,
	.roles = roles_layer_normalization,
	.resolve = resolve_any_norm,
};

static bool inputs_softmax(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->softmax);
	IN(op->softmax->input, "input");
	return true;
}

static bool outputs_softmax(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->softmax);
}

static void roles_softmax(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 1, WNN_MAX_RANK);
	fn(ud, "output", t, 1, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(softmax)

const struct wnn_attrs_rules wnn_attrs_softmax = {
	.inputs = inputs_softmax,
	.outputs = outputs_softmax,
	.infer = infer_softmax,
	.roles = roles_softmax,
	.resolve = resolve_any_softmax,
};
