/* ONNX importer: onnxruntime's transformer operators (com.microsoft) against C references. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proto/wnn.h"
#include "tests/clienttest.h"
#include "tests/onnx_writer.h"
#include "webnn_import.h"

/* Starts a model of the ai.onnx opset 17 and com.microsoft 1. */
static void model_begin(struct onnx_writer *w)
{
	onnx_writer_init(w, 17);
	onnx_writer_opset(w, "com.microsoft", 1);
}

/* Writes the model to dir/model.onnx and frees the writer. */
static void model_write(struct onnx_writer *w, const char *dir)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	ASSERT(onnx_writer_save(w, path));
	onnx_writer_free(w);
}

/* ---- running: inputs and outputs by name */

struct io {
	const char *name;
	void *data;
	size_t bytes;
};

/* WEBNN_ONNX_KEEP=DIR keeps each model run here, with its inputs and webnnd's outputs, in
 * DIR/<pid>_<n>/ (model.onnx, in.NAME.bin, out.NAME.bin raw, manifest.txt: "in|out NAME TYPE
 * DIMS..."): bench/ort_contrib_check.js runs them through onnxruntime-node (make
 * ort-check-contrib). */
static char last_model_dir[64];

static void keep_one(const char *dir, const char *role, const struct io *v, FILE *manifest,
		     const struct webnn_operand_desc *d)
{
	fprintf(manifest, "%s %s %s", role, v->name, webnn_data_type_name(d->data_type));
	for (uint32_t r = 0; r < d->rank; r++)
		fprintf(manifest, " %u", d->shape[r]);
	fprintf(manifest, "\n");
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s.%s.bin", dir, role, v->name);
	FILE *f = fopen(path, "wb");
	ASSERT(f && fwrite(v->data, 1, v->bytes, f) == v->bytes && fclose(f) == 0);
}

