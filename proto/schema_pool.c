/* Pooling family (averagePool2d, l2Pool2d, maxPool2d): operands, validation + shape inference, spec role limits and resolution. */
#include "proto/schema.h"


static bool infer_pool2d(struct wnn_infer *c)
{
	const Webnn__Ipc__Pool2d *m = c->op->pool2d;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t win[2], pad[4], strides[2], dil[2], osz[2];
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_rank(c, x, "input", 4, 4) ||
	    !wnn_check_enum(c, (int)m->layout, WEBNN__IPC__INPUT_LAYOUT__NHWC, "layout") ||
	    !wnn_check_enum(c, (int)m->output_shape_rounding, WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL,
			"outputShapeRounding"))
		return false;
	bool nhwc = m->layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	uint32_t ih = x->dims[nhwc ? 1 : 2], iw = x->dims[nhwc ? 2 : 3];
	if (!wnn_conv_list(c, m->window_dimensions, m->n_window_dimensions, 2, 0, true,
		       "windowDimensions", win))
		return false;
	if (!m->n_window_dimensions)
		win[0] = ih, win[1] = iw;
	/* The spec text zeroes padding when outputSizes is given and requires outputSizes below
	 * strides; both contradict its own conformance tests (and every implementation), so the
	 * padding is kept and outputSizes is checked against the floor/ceil sizes only. */
	if (!wnn_conv_list(c, m->padding, m->n_padding, 4, 0, false, "padding", pad) ||
	    !wnn_conv_list(c, m->strides, m->n_strides, 2, 1, true, "strides", strides) ||
	    !wnn_conv_list(c, m->output_sizes, m->n_output_sizes, 2, 0, false, "outputSizes", osz) ||
	    !wnn_conv_list(c, m->dilations, m->n_dilations, 2, 1, true, "dilations", dil))
		return false;
	int64_t span_h = wnn_conv_span(ih, win[0], pad[0], pad[1], dil[0]);
	int64_t span_w = wnn_conv_span(iw, win[1], pad[2], pad[3], dil[1]);
	int64_t fh = wnn_floor_div(span_h, strides[0]) + 1, fw = wnn_floor_div(span_w, strides[1]) + 1;
	int64_t ch = wnn_ceil_div(span_h, strides[0]) + 1, cw = wnn_ceil_div(span_w, strides[1]) + 1;
	int64_t oh, ow;
	if (m->n_output_sizes) {
		oh = osz[0], ow = osz[1];
		if (!((oh == fh && ow == fw) || (oh == ch && ow == cw)))
			return wnn_failf(c, "outputSizes [%" PRIu32 ", %" PRIu32 "] match neither the "
				     "floor sizes [%" PRId64 ", %" PRId64 "] nor the ceil sizes [%"
				     PRId64 ", %" PRId64 "]", osz[0], osz[1], fh, fw, ch, cw);
	} else if (m->output_shape_rounding == WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL) {
		oh = ch, ow = cw;
	} else {
		oh = fh, ow = fw;
	}
	struct wnn_desc *r = wnn_result_copy(c, x);
	return wnn_set_dim(c, r, nhwc ? 1 : 2, oh, "output height") &&
	       wnn_set_dim(c, r, nhwc ? 2 : 3, ow, "output width");
}

enum webnn_status wnn_resolve_pool2d(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_pool2d_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_POOL2D, &which, &name, diag));
	const Webnn__Ipc__Pool2d *m = op->pool2d;
	p->kind = which == WNN_OP_AVERAGE_POOL2D ? WNN_POOL_AVG
		  : which == WNN_OP_L2_POOL2D    ? WNN_POOL_L2
						 : WNN_POOL_MAX;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(wnn_rank_is(in, 4, name, "input", diag));
	CHECK(wnn_rank_is(out, 4, name, "output", diag));
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->nhwc = m->layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	wnn_nchw_dims(in, p->nhwc, &p->n, &p->c, &p->h, &p->w);
	uint32_t win[2] = { p->h, p->w }, pad[4], strides[2], dil[2];
	if (m->n_window_dimensions)
		CHECK(wnn_opt_list(m->n_window_dimensions, m->window_dimensions, 2, 0, win, name,
			       "windowDimensions", diag));
	CHECK(wnn_nonzero(win, 2, name, "windowDimensions", diag));
	/* The spec text resets padding to 0 when outputSizes is given, but the conformance data
	 * (WPT) keeps the given padding; we follow WPT, which matches every implementation. */
	CHECK(wnn_opt_list(m->n_padding, m->padding, 4, 0, pad, name, "padding", diag));
	CHECK(wnn_opt_list(m->n_strides, m->strides, 2, 1, strides, name, "strides", diag));
	CHECK(wnn_opt_list(m->n_dilations, m->dilations, 2, 1, dil, name, "dilations", diag));
	CHECK(wnn_nonzero(strides, 2, name, "strides", diag));
	CHECK(wnn_nonzero(dil, 2, name, "dilations", diag));
	p->win_h = win[0], p->win_w = win[1];
	p->pad_top = pad[0], p->pad_bottom = pad[1], p->pad_left = pad[2], p->pad_right = pad[3];
	p->stride_h = strides[0], p->stride_w = strides[1];
	p->dil_h = dil[0], p->dil_w = dil[1];
	uint64_t eff_h = (uint64_t)(win[0] - 1) * dil[0] + 1, eff_w = (uint64_t)(win[1] - 1) * dil[1] + 1;
	uint64_t ph = (uint64_t)p->h + pad[0] + pad[1], pw = (uint64_t)p->w + pad[2] + pad[3];
	if (ph < eff_h || pw < eff_w)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: the dilated window is larger than the padded input", name);
	if (m->n_output_sizes) {
		uint32_t os[2];
		CHECK(wnn_opt_list(m->n_output_sizes, m->output_sizes, 2, 0, os, name, "outputSizes",
			       diag));
		p->out_h = os[0], p->out_w = os[1];
	} else if (m->output_shape_rounding == WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL) {
		p->out_h = (uint32_t)((ph - eff_h + strides[0] - 1) / strides[0] + 1);
		p->out_w = (uint32_t)((pw - eff_w + strides[1] - 1) / strides[1] + 1);
	} else {
		p->out_h = (uint32_t)((ph - eff_h) / strides[0] + 1);
		p->out_w = (uint32_t)((pw - eff_w) / strides[1] + 1);
	}
	uint32_t want[4];
	if (p->nhwc)
		want[0] = p->n, want[1] = p->out_h, want[2] = p->out_w, want[3] = p->c;
	else
		want[0] = p->n, want[1] = p->c, want[2] = p->out_h, want[3] = p->out_w;
	if (memcmp(want, out->dims, sizeof(want)))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the pooling", name);
	wnn_spatial_strides(in, p->nhwc, p->in_stride);
	wnn_spatial_strides(out, p->nhwc, p->out_stride);
	return WEBNN_STATUS_OK;
}

/* ---- the table entries: operands, inference, role limits and resolution by attrs kind */

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

WNN_RESOLVE_ANY(pool2d)

const struct wnn_attrs_kind wnn_attrs_pool2d = { inputs_pool2d, outputs_pool2d, infer_pool2d, roles_pool2d, resolve_any_pool2d };
