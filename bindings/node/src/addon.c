/* The Node-API addon: contexts polled on Node's loop, tensors, builders, graphs over libwebnn. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* ---------------------------------------------------------------- errors */

void wnn_throw_last(napi_env env)
{
	bool pending = false;
	const napi_extended_error_info *info = NULL;
	napi_is_exception_pending(env, &pending);
	if (pending)
		return;
	napi_get_last_error_info(env, &info);
	napi_throw_error(env, NULL, info && info->error_message ? info->error_message
								: "Node-API call failed");
}

napi_value wnn_error_value(napi_env env, const char *name, const char *msg)
{
	napi_value m, err;
	if (napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &m) != napi_ok)
		return NULL;
	if (strcmp(name, "TypeError") == 0)
		return napi_create_type_error(env, NULL, m, &err) == napi_ok ? err : NULL;
	/* DOMException is a global from Node 17 on. */
	napi_value global, ctor, args[2];
	args[0] = m;
	if (napi_get_global(env, &global) != napi_ok ||
	    napi_get_named_property(env, global, "DOMException", &ctor) != napi_ok ||
	    napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &args[1]) != napi_ok ||
	    napi_new_instance(env, ctor, 2, args, &err) != napi_ok)
		return NULL;
	return err;
}

napi_value wnn_throw(napi_env env, const char *name, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	napi_value err = wnn_error_value(env, name, msg);
	if (!err)
		wnn_throw_last(env);
	else
		napi_throw(env, err);
	return NULL;
}

napi_value wnn_throw_status(napi_env env, struct wnn_ctx *c, enum webnn_status s)
{
	const char *detail = c && c->ctx ? webnn_context_last_error(c->ctx) : "";
	if (c)
		wnn_notify_lost(c);
	if (s == WEBNN_STATUS_CONTEXT_LOST && c && c->lost && !*detail)
		detail = c->lost_msg;
	return wnn_throw(env, webnn_status_name(s), "%s", *detail ? detail
							: webnn_status_string(s));
}

/* ---------------------------------------------------------------- conversions */

bool wnn_is_undefined(napi_env env, napi_value v)
{
	napi_valuetype t;
	return !v || (napi_typeof(env, v, &t) == napi_ok && (t == napi_undefined || t == napi_null));
}

bool wnn_member(napi_env env, napi_value opts, const char *key, napi_value *out, bool *present)
{
	*present = false;
	if (wnn_is_undefined(env, opts))
		return true;
	napi_valuetype t;
	if (napi_typeof(env, opts, &t) != napi_ok || t != napi_object) {
		wnn_throw(env, "TypeError", "options must be a dictionary");
		return false;
	}
	if (napi_get_named_property(env, opts, key, out) != napi_ok) {
		wnn_throw_last(env);
		return false;
	}
	*present = !wnn_is_undefined(env, *out);
	return true;
}

bool wnn_get_f64(napi_env env, napi_value v, const char *what, double *out)
{
	napi_valuetype t;
	if (napi_typeof(env, v, &t) != napi_ok || t != napi_number ||
	    napi_get_value_double(env, v, out) != napi_ok) {
		wnn_throw(env, "TypeError", "%s is not a number", what);
		return false;
	}
	return true;
}

bool wnn_get_u32(napi_env env, napi_value v, const char *what, uint32_t *out)
{
	double d;
	if (!wnn_get_f64(env, v, what, &d))
		return false;
	/* WebIDL [EnforceRange] unsigned long: finite, truncated toward zero, then within range
	 * (2.5 is 2; -0.5 is 0; NaN, infinities and 2^32 are TypeErrors). */
	if (d != d || d <= -1.0 || d >= 4294967296.0) {
		wnn_throw(env, "TypeError", "%s (%g) is not an unsigned 32-bit integer", what, d);
		return false;
	}
	*out = d < 0 ? 0 : (uint32_t)d;
	return true;
}

bool wnn_get_i32(napi_env env, napi_value v, const char *what, int32_t *out)
{
	double d;
	if (!wnn_get_f64(env, v, what, &d))
		return false;
	if (d != d || d < -2147483648.0 || d > 2147483647.0 || d != (double)(int64_t)d) {
		wnn_throw(env, "TypeError", "%s (%g) is not a 32-bit integer", what, d);
		return false;
	}
	*out = (int32_t)d;
	return true;
}

bool wnn_get_u32_list(napi_env env, napi_value v, const char *what, uint32_t *out, uint32_t max,
		      uint32_t *n)
{
	bool is_array = false;
	uint32_t len = 0;
	if (napi_is_array(env, v, &is_array) != napi_ok || !is_array ||
	    napi_get_array_length(env, v, &len) != napi_ok) {
		wnn_throw(env, "TypeError", "%s is not a sequence", what);
		return false;
	}
	if (len > max) {
		wnn_throw(env, "TypeError", "%s has %u entries, at most %u are allowed", what, len,
			  max);
		return false;
	}
	for (uint32_t i = 0; i < len; i++) {
		napi_value e;
		char w[128];
		snprintf(w, sizeof(w), "%s[%u]", what, i);
		if (napi_get_element(env, v, i, &e) != napi_ok || !wnn_get_u32(env, e, w, &out[i]))
			return false;
	}
	*n = len;
	return true;
}

bool wnn_get_string(napi_env env, napi_value v, const char *what, char *out, size_t len)
{
	size_t got;
	napi_valuetype t;
	if (napi_typeof(env, v, &t) != napi_ok || t != napi_string ||
	    napi_get_value_string_utf8(env, v, out, len, &got) != napi_ok) {
		wnn_throw(env, "TypeError", "%s is not a string", what);
		return false;
	}
	if (got + 1 >= len) {
		wnn_throw(env, "TypeError", "%s is longer than %zu bytes", what, len - 2);
		return false;
	}
	return true;
}

static const char *const dtype_names[] = { NULL,    "float32", "float16", "int32",
					   "uint32", "int64",   "uint64",  "int8",
					   "uint8",  "int4",    "uint4" };
#define N_DTYPES (sizeof(dtype_names) / sizeof(dtype_names[0]))

bool wnn_get_data_type(napi_env env, napi_value v, const char *what, enum webnn_data_type *t)
{
	char s[32];
	if (!wnn_get_string(env, v, what, s, sizeof(s)))
		return false;
	for (size_t i = 1; i < N_DTYPES; i++)
		if (strcmp(s, dtype_names[i]) == 0) {
			*t = (enum webnn_data_type)i;
			return true;
		}
	wnn_throw(env, "TypeError", "%s: \"%s\" is not a valid MLOperandDataType", what, s);
	return false;
}

bool wnn_get_operand(napi_env env, napi_value v, const char *what, struct webnn_operand **out)
{
	napi_valuetype t;
	void *p = NULL;
	if (napi_typeof(env, v, &t) != napi_ok || t != napi_external ||
	    napi_get_value_external(env, v, &p) != napi_ok || !p) {
		wnn_throw(env, "TypeError", "%s is not an MLOperand", what);
		return false;
	}
	*out = p;
	return true;
}

napi_value wnn_operand_value(napi_env env, struct webnn_operand *op)
{
	napi_value v;
	NAPI_OK(env, napi_create_external(env, op, NULL, NULL, &v));
	return v;
}

