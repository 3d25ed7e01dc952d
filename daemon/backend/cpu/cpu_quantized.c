/* The cpu backend's quantized matmul: float32 A times weights kept packed (int4/uint4/int8/uint8, block-wise scales), dequantized a few rows at a time into an L1-sized buffer. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/*
 * Y[m][n] = sum_k A[m][k] B[k][n], B given by graph_qweight. Each thread takes groups of QM_NR
 * output columns n; for each, a chunk of K (at most QM_KC, whole blocks) of B's columns is
 * dequantized into a buffer of QM_NR rows (B transposed: the QM_NR columns of B contiguous
 * along k), then every row of A is dotted with those rows. The weights are read once per run
 * whatever M is, and never exist in float beyond QM_NR x QM_KC values per thread: resident
 * weight memory stays the packed bytes plus the block scales.
 */
#define QM_NR 4
#define QM_KC 1024

struct qmm {
	struct graph_qweight w;
	enum wnn_dtype type;
	const uint8_t *q, *zero;
	const float *scale;
	uint32_t a, y;
	uint64_t rows_a;   /* rows of A (the batch dims folded in) */
	uint32_t k, n;
	uint32_t kc;       /* K chunk: whole blocks along k when blocks run along k */
};

static inline int q_get(enum wnn_dtype t, const uint8_t *p, uint64_t e)
{
	switch (t) {
	case WNN_I4: return (int)(((p[e >> 1] >> ((e & 1) * 4)) & 15) ^ 8) - 8;
	case WNN_U4: return (p[e >> 1] >> ((e & 1) * 4)) & 15;
	case WNN_I8: return (int8_t)p[e];
	default: return p[e];
	}
}

/* Storage row r, columns [c0, c0 + len) of W, dequantized into out[0..len). */
static void dequant_run(const struct qmm *p, uint32_t r, uint32_t c0, uint32_t len, float *out)
{
	const struct graph_qweight *w = &p->w;
	uint32_t scols = w->cols / w->block_cols;
	uint64_t srow = (uint64_t)(r / w->block_rows) * scols, base = (uint64_t)r * w->cols;
	uint32_t c = c0, end = c0 + len;
	while (c < end) {
		uint32_t b = c / w->block_cols, stop = (b + 1) * w->block_cols;
		if (stop > end)
			stop = end;
		float s = p->scale[srow + b];
		float z = (float)q_get(p->type, p->zero, srow + b);
		float *o = out + (c - c0);
		uint32_t n = stop - c;
		uint64_t e = base + c;
		if ((p->type == WNN_U4 || p->type == WNN_I4) && !(e & 1)) {
			const uint8_t *q = p->q + e / 2;
			uint32_t j = 0;
			if (p->type == WNN_U4) {
				for (; j + 2 <= n; j += 2) {
					o[j] = ((float)(q[j / 2] & 15) - z) * s;
					o[j + 1] = ((float)(q[j / 2] >> 4) - z) * s;
				}
			} else {
				for (; j + 2 <= n; j += 2) {
					o[j] = ((float)(((q[j / 2] & 15) ^ 8) - 8) - z) * s;
					o[j + 1] = ((float)(((q[j / 2] >> 4) ^ 8) - 8) - z) * s;
				}
			}
			for (; j < n; j++)
				o[j] = ((float)q_get(p->type, p->q, e + j) - z) * s;
		} else if (p->type == WNN_U8) {
			for (uint32_t j = 0; j < n; j++)
				o[j] = ((float)p->q[e + j] - z) * s;
		} else {
			for (uint32_t j = 0; j < n; j++)
				o[j] = ((float)q_get(p->type, p->q, e + j) - z) * s;
		}
		c = stop;
	}
}

/* B's column n, rows [k0, k0 + len), into out: a run of W's row n when transposed, else one
 * element from each of len rows of W. */
static void dequant_col(const struct qmm *p, uint32_t n, uint32_t k0, uint32_t len, float *out)
{
	if (p->w.transposed) {
		dequant_run(p, n, k0, len, out);
		return;
	}
	for (uint32_t i = 0; i < len; i++)
		dequant_run(p, k0 + i, n, 1, out + i);
}

