/* Data movement family (concat, reshape, slice, ...): wiring, inference, limits, resolution. */
#include "proto/schema.h"

/* pad, slice and tile output sizes along axis i: the one place each rule (and slice's default
 * stride 1) is written; inference and resolution both read them. */
static int64_t pad_size(const Webnn__Ipc__Pad *m, const struct wnn_desc *x, uint32_t i)
{
	return (int64_t)x->dims[i] + m->beginning_padding[i] + m->ending_padding[i];
}

static uint32_t slice_stride(const Webnn__Ipc__Slice *m, uint32_t i)
{
	return m->n_strides ? m->strides[i] : 1;
}

/* The number of strided steps in sizes[i] (the stride is not 0). */
static uint32_t slice_size(const Webnn__Ipc__Slice *m, uint32_t i)
{
	uint32_t stride = slice_stride(m, i);
	return m->sizes[i] / stride + (m->sizes[i] % stride != 0);
}

/* Size along the axis of split output i: the dimension over count, or sizes[i]. */
static uint32_t split_size(const Webnn__Ipc__Split *m, uint32_t dim, size_t i)
{
	return m->has_count ? dim / m->count : m->sizes[i];
}

static uint64_t tile_size(const Webnn__Ipc__Tile *m, const struct wnn_desc *x, uint32_t i)
{
	return (uint64_t)x->dims[i] * m->repetitions[i];
}

/* What stops an input from joining a concatenation (concat_join). */
enum concat_fault { CONCAT_JOINS, CONCAT_TYPE, CONCAT_RANK, CONCAT_DIM, CONCAT_TOO_LONG };

/* concat's size rule, one input at a time: the input must match ref (inputs[0] when inferring,
 * the output when resolving) in type, rank and every dimension off the axis; its size along
 * the axis is then added to *size, and CONCAT_TOO_LONG says the sum passed MAX_DIM (the sum is
 * kept, so a caller may go on). *dim names the differing dimension of CONCAT_DIM. */
static enum concat_fault concat_join(const struct wnn_desc *x, const struct wnn_desc *ref,
				     uint32_t axis, uint64_t *size, uint32_t *dim)
{
	if (x->type != ref->type)
		return CONCAT_TYPE;
	if (x->rank != ref->rank)
		return CONCAT_RANK;
	for (*dim = 0; *dim < x->rank; ++*dim)
		if (*dim != axis && x->dims[*dim] != ref->dims[*dim])
			return CONCAT_DIM;
	*size += x->dims[axis];
	return *size > MAX_DIM ? CONCAT_TOO_LONG : CONCAT_JOINS;
}

static bool infer_concat(struct wnn_infer *c)
{
	const Webnn__Ipc__Concat *m = c->op->concat;
	char sa[96], sb[96];
	if (m->n_inputs < 1 || m->n_inputs > MAX_TENSOR_COUNT)
		return wnn_failf(c, "%zu inputs, expected 1 to %d", m->n_inputs, MAX_TENSOR_COUNT);
	const struct wnn_desc *first = D(c, m->inputs[0]);
	if (!wnn_check_type(c, first, "inputs[0]", first_mask(c)) ||
	    !wnn_check_axis(c, m->axis, first->rank, "axis"))
		return false;
	uint64_t size = first->dims[m->axis];
	for (size_t i = 1; i < m->n_inputs; i++) {
		const struct wnn_desc *x = D(c, m->inputs[i]);
		uint32_t d;
		switch (concat_join(x, first, m->axis, &size, &d)) {
		case CONCAT_JOINS:
			break;
		case CONCAT_TYPE:
			return wnn_failf(c, "inputs[%zu] data type %s does not match inputs[0] data type %s",
				     i, wnn_dtype_name(x->type), wnn_dtype_name(first->type));
		case CONCAT_RANK:
			return wnn_failf(c, "inputs[%zu] rank is %" PRIu32 ", expected %" PRIu32
				     " (the rank of inputs[0])", i, x->rank, first->rank);
		case CONCAT_DIM:
			return wnn_failf(c, "inputs[%zu] shape %s does not match inputs[0] shape %s "
				     "outside axis %" PRIu32, i, SHAPE(x, sa), SHAPE(first, sb),
				     m->axis);
		case CONCAT_TOO_LONG:
			return wnn_failf(c, "output size along axis %" PRIu32 " exceeds %" PRIu64,
				     m->axis, MAX_DIM);
		}
	}
	wnn_result_copy(c, first)->dims[m->axis] = (uint32_t)size;
	return true;
}

