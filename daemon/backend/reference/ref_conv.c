/* Reference conv2d and pooling: direct loops over (n, c, y, x) in either layout, math in double. */
#include <math.h>

#include "daemon/backend/reference/ref.h"

static enum webnn_status run_conv2d(const struct ref_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_conv2d_attrs *p = &s->p.conv2d;
	const void *I = bufs[p->input], *F = bufs[p->filter];
	const void *B = p->has_bias ? bufs[p->bias] : NULL;
	void *O = bufs[p->output];
	const uint64_t *is = p->in_stride, *fs = p->filter_stride, *os = p->out_stride;
	(void)diag;
	for (uint32_t n = 0; n < p->n; n++)
		for (uint32_t oc = 0; oc < p->c_out; oc++) {
			uint32_t g = oc / p->c_out_g;
			for (uint32_t oy = 0; oy < p->out_h; oy++)
				for (uint32_t ox = 0; ox < p->out_w; ox++) {
					double acc = 0;
					for (uint32_t ic = 0; ic < p->c_in_g; ic++) {
						uint64_t cin = (uint64_t)g * p->c_in_g + ic;
						for (uint32_t ky = 0; ky < p->kh; ky++) {
							int64_t iy = (int64_t)oy * p->stride_h +
								     (int64_t)ky * p->dil_h - p->pad_top;
							if (iy < 0 || iy >= p->h)
								continue;
							for (uint32_t kx = 0; kx < p->kw; kx++) {
								int64_t ix = (int64_t)ox * p->stride_w +
									     (int64_t)kx * p->dil_w -
									     p->pad_left;
								if (ix < 0 || ix >= p->w)
									continue;
								uint64_t ii = n * is[0] + cin * is[1] +
									      (uint64_t)iy * is[2] +
									      (uint64_t)ix * is[3];
								uint64_t fi = oc * fs[0] + ic * fs[1] +
									      ky * fs[2] + kx * fs[3];
								acc += ref_load_f(I, p->type, ii) *
								       ref_load_f(F, p->type, fi);
							}
						}
					}
					if (B)
						acc += ref_load_f(B, p->type, oc);
					ref_store_f(O, p->type,
						    n * os[0] + oc * os[1] + oy * os[2] + ox * os[3], acc);
				}
		}
	return WEBNN_STATUS_OK;
}

/* Positions outside the input are skipped: average divides by the real elements only, l2 sums
 * real elements, max never sees padding. A window with no real element at all (ceil rounding
 * past the padding, or padding larger than the window) yields 0 for every kind, as WPT's
 * maxPool2d "ceil and symmetric padding" case expects. */
static enum webnn_status run_pool2d(const struct ref_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_pool2d_attrs *p = &s->p.pool2d;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	const uint64_t *is = p->in_stride, *os = p->out_stride;
	bool flt = ref_is_float(p->type);
	(void)diag;
	for (uint32_t n = 0; n < p->n; n++)
		for (uint32_t c = 0; c < p->c; c++)
			for (uint32_t oy = 0; oy < p->out_h; oy++)
				for (uint32_t ox = 0; ox < p->out_w; ox++) {
					double acc = p->kind == WNN_POOL_MAX ? -INFINITY : 0;
					__int128 iacc = 0;
					uint64_t count = 0;
					for (uint32_t ky = 0; ky < p->win_h; ky++) {
						int64_t iy = (int64_t)oy * p->stride_h +
							     (int64_t)ky * p->dil_h - p->pad_top;
						if (iy < 0 || iy >= p->h)
							continue;
						for (uint32_t kx = 0; kx < p->win_w; kx++) {
							int64_t ix = (int64_t)ox * p->stride_w +
								     (int64_t)kx * p->dil_w -
								     p->pad_left;
							if (ix < 0 || ix >= p->w)
								continue;
							uint64_t ii = n * is[0] + c * is[1] +
								      (uint64_t)iy * is[2] +
								      (uint64_t)ix * is[3];
							if (!flt) {
								__int128 v = ref_load_i(I, p->type, ii);
								if (count == 0 || v > iacc)
									iacc = v;
							} else {
								double v = ref_load_f(I, p->type, ii);
								/* NaN propagates, as max of the window */
								if (p->kind == WNN_POOL_MAX) {
									if (count == 0 || isnan(v) || v > acc)
										acc = v;
								} else if (p->kind == WNN_POOL_L2)
									acc += v * v;
								else
									acc += v;
							}
							count++;
						}
					}
					uint64_t oi = n * os[0] + c * os[1] + oy * os[2] + ox * os[3];
					if (!flt) {
						ref_store_i(O, p->type, oi, iacc);
						continue;
					}
					if (count == 0)
						acc = 0;
					else if (p->kind == WNN_POOL_AVG)
						acc = acc / (double)count;
					else if (p->kind == WNN_POOL_L2)
						acc = sqrt(acc);
					ref_store_f(O, p->type, oi, acc);
				}
	return WEBNN_STATUS_OK;
}

enum webnn_status ref_prepare_conv(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct ref_step *s, struct wnn_diag *diag)
{
	enum webnn_status st;
	enum wnn_dtype t;
	if (s->op == WNN_OP_CONV2D) {
		st = wnn_resolve_conv2d(op, descs, n_descs, &s->p.conv2d, diag);
		t = s->p.conv2d.type;
		s->run = run_conv2d;
	} else {
		st = wnn_resolve_pool2d(op, descs, n_descs, &s->p.pool2d, diag);
		t = s->p.pool2d.type;
		s->run = run_pool2d;
	}
	if (st != WEBNN_STATUS_OK)
		return st;
	return ref_check_supported(s->op, t, diag);
}
