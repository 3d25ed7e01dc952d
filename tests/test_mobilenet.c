/* End-to-end model test: MobileNetV2 NHWC through libwebnn, OpenCL backend vs reference backend. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/models.h"
#include "tests/npy.h"
#include "tests/test.h"
#include "webnn.h"

#define MN_SETS 3
#define MN_CLASSES MODEL_CLASSES
#define MN_FEATURES MODEL_MOBILENETV2_FEATURES
/* stem, 16 blocks, head conv, pooled features */
#define MN_MAX_OUTPUTS 19

/* Which outputs the graph has. */
enum mn_mode {
	MN_GRAPH_STAGES,   /* the body, with the stem, every block, the head and the features */
	MN_GRAPH_FEATURES, /* the body with only the pooled features, as an application has it */
	MN_GRAPH_LOGITS,   /* the whole network to softmax (needs Const_222) */
};

/* One graph being built on one daemon, and the operands it will expose as outputs. */
struct mn {
	struct model m; /* first: the stage callback gets it back as a struct mn */
	enum mn_mode mode;
	size_t n_outputs;
	struct webnn_named_operand outputs[MN_MAX_OUTPUTS];
	char names[MN_MAX_OUTPUTS][16];
	char what[MN_MAX_OUTPUTS][160]; /* the operations up to this output, for failure messages */
};

#define MN_OK(s, what) MODEL_OK(z->m.ctx, s, what)

static void mn_output(struct mn *z, const char *name, struct webnn_operand *op, const char *what)
{
	ASSERT(z->n_outputs < MN_MAX_OUTPUTS);
	size_t i = z->n_outputs++;
	snprintf(z->names[i], sizeof(z->names[i]), "%s", name);
	snprintf(z->what[i], sizeof(z->what[i]), "%s", what);
	z->outputs[i] = (struct webnn_named_operand){ z->names[i], op };
}

static void mn_stage(struct model *m, const char *name, struct webnn_operand *op, const char *what)
{
	mn_output((struct mn *)m, name, op, what);
}

/* shared/models/README.md, "MobileNet V2 NHWC graph". MN_GRAPH_STAGES exposes every block's
 * result as an output too, so a disagreement names the first block that goes wrong. */
static void mn_graph(struct mn *z)
{
	struct webnn_operand_desc id = { WEBNN_FLOAT32, 4, { 1, 224, 224, 3 } };
	struct webnn_operand *x;
	MN_OK(webnn_builder_input(z->m.b, "input", &id, &x), "input");
	z->m.stage = z->mode == MN_GRAPH_STAGES ? mn_stage : NULL;
	x = model_mobilenetv2_body(&z->m, x);
	if (z->mode != MN_GRAPH_LOGITS) {
		mn_output(z, "features", x, "averagePool2d 7x7 nhwc -> [1,1,1,1280]");
		return;
	}

	x = model_mobilenetv2_conv(&z->m, x, "Const_222",
				   "MobilenetV2_Logits_Conv2d_1c_1x1_Conv2D_bias", MN_CLASSES, 1, 1,
				   1, false, 1);
	static const uint32_t flat[2] = { 1, MN_CLASSES };
	MN_OK(webnn_builder_reshape(z->m.b, x, flat, 2, &x), "reshape");
	model_expect_shape(x, "reshape", 2, flat);
	MN_OK(webnn_builder_softmax(z->m.b, x, 1, &x), "softmax");
	model_expect_shape(x, "softmax", 2, flat);
	mn_output(z, "output", x, "logits conv 1x1 to 1001, reshape [1,1001], softmax axis 1");
}

/* What one backend computed for the three test_data_set inputs. */
struct mn_result {
	size_t n;
	char names[MN_MAX_OUTPUTS][16];
	char what[MN_MAX_OUTPUTS][160];
	size_t count[MN_MAX_OUTPUTS];
	uint32_t channels[MN_MAX_OUTPUTS], width[MN_MAX_OUTPUTS]; /* of the nhwc outputs */
	float *data[MN_SETS][MN_MAX_OUTPUTS];
	double compile_ms, dispatch_ms[MN_SETS];
};

