/* The cpu backend's normalization family: softmax and trailing-axes layerNormalization through oneDNN, batch/instance/other layer normalization as threaded C loops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"

#define CPU_COL_BLOCK 256 /* kept elements per task in the column form */

static bool cpu_float(enum wnn_dtype t)
{
	return t == WNN_F32 || t == WNN_F16;
}

/* ---- oneDNN: a primitive from an operation descriptor, its arguments bound to values */

struct cpu_norm_arg {
	int arg;
	dnnl_memory_desc_t md;
	uint32_t value;
};

/* OK with s->run NULL when oneDNN has no implementation, or only its reference one (slower
 * than the C loops here), so the caller can pick its own kernel. */
static enum webnn_status cpu_norm_dnnl(const struct cpu_build *b, struct cpu_step *s,
				       const void *op_desc, const struct cpu_norm_arg *args,
				       int n_args, const char *what, struct wnn_diag *diag)
{
	dnnl_primitive_attr_t attr;
	enum webnn_status ret = cpu_dnnl_attr_create(&attr, s->n, diag);
	if (ret != WEBNN_STATUS_OK)
		return ret;
	dnnl_primitive_desc_t pd;
	dnnl_status_t st = dnnl_primitive_desc_create(&pd, op_desc, attr, b->engine, NULL);
	dnnl_primitive_attr_destroy(attr);
	if (st == dnnl_unimplemented)
		return WEBNN_STATUS_OK;
	if (st != dnnl_success)
		return cpu_dnnl_check(st, s->n, what, diag);
	const char *impl = NULL;
	if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success &&
	    impl && strncmp(impl, "ref", 3) == 0) {
		dnnl_primitive_desc_destroy(pd);
		return WEBNN_STATUS_OK;
	}
	struct cpu_dnnl_prim *p = cpu_dnnl_step(s);
	if (!p) {
		dnnl_primitive_desc_destroy(pd);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    wnn_ops[s->n->op].name);
	}
	ret = cpu_dnnl_create(b, p, pd, s->n, diag);
	for (int i = 0; i < n_args && ret == WEBNN_STATUS_OK; i++)
		ret = cpu_dnnl_bind(b, p, args[i].arg, &args[i].md, args[i].value, s->n, diag);
	return ret;
}

static dnnl_status_t cpu_md(dnnl_memory_desc_t *md, int rank, int64_t d0, int64_t d1, int64_t d2)
{
	dnnl_dims_t dims = { d0, d1, d2 };
	return dnnl_memory_desc_init_by_tag(md, rank, dims, dnnl_f32,
					    rank == 1 ? dnnl_a : rank == 2 ? dnnl_ab : dnnl_abc);
}

/* Softmax where oneDNN has only its reference kernel (the axis not innermost): nb columns
 * side by side, element a of column b at x[a * inner + b]; the reference's formula, so NaN
 * and infinities come out the same. */
static void cpu_softmax_cols(const float *restrict x, float *restrict o, uint64_t K,
			     uint64_t inner, uint64_t nb)
{
	float mx[CPU_COL_BLOCK], sum[CPU_COL_BLOCK];
	for (uint64_t b = 0; b < nb; b++) {
		mx[b] = -INFINITY;
		sum[b] = 0;
	}
	for (uint64_t a = 0; a < K; a++) {
		const float *restrict xr = x + a * inner;
#pragma omp simd
		for (uint64_t b = 0; b < nb; b++)
			mx[b] = xr[b] > mx[b] || xr[b] != xr[b] ? xr[b] : mx[b];
	}
	for (uint64_t a = 0; a < K; a++) {
		const float *restrict xr = x + a * inner;
		float *restrict orow = o + a * inner;
		for (uint64_t b = 0; b < nb; b++) {
			orow[b] = expf(xr[b] - mx[b]);
			sum[b] += orow[b];
		}
	}
	for (uint64_t a = 0; a < K; a++) {
		float *restrict orow = o + a * inner;
#pragma omp simd
		for (uint64_t b = 0; b < nb; b++)
			orow[b] /= sum[b];
	}
}

