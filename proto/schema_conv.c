/* Convolution family (conv2d, convTranspose2d): wiring, role limits, the resolvers. */
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

/* Where each conv2d filter layout keeps (o, i, ky, kx); indexed by the layout, whose values
 * enum wnn_filter_layout shares with the protocol. */
static const uint8_t conv2d_filter_axes[][4] = {
	[WNN_FILTER_OIHW] = { 0, 1, 2, 3 },
	[WNN_FILTER_HWIO] = { 3, 2, 0, 1 },
	[WNN_FILTER_OHWI] = { 0, 3, 1, 2 },
	[WNN_FILTER_IHWO] = { 3, 0, 1, 2 },
};

/* Where each convTranspose2d filter layout keeps (i, o, ky, kx), likewise. */
static const uint8_t conv_transpose2d_filter_axes[][4] = {
	[WNN_TFILTER_IOHW] = { 0, 1, 2, 3 },
	[WNN_TFILTER_HWOI] = { 3, 2, 0, 1 },
	[WNN_TFILTER_OHWI] = { 3, 0, 1, 2 },
};

/* The conv2d geometry from input and filter, list defaults applied here and nowhere else
 * (padding 0, strides and dilations 1). Fills everything but the output size and strides;
 * size[] gets the spec's output height and width (below 1 when the dilated filter does not fit
 * the padded input). Fails only on an unknown filter layout. */
static enum webnn_status conv2d_geometry(const Webnn__Ipc__Conv2d *m, const struct wnn_desc *in,
					 const struct wnn_desc *filter, struct wnn_conv2d_attrs *p,
					 int64_t size[2], const char *name, struct wnn_diag *diag)
{
	uint32_t fdim[4], pad[4], strides[2], dil[2];
	p->input = m->input, p->filter = m->filter, p->output = m->output;
	p->bias = WNN_NO_OPERAND;
	p->type = in->type;
	p->nhwc = m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	wnn_nchw_dims(in, p->nhwc, &p->n, &p->c_in, &p->h, &p->w);
	CHECK(filter_axes(filter, (uint32_t)m->filter_layout, conv2d_filter_axes,
			  sizeof(conv2d_filter_axes) / sizeof(conv2d_filter_axes[0]), fdim,
			  p->filter_stride, name, diag));
	p->filter_layout = (enum wnn_filter_layout)m->filter_layout;
	p->c_out = fdim[0], p->c_in_g = fdim[1], p->kh = fdim[2], p->kw = fdim[3];
	wnn_list_or(m->n_padding, m->padding, 4, 0, pad);
	wnn_list_or(m->n_strides, m->strides, 2, 1, strides);
	wnn_list_or(m->n_dilations, m->dilations, 2, 1, dil);
	p->pad_top = pad[0], p->pad_bottom = pad[1], p->pad_left = pad[2], p->pad_right = pad[3];
	p->stride_h = strides[0], p->stride_w = strides[1];
	p->dil_h = dil[0], p->dil_w = dil[1];
	p->groups = m->groups;
	p->c_out_g = p->groups ? p->c_out / p->groups : 0;
	p->depthwise = p->groups > 1 && p->groups == p->c_in && p->groups == p->c_out;
	size[0] = wnn_floor_div(wnn_conv_span(p->h, p->kh, pad[0], pad[1], dil[0]), strides[0]) + 1;
	size[1] = wnn_floor_div(wnn_conv_span(p->w, p->kw, pad[2], pad[3], dil[1]), strides[1]) + 1;
	return WEBNN_STATUS_OK;
}

/* The convTranspose2d geometry, likewise (outputPadding 0 too). size[] gets the output height
 * and width: outputSizes when given, else the spec's size plus outputPadding; calc[] the
 * spec's size before outputPadding (both clamped to the int64 range). */