#if defined(__x86_64__)
/* QM_NR dot products of a (len) with rows w[r * ld], sharing the loads of a. */
__attribute__((target("avx2,fma"))) static void dots_avx2(const float *a, const float *w,
							  uint32_t ld, uint32_t len, float *acc)
{
	__m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
	       s3 = _mm256_setzero_ps();
	uint32_t i = 0;
	for (; i + 8 <= len; i += 8) {
		__m256 x = _mm256_loadu_ps(a + i);
		s0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + i), s0);
		s1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + ld + i), s1);
		s2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + 2 * ld + i), s2);
		s3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + 3 * ld + i), s3);
	}
	__m256 v[4] = { s0, s1, s2, s3 };
	for (int r = 0; r < 4; r++) {
		__m128 h = _mm_add_ps(_mm256_castps256_ps128(v[r]), _mm256_extractf128_ps(v[r], 1));
		h = _mm_add_ps(h, _mm_movehl_ps(h, h));
		h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
		float t = _mm_cvtss_f32(h);
		for (uint32_t j = i; j < len; j++)
			t += a[j] * w[r * ld + j];
		acc[r] += t;
	}
}
#endif

static void dots_c(const float *a, const float *w, uint32_t ld, uint32_t len, float *acc)
{
	for (int r = 0; r < QM_NR; r++) {
		float part[8] = { 0 };
		uint32_t i = 0;
		for (; i + 8 <= len; i += 8)
			for (int l = 0; l < 8; l++)
				part[l] += a[i + l] * w[r * ld + i + l];
		float t = 0;
		for (int l = 0; l < 8; l++)
			t += part[l];
		for (; i < len; i++)
			t += a[i] * w[r * ld + i];
		acc[r] += t;
	}
}

static enum webnn_status qmm_run(const struct cpu_step *s, void *const *bufs,
				 const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct qmm *p = s->priv;
	const float *A = bufs[p->a];
	float *Y = bufs[p->y];
	uint32_t groups = (p->n + QM_NR - 1) / QM_NR;
	bool avx2 = false;
#if defined(__x86_64__)
	avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
	int nt = x->threads > 1 && groups > 1 ? x->threads : 1;
	bool oom = false;
#pragma omp parallel num_threads(nt) if (nt > 1)
	{
		float *buf = aligned_alloc(64, sizeof(float) * QM_NR * p->kc);
		if (!buf) {
#pragma omp atomic write
			oom = true;
		}
#pragma omp for schedule(static)
		for (uint32_t gi = 0; gi < groups; gi++) {
			if (!buf)
				continue;
			uint32_t n0 = gi * QM_NR, nr = p->n - n0 < QM_NR ? p->n - n0 : QM_NR;
			for (uint64_t m = 0; m < p->rows_a; m++)
				for (uint32_t r = 0; r < nr; r++)
					Y[m * p->n + n0 + r] = 0;
			for (uint32_t k0 = 0; k0 < p->k; k0 += p->kc) {
				uint32_t len = p->k - k0 < p->kc ? p->k - k0 : p->kc;
				for (uint32_t r = 0; r < QM_NR; r++) {
					if (r < nr)
						dequant_col(p, n0 + r, k0, len, buf + r * p->kc);
					else
						memset(buf + r * p->kc, 0, len * sizeof(float));
				}
				for (uint64_t m = 0; m < p->rows_a; m++) {
					float acc[QM_NR] = { 0 };
#if defined(__x86_64__)
					if (avx2)
						dots_avx2(A + m * p->k + k0, buf, p->kc, len, acc);
					else
#endif
						dots_c(A + m * p->k + k0, buf, p->kc, len, acc);
					for (uint32_t r = 0; r < nr; r++)
						Y[m * p->n + n0 + r] += acc[r];
				}
			}
		}
		free(buf);
	}
	(void)avx2;
	if (oom)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
	return WEBNN_STATUS_OK;
}

enum webnn_status cpu_quantized_matmul_prepare(const struct cpu_build *b, struct cpu_step *s,
					       struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	const struct wnn_matmul_attrs *a = &n->attrs.matmul;
	struct qmm *p = calloc(1, sizeof(*p));
	if (!p)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
	p->w = n->qweight;
	p->type = b->g->values[p->w.q].desc.type;
	p->q = b->g->values[p->w.q].data;
	p->scale = b->g->values[p->w.scale].data;
	p->zero = b->g->values[p->w.zero].data;
	p->a = a->a;
	/* with an epilogue the product goes where the node's output aliases it */
	p->y = n->outputs[0];
	p->rows_a = a->batch * a->m;
	p->k = a->k;
	p->n = a->n;
	uint32_t block_k = p->w.transposed ? p->w.block_cols : p->w.block_rows;
	p->kc = QM_KC;
	if (block_k < QM_KC)
		p->kc = QM_KC / block_k * block_k;
	if (p->kc > p->k)
		p->kc = p->k;
	s->priv = p;
	s->destroy = free;
	s->run = qmm_run;
	s->impl = "C (quantized weights)";
	s->epilogue_after = n->epilogue.used;
	return WEBNN_STATUS_OK;
}
