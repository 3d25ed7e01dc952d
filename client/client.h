/* libwebnn internals: the object structs and the connection layer shared by the client sources. */
#ifndef WNNC_CLIENT_H
#define WNNC_CLIENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/webnn.pb-c.h"
#include "proto/wire.h"
#include "proto/wnn.h"
#include "webnn.h"

#define WNNC_MSG_MAX 512

/* One (operator, role) entry of the context's SupportLimits. */
struct wnnc_op_limit {
	const char *op; /* ops.def name, static */
	char *role;
	struct webnn_tensor_limits limits;
};

/* One context = one connection to webnnd. The struct lives while the user's reference or any
 * child (tensor, builder, graph) holds it; the connection closes at webnn_context_destroy. */
struct webnn_context {
	pthread_mutex_t lock;
	unsigned refs;     /* 1 for the user until destroy, plus one per live child */
	bool destroyed;

	int sock;
	struct wnn_reader reader;
	uint64_t next_serial;
	uint32_t next_id;
	uint32_t context_id;
	Webnn__Ipc__Limits limits; /* from the handshake (scalars only) */
	size_t max_inline;

	/* Shared-memory arena: one registered memfd slot, reused; arena_serial != 0 while the daemon
	 * may still be reading it (a WriteTensor/CreateConstant whose reply has not come yet). */
	uint32_t arena_slot;
	int arena_fd;
	uint8_t *arena;
	size_t arena_size;
	uint64_t arena_serial;
	uint64_t arena_seq; /* sent_seq of that request */

	/* Tensor storage (CreateTensor.storage): storage_align from ContextInfo (0: the daemon
	 * keeps every tensor in its own memory); what the tensors' memfd slots hold, kept below
	 * the connection's caps so that the arena always finds room. */
	uint32_t storage_align;
	uint32_t max_shm_slots;
	uint32_t n_storage;
	uint64_t storage_bytes;
	/* webnn_context_hold_sends: frames of requests without a reply, held back to go with the
	 * next request (one sendmsg for several) */
	bool hold_sends;
	uint8_t *held;
	size_t held_len, held_cap;
	/* Completion: every message sent counts in sent_seq; a reply to a request the daemon
	 * answers in timeline order (ordered_reply) means everything sent before it finished,
	 * and done_seq is then that request's sent_seq. */
	uint64_t sent_seq, done_seq;

	/* the devices of the HelloReply (webnn_list_devices) */
	struct webnn_device_info *devices;
	size_t n_devices;

	/* ContextInfo */
	struct webnn_context_info info;
	char *info_strings[5];
	struct webnn_support_limits support;
	struct wnnc_op_limit *op_limits;
	size_t n_op_limits;

	/* First ErrorEvent since the last flush. */
	enum webnn_status pending_status;
	char pending_message[WNNC_MSG_MAX];

	/* Loss: once lost, every call returns WEBNN_STATUS_CONTEXT_LOST. */
	bool lost;
	char lost_message[WNNC_MSG_MAX];
	webnn_lost_cb lost_cb;
	void *lost_ud;
	bool lost_cb_fired;

	/* The asynchronous calls (read, createTensor, build, createContext): sent and not
	 * answered yet (in the order sent), and those answered (or failed), in the order the
	 * answers came, whose callbacks wnnc_unlock runs. */
	struct wnnc_async *pending, **pending_tail;
	struct wnnc_async *done, **done_tail;
	/* webnn_context_create_async: false until the daemon's ContextInfo came */
	bool ready;

	char last_error[WNNC_MSG_MAX];
	/* wnnc_fail ran since wnnc_lock: else wnnc_unlock clears last_error (each public call is
	 * one locked section, so a call that succeeded leaves "") */
	bool call_failed;
};

struct webnn_tensor {
	struct webnn_context *ctx;
	unsigned refs; /* the user's, plus builder operands naming it (constant(tensor)) */
	bool destroyed;
	uint32_t id;
	struct webnn_tensor_desc desc;
	bool constant;
	uint64_t bytes;
	/* The tensor's storage mapped here (map_size bytes, a sealed memfd the daemon maps too);
	 * NULL when the daemon keeps the bytes. */
	uint8_t *map;
	size_t map_size;
	uint64_t last_use;   /* sent_seq of the last command sent that uses the tensor */
	/* webnn_tensor_map(): mapped until webnn_tensor_unmap; shadow is the copy a tensor
	 * without storage is mapped through. */
	bool mapped;
	uint8_t *shadow;
	uint64_t read_serial; /* the latest asynchronous read not answered yet; 0: none */
};

