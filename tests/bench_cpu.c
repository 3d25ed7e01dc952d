/* make bench: models on the cpu and opencl backends vs onnxruntime, ops vs FMA peak, cold start. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/bench_common.h"
#include "tests/models.h"
#include "tests/npy.h"
#include "tests/test.h"
#include "webnn.h"

#define BC_WARM 2 /* untimed rounds of one dispatch each before the first */
#define BC_INNER 5 /* dispatches per model sample (their mean) */
#define BC_SLOW 0.2 /* seconds: a model dispatch this slow is sampled once per round */

/* ------------------------------------------------------------------ the FMA peak */

/* bench/peak_flops.c ($WEBNN_BUILD/bin/peak_flops) serving samples; false when it is absent. */
static bool bc_peak_start(struct bc_child *p, char *why, size_t why_len)
{
	char bin[4200];
	snprintf(bin, sizeof bin, "%s/bin/peak_flops", test_build_dir());
	const char *const argv[] = { bin, "serve", NULL };
	return bc_child_start(p, argv, why, why_len);
}

/* GFLOP/s of one FMA sample of ms milliseconds on threads threads; NAN on failure. */
static double bc_peak_sample(struct bc_child *p, int threads, int ms)
{
	char reply[128];
	if (!bc_child_cmd(p, reply, sizeof reply, "%d %d", threads, ms) || reply[0] != 'g')
		return NAN;
	return atof(reply + 1);
}

/* ------------------------------------------------------------------ whole models */

typedef struct webnn_operand *(*bc_graph_fn)(struct model *m, struct webnn_operand *x);

static const struct bc_model {
	const char *label, *dir, *ort_kind;
	bc_graph_fn build;
	uint32_t out_count, out_rank, out_shape[4];
	bool has_reference; /* test_data_set/0/output_0.npy is this graph's output */
} bc_models[] = {
	{ "SqueezeNet 1.0 (nhwc, to softmax)",
	  "squeezenet1.0_nhwc",
	  "squeezenet",
	  model_squeezenet,
	  MODEL_CLASSES,
	  2,
	  { 1, MODEL_CLASSES },
	  true },
	{ "MobileNetV2 body (to 1280 pooled)",
	  "mobilenetv2_nhwc",
	  "mobilenetv2",
	  model_mobilenetv2_body,
	  MODEL_MOBILENETV2_FEATURES,
	  4,
	  { 1, 1, 1, MODEL_MOBILENETV2_FEATURES },
	  false },
};
#define BC_N_MODELS (sizeof bc_models / sizeof bc_models[0])

/* The contenders: the daemon on the cpu and opencl backends, another build's webnnd on the cpu backend ($WEBNN_BENCH_PREVIOUS) and onnxruntime at its best: 1 and
 * 2 intra-op threads, each model in a process of its own (a second session's pool in the same
 * process would spin on the cores the timed one needs), the ratios against the faster. */
enum { BV_CPU, BV_OCL, BV_PREV, BV_ORT1, BV_ORT2, BV_MAX };
#define BV_IS_ORT(v) ((v) >= BV_ORT1)
static const char *const bv_names[BV_MAX] = { "daemon cpu", "daemon opencl",
					      "previous build (cpu)", "onnxruntime 1 thread",
					      "onnxruntime 2 threads" };
#define BC_SPORADIC_CALLS 15
#define BC_SPORADIC_GAP_US 50000 /* a camera or voice loop's call every 50 ms */

/* One model graph on one daemon, its tensors, output and samples. */
struct bc_slot {
	struct webnn_graph *g;
	struct webnn_tensor *ti, *to;
	float *out;
	double compile_ms;
	int inner; /* dispatches per sample */
	double t[BC_MAX_ROUNDS];
};

static void bc_slot_open(struct bc_slot *s, struct webnn_context *ctx, const struct bc_model *bm,
			 const char *dir, const struct npy_array *in)
{
	struct model z = { .ctx = ctx, .dir = dir };
	MODEL_OK(ctx, webnn_builder_create(ctx, &z.b), "builder");
	struct webnn_operand_desc id = { WEBNN_FLOAT32, 4, { 1, 224, 224, 3 } };
	struct webnn_operand *x;
	MODEL_OK(ctx, webnn_builder_input(z.b, "input", &id, &x), "input");
	struct webnn_named_operand named = { "output", bm->build(&z, x) };
	MODEL_OK(ctx, webnn_builder_build(z.b, &named, 1, &s->g), bm->label);
	webnn_builder_destroy(z.b);
	s->compile_ms = webnn_graph_compile_ms(s->g);
	struct webnn_tensor_desc tin = { { WEBNN_FLOAT32, 4, { 1, 224, 224, 3 } }, false, true };
	struct webnn_tensor_desc tout = { { WEBNN_FLOAT32, bm->out_rank, { 0 } }, true, false };
	memcpy(tout.desc.shape, bm->out_shape, bm->out_rank * sizeof(uint32_t));
	MODEL_OK(ctx, webnn_context_create_tensor(ctx, &tin, &s->ti), "input tensor");
	MODEL_OK(ctx, webnn_context_create_tensor(ctx, &tout, &s->to), "output tensor");
	MODEL_OK(ctx, webnn_context_write_tensor(ctx, s->ti, in->data, in->count * sizeof(float)),
		 "write");
	s->out = calloc(bm->out_count, sizeof(float));
	ASSERT(s->out);
}

