/* ONNX quantized weights: int4/uint4 tensors, blocked Quantize/DequantizeLinear, com.microsoft MatMulNBits and GatherBlockQuantized, against plain C. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/clienttest.h"
#include "tests/onnx_writer.h"
#include "tests/test.h"
#include "webnn_import.h"

/* Starts a model of the ai.onnx opset `opset` and com.microsoft 1, IR version 10 (4-bit types). */
static void model_begin(struct onnx_writer *w, int opset)
{
	onnx_writer_init(w, opset);
	w->model.ir_version = 10;
	onnx_writer_opset(w, "com.microsoft", 1);
}

/* Writes the model; loads it on ctx. Returns the status; the message in err. */
static enum webnn_status load_model(const struct onnx_writer *w, struct webnn_context *ctx,
				    struct webnn_model **out, char *err, size_t len)
{
	char path[] = "/tmp/wnn-onnxq-XXXXXX";
	int fd = mkstemp(path);
	ASSERT(fd >= 0 && close(fd) == 0);
	ASSERT(onnx_writer_save(w, path));
	*out = NULL;
	enum webnn_status s = webnn_model_load(ctx, path, NULL, out, err, len);
	unlink(path);
	return s;
}

/* Loads the model, runs it on one input (x_bytes bytes) and reads the float output. */
static void run_model_bytes(const struct onnx_writer *w, struct webnn_context *ctx,
			    const void *x, size_t x_bytes, float *y, size_t y_count)
{
	struct webnn_model *model;
	char err[1024] = "";
	enum webnn_status s = load_model(w, ctx, &model, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "load -> %s: %s", webnn_status_name(s), err);
	struct webnn_named_tensor in = { webnn_model_input_name(model, 0), NULL };
	struct webnn_named_tensor out = { webnn_model_output_name(model, 0), NULL };
	struct webnn_tensor_desc ti = { .writable = true }, to = { .readable = true };
	webnn_model_input_desc(model, 0, &ti.desc);
	webnn_model_output_desc(model, 0, &to.desc);
	OK(ctx, webnn_context_create_tensor(ctx, &ti, &in.tensor));
	OK(ctx, webnn_context_create_tensor(ctx, &to, &out.tensor));
	OK(ctx, webnn_context_write_tensor(ctx, in.tensor, x, x_bytes));
	OK(ctx, webnn_context_dispatch(ctx, webnn_model_graph(model), &in, 1, &out, 1));
	OK(ctx, webnn_context_read_tensor(ctx, out.tensor, y, y_count * sizeof(float)));
	webnn_tensor_destroy(in.tensor);
	webnn_tensor_destroy(out.tensor);
	webnn_model_destroy(model);
}

/* Loads the model, runs it on one float input and reads the float output (count values). */
static void run_model(const struct onnx_writer *w, struct webnn_context *ctx, const float *x,
		      size_t x_count, float *y, size_t y_count)
{
	run_model_bytes(w, ctx, x, x_count * sizeof(float), y, y_count);
}

static void expect_error(const struct onnx_writer *w, struct webnn_context *ctx,
			 enum webnn_status status, const char *needle)
{
	struct webnn_model *model;
	char err[1024] = "";
	enum webnn_status s = load_model(w, ctx, &model, err, sizeof(err));
	ASSERT_MSG(s == status, "load -> %s (%s), expected %s", webnn_status_name(s), err,
		   webnn_status_name(status));
	ASSERT(model == NULL);
	ASSERT_CONTAINS(err, needle);
}

/* ---- the reference: plain C */

static unsigned nib(const uint8_t *p, size_t i)
{
	return (p[i / 2] >> ((i & 1) * 4)) & 15;
}

static void pack4(const int *v, size_t n, uint8_t *p)
{
	memset(p, 0, (n + 1) / 2);
	for (size_t i = 0; i < n; i++)
		p[i / 2] |= (uint8_t)((v[i] & 15) << ((i & 1) * 4));
}

