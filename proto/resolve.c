/* Resolves Operation messages into backend-ready parameters with the spec's option defaults. */
#include "proto/resolve.h"

#include <math.h>
#include <string.h>

void wnn_shape_strides(uint32_t rank, const uint32_t *dims, uint64_t *strides)
{
	uint64_t s = 1;
	for (uint32_t i = rank; i-- > 0;) {
		strides[i] = s;
		s *= dims[i];
	}
}

uint64_t wnn_shape_count(uint32_t rank, const uint32_t *dims)
{
	uint64_t n = 1;
	for (uint32_t i = 0; i < rank; i++)
		n *= dims[i];
	return n;
}

uint64_t wnn_shape_offset(uint32_t rank, const uint32_t *dims, const uint64_t *strides,
		       uint64_t index)
{
	uint64_t off = 0;
	for (uint32_t i = rank; i-- > 0;) {
		uint64_t c = index % dims[i];
		index /= dims[i];
		off += c * strides[i];
	}
	return off;
}

bool wnn_bcast_strides(const struct wnn_desc *in, uint32_t out_rank, const uint32_t *out_dims,
			  uint64_t *strides)
{
	uint64_t cs[WNN_MAX_RANK];
	if (in->rank > out_rank || out_rank > WNN_MAX_RANK)
		return false;
	wnn_shape_strides(in->rank, in->dims, cs);
	uint32_t lead = out_rank - in->rank;
	for (uint32_t i = 0; i < out_rank; i++) {
		if (i < lead) {
			strides[i] = 0;
			continue;
		}
		uint32_t d = in->dims[i - lead];
		if (d == out_dims[i])
			strides[i] = d == 1 ? 0 : cs[i - lead];
		else if (d == 1)
			strides[i] = 0;
		else
			return false;
	}
	return true;
}

double wnn_cast_float(double x, enum wnn_dtype t)
{
	if (t == WNN_F32)
		return (double)(float)x;
	if (t == WNN_F16)
		return (double)wnn_f16_to_f32(wnn_f32_to_f16((float)x));
	return x;
}

enum webnn_status wnn_broadcast(const struct wnn_desc *const *inputs, int n,
				   struct wnn_bcast *out, const char *what,
				   struct wnn_diag *diag)
{
	char b1[96], b2[96];
	memset(out, 0, sizeof(*out));
	if (n < 1 || n > WNN_MAX_BCAST_INPUTS)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: %d inputs to broadcast", what,
				    n);
	uint32_t rank = 0;
	for (int i = 0; i < n; i++) {
		if (inputs[i]->rank > WNN_MAX_RANK)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: input %d rank %u exceeds %d", what, i,
					    inputs[i]->rank, WNN_MAX_RANK);
		if (inputs[i]->rank > rank)
			rank = inputs[i]->rank;
	}
	out->rank = rank;
	out->n_inputs = n;
	for (uint32_t d = 0; d < rank; d++)
		out->dims[d] = 1;
	for (int i = 0; i < n; i++) {
		const struct wnn_desc *in = inputs[i];
		uint32_t lead = rank - in->rank;
		for (uint32_t d = 0; d < in->rank; d++) {
			uint32_t v = in->dims[d], *o = &out->dims[d + lead];
			if (v == *o || v == 1)
				continue;
			if (*o != 1)
				return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
						    "%s: shapes %s and %s are not broadcastable",
						    what, wnn_desc_str(inputs[0], b1, sizeof(b1)),
						    wnn_desc_str(in, b2, sizeof(b2)));
			*o = v;
		}
	}
	out->count = wnn_shape_count(rank, out->dims);
	for (int i = 0; i < n; i++) {
		wnn_bcast_strides(inputs[i], rank, out->dims, out->strides[i]);
		out->same_shape[i] = inputs[i]->rank == rank &&
				     memcmp(inputs[i]->dims, out->dims, rank * sizeof(uint32_t)) == 0;
	}
	return WEBNN_STATUS_OK;
}

/* ---- common checks */

static enum webnn_status check_op(const Webnn__Ipc__Operation *op, uint32_t family,
				  enum wnn_op *which, const char **name, struct wnn_diag *diag)
{
	enum wnn_op o = op ? wnn_op_from_id(op->op) : WNN_OP_COUNT;
	*name = o == WNN_OP_COUNT ? "operation" : wnn_ops[o].name;
	if (o == WNN_OP_COUNT)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "operation: unknown operator id %u",
				    op ? op->op : 0);
	if (wnn_ops[o].attrs != family || (uint32_t)op->attrs_case != family)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: operation attributes do not match the operator", *name);
	*which = o;
	return WEBNN_STATUS_OK;
}

static const struct wnn_desc *operand(const struct wnn_desc *descs, size_t n, uint32_t id,
				      const char *name, const char *role, struct wnn_diag *diag)
{
	if (id >= n || descs[id].type == WNN_DT_NONE || descs[id].rank > WNN_MAX_RANK) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: %s operand %u is not defined", name,
			     role, id);
		return NULL;
	}
	return &descs[id];
}

static enum webnn_status rank_is(const struct wnn_desc *d, uint32_t rank, const char *name,
				 const char *role, struct wnn_diag *diag)
{
	if (d->rank != rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: %s rank is %u, expected %u",
				    name, role, d->rank, rank);
	return WEBNN_STATUS_OK;
}

#define OPERAND(var, id, role)                                                                 \
	const struct wnn_desc *var = operand(descs, n_descs, (id), name, (role), diag);        \
	if (!var)                                                                              \
		return diag->status

#define CHECK(expr)                                                                            \
	do {                                                                                   \
		enum webnn_status st_ = (expr);                                                \
		if (st_ != WEBNN_STATUS_OK)                                                    \
			return st_;                                                            \
	} while (0)

/* Shapes listed as "n, c, y, x" strides of a 4-D tensor in either layout. */
static void spatial_strides(const struct wnn_desc *d, bool nhwc, uint64_t *s)
{
	uint64_t cs[4];
	wnn_shape_strides(4, d->dims, cs);
	if (nhwc) {
		s[0] = cs[0], s[1] = cs[3], s[2] = cs[1], s[3] = cs[2];
	} else {
		memcpy(s, cs, sizeof(cs));
	}
}

/* The (n, c, h, w) sizes of a 4-D input in either layout. */
static void nchw_dims(const struct wnn_desc *d, bool nhwc, uint32_t *n, uint32_t *c, uint32_t *h,
		      uint32_t *w)
{
	*n = d->dims[0];
	if (nhwc)
		*h = d->dims[1], *w = d->dims[2], *c = d->dims[3];
	else
		*c = d->dims[1], *h = d->dims[2], *w = d->dims[3];
}

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

/* Reads an optional list of exactly `want` entries or applies the default. */
static enum webnn_status opt_list(size_t n, const uint32_t *v, size_t want, uint32_t dflt,
				  uint32_t *out, const char *name, const char *what,
				  struct wnn_diag *diag)
{
	if (n == 0) {
		for (size_t i = 0; i < want; i++)
			out[i] = dflt;
		return WEBNN_STATUS_OK;
	}
	if (n != want)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: %s has %zu entries, expected %zu",
				    name, what, n, want);
	memcpy(out, v, want * sizeof(uint32_t));
	return WEBNN_STATUS_OK;
}

static enum webnn_status nonzero(const uint32_t *v, size_t n, const char *name, const char *what,
				 struct wnn_diag *diag)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == 0)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: %s must not be 0",
					    name, what);
	return WEBNN_STATUS_OK;
}

