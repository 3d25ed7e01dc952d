/* Gather/scatter family: operand wiring, inference, spec role limits, resolution. */
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
static bool infer_gather_kind(struct wnn_infer *c, const Webnn__Ipc__Gather *m,
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

static bool infer_gather(struct wnn_infer *c)
{
	const Webnn__Ipc__Gather *m = c->op->gather;
	const struct wnn_desc *x = D(c, m->input), *idx = D(c, m->indices);
	if (!wnn_check_type(c, x, "input", first_mask(c)) ||
	    !wnn_check_type(c, idx, "indices", INDEX_TYPES) ||
	    !wnn_check_rank(c, x, "input", 1, WNN_MAX_RANK) || !infer_gather_kind(c, m, x, idx))
		return false;
	uint32_t rank = gather_rank(c->kind, x, idx);
	if (rank > WNN_MAX_RANK)
		return wnn_failf(c, "output rank %" PRIu32 " exceeds the maximum rank %d", rank,
				 WNN_MAX_RANK);
	gather_shape(c->kind, m->axis, x, idx, wnn_result(c, x->type, 0));
	return true;
}

static bool infer_scatter(struct wnn_infer *c)
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
		wnn_result_copy(c, x);
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
	wnn_result_copy(c, x);
	return true;
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

/* The gather views the kernels index through: [outer, axis, inner] (gather), the axis size
 * (gatherElements, whose indices must equal the input off the axis), tuples and slices
 * (gatherND). */
static enum webnn_status gather_layout(struct wnn_gather_attrs *p, const Webnn__Ipc__Gather *m,
				       const struct wnn_desc *in, const struct wnn_desc *idx,
				       const char *name, struct wnn_diag *diag)
{
	uint64_t n_idx = wnn_shape_count(idx->rank, idx->dims);
	if (p->op == WNN_OP_GATHER) {
		p->axis = m->axis;
		wnn_axis_view(in, m->axis, &p->outer, &p->axis_size, &p->inner);
		p->n_indices = n_idx;
	} else if (p->op == WNN_OP_GATHER_ELEMENTS) {
		p->axis = m->axis;
		p->axis_size = in->dims[m->axis];
		for (uint32_t i = 0; i < in->rank; i++)
			if (i != m->axis && idx->dims[i] != in->dims[i])
				return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
						    "%s: indices dimension %u differs from the "
						    "input", name, i);
	} else {
		p->k = idx->dims[idx->rank - 1];
		p->n_tuples = p->k ? n_idx / p->k : 0;
		p->slice = wnn_shape_count(in->rank - p->k, in->dims + p->k);
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_gather(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				     size_t n_descs, struct wnn_gather_attrs *p,
				     struct wnn_diag *diag)
{
	const char *name;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_GATHER, &p->op, &name, diag));
	const Webnn__Ipc__Gather *m = op->gather;
	OPERAND(in, m->input, "input");
	OPERAND(idx, m->indices, "indices");
	OPERAND(out, m->output, "output");
	CHECK(index_type_ok(idx->type, name, diag));
	if (in->rank < 1)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: input rank must be at least 1",
				    name);
	if (p->op != WNN_OP_GATHER_ND)
		CHECK(wnn_axis_in_range(m->axis, in->rank, name, diag));
	if (p->op == WNN_OP_GATHER_ELEMENTS && idx->rank != in->rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: indices rank differs from the input rank", name);
	if (p->op == WNN_OP_GATHER_ND && (idx->rank < 1 || idx->dims[idx->rank - 1] > in->rank))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: indices last dimension exceeds the input rank", name);
	struct wnn_desc want;
	if (gather_rank(p->op, in, idx) > WNN_MAX_RANK)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: output rank exceeds %d",
				    name, WNN_MAX_RANK);
	gather_shape(p->op, m->axis, in, idx, &want);
	CHECK(wnn_same_shape(&want, out, name, "output shape does not match the gather", diag));
	p->input = m->input, p->indices = m->indices, p->output = m->output;
	p->type = in->type, p->index_type = idx->type;
	p->in_rank = in->rank;
	memcpy(p->in_dims, in->dims, sizeof(p->in_dims));
	wnn_shape_strides(in->rank, in->dims, p->in_strides);
	p->rank = out->rank;
	memcpy(p->out_dims, out->dims, sizeof(p->out_dims));
	p->count = wnn_shape_count(out->rank, out->dims);
	return gather_layout(p, m, in, idx, name, diag);
}

enum webnn_status wnn_resolve_scatter(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct wnn_scatter_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_SCATTER, &p->op, &name, diag));
	const Webnn__Ipc__Scatter *m = op->scatter;
	OPERAND(in, m->input, "input");
	OPERAND(idx, m->indices, "indices");
	OPERAND(upd, m->updates, "updates");
	OPERAND(out, m->output, "output");
	CHECK(index_type_ok(idx->type, name, diag));
	CHECK(wnn_same_shape(in, out, name, "output shape differs from the input shape", diag));
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
		CHECK(wnn_axis_in_range(m->axis, in->rank, name, diag));
		CHECK(wnn_same_shape(idx, upd, name, "updates shape differs from the indices shape",
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
		p->n_tuples = p->k ? n_idx / p->k : 0; /* dims are validated > 0 */
		p->slice = wnn_shape_count(in->rank - p->k, in->dims + p->k);
		if (wnn_shape_count(upd->rank, upd->dims) != p->n_tuples * p->slice)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: updates shape does not match the indices", name);
		p->n_updates = p->n_tuples * p->slice;
	}
	return WEBNN_STATUS_OK;
}

/* ---- the table entries: operands, inference, role limits and resolution by attrs kind */

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

WNN_RESOLVE_ANY(gather)

const struct wnn_attrs_rules wnn_attrs_gather = {
	.inputs = inputs_gather,
	.outputs = outputs_gather,
	.infer = infer_gather,
	.roles = roles_gather,
	.resolve = resolve_any_gather,
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

WNN_RESOLVE_ANY(scatter)

const struct wnn_attrs_rules wnn_attrs_scatter = {
	.inputs = inputs_scatter,
	.outputs = outputs_scatter,
	.infer = infer_scatter,
	.roles = roles_scatter,
	.resolve = resolve_any_scatter,
};
