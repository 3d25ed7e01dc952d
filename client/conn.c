/* libwebnn connection layer: socket, handshake, request/reply matching, events, shm arena. */
#include "client/client.h"
#include "proto/messages.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define ARENA_MIN_BYTES (1u << 20)

void wnnc_lock(struct webnn_context *ctx)
{
	pthread_mutex_lock(&ctx->lock);
	ctx->call_failed = false;
}

/* Moves an answered (or failed) asynchronous call to the list wnnc_unlock runs. */
static void async_finish(struct webnn_context *ctx, struct wnnc_async *a)
{
	*ctx->done_tail = a;
	ctx->done_tail = &a->next;
	a->next = NULL;
	if (a->kind == WNNC_ASYNC_READ && a->tensor->read_serial == a->serial)
		a->tensor->read_serial = 0;
}

void wnnc_async_add(struct webnn_context *ctx, struct wnnc_async *a)
{
	a->next = NULL;
	*ctx->pending_tail = a;
	ctx->pending_tail = &a->next;
	if (a->kind == WNNC_ASYNC_READ)
		a->tensor->read_serial = a->serial;
}

static const char *async_what(const struct wnnc_async *a)
{
	switch (a->kind) {
	case WNNC_ASYNC_READ: return "readTensor";
	case WNNC_ASYNC_TENSOR: return a->tensor->constant ? "createConstantTensor" : "createTensor";
	case WNNC_ASYNC_GRAPH: return "build";
	case WNNC_ASYNC_HELLO:
	case WNNC_ASYNC_CONTEXT: return "createContext";
	}
	return "call";
}

/* Runs one answered call's callback, unlocked; frees what the caller did not receive. */
static void async_run(struct webnn_context *ctx, struct wnnc_async *a)
{
	bool ok = a->status == WEBNN_STATUS_OK;
	bool unref_ctx = false;
	if (!ok && a->kind == WNNC_ASYNC_TENSOR) {
		wnnc_tensor_free_unowned(a->tensor);
		a->tensor = NULL;
		unref_ctx = true;
	}
	pthread_mutex_unlock(&ctx->lock);
	switch (a->kind) {
	case WNNC_ASYNC_READ:
		a->read_cb(a->user_data, a->status, a->message);
		wnnc_tensor_release(a->tensor);
		break;
	case WNNC_ASYNC_TENSOR:
		a->tensor_cb(a->user_data, a->status, a->message, a->tensor);
		break;
	case WNNC_ASYNC_GRAPH:
		if (!ok) {
			wnnc_graph_free(a->graph);
			a->graph = NULL;
			unref_ctx = true;
		}
		a->graph_cb(a->user_data, a->status, a->message, a->graph);
		break;
	case WNNC_ASYNC_HELLO:
		break;
	case WNNC_ASYNC_CONTEXT:
		a->context_cb(a->user_data, a->status, a->message, ctx);
		break;
	}
	free(a->constant_ids);
	free(a);
	if (unref_ctx)
		wnnc_context_unref(ctx);
	pthread_mutex_lock(&ctx->lock);
}

/* The callbacks of the calls answered, run unlocked (they may call libwebnn), in order. */
static void run_async(struct webnn_context *ctx)
{
	if (ctx->lost) { /* nothing more will answer the calls in flight */
		while (ctx->pending) {
			struct wnnc_async *a = ctx->pending;
			ctx->pending = a->next;
			if (!ctx->ready) {
				/* There never was a context to lose: createContext failed. */
				a->status = WEBNN_STATUS_NOT_SUPPORTED;
				snprintf(a->message, sizeof(a->message), "createContext: %.400s",
					 ctx->lost_message);
			} else {
				a->status = WEBNN_STATUS_CONTEXT_LOST;
				snprintf(a->message, sizeof(a->message), "%s: context lost: %.400s",
					 async_what(a), ctx->lost_message);
			}
			async_finish(ctx, a);
		}
		ctx->pending_tail = &ctx->pending;
	}
	while (ctx->done) {
		struct wnnc_async *a = ctx->done;
		ctx->done = a->next;
		if (!ctx->done)
			ctx->done_tail = &ctx->done;
		async_run(ctx, a);
	}
}

