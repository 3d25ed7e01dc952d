/* The cpu backend's fallback to the reference kernels, and node epilogues applied in C after a kernel that cannot fuse them. */
#include <stdlib.h>

#include "daemon/backend/cpu/cpu.h"
#include "daemon/backend/host/kernels.h"

static enum webnn_status fallback_run(const struct cpu_step *s, void *const *bufs,
				      const struct cpu_exec *x, struct wnn_diag *diag)
{
	(void)x;
	const struct hk_step *r = s->priv;
	return r->run(r, bufs, diag);
}

enum webnn_status cpu_fallback_prepare(const struct cpu_build *b, struct cpu_step *s,
				       struct wnn_diag *diag)
{
	struct hk_step *r = calloc(1, sizeof(*r));
	if (!r)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
	enum webnn_status st = hk_step_prepare(s->n, b->descs, b->cancel, r, diag);
	if (st != WEBNN_STATUS_OK) {
		free(r);
		return st;
	}
	s->priv = r;
	s->destroy = free;
	s->run = fallback_run;
	s->impl = "reference";
	s->epilogue_after = s->n->epilogue.used;
	return WEBNN_STATUS_OK;
}

static inline float epi_act(const struct graph_epilogue *e, float v)
{
	if (e->act == GRAPH_ACT_RELU)
		v = v > 0.0f ? v : (v != v ? v : 0.0f);
	else if (e->act == GRAPH_ACT_CLAMP)
		v = v < e->lo ? e->lo : (v > e->hi ? e->hi : v);
	else if (e->act == GRAPH_ACT_LEAKY_RELU)
		v = v >= 0.0f ? v : e->alpha * v;
	if (e->bound)
		v = v < e->bound_lo ? e->bound_lo : (v > e->bound_hi ? e->bound_hi : v);
	return v;
}

/* The epilogue in float32 over rows [o0, o1) of [outer][c][inner] views of the output: channel
 * index from the channel dimension, residual elementwise. */
static void epilogue_rows(const struct graph_epilogue *e, float *out, const float *chan,
			  const float *res, uint64_t o0, uint64_t o1, uint64_t c, uint64_t inner)
{
	for (uint64_t o = o0; o < o1; o++)
		for (uint64_t k = 0; k < c; k++) {
			uint64_t base = (o * c + k) * inner;
			float add = chan ? chan[k] : 0.0f;
			for (uint64_t i = 0; i < inner; i++) {
				float v = out[base + i] + add;
				if (res)
					v += res[base + i];
				out[base + i] = epi_act(e, v);
			}
		}
}

static void epilogue_f32(const struct graph_epilogue *e, float *out, const float *chan,
			 const float *res, uint64_t outer, uint64_t c, uint64_t inner, int threads)
{
	/* no parallel region when serial (cpu_elementwise.c ew_run) */
	if (threads <= 1 || outer < 2 || outer * c * inner < 65536) {
		epilogue_rows(e, out, chan, res, 0, outer, c, inner);
		return;
	}
#pragma omp parallel for num_threads(threads)
	for (uint64_t o = 0; o < outer; o++)
		epilogue_rows(e, out, chan, res, o, o + 1, c, inner);
}

void cpu_epilogue_apply(const struct graph_ir *g, const struct graph_node *n, void *const *bufs,
			int threads)
{
	const struct graph_epilogue *e = &n->epilogue;
	if (!e->used)
		return;
	const struct wnn_desc *d = &g->values[e->output].desc;
	uint64_t outer = 1, inner = 1, c = d->rank ? d->dims[e->channel_dim] : 1;
	for (uint32_t k = 0; k < d->rank; k++) {
		if (k < e->channel_dim)
			outer *= d->dims[k];
		else if (k > e->channel_dim)
			inner *= d->dims[k];
	}
	uint64_t count = outer * c * inner;
	if (d->type == WNN_F32) {
		epilogue_f32(e, bufs[e->output], e->channel != GRAPH_NONE ? bufs[e->channel] : NULL,
			     e->residual != GRAPH_NONE ? bufs[e->residual] : NULL, outer, c, inner,
			     threads);
		return;
	}
	/* float16: each step rounds to half, as the unfused add/relu/clamp operations would */
	uint16_t *out = bufs[e->output];
	const uint16_t *chan = e->channel != GRAPH_NONE ? bufs[e->channel] : NULL;
	const uint16_t *res = e->residual != GRAPH_NONE ? bufs[e->residual] : NULL;
	for (uint64_t i = 0; i < count; i++) {
		float v = wnn_f16_to_f32(out[i]);
		if (chan)
			v = wnn_f16_to_f32(wnn_f32_to_f16(v + wnn_f16_to_f32(chan[(i / inner) % c])));
		if (res)
			v = wnn_f16_to_f32(wnn_f32_to_f16(v + wnn_f16_to_f32(res[i])));
		out[i] = wnn_f32_to_f16(epi_act(e, v));
	}
}
