/* webnn-decode: an example client that decodes tokens one at a time through a GPT-2-style step graph whose key-value cache stays in webnnd, printing per-token latency. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/common/decoder.h"
#include "webnn.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: webnn-decode [--socket PATH] [--tokens N] [--first TOKEN] [--layers L]\n"
		"                    [--d-model D] [--heads H] [--d-ff F] [--vocab V] [--cache T]\n"
		"                    [--seed S] [--check]\n"
		"Decodes N tokens greedily with a GPT-2-style decoder of random weights (by default\n"
		"GPT-2-small's shapes: 12 layers, d 768, 12 heads, d_ff 3072, vocab 50257, cache 128)\n"
		"one dispatch per token: the key-value cache lives in webnnd's tensors (two sets that\n"
		"swap each step), the graph writes each token's row into it and feeds its argmax and\n"
		"position to the next step; the client reads only the 4-byte token. Prints the tokens\n"
		"and per-token latency (dispatch + read).\n"
		"  --check   also runs the whole sequence through the no-cache graph and prints the\n"
		"            largest logit difference to the token-by-token run\n"
		"  --version print the version\n");
}

static uint32_t arg_u32(const char *opt, const char *v, uint32_t lo, uint32_t hi)
{
	char *end = NULL;
	unsigned long x = strtoul(v, &end, 10);
	if (!*v || !end || *end || x < lo || x > hi) {
		fprintf(stderr, "webnn-decode: %s %s: expected an integer in %u..%u\n", opt, v, lo, hi);
		exit(2);
	}
	return (uint32_t)x;
}

/* The token-by-token logits (n x vocab) against the whole-sequence graph's on the same tokens. */
static int check_full(struct webnn_context *ctx, const struct tool_decoder_weights *w,
		      const int32_t *tokens, uint32_t n, const float *logits)
{
	char why[512] = "";
	struct webnn_graph *g = NULL;
	enum webnn_status s = tool_decoder_build_full(ctx, w, n, &g, why, sizeof why);
	if (s != WEBNN_STATUS_OK) {
		fprintf(stderr, "webnn-decode: whole-sequence graph: %s\n", why);
		return 1;
	}
	size_t count = (size_t)n * w->cfg.vocab;
	float *full = malloc(sizeof(float) * count);
	struct webnn_tensor *ti = NULL, *to = NULL;
	struct webnn_tensor_desc di = { { WEBNN_INT32, 1, { n } }, false, true };
	struct webnn_tensor_desc dO = { { WEBNN_FLOAT32, 2, { n, w->cfg.vocab } }, true, false };
	s = full ? webnn_context_create_tensor(ctx, &di, &ti) : WEBNN_STATUS_NO_MEMORY;
	if (s == WEBNN_STATUS_OK)
		s = webnn_context_create_tensor(ctx, &dO, &to);
	if (s == WEBNN_STATUS_OK)
		s = webnn_context_write_tensor(ctx, ti, tokens, sizeof(int32_t) * n);
	struct webnn_named_tensor in = { "tokens", ti }, out = { "logits", to };
	if (s == WEBNN_STATUS_OK)
		s = webnn_context_dispatch(ctx, g, &in, 1, &out, 1);
	if (s == WEBNN_STATUS_OK)
		s = webnn_context_read_tensor(ctx, to, full, sizeof(float) * count);
	int rc = 1;
	if (s == WEBNN_STATUS_OK) {
		double maxd = 0, maxv = 0;
		for (size_t i = 0; i < count; i++) {
			maxd = fmax(maxd, fabs((double)full[i] - logits[i]));
			maxv = fmax(maxv, fabs((double)full[i]));
		}
		printf("check: token-by-token logits vs the whole sequence without a cache: "
		       "max |d| %.3g (max |logit| %.3g)\n", maxd, maxv);
		rc = maxd <= 1e-4 * fmax(1.0, maxv) ? 0 : 1;
		if (rc)
			printf("check: FAILED\n");
	} else {
		fprintf(stderr, "webnn-decode: whole-sequence run: %s\n",
			webnn_context_last_error(ctx));
	}
	webnn_tensor_destroy(ti);
	webnn_tensor_destroy(to);
	webnn_graph_destroy(g);
	free(full);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' }, { "tokens", required_argument, NULL, 'n' },
		{ "first", required_argument, NULL, 'f' },  { "layers", required_argument, NULL, 'L' },
		{ "d-model", required_argument, NULL, 'd' }, { "heads", required_argument, NULL, 'H' },
		{ "d-ff", required_argument, NULL, 'F' },   { "vocab", required_argument, NULL, 'v' },
		{ "cache", required_argument, NULL, 'T' },  { "seed", required_argument, NULL, 'S' },
		{ "check", no_argument, NULL, 'c' },        { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },      { NULL, 0, NULL, 0 },
	};
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	struct tool_decoder_config cfg = { 12, 768, 12, 0, 50257, 128 };
	uint32_t n = 32, first = 0, seed = 1;
	bool check = false;
	int ch;
	co.client_name = "webnn-decode";
	while ((ch = getopt_long(argc, argv, "s:n:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': co.socket_path = optarg; break;
		case 'n': n = arg_u32("--tokens", optarg, 1, 65536); break;
		case 'f': first = arg_u32("--first", optarg, 0, UINT32_MAX >> 1); break;
		case 'L': cfg.layers = arg_u32("--layers", optarg, 1, 64); break;
		case 'd': cfg.d_model = arg_u32("--d-model", optarg, 1, 16384); break;
		case 'H': cfg.heads = arg_u32("--heads", optarg, 1, 256); break;
		case 'F': cfg.d_ff = arg_u32("--d-ff", optarg, 1, 65536); break;
		case 'v': cfg.vocab = arg_u32("--vocab", optarg, 1, 1u << 20); break;
		case 'T': cfg.cache_len = arg_u32("--cache", optarg, 1, 65536); break;
		case 'S': seed = arg_u32("--seed", optarg, 0, UINT32_MAX); break;
		case 'c': check = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("webnn-decode %s\n", WEBNN_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (!cfg.d_ff)
		cfg.d_ff = 4 * cfg.d_model;
	if (cfg.d_model % cfg.heads) {
		fprintf(stderr, "webnn-decode: --heads %u does not divide --d-model %u\n", cfg.heads,
			cfg.d_model);
		return 2;
	}
	if (n > cfg.cache_len) {
		fprintf(stderr, "webnn-decode: --tokens %u exceeds the cache (--cache %u)\n", n,
			cfg.cache_len);
		return 2;
	}
	if (first >= cfg.vocab) {
		fprintf(stderr, "webnn-decode: --first %u is not below --vocab %u\n", first, cfg.vocab);
		return 2;
	}
	char err[512] = "";
	struct webnn_context *ctx = NULL;
	enum webnn_status s = webnn_context_create(&co, &ctx, err, sizeof err);
	if (s != WEBNN_STATUS_OK) {
		fprintf(stderr, "webnn-decode: cannot reach webnnd: %s: %s\n", webnn_status_name(s),
			err);
		return 1;
	}
	struct webnn_context_info info;
	webnn_context_get_info(ctx, &info);
	struct tool_decoder_weights *w = tool_decoder_weights_random(&cfg, seed);
	if (!w) {
		fprintf(stderr, "webnn-decode: out of memory for the weights\n");
		return 1;
	}
	printf("decoder: %u layers, d %u, %u heads, d_ff %u, vocab %u, cache %u: %.1f M parameters "
	       "(random, seed %u); %s backend on %s\n",
	       cfg.layers, cfg.d_model, cfg.heads, cfg.d_ff, cfg.vocab, cfg.cache_len,
	       (double)(w->n_floats - (size_t)cfg.vocab * cfg.d_model) / 1e6, seed,
	       info.backend ? info.backend : "?", info.device_name ? info.device_name : "?");
	struct tool_decoder_run *r = NULL;
	double t0 = now_ms();
	s = tool_decoder_run_create(ctx, w, &r, err, sizeof err);
	if (s != WEBNN_STATUS_OK) {
		fprintf(stderr, "webnn-decode: %s\n", err);
		return 1;
	}
	printf("step graph built in %.0f ms\n", now_ms() - t0);
	int32_t *tokens = malloc(sizeof(int32_t) * (n + 1));
	double *ms = malloc(sizeof(double) * n);
	float *logits = check ? malloc(sizeof(float) * n * cfg.vocab) : NULL;
	if (!tokens || !ms || (check && !logits)) {
		fprintf(stderr, "webnn-decode: out of memory\n");
		return 1;
	}
	tokens[0] = (int32_t)first;
	s = tool_decoder_run_start(r, tokens[0]);
	for (uint32_t i = 0; i < n && s == WEBNN_STATUS_OK; i++) {
		double t = now_ms();
		s = tool_decoder_run_step(r, &tokens[i + 1],
					 check ? logits + (size_t)i * cfg.vocab : NULL);
		ms[i] = now_ms() - t;
		if (s == WEBNN_STATUS_OK)
			printf("token %3u at position %3u -> %6d  %8.2f ms\n", i, i, tokens[i + 1],
			       ms[i]);
	}
	if (s != WEBNN_STATUS_OK) {
		fprintf(stderr, "webnn-decode: step: %s: %s\n", webnn_status_name(s),
			webnn_context_last_error(ctx));
		return 1;
	}
	double sum = 0;
	for (uint32_t i = 1; i < n; i++)
		sum += ms[i];
	double first_ms = ms[0];
	qsort(ms, n, sizeof *ms, cmp_double);
	printf("%u tokens: first %.2f ms, then mean %.2f ms, median %.2f ms, min %.2f ms per token "
	       "(%.1f tokens/s)\n",
	       n, first_ms, n > 1 ? sum / (n - 1) : first_ms, ms[n / 2], ms[0],
	       n > 1 ? 1e3 * (n - 1) / sum : 1e3 / first_ms);
	int rc = check ? check_full(ctx, w, tokens, n, logits) : 0;
	tool_decoder_run_destroy(r);
	tool_decoder_weights_free(w);
	webnn_context_destroy(ctx);
	free(tokens);
	free(ms);
	free(logits);
	return rc;
}
