/* Data movement family (concat, reshape, slice, ...): wiring, limits, the resolvers. */
#include "proto/schema.h"

/* pad, slice and tile output sizes along axis i: the one place each rule (and slice's default
 * stride 1) is written; the resolvers read them. */
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

/* concat's size rule, one input at a time: the input must match ref (inputs[0]) in type, rank and every dimension off the axis; its size along
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

static bool resolve_concat(struct wnn_resolving *c, struct wnn_concat_attrs *p)
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
	struct wnn_desc *r = wnn_result_copy(c, first);
	r->dims[m->axis] = (uint32_t)size;
	p->inputs = m->inputs;
	p->n_inputs = m->n_inputs;
	p->output = m->output;
	p->type = r->type;
	p->axis = m->axis;
	p->outer = wnn_shape_count(m->axis, r->dims);
	p->inner = wnn_shape_count(r->rank - m->axis - 1, r->dims + m->axis + 1);
	p->out_axis = r->dims[m->axis];
	return true;
}

static bool resolve_expand(struct wnn_resolving *c, struct wnn_expand_attrs *p)
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
	wnn_bcast_strides(x, r->rank, r->dims, p->in_strides); /* broadcastable: checked above */
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	p->rank = r->rank;
	memcpy(p->out_dims, r->dims, sizeof(p->out_dims));
	p->count = wnn_shape_count(r->rank, r->dims);
	return true;
}

static bool resolve_pad(struct wnn_resolving *c, struct wnn_pad_attrs *p)
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
		p->begin[i] = b;
	}
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	p->mode = (enum wnn_pad_mode)m->mode;
	p->rank = x->rank;
	memcpy(p->in_dims, x->dims, sizeof(p->in_dims));
	memcpy(p->out_dims, r->dims, sizeof(p->out_dims));
	wnn_shape_strides(x->rank, x->dims, p->in_strides);
	p->count = wnn_shape_count(r->rank, r->dims);
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
	return true;
}

static bool resolve_reshape(struct wnn_resolving *c, struct wnn_reshape_attrs *p)
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
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	p->count = in;
	p->bytes = in * wnn_dtype_size(x->type);
	return true;
}

static bool resolve_reverse(struct wnn_resolving *c, struct wnn_reverse_attrs *p)
{
	const Webnn__Ipc__Reverse *m = c->op->reverse;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t mask = x->rank ? (uint32_t)((1ull << x->rank) - 1) : 0; /* default: every axis */
	if (!wnn_check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->has_axes && !wnn_check_axes(c, m->axes, m->n_axes, x->rank, "axes", &mask))
		return false;
	wnn_result_copy(c, x);
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	p->rank = x->rank;
	memcpy(p->dims, x->dims, sizeof(p->dims));
	p->mask = mask;
	p->count = wnn_shape_count(x->rank, x->dims);
	return true;
}

static bool resolve_slice(struct wnn_resolving *c, struct wnn_slice_attrs *p)
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
	uint64_t cs[WNN_MAX_RANK];
	wnn_shape_strides(x->rank, x->dims, cs);
	for (uint32_t i = 0; i < x->rank; i++) {
		uint32_t stride = slice_stride(m, i);
		if (stride < 1)
			return wnn_failf(c, "strides item %" PRIu32 " is 0, expected at least 1", i);
		if ((uint64_t)m->starts[i] + m->sizes[i] > x->dims[i])
			return wnn_failf(c, "starts %" PRIu32 " + sizes %" PRIu32 " along axis %" PRIu32
				     " exceed the input dimension %" PRIu32, m->starts[i],
				     m->sizes[i], i, x->dims[i]);
		r->dims[i] = slice_size(m, i);
		p->starts[i] = m->starts[i];
		p->strides[i] = stride;
		p->out_dims[i] = r->dims[i];
		p->base += m->starts[i] * cs[i];
		p->step_strides[i] = stride * cs[i];
	}
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	p->rank = x->rank;
	p->count = wnn_shape_count(r->rank, r->dims);
	return true;
}

static bool resolve_split(struct wnn_resolving *c, struct wnn_split_attrs *p)
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
	p->input = m->input;
	p->outputs = m->outputs;
	p->n_outputs = m->n_outputs;
	p->type = x->type;
	p->axis = m->axis;
	wnn_axis_view(x, m->axis, &p->outer, &p->axis_size, &p->inner);
	uint32_t off = 0;
	for (size_t i = 0; i < count; i++) {
		p->sizes[i] = split_size(m, dim, i);
		p->offsets[i] = off;
		off += p->sizes[i];
		wnn_result_copy(c, x)->dims[m->axis] = p->sizes[i];
	}
	return true;
}

static bool resolve_tile(struct wnn_resolving *c, struct wnn_tile_attrs *p)
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
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	p->rank = x->rank;
	memcpy(p->in_dims, x->dims, sizeof(p->in_dims));
	memcpy(p->out_dims, r->dims, sizeof(p->out_dims));
	wnn_shape_strides(x->rank, x->dims, p->in_strides);
	p->count = wnn_shape_count(r->rank, r->dims);
	return true;
}

