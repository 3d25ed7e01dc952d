/* One client connection: frame decoding with a memory budget, the handler table, ids, quotas. */
#include "daemon/daemon.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- budgeted protobuf-c allocator: a hostile frame of tiny repeated sub-messages can make
 * protobuf-c allocate ~32x its size, so every unpack gets a fixed heap budget. */
static void *pb_alloc(void *data, size_t size)
{
	struct session *s = data;
	if (s && size > s->unpack_limit - s->unpack_used)
		return NULL;
	if (s)
		s->unpack_used += size;
	return malloc(size);
}

static void pb_free(void *data, void *ptr)
{
	(void)data;
	free(ptr);
}

static ProtobufCAllocator pb_free_allocator = { pb_alloc, pb_free, NULL };

void session_pb_free(Webnn__Ipc__ClientMessage *m)
{
	if (m)
		webnn__ipc__client_message__free_unpacked(m, &pb_free_allocator);
}

/* ---- the handler table, indexed by the ClientMessage oneof case */
enum {
	H_SERIAL = 1 << 0, /* a serial is required */
	H_FDS = 1 << 1,    /* the frame may carry fds */
};
struct handler {
	const char *name;
	handler_fn fn;
	unsigned flags;
};
#define BODY(x) WEBNN__IPC__CLIENT_MESSAGE__BODY_##x
static const struct handler handlers[] = {
	[BODY(HELLO)] = { "Hello", handle_hello, H_SERIAL },
	[BODY(REGISTER_SHM)] = { "RegisterShm", handle_register_shm, H_SERIAL | H_FDS },
	[BODY(UNREGISTER_SHM)] = { "UnregisterShm", handle_unregister_shm, 0 },
	[BODY(CREATE_CONTEXT)] = { "CreateContext", handle_create_context, H_SERIAL },
	[BODY(DESTROY_CONTEXT)] = { "DestroyContext", handle_destroy_context, 0 },
	[BODY(CREATE_TENSOR)] = { "CreateTensor", handle_create_tensor, H_SERIAL },
	[BODY(WRITE_TENSOR)] = { "WriteTensor", handle_write_tensor, 0 },
	[BODY(READ_TENSOR)] = { "ReadTensor", handle_read_tensor, H_SERIAL },
	[BODY(DESTROY_TENSOR)] = { "DestroyTensor", handle_destroy_tensor, 0 },
	[BODY(CREATE_CONSTANT)] = { "CreateConstant", handle_create_constant, 0 },
	[BODY(DESTROY_CONSTANT)] = { "DestroyConstant", handle_destroy_constant, 0 },
	[BODY(BUILD_GRAPH)] = { "BuildGraph", handle_build_graph, H_SERIAL },
	[BODY(DESTROY_GRAPH)] = { "DestroyGraph", handle_destroy_graph, 0 },
	[BODY(DISPATCH)] = { "Dispatch", handle_dispatch, 0 },
	[BODY(FLUSH)] = { "Flush", handle_flush, H_SERIAL },
	[BODY(GOODBYE)] = { "Goodbye", NULL, 0 }, /* handled in session_handle_frame */
};
#define N_HANDLERS (sizeof(handlers) / sizeof(handlers[0]))

struct session *session_create(struct daemon *d, int fd)
{
	struct session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->d = d;
	s->no = ++d->next_session_no;
	s->refs = 1; /* the connection */
	s->fd = fd;
	s->pid = -1;
	s->uid = (uid_t)-1;
	snprintf(s->name, sizeof(s->name), "client");
	wnn_reader_init(&s->reader, d->limits.max_frame_bytes);
	idmap_init(&s->ids);
	s->unpack_limit = d->limits.unpack_budget;
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0) {
		s->pid = cred.pid;
		s->uid = cred.uid;
	}
	s->next = d->sessions;
	if (d->sessions)
		d->sessions->prev = s;
	d->sessions = s;
	d->n_sessions++;
	log_debug("session %" PRIu64 ": connected (pid %d, uid %d)", s->no, (int)s->pid,
		  (int)s->uid);
	return s;
}

