/* Memory budgets against a real webnnd: per connection, per uid, for all users, shm slots,
 * partial frames, unread replies, and the worker's memory returning after abusive clients. */
#include "tests/clienttest.h"
#include "tests/ptclient.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/wire.h"
#include "proto/wnn.h"

#define NOBODY 65534
#define MIB (1u << 20)

/* ---- helpers */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A daemon on the reference backend with extra `--limit KEY=VALUE`s (NULL-terminated). The
 * socket's directory is opened to other users, so a child acting as uid 65534 can connect. */
static void budget_daemon(struct test_daemon *d, const char *const *limits)
{
	const char *args[24] = { "--backend", "reference" };
	size_t n = 2;
	for (size_t i = 0; limits && limits[i]; i++) {
		ASSERT(n + 3 < sizeof(args) / sizeof(args[0]));
		args[n++] = "--limit";
		args[n++] = limits[i];
	}
	args[n] = NULL;
	test_daemon_start(d, args);
	ASSERT(chmod(d->dir, 0755) == 0);
}

/* These tests play root (the daemon's first user, named "uid 0" in the messages they expect)
 * and uid 65534 at once, which only root can. */
static void needs_root(void)
{
	REQUIRE_ROOT("this budget test acts as root and as uid 65534");
}

/* Acts as another user from here on (a forked child). */
static void become(uid_t uid)
{
	ASSERT_MSG(setgid(uid) == 0 && setuid(uid) == 0, "setuid(%u): %s (tests run as root)",
		   (unsigned)uid, strerror(errno));
}

/* Waits for a forked child and fails the test unless it exited 0. */
static void child_wait(pid_t pid, const char *what)
{
	int st = 0;
	ASSERT(waitpid(pid, &st, 0) == pid);
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s (another uid) failed (status %#x)",
		   what, (unsigned)st);
}

/* The daemon's worker serving uid (its process name is "wnn-u<uid>"), or -1. */
static pid_t worker_of(pid_t daemon, uid_t uid)
{
	char path[96], want[32], comm[32];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)daemon, (int)daemon);
	snprintf(want, sizeof(want), "wnn-u%u\n", (unsigned)uid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	pid_t found = -1;
	int pid;
	while (found < 0 && fscanf(f, "%d", &pid) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		FILE *c = fopen(path, "r");
		if (c && fgets(comm, sizeof(comm), c) && strcmp(comm, want) == 0)
			found = pid;
		if (c)
			fclose(c);
	}
	fclose(f);
	return found;
}

