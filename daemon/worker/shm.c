/* Shared-memory slots (sealed memfds mapped shared) and where a request's Data is. */
#include "daemon/worker/shm.h"

#include "daemon/worker/reply.h"
#include "daemon/worker/request.h"
#include "daemon/worker/session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int handle_register_shm(struct session *s, struct request *rq)
{
	const Webnn__Ipc__RegisterShm *m = rq->msg->register_shm;
	struct wnn_diag diag = { 0 };
	if (rq->n_fds != 1)
		return request_violation(s, "RegisterShm: expected 1 fd, got %d", rq->n_fds);
	if (request_check_new_id(s, m->slot_id, "RegisterShm") < 0)
		return -1;
	int fd = rq->fds[0];
	const struct daemon_limits *lim = &s->d->limits;
	struct budget *b = &s->d->budget;
	if (s->ids.count >= lim->max_objects) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "registerShm: the connection already has %u objects (max_objects)",
			     s->ids.count);
		goto fail;
	}
	/* Each slot is a mapping: the caps keep the worker below vm.max_map_count (a client once
	 * registered 65,400 small memfds and the daemon could no longer start a thread). */
	if (s->n_shm >= lim->max_shm_slots) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "registerShm: the connection already has %u shared-memory slots "
			     "(max_shm_slots)", s->n_shm);
		goto fail;
	}
	if (b->shm_slots >= lim->max_uid_shm_slots) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "registerShm: the connections of uid %u already have %u shared-memory "
			     "slots (max_uid_shm_slots)", (unsigned)s->uid, b->shm_slots);
		goto fail;
	}
	if (m->size == 0) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR, "registerShm: size is 0");
		goto fail;
	}
	/* The slots of one connection together (their bytes are also charged to the memory
	 * budgets, below). */
	if (m->size > lim->max_shm_bytes - s->shm_bytes) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "registerShm: %" PRIu64 " bytes would exceed the connection's shared "
			     "memory quota (max_shm_bytes %" PRIu64 ", %" PRIu64 " registered)",
			     m->size, lim->max_shm_bytes, s->shm_bytes);
		goto fail;
	}
	/* Without F_SEAL_SHRINK the client could truncate the file under our mapping (SIGBUS). */
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "registerShm: the fd is not a sealable memfd (%s)", strerror(errno));
		goto fail;
	}
	if (!(seals & F_SEAL_SHRINK)) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "registerShm: the memfd is not sealed with F_SEAL_SHRINK");
		goto fail;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < m->size) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "registerShm: the memfd holds %lld bytes, fewer than the %" PRIu64
			     " announced", (long long)st.st_size, m->size);
		goto fail;
	}
	if (m->size > SIZE_MAX) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR, "registerShm: size too large");
		goto fail;
	}
	/* The worker may fault in every page of the mapping (a dispatch writing its results, a
	 * read landing in it): once the client unmaps and closes its memfd those pages are held
	 * for it by this worker alone, so the whole sealed size counts against the budgets,
	 * charged before it is mapped. */
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pg = page > 0 ? (uint64_t)page : 4096;
	uint64_t charge = m->size + (pg - m->size % pg) % pg + obj_charge_bytes(sizeof(struct shm));
	if (!session_charge(s, charge, "registerShm", &diag))
		goto fail;
	bool writable = true;
	void *map = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED && (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))) {
		writable = false; /* write-sealed: fine as a source, unusable as a read destination */
		map = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd, 0);
	}
	if (map == MAP_FAILED) {
		session_uncharge(s, charge);
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "registerShm: mmap of %" PRIu64
			     " bytes failed: %s", m->size, strerror(errno));
		goto fail;
	}
	struct shm *sh = calloc(1, sizeof(*sh));
	if (!sh) {
		munmap(map, m->size);
		session_uncharge(s, charge);
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "registerShm: out of memory");
		goto fail;
	}
	session_obj_init(s, &sh->obj, &shm_kind, m->slot_id);
	sh->map = map;
	sh->size = m->size;
	sh->charged = charge;
	sh->writable = writable;
	sh->seals = seals;
	s->shm_bytes += m->size;
	s->n_shm++;
	b->shm_slots++;
	if (session_register(s, &sh->obj) < 0)
		return -1;
	reply_ok(s, rq->serial);
	return 0;
fail:
	reply_error(s, rq->serial, &diag);
	return 0;
}

int handle_unregister_shm(struct session *s, struct request *rq)
{
	struct obj *o = request_lookup(s, rq->msg->unregister_shm->slot_id, &shm_kind,
				       "UnregisterShm");
	if (!o)
		return -1;
	session_forget(s, o);
	return 0;
}

static void shm_finalize(struct obj *o)
{
	struct shm *m = (struct shm *)o;
	struct session *s = m->obj.s;
	munmap(m->map, m->size);
	session_uncharge(s, m->charged);
	s->shm_bytes -= m->size;
	s->n_shm--;
	s->d->budget.shm_slots--;
	free(m);
	session_unref(s);
}

const struct obj_kind shm_kind = { .name = "shm slot", .finalize = shm_finalize };

struct shm *shm_range(struct session *s, const Webnn__Ipc__ShmRange *r, const char *what)
{
	struct obj *o = request_lookup(s, r->slot_id, &shm_kind, what);
	if (!o)
		return NULL;
	struct shm *sh = (struct shm *)o;
	if (r->offset > sh->size || r->size > sh->size - r->offset) {
		request_violation(s, "%s: shm range [%" PRIu64 ", +%" PRIu64 ") is outside slot %"
				     PRIu32 " of %" PRIu64 " bytes",
				  what, r->offset, r->size, r->slot_id, sh->size);
		return NULL;
	}
	return sh;
}

int shm_locate(struct session *s, const Webnn__Ipc__Data *data, uint64_t expect,
	       const char *what, struct shm_source *src, struct wnn_diag *diag)
{
	*src = (struct shm_source){ 0 };
	if (!data) {
		request_violation(s, "%s: data missing", what);
		return -1;
	}
	switch (data->where_case) {
	case WEBNN__IPC__DATA__WHERE_INLINE:
		/* Inline bytes are copied on the loop thread: only small ones (the handshake says
		 * how small) may travel that way. */
		if (data->inline_.len > s->d->limits.max_inline_bytes) {
			wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				     "%s: %zu bytes inline, more than max_inline_bytes (%" PRIu32
				     "): larger data travels through shared memory", what,
				     data->inline_.len, s->d->limits.max_inline_bytes);
			return 0;
		}
		src->bytes = data->inline_.data;
		src->size = data->inline_.len;
		break;
	case WEBNN__IPC__DATA__WHERE_SHM: {
		struct shm *sh = shm_range(s, data->shm, what);
		if (!sh)
			return -1;
		src->slot = sh;
		src->offset = data->shm->offset;
		src->size = data->shm->size;
		break;
	}
	default:
		request_violation(s, "%s: data has neither inline bytes nor a shm range", what);
		return -1;
	}
	if (src->size != expect) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "%s: data is %" PRIu64 " bytes, expected %" PRIu64
			     " (the descriptor's byte length)", what, src->size, expect);
		return 0;
	}
	return 1;
}
