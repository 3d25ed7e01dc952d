/* webnn-demo: runs a model file (by default SqueezeNet 1.0, exported from shared/models at build) or a small built-in CNN through webnnd, with results and timings. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <webnn.h>
#include <webnn_import.h>

#include "demo.h"
#include "tools/common/model_check.h"

#define WEIGHTS_SUBDIR "models/squeezenet1.0_nhwc/weights"
#define DEFAULT_MODEL "models/squeezenet1.0.nnef" /* beside bin/, made by the build */
#define N_DATA_SETS 3
#define STEADY_RUNS 10
/* The webnn-polyfill model tests' bound: |actual - expected| <= ATOL + RTOL * |expected|. */
#define ATOL 1e-3
#define RTOL 1e-3

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---------------------------------------------------------------- graph helpers */

struct demo {
	struct webnn_context *ctx;
	struct webnn_builder *b;
	char **labels; /* --labels: class names, one per line */
	size_t n_labels;
};

static void check(struct demo *d, enum webnn_status s, const char *what)
{
	if (s != WEBNN_STATUS_OK)
		demo_die("%s failed: %s: %s", what, webnn_status_name(s), webnn_context_last_error(d->ctx));
}

static struct webnn_operand *constant(struct demo *d, const struct webnn_operand_desc *desc,
				      const float *data)
{
	struct webnn_operand *op;
	size_t n = 1;
	for (uint32_t i = 0; i < desc->rank; i++)
		n *= desc->shape[i];
	check(d, webnn_builder_constant(d->b, desc, data, n * sizeof(float), &op), "constant");
	return op;
}

static struct webnn_operand *relu(struct demo *d, struct webnn_operand *x)
{
	struct webnn_operand *y;
	check(d, webnn_builder_relu(d->b, x, &y), "relu");
	return y;
}

/* ---------------------------------------------------------------- running */

struct runner {
	struct webnn_graph *g;
	struct webnn_tensor *in, *out;
	size_t in_bytes, out_bytes;
};

/* What webnnd made of the graph: its passes and its memory plan. */
static void print_graph_stats(const struct webnn_graph *g)
{
	struct webnn_graph_stats s = WEBNN_GRAPH_STATS_INIT;
	if (webnn_graph_get_stats(g, &s) != WEBNN_STATUS_OK || !s.operations)
		return;
	printf("graph: %u operations run as %u kernels (%u fused, %u folded, %u removed); "
	       "intermediates %.2f MiB planned, %.2f MiB without reuse\n",
	       s.operations, s.kernels, s.fused, s.folded, s.removed,
	       s.intermediate_bytes / 1048576.0, s.unplanned_bytes / 1048576.0);
}

static double build(struct demo *d, struct webnn_operand *out, struct runner *r,
		    double *compile_ms)
{
	struct webnn_named_operand named = { "output", out };
	double t0 = now_ms();
	check(d, webnn_builder_build(d->b, &named, 1, &r->g), "build");
	double ms = now_ms() - t0;
	*compile_ms = webnn_graph_compile_ms(r->g);
	print_graph_stats(r->g);
	webnn_builder_destroy(d->b);
	d->b = NULL;

	struct webnn_tensor_desc in = { .writable = true }, outd = { .readable = true };
	webnn_graph_input_name(r->g, 0, &in.desc);
	webnn_graph_output_name(r->g, 0, &outd.desc);
	check(d, webnn_context_create_tensor(d->ctx, &in, &r->in), "createTensor input");
	check(d, webnn_context_create_tensor(d->ctx, &outd, &r->out), "createTensor output");
	r->in_bytes = r->out_bytes = sizeof(float);
	for (uint32_t i = 0; i < in.desc.rank; i++)
		r->in_bytes *= in.desc.shape[i];
	for (uint32_t i = 0; i < outd.desc.rank; i++)
		r->out_bytes *= outd.desc.shape[i];
	return ms;
}