/* Mean seconds of n dispatches, each with the read of its output (which waits for it). */
static double bc_slot_run(struct bc_slot *s, struct webnn_context *ctx, uint32_t out_count, int n)
{
	struct webnn_named_tensor bi = { "input", s->ti }, bo = { "output", s->to };
	double t0 = bc_now();
	for (int i = 0; i < n; i++) {
		MODEL_OK(ctx, webnn_context_dispatch(ctx, s->g, &bi, 1, &bo, 1), "dispatch");
		MODEL_OK(ctx,
			 webnn_context_read_tensor(ctx, s->to, s->out, out_count * sizeof(float)),
			 "read");
	}
	return (bc_now() - t0) / n;
}

static void bc_slot_close(struct bc_slot *s)
{
	webnn_tensor_destroy(s->ti);
	webnn_tensor_destroy(s->to);
	webnn_graph_destroy(s->g);
	free(s->out);
}

/* Largest |a - b| over n, and whether all are within the model tests' 1e-3 + 1e-3 |a|. */
static bool bc_agree(const float *a, const float *b, uint32_t n, double *maxd)
{
	bool ok = true;
	*maxd = 0;
	for (uint32_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - b[i]);
		ok = ok && d <= 1e-3 + 1e-3 * fabs(a[i]);
		*maxd = d > *maxd ? d : *maxd;
	}
	return ok;
}

/* SqueezeNet and the MobileNetV2 body, steady-state dispatch + read, on every contender above,
 * all started side by side and run round robin; every result must agree with onnxruntime's
 * (else with the cpu backend's) and SqueezeNet's with the reference output. */
