/* Contexts: CreateContext/DestroyContext, routing to a backend, opSupportLimits per backend, context loss. */
#include "daemon/worker/context.h"

#include "daemon/worker/daemon.h"
#include "daemon/log.h"
#include "daemon/worker/reply.h"
#include "daemon/worker/request.h"
#include "daemon/worker/session.h"
#include "daemon/worker/timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct limits_build {
	struct daemon_op_limits *ol;
	enum wnn_op op;
	uint32_t spec_first;  /* spec mask of the first role */
	uint32_t supported;   /* first-input types the backend runs */
	bool first;
	size_t cap;
	bool oom;
};

/* Intersects one spec role limit with what the backend supports. Roles sharing the first
 * role's type set follow its data type, so they are narrowed the same way; others (indices,
 * uint8 outputs of comparisons) keep the spec's set. */
static void limits_role(void *ud, const char *role, uint32_t dtypes, uint32_t min_rank,
			uint32_t max_rank)
{
	struct limits_build *b = ud;
	struct daemon_op_limits *ol = b->ol;
	if (b->first) {
		b->spec_first = dtypes;
		b->first = false;
	}
	if (dtypes == b->spec_first)
		dtypes &= b->supported;
	if (!dtypes)
		return;
	if (ol->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		Webnn__Ipc__TensorLimit *items = realloc(ol->items, cap * sizeof(*items));
		if (items)
			ol->items = items;
		char(*roles)[32] = realloc(ol->roles, cap * sizeof(*roles));
		if (roles)
			ol->roles = roles;
		if (!items || !roles) {
			b->oom = true;
			return;
		}
		b->cap = cap;
	}
	Webnn__Ipc__TensorLimit *t = &ol->items[ol->n];
	webnn__ipc__tensor_limit__init(t);
	snprintf(ol->roles[ol->n], sizeof(ol->roles[0]), "%s", role);
	t->op = wnn_ops[b->op].id;
	t->data_types = dtypes;
	t->min_rank = min_rank;
	t->max_rank = max_rank > WNN_MAX_RANK ? WNN_MAX_RANK : max_rank;
	if (strncmp(role, "output", 6) == 0)
		ol->output_types |= dtypes;
	else
		ol->input_types |= dtypes;
	ol->n++;
}

static void backend_limits_init(struct daemon_backend *db)
{
	struct daemon_op_limits *ol = &db->op_limits;
	memset(ol, 0, sizeof(*ol));
	struct limits_build b = { .ol = ol };
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		uint32_t supported = 0;
		for (int t = 1; t < WNN_DT_COUNT; t++)
			if ((wnn_ops[op].dtypes & WNN_DT_BIT(t)) &&
			    db->impl->supports(db->be, (enum wnn_op)op, (enum wnn_dtype)t))
				supported |= WNN_DT_BIT(t);
		if (!supported)
			continue; /* not supported at all: omitted, as PROTOCOL.md says */
		b.op = (enum wnn_op)op;
		b.supported = supported;
		b.first = true;
		wnn_op_roles((enum wnn_op)op, limits_role, &b);
	}
	if (b.oom)
		log_error("out of memory building opSupportLimits; the list is incomplete");
	ol->ptrs = ol->n ? malloc(ol->n * sizeof(*ol->ptrs)) : NULL;
	if (!ol->ptrs)
		ol->n = 0;
	for (size_t i = 0; i < ol->n; i++) {
		ol->items[i].role = ol->roles[i];
		ol->ptrs[i] = &ol->items[i];
	}
	ol->constant_types = ol->input_types;
	log_debug("opSupportLimits of the %s backend: %zu (operator, role) entries", db->impl->name,
		  ol->n);
}

void context_limits_init(struct daemon *d)
{
	for (uint32_t i = 0; i < d->n_backends; i++)
		backend_limits_init(&d->backends[i]);
}