void wnnc_unlock(struct webnn_context *ctx)
{
	if (!ctx->call_failed)
		ctx->last_error[0] = '\0';
	if (ctx->done || (ctx->lost && ctx->pending)) {
		/* A callback may destroy the context (and drop what the calls held): it stays
		 * allocated until they have all run. */
		ctx->refs++;
		run_async(ctx);
		if (--ctx->refs == 0) {
			pthread_mutex_unlock(&ctx->lock);
			wnnc_context_free(ctx);
			return;
		}
	}
	/* The callback runs unlocked so it may call back into libwebnn. */
	if (ctx->lost && ctx->lost_cb && !ctx->lost_cb_fired) {
		webnn_lost_cb cb = ctx->lost_cb;
		void *ud = ctx->lost_ud;
		char msg[WNNC_MSG_MAX];
		memcpy(msg, ctx->lost_message, sizeof(msg));
		ctx->lost_cb_fired = true;
		pthread_mutex_unlock(&ctx->lock);
		cb(ud, msg);
		return;
	}
	pthread_mutex_unlock(&ctx->lock);
}

enum webnn_status wnnc_fail(struct webnn_context *ctx, enum webnn_status status, const char *fmt,
			    ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ctx->last_error, sizeof(ctx->last_error), fmt, ap);
	va_end(ap);
	ctx->call_failed = true;
	return status;
}

void wnnc_set_lost(struct webnn_context *ctx, const char *fmt, ...)
{
	if (ctx->lost)
		return;
	ctx->lost = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ctx->lost_message, sizeof(ctx->lost_message), fmt, ap);
	va_end(ap);
}

enum webnn_status wnnc_check_live(struct webnn_context *ctx, const char *what)
{
	if (!ctx->lost && !ctx->ready)
		return wnnc_fail(ctx, WEBNN_STATUS_INVALID_STATE,
				 "%s: the context is still being created", what);
	if (!ctx->lost)
		return WEBNN_STATUS_OK;
	return wnnc_fail(ctx, WEBNN_STATUS_CONTEXT_LOST, "%s: context lost: %s", what,
			 ctx->lost_message);
}

uint32_t wnnc_new_id(struct webnn_context *ctx)
{
	if (ctx->next_id == 0) /* wrapped: 0 is never a valid id */
		ctx->next_id = 1;
	return ctx->next_id++;
}

uint64_t wnnc_new_serial(struct webnn_context *ctx)
{
	if (ctx->next_serial == 0)
		ctx->next_serial = 1;
	return ctx->next_serial++;
}

void wnnc_done(struct webnn_context *ctx, uint64_t seq)
{
	if (seq > ctx->done_seq)
		ctx->done_seq = seq;
}

bool wnnc_tensor_busy(const struct webnn_context *ctx, const struct webnn_tensor *t)
{
	return t->last_use > ctx->done_seq;
}

/* Requests whose reply the daemon queues behind the context's earlier work (timeline_reply):
 * their reply, even an error, means everything sent before them has finished. */
static bool ordered_reply(const Webnn__Ipc__ClientMessage *m)
{
	return wnn_message_has((unsigned)m->body_case, WNN_MSG_ORDERED);
}

static void arena_drop(struct webnn_context *ctx)
{
	if (ctx->arena)
		munmap(ctx->arena, ctx->arena_size);
	if (ctx->arena_fd >= 0)
		close(ctx->arena_fd);
	ctx->arena = NULL;
	ctx->arena_fd = -1;
	ctx->arena_size = 0;
	ctx->arena_slot = 0;
	ctx->arena_serial = 0;
}

void wnnc_disconnect(struct webnn_context *ctx)
{
	if (ctx->held_len && !ctx->lost)
		wnnc_send_held(ctx); /* DestroyContext and Goodbye among them */
	free(ctx->held);
	ctx->held = NULL;
	ctx->held_len = ctx->held_cap = 0;
	arena_drop(ctx);
	if (ctx->sock >= 0)
		close(ctx->sock);
	ctx->sock = -1;
	wnn_reader_finish(&ctx->reader);
}

static enum webnn_status status_from_wire(uint32_t s)
{
	return s <= WEBNN_STATUS_PROTOCOL_ERROR ? (enum webnn_status)s
						: WEBNN_STATUS_OPERATION_ERROR;
}

enum webnn_status wnnc_status_from_error(const Webnn__Ipc__Error *e)
{
	enum webnn_status s = status_from_wire(e->status);
	return s == WEBNN_STATUS_OK ? WEBNN_STATUS_OPERATION_ERROR : s;
}

