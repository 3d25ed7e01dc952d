/* Framing over the AF_UNIX stream socket: header + protobuf bytes, fds as SCM_RIGHTS. */
#include "proto/wire.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <protobuf-c/protobuf-c.h>

/* fds one recvmsg takes in: more than a frame may carry, so that a violation is reported with
 * the count that arrived; past this the kernel truncates (MSG_CTRUNC) and closes the rest. */
#define READER_CMSG_FDS 16

void wnn_reader_init(struct wnn_reader *r, uint32_t max_frame)
{
	memset(r, 0, sizeof(*r));
	r->max_frame = max_frame ? max_frame : WNN_FRAME_MAX;
}

static void reader_close_fds(struct wnn_reader *r)
{
	for (int i = 0; i < r->n_fds; i++)
		close(r->fds[i]);
	r->n_fds = 0;
}

void wnn_reader_finish(struct wnn_reader *r)
{
	reader_close_fds(r);
	free(r->buf);
	r->buf = NULL;
	r->cap = r->have = 0;
}

static int reader_fail(struct wnn_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int reader_fail(struct wnn_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	reader_close_fds(r);
	return -EPROTO;
}

/* Bytes read ahead past the current frame's end, at most (only into room the buffer has). */
#define READER_AHEAD (64u << 10)

/* Checks a header: 0, or -EPROTO (r->error). */
static int header_check(struct wnn_reader *r, const struct wnn_frame_header *h)
{
	if (h->size > r->max_frame)
		return reader_fail(r, "bad frame header: %" PRIu32 " bytes, over the %" PRIu32
				   "-byte frame limit", h->size, r->max_frame);
	if (h->n_fds > WNN_FRAME_MAX_FDS)
		return reader_fail(r, "bad frame header: %u file descriptors announced, more than "
				   "%d", (unsigned)h->n_fds, WNN_FRAME_MAX_FDS);
	if (h->flags != 0)
		return reader_fail(r, "bad frame header: reserved flags 0x%x set",
				   (unsigned)h->flags);
	return 0;
}

/* 1 with *h once the header of the frame at off is buffered and valid, 0 before, -1 when it
 * is invalid (reported once it is the current frame's). */
static int header_at(const struct wnn_reader *r, size_t off, struct wnn_frame_header *h)
{
	if (r->have < off + sizeof(*h))
		return 0;
	memcpy(h, r->buf + off, sizeof(*h));
	return h->size > r->max_frame || h->n_fds > WNN_FRAME_MAX_FDS || h->flags ? -1 : 1;
}

/* The current frame's header: 1, 0 before it is in, -EPROTO (r->error) when invalid. */
static int reader_header(struct wnn_reader *r, struct wnn_frame_header *h)
{
	int hr = header_at(r, 0, h);
	return hr < 0 ? header_check(r, h) : hr;
}

/* fds the frame at off must have come with: the pending batch if it is that frame's. */
static int fds_of(const struct wnn_reader *r, size_t off)
{
	return r->n_fds && r->fds_at == off ? r->n_fds : 0;
}

/* Once the current frame's header is in, its fds have arrived (with its first bytes): it
 * announces exactly those. Frames read ahead are checked when their turn comes, so that the
 * ones before a bad frame are still handled. */
static int check_announced(struct wnn_reader *r)
{
	struct wnn_frame_header h;
	int hr = reader_header(r, &h);
	if (hr <= 0)
		return hr;
	int got = fds_of(r, 0);
	if (got > h.n_fds)
		return reader_fail(r, "file descriptors arrived with a frame whose header "
				   "announces %u, %d arrived", (unsigned)h.n_fds, got);
	if (got < h.n_fds)
		return reader_fail(r, "a frame whose header announces %u file descriptor%s "
				   "arrived with %d", (unsigned)h.n_fds, h.n_fds == 1 ? "" : "s", got);
	return 0;
}

static void close_all(const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/* How far the next read may go, counted from the buffer's start. */
static size_t reader_limit(struct wnn_reader *r, size_t *want)
{
	struct wnn_frame_header h;
	/* With fds pending, up to the end of their frame's header, then of the frame: a batch
	 * arriving before that is in the middle of a frame. */
	size_t owner = r->n_fds ? r->fds_at : 0;
	size_t end = owner + sizeof(h);
	if (header_at(r, owner, &h) > 0)
		end += h.size;
	/* The current frame must fit whatever the read-ahead. */
	*want = sizeof(h);
	if (reader_header(r, &h) > 0)
		*want += h.size;
	if (r->n_fds)
		return end;
	size_t ahead = *want + READER_AHEAD;
	return r->cap > *want ? (r->cap < ahead ? r->cap : ahead) : *want;
}

int wnn_reader_fill(struct wnn_reader *r, int sock)
{
	struct wnn_frame_header h;
	int hr = reader_header(r, &h);
	if (hr < 0)
		return hr;
	size_t want;
	size_t limit = reader_limit(r, &want);
	if (r->have >= want)
		return -EBUSY;
	if (want > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		while (cap < want)
			cap *= 2;
		uint8_t *nb = realloc(r->buf, cap);
		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->cap = cap;
		limit = reader_limit(r, &want);
	}
	if (limit <= r->have)
		return -EBUSY; /* the frame with pending fds is whole: hand it out first */
	struct iovec iov = { r->buf + r->have, limit - r->have };
	union {
		char buf[CMSG_SPACE(sizeof(int) * READER_CMSG_FDS)];
		struct cmsghdr align;
	} cm;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
			      .msg_controllen = sizeof(cm.buf) };
	ssize_t n;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	int got[READER_CMSG_FDS], n_got = 0;
	bool truncated = (msg.msg_flags & MSG_CTRUNC) != 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (n_got < READER_CMSG_FDS)
				got[n_got++] = fd;
			else {
				close(fd);
				truncated = true;
			}
		}
	}
	size_t before = r->have;
	r->have += (size_t)n;
	r->drained = (size_t)n < iov.iov_len;
	if (n_got || truncated) {
		if (n == 0) { /* EOF: there is no frame for them */
			close_all(got, n_got);
			return 0;
		}
		/* The frame they belong to: the last one starting in the bytes just read. */
		size_t off = 0, owner = SIZE_MAX, cur = before;
		for (;;) {
			if (off >= before && off < r->have)
				owner = off;
			if (header_at(r, off, &h) <= 0 || off + sizeof(h) + h.size >= r->have)
				break;
			off += sizeof(h) + h.size;
		}
		if (owner == SIZE_MAX || r->n_fds) {
			/* how far into its frame the read started */
			size_t f = 0;
			while (header_at(r, f, &h) > 0 && f + sizeof(h) + h.size <= cur)
				f += sizeof(h) + h.size;
			close_all(got, n_got);
			return reader_fail(r, "file descriptors arrived in the middle of a frame "
					   "(%zu bytes into it)", cur - f);
		}
		if (truncated || n_got > WNN_FRAME_MAX_FDS) {
			close_all(got, n_got);
			return reader_fail(r, "%s%d file descriptors arrived with one frame "
					   "(at most %d)", truncated ? "more than " : "", n_got,
					   WNN_FRAME_MAX_FDS);
		}
		memcpy(r->fds, got, sizeof(int) * (size_t)n_got);
		r->n_fds = n_got;
		r->fds_at = owner;
	}
	if (n == 0)
		return 0;
	/* Headers that became whole: their fds have arrived by now. */
	int cr = check_announced(r);
	return cr < 0 ? cr : (int)n;
}

