/* A GPT-2-style decoder built with libwebnn: random weights, the step graph over a key-value cache and the whole-sequence graph (see decoder.h). */
#include "tools/common/decoder.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- weights */

static uint32_t dw_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

/* Sum of four uniforms: close enough to a normal for random weights, and cheap. */
static float dw_normal(uint64_t *s, float std)
{
	float u = 0;
	for (int i = 0; i < 4; i++)
		u += (float)(dw_next(s) & 0xffffff) / 16777216.0f;
	return (u - 2.0f) * std * 1.7320508f;
}

struct tool_decoder_weights *tool_decoder_weights_random(const struct tool_decoder_config *c,
						       uint32_t seed)
{
	size_t d = c->d_model, f = c->d_ff, v = c->vocab, t = c->cache_len;
	size_t per_layer = 4 * d + 4 * (d * d + d) + (d * f + f) + (f * d + d);
	size_t n = v * d + t * d + d * v + 2 * d + c->layers * per_layer;
	struct tool_decoder_weights *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->cfg = *c;
	w->storage = malloc(n * sizeof(float));
	w->layer = calloc(c->layers ? c->layers : 1, sizeof *w->layer);
	if (!w->storage || !w->layer) {
		tool_decoder_weights_free(w);
		return NULL;
	}
	w->n_floats = n;
	float *p = w->storage;
#define TAKE(field, count) (field = p, p += (count))
	TAKE(w->wte, v * d);
	TAKE(w->wpe, t * d);
	TAKE(w->head, d * v);
	TAKE(w->lnf_g, d);
	TAKE(w->lnf_b, d);
	for (uint32_t l = 0; l < c->layers; l++) {
		struct tool_decoder_layer *L = &w->layer[l];
		TAKE(L->ln1_g, d), TAKE(L->ln1_b, d), TAKE(L->ln2_g, d), TAKE(L->ln2_b, d);
		TAKE(L->wq, d * d), TAKE(L->bq, d), TAKE(L->wk, d * d), TAKE(L->bk, d);
		TAKE(L->wv, d * d), TAKE(L->bv, d), TAKE(L->wo, d * d), TAKE(L->bo, d);
		TAKE(L->wfc, d * f), TAKE(L->bfc, f), TAKE(L->wpr, f * d), TAKE(L->bpr, d);
	}
#undef TAKE
	uint64_t s = 0x9e3779b97f4a7c15ull ^ seed;
	for (size_t i = 0; i < n; i++)
		w->storage[i] = dw_normal(&s, 0.02f);
	/* layer norms: gains near 1 */
	for (size_t i = 0; i < d; i++)
		w->lnf_g[i] += 1.0f;
	for (uint32_t l = 0; l < c->layers; l++)
		for (size_t i = 0; i < d; i++)
			w->layer[l].ln1_g[i] += 1.0f, w->layer[l].ln2_g[i] += 1.0f;
	/* the position table a little larger than the rest, so positions tell apart */
	for (size_t i = 0; i < t * d; i++)
		w->wpe[i] *= 5.0f;
	for (size_t i = 0; i < v; i++)
		for (size_t j = 0; j < d; j++)
			w->head[j * v + i] = w->wte[i * d + j];
	return w;
}

void tool_decoder_weights_free(struct tool_decoder_weights *w)
{
	if (!w)
		return;
	free(w->storage);
	free(w->layer);
	free(w);
}

/* ---- building: the first failure is kept and every later call is skipped */

struct db {
	struct webnn_context *ctx;
	struct webnn_builder *b;
	enum webnn_status s;
	char *why;
	size_t why_len;
};

/* o is read after the call that sets it (an argument's evaluation order is unspecified) */
static struct webnn_operand *db_check(struct db *g, enum webnn_status s,
				      struct webnn_operand *const *o, const char *what)
{
	if (g->s != WEBNN_STATUS_OK)
		return NULL;
	if (s != WEBNN_STATUS_OK) {
		g->s = s;
		if (g->why)
			snprintf(g->why, g->why_len, "%s: %s", what,
				 webnn_context_last_error(g->ctx));
		return NULL;
	}
	return o ? *o : NULL;
}

