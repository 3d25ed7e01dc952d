/* The cpu backend's elementwise and cast kernels against the reference backend: every operator x every data type, same-shape and broadcast, bit for bit (float32 transcendentals within a few ulp). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/common/compare.h"
#include "daemon/backend/cpu/cpu.h"
#include "tests/graphs.h"
#include "tests/test.h"

static const enum wnn_dtype CE_TYPES[] = { WNN_F32, WNN_F16, WNN_I32, WNN_U32,
					   WNN_I64, WNN_U64, WNN_I8,  WNN_U8 };
#define CE_N_TYPES (sizeof CE_TYPES / sizeof CE_TYPES[0])

static struct backend *ce_backend(int threads)
{
	return tg_cpu_team(threads); /* the sizes straddle CPU_EW_PAR_MIN */
}

static bool ce_is_float(enum wnn_dtype t)
{
	return t == WNN_F32 || t == WNN_F16;
}

static bool ce_is_unsigned(enum wnn_dtype t)
{
	return t == WNN_U8 || t == WNN_U32 || t == WNN_U64;
}

/* Values a float kernel must treat exactly as the reference does: NaN, infinities, signed
 * zeros, subnormals, the float16 limit, and casts' saturation edges. */
static const double ce_specials[] = { NAN,    INFINITY, -INFINITY, -0.0,   0.0,    1e-40,
				      -3e-39, 65504,    -65520,    1e30,   -1e-30, 3e9,
				      -3e9,   1e20,     -1e20,     0x1p63, 0x1p64, 255.9,
				      -0.9,   0.5,      -2.5,      127.5,  -128.5, 4294967295.0 };
#define CE_N_SPECIALS (sizeof ce_specials / sizeof ce_specials[0])

/* The whole range of an integer type (values tg_random can represent). */
static void ce_int_range(enum wnn_dtype t, double *lo, double *hi)
{
	switch (t) {
	case WNN_I8: *lo = -128, *hi = 127; break;
	case WNN_U8: *lo = 0, *hi = 255; break;
	case WNN_I32: *lo = -2147483648.0, *hi = 2147483647.0; break;
	case WNN_U32: *lo = 0, *hi = 4294967295.0; break;
	case WNN_I64: *lo = -9.2e18, *hi = 9.2e18; break;
	case WNN_U64: *lo = 0, *hi = 1.8e19; break;
	default: *lo = -1, *hi = 1; break;
	}
}

static bool ce_nan_bits(const uint8_t *p, enum wnn_dtype t)
{
	if (t == WNN_F32) {
		float f;
		memcpy(&f, p, 4);
		return f != f;
	}
	uint16_t h;
	memcpy(&h, p, 2);
	return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

/* float32 erf, gelu, tanh, exp, log, sigmoid and pow compute in float32 where the machine has
 * AVX2+FMA (cpu_transcendental.c): within this many ulp of the reference (WPT allows 8 to 34, erf
 * 1/1024 absolute); measured at most 5 over every sampled float32 input. */
#define CE_F32_MATH_ULP 8

/* The ulp a one-operation graph's float32 output may differ by: 0 but for the float32 kernels. */
static double ce_allowed_ulp(const struct graph_ir *g)
{
	const struct graph_node *n = &g->nodes[g->n_nodes - 1];
	if (g->values[n->outputs[0]].desc.type != WNN_F32)
		return 0;
	return cpu_f32_unary(n->op) || cpu_f32_binary(n->op) ? CE_F32_MATH_ULP : 0;
}

/* Same bits (any NaN for a NaN: payloads are not specified), -0 and +0 distinguished; float32
 * elements within ulp where ulp > 0 (a NaN still only for a NaN, an infinity only for itself or
 * the largest finite value next to it). */
static bool ce_same(const void *got, const void *want, enum wnn_dtype t, uint64_t n, double ulp,
		    char *msg, size_t len)
{
	size_t es = wnn_dtype_size(t);
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *g = (const uint8_t *)got + i * es, *w = (const uint8_t *)want + i * es;
		if (memcmp(g, w, es) == 0)
			continue;
		if (ce_is_float(t) && ce_nan_bits(g, t) && ce_nan_bits(w, t))
			continue;
		if (ulp > 0 && t == WNN_F32) {
			float fg, fw;
			memcpy(&fg, g, 4);
			memcpy(&fw, w, 4);
			if (tool_f32_ulp_distance(fg, fw) <= ulp)
				continue;
		}
		snprintf(msg, len, "element %llu: cpu %.17g, reference %.17g", (unsigned long long)i,
			 tg_get(got, t, i), tg_get(want, t, i));
		return false;
	}
	return true;
}

/* Input i of g: seeded values in [lo, hi] (or r[i]), every 5th one a special value for float
 * inputs when specials is set. */
static void *ce_input(const struct wnn_desc *d, uint64_t seed, double lo, double hi,
		      bool specials)
{
	uint64_t count = 1;
	wnn_desc_count(d, &count);
	void *p = malloc(tg_bytes(d) + 8);
	ASSERT(p != NULL);
	tg_random(p, d->type, count, seed, lo, hi);
	if (specials && ce_is_float(d->type))
		for (uint64_t i = seed % 5; i < count; i += 5)
			tg_pack((uint8_t *)p + i * wnn_dtype_size(d->type), d->type,
				&ce_specials[(i / 5 + seed) % CE_N_SPECIALS], 1);
	return p;
}

