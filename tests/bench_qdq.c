/* make bench: int8 QDQ models (a MobileNet-v1 conv stack, a matmul stack) as onnxruntime's quantize_static writes them, on webnnd's cpu backend vs onnxruntime-node. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/bench_common.h"
#include "tests/onnx_writer.h"
#include "tests/test.h"
#include "webnn.h"
#include "webnn_import.h"

/*
 * Both models are written the way onnxruntime's static quantization exports them: the float
 * input quantized once (uint8, zero point 128), then for each layer DequantizeLinear of the
 * uint8 activation, of the int8 weights (symmetric, one scale per output channel, axis 0 or
 * the matmul's columns) and of the int32 bias, the float Conv / MatMul, and QuantizeLinear of
 * its output (uint8, zero point 0: the rounding clips what a relu would), the last activation
 * dequantized. webnnd runs each layer as one oneDNN int8 primitive (graph_fuse_qdq);
 * onnxruntime fuses the same pattern into its QLinearConv / int8 MatMul kernels.
 */

static uint32_t bq_seed = 777;
static uint32_t bq_rand(void)
{
	bq_seed = bq_seed * 1664525u + 1013904223u;
	return bq_seed >> 16;
}
static float bq_unit(void)
{
	return (float)(bq_rand() & 65535) / 65536.0f;
}

#define BQ_ACT_SCALE 0.05f

/* scalar initializers of the activations' quantization */
static void bq_act_params(struct onnx_writer *w)
{
	float s_in = 1.0f / 64, s = BQ_ACT_SCALE;
	uint8_t z_in = 128, z = 0;
	onnx_writer_initializer(w, "s_in", ONNX_FLOAT, 0, NULL, &s_in);
	onnx_writer_initializer(w, "z_in", ONNX_UINT8, 0, NULL, &z_in);
	onnx_writer_initializer(w, "s_a", ONNX_FLOAT, 0, NULL, &s);
	onnx_writer_initializer(w, "z_a", ONNX_UINT8, 0, NULL, &z);
}

/* Weights of `count` int8 values in `channels` channels (channel of element i: i / per when
 * per is nonzero, else i % channels), their scales (about 2 / sqrt(fan_in) over 127, so that
 * activations keep their size) and an int32 bias at scale x_scale * w_scale. */
static void bq_weights(struct onnx_writer *w, int l, int rank, const int64_t *dims,
		       uint32_t channels, uint32_t fan_in, float x_scale)
{
	char nw[16], ns[16], nz[16], nb[16], nbs[16];
	snprintf(nw, sizeof nw, "w%d", l);
	snprintf(ns, sizeof ns, "ws%d", l);
	snprintf(nz, sizeof nz, "wz%d", l);
	snprintf(nb, sizeof nb, "b%d", l);
	snprintf(nbs, sizeof nbs, "bs%d", l);
	const int64_t cd[1] = { channels };
	Onnx__TensorProto *tw = onnx_writer_initializer(w, nw, ONNX_INT8, rank, dims, NULL);
	for (size_t i = 0; i < tw->raw_data.len; i++)
		tw->raw_data.data[i] = (uint8_t)(int8_t)((int)(bq_rand() % 255) - 127);
	Onnx__TensorProto *ts = onnx_writer_initializer(w, ns, ONNX_FLOAT, 1, cd, NULL);
	Onnx__TensorProto *tbs = onnx_writer_initializer(w, nbs, ONNX_FLOAT, 1, cd, NULL);
	Onnx__TensorProto *tb = onnx_writer_initializer(w, nb, ONNX_INT32, 1, cd, NULL);
	onnx_writer_initializer(w, nz, ONNX_INT8, 1, cd, NULL);
	float *s = (float *)ts->raw_data.data, *bs = (float *)tbs->raw_data.data;
	int32_t *b = (int32_t *)tb->raw_data.data;
	for (uint32_t c = 0; c < channels; c++) {
		s[c] = (1.5f + bq_unit()) / (127.0f * sqrtf((float)fan_in));
		bs[c] = x_scale * s[c];
		/* a bias of about a tenth of an activation quantum's worth of sums */
		b[c] = (int32_t)(bq_rand() % 2001) - 1000;
	}
}

