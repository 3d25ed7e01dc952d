/* The front door: accept, SO_PEERCRED admission, per-uid workers spawned, fed and supervised. */
#include "daemon/front/frontdoor.h"

#include "daemon/control.h"
#include "daemon/log.h"
#include "daemon/safedir.h"
#include "daemon/front/spawner.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A connection the front door admitted: its fd stays open here (the worker holds its own copy)
 * so that the door can tell the client why, should the worker die. */
struct frontdoor_conn {
	struct frontdoor_conn *next;
	uint64_t no;
	int fd;
};

/* A connection accepted and triaged (peer credentials read, caps checked) that waits for its
 * uid's turn to be handed to a worker. */
struct frontdoor_pending {
	struct frontdoor_pending *next;
	int fd;
	struct ucred cr;
};

/* Per-uid bookkeeping that outlives a worker: the connection count and the restart back-off. */
struct frontdoor_user {
	struct frontdoor_user *next;
	uid_t uid;
	uint32_t n_conns;
	struct frontdoor_worker *worker; /* the live, non-retired worker serving this uid */
	uint32_t failures;               /* workers that died before serving, in a row */
	uint64_t retry_after_ms;
	char failure[CONTROL_REASON_MAX + 96]; /* how the last of them ended */
	/* accepted, waiting for the hand-off (door_on_listen serves uids in turns) */
	struct frontdoor_pending *pending, *pending_tail;
	uint32_t n_pending;
};

#define TICK_MS 250
/* The listening socket's backlog, short: the kernel queues connections in arrival order
 * whoever makes them, so a uid that connects and closes as fast as it can keeps the backlog
 * full and another uid's connection waits behind all of it, or, full, in connect() until a
 * slot frees. With 16 instead of 128 the churner waits in connect() instead (bench_churn_fairness
 * interleaved with the 128 build, 15 rounds, load 5.7-6.5 on 2 cores: the other uid's
 * connect + Hello p99 beside bare churn 0.56x per round in two runs, 4.0 against 6.3 ms and
 * 2.2 against 4.4 ms, 0.5-1.0x its p99 beside two spinning processes instead of 1.0-2.4x; its
 * p50 1.4-2.5x, 0.41-0.43 against 0.20-0.24 ms).
 * Clients connect blocking and wait for a slot; packaging/webnnd.socket's Backlog= agrees. */
#define LISTEN_BACKLOG 16
/* Connections accepted per wake-up, at most (the backlog is 16); the triaged ones are handed
 * over after every ACCEPT_ROUND accepts, so that a connection waits for a few accepts, not a
 * whole batch refilled by a churning client as fast as it drains. */
#define ACCEPT_BATCH 256
#define ACCEPT_ROUND 16
#define EMFILE_PAUSE_MS 100
#define STOP_GRACE_MS 10000
/* Lease messages one worker may send per tick; past that its lease socket is not read until
 * the next tick. An honest worker asks once per chunk of memory, or once per refused charge. */
#define LEASE_MSGS_PER_TICK 2048

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* When a worker that failed failures times in a row may be started again: 250 ms after the
 * first failure, doubling up to 8 s. */
static uint64_t retry_after(uint32_t failures)
{
	uint32_t shift = failures < 6 ? failures : 6;
	return now_ms() + (125u << shift);
}

/* ---- binding */

/* The socket in the current directory (frontdoor_bind moved there): a private name bound
 * with exactly the configured mode, given its group, listening, then renamed into place, so
 * that nobody ever finds it half set up, and nothing is changed through a name another user
 * could have swapped (bind, fchownat without following, rename: none follows a symlink). */