static bool infer_expand(struct wnn_infer *c)
{
	const Webnn__Ipc__Expand *m = c->op->expand;
	const struct wnn_desc *x = D(c, m->input);
	char sa[96], sb[96];
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->n_new_shape > WNN_MAX_RANK)
		return wnn_failf(c, "newShape rank %zu exceeds the maximum rank %d", m->n_new_shape,
			     WNN_MAX_RANK);
	if (!wnn_bcast_uni(x->dims, x->rank, m->new_shape, (uint32_t)m->n_new_shape))
		return wnn_failf(c, "input shape %s is not broadcastable to newShape %s", SHAPE(x, sa),
			     LIST(m->new_shape, m->n_new_shape, sb));
	struct wnn_desc *r = wnn_result(c, x->type, (uint32_t)m->n_new_shape);
	for (size_t i = 0; i < m->n_new_shape; i++)
		r->dims[i] = m->new_shape[i];
	return true;
}

static bool infer_pad(struct wnn_infer *c)
{
	const Webnn__Ipc__Pad *m = c->op->pad;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)) ||
	    !wnn_check_enum(c, (int)m->mode, WEBNN__IPC__PADDING_MODE__PAD_REFLECTION, "mode"))
		return false;
	if (m->n_beginning_padding != x->rank || m->n_ending_padding != x->rank)
		return wnn_failf(c, "beginningPadding and endingPadding have %zu and %zu values, "
			     "expected %" PRIu32 " (the input rank)", m->n_beginning_padding,
			     m->n_ending_padding, x->rank);
	struct wnn_desc *r = wnn_result_copy(c, x);
	for (uint32_t i = 0; i < x->rank; i++) {
		uint32_t b = m->beginning_padding[i], e = m->ending_padding[i];
		if (m->mode == WEBNN__IPC__PADDING_MODE__PAD_REFLECTION &&
		    (b >= x->dims[i] || e >= x->dims[i]))
			return wnn_failf(c, "reflection padding %" PRIu32 "+%" PRIu32 " along axis %" PRIu32
				     " must be smaller than the input dimension %" PRIu32, b, e, i,
				     x->dims[i]);
		char what[48];
		snprintf(what, sizeof(what), "output dimension %" PRIu32, i);
		if (!wnn_set_dim(c, r, i, pad_size(m, x, i), what))
			return false;
	}
	return true;
}

static bool infer_reshape(struct wnn_infer *c)
{
	const Webnn__Ipc__Reshape *m = c->op->reshape;
	const struct wnn_desc *x = D(c, m->input);
	char sa[96], sb[96];
	uint64_t in = 1, out = 1;
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->n_new_shape > WNN_MAX_RANK)
		return wnn_failf(c, "newShape rank %zu exceeds the maximum rank %d", m->n_new_shape,
			     WNN_MAX_RANK);
	for (size_t i = 0; i < m->n_new_shape; i++) {
		if (m->new_shape[i] == 0 || m->new_shape[i] > MAX_DIM)
			return wnn_failf(c, "newShape item %zu is %" PRIu32 ", expected a valid dimension",
				     i, m->new_shape[i]);
		out *= m->new_shape[i]; /* <= 8 factors below 2^31 each: bounded below */
		if (out > (uint64_t)INT64_MAX / MAX_DIM)
			return wnn_failf(c, "newShape %s has too many elements",
				     LIST(m->new_shape, m->n_new_shape, sb));
	}
	wnn_desc_count(x, &in);
	if (in != out)
		return wnn_failf(c, "newShape %s has %" PRIu64 " elements but input shape %s has %" PRIu64,
			     LIST(m->new_shape, m->n_new_shape, sb), out, SHAPE(x, sa), in);
	struct wnn_desc *r = wnn_result(c, x->type, (uint32_t)m->n_new_shape);
	for (size_t i = 0; i < m->n_new_shape; i++)
		r->dims[i] = m->new_shape[i];
	return true;
}

