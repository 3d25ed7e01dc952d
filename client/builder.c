/* libwebnn MLGraphBuilder core: arena, operands, labels, appending and validating operations. */
#include "client/builder.h"

#include <inttypes.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- builder arena: operation messages, option arrays and operands live until destroy */

struct wnnc_arena_block {
	struct wnnc_arena_block *next;
	size_t used, cap;
	alignas(max_align_t) unsigned char data[];
};

void *wnnc_arena_alloc(struct webnn_builder *b, size_t size)
{
	size = (size + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
	struct wnnc_arena_block *blk = b->arena;
	if (!blk || blk->cap - blk->used < size) {
		size_t cap = size > 16384 ? size : 16384;
		blk = calloc(1, sizeof(*blk) + cap);
		if (!blk)
			return NULL;
		blk->cap = cap;
		blk->next = b->arena;
		b->arena = blk;
	}
	void *p = blk->data + blk->used;
	blk->used += size;
	memset(p, 0, size);
	return p;
}

struct wnnc_arena_mark wnnc_arena_mark(const struct webnn_builder *b)
{
	return (struct wnnc_arena_mark){ b->arena, b->arena ? b->arena->used : 0 };
}

void wnnc_arena_reset(struct webnn_builder *b, struct wnnc_arena_mark m)
{
	while (b->arena && b->arena != m.block) {
		struct wnnc_arena_block *next = b->arena->next;
		free(b->arena);
		b->arena = next;
	}
	if (b->arena)
		b->arena->used = m.used;
}

void *wnnc_arena_dup(struct webnn_builder *b, const void *src, size_t size)
{
	void *p = wnnc_arena_alloc(b, size ? size : 1);
	if (p && size)
		memcpy(p, src, size);
	return p;
}

/* ---- builder lifetime */

enum webnn_status webnn_builder_create(struct webnn_context *ctx, struct webnn_builder **out)
{
	if (out)
		*out = NULL;
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = wnnc_check_live(ctx, "MLGraphBuilder");
	if (s == WEBNN_STATUS_OK && !out)
		s = wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "MLGraphBuilder: out is NULL");
	if (s == WEBNN_STATUS_OK) {
		struct webnn_builder *b = calloc(1, sizeof(*b));
		if (!b) {
			s = wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "MLGraphBuilder: out of memory");
		} else {
			b->ctx = ctx;
			ctx->refs++;
			*out = b;
		}
	}
	wnnc_unlock(ctx);
	return s;
}

void webnn_builder_destroy(struct webnn_builder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n_operands; i++) {
		struct webnn_operand *o = b->operands[i];
		if (!o->borrowed)
			free(o->data);
		if (o->tensor)
			wnnc_tensor_release(o->tensor);
	}
	wnnc_arena_reset(b, (struct wnnc_arena_mark){ NULL, 0 });
	free(b->operands);
	free(b->descs);
	free(b->ops);
	free(b->next_label);
	struct webnn_context *ctx = b->ctx;
	free(b);
	wnnc_context_unref(ctx);
}

void webnn_operand_get_desc(const struct webnn_operand *op, struct webnn_operand_desc *desc)
{
	if (!op || !desc)
		return;
	memset(desc, 0, sizeof(*desc));
	desc->data_type = (enum webnn_data_type)op->desc.type;
	desc->rank = op->desc.rank;
	memcpy(desc->shape, op->desc.dims, sizeof(uint32_t) * op->desc.rank);
}

/* ---- shared steps of every builder method */

enum webnn_status wnnc_enter(struct webnn_builder *b, const char *what, const void *out)
{
	struct webnn_context *ctx = b->ctx;
	wnnc_lock(ctx);
	enum webnn_status s = wnnc_check_live(ctx, what);
	if (s != WEBNN_STATUS_OK)
		return s;
	if (b->built)
		return wnnc_fail(ctx, WEBNN_STATUS_INVALID_STATE,
				 "%s: the builder has already built its graph", what);
	if (!out)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "%s: out is NULL", what);
	return WEBNN_STATUS_OK;
}

void wnnc_leave(struct webnn_builder *b, enum webnn_status s, bool consume_label)
{
	struct webnn_context *ctx = b->ctx;
	if (consume_label && b->next_label) {
		/* Messages from the shared validation already name the label. */
		char tail[WNNC_MSG_MAX];
		snprintf(tail, sizeof(tail), " (operator \"%s\")", b->next_label);
		size_t len = strlen(ctx->last_error);
		if (s != WEBNN_STATUS_OK && s != WEBNN_STATUS_CONTEXT_LOST &&
		    !strstr(ctx->last_error, tail) && len + strlen(tail) < sizeof(ctx->last_error))
			memcpy(ctx->last_error + len, tail, strlen(tail) + 1);
		free(b->next_label);
		b->next_label = NULL;
	}
	wnnc_unlock(ctx);
}