/* A [outer, axis, inner] view of a shape around one axis. */
static void axis_view(const struct wnn_desc *d, uint32_t axis, uint64_t *outer, uint64_t *size,
		      uint64_t *inner)
{
	*outer = wnn_shape_count(axis, d->dims);
	*size = d->dims[axis];
	*inner = wnn_shape_count(d->rank - axis - 1, d->dims + axis + 1);
}

static enum webnn_status axis_in_range(uint32_t axis, uint32_t rank, const char *name,
				       struct wnn_diag *diag)
{
	if (axis >= rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: axis %u is out of range for rank %u", name, axis, rank);
	return WEBNN_STATUS_OK;
}

static enum webnn_status same_shape(const struct wnn_desc *a, const struct wnn_desc *b,
				    const char *name, const char *what, struct wnn_diag *diag)
{
	if (a->rank != b->rank || memcmp(a->dims, b->dims, a->rank * sizeof(uint32_t)))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: %s", name, what);
	return WEBNN_STATUS_OK;
}

/* Elementwise operators may reshape, so only the element counts have to agree. */
static enum webnn_status same_count(const struct wnn_desc *in, const struct wnn_desc *out,
				    const char *name, struct wnn_diag *diag)
{
	if (wnn_shape_count(in->rank, in->dims) != wnn_shape_count(out->rank, out->dims))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape differs from the input shape", name);
	return WEBNN_STATUS_OK;
}

/* ---- elementwise */

enum webnn_status wnn_resolve_binary(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_binary_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_BINARY, &p->op, &name, diag));
	const Webnn__Ipc__ElementwiseBinary *m = op->binary;
	OPERAND(a, m->a, "a");
	OPERAND(b, m->b, "b");
	OPERAND(out, m->output, "output");
	if (a->type != b->type)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: b data type %s differs from a data type %s", name,
				    wnn_dtype_name(b->type), wnn_dtype_name(a->type));
	p->a = m->a, p->b = m->b, p->output = m->output;
	p->type = a->type;
	p->out_type = out->type;
	const struct wnn_desc *in[2] = { a, b };
	CHECK(wnn_broadcast(in, 2, &p->bc, name, diag));
	if (out->rank != p->bc.rank || memcmp(out->dims, p->bc.dims, out->rank * sizeof(uint32_t)))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the broadcast shape", name);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_unary(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			       size_t n_descs, struct wnn_unary_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_UNARY, &p->op, &name, diag));
	const Webnn__Ipc__ElementwiseUnary *m = op->unary;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(same_count(in, out, name, diag));
	p->input = m->input, p->output = m->output;
	p->type = in->type, p->out_type = out->type;
	p->count = wnn_shape_count(in->rank, in->dims);
	double alpha = wnn_ops[p->op].defaults.alpha, beta = wnn_ops[p->op].defaults.beta;
	if (m->has_alpha)
		alpha = m->alpha;
	if (m->has_beta)
		beta = m->beta;
	p->alpha = wnn_cast_float(alpha, p->type);
	p->beta = wnn_cast_float(beta, p->type);
	return WEBNN_STATUS_OK;
}

static bool number_given(const Webnn__Ipc__Number *n)
{
	return n && n->value_case != WEBNN__IPC__NUMBER__VALUE__NOT_SET;
}

enum webnn_status wnn_resolve_clamp(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			       size_t n_descs, struct wnn_clamp_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_CLAMP, &which, &name, diag));
	const Webnn__Ipc__Clamp *m = op->clamp;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	(void)out;
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->count = wnn_shape_count(in->rank, in->dims);
	const Webnn__Ipc__Number *bound[2] = { m->min_value, m->max_value };
	for (int i = 0; i < 2; i++) {
		bool given = number_given(bound[i]);
		double d;
		int64_t si;
		uint64_t ui;
		union {
			int8_t i8;
			uint8_t u8;
			int32_t i32;
			uint32_t u32;
			int64_t i64;
			uint64_t u64;
		} v;
		if (given)
			wnn_number_to_bytes(bound[i], p->type, &v);
		switch (p->type) {
		case WNN_F32:
		case WNN_F16:
			d = given ? wnn_cast_float(wnn_number_to_double(bound[i]), p->type)
				  : (i == 0 ? -INFINITY : INFINITY);
			si = 0, ui = 0;
			break;
		case WNN_I8:
			si = given ? v.i8 : (i == 0 ? INT8_MIN : INT8_MAX);
			d = (double)si, ui = 0;
			break;
		case WNN_I32:
			si = given ? v.i32 : (i == 0 ? INT32_MIN : INT32_MAX);
			d = (double)si, ui = 0;
			break;
		case WNN_I64:
			si = given ? v.i64 : (i == 0 ? INT64_MIN : INT64_MAX);
			d = (double)si, ui = 0;
			break;
		case WNN_U8:
			ui = given ? v.u8 : (i == 0 ? 0 : UINT8_MAX);
			d = (double)ui, si = 0;
			break;
		case WNN_U32:
			ui = given ? v.u32 : (i == 0 ? 0 : UINT32_MAX);
			d = (double)ui, si = 0;
			break;
		case WNN_U64:
			ui = given ? v.u64 : (i == 0 ? 0 : UINT64_MAX);
			d = (double)ui, si = 0;
			break;
		default:
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: input data type %s is not supported", name,
					    wnn_dtype_name(p->type));
		}
		if (i == 0)
			p->min = d, p->min_i = si, p->min_u = ui;
		else
			p->max = d, p->max_i = si, p->max_u = ui;
	}
	return WEBNN_STATUS_OK;
}

/* ---- convolution and pooling */