static void keep(struct webnn_model *model, const struct io *in, size_t n_in,
		 const struct io *out, size_t n_out)
{
	const char *root = getenv("WEBNN_ONNX_KEEP");
	static unsigned count;
	if (!root || !*root)
		return;
	char dir[768], cmd[1024];
	snprintf(dir, sizeof(dir), "%s/%d_%u", root, (int)getpid(), count++);
	ASSERT(mkdir(dir, 0755) == 0);
	snprintf(cmd, sizeof(cmd), "cp '%s/model.onnx' '%s/'", last_model_dir, dir);
	ASSERT(system(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "%s/manifest.txt", dir);
	FILE *manifest = fopen(cmd, "w");
	ASSERT(manifest);
	for (size_t i = 0; i < n_in + n_out; i++) {
		bool is_in = i < n_in;
		const struct io *v = is_in ? &in[i] : &out[i - n_in];
		size_t count_k = is_in ? webnn_model_input_count(model) : webnn_model_output_count(model);
		for (size_t k = 0; k < count_k; k++) {
			const char *name = is_in ? webnn_model_input_name(model, k)
						 : webnn_model_output_name(model, k);
			if (strcmp(name, v->name) != 0)
				continue;
			struct webnn_operand_desc d;
			if (is_in)
				webnn_model_input_desc(model, k, &d);
			else
				webnn_model_output_desc(model, k, &d);
			keep_one(dir, is_in ? "in" : "out", v, manifest, &d);
		}
	}
	ASSERT(fclose(manifest) == 0);
}

static struct webnn_model *load(struct webnn_context *ctx, const char *dir)
{
	snprintf(last_model_dir, sizeof(last_model_dir), "%s", dir);
	char path[512], err[1024] = "";
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	struct webnn_model *model = NULL;
	enum webnn_status s = webnn_model_load(ctx, path, NULL, &model, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "load: %s: %s", webnn_status_name(s), err);
	return model;
}

static void expect_load_error(struct webnn_context *ctx, const char *dir, const char *needle)
{
	char path[512], err[1024] = "";
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	struct webnn_model *model = NULL;
	enum webnn_status s = webnn_model_load(ctx, path, NULL, &model, err, sizeof(err));
	ASSERT_MSG(s != WEBNN_STATUS_OK && !model, "load succeeded, expected \"%s\"", needle);
	ASSERT_CONTAINS(err, needle);
}

static size_t desc_bytes(const struct webnn_operand_desc *d)
{
	size_t b = webnn_data_type_size(d->data_type);
	for (uint32_t k = 0; k < d->rank; k++)
		b *= d->shape[k];
	return b;
}

static void run(struct webnn_context *ctx, struct webnn_model *model, const struct io *in,
		size_t n_in, struct io *out, size_t n_out)
{
	struct webnn_named_tensor ti[16], to[16];
	ASSERT(n_in == webnn_model_input_count(model) && n_out == webnn_model_output_count(model));
	for (size_t i = 0; i < n_in; i++) {
		size_t k = 0;
		while (strcmp(webnn_model_input_name(model, k), in[i].name) != 0)
			ASSERT(++k < n_in);
		struct webnn_tensor_desc d = { .writable = true };
		webnn_model_input_desc(model, k, &d.desc);
		ASSERT_MSG(desc_bytes(&d.desc) == in[i].bytes, "input %s: %zu bytes, expected %zu",
			   in[i].name, in[i].bytes, desc_bytes(&d.desc));
		ti[i].name = in[i].name;
		OK(ctx, webnn_context_create_tensor(ctx, &d, &ti[i].tensor));
		OK(ctx, webnn_context_write_tensor(ctx, ti[i].tensor, in[i].data, in[i].bytes));
	}
	for (size_t i = 0; i < n_out; i++) {
		size_t k = 0;
		while (strcmp(webnn_model_output_name(model, k), out[i].name) != 0)
			ASSERT(++k < n_out);
		struct webnn_tensor_desc d = { .readable = true };
		webnn_model_output_desc(model, k, &d.desc);
		ASSERT_MSG(desc_bytes(&d.desc) == out[i].bytes, "output %s: %zu bytes, expected %zu",
			   out[i].name, desc_bytes(&d.desc), out[i].bytes);
		to[i].name = out[i].name;
		OK(ctx, webnn_context_create_tensor(ctx, &d, &to[i].tensor));
	}
	OK(ctx, webnn_context_dispatch(ctx, webnn_model_graph(model), ti, n_in, to, n_out));
	for (size_t i = 0; i < n_out; i++) {
		OK(ctx, webnn_context_read_tensor(ctx, to[i].tensor, out[i].data, out[i].bytes));
		webnn_tensor_destroy(to[i].tensor);
	}
	for (size_t i = 0; i < n_in; i++)
		webnn_tensor_destroy(ti[i].tensor);
	keep(model, in, n_in, out, n_out);
}

/* Deterministic values in [-1, 1). */
static void fill(float *v, size_t n, unsigned seed)
{
	uint32_t s = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		v[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
}

static void close_to(const char *what, const float *got, const double *want, size_t n, double tol)
{
	for (size_t i = 0; i < n; i++)
		ASSERT_MSG(fabs(got[i] - want[i]) <= tol, "%s[%zu] = %.7g, expected %.7g", what, i,
			   (double)got[i], want[i]);
}

/* Every case runs on the reference backend and on the cpu backend. */
static void each_backend(void (*fn)(struct webnn_context *ctx, const char *dir))
{
	static const char *const backends[] = { "reference", "cpu" };
	for (int b = 0; b < 2; b++) {
		struct test_daemon d;
		const char *const args[] = { "--backend", backends[b], NULL };
		ct_require_webnnd();
		test_daemon_start(&d, args);
		struct webnn_context *ctx = ct_connect(&d, "onnx-transformer");
		char dir[64];
		snprintf(dir, sizeof(dir), "/tmp/wnn-onnx-XXXXXX");
		ASSERT(mkdtemp(dir));
		fprintf(stderr, "backend %s\n", backends[b]);
		fn(ctx, dir);
		char path[96];
		snprintf(path, sizeof(path), "%s/model.onnx", dir);
		unlink(path);
		rmdir(dir);
		webnn_context_destroy(ctx);
		test_daemon_stop(&d);
	}
}

/* ---- the operators' definitions, written out */

static double gelu_ref(double x)
{
	return 0.5 * x * (1 + erf(x / sqrt(2.0)));
}

static double fast_gelu_ref(double x)
{
	return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

/* Normalizes rows of h values: layer normalization or RMS (simplified). */
static void norm_ref(const double *x, size_t rows, size_t h, const float *gamma, const float *beta,
		     bool simplified, double eps, double *y, double *mean, double *inv)
{
	for (size_t r = 0; r < rows; r++) {
		const double *xr = x + r * h;
		double mu = 0, var = 0;
		for (size_t i = 0; i < h; i++)
			mu += xr[i];
		mu /= (double)h;
		double c = simplified ? 0 : mu;
		for (size_t i = 0; i < h; i++)
			var += (xr[i] - c) * (xr[i] - c);
		var /= (double)h;
		double is = 1 / sqrt(var + eps);
		for (size_t i = 0; i < h; i++)
			y[r * h + i] = (xr[i] - c) * is * (gamma ? gamma[i] : 1) + (beta ? beta[i] : 0);
		if (mean)
			mean[r] = mu;
		if (inv)
			inv[r] = is;
	}
}

/* softmax(q k^T scale + add) v over the allowed keys: q [B, N, S, H], k [B, N, T, H],
 * v [B, N, T, Hv], add and allowed [B, N, S, T] (NULL: none / all); out [B, S, N*Hv]. */
static void sdpa_ref(const double *q, const double *k, const double *v, const double *add,
		     const uint8_t *allowed, int B, int N, int S, int T, int H, int Hv,
		     double scale, double *out)
{
	double *p = malloc(sizeof(double) * (size_t)T);
	ASSERT(p);
	for (int b = 0; b < B; b++)
		for (int h = 0; h < N; h++)
			for (int i = 0; i < S; i++) {
				size_t row = ((size_t)(b * N + h) * S + i) * T;
				double mx = -INFINITY, sum = 0;
				for (int j = 0; j < T; j++) {
					double s = 0;
					for (int c = 0; c < H; c++)
						s += q[((size_t)(b * N + h) * S + i) * H + c] *
						     k[((size_t)(b * N + h) * T + j) * H + c];
					s = s * scale + (add ? add[row + j] : 0);
					p[j] = allowed && !allowed[row + j] ? -INFINITY : s;
					mx = p[j] > mx ? p[j] : mx;
				}
				for (int j = 0; j < T; j++)
					sum += p[j] = exp(p[j] - mx);
				for (int c = 0; c < Hv; c++) {
					double o = 0;
					for (int j = 0; j < T; j++)
						o += p[j] / sum * v[((size_t)(b * N + h) * T + j) * Hv + c];
					out[((size_t)b * S + i) * N * Hv + h * Hv + c] = o;
				}
			}
	free(p);
}

/* [B, L, N*H] (float) -> [B, N, L, H] (double), plus bias[off + n*H + c] when bias. */
static void split_heads(const float *x, const float *bias, int B, int L, int N, int H, int stride,
			int off, double *out)
{
	for (int b = 0; b < B; b++)
		for (int l = 0; l < L; l++)
			for (int h = 0; h < N; h++)
				for (int c = 0; c < H; c++)
					out[(((size_t)b * N + h) * L + l) * H + c] =
						x[((size_t)b * L + l) * stride + off + h * H + c] +
						(bias ? bias[off + h * H + c] : 0);
}

/* ---- activations */

static void activations_case(struct webnn_context *ctx, const char *dir)
{
	static const int64_t xd[3] = { 2, 3, 4 }, bd[1] = { 4 };
	float x[24], bias[4], skip[24];
	fill(x, 24, 1);
	fill(bias, 4, 2);
	fill(skip, 24, 3);
	for (int i = 0; i < 24; i++)
		x[i] *= 3; /* reach gelu's curved part */
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_input(&wr, "skip", ONNX_FLOAT, 3, xd);
	onnx_writer_initializer(&wr, "bias", ONNX_FLOAT, 1, bd, bias);
	onnx_writer_node(&wr, "g", "Gelu", "com.microsoft", "x", "gelu");
	onnx_writer_node(&wr, "bg", "BiasGelu", "com.microsoft", "x,bias", "bias_gelu");
	onnx_writer_node(&wr, "fg", "FastGelu", "com.microsoft", "x,bias", "fast_gelu");
	onnx_writer_node(&wr, "fg0", "FastGelu", "com.microsoft", "x", "fast_gelu0");
	onnx_writer_attr_float(&wr, onnx_writer_node(&wr, "qg", "QuickGelu", "com.microsoft", "x",
						     "quick_gelu"), "alpha", 1.5f);
	onnx_writer_node(&wr, "ba", "BiasAdd", "com.microsoft", "x,bias,skip", "bias_add");
	const char *names[6] = { "gelu", "bias_gelu", "fast_gelu", "fast_gelu0", "quick_gelu",
				 "bias_add" };
	for (int i = 0; i < 6; i++)
		onnx_writer_output(&wr, names[i], ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	float got[6][24];
	struct io in[2] = { { "x", x, sizeof(x) }, { "skip", skip, sizeof(skip) } }, out[6];
	for (int i = 0; i < 6; i++)
		out[i] = (struct io){ names[i], got[i], sizeof(got[i]) };
	run(ctx, model, in, 2, out, 6);
	double want[6][24];
	for (int i = 0; i < 24; i++) {
		double xb = (double)x[i] + bias[i % 4];
		want[0][i] = gelu_ref(x[i]);
		want[1][i] = gelu_ref(xb);
		want[2][i] = fast_gelu_ref(xb);
		want[3][i] = fast_gelu_ref(x[i]);
		want[4][i] = x[i] / (1 + exp(-1.5 * x[i]));
		want[5][i] = xb + skip[i];
	}
	for (int i = 0; i < 6; i++)
		close_to(names[i], got[i], want[i], 24, 2e-5);
	webnn_model_destroy(model);
}

TEST(onnx_ort_activations)
{
	each_backend(activations_case);
}

/* ---- FusedMatMul; LayerNormalization in an opset before 17 (onnxruntime's fused models) */

static void fused_matmul_case(struct webnn_context *ctx, const char *dir)
{
	static const int64_t ad[3] = { 2, 3, 4 }, bd[3] = { 2, 5, 4 }, atd[3] = { 2, 4, 3 },
			     gd[1] = { 4 };
	float a[24], b[40], at[24], gamma[4], beta[4];
	fill(a, 24, 81);
	fill(b, 40, 82);
	fill(at, 24, 83);
	fill(gamma, 4, 84);
	fill(beta, 4, 85);
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_opset(&wr, "", 13);
	onnx_writer_input(&wr, "a", ONNX_FLOAT, 3, ad);
	onnx_writer_input(&wr, "at", ONNX_FLOAT, 3, atd);
	onnx_writer_initializer(&wr, "b", ONNX_FLOAT, 3, bd, b);
	onnx_writer_initializer(&wr, "gamma", ONNX_FLOAT, 1, gd, gamma);
	onnx_writer_initializer(&wr, "beta", ONNX_FLOAT, 1, gd, beta);
	Onnx__NodeProto *f = onnx_writer_node(&wr, "fm", "FusedMatMul", "com.microsoft", "a,b",
					      "y");
	onnx_writer_attr_int(&wr, f, "transB", 1);
	onnx_writer_attr_float(&wr, f, "alpha", 0.5f);
	Onnx__NodeProto *f2 = onnx_writer_node(&wr, "fm2", "FusedMatMul", "com.microsoft", "at,b",
					       "y2");
	onnx_writer_attr_int(&wr, f2, "transA", 1);
	onnx_writer_attr_int(&wr, f2, "transB", 1);
	Onnx__NodeProto *ln = onnx_writer_node(&wr, "ln", "LayerNormalization", "", "a,gamma,beta",
					       "ln,ln_mean,ln_inv");
	onnx_writer_attr_float(&wr, ln, "epsilon", 1e-5f);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "y2", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "ln", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "ln_mean", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "ln_inv", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	float y[30], y2[30], lny[24], lnm[6], lni[6];
	struct io in[2] = { { "a", a, sizeof(a) }, { "at", at, sizeof(at) } };
	struct io out[5] = { { "y", y, sizeof(y) },
			     { "y2", y2, sizeof(y2) },
			     { "ln", lny, sizeof(lny) },
			     { "ln_mean", lnm, sizeof(lnm) },
			     { "ln_inv", lni, sizeof(lni) } };
	run(ctx, model, in, 2, out, 5);
	double want[30], want2[30], x[24], ly[24], lm[6], li[6];
	for (int bt = 0; bt < 2; bt++)
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 5; j++) {
				double s1 = 0, s2 = 0;
				for (int k = 0; k < 4; k++) {
					s1 += (double)a[(bt * 3 + i) * 4 + k] * b[(bt * 5 + j) * 4 + k];
					s2 += (double)at[(bt * 4 + k) * 3 + i] * b[(bt * 5 + j) * 4 + k];
				}
				want[(bt * 3 + i) * 5 + j] = 0.5 * s1;
				want2[(bt * 3 + i) * 5 + j] = s2;
			}
	close_to("FusedMatMul transB alpha", y, want, 30, 1e-5);
	close_to("FusedMatMul transA transB", y2, want2, 30, 1e-5);
	for (int i = 0; i < 24; i++)
		x[i] = a[i];
	norm_ref(x, 6, 4, gamma, beta, false, 1e-5, ly, lm, li);
	close_to("opset 13 LayerNormalization", lny, ly, 24, 1e-4);
	close_to("opset 13 LayerNormalization Mean", lnm, lm, 6, 1e-5);
	close_to("opset 13 LayerNormalization InvStdDev", lni, li, 6, 1e-3);
	webnn_model_destroy(model);
}

TEST(onnx_ort_fused_matmul)
{
	each_backend(fused_matmul_case);
}

/* ---- normalizations */

static void norms_case(struct webnn_context *ctx, const char *dir)
{
	static const int64_t xd[3] = { 2, 3, 8 }, hd[1] = { 8 }, sd2[2] = { 3, 8 };
	float x[48], skip[24], gamma[8], beta[8], bias[8];
	fill(x, 48, 4);
	fill(skip, 24, 5);
	fill(gamma, 8, 6);
	fill(beta, 8, 7);
	fill(bias, 8, 8);
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, xd);
	/* broadcast over the batch */
	onnx_writer_initializer(&wr, "skip", ONNX_FLOAT, 2, sd2, skip);
	onnx_writer_initializer(&wr, "gamma", ONNX_FLOAT, 1, hd, gamma);
	onnx_writer_initializer(&wr, "beta", ONNX_FLOAT, 1, hd, beta);
	onnx_writer_initializer(&wr, "bias", ONNX_FLOAT, 1, hd, bias);
	Onnx__NodeProto *sln = onnx_writer_node(&wr, "sln", "SkipLayerNormalization",
						"com.microsoft", "x,skip,gamma,beta,bias",
						"ln,ln_mean,ln_inv,ln_sum");
	onnx_writer_attr_float(&wr, sln, "epsilon", 1e-5f);
	onnx_writer_node(&wr, "ssln", "SkipSimplifiedLayerNormalization", "com.microsoft",
			 "x,skip,gamma,bias", "rms,rms_mean,rms_inv,rms_sum");
	onnx_writer_node(&wr, "sln2", "SkipLayerNormalization", "com.microsoft", "x,skip,gamma",
			 "ln2");
	Onnx__NodeProto *s1 = onnx_writer_node(&wr, "simp", "SimplifiedLayerNormalization", "",
					       "x,gamma", "simp,simp_inv");
	onnx_writer_attr_float(&wr, s1, "epsilon", 1e-6f);
	/* over the last two axes (scale broadcast from [8]) */
	Onnx__NodeProto *s2 = onnx_writer_node(&wr, "simp2", "SimplifiedLayerNormalization", "",
					       "x,gamma", "simp2,simp2_inv");
	onnx_writer_attr_int(&wr, s2, "axis", 1);
	const char *names[12] = { "ln",	   "ln_mean", "ln_inv", "ln_sum",   "rms",   "rms_mean",
				  "rms_inv", "rms_sum", "ln2",	  "simp",   "simp_inv", "simp2" };
	for (int i = 0; i < 12; i++)
		onnx_writer_output(&wr, names[i], ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "simp2_inv", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	float ln[48], ln_mean[6], ln_inv[6], ln_sum[48], rms[48], rms_mean[6], rms_inv[6],
		rms_sum[48], ln2[48], simp[48], simp_inv[6], simp2[48], simp2_inv[2];
	struct io in[1] = { { "x", x, sizeof(x) } };
	struct io out[13] = {
		{ "ln", ln, sizeof(ln) },	  { "ln_mean", ln_mean, sizeof(ln_mean) },
		{ "ln_inv", ln_inv, sizeof(ln_inv) }, { "ln_sum", ln_sum, sizeof(ln_sum) },
		{ "rms", rms, sizeof(rms) },	  { "rms_mean", rms_mean, sizeof(rms_mean) },
		{ "rms_inv", rms_inv, sizeof(rms_inv) },
		{ "rms_sum", rms_sum, sizeof(rms_sum) }, { "ln2", ln2, sizeof(ln2) },
		{ "simp", simp, sizeof(simp) },	  { "simp_inv", simp_inv, sizeof(simp_inv) },
		{ "simp2", simp2, sizeof(simp2) },  { "simp2_inv", simp2_inv, sizeof(simp2_inv) },
	};
	run(ctx, model, in, 1, out, 13);
	double s[48], s0[48], xd64[48], y[48], mean[6], inv[6];
	for (int i = 0; i < 48; i++) {
		s0[i] = (double)x[i] + skip[i % 24];
		s[i] = s0[i] + bias[i % 8];
		xd64[i] = x[i];
	}
	norm_ref(s, 6, 8, gamma, beta, false, 1e-5, y, mean, inv);
	close_to("SkipLayerNormalization", ln, y, 48, 1e-4);
	close_to("mean", ln_mean, mean, 6, 1e-5);
	close_to("inv_std_var", ln_inv, inv, 6, 1e-3);
	close_to("input_skip_bias_sum", ln_sum, s, 48, 1e-6);
	norm_ref(s, 6, 8, gamma, NULL, true, 1e-12, y, NULL, inv);
	static const double zeros[6];
	close_to("SkipSimplifiedLayerNormalization mean (0: no mean is removed)", rms_mean, zeros, 6,
		 0);
	close_to("SkipSimplifiedLayerNormalization", rms, y, 48, 1e-4);
	close_to("SkipSimplifiedLayerNormalization inv_std_var", rms_inv, inv, 6, 1e-3);
	close_to("SkipSimplifiedLayerNormalization sum", rms_sum, s, 48, 1e-6);
	norm_ref(s0, 6, 8, gamma, NULL, false, 1e-12, y, NULL, NULL);
	close_to("SkipLayerNormalization without beta and bias", ln2, y, 48, 1e-4);
	norm_ref(xd64, 6, 8, gamma, NULL, true, 1e-6, y, NULL, inv);
	close_to("SimplifiedLayerNormalization", simp, y, 48, 1e-4);
	close_to("SimplifiedLayerNormalization inv_std_var", simp_inv, inv, 6, 1e-3);
	norm_ref(xd64, 2, 24, NULL, NULL, true, 1e-5, y, NULL, inv);
	for (int i = 0; i < 48; i++)
		y[i] *= gamma[i % 8];
	close_to("SimplifiedLayerNormalization axis 1", simp2, y, 48, 1e-4);
	close_to("SimplifiedLayerNormalization axis 1 inv_std_var", simp2_inv, inv, 2, 1e-3);
	webnn_model_destroy(model);
}

TEST(onnx_ort_normalizations)
{
	each_backend(norms_case);
}

static void embed_case(struct webnn_context *ctx, const char *dir)
{
	static const int64_t idd[2] = { 2, 3 }, wd[2] = { 10, 4 }, pd[2] = { 8, 4 }, sd[2] = { 2, 4 },
			     hd[1] = { 4 };
	int32_t ids[6] = { 1, 9, 4, 0, 7, 7 }, seg[6] = { 0, 1, 1, 0, 0, 1 },
		mask[6] = { 1, 1, 0, 1, 1, 1 };
	float word[40], pos[32], segw[8], gamma[4], beta[4];
	fill(word, 40, 11);
	fill(pos, 32, 12);
	fill(segw, 8, 13);
	fill(gamma, 4, 14);
	fill(beta, 4, 15);
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "ids", ONNX_INT32, 2, idd);
	onnx_writer_input(&wr, "seg", ONNX_INT32, 2, idd);
	onnx_writer_input(&wr, "mask", ONNX_INT32, 2, idd);
	onnx_writer_initializer(&wr, "word", ONNX_FLOAT, 2, wd, word);
	onnx_writer_initializer(&wr, "pos", ONNX_FLOAT, 2, pd, pos);
	onnx_writer_initializer(&wr, "segw", ONNX_FLOAT, 2, sd, segw);
	onnx_writer_initializer(&wr, "gamma", ONNX_FLOAT, 1, hd, gamma);
	onnx_writer_initializer(&wr, "beta", ONNX_FLOAT, 1, hd, beta);
	onnx_writer_node(&wr, "e", "EmbedLayerNormalization", "com.microsoft",
			 "ids,seg,word,pos,segw,gamma,beta,mask", "y,mask_index,sum");
	/* no segments, no mask (mask_index all 0), position_ids [1, S] */
	static const int64_t pid_d[2] = { 1, 3 };
	static const int32_t pids[3] = { 2, 0, 5 };
	onnx_writer_initializer(&wr, "pids", ONNX_INT32, 2, pid_d, pids);
	onnx_writer_node(&wr, "e2", "EmbedLayerNormalization", "com.microsoft",
			 "ids,,word,pos,,gamma,beta,,pids", "y2,mask_index2");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "mask_index", ONNX_INT32, -1, NULL);
	onnx_writer_output(&wr, "sum", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "y2", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "mask_index2", ONNX_INT32, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	float y[24], sum[24], y2[24];
	int32_t mi[2], mi2[2];
	struct io in[3] = { { "ids", ids, sizeof(ids) }, { "seg", seg, sizeof(seg) },
			    { "mask", mask, sizeof(mask) } };
	struct io out[5] = { { "y", y, sizeof(y) },
			     { "mask_index", mi, sizeof(mi) },
			     { "sum", sum, sizeof(sum) },
			     { "y2", y2, sizeof(y2) },
			     { "mask_index2", mi2, sizeof(mi2) } };
	run(ctx, model, in, 3, out, 5);
	double s[24], want[24];
	for (int b = 0; b < 2; b++)
		for (int t = 0; t < 3; t++)
			for (int c = 0; c < 4; c++)
				s[(b * 3 + t) * 4 + c] = (double)word[ids[b * 3 + t] * 4 + c] +
							 pos[t * 4 + c] + segw[seg[b * 3 + t] * 4 + c];
	norm_ref(s, 6, 4, gamma, beta, false, 1e-12, want, NULL, NULL);
	close_to("EmbedLayerNormalization", y, want, 24, 1e-4);
	close_to("embedding_sum", sum, s, 24, 1e-6);
	ASSERT_EQ(mi[0], 2);
	ASSERT_EQ(mi[1], 3);
	for (int b = 0; b < 2; b++)
		for (int t = 0; t < 3; t++)
			for (int c = 0; c < 4; c++)
				s[(b * 3 + t) * 4 + c] = (double)word[ids[b * 3 + t] * 4 + c] +
							 pos[pids[t] * 4 + c];
	norm_ref(s, 6, 4, gamma, beta, false, 1e-12, want, NULL, NULL);
	close_to("EmbedLayerNormalization, position_ids, no segments", y2, want, 24, 1e-4);
	ASSERT_EQ(mi2[0], 0);
	ASSERT_EQ(mi2[1], 0);
	webnn_model_destroy(model);
}

TEST(onnx_ort_embed_layer_normalization)
{
	each_backend(embed_case);
}

/* ---- rotary embeddings */

/* Rotates x's rows ([rows, head], rot leading channels) at positions pos[row]. */
static void rotary_ref(const float *x, const int64_t *pos, int rows, int head, int rot,
		       const float *cc, const float *sc, bool interleaved, double *y)
{
	int half = rot / 2;
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * head;
		double *yr = y + (size_t)r * head;
		for (int c = rot; c < head; c++)
			yr[c] = xr[c];
		for (int i = 0; i < half; i++) {
			double c = cc[pos[r] * half + i], s = sc[pos[r] * half + i];
			int a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + half;
			yr[a] = xr[a] * c - xr[b] * s;
			yr[b] = xr[b] * c + xr[a] * s;
		}
	}
}

static void rotary_case(struct webnn_context *ctx, const char *dir)
{
	/* [B=2, S=3, N*H = 2*8]: full rotation (plain and interleaved), and a rank-4 input with a
	 * rotation of the first 4 channels of 8 and a scalar first position */
	static const int64_t xd[3] = { 2, 3, 16 }, x4d[4] = { 1, 2, 3, 8 }, pd[2] = { 2, 3 },
			     cd[2] = { 12, 4 }, cd2[2] = { 12, 2 }, od[1] = { 1 };
	float x[96], cc[48], sc[48], cc2[24], sc2[24];
	int64_t pos[6] = { 0, 1, 2, 5, 6, 7 }, first = 4;
	fill(x, 96, 21);
	for (int p = 0; p < 12; p++)
		for (int i = 0; i < 4; i++) {
			double th = p * pow(10000.0, -i / 4.0);
			cc[p * 4 + i] = (float)cos(th);
			sc[p * 4 + i] = (float)sin(th);
			if (i < 2) {
				cc2[p * 2 + i] = (float)cos(th * 1.5);
				sc2[p * 2 + i] = (float)sin(th * 1.5);
			}
		}
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_input(&wr, "x4", ONNX_FLOAT, 4, x4d);
	onnx_writer_initializer(&wr, "pos", ONNX_INT64, 2, pd, pos);
	onnx_writer_initializer(&wr, "first", ONNX_INT64, 1, od, &first);
	onnx_writer_initializer(&wr, "cc", ONNX_FLOAT, 2, cd, cc);
	onnx_writer_initializer(&wr, "sc", ONNX_FLOAT, 2, cd, sc);
	onnx_writer_initializer(&wr, "cc2", ONNX_FLOAT, 2, cd2, cc2);
	onnx_writer_initializer(&wr, "sc2", ONNX_FLOAT, 2, cd2, sc2);
	onnx_writer_attr_int(&wr, onnx_writer_node(&wr, "r", "RotaryEmbedding", "com.microsoft",
						   "x,pos,cc,sc", "y"), "num_heads", 2);
	Onnx__NodeProto *ri =
		onnx_writer_node(&wr, "ri", "RotaryEmbedding", "com.microsoft", "x,pos,cc,sc",
				 "yi");
	onnx_writer_attr_int(&wr, ri, "interleaved", 1);
	Onnx__NodeProto *r4 =
		onnx_writer_node(&wr, "r4", "RotaryEmbedding", "com.microsoft", "x4,first,cc2,sc2",
				 "y4");
	onnx_writer_attr_int(&wr, r4, "rotary_embedding_dim", 4);
	onnx_writer_attr_int(&wr, r4, "num_heads", 2);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "yi", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "y4", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	float x4[48], y[96], yi[96], y4[48];
	fill(x4, 48, 22);
	struct io in[2] = { { "x", x, sizeof(x) }, { "x4", x4, sizeof(x4) } };
	struct io out[3] = { { "y", y, sizeof(y) }, { "yi", yi, sizeof(yi) }, { "y4", y4, sizeof(y4) } };
	run(ctx, model, in, 2, out, 3);
	double want[96];
	int64_t rp[12];
	for (int r = 0; r < 12; r++)
		rp[r] = pos[r / 2]; /* rows are (b, s, head) */
	rotary_ref(x, rp, 12, 8, 8, cc, sc, false, want);
	close_to("RotaryEmbedding", y, want, 96, 1e-5);
	rotary_ref(x, rp, 12, 8, 8, cc, sc, true, want);
	close_to("RotaryEmbedding interleaved", yi, want, 96, 1e-5);
	for (int r = 0; r < 6; r++)
		rp[r] = first + r % 3; /* rows are (head, s) */
	rotary_ref(x4, rp, 6, 8, 4, cc2, sc2, false, want);
	close_to("RotaryEmbedding partial, rank 4", y4, want, 48, 1e-5);
	webnn_model_destroy(model);
}

TEST(onnx_ort_rotary_embedding)
{
	each_backend(rotary_case);
}

/* ---- attention */

static void attention_case(struct webnn_context *ctx, const char *dir)
{
	enum { B = 2, S = 3, IN = 4, N = 2, H = 2, D = N * H, P = 2, T = P + S };
	static const int64_t xd[3] = { B, S, IN }, wd[2] = { IN, 3 * D }, bd[1] = { 3 * D },
			     md[1] = { B }, pd[5] = { 2, B, N, P, H }, abd[4] = { 1, N, S, S },
			     m2d[2] = { B, T };
	float x[B * S * IN], w[IN * 3 * D], bias[3 * D], past[2 * B * N * P * H], ab[N * S * S];
	int32_t mask[B] = { 3, 2 }, mask2[B * T] = { 1, 1, 1, 1, 1, 0, 1, 1, 1, 1 };
	fill(x, sizeof(x) / 4, 31);
	fill(w, sizeof(w) / 4, 32);
	fill(bias, sizeof(bias) / 4, 33);
	fill(past, sizeof(past) / 4, 34);
	fill(ab, sizeof(ab) / 4, 35);
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_input(&wr, "past", ONNX_FLOAT, 5, pd);
	onnx_writer_initializer(&wr, "w", ONNX_FLOAT, 2, wd, w);
	onnx_writer_initializer(&wr, "b", ONNX_FLOAT, 1, bd, bias);
	onnx_writer_initializer(&wr, "mask", ONNX_INT32, 1, md, mask);
	onnx_writer_initializer(&wr, "ab", ONNX_FLOAT, 4, abd, ab);
	onnx_writer_initializer(&wr, "mask2", ONNX_INT32, 2, m2d, mask2);
	onnx_writer_attr_int(&wr, onnx_writer_node(&wr, "a1", "Attention", "com.microsoft",
						   "x,w,b,mask,,ab", "y1"), "num_heads", N);
	static const int64_t m3d[3] = { B, S, S }, m4d[1] = { 2 * B };
	static const int32_t mask3[B * S * S] = { 1, 0, 1, 1, 1, 0, 0, 1, 1,
						  1, 1, 1, 0, 0, 1, 1, 0, 0 },
			     mask4[2 * B] = { 3, 2, 1, 0 }; /* ends, then starts */
	onnx_writer_initializer(&wr, "mask3", ONNX_INT32, 3, m3d, mask3);
	onnx_writer_initializer(&wr, "mask4", ONNX_INT32, 1, m4d, mask4);
	onnx_writer_attr_int(&wr, onnx_writer_node(&wr, "a3", "Attention", "com.microsoft",
						   "x,w,b,mask3", "y3"), "num_heads", N);
	onnx_writer_attr_int(&wr, onnx_writer_node(&wr, "a4", "Attention", "com.microsoft",
						   "x,w,b,mask4", "y4"), "num_heads", N);
	Onnx__NodeProto *a2 = onnx_writer_node(&wr, "a2", "Attention", "com.microsoft",
					       "x,w,b,mask2,past", "y2,present");
	onnx_writer_attr_int(&wr, a2, "num_heads", N);
	onnx_writer_attr_int(&wr, a2, "unidirectional", 1);
	onnx_writer_output(&wr, "y1", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "y2", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "present", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "y3", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "y4", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	float y1[B * S * D], y2[B * S * D], present[2 * B * N * T * H], y3[B * S * D],
		y4[B * S * D];
	struct io in[2] = { { "x", x, sizeof(x) }, { "past", past, sizeof(past) } };
	struct io out[5] = { { "y1", y1, sizeof(y1) },
			     { "y2", y2, sizeof(y2) },
			     { "present", present, sizeof(present) },
			     { "y3", y3, sizeof(y3) },
			     { "y4", y4, sizeof(y4) } };
	run(ctx, model, in, 2, out, 5);
	/* projections */
	float proj[B * S * 3 * D];
	for (int r = 0; r < B * S; r++)
		for (int c = 0; c < 3 * D; c++) {
			double a = 0;
			for (int i = 0; i < IN; i++)
				a += (double)x[r * IN + i] * w[i * 3 * D + c];
			proj[r * 3 * D + c] = (float)a;
		}
	double q[B * N * S * H], k[B * N * S * H], v[B * N * S * H], want[B * S * D];
	split_heads(proj, bias, B, S, N, H, 3 * D, 0, q);
	split_heads(proj, bias, B, S, N, H, 3 * D, D, k);
	split_heads(proj, bias, B, S, N, H, 3 * D, 2 * D, v);
	double add[B * N * S * T];
	for (int b = 0; b < B; b++)
		for (int h = 0; h < N; h++)
			for (int i = 0; i < S; i++)
				for (int j = 0; j < S; j++)
					add[((b * N + h) * S + i) * S + j] =
						ab[(h * S + i) * S + j] + (j < mask[b] ? 0 : -10000);
	sdpa_ref(q, k, v, add, NULL, B, N, S, S, H, H, 1 / sqrt((double)H), want);
	close_to("Attention with mask_index [B], attention_bias", y1, want, B * S * D, 1e-4);
	for (int b = 0; b < B; b++)
		for (int h = 0; h < N; h++)
			for (int i = 0; i < S; i++)
				for (int j = 0; j < S; j++)
					add[((b * N + h) * S + i) * S + j] =
						mask3[(b * S + i) * S + j] ? 0 : -10000;
	sdpa_ref(q, k, v, add, NULL, B, N, S, S, H, H, 1 / sqrt((double)H), want);
	close_to("Attention with mask_index [B, S, T]", y3, want, B * S * D, 1e-4);
	for (int b = 0; b < B; b++)
		for (int h = 0; h < N; h++)
			for (int i = 0; i < S; i++)
				for (int j = 0; j < S; j++)
					add[((b * N + h) * S + i) * S + j] =
						j >= mask4[B + b] && j < mask4[b] ? 0 : -10000;
	sdpa_ref(q, k, v, add, NULL, B, N, S, S, H, H, 1 / sqrt((double)H), want);
	close_to("Attention with mask_index [2B]", y4, want, B * S * D, 1e-4);
	/* with past, causal, a [B, P + S] mask */
	double kk[B * N * T * H], vv[B * N * T * H];
	for (int b = 0; b < B; b++)
		for (int h = 0; h < N; h++)
			for (int j = 0; j < T; j++)
				for (int c = 0; c < H; c++) {
					size_t o = (((size_t)b * N + h) * T + j) * H + c;
					size_t po = (((size_t)b * N + h) * P + j) * H + c;
					size_t no = (((size_t)b * N + h) * S + (j - P)) * H + c;
					kk[o] = j < P ? past[po] : k[no];
					vv[o] = j < P ? past[B * N * P * H + po] : v[no];
				}
	for (int b = 0; b < B; b++)
		for (int h = 0; h < N; h++)
			for (int i = 0; i < S; i++)
				for (int j = 0; j < T; j++)
					add[((b * N + h) * S + i) * T + j] =
						j <= P + i && mask2[b * T + j] ? 0 : -10000;
	sdpa_ref(q, kk, vv, add, NULL, B, N, S, T, H, H, 1 / sqrt((double)H), want);
	close_to("Attention with past, unidirectional, mask [B, T]", y2, want, B * S * D, 1e-4);
	double pw[2 * B * N * T * H];
	for (size_t i = 0; i < B * N * T * H; i++)
		pw[i] = kk[i], pw[B * N * T * H + i] = vv[i];
	close_to("Attention present", present, pw, 2 * B * N * T * H, 1e-5);
	webnn_model_destroy(model);
}

TEST(onnx_ort_attention)
{
	each_backend(attention_case);
}

static void mha_case(struct webnn_context *ctx, const char *dir)
{
	enum { B = 1, S = 2, L = 3, N = 2, H = 2, D = N * H, P = 2, T = P + L };
	static const int64_t qd[3] = { B, S, D }, kd[3] = { B, L, D }, bd[1] = { 3 * D },
			     md[2] = { B, T }, pd[4] = { B, N, P, H };
	float q[B * S * D], k[B * L * D], v[B * L * D], bias[3 * D], pk[B * N * P * H],
		pv[B * N * P * H];
	int32_t mask[B * T] = { 1, 0, 1, 1, 1 };
	fill(q, sizeof(q) / 4, 41);
	fill(k, sizeof(k) / 4, 42);
	fill(v, sizeof(v) / 4, 43);
	fill(bias, sizeof(bias) / 4, 44);
	fill(pk, sizeof(pk) / 4, 45);
	fill(pv, sizeof(pv) / 4, 46);
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "q", ONNX_FLOAT, 3, qd);
	onnx_writer_input(&wr, "k", ONNX_FLOAT, 3, kd);
	onnx_writer_input(&wr, "v", ONNX_FLOAT, 3, kd);
	onnx_writer_input(&wr, "pk", ONNX_FLOAT, 4, pd);
	onnx_writer_input(&wr, "pv", ONNX_FLOAT, 4, pd);
	onnx_writer_initializer(&wr, "b", ONNX_FLOAT, 1, bd, bias);
	onnx_writer_initializer(&wr, "mask", ONNX_INT32, 2, md, mask);
	Onnx__NodeProto *a = onnx_writer_node(&wr, "mha", "MultiHeadAttention", "com.microsoft",
					      "q,k,v,b,mask,,pk,pv", "y,present_k,present_v");
	onnx_writer_attr_int(&wr, a, "num_heads", N);
	onnx_writer_attr_float(&wr, a, "scale", 0.3f);
	/* causal self-attention: query i sees keys j <= i */
	Onnx__NodeProto *c = onnx_writer_node(&wr, "mha_causal", "MultiHeadAttention",
					      "com.microsoft", "q,q,q", "yc");
	onnx_writer_attr_int(&wr, c, "num_heads", N);
	onnx_writer_attr_int(&wr, c, "unidirectional", 1);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "present_k", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "present_v", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "yc", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	float y[B * S * D], prk[B * N * T * H], prv[B * N * T * H], yc[B * S * D];
	struct io in[5] = { { "q", q, sizeof(q) },    { "k", k, sizeof(k) },
			    { "v", v, sizeof(v) },    { "pk", pk, sizeof(pk) },
			    { "pv", pv, sizeof(pv) } };
	struct io out[4] = { { "y", y, sizeof(y) }, { "present_k", prk, sizeof(prk) },
			     { "present_v", prv, sizeof(prv) }, { "yc", yc, sizeof(yc) } };
	run(ctx, model, in, 5, out, 4);
	double qh[B * N * S * H], kh[B * N * L * H], vh[B * N * L * H], kk[B * N * T * H],
		vv[B * N * T * H], want[B * S * D], add[B * N * S * T];
	float zero[3 * D] = { 0 };
	split_heads(q, bias, B, S, N, H, D, 0, qh);
	float kb[B * L * D], vb[B * L * D];
	for (int i = 0; i < B * L * D; i++) {
		kb[i] = k[i] + bias[D + i % D];
		vb[i] = v[i] + bias[2 * D + i % D];
	}
	split_heads(kb, NULL, B, L, N, H, D, 0, kh);
	split_heads(vb, NULL, B, L, N, H, D, 0, vh);
	for (int h = 0; h < N; h++)
		for (int j = 0; j < T; j++)
			for (int c2 = 0; c2 < H; c2++) {
				size_t o = ((size_t)h * T + j) * H + c2;
				kk[o] = j < P ? pk[(h * P + j) * H + c2] : kh[(h * L + j - P) * H + c2];
				vv[o] = j < P ? pv[(h * P + j) * H + c2] : vh[(h * L + j - P) * H + c2];
			}
	close_to("present_key", prk, kk, B * N * T * H, 1e-5);
	close_to("present_value", prv, vv, B * N * T * H, 1e-5);
	for (int h = 0; h < N; h++)
		for (int i = 0; i < S; i++)
			for (int j = 0; j < T; j++)
				add[(h * S + i) * T + j] = mask[j] ? 0 : -10000;
	sdpa_ref(qh, kk, vv, add, NULL, B, N, S, T, H, H, 0.3, want);
	close_to("MultiHeadAttention", y, want, B * S * D, 1e-4);
	split_heads(q, zero, B, S, N, H, D, 0, qh);
	uint8_t allowed[B * N * S * S];
	for (int h = 0; h < N; h++)
		for (int i = 0; i < S; i++)
			for (int j = 0; j < S; j++)
				allowed[(h * S + i) * S + j] = j <= i;
	sdpa_ref(qh, qh, qh, NULL, allowed, B, N, S, S, H, H, 1 / sqrt((double)H), want);
	close_to("MultiHeadAttention unidirectional", yc, want, B * S * D, 1e-4);
	webnn_model_destroy(model);
}

/* MultiHeadAttention's other layouts: packed QKV [B, S, N, 3, H]; packed KV [B, L, N, 2, H]
 * with attention_bias; cross-attention keys and values [B, N, L, H] with end positions. */
static void mha_forms_case(struct webnn_context *ctx, const char *dir)
{
	enum { S = 3, L = 3, N = 2, H = 2, D = N * H };
	static const int64_t pq[5] = { 1, S, N, 3, H }, qd[3] = { 1, S, D }, pkv[5] = { 1, L, N, 2, H },
			     k4[4] = { 1, N, L, H }, abd[4] = { 1, N, S, L }, md[1] = { 1 };
	float qkv[S * N * 3 * H], q[S * D], kv[L * N * 2 * H], kb[N * L * H], vb[N * L * H],
		ab[N * S * L];
	int32_t ends[1] = { 2 };
	fill(qkv, sizeof(qkv) / 4, 61);
	fill(q, sizeof(q) / 4, 62);
	fill(kv, sizeof(kv) / 4, 63);
	fill(kb, sizeof(kb) / 4, 64);
	fill(vb, sizeof(vb) / 4, 65);
	fill(ab, sizeof(ab) / 4, 66);
	/* [B, N, L, H] keys and values */
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "q", ONNX_FLOAT, 3, qd);
	onnx_writer_input(&wr, "k4", ONNX_FLOAT, 4, k4);
	onnx_writer_input(&wr, "v4", ONNX_FLOAT, 4, k4);
	onnx_writer_initializer(&wr, "ends", ONNX_INT32, 1, md, ends);
	onnx_writer_attr_int(&wr, onnx_writer_node(&wr, "x", "MultiHeadAttention", "com.microsoft",
						   "q,k4,v4,,ends", "yx"), "num_heads", N);
	onnx_writer_output(&wr, "yx", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	float y3[S * D], y2[S * D], yx[S * D];
	struct io in[3] = { { "q", q, sizeof(q) }, { "k4", kb, sizeof(kb) },
			    { "v4", vb, sizeof(vb) } };
	struct io out[1] = { { "yx", yx, sizeof(yx) } };
	run(ctx, model, in, 3, out, 1);
	webnn_model_destroy(model);
	/* packed QKV; packed KV with attention_bias (onnxruntime's CPU kernel has neither) */
	model_begin(&wr);
	onnx_writer_input(&wr, "qkv", ONNX_FLOAT, 5, pq);
	onnx_writer_input(&wr, "q", ONNX_FLOAT, 3, qd);
	onnx_writer_input(&wr, "kv", ONNX_FLOAT, 5, pkv);
	onnx_writer_initializer(&wr, "ab", ONNX_FLOAT, 4, abd, ab);
	onnx_writer_attr_int(&wr, onnx_writer_node(&wr, "p3", "MultiHeadAttention", "com.microsoft",
						   "qkv", "y3"), "num_heads", N);
	onnx_writer_attr_int(&wr, onnx_writer_node(&wr, "p2", "MultiHeadAttention", "com.microsoft",
						   "q,kv,,,,ab", "y2"), "num_heads", N);
	onnx_writer_output(&wr, "y3", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "y2", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	model = load(ctx, dir);
	struct io in2[3] = { { "qkv", qkv, sizeof(qkv) }, { "q", q, sizeof(q) },
			     { "kv", kv, sizeof(kv) } };
	struct io out2[2] = { { "y3", y3, sizeof(y3) }, { "y2", y2, sizeof(y2) } };
	run(ctx, model, in2, 3, out2, 2);
	webnn_model_destroy(model);
	double qh[N * S * H], kh[N * L * H], vh[N * L * H], want[S * D], add[N * S * L];
	double scale = 1 / sqrt((double)H);
	/* packed: element (s, n, part, c) */
	for (int h = 0; h < N; h++)
		for (int i = 0; i < S; i++)
			for (int c = 0; c < H; c++) {
				qh[(h * S + i) * H + c] = qkv[((i * N + h) * 3 + 0) * H + c];
				kh[(h * L + i) * H + c] = qkv[((i * N + h) * 3 + 1) * H + c];
				vh[(h * L + i) * H + c] = qkv[((i * N + h) * 3 + 2) * H + c];
			}
	sdpa_ref(qh, kh, vh, NULL, NULL, 1, N, S, L, H, H, scale, want);
	close_to("MultiHeadAttention packed QKV", y3, want, S * D, 1e-5);
	split_heads(q, NULL, 1, S, N, H, D, 0, qh);
	for (int h = 0; h < N; h++)
		for (int j = 0; j < L; j++)
			for (int c = 0; c < H; c++) {
				kh[(h * L + j) * H + c] = kv[((j * N + h) * 2 + 0) * H + c];
				vh[(h * L + j) * H + c] = kv[((j * N + h) * 2 + 1) * H + c];
			}
	for (int i = 0; i < N * S * L; i++)
		add[i] = ab[i];
	sdpa_ref(qh, kh, vh, add, NULL, 1, N, S, L, H, H, scale, want);
	close_to("MultiHeadAttention packed KV, attention_bias", y2, want, S * D, 1e-5);
	for (int i = 0; i < N * L * H; i++)
		kh[i] = kb[i], vh[i] = vb[i];
	for (int h = 0; h < N; h++)
		for (int i = 0; i < S; i++)
			for (int j = 0; j < L; j++)
				add[(h * S + i) * L + j] = j < ends[0] ? 0 : -10000;
	sdpa_ref(qh, kh, vh, add, NULL, 1, N, S, L, H, H, scale, want);
	close_to("MultiHeadAttention [B, N, L, H] keys, key_padding_mask [B]", yx, want, S * D,
		 1e-5);
}

TEST(onnx_ort_multi_head_attention_layouts)
{
	each_backend(mha_forms_case);
}

TEST(onnx_ort_multi_head_attention)
{
	each_backend(mha_case);
}

/* A GroupQueryAttention case: shapes, the cache, and the options. */
struct gqa {
	int B, S, N, kvN, H, P, total, window;
	const int32_t *seqlens;
	bool rotary, interleaved, packed, smooth;
	float softcap;
	const char *what;
	bool bias, posids; /* attention_bias [1, N, S, total]; position_ids [B, S] (past_b + i + 1) */
	bool sink;	   /* head_sink [N] */
};

/* Rotates the head vector x (H channels, all rotated) at position p by the caches (H / 2 wide). */
static void rot_ref(double *x, int H, int p, const float *cc, const float *sc, bool interleaved)
{
	int half = H / 2;
	for (int i = 0; i < half; i++) {
		double c = cc[p * half + i], s = sc[p * half + i];
		int a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + half;
		double xa = x[a], xb = x[b];
		x[a] = xa * c - xb * s;
		x[b] = xb * c + xa * s;
	}
}

/* GroupQueryAttention as onnxruntime's kernel computes it, per batch: total_b = seqlens_k[b]
 * + 1 keys; the new rows go at past_b = first ? 0 : total_b - S (rotated, with the queries, at
 * positions past_b + i, or position_ids); row i sees keys [max(0, past_b + i - window + 1),
 * past_b + i], its scores scaled, softcap tanh-bounded, attention_bias added, then softmax
 * (with an extra zero score when smooth); the present caches hold past_b past rows, then the
 * new ones, zeros after.
 * q [B, S, N*H], k and v [B, S, kvN*H], past [B, kvN, P, H]. */
static void gqa_ref(const struct gqa *g, const float *q, const float *k, const float *v,
		    const float *pk, const float *pv, const float *cc, const float *sc,
		    const float *bias, const float *sinks, int Tp, double *out, double *prk,
		    double *prv)
{
	int B = g->B, S = g->S, N = g->N, kvN = g->kvN, H = g->H, P = g->P;
	bool first = S == g->total;
	memset(prk, 0, sizeof(double) * (size_t)B * kvN * Tp * H);
	memset(prv, 0, sizeof(double) * (size_t)B * kvN * Tp * H);
	for (int b = 0; b < B; b++) {
		int past = first ? 0 : g->seqlens[b] + 1 - S;
		for (int h = 0; h < kvN; h++) {
			for (int j = 0; j < past && j < P; j++)
				for (int c = 0; c < H; c++) {
					size_t o = (((size_t)b * kvN + h) * Tp + j) * H + c;
					size_t po = (((size_t)b * kvN + h) * P + j) * H + c;
					prk[o] = pk[po];
					prv[o] = pv[po];
				}
			for (int i = 0; i < S; i++) {
				double *kr = prk + (((size_t)b * kvN + h) * Tp + past + i) * H;
				for (int c = 0; c < H; c++) {
					kr[c] = k[((size_t)b * S + i) * kvN * H + h * H + c];
					prv[(((size_t)b * kvN + h) * Tp + past + i) * H + c] =
						v[((size_t)b * S + i) * kvN * H + h * H + c];
				}
				if (g->rotary)
					rot_ref(kr, H, past + i + g->posids, cc, sc, g->interleaved);
			}
		}
		for (int h = 0; h < N; h++) {
			int kh = h / (N / kvN);
			for (int i = 0; i < S; i++) {
				double qr[64];
				ASSERT(H <= 64);
				for (int c = 0; c < H; c++)
					qr[c] = q[((size_t)b * S + i) * N * H + h * H + c];
				if (g->rotary)
					rot_ref(qr, H, past + i + g->posids, cc, sc, g->interleaved);
				int hi = past + i;
				int lo = g->window > 0 && hi - g->window + 1 > 0 ? hi - g->window + 1 : 0;
				double sink = g->sink ? sinks[h] : 0;
				double p[64], mx = g->smooth || g->sink ? sink : -INFINITY, sum = 0;
				ASSERT(hi < 64);
				for (int j = lo; j <= hi; j++) {
					double s = 0;
					for (int c = 0; c < H; c++)
						s += qr[c] * prk[(((size_t)b * kvN + kh) * Tp + j) * H + c];
					s /= sqrt((double)H);
					if (g->softcap > 0)
						s = g->softcap * tanh(s / g->softcap);
					if (bias)
						s += bias[((size_t)h * S + i) * g->total + j];
					p[j] = s;
					mx = p[j] > mx ? p[j] : mx;
				}
				for (int j = lo; j <= hi; j++)
					sum += p[j] = exp(p[j] - mx);
				if (g->smooth || g->sink)
					sum += exp(sink - mx);
				for (int c = 0; c < H; c++) {
					double o = 0;
					for (int j = lo; j <= hi; j++)
						o += p[j] / sum *
						     prv[(((size_t)b * kvN + kh) * Tp + j) * H + c];
					out[((size_t)b * S + i) * N * H + h * H + c] = o;
				}
			}
		}
	}
}

/* max_pos rows of cos/sin caches H / 2 wide. */
enum { GQA_MAX_POS = 16 };

static void gqa_model(const char *dir, const struct gqa *g, bool total_known, const float *cc,
		      const float *sc)
{
	int64_t qd[3] = { g->B, g->S, (g->N + (g->packed ? 2 * g->kvN : 0)) * g->H },
		kd[3] = { g->B, g->S, g->kvN * g->H }, pd[4] = { g->B, g->kvN, g->P, g->H },
		sd[1] = { g->B }, td[1] = { 1 }, cd[2] = { GQA_MAX_POS, g->H / 2 };
	int32_t tot = g->total;
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "q", ONNX_FLOAT, 3, qd);
	if (!g->packed) {
		onnx_writer_input(&wr, "k", ONNX_FLOAT, 3, kd);
		onnx_writer_input(&wr, "v", ONNX_FLOAT, 3, kd);
	}
	onnx_writer_input(&wr, "pk", ONNX_FLOAT, 4, pd);
	onnx_writer_input(&wr, "pv", ONNX_FLOAT, 4, pd);
	onnx_writer_input(&wr, "seqlens", ONNX_INT32, 1, sd);
	if (total_known)
		onnx_writer_initializer(&wr, "total", ONNX_INT32, 0, td, &tot);
	else
		onnx_writer_input(&wr, "total", ONNX_INT32, 0, td);
	if (g->rotary) {
		onnx_writer_initializer(&wr, "cc", ONNX_FLOAT, 2, cd, cc);
		onnx_writer_initializer(&wr, "sc", ONNX_FLOAT, 2, cd, sc);
	}
	if (g->posids) {
		int64_t pdd[2] = { g->B, g->S }, ids[64];
		ASSERT(g->B * g->S <= 64);
		for (int b = 0; b < g->B; b++)
			for (int i = 0; i < g->S; i++)
				ids[b * g->S + i] = (g->S == g->total ? 0 : g->seqlens[b] + 1 - g->S) + i + 1;
		onnx_writer_initializer(&wr, "posids", ONNX_INT64, 2, pdd, ids);
	}
	if (g->bias) {
		int64_t bdd[4] = { 1, g->N, g->S, g->total };
		size_t nb = (size_t)g->N * g->S * g->total;
		Onnx__TensorProto *t = onnx_writer_initializer(&wr, "bias", ONNX_FLOAT, 4, bdd,
							       NULL);
		fill((float *)t->raw_data.data, nb, 56);
	}
	if (g->sink) {
		int64_t nd[1] = { g->N };
		Onnx__TensorProto *t = onnx_writer_initializer(&wr, "sinks", ONNX_FLOAT, 1, nd,
							       NULL);
		fill((float *)t->raw_data.data, (size_t)g->N, 57);
	}
	/* the inputs in their places, the absent ones empty, none after the last present */
	const char *slot[12] = { "q",
				 g->packed ? "" : "k",
				 g->packed ? "" : "v",
				 "pk",
				 "pv",
				 "seqlens",
				 "total",
				 g->rotary ? "cc" : "",
				 g->rotary ? "sc" : "",
				 g->posids ? "posids" : "",
				 g->bias ? "bias" : "",
				 g->sink ? "sinks" : "" };
	int last = 11;
	while (!*slot[last])
		last--;
	char ins[128] = "";
	for (int i = 0; i <= last; i++)
		snprintf(ins + strlen(ins), sizeof(ins) - strlen(ins), "%s%s", i ? "," : "", slot[i]);
	Onnx__NodeProto *a = onnx_writer_node(&wr, "gqa", "GroupQueryAttention", "com.microsoft",
					      ins, "y,present_k,present_v");
	onnx_writer_attr_int(&wr, a, "num_heads", g->N);
	onnx_writer_attr_int(&wr, a, "kv_num_heads", g->kvN);
	if (g->window)
		onnx_writer_attr_int(&wr, a, "local_window_size", g->window);
	if (g->rotary)
		onnx_writer_attr_int(&wr, a, "do_rotary", 1);
	if (g->interleaved)
		onnx_writer_attr_int(&wr, a, "rotary_interleaved", 1);
	if (g->softcap > 0)
		onnx_writer_attr_float(&wr, a, "softcap", g->softcap);
	if (g->smooth)
		onnx_writer_attr_int(&wr, a, "smooth_softmax", 1);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "present_k", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "present_v", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
}

static void gqa_run(struct webnn_context *ctx, const char *dir, const struct gqa *g)
{
	float cc[GQA_MAX_POS * 32], sc[GQA_MAX_POS * 32];
	int half = g->H / 2;
	ASSERT(half <= 32);
	for (int p = 0; p < GQA_MAX_POS; p++)
		for (int i = 0; i < half; i++) {
			double th = p * pow(100.0, -(double)i / half);
			cc[p * half + i] = (float)cos(th);
			sc[p * half + i] = (float)sin(th);
		}
	gqa_model(dir, g, true, cc, sc);
	struct webnn_model *model = load(ctx, dir);
	int Tp = g->P > g->total ? g->P : g->total;
	size_t nq = (size_t)g->B * g->S * g->N * g->H, nk = (size_t)g->B * g->S * g->kvN * g->H,
	       np = (size_t)g->B * g->kvN * g->P * g->H, nt = (size_t)g->B * g->kvN * Tp * g->H;
	float *q = malloc(nq * 4), *k = malloc(nk * 4), *v = malloc(nk * 4), *pk = malloc(np * 4),
	      *pv = malloc(np * 4), *y = malloc(nq * 4), *prk = malloc(nt * 4), *prv = malloc(nt * 4),
	      *packed = malloc((nq + 2 * nk) * 4);
	double *wy = malloc(nq * 8), *wk = malloc(nt * 8), *wv = malloc(nt * 8);
	ASSERT(q && k && v && pk && pv && y && prk && prv && packed && wy && wk && wv);
	fill(q, nq, 51);
	fill(k, nk, 52);
	fill(v, nk, 53);
	fill(pk, np, 54);
	fill(pv, np, 55);
	/* packed: each token's q, then k, then v */
	size_t wq = (size_t)g->N * g->H, wkv = (size_t)g->kvN * g->H;
	for (size_t t = 0; t < (size_t)g->B * g->S; t++) {
		memcpy(packed + t * (wq + 2 * wkv), q + t * wq, wq * 4);
		memcpy(packed + t * (wq + 2 * wkv) + wq, k + t * wkv, wkv * 4);
		memcpy(packed + t * (wq + 2 * wkv) + wq + wkv, v + t * wkv, wkv * 4);
	}
	struct io in[6] = { { "q", g->packed ? packed : q, (g->packed ? nq + 2 * nk : nq) * 4 },
			    { "pk", pk, np * 4 },
			    { "pv", pv, np * 4 },
			    { "seqlens", (void *)g->seqlens, (size_t)g->B * 4 },
			    { "k", k, nk * 4 },
			    { "v", v, nk * 4 } };
	struct io out[3] = { { "y", y, nq * 4 }, { "present_k", prk, nt * 4 },
			     { "present_v", prv, nt * 4 } };
	run(ctx, model, in, g->packed ? 4 : 6, out, 3);
	float *bias = malloc((size_t)g->N * g->S * g->total * 4), *sinks = malloc((size_t)g->N * 4);
	ASSERT(bias && sinks);
	fill(bias, (size_t)g->N * g->S * g->total, 56);
	fill(sinks, (size_t)g->N, 57);
	gqa_ref(g, q, k, v, pk, pv, cc, sc, g->bias ? bias : NULL, sinks, Tp, wy, wk, wv);
	free(bias);
	free(sinks);
	fprintf(stderr, "  GroupQueryAttention %s\n", g->what);
	close_to("GroupQueryAttention present_key", prk, wk, nt, 1e-5);
	close_to("GroupQueryAttention present_value", prv, wv, nt, 1e-6);
	close_to("GroupQueryAttention output", y, wy, nq, 1e-4);
	free(q), free(k), free(v), free(pk), free(pv), free(y), free(prk), free(prv), free(packed);
	free(wy), free(wk), free(wv);
	webnn_model_destroy(model);
}

static void gqa_case(struct webnn_context *ctx, const char *dir)
{
	static const int32_t prompt[2] = { 2, 2 }, decode[2] = { 3, 5 }, later[1] = { 4 };
	const struct gqa cases[] = {
		/* the first prompt: 3 tokens into a cache of 6 */
		{ 2, 3, 4, 2, 8, 6, 3, 0, prompt, false, false, false, false, 0, "first prompt", false, false, false },
		/* one token per batch row at its own position (3 and 5 keys so far) */
		{ 2, 1, 4, 2, 8, 6, 6, 0, decode, false, false, false, false, 0, "decoding", false, false, false },
		/* a past one shorter than the total: the caches grow by the new row */
		{ 2, 1, 4, 2, 8, 5, 6, 0, decode, false, false, false, false, 0,
		  "decoding into a growing cache", false, false, false },
		{ 2, 1, 4, 1, 8, 6, 6, 2, decode, false, false, false, false, 0,
		  "decoding, local_window_size 2, one key/value head", false, false, false },
		/* a later prompt of 2 tokens after 3 cached ones */
		{ 1, 2, 2, 2, 8, 8, 8, 0, later, false, false, false, false, 0, "subsequent prompt",
		  false, false, false },
		{ 2, 3, 4, 2, 16, 6, 3, 0, prompt, true, false, true, false, 0,
		  "first prompt, packed QKV, rotary", false, false, false },
		{ 2, 1, 4, 2, 16, 6, 6, 0, decode, true, true, false, false, 0,
		  "decoding, interleaved rotary", false, false, false },
		{ 2, 1, 4, 2, 8, 6, 6, 0, decode, false, false, false, true, 0.5f,
		  "decoding, softcap 0.5, smooth softmax", false, false, false },
		{ 2, 1, 4, 2, 8, 6, 6, 0, decode, false, false, false, false, 0.5f,
		  "decoding, attention_bias, softcap 0.5", true, false, false },
		{ 2, 3, 4, 2, 16, 6, 3, 0, prompt, true, false, false, false, 0,
		  "first prompt, rotary at position_ids", false, true, false },
		{ 2, 1, 4, 2, 8, 6, 6, 0, decode, false, false, false, false, 0,
		  "decoding, head_sink", false, false, true },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		gqa_run(ctx, dir, &cases[i]);
}

TEST(onnx_ort_group_query_attention)
{
	each_backend(gqa_case);
}

/* ---- float16 models: the same compositions in half precision */

static void half_case(struct webnn_context *ctx, const char *dir)
{
	enum { S = 3, N = 2, H = 4, D = N * H };
	static const int64_t xd[3] = { 1, S, D }, hd[1] = { D };
	float x[S * D], skip[S * D], gamma[D];
	uint16_t xh[S * D], sh[S * D], gh[D], y_ln[S * D], y_fg[S * D], y_at[S * D];
	fill(x, S * D, 71);
	fill(skip, S * D, 72);
	fill(gamma, D, 73);
	for (int i = 0; i < S * D; i++) {
		xh[i] = wnn_f32_to_f16(x[i]);
		sh[i] = wnn_f32_to_f16(skip[i]);
		x[i] = wnn_f16_to_f32(xh[i]);
		skip[i] = wnn_f16_to_f32(sh[i]);
	}
	for (int i = 0; i < D; i++) {
		gh[i] = wnn_f32_to_f16(gamma[i]);
		gamma[i] = wnn_f16_to_f32(gh[i]);
	}
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT16, 3, xd);
	onnx_writer_input(&wr, "skip", ONNX_FLOAT16, 3, xd);
	onnx_writer_initializer(&wr, "gamma", ONNX_FLOAT16, 1, hd, gh);
	Onnx__NodeProto *ln = onnx_writer_node(&wr, "ln", "SkipLayerNormalization", "com.microsoft",
					       "x,skip,gamma", "y_ln");
	onnx_writer_attr_float(&wr, ln, "epsilon", 1e-5f);
	onnx_writer_node(&wr, "fg", "FastGelu", "com.microsoft", "x", "y_fg");
	Onnx__NodeProto *a = onnx_writer_node(&wr, "mha", "MultiHeadAttention", "com.microsoft",
					      "x,skip,skip", "y_at");
	onnx_writer_attr_int(&wr, a, "num_heads", N);
	onnx_writer_attr_int(&wr, a, "unidirectional", 1);
	onnx_writer_output(&wr, "y_ln", ONNX_FLOAT16, -1, NULL);
	onnx_writer_output(&wr, "y_fg", ONNX_FLOAT16, -1, NULL);
	onnx_writer_output(&wr, "y_at", ONNX_FLOAT16, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	struct io in[2] = { { "x", xh, sizeof(xh) }, { "skip", sh, sizeof(sh) } };
	struct io out[3] = { { "y_ln", y_ln, sizeof(y_ln) }, { "y_fg", y_fg, sizeof(y_fg) },
			     { "y_at", y_at, sizeof(y_at) } };
	run(ctx, model, in, 2, out, 3);
	float got[S * D];
	double s[S * D], want[S * D], qh[N * S * H], kh[N * S * H];
	for (int i = 0; i < S * D; i++)
		s[i] = (double)x[i] + skip[i];
	norm_ref(s, S, D, gamma, NULL, false, 1e-5, want, NULL, NULL);
	for (int i = 0; i < S * D; i++)
		got[i] = wnn_f16_to_f32(y_ln[i]);
	close_to("float16 SkipLayerNormalization", got, want, S * D, 2e-2);
	for (int i = 0; i < S * D; i++) {
		want[i] = fast_gelu_ref(x[i]);
		got[i] = wnn_f16_to_f32(y_fg[i]);
	}
	close_to("float16 FastGelu", got, want, S * D, 5e-3);
	split_heads(x, NULL, 1, S, N, H, D, 0, qh);
	split_heads(skip, NULL, 1, S, N, H, D, 0, kh);
	uint8_t allowed[N * S * S];
	for (int h = 0; h < N; h++)
		for (int i = 0; i < S; i++)
			for (int j = 0; j < S; j++)
				allowed[(h * S + i) * S + j] = j <= i;
	sdpa_ref(qh, kh, kh, NULL, allowed, 1, N, S, S, H, H, 1 / sqrt((double)H), want);
	for (int i = 0; i < S * D; i++)
		got[i] = wnn_f16_to_f32(y_at[i]);
	close_to("float16 MultiHeadAttention, unidirectional", got, want, S * D, 5e-3);
	webnn_model_destroy(model);
}

TEST(onnx_ort_float16)
{
	each_backend(half_case);
}

/* ---- standard-domain quantization used by ORT's quantized transformers */

static void quant_case(struct webnn_context *ctx, const char *dir)
{
	static const int64_t xd[2] = { 2, 3 }, bd[2] = { 3, 2 }, sd[1] = { 1 };
	float x[6] = { -1.0f, 0.25f, 2.0f, 0.5f, -0.75f, 1.5f };
	uint8_t a[6] = { 3, 200, 17, 0, 255, 128 }, bw[6] = { 1, 250, 30, 7, 128, 99 }, azp = 12,
		bzp = 130;
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, xd);
	onnx_writer_input(&wr, "a", ONNX_UINT8, 2, xd);
	onnx_writer_initializer(&wr, "bw", ONNX_UINT8, 2, bd, bw);
	onnx_writer_initializer(&wr, "azp", ONNX_UINT8, 0, sd, &azp);
	onnx_writer_initializer(&wr, "bzp", ONNX_UINT8, 0, sd, &bzp);
	onnx_writer_node(&wr, "dq", "DynamicQuantizeLinear", "", "x", "xq,xs,xz");
	onnx_writer_node(&wr, "mi", "MatMulInteger", "", "a,bw,azp,bzp", "prod");
	onnx_writer_output(&wr, "xq", ONNX_UINT8, -1, NULL);
	onnx_writer_output(&wr, "xs", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "xz", ONNX_UINT8, -1, NULL);
	onnx_writer_output(&wr, "prod", ONNX_INT32, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	uint8_t xq[6], xz;
	float xs;
	int32_t prod[4];
	struct io in[2] = { { "x", x, sizeof(x) }, { "a", a, sizeof(a) } };
	struct io out[4] = { { "xq", xq, sizeof(xq) }, { "xs", &xs, sizeof(xs) },
			     { "xz", &xz, sizeof(xz) }, { "prod", prod, sizeof(prod) } };
	run(ctx, model, in, 2, out, 4);
	/* ONNX's definition: the range includes 0, scale = range / 255, zero point and values
	 * rounded half to even and saturated */
	double lo = 0, hi = 0;
	for (int i = 0; i < 6; i++)
		lo = x[i] < lo ? x[i] : lo, hi = x[i] > hi ? x[i] : hi;
	double scale = (hi - lo) / 255;
	double zp = nearbyint(fmin(255, fmax(0, 0 - lo / (float)scale)));
	ASSERT_MSG(fabs(xs - scale) < 1e-7, "scale %g, expected %g", (double)xs, scale);
	ASSERT_EQ(xz, (uint8_t)zp);
	for (int i = 0; i < 6; i++) {
		double qv = fmin(255, fmax(0, nearbyint(x[i] / (float)scale) + zp));
		ASSERT_MSG(xq[i] == (uint8_t)qv, "xq[%d] = %u, expected %g", i, xq[i], qv);
	}
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < 2; c++) {
			int32_t s = 0;
			for (int i = 0; i < 3; i++)
				s += ((int32_t)a[r * 3 + i] - azp) * ((int32_t)bw[i * 2 + c] - bzp);
			ASSERT_MSG(prod[r * 2 + c] == s, "MatMulInteger[%d][%d] = %d, expected %d", r,
				   c, prod[r * 2 + c], s);
		}
	webnn_model_destroy(model);
}

TEST(onnx_ort_quantized_matmul)
{
	each_backend(quant_case);
}

/* DynamicQuantizeLinear of an all-zero tensor (a relu that cut everything): ONNX's scale is
 * then 1 / 255, not 0 (which made every value 0 / 0). */
static void dq_zero_case(struct webnn_context *ctx, const char *dir)
{
	static const int64_t xd[1] = { 4 };
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 1, xd);
	onnx_writer_node(&wr, "dq", "DynamicQuantizeLinear", "", "x", "xq,xs,xz");
	onnx_writer_output(&wr, "xq", ONNX_UINT8, -1, NULL);
	onnx_writer_output(&wr, "xs", ONNX_FLOAT, -1, NULL);
	onnx_writer_output(&wr, "xz", ONNX_UINT8, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	float x[4] = { 0, -0.0f, 0, 0 }, xs = 0;
	uint8_t xq[4] = { 9, 9, 9, 9 }, xz = 9;
	struct io in[1] = { { "x", x, sizeof(x) } };
	struct io out[3] = { { "xq", xq, sizeof(xq) }, { "xs", &xs, sizeof(xs) },
			     { "xz", &xz, sizeof(xz) } };
	run(ctx, model, in, 1, out, 3);
	ASSERT_MSG(xs == 1.0f / 255.0f, "scale %g, expected 1/255", (double)xs);
	ASSERT_EQ(xz, 0);
	for (int i = 0; i < 4; i++)
		ASSERT_MSG(xq[i] == 0, "xq[%d] = %u, expected 0", i, xq[i]);
	webnn_model_destroy(model);
}

TEST(onnx_dynamic_quantize_all_zero)
{
	each_backend(dq_zero_case);
}

/* Integer products whose int32 sums float32 cannot hold (600 and 576 products per output,
 * sums past 2^24): exact, as onnxruntime's integer kernels are (they were refused). */
static void long_integer_case(struct webnn_context *ctx, const char *dir)
{
	enum { K = 600, C = 64, HW = 4, O = 2 };
	static const int64_t ad[2] = { 2, K }, bd[2] = { K, 3 }, xd[4] = { 1, C, HW, HW },
			     wd[4] = { O, C, 3, 3 }, sd[1] = { 1 };
	static uint8_t a[2 * K], bw[K * 3], x[C * HW * HW], w[O * C * 9];
	uint8_t azp = 3, bzp = 251, xzp = 7, wzp = 250;
	for (int i = 0; i < 2 * K; i++)
		a[i] = (uint8_t)(255 - (i * 37) % 7);
	for (int i = 0; i < K * 3; i++)
		bw[i] = (uint8_t)((i * 91 + 7) % 5);
	for (int i = 0; i < C * HW * HW; i++)
		x[i] = (uint8_t)(250 + (i * 13) % 6);
	for (int i = 0; i < O * C * 9; i++)
		w[i] = (uint8_t)((i * 29) % 4);
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "a", ONNX_UINT8, 2, ad);
	onnx_writer_input(&wr, "x", ONNX_UINT8, 4, xd);
	onnx_writer_initializer(&wr, "bw", ONNX_UINT8, 2, bd, bw);
	onnx_writer_initializer(&wr, "w", ONNX_UINT8, 4, wd, w);
	onnx_writer_initializer(&wr, "azp", ONNX_UINT8, 0, sd, &azp);
	onnx_writer_initializer(&wr, "bzp", ONNX_UINT8, 0, sd, &bzp);
	onnx_writer_initializer(&wr, "xzp", ONNX_UINT8, 0, sd, &xzp);
	onnx_writer_initializer(&wr, "wzp", ONNX_UINT8, 0, sd, &wzp);
	onnx_writer_node(&wr, "mi", "MatMulInteger", "", "a,bw,azp,bzp", "prod");
	static const int64_t pads[4] = { 1, 1, 1, 1 };
	onnx_writer_attr_ints(&wr, onnx_writer_node(&wr, "ci", "ConvInteger", "", "x,w,xzp,wzp",
						    "conv"), "pads", pads, 4);
	onnx_writer_output(&wr, "prod", ONNX_INT32, -1, NULL);
	onnx_writer_output(&wr, "conv", ONNX_INT32, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	static int32_t prod[6], conv[O * HW * HW];
	struct io in[2] = { { "a", a, sizeof(a) }, { "x", x, sizeof(x) } };
	struct io out[2] = { { "prod", prod, sizeof(prod) }, { "conv", conv, sizeof(conv) } };
	run(ctx, model, in, 2, out, 2);
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < 3; c++) {
			int32_t want = 0;
			for (int i = 0; i < K; i++)
				want += ((int32_t)a[r * K + i] - azp) * ((int32_t)bw[i * 3 + c] - bzp);
			ASSERT_MSG((double)(float)want != (double)want,
				   "the case must have sums float32 cannot hold (%d)", want);
			ASSERT_MSG(prod[r * 3 + c] == want, "MatMulInteger[%d][%d] = %d, expected %d",
				   r, c, prod[r * 3 + c], want);
		}
	bool past = false;
	for (int o = 0; o < O; o++)
		for (int y = 0; y < HW; y++)
			for (int xx = 0; xx < HW; xx++) {
				int32_t want = 0;
				for (int c = 0; c < C; c++)
					for (int ky = 0; ky < 3; ky++)
						for (int kx = 0; kx < 3; kx++) {
							int iy = y + ky - 1, ix = xx + kx - 1;
							if (iy < 0 || ix < 0 || iy >= HW || ix >= HW)
								continue;
							want += ((int32_t)x[(c * HW + iy) * HW + ix] -
								 xzp) *
								((int32_t)w[((o * C + c) * 3 + ky) * 3 +
									    kx] - wzp);
						}
				past |= (double)(float)want != (double)want;
				int32_t got = conv[(o * HW + y) * HW + xx];
				ASSERT_MSG(got == want, "ConvInteger[%d][%d][%d] = %d, expected %d", o,
					   y, xx, got, want);
			}
	ASSERT_MSG(past, "every ConvInteger sum fits float32: the case tests nothing");
	webnn_model_destroy(model);
}

