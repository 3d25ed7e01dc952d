/* The worker spawner: a child forked before the front door locks down that starts workers. */
#include "daemon/front/spawner.h"

#include "daemon/control.h"
#include "daemon/log.h"
#include "daemon/tasks.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The front door waits this long for a fork; past it the worker counts as not started. */
#define SPAWN_TIMEOUT_MS 5000

enum spawn_kind {
	SPAWN_WORKER = 1,  /* fork and exec a worker with the request's fds */
	SPAWN_SPAWNER = 2, /* fork a new spawner; its channel's other end comes back */
};

struct spawn_request {
	uint32_t seq;
	uint32_t kind;
};

struct spawn_reply {
	uint32_t seq;
	int32_t pid; /* or -errno */
	char limit[240]; /* -EAGAIN: the task limit that refused the fork, when one is reached */
};

static int send_fds(int sock, const void *buf, size_t len, const int *fds, int n_fds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} cm;
	memset(&cm, 0, sizeof(cm));
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (n_fds > 0) {
		msg.msg_control = cm.buf;
		msg.msg_controllen = CMSG_SPACE((size_t)n_fds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)n_fds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)n_fds * sizeof(int));
	}
	ssize_t r;
	do
		r = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)len ? 0 : r < 0 ? -errno : -EPROTO;
}

/* One request and up to two fds (close-on-exec); extra fds are closed. */
static ssize_t recv_request(int sock, struct spawn_request *rq, int fds[2], int *n_fds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} cm;
	struct iovec iov = { .iov_base = rq, .iov_len = sizeof(*rq) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
			      .msg_controllen = sizeof(cm.buf) };
	ssize_t r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	*n_fds = 0;
	if (r < 0)
		return r;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*n_fds < 2)
				fds[(*n_fds)++] = fd;
			else
				close(fd);
		}
	}
	return r;
}

/* Forks (as a sibling) and execs one worker; runs in the spawner. */
static pid_t spawn_one(pid_t door, int ctl, int lease, const char *exe, char **argv)
{
	/* The spawner is single-threaded and the child only execs: a raw clone is a fork. */
	long pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, 0);
	if (pid != 0)
		return pid < 0 ? -errno : (pid_t)pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Not a spawner (ps, and whoever looks for one) in the moment before the exec. */
	prctl(PR_SET_NAME, "wnn-exec", 0, 0, 0);
	if (getppid() != door)
		_exit(1);
	/* Moved out of the way first, so that the dup2s below cannot clobber either. */
	int c = fcntl(ctl, F_DUPFD, 16);
	int l = fcntl(lease, F_DUPFD, 16);
	if (c < 0 || l < 0 || dup2(c, CONTROL_WORKER_FD) < 0 || dup2(l, CONTROL_LEASE_FD) < 0)
		_exit(1);
	sandbox_close_inherited_fds(CONTROL_WORKER_FD, 2);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execv(exe, argv);
	_exit(127);
}

static _Noreturn void spawner_main(int sock, pid_t door, const char *exe, char **argv);

/* A new spawner's start in the child of fork or clone: it dies with its parent (and quits if
 * that already happened), keeps only its end sv[1] of the channel and serves it. */
static _Noreturn void spawner_child(const int sv[2], pid_t door, const char *exe, char **argv)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != door)
		_exit(0);
	close(sv[0]);
	int s = sv[1];
	if (s < 3) { /* keep it above stdio for the close below */
		s = fcntl(s, F_DUPFD_CLOEXEC, 3);
		if (s < 0)
			_exit(1);
	}
	sandbox_close_inherited_fds(s, 1);
	spawner_main(s, door, exe, argv);
}

/* Forks (as a sibling: CLONE_PARENT, the front door reaps it) a new spawner on a new channel,
 * whose other end *door_end becomes; runs in a spawner, which, unlike the front door, is
 * under no filter and may fork. */
static pid_t spawn_spawner(int sock, pid_t door, const char *exe, char **argv, int *door_end)
{
	int sv[2];
	*door_end = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -errno;
	long pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, 0);
	if (pid < 0) {
		int err = errno;
		close(sv[0]);
		close(sv[1]);
		return -err;
	}
	if (pid == 0) {
		close(sock);
		spawner_child(sv, door, exe, argv);
	}
	close(sv[1]);
	*door_end = sv[0];
	return (pid_t)pid;
}

