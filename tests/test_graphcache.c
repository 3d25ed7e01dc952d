/* The graph cache (webnn_context_save_graph/load_graph): round trips, per-user stores, damaged and stale entries, eviction, keys, writers racing readers. */
#include "tests/clienttest.h"
#include "tests/hostile.h"
#include "tests/onnx_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { GC_M = 2, GC_K = 64, GC_N = 48 };

struct gc_env {
	struct test_daemon d;
	char cache[512]; /* the daemon's cache directory (WEBNN_CACHE_DIR) */
	char top[64];
};

/* A reference daemon whose cache directory is fresh (extra: more webnnd arguments). */
static void gc_up(struct gc_env *e, const char *extra)
{
	ct_require_webnnd();
	snprintf(e->top, sizeof(e->top), "/tmp/wnn-gc-XXXXXX");
	ASSERT(mkdtemp(e->top));
	/* the service user the daemon drops to must reach the directory it creates below */
	ASSERT(chmod(e->top, 0755) == 0);
	snprintf(e->cache, sizeof(e->cache), "%s/cache", e->top);
	setenv("WEBNN_CACHE_DIR", e->cache, 1);
	const char *args[] = { "--backend", "reference", extra ? "--limit" : NULL, extra, NULL };
	test_daemon_start(&e->d, args);
	unsetenv("WEBNN_CACHE_DIR");
	ASSERT(chmod(e->d.dir, 0755) == 0);
}

static void gc_down(struct gc_env *e)
{
	test_daemon_stop(&e->d);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->top);
	ASSERT(system(cmd) == 0);
}

/* The entry file of key in the store of the uid this process runs as. */
static void gc_path(const struct gc_env *e, const char *key, char *out, size_t len)
{
	snprintf(out, len, "%s/graphs/%u/%s.wg", e->cache, (unsigned)getuid(), key);
}

/* y = relu(x @ W + b) with W, b derived from seed. */
static struct webnn_graph *gc_build(struct webnn_context *ctx, float seed)
{
	static float w[GC_K * GC_N], bias[GC_N];
	for (int i = 0; i < GC_K * GC_N; i++)
		w[i] = (float)((i * 7 + (int)seed) % 13) * 0.125f - 0.75f;
	for (int i = 0; i < GC_N; i++)
		bias[i] = seed * 0.01f * (float)i;
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	uint32_t xs[] = { GC_M, GC_K }, ws[] = { GC_K, GC_N }, bs[] = { GC_N };
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, xs);
	struct webnn_operand *wc = ct_const(ctx, b, WEBNN_FLOAT32, 2, ws, w);
	struct webnn_operand *bc = ct_const(ctx, b, WEBNN_FLOAT32, 1, bs, bias);
	struct webnn_operand *y = NULL;
	OK(ctx, webnn_builder_matmul(b, x, wc, &y));
	OK(ctx, webnn_builder_add(b, y, bc, &y));
	OK(ctx, webnn_builder_relu(b, y, &y));
	struct webnn_named_operand out = { "y", y };
	struct webnn_graph *g = NULL;
	OK(ctx, webnn_builder_build(b, &out, 1, &g));
	webnn_builder_destroy(b);
	return g;
}

/* Dispatches g on x = 0.01 * i and reads y into out (GC_M x GC_N floats). */
static void gc_run(struct webnn_context *ctx, struct webnn_graph *g, float *out)
{
	float x[GC_M * GC_K];
	for (int i = 0; i < GC_M * GC_K; i++)
		x[i] = 0.01f * (float)i;
	static const struct webnn_operand_desc xd = { WEBNN_FLOAT32, 2, { GC_M, GC_K } },
					       yd = { WEBNN_FLOAT32, 2, { GC_M, GC_N } };
	ct_dispatch_one(ctx, g, "x", &xd, x, "y", &yd, out);
}

/* Loads key in ctx expecting an entry; runs it into out. */
static void gc_load_run(struct webnn_context *ctx, const char *key, float *out)
{
	struct webnn_graph *g = NULL;
	OK(ctx, webnn_context_load_graph(ctx, key, &g));
	ASSERT_MSG(g != NULL, "no entry under '%s'", key);
	gc_run(ctx, g, out);
	webnn_graph_destroy(g);
}

static bool gc_absent(struct webnn_context *ctx, const char *key)
{
	struct webnn_graph *g = NULL;
	OK(ctx, webnn_context_load_graph(ctx, key, &g));
	webnn_graph_destroy(g);
	return g == NULL;
}

