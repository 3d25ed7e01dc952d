/* WPT conformance: every shared/conformance case through webnn-run --check, client -> webnnd. */
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/common/compare.h"
#include "webnn.h"
#include "tests/test.h"

/* Fails printed per file before the rest are only counted, to keep the log readable. */
#define MAX_FAIL_LINES 20
/* Relative to the repository root, where make check runs the tests. */
#define KNOWN_FAILURES "tests/known-failures.txt"

struct conf_counts {
	int passed, failed, skipped, xfail, xpass;
};

/* Runs webnn-run over one file; returns false when it crashed or printed no summary. */
static bool conf_run_file(const char *run, const char *socket, const char *file,
			  struct conf_counts *c, int *fail_lines)
{
	char cmd[8192], line[8192];
	snprintf(cmd, sizeof(cmd), "'%s' --socket '%s' --check --known-failures %s '%s' 2>&1", run,
		 socket, KNOWN_FAILURES, file);
	FILE *p = popen(cmd, "r");
	ASSERT_MSG(p, "popen %s failed", run);
	bool summary = false;
	memset(c, 0, sizeof(*c));
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%d passed, %d failed, %d skipped, %d xfail", &c->passed, &c->failed,
			   &c->skipped, &c->xfail) == 4) {
			const char *xp = strstr(line, "xpass");
			if (xp)
				sscanf(strstr(line, "xfail, ") + 7, "%d", &c->xpass);
			summary = true;
			continue;
		}
		bool fail = strncmp(line, "FAIL ", 5) == 0;
		bool note = strncmp(line, "XPASS ", 6) == 0 || strncmp(line, "webnn-run:", 10) == 0;
		if ((fail && (*fail_lines)++ < MAX_FAIL_LINES) || note)
			printf("    %s", line);
	}
	int st = pclose(p);
	if (!summary || !WIFEXITED(st) || WEXITSTATUS(st) > 1) {
		printf("    webnn-run %s: exit status %d, %s\n", file, st,
		       summary ? "summary printed" : "no summary");
		return false;
	}
	return true;
}

/* Every case file through a webnnd serving every context on the given backend. */
static void conf_run_all(const char *backend)
{
	const char *shared = test_shared_dir();
	if (!shared)
		SKIP("../shared (or $WEBNN_SHARED) is absent: no conformance data");
	const char *const args[] = { "--backend", backend, NULL };
	char pattern[4096], run[4096];
	snprintf(pattern, sizeof(pattern), "%s/conformance/[!_]*.json", shared);
	snprintf(run, sizeof(run), "%s/bin/webnn-run", test_build_dir());
	ASSERT_MSG(access(KNOWN_FAILURES, R_OK) == 0,
		   "%s not found: run webnn-tests from the repository root", KNOWN_FAILURES);
	glob_t gl;
	ASSERT_MSG(glob(pattern, 0, NULL, &gl) == 0 && gl.gl_pathc > 0, "no case files match %s",
		   pattern);

	struct test_daemon d;
	test_daemon_start(&d, args);
	struct conf_counts total = { 0 };
	int broken = 0, fail_lines = 0;
	printf("  %-40s %6s %6s %6s %6s\n", "file", "pass", "fail", "skip", "xfail");
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		struct conf_counts c;
		const char *base = strrchr(gl.gl_pathv[i], '/');
		base = base ? base + 1 : gl.gl_pathv[i];
		if (!conf_run_file(run, d.socket_path, gl.gl_pathv[i], &c, &fail_lines))
			broken++;
		printf("  %-40s %6d %6d %6d %6d%s\n", base, c.passed, c.failed, c.skipped, c.xfail,
		       c.xpass ? "  (xpass!)" : "");
		fflush(stdout);
		total.passed += c.passed;
		total.failed += c.failed;
		total.skipped += c.skipped;
		total.xfail += c.xfail;
		total.xpass += c.xpass;
	}
	printf("  %-40s %6d %6d %6d %6d\n", "total", total.passed, total.failed, total.skipped,
	       total.xfail);
	if (total.xpass)
		printf("  %d known failure(s) now pass: update tests/known-failures.txt\n",
		       total.xpass);
	globfree(&gl);
	test_daemon_stop(&d);
	ASSERT_MSG(broken == 0, "webnn-run crashed or printed no summary on %d file(s)", broken);
	ASSERT_MSG(total.failed == 0, "%d conformance case(s) failed on the %s backend",
		   total.failed, backend);
}

