/* Bench: a BERT-base-sized graph (110M float32 parameters) built and sent once, then loaded from the graph cache by new connections. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/bench_common.h"
#include "tests/clienttest.h"
#include "tests/test.h"

/* BERT-base's matrices: 12 layers of Q, K, V, O (768 x 768) and the feed-forward pair (768 x
 * 3072, 3072 x 768), and the 30522-word vocabulary as an output projection: 108.8M weights
 * (435 MB) and 12 x 6 + 1 matmuls over 128 tokens. The attention's softmax is left out: the
 * figure is about loading the weights, not the layer's arithmetic. */
enum { BG_TOKENS = 128, BG_HIDDEN = 768, BG_FF = 3072, BG_LAYERS = 12, BG_VOCAB = 30522 };

static float *bg_weights(size_t n, unsigned seed)
{
	float *w = malloc(n * sizeof(float));
	ASSERT(w);
	uint32_t s = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		w[i] = ((float)(s >> 9) / (float)(1u << 23) - 0.5f) * 0.06f;
	}
	return w;
}

static struct webnn_operand *bg_matmul(struct webnn_context *ctx, struct webnn_builder *b,
				       struct webnn_operand *x, uint32_t k, uint32_t n,
				       unsigned seed)
{
	float *w = bg_weights((size_t)k * n, seed);
	struct webnn_operand_desc d = { WEBNN_FLOAT32, 2, { k, n } };
	struct webnn_operand *c = NULL, *y = NULL;
	OK(ctx, webnn_builder_constant(b, &d, w, (size_t)k * n * sizeof(float), &c));
	free(w);
	OK(ctx, webnn_builder_matmul(b, x, c, &y));
	return y;
}

static struct webnn_graph *bg_build(struct webnn_context *ctx)
{
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand_desc xd = { WEBNN_FLOAT32, 2, { BG_TOKENS, BG_HIDDEN } };
	struct webnn_operand *x = NULL;
	OK(ctx, webnn_builder_input(b, "x", &xd, &x));
	unsigned seed = 1;
	for (int l = 0; l < BG_LAYERS; l++) {
		struct webnn_operand *q = bg_matmul(ctx, b, x, BG_HIDDEN, BG_HIDDEN, seed++);
		struct webnn_operand *k = bg_matmul(ctx, b, x, BG_HIDDEN, BG_HIDDEN, seed++);
		struct webnn_operand *v = bg_matmul(ctx, b, x, BG_HIDDEN, BG_HIDDEN, seed++);
		struct webnn_operand *a = NULL;
		OK(ctx, webnn_builder_add(b, q, k, &a));
		OK(ctx, webnn_builder_add(b, a, v, &a));
		a = bg_matmul(ctx, b, a, BG_HIDDEN, BG_HIDDEN, seed++);
		OK(ctx, webnn_builder_add(b, a, x, &x));
		struct webnn_operand *h = bg_matmul(ctx, b, x, BG_HIDDEN, BG_FF, seed++);
		OK(ctx, webnn_builder_relu(b, h, &h));
		h = bg_matmul(ctx, b, h, BG_FF, BG_HIDDEN, seed++);
		OK(ctx, webnn_builder_add(b, h, x, &x));
	}
	struct webnn_operand *y = bg_matmul(ctx, b, x, BG_HIDDEN, BG_VOCAB, seed++);
	struct webnn_named_operand out = { "y", y };
	struct webnn_graph *g = NULL;
	OK(ctx, webnn_builder_build(b, &out, 1, &g));
	webnn_builder_destroy(b);
	return g;
}

/* One dispatch on x = small ramp; the first 64 outputs into out. */
static void bg_run(struct webnn_context *ctx, struct webnn_graph *g, float *out)
{
	static float x[BG_TOKENS * BG_HIDDEN];
	for (size_t i = 0; i < BG_TOKENS * BG_HIDDEN; i++)
		x[i] = (float)(i % 97) * 0.001f;
	static const struct webnn_operand_desc xd = { WEBNN_FLOAT32, 2, { BG_TOKENS, BG_HIDDEN } },
					       yd = { WEBNN_FLOAT32, 2, { BG_TOKENS, BG_VOCAB } };
	size_t n = (size_t)BG_TOKENS * BG_VOCAB;
	float *y = malloc(n * sizeof(float));
	ASSERT(y);
	ct_dispatch_one(ctx, g, "x", &xd, x, "y", &yd, y);
	memcpy(out, y, 64 * sizeof(float));
	free(y);
}

static struct webnn_context *bg_connect(const char *sock)
{
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	co.socket_path = sock;
	co.client_name = "bench graphcache";
	struct webnn_context *ctx = NULL;
	char err[512] = "";
	enum webnn_status st = webnn_context_create(&co, &ctx, err, sizeof err);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "context: %s: %s", webnn_status_name(st), err);
	return ctx;
}

