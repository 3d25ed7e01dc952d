/* The lockdown (webnnd-testhooks): seccomp kills, Landlock, /proc status, service user, fds. */
#include "tests/ptclient.h"
#include "tests/test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* webnnd with the sandbox's test hooks; clients of other uids may reach its socket. */
static void start_hooks(struct test_daemon *d, const char *const *args)
{
	char bin[4096];
	snprintf(bin, sizeof(bin), "%s/bin/webnnd-testhooks", test_build_dir());
	test_daemon_start_binary(d, bin, args);
	ASSERT(chmod(d->dir, 0755) == 0);
}

/* The user a daemon started as root runs as: "webnn" when it exists, else nobody. */
static void service_ids(uid_t *uid, gid_t *gid)
{
	if (geteuid() != 0) { /* only root changes users: webnnd keeps the one it started as */
		*uid = geteuid();
		*gid = getegid();
		return;
	}
	struct passwd *pw = getpwnam("webnn");
	if (!pw)
		pw = getpwnam("nobody");
	ASSERT_MSG(pw, "no user webnn or nobody");
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void send_hello(struct pt_conn *c, const char *client_name)
{
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__Hello h;
	pt_hello_fill(&m, &h, client_name);
	m.has_serial = true;
	m.serial = ++c->serial;
	pt_send(c, &m);
}

/* The worker still serves: a new connection's context makes an add round trip. */
static void expect_serving(const struct test_daemon *d)
{
	struct pt_conn c;
	pt_connect(&c, d);
	pt_hello(&c, "test_sandbox");
	pt_create_context(&c, 1);
	pt_add_roundtrip(&c, 1, 2, 0.5f);
	pt_close(&c);
}

/* What a test hook answered (the HelloReply's server_name) on a new connection. */
static void hook(const struct test_daemon *d, const char *action, char *out, size_t len)
{
	char name[256];
	snprintf(name, sizeof(name), "wnn-test:%s", action);
	struct pt_conn c;
	pt_connect(&c, d);
	send_hello(&c, name);
	Webnn__Ipc__ServerMessage *s = pt_recv(&c);
	ASSERT_MSG(s, "the worker hung up on hook '%s'", action);
	ASSERT_MSG(s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY && !s->reply->error &&
			   s->reply->body_case == WEBNN__IPC__REPLY__BODY_HELLO,
		   "hook '%s': no HelloReply", action);
	snprintf(out, len, "%s", s->reply->hello->server_name);
	pt_free(s);
	pt_close(&c);
}

/* ---- /proc */

/* The children of pid (every thread's), at most max. */
static int children(pid_t pid, pid_t *out, int max)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *dir = opendir(path);
	ASSERT_MSG(dir, "%s: %s", path, strerror(errno));
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		char file[300];
		snprintf(file, sizeof(file), "/proc/%d/task/%s/children", (int)pid, e->d_name);
		FILE *f = fopen(file, "r");
		if (!f)
			continue;
		int c;
		while (n < max && fscanf(f, "%d", &c) == 1)
			out[n++] = c;
		fclose(f);
	}
	closedir(dir);
	return n;
}

static void comm(pid_t pid, char *out, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	out[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

/* The daemon's device workers: its children named wnn-u<uid> or wnn-spare. */
static int workers(pid_t door, pid_t *out, int max)
{
	pid_t kids[64];
	int n = children(door, kids, 64), k = 0;
	for (int i = 0; i < n && k < max; i++) {
		char name[32];
		comm(kids[i], name, sizeof(name));
		if (strncmp(name, "wnn-u", 5) == 0 || strcmp(name, "wnn-spare") == 0)
			out[k++] = kids[i];
	}
	return k;
}

static pid_t worker_of(pid_t door, uid_t uid)
{
	pid_t w[64];
	int n = workers(door, w, 64);
	char want[32];
	snprintf(want, sizeof(want), "wnn-u%u", (unsigned)uid);
	for (int i = 0; i < n; i++) {
		char name[32];
		comm(w[i], name, sizeof(name));
		if (strcmp(name, want) == 0)
			return w[i];
	}
	return 0;
}

/* The line of /proc/<pid>/task/<tid>/status that starts with key ("" when none). */
static void status_line(pid_t pid, const char *tid, const char *key, char *out, size_t len)
{
	char path[128], line[256];
	snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)pid, tid);
	out[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, len, "%s", line);
			break;
		}
	fclose(f);
}