bool wnn_get_bytes(napi_env env, napi_value v, const char *what, void **data, size_t *len)
{
	bool yes = false;
	if (napi_is_typedarray(env, v, &yes) == napi_ok && yes) {
		napi_typedarray_type tt;
		size_t n, off;
		napi_value ab;
		if (napi_get_typedarray_info(env, v, &tt, &n, data, &ab, &off) != napi_ok)
			goto bad;
		static const size_t sizes[] = {
			[napi_int8_array] = 1,    [napi_uint8_array] = 1,   [napi_uint8_clamped_array] = 1,
			[napi_int16_array] = 2,   [napi_uint16_array] = 2,  [napi_int32_array] = 4,
			[napi_uint32_array] = 4,  [napi_float32_array] = 4, [napi_float64_array] = 8,
			[napi_bigint64_array] = 8, [napi_biguint64_array] = 8,
		};
		/* Node 22+ adds float16 arrays past the table: 2 bytes. */
		*len = n * ((size_t)tt < sizeof(sizes) / sizeof(sizes[0]) && sizes[tt] ? sizes[tt] : 2);
		return true;
	}
	if (napi_is_dataview(env, v, &yes) == napi_ok && yes) {
		napi_value ab;
		size_t off;
		if (napi_get_dataview_info(env, v, len, data, &ab, &off) != napi_ok)
			goto bad;
		return true;
	}
	if (napi_is_arraybuffer(env, v, &yes) == napi_ok && yes) {
		if (napi_get_arraybuffer_info(env, v, data, len) != napi_ok)
			goto bad;
		return true;
	}
bad:
	wnn_throw(env, "TypeError", "%s is not an ArrayBuffer or ArrayBufferView", what);
	return false;
}

static bool get_obj(napi_env env, napi_value v, const char *what, struct wnn_obj **out)
{
	napi_valuetype t;
	void *p = NULL;
	if (napi_typeof(env, v, &t) != napi_ok || t != napi_external ||
	    napi_get_value_external(env, v, &p) != napi_ok || !p) {
		wnn_throw(env, "TypeError", "%s is not a handle", what);
		return false;
	}
	*out = p;
	return true;
}

static bool get_ctx(napi_env env, napi_value v, struct wnn_ctx **out)
{
	struct wnn_obj *o;
	if (!get_obj(env, v, "context", &o))
		return false;
	*out = (struct wnn_ctx *)o->p;
	if (!(*out)->ctx) {
		wnn_throw(env, "InvalidStateError", "the MLContext is destroyed");
		return false;
	}
	return true;
}

/* A live object of a context (tensor, builder, graph). */
static bool get_live(napi_env env, napi_value v, const char *what, struct wnn_obj **out)
{
	if (!get_obj(env, v, what, out))
		return false;
	if (!(*out)->p) {
		wnn_throw(env, "InvalidStateError", "the %s is destroyed", what);
		return false;
	}
	return true;
}

static napi_value undefined(napi_env env)
{
	napi_value u;
	napi_get_undefined(env, &u);
	return u;
}

static bool get_desc(napi_env env, napi_value dt, napi_value shape, struct webnn_operand_desc *d)
{
	memset(d, 0, sizeof(*d));
	return wnn_get_data_type(env, dt, "dataType", &d->data_type) &&
	       wnn_get_u32_list(env, shape, "shape", d->shape, WEBNN_MAX_RANK, &d->rank);
}

static napi_value desc_value(napi_env env, const struct webnn_operand_desc *d)
{
	napi_value o, dt, shape;
	NAPI_OK(env, napi_create_object(env, &o));
	const char *name = webnn_data_type_name(d->data_type);
	NAPI_OK(env, napi_create_string_utf8(env, name ? name : "", NAPI_AUTO_LENGTH, &dt));
	NAPI_OK(env, napi_create_array_with_length(env, d->rank, &shape));
	for (uint32_t i = 0; i < d->rank; i++) {
		napi_value n;
		NAPI_OK(env, napi_create_uint32(env, d->shape[i], &n));
		NAPI_OK(env, napi_set_element(env, shape, i, n));
	}
	NAPI_OK(env, napi_set_named_property(env, o, "dataType", dt));
	NAPI_OK(env, napi_set_named_property(env, o, "shape", shape));
	return o;
}

#define ARGS(n)                                                                                \
	size_t argc = (n);                                                                     \
	napi_value argv[(n) ? (n) : 1];                                                        \
	NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));                    \
	for (size_t i_ = argc; i_ < (n); i_++)                                                 \
		napi_get_undefined(env, &argv[i_]);

/* ---------------------------------------------------------------- contexts and the loop */

static void poll_closed(uv_handle_t *h)
{
	free(h);
}

static void stop_poll(struct wnn_ctx *c)
{
	if (!c->poll)
		return;
	uv_poll_stop(c->poll);
	c->poll->data = NULL;
	uv_close((uv_handle_t *)c->poll, poll_closed);
	c->poll = NULL;
}

static void on_lost_cb(void *user, const char *message)
{
	struct wnn_ctx *c = user;
	if (c->lost)
		return;
	c->lost = true;
	snprintf(c->lost_msg, sizeof(c->lost_msg), "%s", message ? message : "context lost");
}

void wnn_notify_lost(struct wnn_ctx *c)
{
	if (!c->lost || c->lost_told)
		return;
	c->lost_told = true;
	stop_poll(c);
	napi_env env = c->env;
	napi_value fn, recv, msg, result;
	if (!c->on_lost || napi_get_reference_value(env, c->on_lost, &fn) != napi_ok || !fn)
		return;
	/* MakeCallback's receiver must be an object: the context's async resource. */
	if (!c->resource || napi_get_reference_value(env, c->resource, &recv) != napi_ok || !recv)
		napi_get_global(env, &recv);
	napi_create_string_utf8(env, c->lost_msg, NAPI_AUTO_LENGTH, &msg);
	if (napi_make_callback(env, c->async, recv, fn, 1, &msg, &result) != napi_ok) {
		/* An exception of the callback goes where Node sends uncaught ones. */
		napi_value exc;
		if (napi_get_and_clear_last_exception(env, &exc) == napi_ok)
			napi_fatal_exception(env, exc);
	}
}

static void ctx_unlink_destroy(struct wnn_ctx *c);
static void ctx_free(struct wnn_ctx *c);

/* The descriptor is readable: libwebnn handles what the daemon sent without blocking (errors
 * of fire-and-forget calls, or the end of the connection, which loses the context). */
static void on_readable(uv_poll_t *h, int status, int events)
{
	(void)events;
	struct wnn_ctx *c = h->data;
	if (!c || !c->ctx)
		return;
	napi_env env = c->env;
	napi_handle_scope scope;
	napi_callback_scope cscope = NULL;
	napi_value resource;
	if (napi_open_handle_scope(env, &scope) != napi_ok)
		return;
	/* A callback scope: the promises the reads settle run their reactions when it closes. */
	if (napi_get_reference_value(env, c->resource, &resource) == napi_ok && resource)
		napi_open_callback_scope(env, resource, c->async, &cscope);
	webnn_context_dispatch_events(c->ctx);
	bool free_c = c->create_failed; /* its promise is rejected; nothing else refers to c */
	if (!free_c) {
		if (status < 0 && !c->lost && c->has_handle)
			on_lost_cb(c, "the connection to webnnd failed");
		wnn_notify_lost(c);
	}
	if (cscope)
		napi_close_callback_scope(env, cscope);
	napi_close_handle_scope(env, scope);
	if (free_c)
		ctx_free(c);
}

