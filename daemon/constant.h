/* Constant objects (CreateConstant): host bytes bound into graphs of their context. */
#ifndef DAEMON_CONSTANT_H
#define DAEMON_CONSTANT_H

#include <stdint.h>

#include "daemon/obj.h"
#include "proto/wnn.h"

struct context;
struct request;

struct constant {
	struct obj obj;
	struct context *ctx;
	struct wnn_desc desc;
	uint64_t bytes;
	uint64_t charged;  /* bytes and the headers, against the memory budgets */
	void *data;
};

extern const struct obj_kind constant_kind;

int handle_create_constant(struct session *s, struct request *rq);
int handle_destroy_constant(struct session *s, struct request *rq);

#endif
