/* Convolution family (conv2d, convTranspose2d): operands, validation + shape inference, spec role limits and resolution. */
#include "proto/schema.h"


/* Reads a 4-D filter through its layout's axis order: dims[k] and strides[k] are those of
 * filter axis axes[layout][k], so the caller sees one order whatever the layout. */
static enum webnn_status filter_axes(const struct wnn_desc *filter, uint32_t layout,
				     const uint8_t (*axes)[4], size_t n_layouts, uint32_t *dims,
				     uint64_t *strides, const char *name, struct wnn_diag *diag)
{
	if (layout >= n_layouts)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: unknown filter layout %d",
				    name, (int)layout);
	uint64_t fs[4];
	wnn_shape_strides(4, filter->dims, fs);
	for (int k = 0; k < 4; k++) {
		dims[k] = filter->dims[axes[layout][k]];
		strides[k] = fs[axes[layout][k]];
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status conv_bias(const struct wnn_desc *descs, size_t n_descs, uint32_t id,
				   uint32_t c_out, const char *name, struct wnn_diag *diag)
{
	OPERAND(bias, id, "bias");
	if (bias->rank != 1 || bias->dims[0] != c_out)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: bias shape must be [%u]",
				    name, c_out);
	return WEBNN_STATUS_OK;
}

static bool infer_conv2d(struct wnn_infer *c)
{
	const Webnn__Ipc__Conv2d *m = c->op->conv2d;
	const struct wnn_desc *x = D(c, m->input), *f = D(c, m->filter);
	uint32_t pad[4], strides[2], dil[2];
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_rank(c, x, "input", 4, 4) ||
	    !wnn_check_rank(c, f, "filter", 4, 4) || !wnn_check_same_type(c, f, "filter", x, "input") ||
	    !wnn_conv_list(c, m->padding, m->n_padding, 4, 0, false, "padding", pad) ||
	    !wnn_conv_list(c, m->strides, m->n_strides, 2, 1, true, "strides", strides) ||
	    !wnn_conv_list(c, m->dilations, m->n_dilations, 2, 1, true, "dilations", dil))
		return false;
	if (m->groups == 0)
		return wnn_failf(c, "groups must not be 0");
	if (!wnn_check_enum(c, (int)m->input_layout, WEBNN__IPC__INPUT_LAYOUT__NHWC, "inputLayout") ||
	    !wnn_check_enum(c, (int)m->filter_layout, WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO,
			"filterLayout"))
		return false;
	bool nhwc = m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	uint32_t n = x->dims[0], ic = x->dims[nhwc ? 3 : 1], ih = x->dims[nhwc ? 1 : 2],
		 iw = x->dims[nhwc ? 2 : 3];
	uint32_t oc, fi, fh, fw;
	const uint32_t *fd = f->dims;
	switch (m->filter_layout) {
	case WEBNN__IPC__CONV2D_FILTER_LAYOUT__HWIO:
		fh = fd[0], fw = fd[1], fi = fd[2], oc = fd[3];
		break;
	case WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI:
		oc = fd[0], fh = fd[1], fw = fd[2], fi = fd[3];
		break;
	case WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO:
		fi = fd[0], fh = fd[1], fw = fd[2], oc = fd[3];
		break;
	default:
		oc = fd[0], fi = fd[1], fh = fd[2], fw = fd[3];
		break;
	}
	if (ic % m->groups)
		return wnn_failf(c, "input channels %" PRIu32 " are not divisible by groups %" PRIu32, ic,
			     m->groups);
	if (ic / m->groups != fi)
		return wnn_failf(c, "filter input channels %" PRIu32 " do not match input channels %" PRIu32
			     " / groups %" PRIu32, fi, ic, m->groups);
	if (oc % m->groups)
		return wnn_failf(c, "output channels %" PRIu32 " are not divisible by groups %" PRIu32,
			     oc, m->groups);
	if (m->has_bias) {
		const struct wnn_desc *b = D(c, m->bias);
		uint64_t want = oc;
		if (!wnn_check_shape(c, b, "bias", &want, 1, "output channels") ||
		    !wnn_check_same_type(c, b, "bias", x, "input"))
			return false;
	}
	int64_t oh = wnn_floor_div(wnn_conv_span(ih, fh, pad[0], pad[1], dil[0]), strides[0]) + 1;
	int64_t ow = wnn_floor_div(wnn_conv_span(iw, fw, pad[2], pad[3], dil[1]), strides[1]) + 1;
	struct wnn_desc *r = wnn_result(c, x->type, 4);
	r->dims[0] = n;
	r->dims[nhwc ? 3 : 1] = oc;
	return wnn_set_dim(c, r, nhwc ? 1 : 2, oh, "output height") &&
	       wnn_set_dim(c, r, nhwc ? 2 : 3, ow, "output width");
}

