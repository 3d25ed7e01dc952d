/* The quick path: short dispatches and tensor commands run on the worker's loop thread with the same results, errors and fairness as on the thread pool. */
#include "tests/clienttest.h"
#include "tests/ptclient.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double qk_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Deterministic inputs in [-2, 2). */
static void qk_fill(float *v, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = (float)((seed >> 8) & 0xffff) / 16384.0f - 2.0f;
	}
}

#define QK_GRAPHS 5
#define QK_MAX_OUT 256

/* Small graphs of the kinds the quick path takes (elementwise chains, gather, reductions,
 * layout changes, casts) and one it does not (a larger matmul); out receives graph k's output. */
static void qk_run_graph(struct webnn_context *ctx, int k, float *out, size_t *n_out)
{
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	float x[256];
	qk_fill(x, 256, 7u + (unsigned)k);
	struct webnn_operand *in, *y = NULL, *t;
	struct ct_io io_in = { "x", NULL, x };
	switch (k) {
	case 0: { /* relu(x + c) * x - tanh(x) over [4, 16] */
		uint32_t shape[] = { 4, 16 };
		float c[64];
		qk_fill(c, 64, 99);
		in = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, shape);
		struct webnn_operand *cc = ct_const(ctx, b, WEBNN_FLOAT32, 2, shape, c);
		OK(ctx, webnn_builder_add(b, in, cc, &t));
		OK(ctx, webnn_builder_relu(b, t, &t));
		OK(ctx, webnn_builder_mul(b, t, in, &t));
		struct webnn_operand *th;
		OK(ctx, webnn_builder_tanh(b, in, &th));
		OK(ctx, webnn_builder_sub(b, t, th, &y));
		*n_out = 64;
		break;
	}
	case 1: { /* gather rows of [8, 8] by constant indices, then a sum over the last axis */
		uint32_t shape[] = { 8, 8 }, ishape[] = { 5 };
		int32_t idx[] = { 7, 0, 3, 3, 5 };
		in = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, shape);
		struct webnn_operand *ii = ct_const(ctx, b, WEBNN_INT32, 1, ishape, idx);
		struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
		OK(ctx, webnn_builder_gather(b, in, ii, &go, &t));
		struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
		uint32_t axes[] = { 1 };
		ro.axes = axes;
		ro.n_axes = 1;
		OK(ctx, webnn_builder_reduce_sum(b, t, &ro, &y));
		*n_out = 5;
		break;
	}
	case 2: { /* transpose [4, 16] and concat with itself, through float16 and back */
		uint32_t shape[] = { 4, 16 };
		in = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, shape);
		uint32_t perm[] = { 1, 0 };
		OK(ctx, webnn_builder_transpose(b, in, perm, 2, &t));
		struct webnn_operand *parts[] = { t, t };
		OK(ctx, webnn_builder_concat(b, parts, 2, 1, &t));
		OK(ctx, webnn_builder_cast(b, t, WEBNN_FLOAT16, &t));
		OK(ctx, webnn_builder_cast(b, t, WEBNN_FLOAT32, &y));
		*n_out = 128;
		break;
	}
	case 3: { /* softmax over [4, 16] (oneDNN on the cpu backend: the pool) */
		uint32_t shape[] = { 4, 16 };
		in = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, shape);
		OK(ctx, webnn_builder_softmax(b, in, 1, &y));
		*n_out = 64;
		break;
	}
	default: { /* matmul [16, 16] x [16, 16]: estimated 1.95 us on cpu, quick on both
		    * backends (a product this small skips oneDNN on cpu) */
		uint32_t shape[] = { 16, 16 };
		float w[256];
		qk_fill(w, 256, 5);
		in = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, shape);
		struct webnn_operand *ww = ct_const(ctx, b, WEBNN_FLOAT32, 2, shape, w);
		OK(ctx, webnn_builder_matmul(b, in, ww, &y));
		*n_out = 256;
		break;
	}
	}
	struct ct_io io_out = { "y", y, out };
	ct_run(ctx, b, "quick graph", &io_in, 1, &io_out, 1);
	webnn_builder_destroy(b);
}