static int bind_here(const char *path, const char *name, mode_t mode, gid_t gid,
		     const struct safedir_rule *rule)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	bool stale = false;
	if (lstat(name, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			log_error("%s exists and is not a socket; not replacing it", path);
			return -EEXIST;
		}
		bool trusted = false;
		for (int i = 0; i < rule->n_owners; i++)
			trusted |= rule->owners[i] == st.st_uid;
		if (!trusted) {
			log_error("%s is a socket of uid %u; not replacing it", path,
				  (unsigned)st.st_uid);
			return -EEXIST;
		}
		/* Only a socket nobody answers on is stale: never take over a live daemon's path. */
		memcpy(sa.sun_path, name, strlen(name) + 1);
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe < 0)
			return -errno;
		int c = connect(probe, (struct sockaddr *)&sa, sizeof(sa));
		int err = errno;
		close(probe);
		if (c == 0) {
			log_error("another webnnd is already serving %s", path);
			return -EADDRINUSE;
		}
		if (err != ECONNREFUSED && err != ENOENT) {
			log_error("cannot probe the existing socket %s: %s", path, strerror(err));
			return -err;
		}
		stale = err == ECONNREFUSED;
	}
	/* Unpredictable: in a sticky directory (/tmp) another user could otherwise take the name
	 * first and make the start fail. */
	char tmp[64];
	uint64_t rnd = 0;
	if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd = ((uint64_t)getpid() << 32) ^ (uint64_t)now_ms();
	snprintf(tmp, sizeof(tmp), ".webnnd-%016" PRIx64 ".binding", rnd);
	memcpy(sa.sun_path, tmp, strlen(tmp) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* bind() gives the new inode 0777 less the umask: exactly the configured mode, from the
	 * start (the process is single-threaded here). */
	mode_t old = umask(~mode & 0777);
	int r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	int err = errno;
	umask(old);
	bool bound = r == 0, logged = false;
	const char *what = "bind";
	if (r == 0 && gid != (gid_t)-1 && fchownat(AT_FDCWD, tmp, (uid_t)-1, gid,
						   AT_SYMLINK_NOFOLLOW) != 0) {
		err = errno;
		log_error("cannot give %s to group %u: %s", path, (unsigned)gid, strerror(err));
		r = -1;
		logged = true;
	}
	if (r == 0 && (lstat(tmp, &st) != 0 || !S_ISSOCK(st.st_mode) ||
		       (st.st_mode & 07777) != mode || (gid != (gid_t)-1 && st.st_gid != gid))) {
		err = EPERM;
		log_error("the new socket for %s is not what was bound (mode %04o, gid %u): "
			  "refusing it", path, (unsigned)(st.st_mode & 07777), (unsigned)st.st_gid);
		r = -1;
		logged = true;
	}
	if (r == 0 && listen(fd, LISTEN_BACKLOG) != 0) {
		err = errno;
		what = "listen";
		r = -1;
	}
	if (r == 0 && stale) {
		log_info("removing stale socket %s", path);
		unlink(name);
	}
	bool renamed = false;
	if (r == 0 && renameat2(AT_FDCWD, tmp, AT_FDCWD, name, RENAME_NOREPLACE) == 0) {
		renamed = true;
	} else if (r == 0) {
		err = errno;
		what = "rename";
		/* Filesystems without RENAME_NOREPLACE: a hard link is just as exclusive. */
		if (err == EINVAL)
			err = link(tmp, name) == 0 ? 0 : errno;
		if (err != 0)
			r = -1;
		if (err == EEXIST) {
			log_error("%s appeared while webnnd was binding it (another webnnd "
				  "starting?)", path);
			logged = true;
		}
	}
	/* Only while it is still ours: once renamed, the name is free for anyone to take. */
	if (bound && !renamed)
		unlink(tmp);
	if (r != 0) {
		if (!logged)
			log_error("cannot listen on %s (%s): %s", path, what, strerror(err));
		close(fd);
		return -err;
	}
	return fd;
}

int frontdoor_bind(const char *path, mode_t mode, gid_t gid, uid_t service_uid)
{
	struct sockaddr_un sa;
	char dir[sizeof(sa.sun_path)];
	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_error("socket path %s is longer than %zu bytes", path, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	const char *name = slash ? path + (slash - dir) + 1 : path;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		log_error("socket path %s does not end in a file name", path);
		return -EINVAL;
	}
	struct safedir_rule rule = { .owners = { 0, geteuid(), service_uid }, .n_owners = 3,
				     .create_mode = 0755, .chown_uid = (uid_t)-1,
				     .chown_gid = (gid_t)-1 };
	char why[512];
	int dfd = safedir_open(dir, &rule, why, sizeof(why));
	if (dfd < 0) {
		log_error("not binding %s: %s", path, why);
		return dfd;
	}
	/* Everything below by names relative to the checked directory, whatever becomes of the
	 * path meanwhile. */
	int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0 || fchdir(dfd) != 0) {
		int err = errno;
		log_error("cannot enter the directory of %s: %s", path, strerror(err));
		if (cwd >= 0)
			close(cwd);
		close(dfd);
		return -err;
	}
	int fd = bind_here(path, name, mode, gid, &rule);
	if (fchdir(cwd) != 0)
		log_warn("cannot return to the working directory: %s", strerror(errno));
	close(cwd);
	close(dfd);
	return fd;
}

/* ---- users and connections */

static struct frontdoor_user *user_get(struct frontdoor *door, uid_t uid, bool create)
{
	for (struct frontdoor_user *u = door->users; u; u = u->next)
		if (u->uid == uid)
			return u;
	if (!create)
		return NULL;
	struct frontdoor_user *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->uid = uid;
	u->next = door->users;
	door->users = u;
	return u;
}

/* A user with no connection, no worker and no pending back-off is forgotten. */
static void user_maybe_free(struct frontdoor *door, struct frontdoor_user *u)
{
	if (u->n_conns || u->n_pending || u->worker || u->retry_after_ms > now_ms())
		return;
	for (struct frontdoor_user **pp = &door->users; *pp; pp = &(*pp)->next)
		if (*pp == u) {
			*pp = u->next;
			free(u);
			return;
		}
}