static double mn_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Builds the graph on a fresh webnnd started with the given --backend and runs the inputs
 * through it. */
static void mn_run(const char *dir, const char *backend, enum mn_mode mode,
		   struct npy_array in[MN_SETS], struct mn_result *r)
{
	const char *const args[] = { "--backend", backend, NULL };
	struct mn zz = { .m.dir = dir, .mode = mode }, *z = &zz;
	struct test_daemon d;
	test_daemon_start(&d, args);
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	char err[512] = "";
	co.socket_path = d.socket_path;
	enum webnn_status s = webnn_context_create(&co, &z->m.ctx, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "context: %s: %s", webnn_status_name(s), err);
	struct webnn_context_info info;
	webnn_context_get_info(z->m.ctx, &info);
	const char *want = backend;
	if (!info.backend || strcmp(info.backend, want) != 0) {
		webnn_context_destroy(z->m.ctx);
		test_daemon_stop(&d);
		SKIP("webnnd started for the %s backend runs '%s'",
		     want, info.backend ? info.backend : "?");
	}

	MN_OK(webnn_builder_create(z->m.ctx, &z->m.b), "builder");
	mn_graph(z);
	struct webnn_graph *g;
	MN_OK(webnn_builder_build(z->m.b, z->outputs, z->n_outputs, &g), "build");
	r->compile_ms = webnn_graph_compile_ms(g);

	struct webnn_tensor_desc tin = { { WEBNN_FLOAT32, 4, { 1, 224, 224, 3 } }, false, true };
	struct webnn_tensor *ti, *to[MN_MAX_OUTPUTS];
	struct webnn_named_tensor bo[MN_MAX_OUTPUTS];
	MN_OK(webnn_context_create_tensor(z->m.ctx, &tin, &ti), "input tensor");
	r->n = z->n_outputs;
	for (size_t i = 0; i < r->n; i++) {
		struct webnn_tensor_desc td = { .readable = true };
		webnn_operand_get_desc(z->outputs[i].operand, &td.desc);
		r->count[i] = 1;
		for (uint32_t a = 0; a < td.desc.rank; a++)
			r->count[i] *= td.desc.shape[a];
		r->width[i] = td.desc.rank == 4 ? td.desc.shape[2] : 1;
		r->channels[i] = td.desc.shape[td.desc.rank - 1];
		memcpy(r->names[i], z->names[i], sizeof(r->names[i]));
		memcpy(r->what[i], z->what[i], sizeof(r->what[i]));
		MN_OK(webnn_context_create_tensor(z->m.ctx, &td, &to[i]), z->names[i]);
		bo[i] = (struct webnn_named_tensor){ r->names[i], to[i] };
	}
	webnn_builder_destroy(z->m.b);

	for (int k = 0; k < MN_SETS; k++) {
		struct webnn_named_tensor bi = { "input", ti };
		double t0 = mn_now_ms();
		size_t bytes = in[k].count * sizeof(float);
		MN_OK(webnn_context_write_tensor(z->m.ctx, ti, in[k].data, bytes), "write");
		MN_OK(webnn_context_dispatch(z->m.ctx, g, &bi, 1, bo, r->n), "dispatch");
		for (size_t i = 0; i < r->n; i++) {
			r->data[k][i] = malloc(r->count[i] * sizeof(float));
			ASSERT(r->data[k][i]);
			MN_OK(webnn_context_read_tensor(z->m.ctx, to[i], r->data[k][i],
							r->count[i] * sizeof(float)),
			      r->names[i]);
		}
		r->dispatch_ms[k] = mn_now_ms() - t0;
	}
	webnn_tensor_destroy(ti);
	for (size_t i = 0; i < r->n; i++)
		webnn_tensor_destroy(to[i]);
	webnn_graph_destroy(g);
	webnn_context_destroy(z->m.ctx);
	test_daemon_stop(&d);
}