static long vm_rss_kib(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long kib = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* A connection past Hello with context 1. */
static void open_client(struct pt_conn *c, const struct test_daemon *d)
{
	pt_connect(c, d);
	pt_hello(c, "test_budgets");
	pt_create_context(c, 1);
}

/* CreateTensor of `bytes` (float32, rank 1) in context 1: the reply. */
static Webnn__Ipc__ServerMessage *tensor_reply(struct pt_conn *c, uint32_t id, uint64_t bytes)
{
	struct pt_tensor_msg t;
	const uint32_t shape[1] = { (uint32_t)(bytes / 4) };
	pt_tensor_msg(&t, 1, id, WEBNN__IPC__DATA_TYPE__FLOAT32, shape, 1, true, true);
	return pt_call(c, &t.m);
}

static void tensor_ok(struct pt_conn *c, uint32_t id, uint64_t bytes)
{
	pt_expect_ok(tensor_reply(c, id, bytes));
}

static void tensor_refused(struct pt_conn *c, uint32_t id, uint64_t bytes, const char *needle)
{
	pt_expect_err(tensor_reply(c, id, bytes), WEBNN__IPC__STATUS__NO_MEMORY, needle);
}

/* Creates the tensor, retrying while the refusal contains `while_refused` (memory another
 * connection released is given back asynchronously, after its device work drained). */
static void tensor_eventually(struct pt_conn *c, uint32_t id, uint64_t bytes,
			      const char *while_refused)
{
	double until = now_s() + 20;
	for (;;) {
		Webnn__Ipc__ServerMessage *s = tensor_reply(c, id, bytes);
		if (!s->reply->error) {
			pt_free(s);
			return;
		}
		ASSERT_MSG(strstr(s->reply->error->message, while_refused) && now_s() < until,
			   "createTensor of %llu bytes: %s", (unsigned long long)bytes,
			   s->reply->error->message);
		pt_free(s);
		usleep(50 * 1000);
	}
}

static int sealed_memfd(size_t size)
{
	int fd = memfd_create("budgets", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT(fd >= 0);
	ASSERT(ftruncate(fd, (off_t)size) == 0);
	ASSERT(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
	return fd;
}

static Webnn__Ipc__ServerMessage *register_shm(struct pt_conn *c, uint32_t slot, size_t size)
{
	int fd = sealed_memfd(size);
	Webnn__Ipc__RegisterShm rs = WEBNN__IPC__REGISTER_SHM__INIT;
	rs.slot_id = slot;
	rs.size = size;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_REGISTER_SHM;
	m.register_shm = &rs;
	Webnn__Ipc__ServerMessage *s = pt_call_fds(c, &m, &fd, 1);
	close(fd);
	return s;
}

/* Sends the header of a frame of `size` bytes and `sent` bytes of its payload, no more (less
 * when the daemon refuses the frame and closes the connection first). */
static void send_partial_frame(struct pt_conn *c, uint32_t size, size_t sent)
{
	struct wnn_frame_header h = { .size = size };
	ASSERT(send(c->fd, &h, sizeof(h), MSG_NOSIGNAL) == (ssize_t)sizeof(h));
	static uint8_t zeros[1 << 16];
	while (sent > 0) {
		size_t n = sent < sizeof(zeros) ? sent : sizeof(zeros);
		ssize_t w = send(c->fd, zeros, n, MSG_NOSIGNAL);
		if (w < 0 && (errno == EPIPE || errno == ECONNRESET))
			return;
		ASSERT_MSG(w > 0, "send: %s", strerror(errno));
		sent -= (size_t)w;
	}
}

/* Goodbye's reason when one arrives within ms, "" when the connection stays silent. */
static void goodbye_within(struct pt_conn *c, int ms, char *reason, size_t len)
{
	reason[0] = '\0';
	struct pollfd p = { c->fd, POLLIN, 0 };
	if (poll(&p, 1, ms) <= 0)
		return;
	Webnn__Ipc__ServerMessage *s = pt_recv(c);
	ASSERT_MSG(s, "the connection ended without a Goodbye");
	ASSERT_EQ(s->body_case, WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE);
	snprintf(reason, len, "%s", s->goodbye->reason);
	pt_free(s);
}

/* ---- tests */

/* The handshake lists every budget with the value the daemon runs with. */
TEST(budgets_handshake_lists_budgets)
{
	struct test_daemon d;
	budget_daemon(&d, (const char *const[]){ "max_uid_bytes=64M", "max_uid_shm_slots=100",
						 NULL });
	struct pt_conn c;
	pt_connect(&c, &d);
	Webnn__Ipc__Hello h = WEBNN__IPC__HELLO__INIT;
	h.major = WNN_PROTOCOL_MAJOR;
	h.minor = WNN_PROTOCOL_MINOR;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_HELLO;
	m.hello = &h;
	Webnn__Ipc__ServerMessage *s = pt_call(&c, &m);
	ASSERT(!s->reply->error);
	const Webnn__Ipc__Limits *l = s->reply->hello->limits;
	int seen = 0;
	for (size_t i = 0; i < l->n_budgets; i++) {
		const Webnn__Ipc__Budget *b = l->budgets[i];
		if (strcmp(b->key, "max_uid_bytes") == 0) {
			ASSERT_EQ(b->value, 64ull << 20);
			ASSERT_STREQ(b->unit, "bytes");
			seen++;
		} else if (strcmp(b->key, "max_uid_shm_slots") == 0) {
			ASSERT_EQ(b->value, 100);
			ASSERT_STREQ(b->unit, "count");
			seen++;
		} else if (strcmp(b->key, "max_total_bytes") == 0 ||
			   strcmp(b->key, "max_connection_bytes") == 0 ||
			   strcmp(b->key, "max_shm_slots") == 0) {
			seen++;
		}
	}
	ASSERT_EQ(seen, 5);
	pt_free(s);
	pt_close(&c);
	test_daemon_stop(&d);
}

/* One connection's quota: refused with the key named, nothing charged for the refusal, freed
 * by destroying; another connection of the same user has its own. */
TEST(budgets_connection_quota)
{
	struct test_daemon d;
	budget_daemon(&d, (const char *const[]){ "max_connection_bytes=1M", NULL });
	struct pt_conn a, b;
	open_client(&a, &d);
	tensor_ok(&a, 2, 512 << 10);
	tensor_refused(&a, 3, 768 << 10,
		       "bytes would exceed the connection's quota "
		       "(max_connection_bytes 1048576, ");
	tensor_ok(&a, 3, 256 << 10);
	open_client(&b, &d);
	tensor_ok(&b, 2, 768 << 10);
	pt_roundtrip(&b, 1, 9, 1.0f);
	pt_destroy_tensor(&a, 2);
	tensor_eventually(&a, 4, 640 << 10, "max_connection_bytes");
	pt_roundtrip(&a, 1, 9, 2.0f);
	pt_close(&a);
	pt_close(&b);
	test_daemon_stop(&d);
}

/* The connections of one user share its budget; another user is not affected; memory of a
 * closed connection returns to its user. */
TEST(budgets_uid_budget)
{
	needs_root();
	struct test_daemon d;
	budget_daemon(&d, (const char *const[]){ "max_uid_bytes=4M", NULL });
	struct pt_conn a, b;
	open_client(&a, &d);
	open_client(&b, &d);
	tensor_ok(&a, 2, 3 * MIB);
	tensor_refused(&b, 2, 2 * MIB,
		       "bytes would exceed the memory budget of uid 0 "
		       "(max_uid_bytes 4194304, ");
	tensor_ok(&b, 2, 512 << 10);
	pt_roundtrip(&b, 1, 9, 1.0f);
	/* Another user has a budget of its own. */
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		become(NOBODY);
		struct pt_conn c;
		open_client(&c, &d);
		tensor_ok(&c, 2, 3 * MIB);
		tensor_refused(&c, 3, 2 * MIB, "memory budget of uid 65534 (max_uid_bytes 4194304");
		pt_roundtrip(&c, 1, 9, 3.0f);
		pt_close(&c);
		exit(0);
	}
	child_wait(pid, "a client of uid 65534");
	pt_close(&a);
	tensor_eventually(&b, 3, 3 * MIB, "max_uid_bytes");
	pt_close(&b);
	test_daemon_stop(&d);
}

/* All users together: the total is refused to whoever would exceed it, with the key named; the
 * holder keeps working; when the holder's worker dies the front door gives its share back. */
TEST(budgets_total_budget)
{
	needs_root();
	struct test_daemon d;
	budget_daemon(&d, (const char *const[]){ "max_total_bytes=6M", NULL });
	struct pt_conn a;
	open_client(&a, &d);
	tensor_ok(&a, 2, 5 * MIB);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		become(NOBODY);
		struct pt_conn c;
		open_client(&c, &d);
		tensor_refused(&c, 2, 2 * MIB,
			       "bytes would exceed the memory budget of all "
			       "users (max_total_bytes 6291456, ");
		tensor_ok(&c, 2, 256 << 10);
		pt_roundtrip(&c, 1, 9, 3.0f);
		pt_close(&c);
		exit(0);
	}
	child_wait(pid, "a client of uid 65534");
	pt_roundtrip(&a, 1, 9, 1.0f);

	/* uid 0's worker dies holding 5 MiB: its slot is zeroed, everyone's room is back. */
	pid_t w = worker_of(d.pid, 0);
	ASSERT_MSG(w > 0, "no worker named wnn-u0 under the daemon");
	ASSERT(kill(w, SIGKILL) == 0);
	pt_expect_goodbye(&a, "device worker for uid 0");
	pt_close(&a);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		become(NOBODY);
		struct pt_conn c;
		open_client(&c, &d);
		tensor_eventually(&c, 2, 5 * MIB, "max_total_bytes");
		pt_close(&c);
		exit(0);
	}
	child_wait(pid, "a client of uid 65534 after the worker of uid 0 died");
	/* uid 0 is served again by a new worker (which may reuse the dead one's slot). */
	open_client(&a, &d);
	tensor_eventually(&a, 2, 5 * MIB, "max_total_bytes");
	tensor_refused(&a, 3, 2 * MIB, "max_total_bytes 6291456");
	pt_close(&a);
	test_daemon_stop(&d);
}

