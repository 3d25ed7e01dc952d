/* Work budgets end to end over the raw protocol: max_dispatch_ms, the dispatch watchdog, cancellation, max_inflight_per_context. */
#include "tests/graphs.h"
#include "tests/ptclient.h"

#include <time.h>

#include "daemon/graph/graph.h"
#include "proto/wnn.h"

static void wk_connect(struct pt_conn *c, const struct test_daemon *d, const char *name)
{
	pt_connect(c, d);
	pt_hello(c, name);
}

/* Builds the chain and creates its tensors x, y, z as ids id+1..id+3 (zeros: the values do not
 * matter, the work does). */
static void wk_chain_ready(struct pt_conn *c, uint32_t ctx, uint32_t id, uint32_t m,
			   uint32_t n_ops)
{
	struct pt_matmul_chain g;
	pt_matmul_chain(&g, ctx, id, m, n_ops, false);
	pt_call_ok(c, &g.m);
	pt_matmul_chain_free(&g);
	const uint32_t shape[] = { m, m };
	for (uint32_t t = 1; t <= 3; t++)
		pt_create_tensor(c, ctx, id + t, shape, 2);
}

static double wk_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits for the next ContextLost, skipping ErrorEvents; returns its message (freed by caller). */
static char *wk_await_lost(struct pt_conn *c, uint32_t *context)
{
	for (;;) {
		Webnn__Ipc__ServerMessage *s = pt_recv(c);
		ASSERT_MSG(s, "connection closed while waiting for ContextLost");
		ASSERT_MSG(s->body_case != WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE,
			   "Goodbye while waiting for ContextLost: %s", s->goodbye->reason);
		if (s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_CONTEXT_LOST) {
			char *msg = strdup(s->context_lost->message);
			*context = s->context_lost->context_id;
			pt_free(s);
			return msg;
		}
		pt_free(s);
	}
}

/* ---- the estimate (graph_estimate_cost over the imported IR), by operator family */

/* Appends op to t, imports the graph and returns its work (elements plus the family's own);
 * checks that its time estimate is that work at the calibrated costs (one node: also the
 * largest). */
