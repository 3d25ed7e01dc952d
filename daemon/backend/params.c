/* Resolves Operation messages into backend-ready parameters with the spec's option defaults. */
#include "daemon/backend/params.h"

#include <math.h>
#include <string.h>

void params_strides(uint32_t rank, const uint32_t *dims, uint64_t *strides)
{
	uint64_t s = 1;
	for (uint32_t i = rank; i-- > 0;) {
		strides[i] = s;
		s *= dims[i];
	}
}

uint64_t params_count(uint32_t rank, const uint32_t *dims)
{
	uint64_t n = 1;
	for (uint32_t i = 0; i < rank; i++)
		n *= dims[i];
	return n;
}

uint64_t params_offset(uint32_t rank, const uint32_t *dims, const uint64_t *strides,
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

bool params_bcast_strides(const struct wnn_desc *in, uint32_t out_rank, const uint32_t *out_dims,
			  uint64_t *strides)
{
	uint64_t cs[WNN_MAX_RANK];
	if (in->rank > out_rank || out_rank > WNN_MAX_RANK)
		return false;
	params_strides(in->rank, in->dims, cs);
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

double params_cast_float(double x, enum wnn_dtype t)
{
	if (t == WNN_F32)
		return (double)(float)x;
	if (t == WNN_F16)
		return (double)wnn_f16_to_f32(wnn_f32_to_f16((float)x));
	return x;
}

enum webnn_status params_broadcast(const struct wnn_desc *const *inputs, int n,
				   struct params_bcast *out, const char *what,
				   struct wnn_diag *diag)
{
	char b1[96], b2[96];
	memset(out, 0, sizeof(*out));
	if (n < 1 || n > PARAMS_MAX_INPUTS)
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
	out->count = params_count(rank, out->dims);
	for (int i = 0; i < n; i++) {
		params_bcast_strides(inputs[i], rank, out->dims, out->strides[i]);
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
	if (wnn_ops[o].family != family || (uint32_t)op->attrs_case != family)
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
	params_strides(4, d->dims, cs);
	if (nhwc) {
		s[0] = cs[0], s[1] = cs[3], s[2] = cs[1], s[3] = cs[2];
	} else {
		memcpy(s, cs, sizeof(cs));
	}
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

/* ---- elementwise */

enum webnn_status params_binary(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct params_binary *p, struct wnn_diag *diag)
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
	CHECK(params_broadcast(in, 2, &p->bc, name, diag));
	if (out->rank != p->bc.rank || memcmp(out->dims, p->bc.dims, out->rank * sizeof(uint32_t)))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the broadcast shape", name);
	return WEBNN_STATUS_OK;
}

enum webnn_status params_unary(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			       size_t n_descs, struct params_unary *p, struct wnn_diag *diag)
{
	const char *name;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_UNARY, &p->op, &name, diag));
	const Webnn__Ipc__ElementwiseUnary *m = op->unary;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	if (params_count(in->rank, in->dims) != params_count(out->rank, out->dims))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape differs from the input shape", name);
	p->input = m->input, p->output = m->output;
	p->type = in->type, p->out_type = out->type;
	p->count = params_count(in->rank, in->dims);
	double alpha = 0, beta = 0;
	switch (p->op) {
	case WNN_OP_ELU:
		alpha = 1;
		break;
	case WNN_OP_LEAKY_RELU:
		alpha = 0.01;
		break;
	case WNN_OP_HARD_SIGMOID:
		alpha = 0.2, beta = 0.5;
		break;
	case WNN_OP_LINEAR:
		alpha = 1, beta = 0;
		break;
	default:
		break;
	}
	if (m->has_alpha)
		alpha = m->alpha;
	if (m->has_beta)
		beta = m->beta;
	p->alpha = params_cast_float(alpha, p->type);
	p->beta = params_cast_float(beta, p->type);
	return WEBNN_STATUS_OK;
}

static bool number_given(const Webnn__Ipc__Number *n)
{
	return n && n->value_case != WEBNN__IPC__NUMBER__VALUE__NOT_SET;
}

enum webnn_status params_clamp(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			       size_t n_descs, struct params_clamp *p, struct wnn_diag *diag)
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
	p->count = params_count(in->rank, in->dims);
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
			d = given ? params_cast_float(wnn_number_to_double(bound[i]), p->type)
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

enum webnn_status params_conv2d(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct params_conv2d *p, struct wnn_diag *diag)
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
	p->bias = PARAMS_NONE;
	p->type = in->type;
	p->nhwc = m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	if (p->nhwc) {
		p->n = in->dims[0], p->h = in->dims[1], p->w = in->dims[2], p->c_in = in->dims[3];
	} else {
		p->n = in->dims[0], p->c_in = in->dims[1], p->h = in->dims[2], p->w = in->dims[3];
	}
	uint64_t fs[4];
	const uint32_t *fd = filter->dims;
	uint32_t f_in;
	params_strides(4, fd, fs);
	/* filter_stride is (o, i, ky, kx) whatever order the layout stores them in */
	switch (m->filter_layout) {
	case WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW:
		p->filter_layout = PARAMS_FILTER_OIHW;
		p->c_out = fd[0], f_in = fd[1], p->kh = fd[2], p->kw = fd[3];
		p->filter_stride[0] = fs[0], p->filter_stride[1] = fs[1];
		p->filter_stride[2] = fs[2], p->filter_stride[3] = fs[3];
		break;
	case WEBNN__IPC__CONV2D_FILTER_LAYOUT__HWIO:
		p->filter_layout = PARAMS_FILTER_HWIO;
		p->kh = fd[0], p->kw = fd[1], f_in = fd[2], p->c_out = fd[3];
		p->filter_stride[0] = fs[3], p->filter_stride[1] = fs[2];
		p->filter_stride[2] = fs[0], p->filter_stride[3] = fs[1];
		break;
	case WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI:
		p->filter_layout = PARAMS_FILTER_OHWI;
		p->c_out = fd[0], p->kh = fd[1], p->kw = fd[2], f_in = fd[3];
		p->filter_stride[0] = fs[0], p->filter_stride[1] = fs[3];
		p->filter_stride[2] = fs[1], p->filter_stride[3] = fs[2];
		break;
	case WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO:
		p->filter_layout = PARAMS_FILTER_IHWO;
		f_in = fd[0], p->kh = fd[1], p->kw = fd[2], p->c_out = fd[3];
		p->filter_stride[0] = fs[3], p->filter_stride[1] = fs[0];
		p->filter_stride[2] = fs[1], p->filter_stride[3] = fs[2];
		break;
	default:
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: unknown filter layout %d",
				    name, (int)m->filter_layout);
	}
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
		OPERAND(bias, m->bias, "bias");
		if (bias->rank != 1 || bias->dims[0] != p->c_out)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: bias shape must be [%u]", name, p->c_out);
		p->has_bias = true;
		p->bias = m->bias;
	}
	spatial_strides(in, p->nhwc, p->in_stride);
	spatial_strides(out, p->nhwc, p->out_stride);
	return WEBNN_STATUS_OK;
}

