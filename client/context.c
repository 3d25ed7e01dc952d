/* libwebnn contexts: creation, info and op support limits, loss, events, flush; status names. */
#include "client/client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *webnn_status_name(enum webnn_status s)
{
	switch (s) {
#define WNNC_NAME_(name, code, dom, text) case WEBNN_STATUS_##name: return dom;
		WEBNN_STATUS_MAP(WNNC_NAME_)
#undef WNNC_NAME_
	}
	return "UnknownError";
}

const char *webnn_status_string(enum webnn_status s)
{
	switch (s) {
#define WNNC_TEXT_(name, code, dom, text) case WEBNN_STATUS_##name: return text;
		WEBNN_STATUS_MAP(WNNC_TEXT_)
#undef WNNC_TEXT_
	}
	return "unknown status";
}

size_t webnn_data_type_size(enum webnn_data_type t)
{
	return wnn_dtype_size((enum wnn_dtype)t);
}

uint64_t webnn_data_type_byte_length(enum webnn_data_type t, uint64_t count)
{
	uint64_t bytes = 0;
	return wnn_dtype_bytes((enum wnn_dtype)t, count, &bytes) ? bytes : 0;
}

const char *webnn_data_type_name(enum webnn_data_type t)
{
	return wnn_dtype_valid((enum wnn_dtype)t) ? wnn_dtype_name((enum wnn_dtype)t) : NULL;
}

void webnn_int4_pack(const int8_t *values, size_t count, void *packed)
{
	uint8_t *p = packed;
	if (count & 1)
		p[count / 2] = 0;
	for (size_t i = 0; i < count; i++)
		wnn_nibble_set(p, i, values[i]);
}

void webnn_int4_unpack(enum webnn_data_type t, const void *packed, size_t count, int8_t *values)
{
	for (size_t i = 0; i < count; i++)
		values[i] = (int8_t)wnn_nibble_get(packed, i, (enum wnn_dtype)t);
}

float webnn_float16_to_float32(uint16_t h)
{
	return wnn_f16_to_f32(h);
}

uint16_t webnn_float32_to_float16(float f)
{
	return wnn_f32_to_f16(f);
}

