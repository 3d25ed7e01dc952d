/* Shared-memory slots (sealed memfds) and the resolution of Data (inline or shm) into copies. */
#ifndef DAEMON_SHM_H
#define DAEMON_SHM_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/webnn.pb-c.h"
#include "daemon/obj.h"
#include "proto/wire.h"
#include "proto/wnn.h"

struct request;

struct shm {
	struct obj obj;
	uint8_t *map;
	uint64_t size;
	bool writable;
};

extern const struct obj_kind shm_kind;

int handle_register_shm(struct session *s, struct request *rq);
int handle_unregister_shm(struct session *s, struct request *rq);

/* Resolves Data (inline or a shm range) into a fresh copy of exactly `expect` bytes, charged
 * to the session's memory budgets before it is made (whoever frees the copy uncharges it).
 * Returns 1 with *out set, 0 with diag filled (size mismatch, over a budget), or -1 on a
 * protocol violation (missing data, unknown slot, range out of bounds; the session is closed). */
int shm_resolve(struct session *s, const Webnn__Ipc__Data *data, uint64_t expect,
		const char *what, uint8_t **out, struct wnn_diag *diag);
/* Checks a ShmRange; returns the slot (not referenced) or NULL after a protocol violation. */
struct shm *shm_range(struct session *s, const Webnn__Ipc__ShmRange *r, const char *what);

#endif
