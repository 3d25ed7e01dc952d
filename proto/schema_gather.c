/* Gather/scatter family: operand wiring, spec role limits, the resolvers. */
#include "proto/schema.h"

#define INDEX_TYPES (WNN_DT_BIT(WNN_I32) | WNN_DT_BIT(WNN_U32) | WNN_DT_BIT(WNN_I64))

/* Output rank of gather (input rank - 1 + indices rank), gatherElements (indices rank) and
 * gatherND (indices rank - 1 + input rank - k); the caller checks the indices rank is >= 1 and
 * k <= the input rank for gatherND. */
static uint32_t gather_rank(enum wnn_op kind, const struct wnn_desc *x, const struct wnn_desc *idx)
{
	if (kind == WNN_OP_GATHER)
		return x->rank - 1 + idx->rank;
	if (kind == WNN_OP_GATHER_ELEMENTS)
		return idx->rank;
	return idx->rank - 1 + x->rank - idx->dims[idx->rank - 1];
}

/* The spec output shape of gather (the axis replaced by the indices shape), gatherElements
 * (the indices shape) and gatherND (indices.shape[0:-1] + input.shape[k:]), in the input
 * type. The caller checked gather_rank() <= WNN_MAX_RANK. */
static void gather_shape(enum wnn_op kind, uint32_t axis, const struct wnn_desc *x,
			 const struct wnn_desc *idx, struct wnn_desc *r)
{
	if (kind == WNN_OP_GATHER_ELEMENTS) {
		*r = *idx;
		r->type = x->type;
		return;
	}
	r->type = x->type;
	r->rank = 0;
	if (kind == WNN_OP_GATHER) {
		for (uint32_t i = 0; i < axis; i++)
			r->dims[r->rank++] = x->dims[i];
		for (uint32_t i = 0; i < idx->rank; i++)
			r->dims[r->rank++] = idx->dims[i];
		for (uint32_t i = axis + 1; i < x->rank; i++)
			r->dims[r->rank++] = x->dims[i];
		return;
	}
	for (uint32_t i = 0; i + 1 < idx->rank; i++)
		r->dims[r->rank++] = idx->dims[i];
	for (uint32_t i = idx->dims[idx->rank - 1]; i < x->rank; i++)
		r->dims[r->rank++] = x->dims[i];
}

/* The operator-specific checks of gather, gatherElements and gatherND. */
static bool check_gather_kind(struct wnn_resolving *c, const Webnn__Ipc__Gather *m,
			      const struct wnn_desc *x, const struct wnn_desc *idx)
{
	char sa[96];
	if (c->kind == WNN_OP_GATHER)
		return wnn_check_axis(c, m->axis, x->rank, "axis");
	if (c->kind == WNN_OP_GATHER_ELEMENTS) {
		if (!wnn_check_rank(c, idx, "indices", x->rank, x->rank) ||
		    !wnn_check_axis(c, m->axis, x->rank, "axis"))
			return false;
		for (uint32_t i = 0; i < x->rank; i++)
			if (i != m->axis && idx->dims[i] != x->dims[i])
				return wnn_failf(c, "indices shape %s must equal the input shape "
						 "except along axis %" PRIu32, SHAPE(idx, sa), m->axis);
		return true;
	}
	if (!wnn_check_rank(c, idx, "indices", 1, WNN_MAX_RANK))
		return false;
	uint32_t coord = idx->dims[idx->rank - 1];
	if (coord > x->rank)
		return wnn_failf(c, "indices last dimension %" PRIu32
				 " exceeds the input rank %" PRIu32, coord, x->rank);
	return true;
}

/* The gather views the kernels index through: [outer, axis, inner] (gather), the axis size
 * (gatherElements), tuples and slices (gatherND). */
