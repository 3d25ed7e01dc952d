/* The cpu backend's core: fused epilogues (post-ops and the C epilogue after fallback kernels), the thread option, concurrent contexts taking turns. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/backend/cpu/cpu.h"
#include "daemon/graph/passes.h"
#include "tests/clienttest.h"
#include "tests/ocltest.h"

/* Whether some live node of g's cpu-optimised copy is op. */
static bool cpu_has_live(struct backend *be, const struct graph_ir *g, enum wnn_op op)
{
	struct backend_context *ctx;
	struct backend_context_options opts = { .accelerated = false };
	struct wnn_diag diag = { 0 };
	ASSERT(backend_cpu.context_create(be, &opts, &ctx, &diag) == WEBNN_STATUS_OK);
	struct graph_ir *copy = graph_clone(g);
	ASSERT(copy);
	ASSERT_MSG(tg_optimize(copy, &backend_cpu, ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	bool found = false;
	GRAPH_FOR_EACH_LIVE_NODE(copy, n)
		found = found || copy->nodes[n].op == op;
	graph_destroy(copy);
	backend_cpu.context_destroy(ctx);
	return found;
}

/* conv2d followed by relu, clamp, a residual add or a channel add + relu, in both client
 * layouts and both float types: the adds and activations are fused into the conv (oneDNN
 * post-ops for float32; the C epilogue after the reference kernel for float16) and the result
 * matches the reference, which runs them unfused. */
static void fused_epilogue_cases(struct backend *be)
{
	/* chain: 1 relu, 2 clamp, 3 add residual, 4 add vector + relu, 5 add residual + clamp */
	static const struct {
		bool nhwc;
		uint32_t k, oc, groups;
		enum wnn_dtype t;
		int chain;
		bool bias;
	} cases[] = {
		{ true, 1, 16, 1, WNN_F32, 1, true },  { true, 3, 16, 1, WNN_F32, 2, true },
		{ true, 1, 80, 1, WNN_F32, 3, true },  { true, 3, 24, 1, WNN_F32, 4, false },
		{ false, 1, 16, 1, WNN_F32, 1, true }, { false, 3, 24, 1, WNN_F32, 5, true },
		{ false, 3, 8, 1, WNN_F32, 4, true },  { true, 3, 8, 1, WNN_F16, 1, true },
		{ false, 1, 8, 1, WNN_F16, 5, true },  { true, 3, 8, 1, WNN_F16, 4, true },
		{ true, 3, 5, 5, WNN_F32, 5, true },   { true, 3, 5, 5, WNN_F32, 4, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tg_graph tg;
		tg_init(&tg);
		struct ot_epilogue pe;
		int ch = cases[i].chain;
		ot_epilogue_case(&tg, &pe, cases[i].t, cases[i].nhwc, cases[i].k, cases[i].oc,
				 cases[i].groups, ch, cases[i].bias, 170 + i);
		char label[96];
		snprintf(label, sizeof label, "fused conv case %zu (%s)", i,
			 wnn_dtype_name(cases[i].t));
		const struct graph_ir *g = tg_finish(&tg, &(struct wnn_diag){ 0 });
		ASSERT_MSG(g, "%s", label);
		ot_check(be, g, -1, 1, cases[i].t == WNN_F16 ? TOL_F16_SUM : TOL_SUM, label);
		/* Known gap of the layout pass: a runtime [C,1,1] vector added to an NCHW conv is
		 * left in NCHW, so that add (and the relu after it) stays unfused. */
		bool nchw_vector = !cases[i].nhwc && ch == 4;
		ASSERT_MSG(nchw_vector ||
				   (!cpu_has_live(be, g, WNN_OP_ADD) &&
				    !cpu_has_live(be, g, WNN_OP_RELU) &&
				    !cpu_has_live(be, g, WNN_OP_CLAMP)),
			   "%s: the epilogue was not fused", label);
		tg_free(&tg);
	}
	/* gemm + relu and matmul + add([N]) + clamp */
	for (int which = 0; which < 2; which++) {
		struct tg_graph tg;
		tg_init(&tg);
		struct ot_product pp;
		struct wnn_diag diag = { 0 };
		ot_product_epilogue(&tg, &pp, which);
		const struct graph_ir *g = tg_finish(&tg, &diag);
		ASSERT_MSG(g, "%s", diag.message);
		const char *label = which ? "matmul+add+clamp" : "gemm+relu";
		ot_check(be, g, -1, 1, TOL_SUM, label);
		ASSERT_MSG(!cpu_has_live(be, g, WNN_OP_RELU) && !cpu_has_live(be, g, WNN_OP_CLAMP),
			   "%s: the epilogue was not fused", label);
		tg_free(&tg);
	}
}

TEST_TIMEOUT(cpu_fused_epilogues, 300)
{
	ot_impl = &backend_cpu;
	struct backend *be = ot_backend();
	fused_epilogue_cases(be);
	backend_cpu.shutdown(be);
}

/* Exit status of webnnd started with these arguments (and WEBNN_CPU_THREADS when env is not
 * NULL) when it refuses them before serving. */
static int webnnd_status(const char *env, const char *const *args)
{
	char bin[4200];
	snprintf(bin, sizeof(bin), "%s/bin/webnnd", test_build_dir());
	fflush(NULL);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		if (env)
			setenv("WEBNN_CPU_THREADS", env, 1);
		else
			unsetenv("WEBNN_CPU_THREADS");
		char *argv[8] = { bin };
		for (int i = 0; args[i] && i < 6; i++)
			argv[i + 1] = (char *)args[i];
		freopen("/dev/null", "w", stderr);
		execv(bin, argv);
		_exit(127);
	}
	int st;
	ASSERT(waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* --threads and WEBNN_CPU_THREADS: a thread count in 1..1024 or a usage error (status 2)
 * before anything starts; one thread computes the same results. */
TEST_TIMEOUT(cpu_threads_option, 120)
{
	ct_require_webnnd();
	ASSERT_EQ(webnnd_status(NULL, (const char *[]){ "--threads", "0", NULL }), 2);
	ASSERT_EQ(webnnd_status(NULL, (const char *[]){ "--threads", "two", NULL }), 2);
	ASSERT_EQ(webnnd_status(NULL, (const char *[]){ "--threads", "4096", NULL }), 2);
	ASSERT_EQ(webnnd_status("-1", (const char *[]){ "--version", NULL }), 2);
	ASSERT_EQ(webnnd_status("3x", (const char *[]){ "--version", NULL }), 2);
	ASSERT_EQ(webnnd_status("1", (const char *[]){ "--version", NULL }), 0);

	struct backend *be = NULL;
	struct wnn_diag diag = { 0 };
	struct backend_options one = { .threads = 1 };
	ASSERT_MSG(backend_cpu.init(&one, &be, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ot_impl = &backend_cpu;
	struct tg_graph tg;
	tg_init(&tg);
	uint32_t x = tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 1, 20, 20, 16 });
	struct ot_conv pc;
	struct ot_act pa;
	uint32_t y = ot_conv(&tg, &pc, x, WNN_F32, true, 16, 32, 3, 1, 1, PAD1, true, 5);
	ot_act(&tg, &pa, 1, y, 0);
	const struct graph_ir *g = tg_finish(&tg, &diag);
	ASSERT_MSG(g, "%s", diag.message);
	ot_check(be, g, -1, 1, TOL_SUM, "conv+relu on 1 thread");
	tg_free(&tg);
	backend_cpu.shutdown(be);

	const char *const args[] = { "--backend", "cpu", "--threads", "1", NULL };
	struct test_daemon d;
	test_daemon_start(&d, args);
	struct webnn_context *ctx = ct_connect(&d, "test_cpu");
	struct webnn_context_info info;
	webnn_context_get_info(ctx, &info);
	ASSERT_STREQ(info.backend, "cpu");
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* A client-NCHW convTranspose2d runs in NHWC after the layout pass (oneDNN's NCHW
 * deconvolution is its slow gemm:jit), with the same results. */
TEST_TIMEOUT(cpu_conv_transpose2d_in_nhwc, 120)
{
	ot_impl = &backend_cpu;
	struct backend *be = ot_backend();
	struct tg_graph tg;
	tg_init(&tg);
	uint32_t x = tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 1, 6, 7, 5 });
	float w[6 * 4 * 3 * 3];
	tg_random(w, WNN_F32, sizeof w / sizeof w[0], 31, -0.5, 0.5);
	uint32_t f = tg_constant(&tg, WNN_F32, 4, (uint32_t[]){ 6, 4, 3, 3 }, w); /* iohw */
	uint32_t strides[2] = { 2, 2 }, pad[4] = { 1, 0, 0, 1 };
	Webnn__Ipc__ConvTranspose2d m = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
	m.input = x, m.filter = f, m.output = tg_next(&tg);
	m.strides = strides, m.n_strides = 2;
	m.padding = pad, m.n_padding = 4;
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, WNN_OP_CONV_TRANSPOSE2D, &m);
	const struct graph_ir *g = ot_finish(&tg, &o, "convTranspose2d nchw");
	ot_check(be, g, -1, 1, TOL_SUM, "convTranspose2d nchw");

	struct backend_context *ctx;
	struct backend_context_options opts = { .accelerated = false };
	struct wnn_diag diag = { 0 };
	ASSERT(backend_cpu.context_create(be, &opts, &ctx, &diag) == WEBNN_STATUS_OK);
	struct graph_ir *copy = graph_clone(g);
	ASSERT(copy);
	ASSERT_MSG(tg_optimize(copy, &backend_cpu, ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	int seen = 0;
	GRAPH_FOR_EACH_LIVE_NODE(copy, n)
		if (copy->nodes[n].op == WNN_OP_CONV_TRANSPOSE2D) {
			ASSERT(copy->nodes[n].attrs.conv_transpose2d.nhwc);
			seen++;
		}
	ASSERT_EQ(seen, 1);
	graph_destroy(copy);
	backend_cpu.context_destroy(ctx);
	tg_free(&tg);
	backend_cpu.shutdown(be);
}

/* The large 3x3 stride-1 convolutions (Winograd when oneDNN offers it, reordering activations
 * into its blocked layout and back) against the reference, with bias, relu, a residual and
 * both client layouts. */
static void winograd_cases(struct backend *be)
{
	static const struct {
		uint32_t c, oc, hw;
		int chain; /* 0 none, 1 relu, 3 add residual */
		bool nhwc;
	} cases[] = {
		{ 32, 128, 27, 1, true }, { 64, 256, 13, 0, true }, { 48, 64, 15, 3, true },
		{ 64, 64, 14, 1, false }, { 96, 96, 20, 3, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t c = cases[i].c, hw = cases[i].hw;
		uint32_t x = tg_input(&tg, WNN_F32, 4,
				      cases[i].nhwc ? (uint32_t[]){ 1, hw, hw, c }
						    : (uint32_t[]){ 1, c, hw, hw });
		struct ot_conv pc;
		struct ot_act pa;
		uint32_t y = ot_conv(&tg, &pc, x, WNN_F32, cases[i].nhwc, c, cases[i].oc, 3, 1, 1,
				     PAD1, true, 300 + i);
		if (cases[i].chain == 1) {
			ot_act(&tg, &pa, 1, y, 0);
		} else if (cases[i].chain == 3) {
			const struct wnn_desc *od = &tg.descs[y];
			uint32_t res = tg_input(&tg, WNN_F32, od->rank, od->dims);
			ot_act(&tg, &pa, 3, y, res);
		}
		char label[96];
		snprintf(label, sizeof label, "3x3 conv %u->%u at %ux%u", c, cases[i].oc, hw, hw);
		const struct graph_ir *g = tg_finish(&tg, &(struct wnn_diag){ 0 });
		ASSERT_MSG(g, "%s", label);
		ot_check(be, g, -1, 1, TOL_SUM, label);
		tg_free(&tg);
	}
}

TEST_TIMEOUT(cpu_conv_winograd_shapes, 300)
{
	ot_impl = &backend_cpu;
	struct backend *be = ot_backend();
	winograd_cases(be);
	backend_cpu.shutdown(be);
}

/* With WEBNN_CPU_CHUNK_NS at 1 ns every oneDNN convolution runs in chunks: conv2d by image and
 * piece of output rows (each chunk reading its input rows with the padding its slice has:
 * strides, dilation, padding larger on one side), convTranspose2d by images; weights reordered
 * once and shared (constant, or a filter that is a graph input reordered once per run); every
 * fused epilogue; the Winograd shapes (whole where their row pieces get no Winograd). Each
 * matches the reference kernels. */
TEST_TIMEOUT(cpu_convolutions_in_chunks, 300)
{
	struct backend *be = ot_cpu_backend_chunked();
	fused_epilogue_cases(be);
	winograd_cases(be);
	static const struct {
		uint32_t k, stride, dil, pad[4];
		bool input_filter;
	} cases[] = {
		{ 3, 2, 1, { 1, 0, 1, 2 }, false }, { 5, 1, 2, { 4, 1, 0, 3 }, false },
		{ 3, 3, 1, { 2, 2, 2, 2 }, true },  { 1, 1, 1, { 0, 0, 0, 0 }, true },
		{ 7, 1, 1, { 6, 6, 0, 0 }, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t x = tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 2, 23, 19, 8 });
		uint32_t k = cases[i].k, fdims[4] = { 12, k, k, 8 }; /* ohwi */
		uint32_t f;
		if (cases[i].input_filter) {
			f = tg_input(&tg, WNN_F32, 4, fdims);
		} else {
			float *w = malloc(12 * k * k * 8 * sizeof(float));
			ASSERT(w);
			tg_random(w, WNN_F32, 12 * k * k * 8, 40 + i, -0.5, 0.5);
			f = tg_constant(&tg, WNN_F32, 4, fdims, w);
			free(w);
		}
		uint32_t strides[2] = { cases[i].stride, cases[i].stride };
		uint32_t dil[2] = { cases[i].dil, cases[i].dil }, pad[4];
		memcpy(pad, cases[i].pad, sizeof pad);
		Webnn__Ipc__Conv2d m = WEBNN__IPC__CONV2D__INIT;
		m.input = x, m.filter = f, m.output = tg_next(&tg);
		m.strides = strides, m.n_strides = 2;
		m.dilations = dil, m.n_dilations = 2;
		m.padding = pad, m.n_padding = 4;
		m.has_input_layout = true, m.input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
		m.has_filter_layout = true, m.filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI;
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, WNN_OP_CONV2D, &m);
		char label[96];
		snprintf(label, sizeof label, "conv2d %ux%u stride %u dilation %u in chunks", k, k,
			 cases[i].stride, cases[i].dil);
		const struct graph_ir *g = ot_finish(&tg, &o, label);
		ot_check(be, g, -1, 1, TOL_SUM, label);
		tg_free(&tg);
	}
	/* convTranspose2d of 5 images: one chunk each */
	struct tg_graph tg;
	tg_init(&tg);
	uint32_t x = tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 5, 6, 7, 5 });
	float w[6 * 4 * 3 * 3];
	tg_random(w, WNN_F32, sizeof w / sizeof w[0], 31, -0.5, 0.5);
	uint32_t f = tg_constant(&tg, WNN_F32, 4, (uint32_t[]){ 6, 4, 3, 3 }, w);
	uint32_t strides[2] = { 2, 2 }, pad[4] = { 1, 0, 0, 1 };
	Webnn__Ipc__ConvTranspose2d m = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
	m.input = x, m.filter = f, m.output = tg_next(&tg);
	m.strides = strides, m.n_strides = 2;
	m.padding = pad, m.n_padding = 4;
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, WNN_OP_CONV_TRANSPOSE2D, &m);
	const struct graph_ir *g = ot_finish(&tg, &o, "convTranspose2d of 5 images in chunks");
	ot_check(be, g, -1, 1, TOL_SUM, "convTranspose2d of 5 images in chunks");
	tg_free(&tg);
	backend_cpu.shutdown(be);
}