static struct webnn_operand *db_const(struct db *g, enum webnn_data_type t, const void *data,
				      uint32_t rank, const uint32_t *shape)
{
	if (g->s != WEBNN_STATUS_OK)
		return NULL;
	struct webnn_operand_desc d = { t, rank, { 0 } };
	size_t count = 1;
	for (uint32_t i = 0; i < rank; i++)
		d.shape[i] = shape[i], count *= shape[i];
	struct webnn_operand *o = NULL;
	enum webnn_status s = webnn_builder_constant(
		g->b, &d, data, (size_t)webnn_data_type_byte_length(t, count), &o);
	return db_check(g, s, &o, "constant");
}

static struct webnn_operand *db_input(struct db *g, const char *name, enum webnn_data_type t,
				      uint32_t rank, const uint32_t *shape)
{
	if (g->s != WEBNN_STATUS_OK)
		return NULL;
	struct webnn_operand_desc d = { t, rank, { 0 } };
	for (uint32_t i = 0; i < rank; i++)
		d.shape[i] = shape[i];
	struct webnn_operand *o = NULL;
	return db_check(g, webnn_builder_input(g->b, name, &d, &o), &o, name);
}

static struct webnn_operand *db_scalar(struct db *g, enum webnn_data_type t, double v)
{
	struct webnn_operand *o = NULL;
	if (g->s != WEBNN_STATUS_OK)
		return NULL;
	return db_check(g, webnn_builder_constant_scalar(g->b, t, v, &o), &o, "scalar");
}

static struct webnn_operand *db_binary(struct db *g,
				       enum webnn_status (*fn)(struct webnn_builder *,
							       struct webnn_operand *,
							       struct webnn_operand *,
							       struct webnn_operand **),
				       struct webnn_operand *a, struct webnn_operand *b,
				       const char *what)
{
	struct webnn_operand *o = NULL;
	if (g->s != WEBNN_STATUS_OK)
		return NULL;
	return db_check(g, fn(g->b, a, b, &o), &o, what);
}

static struct webnn_operand *db_reshape(struct db *g, struct webnn_operand *x, uint32_t rank,
					const uint32_t *shape)
{
	struct webnn_operand *o = NULL;
	if (g->s != WEBNN_STATUS_OK)
		return NULL;
	return db_check(g, webnn_builder_reshape(g->b, x, shape, rank, &o), &o, "reshape");
}

static struct webnn_operand *db_transpose(struct db *g, struct webnn_operand *x, uint32_t rank,
					  const uint32_t *perm)
{
	struct webnn_operand *o = NULL;
	if (g->s != WEBNN_STATUS_OK)
		return NULL;
	return db_check(g, webnn_builder_transpose(g->b, x, perm, rank, &o), &o, "transpose");
}

static struct webnn_operand *db_where(struct db *g, struct webnn_operand *c,
				      struct webnn_operand *t, struct webnn_operand *f)
{
	struct webnn_operand *o = NULL;
	if (g->s != WEBNN_STATUS_OK)
		return NULL;
	return db_check(g, webnn_builder_where(g->b, c, t, f, &o), &o, "where");
}

/* x [S, in] W [in, out] + b, one gemm */
static struct webnn_operand *db_linear(struct db *g, struct webnn_operand *x, const float *w,
				       const float *bias, uint32_t in, uint32_t out)
{
	struct webnn_operand *wc = db_const(g, WEBNN_FLOAT32, w, 2, (uint32_t[]){ in, out });
	struct webnn_operand *bc = db_const(g, WEBNN_FLOAT32, bias, 1, &out);
	if (g->s != WEBNN_STATUS_OK)
		return NULL;
	struct webnn_gemm_options o = WEBNN_GEMM_OPTIONS_INIT;
	o.c = bc;
	struct webnn_operand *y = NULL;
	return db_check(g, webnn_builder_gemm(g->b, x, wc, &o, &y), &y, "gemm");
}

static struct webnn_operand *db_layer_norm(struct db *g, struct webnn_operand *x,
					   const float *gain, const float *bias, uint32_t d)
{
	struct webnn_layer_normalization_options o = WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT;
	static const uint32_t axes[1] = { 1 };
	o.scale = db_const(g, WEBNN_FLOAT32, gain, 1, &d);
	o.bias = db_const(g, WEBNN_FLOAT32, bias, 1, &d);
	o.axes = axes, o.n_axes = 1;
	struct webnn_operand *y = NULL;
	if (g->s != WEBNN_STATUS_OK)
		return NULL;
	return db_check(g, webnn_builder_layer_normalization(g->b, x, &o, &y), &y,
			"layerNormalization");
}