/* A graph saved and loaded by another connection (a new process would be the same: nothing
 * travels but the key) computes the same bytes, and has the same inputs and outputs; a key
 * never saved is no entry; saving again replaces. */
TEST(graphcache_save_load_roundtrip)
{
	struct gc_env e;
	gc_up(&e, NULL);
	struct webnn_context *a = ct_connect(&e.d, "graphcache saver");
	struct webnn_graph *g = gc_build(a, 3.0f);
	float want[GC_M * GC_N], got[GC_M * GC_N];
	gc_run(a, g, want);
	OK(a, webnn_context_save_graph(a, "roundtrip-1", g));
	webnn_graph_destroy(g);
	webnn_context_destroy(a);

	struct webnn_context *b = ct_connect(&e.d, "graphcache loader");
	ASSERT(gc_absent(b, "never-saved"));
	struct webnn_graph *l = NULL;
	OK(b, webnn_context_load_graph(b, "roundtrip-1", &l));
	ASSERT(l != NULL);
	ASSERT_EQ(webnn_graph_input_count(l), 1);
	ASSERT_EQ(webnn_graph_output_count(l), 1);
	struct webnn_operand_desc d;
	ASSERT_STREQ(webnn_graph_input_name(l, 0, &d), "x");
	ASSERT_EQ(d.rank, 2);
	ASSERT_EQ(d.shape[1], GC_K);
	ASSERT_STREQ(webnn_graph_output_name(l, 0, &d), "y");
	ASSERT_EQ(d.shape[1], GC_N);
	const char *name = NULL;
	uint32_t count = 0;
	ASSERT(webnn_graph_operation_type(l, 0, &name, &count));
	gc_run(b, l, got);
	ASSERT(memcmp(got, want, sizeof(got)) == 0);
	/* A loaded graph saves like a built one; a graph of another seed replaces the entry. */
	OK(b, webnn_context_save_graph(b, "roundtrip-2", l));
	webnn_graph_destroy(l);
	gc_load_run(b, "roundtrip-2", got);
	ASSERT(memcmp(got, want, sizeof(got)) == 0);
	struct webnn_graph *other = gc_build(b, 5.0f);
	float want5[GC_M * GC_N];
	gc_run(b, other, want5);
	OK(b, webnn_context_save_graph(b, "roundtrip-2", other));
	webnn_graph_destroy(other);
	gc_load_run(b, "roundtrip-2", got);
	ASSERT(memcmp(got, want5, sizeof(got)) == 0);
	ASSERT(memcmp(want5, want, sizeof(got)) != 0);
	webnn_context_destroy(b);
	gc_down(&e);
}

/* Another user's connection cannot load the entry (its worker opens only its own store), and
 * its own save under the same key does not touch the first user's entry. */
TEST(graphcache_other_uid_cannot_see)
{
	REQUIRE_ROOT("connecting as a second uid");
	struct gc_env e;
	gc_up(&e, NULL);
	struct webnn_context *a = ct_connect(&e.d, "graphcache owner");
	struct webnn_graph *g = gc_build(a, 2.0f);
	float want[GC_M * GC_N], got[GC_M * GC_N];
	gc_run(a, g, want);
	OK(a, webnn_context_save_graph(a, "private", g));
	webnn_graph_destroy(g);

	struct pt_conn c;
	hz_connect_as(&c, &e.d, HZ_NOBODY);
	pt_hello(&c, "graphcache other uid");
	pt_create_context(&c, 1);
	Webnn__Ipc__LoadGraph lg = WEBNN__IPC__LOAD_GRAPH__INIT;
	lg.context_id = 1;
	lg.graph_id = 5;
	lg.key = "private";
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_LOAD_GRAPH;
	m.load_graph = &lg;
	Webnn__Ipc__ServerMessage *r = pt_call(&c, &m);
	ASSERT_MSG(!r->reply->error, "%s", r->reply->error->message);
	ASSERT_EQ(r->reply->body_case, WEBNN__IPC__REPLY__BODY_LOAD_GRAPH);
	ASSERT_MSG(!r->reply->load_graph->found, "uid %u loaded uid %u's entry", HZ_NOBODY,
		   (unsigned)getuid());
	pt_free(r);
	/* Its own graph saved under the same key lands in its own store. */
	struct pt_graph pg;
	pt_add_graph(&pg, 1, 6);
	pt_call_ok(&c, &pg.m);
	Webnn__Ipc__SaveGraph sg = WEBNN__IPC__SAVE_GRAPH__INIT;
	sg.graph_id = 6;
	sg.key = "private";
	Webnn__Ipc__ClientMessage sm = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	sm.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_SAVE_GRAPH;
	sm.save_graph = &sg;
	pt_call_ok(&c, &sm);
	pt_close(&c);
	char path[1024];
	snprintf(path, sizeof(path), "%s/graphs/%u/private.wg", e.cache, HZ_NOBODY);
	ASSERT_MSG(access(path, F_OK) == 0, "%s: %s", path, strerror(errno));
	struct stat st;
	snprintf(path, sizeof(path), "%s/graphs/%u", e.cache, HZ_NOBODY);
	ASSERT(stat(path, &st) == 0);
	ASSERT_EQ(st.st_mode & 0777, 0700);
	gc_load_run(a, "private", got);
	ASSERT(memcmp(got, want, sizeof(got)) == 0);
	webnn_context_destroy(a);
	gc_down(&e);
}

