/* The task budget of the workers (pids.max, RLIMIT_NPROC) and a worker's check that its threads can start. */
#include "daemon/tasks.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* ---- the limits */

static long read_long(const char *path, bool *is_max)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char buf[64] = "";
	bool ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	if (is_max)
		*is_max = strncmp(buf, "max", 3) == 0;
	if (is_max && *is_max)
		return LONG_MAX;
	char *end;
	long v = strtol(buf, &end, 10);
	return end == buf || v < 0 ? -1 : v;
}

static void consider(struct tasks_limit *out, long max, long in_use, const char *what)
{
	long avail = max > in_use ? max - in_use : 0;
	if (out->available >= 0 && avail >= out->available)
		return;
	out->available = avail;
	out->max = max;
	out->in_use = in_use;
	snprintf(out->what, sizeof(out->what), "%s", what);
}

/* The pids cgroup of this process, as a directory under /sys/fs/cgroup (v1's pids hierarchy,
 * else v2's unified one); false when there is none. */
static bool pids_cgroup(char *dir, size_t len, size_t *base_len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return false;
	char line[512], v1[512] = "", v2[512] = "";
	bool have_v1 = false, have_v2 = false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *ctl = c1 + 1, *path = c2 + 1;
		if (!ctl[0]) {
			snprintf(v2, sizeof(v2), "%s", path);
			have_v2 = true;
		}
		for (const char *p = ctl; p && *p;) {
			if (strncmp(p, "pids", 4) == 0 && (p[4] == ',' || p[4] == '\0')) {
				snprintf(v1, sizeof(v1), "%s", path);
				have_v1 = true;
			}
			p = strchr(p, ',');
			p = p ? p + 1 : NULL;
		}
	}
	fclose(f);
	static const char *const v2_roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	if (have_v1) {
		*base_len = (size_t)snprintf(dir, len, "/sys/fs/cgroup/pids");
		snprintf(dir + *base_len, len - *base_len, "%s", strcmp(v1, "/") ? v1 : "");
		if (access(dir, F_OK) == 0)
			return true;
	}
	for (size_t i = 0; have_v2 && i < sizeof(v2_roots) / sizeof(v2_roots[0]); i++) {
		*base_len = (size_t)snprintf(dir, len, "%s", v2_roots[i]);
		snprintf(dir + *base_len, len - *base_len, "%s", strcmp(v2, "/") ? v2 : "");
		char probe[700];
		snprintf(probe, sizeof(probe), "%s/pids.current", dir);
		if (access(probe, F_OK) == 0)
			return true;
	}
	return false;
}

/* Tasks (threads) whose real uid is uid, all processes together: what RLIMIT_NPROC counts. */
static long tasks_of_uid(uid_t uid)
{
	DIR *proc = opendir("/proc");
	if (!proc)
		return -1;
	long n = 0;
	struct dirent *e;
	while ((e = readdir(proc))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char path[300], line[256];
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		long real = -1, threads = 0;
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "Uid:", 4) == 0)
				real = strtol(line + 4, NULL, 10);
			else if (strncmp(line, "Threads:", 8) == 0)
				threads = strtol(line + 8, NULL, 10);
		}
		fclose(f);
		if (real == (long)uid)
			n += threads;
	}
	closedir(proc);
	return n;
}

void tasks_limit_read(uid_t uid, struct tasks_limit *out)
{
	*out = (struct tasks_limit){ .available = -1, .max = -1, .in_use = -1 };
	char dir[600], path[700], what[200];
	size_t base_len = 0;
	if (pids_cgroup(dir, sizeof(dir), &base_len)) {
		/* A cgroup's limit binds its descendants: every level up to the root counts. */
		while (strlen(dir) > base_len) {
			bool is_max = false;
			snprintf(path, sizeof(path), "%s/pids.max", dir);
			long max = read_long(path, &is_max);
			snprintf(path, sizeof(path), "%s/pids.current", dir);
			long cur = read_long(path, NULL);
			if (max >= 0 && !is_max && cur >= 0) {
				snprintf(what, sizeof(what), "pids.max=%ld of %.150s", max, dir);
				consider(out, max, cur, what);
			}
			*strrchr(dir, '/') = '\0';
		}
	}
	struct rlimit rl;
	if (uid != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		long cur = tasks_of_uid(uid);
		if (cur >= 0) {
			snprintf(what, sizeof(what), "RLIMIT_NPROC=%ld of uid %u", (long)rl.rlim_cur,
				 (unsigned)uid);
			consider(out, (long)rl.rlim_cur, cur, what);
		}
	}
}

