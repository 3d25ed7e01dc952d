/* Token-by-token decoding with a key-value cache kept in daemon tensors: each step's logits against the same decoder run over the whole sequence without a cache. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/common/decoder.h"
#include "tests/clienttest.h"

/* Small but with every part of a GPT-2 block: 2 layers, 4 heads of 8, a cache of 16 rows. */
static const struct tool_decoder_config td_cfg = { 2, 32, 4, 128, 50, 16 };
#define TD_STEPS 11

/* The whole-sequence logits [n, vocab] of tokens[0..n). */
static void td_full(struct webnn_context *ctx, const struct tool_decoder_weights *w,
		    const int32_t *tokens, uint32_t n, float *logits)
{
	char why[512] = "";
	struct webnn_graph *g = NULL;
	enum webnn_status s = tool_decoder_build_full(ctx, w, n, &g, why, sizeof why);
	ASSERT_MSG(s == WEBNN_STATUS_OK, "whole-sequence graph: %s", why);
	struct webnn_tensor_desc di = { { WEBNN_INT32, 1, { n } }, false, true };
	struct webnn_tensor_desc dl = { { WEBNN_FLOAT32, 2, { n, w->cfg.vocab } }, true, false };
	struct webnn_named_tensor in = { "tokens", NULL }, out = { "logits", NULL };
	OK(ctx, webnn_context_create_tensor(ctx, &di, &in.tensor));
	OK(ctx, webnn_context_create_tensor(ctx, &dl, &out.tensor));
	OK(ctx, webnn_context_write_tensor(ctx, in.tensor, tokens, sizeof(int32_t) * n));
	OK(ctx, webnn_context_dispatch(ctx, g, &in, 1, &out, 1));
	OK(ctx, webnn_context_read_tensor(ctx, out.tensor, logits,
					  sizeof(float) * n * w->cfg.vocab));
	webnn_tensor_destroy(in.tensor);
	webnn_tensor_destroy(out.tensor);
	webnn_graph_destroy(g);
}

static double td_max_diff(const float *a, const float *b, size_t n)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		m = fmax(m, fabs((double)a[i] - b[i]));
	return m;
}

static void td_check(const char *backend)
{
	struct test_daemon d;
	const char *const args[] = { "--backend", backend, NULL };
	ct_require_webnnd();
	test_daemon_start(&d, args);
	struct webnn_context *ctx = ct_connect(&d, "test_decode");
	struct tool_decoder_weights *w = tool_decoder_weights_random(&td_cfg, 7);
	ASSERT(w);
	const uint32_t V = td_cfg.vocab, n = TD_STEPS;
	char why[512] = "";
	struct tool_decoder_run *r = NULL;
	enum webnn_status s = tool_decoder_run_create(ctx, w, &r, why, sizeof why);
	ASSERT_MSG(s == WEBNN_STATUS_OK, "step graph: %s", why);
	static int32_t tokens[TD_STEPS + 1], again[TD_STEPS + 1];
	static float step[TD_STEPS * 64], full[TD_STEPS * 64], other[TD_STEPS * 64];
	tokens[0] = 3;
	OK(ctx, tool_decoder_run_start(r, tokens[0]));
	for (uint32_t i = 0; i < n; i++) {
		OK(ctx, tool_decoder_run_step(r, &tokens[i + 1], step + (size_t)i * V));
		ASSERT_EQ(tool_decoder_run_pos(r), i + 1);
		/* the graph's own argmax, fed back in the daemon, is the client's argmax */
		uint32_t best = 0;
		for (uint32_t j = 1; j < V; j++)
			if (step[i * V + j] > step[i * V + best])
				best = j;
		ASSERT_MSG(tokens[i + 1] == (int32_t)best, "step %u: next_token %d, argmax %u", i,
			   tokens[i + 1], best);
	}
	/* the same tokens through the whole-sequence graph: row i is step i */
	td_full(ctx, w, tokens, n, full);
	double maxv = 0;
	for (size_t i = 0; i < (size_t)n * V; i++)
		maxv = fmax(maxv, fabs((double)full[i]));
	double dmax = td_max_diff(step, full, (size_t)n * V);
	fprintf(stderr, "%s: %u steps, max |step - full| %.3g (max |logit| %.3g)\n", backend, n,
		dmax, maxv);
	ASSERT(maxv > 0.05);
	ASSERT_MSG(dmax <= 1e-5 * fmax(1.0, maxv), "token-by-token logits differ from the whole "
		   "sequence's by %.3g", dmax);
	/* the comparison sees the context: another first token changes every later row */
	memcpy(again, tokens, sizeof tokens);
	again[0] = (tokens[0] + 1) % (int32_t)V;
	td_full(ctx, w, again, n, other);
	for (uint32_t i = 1; i < n; i++) {
		double di = td_max_diff(step + (size_t)i * V, other + (size_t)i * V, V);
		ASSERT_MSG(di > 100 * fmax(dmax, 1e-7), "row %u does not depend on token 0 (%.3g)",
			   i, di);
	}
	/* restarting clears the caches: the same tokens again, teacher-forced this time */
	OK(ctx, tool_decoder_run_start(r, tokens[0]));
	for (uint32_t i = 0; i < n; i++) {
		int32_t next;
		if (i)
			OK(ctx, tool_decoder_run_set_token(r, tokens[i]));
		OK(ctx, tool_decoder_run_step(r, &next, other + (size_t)i * V));
		ASSERT_EQ(next, tokens[i + 1]);
	}
	ASSERT(td_max_diff(step, other, (size_t)n * V) <= 1e-6 * fmax(1.0, maxv));
	/* a full cache refuses another step */
	int32_t next;
	while (tool_decoder_run_pos(r) < td_cfg.cache_len)
		OK(ctx, tool_decoder_run_step(r, &next, NULL));
	ASSERT_EQ(tool_decoder_run_step(r, &next, NULL), WEBNN_STATUS_INVALID_STATE);
	tool_decoder_run_destroy(r);
	tool_decoder_weights_free(w);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(decode_cache_matches_full_sequence_reference)
{
	td_check("reference");
}

TEST(decode_cache_matches_full_sequence_cpu)
{
	td_check("cpu");
}