static void record_event_error(struct webnn_context *ctx, const Webnn__Ipc__Error *e)
{
	if (ctx->pending_status != WEBNN_STATUS_OK || !e)
		return;
	ctx->pending_status = status_from_wire(e->status);
	if (ctx->pending_status == WEBNN_STATUS_OK)
		ctx->pending_status = WEBNN_STATUS_OPERATION_ERROR;
	snprintf(ctx->pending_message, sizeof(ctx->pending_message), "%s",
		 e->message ? e->message : "");
}

static void read_frames(struct webnn_context *ctx, bool block, uint64_t want,
			Webnn__Ipc__ServerMessage **out);

/* The reply to an asynchronous read: its bytes into the caller's buffer, or its error. */
static void read_answered(struct webnn_context *ctx, struct wnnc_async *r,
			  const Webnn__Ipc__Reply *reply)
{
	wnnc_done(ctx, r->seq);
	const Webnn__Ipc__Error *e = reply->error;
	if (e) {
		r->status = status_from_wire(e->status);
		if (r->status == WEBNN_STATUS_OK)
			r->status = WEBNN_STATUS_OPERATION_ERROR;
		snprintf(r->message, sizeof(r->message), "%s", e->message ? e->message : "readTensor");
		return;
	}
	const Webnn__Ipc__ReadTensorReply *rr =
		reply->body_case == WEBNN__IPC__REPLY__BODY_READ_TENSOR ? reply->read_tensor : NULL;
	if (r->in_place && r->tensor->map) {
		/* No command that changes the bytes was sent since (they wait for this reply). */
		memcpy(r->data, r->tensor->map, r->size);
	} else if (!r->in_place && rr && rr->has_data && rr->data.len == r->size) {
		memcpy(r->data, rr->data.data, r->size);
	} else {
		r->status = WEBNN_STATUS_PROTOCOL_ERROR;
		snprintf(r->message, sizeof(r->message),
			 "readTensor: webnnd returned %zu bytes, expected %zu",
			 rr && rr->has_data ? rr->data.len : (size_t)0, r->size);
		return;
	}
	r->status = WEBNN_STATUS_OK;
	r->message[0] = '\0';
}

void wnnc_wait_reads(struct webnn_context *ctx, struct webnn_tensor *t)
{
	while (t->read_serial && !ctx->lost) {
		Webnn__Ipc__ServerMessage *m = NULL;
		read_frames(ctx, true, t->read_serial, &m);
		if (m) /* not expected: the reply of a read is consumed by handle_frame */
			webnn__ipc__server_message__free_unpacked(m, NULL);
	}
}

/* The reply to an asynchronous call: its result kept for the callback. */
static void async_answered(struct webnn_context *ctx, struct wnnc_async *a,
			   const Webnn__Ipc__Reply *reply)
{
	if (ctx->arena_serial && ctx->arena_serial == a->serial) {
		/* It carried shm data: the daemon has copied it, the arena is free again. */
		ctx->arena_serial = 0;
		wnnc_done(ctx, ctx->arena_seq);
	}
	switch (a->kind) {
	case WNNC_ASYNC_READ:
		read_answered(ctx, a, reply);
		break;
	case WNNC_ASYNC_TENSOR:
		wnnc_tensor_answered(ctx, a, reply);
		break;
	case WNNC_ASYNC_GRAPH:
		wnnc_graph_answered(ctx, a, reply);
		break;
	case WNNC_ASYNC_HELLO:
		wnnc_hello_answered(ctx, a, reply);
		break;
	case WNNC_ASYNC_CONTEXT:
		wnnc_context_answered(ctx, a, reply);
		break;
	}
	async_finish(ctx, a);
}

/* Handles one frame from the daemon. Returns true (and hands the message over in *out) when it
 * is the reply with serial `want`. */