/* write + dispatch + read, timed as one inference. */
static double infer(struct demo *d, struct runner *r, const float *in, float *out)
{
	struct webnn_operand_desc unused;
	struct webnn_named_tensor bi = { webnn_graph_input_name(r->g, 0, &unused), r->in };
	struct webnn_named_tensor bo = { "output", r->out };
	double t0 = now_ms();
	check(d, webnn_context_write_tensor(d->ctx, r->in, in, r->in_bytes), "writeTensor");
	check(d, webnn_context_dispatch(d->ctx, r->g, &bi, 1, &bo, 1), "dispatch");
	check(d, webnn_context_read_tensor(d->ctx, r->out, out, r->out_bytes), "readTensor");
	return now_ms() - t0;
}

static void runner_free(struct runner *r)
{
	webnn_tensor_destroy(r->in);
	webnn_tensor_destroy(r->out);
	webnn_graph_destroy(r->g);
}

/* Prints the top 5 of a class-score vector, with labels when there are. */
static void top5(const struct demo *d, const char *label, const float *out, size_t n)
{
	int top[5] = { -1, -1, -1, -1, -1 };
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 5; k++)
			if (top[k] < 0 || out[i] > out[top[k]]) {
				memmove(top + k + 1, top + k, (4 - k) * sizeof(int));
				top[k] = (int)i;
				break;
			}
	printf("%s top-5:", label);
	for (int k = 0; k < 5 && k < (int)n; k++) {
		const char *name = (size_t)top[k] < d->n_labels ? d->labels[top[k]] : NULL;
		printf(" %d%s%s%s: %.5f%s", top[k], name ? " (" : "", name ? name : "", name ? ")" : "",
		       out[top[k]], k < 4 && k + 1 < (int)n ? "," : "");
	}
	printf("\n");
}

/* Compares with the reference (the model tests' bound); false when an element is out of it. */
static bool compare(const char *label, const float *out, const float *ref, size_t n)
{
	double maxd = 0;
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		double diff = fabs((double)out[i] - ref[i]);
		if (!(diff <= ATOL + RTOL * fabs(ref[i])))
			bad++;
		if (!(diff <= maxd))
			maxd = diff;
	}
	printf("%s max |diff| vs reference: %.3g (%s)\n", label, maxd,
	       bad ? "OUT OF TOLERANCE" : "within 1e-3 + 1e-3*|ref|");
	return bad == 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median and best rather than the mean alone: one stall of a busy machine skews a mean. */
static void print_steady(double *steady, int n)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += steady[i];
	qsort(steady, (size_t)n, sizeof(*steady), cmp_double);
	printf("steady state (%d runs): median %.2f ms, mean %.2f ms, best %.2f ms\n", n,
	       steady[n / 2], sum / n, steady[0]);
}

static void print_timings(double build_ms, double compile_ms, double first_ms, double *steady,
			  int n)
{
	printf("build: %.1f ms (daemon compile %.1f ms)\n", build_ms, compile_ms);
	printf("first inference (write + dispatch + read): %.2f ms\n", first_ms);
	print_steady(steady, n);
}

static float lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

/* Reference data beside a model: an NNEF folder's inputs/<name>.dat and outputs/<name>.dat,
 * or ONNX's test_data_set_0/input_<i>.pb and output_<i>.pb. NULL when there is none. */
static void *reference_file(const char *model, bool nnef, bool input, size_t i, const char *name,
			    struct webnn_operand_desc *desc, size_t *size)
{
	char dir[4096], path[8192], err[512];
	struct stat st;
	snprintf(dir, sizeof(dir), "%s", model);
	if (!(stat(model, &st) == 0 && S_ISDIR(st.st_mode))) {
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		else
			snprintf(dir, sizeof(dir), ".");
	}
	if (nnef)
		snprintf(path, sizeof(path), "%s/%s/%s.dat", dir, input ? "inputs" : "outputs", name);
	else
		snprintf(path, sizeof(path), "%s/test_data_set_0/%s_%zu.pb", dir,
			 input ? "input" : "output", i);
	if (stat(path, &st) != 0)
		return NULL;
	void *data = NULL;
	if (webnn_tensor_file_read(path, desc, &data, size, err, sizeof(err)) != WEBNN_STATUS_OK)
		demo_die("%s", err);
	return data;
}