static bool infer_conv_transpose2d(struct wnn_infer *c)
{
	const Webnn__Ipc__ConvTranspose2d *m = c->op->conv_transpose2d;
	const struct wnn_desc *x = D(c, m->input), *f = D(c, m->filter);
	uint32_t pad[4], strides[2], dil[2], opad[2], osz[2];
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_rank(c, x, "input", 4, 4) ||
	    !wnn_check_rank(c, f, "filter", 4, 4) || !wnn_check_same_type(c, f, "filter", x, "input") ||
	    !wnn_conv_list(c, m->padding, m->n_padding, 4, 0, false, "padding", pad) ||
	    !wnn_conv_list(c, m->strides, m->n_strides, 2, 1, true, "strides", strides) ||
	    !wnn_conv_list(c, m->dilations, m->n_dilations, 2, 1, true, "dilations", dil) ||
	    !wnn_conv_list(c, m->output_padding, m->n_output_padding, 2, 0, false, "outputPadding",
		       opad) ||
	    !wnn_conv_list(c, m->output_sizes, m->n_output_sizes, 2, 0, false, "outputSizes", osz))
		return false;
	if (!m->n_output_sizes && (opad[0] >= strides[0] || opad[1] >= strides[1]))
		return wnn_failf(c, "outputPadding [%" PRIu32 ", %" PRIu32
			     "] must be smaller than strides [%" PRIu32 ", %" PRIu32 "]", opad[0],
			     opad[1], strides[0], strides[1]);
	if (m->groups == 0)
		return wnn_failf(c, "groups must not be 0");
	if (!wnn_check_enum(c, (int)m->input_layout, WEBNN__IPC__INPUT_LAYOUT__NHWC, "inputLayout") ||
	    !wnn_check_enum(c, (int)m->filter_layout,
			WEBNN__IPC__CONV_TRANSPOSE2D_FILTER_LAYOUT__OHWI_T, "filterLayout"))
		return false;
	bool nhwc = m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	uint32_t n = x->dims[0], ic = x->dims[nhwc ? 3 : 1], ih = x->dims[nhwc ? 1 : 2],
		 iw = x->dims[nhwc ? 2 : 3];
	uint32_t fo, fi, fh, fw;
	const uint32_t *fd = f->dims;
	switch (m->filter_layout) {
	case WEBNN__IPC__CONV_TRANSPOSE2D_FILTER_LAYOUT__HWOI:
		fh = fd[0], fw = fd[1], fo = fd[2], fi = fd[3];
		break;
	case WEBNN__IPC__CONV_TRANSPOSE2D_FILTER_LAYOUT__OHWI_T:
		fo = fd[0], fh = fd[1], fw = fd[2], fi = fd[3];
		break;
	default:
		fi = fd[0], fo = fd[1], fh = fd[2], fw = fd[3];
		break;
	}
	if (ic != fi)
		return wnn_failf(c, "filter input channels %" PRIu32 " do not match input channels %" PRIu32,
			     fi, ic);
	uint64_t oc = (uint64_t)fo * m->groups;
	if (oc > MAX_DIM)
		return wnn_failf(c, "output channels %" PRIu64 " (filter output channels * groups) "
			     "exceed %" PRIu64, oc, MAX_DIM);
	if (m->has_bias) {
		const struct wnn_desc *b = D(c, m->bias);
		if (!wnn_check_shape(c, b, "bias", &oc, 1, "output channels") ||
		    !wnn_check_same_type(c, b, "bias", x, "input"))
			return false;
	}
	const uint32_t in[2] = { ih, iw }, fs[2] = { fh, fw };
	int64_t out[2];
	for (int i = 0; i < 2; i++) {
		/* (in - 1) * stride can reach 2^63: compute in 128 bits and clamp. */
		__int128 eff = ((__int128)fs[i] - 1) * dil[i] + 1;
		__int128 calc = ((__int128)in[i] - 1) * strides[i] + eff - pad[2 * i] -
				pad[2 * i + 1];
		if (m->n_output_sizes) {
			if (osz[i] < calc || osz[i] >= calc + strides[i])
				return wnn_failf(c, "outputSizes item %d is %" PRIu32
					     ", expected at least %" PRId64 " and less than %" PRId64,
					     i, osz[i], (int64_t)calc,
					     (int64_t)(calc + strides[i]));
			out[i] = osz[i];
		} else {
			calc += opad[i];
			out[i] = calc > (__int128)INT64_MAX ? INT64_MAX
				 : calc < (__int128)INT64_MIN ? INT64_MIN : (int64_t)calc;
		}
	}
	struct wnn_desc *r = wnn_result(c, x->type, 4);
	r->dims[0] = n;
	r->dims[nhwc ? 3 : 1] = (uint32_t)oc;
	return wnn_set_dim(c, r, nhwc ? 1 : 2, out[0], "output height") &&
	       wnn_set_dim(c, r, nhwc ? 2 : 3, out[1], "output width");
}

