/* Host kernels: cast and quantizeLinear/dequantizeLinear. */
#include <math.h>

#include "daemon/backend/host/kernels.h"

static enum webnn_status run_cast(const struct hk_step *s, void *const *bufs,
				  struct wnn_diag *diag)
{
	const struct wnn_cast_attrs *p = &s->a->cast;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t i = 0; i < p->count; i++) {
		if (hk_poll(s, i))
			return hk_cancel_status(s, diag);
		if (hk_is_float(p->in_type)) {
			double v = hk_load_f(I, p->in_type, i);
			if (hk_is_float(p->out_type))
				hk_store_f(O, p->out_type, i, v);
			else
				hk_store_sat(O, p->out_type, i, v);
		} else if (hk_is_float(p->out_type)) {
			/* one rounding straight from the integer (a double could round twice) */
			float f = hk_is_signed_int(p->in_type)
					  ? (float)(int64_t)hk_load_i(I, p->in_type, i)
					  : (float)hk_load_u(I, p->in_type, i);
			hk_store_f(O, p->out_type, i, f);
		} else {
			hk_store_i(O, p->out_type, i, hk_load_i(I, p->in_type, i));
		}
	}
	return WEBNN_STATUS_OK;
}

/* quantizeLinear: x / scale rounded to float32 (also for float16 inputs: their quotient can
 * exceed float16 precision, and WPT expects the float32 result), then to nearest even, plus the
 * zero point, saturated to the output type. dequantizeLinear: (x - zeroPoint) * scale. */
static enum webnn_status run_quantize(const struct hk_step *s, void *const *bufs,
				      struct wnn_diag *diag)
{
	const struct wnn_quantize_attrs *p = &s->a->quantize;
	const void *I = bufs[p->input], *S = bufs[p->scale], *Z = bufs[p->zero_point];
	void *O = bufs[p->output];
	(void)diag;
	for (uint64_t i = 0; i < p->count; i++) {
		if (hk_poll(s, i))
			return hk_cancel_status(s, diag);
		uint64_t k = wnn_quantize_index(p, i);
		double scale = hk_load_f(S, p->scale_type, k);
		double zp = (double)hk_load_i(Z, p->zp_type, k);
		if (p->op == WNN_OP_QUANTIZE_LINEAR) {
			double q = wnn_cast_float(hk_load_f(I, p->in_type, i) / scale, WNN_F32);
			hk_store_sat(O, p->out_type, i, rint(q) + zp);
		} else {
			double x = (double)hk_load_i(I, p->in_type, i);
			hk_store_f(O, p->out_type, i, (x - zp) * scale);
		}
	}
	/* a packed output of odd count ends in a high nibble no element owns: 0 by definition */
	if (wnn_dtype_is_4bit(p->out_type) && (p->count & 1))
		((uint8_t *)O)[p->count / 2] &= 0x0f;
	return WEBNN_STATUS_OK;
}

/* The zero point and scale types the quantize kernel implements. */
static enum webnn_status quantize_supported(const struct graph_node *n, struct wnn_diag *diag)
{
	const struct wnn_quantize_attrs *q = &n->attrs.quantize;
	enum wnn_dtype z = q->zp_type;
	bool zp_ok = z == WNN_I8 || z == WNN_U8 || z == WNN_I32 || z == WNN_U32 ||
		     wnn_dtype_is_4bit(z);
	if (!zp_ok || !hk_is_float(q->scale_type) ||
	    (q->op == WNN_OP_QUANTIZE_LINEAR ? !hk_is_float(q->in_type) : hk_is_float(q->in_type)))
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "%s: data types %s/%s/%s are not supported by the reference backend",
				    wnn_ops[n->op].name, wnn_dtype_name(q->in_type),
				    wnn_dtype_name(q->scale_type), wnn_dtype_name(z));
	return hk_check_supported(n->op, q->in_type, diag);
}

enum webnn_status hk_cast_prepare(const struct graph_node *n, struct hk_step *s,
				  struct wnn_diag *diag)
{
	if (n->op == WNN_OP_CAST) {
		s->run = run_cast;
		return hk_check_supported(n->op, n->attrs.cast.in_type, diag);
	}
	s->run = run_quantize;
	return quantize_supported(n, diag);
}
