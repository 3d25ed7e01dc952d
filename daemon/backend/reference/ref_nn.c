/* Reference convTranspose2d (gather form of the scatter definition), resample2d, quantizeLinear/dequantizeLinear. */
#include <math.h>

#include "daemon/backend/reference/ref.h"

/* Output (oy, ox) collects input (iy, ix) and tap (ky, kx) where
 * oy = iy * stride + ky * dilation - pad_top, i.e. iy = (oy + pad_top - ky * dil) / stride
 * when that division is exact. */
static enum webnn_status run_conv_transpose2d(const struct ref_step *s, void *const *bufs,
					      struct wnn_diag *diag)
{
	const struct wnn_conv_transpose2d_attrs *p = &s->p.conv_transpose2d;
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

/* Interpolated values of integer tensors round to nearest (ties to even) and saturate. */
static void store_any(void *O, enum wnn_dtype t, uint64_t i, double v)
{
	if (ref_is_float(t))
		ref_store_f(O, t, i, v);
	else
		ref_store_sat(O, t, i, rint(v));
}

static double load_any(const void *I, enum wnn_dtype t, uint64_t i)
{
	return ref_is_float(t) ? ref_load_f(I, t, i) : (double)ref_load_i(I, t, i);
}

static enum webnn_status run_resample(const struct ref_step *s, void *const *bufs,
				      struct wnn_diag *diag)
{
	const struct wnn_resample_attrs *p = &s->p.resample;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	const uint32_t a0 = p->axes[0], a1 = p->axes[1];
	(void)diag;
	for (uint64_t j = 0; j < p->count; j++) {
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

/* quantizeLinear: x / scale rounded to float32 (also for float16 inputs: their quotient can
 * exceed float16 precision, and WPT expects the float32 result), then to nearest even, plus the
 * zero point, saturated to the output type. dequantizeLinear: (x - zeroPoint) * scale. */
static enum webnn_status run_quantize(const struct ref_step *s, void *const *bufs,
				      struct wnn_diag *diag)
{
	const struct wnn_quantize_attrs *p = &s->p.quantize;
	const void *I = bufs[p->input], *S = bufs[p->scale], *Z = bufs[p->zero_point];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t i = 0; i < p->count; i++) {
		uint64_t k = wnn_quantize_index(p, i);
		double scale = ref_load_f(S, p->scale_type, k);
		double zp = (double)ref_load_i(Z, p->zp_type, k);
		if (p->op == WNN_OP_QUANTIZE_LINEAR) {
			double q = wnn_cast_float(ref_load_f(I, p->in_type, i) / scale, WNN_F32);
			ref_store_sat(O, p->out_type, i, rint(q) + zp);
		} else {
			double x = (double)ref_load_i(I, p->in_type, i);
			ref_store_f(O, p->out_type, i, (x - zp) * scale);
		}
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status ref_prepare_nn(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct ref_step *s, struct wnn_diag *diag)
{
	enum webnn_status st;
	enum wnn_dtype t;
	switch (wnn_ops[s->op].attrs) {
	case WEBNN__IPC__OPERATION__ATTRS_CONV_TRANSPOSE2D:
		st = wnn_resolve_conv_transpose2d(op, descs, n_descs, &s->p.conv_transpose2d, diag);
		t = s->p.conv_transpose2d.type;
		s->run = run_conv_transpose2d;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_RESAMPLE2D:
		st = wnn_resolve_resample(op, descs, n_descs, &s->p.resample, diag);
		t = s->p.resample.type;
		s->run = run_resample;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_QUANTIZE_LINEAR:
		st = wnn_resolve_quantize(op, descs, n_descs, &s->p.quantize, diag);
		t = s->p.quantize.in_type;
		s->run = run_quantize;
		if (st == WEBNN_STATUS_OK) {
			const struct wnn_quantize_attrs *q = &s->p.quantize;
			enum wnn_dtype z = q->zp_type;
			bool zp_ok = z == WNN_I8 || z == WNN_U8 || z == WNN_I32 || z == WNN_U32;
			if (!zp_ok || !ref_is_float(q->scale_type) ||
			    (q->op == WNN_OP_QUANTIZE_LINEAR ? !ref_is_float(q->in_type)
							     : ref_is_float(q->in_type)))
				return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
						    "%s: data types %s/%s/%s are not supported by "
						    "the reference backend", wnn_ops[s->op].name,
						    wnn_dtype_name(q->in_type),
						    wnn_dtype_name(q->scale_type),
						    wnn_dtype_name(z));
		}
		break;
	default:
		return ref_check_supported(s->op, WNN_DT_NONE, diag);
	}
	if (st != WEBNN_STATUS_OK)
		return st;
	return ref_check_supported(s->op, t, diag);
}
