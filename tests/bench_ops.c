/* OpenCL backend benchmarks (make bench): sgemm against CLBlast, conv2d and reductions. */
#include <clblast_c.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/backend/opencl/ocl.h"
#include "tests/graphs.h"
#include "tests/ocltest.h"
#include "tests/test.h"
#include "webnn.h"

static double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define BENCH_REPS 11

struct bench_env {
	struct backend *be;
	struct backend_context *ctx;
};

static void bench_open(struct bench_env *e)
{
	if (!test_have_opencl())
		SKIP("no OpenCL device");
	struct wnn_diag diag = { 0 };
	if (backend_opencl.init(NULL, &e->be, &diag) != WEBNN_STATUS_OK)
		SKIP("opencl: %s", diag.message);
	struct backend_context_options o = { .accelerated = true };
	ASSERT_MSG(backend_opencl.context_create(e->be, &o, &e->ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
}

static void bench_close(struct bench_env *e)
{
	backend_opencl.context_destroy(e->ctx);
	backend_opencl.shutdown(e->be);
}

/* Median seconds of one execute of a single-operation graph (inputs random, compiled once). */
static double bench_graph(struct bench_env *e, const struct graph_ir *g)
{
	struct wnn_diag diag = { 0 };
	struct backend_tensor *in[TG_MAX_OPERANDS] = { 0 }, *out[TG_MAX_OPERANDS] = { 0 };
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		ASSERT(backend_opencl.tensor_create(e->ctx, d, &in[i], &diag) == WEBNN_STATUS_OK);
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		void *buf = malloc(tg_bytes(d));
		tg_random(buf, d->type, count, 5 + i, -1, 1);
		ASSERT(backend_opencl.tensor_write(in[i], buf, tg_bytes(d), &diag) == WEBNN_STATUS_OK);
		free(buf);
	}
	for (size_t i = 0; i < g->n_outputs; i++)
		ASSERT(backend_opencl.tensor_create(e->ctx, &g->values[g->outputs[i]].desc, &out[i],
						    &diag) == WEBNN_STATUS_OK);
	struct graph_ir *graph = ot_optimized_copy(e->ctx, g);
	struct backend_plan *plan = NULL;
	enum webnn_status st = backend_opencl.compile(e->ctx, graph, &plan, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s", diag.message);
	ASSERT(backend_opencl.execute(plan, in, out, &diag) == WEBNN_STATUS_OK); /* warm */
	double t[BENCH_REPS];
	for (int r = 0; r < BENCH_REPS; r++) {
		double t0 = bench_now();
		ASSERT_MSG(backend_opencl.execute(plan, in, out, &diag) == WEBNN_STATUS_OK, "%s",
			   diag.message);
		t[r] = bench_now() - t0;
	}
	backend_opencl.plan_destroy(plan);
	graph_destroy(graph);
	qsort(t, BENCH_REPS, sizeof t[0], cmp_double);
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		backend_opencl.tensor_destroy(in[i]);
		backend_opencl.tensor_destroy(out[i]);
	}
	return t[BENCH_REPS / 2];
}

static cl_mem bench_buffer(struct bench_env *e, size_t floats)
{
	cl_int err;
	float *h = malloc(floats * 4);
	for (size_t i = 0; i < floats; i++)
		h[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
	cl_mem m = clCreateBuffer(e->ctx->dev->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
				  floats * 4, h, &err);
	free(h);
	ASSERT(m);
	return m;
}

/* Median seconds of fn(arg) + clFinish. */
typedef CLBlastStatusCode (*bench_fn)(struct bench_env *e, void *arg);
static double bench_call(struct bench_env *e, bench_fn fn, void *arg)
{
	double t[BENCH_REPS];
	ASSERT(fn(e, arg) == CLBlastSuccess);
	clFinish(e->ctx->queue);
	for (int r = 0; r < BENCH_REPS; r++) {
		double t0 = bench_now();
		ASSERT(fn(e, arg) == CLBlastSuccess);
		clFinish(e->ctx->queue);
		t[r] = bench_now() - t0;
	}
	qsort(t, BENCH_REPS, sizeof t[0], cmp_double);
	return t[BENCH_REPS / 2];
}

struct sgemm_args {
	size_t m, n, k;
	cl_mem a, b, c;
};
static CLBlastStatusCode raw_sgemm(struct bench_env *e, void *arg)
{
	struct sgemm_args *s = arg;
	return CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, s->m, s->n,
			    s->k, 1.0f, s->a, 0, s->k, s->b, 0, s->n, 0.0f, s->c, 0, s->n,
			    &e->ctx->queue, NULL);
}

TEST_TIMEOUT(bench_sgemm, 600)
{
	struct bench_env e;
	bench_open(&e);
	static const uint32_t shapes[][3] = {
		{ 1024, 1024, 1024 }, { 3025, 64, 144 }, { 729, 128, 288 }, { 169, 1000, 512 },
		{ 12544, 32, 27 },
	};
	printf("  %-18s %12s %12s %12s %8s\n", "sgemm M x N x K", "backend", "CLBlast tuned",
	       "CLBlast dflt", "ratio");
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		uint32_t M = shapes[i][0], N = shapes[i][1], K = shapes[i][2];
		double fl = 2.0 * M * N * K;
		struct tg_graph tg;
		struct wnn_diag diag = { 0 };
		tg_init(&tg);
		uint32_t a = tg_input(&tg, WNN_F32, 2, (uint32_t[]){ M, K });
		uint32_t b = tg_input(&tg, WNN_F32, 2, (uint32_t[]){ K, N });
		Webnn__Ipc__Matmul m = WEBNN__IPC__MATMUL__INIT;
		m.a = a;
		m.b = b;
		m.output = tg_next(&tg);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, WNN_OP_MATMUL, &m);
		ASSERT(tg_op(&tg, &o, &diag) == WEBNN_STATUS_OK);
		const struct graph_ir *g = tg_finish(&tg, &diag);
		ASSERT_MSG(g, "%s", diag.message);
		double tb = bench_graph(&e, g);
		tg_free(&tg);
		struct sgemm_args s = { M, N, K, bench_buffer(&e, (size_t)M * K),
					bench_buffer(&e, (size_t)K * N), bench_buffer(&e, (size_t)M * N) };
		double tt = bench_call(&e, raw_sgemm, &s);
		ocl_clblast_params(e.ctx->dev, false);
		double td = bench_call(&e, raw_sgemm, &s);
		ocl_clblast_params(e.ctx->dev, true);
		clReleaseMemObject(s.a);
		clReleaseMemObject(s.b);
		clReleaseMemObject(s.c);
		printf("  %5ux%5ux%5u  %7.1f GF/s %7.1f GF/s %7.1f GF/s %7.2fx (backend / default)\n",
		       M, N, K, fl / tb / 1e9, fl / tt / 1e9, fl / td / 1e9, td / tb);
	}
	bench_close(&e);
}

