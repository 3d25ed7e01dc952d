/* Host kernels: resample2d: nearest-neighbour and linear interpolation over two axes. */
#include <math.h>

#include "daemon/backend/host/kernels.h"

/* Interpolated values of integer tensors round to nearest (ties to even) and saturate. */
static void store_any(void *O, enum wnn_dtype t, uint64_t i, double v)
{
	if (hk_is_float(t))
		hk_store_f(O, t, i, v);
	else
		hk_store_sat(O, t, i, rint(v));
}

static double load_any(const void *I, enum wnn_dtype t, uint64_t i)
{
	return hk_is_float(t) ? hk_load_f(I, t, i) : (double)hk_load_i(I, t, i);
}

static enum webnn_status run_resample(const struct hk_step *s, void *const *bufs,
				      struct wnn_diag *diag)
{
	const struct wnn_resample_attrs *p = &s->a->resample;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	const uint32_t a0 = p->axes[0], a1 = p->axes[1];
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++) {
		if (hk_poll(s, j))
			return hk_cancel_status(s, diag);
		uint32_t c[4];
		uint64_t rest = j;
		for (int d = 3; d >= 0; d--) {
			c[d] = (uint32_t)(rest % p->out_dims[d]);
			rest /= p->out_dims[d];
		}
		uint64_t base = 0;
		for (uint32_t d = 0; d < 4; d++)
			if (d != a0 && d != a1)
				base += c[d] * p->in_strides[d];
		if (p->mode == WNN_INTERP_NEAREST) {
			uint64_t off = base +
				       wnn_resample_nearest(p, 0, c[a0]) * p->in_strides[a0] +
				       wnn_resample_nearest(p, 1, c[a1]) * p->in_strides[a1];
			store_any(O, p->type, j, load_any(I, p->type, off));
			continue;
		}
		double x0 = wnn_resample_coord(p, 0, c[a0]), x1 = wnn_resample_coord(p, 1, c[a1]);
		uint64_t lo0 = (uint64_t)floor(x0), hi0 = (uint64_t)ceil(x0);
		uint64_t lo1 = (uint64_t)floor(x1), hi1 = (uint64_t)ceil(x1);
		double t0 = x0 - (double)lo0, t1 = x1 - (double)lo1;
		const uint64_t s0 = p->in_strides[a0], s1 = p->in_strides[a1];
		double v00 = load_any(I, p->type, base + lo0 * s0 + lo1 * s1);
		double v01 = load_any(I, p->type, base + lo0 * s0 + hi1 * s1);
		double v10 = load_any(I, p->type, base + hi0 * s0 + lo1 * s1);
		double v11 = load_any(I, p->type, base + hi0 * s0 + hi1 * s1);
		double r0 = v00 * (1 - t1) + v01 * t1;
		double r1 = v10 * (1 - t1) + v11 * t1;
		store_any(O, p->type, j, r0 * (1 - t0) + r1 * t0);
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status hk_resample_prepare(const struct graph_node *n, struct hk_step *s,
				      struct wnn_diag *diag)
{
	s->run = run_resample;
	return hk_check_supported(n->op, n->attrs.resample.type, diag);
}