void wnnc_context_free(struct webnn_context *ctx)
{
	wnnc_disconnect(ctx);
	for (size_t i = 0; i < sizeof(ctx->info_strings) / sizeof(ctx->info_strings[0]); i++)
		free(ctx->info_strings[i]);
	for (size_t i = 0; i < ctx->n_op_limits; i++)
		free(ctx->op_limits[i].role);
	free(ctx->op_limits);
	webnn_devices_free(ctx->devices, ctx->n_devices);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

void wnnc_context_unref(struct webnn_context *ctx)
{
	wnnc_lock(ctx);
	bool last = --ctx->refs == 0;
	wnnc_unlock(ctx);
	if (last)
		wnnc_context_free(ctx);
}

static struct webnn_tensor_limits limits_from_pb(uint32_t types, uint32_t min, uint32_t max)
{
	return (struct webnn_tensor_limits){ types, min, max };
}

/* Copies ContextInfo into the context; false when out of memory. */
static bool keep_info(struct webnn_context *ctx, const Webnn__Ipc__ContextInfo *ci)
{
	const char *src[5] = { ci->device_name, ci->device_type, ci->platform_name,
			       ci->driver_version, ci->backend };
	for (int i = 0; i < 5; i++)
		if (!(ctx->info_strings[i] = strdup(src[i] ? src[i] : "")))
			return false;
	ctx->info.accelerated = ci->accelerated;
	ctx->storage_align = ci->has_storage_align ? ci->storage_align : 0;
	ctx->info.device_name = ctx->info_strings[0];
	ctx->info.device_type = ctx->info_strings[1];
	ctx->info.platform_name = ctx->info_strings[2];
	ctx->info.driver_version = ctx->info_strings[3];
	ctx->info.backend = ctx->info_strings[4];

	const Webnn__Ipc__SupportLimits *l = ci->limits;
	ctx->support.preferred_input_layout = l->preferred_input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC
						      ? WEBNN_LAYOUT_NHWC
						      : WEBNN_LAYOUT_NCHW;
	ctx->support.max_tensor_byte_length = l->max_tensor_byte_length;
	ctx->support.input = limits_from_pb(l->input_data_types, l->min_rank, l->max_rank);
	ctx->support.constant = limits_from_pb(l->constant_data_types, l->min_rank, l->max_rank);
	ctx->support.output = limits_from_pb(l->output_data_types, l->min_rank, l->max_rank);
	if (l->n_ops && !(ctx->op_limits = calloc(l->n_ops, sizeof(*ctx->op_limits))))
		return false;
	for (size_t i = 0; i < l->n_ops; i++) {
		const Webnn__Ipc__TensorLimit *t = l->ops[i];
		enum wnn_op op = wnn_op_from_id(t->op);
		if (op == WNN_OP_COUNT || !t->role)
			continue; /* an operator newer than this library: not usable from here */
		struct wnnc_op_limit *e = &ctx->op_limits[ctx->n_op_limits];
		if (!(e->role = strdup(t->role)))
			return false;
		e->op = wnn_ops[op].name;
		e->limits = limits_from_pb(t->data_types, t->min_rank, t->max_rank);
		ctx->n_op_limits++;
	}
	return true;
}

static void copy_msg(char *dst, size_t len, const char *src)
{
	if (dst && len)
		snprintf(dst, len, "%s", src);
}

static const char *socket_path_of(const char *socket_path)
{
	const char *path = socket_path;
	if (!path || !*path)
		path = getenv("WEBNN_SOCKET");
	if (!path || !*path)
		path = WEBNN_DEFAULT_SOCKET;
	return path;
}

static struct webnn_context *context_alloc(void)
{
	struct webnn_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	pthread_mutex_init(&ctx->lock, NULL);
	ctx->refs = 1;
	ctx->sock = -1;
	ctx->arena_fd = -1;
	ctx->pending_tail = &ctx->pending;
	ctx->done_tail = &ctx->done;
	ctx->next_id = 1;
	ctx->next_serial = 1;
	return ctx;
}

/* A connection to webnnd at socket_path (NULL: $WEBNN_SOCKET, else the default) after the
 * handshake, in a new context object that has no context on the daemon yet. */
static enum webnn_status connect_new(const char *socket_path, const char *client_name,
				     const char *what, struct webnn_context **out,
				     char *last_error, size_t len)
{
	const char *path = socket_path_of(socket_path);
	struct webnn_context *ctx = context_alloc();
	if (!ctx) {
		if (last_error && len)
			snprintf(last_error, len, "%s: out of memory", what);
		return WEBNN_STATUS_NO_MEMORY;
	}
	char msg[WNNC_MSG_MAX];
	enum webnn_status s = wnnc_connect(ctx, path, client_name, msg, sizeof(msg));
	if (s != WEBNN_STATUS_OK) {
		copy_msg(last_error, len, msg);
		wnnc_context_free(ctx);
		return s;
	}
	*out = ctx;
	return WEBNN_STATUS_OK;
}

/* The options as given (NULL: defaults); TYPE_ERROR for an uninitialised struct. */
static enum webnn_status options_in(const struct webnn_context_options *options,
				    struct webnn_context_options *o, char *last_error, size_t len)
{
	*o = (struct webnn_context_options)WEBNN_CONTEXT_OPTIONS_INIT;
	if (options) {
		if (options->struct_size == 0) {
			copy_msg(last_error, len, "createContext: options.struct_size is 0 "
						  "(initialise with WEBNN_CONTEXT_OPTIONS_INIT)");
			return WEBNN_STATUS_TYPE_ERROR;
		}
		memcpy(o, options, options->struct_size < sizeof(*o) ? options->struct_size
								     : sizeof(*o));
	}
	return WEBNN_STATUS_OK;
}

/* Sends CreateContext under a fresh context id; *serial is its reply's. */
static enum webnn_status send_create_context(struct webnn_context *ctx,
					     const struct webnn_context_options *o,
					     uint64_t *serial)
{
	Webnn__Ipc__CreateContext cc = WEBNN__IPC__CREATE_CONTEXT__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	ctx->context_id = wnnc_new_id(ctx);
	cc.context_id = ctx->context_id;
	cc.has_power_preference = true;
	cc.power_preference = o->power_preference == WEBNN_POWER_HIGH_PERFORMANCE
				      ? WEBNN__IPC__POWER_PREFERENCE__HIGH_PERFORMANCE
			      : o->power_preference == WEBNN_POWER_LOW_POWER
				      ? WEBNN__IPC__POWER_PREFERENCE__LOW_POWER
				      : WEBNN__IPC__POWER_PREFERENCE__POWER_DEFAULT;
	cc.has_accelerated = true;
	cc.accelerated = o->accelerated;
	m.has_serial = true;
	m.serial = *serial = wnnc_new_serial(ctx);
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONTEXT;
	m.create_context = &cc;
	return wnnc_send(ctx, &m, NULL, 0);
}

/* Keeps CreateContext's reply (ContextInfo); the error (last_error set) otherwise. */
static enum webnn_status context_reply(struct webnn_context *ctx, const Webnn__Ipc__Reply *r)
{
	if (r->error)
		return wnnc_fail(ctx, wnnc_status_from_error(r->error), "%s",
				 r->error->message ? r->error->message : "createContext");
	if (r->body_case != WEBNN__IPC__REPLY__BODY_CONTEXT || !r->context->limits)
		return wnnc_fail(ctx, WEBNN_STATUS_PROTOCOL_ERROR,
				 "createContext: webnnd's reply carries no ContextInfo");
	if (!keep_info(ctx, r->context))
		return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "createContext: out of memory");
	ctx->ready = true;
	return WEBNN_STATUS_OK;
}

