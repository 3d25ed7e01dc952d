/* Shared test harness: runner main (fork per test, timeout, filter) and daemon start/stop. */
#include "tests/test.h"

#include <CL/cl.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern const struct test_case __start_wnn_tests[], __stop_wnn_tests[];

const char *test_build_dir(void)
{
	const char *b = getenv("WEBNN_BUILD");
	return b && *b ? b : "build";
}

const char *test_shared_dir(void)
{
	static char path[4096];
	const char *s = getenv("WEBNN_SHARED");
	struct stat st;
	if (s && *s && stat(s, &st) == 0)
		return s;
	if (stat("../shared/conformance", &st) == 0) {
		snprintf(path, sizeof(path), "../shared");
		return path;
	}
	return NULL;
}

const char *test_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

void test_scratch_dir(char *buf, size_t len, const char *prefix)
{
	int n = snprintf(buf, len, "%s/%s-XXXXXX", test_tmpdir(), prefix);
	ASSERT_MSG(n > 0 && (size_t)n < len, "scratch directory name under %s is too long",
		   test_tmpdir());
	ASSERT_MSG(mkdtemp(buf), "mkdtemp %s: %s (TMPDIR=%s)", buf, strerror(errno),
		   test_tmpdir());
}

double test_load_average(void)
{
	double l = NAN;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f && fscanf(f, "%lf", &l) != 1)
		l = NAN;
	if (f)
		fclose(f);
	return l;
}

bool test_have_opencl(void)
{
	cl_uint n = 0;
	return clGetPlatformIDs(0, NULL, &n) == CL_SUCCESS && n > 0;
}

bool test_socket_ready(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

void test_daemon_start(struct test_daemon *d, const char *const *extra_args)
{
	test_daemon_start_logged(d, NULL, extra_args, NULL);
}

void test_daemon_start_binary(struct test_daemon *d, const char *bin,
			      const char *const *extra_args)
{
	test_daemon_start_logged(d, bin, extra_args, NULL);
}

void test_daemon_start_logged(struct test_daemon *d, const char *bin,
			      const char *const *extra_args, const char *stderr_path)
{
	char dir[sizeof(d->dir)];
	test_scratch_dir(dir, sizeof(dir), "webnn-test");
	test_daemon_start_in(d, dir, bin, extra_args, stderr_path);
}

void test_daemon_start_in(struct test_daemon *d, const char *dir, const char *bin,
			  const char *const *extra_args, const char *stderr_path)
{
	char def[4096];
	if (!bin) {
		snprintf(def, sizeof(def), "%s/bin/webnnd", test_build_dir());
		bin = def;
	}
	snprintf(d->dir, sizeof(d->dir), "%s", dir);
	if (strlen(d->dir) + sizeof("/webnnd.sock") > sizeof(d->socket_path)) {
		rmdir(d->dir);
		FAIL("socket path %s/webnnd.sock exceeds the %zu bytes of a unix socket address: "
		     "set TMPDIR to a shorter directory", d->dir, sizeof(d->socket_path) - 1);
	}
	size_t dl = strlen(d->dir); /* fits: checked above */
	memcpy(d->socket_path, d->dir, dl);
	memcpy(d->socket_path + dl, "/webnnd.sock", sizeof("/webnnd.sock"));
	const char *argv[32] = { bin, "--socket", d->socket_path };
	int argc = 3;
	for (int i = 0; extra_args && extra_args[i] && argc < 31; i++)
		argv[argc++] = extra_args[i];
	argv[argc] = NULL;
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		if (stderr_path) {
			int fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0 || dup2(fd, 2) < 0)
				_exit(126);
		}
		execv(bin, (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	d->pid = pid;
	for (int i = 0; i < 3000; i++) {
		if (test_socket_ready(d->socket_path))
			return;
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid)
			FAIL("webnnd exited during start-up (status %d)", st);
		usleep(10000);
	}
	kill(pid, SIGKILL);
	FAIL("webnnd did not open %s within 30 s", d->socket_path);
}

void test_daemon_stop(struct test_daemon *d)
{
	if (d->pid <= 0)
		return;
	kill(d->pid, SIGTERM);
	int st = 0;
	for (int i = 0; i < 3000; i++) {
		if (waitpid(d->pid, &st, WNOHANG) == d->pid)
			break;
		usleep(10000);
		if (i == 2999) {
			kill(d->pid, SIGKILL);
			waitpid(d->pid, &st, 0);
			FAIL("webnnd did not stop within 30 s of SIGTERM");
		}
	}
	d->pid = 0;
	unlink(d->socket_path);
	rmdir(d->dir);
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "webnnd exit status %d", st);
}

/* The parent pid and name of a process, from /proc/<pid>/stat ("pid (comm) state ppid ..."). */
static bool proc_stat(int pid, int *ppid, char *comm, size_t comm_len)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	if (!open || !close || close < open || sscanf(close + 1, " %*c %d", ppid) != 1)
		return false;
	snprintf(comm, comm_len, "%.*s", (int)(close - open - 1), open + 1);
	return true;
}

