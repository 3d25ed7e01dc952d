/* The NNEF importer end to end: NNEF's semantic traps, the standard library's compositions, .dat files and hostile documents. */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "importers/include/webnn_import.h"
#include "importers/nnef/nnef.h"
#include "tests/clienttest.h"
#include "webnn.h"

#define HDR                                                                    \
	"version 1.0;\nextension KHR_enable_fragment_definitions, "           \
	"KHR_enable_operator_expressions;\n"

static struct webnn_model *load(struct webnn_context *ctx, const char *text, const char *dir)
{
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	o.format = WEBNN_MODEL_FORMAT_NNEF;
	struct webnn_model *m = NULL;
	char err[512];
	enum webnn_status s = webnn_model_load_memory(ctx, text, strlen(text), dir, &o, &m, err,
						      sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "load: %s: %s", webnn_status_name(s), err);
	return m;
}

/* Loads text, expecting failure with an error containing needle. */
static void load_fails(struct webnn_context *ctx, const char *text, const char *needle)
{
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	o.format = WEBNN_MODEL_FORMAT_NNEF;
	struct webnn_model *m = NULL;
	char err[512] = "";
	enum webnn_status s = webnn_model_load_memory(ctx, text, strlen(text), NULL, &o, &m, err,
						      sizeof(err));
	ASSERT_MSG(s != WEBNN_STATUS_OK && !m, "loading should fail with '%s'", needle);
	ASSERT_CONTAINS(err, needle);
}

static size_t count_of(const struct webnn_operand_desc *d)
{
	size_t n = 1;
	for (uint32_t i = 0; i < d->rank; i++)
		n *= d->shape[i];
	return n;
}

/* Runs m with float inputs (in model order) and reads its outputs (floats, or uint8/int32
 * converted to float). */
static void run(struct webnn_context *ctx, struct webnn_model *m, const float *const *in,
		float **out)
{
	size_t ni = webnn_model_input_count(m), no = webnn_model_output_count(m);
	struct webnn_named_tensor ti[16], to[16];
	ASSERT(ni <= 16 && no <= 16);
	for (size_t i = 0; i < ni; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		webnn_model_input_desc(m, i, &td.desc);
		ti[i].name = webnn_model_input_name(m, i);
		OK(ctx, webnn_context_create_tensor(ctx, &td, &ti[i].tensor));
		OK(ctx, webnn_context_write_tensor(ctx, ti[i].tensor, in[i],
						   count_of(&td.desc) * sizeof(float)));
	}
	for (size_t i = 0; i < no; i++) {
		struct webnn_tensor_desc td = { .readable = true };
		webnn_model_output_desc(m, i, &td.desc);
		to[i].name = webnn_model_output_name(m, i);
		OK(ctx, webnn_context_create_tensor(ctx, &td, &to[i].tensor));
	}
	OK(ctx, webnn_context_dispatch(ctx, webnn_model_graph(m), ti, ni, to, no));
	for (size_t i = 0; i < no; i++) {
		struct webnn_operand_desc d;
		webnn_model_output_desc(m, i, &d);
		size_t n = count_of(&d), es = webnn_data_type_size(d.data_type);
		uint8_t *buf = malloc(n * es + 1);
		OK(ctx, webnn_context_read_tensor(ctx, to[i].tensor, buf, n * es));
		for (size_t k = 0; k < n; k++) {
			if (d.data_type == WEBNN_FLOAT32)
				memcpy(&out[i][k], buf + 4 * k, 4);
			else if (d.data_type == WEBNN_UINT8)
				out[i][k] = buf[k];
			else if (d.data_type == WEBNN_INT32) {
				int32_t v;
				memcpy(&v, buf + 4 * k, 4);
				out[i][k] = (float)v;
			} else
				FAIL("output type %d", (int)d.data_type);
		}
		free(buf);
		webnn_tensor_destroy(to[i].tensor);
	}
	for (size_t i = 0; i < ni; i++)
		webnn_tensor_destroy(ti[i].tensor);
}

/* Loads, runs with one input and compares the first output. */
static void check1(struct webnn_context *ctx, const char *what, const char *text,
		   const float *in, const float *want, size_t n, float tol)
{
	struct webnn_model *m = load(ctx, text, NULL);
	struct webnn_operand_desc d;
	webnn_model_output_desc(m, 0, &d);
	ASSERT_MSG(count_of(&d) == n, "%s: %zu outputs, expected %zu", what, count_of(&d), n);
	float *got = calloc(n, sizeof(float));
	run(ctx, m, &in, &got);
	ct_assert_floats(what, got, want, n, tol);
	free(got);
	webnn_model_destroy(m);
}