static void ctx_unlink_destroy(struct wnn_ctx *c)
{
	stop_poll(c);
	if (c->ctx) {
		/* Pending reads settle (aborted) from inside the destroy. */
		c->destroying = true;
		webnn_context_destroy(c->ctx);
		c->ctx = NULL;
	}
	if (c->pprev) {
		*c->pprev = c->next;
		if (c->next)
			c->next->pprev = c->pprev;
		c->pprev = NULL;
		c->next = NULL;
	}
}

static void ctx_free(struct wnn_ctx *c)
{
	napi_env env = c->env;
	ctx_unlink_destroy(c);
	if (c->on_lost)
		napi_delete_reference(env, c->on_lost);
	if (c->resource)
		napi_delete_reference(env, c->resource);
	if (c->self)
		napi_delete_reference(env, c->self);
	if (c->async)
		napi_async_destroy(env, c->async);
	free(c);
}

static void ctx_finalize(napi_env env, void *data, void *hint)
{
	(void)env;
	(void)hint;
	struct wnn_obj *o = data;
	ctx_free(o->p);
	free(o);
}

static void pending_changed(struct wnn_ctx *c, int delta);

/* The daemon answered createContext (or the connection failed first). */
static void context_created(void *user, enum webnn_status s, const char *message,
			    struct webnn_context *ctx)
{
	(void)ctx;
	struct wnn_ctx *c = user;
	napi_env env = c->env;
	napi_deferred d = c->created;
	c->created = NULL;
	pending_changed(c, -1);
	if (c->inst->closing || !d)
		return;
	napi_handle_scope scope;
	napi_open_handle_scope(env, &scope);
	napi_value handle = NULL;
	struct wnn_obj *o = s == WEBNN_STATUS_OK ? calloc(1, sizeof(*o)) : NULL;
	if (o) {
		o->p = c;
		if (napi_create_external(env, o, ctx_finalize, NULL, &handle) != napi_ok) {
			free(o);
			handle = NULL;
		}
	}
	if (handle) {
		/* Requests without a reply wait for the next one that has one, or for the loop's
		 * prepare phase (on_prepare): a dispatch and the read after it are one sendmsg. */
		webnn_context_hold_sends(c->ctx, true);
		/* Out of memory here only costs pending calls their hold on the handle. */
		if (napi_create_reference(env, handle, 0, &c->self) != napi_ok)
			c->self = NULL;
		c->has_handle = true;
		webnn_context_set_lost_callback(c->ctx, on_lost_cb, c);
		napi_resolve_deferred(env, d, handle);
	} else {
		if (s == WEBNN_STATUS_OK) {
			s = WEBNN_STATUS_NO_MEMORY;
			message = "createContext: out of memory";
		}
		napi_value err = wnn_error_value(env, webnn_status_name(s), *message ? message
									 : webnn_status_string(s));
		if (!err)
			napi_get_undefined(env, &err);
		napi_reject_deferred(env, d, err);
		c->create_failed = true; /* freed by on_readable once libwebnn has returned */
	}
	napi_close_handle_scope(env, scope);
}

/* createContext(options, onLost) -> a promise of a handle. The connection is made here
 * (connect(2) on a Unix socket does not wait for the daemon); the handshake and CreateContext
 * are answered on the loop. */
static napi_value create_context(napi_env env, napi_callback_info info)
{
	ARGS(2);
	struct wnn_inst *inst;
	NAPI_OK(env, napi_get_instance_data(env, (void **)&inst));
	struct webnn_context_options opts = WEBNN_CONTEXT_OPTIONS_INIT;
	char socket[4096] = "", pref[32] = "", dev[32] = "";
	napi_value v;
	bool has;
	if (!wnn_member(env, argv[0], "powerPreference", &v, &has))
		return NULL;
	if (has) {
		if (!wnn_get_string(env, v, "powerPreference", pref, sizeof(pref)))
			return NULL;
		if (strcmp(pref, "default") == 0)
			opts.power_preference = WEBNN_POWER_DEFAULT;
		else if (strcmp(pref, "high-performance") == 0)
			opts.power_preference = WEBNN_POWER_HIGH_PERFORMANCE;
		else if (strcmp(pref, "low-power") == 0)
			opts.power_preference = WEBNN_POWER_LOW_POWER;
		else
			return wnn_throw(env, "TypeError",
					 "powerPreference \"%s\" is not a valid MLPowerPreference",
					 pref);
	}
	if (!wnn_member(env, argv[0], "accelerated", &v, &has))
		return NULL;
	if (has) {
		NAPI_OK(env, napi_coerce_to_bool(env, v, &v));
		NAPI_OK(env, napi_get_value_bool(env, v, &opts.accelerated));
	}
	/* MLContextOptions.deviceType (older drafts): "cpu" asks for no acceleration. */
	if (!wnn_member(env, argv[0], "deviceType", &v, &has))
		return NULL;
	if (has) {
		if (!wnn_get_string(env, v, "deviceType", dev, sizeof(dev)))
			return NULL;
		if (strcmp(dev, "cpu") == 0)
			opts.accelerated = false;
	}
	if (!wnn_member(env, argv[0], "socketPath", &v, &has))
		return NULL;
	if (has) {
		if (!wnn_get_string(env, v, "socketPath", socket, sizeof(socket)))
			return NULL;
		opts.socket_path = socket;
	}
	opts.client_name = "node";
	opts.client_name = "node";
	struct wnn_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return wnn_throw(env, "OperationError", "out of memory");
	c->env = env;
	c->inst = inst;
	napi_value promise, resource, name;
	if (napi_create_promise(env, &c->created, &promise) != napi_ok ||
	    (!wnn_is_undefined(env, argv[1]) &&
	     napi_create_reference(env, argv[1], 1, &c->on_lost) != napi_ok) ||
	    napi_create_object(env, &resource) != napi_ok ||
	    napi_create_reference(env, resource, 1, &c->resource) != napi_ok ||
	    napi_create_string_utf8(env, "MLContext", NAPI_AUTO_LENGTH, &name) != napi_ok ||
	    napi_async_init(env, resource, name, &c->async) != napi_ok) {
		ctx_free(c);
		wnn_throw_last(env);
		return NULL;
	}
	char err[512] = "";
	enum webnn_status s = webnn_context_create_async(&opts, &c->ctx, context_created, c, err,
							 sizeof(err));
	if (s != WEBNN_STATUS_OK) {
		napi_value e = wnn_error_value(env, webnn_status_name(s),
					       *err ? err : webnn_status_string(s));
		napi_reject_deferred(env, c->created, e);
		c->created = NULL;
		ctx_free(c);
		return promise;
	}
	c->next = inst->contexts;
	if (c->next)
		c->next->pprev = &c->next;
	c->pprev = &inst->contexts;
	inst->contexts = c;

	/* The loop watches the descriptor; only calls in flight keep the process alive. */
	uv_loop_t *loop;
	int fd = webnn_context_get_fd(c->ctx);
	c->poll = calloc(1, sizeof(*c->poll));
	if (napi_get_uv_event_loop(env, &loop) != napi_ok || fd < 0 || !c->poll ||
	    uv_poll_init(loop, c->poll, fd) != 0) {
		free(c->poll);
		c->poll = NULL;
		napi_reject_deferred(env, c->created,
				     wnn_error_value(env, "OperationError",
						     "cannot watch the context's descriptor"));
		c->created = NULL;
		ctx_free(c);
		return promise;
	}
	c->poll->data = c;
	uv_poll_start(c->poll, UV_READABLE | UV_DISCONNECT, on_readable);
	uv_unref((uv_handle_t *)c->poll);
	pending_changed(c, +1);
	return promise;
}