static bool handle_frame(struct webnn_context *ctx, const uint8_t *payload, size_t len,
			 uint64_t want, Webnn__Ipc__ServerMessage **out)
{
	Webnn__Ipc__ServerMessage *m = webnn__ipc__server_message__unpack(NULL, len, payload);
	if (!m) {
		wnnc_set_lost(ctx, "protocol error: webnnd sent an undecodable message");
		return false;
	}
	switch (m->body_case) {
	case WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY:
		if (ctx->pending) {
			struct wnnc_async **pp = &ctx->pending, *a;
			while ((a = *pp) && a->serial != m->reply->serial)
				pp = &a->next;
			if (a) {
				*pp = a->next;
				if (!*pp)
					ctx->pending_tail = pp;
				async_answered(ctx, a, m->reply);
				webnn__ipc__server_message__free_unpacked(m, NULL);
				/* A wait for this call (want) ends here, with no message to hand
				 * over. */
				if (want && a->serial == want) {
					*out = NULL;
					return true;
				}
				return false;
			}
		}
		if (want && m->reply->serial == want) {
			*out = m;
			return true;
		}
		if (ctx->arena_serial && m->reply->serial == ctx->arena_serial) {
			/* The daemon has copied a shm write: the arena is free again. */
			ctx->arena_serial = 0;
			wnnc_done(ctx, ctx->arena_seq);
			record_event_error(ctx, m->reply->error);
		}
		break;
	case WEBNN__IPC__SERVER_MESSAGE__BODY_ERROR:
		record_event_error(ctx, m->error->error);
		break;
	case WEBNN__IPC__SERVER_MESSAGE__BODY_CONTEXT_LOST:
		wnnc_set_lost(ctx, "%s", m->context_lost->message ? m->context_lost->message
								 : "device failure");
		break;
	case WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE:
		wnnc_set_lost(ctx, "webnnd closed the connection: %s",
			      m->goodbye->reason ? m->goodbye->reason : "no reason given");
		break;
	default:
		wnnc_set_lost(ctx, "protocol error: webnnd sent an unknown message");
		break;
	}
	webnn__ipc__server_message__free_unpacked(m, NULL);
	return false;
}

/* Reads and handles frames until the reply with serial `want` arrives (want != 0), or, with
 * block false, until nothing more is buffered. Stops early once the context is lost. */
static void read_frames(struct webnn_context *ctx, bool block, uint64_t want,
			Webnn__Ipc__ServerMessage **out)
{
	bool emptied = false; /* a read of this call found the socket empty behind its bytes */
	for (;;) {
		const uint8_t *payload;
		size_t len;
		int fds[WNN_FRAME_MAX_FDS], n_fds = 0;
		int r;
		while (!ctx->lost && ctx->sock >= 0 &&
		       (r = wnn_reader_next(&ctx->reader, &payload, &len, fds, &n_fds)) != 0) {
			if (r < 0) {
				wnnc_set_lost(ctx, "protocol error: webnnd sent a malformed "
					      "frame: %s", ctx->reader.error);
				break;
			}
			for (int i = 0; i < n_fds; i++) /* the daemon never sends fds */
				close(fds[i]);
			bool got = handle_frame(ctx, payload, len, want, out);
			wnn_reader_consume(&ctx->reader);
			if (got) {
				/* Handle events already buffered behind the reply now: the fd
				 * will not signal them to an event loop again. A short last read
				 * left nothing in the socket: what comes later makes the fd
				 * readable. */
				if (wnn_reader_ready(&ctx->reader) || !ctx->reader.drained)
					read_frames(ctx, false, 0, NULL);
				return;
			}
		}
		if (ctx->lost || ctx->sock < 0)
			return;
		/* Not blocking: what arrives later makes the fd readable again, so one more
		 * recvmsg that would only say EAGAIN is spared (one per event-loop wakeup). */
		if (!block && emptied)
			return;
		int n = wnn_reader_fill(&ctx->reader, ctx->sock);
		if (n > 0) {
			emptied = ctx->reader.drained;
			continue;
		}
		if (n == 0) {
			wnnc_set_lost(ctx, "webnnd closed the connection");
			return;
		}
		if (n == -EAGAIN) {
			if (!block)
				return;
			/* Whatever is awaited cannot come while the requests before it are held. */
			if (ctx->held_len && wnnc_send_held(ctx) != WEBNN_STATUS_OK)
				return;
			struct pollfd p = { ctx->sock, POLLIN, 0 };
			if (poll(&p, 1, -1) < 0 && errno != EINTR) {
				wnnc_set_lost(ctx, "poll on the webnnd connection: %s",
					      strerror(errno));
				return;
			}
			continue;
		}
		if (n == -EPROTO)
			wnnc_set_lost(ctx, "protocol error: webnnd sent a malformed frame: %s",
				      ctx->reader.error);
		else
			wnnc_set_lost(ctx, "connection to webnnd failed: %s", strerror(-n));
		return;
	}
}

enum webnn_status wnnc_poll_events(struct webnn_context *ctx)
{
	read_frames(ctx, false, 0, NULL);
	return ctx->lost ? WEBNN_STATUS_CONTEXT_LOST : WEBNN_STATUS_OK;
}

/* Bytes held at most before they go anyway. */
#define HELD_MAX (64u << 10)

