/* The ONNX importer's weights read in place (importers/onnx/raw_data.c): the same model as protobuf-c decodes it, without the copy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "importers/onnx/onnx_internal.h"
#include "tests/clienttest.h"
#include "tests/onnx_writer.h"
#include "tests/test.h"
#include "webnn.h"
#include "webnn_import.h"

#define RD_K 256
#define RD_N 64

/* y = x [1, K] MatMul w [K, N] (64 KiB: read in place) Add b [N] (256 bytes: decoded as
 * usual); z = Identity(c [4, 512], 8 KiB: read in place). */
static void rd_model(struct onnx_writer *w, float *wv, float *bv, float *cv)
{
	static const int64_t xd[2] = { 1, RD_K }, wd[2] = { RD_K, RD_N }, bd[1] = { RD_N },
			     yd[2] = { 1, RD_N }, cd[2] = { 4, 512 };
	for (int i = 0; i < RD_K * RD_N; i++)
		wv[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
	for (int i = 0; i < RD_N; i++)
		bv[i] = 0.25f * (float)i;
	for (int i = 0; i < 4 * 512; i++)
		cv[i] = (float)i;
	onnx_writer_init(w, 13);
	onnx_writer_input(w, "x", ONNX_FLOAT, 2, xd);
	onnx_writer_initializer(w, "w", ONNX_FLOAT, 2, wd, wv);
	onnx_writer_initializer(w, "b", ONNX_FLOAT, 1, bd, bv);
	onnx_writer_initializer(w, "c", ONNX_FLOAT, 2, cd, cv);
	onnx_writer_node(w, "mm", "MatMul", NULL, "x,w", "m");
	onnx_writer_node(w, "add", "Add", NULL, "m,b", "y");
	onnx_writer_node(w, "id", "Identity", NULL, "c", "z");
	onnx_writer_output(w, "y", ONNX_FLOAT, 2, yd);
	onnx_writer_output(w, "z", ONNX_FLOAT, 2, cd);
}

/* a and b decoded from the same bytes: the same initializers, byte for byte */
static void same_initializers(const Onnx__ModelProto *a, const Onnx__ModelProto *b)
{
	ASSERT(a->graph && b->graph);
	ASSERT_EQ(a->graph->n_initializer, b->graph->n_initializer);
	ASSERT_EQ(a->graph->n_node, b->graph->n_node);
	for (size_t i = 0; i < a->graph->n_initializer; i++) {
		const Onnx__TensorProto *s = a->graph->initializer[i], *t = b->graph->initializer[i];
		ASSERT(strcmp(s->name, t->name) == 0);
		ASSERT_EQ(s->data_type, t->data_type);
		ASSERT_EQ(s->n_dims, t->n_dims);
		ASSERT_EQ(s->has_raw_data, t->has_raw_data);
		ASSERT_EQ(s->raw_data.len, t->raw_data.len);
		ASSERT(memcmp(s->raw_data.data, t->raw_data.data, s->raw_data.len) == 0);
	}
}

static void put_varint(uint8_t *p, size_t *n, uint64_t v)
{
	do {
		p[(*n)++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

/* ModelProto { graph { initializer { dims 4, data_type FLOAT, name "w", raw_data (2000
 * bytes of 1), raw_data (16 bytes of 2) } } }: two raw_data fields, the last counts. */
static size_t two_raw_data(uint8_t *out)
{
	static uint8_t t[2100], g[2200];
	size_t nt = 0, ng = 0, n = 0;
	t[nt++] = 1 << 3, t[nt++] = 4;     /* dims */
	t[nt++] = 2 << 3, t[nt++] = 1;     /* data_type */
	t[nt++] = (8 << 3) | 2, t[nt++] = 1, t[nt++] = 'w';
	t[nt++] = (9 << 3) | 2;
	put_varint(t, &nt, 2000);
	memset(t + nt, 1, 2000), nt += 2000;
	t[nt++] = (9 << 3) | 2, t[nt++] = 16;
	memset(t + nt, 2, 16), nt += 16;
	g[ng++] = (5 << 3) | 2;
	put_varint(g, &ng, nt);
	memcpy(g + ng, t, nt), ng += nt;
	out[n++] = (7 << 3) | 2;
	put_varint(out, &n, ng);
	memcpy(out + n, g, ng);
	return n + ng;
}

/* The model at path, or the same bytes (buf, len) loaded from memory with dir for its
 * external data; fails the test when it does not load. */
static struct webnn_model *rd_load(struct webnn_context *ctx, bool from_memory, const char *path,
				   const uint8_t *buf, size_t len, const char *dir)
{
	struct webnn_import_options onnx = WEBNN_IMPORT_OPTIONS_INIT;
	onnx.format = WEBNN_MODEL_FORMAT_ONNX;
	struct webnn_model *model = NULL;
	char err[512] = "";
	enum webnn_status s =
		from_memory ? webnn_model_load_memory(ctx, buf, len, dir, &onnx, &model, err,
						      sizeof err)
			    : webnn_model_load(ctx, path, NULL, &model, err, sizeof err);
	ASSERT_MSG(s == WEBNN_STATUS_OK, "%s", err);
	return model;
}

/* The decoder's cases: large raw_data borrowed (pointers into the bytes), small ones copied,
 * and everything it does not take on left to protobuf-c, with the same result. */
TEST(onnx_raw_data_in_place)
{
	static float wv[RD_K * RD_N], bv[RD_N], cv[4 * 512];
	struct onnx_writer w;
	rd_model(&w, wv, bv, cv);
	uint8_t *buf;
	size_t len;
	ASSERT(onnx_writer_serialise(&w, &buf, &len));
	onnx_writer_free(&w);
	/* room for an appended field */
	uint8_t *bytes = malloc(len + 2);
	ASSERT(bytes);
	memcpy(bytes, buf, len);
	free(buf);

	Onnx__ModelProto *plain = onnx__model_proto__unpack(NULL, len, bytes);
	ASSERT(plain);
	struct ox_raw_ref *refs;
	size_t n_refs;
	Onnx__ModelProto *m = ox_unpack_model(bytes, len, &refs, &n_refs);
	ASSERT(m);
	ASSERT_EQ(n_refs, 2); /* w and c; b is 256 bytes */
	for (size_t k = 0; k < n_refs; k++) {
		const Onnx__TensorProto *t = m->graph->initializer[refs[k].init_index];
		ASSERT(t->raw_data.data == bytes + refs[k].offset);
		ASSERT(refs[k].offset + refs[k].len <= len);
	}
	same_initializers(m, plain);
	ox_free_model(m, refs, n_refs);

	/* a second (empty) graph field: protobuf merges them, so the plain decoder decides */
	bytes[len] = (7 << 3) | 2, bytes[len + 1] = 0;
	m = ox_unpack_model(bytes, len + 2, &refs, &n_refs);
	ASSERT(m);
	ASSERT_EQ(n_refs, 0);
	same_initializers(m, plain);
	ox_free_model(m, refs, n_refs);

	/* cut short: no model, as protobuf-c says */
	ASSERT(!ox_unpack_model(bytes, len - 100, &refs, &n_refs));
	ASSERT(!onnx__model_proto__unpack(NULL, len - 100, bytes));
	onnx__model_proto__free_unpacked(plain, NULL);
	free(bytes);

	/* an empty initializer (found by fuzz_onnx: its stripped copy has no bytes at all) */
	static const uint8_t empty[4] = { (7 << 3) | 2, 2, (5 << 3) | 2, 0 };
	m = ox_unpack_model(empty, sizeof empty, &refs, &n_refs);
	ASSERT(m && m->graph && m->graph->n_initializer == 1);
	ASSERT_EQ(n_refs, 0);
	ox_free_model(m, refs, n_refs);

	/* two raw_data fields in one tensor: the last one, decoded by protobuf-c */
	static uint8_t two[2300];
	size_t n2 = two_raw_data(two);
	m = ox_unpack_model(two, n2, &refs, &n_refs);
	ASSERT(m && m->graph && m->graph->n_initializer == 1);
	ASSERT_EQ(n_refs, 0);
	ASSERT_EQ(m->graph->initializer[0]->raw_data.len, 16);
	ASSERT_EQ(m->graph->initializer[0]->raw_data.data[0], 2);
	ox_free_model(m, refs, n_refs);
}

/* The model loaded from its file (mapped, weights read in place, pages dropped once copied)
 * and from memory: both compute x w + b and return c. */
TEST(onnx_raw_data_load_matches)
{
	static float wv[RD_K * RD_N], bv[RD_N], cv[4 * 512], x[RD_K], want[RD_N], y[RD_N],
		z[4 * 512];
	struct onnx_writer w;
	rd_model(&w, wv, bv, cv);
	char dir[64], path[128];
	snprintf(dir, sizeof dir, "/tmp/wnn-rawdata-XXXXXX");
	ASSERT(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/model.onnx", dir);
	ASSERT(onnx_writer_save(&w, path));
	uint8_t *buf;
	size_t len;
	ASSERT(onnx_writer_serialise(&w, &buf, &len));
	onnx_writer_free(&w);
	for (int k = 0; k < RD_K; k++)
		x[k] = (float)(k % 7) - 3.0f;
	for (int n = 0; n < RD_N; n++) {
		double s = bv[n];
		for (int k = 0; k < RD_K; k++)
			s += (double)x[k] * wv[k * RD_N + n];
		want[n] = (float)s;
	}
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "onnx-raw-data");
	for (int from_memory = 0; from_memory < 2; from_memory++) {
		struct webnn_model *model = rd_load(ctx, from_memory, path, buf, len, dir);
		struct webnn_named_tensor in = { "x", NULL }, out[2] = { { "y", NULL }, { "z", NULL } };
		struct webnn_tensor_desc ti = { .writable = true }, to = { .readable = true };
		webnn_model_input_desc(model, 0, &ti.desc);
		ASSERT(webnn_context_create_tensor(ctx, &ti, &in.tensor) == WEBNN_STATUS_OK);
		for (int k = 0; k < 2; k++) {
			webnn_model_output_desc(model, (size_t)k, &to.desc);
			ASSERT(webnn_context_create_tensor(ctx, &to, &out[k].tensor) ==
			       WEBNN_STATUS_OK);
		}
		ASSERT(webnn_context_write_tensor(ctx, in.tensor, x, sizeof x) == WEBNN_STATUS_OK);
		ASSERT(webnn_context_dispatch(ctx, webnn_model_graph(model), &in, 1, out, 2) ==
		       WEBNN_STATUS_OK);
		ASSERT(webnn_context_read_tensor(ctx, out[0].tensor, y, sizeof y) ==
		       WEBNN_STATUS_OK);
		ASSERT(webnn_context_read_tensor(ctx, out[1].tensor, z, sizeof z) ==
		       WEBNN_STATUS_OK);
		for (int n = 0; n < RD_N; n++)
			ASSERT_MSG(fabsf(y[n] - want[n]) <= 1e-4f * (1 + fabsf(want[n])),
				   "%s: y[%d] = %g, want %g", from_memory ? "memory" : "file", n,
				   (double)y[n], (double)want[n]);
		ASSERT(memcmp(z, cv, sizeof z) == 0);
		webnn_tensor_destroy(in.tensor);
		webnn_tensor_destroy(out[0].tensor);
		webnn_tensor_destroy(out[1].tensor);
		webnn_model_destroy(model);
	}
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
	free(buf);
	ASSERT(unlink(path) == 0 && rmdir(dir) == 0);
}

/* Large initializers stay in the mapped file (importers/onnx/onnx_load.c: ox_tensor_view): the
 * builder borrows them for the operators that take them only as operands (MatMul here, used
 * twice: tied weights) and drops their pages once sent; an operator that reads initializers as
 * host values (Transpose) gets its own copy first, and a MatMul of the same initializer after
 * it takes that copy. From the file and from memory, the same results. */
#define RL_K 512
#define RL_N 256

TEST(onnx_raw_data_large_weights_borrowed)
{
	static float w1[RL_K * RL_N], w2[RL_K * RL_N], x[RL_K], y[RL_N], u[RL_N], z[RL_K * RL_N];
	static float want_y[RL_N], want_u[RL_N];
	static const int64_t xd[2] = { 1, RL_K }, wd[2] = { RL_K, RL_N }, yd[2] = { 1, RL_N },
			     zd[2] = { RL_N, RL_K }, perm[2] = { 1, 0 };
	for (int i = 0; i < RL_K * RL_N; i++) {
		w1[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
		w2[i] = (float)((i * 53) % 97) / 97.0f - 0.5f;
	}
	for (int k = 0; k < RL_K; k++)
		x[k] = (float)(k % 7) - 3.0f;
	for (int n = 0; n < RL_N; n++) {
		double a = 0, b = 0;
		for (int k = 0; k < RL_K; k++) {
			a += (double)x[k] * w1[k * RL_N + n];
			b += (double)x[k] * w2[k * RL_N + n];
		}
		want_y[n] = (float)(2 * a);
		want_u[n] = (float)b;
	}
	struct onnx_writer w;
	onnx_writer_init(&w, 13);
	onnx_writer_input(&w, "x", ONNX_FLOAT, 2, xd);
	onnx_writer_initializer(&w, "w1", ONNX_FLOAT, 2, wd, w1);
	onnx_writer_initializer(&w, "w2", ONNX_FLOAT, 2, wd, w2);
	onnx_writer_node(&w, "mm1", "MatMul", NULL, "x,w1", "m1");
	onnx_writer_node(&w, "mm2", "MatMul", NULL, "x,w1", "m2");
	onnx_writer_node(&w, "add", "Add", NULL, "m1,m2", "y");
	Onnx__NodeProto *t = onnx_writer_node(&w, "tr", "Transpose", NULL, "w2", "z");
	onnx_writer_attr_ints(&w, t, "perm", perm, 2);
	onnx_writer_node(&w, "mm3", "MatMul", NULL, "x,w2", "u");
	onnx_writer_output(&w, "y", ONNX_FLOAT, 2, yd);
	onnx_writer_output(&w, "z", ONNX_FLOAT, 2, zd);
	onnx_writer_output(&w, "u", ONNX_FLOAT, 2, yd);
	char dir[64], path[128];
	snprintf(dir, sizeof dir, "/tmp/wnn-rawlarge-XXXXXX");
	ASSERT(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/model.onnx", dir);
	ASSERT(onnx_writer_save(&w, path));
	uint8_t *buf;
	size_t len;
	ASSERT(onnx_writer_serialise(&w, &buf, &len));
	onnx_writer_free(&w);
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "onnx-raw-data-large");
	for (int from_memory = 0; from_memory < 2; from_memory++) {
		struct webnn_model *model = rd_load(ctx, from_memory, path, buf, len, dir);
		struct webnn_named_tensor in = { "x", NULL },
					  out[3] = { { "y", NULL }, { "z", NULL }, { "u", NULL } };
		struct webnn_tensor_desc ti = { .writable = true }, to = { .readable = true };
		webnn_model_input_desc(model, 0, &ti.desc);
		ASSERT(webnn_context_create_tensor(ctx, &ti, &in.tensor) == WEBNN_STATUS_OK);
		for (int k = 0; k < 3; k++) {
			ASSERT(strcmp(webnn_model_output_name(model, (size_t)k), out[k].name) == 0);
			webnn_model_output_desc(model, (size_t)k, &to.desc);
			ASSERT(webnn_context_create_tensor(ctx, &to, &out[k].tensor) ==
			       WEBNN_STATUS_OK);
		}
		ASSERT(webnn_context_write_tensor(ctx, in.tensor, x, sizeof x) == WEBNN_STATUS_OK);
		ASSERT(webnn_context_dispatch(ctx, webnn_model_graph(model), &in, 1, out, 3) ==
		       WEBNN_STATUS_OK);
		ASSERT(webnn_context_read_tensor(ctx, out[0].tensor, y, sizeof y) ==
		       WEBNN_STATUS_OK);
		ASSERT(webnn_context_read_tensor(ctx, out[1].tensor, z, sizeof z) ==
		       WEBNN_STATUS_OK);
		ASSERT(webnn_context_read_tensor(ctx, out[2].tensor, u, sizeof u) ==
		       WEBNN_STATUS_OK);
		for (int n = 0; n < RL_N; n++) {
			ASSERT_MSG(fabsf(y[n] - want_y[n]) <= 1e-4f * (1 + fabsf(want_y[n])),
				   "%s: y[%d] = %g, want %g", from_memory ? "memory" : "file", n,
				   (double)y[n], (double)want_y[n]);
			ASSERT_MSG(fabsf(u[n] - want_u[n]) <= 1e-4f * (1 + fabsf(want_u[n])),
				   "%s: u[%d] = %g, want %g", from_memory ? "memory" : "file", n,
				   (double)u[n], (double)want_u[n]);
		}
		for (int n = 0; n < RL_N; n++)
			for (int k = 0; k < RL_K; k++)
				ASSERT_MSG(z[n * RL_K + k] == w2[k * RL_N + n],
					   "%s: z[%d][%d] = %g, want %g",
					   from_memory ? "memory" : "file", n, k,
					   (double)z[n * RL_K + k], (double)w2[k * RL_N + n]);
		for (int k = 0; k < 3; k++)
			webnn_tensor_destroy(out[k].tensor);
		webnn_tensor_destroy(in.tensor);
		webnn_model_destroy(model);
	}
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
	free(buf);
	ASSERT(unlink(path) == 0 && rmdir(dir) == 0);
}