struct ce_range {
	double lo, hi;
};

/* Runs g on the reference and the cpu backend with the same inputs; every output must match
 * bit for bit (the cpu kernels compute in the reference's domains), but for the float32
 * transcendentals (ce_allowed_ulp). */
static void ce_compare(struct backend *be, const struct graph_ir *g, const struct ce_range *r,
		       bool specials, uint64_t seed, const char *label)
{
	void *in[TG_MAX_OPERANDS] = { 0 }, *ref[TG_MAX_OPERANDS] = { 0 },
	     *out[TG_MAX_OPERANDS] = { 0 };
	for (size_t i = 0; i < g->n_inputs; i++)
		in[i] = ce_input(&g->values[g->inputs[i]].desc, seed + 77 * i, r[i].lo, r[i].hi,
				 specials);
	for (size_t i = 0; i < g->n_outputs; i++) {
		size_t bytes = tg_bytes(&g->values[g->outputs[i]].desc) + 8;
		ref[i] = calloc(1, bytes);
		out[i] = calloc(1, bytes);
	}
	struct wnn_diag diag = { 0 };
	enum webnn_status st =
		tg_run(&backend_reference, NULL, g, (const void *const *)in, ref, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: reference: %s", label, diag.message);
	wnn_diag_clear(&diag);
	st = tg_run(&backend_cpu, be, g, (const void *const *)in, out, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: cpu: %s", label, diag.message);
	for (size_t i = 0; i < g->n_outputs; i++) {
		const struct wnn_desc *d = &g->values[g->outputs[i]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		char msg[256];
		ASSERT_MSG(ce_same(out[i], ref[i], d->type, count, ce_allowed_ulp(g), msg, sizeof msg),
			   "%s: output %zu (%s): %s", label, i, wnn_dtype_name(d->type), msg);
	}
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		free(in[i]);
		free(ref[i]);
		free(out[i]);
	}
}

static const struct graph_ir *ce_finish(struct tg_graph *t, Webnn__Ipc__Operation *op,
					const char *label)
{
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(tg_op(t, op, &diag) == WEBNN_STATUS_OK, "%s: %s", label, diag.message);
	const struct graph_ir *g = tg_finish(t, &diag);
	ASSERT_MSG(g, "%s: %s", label, diag.message);
	return g;
}

/* The node of a one-operation graph has a fast kernel (not the reference fallback). */
static void ce_expect_fast(const struct graph_ir *g, const char *label)
{
	ASSERT(g->n_nodes >= 1);
	const struct graph_node *n = &g->nodes[g->n_nodes - 1];
	struct cpu_build b = { .g = g, .threads = 2 };
	struct cpu_step s = { .n = n, .g = g };
	struct wnn_diag diag = { 0 };
	enum webnn_status st = wnn_ops[n->op].family == WNN_FAMILY_CAST
				       ? cpu_cast_prepare(&b, &s, &diag)
				       : cpu_elementwise_prepare(&b, &s, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: prepare: %s", label, diag.message);
	ASSERT_MSG(s.run != NULL, "%s: no fast kernel (reference fallback)", label);
	if (s.destroy)
		s.destroy(s.priv);
}

/* Broadcast patterns: same shape, rank-changing, scalar, NCHW channel, NHWC channel,
 * outer product, and big ones that take the threaded path (one on a row boundary that does
 * not divide by the thread share). */
static const struct {
	uint32_t ra, rb;
	uint32_t a[4], b[4];
} ce_shapes[] = {
	{ 3, 3, { 2, 3, 4 }, { 2, 3, 4 } },
	{ 3, 2, { 2, 1, 5 }, { 3, 1 } },
	{ 2, 0, { 4, 3 }, { 0 } },
	{ 0, 2, { 0 }, { 4, 3 } },
	{ 4, 3, { 2, 3, 4, 5 }, { 3, 1, 1 } },
	{ 4, 1, { 2, 4, 5, 3 }, { 3 } },
	{ 2, 2, { 6, 1 }, { 1, 7 } },
	{ 1, 1, { 70001 }, { 70001 } },
	{ 2, 1, { 67, 1031 }, { 1031 } },
	{ 3, 3, { 5, 7, 1001 }, { 5, 7, 1 } },
};
#define CE_N_SHAPES (sizeof ce_shapes / sizeof ce_shapes[0])

static void ce_binary(struct backend *be, enum wnn_op op, enum wnn_dtype t, size_t si,
		      bool full_range)
{
	struct tg_graph tg;
	tg_init(&tg);
	uint32_t a = tg_input(&tg, t, ce_shapes[si].ra, ce_shapes[si].a);
	uint32_t bb = tg_input(&tg, t, ce_shapes[si].rb, ce_shapes[si].b);
	Webnn__Ipc__ElementwiseBinary m = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
	m.a = a;
	m.b = bb;
	m.output = tg_next(&tg);
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, op, &m);
	char label[128];
	snprintf(label, sizeof label, "%s %s shape %zu%s", wnn_ops[op].name, wnn_dtype_name(t),
		 si, full_range ? " full range" : "");
	const struct graph_ir *g = ce_finish(&tg, &o, label);
	ce_expect_fast(g, label);
	struct ce_range r[2] = { { ce_is_unsigned(t) ? 0 : -6, 6 },
				 { ce_is_unsigned(t) ? 0 : -6, 6 } };
	if (op == WNN_OP_POW)
		r[0].hi = r[1].hi = 3, r[0].lo = r[1].lo = ce_is_unsigned(t) ? 0 : -3;
	if (full_range) {
		ce_int_range(t, &r[0].lo, &r[0].hi);
		r[1] = r[0];
	}
	ce_compare(be, g, r, true, 1234 + si, label);
	tg_free(&tg);
}

TEST_TIMEOUT(cpu_elementwise_binary_all_ops_types, 300)
{
	struct backend *be = ce_backend(2);
	int ran = 0;
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		if (wnn_ops[op].attrs != WNN_ATTRS_BINARY)
			continue;
		for (size_t ti = 0; ti < CE_N_TYPES; ti++) {
			enum wnn_dtype t = CE_TYPES[ti];
			if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)) ||
			    !backend_reference.supports(NULL, (enum wnn_op)op, t))
				continue;
			for (size_t si = 0; si < CE_N_SHAPES; si++, ran++)
				ce_binary(be, (enum wnn_op)op, t, si, false);
			/* wrap-around, INT_MIN / -1, huge powers */
			if (!ce_is_float(t))
				for (size_t si = 0; si < 3; si++, ran++)
					ce_binary(be, (enum wnn_op)op, t, si, true);
		}
	}
	ASSERT(ran > 500);
	backend_cpu.shutdown(be);
}