static enum webnn_status conv_transpose2d_geometry(const Webnn__Ipc__ConvTranspose2d *m,
						   const struct wnn_desc *in,
						   const struct wnn_desc *filter,
						   struct wnn_conv_transpose2d_attrs *p,
						   int64_t size[2], int64_t calc[2],
						   const char *name, struct wnn_diag *diag)
{
	uint32_t fdim[4], pad[4], strides[2], dil[2], opad[2];
	p->input = m->input, p->filter = m->filter, p->output = m->output;
	p->bias = WNN_NO_OPERAND;
	p->type = in->type;
	p->nhwc = m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	wnn_nchw_dims(in, p->nhwc, &p->n, &p->c_in, &p->h, &p->w);
	CHECK(filter_axes(filter, (uint32_t)m->filter_layout, conv_transpose2d_filter_axes,
			  sizeof(conv_transpose2d_filter_axes) /
				  sizeof(conv_transpose2d_filter_axes[0]),
			  fdim, p->filter_stride, name, diag));
	p->filter_layout = (enum wnn_tfilter_layout)m->filter_layout;
	p->kh = fdim[2], p->kw = fdim[3];
	wnn_list_or(m->n_padding, m->padding, 4, 0, pad);
	wnn_list_or(m->n_strides, m->strides, 2, 1, strides);
	wnn_list_or(m->n_dilations, m->dilations, 2, 1, dil);
	wnn_list_or(m->n_output_padding, m->output_padding, 2, 0, opad);
	p->groups = m->groups;
	p->c_in_g = p->groups ? p->c_in / p->groups : 0;
	p->c_out_g = fdim[1];
	p->c_out = (uint32_t)((uint64_t)fdim[1] * p->groups); /* callers check it fits */
	p->pad_top = pad[0], p->pad_bottom = pad[1], p->pad_left = pad[2], p->pad_right = pad[3];
	p->stride_h = strides[0], p->stride_w = strides[1];
	p->dil_h = dil[0], p->dil_w = dil[1];
	p->out_pad_h = opad[0], p->out_pad_w = opad[1];
	const uint32_t spatial[2] = { p->h, p->w }, ks[2] = { p->kh, p->kw };
	for (int i = 0; i < 2; i++) {
		/* (in - 1) * stride can reach 2^63: compute in 128 bits and clamp. */
		__int128 eff = ((__int128)ks[i] - 1) * dil[i] + 1;
		__int128 v = ((__int128)spatial[i] - 1) * strides[i] + eff - pad[2 * i] -
			     pad[2 * i + 1];
		calc[i] = v > (__int128)INT64_MAX ? INT64_MAX
			  : v < (__int128)INT64_MIN ? INT64_MIN : (int64_t)v;
		v += opad[i];
		size[i] = m->n_output_sizes ? (int64_t)m->output_sizes[i]
			  : v > (__int128)INT64_MAX ? INT64_MAX
			  : v < (__int128)INT64_MIN ? INT64_MIN : (int64_t)v;
	}
	return WEBNN_STATUS_OK;
}

/* Validates the conv2d filter against the input channels and groups (spec messages). */
static bool check_conv2d_channels(struct wnn_resolving *c, const Webnn__Ipc__Conv2d *m,
				  const struct wnn_conv2d_attrs *p)
{
	if (p->c_in % m->groups)
		return wnn_failf(c, "input channels %" PRIu32 " are not divisible by groups %" PRIu32,
				 p->c_in, m->groups);
	if (p->c_in / m->groups != p->c_in_g)
		return wnn_failf(c, "filter input channels %" PRIu32 " do not match input channels %"
				 PRIu32 " / groups %" PRIu32, p->c_in_g, p->c_in, m->groups);
	if (p->c_out % m->groups)
		return wnn_failf(c, "output channels %" PRIu32 " are not divisible by groups %" PRIu32,
				 p->c_out, m->groups);
	if (m->has_bias) {
		const struct wnn_desc *b = D(c, m->bias);
		uint64_t want = p->c_out;
		if (!wnn_check_shape(c, b, "bias", &want, 1, "output channels") ||
		    !wnn_check_same_type(c, b, "bias", D(c, m->input), "input"))
			return false;
	}
	return true;
}

/* The output [n, c_out, h, w] in the operation's layout, with the spatial sizes checked and
 * the sizes and strides every kernel reads. */
static struct wnn_desc *conv_result(struct wnn_resolving *c, const struct wnn_desc *x, bool nhwc,
				    uint32_t n, uint32_t c_out, const int64_t size[2],
				    uint32_t *out_h, uint32_t *out_w)
{
	struct wnn_desc *r = wnn_result(c, x->type, 4);
	r->dims[0] = n;
	r->dims[nhwc ? 3 : 1] = c_out;
	if (!wnn_set_dim(c, r, nhwc ? 1 : 2, size[0], "output height") ||
	    !wnn_set_dim(c, r, nhwc ? 2 : 3, size[1], "output width"))
		return NULL;
	*out_h = (uint32_t)size[0], *out_w = (uint32_t)size[1];
	return r;
}