static bool same_desc(const struct webnn_operand_desc *a, const struct webnn_operand_desc *b)
{
	if (a->data_type != b->data_type || a->rank != b->rank)
		return false;
	for (uint32_t i = 0; i < a->rank; i++)
		if (a->shape[i] != b->shape[i])
			return false;
	return true;
}

static void load_progress(void *user_data, double fraction)
{
	(void)user_data;
	if (isatty(2))
		fprintf(stderr, "\rloading weights %3.0f%%%s", fraction * 100,
			fraction >= 1 ? "\n" : "");
}


/* Loads a model file through libwebnn-import, runs it on the reference inputs beside it (or
 * deterministic values), compares with the reference outputs when there are, and times it. */
static int run_model(struct demo *d, const char *path, const struct webnn_dim_binding *dims,
		     size_t n_dims)
{
	struct stat st;
	size_t plen = strlen(path);
	bool nnef = (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) ||
		    (plen > 5 && strcmp(path + plen - 5, ".nnef") == 0);
	struct webnn_import_options io = WEBNN_IMPORT_OPTIONS_INIT;
	io.dims = dims;
	io.n_dims = n_dims;
	io.progress = load_progress;
	char err[1024] = "";
	struct webnn_model *m = NULL;
	double t0 = now_ms();
	enum webnn_status s = webnn_model_load(d->ctx, path, &io, &m, err, sizeof(err));
	if (s != WEBNN_STATUS_OK)
		demo_die("cannot load %s: %s: %s", path, webnn_status_name(s), err);
	double load_ms = now_ms() - t0;
	struct webnn_graph *g = webnn_model_graph(m);
	printf("model: %s (%s), loaded and built in %.1f ms (daemon compile %.1f ms)\n", path,
	       nnef ? "NNEF" : "ONNX", load_ms, webnn_graph_compile_ms(g));
	print_graph_stats(g);

	size_t n_in = webnn_model_input_count(m), n_out = webnn_model_output_count(m);
	struct webnn_named_tensor *bi = calloc(n_in + 1, sizeof(*bi));
	struct webnn_named_tensor *bo = calloc(n_out + 1, sizeof(*bo));
	void **in = calloc(n_in + 1, sizeof(*in)), **out = calloc(n_out + 1, sizeof(*out));
	void **ref = calloc(n_out + 1, sizeof(*ref));
	size_t *in_bytes = calloc(n_in + 1, sizeof(size_t)), *out_bytes = calloc(n_out + 1,
										   sizeof(size_t));
	if (!bi || !bo || !in || !out || !ref || !in_bytes || !out_bytes)
		demo_die("out of memory");
	bool reference_inputs = n_in > 0;
	for (size_t i = 0; i < n_in; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		webnn_model_input_desc(m, i, &td.desc);
		bi[i].name = webnn_model_input_name(m, i);
		check(d, webnn_context_create_tensor(d->ctx, &td, &bi[i].tensor), "createTensor");
		in_bytes[i] = tool_desc_byte_length(&td.desc);
		struct webnn_operand_desc fd;
		size_t size = 0;
		in[i] = reference_file(path, nnef, true, i, bi[i].name, &fd, &size);
		if (in[i] && (!same_desc(&fd, &td.desc) || size != in_bytes[i]))
			demo_die("the reference input for '%s' does not match the model's descriptor",
			    bi[i].name);
		if (!in[i]) {
			reference_inputs = false;
			uint8_t *v = malloc(in_bytes[i] ? in_bytes[i] : 1);
			if (!v)
				demo_die("out of memory");
			uint32_t seed = 12345u + (uint32_t)i;
			for (size_t k = 0; k < in_bytes[i]; k++) /* small values of any type */
				v[k] = (uint8_t)((seed = seed * 1664525u + 1013904223u) >> 27);
			if (td.desc.data_type == WEBNN_FLOAT32)
				for (size_t k = 0; k < in_bytes[i] / 4; k++)
					((float *)v)[k] = lcg(&seed);
			in[i] = v;
		}
		printf("input  %-20s %s\n", bi[i].name, in[i] && reference_inputs
								? "(reference data beside the model)"
								: "(deterministic values)");
	}
	for (size_t i = 0; i < n_out; i++) {
		struct webnn_tensor_desc td = { .readable = true };
		webnn_model_output_desc(m, i, &td.desc);
		bo[i].name = webnn_model_output_name(m, i);
		check(d, webnn_context_create_tensor(d->ctx, &td, &bo[i].tensor), "createTensor");
		out_bytes[i] = tool_desc_byte_length(&td.desc);
		if (!(out[i] = malloc(out_bytes[i] ? out_bytes[i] : 1)))
			demo_die("out of memory");
		struct webnn_operand_desc fd;
		size_t size = 0;
		if (reference_inputs) {
			ref[i] = reference_file(path, nnef, false, i, bo[i].name, &fd, &size);
			if (ref[i] && (!same_desc(&fd, &td.desc) || size != out_bytes[i]))
				demo_die("the reference output for '%s' does not match the model's "
				    "descriptor", bo[i].name);
		}
	}
	double first = 0, steady[STEADY_RUNS];
	for (int run = 0; run <= STEADY_RUNS; run++) {
		double t = now_ms();
		for (size_t i = 0; i < n_in; i++)
			check(d, webnn_context_write_tensor(d->ctx, bi[i].tensor, in[i], in_bytes[i]),
			      "writeTensor");
		check(d, webnn_context_dispatch(d->ctx, g, bi, n_in, bo, n_out), "dispatch");
		for (size_t i = 0; i < n_out; i++)
			check(d, webnn_context_read_tensor(d->ctx, bo[i].tensor, out[i], out_bytes[i]),
			      "readTensor");
		t = now_ms() - t;
		if (run == 0)
			first = t;
		else
			steady[run - 1] = t;
	}
	bool ok = true, compared = false;
	for (size_t i = 0; i < n_out; i++) {
		struct webnn_operand_desc od;
		webnn_model_output_desc(m, i, &od);
		size_t n = out_bytes[i] / sizeof(float);
		if (od.data_type != WEBNN_FLOAT32) {
			printf("output %-20s %s, %zu bytes\n", bo[i].name,
			       webnn_data_type_name(od.data_type), out_bytes[i]);
			continue;
		}
		if (od.rank >= 1 && n == od.shape[od.rank - 1] && n >= 10)
			top5(d, bo[i].name, out[i], n);
		if (!ref[i])
			continue;
		compared = true;
		ok = compare(bo[i].name, out[i], ref[i], n) && ok;
	}
	printf("first inference (write + dispatch + read): %.2f ms\n", first);
	print_steady(steady, STEADY_RUNS);
	for (size_t i = 0; i < n_in; i++) {
		webnn_tensor_destroy(bi[i].tensor);
		free(in[i]);
	}
	for (size_t i = 0; i < n_out; i++) {
		webnn_tensor_destroy(bo[i].tensor);
		free(out[i]);
		free(ref[i]);
	}
	free(bi);
	free(bo);
	free(in);
	free(out);
	free(ref);
	free(in_bytes);
	free(out_bytes);
	webnn_model_destroy(m);
	if (compared)
		printf("%s\n", ok ? "RESULT: all outputs match the reference" :
				    "RESULT: outputs differ from the reference");
	return ok ? 0 : 1;
}