enum webnn_status webnn_context_create(const struct webnn_context_options *options,
				       struct webnn_context **out, char *last_error, size_t len)
{
	struct webnn_context_options o;
	if (out)
		*out = NULL;
	if (!out) {
		copy_msg(last_error, len, "createContext: out is NULL");
		return WEBNN_STATUS_TYPE_ERROR;
	}
	enum webnn_status s = options_in(options, &o, last_error, len);
	if (s != WEBNN_STATUS_OK)
		return s;
	const char *name = o.client_name ? o.client_name : program_invocation_short_name;
	struct webnn_context *ctx;
	s = connect_new(o.socket_path, name, "createContext", &ctx, last_error, len);
	if (s != WEBNN_STATUS_OK)
		return s;
	uint64_t serial = 0;
	Webnn__Ipc__ServerMessage *reply = NULL;
	s = send_create_context(ctx, &o, &serial);
	if (s == WEBNN_STATUS_OK)
		s = wnnc_wait_reply(ctx, serial, "createContext", &reply);
	if (s == WEBNN_STATUS_OK)
		s = context_reply(ctx, reply->reply);
	if (reply)
		webnn__ipc__server_message__free_unpacked(reply, NULL);
	if (s != WEBNN_STATUS_OK) {
		if (s == WEBNN_STATUS_CONTEXT_LOST)
			s = WEBNN_STATUS_NOT_SUPPORTED; /* there never was a context to lose */
		copy_msg(last_error, len, ctx->last_error);
		wnnc_context_free(ctx);
		return s;
	}
	*out = ctx;
	return WEBNN_STATUS_OK;
}

void wnnc_context_answered(struct webnn_context *ctx, struct wnnc_async *a,
			   const Webnn__Ipc__Reply *reply)
{
	a->status = context_reply(ctx, reply);
	snprintf(a->message, sizeof(a->message), "%s",
		 a->status == WEBNN_STATUS_OK ? "" : ctx->last_error);
	ctx->call_failed = false;
}

