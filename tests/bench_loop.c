/* Event-loop latency under bulk shared-memory traffic (make bench): another connection's round
 * trips while one client writes 512 MiB tensors from shm. WEBNN_BENCH_BASE=<webnnd> runs the
 * same against another build for a same-run comparison. */
#include "tests/ptclient.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct pinger {
	struct pt_conn c;
	atomic_bool stop;
	double *rtt;
	size_t n, cap;
};

/* Flush of an idle context: answered by the loop thread at once, so its round trip is the
 * loop's responsiveness. */
static void *pinger_main(void *arg)
{
	struct pinger *p = arg;
	Webnn__Ipc__Flush fl = WEBNN__IPC__FLUSH__INIT;
	fl.context_id = 2;
	while (!atomic_load(&p->stop) && p->n < p->cap) {
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH;
		m.flush = &fl;
		double t0 = bench_now();
		pt_call_ok(&p->c, &m);
		p->rtt[p->n++] = bench_now() - t0;
	}
	return NULL;
}

static void bench_one(const char *label, const char *bin)
{
	enum { REPS = 5 };
	const uint64_t bytes = 512ull << 20;
	struct test_daemon d;
	test_daemon_start_binary(&d, bin, pt_reference);
	struct pt_conn a;
	pt_connect(&a, &d);
	pt_hello(&a, "bench_loop");
	pt_create_context(&a, 1);
	int fd = memfd_create("bench_loop", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT(fd >= 0 && ftruncate(fd, (off_t)bytes) == 0);
	ASSERT(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
	uint8_t *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT(map != MAP_FAILED);
	memset(map, 0x3f, bytes);
	Webnn__Ipc__RegisterShm rs = WEBNN__IPC__REGISTER_SHM__INIT;
	rs.slot_id = 10;
	rs.size = bytes;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_REGISTER_SHM;
	m.register_shm = &rs;
	Webnn__Ipc__ServerMessage *s = pt_call_fds(&a, &m, &fd, 1);
	ASSERT_MSG(!s->reply->error, "registerShm: %s", s->reply->error->message);
	pt_free(s);
	close(fd);
	pt_create_tensor(&a, 1, 2, (const uint32_t[]){ (uint32_t)(bytes / 4) }, 1);

	struct pinger p = { .cap = 1 << 20 };
	p.rtt = malloc(sizeof(double) * p.cap);
	ASSERT(p.rtt);
	pt_connect(&p.c, &d);
	pt_hello(&p.c, "bench_loop_pinger");
	pt_create_context(&p.c, 2);
	pthread_t th;
	ASSERT(pthread_create(&th, NULL, pinger_main, &p) == 0);
	usleep(100000);
	double wt[REPS];
	for (int i = 0; i < REPS; i++) {
		Webnn__Ipc__ShmRange r = WEBNN__IPC__SHM_RANGE__INIT;
		r.slot_id = 10;
		r.size = bytes;
		Webnn__Ipc__Data data = WEBNN__IPC__DATA__INIT;
		data.where_case = WEBNN__IPC__DATA__WHERE_SHM;
		data.shm = &r;
		Webnn__Ipc__WriteTensor w = WEBNN__IPC__WRITE_TENSOR__INIT;
		w.tensor_id = 2;
		w.data = &data;
		Webnn__Ipc__ClientMessage mw = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		mw.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_WRITE_TENSOR;
		mw.write_tensor = &w;
		double t0 = bench_now();
		pt_call_ok(&a, &mw);
		wt[i] = bench_now() - t0;
	}
	atomic_store(&p.stop, true);
	pthread_join(th, NULL);
	qsort(wt, REPS, sizeof(double), cmp_double);
	qsort(p.rtt, p.n, sizeof(double), cmp_double);
	ASSERT(p.n > 0);
	printf("  %-6s write of 512 MiB from shm: median %7.1f ms | other connection's round trip "
	       "(%zu): p50 %7.3f ms  p99 %8.3f ms  max %8.3f ms\n",
	       label, wt[REPS / 2] * 1e3, p.n, p.rtt[p.n / 2] * 1e3, p.rtt[p.n * 99 / 100] * 1e3,
	       p.rtt[p.n - 1] * 1e3);
	free(p.rtt);
	pt_close(&p.c);
	munmap(map, bytes);
	pt_close(&a);
	test_daemon_stop(&d);
}

TEST_TIMEOUT(bench_loop_stall_shm_write, 600)
{
	char bin[4096];
	snprintf(bin, sizeof(bin), "%s/bin/webnnd", test_build_dir());
	printf("\n");
	bench_one("now", bin);
	const char *base = getenv("WEBNN_BENCH_BASE");
	if (base && *base)
		bench_one("base", base);
}