/* Shared-memory slots are mappings: capped per connection (max_shm_slots) and per user
 * (max_uid_shm_slots); their bytes are the client's, capped by max_shm_bytes. */
TEST(budgets_shm_slots)
{
	needs_root();
	struct test_daemon d;
	budget_daemon(&d, (const char *const[]){ "max_uid_shm_slots=300", "max_shm_bytes=2M",
						 NULL });
	struct pt_conn a, b;
	open_client(&a, &d);
	for (uint32_t i = 0; i < 256; i++) {
		Webnn__Ipc__ServerMessage *s = register_shm(&a, 100 + i, 4096);
		ASSERT_MSG(!s->reply->error, "slot %u: %s", i, s->reply->error->message);
		pt_free(s);
	}
	pt_expect_err(register_shm(&a, 999, 4096), WEBNN__IPC__STATUS__NO_MEMORY,
		      "registerShm: the connection already has 256 shared-memory slots "
		      "(max_shm_slots)");
	pt_unregister_shm(&a, 100);
	pt_expect_ok(register_shm(&a, 999, 4096));
	pt_roundtrip(&a, 1, 2, 1.0f);

	/* The same user's second connection: 44 more slots, then the user's cap. */
	open_client(&b, &d);
	for (uint32_t i = 0; i < 44; i++)
		pt_expect_ok(register_shm(&b, 100 + i, 4096));
	pt_expect_err(register_shm(&b, 999, 4096), WEBNN__IPC__STATUS__NO_MEMORY,
		      "registerShm: the connections of uid 0 already have 300 shared-memory slots "
		      "(max_uid_shm_slots)");
	pt_close(&a);
	/* a's 256 mappings go with it (the close is processed asynchronously). */
	double until = now_s() + 20;
	for (uint32_t id = 1000;; id++) {
		Webnn__Ipc__ServerMessage *s = register_shm(&b, id, 4096);
		bool ok = !s->reply->error;
		ASSERT_MSG(ok || now_s() < until, "registerShm: %s", s->reply->error->message);
		pt_free(s);
		if (ok)
			break;
		usleep(50 * 1000);
	}
	/* Bytes: b holds 45 x 4 KiB. */
	pt_expect_err(register_shm(&b, 2000, 2 * MIB), WEBNN__IPC__STATUS__NO_MEMORY,
		      "registerShm: 2097152 bytes would exceed the connection's shared memory "
		      "quota (max_shm_bytes 2097152, 184320 registered)");
	pt_roundtrip(&b, 1, 2, 2.0f);
	pt_close(&b);
	test_daemon_stop(&d);
}