static void mn_result_free(struct mn_result *r)
{
	for (int k = 0; k < MN_SETS; k++)
		for (size_t i = 0; i < r->n; i++)
			free(r->data[k][i]);
}

/* The model folder and its three inputs; SKIPs when ../shared or OpenCL is missing. */
static void mn_setup(char *dir, size_t len, struct npy_array in[MN_SETS])
{
	const char *shared = test_shared_dir();
	if (!shared)
		SKIP("../shared (or $WEBNN_SHARED) is absent: no MobileNetV2 weights");
	if (!test_have_opencl())
		SKIP("no OpenCL platform");
	snprintf(dir, len, "%s/models/mobilenetv2_nhwc", shared);
	for (int k = 0; k < MN_SETS; k++) {
		char path[8192], err[9000];
		snprintf(path, sizeof(path), "%s/test_data_set/%d/input_0.npy", dir, k);
		ASSERT_MSG(npy_load_f32(path, &in[k], err, sizeof(err)), "%s", err);
		ASSERT_EQ(in[k].rank, 4);
		ASSERT_EQ(in[k].count, 224 * 224 * 3);
	}
}

/* |a - e| <= 1e-3 + 1e-3 * |e| over n values: the largest |a - e|, the largest share of the
 * tolerance used (in *margin, 1 = at the limit) and the first index out of tolerance in *bad
 * (-1: none). */
static double mn_compare(const float *a, const float *e, size_t n, double *margin, long *bad)
{
	double maxd = 0, maxm = 0;
	*bad = -1;
	for (size_t i = 0; i < n; i++) {
		double diff = fabs((double)a[i] - e[i]), tol = 1e-3 + 1e-3 * fabs(e[i]);
		if (!(diff <= tol) && *bad < 0)
			*bad = (long)i;
		maxd = diff > maxd || isnan(diff) ? diff : maxd;
		maxm = diff / tol > maxm || isnan(diff) ? diff / tol : maxm;
	}
	*margin = maxm;
	return maxd;
}

/* The body on a product backend, every stage checked against the reference backend. */
static void mn_body_vs_reference(const char *backend, const char *label)
{
	char dir[4096];
	struct npy_array in[MN_SETS];
	mn_setup(dir, sizeof(dir), in);
	static struct mn_result ocl, ocl_only, ref;
	mn_run(dir, backend, MN_GRAPH_STAGES, in, &ocl);
	mn_run(dir, backend, MN_GRAPH_FEATURES, in, &ocl_only);
	mn_run(dir, "reference", MN_GRAPH_STAGES, in, &ref);
	ASSERT_EQ(ocl.n, ref.n);
	ASSERT_EQ(ocl_only.n, 1);
	ASSERT_STREQ(ocl.names[ocl.n - 1], "features");
	printf("  compile: %s %.0f ms (features only: %.0f ms), reference %.0f ms\n", backend,
	       ocl.compile_ms, ocl_only.compile_ms, ref.compile_ms);

	/* Every output is checked so a failure names the first diverging stage, not just the
	 * pooled features. */
	for (int k = 0; k < MN_SETS; k++) {
		double worst = 0;
		const char *worst_at = "";
		for (size_t i = 0; i < ocl.n; i++) {
			long bad;
			double m, d = mn_compare(ocl.data[k][i], ref.data[k][i], ocl.count[i], &m,
						 &bad);
			uint32_t c = ocl.channels[i], w = ocl.width[i];
			ASSERT_MSG(bad < 0,
				   "test_data_set/%d: %s and reference disagree first at "
				   "output '%s' (%s): element [0,%ld,%ld,%ld] = %.7g, reference "
				   "%.7g (max |diff| there %.3g)",
				   k, label, ocl.names[i], ocl.what[i], bad / c / w, bad / c % w, bad % c,
				   ocl.data[k][i][bad], ref.data[k][i][bad], d);
			if (m >= worst) {
				worst = m;
				worst_at = ocl.names[i];
			}
		}
		/* The graph without the extra outputs may be planned differently (fusion, buffer
		 * reuse): it must agree too. */
		long bad;
		const float *rf = ref.data[k][ref.n - 1];
		double mo, dof = mn_compare(ocl_only.data[k][0], rf, MN_FEATURES, &mo, &bad);
		ASSERT_MSG(bad < 0,
			   "test_data_set/%d: the %s graph with only the features output "
			   "disagrees with the reference (the one with every stage as output "
			   "agrees): feature %ld = %.7g, reference %.7g",
			   k, label, bad, ocl_only.data[k][0][bad], rf[bad]);
		double mf, df = mn_compare(ocl.data[k][ocl.n - 1], rf, MN_FEATURES, &mf, &bad);
		printf("  test_data_set/%d: features max |diff| %.3g (%.1f%% of tolerance; worst "
		       "of all %zu outputs %.1f%% at %s; features-only graph %.3g); "
		       "dispatch+read %s %.0f ms (features only %.0f ms), reference %.0f ms\n",
		       k, df, 100 * mf, ocl.n, 100 * worst, worst_at, dof, backend, ocl.dispatch_ms[k],
		       ocl_only.dispatch_ms[k], ref.dispatch_ms[k]);
	}
	mn_result_free(&ocl);
	mn_result_free(&ocl_only);
	mn_result_free(&ref);
	for (int k = 0; k < MN_SETS; k++)
		npy_free(&in[k]);
}

