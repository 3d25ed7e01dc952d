/* The cpu backend's quantized matmul and gemm: float32 A times weights kept packed (int4/uint4/int8/uint8, block-wise scales), dequantized a few rows at a time into an L1-sized buffer. */
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
	bool avx2;         /* the CPU has AVX2 and FMA */
	bool direct;       /* few rows, 4-bit codes in MatMulNBits' layout: direct4_avx2 */
	bool avx512;       /* AVX-512F: direct4_avx512 (blocks of 32 codes), dots4x4_avx512 */
	/* gemm: Y = alpha * product + beta * C (C[m][n] at m * c_sm + n * c_sn) */
	float alpha, beta;
	uint32_t c;        /* GRAPH_NONE without C */
	uint64_t c_sm, c_sn;
};

/* gemm's alpha and C over the product in Y. */
static void qmm_finish(const struct qmm *p, void *const *bufs, float *Y)
{
	const float *C = p->c != GRAPH_NONE ? bufs[p->c] : NULL;
	if (p->alpha == 1 && !C)
		return;
	for (uint64_t m = 0; m < p->rows_a; m++)
		for (uint32_t n = 0; n < p->n; n++) {
			float v = p->alpha * Y[m * p->n + n];
			if (C)
				v += p->beta * C[m * p->c_sm + n * p->c_sn];
			Y[m * p->n + n] = v;
		}
}

static inline int q_get(enum wnn_dtype t, const uint8_t *p, uint64_t e)
{
	switch (t) {
	case WNN_I4: return (int)(((p[e >> 1] >> ((e & 1) * 4)) & 15) ^ 8) - 8;
	case WNN_U4: return (p[e >> 1] >> ((e & 1) * 4)) & 15;
	case WNN_I8: return (int8_t)p[e];
	default: return p[e];
	}
}

#if defined(__x86_64__)
/* n values (a multiple of 16) of 4-bit codes from byte q on (first in the low nibble), as
 * (code - z) * s; int4 codes are biased by 8 (xor) so both types unpack as unsigned. */
__attribute__((target("avx2,fma"))) static void dequant4_avx2(const uint8_t *q, uint32_t n,
							     bool is_signed, float z, float s,
							     float *o)
{
	const __m128i lo_mask = _mm_set1_epi8(15), bias = _mm_set1_epi8((char)0x88);
	if (is_signed)
		z += 8;
	__m256 sv = _mm256_set1_ps(s), zs = _mm256_set1_ps(-z * s);
	for (uint32_t j = 0; j < n; j += 16) {
		__m128i b = _mm_loadl_epi64((const __m128i *)(q + j / 2));
		if (is_signed)
			b = _mm_xor_si128(b, bias);
		__m128i lo = _mm_and_si128(b, lo_mask);
		__m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), lo_mask);
		__m128i e = _mm_unpacklo_epi8(lo, hi); /* codes j .. j + 15 in order */
		__m256 f0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(e));
		__m256 f1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(e, 8)));
		_mm256_storeu_ps(o + j, _mm256_fmadd_ps(f0, sv, zs));
		_mm256_storeu_ps(o + j + 8, _mm256_fmadd_ps(f1, sv, zs));
	}
}

/* A run of whole blocks (bc a multiple of 16) of one row of 4-bit codes starting at an even
 * element e: block b's scale is scale[b], its zero point element zb + b of zero. */
__attribute__((target("avx2,fma"))) static void dequant4_blocks_avx2(
	const uint8_t *q, const float *scale, const uint8_t *zero, uint64_t zb, uint32_t bc,
	uint32_t blocks, bool is_signed, float *o)
{
	const __m128i lo_mask = _mm_set1_epi8(15), bias = _mm_set1_epi8((char)0x88);
	for (uint32_t b = 0; b < blocks; b++) {
		uint64_t zi = zb + b;
		float z = (float)((zero[zi >> 1] >> ((zi & 1) * 4)) & 15);
		/* int4: code ^ 8 is the code + 8 as unsigned, and so is the zero point */
		z = is_signed ? (float)(((int)z ^ 8)) : z;
		__m256 sv = _mm256_set1_ps(scale[b]), zs = _mm256_set1_ps(-z * scale[b]);
		for (uint32_t j = 0; j < bc; j += 16, q += 8, o += 16) {
			__m128i x = _mm_loadl_epi64((const __m128i *)q);
			if (is_signed)
				x = _mm_xor_si128(x, bias);
			__m128i lo = _mm_and_si128(x, lo_mask);
			__m128i hi = _mm_and_si128(_mm_srli_epi16(x, 4), lo_mask);
			__m128i e = _mm_unpacklo_epi8(lo, hi);
			__m256 f0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(e));
			__m256 f1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(e, 8)));
			_mm256_storeu_ps(o, _mm256_fmadd_ps(f0, sv, zs));
			_mm256_storeu_ps(o + 8, _mm256_fmadd_ps(f1, sv, zs));
		}
	}
}

