/* Constant bytes shared by content: every context and graph of a worker that loads the same weights holds one copy. */
#ifndef DAEMON_WEIGHTS_H
#define DAEMON_WEIGHTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A worker serves one uid, so all its connections may share what they load: CreateConstant
 * interns its bytes here (the hash of the bytes finds a candidate; the bytes are compared
 * before sharing, so a collision can never alias different data) and the constant references
 * the shared copy.
 *
 * Budgets (daemon/budget.h): every constant charges its connection for its full size (each
 * connection sees what it would hold alone; max_connection_bytes means what it did), while
 * the uid and all users' budget are charged the shared copy once. CreateConstant reserves
 * the full size on every budget before anything is allocated (all or nothing, as every
 * charge); when the bytes turn out to be a copy of ones already held, the uid's part of that
 * reservation is released at once, and the shared copy's is released with its last
 * reference, whichever connection held it.
 *
 * Thread safety: interning runs on the thread pool (a constant filled from shared memory) or
 * the loop thread (inline bytes); the table is guarded by a mutex, held only to look up,
 * insert and count references (never while hashing, copying or comparing bytes).
 */
struct weights;

/* 64-bit hash of bytes (not cryptographic: equal hashes are always confirmed by comparing the
 * bytes). Fast (four independent multiply-rotate lanes, ~memory bandwidth). */
uint64_t weights_hash(const void *p, size_t n);

/* Interns `bytes` bytes read from src. buf (bytes long, owned by the caller) receives them
 * when they are new; *shared tells whether a copy held already was taken instead (the caller
 * then frees buf). The shared copy, referenced; NULL when out of memory. A candidate whose
 * bytes were given back (weights_drop) is restored to be compared: *restored += its bytes,
 * for the caller to charge to the uid again. */
struct weights *weights_intern(const void *src, uint64_t bytes, void *buf, bool *shared,
			       uint64_t *restored);
/* Looks bytes up without copying: the shared copy (referenced), or NULL when none holds them;
 * *restored as for weights_intern. */
struct weights *weights_find(const void *src, uint64_t bytes, uint64_t *restored);
const void *weights_data(const struct weights *w);
uint64_t weights_bytes(const struct weights *w);
/* Another reference (weights_unref drops it); whether the caller's is the only one. */
void weights_ref(struct weights *w);
bool weights_only_ref(struct weights *w);
/* Drops a reference; true when it was the last and its bytes were resident (they are freed:
 * the caller releases the uid's charge for them; dropped bytes gave theirs back already). */
bool weights_unref(struct weights *w);

/*
 * Giving the bytes back. A backend that reorders a constant into a layout of its own holds a
 * second copy of it; once every plan reads the bytes only through such copies, nothing reads
 * the original until a later compile, a save to the graph cache or a comparison needs it.
 * Readers pin the bytes (a compile of a graph that binds them, a save, a plan that reads them
 * as they are); with no pin, weights_drop gives their pages back while the backend holds a copy
 * it can reproduce them from exactly (backend_impl.prepared_hold), keeping the address (the
 * backend finds its copies by it); weights_pin writes them back first, and so do comparisons
 * by content (intern, find): the same weights sent again still share one copy.
 *
 * Budgets: the uid's charge follows the pages: the caller releases it for what weights_drop
 * gave back and charges again what weights_pin restored.
 */
#define WEIGHTS_DROP_MIN (64u << 10) /* smaller bytes are not worth the bookkeeping */
struct backend_impl;
/* Pins the bytes, restoring them first when dropped (*restored += their size). false when they
 * cannot be restored (out of memory): not pinned. */
bool weights_pin(struct weights *w, uint64_t *restored);
void weights_unpin(struct weights *w);
/* Gives the pages back when nothing pins them and impl holds a copy to restore them from:
 * the bytes given back, or 0. */
uint64_t weights_drop(struct weights *w, const struct backend_impl *impl);
bool weights_dropped(struct weights *w);
/* The shared copies held, their bytes, and of those the bytes given back (for tests and
 * logs). */
void weights_stats(uint64_t *copies, uint64_t *bytes, uint64_t *given);

#endif