enum webnn_status webnn_context_create_async(const struct webnn_context_options *options,
					     struct webnn_context **out, webnn_context_cb cb,
					     void *user_data, char *last_error, size_t len)
{
	struct webnn_context_options o;
	if (out)
		*out = NULL;
	if (!out || !cb) {
		copy_msg(last_error, len, !out ? "createContext: out is NULL"
					       : "createContext: the callback is NULL");
		return WEBNN_STATUS_TYPE_ERROR;
	}
	enum webnn_status s = options_in(options, &o, last_error, len);
	if (s != WEBNN_STATUS_OK)
		return s;
	const char *name = o.client_name ? o.client_name : program_invocation_short_name;
	struct webnn_context *ctx = context_alloc();
	struct wnnc_async *hello = calloc(1, sizeof(*hello)), *cc = calloc(1, sizeof(*cc));
	if (!ctx || !hello || !cc) {
		free(hello);
		free(cc);
		if (ctx)
			wnnc_context_free(ctx);
		copy_msg(last_error, len, "createContext: out of memory");
		return WEBNN_STATUS_NO_MEMORY;
	}
	char msg[WNNC_MSG_MAX];
	s = wnnc_open_socket(ctx, socket_path_of(o.socket_path), msg, sizeof(msg));
	if (s != WEBNN_STATUS_OK) {
		copy_msg(last_error, len, msg);
		free(hello);
		free(cc);
		wnnc_context_free(ctx);
		return s;
	}
	/* Hello and CreateContext go together: the daemon handles a connection's requests in
	 * order, so CreateContext is answered after the handshake (or fails with it). */
	wnnc_lock(ctx);
	hello->kind = WNNC_ASYNC_HELLO;
	cc->kind = WNNC_ASYNC_CONTEXT;
	cc->context_cb = cb;
	cc->user_data = user_data;
	s = wnnc_send_hello(ctx, name, &hello->serial);
	if (s == WEBNN_STATUS_OK)
		s = send_create_context(ctx, &o, &cc->serial);
	if (s != WEBNN_STATUS_OK) {
		snprintf(msg, sizeof(msg), "webnnd handshake failed: %.400s",
			 ctx->lost ? ctx->lost_message : ctx->last_error);
		pthread_mutex_unlock(&ctx->lock);
		free(hello);
		free(cc);
		wnnc_context_free(ctx);
		copy_msg(last_error, len, msg);
		return WEBNN_STATUS_NOT_SUPPORTED;
	}
	wnnc_async_add(ctx, hello);
	wnnc_async_add(ctx, cc);
	wnnc_unlock(ctx);
	*out = ctx;
	return WEBNN_STATUS_OK;
}

enum webnn_status webnn_list_devices(const char *socket_path, struct webnn_device_info **out,
				     size_t *n, char *last_error, size_t len)
{
	if (!out || !n) {
		copy_msg(last_error, len, "listDevices: out or n is NULL");
		return WEBNN_STATUS_TYPE_ERROR;
	}
	*out = NULL;
	*n = 0;
	struct webnn_context *ctx;
	enum webnn_status s = connect_new(socket_path, program_invocation_short_name,
					  "listDevices", &ctx, last_error, len);
	if (s == WEBNN_STATUS_OK) {
		*out = ctx->devices;
		*n = ctx->n_devices;
		ctx->devices = NULL;
		ctx->n_devices = 0;
		Webnn__Ipc__Goodbye bye = WEBNN__IPC__GOODBYE__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		bye.reason = "devices listed";
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_GOODBYE;
		m.goodbye = &bye;
		wnnc_send(ctx, &m, NULL, 0);
		wnnc_context_free(ctx);
	}
	return s;
}

void webnn_context_destroy(struct webnn_context *ctx)
{
	if (!ctx)
		return;
	wnnc_lock(ctx);
	if (!ctx->destroyed) {
		ctx->destroyed = true;
		if (!ctx->lost) {
			Webnn__Ipc__DestroyContext dc = WEBNN__IPC__DESTROY_CONTEXT__INIT;
			Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
			dc.context_id = ctx->context_id;
			m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONTEXT;
			m.destroy_context = &dc;
			wnnc_send(ctx, &m, NULL, 0);
			Webnn__Ipc__Goodbye bye = WEBNN__IPC__GOODBYE__INIT;
			bye.reason = "context destroyed";
			m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_GOODBYE;
			m.goodbye = &bye;
			wnnc_send(ctx, &m, NULL, 0);
			wnnc_send_held(ctx); /* webnn_context_hold_sends: these were held */
		}
		/* MLContext.destroy() loses the context: children report CONTEXT_LOST from now on. */
		wnnc_set_lost(ctx, "context destroyed");
		wnnc_disconnect(ctx);
		wnnc_unlock(ctx);
		wnnc_context_unref(ctx);
		return;
	}
	wnnc_unlock(ctx);
}