/* n values (a multiple of 8) of uint8 codes as (code - z) * s. */
__attribute__((target("avx2,fma"))) static void dequant8_avx2(const uint8_t *q, uint32_t n,
							     float z, float s, float *o)
{
	__m256 sv = _mm256_set1_ps(s), zs = _mm256_set1_ps(-z * s);
	for (uint32_t j = 0; j < n; j += 8) {
		__m128i b = _mm_loadl_epi64((const __m128i *)(q + j));
		__m256 f = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b));
		_mm256_storeu_ps(o + j, _mm256_fmadd_ps(f, sv, zs));
	}
}
#endif

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
#if defined(__x86_64__)
		if (p->avx2 && (p->type == WNN_U4 || p->type == WNN_I4) && !(e & 1) && n >= 16) {
			uint32_t v = n & ~15u;
			dequant4_avx2(p->q + e / 2, v, p->type == WNN_I4, z, s, o);
			o += v, e += v, n -= v;
		} else if (p->avx2 && p->type == WNN_U8 && n >= 8) {
			uint32_t v = n & ~7u;
			dequant8_avx2(p->q + e, v, z, s, o);
			o += v, e += v, n -= v;
		}
#endif
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
#if defined(__x86_64__)
		const struct graph_qweight *w = &p->w;
		uint32_t bc = w->block_cols;
		uint64_t e = (uint64_t)n * w->cols + k0;
		if (p->avx2 && (p->type == WNN_U4 || p->type == WNN_I4) && w->block_rows == 1 &&
		    bc % 16 == 0 && k0 % bc == 0 && len % bc == 0 && !(e & 1)) {
			uint64_t sb = (uint64_t)n * (w->cols / bc) + k0 / bc;
			dequant4_blocks_avx2(p->q + e / 2, p->scale + sb, p->zero, sb, bc, len / bc,
					     p->type == WNN_I4, out);
			return;
		}
#endif
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
/* Many rows of A: the m rows go in vector lanes. A is transposed once per pass into At
 * [K][mp] (mp: the pass's rows rounded up to 16, zero-padded), and QT_NR dequantized rows of W
 * (buf, [QT_NR][ldw], k contiguous) are multiplied against it: per k, each broadcast weight
 * feeds two FMAs and each load of At QT_NR, with 16 accumulators in registers. The dot-product
 * kernels above reduce across lanes at the end of every chunk and load A once per 4 FMAs; at
 * 32 rows this runs 2.5-3x faster than them (bench_matmul_nbits). */
#define QT_NR 8
#define QT_MIN_ROWS 16
#define QT_PASS_ROWS 256 /* At holds at most K * 256 floats */
#define QT_KC 512        /* weight rows' chunk: QT_NR x 512 floats stay in L1 */

/* yt[r][m0 .. m0 + 32) += sum over k < len of w[r][k] * at[k][m0 .. m0 + 32) */
__attribute__((target("avx512f"))) static void tile8x32_avx512(const float *w, uint32_t ldw,
							       const float *at, uint32_t mp,
							       uint32_t len, float *yt)
{
	__m512 c[QT_NR][2];
	for (int r = 0; r < QT_NR; r++) {
		c[r][0] = _mm512_loadu_ps(yt + (size_t)r * mp);
		c[r][1] = _mm512_loadu_ps(yt + (size_t)r * mp + 16);
	}
	for (uint32_t k = 0; k < len; k++, at += mp) {
		__m512 a0 = _mm512_loadu_ps(at), a1 = _mm512_loadu_ps(at + 16);
		for (int r = 0; r < QT_NR; r++) {
			__m512 b = _mm512_set1_ps(w[(size_t)r * ldw + k]);
			c[r][0] = _mm512_fmadd_ps(b, a0, c[r][0]);
			c[r][1] = _mm512_fmadd_ps(b, a1, c[r][1]);
		}
	}
	for (int r = 0; r < QT_NR; r++) {
		_mm512_storeu_ps(yt + (size_t)r * mp, c[r][0]);
		_mm512_storeu_ps(yt + (size_t)r * mp + 16, c[r][1]);
	}
}

