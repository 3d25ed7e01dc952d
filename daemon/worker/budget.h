/* Memory budgets per connection, per uid and for all users, reserved before allocating; all
 * users' budget leased to the workers by the front door; heap release after abusive clients. */
#ifndef DAEMON_BUDGET_H
#define DAEMON_BUDGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "proto/wnn.h"

struct daemon;
struct session;

/*
 * Nothing about the budgets is shared writable between processes: a compromised worker must
 * not be able to refuse other users' memory or stop workers from starting. A worker serves
 * exactly one uid, so it enforces the connection and uid budgets alone. All users' budget
 * (max_total_bytes) is a pool the front door owns: a worker holds a lease on part of it, asks
 * for more on its lease socket (CONTROL_LEASE_ASK, in chunks, so most charges need no message)
 * and waits for the answer, and returns what it no longer needs (CONTROL_LEASE_RETURN, with
 * hysteresis). The door grants from its own count, never more than max_uid_bytes to one
 * worker, and takes a dead worker's lease back when it reaps it: a lying worker can only hold
 * what its uid could legitimately use.
 */

/* A charge that needs more lease waits this long at most for the front door's answer. */
#define BUDGET_LEASE_WAIT_MS 1000

/* A worker's view of the budgets. */
struct budget {
	bool leasing;               /* false: no front door (in-process fuzzing): this is all users */
	int lease_fd;               /* the lease socket, when leasing */
	_Atomic uint64_t used;      /* the uid's bytes (one worker serves one uid) */
	uint64_t lease;             /* room in all users' budget the front door granted us */
	uint64_t pool_used;         /* every worker's lease together, at the door's last answer */
	uint64_t lease_seq;         /* the last ask's number */
	uint32_t shm_slots;         /* mappings of every connection, against max_uid_shm_slots */
	uint32_t sessions;          /* not yet freed: 0 is an idle worker */
	/* malloc_trim runs on the thread pool (it walks the heap), one at a time. */
	uint64_t released;          /* bytes released since the last trim was asked for */
	bool trimming, trim_again;
	uv_work_t trim_work;
	uv_loop_t *loop;
};

/* ---- the front door */


/* ---- a worker */

/* The allocator policy of a worker, before it allocates much: large blocks are mmap'd (and so
 * returned to the system when freed) at a fixed threshold, so that memory returns to the
 * baseline once abusive clients leave. */
void budget_malloc_policy(void);
/* Starts the worker's accounting with no lease, on the lease socket lease_fd (-1: none, this
 * process is all users). 0, or -errno (lease_fd is not a socket). */
int budget_attach(struct budget *b, uv_loop_t *loop, int lease_fd);
void budget_detach(struct budget *b);

/* Reserves bytes on the connection, the uid and all users together, all or nothing, before the
 * caller allocates them (on the loop thread). false with diag set (NO_MEMORY, naming what, the
 * bytes, the scope and its limit key) when any budget would be exceeded. When the lease is too
 * small it asks the front door for more and waits for the answer (one round trip on a local
 * socket, tens of microseconds; at most BUDGET_LEASE_WAIT_MS: the worker serves one uid, so
 * only that uid waits). */
bool budget_charge(struct session *s, uint64_t bytes, const char *what, struct wnn_diag *diag);
/* The same for memory the connection references but the uid may already hold (constants
 * interned by content, daemon/worker/weights.h): conn_bytes on the connection, bytes (<= conn_bytes)
 * on the uid and all users, all or nothing. */
bool budget_charge_shared(struct session *s, uint64_t conn_bytes, uint64_t bytes,
			  const char *what, struct wnn_diag *diag);
/* Counts bytes the daemon must hold whatever the budgets say (a reply owed to the client); the
 * connection is then not read while it is over a budget and has output queued. */
void budget_force(struct session *s, uint64_t bytes);
void budget_release(struct session *s, uint64_t bytes);
/* The two halves of budget_release, for memory shared by connections of the uid (constants
 * interned by content, daemon/worker/weights.h): each connection that references it stays charged
 * for it, the uid (and all users' budget) once, until the last reference. */
void budget_release_connection(struct session *s, uint64_t bytes);
void budget_release_uid(struct daemon *d, uint64_t bytes);
/* Charges the uid (and all users' budget) for bytes it holds again whatever the budgets say
 * (constant bytes restored, daemon/worker/weights.h), on the loop thread. */
void budget_force_uid(struct daemon *d, uint64_t bytes);
/* What the connection could still charge now (the smallest room of its three budgets). */
uint64_t budget_left(const struct session *s);
/* Some budget the connection counts against is exhausted (only forced charges go past one). */
bool budget_over(const struct session *s);

/* A session was created, and its last reference is gone. When it held a lot, much was released
 * since the last trim, or it was the worker's last, the freed heap goes back to the system
 * (malloc_trim on the thread pool, one at a time: it walks the heap). Blocks of 1 MiB and more
 * went back when they were freed. */
void budget_session_created(struct session *s);
void budget_session_freed(struct session *s);

#ifdef WNN_TEST_HOOKS
/* Test builds only (webnnd-testhooks), for the hostile suite: a Hello whose client_name is
 * "wnn-test:ACTION" makes the worker act as a compromised one against the budgets, and returns
 * true with what happened in reply. ACTION: "lease-ask:NEED:WANT" (ask for a lease),
 * "lease-garbage" (a short datagram on the lease socket), "lease-forge" (a connection
 * hand-off sent the wrong way), "lease-flood" (asks as fast as the socket takes them),
 * "lease-rtt:N" (N asks that change nothing: the round trip's cost), "board" (try to map the
 * shared budget board workers once had, fd 4, writable), "weights" (the uid's charged bytes
 * and the constants shared by content, daemon/worker/weights.h: honest, for tests). */
bool budget_test_hook(struct budget *b, const char *client_name, char *reply, size_t reply_len);
#endif

#endif
