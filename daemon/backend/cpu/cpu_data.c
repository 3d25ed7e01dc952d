/* The cpu backend's data family: transpose, concat, split, reshape, slice, expand, tile, reverse, pad and triangular as cache-aware, threaded copies of whole elements. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"
#include "proto/resolve.h"

/* Below this many bytes moved a copy stays on one thread: waking the team costs more. */
#define CPU_DATA_PAR_BYTES (256u << 10)
/* tile splits every dimension in two (repetitions, input size) */
#define CPU_VIEW_RANK (2 * WNN_MAX_RANK)
/* views moved in one parallel region (concat inputs, split outputs; on the stack) */
#define CPU_VIEW_MAX 16

enum cpu_copy_kind {
	CPU_COPY_RUNS,    /* innermost dimension contiguous on both sides: memcpy per row */
	CPU_COPY_STRIDED, /* innermost dimension strided on one side: element loop per row */
	CPU_COPY_TILE,    /* a transpose: 2-D blocks over the source's contiguous dimension (tp)
			     and the destination's (the last) */
};

/*
 * dst[dbase + sum c_d * ds_d] = src[sbase + sum c_d * ss_d] for every coordinate c of dims,
 * strides and bases in bytes, moving `es` bytes at a time. Dimensions of size 1 are dropped and
 * neighbours that stay contiguous on both sides are merged, so a copy keeps the fewest, longest
 * runs; a short contiguous innermost run becomes one wider element.
 */
struct cpu_view {
	uint32_t rank;
	uint64_t dims[CPU_VIEW_RANK];
	int64_t ss[CPU_VIEW_RANK], ds[CPU_VIEW_RANK];
	int64_t sbase, dbase;
	size_t es;
	enum cpu_copy_kind kind;
	uint32_t tp;
	uint64_t bp, bl;       /* TILE: block sizes along tp and the last dimension */
	uint64_t tasks;        /* units of work the threads share */
	uint64_t pieces;       /* RUNS/STRIDED: parts each row is cut into */
	uint64_t bytes;        /* bytes moved */
};

static void cpu_view_init(struct cpu_view *v, uint32_t rank, const uint64_t *dims,
			  const int64_t *ss, const int64_t *ds, int64_t sbase, int64_t dbase,
			  size_t es)
{
	memset(v, 0, sizeof(*v));
	v->sbase = sbase;
	v->dbase = dbase;
	v->es = es;
	uint64_t count = 1;
	for (uint32_t d = 0; d < rank; d++)
		count *= dims[d];
	v->bytes = count * es;
	if (count == 0)
		return; /* tasks 0: nothing to move */
	for (uint32_t d = 0; d < rank; d++) {
		if (dims[d] == 1)
			continue;
		uint32_t m = v->rank;
		if (m > 0 && v->ss[m - 1] == ss[d] * (int64_t)dims[d] &&
		    v->ds[m - 1] == ds[d] * (int64_t)dims[d]) {
			v->dims[m - 1] *= dims[d];
			v->ss[m - 1] = ss[d];
			v->ds[m - 1] = ds[d];
			continue;
		}
		v->dims[m] = dims[d];
		v->ss[m] = ss[d];
		v->ds[m] = ds[d];
		v->rank++;
	}
	if (v->rank == 0) {
		v->rank = 1;
		v->dims[0] = 1;
		v->ss[0] = v->ds[0] = (int64_t)es;
	}
	/* A contiguous innermost run of at most 16 bytes is one element of a wider copy. */
	uint32_t l = v->rank - 1;
	if (v->rank > 1 && v->ss[l] == (int64_t)v->es && v->ds[l] == (int64_t)v->es &&
	    v->dims[l] * v->es <= 16) {
		v->es *= v->dims[l];
		v->rank--;
		l--;
	}
	if (v->ss[l] == (int64_t)v->es && v->ds[l] == (int64_t)v->es) {
		v->kind = CPU_COPY_RUNS;
	} else {
		v->kind = CPU_COPY_STRIDED;
		for (uint32_t d = 0; d < l && v->ds[l] == (int64_t)v->es; d++)
			if (v->ss[d] == (int64_t)v->es) {
				v->kind = CPU_COPY_TILE;
				v->tp = d;
			}
	}
	if (v->kind == CPU_COPY_TILE) {
		/* about 4 KiB of source per block: both sides of it stay in L1 */
		uint64_t P = v->dims[v->tp], L = v->dims[l];
		uint64_t bl = L < 32 ? L : 32, bp = 4096 / (bl * v->es);
		bp = bp < 32 ? 32 : bp;
		bp = bp < P ? bp : P;
		/* a short source side (3 channels) gets long blocks on the other */
		bl = 4096 / (bp * v->es);
		bl = bl < 32 ? 32 : bl;
		v->bl = bl < L ? bl : L;
		v->bp = bp;
		uint64_t outer = 1;
		for (uint32_t d = 0; d < l; d++)
			if (d != v->tp)
				outer *= v->dims[d];
		v->tasks = outer * ((v->dims[v->tp] + v->bp - 1) / v->bp) *
			   ((v->dims[l] + v->bl - 1) / v->bl);
	} else {
		v->pieces = 1;
		v->tasks = 1;
		for (uint32_t d = 0; d < l; d++)
			v->tasks *= v->dims[d];
	}
}

/* Cuts rows into pieces when there are too few rows to keep nt threads busy. */
static void cpu_view_split_rows(struct cpu_view *v, int nt)
{
	if (v->kind == CPU_COPY_TILE || v->tasks == 0)
		return;
	uint64_t rows = v->tasks / v->pieces, want = 4 * (uint64_t)nt;
	uint64_t row_bytes = v->dims[v->rank - 1] * v->es;
	uint64_t pieces = 1;
	if (nt > 1 && rows < want) {
		pieces = (want + rows - 1) / rows;
		uint64_t most = row_bytes / 16384; /* pieces of at least 16 KiB */
		if (pieces > most)
			pieces = most ? most : 1;
	}
	v->pieces = pieces;
	v->tasks = rows * pieces;
}

