/* The Node.js binding's own tests (bindings/node/test, node --test) as part of the suite. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/test.h"

/* Runs node --test over the binding's test files (*.test.js) (each starts its private webnnd from the
 * build), echoes their diagnostics and counts, and fails on any failure. */
TEST_TIMEOUT(node_binding, 900)
{
	char addon[4096], cmd[8192], line[8192];
#if defined(__SANITIZE_ADDRESS__)
	/* node cannot load an ASan-instrumented addon: the plain build's suite runs these */
	SKIP("the sanitizer build has no Node.js addon (node cannot load an ASan-instrumented "
	     "library): make check runs the binding's tests");
#endif
	if (system("node --version > /dev/null 2>&1") != 0)
		SKIP("node is not installed: the Node.js binding is not tested");
	snprintf(addon, sizeof(addon), "%s/node/webnn/webnn.node", test_build_dir());
	if (access(addon, R_OK) != 0)
		SKIP("%s is not built (no Node.js headers: make deps installs libnode-dev)", addon);
	ASSERT_MSG(access("bindings/node/test", R_OK) == 0,
		   "bindings/node/test not found: run webnn-tests from the repository root");
	snprintf(cmd, sizeof(cmd),
		 "WEBNN_BUILD='%s' node --test --test-reporter=tap bindings/node/test/*.test.js 2>&1",
		 test_build_dir());
	FILE *p = popen(cmd, "r");
	ASSERT_MSG(p, "popen node failed");
	int pass = -1, fail = -1;
	while (fgets(line, sizeof(line), p)) {
		/* The tests' own summaries (conformance totals, failures) and the runner's counts. */
		if (strncmp(line, "not ok", 6) == 0 || strstr(line, "conformance total:") || strstr(line, "WPT total:") || strstr(line, "nodes on WebNN") ||
		    strstr(line, "# FAIL ") || strncmp(line, "# pass", 6) == 0 ||
		    strncmp(line, "# fail", 6) == 0 || strncmp(line, "# skipped", 9) == 0 ||
		    strstr(line, "# Subtest:") == line)
			printf("    %s", line);
		sscanf(line, "# pass %d", &pass);
		sscanf(line, "# fail %d", &fail);
	}
	int st = pclose(p);
	ASSERT_MSG(pass >= 0 && fail >= 0, "node --test printed no summary (status %d)", st);
	ASSERT_MSG(fail == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "%d Node.js binding test(s) failed (node exit status %d)", fail, st);
	ASSERT_MSG(pass > 0, "no Node.js binding test ran");
}