TEST(onnx_ort_integer_products_past_float32)
{
	each_backend(long_integer_case);
}

/* Nodes listed after their readers (onnxconverter-common's float16 pass appends the input
 * casts at the end; onnxruntime sorts) load in an order where each value is made first; a
 * cycle is refused naming its nodes. */
static void node_order_case(struct webnn_context *ctx, const char *dir)
{
	static const int64_t xd[2] = { 2, 2 };
	struct onnx_writer wr;
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, xd);
	onnx_writer_node(&wr, "last", "Mul", "", "t,u", "y");
	onnx_writer_node(&wr, "second", "Neg", "", "t", "u");
	onnx_writer_node(&wr, "first", "Relu", "", "x", "t");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	struct webnn_model *model = load(ctx, dir);
	float x[4] = { -2, 3, 0.5f, -1 }, y[4];
	struct io in[1] = { { "x", x, sizeof(x) } };
	struct io out[1] = { { "y", y, sizeof(y) } };
	run(ctx, model, in, 1, out, 1);
	for (int i = 0; i < 4; i++) {
		float t = x[i] > 0 ? x[i] : 0;
		ASSERT_MSG(y[i] == -t * t, "y[%d] = %g, expected %g", i, (double)y[i],
			   (double)(-t * t));
	}
	webnn_model_destroy(model);
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, xd);
	onnx_writer_node(&wr, "p", "Add", "", "x,q_out", "p_out");
	onnx_writer_node(&wr, "q", "Relu", "", "p_out", "q_out");
	onnx_writer_output(&wr, "q_out", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	expect_load_error(ctx, dir, "read each other's outputs (the graph has a cycle)");
}