enum webnn_status wnn_resolve_conv2d(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_conv2d_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_CONV2D, &which, &name, diag));
	const Webnn__Ipc__Conv2d *m = op->conv2d;
	OPERAND(in, m->input, "input");
	OPERAND(filter, m->filter, "filter");
	OPERAND(out, m->output, "output");
	CHECK(rank_is(in, 4, name, "input", diag));
	CHECK(rank_is(filter, 4, name, "filter", diag));
	CHECK(rank_is(out, 4, name, "output", diag));
	p->input = m->input, p->filter = m->filter, p->output = m->output;
	p->bias = WNN_NO_OPERAND;
	p->type = in->type;
	p->nhwc = m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	nchw_dims(in, p->nhwc, &p->n, &p->c_in, &p->h, &p->w);
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
	CHECK(opt_list(m->n_padding, m->padding, 4, 0, pad, name, "padding", diag));
	CHECK(opt_list(m->n_strides, m->strides, 2, 1, strides, name, "strides", diag));
	CHECK(opt_list(m->n_dilations, m->dilations, 2, 1, dil, name, "dilations", diag));
	CHECK(nonzero(strides, 2, name, "strides", diag));
	CHECK(nonzero(dil, 2, name, "dilations", diag));
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
	spatial_strides(in, p->nhwc, p->in_stride);
	spatial_strides(out, p->nhwc, p->out_stride);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_pool2d(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_pool2d_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_POOL2D, &which, &name, diag));
	const Webnn__Ipc__Pool2d *m = op->pool2d;
	p->kind = which == WNN_OP_AVERAGE_POOL2D ? WNN_POOL_AVG
		  : which == WNN_OP_L2_POOL2D    ? WNN_POOL_L2
						 : WNN_POOL_MAX;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(rank_is(in, 4, name, "input", diag));
	CHECK(rank_is(out, 4, name, "output", diag));
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->nhwc = m->layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	nchw_dims(in, p->nhwc, &p->n, &p->c, &p->h, &p->w);
	uint32_t win[2] = { p->h, p->w }, pad[4], strides[2], dil[2];
	if (m->n_window_dimensions)
		CHECK(opt_list(m->n_window_dimensions, m->window_dimensions, 2, 0, win, name,
			       "windowDimensions", diag));
	CHECK(nonzero(win, 2, name, "windowDimensions", diag));
	/* The spec text resets padding to 0 when outputSizes is given, but the conformance data
	 * (WPT) keeps the given padding; we follow WPT, which matches every implementation. */
	CHECK(opt_list(m->n_padding, m->padding, 4, 0, pad, name, "padding", diag));
	CHECK(opt_list(m->n_strides, m->strides, 2, 1, strides, name, "strides", diag));
	CHECK(opt_list(m->n_dilations, m->dilations, 2, 1, dil, name, "dilations", diag));
	CHECK(nonzero(strides, 2, name, "strides", diag));
	CHECK(nonzero(dil, 2, name, "dilations", diag));
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
		CHECK(opt_list(m->n_output_sizes, m->output_sizes, 2, 0, os, name, "outputSizes",
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
	spatial_strides(in, p->nhwc, p->in_stride);
	spatial_strides(out, p->nhwc, p->out_stride);
	return WEBNN_STATUS_OK;
}

/* ---- matrix products */

enum webnn_status wnn_resolve_gemm(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, struct wnn_gemm_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_GEMM, &which, &name, diag));
	const Webnn__Ipc__Gemm *m = op->gemm;
	OPERAND(a, m->a, "a");
	OPERAND(b, m->b, "b");
	OPERAND(out, m->output, "output");
	CHECK(rank_is(a, 2, name, "a", diag));
	CHECK(rank_is(b, 2, name, "b", diag));
	CHECK(rank_is(out, 2, name, "output", diag));
	p->a = m->a, p->b = m->b, p->output = m->output, p->c = WNN_NO_OPERAND;
	p->type = a->type;
	p->a_transpose = m->a_transpose, p->b_transpose = m->b_transpose;
	uint32_t ka, kb;
	if (m->a_transpose)
		ka = a->dims[0], p->m = a->dims[1], p->a_stride_m = 1, p->a_stride_k = a->dims[1];
	else
		p->m = a->dims[0], ka = a->dims[1], p->a_stride_m = a->dims[1], p->a_stride_k = 1;
	if (m->b_transpose)
		p->n = b->dims[0], kb = b->dims[1], p->b_stride_k = 1, p->b_stride_n = b->dims[1];
	else
		kb = b->dims[0], p->n = b->dims[1], p->b_stride_k = b->dims[1], p->b_stride_n = 1;
	if (ka != kb)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: a has %u columns but b has %u rows (after transposes)", name,
				    ka, kb);
	p->k = ka;
	if (out->dims[0] != p->m || out->dims[1] != p->n)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape must be [%u, %u]", name, p->m, p->n);
	p->alpha = wnn_cast_float(m->alpha, p->type);
	p->beta = wnn_cast_float(m->beta, p->type);
	if (m->has_c) {
		OPERAND(c, m->c, "c");
		uint64_t cs[2];
		uint32_t mn[2] = { p->m, p->n };
		if (!wnn_bcast_strides(c, 2, mn, cs))
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: c is not broadcastable to [%u, %u]", name, p->m,
					    p->n);
		p->has_c = true;
		p->c = m->c;
		p->c_stride_m = cs[0], p->c_stride_n = cs[1];
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_matmul(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_matmul_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_MATMUL, &which, &name, diag));
	const Webnn__Ipc__Matmul *m = op->matmul;
	OPERAND(a, m->a, "a");
	OPERAND(b, m->b, "b");
	OPERAND(out, m->output, "output");
	if (a->rank < 2 || b->rank < 2)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: a rank %u and b rank %u must both be at least 2", name,
				    a->rank, b->rank);
	p->a = m->a, p->b = m->b, p->output = m->output;
	p->type = a->type;
	p->m = a->dims[a->rank - 2], p->k = a->dims[a->rank - 1];
	p->n = b->dims[b->rank - 1];
	if (b->dims[b->rank - 2] != p->k)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: a has %u columns but b has %u rows", name, p->k,
				    b->dims[b->rank - 2]);
	struct wnn_desc ba = { .type = a->type, .rank = a->rank - 2 };
	struct wnn_desc bb = { .type = b->type, .rank = b->rank - 2 };
	memcpy(ba.dims, a->dims, ba.rank * sizeof(uint32_t));
	memcpy(bb.dims, b->dims, bb.rank * sizeof(uint32_t));
	struct wnn_bcast bc;
	const struct wnn_desc *in[2] = { &ba, &bb };
	CHECK(wnn_broadcast(in, 2, &bc, name, diag));
	if (out->rank != bc.rank + 2 || memcmp(out->dims, bc.dims, bc.rank * sizeof(uint32_t)) ||
	    out->dims[bc.rank] != p->m || out->dims[bc.rank + 1] != p->n)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the matrix product", name);
	p->batch_rank = bc.rank;
	memcpy(p->batch_dims, bc.dims, sizeof(bc.dims));
	p->batch = bc.count;
	uint64_t mk = (uint64_t)p->m * p->k, kn = (uint64_t)p->k * p->n;
	for (uint32_t i = 0; i < bc.rank; i++) {
		p->a_batch_strides[i] = bc.strides[0][i] * mk;
		p->b_batch_strides[i] = bc.strides[1][i] * kn;
	}
	p->a_broadcast = !bc.same_shape[0];
	p->b_broadcast = !bc.same_shape[1];
	return WEBNN_STATUS_OK;
}

/* ---- data movement */

enum webnn_status wnn_resolve_transpose(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct wnn_transpose_attrs *p,
				   struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_TRANSPOSE, &which, &name, diag));
	const Webnn__Ipc__Transpose *m = op->transpose;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->rank = in->rank;
	if (m->has_permutation || m->n_permutation) {
		if (m->n_permutation != in->rank)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: permutation has %zu entries, expected %u", name,
					    m->n_permutation, in->rank);
		bool seen[WNN_MAX_RANK] = { false };
		for (uint32_t i = 0; i < in->rank; i++) {
			uint32_t v = m->permutation[i];
			if (v >= in->rank || seen[v])
				return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
						    "%s: permutation is not a permutation of 0..%u",
						    name, in->rank - 1);
			seen[v] = true;
			p->perm[i] = v;
		}
	} else {
		for (uint32_t i = 0; i < in->rank; i++)
			p->perm[i] = in->rank - 1 - i;
	}
	uint64_t cs[WNN_MAX_RANK];
	wnn_shape_strides(in->rank, in->dims, cs);
	for (uint32_t i = 0; i < in->rank; i++) {
		p->out_dims[i] = in->dims[p->perm[i]];
		p->in_strides[i] = cs[p->perm[i]];
	}
	if (out->rank != in->rank || memcmp(out->dims, p->out_dims, in->rank * sizeof(uint32_t)))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the permutation", name);
	p->count = wnn_shape_count(in->rank, in->dims);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_concat(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_concat_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_CONCAT, &which, &name, diag));
	const Webnn__Ipc__Concat *m = op->concat;
	OPERAND(out, m->output, "output");
	if (m->n_inputs == 0)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: no inputs", name);
	CHECK(axis_in_range(m->axis, out->rank, name, diag));
	uint64_t total = 0;
	for (size_t i = 0; i < m->n_inputs; i++) {
		OPERAND(in, m->inputs[i], "input");
		if (in->rank != out->rank || in->type != out->type)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: input %zu does not match the output rank/type", name,
					    i);
		for (uint32_t d = 0; d < in->rank; d++)
			if (d != m->axis && in->dims[d] != out->dims[d])
				return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
						    "%s: input %zu dimension %u differs", name, i,
						    d);
		total += in->dims[m->axis];
	}
	if (total != out->dims[m->axis])
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output size along axis %u is not the sum of the inputs",
				    name, m->axis);
	p->inputs = m->inputs;
	p->n_inputs = m->n_inputs;
	p->output = m->output;
	p->type = out->type;
	p->axis = m->axis;
	p->outer = wnn_shape_count(m->axis, out->dims);
	p->inner = wnn_shape_count(out->rank - m->axis - 1, out->dims + m->axis + 1);
	p->out_axis = out->dims[m->axis];
	return WEBNN_STATUS_OK;
}

