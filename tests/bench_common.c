/* make bench: what the bench_* tests share: medians and ratios, pausing contenders, daemons and helper processes. */
#include "tests/bench_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/test.h"

double bc_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int bc_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of v[0..n) (v is left untouched); NAN when n is 0. */
double bc_median(const double *v, int n)
{
	double s[BC_MAX_ROUNDS * 8];
	if (n <= 0)
		return NAN;
	n = n < BC_MAX_ROUNDS * 8 ? n : BC_MAX_ROUNDS * 8;
	memcpy(s, v, n * sizeof(double));
	qsort(s, n, sizeof(double), bc_cmp);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Median over rounds of a[r] / b[r]. */
double bc_ratio(const double *a, const double *b, int n)
{
	double q[BC_MAX_ROUNDS];
	for (int r = 0; r < n; r++)
		q[r] = a[r] / b[r];
	return bc_median(q, n);
}

/* snprintf for messages, which may be cut short. */
void bc_fmt(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

/* Only the contender being timed runs: the others are stopped (SIGSTOP) between their turns,
 * with every process under them: a daemon's device workers are children of its front door.
 * Idle thread pools are not idle: onnxruntime's spinning workers burn about a third of a core
 * for as long as its process lives, and libgomp's teams spin a while after each dispatch; on
 * two cores that would be charged to whoever runs next. */

/* The processes whose parent is pid (from /proc), at most max. */
static int bc_children(pid_t pid, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	while (d && n < max && (e = readdir(d))) {
		char path[300], buf[512];
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
		if (f)
			fclose(f);
		buf[len] = 0;
		char *paren = strrchr(buf, ')'), state;
		int ppid;
		if (paren && sscanf(paren + 1, " %c %d", &state, &ppid) == 2 && ppid == pid)
			out[n++] = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

/* Whether pid is stopped (or gone). */
static bool bc_stopped(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return true;
	size_t len = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[len] = 0;
	char *paren = strrchr(buf, ')'), state = 0;
	return !paren || sscanf(paren + 1, " %c", &state) != 1 || state == 'T' || state == 'Z';
}

/* SIGSTOP to pid's descendants, each waited for until it has stopped (briefly: a process that
 * does not stop within 50 ms is left running). */
static void bc_stop_tree(pid_t pid)
{
	pid_t kids[64];
	int n = bc_children(pid, kids, 64);
	for (int i = 0; i < n; i++) {
		bc_stop_tree(kids[i]);
		if (kill(kids[i], SIGSTOP) == 0)
			for (int k = 0; k < 500 && !bc_stopped(kids[i]); k++)
				usleep(100);
	}
}

static void bc_cont_tree(pid_t pid)
{
	pid_t kids[64];
	int n = bc_children(pid, kids, 64);
	for (int i = 0; i < n; i++) {
		kill(kids[i], SIGCONT);
		bc_cont_tree(kids[i]);
	}
}

void bc_pause(pid_t pid)
{
	int st;
	if (pid > 0 && kill(pid, SIGSTOP) == 0) {
		waitpid(pid, &st, WUNTRACED);
		bc_stop_tree(pid);
	}
}

void bc_resume(pid_t pid)
{
	if (pid > 0) {
		bc_cont_tree(pid); /* the workers first: the front door finds them running */
		kill(pid, SIGCONT);
	}
}

/* Seconds of rounds after which a bench stops early ($WEBNN_BENCH_BUDGET, default 90). */
double bc_budget(void)
{
	const char *e = getenv("WEBNN_BENCH_BUDGET");
	return e && *e ? atof(e) : 90;
}

/* The extremes of v[0..n). */
void bc_range(const double *v, int n, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int i = 0; i < n; i++) {
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
}

/* A per-round ratio with its spread over the rounds: "1.02 [0.95..1.10]". */
void bc_print_ratio(const char *label, const double *a, const double *b, int n)
{
	double q[BC_MAX_ROUNDS], lo, hi;
	for (int r = 0; r < n; r++)
		q[r] = a[r] / b[r];
	bc_range(q, n, &lo, &hi);
	printf("    %-18s %6.2f [%.2f..%.2f]", label, bc_median(q, n), lo, hi);
}

int bc_rounds(void)
{
	const char *e = getenv("WEBNN_BENCH_ROUNDS");
	int n = e && *e ? atoi(e) : BC_ROUNDS;
	return n < 1 ? 1 : n > BC_MAX_ROUNDS ? BC_MAX_ROUNDS : n;
}

/* ------------------------------------------------------------------ daemons */


/* The last line of the daemon's log (its error, when start-up failed). */
static void bc_daemon_last_log(const struct bc_daemon *d, char *line, size_t len)
{
	char buf[512];
	FILE *f = fopen(d->log, "r");
	line[0] = 0;
	while (f && fgets(buf, sizeof buf, f))
		if (buf[0] != '\n')
			bc_fmt(line, len, "%s", buf);
	if (f)
		fclose(f);
	line[strcspn(line, "\n")] = 0;
}

static void bc_daemon_cleanup(struct bc_daemon *d)
{
	unlink(d->sock);
	unlink(d->log);
	rmdir(d->dir);
}

/* Starts bin (NULL: this build's webnnd) with --backend backend and env: "NAME=value" sets,
 * "-NAME" unsets (NULL-terminated), and connects a context to it. False with why. */
bool bc_daemon_start(struct bc_daemon *d, const char *bin, const char *backend,
			    const char *const *env, char *why, size_t why_len)
{
	return bc_daemon_start_with(d, bin, backend, env, NULL, why, why_len);
}

bool bc_daemon_start_with(struct bc_daemon *d, const char *bin, const char *backend,
			  const char *const *env, const char *const *args, char *why,
			  size_t why_len)
{
	char own[4096];
	memset(d, 0, sizeof *d);
	if (!bin) {
		snprintf(own, sizeof own, "%s/bin/webnnd", test_build_dir());
		bin = own;
	}
	snprintf(d->dir, sizeof d->dir, "/tmp/webnn-bench-XXXXXX");
	ASSERT_MSG(mkdtemp(d->dir), "mkdtemp: %s", strerror(errno));
	snprintf(d->sock, sizeof d->sock, "%s/webnnd.sock", d->dir);
	snprintf(d->log, sizeof d->log, "%s/webnnd.log", d->dir);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		int fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0)
			dup2(fd, 2);
		for (int i = 0; env && env[i]; i++)
			if (env[i][0] == '-')
				unsetenv(env[i] + 1);
			else
				putenv((char *)env[i]);
		const char *argv[24] = { bin, "--socket", d->sock, "--backend", backend };
		for (int i = 0; args && args[i] && i < 18; i++)
			argv[5 + i] = args[i];
		execv(bin, (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	d->pid = pid;
	for (int i = 0; i < 30000; i++) {
		if (test_socket_ready(d->sock))
			break;
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			char last[400];
			bc_daemon_last_log(d, last, sizeof last);
			d->pid = 0;
			bc_daemon_cleanup(d);
			bc_fmt(why, why_len,
			       "%s --backend %s exited during start-up (status %d): %s", bin,
			       backend, WIFEXITED(st) ? WEXITSTATUS(st) : -1, last);
			return false;
		}
		usleep(1000);
	}
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	char err[512] = "";
	co.socket_path = d->sock;
	co.client_name = "webnn-bench";
	enum webnn_status s = webnn_context_create(&co, &d->ctx, err, sizeof err);
	if (s != WEBNN_STATUS_OK) {
		bc_fmt(why, why_len, "%s --backend %s: context: %s: %s", bin, backend,
		       webnn_status_name(s), err);
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
		d->pid = 0;
		bc_daemon_cleanup(d);
		return false;
	}
	struct webnn_context_info info;
	webnn_context_get_info(d->ctx, &info);
	if (!info.backend || strcmp(info.backend, backend) != 0) {
		bc_fmt(why, why_len, "%s --backend %s served the context on the %s backend", bin,
		       backend, info.backend ? info.backend : "(unnamed)");
		bc_daemon_stop(d);
		return false;
	}
	snprintf(d->device, sizeof d->device, "%s", info.device_name ? info.device_name : "?");
	return true;
}

void bc_daemon_stop(struct bc_daemon *d)
{
	webnn_context_destroy(d->ctx);
	d->ctx = NULL;
	if (d->pid <= 0)
		return;
	kill(d->pid, SIGTERM);
	for (int i = 0; i < 3000 && waitpid(d->pid, NULL, WNOHANG) != d->pid; i++) {
		usleep(10000);
		if (i == 2999) {
			kill(d->pid, SIGKILL);
			waitpid(d->pid, NULL, 0);
		}
	}
	d->pid = 0;
	bc_daemon_cleanup(d);
}

/* ------------------------------------------------------------------ helper processes */


bool bc_child_cmd(struct bc_child *o, char *reply, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(o->to, fmt, ap);
	va_end(ap);
	fputc('\n', o->to);
	if (fflush(o->to) != 0 || !fgets(reply, (int)len, o->from)) {
		bc_fmt(reply, len, "err the helper process ended");
		return false;
	}
	reply[strcspn(reply, "\n")] = 0;
	return strncmp(reply, "err", 3) != 0;
}

/* Starts argv (from PATH) with pipes on its stdin and stdout and reads its first line, which
 * must be "ready <what it is>" (else "err <why>"); false with why. */
bool bc_child_start(struct bc_child *o, const char *const argv[], char *why, size_t why_len)
{
	int in[2], out[2];
	/* close-on-exec: a helper started later must not hold this one's stdin open */
	ASSERT(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execvp(argv[0], (char *const *)argv);
		printf("err cannot run %s: %s\n", argv[0], strerror(errno));
		fflush(stdout);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	o->pid = pid;
	o->to = fdopen(in[1], "w");
	o->from = fdopen(out[0], "r");
	char line[512] = "";
	if (!fgets(line, sizeof line, o->from) || strncmp(line, "ready ", 6) != 0) {
		line[strcspn(line, "\n")] = 0;
		bc_fmt(why, why_len, "%s", strncmp(line, "err ", 4) == 0 ? line + 4 : "no answer");
		fclose(o->to);
		fclose(o->from);
		waitpid(pid, NULL, 0);
		o->pid = 0;
		return false;
	}
	line[strcspn(line, "\n")] = 0;
	bc_fmt(o->version, sizeof o->version, "%s", line + 6);
	return true;
}

/* Starts the peer; false with why (no node, no onnxruntime-node, no script) when it cannot. */
bool bc_ort_start(struct bc_child *o, int threads, char *why, size_t why_len)
{
	char mod[4200], script[4200];
	const char *e = getenv("WEBNN_BENCH_ORT");
	struct stat st;
	memset(o, 0, sizeof *o);
	if (e && *e)
		snprintf(mod, sizeof mod, "%s", e);
	else
		snprintf(mod, sizeof mod, "%s/ort/node_modules/onnxruntime-node", test_build_dir());
	e = getenv("WEBNN_BENCH_SCRIPTS");
	snprintf(script, sizeof script, "%s/ort_bench.js", e && *e ? e : "bench");
	if (stat(script, &st) != 0) {
		bc_fmt(why, why_len, "%s not found (run make bench from the source tree)", script);
		return false;
	}
	if (stat(mod, &st) != 0) {
		bc_fmt(why, why_len,
		       "onnxruntime-node is not installed in %s (make bench installs it with npm; "
		       "no npm or no network?)",
		       mod);
		return false;
	}
	const char *node = getenv("WEBNN_BENCH_NODE");
	node = node && *node ? node : "node";
	char nthreads[16];
	snprintf(nthreads, sizeof nthreads, "%d", threads);
	const char *const argv[] = { node, script, mod, nthreads, NULL };
	return bc_child_start(o, argv, why, why_len);
}

/* Mean seconds of n session.run calls of session id; NAN on failure (message on stderr). */
double bc_ort_run(struct bc_child *o, const char *id, int n)
{
	char reply[4096];
	if (!bc_child_cmd(o, reply, sizeof reply, "run %s %d", id, n)) {
		fprintf(stderr, "onnxruntime %s: %s\n", id, reply);
		return NAN;
	}
	double sum = 0;
	int got = 0;
	for (char *p = reply + 1, *end; got < n; p = end, got++) {
		double v = strtod(p, &end);
		if (end == p)
			break;
		sum += v;
	}
	return got == n ? sum / n / 1e3 : NAN;
}

void bc_child_stop(struct bc_child *o)
{
	if (o->pid <= 0)
		return;
	fprintf(o->to, "quit\n");
	fclose(o->to);
	fclose(o->from);
	waitpid(o->pid, NULL, 0);
	o->pid = 0;
}