void session_ref(struct session *s)
{
	s->refs++;
}

void session_unref(struct session *s)
{
	if (!s || --s->refs > 0)
		return;
	/* Every object and command is gone: only the bookkeeping is left. */
	idmap_finish(&s->ids);
	wnn_reader_finish(&s->reader);
	while (s->out_head) {
		struct outbuf *b = s->out_head;
		s->out_head = b->next;
		free(b->buf);
		free(b);
	}
	log_debug("session %" PRIu64 ": freed", s->no);
	free(s);
}

void session_close(struct session *s, const char *why)
{
	if (s->closed)
		return;
	s->closed = true;
	struct daemon *d = s->d;
	if (s->prev)
		s->prev->next = s->next;
	else if (d->sessions == s)
		d->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->prev = s->next = NULL;
	d->n_sessions--;
	log_debug("session %" PRIu64 " (%s, pid %d): closed%s%s", s->no, s->name, (int)s->pid,
		  why ? ": " : "", why ? why : "");
	session_ref(s);
	server_close_conn(s);
	/* Contexts first, so that work queued on them is dropped rather than run. */
	for (uint32_t i = 0; i < s->ids.cap; i++) {
		struct obj *o = s->ids.slots[i];
		if (o && o->kind == OBJ_CONTEXT)
			((struct context *)o)->closing = true;
	}
	struct obj *chain = idmap_take(&s->ids, NULL, NULL);
	while (chain) {
		struct obj *o = chain;
		chain = o->dead_next;
		obj_unref(o);
	}
	session_unref(s); /* the reference held by the connection */
	session_unref(s);
}

int session_violation(struct session *s, const char *fmt, ...)
{
	if (s->closed)
		return -1;
	char reason[WNN_MAX_DIAG];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	Webnn__Ipc__Goodbye bye = WEBNN__IPC__GOODBYE__INIT;
	bye.reason = reason;
	Webnn__Ipc__ServerMessage m = WEBNN__IPC__SERVER_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE;
	m.goodbye = &bye;
	session_send(s, &m);
	log_warn("session %" PRIu64 " (%s, pid %d): protocol violation: %s", s->no, s->name,
		 (int)s->pid, reason);
	session_close(s, "protocol violation");
	return -1;
}

void session_send(struct session *s, const Webnn__Ipc__ServerMessage *m)
{
	if (s->closed)
		return;
	size_t len;
	uint8_t *buf = wnn_frame_pack(m, &len);
	if (!buf) {
		log_error("session %" PRIu64 ": cannot pack a reply (out of memory or too large)",
			  s->no);
		session_close(s, "reply could not be packed");
		return;
	}
	server_queue(s, buf, len);
}

void session_send_reply(struct session *s, Webnn__Ipc__Reply *reply)
{
	Webnn__Ipc__ServerMessage m = WEBNN__IPC__SERVER_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY;
	m.reply = reply;
	session_send(s, &m);
}

void session_send_error_reply(struct session *s, uint64_t serial, const struct wnn_diag *diag)
{
	log_debug("session %" PRIu64 ": reply %" PRIu64 " failed: %s", s->no, serial,
		  diag->message);
	Webnn__Ipc__Error err = WEBNN__IPC__ERROR__INIT;
	err.status = (Webnn__Ipc__Status)diag->status;
	err.message = (char *)diag->message;
	Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
	r.serial = serial;
	r.error = &err;
	session_send_reply(s, &r);
}

void session_send_error_event(struct session *s, uint32_t context_id, uint32_t object_id,
			      const struct wnn_diag *diag)
{
	log_debug("session %" PRIu64 ": error event (context %" PRIu32 ", object %" PRIu32 "): %s",
		  s->no, context_id, object_id, diag->message);
	Webnn__Ipc__Error err = WEBNN__IPC__ERROR__INIT;
	err.status = (Webnn__Ipc__Status)diag->status;
	err.message = (char *)diag->message;
	Webnn__Ipc__ErrorEvent ev = WEBNN__IPC__ERROR_EVENT__INIT;
	ev.context_id = context_id;
	ev.object_id = object_id;
	ev.error = &err;
	Webnn__Ipc__ServerMessage m = WEBNN__IPC__SERVER_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_ERROR;
	m.error = &ev;
	session_send(s, &m);
}