uint32_t wnn_concat_size(const struct wnn_concat_attrs *p, const struct wnn_desc *descs,
			    size_t i)
{
	return descs[p->inputs[i]].dims[p->axis];
}

enum webnn_status wnn_resolve_reshape(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct wnn_reshape_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_RESHAPE, &which, &name, diag));
	const Webnn__Ipc__Reshape *m = op->reshape;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->count = wnn_shape_count(in->rank, in->dims);
	if (p->count != wnn_shape_count(out->rank, out->dims) || in->type != out->type)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output element count or type differs from the input", name);
	p->bytes = p->count * wnn_dtype_size(in->type);
	return WEBNN_STATUS_OK;
}

/* ---- normalisation */

enum webnn_status wnn_resolve_softmax(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct wnn_softmax_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_SOFTMAX, &which, &name, diag));
	const Webnn__Ipc__Softmax *m = op->softmax;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	(void)out;
	CHECK(axis_in_range(m->axis, in->rank, name, diag));
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->axis = m->axis;
	axis_view(in, m->axis, &p->outer, &p->axis_size, &p->inner);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_batchnorm(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct wnn_batchnorm_attrs *p,
				   struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_BATCH_NORMALIZATION, &which, &name, diag));
	const Webnn__Ipc__BatchNormalization *m = op->batch_normalization;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	(void)out;
	CHECK(axis_in_range(m->axis, in->rank, name, diag));
	p->input = m->input, p->output = m->output, p->mean = m->mean, p->variance = m->variance;
	p->scale = WNN_NO_OPERAND, p->bias = WNN_NO_OPERAND;
	p->type = in->type;
	p->axis = m->axis;
	axis_view(in, m->axis, &p->outer, &p->channels, &p->inner);
	p->epsilon = wnn_cast_float(m->epsilon, p->type);
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

/* ==== operators beyond the first CNN set */

/* Splits `in` into kept axes (input order) and reduced axes (order of `axes`). */
static enum webnn_status make_reduction(const struct wnn_desc *in, const uint32_t *axes,
					size_t n_axes, struct wnn_reduction *r,
					const char *name, struct wnn_diag *diag)
{
	uint64_t cs[WNN_MAX_RANK];
	uint32_t mask = 0;
	memset(r, 0, sizeof(*r));
	wnn_shape_strides(in->rank, in->dims, cs);
	if (n_axes > in->rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: %zu axes for an input of rank %u", name, n_axes, in->rank);
	for (size_t i = 0; i < n_axes; i++) {
		uint32_t a = axes[i];
		if (a >= in->rank || (mask & (1u << a)))
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: axes item %u is out of range or repeated", name, a);
		mask |= 1u << a;
		r->red_dims[r->red_rank] = in->dims[a];
		r->red_strides[r->red_rank++] = cs[a];
	}
	for (uint32_t a = 0; a < in->rank; a++) {
		if (mask & (1u << a))
			continue;
		r->kept_dims[r->kept_rank] = in->dims[a];
		r->kept_strides[r->kept_rank++] = cs[a];
	}
	r->kept_count = wnn_shape_count(r->kept_rank, r->kept_dims);
	r->red_count = wnn_shape_count(r->red_rank, r->red_dims);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_cast(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, struct wnn_cast_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_CAST, &which, &name, diag));
	const Webnn__Ipc__Cast *m = op->cast;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(same_count(in, out, name, diag));
	p->input = m->input, p->output = m->output;
	p->in_type = in->type, p->out_type = out->type;
	p->count = wnn_shape_count(in->rank, in->dims);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_arg(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			     size_t n_descs, struct wnn_arg_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_ARG_MIN_MAX, &p->op, &name, diag));
	const Webnn__Ipc__ArgMinMax *m = op->arg_min_max;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(axis_in_range(m->axis, in->rank, name, diag));
	if (out->type != WNN_I32 && out->type != WNN_I64)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output data type %s is not int32 or int64", name,
				    wnn_dtype_name(out->type));
	p->input = m->input, p->output = m->output;
	p->type = in->type, p->out_type = out->type;
	p->axis = m->axis;
	axis_view(in, m->axis, &p->outer, &p->axis_size, &p->inner);
	if (wnn_shape_count(out->rank, out->dims) != p->outer * p->inner)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the reduction", name);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_cumsum(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_cumsum_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_CUMULATIVE_SUM, &which, &name, diag));
	const Webnn__Ipc__CumulativeSum *m = op->cumulative_sum;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(axis_in_range(m->axis, in->rank, name, diag));
	CHECK(same_shape(in, out, name, "output shape differs from the input shape", diag));
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->axis = m->axis;
	p->exclusive = m->exclusive, p->reversed = m->reversed;
	axis_view(in, m->axis, &p->outer, &p->axis_size, &p->inner);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_conv_transpose2d(const Webnn__Ipc__Operation *op,
					  const struct wnn_desc *descs, size_t n_descs,
					  struct wnn_conv_transpose2d_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_CONV_TRANSPOSE2D, &which, &name, diag));
	const Webnn__Ipc__ConvTranspose2d *m = op->conv_transpose2d;
	OPERAND(in, m->input, "input");
	OPERAND(filter, m->filter, "filter");
	OPERAND(out, m->output, "output");
	CHECK(rank_is(in, 4, name, "input", diag));
	CHECK(rank_is(filter, 4, name, "filter", diag));
	CHECK(rank_is(out, 4, name, "output", diag));
	p->input = m->input, p->filter = m->filter, p->output = m->output;
	p->bias = WNN_NO_OPERAND;
	p->type = in->type;
	p->nhwc = m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	nchw_dims(in, p->nhwc, &p->n, &p->c_in, &p->h, &p->w);
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
	CHECK(opt_list(m->n_padding, m->padding, 4, 0, pad, name, "padding", diag));
	CHECK(opt_list(m->n_strides, m->strides, 2, 1, strides, name, "strides", diag));
	CHECK(opt_list(m->n_dilations, m->dilations, 2, 1, dil, name, "dilations", diag));
	CHECK(opt_list(m->n_output_padding, m->output_padding, 2, 0, opad, name, "outputPadding",
		       diag));
	CHECK(nonzero(strides, 2, name, "strides", diag));
	CHECK(nonzero(dil, 2, name, "dilations", diag));
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
	spatial_strides(in, p->nhwc, p->in_stride);
	spatial_strides(out, p->nhwc, p->out_stride);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_quantize(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				  size_t n_descs, struct wnn_quantize_attrs *p,
				  struct wnn_diag *diag)
{
	const char *name;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_QUANTIZE_LINEAR, &p->op, &name, diag));
	const Webnn__Ipc__QuantizeLinear *m = op->quantize_linear;
	OPERAND(in, m->input, "input");
	OPERAND(scale, m->scale, "scale");
	OPERAND(zp, m->zero_point, "zeroPoint");
	OPERAND(out, m->output, "output");
	CHECK(same_shape(in, out, name, "output shape differs from the input shape", diag));
	CHECK(same_shape(scale, zp, name, "scale and zeroPoint shapes differ", diag));
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

