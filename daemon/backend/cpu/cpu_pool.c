/* The cpu backend's pool family: averagePool2d through oneDNN pooling, max/l2 pooling (and what oneDNN cannot express) as threaded C loops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"

/* cpu_normalization.c: runs the float32 kernel prepared in s on float32 copies of the node's
 * float16 operands (its declaration belongs in cpu.h). */

/*
 * Semantics (kernels_pool.c): window positions outside the input are skipped, average divides by
 * the real elements only, a window with no real element gives 0, and max propagates NaN.
 * oneDNN's avg_exclude_padding is the same average as long as every window holds an element;
 * its max pooling compares with "less than" and drops NaN, so max stays in C (the loops are
 * memory bound in NHWC, where the channels are the contiguous inner loop).
 */

#define CPU_PAR_MIN 32768 /* output elements times window below which threads cost more */

/* The valid window offsets [*k0, *k1) along one axis for output coordinate o. */
static void cpu_pool_range(uint32_t o, uint32_t stride, uint32_t dil, uint32_t pad, uint32_t win,
			   uint32_t size, uint32_t *k0, uint32_t *k1)
{
	uint32_t lo = win, hi = 0;
	for (uint32_t k = 0; k < win; k++) {
		int64_t i = (int64_t)o * stride + (int64_t)k * dil - pad;
		if (i < 0 || i >= size)
			continue;
		if (k < lo)
			lo = k;
		hi = k + 1;
	}
	*k0 = lo < hi ? lo : 0;
	*k1 = lo < hi ? hi : 0;
}

/* One output pixel's channels [c0, c0 + nb) in NHWC: the window's rows of nb channels
 * accumulated in a local block, which stays in vector registers when nb is the constant
 * CPU_POOL_CB (the function is inlined with it). */
#define CPU_POOL_CB 64
static inline __attribute__((always_inline)) void
cpu_pool_block(const struct wnn_pool2d_attrs *p, const float *I, float *restrict o, uint32_t n,
	       uint32_t oy, uint32_t ox, uint32_t ky0, uint32_t ky1, uint32_t kx0, uint32_t kx1,
	       uint64_t c0, uint64_t nb)
{
	const uint64_t *is = p->in_stride;
	const enum wnn_pool_kind kind = p->kind;
	float acc[CPU_POOL_CB];
#pragma omp simd
	for (uint64_t c = 0; c < nb; c++)
		acc[c] = kind == WNN_POOL_MAX ? -INFINITY : 0;
	for (uint32_t ky = ky0; ky < ky1; ky++) {
		uint64_t iy = (uint64_t)oy * p->stride_h + (uint64_t)ky * p->dil_h - p->pad_top;
		for (uint32_t kx = kx0; kx < kx1; kx++) {
			uint64_t ix = (uint64_t)ox * p->stride_w + (uint64_t)kx * p->dil_w - p->pad_left;
			const float *restrict x = I + n * is[0] + iy * is[2] + ix * is[3] + c0;
			if (kind == WNN_POOL_MAX) {
#pragma omp simd
				for (uint64_t c = 0; c < nb; c++)
					acc[c] = x[c] > acc[c] || x[c] != x[c] ? x[c] : acc[c];
			} else if (kind == WNN_POOL_L2) {
#pragma omp simd
				for (uint64_t c = 0; c < nb; c++)
					acc[c] += x[c] * x[c];
			} else {
#pragma omp simd
				for (uint64_t c = 0; c < nb; c++)
					acc[c] += x[c];
			}
		}
	}
	const uint64_t count = (uint64_t)(ky1 - ky0) * (kx1 - kx0);
	if (count == 0) {
		memset(o + c0, 0, nb * sizeof *o);
	} else if (kind == WNN_POOL_AVG) {
		const float d = (float)count;
#pragma omp simd
		for (uint64_t c = 0; c < nb; c++)
			o[c0 + c] = acc[c] / d;
	} else if (kind == WNN_POOL_L2) {
#pragma omp simd
		for (uint64_t c = 0; c < nb; c++)
			o[c0 + c] = sqrtf(acc[c]);
	} else {
#pragma omp simd
		for (uint64_t c = 0; c < nb; c++)
			o[c0 + c] = acc[c];
	}
}

