/* The cpu backend's cast family: cast between every pair of data types, quantizeLinear and dequantizeLinear, as typed vectorised threaded loops. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"
#include "daemon/backend/cpu/cpu_elementwise_half.h"

/* Lets the saturating conversions' conditionals become vector selects (see cpu_elementwise.c);
 * no value changes. */
#pragma GCC optimize("no-trapping-math", "fp-contract=off")

/* ---- cast: one loop per pair of storage types (float16 goes through float32 blocks). The
 * conversions are the reference's: float -> integer truncates and saturates (NaN -> 0),
 * integer -> float rounds once from the 64-bit value, integer -> integer wraps. */

typedef void (*cast_fn)(const void *x, void *o, uint64_t n);

/* type, storage, domain (F float, S signed, U unsigned), range of an integer type */
#define CAST_TYPES_IN(M, ...)                                                                  \
	M(F32, float, F, 0, 0, __VA_ARGS__)                                                    \
	M(I32, int32_t, S, INT32_MIN, INT32_MAX, __VA_ARGS__)                                  \
	M(U32, uint32_t, U, 0, UINT32_MAX, __VA_ARGS__)                                        \
	M(I64, int64_t, S, INT64_MIN, INT64_MAX, __VA_ARGS__)                                  \
	M(U64, uint64_t, U, 0, UINT64_MAX, __VA_ARGS__)                                        \
	M(I8, int8_t, S, INT8_MIN, INT8_MAX, __VA_ARGS__)                                      \
	M(U8, uint8_t, U, 0, UINT8_MAX, __VA_ARGS__)
/* The same list again: a macro cannot expand itself for the inner loop of the pairs. */
#define CAST_TYPES_OUT(M, ...)                                                                 \
	M(F32, float, F, 0, 0, __VA_ARGS__)                                                    \
	M(I32, int32_t, S, INT32_MIN, INT32_MAX, __VA_ARGS__)                                  \
	M(U32, uint32_t, U, 0, UINT32_MAX, __VA_ARGS__)                                        \
	M(I64, int64_t, S, INT64_MIN, INT64_MAX, __VA_ARGS__)                                  \
	M(U64, uint64_t, U, 0, UINT64_MAX, __VA_ARGS__)                                        \
	M(I8, int8_t, S, INT8_MIN, INT8_MAX, __VA_ARGS__)                                      \
	M(U8, uint8_t, U, 0, UINT8_MAX, __VA_ARGS__)

/* Element conversion by (input domain, output domain); v is the input element. */
#define CAST_FF(v, OT, LO, HI) ((OT)(v))
#define CAST_FS(v, OT, LO, HI) CAST_SAT(v, OT, LO, HI)
#define CAST_FU(v, OT, LO, HI) CAST_SAT(v, OT, LO, HI)
/* 2^63 and 2^64 as doubles: >= catches the rounding of the upper bound */
#define CAST_SAT(v, OT, LO, HI)                                                                \
	((double)(v) != (double)(v) ? (OT)0                                                    \
	 : (double)(v) <= (double)(LO) ? (OT)(LO)                                               \
	 : (double)(v) >= (double)(HI) ? (OT)(HI)                                               \
				       : (OT)(double)(v))
#define CAST_SF(v, OT, LO, HI) ((OT)(int64_t)(v))
#define CAST_UF(v, OT, LO, HI) ((OT)(uint64_t)(v))
#define CAST_SS(v, OT, LO, HI) ((OT)(v))
#define CAST_SU(v, OT, LO, HI) ((OT)(v))
#define CAST_US(v, OT, LO, HI) ((OT)(v))
#define CAST_UU(v, OT, LO, HI) ((OT)(v))

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wbool-compare"
/* Conversions to and from float go through double: also built for AVX2 and AVX-512 (picked
 * at load time; the same bits). */
#define CAST_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#define CAST_CLONES_FF CAST_CLONES
#define CAST_CLONES_FS CAST_CLONES
#define CAST_CLONES_FU CAST_CLONES
#define CAST_CLONES_SF CAST_CLONES
#define CAST_CLONES_UF CAST_CLONES
#define CAST_CLONES_SS
#define CAST_CLONES_SU
#define CAST_CLONES_US
#define CAST_CLONES_UU
#define CAST_PAIR(OT, OST, OCLS, OLO, OHI, IT, IST, ICLS)                                      \
	CAST_CLONES_##ICLS##OCLS static void cast_##IT##_##OT(const void *px, void *po,        \
							      uint64_t n)              \
	{                                                                                      \
		const IST *X = px;                                                             \
		OST *O = po;                                                                   \
		_Pragma("omp simd") for (uint64_t i = 0; i < n; i++)                           \
			O[i] = CAST_##ICLS##OCLS(X[i], OST, OLO, OHI);                         \
	}
