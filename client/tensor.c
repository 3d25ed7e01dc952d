/* libwebnn tensors (MLTensor): create, constant tensors, write, read, map, destroy. */
#include "client/client.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Slots the tensors leave to the arena (and its replacement while it grows). */
#define STORAGE_SPARE_SLOTS 4

/* Converts and validates a public descriptor; fills the context's last error on failure. */
static enum webnn_status desc_in(struct webnn_context *ctx, const struct webnn_operand_desc *in,
				 const char *what, struct wnn_desc *d, uint64_t *bytes)
{
	struct wnn_diag diag;
	wnn_diag_clear(&diag);
	memset(d, 0, sizeof(*d));
	d->type = (enum wnn_dtype)in->data_type;
	d->rank = in->rank;
	if (in->rank <= WNN_MAX_RANK)
		memcpy(d->dims, in->shape, sizeof(uint32_t) * in->rank);
	if (!wnn_desc_validate(d, what, &diag))
		return wnnc_fail(ctx, diag.status, "%s", diag.message);
	wnn_desc_bytes(d, bytes);
	if (ctx->support.max_tensor_byte_length && *bytes > ctx->support.max_tensor_byte_length)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
				 "%s: byte length %" PRIu64 " exceeds the context's "
				 "maxTensorByteLength %" PRIu64,
				 what, *bytes, ctx->support.max_tensor_byte_length);
	return WEBNN_STATUS_OK;
}

static void unregister_slot(struct webnn_context *ctx, uint32_t slot)
{
	Webnn__Ipc__UnregisterShm un = WEBNN__IPC__UNREGISTER_SHM__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	un.slot_id = slot;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_UNREGISTER_SHM;
	m.unregister_shm = &un;
	wnnc_send(ctx, &m, NULL, 0);
}

/*
 * Storage for a tensor: a sealed memfd of its own (so that the slot caps bound the mappings),
 * mapped here and registered as a slot. Returns OK with *map set, or OK with *map NULL when the
 * tensor is better kept by the daemon (no storage support, the caps nearly reached, the daemon
 * refused the slot); an error only when the context is lost. The registration is waited for
 * even by the asynchronous creation: webnnd answers it at once (not behind the timeline), and a
 * CreateTensor naming a slot it refused would be a protocol violation.
 */
