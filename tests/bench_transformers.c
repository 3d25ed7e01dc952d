/* make bench: transformers as PyTorch exports them (BERT-base, ViT-B/16, Whisper-tiny encoder, GPT-2-small blocks) and a GPT-2-small decode loop, webnnd's cpu backend vs onnxruntime-node. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/common/decoder.h"
#include "tests/bench_common.h"
#include "tests/onnx_writer.h"
#include "tests/test.h"
#include "webnn.h"
#include "webnn_import.h"

/* The graphs are written node for node the way torch.onnx.export writes these models at opset
 * 17: linears as MatMul + Add, LayerNormalization, Softmax, GELU in its Erf form (Div, Erf,
 * Add, Mul, Mul), heads split with Reshape and Transpose, the score scale a Div; random weights
 * (std 0.02), real shapes. Both runtimes load the same file; webnnd through libwebnn-import
 * (as webnn-run does), onnxruntime-node with 2 intra-op threads, graph optimization 'all', the
 * session created once and its feeds allocated once, only run() timed. */

/* ---- writing the models */

struct tb {
	struct onnx_writer w;
	int n;
	uint64_t seed;
	const char *sqrt2, *one, *half; /* the GELU's constants, once per model */
};

static char *tb_name(struct tb *t, const char *prefix)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%s_%d", prefix, t->n++);
	return onnx_writer_strdup(&t->w, buf);
}

static float tb_rand(struct tb *t)
{
	t->seed = t->seed * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((t->seed >> 40) & 0xffffff) / 16777216.0f;
}

/* A float initializer of random values: base + std * (uniform with that deviation). */
static const char *tb_weight(struct tb *t, const char *prefix, int rank, const int64_t *dims,
			     float std, float base)
{
	const char *name = tb_name(t, prefix);
	Onnx__TensorProto *x = onnx_writer_initializer(&t->w, name, ONNX_FLOAT, rank, dims, NULL);
	float *v = (float *)x->raw_data.data;
	size_t n = x->raw_data.len / sizeof(float);
	for (size_t i = 0; i < n; i++)
		v[i] = base + std * 3.4641016f * (tb_rand(t) - 0.5f);
	return name;
}

static const char *tb_scalar(struct tb *t, float v)
{
	const char *name = tb_name(t, "c");
	onnx_writer_initializer(&t->w, name, ONNX_FLOAT, 0, NULL, &v);
	return name;
}

static const char *tb_ints(struct tb *t, int n, const int64_t *v)
{
	const char *name = tb_name(t, "shape");
	int64_t len = n;
	onnx_writer_initializer(&t->w, name, ONNX_INT64, 1, &len, v);
	return name;
}

/* A node of one output named after its type; returns the output (the node in *node). */
static const char *tb_op(struct tb *t, const char *op, const char *inputs,
			 Onnx__NodeProto **node)
{
	const char *y = tb_name(t, op);
	Onnx__NodeProto *n = onnx_writer_node(&t->w, NULL, op, NULL, inputs, y);
	if (node)
		*node = n;
	return y;
}

static const char *tb_op2(struct tb *t, const char *op, const char *a, const char *b)
{
	char in[256];
	snprintf(in, sizeof in, "%s,%s", a, b);
	return tb_op(t, op, in, NULL);
}

static const char *tb_linear(struct tb *t, const char *x, int64_t in, int64_t out)
{
	const int64_t wd[2] = { in, out };
	const char *w = tb_weight(t, "W", 2, wd, 0.02f, 0);
	const char *b = tb_weight(t, "b", 1, &out, 0.02f, 0);
	return tb_op2(t, "Add", tb_op2(t, "MatMul", x, w), b);
}

static const char *tb_layer_norm(struct tb *t, const char *x, int64_t d, float eps)
{
	const char *g = tb_weight(t, "ln_g", 1, &d, 0.02f, 1.0f);
	const char *b = tb_weight(t, "ln_b", 1, &d, 0.02f, 0);
	char in[256];
	snprintf(in, sizeof in, "%s,%s,%s", x, g, b);
	Onnx__NodeProto *n;
	const char *y = tb_op(t, "LayerNormalization", in, &n);
	onnx_writer_attr_int(&t->w, n, "axis", -1);
	onnx_writer_attr_float(&t->w, n, "epsilon", eps);
	return y;
}

/* torch.nn.functional.gelu as exported: x * 0.5 * (1 + erf(x / sqrt(2))) */
static const char *tb_gelu(struct tb *t, const char *x)
{
	if (!t->sqrt2) {
		t->sqrt2 = tb_scalar(t, 1.4142135f);
		t->one = tb_scalar(t, 1.0f);
		t->half = tb_scalar(t, 0.5f);
	}
	const char *e = tb_op(t, "Erf", tb_op2(t, "Div", x, t->sqrt2), NULL);
	return tb_op2(t, "Mul", tb_op2(t, "Mul", x, tb_op2(t, "Add", e, t->one)), t->half);
}

static const char *tb_transpose(struct tb *t, const char *x, int rank, const int64_t *perm)
{
	Onnx__NodeProto *n;
	const char *y = tb_op(t, "Transpose", x, &n);
	onnx_writer_attr_ints(&t->w, n, "perm", perm, (size_t)rank);
	return y;
}

static const char *tb_reshape(struct tb *t, const char *x, int rank, const int64_t *shape)
{
	return tb_op2(t, "Reshape", x, tb_ints(t, rank, shape));
}

static const int64_t tb_heads_perm[4] = { 0, 2, 1, 3 }, tb_keys_perm[4] = { 0, 2, 3, 1 };

