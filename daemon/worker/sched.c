/* Time slices under the kernel's fair scheduler (sched_setattr's sched_runtime for SCHED_OTHER). */
#include "daemon/worker/sched.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Linux's struct sched_attr (glibc has no wrapper). */
struct sched_attr_linux {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

static bool ask(uint64_t slice_ns, int nice_add, char *why, unsigned len)
{
	/* The call sets the nice value too: keep the current one (raising it back to 0 needs
	 * privileges a worker no longer has), plus what was asked. */
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	if (nice == -1 && errno != 0)
		nice = 0;
	nice = nice + nice_add > 19 ? 19 : nice + nice_add;
	struct sched_attr_linux a = { .size = sizeof(a), .sched_policy = 0 /* SCHED_OTHER */,
				      .sched_nice = nice, .sched_runtime = slice_ns };
	if (syscall(SYS_sched_setattr, 0, &a, 0) == 0)
		return true;
	snprintf(why, len, "sched_setattr: %s", strerror(errno));
	/* a kernel without custom slices may still take the nice value */
	if (nice_add && setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice) != 0)
		snprintf(why, len, "sched_setattr and setpriority: %s", strerror(errno));
	return false;
}

bool sched_answer_thread(char *why, unsigned len)
{
	return ask(SCHED_SLICE_ANSWER_NS, 0, why, len);
}

bool sched_compute_thread(char *why, unsigned len)
{
	const char *env = getenv("WEBNN_COMPUTE_NICE");
	char *end = NULL;
	long n = env && *env ? strtol(env, &end, 10) : SCHED_COMPUTE_NICE;
	if (env && *env && (*end || n < 0 || n > 19))
		n = SCHED_COMPUTE_NICE; /* webnnd refuses it at start (main.c) */
	return ask(SCHED_SLICE_COMPUTE_NS, (int)n, why, len);
}