static enum webnn_status storage_new(struct webnn_context *ctx, uint64_t bytes, const char *what,
				     uint32_t *slot, uint8_t **map, size_t *map_size)
{
	*map = NULL;
	if (!ctx->storage_align)
		return WEBNN_STATUS_OK;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pg = page > 0 ? (uint64_t)page : 4096;
	uint64_t size = ((bytes + 63) / 64 * 64 + pg - 1) / pg * pg;
	if (size == 0)
		size = pg;
	uint32_t max_slots = ctx->max_shm_slots ? ctx->max_shm_slots : 256;
	if (size > SIZE_MAX || ctx->n_storage + STORAGE_SPARE_SLOTS >= max_slots ||
	    size > ctx->limits.max_shm_bytes / 2 - ctx->storage_bytes ||
	    ctx->storage_bytes > ctx->limits.max_shm_bytes / 2)
		return WEBNN_STATUS_OK;
	int fd = memfd_create("webnn-tensor", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return WEBNN_STATUS_OK;
	void *p = MAP_FAILED;
	if (ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0 ||
	    (p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
		    MAP_FAILED) {
		close(fd);
		return WEBNN_STATUS_OK;
	}
	Webnn__Ipc__RegisterShm reg = WEBNN__IPC__REGISTER_SHM__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	reg.slot_id = wnnc_new_id(ctx);
	reg.size = size;
	m.has_serial = true;
	m.serial = wnnc_new_serial(ctx);
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_REGISTER_SHM;
	m.register_shm = &reg;
	enum webnn_status s = wnnc_send(ctx, &m, &fd, 1);
	close(fd); /* the daemon has its own copy now */
	Webnn__Ipc__ServerMessage *r = NULL;
	if (s == WEBNN_STATUS_OK)
		s = wnnc_wait_reply(ctx, m.serial, what, &r);
	if (r)
		webnn__ipc__server_message__free_unpacked(r, NULL);
	if (s != WEBNN_STATUS_OK) {
		munmap(p, (size_t)size);
		/* A refused slot (a cap of the daemon) only costs the tensor its storage. */
		return s == WEBNN_STATUS_CONTEXT_LOST ? s : WEBNN_STATUS_OK;
	}
	*slot = reg.slot_id;
	*map = p;
	*map_size = (size_t)size;
	return WEBNN_STATUS_OK;
}

/* Drops a tensor's storage mapping (the daemon's is its own). Lock held. */
static void storage_drop(struct webnn_tensor *t)
{
	if (!t->map)
		return;
	munmap(t->map, t->map_size);
	t->ctx->n_storage--;
	t->ctx->storage_bytes -= t->map_size;
	t->map = NULL;
}

void wnnc_tensor_free_unowned(struct webnn_tensor *t)
{
	storage_drop(t);
	free(t->shadow);
	free(t);
}

/* Sends CreateTensor for t (a fresh id; data: a constant's bytes; slot: its storage's, or 0);
 * *serial is its reply's. */
static enum webnn_status send_create_tensor(struct webnn_context *ctx, struct webnn_tensor *t,
					    const void *data, size_t size, uint32_t slot,
					    const char *what, uint64_t *serial)
{
	Webnn__Ipc__CreateTensor ct = WEBNN__IPC__CREATE_TENSOR__INIT;
	Webnn__Ipc__OperandDescriptor pd;
	Webnn__Ipc__Data pdata;
	Webnn__Ipc__ShmRange shm;
	Webnn__Ipc__ShmRange storage = WEBNN__IPC__SHM_RANGE__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	struct wnn_desc d = { .type = (enum wnn_dtype)t->desc.desc.data_type,
			      .rank = t->desc.desc.rank };
	memcpy(d.dims, t->desc.desc.shape, sizeof(uint32_t) * d.rank);
	wnn_desc_to_pb(&d, &pd);
	ct.context_id = ctx->context_id;
	ct.tensor_id = t->id = wnnc_new_id(ctx);
	ct.descriptor = &pd;
	ct.has_readable = ct.has_writable = true;
	ct.readable = t->desc.readable;
	ct.writable = t->desc.writable;
	uint64_t shm_serial = 0;
	if (data) {
		ct.has_constant = true;
		ct.constant = true;
		enum webnn_status s = wnnc_put_data(ctx, data, size, what, &pdata, &shm,
						    &shm_serial);
		if (s != WEBNN_STATUS_OK)
			return s;
		ct.data = &pdata;
	}
	if (t->map) {
		storage.slot_id = slot;
		storage.offset = 0;
		storage.size = t->map_size;
		ct.storage = &storage;
	}
	m.has_serial = true;
	m.serial = *serial = shm_serial ? shm_serial : wnnc_new_serial(ctx);
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_TENSOR;
	m.create_tensor = &ct;
	return wnnc_send(ctx, &m, NULL, 0);
}

/* createTensor / createConstantTensor; blocking when call is NULL, else sent for call (a
 * TENSOR call: its tensor is set, it is queued). */
static enum webnn_status create(struct webnn_context *ctx, const struct webnn_operand_desc *desc,
				bool readable, bool writable, const void *data, size_t size,
				struct webnn_tensor **out, struct wnnc_async *call)
{
	const char *what = data ? "createConstantTensor" : "createTensor";
	struct wnn_desc d;
	uint64_t bytes = 0;
	enum webnn_status s = wnnc_check_live(ctx, what);
	if (s == WEBNN_STATUS_OK)
		s = desc_in(ctx, desc, what, &d, &bytes);
	if (s != WEBNN_STATUS_OK)
		return s;
	if (data && size != bytes)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
				 "%s: data is %zu bytes, the descriptor's byte length is %" PRIu64,
				 what, size, bytes);
	struct webnn_tensor *t = calloc(1, sizeof(*t));
	if (!t)
		return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
	t->ctx = ctx;
	t->refs = 1;
	t->desc.desc = *desc;
	t->desc.readable = readable;
	t->desc.writable = writable;
	t->constant = data != NULL;
	t->bytes = bytes;

	uint32_t slot = 0;
	if (!data && (s = storage_new(ctx, bytes, what, &slot, &t->map, &t->map_size)) !=
			     WEBNN_STATUS_OK) {
		free(t);
		return s;
	}
	if (t->map) {
		ctx->n_storage++;
		ctx->storage_bytes += t->map_size;
	}
	uint64_t serial = 0;
	s = send_create_tensor(ctx, t, data, size, slot, what, &serial);
	if (call) {
		if (s != WEBNN_STATUS_OK) {
			if (t->map && !ctx->lost)
				unregister_slot(ctx, slot);
			wnnc_tensor_free_unowned(t);
			return s;
		}
		/* Shm data: the arena is busy until the reply (see async_answered). */
		if (data && size > ctx->max_inline)
			wnnc_arena_sent(ctx, serial);
		call->kind = WNNC_ASYNC_TENSOR;
		call->tensor = t;
		call->slot = t->map ? slot : 0;
		call->serial = serial;
		call->seq = ctx->sent_seq;
		ctx->refs++; /* the tensor's, from now on */
		wnnc_async_add(ctx, call);
		return WEBNN_STATUS_OK;
	}
	uint64_t seq = ctx->sent_seq;
	Webnn__Ipc__ServerMessage *reply = NULL;
	if (s == WEBNN_STATUS_OK)
		s = wnnc_wait_reply(ctx, serial, what, &reply);
	if (reply)
		webnn__ipc__server_message__free_unpacked(reply, NULL);
	if (s != WEBNN_STATUS_CONTEXT_LOST)
		wnnc_done(ctx, seq);
	/* The tensor holds the daemon's mapping from here on: the slot's id is not needed. */
	if (t->map && !ctx->lost)
		unregister_slot(ctx, slot);
	if (s != WEBNN_STATUS_OK) {
		wnnc_tensor_free_unowned(t);
		return s;
	}
	ctx->refs++;
	*out = t;
	return WEBNN_STATUS_OK;
}

void wnnc_tensor_answered(struct webnn_context *ctx, struct wnnc_async *a,
			  const Webnn__Ipc__Reply *reply)
{
	wnnc_done(ctx, a->seq);
	/* The tensor holds the daemon's mapping from here on: the slot's id is not needed. */
	if (a->slot && !ctx->lost)
		unregister_slot(ctx, a->slot);
	a->slot = 0;
	if (!reply->error) {
		a->status = WEBNN_STATUS_OK;
		a->message[0] = '\0';
		return;
	}
	a->status = wnnc_status_from_error(reply->error);
	snprintf(a->message, sizeof(a->message), "%s",
		 reply->error->message ? reply->error->message
				       : a->tensor->constant ? "createConstantTensor"
							     : "createTensor");
}

enum webnn_status webnn_context_create_tensor(struct webnn_context *ctx,
					      const struct webnn_tensor_desc *desc,
					      struct webnn_tensor **out)
{
	if (out)
		*out = NULL;
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s;
	if (!desc || !out)
		s = wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "createTensor: %s is NULL",
			      desc ? "out" : "descriptor");
	else
		s = create(ctx, &desc->desc, desc->readable, desc->writable, NULL, 0, out, NULL);
	wnnc_unlock(ctx);
	return s;
}

