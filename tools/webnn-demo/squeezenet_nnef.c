/* webnn-demo --export-nnef: SqueezeNet 1.0 (shared/models/squeezenet1.0_nhwc, NHWC .npy weights) written as an NNEF model folder. */
#include "demo.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * NNEF computes in NCHW with OIHW filters and [1, C] biases: the graph transposes the NHWC
 * input once, the filters are transposed here from the OHWI the .npy files hold, and the
 * output ([1, 1001] after the global average pool) is the same in both layouts. Padding is
 * explicit (NNEF's padding = [] would mean automatic padding) and pools ignore the border, as
 * the WPT graph of shared/models/README.md does.
 */

/* The 128-byte header of an NNEF tensor file: float32 items, up to rank 8. */
static void write_dat(const char *path, const uint32_t *shape, uint32_t rank, const float *data)
{
	uint8_t h[128] = { 0x4e, 0xef, 1, 0 };
	size_t count = 1;
	for (uint32_t i = 0; i < rank; i++)
		count *= shape[i];
	uint32_t words[12] = { (uint32_t)(count * sizeof(float)), rank };
	for (uint32_t i = 0; i < rank; i++)
		words[2 + i] = shape[i];
	words[10] = 32; /* bits per item */
	words[11] = 0;  /* item type: IEEE float */
	memcpy(h + 4, words, sizeof(words));
	FILE *f = fopen(path, "wb");
	if (!f)
		demo_die("cannot write %s: %s", path, strerror(errno));
	if (fwrite(h, 1, sizeof(h), f) != sizeof(h) || fwrite(data, sizeof(float), count, f) != count ||
	    fclose(f) != 0)
		demo_die("cannot write %s: %s", path, strerror(errno));
}

struct exporter {
	const char *weights, *out;
	FILE *g;
	int tmp; /* names of intermediate values: t0, t1, ... */
};

static void emit(struct exporter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct exporter *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("    ", e->g);
	vfprintf(e->g, fmt, ap);
	fputs(";\n", e->g);
	va_end(ap);
}

/* A convolution's filter (OHWI -> OIHW) and bias ([O] -> [1, O]) as variables; returns O. */
static uint32_t conv_variables(struct exporter *e, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s_kernel.npy", e->weights, name);
	struct array k = demo_npy_load(path);
	snprintf(path, sizeof(path), "%s/%s_Conv2D_bias.npy", e->weights, name);
	struct array b = demo_npy_load(path);
	if (k.rank != 4 || b.rank != 1 || b.shape[0] != k.shape[0])
		demo_die("%s: expected an OHWI filter and a matching bias", name);
	uint32_t o = k.shape[0], kh = k.shape[1], kw = k.shape[2], in = k.shape[3];
	float *oihw = malloc(k.count * sizeof(float));
	if (!oihw)
		demo_die("out of memory");
	for (uint32_t a = 0; a < o; a++)
		for (uint32_t y = 0; y < kh; y++)
			for (uint32_t x = 0; x < kw; x++)
				for (uint32_t c = 0; c < in; c++)
					oihw[((a * in + c) * kh + y) * kw + x] =
						k.data[((a * kh + y) * kw + x) * in + c];
	uint32_t fs[4] = { o, in, kh, kw }, bs[2] = { 1, o };
	snprintf(path, sizeof(path), "%s/%s_filter.dat", e->out, name);
	write_dat(path, fs, 4, oihw);
	snprintf(path, sizeof(path), "%s/%s_bias.dat", e->out, name);
	write_dat(path, bs, 2, b.data);
	emit(e, "%s_filter = variable<scalar>(shape = [%u, %u, %u, %u], label = '%s_filter')", name,
	     o, in, kh, kw, name);
	emit(e, "%s_bias = variable<scalar>(shape = [1, %u], label = '%s_bias')", name, o, name);
	free(oihw);
	free(k.data);
	free(b.data);
	return o;
}

/* conv + relu; pad NULL: none. Returns the output's temporary number. */
static int conv_relu(struct exporter *e, int x, const char *name, uint32_t stride,
		     const uint32_t pad[4])
{
	conv_variables(e, name);
	int c = e->tmp++, r = e->tmp++;
	emit(e, "t%d = conv(t%d, %s_filter, %s_bias, border = 'constant', padding = [(%u, %u), "
	     "(%u, %u)], stride = [%u, %u])", c, x, name, name, pad ? pad[0] : 0, pad ? pad[1] : 0,
	     pad ? pad[2] : 0, pad ? pad[3] : 0, stride, stride);
	emit(e, "t%d = relu(t%d)", r, c);
	return r;
}

static int max_pool(struct exporter *e, int x)
{
	int y = e->tmp++;
	emit(e, "t%d = max_pool(t%d, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], border = "
	     "'ignore', padding = [(0, 0), (0, 0), (0, 0), (0, 0)])", y, x);
	return y;
}

static int fire(struct exporter *e, int x, int n)
{
	static const uint32_t same3x3[4] = { 1, 1, 1, 1 };
	char name[64];
	snprintf(name, sizeof(name), "fire%d_squeeze", n);
	int s = conv_relu(e, x, name, 1, NULL);
	snprintf(name, sizeof(name), "fire%d_e1x1", n);
	int a = conv_relu(e, s, name, 1, NULL);
	snprintf(name, sizeof(name), "fire%d_e3x3", n);
	int b = conv_relu(e, s, name, 1, same3x3);
	int y = e->tmp++;
	emit(e, "t%d = concat([t%d, t%d], axis = 1)", y, a, b);
	return y;
}

/* test_data_set/0's input or output .npy as a .dat file of the folder. */
static void export_data(const char *weights_dir, const char *out_dir, const char *what,
			const char *npy, const char *dat)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", out_dir, what);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		demo_die("cannot create %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/../test_data_set/0/%s", weights_dir, npy);
	struct array a = demo_npy_load(path);
	snprintf(path, sizeof(path), "%s/%s/%s", out_dir, what, dat);
	write_dat(path, a.shape, a.rank, a.data);
	free(a.data);
}