#define CAST_FROM(IT, IST, ICLS, ILO, IHI, unused) CAST_TYPES_OUT(CAST_PAIR, IT, IST, ICLS)
CAST_TYPES_IN(CAST_FROM, 0)
#pragma GCC diagnostic pop

#define CAST_ENTRY(OT, OST, OCLS, OLO, OHI, IT) [WNN_##OT] = cast_##IT##_##OT,
#define CAST_ROW(IT, IST, ICLS, ILO, IHI, unused) [WNN_##IT] = { CAST_TYPES_OUT(CAST_ENTRY, IT) },
static const cast_fn cast_fns[WNN_DT_COUNT][WNN_DT_COUNT] = { CAST_TYPES_IN(CAST_ROW, 0) };

struct cast_plan {
	uint32_t in_id, out_id;
	enum wnn_dtype in_type, out_type;
	uint64_t count;
	cast_fn fn; /* float16 operands: the float32 one's */
	size_t in_es, out_es;
};

/* Elements [b, e) of one cast. */
static void cast_range(const struct cast_plan *pl, const uint8_t *in, uint8_t *out, uint64_t b,
		       uint64_t e)
{
	const uint8_t *x = in + b * pl->in_es;
	uint8_t *o = out + b * pl->out_es;
	uint64_t n = e - b;
	bool hin = pl->in_type == WNN_F16, hout = pl->out_type == WNN_F16;
	if (pl->in_type == pl->out_type) {
		memcpy(o, x, n * pl->in_es);
	} else if (hin && pl->out_type == WNN_F32) {
		cpu_half_to_float((float *)o, (const uint16_t *)x, n);
	} else if (hout && pl->in_type == WNN_F32) {
		cpu_float_to_half((uint16_t *)o, (const float *)x, n);
	} else if (!hin && !hout) {
		pl->fn(x, o, n);
	} else {
		float t[CPU_EW_BLOCK];
		for (uint64_t i = 0; i < n; i += CPU_EW_BLOCK) {
			uint64_t m = n - i < CPU_EW_BLOCK ? n - i : CPU_EW_BLOCK;
			if (hin) { /* float16 -> integer */
				cpu_half_to_float(t, (const uint16_t *)x + i, m);
				pl->fn(t, o + i * pl->out_es, m);
			} else { /* integer -> float16: rounded to float32 first, as the reference */
				pl->fn(x + i * pl->in_es, t, m);
				cpu_float_to_half((uint16_t *)o + i, t, m);
			}
		}
	}
}

static enum webnn_status cast_run(const struct cpu_step *s, void *const *bufs,
				  const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct cast_plan *pl = s->priv;
	const uint8_t *in = bufs[pl->in_id];
	uint8_t *out = bufs[pl->out_id];
	/* no parallel region at all when serial (cpu_elementwise.c ew_run) */
	if (x->threads <= 1 || pl->count < CPU_EW_PAR_MIN) {
		for (uint64_t at = 0; at < pl->count && !cpu_cancelled(x); at += CPU_CANCEL_BLOCK)
			cast_range(pl, in, out, at,
				   pl->count - at < CPU_CANCEL_BLOCK ? pl->count : at + CPU_CANCEL_BLOCK);
		return cpu_kernel_status(x, diag);
	}
#pragma omp parallel num_threads(x->threads)
	{
		uint64_t b, e;
		cpu_ew_split(pl->count, omp_get_thread_num(), omp_get_num_threads(), &b, &e);
		for (uint64_t at = b; at < e && !cpu_cancelled(x); at += CPU_CANCEL_BLOCK)
			cast_range(pl, in, out, at,
				   e - at < CPU_CANCEL_BLOCK ? e : at + CPU_CANCEL_BLOCK);
	}
	return cpu_kernel_status(x, diag);
}

/* ---- quantizeLinear / dequantizeLinear. Scale and zero point are converted once per run
 * (float32, double); each row of the innermost dimension is then one vectorised loop with a
 * scale per element (a per-axis scale along that dimension), or runs of elements sharing one
 * (per-tensor, other axes, blocks). */

struct quant_plan {
	struct wnn_quantize_attrs q;
	uint64_t n_scale; /* scale (and zero point) elements */
};