static void refuse(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(int fd, const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	control_goodbye(fd, reason);
	close(fd);
}

static bool allowed(const struct frontdoor_config *cfg, int fd, const struct ucred *cr)
{
	if (cfg->n_allow_uids == 0 && cfg->n_allow_gids == 0)
		return true;
	for (uint32_t i = 0; i < cfg->n_allow_uids; i++)
		if (cfg->allow_uids[i] == cr->uid)
			return true;
	for (uint32_t i = 0; i < cfg->n_allow_gids; i++)
		if (cfg->allow_gids[i] == cr->gid)
			return true;
	if (cfg->n_allow_gids == 0)
		return false;
	/* Supplementary groups as of connect(): SO_PEERGROUPS (Linux 4.13). */
	gid_t groups[256];
	socklen_t len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0)
		return false;
	for (size_t g = 0; g < len / sizeof(gid_t); g++)
		for (uint32_t i = 0; i < cfg->n_allow_gids; i++)
			if (cfg->allow_gids[i] == groups[g])
				return true;
	return false;
}

/* ---- workers */

static void worker_on_control(uv_poll_t *h, int status, int events);
static void worker_read_last(struct frontdoor_worker *w);
static void worker_on_lease(uv_poll_t *h, int status, int events);
static void door_on_listen(uv_poll_t *h, int status, int events);

static void worker_poll_closed(uv_handle_t *h)
{
	struct frontdoor_worker *w = h->data;
	if (--w->handles_open == 0)
		free(w);
}

/* Drops a reaped worker: its clients learn why, its lease and counts are released. */
static void worker_gone(struct frontdoor *door, struct frontdoor_worker *w, const char *why)
{
	for (struct frontdoor_worker **pp = &door->workers; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			door->n_workers--;
			break;
		}
	struct frontdoor_user *u = w->bound ? user_get(door, w->uid, false) : NULL;
	uint32_t n = 0;
	while (w->conns) {
		struct frontdoor_conn *c = w->conns;
		w->conns = c->next;
		/* A worker killed in the middle of writing a frame leaves the stream torn: the
		 * client then reads EOF instead of this reason, and is lost all the same. */
		control_goodbye(c->fd, why);
		shutdown(c->fd, SHUT_RDWR);
		close(c->fd);
		free(c);
		n++;
	}
	door->n_conns -= n;
	if (u) {
		u->n_conns -= n < u->n_conns ? n : u->n_conns;
		if (u->worker == w)
			u->worker = NULL;
	}
	budget_pool_drop(&door->pool, &w->lease);
	close(w->ctl);
	close(w->lease_fd);
	w->handles_open = 1; /* until both polls are closed */
	if (w->poll_init) {
		w->handles_open++;
		w->polling = false;
		uv_poll_stop(&w->ctl_poll);
		w->ctl_poll.data = w;
		uv_close((uv_handle_t *)&w->ctl_poll, worker_poll_closed);
	}
	if (w->lease_poll_init) {
		w->handles_open++;
		w->lease_polling = false;
		uv_poll_stop(&w->lease_poll);
		w->lease_poll.data = w;
		uv_close((uv_handle_t *)&w->lease_poll, worker_poll_closed);
	}
	if (--w->handles_open == 0)
		free(w);
	if (u)
		user_maybe_free(door, u);
}

static void describe_exit(int st, char *out, size_t len)
{
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);
		snprintf(out, len, "killed by signal %d (%s)", sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	} else if (WIFEXITED(st) && WEXITSTATUS(st) == WORKER_EXIT_WATCHDOG) {
		snprintf(out, len, "stopped by the dispatch watchdog (a dispatch did not return)");
	} else if (WIFEXITED(st)) {
		snprintf(out, len, "exited with status %d", WEXITSTATUS(st));
	} else {
		snprintf(out, len, "ended (status %#x)", (unsigned)st);
	}
}

static void door_finish(struct frontdoor *door);

static void spare_replenish(struct frontdoor *door);