/* Self-attention over x [1, S, d]; mask: a bool [1, 1, S, S] initializer (causal) or NULL. */
static const char *tb_attention(struct tb *t, const char *x, int64_t S, int64_t d, int64_t H,
				const char *mask)
{
	const int64_t split[4] = { 1, S, H, d / H }, merged[3] = { 1, S, d };
	const char *q = tb_transpose(t, tb_reshape(t, tb_linear(t, x, d, d), 4, split), 4,
				     tb_heads_perm);
	const char *k = tb_transpose(t, tb_reshape(t, tb_linear(t, x, d, d), 4, split), 4,
				     tb_keys_perm);
	const char *v = tb_transpose(t, tb_reshape(t, tb_linear(t, x, d, d), 4, split), 4,
				     tb_heads_perm);
	const char *s = tb_op2(t, "Div", tb_op2(t, "MatMul", q, k),
			       tb_scalar(t, sqrtf((float)(d / H))));
	if (mask) {
		char in[256];
		snprintf(in, sizeof in, "%s,%s,%s", mask, s, tb_scalar(t, -3.4028235e38f));
		s = tb_op(t, "Where", in, NULL);
	}
	Onnx__NodeProto *n;
	const char *p = tb_op(t, "Softmax", s, &n);
	onnx_writer_attr_int(&t->w, n, "axis", -1);
	const char *o = tb_transpose(t, tb_op2(t, "MatMul", p, v), 4, tb_heads_perm);
	return tb_linear(t, tb_reshape(t, o, 3, merged), d, d);
}

static const char *tb_mlp(struct tb *t, const char *x, int64_t d, int64_t ff)
{
	return tb_linear(t, tb_gelu(t, tb_linear(t, x, d, ff)), ff, d);
}

/* One encoder/decoder layer: pre-LN (GPT-2, ViT, Whisper) or post-LN (BERT). */
static const char *tb_layer(struct tb *t, const char *x, int64_t S, int64_t d, int64_t H,
			    int64_t ff, float eps, bool pre_ln, const char *mask)
{
	if (pre_ln) {
		x = tb_op2(t, "Add", x,
			   tb_attention(t, tb_layer_norm(t, x, d, eps), S, d, H, mask));
		return tb_op2(t, "Add", x, tb_mlp(t, tb_layer_norm(t, x, d, eps), d, ff));
	}
	x = tb_layer_norm(t, tb_op2(t, "Add", x, tb_attention(t, x, S, d, H, mask)), d, eps);
	return tb_layer_norm(t, tb_op2(t, "Add", x, tb_mlp(t, x, d, ff)), d, eps);
}

static void tb_begin(struct tb *t, uint64_t seed)
{
	memset(t, 0, sizeof *t);
	onnx_writer_init(&t->w, 17);
	t->seed = seed;
}

static bool tb_save(struct tb *t, const char *y, const char *path, int rank,
		    const int64_t *dims)
{
	onnx_writer_node(&t->w, NULL, "Identity", NULL, y, "output");
	onnx_writer_output(&t->w, "output", ONNX_FLOAT, rank, dims);
	bool ok = onnx_writer_save(&t->w, path);
	onnx_writer_free(&t->w);
	return ok;
}

/* BERT-base encoder at 128 tokens: 12 post-LN layers, d 768, 12 heads, ff 3072, eps 1e-12, on
 * the embeddings' output (the input is the hidden state after the embedding layer). */
static bool tb_bert(const char *path)
{
	struct tb t;
	tb_begin(&t, 1);
	const int64_t in[3] = { 1, 128, 768 };
	onnx_writer_input(&t.w, "input", ONNX_FLOAT, 3, in);
	const char *x = "input";
	for (int l = 0; l < 12; l++)
		x = tb_layer(&t, x, 128, 768, 12, 3072, 1e-12f, false, NULL);
	return tb_save(&t, x, path, 3, in);
}

/* ViT-B/16 at 224x224: the patch embedding (Conv 16x16 stride 16), class token, positions,
 * 12 pre-LN layers, the final norm, the class token's 1000-way head. */
static bool tb_vit(const char *path)
{
	struct tb t;
	tb_begin(&t, 2);
	const int64_t in[4] = { 1, 3, 224, 224 }, wd[4] = { 768, 3, 16, 16 }, c = 768,
		      cls[3] = { 1, 1, 768 }, pos[3] = { 1, 197, 768 }, out[2] = { 1, 1000 };
	onnx_writer_input(&t.w, "pixels", ONNX_FLOAT, 4, in);
	char ins[256];
	snprintf(ins, sizeof ins, "pixels,%s,%s", tb_weight(&t, "patch_W", 4, wd, 0.02f, 0),
		 tb_weight(&t, "patch_b", 1, &c, 0.02f, 0));
	Onnx__NodeProto *n;
	const char *x = tb_op(&t, "Conv", ins, &n);
	const int64_t k[2] = { 16, 16 };
	onnx_writer_attr_ints(&t.w, n, "kernel_shape", k, 2);
	onnx_writer_attr_ints(&t.w, n, "strides", k, 2);
	x = tb_transpose(&t, tb_reshape(&t, x, 3, (const int64_t[]){ 1, 768, 196 }), 3,
			 (const int64_t[]){ 0, 2, 1 });
	snprintf(ins, sizeof ins, "%s,%s", tb_weight(&t, "cls", 3, cls, 0.02f, 0), x);
	x = tb_op(&t, "Concat", ins, &n);
	onnx_writer_attr_int(&t.w, n, "axis", 1);
	x = tb_op2(&t, "Add", x, tb_weight(&t, "pos", 3, pos, 0.02f, 0));
	for (int l = 0; l < 12; l++)
		x = tb_layer(&t, x, 197, 768, 12, 3072, 1e-12f, true, NULL);
	x = tb_layer_norm(&t, x, 768, 1e-12f);
	const int64_t zero = 0;
	const char *idx = tb_name(&t, "idx");
	onnx_writer_initializer(&t.w, idx, ONNX_INT64, 0, NULL, &zero);
	snprintf(ins, sizeof ins, "%s,%s", x, idx);
	x = tb_op(&t, "Gather", ins, &n);
	onnx_writer_attr_int(&t.w, n, "axis", 1);
	return tb_save(&t, tb_linear(&t, x, 768, 1000), path, 2, out);
}

/* Whisper-tiny's encoder on 30 s of audio: two Conv1d (80 -> 384, k 3; 384 -> 384, k 3 stride
 * 2) each with GELU, positions, 4 pre-LN layers (d 384, 6 heads, ff 1536), the final norm. */