/* The attention of one layer on h = ln1(x) [S, d]: step mode (S = 1) reads and writes the
 * cache, full mode attends within the sequence under the causal mask. */
struct db_attn {
	bool step;
	uint32_t seq;
	struct webnn_operand *sel;   /* step: uint8 [1, T, 1], row == pos */
	struct webnn_operand *mask;  /* uint8 [1, 1, T] (step: row <= pos) or [1, S, S] causal */
	struct webnn_operand *past_k, *past_v, *present_k, *present_v;
};

static struct webnn_operand *db_attention(struct db *g, const struct tool_decoder_config *c,
					  const struct tool_decoder_layer *L,
					  struct webnn_operand *h, struct db_attn *a)
{
	uint32_t d = c->d_model, H = c->heads, dh = d / H, S = a->seq;
	struct webnn_operand *q = db_linear(g, h, L->wq, L->bq, d, d);
	struct webnn_operand *k = db_linear(g, h, L->wk, L->bk, d, d);
	struct webnn_operand *v = db_linear(g, h, L->wv, L->bv, d, d);
	q = db_binary(g, webnn_builder_mul, q, db_scalar(g, WEBNN_FLOAT32, 1.0 / sqrt(dh)),
		      "mul");
	struct webnn_operand *kt, *vv;
	if (a->step) {
		const uint32_t hs[3] = { H, 1, dh };
		q = db_reshape(g, q, 3, hs);
		k = db_reshape(g, k, 3, hs);
		v = db_reshape(g, v, 3, hs);
		/* the new row written into the cache by the graph itself */
		a->present_k = db_where(g, a->sel, k, a->past_k);
		a->present_v = db_where(g, a->sel, v, a->past_v);
		kt = db_transpose(g, a->present_k, 3, (const uint32_t[]){ 0, 2, 1 });
		vv = a->present_v;
	} else {
		const uint32_t shd[3] = { S, H, dh };
		const uint32_t hsd[3] = { 1, 0, 2 };
		q = db_transpose(g, db_reshape(g, q, 3, shd), 3, hsd);
		kt = db_transpose(g, db_reshape(g, k, 3, shd), 3, (const uint32_t[]){ 1, 2, 0 });
		vv = db_transpose(g, db_reshape(g, v, 3, shd), 3, hsd);
	}
	struct webnn_operand *s = db_binary(g, webnn_builder_matmul, q, kt, "matmul");
	s = db_where(g, a->mask, s, db_scalar(g, WEBNN_FLOAT32, -1e30));
	struct webnn_operand *p = NULL;
	if (g->s == WEBNN_STATUS_OK)
		p = db_check(g, webnn_builder_softmax(g->b, s, 2, &p), &p, "softmax");
	struct webnn_operand *o = db_binary(g, webnn_builder_matmul, p, vv, "matmul");
	if (!a->step)
		o = db_transpose(g, o, 3, (const uint32_t[]){ 1, 0, 2 });
	o = db_reshape(g, o, 2, (const uint32_t[]){ S, d });
	return db_linear(g, o, L->wo, L->bo, d, d);
}

static struct webnn_operand *db_block(struct db *g, const struct tool_decoder_config *c,
				      const struct tool_decoder_layer *L, struct webnn_operand *x,
				      struct db_attn *a)
{
	uint32_t d = c->d_model;
	struct webnn_operand *h = db_layer_norm(g, x, L->ln1_g, L->ln1_b, d);
	x = db_binary(g, webnn_builder_add, x, db_attention(g, c, L, h, a), "add");
	h = db_layer_norm(g, x, L->ln2_g, L->ln2_b, d);
	h = db_linear(g, h, L->wfc, L->bfc, d, c->d_ff);
	struct webnn_operand *act = NULL;
	if (g->s == WEBNN_STATUS_OK)
		act = db_check(g, webnn_builder_gelu(g->b, h, &act), &act, "gelu");
	h = db_linear(g, act, L->wpr, L->bpr, c->d_ff, d);
	return db_binary(g, webnn_builder_add, x, h, "add");
}

static bool db_config_ok(const struct tool_decoder_config *c, char *why, size_t len)
{
	if (!c->layers || !c->heads || !c->d_model || c->d_model % c->heads || !c->d_ff ||
	    !c->vocab || !c->cache_len || c->layers > 64) {
		snprintf(why, len,
			 "decoder: layers 1..64, heads dividing d_model and nonzero sizes needed");
		return false;
	}
	return true;
}