void frontdoor_reap(struct frontdoor *door)
{
	struct frontdoor_worker *w = door->workers;
	while (w) {
		struct frontdoor_worker *next = w->next;
		int st = 0;
		pid_t r;
		do
			r = waitpid(w->pid, &st, WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r == w->pid || (r < 0 && errno == ECHILD)) {
			char how[CONTROL_REASON_MAX + 64], why[CONTROL_REASON_MAX + 160];
			worker_read_last(w);
			if (w->failure[0])
				snprintf(how, sizeof(how), "could not start (%s)", w->failure);
			else if (r == w->pid)
				describe_exit(st, how, sizeof(how));
			else
				snprintf(how, sizeof(how), "vanished");
			bool starting = !w->ready && !w->failure[0];
			if (w == door->spare) {
				door->spare = NULL;
				door->spare_retry_after_ms = retry_after(++door->spare_failures);
				if (!door->stopping)
					log_error("spare worker %d %s%s", (int)w->pid, how,
						  starting ? " while starting" : "");
				if (door->first_ready) {
					void (*cb)(struct frontdoor *, bool) = door->first_ready;
					door->first_ready = NULL;
					cb(door, false);
				}
			} else if (!w->retired) {
				struct frontdoor_user *u = w->user;
				if (u && (starting || w->failure[0])) {
					snprintf(u->failure, sizeof(u->failure), "%s%s", how,
						 starting ? " while starting" : "");
					u->retry_after_ms = retry_after(++u->failures);
				} else if (u) {
					u->failures = 0;
				}
				if (door->stopping && r == w->pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
					log_debug("worker %d (uid %u) stopped", (int)w->pid, w->uid);
				else
					log_client_warn(w->uid, "worker %d (uid %u) %s%s; %u "
							"connection(s) lost", (int)w->pid, w->uid, how,
							starting ? " while starting" : "", w->n_conns);
			} else {
				log_debug("worker %d (uid %u) retired: %s", (int)w->pid, w->uid, how);
			}
			if (w->failure[0])
				snprintf(why, sizeof(why), "the device worker for uid %u could not "
					 "start: %s", w->uid, w->failure);
			else
				snprintf(why, sizeof(why), "the device worker for uid %u %s%s: its "
					 "contexts are lost", w->uid, how,
					 starting ? " while starting" : "");
			worker_gone(door, w, why);
		}
		w = next;
	}
	if (door->stopping && !door->workers && !door->finished)
		door_finish(door);
	else
		spare_replenish(door);
}

/* max_workers (or fewer, to fit the task limit) are running or starting. */
static bool workers_full(const struct frontdoor *door)
{
	return door->cfg->max_workers && door->n_workers >= door->cfg->max_workers;
}

static void send_setting(struct frontdoor_worker *w, const char *key, uint64_t value)
{
	struct control_msg m = { .type = CONTROL_SETTING, .no = value };
	snprintf(m.key, sizeof(m.key), "%s", key);
	int r = control_send(w->ctl, &m, -1);
	if (r < 0)
		log_warn("worker %d (uid %u) cannot take the new %s (%s): it keeps the old value",
			 (int)w->pid, w->uid, key, strerror(-r));
}

/* What differs between two sets of settings, sent to one worker (queued ahead of any
 * connection handed to it). */
static void send_settings(struct frontdoor_worker *w, const struct daemon_limits *from,
			  const struct daemon_limits *to, int level_from, int level_to)
{
	for (int i = 0; i < DAEMON_N_LIMITS; i++)
		if (daemon_limit_get(from, i) != daemon_limit_get(to, i))
			send_setting(w, daemon_limit_key(i), daemon_limit_get(to, i));
	if (level_from != level_to)
		send_setting(w, "log_level", (uint64_t)level_to);
}

void frontdoor_settings_changed(struct frontdoor *door, const struct daemon_limits *before,
				int log_level)
{
	for (struct frontdoor_worker *w = door->workers; w; w = w->next)
		send_settings(w, before, door->cfg->limits, door->log_level, log_level);
	door->log_level = log_level;
	budget_pool_set_limits(&door->pool, door->cfg->limits->max_total_bytes,
			       door->cfg->limits->max_uid_bytes);
}

/* Has the spawner start a spare worker (bound to a user by its first connection); its control
 * socket becomes fd 3 and its lease socket fd 4 there. It starts its backends and locks down
 * while connections handed to it queue up in the control socket. */
static struct frontdoor_worker *worker_spawn(struct frontdoor *door, char *why, size_t why_len)
{
	const struct frontdoor_config *cfg = door->cfg;
	if (workers_full(door)) {
		snprintf(why, why_len, "device worker limit: %u workers serve other users (%s)",
			 door->n_workers, cfg->workers_why);
		return NULL;
	}
	struct frontdoor_worker *w = calloc(1, sizeof(*w));
	int sv[2] = { -1, -1 }, lv[2] = { -1, -1 };
	if (!w || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, lv) != 0) {
		snprintf(why, why_len, "cannot create a device worker: %s",
			 w ? strerror(errno) : "out of memory");
		free(w);
		if (sv[0] >= 0) {
			close(sv[0]);
			close(sv[1]);
		}
		return NULL;
	}
	char limit[240];
	pid_t pid = spawner_spawn(cfg->spawner, sv[1], lv[1], limit, sizeof(limit));
	close(sv[1]);
	close(lv[1]);
	if (pid < 0 && limit[0]) {
		snprintf(why, why_len, "cannot start a device worker: the task limit (%s) is "
			 "reached", limit);
	} else if (pid < 0) {
		snprintf(why, why_len, "cannot start a device worker: %s",
			 pid == -ESRCH ? "the worker spawner is gone" : strerror((int)-pid));
	}
	if (pid < 0) {
		close(sv[0]);
		close(lv[0]);
		free(w);
		return NULL;
	}
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	fcntl(lv[0], F_SETFL, fcntl(lv[0], F_GETFL) | O_NONBLOCK);
	*w = (struct frontdoor_worker){ .door = door, .pid = pid, .ctl = sv[0], .lease_fd = lv[0],
					.spawned_ms = now_ms() };
	w->idle_since_ms = w->spawned_ms;
	if (uv_poll_init(door->loop, &w->ctl_poll, w->ctl) == 0) {
		w->ctl_poll.data = w;
		w->poll_init = w->polling = true;
		uv_poll_start(&w->ctl_poll, UV_READABLE, worker_on_control);
	}
	if (uv_poll_init(door->loop, &w->lease_poll, w->lease_fd) == 0) {
		w->lease_poll.data = w;
		w->lease_poll_init = w->lease_polling = true;
		uv_poll_start(&w->lease_poll, UV_READABLE, worker_on_lease);
	}
	w->next = door->workers;
	door->workers = w;
	door->n_workers++;
	/* It starts with the settings the spawner was given; a reload may have changed them. */
	send_settings(w, &door->start_limits, cfg->limits, door->start_log_level, door->log_level);
	log_debug("worker %d started", (int)pid);
	return w;
}