static void ce_unary(struct backend *be, enum wnn_op op, enum wnn_dtype t, uint32_t rank,
		     const uint32_t *dims, bool full_range, const char *what)
{
	struct tg_graph tg;
	tg_init(&tg);
	Webnn__Ipc__ElementwiseUnary m = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	m.input = tg_input(&tg, t, rank, dims);
	m.output = tg_next(&tg);
	if (op == WNN_OP_ELU || op == WNN_OP_LEAKY_RELU || op == WNN_OP_HARD_SIGMOID ||
	    op == WNN_OP_LINEAR) {
		m.has_alpha = 1;
		m.alpha = 0.75;
		m.has_beta = op != WNN_OP_ELU && op != WNN_OP_LEAKY_RELU;
		m.beta = 0.25;
	}
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, op, &m);
	char label[128];
	snprintf(label, sizeof label, "%s %s %s", wnn_ops[op].name, wnn_dtype_name(t), what);
	const struct graph_ir *g = ce_finish(&tg, &o, label);
	ce_expect_fast(g, label);
	struct ce_range r = { ce_is_unsigned(t) ? 0 : -4, 4 };
	if (full_range)
		ce_int_range(t, &r.lo, &r.hi);
	ce_compare(be, g, &r, true, 4321, label);
	tg_free(&tg);
}

TEST_TIMEOUT(cpu_elementwise_unary_all_ops_types, 300)
{
	struct backend *be = ce_backend(2);
	int ran = 0;
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		if (wnn_ops[op].attrs != WNN_ATTRS_UNARY)
			continue;
		for (size_t ti = 0; ti < CE_N_TYPES; ti++) {
			enum wnn_dtype t = CE_TYPES[ti];
			if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)) ||
			    !backend_reference.supports(NULL, (enum wnn_op)op, t))
				continue;
			ce_unary(be, (enum wnn_op)op, t, 2, (uint32_t[]){ 7, 9 }, false, "7x9");
			ce_unary(be, (enum wnn_op)op, t, 2, (uint32_t[]){ 129, 547 }, false, "big");
			ce_unary(be, (enum wnn_op)op, t, 0, NULL, false, "scalar");
			if (!ce_is_float(t))
				ce_unary(be, (enum wnn_op)op, t, 1, (uint32_t[]){ 300 }, true,
					 "full range");
			ran++;
		}
	}
	ASSERT(ran > 40);
	backend_cpu.shutdown(be);
}

/* erf, gelu, softplus and pow have their own kernels (cpu_elementwise.c: ew_erf, ew_erfc,
 * ew_log1p, ew_pow, each checked against libm on every float32 input or on 2.5e8 sampled
 * pairs): their tails and special cases, far past the ranges above, give the reference's
 * bits. gelu to -14, where its value leaves float32; erf past 3.9, where it rounds to 1;
 * softplus past its switch to x at 20 and far into e^x < 1e-16; pow over signs, integer and
 * fractional exponents, overflow and underflow, with every special value as either operand. */