/* Sends bytes that are whole frames without fds. 0 or -errno. */
static int send_bytes(int sock, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(sock, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				struct pollfd pf = { sock, POLLOUT, 0 };
				poll(&pf, 1, -1);
				continue;
			}
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static enum webnn_status send_failed(struct webnn_context *ctx, int r)
{
	/* A Goodbye may explain why the daemon hung up; pick it up first. */
	read_frames(ctx, false, 0, NULL);
	wnnc_set_lost(ctx, "connection to webnnd lost: %s", strerror(-r));
	return wnnc_fail(ctx, WEBNN_STATUS_CONTEXT_LOST, "context lost: %s", ctx->lost_message);
}

enum webnn_status wnnc_send_held(struct webnn_context *ctx)
{
	if (!ctx->held_len)
		return WEBNN_STATUS_OK;
	if (ctx->lost || ctx->sock < 0) {
		ctx->held_len = 0;
		return wnnc_fail(ctx, WEBNN_STATUS_CONTEXT_LOST, "context lost: %s",
				 ctx->lost_message);
	}
	int r = send_bytes(ctx->sock, ctx->held, ctx->held_len);
	ctx->held_len = 0;
	return r < 0 ? send_failed(ctx, r) : WEBNN_STATUS_OK;
}

/* Appends a frame to the held bytes; false when it does not fit (then nothing is added). */
static bool hold_frame(struct webnn_context *ctx, const Webnn__Ipc__ClientMessage *m, size_t len)
{
	struct wnn_frame_header h = { (uint32_t)len, 0, 0 };
	size_t need = ctx->held_len + sizeof(h) + len;
	if (need > HELD_MAX)
		return false;
	if (need > ctx->held_cap) {
		size_t cap = ctx->held_cap ? ctx->held_cap : 4096;
		while (cap < need)
			cap *= 2;
		uint8_t *p = realloc(ctx->held, cap);
		if (!p)
			return false;
		ctx->held = p;
		ctx->held_cap = cap;
	}
	memcpy(ctx->held + ctx->held_len, &h, sizeof(h));
	webnn__ipc__client_message__pack(m, ctx->held + ctx->held_len + sizeof(h));
	ctx->held_len = need;
	return true;
}

enum webnn_status wnnc_send(struct webnn_context *ctx, Webnn__Ipc__ClientMessage *m,
			    const int *fds, int n_fds)
{
	if (ctx->lost || ctx->sock < 0)
		return wnnc_fail(ctx, WEBNN_STATUS_CONTEXT_LOST, "context lost: %s",
				 ctx->lost_message);
	size_t len = webnn__ipc__client_message__get_packed_size(m);
	uint32_t max = ctx->limits.max_frame_bytes ? ctx->limits.max_frame_bytes : WNN_FRAME_MAX;
	if (max > WNN_FRAME_MAX)
		max = WNN_FRAME_MAX;
	if (len > max)
		return wnnc_fail(ctx, WEBNN_STATUS_NOT_SUPPORTED,
				 "request of %zu bytes exceeds webnnd's frame limit of %u bytes",
				 len, max);
	if (ctx->hold_sends && n_fds == 0 && hold_frame(ctx, m, len)) {
		/* A request with a reply (or fds) sends it at once, with what is held before
		 * it: the daemon sees them in order, in one read. */
		if (m->serial) {
			int r = send_bytes(ctx->sock, ctx->held, ctx->held_len);
			ctx->held_len = 0;
			if (r < 0)
				return send_failed(ctx, r);
		}
		ctx->sent_seq++;
		return WEBNN_STATUS_OK;
	}
	if (ctx->held_len) {
		enum webnn_status s = wnnc_send_held(ctx);
		if (s != WEBNN_STATUS_OK)
			return s;
	}
	uint8_t stackbuf[4096];
	uint8_t *buf = len <= sizeof(stackbuf) ? stackbuf : malloc(len);
	if (!buf)
		return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "out of memory packing a request");
	webnn__ipc__client_message__pack(m, buf);
	int r = wnn_frame_send(ctx->sock, buf, len, fds, n_fds);
	if (buf != stackbuf)
		free(buf);
	if (r < 0)
		return send_failed(ctx, r);
	ctx->sent_seq++;
	return WEBNN_STATUS_OK;
}