/* DequantizeLinear of layer l's weights and bias, with their axis. */
static void bq_dequant_weights(struct onnx_writer *w, int l, int w_axis)
{
	char in[64], out[16];
	snprintf(in, sizeof in, "w%d,ws%d,wz%d", l, l, l);
	snprintf(out, sizeof out, "wf%d", l);
	onnx_writer_attr_int(w, onnx_writer_node(w, NULL, "DequantizeLinear", "", in, out), "axis",
			     w_axis);
	snprintf(in, sizeof in, "b%d,bs%d", l, l);
	snprintf(out, sizeof out, "bf%d", l);
	onnx_writer_attr_int(w, onnx_writer_node(w, NULL, "DequantizeLinear", "", in, out), "axis",
			     0);
}

/* MobileNet v1 at 224: a 3x3 stride-2 convolution, then 13 depthwise 3x3 + pointwise pairs. */
static bool bq_write_mobilenet(const char *path, int64_t *out_count)
{
	static const struct { int stride, out; } blocks[13] = {
		{ 1, 64 }, { 2, 128 }, { 1, 128 }, { 2, 256 }, { 1, 256 }, { 2, 512 }, { 1, 512 },
		{ 1, 512 }, { 1, 512 }, { 1, 512 }, { 1, 512 }, { 2, 1024 }, { 1, 1024 },
	};
	const int64_t xd[4] = { 1, 3, 224, 224 };
	struct onnx_writer w;
	onnx_writer_init(&w, 13);
	w.graph->name = onnx_writer_strdup(&w, "qdq_mobilenet");
	onnx_writer_input(&w, "x", ONNX_FLOAT, 4, xd);
	bq_act_params(&w);
	onnx_writer_node(&w, NULL, "QuantizeLinear", "", "x,s_in,z_in", "a0");
	bq_seed = 777;
	int l = 0, c = 3, hw = 224;
	/* layer list: (in channels, out channels, group, stride, k) */
	for (int b = -1; b < 13; b++) {
		for (int part = 0; part < (b < 0 ? 1 : 2); part++) {
			int oc, group, stride, k;
			if (b < 0)
				oc = 32, group = 1, stride = 2, k = 3;
			else if (part == 0)
				oc = c, group = c, stride = blocks[b].stride, k = 3;
			else
				oc = blocks[b].out, group = 1, stride = 1, k = 1;
			int icg = c / group;
			const int64_t wd[4] = { oc, icg, k, k };
			float xs = l ? BQ_ACT_SCALE : 1.0f / 64;
			bq_weights(&w, l, 4, wd, (uint32_t)oc, (uint32_t)(icg * k * k), xs);
			char in[64], out[16];
			snprintf(in, sizeof in, "a%d,%s", l, l ? "s_a,z_a" : "s_in,z_in");
			snprintf(out, sizeof out, "af%d", l);
			onnx_writer_node(&w, NULL, "DequantizeLinear", "", in, out);
			bq_dequant_weights(&w, l, 0);
			snprintf(in, sizeof in, "af%d,wf%d,bf%d", l, l, l);
			snprintf(out, sizeof out, "c%d", l);
			Onnx__NodeProto *cv = onnx_writer_node(&w, NULL, "Conv", "", in, out);
			const int64_t st[2] = { stride, stride }, p = k / 2, pads[4] = { p, p, p, p };
			onnx_writer_attr_ints(&w, cv, "strides", st, 2);
			onnx_writer_attr_ints(&w, cv, "pads", pads, 4);
			onnx_writer_attr_int(&w, cv, "group", group);
			snprintf(in, sizeof in, "c%d,s_a,z_a", l);
			snprintf(out, sizeof out, "a%d", l + 1);
			onnx_writer_node(&w, NULL, "QuantizeLinear", "", in, out);
			hw = (hw + 2 * (int)p - k) / stride + 1;
			c = oc;
			l++;
		}
	}
	char in[64];
	snprintf(in, sizeof in, "a%d,s_a,z_a", l);
	onnx_writer_node(&w, NULL, "DequantizeLinear", "", in, "y");
	const int64_t yd[4] = { 1, c, hw, hw };
	onnx_writer_output(&w, "y", ONNX_FLOAT, 4, yd);
	*out_count = (int64_t)c * hw * hw;
	bool ok = onnx_writer_save(&w, path);
	onnx_writer_free(&w);
	return ok;
}