/* ---- contexts take turns between steps */

#define TURN_LAYERS 1000 /* 1x1 convolutions of [1, 112, 112, 64]: about 103 GFLOP in all */
#define TURN_HW 112
#define TURN_C 64

struct turn_long {
	struct webnn_context *ctx;
	struct webnn_graph *g;
	struct webnn_tensor *in, *out;
	float *x, *y;
	atomic_bool done;
};

static void *turn_long_main(void *arg)
{
	struct turn_long *t = arg;
	struct webnn_named_tensor bi = { "x", t->in }, bo = { "y", t->out };
	OK(t->ctx, webnn_context_dispatch(t->ctx, t->g, &bi, 1, &bo, 1));
	OK(t->ctx, webnn_context_read_tensor(t->ctx, t->out, t->y,
					     TURN_HW * TURN_HW * TURN_C * sizeof(float)));
	atomic_store(&t->done, true);
	return NULL;
}

/* Two contexts of one client share its worker's compute thread: while one runs a graph of a
 * thousand steps, the other's small dispatches take their turns between those steps instead
 * of waiting for the whole graph, and both results are exact (steps of different plans
 * interleave). The long graph permutes channels (each filter a cyclic shift), so its output
 * is its input shifted by TURN_LAYERS channels. */
TEST_TIMEOUT(cpu_contexts_take_turns, 300)
{
	ct_require_webnnd();
	const char *const args[] = { "--backend", "cpu", NULL };
	struct test_daemon d;
	test_daemon_start(&d, args);
	static struct turn_long b;
	b.ctx = ct_connect(&d, "turns-long");
	struct webnn_context *a = ct_connect(&d, "turns-small");
	struct webnn_context_info info;
	webnn_context_get_info(a, &info);
	ASSERT_STREQ(info.backend, "cpu");

	struct webnn_builder *bb;
	OK(b.ctx, webnn_builder_create(b.ctx, &bb));
	const uint32_t xs[4] = { 1, TURN_HW, TURN_HW, TURN_C }, ws[4] = { TURN_C, 1, 1, TURN_C };
	static float w[TURN_C * TURN_C];
	for (uint32_t o = 0; o < TURN_C; o++)
		w[o * TURN_C + (o + 1) % TURN_C] = 1; /* out[o] = in[o + 1] */
	struct webnn_operand *y = ct_input(b.ctx, bb, "x", WEBNN_FLOAT32, 4, xs);
	struct webnn_operand *wo = ct_const(b.ctx, bb, WEBNN_FLOAT32, 4, ws, w);
	struct webnn_conv2d_options co = WEBNN_CONV2D_OPTIONS_INIT;
	co.input_layout = WEBNN_LAYOUT_NHWC;
	co.filter_layout = WEBNN_FILTER_OHWI;
	for (int l = 0; l < TURN_LAYERS; l++)
		OK(b.ctx, webnn_builder_conv2d(bb, y, wo, &co, &y));
	struct webnn_named_operand named = { "y", y };
	OK(b.ctx, webnn_builder_build(bb, &named, 1, &b.g));
	webnn_builder_destroy(bb);
	struct webnn_tensor_desc td = { ct_desc_of(WEBNN_FLOAT32, 4, xs), false, true };
	OK(b.ctx, webnn_context_create_tensor(b.ctx, &td, &b.in));
	td.readable = true;
	td.writable = false;
	OK(b.ctx, webnn_context_create_tensor(b.ctx, &td, &b.out));
	size_t n = (size_t)TURN_HW * TURN_HW * TURN_C;
	b.x = malloc(n * sizeof(float));
	b.y = malloc(n * sizeof(float));
	ASSERT(b.x && b.y);
	for (size_t i = 0; i < n; i++)
		b.x[i] = (float)(i % 1000) - 500;
	OK(b.ctx, webnn_context_write_tensor(b.ctx, b.in, b.x, n * sizeof(float)));
	OK(b.ctx, webnn_context_flush(b.ctx));

	struct webnn_builder *ab;
	OK(a, webnn_builder_create(a, &ab));
	const uint32_t as[2] = { 1, 64 };
	float av[64], ac[64], got[64];
	for (int i = 0; i < 64; i++) {
		av[i] = (float)i;
		ac[i] = 0.5f * (float)i;
	}
	struct webnn_operand *ax = ct_input(a, ab, "x", WEBNN_FLOAT32, 2, as), *ay;
	OK(a, webnn_builder_add(ab, ax, ct_const(a, ab, WEBNN_FLOAT32, 2, as, ac), &ay));
	struct webnn_graph *ag;
	struct webnn_named_operand an = { "y", ay };
	OK(a, webnn_builder_build(ab, &an, 1, &ag));
	webnn_builder_destroy(ab);
	struct webnn_tensor *ain, *aout;
	struct webnn_tensor_desc ad = { ct_desc_of(WEBNN_FLOAT32, 2, as), false, true };
	OK(a, webnn_context_create_tensor(a, &ad, &ain));
	ad.readable = true;
	ad.writable = false;
	OK(a, webnn_context_create_tensor(a, &ad, &aout));
	OK(a, webnn_context_write_tensor(a, ain, av, sizeof av));

	pthread_t th;
	ASSERT(pthread_create(&th, NULL, turn_long_main, &b) == 0);
	/* into the long dispatch (it runs for about 0.5 s on two idle cores, longer on
	 * a loaded machine); should it start late, the small one simply goes first */
	usleep(50000);
	struct webnn_named_tensor bi = { "x", ain }, bo = { "y", aout };
	for (int k = 0; k < 5; k++) {
		OK(a, webnn_context_dispatch(a, ag, &bi, 1, &bo, 1));
		OK(a, webnn_context_read_tensor(a, aout, got, sizeof got));
		for (int i = 0; i < 64; i++)
			ASSERT_MSG(got[i] == av[i] + ac[i], "small graph: y[%d] = %g, expected %g", i,
				   got[i], av[i] + ac[i]);
	}
	bool overtook = !atomic_load(&b.done);
	pthread_join(th, NULL);
	ASSERT_MSG(overtook, "the small dispatches waited for the whole %d-step dispatch of "
			     "another context", TURN_LAYERS);
	for (size_t p = 0; p < n / TURN_C; p++)
		for (uint32_t c = 0; c < TURN_C; c++) {
			float want = b.x[p * TURN_C + (c + TURN_LAYERS) % TURN_C];
			ASSERT_MSG(b.y[p * TURN_C + c] == want, "long graph: pixel %zu channel %u = %g, "
				   "expected %g", p, c, b.y[p * TURN_C + c], want);
		}
	webnn_tensor_destroy(ain);
	webnn_tensor_destroy(aout);
	webnn_graph_destroy(ag);
	webnn_context_destroy(a);
	webnn_tensor_destroy(b.in);
	webnn_tensor_destroy(b.out);
	webnn_graph_destroy(b.g);
	webnn_context_destroy(b.ctx);
	free(b.x);
	free(b.y);
	test_daemon_stop(&d);
}

