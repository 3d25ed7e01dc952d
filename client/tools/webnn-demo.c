/* webnn-demo: runs SqueezeNet 1.0 (or a small built-in CNN) through webnnd and reports results and timings. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <webnn.h>

#define MODEL_SUBDIR "models/squeezenet1.0_nhwc"
#define N_CLASSES 1001
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

__attribute__((format(printf, 1, 2))) static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "webnn-demo: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* ---------------------------------------------------------------- .npy (float32, C order) */

struct array {
	uint32_t rank;
	uint32_t shape[WEBNN_MAX_RANK];
	float *data;
	size_t count;
};

/* Loads a NumPy v1-v3 file holding little-endian float32 in C order; exits with a message on
 * anything else, since the demo cannot do without its weights. */
static struct array npy_load(const char *path)
{
	struct array a = { 0 };
	FILE *f = fopen(path, "rb");
	unsigned char pre[12];
	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0)
		die("%s: not a .npy file", path);
	size_t hlen = pre[8] | (size_t)pre[9] << 8;
	if (pre[6] >= 2) {
		if (fread(pre + 10, 1, 2, f) != 2)
			die("%s: truncated header", path);
		hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	}
	if (hlen > 65536)
		die("%s: header of %zu bytes is too large", path, hlen);
	char *h = calloc(1, hlen + 1);
	if (!h || fread(h, 1, hlen, f) != hlen)
		die("%s: truncated header", path);
	if (!strstr(h, "'descr': '<f4'") || !strstr(h, "'fortran_order': False"))
		die("%s: expected little-endian float32 in C order (header %s)", path, h);
	char *p = strstr(h, "'shape': (");
	if (!p)
		die("%s: header has no shape", path);
	p += strlen("'shape': (");
	a.count = 1;
	while (*p && *p != ')') {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || a.rank == WEBNN_MAX_RANK || v > UINT32_MAX)
			die("%s: bad shape in header", path);
		a.shape[a.rank++] = (uint32_t)v;
		a.count *= v;
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	free(h);
	if (a.count > (1u << 28))
		die("%s: %zu elements is too many", path, a.count);
	a.data = malloc(a.count * sizeof(float) + 1);
	if (!a.data || fread(a.data, sizeof(float), a.count, f) != a.count)
		die("%s: expected %zu float32 values", path, a.count);
	fclose(f);
	return a;
}

static struct webnn_operand_desc array_desc(const struct array *a)
{
	struct webnn_operand_desc d = { .data_type = WEBNN_FLOAT32, .rank = a->rank };
	memcpy(d.shape, a->shape, sizeof(d.shape));
	return d;
}

/* ---------------------------------------------------------------- graph helpers */

struct demo {
	struct webnn_context *ctx;
	struct webnn_builder *b;
	const char *dir;
};