/* Four [64, 1024] x [1024, 1024] MatMuls with a bias Add, weights per column. */
#define BQ_M 64
#define BQ_K 1024
static bool bq_write_matmul(const char *path, int64_t *out_count)
{
	const int64_t xd[2] = { BQ_M, BQ_K }, wd[2] = { BQ_K, BQ_K };
	struct onnx_writer w;
	onnx_writer_init(&w, 13);
	w.graph->name = onnx_writer_strdup(&w, "qdq_matmul");
	onnx_writer_input(&w, "x", ONNX_FLOAT, 2, xd);
	bq_act_params(&w);
	onnx_writer_node(&w, NULL, "QuantizeLinear", "", "x,s_in,z_in", "a0");
	bq_seed = 991;
	int l;
	for (l = 0; l < 4; l++) {
		float xs = l ? BQ_ACT_SCALE : 1.0f / 64;
		bq_weights(&w, l, 2, wd, BQ_K, BQ_K, xs);
		char in[64], out[16];
		snprintf(in, sizeof in, "a%d,%s", l, l ? "s_a,z_a" : "s_in,z_in");
		snprintf(out, sizeof out, "af%d", l);
		onnx_writer_node(&w, NULL, "DequantizeLinear", "", in, out);
		bq_dequant_weights(&w, l, 1);
		snprintf(in, sizeof in, "af%d,wf%d", l, l);
		snprintf(out, sizeof out, "m%d", l);
		onnx_writer_node(&w, NULL, "MatMul", "", in, out);
		snprintf(in, sizeof in, "m%d,bf%d", l, l);
		snprintf(out, sizeof out, "c%d", l);
		onnx_writer_node(&w, NULL, "Add", "", in, out);
		snprintf(in, sizeof in, "c%d,s_a,z_a", l);
		snprintf(out, sizeof out, "a%d", l + 1);
		onnx_writer_node(&w, NULL, "QuantizeLinear", "", in, out);
	}
	char in[64];
	snprintf(in, sizeof in, "a%d,s_a,z_a", l);
	onnx_writer_node(&w, NULL, "DequantizeLinear", "", in, "y");
	onnx_writer_output(&w, "y", ONNX_FLOAT, 2, xd);
	*out_count = BQ_M * BQ_K;
	bool ok = onnx_writer_save(&w, path);
	onnx_writer_free(&w);
	return ok;
}

/* Runs one model on webnnd as configured by default and at 1 compute thread and nice 0
 * (daemons d[0], d[1]) and on each
 * onnxruntime peer (1 and 2 threads), interleaved, one contender at a time. */
