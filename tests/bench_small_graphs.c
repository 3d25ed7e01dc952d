/* Bench: the mobile angle classifier (35 conv + batchNormalization + hard-swish) on the cpu backend, as exported against written by hand, and against another build ($WEBNN_BENCH_PREVIOUS). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/graphs.h"
#include "tests/models.h"
#include "tests/test.h"

#define SGB_ROUNDS 15 /* interleaved samples per contender */
#define SGB_INNER 20  /* dispatches per sample */

struct sgb_slot {
	const char *name;
	struct webnn_context *ctx;
	struct webnn_graph *g;
	struct webnn_tensor *ti, *to;
	uint32_t kernels, operations;
	double t[SGB_ROUNDS];
};

static double sgb_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int sgb_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double sgb_median(const double *v, int n)
{
	double s[SGB_ROUNDS];
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, sgb_cmp);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Connects to the daemon and builds the classifier (exported or hand-written) on it. */
static void sgb_open(struct sgb_slot *s, const char *socket, bool exported, const float *in)
{
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	char err[512] = "";
	co.socket_path = socket;
	enum webnn_status st = webnn_context_create(&co, &s->ctx, err, sizeof err);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "context: %s: %s", webnn_status_name(st), err);
	struct model m = { .ctx = s->ctx };
	MODEL_OK(m.ctx, webnn_builder_create(m.ctx, &m.b), "builder");
	struct webnn_operand_desc id = { WEBNN_FLOAT32, 4, { 1, 3, 48, 192 } };
	struct webnn_operand *x;
	MODEL_OK(m.ctx, webnn_builder_input(m.b, "x", &id, &x), "input");
	struct webnn_named_operand out = { "y", model_angle_classifier(&m, x, exported) };
	MODEL_OK(m.ctx, webnn_builder_build(m.b, &out, 1, &s->g), "build");
	webnn_builder_destroy(m.b);
	struct webnn_graph_stats gs = WEBNN_GRAPH_STATS_INIT;
	MODEL_OK(m.ctx, webnn_graph_get_stats(s->g, &gs), "stats");
	s->kernels = gs.kernels;
	s->operations = gs.operations;
	struct webnn_tensor_desc tin = { id, false, true }, tout = { { WEBNN_FLOAT32, 2, { 1, 2 } },
								     true, false };
	MODEL_OK(m.ctx, webnn_context_create_tensor(m.ctx, &tin, &s->ti), "input tensor");
	MODEL_OK(m.ctx, webnn_context_create_tensor(m.ctx, &tout, &s->to), "output tensor");
	MODEL_OK(m.ctx, webnn_context_write_tensor(m.ctx, s->ti, in, 3 * 48 * 192 * sizeof *in),
		 "write");
}

/* ms per dispatch (dispatch and read of the result) over n dispatches. */
static double sgb_run(struct sgb_slot *s, int n)
{
	struct webnn_named_tensor bi = { "x", s->ti }, bo = { "y", s->to };
	float out[2];
	double t0 = sgb_now();
	for (int k = 0; k < n; k++) {
		MODEL_OK(s->ctx, webnn_context_dispatch(s->ctx, s->g, &bi, 1, &bo, 1), "dispatch");
		MODEL_OK(s->ctx, webnn_context_read_tensor(s->ctx, s->to, out, sizeof out), "read");
	}
	return (sgb_now() - t0) / n;
}

static void sgb_close(struct sgb_slot *s)
{
	webnn_tensor_destroy(s->ti);
	webnn_tensor_destroy(s->to);
	webnn_graph_destroy(s->g);
	webnn_context_destroy(s->ctx);
}

TEST_TIMEOUT(bench_small_graphs, 600)
{
	const char *prev = getenv("WEBNN_BENCH_PREVIOUS");
	const char *const args[] = { "--backend", "cpu", NULL };
	struct test_daemon d[2];
	int n_daemons = prev && *prev ? 2 : 1;
	test_daemon_start(&d[0], args);
	if (n_daemons == 2)
		test_daemon_start_binary(&d[1], prev, args);
	size_t n = 3 * 48 * 192;
	float *in = malloc(n * sizeof *in);
	ASSERT(in);
	tg_random(in, WNN_F32, n, 7, 0, 1);
	struct sgb_slot slot[4] = { { .name = "this build, as exported" },
				    { .name = "this build, by hand" },
				    { .name = "previous build, as exported" },
				    { .name = "previous build, by hand" } };
	int ns = 2 * n_daemons;
	for (int k = 0; k < ns; k++)
		sgb_open(&slot[k], d[k / 2].socket_path, k % 2 == 0, in);
	for (int k = 0; k < ns; k++)
		sgb_run(&slot[k], 5); /* warm-up */
	double load0 = test_load_average();
	for (int r = 0; r < SGB_ROUNDS; r++)
		for (int k = 0; k < ns; k++) {
			int v = (k + r) % ns; /* rotate the order: no contender always runs first */
			slot[v].t[r] = sgb_run(&slot[v], SGB_INNER);
		}
	printf("  mobile angle classifier [1,3,48,192], cpu backend, %d rounds x %d dispatches "
	       "interleaved, load %.1f -> %.1f\n",
	       SGB_ROUNDS, SGB_INNER, load0, test_load_average());
	printf("  %-30s %10s %10s %12s\n", "contender", "operations", "steps", "median ms");
	for (int k = 0; k < ns; k++)
		printf("  %-30s %10u %10u %12.3f\n", slot[k].name, slot[k].operations,
		       slot[k].kernels, sgb_median(slot[k].t, SGB_ROUNDS));
	double ratio[SGB_ROUNDS];
	for (int r = 0; r < SGB_ROUNDS; r++)
		ratio[r] = slot[0].t[r] / slot[1].t[r];
	printf("  as exported / by hand (this build): %.2fx (median of per-round ratios)\n",
	       sgb_median(ratio, SGB_ROUNDS));
	if (n_daemons == 2) {
		for (int r = 0; r < SGB_ROUNDS; r++)
			ratio[r] = slot[0].t[r] / slot[2].t[r];
		printf("  this build / previous build, as exported: %.2fx\n",
		       sgb_median(ratio, SGB_ROUNDS));
		for (int r = 0; r < SGB_ROUNDS; r++)
			ratio[r] = slot[1].t[r] / slot[3].t[r];
		printf("  this build / previous build, by hand: %.2fx\n",
		       sgb_median(ratio, SGB_ROUNDS));
	} else {
		printf("  (set WEBNN_BENCH_PREVIOUS to another build's webnnd to compare with it)\n");
	}
	for (int k = 0; k < ns; k++)
		sgb_close(&slot[k]);
	free(in);
	for (int k = 0; k < n_daemons; k++)
		test_daemon_stop(&d[k]);
}