TEST_TIMEOUT(mobilenetv2_body_cpu_vs_reference, 900)
{
	mn_body_vs_reference("cpu", "cpu (oneDNN)");
}

TEST_TIMEOUT(mobilenetv2_body_opencl_vs_reference, 900)
{
	if (!test_have_opencl())
		SKIP("no OpenCL device");
	mn_body_vs_reference("opencl", "OpenCL");
}

TEST_TIMEOUT(mobilenetv2_reference_outputs, 900)
{
	char dir[4096], path[8192];
	const char *shared = test_shared_dir();
	if (shared) {
		struct stat st;
		snprintf(path, sizeof(path), "%s/models/mobilenetv2_nhwc/weights/Const_222.npy",
			 shared);
		if (stat(path, &st) != 0)
			SKIP("%s is missing (the logits weights, float32 [1001,1,1,1280]): "
			     "MobileNetV2 runs only to the pooled features, see "
			     "mobilenetv2_body_*_vs_reference",
			     path);
	}
	struct npy_array in[MN_SETS];
	mn_setup(dir, sizeof(dir), in);
	static struct mn_result r[2];
	const char *backends[2] = { "cpu", "reference" };
	for (int v = 0; v < 2; v++) {
		mn_run(dir, backends[v], MN_GRAPH_LOGITS, in, &r[v]);
		ASSERT_EQ(r[v].n, 1);
		ASSERT_EQ(r[v].count[0], MN_CLASSES);
	}
	for (int k = 0; k < MN_SETS; k++) {
		char err[9000];
		struct npy_array e;
		snprintf(path, sizeof(path), "%s/test_data_set/%d/output_0.npy", dir, k);
		ASSERT_MSG(npy_load_f32(path, &e, err, sizeof(err)), "%s", err);
		ASSERT_EQ(e.count, MN_CLASSES);
		for (int v = 0; v < 2; v++) {
			const char *name = backends[v];
			long bad;
			double m;
			double d = mn_compare(r[v].data[k][0], e.data, MN_CLASSES, &m, &bad);
			ASSERT_MSG(bad < 0,
				   "test_data_set/%d: %s output[%ld] = %.7g, expected %.7g", k,
				   name, bad, r[v].data[k][0][bad], e.data[bad]);
			printf("  test_data_set/%d: %s max |diff| %.3g (%.1f%% of tolerance; "
			       "dispatch+read %.0f ms)\n",
			       k, name, d, 100 * m, r[v].dispatch_ms[k]);
		}
		npy_free(&e);
	}
	mn_result_free(&r[0]);
	mn_result_free(&r[1]);
	for (int k = 0; k < MN_SETS; k++)
		npy_free(&in[k]);
}