static enum webnn_status cpu_run_softmax(const struct cpu_step *s, void *const *bufs,
					 const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_softmax_attrs *p = &s->n->attrs.softmax;
	const float *I = bufs[p->input];
	float *O = bufs[p->output];
	const uint64_t outer = p->outer, K = p->axis_size, inner = p->inner;
	const uint64_t nblk = (inner + CPU_COL_BLOCK - 1) / CPU_COL_BLOCK;
	(void)diag;
#pragma omp parallel for num_threads(x->threads) if (outer * K * inner > CPU_PAR_MIN && outer * nblk > 1)
	for (uint64_t t = 0; t < outer * nblk; t++) {
		if (cpu_cancelled(x))
			continue;
		uint64_t o = t / nblk, b0 = (t % nblk) * CPU_COL_BLOCK;
		uint64_t nb = inner - b0 < CPU_COL_BLOCK ? inner - b0 : CPU_COL_BLOCK;
		cpu_softmax_cols(I + o * K * inner + b0, O + o * K * inner + b0, K, inner, nb);
	}
	return WEBNN_STATUS_OK;
}

/* oneDNN's softmax, then the rows holding NaN or an infinity again with the reference's
 * formula: oneDNN's exp approximation does not turn a NaN or inf - inf into NaN for the whole
 * row as exp() does. The check is one more read of the input. */
static enum webnn_status cpu_run_softmax_dnnl(const struct cpu_step *s, void *const *bufs,
					      const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_softmax_attrs *p = &s->n->attrs.softmax;
	enum webnn_status st = cpu_dnnl_exec(s->priv, s->n, bufs, x, diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	const float *I = bufs[p->input];
	float *O = bufs[p->output];
	const uint64_t outer = p->outer, K = p->axis_size;
#pragma omp parallel for num_threads(x->threads) if (outer * K > CPU_PAR_MIN && outer > 1)
	for (uint64_t o = 0; o < outer; o++) {
		if (cpu_cancelled(x))
			continue;
		const float *restrict xr = I + o * K;
		int bad = 0;
#pragma omp simd reduction(| : bad)
		for (uint64_t a = 0; a < K; a++)
			bad |= !(xr[a] - xr[a] == 0);
		if (bad)
			cpu_softmax_cols(xr, O + o * K, K, 1, 1);
	}
	return WEBNN_STATUS_OK;
}

/* Softmax over the innermost axis: oneDNN's jit kernel on [outer, axis]. */
static enum webnn_status cpu_softmax_prepare(const struct cpu_build *b, struct cpu_step *s,
					     struct wnn_diag *diag)
{
	const struct wnn_softmax_attrs *p = &s->n->attrs.softmax;
	struct cpu_norm_arg a[2];
	dnnl_status_t st = cpu_md(&a[0].md, 2, (int64_t)p->outer, (int64_t)p->axis_size, 0);
	if (st != dnnl_success)
		return cpu_dnnl_check(st, s->n, "memory descriptor", diag);
	a[0].arg = DNNL_ARG_SRC;
	a[0].value = p->input;
	a[1] = a[0];
	a[1].arg = DNNL_ARG_DST;
	a[1].value = p->output;
	dnnl_softmax_v2_desc_t d;
	st = dnnl_softmax_v2_forward_desc_init(&d, dnnl_forward_inference, dnnl_softmax_accurate,
					       &a[0].md, &a[1].md, 1);
	if (st == dnnl_unimplemented)
		return WEBNN_STATUS_OK;
	if (st != dnnl_success)
		return cpu_dnnl_check(st, s->n, "softmax descriptor", diag);
	return cpu_norm_dnnl(b, s, &d, a, 2, "softmax primitive descriptor", diag);
}

/* ---- softmax with its prologue (graph_softmax_prologue): attention's score scale and mask add
 * done on each row as it is read, so that neither makes a pass of its own over the scores. */

struct softmax_pre {
	uint32_t input, mask, output;
	float scale;
	int mode;             /* 0 no scale, 1 multiply, 2 divide */
	uint64_t outer, k;
	uint32_t rank;        /* of the scores; rows are its first rank - 1 dimensions */
	uint32_t dims[WNN_MAX_RANK];
	uint64_t mstrides[WNN_MAX_RANK]; /* the mask's, per scores dimension (0: broadcast) */
};

static enum webnn_status cpu_run_softmax_pre(const struct cpu_step *s, void *const *bufs,
					     const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct softmax_pre *p = s->priv;
	const float *I = bufs[p->input], *M = p->mask != GRAPH_NONE ? bufs[p->mask] : NULL;
	float *O = bufs[p->output];
	const uint64_t outer = p->outer, K = p->k;
	const int inner_stride = M && p->mstrides[p->rank - 1] ? 1 : 0;
	(void)diag;
#pragma omp parallel for num_threads(x->threads) if (outer * K > CPU_PAR_MIN && outer > 1)
	for (uint64_t o = 0; o < outer; o++) {
		if (cpu_cancelled(x))
			continue;
		const float *mrow = NULL;
		if (M) {
			uint64_t off = 0, rem = o;
			for (int d = (int)p->rank - 2; d >= 0; d--) {
				off += (rem % p->dims[d]) * p->mstrides[d];
				rem /= p->dims[d];
			}
			mrow = M + off;
		}
		cpu_f32_softmax_row(I + o * K, mrow, inner_stride, p->scale, p->mode, O + o * K, K);
	}
	return WEBNN_STATUS_OK;
}

static void cpu_softmax_pre_free(void *priv)
{
	free(priv);
}

static enum webnn_status cpu_softmax_pre_prepare(const struct cpu_build *b, struct cpu_step *s,
						 struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	const struct graph_softmax_prologue *pre = &n->softmax_pre;
	const struct wnn_softmax_attrs *sa = &n->attrs.softmax;
	const struct wnn_desc *d = &b->g->values[sa->input].desc;
	char name[96];
	if (sa->type != WNN_F32 || sa->inner != 1 || d->rank == 0)
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
				    "cpu: %s has a prologue but is no float32 softmax over its last axis",
				    graph_node_name(n, name, sizeof name));
	struct softmax_pre *p = calloc(1, sizeof *p);
	if (!p)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    graph_node_name(n, name, sizeof name));
	p->input = pre->input;
	p->mask = pre->mask;
	p->output = sa->output;
	p->scale = pre->scale;
	p->mode = pre->scaled == GRAPH_NONE ? 0 : pre->divide ? 2 : 1;
	p->outer = sa->outer;
	p->k = sa->axis_size;
	p->rank = d->rank;
	for (uint32_t k = 0; k < d->rank; k++)
		p->dims[k] = d->dims[k];
	if (pre->mask != GRAPH_NONE) {
		/* the add's broadcast says where each scores element's mask element is */
		const struct wnn_binary_attrs *add =
			&b->g->nodes[b->g->values[sa->input].producer].attrs.binary;
		int slot = add->a == pre->mask ? 0 : 1;
		if (add->bc.rank != d->rank) {
			free(p);
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "cpu: %s: its mask add has another rank",
					    graph_node_name(n, name, sizeof name));
		}
		for (uint32_t k = 0; k < d->rank; k++)
			p->mstrides[k] = add->bc.strides[slot][k];
	}
	s->priv = p;
	s->destroy = cpu_softmax_pre_free;
	s->run = cpu_run_softmax_pre;
	s->impl = pre->mask != GRAPH_NONE ? "C (scale, mask)" : "C (scale)";
	return WEBNN_STATUS_OK;
}