static bool infer_reverse(struct wnn_infer *c)
{
	const Webnn__Ipc__Reverse *m = c->op->reverse;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t mask;
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->has_axes && !wnn_check_axes(c, m->axes, m->n_axes, x->rank, "axes", &mask))
		return false;
	wnn_result_copy(c, x);
	return true;
}

static bool infer_slice(struct wnn_infer *c)
{
	const Webnn__Ipc__Slice *m = c->op->slice;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	for (size_t i = 0; i < m->n_sizes; i++)
		if (m->sizes[i] == 0)
			return wnn_failf(c, "sizes item %zu is 0", i);
	if (m->n_starts != x->rank || m->n_sizes != x->rank)
		return wnn_failf(c, "starts and sizes have %zu and %zu values, expected %" PRIu32
			     " (the input rank)", m->n_starts, m->n_sizes, x->rank);
	if (m->n_strides && m->n_strides != x->rank)
		return wnn_failf(c, "strides has %zu values, expected %" PRIu32 " (the input rank)",
			     m->n_strides, x->rank);
	struct wnn_desc *r = wnn_result_copy(c, x);
	for (uint32_t i = 0; i < x->rank; i++) {
		uint32_t stride = slice_stride(m, i);
		if (stride < 1)
			return wnn_failf(c, "strides item %" PRIu32 " is 0, expected at least 1", i);
		if ((uint64_t)m->starts[i] + m->sizes[i] > x->dims[i])
			return wnn_failf(c, "starts %" PRIu32 " + sizes %" PRIu32 " along axis %" PRIu32
				     " exceed the input dimension %" PRIu32, m->starts[i],
				     m->sizes[i], i, x->dims[i]);
		r->dims[i] = slice_size(m, i);
	}
	return true;
}

static bool infer_split(struct wnn_infer *c)
{
	const Webnn__Ipc__Split *m = c->op->split;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)) || !wnn_check_axis(c, m->axis, x->rank, "axis"))
		return false;
	uint32_t dim = x->dims[m->axis];
	size_t count = m->has_count ? m->count : m->n_sizes;
	if (m->has_count && m->n_sizes)
		return wnn_failf(c, "splits given both as a count and as sizes");
	if (count < 1 || count > MAX_TENSOR_COUNT)
		return wnn_failf(c, "splits count %zu is not a valid tensor count (1 to %d)", count,
			     MAX_TENSOR_COUNT);
	if (count > WNN_MAX_OUTPUTS)
		return wnn_failf(c, "%zu outputs exceed the maximum of %d outputs", count,
			     WNN_MAX_OUTPUTS);
	if (m->has_count) {
		if (dim % m->count)
			return wnn_failf(c, "input dimension %" PRIu32 " along axis %" PRIu32
				     " is not divisible by splits %" PRIu32, dim, m->axis, m->count);
	} else {
		uint64_t sum = 0;
		for (size_t i = 0; i < m->n_sizes; i++) {
			if (m->sizes[i] == 0)
				return wnn_failf(c, "splits item %zu is 0", i);
			sum += m->sizes[i];
		}
		if (sum != dim)
			return wnn_failf(c, "splits sum to %" PRIu64 ", expected %" PRIu32
				     " (the input dimension along axis %" PRIu32 ")", sum, dim,
				     m->axis);
	}
	for (size_t i = 0; i < count; i++)
		wnn_result_copy(c, x)->dims[m->axis] = split_size(m, dim, i);
	return true;
}