static napi_value context_destroy(napi_env env, napi_callback_info info)
{
	ARGS(1);
	struct wnn_obj *o;
	if (!get_obj(env, argv[0], "context", &o))
		return NULL;
	ctx_unlink_destroy(o->p);
	return undefined(env);
}

static napi_value context_info(napi_env env, napi_callback_info info)
{
	ARGS(1);
	struct wnn_ctx *c;
	if (!get_ctx(env, argv[0], &c))
		return NULL;
	struct webnn_context_info ci;
	webnn_context_get_info(c->ctx, &ci);
	napi_value o, v;
	NAPI_OK(env, napi_create_object(env, &o));
	NAPI_OK(env, napi_get_boolean(env, ci.accelerated, &v));
	NAPI_OK(env, napi_set_named_property(env, o, "accelerated", v));
	const char *names[] = { "deviceName", "deviceType", "platformName", "driverVersion",
				"backend" };
	const char *vals[] = { ci.device_name, ci.device_type, ci.platform_name, ci.driver_version,
			       ci.backend };
	for (size_t i = 0; i < 5; i++) {
		NAPI_OK(env, napi_create_string_utf8(env, vals[i] ? vals[i] : "", NAPI_AUTO_LENGTH,
						     &v));
		NAPI_OK(env, napi_set_named_property(env, o, names[i], v));
	}
	return o;
}

static napi_value tensor_limits_value(napi_env env, const struct webnn_tensor_limits *l)
{
	napi_value o, types, range, v;
	NAPI_OK(env, napi_create_object(env, &o));
	NAPI_OK(env, napi_create_array(env, &types));
	uint32_t n = 0;
	for (size_t t = 1; t < N_DTYPES; t++)
		if ((l->data_types >> t) & 1u) {
			NAPI_OK(env, napi_create_string_utf8(env, dtype_names[t], NAPI_AUTO_LENGTH,
							     &v));
			NAPI_OK(env, napi_set_element(env, types, n++, v));
		}
	NAPI_OK(env, napi_set_named_property(env, o, "dataTypes", types));
	NAPI_OK(env, napi_create_object(env, &range));
	NAPI_OK(env, napi_create_uint32(env, l->min_rank, &v));
	NAPI_OK(env, napi_set_named_property(env, range, "min", v));
	NAPI_OK(env, napi_create_uint32(env, l->max_rank, &v));
	NAPI_OK(env, napi_set_named_property(env, range, "max", v));
	NAPI_OK(env, napi_set_named_property(env, o, "rankRange", range));
	return o;
}

/* MLOpSupportLimits: the context's limits, then one member per operator with one per role. */
static napi_value op_support_limits(napi_env env, napi_callback_info info)
{
	ARGS(1);
	struct wnn_ctx *c;
	if (!get_ctx(env, argv[0], &c))
		return NULL;
	struct webnn_support_limits sl;
	webnn_context_support_limits(c->ctx, &sl);
	napi_value o, v;
	NAPI_OK(env, napi_create_object(env, &o));
	NAPI_OK(env, napi_create_string_utf8(env, sl.preferred_input_layout == WEBNN_LAYOUT_NHWC
						     ? "nhwc" : "nchw",
					     NAPI_AUTO_LENGTH, &v));
	NAPI_OK(env, napi_set_named_property(env, o, "preferredInputLayout", v));
	NAPI_OK(env, napi_create_double(env, (double)sl.max_tensor_byte_length, &v));
	NAPI_OK(env, napi_set_named_property(env, o, "maxTensorByteLength", v));
	if (!(v = tensor_limits_value(env, &sl.input)))
		return NULL;
	NAPI_OK(env, napi_set_named_property(env, o, "input", v));
	if (!(v = tensor_limits_value(env, &sl.constant)))
		return NULL;
	NAPI_OK(env, napi_set_named_property(env, o, "constant", v));
	if (!(v = tensor_limits_value(env, &sl.output)))
		return NULL;
	NAPI_OK(env, napi_set_named_property(env, o, "output", v));
	const char *op, *role;
	struct webnn_tensor_limits l;
	for (size_t i = 0; webnn_context_op_limit_at(c->ctx, i, &op, &role, &l); i++) {
		napi_value per_op;
		bool has = false;
		NAPI_OK(env, napi_has_named_property(env, o, op, &has));
		if (has) {
			NAPI_OK(env, napi_get_named_property(env, o, op, &per_op));
		} else {
			NAPI_OK(env, napi_create_object(env, &per_op));
			NAPI_OK(env, napi_set_named_property(env, o, op, per_op));
		}
		if (!(v = tensor_limits_value(env, &l)))
			return NULL;
		NAPI_OK(env, napi_set_named_property(env, per_op, role, v));
	}
	return o;
}

/* ---------------------------------------------------------------- tensors */

static void tensor_finalize(napi_env env, void *data, void *hint)
{
	(void)env;
	(void)hint;
	struct wnn_obj *o = data;
	webnn_tensor_destroy(o->p);
	free(o);
}

static napi_value wrap_obj(napi_env env, void *p, struct wnn_ctx *owner, napi_finalize fin)
{
	struct wnn_obj *o = calloc(1, sizeof(*o));
	napi_value v;
	if (!o) {
		fin(env, &(struct wnn_obj){ .p = p }, NULL);
		return wnn_throw(env, "OperationError", "out of memory");
	}
	o->p = p;
	o->owner = owner;
	if (napi_create_external(env, o, fin, NULL, &v) != napi_ok) {
		fin(env, o, NULL);
		wnn_throw_last(env);
		return NULL;
	}
	return v;
}

static void reject_reads(napi_env env, struct wnn_obj *tensor);

static napi_value tensor_destroy(napi_env env, napi_callback_info info)
{
	ARGS(1);
	struct wnn_obj *o;
	if (!get_obj(env, argv[0], "tensor", &o))
		return NULL;
	reject_reads(env, o);
	webnn_tensor_destroy(o->p);
	o->p = NULL;
	return undefined(env);
}

static napi_value tensor_byte_length(napi_env env, napi_callback_info info)
{
	ARGS(1);
	struct wnn_obj *o;
	if (!get_live(env, argv[0], "MLTensor", &o))
		return NULL;
	struct webnn_tensor_desc d;
	webnn_tensor_get_desc(o->p, &d);
	uint64_t n = 1;
	for (uint32_t i = 0; i < d.desc.rank; i++)
		n *= d.desc.shape[i];
	napi_value v;
	NAPI_OK(env, napi_create_double(env, (double)webnn_data_type_byte_length(d.desc.data_type, n),
					&v));
	return v;
}

/* writeTensor(ctx, tensor, bytes) */
static napi_value write_tensor(napi_env env, napi_callback_info info)
{
	ARGS(3);
	struct wnn_ctx *c;
	struct wnn_obj *t;
	void *data;
	size_t len;
	if (!get_ctx(env, argv[0], &c) || !get_live(env, argv[1], "MLTensor", &t) ||
	    !wnn_get_bytes(env, argv[2], "sourceData", &data, &len))
		return NULL;
	enum webnn_status s = webnn_context_write_tensor(c->ctx, t->p, data, len);
	if (s != WEBNN_STATUS_OK)
		return wnn_throw_status(env, c, s);
	return undefined(env);
}

/* An asynchronous call in flight (readTensor, createTensor, createConstantTensor, build): its
 * promise, what it settles with and the context's handle, kept alive. A read is also listed on
 * its tensor (kept alive by tensor_ref) until libwebnn answers; settled: MLTensor.destroy()
 * has rejected its promise already (the answer then only frees the request). */
