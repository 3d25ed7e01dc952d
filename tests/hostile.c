/* Helpers of the hostile-client suite (tests/hostile_*.c): other uids, /proc probes, bystanders. */
#include "tests/hostile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/wire.h"

double hz_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- daemons */

/* bin and log may be NULL. */
static void hz_startv(struct test_daemon *d, const char *bin, const char *log, va_list ap)
{
	/* Every attack here is played by several local users at once (root, 65534, 12345: the
	 * abuser and the bystanders it must not hurt), which only root can become. */
	REQUIRE_ROOT("the hostile suite acts as several local users (root, uid 65534 and 12345)");
	const char *args[32] = { "--backend", "reference" };
	int n = 2;
	for (const char *a; (a = va_arg(ap, const char *));) {
		ASSERT_MSG(n < 30, "too many webnnd arguments");
		args[n++] = a;
	}
	args[n] = NULL;
	/* Under AddressSanitizer freed blocks sit in a 256 MiB quarantine and free pages go back
	 * to the system only now and then: both would read as growth in the memory measurements
	 * here, which are about the daemon's own queues and budgets. */
	const char *prev = getenv("ASAN_OPTIONS");
	if (!prev || !strstr(prev, "quarantine_size_mb")) {
		char asan[512];
		snprintf(asan, sizeof(asan), "%s%squarantine_size_mb=8:"
			 "allocator_release_to_os_interval_ms=100", prev ? prev : "", prev ? ":" : "");
		setenv("ASAN_OPTIONS", asan, 1);
	}
	char path[4096];
	if (bin)
		snprintf(path, sizeof(path), "%s/%s", test_build_dir(), bin);
	test_daemon_start_logged(d, bin ? path : NULL, args, log);
	/* mkdtemp made the directory 0700: other uids must reach the socket (mode 0666). */
	ASSERT(chmod(d->dir, 0755) == 0);
}

void hz_start(struct test_daemon *d, ...)
{
	va_list ap;
	va_start(ap, d);
	hz_startv(d, NULL, NULL, ap);
	va_end(ap);
}

void hz_start_logged(struct test_daemon *d, const char *log, ...)
{
	va_list ap;
	va_start(ap, log);
	hz_startv(d, NULL, log, ap);
	va_end(ap);
}

void hz_start_binary(struct test_daemon *d, const char *bin, ...)
{
	va_list ap;
	va_start(ap, bin);
	hz_startv(d, bin, NULL, ap);
	va_end(ap);
}

/* ---- other uids */

static void hz_become_groups(uid_t uid, const gid_t *groups, int n)
{
	if (setgroups((size_t)n, groups) != 0 || setgid((gid_t)uid) != 0 || setuid(uid) != 0) {
		fprintf(stderr, "cannot become uid %u: %s\n", (unsigned)uid, strerror(errno));
		_exit(1);
	}
}

void hz_become(uid_t uid)
{
	hz_become_groups(uid, NULL, 0);
}

void hz_child_fds(int *keep, int n)
{
	int tmp[8];
	ASSERT(n <= 8);
	for (int i = 0; i < n; i++) {
		tmp[i] = fcntl(keep[i], F_DUPFD, 200);
		ASSERT(tmp[i] >= 0);
	}
	for (int i = 0; i < n; i++) {
		ASSERT(dup2(tmp[i], 3 + i) == 3 + i);
		keep[i] = 3 + i;
	}
	if (close_range((unsigned)(3 + n), ~0u, 0) != 0)
		for (int fd = 3 + n; fd < 4096; fd++)
			close(fd);
}

static int hz_send_fd(int sock, int fd)
{
	char byte = 'f';
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cm;
	memset(&cm, 0, sizeof(cm));
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
			      .msg_controllen = sizeof(cm.buf) };
	struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

static int hz_recv_fd(int sock)
{
	char byte;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cm;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
			      .msg_controllen = sizeof(cm.buf) };
	ssize_t n;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	struct cmsghdr *h = n == 1 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (!h || h->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(h), sizeof(int));
	return fd;
}

