/* The Node-API addon over libwebnn: the handles, value conversions and errors its files share. */
#ifndef WNN_NODE_ADDON_H
#define WNN_NODE_ADDON_H

#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>
#include <webnn.h>

/* Per-environment state (the main thread and each worker has its own): the contexts still open,
 * closed by the environment's cleanup hook. */
struct wnn_inst {
	struct wnn_ctx *contexts;
	bool closing; /* the environment is being torn down: no more JavaScript */
	uv_prepare_t *prepare; /* before the loop sleeps: the contexts' held requests go out */
};

/* An MLContext: the libwebnn context and the uv_poll on its descriptor. */
struct wnn_ctx {
	struct webnn_context *ctx; /* NULL once destroyed */
	struct wnn_inst *inst;
	napi_env env;
	uv_poll_t *poll;           /* NULL when not polling */
	napi_ref on_lost;          /* JS function(message), called once */
	napi_async_context async;
	napi_ref resource;         /* the async resource of the loop's callbacks */
	napi_ref self;             /* the context's handle: weak, strong while calls are pending */
	unsigned pending;          /* asynchronous calls in flight: the poll keeps the loop alive */
	napi_deferred created;     /* createContext's promise until the daemon answered */
	bool create_failed;        /* that answer was an error: freed once libwebnn returns */
	bool has_handle;           /* a JS handle owns it (else the module's cleanup frees it) */
	char lost_msg[512];
	bool lost, lost_told;
	bool destroying;           /* MLContext.destroy(): pending reads are aborted */
	struct wnn_ctx *next, **pprev;
};

struct call_req;

/* A tensor, builder or graph: p is NULL once destroyed (explicitly or by the finalizer). */
struct wnn_obj {
	void *p;
	struct wnn_ctx *owner; /* for error messages; the JS objects keep the context alive */
	struct call_req *reads; /* a tensor's readTensor() calls in flight (destroy() rejects them) */
};

/* NULL with an exception pending when any of the calls fails. */
#define NAPI_OK(env, call)                                                                     \
	do {                                                                                   \
		if ((call) != napi_ok) {                                                       \
			wnn_throw_last(env);                                                   \
			return NULL;                                                           \
		}                                                                              \
	} while (0)

void wnn_throw_last(napi_env env);
/* Throws TypeError or a DOMException of the given spec name. Returns NULL. */
napi_value wnn_throw(napi_env env, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The exception wnn_throw would throw, as a value (for rejections); NULL on failure. */
napi_value wnn_error_value(napi_env env, const char *name, const char *msg);
/* Throws the exception of a libwebnn status, with the context's last error as its message. */
napi_value wnn_throw_status(napi_env env, struct wnn_ctx *c, enum webnn_status s);
/* Reports a context loss libwebnn noticed during the call just made. */
void wnn_notify_lost(struct wnn_ctx *c);

/* Conversions; false with an exception pending on a bad value. what names it in the message. */
bool wnn_get_u32(napi_env env, napi_value v, const char *what, uint32_t *out);
bool wnn_get_i32(napi_env env, napi_value v, const char *what, int32_t *out);
bool wnn_get_f64(napi_env env, napi_value v, const char *what, double *out);
bool wnn_get_u32_list(napi_env env, napi_value v, const char *what, uint32_t *out, uint32_t max,
		      uint32_t *n);
bool wnn_get_data_type(napi_env env, napi_value v, const char *what, enum webnn_data_type *t);
bool wnn_get_string(napi_env env, napi_value v, const char *what, char *out, size_t len);
bool wnn_get_operand(napi_env env, napi_value v, const char *what, struct webnn_operand **out);
bool wnn_get_bytes(napi_env env, napi_value v, const char *what, void **data, size_t *len);
bool wnn_is_undefined(napi_env env, napi_value v);
/* A member of an options dictionary: *present false (and no exception) when it is undefined or
 * opts itself is undefined/null. */
bool wnn_member(napi_env env, napi_value opts, const char *key, napi_value *out, bool *present);
napi_value wnn_operand_value(napi_env env, struct webnn_operand *op);

/* The operator table (ops.c): every MLGraphBuilder method of ops.def. */
napi_value wnn_operators(napi_env env);
/* builder op: (builder, index, args array) -> operand external or array of them. */
napi_value wnn_builder_op(napi_env env, napi_callback_info info);

#endif