int test_daemon_child(const struct test_daemon *d, const char *comm)
{
	for (int tries = 0; tries < 1000; tries++) {
		DIR *dir = opendir("/proc");
		ASSERT(dir);
		struct dirent *e;
		int found = -1;
		while (found < 0 && (e = readdir(dir))) {
			int pid = atoi(e->d_name), ppid;
			char name[64];
			if (pid > 0 && proc_stat(pid, &ppid, name, sizeof(name)) &&
			    ppid == d->pid && strcmp(name, comm) == 0)
				found = pid;
		}
		closedir(dir);
		if (found > 0)
			return found;
		usleep(10000);
	}
	FAIL("webnnd (pid %d) has no child process named %s", d->pid, comm);
}

int test_open_fds(int pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	DIR *dir = opendir(path);
	ASSERT_MSG(dir, "%s: %s", path, strerror(errno));
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dir)))
		n += e->d_name[0] != '.';
	closedir(dir);
	return n;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The running test's process group (its daemons, their workers, the children it forked): a
 * runner stopped by a signal takes it down first, so nothing a test started outlives the run. */
static volatile sig_atomic_t running_group;

static void stop_running_test(int sig)
{
	if (running_group > 0)
		kill(-running_group, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Runs one test in a child with a timeout; returns 0 pass, 1 fail, 77 skip. */
static int run_one(const struct test_case *t, bool fork_it)
{
	if (!fork_it) {
		t->fn();
		return 0;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		t->fn();
		fflush(stdout);
		_exit(0);
	}
	setpgid(pid, pid); /* as the child does: either one runs first */
	running_group = pid;
	int timeout = t->timeout_s ? t->timeout_s : 120;
	double end = now_s() + timeout;
	int st;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (now_s() > end) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			running_group = 0;
			fprintf(stderr, "%s: timed out after %d s\n", t->name, timeout);
			return 1;
		}
		usleep(2000);
	}
	kill(-pid, SIGKILL); /* stray daemons of a failed test */
	running_group = 0;
	if (WIFEXITED(st))
		return WEXITSTATUS(st) == 0 ? 0 : WEXITSTATUS(st) == TEST_SKIP_CODE ? 77 : 1;
	fprintf(stderr, "%s: killed by signal %d\n", t->name, WTERMSIG(st));
	return 1;
}

int main(int argc, char **argv)
{
	bool no_fork = false, list = false;
	const char *filter = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-fork") == 0)
			no_fork = true;
		else if (strcmp(argv[i], "--list") == 0)
			list = true;
		else if (strcmp(argv[i], "--bench") == 0)
			filter = "bench_";
		else
			filter = argv[i];
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, stop_running_test);
	signal(SIGTERM, stop_running_test);
	signal(SIGHUP, stop_running_test);
	int passed = 0, failed = 0, skipped = 0;
	for (const struct test_case *t = __start_wnn_tests; t < __stop_wnn_tests; t++) {
		bool is_bench = strncmp(t->name, "bench_", 6) == 0;
		if (filter ? !strstr(t->name, filter) : is_bench)
			continue;
		if (list) {
			printf("%s\n", t->name);
			continue;
		}
		double t0 = now_s();
		int r = run_one(t, !no_fork);
		double dt = now_s() - t0;
		const char *what = r == 0 ? "PASS" : r == 77 ? "SKIP" : "FAIL";
		printf("%s %s (%.2f s)\n", what, t->name, dt);
		fflush(stdout);
		if (r == 0)
			passed++;
		else if (r == 77)
			skipped++;
		else
			failed++;
	}
	if (!list)
		printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

double test_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int test_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double test_quantile(double *v, int n, double q)
{
	if (n <= 0)
		return NAN;
	qsort(v, (size_t)n, sizeof(double), test_cmp_double);
	int k = (int)ceil(q * n) - 1;
	return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

double test_median(const double *v, int n)
{
	if (n <= 0)
		return NAN;
	double *s = malloc((size_t)n * sizeof(double));
	ASSERT(s);
	memcpy(s, v, (size_t)n * sizeof(double));
	qsort(s, (size_t)n, sizeof(double), test_cmp_double);
	double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

double test_round_ratio(const double *a, const double *b, int n, int width, char *out,
			size_t len)
{
	if (n <= 0) {
		snprintf(out, len, "%*s", width, "-");
		return NAN;
	}
	double *q = malloc((size_t)n * sizeof(double)), lo = INFINITY, hi = -INFINITY;
	ASSERT(q);
	for (int r = 0; r < n; r++) {
		q[r] = a[r] / b[r];
		lo = q[r] < lo ? q[r] : lo;
		hi = q[r] > hi ? q[r] : hi;
	}
	double m = test_median(q, n);
	free(q);
	snprintf(out, len, "%*.2f [%.2f..%.2f]", width, m, lo, hi);
	return m;
}
