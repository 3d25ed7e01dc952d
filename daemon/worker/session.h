/* One client connection: its socket, frame reader, ids, quotas and backlog; reference counted. */
#ifndef DAEMON_SESSION_H
#define DAEMON_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/worker/conn.h"
#include "daemon/worker/daemon.h"
#include "daemon/worker/obj.h"
#include "proto/wire.h"
#include "proto/wnn.h"

struct session;

/* What the creator of a session decides: how its frames are read and who learns of its end. */
struct session_hooks {
	void (*readable)(struct session *s);        /* bytes (or EOF) on the socket */
	void (*ended)(struct session *s, void *ud); /* closed: no more frames, replies dropped */
	void *ud;
};

struct session {
	struct daemon *d;
	const struct session_hooks *hooks;
	struct session *prev, *next; /* the list of whoever created it (the server) */
	uint64_t no;         /* for logs */
	int refs;            /* connection + every live object + in-flight work */
	struct conn conn;
	bool closed;         /* connection gone: replies are dropped */
	struct wnn_reader reader;
	bool hello_done;
	uint64_t adopted_ms;       /* loop time at adoption: the Hello deadline counts from here */
	uint64_t partial_since_ms; /* loop time the buffered partial frame began; 0: none */
	char name[64];
	pid_t pid;
	uid_t uid;
	struct idmap ids;
	uint64_t shm_bytes;     /* registered shared memory, against max_shm_bytes */
	uint32_t n_shm;         /* registered shm slots (one mapping each), against max_shm_slots */
	/* Bytes charged to the memory budgets (daemon/budget.h): objects, queued command data,
	 * the frame being read (frame_charged of it) and unsent replies. */
	uint64_t mem_bytes, mem_peak, frame_charged;
	size_t unpack_used, unpack_limit;
	uint32_t n_pending;     /* commands queued on this connection's timelines */
	uint32_t n_contexts;    /* live contexts, against limits.max_contexts */
	uint64_t pending_bytes; /* data those commands hold (writes, read buffers, replies) */
	uint32_t n_full_contexts; /* contexts at max_inflight_per_context commands */
};

/* A session for an accepted socket (not watched yet: session_watch). NULL when out of memory. */
struct session *session_create(struct daemon *d, int fd, uint64_t no,
			       const struct session_hooks *hooks);
/* Starts reading the socket on the daemon's loop. 0 or a libuv error. */
int session_watch(struct session *s);
void session_ref(struct session *s);
void session_unref(struct session *s);
/* Closes the connection and drops every object it named; hooks->ended runs once. */
void session_close(struct session *s, const char *why);
/* Queues one packed frame (ownership passes); dropped once the connection is closed. It counts
 * against the memory budgets until sent (a reply is owed, so it is never refused; see
 * session_backlogged). */
void session_queue(struct session *s, uint8_t *buf, size_t len);

/* Too much work queued (on the connection, or max_inflight_per_context on one of its contexts),
 * or replies unread while a memory budget is exhausted: the connection is not read from until
 * some of it completes or its peer catches up, so that a client pipelining requests or never
 * reading cannot make the daemon hold unbounded memory or work. */
bool session_backlogged(const struct session *s);
/* Work queued on a timeline for this connection, and its completion (reading resumes). */
void session_pending_add(struct session *s, uint64_t bytes);
void session_pending_done(struct session *s, uint64_t bytes);
/* One of its contexts reached max_inflight_per_context commands (full) or went below it again
 * (reading resumes with the next session_pending_done). */
void session_context_full(struct session *s, bool full);

/* A new object of this connection (one reference for the caller; it holds the session). */
void session_obj_init(struct session *s, struct obj *o, const struct obj_kind *kind, uint32_t id);
/* Registers a new object under its id (taking the caller's reference). 0, or -1 on failure
 * (out of memory: the object reference is dropped and the session closed). */
int session_register(struct session *s, struct obj *o);
/* Removes o from the id map (if it is still there under its id) and drops the map's reference. */
void session_forget(struct session *s, struct obj *o);

/* Memory budgets (connection, uid, all users; daemon/budget.h), reserved before allocating:
 * false with diag set (NO_MEMORY naming what, the bytes and the limit key), nothing charged. */
bool session_charge(struct session *s, uint64_t bytes, const char *what, struct wnn_diag *diag);
void session_uncharge(struct session *s, uint64_t bytes);

#endif
