/* The socket of one connection: a uv_poll_t watch, queued frame writes, back-pressure. */
#ifndef DAEMON_CONN_H
#define DAEMON_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

struct conn;

/* What the connection's owner does with socket events (its only way back to the owner). */
struct conn_hooks {
	void (*readable)(struct conn *c);            /* bytes (or EOF) to read */
	void (*failed)(struct conn *c, const char *why); /* socket or write error */
	bool (*paused)(const struct conn *c);        /* true: do not read (too much work queued) */
	void (*closed)(struct conn *c);              /* the poll handle is closed (after conn_close) */
	void (*sent)(struct conn *c, size_t len);    /* a queued frame of len bytes was sent or dropped */
	/* Optional: the owner holds input it read but did not handle (it paused in between):
	 * once not paused, readable runs again (from the batch) even if the socket stays quiet. */
	bool (*buffered)(const struct conn *c);
};

struct outbuf {
	struct outbuf *next;
	uint8_t *buf;
	size_t len, off;
};

/* Frames queued while the loop handles one round of events go out together, one sendmsg per
 * connection, once the round's callbacks are done (an idle handle: the next iteration does not
 * block before it runs), instead of one send per frame. */
struct conn_batch {
	uv_idle_t idle;
	struct conn *dirty; /* connections with frames waiting for the batch */
	bool init;
};

struct conn {
	int fd;
	uv_poll_t poll;
	bool watching;       /* poll handle initialised and not yet closed */
	int poll_events;
	const struct conn_hooks *hooks;
	struct outbuf *out_head, *out_tail;
	size_t out_bytes;
	struct conn_batch *batch; /* NULL: every frame is sent as it is queued */
	struct conn *dirty_prev, *dirty_next;
	bool dirty;               /* on batch->dirty */
	bool resume;              /* call hooks->readable from the batch (buffered input) */
};

void conn_init(struct conn *c, int fd, const struct conn_hooks *hooks);
/* Starts watching the socket. 0 or a libuv error. batch may be NULL (no batching). */
int conn_watch(struct conn *c, uv_loop_t *loop, struct conn_batch *batch);
/* The loop's batch: initialised once, closed when the loop winds down. */
void conn_batch_init(struct conn_batch *b, uv_loop_t *loop);
void conn_batch_close(struct conn_batch *b);
/* Queues one packed frame (ownership of buf passes) and sends it right away, or with the
 * batch.
 * Returns 0, or -errno when the peer is gone or memory ran out (buf is freed). */
int conn_queue(struct conn *c, uint8_t *buf, size_t len);
/* Too much output waits for the peer: the connection is not read from until it catches up. */
bool conn_out_full(const struct conn *c);
/* Re-evaluates what the connection waits for (after the owner's backlog shrank). */
void conn_update(struct conn *c);
/* Closes the socket after a best-effort flush (what is left is dropped); hooks->closed follows
 * if it was watched. */
void conn_close(struct conn *c);
/* Frees frames never sent (after the close). */
void conn_finish(struct conn *c);

#endif
