/* Process lockdown: no new privileges, not dumpable, no core files. */
#include "sandbox/sandbox.h"

#include <errno.h>
#include <sys/prctl.h>
#include <sys/resource.h>

/*
 * There is deliberately no seccomp filter yet. PoCL (the OpenCL CPU driver) JIT-compiles kernels
 * at their first enqueue, long after start-up: it spawns /usr/bin/ld from a worker thread and
 * dlopen()s the result from its cache directory, and it creates threads of its own. A useful
 * allow-list therefore has to admit execve/clone/wait4 and file creation in the cache (see
 * research/sandbox.md, 38 syscalls), must be installed with TSYNC, and is best paired with
 * Landlock applied before OpenCL starts any thread. Until that lands, the systemd unit's
 * SystemCallFilter and namespace settings are the syscall-level containment.
 */
int sandbox_enter(void)
{
	/* No setuid/file-capability gains through exec (PoCL's ld child included). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	/* Other processes of the same uid cannot ptrace us or read /proc/<pid>/mem; client
	 * tensors and graphs live in this address space. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		return -errno;
	/* Nor can a crash write them to disk. */
	struct rlimit rl = { 0, 0 };
	if (setrlimit(RLIMIT_CORE, &rl) != 0)
		return -errno;
	return 0;
}