TEST_TIMEOUT(cpu_elementwise_transcendental_tails, 120)
{
	struct backend *be = ce_backend(2);
	static const enum wnn_op unary[] = { WNN_OP_ERF, WNN_OP_GELU, WNN_OP_SOFTPLUS };
	static const enum wnn_dtype types[] = { WNN_F32, WNN_F16 };
	for (size_t ti = 0; ti < 2; ti++) {
		for (size_t k = 0; k < 3; k++) {
			struct tg_graph tg;
			tg_init(&tg);
			Webnn__Ipc__ElementwiseUnary m = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
			m.input = tg_input(&tg, types[ti], 1, (uint32_t[]){ 50021 });
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, unary[k], &m);
			char label[96];
			snprintf(label, sizeof label, "%s %s tails", wnn_ops[unary[k]].name,
				 wnn_dtype_name(types[ti]));
			const struct graph_ir *g = ce_finish(&tg, &o, label);
			ce_expect_fast(g, label);
			struct ce_range r = { -14, 14 };
			if (unary[k] == WNN_OP_SOFTPLUS)
				r.lo = -45, r.hi = 45;
			ce_compare(be, g, &r, true, 99 + k, label);
			tg_free(&tg);
		}
		/* pow: bases over [-9, 9] against exponents over [-45, 45], then integer exponents */
		for (int integral = 0; integral < 2; integral++) {
			struct tg_graph tg;
			tg_init(&tg);
			Webnn__Ipc__ElementwiseBinary m = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
			m.a = tg_input(&tg, types[ti], 1, (uint32_t[]){ 40009 });
			m.b = tg_input(&tg, types[ti], 1, (uint32_t[]){ 40009 });
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_POW, &m);
			char label[96];
			snprintf(label, sizeof label, "pow %s%s", wnn_dtype_name(types[ti]),
				 integral ? " integer exponents" : "");
			const struct graph_ir *g = ce_finish(&tg, &o, label);
			ce_expect_fast(g, label);
			struct ce_range r[2] = { { -9, 9 }, { -45, 45 } };
			if (integral) {
				/* tg_random rounds integer types only: exponents from a small int set */
				uint64_t count = 40009;
				void *in[2] = { ce_input(&g->values[g->inputs[0]].desc, 7, -9, 9, true),
						malloc(count * 4 + 8) };
				ASSERT(in[1]);
				for (uint64_t i = 0; i < count; i++) {
					double e = (double)((int)(i * 7919 % 41) - 20);
					tg_pack((uint8_t *)in[1] + i * wnn_dtype_size(types[ti]), types[ti],
						&e, 1);
				}
				void *ref = calloc(1, count * 4 + 8), *out = calloc(1, count * 4 + 8);
				ASSERT(ref && out);
				struct wnn_diag diag = { 0 };
				ASSERT(tg_run(&backend_reference, NULL, g, (const void *const *)in,
					      (void *[]){ ref }, &diag) == WEBNN_STATUS_OK);
				ASSERT(tg_run(&backend_cpu, be, g, (const void *const *)in,
					      (void *[]){ out }, &diag) == WEBNN_STATUS_OK);
				char msg[256];
				ASSERT_MSG(ce_same(out, ref, types[ti], count, ce_allowed_ulp(g), msg,
						   sizeof msg),
					   "%s: %s",
					   label, msg);
				free(in[0]);
				free(in[1]);
				free(ref);
				free(out);
			} else {
				ce_compare(be, g, r, true, 4242, label);
			}
			tg_free(&tg);
		}
	}
	backend_cpu.shutdown(be);
}

/* The float32 kernels (cpu_transcendental.c) against libm in double rounded to float32: every
 * 509th float32 bit pattern (8.4 million inputs, NaNs, infinities, zeros and subnormals among
 * them) for each unary function, and for pow 2^20 pairs of random bit patterns, of bases in
 * [-20, 20] with integer, large and small exponents, plus every pair of special values. Within
 * CE_F32_MATH_ULP; a NaN only for a NaN. */
static double ce_libm(enum wnn_op op, double x)
{
	switch (op) {
	case WNN_OP_ERF: return erf(x);
	case WNN_OP_GELU: return 0.5 * x * erfc(x * -0.7071067811865475);
	case WNN_OP_TANH: return tanh(x);
	case WNN_OP_EXP: return exp(x);
	case WNN_OP_LOG: return log(x);
	default: return 1 / (1 + exp(-x)); /* sigmoid */
	}
}