TEST_TIMEOUT(conformance_wpt_cpu, 900)
{
	conf_run_all("cpu");
}

TEST_TIMEOUT(conformance_wpt_opencl, 900)
{
	if (!test_have_opencl())
		SKIP("no OpenCL platform");
	conf_run_all("opencl");
}

/* The WPT comparison rules webnn-run --check and the backend tests share, on their edge cases. */
TEST(conformance_compare_rules)
{
	float one_up = nextafterf(1.0f, 2.0f), tiny = nextafterf(0.0f, 1.0f);
	ASSERT(tool_f32_ulp_distance(1.0f, 1.0f) == 0);
	ASSERT(tool_f32_ulp_distance(one_up, 1.0f) == 1);
	/* The distance crosses zero: the smallest subnormals either side are 2 apart. */
	ASSERT(tool_f32_ulp_distance(tiny, -tiny) == 2);
	ASSERT(tool_f32_ulp_distance(0.0f, -0.0f) == 0);
	ASSERT(tool_f32_ulp_distance(NAN, NAN) == 0);
	ASSERT(isinf(tool_f32_ulp_distance(NAN, 1.0f)));
	ASSERT(isinf(tool_f32_ulp_distance(1.0f, NAN)));

	/* float16 on raw bits: 1.0 = 0x3c00; zeros of either sign are equal. */
	ASSERT(tool_f16_ulp_distance(0x3c01, 0x3c00) == 1);
	ASSERT(tool_f16_ulp_distance(0x8000, 0x0000) == 0);
	ASSERT(tool_f16_ulp_distance(0x8001, 0x0001) == 0x8000);
	ASSERT(webnn_float16_to_float32(0x3c00) == 1.0);
	ASSERT(webnn_float16_to_float32(0xc000) == -2.0);
	ASSERT(webnn_float16_to_float32(0x0001) == ldexp(1, -24));
	ASSERT(isinf(webnn_float16_to_float32(0x7c00)) && isnan(webnn_float16_to_float32(0x7e00)));
	/* libwebnn's one converter: every float16 but NaN survives the round trip; float32
	 * rounds to nearest even and overflows at 65520. */
	for (uint32_t h = 0; h < 0x10000; h++)
		if ((h & 0x7c00) != 0x7c00 || (h & 0x3ff) == 0)
			ASSERT_MSG(webnn_float32_to_float16(webnn_float16_to_float32((uint16_t)h)) == h,
				   "0x%04x", h);
	ASSERT(webnn_float32_to_float16(65519.0f) == 0x7bff);
	ASSERT(webnn_float32_to_float16(65520.0f) == 0x7c00);
	ASSERT(webnn_float32_to_float16(1.0f + 0x1p-11f) == 0x3c00);       /* tie: to even */
	ASSERT(webnn_float32_to_float16(1.0f + 3 * 0x1p-11f) == 0x3c02);   /* tie: to even */
	ASSERT(webnn_float32_to_float16(0x1p-25f) == 0x0000);              /* tie with 0 */
	ASSERT(webnn_float32_to_float16(0x1.8p-25f) == 0x0001);
	uint16_t nan16 = webnn_float32_to_float16(NAN);
	ASSERT((nan16 & 0x7c00) == 0x7c00 && (nan16 & 0x3ff) != 0);

	double dist;
	ASSERT(tool_within_atol(1.0, 1.5, 0.5, &dist) && dist == 0.5);
	ASSERT(!tool_within_atol(1.0, 1.5, 0.25, &dist));
	ASSERT(!tool_within_atol(NAN, NAN, 1.0, &dist));

	ASSERT(tool_int_distance(INT64_MIN, INT64_MAX) == UINT64_MAX);
	ASSERT(tool_int_distance(-3, 4) == 7);
	ASSERT(tool_uint_distance(0, UINT64_MAX) == UINT64_MAX);
}