static enum webnn_status db_finish(struct db *g, const struct webnn_named_operand *outs,
				   size_t n, struct webnn_graph **out)
{
	if (g->s == WEBNN_STATUS_OK) {
		enum webnn_status s = webnn_builder_build(g->b, outs, n, out);
		db_check(g, s, NULL, "build");
	}
	webnn_builder_destroy(g->b);
	return g->s;
}

/* x [S, d] = wte[tokens] + positions, then the blocks, the final norm and the tied head. */
static struct webnn_operand *db_body(struct db *g, const struct tool_decoder_weights *w,
				     struct webnn_operand *tokens, struct webnn_operand *positions,
				     struct db_attn *attn)
{
	const struct tool_decoder_config *c = &w->cfg;
	uint32_t d = c->d_model;
	struct webnn_operand *wte = db_const(g, WEBNN_FLOAT32, w->wte, 2,
					     (const uint32_t[]){ c->vocab, d });
	struct webnn_operand *x = NULL;
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	if (g->s == WEBNN_STATUS_OK)
		x = db_check(g, webnn_builder_gather(g->b, wte, tokens, &go, &x), &x, "gather");
	x = db_binary(g, webnn_builder_add, x, positions, "add");
	for (uint32_t l = 0; l < c->layers; l++)
		x = db_block(g, c, &w->layer[l], x, &attn[l]);
	x = db_layer_norm(g, x, w->lnf_g, w->lnf_b, d);
	struct webnn_operand *head = db_const(g, WEBNN_FLOAT32, w->head, 2,
					      (const uint32_t[]){ d, c->vocab });
	return db_binary(g, webnn_builder_matmul, x, head, "matmul");
}

/* The step graph: inputs "token" and "pos" (int32 [1]) and, per layer l, "past_k<l>" and
 * "past_v<l>" (float32 [heads, cache_len, d_model / heads]); outputs "logits" (float32
 * [1, vocab]), "next_token" (int32 [1]: the argmax of logits, greedy decoding), "next_pos"
 * (int32 [1]: pos + 1) and "present_k<l>"/"present_v<l>": the caches with row pos replaced by
 * this token's keys and values (a where() on pos == row; rows after pos are masked out of
 * attention, so their contents do not matter). WebNN forbids one tensor as both input and
 * output of a dispatch, so a client keeps two sets of cache tensors and swaps them each step;
 * next_token and next_pos feed the next step the same way, and nothing returns to the
 * client but what it reads. */