enum webnn_status wnnc_wait_reply(struct webnn_context *ctx, uint64_t serial, const char *what,
				  Webnn__Ipc__ServerMessage **reply)
{
	Webnn__Ipc__ServerMessage *m = NULL;
	*reply = NULL;
	read_frames(ctx, true, serial, &m);
	if (!m)
		return wnnc_fail(ctx, WEBNN_STATUS_CONTEXT_LOST, "%s: context lost: %s", what,
				 ctx->lost_message);
	const Webnn__Ipc__Error *e = m->reply->error;
	if (e) {
		enum webnn_status s = status_from_wire(e->status);
		if (s == WEBNN_STATUS_OK)
			s = WEBNN_STATUS_OPERATION_ERROR;
		wnnc_fail(ctx, s, "%s", e->message ? e->message : what);
		webnn__ipc__server_message__free_unpacked(m, NULL);
		return s;
	}
	*reply = m;
	return WEBNN_STATUS_OK;
}

enum webnn_status wnnc_call(struct webnn_context *ctx, Webnn__Ipc__ClientMessage *m,
			    const char *what, Webnn__Ipc__ServerMessage **reply)
{
	Webnn__Ipc__ServerMessage *r = NULL;
	if (!m->serial) {
		m->has_serial = true;
		m->serial = wnnc_new_serial(ctx);
	}
	enum webnn_status s = wnnc_send(ctx, m, NULL, 0);
	uint64_t seq = ctx->sent_seq;
	if (s == WEBNN_STATUS_OK)
		s = wnnc_wait_reply(ctx, m->serial, what, &r);
	if (s != WEBNN_STATUS_CONTEXT_LOST && ordered_reply(m))
		wnnc_done(ctx, seq);
	if (reply)
		*reply = r;
	else if (r)
		webnn__ipc__server_message__free_unpacked(r, NULL);
	return s;
}

/* ---- shared memory */