enum webnn_status webnn_context_create_constant_tensor(struct webnn_context *ctx,
						       const struct webnn_operand_desc *desc,
						       const void *data, size_t size,
						       struct webnn_tensor **out)
{
	if (out)
		*out = NULL;
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s;
	if (!desc || !out || !data)
		s = wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "createConstantTensor: %s is NULL",
			      !desc ? "descriptor" : !data ? "data" : "out");
	else
		s = create(ctx, desc, false, false, data, size, out, NULL);
	wnnc_unlock(ctx);
	return s;
}

/* The asynchronous forms: a call record, then create() sends it. */
static enum webnn_status create_async(struct webnn_context *ctx,
				      const struct webnn_operand_desc *desc, bool readable,
				      bool writable, const void *data, size_t size,
				      webnn_tensor_cb cb, void *user_data, const char *what)
{
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = WEBNN_STATUS_OK;
	struct wnnc_async *a = NULL;
	if (!desc || !cb || (!data && strcmp(what, "createConstantTensor") == 0))
		s = wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "%s: %s is NULL", what,
			      !desc ? "descriptor" : !cb ? "the callback" : "data");
	else if (!(a = calloc(1, sizeof(*a))))
		s = wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
	if (s == WEBNN_STATUS_OK) {
		a->tensor_cb = cb;
		a->user_data = user_data;
		s = create(ctx, desc, readable, writable, data, size, NULL, a);
		if (s != WEBNN_STATUS_OK)
			free(a);
	}
	wnnc_unlock(ctx);
	return s;
}