enum webnn_status webnn_builder_set_next_label(struct webnn_builder *b, const char *label)
{
	if (!b)
		return WEBNN_STATUS_TYPE_ERROR;
	struct webnn_context *ctx = b->ctx;
	wnnc_lock(ctx);
	enum webnn_status s = WEBNN_STATUS_OK;
	char *copy = NULL;
	if (b->built)
		s = wnnc_fail(ctx, WEBNN_STATUS_INVALID_STATE,
			      "setNextLabel: the builder has already built its graph");
	else if (label && *label && !(copy = strdup(label)))
		s = wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "setNextLabel: out of memory");
	if (s == WEBNN_STATUS_OK) {
		free(b->next_label);
		b->next_label = copy;
	}
	wnnc_unlock(ctx);
	return s;
}

enum webnn_status wnnc_use(struct webnn_builder *b, const char *what, const char *role,
			   const struct webnn_operand *o)
{
	if (!o)
		return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "%s: operand %s is NULL", what,
				 role);
	if (o->builder != b)
		return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
				 "%s: operand %s belongs to another builder", what, role);
	return WEBNN_STATUS_OK;
}

static bool reserve_operands(struct webnn_builder *b, size_t n)
{
	if (b->n_operands + n <= b->cap_operands)
		return true;
	size_t cap = b->cap_operands ? b->cap_operands * 2 : 32;
	while (cap < b->n_operands + n)
		cap *= 2;
	struct webnn_operand **ops = realloc(b->operands, cap * sizeof(*ops));
	if (!ops)
		return false;
	b->operands = ops;
	struct wnn_desc *descs = realloc(b->descs, cap * sizeof(*descs));
	if (!descs)
		return false;
	b->descs = descs;
	b->cap_operands = cap;
	return true;
}

static struct webnn_operand *new_operand(struct webnn_builder *b, enum wnnc_operand_kind kind,
					 const struct wnn_desc *d)
{
	if (!reserve_operands(b, 1))
		return NULL;
	struct webnn_operand *o = wnnc_arena_alloc(b, sizeof(*o));
	if (!o)
		return NULL;
	o->builder = b;
	o->id = (uint32_t)b->n_operands;
	o->kind = kind;
	o->desc = *d;
	o->producer = -1;
	b->operands[b->n_operands] = o;
	b->descs[b->n_operands] = *d;
	b->n_operands++;
	return o;
}

Webnn__Ipc__Operation *wnnc_new_op(struct webnn_builder *b, enum wnn_op op, void **attrs)
{
	Webnn__Ipc__Operation *o = wnnc_arena_alloc(b, sizeof(*o));
	if (!o)
		return NULL;
	webnn__ipc__operation__init(o);
	o->op = wnn_ops[op].id;
	o->attrs_case = (Webnn__Ipc__Operation__AttrsCase)wnn_ops[op].attrs;
	const ProtobufCFieldDescriptor *f =
		protobuf_c_message_descriptor_get_field(&webnn__ipc__operation__descriptor,
							(unsigned)o->attrs_case);
	if (!f)
		return NULL;
	const ProtobufCMessageDescriptor *md = f->descriptor;
	void *m = wnnc_arena_alloc(b, md->sizeof_message);
	if (!m)
		return NULL;
	protobuf_c_message_init(md, m);
	*(void **)((char *)o + f->offset) = m;
	*attrs = m;
	if (b->next_label) {
		o->label = wnnc_arena_dup(b, b->next_label, strlen(b->next_label) + 1);
		if (!o->label)
			return NULL;
	}
	return o;
}

