/* Everything the daemon sends: replies, error events, context loss, Goodbye; packed here only. */
#ifndef DAEMON_REPLY_H
#define DAEMON_REPLY_H

#include <stddef.h>
#include <stdint.h>

#include "proto/webnn.pb-c.h"
#include "proto/wire.h"
#include "proto/wnn.h"

struct session;

/* Packs a Reply into a frame (NULL when out of memory or too large), for a reply that has to
 * wait its turn behind queued work; reply_frame sends it later. */
uint8_t *reply_pack(const Webnn__Ipc__Reply *reply, size_t *len);
void reply_frame(struct session *s, uint8_t *frame, size_t len);

void reply_send(struct session *s, Webnn__Ipc__Reply *reply);
/* A reply carrying only the serial (success without a body). */
void reply_ok(struct session *s, uint64_t serial);
void reply_error(struct session *s, uint64_t serial, const struct wnn_diag *diag);
void reply_error_event(struct session *s, uint32_t context_id, uint32_t object_id,
		       const struct wnn_diag *diag);
void reply_context_lost(struct session *s, uint32_t context_id, const char *message);
void reply_goodbye(struct session *s, const char *reason);
/* Error{status, message} of a Reply or ErrorEvent, pointing into diag. */
void reply_error_body(Webnn__Ipc__Error *err, const struct wnn_diag *diag);
/* A failed request's Reply{serial, error} (err is its storage), logged; sent by the caller
 * now (reply_error) or in timeline order (timeline_reply_error). */
void reply_error_fill(Webnn__Ipc__Reply *r, Webnn__Ipc__Error *err, struct session *s,
		      uint64_t serial, const struct wnn_diag *diag);

#endif