void context_limits_finish(struct daemon *d)
{
	for (uint32_t i = 0; i < d->n_backends; i++) {
		struct daemon_op_limits *ol = &d->backends[i].op_limits;
		free(ol->items);
		free(ol->roles);
		free(ol->ptrs);
		memset(ol, 0, sizeof(*ol));
	}
}

/*
 * Which backend a new context runs on. A context that asks for acceleration with no
 * low-power preference goes to a backend serving a GPU or accelerator when there is one (the
 * OpenCL backend); everything else (low-power, accelerated: false, hosts whose only devices
 * are CPUs) goes to the first backend serving a CPU: the cpu backend, built for CPUs, unless
 * --backend forced another one alone.
 */
static const struct daemon_backend *daemon_route(const struct daemon *d,
						 const struct backend_context_options *opts)
{
	if (opts->accelerated && opts->power_preference != WEBNN_POWER_LOW_POWER)
		for (uint32_t i = 0; i < d->n_backends; i++)
			if (d->backends[i].accelerated)
				return &d->backends[i];
	for (uint32_t i = 0; i < d->n_backends; i++)
		if (!d->backends[i].accelerated)
			return &d->backends[i];
	return d->n_backends ? &d->backends[0] : NULL;
}

/* The CreateContext reply: the device and opSupportLimits. */
static void context_reply_info(struct session *s, struct context *c, uint64_t serial)
{
	const struct daemon *d = s->d;
	const struct daemon_op_limits *ol = &c->backend->op_limits;
	Webnn__Ipc__SupportLimits sl = WEBNN__IPC__SUPPORT_LIMITS__INIT;
	sl.preferred_input_layout = c->info.preferred_layout == WEBNN_LAYOUT_NHWC
					    ? WEBNN__IPC__INPUT_LAYOUT__NHWC
					    : WEBNN__IPC__INPUT_LAYOUT__NCHW;
	sl.max_tensor_byte_length = d->limits.max_tensor_bytes;
	sl.input_data_types = ol->input_types;
	sl.constant_data_types = ol->constant_types;
	sl.output_data_types = ol->output_types;
	sl.min_rank = 0;
	sl.max_rank = d->limits.max_rank;
	sl.n_ops = ol->n;
	sl.ops = ol->ptrs;
	Webnn__Ipc__ContextInfo ci = WEBNN__IPC__CONTEXT_INFO__INIT;
	ci.accelerated = c->info.accelerated;
	ci.device_name = c->info.device_name;
	ci.device_type = c->info.device_type;
	ci.platform_name = c->info.platform_name;
	ci.driver_version = c->info.driver_version;
	ci.backend = (char *)c->backend->impl->name;
	ci.limits = &sl;
	if (c->backend->impl->tensor_create_shared) {
		ci.has_storage_align = true;
		ci.storage_align = c->info.storage_align < 64 ? 64 : c->info.storage_align;
	}
	Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
	r.serial = serial;
	r.body_case = WEBNN__IPC__REPLY__BODY_CONTEXT;
	r.context = &ci;
	reply_send(s, &r);
}