#define CPU_ROW_(N)                                                                            \
	for (uint64_t i = 0; i < n; i++)                                                       \
		memcpy(d + (int64_t)i * dst, s + (int64_t)i * sst, N)

/* n elements of es bytes, d and s advancing by dst and sst bytes */
static void cpu_fill(uint8_t *d, uint64_t n, const uint8_t *v, size_t es);

static void cpu_copy_row(uint8_t *d, const uint8_t *s, uint64_t n, int64_t dst, int64_t sst,
			 size_t es)
{
	if (sst == 0 && dst == (int64_t)es) { /* broadcast */
		cpu_fill(d, n, s, es);
		return;
	}
	switch (es) {
	case 1:
		CPU_ROW_(1);
		break;
	case 2:
		CPU_ROW_(2);
		break;
	case 4:
		CPU_ROW_(4);
		break;
	case 8:
		CPU_ROW_(8);
		break;
	case 16:
		CPU_ROW_(16);
		break;
	default:
		CPU_ROW_(es);
		break;
	}
}

#ifdef __SSE2__
#include <emmintrin.h>
/* _mm_shuffle_ps with the picks in memory order: m[i0], m[i1], n[i2], n[i3] (moves bits) */
#define CPU_SH_(m, n, i0, i1, i2, i3) _mm_shuffle_ps((m), (n), _MM_SHUFFLE(i3, i2, i1, i0))

/* Three 4-byte planes (rows at s, s + ssl, s + 2 ssl) into interleaved triples at d, four at a
 * time; returns how many were done. */
static uint64_t cpu_planes3_join(uint8_t *d, const uint8_t *s, uint64_t n, int64_t ssl)
{
	uint64_t p = 0;
	for (; p + 4 <= n; p += 4) {
		__m128 A = _mm_loadu_ps((const float *)(s + p * 4));
		__m128 B = _mm_loadu_ps((const float *)(s + ssl + p * 4));
		__m128 C = _mm_loadu_ps((const float *)(s + 2 * ssl + p * 4));
		__m128 ab_lo = _mm_unpacklo_ps(A, B), bc_lo = _mm_unpacklo_ps(B, C);
		__m128 ab_hi = _mm_unpackhi_ps(A, B), bc_hi = _mm_unpackhi_ps(B, C);
		__m128 y = CPU_SH_(C, A, 0, 0, 1, 1), w = CPU_SH_(C, A, 2, 2, 3, 3);
		_mm_storeu_ps((float *)(d + p * 12), CPU_SH_(ab_lo, y, 0, 1, 0, 2));
		_mm_storeu_ps((float *)(d + p * 12 + 16), CPU_SH_(bc_lo, ab_hi, 2, 3, 0, 1));
		_mm_storeu_ps((float *)(d + p * 12 + 32), CPU_SH_(w, bc_hi, 0, 2, 2, 3));
	}
	return p;
}

/* Interleaved 4-byte triples at s into three planes (rows at d, d + dsp, d + 2 dsp). */
static uint64_t cpu_planes3_split(uint8_t *d, const uint8_t *s, uint64_t n, int64_t dsp)
{
	uint64_t i = 0;
	for (; i + 4 <= n; i += 4) {
		__m128 o0 = _mm_loadu_ps((const float *)(s + i * 12));
		__m128 o1 = _mm_loadu_ps((const float *)(s + i * 12 + 16));
		__m128 o2 = _mm_loadu_ps((const float *)(s + i * 12 + 32));
		__m128 a = CPU_SH_(o1, o2, 2, 2, 1, 1);
		__m128 b0 = CPU_SH_(o0, o1, 1, 1, 0, 0), b1 = CPU_SH_(o1, o2, 3, 3, 2, 2);
		__m128 c0 = CPU_SH_(o0, o1, 2, 2, 1, 1), c1 = CPU_SH_(o2, o2, 0, 0, 3, 3);
		_mm_storeu_ps((float *)(d + i * 4), CPU_SH_(o0, a, 0, 3, 0, 2));
		_mm_storeu_ps((float *)(d + dsp + i * 4), CPU_SH_(b0, b1, 0, 2, 0, 2));
		_mm_storeu_ps((float *)(d + 2 * dsp + i * 4), CPU_SH_(c0, c1, 0, 2, 0, 2));
	}
	return i;
}
#else
static uint64_t cpu_planes3_join(uint8_t *d, const uint8_t *s, uint64_t n, int64_t ssl)
{
	(void)d, (void)s, (void)n, (void)ssl;
	return 0;
}

static uint64_t cpu_planes3_split(uint8_t *d, const uint8_t *s, uint64_t n, int64_t dsp)
{
	(void)d, (void)s, (void)n, (void)dsp;
	return 0;
}
#endif

