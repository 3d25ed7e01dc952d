/* The task budget: the threads a device worker may start under the service's task limits (the pids cgroup's pids.max, RLIMIT_NPROC), and the check a worker makes before starting them. */
#ifndef DAEMON_TASKS_H
#define DAEMON_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Every thread is a task: the kernel refuses pthread_create (EAGAIN) past the pids cgroup's
 * pids.max (systemd's TasksMax=) or past RLIMIT_NPROC (tasks of the real uid, all processes
 * together; not enforced for root). libuv aborts the process when its pool cannot start, and
 * libgomp exits when a team cannot, neither saying why. So the front door sizes each worker's
 * threads to fit max_workers workers into what the limits leave (tasks_plan_make), passes the
 * sizes on the workers' command line, and a worker first starts all its threads once as a
 * check (tasks_probe): when one cannot start, it tells the front door which limit stopped it,
 * and the door passes that on to the client waiting for the worker.
 *
 * A worker's threads: its loop thread, the thread pool (worker_pool_threads), and with the
 * cpu backend the compute thread and the rest of its OpenMP team (--threads, the cores by
 * default; the compute thread is the team's master) and as many keep-awake threads (one per
 * team thread, at most one per core: daemon/backend/cpu/cpu_backend.c). So 1 + pool + 2 team.
 */
#define TASKS_WORKER_FIXED 1  /* the loop thread */
#define TASKS_DOOR_RESERVE 8  /* the front door, the spawner, the warm-up child, slack */
#define TASKS_POOL_MIN 2      /* fewer would serialise a worker's blocking commands */
#define TASKS_POOL_SHRINK 4   /* the pool gives way down to this before the team does */

struct tasks_limit {
	long available;   /* tasks that may still start; -1: no limit applies */
	long max, in_use; /* of the binding limit */
	char what[200];   /* names it: "pids.max=256 of /sys/fs/cgroup/...", "RLIMIT_NPROC=..." */
};

/* The tightest of the pids cgroups this process is in (its own and every ancestor's pids.max
 * less pids.current) and, unless uid is 0, RLIMIT_NPROC less the tasks uid runs. */
void tasks_limit_read(uid_t uid, struct tasks_limit *out);

/* How many workers of how many threads fit. */
struct tasks_plan {
	uint32_t workers;   /* at most max_workers */
	uint32_t pool;      /* threads of each worker's pool */
	uint32_t team;      /* the cpu backend's team (0: no cpu backend) */
	long per_worker;    /* tasks each worker may use (-1: no limit) */
	bool shrunk;        /* something is smaller than asked for */
};
/* Divides the limit's available tasks (less TASKS_DOOR_RESERVE) between max_workers workers,
 * each wanting pool and team threads (team 0: no cpu backend): the pool shrinks first (down to
 * TASKS_POOL_SHRINK), then the team (down to 1), then the pool (down to TASKS_POOL_MIN), then
 * the number of workers. */
void tasks_plan_make(const struct tasks_limit *lim, uint32_t max_workers, uint32_t pool,
		     uint32_t team, struct tasks_plan *out);
/* Cores this process may run on (cpuset and affinity respected): the cpu backend's default
 * team. */
int tasks_cores(void);
/* Tasks a worker of this plan runs. */
uint32_t tasks_worker_threads(uint32_t pool, uint32_t team);

/* Starts n threads at once (counted from thread first + 1 of total, for the message), then
 * ends them and waits until the kernel has released them: 0, or -errno with why saying which
 * thread could not start and, for EAGAIN, which limit stopped it ("cannot start thread 17 of
 * 19: the task limit (pids.max=256 of ..., 256 in use) is reached"). uid: the real uid the
 * tasks count against. */
int tasks_probe(int n, int first, int total, uid_t uid, char *why, size_t len);

#endif
