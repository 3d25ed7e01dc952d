/* The memory webnnd may use, the memory budgets' defaults derived from it, and the OOM killer's preference for device workers. */
#ifndef DAEMON_MEMLIMIT_H
#define DAEMON_MEMLIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/limits.h"

/* The budgets' defaults are the smaller of limits.def's and these shares of the memory the
 * daemon may use, so that NO_MEMORY comes before any OOM killer: all users' bytes at most 75%
 * (the rest is the processes' own baseline: libraries, thread stacks, the uncharged constant of
 * each connection and worker), one user's and one connection's at most 50%. */
#define MEMLIMIT_TOTAL_PERCENT 75u
#define MEMLIMIT_UID_PERCENT 50u

/* oom_score_adj of device workers: the kernel kills a worker (one user's) rather than the
 * front door (everyone's), which keeps the default 0. */
#define MEMLIMIT_WORKER_OOM_SCORE_ADJ 500

/* The smallest memory limit of this process's cgroup and its ancestors (cgroup v2 memory.max,
 * or v1 memory.limit_in_bytes); 0 when there is none or it cannot be read. */
uint64_t memlimit_cgroup(void);
/* MemTotal; 0 when unreadable. */
uint64_t memlimit_host(void);
/* The smaller of the two that are known; 0 when neither is. */
uint64_t memlimit_available(void);
/* Lowers max_total_bytes, max_uid_bytes and max_connection_bytes to their share of memory
 * (nothing when memory is 0). Called on the defaults, before the configuration file, the
 * environment and --limit, which win. */
void memlimit_derive_budgets(struct daemon_limits *l, uint64_t memory);
/* Raises this process's oom_score_adj to adj (an unprivileged process may raise it; one
 * already higher is kept): 0 or -errno. */
int memlimit_prefer_oom_kill(int adj);

#endif