TEST_TIMEOUT(bench_models, 600)
{
	const char *shared = test_shared_dir();
	if (!shared)
		SKIP("../shared (or $WEBNN_SHARED) is absent: no model weights");
	static struct bc_daemon dm[BV_MAX];
	static struct bc_slot slot[BC_N_MODELS][BV_MAX];
	static struct npy_array in[BC_N_MODELS];
	static char dirs[BC_N_MODELS][4200];
	bool on[BV_MAX] = { 0 };
	char why[BV_MAX][600] = { "" }, err[600];
	int rounds = bc_rounds();

	for (size_t m = 0; m < BC_N_MODELS; m++) {
		char path[8800];
		snprintf(dirs[m], sizeof dirs[m], "%s/models/%s", shared, bc_models[m].dir);
		snprintf(path, sizeof path, "%s/test_data_set/0/input_0.npy", dirs[m]);
		if (!npy_load_f32(path, &in[m], err, sizeof err))
			SKIP("%s: %s", bc_models[m].dir, err);
	}
	const char *prev = getenv("WEBNN_BENCH_PREVIOUS");
	on[BV_CPU] = bc_daemon_start(&dm[BV_CPU], NULL, "cpu", NULL, why[BV_CPU], 600);
	on[BV_OCL] = bc_daemon_start(&dm[BV_OCL], NULL, "opencl", NULL, why[BV_OCL], 600);
	if (prev && *prev)
		on[BV_PREV] = bc_daemon_start(&dm[BV_PREV], prev, "cpu", NULL, why[BV_PREV], 600);
	else
		bc_fmt(why[BV_PREV], 600, "set WEBNN_BENCH_PREVIOUS to another build's webnnd");
	static struct bc_child ort[BC_N_MODELS][2];
	double ort_create[BC_N_MODELS][2] = { { 0 } };
	on[BV_ORT1] = on[BV_ORT2] = true;
	for (size_t m = 0; m < BC_N_MODELS; m++)
		for (int k = 0; k < 2 && on[BV_ORT1 + k]; k++)
			if (!bc_ort_start(&ort[m][k], k + 1, why[BV_ORT1 + k], 600))
				on[BV_ORT1 + k] = false;
	for (size_t m = 0; m < BC_N_MODELS; m++) {
		for (int v = 0; v < BV_ORT1; v++)
			if (on[v])
				bc_slot_open(&slot[m][v], dm[v].ctx, &bc_models[m], dirs[m],
					     &in[m]);
		for (int k = 0; k < 2; k++) {
			char reply[500];
			if (!on[BV_ORT1 + k])
				continue;
			if (bc_child_cmd(&ort[m][k], reply, sizeof reply, "load %s %s %s",
					 bc_models[m].ort_kind, bc_models[m].ort_kind, dirs[m]))
				ort_create[m][k] = atof(reply + 3);
			else {
				bc_fmt(why[BV_ORT1 + k], 600, "%s: %s", bc_models[m].ort_kind,
				       reply);
				on[BV_ORT1 + k] = false;
			}
		}
	}
	/* each model's onnxruntime processes are stopped but during their own turns */
	for (size_t m = 0; m < BC_N_MODELS; m++)
		for (int k = 0; k < 2; k++)
			bc_pause(ort[m][k].pid);
	int order[BV_MAX], nv = 0;
	for (int v = 0; v < BV_MAX; v++)
		if (on[v])
			order[nv++] = v;
	ASSERT_MSG(nv > 0, "no daemon came up: cpu: %s; opencl: %s", why[BV_CPU], why[BV_OCL]);

	/* a sample is BC_INNER dispatches, fewer for a contender slower than BC_SLOW a dispatch;
	 * rounds stop early (after 3) once the bench has taken its budget */
	double t0 = bc_now(), budget = bc_budget(), load0 = test_load_average();
	int done = 0;
	for (int k = 0; k < nv; k++)
		if (!BV_IS_ORT(order[k]))
			bc_pause(dm[order[k]].pid);
	for (int r = -BC_WARM; r < rounds; r++) {
		if (r >= 3 && bc_now() - t0 > budget)
			break;
		for (size_t m = 0; m < BC_N_MODELS; m++)
			for (int k = 0; k < nv; k++) {
				int v = order[(k + (r < 0 ? 0 : r)) % nv];
				struct bc_slot *s = &slot[m][v];
				int n = r < 0 ? 1 : s->inner;
				struct bc_child *o = BV_IS_ORT(v) ? &ort[m][v - BV_ORT1] : NULL;
				pid_t pid = o ? o->pid : dm[v].pid;
				bc_resume(pid);
				double t = o ? bc_ort_run(o, bc_models[m].ort_kind, n)
					     : bc_slot_run(s, dm[v].ctx, bc_models[m].out_count, n);
				bc_pause(pid);
				ASSERT_MSG(!isnan(t), "onnxruntime failed on %s",
					   bc_models[m].label);
				if (r >= 0)
					s->t[r] = t;
				else
					s->inner = t > BC_SLOW ? 1 : BC_INNER;
			}
		done = r + 1;
	}
	rounds = done;
	double elapsed = bc_now() - t0;

	/* the sporadic caller: SqueezeNet once every 50 ms on the cpu daemon and on the faster
	 * onnxruntime, each alone and left idle for the whole gap before its call (so whatever its
	 * threads do when idle, spin or sleep, happens as it would) */
	int ort_best = bc_median(slot[0][BV_ORT1].t, rounds) <= bc_median(slot[0][BV_ORT2].t, rounds) ?
			       BV_ORT1 :
			       BV_ORT2;
	bool sporadic = on[BV_CPU] && on[ort_best];
	double sp[2][BC_SPORADIC_CALLS];
	for (int i = 0; sporadic && i < BC_SPORADIC_CALLS; i++)
		for (int j = 0; j < 2; j++) {
			int v = (i + j) % 2 ? ort_best : BV_CPU;
			struct bc_child *o = BV_IS_ORT(v) ? &ort[0][v - BV_ORT1] : NULL;
			pid_t pid = o ? o->pid : dm[v].pid;
			bc_resume(pid);
			usleep(BC_SPORADIC_GAP_US);
			sp[v != BV_CPU][i] = o ? bc_ort_run(o, bc_models[0].ort_kind, 1)
					       : bc_slot_run(&slot[0][v], dm[v].ctx,
							     bc_models[0].out_count, 1);
			bc_pause(pid);
			ASSERT_MSG(!isnan(sp[v != BV_CPU][i]), "onnxruntime failed on %s",
				   bc_models[0].label);
		}
	for (int k = 0; k < nv; k++)
		if (!BV_IS_ORT(order[k]))
			bc_resume(dm[order[k]].pid);
	for (size_t m = 0; m < BC_N_MODELS; m++)
		for (int k = 0; k < 2; k++)
			bc_resume(ort[m][k].pid);

	printf("  models: %d rounds (after %d warm-up) of %d dispatches + output read per "
	       "contender (1 when slower than %.0f ms), round robin (%.1f s, load average %.2f "
	       "before, %.2f after); medians, [spread of the per-round ratios]\n",
	       rounds, BC_WARM, BC_INNER, BC_SLOW * 1e3, elapsed, load0, test_load_average());
	for (int v = 0; v < BV_MAX; v++)
		if (!on[v])
			printf("    (%s skipped: %s)\n", bv_names[v], why[v]);
	for (int v = 0; v < BV_ORT1; v++)
		if (on[v])
			printf("    %s: %s\n", bv_names[v], dm[v].device);
	if (on[BV_ORT1] || on[BV_ORT2])
		printf("    onnxruntime: %s, CPU EP, intraOpNumThreads 1 and 2 (a process per model "
		       "and thread count), graphOptimizationLevel all, session created once, feeds "
		       "allocated once, only run() timed, NCHW in/out\n",
		       ort[0][on[BV_ORT1] ? 0 : 1].version);
	for (size_t m = 0; m < BC_N_MODELS; m++) {
		const struct bc_model *bm = &bc_models[m];
		/* the results, compared before the timings mean anything */
		const float *ref = NULL;
		const char *ref_name = NULL;
		static float ort_out[2][4096];
		for (int k = 1; k >= 0; k--) {
			char path[256], reply[600];
			if (!on[BV_ORT1 + k])
				continue;
			snprintf(path, sizeof path, "/tmp/webnn-bench-ort-%d.bin", (int)getpid());
			ASSERT_MSG(bc_child_cmd(&ort[m][k], reply, sizeof reply, "out %s %s",
						bm->ort_kind, path),
				   "onnxruntime output: %s", reply);
			FILE *f = fopen(path, "rb");
			ASSERT(f &&
			       fread(ort_out[k], sizeof(float), bm->out_count, f) == bm->out_count);
			fclose(f);
			unlink(path);
			if (!ref) { /* the 2-thread session's, else the 1-thread one's */
				ref = ort_out[k];
				ref_name = bv_names[BV_ORT1 + k];
			}
		}
		if (!ref) {
			ref = slot[m][order[0]].out;
			ref_name = bv_names[order[0]];
		}
		printf("  %s\n", bm->label);
		struct npy_array want = { 0 };
		char path[8800];
		snprintf(path, sizeof path, "%s/test_data_set/0/output_0.npy", dirs[m]);
		bool have_want = bm->has_reference && npy_load_f32(path, &want, err, sizeof err) &&
				 want.count == bm->out_count;
		for (int k = 0; k < nv; k++) {
			int v = order[k];
			const float *o = BV_IS_ORT(v) ? ort_out[v - BV_ORT1] : slot[m][v].out;
			double med = bc_median(slot[m][v].t, rounds), d1 = 0, d2 = 0;
			bool ok = bc_agree(ref, o, bm->out_count, &d1);
			bool ok2 = !have_want || bc_agree(want.data, o, bm->out_count, &d2);
			double lo, hi;
			bc_range(slot[m][v].t, rounds, &lo, &hi);
			printf("    %-22s %8.2f ms (best %.2f)", bv_names[v], med * 1e3, lo * 1e3);
			if (BV_IS_ORT(v))
				printf("   session.create %.1f ms", ort_create[m][v - BV_ORT1]);
			else
				printf("   graph build %.1f ms", slot[m][v].compile_ms);
			if (o == ref) {
				if (have_want)
					printf(", max |diff| %.2g vs test_data_set", d2);
			} else {
				printf(", max |diff| %.2g vs %s", d1, ref_name);
				if (have_want)
					printf(", %.2g vs test_data_set", d2);
			}
			printf("\n");
			ASSERT_MSG(ok && ok2, "%s: %s disagrees with %s (max |diff| %g, %g)",
				   bm->label, bv_names[v], ref_name, d1, d2);
		}
		npy_free(&want);
		int best = !on[BV_ORT2] || (on[BV_ORT1] && bc_median(slot[m][BV_ORT1].t, rounds) <=
								      bc_median(slot[m][BV_ORT2].t, rounds)) ?
				   BV_ORT1 :
				   BV_ORT2;
		double *tc = slot[m][BV_CPU].t, *to = slot[m][BV_OCL].t, *tr = slot[m][best].t;
		if (on[BV_CPU] && on[best]) {
			double q = bc_ratio(tc, tr, rounds);
			bc_print_ratio("daemon-cpu/ORT", tc, tr, rounds);
			printf("  (against the faster onnxruntime, %s; target <= 0.75: %s)\n",
			       bv_names[best], q <= 0.75 ? "met" : "NOT MET");
		}
		if (on[BV_OCL] && on[best]) {
			bc_print_ratio("daemon-opencl/ORT", to, tr, rounds);
			printf("\n");
		}
		if (on[BV_CPU] && on[BV_OCL]) {
			bc_print_ratio("daemon-cpu/opencl", tc, to, rounds);
			printf("\n");
		}
		if (on[BV_PREV] && on[BV_CPU]) {
			bc_print_ratio("cpu now/previous", tc, slot[m][BV_PREV].t, rounds);
			printf("  (%s)\n", prev);
		}
		if (m == 0 && sporadic) {
			printf("    sporadic caller (one call every %d ms, %d calls each, alternating): "
			       "daemon cpu %.2f ms, %s %.2f ms (medians)",
			       BC_SPORADIC_GAP_US / 1000, BC_SPORADIC_CALLS,
			       bc_median(sp[0], BC_SPORADIC_CALLS) * 1e3, bv_names[ort_best],
			       bc_median(sp[1], BC_SPORADIC_CALLS) * 1e3);
			printf("; ratio %.2f (target <= 1.0: %s)\n",
			       bc_median(sp[0], BC_SPORADIC_CALLS) / bc_median(sp[1], BC_SPORADIC_CALLS),
			       bc_median(sp[0], BC_SPORADIC_CALLS) <=
					       bc_median(sp[1], BC_SPORADIC_CALLS) ?
				       "met" :
				       "NOT MET");
		}
	}
	for (size_t m = 0; m < BC_N_MODELS; m++) {
		for (int v = 0; v < BV_ORT1; v++)
			if (on[v])
				bc_slot_close(&slot[m][v]);
		npy_free(&in[m]);
	}
	for (int v = 0; v < BV_ORT1; v++)
		if (on[v])
			bc_daemon_stop(&dm[v]);
	for (size_t m = 0; m < BC_N_MODELS; m++)
		for (int k = 0; k < 2; k++)
			bc_child_stop(&ort[m][k]);
}