/* Every thread of pid: no_new_privs, the seccomp filter (when seccomp), the service user.
 * Returns the number of threads, or -1 when one is not filtered yet (a worker starting). */
static int check_threads(pid_t pid, bool seccomp, uid_t uid, gid_t gid)
{
	char path[64], want_uid[64], want_gid[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	snprintf(want_uid, sizeof(want_uid), "Uid:\t%u\t%u\t%u\t%u", uid, uid, uid, uid);
	snprintf(want_gid, sizeof(want_gid), "Gid:\t%u\t%u\t%u\t%u", gid, gid, gid, gid);
	DIR *dir = opendir(path);
	ASSERT_MSG(dir, "%s: %s", path, strerror(errno));
	int n = 0, unfiltered = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		char v[256];
		status_line(pid, e->d_name, "NoNewPrivs:", v, sizeof(v));
		ASSERT_MSG(strcmp(v, "NoNewPrivs:\t1") == 0, "pid %d thread %s: '%s'", (int)pid,
			   e->d_name, v);
		status_line(pid, e->d_name, "Uid:", v, sizeof(v));
		ASSERT_MSG(strcmp(v, want_uid) == 0, "pid %d thread %s: '%s', want '%s'", (int)pid,
			   e->d_name, v, want_uid);
		status_line(pid, e->d_name, "Gid:", v, sizeof(v));
		ASSERT_MSG(strcmp(v, want_gid) == 0, "pid %d thread %s: '%s', want '%s'", (int)pid,
			   e->d_name, v, want_gid);
		status_line(pid, e->d_name, "Seccomp:", v, sizeof(v));
		if (seccomp && strcmp(v, "Seccomp:\t2") != 0)
			unfiltered++;
		n++;
	}
	closedir(dir);
	return unfiltered ? -1 : n;
}

/* Whether file holds the bytes of needle. */
static bool file_contains(const char *path, const char *needle)
{
	FILE *f = fopen(path, "rb");
	ASSERT_MSG(f, "%s: %s", path, strerror(errno));
	static char buf[1 << 20];
	size_t keep = 0, nl = strlen(needle);
	bool found = false;
	for (;;) {
		size_t got = fread(buf + keep, 1, sizeof(buf) - keep, f);
		if (got == 0)
			break;
		size_t have = keep + got;
		if (memmem(buf, have, needle, nl)) {
			found = true;
			break;
		}
		keep = nl - 1 < have ? nl - 1 : have;
		memmove(buf, buf + have - keep, keep);
	}
	fclose(f);
	return found;
}

/* ---- tests */

/* socket(AF_INET) is not on a worker's list: the filter kills that worker (SIGSYS), its
 * clients get a Goodbye saying so, another user's worker keeps serving, and the killed uid's
 * next connection gets a new worker at once. */
