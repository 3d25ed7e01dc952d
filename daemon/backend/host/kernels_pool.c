/* Host kernels: averagePool2d, maxPool2d and l2Pool2d: direct loops over windows in either layout. */
#include <math.h>

#include "daemon/backend/host/kernels.h"

/* Positions outside the input are skipped: average divides by the real elements only, l2 sums
 * real elements, max never sees padding. A window with no real element at all (ceil rounding
 * past the padding, or padding larger than the window) yields 0 for every kind, as WPT's
 * maxPool2d "ceil and symmetric padding" case expects. */
static enum webnn_status run_pool2d(const struct hk_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_pool2d_attrs *p = &s->a->pool2d;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	const uint64_t *is = p->in_stride, *os = p->out_stride;
	bool flt = hk_is_float(p->type);
	(void)diag;
	for (uint32_t n = 0; n < p->n; n++)
		for (uint32_t c = 0; c < p->c; c++)
			for (uint32_t oy = 0; oy < p->out_h; oy++)
				for (uint32_t ox = 0; ox < p->out_w; ox++) {
					if (hk_poll(s, ox))
						return hk_cancel_status(s, diag);
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
								__int128 v = hk_load_i(I, p->type, ii);
								if (count == 0 || v > iacc)
									iacc = v;
							} else {
								double v = hk_load_f(I, p->type, ii);
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
						hk_store_i(O, p->type, oi, iacc);
						continue;
					}
					if (count == 0)
						acc = 0;
					else if (p->kind == WNN_POOL_AVG)
						acc = acc / (double)count;
					else if (p->kind == WNN_POOL_L2)
						acc = sqrt(acc);
					hk_store_f(O, p->type, oi, acc);
				}
	return WEBNN_STATUS_OK;
}

enum webnn_status hk_pool_prepare(const struct graph_node *n, struct hk_step *s,
				  struct wnn_diag *diag)
{
	s->run = run_pool2d;
	return hk_check_supported(n->op, n->attrs.pool2d.type, diag);
}