static uint64_t ce_rng(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

TEST_TIMEOUT(cpu_f32_math_sampled_inputs, 300)
{
	if (!cpu_f32_unary(WNN_OP_ERF))
		SKIP("no AVX2+FMA: float32 runs the double kernels");
	static const enum wnn_op ops[] = { WNN_OP_ERF, WNN_OP_GELU, WNN_OP_TANH,
					   WNN_OP_EXP, WNN_OP_LOG,  WNN_OP_SIGMOID };
	const uint64_t stride = 509, n = (1ull << 32) / stride + 1;
	float *x = malloc(n * sizeof *x), *o = malloc(n * sizeof *o);
	ASSERT(x && o);
	for (uint64_t i = 0; i < n; i++) {
		uint32_t bits = (uint32_t)(i * stride);
		memcpy(&x[i], &bits, sizeof bits);
	}
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
		cpu_f32_unary(ops[k])(x, o, n);
		double worst = 0;
		uint64_t at = 0;
		for (uint64_t i = 0; i < n; i++) {
			double d = tool_f32_ulp_distance(o[i], (float)ce_libm(ops[k], x[i]));
			if (d > worst)
				worst = d, at = i;
		}
		printf("%-8s at most %g ulp (at %a)\n", wnn_ops[ops[k]].name, worst, (double)x[at]);
		ASSERT_MSG(worst <= CE_F32_MATH_ULP, "%s(%a): %a, libm %a: %g ulp",
			   wnn_ops[ops[k]].name, (double)x[at], (double)o[at],
			   (double)(float)ce_libm(ops[k], x[at]), worst);
	}
	free(x);
	free(o);

	static const float sp[] = { NAN,   INFINITY, -INFINITY, 0.0f,   -0.0f,	 1e-40f, -3e-39f,
				    1.0f,  -1.0f,    2.0f,	-2.0f,  3.0f,	 -3.0f,	 4.0f,
				    -4.0f, 0.5f,     -0.5f,	2.5f,   -2.5f,	 1e30f,	 -1e30f,
				    65504, 0x1p64f,  -0x1p63f,	1e-30f, 127.5f, -44.5f, 1.0000001f };
	const size_t n_sp = sizeof sp / sizeof sp[0], n_rand = 1u << 20;
	const size_t m = n_sp * n_sp + n_rand;
	float *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b), *p = malloc(m * sizeof *p);
	ASSERT(a && b && p);
	for (size_t i = 0; i < n_sp * n_sp; i++)
		a[i] = sp[i / n_sp], b[i] = sp[i % n_sp];
	uint64_t seed = 77;
	for (size_t i = n_sp * n_sp; i < m; i++) {
		uint32_t bits = (uint32_t)ce_rng(&seed) << 16 ^ (uint32_t)ce_rng(&seed);
		memcpy(&a[i], &bits, sizeof bits);
		if (i % 3 == 0)
			a[i] = (float)((double)ce_rng(&seed) / 2147483648.0 * 40 - 20);
		double e = (double)ce_rng(&seed) / 2147483648.0 * 90 - 45;
		b[i] = i % 4 == 0 ? (float)((int)(ce_rng(&seed) % 41) - 20)
		       : i % 4 == 1 ? (float)e
				    : (float)(e / 40);
	}
	cpu_f32_binary(WNN_OP_POW)(a, b, p, m, 1, 1);
	for (size_t i = 0; i < m; i++) {
		float want = (float)pow(a[i], b[i]);
		ASSERT_MSG(tool_f32_ulp_distance(p[i], want) <= CE_F32_MATH_ULP,
			   "pow(%a, %a): %a, libm %a", (double)a[i], (double)b[i], (double)p[i],
			   (double)want);
	}
	/* a broadcast operand on either side, as the chains and broadcast rows call it */
	float one[1] = { 3.0f }, q[600];
	cpu_f32_binary(WNN_OP_POW)(a + n_sp * n_sp, one, q, 600, 1, 0);
	for (size_t i = 0; i < 600; i++)
		ASSERT(tool_f32_ulp_distance(q[i], (float)pow(a[n_sp * n_sp + i], 3.0)) <=
		       CE_F32_MATH_ULP);
	one[0] = 1.5f;
	cpu_f32_binary(WNN_OP_POW)(one, b + n_sp * n_sp, q, 600, 0, 1);
	for (size_t i = 0; i < 600; i++)
		ASSERT(tool_f32_ulp_distance(q[i], (float)pow(1.5, b[n_sp * n_sp + i])) <=
		       CE_F32_MATH_ULP);
	free(a);
	free(b);
	free(p);
}

TEST_TIMEOUT(cpu_elementwise_clamp_prelu_where_types, 300)
{
	struct backend *be = ce_backend(2);
	char label[128];
	for (size_t ti = 0; ti < CE_N_TYPES; ti++) {
		enum wnn_dtype t = CE_TYPES[ti];
		bool uns = ce_is_unsigned(t);
		/* clamp: both bounds, min only, max only, bounds outside the type */
		for (int bounds = 0; bounds < 4; bounds++) {
			for (int big = 0; big < 2; big++) {
				struct tg_graph tg;
				tg_init(&tg);
				Webnn__Ipc__Number lo = WEBNN__IPC__NUMBER__INIT,
						   hi = WEBNN__IPC__NUMBER__INIT;
				lo.value_case = hi.value_case = WEBNN__IPC__NUMBER__VALUE_F;
				lo.f = bounds == 3 ? -1e30 : uns ? 2 : -2.5;
				hi.f = bounds == 3 ? 1e30 : 3.5;
				Webnn__Ipc__Clamp m = WEBNN__IPC__CLAMP__INIT;
				m.input = tg_input(&tg, t, 2, (uint32_t[]){ big ? 300 : 3, 257 });
				m.output = tg_next(&tg);
				if (bounds != 1)
					m.min_value = &lo;
				if (bounds != 2)
					m.max_value = &hi;
				Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
				tg_set_op(&o, WNN_OP_CLAMP, &m);
				snprintf(label, sizeof label, "clamp %s bounds %d big %d",
					 wnn_dtype_name(t), bounds, big);
				const struct graph_ir *g = ce_finish(&tg, &o, label);
				ce_expect_fast(g, label);
				struct ce_range r = { uns ? 0 : -6, 6 };
				if (bounds == 3 && !ce_is_float(t))
					ce_int_range(t, &r.lo, &r.hi);
				ce_compare(be, g, &r, true, 99 + (uint64_t)bounds, label);
				tg_free(&tg);
			}
		}
		/* where: values of every type, condition and values broadcast */
		for (size_t si = 0; si < CE_N_SHAPES; si++) {
			struct tg_graph tg;
			tg_init(&tg);
			Webnn__Ipc__Where m = WEBNN__IPC__WHERE__INIT;
			m.condition = tg_input(&tg, WNN_U8, ce_shapes[si].ra, ce_shapes[si].a);
			m.true_value = tg_input(&tg, t, ce_shapes[si].rb, ce_shapes[si].b);
			m.false_value = tg_input(&tg, t, ce_shapes[si].ra, ce_shapes[si].a);
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_WHERE, &m);
			snprintf(label, sizeof label, "where %s shape %zu", wnn_dtype_name(t), si);
			const struct graph_ir *g = ce_finish(&tg, &o, label);
			ce_expect_fast(g, label);
			struct ce_range r[3] = { { 0, 2 }, { uns ? 0 : -50, 50 }, { uns ? 0 : -50, 50 } };
			ce_compare(be, g, r, true, 7 + si, label);
			tg_free(&tg);
		}
		/* prelu: slope per channel (NCHW and NHWC), bidirectional, same shape */
		if (!(wnn_ops[WNN_OP_PRELU].dtypes & WNN_DT_BIT(t)))
			continue;
		for (size_t si = 0; si < CE_N_SHAPES; si++) {
			for (int full = 0; full < (ce_is_float(t) ? 1 : 2); full++) {
				struct tg_graph tg;
				tg_init(&tg);
				Webnn__Ipc__Prelu m = WEBNN__IPC__PRELU__INIT;
				m.input = tg_input(&tg, t, ce_shapes[si].ra, ce_shapes[si].a);
				m.slope = tg_input(&tg, t, ce_shapes[si].rb, ce_shapes[si].b);
				m.output = tg_next(&tg);
				Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
				tg_set_op(&o, WNN_OP_PRELU, &m);
				snprintf(label, sizeof label, "prelu %s shape %zu full %d",
					 wnn_dtype_name(t), si, full);
				const struct graph_ir *g = ce_finish(&tg, &o, label);
				ce_expect_fast(g, label);
				struct ce_range r[2] = { { -6, 6 }, { -2, 2 } };
				if (full) {
					ce_int_range(t, &r[0].lo, &r[0].hi);
					r[1] = r[0];
				}
				ce_compare(be, g, r, true, 11 + si, label);
				tg_free(&tg);
			}
		}
	}
	backend_cpu.shutdown(be);
}

