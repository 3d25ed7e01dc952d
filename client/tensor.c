/* libwebnn tensors (MLTensor): create, constant tensors, write, read, destroy. */
#include "client/client.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

static enum webnn_status create(struct webnn_context *ctx, const struct webnn_operand_desc *desc,
				bool readable, bool writable, const void *data, size_t size,
				struct webnn_tensor **out)
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

	Webnn__Ipc__CreateTensor ct = WEBNN__IPC__CREATE_TENSOR__INIT;
	Webnn__Ipc__OperandDescriptor pd;
	Webnn__Ipc__Data pdata;
	Webnn__Ipc__ShmRange shm;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	wnn_desc_to_pb(&d, &pd);
	ct.context_id = ctx->context_id;
	ct.tensor_id = wnnc_new_id(ctx);
	ct.descriptor = &pd;
	ct.has_readable = ct.has_writable = true;
	ct.readable = readable;
	ct.writable = writable;
	if (data) {
		ct.has_constant = true;
		ct.constant = true;
		uint64_t serial;
		s = wnnc_put_data(ctx, data, size, what, &pdata, &shm, &serial);
		if (s != WEBNN_STATUS_OK) {
			free(t);
			return s;
		}
		ct.data = &pdata;
		m.has_serial = serial != 0;
		m.serial = serial; /* CreateTensor always waits, so the arena is free after */
	}
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_TENSOR;
	m.create_tensor = &ct;
	s = wnnc_call(ctx, &m, what, NULL);
	if (s != WEBNN_STATUS_OK) {
		free(t);
		return s;
	}
	t->ctx = ctx;
	t->refs = 1;
	t->id = ct.tensor_id;
	t->desc.desc = *desc;
	t->desc.readable = readable;
	t->desc.writable = writable;
	t->constant = data != NULL;
	t->bytes = bytes;
	ctx->refs++;
	*out = t;
	return WEBNN_STATUS_OK;
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
		s = create(ctx, &desc->desc, desc->readable, desc->writable, NULL, 0, out);
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
		s = create(ctx, desc, false, false, data, size, out);
	wnnc_unlock(ctx);
	return s;
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

enum webnn_status webnn_context_write_tensor(struct webnn_context *ctx, struct webnn_tensor *tensor,
					     const void *data, size_t size)
{
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = check_tensor(ctx, tensor, data, size, "writeTensor", true);
	if (s == WEBNN_STATUS_OK) {
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
		}
	}
	wnnc_unlock(ctx);
	return s;
}

enum webnn_status webnn_context_read_tensor(struct webnn_context *ctx, struct webnn_tensor *tensor,
					    void *data, size_t size)
{
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = check_tensor(ctx, tensor, data, size, "readTensor", false);
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
	return --t->refs == 0;
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