/* Partial 16 MiB frames are charged when their header arrives, before the daemon buffers them:
 * past the user's budget a connection is closed with a Goodbye naming it; the rest of the user's
 * room still serves small requests, another user is unaffected, and the room comes back. */
TEST(budgets_partial_frames)
{
	needs_root();
	struct test_daemon d;
	budget_daemon(&d, (const char *const[]){ "max_uid_bytes=40M", NULL });
	enum { N = 6 };
	struct pt_conn c[N];
	for (int i = 0; i < N; i++) {
		pt_connect(&c[i], &d);
		pt_hello(&c[i], "test_budgets");
		send_partial_frame(&c[i], WNN_FRAME_MAX, 1 * MIB);
	}
	/* Two 16 MiB frames fit in 40 MiB, a third does not: N - 2 Goodbyes, then silence. */
	int refused = 0;
	bool gone[N] = { false };
	double until = now_s() + 30;
	while (refused < N - 2) {
		ASSERT_MSG(now_s() < until, "only %d of %d connections refused", refused, N - 2);
		for (int i = 0; i < N; i++) {
			char why[512];
			if (gone[i])
				continue;
			goodbye_within(&c[i], 10, why, sizeof(why));
			if (!why[0])
				continue;
			ASSERT_CONTAINS(why, "reading a frame: 16777224 bytes would exceed the memory "
					     "budget of uid 0 (max_uid_bytes 41943040, ");
			gone[i] = true;
			refused++;
		}
	}
	for (int i = 0; i < N; i++) {
		char why[512];
		if (!gone[i])
			goodbye_within(&c[i], 500, why, sizeof(why));
		ASSERT_MSG(gone[i] || !why[0], "a connection within the budget was refused: %s", why);
	}
	/* Small requests of the same user still fit; another user's large frames too. */
	struct pt_conn x;
	open_client(&x, &d);
	pt_roundtrip(&x, 1, 2, 1.0f);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		become(NOBODY);
		struct pt_conn y[2];
		for (int i = 0; i < 2; i++) {
			pt_connect(&y[i], &d);
			pt_hello(&y[i], "test_budgets");
			send_partial_frame(&y[i], WNN_FRAME_MAX, 1 * MIB);
		}
		struct pt_conn z;
		open_client(&z, &d);
		pt_roundtrip(&z, 1, 2, 3.0f);
		for (int i = 0; i < 2; i++) {
			char why[512];
			goodbye_within(&y[i], 500, why, sizeof(why));
			ASSERT_MSG(!why[0], "uid 65534 was refused: %s", why);
			pt_close(&y[i]);
		}
		pt_close(&z);
		exit(0);
	}
	child_wait(pid, "partial frames of uid 65534");
	/* The partial frames' connections close: their 32 MiB come back to uid 0. */
	for (int i = 0; i < N; i++)
		pt_close(&c[i]);
	tensor_eventually(&x, 3, 36 * MIB, "max_uid_bytes");
	pt_close(&x);
	test_daemon_stop(&d);
}