/* ------------------------------------------------------------------ single operations */

/* conv2d (NHWC input, constant filter, no bias) or matmul (constant B) as the only operation. */
static const struct bc_op {
	const char *label;
	bool matmul;
	uint32_t h, c, oc, k, pad, groups;
	enum webnn_conv2d_filter_layout layout;
	bool target;	 /* conv/gemm: >= 70% of peak is the goal; depthwise is memory-bound */
	const char *ort; /* the same operation for bench/ort_bench.js (NCHW) */
} bc_ops[] = {
	{ "conv 3x3 56x56x64->64 ohwi", false, 56, 64, 64, 3, 1, 1, WEBNN_FILTER_OHWI, true,
	  "conv 64 64 3 1 1 56" },
	{ "conv 3x3 56x56x64->64 oihw", false, 56, 64, 64, 3, 1, 1, WEBNN_FILTER_OIHW, true,
	  "conv 64 64 3 1 1 56" },
	{ "conv 1x1 56x56x64->128 ohwi", false, 56, 64, 128, 1, 0, 1, WEBNN_FILTER_OHWI, true,
	  "conv 64 128 1 0 1 56" },
	{ "depthwise 3x3 56x56x144 ihwo", false, 56, 144, 144, 3, 1, 144, WEBNN_FILTER_IHWO, false,
	  "conv 144 144 3 1 144 56" },
	{ "matmul 1024^3, B constant", true, 1024, 1024, 1024, 0, 0, 1, 0, true, "matmul 1024" },
};
#define BC_N_OPS (sizeof bc_ops / sizeof bc_ops[0])