static void check(struct demo *d, enum webnn_status s, const char *what)
{
	if (s != WEBNN_STATUS_OK)
		die("%s failed: %s: %s", what, webnn_status_name(s), webnn_context_last_error(d->ctx));
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

static struct webnn_operand *weight(struct demo *d, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/weights/%s.npy", d->dir, name);
	struct array a = npy_load(path);
	struct webnn_operand_desc desc = array_desc(&a);
	struct webnn_operand *op = constant(d, &desc, a.data);
	free(a.data);
	return op;
}

static struct webnn_operand *relu(struct demo *d, struct webnn_operand *x)
{
	struct webnn_operand *y;
	check(d, webnn_builder_relu(d->b, x, &y), "relu");
	return y;
}

/* conv2d (nhwc input, ohwi filter, bias) followed by relu, as every SqueezeNet convolution is. */
static struct webnn_operand *conv_relu(struct demo *d, struct webnn_operand *x, const char *name,
				       uint32_t stride, const uint32_t pad[4])
{
	char w[256], bias[256];
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	struct webnn_operand *y;
	snprintf(w, sizeof(w), "%s_kernel", name);
	snprintf(bias, sizeof(bias), "%s_Conv2D_bias", name);
	o.input_layout = WEBNN_LAYOUT_NHWC;
	o.filter_layout = WEBNN_FILTER_OHWI;
	o.bias = weight(d, bias);
	o.strides[0] = o.strides[1] = stride;
	o.n_strides = 2;
	if (pad) {
		memcpy(o.padding, pad, sizeof(o.padding));
		o.n_padding = 4;
	}
	char what[300];
	snprintf(what, sizeof(what), "conv2d %s", name);
	check(d, webnn_builder_conv2d(d->b, x, weight(d, w), &o, &y), what);
	return relu(d, y);
}

static struct webnn_operand *max_pool(struct demo *d, struct webnn_operand *x)
{
	struct webnn_pool2d_options o = WEBNN_POOL2D_OPTIONS_INIT;
	struct webnn_operand *y;
	o.window_dimensions[0] = o.window_dimensions[1] = 3;
	o.n_window_dimensions = 2;
	o.strides[0] = o.strides[1] = 2;
	o.n_strides = 2;
	o.layout = WEBNN_LAYOUT_NHWC;
	check(d, webnn_builder_max_pool2d(d->b, x, &o, &y), "maxPool2d");
	return y;
}

static struct webnn_operand *fire(struct demo *d, struct webnn_operand *x, int n)
{
	static const uint32_t same3x3[4] = { 1, 1, 1, 1 };
	char name[64];
	snprintf(name, sizeof(name), "fire%d_squeeze", n);
	struct webnn_operand *s = conv_relu(d, x, name, 1, NULL);
	snprintf(name, sizeof(name), "fire%d_e1x1", n);
	struct webnn_operand *e[2] = { conv_relu(d, s, name, 1, NULL) };
	snprintf(name, sizeof(name), "fire%d_e3x3", n);
	e[1] = conv_relu(d, s, name, 1, same3x3);
	struct webnn_operand *y;
	check(d, webnn_builder_concat(d->b, e, 2, 3, &y), "concat");
	return y;
}

/* The graph of shared/models/README.md, "SqueezeNet 1.0 NHWC graph". */
static struct webnn_operand *squeezenet(struct demo *d)
{
	static const uint32_t conv1_pad[4] = { 2, 3, 2, 3 };
	struct webnn_operand_desc in = { WEBNN_FLOAT32, 4, { 1, 224, 224, 3 } };
	struct webnn_operand *x;
	check(d, webnn_builder_input(d->b, "input", &in, &x), "input");
	x = max_pool(d, conv_relu(d, x, "conv1", 2, conv1_pad));
	x = fire(d, fire(d, fire(d, x, 2), 3), 4);
	x = max_pool(d, x);
	x = fire(d, fire(d, fire(d, fire(d, x, 5), 6), 7), 8);
	x = max_pool(d, x);
	x = conv_relu(d, fire(d, x, 9), "conv10", 1, NULL);
	struct webnn_pool2d_options po = WEBNN_POOL2D_OPTIONS_INIT;
	po.window_dimensions[0] = po.window_dimensions[1] = 13;
	po.n_window_dimensions = 2;
	po.layout = WEBNN_LAYOUT_NHWC;
	check(d, webnn_builder_average_pool2d(d->b, x, &po, &x), "averagePool2d");
	static const uint32_t flat[2] = { 1, N_CLASSES };
	check(d, webnn_builder_reshape(d->b, x, flat, 2, &x), "reshape");
	check(d, webnn_builder_softmax(d->b, x, 1, &x), "softmax");
	return x;
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

/* Prints top-5 and returns max |a - e|; *ok turns false when an element is out of bounds. */
static double report(const char *label, const float *out, const float *ref, size_t n, bool *ok)
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
	for (int k = 0; k < 5 && k < (int)n; k++)
		printf(" %d: %.5f%s", top[k], out[top[k]], k < 4 && k + 1 < (int)n ? "," : "");
	printf("\n");
	if (!ref)
		return 0;
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
	if (bad)
		*ok = false;
	return maxd;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median and best rather than the mean alone: one stall of a busy machine skews a mean. */
static void print_timings(double build_ms, double compile_ms, double first_ms, double *steady,
			  int n)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += steady[i];
	qsort(steady, (size_t)n, sizeof(*steady), cmp_double);
	printf("build: %.1f ms (daemon compile %.1f ms)\n", build_ms, compile_ms);
	printf("first inference (write + dispatch + read): %.2f ms\n", first_ms);
	printf("steady state (%d runs): median %.2f ms, mean %.2f ms, best %.2f ms\n", n,
	       steady[n / 2], sum / n, steady[0]);
}

static int run_squeezenet(struct demo *d)
{
	struct runner r = { 0 };
	double compile_ms;
	printf("model: SqueezeNet 1.0 NHWC from %s\n", d->dir);
	double t0 = now_ms();
	struct webnn_operand *out = squeezenet(d);
	double graph_ms = now_ms() - t0;
	double build_ms = build(d, out, &r, &compile_ms);
	printf("graph construction (weights loaded and uploaded): %.1f ms\n", graph_ms);

	struct array inputs[N_DATA_SETS], refs[N_DATA_SETS];
	for (int k = 0; k < N_DATA_SETS; k++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/test_data_set/%d/input_0.npy", d->dir, k);
		inputs[k] = npy_load(path);
		snprintf(path, sizeof(path), "%s/test_data_set/%d/output_0.npy", d->dir, k);
		refs[k] = npy_load(path);
		if (inputs[k].count * sizeof(float) != r.in_bytes ||
		    refs[k].count * sizeof(float) != r.out_bytes)
			die("test_data_set/%d does not match the graph's input/output sizes", k);
	}
	float *result = malloc(r.out_bytes);
	if (!result)
		die("out of memory");
	bool ok = true;
	double first = 0, steady[STEADY_RUNS];
	for (int k = 0; k < N_DATA_SETS; k++) {
		char label[32];
		double ms = infer(d, &r, inputs[k].data, result);
		if (k == 0)
			first = ms;
		snprintf(label, sizeof(label), "test_data_set/%d", k);
		report(label, result, refs[k].data, N_CLASSES, &ok);
	}
	for (int i = 0; i < STEADY_RUNS; i++)
		steady[i] = infer(d, &r, inputs[i % N_DATA_SETS].data, result);
	print_timings(build_ms, compile_ms, first, steady, STEADY_RUNS);
	for (int k = 0; k < N_DATA_SETS; k++) {
		free(inputs[k].data);
		free(refs[k].data);
	}
	free(result);
	runner_free(&r);
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

static float lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

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
		report(label, out, ref, TK, &ok);
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

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: webnn-demo [--socket PATH] [--model DIR]\n"
		"Builds SqueezeNet 1.0 (NHWC) through webnnd, runs its three reference inputs and\n"
		"prints top-5 classes, the difference to the reference outputs and timings.\n"
		"  --socket PATH  webnnd socket (default: $WEBNN_SOCKET, else %s)\n"
		"  --model DIR    the squeezenet1.0_nhwc folder (default: $WEBNN_SHARED/%s,\n"
		"                 else ../shared/%s); without it a small built-in CNN runs\n"
		"  --version      print the version\n",
		WEBNN_DEFAULT_SOCKET, MODEL_SUBDIR, MODEL_SUBDIR);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "model", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	const char *model = NULL;
	int ch;
	co.client_name = "webnn-demo";
	while ((ch = getopt_long(argc, argv, "s:m:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': co.socket_path = optarg; break;
		case 'm': model = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("webnn-demo %s\n", WEBNN_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	char def[4096];
	if (model && !is_dir(model))
		die("model folder %s does not exist", model);
	if (!model) {
		const char *shared = getenv("WEBNN_SHARED");
		snprintf(def, sizeof(def), "%s/%s", shared && *shared ? shared : "../shared",
			 MODEL_SUBDIR);
		if (is_dir(def))
			model = def;
		else
			printf("no model at %s: running the built-in CNN instead\n", def);
	}

	struct demo d = { .dir = model };
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
	check(&d, webnn_builder_create(d.ctx, &d.b), "createBuilder");
	int rc = model ? run_squeezenet(&d) : run_tiny(&d);
	webnn_builder_destroy(d.b);
	webnn_context_destroy(d.ctx);
	return rc;
}