/* ---- convolution and pooling */

enum webnn_status wnn_resolve_conv2d(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_conv2d_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_CONV2D, &which, &name, diag));
	const Webnn__Ipc__Conv2d *m = op->conv2d;
	OPERAND(in, m->input, "input");
	OPERAND(filter, m->filter, "filter");
	OPERAND(out, m->output, "output");
	CHECK(wnn_rank_is(in, 4, name, "input", diag));
	CHECK(wnn_rank_is(filter, 4, name, "filter", diag));
	CHECK(wnn_rank_is(out, 4, name, "output", diag));
	p->input = m->input, p->filter = m->filter, p->output = m->output;
	p->bias = WNN_NO_OPERAND;
	p->type = in->type;
	p->nhwc = m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	wnn_nchw_dims(in, p->nhwc, &p->n, &p->c_in, &p->h, &p->w);
	/* Where each layout keeps (o, i, ky, kx); indexed by the layout, whose values
	 * enum wnn_filter_layout shares with the protocol. */
	static const uint8_t axes[][4] = {
		[WNN_FILTER_OIHW] = { 0, 1, 2, 3 },
		[WNN_FILTER_HWIO] = { 3, 2, 0, 1 },
		[WNN_FILTER_OHWI] = { 0, 3, 1, 2 },
		[WNN_FILTER_IHWO] = { 3, 0, 1, 2 },
	};
	uint32_t fdim[4];
	CHECK(filter_axes(filter, (uint32_t)m->filter_layout, axes,
			  sizeof(axes) / sizeof(axes[0]), fdim, p->filter_stride, name, diag));
	p->filter_layout = (enum wnn_filter_layout)m->filter_layout;
	uint32_t f_in = fdim[1];
	p->c_out = fdim[0], p->kh = fdim[2], p->kw = fdim[3];
	uint32_t pad[4], strides[2], dil[2];
	CHECK(wnn_opt_list(m->n_padding, m->padding, 4, 0, pad, name, "padding", diag));
	CHECK(wnn_opt_list(m->n_strides, m->strides, 2, 1, strides, name, "strides", diag));
	CHECK(wnn_opt_list(m->n_dilations, m->dilations, 2, 1, dil, name, "dilations", diag));
	CHECK(wnn_nonzero(strides, 2, name, "strides", diag));
	CHECK(wnn_nonzero(dil, 2, name, "dilations", diag));
	p->groups = m->groups;
	if (p->groups == 0)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: groups must not be 0", name);
	if (p->c_in % p->groups || p->c_in / p->groups != f_in)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: filter input channels %u do not equal input channels %u / "
				    "groups %u", name, f_in, p->c_in, p->groups);
	if (p->c_out % p->groups)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output channels %u are not divisible by groups %u", name,
				    p->c_out, p->groups);
	p->c_in_g = f_in;
	p->c_out_g = p->c_out / p->groups;
	p->depthwise = p->groups > 1 && p->groups == p->c_in && p->groups == p->c_out;
	p->pad_top = pad[0], p->pad_bottom = pad[1], p->pad_left = pad[2], p->pad_right = pad[3];
	p->stride_h = strides[0], p->stride_w = strides[1];
	p->dil_h = dil[0], p->dil_w = dil[1];
	uint64_t eff_h = (uint64_t)(p->kh - 1) * p->dil_h + 1, eff_w = (uint64_t)(p->kw - 1) * p->dil_w + 1;
	uint64_t ph = (uint64_t)p->h + pad[0] + pad[1], pw = (uint64_t)p->w + pad[2] + pad[3];
	if (p->kh == 0 || p->kw == 0 || ph < eff_h || pw < eff_w)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: the dilated filter is larger than the padded input", name);
	p->out_h = (uint32_t)((ph - eff_h) / p->stride_h + 1);
	p->out_w = (uint32_t)((pw - eff_w) / p->stride_w + 1);
	uint32_t want[4];
	if (p->nhwc)
		want[0] = p->n, want[1] = p->out_h, want[2] = p->out_w, want[3] = p->c_out;
	else
		want[0] = p->n, want[1] = p->c_out, want[2] = p->out_h, want[3] = p->out_w;
	if (memcmp(want, out->dims, sizeof(want)))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the convolution", name);
	if (m->has_bias) {
		CHECK(conv_bias(descs, n_descs, m->bias, p->c_out, name, diag));
		p->has_bias = true;
		p->bias = m->bias;
	}
	wnn_spatial_strides(in, p->nhwc, p->in_stride);
	wnn_spatial_strides(out, p->nhwc, p->out_stride);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_conv_transpose2d(const Webnn__Ipc__Operation *op,
					  const struct wnn_desc *descs, size_t n_descs,
					  struct wnn_conv_transpose2d_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_CONV_TRANSPOSE2D, &which, &name, diag));
	const Webnn__Ipc__ConvTranspose2d *m = op->conv_transpose2d;
	OPERAND(in, m->input, "input");
	OPERAND(filter, m->filter, "filter");
	OPERAND(out, m->output, "output");
	CHECK(wnn_rank_is(in, 4, name, "input", diag));
	CHECK(wnn_rank_is(filter, 4, name, "filter", diag));
	CHECK(wnn_rank_is(out, 4, name, "output", diag));
	p->input = m->input, p->filter = m->filter, p->output = m->output;
	p->bias = WNN_NO_OPERAND;
	p->type = in->type;
	p->nhwc = m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	wnn_nchw_dims(in, p->nhwc, &p->n, &p->c_in, &p->h, &p->w);
	/* Where each layout keeps (i, o, ky, kx); indexed by the layout, whose values
	 * enum wnn_tfilter_layout shares with the protocol. */
	static const uint8_t axes[][4] = {
		[WNN_TFILTER_IOHW] = { 0, 1, 2, 3 },
		[WNN_TFILTER_HWOI] = { 3, 2, 0, 1 },
		[WNN_TFILTER_OHWI] = { 3, 0, 1, 2 },
	};
	uint32_t fdim[4];
	CHECK(filter_axes(filter, (uint32_t)m->filter_layout, axes,
			  sizeof(axes) / sizeof(axes[0]), fdim, p->filter_stride, name, diag));
	p->filter_layout = (enum wnn_tfilter_layout)m->filter_layout;
	uint32_t f_in = fdim[0], f_out = fdim[1];
	p->kh = fdim[2], p->kw = fdim[3];
	uint32_t pad[4], strides[2], dil[2], opad[2];
	CHECK(wnn_opt_list(m->n_padding, m->padding, 4, 0, pad, name, "padding", diag));
	CHECK(wnn_opt_list(m->n_strides, m->strides, 2, 1, strides, name, "strides", diag));
	CHECK(wnn_opt_list(m->n_dilations, m->dilations, 2, 1, dil, name, "dilations", diag));
	CHECK(wnn_opt_list(m->n_output_padding, m->output_padding, 2, 0, opad, name, "outputPadding",
		       diag));
	CHECK(wnn_nonzero(strides, 2, name, "strides", diag));
	CHECK(wnn_nonzero(dil, 2, name, "dilations", diag));
	p->groups = m->groups;
	if (p->groups == 0 || p->c_in % p->groups)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: input channels %u are not divisible by groups %u", name,
				    p->c_in, p->groups);
	if (f_in != p->c_in)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: filter input channels %u do not match input channels %u",
				    name, f_in, p->c_in);
	p->c_in_g = p->c_in / p->groups;
	p->c_out_g = f_out;
	p->c_out = f_out * p->groups;
	p->pad_top = pad[0], p->pad_bottom = pad[1], p->pad_left = pad[2], p->pad_right = pad[3];
	p->stride_h = strides[0], p->stride_w = strides[1];
	p->dil_h = dil[0], p->dil_w = dil[1];
	p->out_pad_h = opad[0], p->out_pad_w = opad[1];
	if (p->nhwc)
		p->out_h = out->dims[1], p->out_w = out->dims[2];
	else
		p->out_h = out->dims[2], p->out_w = out->dims[3];
	if (out->dims[0] != p->n || out->dims[p->nhwc ? 3 : 1] != p->c_out)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the convolution", name);
	if (m->has_bias) {
		CHECK(conv_bias(descs, n_descs, m->bias, p->c_out, name, diag));
		p->has_bias = true;
		p->bias = m->bias;
	}
	wnn_spatial_strides(in, p->nhwc, p->in_stride);
	wnn_spatial_strides(out, p->nhwc, p->out_stride);
	return WEBNN_STATUS_OK;
}