static bool tb_whisper(const char *path)
{
	struct tb t;
	tb_begin(&t, 3);
	const int64_t in[3] = { 1, 80, 3000 }, w1[3] = { 384, 80, 3 }, w2[3] = { 384, 384, 3 },
		      c = 384, pos[3] = { 1, 1500, 384 }, out[3] = { 1, 1500, 384 };
	onnx_writer_input(&t.w, "mel", ONNX_FLOAT, 3, in);
	const char *x = "mel";
	for (int i = 0; i < 2; i++) {
		char ins[256];
		snprintf(ins, sizeof ins, "%s,%s,%s", x,
			 tb_weight(&t, "conv_W", 3, i ? w2 : w1, 0.02f, 0),
			 tb_weight(&t, "conv_b", 1, &c, 0.02f, 0));
		Onnx__NodeProto *n;
		x = tb_op(&t, "Conv", ins, &n);
		const int64_t k = 3, pads[2] = { 1, 1 }, stride = i ? 2 : 1;
		onnx_writer_attr_ints(&t.w, n, "kernel_shape", &k, 1);
		onnx_writer_attr_ints(&t.w, n, "pads", pads, 2);
		onnx_writer_attr_ints(&t.w, n, "strides", &stride, 1);
		x = tb_gelu(&t, x);
	}
	x = tb_transpose(&t, x, 3, (const int64_t[]){ 0, 2, 1 });
	x = tb_op2(&t, "Add", x, tb_weight(&t, "pos", 3, pos, 0.02f, 0));
	for (int l = 0; l < 4; l++)
		x = tb_layer(&t, x, 1500, 384, 6, 1536, 1e-5f, true, NULL);
	return tb_save(&t, tb_layer_norm(&t, x, 384, 1e-5f), path, 3, out);
}

/* GPT-2-small's 12 blocks at 64 tokens: pre-LN, the causal mask as a Where on a constant, the
 * final norm. */
static bool tb_gpt2(const char *path)
{
	struct tb t;
	tb_begin(&t, 4);
	const int64_t in[3] = { 1, 64, 768 }, md[4] = { 1, 1, 64, 64 };
	onnx_writer_input(&t.w, "input", ONNX_FLOAT, 3, in);
	uint8_t causal[64 * 64];
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 64; j++)
			causal[i * 64 + j] = j <= i;
	const char *mask = tb_name(&t, "causal");
	onnx_writer_initializer(&t.w, mask, ONNX_BOOL, 4, md, causal);
	const char *x = "input";
	for (int l = 0; l < 12; l++)
		x = tb_layer(&t, x, 64, 768, 12, 3072, 1e-5f, true, mask);
	return tb_save(&t, tb_layer_norm(&t, x, 768, 1e-5f), path, 3, in);
}

/* ---- the decoder step as exported for onnxruntime, on the weights webnn-decode uses */

static const char *tb_init(struct tb *t, const char *prefix, int rank, const int64_t *dims,
			   const float *data)
{
	const char *name = tb_name(t, prefix);
	onnx_writer_initializer(&t->w, name, ONNX_FLOAT, rank, dims, data);
	return name;
}

static const char *tb_linear_of(struct tb *t, const char *x, const float *w, const float *b,
				int64_t in, int64_t out)
{
	const int64_t wd[2] = { in, out };
	return tb_op2(t, "Add", tb_op2(t, "MatMul", x, tb_init(t, "W", 2, wd, w)),
		      tb_init(t, "b", 1, &out, b));
}

static const char *tb_layer_norm_of(struct tb *t, const char *x, const float *g, const float *b,
				    int64_t d)
{
	char in[256];
	snprintf(in, sizeof in, "%s,%s,%s", x, tb_init(t, "ln_g", 1, &d, g),
		 tb_init(t, "ln_b", 1, &d, b));
	Onnx__NodeProto *n;
	const char *y = tb_op(t, "LayerNormalization", in, &n);
	onnx_writer_attr_int(&t->w, n, "axis", -1);
	onnx_writer_attr_float(&t->w, n, "epsilon", 1e-5f);
	return y;
}

/* Hugging Face's GPT-2 export with a cache: input_ids and position_ids int64 [1, 1],
 * past_key_<l>/past_value_<l> [1, H, past, dh] (past a free dimension), Concat of the new
 * row, present_key_<l>/present_value_<l> out; logits [1, 1, vocab]; next_token (ArgMax) and
 * next_position (+1) as outputs, the same outputs webnnd's step graph has. */