enum webnn_status webnn_context_create_tensor_async(struct webnn_context *ctx,
						    const struct webnn_tensor_desc *desc,
						    webnn_tensor_cb cb, void *user_data)
{
	return create_async(ctx, desc ? &desc->desc : NULL, desc && desc->readable,
			    desc && desc->writable, NULL, 0, cb, user_data, "createTensor");
}

enum webnn_status webnn_context_create_constant_tensor_async(
	struct webnn_context *ctx, const struct webnn_operand_desc *desc, const void *data,
	size_t size, webnn_tensor_cb cb, void *user_data)
{
	return create_async(ctx, desc, false, false, data, size, cb, user_data,
			    "createConstantTensor");
}

/* The checks writeTensor and readTensor share (spec: TypeError for each). */
static enum webnn_status check_tensor(struct webnn_context *ctx, struct webnn_tensor *t,
				      const void *data, size_t size, const char *what, bool write)
{
	enum webnn_status s = wnnc_check_live(ctx, what);
	if (s != WEBNN_STATUS_OK)
		return s;
	if (!t || !data)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "%s: %s is NULL", what,
				 t ? "data" : "tensor");
	if (t->ctx != ctx)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
				 "%s: the tensor belongs to another context", what);
	if (t->destroyed)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "%s: the tensor is destroyed", what);
	if (t->mapped)
		return wnnc_fail(ctx, WEBNN_STATUS_INVALID_STATE,
				 "%s: tensor %" PRIu32 " is mapped (webnn_tensor_unmap it first)",
				 what, t->id);
	if (t->constant)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
				 "%s: the tensor is a constant tensor (usable only as a graph "
				 "constant)", what);
	if (write ? !t->desc.writable : !t->desc.readable)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
				 "%s: the tensor was not created %s", what,
				 write ? "writable" : "readable");
	if (size != t->bytes)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
				 "%s: data is %zu bytes, the tensor's byte length is %" PRIu64,
				 what, size, t->bytes);
	return WEBNN_STATUS_OK;
}

static enum webnn_status write_locked(struct webnn_context *ctx, struct webnn_tensor *tensor,
				      const void *data, size_t size)
{
	enum webnn_status s = check_tensor(ctx, tensor, data, size, "writeTensor", true);
	if (s == WEBNN_STATUS_OK)
		wnnc_wait_reads(ctx, tensor);
	if (s == WEBNN_STATUS_OK && tensor->map && !wnnc_tensor_busy(ctx, tensor)) {
		/* One copy: nothing queued uses the storage, so the bytes go straight there; the
		 * marker makes them the tensor's contents in timeline order. */
		memcpy(tensor->map, data, size);
		Webnn__Ipc__WriteTensor wt = WEBNN__IPC__WRITE_TENSOR__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		wt.tensor_id = tensor->id;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_WRITE_TENSOR;
		m.write_tensor = &wt;
		s = wnnc_send(ctx, &m, NULL, 0);
		tensor->last_use = ctx->sent_seq;
	} else if (s == WEBNN_STATUS_OK) {
		/* Staged (two copies: into the arena or the frame, then the daemon's): the tensor
		 * has no storage, or queued work still uses it. */
		Webnn__Ipc__WriteTensor wt = WEBNN__IPC__WRITE_TENSOR__INIT;
		Webnn__Ipc__Data pdata;
		Webnn__Ipc__ShmRange shm;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		uint64_t serial;
		s = wnnc_put_data(ctx, data, size, "writeTensor", &pdata, &shm, &serial);
		if (s == WEBNN_STATUS_OK) {
			wt.tensor_id = tensor->id;
			wt.data = &pdata;
			m.has_serial = serial != 0;
			m.serial = serial;
			m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_WRITE_TENSOR;
			m.write_tensor = &wt;
			s = wnnc_send(ctx, &m, NULL, 0);
			if (s == WEBNN_STATUS_OK)
				wnnc_arena_sent(ctx, serial);
			tensor->last_use = ctx->sent_seq;
		}
	}
	return s;
}