/* Waits until the daemon has finished with the arena (its reply to the last shm request). */
static enum webnn_status arena_wait_idle(struct webnn_context *ctx, const char *what)
{
	while (ctx->arena_serial && !ctx->lost) {
		Webnn__Ipc__ServerMessage *m = NULL;
		/* An asynchronous call's reply (a constant tensor's) frees the arena in
		 * async_answered and hands nothing over. */
		read_frames(ctx, true, ctx->arena_serial, &m);
		if (!m)
			continue;
		ctx->arena_serial = 0;
		wnnc_done(ctx, ctx->arena_seq);
		/* That request was fire-and-forget for the caller: its error belongs to the next
		 * flush. */
		record_event_error(ctx, m->reply->error);
		webnn__ipc__server_message__free_unpacked(m, NULL);
	}
	if (ctx->arena_serial) {
		ctx->arena_serial = 0;
		return wnnc_fail(ctx, WEBNN_STATUS_CONTEXT_LOST, "%s: context lost: %s", what,
				 ctx->lost_message);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status arena_grow(struct webnn_context *ctx, size_t need, const char *what)
{
	uint64_t max = ctx->limits.max_shm_bytes;
	if (need > max)
		return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY,
				 "%s: %zu bytes exceed webnnd's shared memory limit of %llu bytes",
				 what, need, (unsigned long long)max);
	size_t size = ARENA_MIN_BYTES;
	while (size < need)
		size *= 2;
	if (size > max)
		size = (size_t)max;

	/* Unregister the old slot first so both never count against the quota together. */
	if (ctx->arena_slot) {
		Webnn__Ipc__UnregisterShm un = WEBNN__IPC__UNREGISTER_SHM__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		un.slot_id = ctx->arena_slot;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_UNREGISTER_SHM;
		m.unregister_shm = &un;
		arena_drop(ctx);
		enum webnn_status s = wnnc_send(ctx, &m, NULL, 0);
		if (s != WEBNN_STATUS_OK)
			return s;
	}

	int fd = memfd_create("webnn-arena", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "%s: memfd_create: %s", what,
				 strerror(errno));
	void *p = MAP_FAILED;
	if (ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0 ||
	    (p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		int e = errno;
		close(fd);
		return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY,
				 "%s: cannot create a %zu-byte shared memory arena: %s", what, size,
				 strerror(e));
	}
	ctx->arena = p;
	ctx->arena_size = size;
	ctx->arena_fd = fd;
	ctx->arena_slot = wnnc_new_id(ctx);

	Webnn__Ipc__RegisterShm reg = WEBNN__IPC__REGISTER_SHM__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	reg.slot_id = ctx->arena_slot;
	reg.size = size;
	m.has_serial = true;
	m.serial = wnnc_new_serial(ctx);
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_REGISTER_SHM;
	m.register_shm = &reg;
	enum webnn_status s = wnnc_send(ctx, &m, &fd, 1);
	Webnn__Ipc__ServerMessage *r = NULL;
	if (s == WEBNN_STATUS_OK)
		s = wnnc_wait_reply(ctx, m.serial, what, &r);
	if (r)
		webnn__ipc__server_message__free_unpacked(r, NULL);
	/* The daemon holds its own copy of the fd now; the mapping is all we need. */
	close(ctx->arena_fd);
	ctx->arena_fd = -1;
	if (s != WEBNN_STATUS_OK) {
		if (s != WEBNN_STATUS_CONTEXT_LOST)
			wnnc_fail(ctx, s, "%s: registering shared memory failed: %s", what,
				  ctx->last_error);
		ctx->arena_slot = 0; /* never registered: nothing to unregister */
		arena_drop(ctx);
	}
	return s;
}

enum webnn_status wnnc_arena_reserve(struct webnn_context *ctx, size_t size, const char *what)
{
	enum webnn_status s = arena_wait_idle(ctx, what);
	if (s != WEBNN_STATUS_OK)
		return s;
	if (ctx->arena && ctx->arena_size >= size)
		return WEBNN_STATUS_OK;
	return arena_grow(ctx, size, what);
}

enum webnn_status wnnc_put_data(struct webnn_context *ctx, const void *bytes, size_t size,
				const char *what, Webnn__Ipc__Data *data,
				Webnn__Ipc__ShmRange *shm, uint64_t *serial)
{
	webnn__ipc__data__init(data);
	*serial = 0;
	if (size <= ctx->max_inline) {
		data->where_case = WEBNN__IPC__DATA__WHERE_INLINE;
		data->inline_.len = size;
		data->inline_.data = (uint8_t *)bytes;
		return WEBNN_STATUS_OK;
	}
	enum webnn_status s = wnnc_arena_reserve(ctx, size, what);
	if (s != WEBNN_STATUS_OK)
		return s;
	memcpy(ctx->arena, bytes, size);
	webnn__ipc__shm_range__init(shm);
	shm->slot_id = ctx->arena_slot;
	shm->offset = 0;
	shm->size = size;
	data->where_case = WEBNN__IPC__DATA__WHERE_SHM;
	data->shm = shm;
	*serial = wnnc_new_serial(ctx);
	return WEBNN_STATUS_OK;
}

void wnnc_arena_sent(struct webnn_context *ctx, uint64_t serial)
{
	if (serial && !ctx->lost) {
		ctx->arena_serial = serial;
		ctx->arena_seq = ctx->sent_seq;
	}
}

/* ---- connect + handshake */

void webnn_devices_free(struct webnn_device_info *devices, size_t n)
{
	if (!devices)
		return;
	for (size_t i = 0; i < n; i++) {
		free(devices[i].device_name);
		free(devices[i].device_type);
		free(devices[i].platform_name);
		free(devices[i].driver_version);
		free(devices[i].backend);
	}
	free(devices);
}

/* Copies the HelloReply's device list (empty from a 1.0 daemon); false when out of memory. */
static bool keep_devices(struct webnn_context *ctx, const Webnn__Ipc__HelloReply *hr)
{
	if (hr->n_devices == 0)
		return true;
	ctx->devices = calloc(hr->n_devices, sizeof(*ctx->devices));
	if (!ctx->devices)
		return false;
	ctx->n_devices = hr->n_devices;
	for (size_t i = 0; i < hr->n_devices; i++) {
		const Webnn__Ipc__Device *d = hr->devices[i];
		struct webnn_device_info *o = &ctx->devices[i];
		o->accelerated = d->accelerated;
		if (!(o->device_name = strdup(d->device_name)) ||
		    !(o->device_type = strdup(d->device_type)) ||
		    !(o->platform_name = strdup(d->platform_name)) ||
		    !(o->driver_version = strdup(d->driver_version)) ||
		    !(o->backend = strdup(d->backend)))
			return false;
	}
	return true;
}

enum webnn_status wnnc_open_socket(struct webnn_context *ctx, const char *path, char *msg,
				   size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(msg, len, "cannot connect to webnnd at %s: socket path too long", path);
		return WEBNN_STATUS_TYPE_ERROR;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(msg, len, "cannot create a socket: %s", strerror(errno));
		return WEBNN_STATUS_OPERATION_ERROR;
	}
	int r;
	do
		r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		int e = errno;
		close(fd);
		snprintf(msg, len, "cannot connect to webnnd at %s: %s (is webnnd running?)", path,
			 strerror(e));
		return WEBNN_STATUS_NOT_SUPPORTED;
	}
	ctx->sock = fd;
	wnn_reader_init(&ctx->reader, WNN_FRAME_MAX);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnnc_send_hello(struct webnn_context *ctx, const char *client_name,
				  uint64_t *serial)
{
	Webnn__Ipc__Hello hello = WEBNN__IPC__HELLO__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	hello.major = WNN_PROTOCOL_MAJOR;
	hello.minor = WNN_PROTOCOL_MINOR;
	hello.client_name = (char *)client_name;
	m.has_serial = true;
	m.serial = *serial = wnnc_new_serial(ctx);
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_HELLO;
	m.hello = &hello;
	return wnnc_send(ctx, &m, NULL, 0);
}

