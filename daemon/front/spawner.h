/* The worker spawner: a child forked before the front door locks down that starts workers. */
#ifndef DAEMON_SPAWNER_H
#define DAEMON_SPAWNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Seccomp filters and Landlock domains are inherited across fork and exec, so a worker the
 * front door forked itself would run under the front door's lists as well as its own, and the
 * front door's list would have to admit everything a worker does. The spawner is forked once,
 * after the privilege drop and before the front door's lockdown; it forks each worker with
 * CLONE_PARENT, so that the worker is still the front door's child (its SIGCHLD, waitpid and
 * /proc/<pid>/task/<pid>/children), and execs it. It reads nothing but the front door's
 * fixed-size requests on a socketpair.
 *
 * The front door cannot fork a clean spawner after its lockdown (the child would inherit its
 * filters, and fork is not in them), so a standby spawner waits beside the primary one: when
 * the primary dies the standby takes over and forks the next standby (CLONE_PARENT again: the
 * front door's child), whose channel comes back over SCM_RIGHTS. Only both dying at once (or
 * the standby unable to fork) leaves the front door without one.
 */
#define SPAWNER_STRAYS 16

struct spawner_proc {
	pid_t pid;
	int sock; /* the front door's end of its channel */
};

struct spawner {
	struct spawner_proc primary, standby;
	uint32_t seq; /* request numbers (a late answer to a timed-out request is skipped) */
	uint32_t replaced; /* primaries that died and were replaced by their standby */
	pid_t strays[SPAWNER_STRAYS]; /* forked after their request timed out, or given up on:
					 killed, reaped */
};

/* Forks the spawner, which forks its standby; both run workers as exe with argv. 0 or
 * -errno. */
int spawner_start(struct spawner *sp, const char *exe, char **argv);
/* Starts a worker with ctl_fd as its fd 3 (CONTROL_WORKER_FD) and lease_fd as its fd 4
 * (CONTROL_LEASE_FD). Returns its pid (our child), or -errno. Blocks for the fork only. A fork
 * refused with EAGAIN at a task limit names the limit in `limit` ("pids.max=256 of ..., 256
 * in use"; empty otherwise). */
pid_t spawner_spawn(struct spawner *sp, int ctl_fd, int lease_fd, char *limit, size_t limit_len);
/* From the SIGCHLD handler: reaps strays and dead spawners, promotes the standby, starts a
 * new standby (true: the last spawner died, no worker can start any more). */
bool spawner_reap(struct spawner *sp);
/* Closes the channels (the spawners exit) and reaps them. */
void spawner_stop(struct spawner *sp);

#endif
