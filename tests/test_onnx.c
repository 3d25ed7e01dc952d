/* ONNX importer: Debian's libonnx-testdata backend tests through webnnd, and the importer's load errors. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/common/model_check.h"
#include "tests/clienttest.h"
#include "tests/onnx_writer.h"
#include "tests/test.h"
#include "webnn_import.h"

#define ONNX_TESTDATA "/usr/share/libonnx-testdata/data"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Skip reasons grouped by operator ("(Op): reason" of the importer's message). */
struct reason {
	char text[1024];
	int count;
};

static void count_reason(struct reason *r, size_t *n, size_t max, const char *msg)
{
	const char *p = strstr(msg, "\" (");
	char key[1024];
	snprintf(key, sizeof(key), "%s", p ? p + 2 : msg);
	for (size_t i = 0; i < *n; i++)
		if (strcmp(r[i].text, key) == 0) {
			r[i].count++;
			return;
		}
	if (*n < max) {
		snprintf(r[*n].text, sizeof(r[*n].text), "%s", key);
		r[(*n)++].count = 1;
	}
}

struct suite_tally {
	int folders, passed, failed, skipped;
	int frozen_passed, frozen_failed, frozen_skipped;
};

static bool freeze_folder(const char *dir, char *tmp, size_t len);
static void remove_tree(const char *dir);

static struct suite_tally run_suite(struct webnn_context *ctx, const char *suite, const char *filter,
				    struct reason *reasons, size_t *n_reasons, size_t max_reasons)
{
	struct suite_tally t = { 0 };
	char root[512];
	snprintf(root, sizeof(root), "%s/%s", ONNX_TESTDATA, suite);
	DIR *d = opendir(root);
	if (!d)
		return t;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || (filter && !strstr(e->d_name, filter)))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			names = realloc(names, cap * sizeof(*names));
			ASSERT(names);
		}
		names[n] = strdup(e->d_name);
		ASSERT(names[n]);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char dir[1024], label[256];
		snprintf(dir, sizeof(dir), "%s/%s", root, names[i]);
		snprintf(label, sizeof(label), "%s/%s", suite, names[i]);
		/* ONNX's own tolerance for its backend tests. */
		struct tool_check_options o = { .atol = 1e-7, .rtol = 1e-3, .out = stderr,
					       .label = label };
		struct tool_check_counts c = { 0 };
		tool_check_dir(ctx, dir, &o, &c);
		t.folders++;
		if (c.skipped && strstr(c.reason, "is computed at run time")) {
			/* The same test with its shape-like inputs frozen as initializers checks
			 * the mapping of what WebNN needs at build time (Resize scales, Reshape
			 * shapes, Slice bounds ...): it must pass or skip, never be wrong. */
			char tmp[64], flabel[300];
			snprintf(flabel, sizeof(flabel), "%s (inputs frozen)", label);
			if (freeze_folder(dir, tmp, sizeof(tmp))) {
				struct tool_check_counts fc = { 0 };
				o.label = flabel;
				tool_check_dir(ctx, tmp, &o, &fc);
				t.frozen_passed += fc.passed && !fc.failed;
				t.frozen_failed += fc.failed != 0;
				t.frozen_skipped += !fc.passed && !fc.failed;
				remove_tree(tmp);
			}
		}
		if (c.failed) {
			t.failed++;
		} else if (c.skipped) {
			t.skipped++;
			count_reason(reasons, n_reasons, max_reasons, c.reason);
		} else {
			t.passed++;
		}
		free(names[i]);
		ASSERT_MSG(!webnn_context_is_lost(ctx), "the context was lost at %s", label);
	}
	free(names);
	return t;
}

static int by_count(const void *a, const void *b)
{
	return ((const struct reason *)b)->count - ((const struct reason *)a)->count;
}

/* Every folder of the node, pytorch-converted, pytorch-operator and simple suites: PASS, or
 * SKIP naming what WebNN cannot express; any wrong result or unexpected error fails. The floors
 * are the counts this importer reached (regressions fail); $WEBNN_ONNX_FILTER narrows the run. */
TEST_TIMEOUT(onnx_testdata, 1800)
{
	struct stat st;
	if (stat(ONNX_TESTDATA, &st) != 0)
		SKIP("%s is absent: make deps installs libonnx-testdata", ONNX_TESTDATA);
	const char *backend = getenv("WEBNN_ONNX_BACKEND") ? getenv("WEBNN_ONNX_BACKEND") : "reference";
	const char *filter = getenv("WEBNN_ONNX_FILTER");
	const char *const args[] = { "--backend", backend, NULL };
	struct test_daemon d;
	ct_require_webnnd();
	test_daemon_start(&d, args);
	struct webnn_context *ctx = ct_connect(&d, "onnx-testdata");
	static const char *const suites[] = { "node", "pytorch-converted", "pytorch-operator",
					      "simple" };
	static const int floors[] = { 651, 82, 30, 3 };
	static struct reason reasons[512];
	size_t n_reasons = 0;
	struct suite_tally t[4];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 4; i++)
		t[i] = run_suite(ctx, suites[i], filter, reasons, &n_reasons, 512);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	qsort(reasons, n_reasons, sizeof(reasons[0]), by_count);
	fprintf(stderr, "\nskipped, by reason:\n");
	for (size_t i = 0; i < n_reasons; i++)
		fprintf(stderr, "  %3d  %s\n", reasons[i].count, reasons[i].text);
	int failed = 0;
	for (int i = 0; i < 4; i++) {
		fprintf(stderr, "%-18s %4d folders: %4d passed, %3d failed, %4d skipped; with inputs "
			"frozen: %d passed, %d failed, %d skipped\n", suites[i], t[i].folders,
			t[i].passed, t[i].failed, t[i].skipped, t[i].frozen_passed,
			t[i].frozen_failed, t[i].frozen_skipped);
		failed += t[i].failed + t[i].frozen_failed;
	}
	fprintf(stderr, "backend %s, %.1f s\n", backend,
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
	ASSERT_EQ(failed, 0);
	if (!filter)
		for (int i = 0; i < 4; i++)
			ASSERT_MSG(t[i].passed >= floors[i], "%s: %d passed, fewer than %d", suites[i],
				   t[i].passed, floors[i]);
}

/* ---------------------------------------------------------------- hand-made models */

/* Starts a model in w, freeing what it held (w zeroed or freed before): ai.onnx opset 13, IR
 * version 7. */
static void model_begin(struct onnx_writer *w)
{
	onnx_writer_free(w);
	onnx_writer_init(w, 13);
}

/* An attribute without its type, as older writers leave it. */
static Onnx__AttributeProto *untyped(Onnx__AttributeProto *a)
{
	a->has_type = 0;
	return a;
}

/* Writes the model to dir/model.onnx. */
static void model_write(const struct onnx_writer *w, const char *dir)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	ASSERT(onnx_writer_save(w, path));
}

static void mk_tmpdir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/wnn-onnx-XXXXXX");
	ASSERT(mkdtemp(dir));
}

/* Loads dir/model.onnx; returns the status, the message in err. */
static enum webnn_status mk_load(struct webnn_context *ctx, const char *dir,
				 const struct webnn_import_options *o, struct webnn_model **m,
				 char *err, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	return webnn_model_load(ctx, path, o, m, err, len);
}

#define EXPECT_LOAD_ERROR(ctx, dir, opts, status, needle)                                     \
	do {                                                                                   \
		struct webnn_model *m_ = NULL;                                                 \
		char e_[1024] = "";                                                            \
		enum webnn_status s_ = mk_load(ctx, dir, opts, &m_, e_, sizeof(e_));            \
		ASSERT_MSG(s_ == (status), "load -> %s (%s), expected %s", webnn_status_name(s_), \
			   e_, webnn_status_name(status));                                     \
		ASSERT(m_ == NULL);                                                            \
		ASSERT_CONTAINS(e_, needle);                                                   \
	} while (0)

static const int64_t d23[2] = { 2, 3 };
static const float ones6[6] = { 1, 1, 1, 1, 1, 1 };

/* The usual test model: one node between input x and output y, both float [2, 3]. */
static Onnx__NodeProto *model_around(struct onnx_writer *w, const char *name, const char *type,
				     const char *in1)
{
	char ins[64];
	snprintf(ins, sizeof(ins), "x%s%s", in1 ? "," : "", in1 ? in1 : "");
	model_begin(w);
	onnx_writer_input(w, "x", ONNX_FLOAT, 2, d23);
	Onnx__NodeProto *n = onnx_writer_node(w, name, type, NULL, ins, "y");
	onnx_writer_output(w, "y", ONNX_FLOAT, 2, d23);
	return n;
}

/* A daemon, a context on it and an empty folder for the models a test writes. */
struct onnx_env {
	struct test_daemon d;
	struct webnn_context *ctx;
	char dir[64];
};

static void onnx_env_up(struct onnx_env *e, const char *client)
{
	ct_daemon_up(&e->d);
	e->ctx = ct_connect(&e->d, client);
	mk_tmpdir(e->dir, sizeof(e->dir));
}

static void onnx_env_down(struct onnx_env *e)
{
	webnn_context_destroy(e->ctx);
	test_daemon_stop(&e->d);
}

TEST(onnx_error_unknown_operator)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-errors");
	struct webnn_context *ctx = e.ctx;
	const char *dir = e.dir;
	struct onnx_writer wr = { 0 };
	model_around(&wr, "n0", "FooBar", NULL);
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_NOT_SUPPORTED,
			  "onnx: node \"n0\" (FooBar): unknown operator \"FooBar\"");
	/* an ONNX operator WebNN cannot express names the reason */
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, d23);
	onnx_writer_node(&wr, "t", "NonZero", NULL, "x", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, d23);
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_NOT_SUPPORTED,
			  "onnx: node \"t\" (NonZero): WebNN cannot express NonZero: its output "
			  "shape depends on the input values");
	/* an input no node produces */
	model_around(&wr, "a", "Add", "nowhere");
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_TYPE_ERROR,
			  "onnx: node \"a\" (Add): input \"nowhere\" is neither a graph input, an "
			  "initializer nor the output of an earlier node");
	/* an opset past the mapping */
	Onnx__NodeProto *relu = model_around(&wr, "r", "Relu", NULL);
	onnx_writer_opset(&wr, "", 22);
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_NOT_SUPPORTED,
			  "onnx: opset 22: this importer maps opsets up to 21");
	/* a domain other than ai.onnx and com.microsoft; an operator com.microsoft lacks */
	onnx_writer_opset(&wr, "", 13);
	relu->domain = (char *)"org.example";
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_NOT_SUPPORTED,
			  "onnx: node \"r\" (Relu): operator domain \"org.example\" is neither "
			  "ai.onnx nor com.microsoft");
	relu->domain = (char *)"com.microsoft";
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_NOT_SUPPORTED,
			  "onnx: node \"r\" (Relu): unknown operator \"Relu\" in domain "
			  "com.microsoft");
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

