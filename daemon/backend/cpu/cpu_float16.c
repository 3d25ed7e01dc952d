/* float16 in the cpu backend: F16C conversions and running a float32 kernel on float16 values through converted copies. */
#include <stdlib.h>
#include <string.h>

#include <immintrin.h>

#include "daemon/backend/cpu/cpu.h"

struct cpu_f16 {
	cpu_run_fn run; /* the float32 kernel and its state */
	void *priv;
	void (*destroy)(void *priv);
};

static void cpu_f16_free(void *priv)
{
	struct cpu_f16 *w = priv;
	if (w->destroy)
		w->destroy(w->priv);
	free(w);
}

/* ---- float16 arrays: F16C gives the reference conversions' bits (checked on every float32
 * and every float16), 8 elements an instruction. */

__attribute__((target("avx,f16c"))) static void half_to_float_f16c(float *d, const uint16_t *s,
								    uint64_t n)
{
	uint64_t i = 0;
	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i))));
	for (; i < n; i++)
		d[i] = _cvtsh_ss(s[i]);
}

__attribute__((target("avx,f16c"))) static void float_to_half_f16c(uint16_t *d, const float *s,
								    uint64_t n)
{
	uint64_t i = 0;
	for (; i + 8 <= n; i += 8)
		_mm_storeu_si128((__m128i *)(d + i),
				 _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
	for (; i < n; i++)
		d[i] = _cvtss_sh(s[i], _MM_FROUND_TO_NEAREST_INT);
}

static bool have_f16c(void)
{
	return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
}

void cpu_half_to_float(float *dst, const uint16_t *src, uint64_t n)
{
	if (have_f16c()) {
		half_to_float_f16c(dst, src, n);
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		dst[i] = wnn_f16_to_f32(src[i]);
}

void cpu_float_to_half(uint16_t *dst, const float *src, uint64_t n)
{
	if (have_f16c()) {
		float_to_half_f16c(dst, src, n);
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		dst[i] = wnn_f32_to_f16(src[i]);
}

#define CPU_CVT_BLOCK 65536

/* cpu_half_to_float and cpu_float_to_half split over threads when large. */
static void cpu_h2f(const uint16_t *h, float *f, uint64_t n, int threads)
{
	const uint64_t nblk = (n + CPU_CVT_BLOCK - 1) / CPU_CVT_BLOCK;
#pragma omp parallel for num_threads(threads) if (nblk > 1)
	for (uint64_t k = 0; k < nblk; k++) {
		uint64_t i0 = k * CPU_CVT_BLOCK, m = n - i0 < CPU_CVT_BLOCK ? n - i0 : CPU_CVT_BLOCK;
		cpu_half_to_float(f + i0, h + i0, m);
	}
}

static void cpu_f2h(const float *f, uint16_t *h, uint64_t n, int threads)
{
	const uint64_t nblk = (n + CPU_CVT_BLOCK - 1) / CPU_CVT_BLOCK;
#pragma omp parallel for num_threads(threads) if (nblk > 1)
	for (uint64_t k = 0; k < nblk; k++) {
		uint64_t i0 = k * CPU_CVT_BLOCK, m = n - i0 < CPU_CVT_BLOCK ? n - i0 : CPU_CVT_BLOCK;
		cpu_float_to_half(h + i0, f + i0, m);
	}
}

static enum webnn_status cpu_f16_run(const struct cpu_step *s, void *const *bufs,
				     const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct cpu_f16 *w = s->priv;
	const struct graph_node *n = s->n;
	const uint32_t n_ops = n->n_inputs + n->n_outputs;
	void **b2 = malloc(s->g->n_values * sizeof *b2);
	float **tmp = calloc(n_ops, sizeof *tmp);
	enum webnn_status st = WEBNN_STATUS_OK;
	if (!b2 || !tmp) {
		st = wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				  wnn_ops[n->op].name);
		goto done;
	}
	memcpy(b2, bufs, s->g->n_values * sizeof *b2);
	for (uint32_t i = 0; i < n_ops; i++) {
		bool in = i < n->n_inputs;
		uint32_t v = in ? n->inputs[i] : n->outputs[i - n->n_inputs];
		const struct wnn_desc *d = &s->g->values[v].desc;
		uint64_t count = 1;
		if (d->type != WNN_F16 || !wnn_desc_count(d, &count))
			continue;
		if (!(tmp[i] = malloc(count * sizeof *tmp[i]))) {
			st = wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
					  wnn_ops[n->op].name);
			goto done;
		}
		if (in)
			cpu_h2f(bufs[v], tmp[i], count, x->threads);
		b2[v] = tmp[i];
	}
	struct cpu_step inner = *s;
	inner.run = w->run;
	inner.priv = w->priv;
	st = w->run(&inner, b2, x, diag);
	for (uint32_t i = n->n_inputs; i < n_ops && st == WEBNN_STATUS_OK; i++) {
		if (!tmp[i])
			continue;
		uint32_t v = n->outputs[i - n->n_inputs];
		uint64_t count = 1;
		wnn_desc_count(&s->g->values[v].desc, &count);
		cpu_f2h(tmp[i], bufs[v], count, x->threads);
	}
done:
	for (uint32_t i = 0; tmp && i < n_ops; i++)
		free(tmp[i]);
	free(tmp);
	free(b2);
	return st;
}

enum webnn_status cpu_f16_wrap(struct cpu_step *s, struct wnn_diag *diag)
{
	struct cpu_f16 *w = malloc(sizeof *w);
	if (!w)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    wnn_ops[s->n->op].name);
	*w = (struct cpu_f16){ s->run, s->priv, s->destroy };
	s->run = cpu_f16_run;
	s->priv = w;
	s->destroy = cpu_f16_free;
	return WEBNN_STATUS_OK;
}

