/* Reference data movement (reshape, transpose, concat) and softmax, batchNormalization. */
#include <math.h>

#include "daemon/backend/reference/ref.h"

static enum webnn_status run_reshape(const struct ref_step *s, void *const *bufs,
				     struct wnn_diag *diag)
{
	const struct wnn_reshape_attrs *p = &s->p.reshape;
	(void)diag;
	memcpy(bufs[p->output], bufs[p->input], p->bytes);
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_transpose(const struct ref_step *s, void *const *bufs,
				       struct wnn_diag *diag)
{
	const struct wnn_transpose_attrs *p = &s->p.transpose;
	const uint8_t *I = bufs[p->input];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++)
		memcpy(O + j * es, I + wnn_shape_offset(p->rank, p->out_dims, p->in_strides, j) * es, es);
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_concat(const struct ref_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_concat_attrs *p = &s->p.concat;
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

static enum webnn_status run_softmax(const struct ref_step *s, void *const *bufs,
				     struct wnn_diag *diag)
{
	const struct wnn_softmax_attrs *p = &s->p.softmax;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t o = 0; o < p->outer; o++)
		for (uint64_t in = 0; in < p->inner; in++) {
			uint64_t base = o * p->axis_size * p->inner + in;
			double mx = -INFINITY, sum = 0;
			for (uint64_t a = 0; a < p->axis_size; a++) {
				double v = ref_load_f(I, p->type, base + a * p->inner);
				mx = v > mx || isnan(v) ? v : mx;
			}
			for (uint64_t a = 0; a < p->axis_size; a++)
				sum += exp(ref_load_f(I, p->type, base + a * p->inner) - mx);
			for (uint64_t a = 0; a < p->axis_size; a++) {
				uint64_t i = base + a * p->inner;
				ref_store_f(O, p->type, i, exp(ref_load_f(I, p->type, i) - mx) / sum);
			}
		}
	return WEBNN_STATUS_OK;
}

static enum webnn_status run_batchnorm(const struct ref_step *s, void *const *bufs,
				       struct wnn_diag *diag)
{
	const struct wnn_batchnorm_attrs *p = &s->p.batchnorm;
	const void *I = bufs[p->input], *M = bufs[p->mean], *V = bufs[p->variance];
	const void *S = p->has_scale ? bufs[p->scale] : NULL;
	const void *B = p->has_bias ? bufs[p->bias] : NULL;
	void *O = bufs[p->output];
	uint64_t count = p->outer * p->channels * p->inner;
	(void)diag;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t c = (i / p->inner) % p->channels;
		double v = (ref_load_f(I, p->type, i) - ref_load_f(M, p->type, c)) /
			   sqrt(ref_load_f(V, p->type, c) + p->epsilon);
		if (S)
			v *= ref_load_f(S, p->type, c);
		if (B)
			v += ref_load_f(B, p->type, c);
		ref_store_f(O, p->type, i, v);
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status ref_prepare_misc(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct ref_step *s, struct wnn_diag *diag)
{
	enum webnn_status st;
	enum wnn_dtype t;
	switch (s->op) {
	case WNN_OP_RESHAPE:
		st = wnn_resolve_reshape(op, descs, n_descs, &s->p.reshape, diag);
		t = s->p.reshape.type;
		s->run = run_reshape;
		break;
	case WNN_OP_TRANSPOSE:
		st = wnn_resolve_transpose(op, descs, n_descs, &s->p.transpose, diag);
		t = s->p.transpose.type;
		s->run = run_transpose;
		break;
	case WNN_OP_CONCAT:
		st = wnn_resolve_concat(op, descs, n_descs, &s->p.concat, diag);
		t = s->p.concat.type;
		s->run = run_concat;
		break;
	case WNN_OP_SOFTMAX:
		st = wnn_resolve_softmax(op, descs, n_descs, &s->p.softmax, diag);
		t = s->p.softmax.type;
		s->run = run_softmax;
		break;
	default:
		st = wnn_resolve_batchnorm(op, descs, n_descs, &s->p.batchnorm, diag);
		t = s->p.batchnorm.type;
		s->run = run_batchnorm;
		break;
	}
	if (st != WEBNN_STATUS_OK)
		return st;
	return ref_check_supported(s->op, t, diag);
}
