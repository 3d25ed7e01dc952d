/* The socket of one connection: uv_poll_t readiness, queued frame writes with MSG_DONTWAIT. */
#include "daemon/worker/conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* Above this much unsent output a connection is not read from until its peer catches up. */
#define CONN_OUT_HIGH (64u << 20)

static void conn_on_poll(uv_poll_t *h, int status, int events);
static void batch_on_idle(uv_idle_t *h);
void conn_update(struct conn *c);

void conn_init(struct conn *c, int fd, const struct conn_hooks *hooks)
{
	*c = (struct conn){ .fd = fd, .hooks = hooks };
}

bool conn_out_full(const struct conn *c)
{
	return c->out_bytes >= CONN_OUT_HIGH;
}

static void conn_set_poll(struct conn *c)
{
	int ev = 0;
	if (c->out_bytes < CONN_OUT_HIGH && !c->hooks->paused(c))
		ev |= UV_READABLE;
	/* A batched connection's frames go out from the batch; only what the socket refused
	 * there waits for it to become writable. */
	if (c->out_head && !c->dirty)
		ev |= UV_WRITABLE;
	if (ev == c->poll_events)
		return;
	c->poll_events = ev;
	uv_poll_start(&c->poll, ev, conn_on_poll);
}

/* Frames gathered into one sendmsg. */
#define CONN_IOV 64

/* Writes queued frames, many per sendmsg, until the socket would block; returns -errno on a
 * dead peer. */
static int conn_flush(struct conn *c)
{
	while (c->out_head) {
		struct iovec iov[CONN_IOV];
		int n_iov = 0;
		for (struct outbuf *b = c->out_head; b && n_iov < CONN_IOV; b = b->next)
			iov[n_iov++] = (struct iovec){ b->buf + b->off, b->len - b->off };
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n_iov };
		ssize_t n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		size_t left = (size_t)n;
		c->out_bytes -= left;
		while (left > 0) {
			struct outbuf *b = c->out_head;
			size_t part = b->len - b->off < left ? b->len - b->off : left;
			b->off += part;
			left -= part;
			if (b->off < b->len)
				break;
			c->out_head = b->next;
			if (!c->out_head)
				c->out_tail = NULL;
			size_t len = b->len;
			free(b->buf);
			free(b);
			c->hooks->sent(c, len);
		}
	}
	return 0;
}

static void batch_remove(struct conn *c)
{
	if (!c->dirty)
		return;
	if (c->dirty_prev)
		c->dirty_prev->dirty_next = c->dirty_next;
	else
		c->batch->dirty = c->dirty_next;
	if (c->dirty_next)
		c->dirty_next->dirty_prev = c->dirty_prev;
	c->dirty_prev = c->dirty_next = NULL;
	c->dirty = false;
}

static void batch_add(struct conn *c)
{
	if (c->dirty)
		return;
	c->dirty = true;
	c->dirty_prev = NULL;
	c->dirty_next = c->batch->dirty;
	if (c->batch->dirty)
		c->batch->dirty->dirty_prev = c;
	c->batch->dirty = c;
	uv_idle_start(&c->batch->idle, batch_on_idle);
}

static void batch_on_idle(uv_idle_t *h)
{
	struct conn_batch *b = h->data;
	while (b->dirty) {
		struct conn *c = b->dirty;
		batch_remove(c);
		if (c->resume) {
			/* its handle stays open (and the owner alive) until the closing phase */
			c->resume = false;
			c->hooks->readable(c);
			if (c->fd < 0)
				continue;
		}
		int r = conn_flush(c);
		if (r < 0) {
			char why[96];
			snprintf(why, sizeof(why), "write error: %s", strerror(-r));
			c->hooks->failed(c, why);
			continue;
		}
		conn_update(c); /* output drained: held input may go on */
	}
	uv_idle_stop(h);
}

void conn_batch_init(struct conn_batch *b, uv_loop_t *loop)
{
	if (b->init)
		return;
	uv_idle_init(loop, &b->idle);
	b->idle.data = b;
	b->dirty = NULL;
	b->init = true;
}

void conn_batch_close(struct conn_batch *b)
{
	if (b->init && !uv_is_closing((uv_handle_t *)&b->idle))
		uv_close((uv_handle_t *)&b->idle, NULL);
}

int conn_watch(struct conn *c, uv_loop_t *loop, struct conn_batch *batch)
{
	c->batch = batch && batch->init ? batch : NULL;
	int r = uv_poll_init(loop, &c->poll, c->fd);
	if (r != 0)
		return r;
	c->poll.data = c;
	c->watching = true;
	conn_set_poll(c);
	return 0;
}

int conn_queue(struct conn *c, uint8_t *buf, size_t len)
{
	struct outbuf *b = malloc(sizeof(*b));
	if (!b) {
		free(buf);
		return -ENOMEM;
	}
	*b = (struct outbuf){ .buf = buf, .len = len };
	if (c->out_tail)
		c->out_tail->next = b;
	else
		c->out_head = b;
	c->out_tail = b;
	c->out_bytes += len;
	if (!c->watching)
		return 0;
	if (c->batch && !uv_is_closing((uv_handle_t *)&c->batch->idle)) {
		batch_add(c);
		return 0;
	}
	int r = conn_flush(c);
	if (r < 0)
		return r;
	conn_set_poll(c);
	return 0;
}

void conn_update(struct conn *c)
{
	if (!c->watching)
		return;
	conn_set_poll(c);
	/* Input read ahead while the owner was paused: handle it now that it is not. */
	if (c->batch && c->hooks->buffered && !c->resume && !c->hooks->paused(c) &&
	    c->hooks->buffered(c) && !uv_is_closing((uv_handle_t *)&c->batch->idle)) {
		c->resume = true;
		batch_add(c);
	}
}

static void conn_on_poll(uv_poll_t *h, int status, int events)
{
	struct conn *c = h->data;
	if (status < 0) {
		char why[96];
		snprintf(why, sizeof(why), "socket error: %s", uv_strerror(status));
		c->hooks->failed(c, why);
		return;
	}
	if (events & UV_WRITABLE) {
		int r = conn_flush(c);
		if (r < 0) {
			char why[96];
			snprintf(why, sizeof(why), "write error: %s", strerror(-r));
			c->hooks->failed(c, why);
			return;
		}
	}
	if (events & (UV_READABLE | UV_DISCONNECT))
		c->hooks->readable(c);
	conn_update(c);
}

static void conn_on_closed(uv_handle_t *h)
{
	struct conn *c = h->data;
	c->hooks->closed(c);
}

void conn_close(struct conn *c)
{
	if (c->fd < 0)
		return;
	/* Best effort: a Goodbye queued just before this usually fits the socket buffer. */
	batch_remove(c);
	conn_flush(c);
	if (c->watching) {
		c->watching = false;
		uv_poll_stop(&c->poll);
		uv_close((uv_handle_t *)&c->poll, conn_on_closed);
	}
	/* The front door keeps its own copy of the socket (to explain a worker's death): only a
	 * shutdown ends the connection for the peer. */
	shutdown(c->fd, SHUT_RDWR);
	close(c->fd);
	c->fd = -1;
	/* Nobody will read the rest (a client that never read its replies left it here). */
	conn_finish(c);
}

void conn_finish(struct conn *c)
{
	while (c->out_head) {
		struct outbuf *b = c->out_head;
		c->out_head = b->next;
		size_t len = b->len;
		free(b->buf);
		free(b);
		c->hooks->sent(c, len);
	}
	c->out_tail = NULL;
	c->out_bytes = 0;
}
