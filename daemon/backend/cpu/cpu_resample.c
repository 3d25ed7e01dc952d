/* The cpu backend's resample family: resample2d as threaded C loops over precomputed source-coordinate tables. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"

/* cpu_normalization.c: runs the float32 kernel prepared in s on float32 copies of the node's
 * float16 operands (its declaration belongs in cpu.h). */

/*
 * Why not oneDNN's resampling: its nearest mode rounds half away from zero (roundf) where the
 * spec takes ceil(x - 0.5), so every 2x downscale picks the other neighbour. Its linear mode
 * matches, but with the coordinate tables computed once here (through the same
 * wnn_resample_coord/wnn_resample_nearest the reference uses) the C loop is a contiguous
 * blend of source rows (NHWC, or any layout whose last axis is not resized) or a table gather
 * along the row (NCHW), both memory bound.
 */

#define CPU_PAR_MIN 32768 /* output elements below which threads cost more than they save */

struct cpu_resample {
	uint32_t *lo[2], *hi[2], *near[2]; /* per resized axis i (axes[i]), per output coordinate */
	float *t[2];                       /* linear weight of hi */
	double *td[2];                     /* the same in double (int8/uint8: the reference's sums) */
};

static void cpu_resample_free(void *priv)
{
	struct cpu_resample *r = priv;
	for (int i = 0; i < 2; i++) {
		free(r->lo[i]);
		free(r->hi[i]);
		free(r->near[i]);
		free(r->t[i]);
		free(r->td[i]);
	}
	free(r);
}

/* One output row (all of the last dimension) of linear float32 resampling. */
static void cpu_resample_linear_row(const struct wnn_resample_attrs *p,
				    const struct cpu_resample *r, const float *I, float *restrict o,
				    const uint32_t c[3])
{
	const uint32_t a0 = p->axes[0], a1 = p->axes[1];
	const uint64_t *st = p->in_strides;
	const uint64_t D = p->out_dims[3];
	uint64_t base = 0;
	for (uint32_t d = 0; d < 3; d++)
		if (d != a0 && d != a1)
			base += c[d] * st[d];
	if (a0 != 3 && a1 != 3) {
		/* both resized axes are outer: blend four contiguous source rows */
		const uint64_t s0 = st[a0], s1 = st[a1];
		const uint32_t o0 = c[a0], o1 = c[a1];
		const float *restrict v00 = I + base + r->lo[0][o0] * s0 + r->lo[1][o1] * s1;
		const float *restrict v01 = I + base + r->lo[0][o0] * s0 + r->hi[1][o1] * s1;
		const float *restrict v10 = I + base + r->hi[0][o0] * s0 + r->lo[1][o1] * s1;
		const float *restrict v11 = I + base + r->hi[0][o0] * s0 + r->hi[1][o1] * s1;
		const float t0 = r->t[0][o0], t1 = r->t[1][o1];
#pragma omp simd
		for (uint64_t j = 0; j < D; j++)
			o[j] = (v00[j] * (1 - t1) + v01[j] * t1) * (1 - t0) +
			       (v10[j] * (1 - t1) + v11[j] * t1) * t0;
		return;
	}
	/* the last axis is resized (axis index k): gather along it from two source rows */
	const int k = a1 == 3 ? 1 : 0, q = 1 - k;
	const uint32_t oq = c[p->axes[q]];
	const uint64_t sq = st[p->axes[q]];
	const float *ra = I + base + r->lo[q][oq] * sq, *rb = I + base + r->hi[q][oq] * sq;
	const float tq = r->t[q][oq];
	const uint32_t *lo = r->lo[k], *hi = r->hi[k];
	const float *t = r->t[k];
	if (k == 1) {
		for (uint64_t j = 0; j < D; j++)
			o[j] = (ra[lo[j]] * (1 - t[j]) + ra[hi[j]] * t[j]) * (1 - tq) +
			       (rb[lo[j]] * (1 - t[j]) + rb[hi[j]] * t[j]) * tq;
	} else {
		for (uint64_t j = 0; j < D; j++)
			o[j] = (ra[lo[j]] * (1 - tq) + rb[lo[j]] * tq) * (1 - t[j]) +
			       (ra[hi[j]] * (1 - tq) + rb[hi[j]] * tq) * t[j];
	}
}