/* ---------------------------------------------------------------- built-in CNN */

/* conv 3x3 (3->8, pad 1) + relu, maxPool 2x2/2, reshape, gemm (512->10) + bias, softmax. */
#define TH 16
#define TW 16
#define TC 3
#define TO 8
#define TK 10

/* The same network in plain C, to check what the daemon computes. */
static void tiny_reference(const float *in, const float *filt, const float *cb, const float *w,
			   const float *gb, float *out)
{
	static float conv[TH][TW][TO], pooled[TH / 2][TW / 2][TO];
	for (int y = 0; y < TH; y++)
		for (int x = 0; x < TW; x++)
			for (int o = 0; o < TO; o++) {
				double acc = cb[o];
				for (int ky = 0; ky < 3; ky++)
					for (int kx = 0; kx < 3; kx++) {
						int iy = y + ky - 1, ix = x + kx - 1;
						if (iy < 0 || iy >= TH || ix < 0 || ix >= TW)
							continue;
						for (int c = 0; c < TC; c++)
							acc += (double)in[(iy * TW + ix) * TC + c] *
							       filt[((o * 3 + ky) * 3 + kx) * TC + c];
					}
				conv[y][x][o] = acc > 0 ? (float)acc : 0;
			}
	for (int y = 0; y < TH / 2; y++)
		for (int x = 0; x < TW / 2; x++)
			for (int o = 0; o < TO; o++) {
				float m = conv[2 * y][2 * x][o];
				m = fmaxf(m, conv[2 * y][2 * x + 1][o]);
				m = fmaxf(m, conv[2 * y + 1][2 * x][o]);
				pooled[y][x][o] = fmaxf(m, conv[2 * y + 1][2 * x + 1][o]);
			}
	const float *flat = &pooled[0][0][0];
	double logits[TK], maxl = -INFINITY, sum = 0;
	for (int k = 0; k < TK; k++) {
		logits[k] = gb[k];
		for (int i = 0; i < (TH / 2) * (TW / 2) * TO; i++)
			logits[k] += (double)flat[i] * w[i * TK + k];
		maxl = fmax(maxl, logits[k]);
	}
	for (int k = 0; k < TK; k++)
		sum += exp(logits[k] - maxl);
	for (int k = 0; k < TK; k++)
		out[k] = (float)(exp(logits[k] - maxl) / sum);
}