TEST(onnx_error_bad_attribute)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-errors");
	struct webnn_context *ctx = e.ctx;
	const char *dir = e.dir;
	static const int64_t xs[4] = { 1, 1, 5, 5 }, ws[4] = { 1, 1, 3, 3 }, pads[4] = { 1, 1, 1, 1 };
	static float w[9];
	struct onnx_writer wr = { 0 };
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 4, xs);
	onnx_writer_initializer(&wr, "w", ONNX_FLOAT, 4, ws, w);
	Onnx__NodeProto *n = onnx_writer_node(&wr, "conv_3", "Conv", NULL, "x,w", "y");
	onnx_writer_attr_string(&wr, n, "auto_pad", "VALID");
	onnx_writer_attr_ints(&wr, n, "pads", pads, 4);
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 4, xs);
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_TYPE_ERROR,
			  "onnx: node \"conv_3\" (Conv): auto_pad VALID with pads given");
	/* an attribute value the opset does not define ("wrap" came with opset 19) */
	model_begin(&wr);
	static const int64_t x4[4] = { 1, 1, 4, 4 };
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 4, x4);
	n = onnx_writer_node(&wr, "pad0", "Pad", NULL, "x", "y");
	onnx_writer_opset(&wr, "", 10);
	untyped(onnx_writer_attr_string(&wr, n, "mode", "wrap"));
	static const int64_t p8[8] = { 0, 0, 1, 1, 0, 0, 1, 1 };
	untyped(onnx_writer_attr_ints(&wr, n, "pads", p8, 8));
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 4, x4);
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_TYPE_ERROR,
			  "onnx: node \"pad0\" (Pad): mode \"wrap\"");
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

TEST(onnx_free_dimension)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-dims");
	struct webnn_context *ctx = e.ctx;
	const char *dir = e.dir;
	static const char *const names[2] = { "N", NULL };
	struct onnx_writer wr = { 0 };
	model_begin(&wr);
	onnx_writer_dim_params(&wr, onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, d23), names);
	onnx_writer_node(&wr, "r", "Relu", NULL, "x", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, d23);
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_TYPE_ERROR,
			  "onnx: 1 free dimension is not bound: \"N\" (x:0); bind it by name or "
			  "as input:axis (--dim N=<size>)");
	/* bound: the input and output take the size */
	struct webnn_dim_binding b = { "N", 5 };
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	o.dims = &b;
	o.n_dims = 1;
	struct webnn_model *model = NULL;
	char err[512] = "";
	enum webnn_status s = mk_load(ctx, dir, &o, &model, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "%s", err);
	struct webnn_operand_desc desc;
	webnn_model_input_desc(model, 0, &desc);
	ASSERT_EQ(desc.rank, 2);
	ASSERT_EQ(desc.shape[0], 5);
	ASSERT_EQ(desc.shape[1], 3);
	webnn_model_output_desc(model, 0, &desc);
	ASSERT_EQ(desc.shape[0], 5);
	ASSERT_STREQ(webnn_model_input_name(model, 0), "x");
	ASSERT_STREQ(webnn_model_output_name(model, 0), "y");
	webnn_model_destroy(model);
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

/* Add of an input and an initializer read from an external data file. */
static Onnx__TensorProto *external_model(struct onnx_writer *w, const char *location)
{
	model_begin(w);
	onnx_writer_input(w, "x", ONNX_FLOAT, 2, d23);
	Onnx__TensorProto *t = onnx_writer_initializer_external(w, "w", ONNX_FLOAT, 2, d23,
								location);
	onnx_writer_node(w, "add", "Add", NULL, "x,w", "y");
	onnx_writer_output(w, "y", ONNX_FLOAT, 2, d23);
	return t;
}

TEST(onnx_external_data)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "onnx-external");
	char dir[64], path[256];
	mk_tmpdir(dir, sizeof(dir));
	static const float w[6] = { 1, 2, 3, 4, 5, 6 };
	snprintf(path, sizeof(path), "%s/weights.bin", dir);
	FILE *f = fopen(path, "wb");
	ASSERT(f && fwrite(w, sizeof(float), 6, f) == 6 && fclose(f) == 0);
	struct onnx_writer wr = { 0 };
	external_model(&wr, "weights.bin");
	model_write(&wr, dir);
	struct webnn_model *model = NULL;
	char err[512] = "";
	enum webnn_status s = mk_load(ctx, dir, NULL, &model, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "%s", err);
	struct webnn_tensor_desc ti = { .writable = true }, to = { .readable = true };
	webnn_model_input_desc(model, 0, &ti.desc);
	webnn_model_output_desc(model, 0, &to.desc);
	struct webnn_tensor *tx, *ty;
	OK(ctx, webnn_context_create_tensor(ctx, &ti, &tx));
	OK(ctx, webnn_context_create_tensor(ctx, &to, &ty));
	OK(ctx, webnn_context_write_tensor(ctx, tx, ones6, sizeof(ones6)));
	struct webnn_named_tensor in = { "x", tx }, out = { "y", ty };
	OK(ctx, webnn_context_dispatch(ctx, webnn_model_graph(model), &in, 1, &out, 1));
	float y[6];
	OK(ctx, webnn_context_read_tensor(ctx, ty, y, sizeof(y)));
	for (int i = 0; i < 6; i++)
		ASSERT_MSG(y[i] == w[i] + 1, "y[%d] = %g", i, y[i]);
	webnn_tensor_destroy(tx);
	webnn_tensor_destroy(ty);
	webnn_model_destroy(model);

	/* escaping the model's folder: "..", an absolute path, a symlink out of it */
	external_model(&wr, "../weights.bin");
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_DATA_ERROR,
			  "onnx: initializer tensor \"w\": external data location "
			  "\"../weights.bin\" leaves the model's folder");
	external_model(&wr, "/etc/passwd");
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_DATA_ERROR,
			  "external data location \"/etc/passwd\" leaves the model's folder");
	snprintf(path, sizeof(path), "%s/link.bin", dir);
	ASSERT(symlink("/etc/passwd", path) == 0);
	external_model(&wr, "link.bin");
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_DATA_ERROR,
			  "external data location \"link.bin\" leaves the model's folder");
	/* a file shorter than the tensor */
	snprintf(path, sizeof(path), "%s/short.bin", dir);
	f = fopen(path, "wb");
	ASSERT(f && fwrite(w, sizeof(float), 5, f) == 5 && fclose(f) == 0);
	external_model(&wr, "short.bin");
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_DATA_ERROR,
			  "holds fewer than 0 + 24 bytes");
	onnx_writer_free(&wr);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(onnx_error_lying_lengths)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-lengths");
	struct webnn_context *ctx = e.ctx;
	const char *dir = e.dir;
	struct onnx_writer wr = { 0 };
	/* raw data shorter than dims x type */
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, d23);
	onnx_writer_initializer(&wr, "w", ONNX_FLOAT, 2, d23, ones6)->raw_data.len = 20;
	onnx_writer_node(&wr, "add", "Add", NULL, "x,w", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, d23);
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_DATA_ERROR,
			  "onnx: initializer tensor \"w\": 20 raw bytes, but its shape and type "
			  "need 24");
	/* a protobuf whose length prefix runs past the end of the file */
	size_t len;
	uint8_t *buf;
	ASSERT(onnx_writer_serialise(&wr, &buf, &len));
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	o.format = WEBNN_MODEL_FORMAT_ONNX;
	struct webnn_model *model = NULL;
	char err[512] = "";
	enum webnn_status s = webnn_model_load_memory(ctx, buf, len - 7, NULL, &o, &model, err,
						      sizeof(err));
	ASSERT_EQ(s, WEBNN_STATUS_DATA_ERROR);
	ASSERT_CONTAINS(err, "onnx: not an ONNX model (protobuf decoding of ModelProto failed)");
	free(buf);
	/* external data whose declared length disagrees with the shape */
	onnx_writer_external_data(&wr, external_model(&wr, "weights.bin"), "length", "4000000000");
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_DATA_ERROR,
			  "external data length 4000000000, but its shape and type need 24 bytes");
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

/* .npy and .pb tensor files through webnn_tensor_file_read. */
TEST(onnx_tensor_files)
{
	char dir[64], path[256];
	mk_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/a.npy", dir);
	static const char hdr[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
	char h[128];
	int n = snprintf(h, sizeof(h), "%s", hdr);
	while ((10 + n + 1) % 64)
		h[n++] = ' ';
	h[n++] = '\n';
	FILE *f = fopen(path, "wb");
	ASSERT(f);
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	fputc(n & 0xff, f);
	fputc(n >> 8, f);
	fwrite(h, 1, (size_t)n, f);
	static const float v[6] = { 1, 2, 3, 4, 5, 6 };
	fwrite(v, sizeof(float), 6, f);
	ASSERT(fclose(f) == 0);
	struct webnn_operand_desc desc;
	void *data = NULL;
	size_t size = 0;
	char err[512] = "";
	ASSERT_MSG(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)) ==
			   WEBNN_STATUS_OK, "%s", err);
	ASSERT_EQ(desc.data_type, WEBNN_FLOAT32);
	ASSERT_EQ(desc.rank, 2);
	ASSERT_EQ(desc.shape[1], 3);
	ASSERT_EQ(size, 24);
	ASSERT(memcmp(data, v, 24) == 0);
	free(data);
	/* a .pb TensorProto with int64 values in the typed field */
	Onnx__TensorProto t;
	onnx__tensor_proto__init(&t);
	static int64_t dims[1] = { 3 }, vals[3] = { -1, 0, 1ll << 40 };
	t.n_dims = 1;
	t.dims = dims;
	t.has_data_type = 1;
	t.data_type = 7;
	t.n_int64_data = 3;
	t.int64_data = vals;
	uint8_t buf[128];
	size_t len = onnx__tensor_proto__pack(&t, buf);
	snprintf(path, sizeof(path), "%s/t.pb", dir);
	f = fopen(path, "wb");
	ASSERT(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0);
	ASSERT_MSG(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)) ==
			   WEBNN_STATUS_OK, "%s", err);
	ASSERT_EQ(desc.data_type, WEBNN_INT64);
	ASSERT_EQ(size, 24);
	ASSERT(memcmp(data, vals, 24) == 0);
	free(data);
	/* lying lengths: a shape of 4 with 3 values */
	dims[0] = 4;
	len = onnx__tensor_proto__pack(&t, buf);
	f = fopen(path, "wb");
	ASSERT(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0);
	ASSERT_EQ(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)),
		  WEBNN_STATUS_DATA_ERROR);
	ASSERT_CONTAINS(err, "3 values, but its shape holds 4");
	/* a truncated .npy */
	snprintf(path, sizeof(path), "%s/a.npy", dir);
	ASSERT(truncate(path, 128 + 20) == 0);
	ASSERT_EQ(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)),
		  WEBNN_STATUS_DATA_ERROR);
	ASSERT_CONTAINS(err, "20 data bytes, the shape needs 24");
}

/* ---------------------------------------------------------------- frozen inputs */

static void remove_tree(const char *dir)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static void *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return p;
}

/* A copy of dir's model in a new folder (tmp) whose graph inputs past the first, and int64
 * ones, are initializers holding test_data_set_0's values; the remaining inputs and the
 * expected outputs are linked. */
