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
 * then frees buf). The shared copy, referenced; NULL when out of memory. */
struct weights *weights_intern(const void *src, uint64_t bytes, void *buf, bool *shared);
/* Looks bytes up without copying: the shared copy (referenced), or NULL when none holds them. */
struct weights *weights_find(const void *src, uint64_t bytes);
const void *weights_data(const struct weights *w);
/* Drops a reference; true when it was the last (the bytes are freed: the caller releases the
 * uid's charge for them). */
bool weights_unref(struct weights *w);
/* The shared copies held and their bytes (for tests and logs). */
void weights_stats(uint64_t *copies, uint64_t *bytes);

#endif