TEST_TIMEOUT(cpu_cast_all_pairs, 300)
{
	struct backend *be = ce_backend(2);
	char label[128];
	for (size_t a = 0; a < CE_N_TYPES; a++)
		for (size_t c = 0; c < CE_N_TYPES; c++)
			for (int big = 0; big < 2; big++) {
				enum wnn_dtype ti = CE_TYPES[a], to = CE_TYPES[c];
				struct tg_graph tg;
				tg_init(&tg);
				Webnn__Ipc__Cast m = WEBNN__IPC__CAST__INIT;
				m.input = tg_input(&tg, ti, 2, (uint32_t[]){ big ? 300 : 5, 131 });
				m.output = tg_next(&tg);
				m.data_type = (Webnn__Ipc__DataType)to;
				Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
				tg_set_op(&o, WNN_OP_CAST, &m);
				snprintf(label, sizeof label, "cast %s -> %s big %d",
					 wnn_dtype_name(ti), wnn_dtype_name(to), big);
				const struct graph_ir *g = ce_finish(&tg, &o, label);
				ce_expect_fast(g, label);
				/* floats: saturation, NaN, rounding; integers: wrap-around */
				struct ce_range r = { ce_is_unsigned(ti) ? 0 : -300, 300 };
				if (!ce_is_float(ti))
					ce_int_range(ti, &r.lo, &r.hi);
				ce_compare(be, g, &r, true, 5 + a * 8 + c, label);
				tg_free(&tg);
			}
	backend_cpu.shutdown(be);
}

TEST_TIMEOUT(cpu_cast_quantize_dequantize, 300)
{
	struct backend *be = ce_backend(2);
	static const enum wnn_dtype qtypes[] = { WNN_I8, WNN_U8, WNN_I32, WNN_U32 };
	/* per tensor, per row, per column, blockwise, and a big per-channel one */
	static const struct {
		uint32_t x[2], s[2];
	} shapes[] = {
		{ { 6, 4 }, { 1, 1 } }, { { 6, 4 }, { 3, 1 } }, { { 6, 4 }, { 1, 4 } },
		{ { 6, 4 }, { 3, 2 } }, { { 513, 96 }, { 1, 96 } }, { { 96, 513 }, { 96, 1 } },
	};
	char label[128];
	for (int f = 0; f < 2; f++)
		for (size_t qi = 0; qi < 4; qi++)
			for (size_t sd = 0; sd < sizeof shapes / sizeof shapes[0]; sd++)
				for (int deq = 0; deq < 2; deq++) {
					enum wnn_dtype ft = f ? WNN_F16 : WNN_F32, qt = qtypes[qi];
					enum wnn_op op = deq ? WNN_OP_DEQUANTIZE_LINEAR
							     : WNN_OP_QUANTIZE_LINEAR;
					if (!(wnn_ops[op].dtypes & WNN_DT_BIT(deq ? qt : ft)))
						continue;
					struct tg_graph tg;
					tg_init(&tg);
					Webnn__Ipc__QuantizeLinear m = WEBNN__IPC__QUANTIZE_LINEAR__INIT;
					m.input = tg_input(&tg, deq ? qt : ft, 2, shapes[sd].x);
					m.scale = tg_input(&tg, ft, 2, shapes[sd].s);
					m.zero_point = tg_input(&tg, qt, 2, shapes[sd].s);
					m.output = tg_next(&tg);
					Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
					tg_set_op(&o, op, &m);
					snprintf(label, sizeof label, "%s %s %s scale %zu",
						 wnn_ops[op].name, wnn_dtype_name(ft),
						 wnn_dtype_name(qt), sd);
					const struct graph_ir *g = ce_finish(&tg, &o, label);
					ce_expect_fast(g, label);
					bool uns = ce_is_unsigned(qt);
					struct ce_range r[3] = { { uns ? 0 : -40, 40 },
								 { 0.05, 0.5 },
								 { uns ? 0 : -5, 5 } };
					if (!deq)
						r[0] = (struct ce_range){ -300, 300 };
					else
						ce_int_range(qt, &r[0].lo, &r[0].hi);
					/* specials only in the quantized input: a NaN scale is not
					 * what this checks */
					ce_compare(be, g, r, !deq, 3 + sd, label);
					tg_free(&tg);
				}
	backend_cpu.shutdown(be);
}