enum webnn_status wnnc_hello_reply(struct webnn_context *ctx, const Webnn__Ipc__Reply *reply)
{
	if (reply->error)
		return wnnc_fail(ctx, wnnc_status_from_error(reply->error), "%s",
				 reply->error->message ? reply->error->message : "handshake");
	if (reply->body_case != WEBNN__IPC__REPLY__BODY_HELLO || !reply->hello->limits) {
		wnnc_set_lost(ctx, "protocol error: webnnd answered Hello without HelloReply");
		return wnnc_fail(ctx, WEBNN_STATUS_PROTOCOL_ERROR, "%s", ctx->lost_message);
	}
	if (reply->hello->major != WNN_PROTOCOL_MAJOR)
		return wnnc_fail(ctx, WEBNN_STATUS_NOT_SUPPORTED,
				 "webnnd speaks protocol %u.%u, libwebnn needs major version %d",
				 reply->hello->major, reply->hello->minor, WNN_PROTOCOL_MAJOR);
	const Webnn__Ipc__Limits *l = reply->hello->limits;
	ctx->limits = *l;
	ctx->limits.base.unknown_fields = NULL;
	ctx->limits.base.n_unknown_fields = 0;
	ctx->max_inline = l->max_inline_bytes < WNN_INLINE_MAX ? l->max_inline_bytes
							       : WNN_INLINE_MAX;
	ctx->max_shm_slots = 0;
	for (size_t i = 0; i < l->n_budgets; i++)
		if (l->budgets[i]->key && strcmp(l->budgets[i]->key, "max_shm_slots") == 0)
			ctx->max_shm_slots = l->budgets[i]->value > UINT32_MAX
				? UINT32_MAX : (uint32_t)l->budgets[i]->value;
	if (!keep_devices(ctx, reply->hello))
		return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "handshake: out of memory");
	return WEBNN_STATUS_OK;
}

void wnnc_hello_answered(struct webnn_context *ctx, struct wnnc_async *a,
			 const Webnn__Ipc__Reply *reply)
{
	a->status = wnnc_hello_reply(ctx, reply);
	if (a->status != WEBNN_STATUS_OK) {
		/* The CreateContext behind it fails with this message (see run_async). */
		char msg[WNNC_MSG_MAX];
		snprintf(msg, sizeof(msg), "%s", ctx->last_error);
		wnnc_set_lost(ctx, "webnnd handshake failed: %s", msg);
		ctx->call_failed = false;
	}
}

enum webnn_status wnnc_connect(struct webnn_context *ctx, const char *path,
			       const char *client_name, char *msg, size_t len)
{
	enum webnn_status s = wnnc_open_socket(ctx, path, msg, len);
	if (s != WEBNN_STATUS_OK)
		return s;
	uint64_t serial = 0;
	Webnn__Ipc__ServerMessage *reply = NULL;
	s = wnnc_send_hello(ctx, client_name, &serial);
	if (s == WEBNN_STATUS_OK)
		s = wnnc_wait_reply(ctx, serial, "handshake", &reply);
	if (s == WEBNN_STATUS_OK)
		s = wnnc_hello_reply(ctx, reply->reply);
	if (reply)
		webnn__ipc__server_message__free_unpacked(reply, NULL);
	if (s != WEBNN_STATUS_OK) {
		snprintf(msg, len, "webnnd handshake at %s failed: %s", path,
			 s == WEBNN_STATUS_CONTEXT_LOST ? ctx->lost_message : ctx->last_error);
		if (s == WEBNN_STATUS_CONTEXT_LOST)
			s = WEBNN_STATUS_NOT_SUPPORTED;
		wnnc_disconnect(ctx);
	}
	return s;
}