/* Scalar remainder of a tile. Three planes (RGB images) unrolled, either side. */
#define CPU_TILE_(N)                                                                           \
	do {                                                                                   \
		if (nl == 3) {                                                                 \
			uint64_t p = N == 4 && dsp == 12 ? cpu_planes3_join(d, s, np, ssl) : 0;   \
			for (; p < np; p++) {                                                  \
				uint8_t *dp = d + (int64_t)p * dsp;                            \
				const uint8_t *sp = s + p * N;                                 \
				memcpy(dp, sp, N);                                             \
				memcpy(dp + N, sp + ssl, N);                                   \
				memcpy(dp + 2 * N, sp + 2 * ssl, N);                           \
			}                                                                      \
			break;                                                                 \
		}                                                                              \
		if (np == 3) {                                                                 \
			uint64_t i = N == 4 && ssl == 12 ? cpu_planes3_split(d, s, nl, dsp) : 0;  \
			for (; i < nl; i++) {                                                  \
				uint8_t *di = d + i * N;                                       \
				const uint8_t *si = s + (int64_t)i * ssl;                      \
				memcpy(di, si, N);                                             \
				memcpy(di + dsp, si + N, N);                                   \
				memcpy(di + 2 * dsp, si + 2 * N, N);                           \
			}                                                                      \
			break;                                                                 \
		}                                                                              \
		if (nl < 8) {                                                                  \
			for (uint64_t i = 0; i < nl; i++) {                                    \
				uint8_t *di = d + i * N;                                       \
				const uint8_t *si = s + (int64_t)i * ssl;                      \
				for (uint64_t p = 0; p < np; p++)                              \
					memcpy(di + (int64_t)p * dsp, si + p * N, N);          \
			}                                                                      \
			break;                                                                 \
		}                                                                              \
		for (uint64_t p = 0; p < np; p++) {                                            \
			uint8_t *dp = d + (int64_t)p * dsp;                                    \
			const uint8_t *sp = s + p * N;                                         \
			for (uint64_t i = 0; i < nl; i++)                                      \
				memcpy(dp + i * N, sp + (int64_t)i * ssl, N);                   \
		}                                                                              \
	} while (0)

/* d[p * dsp + i * es] = s[p * es + i * ssl] for p < np, i < nl, element by element */
static void cpu_tile_scalar(uint8_t *d, const uint8_t *s, uint64_t np, uint64_t nl, int64_t dsp,
			    int64_t ssl, size_t es)
{
	switch (es) {
	case 1:
		CPU_TILE_(1);
		break;
	case 2:
		CPU_TILE_(2);
		break;
	case 4:
		CPU_TILE_(4);
		break;
	case 8:
		CPU_TILE_(8);
		break;
	case 16:
		CPU_TILE_(16);
		break;
	default:
		CPU_TILE_(es);
		break;
	}
}

#ifdef __SSE2__
#include <emmintrin.h>

/* K x K register transposes (SSE2, the x86-64 baseline; bits are moved, never converted):
 * s points at (p, i), source row k at s + k * ssl holds p..p+K-1 of i + k; destination row j at
 * d + j * dsp receives i..i+K-1 of p + j. */
#define CPU_LD_(k) _mm_loadu_si128((const __m128i *)(s + (k) * ssl))
#define CPU_ST_(j, r) _mm_storeu_si128((__m128i *)(d + (j) * dsp), (r))

static inline void cpu_t8x8_b(uint8_t *d, const uint8_t *s, int64_t dsp, int64_t ssl)
{
	__m128i r[8], t[4], u[4], v[4];
	_Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)
		r[k] = _mm_loadl_epi64((const __m128i *)(s + k * ssl));
	_Pragma("GCC unroll 4") for (int k = 0; k < 4; k++)
		t[k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
	u[0] = _mm_unpacklo_epi16(t[0], t[1]);
	u[1] = _mm_unpackhi_epi16(t[0], t[1]);
	u[2] = _mm_unpacklo_epi16(t[2], t[3]);
	u[3] = _mm_unpackhi_epi16(t[2], t[3]);
	v[0] = _mm_unpacklo_epi32(u[0], u[2]);
	v[1] = _mm_unpackhi_epi32(u[0], u[2]);
	v[2] = _mm_unpacklo_epi32(u[1], u[3]);
	v[3] = _mm_unpackhi_epi32(u[1], u[3]);
	_Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) {
		_mm_storel_epi64((__m128i *)(d + (2 * k) * dsp), v[k]);
		_mm_storel_epi64((__m128i *)(d + (2 * k + 1) * dsp), _mm_unpackhi_epi64(v[k], v[k]));
	}
}

static inline void cpu_t8x8_h(uint8_t *d, const uint8_t *s, int64_t dsp, int64_t ssl)
{
	__m128i r[8], t[8], u[8];
	_Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)
		r[k] = CPU_LD_(k);
	_Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) {
		t[k] = _mm_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
		t[k + 4] = _mm_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
	}
	/* t[0..3]: p 0-3 of row pairs, t[4..7]: p 4-7 */
	_Pragma("GCC unroll 2") for (int h = 0; h < 2; h++) {
		u[4 * h + 0] = _mm_unpacklo_epi32(t[4 * h + 0], t[4 * h + 1]);
		u[4 * h + 1] = _mm_unpackhi_epi32(t[4 * h + 0], t[4 * h + 1]);
		u[4 * h + 2] = _mm_unpacklo_epi32(t[4 * h + 2], t[4 * h + 3]);
		u[4 * h + 3] = _mm_unpackhi_epi32(t[4 * h + 2], t[4 * h + 3]);
	}
	_Pragma("GCC unroll 2") for (int h = 0; h < 2; h++) {
		CPU_ST_(4 * h + 0, _mm_unpacklo_epi64(u[4 * h + 0], u[4 * h + 2]));
		CPU_ST_(4 * h + 1, _mm_unpackhi_epi64(u[4 * h + 0], u[4 * h + 2]));
		CPU_ST_(4 * h + 2, _mm_unpacklo_epi64(u[4 * h + 1], u[4 * h + 3]));
		CPU_ST_(4 * h + 3, _mm_unpackhi_epi64(u[4 * h + 1], u[4 * h + 3]));
	}
}