/* y[M][N] = x[M][K] w[K][N] */
static void ref_matmul(const float *x, const float *w, float *y, size_t M, size_t K, size_t N)
{
	for (size_t i = 0; i < M; i++)
		for (size_t j = 0; j < N; j++) {
			double acc = 0;
			for (size_t k = 0; k < K; k++)
				acc += (double)x[i * K + k] * w[k * N + j];
			y[i * N + j] = (float)acc;
		}
}

/* A deterministic pseudo-random sequence in [-1, 1). */
static float lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* ---- blocked DequantizeLinear / QuantizeLinear (opset 21) */

/* W int4 [8, 3] (raw bytes), blocks of 4 along axis 0: scale and zero point [2, 3] (the zero
 * point int4 from int32_data, one packed byte per entry); Y = X W. */
TEST(onnx_dequantize_blocked_int4)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "onnx-q-dq");
	enum { K = 8, N = 3, M = 2, B = 4 };
	int wq[K * N], zq[2 * N];
	float sc[2 * N], x[M * K], w[K * N], y[M * N], want[M * N];
	uint32_t seed = 7;
	for (int i = 0; i < K * N; i++)
		wq[i] = (int)(lcg(&seed) * 8); /* -8..7 */
	for (int i = 0; i < 2 * N; i++) {
		zq[i] = (i % 5) - 2;
		sc[i] = 0.05f + 0.01f * (float)i;
	}
	for (int i = 0; i < M * K; i++)
		x[i] = lcg(&seed);
	for (int k = 0; k < K; k++)
		for (int j = 0; j < N; j++)
			w[k * N + j] = (float)(wq[k * N + j] - zq[(k / B) * N + j]) *
				       sc[(k / B) * N + j];
	ref_matmul(x, w, want, M, K, N);
	uint8_t wp[K * N / 2], zp[N];
	pack4(wq, K * N, wp);
	pack4(zq, 2 * N, zp);
	int32_t z32[N];
	for (int i = 0; i < N; i++)
		z32[i] = zp[i];
	static const int64_t dx[2] = { M, K }, dw[2] = { K, N }, ds[2] = { 2, N }, dy[2] = { M, N };
	struct onnx_writer wr;
	model_begin(&wr, 21);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, dx);
	Onnx__TensorProto *wqt = onnx_writer_initializer(&wr, "wq", ONNX_INT4, 2, dw, wp);
	Onnx__TensorProto *st = onnx_writer_initializer(&wr, "s", ONNX_FLOAT, 2, ds, sc);
	onnx_writer_initializer_int32(&wr, "z", ONNX_INT4, 2, ds, z32, N);
	Onnx__NodeProto *dq = onnx_writer_node(&wr, "DequantizeLinear", "DequantizeLinear", "",
					       "wq,s,z", "w");
	onnx_writer_attr_int(&wr, dq, "axis", 0);
	Onnx__AttributeProto *block = onnx_writer_attr_int(&wr, dq, "block_size", B);
	onnx_writer_node(&wr, "MatMul", "MatMul", "", "x,w", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, dy);
	run_model(&wr, ctx, x, M * K, y, M * N);
	ct_assert_floats("dequantize(int4, block 4) matmul", y, want, M * N, 1e-5f);

	/* uint4 without a zero point (0) */
	int uq[K * N];
	for (int i = 0; i < K * N; i++)
		uq[i] = wq[i] + 8;
	for (int k = 0; k < K; k++)
		for (int j = 0; j < N; j++)
			w[k * N + j] = (float)uq[k * N + j] * sc[(k / B) * N + j];
	ref_matmul(x, w, want, M, K, N);
	pack4(uq, K * N, wqt->raw_data.data);
	wqt->data_type = ONNX_UINT4;
	dq->n_input = 2;
	run_model(&wr, ctx, x, M * K, y, M * N);
	ct_assert_floats("dequantize(uint4, block 4) matmul", y, want, M * N, 1e-5f);

	/* a block that does not divide the dimension, a scale of the wrong shape */
	block->i = 3; /* ceil(8 / 3) = 3 blocks, the scale has 2 */
	expect_error(&wr, ctx, WEBNN_STATUS_TYPE_ERROR,
			"block_size 3 along axis 0: x_scale dimension 0 is 2, expected 3");
	static const int64_t ds3[2] = { 3, N };
	float sc3[3 * N] = { 0 };
	st->dims[0] = ds3[0];
	st->raw_data.data = (uint8_t *)sc3;
	st->raw_data.len = sizeof(sc3);
	expect_error(&wr, ctx, WEBNN_STATUS_NOT_SUPPORTED,
		     "block_size 3 does not divide x's dimension 8 along axis 0");
	onnx_writer_free(&wr);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* An int4 graph input (packed bytes, as WebNN tensors hold int4) dequantized per axis. */