struct call_req {
	napi_env env;
	struct wnn_ctx *c;
	napi_deferred deferred;
	napi_ref buf, tensor_ref;
	struct wnn_obj *tensor;
	struct call_req *next;
	bool return_buf, settled;
};

static void unlink_read(struct call_req *r)
{
	for (struct call_req **pp = r->tensor ? &r->tensor->reads : NULL; pp && *pp;
	     pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			return;
		}
	}
}

/* MLTensor.destroy() rejects the tensor's pending reads ([[pendingPromises]]) at once. */
static void reject_reads(napi_env env, struct wnn_obj *tensor)
{
	for (struct call_req *r = tensor->reads; r; r = r->next) {
		if (r->settled)
			continue;
		r->settled = true;
		napi_value err = wnn_error_value(env, "InvalidStateError",
						 "the MLTensor was destroyed with this read pending");
		if (!err)
			napi_get_undefined(env, &err);
		napi_reject_deferred(env, r->deferred, err);
	}
}

static void pending_changed(struct wnn_ctx *c, int delta)
{
	unsigned before = c->pending;
	c->pending = (unsigned)((int)c->pending + delta);
	if (!before == !c->pending)
		return;
	/* Only calls in flight keep the process alive; an idle context does not. */
	if (c->poll) {
		if (c->pending)
			uv_ref((uv_handle_t *)c->poll);
		else
			uv_unref((uv_handle_t *)c->poll);
	}
	/* And they keep the context's handle (one reference for them all, not one per call). */
	if (c->self && !c->inst->closing) {
		if (c->pending)
			napi_reference_ref(c->env, c->self, NULL);
		else
			napi_reference_unref(c->env, c->self, NULL);
	}
}

/* A request for c, its promise in *promise; NULL with an exception pending. */
static struct call_req *call_new(napi_env env, struct wnn_ctx *c, napi_value *promise)
{
	struct call_req *r = calloc(1, sizeof(*r));
	if (!r) {
		wnn_throw(env, "OperationError", "out of memory");
		return NULL;
	}
	r->env = env;
	r->c = c;
	if (napi_create_promise(env, &r->deferred, promise) != napi_ok) {
		free(r);
		wnn_throw_last(env);
		return NULL;
	}
	pending_changed(c, +1);
	return r;
}

/* Frees a settled (or refused) request; the last one pending lets the context's handle go. */
static void call_free(struct call_req *r)
{
	if (r->buf && !r->c->inst->closing)
		napi_delete_reference(r->env, r->buf);
	if (r->tensor_ref && !r->c->inst->closing)
		napi_delete_reference(r->env, r->tensor_ref);
	pending_changed(r->c, -1);
	free(r);
}

static void call_reject(struct call_req *r, enum webnn_status s, const char *message)
{
	napi_env env = r->env;
	/* MLContext.destroy() aborts the calls in flight, which the spec rejects with
	 * InvalidStateError ("if aborted"); a loss fails them with its own status. */
	const char *name = r->c->destroying && s == WEBNN_STATUS_CONTEXT_LOST
				   ? "InvalidStateError" : webnn_status_name(s);
	napi_value err = wnn_error_value(env, name, message && *message ? message
								: webnn_status_string(s));
	if (!err)
		napi_get_undefined(env, &err);
	napi_reject_deferred(env, r->deferred, err);
}

/* A call libwebnn refused at once: its promise rejected, the request freed. */
static napi_value call_refused(struct call_req *r, enum webnn_status s, napi_value promise)
{
	struct wnn_ctx *c = r->c;
	call_reject(r, s, c->ctx ? webnn_context_last_error(c->ctx) : "");
	call_free(r);
	wnn_notify_lost(c);
	return promise;
}

/* Settles a request from libwebnn's callback; false (request freed) when no JavaScript may
 * run. The caller closes *scope. */
static bool call_settle_begin(struct call_req *r, napi_handle_scope *scope)
{
	if (r->c->inst->closing) { /* the environment is going away: no JavaScript runs now */
		call_free(r);
		return false;
	}
	napi_open_handle_scope(r->env, scope);
	return true;
}

static void read_done(void *user, enum webnn_status s, const char *message)
{
	struct call_req *r = user;
	napi_env env = r->env;
	napi_handle_scope scope;
	unlink_read(r);
	if (!call_settle_begin(r, &scope))
		return;
	if (r->settled) {
		/* rejected by MLTensor.destroy() */
	} else if (s == WEBNN_STATUS_OK) {
		napi_value v = NULL;
		if (r->return_buf)
			napi_get_reference_value(env, r->buf, &v);
		else
			napi_get_undefined(env, &v);
		napi_resolve_deferred(env, r->deferred, v);
	} else {
		call_reject(r, s, message);
	}
	call_free(r);
	napi_close_handle_scope(env, scope);
}

/* readTensor(ctx, tensor, dest?) -> a promise of a new ArrayBuffer, or of undefined once dest
 * is filled. It settles from the loop's poll of the context when the daemon answers. */
static napi_value read_tensor(napi_env env, napi_callback_info info)
{
	ARGS(3);
	struct wnn_ctx *c;
	struct wnn_obj *t;
	void *data;
	size_t len;
	napi_value buf, promise;
	if (!get_ctx(env, argv[0], &c) || !get_live(env, argv[1], "MLTensor", &t))
		return NULL;
	bool fresh = wnn_is_undefined(env, argv[2]);
	if (fresh) {
		struct webnn_tensor_desc d;
		webnn_tensor_get_desc(t->p, &d);
		uint64_t n = 1;
		for (uint32_t i = 0; i < d.desc.rank; i++)
			n *= d.desc.shape[i];
		len = (size_t)webnn_data_type_byte_length(d.desc.data_type, n);
		NAPI_OK(env, napi_create_arraybuffer(env, len, &data, &buf));
	} else {
		if (!wnn_get_bytes(env, argv[2], "outputData", &data, &len))
			return NULL;
		buf = argv[2];
	}
	struct call_req *r = call_new(env, c, &promise);
	if (!r)
		return NULL;
	r->return_buf = fresh;
	if (napi_create_reference(env, buf, 1, &r->buf) != napi_ok ||
	    napi_create_reference(env, argv[1], 1, &r->tensor_ref) != napi_ok) {
		call_free(r);
		wnn_throw_last(env);
		return NULL;
	}
	r->tensor = t;
	r->next = t->reads;
	t->reads = r;
	enum webnn_status s = webnn_context_read_tensor_async(c->ctx, t->p, data, len, read_done, r);
	if (s != WEBNN_STATUS_OK) {
		unlink_read(r);
		return call_refused(r, s, promise);
	}
	return promise;
}

/* Resolves with what the call's JavaScript wrapper (r->buf) makes of the handle: the promise
 * settles with the MLTensor or MLGraph itself, in the same turn as the reads answered with it
 * (an extra then() in JavaScript would settle it a microtask after them). */
static void call_resolve_wrapped(struct call_req *r, napi_value handle)
{
	napi_env env = r->env;
	napi_value fn, undef, v = NULL, exc;
	napi_get_undefined(env, &undef);
	if (handle && napi_get_reference_value(env, r->buf, &fn) == napi_ok &&
	    napi_call_function(env, undef, fn, 1, &handle, &v) == napi_ok) {
		napi_resolve_deferred(env, r->deferred, v);
		return;
	}
	if (napi_get_and_clear_last_exception(env, &exc) != napi_ok)
		exc = wnn_error_value(env, "OperationError", "cannot wrap the new object");
	napi_reject_deferred(env, r->deferred, exc ? exc : undef);
}