static enum webnn_status tool_decoder_build_step(struct webnn_context *ctx,
						const struct tool_decoder_weights *w,
						struct webnn_graph **out, char *why, size_t why_len)
{
	const struct tool_decoder_config *c = &w->cfg;
	if (!db_config_ok(c, why, why_len))
		return WEBNN_STATUS_TYPE_ERROR;
	struct db g = { ctx, NULL, WEBNN_STATUS_OK, why, why_len };
	if (db_check(&g, webnn_builder_create(ctx, &g.b), NULL, "builder") == NULL &&
	    g.s != WEBNN_STATUS_OK)
		return g.s;
	uint32_t T = c->cache_len, H = c->heads, dh = c->d_model / H, one = 1;
	struct webnn_operand *token = db_input(&g, "token", WEBNN_INT32, 1, &one);
	struct webnn_operand *pos = db_input(&g, "pos", WEBNN_INT32, 1, &one);
	int32_t *iota = malloc(sizeof(int32_t) * T);
	if (!iota) {
		webnn_builder_destroy(g.b);
		return WEBNN_STATUS_NO_MEMORY;
	}
	for (uint32_t i = 0; i < T; i++)
		iota[i] = (int32_t)i;
	struct webnn_operand *pos3 = db_reshape(&g, pos, 3, (const uint32_t[]){ 1, 1, 1 });
	struct webnn_operand *rows = db_const(&g, WEBNN_INT32, iota, 3, (const uint32_t[]){ 1, T, 1 });
	struct webnn_operand *cols = db_const(&g, WEBNN_INT32, iota, 3, (const uint32_t[]){ 1, 1, T });
	free(iota);
	struct db_attn attn[64];
	struct webnn_operand *sel = db_binary(&g, webnn_builder_equal, rows, pos3, "equal");
	struct webnn_operand *mask =
		db_binary(&g, webnn_builder_lesser_or_equal, cols, pos3, "lesserOrEqual");
	char name[32];
	for (uint32_t l = 0; l < c->layers; l++) {
		attn[l] = (struct db_attn){ .step = true, .seq = 1, .sel = sel, .mask = mask };
		snprintf(name, sizeof name, "past_k%u", l);
		attn[l].past_k = db_input(&g, name, WEBNN_FLOAT32, 3, (const uint32_t[]){ H, T, dh });
		snprintf(name, sizeof name, "past_v%u", l);
		attn[l].past_v = db_input(&g, name, WEBNN_FLOAT32, 3, (const uint32_t[]){ H, T, dh });
	}
	struct webnn_operand *wpe = db_const(&g, WEBNN_FLOAT32, w->wpe, 2,
					     (const uint32_t[]){ T, c->d_model });
	struct webnn_operand *pe = NULL;
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	if (g.s == WEBNN_STATUS_OK)
		pe = db_check(&g, webnn_builder_gather(g.b, wpe, pos, &go, &pe), &pe, "gather");
	struct webnn_operand *logits = db_body(&g, w, token, pe, attn);
	struct webnn_operand *next = NULL;
	struct webnn_arg_min_max_options ao = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
	if (g.s == WEBNN_STATUS_OK)
		next = db_check(&g, webnn_builder_arg_max(g.b, logits, 1, &ao, &next), &next,
				"argMax");
	struct webnn_operand *next_pos = NULL;
	if (g.s == WEBNN_STATUS_OK) {
		struct webnn_operand *k1 = NULL;
		k1 = db_check(&g, webnn_builder_constant_scalar_int(g.b, WEBNN_INT32, 1, &k1), &k1,
			      "scalar");
		next_pos = db_binary(&g, webnn_builder_add, pos, k1, "add");
	}
	struct webnn_named_operand outs[3 + 2 * 64];
	char names[2 * 64][24];
	size_t n = 0;
	outs[n++] = (struct webnn_named_operand){ "logits", logits };
	outs[n++] = (struct webnn_named_operand){ "next_token", next };
	outs[n++] = (struct webnn_named_operand){ "next_pos", next_pos };
	for (uint32_t l = 0; l < c->layers; l++) {
		snprintf(names[2 * l], sizeof names[0], "present_k%u", l);
		snprintf(names[2 * l + 1], sizeof names[0], "present_v%u", l);
		outs[n++] = (struct webnn_named_operand){ names[2 * l], attn[l].present_k };
		outs[n++] = (struct webnn_named_operand){ names[2 * l + 1], attn[l].present_v };
	}
	return db_finish(&g, outs, n, out);
}

enum webnn_status tool_decoder_build_full(struct webnn_context *ctx,
					 const struct tool_decoder_weights *w, uint32_t seq,
					 struct webnn_graph **out, char *why, size_t why_len)
{
	const struct tool_decoder_config *c = &w->cfg;
	if (!db_config_ok(c, why, why_len))
		return WEBNN_STATUS_TYPE_ERROR;
	if (seq == 0 || seq > c->cache_len) {
		snprintf(why, why_len, "decoder: sequence length %u not in 1..%u", seq,
			 c->cache_len);
		return WEBNN_STATUS_TYPE_ERROR;
	}
	struct db g = { ctx, NULL, WEBNN_STATUS_OK, why, why_len };
	if (db_check(&g, webnn_builder_create(ctx, &g.b), NULL, "builder") == NULL &&
	    g.s != WEBNN_STATUS_OK)
		return g.s;
	struct webnn_operand *tokens = db_input(&g, "tokens", WEBNN_INT32, 1, &seq);
	uint8_t *causal = malloc((size_t)seq * seq);
	if (!causal) {
		webnn_builder_destroy(g.b);
		return WEBNN_STATUS_NO_MEMORY;
	}
	for (uint32_t i = 0; i < seq; i++)
		for (uint32_t j = 0; j < seq; j++)
			causal[i * seq + j] = j <= i;
	struct webnn_operand *mask = db_const(&g, WEBNN_UINT8, causal, 3,
					      (const uint32_t[]){ 1, seq, seq });
	free(causal);
	/* positions 0 .. seq - 1: the first rows of the position table */
	struct webnn_operand *pe = db_const(&g, WEBNN_FLOAT32, w->wpe, 2,
					    (const uint32_t[]){ seq, c->d_model });
	struct db_attn attn[64];
	for (uint32_t l = 0; l < c->layers; l++)
		attn[l] = (struct db_attn){ .step = false, .seq = seq, .mask = mask };
	struct webnn_operand *logits = db_body(&g, w, tokens, pe, attn);
	struct webnn_named_operand o = { "logits", logits };
	return db_finish(&g, &o, 1, out);
}