enum wnnc_async_kind {
	WNNC_ASYNC_READ,    /* webnn_context_read_tensor_async */
	WNNC_ASYNC_TENSOR,  /* webnn_context_create_tensor_async / _constant_tensor_async */
	WNNC_ASYNC_GRAPH,   /* webnn_builder_build_async */
	WNNC_ASYNC_HELLO,   /* webnn_context_create_async: the handshake */
	WNNC_ASYNC_CONTEXT, /* webnn_context_create_async: CreateContext */
};

/* An asynchronous call in flight or answered. */
struct wnnc_async {
	struct wnnc_async *next;
	enum wnnc_async_kind kind;
	uint64_t serial, seq;
	struct webnn_tensor *tensor; /* READ: a reference, dropped after the callback;
				      * TENSOR: the new tensor, the caller's on success */
	void *data;                  /* READ */
	size_t size;
	bool in_place;
	uint32_t slot;               /* TENSOR: its storage's slot (0: none) */
	struct webnn_graph *graph;   /* GRAPH: the caller's on success */
	uint32_t *constant_ids;      /* GRAPH: uploaded constants, destroyed once built */
	size_t n_constants;
	webnn_read_cb read_cb;
	webnn_tensor_cb tensor_cb;
	webnn_graph_cb graph_cb;
	webnn_context_cb context_cb;
	void *user_data;
	enum webnn_status status;
	char message[WNNC_MSG_MAX];
};

enum wnnc_operand_kind {
	WNNC_INPUT = WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT,
	WNNC_CONSTANT = WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT,
	WNNC_OUTPUT = WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT,
	WNNC_SCALAR = WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT,
	WNNC_CONSTANT_TENSOR = WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR,
};

struct webnn_operand {
	struct webnn_builder *builder;
	uint32_t id;          /* index in the builder's operand table */
	enum wnnc_operand_kind kind;
	struct wnn_desc desc;
	char *name;           /* inputs */
	void *data;           /* constants: malloc'd copy of the bytes, or the caller's (borrowed) */
	size_t size;
	bool borrowed;        /* data is the caller's (webnn_builder_constant_borrowed) */
	void (*sent)(void *arg, const void *data, size_t size);
	void *sent_arg;
	Webnn__Ipc__Number scalar;
	struct webnn_tensor *tensor; /* constant tensors (holds a reference) */
	int32_t producer;     /* index of the producing operation, -1 for inputs/constants */
};

struct wnnc_arena_block;

struct webnn_builder {
	struct webnn_context *ctx;
	bool built;
	struct wnnc_arena_block *arena;
	struct webnn_operand **operands;
	struct wnn_desc *descs; /* descs[i] == operands[i]->desc, in the layout wnn_op_infer wants */
	size_t n_operands, cap_operands;
	Webnn__Ipc__Operation **ops;
	size_t n_ops, cap_ops;
	char *next_label; /* webnn_builder_set_next_label(); consumed by the next operator call */
};

struct wnnc_graph_io {
	char *name;
	struct wnn_desc desc;
};

struct webnn_graph {
	struct webnn_context *ctx;
	uint32_t id;
	bool destroyed;
	struct wnnc_graph_io *inputs, *outputs;
	size_t n_inputs, n_outputs;
	double compile_ms;
	struct webnn_graph_stats stats;
	uint32_t *op_counts; /* operations as built, per enum wnn_op (WNN_OP_COUNT entries) */
};

/* ---- locking and errors (client/conn.c) */

/* Takes the context lock. */
void wnnc_lock(struct webnn_context *ctx);
/* Releases the lock; runs the lost callback (outside the lock) if the context was lost and the
 * callback has not run yet. */
void wnnc_unlock(struct webnn_context *ctx);
/* Records status + message as the context's last error; returns status. Lock held. */
enum webnn_status wnnc_fail(struct webnn_context *ctx, enum webnn_status status, const char *fmt,
			    ...) __attribute__((format(printf, 3, 4)));