/* tile8x32_avx512 for the last 16 rows of a pass */
__attribute__((target("avx512f"))) static void tile8x16_avx512(const float *w, uint32_t ldw,
							       const float *at, uint32_t mp,
							       uint32_t len, float *yt)
{
	__m512 c[QT_NR];
	for (int r = 0; r < QT_NR; r++)
		c[r] = _mm512_loadu_ps(yt + (size_t)r * mp);
	for (uint32_t k = 0; k < len; k++, at += mp) {
		__m512 a0 = _mm512_loadu_ps(at);
		for (int r = 0; r < QT_NR; r++)
			c[r] = _mm512_fmadd_ps(_mm512_set1_ps(w[(size_t)r * ldw + k]), a0, c[r]);
	}
	for (int r = 0; r < QT_NR; r++)
		_mm512_storeu_ps(yt + (size_t)r * mp, c[r]);
}

/* Y = A B for rows_a >= QT_MIN_ROWS on AVX-512, in passes of QT_PASS_ROWS rows of A. */
static enum webnn_status qmm_run_lanes(const struct qmm *p, const float *A, float *Y, int nt)
{
	uint32_t block_k = p->w.transposed ? p->w.block_cols : p->w.block_rows;
	uint32_t kc = p->kc;
	if (block_k <= QT_KC && kc > QT_KC)
		kc = QT_KC / block_k * block_k;
	uint32_t groups = (p->n + QT_NR - 1) / QT_NR;
	uint64_t pass_rows = p->rows_a < QT_PASS_ROWS ? p->rows_a : QT_PASS_ROWS;
	uint32_t mp_max = (uint32_t)((pass_rows + 15) & ~(uint64_t)15);
	float *at = aligned_alloc(64, (sizeof(float) * (size_t)p->k * mp_max + 63) & ~(size_t)63);
	if (!at)
		return WEBNN_STATUS_NO_MEMORY;
	bool oom = false;
	for (uint64_t m0 = 0; m0 < p->rows_a; m0 += QT_PASS_ROWS) {
		uint32_t rows = (uint32_t)(p->rows_a - m0 < QT_PASS_ROWS ? p->rows_a - m0 : QT_PASS_ROWS);
		uint32_t mp = (rows + 15) & ~15u;
#pragma omp parallel num_threads(nt) if (nt > 1)
		{
#pragma omp for schedule(static)
			for (uint32_t k = 0; k < p->k; k++) {
				float *row = at + (size_t)k * mp;
				for (uint32_t m = 0; m < rows; m++)
					row[m] = A[(m0 + m) * p->k + k];
				for (uint32_t m = rows; m < mp; m++)
					row[m] = 0;
			}
			float *buf = aligned_alloc(64, sizeof(float) * QT_NR * (size_t)kc);
			float *yt = aligned_alloc(64, sizeof(float) * QT_NR * (size_t)mp);
			if (!buf || !yt) {
#pragma omp atomic write
				oom = true;
			}
#pragma omp for schedule(static)
			for (uint32_t gi = 0; gi < groups; gi++) {
				if (!buf || !yt)
					continue;
				uint32_t n0 = gi * QT_NR, nr = p->n - n0 < QT_NR ? p->n - n0 : QT_NR;
				memset(yt, 0, sizeof(float) * QT_NR * mp);
				for (uint32_t k0 = 0; k0 < p->k; k0 += kc) {
					uint32_t len = p->k - k0 < kc ? p->k - k0 : kc;
					for (uint32_t r = 0; r < QT_NR; r++) {
						if (r < nr)
							dequant_col(p, n0 + r, k0, len, buf + (size_t)r * kc);
						else
							memset(buf + (size_t)r * kc, 0, len * sizeof(float));
					}
					const float *ak = at + (size_t)k0 * mp;
					uint32_t m = 0;
					for (; m + 32 <= mp; m += 32)
						tile8x32_avx512(buf, kc, ak + m, mp, len, yt + m);
					if (m < mp)
						tile8x16_avx512(buf, kc, ak + m, mp, len, yt + m);
				}
				for (uint32_t m = 0; m < rows; m++)
					for (uint32_t r = 0; r < nr; r++)
						Y[(m0 + m) * p->n + n0 + r] = yt[(size_t)r * mp + m];
			}
			free(buf);
			free(yt);
		}
		if (oom)
			break;
	}
	free(at);
	return oom ? WEBNN_STATUS_NO_MEMORY : WEBNN_STATUS_OK;
}
#endif


