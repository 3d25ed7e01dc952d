/* MLTensor requests: CreateTensor, WriteTensor, ReadTensor, DestroyTensor, via the timeline. */
#include "daemon/tensor.h"

#include "daemon/context.h"
#include "daemon/log.h"
#include "daemon/request.h"
#include "daemon/session.h"
#include "daemon/shm.h"
#include "daemon/timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tensor named by id, or NULL after a protocol violation. */
static struct tensor *tensor_lookup(struct session *s, uint32_t id, const char *what)
{
	return (struct tensor *)request_lookup(s, id, &tensor_kind, what);
}

/* The checks of CreateTensor that need no allocation; false with diag filled. */
static bool create_tensor_check(struct session *s, const struct context *c,
				const Webnn__Ipc__CreateTensor *m, struct wnn_desc *desc,
				uint64_t *bytes, struct wnn_diag *diag)
{
	const struct daemon_limits *lim = &s->d->limits;
	bool constant = m->has_constant && m->constant;
	bool readable = m->has_readable && m->readable;
	bool writable = m->has_writable && m->writable;
	if (c->lost) {
		wnn_diag_set(diag, WEBNN_STATUS_CONTEXT_LOST, "createTensor: context %" PRIu32
			     " is lost: %s", c->obj.id, c->lost_msg);
		return false;
	}
	if (!wnn_desc_from_pb(m->descriptor, desc, "createTensor: descriptor", diag))
		return false;
	wnn_desc_bytes(desc, bytes);
	if (*bytes > lim->max_tensor_bytes) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "createTensor: descriptor: byte length %" PRIu64
			     " exceeds maxTensorByteLength %" PRIu64 " (max_tensor_bytes)", *bytes,
			     lim->max_tensor_bytes);
		return false;
	}
	if (constant && (readable || writable)) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "createTensor: a constant tensor cannot be readable or writable");
		return false;
	}
	if (constant && !m->data) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "createConstantTensor: data is required for a constant tensor");
		return false;
	}
	if (!constant && m->data) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "createTensor: initial data is only accepted for constant tensors");
		return false;
	}
	if (s->ids.count >= lim->max_objects) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
			     "createTensor: the connection already has %u objects (max_objects)",
			     s->ids.count);
		return false;
	}
	return true;
}

int handle_create_tensor(struct session *s, struct request *rq)
{
	const Webnn__Ipc__CreateTensor *m = rq->msg->create_tensor;
	struct wnn_diag diag = { 0 };
	struct context *c =
		(struct context *)request_lookup(s, m->context_id, &context_kind, "CreateTensor");
	if (!c || request_check_new_id(s, m->tensor_id, "CreateTensor") < 0)
		return -1;
	bool constant = m->has_constant && m->constant;
	bool readable = m->has_readable && m->readable;
	bool writable = m->has_writable && m->writable;
	struct wnn_desc desc;
	uint64_t bytes = 0;
	struct shm_source src = { 0 };
	if (!create_tensor_check(s, c, m, &desc, &bytes, &diag))
		goto fail;
	if (constant) {
		int r = shm_locate(s, m->data, bytes, "createConstantTensor: data", &src, &diag);
		if (r < 0)
			return -1;
		if (r == 0)
			goto fail;
	}
	/* Constant tensors keep a host copy for graphs; both copies count against the budgets. */
	if (!session_charge(s, bytes * (constant ? 2 : 1), "createTensor", &diag))
		goto fail;
	struct tensor *t = calloc(1, sizeof(*t));
	struct cmd *cmd = t ? cmd_new(CMD_CREATE_TENSOR, c) : NULL;
	/* A constant tensor's host copy, for graphs: inline bytes are copied here, shm bytes by
	 * the create command on the pool (before any compile of this context can bind them). */
	uint8_t *host = NULL;
	if (t && cmd && constant) {
		host = malloc(bytes ? bytes : 1);
		if (host && src.bytes)
			memcpy(host, src.bytes, bytes);
	}
	if (!t || !cmd || (constant && !host)) {
		session_uncharge(s, bytes * (constant ? 2 : 1));
		free(t);
		free(host);
		if (cmd)
			cmd_discard(cmd);
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "createTensor: out of memory");
		goto fail;
	}
	session_obj_init(s, &t->obj, &tensor_kind, m->tensor_id);
	t->obj.owner = &c->obj;
	t->ctx = c;
	obj_ref(&c->obj);
	t->desc = desc;
	t->bytes = bytes;
	t->charged = bytes * (constant ? 2 : 1);
	t->readable = readable;
	t->writable = writable;
	t->constant = constant;
	t->host = host;
	if (session_register(s, &t->obj) < 0) {
		cmd_discard(cmd);
		return -1;
	}
	obj_ref(&t->obj);
	cmd->tensor = t;
	cmd->serial = rq->serial;
	cmd->size = bytes;
	if (src.slot)
		cmd_read_from(cmd, src.slot, src.offset);
	timeline_push(cmd);
	return 0;