enum webnn_status webnn_context_write_tensor(struct webnn_context *ctx, struct webnn_tensor *tensor,
					     const void *data, size_t size)
{
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = write_locked(ctx, tensor, data, size);
	wnnc_unlock(ctx);
	return s;
}

/* ReadTensor{in_place}: the storage holds the tensor's contents once it returns OK (an
 * error names why not: poison, loss). */
static enum webnn_status read_in_place(struct webnn_context *ctx, struct webnn_tensor *t,
				       const char *what)
{
	Webnn__Ipc__ReadTensor rt = WEBNN__IPC__READ_TENSOR__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	rt.tensor_id = t->id;
	rt.has_in_place = rt.in_place = true;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
	m.read_tensor = &rt;
	return wnnc_call(ctx, &m, what, NULL);
}

static enum webnn_status read_locked(struct webnn_context *ctx, struct webnn_tensor *tensor,
				     void *data, size_t size)
{
	enum webnn_status s = check_tensor(ctx, tensor, data, size, "readTensor", false);
	if (s == WEBNN_STATUS_OK && tensor->map) {
		/* One copy: once the reply comes, everything before the read has finished and the
		 * storage holds the contents; nothing else of the context can be sent before the
		 * copy (the lock is held throughout). */
		s = read_in_place(ctx, tensor, "readTensor");
		if (s == WEBNN_STATUS_OK)
			memcpy(data, tensor->map, size);
		return s;
	}
	bool via_shm = size > ctx->max_inline;
	if (s == WEBNN_STATUS_OK && via_shm)
		s = wnnc_arena_reserve(ctx, size, "readTensor");
	if (s == WEBNN_STATUS_OK) {
		Webnn__Ipc__ReadTensor rt = WEBNN__IPC__READ_TENSOR__INIT;
		Webnn__Ipc__ShmRange dest = WEBNN__IPC__SHM_RANGE__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		rt.tensor_id = tensor->id;
		if (via_shm) {
			dest.slot_id = ctx->arena_slot;
			dest.offset = 0;
			dest.size = size;
			rt.dest = &dest;
		}
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
		m.read_tensor = &rt;
		Webnn__Ipc__ServerMessage *reply = NULL;
		s = wnnc_call(ctx, &m, "readTensor", &reply);
		if (s == WEBNN_STATUS_OK) {
			const Webnn__Ipc__Reply *r = reply->reply;
			const Webnn__Ipc__ReadTensorReply *rr =
				r->body_case == WEBNN__IPC__REPLY__BODY_READ_TENSOR ? r->read_tensor
										    : NULL;
			if (via_shm) {
				memcpy(data, ctx->arena, size);
			} else if (rr && rr->has_data && rr->data.len == size) {
				memcpy(data, rr->data.data, size);
			} else {
				s = wnnc_fail(ctx, WEBNN_STATUS_PROTOCOL_ERROR,
					      "readTensor: webnnd returned %zu bytes, expected %zu",
					      rr && rr->has_data ? rr->data.len : (size_t)0, size);
			}
			webnn__ipc__server_message__free_unpacked(reply, NULL);
		}
	}
	return s;
}

enum webnn_status webnn_context_read_tensor(struct webnn_context *ctx, struct webnn_tensor *tensor,
					    void *data, size_t size)
{
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = read_locked(ctx, tensor, data, size);
	wnnc_unlock(ctx);
	return s;
}