TEST(onnx_int4_input)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "onnx-q-in");
	enum { R = 3, C = 5 };
	int q[R * C];
	float sc[C], y[R * C], want[R * C];
	for (int i = 0; i < R * C; i++)
		q[i] = (i * 5) % 16 - 8;
	for (int c = 0; c < C; c++)
		sc[c] = 0.5f + 0.25f * (float)c;
	for (int i = 0; i < R * C; i++)
		want[i] = (float)q[i] * sc[i % C];
	uint8_t packed[(R * C + 1) / 2];
	pack4(q, R * C, packed);
	static const int64_t dq[2] = { R, C }, ds[1] = { C };
	struct onnx_writer wr;
	model_begin(&wr, 21);
	onnx_writer_input(&wr, "q", ONNX_INT4, 2, dq);
	onnx_writer_initializer(&wr, "s", ONNX_FLOAT, 1, ds, sc);
	onnx_writer_node(&wr, "DequantizeLinear", "DequantizeLinear", "", "q,s", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, dq);
	run_model_bytes(&wr, ctx, packed, sizeof(packed), y, R * C);
	onnx_writer_free(&wr);
	ct_assert_floats("dequantize(int4 input, per axis)", y, want, R * C, 1e-6f);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* QuantizeLinear to uint4 with blocks of 4 along axis 1, then DequantizeLinear back. */
TEST(onnx_quantize_blocked_uint4)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "onnx-q-q");
	enum { M = 2, K = 8, B = 4 };
	float x[M * K], sc[M * 2], y[M * K], want[M * K];
	int zq[M * 2] = { 8, 3, 0, 15 };
	uint32_t seed = 11;
	for (int i = 0; i < M * K; i++)
		x[i] = lcg(&seed) * 2;
	for (int i = 0; i < M * 2; i++)
		sc[i] = 0.1f + 0.05f * (float)i;
	for (int r = 0; r < M; r++)
		for (int c = 0; c < K; c++) {
			int b = r * 2 + c / B;
			double q = nearbyint((double)x[r * K + c] / sc[b]) + zq[b];
			q = q < 0 ? 0 : q > 15 ? 15 : q;
			want[r * K + c] = (float)((q - zq[b]) * sc[b]);
		}
	uint8_t zp[2];
	pack4(zq, 4, zp);
	static const int64_t dx[2] = { M, K }, ds[2] = { M, 2 };
	struct onnx_writer wr;
	model_begin(&wr, 21);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, dx);
	onnx_writer_initializer(&wr, "s", ONNX_FLOAT, 2, ds, sc);
	onnx_writer_initializer(&wr, "z", ONNX_UINT4, 2, ds, zp);
	Onnx__NodeProto *q = onnx_writer_node(&wr, "QuantizeLinear", "QuantizeLinear", "", "x,s,z",
					      "q");
	onnx_writer_attr_int(&wr, q, "axis", 1);
	onnx_writer_attr_int(&wr, q, "block_size", B);
	Onnx__NodeProto *dq = onnx_writer_node(&wr, "DequantizeLinear", "DequantizeLinear", "",
					       "q,s,z", "y");
	onnx_writer_attr_int(&wr, dq, "axis", 1);
	onnx_writer_attr_int(&wr, dq, "block_size", B);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, dx);
	run_model(&wr, ctx, x, M * K, y, M * K);
	onnx_writer_free(&wr);
	ct_assert_floats("dequantize(quantize(x) uint4 block 4)", y, want, M * K, 1e-6f);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ---- com.microsoft MatMulNBits */