fail:
	timeline_reply_error(c, rq->serial, &diag);
	return 0;
}

int handle_write_tensor(struct session *s, struct request *rq)
{
	const Webnn__Ipc__WriteTensor *m = rq->msg->write_tensor;
	struct wnn_diag diag = { 0 };
	struct tensor *t = tensor_lookup(s, m->tensor_id, "WriteTensor");
	if (!t)
		return -1;
	if (m->data && m->data->where_case == WEBNN__IPC__DATA__WHERE_SHM && rq->serial == 0)
		return request_violation(s, "WriteTensor: a serial is required with shm data");
	struct context *c = t->ctx;
	uint8_t *data = NULL;
	uint64_t bytes = 0;
	wnn_desc_bytes(&t->desc, &bytes);
	struct shm_source src;
	int r = shm_locate(s, m->data, bytes, "writeTensor: data", &src, &diag);
	if (r < 0)
		return -1;
	if (r == 0)
		goto fail;
	if (c->lost) {
		wnn_diag_set(&diag, WEBNN_STATUS_CONTEXT_LOST, "writeTensor: context %" PRIu32
			     " is lost: %s", c->obj.id, c->lost_msg);
		goto fail;
	}
	if (t->constant) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "writeTensor: tensor %" PRIu32 " is a constant tensor", t->obj.id);
		goto fail;
	}
	if (!t->writable) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "writeTensor: tensor %" PRIu32 " was not created writable", t->obj.id);
		goto fail;
	}
	/* Inline bytes (one frame's worth) are copied here; shm bytes are read by the command
	 * on the pool, straight into the tensor. */
	if (src.bytes && !session_charge(s, bytes, "writeTensor", &diag))
		goto fail;
	if (src.bytes && !(data = malloc(bytes ? bytes : 1))) {
		session_uncharge(s, bytes);
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "writeTensor: data: out of memory copying %" PRIu64 " bytes", bytes);
		goto fail;
	}
	if (src.bytes)
		memcpy(data, src.bytes, bytes);
	struct cmd *cmd = cmd_new(CMD_WRITE, c);
	if (!cmd) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "writeTensor: out of memory");
		goto fail;
	}
	obj_ref(&t->obj);
	cmd->tensor = t;
	cmd->serial = rq->serial;
	cmd->data = data;
	cmd->charged = data ? bytes : 0; /* the inline copy; shm bytes are read in place */
	cmd->size = bytes;
	if (src.slot)
		cmd_read_from(cmd, src.slot, src.offset);
	timeline_push(cmd);
	return 0;
fail:
	if (data)
		session_uncharge(s, bytes);
	free(data);
	timeline_fail(c, rq->serial, t->obj.id, &diag);
	return 0;
}