struct obj *session_lookup(struct session *s, uint32_t id, enum obj_kind kind, const char *what)
{
	if (id == 0) {
		session_violation(s, "%s: id 0 is not a valid %s id", what, obj_kind_name(kind));
		return NULL;
	}
	struct obj *o = idmap_get(&s->ids, id);
	if (!o) {
		session_violation(s, "%s: unknown %s id %" PRIu32, what, obj_kind_name(kind), id);
		return NULL;
	}
	if (o->kind != kind) {
		session_violation(s, "%s: id %" PRIu32 " is a %s, expected a %s", what, id,
				  obj_kind_name(o->kind), obj_kind_name(kind));
		return NULL;
	}
	return o;
}

int session_check_new_id(struct session *s, uint32_t id, const char *what)
{
	if (id == 0)
		return session_violation(s, "%s: id 0 is not a valid object id", what);
	struct obj *o = idmap_get(&s->ids, id);
	if (o)
		return session_violation(s, "%s: id %" PRIu32 " is already used by a live %s", what,
					 id, obj_kind_name(o->kind));
	return 0;
}

int session_register(struct session *s, struct obj *o)
{
	if (idmap_insert(&s->ids, o) != 0) {
		obj_unref(o);
		session_close(s, "out of memory registering an object");
		return -1;
	}
	return 0;
}

void session_forget(struct session *s, struct obj *o)
{
	if (idmap_get(&s->ids, o->id) != o)
		return;
	idmap_remove(&s->ids, o->id);
	obj_unref(o);
}

bool session_charge(struct session *s, uint64_t bytes)
{
	if (bytes > s->d->limits.max_session_bytes - s->mem_bytes)
		return false;
	s->mem_bytes += bytes;
	return true;
}

void session_uncharge(struct session *s, uint64_t bytes)
{
	s->mem_bytes = bytes > s->mem_bytes ? 0 : s->mem_bytes - bytes;
}

int handle_hello(struct session *s, struct request *rq)
{
	const Webnn__Ipc__Hello *m = rq->msg->hello;
	const struct daemon_limits *lim = &s->d->limits;
	if (m->client_name && *m->client_name)
		snprintf(s->name, sizeof(s->name), "%s", m->client_name);
	if (m->major != WNN_PROTOCOL_MAJOR)
		return session_violation(s, "protocol version %u.%u is not supported (this daemon "
					    "speaks %d.%d)", m->major, m->minor,
					 WNN_PROTOCOL_MAJOR, WNN_PROTOCOL_MINOR);
	s->hello_done = true;
	Webnn__Ipc__Limits l = WEBNN__IPC__LIMITS__INIT;
	l.max_frame_bytes = lim->max_frame_bytes;
	l.max_inline_bytes = lim->max_inline_bytes;
	l.max_fds_per_frame = lim->max_fds_per_frame;
	l.max_objects = lim->max_objects;
	l.max_shm_bytes = lim->max_shm_bytes;
	l.max_tensor_bytes = lim->max_tensor_bytes;
	l.max_rank = lim->max_rank;
	l.max_operations = lim->max_operations;
	Webnn__Ipc__HelloReply hr = WEBNN__IPC__HELLO_REPLY__INIT;
	hr.major = WNN_PROTOCOL_MAJOR;
	hr.minor = WNN_PROTOCOL_MINOR;
	hr.limits = &l;
	hr.server_name = "webnnd " WEBNND_VERSION;
	Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
	r.serial = rq->serial;
	r.body_case = WEBNN__IPC__REPLY__BODY_HELLO;
	r.hello = &hr;
	session_send_reply(s, &r);
	log_debug("session %" PRIu64 ": %s (pid %d, uid %d) connected, protocol %u.%u", s->no,
		 s->name, (int)s->pid, (int)s->uid, m->major, m->minor);
	return 0;
}