static void gc_poke(const char *path, off_t off, const void *bytes, size_t n)
{
	int fd = open(path, O_WRONLY);
	ASSERT_MSG(fd >= 0, "%s: %s", path, strerror(errno));
	ASSERT(pwrite(fd, bytes, n, off) == (ssize_t)n);
	close(fd);
}

/* A flipped byte in a constant, or a truncated file, is refused with DATA_ERROR saying the
 * entry is damaged, and removed: the next load finds no entry, and a rebuilt graph saves and
 * loads again. */
TEST(graphcache_damaged_entry_refused_and_rebuilt)
{
	struct gc_env e;
	gc_up(&e, NULL);
	struct webnn_context *a = ct_connect(&e.d, "graphcache damage");
	struct webnn_graph *g = gc_build(a, 1.0f);
	float want[GC_M * GC_N], got[GC_M * GC_N];
	gc_run(a, g, want);
	OK(a, webnn_context_save_graph(a, "damaged", g));
	char path[1024];
	gc_path(&e, "damaged", path, sizeof(path));
	struct stat st;
	ASSERT_MSG(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
	ASSERT_EQ(st.st_mode & 0777, 0600);
	/* The last byte of the file is the last constant's. */
	unsigned char flip = 0x5a;
	gc_poke(path, st.st_size - 3, &flip, 1);
	struct webnn_graph *l = NULL;
	FAILS(a, webnn_context_load_graph(a, "damaged", &l), WEBNN_STATUS_DATA_ERROR,
	      "do not match their hash");
	ASSERT(l == NULL);
	ASSERT_CONTAINS(webnn_context_last_error(a), "removed");
	ASSERT(access(path, F_OK) != 0);
	ASSERT(gc_absent(a, "damaged"));
	/* Rebuilt (here: the graph still held) and saved, it loads. */
	OK(a, webnn_context_save_graph(a, "damaged", g));
	gc_load_run(a, "damaged", got);
	ASSERT(memcmp(got, want, sizeof(got)) == 0);
	/* Truncated. */
	ASSERT(stat(path, &st) == 0);
	ASSERT(truncate(path, st.st_size - 4096) == 0);
	FAILS(a, webnn_context_load_graph(a, "damaged", &l), WEBNN_STATUS_DATA_ERROR, "truncated");
	ASSERT(access(path, F_OK) != 0);
	webnn_graph_destroy(g);
	webnn_context_destroy(a);
	gc_down(&e);
}

/* An entry written by another daemon version (or backend, device, driver) is dropped as
 * stale: no entry, removed. */
TEST(graphcache_version_mismatch_invalidates)
{
	struct gc_env e;
	gc_up(&e, NULL);
	struct webnn_context *a = ct_connect(&e.d, "graphcache version");
	struct webnn_graph *g = gc_build(a, 1.0f);
	OK(a, webnn_context_save_graph(a, "versioned", g));
	webnn_graph_destroy(g);
	char path[1024];
	gc_path(&e, "versioned", path, sizeof(path));
	/* The version string follows the magic (8 bytes) and two 32-bit fields. */
	const char old[] = "webnnd 0.0.1; protocol 1.0";
	gc_poke(path, 16, old, sizeof(old));
	ASSERT(gc_absent(a, "versioned"));
	ASSERT(access(path, F_OK) != 0);
	webnn_context_destroy(a);
	gc_down(&e);
}

/* Entries are evicted least recently used first once the user's store would pass
 * max_graph_cache_bytes; an entry larger than the cap is refused naming it. */
TEST(graphcache_eviction_at_the_cap)
{
	struct gc_env e;
	/* Each entry takes 20 KiB on disk (a page of header and graph, 12.2 KiB of constants):
	 * two fit, three do not. */
	gc_up(&e, "max_graph_cache_bytes=45K");
	struct webnn_context *a = ct_connect(&e.d, "graphcache eviction");
	struct webnn_graph *g = gc_build(a, 1.0f);
	OK(a, webnn_context_save_graph(a, "lru-a", g));
	usleep(20000);
	OK(a, webnn_context_save_graph(a, "lru-b", g));
	usleep(20000);
	float got[GC_M * GC_N];
	gc_load_run(a, "lru-a", got); /* a is now the most recently used */
	usleep(20000);
	OK(a, webnn_context_save_graph(a, "lru-c", g));
	ASSERT_MSG(gc_absent(a, "lru-b"), "the least recently used entry was kept");
	ASSERT(!gc_absent(a, "lru-a"));
	ASSERT(!gc_absent(a, "lru-c"));
	webnn_graph_destroy(g);
	/* Larger than the whole cap. */
	struct webnn_builder *b = NULL;
	OK(a, webnn_builder_create(a, &b));
	static float big[64 * 1024];
	uint32_t s[] = { 64 * 1024 };
	struct webnn_operand *x = ct_input(a, b, "x", WEBNN_FLOAT32, 1, s);
	struct webnn_operand *c = ct_const(a, b, WEBNN_FLOAT32, 1, s, big);
	struct webnn_operand *y = NULL;
	OK(a, webnn_builder_add(b, x, c, &y));
	struct webnn_named_operand out = { "y", y };
	OK(a, webnn_builder_build(b, &out, 1, &g));
	webnn_builder_destroy(b);
	FAILS(a, webnn_context_save_graph(a, "too-big", g), WEBNN_STATUS_NO_MEMORY,
	      "max_graph_cache_bytes");
	webnn_graph_destroy(g);
	webnn_context_destroy(a);
	gc_down(&e);
}

/* Keys too long, empty, hidden or with characters outside [A-Za-z0-9._-] are refused with
 * TYPE_ERROR naming the rule, by the library and by the daemon. */
TEST(graphcache_bad_keys_refused)
{
	struct gc_env e;
	gc_up(&e, NULL);
	struct webnn_context *a = ct_connect(&e.d, "graphcache keys");
	struct webnn_graph *g = gc_build(a, 1.0f), *l = NULL;
	char longkey[200];
	memset(longkey, 'k', sizeof(longkey) - 1);
	longkey[sizeof(longkey) - 1] = 0;
	FAILS(a, webnn_context_save_graph(a, longkey, g), WEBNN_STATUS_TYPE_ERROR,
	      "199 characters long");
	FAILS(a, webnn_context_load_graph(a, "", &l), WEBNN_STATUS_TYPE_ERROR, "0 characters");
	FAILS(a, webnn_context_save_graph(a, "../escape", g), WEBNN_STATUS_TYPE_ERROR,
	      "starts with '.'");
	FAILS(a, webnn_context_load_graph(a, "a/b", &l), WEBNN_STATUS_TYPE_ERROR,
	      "character 0x2f at 1");
	FAILS(a, webnn_context_save_graph(a, "sp ace", g), WEBNN_STATUS_TYPE_ERROR,
	      "character 0x20 at 2");
	ASSERT(l == NULL);
	webnn_graph_destroy(g);
	webnn_context_destroy(a);
	/* The daemon checks on its own (a client need not be libwebnn). */
	struct pt_conn c;
	pt_connect(&c, &e.d);
	pt_hello(&c, "graphcache raw keys");
	pt_create_context(&c, 1);
	Webnn__Ipc__LoadGraph lg = WEBNN__IPC__LOAD_GRAPH__INIT;
	lg.context_id = 1;
	lg.graph_id = 5;
	lg.key = "x/../../etc";
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_LOAD_GRAPH;
	m.load_graph = &lg;
	pt_call_err(&c, &m, WEBNN__IPC__STATUS__TYPE_ERROR, "character 0x2f at 1");
	pt_close(&c);
	gc_down(&e);
}

/* Writers never expose a partial entry: a writer's temporary file is not an entry, and loads
 * racing another process that saves the same key over and over each find the whole old entry,
 * the whole new one, or none, never an error. */
TEST_TIMEOUT(graphcache_load_while_another_process_writes, 120)
{
	struct gc_env e;
	gc_up(&e, NULL);
	struct webnn_context *a = ct_connect(&e.d, "graphcache reader");
	char path[1024];
	gc_path(&e, "racy", path, sizeof(path));
	struct webnn_graph *g = gc_build(a, 4.0f);
	float want[GC_M * GC_N], got[GC_M * GC_N];
	gc_run(a, g, want);
	OK(a, webnn_context_save_graph(a, "racy", g));
	/* A partial file left by a writer that died: ignored. */
	char tmp[1100];
	snprintf(tmp, sizeof(tmp), "%s/graphs/%u/.racy.999.1.tmp", e.cache, (unsigned)getuid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ASSERT(fd >= 0);
	ASSERT(write(fd, "WNNGRAPH", 8) == 8);
	close(fd);
	gc_load_run(a, "racy", got);
	ASSERT(memcmp(got, want, sizeof(got)) == 0);
	fflush(NULL);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		struct webnn_context *w = ct_connect(&e.d, "graphcache writer");
		struct webnn_graph *wg = gc_build(w, 4.0f);
		for (int i = 0; i < 40; i++)
			if (webnn_context_save_graph(w, "racy", wg) != WEBNN_STATUS_OK)
				_exit(1);
		webnn_graph_destroy(wg);
		webnn_context_destroy(w);
		_exit(0);
	}
	int loaded = 0;
	for (int i = 0; i < 40; i++) {
		struct webnn_graph *l = NULL;
		OK(a, webnn_context_load_graph(a, "racy", &l));
		if (!l)
			continue;
		gc_run(a, l, got);
		ASSERT(memcmp(got, want, sizeof(got)) == 0);
		webnn_graph_destroy(l);
		loaded++;
	}
	int st;
	ASSERT(waitpid(pid, &st, 0) == pid);
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the writer failed (status %d)", st);
	ASSERT_MSG(loaded > 0, "no load found the entry");
	webnn_graph_destroy(g);
	webnn_context_destroy(a);
	gc_down(&e);
}

/* webnn-run MODEL --cache output, stdout and stderr, into out. */
static void gc_webnn_run(const struct gc_env *e, const char *model, char *out, size_t len)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "'%s/bin/webnn-run' --socket '%s' '%s' --cache --iterations 1 "
		 "2>&1", test_build_dir(), e->d.socket_path, model);
	FILE *p = popen(cmd, "r");
	ASSERT(p);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = 0;
	int st = pclose(p);
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "webnn-run failed (%d): %s", st, out);
}