static bool resolve_conv2d(struct wnn_resolving *c, struct wnn_conv2d_attrs *p)
{
	const Webnn__Ipc__Conv2d *m = c->op->conv2d;
	const struct wnn_desc *x = D(c, m->input), *f = D(c, m->filter);
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_rank(c, x, "input", 4, 4) ||
	    !wnn_check_rank(c, f, "filter", 4, 4) || !wnn_check_same_type(c, f, "filter", x, "input") ||
	    !wnn_check_list(c, m->padding, m->n_padding, 4, false, "padding") ||
	    !wnn_check_list(c, m->strides, m->n_strides, 2, true, "strides") ||
	    !wnn_check_list(c, m->dilations, m->n_dilations, 2, true, "dilations"))
		return false;
	if (m->groups == 0)
		return wnn_failf(c, "groups must not be 0");
	if (!wnn_check_enum(c, (int)m->input_layout, WEBNN__IPC__INPUT_LAYOUT__NHWC, "inputLayout") ||
	    !wnn_check_enum(c, (int)m->filter_layout, WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO,
			    "filterLayout"))
		return false;
	int64_t size[2];
	if (conv2d_geometry(m, x, f, p, size, c->name, c->diag) != WEBNN_STATUS_OK ||
	    !check_conv2d_channels(c, m, p))
		return false;
	const struct wnn_desc *r = conv_result(c, x, p->nhwc, p->n, p->c_out, size, &p->out_h,
					       &p->out_w);
	if (!r)
		return false;
	if (m->has_bias)
		p->has_bias = true, p->bias = m->bias;
	wnn_spatial_strides(x, p->nhwc, p->in_stride);
	wnn_spatial_strides(r, p->nhwc, p->out_stride);
	return true;
}

/* Validates the options of convTranspose2d that the resolver checks before the geometry. */
static bool check_conv_transpose2d_options(struct wnn_resolving *c,
					   const Webnn__Ipc__ConvTranspose2d *m)
{
	uint32_t strides[2], opad[2];
	if (!wnn_check_list(c, m->padding, m->n_padding, 4, false, "padding") ||
	    !wnn_check_list(c, m->strides, m->n_strides, 2, true, "strides") ||
	    !wnn_check_list(c, m->dilations, m->n_dilations, 2, true, "dilations") ||
	    !wnn_check_list(c, m->output_padding, m->n_output_padding, 2, false,
			    "outputPadding") ||
	    !wnn_check_list(c, m->output_sizes, m->n_output_sizes, 2, false, "outputSizes"))
		return false;
	wnn_list_or(m->n_strides, m->strides, 2, 1, strides);
	wnn_list_or(m->n_output_padding, m->output_padding, 2, 0, opad);
	if (!m->n_output_sizes && (opad[0] >= strides[0] || opad[1] >= strides[1]))
		return wnn_failf(c, "outputPadding [%" PRIu32 ", %" PRIu32
				 "] must be smaller than strides [%" PRIu32 ", %" PRIu32 "]",
				 opad[0], opad[1], strides[0], strides[1]);
	if (m->groups == 0)
		return wnn_failf(c, "groups must not be 0");
	return wnn_check_enum(c, (int)m->input_layout, WEBNN__IPC__INPUT_LAYOUT__NHWC,
			      "inputLayout") &&
	       wnn_check_enum(c, (int)m->filter_layout,
			      WEBNN__IPC__CONV_TRANSPOSE2D_FILTER_LAYOUT__OHWI_T, "filterLayout");
}

