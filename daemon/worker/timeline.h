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

struct cmd;
struct constant;
struct context;
struct daemon;
struct mlgraph;
struct obj;
struct shm;
struct tensor;

/* What a kind of command does. Each kind lives with the object it acts on (tensor.c, dispatch.c,
 * mlgraph.c, constant.c, context.c); the timeline only orders, runs and times commands. */
struct cmd_kind {
	const char *verb; /* "dispatch", "build", ...: for the watchdog and logs */
	bool watched;     /* the watchdog times it against dispatch_timeout_ms */
	bool on_lost;     /* it still runs on a lost context (host bytes, queued replies) */
	/* Loop thread, at the head of the timeline: kind-specific checks (a failure sets
	 * cmd->status); false when it completed here and needs no work. For release kinds:
	 * whether there is device memory to free. NULL: nothing to check. */
	bool (*prepare)(struct cmd *cmd);
	/* Whether it may run on the loop thread now (the quick path, below). NULL: never. */
	bool (*quick)(const struct cmd *cmd);
	/* Pool (or quick) thread: backend calls and the command's own fields only. */
	void (*work)(struct cmd *cmd);
	/* Loop thread, after the work or instead of it: replies, events, poison. */
	void (*complete)(struct cmd *cmd, bool ok);
	/* After a quick run that took ns (a plan slow several times leaves the quick path). */
	void (*ran_quick)(struct cmd *cmd, uint64_t ns);
	/* Release kinds (run even on closing or lost contexts): frees the object, whose
	 * references are already 0, once its device memory is gone. */
	void (*release_object)(struct cmd *cmd);
};

struct cmd {
	struct cmd *next;
	const struct cmd_kind *kind;
	struct context *ctx; /* referenced */
	uv_work_t work;
	uint64_t serial;     /* reply with this serial; 0: report failures as ErrorEvent */
	enum webnn_status status;
	struct wnn_diag diag;
	struct tensor *tensor;   /* referenced (release: owned, refs already 0) */
	struct mlgraph *graph;     /* referenced (release: owned) */
	uint8_t *data;           /* inline write bytes, inline read buffer, or a packed reply */
	size_t size;
	/* WriteTensor without data / ReadTensor.in_place on a tensor with storage: the bytes
	 * stay in the storage; only the backend's tensor_sync moves them (if it has one). */
	bool in_place;
	/* shm-backed write/create/constant bytes: read on the pool, so that no bulk copy runs
	 * on the loop thread; the reply follows, so the client may reuse its slot then. */
	struct shm *src;         /* referenced */
	uint64_t src_off;
	struct constant *constant; /* the fill command's destination (referenced) */
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

struct cmd *cmd_new(const struct cmd_kind *kind, struct context *c);
/* The command's bytes (cmd->size of them) are read from the slot at offset, on the pool. */
void cmd_read_from(struct cmd *cmd, struct shm *slot, uint64_t offset);
/* Frees a command that was never pushed. */
void cmd_discard(struct cmd *cmd);
/* Appends to the context's timeline (taking ownership) and starts it if idle. */
void timeline_push(struct cmd *cmd);
/* For kinds: completes the command now (its status set), on the loop thread. */
void cmd_complete(struct cmd *cmd);
/* For kinds' completions: the success reply (serial filled in), or the failure as
 * Reply{error} when the command has a serial, else ErrorEvent naming object_id. */
void cmd_reply_ok(struct cmd *cmd, Webnn__Ipc__Reply *r);
void cmd_fail(struct cmd *cmd, uint32_t object_id);

/*
 * The quick path: a command known to be short runs at once on the loop thread instead of
 * going through the thread pool (and, on the cpu backend, the compute thread): a small
 * dispatch then costs no thread hand-offs, and a read queued behind it is answered in the same
 * wake-up. Known short: a dispatch whose graph's time estimate is under quick_max_ns on a
 * backend that can run the plan on the calling thread alone, and tensor commands of host-memory
 * backends up to QUICK_COPY_BYTES. The loop must stay responsive to every other connection, so
 * quick work is capped per loop tick (QUICK_TICK_NS; the rest takes the pool), and a plan whose
 * quick runs took longer than QUICK_PLAN_NS QUICK_PLAN_STRIKES times in a row (an estimate that
 * was wrong) is not run quick again.
 *
 * The estimate is pessimistic for small graphs of one-thread steps: a wake-word classifier's
 * [1, 1536] x [1536, 128] layer is estimated at ~0.4 ms (its weights counted as elements) and
 * takes ~0.02 ms, and through the pool and the compute thread the same dispatch costs ~0.15 ms
 * more in hand-offs on a loaded machine (webnn-run --iterations 300, hey_jarvis: 0.235 ms by
 * the pool, 0.080 ms on the loop thread). So a plan the backend can run on the calling thread
 * whose estimate is over quick_max_ns but under QUICK_TRIAL_FACTOR times it is tried on the
 * quick path too, and leaves it as any plan does (a graph's first run is cold: hey_jarvis took
 * 0.36 ms, then 0.06).
 */
#define QUICK_COPY_BYTES (64u << 10)
#define QUICK_TICK_NS 1000000u
#define QUICK_PLAN_NS 250000u
#define QUICK_PLAN_STRIKES 3u
#define QUICK_TRIAL_FACTOR 40u /* x quick_max_ns: 2 ms at the default 50 us */

/* Replies of this context's requests, in request order (after the work queued before them). */
void timeline_reply(struct context *c, Webnn__Ipc__Reply *reply);
void timeline_reply_error(struct context *c, uint64_t serial, const struct wnn_diag *diag);
/* A failed request of this context: Reply{error} when serial != 0, else ErrorEvent. */
void timeline_fail(struct context *c, uint64_t serial, uint32_t object_id,
		   const struct wnn_diag *diag);
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