/* The line of the first output's summary. */
static void gc_first_output(const char *out, char *line, size_t len)
{
	const char *o = strstr(out, "  output ");
	ASSERT_MSG(o, "no output in: %s", out);
	size_t n = strcspn(o, "\n");
	snprintf(line, len, "%.*s", (int)n, o);
}

/* webnn-run --cache: the first run builds and saves, the second loads, with the same outputs. */
TEST_TIMEOUT(graphcache_webnn_run_cache, 300)
{
	char model[1024];
	snprintf(model, sizeof(model), "%s/models/squeezenet1.0.nnef", test_build_dir());
	if (access(model, R_OK) != 0)
		SKIP("%s is not built", model);
	struct gc_env e;
	gc_up(&e, NULL);
	static char first[16384], second[16384];
	gc_webnn_run(&e, model, first, sizeof(first));
	ASSERT_CONTAINS(first, "built and saved in webnnd's graph cache");
	gc_webnn_run(&e, model, second, sizeof(second));
	ASSERT_CONTAINS(second, "loaded from webnnd's graph cache");
	char a[512], b[512];
	gc_first_output(first, a, sizeof(a));
	gc_first_output(second, b, sizeof(b));
	ASSERT_STREQ(a, b);
	gc_down(&e);
}

/* A loaded graph is charged like a built one, its mapped entry included: a daemon whose
 * connection budget is smaller than the entry refuses the load with NO_MEMORY naming the
 * budget, and keeps the entry for a later load that fits. */