enum webnn_status wnnc_finish_n(struct webnn_builder *b, const char *what,
				Webnn__Ipc__Operation *op, struct webnn_operand **outs,
				size_t max_outs, size_t *n_outs)
{
	uint32_t out_ids[WNN_MAX_OUTPUTS];
	int n_out = wnn_op_outputs(op, out_ids, WNN_MAX_OUTPUTS);
	if (n_out < 0 || !reserve_operands(b, (size_t)n_out))
		return wnnc_fail(b->ctx, n_out < 0 ? WEBNN_STATUS_OPERATION_ERROR
						   : WEBNN_STATUS_NO_MEMORY,
				 "%s: cannot describe the operation's outputs", what);
	for (int i = 0; i < n_out; i++)
		b->descs[b->n_operands + (size_t)i] = (struct wnn_desc){ .type = WNN_DT_NONE };
	struct wnn_desc inferred[WNN_MAX_OUTPUTS];
	int n_inferred = 0;
	struct wnn_diag diag;
	wnn_diag_clear(&diag);
	/* An operation listing no outputs (an invalid split count) still runs the spec checks,
	 * so the caller gets their message. */
	enum webnn_status s = wnn_op_infer(op, b->descs, b->n_operands + (size_t)n_out, inferred,
					   WNN_MAX_OUTPUTS, &n_inferred, &diag);
	if (s != WEBNN_STATUS_OK)
		return wnnc_fail(b->ctx, s, "%s", diag.message[0] ? diag.message : what);
	if (n_inferred != n_out || n_out < 1)
		return wnnc_fail(b->ctx, WEBNN_STATUS_OPERATION_ERROR,
				 "%s: inferred %d outputs, the operation has %d", what, n_inferred,
				 n_out);
	if ((size_t)n_out > max_outs)
		return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
				 "%s: the operator returns %d operands, outs has room for %zu", what,
				 n_out, max_outs);
	/* An output no tensor of this context could hold is refused here, where the caller can
	 * still see which operator made it, rather than when the graph is built. */
	uint64_t max_bytes = b->ctx->support.max_tensor_byte_length;
	for (int i = 0; i < n_out && max_bytes; i++) {
		uint64_t bytes = 0;
		if (!wnn_desc_bytes(&inferred[i], &bytes) || bytes > max_bytes)
			return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
					 "%s: output %d's byte length exceeds the context's "
					 "maxTensorByteLength %" PRIu64, what, i, max_bytes);
	}
	if (b->n_ops == b->cap_ops) {
		size_t cap = b->cap_ops ? b->cap_ops * 2 : 32;
		Webnn__Ipc__Operation **ops = realloc(b->ops, cap * sizeof(*ops));
		if (!ops)
			return wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
		b->ops = ops;
		b->cap_ops = cap;
	}
	size_t first = b->n_operands;
	for (int i = 0; i < n_out; i++) {
		struct webnn_operand *o = new_operand(b, WNNC_OUTPUT, &inferred[i]);
		if (!o) {
			b->n_operands = first;
			return wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
		}
		o->producer = (int32_t)b->n_ops;
	}
	b->ops[b->n_ops++] = op;
	for (int i = 0; i < n_out; i++)
		outs[i] = b->operands[first + (size_t)i];
	if (n_outs)
		*n_outs = (size_t)n_out;
	return WEBNN_STATUS_OK;
}

enum webnn_status wnnc_finish(struct webnn_builder *b, const char *what,
			      Webnn__Ipc__Operation *op, struct webnn_operand **out)
{
	return wnnc_finish_n(b, what, op, out, 1, NULL);
}

enum webnn_status wnnc_opt_array(struct webnn_builder *b, const char *what, const char *name,
				 const uint32_t *values, uint32_t n, uint32_t cap,
				 size_t *n_out, uint32_t **out)
{
	if (n > cap)
		return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "%s: %s has %" PRIu32
				 " values, expected at most %" PRIu32, what, name, n, cap);
	*n_out = n;
	*out = n ? wnnc_arena_dup(b, values, n * sizeof(uint32_t)) : NULL;
	if (n && !*out)
		return wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
	return WEBNN_STATUS_OK;
}

/* ---- operands without an operator */

enum webnn_status webnn_builder_input(struct webnn_builder *b, const char *name,
				      const struct webnn_operand_desc *desc,
				      struct webnn_operand **out)
{
	WNNC_OPERAND_BEGIN("input")
	if (!name || !*name) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "input: the name is empty");
		goto done;
	}
	for (size_t i = 0; i < b->n_operands; i++) {
		const struct webnn_operand *o = b->operands[i];
		if (o->kind == WNNC_INPUT && strcmp(o->name, name) == 0) {
			s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
				      "input: duplicate input name \"%s\"", name);
			goto done;
		}
	}
	if (!desc) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "input \"%s\": descriptor is NULL",
			      name);
		goto done;
	}
	struct wnn_desc d = { .type = (enum wnn_dtype)desc->data_type, .rank = desc->rank };
	if (desc->rank <= WNN_MAX_RANK)
		memcpy(d.dims, desc->shape, sizeof(uint32_t) * desc->rank);
	struct wnn_diag diag;
	wnn_diag_clear(&diag);
	if (!wnn_desc_validate(&d, "input", &diag)) {
		s = wnnc_fail(b->ctx, diag.status, "%s (input \"%s\")", diag.message, name);
		goto done;
	}
	char *copy = wnnc_arena_dup(b, name, strlen(name) + 1);
	struct webnn_operand *o = copy ? new_operand(b, WNNC_INPUT, &d) : NULL;
	if (!o) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "input: out of memory");
		goto done;
	}
	o->name = copy;
	*out = o;
	WNNC_OP_END
}