struct nbits_case {
	int bits, block;
	int zp;       /* 0 none, 1 packed uint8, 2 float */
	bool bias;
	bool g_idx;
};

/* A [M, K] x dequantize(B)^T, K = 40 (a partial last block for 16, an odd block count), N = 3. */
static void run_nbits(struct webnn_context *ctx, const struct nbits_case *c)
{
	enum { M = 2, K = 40, N = 3 };
	int bits = c->bits, bs = c->block, nb = (K + bs - 1) / bs, blob = bs * bits / 8;
	int zrow = (nb * bits + 7) / 8, maxq = (1 << bits) - 1;
	uint8_t bq[N * 8 * 64] = { 0 }, zb[N * 8] = { 0 };
	int q[N][8 * 64];
	float sc[N * 8], zf[N * 8], bias[N], x[M * K], w[K * N], y[M * N], want[M * N];
	int zi[N * 8];
	uint32_t seed = (uint32_t)(bits * 100 + bs + c->zp);
	for (int n = 0; n < N; n++)
		for (int k = 0; k < nb * bs; k++) {
			q[n][k] = (int)((lcg(&seed) + 1) * 0.5f * (float)(maxq + 1)) & maxq;
			if (bits == 4)
				bq[n * nb * blob + k / 2] |= (uint8_t)(q[n][k] << ((k & 1) * 4));
			else
				bq[n * nb * blob + k] = (uint8_t)q[n][k];
		}
	for (int i = 0; i < N * nb; i++) {
		sc[i] = 0.01f + 0.003f * (float)i;
		zi[i] = c->zp ? (i * 5 + 3) & maxq : 1 << (bits - 1);
		zf[i] = (float)zi[i] + (c->zp == 2 ? 0.25f : 0);
	}
	for (int n = 0; n < N; n++)
		for (int j = 0; j < nb; j++) {
			if (bits == 4)
				zb[n * zrow + j / 2] |= (uint8_t)(zi[n * nb + j] << ((j & 1) * 4));
			else
				zb[n * zrow + j] = (uint8_t)zi[n * nb + j];
		}
	for (int n = 0; n < N; n++)
		bias[n] = c->bias ? 0.5f * (float)(n + 1) : 0;
	for (int i = 0; i < M * K; i++)
		x[i] = lcg(&seed);
	for (int k = 0; k < K; k++)
		for (int n = 0; n < N; n++) {
			int blk = n * nb + k / bs;
			w[k * N + n] = ((float)q[n][k] - (c->zp == 2 ? zf[blk] : (float)zi[blk])) *
				       sc[blk];
		}
	ref_matmul(x, w, want, M, K, N);
	for (int i = 0; i < M * N; i++)
		want[i] += bias[i % N];
	int64_t dx[2] = { M, K }, db[3] = { N, nb, blob }, dsc[1] = { N * nb },
		dz[1] = { c->zp == 1 ? N * zrow : N * nb }, dbias[1] = { N }, dg[1] = { K },
		dy[2] = { M, N };
	int32_t g[K];
	for (int k = 0; k < K; k++)
		g[k] = k / bs;
	struct onnx_writer wr;
	model_begin(&wr, 17);
	onnx_writer_input(&wr, "a", ONNX_FLOAT, 2, dx);
	onnx_writer_initializer(&wr, "b", ONNX_UINT8, 3, db, bq);
	onnx_writer_initializer(&wr, "s", ONNX_FLOAT, 1, dsc, sc);
	if (c->zp == 1)
		onnx_writer_initializer(&wr, "z", ONNX_UINT8, 1, dz, zb);
	if (c->zp == 2)
		onnx_writer_initializer(&wr, "z", ONNX_FLOAT, 1, dz, zf);
	if (c->g_idx)
		onnx_writer_initializer(&wr, "g", ONNX_INT32, 1, dg, g);
	if (c->bias)
		onnx_writer_initializer(&wr, "bias", ONNX_FLOAT, 1, dbias, bias);
	const char *ins[6] = { "a", "b", "s", c->zp ? "z" : "", c->g_idx ? "g" : "",
			       c->bias ? "bias" : "" }, *out = "y";
	size_t n_in = c->bias ? 6 : c->g_idx ? 5 : c->zp ? 4 : 3;
	Onnx__NodeProto *nd = onnx_writer_node_v(&wr, "MatMulNBits", "MatMulNBits", "com.microsoft",
						 n_in, ins, 1, &out);
	onnx_writer_attr_int(&wr, nd, "K", K);
	onnx_writer_attr_int(&wr, nd, "N", N);
	onnx_writer_attr_int(&wr, nd, "bits", bits);
	onnx_writer_attr_int(&wr, nd, "block_size", bs);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, dy);
	run_model(&wr, ctx, x, M * K, y, M * N);
	onnx_writer_free(&wr);
	char what[128];
	snprintf(what, sizeof(what), "MatMulNBits bits %d block %d zp %d bias %d g_idx %d", bits,
		 bs, c->zp, c->bias, c->g_idx);
	ct_assert_floats(what, y, want, M * N, 1e-4f);
}

