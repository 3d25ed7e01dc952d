/* The backends' on-disk caches as process policy: the directory, PoCL's cache, the warm-up child. */
#include "daemon/caches.h"

#include "daemon/log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* mkdir -p with mode 0700; true when the directory exists and is writable. */
static bool mkdir_p(const char *path)
{
	char tmp[512];
	if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
		return false;
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
			return false;
		*p = '/';
	}
	if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
		return false;
	return access(tmp, W_OK | X_OK) == 0;
}

void caches_pick_dir(char *out, size_t len)
{
	const char *env;
	out[0] = 0;
	if ((env = getenv("WEBNN_CACHE_DIR")) && *env &&
	    snprintf(out, len, "%s", env) < (int)len && mkdir_p(out))
		return;
	if ((env = getenv("XDG_CACHE_HOME")) && *env &&
	    snprintf(out, len, "%s/webnn", env) < (int)len && mkdir_p(out))
		return;
	if ((env = getenv("HOME")) && *env &&
	    snprintf(out, len, "%s/.cache/webnn", env) < (int)len && mkdir_p(out))
		return;
	if (snprintf(out, len, "/tmp/webnn-cache-%u", (unsigned)getuid()) < (int)len && mkdir_p(out))
		return;
	out[0] = 0;
}

void caches_point_pocl(const char *dir)
{
	char sub[600];
	if (!dir || !dir[0] || getenv("POCL_CACHE_DIR"))
		return;
	if (snprintf(sub, sizeof sub, "%s/pocl", dir) < (int)sizeof sub && mkdir_p(sub))
		setenv("POCL_CACHE_DIR", sub, 0);
}

/* A warm-up compile cannot be interrupted and a thread would make shutdown wait for it
 * (seconds on a cold cache), while a process is simply killed at shutdown. The child leaves
 * with _exit (no atexit handlers of the parent's libraries). */
pid_t caches_warm_start(const struct backend_impl *impl, const struct backend_options *opts)
{
	if (!impl->warm_caches)
		return 0;
	pid_t parent = getpid();
	fflush(NULL); /* buffered output must not be written twice */
	pid_t pid = fork();
	if (pid != 0) {
		if (pid < 0)
			log_warn("cannot fork the cache warm-up: %s", strerror(errno));
		return pid > 0 ? pid : 0;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	if (close_range(3, ~0u, 0) != 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	/* Refusal is harmless: the warm-up only competes with the first requests. */
	(void)setpriority(PRIO_PROCESS, 0, 10);
	impl->warm_caches(opts);
	_exit(0);
}

static void caches_warm_wait(pid_t *pid, bool block)
{
	if (*pid <= 0)
		return;
	pid_t r;
	do
		r = waitpid(*pid, NULL, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r != 0) /* reaped, or not our child any more (ECHILD) */
		*pid = 0;
}

void caches_warm_reap(pid_t *pid)
{
	caches_warm_wait(pid, false);
}

void caches_warm_stop(pid_t *pid)
{
	if (*pid <= 0)
		return;
	kill(*pid, SIGKILL);
	caches_warm_wait(pid, true);
}