static inline void cpu_t4x4_s(uint8_t *d, const uint8_t *s, int64_t dsp, int64_t ssl)
{
	__m128i r0 = CPU_LD_(0), r1 = CPU_LD_(1), r2 = CPU_LD_(2), r3 = CPU_LD_(3);
	__m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
	__m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
	CPU_ST_(0, _mm_unpacklo_epi64(t0, t1));
	CPU_ST_(1, _mm_unpackhi_epi64(t0, t1));
	CPU_ST_(2, _mm_unpacklo_epi64(t2, t3));
	CPU_ST_(3, _mm_unpackhi_epi64(t2, t3));
}

static inline void cpu_t2x2_d(uint8_t *d, const uint8_t *s, int64_t dsp, int64_t ssl)
{
	__m128i r0 = CPU_LD_(0), r1 = CPU_LD_(1);
	CPU_ST_(0, _mm_unpacklo_epi64(r0, r1));
	CPU_ST_(1, _mm_unpackhi_epi64(r0, r1));
}

#define CPU_TILE_SIMD_(K, N, kernel)                                                           \
	for (; nl >= K && p + K <= np; p += K) {                                               \
		uint64_t i = 0;                                                                \
		for (; i + K <= nl; i += K)                                                    \
			kernel(d + (int64_t)p * dsp + i * N, s + p * N + (int64_t)i * ssl, dsp, \
			       ssl);                                                           \
		if (i < nl)                                                                    \
			cpu_tile_scalar(d + (int64_t)p * dsp + i * N,                           \
					s + p * N + (int64_t)i * ssl, K, nl - i, dsp, ssl, N);  \
	}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CPU_AVX2_TILE 1

/* 8 x 8 of 4-byte elements in AVX2 registers (chosen at run time: the build targets baseline
 * x86-64) */
__attribute__((target("avx2"))) static inline void cpu_t8x8_s(uint8_t *d, const uint8_t *s,
							       int64_t dsp, int64_t ssl)
{
	__m256i r[8], t[8], u[8];
	_Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)
		r[k] = _mm256_loadu_si256((const __m256i *)(s + k * ssl));
	_Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) {
		t[2 * k] = _mm256_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
		t[2 * k + 1] = _mm256_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
	}
	_Pragma("GCC unroll 2") for (int h = 0; h < 2; h++) {
		u[4 * h + 0] = _mm256_unpacklo_epi64(t[4 * h + 0], t[4 * h + 2]);
		u[4 * h + 1] = _mm256_unpackhi_epi64(t[4 * h + 0], t[4 * h + 2]);
		u[4 * h + 2] = _mm256_unpacklo_epi64(t[4 * h + 1], t[4 * h + 3]);
		u[4 * h + 3] = _mm256_unpackhi_epi64(t[4 * h + 1], t[4 * h + 3]);
	}
	_Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) {
		_mm256_storeu_si256((__m256i *)(d + j * dsp),
				    _mm256_permute2x128_si256(u[j], u[j + 4], 0x20));
		_mm256_storeu_si256((__m256i *)(d + (j + 4) * dsp),
				    _mm256_permute2x128_si256(u[j], u[j + 4], 0x31));
	}
}

/* The 8 x 8 blocks of a 4-byte tile; returns the p it stopped at. */
__attribute__((target("avx2"))) static uint64_t cpu_tile4_avx2(uint8_t *d, const uint8_t *s,
								uint64_t np, uint64_t nl,
								int64_t dsp, int64_t ssl)
{
	uint64_t p = 0;
	for (; nl >= 8 && p + 8 <= np; p += 8) {
		uint64_t i = 0;
		for (; i + 8 <= nl; i += 8)
			cpu_t8x8_s(d + (int64_t)p * dsp + i * 4, s + p * 4 + (int64_t)i * ssl, dsp,
				   ssl);
		if (i < nl)
			cpu_tile_scalar(d + (int64_t)p * dsp + i * 4, s + p * 4 + (int64_t)i * ssl, 8,
					nl - i, dsp, ssl, 4);
	}
	return p;
}
#endif

/* d[p * dsp + i * es] = s[p * es + i * ssl] for p < np, i < nl */
static void cpu_copy_tile(uint8_t *d, const uint8_t *s, uint64_t np, uint64_t nl, int64_t dsp,
			  int64_t ssl, size_t es)
{
	uint64_t p = 0;
#ifdef __SSE2__
	switch (es) {
	case 1:
		CPU_TILE_SIMD_(8, 1, cpu_t8x8_b);
		break;
	case 2:
		CPU_TILE_SIMD_(8, 2, cpu_t8x8_h);
		break;
	case 4:
#ifdef CPU_AVX2_TILE
		if (__builtin_cpu_supports("avx2"))
			p = cpu_tile4_avx2(d, s, np, nl, dsp, ssl);
#endif
		CPU_TILE_SIMD_(4, 4, cpu_t4x4_s);
		break;
	case 8:
		CPU_TILE_SIMD_(2, 8, cpu_t2x2_d);
		break;
	default:
		break;
	}
#endif
	if (p < np)
		cpu_tile_scalar(d + (int64_t)p * dsp, s + p * es, np - p, nl, dsp, ssl, es);
}