void hz_connect_as_groups(struct pt_conn *c, const struct test_daemon *d, uid_t uid,
			  const gid_t *groups, int n_groups)
{
	int sv[2];
	ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	fflush(NULL);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		hz_become_groups(uid, groups, n_groups);
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->socket_path);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
			fprintf(stderr, "connect as uid %u: %s\n", (unsigned)uid, strerror(errno));
			_exit(1);
		}
		_exit(hz_send_fd(sv[1], fd) == 0 ? 0 : 1);
	}
	close(sv[1]);
	int fd = hz_recv_fd(sv[0]);
	close(sv[0]);
	int st;
	ASSERT(waitpid(pid, &st, 0) == pid);
	ASSERT_MSG(fd >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "could not connect as uid %u (status %d)", (unsigned)uid, st);
	pt_adopt(c, fd);
}

void hz_connect_as(struct pt_conn *c, const struct test_daemon *d, uid_t uid)
{
	if (uid == geteuid()) {
		pt_connect(c, d);
		return;
	}
	hz_connect_as_groups(c, d, uid, NULL, 0);
}

int hz_try_connect_as(const struct test_daemon *d, uid_t uid, const gid_t *groups, int n_groups)
{
	fflush(NULL);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		hz_become_groups(uid, groups, n_groups);
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->socket_path);
		if (fd < 0)
			_exit(255);
		_exit(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? 0 : errno & 0x7f);
	}
	int st;
	ASSERT(waitpid(pid, &st, 0) == pid);
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) != 255, "connect child: status %d", st);
	return WEXITSTATUS(st);
}

/* ---- logs and failed starts */

char *hz_read_log(const char *path)
{
	FILE *f = fopen(path, "r");
	ASSERT_MSG(f, "%s: %s", path, strerror(errno));
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	ASSERT(buf);
	for (size_t n; (n = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
		len += n;
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			ASSERT(buf);
		}
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

void hz_wait_log(const char *path, const char *needle, int ms)
{
	double end = hz_now_ms() + ms;
	for (;;) {
		char *text = hz_read_log(path);
		bool found = strstr(text, needle) != NULL;
		if (found) {
			free(text);
			return;
		}
		if (hz_now_ms() > end) {
			fprintf(stderr, "---- %s ----\n%s----\n", path, text);
			free(text);
			FAIL("the log %s does not say \"%s\" within %d ms", path, needle, ms);
		}
		free(text);
		usleep(20000);
	}
}

void hz_log_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/webnn-hostile-log-XXXXXX", test_tmpdir());
	int fd = mkstemp(buf);
	ASSERT_MSG(fd >= 0, "mkstemp %s: %s", buf, strerror(errno));
	close(fd);
}

int hz_run_to_exit(const char *log, int ms, ...)
{
	const char *argv[32];
	char bin[4096];
	snprintf(bin, sizeof(bin), "%s/bin/webnnd", test_build_dir());
	int n = 0;
	argv[n++] = bin;
	va_list ap;
	va_start(ap, ms);
	for (const char *a; (a = va_arg(ap, const char *));) {
		ASSERT_MSG(n < 30, "too many webnnd arguments");
		argv[n++] = a;
	}
	va_end(ap);
	argv[n] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	double end = hz_now_ms() + ms;
	int st = 0;
	while (waitpid(pid, &st, WNOHANG) != pid) {
		if (hz_now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			FAIL("webnnd was expected to stop by itself within %d ms", ms);
		}
		usleep(10000);
	}
	ASSERT_MSG(WIFEXITED(st), "webnnd ended with status %#x", st);
	return WEXITSTATUS(st);
}

/* ---- /proc */

static bool hz_read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return true;
}

int hz_children(const struct test_daemon *d, const char *comm, pid_t *pids, int max)
{
	char path[64], list[4096], want[32];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", d->pid, d->pid);
	snprintf(want, sizeof(want), "%s\n", comm);
	if (!hz_read_file(path, list, sizeof(list)))
		return 0;
	int n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(list, " \n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \n", &save)) {
		char name[64];
		snprintf(path, sizeof(path), "/proc/%s/comm", tok);
		if (hz_read_file(path, name, sizeof(name)) && strcmp(name, want) == 0)
			pids[n++] = (pid_t)atoi(tok);
	}
	return n;
}

pid_t hz_find_worker(const struct test_daemon *d, uid_t uid)
{
	char comm[32];
	pid_t pid;
	snprintf(comm, sizeof(comm), "wnn-u%u", (unsigned)uid);
	return hz_children(d, comm, &pid, 1) == 1 ? pid : -1;
}

