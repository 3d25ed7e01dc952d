/* Constant objects (CreateConstant): host bytes bound into graphs of their context. */
#ifndef DAEMON_CONSTANT_H
#define DAEMON_CONSTANT_H

#include <stdint.h>

#include "daemon/worker/obj.h"
#include "proto/wnn.h"

struct context;
struct request;

struct weights;

/* Lifetime of the bytes: CreateConstant reserves them on every budget and allocates `own`;
 * interning (at once for inline bytes, on the timeline for shared memory) either moves them
 * into a shared copy or finds one that holds the same bytes (own is freed). Graphs read `data`
 * only once the constant's fill ran before their compile on the same timeline. */
struct constant {
	struct obj obj;
	struct context *ctx;
	struct wnn_desc desc;
	uint64_t bytes;
	uint64_t charged;    /* bytes and the headers, against the connection's budget */
	uint64_t uid_bytes;  /* of `bytes`, what this constant still holds charged to the uid
				(until interned: then the shared copy holds the uid's charge) */
	struct weights *shared; /* the interned bytes (referenced), NULL until interned */
	uint64_t restored;   /* bytes of the shared copy its interning wrote back (weights.h),
				for constant_settle to charge to the uid again */
	void *own;           /* the buffer reserved for the bytes, until interned */
	const void *data;    /* the bytes: own, then the shared copy's */
};

extern const struct obj_kind constant_kind;

int handle_create_constant(struct session *s, struct request *rq);
int handle_destroy_constant(struct session *s, struct request *rq);

#endif