/* Few rows of A (a decoding step): y[m][n] for rows n0 .. n0 + nr of W (4-bit, transposed,
 * blocks of bc, a multiple of 16, along k) straight from the packed codes: per block,
 * s * (sum a q - z sum a), with sum a per block (asum, [rows_a][blocks]) computed once per
 * run. No float weight is stored anywhere. */
__attribute__((target("avx2,fma"))) static void direct4_avx2(const struct qmm *p, const float *A,
							     const float *asum, uint32_t n0,
							     uint32_t nr, float *Y)
{
	const struct graph_qweight *w = &p->w;
	const __m128i lo_mask = _mm_set1_epi8(15), bias = _mm_set1_epi8((char)0x88);
	bool is_signed = p->type == WNN_I4;
	uint32_t bc = w->block_cols, nb = p->k / bc, sstride = w->cols / bc;
	for (uint32_t r = 0; r < nr; r++) {
		uint32_t n = n0 + r;
		const uint8_t *qrow = p->q + (uint64_t)n * w->cols / 2;
		const float *srow = p->scale + (uint64_t)n * sstride;
		uint64_t zrow = (uint64_t)n * sstride;
		for (uint64_t m = 0; m < p->rows_a; m++) {
			const float *a = A + m * p->k;
			__m256 acc = _mm256_setzero_ps();
			float corr = 0;
			const uint8_t *q = qrow;
			for (uint32_t b = 0; b < nb; b++) {
				uint64_t zi = zrow + b;
				int zc = (p->zero[zi >> 1] >> ((zi & 1) * 4)) & 15;
				float z = (float)(is_signed ? zc ^ 8 : zc), s = srow[b];
				__m256 t0 = _mm256_setzero_ps(), t1 = _mm256_setzero_ps();
				for (uint32_t j = 0; j < bc; j += 16, q += 8, a += 16) {
					__m128i x = _mm_loadl_epi64((const __m128i *)q);
					if (is_signed)
						x = _mm_xor_si128(x, bias);
					__m128i lo = _mm_and_si128(x, lo_mask);
					__m128i hi = _mm_and_si128(_mm_srli_epi16(x, 4), lo_mask);
					__m128i e = _mm_unpacklo_epi8(lo, hi);
					__m256 f0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(e));
					__m256 f1 = _mm256_cvtepi32_ps(
						_mm256_cvtepu8_epi32(_mm_srli_si128(e, 8)));
					t0 = _mm256_fmadd_ps(f0, _mm256_loadu_ps(a), t0);
					t1 = _mm256_fmadd_ps(f1, _mm256_loadu_ps(a + 8), t1);
				}
				acc = _mm256_fmadd_ps(_mm256_add_ps(t0, t1), _mm256_set1_ps(s), acc);
				corr += s * z * asum[m * nb + b];
			}
			__m128 h = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
			h = _mm_add_ps(h, _mm_movehl_ps(h, h));
			h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
			Y[m * p->n + n] = _mm_cvtss_f32(h) - corr;
		}
	}
}