/* Decodes and dispatches one frame; returns -1 when the session closed. */
static int session_handle_frame(struct session *s, const uint8_t *payload, size_t len, int *fds,
				int n_fds)
{
	struct request rq = { .fds = fds, .n_fds = n_fds };
	int ret = 0;
	s->unpack_used = 0;
	rq.msg = webnn__ipc__client_message__unpack(&(ProtobufCAllocator){ pb_alloc, pb_free, s },
						    len, payload);
	if (!rq.msg) {
		ret = session_violation(s, "undecodable message (%zu bytes: malformed protobuf, "
					   "missing required field or over the %zu-byte decode budget)",
					len, s->unpack_limit);
		goto out;
	}
	rq.serial = rq.msg->has_serial ? rq.msg->serial : 0;
	unsigned c = (unsigned)rq.msg->body_case;
	const struct handler *h = c < N_HANDLERS ? &handlers[c] : NULL;
	if (!h || !h->name) {
		ret = session_violation(s, "unknown request (message case %u)", c);
		goto out;
	}
	if (!s->hello_done && c != BODY(HELLO)) {
		ret = session_violation(s, "the first message must be Hello, got %s", h->name);
		goto out;
	}
	if (s->hello_done && c == BODY(HELLO)) {
		ret = session_violation(s, "Hello sent twice");
		goto out;
	}
	if ((h->flags & H_SERIAL) && rq.serial == 0) {
		ret = session_violation(s, "%s: a non-zero serial is required", h->name);
		goto out;
	}
	if (n_fds && !(h->flags & H_FDS)) {
		ret = session_violation(s, "%s: unexpected fds (%d) with this request", h->name,
					n_fds);
		goto out;
	}
	if (c == BODY(GOODBYE)) {
		session_close(s, NULL);
		ret = -1;
		goto out;
	}
	log_debug("session %" PRIu64 ": %s serial %" PRIu64, s->no, h->name, rq.serial);
	ret = h->fn(s, &rq) < 0 || s->closed ? -1 : 0;
out:
	for (int i = 0; i < n_fds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (!rq.retained)
		session_pb_free(rq.msg);
	return ret;
}

/* Queued-work high-water marks of one connection (server_resume() reads on below them). */
#define SESSION_PENDING_CMDS 1024
#define SESSION_PENDING_BYTES (256u << 20)

bool session_backlogged(const struct session *s)
{
	return s->n_pending >= SESSION_PENDING_CMDS || s->pending_bytes >= SESSION_PENDING_BYTES;
}

void session_on_readable(struct session *s)
{
	session_ref(s);
	/* A bounded number of reads per wake-up keeps one busy client from starving others. */
	for (int round = 0; round < 64 && !s->closed && !session_backlogged(s); round++) {
		int r = wnn_reader_fill(&s->reader, s->fd);
		if (r == -EAGAIN)
			break;
		if (r == -EPROTO) {
			session_violation(s, "bad frame header (size over %u bytes, more than %d fds, "
					     "or flags set)",
					  s->d->limits.max_frame_bytes, WNN_FRAME_MAX_FDS);
			break;
		}
		if (r < 0) {
			char why[96];
			snprintf(why, sizeof(why), "read error: %s", strerror(-r));
			session_close(s, why);
			break;
		}
		for (;;) {
			const uint8_t *payload;
			size_t len;
			int fds[WNN_FRAME_MAX_FDS], n_fds = 0;
			int nr = wnn_reader_next(&s->reader, &payload, &len, fds, &n_fds);
			if (nr < 0) {
				session_violation(s, "a frame's fds did not arrive with it");
				break;
			}
			if (nr == 0)
				break;
			int hr = session_handle_frame(s, payload, len, fds, n_fds);
			if (hr < 0 || s->closed)
				break;
			wnn_reader_consume(&s->reader);
		}
		if (r == 0 && !s->closed) {
			session_close(s, NULL); /* EOF */
			break;
		}
	}
	session_unref(s);
}