static void bq_model(struct bc_daemon *d, struct bc_child *ort, const bool *have_ort,
		     const char *tmp, const char *name, const char *path, int64_t in_count,
		     int64_t out_count, double *worst_quanta)
{
	char why[1200], reply[2048];
	float *x = malloc(sizeof(float) * (size_t)in_count), *y = malloc(sizeof(float) * (size_t)out_count),
	      *yo = malloc(sizeof(float) * (size_t)out_count);
	ASSERT(x && y && yo);
	for (int64_t i = 0; i < in_count; i++)
		x[i] = 4.0f * bq_unit() - 2.0f;
	size_t xb = sizeof(float) * (size_t)in_count, yb = sizeof(float) * (size_t)out_count;
	struct webnn_model *model[2];
	struct webnn_named_tensor in[2], out[2];
	struct webnn_graph *g[2];
	double t_load = 0;
	for (int w = 0; w < 2; w++) {
		double t0 = bc_now();
		enum webnn_status s = webnn_model_load(d[w].ctx, path, NULL, &model[w], why,
						       sizeof why);
		if (w == 0)
			t_load = bc_now() - t0;
		ASSERT_MSG(s == WEBNN_STATUS_OK, "%s: %s", name, why);
		in[w] = (struct webnn_named_tensor){ "x", NULL };
		out[w] = (struct webnn_named_tensor){ "y", NULL };
		struct webnn_tensor_desc ti = { .writable = true }, to = { .readable = true };
		webnn_model_input_desc(model[w], 0, &ti.desc);
		webnn_model_output_desc(model[w], 0, &to.desc);
		ASSERT(webnn_context_create_tensor(d[w].ctx, &ti, &in[w].tensor) == WEBNN_STATUS_OK);
		ASSERT(webnn_context_create_tensor(d[w].ctx, &to, &out[w].tensor) == WEBNN_STATUS_OK);
		ASSERT(webnn_context_write_tensor(d[w].ctx, in[w].tensor, x, xb) == WEBNN_STATUS_OK);
		g[w] = webnn_model_graph(model[w]);
		ASSERT(webnn_context_dispatch(d[w].ctx, g[w], &in[w], 1, &out[w], 1) ==
		       WEBNN_STATUS_OK);
		ASSERT(webnn_context_read_tensor(d[w].ctx, out[w].tensor, y, yb) == WEBNN_STATUS_OK);
	}
	char f[160];
	snprintf(f, sizeof f, "%s/in0.bin", tmp);
	FILE *fp = fopen(f, "wb");
	ASSERT(fp && fwrite(x, sizeof(float), (size_t)in_count, fp) == (size_t)in_count &&
	       fclose(fp) == 0);
	bool ok[2];
	for (int t = 0; t < 2; t++) {
		ok[t] = have_ort[t] &&
			bc_child_cmd(&ort[t], reply, sizeof reply, "open %s %s -", name, path) &&
			bc_child_cmd(&ort[t], reply, sizeof reply, "feed %s %s", name, tmp);
		if (have_ort[t] && !ok[t])
			fprintf(stderr, "onnxruntime: %s\n", reply);
	}
	/* outputs: in quanta of the last activation's scale; onnxruntime's integer kernels round
	 * their own way at each layer, so a difference that starts as one quantum can grow */
	double maxq = NAN, meanq = NAN, ymean = 0;
	int64_t differ = 0, nonzero = 0;
	for (int64_t i = 0; i < out_count; i++)
		ymean += y[i], nonzero += y[i] != 0;
	ymean /= (double)out_count;
	if (ok[1] && bc_child_cmd(&ort[1], reply, sizeof reply, "outs %s %s", name, tmp)) {
		snprintf(f, sizeof f, "%s/out0.bin", tmp);
		fp = fopen(f, "rb");
		ASSERT(fp && fread(yo, sizeof(float), (size_t)out_count, fp) == (size_t)out_count);
		fclose(fp);
		maxq = meanq = 0;
		for (int64_t i = 0; i < out_count; i++) {
			double dq = fabs((double)y[i] - yo[i]) / BQ_ACT_SCALE;
			maxq = fmax(maxq, dq);
			meanq += dq;
			differ += dq > 0.5;
		}
		meanq /= (double)out_count;
		*worst_quanta = fmax(*worst_quanta, meanq);
	}
	double t1 = bc_now();
	ASSERT(webnn_context_dispatch(d[0].ctx, g[0], &in[0], 1, &out[0], 1) == WEBNN_STATUS_OK);
	ASSERT(webnn_context_read_tensor(d[0].ctx, out[0].tensor, y, yb) == WEBNN_STATUS_OK);
	int inner = (int)(0.3 / fmax(bc_now() - t1, 1e-5)) + 1;
	int rounds = bc_rounds() < 5 ? 5 : bc_rounds();
	if (rounds > 16)
		rounds = 16;
	double tw[2][16], tort[2][16];
	/* one contender at a time: the others' process trees are stopped */
	for (int t = 0; t < 2; t++)
		if (ok[t])
			bc_pause(ort[t].pid);
	bc_pause(d[1].pid);
	for (int k = 0; k < rounds; k++) {
		for (int w = 0; w < 2; w++) {
			bc_resume(d[w].pid);
			double t0 = bc_now();
			for (int i = 0; i < inner; i++)
				ASSERT(webnn_context_dispatch(d[w].ctx, g[w], &in[w], 1, &out[w], 1) ==
				       WEBNN_STATUS_OK);
			ASSERT(webnn_context_read_tensor(d[w].ctx, out[w].tensor, y, yb) ==
			       WEBNN_STATUS_OK);
			tw[w][k] = (bc_now() - t0) / inner;
			bc_pause(d[w].pid);
		}
		for (int t = 0; t < 2; t++) {
			tort[t][k] = NAN;
			if (!ok[t])
				continue;
			bc_resume(ort[t].pid);
			tort[t][k] = bc_ort_run(&ort[t], name, inner);
			bc_pause(ort[t].pid);
		}
	}
	for (int w = 0; w < 2; w++)
		bc_resume(d[w].pid);
	for (int t = 0; t < 2; t++)
		if (ok[t])
			bc_resume(ort[t].pid);
	double best = NAN, ratio = NAN;
	int best_t = 0;
	for (int t = 0; t < 2; t++)
		if (ok[t] && !(bc_median(tort[t], rounds) >= best)) {
			best = bc_median(tort[t], rounds);
			ratio = bc_ratio(tw[0], tort[t], rounds);
			best_t = t + 1;
		}
	double lo, hi;
	bc_range(tw[0], rounds, &lo, &hi);
	fprintf(stderr,
		"%s: webnnd %.3f ms (rounds %.3f-%.3f), onnxruntime best %.3f ms (%d thread%s; "
		"1 thread %.3f, 2 threads %.3f), ratio %.2f; 1 thread at nice 0 each: webnnd "
		"%.3f ms, ratio %.2f; output vs onnxruntime: max %.0f quanta, mean %.3f, %lld of %lld "
		"differ (%lld nonzero, mean %.3f); load %.2f s\n",
		name, bc_median(tw[0], rounds) * 1e3, lo * 1e3, hi * 1e3, best * 1e3, best_t,
		best_t == 1 ? "" : "s", ok[0] ? bc_median(tort[0], rounds) * 1e3 : NAN,
		ok[1] ? bc_median(tort[1], rounds) * 1e3 : NAN, ratio,
		bc_median(tw[1], rounds) * 1e3, ok[0] ? bc_ratio(tw[1], tort[0], rounds) : NAN,
		maxq, meanq, (long long)differ, (long long)out_count, (long long)nonzero, ymean,
		t_load);
	for (int t = 0; t < 2; t++)
		if (ok[t])
			bc_child_cmd(&ort[t], reply, sizeof reply, "close %s", name);
	for (int w = 0; w < 2; w++) {
		webnn_tensor_destroy(in[w].tensor);
		webnn_tensor_destroy(out[w].tensor);
		webnn_model_destroy(model[w]);
	}
	free(x);
	free(y);
	free(yo);
}