static bool freeze_folder(const char *dir, char *tmp, size_t len)
{
	char path[2048];
	size_t n;
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	void *bytes = read_all(path, &n);
	if (!bytes)
		return false;
	Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, n, bytes);
	free(bytes);
	if (!m || !m->graph) {
		if (m)
			onnx__model_proto__free_unpacked(m, NULL);
		return false;
	}
	snprintf(tmp, len, "/tmp/wnn-onnx-frozen-XXXXXX");
	if (!mkdtemp(tmp)) {
		onnx__model_proto__free_unpacked(m, NULL);
		return false;
	}
	char set[256];
	snprintf(set, sizeof(set), "%s/test_data_set_0", tmp);
	mkdir(set, 0755);
	Onnx__GraphProto *g = m->graph;
	Onnx__ValueInfoProto **kept = calloc(g->n_input + 1, sizeof(*kept));
	Onnx__TensorProto **inits = calloc(g->n_initializer + g->n_input + 1, sizeof(*inits));
	Onnx__TensorProto **frozen = calloc(g->n_input + 1, sizeof(*frozen));
	bool ok = kept && inits && frozen;
	size_t nk = 0, ni = g->n_initializer, nf = 0, k = 0;
	for (size_t i = 0; ok && i < g->n_initializer; i++)
		inits[i] = g->initializer[i];
	for (size_t i = 0; ok && i < g->n_input; i++) {
		bool init = false;
		for (size_t j = 0; j < g->n_initializer; j++)
			init |= strcmp(g->initializer[j]->name, g->input[i]->name) == 0;
		if (init) {
			kept[nk++] = g->input[i];
			continue;
		}
		char src[2048], dst[512];
		snprintf(src, sizeof(src), "%s/test_data_set_0/input_%zu.pb", dir, k);
		size_t tl;
		void *tb = read_all(src, &tl);
		Onnx__TensorProto *t = tb ? onnx__tensor_proto__unpack(NULL, tl, tb) : NULL;
		free(tb);
		if (!t) {
			ok = false;
			break;
		}
		/* parameters: every input but the first, an int64 first one, a scalar one */
		bool freeze = k > 0 || (t->has_data_type && t->data_type == 7) || t->n_dims == 0;
		if (freeze) {
			t->name = g->input[i]->name; /* the model's string: restored before freeing */
			inits[ni++] = t;
			frozen[nf++] = t;
		} else {
			onnx__tensor_proto__free_unpacked(t, NULL);
			kept[nk] = g->input[i];
			snprintf(dst, sizeof(dst), "%s/input_%zu.pb", set, nk);
			ok &= symlink(src, dst) == 0;
			nk++;
		}
		k++;
	}
	for (size_t o = 0; ok && o < g->n_output; o++) {
		char src[2048], dst[512];
		snprintf(src, sizeof(src), "%s/test_data_set_0/output_%zu.pb", dir, o);
		snprintf(dst, sizeof(dst), "%s/output_%zu.pb", set, o);
		ok &= symlink(src, dst) == 0;
	}
	if (ok && nf) {
		Onnx__ValueInfoProto **old_in = g->input;
		Onnx__TensorProto **old_init = g->initializer;
		size_t old_ni = g->n_input, old_nini = g->n_initializer;
		g->input = kept;
		g->n_input = nk;
		g->initializer = inits;
		g->n_initializer = ni;
		size_t pl = onnx__model_proto__get_packed_size(m);
		uint8_t *pb = malloc(pl + 1);
		if (pb) {
			onnx__model_proto__pack(m, pb);
			snprintf(path, sizeof(path), "%s/model.onnx", tmp);
			FILE *f = fopen(path, "wb");
			ok = f && fwrite(pb, 1, pl, f) == pl;
			if (f)
				fclose(f);
			free(pb);
		} else {
			ok = false;
		}
		g->input = old_in;
		g->n_input = old_ni;
		g->initializer = old_init;
		g->n_initializer = old_nini;
	} else {
		ok = false;
	}
	for (size_t i = 0; i < nf; i++) {
		frozen[i]->name = NULL;
		onnx__tensor_proto__free_unpacked(frozen[i], NULL);
	}
	free(kept);
	free(inits);
	free(frozen);
	onnx__model_proto__free_unpacked(m, NULL);
	if (!ok)
		remove_tree(tmp);
	return ok;
}

/* Einsum: ONNX's own Einsum tests use double, so the common patterns are checked here against
 * sums computed in C. */
static void einsum_case(struct webnn_context *ctx, const char *dir, const char *eq,
			uint32_t ra, const int64_t *da, uint32_t rb, const int64_t *db, uint32_t ro,
			const int64_t *dout, const float *want)
{
	struct onnx_writer wr = { 0 };
	model_begin(&wr);
	onnx_writer_input(&wr, "a", ONNX_FLOAT, ra, da);
	if (rb)
		onnx_writer_input(&wr, "b", ONNX_FLOAT, rb, db);
	Onnx__NodeProto *n = onnx_writer_node(&wr, "e", "Einsum", NULL, rb ? "a,b" : "a", "y");
	untyped(onnx_writer_attr_string(&wr, n, "equation", eq));
	onnx_writer_output(&wr, "y", ONNX_FLOAT, ro, dout);
	model_write(&wr, dir);
	struct webnn_model *model = NULL;
	char err[512] = "";
	enum webnn_status s = mk_load(ctx, dir, NULL, &model, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "%s: %s", eq, err);
	struct webnn_named_tensor in[2];
	size_t ni = webnn_model_input_count(model);
	static float va[64], vb[64];
	for (int i = 0; i < 64; i++) {
		va[i] = (float)(i % 5) - 2;
		vb[i] = (float)(i % 3) + 0.5f;
	}
	for (size_t i = 0; i < ni; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		webnn_model_input_desc(model, i, &td.desc);
		in[i].name = webnn_model_input_name(model, i);
		OK(ctx, webnn_context_create_tensor(ctx, &td, &in[i].tensor));
		OK(ctx, webnn_context_write_tensor(ctx, in[i].tensor, i ? vb : va,
						   ct_bytes(&td.desc)));
	}
	struct webnn_tensor_desc to = { .readable = true };
	webnn_model_output_desc(model, 0, &to.desc);
	struct webnn_named_tensor out = { "y", NULL };
	OK(ctx, webnn_context_create_tensor(ctx, &to, &out.tensor));
	OK(ctx, webnn_context_dispatch(ctx, webnn_model_graph(model), in, ni, &out, 1));
	float got[64];
	size_t bytes = ct_bytes(&to.desc);
	OK(ctx, webnn_context_read_tensor(ctx, out.tensor, got, bytes));
	ct_assert_floats(eq, got, want, bytes / sizeof(float), 1e-5f);
	for (size_t i = 0; i < ni; i++)
		webnn_tensor_destroy(in[i].tensor);
	webnn_tensor_destroy(out.tensor);
	webnn_model_destroy(model);
	onnx_writer_free(&wr);
}

TEST(onnx_einsum)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-einsum");
	struct webnn_context *ctx = e.ctx;
	const char *dir = e.dir;
	float a[64], b[64], want[64];
	for (int i = 0; i < 64; i++) {
		a[i] = (float)(i % 5) - 2;
		b[i] = (float)(i % 3) + 0.5f;
	}
	/* ij,jk->ik with i=2, j=3, k=4 */
	static const int64_t a23[2] = { 2, 3 }, b34[2] = { 3, 4 }, o24[2] = { 2, 4 };
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 4; k++) {
			want[i * 4 + k] = 0;
			for (int j = 0; j < 3; j++)
				want[i * 4 + k] += a[i * 3 + j] * b[j * 4 + k];
		}
	einsum_case(ctx, dir, "ij,jk->ik", 2, a23, 2, b34, 2, o24, want);
	/* bij,bjk->bik with b=2 */
	static const int64_t a223[3] = { 2, 2, 3 }, b234[3] = { 2, 3, 4 }, o224[3] = { 2, 2, 4 };
	for (int n = 0; n < 2; n++)
		for (int i = 0; i < 2; i++)
			for (int k = 0; k < 4; k++) {
				float acc = 0;
				for (int j = 0; j < 3; j++)
					acc += a[n * 6 + i * 3 + j] * b[n * 12 + j * 4 + k];
				want[n * 8 + i * 4 + k] = acc;
			}
	einsum_case(ctx, dir, "bij,bjk->bik", 3, a223, 3, b234, 3, o224, want);
	/* ij->ji, ij->i, i,i-> (inner product), ij,kj->ik (b transposed) */
	static const int64_t o32[2] = { 3, 2 }, o2[1] = { 2 }, d3[1] = { 3 }, b43[2] = { 4, 3 };
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			want[j * 2 + i] = a[i * 3 + j];
	einsum_case(ctx, dir, "ij->ji", 2, a23, 0, NULL, 2, o32, want);
	for (int i = 0; i < 2; i++)
		want[i] = a[i * 3] + a[i * 3 + 1] + a[i * 3 + 2];
	einsum_case(ctx, dir, "ij->i", 2, a23, 0, NULL, 1, o2, want);
	want[0] = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
	einsum_case(ctx, dir, "i,i", 1, d3, 1, d3, 0, NULL, want);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 4; k++) {
			want[i * 4 + k] = 0;
			for (int j = 0; j < 3; j++)
				want[i * 4 + k] += a[i * 3 + j] * b[k * 3 + j];
		}
	einsum_case(ctx, dir, "ij,kj->ik", 2, a23, 2, b43, 2, o24, want);
	/* a diagonal is refused, naming the rule */
	struct onnx_writer wr = { 0 };
	model_begin(&wr);
	static const int64_t s33[2] = { 3, 3 };
	onnx_writer_input(&wr, "a", ONNX_FLOAT, 2, s33);
	Onnx__NodeProto *n = onnx_writer_node(&wr, "e", "Einsum", NULL, "a", "y");
	untyped(onnx_writer_attr_string(&wr, n, "equation", "ii->i"));
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 1, d3);
	model_write(&wr, dir);
	EXPECT_LOAD_ERROR(ctx, dir, NULL, WEBNN_STATUS_NOT_SUPPORTED,
			  "onnx: node \"e\" (Einsum): a repeated letter (diagonal) in \"ii->i\"");
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

/* Writes a float TensorProto file. */
static void write_pb(const char *path, uint32_t rank, const int64_t *dims, const float *v, size_t n)
{
	Onnx__TensorProto t;
	onnx__tensor_proto__init(&t);
	t.n_dims = rank;
	t.dims = (int64_t *)dims;
	t.has_data_type = 1;
	t.data_type = 1;
	t.n_float_data = n;
	t.float_data = (float *)v;
	size_t len = onnx__tensor_proto__get_packed_size(&t);
	uint8_t *buf = malloc(len + 1);
	ASSERT(buf);
	onnx__tensor_proto__pack(&t, buf);
	FILE *f = fopen(path, "wb");
	ASSERT(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0);
	free(buf);
}