int wnn_reader_next(struct wnn_reader *r, const uint8_t **payload, size_t *len, int *fds,
		    int *n_fds)
{
	struct wnn_frame_header h;
	int hr = reader_header(r, &h);
	if (hr <= 0)
		return hr;
	if (r->have < sizeof(h) + h.size)
		return 0;
	int mine = fds_of(r, 0);
	if (h.n_fds != mine)
		return reader_fail(r, "a frame whose header announces %u file descriptor%s arrived "
				   "with %d", (unsigned)h.n_fds, h.n_fds == 1 ? "" : "s", mine);
	memcpy(fds, r->fds, sizeof(int) * h.n_fds);
	*n_fds = h.n_fds;
	if (mine)
		r->n_fds = 0;
	*payload = r->buf + sizeof(h);
	*len = h.size;
	return 1;
}

bool wnn_reader_ready(const struct wnn_reader *r)
{
	struct wnn_frame_header h;
	return header_at(r, 0, &h) != 0 && (header_at(r, 0, &h) < 0 ||
					     r->have >= sizeof(h) + h.size);
}

void wnn_reader_consume(struct wnn_reader *r)
{
	struct wnn_frame_header h;
	if (reader_header(r, &h) <= 0 || r->have < sizeof(h) + h.size)
		return;
	size_t used = sizeof(h) + h.size;
	/* fds of this frame were handed out by wnn_reader_next (or it had none) */
	if (r->n_fds && r->fds_at == 0)
		reader_close_fds(r);
	/* what was read ahead becomes the current frame */
	memmove(r->buf, r->buf + used, r->have - used);
	r->have -= used;
	if (r->n_fds)
		r->fds_at -= used;
}

int wnn_frame_send(int sock, const void *payload, size_t len, const int *fds, int n_fds)
{
	if (len > WNN_FRAME_MAX || n_fds < 0 || n_fds > WNN_FRAME_MAX_FDS)
		return -EMSGSIZE;
	struct wnn_frame_header h = { (uint32_t)len, (uint16_t)n_fds, 0 };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)payload, len } };
	union {
		char buf[CMSG_SPACE(sizeof(int) * WNN_FRAME_MAX_FDS)];
		struct cmsghdr align;
	} cm;
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	if (n_fds > 0) {
		memset(&cm, 0, sizeof(cm));
		msg.msg_control = cm.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n_fds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n_fds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n_fds);
	}
	size_t total = sizeof(h) + len, sent = 0;
	while (sent < total) {
		ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				struct pollfd p = { sock, POLLOUT, 0 };
				poll(&p, 1, -1);
				continue;
			}
			return -errno;
		}
		sent += (size_t)n;
		/* After the first chunk the fds are gone; advance the iovecs past what was sent. */
		msg.msg_control = NULL;
		msg.msg_controllen = 0;
		size_t skip = (size_t)n;
		while (msg.msg_iovlen && skip >= msg.msg_iov[0].iov_len) {
			skip -= msg.msg_iov[0].iov_len;
			msg.msg_iov++;
			msg.msg_iovlen--;
		}
		if (msg.msg_iovlen) {
			msg.msg_iov[0].iov_base = (char *)msg.msg_iov[0].iov_base + skip;
			msg.msg_iov[0].iov_len -= skip;
		}
	}
	return 0;
}

uint8_t *wnn_frame_pack(const void *pb_message, size_t *out_len)
{
	const ProtobufCMessage *m = pb_message;
	size_t len = protobuf_c_message_get_packed_size(m);
	if (len > WNN_FRAME_MAX)
		return NULL;
	uint8_t *buf = malloc(sizeof(struct wnn_frame_header) + len);
	if (!buf)
		return NULL;
	struct wnn_frame_header h = { (uint32_t)len, 0, 0 };
	memcpy(buf, &h, sizeof(h));
	protobuf_c_message_pack(m, buf + sizeof(h));
	*out_len = sizeof(h) + len;
	return buf;
}