/* Every small graph gives the same output with the quick path on (the default) and off
 * (quick_max_ns=1: every dispatch takes the pool), on the cpu and reference backends. */
TEST_TIMEOUT(quick_path_matches_the_pool, 180)
{
	ct_require_webnnd();
	static const char *backends[] = { "reference", "cpu" };
	for (int bi = 0; bi < 2; bi++) {
		float got[2][QK_GRAPHS][QK_MAX_OUT];
		size_t n[QK_GRAPHS] = { 0 };
		for (int mode = 0; mode < 2; mode++) {
			struct test_daemon d;
			const char *quick[] = { "--backend", backends[bi], NULL };
			const char *pool[] = { "--backend", backends[bi], "--limit",
					       "quick_max_ns=1", NULL };
			test_daemon_start(&d, mode ? pool : quick);
			struct webnn_context *ctx = ct_connect(&d, "quick");
			for (int k = 0; k < QK_GRAPHS; k++)
				qk_run_graph(ctx, k, got[mode][k], &n[k]);
			webnn_context_destroy(ctx);
			test_daemon_stop(&d);
		}
		for (int k = 0; k < QK_GRAPHS; k++)
			for (size_t i = 0; i < n[k]; i++) {
				float a = got[0][k][i], p = got[1][k][i];
				ASSERT_MSG(fabsf(a - p) <= 1e-6f + 1e-6f * fabsf(p),
					   "%s backend, graph %d, element %zu: %.9g quick, %.9g on the "
					   "pool", backends[bi], k, i, a, p);
			}
		/* and the first graph is right, not just the same */
		float x[64], c[64];
		qk_fill(x, 64, 7);
		qk_fill(c, 64, 99);
		for (int i = 0; i < 64; i++) {
			float s = x[i] + c[i];
			float want = (s > 0 ? s : 0) * x[i] - tanhf(x[i]);
			ASSERT_MSG(fabsf(got[0][0][i] - want) <= 1e-5f + 1e-5f * fabsf(want),
				   "%s: element %d is %g, expected %g", backends[bi], i, got[0][0][i],
				   want);
		}
	}
}

/* Graphs 0, 3 and 4 on a cpu daemon with quick_max_ns and WEBNN_CPU_SERIAL_WORK as given
 * (NULL: the default): how many its log says take the quick path as estimated under the limit
 * (returned), and on trial over it (*trial). */
static int qk_count_quick(const char *serial_work, const char *quick_max_ns, int *trial)
{
	char log[4200], limit[64];
	struct test_daemon d;
	snprintf(limit, sizeof(limit), "quick_max_ns=%s", quick_max_ns);
	const char *args[] = { "--backend", "cpu", "--verbose", "--limit", limit, NULL };
	snprintf(log, sizeof(log), "%s/quick-%d.log", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	if (serial_work)
		setenv("WEBNN_CPU_SERIAL_WORK", serial_work, 1);
	else
		unsetenv("WEBNN_CPU_SERIAL_WORK");
	test_daemon_start_logged(&d, NULL, args, log);
	unsetenv("WEBNN_CPU_SERIAL_WORK");
	struct webnn_context *ctx = ct_connect(&d, "quick");
	float out[QK_MAX_OUT];
	size_t n;
	qk_run_graph(ctx, 0, out, &n); /* five C kernels: estimated 0.72 us, over the limit */
	qk_run_graph(ctx, 3, out, &n); /* softmax: oneDNN on cpu */
	qk_run_graph(ctx, 4, out, &n); /* matmul 16^3: estimated 0.51 us, C loop: quick */
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
	FILE *f = fopen(log, "r");
	ASSERT(f);
	char line[1024];
	int quick = 0;
	*trial = 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "takes the quick path")) {
			bool on_trial = strstr(line, "on trial: over quick_max_ns") != NULL;
			ASSERT_MSG(on_trial || strstr(line, "under quick_max_ns"), "%s", line);
			*trial += on_trial;
			quick += !on_trial;
		}
	fclose(f);
	unlink(log);
	return quick;
}