/* Runs a command, returns its exit status and its stdout in out. */
static int run_cmd(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	ASSERT(p);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = 0;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* webnn-run --check on an ONNX backend-test folder: PASS, a wrong expected value FAILs with the
 * element named and exit status 1, an operator WebNN cannot express SKIPs; and a model run with
 * --input and --output-dir writes the output as .npy. */
TEST(onnx_webnn_run_check)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	char dir[64], path[512], cmd[2048], out[8192];
	mk_tmpdir(dir, sizeof(dir));
	struct onnx_writer wr = { 0 };
	model_around(&wr, "r", "Relu", NULL);
	model_write(&wr, dir);
	static const float x[6] = { -1, 2, -3, 4, -5, 6 }, y[6] = { 0, 2, 0, 4, 0, 6 },
			   bad[6] = { 0, 2, 0, 4, 0, 7 };
	snprintf(path, sizeof(path), "%s/test_data_set_0", dir);
	ASSERT(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/test_data_set_0/input_0.pb", dir);
	write_pb(path, 2, d23, x, 6);
	snprintf(path, sizeof(path), "%s/test_data_set_0/output_0.pb", dir);
	write_pb(path, 2, d23, y, 6);
	const char *bin = test_build_dir();
	snprintf(cmd, sizeof(cmd), "%s/bin/webnn-run --socket %s --check %s 2>&1", bin,
		 d.socket_path, dir);
	ASSERT_EQ(run_cmd(cmd, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "/test_data_set_0: PASS");
	ASSERT_CONTAINS(out, "1 passed, 0 failed, 0 skipped");
	/* the same model run directly, its output written as .npy and read back */
	snprintf(cmd, sizeof(cmd), "%s/bin/webnn-run --socket %s %s/model.onnx --input x=%s/"
		 "test_data_set_0/input_0.pb --output-dir %s --iterations 2 2>&1", bin,
		 d.socket_path, dir, dir, dir);
	ASSERT_EQ(run_cmd(cmd, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "output y float32[2,3]: min 0 max 6");
	ASSERT_CONTAINS(out, "steady");
	snprintf(path, sizeof(path), "%s/y.npy", dir);
	struct webnn_operand_desc desc;
	void *data = NULL;
	size_t size = 0;
	char err[256];
	ASSERT_MSG(webnn_tensor_file_read(path, &desc, &data, &size, err, sizeof(err)) ==
			   WEBNN_STATUS_OK, "%s", err);
	ASSERT_EQ(size, sizeof(y));
	ASSERT(memcmp(data, y, sizeof(y)) == 0);
	free(data);
	/* a wrong expected value */
	snprintf(path, sizeof(path), "%s/test_data_set_0/output_0.pb", dir);
	write_pb(path, 2, d23, bad, 6);
	snprintf(cmd, sizeof(cmd), "%s/bin/webnn-run --socket %s --check %s 2>&1", bin,
		 d.socket_path, dir);
	ASSERT_EQ(run_cmd(cmd, out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "FAIL output 0 (\"y\"): element 5 is 6, expected 7");
	ASSERT_CONTAINS(out, "0 passed, 1 failed, 0 skipped");
	/* an operator WebNN cannot express */
	model_around(&wr, "t", "NonZero", NULL);
	model_write(&wr, dir);
	ASSERT_EQ(run_cmd(cmd, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "SKIP onnx: node \"t\" (NonZero): WebNN cannot express NonZero");
	ASSERT_CONTAINS(out, "0 passed, 0 failed, 1 skipped");
	onnx_writer_free(&wr);
	test_daemon_stop(&d);
}

/* A model nesting graphs in attributes 100000 deep is refused before protobuf-c recurses into
 * it (which would exhaust the stack). */
TEST(onnx_error_deep_nesting)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "onnx-nesting");
	/* Written back to front: each level wraps what follows it in Graph{node: Node{attribute:
	 * Attr{g: ...}}}, and ModelProto.graph (field 7) wraps the whole. */
	size_t depth = 100000, cap = depth * 3 * 6 + 16, pos = cap;
	uint8_t *buf = malloc(cap);
	ASSERT(buf);
	static const uint8_t tags[3] = { (6 << 3) | 2, (5 << 3) | 2, (1 << 3) | 2 };
	for (size_t k = 0; k <= depth * 3; k++) {
		uint8_t hdr[12];
		size_t h = 0, v = cap - pos;
		hdr[h++] = k == depth * 3 ? (7 << 3) | 2 : tags[k % 3];
		do {
			hdr[h++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
			v >>= 7;
		} while (v);
		pos -= h;
		memcpy(buf + pos, hdr, h);
	}
	uint8_t *tmp = buf + pos;
	size_t len = cap - pos;
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	o.format = WEBNN_MODEL_FORMAT_ONNX;
	struct webnn_model *m = NULL;
	char err[512] = "";
	enum webnn_status s = webnn_model_load_memory(ctx, tmp, len, NULL, &o, &m, err, sizeof(err));
	ASSERT_EQ(s, WEBNN_STATUS_DATA_ERROR);
	ASSERT_CONTAINS(err, "onnx: messages nested more than 64 deep (graphs in attributes?): "
			     "refused");
	free(buf);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* GatherND with negative indices (ONNX counts them from the end of each dimension). */
TEST(onnx_gathernd_negative_indices)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-gathernd");
	struct webnn_context *ctx = e.ctx;
	const char *dir = e.dir;
	static const int64_t d22[2] = { 2, 2 }, d2[1] = { 2 };
	struct onnx_writer wr = { 0 };
	model_begin(&wr);
	onnx_writer_input(&wr, "data", ONNX_FLOAT, 2, d22);
	onnx_writer_input(&wr, "idx", ONNX_INT64, 2, d22);
	onnx_writer_node(&wr, "g", "GatherND", NULL, "data,idx", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 1, d2);
	model_write(&wr, dir);
	struct webnn_model *model = NULL;
	char err[512] = "";
	ASSERT_MSG(mk_load(ctx, dir, NULL, &model, err, sizeof(err)) == WEBNN_STATUS_OK, "%s", err);
	static const float data[4] = { 0, 1, 2, 3 };
	static const int64_t idx[4] = { -1, 0, 0, -1 };
	struct webnn_named_tensor in[2], out = { "y", NULL };
	for (size_t i = 0; i < 2; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		webnn_model_input_desc(model, i, &td.desc);
		in[i].name = webnn_model_input_name(model, i);
		OK(ctx, webnn_context_create_tensor(ctx, &td, &in[i].tensor));
		OK(ctx, webnn_context_write_tensor(ctx, in[i].tensor, i ? (const void *)idx
									  : (const void *)data,
						   i ? sizeof(idx) : sizeof(data)));
	}
	struct webnn_tensor_desc to = { .readable = true };
	webnn_model_output_desc(model, 0, &to.desc);
	OK(ctx, webnn_context_create_tensor(ctx, &to, &out.tensor));
	OK(ctx, webnn_context_dispatch(ctx, webnn_model_graph(model), in, 2, &out, 1));
	float y[2];
	OK(ctx, webnn_context_read_tensor(ctx, out.tensor, y, sizeof(y)));
	ASSERT_MSG(y[0] == 2 && y[1] == 1, "y = [%g, %g], expected [2, 1]", y[0], y[1]);
	for (size_t i = 0; i < 2; i++)
		webnn_tensor_destroy(in[i].tensor);
	webnn_tensor_destroy(out.tensor);
	webnn_model_destroy(model);
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

/* GroupNormalization (opset 18+, not in libonnx-testdata 1.12) against a C computation. */
TEST(onnx_group_normalization)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-groupnorm");
	struct webnn_context *ctx = e.ctx;
	const char *dir = e.dir;
	static const int64_t x3[3] = { 1, 4, 3 }, c4[1] = { 4 };
	static const float scale[4] = { 1, 2, 3, 4 }, bias[4] = { 0, 1, 0, 1 };
	struct onnx_writer wr = { 0 };
	model_begin(&wr);
	onnx_writer_opset(&wr, "", 18);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 3, x3);
	onnx_writer_initializer(&wr, "s", ONNX_FLOAT, 1, c4, scale);
	onnx_writer_initializer(&wr, "b", ONNX_FLOAT, 1, c4, bias);
	Onnx__NodeProto *n = onnx_writer_node(&wr, "gn", "GroupNormalization", NULL, "x,s,b", "y");
	untyped(onnx_writer_attr_int(&wr, n, "num_groups", 2));
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 3, x3);
	model_write(&wr, dir);
	struct webnn_model *model = NULL;
	char err[512] = "";
	ASSERT_MSG(mk_load(ctx, dir, NULL, &model, err, sizeof(err)) == WEBNN_STATUS_OK, "%s", err);
	float x[12], want[12], y[12];
	for (int i = 0; i < 12; i++)
		x[i] = (float)((i * 7) % 5) - 1.5f;
	for (int g = 0; g < 2; g++) {
		double mean = 0, var = 0;
		for (int i = 0; i < 6; i++)
			mean += x[g * 6 + i];
		mean /= 6;
		for (int i = 0; i < 6; i++)
			var += (x[g * 6 + i] - mean) * (x[g * 6 + i] - mean);
		var /= 6;
		for (int i = 0; i < 6; i++) {
			int c = (g * 6 + i) / 3;
			want[g * 6 + i] = (float)((x[g * 6 + i] - mean) / sqrt(var + 1e-5) * scale[c] +
						  bias[c]);
		}
	}
	struct webnn_tensor_desc ti = { .writable = true }, to = { .readable = true };
	webnn_model_input_desc(model, 0, &ti.desc);
	webnn_model_output_desc(model, 0, &to.desc);
	struct webnn_named_tensor in = { "x", NULL }, out = { "y", NULL };
	OK(ctx, webnn_context_create_tensor(ctx, &ti, &in.tensor));
	OK(ctx, webnn_context_create_tensor(ctx, &to, &out.tensor));
	OK(ctx, webnn_context_write_tensor(ctx, in.tensor, x, sizeof(x)));
	OK(ctx, webnn_context_dispatch(ctx, webnn_model_graph(model), &in, 1, &out, 1));
	OK(ctx, webnn_context_read_tensor(ctx, out.tensor, y, sizeof(y)));
	ct_assert_floats("GroupNormalization", y, want, 12, 1e-4f);
	webnn_tensor_destroy(in.tensor);
	webnn_tensor_destroy(out.tensor);
	webnn_model_destroy(model);
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

/* Runs model once: its one input from in (in_bytes), each output read into outs[i] (the
 * output's whole size, checked against out_bytes[i]). */
static void mk_run(struct webnn_context *ctx, struct webnn_model *model, const void *in,
		   size_t in_bytes, void *const *outs, const size_t *out_bytes, size_t n_out)
{
	struct webnn_tensor_desc ti = { .writable = true };
	webnn_model_input_desc(model, 0, &ti.desc);
	struct webnn_named_tensor input = { webnn_model_input_name(model, 0), NULL }, output[4];
	ASSERT(n_out <= 4 && n_out == webnn_model_output_count(model));
	OK(ctx, webnn_context_create_tensor(ctx, &ti, &input.tensor));
	OK(ctx, webnn_context_write_tensor(ctx, input.tensor, in, in_bytes));
	for (size_t i = 0; i < n_out; i++) {
		struct webnn_tensor_desc to = { .readable = true };
		webnn_model_output_desc(model, i, &to.desc);
		size_t bytes = webnn_data_type_size(to.desc.data_type);
		for (uint32_t k = 0; k < to.desc.rank; k++)
			bytes *= to.desc.shape[k];
		ASSERT_MSG(bytes == out_bytes[i], "output %zu has %zu bytes, expected %zu", i, bytes,
			   out_bytes[i]);
		output[i].name = webnn_model_output_name(model, i);
		OK(ctx, webnn_context_create_tensor(ctx, &to, &output[i].tensor));
	}
	OK(ctx, webnn_context_dispatch(ctx, webnn_model_graph(model), &input, 1, output, n_out));
	for (size_t i = 0; i < n_out; i++) {
		OK(ctx, webnn_context_read_tensor(ctx, output[i].tensor, outs[i], out_bytes[i]));
		webnn_tensor_destroy(output[i].tensor);
	}
	webnn_tensor_destroy(input.tensor);
}

/* ---- Resize beyond WebNN's resample2d: interpolation matrices and gathers */

/* ONNX linear resize of one axis, written out: the sample at p weighs input j by
 * max(0, 1 - |j - p| s) (s < 1 only for an antialiasing downscale), inputs past the ends repeat
 * the edge, and the weights are normalized. */
static void rz_axis_ref(const float *x, int n, float *y, int m, double scale, bool antialias,
			bool align_corners)
{
	double s = antialias && scale < 1 ? scale : 1;
	for (int o = 0; o < m; o++) {
		double p = align_corners ? (m == 1 ? 0 : o * (n - 1.0) / (scale * n - 1.0))
					 : (o + 0.5) / scale - 0.5;
		double acc = 0, sum = 0;
		for (int j = (int)floor(p - 1 / s) - 1; j <= (int)ceil(p + 1 / s) + 1; j++) {
			double w = fmax(0, 1 - fabs(j - p) * s);
			int k = j < 0 ? 0 : j >= n ? n - 1 : j;
			acc += w * x[k];
			sum += w;
		}
		y[o] = (float)(acc / sum);
	}
}

/* Writes and runs a one-Resize model (opset 18) of x [1, 1, H, W] and compares it with want. */
static void rz_case(struct webnn_context *ctx, const char *dir, const char *what, int h, int w,
		    const float *scales, const int64_t *sizes, const int64_t *axes, size_t n_axes,
		    const char *policy, bool antialias, const char *ctm, const float *x,
		    const float *want, int oh, int ow)
{
	struct onnx_writer wr = { 0 };
	model_begin(&wr);
	onnx_writer_opset(&wr, "", 18);
	int64_t xd[4] = { 1, 1, h, w }, yd[4] = { 1, 1, oh, ow }, cd[1] = { (int64_t)n_axes };
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 4, xd);
	Onnx__NodeProto *n = onnx_writer_node(&wr, "rz", "Resize", NULL,
					      scales ? "x,,scales" : "x,,,sizes", "y");
	if (scales)
		onnx_writer_initializer(&wr, "scales", ONNX_FLOAT, 1, cd, scales);
	else
		onnx_writer_initializer(&wr, "sizes", ONNX_INT64, 1, cd, sizes);
	untyped(onnx_writer_attr_string(&wr, n, "mode", "linear"));
	if (ctm)
		untyped(onnx_writer_attr_string(&wr, n, "coordinate_transformation_mode", ctm));
	if (axes)
		untyped(onnx_writer_attr_ints(&wr, n, "axes", axes, n_axes));
	if (policy)
		untyped(onnx_writer_attr_string(&wr, n, "keep_aspect_ratio_policy", policy));
	if (antialias)
		untyped(onnx_writer_attr_int(&wr, n, "antialias", 1));
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 4, yd);
	model_write(&wr, dir);
	struct webnn_model *model = NULL;
	char err[512] = "";
	ASSERT_MSG(mk_load(ctx, dir, NULL, &model, err, sizeof(err)) == WEBNN_STATUS_OK, "%s: %s",
		   what, err);
	struct webnn_operand_desc od;
	webnn_model_output_desc(model, 0, &od);
	ASSERT_MSG(od.rank == 4 && od.shape[2] == (uint32_t)oh && od.shape[3] == (uint32_t)ow,
		   "%s: output [%u, %u], expected [%d, %d]", what, od.shape[2], od.shape[3], oh, ow);
	float *y = calloc((size_t)oh * ow, sizeof(float));
	ASSERT(y);
	size_t yb = (size_t)oh * ow * sizeof(float);
	mk_run(ctx, model, x, (size_t)h * w * sizeof(float), (void *const[]){ y }, &yb, 1);
	ct_assert_floats(what, y, want, (size_t)oh * ow, 1e-5f);
	free(y);
	webnn_model_destroy(model);
	onnx_writer_free(&wr);
}

/* Separable reference of a [H, W] linear resize. */
static void rz_ref(const float *x, int h, int w, float *y, int oh, int ow, double sh, double sw,
		   bool antialias, bool align_corners)
{
	float col[64], tmp[64 * 64], out[64];
	for (int r = 0; r < h; r++)
		rz_axis_ref(x + r * w, w, tmp + r * ow, ow, sw, antialias, align_corners);
	for (int c = 0; c < ow; c++) {
		for (int r = 0; r < h; r++)
			col[r] = tmp[r * ow + c];
		rz_axis_ref(col, h, out, oh, sh, antialias, align_corners);
		for (int r = 0; r < oh; r++)
			y[r * ow + c] = out[r];
	}
}

/* What resample2d cannot take: a scale giving a fractional size (5 x 1.5 samples at 1.5, not at
 * 7/5), an antialiasing downscale, axes with keep_aspect_ratio_policy, align_corners. */
TEST(onnx_resize_compositions)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-resize");
	float x[40], want[64 * 64];
	for (int i = 0; i < 40; i++)
		x[i] = (float)((i * 13) % 17) * 0.5f - 2;
	/* [5, 8] by 1.5 x 1.5: [7, 12], sampled at the scale */
	static const float s15[4] = { 1, 1, 1.5f, 1.5f };
	rz_ref(x, 5, 8, want, 7, 12, 1.5, 1.5, false, false);
	rz_case(e.ctx, e.dir, "scales 1.5 of [5, 8]", 5, 8, s15, NULL, NULL, 4, NULL, false, NULL,
		x, want, 7, 12);
	/* antialias: [5, 8] down to [2, 3] (scales 0.4 x 0.375) */
	static const float sdown[4] = { 1, 1, 0.4f, 0.375f };
	rz_ref(x, 5, 8, want, 2, 3, 0.4f, 0.375f, true, false);
	rz_case(e.ctx, e.dir, "antialias downscale", 5, 8, sdown, NULL, NULL, 4, NULL, true, NULL, x,
		want, 2, 3);
	/* sizes [4, 4] for axes (2, 3) not larger than asked: one scale, min(4/5, 4/8) = 0.5 */
	static const int64_t sz[2] = { 4, 4 }, ax[2] = { 2, 3 };
	rz_ref(x, 5, 8, want, 3, 4, 0.5, 0.5, false, false);
	rz_case(e.ctx, e.dir, "axes + not_larger", 5, 8, NULL, sz, ax, 2, "not_larger", false, NULL,
		x, want, 3, 4);
	/* align_corners on [5, 8] -> [9, 3] (sizes) */
	static const int64_t sz4[4] = { 1, 1, 9, 3 };
	rz_ref(x, 5, 8, want, 9, 3, 9.0 / 5, 3.0 / 8, false, true);
	rz_case(e.ctx, e.dir, "align_corners", 5, 8, NULL, sz4, NULL, 4, NULL, false,
		"align_corners", x, want, 9, 3);
	onnx_env_down(&e);
}

