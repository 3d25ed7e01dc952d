/* The backends' on-disk caches as process policy: the directory, PoCL's cache, the warm-up child. */
#include "daemon/caches.h"

#include "daemon/log.h"
#include "sandbox/sandbox.h"

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

/* mkdir -p with mode 0700. The directories it creates belong to `owner` (the service user
 * the workers will run as, while we are still root); NULL: to us. */
static bool mkdir_owned(const char *path, const struct sandbox_user *owner)
{
	char tmp[512];
	if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
		return false;
	bool give = owner && owner->uid != geteuid();
	for (char *p = tmp + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(tmp, 0700) == 0) {
			if (give && chown(tmp, owner->uid, owner->gid) != 0)
				return false;
		} else if (errno != EEXIST) {
			return false;
		}
		*p = c;
		if (!c)
			return true;
	}
}

/* PoCL maps code from the cache (the kernels it links), so the directory must belong to the
 * user the workers run as and be writable by nobody else, and that user must reach it. */
static bool cache_usable(const char *dir, const struct sandbox_user *owner)
{
	struct stat st;
	uid_t uid = owner ? owner->uid : geteuid();
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return false;
	if (st.st_uid != uid || (st.st_mode & 022)) {
		log_warn("not using %s as the cache directory: it belongs to uid %u with mode %04o "
			 "(it must belong to uid %u and be writable by no one else)", dir,
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)uid);
		return false;
	}
	int r = sandbox_user_access(owner, dir, W_OK | X_OK);
	if (r != 0) {
		log_warn("not using %s as the cache directory: uid %u cannot write to it (%s)", dir,
			 (unsigned)uid, strerror(-r));
		return false;
	}
	return true;
}

static bool cache_try(const char *dir, const struct sandbox_user *owner)
{
	return mkdir_owned(dir, owner) && cache_usable(dir, owner);
}

void caches_pick_dir(char *out, size_t len, const struct sandbox_user *owner)
{
	const char *env;
	/* Dropping from root: root's home and XDG directories are no place for the service
	 * user's cache; a system directory is. */
	bool dropping = owner && owner->uid != geteuid();
	uid_t uid = owner ? owner->uid : geteuid();
	out[0] = 0;
	if ((env = getenv("WEBNN_CACHE_DIR")) && *env &&
	    snprintf(out, len, "%s", env) < (int)len && cache_try(out, owner))
		return;
	if (!dropping && (env = getenv("XDG_CACHE_HOME")) && *env &&
	    snprintf(out, len, "%s/webnn", env) < (int)len && cache_try(out, owner))
		return;
	if (!dropping && (env = getenv("HOME")) && *env &&
	    snprintf(out, len, "%s/.cache/webnn", env) < (int)len && cache_try(out, owner))
		return;
	if (dropping && snprintf(out, len, "/var/cache/webnn") < (int)len && cache_try(out, owner))
		return;
	if (snprintf(out, len, "/tmp/webnn-cache-%u", (unsigned)uid) < (int)len &&
	    cache_try(out, owner))
		return;
	out[0] = 0;
}

void caches_point_pocl(const char *dir, const struct sandbox_user *owner)
{
	char sub[600];
	if (!dir || !dir[0] || getenv("POCL_CACHE_DIR"))
		return;
	if (snprintf(sub, sizeof sub, "%s/pocl", dir) < (int)sizeof sub && cache_try(sub, owner))
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
