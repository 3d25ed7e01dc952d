/* MLTensor requests: CreateTensor, WriteTensor, ReadTensor, DestroyTensor, via the timeline. */
#include "daemon/worker/tensor.h"

#include "daemon/worker/context.h"
#include "daemon/log.h"
#include "daemon/worker/request.h"
#include "daemon/worker/session.h"
#include "daemon/worker/shm.h"
#include "daemon/worker/timeline.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The timeline commands of tensors (below). */
static const struct cmd_kind cmd_create_tensor, cmd_write_tensor, cmd_read_tensor;

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

/* CreateTensor.storage: a range of a registered slot the tensor's bytes live in. Returns 1
 * with *out set, 0 with diag filled, -1 after a protocol violation (unknown slot). */
static int storage_check(struct session *s, const struct context *c,
			 const Webnn__Ipc__CreateTensor *m, uint64_t bytes, struct shm **out,
			 struct wnn_diag *diag)
{
	const Webnn__Ipc__ShmRange *r = m->storage;
	if (m->has_constant && m->constant) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "createConstantTensor: storage cannot be given for a constant tensor "
			     "(its bytes are copied into daemon memory)");
		return 0;
	}
	if (!c->backend->impl->tensor_create_shared) {
		wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
			     "createTensor: storage: the %s backend cannot keep tensors in shared "
			     "memory", c->backend->impl->name);
		return 0;
	}
	struct shm *sh = (struct shm *)request_lookup(s, r->slot_id, &shm_kind,
						      "CreateTensor: storage");
	if (!sh)
		return -1;
	uint64_t need = (bytes + 63) & ~(uint64_t)63;
	uint32_t align = c->info.storage_align < 64 ? 64 : c->info.storage_align;
	if (r->offset > sh->size || r->size > sh->size - r->offset)
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "createTensor: storage range [%" PRIu64 ", +%" PRIu64 ") is outside "
			     "slot %" PRIu32 " of %" PRIu64 " bytes", r->offset, r->size,
			     r->slot_id, sh->size);
	else if (r->size < need)
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "createTensor: storage is %" PRIu64 " bytes, the tensor needs %" PRIu64
			     " (its byte length %" PRIu64 " rounded up to 64)", r->size, need,
			     bytes);
	else if (r->offset % align)
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "createTensor: storage offset %" PRIu64 " is not a multiple of %" PRIu32
			     " bytes (the device's storage alignment)", r->offset, align);
	else if (!sh->writable)
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "createTensor: storage slot %" PRIu32 " is write-sealed (a tensor's "
			     "results are written into its storage)", r->slot_id);
	else if ((sh->seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW))
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "createTensor: storage slot %" PRIu32 " is not sealed with "
			     "F_SEAL_SHRINK|F_SEAL_GROW (tensor storage must keep its size)",
			     r->slot_id);
	else
		*out = sh;
	return *out ? 1 : 0;
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
	struct shm *storage = NULL;
	if (!create_tensor_check(s, c, m, &desc, &bytes, &diag))
		goto fail;
	if (m->storage) {
		int r = storage_check(s, c, m, bytes, &storage, &diag);
		if (r < 0)
			return -1;
		if (r == 0)
			goto fail;
	}
	if (constant) {
		int r = shm_locate(s, m->data, bytes, "createConstantTensor: data", &src, &diag);
		if (r < 0)
			return -1;
		if (r == 0)
			goto fail;
	}
	/* Constant tensors keep a host copy for graphs; both copies count against the budgets.
	 * A tensor computed in its shared memory costs the daemon nothing more (the slot was
	 * charged when it was registered); a device keeping its own copy of one does. Every
	 * tensor also costs its headers (here and the backend's). */
	uint64_t charge = storage && !c->backend->impl->tensor_sync ? 0
			  : bytes * (constant ? 2 : 1);
	charge += obj_charge_bytes(sizeof(struct tensor)) + BACKEND_TENSOR_BYTES;
	if (!session_charge(s, charge, "createTensor", &diag))
		goto fail;
	struct tensor *t = calloc(1, sizeof(*t));
	struct cmd *cmd = t ? cmd_new(&cmd_create_tensor, c) : NULL;
	/* A constant tensor's host copy, for graphs: inline bytes are copied here, shm bytes by
	 * the create command on the pool (before any compile of this context can bind them). */
	uint8_t *host = NULL;
	if (t && cmd && constant) {
		host = malloc(bytes ? bytes : 1);
		if (host && src.bytes)
			memcpy(host, src.bytes, bytes);
	}
	if (!t || !cmd || (constant && !host)) {
		session_uncharge(s, charge);
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
	t->charged = charge;
	if (storage) {
		obj_ref(&storage->obj);
		t->storage = storage;
		t->storage_off = m->storage->offset;
	}
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
	struct shm_source src = { 0 };
	if (m->data) {
		int r = shm_locate(s, m->data, bytes, "writeTensor: data", &src, &diag);
		if (r < 0)
			return -1;
		if (r == 0)
			goto fail;
	} else if (!t->storage) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "writeTensor: tensor %" PRIu32 " has no storage in shared memory: data "
			     "is required", t->obj.id);
		goto fail;
	}
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
	struct cmd *cmd = cmd_new(&cmd_write_tensor, c);
	if (!cmd) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "writeTensor: out of memory");
		goto fail;
	}
	obj_ref(&t->obj);
	cmd->tensor = t;
	cmd->serial = rq->serial;
	cmd->data = data;
	cmd->charged = data ? bytes : 0; /* the inline copy; shm bytes are read in place */
	cmd->in_place = !m->data;
	cmd->size = cmd->in_place ? 0 : bytes;
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
	bool in_place = m->has_in_place && m->in_place;
	if (in_place && (!t->storage || dest)) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "readTensor: tensor %" PRIu32 " %s", t->obj.id,
			     dest ? "in_place and dest exclude each other"
				  : "has no storage in shared memory to read in place");
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
	if (!dest && !in_place && bytes > s->d->limits.max_inline_bytes) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "readTensor: tensor %" PRIu32 " is %" PRIu64 " bytes, more than "
			     "max_inline_bytes (%u): a shm destination is required",
			     t->obj.id, bytes, s->d->limits.max_inline_bytes);
		goto fail;
	}
	/* An inline read holds its buffer until the reply is sent. */
	bool inline_reply = !dest && !in_place;
	if (inline_reply && !session_charge(s, bytes, "readTensor", &diag))
		goto fail;
	struct cmd *cmd = cmd_new(&cmd_read_tensor, c);
	uint8_t *buf = (cmd && inline_reply) ? malloc(bytes ? bytes : 1) : NULL;
	if (!cmd || (inline_reply && !buf)) {
		if (cmd)
			cmd_discard(cmd);
		if (inline_reply)
			session_uncharge(s, bytes);
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "readTensor: out of memory");
		goto fail;
	}
	obj_ref(&t->obj);
	cmd->tensor = t;
	cmd->serial = rq->serial;
	cmd->data = buf;
	cmd->charged = inline_reply ? bytes : 0;
	cmd->in_place = in_place;
	cmd->size = in_place ? 0 : bytes;
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
	if (t->storage) /* after the backend let go of it (the release command ran first) */
		obj_unref(&t->storage->obj);
	free(t->host);
	free(t->poison);
	obj_unref(&t->ctx->obj);
	free(t);
	session_unref(s);
}

