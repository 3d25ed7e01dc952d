/* make bench: the cpu backend's small steps: the fixed cost of a step, and where a step is worth waking the thread team for (cpu.h CPU_SERIAL_WORK). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/bench_common.h"
#include "tests/graphs.h"
#include "tests/models.h"
#include "tests/test.h"
#include "webnn.h"

#define SS_STEPS 256 /* operations of the long graph of the fixed-cost figure */
#define SS_INNER 40  /* dispatches (each with the read of its output) per sample */
#define SS_SERIAL_ALL "WEBNN_CPU_SERIAL_WORK=1000000000000000"

/*
 * The contenders: this build as it is, by the quick path (quick_max_ns raised so that the long
 * graph takes it too) and through the compute thread (quick_max_ns=1); the same for another
 * build ($WEBNN_BENCH_PREVIOUS); and this build with every step on one thread or every step on
 * the team (WEBNN_CPU_SERIAL_WORK), through the compute thread, so that the two differ only in
 * the threads a step runs on: the threshold's measurement.
 */
enum { SS_THIS, SS_THIS_CT, SS_THIS_QUICK, SS_PREV, SS_PREV_CT, SS_PREV_QUICK, SS_ONE, SS_TEAM,
       SS_N };
static const char *const ss_names[SS_N] = { "this build",
					    "this build, compute thread",
					    "this build, quick path",
					    "previous build",
					    "previous build, compute thread",
					    "previous build, quick path",
					    "one thread, compute thread",
					    "team of all, compute thread" };
#define SS_DEFAULT { "-WEBNN_CPU_SERIAL_WORK", NULL }
static const char *const ss_env[SS_N][2] = { SS_DEFAULT, SS_DEFAULT, SS_DEFAULT, SS_DEFAULT,
					     SS_DEFAULT, SS_DEFAULT, { SS_SERIAL_ALL, NULL },
					     { "WEBNN_CPU_SERIAL_WORK=0", NULL } };
#define SS_CT { "--limit", "quick_max_ns=1", NULL }
#define SS_QUICK { "--limit", "quick_max_ns=100000000", NULL }
static const char *const ss_args[SS_N][3] = { { NULL }, SS_CT, SS_QUICK, { NULL },
					      SS_CT,	SS_QUICK, SS_CT, SS_CT };

/* One graph on one daemon: inputs a (and b), output y, all float32 of the given shapes. */
struct ss_graph {
	struct webnn_context *ctx;
	struct webnn_graph *g;
	struct webnn_tensor *ta, *tb, *ty;
	uint32_t kernels;
	size_t y_bytes;
	float *y;
	double t[BC_MAX_ROUNDS];
};

enum ss_kind { SS_MAXES, SS_ADD, SS_MATMUL };

/* SS_MAXES: steps operations v[k+1] = max(v[k], v[k-1]) over [n] (each value has two readers,
 * so no elementwise chain joins them: one step each but the last two); SS_ADD: one add of
 * [n]; SS_MATMUL: [1, n] x constant [n, m]. */