TEST(nnef_semantics)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "nnef");

	/* [1,C] bias against [N,C,H,W]: NNEF pads dimensions on the right */
	float x8[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	float bias_want[8] = { 11, 12, 13, 14, 25, 26, 27, 28 };
	check1(ctx, "broadcast", HDR "graph G( x ) -> ( y ) {\n"
	       "x = external<scalar>(shape = [1, 2, 2, 2]);\n"
	       "b = constant<scalar>(shape = [1, 2], value = [10.0, 20.0]);\n"
	       "y = add(x, b);\n}\n", x8, bias_want, 8, 0);

	/* round: half away from zero */
	float r_in[8] = { -2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 0.4f, -0.6f };
	float r_want[8] = { -3, -2, -1, 1, 2, 3, 0, -1 };
	check1(ctx, "round", HDR "graph G( x ) -> ( y ) {\n"
	       "x = external<scalar>(shape = [8]);\ny = round(x);\n}\n", r_in, r_want, 8, 0);

	/* padding = []: automatic, output ceil(4 / 2) = 2 and the excess pad at the end */
	float ones[16];
	for (int i = 0; i < 16; i++)
		ones[i] = 1;
	float auto_want[4] = { 9, 6, 6, 4 };
	check1(ctx, "auto padding", HDR "graph G( x ) -> ( y ) {\n"
	       "x = external<scalar>(shape = [1, 1, 4, 4]);\n"
	       "f = constant<scalar>(shape = [1, 1, 3, 3], value = [1.0]);\n"
	       "y = conv(x, f, padding = [], stride = [2, 2]);\n}\n", ones, auto_want, 4, 0);

	/* groups = 0 is depthwise; separable_conv expands from its definition */
	float c2[8] = { 1, 2, 3, 4, 10, 20, 30, 40 };
	float dw_want[8] = { 2, 4, 6, 8, 30, 60, 90, 120 };
	check1(ctx, "depthwise", HDR "graph G( x ) -> ( y ) {\n"
	       "x = external<scalar>(shape = [1, 2, 2, 2]);\n"
	       "f = constant<scalar>(shape = [2, 1, 1, 1], value = [2.0, 3.0]);\n"
	       "y = conv(x, f, groups = 0);\n}\n", c2, dw_want, 8, 0);
	float sep_want[4] = { 32 + 1, 64 + 1, 96 + 1, 128 + 1 };
	check1(ctx, "separable_conv", HDR "graph G( x ) -> ( y ) {\n"
	       "x = external<scalar>(shape = [1, 2, 2, 2]);\n"
	       "p = constant<scalar>(shape = [2, 1, 1, 1], value = [2.0, 3.0]);\n"
	       "q = constant<scalar>(shape = [1, 2, 1, 1], value = [1.0, 1.0]);\n"
	       "y = separable_conv(x, p, q, bias = 1.0);\n}\n", c2, sep_want, 4, 0);

	/* avg_pool borders: 'constant' counts the padding, 'ignore' does not */
	float p9[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	float want_c[9], want_i[9], want_max[9];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			float s = 0, mx = -INFINITY;
			int n = 0;
			for (int di = -1; di <= 1; di++)
				for (int dj = -1; dj <= 1; dj++) {
					int y = i + di, x = j + dj;
					float v = y >= 0 && y < 3 && x >= 0 && x < 3 ? p9[y * 3 + x] : 0;
					if (y >= 0 && y < 3 && x >= 0 && x < 3)
						n++;
					s += v;
					mx = v > mx ? v : mx;
				}
			want_c[i * 3 + j] = s / 9;
			want_i[i * 3 + j] = s / (float)n;
			want_max[i * 3 + j] = mx;
		}
	const char *pool_fmt = HDR "graph G( x ) -> ( y ) {\n"
			       "x = external<scalar>(shape = [1, 1, 3, 3]);\n"
			       "y = %s(x, size = [1, 1, 3, 3], border = '%s', padding = "
			       "[(0,0), (0,0), (1,1), (1,1)]);\n}\n";
	char text[1024];
	snprintf(text, sizeof(text), pool_fmt, "avg_pool", "constant");
	check1(ctx, "avg_pool constant", text, p9, want_c, 9, 1e-5f);
	snprintf(text, sizeof(text), pool_fmt, "avg_pool", "ignore");
	check1(ctx, "avg_pool ignore", text, p9, want_i, 9, 1e-5f);
	snprintf(text, sizeof(text), pool_fmt, "max_pool", "ignore");
	check1(ctx, "max_pool ignore", text, p9, want_max, 9, 0);
	/* rms_pool: sqrt(avg_pool(sqr(x))) from the standard library */
	float want_rms[9];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			float s = 0;
			for (int di = -1; di <= 1; di++)
				for (int dj = -1; dj <= 1; dj++) {
					int y = i + di, x = j + dj;
					if (y >= 0 && y < 3 && x >= 0 && x < 3)
						s += p9[y * 3 + x] * p9[y * 3 + x];
				}
			want_rms[i * 3 + j] = sqrtf(s / 9);
		}
	snprintf(text, sizeof(text), pool_fmt, "rms_pool", "constant");
	check1(ctx, "rms_pool", text, p9, want_rms, 9, 1e-4f);
	/* a replicate border pads with the edge values */
	float want_rep[9];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			float s = 0;
			for (int di = -1; di <= 1; di++)
				for (int dj = -1; dj <= 1; dj++) {
					int y = i + di < 0 ? 0 : i + di > 2 ? 2 : i + di;
					int x = j + dj < 0 ? 0 : j + dj > 2 ? 2 : j + dj;
					s += p9[y * 3 + x];
				}
			want_rep[i * 3 + j] = s / 9;
		}
	snprintf(text, sizeof(text), pool_fmt, "avg_pool", "replicate");
	check1(ctx, "avg_pool replicate", text, p9, want_rep, 9, 1e-5f);

	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(nnef_stdlib_compositions)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "nnef");
	/* x: [1, 4, 1, 2], channel c, position p: value c * 2 + p + 1 */
	float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	/* local_response_normalization across 3 channels: box over the channel axis */
	float lrn[8];
	for (int c = 0; c < 4; c++)
		for (int p = 0; p < 2; p++) {
			float s = 0;
			for (int k = c - 1; k <= c + 1; k++)
				if (k >= 0 && k < 4)
					s += x[k * 2 + p] * x[k * 2 + p];
			lrn[c * 2 + p] = x[c * 2 + p] / powf(2.0f + 0.5f * s / 3, 0.75f);
		}
	check1(ctx, "local_response_normalization", HDR "graph G( x ) -> ( y ) {\n"
	       "x = external<scalar>(shape = [1, 4, 1, 2]);\n"
	       "y = local_response_normalization(x, size = [1, 3, 1, 1], alpha = 0.5, beta = 0.75, "
	       "bias = 2.0);\n}\n", x, lrn, 8, 1e-5f);

	/* l2_normalization over the channels */
	float l2[8];
	for (int p = 0; p < 2; p++) {
		float s = 0;
		for (int c = 0; c < 4; c++)
			s += x[c * 2 + p] * x[c * 2 + p];
		for (int c = 0; c < 4; c++)
			l2[c * 2 + p] = x[c * 2 + p] / sqrtf(s);
	}
	check1(ctx, "l2_normalization", HDR "graph G( x ) -> ( y ) {\n"
	       "x = external<scalar>(shape = [1, 4, 1, 2]);\n"
	       "y = l2_normalization(x, axes = [1], epsilon = 1e-12);\n}\n", x, l2, 8, 1e-6f);

	/* moments: two results of one compound fragment */
	{
		struct webnn_model *m = load(ctx, HDR "graph G( x ) -> ( mean, var ) {\n"
					     "x = external<scalar>(shape = [1, 4, 1, 2]);\n"
					     "mean, var = moments(x, axes = [1, 3]);\n}\n", NULL);
		float mean = 4.5f, var = 0;
		for (int i = 0; i < 8; i++)
			var += (x[i] - mean) * (x[i] - mean) / 8;
		float got_m[1], got_v[1];
		float *outs[2] = { got_m, got_v };
		const float *ins[1] = { x };
		run(ctx, m, ins, outs);
		ct_assert_floats("moments mean", got_m, &mean, 1, 1e-5f);
		ct_assert_floats("moments variance", got_v, &var, 1, 1e-5f);
		webnn_model_destroy(m);
	}

	/* batch_normalization with [1, C] parameters, softmax over two axes, gelu as NNEF
	 * defines it (x * sigmoid(1.702 x)), select / clamp / log2 */
	float bn[8], sm[8], ge[8], misc[8];
	float total = 0;
	for (int i = 0; i < 8; i++)
		total += expf(x[i] - 8);
	for (int c = 0; c < 4; c++)
		for (int p = 0; p < 2; p++) {
			int i = c * 2 + p;
			bn[i] = 1.0f + 2.0f * (x[i] - (float)c) / sqrtf(4.0f + 0.001f);
			sm[i] = expf(x[i] - 8) / total;
			ge[i] = x[i] / (1 + expf(-1.702f * x[i]));
			float cl = x[i] < 3 ? 3 : x[i] > 6 ? 6 : x[i];
			misc[i] = x[i] > 4 ? log2f(x[i]) : cl;
		}
	check1(ctx, "batch_normalization", HDR "graph G( x ) -> ( y ) {\n"
	       "x = external<scalar>(shape = [1, 4, 1, 2]);\n"
	       "m = constant<scalar>(shape = [1, 4], value = [0.0, 1.0, 2.0, 3.0]);\n"
	       "v = constant<scalar>(shape = [1, 4], value = [4.0]);\n"
	       "y = batch_normalization(x, m, v, 1.0, 2.0, epsilon = 0.001);\n}\n",
	       x, bn, 8, 1e-5f);
	check1(ctx, "softmax", HDR "graph G( x ) -> ( y ) {\n"
	       "x = external<scalar>(shape = [1, 4, 1, 2]);\n"
	       "y = softmax(x, axes = [1, 3]);\n}\n", x, sm, 8, 1e-6f);
	check1(ctx, "gelu", HDR "graph G( x ) -> ( y ) {\n"
	       "x = external<scalar>(shape = [1, 4, 1, 2]);\ny = gelu(x);\n}\n", x, ge, 8, 1e-5f);
	check1(ctx, "select clamp log2", HDR "graph G( x ) -> ( y ) {\n"
	       "x = external<scalar>(shape = [1, 4, 1, 2]);\n"
	       "y = select(x > 4.0, log2(x), clamp(x, 3.0, 6.0));\n}\n", x, misc, 8, 1e-5f);

	/* strided slices: WebNN's sizes are the span read (an NNEF [2, 4, 4, 4] slice of stride 2
	 * once came out [2, 1, 4, 1]); a negative stride reads the reversed axis */
	{
		const float every2[2] = { 1, 5 }, every3[4] = { 1, 2, 7, 8 }, back2[4] = { 7, 8, 3, 4 };
		check1(ctx, "slice stride 2", HDR "graph G( x ) -> ( y ) {\n"
		       "x = external<scalar>(shape = [1, 4, 1, 2]);\n"
		       "y = slice(x, axes = [1, 3], begin = [0, 0], end = [4, 2], stride = [2, 2]);\n}\n",
		       x, every2, 2, 0);
		check1(ctx, "slice stride 3", HDR "graph G( x ) -> ( y ) {\n"
		       "x = external<scalar>(shape = [1, 4, 1, 2]);\n"
		       "y = slice(x, axes = [1], begin = [0], end = [4], stride = [3]);\n}\n",
		       x, every3, 4, 0);
		check1(ctx, "slice stride -2", HDR "graph G( x ) -> ( y ) {\n"
		       "x = external<scalar>(shape = [1, 4, 1, 2]);\n"
		       "y = slice(x, axes = [1], begin = [-1], end = [-5], stride = [-2]);\n}\n",
		       x, back2, 4, 0);
	}

	/* border 'reflect-even' mirrors with the edge: slices, reverse and concat */
	{
		float sym[28];
		for (int j = 0; j < 7; j++)
			for (int k = 0; k < 4; k++) {
				int ch = j - 2 < 0 ? -(j - 2) - 1 : j - 2 > 3 ? 7 - (j - 2) : j - 2;
				int p = k - 1 < 0 ? 0 : k - 1 > 1 ? 1 : k - 1;
				sym[j * 4 + k] = (float)(ch * 2 + p + 1);
			}
		check1(ctx, "pad reflect-even", HDR "graph G( x ) -> ( y ) {\n"
		       "x = external<scalar>(shape = [1, 4, 1, 2]);\n"
		       "y = pad(x, padding = [(0, 0), (2, 1), (0, 0), (1, 1)], "
		       "border = 'reflect-even');\n}\n", x, sym, 28, 0);
		const float avg[8] = { 1, 1.5f, 3, 3.5f, 5, 5.5f, 7, 7.5f };
		check1(ctx, "avg_pool reflect-even", HDR "graph G( x ) -> ( y ) {\n"
		       "x = external<scalar>(shape = [1, 4, 1, 2]);\n"
		       "y = avg_pool(x, size = [1, 1, 1, 2], padding = [(0, 0), (0, 0), (0, 0), (1, 0)], "
		       "border = 'reflect-even');\n}\n", x, avg, 8, 1e-6f);
	}

	/* asin, acos, atan: a polynomial within 2 ulp of atan, composed in WebNN */
	{
		const float u[8] = { -1, -0.999f, -0.5f, 0, 0.3f, 0.75f, 0.99999f, 1 };
		const float v[8] = { -1e6f, -3.5f, -1, -0.2f, 0, 0.7f, 1.5f, 40 };
		float as[8], ac[8], at[8];
		for (int i = 0; i < 8; i++) {
			as[i] = (float)asin(u[i]);
			ac[i] = (float)acos(u[i]);
			at[i] = (float)atan(v[i]);
		}
		check1(ctx, "asin", HDR "graph G( x ) -> ( y ) {\n"
		       "x = external<scalar>(shape = [8]);\ny = asin(x);\n}\n", u, as, 8, 1e-6f);
		check1(ctx, "acos", HDR "graph G( x ) -> ( y ) {\n"
		       "x = external<scalar>(shape = [8]);\ny = acos(x);\n}\n", u, ac, 8, 1e-6f);
		check1(ctx, "atan", HDR "graph G( x ) -> ( y ) {\n"
		       "x = external<scalar>(shape = [8]);\ny = atan(x);\n}\n", v, at, 8, 1e-6f);
	}

	/* linear: matmul with transposeB plus a [1, O] bias; split into ratios; slice */
	{
		struct webnn_model *m = load(ctx, HDR "graph G( x ) -> ( y, s0, s1, t ) {\n"
					     "x = external<scalar>(shape = [2, 4]);\n"
					     "w = constant<scalar>(shape = [3, 4], value = [1.0, 0.0, 0.0, 0.0, "
					     "0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);\n"
					     "b = constant<scalar>(shape = [1, 3], value = [0.5, 0.25, 0.0]);\n"
					     "y = linear(x, w, b);\n"
					     "[s0, s1] = split(x, axis = 1, ratios = [1, 3]);\n"
					     "t = slice(x, axes = [1], begin = [1], end = [0]);\n}\n", NULL);
		float y[6], s0[2], s1[6], t[6];
		float *outs[4] = { y, s0, s1, t };
		const float *ins[1] = { x };
		run(ctx, m, ins, outs);
		float wy[6] = { 1.5f, 2.25f, 10, 5.5f, 6.25f, 26 };
		float ws0[2] = { 1, 5 }, ws1[6] = { 2, 3, 4, 6, 7, 8 };
		ct_assert_floats("linear", y, wy, 6, 1e-5f);
		ct_assert_floats("split 0", s0, ws0, 2, 0);
		ct_assert_floats("split 1", s1, ws1, 6, 0);
		ct_assert_floats("slice to the end", t, ws1, 6, 0);
		webnn_model_destroy(m);
	}
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* Loads, runs with one input and compares every output with want[i] (n[i] values). */
static void check_all(struct webnn_context *ctx, const char *what, const char *text,
		      const float *in, const float *const *want, const size_t *n, size_t n_out,
		      float tol)
{
	struct webnn_model *m = load(ctx, text, NULL);
	ASSERT_MSG(webnn_model_output_count(m) == n_out, "%s: %zu outputs", what,
		   webnn_model_output_count(m));
	float *got[16];
	for (size_t i = 0; i < n_out; i++) {
		struct webnn_operand_desc d;
		webnn_model_output_desc(m, i, &d);
		ASSERT_MSG(count_of(&d) == n[i], "%s: output %zu has %zu values, expected %zu", what,
			   i, count_of(&d), n[i]);
		got[i] = calloc(n[i], sizeof(float));
	}
	run(ctx, m, &in, got);
	for (size_t i = 0; i < n_out; i++) {
		char w[128];
		snprintf(w, sizeof(w), "%s: %s", what, webnn_model_output_name(m, i));
		ct_assert_floats(w, got[i], want[i], n[i], tol);
		free(got[i]);
	}
	webnn_model_destroy(m);
}