/* Pad's "wrap" (opset 19) is slices of the input and whole copies of it, concatenated: pads
 * shorter and longer than the axis, and a negative one that crops. */
TEST(onnx_pad_wrap)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-pad-wrap");
	static const int64_t xd[2] = { 2, 3 }, pd[1] = { 4 }, yd[2] = { 3, 9 };
	/* axis 0: 1 before, 0 after; axis 1: 4 before (a copy and one more), 2 after */
	static const int64_t pads[4] = { 1, 4, 0, 2 };
	struct onnx_writer wr = { 0 };
	model_begin(&wr);
	onnx_writer_opset(&wr, "", 19);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, xd);
	onnx_writer_initializer(&wr, "pads", ONNX_INT64, 1, pd, pads);
	Onnx__NodeProto *n = onnx_writer_node(&wr, "p", "Pad", NULL, "x,pads", "y");
	untyped(onnx_writer_attr_string(&wr, n, "mode", "wrap"));
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, yd);
	model_write(&wr, e.dir);
	struct webnn_model *model = NULL;
	char err[512] = "";
	ASSERT_MSG(mk_load(e.ctx, e.dir, NULL, &model, err, sizeof(err)) == WEBNN_STATUS_OK, "%s",
		   err);
	float x[6] = { 1, 2, 3, 4, 5, 6 }, y[27], want[27];
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 9; c++) /* source (r - 1, c - 4), wrapped */
			want[r * 9 + c] = x[((r - 1 + 2) % 2) * 3 + ((c - 4) % 3 + 3) % 3];
	mk_run(e.ctx, model, x, sizeof(x), (void *const[]){ y }, (const size_t[]){ sizeof(y) }, 1);
	ct_assert_floats("wrap", y, want, 27, 0);
	webnn_model_destroy(model);
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

/* TopK as argMax steps: equal values in index order, and -inf entries (the value taken entries
 * are masked with) returned once each, in index order too. */
TEST(onnx_topk_composed)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-topk");
	static const int64_t xd[2] = { 1, 6 }, kd[1] = { 1 }, k6[1] = { 6 };
	struct onnx_writer wr = { 0 };
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, xd);
	onnx_writer_initializer(&wr, "k", ONNX_INT64, 1, kd, k6);
	onnx_writer_node(&wr, "t", "TopK", NULL, "x,k", "values,indices");
	onnx_writer_output(&wr, "values", ONNX_FLOAT, 2, xd);
	onnx_writer_output(&wr, "indices", ONNX_INT64, 2, xd);
	model_write(&wr, e.dir);
	struct webnn_model *model = NULL;
	char err[512] = "";
	ASSERT_MSG(mk_load(e.ctx, e.dir, NULL, &model, err, sizeof(err)) == WEBNN_STATUS_OK, "%s",
		   err);
	float x[6] = { 3, -INFINITY, 3, 7, -INFINITY, 1 }, vals[6];
	int64_t idx[6];
	struct webnn_operand_desc id;
	webnn_model_output_desc(model, 1, &id);
	ASSERT_EQ(id.data_type, WEBNN_INT64);
	mk_run(e.ctx, model, x, sizeof(x), (void *const[]){ vals, idx },
	       (const size_t[]){ sizeof(vals), sizeof(idx) }, 2);
	static const float wv[6] = { 7, 3, 3, 1, -INFINITY, -INFINITY };
	static const int64_t wi[6] = { 3, 0, 2, 5, 1, 4 };
	for (int i = 0; i < 6; i++) {
		ASSERT_MSG(vals[i] == wv[i], "value %d is %g, expected %g", i, vals[i], wv[i]);
		ASSERT_MSG(idx[i] == wi[i], "index %d is %lld, expected %lld", i, (long long)idx[i],
			   (long long)wi[i]);
	}
	webnn_model_destroy(model);
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

/* ---------------------------------------------------------------- free dimensions, inspection */