static bool tb_decoder_step(const struct tool_decoder_weights *dw, const char *path)
{
	const struct tool_decoder_config *c = &dw->cfg;
	const int64_t d = c->d_model, H = c->heads, dh = d / H, V = c->vocab;
	struct tb t;
	tb_begin(&t, 5);
	const int64_t one[2] = { 1, 1 }, cache[4] = { 1, H, 0, dh };
	onnx_writer_input(&t.w, "input_ids", ONNX_INT64, 2, one);
	onnx_writer_input(&t.w, "position_ids", ONNX_INT64, 2, one);
	char name[32];
	for (uint32_t l = 0; l < c->layers; l++)
		for (int kv = 0; kv < 2; kv++) {
			snprintf(name, sizeof name, "past_%s_%u", kv ? "value" : "key", l);
			Onnx__ValueInfoProto *v =
				onnx_writer_input(&t.w, name, ONNX_FLOAT, 4, cache);
			onnx_writer_dim_param(&t.w, v, 2, "past_sequence_length");
		}
	const int64_t ed[2] = { V, d }, pd[2] = { c->cache_len, d };
	const char *x = tb_op2(&t, "Add",
			       tb_op2(&t, "Gather", tb_init(&t, "wte", 2, ed, dw->wte), "input_ids"),
			       tb_op2(&t, "Gather", tb_init(&t, "wpe", 2, pd, dw->wpe),
				      "position_ids"));
	t.sqrt2 = NULL;
	const int64_t split[4] = { 1, 1, H, dh }, merged[3] = { 1, 1, d };
	const char *scale = tb_scalar(&t, sqrtf((float)dh));
	for (uint32_t l = 0; l < c->layers; l++) {
		const struct tool_decoder_layer *L = &dw->layer[l];
		const char *h = tb_layer_norm_of(&t, x, L->ln1_g, L->ln1_b, d);
		const char *q = tb_transpose(
			&t, tb_reshape(&t, tb_linear_of(&t, h, L->wq, L->bq, d, d), 4, split), 4,
			tb_heads_perm);
		const char *kv[2];
		for (int i = 0; i < 2; i++) {
			const char *y = tb_transpose(
				&t,
				tb_reshape(&t,
					   tb_linear_of(&t, h, i ? L->wv : L->wk, i ? L->bv : L->bk,
							d, d),
					   4, split),
				4, tb_heads_perm);
			char ins[128], out[32];
			snprintf(ins, sizeof ins, "past_%s_%u,%s", i ? "value" : "key", l, y);
			snprintf(out, sizeof out, "present_%s_%u", i ? "value" : "key", l);
			Onnx__NodeProto *n = onnx_writer_node(&t.w, NULL, "Concat", NULL, ins, out);
			onnx_writer_attr_int(&t.w, n, "axis", 2);
			kv[i] = onnx_writer_strdup(&t.w, out);
		}
		const char *kt = tb_transpose(&t, kv[0], 4, (const int64_t[]){ 0, 1, 3, 2 });
		const char *s = tb_op2(&t, "Div", tb_op2(&t, "MatMul", q, kt), scale);
		Onnx__NodeProto *n;
		const char *p = tb_op(&t, "Softmax", s, &n);
		onnx_writer_attr_int(&t.w, n, "axis", -1);
		const char *o = tb_reshape(
			&t, tb_transpose(&t, tb_op2(&t, "MatMul", p, kv[1]), 4, tb_heads_perm), 3,
			merged);
		x = tb_op2(&t, "Add", x, tb_linear_of(&t, o, L->wo, L->bo, d, d));
		h = tb_layer_norm_of(&t, x, L->ln2_g, L->ln2_b, d);
		h = tb_gelu(&t, tb_linear_of(&t, h, L->wfc, L->bfc, d, c->d_ff));
		x = tb_op2(&t, "Add", x, tb_linear_of(&t, h, L->wpr, L->bpr, c->d_ff, d));
	}
	x = tb_layer_norm_of(&t, x, dw->lnf_g, dw->lnf_b, d);
	const int64_t hd[2] = { d, V }, ld[3] = { 1, 1, V };
	char ins[160];
	snprintf(ins, sizeof ins, "%s,%s", x, tb_init(&t, "head", 2, hd, dw->head));
	onnx_writer_node(&t.w, NULL, "MatMul", NULL, ins, "logits");
	Onnx__NodeProto *n = onnx_writer_node(&t.w, NULL, "ArgMax", NULL, "logits", "next_token");
	onnx_writer_attr_int(&t.w, n, "axis", -1);
	onnx_writer_attr_int(&t.w, n, "keepdims", 0);
	const int64_t k1 = 1;
	const char *inc = tb_name(&t, "one");
	onnx_writer_initializer(&t.w, inc, ONNX_INT64, 0, NULL, &k1);
	snprintf(ins, sizeof ins, "position_ids,%s", inc);
	onnx_writer_node(&t.w, NULL, "Add", NULL, ins, "next_position");
	onnx_writer_output(&t.w, "logits", ONNX_FLOAT, 3, ld);
	onnx_writer_output(&t.w, "next_token", ONNX_INT64, 2, one);
	onnx_writer_output(&t.w, "next_position", ONNX_INT64, 2, one);
	for (uint32_t l = 0; l < c->layers; l++)
		for (int kv = 0; kv < 2; kv++) {
			snprintf(name, sizeof name, "present_%s_%u", kv ? "value" : "key", l);
			Onnx__ValueInfoProto *v =
				onnx_writer_output(&t.w, name, ONNX_FLOAT, 4, cache);
			onnx_writer_dim_param(&t.w, v, 2, "total_sequence_length");
		}
	bool ok = onnx_writer_save(&t.w, path);
	onnx_writer_free(&t.w);
	return ok;
}

/* ---- timing */

static float *tb_read_floats(const char *path, size_t n)
{
	float *v = malloc(sizeof(float) * (n ? n : 1));
	FILE *f = fopen(path, "rb");
	bool ok = v && f && fread(v, sizeof(float), n, f) == n;
	if (f)
		fclose(f);
	if (!ok) {
		free(v);
		return NULL;
	}
	return v;
}

static bool tb_write_floats(const char *path, const float *v, size_t n)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(v, sizeof(float), n, f) == n;
	return f && fclose(f) == 0 && ok;
}

struct tb_model {
	const char *label, *file;
	bool (*write)(const char *path);
};

static const struct tb_model tb_models[] = {
	{ "BERT-base encoder, 128 tokens", "bert.onnx", tb_bert },
	{ "ViT-B/16, 224x224", "vit.onnx", tb_vit },
	{ "Whisper-tiny encoder, 80x3000 mel", "whisper.onnx", tb_whisper },
	{ "GPT-2-small 12 blocks, 64 tokens", "gpt2.onnx", tb_gpt2 },
};
#define TB_N_MODELS (sizeof tb_models / sizeof tb_models[0])

/* onnxruntime at 1 and at 2 intra-op threads, each a process of its own (another session's
 * spinning pool in the same process would share the cores); every ratio is against the faster
 * of the two in the same round, as in the rest of make bench. On this shared 2-core machine
 * 2 threads suffer first from other load (the decode loop ran 86 ms/token at 2 threads and
 * 24 at 1, at load 4). */
#define TB_PEERS 2
static const int tb_peer_threads[TB_PEERS] = { 1, 2 };

struct tb_env {
	struct bc_daemon dm;
	struct bc_child ort[TB_PEERS];
	bool have[TB_PEERS], paused[TB_PEERS], dm_paused;
	char tmp[64];
};

/* Only one contender runs at a time: the others' process trees are stopped (a spinning thread
 * pool would be charged to whoever runs next). who: -1 webnnd, else the peer. A stopped
 * process is not stopped again: no second stop would be reported to bc_pause's wait. */
static void tb_set(pid_t pid, bool *paused, bool pause)
{
	if (pause && !*paused)
		bc_pause(pid);
	else if (!pause && *paused)
		bc_resume(pid);
	*paused = pause;
}

static void tb_only(struct tb_env *e, int who)
{
	tb_set(e->dm.pid, &e->dm_paused, who >= 0);
	for (int j = 0; j < TB_PEERS; j++)
		if (e->have[j] && j != who)
			tb_set(e->ort[j].pid, &e->paused[j], true);
	if (who >= 0)
		tb_set(e->ort[who].pid, &e->paused[who], false);
}

