/* webnn-run's conformance-JSON diagnostics: what a malformed or misspelt case reports, and its exit status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/clienttest.h"

/* One relu case; op, arg and layout text are spliced in so that each test breaks one thing. */
static void write_case(const char *path, const char *op, const char *arg)
{
	FILE *f = fopen(path, "w");
	ASSERT_MSG(f, "%s: %s", path, strerror(errno));
	fprintf(f,
		"[{\"name\": \"case\", \"graph\": {\"inputs\": {\"x\": {\"descriptor\": "
		"{\"dataType\": \"float32\", \"shape\": [2]}, \"data\": [1, -1], "
		"\"constant\": false}},\n"
		"\"operators\": [{\"name\": \"%s\", \"arguments\": [{\"input\": \"%s\"}], "
		"\"outputs\": \"y\"}],\n"
		"\"expectedOutputs\": {\"y\": {\"descriptor\": {\"dataType\": \"float32\", "
		"\"shape\": [2]}, \"data\": [1, 0]}}},\n"
		"\"tolerance\": {\"metric\": \"ULP\", \"value\": 0}, \"required\": true}]\n",
		op, arg);
	fclose(f);
}

/* A conv2d case whose options or filter shape are given as JSON text. */
static void write_conv(const char *path, const char *filter_shape, const char *options)
{
	FILE *f = fopen(path, "w");
	ASSERT_MSG(f, "%s: %s", path, strerror(errno));
	fprintf(f,
		"[{\"name\": \"conv\", \"graph\": {\"inputs\": {"
		"\"x\": {\"descriptor\": {\"dataType\": \"float32\", \"shape\": [1, 1, 2, 2]}, "
		"\"data\": [1, 2, 3, 4], \"constant\": false},"
		"\"w\": {\"descriptor\": {\"dataType\": \"float32\", \"shape\": %s}, "
		"\"data\": [1], \"constant\": true}},\n"
		"\"operators\": [{\"name\": \"conv2d\", \"arguments\": [{\"input\": \"x\"}, "
		"{\"filter\": \"w\"}, {\"options\": %s}], \"outputs\": \"y\"}],\n"
		"\"expectedOutputs\": {\"y\": {\"descriptor\": {\"dataType\": \"float32\", "
		"\"shape\": [1, 1, 2, 2]}, \"data\": [1, 2, 3, 4]}}},\n"
		"\"tolerance\": {\"metric\": \"ULP\", \"value\": 0}, \"required\": true}]\n",
		filter_shape, options);
	fclose(f);
}

/* Runs webnn-run --check on file; its output (stdout and stderr) into out, its exit status. */
static int run_check(const struct test_daemon *d, const char *file, char *out, size_t len)
{
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "'%s/bin/webnn-run' --socket '%s' --check '%s' 2>&1",
		 test_build_dir(), d->socket_path, file);
	FILE *p = popen(cmd, "r");
	ASSERT_MSG(p, "popen: %s", strerror(errno));
	size_t n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	ASSERT_MSG(WIFEXITED(st), "webnn-run did not exit normally (%d): %s", st, out);
	return WEXITSTATUS(st);
}

TEST_TIMEOUT(run_diagnostics_conformance_json, 120)
{
	ct_require_webnnd();
	struct test_daemon d;
	ct_daemon_up(&d);
	char dir[4096], file[4200], out[8192];
	test_scratch_dir(dir, sizeof(dir), "webnn-run-diag");
	snprintf(file, sizeof(file), "%s/case.json", dir);

	/* the case as written passes: the files below differ from it in one place each */
	write_case(file, "relu", "x");
	ASSERT_EQ(run_check(&d, file, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "1 passed, 0 failed, 0 skipped");

	/* a misspelt operator is a failure naming it and the nearest known name, not a skip */
	write_case(file, "rleu", "x");
	ASSERT_EQ(run_check(&d, file, out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "FAIL case: rleu: unknown operator (did you mean relu?)");
	ASSERT_CONTAINS(out, "0 passed, 1 failed, 0 skipped");

	/* an undefined operand reference names the operand (and the name it resembles) */
	write_case(file, "relu", "xx");
	ASSERT_EQ(run_check(&d, file, out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "FAIL case: relu: argument 0 (input) \"xx\" is not a graph input or "
			     "an earlier operator's output (did you mean \"x\"?)");

	/* so does a misspelt data type */
	FILE *f = fopen(file, "w");
	ASSERT(f);
	fputs("[{\"name\": \"case\", \"graph\": {\"inputs\": {\"x\": {\"descriptor\": "
	      "{\"dataType\": \"flaot32\", \"shape\": [2]}, \"data\": [1, -1], "
	      "\"constant\": false}}, \"operators\": [{\"name\": \"relu\", \"arguments\": "
	      "[{\"input\": \"x\"}], \"outputs\": \"y\"}], \"expectedOutputs\": {\"y\": "
	      "{\"descriptor\": {\"dataType\": \"float32\", \"shape\": [2]}, \"data\": [1, 0]}}}, "
	      "\"tolerance\": {\"metric\": \"ULP\", \"value\": 0}, \"required\": true}]\n", f);
	fclose(f);
	ASSERT_EQ(run_check(&d, file, out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "relu: x: unknown data type \"flaot32\" (did you mean \"float32\"?)");

	/* an unknown enum value names the value and the allowed ones */
	write_conv(file, "[1, 1, 1, 1]", "{\"inputLayout\": \"nwhc\"}");
	ASSERT_EQ(run_check(&d, file, out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "FAIL conv: conv2d: option inputLayout: unknown value \"nwhc\" "
			     "(allowed: \"nchw\", \"nhwc\")");

	/* libwebnn's message names the operator already: the operator reads once */
	write_conv(file, "[1, 1, 1]", "{}");
	ASSERT_EQ(run_check(&d, file, out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "FAIL conv: conv2d: TypeError: filter rank is 3, expected 4");
	ASSERT_MSG(!strstr(out, "conv2d: TypeError: conv2d:"), "repeated prefix: %s", out);

	/* a file that cannot be read has no line number */
	snprintf(file, sizeof(file), "%s/missing.json", dir);
	ASSERT_EQ(run_check(&d, file, out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "webnn-run: unable to open");
	ASSERT_MSG(!strstr(out, ":-1:"), "line -1 reported: %s", out);
	/* a malformed one does */
	snprintf(file, sizeof(file), "%s/case.json", dir);
	f = fopen(file, "w");
	ASSERT(f);
	fputs("[{\"name\": \"x\",\n", f);
	fclose(f);
	ASSERT_EQ(run_check(&d, file, out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "case.json:2: ");

	unlink(file);
	rmdir(dir);
	test_daemon_stop(&d);
}