/* WEBNN_STATUS_CONTEXT_LOST (with last_error set) when the context is lost, else OK. */
enum webnn_status wnnc_check_live(struct webnn_context *ctx, const char *what);
/* Marks the context lost (first message wins) and closes nothing; lock held. */
void wnnc_set_lost(struct webnn_context *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Frees the context (its last reference is gone). Lock NOT held. */
void wnnc_context_free(struct webnn_context *ctx);
/* Drops one reference; frees the context when it was the last. Lock NOT held. */
void wnnc_context_unref(struct webnn_context *ctx);

/* Drops one reference to a tensor (the user's or a builder operand's); lock NOT held. */
void wnnc_tensor_release(struct webnn_tensor *t);

/* ---- the connection (client/conn.c); all with the lock held */

/* Connects, handshakes. On failure returns a status and fills msg. */
enum webnn_status wnnc_connect(struct webnn_context *ctx, const char *path,
			       const char *client_name, char *msg, size_t len);
/* Sends the frames webnn_context_hold_sends held back; on failure the context is lost. */
enum webnn_status wnnc_send_held(struct webnn_context *ctx);
/* Closes the socket and the arena. */
void wnnc_disconnect(struct webnn_context *ctx);
uint32_t wnnc_new_id(struct webnn_context *ctx);
uint64_t wnnc_new_serial(struct webnn_context *ctx);
/* Sends one message (with fds); on failure the context is lost. */
enum webnn_status wnnc_send(struct webnn_context *ctx, Webnn__Ipc__ClientMessage *m,
			    const int *fds, int n_fds);
/* Reads until the Reply with this serial arrives, handling events on the way. On success
 * *reply is the unpacked message (free with webnn__ipc__server_message__free_unpacked) and the
 * reply's error, if any, is returned (last_error set, prefixed by what). */
enum webnn_status wnnc_wait_reply(struct webnn_context *ctx, uint64_t serial, const char *what,
				  Webnn__Ipc__ServerMessage **reply);
/* Sends a request with a fresh serial and waits for its reply (reply may be NULL). */
enum webnn_status wnnc_call(struct webnn_context *ctx, Webnn__Ipc__ClientMessage *m,
			    const char *what, Webnn__Ipc__ServerMessage **reply);
/* Everything sent up to sent_seq seq has finished in the daemon. */
void wnnc_done(struct webnn_context *ctx, uint64_t seq);
/* Whether a command sent earlier that uses t may still run (its bytes are not the client's). */
bool wnnc_tensor_busy(const struct webnn_context *ctx, const struct webnn_tensor *t);
/* Handles whatever the daemon sent without blocking. */
enum webnn_status wnnc_poll_events(struct webnn_context *ctx);
/* Queues an asynchronous call sent with serial a->serial (seq: the sent_seq of its request). */
void wnnc_async_add(struct webnn_context *ctx, struct wnnc_async *a);
/* Frees a graph no caller holds (a failed build). */
void wnnc_graph_free(struct webnn_graph *g);
/* Frees a tensor no caller holds (a failed creation): its storage, then the struct. Lock held. */
void wnnc_tensor_free_unowned(struct webnn_tensor *t);
/* The reply to an asynchronous CreateTensor. Lock held. */
void wnnc_tensor_answered(struct webnn_context *ctx, struct wnnc_async *a,
			  const Webnn__Ipc__Reply *reply);
/* Handshake and ContextInfo replies of webnn_context_create_async. Lock held. */
void wnnc_hello_answered(struct webnn_context *ctx, struct wnnc_async *a,
			 const Webnn__Ipc__Reply *reply);
void wnnc_context_answered(struct webnn_context *ctx, struct wnnc_async *a,
			   const Webnn__Ipc__Reply *reply);
/* The reply to an asynchronous BuildGraph. Lock held. */
void wnnc_graph_answered(struct webnn_context *ctx, struct wnnc_async *a,
			 const Webnn__Ipc__Reply *reply);
/* Sends Hello (with a serial); the reply's limits and devices are kept by wnnc_hello_reply. */
enum webnn_status wnnc_send_hello(struct webnn_context *ctx, const char *client_name,
				  uint64_t *serial);
/* Keeps a HelloReply's limits and devices; an error (message in last_error) when unusable. */
enum webnn_status wnnc_hello_reply(struct webnn_context *ctx, const Webnn__Ipc__Reply *reply);
/* Opens the socket (connect(2) on a Unix socket does not wait for the daemon). */
enum webnn_status wnnc_open_socket(struct webnn_context *ctx, const char *path, char *msg,
				   size_t len);
/* A status from the wire (never OK for an error). */
enum webnn_status wnnc_status_from_error(const Webnn__Ipc__Error *e);

/* Waits until the tensor's asynchronous reads are answered (before a command that changes its
 * bytes: an in-place read copies them out when its reply comes). */
void wnnc_wait_reads(struct webnn_context *ctx, struct webnn_tensor *t);

/* Prepares data for a request: inline when small, else copied into the arena (growing it, and
 * waiting for the previous arena user first). *serial is set non-zero when the request must
 * carry a serial (shm); the caller then calls wnnc_arena_sent() after sending. */
enum webnn_status wnnc_put_data(struct webnn_context *ctx, const void *bytes, size_t size,
				const char *what, Webnn__Ipc__Data *data,
				Webnn__Ipc__ShmRange *shm, uint64_t *serial);
void wnnc_arena_sent(struct webnn_context *ctx, uint64_t serial);
/* Makes the arena at least size bytes and idle; for reads through ReadTensor.dest. */
enum webnn_status wnnc_arena_reserve(struct webnn_context *ctx, size_t size, const char *what);

#endif