/* float32 NHWC (channel stride 1 in and out): one task per output row (n, oy), channels as
 * the vector loop in blocks of CPU_POOL_CB. */
__attribute__((target_clones("avx512f", "avx2", "default"))) static void
cpu_pool_nhwc_row(const struct wnn_pool2d_attrs *p, const float *I, float *O, uint32_t n,
		  uint32_t oy)
{
	const uint64_t *os = p->out_stride;
	const uint64_t C = p->c;
	uint32_t ky0, ky1;
	cpu_pool_range(oy, p->stride_h, p->dil_h, p->pad_top, p->win_h, p->h, &ky0, &ky1);
	for (uint32_t ox = 0; ox < p->out_w; ox++) {
		float *o = O + n * os[0] + (uint64_t)oy * os[2] + (uint64_t)ox * os[3];
		uint32_t kx0, kx1;
		cpu_pool_range(ox, p->stride_w, p->dil_w, p->pad_left, p->win_w, p->w, &kx0, &kx1);
		uint64_t c0 = 0;
		for (; c0 + CPU_POOL_CB <= C; c0 += CPU_POOL_CB)
			cpu_pool_block(p, I, o, n, oy, ox, ky0, ky1, kx0, kx1, c0, CPU_POOL_CB);
		if (c0 < C)
			cpu_pool_block(p, I, o, n, oy, ox, ky0, ky1, kx0, kx1, c0, C - c0);
	}
}

/* Any layout: one task per (n, c, oy); the window rows are read along x. */
static void cpu_pool_f32_row(const struct wnn_pool2d_attrs *p, const float *I, float *O,
			     uint32_t n, uint32_t c, uint32_t oy)
{
	const uint64_t *is = p->in_stride, *os = p->out_stride;
	const uint64_t sx = is[3] * p->dil_w;
	const enum wnn_pool_kind kind = p->kind;
	uint32_t ky0, ky1;
	cpu_pool_range(oy, p->stride_h, p->dil_h, p->pad_top, p->win_h, p->h, &ky0, &ky1);
	const float *base = I + n * is[0] + c * is[1];
	float *orow = O + n * os[0] + c * os[1] + (uint64_t)oy * os[2];
	for (uint32_t ox = 0; ox < p->out_w; ox++) {
		uint32_t kx0, kx1;
		cpu_pool_range(ox, p->stride_w, p->dil_w, p->pad_left, p->win_w, p->w, &kx0, &kx1);
		float acc = kind == WNN_POOL_MAX ? -INFINITY : 0;
		bool nan = false;
		const uint64_t ix0 = (uint64_t)ox * p->stride_w + (uint64_t)kx0 * p->dil_w - p->pad_left;
		for (uint32_t ky = ky0; ky < ky1; ky++) {
			uint64_t iy = (uint64_t)oy * p->stride_h + (uint64_t)ky * p->dil_h - p->pad_top;
			const float *x = base + iy * is[2] + ix0 * is[3];
			if (kind == WNN_POOL_MAX)
				for (uint32_t k = kx0; k < kx1; k++, x += sx) {
					acc = *x > acc ? *x : acc;
					nan |= *x != *x;
				}
			else if (kind == WNN_POOL_L2)
				for (uint32_t k = kx0; k < kx1; k++, x += sx)
					acc += *x * *x;
			else
				for (uint32_t k = kx0; k < kx1; k++, x += sx)
					acc += *x;
		}
		uint64_t count = (uint64_t)(ky1 - ky0) * (kx1 - kx0);
		if (count == 0)
			acc = 0;
		else if (nan)
			acc = NAN;
		else if (kind == WNN_POOL_AVG)
			acc /= (float)count;
		else if (kind == WNN_POOL_L2)
			acc = sqrtf(acc);
		orow[(uint64_t)ox * os[3]] = acc;
	}
}