/* A client that never reads its replies: replies count against its budgets and, past them, the
 * daemon stops reading it, so what it holds stays near its quota; every reply is still owed and
 * delivered once it reads, and other clients are served meanwhile. */
TEST(budgets_unread_replies_are_bounded)
{
	needs_root();
#if defined(__SANITIZE_ADDRESS__)
	const bool measure = false; /* the resident memory is the sanitizer allocator's */
#else
	const bool measure = true;
#endif
	struct test_daemon d;
	budget_daemon(&d, (const char *const[]){ "max_connection_bytes=8M", NULL });
	struct pt_conn c;
	open_client(&c, &d);
	const uint32_t row[] = { 16384 }; /* 64 KiB, each read returns it inline */
	pt_create_tensor(&c, 1, 2, row, 1);
	pid_t w = worker_of(d.pid, 0);
	ASSERT(w > 0);
	long base = vm_rss_kib(w);
	ASSERT(base > 0);

	enum { N = 3000 }; /* 190 MiB of replies if nothing bounded them */
	int fl = fcntl(c.fd, F_GETFL);
	ASSERT(fcntl(c.fd, F_SETFL, fl | O_NONBLOCK) == 0);
	int sent = 0;
	while (sent < N) {
		Webnn__Ipc__ReadTensor r = WEBNN__IPC__READ_TENSOR__INIT;
		r.tensor_id = 2;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
		m.read_tensor = &r;
		m.has_serial = true;
		m.serial = 100 + (uint64_t)sent;
		uint8_t buf[64];
		size_t len = webnn__ipc__client_message__pack(&m, buf + sizeof(struct wnn_frame_header));
		struct wnn_frame_header h = { .size = (uint32_t)len };
		memcpy(buf, &h, sizeof(h));
		struct pollfd p = { c.fd, POLLOUT, 0 };
		if (poll(&p, 1, 2000) <= 0)
			break; /* the daemon stopped reading */
		ssize_t n = send(c.fd, buf, sizeof(h) + len, MSG_NOSIGNAL);
		ASSERT_MSG(n == (ssize_t)(sizeof(h) + len), "send: %zd (%s)", n, strerror(errno));
		sent++;
	}
	ASSERT_MSG(sent < N, "the daemon read all %d requests without their replies being read", N);
	long peak = vm_rss_kib(w);
	fprintf(stderr, "unread replies: %d requests sent before the daemon stopped reading; "
			"worker VmRSS %ld MiB -> %ld MiB\n", sent, base >> 10, peak >> 10);
	/* The 8 MiB quota plus slack for the allocator and the replies of work already read. */
	ASSERT_MSG(!measure || peak - base < 32 * 1024, "the worker grew by %ld MiB",
		   (peak - base) >> 10);

	/* Another connection of the same user is served meanwhile. */
	struct pt_conn other;
	open_client(&other, &d);
	pt_roundtrip(&other, 1, 2, 1.0f);
	pt_close(&other);

	/* Every request is answered, in order, once the client reads. */
	ASSERT(fcntl(c.fd, F_SETFL, fl) == 0);
	int ok = 0, refused = 0;
	for (int i = 0; i < sent; i++) {
		Webnn__Ipc__ServerMessage *s = pt_recv(&c);
		ASSERT_MSG(s, "connection closed after %d of %d replies", i, sent);
		ASSERT_EQ(s->body_case, WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY);
		ASSERT_EQ(s->reply->serial, 100 + (uint64_t)i);
		if (s->reply->error) {
			ASSERT_CONTAINS(s->reply->error->message,
					"readTensor: 65536 bytes would exceed the connection's quota "
					"(max_connection_bytes 8388608, ");
			refused++;
		} else {
			ok++;
		}
		pt_free(s);
	}
	fprintf(stderr, "unread replies: %d answered with data, %d refused over the quota\n", ok,
		refused);
	ASSERT(ok > 0);
	pt_roundtrip(&c, 1, 3, 2.0f);
	pt_close(&c);
	test_daemon_stop(&d);
}