/* ---- the decode loop */

struct dr_set {
	struct webnn_tensor *token, *pos, **k, **v;
};

struct tool_decoder_run {
	struct webnn_context *ctx;
	struct webnn_graph *graph;
	struct tool_decoder_config cfg;
	struct dr_set set[2];
	struct webnn_tensor *logits;
	struct webnn_named_tensor *in, *out;
	char (*names)[24];
	size_t n_in, n_out;
	uint32_t cur, pos;
};

static enum webnn_status dr_tensor(struct tool_decoder_run *r, enum webnn_data_type t,
				   uint32_t rank, const uint32_t *shape,
				   struct webnn_tensor **out)
{
	struct webnn_tensor_desc d = { .readable = true, .writable = true };
	d.desc.data_type = t, d.desc.rank = rank;
	for (uint32_t i = 0; i < rank; i++)
		d.desc.shape[i] = shape[i];
	return webnn_context_create_tensor(r->ctx, &d, out);
}

enum webnn_status tool_decoder_run_create(struct webnn_context *ctx,
					 const struct tool_decoder_weights *w,
					 struct tool_decoder_run **out, char *why, size_t why_len)
{
	*out = NULL;
	struct tool_decoder_run *r = calloc(1, sizeof *r);
	if (!r)
		return WEBNN_STATUS_NO_MEMORY;
	r->ctx = ctx, r->cfg = w->cfg;
	enum webnn_status s = tool_decoder_build_step(ctx, w, &r->graph, why, why_len);
	if (s != WEBNN_STATUS_OK) {
		free(r);
		return s;
	}
	const struct tool_decoder_config *c = &w->cfg;
	uint32_t L = c->layers, one = 1;
	const uint32_t cache[3] = { c->heads, c->cache_len, c->d_model / c->heads };
	r->n_in = 2 + 2 * (size_t)L, r->n_out = 3 + 2 * (size_t)L;
	r->in = calloc(r->n_in, sizeof *r->in);
	r->out = calloc(r->n_out, sizeof *r->out);
	r->names = calloc(4 * (size_t)L, sizeof *r->names);
	for (int i = 0; i < 2; i++) {
		r->set[i].k = calloc(L, sizeof(struct webnn_tensor *));
		r->set[i].v = calloc(L, sizeof(struct webnn_tensor *));
	}
	if (!r->in || !r->out || !r->names || !r->set[0].k || !r->set[0].v || !r->set[1].k ||
	    !r->set[1].v) {
		tool_decoder_run_destroy(r);
		return WEBNN_STATUS_NO_MEMORY;
	}
	s = dr_tensor(r, WEBNN_FLOAT32, 2, (const uint32_t[]){ 1, c->vocab }, &r->logits);
	for (int i = 0; i < 2 && s == WEBNN_STATUS_OK; i++) {
		s = dr_tensor(r, WEBNN_INT32, 1, &one, &r->set[i].token);
		if (s == WEBNN_STATUS_OK)
			s = dr_tensor(r, WEBNN_INT32, 1, &one, &r->set[i].pos);
		for (uint32_t l = 0; l < L && s == WEBNN_STATUS_OK; l++) {
			s = dr_tensor(r, WEBNN_FLOAT32, 3, cache, &r->set[i].k[l]);
			if (s == WEBNN_STATUS_OK)
				s = dr_tensor(r, WEBNN_FLOAT32, 3, cache, &r->set[i].v[l]);
		}
	}
	if (s != WEBNN_STATUS_OK) {
		snprintf(why, why_len, "decoder: createTensor: %s", webnn_context_last_error(ctx));
		tool_decoder_run_destroy(r);
		return s;
	}
	for (uint32_t l = 0; l < L; l++) {
		snprintf(r->names[4 * l], 24, "past_k%u", l);
		snprintf(r->names[4 * l + 1], 24, "past_v%u", l);
		snprintf(r->names[4 * l + 2], 24, "present_k%u", l);
		snprintf(r->names[4 * l + 3], 24, "present_v%u", l);
	}
	s = tool_decoder_run_start(r, 0);
	if (s != WEBNN_STATUS_OK) {
		snprintf(why, why_len, "decoder: writeTensor: %s", webnn_context_last_error(ctx));
		tool_decoder_run_destroy(r);
		return s;
	}
	*out = r;
	return s;
}