/* The daemon answered a createTensor / createConstantTensor. */
static void tensor_done(void *user, enum webnn_status s, const char *message,
			struct webnn_tensor *t)
{
	struct call_req *r = user;
	napi_env env = r->env;
	napi_handle_scope scope;
	if (!call_settle_begin(r, &scope)) {
		webnn_tensor_destroy(t);
		return;
	}
	if (s == WEBNN_STATUS_OK) {
		call_resolve_wrapped(r, wrap_obj(env, t, r->c, tensor_finalize));
	} else {
		call_reject(r, s, message);
	}
	call_free(r);
	napi_close_handle_scope(env, scope);
}

/* The wrapper function of a call (the promise's value is wrap(handle)). */
static bool call_wrapper(napi_env env, struct call_req *r, napi_value fn)
{
	napi_valuetype t;
	if (napi_typeof(env, fn, &t) != napi_ok || t != napi_function) {
		wnn_throw(env, "TypeError", "the wrapper is not a function");
	} else if (napi_create_reference(env, fn, 1, &r->buf) == napi_ok) {
		return true;
	} else {
		wnn_throw_last(env);
	}
	call_free(r);
	return false;
}

/* createTensor(ctx, dataType, shape, readable, writable, wrap) -> a promise of wrap(handle),
 * settled on the loop in timeline order. */
static napi_value create_tensor(napi_env env, napi_callback_info info)
{
	ARGS(6);
	struct wnn_ctx *c;
	struct webnn_tensor_desc d;
	memset(&d, 0, sizeof(d));
	if (!get_ctx(env, argv[0], &c) || !get_desc(env, argv[1], argv[2], &d.desc))
		return NULL;
	NAPI_OK(env, napi_get_value_bool(env, argv[3], &d.readable));
	NAPI_OK(env, napi_get_value_bool(env, argv[4], &d.writable));
	napi_value promise;
	struct call_req *r = call_new(env, c, &promise);
	if (!r || !call_wrapper(env, r, argv[5]))
		return NULL;
	enum webnn_status s = webnn_context_create_tensor_async(c->ctx, &d, tensor_done, r);
	return s == WEBNN_STATUS_OK ? promise : call_refused(r, s, promise);
}

/* createConstantTensor(ctx, dataType, shape, bytes, wrap) -> a promise of wrap(handle) (the
 * bytes are copied before it returns). */
static napi_value create_constant_tensor(napi_env env, napi_callback_info info)
{
	ARGS(5);
	struct wnn_ctx *c;
	struct webnn_operand_desc d;
	void *data;
	size_t len;
	if (!get_ctx(env, argv[0], &c) || !get_desc(env, argv[1], argv[2], &d) ||
	    !wnn_get_bytes(env, argv[3], "sourceData", &data, &len))
		return NULL;
	napi_value promise;
	struct call_req *r = call_new(env, c, &promise);
	if (!r || !call_wrapper(env, r, argv[4]))
		return NULL;
	enum webnn_status s =
		webnn_context_create_constant_tensor_async(c->ctx, &d, data, len, tensor_done, r);
	return s == WEBNN_STATUS_OK ? promise : call_refused(r, s, promise);
}

/* ---------------------------------------------------------------- builders and graphs */

static void builder_finalize(napi_env env, void *data, void *hint)
{
	(void)env;
	(void)hint;
	struct wnn_obj *o = data;
	webnn_builder_destroy(o->p);
	free(o);
}

static void graph_finalize(napi_env env, void *data, void *hint)
{
	(void)env;
	(void)hint;
	struct wnn_obj *o = data;
	webnn_graph_destroy(o->p);
	free(o);
}

static napi_value create_builder(napi_env env, napi_callback_info info)
{
	ARGS(1);
	struct wnn_ctx *c;
	if (!get_ctx(env, argv[0], &c))
		return NULL;
	struct webnn_builder *b = NULL;
	enum webnn_status s = webnn_builder_create(c->ctx, &b);
	if (s != WEBNN_STATUS_OK)
		return wnn_throw_status(env, c, s);
	return wrap_obj(env, b, c, builder_finalize);
}

/* The builder of a call: live (not yet built) is libwebnn's to check. */
static bool get_builder(napi_env env, napi_value v, struct wnn_obj **out)
{
	if (!get_obj(env, v, "MLGraphBuilder", out))
		return false;
	if (!(*out)->p || !(*out)->owner->ctx) {
		wnn_throw(env, "InvalidStateError", "the MLGraphBuilder's context is destroyed");
		return false;
	}
	return true;
}

/* out is read after the call (a function argument's order of evaluation is unspecified). */
static napi_value built(napi_env env, struct wnn_obj *b, enum webnn_status s,
			struct webnn_operand **out)
{
	if (s != WEBNN_STATUS_OK)
		return wnn_throw_status(env, b->owner, s);
	return wnn_operand_value(env, *out);
}

/* input(builder, name, dataType, shape) */
static napi_value builder_input(napi_env env, napi_callback_info info)
{
	ARGS(4);
	struct wnn_obj *b;
	struct webnn_operand_desc d;
	char name[1024];
	if (!get_builder(env, argv[0], &b) ||
	    !wnn_get_string(env, argv[1], "name", name, sizeof(name)) ||
	    !get_desc(env, argv[2], argv[3], &d))
		return NULL;
	struct webnn_operand *op = NULL;
	return built(env, b, webnn_builder_input(b->p, name, &d, &op), &op);
}

/* constant(builder, dataType, shape, bytes) */
static napi_value builder_constant(napi_env env, napi_callback_info info)
{
	ARGS(4);
	struct wnn_obj *b;
	struct webnn_operand_desc d;
	void *data;
	size_t len;
	if (!get_builder(env, argv[0], &b) || !get_desc(env, argv[1], argv[2], &d) ||
	    !wnn_get_bytes(env, argv[3], "buffer", &data, &len))
		return NULL;
	struct webnn_operand *op = NULL;
	return built(env, b, webnn_builder_constant(b->p, &d, data, len, &op), &op);
}

/* constantScalar(builder, dataType, number | bigint) */
static napi_value builder_constant_scalar(napi_env env, napi_callback_info info)
{
	ARGS(3);
	struct wnn_obj *b;
	enum webnn_data_type t;
	if (!get_builder(env, argv[0], &b) || !wnn_get_data_type(env, argv[1], "type", &t))
		return NULL;
	napi_valuetype vt;
	NAPI_OK(env, napi_typeof(env, argv[2], &vt));
	struct webnn_operand *op = NULL;
	enum webnn_status s;
	if (vt == napi_bigint && (t == WEBNN_INT64 || t == WEBNN_UINT64)) {
		/* The exact 64-bit value as a 0-D constant, saturated to the type's range. */
		int64_t i;
		uint64_t u;
		bool lossless;
		int sign = 0;
		size_t words = 2;
		uint64_t w[2];
		NAPI_OK(env, napi_get_value_bigint_words(env, argv[2], &sign, &words, w));
		NAPI_OK(env, napi_get_value_bigint_int64(env, argv[2], &i, &lossless));
		if (t == WEBNN_INT64) {
			if (!lossless)
				i = sign ? INT64_MIN : INT64_MAX;
			memcpy(&u, &i, sizeof(u));
		} else if (sign) {
			u = 0;
		} else {
			NAPI_OK(env, napi_get_value_bigint_uint64(env, argv[2], &u, &lossless));
			if (!lossless)
				u = UINT64_MAX;
		}
		struct webnn_operand_desc d = { .data_type = t, .rank = 0 };
		s = webnn_builder_constant(b->p, &d, &u, sizeof(u), &op);
	} else if (vt == napi_bigint) {
		int64_t i;
		bool lossless;
		NAPI_OK(env, napi_get_value_bigint_int64(env, argv[2], &i, &lossless));
		s = webnn_builder_constant_scalar_int(b->p, t, i, &op);
	} else {
		double d;
		if (!wnn_get_f64(env, argv[2], "value", &d))
			return NULL;
		s = webnn_builder_constant_scalar(b->p, t, d, &op);
	}
	return built(env, b, s, &op);
}