static double bc_op_flops(const struct bc_op *o)
{
	if (o->matmul)
		return 2.0 * o->h * o->c * o->oc;
	uint32_t oh = o->h + 2 * o->pad - o->k + 1; /* stride 1; padding taps counted */
	return 2.0 * oh * oh * o->oc * (o->c / o->groups) * o->k * o->k;
}

static float *bc_random(size_t n, uint32_t seed)
{
	float *p = malloc(n * sizeof(float));
	ASSERT(p);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		p[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
	}
	return p;
}

struct bc_op_run {
	struct webnn_graph *g;
	struct webnn_tensor *ti, *to;
	int inner, ort_inner; /* dispatches (session.run calls) per sample, for about 25 ms */
	double t[BC_MAX_ROUNDS], peak[BC_MAX_ROUNDS],
		ort[BC_MAX_ROUNDS]; /* peak: GFLOP/s, 2 threads */
};

static void bc_op_open(struct bc_op_run *r, struct webnn_context *ctx, const struct bc_op *o)
{
	struct webnn_builder *b;
	struct webnn_operand *x, *w, *y;
	MODEL_OK(ctx, webnn_builder_create(ctx, &b), "builder");
	struct webnn_operand_desc xd = { WEBNN_FLOAT32, 4, { 1, o->h, o->h, o->c } };
	struct webnn_operand_desc wd = { WEBNN_FLOAT32, 4, { 0 } };
	if (o->matmul) {
		xd = (struct webnn_operand_desc){ WEBNN_FLOAT32, 2, { o->h, o->c } };
		wd = (struct webnn_operand_desc){ WEBNN_FLOAT32, 2, { o->c, o->oc } };
	} else {
		uint32_t icg = o->c / o->groups;
		const uint32_t ohwi[4] = { o->oc, o->k, o->k, icg },
			       oihw[4] = { o->oc, icg, o->k, o->k },
			       ihwo[4] = { icg, o->k, o->k, o->oc };
		memcpy(wd.shape,
		       o->layout == WEBNN_FILTER_OHWI	? ohwi
		       : o->layout == WEBNN_FILTER_OIHW ? oihw
							: ihwo,
		       sizeof ohwi);
	}
	size_t wn =
		(size_t)wd.shape[0] * wd.shape[1] * (wd.rank == 4 ? wd.shape[2] * wd.shape[3] : 1);
	float *wdata = bc_random(wn, 3);
	MODEL_OK(ctx, webnn_builder_input(b, "x", &xd, &x), "input");
	MODEL_OK(ctx, webnn_builder_constant(b, &wd, wdata, wn * sizeof(float), &w), "constant");
	free(wdata);
	if (o->matmul) {
		MODEL_OK(ctx, webnn_builder_matmul(b, x, w, &y), o->label);
	} else {
		struct webnn_conv2d_options co = WEBNN_CONV2D_OPTIONS_INIT;
		co.input_layout = WEBNN_LAYOUT_NHWC;
		co.filter_layout = o->layout;
		co.groups = o->groups;
		for (int i = 0; i < 4; i++)
			co.padding[i] = o->pad;
		co.n_padding = 4;
		MODEL_OK(ctx, webnn_builder_conv2d(b, x, w, &co, &y), o->label);
	}
	struct webnn_named_operand named = { "y", y };
	struct webnn_tensor_desc tin = { xd, false, true },
				 tout = { { WEBNN_FLOAT32, 0, { 0 } }, true, false };
	webnn_operand_get_desc(y, &tout.desc);
	MODEL_OK(ctx, webnn_builder_build(b, &named, 1, &r->g), o->label);
	webnn_builder_destroy(b);
	MODEL_OK(ctx, webnn_context_create_tensor(ctx, &tin, &r->ti), "input tensor");
	MODEL_OK(ctx, webnn_context_create_tensor(ctx, &tout, &r->to), "output tensor");
	size_t xn =
		(size_t)xd.shape[0] * xd.shape[1] * (xd.rank == 4 ? xd.shape[2] * xd.shape[3] : 1);
	float *xdata = bc_random(xn, 42);
	MODEL_OK(ctx, webnn_context_write_tensor(ctx, r->ti, xdata, xn * sizeof(float)), "write");
	free(xdata);
}