static bool infer_tile(struct wnn_infer *c)
{
	const Webnn__Ipc__Tile *m = c->op->tile;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->n_repetitions != x->rank)
		return wnn_failf(c, "repetitions has %zu values, expected %" PRIu32 " (the input rank)",
			     m->n_repetitions, x->rank);
	struct wnn_desc *r = wnn_result_copy(c, x);
	for (uint32_t i = 0; i < x->rank; i++) {
		if (m->repetitions[i] == 0)
			return wnn_failf(c, "repetitions item %" PRIu32 " is 0", i);
		char what[48];
		snprintf(what, sizeof(what), "output dimension %" PRIu32, i);
		uint64_t v = tile_size(m, x, i);
		if (!wnn_set_dim(c, r, i, v > MAX_DIM ? INT64_MAX : (int64_t)v, what))
			return false;
	}
	return true;
}

/* The permutation with its default applied: reversed axes when none is given (a given one has
 * been checked to hold rank axes). */
static void transpose_perm(const Webnn__Ipc__Transpose *m, uint32_t rank, uint32_t *perm)
{
	for (uint32_t i = 0; i < rank; i++)
		perm[i] = m->has_permutation ? m->permutation[i] : rank - 1 - i;
}

static bool infer_transpose(struct wnn_infer *c)
{
	const Webnn__Ipc__Transpose *m = c->op->transpose;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t mask;
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->has_permutation && m->n_permutation != x->rank)
		return wnn_failf(c, "permutation has %zu values, expected %" PRIu32 " (the input rank)",
			     m->n_permutation, x->rank);
	if (m->has_permutation &&
	    !wnn_check_axes(c, m->permutation, m->n_permutation, x->rank, "permutation", &mask))
		return false;
	uint32_t perm[WNN_MAX_RANK];
	transpose_perm(m, x->rank, perm);
	struct wnn_desc *r = wnn_result_copy(c, x);
	for (uint32_t i = 0; i < x->rank; i++)
		r->dims[i] = x->dims[perm[i]];
	return true;
}

static bool infer_triangular(struct wnn_infer *c)
{
	const struct wnn_desc *x = D(c, c->op->triangular->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)) ||
	    !wnn_check_rank(c, x, "input", 2, WNN_MAX_RANK))
		return false;
	wnn_result_copy(c, x);
	return true;
}

enum webnn_status wnn_resolve_concat(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_concat_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_CONCAT, &which, &name, diag));
	const Webnn__Ipc__Concat *m = op->concat;
	OPERAND(out, m->output, "output");
	if (m->n_inputs == 0)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: no inputs", name);
	CHECK(wnn_axis_in_range(m->axis, out->rank, name, diag));
	uint64_t total = 0;
	for (size_t i = 0; i < m->n_inputs; i++) {
		OPERAND(in, m->inputs[i], "input");
		uint32_t d;
		enum concat_fault fault = concat_join(in, out, m->axis, &total, &d);
		if (fault == CONCAT_TYPE || fault == CONCAT_RANK)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: input %zu does not match the output rank/type", name,
					    i);
		if (fault == CONCAT_DIM)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: input %zu dimension %u differs", name, i, d);
		/* CONCAT_TOO_LONG: the sum cannot match a valid output size, reported below */
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

enum webnn_status wnn_resolve_expand(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_expand_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_EXPAND, &which, &name, diag));
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

enum webnn_status wnn_resolve_pad(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			     size_t n_descs, struct wnn_pad_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_PAD, &which, &name, diag));
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
		if (pad_size(m, in, i) != out->dims[i])
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

enum webnn_status wnn_resolve_reshape(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct wnn_reshape_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_RESHAPE, &which, &name, diag));
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