/* direct4_avx2 with 512-bit vectors: 32 codes (16 bytes) a step, bc a multiple of 32. */
__attribute__((target("avx512f"))) static void direct4_avx512(const struct qmm *p,
							      const float *A, const float *asum,
							      uint32_t n0, uint32_t nr, float *Y)
{
	const struct graph_qweight *w = &p->w;
	const __m128i lo_mask = _mm_set1_epi8(15), bias = _mm_set1_epi8((char)0x88);
	bool is_signed = p->type == WNN_I4;
	uint32_t bc = w->block_cols, nb = p->k / bc, sstride = w->cols / bc;
	for (uint32_t r = 0; r < nr; r++) {
		uint32_t n = n0 + r;
		const uint8_t *qrow = p->q + (uint64_t)n * w->cols / 2;
		const float *srow = p->scale + (uint64_t)n * sstride;
		uint64_t zrow = (uint64_t)n * sstride;
		for (uint64_t m = 0; m < p->rows_a; m++) {
			const float *a = A + m * p->k;
			__m512 acc = _mm512_setzero_ps();
			float corr = 0;
			const uint8_t *q = qrow;
			for (uint32_t b = 0; b < nb; b++) {
				uint64_t zi = zrow + b;
				int zc = (p->zero[zi >> 1] >> ((zi & 1) * 4)) & 15;
				float z = (float)(is_signed ? zc ^ 8 : zc), s = srow[b];
				__m512 t0 = _mm512_setzero_ps(), t1 = _mm512_setzero_ps();
				for (uint32_t j = 0; j < bc; j += 32, q += 16, a += 32) {
					__m128i x = _mm_loadu_si128((const __m128i *)q);
					if (is_signed)
						x = _mm_xor_si128(x, bias);
					__m128i lo = _mm_and_si128(x, lo_mask);
					__m128i hi = _mm_and_si128(_mm_srli_epi16(x, 4), lo_mask);
					__m512 f0 = _mm512_cvtepi32_ps(
						_mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi)));
					__m512 f1 = _mm512_cvtepi32_ps(
						_mm512_cvtepu8_epi32(_mm_unpackhi_epi8(lo, hi)));
					t0 = _mm512_fmadd_ps(f0, _mm512_loadu_ps(a), t0);
					t1 = _mm512_fmadd_ps(f1, _mm512_loadu_ps(a + 16), t1);
				}
				acc = _mm512_fmadd_ps(_mm512_add_ps(t0, t1), _mm512_set1_ps(s), acc);
				corr += s * z * asum[m * nb + b];
			}
			Y[m * p->n + n] = _mm512_reduce_add_ps(acc) - corr;
		}
	}
}

/* acc[i][r] += dot(A row m0 + i, buffer row r) for 4 rows of A and the QM_NR rows of the
 * buffer: each load of A or of the weights feeds 4 FMAs. */
__attribute__((target("avx512f"))) static void dots4x4_avx512(const float *a, uint64_t lda,
							      const float *w, uint32_t ld,
							      uint32_t len, float acc[4][QM_NR])
{
	__m512 s[4][4];
	for (int i = 0; i < 4; i++)
		for (int r = 0; r < 4; r++)
			s[i][r] = _mm512_setzero_ps();
	uint32_t k = 0;
	for (; k + 16 <= len; k += 16) {
		__m512 x0 = _mm512_loadu_ps(a + k), x1 = _mm512_loadu_ps(a + lda + k),
		       x2 = _mm512_loadu_ps(a + 2 * lda + k), x3 = _mm512_loadu_ps(a + 3 * lda + k);
		for (int r = 0; r < 4; r++) {
			__m512 v = _mm512_loadu_ps(w + r * ld + k);
			s[0][r] = _mm512_fmadd_ps(x0, v, s[0][r]);
			s[1][r] = _mm512_fmadd_ps(x1, v, s[1][r]);
			s[2][r] = _mm512_fmadd_ps(x2, v, s[2][r]);
			s[3][r] = _mm512_fmadd_ps(x3, v, s[3][r]);
		}
	}
	for (int i = 0; i < 4; i++)
		for (int r = 0; r < 4; r++) {
			float t = _mm512_reduce_add_ps(s[i][r]);
			for (uint32_t j = k; j < len; j++)
				t += a[i * lda + j] * w[r * ld + j];
			acc[i][r] += t;
		}
}

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
	bool avx2 = p->avx2;
	int nt = x->threads > 1 && groups > 1 ? x->threads : 1;
	bool oom = false;