TEST(onnx_nodes_out_of_order)
{
	each_backend(node_order_case);
}

/* ---- what is refused, and how it says so */

static void errors_case(struct webnn_context *ctx, const char *dir)
{
	static const int64_t xd[3] = { 1, 2, 8 }, cd[2] = { 4, 4 }, pd[2] = { 1, 2 };
	float cc[16] = { 0 };
	int64_t pos[2] = { 0, 1 };
	struct onnx_writer wr;
	/* an unknown com.microsoft operator, another domain */
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_node(&wr, "u", "NoSuchOp", "com.microsoft", "x", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	expect_load_error(ctx, dir,
			  "onnx: node \"u\" (NoSuchOp): unknown operator \"NoSuchOp\" in domain "
			  "com.microsoft");
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_node(&wr, "ml", "Normalizer", "ai.onnx.ml", "x", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	expect_load_error(ctx, dir,
			  "onnx: node \"ml\" (Normalizer): operator domain \"ai.onnx.ml\" is neither "
			  "ai.onnx nor com.microsoft");
	/* attribute values that are refused name the attribute and the reason */
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_initializer(&wr, "pos", ONNX_INT64, 2, pd, pos);
	onnx_writer_initializer(&wr, "cc", ONNX_FLOAT, 2, cd, cc);
	onnx_writer_attr_int(&wr, onnx_writer_node(&wr, "rot", "RotaryEmbedding", "com.microsoft",
						   "x,pos,cc,cc", "y"), "is_packed_batching", 1);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	expect_load_error(ctx, dir,
			  "onnx: node \"rot\" (RotaryEmbedding): is_packed_batching 1 is not "
			  "supported");
	static const int64_t wd[2] = { 8, 24 };
	static float w[192];
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_initializer(&wr, "w", ONNX_FLOAT, 2, wd, w);
	Onnx__NodeProto *a = onnx_writer_node(&wr, "att", "Attention", "com.microsoft", "x,w", "y");
	onnx_writer_attr_int(&wr, a, "num_heads", 2);
	onnx_writer_attr_int(&wr, a, "do_rotary", 1);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	expect_load_error(ctx, dir, "onnx: node \"att\" (Attention): do_rotary 1 is not supported: "
			  "rotary embedding inside Attention is not composed");
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_initializer(&wr, "w", ONNX_FLOAT, 2, wd, w);
	onnx_writer_node(&wr, "att0", "Attention", "com.microsoft", "x,w", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	expect_load_error(ctx, dir, "onnx: node \"att0\" (Attention): num_heads 0: a positive head "
			  "count is required");
	/* MultiHeadAttention's causal mask over a past (onnxruntime's differs from the definition) */
	static const int64_t qd[3] = { 1, 2, 4 }, pkd[4] = { 1, 2, 3, 2 };
	model_begin(&wr);
	onnx_writer_input(&wr, "q", ONNX_FLOAT, 3, qd);
	onnx_writer_input(&wr, "pk", ONNX_FLOAT, 4, pkd);
	Onnx__NodeProto *mh = onnx_writer_node(&wr, "mha", "MultiHeadAttention", "com.microsoft",
					       "q,q,q,,,,pk,pk", "y");
	onnx_writer_attr_int(&wr, mh, "num_heads", 2);
	onnx_writer_attr_int(&wr, mh, "unidirectional", 1);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	expect_load_error(ctx, dir, "onnx: node \"mha\" (MultiHeadAttention): unidirectional 1 with "
			  "5 keys for 2 queries (past_key, or key longer than query) is not supported");
	/* a mask layout onnxruntime's Attention has and this importer does not compose */
	static const int64_t m4[4] = { 1, 1, 2, 2 };
	static const int32_t mask4[4] = { 1, 1, 1, 1 };
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_initializer(&wr, "w", ONNX_FLOAT, 2, wd, w);
	onnx_writer_initializer(&wr, "m4", ONNX_INT32, 4, m4, mask4);
	onnx_writer_attr_int(&wr, onnx_writer_node(&wr, "att4", "Attention", "com.microsoft",
						   "x,w,,m4", "y"), "num_heads", 2);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	expect_load_error(ctx, dir, "onnx: node \"att4\" (Attention): mask_index of shape "
			  "[1, 1, 2, 2] is not supported: [1] (end positions), [2] (ends and starts), "
			  "[1, 2] or [1, 2, 2] are");
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_attr_int(&wr, onnx_writer_node(&wr, "fmm", "FusedMatMul", "com.microsoft",
						   "x,x", "y"), "transBatchA", 1);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, -1, NULL);
	model_write(&wr, dir);
	expect_load_error(ctx, dir, "onnx: node \"fmm\" (FusedMatMul): transBatchA 1 is not "
			  "supported: moving the batch axes into the matrix is not composed");
	/* GroupQueryAttention's cache length must be known when the model loads */
	static const int32_t one[1] = { 0 };
	const struct gqa g = { 1, 1, 2, 2, 2, 4, 4, 0, one, false, false, false, false, 0, "",
			       false, false, false };
	gqa_model(dir, &g, false, NULL, NULL);
	expect_load_error(ctx, dir, "onnx: node \"gqa\" (GroupQueryAttention): "
			  "total_sequence_length must be known at load time");
}

TEST(onnx_ort_refusals)
{
	each_backend(errors_case);
}