static enum webnn_status cpu_run_pool(const struct cpu_step *s, void *const *bufs,
				      const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_pool2d_attrs *p = &s->n->attrs.pool2d;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	const uint64_t work = (uint64_t)p->n * p->c * p->out_h * p->out_w * p->win_h * p->win_w;
	(void)diag;
	if (p->in_stride[1] == 1 && p->out_stride[1] == 1) {
		const uint64_t rows = (uint64_t)p->n * p->out_h;
#pragma omp parallel for num_threads(x->threads) if (work > CPU_PAR_MIN && rows > 1)
		for (uint64_t r = 0; r < rows; r++) {
			if (cpu_cancelled(x))
				continue;
			cpu_pool_nhwc_row(p, I, O, (uint32_t)(r / p->out_h), (uint32_t)(r % p->out_h));
		}
		return WEBNN_STATUS_OK;
	}
	const uint64_t rows = (uint64_t)p->n * p->c * p->out_h;
#pragma omp parallel for num_threads(x->threads) if (work > CPU_PAR_MIN && rows > 1)
	for (uint64_t r = 0; r < rows; r++) {
		if (cpu_cancelled(x))
			continue;
		uint64_t nc = r / p->out_h;
		cpu_pool_f32_row(p, I, O, (uint32_t)(nc / p->c), (uint32_t)(nc % p->c),
				 (uint32_t)(r % p->out_h));
	}
	return WEBNN_STATUS_OK;
}

/* maxPool2d on integer types, any layout: one task per output row (n, oy); the output pixel
 * is the accumulator (its channels contiguous in NHWC). */
#define CPU_POOL_INT(T, NAME)                                                                  \
	static void NAME(const struct wnn_pool2d_attrs *p, const T *I, T *O, uint32_t n,      \
			 uint32_t oy)                                                          \
	{                                                                                      \
		const uint64_t *is = p->in_stride, *os = p->out_stride;                        \
		const uint64_t C = p->c, ic = is[1], oc = os[1];                               \
		uint32_t ky0, ky1;                                                             \
		cpu_pool_range(oy, p->stride_h, p->dil_h, p->pad_top, p->win_h, p->h, &ky0,    \
			       &ky1);                                                          \
		for (uint32_t ox = 0; ox < p->out_w; ox++) {                                   \
			T *o = O + n * os[0] + (uint64_t)oy * os[2] + (uint64_t)ox * os[3];    \
			uint32_t kx0, kx1;                                                     \
			cpu_pool_range(ox, p->stride_w, p->dil_w, p->pad_left, p->win_w, p->w, \
				       &kx0, &kx1);                                            \
			bool first = true;                                                     \
			for (uint32_t ky = ky0; ky < ky1; ky++) {                              \
				uint64_t iy = (uint64_t)oy * p->stride_h +                     \
					      (uint64_t)ky * p->dil_h - p->pad_top;            \
				for (uint32_t kx = kx0; kx < kx1; kx++) {                      \
					uint64_t ix = (uint64_t)ox * p->stride_w +             \
						      (uint64_t)kx * p->dil_w - p->pad_left;   \
					const T *x = I + n * is[0] + iy * is[2] + ix * is[3];  \
					if (first)                                             \
						for (uint64_t c = 0; c < C; c++)               \
							o[c * oc] = x[c * ic];                 \
					else                                                   \
						for (uint64_t c = 0; c < C; c++)               \
							o[c * oc] = x[c * ic] > o[c * oc]      \
									    ? x[c * ic]        \
									    : o[c * oc];       \
					first = false;                                         \
				}                                                              \
			}                                                                      \
			if (first) /* no input element in the window */                        \
				for (uint64_t c = 0; c < C; c++)                               \
					o[c * oc] = 0;                                         \
		}                                                                              \
	}