/* The daemon's log says which graphs take the quick path: one estimated under quick_max_ns
 * does, one estimated above it (but under QUICK_TRIAL_FACTOR times it) does on trial; a small
 * softmax, a oneDNN primitive made for one thread (cpu.h CPU_SERIAL_WORK), does, unless every
 * step runs on the team (WEBNN_CPU_SERIAL_WORK=0): a primitive made for the team keeps its plan
 * off. With quick_max_ns=1 nothing does, on trial or not. */
TEST_TIMEOUT(quick_path_is_chosen_by_the_work_estimate, 120)
{
	ct_require_webnnd();
	int trial;
	ASSERT_EQ(qk_count_quick(NULL, "600", &trial), 2);
	ASSERT_EQ(trial, 1);
	ASSERT_EQ(qk_count_quick("0", "600", &trial), 1);
	ASSERT_EQ(trial, 1);
	ASSERT_EQ(qk_count_quick(NULL, "1", &trial), 0);
	ASSERT_EQ(trial, 0);
}

/* A client flooding one context with quick dispatches (never reading) does not hold the loop
 * thread from another client: quick work is capped per loop tick and reads per wake-up. */
struct qk_flood {
	struct pt_conn c;
	atomic_bool stop;
	atomic_long sent;
};

static void *qk_flood_main(void *arg)
{
	struct qk_flood *f = arg;
	while (!atomic_load(&f->stop) && f->sent < 200000) {
		pt_dispatch(&f->c, 1, 5, 2, 3, 4);
		atomic_fetch_add(&f->sent, 1);
	}
	return NULL;
}

TEST_TIMEOUT(quick_flood_keeps_other_clients_served, 120)
{
	ct_require_webnnd();
	struct test_daemon d;
	const char *args[] = { "--backend", "cpu", NULL };
	test_daemon_start(&d, args);
	struct qk_flood f = { 0 };
	pt_connect(&f.c, &d);
	pt_hello(&f.c, "flood");
	pt_create_context(&f.c, 1);
	struct pt_graph g;
	pt_add_graph(&g, 1, 5);
	pt_call_ok(&f.c, &g.m);
	uint32_t shape[] = { 2, 3 };
	pt_create_tensor(&f.c, 1, 2, shape, 2);
	pt_create_tensor(&f.c, 1, 3, shape, 2);
	pt_create_tensor(&f.c, 1, 4, shape, 2);
	float ones[6] = { 1, 1, 1, 1, 1, 1 };
	pt_write_inline(&f.c, 2, ones, sizeof(ones));
	pt_write_inline(&f.c, 3, ones, sizeof(ones));
	pthread_t th;
	ASSERT_EQ(pthread_create(&th, NULL, qk_flood_main, &f), 0);
	/* the flood is under way before the bystander starts (a loaded machine may not run the
	 * new thread for a while, and a flood of none leaves tensor 4 unwritten) */
	while (atomic_load(&f.sent) < 1000)
		sched_yield();
	struct pt_conn b;
	pt_connect(&b, &d);
	pt_hello(&b, "bystander");
	pt_create_context(&b, 1);
	double worst = 0;
	for (int i = 0; i < 40; i++) {
		double t0 = qk_now();
		pt_add_roundtrip(&b, 1, 10 + 10 * (uint32_t)i, (float)i);
		double dt = qk_now() - t0;
		worst = dt > worst ? dt : worst;
	}
	atomic_store(&f.stop, true);
	pthread_join(th, NULL);
	/* the flood's own results are right once its backlog is through */
	float two[6] = { 2, 2, 2, 2, 2, 2 };
	pt_read_expect(&f.c, 4, two, 6);
	fprintf(stderr, "%ld quick dispatches flooded; the bystander's slowest round trip %.1f ms\n",
		atomic_load(&f.sent), worst * 1e3);
	ASSERT_MSG(worst < 5.0, "a round trip took %.2f s beside the flood", worst);
	pt_close(&b);
	pt_close(&f.c);
	test_daemon_stop(&d);
}