static void tb_all(struct tb_env *e)
{
	tb_set(e->dm.pid, &e->dm_paused, false);
	for (int j = 0; j < TB_PEERS; j++)
		if (e->have[j])
			tb_set(e->ort[j].pid, &e->paused[j], false);
}

struct tb_result {
	double w_ms, o_ms[TB_PEERS], ratio, lo, hi, ratio2, maxd, maxy, load_s, create_s;
	int rounds;
	char error[300];
};

/* The ratio webnnd / the faster peer of each round: median and range over the rounds. */
static void tb_ratios(const double *tw, double (*to)[BC_MAX_ROUNDS], int k, double *ratio,
		      double *lo, double *hi)
{
	double best[BC_MAX_ROUNDS], r[BC_MAX_ROUNDS];
	int n = 0;
	for (int i = 0; i < k; i++) {
		best[n] = NAN;
		for (int j = 0; j < TB_PEERS; j++)
			if (!isnan(to[j][i]) && !(to[j][i] >= best[n]))
				best[n] = to[j][i];
		if (!isnan(best[n]))
			r[n] = tw[i] / best[n], n++;
	}
	*ratio = n ? bc_median(r, n) : NAN;
	*lo = *hi = NAN;
	if (n)
		bc_range(r, n, lo, hi);
}

/* $WEBNN_BENCH_MODELS_DIR: the ONNX files are written there and kept (to profile them with
 * webnn-run, or run them elsewhere); otherwise they are removed after use. */
static const char *tb_keep_dir(void)
{
	const char *d = getenv("WEBNN_BENCH_MODELS_DIR");
	return d && *d ? d : NULL;
}

static void tb_model_path(const struct tb_env *e, const char *file, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", tb_keep_dir() ? tb_keep_dir() : e->tmp, file);
}

static void tb_drop(const char *path)
{
	if (!tb_keep_dir())
		unlink(path);
}

static void tb_run_model(const struct tb_model *m, struct tb_env *e, struct tb_result *res)
{
	char path[160], why[1200], reply[2048], f[200];
	struct bc_daemon *dm = &e->dm;
	memset(res, 0, sizeof *res);
	res->ratio = res->ratio2 = res->maxd = NAN;
	for (int j = 0; j < TB_PEERS; j++)
		res->o_ms[j] = NAN;
	tb_model_path(e, m->file, path, sizeof path);
	if (!m->write(path)) {
		bc_fmt(res->error, sizeof res->error, "cannot write %s", path);
		return;
	}
	struct webnn_model *model = NULL;
	double t0 = bc_now();
	enum webnn_status s = webnn_model_load(dm->ctx, path, NULL, &model, why, sizeof why);
	res->load_s = bc_now() - t0;
	if (s != WEBNN_STATUS_OK) {
		bc_fmt(res->error, sizeof res->error, "webnnd load: %s", why);
		tb_drop(path);
		return;
	}
	struct webnn_named_tensor in = { NULL, NULL }, out = { NULL, NULL };
	struct webnn_tensor_desc ti = { .writable = true }, to = { .readable = true };
	webnn_model_input_desc(model, 0, &ti.desc);
	webnn_model_output_desc(model, 0, &to.desc);
	in.name = webnn_model_input_name(model, 0);
	out.name = webnn_model_output_name(model, 0);
	size_t ni = 1, no = 1;
	for (uint32_t i = 0; i < ti.desc.rank; i++)
		ni *= ti.desc.shape[i];
	for (uint32_t i = 0; i < to.desc.rank; i++)
		no *= to.desc.shape[i];
	float *x = malloc(sizeof(float) * ni), *y = malloc(sizeof(float) * no);
	ASSERT(x && y);
	uint64_t seed = 99;
	for (size_t i = 0; i < ni; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		x[i] = (float)((seed >> 40) & 0xffffff) / 8388608.0f - 1.0f;
	}
	ASSERT(webnn_context_create_tensor(dm->ctx, &ti, &in.tensor) == WEBNN_STATUS_OK);
	ASSERT(webnn_context_create_tensor(dm->ctx, &to, &out.tensor) == WEBNN_STATUS_OK);
	ASSERT(webnn_context_write_tensor(dm->ctx, in.tensor, x, sizeof(float) * ni) ==
	       WEBNN_STATUS_OK);
	struct webnn_graph *g = webnn_model_graph(model);
	double first = bc_now();
	ASSERT_MSG(webnn_context_dispatch(dm->ctx, g, &in, 1, &out, 1) == WEBNN_STATUS_OK &&
			   webnn_context_read_tensor(dm->ctx, out.tensor, y, sizeof(float) * no) ==
				   WEBNN_STATUS_OK,
		   "%s: %s", m->label, webnn_context_last_error(dm->ctx));
	first = bc_now() - first;
	bool ok[TB_PEERS];
	snprintf(f, sizeof f, "%s/in0.bin", e->tmp);
	ASSERT(tb_write_floats(f, x, ni));
	res->maxd = res->maxy = 0;
	for (int j = 0; j < TB_PEERS; j++) {
		ok[j] = e->have[j];
		if (!ok[j])
			continue;
		t0 = bc_now();
		ok[j] = bc_child_cmd(&e->ort[j], reply, sizeof reply, "open tm %s -", path);
		res->create_s = fmax(res->create_s, bc_now() - t0);
		ok[j] = ok[j] && bc_child_cmd(&e->ort[j], reply, sizeof reply, "feed tm %s", e->tmp) &&
			bc_child_cmd(&e->ort[j], reply, sizeof reply, "outs tm %s", e->tmp);
		if (!ok[j])
			bc_fmt(res->error, sizeof res->error, "onnxruntime: %s", reply);
		snprintf(f, sizeof f, "%s/out0.bin", e->tmp);
		float *yo = ok[j] ? tb_read_floats(f, no) : NULL;
		ok[j] = yo != NULL;
		for (size_t i = 0; yo && i < no; i++) {
			res->maxd = fmax(res->maxd, fabs((double)y[i] - yo[i]));
			res->maxy = fmax(res->maxy, fabs((double)yo[i]));
		}
		free(yo);
	}
	/* rounds of about 0.3 s per contender */
	int inner = (int)(0.3 / fmax(first, 1e-4));
	inner = inner < 1 ? 1 : inner > 50 ? 50 : inner;
	double tw[BC_MAX_ROUNDS], tort[TB_PEERS][BC_MAX_ROUNDS], start = bc_now();
	int rounds = bc_rounds(), k = 0;
	for (; k < rounds && k < BC_MAX_ROUNDS; k++) {
		if (k >= 3 && bc_now() - start > bc_budget() / TB_N_MODELS)
			break;
		tb_only(e, -1);
		t0 = bc_now();
		for (int i = 0; i < inner; i++)
			ASSERT(webnn_context_dispatch(dm->ctx, g, &in, 1, &out, 1) ==
			       WEBNN_STATUS_OK);
		ASSERT(webnn_context_read_tensor(dm->ctx, out.tensor, y, sizeof(float) * no) ==
		       WEBNN_STATUS_OK);
		tw[k] = (bc_now() - t0) / inner;
		for (int j = 0; j < TB_PEERS; j++) {
			tort[j][k] = NAN;
			if (ok[j]) {
				tb_only(e, j);
				tort[j][k] = bc_ort_run(&e->ort[j], "tm", inner);
			}
		}
	}
	tb_all(e);
	res->rounds = k;
	res->w_ms = bc_median(tw, k) * 1e3;
	for (int j = 0; j < TB_PEERS; j++)
		if (ok[j]) {
			res->o_ms[j] = bc_median(tort[j], k) * 1e3;
			bc_child_cmd(&e->ort[j], reply, sizeof reply, "close tm");
		}
	tb_ratios(tw, tort, k, &res->ratio, &res->lo, &res->hi);
	res->ratio2 = ok[TB_PEERS - 1] ? bc_ratio(tw, tort[TB_PEERS - 1], k) : NAN;
	webnn_tensor_destroy(in.tensor);
	webnn_tensor_destroy(out.tensor);
	webnn_model_destroy(model);
	free(x);
	free(y);
	tb_drop(path);
}