void demo_export_squeezenet(const char *weights_dir, const char *out_dir)
{
	if (mkdir(out_dir, 0755) != 0 && errno != EEXIST)
		demo_die("cannot create %s: %s", out_dir, strerror(errno));
	char path[4096];
	snprintf(path, sizeof(path), "%s/graph.nnef", out_dir);
	struct exporter e = { weights_dir, out_dir, fopen(path, "w"), 1 };
	if (!e.g)
		demo_die("cannot write %s: %s", path, strerror(errno));
	fprintf(e.g, "# SqueezeNet 1.0, written by webnn-demo --export-nnef from %s\n"
		     "version 1.0;\n\ngraph squeezenet( input ) -> ( output )\n{\n", weights_dir);
	emit(&e, "input = external<scalar>(shape = [1, 224, 224, 3])");
	emit(&e, "t0 = transpose(input, axes = [0, 3, 1, 2])");
	static const uint32_t conv1_pad[4] = { 2, 3, 2, 3 };
	int x = max_pool(&e, conv_relu(&e, 0, "conv1", 2, conv1_pad));
	x = fire(&e, fire(&e, fire(&e, x, 2), 3), 4);
	x = max_pool(&e, x);
	x = fire(&e, fire(&e, fire(&e, fire(&e, x, 5), 6), 7), 8);
	x = max_pool(&e, x);
	x = conv_relu(&e, fire(&e, x, 9), "conv10", 1, NULL);
	int p = e.tmp++, r = e.tmp++;
	emit(&e, "t%d = avg_pool(t%d, size = [1, 1, 13, 13], border = 'ignore', padding = "
	     "[(0, 0), (0, 0), (0, 0), (0, 0)])", p, x);
	emit(&e, "t%d = reshape(t%d, shape = [1, 1001])", r, p);
	emit(&e, "output = softmax(t%d, axes = [1])", r);
	fputs("}\n", e.g);
	if (fclose(e.g) != 0)
		demo_die("cannot write %s: %s", path, strerror(errno));
	export_data(weights_dir, out_dir, "inputs", "input_0.npy", "input.dat");
	export_data(weights_dir, out_dir, "outputs", "output_0.npy", "output.dat");
}
