/* Reduce family (reduce*, argMin/Max, cumulativeSum): wiring, limits, the resolvers. */
#include "proto/schema.h"

/* Spec "calculate reduction output sizes"; axes_mask has a bit per reduced axis. */
static void reduce_shape(const struct wnn_desc *x, uint32_t axes_mask, bool keep,
			 struct wnn_desc *r)
{
	r->rank = 0;
	for (uint32_t i = 0; i < x->rank; i++) {
		if (axes_mask & (1u << i)) {
			if (keep)
				r->dims[r->rank++] = 1;
		} else {
			r->dims[r->rank++] = x->dims[i];
		}
	}
}

static bool resolve_arg_min_max(struct wnn_resolving *c, struct wnn_arg_attrs *p)
{
	const Webnn__Ipc__ArgMinMax *m = c->op->arg_min_max;
	const struct wnn_desc *x = D(c, m->input);
	char buf[64];
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_axis(c, m->axis, x->rank, "axis"))
		return false;
	enum wnn_dtype ot = (enum wnn_dtype)m->output_data_type;
	if (ot != WNN_I32 && ot != WNN_I64)
		return wnn_failf(c, "output data type %s is not allowed, expected %s",
			     wnn_dtype_name(ot),
			     wnn_types_str(WNN_DT_BIT(WNN_I32) | WNN_DT_BIT(WNN_I64), buf, sizeof(buf)));
	if (ot == WNN_I32 && x->dims[m->axis] > (uint32_t)INT32_MAX)
		return wnn_failf(c, "input dimension %" PRIu32 " does not fit the output data type int32",
			     x->dims[m->axis]);
	reduce_shape(x, 1u << m->axis, m->keep_dimensions, wnn_result(c, ot, 0));
	p->op = c->kind;
	p->input = m->input, p->output = m->output;
	p->type = x->type, p->out_type = ot;
	p->axis = m->axis;
	wnn_axis_view(x, m->axis, &p->outer, &p->axis_size, &p->inner);
	return true;
}

static bool resolve_cumulative_sum(struct wnn_resolving *c, struct wnn_cumsum_attrs *p)
{
	const Webnn__Ipc__CumulativeSum *m = c->op->cumulative_sum;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_axis(c, m->axis, x->rank, "axis"))
		return false;
	wnn_result_copy(c, x);
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	p->axis = m->axis;
	p->exclusive = m->exclusive, p->reversed = m->reversed;
	wnn_axis_view(x, m->axis, &p->outer, &p->axis_size, &p->inner);
	return true;
}

static bool resolve_reduce(struct wnn_resolving *c, struct wnn_reduce_attrs *p)
{
	const Webnn__Ipc__Reduce *m = c->op->reduce;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t mask, axes[WNN_MAX_RANK];
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->has_axes && !wnn_check_axes(c, m->axes, m->n_axes, x->rank, "axes", &mask))
		return false;
	uint32_t n_axes = wnn_axes_or(m->has_axes, m->axes, m->n_axes, 0, x->rank, axes);
	mask = 0;
	for (uint32_t i = 0; i < n_axes; i++)
		mask |= 1u << axes[i];
	reduce_shape(x, mask, m->keep_dimensions, wnn_result(c, x->type, 0));
	p->op = c->kind;
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	/* the axes were checked above: the split cannot fail */
	return wnn_make_reduction(x, axes, n_axes, &p->r, c->name, c->diag) == WEBNN_STATUS_OK;
}

/* ---- the table entries: operands, role limits and the resolver by attrs kind */

static bool inputs_arg_min_max(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->arg_min_max);
	IN(op->arg_min_max->input, "input");
	return true;
}

static bool outputs_arg_min_max(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->arg_min_max);
}

static void roles_arg_min_max(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 1, WNN_MAX_RANK);
	fn(ud, "output", WNN_DT_BIT(WNN_I32) | WNN_DT_BIT(WNN_I64), 0, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_arg_min_max, arg)

const struct wnn_attrs_rules wnn_attrs_arg_min_max = {
	.inputs = inputs_arg_min_max,
	.outputs = outputs_arg_min_max,
	.roles = roles_arg_min_max,
	.resolve = resolve_arg_min_max_any,
};

static bool inputs_cumulative_sum(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->cumulative_sum);
	IN(op->cumulative_sum->input, "input");
	return true;
}

static bool outputs_cumulative_sum(const Webnn__Ipc__Operation *op, const uint32_t **list,
		size_t *n)
{
	OUT_ONE(op->cumulative_sum);
}

static void roles_cumulative_sum(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 1, WNN_MAX_RANK);
	fn(ud, "output", t, 1, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_cumulative_sum, cumsum)

const struct wnn_attrs_rules wnn_attrs_cumulative_sum = {
	.inputs = inputs_cumulative_sum,
	.outputs = outputs_cumulative_sum,
	.roles = roles_cumulative_sum,
	.resolve = resolve_cumulative_sum_any,
};

static bool inputs_reduce(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->reduce);
	IN(op->reduce->input, "input");
	return true;
}

static bool outputs_reduce(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->reduce);
}

static void roles_reduce(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	/* clamp expand pad reduce* reshape reverse slice tile transpose: one input of any
	 * rank and an output of its type. */
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "output", t, 0, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_reduce, reduce)

const struct wnn_attrs_rules wnn_attrs_reduce = {
	.inputs = inputs_reduce,
	.outputs = outputs_reduce,
	.roles = roles_reduce,
	.resolve = resolve_reduce_any,
};