/* multilinear_upsample's sample of an input axis of n entries at output o (f = m / n). */
static double upsample_pos(int method, int o, int n, int f)
{
	int m = n * f;
	return method == 0 ? (o + 0.5) / f - 0.5 : method == 1 ? (double)o / f
	       : m > 1 ? (double)o * (n - 1) / (m - 1) : 0;
}

/* The reference: bilinear interpolation on the method's grid, with zeros outside the input
 * (border 'constant') or its edge ('replicate'). x is [1, C, H, W]. */
static void upsample_ref(const float *x, int C, int H, int W, const int *f, int method,
			 bool replicate, float *y)
{
	int H2 = H * f[0], W2 = W * f[1];
	for (int c = 0; c < C; c++)
		for (int oh = 0; oh < H2; oh++)
			for (int ow = 0; ow < W2; ow++) {
				double ph = upsample_pos(method, oh, H, f[0]);
				double pw = upsample_pos(method, ow, W, f[1]);
				double h0 = floor(ph), w0 = floor(pw), acc = 0;
				for (int a = 0; a < 2; a++)
					for (int b = 0; b < 2; b++) {
						int ih = (int)h0 + a, iw = (int)w0 + b;
						double wt = (a ? ph - h0 : 1 - (ph - h0)) *
							    (b ? pw - w0 : 1 - (pw - w0));
						if (ih < 0 || ih >= H || iw < 0 || iw >= W) {
							if (!replicate)
								continue;
							ih = ih < 0 ? 0 : ih >= H ? H - 1 : ih;
							iw = iw < 0 ? 0 : iw >= W ? W - 1 : iw;
						}
						acc += wt * x[(c * H + ih) * W + iw];
					}
				y[(c * H2 + oh) * W2 + ow] = (float)acc;
			}
}