/* One thread (no OpenMP team) gives the same bits as two. */
TEST_TIMEOUT(cpu_elementwise_one_thread, 120)
{
	struct backend *be = ce_backend(1);
	ce_binary(be, WNN_OP_ADD, WNN_F32, 8, false);
	ce_binary(be, WNN_OP_MUL, WNN_F16, 9, false);
	ce_binary(be, WNN_OP_DIV, WNN_I32, 7, true);
	ce_unary(be, WNN_OP_SIGMOID, WNN_F32, 1, (uint32_t[]){ 100000 }, false, "big");
	backend_cpu.shutdown(be);
}

/* ---- speed (WEBNN_BENCH=1): ns per output element of one execute, median of repeats, for
 * the cpu kernels on 1 and 2 threads and the reference kernel. */

static double ce_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int ce_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double ce_bench(const struct backend_impl *impl, int threads, const struct graph_ir *g)
{
	struct backend *be = NULL;
	struct backend_context *ctx = NULL;
	struct backend_plan *plan = NULL;
	struct backend_tensor *ins[TG_MAX_OPERANDS] = { NULL }, *outs[TG_MAX_OPERANDS] = { NULL };
	struct backend_context_options copts = { 0 };
	struct backend_options opts = { .threads = threads };
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(impl->init(&opts, &be, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ASSERT_MSG(impl->context_create(be, &copts, &ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		void *data = ce_input(d, 9 + i, -4, 4, false);
		ASSERT(impl->tensor_create(ctx, d, &ins[i], &diag) == WEBNN_STATUS_OK);
		ASSERT(impl->tensor_write(ins[i], data, tg_bytes(d), &diag) == WEBNN_STATUS_OK);
		free(data);
	}
	uint64_t count = 1;
	wnn_desc_count(&g->values[g->outputs[0]].desc, &count);
	for (size_t i = 0; i < g->n_outputs; i++)
		ASSERT(impl->tensor_create(ctx, &g->values[g->outputs[i]].desc, &outs[i], &diag) ==
		       WEBNN_STATUS_OK);
	struct graph_ir *copy = graph_clone(g);
	ASSERT(copy != NULL);
	ASSERT_MSG(tg_optimize(copy, impl, ctx, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ASSERT_MSG(impl->compile(ctx, copy, &plan, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	double t[15];
	for (int r = 0; r < 15; r++) {
		double t0 = ce_now();
		ASSERT(impl->execute(plan, ins, outs, &diag) == WEBNN_STATUS_OK);
		t[r] = ce_now() - t0;
	}
	qsort(t, 15, sizeof t[0], ce_cmp);
	impl->plan_destroy(plan);
	graph_destroy(copy);
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		if (ins[i])
			impl->tensor_destroy(ins[i]);
		if (outs[i])
			impl->tensor_destroy(outs[i]);
	}
	impl->context_destroy(ctx);
	impl->shutdown(be);
	return t[0] * 1e9 / (double)count; /* the least disturbed run: the machine is shared */
}

static void ce_bench_report(const struct graph_ir *g, const char *what)
{
	double c1 = ce_bench(&backend_cpu, 1, g), c2 = ce_bench(&backend_cpu, 2, g);
	double ref = ce_bench(&backend_reference, 0, g);
	printf("%-34s cpu 1 thread %7.3f ns/elem, 2 threads %7.3f ns/elem, reference %7.3f "
	       "ns/elem (x%.1f, x%.1f)\n",
	       what, c1, c2, ref, ref / c1, ref / c2);
	/* operators with a float32 kernel: the double one too (the same run, so the same load) */
	const struct graph_node *n = &g->nodes[g->n_nodes - 1];
	if (g->values[n->outputs[0]].desc.type == WNN_F32 &&
	    (cpu_f32_unary(n->op) || cpu_f32_binary(n->op))) {
		setenv("WEBNN_CPU_EXACT_MATH", "1", 1);
		double d1 = ce_bench(&backend_cpu, 1, g), d2 = ce_bench(&backend_cpu, 2, g);
		unsetenv("WEBNN_CPU_EXACT_MATH");
		double f1 = ce_bench(&backend_cpu, 1, g);
		printf("%-34s double kernel 1 thread %7.3f ns/elem, 2 threads %7.3f ns/elem; "
		       "float32 1 thread again %7.3f (x%.1f)\n",
		       "", d1, d2, f1, d1 / (f1 < c1 ? f1 : c1));
	}
}

TEST_TIMEOUT(bench_cpu_elementwise, 600)
{
	if (!getenv("WEBNN_BENCH"))
		SKIP("set WEBNN_BENCH=1 to measure");
	static const struct {
		const char *what;
		enum wnn_op op;
		enum wnn_dtype t;
		uint32_t ra, rb;
		uint32_t a[4], b[4];
	} cases[] = {
		{ "add f32 1M same shape", WNN_OP_ADD, WNN_F32, 1, 1, { 1 << 20 }, { 1 << 20 } },
		{ "add f32 1M NCHW channel bcast", WNN_OP_ADD, WNN_F32, 4, 3, { 1, 64, 128, 128 },
		  { 64, 1, 1 } },
		{ "add f32 1M NHWC channel bcast", WNN_OP_ADD, WNN_F32, 4, 1, { 1, 128, 128, 64 },
		  { 64 } },
		{ "add f16 1M same shape", WNN_OP_ADD, WNN_F16, 1, 1, { 1 << 20 }, { 1 << 20 } },
		{ "mul i32 1M same shape", WNN_OP_MUL, WNN_I32, 1, 1, { 1 << 20 }, { 1 << 20 } },
		{ "max f32 1M same shape", WNN_OP_MAX, WNN_F32, 1, 1, { 1 << 20 }, { 1 << 20 } },
		{ "relu f32 1M", WNN_OP_RELU, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
		{ "sigmoid f32 1M", WNN_OP_SIGMOID, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
		{ "tanh f32 1M", WNN_OP_TANH, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
		{ "elu f32 1M", WNN_OP_ELU, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
		{ "softplus f32 1M", WNN_OP_SOFTPLUS, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
		{ "gelu f32 1M", WNN_OP_GELU, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
		{ "erf f32 1M", WNN_OP_ERF, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
		{ "exp f32 1M", WNN_OP_EXP, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
		{ "log f32 1M", WNN_OP_LOG, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
		{ "pow f32 1M same shape", WNN_OP_POW, WNN_F32, 1, 1, { 1 << 20 }, { 1 << 20 } },
		{ "pow f32 1M by a scalar", WNN_OP_POW, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
		{ "sigmoid f16 1M", WNN_OP_SIGMOID, WNN_F16, 1, 0, { 1 << 20 }, { 0 } },
		{ "cast f32->f16 1M", WNN_OP_CAST, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
		{ "cast f16->f32 1M", WNN_OP_CAST, WNN_F16, 1, 0, { 1 << 20 }, { 0 } },
		{ "cast f32->i8 1M", WNN_OP_CAST, WNN_F32, 1, 0, { 1 << 20 }, { 0 } },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t a = tg_input(&tg, cases[i].t, cases[i].ra, cases[i].a);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		Webnn__Ipc__ElementwiseBinary mb = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
		Webnn__Ipc__ElementwiseUnary mu = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
		Webnn__Ipc__Cast mc = WEBNN__IPC__CAST__INIT;
		if (cases[i].op == WNN_OP_CAST) {
			mc.input = a;
			mc.output = tg_next(&tg);
			mc.data_type = (Webnn__Ipc__DataType)(cases[i].t == WNN_F16 ? WNN_F32
						: strstr(cases[i].what, "i8") ? WNN_I8 : WNN_F16);
			tg_set_op(&o, WNN_OP_CAST, &mc);
		} else if (wnn_ops[cases[i].op].attrs == WNN_ATTRS_BINARY) {
			mb.a = a;
			mb.b = tg_input(&tg, cases[i].t, cases[i].rb, cases[i].b);
			mb.output = tg_next(&tg);
			tg_set_op(&o, cases[i].op, &mb);
		} else {
			mu.input = a;
			mu.output = tg_next(&tg);
			tg_set_op(&o, cases[i].op, &mu);
		}
		ce_bench_report(ce_finish(&tg, &o, cases[i].what), cases[i].what);
		tg_free(&tg);
	}
	/* per-channel (NHWC) int8 quantization both ways */
	for (int deq = 0; deq < 2; deq++) {
		struct tg_graph tg;
		tg_init(&tg);
		Webnn__Ipc__QuantizeLinear m = WEBNN__IPC__QUANTIZE_LINEAR__INIT;
		m.input = tg_input(&tg, deq ? WNN_I8 : WNN_F32, 2, (uint32_t[]){ 16384, 64 });
		m.scale = tg_input(&tg, WNN_F32, 2, (uint32_t[]){ 1, 64 });
		m.zero_point = tg_input(&tg, WNN_I8, 2, (uint32_t[]){ 1, 64 });
		m.output = tg_next(&tg);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		const char *what = deq ? "dequantize i8->f32 1M per channel"
				       : "quantize f32->i8 1M per channel";
		tg_set_op(&o, deq ? WNN_OP_DEQUANTIZE_LINEAR : WNN_OP_QUANTIZE_LINEAR, &m);
		ce_bench_report(ce_finish(&tg, &o, what), what);
		tg_free(&tg);
	}
}