/* ---- batchNormalization: a per-channel affine map, (x - mean[c]) * a[c] + bias[c], in double
 * with a[c] = scale[c] / sqrt(var[c] + epsilon) kept in double too: rounding a[c] to float and
 * computing in float rounded three times, 7 ulp from the reference's single rounding on a
 * [3,3,4,4] case where WPT allows 6; in double the result is rounded once. */

static enum webnn_status cpu_run_batchnorm(const struct cpu_step *s, void *const *bufs,
					   const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_batchnorm_attrs *p = &s->n->attrs.batchnorm;
	const float *I = bufs[p->input], *M = bufs[p->mean], *V = bufs[p->variance];
	const float *S = p->has_scale ? bufs[p->scale] : NULL;
	const float *Bi = p->has_bias ? bufs[p->bias] : NULL;
	float *O = bufs[p->output];
	const uint64_t outer = p->outer, C = p->channels, inner = p->inner;
	double *coef = malloc(3 * C * sizeof *coef);
	if (!coef)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
				    "batchNormalization: out of memory");
	double *mu = coef, *a = coef + C, *bb = coef + 2 * C;
	for (uint64_t c = 0; c < C; c++) {
		mu[c] = M[c];
		a[c] = (S ? (double)S[c] : 1.0) / sqrt((double)V[c] + p->epsilon);
		bb[c] = Bi ? Bi[c] : 0.0;
	}
	if (inner == 1) {
#pragma omp parallel for num_threads(x->threads) if (outer * C > CPU_PAR_MIN)
		for (uint64_t o = 0; o < outer; o++) {
			if (cpu_cancelled(x))
				continue;
			const float *restrict xi = I + o * C;
			float *restrict xo = O + o * C;
#pragma omp simd
			for (uint64_t c = 0; c < C; c++)
				xo[c] = (float)(((double)xi[c] - mu[c]) * a[c] + bb[c]);
		}
	} else {
#pragma omp parallel for num_threads(x->threads) if (outer * C * inner > CPU_PAR_MIN)
		for (uint64_t r = 0; r < outer * C; r++) {
			if (cpu_cancelled(x))
				continue;
			uint64_t c = r % C;
			const double m = mu[c], k = a[c], d = bb[c];
			const float *restrict xi = I + r * inner;
			float *restrict xo = O + r * inner;
#pragma omp simd
			for (uint64_t i = 0; i < inner; i++)
				xo[i] = (float)(((double)xi[i] - m) * k + d);
		}
	}
	free(coef);
	return WEBNN_STATUS_OK;
}