static uint64_t wk_cost(struct tg_graph *t, Webnn__Ipc__Operation *op)
{
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(tg_op(t, op, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	const struct graph_ir *g = tg_finish(t, &diag);
	ASSERT_MSG(g, "%s", diag.message);
	struct graph_work w;
	graph_node_work(g, &g->nodes[0], &w);
	const struct graph_cost_model *models[] = { &graph_cost_fast, &graph_cost_reference };
	for (int i = 0; i < 2; i++) {
		const struct graph_unit_cost *u = &models[i]->ps[wnn_ops[g->nodes[0].op].family];
		struct graph_cost c;
		graph_estimate_cost(models[i], g, &c);
		ASSERT_EQ(c.largest, 0);
		ASSERT(c.ns == c.largest_ns);
		ASSERT(c.ns == graph_node_cost(models[i], g, &g->nodes[0]));
		ASSERT(c.ns == (w.elements * u->elem_ps + w.ops * u->op_ps) / 1000 + 1);
	}
	return w.elements + w.ops;
}

#define WK_SHAPE(...) (sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)), \
		      ((const uint32_t[]){ __VA_ARGS__ })

TEST(work_cost_by_family)
{
	struct tg_graph t;
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;

	/* conv2d: 2 * out elements * KH * KW * Cin/groups, plus the elements read and written */
	uint32_t pad[] = { 1, 1, 1, 1 };
	for (uint32_t groups = 1; groups <= 4; groups *= 4) {
		tg_init(&t);
		Webnn__Ipc__Conv2d cv = WEBNN__IPC__CONV2D__INIT;
		cv.input = tg_input(&t, WNN_F32, WK_SHAPE(1, 64, 56, 56));
		cv.filter = tg_input(&t, WNN_F32, WK_SHAPE(128, 64 / groups, 3, 3));
		cv.output = tg_next(&t);
		cv.padding = pad;
		cv.n_padding = 4;
		cv.has_groups = true;
		cv.groups = groups;
		op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&op, WNN_OP_CONV2D, &cv);
		uint64_t work = 2ull * 128 * 56 * 56 * 3 * 3 * (64 / groups);
		uint64_t data = 64 * 56 * 56 + 128 * (64 / groups) * 9 + 128 * 56 * 56;
		ASSERT_EQ(wk_cost(&t, &op), work + data);
		tg_free(&t);
	}

	/* convTranspose2d: the larger of the gather (per output) and scatter (per input) forms */
	tg_init(&t);
	Webnn__Ipc__ConvTranspose2d ct = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
	uint32_t strides[] = { 2, 2 };
	ct.input = tg_input(&t, WNN_F32, WK_SHAPE(1, 8, 4, 4));
	ct.filter = tg_input(&t, WNN_F32, WK_SHAPE(8, 16, 3, 3));
	ct.output = tg_next(&t);
	ct.strides = strides;
	ct.n_strides = 2;
	op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_CONV_TRANSPOSE2D, &ct);
	ASSERT_EQ(wk_cost(&t, &op), 2 * 16 * 9 * 9 * 3 * 3 * 8 + (128 + 1152 + 16 * 9 * 9));
	tg_free(&t);

	/* gemm: 2*M*N*K + M*N for C; matmul: 2*batch*M*N*K */
	tg_init(&t);
	Webnn__Ipc__Gemm gm = WEBNN__IPC__GEMM__INIT;
	gm.a = tg_input(&t, WNN_F32, WK_SHAPE(3, 4));
	gm.b = tg_input(&t, WNN_F32, WK_SHAPE(4, 5));
	gm.has_c = true;
	gm.c = tg_input(&t, WNN_F32, WK_SHAPE(5));
	gm.output = tg_next(&t);
	op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_GEMM, &gm);
	ASSERT_EQ(wk_cost(&t, &op), 2 * 3 * 5 * 4 + 3 * 5 + (12 + 20 + 5 + 15));
	tg_free(&t);

	tg_init(&t);
	Webnn__Ipc__Matmul mm = WEBNN__IPC__MATMUL__INIT;
	mm.a = tg_input(&t, WNN_F32, WK_SHAPE(2, 3, 4, 5));
	mm.b = tg_input(&t, WNN_F32, WK_SHAPE(2, 3, 5, 6));
	mm.output = tg_next(&t);
	op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_MATMUL, &mm);
	ASSERT_EQ(wk_cost(&t, &op), 2 * 6 * 4 * 6 * 5 + (120 + 180 + 144));
	tg_free(&t);

	/* pools: every window element of every output */
	tg_init(&t);
	Webnn__Ipc__Pool2d pl = WEBNN__IPC__POOL2D__INIT;
	uint32_t window[] = { 3, 3 };
	pl.input = tg_input(&t, WNN_F32, WK_SHAPE(1, 2, 8, 8));
	pl.output = tg_next(&t);
	pl.window_dimensions = window;
	pl.n_window_dimensions = 2;
	op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_MAX_POOL2D, &pl);
	ASSERT_EQ(wk_cost(&t, &op), 2 * 6 * 6 * 9 + (128 + 72));
	tg_free(&t);

	/* lstm: the gate products of every step, 2 * batch * 4H * (I + H) each */
	tg_init(&t);
	Webnn__Ipc__Lstm lm = WEBNN__IPC__LSTM__INIT;
	lm.input = tg_input(&t, WNN_F32, WK_SHAPE(2, 3, 4));
	lm.weight = tg_input(&t, WNN_F32, WK_SHAPE(1, 20, 4));
	lm.recurrent_weight = tg_input(&t, WNN_F32, WK_SHAPE(1, 20, 5));
	uint32_t outs[] = { tg_next(&t), tg_next(&t) + 1 };
	lm.outputs = outs;
	lm.n_outputs = 2;
	lm.steps = 2;
	lm.hidden_size = 5;
	op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_LSTM, &lm);
	ASSERT_EQ(wk_cost(&t, &op), 2 * (2 * 3 * 20 * (4 + 5)) + (24 + 80 + 100 + 15 + 15));
	tg_free(&t);

	/* everything else: the elements read and written */
	tg_init(&t);
	Webnn__Ipc__ElementwiseBinary add = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
	add.a = tg_input(&t, WNN_F32, WK_SHAPE(2, 3));
	add.b = tg_input(&t, WNN_F32, WK_SHAPE(3));
	add.output = tg_next(&t);
	op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_ADD, &add);
	ASSERT_EQ(wk_cost(&t, &op), 6 + 3 + 6);
	tg_free(&t);
}

/* Valid descriptors (up to 16 GiB each) still make products past 64 bits: the estimate
 * saturates instead of wrapping around to a small number. */
