/* Host kernels: conv2d (direct loops in either layout, math in double) and convTranspose2d (gather form of the scatter definition). */
#include <math.h>

#include "daemon/backend/host/kernels.h"

static enum webnn_status run_conv2d(const struct hk_step *s, void *const *bufs,
				    struct wnn_diag *diag)
{
	const struct wnn_conv2d_attrs *p = &s->a->conv2d;
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
					if (hk_poll(s, ox))
						return hk_cancel_status(s, diag);
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
								acc += hk_load_f(I, p->type, ii) *
								       hk_load_f(F, p->type, fi);
							}
						}
					}
					if (B)
						acc += hk_load_f(B, p->type, oc);
					hk_store_f(O, p->type,
						   n * os[0] + oc * os[1] + oy * os[2] + ox * os[3], acc);
				}
		}
	return WEBNN_STATUS_OK;
}

/* Output (oy, ox) collects input (iy, ix) and tap (ky, kx) where
 * oy = iy * stride + ky * dilation - pad_top, i.e. iy = (oy + pad_top - ky * dil) / stride
 * when that division is exact. */
static enum webnn_status run_conv_transpose2d(const struct hk_step *s, void *const *bufs,
					      struct wnn_diag *diag)
{
	const struct wnn_conv_transpose2d_attrs *p = &s->a->conv_transpose2d;
	const void *I = bufs[p->input], *F = bufs[p->filter];
	const void *B = p->has_bias ? bufs[p->bias] : NULL;
	void *O = bufs[p->output];
	const uint64_t *is = p->in_stride, *fs = p->filter_stride, *os = p->out_stride;
	(void)diag;
	for (uint32_t n = 0; n < p->n; n++)
		for (uint32_t oc = 0; oc < p->c_out; oc++) {
			uint32_t g = oc / p->c_out_g, o = oc % p->c_out_g;
			for (uint32_t oy = 0; oy < p->out_h; oy++)
				for (uint32_t ox = 0; ox < p->out_w; ox++) {
					if (hk_poll(s, ox))
						return hk_cancel_status(s, diag);
					double acc = 0;
					for (uint32_t ky = 0; ky < p->kh; ky++) {
						int64_t ty = (int64_t)oy + p->pad_top -
							     (int64_t)ky * p->dil_h;
						if (ty < 0 || ty % p->stride_h)
							continue;
						int64_t iy = ty / p->stride_h;
						if (iy >= p->h)
							continue;
						for (uint32_t kx = 0; kx < p->kw; kx++) {
							int64_t tx = (int64_t)ox + p->pad_left -
								     (int64_t)kx * p->dil_w;
							if (tx < 0 || tx % p->stride_w)
								continue;
							int64_t ix = tx / p->stride_w;
							if (ix >= p->w)
								continue;
							for (uint32_t c = 0; c < p->c_in_g; c++) {
								uint64_t ic = (uint64_t)g * p->c_in_g + c;
								uint64_t ii = n * is[0] + ic * is[1] +
									      (uint64_t)iy * is[2] +
									      (uint64_t)ix * is[3];
								uint64_t fi = ic * fs[0] + o * fs[1] +
									      ky * fs[2] + kx * fs[3];
								acc += hk_load_f(I, p->type, ii) *
								       hk_load_f(F, p->type, fi);
							}
						}
					}
					if (B)
						acc += hk_load_f(B, p->type, oc);
					hk_store_f(O, p->type,
						   n * os[0] + oc * os[1] + oy * os[2] + ox * os[3], acc);
				}
		}
	return WEBNN_STATUS_OK;
}

enum webnn_status hk_conv_prepare(const struct graph_node *n, struct hk_step *s,
				  struct wnn_diag *diag)
{
	if (n->op == WNN_OP_CONV2D) {
		s->run = run_conv2d;
		return hk_check_supported(n->op, n->attrs.conv2d.type, diag);
	}
	s->run = run_conv_transpose2d;
	return hk_check_supported(n->op, n->attrs.conv_transpose2d.type, diag);
}
