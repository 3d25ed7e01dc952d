/* Resample family (resample2d): operand wiring, spec role limits, the resolver. */
#include "proto/schema.h"

/* The resample2d geometry from the input alone, defaults applied here and nowhere else: axes
 * [2, 3], scales 1 (sizes win over scales). size[i] is the spec's output size along axes[i]
 * (a double: the caller checks it is a valid dimension). */
static void resample_geometry(const Webnn__Ipc__Resample2d *m, const struct wnn_desc *in,
			      struct wnn_resample_attrs *p, double size[2])
{
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->mode = (enum wnn_interp)m->mode;
	p->axes[0] = m->n_axes ? m->axes[0] : 2;
	p->axes[1] = m->n_axes ? m->axes[1] : 3;
	memcpy(p->in_dims, in->dims, sizeof(p->in_dims));
	for (int i = 0; i < 2; i++)
		size[i] = m->n_sizes ? m->sizes[i]
			  : floor((double)in->dims[p->axes[i]] * (m->n_scales ? m->scales[i] : 1.0));
}

/* Validates scales, sizes and axes as the spec's builder does. */
static bool check_resample2d_options(struct wnn_resolving *c, const Webnn__Ipc__Resample2d *m,
				     const struct wnn_desc *x)
{
	uint32_t mask;
	if (m->n_scales) {
		if (m->n_scales != 2)
			return wnn_failf(c, "scales has %zu values, expected 2", m->n_scales);
		for (int i = 0; i < 2; i++)
			if (!(m->scales[i] > 0))
				return wnn_failf(c, "scales item %d is %g, expected a positive number",
						 i, (double)m->scales[i]);
	}
	if (m->n_sizes) {
		if (m->n_sizes != 2)
			return wnn_failf(c, "sizes has %zu values, expected 2", m->n_sizes);
		for (int i = 0; i < 2; i++)
			if (m->sizes[i] == 0)
				return wnn_failf(c, "sizes item %d is 0", i);
	}
	if (m->n_axes) {
		/* scales and sizes have two items, so the axes must too. */
		if (m->n_axes != 2)
			return wnn_failf(c, "axes has %zu values, expected 2", m->n_axes);
		if (!wnn_check_axes(c, m->axes, m->n_axes, x->rank, "axes", &mask))
			return false;
	}
	return true;
}

static bool resolve_resample2d(struct wnn_resolving *c, struct wnn_resample_attrs *p)
{
	const Webnn__Ipc__Resample2d *m = c->op->resample2d;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_rank(c, x, "input", 4, 4) ||
	    !wnn_check_enum(c, (int)m->mode, WEBNN__IPC__INTERPOLATION_MODE__LINEAR, "mode") ||
	    !check_resample2d_options(c, m, x))
		return false;
	double size[2];
	resample_geometry(m, x, p, size);
	struct wnn_desc *r = wnn_result_copy(c, x);
	for (int i = 0; i < 2; i++) {
		char what[48];
		snprintf(what, sizeof(what), "output dimension %" PRIu32, p->axes[i]);
		if (!(size[i] >= 1 && size[i] <= (double)MAX_DIM))
			return wnn_failf(c, "%s is %.0f, expected a valid dimension", what, size[i]);
		r->dims[p->axes[i]] = (uint32_t)size[i];
	}
	memcpy(p->out_dims, r->dims, sizeof(p->out_dims));
	for (int i = 0; i < 2; i++)
		p->scale[i] = (double)r->dims[p->axes[i]] / (double)x->dims[p->axes[i]];
	wnn_shape_strides(4, x->dims, p->in_strides);
	p->count = wnn_shape_count(4, r->dims);
	return true;
}

double wnn_resample_coord(const struct wnn_resample_attrs *p, int i, uint32_t o)
{
	double x = ((double)o + 0.5) / p->scale[i] - 0.5;
	double hi = (double)p->in_dims[p->axes[i]] - 1;
	return x < 0 ? 0 : x > hi ? hi : x;
}

uint32_t wnn_resample_nearest(const struct wnn_resample_attrs *p, int i, uint32_t o)
{
	double x = ceil(wnn_resample_coord(p, i, o) - 0.5);
	uint32_t hi = p->in_dims[p->axes[i]] - 1;
	return x < 0 ? 0 : x > hi ? hi : (uint32_t)x;
}

/* ---- the table entries: operands, role limits and the resolver by attrs kind */

static bool inputs_resample2d(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->resample2d);
	IN(op->resample2d->input, "input");
	return true;
}

static bool outputs_resample2d(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->resample2d);
}

static void roles_resample2d(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 4, 4);
	fn(ud, "output", t, 4, 4);
}

WNN_RESOLVER(resolve_resample2d, resample)

const struct wnn_attrs_rules wnn_attrs_resample2d = {
	.inputs = inputs_resample2d,
	.outputs = outputs_resample2d,
	.resolve = resolve_resample2d_any,
	.roles = roles_resample2d,
};