pid_t hz_worker_pid(const struct test_daemon *d, uid_t uid)
{
	for (int i = 0; i < 500; i++) {
		pid_t p = hz_find_worker(d, uid);
		if (p > 0)
			return p;
		usleep(10000);
	}
	FAIL("no device worker of uid %u (comm wnn-u%u) under webnnd %d", (unsigned)uid,
	     (unsigned)uid, d->pid);
}

long hz_rss_kib(pid_t pid)
{
	return hz_status_kib(pid, "VmRSS");
}

long hz_status_kib(pid_t pid, const char *key)
{
	char path[64], line[256], fmt[64];
	snprintf(fmt, sizeof(fmt), "%s: %%ld", key);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	ASSERT_MSG(f, "%s: %s", path, strerror(errno));
	long kib = -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &kib) == 1)
			break;
	fclose(f);
	ASSERT_MSG(kib >= 0, "no %s in %s", key, path);
	return kib;
}

int hz_fd_count(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *dir = opendir(path);
	ASSERT_MSG(dir, "%s: %s", path, strerror(errno));
	int n = 0;
	for (struct dirent *e; (e = readdir(dir));)
		n += e->d_name[0] != '.';
	closedir(dir);
	return n;
}

int hz_maps_count(pid_t pid)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	ASSERT_MSG(f, "%s: %s", path, strerror(errno));
	int n = 0;
	while (fgets(line, sizeof(line), f))
		n += strchr(line, '\n') != NULL;
	fclose(f);
	return n;
}

double hz_cpu_s(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	ASSERT_MSG(hz_read_file(path, buf, sizeof(buf)), "%s: %s", path, strerror(errno));
	const char *p = strrchr(buf, ')');
	ASSERT(p);
	unsigned long long utime = 0, stime = 0;
	/* After the command: state (field 3) ... utime (14) and stime (15). */
	int n = sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
		       &stime);
	ASSERT_EQ(n, 2);
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* CPU time of every live thread of pid in seconds, to the nanosecond (schedstat's run time):
 * what a tick-counted /proc/<pid>/stat rounds to 10 ms. Threads that ended no longer count. */
static double hz_cpu_fine_s(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return hz_cpu_s(pid);
	unsigned long long ns = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		char file[384], buf[128];
		snprintf(file, sizeof(file), "%s/%s/schedstat", path, e->d_name);
		unsigned long long run = 0;
		if (hz_read_file(file, buf, sizeof(buf)) && sscanf(buf, "%llu", &run) == 1)
			ns += run;
	}
	closedir(dir);
	return (double)ns * 1e-9;
}

double hz_cpu_stop_ms(pid_t pid, int quiet_ms, int max_ms, double *cpu_ms)
{
	/* Sampled every 5 ms; a sample counts as work when the worker used more than 1 ms of
	 * CPU in it (its loop thread waking to answer or free something uses microseconds). */
	double t0 = hz_now_ms(), last_growth = t0, cpu = hz_cpu_fine_s(pid), cpu0 = cpu;
	for (double now = t0; now - last_growth < quiet_ms && now - t0 < max_ms;) {
		usleep(5000);
		now = hz_now_ms();
		double c = hz_cpu_fine_s(pid);
		if (c - cpu > 1e-3)
			last_growth = now;
		cpu = c;
	}
	if (cpu_ms)
		*cpu_ms = (cpu - cpu0) * 1e3;
	return last_growth - t0;
}

int hz_fd_count_settle(pid_t pid, int want, int ms)
{
	int n = hz_fd_count(pid);
	for (double end = hz_now_ms() + ms; n > want && hz_now_ms() < end; n = hz_fd_count(pid))
		usleep(20000);
	return n;
}

long hz_rss_settle(pid_t pid, long want_kib, int ms)
{
	long n = hz_rss_kib(pid);
	for (double end = hz_now_ms() + ms; n > want_kib && hz_now_ms() < end; n = hz_rss_kib(pid))
		usleep(20000);
	return n;
}

/* ---- well-behaved clients */

void hz_client_open(struct hz_client *b, const struct test_daemon *d, uid_t uid)
{
	b->uid = uid;
	b->round = 0;
	hz_connect_as(&b->c, d, uid);
	pt_hello(&b->c, "hostile-suite bystander");
	pt_create_context(&b->c, 1);
	pt_create_tensor(&b->c, 1, 2, (const uint32_t[]){ 2, 3 }, 2);
}