static void ss_open(struct ss_graph *s, struct webnn_context *ctx, enum ss_kind kind,
		    uint32_t n, uint32_t m, int steps)
{
	memset(s, 0, sizeof *s);
	s->ctx = ctx;
	struct webnn_builder *b;
	MODEL_OK(ctx, webnn_builder_create(ctx, &b), "builder");
	struct webnn_operand_desc da = { WEBNN_FLOAT32, 1, { n } }, dy = da;
	if (kind == SS_MATMUL)
		da = (struct webnn_operand_desc){ WEBNN_FLOAT32, 2, { 1, n } };
	struct webnn_operand *a, *bb = NULL, *y = NULL;
	MODEL_OK(ctx, webnn_builder_input(b, "a", &da, &a), "input a");
	if (kind == SS_MATMUL) {
		struct webnn_operand_desc dw = { WEBNN_FLOAT32, 2, { n, m } };
		float *w = malloc((size_t)n * m * sizeof *w);
		ASSERT(w);
		tg_random(w, WNN_F32, (uint64_t)n * m, 11, -0.1, 0.1);
		MODEL_OK(ctx, webnn_builder_constant(b, &dw, w, (size_t)n * m * sizeof *w, &bb),
			 "weights");
		free(w);
		MODEL_OK(ctx, webnn_builder_matmul(b, a, bb, &y), "matmul");
		dy = (struct webnn_operand_desc){ WEBNN_FLOAT32, 2, { 1, m } };
	} else {
		MODEL_OK(ctx, webnn_builder_input(b, "b", &da, &bb), "input b");
		if (kind == SS_ADD) {
			MODEL_OK(ctx, webnn_builder_add(b, a, bb, &y), "add");
		} else {
			struct webnn_operand *p = a, *c = bb;
			for (int k = 0; k < steps; k++) {
				MODEL_OK(ctx, webnn_builder_max(b, c, p, &y), "max");
				p = c;
				c = y;
			}
		}
	}
	struct webnn_named_operand out = { "y", y };
	MODEL_OK(ctx, webnn_builder_build(b, &out, 1, &s->g), "build");
	webnn_builder_destroy(b);
	struct webnn_graph_stats gs = WEBNN_GRAPH_STATS_INIT;
	MODEL_OK(ctx, webnn_graph_get_stats(s->g, &gs), "stats");
	s->kernels = gs.kernels;
	struct webnn_tensor_desc tin = { da, false, true }, tout = { dy, true, false };
	uint64_t na = n;
	float *in = malloc(na * sizeof *in);
	ASSERT(in);
	MODEL_OK(ctx, webnn_context_create_tensor(ctx, &tin, &s->ta), "tensor a");
	tg_random(in, WNN_F32, na, 3, -1, 1);
	MODEL_OK(ctx, webnn_context_write_tensor(ctx, s->ta, in, na * sizeof *in), "write a");
	if (kind != SS_MATMUL) {
		MODEL_OK(ctx, webnn_context_create_tensor(ctx, &tin, &s->tb), "tensor b");
		tg_random(in, WNN_F32, na, 5, -1, 1);
		MODEL_OK(ctx, webnn_context_write_tensor(ctx, s->tb, in, na * sizeof *in), "write b");
	}
	free(in);
	MODEL_OK(ctx, webnn_context_create_tensor(ctx, &tout, &s->ty), "tensor y");
	s->y_bytes = (size_t)(kind == SS_MATMUL ? m : n) * sizeof(float);
	s->y = malloc(s->y_bytes);
	ASSERT(s->y);
}

/* ms per dispatch and read of its output, over n. */
static double ss_run(struct ss_graph *s, int n)
{
	struct webnn_named_tensor bi[2] = { { "a", s->ta }, { "b", s->tb } }, bo = { "y", s->ty };
	double t0 = bc_now();
	for (int k = 0; k < n; k++) {
		MODEL_OK(s->ctx, webnn_context_dispatch(s->ctx, s->g, bi, s->tb ? 2 : 1, &bo, 1),
			 "dispatch");
		MODEL_OK(s->ctx, webnn_context_read_tensor(s->ctx, s->ty, s->y, s->y_bytes), "read");
	}
	return (bc_now() - t0) * 1e3 / n;
}

static void ss_close(struct ss_graph *s)
{
	webnn_tensor_destroy(s->ta);
	webnn_tensor_destroy(s->tb);
	webnn_tensor_destroy(s->ty);
	webnn_graph_destroy(s->g);
	free(s->y);
}

/* Times every graph of g[0..n) once per round, in an order that rotates. */
static int ss_rounds(struct ss_graph *g, int n)
{
	int rounds = bc_rounds();
	double start = bc_now();
	for (int k = 0; k < n; k++)
		ss_run(&g[k], 5); /* warm-up */
	int r = 0;
	for (; r < rounds && (r < 3 || bc_now() - start < bc_budget() / 2); r++)
		for (int k = 0; k < n; k++) {
			int v = (k + r) % n;
			g[v].t[r] = ss_run(&g[v], SS_INNER);
		}
	return r;
}