static void gather_layout(struct wnn_gather_attrs *p, const Webnn__Ipc__Gather *m,
			  const struct wnn_desc *in, const struct wnn_desc *idx)
{
	uint64_t n_idx = wnn_shape_count(idx->rank, idx->dims);
	if (p->op == WNN_OP_GATHER) {
		p->axis = m->axis;
		wnn_axis_view(in, m->axis, &p->outer, &p->axis_size, &p->inner);
		p->n_indices = n_idx;
	} else if (p->op == WNN_OP_GATHER_ELEMENTS) {
		p->axis = m->axis;
		p->axis_size = in->dims[m->axis];
	} else {
		p->k = idx->dims[idx->rank - 1];
		p->n_tuples = p->k ? n_idx / p->k : 0;
		p->slice = wnn_shape_count(in->rank - p->k, in->dims + p->k);
	}
}

static bool resolve_gather(struct wnn_resolving *c, struct wnn_gather_attrs *p)
{
	const Webnn__Ipc__Gather *m = c->op->gather;
	const struct wnn_desc *x = D(c, m->input), *idx = D(c, m->indices);
	if (!wnn_check_type(c, x, "input", first_mask(c)) ||
	    !wnn_check_type(c, idx, "indices", INDEX_TYPES) ||
	    !wnn_check_rank(c, x, "input", 1, WNN_MAX_RANK) || !check_gather_kind(c, m, x, idx))
		return false;
	uint32_t rank = gather_rank(c->kind, x, idx);
	if (rank > WNN_MAX_RANK)
		return wnn_failf(c, "output rank %" PRIu32 " exceeds the maximum rank %d", rank,
				 WNN_MAX_RANK);
	struct wnn_desc *r = wnn_result(c, x->type, 0);
	gather_shape(c->kind, m->axis, x, idx, r);
	p->op = c->kind;
	p->input = m->input, p->indices = m->indices, p->output = m->output;
	p->type = x->type, p->index_type = idx->type;
	p->in_rank = x->rank;
	memcpy(p->in_dims, x->dims, sizeof(p->in_dims));
	wnn_shape_strides(x->rank, x->dims, p->in_strides);
	p->rank = r->rank;
	memcpy(p->out_dims, r->dims, sizeof(p->out_dims));
	p->count = wnn_shape_count(r->rank, r->dims);
	gather_layout(p, m, x, idx);
	return true;
}

/* What scatterElements and scatterND resolve alike once their rules hold. */
static void scatter_common(struct wnn_resolving *c, const Webnn__Ipc__Scatter *m,
			   const struct wnn_desc *x, const struct wnn_desc *idx,
			   struct wnn_scatter_attrs *p)
{
	wnn_result_copy(c, x);
	p->op = c->kind;
	p->input = m->input, p->indices = m->indices, p->updates = m->updates;
	p->output = m->output;
	p->type = x->type, p->index_type = idx->type;
	p->rank = x->rank;
	memcpy(p->in_dims, x->dims, sizeof(p->in_dims));
	wnn_shape_strides(x->rank, x->dims, p->in_strides);
	p->count = wnn_shape_count(x->rank, x->dims);
}