/* ---- instance and layer normalization in C over an [A, R, B] view (cpu_reduce.c's rule) */

/* Row form (B == 1): each kept index normalises R contiguous elements. */
static void cpu_norm_row(const struct wnn_norm_attrs *p, const float *restrict x,
			 float *restrict o, uint64_t R, uint64_t k, const float *S, const float *Bi)
{
	float sum = 0, sq = 0;
#pragma omp simd reduction(+ : sum)
	for (uint64_t j = 0; j < R; j++)
		sum += x[j];
	const float mean = sum / (float)R;
#pragma omp simd reduction(+ : sq)
	for (uint64_t j = 0; j < R; j++)
		sq += (x[j] - mean) * (x[j] - mean);
	const float inv = (float)(1.0 / sqrt((double)sq / (double)R + p->epsilon));
	if (p->per_channel) {
		uint64_t c = k % p->channels;
		const float sc = S ? S[c] : 1.0f, bi = Bi ? Bi[c] : 0.0f;
#pragma omp simd
		for (uint64_t j = 0; j < R; j++)
			o[j] = (x[j] - mean) * inv * sc + bi;
		return;
	}
	if (S && Bi) {
#pragma omp simd
		for (uint64_t j = 0; j < R; j++)
			o[j] = (x[j] - mean) * inv * S[j] + Bi[j];
	} else if (S) {
#pragma omp simd
		for (uint64_t j = 0; j < R; j++)
			o[j] = (x[j] - mean) * inv * S[j];
	} else if (Bi) {
#pragma omp simd
		for (uint64_t j = 0; j < R; j++)
			o[j] = (x[j] - mean) * inv + Bi[j];
	} else {
#pragma omp simd
		for (uint64_t j = 0; j < R; j++)
			o[j] = (x[j] - mean) * inv;
	}
}

/* Column form (B > 1, e.g. NHWC instance normalization): nb kept indices k0.. side by side,
 * element r of column b at x[r * B + b]. */
static void cpu_norm_cols(const struct wnn_norm_attrs *p, const float *restrict x,
			  float *restrict o, uint64_t R, uint64_t B, uint64_t nb, uint64_t k0,
			  const float *S, const float *Bi)
{
	float mean[CPU_COL_BLOCK], inv[CPU_COL_BLOCK], sc[CPU_COL_BLOCK], bi[CPU_COL_BLOCK];
	for (uint64_t b = 0; b < nb; b++)
		mean[b] = inv[b] = 0;
	for (uint64_t r = 0; r < R; r++) {
		const float *restrict xr = x + r * B;
#pragma omp simd
		for (uint64_t b = 0; b < nb; b++)
			mean[b] += xr[b];
	}
	for (uint64_t b = 0; b < nb; b++)
		mean[b] /= (float)R;
	for (uint64_t r = 0; r < R; r++) {
		const float *restrict xr = x + r * B;
#pragma omp simd
		for (uint64_t b = 0; b < nb; b++)
			inv[b] += (xr[b] - mean[b]) * (xr[b] - mean[b]);
	}
	for (uint64_t b = 0; b < nb; b++)
		inv[b] = (float)(1.0 / sqrt((double)inv[b] / (double)R + p->epsilon));
	if (p->per_channel) {
		for (uint64_t b = 0; b < nb; b++) {
			uint64_t c = (k0 + b) % p->channels;
			sc[b] = S ? S[c] : 1.0f;
			bi[b] = Bi ? Bi[c] : 0.0f;
		}
		for (uint64_t r = 0; r < R; r++) {
			const float *restrict xr = x + r * B;
			float *restrict orow = o + r * B;
#pragma omp simd
			for (uint64_t b = 0; b < nb; b++)
				orow[b] = (xr[b] - mean[b]) * inv[b] * sc[b] + bi[b];
		}
		return;
	}
	for (uint64_t r = 0; r < R; r++) {
		const float *restrict xr = x + r * B;
		float *restrict orow = o + r * B;
		const float s1 = S ? S[r] : 1.0f, b1 = Bi ? Bi[r] : 0.0f;
#pragma omp simd
		for (uint64_t b = 0; b < nb; b++)
			orow[b] = (xr[b] - mean[b]) * inv[b] * s1 + b1;
	}
}