/* One output row of nearest resampling, any data type (elements of es bytes). */
static void cpu_resample_nearest_row(const struct wnn_resample_attrs *p,
				     const struct cpu_resample *r, const char *I, char *o,
				     size_t es, const uint32_t c[3])
{
	const uint32_t a0 = p->axes[0], a1 = p->axes[1];
	const uint64_t *st = p->in_strides;
	const uint64_t D = p->out_dims[3];
	uint64_t base = 0;
	for (uint32_t d = 0; d < 3; d++)
		if (d == a0)
			base += r->near[0][c[d]] * st[d];
		else if (d == a1)
			base += r->near[1][c[d]] * st[d];
		else
			base += c[d] * st[d];
	if (a0 != 3 && a1 != 3) {
		memcpy(o, I + base * es, D * es);
		return;
	}
	const uint32_t *nx = r->near[a1 == 3 ? 1 : 0];
	switch (es) {
	case 1:
		for (uint64_t j = 0; j < D; j++)
			((uint8_t *)o)[j] = ((const uint8_t *)I)[base + nx[j]];
		break;
	case 2:
		for (uint64_t j = 0; j < D; j++)
			((uint16_t *)o)[j] = ((const uint16_t *)I)[base + nx[j]];
		break;
	case 4:
		for (uint64_t j = 0; j < D; j++)
			((uint32_t *)o)[j] = ((const uint32_t *)I)[base + nx[j]];
		break;
	default:
		for (uint64_t j = 0; j < D; j++)
			((uint64_t *)o)[j] = ((const uint64_t *)I)[base + nx[j]];
		break;
	}
}

/* One output row of linear int8/uint8 resampling: the reference's double sums, rounded to
 * nearest even and saturated, so the results are the same bits. */
static void cpu_resample_linear_int_row(const struct wnn_resample_attrs *p,
					const struct cpu_resample *r, const void *I, void *O,
					uint64_t row, const uint32_t c[3])
{
	const uint32_t a0 = p->axes[0], a1 = p->axes[1];
	const uint64_t *st = p->in_strides;
	const uint64_t D = p->out_dims[3];
	const bool u8 = p->type == WNN_U8;
	uint64_t base = 0;
	for (uint32_t d = 0; d < 3; d++)
		if (d != a0 && d != a1)
			base += c[d] * st[d];
	for (uint64_t j = 0; j < D; j++) {
		uint32_t cc[4] = { c[0], c[1], c[2], (uint32_t)j };
		uint64_t b = base + (a0 == 3 || a1 == 3 ? 0 : j);
		uint32_t o0 = cc[a0], o1 = cc[a1];
		uint64_t l0 = r->lo[0][o0] * st[a0], h0 = r->hi[0][o0] * st[a0];
		uint64_t l1 = r->lo[1][o1] * st[a1], h1 = r->hi[1][o1] * st[a1];
		double t0 = r->td[0][o0], t1 = r->td[1][o1];
#define CPU_LD(i) (u8 ? (double)((const uint8_t *)I)[i] : (double)((const int8_t *)I)[i])
		double r0 = CPU_LD(b + l0 + l1) * (1 - t1) + CPU_LD(b + l0 + h1) * t1;
		double r1 = CPU_LD(b + h0 + l1) * (1 - t1) + CPU_LD(b + h0 + h1) * t1;
#undef CPU_LD
		double v = rint(r0 * (1 - t0) + r1 * t0);
		double lo = u8 ? 0 : INT8_MIN, hi = u8 ? UINT8_MAX : INT8_MAX;
		v = v <= lo ? lo : v >= hi ? hi : v;
		if (u8)
			((uint8_t *)O)[row * D + j] = (uint8_t)v;
		else
			((int8_t *)O)[row * D + j] = (int8_t)v;
	}
}

