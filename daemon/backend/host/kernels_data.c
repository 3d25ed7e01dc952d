/* Host kernels: data movement: reshape, transpose, concat, expand, tile, pad, reverse, slice, split, triangular. */
#include "daemon/backend/host/kernels.h"

static enum webnn_status run_reshape(const struct hk_step *s, void *const *bufs,
				     struct wnn_diag *diag)
{
	const struct wnn_reshape_attrs *p = &s->a->reshape;
	(void)diag;
	memcpy(bufs[p->output], bufs[p->input], p->bytes);
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_transpose(const struct hk_step *s, void *const *bufs,
				       struct wnn_diag *diag)
{
	const struct wnn_transpose_attrs *p = &s->a->transpose;
	const uint8_t *I = bufs[p->input];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++) {
		if (hk_poll(s, j))
			return hk_cancel_status(s, diag);
		memcpy(O + j * es, I + wnn_shape_offset(p->rank, p->out_dims, p->in_strides, j) * es, es);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_concat(const struct hk_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_concat_attrs *p = &s->a->concat;
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	uint64_t off = 0;
	(void)diag;
	for (size_t i = 0; i < p->n_inputs; i++) {
		const uint8_t *I = bufs[p->inputs[i]];
		uint64_t size = wnn_concat_size(p, s->descs, i);
		uint64_t run = size * p->inner * es;
		for (uint64_t o = 0; o < p->outer; o++)
			memcpy(O + ((o * p->out_axis + off) * p->inner) * es, I + o * run, run);
		off += size;
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_expand(const struct hk_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_expand_attrs *p = &s->a->expand;
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++) {
		if (hk_poll(s, j))
			return hk_cancel_status(s, diag);
		hk_copy_elem(bufs[p->output], j, bufs[p->input],
			  wnn_shape_offset(p->rank, p->out_dims, p->in_strides, j), es);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_tile(const struct hk_step *s, void *const *bufs,
				  struct wnn_diag *diag)
{
	const struct wnn_tile_attrs *p = &s->a->tile;
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++) {
		if (hk_poll(s, j))
			return hk_cancel_status(s, diag);
		hk_copy_elem(bufs[p->output], j, bufs[p->input], wnn_tile_offset(p, j), es);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_pad(const struct hk_step *s, void *const *bufs,
				 struct wnn_diag *diag)
{
	const struct wnn_pad_attrs *p = &s->a->pad;
	const uint8_t *I = bufs[p->input];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++) {
		if (hk_poll(s, j))
			return hk_cancel_status(s, diag);
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
			hk_copy_elem(O, j, I, off, es);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_reverse(const struct hk_step *s, void *const *bufs,
				     struct wnn_diag *diag)
{
	const struct wnn_reverse_attrs *p = &s->a->reverse;
	uint64_t strides[WNN_MAX_RANK];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	wnn_shape_strides(p->rank, p->dims, strides);
	for (uint64_t j = 0; j < p->count; j++) {
		if (hk_poll(s, j))
			return hk_cancel_status(s, diag);
		uint64_t off = 0, rest = j;
		for (uint32_t d = p->rank; d-- > 0;) {
			uint64_t c = rest % p->dims[d];
			rest /= p->dims[d];
			if (p->mask & (1u << d))
				c = p->dims[d] - 1 - c;
			off += c * strides[d];
		}
		hk_copy_elem(bufs[p->output], j, bufs[p->input], off, es);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_slice(const struct hk_step *s, void *const *bufs,
				   struct wnn_diag *diag)
{
	const struct wnn_slice_attrs *p = &s->a->slice;
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++) {
		if (hk_poll(s, j))
			return hk_cancel_status(s, diag);
		hk_copy_elem(bufs[p->output], j, bufs[p->input],
			  p->base + wnn_shape_offset(p->rank, p->out_dims, p->step_strides, j), es);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_split(const struct hk_step *s, void *const *bufs,
				   struct wnn_diag *diag)
{
	const struct wnn_split_attrs *p = &s->a->split;
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

static enum webnn_status run_triangular(const struct hk_step *s, void *const *bufs,
					struct wnn_diag *diag)
{
	const struct wnn_triangular_attrs *p = &s->a->triangular;
	const uint8_t *I = bufs[p->input];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	uint64_t j = 0;
	for (uint64_t b = 0; b < p->batch; b++)
		for (uint64_t r = 0; r < p->rows; r++)
			for (uint64_t c = 0; c < p->cols; c++, j++) {
				if (hk_poll(s, j))
					return hk_cancel_status(s, diag);
				int64_t k = (int64_t)c - (int64_t)r;
				bool keep = p->upper ? k >= p->diagonal : k <= p->diagonal;
				if (keep)
					hk_copy_elem(O, j, I, j, es);
				else
					memset(O + j * es, 0, es); /* 0 is all-zero bits in every type */
			}
	return WEBNN_STATUS_OK;
}

enum webnn_status hk_data_prepare(const struct graph_node *n, struct hk_step *s,
				  struct wnn_diag *diag)
{
	switch (n->op) {
	case WNN_OP_RESHAPE:
		s->run = run_reshape;
		return hk_check_supported(n->op, n->attrs.reshape.type, diag);
	case WNN_OP_TRANSPOSE:
		s->run = run_transpose;
		return hk_check_supported(n->op, n->attrs.transpose.type, diag);
	case WNN_OP_CONCAT:
		s->run = run_concat;
		return hk_check_supported(n->op, n->attrs.concat.type, diag);
	case WNN_OP_EXPAND:
		s->run = run_expand;
		return hk_check_supported(n->op, n->attrs.expand.type, diag);
	case WNN_OP_TILE:
		s->run = run_tile;
		return hk_check_supported(n->op, n->attrs.tile.type, diag);
	case WNN_OP_PAD:
		s->run = run_pad;
		return hk_check_supported(n->op, n->attrs.pad.type, diag);
	case WNN_OP_REVERSE:
		s->run = run_reverse;
		return hk_check_supported(n->op, n->attrs.reverse.type, diag);
	case WNN_OP_SLICE:
		s->run = run_slice;
		return hk_check_supported(n->op, n->attrs.slice.type, diag);
	case WNN_OP_SPLIT:
		s->run = run_split;
		return hk_check_supported(n->op, n->attrs.split.type, diag);
	default: /* triangular */
		s->run = run_triangular;
		return hk_check_supported(n->op, n->attrs.triangular.type, diag);
	}
}
