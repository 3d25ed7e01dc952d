/* Framing tests: frames split across reads, fds carried with their frame only, hostile headers. */
#include "tests/test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/wire.h"

TEST(wire_frame_roundtrip_with_fd)
{
	int sv[2];
	ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	int pipefd[2];
	ASSERT(pipe(pipefd) == 0);
	ASSERT_EQ(wnn_frame_send(sv[0], "hello", 5, &pipefd[1], 1), 0);
	ASSERT_EQ(wnn_frame_send(sv[0], "world!", 6, NULL, 0), 0);
	struct wnn_reader r;
	wnn_reader_init(&r, 0);
	const uint8_t *p;
	size_t len;
	int fds[WNN_FRAME_MAX_FDS], nfds = -1;
	int got = 0;
	while (got < 2) {
		int n = wnn_reader_next(&r, &p, &len, fds, &nfds);
		ASSERT(n >= 0);
		if (n == 0) {
			ASSERT(wnn_reader_fill(&r, sv[1]) > 0);
			continue;
		}
		if (got == 0) {
			ASSERT_EQ(len, 5);
			ASSERT(memcmp(p, "hello", 5) == 0);
			ASSERT_EQ(nfds, 1);
			ASSERT(write(fds[0], "x", 1) == 1);
			close(fds[0]);
		} else {
			ASSERT_EQ(len, 6);
			ASSERT_EQ(nfds, 0);
		}
		wnn_reader_consume(&r);
		got++;
	}
	wnn_reader_finish(&r);
	close(sv[0]);
	close(sv[1]);
	close(pipefd[0]);
	close(pipefd[1]);
}

TEST(wire_rejects_oversized_and_bad_headers)
{
	int sv[2];
	ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	struct wnn_frame_header h = { WNN_FRAME_MAX + 1, 0, 0 };
	ASSERT(write(sv[0], &h, sizeof(h)) == sizeof(h));
	struct wnn_reader r;
	wnn_reader_init(&r, 0);
	ASSERT_EQ(wnn_reader_fill(&r, sv[1]), -EPROTO);
	wnn_reader_finish(&r);

	ASSERT_CONTAINS(r.error, "bad frame header");
	wnn_reader_finish(&r);

	/* Claims 3 fds, sends none: refused as soon as the header is read. */
	struct wnn_frame_header h2 = { 4, 3, 0 };
	ASSERT(write(sv[0], &h2, sizeof(h2)) == sizeof(h2));
	ASSERT(write(sv[0], "abcd", 4) == 4);
	wnn_reader_init(&r, 0);
	ASSERT_EQ(wnn_reader_fill(&r, sv[1]), -EPROTO);
	ASSERT_CONTAINS(r.error, "announces 3 file descriptors arrived with 0");
	wnn_reader_finish(&r);
	close(sv[0]);
	close(sv[1]);
}

/* ---- file descriptors belong to exactly one frame */

static int open_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	ASSERT(d);
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Writes bytes with fds attached (SCM_RIGHTS on their first byte), as a hostile client may. */
static void send_raw(int sock, const void *buf, size_t len, const int *fds, int n_fds)
{
	union {
		char b[CMSG_SPACE(sizeof(int) * 32)];
		struct cmsghdr align;
	} cm;
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (n_fds) {
		ASSERT(n_fds <= 32);
		memset(&cm, 0, sizeof(cm));
		msg.msg_control = cm.b;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n_fds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n_fds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n_fds);
	}
	ASSERT(sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len);
}

/* A header announcing n_fds and a 4-byte payload, in one buffer. */
static size_t frame_bytes(uint8_t *out, uint16_t n_fds)
{
	struct wnn_frame_header h = { 4, n_fds, 0 };
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), "abcd", 4);
	return sizeof(h) + 4;
}

/* Fills until the reader fails or a whole frame is there; returns the last fill's result
 * (-EBUSY: a frame is complete). */
static int fill_all(struct wnn_reader *r, int sock)
{
	int n;
	while ((n = wnn_reader_fill(r, sock)) > 0)
		;
	return n;
}

/* Sends the bytes (in pieces, each with its fds) and expects the reader to refuse them with
 * `why`, every received fd closed. */