static enum webnn_status cpu_run_resample(const struct cpu_step *s, void *const *bufs,
					  const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_resample_attrs *p = &s->n->attrs.resample;
	const struct cpu_resample *r = s->priv;
	const void *I = bufs[p->input];
	void *O = bufs[p->output];
	const uint32_t *od = p->out_dims;
	const uint64_t rows = (uint64_t)od[0] * od[1] * od[2], D = od[3];
	const size_t es = wnn_dtype_size(p->type);
	const bool nearest = p->mode == WNN_INTERP_NEAREST;
	(void)diag;
#pragma omp parallel for num_threads(x->threads) if (p->count > CPU_PAR_MIN && rows > 1)
	for (uint64_t row = 0; row < rows; row++) {
		if (cpu_cancelled(x))
			continue;
		uint32_t c[3] = { (uint32_t)(row / ((uint64_t)od[1] * od[2])),
				  (uint32_t)(row / od[2] % od[1]), (uint32_t)(row % od[2]) };
		if (nearest)
			cpu_resample_nearest_row(p, r, I, (char *)O + row * D * es, es, c);
		else if (r->td[0])
			cpu_resample_linear_int_row(p, r, I, O, row, c);
		else
			cpu_resample_linear_row(p, r, I, (float *)O + row * D, c);
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status cpu_resample_prepare(const struct cpu_build *b, struct cpu_step *s,
				       struct wnn_diag *diag)
{
	const struct wnn_resample_attrs *p = &s->n->attrs.resample;
	(void)b;
	s->run = NULL;
	const bool nearest = p->mode == WNN_INTERP_NEAREST;
	const bool ints = p->type == WNN_I8 || p->type == WNN_U8;
	size_t es = wnn_dtype_size(p->type);
	if ((!nearest && p->type != WNN_F32 && p->type != WNN_F16 && !ints) || p->axes[0] == p->axes[1] || p->axes[0] > 3 ||
	    p->axes[1] > 3 || (es != 1 && es != 2 && es != 4 && es != 8))
		return WEBNN_STATUS_OK;
	struct cpu_resample *r = calloc(1, sizeof *r);
	if (!r)
		goto oom;
	s->priv = r;
	s->destroy = cpu_resample_free;
	for (int i = 0; i < 2; i++) {
		uint32_t n = p->out_dims[p->axes[i]];
		if (nearest) {
			if (!(r->near[i] = malloc(n * sizeof *r->near[i])))
				goto oom;
			for (uint32_t o = 0; o < n; o++)
				r->near[i][o] = wnn_resample_nearest(p, i, o);
			continue;
		}
		r->lo[i] = malloc(n * sizeof *r->lo[i]);
		r->hi[i] = malloc(n * sizeof *r->hi[i]);
		r->t[i] = malloc(n * sizeof *r->t[i]);
		if (ints)
			r->td[i] = malloc(n * sizeof *r->td[i]);
		if (!r->lo[i] || !r->hi[i] || !r->t[i] || (ints && !r->td[i]))
			goto oom;
		for (uint32_t o = 0; o < n; o++) {
			double xc = wnn_resample_coord(p, i, o);
			r->lo[i][o] = (uint32_t)floor(xc);
			r->hi[i][o] = (uint32_t)ceil(xc);
			r->t[i][o] = (float)(xc - floor(xc));
			if (ints)
				r->td[i][o] = xc - (double)r->lo[i][o];
		}
	}
	s->run = cpu_run_resample;
	s->impl = "C";
	return !nearest && p->type == WNN_F16 ? cpu_f16_wrap(s, diag) : WEBNN_STATUS_OK;
oom:
	return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "resample2d: out of memory");
}