/* What one run reads. */
struct quant_args {
	const struct wnn_quantize_attrs *p;
	const uint8_t *in;
	uint8_t *out;
	const float *scale;
	const double *zp;
	bool one_scale; /* per tensor: any range is one run */
};

/* rint in the default rounding mode, spelled so that it vectorises: adding and subtracting
 * 2^23 rounds a magnitude below 2^23 to an integer, to nearest even; larger magnitudes, inf and
 * NaN are integral already. The sign is put back so that -0.3 gives -0 as rint does. */
static inline float quant_rintf(float q)
{
	float a = fabsf(q);
	float r = (a + 0x1p23f) - 0x1p23f;
	return a < 0x1p23f ? copysignf(r, q) : q;
}

/* x / scale rounded to float32 is the float32 quotient (division rounds once either way), then
 * to nearest even, plus the zero point in double, saturated as the reference's store. SC/ZP
 * index the scale per element (by the loop's u) or name one. */
#define QUANT_LOOP(OT, LO, HI, SC, ZP)                                                         \
	do {                                                                                   \
		OT *O = po;                                                                    \
		_Pragma("omp simd") for (uint64_t u = 0; u < m; u++)                           \
		{                                                                              \
			double v = (double)quant_rintf(x[u] / (SC)) + (ZP);                    \
			O[u] = v != v ? (OT)0 : v <= (double)(LO) ? (OT)(LO)                   \
				: v >= (double)(HI) ? (OT)(HI) : (OT)v;                        \
		}                                                                              \
	} while (0)
#define QUANT_TYPES(SC, ZP)                                                                    \
	switch (a->p->out_type) {                                                              \
	case WNN_I8: QUANT_LOOP(int8_t, INT8_MIN, INT8_MAX, SC, ZP); break;                    \
	case WNN_U8: QUANT_LOOP(uint8_t, 0, UINT8_MAX, SC, ZP); break;                         \
	case WNN_I32: QUANT_LOOP(int32_t, INT32_MIN, INT32_MAX, SC, ZP); break;                \
	case WNN_U32: QUANT_LOOP(uint32_t, 0, UINT32_MAX, SC, ZP); break;                      \
	case WNN_I4: QUANT_LOOP(int8_t, -8, 7, SC, ZP); break;                                 \
	case WNN_U4: QUANT_LOOP(int8_t, 0, 15, SC, ZP); break;                                 \
	default: break;                                                                        \
	}

/* Elements [i, i + n) with scale index k (per_elem: k + 0, k + 1, ...). */
CAST_CLONES static void quant_run(const struct quant_args *a, uint64_t i, uint64_t n,
				  uint64_t k, bool per_elem)
{
	float tx[CPU_EW_BLOCK];
	int8_t tq[CPU_EW_BLOCK]; /* int4/uint4 results before they are packed */
	bool packed = wnn_dtype_is_4bit(a->p->out_type);
	size_t oes = wnn_dtype_size(a->p->out_type);
	for (uint64_t j = 0; j < n; j += CPU_EW_BLOCK) {
		uint64_t m = n - j < CPU_EW_BLOCK ? n - j : CPU_EW_BLOCK;
		const float *x;
		if (a->p->in_type == WNN_F16) {
			cpu_half_to_float(tx, (const uint16_t *)a->in + i + j, m);
			x = tx;
		} else {
			x = (const float *)a->in + i + j;
		}
		void *po = packed ? (void *)tq : a->out + (i + j) * oes;
		if (per_elem) {
			const float *sc = a->scale + k + j;
			const double *zp = a->zp + k + j;
			QUANT_TYPES(sc[u], zp[u])
		} else {
			const float sc = a->scale[k];
			const double zp = a->zp[k];
			QUANT_TYPES(sc, zp)
		}
		for (uint64_t u = 0; packed && u < m; u++)
			wnn_nibble_set(a->out, i + j + u, tq[u]);
	}
}

/* (x - zeroPoint) * scale in double, rounded to float32 (then float16), as the reference. */
#define DEQUANT_LOOP(IT, SC, ZP)                                                               \
	do {                                                                                   \
		const IT *X = (const IT *)a->in + i + j;                                       \
		_Pragma("omp simd") for (uint64_t u = 0; u < m; u++)                           \
			o[u] = (float)(((double)X[u] - (ZP)) * (double)(SC));                  \
	} while (0)