static enum webnn_status read_async_locked(struct webnn_context *ctx, struct webnn_tensor *t,
					   void *data, size_t size, webnn_read_cb cb, void *ud)
{
	enum webnn_status s = check_tensor(ctx, t, data, size, "readTensor", false);
	if (s != WEBNN_STATUS_OK)
		return s;
	if (!cb)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "readTensor: the callback is NULL");
	struct wnnc_async *r = calloc(1, sizeof(*r));
	if (!r)
		return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "readTensor: out of memory");
	r->kind = WNNC_ASYNC_READ;
	r->tensor = t;
	r->data = data;
	r->size = size;
	r->read_cb = cb;
	r->user_data = ud;
	t->refs++;
	if (!t->map && size > ctx->max_inline) {
		/* Through the arena, which serves one request at a time: blocking. */
		r->status = read_locked(ctx, t, data, size);
		snprintf(r->message, sizeof(r->message), "%s",
			 r->status == WEBNN_STATUS_OK ? "" : ctx->last_error);
		ctx->call_failed = false;
		*ctx->done_tail = r;
		ctx->done_tail = &r->next;
		return WEBNN_STATUS_OK;
	}
	/* In place (the bytes are copied from the storage when the reply comes), or inline in
	 * the reply. */
	Webnn__Ipc__ReadTensor rt = WEBNN__IPC__READ_TENSOR__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	rt.tensor_id = t->id;
	r->in_place = t->map != NULL;
	rt.has_in_place = rt.in_place = r->in_place;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
	m.read_tensor = &rt;
	m.has_serial = true;
	m.serial = r->serial = wnnc_new_serial(ctx);
	s = wnnc_send(ctx, &m, NULL, 0);
	if (s != WEBNN_STATUS_OK) {
		t->refs--;
		free(r);
		return s;
	}
	r->seq = ctx->sent_seq;
	wnnc_async_add(ctx, r);
	return WEBNN_STATUS_OK;
}

enum webnn_status webnn_context_read_tensor_async(struct webnn_context *ctx,
						  struct webnn_tensor *tensor, void *data,
						  size_t size, webnn_read_cb cb, void *user_data)
{
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = read_async_locked(ctx, tensor, data, size, cb, user_data);
	wnnc_unlock(ctx);
	return s;
}

/* ---- webnn_tensor_map / webnn_tensor_unmap (a libwebnn extension, not in the spec) */

static enum webnn_status map_locked(struct webnn_context *ctx, struct webnn_tensor *t,
				    void **ptr, size_t *size)
{
	const char *what = "webnn_tensor_map";
	enum webnn_status s = wnnc_check_live(ctx, what);
	if (s != WEBNN_STATUS_OK)
		return s;
	if (!t || !ptr)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "%s: %s is NULL", what,
				 t ? "ptr" : "tensor");
	if (t->ctx != ctx || t->destroyed || t->constant ||
	    (!t->desc.readable && !t->desc.writable))
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "%s: tensor %" PRIu32 " %s", what,
				 t->id, t->ctx != ctx ? "belongs to another context"
				 : t->destroyed ? "is destroyed"
				 : t->constant ? "is a constant tensor"
					       : "is neither readable nor writable");
	if (t->mapped)
		return wnnc_fail(ctx, WEBNN_STATUS_INVALID_STATE, "%s: tensor %" PRIu32
				 " is already mapped", what, t->id);
	wnnc_wait_reads(ctx, t);
	uint8_t *mem = t->map;
	if (!mem) {
		/* Kept by the daemon: mapped through a copy (read at map, written at unmap). */
		if (!t->shadow && !(t->shadow = calloc(1, t->bytes ? t->bytes : 1)))
			return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
		mem = t->shadow;
	}
	if (t->desc.readable) {
		/* Ordered like a read: the contents once the work queued before is done. */
		if (t->map) {
			s = read_in_place(ctx, t, what);
		} else {
			s = read_locked(ctx, t, mem, (size_t)t->bytes);
		}
		if (s != WEBNN_STATUS_OK)
			return s;
	} else if (t->map && wnnc_tensor_busy(ctx, t)) {
		/* Write-only: the queued work that uses the storage must be done first. */
		Webnn__Ipc__Flush f = WEBNN__IPC__FLUSH__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		f.context_id = ctx->context_id;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH;
		m.flush = &f;
		if ((s = wnnc_call(ctx, &m, what, NULL)) != WEBNN_STATUS_OK)
			return s;
	}
	t->mapped = true;
	*ptr = mem;
	if (size)
		*size = (size_t)t->bytes;
	return WEBNN_STATUS_OK;
}