/* Every method and border of multilinear_upsample (WebNN's resample2d is half-pixel with the edge
 * only: the others are NNEF's factor-2 deconvolution or interpolation matrices), factors 2 and
 * 3, against the reference above. */
TEST(nnef_multilinear_upsample_methods)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "nnef");
	enum { C = 2, H = 3, W = 4 };
	float x[C * H * W];
	for (int i = 0; i < C * H * W; i++)
		x[i] = (float)((i * 7) % 11) - 3.5f + (float)(i / 12);
	static const char *const methods[] = { "symmetric", "asymmetric", "aligned" };
	static const int factors[][2] = { { 2, 2 }, { 3, 2 }, { 1, 4 } };
	float want[C * H * 4 * W * 4];
	for (int mth = 0; mth < 3; mth++)
		for (int rep = 0; rep < 2; rep++)
			for (int fi = 0; fi < 3; fi++) {
				const int *f = factors[fi];
				upsample_ref(x, C, H, W, f, mth, rep, want);
				char text[512], what[128];
				snprintf(text, sizeof(text), HDR "graph G( x ) -> ( y ) {\n"
					 "x = external<scalar>(shape = [1, %d, %d, %d]);\n"
					 "y = multilinear_upsample(x, factor = [%d, %d], method = '%s', "
					 "border = '%s');\n}\n", C, H, W, f[0], f[1], methods[mth],
					 rep ? "replicate" : "constant");
				snprintf(what, sizeof(what), "%s, %s, factor [%d, %d]", methods[mth],
					 rep ? "replicate" : "constant", f[0], f[1]);
				check1(ctx, what, text, x, want, (size_t)C * H * f[0] * W * f[1],
				       1e-5f);
			}
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [1, 1, 2, 2]);\n"
		   "y = multilinear_upsample(x, factor = [2, 2], method = 'cubic');\n}\n",
		   "nnef: graph.nnef:5: multilinear_upsample: unknown method 'cubic' (NNEF has "
		   "'symmetric', 'asymmetric' and 'aligned')");
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [1, 1, 2, 2]);\n"
		   "y = multilinear_upsample(x, factor = [2, 2], border = 'reflect');\n}\n",
		   "nnef: graph.nnef:5: multilinear_upsample: border 'reflect' is not defined for "
		   "multilinear_upsample (NNEF has 'constant' and 'replicate')");
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(nnef_stdlib_ops)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "nnef");

	/* sliding windows: deconv with automatic padding, 1-D conv with borders, resampling */
	float x4[4] = { 1, 2, 3, 4 };
	float up[16] = { 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4 };
	float lin[16] = { 1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f,
			  2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4 };
	float tens[4] = { 10, 10, 10, 10 }, area[1] = { 2.5f }, near[1] = { 1 };
	const float *w1[] = { up, tens, up, lin, area, near };
	size_t n1[] = { 16, 4, 16, 16, 1, 1 };
	check_all(ctx, "windows", HDR "graph G( x ) -> ( d2, d1, nu, mu, ad, nd ) {\n"
		  "x = external<scalar>(shape = [1, 1, 2, 2]);\n"
		  "d2 = deconv(x, constant<scalar>(shape = [1, 1, 2, 2], value = [1.0]), stride = [2, 2]);\n"
		  "d1 = deconv(x, constant<scalar>(shape = [1, 1, 3, 3], value = [1.0]));\n"
		  "nu = nearest_upsample(x, factor = [2, 2]);\n"
		  "mu = multilinear_upsample(x, factor = [2, 2]);\n"
		  "ad = area_downsample(x, factor = [2, 2]);\n"
		  "nd = nearest_downsample(x, factor = [2, 2]);\n}\n", x4, w1, n1, 6, 1e-5f);
	float x5[5] = { 1, 2, 3, 4, 5 };
	float c0[5] = { -2, -2, -2, -2, 4 }, cr[5] = { -1, -2, -2, -2, -1 };
	const float *w2[] = { c0, cr };
	size_t n2[] = { 5, 5 };
	check_all(ctx, "conv1d", HDR "graph G( x ) -> ( a, b ) {\n"
		  "x = external<scalar>(shape = [1, 1, 5]);\n"
		  "f = [[[1.0, 0.0, -1.0]]];\n"
		  "a = conv(x, f, padding = [(1, 1)]);\n"
		  "b = conv(x, f, padding = [(1, 1)], border = 'replicate');\n}\n", x5, w2, n2, 2, 0);
	float p9[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	float sums[4] = { 12, 16, 24, 28 }, dil[1] = { 9 };
	const float *w3[] = { sums, dil };
	size_t n3[] = { 4, 1 };
	check_all(ctx, "box", HDR "graph G( x ) -> ( s, m ) {\n"
		  "x = external<scalar>(shape = [1, 1, 3, 3]);\n"
		  "s = box(x, size = [1, 1, 2, 2], padding = [(0, 0)] * 4);\n"
		  "m = max_pool(x, size = [1, 1, 2, 2], dilation = [1, 1, 2, 2], padding = [(0, 0)] * 4);\n}\n",
		  p9, w3, n3, 2, 0);

	/* shapes and data movement on [2, 3] */
	float x6[6] = { 1, 2, 3, 4, 5, 6 };
	float tr[6] = { 1, 4, 2, 5, 3, 6 }, st[12] = { 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6 };
	float u0[3] = { 1, 2, 3 }, u1[3] = { 4, 5, 6 }, pd[8] = { 9, 1, 2, 3, 9, 4, 5, 6 };
	float ga[4] = { 3, 1, 6, 4 }, am[2] = { 2, 2 }, mn[3] = { 1, 2, 3 }, sm[2] = { 6, 15 };
	float me[1] = { 3.5f }, mm[9] = { 17, 22, 27, 22, 29, 36, 27, 36, 45 };
	const float *w4[] = { tr, x6, st, u0, u1, st, pd, ga, am, mn, sm, me, mm };
	size_t n4[] = { 6, 6, 12, 3, 3, 12, 8, 4, 2, 3, 2, 1, 9 };
	check_all(ctx, "data", HDR
		  "graph G( x ) -> ( tr, sq, st, u0, u1, ti, pd, ga, am, mn, sm, me, mm ) {\n"
		  "x = external<scalar>(shape = [2, 3]);\n"
		  "tr = transpose(x, axes = [1, 0]);\n"
		  "sq = squeeze(unsqueeze(x, axes = [0, 3]), axes = [0, 3]);\n"
		  "st = stack([x, x], axis = 1);\n"
		  "[u0, u1] = unstack(x, axis = 0);\n"
		  "ti = tile(x, repeats = [1, 2]);\n"
		  "pd = pad(x, padding = [(0, 0), (1, 0)], value = 9.0);\n"
		  "ga = gather(x, constant<integer>(shape = [2], value = [2, 0]), axis = 1);\n"
		  "am = argmax_reduce(x, axes = [1]);\n"
		  "mn = min_reduce(x, axes = [0]);\n"
		  "sm = sum_reduce(x, axes = [1]);\n"
		  "me = mean_reduce(x, axes = [0, 1]);\n"
		  "mm = matmul(x, x, transposeA = true);\n}\n", x6, w4, n4, 13, 1e-5f);

	/* activations, hyperbolic functions, logic, quantization, add_n and copy_n */
	float v[4] = { -2, -0.5f, 0, 1.5f };
	float selu[4], lrelu[4], prelu[4], elu[4], silu[4], sabs[4], sh[4], ch[4], ash[4], ath[4],
		lg[4], q[4], an[4];
	for (int i = 0; i < 4; i++) {
		float x = v[i];
		selu[i] = 1.05070102f * (x < 0 ? 1.67326319f * (expf(x) - 1) : x);
		lrelu[i] = x < 0 ? 0.1f * x : x;
		prelu[i] = x < 0 ? 0.2f * x : x;
		elu[i] = x < 0 ? 2 * (expf(x) - 1) : x;
		silu[i] = x / (1 + expf(-x));
		sabs[i] = sqrtf(x * x + 0.25f);
		sh[i] = sinhf(x);
		ch[i] = coshf(x);
		ash[i] = asinhf(x);
		ath[i] = atanhf(x * 0.4f);
		lg[i] = !(x < 0) && x < 1 ? 1.0f : 0.0f;
		q[i] = roundf(x * 0.7f / 0.5f) * 0.5f;
		an[i] = 3 * x;
	}
	const float *w5[] = { selu, lrelu, prelu, elu, silu, sabs, sh, ch, ash, ath, lg, q, an, v, v };
	size_t n5[15];
	for (int i = 0; i < 15; i++)
		n5[i] = 4;
	check_all(ctx, "elementwise", HDR
		  "graph G( x ) -> ( a, b, c, d, e, f, g, h, i, j, k, l, m, n, o ) {\n"
		  "x = external<scalar>(shape = [4]);\n"
		  "a = selu(x);\nb = leaky_relu(x, alpha = 0.1);\nc = prelu(x, 0.2);\n"
		  "d = elu(x, alpha = 2.0);\ne = silu(x);\nf = softabs(x, epsilon = 0.25);\n"
		  "g = sinh(x);\nh = cosh(x);\ni = asinh(x);\nj = atanh(x * 0.4);\n"
		  "k = select(!(x < 0.0) && x < 1.0, 1.0, 0.0);\n"
		  "l = zero_point_linear_quantize(x * 0.7, 0, 0.5, bits = 8, signed = true, "
		  "symmetric = false);\n"
		  "m = add_n([x, x, x]);\n[n, o] = copy_n(x, times = 2);\n}\n",
		  v, w5, n5, 15, 1e-5f);

	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* The compositional syntax: generic fragments with defaults, comprehensions, recursion,
 * conditional expressions, shape_of and length_of, strings, tuples and arrays. */
TEST(nnef_compositional_syntax)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "nnef");
	const char *text = HDR
		"fragment scale_all<? = scalar>( x: tensor<?>, factors: scalar[] = [1.0, 2.0] )\n"
		"-> ( y: tensor<?>[] )\n{\n    y = [for f in factors yield x * f];\n}\n"
		"fragment sum_of( items: scalar[] ) -> ( s: scalar )\n{\n"
		"    s = items[0] + sum_of(items[1:]) if length_of(items) > 0 else 0.0;\n}\n"
		"fragment shaped( x: tensor<scalar>, tag: string = 'ab' ) -> ( y: tensor<scalar>, "
		"z: tensor<scalar> )\n{\n"
		"    dims = shape_of(x);\n    n = dims[1] * dims[2];\n"
		"    k = 2 if tag + 'c' == 'abc' && 3 in [1, 2, 3] else 5;\n"
		"    odd = [i * 10 for i in range_of(dims) if i != 1];\n"
		"    (y, z) = (reshape(x, shape = [dims[0], n]) * sum_of([1.0, 2.0, 3.0]),\n"
		"              x + scalar(k) + scalar(length_of(odd)) + scalar(odd[1]) / 10.0);\n}\n"
		"graph G( input ) -> ( a, b, c, e )\n{\n"
		"    input = external<scalar>(shape = [1, 2, 2]);\n"
		"    [a, b] = scale_all(input, factors = [3.0, 0.5]);\n"
		"    c, e = shaped(input);\n}\n";
	struct webnn_model *m = load(ctx, text, NULL);
	float x[4] = { 1, 2, 3, 4 };
	float a[4], b[4], c[4], e[4];
	float *outs[4] = { a, b, c, e };
	const float *ins[1] = { x };
	run(ctx, m, ins, outs);
	float wa[4], wb[4], wc[4], we[4];
	for (int i = 0; i < 4; i++) {
		wa[i] = 3 * x[i];
		wb[i] = 0.5f * x[i];
		wc[i] = 6 * x[i];
		we[i] = x[i] + 2 + 2 + 2;
	}
	ct_assert_floats("comprehension a", a, wa, 4, 0);
	ct_assert_floats("comprehension b", b, wb, 4, 0);
	ct_assert_floats("recursion", c, wc, 4, 0);
	ct_assert_floats("conditional", e, we, 4, 0);
	struct webnn_operand_desc dc;
	webnn_model_output_desc(m, 2, &dc);
	ASSERT(dc.rank == 2 && dc.shape[0] == 1 && dc.shape[1] == 4);
	ASSERT(strcmp(webnn_model_input_name(m, 0), "input") == 0);
	ASSERT(strcmp(webnn_model_output_name(m, 3), "e") == 0);
	webnn_model_destroy(m);

	/* the formal description's draft forms (extent, [e for i in a if c], no semicolons) and
	 * a free dimension bound by the caller */
	const char *draft = "version 1.0\n"
		"fragment twice( input: tensor, size: extent[] = [1] ) -> ( output: tensor )\n"
		"{\n    output = input * scalar(length_of([i for i in size if i > 1]) + 1)\n}\n"
		"graph G( input ) -> ( output )\n{\n"
		"    input = external(shape = [N, 2])\n"
		"    output = twice(input, size = [3, 5, 1])\n}\n";
	struct webnn_dim_binding dims[1] = { { "N", 2 } };
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	o.format = WEBNN_MODEL_FORMAT_NNEF;
	o.dims = dims;
	o.n_dims = 1;
	char err[512];
	m = NULL;
	enum webnn_status s = webnn_model_load_memory(ctx, draft, strlen(draft), NULL, &o, &m, err,
						      sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "%s", err);
	struct webnn_operand_desc di;
	webnn_model_input_desc(m, 0, &di);
	ASSERT(di.rank == 2 && di.shape[0] == 2 && di.shape[1] == 2);
	float y[4], w3[4] = { 3, 6, 9, 12 };
	float *o1[1] = { y };
	run(ctx, m, ins, o1);
	ct_assert_floats("draft syntax", y, w3, 4, 0);
	webnn_model_destroy(m);
	/* a binding the graph never looks up is an error */
	struct webnn_dim_binding extra[2] = { { "N", 2 }, { "Q", 1 } };
	o.dims = extra;
	o.n_dims = 2;
	s = webnn_model_load_memory(ctx, draft, strlen(draft), NULL, &o, &m, err, sizeof(err));
	ASSERT_EQ(s, WEBNN_STATUS_TYPE_ERROR);
	ASSERT_STREQ(err, "nnef: graph.nnef:6: dimension binding 'Q' names no identifier the "
			  "graph leaves undefined");
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(nnef_errors)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "nnef");
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [1]);\ny = foo(x);\n}\n",
		   "nnef: graph.nnef:5: unknown operation 'foo'");
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [1]);\ny = relu(x)\n"
		   "z = ;\n}\n", "nnef: graph.nnef:6: expected an expression, found ';'");
	load_fails(ctx, "graph G( x ) -> ( y ) {}", "nnef: graph.nnef:1: expected 'version' first");
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [1, 1, 2, 2]);\n"
		   "y = pad(x, padding = [(0, 0), (0, 0), (3, 0), (0, 0)], border = 'reflect-even');"
		   "\n}\n", "nnef: graph.nnef:5: pad: border 'reflect-even': padding 3, 0 of axis 2 is "
		   "more than its size 2");
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [1, 1, 4, 4]);\n"
		   "y = max_pool_with_index(x, size = [1, 1, 2, 2]);\n}\n",
		   "WebNN has no pooling with indices");
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [1]);\n"
		   "y = relu(x, alpha = 1.0);\n}\n", "'relu' has no parameter 'alpha'");
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external<integer>(shape = [2]);\n"
		   "y = x + 1.5;\n}\n", "nnef: graph.nnef:5: add: the scalar 1.5 where an integer "
		   "tensor is expected");
	/* hostile: deep nesting, huge dimensions, unbounded recursion and arrays */
	char *deep = malloc(200000);
	strcpy(deep, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [1]);\ny = ");
	size_t n = strlen(deep);
	for (int i = 0; i < 50000; i++)
		deep[n++] = '(';
	strcpy(deep + n, "x;\n}\n");
	load_fails(ctx, deep, "nesting deeper than 200 levels");
	free(deep);
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [4294967296]);\n"
		   "y = relu(x);\n}\n", "dimension 4294967296 is out of range");
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [65536, 65536, 65536]);\n"
		   "y = relu(x);\n}\n", "nnef: graph.nnef:4: external: WebNN input failed");
	/* libwebnn's message is not prefixed with the operator a second time */
	load_fails(ctx, HDR "graph G( x, w ) -> ( y ) {\nx = external(shape = [2, 3]);\n"
		   "w = external(shape = [4, 5]);\ny = add(x, w);\n}\n",
		   "nnef: graph.nnef:6: add: WebNN add failed (TypeError): input shapes [2, 3] "
		   "and [4, 5] are not broadcastable");
	load_fails(ctx, HDR "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = f(x); }\n"
		   "graph G( x ) -> ( y ) {\nx = external(shape = [1]);\ny = f(x);\n}\n",
		   "operations nested deeper than 256");
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [1]);\n"
		   "y = constant(shape = [1], value = [0.0] * 100000000);\n}\n",
		   "more than the 4194304 items allowed");
	load_fails(ctx, HDR "graph G( x ) -> ( y ) {\nx = external(shape = [1]);\n"
		   "y = variable(shape = [1], label = '../etc/passwd');\n}\n",
		   "is not a relative path inside the model folder");
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ---- .dat files */
static void dat_write(const char *path, uint32_t type, uint32_t bits, uint32_t rank,
		      const uint32_t *shape, const void *data, size_t bytes, int32_t lie)
{
	uint8_t h[128] = { 'N', 0xEF, 1, 0 };
	uint32_t len = (uint32_t)bytes + (uint32_t)lie;
	memcpy(h + 4, &len, 4);
	memcpy(h + 8, &rank, 4);
	memcpy(h + 12, shape, rank * 4);
	memcpy(h + 44, &bits, 4);
	memcpy(h + 48, &type, 4);
	FILE *f = fopen(path, "wb");
	ASSERT(f);
	ASSERT(fwrite(h, 1, 128, f) == 128);
	ASSERT(fwrite(data, 1, bytes, f) == bytes);
	fclose(f);
}