/* constantTensor(builder, tensor) */
static napi_value builder_constant_tensor(napi_env env, napi_callback_info info)
{
	ARGS(2);
	struct wnn_obj *b, *t;
	if (!get_builder(env, argv[0], &b) || !get_live(env, argv[1], "MLTensor", &t))
		return NULL;
	struct webnn_operand *op = NULL;
	return built(env, b, webnn_builder_constant_tensor(b->p, t->p, &op), &op);
}

static napi_value builder_label(napi_env env, napi_callback_info info)
{
	ARGS(2);
	struct wnn_obj *b;
	char label[1024];
	if (!get_builder(env, argv[0], &b) ||
	    !wnn_get_string(env, argv[1], "label", label, sizeof(label)))
		return NULL;
	enum webnn_status s = webnn_builder_set_next_label(b->p, label);
	if (s != WEBNN_STATUS_OK)
		return wnn_throw_status(env, b->owner, s);
	return undefined(env);
}

static napi_value operand_desc(napi_env env, napi_callback_info info)
{
	ARGS(1);
	struct webnn_operand *op;
	if (!wnn_get_operand(env, argv[0], "operand", &op))
		return NULL;
	struct webnn_operand_desc d;
	webnn_operand_get_desc(op, &d);
	return desc_value(env, &d);
}

static void graph_done(void *user, enum webnn_status s, const char *message,
		       struct webnn_graph *g)
{
	struct call_req *r = user;
	napi_env env = r->env;
	napi_handle_scope scope;
	if (!call_settle_begin(r, &scope)) {
		webnn_graph_destroy(g);
		return;
	}
	if (s == WEBNN_STATUS_OK) {
		call_resolve_wrapped(r, wrap_obj(env, g, r->c, graph_finalize));
	} else {
		call_reject(r, s, message);
	}
	call_free(r);
	napi_close_handle_scope(env, scope);
}

/* build(builder, names[], operands[], ctx, wrap) -> a promise of wrap(graph handle): the graph
 * is sent here, the daemon's compilation is answered on the loop. */