/* Validates channels, bias and outputSizes of convTranspose2d against its geometry. */
static bool check_conv_transpose2d_sizes(struct wnn_resolving *c,
					 const Webnn__Ipc__ConvTranspose2d *m,
					 const struct wnn_conv_transpose2d_attrs *p,
					 const int64_t calc[2])
{
	uint32_t fi = D(c, m->filter)->dims[conv_transpose2d_filter_axes[p->filter_layout][0]];
	if (p->c_in != fi)
		return wnn_failf(c, "filter input channels %" PRIu32
				 " do not match input channels %" PRIu32, fi, p->c_in);
	uint64_t oc = (uint64_t)p->c_out_g * m->groups;
	if (oc > MAX_DIM)
		return wnn_failf(c, "output channels %" PRIu64 " (filter output channels * groups) "
				 "exceed %" PRIu64, oc, MAX_DIM);
	if (m->has_bias) {
		const struct wnn_desc *b = D(c, m->bias);
		if (!wnn_check_shape(c, b, "bias", &oc, 1, "output channels") ||
		    !wnn_check_same_type(c, b, "bias", D(c, m->input), "input"))
			return false;
	}
	const uint32_t strides[2] = { p->stride_h, p->stride_w };
	for (int i = 0; m->n_output_sizes && i < 2; i++) {
		uint32_t osz = m->output_sizes[i];
		if (osz < calc[i] || osz >= (__int128)calc[i] + strides[i])
			return wnn_failf(c, "outputSizes item %d is %" PRIu32 ", expected at least %"
					 PRId64 " and less than %" PRId64, i, osz, calc[i],
					 (int64_t)((__int128)calc[i] + strides[i]));
	}
	return true;
}

static bool resolve_conv_transpose2d(struct wnn_resolving *c, struct wnn_conv_transpose2d_attrs *p)
{
	const Webnn__Ipc__ConvTranspose2d *m = c->op->conv_transpose2d;
	const struct wnn_desc *x = D(c, m->input), *f = D(c, m->filter);
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_rank(c, x, "input", 4, 4) ||
	    !wnn_check_rank(c, f, "filter", 4, 4) || !wnn_check_same_type(c, f, "filter", x, "input") ||
	    !check_conv_transpose2d_options(c, m))
		return false;
	int64_t size[2], calc[2];
	if (conv_transpose2d_geometry(m, x, f, p, size, calc, c->name, c->diag) !=
		    WEBNN_STATUS_OK ||
	    !check_conv_transpose2d_sizes(c, m, p, calc))
		return false;
	/* The spec lets groups not divide the input channels; a group of no input channel has no
	 * meaning to a kernel, so only resolving for kernels refuses it. */
	if (c->for_kernels && p->c_in % m->groups)
		return wnn_failf(c, "input channels %" PRIu32 " are not divisible by groups %" PRIu32,
				 p->c_in, m->groups);
	const struct wnn_desc *r = conv_result(c, x, p->nhwc, p->n, p->c_out, size, &p->out_h,
					       &p->out_w);
	if (!r)
		return false;
	if (m->has_bias)
		p->has_bias = true, p->bias = m->bias;
	wnn_spatial_strides(x, p->nhwc, p->in_stride);
	wnn_spatial_strides(r, p->nhwc, p->out_stride);
	return true;
}

/* ---- the table entries: operands, role limits and the resolver by attrs kind */

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

WNN_RESOLVER(resolve_conv2d, conv2d)

const struct wnn_attrs_rules wnn_attrs_conv2d = {
	.inputs = inputs_conv2d,
	.outputs = outputs_conv2d,
	.roles = roles_conv2d,
	.resolve = resolve_conv2d_any,
};

static bool inputs_conv_transpose2d(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->conv_transpose2d);
	IN(op->conv_transpose2d->input, "input");
	IN(op->conv_transpose2d->filter, "filter");
	OPT(op->conv_transpose2d, bias, "bias");
	return true;
}

static bool outputs_conv_transpose2d(const Webnn__Ipc__Operation *op, const uint32_t **list,
		size_t *n)
{
	OUT_ONE(op->conv_transpose2d);
}

static void roles_conv_transpose2d(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn,
		void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 4, 4);
	fn(ud, "filter", t, 4, 4);
	fn(ud, "bias", t, 1, 1);
	fn(ud, "output", t, 4, 4);
}

WNN_RESOLVER(resolve_conv_transpose2d, conv_transpose2d)

const struct wnn_attrs_rules wnn_attrs_conv_transpose2d = {
	.inputs = inputs_conv_transpose2d,
	.outputs = outputs_conv_transpose2d,
	.roles = roles_conv_transpose2d,
	.resolve = resolve_conv_transpose2d_any,
};