int handle_read_tensor(struct session *s, struct request *rq)
{
	const Webnn__Ipc__ReadTensor *m = rq->msg->read_tensor;
	struct wnn_diag diag = { 0 };
	struct tensor *t = tensor_lookup(s, m->tensor_id, "ReadTensor");
	if (!t)
		return -1;
	struct context *c = t->ctx;
	struct shm *dest = NULL;
	if (m->dest && !(dest = shm_range(s, m->dest, "ReadTensor: dest")))
		return -1;
	uint64_t bytes = 0;
	wnn_desc_bytes(&t->desc, &bytes);
	if (c->lost) {
		wnn_diag_set(&diag, WEBNN_STATUS_CONTEXT_LOST, "readTensor: context %" PRIu32
			     " is lost: %s", c->obj.id, c->lost_msg);
		goto fail;
	}
	if (t->constant || !t->readable) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR, "readTensor: tensor %" PRIu32 " %s",
			     t->obj.id, t->constant ? "is a constant tensor"
						    : "was not created readable");
		goto fail;
	}
	if (dest && m->dest->size < bytes) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "readTensor: destination holds %" PRIu64 " bytes, the tensor %" PRIu64,
			     m->dest->size, bytes);
		goto fail;
	}
	if (dest && !dest->writable) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "readTensor: destination slot %" PRIu32 " is write-sealed",
			     dest->obj.id);
		goto fail;
	}
	if (!dest && bytes > s->d->limits.max_inline_bytes) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "readTensor: tensor %" PRIu32 " is %" PRIu64 " bytes, more than "
			     "max_inline_bytes (%u): a shm destination is required",
			     t->obj.id, bytes, s->d->limits.max_inline_bytes);
		goto fail;
	}
	/* An inline read holds its buffer until the reply is sent. */
	if (!dest && !session_charge(s, bytes, "readTensor", &diag))
		goto fail;
	struct cmd *cmd = cmd_new(CMD_READ, c);
	uint8_t *buf = (cmd && !dest) ? malloc(bytes) : NULL;
	if (!cmd || (!dest && !buf)) {
		if (cmd)
			cmd_discard(cmd);
		if (!dest)
			session_uncharge(s, bytes);
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "readTensor: out of memory");
		goto fail;
	}
	obj_ref(&t->obj);
	cmd->tensor = t;
	cmd->serial = rq->serial;
	cmd->data = buf;
	cmd->charged = dest ? 0 : bytes;
	cmd->size = bytes;
	if (dest) {
		obj_ref(&dest->obj);
		cmd->dest = dest;
		cmd->dest_off = m->dest->offset;
	}
	timeline_push(cmd);
	return 0;
fail:
	timeline_reply_error(c, rq->serial, &diag);
	return 0;
}

int handle_destroy_tensor(struct session *s, struct request *rq)
{
	struct obj *o = request_lookup(s, rq->msg->destroy_tensor->tensor_id, &tensor_kind,
				       "DestroyTensor");
	if (!o)
		return -1;
	session_forget(s, o);
	return 0;
}

/* The release command's last step: the device memory is gone. */
static void tensor_free(struct obj *o)
{
	struct tensor *t = (struct tensor *)o;
	struct session *s = t->obj.s;
	session_uncharge(s, t->charged);
	free(t->host);
	free(t->poison);
	obj_unref(&t->ctx->obj);
	free(t);
	session_unref(s);
}

static void tensor_finalize(struct obj *o)
{
	/* Device memory goes in timeline order, after the work already queued that uses it. */
	struct tensor *t = (struct tensor *)o;
	struct cmd *cmd = cmd_new(CMD_RELEASE_TENSOR, t->ctx);
	if (!cmd) {
		log_error("out of memory releasing tensor %" PRIu32 "; its memory leaks", t->obj.id);
		return;
	}
	cmd->tensor = t;
	cmd->release_free = tensor_free;
	timeline_push(cmd);
}

const struct obj_kind tensor_kind = { .name = "tensor", .finalize = tensor_finalize };