CPU_POOL_INT(int8_t, cpu_pool_i8)
CPU_POOL_INT(uint8_t, cpu_pool_u8)
CPU_POOL_INT(int32_t, cpu_pool_i32)
CPU_POOL_INT(uint32_t, cpu_pool_u32)
CPU_POOL_INT(int64_t, cpu_pool_i64)
CPU_POOL_INT(uint64_t, cpu_pool_u64)

static enum webnn_status cpu_run_pool_int(const struct cpu_step *s, void *const *bufs,
					  const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_pool2d_attrs *p = &s->n->attrs.pool2d;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	const uint64_t work = (uint64_t)p->n * p->c * p->out_h * p->out_w * p->win_h * p->win_w;
	const uint64_t rows = (uint64_t)p->n * p->out_h;
	const enum wnn_dtype t = p->type;
	(void)diag;
#pragma omp parallel for num_threads(x->threads) if (work > CPU_PAR_MIN && rows > 1)
	for (uint64_t r = 0; r < rows; r++) {
		if (cpu_cancelled(x))
			continue;
		uint32_t n = (uint32_t)(r / p->out_h), oy = (uint32_t)(r % p->out_h);
		switch (t) {
		case WNN_I8:
			cpu_pool_i8(p, I, O, n, oy);
			break;
		case WNN_U8:
			cpu_pool_u8(p, I, O, n, oy);
			break;
		case WNN_I32:
			cpu_pool_i32(p, I, O, n, oy);
			break;
		case WNN_U32:
			cpu_pool_u32(p, I, O, n, oy);
			break;
		case WNN_I64:
			cpu_pool_i64(p, I, O, n, oy);
			break;
		default:
			cpu_pool_u64(p, I, O, n, oy);
			break;
		}
	}
	return WEBNN_STATUS_OK;
}

/* True when every output position's window holds at least one input element. */
static bool cpu_pool_no_empty_window(const struct wnn_pool2d_attrs *p)
{
	uint32_t k0, k1;
	for (uint32_t o = 0; o < p->out_h; o++) {
		cpu_pool_range(o, p->stride_h, p->dil_h, p->pad_top, p->win_h, p->h, &k0, &k1);
		if (k1 == 0)
			return false;
	}
	for (uint32_t o = 0; o < p->out_w; o++) {
		cpu_pool_range(o, p->stride_w, p->dil_w, p->pad_left, p->win_w, p->w, &k0, &k1);
		if (k1 == 0)
			return false;
	}
	return true;
}

/* oneDNN's padding_r for which its output-size formula gives out (it counts only real
 * elements in avg_exclude_padding, so padding past what WebNN gave changes nothing). */
static int64_t cpu_pool_pad_r(uint32_t out, uint32_t in, uint32_t stride, uint32_t dil,
			      uint32_t win, uint32_t pad_l)
{
	int64_t ext = (int64_t)(win - 1) * dil + 1;
	int64_t pr = (int64_t)(out - 1) * stride + ext - in - pad_l;
	if (pr < 0)
		pr = 0;
	if ((in + pad_l + pr - ext) / stride + 1 != out)
		return -1;
	return pr;
}

