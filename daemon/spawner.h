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
 */
#define SPAWNER_STRAYS 8

struct spawner {
	pid_t pid;
	int sock;     /* the front door's end */
	uint32_t seq; /* request numbers (a late answer to a timed-out request is skipped) */
	pid_t strays[SPAWNER_STRAYS]; /* forked after their request timed out: killed, reaped */
};

/* Forks the spawner, which runs workers as exe with argv. 0 or -errno. */
int spawner_start(struct spawner *sp, const char *exe, char **argv);
/* Starts a worker with ctl_fd as its fd 3 (CONTROL_WORKER_FD) and lease_fd as its fd 4
 * (CONTROL_LEASE_FD). Returns its pid (our child), or -errno. Blocks for the fork only. A fork
 * refused with EAGAIN at a task limit names the limit in `limit` ("pids.max=256 of ..., 256
 * in use"; empty otherwise). */
pid_t spawner_spawn(struct spawner *sp, int ctl_fd, int lease_fd, char *limit, size_t limit_len);
/* From the SIGCHLD handler: reaps strays, and the spawner if it died (true: no worker can
 * start any more). */
bool spawner_reap(struct spawner *sp);
/* Closes the channel (the spawner exits) and reaps it. */
void spawner_stop(struct spawner *sp);

#endif
