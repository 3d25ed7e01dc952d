/* Pooling family (average/l2/maxPool2d): operand wiring, role limits, the resolver. */
#include "proto/schema.h"

/* The pool2d geometry from the input alone, every list default applied here and nowhere else:
 * window = the spatial size, padding 0, strides and dilations 1. The lists were length-checked
 * by the caller. size[0] holds the floor-rounded output sizes (height, width), size[1] the
 * ceil-rounded ones, as the spec's "calculate conv output size" gives them (possibly < 1). */
static void pool2d_geometry(const Webnn__Ipc__Pool2d *m, enum wnn_op which,
			    const struct wnn_desc *in, struct wnn_pool2d_attrs *p, int64_t size[2][2])
{
	uint32_t win[2], pad[4], strides[2], dil[2];
	p->kind = which == WNN_OP_AVERAGE_POOL2D ? WNN_POOL_AVG
		  : which == WNN_OP_L2_POOL2D    ? WNN_POOL_L2
						 : WNN_POOL_MAX;
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->nhwc = m->layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	wnn_nchw_dims(in, p->nhwc, &p->n, &p->c, &p->h, &p->w);
	const uint32_t spatial[2] = { p->h, p->w };
	for (int i = 0; i < 2; i++)
		win[i] = m->n_window_dimensions ? m->window_dimensions[i] : spatial[i];
	/* The spec text resets padding to 0 when outputSizes is given, but the conformance data
	 * (WPT) keeps the given padding; we follow WPT, which matches every implementation. */
	wnn_list_or(m->n_padding, m->padding, 4, 0, pad);
	wnn_list_or(m->n_strides, m->strides, 2, 1, strides);
	wnn_list_or(m->n_dilations, m->dilations, 2, 1, dil);
	p->win_h = win[0], p->win_w = win[1];
	p->pad_top = pad[0], p->pad_bottom = pad[1], p->pad_left = pad[2], p->pad_right = pad[3];
	p->stride_h = strides[0], p->stride_w = strides[1];
	p->dil_h = dil[0], p->dil_w = dil[1];
	for (int i = 0; i < 2; i++) {
		int64_t span = wnn_conv_span(spatial[i], win[i], pad[2 * i], pad[2 * i + 1], dil[i]);
		size[0][i] = wnn_floor_div(span, strides[i]) + 1;
		size[1][i] = wnn_ceil_div(span, strides[i]) + 1;
	}
}

/* The output size the options select: outputSizes when given (the caller checks that it is one
 * of the two roundings), else the rounding asked for. */
static void pool2d_pick(const Webnn__Ipc__Pool2d *m, int64_t size[2][2], int64_t out[2])
{
	bool ceil_rounding = m->output_shape_rounding == WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
	for (int i = 0; i < 2; i++)
		out[i] = m->n_output_sizes ? (int64_t)m->output_sizes[i]
					   : size[ceil_rounding ? 1 : 0][i];
}

static bool resolve_pool2d(struct wnn_resolving *c, struct wnn_pool2d_attrs *p)
{
	const Webnn__Ipc__Pool2d *m = c->op->pool2d;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_rank(c, x, "input", 4, 4) ||
	    !wnn_check_enum(c, (int)m->layout, WEBNN__IPC__INPUT_LAYOUT__NHWC, "layout") ||
	    !wnn_check_enum(c, (int)m->output_shape_rounding, WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL,
			    "outputShapeRounding"))
		return false;
	/* The spec text zeroes padding when outputSizes is given and requires outputSizes below
	 * strides; both contradict its own conformance tests (and every implementation), so the
	 * padding is kept and outputSizes is checked against the floor/ceil sizes only. */
	if (!wnn_check_list(c, m->window_dimensions, m->n_window_dimensions, 2, true,
			    "windowDimensions") ||
	    !wnn_check_list(c, m->padding, m->n_padding, 4, false, "padding") ||
	    !wnn_check_list(c, m->strides, m->n_strides, 2, true, "strides") ||
	    !wnn_check_list(c, m->output_sizes, m->n_output_sizes, 2, false, "outputSizes") ||
	    !wnn_check_list(c, m->dilations, m->n_dilations, 2, true, "dilations"))
		return false;
	int64_t size[2][2], out[2];
	pool2d_geometry(m, c->kind, x, p, size);
	pool2d_pick(m, size, out);
	if (m->n_output_sizes && !(out[0] == size[0][0] && out[1] == size[0][1]) &&
	    !(out[0] == size[1][0] && out[1] == size[1][1]))
		return wnn_failf(c, "outputSizes [%" PRIu32 ", %" PRIu32 "] match neither the "
				 "floor sizes [%" PRId64 ", %" PRId64 "] nor the ceil sizes [%"
				 PRId64 ", %" PRId64 "]", m->output_sizes[0], m->output_sizes[1],
				 size[0][0], size[0][1], size[1][0], size[1][1]);
	/* Ceil rounding can leave a window that covers padding only, which no kernel gives a
	 * meaning; the spec allows it, so only resolving for kernels refuses it. */
	uint64_t eff_h = (uint64_t)(p->win_h - 1) * p->dil_h + 1;
	uint64_t eff_w = (uint64_t)(p->win_w - 1) * p->dil_w + 1;
	if (c->for_kernels && ((uint64_t)p->h + p->pad_top + p->pad_bottom < eff_h ||
			       (uint64_t)p->w + p->pad_left + p->pad_right < eff_w))
		return wnn_failf(c, "the dilated window is larger than the padded input");
	struct wnn_desc *r = wnn_result_copy(c, x);
	if (!wnn_set_dim(c, r, p->nhwc ? 1 : 2, out[0], "output height") ||
	    !wnn_set_dim(c, r, p->nhwc ? 2 : 3, out[1], "output width"))
		return false;
	p->out_h = (uint32_t)out[0], p->out_w = (uint32_t)out[1];
	wnn_spatial_strides(x, p->nhwc, p->in_stride);
	wnn_spatial_strides(r, p->nhwc, p->out_stride);
	return true;
}

/* ---- the table entries: operands, role limits and the resolver by attrs kind */

static bool inputs_pool2d(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->pool2d);
	IN(op->pool2d->input, "input");
	return true;
}

static bool outputs_pool2d(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->pool2d);
}

static void roles_pool2d(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 4, 4);
	fn(ud, "output", t, 4, 4);
}

WNN_RESOLVER(resolve_pool2d, pool2d)

const struct wnn_attrs_rules wnn_attrs_pool2d = {
	.inputs = inputs_pool2d,
	.outputs = outputs_pool2d,
	.roles = roles_pool2d,
	.resolve = resolve_pool2d_any,
};
