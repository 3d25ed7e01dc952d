/* Packs every ServerMessage the daemon sends and queues it on the session's connection. */
#include "daemon/worker/reply.h"

#include "daemon/log.h"
#include "daemon/worker/session.h"

#include <inttypes.h>
#include <stdlib.h>

static void reply_message(struct session *s, const Webnn__Ipc__ServerMessage *m)
{
	if (s->closed)
		return;
	size_t len;
	uint8_t *buf = wnn_frame_pack(m, &len);
	if (!buf) {
		log_client_error(s->uid, "session %" PRIu64 ": cannot pack a reply (out of memory or "
				 "too large)", s->no);
		session_close(s, "reply could not be packed");
		return;
	}
	session_queue(s, buf, len);
}

uint8_t *reply_pack(const Webnn__Ipc__Reply *reply, size_t *len)
{
	Webnn__Ipc__ServerMessage m = WEBNN__IPC__SERVER_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY;
	m.reply = (Webnn__Ipc__Reply *)reply;
	return wnn_frame_pack(&m, len);
}

void reply_frame(struct session *s, uint8_t *frame, size_t len)
{
	session_queue(s, frame, len);
}

void reply_send(struct session *s, Webnn__Ipc__Reply *reply)
{
	Webnn__Ipc__ServerMessage m = WEBNN__IPC__SERVER_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY;
	m.reply = reply;
	reply_message(s, &m);
}

void reply_ok(struct session *s, uint64_t serial)
{
	Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
	r.serial = serial;
	reply_send(s, &r);
}

void reply_error_body(Webnn__Ipc__Error *err, const struct wnn_diag *diag)
{
	webnn__ipc__error__init(err);
	err->status = (Webnn__Ipc__Status)diag->status;
	err->message = (char *)diag->message;
}

void reply_error_fill(Webnn__Ipc__Reply *r, Webnn__Ipc__Error *err, struct session *s,
		      uint64_t serial, const struct wnn_diag *diag)
{
	log_debug("session %" PRIu64 ": reply %" PRIu64 " failed: %s", s->no, serial,
		  diag->message);
	reply_error_body(err, diag);
	webnn__ipc__reply__init(r);
	r->serial = serial;
	r->error = err;
}

void reply_error(struct session *s, uint64_t serial, const struct wnn_diag *diag)
{
	Webnn__Ipc__Error err;
	Webnn__Ipc__Reply r;
	reply_error_fill(&r, &err, s, serial, diag);
	reply_send(s, &r);
}

void reply_error_event(struct session *s, uint32_t context_id, uint32_t object_id,
		       const struct wnn_diag *diag)
{
	log_debug("session %" PRIu64 ": error event (context %" PRIu32 ", object %" PRIu32 "): %s",
		  s->no, context_id, object_id, diag->message);
	Webnn__Ipc__Error err;
	reply_error_body(&err, diag);
	Webnn__Ipc__ErrorEvent ev = WEBNN__IPC__ERROR_EVENT__INIT;
	ev.context_id = context_id;
	ev.object_id = object_id;
	ev.error = &err;
	Webnn__Ipc__ServerMessage m = WEBNN__IPC__SERVER_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_ERROR;
	m.error = &ev;
	reply_message(s, &m);
}

void reply_context_lost(struct session *s, uint32_t context_id, const char *message)
{
	Webnn__Ipc__ContextLost cl = WEBNN__IPC__CONTEXT_LOST__INIT;
	cl.context_id = context_id;
	cl.message = (char *)message;
	Webnn__Ipc__ServerMessage m = WEBNN__IPC__SERVER_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_CONTEXT_LOST;
	m.context_lost = &cl;
	reply_message(s, &m);
}

void reply_goodbye(struct session *s, const char *reason)
{
	Webnn__Ipc__Goodbye bye = WEBNN__IPC__GOODBYE__INIT;
	bye.reason = (char *)reason;
	Webnn__Ipc__ServerMessage m = WEBNN__IPC__SERVER_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE;
	m.goodbye = &bye;
	reply_message(s, &m);
}