/* Build (constants made and sent, compiled) against load from the cache in a new connection,
 * interleaved; the loaded graph computes what the built one does. Figure (issue 20): a cached
 * BERT-base ready in <= 100 ms in a new process (it took 1.2-1.8 s to build). */
TEST_TIMEOUT(bench_graphcache_bert_base_load, 900)
{
	char top[64] = "/tmp/wnn-gcb-XXXXXX";
	ASSERT(mkdtemp(top));
	ASSERT(chmod(top, 0755) == 0);
	char env_cache[128];
	snprintf(env_cache, sizeof env_cache, "WEBNN_CACHE_DIR=%s/cache", top);
	const char *env[] = { env_cache, NULL };
	struct bc_daemon d;
	char why[512];
	const char *args[] = { getenv("WEBNN_BENCH_VERBOSE") ? "--verbose" : NULL, NULL };
	if (!bc_daemon_start_with(&d, NULL, "cpu", env, args, why, sizeof why))
		SKIP("no cpu daemon: %s", why);
	int rounds = bc_rounds() < 5 ? bc_rounds() : 5;
	double build_ms[BC_MAX_ROUNDS], load_ms[BC_MAX_ROUNDS], connect_ms[BC_MAX_ROUNDS];
	double compile_ms[BC_MAX_ROUNDS], first_ms[BC_MAX_ROUNDS], second_ms[BC_MAX_ROUNDS];
	float want[64], got[64];
	double save_ms = 0;
	for (int r = 0; r < rounds; r++) {
		struct webnn_context *a = bg_connect(d.sock);
		double t0 = bc_now();
		struct webnn_graph *g = bg_build(a);
		build_ms[r] = (bc_now() - t0) * 1e3;
		if (r == 0) {
			bg_run(a, g, want);
			t0 = bc_now();
			OK(a, webnn_context_save_graph(a, "bert-base", g));
			save_ms = (bc_now() - t0) * 1e3;
		}
		webnn_graph_destroy(g);
		webnn_context_destroy(a);
		t0 = bc_now();
		struct webnn_context *b = bg_connect(d.sock);
		double t1 = bc_now();
		struct webnn_graph *l = NULL;
		OK(b, webnn_context_load_graph(b, "bert-base", &l));
		load_ms[r] = (bc_now() - t1) * 1e3;
		connect_ms[r] = (t1 - t0) * 1e3;
		ASSERT(l != NULL);
		compile_ms[r] = webnn_graph_compile_ms(l);
		/* the first dispatch checks the entry's bytes (graphcache.h) */
		t0 = bc_now();
		bg_run(b, l, got);
		first_ms[r] = (bc_now() - t0) * 1e3;
		ASSERT(memcmp(got, want, sizeof got) == 0);
		t0 = bc_now();
		bg_run(b, l, got);
		second_ms[r] = (bc_now() - t0) * 1e3;
		webnn_graph_destroy(l);
		webnn_context_destroy(b);
		printf("  round %d: build %.0f ms, connect %.1f ms, load %.1f ms (compile %.1f), "
		       "first dispatch %.0f ms, second %.0f ms\n", r, build_ms[r], connect_ms[r],
		       load_ms[r], compile_ms[r], first_ms[r], second_ms[r]);
	}
	printf("BERT-base-sized graph (108.8M float32 weights, %d matmuls) on %s:\n",
	       BG_LAYERS * 6 + 1, d.device);
	printf("  build (constants made, sent, compiled): median %.0f ms\n",
	       bc_median(build_ms, rounds));
	printf("  save: %.0f ms (first round)\n", save_ms);
	printf("  load in a new connection: median %.1f ms (of which the plan's compile %.1f ms; "
	       "+ %.1f ms to connect)\n", bc_median(load_ms, rounds),
	       bc_median(compile_ms, rounds), bc_median(connect_ms, rounds));
	printf("  the loaded graph's first dispatch: median %.0f ms (it checks the entry's hash), "
	       "the second %.0f ms\n", bc_median(first_ms, rounds), bc_median(second_ms, rounds));
	bc_print_ratio("  load / build", load_ms, build_ms, rounds);
	if (getenv("WEBNN_BENCH_VERBOSE")) {
		/* the worker's own breakdown of each load (map, verify, compile) */
		char cmd[600];
		snprintf(cmd, sizeof cmd, "grep -E 'graph cache|compiled in' '%s' | cut -c1-220",
			 d.log);
		if (system(cmd) != 0)
			printf("  (no breakdown in the daemon's log)\n");
	}
	bc_daemon_stop(&d);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	ASSERT(system(cmd) == 0);
}
