/* Normalization family (batch/instance/layer, softmax): wiring, limits, the resolvers. */
#include "proto/schema.h"

static bool check_channel_operand(struct wnn_resolving *c, uint32_t id, const char *role,
				  const struct wnn_desc *x, uint32_t size, const char *what)
{
	const struct wnn_desc *d = D(c, id);
	uint64_t want = size;
	return wnn_check_same_type(c, d, role, x, "input") && wnn_check_shape(c, d, role, &want, 1, what);
}

static bool resolve_batch_norm(struct wnn_resolving *c, struct wnn_batchnorm_attrs *p)
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
	p->input = m->input, p->output = m->output, p->mean = m->mean, p->variance = m->variance;
	p->scale = m->has_scale ? m->scale : WNN_NO_OPERAND;
	p->bias = m->has_bias ? m->bias : WNN_NO_OPERAND;
	p->has_scale = m->has_scale, p->has_bias = m->has_bias;
	p->type = x->type;
	p->axis = m->axis;
	wnn_axis_view(x, m->axis, &p->outer, &p->channels, &p->inner);
	double eps = m->has_epsilon ? m->epsilon : wnn_ops[c->kind].defaults.epsilon;
	p->epsilon = wnn_cast_float(eps, p->type);
	return true;
}

/* What both instance and layer normalization resolve alike once their rules hold. */
static void norm_common(struct wnn_resolving *c, const struct wnn_desc *x, uint32_t in, uint32_t out,
			uint32_t scale, bool has_scale, uint32_t bias, bool has_bias,
			bool has_epsilon, double epsilon, struct wnn_norm_attrs *p)
{
	wnn_result_copy(c, x);
	p->op = c->kind;
	p->input = in, p->output = out;
	p->scale = has_scale ? scale : WNN_NO_OPERAND;
	p->bias = has_bias ? bias : WNN_NO_OPERAND;
	p->has_scale = has_scale, p->has_bias = has_bias;
	p->type = x->type;
	p->epsilon = wnn_cast_float(has_epsilon ? epsilon : wnn_ops[c->kind].defaults.epsilon,
				    p->type);
}

static bool resolve_instance_norm(struct wnn_resolving *c, struct wnn_norm_attrs *p)
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
	norm_common(c, x, m->input, m->output, m->scale, m->has_scale, m->bias, m->has_bias,
		    m->has_epsilon, m->epsilon, p);
	bool nhwc = m->layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	const uint32_t red_nchw[2] = { 2, 3 }, red_nhwc[2] = { 1, 2 };
	p->per_channel = true;
	p->channels = n;
	return wnn_make_reduction(x, nhwc ? red_nhwc : red_nchw, 2, &p->r, c->name, c->diag) ==
	       WEBNN_STATUS_OK;
}

static bool resolve_layer_norm(struct wnn_resolving *c, struct wnn_norm_attrs *p)
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
	norm_common(c, x, m->input, m->output, m->scale, m->has_scale, m->bias, m->has_bias,
		    m->has_epsilon, m->epsilon, p);
	/* the axes were checked above: the split cannot fail */
	return wnn_make_reduction(x, axes, n_axes, &p->r, c->name, c->diag) == WEBNN_STATUS_OK;
}

static bool resolve_softmax(struct wnn_resolving *c, struct wnn_softmax_attrs *p)
{
	const Webnn__Ipc__Softmax *m = c->op->softmax;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_axis(c, m->axis, x->rank, "axis"))
		return false;
	wnn_result_copy(c, x);
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	p->axis = m->axis;
	wnn_axis_view(x, m->axis, &p->outer, &p->axis_size, &p->inner);
	return true;
}

/* ---- the table entries: operands, role limits and the resolver by attrs kind */

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

WNN_RESOLVER(resolve_batch_norm, batchnorm)

const struct wnn_attrs_rules wnn_attrs_batch_normalization = {
	.inputs = inputs_batch_normalization,
	.outputs = outputs_batch_normalization,
	.resolve = resolve_batch_norm_any,
	.roles = roles_batch_normalization,
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

WNN_RESOLVER(resolve_instance_norm, norm)
WNN_RESOLVER(resolve_layer_norm, norm)

const struct wnn_attrs_rules wnn_attrs_instance_normalization = {
	.inputs = inputs_instance_normalization,
	.outputs = outputs_instance_normalization,
	.resolve = resolve_instance_norm_any,
	.roles = roles_instance_normalization,
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
	.resolve = resolve_layer_norm_any,
	.roles = roles_layer_normalization,
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

WNN_RESOLVER(resolve_softmax, softmax)

const struct wnn_attrs_rules wnn_attrs_softmax = {
	.inputs = inputs_softmax,
	.outputs = outputs_softmax,
	.resolve = resolve_softmax_any,
	.roles = roles_softmax,
};
