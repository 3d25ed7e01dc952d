/* End-to-end model test: MobileNetV2 NHWC through libwebnn, OpenCL backend vs reference backend. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/npy.h"
#include "tests/test.h"
#include "webnn.h"

#define MN_SETS 3
#define MN_CLASSES 1001
#define MN_FEATURES 1280
/* stem, 16 blocks, head conv, pooled features */
#define MN_MAX_OUTPUTS 19

/* The README's block table ("MobileNet V2 NHWC graph"): filters, expanded channels C, stride,
 * output channels, residual add, output height = width. */
static const struct mn_block {
	const char *expand, *depthwise, *project;
	uint32_t c, stride, out_c;
	bool residual;
	uint32_t out_hw;
} mn_blocks[16] = {
	{ "Const_165", "Const_99", "Const_73", 96, 2, 24, false, 56 },
	{ "Const_3", "Const_119", "Const_115", 144, 1, 24, true, 56 },
	{ "Const_255", "Const_216", "Const_157", 144, 2, 32, false, 28 },
	{ "Const_227", "Const_221", "Const_193", 192, 1, 32, true, 28 },
	{ "Const_243", "Const_102", "Const_215", 192, 1, 32, true, 28 },
	{ "Const_226", "Const_163", "Const_229", 192, 2, 64, false, 14 },
	{ "Const_104", "Const_254", "Const_143", 384, 1, 64, true, 14 },
	{ "Const_25", "Const_142", "Const_202", 384, 1, 64, true, 14 },
	{ "Const_225", "Const_129", "Const_98", 384, 1, 64, true, 14 },
	{ "Const_169", "Const_2", "Const_246", 384, 1, 96, false, 14 },
	{ "Const_162", "Const_87", "Const_106", 576, 1, 96, true, 14 },
	{ "Const_52", "Const_22", "Const_40", 576, 1, 96, true, 14 },
	{ "Const_114", "Const_65", "Const_242", 576, 2, 160, false, 7 },
	{ "Const_203", "Const_250", "Const_92", 960, 1, 160, true, 7 },
	{ "Const_133", "Const_130", "Const_258", 960, 1, 160, true, 7 },
	{ "Const_60", "Const_248", "Const_100", 960, 1, 320, false, 7 },
};

/* Which outputs the graph has. */
enum mn_mode {
	MN_GRAPH_STAGES,   /* the body, with the stem, every block, the head and the features */
	MN_GRAPH_FEATURES, /* the body with only the pooled features, as an application has it */
	MN_GRAPH_LOGITS,   /* the whole network to softmax (needs Const_222) */
};

/* One graph being built on one daemon, and the operands it will expose as outputs. */
struct mn {
	struct webnn_context *ctx;
	struct webnn_builder *b;
	const char *dir;
	enum mn_mode mode;
	size_t n_outputs;
	struct webnn_named_operand outputs[MN_MAX_OUTPUTS];
	char names[MN_MAX_OUTPUTS][16];
	char what[MN_MAX_OUTPUTS][160]; /* the operations up to this output, for failure messages */
};

#define MN_OK(s, what)                                                                         \
	ASSERT_MSG((s) == WEBNN_STATUS_OK, "%s: %s: %s", what, webnn_status_name(s),           \
		   webnn_context_last_error(z->ctx))

static void mn_expect_shape(const struct webnn_operand *op, const char *what, uint32_t rank,
			    const uint32_t *shape)
{
	struct webnn_operand_desc d;
	webnn_operand_get_desc(op, &d);
	bool same = d.data_type == WEBNN_FLOAT32 && d.rank == rank;
	for (uint32_t i = 0; same && i < rank; i++)
		same = d.shape[i] == shape[i];
	if (!same) {
		char got[96] = "", want[96] = "";
		for (uint32_t i = 0; i < d.rank && i < WEBNN_MAX_RANK; i++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u", i ? "," : "",
				 d.shape[i]);
		for (uint32_t i = 0; i < rank; i++)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%u",
				 i ? "," : "", shape[i]);
		FAIL("%s: shape [%s] (%s), README says [%s] (float32)", what, got,
		     webnn_data_type_name(d.data_type) ? webnn_data_type_name(d.data_type) : "?",
		     want);
	}
}

static struct webnn_operand *mn_weight(struct mn *z, const char *name, uint32_t rank,
				       const uint32_t *shape)
{
	char path[8192], err[9000];
	struct webnn_operand *op;
	snprintf(path, sizeof(path), "%s/weights/%s.npy", z->dir, name);
	ASSERT_MSG(npy_constant(z->ctx, z->b, path, &op, err, sizeof(err)), "%s", err);
	mn_expect_shape(op, name, rank, shape);
	return op;
}