TEST_TIMEOUT(bench_small_steps, 600)
{
	struct bc_daemon d[SS_N];
	bool on[SS_N];
	char why[600];
	const char *prev = getenv("WEBNN_BENCH_PREVIOUS");
	for (int v = 0; v < SS_N; v++) {
		bool is_prev = v >= SS_PREV && v <= SS_PREV_QUICK;
		on[v] = !is_prev || (prev && *prev);
		if (on[v])
			ASSERT_MSG(bc_daemon_start_with(&d[v], is_prev ? prev : NULL, "cpu",
							ss_env[v], ss_args[v], why, sizeof why),
				   "%s", why);
	}
	if (!on[SS_PREV])
		printf("  (set WEBNN_BENCH_PREVIOUS to another build's webnnd to compare with it)\n");
	double load0 = test_load_average();

	/* The fixed cost of a step: a graph of SS_STEPS small steps against one of one step, both
	 * by the same path, the difference over the steps between them. */
	static const uint32_t sizes[] = { 256, 1024, 4000 };
	static const int fixed[] = { SS_THIS_CT, SS_THIS_QUICK, SS_PREV_CT, SS_PREV_QUICK };
	enum { NS = sizeof sizes / sizeof sizes[0], NF = sizeof fixed / sizeof fixed[0] };
	struct ss_graph fx[NF * NS * 2]; /* [contender][size][one step, SS_STEPS] */
	int nfx = 0, fv[NF], nfv = 0;
	for (int f = 0; f < NF; f++) {
		if (!on[fixed[f]])
			continue;
		fv[nfv++] = fixed[f];
		for (int z = 0; z < NS; z++)
			for (int l = 0; l < 2; l++)
				ss_open(&fx[nfx++], d[fixed[f]].ctx, SS_MAXES, sizes[z], 0,
					l ? SS_STEPS : 1);
	}
	int rounds = ss_rounds(fx, nfx);
	printf("  per-step fixed cost, cpu backend (%s): a graph of %d max operations against one "
	       "max, each dispatch read back, %d rounds x %d dispatches interleaved, load %.2f -> "
	       "%.2f\n",
	       d[0].device, SS_STEPS, rounds, SS_INNER, load0, test_load_average());
	printf("  %-30s %8s %7s %12s %12s %14s\n", "contender", "elements", "steps",
	       "1 step ms", "long ms", "us per step");
	double worst = 0; /* this build's largest per-step cost */
	for (int f = 0; f < nfv; f++)
		for (int z = 0; z < NS; z++) {
			struct ss_graph *one = &fx[(f * NS + z) * 2], *many = one + 1;
			ASSERT_MSG(one->kernels == 1 && many->kernels == SS_STEPS - 1,
				   "%u and %u steps: the elementwise chains joined the maxes",
				   one->kernels, many->kernels);
			double per[BC_MAX_ROUNDS];
			for (int r = 0; r < rounds; r++)
				per[r] = (many->t[r] - one->t[r]) * 1e3 /
					 (many->kernels - one->kernels);
			double us = bc_median(per, rounds);
			if (fv[f] == SS_THIS_CT || fv[f] == SS_THIS_QUICK)
				worst = us > worst ? us : worst;
			printf("  %-30s %8u %7u %12.4f %12.4f %14.2f\n", ss_names[fv[f]],
			       sizes[z], many->kernels, bc_median(one->t, rounds),
			       bc_median(many->t, rounds), us);
		}
	printf("  this build: at most %.2f us a step under 4K elements (goal <= 3: %s)\n", worst,
	       worst <= 3 ? "met" : "NOT MET");
	for (int k = 0; k < nfx; k++)
		ss_close(&fx[k]);

	/* The threshold: one step alone in its dispatch on the compute thread, on one thread
	 * against the team; and this build against the previous one, each by its own path. */
	static const struct {
		enum ss_kind kind;
		uint32_t n, m;
	} steps[] = { { SS_ADD, 8192, 0 },      { SS_ADD, 32768, 0 },     { SS_ADD, 131072, 0 },
		      { SS_ADD, 262144, 0 },    { SS_ADD, 524288, 0 },    { SS_ADD, 1048576, 0 },
		      { SS_MATMUL, 256, 64 },   { SS_MATMUL, 512, 128 },  { SS_MATMUL, 1536, 128 },
		      { SS_MATMUL, 3072, 128 }, { SS_MATMUL, 1024, 512 }, { SS_MATMUL, 2048, 512 },
		      { SS_MATMUL, 2048, 1024 } };
	enum { NT = sizeof steps / sizeof steps[0] };
	static const int who[] = { SS_ONE, SS_TEAM, SS_THIS, SS_PREV };
	int nw = on[SS_PREV] ? 4 : 3;
	struct ss_graph th[NT * 4];
	for (int i = 0; i < NT; i++)
		for (int w = 0; w < nw; w++)
			ss_open(&th[i * nw + w], d[who[w]].ctx, steps[i].kind, steps[i].n,
				steps[i].m, 1);
	load0 = test_load_average();
	rounds = ss_rounds(th, NT * nw);
	printf("  serial threshold: one step alone in a dispatch; %d rounds x %d dispatches "
	       "interleaved, load %.2f -> %.2f; work = elements + FLOP (graph_node_work); this and "
	       "previous build as they are (quick path where they take it)\n",
	       rounds, SS_INNER, load0, test_load_average());
	printf("  %-28s %9s %11s %9s %7s %9s %9s %7s\n", "step", "work", "1 thread ms",
	       "team ms", "1/team", "this ms", "prev ms", "ratio");
	for (int i = 0; i < NT; i++) {
		struct ss_graph *g = &th[i * nw];
		char label[40];
		uint64_t work;
		if (steps[i].kind == SS_ADD) {
			bc_fmt(label, sizeof label, "add [%u]", steps[i].n);
			work = 3ull * steps[i].n;
		} else {
			bc_fmt(label, sizeof label, "matmul [1,%u]x[%u,%u]", steps[i].n, steps[i].n,
			       steps[i].m);
			work = (uint64_t)steps[i].n + (uint64_t)steps[i].n * steps[i].m +
			       steps[i].m + 2ull * steps[i].n * steps[i].m;
		}
		printf("  %-28s %9llu %11.4f %9.4f %7.2f %9.4f", label, (unsigned long long)work,
		       bc_median(g[0].t, rounds), bc_median(g[1].t, rounds),
		       bc_ratio(g[0].t, g[1].t, rounds), bc_median(g[2].t, rounds));
		if (nw == 4)
			printf(" %9.4f %7.2f\n", bc_median(g[3].t, rounds),
			       bc_ratio(g[2].t, g[3].t, rounds));
		else
			printf("\n");
	}
	for (int k = 0; k < NT * nw; k++)
		ss_close(&th[k]);

	/* In-process speed: the wake-word classifiers' first layer as one dispatch + read of this
	 * build (the quick path: its primitive is made for one thread) against onnxruntime-node's
	 * session.run() at its best (1 and 2 intra-op threads, each its own process, stopped
	 * between its turns: its idle workers spin), interleaved round by round. */
	static const uint32_t mm[][2] = { { 1536, 128 }, { 3072, 128 } };
	enum { NM = sizeof mm / sizeof mm[0] };
	struct bc_child ort[2];
	int n_ort = 0;
	while (n_ort < 2 && bc_ort_start(&ort[n_ort], n_ort + 1, why, sizeof why))
		n_ort++;
	if (n_ort < 2) {
		printf("  against onnxruntime: skipped (%s)\n", why);
	} else {
		struct ss_graph w[NM];
		double ot[NM][2][BC_MAX_ROUNDS];
		for (int i = 0; i < NM; i++) {
			ss_open(&w[i], d[SS_THIS].ctx, SS_MATMUL, mm[i][0], mm[i][1], 1);
			for (int k = 0; k < 2; k++) {
				char reply[300];
				ASSERT_MSG(bc_child_cmd(&ort[k], reply, sizeof reply,
							"load mm%d matmul 1 %u %u", i, mm[i][0],
							mm[i][1]),
					   "onnxruntime: %s", reply);
			}
		}
		for (int k = 0; k < 2; k++)
			bc_pause(ort[k].pid);
		int rounds_o = bc_rounds();
		load0 = test_load_average();
		for (int r = -1; r < rounds_o; r++)
			for (int i = 0; i < NM; i++)
				for (int c = 0; c < 3; c++) {
					int v = (c + (r < 0 ? 0 : r)) % 3;
					double t;
					if (v == 0) {
						t = ss_run(&w[i], SS_INNER);
					} else {
						char id[16];
						bc_fmt(id, sizeof id, "mm%d", i);
						bc_resume(ort[v - 1].pid);
						t = bc_ort_run(&ort[v - 1], id, SS_INNER) * 1e3;
						bc_pause(ort[v - 1].pid);
						ASSERT_MSG(!isnan(t), "onnxruntime failed");
					}
					if (r >= 0) {
						if (v == 0)
							w[i].t[r] = t;
						else
							ot[i][v - 1][r] = t;
					}
				}
		for (int k = 0; k < 2; k++)
			bc_resume(ort[k].pid);
		printf("  against onnxruntime (%s): [1, K] x constant [K, N], this build's dispatch + "
		       "read against session.run(), %d rounds x %d interleaved, load %.2f -> %.2f\n",
		       ort[0].version, rounds_o, SS_INNER, load0, test_load_average());
		printf("  %-28s %11s %11s %11s %14s\n", "step", "webnnd ms", "ORT 1 thr",
		       "ORT 2 thr", "webnnd/ORT");
		for (int i = 0; i < NM; i++) {
			int best = bc_median(ot[i][0], rounds_o) <= bc_median(ot[i][1], rounds_o) ? 0
												    : 1;
			char label[40];
			bc_fmt(label, sizeof label, "matmul [1,%u]x[%u,%u]", mm[i][0], mm[i][0],
			       mm[i][1]);
			printf("  %-28s %11.4f %11.4f %11.4f %11.2f(%d)\n", label,
			       bc_median(w[i].t, rounds_o), bc_median(ot[i][0], rounds_o),
			       bc_median(ot[i][1], rounds_o),
			       bc_ratio(w[i].t, ot[i][best], rounds_o), best + 1);
			ss_close(&w[i]);
		}
	}
	for (int k = 0; k < n_ort; k++)
		bc_child_stop(&ort[k]);
	for (int v = 0; v < SS_N; v++)
		if (on[v])
			bc_daemon_stop(&d[v]);
}
