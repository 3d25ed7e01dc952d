/* Host kernels: normalizations: batch, instance and layer normalization, softmax. */
#include <math.h>

#include "daemon/backend/host/kernels.h"

static enum webnn_status run_softmax(const struct hk_step *s, void *const *bufs,
				     struct wnn_diag *diag)
{
	const struct wnn_softmax_attrs *p = &s->a->softmax;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t o = 0; o < p->outer; o++)
		for (uint64_t in = 0; in < p->inner; in++) {
			if (hk_cancelled(s))
				return hk_cancel_status(s, diag);
			uint64_t base = o * p->axis_size * p->inner + in;
			double mx = -INFINITY, sum = 0;
			for (uint64_t a = 0; a < p->axis_size; a++) {
				double v = hk_load_f(I, p->type, base + a * p->inner);
				mx = v > mx || isnan(v) ? v : mx;
			}
			for (uint64_t a = 0; a < p->axis_size; a++)
				sum += exp(hk_load_f(I, p->type, base + a * p->inner) - mx);
			for (uint64_t a = 0; a < p->axis_size; a++) {
				uint64_t i = base + a * p->inner;
				hk_store_f(O, p->type, i, exp(hk_load_f(I, p->type, i) - mx) / sum);
			}
		}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_batchnorm(const struct hk_step *s, void *const *bufs,
				       struct wnn_diag *diag)
{
	const struct wnn_batchnorm_attrs *p = &s->a->batchnorm;
	const void *I = bufs[p->input], *M = bufs[p->mean], *V = bufs[p->variance];
	const void *S = p->has_scale ? bufs[p->scale] : NULL;
	const void *B = p->has_bias ? bufs[p->bias] : NULL;
	void *O = bufs[p->output];
	uint64_t count = p->outer * p->channels * p->inner;
	(void)diag;
	for (uint64_t i = 0; i < count; i++) {
		if (hk_poll(s, i))
			return hk_cancel_status(s, diag);
		uint64_t c = (i / p->inner) % p->channels;
		double v = (hk_load_f(I, p->type, i) - hk_load_f(M, p->type, c)) /
			   sqrt(hk_load_f(V, p->type, c) + p->epsilon);
		if (S)
			v *= hk_load_f(S, p->type, c);
		if (B)
			v += hk_load_f(B, p->type, c);
		hk_store_f(O, p->type, i, v);
	}
	return WEBNN_STATUS_OK;
}

/* mean and (population) variance over the reduced axes, then normalise each element. */
static enum webnn_status run_norm(const struct hk_step *s, void *const *bufs,
				  struct wnn_diag *diag)
{
	const struct wnn_norm_attrs *p = &s->a->norm;
	const struct wnn_reduction *r = &p->r;
	const void *I = bufs[p->input];
	const void *S = p->has_scale ? bufs[p->scale] : NULL;
	const void *B = p->has_bias ? bufs[p->bias] : NULL;
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t k = 0; k < r->kept_count; k++) {
		if (hk_cancelled(s))
			return hk_cancel_status(s, diag);
		uint64_t off = wnn_shape_offset(r->kept_rank, r->kept_dims, r->kept_strides, k);
		double sum = 0, sq = 0;
		for (uint64_t j = 0; j < r->red_count; j++)
			sum += hk_load_f(I, p->type,
					 off + wnn_shape_offset(r->red_rank, r->red_dims, r->red_strides, j));
		double mean = sum / (double)r->red_count;
		for (uint64_t j = 0; j < r->red_count; j++) {
			if (hk_poll(s, j))
				return hk_cancel_status(s, diag);
			double d = hk_load_f(I, p->type, off + wnn_shape_offset(r->red_rank, r->red_dims,
									      r->red_strides, j)) -
				   mean;
			sq += d * d;
		}
		double inv = 1.0 / sqrt(sq / (double)r->red_count + p->epsilon);
		for (uint64_t j = 0; j < r->red_count; j++) {
			if (hk_poll(s, j))
				return hk_cancel_status(s, diag);
			uint64_t i = off + wnn_shape_offset(r->red_rank, r->red_dims, r->red_strides, j);
			uint64_t si = p->per_channel ? k % p->channels : j;
			double v = (hk_load_f(I, p->type, i) - mean) * inv;
			if (S)
				v *= hk_load_f(S, p->type, si);
			if (B)
				v += hk_load_f(B, p->type, si);
			hk_store_f(O, p->type, i, v);
		}
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status hk_normalization_prepare(const struct graph_node *n, struct hk_step *s,
					   struct wnn_diag *diag)
{
	switch (n->op) {
	case WNN_OP_SOFTMAX:
		s->run = run_softmax;
		return hk_check_supported(n->op, n->attrs.softmax.type, diag);
	case WNN_OP_BATCH_NORMALIZATION:
		s->run = run_batchnorm;
		return hk_check_supported(n->op, n->attrs.batchnorm.type, diag);
	default: /* instance and layer normalization */
		s->run = run_norm;
		return hk_check_supported(n->op, n->attrs.norm.type, diag);
	}
}