/* conv2d, nhwc, with bias; groups > 1 is the depthwise form (ihwo filter [1,k,k,C]).
 * Padding is the old "same-upper": 1x1 none, 3x3 stride 1 [1,1,1,1], 3x3 stride 2 [0,1,0,1]. */
static struct webnn_operand *mn_conv(struct mn *z, struct webnn_operand *x, const char *filter,
				     const char *bias, uint32_t out_c, uint32_t k, uint32_t stride,
				     uint32_t groups, bool relu6, uint32_t out_hw)
{
	struct webnn_operand_desc in;
	webnn_operand_get_desc(x, &in);
	ASSERT_EQ(in.rank, 4);
	bool dw = groups > 1;
	const uint32_t fshape[4] = { dw ? 1 : out_c, k, k, dw ? out_c : in.shape[3] };
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	struct webnn_operand *y;
	o.input_layout = WEBNN_LAYOUT_NHWC;
	o.filter_layout = dw ? WEBNN_FILTER_IHWO : WEBNN_FILTER_OHWI;
	o.groups = groups;
	o.bias = mn_weight(z, bias, 1, &out_c);
	o.strides[0] = o.strides[1] = stride;
	o.n_strides = 2;
	if (k == 3) {
		o.padding[0] = o.padding[2] = stride == 1 ? 1 : 0;
		o.padding[1] = o.padding[3] = 1;
	}
	o.n_padding = 4;
	struct webnn_operand *w = mn_weight(z, filter, 4, fshape);
	MN_OK(webnn_builder_set_next_label(z->b, filter), "label");
	MN_OK(webnn_builder_conv2d(z->b, x, w, &o, &y), filter);
	const uint32_t oshape[4] = { 1, out_hw, out_hw, out_c };
	mn_expect_shape(y, filter, 4, oshape);
	if (relu6) {
		struct webnn_clamp_options c = WEBNN_CLAMP_OPTIONS_INIT;
		c.has_min_value = c.has_max_value = true;
		c.min_value = 0;
		c.max_value = 6;
		MN_OK(webnn_builder_clamp(z->b, y, &c, &y), "clamp");
		mn_expect_shape(y, "relu6", 4, oshape);
	}
	return y;
}

static void mn_output(struct mn *z, const char *name, struct webnn_operand *op, const char *what)
{
	ASSERT(z->n_outputs < MN_MAX_OUTPUTS);
	size_t i = z->n_outputs++;
	snprintf(z->names[i], sizeof(z->names[i]), "%s", name);
	snprintf(z->what[i], sizeof(z->what[i]), "%s", what);
	z->outputs[i] = (struct webnn_named_operand){ z->names[i], op };
}

/* shared/models/README.md, "MobileNet V2 NHWC graph". MN_GRAPH_STAGES exposes every block's
 * result as an output too, so a disagreement names the first block that goes wrong. */