/* OK with s->run NULL when oneDNN cannot do it (or only with its reference kernel). */
static enum webnn_status cpu_pool_dnnl(const struct cpu_build *b, struct cpu_step *s,
				       struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	const struct wnn_pool2d_attrs *p = &n->attrs.pool2d;
	int64_t pr_h = cpu_pool_pad_r(p->out_h, p->h, p->stride_h, p->dil_h, p->win_h, p->pad_top);
	int64_t pr_w = cpu_pool_pad_r(p->out_w, p->w, p->stride_w, p->dil_w, p->win_w, p->pad_left);
	if (pr_h < 0 || pr_w < 0 || !cpu_pool_no_empty_window(p))
		return WEBNN_STATUS_OK;
	dnnl_memory_desc_t src, dst;
	int64_t sd[4] = { p->n, p->c, p->h, p->w }, dd[4] = { p->n, p->c, p->out_h, p->out_w };
	int64_t ss[4], ds[4];
	for (int i = 0; i < 4; i++) {
		ss[i] = (int64_t)p->in_stride[i];
		ds[i] = (int64_t)p->out_stride[i];
	}
	dnnl_status_t st = cpu_dnnl_md_strided(&src, 4, sd, ss, dnnl_f32);
	if (st == dnnl_success)
		st = cpu_dnnl_md_strided(&dst, 4, dd, ds, dnnl_f32);
	if (st != dnnl_success)
		return cpu_dnnl_check(st, n, "memory descriptor", diag);
	dnnl_dims_t strides = { p->stride_h, p->stride_w }, kernel = { p->win_h, p->win_w };
	dnnl_dims_t dil = { (int64_t)p->dil_h - 1, (int64_t)p->dil_w - 1 };
	dnnl_dims_t pl = { p->pad_top, p->pad_left }, pr = { pr_h, pr_w };
	dnnl_pooling_v2_desc_t d;
	st = dnnl_pooling_v2_forward_desc_init(&d, dnnl_forward_inference,
					       dnnl_pooling_avg_exclude_padding, &src, &dst, strides,
					       kernel, dil, pl, pr);
	if (st == dnnl_unimplemented || st == dnnl_invalid_arguments)
		return WEBNN_STATUS_OK; /* a shape oneDNN refuses: the C loops take it */
	if (st != dnnl_success)
		return cpu_dnnl_check(st, n, "pooling descriptor", diag);
	dnnl_primitive_attr_t attr;
	enum webnn_status ret = cpu_dnnl_attr_create(&attr, n, diag);
	if (ret != WEBNN_STATUS_OK)
		return ret;
	dnnl_primitive_desc_t pd;
	st = dnnl_primitive_desc_create(&pd, &d, attr, b->engine, NULL);
	dnnl_primitive_attr_destroy(attr);
	if (st == dnnl_unimplemented)
		return WEBNN_STATUS_OK;
	if (st != dnnl_success)
		return cpu_dnnl_check(st, n, "pooling primitive descriptor", diag);
	const char *impl = NULL;
	if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success &&
	    impl && strncmp(impl, "jit", 3) != 0) {
		dnnl_primitive_desc_destroy(pd); /* its simple/reference loops: ours are faster */
		return WEBNN_STATUS_OK;
	}
	struct cpu_dnnl_prim *prim = cpu_dnnl_step(s);
	if (!prim) {
		dnnl_primitive_desc_destroy(pd);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "averagePool2d: out of memory");
	}
	ret = cpu_dnnl_create(b, prim, pd, n, diag);
	if (ret == WEBNN_STATUS_OK)
		ret = cpu_dnnl_bind(b, prim, DNNL_ARG_SRC, &src, p->input, n, diag);
	if (ret == WEBNN_STATUS_OK)
		ret = cpu_dnnl_bind(b, prim, DNNL_ARG_DST, &dst, p->output, n, diag);
	return ret;
}

enum webnn_status cpu_pool_prepare(const struct cpu_build *b, struct cpu_step *s,
				   struct wnn_diag *diag)
{
	const struct wnn_pool2d_attrs *p = &s->n->attrs.pool2d;
	s->run = NULL;
	switch (p->type) {
	case WNN_I8:
	case WNN_U8:
	case WNN_I32:
	case WNN_U32:
	case WNN_I64:
	case WNN_U64:
		if (p->kind == WNN_POOL_MAX) {
			s->run = cpu_run_pool_int;
			s->impl = "C";
		}
		return WEBNN_STATUS_OK;
	case WNN_F32:
	case WNN_F16:
		break;
	default:
		return WEBNN_STATUS_OK;
	}
	if (p->kind == WNN_POOL_AVG) {
		enum webnn_status st = cpu_pool_dnnl(b, s, diag);
		if (st != WEBNN_STATUS_OK)
			return st;
	}
	if (!s->run) {
		s->run = cpu_run_pool;
		s->impl = "C";
	}
	/* the kernels read and write float32 */
	return p->type == WNN_F16 ? cpu_f16_wrap(s, diag) : WEBNN_STATUS_OK;
}