enum webnn_status wnn_resolve_reverse(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct wnn_reverse_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_REVERSE, &which, &name, diag));
	const Webnn__Ipc__Reverse *m = op->reverse;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(wnn_same_shape(in, out, name, "output shape differs from the input shape", diag));
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
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_SLICE, &which, &name, diag));
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
		uint32_t st = slice_stride(m, i);
		if (st == 0 || m->sizes[i] == 0 ||
		    (uint64_t)m->starts[i] + m->sizes[i] > in->dims[i] ||
		    out->dims[i] != slice_size(m, i))
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
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_SPLIT, &which, &name, diag));
	const Webnn__Ipc__Split *m = op->split;
	OPERAND(in, m->input, "input");
	CHECK(wnn_axis_in_range(m->axis, in->rank, name, diag));
	if (m->n_outputs < 1 || m->n_outputs > WNN_MAX_OUTPUTS ||
	    m->n_outputs != (m->has_count ? m->count : m->n_sizes))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: %zu outputs", name,
				    m->n_outputs);
	p->input = m->input;
	p->outputs = m->outputs;
	p->n_outputs = m->n_outputs;
	p->type = in->type;
	p->axis = m->axis;
	wnn_axis_view(in, m->axis, &p->outer, &p->axis_size, &p->inner);
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
		if (out->dims[m->axis] != split_size(m, in->dims[m->axis], i))
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: output %zu size along the axis is not the split's",
					    name, i);
		p->sizes[i] = out->dims[m->axis];
		p->offsets[i] = (uint32_t)off;
		off += out->dims[m->axis];
	}
	if (off != p->axis_size)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output sizes do not sum to the input dimension", name);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_tile(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, struct wnn_tile_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_TILE, &which, &name, diag));
	const Webnn__Ipc__Tile *m = op->tile;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	if (out->rank != in->rank || m->n_repetitions != in->rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: repetitions must have one value per input dimension", name);
	for (uint32_t i = 0; i < in->rank; i++)
		if (tile_size(m, in, i) != out->dims[i])
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

enum webnn_status wnn_resolve_transpose(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct wnn_transpose_attrs *p,
				   struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_TRANSPOSE, &which, &name, diag));
	const Webnn__Ipc__Transpose *m = op->transpose;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	p->input = m->input, p->output = m->output;
	p->type = in->type;
	p->rank = in->rank;
	if (m->has_permutation) {
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
		}
	}
	transpose_perm(m, in->rank, p->perm);
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

enum webnn_status wnn_resolve_triangular(const Webnn__Ipc__Operation *op,
				    const struct wnn_desc *descs, size_t n_descs,
				    struct wnn_triangular_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_TRIANGULAR, &which, &name, diag));
	const Webnn__Ipc__Triangular *m = op->triangular;
	OPERAND(in, m->input, "input");
	OPERAND(out, m->output, "output");
	CHECK(wnn_same_shape(in, out, name, "output shape differs from the input shape", diag));
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

/* ---- the table entries: operands, inference, role limits and resolution by attrs kind */

static bool inputs_concat(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->concat);
	for (size_t i = 0; i < op->concat->n_inputs; i++)
		IN(op->concat->inputs[i], "inputs");
	return true;
}

static bool outputs_concat(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->concat);
}

static void roles_concat(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "inputs", t, 1, WNN_MAX_RANK);
	fn(ud, "output", t, 1, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(concat)

const struct wnn_attrs_rules wnn_attrs_concat = {
	.inputs = inputs_concat,
	.outputs = outputs_concat,
	.infer = infer_concat,
	.roles = roles_concat,
	.resolve_pb = resolve_any_concat,
};

static bool inputs_expand(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->expand);
	IN(op->expand->input, "input");
	return true;
}

static bool outputs_expand(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->expand);
}

static void roles_expand(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	/* clamp expand pad reduce* reshape reverse slice tile transpose: one input of any
	 * rank and an output of its type. */
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "output", t, 0, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(expand)

const struct wnn_attrs_rules wnn_attrs_expand = {
	.inputs = inputs_expand,
	.outputs = outputs_expand,
	.infer = infer_expand,
	.roles = roles_expand,
	.resolve_pb = resolve_any_expand,
};

static bool inputs_pad(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->pad);
	IN(op->pad->input, "input");
	return true;
}

static bool outputs_pad(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->pad);
}

static void roles_pad(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	/* clamp expand pad reduce* reshape reverse slice tile transpose: one input of any
	 * rank and an output of its type. */
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "output", t, 0, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(pad)

const struct wnn_attrs_rules wnn_attrs_pad = {
	.inputs = inputs_pad,
	.outputs = outputs_pad,
	.infer = infer_pad,
	.roles = roles_pad,
	.resolve_pb = resolve_any_pad,
};

static bool inputs_reshape(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->reshape);
	IN(op->reshape->input, "input");
	return true;
}