TEST_TIMEOUT(sandbox_forbidden_syscall_kills_only_its_worker, 120)
{
	REQUIRE_ROOT("the bystander is another local user (uid 65534)");
	struct test_daemon d;
	start_hooks(&d, pt_reference);
	int served[2], go[2];
	ASSERT(pipe(served) == 0 && pipe(go) == 0);
	pid_t other = fork();
	ASSERT(other >= 0);
	if (other == 0) {
		close(served[0]);
		close(go[1]);
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(2);
		struct pt_conn c;
		pt_connect(&c, &d);
		pt_hello(&c, "another user");
		pt_create_context(&c, 1);
		pt_add_roundtrip(&c, 1, 10, 1.5f);
		char b = 1;
		if (write(served[1], &b, 1) != 1 || read(go[0], &b, 1) != 1)
			_exit(3);
		pt_add_roundtrip(&c, 1, 20, 2.5f); /* the same context, after the other's crash */
		pt_close(&c);
		_exit(0);
	}
	close(served[1]);
	close(go[0]);
	char b;
	ASSERT_MSG(read(served[0], &b, 1) == 1, "the client of uid 65534 was not served");

	struct pt_conn victim, bad;
	pt_connect(&victim, &d);
	pt_hello(&victim, "victim");
	pt_create_context(&victim, 1);
	pid_t first = worker_of(d.pid, geteuid());
	ASSERT_MSG(first > 0, "no worker named wnn-u0");
	pt_connect(&bad, &d);
	send_hello(&bad, "wnn-test:socket-inet");
	pt_expect_goodbye(&bad, "the device worker for uid 0 killed by signal 31 (SYS)");
	pt_expect_goodbye(&victim, "killed by signal 31 (SYS): its contexts are lost");
	pt_close(&bad);
	pt_close(&victim);

	double t0 = now_s();
	struct pt_conn again;
	pt_connect(&again, &d);
	pt_hello(&again, "again");
	pt_create_context(&again, 1);
	pt_add_roundtrip(&again, 1, 2, 3.5f);
	double dt = now_s() - t0;
	printf("  a new worker served uid 0 %.3f s after its worker was killed\n", dt);
	ASSERT_MSG(dt < 1.0, "the killed uid waited %.2f s for a new worker", dt);
	pid_t second = worker_of(d.pid, geteuid());
	ASSERT_MSG(second > 0 && second != first, "uid 0 is not served by a new worker (%d, %d)",
		   (int)first, (int)second);
	pt_close(&again);

	ASSERT(write(go[1], &b, 1) == 1);
	int st;
	ASSERT(waitpid(other, &st, 0) == other);
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the client of uid 65534 failed (%#x)",
		   st);
	test_daemon_stop(&d);
}

/* Landlock: a worker opens no file outside its system paths and caches, whatever its user:
 * /etc/shadow is refused even to a worker that kept root (--user root), and world-readable
 * /etc/passwd too, while the dynamic loader's cache is allowed. */
TEST_TIMEOUT(sandbox_worker_files_are_restricted, 120)
{
	REQUIRE_ROOT("the worker runs as the service user and as root (--user root)");
	static const char *const as_service[] = { "--backend", "reference", NULL };
	static const char *const as_root[] = { "--backend", "reference", "--user", "root", NULL };
	const char *const *runs[] = { as_service, as_root };
	for (int i = 0; i < 2; i++) {
		struct test_daemon d;
		start_hooks(&d, runs[i]);
		char got[300];
		hook(&d, "open:/etc/shadow", got, sizeof(got));
		ASSERT_CONTAINS(got, "errno 13 (EACCES)");
		hook(&d, "open:/etc/passwd", got, sizeof(got));
		ASSERT_CONTAINS(got, "errno 13 (EACCES)");
		hook(&d, "open:/root", got, sizeof(got));
		ASSERT_CONTAINS(got, "errno 13 (EACCES)");
		hook(&d, "open:/etc/ld.so.cache", got, sizeof(got));
		ASSERT_CONTAINS(got, "opened");
		/* The hooks left the worker serving. */
		expect_serving(&d);
		test_daemon_stop(&d);
	}
}

/* ---- what a worker can open of /proc and /sys */

enum worker_open { WORKER_OPENED, WORKER_REFUSED, WORKER_OTHER };

/* Whether d's worker for uid 0 opens path read-only; got: its answer. */
static enum worker_open worker_open(const struct test_daemon *d, const char *path, char *got,
				    size_t len)
{
	char action[300];
	snprintf(action, sizeof(action), "open:%s", path);
	hook(d, action, got, len);
	if (strstr(got, ": opened"))
		return WORKER_OPENED;
	return strstr(got, "errno 13 (EACCES)") ? WORKER_REFUSED : WORKER_OTHER;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static bool in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(name, *list) == 0)
			return true;
	return false;
}

/* Opens every entry of dir (/proc, /sys) in the worker and prints those it could; fails if
 * one outside `allowed` opened, or, for /proc, any process directory but own's. */
