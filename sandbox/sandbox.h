/* Process lockdown: no_new_privs, inherited fds, the service user, Landlock and seccomp. */
#ifndef SANDBOX_SANDBOX_H
#define SANDBOX_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* ---- the first lines of main(), before anything can start a thread */

/* PR_SET_NO_NEW_PRIVS: no exec (PoCL's ld included) gains privileges, for every thread and
 * child started later. 0 or -errno. */
int sandbox_no_new_privs(void);
/* Closes every descriptor but 0-2 and [keep_first, keep_first + n_keep). */
void sandbox_close_inherited_fds(int keep_first, int n_keep);

/* ---- the service user */

#define SANDBOX_MAX_GROUPS 64

struct sandbox_user {
	bool drop;      /* started as root: setresuid to uid (false: stay who we are) */
	uid_t uid;
	gid_t gid;
	gid_t groups[SANDBOX_MAX_GROUPS]; /* supplementary groups (render, video: GPU nodes) */
	int n_groups;
	char name[64];
};

/* Who the daemon runs as. Started as root: `name` (NULL: "webnn" when that user exists, else
 * "nobody"; "root" or any uid 0 keeps root). Otherwise the current user, and a `name` that is
 * someone else is an error. 0, or -1 with why. */
int sandbox_user_resolve(const char *name, struct sandbox_user *u, char *why, size_t why_len);
/* access(path, mode) as u would get it (with u's ids and groups, though we may still be root).
 * 0 or -errno. */
int sandbox_user_access(const struct sandbox_user *u, const char *path, int mode);
/* When u->drop: empties the capability bounding set, then sets u's groups, gid and uid, and
 * checks that neither root's uid nor its gid can be regained. 0, or -1 with why. */
int sandbox_drop_privileges(const struct sandbox_user *u, char *why, size_t why_len);

/* ---- lockdown */

/* Not dumpable (every worker runs as the one service user: no ptrace, no /proc/<pid>/mem of a
 * worker by another), and no core files. 0 or -errno. */
int sandbox_harden_process(void);

/* The running kernel's Landlock ABI version (> 0), or -errno (ENOSYS, EOPNOTSUPP: none). */
int sandbox_landlock_abi(void);

enum sandbox_role {
	SANDBOX_WORKER,    /* device worker: backends, drivers, the clients' bytes */
	SANDBOX_FRONTDOOR, /* accepts and hands connections on; never parses a client byte */
};

#define SANDBOX_MAX_PATHS 4

/* What a process may touch on the filesystem besides the fixed system paths of its role. */
struct sandbox_fs_rules {
	const char *writable[SANDBOX_MAX_PATHS]; /* worker: read-write directories (the caches) */
	/* worker: extra read-only directories; front door: directories whose files it may read
	 * (the configuration file's, for a reload) */
	const char *readable[SANDBOX_MAX_PATHS];
	bool compiler; /* worker: exec /usr/bin/ld and the ELF interpreter (PoCL links kernels) */
	bool devices;  /* worker: GPU and accelerator device nodes read-write */
	const char *removable_in; /* front door: a directory it unlinks from (its socket's) */
};

/* Landlock for the calling thread and everything it starts later: call it before any thread
 * exists. 0 applied, 1 Landlock is not available (nothing applied), -1 with why. */
int sandbox_restrict_fs(enum sandbox_role role, const struct sandbox_fs_rules *r, char *why,
			size_t why_len);

struct sandbox_syscall_rules {
	bool compiler; /* worker: vfork + execve + wait4 for PoCL's ld */
	bool gpu;      /* worker: ioctl with any request (GPU drivers) */
};

/* A seccomp allow-list on every thread of the process (TSYNC) and its future children; any
 * other syscall kills the process (SIGSYS). Returns the number of syscalls allowed, or -1 with
 * why. */
int sandbox_restrict_syscalls(enum sandbox_role role, const struct sandbox_syscall_rules *r,
			      char *why, size_t why_len);

#ifdef WNN_TEST_HOOKS
/* Test builds only (webnnd-testhooks): a Hello whose client_name is "wnn-test:ACTION" makes
 * the worker try something its lockdown must refuse and returns true with what happened in
 * reply (sent back as the HelloReply's server_name). ACTION: "open:PATH" (open read-only),
 * "exec:PATH" (spawn it), "socket-inet" (socket(AF_INET): the filter kills the worker). */
bool sandbox_test_hook(const char *client_name, char *reply, size_t reply_len);
#endif

#endif
