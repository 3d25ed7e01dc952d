/* The worker spawner: a child forked before the front door locks down that starts workers. */
#include "daemon/spawner.h"

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

struct spawn_request {
	uint32_t seq;
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
		if (r == (ssize_t)sizeof(rq) && n == 2)
			rp.pid = spawn_one(door, fds[0], fds[1], exe, argv);
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
		if (send(sock, &rp, sizeof(rp), MSG_NOSIGNAL) != (ssize_t)sizeof(rp))
			_exit(1);
	}
}

int spawner_start(struct spawner *sp, const char *exe, char **argv)
{
	memset(sp, 0, sizeof(*sp));
	sp->sock = -1;
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
	if (pid == 0) {
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
	close(sv[1]);
	sp->pid = pid;
	sp->sock = sv[0];
	return 0;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

pid_t spawner_spawn(struct spawner *sp, int ctl_fd, int lease_fd, char *limit, size_t limit_len)
{
	if (limit_len)
		limit[0] = '\0';
	if (sp->sock < 0)
		return -ESRCH;
	struct spawn_request rq = { .seq = ++sp->seq };
	int fds[2] = { ctl_fd, lease_fd };
	int r = send_fds(sp->sock, &rq, sizeof(rq), fds, 2);
	if (r < 0)
		return r;
	uint64_t deadline = mono_ms() + SPAWN_TIMEOUT_MS;
	for (;;) {
		uint64_t now = mono_ms();
		if (now >= deadline)
			return -ETIMEDOUT;
		struct pollfd p = { .fd = sp->sock, .events = POLLIN };
		int n = poll(&p, 1, (int)(deadline - now));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ETIMEDOUT;
		struct spawn_reply rp;
		ssize_t got = recv(sp->sock, &rp, sizeof(rp), MSG_DONTWAIT);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			return got == 0 ? -EPIPE : -errno;
		if (got != (ssize_t)sizeof(rp))
			return -EPROTO;
		if (rp.seq != rq.seq) {
			/* A worker forked after its request timed out: the front door gave up on
			 * it (and closed its channel), so it goes, and is reaped later. */
			if (rp.pid > 0) {
				kill(rp.pid, SIGKILL);
				for (size_t i = 0; i < SPAWNER_STRAYS; i++)
					if (sp->strays[i] <= 0) {
						sp->strays[i] = rp.pid;
						break;
					}
			}
			continue;
		}
		if (limit_len) {
			rp.limit[sizeof(rp.limit) - 1] = '\0';
			snprintf(limit, limit_len, "%s", rp.limit);
		}
		return rp.pid;
	}
}

bool spawner_reap(struct spawner *sp)
{
	for (size_t i = 0; i < SPAWNER_STRAYS; i++)
		if (sp->strays[i] > 0 && waitpid(sp->strays[i], NULL, WNOHANG) != 0)
			sp->strays[i] = 0;
	if (sp->pid <= 0)
		return false;
	int st;
	pid_t r = waitpid(sp->pid, &st, WNOHANG);
	if (r != sp->pid && !(r < 0 && errno == ECHILD))
		return false;
	if (r == sp->pid && WIFSIGNALED(st))
		log_error("the worker spawner (pid %d) was killed by signal %d", (int)sp->pid,
			  WTERMSIG(st));
	else
		log_error("the worker spawner (pid %d) exited (status %d)", (int)sp->pid,
			  r == sp->pid ? WEXITSTATUS(st) : -1);
	sp->pid = 0;
	if (sp->sock >= 0)
		close(sp->sock);
	sp->sock = -1;
	return true;
}

void spawner_stop(struct spawner *sp)
{
	if (sp->sock >= 0)
		close(sp->sock);
	sp->sock = -1;
	for (size_t i = 0; i < SPAWNER_STRAYS; i++)
		if (sp->strays[i] > 0)
			waitpid(sp->strays[i], NULL, 0);
	if (sp->pid <= 0)
		return;
	pid_t r;
	do
		r = waitpid(sp->pid, NULL, 0);
	while (r < 0 && errno == EINTR);
	sp->pid = 0;
}