/* Keeps one spare worker starting or ready, unless spares keep dying (then it backs off). */
static void spare_replenish(struct frontdoor *door)
{
	if (door->spare || door->stopping || now_ms() < door->spare_retry_after_ms ||
	    workers_full(door))
		return;
	char why[384];
	door->spare = worker_spawn(door, why, sizeof(why));
	if (!door->spare) {
		log_error("%s", why);
		door->spare_retry_after_ms = now_ms() + 1000;
	}
}

static void worker_conn_closed(struct frontdoor *door, struct frontdoor_worker *w, uint64_t no)
{
	for (struct frontdoor_conn **pp = &w->conns; *pp; pp = &(*pp)->next) {
		struct frontdoor_conn *c = *pp;
		if (c->no != no)
			continue;
		*pp = c->next;
		close(c->fd);
		free(c);
		w->n_conns--;
		door->n_conns--;
		struct frontdoor_user *u = user_get(door, w->uid, false);
		if (u && u->n_conns)
			u->n_conns--;
		if (w->n_conns == 0)
			w->idle_since_ms = now_ms();
		return;
	}
	log_warn("worker %d (uid %u) reported an unknown connection %" PRIu64 " closed",
		 (int)w->pid, w->uid, no);
}

/* Keeps the reason a starting worker gave for not starting (CONTROL_FAILED). */
static void worker_failed(struct frontdoor_worker *w, struct control_msg *m)
{
	if (w->ready || w->failure[0])
		return;
	m->reason[sizeof(m->reason) - 1] = '\0';
	snprintf(w->failure, sizeof(w->failure), "%s", m->reason[0] ? m->reason : "no reason given");
}

/* A worker that exited, or will not take a connection, may have said why just before (its
 * SIGCHLD can come before its last message is read): reads what is left, sending nothing. */
static void worker_read_last(struct frontdoor_worker *w)
{
	for (int i = 0; i < 256 && !w->failure[0]; i++) {
		struct control_msg m;
		int fd;
		int r = control_recv(w->ctl, &m, &fd);
		if (fd >= 0)
			close(fd);
		if (r == -ECONNRESET)
			continue; /* see worker_on_control */
		if (r <= 0)
			return;
		if (m.type == CONTROL_FAILED)
			worker_failed(w, &m);
		else if (m.type == CONTROL_CLOSED)
			worker_conn_closed(w->door, w, m.no);
	}
}

/* A worker that broke its channels' rules is compromised or dying: SIGKILL, and its channels
 * are not read any more (the reaping that follows cleans up). */
static void worker_kill(struct frontdoor_worker *w)
{
	kill(w->pid, SIGKILL);
	if (w->polling) {
		w->polling = false;
		uv_poll_stop(&w->ctl_poll);
	}
	if (w->lease_polling) {
		w->lease_polling = false;
		uv_poll_stop(&w->lease_poll);
	}
	w->lease_throttled = false; /* not resumed by the tick */
}

static void worker_on_control(uv_poll_t *h, int status, int events)
{
	struct frontdoor_worker *w = h->data;
	struct frontdoor *door = w->door;
	(void)events;
	bool broken = status < 0;
	for (int i = 0; i < 256 && !broken; i++) {
		struct control_msg m;
		int fd;
		int r = control_recv(w->ctl, &m, &fd);
		if (r == -EAGAIN)
			return;
		if (fd >= 0)
			close(fd); /* workers never send fds */
		/* The worker exited with connections we handed it unread: the kernel reports that
		 * once, before the messages it sent last (CONTROL_FAILED's reason among them). */
		if (r == -ECONNRESET)
			continue;
		if (r <= 0) {
			/* EOF or garbage: the worker is dying or compromised; SIGCHLD will follow. */
			if (r < 0)
				log_warn("worker %d (uid %u) sent a bad control message; stopping it",
					 (int)w->pid, w->uid);
			broken = true;
		} else if (m.type == CONTROL_CLOSED) {
			worker_conn_closed(door, w, m.no);
		} else if (m.type == CONTROL_FAILED) {
			worker_failed(w, &m); /* it exits next; the reap tells its clients why */
		} else if (m.type == CONTROL_READY && !w->ready) {
			w->ready = true;
			w->ready_ms = now_ms();
			log_debug("worker %d ready in %" PRIu64 " ms", (int)w->pid,
				  w->ready_ms - w->spawned_ms);
			if (w == door->spare)
				door->spare_failures = 0;
			if (door->first_ready && w == door->spare) {
				void (*cb)(struct frontdoor *, bool) = door->first_ready;
				door->first_ready = NULL;
				door->listening = door->accepting = true;
				uv_poll_start(&door->listen_poll, UV_READABLE, door_on_listen);
				cb(door, true);
			}
		} else {
			log_warn("worker %d (uid %u) sent control message type %u; stopping it",
				 (int)w->pid, w->uid, m.type);
			broken = true;
		}
	}
	if (broken)
		worker_kill(w);
}