struct conv_bench {
	const char *name;
	uint32_t c, h, w, oc, k, stride, pad, groups;
	int act; /* 0 none, 1 relu, 2 relu6 (clamp 0..6) after the conv */
};

/* conv2d (+ relu/clamp) as a graph: nhwc/ohwi (ihwo for depthwise) or nchw/oihw. */
static void conv_graph(struct tg_graph *tg, const struct conv_bench *c, bool nhwc,
		       Webnn__Ipc__Conv2d *m, Webnn__Ipc__Operation *o, Webnn__Ipc__Clamp *cl,
		       Webnn__Ipc__ElementwiseUnary *u, Webnn__Ipc__Operation *o2,
		       Webnn__Ipc__Number *lo, Webnn__Ipc__Number *hi, uint32_t *pad, uint32_t *st)
{
	struct wnn_diag diag = { 0 };
	tg_init(tg);
	uint32_t icg = c->c / c->groups;
	bool dw = c->groups > 1 && c->groups == c->c;
	uint32_t x = tg_input(tg, WNN_F32, 4,
			      nhwc ? (uint32_t[]){ 1, c->h, c->w, c->c }
				   : (uint32_t[]){ 1, c->c, c->h, c->w });
	size_t fcount = (size_t)c->oc * icg * c->k * c->k;
	float *fw = malloc(fcount * 4), *bias = malloc(c->oc * 4);
	tg_random(fw, WNN_F32, fcount, 3, -0.1, 0.1);
	tg_random(bias, WNN_F32, c->oc, 4, -0.1, 0.1);
	uint32_t f = tg_constant(tg, WNN_F32, 4,
				 !nhwc ? (uint32_t[]){ c->oc, icg, c->k, c->k }
				 : dw  ? (uint32_t[]){ 1, c->k, c->k, c->oc }
				       : (uint32_t[]){ c->oc, c->k, c->k, icg },
				 fw);
	uint32_t bb = tg_constant(tg, WNN_F32, 1, (uint32_t[]){ c->oc }, bias);
	free(fw);
	free(bias);
	for (int i = 0; i < 4; i++)
		pad[i] = c->pad;
	st[0] = st[1] = c->stride;
	m->input = x;
	m->filter = f;
	m->has_bias = 1;
	m->bias = bb;
	m->output = tg_next(tg);
	m->n_padding = 4;
	m->padding = pad;
	m->n_strides = 2;
	m->strides = st;
	m->has_groups = 1;
	m->groups = c->groups;
	m->has_input_layout = m->has_filter_layout = 1;
	m->input_layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC : WEBNN__IPC__INPUT_LAYOUT__NCHW;
	m->filter_layout = !nhwc ? WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW
			   : dw  ? WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO
				 : WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI;
	tg_set_op(o, WNN_OP_CONV2D, m);
	ASSERT_MSG(tg_op(tg, o, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	if (c->act == 1) {
		u->input = m->output;
		u->output = tg_next(tg);
		tg_set_op(o2, WNN_OP_RELU, u);
		ASSERT_MSG(tg_op(tg, o2, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	} else if (c->act == 2) {
		lo->value_case = hi->value_case = WEBNN__IPC__NUMBER__VALUE_F;
		lo->f = 0;
		hi->f = 6;
		cl->input = m->output;
		cl->output = tg_next(tg);
		cl->min_value = lo;
		cl->max_value = hi;
		tg_set_op(o2, WNN_OP_CLAMP, cl);
		ASSERT_MSG(tg_op(tg, o2, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	}
}

/* Each conv (with its activation) in both layouts: GFLOP/s, and NHWC against NCHW (the layout
 * the client gives; the layout pass runs both in the device's preferred one, plus the boundary
 * transposes). */
TEST_TIMEOUT(bench_conv2d, 600)
{
	struct bench_env e;
	bench_open(&e);
	static const struct conv_bench convs[] = {
		{ "sqz conv1 7x7s2 +relu", 3, 224, 224, 96, 7, 2, 2, 1, 1 },
		{ "sqz fire2 sq1x1 +relu", 96, 55, 55, 16, 1, 1, 0, 1, 1 },
		{ "sqz fire2 e3x3 +relu", 16, 55, 55, 64, 3, 1, 1, 1, 1 },
		{ "sqz fire9 e3x3 +relu", 64, 13, 13, 256, 3, 1, 1, 1, 1 },
		{ "sqz conv10 1x1 +relu", 512, 13, 13, 1000, 1, 1, 0, 1, 1 },
		{ "mnv2 conv1 3x3s2 +relu6", 3, 224, 224, 32, 3, 2, 1, 1, 2 },
		{ "mnv2 dw 112x32 +relu6", 32, 112, 112, 32, 3, 1, 1, 32, 2 },
		{ "mnv2 dw s2 112x96 +relu6", 96, 112, 112, 96, 3, 2, 1, 96, 2 },
		{ "mnv2 dw 14x576 +relu6", 576, 14, 14, 576, 3, 1, 1, 576, 2 },
		{ "mnv2 dw 7x960 +relu6", 960, 7, 7, 960, 3, 1, 1, 960, 2 },
		{ "mnv2 project 112 32->16", 32, 112, 112, 16, 1, 1, 0, 1, 0 },
		{ "mnv2 expand 56 24->144", 24, 56, 56, 144, 1, 1, 0, 1, 2 },
		{ "mnv2 project 28 192->32", 192, 28, 28, 32, 1, 1, 0, 1, 0 },
	};
	printf("  %-26s %10s %10s %10s %8s\n", "conv2d (batch 1)", "nhwc GF/s", "nchw GF/s",
	       "nhwc ms", "nchw/nhwc");
	for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++) {
		const struct conv_bench *c = &convs[i];
		/* WEBNN_BENCH_FILTER=text: only the rows whose name contains it */
		const char *only = getenv("WEBNN_BENCH_FILTER");
		if (only && *only && !strstr(c->name, only))
			continue;
		uint32_t oh = (c->h + 2 * c->pad - c->k) / c->stride + 1;
		uint32_t ow = (c->w + 2 * c->pad - c->k) / c->stride + 1;
		double fl = 2.0 * oh * ow * c->oc * (c->c / c->groups) * c->k * c->k;
		double t[2];
		for (int nhwc = 1; nhwc >= 0; nhwc--) {
			struct tg_graph tg;
			struct wnn_diag diag = { 0 };
			Webnn__Ipc__Conv2d m = WEBNN__IPC__CONV2D__INIT;
			Webnn__Ipc__Clamp cl = WEBNN__IPC__CLAMP__INIT;
			Webnn__Ipc__ElementwiseUnary u = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT,
					      o2 = WEBNN__IPC__OPERATION__INIT;
			Webnn__Ipc__Number lo = WEBNN__IPC__NUMBER__INIT, hi = WEBNN__IPC__NUMBER__INIT;
			uint32_t pad[4], st[2];
			conv_graph(&tg, c, nhwc, &m, &o, &cl, &u, &o2, &lo, &hi, pad, st);
			const struct graph_ir *g = tg_finish(&tg, &diag);
			ASSERT_MSG(g, "%s", diag.message);
			t[nhwc] = bench_graph(&e, g);
			tg_free(&tg);
		}
		printf("  %-26s %10.1f %10.1f %10.3f %7.2fx\n", c->name, fl / t[1] / 1e9,
		       fl / t[0] / 1e9, t[1] * 1e3, t[0] / t[1]);
	}
	bench_close(&e);
}

/* Reductions with few outputs over many elements (the two-stage path) and with many outputs
 * (one work-item each): time, and the input read per second (a reduction reads its input
 * once, so this is against the device's memory bandwidth). */
TEST_TIMEOUT(bench_reduce, 600)
{
	struct bench_env e;
	bench_open(&e);
	static const struct {
		const char *name;
		enum wnn_op op;
		enum wnn_dtype type;
		uint32_t rank, dims[3];
		int n; /* -1: all axes */
		uint32_t axes[2];
	} rs[] = {
		{ "sum 1M f32 -> 1", WNN_OP_REDUCE_SUM, WNN_F32, 1, { 1u << 20 }, -1, { 0 } },
		{ "max 1M f32 -> 1", WNN_OP_REDUCE_MAX, WNN_F32, 1, { 1u << 20 }, -1, { 0 } },
		{ "logSumExp 1M f32 -> 1", WNN_OP_REDUCE_LOG_SUM_EXP, WNN_F32, 1, { 1u << 20 }, -1,
		  { 0 } },
		{ "sum 1M f16 -> 1", WNN_OP_REDUCE_SUM, WNN_F16, 1, { 1u << 20 }, -1, { 0 } },
		{ "sum 1M i32 -> 1", WNN_OP_REDUCE_SUM, WNN_I32, 1, { 1u << 20 }, -1, { 0 } },
		{ "mean 64x16384 f32 ax1", WNN_OP_REDUCE_MEAN, WNN_F32, 2, { 64, 16384 }, 1, { 1 } },
		{ "l2 16x256x256 f32 ax1,2", WNN_OP_REDUCE_L2, WNN_F32, 3, { 16, 256, 256 }, 2,
		  { 1, 2 } },
		{ "sum 64x128x128 f32 ax0,2", WNN_OP_REDUCE_SUM, WNN_F32, 3, { 64, 128, 128 }, 2,
		  { 0, 2 } },
		{ "sum 1024x1024 f32 ax0", WNN_OP_REDUCE_SUM, WNN_F32, 2, { 1024, 1024 }, 1, { 0 } },
	};
	printf("  %-26s %10s %10s\n", "reduction", "ms", "GB/s read");
	for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
		struct tg_graph tg;
		struct wnn_diag diag = { 0 };
		tg_init(&tg);
		Webnn__Ipc__Reduce m = WEBNN__IPC__REDUCE__INIT;
		uint32_t axes[2] = { rs[i].axes[0], rs[i].axes[1] };
		m.input = tg_input(&tg, rs[i].type, rs[i].rank, rs[i].dims);
		m.output = tg_next(&tg);
		if (rs[i].n >= 0) {
			m.has_has_axes = m.has_axes = 1;
			m.n_axes = (size_t)rs[i].n;
			m.axes = axes;
		}
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, rs[i].op, &m);
		ASSERT_MSG(tg_op(&tg, &o, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
		const struct graph_ir *g = tg_finish(&tg, &diag);
		ASSERT_MSG(g, "%s", diag.message);
		double t = bench_graph(&e, g);
		double bytes = (double)tg_bytes(&g->values[g->inputs[0]].desc);
		tg_free(&tg);
		printf("  %-26s %10.3f %10.2f\n", rs[i].name, t * 1e3, bytes / t / 1e9);
	}
	bench_close(&e);
}

/* The whole models (SqueezeNet, MobileNetV2 against the first version, the cpu backend and
 * onnxruntime) are bench_models in tests/bench_cpu.c. */