struct progress {
	double *fractions;
	int n;
};

static void on_progress(void *user_data, double fraction)
{
	struct progress *p = user_data;
	if (p->n < 8)
		p->fractions[p->n] = fraction;
	p->n++;
}

TEST(nnef_dat_files)
{
	char dir[] = "/tmp/wnn-nnef-XXXXXX";
	ASSERT(mkdtemp(dir));
	char path[256];
	uint32_t shape4[1] = { 4 };
	/* logicals packed most significant bit first */
	uint8_t bits[1] = { 0xA0 };
	snprintf(path, sizeof(path), "%s/b.dat", dir);
	dat_write(path, 5, 1, 1, shape4, bits, 1, 0);
	struct webnn_operand_desc desc;
	void *data;
	size_t size;
	char err[256];
	ASSERT_MSG(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)) ==
		   WEBNN_STATUS_OK, "%s", err);
	ASSERT(desc.data_type == WEBNN_UINT8 && size == 4);
	ASSERT(memcmp(data, "\1\0\1\0", 4) == 0);
	free(data);
	/* 4-bit signed integers: 7, -8, 1, -1 */
	uint8_t nib[2] = { 0x78, 0x1F };
	snprintf(path, sizeof(path), "%s/i4.dat", dir);
	dat_write(path, 4, 4, 1, shape4, nib, 2, 0);
	ASSERT_MSG(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)) ==
		   WEBNN_STATUS_OK, "%s", err);
	ASSERT(desc.data_type == WEBNN_INT8 && size == 4);
	ASSERT(memcmp(data, "\x07\xf8\x01\xff", 4) == 0);
	free(data);
	/* lying lengths, huge dimensions */
	float f4[4] = { 1, 2, 3, 4 };
	snprintf(path, sizeof(path), "%s/lie.dat", dir);
	dat_write(path, 0, 32, 1, shape4, f4, 16, 4);
	ASSERT(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)) != 0);
	ASSERT_CONTAINS(err, "the header says 20 data bytes, 4 items of 32 bits take 16");
	uint32_t huge[3] = { 65536, 65536, 65536 };
	snprintf(path, sizeof(path), "%s/huge.dat", dir);
	dat_write(path, 0, 32, 3, huge, f4, 16, 0);
	ASSERT(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)) != 0);
	ASSERT_CONTAINS(err, "more than 4294967296 items");
	snprintf(path, sizeof(path), "%s/short.dat", dir);
	FILE *f = fopen(path, "wb");
	ASSERT(f && fwrite("N\xef\1\0", 1, 4, f) == 4);
	fclose(f);
	ASSERT(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)) != 0);
	ASSERT_CONTAINS(err, "shorter than the 128-byte NNEF tensor header");

	/* variables: float32, float16 and 8-bit quantized through graph.quant, in a folder */
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "nnef");
	snprintf(path, sizeof(path), "%s/w", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/w/f32.dat", dir);
	dat_write(path, 0, 32, 1, shape4, f4, 16, 0);
	uint16_t h4[4] = { 0x3c00, 0x4000, 0xbc00, 0x3800 }; /* 1, 2, -1, 0.5 */
	snprintf(path, sizeof(path), "%s/w/f16.dat", dir);
	dat_write(path, 0, 16, 1, shape4, h4, 8, 0);
	uint8_t q4[4] = { 0, 10, 20, 255 };
	snprintf(path, sizeof(path), "%s/w/q8.dat", dir);
	dat_write(path, 2, 8, 1, shape4, q4, 4, 0);
	snprintf(path, sizeof(path), "%s/graph.quant", dir);
	f = fopen(path, "w");
	ASSERT(f);
	fprintf(f, "\"q\": zero_point_linear_quantize(zero_point = 10, scale = 0.5, bits = 8, "
		   "signed = false, symmetric = false);\n"
		   "\"y\": zero_point_linear_quantize(zero_point = 0, scale = 4.0, bits = 16, "
		   "signed = true, symmetric = false);\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/graph.nnef", dir);
	f = fopen(path, "w");
	ASSERT(f);
	fprintf(f, "version 1.0;\ngraph G( x ) -> ( y ) {\n"
		   "x = external<scalar>(shape = [4]);\n"
		   "a = variable<scalar>(shape = [4], label = 'w/f32');\n"
		   "b = variable<scalar>(shape = [4], label = 'w/f16');\n"
		   "q = variable<scalar>(shape = [4], label = 'w/q8');\n"
		   "y = x + a * 100.0 + b * 10.0 + q;\n}\n");
	fclose(f);
	struct webnn_model *m = NULL;
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	double fractions[8];
	struct progress p = { fractions, 0 };
	o.progress = on_progress;
	o.user_data = &p;
	enum webnn_status s = webnn_model_load(ctx, dir, &o, &m, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "%s", err);
	/* one report per variable, the last one complete */
	ASSERT_MSG(p.n == 3 && fractions[2] == 1.0, "%d progress reports", p.n);
	float x[4] = { 0.25f, 0.25f, 0.25f, 0.25f }, y[4];
	float *outs[1] = { y };
	const float *ins[1] = { x };
	run(ctx, m, ins, outs);
	/* 105.25, 220.25, 295.25 and 527.75 on y's grid of 4.0 */
	float want[4] = { 104, 220, 296, 528 };
	ct_assert_floats("variables", y, want, 4, 1e-4f);
	webnn_model_destroy(m);
	/* a variable whose file lies about its length */
	snprintf(path, sizeof(path), "%s/w/f32.dat", dir);
	dat_write(path, 0, 32, 1, shape4, f4, 12, 4);
	ASSERT(webnn_model_load(ctx, dir, NULL, &m, err, sizeof(err)) != WEBNN_STATUS_OK);
	ASSERT_CONTAINS(err, "nnef: graph.nnef:4: variable: variable 'w/f32': f32.dat: 12 data "
			"bytes follow the header, it says 16");
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT(system(cmd) == 0);
}