static void tb_start(struct tb_env *e, const char *what)
{
	char why[1200], ort_why[600] = "";
	snprintf(e->tmp, sizeof e->tmp, "/tmp/webnn-bench-%s-XXXXXX", what);
	ASSERT(mkdtemp(e->tmp));
	ASSERT_MSG(bc_daemon_start(&e->dm, NULL, "cpu", NULL, why, sizeof why), "%s", why);
	for (int j = 0; j < TB_PEERS; j++) {
		e->have[j] = bc_ort_start(&e->ort[j], tb_peer_threads[j], ort_why, sizeof ort_why);
		if (!e->have[j])
			fprintf(stderr, "%s: no onnxruntime peer: %s\n", what, ort_why);
	}
}

static void tb_stop(struct tb_env *e)
{
	for (int j = 0; j < TB_PEERS; j++)
		if (e->have[j])
			bc_child_stop(&e->ort[j]);
	bc_daemon_stop(&e->dm);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", e->tmp);
	ASSERT(system(cmd) == 0);
}

TEST_TIMEOUT(bench_transformers, 1800)
{
	static struct tb_env e;
	tb_start(&e, "transformers");
	double load0 = test_load_average();
	struct tb_result res[TB_N_MODELS];
	bool mismatch = false;
	for (size_t i = 0; i < TB_N_MODELS; i++) {
		tb_run_model(&tb_models[i], &e, &res[i]);
		struct tb_result *r = &res[i];
		fprintf(stderr,
			"%-34s webnnd %7.2f ms  onnxruntime %7.2f ms (1 thr) %7.2f ms (2 thr)  "
			"ratio %.2f [%.2f..%.2f] (%d rounds; %.2f against 2 threads)  max |d| %.2g "
			"(max |y| %.3g)  load %.2f s (onnxruntime %.2f s)%s%s\n",
			tb_models[i].label, r->w_ms, r->o_ms[0], r->o_ms[1], r->ratio, r->lo, r->hi,
			r->rounds, r->ratio2, r->maxd, r->maxy, r->load_s, r->create_s,
			r->error[0] ? "  " : "", r->error);
		if (!(r->maxd <= 1e-3 * fmax(1.0, r->maxy)) && !isnan(r->ratio))
			mismatch = true;
	}
	fprintf(stderr, "load average %.2f -> %.2f (%ld cores)\n", load0, test_load_average(),
		sysconf(_SC_NPROCESSORS_ONLN));
	tb_stop(&e);
	ASSERT_MSG(!mismatch, "a transformer's output differs from onnxruntime's");
}

/* ---- the decode loop: GPT-2-small, 64 tokens from position 0 with a 128-row cache */

#define TD_TOKENS 64

/* Mean seconds per token of one decode of n tokens by a peer; NAN on failure. */
static double tb_ort_decode(struct bc_child *o, uint32_t n, int32_t first, const char *dir)
{
	char reply[16384];
	if (!bc_child_cmd(o, reply, sizeof reply, "decode dec %u %d %s", n, first, dir)) {
		fprintf(stderr, "onnxruntime decode: %s\n", reply);
		return NAN;
	}
	double sum = 0;
	char *p = reply + 1, *end;
	for (uint32_t i = 0; i < n; i++, p = end) {
		sum += strtod(p, &end);
		if (end == p)
			return NAN;
	}
	return sum / n / 1e3;
}

