/* A GPT-2-style decoder built with libwebnn: a one-token step graph over a fixed-size key-value cache, and the same model over a whole sequence without a cache. */
#ifndef WEBNN_TOOLS_DECODER_H
#define WEBNN_TOOLS_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "webnn.h"

/* GPT-2-small is { 12, 768, 12, 3072, 50257, 128 }. Positions run 0 .. cache_len - 1 (the
 * position table has cache_len rows). */
struct tool_decoder_config {
	uint32_t layers, d_model, heads, d_ff, vocab, cache_len;
};

/* Weights as row-major float32, linears as [in, out] (x W + b, as ONNX's MatMul + Add reads
 * them). The output layer is tied to the token embedding: head is wte transposed, kept as
 * its own [d_model, vocab] array so that neither runtime transposes it per token. */
struct tool_decoder_layer {
	float *ln1_g, *ln1_b, *wq, *bq, *wk, *bk, *wv, *bv, *wo, *bo;
	float *ln2_g, *ln2_b, *wfc, *bfc, *wpr, *bpr;
};
struct tool_decoder_weights {
	struct tool_decoder_config cfg;
	float *wte;  /* [vocab, d_model] */
	float *wpe;  /* [cache_len, d_model] */
	float *head; /* [d_model, vocab] */
	float *lnf_g, *lnf_b;
	struct tool_decoder_layer *layer;
	float *storage;
	size_t n_floats;
};

/* Random weights (GPT-2's initialisation scale: normal-like, std 0.02; layer norms near 1
 * and 0), deterministic in seed. NULL when out of memory. */
struct tool_decoder_weights *tool_decoder_weights_random(const struct tool_decoder_config *c,
						       uint32_t seed);
void tool_decoder_weights_free(struct tool_decoder_weights *w);

/* The same model over a whole sequence, no cache: input "tokens" (int32 [seq], positions
 * 0 .. seq - 1), output "logits" (float32 [seq, vocab]) under a causal mask: row i is what
 * the step graph gives for token i after tokens 0 .. i - 1. seq <= cache_len. */
enum webnn_status tool_decoder_build_full(struct webnn_context *ctx,
					 const struct tool_decoder_weights *w, uint32_t seq,
					 struct webnn_graph **out, char *why, size_t why_len);

/* A decode loop on the step graph: two sets of cache tensors (and of token/pos tensors) that
 * stay in the daemon and swap roles each step; per step the client sends one dispatch and reads
 * the 4-byte next token (and the logits only when asked). */
struct tool_decoder_run;
enum webnn_status tool_decoder_run_create(struct webnn_context *ctx,
					 const struct tool_decoder_weights *w,
					 struct tool_decoder_run **out, char *why, size_t why_len);
/* Restarts at position 0 with first_token: zeroes the caches. */
enum webnn_status tool_decoder_run_start(struct tool_decoder_run *r, int32_t first_token);
/* Replaces the token the next step reads (teacher forcing; the step itself feeds its argmax). */
enum webnn_status tool_decoder_run_set_token(struct tool_decoder_run *r, int32_t token);
/* One token: the dispatch, then reads next_token into *next and, when logits is not NULL, the
 * [vocab] logits. Fails (WEBNN_STATUS_INVALID_STATE) once the cache is full. */
enum webnn_status tool_decoder_run_step(struct tool_decoder_run *r, int32_t *next, float *logits);
/* The position the next step writes. */
uint32_t tool_decoder_run_pos(const struct tool_decoder_run *r);
void tool_decoder_run_destroy(struct tool_decoder_run *r);

#endif