const char *webnn_context_last_error(const struct webnn_context *ctx)
{
	return ctx ? ctx->last_error : "";
}

void webnn_context_get_info(const struct webnn_context *ctx, struct webnn_context_info *info)
{
	if (ctx && info)
		*info = ctx->info;
}

void webnn_context_support_limits(const struct webnn_context *ctx,
				  struct webnn_support_limits *limits)
{
	if (ctx && limits)
		*limits = ctx->support;
}

bool webnn_context_op_limits(const struct webnn_context *ctx, const char *op, const char *role,
			     struct webnn_tensor_limits *limits)
{
	if (!ctx || !op || !role)
		return false;
	for (size_t i = 0; i < ctx->n_op_limits; i++) {
		const struct wnnc_op_limit *e = &ctx->op_limits[i];
		if (strcmp(e->op, op) == 0 && strcmp(e->role, role) == 0) {
			if (limits)
				*limits = e->limits;
			return true;
		}
	}
	return false;
}

bool webnn_context_op_limit_at(const struct webnn_context *ctx, size_t i, const char **op,
			       const char **role, struct webnn_tensor_limits *limits)
{
	if (!ctx || i >= ctx->n_op_limits)
		return false;
	if (op)
		*op = ctx->op_limits[i].op;
	if (role)
		*role = ctx->op_limits[i].role;
	if (limits)
		*limits = ctx->op_limits[i].limits;
	return true;
}

void webnn_context_set_lost_callback(struct webnn_context *ctx, webnn_lost_cb cb, void *user_data)
{
	if (!ctx)
		return;
	wnnc_lock(ctx);
	ctx->lost_cb = cb;
	ctx->lost_ud = user_data;
	wnnc_unlock(ctx); /* runs it now if the context is already lost */
}

bool webnn_context_is_lost(const struct webnn_context *ctx)
{
	if (!ctx)
		return true;
	struct webnn_context *c = (struct webnn_context *)ctx;
	wnnc_lock(c);
	bool lost = c->lost;
	wnnc_unlock(c);
	return lost;
}

int webnn_context_get_fd(const struct webnn_context *ctx)
{
	if (!ctx)
		return -1;
	struct webnn_context *c = (struct webnn_context *)ctx;
	wnnc_lock(c);
	int fd = c->sock;
	wnnc_unlock(c);
	return fd;
}

enum webnn_status webnn_context_dispatch_events(struct webnn_context *ctx)
{
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = wnnc_poll_events(ctx);
	if (s != WEBNN_STATUS_OK)
		s = wnnc_check_live(ctx, "dispatchEvents");
	wnnc_unlock(ctx);
	return s;
}

enum webnn_status webnn_context_flush(struct webnn_context *ctx)
{
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = wnnc_check_live(ctx, "flush");
	if (s == WEBNN_STATUS_OK) {
		Webnn__Ipc__Flush f = WEBNN__IPC__FLUSH__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		f.context_id = ctx->context_id;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH;
		m.flush = &f;
		s = wnnc_call(ctx, &m, "flush", NULL);
	}
	if (s == WEBNN_STATUS_OK && ctx->pending_status != WEBNN_STATUS_OK) {
		s = wnnc_fail(ctx, ctx->pending_status, "%s", ctx->pending_message);
		ctx->pending_status = WEBNN_STATUS_OK;
		ctx->pending_message[0] = '\0';
	}
	wnnc_unlock(ctx);
	return s;
}

void webnn_context_hold_sends(struct webnn_context *ctx, bool hold)
{
	if (!ctx)
		return;
	wnnc_lock(ctx);
	ctx->hold_sends = hold;
	if (!hold)
		wnnc_send_held(ctx);
	wnnc_unlock(ctx);
}

enum webnn_status webnn_context_send_held(struct webnn_context *ctx)
{
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = ctx->held_len ? wnnc_send_held(ctx) : WEBNN_STATUS_OK;
	wnnc_unlock(ctx);
	return s;
}

bool webnn_context_has_held(const struct webnn_context *ctx)
{
	return ctx && ctx->held_len != 0;
}