enum webnn_status webnn_tensor_map(struct webnn_tensor *tensor, void **ptr, size_t *size)
{
	if (ptr)
		*ptr = NULL;
	if (size)
		*size = 0;
	if (!tensor)
		return WEBNN_STATUS_TYPE_ERROR;
	struct webnn_context *ctx = tensor->ctx;
	wnnc_lock(ctx);
	enum webnn_status s = map_locked(ctx, tensor, ptr, size);
	wnnc_unlock(ctx);
	return s;
}

enum webnn_status webnn_tensor_unmap(struct webnn_tensor *tensor)
{
	if (!tensor)
		return WEBNN_STATUS_TYPE_ERROR;
	struct webnn_context *ctx = tensor->ctx;
	wnnc_lock(ctx);
	enum webnn_status s = WEBNN_STATUS_OK;
	if (!tensor->mapped) {
		s = wnnc_fail(ctx, WEBNN_STATUS_INVALID_STATE,
			      "webnn_tensor_unmap: tensor %" PRIu32 " is not mapped", tensor->id);
		wnnc_unlock(ctx);
		return s;
	}
	tensor->mapped = false;
	if (!tensor->desc.writable || tensor->destroyed) {
		wnnc_unlock(ctx);
		return wnnc_check_live(ctx, "webnn_tensor_unmap");
	}
	if (tensor->map) {
		/* The bytes the caller left are the tensor's contents for the commands after. */
		Webnn__Ipc__WriteTensor wt = WEBNN__IPC__WRITE_TENSOR__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		wt.tensor_id = tensor->id;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_WRITE_TENSOR;
		m.write_tensor = &wt;
		s = wnnc_check_live(ctx, "webnn_tensor_unmap");
		if (s == WEBNN_STATUS_OK)
			s = wnnc_send(ctx, &m, NULL, 0);
		tensor->last_use = ctx->sent_seq;
		wnnc_unlock(ctx);
		return s;
	}
	s = write_locked(ctx, tensor, tensor->shadow, (size_t)tensor->bytes);
	wnnc_unlock(ctx);
	return s;
}

void webnn_tensor_get_desc(const struct webnn_tensor *tensor, struct webnn_tensor_desc *desc)
{
	if (tensor && desc)
		*desc = tensor->desc;
}

/* Drops one reference with the context lock held; true when the caller must free it. */
static bool tensor_unref_locked(struct webnn_tensor *t)
{
	if (--t->refs != 0)
		return false;
	storage_drop(t); /* the daemon's mapping is its own; it goes with the tensor there */
	free(t->shadow);
	t->shadow = NULL;
	return true;
}

void wnnc_tensor_release(struct webnn_tensor *t)
{
	struct webnn_context *ctx = t->ctx;
	wnnc_lock(ctx);
	bool last = tensor_unref_locked(t);
	wnnc_unlock(ctx);
	if (last) {
		free(t);
		wnnc_context_unref(ctx);
	}
}

void webnn_tensor_destroy(struct webnn_tensor *tensor)
{
	if (!tensor)
		return;
	struct webnn_context *ctx = tensor->ctx;
	wnnc_lock(ctx);
	if (tensor->destroyed) {
		wnnc_unlock(ctx);
		return;
	}
	tensor->destroyed = true;
	if (!ctx->lost) {
		Webnn__Ipc__DestroyTensor dt = WEBNN__IPC__DESTROY_TENSOR__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		dt.tensor_id = tensor->id;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_TENSOR;
		m.destroy_tensor = &dt;
		wnnc_send(ctx, &m, NULL, 0);
	}
	wnnc_unlock(ctx);
	wnnc_tensor_release(tensor);
}