enum webnn_status wnn_resolve_expand(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_expand_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_EXPAND, &which, &name, diag));
	const Webnn__Ipc__Expand *m = op->expand;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	if (!wnn_bcast_strides(in, out->rank, out->dims, p->in_strides))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: input is not broadcastable to the output shape", name);
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->rank = out->rank;
	memcpy(p->out_dims, out->dims, sizeof(p->out_dims));
	p->count = wnn_shape_count(out->rank, out->dims);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_tile(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, struct wnn_tile_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_TILE, &which, &name, diag));
	const Webnn__Ipc__Tile *m = op->tile;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	if (out->rank != in->rank || m->n_repetitions != in->rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: repetitions must have one value per input dimension", name);
	for (uint32_t i = 0; i < in->rank; i++)
		if ((uint64_t)in->dims[i] * m->repetitions[i] != out->dims[i])
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: output dimension %u is not input * repetitions",
					    name, i);
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->rank = in->rank;
	memcpy(p->in_dims, in->dims, sizeof(p->in_dims));
	memcpy(p->out_dims, out->dims, sizeof(p->out_dims));
	wnn_shape_strides(in->rank, in->dims, p->in_strides);
	p->count = wnn_shape_count(out->rank, out->dims);
	return WEBNN_STATUS_OK;
}

uint64_t wnn_tile_offset(const struct wnn_tile_attrs *p, uint64_t j)
{
	uint64_t off = 0;
	for (uint32_t d = p->rank; d-- > 0;) {
		uint64_t c = j % p->out_dims[d];
		j /= p->out_dims[d];
		off += (c % p->in_dims[d]) * p->in_strides[d];
	}
	return off;
}

static enum webnn_status index_type_ok(enum wnn_dtype t, const char *name, struct wnn_diag *diag)
{
	if (t != WNN_I32 && t != WNN_U32 && t != WNN_I64)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: indices data type %s is not int32, uint32 or int64", name,
				    wnn_dtype_name(t));
	return WEBNN_STATUS_OK;
}

int64_t wnn_load_index(const void *idx, enum wnn_dtype index_type, uint64_t i)
{
	switch (index_type) {
	case WNN_I32:
		return ((const int32_t *)idx)[i];
	case WNN_U32:
		return ((const uint32_t *)idx)[i];
	case WNN_I64:
		return ((const int64_t *)idx)[i];
	default:
		return 0;
	}
}

uint64_t wnn_nd_offset(const void *idx, enum wnn_dtype index_type, uint64_t t, uint32_t k,
			  const uint32_t *in_dims, const uint64_t *in_strides)
{
	uint64_t off = 0;
	for (uint32_t d = 0; d < k; d++)
		off += wnn_wrap_index(wnn_load_index(idx, index_type, t * k + d), in_dims[d]) *
		       in_strides[d];
	return off;
}

enum webnn_status wnn_resolve_gather(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_gather_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_GATHER, &p->op, &name, diag));
	const Webnn__Ipc__Gather *m = op->gather;
	OPERAND(in, m->input, "input");
	OPERAND(idx, m->indices, "indices");
	OPERAND(out, m->output, "output");
	CHECK(index_type_ok(idx->type, name, diag));
	if (in->rank < 1)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: input rank must be at least 1",
				    name);
	p->input = m->input, p->indices = m->indices, p->output = m->output;
	p->type = in->type, p->index_type = idx->type;
	p->in_rank = in->rank;
	memcpy(p->in_dims, in->dims, sizeof(p->in_dims));
	wnn_shape_strides(in->rank, in->dims, p->in_strides);
	p->rank = out->rank;
	memcpy(p->out_dims, out->dims, sizeof(p->out_dims));
	p->count = wnn_shape_count(out->rank, out->dims);
	uint64_t n_idx = wnn_shape_count(idx->rank, idx->dims);
	if (p->op == WNN_OP_GATHER) {
		CHECK(axis_in_range(m->axis, in->rank, name, diag));
		p->axis = m->axis;
		axis_view(in, m->axis, &p->outer, &p->axis_size, &p->inner);
		p->n_indices = n_idx;
		if (p->count != p->outer * n_idx * p->inner)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: output shape does not match the gather", name);
	} else if (p->op == WNN_OP_GATHER_ELEMENTS) {
		CHECK(axis_in_range(m->axis, in->rank, name, diag));
		p->axis = m->axis;
		p->axis_size = in->dims[m->axis];
		CHECK(same_shape(idx, out, name, "output shape differs from the indices shape",
				 diag));
		if (idx->rank != in->rank)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: indices rank differs from the input rank", name);
		for (uint32_t i = 0; i < in->rank; i++)
			if (i != m->axis && idx->dims[i] != in->dims[i])
				return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
						    "%s: indices dimension %u differs from the "
						    "input", name, i);
	} else {
		if (idx->rank < 1 || idx->dims[idx->rank - 1] > in->rank)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: indices last dimension exceeds the input rank", name);
		p->k = idx->dims[idx->rank - 1];
		p->n_tuples = n_idx / p->k;
		p->slice = wnn_shape_count(in->rank - p->k, in->dims + p->k);
		if (p->count != p->n_tuples * p->slice)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: output shape does not match the gather", name);
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_scatter(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct wnn_scatter_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_SCATTER, &p->op, &name, diag));
	const Webnn__Ipc__Scatter *m = op->scatter;
	OPERAND(in, m->input, "input");
	OPERAND(idx, m->indices, "indices");
	OPERAND(upd, m->updates, "updates");
	OPERAND(out, m->output, "output");
	CHECK(index_type_ok(idx->type, name, diag));
	CHECK(same_shape(in, out, name, "output shape differs from the input shape", diag));
	if (in->rank < 1 || upd->type != in->type)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: input rank must be at least 1 and updates of its type",
				    name);
	p->input = m->input, p->indices = m->indices, p->updates = m->updates;
	p->output = m->output;
	p->type = in->type, p->index_type = idx->type;
	p->rank = in->rank;
	memcpy(p->in_dims, in->dims, sizeof(p->in_dims));
	wnn_shape_strides(in->rank, in->dims, p->in_strides);
	p->count = wnn_shape_count(in->rank, in->dims);
	uint64_t n_idx = wnn_shape_count(idx->rank, idx->dims);
	if (p->op == WNN_OP_SCATTER_ELEMENTS) {
		CHECK(axis_in_range(m->axis, in->rank, name, diag));
		CHECK(same_shape(idx, upd, name, "updates shape differs from the indices shape",
				 diag));
		if (idx->rank != in->rank)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: indices rank differs from the input rank", name);
		for (uint32_t i = 0; i < in->rank; i++)
			if (i != m->axis && idx->dims[i] != in->dims[i])
				return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
						    "%s: indices dimension %u differs from the "
						    "input", name, i);
		p->axis = m->axis;
		p->axis_size = in->dims[m->axis];
		memcpy(p->idx_dims, idx->dims, sizeof(p->idx_dims));
		p->n_updates = n_idx;
	} else {
		if (idx->rank < 1 || idx->dims[idx->rank - 1] > in->rank)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: indices last dimension exceeds the input rank", name);
		p->k = idx->dims[idx->rank - 1];
		p->n_tuples = n_idx / p->k;
		p->slice = wnn_shape_count(in->rank - p->k, in->dims + p->k);
		if (wnn_shape_count(upd->rank, upd->dims) != p->n_tuples * p->slice)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: updates shape does not match the indices", name);
		p->n_updates = p->n_tuples * p->slice;
	}
	return WEBNN_STATUS_OK;
}

/* Checks an optional recurrent operand's element count (shapes were validated by
 * wnn_op_infer; this guards the kernels against an inconsistent graph). */