static enum webnn_status constant(struct webnn_builder *b, const struct webnn_operand_desc *desc,
				  const void *data, size_t size, bool borrow,
				  void (*sent)(void *arg, const void *data, size_t size), void *arg,
				  struct webnn_operand **out)
{
	WNNC_OPERAND_BEGIN("constant")
	if (!desc || !data) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "constant: %s is NULL",
			      desc ? "data" : "descriptor");
		goto done;
	}
	struct wnn_desc d = { .type = (enum wnn_dtype)desc->data_type, .rank = desc->rank };
	if (desc->rank <= WNN_MAX_RANK)
		memcpy(d.dims, desc->shape, sizeof(uint32_t) * desc->rank);
	struct wnn_diag diag;
	wnn_diag_clear(&diag);
	if (!wnn_desc_validate(&d, "constant", &diag)) {
		s = wnnc_fail(b->ctx, diag.status, "%s", diag.message);
		goto done;
	}
	uint64_t bytes = 0;
	wnn_desc_bytes(&d, &bytes);
	if (size != bytes) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
			      "constant: data is %zu bytes, the descriptor's byte length is %" PRIu64,
			      size, bytes);
		goto done;
	}
	void *copy = borrow ? (void *)data : malloc(size);
	struct webnn_operand *o = copy ? new_operand(b, WNNC_CONSTANT, &d) : NULL;
	if (!o) {
		if (!borrow)
			free(copy);
		s = wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "constant: out of memory");
		goto done;
	}
	if (!borrow)
		memcpy(copy, data, size);
	o->data = copy;
	o->size = size;
	o->borrowed = borrow;
	o->sent = sent;
	o->sent_arg = arg;
	*out = o;
	WNNC_OP_END
}

enum webnn_status webnn_builder_constant(struct webnn_builder *b,
					 const struct webnn_operand_desc *desc, const void *data,
					 size_t size, struct webnn_operand **out)
{
	return constant(b, desc, data, size, false, NULL, NULL, out);
}

enum webnn_status webnn_builder_constant_borrowed(
	struct webnn_builder *b, const struct webnn_operand_desc *desc, const void *data,
	size_t size, void (*sent)(void *arg, const void *data, size_t size), void *arg,
	struct webnn_operand **out)
{
	return constant(b, desc, data, size, true, sent, arg, out);
}

static enum webnn_status scalar(struct webnn_builder *b, enum webnn_data_type type,
				const Webnn__Ipc__Number *value, struct webnn_operand **out)
{
	WNNC_OPERAND_BEGIN("constant")
	if (!wnn_dtype_valid((enum wnn_dtype)type)) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "constant: unknown data type %d",
			      (int)type);
		goto done;
	}
	struct wnn_desc d = { .type = (enum wnn_dtype)type, .rank = 0 };
	struct webnn_operand *o = new_operand(b, WNNC_SCALAR, &d);
	if (!o) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "constant: out of memory");
		goto done;
	}
	o->scalar = *value;
	*out = o;
	WNNC_OP_END
}

enum webnn_status webnn_builder_constant_scalar(struct webnn_builder *b, enum webnn_data_type type,
						double value, struct webnn_operand **out)
{
	Webnn__Ipc__Number n = WEBNN__IPC__NUMBER__INIT;
	n.value_case = WEBNN__IPC__NUMBER__VALUE_F;
	n.f = value;
	return scalar(b, type, &n, out);
}

enum webnn_status webnn_builder_constant_scalar_int(struct webnn_builder *b,
						    enum webnn_data_type type, int64_t value,
						    struct webnn_operand **out)
{
	Webnn__Ipc__Number n = WEBNN__IPC__NUMBER__INIT;
	n.value_case = WEBNN__IPC__NUMBER__VALUE_I;
	n.i = value;
	return scalar(b, type, &n, out);
}