#define DEQUANT_TYPES(SC, ZP)                                                                  \
	switch (a->p->in_type) {                                                               \
	case WNN_I8: DEQUANT_LOOP(int8_t, SC, ZP); break;                                      \
	case WNN_U8: DEQUANT_LOOP(uint8_t, SC, ZP); break;                                     \
	case WNN_I32: DEQUANT_LOOP(int32_t, SC, ZP); break;                                    \
	case WNN_U32: DEQUANT_LOOP(uint32_t, SC, ZP); break;                                   \
	case WNN_I4:                                                                           \
	case WNN_U4: DEQUANT_LOOP4(SC, ZP); break;                                             \
	default: break;                                                                        \
	}
/* int4/uint4: the block unpacked into int8 first, then the same arithmetic */
#define DEQUANT_LOOP4(SC, ZP)                                                                  \
	do {                                                                                   \
		int8_t X[CPU_EW_BLOCK];                                                        \
		for (uint64_t u = 0; u < m; u++)                                               \
			X[u] = (int8_t)wnn_nibble_get(a->in, i + j + u, a->p->in_type);       \
		_Pragma("omp simd") for (uint64_t u = 0; u < m; u++)                           \
			o[u] = (float)(((double)X[u] - (ZP)) * (double)(SC));                  \
	} while (0)

CAST_CLONES static void dequant_run(const struct quant_args *a, uint64_t i, uint64_t n,
				    uint64_t k, bool per_elem)
{
	float to[CPU_EW_BLOCK];
	bool half = a->p->out_type == WNN_F16;
	for (uint64_t j = 0; j < n; j += CPU_EW_BLOCK) {
		uint64_t m = n - j < CPU_EW_BLOCK ? n - j : CPU_EW_BLOCK;
		float *o = half ? to : (float *)a->out + i + j;
		if (per_elem) {
			const float *sc = a->scale + k + j;
			const double *zp = a->zp + k + j;
			DEQUANT_TYPES(sc[u], zp[u])
		} else {
			const float sc = a->scale[k];
			const double zp = a->zp[k];
			DEQUANT_TYPES(sc, zp)
		}
		if (half)
			cpu_float_to_half((uint16_t *)a->out + i + j, to, m);
	}
}

/* Elements [b, e): along the innermost dimension the scale index steps by one every block. */
static void quant_range(const struct quant_args *a, uint64_t b, uint64_t e)
{
	const struct wnn_quantize_attrs *p = a->p;
	uint64_t inner = p->rank ? p->dims[p->rank - 1] : 1;
	uint64_t blk = p->rank && p->block[p->rank - 1] ? p->block[p->rank - 1] : 1;
	bool quant = p->op == WNN_OP_QUANTIZE_LINEAR;
	uint64_t i = b;
	/* one scale: no rows to walk (a [1, C, 7, 7] tensor's rows are 7 elements) */
	if (a->one_scale) {
		if (quant)
			quant_run(a, b, e - b, 0, false);
		else
			dequant_run(a, b, e - b, 0, false);
		return;
	}
	while (i < e) {
		uint64_t j = i % inner, row0 = i - j;
		uint64_t k0 = wnn_quantize_index(p, row0);
		bool per_elem = blk == 1 && inner > 1;
		uint64_t stop = per_elem ? inner : (j / blk + 1) * blk;
		if (stop > inner)
			stop = inner;
		uint64_t n = stop - j;
		if (n > e - i)
			n = e - i;
		uint64_t k = k0 + j / blk;
		if (quant)
			quant_run(a, i, n, k, per_elem);
		else
			dequant_run(a, i, n, k, per_elem);
		i += n;
	}
}

static double quant_load_f(const void *p, enum wnn_dtype t, uint64_t i)
{
	return t == WNN_F16 ? (double)wnn_f16_to_f32(((const uint16_t *)p)[i])
			    : (double)((const float *)p)[i];
}

static double quant_load_i(const void *p, enum wnn_dtype t, uint64_t i)
{
	switch (t) {
	case WNN_I8: return ((const int8_t *)p)[i];
	case WNN_U8: return ((const uint8_t *)p)[i];
	case WNN_I32: return ((const int32_t *)p)[i];
	case WNN_U32: return ((const uint32_t *)p)[i];
	case WNN_I4:
	case WNN_U4: return wnn_nibble_get(p, i, t);
	default: return 0;
	}
}