TEST(work_cost_saturates)
{
	struct tg_graph t;
	tg_init(&t);
	struct wnn_diag diag = { 0 };
	/* a float16 65536x65536 filter over 2^17 x 65535 outputs: 2^33 * 2^32 * 2 FLOP, twice */
	uint32_t x = tg_input(&t, WNN_F16, WK_SHAPE(1, 1, 1, 1));
	uint32_t f = tg_input(&t, WNN_F16, WK_SHAPE(1, 1, 65536, 65536));
	uint32_t pad[] = { 98303, 98303, 65534, 65535 };
	Webnn__Ipc__Conv2d cv[2] = { WEBNN__IPC__CONV2D__INIT, WEBNN__IPC__CONV2D__INIT };
	Webnn__Ipc__Operation op[2] = { WEBNN__IPC__OPERATION__INIT, WEBNN__IPC__OPERATION__INIT };
	for (int i = 0; i < 2; i++) {
		cv[i].input = x;
		cv[i].filter = f;
		cv[i].output = tg_next(&t);
		cv[i].padding = pad;
		cv[i].n_padding = 4;
		tg_set_op(&op[i], WNN_OP_CONV2D, &cv[i]);
		ASSERT_MSG(tg_op(&t, &op[i], &diag) == WEBNN_STATUS_OK, "%s", diag.message);
		tg_output(&t, cv[i].output);
	}
	const struct graph_ir *g = tg_finish(&t, &diag);
	ASSERT_MSG(g, "%s", diag.message);
	ASSERT_EQ(g->values[cv[0].output].desc.dims[2], 1u << 17);
	ASSERT_EQ(g->values[cv[0].output].desc.dims[3], 65535);
	struct graph_cost c;
	graph_estimate_cost(&graph_cost_fast, g, &c);
	ASSERT(c.ns == UINT64_MAX);
	ASSERT(c.largest_ns == UINT64_MAX);
	ASSERT_EQ(c.largest, 0);
	tg_free(&t);
}

/* ---- max_dispatch_ms: the time estimate, checked at build, before anything is allocated or
 * compiled */

TEST_TIMEOUT(work_time_budget_refuses_huge_matmul, 60)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	wk_connect(&c, &d, "time");
	pt_create_context(&c, 1);
	/* 2 * 16384^3 FLOP of two graph inputs, 2 ns each on the reference kernels: nothing is
	 * allocated for it */
	struct pt_matmul_chain g;
	pt_matmul_chain(&g, 1, 2, 16384, 1, false);
	pt_call_err(&c, &g.m, WEBNN_STATUS_NOT_SUPPORTED,
		    "build: a dispatch of the graph is estimated at 1.76e+04 s on the reference "
		    "backend's reference kernels, more than max_dispatch_ms (30000 ms); the largest "
		    "operator is matmul 'mm0' (linalg family, 1.76e+04 s)");
	pt_matmul_chain_free(&g);
	/* within the budget it builds, and the connection goes on */
	pt_matmul_chain(&g, 1, 3, 1024, 4, false);
	pt_call_ok(&c, &g.m);
	pt_matmul_chain_free(&g);
	pt_add_roundtrip(&c, 1, 10, 1.0f);
	pt_close(&c);
	test_daemon_stop(&d);
}

TEST_TIMEOUT(work_time_budget_is_configurable, 60)
{
	struct test_daemon d;
	const char *args[] = { "--backend", "reference", "--limit", "max_dispatch_ms=1000", NULL };
	test_daemon_start(&d, args);
	struct pt_conn c;
	wk_connect(&c, &d, "time");
	pt_create_context(&c, 1);
	/* 512^3 matmuls are estimated at 545 ms each: one fits in a second, two do not */
	struct pt_matmul_chain g;
	pt_matmul_chain(&g, 1, 2, 512, 1, false);
	pt_call_ok(&c, &g.m);
	pt_matmul_chain_free(&g);
	pt_matmul_chain(&g, 1, 3, 512, 2, false);
	pt_call_err(&c, &g.m, WEBNN_STATUS_NOT_SUPPORTED,
		    "estimated at 1.09 s on the reference backend's reference kernels, more than "
		    "max_dispatch_ms (1000 ms); the largest operator is matmul 'mm0' (linalg "
		    "family, 545 ms)");
	pt_matmul_chain_free(&g);
	pt_close(&c);
	test_daemon_stop(&d);
}

/* ---- the watchdog */

/* A dispatch past dispatch_timeout_ms loses its context; it stops at its next step, the
 * context's later work fails with CONTEXT_LOST, and other contexts and clients go on in the
 * same worker. */
