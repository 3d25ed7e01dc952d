/* MLContext objects: a backend context and its timeline; CreateContext/DestroyContext/Flush. */
#ifndef DAEMON_CONTEXT_H
#define DAEMON_CONTEXT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "daemon/backend/backend.h"
#include "daemon/worker/obj.h"

struct cmd;
struct daemon;
struct daemon_backend;
struct request;

struct context {
	struct obj obj;
	const struct daemon_backend *backend; /* the started backend it runs on */
	struct backend_context *bctx;
	struct backend_device_info info;
	bool lost;      /* ContextLost sent; later work fails with CONTEXT_LOST */
	bool closing;   /* destroyed or its connection closed: queued work is dropped */
	char lost_msg[WNN_MAX_DIAG];
	struct cmd *head, *tail; /* the timeline: in order, one at a time */
	bool running, kicking;
	uint32_t n_queued;       /* commands pushed and not yet done (max_inflight_per_context) */
	/* Set (for good) when the context is lost or closing: the backend stops its work at the
	 * next step boundary (backend_context_options.cancel). */
	atomic_bool cancel;
};

extern const struct obj_kind context_kind;

/* opSupportLimits of every started backend, built once at start and freed at exit. */
void context_limits_init(struct daemon *d);
void context_limits_finish(struct daemon *d);

int handle_create_context(struct session *s, struct request *rq);
int handle_destroy_context(struct session *s, struct request *rq);
int handle_flush(struct session *s, struct request *rq);

#endif
