/* ONNX importer: Debian's libonnx-testdata backend tests through webnnd, and the importer's load errors. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "client/tools/common/model_check.h"
#include "tests/clienttest.h"
#include "tests/test.h"
#include "webnn_import.h"

#define ONNX_TESTDATA "/usr/share/libonnx-testdata/data"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Skip reasons grouped by operator ("(Op): reason" of the importer's message). */
struct reason {
	char text[512];
	int count;
};

static void count_reason(struct reason *r, size_t *n, size_t max, const char *msg)
{
	const char *p = strstr(msg, "\" (");
	char key[512];
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
};

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
		struct wnn_check_options o = { .atol = 1e-7, .rtol = 1e-3, .out = stderr,
					       .label = label };
		struct wnn_check_counts c = { 0 };
		wnn_check_dir(ctx, dir, &o, &c);
		t.folders++;
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
	static const int floors[] = { 0, 0, 0, 0 };
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
		fprintf(stderr, "%-18s %4d folders: %4d passed, %3d failed, %4d skipped\n", suites[i],
			t[i].folders, t[i].passed, t[i].failed, t[i].skipped);
		failed += t[i].failed;
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