/* y = x + w for x of 4 floats, w = { w0, w0 + 1, w0 + 2, w0 + 3 }: the same size whatever w0. */
static void gc_write_add_model(const char *path, float w0)
{
	struct onnx_writer w;
	onnx_writer_init(&w, 17);
	int64_t dims[] = { 4 };
	float wv[4] = { w0, w0 + 1, w0 + 2, w0 + 3 };
	onnx_writer_input(&w, "x", ONNX_FLOAT, 1, dims);
	onnx_writer_initializer(&w, "w", ONNX_FLOAT, 1, dims, wv);
	onnx_writer_node(&w, NULL, "Add", NULL, "x,w", "y");
	onnx_writer_output(&w, "y", ONNX_FLOAT, 1, dims);
	ASSERT(onnx_writer_save(&w, path));
	onnx_writer_free(&w);
}

/* webnn-run --cache remembers an ONNX file's content hash (its key) per file, and only while
 * the file is unchanged: the second run loads through the remembered hash, and a model
 * rewritten with other weights of the same size is built again and computes the new ones. */
TEST_TIMEOUT(graphcache_webnn_run_key_follows_the_file, 120)
{
	struct gc_env e;
	gc_up(&e, NULL);
	char model[600], xdg[600], memo_dir[700];
	snprintf(model, sizeof(model), "%s/add.onnx", e.top);
	snprintf(xdg, sizeof(xdg), "%s/xdg", e.top);
	snprintf(memo_dir, sizeof(memo_dir), "%s/webnn-run", xdg);
	ASSERT(mkdir(xdg, 0700) == 0);
	setenv("XDG_CACHE_HOME", xdg, 1);
	gc_write_add_model(model, 1.0f);
	/* a hash is remembered only for a file unchanged for 2 s */
	sleep(3);
	static char first[16384], second[16384], third[16384];
	gc_webnn_run(&e, model, first, sizeof(first));
	ASSERT_CONTAINS(first, "built and saved in webnnd's graph cache");
	struct stat st;
	ASSERT_MSG(stat(memo_dir, &st) == 0, "no remembered hash in %s", memo_dir);
	gc_webnn_run(&e, model, second, sizeof(second));
	ASSERT_CONTAINS(second, "loaded from webnnd's graph cache");
	char a[512], b[512], c[512];
	gc_first_output(first, a, sizeof(a));
	gc_first_output(second, b, sizeof(b));
	ASSERT_STREQ(a, b);
	gc_write_add_model(model, 5.0f);
	gc_webnn_run(&e, model, third, sizeof(third));
	unsetenv("XDG_CACHE_HOME");
	ASSERT_CONTAINS(third, "built and saved in webnnd's graph cache");
	gc_first_output(third, c, sizeof(c));
	ASSERT_MSG(strcmp(a, c) != 0, "the rewritten model computed the old output: %s", c);
	gc_down(&e);
}

