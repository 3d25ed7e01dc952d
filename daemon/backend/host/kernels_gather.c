/* Host kernels: gather, gatherElements, gatherND and their scatter counterparts. */
#include "daemon/backend/host/kernels.h"

static enum webnn_status run_gather(const struct hk_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_gather_attrs *p = &s->a->gather;
	const uint8_t *I = bufs[p->input];
	const void *X = bufs[p->indices];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	if (p->op == WNN_OP_GATHER) {
		uint64_t j = 0;
		for (uint64_t o = 0; o < p->outer; o++)
			for (uint64_t k = 0; k < p->n_indices; k++) {
				if (hk_poll(s, k))
					return hk_cancel_status(s, diag);
				uint64_t a = wnn_wrap_index(wnn_load_index(X, p->index_type, k),
							  p->axis_size);
				uint64_t base = (o * p->axis_size + a) * p->inner;
				memcpy(O + j * es, I + base * es, p->inner * es);
				j += p->inner;
			}
	} else if (p->op == WNN_OP_GATHER_ELEMENTS) {
		for (uint64_t j = 0; j < p->count; j++) {
			if (hk_poll(s, j))
				return hk_cancel_status(s, diag);
			uint64_t off = 0, rest = j;
			for (uint32_t d = p->rank; d-- > 0;) {
				uint64_t c = rest % p->out_dims[d];
				rest /= p->out_dims[d];
				if (d == p->axis)
					c = wnn_wrap_index(wnn_load_index(X, p->index_type, j),
							 p->axis_size);
				off += c * p->in_strides[d];
			}
			hk_copy_elem(O, j, I, off, es);
		}
	} else {
		for (uint64_t t = 0; t < p->n_tuples; t++) {
			if (hk_poll(s, t))
				return hk_cancel_status(s, diag);
			uint64_t off = wnn_nd_offset(X, p->index_type, t, p->k, p->in_dims,
							p->in_strides);
			memcpy(O + t * p->slice * es, I + off * es, p->slice * es);
		}
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_scatter(const struct hk_step *s, void *const *bufs,
				     struct wnn_diag *diag)
{
	const struct wnn_scatter_attrs *p = &s->a->scatter;
	const uint8_t *U = bufs[p->updates];
	const void *X = bufs[p->indices];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	memcpy(O, bufs[p->input], p->count * es);
	if (p->op == WNN_OP_SCATTER_ELEMENTS) {
		for (uint64_t j = 0; j < p->n_updates; j++) {
			if (hk_poll(s, j))
				return hk_cancel_status(s, diag);
			uint64_t off = 0, rest = j;
			for (uint32_t d = p->rank; d-- > 0;) {
				uint64_t c = rest % p->idx_dims[d];
				rest /= p->idx_dims[d];
				if (d == p->axis)
					c = wnn_wrap_index(wnn_load_index(X, p->index_type, j),
							 p->axis_size);
				off += c * p->in_strides[d];
			}
			hk_copy_elem(O, off, U, j, es);
		}
	} else {
		for (uint64_t t = 0; t < p->n_tuples; t++) {
			if (hk_poll(s, t))
				return hk_cancel_status(s, diag);
			uint64_t off = wnn_nd_offset(X, p->index_type, t, p->k, p->in_dims,
							p->in_strides);
			memcpy(O + off * es, U + t * p->slice * es, p->slice * es);
		}
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status hk_gather_prepare(const struct graph_node *n, struct hk_step *s,
				    struct wnn_diag *diag)
{
	switch (n->op) {
	case WNN_OP_GATHER:
	case WNN_OP_GATHER_ELEMENTS:
	case WNN_OP_GATHER_ND:
		s->run = run_gather;
		return hk_check_supported(n->op, n->attrs.gather.type, diag);
	default: /* scatterElements, scatterND */
		s->run = run_scatter;
		return hk_check_supported(n->op, n->attrs.scatter.type, diag);
	}
}