/* The committed test folders in webnn-run --check's layout (graph.nnef, inputs/<external>.dat,
 * outputs/<result>.dat), run through the library. */
TEST(nnef_check_folders)
{
	const char *root = "tests/data/nnef";
	DIR *dd = opendir(root);
	if (!dd)
		SKIP("%s not found (run from the source tree)", root);
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "nnef");
	struct dirent *de;
	int cases = 0;
	while ((de = readdir(dd))) {
		if (de->d_name[0] == '.')
			continue;
		char dir[512], path[1024], err[512];
		snprintf(dir, sizeof(dir), "%s/%s", root, de->d_name);
		struct webnn_model *m = NULL;
		enum webnn_status s = webnn_model_load(ctx, dir, NULL, &m, err, sizeof(err));
		ASSERT_MSG(s == WEBNN_STATUS_OK, "%s: %s", dir, err);
		float *ins[8], *outs[8], *want[8];
		size_t ni = webnn_model_input_count(m), no = webnn_model_output_count(m);
		for (size_t i = 0; i < ni; i++) {
			struct webnn_operand_desc desc;
			void *data;
			size_t size;
			snprintf(path, sizeof(path), "%s/inputs/%s.dat", dir, webnn_model_input_name(m, i));
			ASSERT_MSG(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)) ==
				   0, "%s", err);
			ins[i] = data;
		}
		for (size_t i = 0; i < no; i++) {
			struct webnn_operand_desc desc, od;
			void *data;
			size_t size;
			snprintf(path, sizeof(path), "%s/outputs/%s.dat", dir, webnn_model_output_name(m, i));
			ASSERT_MSG(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)) ==
				   0, "%s", err);
			webnn_model_output_desc(m, i, &od);
			ASSERT(count_of(&od) == count_of(&desc));
			want[i] = data;
			outs[i] = calloc(count_of(&od), sizeof(float));
		}
		run(ctx, m, (const float *const *)ins, outs);
		for (size_t i = 0; i < no; i++) {
			struct webnn_operand_desc od;
			webnn_model_output_desc(m, i, &od);
			ct_assert_floats(dir, outs[i], want[i], count_of(&od), 1e-4f);
			free(outs[i]);
			free(want[i]);
		}
		for (size_t i = 0; i < ni; i++)
			free(ins[i]);
		webnn_model_destroy(m);
		cases++;
	}
	closedir(dd);
	ASSERT(cases >= 2);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* webnn_model_inspect on an NNEF folder: the inputs and outputs of the trial load, or its error
 * as the one problem; nothing without a context. */