/* ---- long steps in chunks (cpu.h CPU_CHUNK_NS) */

/* A [m, k] x [k, n] gemm (transposes, alpha, C mode: 0 none, 1 [n] input, 2 [m, n] input,
 * 3 [n] constant), or a matmul (gemm false) of a [batch..] x b [batch..] with the shapes given,
 * b constant when const_b; then with residual an add of an input of the product's shape and a
 * relu. */
struct chunk_case {
	const char *label;
	bool gemm, ta, tb, const_b, residual;
	int cmode;
	float alpha, beta;
	uint32_t ra, rb, a[4], b[4];
	uint32_t ry, y[4]; /* the product's shape, for the residual */
};

static const struct graph_ir *chunk_graph(struct tg_graph *tg, const struct chunk_case *c,
					  Webnn__Ipc__Gemm *gm, Webnn__Ipc__Matmul *mm,
					  Webnn__Ipc__Operation *o, struct ot_act act[2])
{
	struct wnn_diag diag = { 0 };
	tg_init(tg);
	uint32_t a = tg_input(tg, WNN_F32, c->ra, c->a), b;
	if (c->const_b) {
		uint64_t count = 1;
		for (uint32_t i = 0; i < c->rb; i++)
			count *= c->b[i];
		float *data = malloc(count * sizeof(float));
		ASSERT(data);
		tg_random(data, WNN_F32, count, 99, -1, 1);
		b = tg_constant(tg, WNN_F32, c->rb, c->b, data);
		free(data);
	} else {
		b = tg_input(tg, WNN_F32, c->rb, c->b);
	}
	uint32_t cv = 0;
	if (c->gemm) {
		uint32_t m = c->ta ? c->a[1] : c->a[0], n = c->tb ? c->b[0] : c->b[1];
		if (c->cmode == 1 || c->cmode == 2)
			cv = tg_input(tg, WNN_F32, c->cmode, c->cmode == 1 ? (uint32_t[]){ n }
								   : (uint32_t[]){ m, n });
		if (c->cmode == 3) {
			float *data = malloc(n * sizeof(float));
			ASSERT(data);
			tg_random(data, WNN_F32, n, 98, -1, 1);
			cv = tg_constant(tg, WNN_F32, 1, (uint32_t[]){ n }, data);
			free(data);
		}
	}
	uint32_t y = tg_next(tg);
	if (c->gemm) {
		*gm = (Webnn__Ipc__Gemm)WEBNN__IPC__GEMM__INIT;
		gm->a = a;
		gm->b = b;
		gm->c = cv;
		gm->output = y;
		gm->has_c = c->cmode != 0;
		gm->has_alpha = gm->has_beta = gm->has_a_transpose = gm->has_b_transpose = 1;
		gm->alpha = c->alpha;
		gm->beta = c->beta;
		gm->a_transpose = c->ta;
		gm->b_transpose = c->tb;
		*o = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
		tg_set_op(o, WNN_OP_GEMM, gm);
	} else {
		*mm = (Webnn__Ipc__Matmul)WEBNN__IPC__MATMUL__INIT;
		mm->a = a;
		mm->b = b;
		mm->output = y;
		*o = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
		tg_set_op(o, WNN_OP_MATMUL, mm);
	}
	ASSERT_MSG(tg_op(tg, o, &diag) == WEBNN_STATUS_OK, "%s: %s", c->label, diag.message);
	if (c->residual) {
		uint32_t r = tg_input(tg, WNN_F32, c->ry, c->y);
		y = ot_act(tg, &act[0], 3, y, r);
		ot_act(tg, &act[1], 1, y, 0);
	}
	const struct graph_ir *g = tg_finish(tg, &diag);
	ASSERT_MSG(g, "%s: %s", c->label, diag.message);
	return g;
}