static enum webnn_status rnn_operand(const struct wnn_desc *descs, size_t n_descs, bool has,
				     uint32_t id, uint64_t want, enum wnn_dtype t, uint32_t *out,
				     const char *name, const char *role, struct wnn_diag *diag)
{
	*out = WNN_NO_OPERAND;
	if (!has)
		return WEBNN_STATUS_OK;
	const struct wnn_desc *d = operand(descs, n_descs, id, name, role, diag);
	if (!d)
		return diag->status;
	if (d->type != t || wnn_shape_count(d->rank, d->dims) != want)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: %s must be %s with %llu elements", name, role,
				    wnn_dtype_name(t), (unsigned long long)want);
	*out = id;
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_rnn(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			     size_t n_descs, struct wnn_rnn_attrs *p, struct wnn_diag *diag)
{
	const char *name = "operation";
	enum wnn_op o = op ? wnn_op_from_id(op->op) : WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	uint32_t family = o == WNN_OP_COUNT ? 0 : wnn_ops[o].attrs;
	if (family != WEBNN__IPC__OPERATION__ATTRS_GRU &&
	    family != WEBNN__IPC__OPERATION__ATTRS_GRU_CELL &&
	    family != WEBNN__IPC__OPERATION__ATTRS_LSTM &&
	    family != WEBNN__IPC__OPERATION__ATTRS_LSTM_CELL)
		family = WEBNN__IPC__OPERATION__ATTRS_GRU; /* check_op reports the mismatch */
	CHECK(check_op(op, family, &p->op, &name, diag));
	uint32_t in_id, w_id, rw_id, b_id = 0, rb_id = 0, ph_id = 0, h0_id = 0, c0_id = 0;
	bool has_b, has_rb, has_ph = false, has_h0, has_c0 = false;
	const uint32_t *outs;
	size_t n_outs;
	const Webnn__Ipc__RecurrentActivation *acts;
	size_t n_acts;
	int layout;
	p->out_hidden = p->out_cell = p->out_sequence = WNN_NO_OPERAND;
	switch (family) {
	case WEBNN__IPC__OPERATION__ATTRS_GRU: {
		const Webnn__Ipc__Gru *m = op->gru;
		in_id = m->input, w_id = m->weight, rw_id = m->recurrent_weight;
		has_b = m->has_bias, b_id = m->bias;
		has_rb = m->has_recurrent_bias, rb_id = m->recurrent_bias;
		has_h0 = m->has_initial_hidden_state, h0_id = m->initial_hidden_state;
		outs = m->outputs, n_outs = m->n_outputs;
		acts = m->activations, n_acts = m->n_activations;
		layout = (int)m->layout;
		p->steps = m->steps, p->hidden = m->hidden_size;
		p->reset_after = m->reset_after, p->return_sequence = m->return_sequence;
		p->num_dirs = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BOTH ? 2 : 1;
		p->backward = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BACKWARD;
		break;
	}
	case WEBNN__IPC__OPERATION__ATTRS_GRU_CELL: {
		const Webnn__Ipc__GruCell *m = op->gru_cell;
		in_id = m->input, w_id = m->weight, rw_id = m->recurrent_weight;
		has_b = m->has_bias, b_id = m->bias;
		has_rb = m->has_recurrent_bias, rb_id = m->recurrent_bias;
		has_h0 = true, h0_id = m->hidden_state;
		outs = &m->output, n_outs = 1;
		acts = m->activations, n_acts = m->n_activations;
		layout = (int)m->layout;
		p->steps = 1, p->hidden = m->hidden_size, p->num_dirs = 1;
		p->reset_after = m->reset_after;
		p->cell = true;
		break;
	}
	case WEBNN__IPC__OPERATION__ATTRS_LSTM: {
		const Webnn__Ipc__Lstm *m = op->lstm;
		in_id = m->input, w_id = m->weight, rw_id = m->recurrent_weight;
		has_b = m->has_bias, b_id = m->bias;
		has_rb = m->has_recurrent_bias, rb_id = m->recurrent_bias;
		has_ph = m->has_peephole_weight, ph_id = m->peephole_weight;
		has_h0 = m->has_initial_hidden_state, h0_id = m->initial_hidden_state;
		has_c0 = m->has_initial_cell_state, c0_id = m->initial_cell_state;
		outs = m->outputs, n_outs = m->n_outputs;
		acts = m->activations, n_acts = m->n_activations;
		layout = (int)m->layout;
		p->steps = m->steps, p->hidden = m->hidden_size;
		p->return_sequence = m->return_sequence;
		p->num_dirs = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BOTH ? 2 : 1;
		p->backward = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BACKWARD;
		p->lstm = true;
		break;
	}
	default: {
		const Webnn__Ipc__LstmCell *m = op->lstm_cell;
		in_id = m->input, w_id = m->weight, rw_id = m->recurrent_weight;
		has_b = m->has_bias, b_id = m->bias;
		has_rb = m->has_recurrent_bias, rb_id = m->recurrent_bias;
		has_ph = m->has_peephole_weight, ph_id = m->peephole_weight;
		has_h0 = true, h0_id = m->hidden_state;
		has_c0 = true, c0_id = m->cell_state;
		outs = m->outputs, n_outs = m->n_outputs;
		acts = m->activations, n_acts = m->n_activations;
		layout = (int)m->layout;
		p->steps = 1, p->hidden = m->hidden_size, p->num_dirs = 1;
		p->lstm = true, p->cell = true;
		break;
	}
	}
	OPERAND(in, in_id, "input");
	p->type = in->type;
	if (in->rank != (p->cell ? 2u : 3u))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: input rank is %u, expected %u",
				    name, in->rank, p->cell ? 2u : 3u);
	if (!p->cell && in->dims[0] != p->steps)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: input.shape[0] is %u, expected steps %u", name, in->dims[0],
				    p->steps);
	p->batch = in->dims[p->cell ? 0 : 1];
	p->input_size = in->dims[p->cell ? 1 : 2];
	p->gates = p->lstm ? 4 : 3;
	if (p->hidden == 0)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: hiddenSize must not be 0",
				    name);
	uint64_t dirs = p->num_dirs, gh = (uint64_t)p->gates * p->hidden;
	uint64_t state = dirs * p->batch * p->hidden;
	CHECK(rnn_operand(descs, n_descs, true, w_id, dirs * gh * p->input_size, p->type, &p->weight,
			  name, "weight", diag));
	CHECK(rnn_operand(descs, n_descs, true, rw_id, dirs * gh * p->hidden, p->type,
			  &p->recurrent_weight, name, "recurrentWeight", diag));
	CHECK(rnn_operand(descs, n_descs, has_b, b_id, dirs * gh, p->type, &p->bias, name, "bias",
			  diag));
	CHECK(rnn_operand(descs, n_descs, has_rb, rb_id, dirs * gh, p->type, &p->recurrent_bias,
			  name, "recurrentBias", diag));
	CHECK(rnn_operand(descs, n_descs, has_ph, ph_id, dirs * 3 * p->hidden, p->type,
			  &p->peephole, name, "peepholeWeight", diag));
	CHECK(rnn_operand(descs, n_descs, has_h0, h0_id, state, p->type, &p->initial_hidden, name,
			  p->cell ? "hiddenState" : "initialHiddenState", diag));
	CHECK(rnn_operand(descs, n_descs, has_c0, c0_id, state, p->type, &p->initial_cell, name,
			  p->cell ? "cellState" : "initialCellState", diag));
	p->has_bias = has_b, p->has_recurrent_bias = has_rb, p->has_peephole = has_ph;
	p->has_initial_hidden = has_h0, p->has_initial_cell = has_c0;
	/* outputs in wnn_op_outputs order */
	size_t want = 1 + (p->lstm ? 1 : 0) + (p->return_sequence ? 1 : 0);
	if (n_outs != want)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: %zu outputs, expected %zu",
				    name, n_outs, want);
	CHECK(rnn_operand(descs, n_descs, true, outs[0], state, p->type, &p->out_hidden, name,
			  "output", diag));
	if (p->lstm)
		CHECK(rnn_operand(descs, n_descs, true, outs[1], state, p->type, &p->out_cell, name,
				  "output", diag));
	if (p->return_sequence)
		CHECK(rnn_operand(descs, n_descs, true, outs[want - 1], (uint64_t)p->steps * state,
				  p->type, &p->out_sequence, name, "output", diag));
	/* activations: the spec defaults, else as given */
	size_t n_want = p->lstm ? 3 : 2;
	p->act[0] = WNN_ACT_SIGMOID, p->act[1] = WNN_ACT_TANH, p->act[2] = WNN_ACT_TANH;
	if (n_acts) {
		if (n_acts != n_want)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: activations has %zu items, expected %zu", name,
					    n_acts, n_want);
		for (size_t i = 0; i < n_acts; i++) {
			if ((int)acts[i] < 0 || (int)acts[i] > WNN_ACT_TANH)
				return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
						    "%s: unknown activation %d", name,
						    (int)acts[i]);
			p->act[i] = (enum wnn_activation)acts[i];
		}
	}
	if (p->lstm) {
		if (layout == WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IFGO) {
			p->gate_block[WNN_LSTM_I] = 0, p->gate_block[WNN_LSTM_F] = 1;
			p->gate_block[WNN_LSTM_G] = 2, p->gate_block[WNN_LSTM_O] = 3;
		} else if (layout == WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IOFG) {
			p->gate_block[WNN_LSTM_I] = 0, p->gate_block[WNN_LSTM_O] = 1;
			p->gate_block[WNN_LSTM_F] = 2, p->gate_block[WNN_LSTM_G] = 3;
		} else {
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: unknown layout %d",
					    name, layout);
		}
	} else {
		if (layout == WEBNN__IPC__GRU_WEIGHT_LAYOUT__ZRN) {
			p->gate_block[WNN_GRU_Z] = 0, p->gate_block[WNN_GRU_R] = 1;
		} else if (layout == WEBNN__IPC__GRU_WEIGHT_LAYOUT__RZN) {
			p->gate_block[WNN_GRU_R] = 0, p->gate_block[WNN_GRU_Z] = 1;
		} else {
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: unknown layout %d",
					    name, layout);
		}
		p->gate_block[WNN_GRU_N] = 2;
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_pad(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			     size_t n_descs, struct wnn_pad_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_PAD, &which, &name, diag));
	const Webnn__Ipc__Pad *m = op->pad;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	if (m->n_beginning_padding != in->rank || m->n_ending_padding != in->rank ||
	    out->rank != in->rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: padding must have one value per input dimension", name);
	if (m->mode > WEBNN__IPC__PADDING_MODE__PAD_REFLECTION)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: unknown mode %d", name,
				    (int)m->mode);
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->mode = (enum wnn_pad_mode)m->mode;
	p->rank = in->rank;
	for (uint32_t i = 0; i < in->rank; i++) {
		uint64_t b = m->beginning_padding[i], e = m->ending_padding[i];
		if (in->dims[i] + b + e != out->dims[i])
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: output dimension %u is not the padded size", name,
					    i);
		if (p->mode == WNN_PAD_REFLECTION && (b >= in->dims[i] || e >= in->dims[i]))
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: reflection padding along axis %u must be smaller "
					    "than the input dimension", name, i);
		p->begin[i] = (uint32_t)b;
	}
	memcpy(p->in_dims, in->dims, sizeof(p->in_dims));
	memcpy(p->out_dims, out->dims, sizeof(p->out_dims));
	wnn_shape_strides(in->rank, in->dims, p->in_strides);
	p->count = wnn_shape_count(out->rank, out->dims);
	wnn_number_to_bytes(m->value, p->type, p->value);
	if (p->type == WNN_F32) {
		float f;
		memcpy(&f, p->value, sizeof(f));
		p->value_f = f;
	} else if (p->type == WNN_F16) {
		uint16_t h;
		memcpy(&h, p->value, sizeof(h));
		p->value_f = wnn_f16_to_f32(h);
	} else {
		p->value_f = wnn_number_to_double(m->value);
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_prelu(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			       size_t n_descs, struct wnn_prelu_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_PRELU, &which, &name, diag));
	const Webnn__Ipc__Prelu *m = op->prelu;
	OPERAND(in, m->input, "input");
	OPERAND(slope, m->slope, "slope");
	OPERAND(out, m->output, "output");
	if (slope->type != in->type)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: slope data type differs from the input", name);
	p->input = m->input, p->slope = m->slope, p->output = m->output;
	p->type = in->type;
	const struct wnn_desc *ins[2] = { in, slope };
	CHECK(wnn_broadcast(ins, 2, &p->bc, name, diag));
	if (out->rank != p->bc.rank || memcmp(out->dims, p->bc.dims, out->rank * sizeof(uint32_t)))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the broadcast shape", name);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_reduce(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_reduce_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_REDUCE, &p->op, &name, diag));
	const Webnn__Ipc__Reduce *m = op->reduce;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	uint32_t all[WNN_MAX_RANK];
	for (uint32_t i = 0; i < in->rank; i++)
		all[i] = i;
	if (m->has_axes)
		CHECK(make_reduction(in, m->axes, m->n_axes, &p->r, name, diag));
	else
		CHECK(make_reduction(in, all, in->rank, &p->r, name, diag));
	if (wnn_shape_count(out->rank, out->dims) != p->r.kept_count || out->type != in->type)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the reduction", name);
	p->input = m->input, p->output = m->output;
	p->type = in->type;
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
	CHECK(check_op(op, family, &p->op, &name, diag));
	uint32_t in_id, out_id, s_id, b_id;
	bool has_s, has_b;
	double eps;
	if (p->op == WNN_OP_INSTANCE_NORMALIZATION) {
		const Webnn__Ipc__InstanceNormalization *m = op->instance_normalization;
		in_id = m->input, out_id = m->output, s_id = m->scale, b_id = m->bias;
		has_s = m->has_scale, has_b = m->has_bias, eps = m->epsilon;
		OPERAND(in, in_id, "input");
		CHECK(rank_is(in, 4, name, "input", diag));
		bool nhwc = m->layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
		const uint32_t red_nchw[2] = { 2, 3 }, red_nhwc[2] = { 1, 2 };
		CHECK(make_reduction(in, nhwc ? red_nhwc : red_nchw, 2, &p->r, name, diag));
		p->per_channel = true;
		p->channels = in->dims[nhwc ? 3 : 1];
	} else {
		const Webnn__Ipc__LayerNormalization *m = op->layer_normalization;
		in_id = m->input, out_id = m->output, s_id = m->scale, b_id = m->bias;
		has_s = m->has_scale, has_b = m->has_bias, eps = m->epsilon;
		OPERAND(in, in_id, "input");
		uint32_t dflt[WNN_MAX_RANK];
		for (uint32_t i = 1; i < in->rank; i++)
			dflt[i - 1] = i;
		if (m->has_axes)
			CHECK(make_reduction(in, m->axes, m->n_axes, &p->r, name, diag));
		else
			CHECK(make_reduction(in, dflt, in->rank ? in->rank - 1 : 0, &p->r, name,
					     diag));
	}
	OPERAND(in, in_id, "input");
	OPERAND(out, out_id, "output");
	CHECK(same_shape(in, out, name, "output shape differs from the input shape", diag));
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

