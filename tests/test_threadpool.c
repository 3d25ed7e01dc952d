/* A device worker starts libuv's thread pool before it serves clients: a client that later
 * exhausts mappings or address space cannot make the pool's lazy start abort the worker. */
#include "tests/ptclient.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

static long proc_status(int pid, const char *key)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	ASSERT_MSG(f, "%s: %s", path, strerror(errno));
	long v = -1;
	size_t kl = strlen(key);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

TEST(threadpool_starts_before_any_client)
{
	const char *env = getenv("UV_THREADPOOL_SIZE");
	long pool = env && atoi(env) > 0 ? atoi(env) : 16; /* webnnd's default for workers */
	struct test_daemon d;
	/* prlimit(2) on another user's process needs CAP_SYS_RESOURCE, which the tests' root may
	 * lack: this worker keeps the tests' uid (without root, webnnd keeps it anyway). */
	static const char *const as_root[] = { "--backend", "reference", "--user", "root", NULL };
	test_daemon_start(&d, geteuid() == 0 ? as_root : pt_reference);
	char name[32];
	snprintf(name, sizeof(name), "wnn-u%u", (unsigned)geteuid());
	struct pt_conn c;
	pt_connect(&c, &d);
	c.strict = true;
	pt_hello(&c, "test_pool");
	/* The worker serving us has queued no work yet: its pool is up all the same. */
	int worker = test_daemon_child(&d, name);
	long threads = proc_status(worker, "Threads");
	ASSERT_MSG(threads >= pool + 1, "the worker has %ld threads, expected the loop and %ld "
		   "pool threads", threads, pool);
#if !defined(__SANITIZE_ADDRESS__)
	/* Leave it no address space for thread stacks (8 MiB each): with a pool started lazily,
	 * the first command aborted the worker. (AddressSanitizer's reservations make an address
	 * space limit meaningless, so this part runs in the normal build.) */
	struct rlimit rl;
	long vm_kib = proc_status(worker, "VmSize");
	ASSERT(vm_kib > 0);
	rl.rlim_cur = rl.rlim_max = ((rlim_t)vm_kib << 10) + (48u << 20);
	ASSERT_MSG(prlimit(worker, RLIMIT_AS, &rl, NULL) == 0, "prlimit: %s", strerror(errno));
#endif
	pt_create_context(&c, 1);
	for (uint32_t i = 0; i < 20; i++)
		pt_roundtrip(&c, 1, 2 + i, (float)i);
	pt_add_roundtrip(&c, 1, 100, 3.0f);
	ASSERT_EQ(test_daemon_child(&d, name), worker);
	ASSERT_EQ(proc_status(worker, "Threads"), threads);
	pt_close(&c);
	test_daemon_stop(&d);
}
