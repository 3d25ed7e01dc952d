/* Time slices under the kernel's fair scheduler (sched_setattr's sched_runtime for SCHED_OTHER). */
#include "daemon/sched.h"

#include <errno.h>
#include <stdio.h>
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

bool sched_ask_slice(uint64_t ns, char *why, unsigned len)
{
	/* The call sets the nice value too: keep the current one (raising it back to 0 needs
	 * privileges a worker no longer has). */
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	if (nice == -1 && errno != 0)
		nice = 0;
	struct sched_attr_linux a = { .size = sizeof(a), .sched_policy = 0 /* SCHED_OTHER */,
				      .sched_nice = nice, .sched_runtime = ns };
	if (syscall(SYS_sched_setattr, 0, &a, 0) == 0)
		return true;
	snprintf(why, len, "sched_setattr: %s", strerror(errno));
	return false;
}
