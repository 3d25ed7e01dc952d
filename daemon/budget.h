/* Memory budgets per connection, per uid and for all users, reserved before allocating; the
 * budget board the front door shares with its workers; heap release after abusive clients. */
#ifndef DAEMON_BUDGET_H
#define DAEMON_BUDGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "proto/wnn.h"

struct session;
struct budget_board;

/* A worker's view of the budgets. A worker serves exactly one uid, so its board slot is that
 * uid's usage; the sum of every slot is all users' usage. */
struct budget {
	struct budget_board *board; /* NULL: not attached (in-process fuzzing) - `own` counts */
	size_t board_size;
	uint32_t slot;
	_Atomic uint64_t own;       /* the uid's bytes when there is no board */
	uint32_t shm_slots;         /* mappings of every connection, against max_uid_shm_slots */
	uint32_t sessions;          /* not yet freed: 0 is an idle worker */
	/* malloc_trim runs on the thread pool (it walks the heap), one at a time. */
	uint64_t released;          /* bytes released since the last trim was asked for */
	bool trimming, trim_again;
	uv_work_t trim_work;
	uv_loop_t *loop;
};

/* ---- the front door */

/* Creates the board for n_slots workers: a memfd sealed against shrinking and growing (its fd
 * goes to every worker as CONTROL_BOARD_FD), mapped here for budget_board_reset. NULL with
 * errno set on failure. */
struct budget_board *budget_board_create(uint32_t n_slots, int *fd);
/* A worker died (reaped): what its slot held is gone with it. The frontdoor_config slot_reset
 * hook (ud: the board). */
void budget_board_reset(uint32_t slot, void *board);
void budget_board_destroy(struct budget_board *board, int fd);

/* ---- a worker */

/* The allocator policy of a worker, before it allocates much: large blocks are mmap'd (and so
 * returned to the system when freed) at a fixed threshold, so that memory returns to the
 * baseline once abusive clients leave. */
void budget_malloc_policy(void);
/* Maps the board passed as fd (the worker's slot: `slot`) and becomes its uid's accounting.
 * 0, or -errno (bad fd, wrong size or magic, slot out of range). */
int budget_attach(struct budget *b, uv_loop_t *loop, int fd, uint32_t slot);
void budget_detach(struct budget *b);

/* Reserves bytes on the connection, the uid and all users together, all or nothing, before the
 * caller allocates them. false with diag set (NO_MEMORY, naming what, the bytes, the scope and
 * its limit key) when any budget would be exceeded. */
bool budget_charge(struct session *s, uint64_t bytes, const char *what, struct wnn_diag *diag);
/* Counts bytes the daemon must hold whatever the budgets say (a reply owed to the client); the
 * connection is then not read while it is over a budget and has output queued. */
void budget_force(struct session *s, uint64_t bytes);
void budget_release(struct session *s, uint64_t bytes);
/* What the connection could still charge now (the smallest room of its three budgets). */
uint64_t budget_left(const struct session *s);
/* Some budget the connection counts against is exhausted (only forced charges go past one). */
bool budget_over(const struct session *s);
/* The uid's and all users' usage, for messages and tests. */
uint64_t budget_uid_used(const struct budget *b);
uint64_t budget_total_used(const struct budget *b);

/* A session was created, and its last reference is gone. When it held a lot, much was released
 * since the last trim, or it was the worker's last, the freed heap goes back to the system
 * (malloc_trim on the thread pool, one at a time: it walks the heap). Blocks of 1 MiB and more
 * went back when they were freed. */
void budget_session_created(struct session *s);
void budget_session_freed(struct session *s);

#endif