/* Leases of all users' memory budget (daemon/budget.h). Every message is hostile until
 * checked: a fixed-size datagram of a worker->door lease type, no fd; anything else stops the
 * worker. An ask past max_uid_bytes is refused (and logged once); a flood is read at
 * LEASE_MSGS_PER_TICK per tick; an answer the worker does not read is dropped, never waited
 * for. Nothing the door sends or keeps for a worker is writable by it. */
static void worker_on_lease(uv_poll_t *h, int status, int events)
{
	struct frontdoor_worker *w = h->data;
	struct frontdoor *door = w->door;
	(void)events;
	bool broken = status < 0;
	for (int i = 0; i < 64 && !broken; i++) {
		if (w->lease_msgs >= LEASE_MSGS_PER_TICK) {
			if (!w->lease_throttled)
				log_debug("worker %d (uid %u): over %d lease messages per %d ms; "
					  "throttled", (int)w->pid, w->uid, LEASE_MSGS_PER_TICK,
					  TICK_MS);
			w->lease_throttled = true;
			w->lease_polling = false;
			uv_poll_stop(&w->lease_poll);
			return;
		}
		struct control_msg m;
		int fd;
		int r = control_recv(w->lease_fd, &m, &fd);
		if (r == -EAGAIN)
			return;
		w->lease_msgs++;
		if (fd >= 0) {
			close(fd);
			r = -EPROTO;
		}
		if (r <= 0) {
			if (r < 0)
				log_warn("worker %d (uid %u) sent a bad lease message; stopping it",
					 (int)w->pid, w->uid);
			broken = true;
		} else if (m.type == CONTROL_LEASE_ASK) {
			if (!budget_pool_ask(&door->pool, &w->lease, m.lease_min, m.lease) &&
			    !w->lease_warned) {
				w->lease_warned = true;
				log_warn("worker %d (uid %u) asked for a lease of %" PRIu64 " bytes "
					 "(at least %" PRIu64 "): over max_uid_bytes %" PRIu64
					 ", refused", (int)w->pid, w->uid, m.lease, m.lease_min,
					 door->pool.max_uid);
			}
			struct control_msg g = { .type = CONTROL_LEASE_GRANT, .no = m.no,
						 .lease = w->lease, .pool_used = door->pool.leased };
			control_send(w->lease_fd, &g, -1); /* not read: the worker's loss */
		} else if (m.type == CONTROL_LEASE_RETURN) {
			budget_pool_return(&door->pool, &w->lease, m.lease);
		} else {
			log_warn("worker %d (uid %u) sent lease message type %u; stopping it",
				 (int)w->pid, w->uid, m.type);
			broken = true;
		}
	}
	if (broken)
		worker_kill(w);
}

/* ---- accepting */

/* Whether the client already hung up (connect, then close: churn). Such a connection is
 * closed here, costing its worker nothing: no hand-off, no wake-up, no close report. */
static bool peer_gone(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

/* The cheap part of admission, done for every connection as it is accepted: credentials,
 * allow-list, caps (counting connections still waiting for their hand-off). Admitted
 * connections wait in their uid's queue. */
static void door_triage(struct frontdoor *door, int fd)
{
	const struct daemon_limits *lim = door->cfg->limits;
	if (peer_gone(fd)) {
		close(fd);
		return;
	}
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0) {
		refuse(fd, "cannot read the peer's credentials: %s", strerror(errno));
		return;
	}
	if (!allowed(door->cfg, fd, &cr)) {
		log_client_info(cr.uid, "refused pid %d: uid %u (gid %u) is not allowed", (int)cr.pid,
				cr.uid, cr.gid);
		refuse(fd, "uid %u (gid %u) is not allowed to use webnnd", cr.uid, cr.gid);
		return;
	}
	uint32_t n_all = door->n_conns + door->n_pending;
	if (n_all >= lim->max_connections) {
		log_client_warn(cr.uid, "refused pid %d (uid %u): %u connections (max_connections)",
				(int)cr.pid, cr.uid, n_all);
		refuse(fd, "connection limit: %u connections (max_connections)", n_all);
		return;
	}
	struct frontdoor_user *u = user_get(door, cr.uid, true);
	struct frontdoor_pending *p = u ? calloc(1, sizeof(*p)) : NULL;
	if (!p) {
		refuse(fd, "webnnd is out of memory");
		if (u)
			user_maybe_free(door, u);
		return;
	}
	uint32_t n_uid = u->n_conns + u->n_pending;
	if (n_uid >= lim->max_connections_per_uid) {
		free(p);
		log_client_warn(cr.uid, "refused pid %d: uid %u already has %u connections "
				"(max_connections_per_uid)", (int)cr.pid, cr.uid, n_uid);
		refuse(fd, "connection limit: uid %u already has %u connections "
			   "(max_connections_per_uid)", cr.uid, n_uid);
		return;
	}
	*p = (struct frontdoor_pending){ .fd = fd, .cr = cr };
	if (u->pending_tail)
		u->pending_tail->next = p;
	else
		u->pending = p;
	u->pending_tail = p;
	u->n_pending++;
	door->n_pending++;
}

