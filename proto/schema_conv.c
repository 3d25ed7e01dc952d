/* Convolution family (conv2d, convTranspose2d): wiring, inference, role limits, resolution. */
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
static bool infer_conv2d_channels(struct wnn_infer *c, const Webnn__Ipc__Conv2d *m,
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

static bool infer_conv2d(struct wnn_infer *c)
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
	struct wnn_conv2d_attrs p;
	int64_t size[2];
	memset(&p, 0, sizeof(p));
	if (conv2d_geometry(m, x, f, &p, size, c->name, c->diag) != WEBNN_STATUS_OK ||
	    !infer_conv2d_channels(c, m, &p))
		return false;
	struct wnn_desc *r = wnn_result(c, x->type, 4);
	r->dims[0] = p.n;
	r->dims[p.nhwc ? 3 : 1] = p.c_out;
	return wnn_set_dim(c, r, p.nhwc ? 1 : 2, size[0], "output height") &&
	       wnn_set_dim(c, r, p.nhwc ? 2 : 3, size[1], "output width");
}

/* Validates the options of convTranspose2d that shape inference checks before the geometry. */
static bool infer_conv_transpose2d_options(struct wnn_infer *c,
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
static bool infer_conv_transpose2d_sizes(struct wnn_infer *c,
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

static bool infer_conv_transpose2d(struct wnn_infer *c)
{
	const Webnn__Ipc__ConvTranspose2d *m = c->op->conv_transpose2d;
	const struct wnn_desc *x = D(c, m->input), *f = D(c, m->filter);
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_rank(c, x, "input", 4, 4) ||
	    !wnn_check_rank(c, f, "filter", 4, 4) || !wnn_check_same_type(c, f, "filter", x, "input") ||
	    !infer_conv_transpose2d_options(c, m))
		return false;
	struct wnn_conv_transpose2d_attrs p;
	int64_t size[2], calc[2];
	memset(&p, 0, sizeof(p));
	if (conv_transpose2d_geometry(m, x, f, &p, size, calc, c->name, c->diag) !=
		    WEBNN_STATUS_OK ||
	    !infer_conv_transpose2d_sizes(c, m, &p, calc))
		return false;
	struct wnn_desc *r = wnn_result(c, x->type, 4);
	r->dims[0] = p.n;
	r->dims[p.nhwc ? 3 : 1] = p.c_out;
	return wnn_set_dim(c, r, p.nhwc ? 1 : 2, size[0], "output height") &&
	       wnn_set_dim(c, r, p.nhwc ? 2 : 3, size[1], "output width");
}

/* The output shape [n, c, h, w] in the operation's layout equals out, and h, w are sizes. */
static bool conv_output_is(const struct wnn_desc *out, bool nhwc, uint32_t n, uint32_t c,
			   const int64_t size[2])
{
	if (size[0] < 1 || size[1] < 1 || size[0] > (int64_t)MAX_DIM || size[1] > (int64_t)MAX_DIM)
		return false;
	uint32_t want[4] = { n, c, (uint32_t)size[0], (uint32_t)size[1] };
	if (nhwc)
		want[1] = (uint32_t)size[0], want[2] = (uint32_t)size[1], want[3] = c;
	return memcmp(want, out->dims, sizeof(want)) == 0;
}

/* What both convolutions' resolvers check first: the input, filter and output operands exist
 * and are 4-d (in that order), and the padding, strides and dilations lists are valid. */
static enum webnn_status conv_common_valid(const struct wnn_desc *descs, size_t n_descs,
					   const uint32_t ids[3], const struct wnn_desc *d[3],
					   const uint32_t *const lists[3], const size_t n[3],
					   const char *name, struct wnn_diag *diag)
{
	static const char *const roles[3] = { "input", "filter", "output" };
	for (int i = 0; i < 3; i++)
		if (!(d[i] = wnn_operand(descs, n_descs, ids[i], name, roles[i], diag)))
			return diag->status;
	for (int i = 0; i < 3; i++)
		CHECK(wnn_rank_is(d[i], 4, name, roles[i], diag));
	CHECK(wnn_list_valid(n[0], lists[0], 4, false, name, "padding", diag));
	CHECK(wnn_list_valid(n[1], lists[1], 2, true, name, "strides", diag));
	return wnn_list_valid(n[2], lists[2], 2, true, name, "dilations", diag);
}

enum webnn_status wnn_resolve_conv2d(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				     size_t n_descs, struct wnn_conv2d_attrs *p,
				     struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_CONV2D, &which, &name, diag));
	const Webnn__Ipc__Conv2d *m = op->conv2d;
	const struct wnn_desc *d[3];
	CHECK(conv_common_valid(descs, n_descs, (const uint32_t[3]){ m->input, m->filter, m->output },
				d, (const uint32_t *const[3]){ m->padding, m->strides, m->dilations },
				(const size_t[3]){ m->n_padding, m->n_strides, m->n_dilations },
				name, diag));
	const struct wnn_desc *in = d[0], *filter = d[1], *out = d[2];
	if (m->groups == 0)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: groups must not be 0", name);
	int64_t size[2];
	CHECK(conv2d_geometry(m, in, filter, p, size, name, diag));
	if (p->c_in % p->groups || p->c_in / p->groups != p->c_in_g)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: filter input channels %u do not equal input channels %u / "
				    "groups %u", name, p->c_in_g, p->c_in, p->groups);
	if (p->c_out % p->groups)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output channels %u are not divisible by groups %u", name,
				    p->c_out, p->groups);
	if (p->kh == 0 || p->kw == 0 || size[0] < 1 || size[1] < 1)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: the dilated filter is larger than the padded input", name);
	if (!conv_output_is(out, p->nhwc, p->n, p->c_out, size))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the convolution", name);
	p->out_h = (uint32_t)size[0], p->out_w = (uint32_t)size[1];
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
					       struct wnn_conv_transpose2d_attrs *p,
					       struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_CONV_TRANSPOSE2D, &which, &name, diag));
	const Webnn__Ipc__ConvTranspose2d *m = op->conv_transpose2d;
	const struct wnn_desc *d[3];
	CHECK(conv_common_valid(descs, n_descs, (const uint32_t[3]){ m->input, m->filter, m->output },
				d, (const uint32_t *const[3]){ m->padding, m->strides, m->dilations },
				(const size_t[3]){ m->n_padding, m->n_strides, m->n_dilations },
				name, diag));
	const struct wnn_desc *in = d[0], *filter = d[1], *out = d[2];
	CHECK(wnn_list_valid(m->n_output_padding, m->output_padding, 2, false, name,
			     "outputPadding", diag));
	CHECK(wnn_list_valid(m->n_output_sizes, m->output_sizes, 2, false, name, "outputSizes",
			     diag));
	if (m->groups == 0 || in->dims[m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC ? 3 : 1] %
				      m->groups)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: input channels %u are not divisible by groups %u", name,
				    in->dims[m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC ? 3 : 1],
				    m->groups);
	int64_t size[2], calc[2];
	CHECK(conv_transpose2d_geometry(m, in, filter, p, size, calc, name, diag));
	uint32_t f_in = filter->dims[conv_transpose2d_filter_axes[p->filter_layout][0]];
	if (f_in != p->c_in)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: filter input channels %u do not match input channels %u",
				    name, f_in, p->c_in);
	if (!conv_output_is(out, p->nhwc, p->n, p->c_out, size))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the convolution", name);
	p->out_h = (uint32_t)size[0], p->out_w = (uint32_t)size[1];
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

const struct wnn_attrs_rules wnn_attrs_conv2d = {
	.inputs = inputs_conv2d,
	.outputs = outputs_conv2d,
	.infer = infer_conv2d,
	.roles = roles_conv2d,
	.resolve = resolve_any_conv2d,
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

WNN_RESOLVE_ANY(conv_transpose2d)

const struct wnn_attrs_rules wnn_attrs_conv_transpose2d = {
	.inputs = inputs_conv_transpose2d,
	.outputs = outputs_conv_transpose2d,
	.infer = infer_conv_transpose2d,
	.roles = roles_conv_transpose2d,
	.resolve = resolve_any_conv_transpose2d,
};