TEST_TIMEOUT(bench_qdq, 900)
{
	char why[1200], tmp[64], path[128];
	snprintf(tmp, sizeof tmp, "/tmp/webnn-bench-qdq-XXXXXX");
	ASSERT(mkdtemp(tmp));
	static struct bc_daemon dm[2];
	/* the second at one thread and at the nice onnxruntime has (webnnd computes at nice 10
	 * by default, which on a machine shared with other jobs costs it its share): the kernels
	 * compared on equal terms */
	static const char *const env[2][3] = {
		{ NULL }, { "WEBNN_CPU_THREADS=1", "WEBNN_COMPUTE_NICE=0", NULL } };
	/* WEBNN_BENCH_VERBOSE: the daemons log which kernel runs each step (shown at the end) */
	static const char *const verbose[] = { "--verbose", NULL };
	bool v = getenv("WEBNN_BENCH_VERBOSE") != NULL;
	for (int w = 0; w < 2; w++)
		ASSERT_MSG(bc_daemon_start_with(&dm[w], NULL, "cpu", env[w], v ? verbose : NULL,
						why, sizeof why), "%s", why);
	static struct bc_child ort[2];
	bool have_ort[2];
	for (int t = 0; t < 2; t++) {
		char ort_why[600] = "";
		have_ort[t] = bc_ort_start(&ort[t], t + 1, ort_why, sizeof ort_why);
		if (!have_ort[t])
			fprintf(stderr, "bench_qdq: no onnxruntime peer: %s\n", ort_why);
	}
	double load0 = test_load_average(), worst = 0;
	int64_t count;
	snprintf(path, sizeof path, "%s/qdq_mobilenet.onnx", tmp);
	ASSERT(bq_write_mobilenet(path, &count));
	bq_model(dm, ort, have_ort, tmp, "qdq_mobilenet_v1", path, 3 * 224 * 224, count, &worst);
	snprintf(path, sizeof path, "%s/qdq_matmul.onnx", tmp);
	ASSERT(bq_write_matmul(path, &count));
	bq_model(dm, ort, have_ort, tmp, "qdq_matmul_4x1024", path, BQ_M * BQ_K, count, &worst);
	fprintf(stderr, "load average %.2f -> %.2f (2 cores)\n", load0, test_load_average());
	for (int t = 0; t < 2; t++)
		if (have_ort[t])
			bc_child_stop(&ort[t]);
	if (v) {
		char grep[256];
		snprintf(grep, sizeof grep, "grep -E 'runs on|cpu profile' %s >&2", dm[0].log);
		if (system(grep) != 0)
			fprintf(stderr, "bench_qdq: no step in the daemon's log %s\n", dm[0].log);
	}
	for (int w = 0; w < 2; w++)
		bc_daemon_stop(&dm[w]);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
	ASSERT(system(cmd) == 0);
	/* each layer's rounding may differ by a quantum; on average the outputs must agree */
	ASSERT_MSG(worst < 0.5, "webnnd's int8 outputs differ from onnxruntime's by %.3f quanta on "
		   "average", worst);
}