#if defined(__x86_64__)
	if (p->direct) {
		uint32_t bc = p->w.block_cols, nb = p->k / bc;
		float *asum = malloc(sizeof(float) * (size_t)p->rows_a * nb + 1);
		if (!asum)
			return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
		for (uint64_t m = 0; m < p->rows_a; m++)
			for (uint32_t b = 0; b < nb; b++) {
				float t = 0;
				for (uint32_t j = 0; j < bc; j++)
					t += A[m * p->k + (uint64_t)b * bc + j];
				asum[m * nb + b] = t;
			}
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
		for (uint32_t gi = 0; gi < groups; gi++) {
			uint32_t n0 = gi * QM_NR, nr = p->n - n0 < QM_NR ? p->n - n0 : QM_NR;
			if (p->avx512)
				direct4_avx512(p, A, asum, n0, nr, Y);
			else
				direct4_avx2(p, A, asum, n0, nr, Y);
		}
		free(asum);
		qmm_finish(p, bufs, Y);
		return WEBNN_STATUS_OK;
	}
	if (p->avx512 && p->rows_a >= QT_MIN_ROWS) {
		if (qmm_run_lanes(p, A, Y, x->threads > 1 ? x->threads : 1) != WEBNN_STATUS_OK)
			return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
		qmm_finish(p, bufs, Y);
		return WEBNN_STATUS_OK;
	}
#endif
#pragma omp parallel num_threads(nt) if (nt > 1)
	{
		/* aligned_alloc wants a size that is a multiple of the alignment (ASan checks) */
		size_t bytes = (sizeof(float) * QM_NR * p->kc + 63) & ~(size_t)63;
		float *buf = aligned_alloc(64, bytes ? bytes : 64);
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
				uint64_t m = 0;
#if defined(__x86_64__)
				for (; p->avx512 && m + 4 <= p->rows_a; m += 4) {
					float acc4[4][QM_NR] = { { 0 } };
					dots4x4_avx512(A + m * p->k + k0, p->k, buf, p->kc, len, acc4);
					for (int i = 0; i < 4; i++)
						for (uint32_t r = 0; r < nr; r++)
							Y[(m + i) * p->n + n0 + r] += acc4[i][r];
				}
#endif
				for (; m < p->rows_a; m++) {
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
	qmm_finish(p, bufs, Y);
	return WEBNN_STATUS_OK;
}

enum webnn_status cpu_quantized_matmul_prepare(const struct cpu_build *b, struct cpu_step *s,
					       struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	struct qmm *p = calloc(1, sizeof(*p));
	if (!p)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
	p->alpha = 1;
	p->c = GRAPH_NONE;
	if (n->op == WNN_OP_GEMM) {
		const struct wnn_gemm_attrs *ga = &n->attrs.gemm;
		p->a = ga->a;
		p->rows_a = ga->m;
		p->k = ga->k;
		p->n = ga->n;
		p->alpha = (float)ga->alpha;
		p->beta = (float)ga->beta;
		if (ga->has_c && (float)ga->beta != 0) {
			p->c = ga->c;
			p->c_sm = ga->c_stride_m;
			p->c_sn = ga->c_stride_n;
		}
	} else {
		const struct wnn_matmul_attrs *a = &n->attrs.matmul;
		p->a = a->a;
		p->rows_a = a->batch * a->m;
		p->k = a->k;
		p->n = a->n;
	}
	p->w = n->qweight;
	p->type = b->g->values[p->w.q].desc.type;
	p->q = b->g->values[p->w.q].data;
	p->scale = b->g->values[p->w.scale].data;
	p->zero = b->g->values[p->w.zero].data;
	/* with an epilogue the product goes where the node's output aliases it */
	p->y = n->outputs[0];
	uint32_t block_k = p->w.transposed ? p->w.block_cols : p->w.block_rows;
	p->kc = QM_KC;
	if (block_k < QM_KC)
		p->kc = QM_KC / block_k * block_k;
	if (p->kc > p->k)
		p->kc = p->k;
#if defined(__x86_64__)
	p->avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	/* below 4 rows the weights' unpacking is not shared enough to store it */
	p->direct = p->avx2 && p->rows_a < 4 && p->w.transposed && p->w.block_rows == 1 &&
		    (p->type == WNN_U4 || p->type == WNN_I4) && p->w.block_cols % 16 == 0 &&
		    p->k % p->w.block_cols == 0 && p->w.cols % 2 == 0;
	bool avx512 = __builtin_cpu_supports("avx512f");
	p->avx512 = avx512 && (!p->direct || p->w.block_cols % 32 == 0);
#endif
	s->priv = p;
	s->destroy = free;
	s->run = qmm_run;
	s->impl = "C (quantized weights)";
	s->epilogue_after = n->epilogue.used;
	return WEBNN_STATUS_OK;
}