double hz_client_roundtrip(struct hz_client *b, double max_ms)
{
	float v[6];
	for (int i = 0; i < 6; i++)
		v[i] = (float)b->round * 10.0f + (float)i;
	b->round++;
	double t0 = hz_now_ms();
	pt_write_inline(&b->c, 2, v, sizeof(v));
	pt_read_expect(&b->c, 2, v, 6);
	double ms = hz_now_ms() - t0;
	ASSERT_MSG(ms < max_ms, "a well-behaved client of uid %u took %.0f ms for a round trip "
				"(bound %.0f ms)", (unsigned)b->uid, ms, max_ms);
	return ms;
}

void hz_client_close(struct hz_client *b)
{
	pt_close(&b->c);
}

double hz_fresh_client(const struct test_daemon *d, uid_t uid, double max_ms)
{
	double t0 = hz_now_ms();
	struct hz_client b;
	hz_client_open(&b, d, uid);
	hz_client_roundtrip(&b, max_ms);
	hz_client_close(&b);
	double ms = hz_now_ms() - t0;
	ASSERT_MSG(ms < max_ms, "a new client of uid %u needed %.0f ms to connect, set up and make "
				"a round trip (bound %.0f ms)", (unsigned)uid, ms, max_ms);
	return ms;
}

/* Forks a helper child acting as uid, with a stop pipe and a report pipe. In the child (0 is
 * returned) keep[0] is the stop pipe's read end and keep[1] the report pipe's write end, its
 * only descriptors past stdio; in the parent keep[0] is the stop pipe's write end and keep[1]
 * the report pipe's read end. */
static pid_t hz_helper_fork(uid_t uid, int keep[2])
{
	int stop[2], res[2];
	ASSERT(pipe2(stop, O_CLOEXEC) == 0 && pipe2(res, O_CLOEXEC) == 0);
	fflush(NULL);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		keep[0] = stop[0];
		keep[1] = res[1];
		hz_child_fds(keep, 2);
		if (uid != geteuid())
			hz_become(uid);
		return 0;
	}
	close(stop[0]);
	close(res[1]);
	keep[0] = stop[1];
	keep[1] = res[0];
	return pid;
}

/* Waits (20 s at most) for the 'R' a helper child writes on its report pipe once it is going. */
static void hz_helper_ready(int res_fd, const char *who)
{
	struct pollfd p = { res_fd, POLLIN, 0 };
	char c = 0;
	ASSERT_MSG(poll(&p, 1, 20000) == 1 && read(res_fd, &c, 1) == 1 && c == 'R',
		   "%s did not get going", who);
}

void hz_watch_start(struct hz_watch *w, const struct test_daemon *d, uid_t uid)
{
	int keep[2];
	pid_t pid = hz_helper_fork(uid, keep);
	if (pid == 0) {
		struct hz_client b;
		hz_client_open(&b, d, uid);
		ASSERT(write(keep[1], "R", 1) == 1);
		int n = 0;
		double worst = 0;
		for (;;) {
			struct pollfd p = { keep[0], POLLIN, 0 };
			if (poll(&p, 1, 0) > 0)
				break;
			double ms = hz_client_roundtrip(&b, 1e9);
			worst = ms > worst ? ms : worst;
			n++;
			usleep(20000);
		}
		hz_client_close(&b);
		dprintf(keep[1], "%d %.1f\n", n, worst);
		_exit(0);
	}
	*w = (struct hz_watch){ .pid = pid, .stop_fd = keep[0], .res_fd = keep[1], .uid = uid };
	char who[64];
	snprintf(who, sizeof(who), "the well-behaved client of uid %u", (unsigned)uid);
	hz_helper_ready(w->res_fd, who);
}

/* What a helper child wrote on its report pipe until it closed it (30 s at most), as a string;
 * closes fd. Returns the bytes read. */
static size_t hz_read_report(int fd, char *buf, size_t cap)
{
	size_t have = 0;
	memset(buf, 0, cap);
	for (double end = hz_now_ms() + 30000; hz_now_ms() < end && have < cap - 1;) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, 1000) <= 0)
			continue;
		ssize_t n = read(fd, buf + have, cap - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	return have;
}