/* After abusive clients leave, the worker's resident memory returns near its baseline (it used
 * to keep hundreds of MiB of freed heap). */
/* A graph's operation results are charged for the time they are alive, not all at once: a
 * chain of 12 negations over 1 MiB tensors (12 MiB of results in all, 2 MiB alive at once)
 * builds and runs under a 6 MiB quota; 8 negations of the input that all live until the sum
 * that reads them (8 MiB at once) are refused, naming the quota. */
TEST(budgets_intermediates_charged_by_lifetime)
{
	struct test_daemon d;
	budget_daemon(&d, (const char *const[]){ "max_connection_bytes=6M", NULL });
	struct webnn_context *ctx = ct_connect(&d, "lifetimes");
	enum { N = 262144, CHAIN = 12, SIBLINGS = 8 };
	const uint32_t shape[1] = { N };
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 1, shape), *y = x;
	for (int i = 0; i < CHAIN; i++)
		OK(ctx, webnn_builder_neg(b, y, &y));
	struct webnn_named_operand out = { "y", y };
	struct webnn_graph *g;
	OK(ctx, webnn_builder_build(b, &out, 1, &g));
	webnn_builder_destroy(b);
	float *in = malloc(N * sizeof(float)), *got = malloc(N * sizeof(float));
	ASSERT(in && got);
	for (int i = 0; i < N; i++)
		in[i] = (float)(i % 1000) - 500.0f;
	struct webnn_operand_desc dd = ct_desc_of(WEBNN_FLOAT32, 1, shape);
	ct_dispatch_one(ctx, g, "x", &dd, in, "y", &dd, got);
	ct_assert_floats("12 negations", got, in, N, 0.0f);
	webnn_graph_destroy(g);

	OK(ctx, webnn_builder_create(ctx, &b));
	x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 1, shape);
	struct webnn_operand *t[SIBLINGS];
	for (int i = 0; i < SIBLINGS; i++)
		OK(ctx, webnn_builder_neg(b, x, &t[i]));
	y = t[0];
	for (int i = 1; i < SIBLINGS; i++)
		OK(ctx, webnn_builder_add(b, y, t[i], &y));
	out.operand = y;
	FAILS(ctx, webnn_builder_build(b, &out, 1, &g), WEBNN_STATUS_NO_MEMORY,
	      "max_connection_bytes");
	webnn_builder_destroy(b);
	free(in);
	free(got);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST_TIMEOUT(budgets_memory_returns_to_baseline, 180)
{
	needs_root();
#if defined(__SANITIZE_ADDRESS__)
	SKIP("the worker's resident memory is the sanitizer allocator's under ASan");
#endif
	struct test_daemon d;
	budget_daemon(&d, NULL);
	struct pt_conn keep;
	open_client(&keep, &d);
	pt_roundtrip(&keep, 1, 2, 1.0f);
	pid_t w = worker_of(d.pid, 0);
	ASSERT(w > 0);
	long base = vm_rss_kib(w);
	ASSERT(base > 0);

	enum { CLIENTS = 6, SMALL = 1500, FRAMES = 4 };
	struct pt_conn c[CLIENTS], f[FRAMES];
	static float chunk[16384]; /* 64 KiB */
	float *fill = malloc(4 * MIB);
	ASSERT(fill);
	for (size_t i = 0; i < 4 * MIB / 4; i++)
		fill[i] = (float)i;
	for (int i = 0; i < CLIENTS; i++) {
		open_client(&c[i], &d);
		/* Large tensors written inline (4 MiB frames, then device memory of this backend). */
		const uint32_t big[] = { 4 * MIB / 4 };
		for (uint32_t t = 0; t < 4; t++) {
			pt_create_tensor(&c[i], 1, 10 + t, big, 1);
			pt_write_inline(&c[i], 10 + t, fill, 4 * MIB);
		}
		/* Many small constants: the heap proper, fragmented. */
		Webnn__Ipc__OperandDescriptor od = WEBNN__IPC__OPERAND_DESCRIPTOR__INIT;
		uint32_t shape[1] = { 16384 / (1 + (uint32_t)(i % 3)) };
		od.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
		od.n_shape = 1;
		od.shape = shape;
		Webnn__Ipc__Data data = WEBNN__IPC__DATA__INIT;
		data.where_case = WEBNN__IPC__DATA__WHERE_INLINE;
		data.inline_.data = (uint8_t *)chunk;
		data.inline_.len = shape[0] * 4;
		for (uint32_t k = 0; k < SMALL / CLIENTS; k++) {
			Webnn__Ipc__CreateConstant cc = WEBNN__IPC__CREATE_CONSTANT__INIT;
			cc.context_id = 1;
			cc.constant_id = 1000 + k;
			cc.descriptor = &od;
			cc.data = &data;
			Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
			m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONSTANT;
			m.create_constant = &cc;
			pt_send(&c[i], &m);
		}
		pt_roundtrip(&c[i], 1, 2, (float)i); /* everything before it was handled */
	}
	for (int i = 0; i < FRAMES; i++) {
		pt_connect(&f[i], &d);
		pt_hello(&f[i], "test_budgets");
		send_partial_frame(&f[i], WNN_FRAME_MAX, 12 * MIB);
	}
	pt_roundtrip(&keep, 1, 3, 2.0f);
	long during = vm_rss_kib(w);
	/* Closing half the small constants first leaves the heap fragmented. */
	for (int i = 0; i < CLIENTS; i++)
		for (uint32_t k = 0; k < SMALL / CLIENTS; k += 2) {
			Webnn__Ipc__DestroyConstant dc = WEBNN__IPC__DESTROY_CONSTANT__INIT;
			dc.constant_id = 1000 + k;
			Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
			m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONSTANT;
			m.destroy_constant = &dc;
			pt_send(&c[i], &m);
		}
	for (int i = 0; i < CLIENTS; i++)
		pt_close(&c[i]);
	for (int i = 0; i < FRAMES; i++)
		pt_close(&f[i]);
	/* The clients' objects are released asynchronously; then the heap is trimmed. */
	long after = 0;
	double until = now_s() + 30;
	do {
		usleep(100 * 1000);
		pt_roundtrip(&keep, 1, 4, 3.0f);
		pt_destroy_tensor(&keep, 4);
		after = vm_rss_kib(w);
	} while (after - base > 32 * 1024 && now_s() < until);
	fprintf(stderr, "worker VmRSS: baseline %ld MiB, with the abusive clients %ld MiB, after "
			"they left %ld MiB\n", base >> 10, during >> 10, after >> 10);
	ASSERT_MSG(during - base > 100 * 1024, "the abuse grew the worker by only %ld MiB",
		   (during - base) >> 10);
	ASSERT_MSG(after - base <= 32 * 1024, "%ld MiB over the baseline after the clients left",
		   (after - base) >> 10);
	free(fill);
	pt_close(&keep);
	test_daemon_stop(&d);
}
