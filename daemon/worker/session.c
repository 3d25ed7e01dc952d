/* One client connection: lifetime, socket hooks, backlog, ids and quotas. */
#include "daemon/worker/session.h"

#include "daemon/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* Queued-work high-water marks of one connection (reading resumes below them). */
#define SESSION_PENDING_CMDS 1024
#define SESSION_PENDING_BYTES (256u << 20)

#define CONN_SESSION(c) ((struct session *)((char *)(c)-offsetof(struct session, conn)))

static void session_conn_readable(struct conn *c)
{
	struct session *s = CONN_SESSION(c);
	session_ref(s);
	if (!s->closed)
		s->hooks->readable(s);
	session_unref(s);
}

static void session_conn_failed(struct conn *c, const char *why)
{
	session_close(CONN_SESSION(c), why);
}

static bool session_conn_paused(const struct conn *c)
{
	return session_backlogged(CONN_SESSION(c));
}

static void session_conn_closed(struct conn *c)
{
	session_unref(CONN_SESSION(c)); /* the poll handle's reference */
}

static void session_conn_sent(struct conn *c, size_t len)
{
	budget_release(CONN_SESSION(c), len);
}

static bool session_conn_buffered(const struct conn *c)
{
	return wnn_reader_ready(&CONN_SESSION(c)->reader);
}

static const struct conn_hooks session_conn_hooks = {
	.readable = session_conn_readable,
	.failed = session_conn_failed,
	.paused = session_conn_paused,
	.closed = session_conn_closed,
	.sent = session_conn_sent,
	.buffered = session_conn_buffered,
};

struct session *session_create(struct daemon *d, int fd, uint64_t no,
			       const struct session_hooks *hooks)
{
	struct session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->d = d;
	s->hooks = hooks;
	s->no = no;
	s->refs = 1; /* the connection */
	conn_init(&s->conn, fd, &session_conn_hooks);
	s->pid = -1;
	s->uid = (uid_t)-1;
	snprintf(s->name, sizeof(s->name), "client");
	wnn_reader_init(&s->reader, d->limits.max_frame_bytes);
	idmap_init(&s->ids);
	s->unpack_limit = d->limits.unpack_budget;
	budget_session_created(s);
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0) {
		s->pid = cred.pid;
		s->uid = cred.uid;
	}
	log_debug("session %" PRIu64 ": connected (pid %d, uid %d)", s->no, (int)s->pid,
		  (int)s->uid);
	return s;
}

int session_watch(struct session *s)
{
	int r = conn_watch(&s->conn, s->d->loop, &s->d->batch);
	if (r == 0)
		session_ref(s); /* held by the poll handle until its close callback */
	return r;
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
	budget_release(s, s->frame_charged);
	s->frame_charged = 0;
	conn_finish(&s->conn);
	if (s->mem_bytes)
		log_error("session %" PRIu64 ": %" PRIu64 " bytes still charged when freed "
			  "(accounting bug)", s->no, s->mem_bytes);
	budget_release(s, s->mem_bytes);
	budget_session_freed(s);
	log_debug("session %" PRIu64 ": freed", s->no);
	free(s);
}

void session_close(struct session *s, const char *why)
{
	if (s->closed)
		return;
	s->closed = true;
	log_debug("session %" PRIu64 " (%s, pid %d): closed%s%s", s->no, s->name, (int)s->pid,
		  why ? ": " : "", why ? why : "");
	session_ref(s);
	if (s->hooks->ended)
		s->hooks->ended(s, s->hooks->ud);
	conn_close(&s->conn);
	/* Nothing more is read: the frame being received (and its charge) goes now. */
	wnn_reader_finish(&s->reader);
	budget_release(s, s->frame_charged);
	s->frame_charged = 0;
	/* Abandoned first (contexts drop their queued work rather than run it), then released. */
	for (uint32_t i = 0; i < s->ids.cap; i++) {
		struct obj *o = s->ids.slots[i];
		if (o && o->kind->abandon)
			o->kind->abandon(o);
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

void session_queue(struct session *s, uint8_t *buf, size_t len)
{
	if (s->closed) {
		free(buf);
		return;
	}
	budget_force(s, len); /* released by session_conn_sent, or just below */
	int r = conn_queue(&s->conn, buf, len);
	if (r == -ENOMEM) {
		budget_release(s, len);
		session_close(s, "out of memory queueing a reply");
	} else if (r < 0) {
		char why[96];
		snprintf(why, sizeof(why), "write error: %s", strerror(-r));
		session_close(s, why);
	}
}

bool session_backlogged(const struct session *s)
{
	/* Replies are owed, so they are charged even past a budget (budget_force); not reading a
	 * connection that lets them pile up bounds what it makes the daemon hold to the replies of
	 * work already accepted. Closing it instead would punish a slow reader for the memory
	 * other connections of its uid (or other users) hold. */
	return s->n_pending >= SESSION_PENDING_CMDS || s->pending_bytes >= SESSION_PENDING_BYTES ||
	       s->n_full_contexts > 0 || (s->conn.out_bytes > 0 && budget_over(s)) ||
	       conn_out_full(&s->conn);
}

void session_context_full(struct session *s, bool full)
{
	if (full)
		s->n_full_contexts++;
	else
		s->n_full_contexts--;
}

void session_pending_add(struct session *s, uint64_t bytes)
{
	s->n_pending++;
	s->pending_bytes += bytes;
}

void session_pending_done(struct session *s, uint64_t bytes)
{
	s->n_pending--;
	s->pending_bytes -= bytes;
	if (!s->closed)
		conn_update(&s->conn);
}

void session_obj_init(struct session *s, struct obj *o, const struct obj_kind *kind, uint32_t id)
{
	obj_init(o, kind, s, id);
	session_ref(s);
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

bool session_charge(struct session *s, uint64_t bytes, const char *what, struct wnn_diag *diag)
{
	return budget_charge(s, bytes, what, diag);
}

void session_uncharge(struct session *s, uint64_t bytes)
{
	budget_release(s, bytes);
}