TEST(nnef_inspect)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "nnef-inspect");
	char dir[64], path[128];
	snprintf(dir, sizeof(dir), "/tmp/wnn-nnef-XXXXXX");
	ASSERT(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/graph.nnef", dir);
	static const char *const texts[2] = {
		HDR "graph G( x ) -> ( y ) {\nx = external(shape = [2, 3]);\ny = relu(x);\n}\n",
		HDR "graph G( x ) -> ( y ) {\nx = external(shape = [1]);\ny = foo(x);\n}\n",
	};
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(path, "w");
		ASSERT(f && fputs(texts[i], f) >= 0 && fclose(f) == 0);
		struct webnn_model_info *info = NULL;
		char err[512] = "";
		ASSERT_MSG(webnn_model_inspect(ctx, dir, NULL, &info, err, sizeof(err)) ==
				   WEBNN_STATUS_OK, "%s", err);
		ASSERT_STREQ(info->format, "nnef");
		if (i == 0) {
			ASSERT_EQ(info->n_problems, 0);
			ASSERT_EQ(info->n_inputs, 1);
			ASSERT_STREQ(info->inputs[0].name, "x");
			ASSERT_EQ(info->inputs[0].rank, 2);
			ASSERT_EQ(info->inputs[0].shape[1], 3);
			ASSERT_EQ(info->n_outputs, 1);
		} else {
			ASSERT_EQ(info->n_problems, 1);
			ASSERT_STREQ(info->problems[0], "nnef: graph.nnef:5: unknown operation 'foo'");
		}
		webnn_model_info_destroy(info);
		ASSERT(webnn_model_inspect(NULL, dir, NULL, &info, err, sizeof(err)) ==
		       WEBNN_STATUS_OK);
		ASSERT_EQ(info->n_inputs + info->n_problems, 0);
		webnn_model_info_destroy(info);
	}
	remove(path);
	rmdir(dir);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* options.binds on NNEF: a bound external is a constant and leaves the graph's inputs; a
 * binding of another shape, or of no parameter, is refused. */