/* Runs tasks [t0, t1) of a view. */
static void cpu_view_range(const struct cpu_view *v, uint8_t *D, const uint8_t *S, uint64_t t0,
			   uint64_t t1)
{
	if (t0 >= t1)
		return;
	uint32_t l = v->rank - 1;
	if (v->kind == CPU_COPY_TILE) {
		uint64_t nbl = (v->dims[l] + v->bl - 1) / v->bl;
		uint64_t nbp = (v->dims[v->tp] + v->bp - 1) / v->bp;
		for (uint64_t t = t0; t < t1; t++) {
			uint64_t bl = t % nbl, r = t / nbl;
			uint64_t bp = r % nbp;
			r /= nbp;
			int64_t so = v->sbase, doff = v->dbase;
			for (uint32_t d = l; d-- > 0;) {
				if (d == v->tp)
					continue;
				uint64_t c = r % v->dims[d];
				r /= v->dims[d];
				so += (int64_t)c * v->ss[d];
				doff += (int64_t)c * v->ds[d];
			}
			uint64_t p0 = bp * v->bp, l0 = bl * v->bl;
			uint64_t np = v->dims[v->tp] - p0 < v->bp ? v->dims[v->tp] - p0 : v->bp;
			uint64_t nl = v->dims[l] - l0 < v->bl ? v->dims[l] - l0 : v->bl;
			so += (int64_t)p0 * v->ss[v->tp] + (int64_t)l0 * v->ss[l];
			doff += (int64_t)p0 * v->ds[v->tp] + (int64_t)l0 * v->ds[l];
			cpu_copy_tile(D + doff, S + so, np, nl, v->ds[v->tp], v->ss[l], v->es);
		}
		return;
	}
	uint64_t c[CPU_VIEW_RANK];
	uint64_t row = t0 / v->pieces, pc = t0 % v->pieces, n = v->dims[l];
	int64_t so = v->sbase, doff = v->dbase;
	for (uint32_t d = l; d-- > 0;) {
		c[d] = row % v->dims[d];
		row /= v->dims[d];
		so += (int64_t)c[d] * v->ss[d];
		doff += (int64_t)c[d] * v->ds[d];
	}
	if (v->pieces == 1 && l > 0) {
		/* whole rows: a tight loop along the row dimension, the odometer above it */
		const uint32_t k1 = l - 1;
		const int64_t ss1 = v->ss[k1], ds1 = v->ds[k1], ssl = v->ss[l], dsl = v->ds[l];
		const uint64_t rows1 = v->dims[k1];
		const size_t es = v->es, run = n * es;
		const bool runs = v->kind == CPU_COPY_RUNS;
		for (uint64_t t = t0; t < t1;) {
			uint64_t m = rows1 - c[k1] < t1 - t ? rows1 - c[k1] : t1 - t;
			uint8_t *d = D + doff;
			const uint8_t *s = S + so;
			if (runs) {
				for (uint64_t j = 0; j < m; j++)
					memcpy(d + (int64_t)j * ds1, s + (int64_t)j * ss1, run);
			} else {
				for (uint64_t j = 0; j < m; j++)
					cpu_copy_row(d + (int64_t)j * ds1, s + (int64_t)j * ss1, n, dsl,
						     ssl, es);
			}
			t += m;
			so += (int64_t)m * ss1;
			doff += (int64_t)m * ds1;
			c[k1] += m;
			if (c[k1] < rows1)
				break; /* t == t1 */
			so -= ss1 * (int64_t)rows1;
			doff -= ds1 * (int64_t)rows1;
			c[k1] = 0;
			for (uint32_t k = k1; k-- > 0;) {
				so += v->ss[k];
				doff += v->ds[k];
				if (++c[k] < v->dims[k])
					break;
				so -= v->ss[k] * (int64_t)v->dims[k];
				doff -= v->ds[k] * (int64_t)v->dims[k];
				c[k] = 0;
			}
		}
		return;
	}
	for (uint64_t t = t0; t < t1; t++) {
		uint64_t lo = 0, hi = n;
		if (v->pieces > 1)
			lo = n * pc / v->pieces, hi = n * (pc + 1) / v->pieces;
		uint8_t *d = D + doff + (int64_t)lo * v->ds[l];
		const uint8_t *s = S + so + (int64_t)lo * v->ss[l];
		if (v->kind == CPU_COPY_RUNS)
			memcpy(d, s, (hi - lo) * v->es);
		else
			cpu_copy_row(d, s, hi - lo, v->ds[l], v->ss[l], v->es);
		if (++pc < v->pieces)
			continue;
		pc = 0;
		for (uint32_t k = l; k-- > 0;) {
			so += v->ss[k];
			doff += v->ds[k];
			if (++c[k] < v->dims[k])
				break;
			so -= v->ss[k] * (int64_t)v->dims[k];
			doff -= v->ds[k] * (int64_t)v->dims[k];
			c[k] = 0;
		}
	}
}

static int cpu_data_threads(const struct cpu_exec *x, uint64_t bytes)
{
	return bytes >= CPU_DATA_PAR_BYTES && x->threads > 1 ? x->threads : 1;
}

/* Moves n views (disjoint destinations) in one parallel region, each thread taking an equal
 * share of every view's tasks. */
static void cpu_views_run(struct cpu_view *v, size_t n, uint8_t *const *D,
			  const uint8_t *const *S, const struct cpu_exec *x)
{
	uint64_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += v[i].bytes;
	int nt = cpu_data_threads(x, bytes);
	for (size_t i = 0; i < n; i++)
		cpu_view_split_rows(&v[i], nt);
	if (nt <= 1) {
		for (size_t i = 0; i < n; i++)
			cpu_view_range(&v[i], D[i], S[i], 0, v[i].tasks);
		return;
	}
#pragma omp parallel num_threads(nt)
	{
		uint64_t id = (uint64_t)omp_get_thread_num(), all = (uint64_t)omp_get_num_threads();
		for (size_t i = 0; i < n; i++)
			cpu_view_range(&v[i], D[i], S[i], v[i].tasks * id / all,
				       v[i].tasks * (id + 1) / all);
	}
}

/* ---- the operators */

/* The one view a transpose, slice, expand, tile, reverse or reshape moves. */
struct cpu_data_view {
	struct cpu_view v;
	uint32_t input, output;
};