enum webnn_status params_pool2d(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct params_pool2d *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_POOL2D, &which, &name, diag));
	const Webnn__Ipc__Pool2d *m = op->pool2d;
	p->kind = which == WNN_OP_AVERAGE_POOL2D ? PARAMS_POOL_AVG
		  : which == WNN_OP_L2_POOL2D    ? PARAMS_POOL_L2
						 : PARAMS_POOL_MAX;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(rank_is(in, 4, name, "input", diag));
	CHECK(rank_is(out, 4, name, "output", diag));
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->nhwc = m->layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	if (p->nhwc)
		p->n = in->dims[0], p->h = in->dims[1], p->w = in->dims[2], p->c = in->dims[3];
	else
		p->n = in->dims[0], p->c = in->dims[1], p->h = in->dims[2], p->w = in->dims[3];
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

enum webnn_status params_gemm(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, struct params_gemm *p, struct wnn_diag *diag)
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
	p->a = m->a, p->b = m->b, p->output = m->output, p->c = PARAMS_NONE;
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
	p->alpha = params_cast_float(m->alpha, p->type);
	p->beta = params_cast_float(m->beta, p->type);
	if (m->has_c) {
		OPERAND(c, m->c, "c");
		uint64_t cs[2];
		uint32_t mn[2] = { p->m, p->n };
		if (!params_bcast_strides(c, 2, mn, cs))
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: c is not broadcastable to [%u, %u]", name, p->m,
					    p->n);
		p->has_c = true;
		p->c = m->c;
		p->c_stride_m = cs[0], p->c_stride_n = cs[1];
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status params_matmul(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct params_matmul *p, struct wnn_diag *diag)
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
	struct params_bcast bc;
	const struct wnn_desc *in[2] = { &ba, &bb };
	CHECK(params_broadcast(in, 2, &bc, name, diag));
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

