/* The front door: the listening socket, admission (peer credentials, allow-list, per-uid and
 * global caps), and one supervised device worker process per client uid that serves the
 * admitted connections directly. It never parses a client byte. */
#ifndef DAEMON_FRONTDOOR_H
#define DAEMON_FRONTDOOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <uv.h>

#include "daemon/config.h"
#include "daemon/control.h"
#include "daemon/front/pool.h"
#include "daemon/limits.h"

#define FRONTDOOR_MAX_ALLOW CONFIG_MAX_ALLOW

/* What the front door is configured with (main.c fills it from the command line). */
struct frontdoor_config {
	const struct daemon_limits *limits;
	struct spawner *spawner;    /* forks and execs the workers (daemon/front/spawner.h) */
	uid_t allow_uids[FRONTDOOR_MAX_ALLOW];
	gid_t allow_gids[FRONTDOOR_MAX_ALLOW];
	uint32_t n_allow_uids, n_allow_gids; /* both 0: every local user may connect */
	/* Workers at once, the spare included (max_workers, or fewer to fit the task limit), and
	 * what the refusal past it names. */
	uint32_t max_workers;
	char workers_why[256];
	int log_level; /* at the start (enum log_level): what the spawner's workers start with */
};

struct frontdoor_conn;
struct frontdoor_user;
struct spawner;

/* One device worker process (the worker of one uid). */
struct frontdoor_worker {
	struct frontdoor *door;
	struct frontdoor_worker *next;
	struct frontdoor_user *user; /* NULL while spare, and once retired */
	pid_t pid;
	uid_t uid;                   /* valid once bound to a user */
	bool bound, retired;
	int ctl;                     /* our end of its control socket */
	uv_poll_t ctl_poll;
	bool poll_init, polling;
	/* Its lease of all users' memory budget (daemon/budget.h), asked for on its own socket. */
	int lease_fd;                /* our end of its lease socket */
	uv_poll_t lease_poll;
	bool lease_poll_init, lease_polling;
	uint64_t lease;
	uint32_t lease_msgs;         /* lease messages this tick (a flood is throttled) */
	bool lease_throttled, lease_warned;
	uint32_t handles_open;       /* polls not yet closed: freed once both are */
	struct frontdoor_conn *conns; /* connections it serves (we keep their fds) */
	uint32_t n_conns;
	uint64_t spawned_ms, idle_since_ms, ready_ms;
	bool ready;
	char failure[CONTROL_REASON_MAX]; /* why it could not start (CONTROL_FAILED) */
};

struct frontdoor {
	uv_loop_t *loop;
	const struct frontdoor_config *cfg;
	int listen_fd;
	uv_poll_t listen_poll;
	bool listening, accepting;
	uv_timer_t tick;             /* retires idle workers, resumes accepting after EMFILE */
	int reserve_fd;              /* an fd given up to accept (and refuse) when the table is full */
	struct frontdoor_worker *workers;
	uint32_t n_workers;          /* started and not yet reaped (retiring ones included) */
	/* A started, unbound worker: a new user's first connection takes it (no cold start on
	 * that path) and another is started. The first one proves the configuration works. */
	struct frontdoor_worker *spare;
	void (*first_ready)(struct frontdoor *door, bool ok); /* the first spare's outcome */
	struct frontdoor_user *users;
	uint32_t n_conns;
	uint32_t n_pending;          /* accepted, waiting for their uid's turn (door_on_listen) */
	uint64_t next_conn_no;
	uint64_t paused_until_ms;
	uint64_t spare_retry_after_ms;
	uint32_t spare_failures;
	struct budget_pool pool;     /* all users' memory budget, leased to the workers */
	/* The settings every worker starts with (the front door's at its start: the spawner's
	 * environment), and the current ones, which a reload may have changed since. */
	struct daemon_limits start_limits;
	int start_log_level, log_level;
	bool stopping;
	bool finished;
	void (*stopped)(struct frontdoor *door); /* frontdoor_stop's callback */
};

/* Starts the first spare worker; once it is ready (first_ready(door, true)) accepts on fd
 * (bound by frontdoor_bind or inherited from systemd). first_ready(door, false): it died
 * starting, the daemon cannot serve. 0 or -errno. */
int frontdoor_start(struct frontdoor *door, uv_loop_t *loop, const struct frontdoor_config *cfg,
		    int listen_fd, void (*first_ready)(struct frontdoor *door, bool ok));
/* Stops accepting, tells every worker why (their clients' Goodbye: reason, with the signal
 * number for CONTROL_STOP_SIGNAL) and asks it to finish (SIGTERM, SIGKILL after 10 s);
 * `stopped` runs once the last one is reaped. */
void frontdoor_stop(struct frontdoor *door, enum control_stop_reason reason, int signum,
		    void (*stopped)(struct frontdoor *door));
/* A reload changed the limits (from `before`; cfg->limits holds the new ones) or the log
 * level: every worker, running or started later, gets the new values. */
void frontdoor_settings_changed(struct frontdoor *door, const struct daemon_limits *before,
				int log_level);
/* The users known (connected, or backing off) and the worker processes (spare included). */
void frontdoor_count(const struct frontdoor *door, uint32_t *users, uint32_t *workers);
/* Reaps workers that exited (the SIGCHLD handler calls it); their clients get a Goodbye. */
void frontdoor_reap(struct frontdoor *door);

/* Binds path with exactly this mode and group (gid (gid_t)-1: ours), creating its parent
 * directory; replaces a stale socket (ours, nobody answering on it). Every directory on the
 * path must pass daemon/safedir.h's rule with root, us and service_uid as trusted owners.
 * Returns the listening fd or -errno (logged). */
int frontdoor_bind(const char *path, mode_t mode, gid_t gid, uid_t service_uid);

#endif