/* With WEBNN_CPU_CHUNK_NS at 1 ns every oneDNN gemm and matmul runs in chunks (of columns when
 * B is not constant, of rows when it is, or of the outermost batch dim): slices of A, B and the
 * output through offsets, constant B reordered once and shared or sliced, every C term of gemm
 * (bias and owned bias sliced by columns, prefill with the sum post-op), alpha, the fused
 * residual and channel-vector epilogues. Each matches the reference kernels. */
TEST_TIMEOUT(cpu_long_steps_in_chunks, 300)
{
	static const struct chunk_case cases[] = {
		{ "gemm", .gemm = true, .alpha = 1, .beta = 1, .ra = 2, .rb = 2,
		  .a = { 300, 64 }, .b = { 64, 48 } },
		{ "gemm transposed, alpha 0.5, beta 1.5, C [n]", .gemm = true, .ta = true,
		  .tb = true, .cmode = 1, .alpha = 0.5f, .beta = 1.5f, .ra = 2, .rb = 2,
		  .a = { 64, 300 }, .b = { 48, 64 } },
		{ "gemm C [n] as bias", .gemm = true, .cmode = 1, .alpha = 1, .beta = 1, .ra = 2,
		  .rb = 2, .a = { 300, 64 }, .b = { 64, 48 } },
		{ "gemm C [m, n] (prefill), constant B", .gemm = true, .const_b = true, .cmode = 2,
		  .alpha = 2, .beta = 0.25f, .ra = 2, .rb = 2, .a = { 300, 64 }, .b = { 64, 48 } },
		{ "gemm constant C [n] (owned bias)", .gemm = true, .cmode = 3, .alpha = 0.5f,
		  .beta = 2, .ra = 2, .rb = 2, .a = { 300, 64 }, .b = { 64, 48 } },
		{ "matmul rows, constant B, residual + relu", .const_b = true, .residual = true,
		  .ra = 2, .rb = 2, .a = { 333, 40 }, .b = { 40, 56 }, .ry = 2, .y = { 333, 56 } },
		{ "matmul columns, residual + relu", .residual = true, .ra = 2, .rb = 2,
		  .a = { 90, 40 }, .b = { 40, 200 }, .ry = 2, .y = { 90, 200 } },
		{ "matmul columns, channel vector + relu", .residual = true, .ra = 2, .rb = 2,
		  .a = { 90, 40 }, .b = { 40, 200 }, .ry = 1, .y = { 200 } },
		{ "matmul batch", .ra = 3, .rb = 3, .a = { 6, 70, 40 }, .b = { 6, 40, 50 } },
		{ "matmul batch, broadcast A, residual + relu", .residual = true, .ra = 2, .rb = 3,
		  .a = { 70, 40 }, .b = { 6, 40, 50 }, .ry = 3, .y = { 6, 70, 50 } },
		{ "matmul batch, constant B sliced", .const_b = true, .ra = 3, .rb = 3,
		  .a = { 5, 70, 40 }, .b = { 5, 40, 50 } },
		{ "matmul batch, broadcast B", .ra = 4, .rb = 3, .a = { 3, 1, 70, 40 },
		  .b = { 4, 40, 50 } },
		{ "matmul batch of 1 then rows", .ra = 3, .rb = 2, .a = { 1, 300, 40 },
		  .b = { 40, 50 } },
	};
	struct backend *be = ot_cpu_backend_chunked();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tg_graph tg;
		Webnn__Ipc__Gemm gm;
		Webnn__Ipc__Matmul mm;
		Webnn__Ipc__Operation o;
		struct ot_act act[2];
		const struct graph_ir *g = chunk_graph(&tg, &cases[i], &gm, &mm, &o, act);
		ot_check(be, g, -1, 1, TOL_SUM, cases[i].label);
		tg_free(&tg);
	}
	backend_cpu.shutdown(be);
}