/* ---- the table entries: operands, inference, role limits and resolution by attrs kind */

static bool inputs_conv2d(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->conv2d);
	IN(op->conv2d->input, "input");
	IN(op->conv2d->filter, "filter");
	OPT(op->conv2d, bias, "bias");
	return true;
}

static bool outputs_conv2d(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->conv2d);
}

static void roles_conv2d(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 4, 4);
	fn(ud, "filter", t, 4, 4);
	fn(ud, "bias", t, 1, 1);
	fn(ud, "output", t, 4, 4);
}

WNN_RESOLVE_ANY(conv2d)

const struct wnn_attrs_kind wnn_attrs_conv2d = { inputs_conv2d, outputs_conv2d, infer_conv2d, roles_conv2d, resolve_any_conv2d };

static bool inputs_conv_transpose2d(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->conv_transpose2d);
	IN(op->conv_transpose2d->input, "input");
	IN(op->conv_transpose2d->filter, "filter");
	OPT(op->conv_transpose2d, bias, "bias");
	return true;
}

static bool outputs_conv_transpose2d(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->conv_transpose2d);
}

static void roles_conv_transpose2d(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 4, 4);
	fn(ud, "filter", t, 4, 4);
	fn(ud, "bias", t, 1, 1);
	fn(ud, "output", t, 4, 4);
}

WNN_RESOLVE_ANY(conv_transpose2d)

const struct wnn_attrs_kind wnn_attrs_conv_transpose2d = { inputs_conv_transpose2d, outputs_conv_transpose2d, infer_conv_transpose2d, roles_conv_transpose2d, resolve_any_conv_transpose2d };