static int run_tiny(struct demo *d)
{
	enum { N_IN = TH * TW * TC, N_FILT = TO * 3 * 3 * TC, N_W = (TH / 2) * (TW / 2) * TO * TK };
	static float in[N_DATA_SETS][N_IN], filt[N_FILT], cb[TO], w[N_W], gb[TK];
	uint32_t seed = 12345;
	for (int k = 0; k < N_DATA_SETS; k++)
		for (int i = 0; i < N_IN; i++)
			in[k][i] = lcg(&seed) * 2;
	for (int i = 0; i < N_FILT; i++)
		filt[i] = lcg(&seed);
	for (int i = 0; i < TO; i++)
		cb[i] = lcg(&seed) * 0.1f;
	for (int i = 0; i < N_W; i++)
		w[i] = lcg(&seed) * 0.2f;
	for (int i = 0; i < TK; i++)
		gb[i] = lcg(&seed) * 0.1f;

	printf("model: built-in CNN (conv2d 3x3 + relu, maxPool2d, gemm, softmax; %dx%dx%d input)\n",
	       TH, TW, TC);
	struct webnn_operand_desc ind = { WEBNN_FLOAT32, 4, { 1, TH, TW, TC } };
	struct webnn_operand_desc fd = { WEBNN_FLOAT32, 4, { TO, 3, 3, TC } };
	struct webnn_operand_desc cbd = { WEBNN_FLOAT32, 1, { TO } };
	struct webnn_operand_desc wd = { WEBNN_FLOAT32, 2, { (TH / 2) * (TW / 2) * TO, TK } };
	struct webnn_operand_desc gbd = { WEBNN_FLOAT32, 1, { TK } };
	struct webnn_operand *x, *y;
	check(d, webnn_builder_input(d->b, "input", &ind, &x), "input");
	struct webnn_conv2d_options co = WEBNN_CONV2D_OPTIONS_INIT;
	co.padding[0] = co.padding[1] = co.padding[2] = co.padding[3] = 1;
	co.n_padding = 4;
	co.input_layout = WEBNN_LAYOUT_NHWC;
	co.filter_layout = WEBNN_FILTER_OHWI;
	co.bias = constant(d, &cbd, cb);
	check(d, webnn_builder_conv2d(d->b, x, constant(d, &fd, filt), &co, &y), "conv2d");
	y = relu(d, y);
	struct webnn_pool2d_options po = WEBNN_POOL2D_OPTIONS_INIT;
	po.window_dimensions[0] = po.window_dimensions[1] = 2;
	po.n_window_dimensions = 2;
	po.strides[0] = po.strides[1] = 2;
	po.n_strides = 2;
	po.layout = WEBNN_LAYOUT_NHWC;
	check(d, webnn_builder_max_pool2d(d->b, y, &po, &y), "maxPool2d");
	const uint32_t flat[2] = { 1, (TH / 2) * (TW / 2) * TO };
	check(d, webnn_builder_reshape(d->b, y, flat, 2, &y), "reshape");
	struct webnn_gemm_options go = WEBNN_GEMM_OPTIONS_INIT;
	go.c = constant(d, &gbd, gb);
	check(d, webnn_builder_gemm(d->b, y, constant(d, &wd, w), &go, &y), "gemm");
	check(d, webnn_builder_softmax(d->b, y, 1, &y), "softmax");

	struct runner r = { 0 };
	double compile_ms;
	double build_ms = build(d, y, &r, &compile_ms);
	bool ok = true;
	float out[TK], ref[TK];
	double first = 0, steady[STEADY_RUNS];
	for (int k = 0; k < N_DATA_SETS; k++) {
		char label[32];
		double ms = infer(d, &r, in[k], out);
		if (k == 0)
			first = ms;
		tiny_reference(in[k], filt, cb, w, gb, ref);
		snprintf(label, sizeof(label), "input %d", k);
		top5(d, label, out, TK);
		ok = compare(label, out, ref, TK) && ok;
	}
	for (int i = 0; i < STEADY_RUNS; i++)
		steady[i] = infer(d, &r, in[i % N_DATA_SETS], out);
	print_timings(build_ms, compile_ms, first, steady, STEADY_RUNS);
	runner_free(&r);
	printf("%s\n", ok ? "RESULT: all outputs match the C reference" :
			    "RESULT: outputs differ from the C reference");
	return ok ? 0 : 1;
}