double hz_watch_stop(struct hz_watch *w, double max_ms)
{
	close(w->stop_fd);
	char buf[64];
	hz_read_report(w->res_fd, buf, sizeof(buf));
	int st = 0;
	for (int i = 0; i < 100 && waitpid(w->pid, &st, WNOHANG) != w->pid; i++) {
		if (i == 99) {
			kill(w->pid, SIGKILL);
			waitpid(w->pid, &st, 0);
		}
		usleep(100000);
	}
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "the well-behaved client of uid %u failed while the abuse went on (status %d; "
		   "its message is above)", (unsigned)w->uid, st);
	int n = 0;
	double worst = 0;
	ASSERT_MSG(sscanf(buf, "%d %lf", &n, &worst) == 2, "no report from the bystander");
	ASSERT_MSG(n > 0, "the well-behaved client of uid %u made no round trip", (unsigned)w->uid);
	ASSERT_MSG(worst < max_ms, "a well-behaved client of uid %u waited %.0f ms for a round trip "
				   "while the abuse went on (bound %.0f ms, %d round trips)",
		   (unsigned)w->uid, worst, max_ms, n);
	return worst;
}

void hz_scene_start(struct hz_scene *s, ...)
{
	va_list ap;
	va_start(ap, s);
	hz_startv(&s->d, NULL, NULL, ap);
	va_end(ap);
	s->abuser_worker = -1;
	hz_client_open(&s->good, &s->d, 0);
}

void hz_scene_abuser(struct hz_scene *s, struct pt_conn *c, bool hello)
{
	hz_connect_as(c, &s->d, HZ_NOBODY);
	if (!hello)
		return;
	pt_hello(c, "hostile-suite abuser");
	if (s->abuser_worker < 0)
		s->abuser_worker = hz_worker_pid(&s->d, HZ_NOBODY);
}

void hz_scene_finish(struct hz_scene *s)
{
	hz_client_roundtrip(&s->good, HZ_RTT_MS);
	if (s->abuser_worker > 0) {
		pid_t now = hz_find_worker(&s->d, HZ_NOBODY);
		ASSERT_MSG(now == s->abuser_worker, "the abuser's device worker %d is gone (now: %d)",
			   (int)s->abuser_worker, (int)now);
	}
	hz_fresh_client(&s->d, HZ_NOBODY, HZ_RTT_MS);
	hz_client_roundtrip(&s->good, HZ_RTT_MS);
	hz_client_close(&s->good);
	test_daemon_stop(&s->d);
}

/* ---- connection churn */

static int hz_raw_connect(const struct test_daemon *d)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->socket_path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void hz_churn_start(struct hz_churn *ch, const struct test_daemon *d, uid_t uid, bool hello)
{
	int keep[2];
	pid_t pid = hz_helper_fork(uid, keep);
	if (pid == 0) {
		ASSERT(write(keep[1], "R", 1) == 1);
		long n = 0; /* connections made (connect() succeeded) */
		for (long tries = 0;; tries++) {
			/* bare connections are cheap: the stop is looked for every 16 */
			struct pollfd p = { keep[0], POLLIN, 0 };
			if ((hello || (tries & 15) == 0) && poll(&p, 1, 0) > 0)
				break;
			int fd = hz_raw_connect(d);
			if (fd < 0)
				continue;
			n++;
			if (hello) {
				struct pt_conn c;
				pt_adopt(&c, fd);
				struct hz_hello h;
				hz_hello_msg(&h, "churn", 1);
				bool closed = false;
				if (pt_try_send(&c, &h.m) == 0)
					pt_free(pt_recv_within(&c, 2000, &closed));
				pt_close(&c);
			} else {
				close(fd);
			}
		}
		dprintf(keep[1], "%ld\n", n);
		_exit(0);
	}
	*ch = (struct hz_churn){ .pid = pid, .stop_fd = keep[0], .res_fd = keep[1] };
	hz_helper_ready(ch->res_fd, "the churning client");
}