int handle_create_context(struct session *s, struct request *rq)
{
	const Webnn__Ipc__CreateContext *m = rq->msg->create_context;
	struct daemon *d = s->d;
	struct wnn_diag diag = { 0 };
	if (request_check_new_id(s, m->context_id, "CreateContext") < 0)
		return -1;
	if (s->ids.count >= d->limits.max_objects) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "createContext: the connection already has %u objects (max_objects)",
			     s->ids.count);
		reply_error(s, rq->serial, &diag);
		return 0;
	}
	if (s->n_contexts >= d->limits.max_contexts) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "createContext: the connection already has %u contexts (max_contexts)",
			     s->n_contexts);
		reply_error(s, rq->serial, &diag);
		return 0;
	}
	struct backend_context_options opts = { .accelerated = true };
	if (m->has_accelerated)
		opts.accelerated = m->accelerated;
	switch (m->power_preference) {
	case WEBNN__IPC__POWER_PREFERENCE__HIGH_PERFORMANCE:
		opts.power_preference = WEBNN_POWER_HIGH_PERFORMANCE;
		break;
	case WEBNN__IPC__POWER_PREFERENCE__LOW_POWER:
		opts.power_preference = WEBNN_POWER_LOW_POWER;
		break;
	default:
		opts.power_preference = WEBNN_POWER_DEFAULT;
		break;
	}
	struct context *c = calloc(1, sizeof(*c));
	if (!c) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "createContext: out of memory");
		reply_error(s, rq->serial, &diag);
		return 0;
	}
	const struct daemon_backend *db = daemon_route(d, &opts);
	c->backend = db;
	atomic_init(&c->cancel, false);
	opts.cancel = &c->cancel;
	enum webnn_status st = db->impl->context_create(db->be, &opts, &c->bctx, &diag);
	if (st != WEBNN_STATUS_OK) {
		wnn_diag_set(&diag, st, "createContext: the %s backend failed", db->impl->name);
		free(c);
		reply_error(s, rq->serial, &diag);
		return 0;
	}
	db->impl->context_info(c->bctx, &c->info);
	session_obj_init(s, &c->obj, &context_kind, m->context_id);
	s->n_contexts++; /* before registering: a failed registration finalizes the context */
	if (session_register(s, &c->obj) < 0)
		return -1;

	context_reply_info(s, c, rq->serial);
	log_debug("session %" PRIu64 ": context %" PRIu32 " on %s (%s)", s->no, m->context_id,
		  c->info.device_name, db->impl->name);
	return 0;
}

static bool belongs_to(const struct obj *o, void *ud)
{
	return o->owner == ud;
}

int handle_destroy_context(struct session *s, struct request *rq)
{
	struct obj *o = request_lookup(s, rq->msg->destroy_context->context_id, &context_kind,
				       "DestroyContext");
	if (!o)
		return -1;
	struct context *c = (struct context *)o;
	/* MLContext.destroy(): everything created from it goes too, and queued work is dropped. */
	timeline_close(c);
	struct obj *chain = idmap_take(&s->ids, belongs_to, &c->obj);
	while (chain) {
		struct obj *x = chain;
		chain = x->dead_next;
		obj_unref(x);
	}
	session_forget(s, o);
	return 0;
}

/* ---- the flush command (struct cmd_kind): its reply means everything before it finished */

static void flush_complete(struct cmd *cmd, bool ok)
{
	if (ok) {
		Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
		cmd_reply_ok(cmd, &r);
	} else {
		cmd_fail(cmd, 0);
	}
}

static bool flush_prepare(struct cmd *cmd)
{
	cmd_complete(cmd); /* at the head: nothing left before it */
	return false;
}

static const struct cmd_kind cmd_flush = {
	.verb = "flush",
	.prepare = flush_prepare,
	.complete = flush_complete,
};

int handle_flush(struct session *s, struct request *rq)
{
	struct obj *o = request_lookup(s, rq->msg->flush->context_id, &context_kind, "Flush");
	if (!o)
		return -1;
	struct cmd *cmd = cmd_new(&cmd_flush, (struct context *)o);
	if (!cmd) {
		session_close(s, "out of memory queueing a flush");
		return -1;
	}
	cmd->serial = rq->serial;
	timeline_push(cmd);
	return 0;
}

static void context_finalize(struct obj *o)
{
	/* Every tensor, graph and command of the context is gone by now (each holds a ref). */
	struct context *c = (struct context *)o;
	struct session *s = c->obj.s;
	c->backend->impl->context_destroy(c->bctx);
	s->n_contexts--;
	free(c);
	session_unref(s);
}

static void context_abandon(struct obj *o)
{
	timeline_close((struct context *)o);
}

const struct obj_kind context_kind = {
	.name = "context",
	.finalize = context_finalize,
	.abandon = context_abandon,
};