TEST(graphcache_load_is_charged)
{
	struct gc_env e;
	gc_up(&e, NULL);
	struct webnn_context *a = ct_connect(&e.d, "graphcache budget saver");
	enum { N = 1 << 20 }; /* 4 MiB of constant */
	static float big[N];
	for (int i = 0; i < N; i++)
		big[i] = (float)(i % 11);
	struct webnn_builder *b = NULL;
	OK(a, webnn_builder_create(a, &b));
	uint32_t s[] = { N };
	struct webnn_operand *x = ct_input(a, b, "x", WEBNN_FLOAT32, 1, s);
	struct webnn_operand *c = ct_const(a, b, WEBNN_FLOAT32, 1, s, big);
	struct webnn_operand *y = NULL;
	OK(a, webnn_builder_add(b, x, c, &y));
	struct webnn_named_operand out = { "y", y };
	struct webnn_graph *g = NULL;
	OK(a, webnn_builder_build(b, &out, 1, &g));
	webnn_builder_destroy(b);
	OK(a, webnn_context_save_graph(a, "charged", g));
	webnn_graph_destroy(g);
	webnn_context_destroy(a);
	test_daemon_stop(&e.d);

	/* The same store, a daemon whose connections may hold 2 MiB. */
	setenv("WEBNN_CACHE_DIR", e.cache, 1);
	const char *args[] = { "--backend", "reference", "--limit", "max_connection_bytes=2M",
			       NULL };
	test_daemon_start(&e.d, args);
	unsetenv("WEBNN_CACHE_DIR");
	struct webnn_context *l = ct_connect(&e.d, "graphcache budget loader");
	FAILS(l, webnn_context_load_graph(l, "charged", &g), WEBNN_STATUS_NO_MEMORY,
	      "max_connection_bytes");
	ASSERT(g == NULL);
	char path[1024];
	gc_path(&e, "charged", path, sizeof(path));
	ASSERT_MSG(access(path, F_OK) == 0, "the entry was removed after a refusal for budget");
	webnn_context_destroy(l);
	gc_down(&e);
}

