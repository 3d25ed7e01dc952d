/* A new user's path: make demo as a user who cannot write /run/webnn gets a socket of their own and a line saying so. */
#include "tests/clienttest.h"
#include "tests/test.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TEST_TIMEOUT(demo_falls_back_to_a_user_socket, 300)
{
	ct_require_webnnd();
	REQUIRE_ROOT("the demo falls back to a user socket when run as the user nobody");
	if (access("tests/demo.sh", X_OK) != 0)
		SKIP("tests/demo.sh is not here (run from the repository root)");
	char build[4096];
	/* nobody runs the build's programs by this path */
	ASSERT(realpath(test_build_dir(), build));
	char dir[200], log[256];
	test_scratch_dir(dir, sizeof(dir), "webnn-demo");
	ASSERT(chown(dir, 65534, 65534) == 0);
	snprintf(log, sizeof(log), "%s/out", dir);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
			_exit(125);
		/* no model: the built-in CNN; no XDG_RUNTIME_DIR: the /tmp fallback */
		char tmpdir[256], shared[256];
		snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", dir);
		snprintf(shared, sizeof(shared), "WEBNN_SHARED=%s/none", dir);
		char *const envp[] = { tmpdir, shared, "WEBNN_BACKEND=reference", "WEBNN_NO_WARMUP=1",
				       "PATH=/usr/bin:/bin", "HOME=/nonexistent", NULL };
		execle("/bin/bash", "bash", "tests/demo.sh", build, (char *)NULL, envp);
		_exit(127);
	}
	int st;
	ASSERT(waitpid(pid, &st, 0) == pid);
	char out[16384] = "";
	FILE *f = fopen(log, "r");
	ASSERT(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "demo.sh as nobody: status %d:\n%s", st,
		   out);
	char want[300];
	snprintf(want, sizeof(want),
		 "demo: /run/webnn is not writable by nobody (it needs root): using "
		 "%s/webnn-65534/webnnd.sock instead",
		 dir);
	ASSERT_CONTAINS(out, want);
	ASSERT_CONTAINS(out, "RESULT:");
	ASSERT(strstr(out, "Permission denied") == NULL);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT(system(cmd) == 0);
}