struct piece {
	size_t off, len;
	int n_fds;
};
static void expect_refused(const uint8_t *bytes, const struct piece *pieces, int n_pieces,
			   const char *why)
{
	int sv[2];
	ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	int before = open_fd_count();
	int fds[32];
	for (int i = 0; i < 32; i++)
		ASSERT((fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0);
	for (int i = 0; i < n_pieces; i++)
		send_raw(sv[0], bytes + pieces[i].off, pieces[i].len, fds, pieces[i].n_fds);
	for (int i = 0; i < 32; i++)
		close(fds[i]);
	struct wnn_reader r;
	wnn_reader_init(&r, 0);
	int n = fill_all(&r, sv[1]);
	ASSERT_MSG(n == -EPROTO, "fill returned %d, expected -EPROTO (%s)", n, why);
	ASSERT_CONTAINS(r.error, why);
	/* Nothing was kept for a later frame: every fd that arrived is closed already. */
	ASSERT_EQ(open_fd_count(), before);
	wnn_reader_finish(&r);
	close(sv[0]);
	close(sv[1]);
}

TEST(wire_fds_must_match_their_frame)
{
	uint8_t b[64];
	size_t n0 = frame_bytes(b, 0);
	/* fds with a frame announcing none: once kept and attached to later frames. */
	expect_refused(b, (struct piece[]){ { 0, n0, 2 } }, 1,
		       "file descriptors arrived with a frame whose header announces 0, 2 arrived");
	/* More than announced. */
	size_t n1 = frame_bytes(b, 1);
	expect_refused(b, (struct piece[]){ { 0, n1, 3 } }, 1,
		       "file descriptors arrived with a frame whose header announces 1, 3 arrived");
	/* Fewer than announced. */
	size_t n2 = frame_bytes(b, 2);
	expect_refused(b, (struct piece[]){ { 0, n2, 1 } }, 1,
		       "a frame whose header announces 2 file descriptors arrived with 1");
	/* In the middle of a frame (announcing none): the kernel glues the pieces into one read,
	 * which belongs to the frame starting in it. */
	frame_bytes(b, 0);
	expect_refused(b, (struct piece[]){ { 0, 10, 0 }, { 10, n0 - 10, 1 } }, 2,
		       "file descriptors arrived with a frame whose header announces 0, 1 arrived");
	/* In the middle of a frame that announces one and got it with its start. */
	frame_bytes(b, 1);
	expect_refused(b, (struct piece[]){ { 0, 3, 1 }, { 3, 5, 0 }, { 8, 4, 1 } }, 3,
		       "file descriptors arrived in the middle of a frame (8 bytes into it)");
	/* More than any frame may carry, and more than one read takes in. */
	expect_refused(b, (struct piece[]){ { 0, n1, 5 } }, 1,
		       "5 file descriptors arrived with one frame (at most 4)");
	expect_refused(b, (struct piece[]){ { 0, n1, 20 } }, 1,
		       "more than 16 file descriptors arrived with one frame (at most 4)");
}

/* fds sent with a frame's first bytes belong to it even when its header arrives in pieces. */
TEST(wire_fds_with_a_split_header)
{
	int sv[2];
	ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	uint8_t b[64];
	size_t n = frame_bytes(b, 1);
	int pipefd[2];
	ASSERT(pipe(pipefd) == 0);
	send_raw(sv[0], b, 3, &pipefd[1], 1);
	send_raw(sv[0], b + 3, n - 3, NULL, 0);
	ASSERT_EQ(wnn_frame_send(sv[0], "next", 4, NULL, 0), 0);
	close(pipefd[1]);
	struct wnn_reader r;
	wnn_reader_init(&r, 0);
	ASSERT_EQ(fill_all(&r, sv[1]), -EBUSY);
	const uint8_t *p;
	size_t len;
	int fds[WNN_FRAME_MAX_FDS], nfds = -1;
	ASSERT_EQ(wnn_reader_next(&r, &p, &len, fds, &nfds), 1);
	ASSERT_EQ(len, 4);
	ASSERT(memcmp(p, "abcd", 4) == 0);
	ASSERT_EQ(nfds, 1);
	ASSERT(write(fds[0], "x", 1) == 1);
	close(fds[0]);
	char c;
	ASSERT(read(pipefd[0], &c, 1) == 1 && c == 'x');
	wnn_reader_consume(&r);
	ASSERT_EQ(fill_all(&r, sv[1]), -EBUSY);
	ASSERT_EQ(wnn_reader_next(&r, &p, &len, fds, &nfds), 1);
	ASSERT_EQ(nfds, 0);
	ASSERT(memcmp(p, "next", 4) == 0);
	wnn_reader_consume(&r);
	ASSERT_EQ(wnn_reader_fill(&r, sv[1]), -EAGAIN);
	wnn_reader_finish(&r);
	close(pipefd[0]);
	close(sv[0]);
	close(sv[1]);
}