void tensor_poison(struct tensor *t, const char *why)
{
	free(t->poison);
	t->poison = strdup(why);
}

/* ---- the tensor commands (struct cmd_kind) */

/* Host-memory backends copy small tensors on the loop thread (the quick path). */
static bool tensor_quick_copy(const struct cmd *cmd)
{
	return cmd->ctx->backend->impl->host_tensors && cmd->tensor->bytes <= QUICK_COPY_BYTES;
}

static bool create_tensor_quick(const struct cmd *cmd)
{
	/* over shared-memory storage neither allocates nor frees the bytes */
	return cmd->ctx->backend->impl->host_tensors &&
	       (cmd->tensor->storage || cmd->tensor->bytes <= QUICK_COPY_BYTES);
}

static void create_tensor_work(struct cmd *cmd)
{
	const struct backend_impl *impl = cmd->ctx->backend->impl;
	struct wnn_diag *diag = &cmd->diag;
	struct tensor *t = cmd->tensor;
	const uint8_t *src = cmd->src ? cmd->src->map + cmd->src_off : cmd->data;
	/* A constant tensor's host copy (what graphs bind) is filled first, whatever the device
	 * does; the device copy is written from it. */
	if (t->host && cmd->src)
		memcpy(t->host, src, cmd->size);
	if (t->storage)
		cmd->status = impl->tensor_create_shared(cmd->ctx->bctx, &t->desc,
							 t->storage->map + t->storage_off, &t->bt,
							 diag);
	else
		cmd->status = impl->tensor_create(cmd->ctx->bctx, &t->desc, &t->bt, diag);
	if (cmd->status == WEBNN_STATUS_OK && t->host)
		cmd->status = impl->tensor_write(t->bt, t->host, cmd->size, diag);
}

static void create_tensor_complete(struct cmd *cmd, bool ok)
{
	if (ok) {
		Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
		cmd_reply_ok(cmd, &r);
		return;
	}
	cmd->tensor->failed = true;
	tensor_poison(cmd->tensor, cmd->diag.message);
	cmd_fail(cmd, cmd->tensor->obj.id);
	/* The client saw the failure and will not destroy it: free the id. */
	session_forget(cmd->ctx->obj.s, &cmd->tensor->obj);
}

static const struct cmd_kind cmd_create_tensor = {
	.verb = "createTensor",
	.quick = create_tensor_quick,
	.work = create_tensor_work,
	.complete = create_tensor_complete,
};

