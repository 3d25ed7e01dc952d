/* The backends' on-disk caches as process policy: the directory, PoCL's cache, the warm-up child. */
#include "daemon/front/caches.h"

#include "daemon/log.h"
#include "daemon/safedir.h"
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

/* PoCL maps code from the cache (the kernels it links), so the directory must belong to the
 * user the workers run as and be writable by nobody else, that user must reach it, and every
 * directory above it must pass daemon/safedir.h's rule: created as root, what is missing is
 * made (0700) on descriptors and only then given to that user. */
static bool cache_try(const char *dir, const struct sandbox_user *owner)
{
	uid_t uid = owner ? owner->uid : geteuid();
	bool give = owner && owner->uid != geteuid();
	struct safedir_rule rule = { .owners = { 0, geteuid(), uid }, .n_owners = 3,
				     .create_mode = 0700,
				     .chown_uid = give ? owner->uid : (uid_t)-1,
				     .chown_gid = give ? owner->gid : (gid_t)-1 };
	char why[512];
	int fd = safedir_open(dir, &rule, why, sizeof(why));
	if (fd < 0) {
		log_warn("not using %s as the cache directory: %s", dir, why);
		return false;
	}
	struct stat st;
	int r = fstat(fd, &st);
	close(fd);
	if (r != 0 || st.st_uid != uid || (st.st_mode & 022)) {
		log_warn("not using %s as the cache directory: it belongs to uid %u with mode %04o "
			 "(it must belong to uid %u and be writable by no one else)", dir,
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)uid);
		return false;
	}
	r = sandbox_user_access(owner, dir, W_OK | X_OK);
	if (r != 0) {
		log_warn("not using %s as the cache directory: uid %u cannot write to it (%s)", dir,
			 (unsigned)uid, strerror(-r));
		return false;
	}
	return true;
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