/* Hands one triaged connection to its uid's worker (starting one when the uid has none). */
static void door_hand_off(struct frontdoor *door, struct frontdoor_user *u)
{
	struct frontdoor_pending *p = u->pending;
	u->pending = p->next;
	if (!u->pending)
		u->pending_tail = NULL;
	u->n_pending--;
	door->n_pending--;
	int fd = p->fd;
	struct ucred cr = p->cr;
	free(p);
	uint64_t now = now_ms();
	struct frontdoor_worker *w = u->worker;
	if (!w) {
		if (u->retry_after_ms > now) {
			refuse(fd, "the device worker for uid %u failed %u time(s) in a row, the last "
				   "one %s; retrying in %" PRIu64 " ms", cr.uid, u->failures,
			       u->failure, u->retry_after_ms - now);
			user_maybe_free(door, u);
			return;
		}
		char why[384];
		w = door->spare;
		door->spare = NULL;
		if (!w)
			w = worker_spawn(door, why, sizeof(why));
		if (!w) {
			log_client_error(cr.uid, "uid %u: %s", cr.uid, why);
			refuse(fd, "%s", why);
			user_maybe_free(door, u);
			return;
		}
		w->user = u;
		w->uid = u->uid;
		w->bound = true;
		u->worker = w;
		log_client_info(cr.uid, "worker %d serves uid %u", (int)w->pid, (unsigned)u->uid);
		spare_replenish(door);
	}
	struct frontdoor_conn *c = calloc(1, sizeof(*c));
	if (!c) {
		refuse(fd, "webnnd is out of memory");
		user_maybe_free(door, u);
		return;
	}
	c->no = ++door->next_conn_no;
	c->fd = fd;
	struct control_msg m = { .type = CONTROL_CONNECTION, .uid = cr.uid, .gid = cr.gid,
				 .pid = cr.pid, .no = c->no };
	int r = w->failure[0] ? -EPIPE : control_send(w->ctl, &m, fd);
	if (r < 0) {
		free(c);
		worker_read_last(w);
		if (w->failure[0])
			refuse(fd, "the device worker for uid %u could not start: %s", cr.uid,
			       w->failure);
		else
			refuse(fd, "the device worker for uid %u is not taking connections (%s)",
			       cr.uid, strerror(-r));
		user_maybe_free(door, u);
		return;
	}
	c->next = w->conns;
	w->conns = c;
	w->n_conns++;
	u->n_conns++;
	door->n_conns++;
	log_debug("connection %" PRIu64 " (pid %d, uid %u) -> worker %d", c->no, (int)cr.pid,
		  cr.uid, (int)w->pid);
}

/* Hands the triaged connections over, one per uid in turn: a uid churning connections queues
 * behind itself, and another uid's connection accepted in the same pass goes out among the
 * first. */
static void door_hand_off_all(struct frontdoor *door)
{
	while (door->n_pending) {
		for (struct frontdoor_user *u = door->users, *next; u; u = next) {
			next = u->next;
			if (u->n_pending)
				door_hand_off(door, u);
		}
	}
}

static void door_pause(struct frontdoor *door, uint64_t ms)
{
	door->paused_until_ms = now_ms() + ms;
	if (door->accepting) {
		door->accepting = false;
		uv_poll_stop(&door->listen_poll);
	}
}

