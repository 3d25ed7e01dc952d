/* OpenCL backend benchmarks (make bench): sgemm and conv2d through the backend vs same-run baselines. */
#include <clblast_c.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/backend/opencl/ocl.h"
#include "tests/graphs.h"
#include "tests/test.h"

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

#define BENCH_REPS 7

struct bench_env {
	struct backend *be;
	struct backend_context *ctx;
};

static void bench_open(struct bench_env *e)
{
	if (!test_have_opencl())
		SKIP("no OpenCL device");
	setenv("WEBNN_NO_WARMUP", "1", 1);
	struct wnn_diag diag = { 0 };
	if (backend_opencl.init(&e->be, &diag) != WEBNN_STATUS_OK)
		SKIP("opencl: %s", diag.message);
	struct backend_context_options o = { WEBNN_POWER_DEFAULT, true };
	ASSERT_MSG(backend_opencl.context_create(e->be, &o, &e->ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
}

static void bench_close(struct bench_env *e)
{
	backend_opencl.context_destroy(e->ctx);
	backend_opencl.shutdown(e->be);
}

/* Median seconds of one execute of a single-operation graph (inputs random, compiled once). */
static double bench_graph(struct bench_env *e, const struct backend_graph *g)
{
	struct wnn_diag diag = { 0 };
	struct backend_tensor *in[TG_MAX_OPERANDS] = { 0 }, *out[TG_MAX_OPERANDS] = { 0 };
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->descs[g->input_operands[i]];
		ASSERT(backend_opencl.tensor_create(e->ctx, d, &in[i], &diag) == WEBNN_STATUS_OK);
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		void *buf = malloc(tg_bytes(d));
		tg_random(buf, d->type, count, 5 + i, -1, 1);
		ASSERT(backend_opencl.tensor_write(in[i], buf, tg_bytes(d), &diag) == WEBNN_STATUS_OK);
		free(buf);
	}
	for (size_t i = 0; i < g->n_outputs; i++)
		ASSERT(backend_opencl.tensor_create(e->ctx, &g->descs[g->output_operands[i]], &out[i],
						    &diag) == WEBNN_STATUS_OK);
	struct backend_plan *plan;
	ASSERT_MSG(backend_opencl.compile(e->ctx, g, &plan, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	double t[BENCH_REPS];
	ASSERT(backend_opencl.execute(plan, in, out, &diag) == WEBNN_STATUS_OK); /* warm-up */
	for (int r = 0; r < BENCH_REPS; r++) {
		double t0 = bench_now();
		ASSERT_MSG(backend_opencl.execute(plan, in, out, &diag) == WEBNN_STATUS_OK, "%s",
			   diag.message);
		t[r] = bench_now() - t0;
	}
	backend_opencl.plan_destroy(plan);
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		backend_opencl.tensor_destroy(in[i]);
		backend_opencl.tensor_destroy(out[i]);
	}
	qsort(t, BENCH_REPS, sizeof t[0], cmp_double);
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
		const struct backend_graph *g = tg_finish(&tg, &diag);
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
};

struct convgemm_args {
	const struct conv_bench *c;
	cl_mem in, w, out;
};
static CLBlastStatusCode raw_convgemm(struct bench_env *e, void *arg)
{
	struct convgemm_args *a = arg;
	const struct conv_bench *c = a->c;
	return CLBlastSconvgemm(CLBlastKernelModeCrossCorrelation, c->c, c->h, c->w, c->k, c->k,
				c->pad, c->pad, c->stride, c->stride, 1, 1, c->oc, 1, a->in, 0, a->w,
				0, a->out, 0, &e->ctx->queue, NULL);
}

TEST_TIMEOUT(bench_conv2d, 600)
{
	struct bench_env e;
	bench_open(&e);
	static const struct conv_bench convs[] = {
		{ "squeezenet conv1 7x7s2", 3, 224, 224, 96, 7, 2, 2, 1 },
		{ "squeezenet fire2 e3x3", 16, 55, 55, 64, 3, 1, 1, 1 },
		{ "squeezenet fire2 sq1x1", 96, 55, 55, 16, 1, 1, 0, 1 },
		{ "squeezenet fire9 e3x3", 64, 13, 13, 256, 3, 1, 1, 1 },
		{ "squeezenet conv10 1x1", 512, 13, 13, 1000, 1, 1, 0, 1 },
		{ "mobilenet conv1 3x3s2", 3, 224, 224, 32, 3, 2, 1, 1 },
		{ "mobilenet dw 3x3", 32, 112, 112, 32, 3, 1, 1, 32 },
		{ "mobilenet pw 1x1", 32, 112, 112, 64, 1, 1, 0, 1 },
	};
	printf("  %-24s %14s %14s %14s %9s\n", "conv2d (batch 1)", "nhwc/ohwi", "nchw/oihw",
	       "Sconvgemm", "ratio");
	for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++) {
		const struct conv_bench *c = &convs[i];
		uint32_t oh = (c->h + 2 * c->pad - c->k) / c->stride + 1;
		uint32_t ow = (c->w + 2 * c->pad - c->k) / c->stride + 1;
		double fl = 2.0 * oh * ow * c->oc * (c->c / c->groups) * c->k * c->k;
		double t[2];
		for (int nhwc = 1; nhwc >= 0; nhwc--) {
			struct tg_graph tg;
			struct wnn_diag diag = { 0 };
			tg_init(&tg);
			uint32_t icg = c->c / c->groups;
			uint32_t x = tg_input(&tg, WNN_F32, 4,
					      nhwc ? (uint32_t[]){ 1, c->h, c->w, c->c }
						   : (uint32_t[]){ 1, c->c, c->h, c->w });
			size_t fcount = (size_t)c->oc * icg * c->k * c->k;
			float *fw = malloc(fcount * 4), *bias = malloc(c->oc * 4);
			tg_random(fw, WNN_F32, fcount, 3, -0.1, 0.1);
			tg_random(bias, WNN_F32, c->oc, 4, -0.1, 0.1);
			uint32_t f = tg_constant(&tg, WNN_F32, 4,
						 nhwc ? (uint32_t[]){ c->oc, c->k, c->k, icg }
						      : (uint32_t[]){ c->oc, icg, c->k, c->k },
						 fw);
			uint32_t bb = tg_constant(&tg, WNN_F32, 1, (uint32_t[]){ c->oc }, bias);
			free(fw);
			free(bias);
			Webnn__Ipc__Conv2d m = WEBNN__IPC__CONV2D__INIT;
			uint32_t pad[4] = { c->pad, c->pad, c->pad, c->pad }, st[2] = { c->stride, c->stride };
			m.input = x;
			m.filter = f;
			m.has_bias = 1;
			m.bias = bb;
			m.output = tg_next(&tg);
			m.n_padding = 4;
			m.padding = pad;
			m.n_strides = 2;
			m.strides = st;
			m.has_groups = 1;
			m.groups = c->groups;
			m.has_input_layout = m.has_filter_layout = 1;
			m.input_layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC : WEBNN__IPC__INPUT_LAYOUT__NCHW;
			m.filter_layout = nhwc ? WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI
					       : WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW;
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_CONV2D, &m);
			ASSERT_MSG(tg_op(&tg, &o, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
			const struct backend_graph *g = tg_finish(&tg, &diag);
			ASSERT_MSG(g, "%s", diag.message);
			t[nhwc] = bench_graph(&e, g);
			tg_free(&tg);
		}
		double tc = 0;
		if (c->groups == 1) {
			struct convgemm_args a = { c, bench_buffer(&e, (size_t)c->c * c->h * c->w),
						   bench_buffer(&e, (size_t)c->oc * c->c * c->k * c->k),
						   bench_buffer(&e, (size_t)c->oc * oh * ow) };
			tc = bench_call(&e, raw_convgemm, &a);
			clReleaseMemObject(a.in);
			clReleaseMemObject(a.w);
			clReleaseMemObject(a.out);
		}
		printf("  %-24s %8.1f GF/s %8.1f GF/s %8.1f GF/s", c->name, fl / t[1] / 1e9,
		       fl / t[0] / 1e9, tc ? fl / tc / 1e9 : 0.0);
		if (tc)
			printf(" %7.2fx (nhwc / Sconvgemm)\n", tc / t[1]);
		else
			printf("   (%.3f ms; no CLBlast routine)\n", t[1] * 1e3);
	}
	bench_close(&e);
}
