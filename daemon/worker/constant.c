/* Constants (CreateConstant/DestroyConstant): validated host bytes that graphs bind by id. */
#include "daemon/worker/constant.h"

#include "daemon/worker/budget.h"
#include "daemon/worker/context.h"
#include "daemon/worker/request.h"
#include "daemon/worker/session.h"
#include "daemon/worker/shm.h"
#include "daemon/worker/timeline.h"
#include "daemon/worker/weights.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Interns a constant's bytes read from src (on the pool for shared memory, or the loop):
 * afterwards k->data is the shared copy (or, out of memory, the constant's own unshared one).
 * When the bytes were held already, the uid's charge for them is still the constant's until
 * constant_settle() (loop thread only) releases it. */
static void constant_intern(struct constant *k, const void *src);
static void constant_settle(struct constant *k);

/* ---- the fill command (struct cmd_kind): a constant's shm bytes copied on the pool */

static bool fill_constant_quick(const struct cmd *cmd)
{
	return cmd->size <= QUICK_COPY_BYTES;
}

static void fill_constant_work(struct cmd *cmd)
{
	constant_intern(cmd->constant, cmd->src ? cmd->src->map + cmd->src_off : cmd->data);
}

static void fill_constant_complete(struct cmd *cmd, bool ok)
{
	(void)ok; /* copying host bytes cannot fail */
	constant_settle(cmd->constant);
	if (cmd->serial) {
		Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
		cmd_reply_ok(cmd, &r);
	}
}

/* A constant's bytes are host memory: its creation succeeds on a lost context too. */
static const struct cmd_kind cmd_fill_constant = {
	.verb = "createConstant",
	.on_lost = true,
	.quick = fill_constant_quick,
	.work = fill_constant_work,
	.complete = fill_constant_complete,
};

int handle_create_constant(struct session *s, struct request *rq)
{
	const Webnn__Ipc__CreateConstant *m = rq->msg->create_constant;
	const struct daemon_limits *lim = &s->d->limits;
	struct wnn_diag diag = { 0 };
	struct context *c = (struct context *)request_lookup(s, m->context_id, &context_kind,
							     "CreateConstant");
	if (!c || request_check_new_id(s, m->constant_id, "CreateConstant") < 0)
		return -1;
	if (m->data && m->data->where_case == WEBNN__IPC__DATA__WHERE_SHM && rq->serial == 0)
		return request_violation(s, "CreateConstant: a serial is required with shm data");
	struct wnn_desc desc;
	uint64_t bytes = 0, charge = 0;
	uint8_t *data = NULL;
	bool charged = false;
	struct weights *held = NULL;
	if (!wnn_desc_from_pb(m->descriptor, &desc, "constant: descriptor", &diag))
		goto fail;
	wnn_desc_bytes(&desc, &bytes);
	if (bytes > lim->max_tensor_bytes) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "constant: descriptor: byte length %" PRIu64
			     " exceeds maxTensorByteLength %" PRIu64 " (max_tensor_bytes)", bytes,
			     lim->max_tensor_bytes);
		goto fail;
	}
	struct shm_source src;
	int r = shm_locate(s, m->data, bytes, "constant: data", &src, &diag);
	if (r < 0)
		return -1;
	if (r == 0)
		goto fail;
	if (s->ids.count >= lim->max_objects) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "constant: the connection already has %u objects (max_objects)",
			     s->ids.count);
		goto fail;
	}
	charge = bytes + obj_charge_bytes(sizeof(struct constant));
	/* Inline bytes held already by this worker (another context or connection of the uid
	 * loaded them) are charged to this connection only: the uid holds one copy. Bytes in
	 * shared memory are compared on the timeline (they may be large): their whole size is
	 * reserved here and the uid's part released once they turn out to be held. */
	if (src.bytes && bytes) {
		uint64_t restored = 0;
		held = weights_find(src.bytes, bytes, &restored);
		if (restored)
			budget_force_uid(s->d, restored); /* given back, now resident again */
	}
	if (!budget_charge_shared(s, charge, held ? charge - bytes : charge, "constant", &diag)) {
		if (held)
			weights_unref(held); /* not the last: the constants holding it remain */
		goto fail;
	}
	charged = true;
	/* Inline bytes are interned here; shm bytes by a command on the context's timeline, on the
	 * pool: a graph binding the constant compiles on the same timeline, after it. */
	data = held ? NULL : malloc(bytes ? bytes : 1);
	if (!held && !data) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "constant: data: out of memory copying %" PRIu64 " bytes", bytes);
		goto fail;
	}
	struct constant *k = calloc(1, sizeof(*k));
	struct cmd *cmd = k && src.slot ? cmd_new(&cmd_fill_constant, c) : NULL;
	if (!k || (src.slot && !cmd)) {
		free(k); /* data is uncharged and freed below */
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "constant: out of memory");
		goto fail;
	}
	session_obj_init(s, &k->obj, &constant_kind, m->constant_id);
	k->obj.owner = &c->obj;
	k->ctx = c;
	obj_ref(&c->obj);
	k->desc = desc;
	k->bytes = bytes;
	k->charged = charge;
	k->uid_bytes = held ? 0 : bytes;
	k->own = data;
	k->data = held ? weights_data(held) : data;
	k->shared = held;
	data = NULL;
	held = NULL;
	if (!k->shared && !src.slot && bytes)
		constant_intern(k, src.bytes);
	constant_settle(k);
	if (session_register(s, &k->obj) < 0) {
		if (cmd)
			cmd_discard(cmd);
		return -1;
	}
	if (cmd) {
		obj_ref(&k->obj);
		cmd->constant = k;
		cmd->serial = rq->serial;
		cmd->size = bytes;
		cmd_read_from(cmd, src.slot, src.offset);
		timeline_push(cmd);
	} else if (rq->serial) {
		Webnn__Ipc__Reply reply = WEBNN__IPC__REPLY__INIT;
		reply.serial = rq->serial;
		timeline_reply(c, &reply);
	}
	return 0;