static _Noreturn void spawner_main(int sock, pid_t door, const char *exe, char **argv)
{
	prctl(PR_SET_NAME, "wnn-spawner", 0, 0, 0);
	for (;;) {
		struct spawn_request rq;
		int fds[2], n = 0;
		ssize_t r = recv_request(sock, &rq, fds, &n);
		if (r == 0)
			_exit(0); /* the front door closed the channel, or is gone */
		if (r < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		struct spawn_reply rp = { .seq = rq.seq, .pid = -EPROTO };
		int back = -1;
		if (r == (ssize_t)sizeof(rq) && rq.kind == SPAWN_WORKER && n == 2)
			rp.pid = spawn_one(door, fds[0], fds[1], exe, argv);
		else if (r == (ssize_t)sizeof(rq) && rq.kind == SPAWN_SPAWNER && n == 0)
			rp.pid = spawn_spawner(sock, door, exe, argv, &back);
		if (rp.pid == -EAGAIN) {
			/* The front door cannot look (its Landlock domain): the spawner names it. */
			struct tasks_limit lim;
			tasks_limit_read(getuid(), &lim);
			if (lim.available >= 0 && lim.available <= 1)
				snprintf(rp.limit, sizeof(rp.limit), "%s, %ld in use", lim.what,
					 lim.in_use);
		}
		for (int i = 0; i < n; i++)
			close(fds[i]);
		int sent = send_fds(sock, &rp, sizeof(rp), &back, back >= 0 ? 1 : 0);
		if (back >= 0)
			close(back);
		if (sent != 0)
			_exit(1);
	}
}

/* Forks the first spawner (the front door's own fork: before its lockdown, it still may). */
static int spawner_fork(struct spawner_proc *pr, const char *exe, char **argv)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -errno;
	pid_t door = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		close(sv[0]);
		close(sv[1]);
		return -err;
	}
	if (pid == 0)
		spawner_child(sv, door, exe, argv);
	close(sv[1]);
	pr->pid = pid;
	pr->sock = sv[0];
	return 0;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A process this side gave up on: killed, and reaped later by spawner_reap. */
static void stray_add(struct spawner *sp, pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	for (size_t i = 0; i < SPAWNER_STRAYS; i++)
		if (sp->strays[i] <= 0) {
			sp->strays[i] = pid;
			return;
		}
	log_warn("more than %d processes to reap later: %d stays a zombie", SPAWNER_STRAYS,
		 (int)pid);
}

/* One reply to seq on pr's channel, with the fd it may carry (*fd_back, -1: none). */
static pid_t await_reply(struct spawner *sp, struct spawner_proc *pr, uint32_t seq,
			 int *fd_back, char *limit, size_t limit_len)
{
	uint64_t deadline = mono_ms() + SPAWN_TIMEOUT_MS;
	for (;;) {
		uint64_t now = mono_ms();
		if (now >= deadline)
			return -ETIMEDOUT;
		struct pollfd p = { .fd = pr->sock, .events = POLLIN };
		int n = poll(&p, 1, (int)(deadline - now));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ETIMEDOUT;
		struct spawn_reply rp;
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(2 * sizeof(int))];
		} cm;
		struct iovec iov = { .iov_base = &rp, .iov_len = sizeof(rp) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
				      .msg_controllen = sizeof(cm.buf) };
		ssize_t got = recvmsg(pr->sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			return got == 0 ? -EPIPE : -errno;
		int fds[2], n_fds = 0;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < k && n_fds < 2; i++)
				memcpy(&fds[n_fds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
		}
		if (got != (ssize_t)sizeof(rp) || rp.seq != seq || n_fds > (fd_back ? 1 : 0)) {
			for (int i = 0; i < n_fds; i++)
				close(fds[i]);
			if (got != (ssize_t)sizeof(rp))
				return -EPROTO;
			/* A process forked after its request timed out: the front door gave up on
			 * it (and closed its channel), so it goes, and is reaped later. */
			stray_add(sp, rp.pid);
			continue;
		}
		if (limit_len) {
			rp.limit[sizeof(rp.limit) - 1] = '\0';
			snprintf(limit, limit_len, "%s", rp.limit);
		}
		if (fd_back)
			*fd_back = n_fds ? fds[0] : -1;
		if (fd_back && rp.pid > 0 && *fd_back < 0)
			return -EPROTO;
		return rp.pid;
	}
}

static pid_t request(struct spawner *sp, struct spawner_proc *pr, uint32_t kind, const int *fds,
		     int n_fds, int *fd_back, char *limit, size_t limit_len)
{
	if (pr->sock < 0)
		return -ESRCH;
	struct spawn_request rq = { .seq = ++sp->seq, .kind = kind };
	int r = send_fds(pr->sock, &rq, sizeof(rq), fds, n_fds);
	if (r < 0)
		return r;
	return await_reply(sp, pr, rq.seq, fd_back, limit, limit_len);
}

static void proc_drop(struct spawner *sp, struct spawner_proc *pr, bool reaped)
{
	if (pr->sock >= 0)
		close(pr->sock);
	if (!reaped)
		stray_add(sp, pr->pid);
	*pr = (struct spawner_proc){ .pid = 0, .sock = -1 };
}