enum webnn_status webnn_builder_constant_tensor(struct webnn_builder *b,
						struct webnn_tensor *tensor,
						struct webnn_operand **out)
{
	WNNC_OPERAND_BEGIN("constant")
	if (!tensor) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "constant: tensor is NULL");
		goto done;
	}
	if (tensor->ctx != b->ctx) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
			      "constant: the tensor belongs to another context");
		goto done;
	}
	if (tensor->destroyed || !tensor->constant) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "constant: the tensor %s",
			      tensor->destroyed ? "is destroyed"
						: "was not created by createConstantTensor");
		goto done;
	}
	struct wnn_desc d = { .type = (enum wnn_dtype)tensor->desc.desc.data_type,
			      .rank = tensor->desc.desc.rank };
	memcpy(d.dims, tensor->desc.desc.shape, sizeof(uint32_t) * d.rank);
	struct webnn_operand *o = new_operand(b, WNNC_CONSTANT_TENSOR, &d);
	if (!o) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "constant: out of memory");
		goto done;
	}
	o->tensor = tensor;
	tensor->refs++; /* same context: its lock is held */
	*out = o;
	WNNC_OP_END
}

/* ---- option helpers shared by the families */

enum webnn_status wnnc_number(struct webnn_builder *b, const char *what, const char *name,
			      const struct webnn_number *exact, bool has_value, double value,
			      Webnn__Ipc__Number **out)
{
	*out = NULL;
	if (exact && ((int)exact->kind < 0 || (int)exact->kind > (int)WEBNN_NUMBER_UINT64))
		return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "%s: %s has unknown number kind %d",
				 what, name, (int)exact->kind);
	if (!has_value && (!exact || exact->kind == WEBNN_NUMBER_NONE))
		return WEBNN_STATUS_OK;
	Webnn__Ipc__Number *n = wnnc_arena_alloc(b, sizeof(*n));
	if (!n)
		return wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
	webnn__ipc__number__init(n);
	switch (exact ? exact->kind : WEBNN_NUMBER_NONE) {
	case WEBNN_NUMBER_DOUBLE:
		n->value_case = WEBNN__IPC__NUMBER__VALUE_F;
		n->f = exact->value.f;
		break;
	case WEBNN_NUMBER_INT64:
		n->value_case = WEBNN__IPC__NUMBER__VALUE_I;
		n->i = exact->value.i;
		break;
	case WEBNN_NUMBER_UINT64:
		n->value_case = WEBNN__IPC__NUMBER__VALUE_U;
		n->u = exact->value.u;
		break;
	default:
		n->value_case = WEBNN__IPC__NUMBER__VALUE_F;
		n->f = value;
		break;
	}
	*out = n;
	return WEBNN_STATUS_OK;
}

enum webnn_status wnnc_check_enum(struct webnn_builder *b, const char *what,
				  const char *name, int value, int count)
{
	if (value < 0 || value >= count)
		return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "%s: unknown %s %d", what, name,
				 value);
	return WEBNN_STATUS_OK;
}

enum webnn_status wnnc_shape_arg(struct webnn_builder *b, const char *what, const char *name,
				 const uint32_t *values, uint32_t rank, size_t *n_out,
				 uint32_t **out)
{
	if (rank > WNN_MAX_RANK)
		return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
				 "%s: %s has rank %" PRIu32 ", above the maximum rank %d", what,
				 name, rank, WNN_MAX_RANK);
	if (rank && !values)
		return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "%s: %s is NULL", what, name);
	return wnnc_opt_array(b, what, name, values, rank, WNN_MAX_RANK, n_out, out);
}

/* An optional operand option: validated and recorded as (has, id). */
enum webnn_status wnnc_opt_operand(struct webnn_builder *b, const char *what, const char *role,
				   const struct webnn_operand *o, protobuf_c_boolean *has,
				   uint32_t *id)
{
	if (!o)
		return WEBNN_STATUS_OK;
	enum webnn_status s = wnnc_use(b, what, role, o);
	if (s == WEBNN_STATUS_OK) {
		*has = true;
		*id = o->id;
	}
	return s;
}

/* A list argument of at most cap values; values may be NULL only for an empty list. */
enum webnn_status wnnc_list_arg(struct webnn_builder *b, const char *what, const char *name,
				const uint32_t *values, uint32_t n, uint32_t cap, size_t *n_out,
				uint32_t **out)
{
	if (n && !values)
		return wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "%s: %s is NULL with %" PRIu32
				 " values", what, name, n);
	return wnnc_opt_array(b, what, name, values, n, cap, n_out, out);
}

/* Output ids n_operands .. n_operands + n - 1 for an operator returning a sequence. */
enum webnn_status wnnc_output_list(struct webnn_builder *b, const char *what, size_t n,
				   size_t *n_out, uint32_t **out)
{
	*n_out = n;
	*out = NULL;
	if (!n)
		return WEBNN_STATUS_OK;
	*out = wnnc_arena_alloc(b, n * sizeof(uint32_t));
	if (!*out)
		return wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
	for (size_t i = 0; i < n; i++)
		(*out)[i] = (uint32_t)(b->n_operands + i);
	return WEBNN_STATUS_OK;
}