fail:
	if (charged) {
		budget_release_connection(s, charge);
		budget_release_uid(s->d, held ? charge - bytes : charge);
		if (held)
			weights_unref(held);
	}
	free(data);
	timeline_fail(c, rq->serial, m->constant_id, &diag);
	return 0;
}

int handle_destroy_constant(struct session *s, struct request *rq)
{
	struct obj *o = request_lookup(s, rq->msg->destroy_constant->constant_id, &constant_kind,
				       "DestroyConstant");
	if (!o)
		return -1;
	session_forget(s, o);
	return 0;
}

static void constant_intern(struct constant *k, const void *src)
{
	bool shared = false;
	struct weights *w = weights_intern(src, k->bytes, k->own, &shared, &k->restored);
	if (!w) {
		memcpy(k->own, src, k->bytes);
		return;
	}
	if (shared)
		free(k->own);
	else
		k->uid_bytes = 0; /* the shared copy holds the uid's charge now */
	k->own = NULL;
	k->shared = w;
	k->data = weights_data(w);
}

static void constant_settle(struct constant *k)
{
	if (k->restored) {
		budget_force_uid(k->obj.s->d, k->restored); /* given back, now resident again */
		k->restored = 0;
	}
	if (k->shared && k->uid_bytes) {
		budget_release_uid(k->obj.s->d, k->uid_bytes);
		k->uid_bytes = 0;
	}
}

static void constant_finalize(struct obj *o)
{
	struct constant *k = (struct constant *)o;
	struct session *s = k->obj.s;
	/* The connection was charged for everything; the uid for the headers, for what the
	 * constant still holds itself, and for the shared copy when this is its last holder. */
	budget_release_connection(s, k->charged);
	uint64_t uid = k->charged - k->bytes + k->uid_bytes;
	if (k->shared && weights_unref(k->shared))
		uid += k->bytes;
	budget_release_uid(s->d, uid);
	free(k->own);
	obj_unref(&k->ctx->obj);
	free(k);
	session_unref(s);
}

const struct obj_kind constant_kind = { .name = "constant", .finalize = constant_finalize };