/* The primary forks a new standby (as the front door's child) and hands us its channel. */
static void standby_start(struct spawner *sp)
{
	if (sp->standby.pid > 0 || sp->primary.pid <= 0)
		return;
	int fd = -1;
	pid_t pid = request(sp, &sp->primary, SPAWN_SPAWNER, NULL, 0, &fd, NULL, 0);
	if (pid < 0) {
		log_error("the worker spawner (pid %d) cannot start a standby: %s",
			  (int)sp->primary.pid, strerror((int)-pid));
		return;
	}
	sp->standby = (struct spawner_proc){ .pid = pid, .sock = fd };
	log_debug("worker spawner %d is the standby of %d", (int)pid, (int)sp->primary.pid);
}

/* The primary is gone (why): the standby takes over and starts a standby of its own. */
static void promote(struct spawner *sp, const char *why)
{
	if (sp->standby.pid <= 0)
		return;
	log_warn("the worker spawner (pid %d) %s: its standby (pid %d) takes over",
		 (int)sp->primary.pid, why, (int)sp->standby.pid);
	sp->primary = sp->standby;
	sp->standby = (struct spawner_proc){ .pid = 0, .sock = -1 };
	sp->replaced++;
	standby_start(sp);
}

int spawner_start(struct spawner *sp, const char *exe, char **argv)
{
	memset(sp, 0, sizeof(*sp));
	sp->primary.sock = sp->standby.sock = -1;
	int r = spawner_fork(&sp->primary, exe, argv);
	if (r != 0)
		return r;
	standby_start(sp);
	return 0;
}

pid_t spawner_spawn(struct spawner *sp, int ctl_fd, int lease_fd, char *limit, size_t limit_len)
{
	if (limit_len)
		limit[0] = '\0';
	int fds[2] = { ctl_fd, lease_fd };
	pid_t r = request(sp, &sp->primary, SPAWN_WORKER, fds, 2, NULL, limit, limit_len);
	if ((r == -EPIPE || r == -ECONNRESET || r == -ENOTCONN || r == -ECONNREFUSED ||
	     r == -ESRCH) && sp->standby.pid > 0) {
		/* Its channel broke before its SIGCHLD was handled: the caller sees no failure. */
		char why[96];
		snprintf(why, sizeof(why), "stopped answering (%s)", strerror((int)-r));
		pid_t dead = sp->primary.pid;
		proc_drop(sp, &sp->primary, false);
		sp->primary.pid = dead; /* named in the log line */
		promote(sp, why);
		r = request(sp, &sp->primary, SPAWN_WORKER, fds, 2, NULL, limit, limit_len);
	}
	return r;
}

/* Reaps pr if it exited (true), with a log line. */
static bool proc_reap(struct spawner_proc *pr, const char *role)
{
	if (pr->pid <= 0)
		return false;
	int st;
	pid_t r = waitpid(pr->pid, &st, WNOHANG);
	if (r != pr->pid && !(r < 0 && errno == ECHILD))
		return false;
	if (r == pr->pid && WIFSIGNALED(st))
		log_warn("the %s worker spawner (pid %d) was killed by signal %d", role,
			  (int)pr->pid, WTERMSIG(st));
	else
		log_warn("the %s worker spawner (pid %d) exited (status %d)", role, (int)pr->pid,
			  r == pr->pid ? WEXITSTATUS(st) : -1);
	return true;
}

bool spawner_reap(struct spawner *sp)
{
	for (size_t i = 0; i < SPAWNER_STRAYS; i++)
		if (sp->strays[i] > 0 && waitpid(sp->strays[i], NULL, WNOHANG) != 0)
			sp->strays[i] = 0;
	bool had = sp->primary.pid > 0;
	if (proc_reap(&sp->standby, "standby"))
		proc_drop(sp, &sp->standby, true);
	if (proc_reap(&sp->primary, "primary")) {
		pid_t dead = sp->primary.pid;
		proc_drop(sp, &sp->primary, true);
		sp->primary.pid = dead;
		if (sp->standby.pid > 0)
			promote(sp, "is gone");
		else
			sp->primary.pid = 0;
	}
	standby_start(sp);
	return had && sp->primary.pid <= 0;
}

void spawner_stop(struct spawner *sp)
{
	struct spawner_proc *procs[] = { &sp->primary, &sp->standby };
	for (size_t i = 0; i < 2; i++) {
		if (procs[i]->sock >= 0)
			close(procs[i]->sock);
		procs[i]->sock = -1;
	}
	for (size_t i = 0; i < SPAWNER_STRAYS; i++)
		if (sp->strays[i] > 0)
			waitpid(sp->strays[i], NULL, 0);
	for (size_t i = 0; i < 2; i++) {
		if (procs[i]->pid <= 0)
			continue;
		pid_t r;
		do
			r = waitpid(procs[i]->pid, NULL, 0);
		while (r < 0 && errno == EINTR);
		procs[i]->pid = 0;
	}
}
