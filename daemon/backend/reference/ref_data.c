/* Reference data movement and selection: cast, expand, tile, gather*, scatter*, pad, reverse, slice, split, triangular, where, prelu. */
#include <math.h>

#include "daemon/backend/reference/ref.h"

/* Element copies by size: every op here moves whole elements, whatever their type. */
static inline void copy_elem(uint8_t *dst, uint64_t di, const uint8_t *src, uint64_t si,
			     size_t es)
{
	memcpy(dst + di * es, src + si * es, es);
}

static enum webnn_status run_cast(const struct ref_step *s, void *const *bufs,
				  struct wnn_diag *diag)
{
	const struct wnn_cast_attrs *p = &s->p.cast;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t i = 0; i < p->count; i++) {
		if (ref_is_float(p->in_type)) {
			double v = ref_load_f(I, p->in_type, i);
			if (ref_is_float(p->out_type))
				ref_store_f(O, p->out_type, i, v);
			else
				ref_store_sat(O, p->out_type, i, v);
		} else if (ref_is_float(p->out_type)) {
			/* one rounding straight from the integer (a double could round twice) */
			float f = ref_is_signed_int(p->in_type)
					  ? (float)(int64_t)ref_load_i(I, p->in_type, i)
					  : (float)ref_load_u(I, p->in_type, i);
			ref_store_f(O, p->out_type, i, f);
		} else {
			ref_store_i(O, p->out_type, i, ref_load_i(I, p->in_type, i));
		}
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_expand(const struct ref_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_expand_attrs *p = &s->p.expand;
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++)
		copy_elem(bufs[p->output], j, bufs[p->input],
			  wnn_shape_offset(p->rank, p->out_dims, p->in_strides, j), es);
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_tile(const struct ref_step *s, void *const *bufs,
				  struct wnn_diag *diag)
{
	const struct wnn_tile_attrs *p = &s->p.tile;
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++)
		copy_elem(bufs[p->output], j, bufs[p->input], wnn_tile_offset(p, j), es);
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_gather(const struct ref_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_gather_attrs *p = &s->p.gather;
	const uint8_t *I = bufs[p->input];
	const void *X = bufs[p->indices];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	if (p->op == WNN_OP_GATHER) {
		uint64_t j = 0;
		for (uint64_t o = 0; o < p->outer; o++)
			for (uint64_t k = 0; k < p->n_indices; k++) {
				uint64_t a = wnn_wrap_index(wnn_load_index(X, p->index_type, k),
							  p->axis_size);
				uint64_t base = (o * p->axis_size + a) * p->inner;
				memcpy(O + j * es, I + base * es, p->inner * es);
				j += p->inner;
			}
	} else if (p->op == WNN_OP_GATHER_ELEMENTS) {
		for (uint64_t j = 0; j < p->count; j++) {
			uint64_t off = 0, rest = j;
			for (uint32_t d = p->rank; d-- > 0;) {
				uint64_t c = rest % p->out_dims[d];
				rest /= p->out_dims[d];
				if (d == p->axis)
					c = wnn_wrap_index(wnn_load_index(X, p->index_type, j),
							 p->axis_size);
				off += c * p->in_strides[d];
			}
			copy_elem(O, j, I, off, es);
		}
	} else {
		for (uint64_t t = 0; t < p->n_tuples; t++) {
			uint64_t off = wnn_nd_offset(X, p->index_type, t, p->k, p->in_dims,
							p->in_strides);
			memcpy(O + t * p->slice * es, I + off * es, p->slice * es);
		}
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_scatter(const struct ref_step *s, void *const *bufs,
				     struct wnn_diag *diag)
{
	const struct wnn_scatter_attrs *p = &s->p.scatter;
	const uint8_t *U = bufs[p->updates];
	const void *X = bufs[p->indices];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	memcpy(O, bufs[p->input], p->count * es);
	if (p->op == WNN_OP_SCATTER_ELEMENTS) {
		for (uint64_t j = 0; j < p->n_updates; j++) {
			uint64_t off = 0, rest = j;
			for (uint32_t d = p->rank; d-- > 0;) {
				uint64_t c = rest % p->idx_dims[d];
				rest /= p->idx_dims[d];
				if (d == p->axis)
					c = wnn_wrap_index(wnn_load_index(X, p->index_type, j),
							 p->axis_size);
				off += c * p->in_strides[d];
			}
			copy_elem(O, off, U, j, es);
		}
	} else {
		for (uint64_t t = 0; t < p->n_tuples; t++) {
			uint64_t off = wnn_nd_offset(X, p->index_type, t, p->k, p->in_dims,
							p->in_strides);
			memcpy(O + off * es, U + t * p->slice * es, p->slice * es);
		}
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_pad(const struct ref_step *s, void *const *bufs,
				 struct wnn_diag *diag)
{
	const struct wnn_pad_attrs *p = &s->p.pad;
	const uint8_t *I = bufs[p->input];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++) {
		uint64_t off = 0, rest = j;
		bool outside = false;
		for (uint32_t d = p->rank; d-- > 0;) {
			int64_t c = (int64_t)(rest % p->out_dims[d]) - p->begin[d];
			int64_t n = p->in_dims[d];
			rest /= p->out_dims[d];
			if (c < 0 || c >= n) {
				switch (p->mode) {
				case WNN_PAD_CONSTANT:
					outside = true;
					break;
				case WNN_PAD_EDGE:
					c = c < 0 ? 0 : n - 1;
					break;
				case WNN_PAD_REFLECTION:
					/* padding < n (checked), so one mirror lands inside */
					c = c < 0 ? -c : 2 * (n - 1) - c;
					if (c < 0 || c >= n)
						c = c < 0 ? 0 : n - 1;
					break;
				}
			}
			off += (uint64_t)c * p->in_strides[d];
		}
		if (outside)
			memcpy(O + j * es, p->value, es);
		else
			copy_elem(O, j, I, off, es);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_reverse(const struct ref_step *s, void *const *bufs,
				     struct wnn_diag *diag)
{
	const struct wnn_reverse_attrs *p = &s->p.reverse;
	uint64_t strides[WNN_MAX_RANK];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	wnn_shape_strides(p->rank, p->dims, strides);
	for (uint64_t j = 0; j < p->count; j++) {
		uint64_t off = 0, rest = j;
		for (uint32_t d = p->rank; d-- > 0;) {
			uint64_t c = rest % p->dims[d];
			rest /= p->dims[d];
			if (p->mask & (1u << d))
				c = p->dims[d] - 1 - c;
			off += c * strides[d];
		}
		copy_elem(bufs[p->output], j, bufs[p->input], off, es);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_slice(const struct ref_step *s, void *const *bufs,
				   struct wnn_diag *diag)
{
	const struct wnn_slice_attrs *p = &s->p.slice;
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++)
		copy_elem(bufs[p->output], j, bufs[p->input],
			  p->base + wnn_shape_offset(p->rank, p->out_dims, p->step_strides, j), es);
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_split(const struct ref_step *s, void *const *bufs,
				   struct wnn_diag *diag)
{
	const struct wnn_split_attrs *p = &s->p.split;
	const uint8_t *I = bufs[p->input];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (size_t i = 0; i < p->n_outputs; i++) {
		uint8_t *O = bufs[p->outputs[i]];
		uint64_t run = (uint64_t)p->sizes[i] * p->inner * es;
		for (uint64_t o = 0; o < p->outer; o++)
			memcpy(O + o * run, I + ((o * p->axis_size + p->offsets[i]) * p->inner) * es,
			       run);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_triangular(const struct ref_step *s, void *const *bufs,
					struct wnn_diag *diag)
{
	const struct wnn_triangular_attrs *p = &s->p.triangular;
	const uint8_t *I = bufs[p->input];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	uint64_t j = 0;
	for (uint64_t b = 0; b < p->batch; b++)
		for (uint64_t r = 0; r < p->rows; r++)
			for (uint64_t c = 0; c < p->cols; c++, j++) {
				int64_t k = (int64_t)c - (int64_t)r;
				bool keep = p->upper ? k >= p->diagonal : k <= p->diagonal;
				if (keep)
					copy_elem(O, j, I, j, es);
				else
					memset(O + j * es, 0, es); /* 0 is all-zero bits in every type */
			}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_where(const struct ref_step *s, void *const *bufs,
				   struct wnn_diag *diag)
{
	const struct wnn_where_attrs *p = &s->p.where;
	const struct wnn_bcast *bc = &p->bc;
	const uint8_t *C = bufs[p->condition];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t i = 0; i < bc->count; i++) {
		uint64_t ic = wnn_shape_offset(bc->rank, bc->dims, bc->strides[0], i);
		int k = C[ic] ? 1 : 2;
		uint32_t src = k == 1 ? p->true_value : p->false_value;
		copy_elem(bufs[p->output], i, bufs[src],
			  wnn_shape_offset(bc->rank, bc->dims, bc->strides[k], i), es);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_prelu(const struct ref_step *s, void *const *bufs,
				   struct wnn_diag *diag)
{
	const struct wnn_prelu_attrs *p = &s->p.prelu;
	const struct wnn_bcast *bc = &p->bc;
	const void *I = bufs[p->input], *S = bufs[p->slope];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t i = 0; i < bc->count; i++) {
		uint64_t ii = wnn_shape_offset(bc->rank, bc->dims, bc->strides[0], i);
		uint64_t is = wnn_shape_offset(bc->rank, bc->dims, bc->strides[1], i);
		if (ref_is_float(p->type)) {
			double x = ref_load_f(I, p->type, ii);
			ref_store_f(O, p->type, i, x >= 0 ? x : ref_load_f(S, p->type, is) * x);
		} else {
			__int128 x = ref_load_i(I, p->type, ii);
			ref_store_i(O, p->type, i, x >= 0 ? x : ref_load_i(S, p->type, is) * x);
		}
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status ref_prepare_data(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct ref_step *s, struct wnn_diag *diag)
{
	enum webnn_status st;
	enum wnn_dtype t;
	switch (wnn_ops[s->op].attrs) {
	case WEBNN__IPC__OPERATION__ATTRS_CAST:
		st = wnn_resolve_cast(op, descs, n_descs, &s->p.cast, diag);
		t = s->p.cast.in_type;
		s->run = run_cast;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_EXPAND:
		st = wnn_resolve_expand(op, descs, n_descs, &s->p.expand, diag);
		t = s->p.expand.type;
		s->run = run_expand;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_TILE:
		st = wnn_resolve_tile(op, descs, n_descs, &s->p.tile, diag);
		t = s->p.tile.type;
		s->run = run_tile;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_GATHER:
		st = wnn_resolve_gather(op, descs, n_descs, &s->p.gather, diag);
		t = s->p.gather.type;
		s->run = run_gather;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_SCATTER:
		st = wnn_resolve_scatter(op, descs, n_descs, &s->p.scatter, diag);
		t = s->p.scatter.type;
		s->run = run_scatter;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_PAD:
		st = wnn_resolve_pad(op, descs, n_descs, &s->p.pad, diag);
		t = s->p.pad.type;
		s->run = run_pad;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_REVERSE:
		st = wnn_resolve_reverse(op, descs, n_descs, &s->p.reverse, diag);
		t = s->p.reverse.type;
		s->run = run_reverse;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_SLICE:
		st = wnn_resolve_slice(op, descs, n_descs, &s->p.slice, diag);
		t = s->p.slice.type;
		s->run = run_slice;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_SPLIT:
		st = wnn_resolve_split(op, descs, n_descs, &s->p.split, diag);
		t = s->p.split.type;
		s->run = run_split;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_TRIANGULAR:
		st = wnn_resolve_triangular(op, descs, n_descs, &s->p.triangular, diag);
		t = s->p.triangular.type;
		s->run = run_triangular;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_WHERE:
		st = wnn_resolve_where(op, descs, n_descs, &s->p.where, diag);
		t = WNN_U8; /* the condition is the first input */
		s->run = run_where;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_PRELU:
		st = wnn_resolve_prelu(op, descs, n_descs, &s->p.prelu, diag);
		t = s->p.prelu.type;
		s->run = run_prelu;
		break;
	default:
		return ref_check_supported(s->op, WNN_DT_NONE, diag);
	}
	if (st != WEBNN_STATUS_OK)
		return st;
	return ref_check_supported(s->op, t, diag);
}
