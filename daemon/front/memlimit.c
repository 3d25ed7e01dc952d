/* The memory webnnd may use (its cgroup's limit, else the host's memory), the memory budgets' defaults derived from it, and the OOM killer's preference for workers. */
#include "daemon/front/memlimit.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A number from a one-line file; 0 when absent, unreadable or "max" (no limit). */
static uint64_t read_bytes(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char line[64] = "";
	bool ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!ok || strncmp(line, "max", 3) == 0)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(line, &end, 10);
	return errno || end == line ? 0 : (uint64_t)v;
}

static uint64_t smaller(uint64_t a, uint64_t b)
{
	return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

/* The smallest limit in file `name` of the cgroup `rel` (under the hierarchy's mount `root`)
 * and its ancestors: a parent's limit binds its children too. */
static uint64_t cgroup_limit(const char *root, const char *rel, const char *name)
{
	char path[4096];
	char dir[3072];
	snprintf(dir, sizeof(dir), "%s", rel);
	uint64_t best = 0;
	for (;;) {
		snprintf(path, sizeof(path), "%s%s/%s", root, strcmp(dir, "/") == 0 ? "" : dir, name);
		best = smaller(best, read_bytes(path));
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir) {
			if (strcmp(dir, "/") == 0)
				break;
			snprintf(dir, sizeof(dir), "/");
			continue;
		}
		*slash = '\0';
	}
	return best;
}

/* cgroup v1 reports "no limit" as a page-rounded LONG_MAX. */
#define CGROUP_V1_UNLIMITED (1ull << 62)

uint64_t memlimit_cgroup(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return 0;
	char line[3200];
	uint64_t limit = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *controllers = c1 + 1, *rel = c2 + 1;
		if (strcmp(line, "0") == 0 && *controllers == '\0') {
			limit = smaller(limit, cgroup_limit("/sys/fs/cgroup", rel, "memory.max"));
		} else if (strstr(controllers, "memory")) {
			uint64_t v = cgroup_limit("/sys/fs/cgroup/memory", rel,
						  "memory.limit_in_bytes");
			limit = smaller(limit, v >= CGROUP_V1_UNLIMITED ? 0 : v);
		}
	}
	fclose(f);
	return limit;
}

uint64_t memlimit_host(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	if (!f)
		return 0;
	char line[128];
	unsigned long long kib = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return (uint64_t)kib << 10;
}

uint64_t memlimit_available(void)
{
	return smaller(memlimit_cgroup(), memlimit_host());
}

static uint64_t share(uint64_t memory, unsigned percent)
{
	return memory > UINT64_MAX / 100 ? memory / 100 * percent : memory * percent / 100;
}

void memlimit_derive_budgets(struct daemon_limits *l, uint64_t memory)
{
	if (memory == 0)
		return;
	uint64_t total = share(memory, MEMLIMIT_TOTAL_PERCENT);
	uint64_t uid = share(memory, MEMLIMIT_UID_PERCENT);
	if (total && total < l->max_total_bytes)
		l->max_total_bytes = total;
	if (uid && uid < l->max_uid_bytes)
		l->max_uid_bytes = uid;
	if (uid && uid < l->max_connection_bytes)
		l->max_connection_bytes = uid;
}

int memlimit_prefer_oom_kill(int adj)
{
	FILE *f = fopen("/proc/self/oom_score_adj", "re");
	int now = 0;
	bool known = f && fscanf(f, "%d", &now) == 1;
	if (f)
		fclose(f);
	if (known && now >= adj)
		return 0; /* already as likely a victim (lowering it would need privileges) */
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char text[16];
	int n = snprintf(text, sizeof(text), "%d\n", adj);
	int r = write(fd, text, (size_t)n) == n ? 0 : -errno;
	close(fd);
	return r;
}