/* On the reference backend (dequantize, then matmul) and on the cpu backend, which runs the
 * matmul on the packed weights. */
TEST(onnx_matmul_nbits)
{
	static const struct nbits_case cases[] = {
		{ 4, 16, 0, false, false }, { 4, 16, 1, true, false }, { 4, 32, 1, false, true },
		{ 4, 16, 2, false, false }, { 8, 16, 0, false, false }, { 8, 8, 1, true, false },
		{ 8, 16, 2, true, false },  { 4, 32, 1, false, false },
	};
	static const char *const backends[] = { "reference", "cpu" };
	for (int k = 0; k < 2; k++) {
		const char *const args[] = { "--backend", backends[k], NULL };
		struct test_daemon d;
		ct_require_webnnd();
		test_daemon_start(&d, args);
		struct webnn_context *ctx = ct_connect(&d, "onnx-q-nbits");
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			run_nbits(ctx, &cases[i]);
		webnn_context_destroy(ctx);
		test_daemon_stop(&d);
	}
}

TEST(onnx_matmul_nbits_errors)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "onnx-q-nbits-err");
	static const int64_t dx[2] = { 1, 32 }, db[3] = { 2, 2, 8 }, ds[1] = { 4 }, dy[2] = { 1, 2 },
			     dg[1] = { 32 };
	static uint8_t bq[32];
	static float sc[4] = { 1, 1, 1, 1 };
	int32_t g[32];
	for (int k = 0; k < 32; k++)
		g[k] = k % 2; /* not blocks of K */
	struct onnx_writer wr;
	model_begin(&wr, 17);
	onnx_writer_input(&wr, "a", ONNX_FLOAT, 2, dx);
	onnx_writer_initializer(&wr, "b", ONNX_UINT8, 3, db, bq);
	onnx_writer_initializer(&wr, "s", ONNX_FLOAT, 1, ds, sc);
	onnx_writer_initializer(&wr, "g", ONNX_INT32, 1, dg, g);
	Onnx__NodeProto *nd = onnx_writer_node(&wr, "MatMulNBits", "MatMulNBits", "com.microsoft",
					       "a,b,s,,g", "y");
	nd->n_input = 3;
	onnx_writer_attr_int(&wr, nd, "K", 32);
	onnx_writer_attr_int(&wr, nd, "N", 2);
	Onnx__AttributeProto *bits = onnx_writer_attr_int(&wr, nd, "bits", 3);
	Onnx__AttributeProto *block = onnx_writer_attr_int(&wr, nd, "block_size", 16);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, dy);
	expect_error(&wr, ctx, WEBNN_STATUS_NOT_SUPPORTED,
		     "onnx: node \"MatMulNBits\" (MatMulNBits): bits 3 (4 and 8 are mapped");
	bits->i = 4;
	block->i = 8; /* B says blocks of 16 */
	expect_error(&wr, ctx, WEBNN_STATUS_TYPE_ERROR,
		     "B has shape rank 3 [2, 2, 8], expected [N 2, ceil(K / block_size) 4, "
		     "block_size * bits / 8 4]");
	block->i = 3;
	expect_error(&wr, ctx, WEBNN_STATUS_TYPE_ERROR,
		     "block_size 3: a block must fill whole bytes of 4-bit values");
	block->i = 16;
	nd->n_input = 5;
	expect_error(&wr, ctx, WEBNN_STATUS_NOT_SUPPORTED, "g_idx[1] is 1, not k / block_size");
	/* an operator of that domain that is not mapped */
	nd->n_input = 3;
	nd->op_type = (char *)"MatMulNothing";
	expect_error(&wr, ctx, WEBNN_STATUS_NOT_SUPPORTED,
		     "unknown operator \"MatMulNothing\" in domain com.microsoft");
	onnx_writer_free(&wr);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ---- com.microsoft GatherBlockQuantized */