static void list_openable(const struct test_daemon *d, const char *dir, pid_t own,
			  const char *const *allowed, const char *who)
{
	DIR *dd = opendir(dir);
	ASSERT_MSG(dd, "%s: %s", dir, strerror(errno));
	char opened[2048] = "", got[300];
	int n = 0, pids = 0;
	bool own_opened = false;
	struct dirent *e;
	while ((e = readdir(dd))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char path[300];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		enum worker_open r = worker_open(d, path, got, sizeof(got));
		if (all_digits(e->d_name)) {
			pids++;
			bool is_own = atoi(e->d_name) == (int)own;
			/* Not own: refused, or gone since the listing (ENOENT). */
			ASSERT_MSG((r == WORKER_OPENED) == is_own, "%s: %s", who, got);
			own_opened |= is_own;
			continue;
		}
		n++;
		if (r != WORKER_OPENED)
			continue;
		ASSERT_MSG(in_list(e->d_name, allowed), "%s: the worker opened %s", who, path);
		size_t l = strlen(opened);
		snprintf(opened + l, sizeof(opened) - l, " %s", e->d_name);
	}
	closedir(dd);
	if (pids) {
		ASSERT_MSG(own_opened, "%s: the worker could not open its own /proc/%d", who,
			   (int)own);
		printf("  %s: of %s's %d process directories the worker opens only its own; of its "
		       "%d other entries:%s\n", who, dir, pids, n, *opened ? opened : " none");
	} else {
		printf("  %s: of %s's %d entries the worker opens:%s\n", who, dir, n,
		       *opened ? opened : " none");
	}
}

/* Paths of pid's own cgroups (from /proc/<pid>/cgroup, at the usual mount points): its cpuset
 * (hwloc reads it) into ok, its member list into fail; n_ok, n_fail: counts so far, at most
 * max_ok and max_fail. */
static void own_cgroup_paths(pid_t pid, char (*ok)[160], int *n_ok, int max_ok,
			     char (*fail)[160], int *n_fail, int max_fail)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	FILE *f = fopen(path, "r");
	ASSERT_MSG(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = 0;
		const char *cg = strcmp(c2 + 1, "/") == 0 ? "" : c2 + 1;
		const char *v2[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
		for (int i = 0; i < 2 && *n_ok < max_ok && *n_fail < max_fail; i++) {
			char dir[300];
			if (strcmp(c1 + 1, "cpuset") == 0 && i == 0)
				snprintf(dir, sizeof(dir), "/sys/fs/cgroup/cpuset%.200s", cg);
			else if (!c1[1])
				snprintf(dir, sizeof(dir), "%s%.200s", v2[i], cg);
			else
				continue;
			snprintf(ok[(*n_ok)++], 160, "%.120s/%s", dir,
				 c1[1] ? "cpuset.cpus" : "cpuset.cpus.effective");
			snprintf(fail[(*n_fail)++], 160, "%.120s/cgroup.procs", dir);
		}
	}
	fclose(f);
}

/* The worker's view of /proc and /sys (issue 18): its own /proc/<pid> (not its network
 * namespace's sockets under net/), cpuinfo, meminfo, the CPU and NUMA topology and its own
 * cgroup's limits; no other process (the front door, the spawner, the spare worker, init, the
 * client), no kallsyms, /proc/sys, /sys/kernel, /sys/class or cgroup members. Run as the
 * service user and as root (--user root: no permission bit refuses anything, so every
 * refusal is Landlock's); the test itself, unconfined, opens every path it expects refused. */