TEST_TIMEOUT(bench_decode, 1800)
{
	char path[160], why[1200], reply[2048], f[200];
	static struct tb_env e;
	tb_start(&e, "decode");
	double load0 = test_load_average();
	const struct tool_decoder_config cfg = { 12, 768, 12, 3072, 50257, 128 };
	const uint32_t V = cfg.vocab, N = TD_TOKENS;
	struct tool_decoder_weights *w = tool_decoder_weights_random(&cfg, 1);
	ASSERT(w);
	struct tool_decoder_run *r = NULL;
	double t0 = bc_now();
	enum webnn_status s = tool_decoder_run_create(e.dm.ctx, w, &r, why, sizeof why);
	ASSERT_MSG(s == WEBNN_STATUS_OK, "%s", why);
	double build_s = bc_now() - t0;
	float *wl = malloc(sizeof(float) * V * N);
	int32_t tok[TD_TOKENS + 1];
	ASSERT(wl);
	tok[0] = 0;
	ASSERT(tool_decoder_run_start(r, tok[0]) == WEBNN_STATUS_OK);
	for (uint32_t i = 0; i < N; i++)
		ASSERT(tool_decoder_run_step(r, &tok[i + 1], wl + (size_t)i * V) == WEBNN_STATUS_OK);
	bool ok[TB_PEERS];
	double maxd = 0, maxy = 0, create_s = 0;
	uint32_t same = N;
	tb_model_path(&e, "gpt2_decoder_step.onnx", path, sizeof path);
	ASSERT(tb_decoder_step(w, path));
	for (int j = 0; j < TB_PEERS; j++) {
		ok[j] = e.have[j];
		if (!ok[j])
			continue;
		t0 = bc_now();
		ok[j] = bc_child_cmd(&e.ort[j], reply, sizeof reply,
				     "open dec %s past_sequence_length=1", path);
		create_s = fmax(create_s, bc_now() - t0);
		if (!ok[j])
			fprintf(stderr, "onnxruntime: %s\n", reply);
		ok[j] = ok[j] && !isnan(tb_ort_decode(&e.ort[j], N, tok[0], e.tmp));
		snprintf(f, sizeof f, "%s/logits.bin", e.tmp);
		float *ol = ok[j] ? tb_read_floats(f, (size_t)V * N) : NULL;
		ok[j] = ol != NULL;
		/* both decode greedily: compare the steps while they have read the same tokens */
		for (uint32_t i = 0; ol && i < N; i++) {
			uint32_t best = 0;
			for (uint32_t c = 0; c < V; c++) {
				double a = wl[(size_t)i * V + c], b = ol[(size_t)i * V + c];
				maxd = fmax(maxd, fabs(a - b));
				maxy = fmax(maxy, fabs(b));
				if (b > ol[(size_t)i * V + best])
					best = c;
			}
			if ((int32_t)best != tok[i + 1]) {
				same = same < i + 1 ? same : i + 1;
				break;
			}
		}
		free(ol);
	}
	tb_drop(path);
	double tw[BC_MAX_ROUNDS], tort[TB_PEERS][BC_MAX_ROUNDS], start = bc_now();
	int rounds = bc_rounds(), k = 0;
	for (; k < rounds && k < BC_MAX_ROUNDS; k++) {
		if (k >= 3 && bc_now() - start > bc_budget())
			break;
		tb_only(&e, -1);
		ASSERT(tool_decoder_run_start(r, tok[0]) == WEBNN_STATUS_OK);
		double sum = 0;
		for (uint32_t i = 0; i < N; i++) {
			int32_t next;
			t0 = bc_now();
			ASSERT(tool_decoder_run_step(r, &next, NULL) == WEBNN_STATUS_OK);
			sum += bc_now() - t0;
		}
		tw[k] = sum / N;
		for (int j = 0; j < TB_PEERS; j++) {
			tort[j][k] = NAN;
			if (ok[j]) {
				tb_only(&e, j);
				tort[j][k] = tb_ort_decode(&e.ort[j], N, tok[0], "-");
			}
		}
	}
	tb_all(&e);
	double ratio, lo, hi;
	tb_ratios(tw, tort, k, &ratio, &lo, &hi);
	fprintf(stderr,
		"GPT-2-small decode (12 layers, d 768, vocab %u; webnnd: a %u-row cache in daemon "
		"tensors; onnxruntime: past/present Concat), %u tokens from position 0: webnnd "
		"%.2f ms/token, onnxruntime %.2f ms/token (1 thr) %.2f (2 thr), ratio %.2f "
		"[%.2f..%.2f] (%d rounds; %.2f against 2 threads); logits max |d| %.2g (max "
		"%.3g), %u of %u tokens the same; step graph built in %.2f s, onnxruntime session %.2f s\n",
		V, cfg.cache_len, N, bc_median(tw, k) * 1e3,
		ok[0] ? bc_median(tort[0], k) * 1e3 : NAN, ok[1] ? bc_median(tort[1], k) * 1e3 : NAN,
		ratio, lo, hi, k, ok[1] ? bc_ratio(tw, tort[1], k) : NAN, maxd, maxy, same, N,
		build_s, create_s);
	fprintf(stderr, "load average %.2f -> %.2f (%ld cores)\n", load0, test_load_average(),
		sysconf(_SC_NPROCESSORS_ONLN));
	for (int j = 0; j < TB_PEERS; j++)
		if (ok[j])
			bc_child_cmd(&e.ort[j], reply, sizeof reply, "close dec");
	tool_decoder_run_destroy(r);
	tool_decoder_weights_free(w);
	free(wl);
	tb_stop(&e);
	bool any = ok[0] || ok[1];
	ASSERT_MSG(!any || (same >= N / 2 && maxd <= 1e-3 * fmax(1.0, maxy)),
		   "the decode differs from onnxruntime's (%u steps agree, max |d| %.3g)", same,
		   maxd);
}

/* ---- peak memory while loading: webnn-run's process and webnnd's worker, against the file */

/* One /proc/<pid>/status field in KiB; -1 when the process or the field is gone. */
static long tb_status_kib(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long kib = -1;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			kib = strtol(line + kl + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return kib;
}

/* The daemon's device worker of this uid (comm wnn-u<uid>, a child of the daemon). */
static pid_t tb_worker(pid_t daemon)
{
	char comm[32], path[64], line[64];
	snprintf(comm, sizeof comm, "wnn-u%u", (unsigned)getuid());
	DIR *d = opendir("/proc");
	pid_t found = -1;
	for (struct dirent *e; d && found < 0 && (e = readdir(d));) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
		FILE *f = fopen(path, "r");
		bool named = f && fgets(line, sizeof line, f) && strncmp(line, comm, strlen(comm)) == 0;
		if (f)
			fclose(f);
		if (named && tb_status_kib(pid, "PPid") == daemon)
			found = pid;
	}
	if (d)
		closedir(d);
	return found;
}

/* Resident memory of a process by kind (KiB), as sampled. */
struct tb_rss {
	long total, anon, file, shmem;
};