enum webnn_status wnn_resolve_resample(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				  size_t n_descs, struct wnn_resample_attrs *p,
				  struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_RESAMPLE2D, &which, &name, diag));
	const Webnn__Ipc__Resample2d *m = op->resample2d;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(rank_is(in, 4, name, "input", diag));
	CHECK(rank_is(out, 4, name, "output", diag));
	if (m->mode > WEBNN__IPC__INTERPOLATION_MODE__LINEAR)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: unknown mode %d", name,
				    (int)m->mode);
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->mode = (enum wnn_interp)m->mode;
	p->axes[0] = 2, p->axes[1] = 3;
	if (m->n_axes) {
		if (m->n_axes != 2 || m->axes[0] >= 4 || m->axes[1] >= 4 ||
		    m->axes[0] == m->axes[1])
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: axes must be two distinct axes below 4", name);
		p->axes[0] = m->axes[0], p->axes[1] = m->axes[1];
	}
	for (uint32_t d = 0; d < 4; d++) {
		bool resized = d == p->axes[0] || d == p->axes[1];
		if (!resized && in->dims[d] != out->dims[d])
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: output dimension %u differs from the input", name,
					    d);
	}
	memcpy(p->in_dims, in->dims, sizeof(p->in_dims));
	memcpy(p->out_dims, out->dims, sizeof(p->out_dims));
	for (int i = 0; i < 2; i++)
		p->scale[i] = (double)out->dims[p->axes[i]] / (double)in->dims[p->axes[i]];
	wnn_shape_strides(4, in->dims, p->in_strides);
	p->count = wnn_shape_count(4, out->dims);
	return WEBNN_STATUS_OK;
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