TEST_TIMEOUT(work_watchdog_loses_context, 60)
{
	struct test_daemon d;
	/* admitted past the time budget (estimated 67 s) so that the watchdog has work to stop */
	const char *args[] = { "--backend", "reference", "--limit", "dispatch_timeout_ms=300",
			       "--limit", "max_dispatch_ms=600000", NULL };
	test_daemon_start(&d, args);
	struct pt_conn a, b;
	wk_connect(&a, &d, "slow");
	wk_connect(&b, &d, "bystander");
	pt_create_context(&a, 1);
	pt_create_context(&a, 2);
	pt_create_context(&b, 1);
	/* 1000 textbook 256^3 matmuls: minutes on the reference backend (0.2 s a step here) */
	wk_chain_ready(&a, 1, 3, 256, 1000);
	double t0 = wk_now();
	pt_dispatch(&a, 1, 3, 4, 5, 6);
	uint32_t lost_ctx = 0;
	char *msg = wk_await_lost(&a, &lost_ctx);
	ASSERT_EQ(lost_ctx, 1);
	ASSERT_STREQ(msg, "dispatch of graph 3 ran longer than dispatch_timeout_ms (300 ms)");
	free(msg);
	/* Queued behind the cancelled dispatch: answered once it stopped at a step boundary. */
	struct pt_events ev = { 0 };
	Webnn__Ipc__ServerMessage *s = pt_read_reply_ev(&a, 6, &ev);
	double stopped = wk_now() - t0;
	pt_expect_err(s, WEBNN_STATUS_CONTEXT_LOST,
		      "context 1 is lost: dispatch of graph 3 ran longer than dispatch_timeout_ms "
		      "(300 ms)");
	ASSERT_MSG(stopped < 15, "the cancelled dispatch took %.1f s to stop", stopped);
	/* the dispatch itself is reported as lost too, not as finished */
	ASSERT_EQ(ev.errors, 1);
	ASSERT_EQ(ev.error_status[0], WEBNN_STATUS_CONTEXT_LOST);
	ASSERT_CONTAINS(ev.error_message[0], "context 1 is lost");
	/* later work on the lost context */
	struct pt_matmul_chain g;
	pt_matmul_chain(&g, 1, 20, 8, 1, false);
	pt_call_err(&a, &g.m, WEBNN_STATUS_CONTEXT_LOST, "context 1 is lost: dispatch of graph 3");
	pt_matmul_chain_free(&g);
	/* the other context of the same connection, and another client */
	pt_add_roundtrip(&a, 2, 30, 2.0f);
	pt_add_roundtrip(&b, 1, 30, 3.0f);
	fprintf(stderr, "ContextLost and the cancelled dispatch's end after %.2f s\n", stopped);
	pt_close(&a);
	pt_close(&b);
	test_daemon_stop(&d);
}

/* A graph build is watched too: this one folds a chain of constant matmuls while it builds (half
 * a minute of reference kernels); past the limit its context is lost and folding stops. */
TEST_TIMEOUT(work_watchdog_cancels_long_build, 60)
{
	struct test_daemon d;
	const char *args[] = { "--backend", "reference", "--limit", "dispatch_timeout_ms=300",
			       NULL };
	test_daemon_start(&d, args);
	struct pt_conn c;
	wk_connect(&c, &d, "folder");
	pt_create_context(&c, 1);
	pt_create_context(&c, 7);
	struct pt_matmul_chain g;
	pt_matmul_chain(&g, 1, 2, 384, 100, true);
	struct pt_events ev = { 0 };
	double t0 = wk_now();
	Webnn__Ipc__ServerMessage *s = pt_call_ev(&c, &g.m, NULL, 0, &ev);
	double took = wk_now() - t0;
	pt_matmul_chain_free(&g);
	pt_expect_err(s, WEBNN_STATUS_CONTEXT_LOST,
		      "context 1 is lost: build of graph 2 ran longer than dispatch_timeout_ms "
		      "(300 ms)");
	ASSERT_EQ(ev.lost, 1);
	ASSERT_EQ(ev.lost_context, 1);
	ASSERT_STREQ(ev.lost_message,
		     "build of graph 2 ran longer than dispatch_timeout_ms (300 ms)");
	fprintf(stderr, "the cancelled build answered after %.2f s\n", took);
	ASSERT_MSG(took < 10, "the cancelled build took %.1f s to answer", took);
	pt_add_roundtrip(&c, 7, 10, 1.0f);
	pt_close(&c);
	test_daemon_stop(&d);
}