static bool outputs_reshape(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->reshape);
}

static void roles_reshape(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	/* clamp expand pad reduce* reshape reverse slice tile transpose: one input of any
	 * rank and an output of its type. */
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "output", t, 0, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(reshape)

const struct wnn_attrs_rules wnn_attrs_reshape = {
	.inputs = inputs_reshape,
	.outputs = outputs_reshape,
	.infer = infer_reshape,
	.roles = roles_reshape,
	.resolve_pb = resolve_any_reshape,
};

static bool inputs_reverse(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->reverse);
	IN(op->reverse->input, "input");
	return true;
}

static bool outputs_reverse(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->reverse);
}

static void roles_reverse(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	/* clamp expand pad reduce* reshape reverse slice tile transpose: one input of any
	 * rank and an output of its type. */
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "output", t, 0, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(reverse)

const struct wnn_attrs_rules wnn_attrs_reverse = {
	.inputs = inputs_reverse,
	.outputs = outputs_reverse,
	.infer = infer_reverse,
	.roles = roles_reverse,
	.resolve_pb = resolve_any_reverse,
};

static bool inputs_slice(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->slice);
	IN(op->slice->input, "input");
	return true;
}

static bool outputs_slice(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->slice);
}

static void roles_slice(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	/* clamp expand pad reduce* reshape reverse slice tile transpose: one input of any
	 * rank and an output of its type. */
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "output", t, 0, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(slice)

const struct wnn_attrs_rules wnn_attrs_slice = {
	.inputs = inputs_slice,
	.outputs = outputs_slice,
	.infer = infer_slice,
	.roles = roles_slice,
	.resolve_pb = resolve_any_slice,
};

static bool inputs_split(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->split);
	IN(op->split->input, "input");
	return true;
}

static bool outputs_split(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_LIST(op->split, outputs);
}

static void roles_split(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 1, WNN_MAX_RANK);
	fn(ud, "outputs", t, 1, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(split)

const struct wnn_attrs_rules wnn_attrs_split = {
	.inputs = inputs_split,
	.outputs = outputs_split,
	.infer = infer_split,
	.roles = roles_split,
	.resolve_pb = resolve_any_split,
};

static bool inputs_tile(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->tile);
	IN(op->tile->input, "input");
	return true;
}

static bool outputs_tile(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->tile);
}

static void roles_tile(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	/* clamp expand pad reduce* reshape reverse slice tile transpose: one input of any
	 * rank and an output of its type. */
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "output", t, 0, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(tile)

const struct wnn_attrs_rules wnn_attrs_tile = {
	.inputs = inputs_tile,
	.outputs = outputs_tile,
	.infer = infer_tile,
	.roles = roles_tile,
	.resolve_pb = resolve_any_tile,
};

static bool inputs_transpose(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->transpose);
	IN(op->transpose->input, "input");
	return true;
}

static bool outputs_transpose(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->transpose);
}

static void roles_transpose(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	/* clamp expand pad reduce* reshape reverse slice tile transpose: one input of any
	 * rank and an output of its type. */
	fn(ud, "input", t, 0, WNN_MAX_RANK);
	fn(ud, "output", t, 0, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(transpose)

const struct wnn_attrs_rules wnn_attrs_transpose = {
	.inputs = inputs_transpose,
	.outputs = outputs_transpose,
	.infer = infer_transpose,
	.roles = roles_transpose,
	.resolve_pb = resolve_any_transpose,
};

static bool inputs_triangular(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->triangular);
	IN(op->triangular->input, "input");
	return true;
}

static bool outputs_triangular(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->triangular);
}

static void roles_triangular(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "input", t, 2, WNN_MAX_RANK);
	fn(ud, "output", t, 2, WNN_MAX_RANK);
}

WNN_RESOLVE_ANY(triangular)

const struct wnn_attrs_rules wnn_attrs_triangular = {
	.inputs = inputs_triangular,
	.outputs = outputs_triangular,
	.infer = infer_triangular,
	.roles = roles_triangular,
	.resolve_pb = resolve_any_triangular,
};