static enum webnn_status cpu_run_view(const struct cpu_step *s, void *const *bufs,
				      const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct cpu_data_view *p = s->priv;
	struct cpu_view v = p->v;
	uint8_t *D = bufs[p->output];
	const uint8_t *S = bufs[p->input];
	(void)diag;
	if (D != S)
		cpu_views_run(&v, 1, &D, &S, x);
	return WEBNN_STATUS_OK;
}

static enum webnn_status cpu_view_step(struct cpu_step *s, uint32_t input, uint32_t output,
				       uint32_t rank, const uint64_t *dims, const int64_t *ss,
				       int64_t sbase, size_t es)
{
	struct cpu_data_view *p = malloc(sizeof(*p));
	if (!p)
		return WEBNN_STATUS_NO_MEMORY;
	int64_t ds[CPU_VIEW_RANK], sb[CPU_VIEW_RANK];
	int64_t stride = (int64_t)es;
	for (uint32_t d = rank; d-- > 0;) {
		ds[d] = stride;
		stride *= (int64_t)dims[d];
		sb[d] = ss[d] * (int64_t)es;
	}
	cpu_view_init(&p->v, rank, dims, sb, ds, sbase * (int64_t)es, 0, es);
	p->input = input;
	p->output = output;
	s->priv = p;
	s->destroy = free;
	s->run = cpu_run_view;
	s->impl = "C";
	return WEBNN_STATUS_OK;
}

static enum webnn_status cpu_prepare_view_op(struct cpu_step *s, struct wnn_diag *diag)
{
	const union wnn_attrs *a = &s->n->attrs;
	uint64_t dims[CPU_VIEW_RANK];
	int64_t ss[CPU_VIEW_RANK], sbase = 0;
	uint32_t rank = 0, in, out;
	size_t es;
	enum webnn_status st;
	switch (s->n->op) {
	case WNN_OP_RESHAPE:
		in = a->reshape.input, out = a->reshape.output;
		es = wnn_dtype_size(a->reshape.type);
		rank = 1;
		dims[0] = a->reshape.count;
		ss[0] = 1;
		break;
	case WNN_OP_TRANSPOSE:
		in = a->transpose.input, out = a->transpose.output;
		es = wnn_dtype_size(a->transpose.type);
		rank = a->transpose.rank;
		for (uint32_t d = 0; d < rank; d++) {
			dims[d] = a->transpose.out_dims[d];
			ss[d] = (int64_t)a->transpose.in_strides[d];
		}
		break;
	case WNN_OP_EXPAND:
		in = a->expand.input, out = a->expand.output;
		es = wnn_dtype_size(a->expand.type);
		rank = a->expand.rank;
		for (uint32_t d = 0; d < rank; d++) {
			dims[d] = a->expand.out_dims[d];
			ss[d] = (int64_t)a->expand.in_strides[d];
		}
		break;
	case WNN_OP_SLICE:
		in = a->slice.input, out = a->slice.output;
		es = wnn_dtype_size(a->slice.type);
		rank = a->slice.rank;
		sbase = (int64_t)a->slice.base;
		for (uint32_t d = 0; d < rank; d++) {
			dims[d] = a->slice.out_dims[d];
			ss[d] = (int64_t)a->slice.step_strides[d];
		}
		break;
	case WNN_OP_REVERSE: {
		in = a->reverse.input, out = a->reverse.output;
		es = wnn_dtype_size(a->reverse.type);
		rank = a->reverse.rank;
		int64_t stride = 1;
		for (uint32_t d = rank; d-- > 0;) {
			dims[d] = a->reverse.dims[d];
			ss[d] = stride;
			if (a->reverse.mask & (1u << d)) {
				sbase += (int64_t)(dims[d] - 1) * stride;
				ss[d] = -stride;
			}
			stride *= (int64_t)dims[d];
		}
		break;
	}
	default: { /* tile: output dimension d is [repetitions, input size] */
		const struct wnn_tile_attrs *t = &a->tile;
		in = t->input, out = t->output;
		es = wnn_dtype_size(t->type);
		rank = 2 * t->rank;
		for (uint32_t d = 0; d < t->rank; d++) {
			dims[2 * d] = t->in_dims[d] ? t->out_dims[d] / t->in_dims[d] : 0;
			ss[2 * d] = 0;
			dims[2 * d + 1] = t->in_dims[d];
			ss[2 * d + 1] = (int64_t)t->in_strides[d];
		}
		break;
	}
	}
	st = cpu_view_step(s, in, out, rank, dims, ss, sbase, es);
	if (st != WEBNN_STATUS_OK)
		return wnn_diag_set(diag, st, "%s: out of memory", wnn_ops[s->n->op].name);
	return st;
}

/* concat / split: every part is a view [outer, size * inner] of its own tensor, one side of it
 * strided by the whole axis. Parts a producer wrote in place (concat in place) are skipped. */
struct cpu_data_parts {
	size_t n;
	uint32_t *src, *dst;    /* value ids */
	struct cpu_view *v;
};

static void cpu_parts_free(void *priv)
{
	struct cpu_data_parts *p = priv;
	if (p) {
		free(p->src);
		free(p->dst);
		free(p->v);
		free(p);
	}
}