static napi_value builder_build(napi_env env, napi_callback_info info)
{
	ARGS(5);
	struct wnn_obj *b;
	struct wnn_ctx *c;
	uint32_t n = 0, n2 = 0;
	if (!get_builder(env, argv[0], &b) || !get_ctx(env, argv[3], &c))
		return NULL;
	if (c != b->owner)
		return wnn_throw(env, "TypeError", "the MLGraphBuilder belongs to another MLContext");
	NAPI_OK(env, napi_get_array_length(env, argv[1], &n));
	NAPI_OK(env, napi_get_array_length(env, argv[2], &n2));
	if (n != n2 || n == 0)
		return wnn_throw(env, "TypeError", "build() needs at least one named output");
	struct webnn_named_operand *outs = calloc(n, sizeof(*outs));
	char *names = calloc(n, 256);
	napi_value result = NULL;
	if (!outs || !names) {
		wnn_throw(env, "OperationError", "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		napi_value nv, ov;
		if (napi_get_element(env, argv[1], i, &nv) != napi_ok ||
		    napi_get_element(env, argv[2], i, &ov) != napi_ok) {
			wnn_throw_last(env);
			goto out;
		}
		if (!wnn_get_string(env, nv, "output name", names + 256 * (size_t)i, 256) ||
		    !wnn_get_operand(env, ov, "output", &outs[i].operand))
			goto out;
		outs[i].name = names + 256 * (size_t)i;
	}
	napi_value promise;
	struct call_req *r = call_new(env, c, &promise);
	if (!r || !call_wrapper(env, r, argv[4]))
		goto out;
	enum webnn_status s = webnn_builder_build_async(b->p, outs, n, graph_done, r);
	if (s == WEBNN_STATUS_OK) {
		result = promise;
	} else {
		/* Thrown, not rejected: the builder is not spent by a call refused at once. */
		napi_resolve_deferred(env, r->deferred, undefined(env));
		call_free(r);
		wnn_throw_status(env, c, s);
	}
out:
	free(outs);
	free(names);
	return result;
}

static napi_value graph_destroy(napi_env env, napi_callback_info info)
{
	ARGS(1);
	struct wnn_obj *o;
	if (!get_obj(env, argv[0], "graph", &o))
		return NULL;
	webnn_graph_destroy(o->p);
	o->p = NULL;
	return undefined(env);
}

/* graphIO(graph) -> { inputs: {name: desc}, outputs: {name: desc} } */
static napi_value graph_io(napi_env env, napi_callback_info info)
{
	ARGS(1);
	struct wnn_obj *g;
	if (!get_live(env, argv[0], "MLGraph", &g))
		return NULL;
	napi_value o, sides[2];
	NAPI_OK(env, napi_create_object(env, &o));
	for (int side = 0; side < 2; side++) {
		NAPI_OK(env, napi_create_object(env, &sides[side]));
		size_t n = side ? webnn_graph_output_count(g->p) : webnn_graph_input_count(g->p);
		for (size_t i = 0; i < n; i++) {
			struct webnn_operand_desc d;
			const char *name = side ? webnn_graph_output_name(g->p, i, &d)
						: webnn_graph_input_name(g->p, i, &d);
			napi_value dv = desc_value(env, &d);
			if (!dv)
				return NULL;
			NAPI_OK(env, napi_set_named_property(env, sides[side], name, dv));
		}
	}
	NAPI_OK(env, napi_set_named_property(env, o, "inputs", sides[0]));
	NAPI_OK(env, napi_set_named_property(env, o, "outputs", sides[1]));
	return o;
}

/* Reads names[] and tensor handles[] into named tensors (names live in buf). */
static bool named_tensors(napi_env env, napi_value names, napi_value tensors,
			  struct webnn_named_tensor **out, char **buf, uint32_t *n)
{
	uint32_t n2 = 0;
	*out = NULL;
	*buf = NULL;
	if (napi_get_array_length(env, names, n) != napi_ok ||
	    napi_get_array_length(env, tensors, &n2) != napi_ok || *n != n2) {
		wnn_throw(env, "TypeError", "named tensors expected");
		return false;
	}
	*out = calloc(*n ? *n : 1, sizeof(**out));
	*buf = calloc(*n ? *n : 1, 256);
	if (!*out || !*buf) {
		wnn_throw(env, "OperationError", "out of memory");
		return false;
	}
	for (uint32_t i = 0; i < *n; i++) {
		napi_value nv, tv;
		struct wnn_obj *t;
		if (napi_get_element(env, names, i, &nv) != napi_ok ||
		    napi_get_element(env, tensors, i, &tv) != napi_ok) {
			wnn_throw_last(env);
			return false;
		}
		if (!wnn_get_string(env, nv, "tensor name", *buf + 256 * (size_t)i, 256) ||
		    !get_live(env, tv, "MLTensor", &t))
			return false;
		(*out)[i].name = *buf + 256 * (size_t)i;
		(*out)[i].tensor = t->p;
	}
	return true;
}

/* A dispatch's named tensors, converted once for the calls that repeat them (the JavaScript
 * layer checks each time that the same live tensors are given under the same names). */
struct prepared {
	struct webnn_named_tensor *ins, *outs;
	char *ib, *ob;
	uint32_t ni, no;
};

static void prepared_finalize(napi_env env, void *data, void *hint)
{
	(void)env;
	(void)hint;
	struct prepared *p = data;
	free(p->ins);
	free(p->outs);
	free(p->ib);
	free(p->ob);
	free(p);
}

/* prepareDispatch(inNames, inTensors, outNames, outTensors) -> a handle for dispatchPrepared */
static napi_value prepare_dispatch(napi_env env, napi_callback_info info)
{
	ARGS(4);
	struct prepared *p = calloc(1, sizeof(*p));
	napi_value v;
	if (!p)
		return wnn_throw(env, "OperationError", "out of memory");
	if (!named_tensors(env, argv[0], argv[1], &p->ins, &p->ib, &p->ni) ||
	    !named_tensors(env, argv[2], argv[3], &p->outs, &p->ob, &p->no) ||
	    napi_create_external(env, p, prepared_finalize, NULL, &v) != napi_ok) {
		wnn_throw_last(env);
		prepared_finalize(env, p, NULL);
		return NULL;
	}
	return v;
}

/* dispatchPrepared(ctx, graph, prepared) */
static napi_value dispatch_prepared(napi_env env, napi_callback_info info)
{
	ARGS(3);
	struct wnn_ctx *c;
	struct wnn_obj *g;
	void *p = NULL;
	if (!get_ctx(env, argv[0], &c) || !get_live(env, argv[1], "MLGraph", &g))
		return NULL;
	if (napi_get_value_external(env, argv[2], &p) != napi_ok || !p)
		return wnn_throw(env, "TypeError", "not a prepared dispatch");
	const struct prepared *pd = p;
	enum webnn_status s = webnn_context_dispatch(c->ctx, g->p, pd->ins, pd->ni, pd->outs,
						     pd->no);
	return s == WEBNN_STATUS_OK ? undefined(env) : wnn_throw_status(env, c, s);
}

/* flush(ctx): waits for the work sent so far; its first asynchronous error, thrown. */
static napi_value flush(napi_env env, napi_callback_info info)
{
	ARGS(1);
	struct wnn_ctx *c;
	if (!get_ctx(env, argv[0], &c))
		return NULL;
	enum webnn_status s = webnn_context_flush(c->ctx);
	if (s != WEBNN_STATUS_OK)
		return wnn_throw_status(env, c, s);
	return undefined(env);
}

/* ---------------------------------------------------------------- module */

static void prepare_closed(uv_handle_t *h)
{
	free(h);
}

/* The loop is about to sleep: what the contexts hold (dispatches, writes, destroys made since
 * their last request with a reply) is sent now. */
static void on_prepare(uv_prepare_t *h)
{
	struct wnn_inst *inst = h->data;
	for (struct wnn_ctx *c = inst->contexts; c; c = c->next)
		if (c->ctx && webnn_context_has_held(c->ctx) &&
		    webnn_context_send_held(c->ctx) != WEBNN_STATUS_OK && c->has_handle) {
			/* The loss is told from the loop's next turn (on_readable): JavaScript
			 * does not run from here. */
			on_lost_cb(c, "the connection to webnnd failed");
		}
}

static void inst_cleanup(void *arg)
{
	struct wnn_inst *inst = arg;
	inst->closing = true;
	if (inst->prepare) {
		uv_prepare_stop(inst->prepare);
		uv_close((uv_handle_t *)inst->prepare, prepare_closed);
		inst->prepare = NULL;
	}
	/* The environment ends (process exit, worker termination): every context still open is
	 * closed; its handle's finalizer, if it runs later, finds it destroyed. */
	while (inst->contexts) {
		struct wnn_ctx *c = inst->contexts;
		ctx_unlink_destroy(c);
		if (!c->has_handle) /* still being created: no finalizer will free it */
			free(c);
	}
}

static void inst_finalize(napi_env env, void *data, void *hint)
{
	(void)env;
	(void)hint;
	free(data);
}

/* statusError(code): the exception the binding throws for a libwebnn status (its DOMException
 * name, the status's text as message), returned rather than thrown: for the tests, as DataError
 * has no path from JavaScript (the daemon's only one is a damaged graph cache entry). */
static napi_value status_error(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1];
	uint32_t code;
	NAPI_OK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc < 1 || !wnn_get_u32(env, argv[0], "code", &code))
		return argc < 1 ? wnn_throw(env, "TypeError", "statusError(code): no code") : NULL;
	enum webnn_status s = (enum webnn_status)code;
	napi_value err = wnn_error_value(env, webnn_status_name(s), webnn_status_string(s));
	if (!err)
		wnn_throw_last(env);
	return err;
}

NAPI_MODULE_INIT()
{
	struct wnn_inst *inst = calloc(1, sizeof(*inst));
	if (!inst)
		return wnn_throw(env, "OperationError", "out of memory");
	NAPI_OK(env, napi_set_instance_data(env, inst, inst_finalize, NULL));
	NAPI_OK(env, napi_add_env_cleanup_hook(env, inst_cleanup, inst));
	uv_loop_t *loop;
	NAPI_OK(env, napi_get_uv_event_loop(env, &loop));
	inst->prepare = calloc(1, sizeof(*inst->prepare));
	if (!inst->prepare || uv_prepare_init(loop, inst->prepare) != 0) {
		free(inst->prepare);
		inst->prepare = NULL;
		return wnn_throw(env, "OperationError", "cannot watch the event loop");
	}
	inst->prepare->data = inst;
	uv_prepare_start(inst->prepare, on_prepare);
	uv_unref((uv_handle_t *)inst->prepare); /* it keeps nothing alive */
	static const struct {
		const char *name;
		napi_callback fn;
	} fns[] = {
		{ "createContext", create_context },
		{ "contextDestroy", context_destroy },
		{ "contextInfo", context_info },
		{ "opSupportLimits", op_support_limits },
		{ "createTensor", create_tensor },
		{ "createConstantTensor", create_constant_tensor },
		{ "tensorDestroy", tensor_destroy },
		{ "tensorByteLength", tensor_byte_length },
		{ "writeTensor", write_tensor },
		{ "readTensor", read_tensor },
		{ "createBuilder", create_builder },
		{ "builderInput", builder_input },
		{ "builderConstant", builder_constant },
		{ "builderConstantScalar", builder_constant_scalar },
		{ "builderConstantTensor", builder_constant_tensor },
		{ "builderLabel", builder_label },
		{ "builderOp", wnn_builder_op },
		{ "builderBuild", builder_build },
		{ "operandDesc", operand_desc },
		{ "graphDestroy", graph_destroy },
		{ "graphIO", graph_io },
		{ "prepareDispatch", prepare_dispatch },
		{ "dispatchPrepared", dispatch_prepared },
		{ "flush", flush },
		{ "statusError", status_error },
	};
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		napi_value f;
		NAPI_OK(env, napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn,
						  NULL, &f));
		NAPI_OK(env, napi_set_named_property(env, exports, fns[i].name, f));
	}
	napi_value ops = wnn_operators(env);
	if (!ops)
		return NULL;
	NAPI_OK(env, napi_set_named_property(env, exports, "operators", ops));
	return exports;
}
