/* Shared-memory slots (sealed memfds) and where a request's Data (inline or shm) is. */
#ifndef DAEMON_SHM_H
#define DAEMON_SHM_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/webnn.pb-c.h"
#include "daemon/worker/obj.h"
#include "proto/wire.h"
#include "proto/wnn.h"

struct request;

struct shm {
	struct obj obj;
	uint8_t *map;
	uint64_t size;
	uint64_t charged; /* size rounded up to pages and the header, against the budgets */
	bool writable;
	int seals;  /* F_GET_SEALS at registration (seals are never removed) */
};

extern const struct obj_kind shm_kind;

int handle_register_shm(struct session *s, struct request *rq);
int handle_unregister_shm(struct session *s, struct request *rq);

/* Where a request's Data is: inline bytes in the request, or a range of a registered slot.
 * Bulk bytes are never copied on the loop thread: a command holding the slot reads the range
 * on the thread pool (cmd_read_from in timeline.h). */
struct shm_source {
	const uint8_t *bytes; /* inline: points into the request message; NULL for shm */
	struct shm *slot;     /* shm: the slot (not referenced); NULL for inline */
	uint64_t offset, size;
};

/* Locates Data of exactly `expect` bytes without copying it. Returns 1 with *src set, 0 with
 * diag filled (size mismatch: an invalid request), or -1 on a protocol violation (missing
 * data, unknown slot, range out of bounds; the session is closed). */
int shm_locate(struct session *s, const Webnn__Ipc__Data *data, uint64_t expect,
	       const char *what, struct shm_source *src, struct wnn_diag *diag);
/* Checks a ShmRange; returns the slot (not referenced) or NULL after a protocol violation. */
struct shm *shm_range(struct session *s, const Webnn__Ipc__ShmRange *r, const char *what);

#endif