long hz_churn_stop(struct hz_churn *ch)
{
	close(ch->stop_fd);
	char buf[32];
	size_t have = hz_read_report(ch->res_fd, buf, sizeof(buf));
	int st = 0;
	if (waitpid(ch->pid, &st, WNOHANG) != ch->pid) {
		usleep(200000);
		if (waitpid(ch->pid, &st, WNOHANG) != ch->pid) {
			kill(ch->pid, SIGKILL);
			waitpid(ch->pid, &st, 0);
		}
	}
	ASSERT_MSG(have > 0, "the churning client did not report (status %d)", st);
	return atol(buf);
}

void hz_hello_times(const struct test_daemon *d, uid_t uid, int n, double max_ms, double *ms)
{
	int res[2];
	ASSERT(pipe2(res, O_CLOEXEC) == 0);
	fflush(NULL);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		int keep[1] = { res[1] };
		hz_child_fds(keep, 1);
		if (uid != geteuid())
			hz_become(uid);
		for (int i = 0; i < n; i++) {
			double t0 = hz_now_ms();
			int fd = hz_raw_connect(d);
			ASSERT_MSG(fd >= 0, "connect as uid %u: %s", (unsigned)uid, strerror(errno));
			struct pt_conn c;
			pt_adopt(&c, fd);
			c.timeout_ms = (int)max_ms;
			struct hz_hello h;
			hz_hello_msg(&h, "timed", 1);
			pt_send(&c, &h.m);
			Webnn__Ipc__ServerMessage *s = pt_recv(&c);
			double t = hz_now_ms() - t0;
			ASSERT_MSG(s && s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY &&
					   !s->reply->error,
				   "connection %d of uid %u was not served: %s", i, (unsigned)uid,
				   !s ? "closed" : s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE
					   ? s->goodbye->reason : "an error");
			pt_free(s);
			pt_close(&c);
			ASSERT_MSG(t < max_ms, "connect + Hello of uid %u took %.0f ms (bound %.0f ms)",
				   (unsigned)uid, t, max_ms);
			ASSERT(write(keep[0], &t, sizeof(t)) == sizeof(t));
		}
		_exit(0);
	}
	close(res[1]);
	int got = 0;
	while (got < n) {
		ssize_t r = read(res[0], &ms[got], sizeof(double));
		if (r != sizeof(double))
			break;
		got++;
	}
	close(res[0]);
	int st = 0;
	ASSERT(waitpid(pid, &st, 0) == pid);
	ASSERT_MSG(got == n && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "%d of %d timed connections of uid %u were served (status %d)", got, n,
		   (unsigned)uid, st);
}

/* ---- task limits */

static void hz_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ASSERT_MSG(fd >= 0, "open %s: %s", path, strerror(errno));
	ssize_t n = write(fd, text, strlen(text));
	int err = errno;
	close(fd);
	ASSERT_MSG(n == (ssize_t)strlen(text), "write '%s' to %s: %s", text, path, strerror(err));
}

/* This process's cgroup path in the hierarchy whose /proc/self/cgroup line has controllers
 * ctl ("" for v2's). */