/* ---- the plan */

int tasks_cores(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return 1;
}

uint32_t tasks_worker_threads(uint32_t pool, uint32_t team)
{
	return TASKS_WORKER_FIXED + pool + 2 * team;
}

void tasks_plan_make(const struct tasks_limit *lim, uint32_t max_workers, uint32_t pool,
		     uint32_t team, struct tasks_plan *out)
{
	*out = (struct tasks_plan){ .workers = max_workers, .pool = pool, .team = team,
				    .per_worker = -1 };
	if (lim->available < 0 || max_workers == 0)
		return;
	long budget = lim->available - TASKS_DOOR_RESERVE;
	long per = budget > 0 ? budget / (long)max_workers : 0;
	out->per_worker = per;
	uint32_t pool_floor = pool < TASKS_POOL_SHRINK ? pool : TASKS_POOL_SHRINK;
	while ((long)tasks_worker_threads(out->pool, out->team) > per) {
		if (out->pool > pool_floor)
			out->pool--;
		else if (out->team > 1)
			out->team--;
		else if (out->pool > TASKS_POOL_MIN)
			out->pool--;
		else
			break;
		out->shrunk = true;
	}
	long need = tasks_worker_threads(out->pool, out->team);
	if (need > per) {
		/* The smallest workers do not fit max_workers times: fewer of them. */
		long fit = budget > 0 ? budget / need : 0;
		out->workers = (uint32_t)(fit < 1 ? 1 : fit);
		out->per_worker = need;
		out->shrunk = true;
	}
}

/* ---- the check */

struct probe {
	pthread_mutex_t lock;
	pthread_cond_t go;
	bool release;
};

static void *probe_main(void *arg)
{
	struct probe *p = arg;
	pthread_mutex_lock(&p->lock);
	while (!p->release)
		pthread_cond_wait(&p->go, &p->lock);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static int own_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int tasks_probe(int n, int first, int total, uid_t uid, char *why, size_t len)
{
	if (n <= 0)
		return 0;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	if (!t) {
		snprintf(why, len, "cannot check that %d threads can start: out of memory", n);
		return -ENOMEM;
	}
	struct probe p = { .release = false };
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.go, NULL);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64u << 10);
	int before = own_tasks(), started = 0, err = 0;
	for (; started < n; started++) {
		err = pthread_create(&t[started], &attr, probe_main, &p);
		if (err != 0)
			break;
	}
	/* Read while the probe's threads still hold their tasks. */
	struct tasks_limit lim = { .available = -1 };
	if (err == EAGAIN)
		tasks_limit_read(uid, &lim);
	pthread_mutex_lock(&p.lock);
	p.release = true;
	pthread_cond_broadcast(&p.go);
	pthread_mutex_unlock(&p.lock);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	pthread_attr_destroy(&attr);
	pthread_cond_destroy(&p.go);
	pthread_mutex_destroy(&p.lock);
	free(t);
	/* A joined thread's task is released a moment after the join returns: the threads that
	 * start next must not find the probe's still counted. */
	for (int i = 0; i < 200 && before > 0 && own_tasks() > before; i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	if (err == 0)
		return 0;
	int k = first + started + 1;
	if (err == EAGAIN && lim.available >= 0)
		snprintf(why, len, "cannot start thread %d of %d: the task limit (%s, %ld in use) "
			 "is reached", k, total, lim.what, lim.in_use);
	else if (err == EAGAIN)
		snprintf(why, len, "cannot start thread %d of %d: %s (no pids.max or RLIMIT_NPROC "
			 "is reached: kernel.threads-max, or memory for its stack?)", k, total,
			 strerror(err));
	else
		snprintf(why, len, "cannot start thread %d of %d: %s", k, total, strerror(err));
	return -err;
}