/* ---------------------------------------------------------------- main */

static bool is_file_or_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* --labels: one class name per line. */
static void load_labels(struct demo *d, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		demo_die("cannot open %s: %s", path, strerror(errno));
	char line[1024];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		char **nl = realloc(d->labels, (d->n_labels + 1) * sizeof(*nl));
		if (!nl || !(nl[d->n_labels] = strdup(line)))
			demo_die("out of memory");
		d->labels = nl;
		d->n_labels++;
	}
	fclose(f);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: webnn-demo [--socket PATH] [--model PATH] [--labels FILE] [--dim NAME=N ...]\n"
		"       webnn-demo --export-nnef DIR [--weights DIR]\n"
		"Runs a model through webnnd: an ONNX file or an NNEF folder (by default SqueezeNet\n"
		"1.0, which the build exports from the shared model weights to %s beside bin/),\n"
		"on the reference data beside it (an NNEF folder's inputs/ and outputs/, ONNX's\n"
		"test_data_set_0/) or on deterministic inputs, and prints top-5 classes, the\n"
		"difference to the reference and timings. Without a model a small built-in CNN runs.\n"
		"  --socket PATH       webnnd socket (default: $WEBNN_SOCKET, else %s)\n"
		"  --model PATH        model file or NNEF folder\n"
		"  --labels FILE       class names, one per line, for the top-5\n"
		"  --dim NAME=N        binds a free dimension of the model\n"
		"  --export-nnef DIR   writes SqueezeNet 1.0 as an NNEF folder from the .npy weights\n"
		"  --weights DIR       their folder (default: $WEBNN_SHARED/%s, else ../shared/...)\n"
		"  --version           print the version\n",
		DEFAULT_MODEL, WEBNN_DEFAULT_SOCKET, WEIGHTS_SUBDIR);
}

