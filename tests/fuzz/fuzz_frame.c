/* libFuzzer target: bytes -> a webnnd session in-process (frame reader, budgeted unpack, handlers). */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/worker/context.h"
#include "daemon/worker/daemon.h"
#include "daemon/log.h"
#include "daemon/worker/router.h"
#include "daemon/worker/session.h"
#include "tests/fuzz/fuzz.h"

/*
 * Input: one flags byte, then the byte stream a client writes to its socket (frames:
 * struct wnn_frame_header + packed ClientMessage). Flags:
 *   bits 0-1  memfds (0..3, 4096 bytes each) sent as SCM_RIGHTS with the first stream byte
 *             (the daemon accepts them only if that frame's header announces exactly as many)
 *   bit 2     leave those memfds unsealed (RegisterShm must refuse them)
 *   bit 3     the harness sends a valid Hello frame first (so mutations need not keep one)
 * The session runs on the reference backend with the limits below (the defaults with smaller
 * byte quotas, so that hostile inputs stay within the fuzzer's memory).
 */
static struct daemon d;
static uint32_t n_live; /* sessions not yet ended */

static void fuzz_session_ended(struct session *s, void *ud)
{
	(void)s;
	(void)ud;
	n_live--;
}

static const struct session_hooks fuzz_hooks = { .readable = router_on_readable,
						  .ended = fuzz_session_ended };
static uint64_t next_no;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *lv = getenv("WNN_FUZZ_LOG");
	log_set_level(lv && strcmp(lv, "debug") == 0 ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR);
	/* The daemon's defaults with smaller byte quotas, so the fuzzer finds their edges. */
	daemon_limits_default(&d.limits);
	d.limits.max_objects = 512;
	d.limits.max_shm_bytes = 1u << 20;
	d.limits.max_tensor_bytes = 256u << 10;
	d.limits.max_operations = 1000;
	d.limits.max_operands = 4000;
	d.limits.max_connection_bytes = 8u << 20;
	d.limits.unpack_budget = 8u << 20;
	d.loop = uv_default_loop();
	struct daemon_backend *db = &d.backends[0];
	db->impl = &backend_reference;
	struct wnn_diag diag = { 0 };
	if (db->impl->init(NULL, &db->be, &diag) != WEBNN_STATUS_OK)
		abort();
	db->n_devices = db->impl->devices(db->be, db->devices, DAEMON_MAX_DEVICES);
	d.n_backends = 1;
	context_limits_init(&d);
	return 0;
}

static int make_memfd(bool sealed)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, 4096) != 0)
		abort();
	if (sealed && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0)
		abort();
	return fd;
}

/* Lets the session read what is buffered and finishes the work that queued. */
static void pump(struct session *s)
{
	if (!s->closed)
		router_on_readable(s);
	uv_run(d.loop, UV_RUN_DEFAULT);
}

/* Writes all of buf, pumping the session whenever the socket buffer is full. */
static void feed(struct session *s, int sock, const uint8_t *buf, size_t len, const int *fds,
		 int n_fds)
{
	size_t off = 0;
	while (off < len && !s->closed) {
		struct iovec iov = { (void *)(buf + off), len - off };
		union {
			char b[CMSG_SPACE(sizeof(int) * 3)];
			struct cmsghdr align;
		} cm;
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		if (n_fds > 0) {
			memset(&cm, 0, sizeof(cm));
			msg.msg_control = cm.b;
			msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n_fds);
			struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n_fds);
			memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n_fds);
		}
		ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return; /* the session closed its end */
			pump(s);
			continue;
		}
		n_fds = 0;
		off += (size_t)n;
	}
}

/* Reads and drops what the daemon wrote, so that its sends never block. */
static void drain(int sock)
{
	uint8_t buf[65536];
	while (recv(sock, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

static void send_hello(struct session *s, int sock)
{
	Webnn__Ipc__Hello h = WEBNN__IPC__HELLO__INIT;
	h.major = WNN_PROTOCOL_MAJOR;
	h.minor = WNN_PROTOCOL_MINOR;
	h.client_name = "fuzz";
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.has_serial = true;
	m.serial = 1;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_HELLO;
	m.hello = &h;
	size_t len;
	uint8_t *buf = wnn_frame_pack(&m, &len);
	if (!buf)
		abort();
	feed(s, sock, buf, len, NULL, 0);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t flags = data[0];
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) != 0)
		abort();
	struct session *s = session_create(&d, sv[0], ++next_no, &fuzz_hooks);
	if (!s)
		abort();
	n_live++;
	session_ref(s); /* ours: s stays readable after it closes */
	int fds[3], n_fds = flags & 3;
	for (int i = 0; i < n_fds; i++)
		fds[i] = make_memfd(!(flags & 4));
	if (flags & 8)
		send_hello(s, sv[1]);
	feed(s, sv[1], data + 1, size - 1, fds, n_fds);
	for (int i = 0; i < n_fds; i++)
		close(fds[i]); /* the daemon has its own copies (or closed them) */
	pump(s);
	drain(sv[1]);
	/* End of stream: the session closes as on a client disconnect, queued work or not. */
	shutdown(sv[1], SHUT_WR);
	while (!s->closed) {
		pump(s);
		drain(sv[1]);
	}
	uv_run(d.loop, UV_RUN_DEFAULT);
	if (s->refs != 1 || s->ids.count != 0 || s->mem_bytes != 0 || s->shm_bytes != 0)
		__builtin_trap(); /* something still holds the closed session or its quota */
	session_unref(s);
	close(sv[1]);
	if (n_live)
		__builtin_trap();
	return 0;
}