/* Seconds per dispatch over n back-to-back dispatches (the timeline runs them in order; the
 * flush waits for the last): the per-dispatch cost an application streaming work sees. */
static double bc_op_run(struct bc_op_run *r, struct webnn_context *ctx, int n)
{
	struct webnn_named_tensor bi = { "x", r->ti }, bo = { "y", r->to };
	double t0 = bc_now();
	for (int i = 0; i < n; i++)
		MODEL_OK(ctx, webnn_context_dispatch(ctx, r->g, &bi, 1, &bo, 1), "dispatch");
	MODEL_OK(ctx, webnn_context_flush(ctx), "flush");
	return (bc_now() - t0) / n;
}

/* The single ops on the cpu backend, and on onnxruntime when it is there, interleaved with a
 * measurement of the FMA peak in every round: GFLOP/s and % of the 2-thread peak. */
TEST_TIMEOUT(bench_cpu_ops, 600)
{
	static struct bc_daemon d;
	static struct bc_op_run run[BC_N_OPS];
	static struct bc_child ort;
	char why[600], ort_why[600] = "";
	if (!bc_daemon_start(&d, NULL, "cpu", NULL, why, sizeof why))
		SKIP("the cpu backend: %s", why);
	static struct bc_child peak;
	char peak_why[600] = "";
	bool have_peak = bc_peak_start(&peak, peak_why, sizeof peak_why);
	double start1[3], start2[3];
	for (int k = 0; k < 3; k++) {
		start1[k] = have_peak ? bc_peak_sample(&peak, 1, 40) : NAN;
		start2[k] = have_peak ? bc_peak_sample(&peak, 2, 40) : NAN;
	}
	bool have_ort = bc_ort_start(&ort, 2, ort_why, sizeof ort_why);
	int rounds = bc_rounds();
	for (size_t i = 0; i < BC_N_OPS; i++) {
		bc_op_open(&run[i], d.ctx, &bc_ops[i]);
		double t = bc_op_run(&run[i], d.ctx, 2);
		run[i].inner = t > 0.025 ? 1 : (int)(0.025 / t) + 1;
		if (have_ort) {
			char reply[600], id[16];
			snprintf(id, sizeof id, "op%zu", i);
			double tw = NAN;
			if (!bc_child_cmd(&ort, reply, sizeof reply, "load %s %s", id,
					  bc_ops[i].ort) ||
			    isnan(tw = bc_ort_run(&ort, id, 2))) {
				bc_fmt(ort_why, sizeof ort_why, "%s: %s", bc_ops[i].label, reply);
				have_ort = false;
			} else
				run[i].ort_inner = tw > 0.025 ? 1 : (int)(0.025 / tw) + 1;
		}
	}
	/* the 2-thread peak is sampled right before each operation's own sample (as long), so a
	 * neighbour's load hits both alike; the 1-thread one once a round, for the record */
	double t0 = bc_now(), load0 = test_load_average();
	double p1[BC_MAX_ROUNDS], p2[BC_MAX_ROUNDS * BC_N_OPS];
	int n_p2 = 0;
	bc_pause(d.pid);
	bc_pause(ort.pid);
	bc_pause(peak.pid);
	for (int r = 0; r < rounds; r++) {
		if (r >= 3 && bc_now() - t0 > bc_budget()) {
			rounds = r;
			break;
		}
		bc_resume(peak.pid);
		p1[r] = have_peak ? bc_peak_sample(&peak, 1, 25) : NAN;
		bc_pause(peak.pid);
		for (size_t k = 0; k < BC_N_OPS; k++) {
			size_t i = (k + r) % BC_N_OPS;
			char id[16];
			snprintf(id, sizeof id, "op%zu", i);
			bc_resume(peak.pid);
			run[i].peak[r] = p2[n_p2++] =
				have_peak ? bc_peak_sample(&peak, 2, 25) : NAN;
			bc_pause(peak.pid);
			bc_resume(d.pid);
			run[i].t[r] = bc_op_run(&run[i], d.ctx, run[i].inner);
			bc_pause(d.pid);
			if (have_ort) {
				bc_resume(ort.pid);
				run[i].ort[r] = bc_ort_run(&ort, id, run[i].ort_inner);
				bc_pause(ort.pid);
			}
		}
	}
	bc_resume(d.pid);
	bc_resume(ort.pid);
	bc_resume(peak.pid);
	have_peak = have_peak && !isnan(bc_median(p2, n_p2));
	printf("  single operations on the daemon's cpu backend: %d rounds, each with the FMA peak "
	       "measured (%.1f s, load average %.2f before, %.2f after); time per dispatch of a "
	       "stream of dispatches, medians\n",
	       rounds, bc_now() - t0, load0, test_load_average());
	if (have_peak)
		printf("    FMA peak (%s, bench/peak_flops.c): %.1f GFLOP/s on 1 thread, %.1f on 2 "
		       "(before the rounds: %.1f, %.1f); %% of peak: of the 2-thread sample taken "
		       "just before\n",
		       peak.version, bc_median(p1, rounds), bc_median(p2, n_p2),
		       bc_median(start1, 3), bc_median(start2, 3));
	else
		printf("    (FMA peak not measured: %s; make bench builds %s/bin/peak_flops)\n",
		       peak_why[0] ? peak_why : "a sample failed", test_build_dir());
	if (!have_ort)
		printf("    (onnxruntime skipped: %s)\n", ort_why);
	else
		printf("    onnxruntime: %s, same ops in NCHW\n", ort.version);
	for (size_t i = 0; i < BC_N_OPS; i++) {
		const struct bc_op *o = &bc_ops[i];
		double fl = bc_op_flops(o), med = bc_median(run[i].t, rounds), gf[BC_MAX_ROUNDS];
		for (int r = 0; r < rounds; r++)
			gf[r] = fl / run[i].t[r] / 1e9;
		printf("    %-30s %8.3f ms %7.1f GFLOP/s", o->label, med * 1e3, fl / med / 1e9);
		if (have_peak) {
			double pct = 100 * bc_ratio(gf, run[i].peak, rounds), q[BC_MAX_ROUNDS], lo,
			       hi;
			for (int r = 0; r < rounds; r++)
				q[r] = gf[r] / run[i].peak[r];
			bc_range(q, rounds, &lo, &hi);
			printf(" %5.1f%% [%.0f..%.0f] of peak", pct, 100 * lo, 100 * hi);
			if (o->target)
				printf(" (target >= 70%%: %s)", pct >= 70 ? "met" : "NOT MET");
		}
		if (have_ort)
			printf("; ORT %.3f ms, daemon/ORT %.2f",
			       bc_median(run[i].ort, rounds) * 1e3,
			       bc_ratio(run[i].t, run[i].ort, rounds));
		printf("\n");
		webnn_tensor_destroy(run[i].ti);
		webnn_tensor_destroy(run[i].to);
		webnn_graph_destroy(run[i].g);
	}
	bc_daemon_stop(&d);
	bc_child_stop(&ort);
	bc_child_stop(&peak);
}