enum webnn_status wnn_resolve_reverse(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct wnn_reverse_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_REVERSE, &which, &name, diag));
	const Webnn__Ipc__Reverse *m = op->reverse;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(same_shape(in, out, name, "output shape differs from the input shape", diag));
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->rank = in->rank;
	memcpy(p->dims, in->dims, sizeof(p->dims));
	if (m->has_axes) {
		for (size_t i = 0; i < m->n_axes; i++) {
			if (m->axes[i] >= in->rank || (p->mask & (1u << m->axes[i])))
				return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
						    "%s: axes item %u is out of range or repeated",
						    name, m->axes[i]);
			p->mask |= 1u << m->axes[i];
		}
	} else {
		p->mask = in->rank ? (uint32_t)((1ull << in->rank) - 1) : 0;
	}
	p->count = wnn_shape_count(in->rank, in->dims);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_slice(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			       size_t n_descs, struct wnn_slice_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_SLICE, &which, &name, diag));
	const Webnn__Ipc__Slice *m = op->slice;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	if (m->n_starts != in->rank || m->n_sizes != in->rank || out->rank != in->rank ||
	    (m->n_strides && m->n_strides != in->rank))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: starts, sizes and strides need one value per input "
				    "dimension", name);
	uint64_t cs[WNN_MAX_RANK];
	wnn_shape_strides(in->rank, in->dims, cs);
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->rank = in->rank;
	for (uint32_t i = 0; i < in->rank; i++) {
		uint32_t st = m->n_strides ? m->strides[i] : 1;
		if (st == 0 || m->sizes[i] == 0 ||
		    (uint64_t)m->starts[i] + m->sizes[i] > in->dims[i] ||
		    out->dims[i] != (m->sizes[i] + st - 1) / st)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: the window along axis %u does not fit the input or "
					    "output", name, i);
		p->starts[i] = m->starts[i];
		p->strides[i] = st;
		p->out_dims[i] = out->dims[i];
		p->base += m->starts[i] * cs[i];
		p->step_strides[i] = st * cs[i];
	}
	p->count = wnn_shape_count(out->rank, out->dims);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_split(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			       size_t n_descs, struct wnn_split_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_SPLIT, &which, &name, diag));
	const Webnn__Ipc__Split *m = op->split;
	OPERAND(in, m->input, "input");
	CHECK(axis_in_range(m->axis, in->rank, name, diag));
	if (m->n_outputs < 1 || m->n_outputs > WNN_MAX_OUTPUTS)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: %zu outputs", name,
				    m->n_outputs);
	p->input = m->input;
	p->outputs = m->outputs;
	p->n_outputs = m->n_outputs;
	p->type = in->type;
	p->axis = m->axis;
	axis_view(in, m->axis, &p->outer, &p->axis_size, &p->inner);
	uint64_t off = 0;
	for (size_t i = 0; i < m->n_outputs; i++) {
		OPERAND(out, m->outputs[i], "output");
		if (out->rank != in->rank || out->type != in->type)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: output %zu does not match the input rank/type", name,
					    i);
		for (uint32_t d = 0; d < in->rank; d++)
			if (d != m->axis && out->dims[d] != in->dims[d])
				return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
						    "%s: output %zu dimension %u differs", name, i,
						    d);
		p->sizes[i] = out->dims[m->axis];
		p->offsets[i] = (uint32_t)off;
		off += out->dims[m->axis];
	}
	if (off != p->axis_size)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output sizes do not sum to the input dimension", name);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_triangular(const Webnn__Ipc__Operation *op,
				    const struct wnn_desc *descs, size_t n_descs,
				    struct wnn_triangular_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_TRIANGULAR, &which, &name, diag));
	const Webnn__Ipc__Triangular *m = op->triangular;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(same_shape(in, out, name, "output shape differs from the input shape", diag));
	if (in->rank < 2)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: input rank is %u, expected at least 2", name, in->rank);
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->upper = m->upper;
	p->diagonal = m->diagonal;
	p->rows = in->dims[in->rank - 2];
	p->cols = in->dims[in->rank - 1];
	p->batch = wnn_shape_count(in->rank - 2, in->dims);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_where(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			       size_t n_descs, struct wnn_where_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_WHERE, &which, &name, diag));
	const Webnn__Ipc__Where *m = op->where;
	OPERAND(cond, m->condition, "condition");
	OPERAND(t, m->true_value, "trueValue");
	OPERAND(f, m->false_value, "falseValue");
	OPERAND(out, m->output, "output");
	if (cond->type != WNN_U8 || t->type != f->type)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: condition must be uint8 and the values of one type", name);
	p->condition = m->condition, p->true_value = m->true_value;
	p->false_value = m->false_value, p->output = m->output;
	p->type = t->type;
	const struct wnn_desc *ins[3] = { cond, t, f };
	CHECK(wnn_broadcast(ins, 3, &p->bc, name, diag));
	if (out->rank != p->bc.rank || memcmp(out->dims, p->bc.dims, out->rank * sizeof(uint32_t)))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the broadcast shape", name);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, enum wnn_op *kind, union wnn_attrs *attrs,
			      struct wnn_diag *diag)
{
	enum wnn_op k = op ? wnn_op_from_id(op->op) : WNN_OP_COUNT;
	*kind = k;
	if (k == WNN_OP_COUNT)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "unknown operator id %u",
				    op ? op->op : 0);
	switch (op->attrs_case) {
#define WNN_RESOLVE_CASE_(A, n)                                                                 \
	case WEBNN__IPC__OPERATION__ATTRS_##A:                                                  \
		return wnn_resolve_##n(op, descs, n_descs, &attrs->n, diag);
		WNN_RESOLVERS(WNN_RESOLVE_CASE_)
#undef WNN_RESOLVE_CASE_
	default:
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: operation has no attributes",
				    wnn_ops[k].name);
	}
}