TEST(nnef_bound_input)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "nnef");
	static const char text[] = HDR "graph g( x, k ) -> ( y ) {\n"
				   "  x = external<scalar>(shape = [2, 2]);\n"
				   "  k = external<scalar>(shape = [1, 2]);\n"
				   "  y = mul(x, k);\n}\n";
	static const float k[2] = { 2, -1 };
	struct webnn_input_binding b = { "k", { WEBNN_FLOAT32, 2, { 1, 2 } }, k, sizeof(k) };
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	o.format = WEBNN_MODEL_FORMAT_NNEF;
	o.binds = &b;
	o.n_binds = 1;
	struct webnn_model *m = NULL;
	char err[512] = "";
	ASSERT_MSG(webnn_model_load_memory(ctx, text, strlen(text), NULL, &o, &m, err,
					   sizeof(err)) == WEBNN_STATUS_OK, "%s", err);
	ASSERT_EQ(webnn_model_input_count(m), 1);
	ASSERT_STREQ(webnn_model_input_name(m, 0), "x");
	const float x[4] = { 1, 2, 3, 4 }, want[4] = { 2, -2, 6, -4 };
	float y[4], *outs[1] = { y };
	const float *ins[1] = { x };
	run(ctx, m, ins, outs);
	ct_assert_floats("x * bound k", y, want, 4, 0);
	webnn_model_destroy(m);
	b.desc.shape[1] = 1;
	b.size = 4;
	ASSERT(webnn_model_load_memory(ctx, text, strlen(text), NULL, &o, &m, err, sizeof(err)) ==
	       WEBNN_STATUS_TYPE_ERROR && !m);
	ASSERT_CONTAINS(err, "bound input 'k': the value's type or shape differs from the "
			     "external's (float32, rank 2)");
	b.desc.shape[1] = 2;
	b.size = sizeof(k);
	b.name = "z";
	ASSERT(webnn_model_load_memory(ctx, text, strlen(text), NULL, &o, &m, err, sizeof(err)) !=
	       WEBNN_STATUS_OK && !m);
	ASSERT_CONTAINS(err, "bound input 'z' is not a parameter of the graph");
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}