static bool hz_own_cgroup(const char *ctl, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return false;
	char line[600];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		if (strcmp(c1 + 1, ctl) == 0) {
			snprintf(path, len, "%s", strcmp(c2 + 1, "/") ? c2 + 1 : "");
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* A test that fails exits at once: its cgroup goes then (once its daemon has). */
static char hz_pids_made[512];

static void hz_pids_atexit(void)
{
	if (hz_pids_made[0])
		rmdir(hz_pids_made);
}

bool hz_pids_create(struct hz_pids *g)
{
	char own[400], probe[600];
	const char *base = NULL;
	if (access("/sys/fs/cgroup/pids/cgroup.procs", W_OK) == 0 && hz_own_cgroup("pids", own,
										     sizeof(own))) {
		base = "/sys/fs/cgroup/pids";
	} else if (access("/sys/fs/cgroup/cgroup.subtree_control", R_OK) == 0 &&
		   hz_own_cgroup("", own, sizeof(own))) {
		FILE *f = fopen("/sys/fs/cgroup/cgroup.subtree_control", "re");
		char ctl[256] = "";
		if (f) {
			if (!fgets(ctl, sizeof(ctl), f))
				ctl[0] = '\0';
			fclose(f);
		}
		if (strstr(ctl, "pids"))
			base = "/sys/fs/cgroup";
	}
	if (!base)
		return false;
	snprintf(g->home, sizeof(g->home), "%s%s/cgroup.procs", base, own);
	snprintf(g->dir, sizeof(g->dir), "%s/webnn-test-%d", base, (int)getpid());
	if (mkdir(g->dir, 0755) != 0 && errno != EEXIST)
		return false;
	snprintf(probe, sizeof(probe), "%s/pids.max", g->dir);
	if (access(probe, W_OK) != 0) {
		rmdir(g->dir);
		return false;
	}
	snprintf(hz_pids_made, sizeof(hz_pids_made), "%s", g->dir);
	atexit(hz_pids_atexit);
	return true;
}

void hz_pids_enter(struct hz_pids *g)
{
	char path[600], pid[32];
	snprintf(path, sizeof(path), "%s/cgroup.procs", g->dir);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	hz_write_file(path, pid);
}

void hz_pids_leave(struct hz_pids *g)
{
	char pid[32];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	hz_write_file(g->home, pid);
}

void hz_pids_set_max(struct hz_pids *g, long max)
{
	char path[600], v[32];
	snprintf(path, sizeof(path), "%s/pids.max", g->dir);
	if (max < 0)
		snprintf(v, sizeof(v), "max");
	else
		snprintf(v, sizeof(v), "%ld", max);
	hz_write_file(path, v);
}

long hz_pids_current(const struct hz_pids *g)
{
	char path[600], buf[32] = "";
	snprintf(path, sizeof(path), "%s/pids.current", g->dir);
	FILE *f = fopen(path, "re");
	ASSERT_MSG(f, "open %s: %s", path, strerror(errno));
	bool ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	ASSERT(ok);
	return atol(buf);
}

void hz_pids_destroy(struct hz_pids *g)
{
	/* The last worker may still be exiting. */
	for (int i = 0; i < 100 && rmdir(g->dir) != 0 && errno == EBUSY; i++)
		usleep(50000);
}

int hz_task_count(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* ---- hostile traffic */

void hz_buf_msg(struct hz_buf *b, Webnn__Ipc__ClientMessage *m)
{
	size_t n;
	uint8_t *f = wnn_frame_pack(m, &n);
	ASSERT(f);
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		ASSERT(b->p);
		b->cap = cap;
	}
	memcpy(b->p + b->len, f, n);
	b->len += n;
	free(f);
}

void hz_buf_free(struct hz_buf *b)
{
	free(b->p);
	*b = (struct hz_buf){ 0 };
}

static void hz_pump_msg(struct hz_pump *st, const Webnn__Ipc__ServerMessage *s)
{
	switch (s->body_case) {
	case WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY:
		st->replies++;
		if (s->reply->error && st->reply_errors++ == 0)
			snprintf(st->first_error, sizeof(st->first_error), "%s",
				 s->reply->error->message);
		break;
	case WEBNN__IPC__SERVER_MESSAGE__BODY_ERROR:
		if (st->events++ == 0 && !st->reply_errors && s->error->error)
			snprintf(st->first_error, sizeof(st->first_error), "%s",
				 s->error->error->message);
		break;
	case WEBNN__IPC__SERVER_MESSAGE__BODY_CONTEXT_LOST:
		st->lost++;
		snprintf(st->lost_message, sizeof(st->lost_message), "%s",
			 s->context_lost->message);
		break;
	case WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE:
		st->goodbyes++;
		snprintf(st->goodbye, sizeof(st->goodbye), "%s", s->goodbye->reason);
		break;
	default:
		break;
	}
}

void hz_pump(struct pt_conn *c, const struct hz_buf *out, int want, int idle_ms, int total_ms,
	     struct hz_pump *st)
{
	*st = (struct hz_pump){ 0 };
	double end = hz_now_ms() + total_ms;
	int fl = fcntl(c->fd, F_GETFL);
	ASSERT(fcntl(c->fd, F_SETFL, fl | O_NONBLOCK) == 0);
	size_t sent = 0;
	bool can_send = true;
	while (!st->closed && ((can_send && sent < out->len) || st->replies < want)) {
		bool more = can_send && sent < out->len;
		struct pollfd p = { c->fd, POLLIN | (more ? POLLOUT : 0), 0 };
		int pr = poll(&p, 1, idle_ms);
		if (pr < 0 && errno == EINTR)
			continue;
		ASSERT_MSG(pr > 0, "nothing moved for %d ms: %zu of %zu bytes sent, %d of %d replies",
			   idle_ms, sent, out->len, st->replies, want);
		ASSERT_MSG(!total_ms || hz_now_ms() < end, "not done within %d ms: %zu of %zu bytes "
			   "sent, %d of %d replies", total_ms, sent, out->len, st->replies, want);
		if (more && (p.revents & POLLOUT)) {
			ssize_t w = send(c->fd, out->p + sent, out->len - sent, MSG_NOSIGNAL);
			if (w > 0)
				sent += (size_t)w;
			else if (errno == EPIPE || errno == ECONNRESET)
				can_send = false; /* the daemon hung up: read why */
			else
				ASSERT_MSG(errno == EAGAIN || errno == EINTR, "send: %s",
					   strerror(errno));
		}
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		int r = wnn_reader_fill(&c->r, c->fd);
		if (r == 0 || r == -ECONNRESET) {
			st->closed = true;
		} else if (r != -EAGAIN) {
			ASSERT_MSG(r > 0, "read: %s", strerror(-r));
		}
		const uint8_t *payload;
		size_t len;
		int fds[WNN_FRAME_MAX_FDS], n_fds = 0;
		while (wnn_reader_next(&c->r, &payload, &len, fds, &n_fds) == 1) {
			Webnn__Ipc__ServerMessage *s =
				webnn__ipc__server_message__unpack(NULL, len, payload);
			ASSERT_MSG(s, "the daemon sent an undecodable message");
			hz_pump_msg(st, s);
			pt_free(s);
			wnn_reader_consume(&c->r);
		}
	}
	ASSERT(fcntl(c->fd, F_SETFL, fl) == 0);
}

void hz_expect_end(struct pt_conn *c, const char *needle, bool accept_eof, int ms)
{
	double end = hz_now_ms() + ms;
	for (;;) {
		int left = (int)(end - hz_now_ms());
		ASSERT_MSG(left > 0, "the connection did not end within %d ms (expected a Goodbye "
				     "containing '%s')", ms, needle);
		bool closed = false;
		Webnn__Ipc__ServerMessage *s = pt_recv_within(c, left, &closed);
		if (!s && closed) {
			ASSERT_MSG(accept_eof, "the connection was closed without a Goodbye (expected "
					       "one containing '%s')", needle);
			return;
		}
		if (!s)
			continue;
		if (s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE) {
			ASSERT_CONTAINS(s->goodbye->reason, needle);
			pt_free(s);
			s = pt_recv_within(c, 5000, &closed);
			ASSERT_MSG(!s && closed, "the daemon kept the connection open after Goodbye");
			return;
		}
		pt_free(s);
	}
}

void hz_hello_msg(struct hz_hello *h, const char *name, uint64_t serial)
{
	pt_hello_fill(&h->m, &h->h, name);
	h->m.has_serial = serial != 0;
	h->m.serial = serial;
}

Webnn__Ipc__ServerMessage *hz_create_rows(struct pt_conn *c, uint32_t ctx, uint32_t id,
					  uint32_t rows)
{
	struct pt_tensor_msg t;
	pt_tensor_msg(&t, ctx, id, WEBNN__IPC__DATA_TYPE__FLOAT32, (const uint32_t[]){ rows, 1024 },
		      2, true, true);
	return pt_call(c, &t.m);
}

void hz_need_testhooks(void)
{
	char bin[4096];
	snprintf(bin, sizeof(bin), "%s/bin/webnnd-testhooks", test_build_dir());
	if (access(bin, X_OK) != 0)
		SKIP("%s does not exist: these tests need webnnd's test-hook build", bin);
}

void hz_hook(struct pt_conn *c, const char *action, char *out, size_t len)
{
	char name[256];
	snprintf(name, sizeof(name), "wnn-test:%s", action);
	struct hz_hello h;
	hz_hello_msg(&h, name, 1);
	Webnn__Ipc__ServerMessage *s = pt_call(c, &h.m);
	ASSERT_MSG(s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY && !s->reply->error &&
			   s->reply->body_case == WEBNN__IPC__REPLY__BODY_HELLO,
		   "hook '%s': no HelloReply", action);
	snprintf(out, len, "%s", s->reply->hello->server_name);
	pt_free(s);
}