/* data uint8 [4, 8] = uint4 [4, 16] packed, blocks of 8 along axis 1, scales [4, 2], zero
 * points packed uint8 [4, 1]; rows 3 and 1 gathered. The input is the row index (float) turned
 * into the indices through a Cast, so the graph has one float input. */
TEST(onnx_gather_block_quantized)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "onnx-q-gbq");
	enum { R = 4, C = 16, B = 8 };
	int q[R * C], zq[R * 2];
	uint8_t data[R * C / 2], zp[R];
	float sc[R * 2], want[2 * C], y[2 * C];
	uint32_t seed = 3;
	for (int i = 0; i < R * C; i++)
		q[i] = (int)((lcg(&seed) + 1) * 8) & 15;
	for (int i = 0; i < R * 2; i++) {
		zq[i] = (i * 7) & 15;
		sc[i] = 0.5f + 0.25f * (float)i;
	}
	pack4(q, R * C, data);
	pack4(zq, R * 2, zp);
	static const float rows[2] = { 3, 1 };
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < C; c++) {
			int row = (int)rows[r], b = row * 2 + c / B;
			want[r * C + c] = (float)((int)nib(data, (size_t)(row * C + c)) - zq[b]) * sc[b];
		}
	static const int64_t dd[2] = { R, C / 2 }, ds[2] = { R, 2 }, dz[2] = { R, 1 }, di[1] = { 2 },
			     dy[2] = { 2, C };
	struct onnx_writer wr;
	model_begin(&wr, 17);
	onnx_writer_input(&wr, "rows", ONNX_FLOAT, 1, di);
	onnx_writer_initializer(&wr, "data", ONNX_UINT8, 2, dd, data);
	onnx_writer_initializer(&wr, "s", ONNX_FLOAT, 2, ds, sc);
	onnx_writer_initializer(&wr, "z", ONNX_UINT8, 2, dz, zp);
	Onnx__NodeProto *cast = onnx_writer_node(&wr, "Cast", "Cast", "", "rows", "idx");
	onnx_writer_attr_int(&wr, cast, "to", ONNX_INT64);
	Onnx__NodeProto *g = onnx_writer_node(&wr, "GatherBlockQuantized", "GatherBlockQuantized",
					      "com.microsoft", "data,idx,s,z", "y");
	Onnx__AttributeProto *block = onnx_writer_attr_int(&wr, g, "block_size", B);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, dy);
	run_model(&wr, ctx, rows, 2, y, 2 * C);
	ct_assert_floats("GatherBlockQuantized uint4 packed", y, want, 2 * C, 1e-6f);

	/* without zero points: 8 for 4 bits packed in uint8 */
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < C; c++) {
			int row = (int)rows[r], b = row * 2 + c / B;
			want[r * C + c] = (float)((int)nib(data, (size_t)(row * C + c)) - 8) * sc[b];
		}
	g->n_input = 3;
	run_model(&wr, ctx, rows, 2, y, 2 * C);
	ct_assert_floats("GatherBlockQuantized uint4 packed, no zero point", y, want, 2 * C, 1e-6f);
	/* a block size that does not divide the row */
	block->i = 5;
	expect_error(&wr, ctx, WEBNN_STATUS_NOT_SUPPORTED,
		     "block_size 5 does not divide data's dimension 16 along quantize_axis 1");
	onnx_writer_free(&wr);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}