static enum webnn_status cpu_run_parts(const struct cpu_step *s, void *const *bufs,
				       const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct cpu_data_parts *p = s->priv;
	uint8_t *D[CPU_VIEW_MAX];
	const uint8_t *S[CPU_VIEW_MAX];
	struct cpu_view v[CPU_VIEW_MAX];
	(void)diag;
	/* one parallel region per CPU_VIEW_MAX parts */
	for (size_t i0 = 0; i0 < p->n; i0 += CPU_VIEW_MAX) {
		size_t m = p->n - i0 < CPU_VIEW_MAX ? p->n - i0 : CPU_VIEW_MAX;
		for (size_t i = 0; i < m; i++) {
			v[i] = p->v[i0 + i];
			D[i] = bufs[p->dst[i0 + i]];
			S[i] = bufs[p->src[i0 + i]];
		}
		cpu_views_run(v, m, D, S, x);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status cpu_prepare_parts(struct cpu_step *s, struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	size_t most = n->op == WNN_OP_CONCAT ? n->attrs.concat.n_inputs : n->attrs.split.n_outputs;
	struct cpu_data_parts *p = calloc(1, sizeof(*p));
	if (p) {
		p->src = malloc((most + 1) * sizeof(*p->src));
		p->dst = malloc((most + 1) * sizeof(*p->dst));
		p->v = malloc((most + 1) * sizeof(*p->v));
	}
	if (!p || !p->src || !p->dst || !p->v) {
		cpu_parts_free(p);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    wnn_ops[n->op].name);
	}
	if (n->op == WNN_OP_CONCAT) {
		const struct wnn_concat_attrs *a = &n->attrs.concat;
		int64_t es = (int64_t)wnn_dtype_size(a->type), off = 0;
		for (size_t i = 0; i < a->n_inputs; i++) {
			int64_t size = (int64_t)s->g->values[a->inputs[i]].desc.dims[a->axis];
			uint64_t dims[2] = { a->outer, (uint64_t)size * a->inner };
			int64_t ss[2] = { (int64_t)dims[1] * es, es };
			int64_t ds[2] = { (int64_t)(a->out_axis * a->inner) * es, es };
			if (s->g->values[a->inputs[i]].slice_of != a->output) {
				cpu_view_init(&p->v[p->n], 2, dims, ss, ds, 0,
					      off * (int64_t)a->inner * es, (size_t)es);
				p->src[p->n] = a->inputs[i];
				p->dst[p->n] = a->output;
				p->n++;
			}
			off += size;
		}
	} else {
		const struct wnn_split_attrs *a = &n->attrs.split;
		int64_t es = (int64_t)wnn_dtype_size(a->type);
		for (size_t i = 0; i < a->n_outputs; i++) {
			uint64_t dims[2] = { a->outer, (uint64_t)a->sizes[i] * a->inner };
			int64_t ds[2] = { (int64_t)dims[1] * es, es };
			int64_t ss[2] = { (int64_t)(a->axis_size * a->inner) * es, es };
			cpu_view_init(&p->v[p->n], 2, dims, ss, ds,
				      (int64_t)(a->offsets[i] * a->inner) * es, 0, (size_t)es);
			p->src[p->n] = a->input;
			p->dst[p->n] = a->outputs[i];
			p->n++;
		}
	}
	s->priv = p;
	s->destroy = cpu_parts_free;
	s->run = cpu_run_parts;
	s->impl = "C";
	return WEBNN_STATUS_OK;
}

/* n copies of the es-byte value at v */
static void cpu_fill(uint8_t *d, uint64_t n, const uint8_t *v, size_t es)
{
	switch (es) {
	case 1:
		memset(d, v[0], n);
		break;
	case 2:
		for (uint64_t i = 0; i < n; i++)
			memcpy(d + 2 * i, v, 2);
		break;
	case 4:
		for (uint64_t i = 0; i < n; i++)
			memcpy(d + 4 * i, v, 4);
		break;
	case 8:
		for (uint64_t i = 0; i < n; i++)
			memcpy(d + 8 * i, v, 8);
		break;
	default:
		for (uint64_t i = 0; i < n; i++)
			memcpy(d + es * i, v, es);
		break;
	}
}

/* The input coordinate padding mode m reads for c (-1: outside, the constant), as the
 * reference computes it. */
static int64_t cpu_pad_map(int64_t c, int64_t n, enum wnn_pad_mode m)
{
	if (c >= 0 && c < n)
		return c;
	switch (m) {
	case WNN_PAD_CONSTANT:
		return -1;
	case WNN_PAD_EDGE:
		return c < 0 ? 0 : n - 1;
	default:
		c = c < 0 ? -c : 2 * (n - 1) - c;
		if (c < 0 || c >= n)
			c = c < 0 ? 0 : n - 1;
		return c;
	}
}

/* One output row of a pad: its input row starts at element so, or so < 0 when the row lies
 * in the constant border. */
static void cpu_pad_row(const struct wnn_pad_attrs *p, uint8_t *drow, const uint8_t *I,
			int64_t so, uint32_t L, uint64_t chunk, size_t es)
{
	uint64_t on = p->out_dims[L], in = p->in_dims[L], b = p->begin[L];
	uint64_t chunk_elems = chunk / es;
	if (so < 0) {
		cpu_fill(drow, on * chunk_elems, p->value, es);
		return;
	}
	const uint8_t *srow = I + so * (int64_t)es;
	if (p->mode == WNN_PAD_CONSTANT) {
		cpu_fill(drow, b * chunk_elems, p->value, es);
		cpu_fill(drow + (b + in) * chunk, (on - b - in) * chunk_elems, p->value, es);
	} else {
		for (uint64_t j = 0; j < on; j++) {
			if (j == b) {
				j += in - 1;
				continue;
			}
			int64_t m = cpu_pad_map((int64_t)j - (int64_t)b, (int64_t)in, p->mode);
			memcpy(drow + j * chunk, srow + m * (int64_t)chunk, chunk);
		}
	}
	memcpy(drow + b * chunk, srow, in * chunk);
}

/* The input offset of the output row at coordinates c (dimensions before L), -1 in the
 * constant border; from dimension `from` on, added to base. */
static int64_t cpu_pad_offset(const struct wnn_pad_attrs *p, const uint32_t *c, uint32_t from,
			      uint32_t L, int64_t base)
{
	for (uint32_t d = from; d < L && base >= 0; d++) {
		int64_t m = cpu_pad_map((int64_t)c[d] - p->begin[d], p->in_dims[d], p->mode);
		base = m < 0 ? -1 : base + m * (int64_t)p->in_strides[d];
	}
	return base;
}

/*
 * pad: the dimensions after the last padded one move as one chunk; every output row (all
 * coordinates before that dimension) is either all constant or one input row with its
 * padded chunks on both sides.
 */
static enum webnn_status cpu_run_pad(const struct cpu_step *s, void *const *bufs,
				     const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_pad_attrs *p = &s->n->attrs.pad;
	const uint8_t *I = bufs[p->input];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	(void)diag;
	if (p->count == 0)
		return WEBNN_STATUS_OK;
	int last = -1;
	for (uint32_t d = 0; d < p->rank; d++)
		if (p->begin[d] || p->out_dims[d] != p->in_dims[d])
			last = (int)d;
	if (last < 0) {
		struct cpu_view v;
		uint64_t dims[1] = { p->count };
		int64_t st[1] = { (int64_t)es };
		cpu_view_init(&v, 1, dims, st, st, 0, 0, es);
		cpu_views_run(&v, 1, &O, &I, x);
		return WEBNN_STATUS_OK;
	}
	uint32_t L = (uint32_t)last;
	uint64_t chunk = es, rows = 1;
	for (uint32_t d = L + 1; d < p->rank; d++)
		chunk *= p->in_dims[d];
	for (uint32_t d = 0; d < L; d++)
		rows *= p->out_dims[d];
	uint64_t row_bytes = p->out_dims[L] * chunk;
	int nt = cpu_data_threads(x, p->count * es);
#pragma omp parallel num_threads(nt) if (nt > 1)
	{
		uint64_t id = (uint64_t)omp_get_thread_num(), all = (uint64_t)omp_get_num_threads();
		uint64_t r0 = rows * id / all, r1 = rows * (id + 1) / all;
		uint32_t c[WNN_MAX_RANK];
		for (uint64_t d = L, rest = r0; d-- > 0;) {
			c[d] = (uint32_t)(rest % p->out_dims[d]);
			rest /= p->out_dims[d];
		}
		/* rows along dimension L - 1 share the offset of the dimensions above it */
		uint32_t k = L > 0 ? L - 1 : 0;
		int64_t base = L > 0 ? cpu_pad_offset(p, c, 0, k, 0) : 0;
		for (uint64_t r = r0; r < r1; r++) {
			cpu_pad_row(p, O + r * row_bytes, I, cpu_pad_offset(p, c, k, L, base), L,
				    chunk, es);
			if (L == 0 || ++c[k] < p->out_dims[k])
				continue;
			c[k] = 0;
			for (uint32_t d = k; d-- > 0;) {
				if (++c[d] < p->out_dims[d])
					break;
				c[d] = 0;
			}
			base = cpu_pad_offset(p, c, 0, k, 0);
		}
	}
	return WEBNN_STATUS_OK;
}

/* triangular: each row is a zero run and a copied run (in that order for upper). */
static enum webnn_status cpu_run_triangular(const struct cpu_step *s, void *const *bufs,
					    const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_triangular_attrs *p = &s->n->attrs.triangular;
	const uint8_t *I = bufs[p->input];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	int64_t cols = (int64_t)p->cols, rows = (int64_t)p->rows;
	/* beyond +-(rows + cols) every row keeps all or nothing: no overflow below */
	int64_t diag_ = p->diagonal;
	if (diag_ > rows + cols)
		diag_ = rows + cols;
	if (diag_ < -(rows + cols))
		diag_ = -(rows + cols);
	uint64_t n_rows = p->batch * p->rows;
	int nt = cpu_data_threads(x, n_rows * p->cols * es);
	(void)diag;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
	for (uint64_t i = 0; i < n_rows; i++) {
		if (cpu_cancelled(x))
			continue;
		int64_t r = (int64_t)(i % p->rows);
		/* upper keeps c >= r + diag; lower keeps c <= r + diag */
		int64_t edge = p->upper ? r + diag_ : r + diag_ + 1;
		uint64_t e = edge < 0 ? 0 : edge > cols ? (uint64_t)cols : (uint64_t)edge;
		const uint8_t *src = I + i * p->cols * es;
		uint8_t *dst = O + i * p->cols * es;
		if (p->upper) {
			memset(dst, 0, e * es); /* 0 is all-zero bits in every type */
			memcpy(dst + e * es, src + e * es, (p->cols - e) * es);
		} else {
			memcpy(dst, src, e * es);
			memset(dst + e * es, 0, (p->cols - e) * es);
		}
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status cpu_data_prepare(const struct cpu_build *b, struct cpu_step *s,
				   struct wnn_diag *diag)
{
	(void)b;
	s->run = NULL;
	if (s->n->slice.used || s->n->epilogue.used)
		return WEBNN_STATUS_OK; /* written into another value: the reference kernel */
	switch (s->n->op) {
	case WNN_OP_RESHAPE:
	case WNN_OP_TRANSPOSE:
	case WNN_OP_EXPAND:
	case WNN_OP_SLICE:
	case WNN_OP_REVERSE:
	case WNN_OP_TILE:
		return cpu_prepare_view_op(s, diag);
	case WNN_OP_CONCAT:
	case WNN_OP_SPLIT:
		return cpu_prepare_parts(s, diag);
	case WNN_OP_PAD:
		s->run = cpu_run_pad;
		break;
	case WNN_OP_TRIANGULAR:
		s->run = cpu_run_triangular;
		break;
	default:
		return WEBNN_STATUS_OK;
	}
	s->impl = "C";
	return WEBNN_STATUS_OK;
}