static enum webnn_status cpu_run_norm_gather(const struct cpu_step *s, const float *I, float *O,
					     const float *S, const float *Bi,
					     const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_norm_attrs *p = &s->n->attrs.norm;
	const struct wnn_reduction *r = &p->r;
	const struct cpu_axes *v = s->priv;
	const uint64_t K = r->kept_count, R = v->R;
	bool oom = false;
#pragma omp parallel num_threads(x->threads) if (K * R > CPU_PAR_MIN && K > 1)
	{
		float *row = malloc(2 * R * sizeof *row);
		if (!row) {
#pragma omp atomic write
			oom = true;
		}
#pragma omp for
		for (uint64_t k = 0; k < K; k++) {
			if (!row)
				continue;
			uint64_t off = wnn_shape_offset(r->kept_rank, r->kept_dims, r->kept_strides, k);
			for (uint64_t j = 0; j < R; j++)
				row[j] = I[off + v->roff[j]];
			cpu_norm_row(p, row, row + R, R, k, S, Bi);
			for (uint64_t j = 0; j < R; j++)
				O[off + v->roff[j]] = row[R + j];
		}
		free(row);
	}
	if (oom)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    wnn_ops[p->op].name);
	return WEBNN_STATUS_OK;
}

static enum webnn_status cpu_run_norm(const struct cpu_step *s, void *const *bufs,
				      const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_norm_attrs *p = &s->n->attrs.norm;
	const struct cpu_axes *v = s->priv;
	const float *I = bufs[p->input];
	const float *S = p->has_scale ? bufs[p->scale] : NULL;
	const float *Bi = p->has_bias ? bufs[p->bias] : NULL;
	float *O = bufs[p->output];
	const uint64_t A = v->A, R = v->R, B = v->B;
	if (v->roff)
		return cpu_run_norm_gather(s, I, O, S, Bi, x, diag);
	if (B == 1) {
#pragma omp parallel for num_threads(x->threads) if (A * R > CPU_PAR_MIN && A > 1)
		for (uint64_t a = 0; a < A; a++) {
			if (cpu_cancelled(x))
				continue;
			cpu_norm_row(p, I + a * R, O + a * R, R, a, S, Bi);
		}
		return WEBNN_STATUS_OK;
	}
	const uint64_t nblk = (B + CPU_COL_BLOCK - 1) / CPU_COL_BLOCK;
#pragma omp parallel for num_threads(x->threads) if (A * R * B > CPU_PAR_MIN && A * nblk > 1)
	for (uint64_t t = 0; t < A * nblk; t++) {
		if (cpu_cancelled(x))
			continue;
		uint64_t a = t / nblk, b0 = (t % nblk) * CPU_COL_BLOCK;
		uint64_t nb = B - b0 < CPU_COL_BLOCK ? B - b0 : CPU_COL_BLOCK;
		cpu_norm_cols(p, I + a * R * B + b0, O + a * R * B + b0, R, B, nb, a * B + b0, S,
			      Bi);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status cpu_layernorm_dnnl(const struct cpu_build *b, struct cpu_step *s,
					    const struct cpu_axes *v, struct wnn_diag *diag)
{
	const struct wnn_norm_attrs *p = &s->n->attrs.norm;
	struct cpu_norm_arg a[4];
	int n = 0;
	unsigned flags = 0;
	dnnl_status_t st = cpu_md(&a[0].md, 2, (int64_t)v->A, (int64_t)v->R, 0);
	if (st != dnnl_success)
		return cpu_dnnl_check(st, s->n, "memory descriptor", diag);
	a[0].arg = DNNL_ARG_SRC;
	a[0].value = p->input;
	a[1] = a[0];
	a[1].arg = DNNL_ARG_DST;
	a[1].value = p->output;
	n = 2;
	dnnl_memory_desc_t vec;
	st = cpu_md(&vec, 1, (int64_t)v->R, 0, 0);
	if (st != dnnl_success)
		return cpu_dnnl_check(st, s->n, "memory descriptor", diag);
	if (p->has_scale) {
		flags |= dnnl_use_scale;
		a[n++] = (struct cpu_norm_arg){ DNNL_ARG_SCALE, vec, p->scale };
	}
	if (p->has_bias) {
		flags |= dnnl_use_shift;
		a[n++] = (struct cpu_norm_arg){ DNNL_ARG_SHIFT, vec, p->bias };
	}
	dnnl_layer_normalization_desc_t d;
	st = dnnl_layer_normalization_forward_desc_init(&d, dnnl_forward_inference, &a[0].md, NULL,
							(float)p->epsilon, flags);
	if (st == dnnl_unimplemented)
		return WEBNN_STATUS_OK;
	if (st != dnnl_success)
		return cpu_dnnl_check(st, s->n, "layer normalization descriptor", diag);
	return cpu_norm_dnnl(b, s, &d, a, n, "layer normalization primitive descriptor", diag);
}

/* ---- float16: the float32 kernel on float32 copies of the node's float16 operands (no
 * native f16 arithmetic in oneDNN 2.6 here; converting costs one pass each way, far less
 * than the reference's double loops). */

static enum webnn_status cpu_normalization_prepare_f32(const struct cpu_build *b,
						       struct cpu_step *s, struct wnn_diag *diag);

enum webnn_status cpu_normalization_prepare(const struct cpu_build *b, struct cpu_step *s,
					    struct wnn_diag *diag)
{
	enum webnn_status st = cpu_normalization_prepare_f32(b, s, diag);
	if (st != WEBNN_STATUS_OK || !s->run)
		return st;
	const struct wnn_desc *d = &s->g->values[s->n->inputs[0]].desc;
	return d->type == WNN_F16 ? cpu_f16_wrap(s, diag) : WEBNN_STATUS_OK;
}

/* The kernels read and write float32; float16 nodes get them through cpu_f16_wrap. */
static enum webnn_status cpu_normalization_prepare_f32(const struct cpu_build *b,
						       struct cpu_step *s, struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	s->run = NULL; /* the reference kernel unless a case below takes it */
	switch (n->op) {
	case WNN_OP_SOFTMAX:
		if (n->softmax_pre.used)
			return cpu_softmax_pre_prepare(b, s, diag);
		if (!cpu_float(n->attrs.softmax.type))
			return WEBNN_STATUS_OK;
		if (n->attrs.softmax.inner == 1) {
			enum webnn_status st = cpu_softmax_prepare(b, s, diag);
			if (st != WEBNN_STATUS_OK)
				return st;
			if (s->run) {
				s->run = cpu_run_softmax_dnnl;
				return st;
			}
		}
		s->run = cpu_run_softmax;
		s->impl = "C";
		return WEBNN_STATUS_OK;
	case WNN_OP_BATCH_NORMALIZATION:
		if (!cpu_float(n->attrs.batchnorm.type))
			return WEBNN_STATUS_OK;
		s->run = cpu_run_batchnorm;
		s->impl = "C";
		return WEBNN_STATUS_OK;
	default:
		break;
	}
	const struct wnn_norm_attrs *p = &n->attrs.norm;
	if (!cpu_float(p->type))
		return WEBNN_STATUS_OK;
	bool oom;
	struct cpu_axes *priv = cpu_axes_new(&p->r, n->op == WNN_OP_LAYER_NORMALIZATION, &oom);
	if (!priv)
		return oom ? wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
					  wnn_ops[n->op].name)
			   : WEBNN_STATUS_OK;
	if (!priv->roff && n->op == WNN_OP_LAYER_NORMALIZATION && priv->B == 1 && priv->R > 1) {
		enum webnn_status st = cpu_layernorm_dnnl(b, s, priv, diag);
		if (st != WEBNN_STATUS_OK || s->run) {
			cpu_axes_free(priv);
			return st;
		}
	}
	s->priv = priv;
	s->destroy = cpu_axes_free;
	s->run = cpu_run_norm;
	s->impl = "C";
	return WEBNN_STATUS_OK;
}