static bool write_tensor_prepare(struct cmd *cmd)
{
	struct tensor *t = cmd->tensor;
	if (t->failed)
		cmd->status = wnn_diag_set(&cmd->diag, WEBNN_STATUS_INVALID_STATE,
					   "writeTensor: tensor %" PRIu32 " was never created: %s",
					   t->obj.id, t->poison);
	return true;
}

static void write_tensor_work(struct cmd *cmd)
{
	const struct backend_impl *impl = cmd->ctx->backend->impl;
	struct tensor *t = cmd->tensor;
	const uint8_t *src = cmd->src ? cmd->src->map + cmd->src_off : cmd->data;
	if (cmd->in_place) /* the client wrote the storage; host ones completed at the head */
		cmd->status = impl->tensor_sync(t->bt, true, &cmd->diag);
	else
		cmd->status = impl->tensor_write(t->bt, src, cmd->size, &cmd->diag);
}

static void write_tensor_complete(struct cmd *cmd, bool ok)
{
	if (!ok) {
		tensor_poison(cmd->tensor, cmd->diag.message);
		cmd_fail(cmd, cmd->tensor->obj.id);
		return;
	}
	free(cmd->tensor->poison);
	cmd->tensor->poison = NULL;
	if (cmd->serial) {
		Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
		cmd_reply_ok(cmd, &r);
	}
}

static const struct cmd_kind cmd_write_tensor = {
	.verb = "writeTensor",
	.prepare = write_tensor_prepare,
	.quick = tensor_quick_copy,
	.work = write_tensor_work,
	.complete = write_tensor_complete,
};

static bool read_tensor_prepare(struct cmd *cmd)
{
	struct tensor *t = cmd->tensor;
	if (t->failed)
		cmd->status = wnn_diag_set(&cmd->diag, WEBNN_STATUS_INVALID_STATE,
					   "readTensor: tensor %" PRIu32 " was never created: %s",
					   t->obj.id, t->poison);
	else if (t->poison)
		cmd->status = wnn_diag_set(&cmd->diag, WEBNN_STATUS_OPERATION_ERROR,
					   "readTensor: tensor %" PRIu32 " holds no valid data: %s",
					   t->obj.id, t->poison);
	return true;
}

static void read_tensor_work(struct cmd *cmd)
{
	const struct backend_impl *impl = cmd->ctx->backend->impl;
	struct tensor *t = cmd->tensor;
	if (cmd->in_place) {
		cmd->status = impl->tensor_sync(t->bt, false, &cmd->diag);
		return;
	}
	void *dst = cmd->dest ? (void *)(cmd->dest->map + cmd->dest_off) : cmd->data;
	cmd->status = impl->tensor_read(t->bt, dst, (size_t)t->bytes, &cmd->diag);
}

static void read_tensor_complete(struct cmd *cmd, bool ok)
{
	if (!ok) {
		cmd_fail(cmd, cmd->tensor->obj.id);
		return;
	}
	Webnn__Ipc__ReadTensorReply rr = WEBNN__IPC__READ_TENSOR_REPLY__INIT;
	if (!cmd->dest && !cmd->in_place) {
		rr.has_data = true;
		rr.data.data = cmd->data;
		rr.data.len = cmd->size;
	}
	Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
	r.body_case = WEBNN__IPC__REPLY__BODY_READ_TENSOR;
	r.read_tensor = &rr;
	cmd_reply_ok(cmd, &r);
}

static const struct cmd_kind cmd_read_tensor = {
	.verb = "readTensor",
	.prepare = read_tensor_prepare,
	.quick = tensor_quick_copy,
	.work = read_tensor_work,
	.complete = read_tensor_complete,
};

static bool release_tensor_prepare(struct cmd *cmd)
{
	return cmd->tensor->bt != NULL;
}

static void release_tensor_work(struct cmd *cmd)
{
	struct tensor *t = cmd->tensor;
	if (t->bt)
		cmd->ctx->backend->impl->tensor_destroy(t->bt);
	t->bt = NULL;
}

static void release_tensor_object(struct cmd *cmd)
{
	tensor_free(&cmd->tensor->obj);
}

static const struct cmd_kind cmd_release_tensor = {
	.verb = "releaseTensor",
	.prepare = release_tensor_prepare,
	.quick = create_tensor_quick,
	.work = release_tensor_work,
	.release_object = release_tensor_object,
};


static void tensor_finalize(struct obj *o)
{
	/* Device memory goes in timeline order, after the work already queued that uses it. */
	struct tensor *t = (struct tensor *)o;
	struct cmd *cmd = cmd_new(&cmd_release_tensor, t->ctx);
	if (!cmd) {
		log_error("out of memory releasing tensor %" PRIu32 "; its memory leaks", t->obj.id);
		return;
	}
	cmd->tensor = t;
	timeline_push(cmd);
}

const struct obj_kind tensor_kind = { .name = "tensor", .finalize = tensor_finalize };