/* A oneDNN primitive cannot be pre-empted (the reference kernels poll the cancel flag, oneDNN's
 * do not): one still running watchdog_grace_ms after the timeout ends the worker, whose clients
 * get a Goodbye saying why; the next connection gets a fresh worker. The cpu backend splits long
 * matmuls into chunks it can stop between (cpu.h CPU_CHUNK_NS), so this daemon is told not to
 * (WEBNN_CPU_CHUNK_NS past the estimate): the matmul stands for the steps still run whole. */
TEST_TIMEOUT(work_watchdog_grace_ends_worker, 60)
{
	struct test_daemon d;
	const char *args[] = { "--backend", "cpu", "--limit", "dispatch_timeout_ms=100",
			       "--limit", "watchdog_grace_ms=200", "--limit",
			       "max_dispatch_ms=600000", NULL };
	setenv("WEBNN_CPU_CHUNK_NS", "1000000000000000", 1);
	test_daemon_start(&d, args);
	unsetenv("WEBNN_CPU_CHUNK_NS");
	struct pt_conn a, b;
	wk_connect(&a, &d, "stuck");
	wk_connect(&b, &d, "same-user");
	pt_create_context(&a, 1);
	pt_create_context(&b, 1);
	/* One 8192^3 matmul: one oneDNN primitive of 1.1e12 FLOP, seconds even at the 270 GFLOP/s
	 * two AVX-512 cores reach, against the 300 ms (+ a 100 ms tick) the watchdog allows it.
	 * 4096^3 was not enough: it returned within the grace on such a machine. */
	wk_chain_ready(&a, 1, 3, 8192, 1);
	double t0 = wk_now();
	pt_dispatch(&a, 1, 3, 4, 5, 6);
	uint32_t lost_ctx = 0;
	char *msg = wk_await_lost(&a, &lost_ctx);
	ASSERT_STREQ(msg, "dispatch of graph 3 ran longer than dispatch_timeout_ms (100 ms)");
	free(msg);
	pt_expect_goodbye(&a, "stopped by the dispatch watchdog (a dispatch did not return): its "
			      "contexts are lost");
	double gone = wk_now() - t0;
	/* the same user's other connection was served by that worker too */
	pt_expect_goodbye(&b, "stopped by the dispatch watchdog");
	pt_close(&a);
	pt_close(&b);
	struct pt_conn c;
	double t1 = wk_now();
	wk_connect(&c, &d, "next");
	pt_create_context(&c, 1);
	pt_add_roundtrip(&c, 1, 2, 1.0f);
	double next = wk_now() - t1;
	fprintf(stderr, "worker ended %.2f s after the dispatch; a new connection worked in %.2f s\n",
		gone, next);
	ASSERT_MSG(gone < 15, "the worker ended only %.1f s after the dispatch", gone);
	pt_close(&c);
	test_daemon_stop(&d);
}

/* ---- cancellation of a closed connection's work */

/* 16 contexts each dispatch a long chain, then the client disconnects: the dispatches waiting
 * for the cpu backend's compute thread are skipped and the running one stops at its next step,
 * so another client of the same user (the same worker, pool and compute thread) is served at
 * once instead of after all of them. */