static void tb_rss_read(pid_t pid, struct tb_rss *r)
{
	r->total = tb_status_kib(pid, "VmRSS");
	r->anon = tb_status_kib(pid, "RssAnon");
	r->file = tb_status_kib(pid, "RssFile");
	r->shmem = tb_status_kib(pid, "RssShmem");
}

struct tb_loadmem {
	long client_hwm, worker_hwm;      /* KiB: each process's peak */
	long sum_peak;                     /* KiB: the largest sampled client + worker */
	struct tb_rss at_client, at_worker; /* their breakdown at that sample */
	double wall_s;
	int status;
};

/* Runs webnn-run on model against the daemon (a fresh one: its worker's peak is this load's)
 * and samples both processes every millisecond or so. The client's peak is its VmHWM as
 * last sampled (its rusage would count the forked bench process's pages too). */
static void tb_loadmem_run(const struct bc_daemon *dm, const char *model, bool cache,
			   const char *xdg, struct tb_loadmem *m)
{
	char bin[4096], env_xdg[300];
	snprintf(bin, sizeof bin, "%s/bin/webnn-run", test_build_dir());
	snprintf(env_xdg, sizeof env_xdg, "XDG_CACHE_HOME=%s", xdg);
	memset(m, 0, sizeof *m);
	pid_t worker = tb_worker(dm->pid);
	ASSERT_MSG(worker > 0, "no worker under webnnd %d", (int)dm->pid);
	fflush(stdout);
	fflush(stderr);
	double t0 = bc_now();
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1), dup2(fd, 2);
		putenv(env_xdg);
		const char *argv[] = { bin, "--socket", dm->sock, model, "--iterations", "1",
				       cache ? "--cache" : NULL, NULL };
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	int st = 0;
	for (;;) {
		struct tb_rss c, w;
		tb_rss_read(pid, &c);
		tb_rss_read(worker, &w);
		long ch = tb_status_kib(pid, "VmHWM");
		if (ch > m->client_hwm)
			m->client_hwm = ch;
		if (c.total >= 0 && w.total >= 0 && c.total + w.total > m->sum_peak) {
			m->sum_peak = c.total + w.total;
			m->at_client = c;
			m->at_worker = w;
		}
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		usleep(1000);
	}
	m->wall_s = bc_now() - t0;
	m->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	m->worker_hwm = tb_status_kib(worker, "VmHWM");
}

static void tb_loadmem_print(const char *what, const struct tb_loadmem *m, double file_mb)
{
	double c = m->client_hwm / 1024.0, w = m->worker_hwm / 1024.0, s = m->sum_peak / 1024.0;
	fprintf(stderr,
		"  %-36s client %6.0f MB, worker %6.0f MB: %.2fx the file (peaks added); at the "
		"largest sampled sum %.0f MB (%.2fx): client anon %.0f file %.0f shmem %.0f, worker "
		"anon %.0f file %.0f shmem %.0f; %.2f s%s\n",
		what, c, w, (c + w) / file_mb, s, s / file_mb, m->at_client.anon / 1024.0,
		m->at_client.file / 1024.0, m->at_client.shmem / 1024.0, m->at_worker.anon / 1024.0,
		m->at_worker.file / 1024.0, m->at_worker.shmem / 1024.0, m->wall_s,
		m->status ? "  (webnn-run FAILED)" : "");
}

/* The figure: peak memory while loading a model (client + worker) against the model
 * file's size, for the BERT-base encoder above (324 MB), with webnn-run as a user runs it: a
 * plain load, a --cache load that misses (builds and saves), and one that hits. Each run has
 * a fresh daemon, so the worker's peak is that load's. Rounds: WEBNN_BENCH_ROUNDS (at most 3). */
TEST_TIMEOUT(bench_load_memory, 1800)
{
	char top[64] = "/tmp/webnn-bench-loadmem-XXXXXX", model[128], cache[128], xdg[128];
	char env_cache[160], why[1200];
	ASSERT(mkdtemp(top));
	ASSERT(chmod(top, 0755) == 0);
	snprintf(model, sizeof model, "%s/bert.onnx", top);
	snprintf(cache, sizeof cache, "%s/cache", top);
	snprintf(xdg, sizeof xdg, "%s/xdg", top);
	snprintf(env_cache, sizeof env_cache, "WEBNN_CACHE_DIR=%s", cache);
	ASSERT(tb_bert(model));
	struct stat sb;
	ASSERT(stat(model, &sb) == 0);
	double file_mb = (double)sb.st_size / (1024.0 * 1024.0);
	double load0 = test_load_average();
	fprintf(stderr, "BERT-base ONNX, %.0f MB, webnn-run on the cpu backend:\n", file_mb);
	static const char *const modes[] = { "plain", "--cache, miss (build+save)",
					     "--cache, hit" };
	int rounds = bc_rounds() < 3 ? bc_rounds() : 3;
	bool failed = false;
	double ratio[3][BC_MAX_ROUNDS];
	for (int r = 0; r < rounds; r++) {
		char cmd[400];
		snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", cache, xdg);
		ASSERT(system(cmd) == 0);
		for (int k = 0; k < 3; k++) {
			const char *env[] = { env_cache, NULL };
			struct bc_daemon dm;
			if (!bc_daemon_start(&dm, NULL, "cpu", env, why, sizeof why))
				SKIP("no cpu daemon: %s", why);
			struct tb_loadmem m;
			tb_loadmem_run(&dm, model, k > 0, xdg, &m);
			bc_daemon_stop(&dm);
			char what[64];
			snprintf(what, sizeof what, "%s (round %d)", modes[k], r);
			tb_loadmem_print(what, &m, file_mb);
			ratio[k][r] = (m.client_hwm + m.worker_hwm) / 1024.0 / file_mb;
			failed |= m.status != 0;
		}
	}
	for (int k = 0; k < 3; k++)
		fprintf(stderr, "  %-36s (client + worker peaks) / file: median %.2f\n", modes[k],
			bc_median(ratio[k], rounds));
	fprintf(stderr, "load average %.2f -> %.2f (%ld cores)\n", load0, test_load_average(),
		sysconf(_SC_NPROCESSORS_ONLN));
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	ASSERT(system(cmd) == 0);
	ASSERT_MSG(!failed, "webnn-run failed to load the model");
}
