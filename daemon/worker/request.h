/* One decoded request and what every handler uses on it: id lookups and protocol violations. */
#ifndef DAEMON_REQUEST_H
#define DAEMON_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/webnn.pb-c.h"
#include "proto/wire.h"
#include "proto/wnn.h"

struct obj;
struct obj_kind;
struct session;

struct request {
	Webnn__Ipc__ClientMessage *msg;
	uint64_t serial;
	int *fds;      /* the frame's fds; a handler that keeps one sets it to -1 */
	int n_fds;
	bool retained; /* the handler kept msg (freed later with request_msg_free) */
};
typedef int (*handler_fn)(struct session *s, struct request *rq);

/* Decodes a ClientMessage within the session's unpack budget (a hostile frame of tiny repeated
 * sub-messages can make protobuf-c allocate ~32x its size). NULL when undecodable. */
Webnn__Ipc__ClientMessage *request_unpack(struct session *s, const uint8_t *payload, size_t len);
void request_msg_free(Webnn__Ipc__ClientMessage *m);

/* Protocol violation: Goodbye{reason} then close. Always returns -1 for handler convenience. */
int request_violation(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Looks an id up with its kind; a missing, zero or wrong-kind id is a protocol violation
 * (then NULL is returned and the session is closed). */
struct obj *request_lookup(struct session *s, uint32_t id, const struct obj_kind *kind,
			   const char *what);
/* Checks a new id (non-zero and unused); a violation otherwise. Returns 0 or -1. */
int request_check_new_id(struct session *s, uint32_t id, const char *what);

#endif