static enum webnn_status quant_run_step(const struct cpu_step *s, void *const *bufs,
					const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct quant_plan *pl = s->priv;
	const struct wnn_quantize_attrs *p = &pl->q;
	float *scale = malloc(pl->n_scale * sizeof *scale + 1);
	double *zp = malloc(pl->n_scale * sizeof *zp + 1);
	if (!scale || !zp) {
		free(scale);
		free(zp);
		char name[128];
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    graph_node_name(s->n, name, sizeof name));
	}
	/* float32 holds every float16 scale exactly */
	for (uint64_t k = 0; k < pl->n_scale; k++) {
		scale[k] = (float)quant_load_f(bufs[p->scale], p->scale_type, k);
		zp[k] = quant_load_i(bufs[p->zero_point], p->zp_type, k);
	}
	struct quant_args a = { p, bufs[p->input], bufs[p->output], scale, zp, pl->n_scale == 1 };
	int nt = x->threads > 1 ? x->threads : 1;
	bool packed = wnn_dtype_is_4bit(p->out_type);
#pragma omp parallel num_threads(nt) if (nt > 1 && p->count >= CPU_EW_PAR_MIN)
	{
		uint64_t b, e;
		cpu_ew_split(p->count, omp_get_thread_num(), omp_get_num_threads(), &b, &e);
		/* packed output: ranges start on even elements, so no byte has two writers */
		if (packed) {
			b += b & 1;
			e = e < p->count ? e + (e & 1) : e;
		}
		for (uint64_t at = b; at < e && !cpu_cancelled(x); at += CPU_CANCEL_BLOCK)
			quant_range(&a, at, e - at < CPU_CANCEL_BLOCK ? e : at + CPU_CANCEL_BLOCK);
	}
	/* an odd count's last high nibble belongs to no element: 0 by definition */
	if (packed && (p->count & 1))
		((uint8_t *)bufs[p->output])[p->count / 2] &= 0x0f;
	free(scale);
	free(zp);
	return cpu_kernel_status(x, diag);
}

/* ---- prepare */

static bool cast_known(enum wnn_dtype t)
{
	return t > WNN_DT_NONE && t < WNN_DT_COUNT;
}

static bool quant_types_ok(const struct wnn_quantize_attrs *q)
{
	enum wnn_dtype z = q->zp_type;
	bool fl_in = q->in_type == WNN_F32 || q->in_type == WNN_F16;
	bool fl_scale = q->scale_type == WNN_F32 || q->scale_type == WNN_F16;
	bool zp_ok = z == WNN_I8 || z == WNN_U8 || z == WNN_I32 || z == WNN_U32 ||
		     wnn_dtype_is_4bit(z);
	if (!zp_ok || !fl_scale)
		return false;
	if (q->op == WNN_OP_QUANTIZE_LINEAR)
		return fl_in && q->out_type == z;
	return !fl_in && q->in_type == z && q->out_type == q->scale_type;
}

enum webnn_status cpu_cast_prepare(const struct cpu_build *b, struct cpu_step *s,
				   struct wnn_diag *diag)
{
	const struct graph_node *n = s->n;
	char name[128];
	(void)b;
	s->run = NULL;
	if (n->op == WNN_OP_CAST) {
		const struct wnn_cast_attrs *c = &n->attrs.cast;
		if (!cast_known(c->in_type) || !cast_known(c->out_type))
			return WEBNN_STATUS_OK; /* the reference kernel says what is wrong */
		struct cast_plan *pl = calloc(1, sizeof *pl);
		if (!pl)
			return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
					    graph_node_name(n, name, sizeof name));
		pl->in_id = c->input;
		pl->out_id = c->output;
		pl->in_type = c->in_type;
		pl->out_type = c->out_type;
		pl->count = c->count;
		pl->in_es = wnn_dtype_size(c->in_type);
		pl->out_es = wnn_dtype_size(c->out_type);
		enum wnn_dtype ki = c->in_type == WNN_F16 ? WNN_F32 : c->in_type;
		enum wnn_dtype ko = c->out_type == WNN_F16 ? WNN_F32 : c->out_type;
		pl->fn = cast_fns[ki][ko];
		s->priv = pl;
		s->destroy = free;
		s->run = cast_run;
		s->impl = "C";
		return WEBNN_STATUS_OK;
	}
	if (n->op != WNN_OP_QUANTIZE_LINEAR && n->op != WNN_OP_DEQUANTIZE_LINEAR)
		return WEBNN_STATUS_OK;
	if (!quant_types_ok(&n->attrs.quantize))
		return WEBNN_STATUS_OK;
	struct quant_plan *pl = calloc(1, sizeof *pl);
	if (!pl)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    graph_node_name(n, name, sizeof name));
	pl->q = n->attrs.quantize;
	pl->n_scale = wnn_shape_count(pl->q.rank, pl->q.scale_dims);
	s->priv = pl;
	s->destroy = free;
	s->run = quant_run_step;
	s->impl = "C";
	return WEBNN_STATUS_OK;
}
