/* webnnd internals shared by the daemon modules: logging, server, sessions, objects, timelines. */
#ifndef DAEMON_DAEMON_H
#define DAEMON_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <protobuf-c/protobuf-c.h>
#include <uv.h>

#include "daemon/backend/backend.h"
#include "daemon/graph/import.h"
#include "proto/wire.h"
#include "proto/wnn.h"

#define WEBNND_VERSION "0.1"

/* ---- logging (log.c): stderr, one line per message, journald priority prefixes under systemd */
enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };
void log_set_level(enum log_level max);
bool log_enabled(enum log_level level);
void log_msg(enum log_level level, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define log_error(...) log_msg(LOG_LEVEL_ERROR, __FILE__, __LINE__, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LEVEL_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __FILE__, __LINE__, __VA_ARGS__)
#define log_debug(...)                                                                         \
	do {                                                                                   \
		if (log_enabled(LOG_LEVEL_DEBUG))                                              \
			log_msg(LOG_LEVEL_DEBUG, __FILE__, __LINE__, __VA_ARGS__);             \
	} while (0)

/* ---- limits announced in HelloReply.limits (and the unannounced per-connection byte quota) */
struct daemon_limits {
	uint32_t max_frame_bytes;
	uint32_t max_inline_bytes;
	uint32_t max_fds_per_frame;
	uint32_t max_objects;       /* live ids of one connection */
	uint64_t max_shm_bytes;     /* registered shared memory of one connection */
	uint64_t max_tensor_bytes;  /* one tensor or constant */
	uint32_t max_rank;
	uint32_t max_operations;    /* operations of one graph */
	uint32_t max_operands;      /* operands of one graph */
	uint64_t max_session_bytes; /* tensors + constants + retained graphs of one connection */
	size_t unpack_budget;       /* heap one protobuf unpack may use */
	uint32_t max_sessions;      /* connections served at once */
	uint32_t max_contexts;      /* live contexts of one connection (each holds a device queue) */
};

/* The (operator, role) limits of opSupportLimits for the active backend, built once. */
struct daemon_op_limits {
	Webnn__Ipc__TensorLimit *items;
	Webnn__Ipc__TensorLimit **ptrs;
	char (*roles)[32];
	size_t n;
	uint32_t input_types, constant_types, output_types;
};

struct session;

struct daemon {
	uv_loop_t *loop;
	const struct backend_impl *impl;
	struct backend *be;
	struct daemon_limits limits;
	struct daemon_op_limits op_limits;
	int listen_fd;
	uv_poll_t listen_poll;
	bool listening;
	bool stopping;
	struct session *sessions; /* doubly linked through session.prev/next */
	uint32_t n_sessions;
	uint64_t next_session_no;
};

void daemon_limits_default(struct daemon_limits *l);

/* ---- server.c: listening socket and per-connection I/O */
/* Binds path (creating its parent directory; replaces a stale socket nobody answers on).
 * Returns the listening fd or -errno with a logged reason. */
int server_bind(const char *path);
/* Starts accepting on fd (bound here or inherited from systemd). */
int server_start(struct daemon *d, int fd);
/* Stops accepting and closes every connection (shutdown). */
void server_stop(struct daemon *d);
/* Queues one packed frame (ownership of buf passes) and tries to send it right away. */
void server_queue(struct session *s, uint8_t *buf, size_t len);
/* Closes the connection's socket (after a best-effort flush of queued frames). */
void server_close_conn(struct session *s);
/* Re-evaluates what the connection waits for (after its backlog of queued work shrank). */
void server_resume(struct session *s);

/* ---- objects: one id space per connection (idmap.c) */
enum obj_kind { OBJ_CONTEXT = 1, OBJ_TENSOR, OBJ_CONSTANT, OBJ_GRAPH, OBJ_SHM };

struct obj {
	uint32_t id;
	enum obj_kind kind;
	int refs;             /* loop thread only */
	struct session *s;    /* each live object holds a session reference */
	struct obj *dead_next;
};

const char *obj_kind_name(enum obj_kind k);
void obj_init(struct obj *o, struct session *s, enum obj_kind kind, uint32_t id);
void obj_ref(struct obj *o);
/* Drops a reference; the last one finalises the object by kind (possibly through its
 * context's timeline, so that device memory is released in order). */
void obj_unref(struct obj *o);

struct idmap {
	struct obj **slots;
	uint32_t cap, count;
};
void idmap_init(struct idmap *m);
void idmap_finish(struct idmap *m);
/* 0, -EEXIST when the id is live, -ENOMEM. */
int idmap_insert(struct idmap *m, struct obj *o);
struct obj *idmap_get(const struct idmap *m, uint32_t id);
struct obj *idmap_remove(struct idmap *m, uint32_t id);
/* Removes every object matching pred (all when pred is NULL) and returns them chained through
 * dead_next, still holding the map's references (the caller drops them). Allocation-free. */
struct obj *idmap_take(struct idmap *m, bool (*pred)(const struct obj *o, void *ud), void *ud);

/* ---- shared memory slots (shm.c) */
struct shm {
	struct obj obj;
	uint8_t *map;
	uint64_t size;
	bool writable;
};

/* ---- contexts and timelines (context.c, timeline.c) */
struct cmd;

struct context {
	struct obj obj;
	struct backend_context *bctx;
	struct backend_device_info info;
	bool lost;      /* ContextLost sent; later work fails with CONTEXT_LOST */
	bool closing;   /* destroyed or its connection closed: queued work is dropped */
	char lost_msg[WNN_MAX_DIAG];
	struct cmd *head, *tail; /* the timeline: in order, one at a time */
	bool running, kicking;
};

struct tensor {
	struct obj obj;
	struct context *ctx;
	struct wnn_desc desc;
	uint64_t bytes;             /* byte length */
	uint64_t charged;           /* against the connection's quota */
	bool readable, writable, constant;
	bool failed;                /* creation failed: never usable */
	struct backend_tensor *bt;  /* written by the create command on the pool */
	void *host;                 /* constant tensors: the initial bytes, for graphs */
	char *poison;               /* why the contents are invalid (failed dispatch), or NULL */
};

struct constant {
	struct obj obj;
	struct context *ctx;
	struct wnn_desc desc;
	uint64_t bytes;
	void *data;
};

struct graph {
	struct obj obj;
	struct context *ctx;
	Webnn__Ipc__ClientMessage *msg; /* retained BuildGraph request: owns the GraphInfo */
	struct graph_source bg;          /* what the IR is imported from (points into msg) */
	struct graph_ir *ir;             /* imported by the compile command, freed with the plan */
	struct wnn_desc *descs;
	const void **cdata;
	uint32_t *in_ops, *out_ops;
	struct obj **deps;               /* constants and constant tensors referenced */
	size_t n_deps;
	uint8_t *scalars;                /* bytes of scalar constants */
	uint64_t mem_bytes;
	struct backend_plan *plan;       /* set by the compile command */
	bool compiled, failed;
	char fail_msg[WNN_MAX_DIAG];
};

void context_limits_init(struct daemon *d);
void context_limits_finish(struct daemon *d);
/* Sends ContextLost once and marks the context lost. */
void context_lose(struct context *c, const char *message);
void context_finalize(struct context *c);
void tensor_finalize(struct tensor *t);
void graph_finalize(struct graph *g);
void constant_finalize(struct constant *k);
void shm_finalize(struct shm *m);

/* Timeline commands. The release kinds run even on closing or lost contexts. */
enum cmd_type {
	CMD_CREATE_TENSOR,
	CMD_WRITE,
	CMD_READ,
	CMD_DISPATCH,
	CMD_COMPILE,
	CMD_FLUSH,
	CMD_REPLY,
	CMD_RELEASE_TENSOR,
	CMD_RELEASE_GRAPH,
};

struct cmd {
	struct cmd *next;
	enum cmd_type type;
	struct context *ctx; /* referenced */
	uv_work_t work;
	uint64_t serial;     /* reply with this serial; 0: report failures as ErrorEvent */
	enum webnn_status status;
	struct wnn_diag diag;
	struct tensor *tensor;   /* referenced (release: owned, refs already 0) */
	struct graph *graph;     /* referenced (release: owned) */
	uint8_t *data;           /* write/create bytes, inline read buffer, or a packed reply */
	size_t size;
	struct shm *dest;        /* ReadTensor destination slot (referenced) */
	uint64_t dest_off;
	struct tensor **ins, **outs; /* dispatch, referenced, in graph order */
	size_t n_ins, n_outs;
	double ms;
	bool queued;             /* pushed: counted in the session's n_pending */
	uint64_t pending;        /* bytes counted in the session's pending_bytes */
};

struct cmd *cmd_new(enum cmd_type type, struct context *c);
/* Frees a command that was never pushed. */
void cmd_discard(struct cmd *cmd);
/* Appends to the context's timeline (taking ownership) and starts it if idle. */
void timeline_push(struct cmd *cmd);
/* Sends a reply for a request of this context in request order (after queued work). */
void context_reply(struct context *c, Webnn__Ipc__Reply *reply);
void context_reply_error(struct context *c, uint64_t serial, const struct wnn_diag *diag);
/* A failed request of this context: Reply{error} when serial != 0, else ErrorEvent. */
void context_fail(struct context *c, uint64_t serial, uint32_t object_id,
		  const struct wnn_diag *diag);

/* ---- sessions (session.c) */
struct outbuf {
	struct outbuf *next;
	uint8_t *buf;
	size_t len, off;
};

struct session {
	struct daemon *d;
	struct session *prev, *next;
	uint64_t no;         /* for logs */
	int refs;            /* connection + every live object + in-flight work */
	int fd;
	uv_poll_t poll;
	bool poll_active;    /* poll handle initialised and not yet closed */
	bool closed;         /* connection gone: replies are dropped */
	int poll_events;
	struct wnn_reader reader;
	struct outbuf *out_head, *out_tail;
	size_t out_bytes;
	bool hello_done;
	char name[64];
	pid_t pid;
	uid_t uid;
	struct idmap ids;
	uint64_t shm_bytes, mem_bytes;
	size_t unpack_used, unpack_limit;
	uint32_t n_pending;     /* commands queued on this connection's timelines */
	uint32_t n_contexts;    /* live contexts, against limits.max_contexts */
	uint64_t pending_bytes; /* data those commands hold (writes, read buffers, replies) */
};

struct session *session_create(struct daemon *d, int fd);
void session_ref(struct session *s);
void session_unref(struct session *s);
/* Handles bytes readable on the socket; returns false when the connection is finished. */
void session_on_readable(struct session *s);
/* Too much work queued: the connection is not read from until some of it completes, so that a
 * client pipelining requests cannot make the daemon hold unbounded memory. */
bool session_backlogged(const struct session *s);
/* Closes the connection (no Goodbye) and drops every object it named. Safe to call twice. */
void session_close(struct session *s, const char *why);
/* Protocol violation: Goodbye{reason} then close. Always returns -1 for handler convenience. */
int session_violation(struct session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Packs and queues a ServerMessage (dropped once the connection is closed). */
void session_send(struct session *s, const Webnn__Ipc__ServerMessage *m);
void session_send_reply(struct session *s, Webnn__Ipc__Reply *reply);
void session_send_error_reply(struct session *s, uint64_t serial, const struct wnn_diag *diag);
void session_send_error_event(struct session *s, uint32_t context_id, uint32_t object_id,
			      const struct wnn_diag *diag);
/* Looks an id up with its kind; a missing, zero or wrong-kind id is a protocol violation
 * (then NULL is returned and the session is closed). */
struct obj *session_lookup(struct session *s, uint32_t id, enum obj_kind kind, const char *what);
/* Checks a new id (non-zero and unused); a violation otherwise. Returns 0 or -1. */
int session_check_new_id(struct session *s, uint32_t id, const char *what);
/* Registers a new object under its id (taking the caller's reference). 0, or -1 on failure
 * (out of memory: the object reference is dropped). */
int session_register(struct session *s, struct obj *o);
/* Removes o from the id map (if it is still there under its id) and drops the map's reference. */
void session_forget(struct session *s, struct obj *o);
/* Budgeted protobuf-c allocator; messages unpacked with it are freed with session_pb_free(). */
void session_pb_free(Webnn__Ipc__ClientMessage *m);

/* Quota accounting; charge returns false (leaving counters unchanged) over the limit. */
bool session_charge(struct session *s, uint64_t bytes);
void session_uncharge(struct session *s, uint64_t bytes);

/* ---- request handlers (handlers in context.c, shm.c, tensor.c, graph.c) */
struct request {
	Webnn__Ipc__ClientMessage *msg;
	uint64_t serial;
	int *fds;      /* the frame's fds; a handler that keeps one sets it to -1 */
	int n_fds;
	bool retained; /* the handler kept msg (freed later with session_pb_free) */
};
typedef int (*handler_fn)(struct session *s, struct request *rq);

int handle_hello(struct session *s, struct request *rq);
int handle_register_shm(struct session *s, struct request *rq);
int handle_unregister_shm(struct session *s, struct request *rq);
int handle_create_context(struct session *s, struct request *rq);
int handle_destroy_context(struct session *s, struct request *rq);
int handle_create_tensor(struct session *s, struct request *rq);
int handle_write_tensor(struct session *s, struct request *rq);
int handle_read_tensor(struct session *s, struct request *rq);
int handle_destroy_tensor(struct session *s, struct request *rq);
int handle_create_constant(struct session *s, struct request *rq);
int handle_destroy_constant(struct session *s, struct request *rq);
int handle_build_graph(struct session *s, struct request *rq);
int handle_destroy_graph(struct session *s, struct request *rq);
int handle_dispatch(struct session *s, struct request *rq);
int handle_flush(struct session *s, struct request *rq);

/* Resolves Data (inline or a shm range) into a fresh copy of exactly `expect` bytes.
 * Returns 1 with *out set, 0 with diag filled (size mismatch: an invalid request), or -1 on a
 * protocol violation (missing data, unknown slot, range out of bounds; the session is closed). */
int shm_resolve(struct session *s, const Webnn__Ipc__Data *data, uint64_t expect,
		const char *what, uint8_t **out, struct wnn_diag *diag);
/* Checks a ShmRange; returns the slot (not referenced) or NULL after a protocol violation. */
struct shm *shm_range(struct session *s, const Webnn__Ipc__ShmRange *r, const char *what);

#endif