/* ------------------------------------------------------------------ cold start */

#define BC_COLD_RUNS 3

/* Seconds of CPU the live threads of pid have used (their schedstat run times): a figure the
 * neighbours' load does not inflate the way it does wall time. NAN when unreadable. */
static double bc_cpu_seconds(pid_t pid)
{
	char dir[64], path[400];
	snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return NAN;
	double sum = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		unsigned long long ns;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s/schedstat", dir, e->d_name);
		FILE *f = fopen(path, "r");
		if (f && fscanf(f, "%llu", &ns) == 1)
			sum += ns * 1e-9;
		if (f)
			fclose(f);
	}
	closedir(d);
	return sum;
}

/* A daemon on the cpu backend with empty caches (a fresh XDG_CACHE_HOME) to the first
 * SqueezeNet result: start, context, graph build (client side: weights read from .npy and
 * sent), first dispatch + read. Three runs, medians. */
TEST_TIMEOUT(bench_cold_start, 300)
{
	const char *shared = test_shared_dir();
	if (!shared)
		SKIP("../shared (or $WEBNN_SHARED) is absent: no SqueezeNet weights");
	char dir[4200], path[4400], err[600];
	snprintf(dir, sizeof dir, "%s/models/squeezenet1.0_nhwc", shared);
	snprintf(path, sizeof path, "%s/test_data_set/0/input_0.npy", dir);
	struct npy_array in, want;
	if (!npy_load_f32(path, &in, err, sizeof err))
		SKIP("%s", err);
	snprintf(path, sizeof path, "%s/test_data_set/0/output_0.npy", dir);
	ASSERT_MSG(npy_load_f32(path, &want, err, sizeof err), "%s", err);
	double up[BC_COLD_RUNS], built[BC_COLD_RUNS], compile[BC_COLD_RUNS], first[BC_COLD_RUNS],
		total[BC_COLD_RUNS], cpu[BC_COLD_RUNS];
	for (int i = 0; i < BC_COLD_RUNS; i++) {
		char cache[64], xdg[96], why[600];
		snprintf(cache, sizeof cache, "/tmp/webnn-bench-cold-XXXXXX");
		ASSERT(mkdtemp(cache));
		snprintf(xdg, sizeof xdg, "XDG_CACHE_HOME=%s", cache);
		const char *const env[] = { xdg,
					    "-WEBNN_CACHE_DIR",
					    "-POCL_CACHE_DIR",
					    "WEBNN_BACKEND=cpu",
					    NULL };
		struct bc_daemon d;
		double t0 = bc_now();
		if (!bc_daemon_start(&d, NULL, "cpu", env, why, sizeof why))
			SKIP("the cpu backend: %s", why);
		up[i] = bc_now() - t0;
		struct bc_slot s = { 0 };
		bc_slot_open(&s, d.ctx, &bc_models[0], dir, &in);
		built[i] = bc_now() - t0;
		compile[i] = s.compile_ms;
		double t1 = bc_now();
		bc_slot_run(&s, d.ctx, MODEL_CLASSES, 1);
		first[i] = bc_now() - t1;
		total[i] = bc_now() - t0;
		cpu[i] = bc_cpu_seconds(d.pid);
		double maxd;
		ASSERT_MSG(bc_agree(want.data, s.out, MODEL_CLASSES, &maxd),
			   "cold SqueezeNet disagrees with test_data_set (max |diff| %g)", maxd);
		bc_slot_close(&s);
		bc_daemon_stop(&d);
		char rm[128];
		snprintf(rm, sizeof rm, "rm -rf %s", cache);
		ASSERT(system(rm) == 0);
	}
	double tot = bc_median(total, BC_COLD_RUNS), cm = bc_median(compile, BC_COLD_RUNS);
	printf("  cold start, cpu backend, empty cache dir, SqueezeNet (median of %d):\n",
	       BC_COLD_RUNS);
	printf("    daemon up + context %.1f ms, + graph built %.1f ms (daemon compile_ms %.1f), "
	       "first dispatch + read %.1f ms; the daemon's CPU time to then %.1f ms\n",
	       bc_median(up, BC_COLD_RUNS) * 1e3, bc_median(built, BC_COLD_RUNS) * 1e3, cm,
	       bc_median(first, BC_COLD_RUNS) * 1e3, bc_median(cpu, BC_COLD_RUNS) * 1e3);
	printf("    start to first result %.1f ms (target <= 1000 ms: %s); graph build %.1f ms "
	       "(target <= 50 ms: %s)\n",
	       tot * 1e3, tot <= 1.0 ? "met" : "NOT MET", cm, cm <= 50 ? "met" : "NOT MET");
	npy_free(&in);
	npy_free(&want);
}
