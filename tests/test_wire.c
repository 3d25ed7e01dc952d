/* Framing tests: frames split across reads, fds carried with their frame, hostile headers. */
#include "tests/test.h"

#include <errno.h>
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

	struct wnn_frame_header h2 = { 4, 3, 0 }; /* claims 3 fds, sends none */
	ASSERT(write(sv[0], &h2, sizeof(h2)) == sizeof(h2));
	ASSERT(write(sv[0], "abcd", 4) == 4);
	wnn_reader_init(&r, 0);
	const uint8_t *p;
	size_t len;
	int fds[WNN_FRAME_MAX_FDS], nfds;
	int n;
	while ((n = wnn_reader_next(&r, &p, &len, fds, &nfds)) == 0)
		ASSERT(wnn_reader_fill(&r, sv[1]) > 0);
	ASSERT_EQ(n, -EPROTO);
	wnn_reader_finish(&r);
	close(sv[0]);
	close(sv[1]);
}