/* ---- small steps on one thread (cpu.h CPU_SERIAL_WORK) */

/* Compiles g (optimised on a copy) on be, runs it with execute, or with execute_quick when
 * quick, into out[i] (bytes of output i, from inputs seeded 1234 + 77 i); *plan_quick says
 * whether the plan may take the quick path. */
static size_t cpu_last_team_steps; /* cpu_plan_team_steps of cpu_run_plan's latest plan */

static void cpu_run_plan(struct backend *be, const struct graph_ir *g, bool quick,
			 bool *plan_quick, void **out)
{
	struct backend_context *ctx;
	struct backend_context_options opts = { .accelerated = false };
	struct wnn_diag diag = { 0 };
	ASSERT(backend_cpu.context_create(be, &opts, &ctx, &diag) == WEBNN_STATUS_OK);
	struct graph_ir *copy = graph_clone(g);
	ASSERT(copy);
	ASSERT_MSG(tg_optimize(copy, &backend_cpu, ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	struct backend_tensor *ins[TG_MAX_OPERANDS] = { NULL }, *outs[TG_MAX_OPERANDS] = { NULL };
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		void *in = malloc(tg_bytes(d) + 8);
		ASSERT(in);
		tg_random(in, d->type, count, 1234 + 77 * i, -1, 1);
		ASSERT(backend_cpu.tensor_create(ctx, d, &ins[i], &diag) == WEBNN_STATUS_OK);
		ASSERT(backend_cpu.tensor_write(ins[i], in, tg_bytes(d), &diag) == WEBNN_STATUS_OK);
		free(in);
	}
	for (size_t i = 0; i < g->n_outputs; i++)
		ASSERT(backend_cpu.tensor_create(ctx, &g->values[g->outputs[i]].desc, &outs[i],
						 &diag) == WEBNN_STATUS_OK);
	struct backend_plan *plan;
	ASSERT_MSG(backend_cpu.compile(ctx, copy, &plan, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	*plan_quick = backend_cpu.plan_quick(plan);
	cpu_last_team_steps = cpu_plan_team_steps(plan);
	enum webnn_status st = quick ? backend_cpu.execute_quick(plan, ins, outs, &diag)
				     : backend_cpu.execute(plan, ins, outs, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s", diag.message);
	for (size_t i = 0; i < g->n_outputs; i++) {
		size_t bytes = tg_bytes(&g->values[g->outputs[i]].desc);
		out[i] = malloc(bytes);
		ASSERT(out[i]);
		ASSERT(backend_cpu.tensor_read(outs[i], out[i], bytes, &diag) == WEBNN_STATUS_OK);
		backend_cpu.tensor_destroy(outs[i]);
	}
	for (size_t i = 0; i < g->n_inputs; i++)
		backend_cpu.tensor_destroy(ins[i]);
	backend_cpu.plan_destroy(plan);
	graph_destroy(copy);
	backend_cpu.context_destroy(ctx);
}

/* A team of two, with WEBNN_CPU_SERIAL_WORK as given (NULL: the default threshold). */
static struct backend *cpu_backend_serial(const char *serial_work)
{
	if (serial_work)
		setenv("WEBNN_CPU_SERIAL_WORK", serial_work, 1);
	else
		unsetenv("WEBNN_CPU_SERIAL_WORK");
	struct backend *be = NULL;
	struct wnn_diag diag = { 0 };
	struct backend_options two = { .threads = 2 };
	ASSERT_MSG(backend_cpu.init(&two, &be, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	unsetenv("WEBNN_CPU_SERIAL_WORK");
	return be;
}

/* One row by constant weights: [1536, 128] (768 KiB, stays in cache) runs on one thread;
 * [768, 768] (2.25 MiB, bound by memory bandwidth) on the team although its work is smaller. */
TEST_TIMEOUT(cpu_serial_products_by_weight_size, 120)
{
	struct backend *be = cpu_backend_serial(NULL);
	static const struct chunk_case cases[2] = {
		{ "matmul [1,1536] x [1536,128]", .const_b = true, .ra = 2, .rb = 2,
		  .a = { 1, 1536 }, .b = { 1536, 128 }, .ry = 2, .y = { 1, 128 } },
		{ "matmul [1,768] x [768,768]", .const_b = true, .ra = 2, .rb = 2, .a = { 1, 768 },
		  .b = { 768, 768 }, .ry = 2, .y = { 1, 768 } },
	};
	for (int k = 0; k < 2; k++) {
		struct tg_graph tg;
		Webnn__Ipc__Gemm gm;
		Webnn__Ipc__Matmul mm;
		Webnn__Ipc__Operation o;
		struct ot_act act[2];
		const struct graph_ir *g = chunk_graph(&tg, &cases[k], &gm, &mm, &o, act);
		void *out[1];
		bool quick;
		cpu_run_plan(be, g, false, &quick, out);
		ASSERT_MSG(cpu_last_team_steps == (size_t)k, "%s: %zu steps on the team",
			   cases[k].label, cpu_last_team_steps);
		free(out[0]);
		tg_free(&tg);
	}
	backend_cpu.shutdown(be);
}

/* GELU as exported, x * 0.5 * (1 + erf(x / sqrt 2)): one chain step. Over [128, 3072] its
 * head alone (the division) is under the serial threshold, the five operations are not: the
 * step runs on the team, and a small one stays on one thread. */
TEST_TIMEOUT(cpu_chain_work_counts_every_member, 120)
{
	struct backend *be = cpu_backend_serial(NULL);
	static const uint32_t shapes[2][2] = { { 128, 3072 }, { 8, 64 } };
	for (int k = 0; k < 2; k++) {
		struct tg_builder *b = tb_new();
		static const float r2 = 1.41421356f, one = 1, half = 0.5f;
		uint32_t x = tg_input(&b->t, WNN_F32, 2, shapes[k]);
		uint32_t c2 = tg_constant(&b->t, WNN_F32, 0, NULL, &r2),
			 c1 = tg_constant(&b->t, WNN_F32, 0, NULL, &one),
			 ch = tg_constant(&b->t, WNN_F32, 0, NULL, &half);
		uint32_t e = tb_unary(b, WNN_OP_ERF, tb_binary(b, WNN_OP_DIV, x, c2));
		uint32_t y = tb_binary(b, WNN_OP_MUL, tb_binary(b, WNN_OP_MUL,
						tb_binary(b, WNN_OP_ADD, e, c1), x), ch);
		tg_output(&b->t, y);
		struct wnn_diag diag = { 0 };
		const struct graph_ir *g = tg_finish(&b->t, &diag);
		ASSERT_MSG(g, "%s", diag.message);
		ASSERT_MSG(!cpu_has_live(be, g, WNN_OP_ERF), "GELU is not one chain step");
		void *out[1];
		bool quick;
		cpu_run_plan(be, g, false, &quick, out);
		ASSERT_MSG(cpu_last_team_steps == (k == 0), "GELU over [%u, %u]: %zu steps on the team",
			   shapes[k][0], shapes[k][1], cpu_last_team_steps);
		free(out[0]);
		tb_free(b);
	}
	backend_cpu.shutdown(be);
}

/* Small oneDNN steps (a wake-word classifier's [1, 1536] x [1536, 128] layer with a residual
 * add and relu fused, a small NHWC conv) are built and run for one thread: their plans may
 * take the quick path, where the same primitives on the calling thread give the same bits as
 * on the compute thread; with every step on the team (WEBNN_CPU_SERIAL_WORK=0) the plans stay
 * off it, and both match the reference kernels and each other. */
TEST_TIMEOUT(cpu_small_steps_serial, 300)
{
	struct backend *serial = cpu_backend_serial(NULL), *team = cpu_backend_serial("0");
	ot_impl = &backend_cpu;
	for (int which = 0; which < 2; which++) {
		struct tg_graph tg;
		Webnn__Ipc__Gemm gm;
		Webnn__Ipc__Matmul mm;
		Webnn__Ipc__Operation o;
		struct ot_act act[2];
		struct ot_conv pc;
		const struct graph_ir *g;
		const char *label;
		if (which == 0) {
			static const struct chunk_case mlp = {
				"matmul [1,1536] x [1536,128] + residual + relu", .const_b = true,
				.residual = true, .ra = 2, .rb = 2, .a = { 1, 1536 },
				.b = { 1536, 128 }, .ry = 2, .y = { 1, 128 }
			};
			g = chunk_graph(&tg, &mlp, &gm, &mm, &o, act);
			label = mlp.label;
		} else {
			tg_init(&tg);
			uint32_t x = tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 1, 8, 8, 8 });
			uint32_t y = ot_conv(&tg, &pc, x, WNN_F32, true, 8, 8, 3, 1, 1,
					     (uint32_t[]){ 1, 1, 1, 1 }, true, 5);
			ot_act(&tg, &act[0], 1, y, 0);
			struct wnn_diag diag = { 0 };
			g = tg_finish(&tg, &diag);
			ASSERT_MSG(g, "%s", diag.message);
			label = "conv2d [1,8,8,8] 3x3 nhwc + bias + relu";
		}
		ot_check(serial, g, -1, 1, TOL_SUM, label);
		ot_check(team, g, -1, 1, TOL_SUM, label);
		void *a[TG_MAX_OPERANDS], *b[TG_MAX_OPERANDS], *c[TG_MAX_OPERANDS];
		bool qa, qb, qc;
		cpu_run_plan(serial, g, false, &qa, a);
		cpu_run_plan(serial, g, true, &qb, b);
		cpu_run_plan(team, g, false, &qc, c);
		ASSERT_MSG(qa && qb, "%s: a plan of small oneDNN steps is not quick", label);
		ASSERT_MSG(!qc, "%s: a plan of team primitives may take the quick path", label);
		const struct wnn_desc *d = &g->values[g->outputs[0]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		ASSERT_MSG(memcmp(a[0], b[0], tg_bytes(d)) == 0,
			   "%s: the quick path's output differs from the compute thread's", label);
		char msg[256];
		ASSERT_MSG(tg_compare(c[0], a[0], WNN_F32, count, 0, TOL_SUM.atol, TOL_SUM.rtol,
				      msg, sizeof msg),
			   "%s: one thread against the team: %s", label, msg);
		free(a[0]);
		free(b[0]);
		free(c[0]);
		tg_free(&tg);
	}
	backend_cpu.shutdown(serial);
	backend_cpu.shutdown(team);
}

/* ---- quantized weights: matmul of a block-wise dequantized constant (graph_qweight) */

struct qmm_case {
	enum wnn_dtype qt;
	bool nbits;  /* MatMulNBits' lowering: W [N, blocks, bs] -> reshape -> slice -> transpose */
	uint32_t m, k, n, bs;
	bool batch, bias;
	bool gemm; /* gemm(A, W, C) with alpha 0.5, beta 2 (bias: C [N]); nbits: W [N, K] as
		      gemm's transposed B, no transpose node */
};

/* Builds A x dequantize(W) the way the ONNX importer lowers MatMulNBits (nbits) or a blocked
 * DequantizeLinear [K, N] (blocks along K); the cpu backend runs it on the packed weights and
 * must match the reference backend, which dequantizes then multiplies. */
/* The least disturbed of 15 runs of g's cpu plan (the machine is shared). */
static double qmm_time(struct backend *be, const struct graph_ir *g)
{
	const struct backend_impl *impl = &backend_cpu;
	struct backend_context *ctx = NULL;
	struct backend_plan *plan = NULL;
	struct backend_tensor *ins[4] = { NULL }, *outs[1] = { NULL };
	struct backend_context_options copts = { 0 };
	struct wnn_diag diag = { 0 };
	ASSERT(g->n_inputs <= 4 && g->n_outputs == 1);
	ASSERT(impl->context_create(be, &copts, &ctx, &diag) == WEBNN_STATUS_OK);
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		ASSERT(impl->tensor_create(ctx, d, &ins[i], &diag) == WEBNN_STATUS_OK);
	}
	ASSERT(impl->tensor_create(ctx, &g->values[g->outputs[0]].desc, &outs[0], &diag) ==
	       WEBNN_STATUS_OK);
	struct graph_ir *copy = graph_clone(g);
	ASSERT(copy != NULL);
	ASSERT_MSG(tg_optimize(copy, impl, ctx, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ASSERT_MSG(impl->compile(ctx, copy, &plan, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	double best = 1e9, cpu_best = 1e9;
	for (int r = 0; r < 15; r++) {
		struct timespec c0, c1;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
		double t0 = test_now();
		ASSERT(impl->execute(plan, ins, outs, &diag) == WEBNN_STATUS_OK);
		double t = test_now() - t0;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
		double c = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
		best = t < best ? t : best;
		cpu_best = c < cpu_best ? c : cpu_best;
	}
	fprintf(stderr, "  (process CPU time of the fastest run: %.3f ms)\n", cpu_best * 1e3);
	impl->plan_destroy(plan);
	graph_destroy(copy);
	for (size_t i = 0; i < 4; i++)
		if (ins[i])
			impl->tensor_destroy(ins[i]);
	impl->tensor_destroy(outs[0]);
	impl->context_destroy(ctx);
	return best;
}

/* seconds NULL: checks the result against the reference; else times the cpu plan. */
static void qmm_check(struct backend *be, const struct qmm_case *c, double *seconds)
{
	struct tg_graph tg;
	tg_init(&tg);
	struct wnn_diag diag = { 0 };
	uint32_t nb = (c->k + c->bs - 1) / c->bs;
	bool four = c->qt == WNN_I4 || c->qt == WNN_U4;
	double lo = c->qt == WNN_I4 ? -8 : c->qt == WNN_I8 ? -128 : 0,
	       hi = four ? lo + 15 : lo + 255;
	uint32_t adims[3] = { 2, c->m, c->k };
	uint32_t a = c->batch ? tg_input(&tg, WNN_F32, 3, adims) : tg_input(&tg, WNN_F32, 2, adims + 1);
	uint32_t qd[3], sd[3], qrank, wcount;
	if (c->nbits) {
		qd[0] = c->n, qd[1] = nb, qd[2] = c->bs, qrank = 3;
		sd[0] = c->n, sd[1] = nb, sd[2] = 1;
		wcount = c->n * nb * c->bs;
	} else {
		qd[0] = c->k, qd[1] = c->n, qrank = 2;
		sd[0] = c->k / c->bs, sd[1] = c->n;
		wcount = c->k * c->n;
	}
	uint32_t scount = sd[0] * sd[1];
	uint8_t *q = calloc(wcount, 1), *z = calloc(scount, 1);
	float *s = malloc(scount * sizeof(float));
	ASSERT(q && z && s);
	tg_random(q, c->qt, wcount, 41 + c->k, lo, hi);
	tg_random(z, c->qt, scount, 43 + c->n, lo, hi);
	tg_random(s, WNN_F32, scount, 47, 0.002, 0.02);
	uint32_t qv = tg_constant(&tg, c->qt, qrank, qd, q);
	uint32_t zv = tg_constant(&tg, c->qt, qrank, sd, z);
	uint32_t sflat = scount;
	uint32_t sv = tg_constant(&tg, WNN_F32, c->nbits ? 1 : 2, c->nbits ? &sflat : sd, s);
	Webnn__Ipc__Reshape rs = WEBNN__IPC__RESHAPE__INIT, rw = WEBNN__IPC__RESHAPE__INIT;
	Webnn__Ipc__QuantizeLinear dq = WEBNN__IPC__QUANTIZE_LINEAR__INIT;
	Webnn__Ipc__Slice sl = WEBNN__IPC__SLICE__INIT;
	Webnn__Ipc__Transpose tr = WEBNN__IPC__TRANSPOSE__INIT;
	Webnn__Ipc__Matmul mm = WEBNN__IPC__MATMUL__INIT;
	Webnn__Ipc__ElementwiseBinary add = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
	Webnn__Ipc__Operation o[7];
	for (int i = 0; i < 7; i++)
		o[i] = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	int k = 0;
	if (c->nbits) {
		rs.input = sv, rs.output = tg_next(&tg), rs.new_shape = sd, rs.n_new_shape = 3;
		tg_set_op(&o[k], WNN_OP_RESHAPE, &rs);
		ASSERT_MSG(tg_op(&tg, &o[k++], &diag) == WEBNN_STATUS_OK, "%s", diag.message);
		sv = rs.output;
	}
	dq.input = qv, dq.scale = sv, dq.zero_point = zv, dq.output = tg_next(&tg);
	tg_set_op(&o[k], WNN_OP_DEQUANTIZE_LINEAR, &dq);
	ASSERT_MSG(tg_op(&tg, &o[k++], &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	uint32_t w = dq.output;
	uint32_t flat[2] = { c->n, nb * c->bs }, starts[2] = { 0, 0 }, sizes[2] = { c->n, c->k };
	if (c->nbits) {
		rw.input = w, rw.output = tg_next(&tg), rw.new_shape = flat, rw.n_new_shape = 2;
		tg_set_op(&o[k], WNN_OP_RESHAPE, &rw);
		ASSERT_MSG(tg_op(&tg, &o[k++], &diag) == WEBNN_STATUS_OK, "%s", diag.message);
		w = rw.output;
		if (flat[1] != c->k) {
			sl.input = w, sl.output = tg_next(&tg);
			sl.starts = starts, sl.n_starts = 2, sl.sizes = sizes, sl.n_sizes = 2;
			tg_set_op(&o[k], WNN_OP_SLICE, &sl);
			ASSERT_MSG(tg_op(&tg, &o[k++], &diag) == WEBNN_STATUS_OK, "%s", diag.message);
			w = sl.output;
		}
		if (!c->gemm) {
			tr.input = w, tr.output = tg_next(&tg);
			tg_set_op(&o[k], WNN_OP_TRANSPOSE, &tr);
			ASSERT_MSG(tg_op(&tg, &o[k++], &diag) == WEBNN_STATUS_OK, "%s",
				   diag.message);
			w = tr.output;
		}
	}
	Webnn__Ipc__Gemm gm = WEBNN__IPC__GEMM__INIT;
	if (c->gemm) {
		gm.a = a, gm.b = w, gm.output = tg_next(&tg);
		gm.has_alpha = 1, gm.alpha = 0.5;
		gm.has_b_transpose = 1, gm.b_transpose = c->nbits;
		if (c->bias) {
			gm.has_c = 1, gm.c = tg_input(&tg, WNN_F32, 1, &c->n);
			gm.output = tg_next(&tg);
			gm.has_beta = 1, gm.beta = 2;
		}
		tg_set_op(&o[k], WNN_OP_GEMM, &gm);
		ASSERT_MSG(tg_op(&tg, &o[k++], &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	} else {
		mm.a = a, mm.b = w, mm.output = tg_next(&tg);
		tg_set_op(&o[k], WNN_OP_MATMUL, &mm);
		ASSERT_MSG(tg_op(&tg, &o[k++], &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	}
	if (c->bias && !c->gemm) {
		uint32_t vec = tg_input(&tg, WNN_F32, 1, &c->n);
		add.a = mm.output, add.b = vec, add.output = tg_next(&tg);
		tg_set_op(&o[k], WNN_OP_ADD, &add);
		ASSERT_MSG(tg_op(&tg, &o[k++], &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	}
	char label[160];
	snprintf(label, sizeof label, "quantized %s %s %s m %u k %u n %u block %u%s%s",
		 c->gemm ? "gemm" : "matmul", wnn_dtype_name(c->qt), c->nbits ? "nbits" : "[K, N]",
		 c->m, c->k, c->n, c->bs, c->batch ? " batched" : "", c->bias ? " + bias" : "");
	const struct graph_ir *g = tg_finish(&tg, &diag);
	ASSERT_MSG(g, "%s: %s", label, diag.message);
	if (seconds) {
		*seconds = qmm_time(be, g);
	} else {
		ot_check(be, g, -1, 1, TOL_SUM, label);
		ASSERT_MSG(!cpu_has_live(be, g, WNN_OP_DEQUANTIZE_LINEAR) &&
				   !cpu_has_live(be, g, WNN_OP_TRANSPOSE),
			   "%s: the dequantization was not fused into the matmul", label);
	}
	tg_free(&tg);
	free(q);
	free(z);
	free(s);
}

TEST_TIMEOUT(cpu_quantized_matmul, 120)
{
	ot_impl = &backend_cpu;
	struct backend *be = ot_backend();
	static const struct qmm_case cases[] = {
		{ WNN_U4, true, 1, 64, 8, 32, false, false, false },
		{ WNN_U4, true, 5, 40, 7, 16, false, true, false },   /* a partial last block, odd N */
		{ WNN_U4, true, 3, 2048, 9, 32, true, false, false }, /* several K chunks */
		{ WNN_I4, true, 2, 96, 5, 32, false, false, false },
		{ WNN_I4, true, 2, 48, 5, 16, false, true, false },   /* few rows, blocks of 16 */
		{ WNN_U8, true, 4, 48, 6, 16, true, true, false },
		{ WNN_I4, false, 3, 64, 10, 16, false, false, false }, /* blocks along K of [K, N] */
		{ WNN_U4, false, 2, 33, 4, 11, false, true, false },   /* odd block, nibbles straddle */
		{ WNN_I8, false, 2, 32, 5, 8, true, false, false },
		/* gemm: B transposed by gemm, alpha, C */
		{ WNN_U4, true, 1, 64, 6, 32, false, true, true },
		{ WNN_I4, true, 5, 40, 3, 16, false, false, true },
		{ WNN_U8, false, 4, 32, 7, 8, false, true, true },
		/* 16 rows and more: rows in vector lanes (qmm_run_lanes on AVX-512) */
		{ WNN_U4, true, 16, 64, 8, 32, false, false, false },
		{ WNN_I4, true, 37, 1056, 13, 32, false, true, false }, /* 32 + 16-row tail, K chunks */
		{ WNN_U4, true, 9, 96, 11, 16, true, false, false },    /* batched: 18 rows */
		{ WNN_U4, false, 20, 48, 9, 16, false, true, false },   /* blocks along K of [K, N] */
		{ WNN_U8, true, 33, 64, 10, 16, false, false, false },
		{ WNN_I4, true, 17, 64, 6, 32, false, true, true },     /* gemm, alpha, C */
		{ WNN_U4, true, 300, 64, 9, 32, false, false, false },  /* two passes of rows */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		qmm_check(be, &cases[i], NULL);
	backend_cpu.shutdown(be);
}

/* One 2048 x 2048 block-32 uint4 layer in MatMulNBits' layout, in process (no daemon): the
 * kernel's own time at M 1 and 32. */
TEST_TIMEOUT(bench_cpu_quantized_matmul, 300)
{
	ot_impl = &backend_cpu;
	struct backend *be = ot_backend();
	for (uint32_t m = 1; m <= 32; m *= 32) {
		const struct qmm_case c = { WNN_U4, true, m, 2048, 2048, 32, false, false, false };
		double t;
		qmm_check(be, &c, &t);
		fprintf(stderr, "quantized matmul uint4 2048x2048 block 32, M %u: %.3f ms (%.2f "
			"GMAC/s; load %.2f)\n", m, t * 1e3, 2048.0 * 2048 * m / t / 1e9,
			test_load_average());
	}
	backend_cpu.shutdown(be);
}