/* ---- the cpu backend's prepared weights */

enum { GP_M = 8, GP_K = 1024, GP_N = 4352 }; /* W: 17.8 MB, past the load's eager check */

static struct webnn_graph *gp_build(struct webnn_context *ctx)
{
	float *w = malloc(sizeof(float) * GP_K * GP_N);
	ASSERT(w);
	for (int i = 0; i < GP_K * GP_N; i++)
		w[i] = (float)((i * 7) % 29) * 0.0625f - 0.875f;
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	uint32_t xs[] = { GP_M, GP_K }, ws[] = { GP_K, GP_N };
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, xs);
	struct webnn_operand *wc = ct_const(ctx, b, WEBNN_FLOAT32, 2, ws, w);
	free(w);
	struct webnn_operand *y = NULL;
	OK(ctx, webnn_builder_matmul(b, x, wc, &y));
	OK(ctx, webnn_builder_relu(b, y, &y));
	struct webnn_named_operand out = { "y", y };
	struct webnn_graph *g = NULL;
	OK(ctx, webnn_builder_build(b, &out, 1, &g));
	webnn_builder_destroy(b);
	return g;
}

static char gp_error[1024]; /* gp_run's last error message */

/* One dispatch of g into y; the first failing call's status (OK when all pass; a failed
 * dispatch's is the flush's). */
static enum webnn_status gp_run(struct webnn_context *ctx, struct webnn_graph *g, float *y)
{
	static float x[GP_M * GP_K];
	for (int i = 0; i < GP_M * GP_K; i++)
		x[i] = (float)(i % 31) * 0.03125f - 0.5f;
	struct webnn_tensor_desc xd = { .desc = { WEBNN_FLOAT32, 2, { GP_M, GP_K } },
					.writable = true },
				 yd = { .desc = { WEBNN_FLOAT32, 2, { GP_M, GP_N } },
					.readable = true };
	struct webnn_tensor *tx = NULL, *ty = NULL;
	OK(ctx, webnn_context_create_tensor(ctx, &xd, &tx));
	OK(ctx, webnn_context_create_tensor(ctx, &yd, &ty));
	OK(ctx, webnn_context_write_tensor(ctx, tx, x, sizeof(x)));
	struct webnn_named_tensor in = { "x", tx }, out = { "y", ty };
	enum webnn_status st = webnn_context_dispatch(ctx, g, &in, 1, &out, 1);
	if (st == WEBNN_STATUS_OK)
		st = webnn_context_flush(ctx); /* a dispatch's failure */
	if (st == WEBNN_STATUS_OK)
		st = webnn_context_read_tensor(ctx, ty, y, sizeof(float) * GP_M * GP_N);
	snprintf(gp_error, sizeof(gp_error), "%s", webnn_context_last_error(ctx));
	webnn_tensor_destroy(tx);
	webnn_tensor_destroy(ty);
	return st;
}