static bool resolve_scatter(struct wnn_resolving *c, struct wnn_scatter_attrs *p)
{
	const Webnn__Ipc__Scatter *m = c->op->scatter;
	const struct wnn_desc *x = D(c, m->input), *idx = D(c, m->indices), *u = D(c, m->updates);
	char sa[96], sb[96];
	if (!wnn_check_type(c, x, "input", first_mask(c)) ||
	    !wnn_check_type(c, idx, "indices", INDEX_TYPES) ||
	    !wnn_check_same_type(c, u, "updates", x, "input") ||
	    !wnn_check_rank(c, x, "input", 1, WNN_MAX_RANK))
		return false;
	if (c->kind == WNN_OP_SCATTER_ELEMENTS) {
		if (!wnn_check_rank(c, idx, "indices", x->rank, x->rank) ||
		    !wnn_check_rank(c, u, "updates", x->rank, x->rank) ||
		    !wnn_check_axis(c, m->axis, x->rank, "axis"))
			return false;
		for (uint32_t i = 0; i < x->rank; i++)
			if (i != m->axis && idx->dims[i] != x->dims[i])
				return wnn_failf(c, "indices shape %s must equal the input shape except "
					     "along axis %" PRIu32, SHAPE(idx, sa), m->axis);
		if (u->rank != idx->rank ||
		    memcmp(u->dims, idx->dims, sizeof(uint32_t) * idx->rank) != 0)
			return wnn_failf(c, "updates shape %s is not the indices shape %s", SHAPE(u, sa),
				     SHAPE(idx, sb));
		scatter_common(c, m, x, idx, p);
		p->axis = m->axis;
		p->axis_size = x->dims[m->axis];
		memcpy(p->idx_dims, idx->dims, sizeof(p->idx_dims));
		p->n_updates = wnn_shape_count(idx->rank, idx->dims);
		return true;
	}
	/* scatterND */
	if (!wnn_check_rank(c, idx, "indices", 1, WNN_MAX_RANK))
		return false;
	uint32_t coord = idx->dims[idx->rank - 1];
	if (coord > x->rank)
		return wnn_failf(c, "indices last dimension %" PRIu32 " exceeds the input rank %" PRIu32,
			     coord, x->rank);
	uint64_t want[2 * WNN_MAX_RANK];
	uint32_t n = 0;
	for (uint32_t i = 0; i + 1 < idx->rank; i++)
		want[n++] = idx->dims[i];
	for (uint32_t i = coord; i < x->rank; i++)
		want[n++] = x->dims[i];
	if (!wnn_check_shape(c, u, "updates", want, n, "indices.shape[0:-1] + input.shape[k:]"))
		return false;
	scatter_common(c, m, x, idx, p);
	p->k = coord;
	p->n_tuples = coord ? wnn_shape_count(idx->rank, idx->dims) / coord : 0;
	p->slice = wnn_shape_count(x->rank - coord, x->dims + coord);
	p->n_updates = p->n_tuples * p->slice;
	return true;
}

int64_t wnn_load_index(const void *idx, enum wnn_dtype index_type, uint64_t i)
{
	/* Indices may sit in client shared memory that changes under the kernel: exactly one
	 * load (volatile), whose value the caller checks and then uses. */
	switch (index_type) {
	case WNN_I32:
		return ((const volatile int32_t *)idx)[i];
	case WNN_U32:
		return ((const volatile uint32_t *)idx)[i];
	case WNN_I64:
		return ((const volatile int64_t *)idx)[i];
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

/* ---- the table entries: operands, role limits and the resolver by attrs kind */

static bool inputs_gather(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->gather);
	IN(op->gather->input, "input");
	IN(op->gather->indices, "indices");
	return true;
}

static bool outputs_gather(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->gather);
}

static void roles_gather(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)out;
	fn(ud, "input", t, 1, WNN_MAX_RANK);
	fn(ud, "indices", INDEX_TYPES, op == WNN_OP_GATHER ? 0 : 1, WNN_MAX_RANK);
	fn(ud, "output", t, op == WNN_OP_GATHER_ELEMENTS ? 1 : 0, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_gather, gather)

const struct wnn_attrs_rules wnn_attrs_gather = {
	.inputs = inputs_gather,
	.outputs = outputs_gather,
	.resolve = resolve_gather_any,
	.roles = roles_gather,
};

static bool inputs_scatter(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->scatter);
	IN(op->scatter->input, "input");
	IN(op->scatter->indices, "indices");
	IN(op->scatter->updates, "updates");
	return true;
}

static bool outputs_scatter(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->scatter);
}

static void roles_scatter(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)out;
	fn(ud, "input", t, 1, WNN_MAX_RANK);
	fn(ud, "indices", INDEX_TYPES, 1, WNN_MAX_RANK);
	fn(ud, "updates", t, op == WNN_OP_SCATTER_ND ? 0 : 1, WNN_MAX_RANK);
	fn(ud, "output", t, 1, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_scatter, scatter)

const struct wnn_attrs_rules wnn_attrs_scatter = {
	.inputs = inputs_scatter,
	.outputs = outputs_scatter,
	.resolve = resolve_scatter_any,
	.roles = roles_scatter,
};