/* x and m, both [N, ?, 3] (? has neither a size nor a name), added. */
static void free_dims_model(struct onnx_writer *w)
{
	static const int64_t d[3] = { 0, 0, 3 };
	static const char *const names[3] = { "N", "", NULL };
	model_begin(w);
	onnx_writer_dim_params(w, onnx_writer_input(w, "x", ONNX_FLOAT, 3, d), names);
	onnx_writer_dim_params(w, onnx_writer_input(w, "m", ONNX_FLOAT, 3, d), names);
	onnx_writer_node(w, "a", "Add", NULL, "x,m", "y");
	onnx_writer_output(w, "y", ONNX_FLOAT, 3, d);
}

static enum webnn_status load_with_dims(struct webnn_context *ctx, const char *dir,
					const struct webnn_dim_binding *b, size_t n,
					struct webnn_model **model, char *err, size_t len)
{
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	o.dims = b;
	o.n_dims = n;
	return mk_load(ctx, dir, &o, model, err, len);
}

/* Every unbound free dimension is listed in one error; unnamed ones bind by input:axis, named
 * ones by name or position; a binding that names none fails listing the model's. */
TEST(onnx_free_dimensions_by_position)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-free-dims");
	struct onnx_writer wr = { 0 };
	free_dims_model(&wr);
	model_write(&wr, e.dir);
	EXPECT_LOAD_ERROR(e.ctx, e.dir, NULL, WEBNN_STATUS_TYPE_ERROR,
			  "onnx: 3 free dimensions are not bound: \"N\" (x:0, m:0), x:1 (unnamed), "
			  "m:1 (unnamed); bind each by name or as input:axis (--dim N=<size> "
			  "--dim x:1=<size> --dim m:1=<size>)");
	struct webnn_model *model = NULL;
	char err[1024] = "";
	const struct webnn_dim_binding ok[3] = { { "N", 2 }, { "x:1", 4 }, { "m:1", 4 } };
	ASSERT_MSG(load_with_dims(e.ctx, e.dir, ok, 3, &model, err, sizeof(err)) ==
			   WEBNN_STATUS_OK, "%s", err);
	struct webnn_operand_desc desc;
	webnn_model_input_desc(model, 1, &desc);
	ASSERT_EQ(desc.rank, 3);
	ASSERT_EQ(desc.shape[0], 2);
	ASSERT_EQ(desc.shape[1], 4);
	ASSERT_EQ(desc.shape[2], 3);
	webnn_model_output_desc(model, 0, &desc);
	ASSERT_EQ(desc.shape[0], 2);
	ASSERT_EQ(desc.shape[1], 4);
	webnn_model_destroy(model);
	/* a named dimension bound by position */
	const struct webnn_dim_binding pos[4] = { { "x:0", 5 }, { "m:0", 5 }, { "x:1", 1 },
						  { "m:1", 1 } };
	ASSERT_MSG(load_with_dims(e.ctx, e.dir, pos, 4, &model, err, sizeof(err)) ==
			   WEBNN_STATUS_OK, "%s", err);
	webnn_model_input_desc(model, 0, &desc);
	ASSERT_EQ(desc.shape[0], 5);
	webnn_model_destroy(model);
	/* bindings that name nothing: an unknown name, a fixed axis, an axis past the rank */
	static const char *const wrong[3] = { "M", "x:2", "x:7" };
	for (int i = 0; i < 3; i++) {
		struct webnn_dim_binding b[4] = { { "N", 2 }, { "x:1", 4 }, { "m:1", 4 },
						  { wrong[i], 1 } };
		ASSERT_EQ(load_with_dims(e.ctx, e.dir, b, 4, &model, err, sizeof(err)),
			  WEBNN_STATUS_TYPE_ERROR);
		char want[256];
		snprintf(want, sizeof(want), "onnx: dimension binding \"%s\" names no free "
			 "dimension of the model; its free dimensions: \"N\" (x:0, m:0), x:1 "
			 "(unnamed), m:1 (unnamed)", wrong[i]);
		ASSERT_STREQ(err, want);
	}
	/* all of them at once */
	const struct webnn_dim_binding two[5] = { { "N", 2 }, { "M", 1 }, { "x:1", 4 },
						  { "m:1", 4 }, { "x:9", 1 } };
	ASSERT_EQ(load_with_dims(e.ctx, e.dir, two, 5, &model, err, sizeof(err)),
		  WEBNN_STATUS_TYPE_ERROR);
	ASSERT_STREQ(err, "onnx: dimension bindings \"M\", \"x:9\" name no free dimension of the "
			  "model; its free dimensions: \"N\" (x:0, m:0), x:1 (unnamed), m:1 "
			  "(unnamed)");
	/* an input whose name has a colon (TensorFlow's "in:0"): the axis follows the last one */
	static const int64_t d2[2] = { 0, 3 };
	static const char *const n2[2] = { "", NULL };
	model_begin(&wr);
	onnx_writer_dim_params(&wr, onnx_writer_input(&wr, "in:0", ONNX_FLOAT, 2, d2), n2);
	onnx_writer_node(&wr, "r", "Relu", NULL, "in:0", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, d2);
	model_write(&wr, e.dir);
	const struct webnn_dim_binding colon = { "in:0:0", 6 };
	ASSERT_MSG(load_with_dims(e.ctx, e.dir, &colon, 1, &model, err, sizeof(err)) ==
			   WEBNN_STATUS_OK, "%s", err);
	webnn_model_input_desc(model, 0, &desc);
	ASSERT_EQ(desc.shape[0], 6);
	webnn_model_destroy(model);
	/* no free dimension at all */
	const struct webnn_dim_binding none = { "B", 1 };
	model_around(&wr, "r", "Relu", NULL);
	model_write(&wr, e.dir);
	ASSERT_EQ(load_with_dims(e.ctx, e.dir, &none, 1, &model, err, sizeof(err)),
		  WEBNN_STATUS_TYPE_ERROR);
	ASSERT_STREQ(err, "onnx: dimension binding \"B\" names no free dimension of the model; "
			  "it has none");
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

static const float w4[4] = { 1, 2, 3, 4 };
static const int64_t d4[1] = { 4 };

/* x [2,3] through NonZero (inexpressible) then Relu (only depends on it), an unknown operator, and
 * an Add whose shapes do not broadcast: three outputs, three reasons. */
static void failing_model(struct onnx_writer *w)
{
	model_begin(w);
	onnx_writer_input(w, "x", ONNX_FLOAT, 2, d23);
	onnx_writer_initializer(w, "w", ONNX_FLOAT, 1, d4, w4);
	onnx_writer_node(w, "t", "NonZero", NULL, "x", "t_out");
	onnx_writer_node(w, "r", "Relu", NULL, "t_out", "y");
	onnx_writer_node(w, "u", "Foo", NULL, "x", "y2");
	onnx_writer_node(w, "a", "Add", NULL, "x,w", "y3");
	onnx_writer_output(w, "y", ONNX_FLOAT, 2, d23);
	onnx_writer_output(w, "y2", ONNX_FLOAT, 2, d23);
	onnx_writer_output(w, "y3", ONNX_FLOAT, 2, d23);
}

/* A load that fails names every failing node, once each, and never a node that only fails
 * because its input did; a builder's message is not prefixed with its operator twice. */
TEST(onnx_every_failure_listed)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-failures");
	struct onnx_writer wr = { 0 };
	failing_model(&wr);
	model_write(&wr, e.dir);
	struct webnn_model *model = NULL;
	char err[2048] = "";
	ASSERT_EQ(mk_load(e.ctx, e.dir, NULL, &model, err, sizeof(err)),
		  WEBNN_STATUS_NOT_SUPPORTED);
	ASSERT(model == NULL);
	const char *lines[3] = { "onnx: node \"t\" (NonZero): WebNN cannot express NonZero: its "
				 "output shape depends on the input values",
				 "onnx: node \"u\" (Foo): unknown operator \"Foo\"",
				 "onnx: node \"a\" (Add): add: " };
	/* one message: "onnx: 3 nodes cannot be loaded: " and the reasons, "; " between */
	const char *p = err;
	ASSERT_MSG(strncmp(p, "onnx: 3 nodes cannot be loaded: ", 32) == 0, "%s", err);
	p += 32;
	for (int i = 0; i < 3; i++) {
		ASSERT_MSG(strncmp(p, lines[i] + 6, strlen(lines[i]) - 6) == 0, "reason %d of:\n%s", i,
			   err);
		p = strstr(p, i < 2 ? "; node \"" : "\n");
		ASSERT_MSG(i == 2 ? !p : p != NULL, "%s", err);
		p = p ? p + 2 : p;
	}
	ASSERT_MSG(!strstr(err, "add: add:") && !strstr(err, "(Relu)"), "%s", err);
	/* the same reasons through webnn_model_inspect, with what the file declares */
	char path[512];
	snprintf(path, sizeof(path), "%s/model.onnx", e.dir);
	struct webnn_model_info *info = NULL;
	ASSERT_MSG(webnn_model_inspect(e.ctx, path, NULL, &info, err, sizeof(err)) ==
			   WEBNN_STATUS_OK, "%s", err);
	ASSERT_STREQ(info->format, "onnx");
	ASSERT_EQ(info->n_problems, 3);
	for (int i = 0; i < 3; i++)
		ASSERT_MSG(strncmp(info->problems[i], lines[i], strlen(lines[i])) == 0, "%s",
			   info->problems[i]);
	ASSERT_EQ(info->n_inputs, 1);
	ASSERT_STREQ(info->inputs[0].name, "x");
	ASSERT(info->inputs[0].has_data_type && info->inputs[0].data_type == WEBNN_FLOAT32);
	ASSERT_EQ(info->inputs[0].rank, 2);
	ASSERT_EQ(info->inputs[0].shape[1], 3);
	ASSERT(info->inputs[0].dim_names[0] == NULL);
	ASSERT_EQ(info->n_outputs, 3);
	ASSERT_STREQ(info->outputs[2].name, "y3");
	ASSERT_EQ(info->n_free_dims, 0);
	ASSERT_EQ(info->n_nodes, 4);
	ASSERT_EQ(info->n_op_types, 4);
	static const char *const types[4] = { "Add", "Foo", "NonZero", "Relu" };
	for (int i = 0; i < 4; i++) {
		ASSERT_STREQ(info->op_types[i].op_type, types[i]);
		ASSERT_EQ(info->op_types[i].count, 1);
	}
	ASSERT_EQ(info->constant_bytes, 16);
	webnn_model_info_destroy(info);
	/* without a context: the declarations only */
	ASSERT_MSG(webnn_model_inspect(NULL, path, NULL, &info, err, sizeof(err)) ==
			   WEBNN_STATUS_OK, "%s", err);
	ASSERT_EQ(info->n_problems, 0);
	ASSERT_EQ(info->n_op_types, 4);
	webnn_model_info_destroy(info);
	/* free dimensions as declared and listed; the trial load binds them as 1 */
	free_dims_model(&wr);
	model_write(&wr, e.dir);
	ASSERT_MSG(webnn_model_inspect(e.ctx, path, NULL, &info, err, sizeof(err)) ==
			   WEBNN_STATUS_OK, "%s", err);
	ASSERT_EQ(info->n_problems, 0);
	ASSERT_EQ(info->n_free_dims, 4);
	ASSERT_STREQ(info->free_dims[0].name, "N");
	ASSERT_STREQ(info->free_dims[0].input, "x");
	ASSERT_EQ(info->free_dims[0].axis, 0);
	ASSERT_STREQ(info->free_dims[3].name, "");
	ASSERT_STREQ(info->free_dims[3].input, "m");
	ASSERT_EQ(info->free_dims[3].axis, 1);
	ASSERT_STREQ(info->inputs[1].dim_names[0], "N");
	ASSERT_STREQ(info->inputs[1].dim_names[1], "");
	webnn_model_info_destroy(info);
	/* operators and constants inside If branches count */
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, d23);
	Onnx__NodeProto *iff = onnx_writer_node(&wr, "if", "If", NULL, "x", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, d23);
	for (int i = 0; i < 2; i++) {
		/* unnamed branches of an unnamed Relu; the else branch has an initializer */
		onnx_writer_subgraph_begin(&wr, NULL);
		onnx_writer_node(&wr, NULL, "Relu", NULL, "x", "b")->name = NULL;
		if (i)
			onnx_writer_initializer(&wr, "w", ONNX_FLOAT, 1, d4, w4);
		untyped(onnx_writer_attr_graph(&wr, iff, i ? "else_branch" : "then_branch",
					       onnx_writer_subgraph_end(&wr)));
	}
	model_write(&wr, e.dir);
	ASSERT_MSG(webnn_model_inspect(NULL, path, NULL, &info, err, sizeof(err)) ==
			   WEBNN_STATUS_OK, "%s", err);
	ASSERT_EQ(info->n_nodes, 3);
	ASSERT_EQ(info->n_op_types, 2);
	ASSERT_STREQ(info->op_types[0].op_type, "Relu");
	ASSERT_EQ(info->op_types[0].count, 2);
	ASSERT_STREQ(info->op_types[1].op_type, "If");
	ASSERT_EQ(info->constant_bytes, 16);
	webnn_model_info_destroy(info);
	/* a file that is not there */
	snprintf(path, sizeof(path), "%s/absent.onnx", e.dir);
	char want[600];
	snprintf(want, sizeof(want), "cannot open %s: No such file or directory", path);
	ASSERT_EQ(webnn_model_load(e.ctx, path, NULL, &model, err, sizeof(err)),
		  WEBNN_STATUS_TYPE_ERROR);
	ASSERT_STREQ(err, want);
	ASSERT_EQ(webnn_model_inspect(NULL, path, NULL, &info, err, sizeof(err)),
		  WEBNN_STATUS_TYPE_ERROR);
	ASSERT_STREQ(err, want);
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