/* The permutation with its default applied: reversed axes when none is given (a given one has
 * been checked to hold rank axes). */
static void transpose_perm(const Webnn__Ipc__Transpose *m, uint32_t rank, uint32_t *perm)
{
	for (uint32_t i = 0; i < rank; i++)
		perm[i] = m->has_permutation ? m->permutation[i] : rank - 1 - i;
}

static bool resolve_transpose(struct wnn_resolving *c, struct wnn_transpose_attrs *p)
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
	transpose_perm(m, x->rank, p->perm);
	struct wnn_desc *r = wnn_result_copy(c, x);
	uint64_t cs[WNN_MAX_RANK];
	wnn_shape_strides(x->rank, x->dims, cs);
	for (uint32_t i = 0; i < x->rank; i++) {
		r->dims[i] = x->dims[p->perm[i]];
		p->out_dims[i] = r->dims[i];
		p->in_strides[i] = cs[p->perm[i]];
	}
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	p->rank = x->rank;
	p->count = wnn_shape_count(x->rank, x->dims);
	return true;
}

static bool resolve_triangular(struct wnn_resolving *c, struct wnn_triangular_attrs *p)
{
	const Webnn__Ipc__Triangular *m = c->op->triangular;
	const struct wnn_desc *x = D(c, m->input);
	if (!wnn_check_type(c, x, "input", first_mask(c)) ||
	    !wnn_check_rank(c, x, "input", 2, WNN_MAX_RANK))
		return false;
	wnn_result_copy(c, x);
	p->input = m->input, p->output = m->output;
	p->type = x->type;
	p->upper = m->upper;
	p->diagonal = m->diagonal;
	p->rows = x->dims[x->rank - 2];
	p->cols = x->dims[x->rank - 1];
	p->batch = wnn_shape_count(x->rank - 2, x->dims);
	return true;
}

uint32_t wnn_concat_size(const struct wnn_concat_attrs *p, const struct wnn_desc *descs,
			    size_t i)
{
	return descs[p->inputs[i]].dims[p->axis];
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

/* ---- the table entries: operands, role limits and the resolver by attrs kind */

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

WNN_RESOLVER(resolve_concat, concat)

const struct wnn_attrs_rules wnn_attrs_concat = {
	.inputs = inputs_concat,
	.outputs = outputs_concat,
	.resolve = resolve_concat_any,
	.roles = roles_concat,
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

WNN_RESOLVER(resolve_expand, expand)

const struct wnn_attrs_rules wnn_attrs_expand = {
	.inputs = inputs_expand,
	.outputs = outputs_expand,
	.resolve = resolve_expand_any,
	.roles = roles_expand,
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

WNN_RESOLVER(resolve_pad, pad)

const struct wnn_attrs_rules wnn_attrs_pad = {
	.inputs = inputs_pad,
	.outputs = outputs_pad,
	.resolve = resolve_pad_any,
	.roles = roles_pad,
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

WNN_RESOLVER(resolve_reshape, reshape)

const struct wnn_attrs_rules wnn_attrs_reshape = {
	.inputs = inputs_reshape,
	.outputs = outputs_reshape,
	.resolve = resolve_reshape_any,
	.roles = roles_reshape,
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

WNN_RESOLVER(resolve_reverse, reverse)

const struct wnn_attrs_rules wnn_attrs_reverse = {
	.inputs = inputs_reverse,
	.outputs = outputs_reverse,
	.resolve = resolve_reverse_any,
	.roles = roles_reverse,
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

WNN_RESOLVER(resolve_slice, slice)

const struct wnn_attrs_rules wnn_attrs_slice = {
	.inputs = inputs_slice,
	.outputs = outputs_slice,
	.resolve = resolve_slice_any,
	.roles = roles_slice,
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

WNN_RESOLVER(resolve_split, split)

const struct wnn_attrs_rules wnn_attrs_split = {
	.inputs = inputs_split,
	.outputs = outputs_split,
	.resolve = resolve_split_any,
	.roles = roles_split,
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

WNN_RESOLVER(resolve_tile, tile)

const struct wnn_attrs_rules wnn_attrs_tile = {
	.inputs = inputs_tile,
	.outputs = outputs_tile,
	.resolve = resolve_tile_any,
	.roles = roles_tile,
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

WNN_RESOLVER(resolve_transpose, transpose)

const struct wnn_attrs_rules wnn_attrs_transpose = {
	.inputs = inputs_transpose,
	.outputs = outputs_transpose,
	.resolve = resolve_transpose_any,
	.roles = roles_transpose,
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

WNN_RESOLVER(resolve_triangular, triangular)

const struct wnn_attrs_rules wnn_attrs_triangular = {
	.inputs = inputs_triangular,
	.outputs = outputs_triangular,
	.resolve = resolve_triangular_any,
	.roles = roles_triangular,
};
