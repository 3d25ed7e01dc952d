/* File descriptors that do not match their frame's header end the connection and are closed:
 * the worker's fd table does not grow however many clients send them. */
#include "tests/ptclient.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

/* Sends m as a frame whose header announces `announced` fds, with n_fds fds attached to the
 * bytes from offset fds_at on (0: with the frame's first bytes, as the protocol wants). */
static void send_forged(struct pt_conn *c, Webnn__Ipc__ClientMessage *m, uint16_t announced,
			const int *fds, int n_fds, size_t fds_at)
{
	m->has_serial = true;
	m->serial = ++c->serial;
	size_t len = webnn__ipc__client_message__get_packed_size(m);
	struct wnn_frame_header h = { (uint32_t)len, announced, 0 };
	uint8_t *buf = malloc(sizeof(h) + len);
	ASSERT(buf);
	memcpy(buf, &h, sizeof(h));
	webnn__ipc__client_message__pack(m, buf + sizeof(h));
	size_t total = sizeof(h) + len;
	ASSERT(fds_at < total);
	if (fds_at > 0)
		ASSERT(send(c->fd, buf, fds_at, MSG_NOSIGNAL) == (ssize_t)fds_at);
	union {
		char b[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} cm;
	memset(&cm, 0, sizeof(cm));
	struct iovec iov = { buf + fds_at, total - fds_at };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
			      .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n_fds) };
	struct cmsghdr *cmh = CMSG_FIRSTHDR(&msg);
	cmh->cmsg_level = SOL_SOCKET;
	cmh->cmsg_type = SCM_RIGHTS;
	cmh->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n_fds);
	memcpy(CMSG_DATA(cmh), fds, sizeof(int) * (size_t)n_fds);
	ASSERT(sendmsg(c->fd, &msg, MSG_NOSIGNAL) == (ssize_t)(total - fds_at));
	free(buf);
}

static void hello_msg(Webnn__Ipc__ClientMessage *m, Webnn__Ipc__Hello *h)
{
	webnn__ipc__hello__init(h);
	h->major = WNN_PROTOCOL_MAJOR;
	h->minor = WNN_PROTOCOL_MINOR;
	h->client_name = "test_fds";
	webnn__ipc__client_message__init(m);
	m->body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_HELLO;
	m->hello = h;
}

static void register_msg(Webnn__Ipc__ClientMessage *m, Webnn__Ipc__RegisterShm *rs, uint32_t slot)
{
	webnn__ipc__register_shm__init(rs);
	rs->slot_id = slot;
	rs->size = 4096;
	webnn__ipc__client_message__init(m);
	m->body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_REGISTER_SHM;
	m->register_shm = rs;
}

static int sealed_memfd(void)
{
	int fd = memfd_create("test_fds", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT(fd >= 0);
	ASSERT(ftruncate(fd, 4096) == 0);
	ASSERT(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
	return fd;
}

/* One abuse per connection, by kind; returns the Goodbye reason it must produce. */
static const char *abuse(struct pt_conn *c, int kind, const int *fds)
{
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__Hello h;
	Webnn__Ipc__RegisterShm rs;
	switch (kind) {
	case 0: /* stray fds with a frame announcing none (the Hello): once kept for later */
		hello_msg(&m, &h);
		send_forged(c, &m, 0, fds, 2, 0);
		return "file descriptors arrived with a frame whose header announces 0, 2 arrived";
	case 1: /* in the middle of a frame (one announcing none): "in the middle of a frame"
		 * when the daemon read its start alone, "... announces 0, 1 arrived" when one read
		 * took both pieces (reads go ahead) */
		pt_hello(c, "test_fds");
		register_msg(&m, &rs, 5);
		send_forged(c, &m, 0, fds, 1, 10);
		return "file descriptors arrived";
	case 2: /* fewer than announced */
		pt_hello(c, "test_fds");
		register_msg(&m, &rs, 5);
		send_forged(c, &m, 2, fds, 1, 0);
		return "a frame whose header announces 2 file descriptors arrived with 1";
	default: /* more than announced */
		pt_hello(c, "test_fds");
		register_msg(&m, &rs, 5);
		send_forged(c, &m, 1, fds, 3, 0);
		return "file descriptors arrived with a frame whose header announces 1, 3 arrived";
	}
}

/* The worker's open fds once it has caught up (it closes a connection just after shutting it
 * down, which is what the client sees): polls until at most `most`, for up to 10 s. */
static int worker_fds_settle(int worker, int most)
{
	int n = test_open_fds(worker);
	for (int i = 0; i < 1000 && n > most; i++) {
		usleep(10000);
		n = test_open_fds(worker);
	}
	return n;
}

TEST(fds_without_a_matching_header_are_refused_and_closed)
{
	/* the worker is not dumpable: only root reads its /proc/<pid>/fd */
	REQUIRE_ROOT("counting the worker's open fds");
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn good;
	pt_connect(&good, &d);
	pt_hello(&good, "test_fds");
	pt_create_context(&good, 1);
	pt_roundtrip(&good, 1, 2, 1.0f);
	int worker = test_daemon_child(&d, "wnn-u0");
	int base = test_open_fds(worker);

	int fds[3];
	for (int i = 0; i < 3; i++)
		fds[i] = sealed_memfd();
	/* Connections held open (as the original abuse did: 80 of them exhausted the fd table,
	 * each holding the stray fds for later frames). */
	enum { N = 120 };
	static struct pt_conn bad[N];
	for (int i = 0; i < N; i++) {
		pt_connect(&bad[i], &d);
		const char *why = abuse(&bad[i], i % 4, fds);
		pt_expect_goodbye(&bad[i], why);
	}
	/* Every stray fd was closed on arrival, and each connection with its violation. */
	int now = worker_fds_settle(worker, base);
	ASSERT_MSG(now <= base, "the worker holds %d fds, %d before %d hostile connections", now,
		   base, N);
	for (int i = 0; i < N; i++)
		pt_close(&bad[i]);

	/* The well-behaved client goes on, and a well-formed frame with its fd still works. */
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__RegisterShm rs;
	register_msg(&m, &rs, 9);
	Webnn__Ipc__ServerMessage *s = pt_call_fds(&good, &m, &fds[0], 1);
	ASSERT_MSG(!s->reply->error, "registerShm: %s", s->reply->error->message);
	pt_free(s);
	pt_roundtrip(&good, 1, 3, 2.0f);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	pt_close(&good);
	ASSERT_EQ(worker_fds_settle(worker, base - 1), base - 1); /* its connection is gone too */
	test_daemon_stop(&d);
}