/* options.binds: a frozen input is a constant, no longer an input of the graph; a binding that
 * names no input lists the model's inputs. */
TEST(onnx_bound_input)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-bind");
	struct webnn_context *ctx = e.ctx;
	const char *dir = e.dir;
	static const int64_t d1[1] = { 1 };
	struct onnx_writer wr = { 0 };
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, d23);
	onnx_writer_input(&wr, "k", ONNX_FLOAT, 1, d1);
	onnx_writer_node(&wr, "mul", "Mul", NULL, "x,k", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, d23);
	model_write(&wr, dir);
	static const float k = 2.5f;
	struct webnn_input_binding bind = { "k", { WEBNN_FLOAT32, 1, { 1 } }, &k, sizeof(k) };
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	o.binds = &bind;
	o.n_binds = 1;
	struct webnn_model *model = NULL;
	char err[512] = "";
	ASSERT_MSG(mk_load(ctx, dir, &o, &model, err, sizeof(err)) == WEBNN_STATUS_OK, "%s", err);
	ASSERT_EQ(webnn_model_input_count(model), 1);
	ASSERT_STREQ(webnn_model_input_name(model, 0), "x");
	const float x[6] = { 1, 2, 3, 4, 5, 6 };
	float y[6], want[6];
	for (int i = 0; i < 6; i++)
		want[i] = x[i] * k;
	struct webnn_tensor_desc ti = { .writable = true }, to = { .readable = true };
	webnn_model_input_desc(model, 0, &ti.desc);
	webnn_model_output_desc(model, 0, &to.desc);
	struct webnn_named_tensor in = { "x", NULL }, out = { "y", NULL };
	OK(ctx, webnn_context_create_tensor(ctx, &ti, &in.tensor));
	OK(ctx, webnn_context_create_tensor(ctx, &to, &out.tensor));
	OK(ctx, webnn_context_write_tensor(ctx, in.tensor, x, sizeof(x)));
	OK(ctx, webnn_context_dispatch(ctx, webnn_model_graph(model), &in, 1, &out, 1));
	OK(ctx, webnn_context_read_tensor(ctx, out.tensor, y, sizeof(y)));
	ct_assert_floats("x * bound k", y, want, 6, 0);
	webnn_tensor_destroy(in.tensor);
	webnn_tensor_destroy(out.tensor);
	webnn_model_destroy(model);
	/* errors: a name that is no input, a wrong type, a wrong size */
	bind.name = "kk";
	EXPECT_LOAD_ERROR(ctx, dir, &o, WEBNN_STATUS_TYPE_ERROR,
			  "onnx: bound input \"kk\" is not an input of the model (its inputs: "
			  "\"x\", \"k\")");
	bind.name = "k";
	bind.desc.data_type = WEBNN_INT32;
	EXPECT_LOAD_ERROR(ctx, dir, &o, WEBNN_STATUS_TYPE_ERROR,
			  "onnx: bound input \"k\": the value is int32, the model declares float");
	bind.desc.data_type = WEBNN_FLOAT32;
	bind.size = 8;
	EXPECT_LOAD_ERROR(ctx, dir, &o, WEBNN_STATUS_TYPE_ERROR,
			  "onnx: bound input \"k\": 8 bytes of data, its float32 shape takes 4");
	/* a caller compiled before binds (the first version's struct_size) gets none */
	o.struct_size = WEBNN_IMPORT_OPTIONS_SIZE_V1;
	ASSERT_MSG(mk_load(ctx, dir, &o, &model, err, sizeof(err)) == WEBNN_STATUS_OK, "%s", err);
	ASSERT_EQ(webnn_model_input_count(model), 2);
	webnn_model_destroy(model);
	o.struct_size = 8;
	EXPECT_LOAD_ERROR(ctx, dir, &o, WEBNN_STATUS_TYPE_ERROR, "import: options.struct_size is 8");
	onnx_writer_free(&wr);
	onnx_env_down(&e);
}

/* LpPool of p other than 2 ((sum |x|^p)^(1/p) over zero-padded windows) and MaxPool's Indices
 * column-major (storage_order 1) with a dilation, against direct computations. */
TEST(onnx_pool_compositions)
{
	struct onnx_env e;
	onnx_env_up(&e, "onnx-pools");
	enum { H = 5, W = 6 };
	static const int64_t xd[4] = { 1, 2, H, W };
	float x[2 * H * W];
	for (int i = 0; i < 2 * H * W; i++)
		x[i] = (float)((i * 7) % 13) - 6.0f + (float)i * 0.01f;
	/* LpPool p = 3, kernel 2x3, stride 1, pads 1 on every side: output [1, 2, 6, 6] */
	{
		static const int64_t k[2] = { 2, 3 }, pads[4] = { 1, 1, 1, 1 }, yd[4] = { 1, 2, 6, 6 };
		struct onnx_writer wr = { 0 };
		model_begin(&wr);
		onnx_writer_opset(&wr, "", 18);
		onnx_writer_input(&wr, "x", ONNX_FLOAT, 4, xd);
		Onnx__NodeProto *n = onnx_writer_node(&wr, "lp", "LpPool", NULL, "x", "y");
		untyped(onnx_writer_attr_ints(&wr, n, "kernel_shape", k, 2));
		untyped(onnx_writer_attr_ints(&wr, n, "pads", pads, 4));
		untyped(onnx_writer_attr_int(&wr, n, "p", 3));
		onnx_writer_output(&wr, "y", ONNX_FLOAT, 4, yd);
		model_write(&wr, e.dir);
		onnx_writer_free(&wr);
		float want[72], y[72];
		for (int c = 0; c < 2; c++)
			for (int oh = 0; oh < 6; oh++)
				for (int ow = 0; ow < 6; ow++) {
					double s = 0;
					for (int i = 0; i < 2; i++)
						for (int j = 0; j < 3; j++) {
							int h = oh - 1 + i, w = ow - 1 + j;
							if (h >= 0 && h < H && w >= 0 && w < W)
								s += pow(fabs(x[(c * H + h) * W + w]), 3);
						}
					want[(c * 6 + oh) * 6 + ow] = (float)cbrt(s);
				}
		struct webnn_model *model = NULL;
		char err[512] = "";
		ASSERT_MSG(mk_load(e.ctx, e.dir, NULL, &model, err, sizeof(err)) == WEBNN_STATUS_OK,
			   "%s", err);
		mk_run(e.ctx, model, x, sizeof(x), (void *const[]){ y }, (const size_t[]){ sizeof(y) },
		       1);
		for (int i = 0; i < 72; i++)
			ASSERT_MSG(fabsf(y[i] - want[i]) <= 1e-4f * fmaxf(1, fabsf(want[i])),
				   "LpPool p=3 [%d] = %g, expected %g", i, y[i], want[i]);
		webnn_model_destroy(model);
	}
	/* MaxPool 2x2, dilation 2, stride 1, storage_order 1: output [1, 2, 3, 4] and Indices */
	{
		static const int64_t k[2] = { 2, 2 }, dil[2] = { 2, 2 }, yd[4] = { 1, 2, 3, 4 };
		struct onnx_writer wr = { 0 };
		model_begin(&wr);
		onnx_writer_input(&wr, "x", ONNX_FLOAT, 4, xd);
		Onnx__NodeProto *n = onnx_writer_node(&wr, "mp", "MaxPool", NULL, "x", "y,i");
		untyped(onnx_writer_attr_ints(&wr, n, "kernel_shape", k, 2));
		untyped(onnx_writer_attr_ints(&wr, n, "dilations", dil, 2));
		untyped(onnx_writer_attr_int(&wr, n, "storage_order", 1));
		onnx_writer_output(&wr, "y", ONNX_FLOAT, 4, yd);
		onnx_writer_output(&wr, "i", ONNX_INT64, 4, yd);
		model_write(&wr, e.dir);
		onnx_writer_free(&wr);
		float want[24], y[24];
		int64_t wi[24], got[24];
		for (int c = 0; c < 2; c++)
			for (int oh = 0; oh < 3; oh++)
				for (int ow = 0; ow < 4; ow++) {
					float best = -INFINITY;
					int64_t at = -1;
					for (int i = 0; i < 2; i++)
						for (int j = 0; j < 2; j++) {
							int h = oh + 2 * i, w = ow + 2 * j;
							float v = x[(c * H + h) * W + w];
							if (v > best) {
								best = v;
								at = (int64_t)c * H * W + (int64_t)w * H + h;
							}
						}
					want[(c * 3 + oh) * 4 + ow] = best;
					wi[(c * 3 + oh) * 4 + ow] = at;
				}
		struct webnn_model *model = NULL;
		char err[512] = "";
		ASSERT_MSG(mk_load(e.ctx, e.dir, NULL, &model, err, sizeof(err)) == WEBNN_STATUS_OK,
			   "%s", err);
		mk_run(e.ctx, model, x, sizeof(x), (void *const[]){ y, got },
		       (const size_t[]){ sizeof(y), sizeof(got) }, 2);
		ct_assert_floats("MaxPool", y, want, 24, 0);
		for (int i = 0; i < 24; i++)
			ASSERT_MSG(got[i] == wi[i], "Indices[%d] = %lld, expected %lld", i,
				   (long long)got[i], (long long)wi[i]);
		webnn_model_destroy(model);
	}
	onnx_env_down(&e);
}