TEST_TIMEOUT(work_closed_connection_work_is_cancelled, 120)
{
	struct test_daemon d;
	const char *args[] = { "--backend", "cpu", NULL };
	test_daemon_start(&d, args);
	struct pt_conn a, b;
	wk_connect(&a, &d, "leaver");
	wk_connect(&b, &d, "stayer");
	pt_create_context(&b, 1);
	enum { N_CTX = 16 };
	for (uint32_t i = 0; i < N_CTX; i++) {
		uint32_t ctx = 1 + i * 10;
		pt_create_context(&a, ctx);
		/* 32 matmuls of 1024^3: 6.9e10 FLOP a dispatch, 1.1e12 for the 16 */
		wk_chain_ready(&a, ctx, ctx + 1, 1024, 32);
	}
	for (uint32_t i = 0; i < N_CTX; i++) {
		uint32_t ctx = 1 + i * 10;
		pt_dispatch(&a, ctx, ctx + 1, ctx + 2, ctx + 3, ctx + 4);
	}
	/* the worker reads them and starts them (all 16 on pool threads, 15 of them waiting for
	 * the compute thread) */
	struct timespec pause = { 0, 300 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	pt_close(&a);
	double t0 = wk_now();
	const uint32_t shape[] = { 2, 3 };
	pt_create_tensor(&b, 1, 2, shape, 2);
	double created = wk_now() - t0;
	pt_add_roundtrip(&b, 1, 10, 1.0f);
	double served = wk_now() - t0;
	fprintf(stderr, "after the disconnect: CreateTensor %.2f s, build+dispatch+read %.2f s\n",
		created, served);
	ASSERT_MSG(served < 5, "the other client waited %.1f s (CreateTensor %.1f s)", served,
		   created);
	pt_close(&b);
	test_daemon_stop(&d);
}

/* MLContext.destroy() cancels its running dispatch too: the next context's work gets the cpu
 * backend's compute thread at the dispatch's next step, not after the whole chain. */
TEST_TIMEOUT(work_destroyed_context_work_is_cancelled, 120)
{
	struct test_daemon d;
	/* admitted past the time budget (estimated 82 s) to have a long dispatch to cancel */
	const char *args[] = { "--backend", "cpu", "--limit", "max_dispatch_ms=600000", NULL };
	test_daemon_start(&d, args);
	struct pt_conn c;
	wk_connect(&c, &d, "destroyer");
	pt_create_context(&c, 1);
	pt_create_context(&c, 2);
	/* 256 matmuls of 1024^3: 5.5e11 FLOP, half a minute on two cores, 0.1 s a step */
	wk_chain_ready(&c, 1, 3, 1024, 256);
	pt_dispatch(&c, 1, 3, 4, 5, 6);
	struct timespec pause = { 0, 300 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	pt_destroy_context(&c, 1);
	double t0 = wk_now();
	pt_add_roundtrip(&c, 2, 10, 1.0f);
	double served = wk_now() - t0;
	fprintf(stderr, "after DestroyContext: build+dispatch+read on another context %.2f s\n",
		served);
	ASSERT_MSG(served < 5, "the other context waited %.1f s", served);
	pt_close(&c);
	test_daemon_stop(&d);
}

/* ---- max_inflight_per_context: back-pressure, not an error */

/* A client pipelining on a busy context is no longer read from once max_inflight_per_context
 * commands are queued there: its requests on another context wait until the busy one drained,
 * so the replies of all its earlier flushes arrive first. */
TEST_TIMEOUT(work_inflight_cap_pauses_the_connection, 60)
{
	struct test_daemon d;
	const char *args[] = { "--backend", "reference", "--limit", "max_inflight_per_context=4",
			       NULL };
	test_daemon_start(&d, args);
	struct pt_conn c;
	wk_connect(&c, &d, "pipeliner");
	pt_create_context(&c, 1);
	pt_create_context(&c, 2);
	/* 8 textbook 256^3 matmuls: a dispatch of a second or two */
	wk_chain_ready(&c, 1, 3, 256, 8);
	pt_dispatch(&c, 1, 3, 4, 5, 6);
	enum { N_FLUSH = 20 };
	uint64_t flush_serial[N_FLUSH];
	for (int i = 0; i < N_FLUSH; i++) {
		Webnn__Ipc__Flush f = WEBNN__IPC__FLUSH__INIT;
		f.context_id = 1;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH;
		m.flush = &f;
		m.has_serial = true;
		m.serial = flush_serial[i] = ++c.serial;
		pt_send(&c, &m);
	}
	/* a request on the idle context: without the cap it is read and answered at once */
	struct pt_tensor_msg t;
	const uint32_t shape[] = { 2, 3 };
	pt_tensor_msg(&t, 2, 40, WEBNN__IPC__DATA_TYPE__FLOAT32, shape, 2, true, true);
	t.m.has_serial = true;
	uint64_t create_serial = t.m.serial = ++c.serial;
	pt_send(&c, &t.m);
	int flushes_before = 0;
	for (;;) {
		Webnn__Ipc__ServerMessage *s = pt_recv(&c);
		ASSERT_MSG(s, "connection closed");
		ASSERT_EQ(s->body_case, WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY);
		ASSERT_MSG(!s->reply->error, "%s", s->reply->error->message);
		uint64_t serial = s->reply->serial;
		pt_free(s);
		if (serial == create_serial)
			break;
		ASSERT_EQ(serial, flush_serial[flushes_before]);
		flushes_before++;
	}
	ASSERT_EQ(flushes_before, N_FLUSH);
	/* nothing was refused: the connection goes on */
	pt_add_roundtrip(&c, 2, 50, 1.0f);
	pt_close(&c);
	test_daemon_stop(&d);
}