/* The model the build exported, beside the program's bin/ folder. */
static bool default_model(char *out, size_t len)
{
	char exe[2048];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = 0;
	int w = snprintf(out, len, "%s/../%s", exe, DEFAULT_MODEL);
	return w > 0 && (size_t)w < len && is_file_or_dir(out);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "model", required_argument, NULL, 'm' },
		{ "labels", required_argument, NULL, 'l' },
		{ "dim", required_argument, NULL, 'd' },
		{ "export-nnef", required_argument, NULL, 'e' },
		{ "weights", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	const char *model = NULL, *labels = NULL, *export_dir = NULL, *weights = NULL;
	struct webnn_dim_binding dims[16];
	size_t n_dims = 0;
	int ch;
	co.client_name = "webnn-demo";
	while ((ch = getopt_long(argc, argv, "s:m:l:d:e:w:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': co.socket_path = optarg; break;
		case 'm': model = optarg; break;
		case 'l': labels = optarg; break;
		case 'e': export_dir = optarg; break;
		case 'w': weights = optarg; break;
		case 'd': {
			char *eq = strchr(optarg, '=');
			char *end = NULL;
			unsigned long v = eq ? strtoul(eq + 1, &end, 10) : 0;
			if (!eq || eq == optarg || !end || *end || !eq[1] || v == 0 || v > UINT32_MAX ||
			    n_dims == 16)
				demo_die("--dim %s: expected NAME=N with N >= 1 (at most 16 of them)", optarg);
			*eq = 0;
			dims[n_dims++] = (struct webnn_dim_binding){ optarg, (uint32_t)v };
			break;
		}
		case 'h': usage(stdout); return 0;
		case 'V': printf("webnn-demo %s\n", WEBNN_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (export_dir) {
		char def[4096];
		if (!weights) {
			const char *shared = getenv("WEBNN_SHARED");
			snprintf(def, sizeof(def), "%s/%s", shared && *shared ? shared : "../shared",
				 WEIGHTS_SUBDIR);
			weights = def;
		}
		if (!is_file_or_dir(weights))
			demo_die("no weights at %s (--weights DIR)", weights);
		demo_export_squeezenet(weights, export_dir);
		printf("wrote SqueezeNet 1.0 as NNEF to %s\n", export_dir);
		return 0;
	}
	char def_model[4096];
	if (model && !is_file_or_dir(model))
		demo_die("model %s does not exist", model);
	if (!model) {
		if (default_model(def_model, sizeof(def_model)))
			model = def_model;
		else
			printf("no model given and none exported by the build (%s beside bin/): "
			       "running the built-in CNN instead\n", DEFAULT_MODEL);
	}

	struct demo d = { 0 };
	if (labels)
		load_labels(&d, labels);
	char err[512] = "";
	double t0 = now_ms();
	enum webnn_status s = webnn_context_create(&co, &d.ctx, err, sizeof(err));
	if (s != WEBNN_STATUS_OK) {
		const char *sock = co.socket_path ? co.socket_path : getenv("WEBNN_SOCKET");
		fprintf(stderr, "webnn-demo: cannot reach webnnd at %s: %s: %s\n",
			sock && *sock ? sock : WEBNN_DEFAULT_SOCKET, webnn_status_name(s), err);
		fprintf(stderr, "webnn-demo: start it first (webnnd%s%s), or run make demo, which does\n",
			sock && *sock ? " --socket " : "", sock && *sock ? sock : "");
		return 1;
	}
	struct webnn_context_info info;
	webnn_context_get_info(d.ctx, &info);
	printf("context: %s (%s, %s backend, driver %s), created in %.1f ms\n",
	       info.device_name ? info.device_name : "?", info.device_type ? info.device_type : "?",
	       info.backend ? info.backend : "?", info.driver_version ? info.driver_version : "?",
	       now_ms() - t0);
	int rc;
	if (model) {
		rc = run_model(&d, model, dims, n_dims);
	} else {
		check(&d, webnn_builder_create(d.ctx, &d.b), "createBuilder");
		rc = run_tiny(&d);
		webnn_builder_destroy(d.b);
	}
	webnn_context_destroy(d.ctx);
	for (size_t i = 0; i < d.n_labels; i++)
		free(d.labels[i]);
	free(d.labels);
	return rc;
}