/* webnn-run on model files: --info, free dimensions from the --input file's shape or --dim by
 * position, the errors for a --dim naming nothing, a wrong --input name and a missing file,
 * every load failure on its own line, and --verbose. */
TEST(onnx_webnn_run_model_options)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	char dir[64], path[512], cmd[2048], out[16384];
	mk_tmpdir(dir, sizeof(dir));
	/* y = relu(x), x [N, ?] */
	static const int64_t dx[2] = { 0, 0 };
	static const char *const names[2] = { "N", "" };
	struct onnx_writer wr = { 0 };
	model_begin(&wr);
	onnx_writer_dim_params(&wr, onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, dx), names);
	onnx_writer_node(&wr, "r", "Relu", NULL, "x", "y");
	onnx_writer_dim_params(&wr, onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, dx), names);
	model_write(&wr, dir);
	static const float x[6] = { -1, 2, -3, 4, -5, 6 };
	snprintf(path, sizeof(path), "%s/x.pb", dir);
	write_pb(path, 2, d23, x, 6);
	const char *bin = test_build_dir();
#define RUN(args) (snprintf(cmd, sizeof(cmd), "%s/bin/webnn-run --socket %s %s 2>&1", bin,      \
			    d.socket_path, args),                                              \
		   run_cmd(cmd, out, sizeof(out)))
	char args[1024];
	snprintf(args, sizeof(args), "%s/model.onnx --info", dir);
	ASSERT_EQ(RUN(args), 0);
	ASSERT_CONTAINS(out, "onnx model, 0 bytes of constants\ninputs:\n  x float32[N,?]\n"
			     "outputs:\n  y float32[N,?]\n"
			     "free dimensions (bind with --dim NAME=N or --dim INPUT:AXIS=N):\n"
			     "  x:0 N\n  x:1 ?\noperators (1): 1 Relu\n"
			     "loads (unbound free dimensions tried as 1)\n");
	/* the free dimensions from the file's shape [2, 3] */
	snprintf(args, sizeof(args), "%s/model.onnx --input x=%s/x.pb --iterations 1", dir, dir);
	ASSERT_EQ(RUN(args), 0);
	ASSERT_CONTAINS(out, "output y float32[2,3]: min 0 max 6");
	/* --dim by position, the other from the file */
	snprintf(args, sizeof(args), "%s/model.onnx --dim x:1=3 --input x=%s/x.pb --iterations 1",
		 dir, dir);
	ASSERT_EQ(RUN(args), 0);
	ASSERT_CONTAINS(out, "output y float32[2,3]");
	/* bound otherwise than the file's shape */
	snprintf(args, sizeof(args), "%s/model.onnx --dim N=3 --input x=%s/x.pb", dir, dir);
	ASSERT_EQ(RUN(args), 1);
	ASSERT_CONTAINS(out, "/x.pb holds float32[2,3], the model takes float32[3,3]");
	/* nothing bound: both dimensions in one error */
	snprintf(args, sizeof(args), "%s/model.onnx", dir);
	ASSERT_EQ(RUN(args), 1);
	ASSERT_CONTAINS(out, "TypeError: onnx: 2 free dimensions are not bound: \"N\" (x:0), "
			     "x:1 (unnamed); bind each by name or as input:axis (--dim N=<size> "
			     "--dim x:1=<size>)");
	/* a --dim that names nothing */
	snprintf(args, sizeof(args), "%s/model.onnx --dim Q=1 --input x=%s/x.pb", dir, dir);
	ASSERT_EQ(RUN(args), 1);
	ASSERT_CONTAINS(out, "onnx: dimension binding \"Q\" names no free dimension of the "
			     "model; its free dimensions: \"N\" (x:0), x:1 (unnamed)");
	/* a --dim that is no binding */
	snprintf(args, sizeof(args), "%s/model.onnx --dim x:1", dir);
	ASSERT_EQ(RUN(args), 2);
	ASSERT_CONTAINS(out, "webnn-run: --dim x:1: expected NAME=N or INPUT:AXIS=N with N >= 1\n");
	/* a wrong --input name */
	snprintf(args, sizeof(args), "%s/model.onnx --input z=%s/x.pb", dir, dir);
	ASSERT_EQ(RUN(args), 1);
	ASSERT_CONTAINS(out, "webnn-run: --input z: the model has no input \"z\"; its inputs: x\n");
	/* a missing model file */
	snprintf(args, sizeof(args), "%s/absent.onnx", dir);
	ASSERT_EQ(RUN(args), 1);
	char want[256];
	snprintf(want, sizeof(want), "webnn-run: cannot open %s/absent.onnx: No such file or "
		 "directory\n", dir);
	ASSERT_STREQ(out, want);
	/* --verbose: operators and what webnnd made of the graph */
	snprintf(args, sizeof(args), "%s/model.onnx --input x=%s/x.pb --verbose --iterations 1",
		 dir, dir);
	ASSERT_EQ(RUN(args), 0);
	ASSERT_CONTAINS(out, "  operators (1): 1 Relu\n  constants: 0 bytes in the file\n"
			     "  WebNN operations: 1 relu\n  graph in webnnd: 1 operations, 1 kernels");
	ASSERT_CONTAINS(out, "WEBNN_CPU_PROFILE=1");
	/* every reason a model does not load: --info lists them, a run prints one per line */
	failing_model(&wr);
	model_write(&wr, dir);
	snprintf(args, sizeof(args), "%s/model.onnx --info", dir);
	ASSERT_EQ(RUN(args), 1);
	ASSERT_CONTAINS(out, "operators (4): 1 Add, 1 Foo, 1 NonZero, 1 Relu\n"
			     "does not load (3 reasons):\n"
			     "  onnx: node \"t\" (NonZero): WebNN cannot express NonZero");
	ASSERT_CONTAINS(out, "\n  onnx: node \"u\" (Foo): unknown operator \"Foo\"\n"
			     "  onnx: node \"a\" (Add): add: ");
	snprintf(args, sizeof(args), "%s/model.onnx", dir);
	ASSERT_EQ(RUN(args), 1);
	snprintf(want, sizeof(want), "webnn-run: %s/model.onnx: NotSupportedError: onnx: 3 nodes "
		 "cannot be loaded: node \"t\" (NonZero): ", dir);
	ASSERT_CONTAINS(out, want);
	/* --bind: typed by the declared input, float32 [1] here; errors for a wrong name, a value
	 * that is no number of the type, and a count that does not fill the shape */
	static const int64_t d1[1] = { 1 };
	model_begin(&wr);
	onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, d23);
	onnx_writer_input(&wr, "k", ONNX_FLOAT, 1, d1);
	onnx_writer_node(&wr, "mul", "Mul", NULL, "x,k", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, d23);
	model_write(&wr, dir);
	snprintf(args, sizeof(args), "%s/model.onnx --input x=%s/x.pb --bind k=2.5 --iterations 1",
		 dir, dir);
	ASSERT_EQ(RUN(args), 0);
	ASSERT_CONTAINS(out, "output y float32[2,3]: min -12.5 max 15");
	ASSERT_MSG(!strstr(out, "input k not given"), "%s", out);
	snprintf(args, sizeof(args), "%s/model.onnx --bind z=1", dir);
	ASSERT_EQ(RUN(args), 1);
	ASSERT_STREQ(out, "webnn-run: --bind z: the model has no input \"z\"; its inputs: x, k\n");
	snprintf(args, sizeof(args), "%s/model.onnx --info --bind z=1", dir);
	ASSERT_EQ(RUN(args), 1);
	ASSERT_STREQ(out, "webnn-run: --bind z: the model has no input \"z\"; its inputs: x, k\n");
	snprintf(args, sizeof(args), "%s/model.onnx --info --bind k=2", dir);
	ASSERT_EQ(RUN(args), 0);
	ASSERT_CONTAINS(out, "\nloads\n");
	snprintf(args, sizeof(args), "%s/model.onnx --bind k=x", dir);
	ASSERT_EQ(RUN(args), 1);
	ASSERT_STREQ(out, "webnn-run: --bind k: \"x\" is not a float32 value\n");
	snprintf(args, sizeof(args), "%s/model.onnx --bind k=1,2", dir);
	ASSERT_EQ(RUN(args), 1);
	ASSERT_STREQ(out, "webnn-run: --bind k: 2 values do not fill the input's shape:\n"
			  "  k float32[1]\n");
	/* an int64 scalar (a sample rate) */
	model_begin(&wr);
	onnx_writer_input(&wr, "sr", ONNX_INT64, 0, NULL);
	onnx_writer_input(&wr, "s2", ONNX_INT64, 0, NULL);
	onnx_writer_node(&wr, "add", "Add", NULL, "sr,s2", "y");
	onnx_writer_output(&wr, "y", ONNX_INT64, 0, NULL);
	model_write(&wr, dir);
	snprintf(args, sizeof(args), "%s/model.onnx --bind sr=16000 --iterations 1", dir);
	ASSERT_EQ(RUN(args), 0);
	ASSERT_CONTAINS(out, "output y int64[]: min 16000 max 16000");
	snprintf(args, sizeof(args), "%s/model.onnx --bind sr=1.5", dir);
	ASSERT_EQ(RUN(args), 1);
	ASSERT_STREQ(out, "webnn-run: --bind sr: \"1.5\" is not an int64 value\n");
	/* --check: an unnamed free dimension bound from the data set; every reason on one line */
	static const int64_t dq[2] = { 0, 3 };
	static const char *const nq[2] = { "", NULL };
	static const float yq[6] = { 0, 2, 0, 4, 0, 6 };
	model_begin(&wr);
	onnx_writer_dim_params(&wr, onnx_writer_input(&wr, "x", ONNX_FLOAT, 2, dq), nq);
	onnx_writer_node(&wr, "r", "Relu", NULL, "x", "y");
	onnx_writer_output(&wr, "y", ONNX_FLOAT, 2, d23);
	model_write(&wr, dir);
	snprintf(path, sizeof(path), "%s/test_data_set_0", dir);
	ASSERT(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/test_data_set_0/input_0.pb", dir);
	write_pb(path, 2, d23, x, 6);
	snprintf(path, sizeof(path), "%s/test_data_set_0/output_0.pb", dir);
	write_pb(path, 2, d23, yq, 6);
	snprintf(args, sizeof(args), "--check %s", dir);
	ASSERT_EQ(RUN(args), 0);
	ASSERT_CONTAINS(out, "1 passed, 0 failed, 0 skipped");
	failing_model(&wr);
	model_write(&wr, dir);
	ASSERT_EQ(RUN(args), 0);
	ASSERT_CONTAINS(out, "SKIP onnx: 3 nodes cannot be loaded: node \"t\" (NonZero): WebNN "
			     "cannot express NonZero: its output shape depends on the input values; "
			     "node \"u\" (Foo): unknown operator \"Foo\"; node \"a\" (Add): add: ");
	onnx_writer_free(&wr);
#undef RUN
	test_daemon_stop(&d);
}