enum webnn_status params_transpose(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct params_transpose *p,
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
	params_strides(in->rank, in->dims, cs);
	for (uint32_t i = 0; i < in->rank; i++) {
		p->out_dims[i] = in->dims[p->perm[i]];
		p->in_strides[i] = cs[p->perm[i]];
	}
	if (out->rank != in->rank || memcmp(out->dims, p->out_dims, in->rank * sizeof(uint32_t)))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the permutation", name);
	p->count = params_count(in->rank, in->dims);
	return WEBNN_STATUS_OK;
}

enum webnn_status params_concat(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct params_concat *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_CONCAT, &which, &name, diag));
	const Webnn__Ipc__Concat *m = op->concat;
	OPERAND(out, m->output, "output");
	if (m->n_inputs == 0)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: no inputs", name);
	if (m->axis >= out->rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: axis %u is out of range for rank %u", name, m->axis,
				    out->rank);
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
	p->outer = params_count(m->axis, out->dims);
	p->inner = params_count(out->rank - m->axis - 1, out->dims + m->axis + 1);
	p->out_axis = out->dims[m->axis];
	return WEBNN_STATUS_OK;
}

uint32_t params_concat_size(const struct params_concat *p, const struct wnn_desc *descs,
			    size_t i)
{
	return descs[p->inputs[i]].dims[p->axis];
}

enum webnn_status params_reshape(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct params_reshape *p, struct wnn_diag *diag)
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
	p->count = params_count(in->rank, in->dims);
	if (p->count != params_count(out->rank, out->dims) || in->type != out->type)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output element count or type differs from the input", name);
	p->bytes = p->count * wnn_dtype_size(in->type);
	return WEBNN_STATUS_OK;
}

/* ---- normalisation */

enum webnn_status params_softmax(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct params_softmax *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(check_op(op, WEBNN__IPC__OPERATION__ATTRS_SOFTMAX, &which, &name, diag));
	const Webnn__Ipc__Softmax *m = op->softmax;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	(void)out;
	if (m->axis >= in->rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: axis %u is out of range for rank %u", name, m->axis,
				    in->rank);
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->axis = m->axis;
	p->outer = params_count(m->axis, in->dims);
	p->axis_size = in->dims[m->axis];
	p->inner = params_count(in->rank - m->axis - 1, in->dims + m->axis + 1);
	return WEBNN_STATUS_OK;
}

enum webnn_status params_batchnorm(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct params_batchnorm *p,
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
	if (m->axis >= in->rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: axis %u is out of range for rank %u", name, m->axis,
				    in->rank);
	p->input = m->input, p->output = m->output, p->mean = m->mean, p->variance = m->variance;
	p->scale = PARAMS_NONE, p->bias = PARAMS_NONE;
	p->type = in->type;
	p->axis = m->axis;
	p->channels = in->dims[m->axis];
	p->outer = params_count(m->axis, in->dims);
	p->inner = params_count(in->rank - m->axis - 1, in->dims + m->axis + 1);
	p->epsilon = params_cast_float(m->epsilon, p->type);
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
