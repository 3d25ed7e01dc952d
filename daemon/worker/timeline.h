/* Per-context in-order timelines: commands run one at a time on the libuv thread pool. */
#ifndef DAEMON_TIMELINE_H
#define DAEMON_TIMELINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "proto/webnn.pb-c.h"
#include "proto/wire.h"
#include "proto/wnn.h"

struct constant;
struct context;
struct daemon;
struct mlgraph;
struct obj;
struct shm;
struct tensor;

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
	CMD_FILL_CONSTANT,   /* copies a constant's bytes out of shared memory */
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
	struct mlgraph *graph;     /* referenced (release: owned) */
	/* Release commands: frees the released object once its device memory is gone. */
	void (*release_free)(struct obj *o);
	uint8_t *data;           /* inline write bytes, inline read buffer, or a packed reply */
	size_t size;
	/* WriteTensor without data / ReadTensor.in_place on a tensor with storage: the bytes
	 * stay in the storage; only the backend's tensor_sync moves them (if it has one). */
	bool in_place;
	/* shm-backed write/create/constant bytes: read on the pool, so that no bulk copy runs
	 * on the loop thread; the reply follows, so the client may reuse its slot then. */
	struct shm *src;         /* referenced */
	uint64_t src_off;
	struct constant *constant; /* CMD_FILL_CONSTANT's destination (referenced) */
	uint64_t charged;        /* bytes of data charged to the session's budgets */
	struct shm *dest;        /* ReadTensor destination slot (referenced) */
	uint64_t dest_off;
	struct tensor **ins, **outs; /* dispatch, referenced, in graph order */
	size_t n_ins, n_outs;
	double ms;
	bool queued;             /* pushed: counted in the session's n_pending and the context's
				    n_queued */
	uint64_t pending;        /* bytes counted in the session's pending_bytes */
	/* On the thread pool: the daemon's list of running commands, which the watchdog walks. */
	struct cmd *run_prev, *run_next;
	atomic_uint_least64_t started_ms; /* set by the pool thread as the work begins; 0 before */
	bool timed_out;          /* ran past dispatch_timeout_ms: its context was lost */
	bool quick;              /* runs on the loop thread (the quick path), not the pool */
};

struct cmd *cmd_new(enum cmd_type type, struct context *c);
/* The command's bytes (cmd->size of them) are read from the slot at offset, on the pool. */
void cmd_read_from(struct cmd *cmd, struct shm *slot, uint64_t offset);
/* Frees a command that was never pushed. */
void cmd_discard(struct cmd *cmd);
/* Appends to the context's timeline (taking ownership) and starts it if idle. */
void timeline_push(struct cmd *cmd);

/* Replies of this context's requests, in request order (after the work queued before them). */
void timeline_reply(struct context *c, Webnn__Ipc__Reply *reply);
void timeline_reply_error(struct context *c, uint64_t serial, const struct wnn_diag *diag);
/* A failed request of this context: Reply{error} when serial != 0, else ErrorEvent. */
void timeline_fail(struct context *c, uint64_t serial, uint32_t object_id,
		   const struct wnn_diag *diag);
/* The device context is gone: sends ContextLost once; later work fails with CONTEXT_LOST, and
 * the work running on it is cancelled. */
void timeline_lose(struct context *c, const char *message);
/* The context was destroyed or its connection closed: queued work is dropped and the running
 * command is cancelled (its result discarded). */
void timeline_close(struct context *c);

/*
 * The watchdog: while commands run on the pool, the loop thread looks at them a few times a
 * second. A dispatch or graph build running longer than dispatch_timeout_ms loses its context
 * (ContextLost names the limit) and is cancelled; its backend stops at the next step boundary.
 * A kernel cannot be pre-empted, so one that has still not returned watchdog_grace_ms (at
 * least twice the limit) later ends the worker process with WORKER_EXIT_WATCHDOG: a pool thread
 * (and, on the cpu backend, the one compute thread) would otherwise be lost for good, and the
 * front door tells the worker's clients why and starts a fresh worker for the next connection.
 * The time is wall time from when a pool thread starts the command: on the cpu backend it
 * includes waiting for the compute thread behind the other contexts of the same worker (that
 * is, of the same user), so the limit must leave room for the concurrency a user expects.
 */
/* Closes the watchdog's timer (after the loop ran dry; the loop must run once more). */
void timeline_watchdog_close(struct daemon *d);

#endif