TEST_TIMEOUT(sandbox_worker_sees_only_its_own_proc_and_sys, 300)
{
	REQUIRE_ROOT("the worker runs as the service user and as root (--user root)");
	static const char *const as_service[] = { "--backend", "reference", NULL };
	static const char *const as_root[] = { "--backend", "reference", "--user", "root", NULL };
	const char *const *runs[] = { as_service, as_root };
	const char *const who[] = { "service user", "root" };
	for (int run = 0; run < 2; run++) {
		struct test_daemon d;
		start_hooks(&d, runs[run]);
		char got[300];
		ASSERT(worker_open(&d, "/proc/self/status", got, sizeof(got)) == WORKER_OPENED);
		pid_t own = worker_of(d.pid, geteuid()), spare = 0, spawner = 0;
		ASSERT_MSG(own > 0, "no worker named wnn-u0");
		pid_t kids[64];
		int nk = children(d.pid, kids, 64);
		for (int i = 0; i < nk; i++) {
			char name[32];
			comm(kids[i], name, sizeof(name));
			if (strcmp(name, "wnn-spawner") == 0)
				spawner = kids[i];
			if (strcmp(name, "wnn-spare") == 0)
				spare = kids[i];
		}
		char fail[64][160];
		int nf = 0;
		static const char *const fixed_fail[] = {
			"/proc/1/cmdline", "/proc/1/status", "/proc/self/../1/status",
			"/proc/kallsyms", "/proc/modules", "/proc/sys/kernel/ostype",
			"/proc/sys/kernel/hostname", "/proc/net/unix", "/proc/self/net/tcp",
			"/proc/thread-self/net/unix", "/proc/stat", "/proc", "/sys", "/sys/kernel",
			"/sys/class/net", "/sys/bus/pci/devices", "/sys/firmware", "/sys/fs/cgroup",
			"/sys/fs/cgroup/cgroup.procs", "/etc/shadow", "/etc/passwd", "/home", "/root",
		};
		for (size_t i = 0; i < sizeof(fixed_fail) / sizeof(fixed_fail[0]); i++)
			snprintf(fail[nf++], sizeof(fail[0]), "%s", fixed_fail[i]);
		snprintf(fail[nf++], sizeof(fail[0]), "/proc/%d/environ", (int)d.pid);
		snprintf(fail[nf++], sizeof(fail[0]), "/proc/%d/cmdline", (int)d.pid);
		snprintf(fail[nf++], sizeof(fail[0]), "/proc/%d/cmdline", (int)getpid());
		if (spawner)
			snprintf(fail[nf++], sizeof(fail[0]), "/proc/%d/environ", (int)spawner);
		if (spare)
			snprintf(fail[nf++], sizeof(fail[0]), "/proc/%d/maps", (int)spare);
		/* Every cgroup hierarchy's member list (v1: one per controller). */
		DIR *cg = opendir("/sys/fs/cgroup");
		struct dirent *e;
		while (cg && (e = readdir(cg)) && nf < 64)
			if (e->d_name[0] != '.')
				snprintf(fail[nf++], sizeof(fail[0]), "/sys/fs/cgroup/%.100s/cgroup.procs",
					 e->d_name);
		if (cg)
			closedir(cg);
		char cg_ok[16][160];
		int n_cg = 0;
		own_cgroup_paths(own, cg_ok, &n_cg, 16, fail, &nf, 64);
		int refused = 0;
		for (int i = 0; i < nf; i++) {
			int fd = open(fail[i], O_RDONLY | O_CLOEXEC);
			if (fd < 0) /* not on this machine (v2 has no per-controller directories) */
				continue;
			close(fd);
			enum worker_open r = worker_open(&d, fail[i], got, sizeof(got));
			ASSERT_MSG(r == WORKER_REFUSED, "%s: %s", who[run], got);
			refused++;
		}
		char own_status[64], open_ok[32][160];
		snprintf(own_status, sizeof(own_status), "/proc/%d/status", (int)own);
		static const char *const fixed_ok[] = {
			"/proc/self/status", "/proc/self/maps", "/proc/self/cgroup", "/proc/mounts",
			"/proc/self/fd", "/proc/self/task", "/proc/thread-self", "/proc/cpuinfo",
			"/proc/meminfo", "/sys/devices/system/cpu", "/sys/devices/system/cpu/online",
			"/etc/ld.so.cache",
		};
		int no = 0;
		snprintf(open_ok[no++], sizeof(open_ok[0]), "%s", own_status);
		for (size_t i = 0; i < sizeof(fixed_ok) / sizeof(fixed_ok[0]); i++)
			snprintf(open_ok[no++], sizeof(open_ok[0]), "%s", fixed_ok[i]);
		for (int i = 0; i < no; i++)
			ASSERT_MSG(worker_open(&d, open_ok[i], got, sizeof(got)) == WORKER_OPENED,
				   "%s: %s", who[run], got);
		/* Its cpuset, where this machine has one the test can read. */
		for (int i = 0; i < n_cg; i++) {
			int fd = open(cg_ok[i], O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			close(fd);
			ASSERT_MSG(worker_open(&d, cg_ok[i], got, sizeof(got)) == WORKER_OPENED,
				   "%s: %s", who[run], got);
			printf("  %s: the worker reads its cpuset %s\n", who[run], cg_ok[i]);
			snprintf(open_ok[no++], sizeof(open_ok[0]), "%.150s", cg_ok[i]);
		}
		printf("  %s: the worker (pid %d) was refused all %d probes of other processes, "
		       "kernel and cgroup files, and opened its %d own and topology files\n",
		       who[run], (int)own, refused, no);
		/* /proc/net and /proc/mounts lead into the worker's own /proc/<pid>. */
		static const char *const proc_allowed[] = { "self",    "thread-self", "cpuinfo",
							    "meminfo", "mounts",      "net",
							    NULL };
		static const char *const sys_allowed[] = { NULL };
		list_openable(&d, "/proc", own, proc_allowed, who[run]);
		list_openable(&d, "/sys", own, sys_allowed, who[run]);
		/* The kernel may drop /proc's dentries (memory pressure; here, on demand), after
		 * which procfs makes new inodes for the same names: the rules still hold. */
		int dc = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
		if (dc >= 0 && write(dc, "2", 1) == 1) {
			for (int i = 0; i < no; i++)
				ASSERT_MSG(worker_open(&d, open_ok[i], got, sizeof(got)) ==
						   WORKER_OPENED,
					   "%s, after the dentries were dropped: %s", who[run], got);
			printf("  %s: and again after the kernel dropped its dentries\n",
			       who[run]);
		} else {
			printf("  %s: cannot drop the dentry cache (%s): not checked\n", who[run],
			       strerror(errno));
		}
		if (dc >= 0)
			close(dc);
		/* The probes left the worker serving. */
		expect_serving(&d);
		test_daemon_stop(&d);
	}
}

/* After a dispatch (OpenMP, libuv and PoCL threads exist), every thread of every worker and
 * of the front door has no_new_privs and the seccomp filter, and runs as the service user. */
static void check_locked_daemon(const char *backend)
{
	const char *const args[] = { "--backend", backend, NULL };
	struct test_daemon d;
	test_daemon_start(&d, args);
	struct pt_conn c;
	pt_connect(&c, &d);
	c.timeout_ms = 240000; /* a cold OpenCL compile */
	pt_hello(&c, "test_sandbox");
	pt_create_context(&c, 1);
	pt_add_roundtrip(&c, 1, 2, 0.5f);
	uid_t uid;
	gid_t gid;
	service_ids(&uid, &gid);
	int n_door = check_threads(d.pid, true, uid, gid);
	ASSERT_MSG(n_door > 0, "a front door thread has no seccomp filter");
	/* The spare may still be starting: its threads are filtered once it reports ready. */
	pid_t w[64];
	int n = 0, threads = 0, served = 0;
	for (int tries = 0; tries < 600; tries++) {
		n = workers(d.pid, w, 64);
		threads = 0;
		served = 0;
		bool all = n >= 2; /* the one serving uid 0 and the spare */
		for (int i = 0; i < n && all; i++) {
			int t = check_threads(w[i], true, uid, gid);
			all = t > 0;
			threads += t;
			if (w[i] == worker_of(d.pid, geteuid()))
				served = t;
		}
		if (all)
			break;
		n = -1;
		usleep(50 * 1000);
	}
	ASSERT_MSG(n >= 2, "the workers of the %s daemon were not all filtered within 30 s",
		   backend);
	ASSERT_MSG(served > 1, "the serving worker has %d thread(s)", served);
	/* The spawners (the primary and its standby) fork workers and so carry no filter of
	 * their own, but no_new_privs and the service user. */
	pid_t kids[64];
	int nk = children(d.pid, kids, 64), spawners = 0;
	for (int i = 0; i < nk; i++) {
		char name[32];
		comm(kids[i], name, sizeof(name));
		if (strcmp(name, "wnn-spawner") == 0) {
			ASSERT(check_threads(kids[i], false, uid, gid) == 1);
			spawners++;
		}
	}
	ASSERT_EQ(spawners, 2);
	printf("  %s: front door %d thread(s), %d workers with %d threads: NoNewPrivs 1, "
	       "Seccomp 2, uid %u\n", backend, n_door, n, threads, (unsigned)uid);
	pt_close(&c);
	test_daemon_stop(&d);
}

TEST_TIMEOUT(sandbox_every_thread_locked_down, 400)
{
	setenv("WEBNN_NO_WARMUP", "1", 1);
	check_locked_daemon("cpu");
	if (test_have_opencl())
		check_locked_daemon("opencl");
	else
		printf("  no OpenCL device: the opencl worker was not checked\n");
}

static bool tree_has_suffix(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		size_t n = strlen(e->d_name), s = strlen(suffix);
		struct stat st;
		if (lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			found = tree_has_suffix(path, suffix);
		else
			found = n > s && strcmp(e->d_name + n - s, suffix) == 0;
	}
	closedir(d);
	return found;
}

/* PoCL compiles and links (/usr/bin/ld) a new kernel at its first enqueue, after the worker
 * locked down: with an empty cache the graph still builds and computes; ld is the one program
 * the worker may run. */
TEST_TIMEOUT(sandbox_opencl_compiles_after_lockdown, 400)
{
	if (!test_have_opencl())
		SKIP("no OpenCL device");
	char root[4096], cache[4200], pocl[4300];
	test_scratch_dir(root, sizeof(root), "webnn-sandbox-cache");
	ASSERT(chmod(root, 0755) == 0); /* the service user creates and owns cache/ */
	snprintf(cache, sizeof(cache), "%s/cache", root);
	snprintf(pocl, sizeof(pocl), "%s/pocl", cache);
	setenv("WEBNN_CACHE_DIR", cache, 1);
	unsetenv("POCL_CACHE_DIR");
	setenv("WEBNN_NO_WARMUP", "1", 1);
	static const char *const args[] = { "--backend", "opencl", NULL };
	struct test_daemon d;
	start_hooks(&d, args);
	ASSERT_MSG(!tree_has_suffix(pocl, ".so"), "PoCL's cache is not empty");
	struct pt_conn c;
	pt_connect(&c, &d);
	c.timeout_ms = 240000;
	pt_hello(&c, "test_sandbox");
	pt_create_context(&c, 1);
	pt_add_roundtrip(&c, 1, 2, 4.5f);
	ASSERT_MSG(tree_has_suffix(pocl, ".so"), "no kernel was linked into %s", pocl);
	char got[300];
	hook(&d, "exec:/bin/true", got, sizeof(got));
	ASSERT_CONTAINS(got, "errno 13 (EACCES)");
	pt_add_roundtrip(&c, 1, 10, 5.5f);
	pt_close(&c);
	test_daemon_stop(&d);
	char cmd[4400];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ASSERT(system(cmd) == 0);
}

/* Descriptors webnnd inherits are closed in the front door, the spawner and every worker. */
TEST(sandbox_inherited_fds_closed)
{
	/* webnnd's processes are not dumpable: only root reads their /proc/<pid>/fd */
	REQUIRE_ROOT("reading the fd tables of webnnd's processes");
	int p[2];
	ASSERT(pipe(p) == 0); /* not close-on-exec: webnnd inherits both ends */
	char want[64], path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	ssize_t n = readlink(path, want, sizeof(want) - 1);
	ASSERT(n > 0);
	want[n] = 0;
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "test_sandbox");
	pid_t procs[66];
	int np = children(d.pid, procs + 1, 64) + 1;
	procs[0] = d.pid;
	ASSERT(np >= 3); /* the front door, the spawner, a worker */
	for (int i = 0; i < np; i++) {
		char dir[64];
		snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)procs[i]);
		DIR *fds = opendir(dir);
		ASSERT_MSG(fds, "%s: %s", dir, strerror(errno));
		struct dirent *e;
		while ((e = readdir(fds))) {
			char link[400], target[256];
			snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
			ssize_t l = readlink(link, target, sizeof(target) - 1);
			if (l <= 0)
				continue;
			target[l] = 0;
			ASSERT_MSG(strcmp(target, want) != 0, "pid %d kept the inherited %s as fd %s",
				   (int)procs[i], want, e->d_name);
		}
		closedir(fds);
	}
	pt_close(&c);
	test_daemon_stop(&d);
	close(p[0]);
	close(p[1]);
}

/* The hooks exist in webnnd-testhooks only. */
TEST(sandbox_test_hooks_only_in_test_builds)
{
	char bin[4096];
	snprintf(bin, sizeof(bin), "%s/bin/webnnd", test_build_dir());
	ASSERT_MSG(!file_contains(bin, "wnn-test:"), "%s contains the sandbox test hooks", bin);
	snprintf(bin, sizeof(bin), "%s/bin/webnnd-testhooks", test_build_dir());
	ASSERT_MSG(file_contains(bin, "wnn-test:"), "%s lacks the sandbox test hooks", bin);
}