static void door_on_listen(uv_poll_t *h, int status, int events)
{
	struct frontdoor *door = h->data;
	(void)events;
	if (status < 0) {
		log_error("listening socket error: %s", uv_strerror(status));
		door_pause(door, EMFILE_PAUSE_MS);
		return;
	}
	/* Connections are accepted and triaged a few at a time (cheap: a churner's connections
	 * that already hung up end there), then handed over in turns per uid; the cap keeps the
	 * loop answering its workers while a flood refills the backlog as fast as it drains. */
	for (int i = 0; i < ACCEPT_BATCH && door->accepting; i++) {
		int fd = accept4(door->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd >= 0) {
			door_triage(door, fd);
			if ((i + 1) % ACCEPT_ROUND == 0)
				door_hand_off_all(door);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		if (errno == EMFILE || errno == ENFILE) {
			/* Level-triggered polling would spin on the pending connection: give up the
			 * reserve fd to take it and say why, then stop accepting for a moment. */
			int err = errno;
			if (door->reserve_fd >= 0) {
				close(door->reserve_fd);
				door->reserve_fd = -1;
				int c = accept4(door->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
				if (c >= 0)
					refuse(c, "webnnd is out of file descriptors (%s); try again later",
					       strerror(err));
				door->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			}
			log_client_warn(LOG_ANY_UID, "accept: %s; pausing for %d ms", strerror(err),
					EMFILE_PAUSE_MS);
			door_pause(door, EMFILE_PAUSE_MS);
			break;
		}
		log_client_warn(LOG_ANY_UID, "accept: %s; pausing for %d ms", strerror(errno),
				EMFILE_PAUSE_MS);
		door_pause(door, EMFILE_PAUSE_MS);
		break;
	}
	door_hand_off_all(door);
}

static void door_on_tick(uv_timer_t *t)
{
	struct frontdoor *door = t->data;
	uint64_t now = now_ms();
	if (!door->stopping && door->listening && !door->accepting && !door->first_ready &&
	    now >= door->paused_until_ms) {
		if (door->reserve_fd < 0)
			door->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		door->accepting = true;
		uv_poll_start(&door->listen_poll, UV_READABLE, door_on_listen);
	}
	for (struct frontdoor_worker *w = door->workers; w; w = w->next) {
		w->lease_msgs = 0;
		if (w->lease_throttled) {
			w->lease_throttled = false;
			w->lease_polling = true;
			uv_poll_start(&w->lease_poll, UV_READABLE, worker_on_lease);
		}
	}
	for (struct frontdoor_worker *w = door->workers; w; w = w->next) {
		if (door->stopping || !w->user || w->retired || w->n_conns || !w->ready)
			continue;
		if (now - w->idle_since_ms >= door->cfg->limits->worker_idle_ms) {
			log_debug("worker %d (uid %u) idle for %" PRIu64 " ms: retiring it",
				  (int)w->pid, w->uid, now - w->idle_since_ms);
			struct frontdoor_user *u = w->user;
			u->worker = NULL;
			w->user = NULL;
			w->retired = true;
			kill(w->pid, SIGTERM);
			user_maybe_free(door, u);
		}
	}
	spare_replenish(door);
	log_limit_flush(false);
	if (door->stopping && now - door->paused_until_ms >= STOP_GRACE_MS) {
		for (struct frontdoor_worker *w = door->workers; w; w = w->next) {
			log_warn("worker %d (uid %u) did not stop within %d ms: killing it",
				 (int)w->pid, w->uid, STOP_GRACE_MS);
			kill(w->pid, SIGKILL);
		}
		door->paused_until_ms = now; /* once per grace period */
	}
}

int frontdoor_start(struct frontdoor *door, uv_loop_t *loop, const struct frontdoor_config *cfg,
		    int listen_fd, void (*first_ready)(struct frontdoor *door, bool ok))
{
	*door = (struct frontdoor){ .loop = loop, .cfg = cfg, .listen_fd = listen_fd,
				    .reserve_fd = -1, .first_ready = first_ready,
				    .start_limits = *cfg->limits, .start_log_level = cfg->log_level,
				    .log_level = cfg->log_level };
	budget_pool_init(&door->pool, cfg->limits->max_total_bytes, cfg->limits->max_uid_bytes);
	int fl = fcntl(listen_fd, F_GETFL);
	if (fl < 0 || fcntl(listen_fd, F_SETFL, fl | O_NONBLOCK) != 0)
		return -errno;
	door->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int r = uv_poll_init(loop, &door->listen_poll, listen_fd);
	if (r != 0)
		return r;
	door->listen_poll.data = door;
	uv_timer_init(loop, &door->tick);
	door->tick.data = door;
	uv_timer_start(&door->tick, door_on_tick, TICK_MS, TICK_MS);
	char why[384];
	door->spare = worker_spawn(door, why, sizeof(why));
	if (!door->spare) {
		log_error("%s", why);
		return -ECHILD;
	}
	return 0;
}

static void door_finish(struct frontdoor *door)
{
	door->finished = true;
	if (door->reserve_fd >= 0)
		close(door->reserve_fd);
	door->reserve_fd = -1;
	uv_timer_stop(&door->tick);
	uv_close((uv_handle_t *)&door->tick, NULL);
	while (door->users) {
		struct frontdoor_user *u = door->users;
		door->users = u->next;
		while (u->pending) {
			struct frontdoor_pending *p = u->pending;
			u->pending = p->next;
			close(p->fd);
			free(p);
		}
		free(u);
	}
	void (*cb)(struct frontdoor *) = door->stopped;
	door->stopped = NULL;
	if (cb)
		cb(door);
}

void frontdoor_stop(struct frontdoor *door, enum control_stop_reason reason, int signum,
		    void (*stopped)(struct frontdoor *door))
{
	if (door->stopping)
		return;
	door->stopping = true;
	door->paused_until_ms = now_ms(); /* the grace period starts now */
	door->first_ready = NULL;
	door->listening = door->accepting = false;
	if (!uv_is_closing((uv_handle_t *)&door->listen_poll)) {
		uv_poll_stop(&door->listen_poll);
		uv_close((uv_handle_t *)&door->listen_poll, NULL);
	}
	door->stopped = stopped;
	if (!door->workers) {
		door_finish(door);
		return;
	}
	/* The reason first: the worker reads it (its clients' Goodbye) when the SIGTERM comes. */
	struct control_msg m = { .type = CONTROL_STOP, .uid = (uint32_t)reason, .pid = signum };
	for (struct frontdoor_worker *w = door->workers; w; w = w->next) {
		control_send(w->ctl, &m, -1);
		kill(w->pid, SIGTERM);
	}
}

void frontdoor_count(const struct frontdoor *door, uint32_t *users, uint32_t *workers)
{
	*users = *workers = 0;
	for (const struct frontdoor_user *u = door->users; u; u = u->next)
		(*users)++;
	for (const struct frontdoor_worker *w = door->workers; w; w = w->next)
		(*workers)++;
}