/* The dispatch's bindings for the current set as inputs, the other as outputs. */
static void dr_bind(struct tool_decoder_run *r)
{
	struct dr_set *a = &r->set[r->cur], *b = &r->set[r->cur ^ 1];
	size_t i = 0, o = 0;
	r->in[i++] = (struct webnn_named_tensor){ "token", a->token };
	r->in[i++] = (struct webnn_named_tensor){ "pos", a->pos };
	r->out[o++] = (struct webnn_named_tensor){ "logits", r->logits };
	r->out[o++] = (struct webnn_named_tensor){ "next_token", b->token };
	r->out[o++] = (struct webnn_named_tensor){ "next_pos", b->pos };
	for (uint32_t l = 0; l < r->cfg.layers; l++) {
		r->in[i++] = (struct webnn_named_tensor){ r->names[4 * l], a->k[l] };
		r->in[i++] = (struct webnn_named_tensor){ r->names[4 * l + 1], a->v[l] };
		r->out[o++] = (struct webnn_named_tensor){ r->names[4 * l + 2], b->k[l] };
		r->out[o++] = (struct webnn_named_tensor){ r->names[4 * l + 3], b->v[l] };
	}
}

enum webnn_status tool_decoder_run_start(struct tool_decoder_run *r, int32_t first_token)
{
	const struct tool_decoder_config *c = &r->cfg;
	size_t bytes = sizeof(float) * c->cache_len * c->d_model;
	/* rows past pos are masked out, but 0 * NaN is not 0: start from zeroes */
	float *zero = calloc(1, bytes);
	if (!zero)
		return WEBNN_STATUS_NO_MEMORY;
	r->cur = 0, r->pos = 0;
	int32_t p0 = 0;
	enum webnn_status s = webnn_context_write_tensor(r->ctx, r->set[0].pos, &p0, sizeof p0);
	for (uint32_t l = 0; l < c->layers && s == WEBNN_STATUS_OK; l++) {
		s = webnn_context_write_tensor(r->ctx, r->set[0].k[l], zero, bytes);
		if (s == WEBNN_STATUS_OK)
			s = webnn_context_write_tensor(r->ctx, r->set[0].v[l], zero, bytes);
	}
	free(zero);
	return s == WEBNN_STATUS_OK ? tool_decoder_run_set_token(r, first_token) : s;
}

enum webnn_status tool_decoder_run_set_token(struct tool_decoder_run *r, int32_t token)
{
	return webnn_context_write_tensor(r->ctx, r->set[r->cur].token, &token, sizeof token);
}

enum webnn_status tool_decoder_run_step(struct tool_decoder_run *r, int32_t *next, float *logits)
{
	if (r->pos >= r->cfg.cache_len)
		return WEBNN_STATUS_INVALID_STATE;
	dr_bind(r);
	enum webnn_status s =
		webnn_context_dispatch(r->ctx, r->graph, r->in, r->n_in, r->out, r->n_out);
	if (s != WEBNN_STATUS_OK)
		return s;
	r->cur ^= 1, r->pos++;
	s = webnn_context_read_tensor(r->ctx, r->set[r->cur].token, next, sizeof *next);
	if (s == WEBNN_STATUS_OK && logits)
		s = webnn_context_read_tensor(r->ctx, r->logits, logits,
					      sizeof(float) * r->cfg.vocab);
	return s;
}

uint32_t tool_decoder_run_pos(const struct tool_decoder_run *r)
{
	return r->pos;
}

void tool_decoder_run_destroy(struct tool_decoder_run *r)
{
	if (!r)
		return;
	for (int i = 0; i < 2; i++) {
		webnn_tensor_destroy(r->set[i].token);
		webnn_tensor_destroy(r->set[i].pos);
		for (uint32_t l = 0; l < r->cfg.layers; l++) {
			if (r->set[i].k)
				webnn_tensor_destroy(r->set[i].k[l]);
			if (r->set[i].v)
				webnn_tensor_destroy(r->set[i].v[l]);
		}
		free(r->set[i].k);
		free(r->set[i].v);
	}
	webnn_tensor_destroy(r->logits);
	webnn_graph_destroy(r->graph);
	free(r->in);
	free(r->out);
	free(r->names);
	free(r);
}