static bool gp_log_has(const char *log, const char *needle)
{
	FILE *f = fopen(log, "r");
	char line[1024];
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* On the cpu backend an entry keeps the weights oneDNN reordered: a load binds them from the
 * mapped entry instead of reordering (the log says the backend took them) and computes the
 * bytes a fresh build computes. A large entry's bytes are checked before its first dispatch:
 * a damaged reordered weight fails that dispatch (and the next) with DATA_ERROR, removes the
 * entry, and the worker goes on serving. A damaged key of a reordered weight is refused at the
 * load (the graph and tables are checked there). */
TEST_TIMEOUT(graphcache_cpu_keeps_reordered_weights, 120)
{
	struct gc_env e;
	ct_require_webnnd();
	snprintf(e.top, sizeof(e.top), "/tmp/wnn-gc-XXXXXX");
	ASSERT(mkdtemp(e.top));
	ASSERT(chmod(e.top, 0755) == 0);
	snprintf(e.cache, sizeof(e.cache), "%s/cache", e.top);
	char log[600];
	snprintf(log, sizeof(log), "%s/webnnd.log", e.top);
	setenv("WEBNN_CACHE_DIR", e.cache, 1);
	const char *args[] = { "--backend", "cpu", "--verbose", NULL };
	test_daemon_start_logged(&e.d, NULL, args, log);
	unsetenv("WEBNN_CACHE_DIR");
	ASSERT(chmod(e.d.dir, 0755) == 0);

	size_t ny = (size_t)GP_M * GP_N;
	float *want = malloc(ny * sizeof(float)), *got = malloc(ny * sizeof(float));
	ASSERT(want && got);
	struct webnn_context *a = ct_connect(&e.d, "graphcache cpu saver");
	struct webnn_graph *g = gp_build(a);
	OK(a, gp_run(a, g, want));
	OK(a, webnn_context_save_graph(a, "reordered", g));
	webnn_graph_destroy(g);
	webnn_context_destroy(a);
	char path[1024];
	gc_path(&e, "reordered", path, sizeof(path));
	struct stat st;
	ASSERT_MSG(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
	/* the weight's bytes and its reordered copy */
	ASSERT_MSG(st.st_size >= 2 * (off_t)(sizeof(float) * GP_K * GP_N), "entry of %lld bytes",
		   (long long)st.st_size);

	struct webnn_context *b = ct_connect(&e.d, "graphcache cpu loader");
	struct webnn_graph *l = NULL;
	OK(b, webnn_context_load_graph(b, "reordered", &l));
	ASSERT(l != NULL);
	ASSERT_MSG(gp_log_has(log, "1 prepared copies offered to the backend"),
		   "the load did not hand the reordered weight to the backend (log %s)", log);
	memset(got, 0, ny * sizeof(float));
	OK(b, gp_run(b, l, got));
	ASSERT(memcmp(got, want, ny * sizeof(float)) == 0);
	/* Saved again from the loaded graph (its entry checked by the dispatch), it loads. */
	OK(b, webnn_context_save_graph(b, "reordered-again", l));
	webnn_graph_destroy(l);
	l = NULL;
	OK(b, webnn_context_load_graph(b, "reordered-again", &l));
	ASSERT(l != NULL);
	memset(got, 0, ny * sizeof(float));
	OK(b, gp_run(b, l, got));
	ASSERT(memcmp(got, want, ny * sizeof(float)) == 0);
	webnn_graph_destroy(l);
	l = NULL;

	/* A flipped byte near the end: in the reordered copy, the entry's last part. */
	unsigned char flip = 0x5a;
	ASSERT(stat(path, &st) == 0);
	gc_poke(path, st.st_size - 4096 - 17, &flip, 1);
	OK(b, webnn_context_load_graph(b, "reordered", &l));
	ASSERT(l != NULL);
	enum webnn_status s = gp_run(b, l, got);
	ASSERT_MSG(s == WEBNN_STATUS_DATA_ERROR, "dispatch on a damaged entry: %s (%s)",
		   webnn_status_name(s), gp_error);
	ASSERT_CONTAINS(gp_error, "damaged");
	ASSERT_CONTAINS(gp_error, "removed");
	s = gp_run(b, l, got);
	ASSERT_MSG(s == WEBNN_STATUS_DATA_ERROR, "second dispatch on a damaged entry: %s",
		   webnn_status_name(s));
	webnn_graph_destroy(l);
	l = NULL;
	ASSERT(access(path, F_OK) != 0);
	ASSERT(gc_absent(b, "reordered"));
	/* the worker still serves: a fresh build runs and matches */
	g = gp_build(b);
	memset(got, 0, ny * sizeof(float));
	OK(b, gp_run(b, g, got));
	ASSERT(memcmp(got, want, ny * sizeof(float)) == 0);
	OK(b, webnn_context_save_graph(b, "reordered", g));
	webnn_graph_destroy(g);

	/* A flipped byte in a reordered weight's key (its memory descriptors): refused at the
	 * load. The header: magic (8), two 32-bit fields, the version (192), then info_off,
	 * info_len, table_off, prep_off (64-bit), n_prep and a pad (32-bit), keys_off. */
	uint64_t keys_off = 0;
	int fd = open(path, O_RDONLY);
	ASSERT(fd >= 0);
	ASSERT(pread(fd, &keys_off, 8, 8 + 4 + 4 + 192 + 4 * 8 + 2 * 4) == 8);
	close(fd);
	ASSERT(keys_off > 0 && keys_off < 65536);
	gc_poke(path, (off_t)keys_off + 40, &flip, 1);
	FAILS(b, webnn_context_load_graph(b, "reordered", &l), WEBNN_STATUS_DATA_ERROR,
	      "do not match their hash");
	ASSERT(l == NULL);
	ASSERT(access(path, F_OK) != 0);
	webnn_context_destroy(b);
	free(want);
	free(got);
	gc_down(&e);
}