static void mn_graph(struct mn *z)
{
	static const uint32_t ishape[4] = { 1, 224, 224, 3 };
	struct webnn_operand_desc id = { WEBNN_FLOAT32, 4, { 1, 224, 224, 3 } };
	struct webnn_operand *x;
	MN_OK(webnn_builder_input(z->b, "input", &id, &x), "input");
	mn_expect_shape(x, "input", 4, ishape);

	x = mn_conv(z, x, "Const_90", "MobilenetV2_Conv_Conv2D_bias", 32, 3, 2, 1, true, 112);
	x = mn_conv(z, x, "Const_238", "MobilenetV2_expanded_conv_depthwise_depthwise_bias", 32, 3,
		    1, 32, true, 112);
	x = mn_conv(z, x, "Const_167", "MobilenetV2_expanded_conv_project_Conv2D_bias", 16, 1, 1,
		    1, false, 112);
	if (z->mode == MN_GRAPH_STAGES)
		mn_output(z, "stem", x,
			  "stem: conv 3x3/2 pad [0,1,0,1] to 32 + relu6, depthwise 3x3 groups 32 + "
			  "relu6, conv 1x1 to 16 -> [1,112,112,16]");
	uint32_t hw = 112;
	for (int i = 0; i < 16; i++) {
		const struct mn_block *k = &mn_blocks[i];
		char eb[96], db[96], pb[96], name[24], what[160];
		snprintf(eb, sizeof(eb), "MobilenetV2_expanded_conv_%d_expand_Conv2D_bias", i + 1);
		snprintf(db, sizeof(db), "MobilenetV2_expanded_conv_%d_depthwise_depthwise_bias",
			 i + 1);
		snprintf(pb, sizeof(pb), "MobilenetV2_expanded_conv_%d_project_Conv2D_bias", i + 1);
		struct webnn_operand *a = mn_conv(z, x, k->expand, eb, k->c, 1, 1, 1, true, hw);
		a = mn_conv(z, a, k->depthwise, db, k->c, 3, k->stride, k->c, true, k->out_hw);
		a = mn_conv(z, a, k->project, pb, k->out_c, 1, 1, 1, false, k->out_hw);
		if (k->residual) {
			MN_OK(webnn_builder_add(z->b, x, a, &a), "add");
			const uint32_t s[4] = { 1, k->out_hw, k->out_hw, k->out_c };
			mn_expect_shape(a, "residual add", 4, s);
		}
		hw = k->out_hw;
		x = a;
		if (z->mode == MN_GRAPH_STAGES) {
			snprintf(name, sizeof(name), "block%d", i);
			const char *pad = k->stride == 1 ? "[1,1,1,1]" : "[0,1,0,1]";
			snprintf(what, sizeof(what),
				 "block %d: expand 1x1 to %u + relu6, depthwise 3x3 (ihwo, "
				 "groups %u) stride %u pad %s + relu6, project 1x1 to %u%s -> "
				 "[1,%u,%u,%u]",
				 i, k->c, k->c, k->stride, pad, k->out_c,
				 k->residual ? ", residual add" : "", k->out_hw, k->out_hw,
				 k->out_c);
			mn_output(z, name, x, what);
		}
	}
	x = mn_conv(z, x, "Const_71", "MobilenetV2_Conv_1_Conv2D_bias", MN_FEATURES, 1, 1, 1, true,
		    7);
	if (z->mode == MN_GRAPH_STAGES)
		mn_output(z, "head", x, "head: conv 1x1 320 to 1280 + relu6 -> [1,7,7,1280]");

	struct webnn_pool2d_options po = WEBNN_POOL2D_OPTIONS_INIT;
	po.window_dimensions[0] = po.window_dimensions[1] = 7;
	po.n_window_dimensions = 2;
	po.layout = WEBNN_LAYOUT_NHWC;
	MN_OK(webnn_builder_average_pool2d(z->b, x, &po, &x), "averagePool2d");
	static const uint32_t pooled[4] = { 1, 1, 1, MN_FEATURES };
	mn_expect_shape(x, "averagePool2d", 4, pooled);
	if (z->mode != MN_GRAPH_LOGITS) {
		mn_output(z, "features", x, "averagePool2d 7x7 nhwc -> [1,1,1,1280]");
		return;
	}

	x = mn_conv(z, x, "Const_222", "MobilenetV2_Logits_Conv2d_1c_1x1_Conv2D_bias", MN_CLASSES,
		    1, 1, 1, false, 1);
	static const uint32_t flat[2] = { 1, MN_CLASSES };
	MN_OK(webnn_builder_reshape(z->b, x, flat, 2, &x), "reshape");
	mn_expect_shape(x, "reshape", 2, flat);
	MN_OK(webnn_builder_softmax(z->b, x, 1, &x), "softmax");
	mn_expect_shape(x, "softmax", 2, flat);
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

/* Builds the graph on a fresh webnnd started with the given --backend (NULL: its default,
 * which must turn out to be opencl) and runs the inputs through it. */
static void mn_run(const char *dir, const char *backend, enum mn_mode mode,
		   struct npy_array in[MN_SETS], struct mn_result *r)
{
	const char *const args[] = { "--backend", backend, NULL };
	struct mn zz = { .dir = dir, .mode = mode }, *z = &zz;
	struct test_daemon d;
	test_daemon_start(&d, backend ? args : NULL);
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	char err[512] = "";
	co.socket_path = d.socket_path;
	enum webnn_status s = webnn_context_create(&co, &z->ctx, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "context: %s: %s", webnn_status_name(s), err);
	struct webnn_context_info info;
	webnn_context_get_info(z->ctx, &info);
	const char *want = backend ? backend : "opencl";
	if (!info.backend || strcmp(info.backend, want) != 0) {
		webnn_context_destroy(z->ctx);
		test_daemon_stop(&d);
		SKIP("webnnd started for the %s backend runs '%s' (no usable OpenCL device, or "
		     "$WEBNN_BACKEND set)",
		     want, info.backend ? info.backend : "?");
	}

	MN_OK(webnn_builder_create(z->ctx, &z->b), "builder");
	mn_graph(z);
	struct webnn_graph *g;
	MN_OK(webnn_builder_build(z->b, z->outputs, z->n_outputs, &g), "build");
	r->compile_ms = webnn_graph_compile_ms(g);

	struct webnn_tensor_desc tin = { { WEBNN_FLOAT32, 4, { 1, 224, 224, 3 } }, false, true };
	struct webnn_tensor *ti, *to[MN_MAX_OUTPUTS];
	struct webnn_named_tensor bo[MN_MAX_OUTPUTS];
	MN_OK(webnn_context_create_tensor(z->ctx, &tin, &ti), "input tensor");
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
		MN_OK(webnn_context_create_tensor(z->ctx, &td, &to[i]), z->names[i]);
		bo[i] = (struct webnn_named_tensor){ r->names[i], to[i] };
	}
	webnn_builder_destroy(z->b);

	for (int k = 0; k < MN_SETS; k++) {
		struct webnn_named_tensor bi = { "input", ti };
		double t0 = mn_now_ms();
		size_t bytes = in[k].count * sizeof(float);
		MN_OK(webnn_context_write_tensor(z->ctx, ti, in[k].data, bytes), "write");
		MN_OK(webnn_context_dispatch(z->ctx, g, &bi, 1, bo, r->n), "dispatch");
		for (size_t i = 0; i < r->n; i++) {
			r->data[k][i] = malloc(r->count[i] * sizeof(float));
			ASSERT(r->data[k][i]);
			MN_OK(webnn_context_read_tensor(z->ctx, to[i], r->data[k][i],
							r->count[i] * sizeof(float)),
			      r->names[i]);
		}
		r->dispatch_ms[k] = mn_now_ms() - t0;
	}
	webnn_tensor_destroy(ti);
	for (size_t i = 0; i < r->n; i++)
		webnn_tensor_destroy(to[i]);
	webnn_graph_destroy(g);
	webnn_context_destroy(z->ctx);
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

TEST_TIMEOUT(mobilenetv2_body_opencl_vs_reference, 900)
{
	char dir[4096];
	struct npy_array in[MN_SETS];
	mn_setup(dir, sizeof(dir), in);
	static struct mn_result ocl, ocl_only, ref;
	mn_run(dir, NULL, MN_GRAPH_STAGES, in, &ocl);
	mn_run(dir, NULL, MN_GRAPH_FEATURES, in, &ocl_only);
	mn_run(dir, "reference", MN_GRAPH_STAGES, in, &ref);
	ASSERT_EQ(ocl.n, ref.n);
	ASSERT_EQ(ocl_only.n, 1);
	ASSERT_STREQ(ocl.names[ocl.n - 1], "features");
	printf("  compile: opencl %.0f ms (features only: %.0f ms), reference %.0f ms\n",
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
				   "test_data_set/%d: OpenCL and reference disagree first at "
				   "output '%s' (%s): element [0,%ld,%ld,%ld] = %.7g, reference "
				   "%.7g (max |diff| there %.3g)",
				   k, ocl.names[i], ocl.what[i], bad / c / w, bad / c % w, bad % c,
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
			   "test_data_set/%d: the OpenCL graph with only the features output "
			   "disagrees with the reference (the one with every stage as output "
			   "agrees): feature %ld = %.7g, reference %.7g",
			   k, bad, ocl_only.data[k][0][bad], rf[bad]);
		double mf, df = mn_compare(ocl.data[k][ocl.n - 1], rf, MN_FEATURES, &mf, &bad);
		printf("  test_data_set/%d: features max |diff| %.3g (%.1f%% of tolerance; worst "
		       "of all %zu outputs %.1f%% at %s; features-only graph %.3g); "
		       "dispatch+read opencl %.0f ms (features only %.0f ms), reference %.0f ms\n",
		       k, df, 100 * mf, ocl.n, 100 * worst, worst_at, dof, ocl.dispatch_ms[k],
		       ocl_only.dispatch_ms[k], ref.dispatch_ms[k]);
	}
	mn_result_free(&ocl);
	mn_result_free(&ocl_only);
	mn_result_free(&ref);
	for (int k = 0; k < MN_SETS; k++)
		npy_free(&in[k]);
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
			     "mobilenetv2_body_opencl_vs_reference",
			     path);
	}
	struct npy_array in[MN_SETS];
	mn_setup(dir, sizeof(dir), in);
	static struct mn_result r[2];
	const char *backends[2] = { NULL, "reference" };
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
			const char *name = backends[v] ? backends[v] : "opencl";
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
