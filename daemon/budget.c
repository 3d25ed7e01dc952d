/* Memory budgets: the shared budget board (one counter per worker slot), all-or-nothing
 * reservations per connection, uid and all users, and the worker's allocator policy. */
#include "daemon/budget.h"

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Counters shared between processes must not hide a lock. */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");

#define BOARD_MAGIC 0x77626e6e62756467ull /* "wbnnbudg" */

/* The board: no total is stored. Each worker adds to its own slot and then sums the slots in
 * use; a reservation that made the sum exceed the limit is taken back. Of two concurrent
 * reservations the later one sees both (sequentially consistent atomics), so accepted
 * reservations never exceed the limit together. A worker killed at any instruction leaves
 * exactly what it holds in its slot, which the front door zeroes once it has reaped it: a
 * separately maintained total would have a window (between its update and the slot's) where a
 * death leaks or double-counts, and a lock could be held by a stopped or dying worker. */
struct budget_board {
	uint64_t magic;
	uint32_t n_slots;
	_Atomic uint32_t hwm;  /* slots [0, hwm) were used by some worker: the sum's range */
	_Atomic uint64_t used[];
};

static size_t board_bytes(uint32_t n_slots)
{
	size_t n = sizeof(struct budget_board) + sizeof(_Atomic uint64_t) * (size_t)n_slots;
	long page = sysconf(_SC_PAGESIZE);
	size_t p = page > 0 ? (size_t)page : 4096;
	return (n + p - 1) / p * p;
}

struct budget_board *budget_board_create(uint32_t n_slots, int *fd)
{
	size_t size = board_bytes(n_slots);
	int f = memfd_create("webnnd-budgets", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (f < 0)
		return NULL;
	struct budget_board *b = MAP_FAILED;
	if (ftruncate(f, (off_t)size) != 0 ||
	    fcntl(f, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
	    (b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0)) == MAP_FAILED) {
		int err = errno;
		close(f);
		errno = err;
		return NULL;
	}
	b->magic = BOARD_MAGIC;
	b->n_slots = n_slots;
	atomic_init(&b->hwm, 0);
	for (uint32_t i = 0; i < n_slots; i++)
		atomic_init(&b->used[i], 0);
	*fd = f;
	return b;
}

void budget_board_reset(uint32_t slot, void *board)
{
	struct budget_board *b = board;
	if (b && slot < b->n_slots)
		atomic_store(&b->used[slot], 0);
}

void budget_board_destroy(struct budget_board *board, int fd)
{
	if (board)
		munmap(board, board_bytes(board->n_slots));
	if (fd >= 0)
		close(fd);
}

/* ---- a worker */

/* Blocks from 1 MiB up are mmap'd: freeing one returns it at once. A fixed threshold also stops
 * glibc from raising it (up to 32 MiB) after each freed large block, which is how freed frames
 * and tensors used to stay in the heap. At most 16384 such blocks (then the heap serves them):
 * each is a mapping, and the worker's mappings must stay below vm.max_map_count (65530 by
 * default) together with max_uid_shm_slots and the libraries and threads. */
#define BUDGET_MMAP_THRESHOLD (1 << 20)
#define BUDGET_TRIM_THRESHOLD (2 << 20)
#define BUDGET_MMAP_MAX 16384
/* A session that held this much, or this much released since the last trim, asks for one. */
#define BUDGET_TRIM_SESSION_BYTES (4u << 20)
#define BUDGET_TRIM_RELEASED_BYTES (64u << 20)

void budget_malloc_policy(void)
{
	mallopt(M_MMAP_THRESHOLD, BUDGET_MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, BUDGET_TRIM_THRESHOLD);
	mallopt(M_MMAP_MAX, BUDGET_MMAP_MAX);
}

int budget_attach(struct budget *b, uv_loop_t *loop, int fd, uint32_t slot)
{
	b->loop = loop;
	struct stat st;
	if (fstat(fd, &st) != 0)
		return -errno;
	size_t size = (size_t)st.st_size;
	if (size < sizeof(struct budget_board))
		return -EINVAL;
	struct budget_board *board = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (board == MAP_FAILED)
		return -errno;
	if (board->magic != BOARD_MAGIC || size < board_bytes(board->n_slots) ||
	    slot >= board->n_slots) {
		munmap(board, size);
		return -EINVAL;
	}
	/* Raised before this worker reserves anything, so every later sum covers its slot. */
	uint32_t hwm = atomic_load(&board->hwm);
	while (hwm < slot + 1 && !atomic_compare_exchange_weak(&board->hwm, &hwm, slot + 1))
		;
	b->board = board;
	b->board_size = size;
	b->slot = slot;
	return 0;
}

void budget_detach(struct budget *b)
{
	if (b->board)
		munmap(b->board, b->board_size);
	b->board = NULL;
}

static _Atomic uint64_t *uid_counter(struct budget *b)
{
	return b->board ? &b->board->used[b->slot] : &b->own;
}

uint64_t budget_uid_used(const struct budget *b)
{
	return atomic_load(b->board ? &b->board->used[b->slot] : &b->own);
}

uint64_t budget_total_used(const struct budget *b)
{
	if (!b->board)
		return atomic_load(&b->own);
	uint32_t n = atomic_load(&b->board->hwm);
	if (n > b->board->n_slots)
		n = b->board->n_slots;
	uint64_t sum = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = atomic_load(&b->board->used[i]);
		sum = v > UINT64_MAX - sum ? UINT64_MAX : sum + v;
	}
	return sum;
}

/* used + bytes > limit, without overflow (forced charges may already be past the limit). */
static bool exceeds(uint64_t used, uint64_t bytes, uint64_t limit)
{
	return used > limit || bytes > limit - used;
}

bool budget_charge(struct session *s, uint64_t bytes, const char *what, struct wnn_diag *diag)
{
	struct budget *b = &s->d->budget;
	const struct daemon_limits *lim = &s->d->limits;
	if (exceeds(s->mem_bytes, bytes, lim->max_connection_bytes)) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
			     "%s: %" PRIu64 " bytes would exceed the connection's quota "
			     "(max_connection_bytes %" PRIu64 ", %" PRIu64 " in use)",
			     what, bytes, lim->max_connection_bytes, s->mem_bytes);
		return false;
	}
	/* Only this worker writes its slot, and only from the loop thread. */
	_Atomic uint64_t *mine = uid_counter(b);
	uint64_t uid_used = atomic_load(mine);
	if (exceeds(uid_used, bytes, lim->max_uid_bytes)) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
			     "%s: %" PRIu64 " bytes would exceed the memory budget of uid %u "
			     "(max_uid_bytes %" PRIu64 ", %" PRIu64 " in use)",
			     what, bytes, (unsigned)s->uid, lim->max_uid_bytes, uid_used);
		return false;
	}
	atomic_fetch_add(mine, bytes);
	uint64_t total = budget_total_used(b);
	if (total > lim->max_total_bytes) {
		atomic_fetch_sub(mine, bytes);
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
			     "%s: %" PRIu64 " bytes would exceed the memory budget of all users "
			     "(max_total_bytes %" PRIu64 ", %" PRIu64 " in use)",
			     what, bytes, lim->max_total_bytes, total - bytes);
		return false;
	}
	s->mem_bytes += bytes;
	if (s->mem_bytes > s->mem_peak)
		s->mem_peak = s->mem_bytes;
	return true;
}

void budget_force(struct session *s, uint64_t bytes)
{
	atomic_fetch_add(uid_counter(&s->d->budget), bytes);
	s->mem_bytes += bytes;
	if (s->mem_bytes > s->mem_peak)
		s->mem_peak = s->mem_bytes;
}

void budget_release(struct session *s, uint64_t bytes)
{
	struct budget *b = &s->d->budget;
	if (bytes > s->mem_bytes) {
		log_error("session %" PRIu64 ": releasing %" PRIu64 " bytes, %" PRIu64
			  " charged (accounting bug)", s->no, bytes, s->mem_bytes);
		bytes = s->mem_bytes;
	}
	s->mem_bytes -= bytes;
	atomic_fetch_sub(uid_counter(b), bytes);
	b->released += bytes;
}

static uint64_t room(uint64_t used, uint64_t limit)
{
	return used < limit ? limit - used : 0;
}

uint64_t budget_left(const struct session *s)
{
	const struct budget *b = &s->d->budget;
	const struct daemon_limits *lim = &s->d->limits;
	uint64_t left = room(s->mem_bytes, lim->max_connection_bytes);
	uint64_t u = room(budget_uid_used(b), lim->max_uid_bytes);
	uint64_t t = room(budget_total_used(b), lim->max_total_bytes);
	if (u < left)
		left = u;
	return t < left ? t : left;
}

bool budget_over(const struct session *s)
{
	const struct budget *b = &s->d->budget;
	const struct daemon_limits *lim = &s->d->limits;
	return s->mem_bytes > lim->max_connection_bytes || budget_uid_used(b) > lim->max_uid_bytes ||
	       budget_total_used(b) > lim->max_total_bytes;
}

static void budget_trim(struct budget *b);

static void trim_work(uv_work_t *w)
{
	(void)w;
	malloc_trim(0);
}

static void trim_done(uv_work_t *w, int status)
{
	struct budget *b = w->data;
	(void)status;
	b->trimming = false;
	if (b->trim_again) {
		b->trim_again = false;
		budget_trim(b);
	}
}

void budget_session_created(struct session *s)
{
	s->d->budget.sessions++;
}

void budget_session_freed(struct session *s)
{
	struct budget *b = &s->d->budget;
	b->sessions--;
	if (s->mem_peak >= BUDGET_TRIM_SESSION_BYTES || b->released >= BUDGET_TRIM_RELEASED_BYTES ||
	    (b->sessions == 0 && b->released > 0))
		budget_trim(b);
}

static void budget_trim(struct budget *b)
{
	if (!b->loop)
		return;
	if (b->trimming) {
		b->trim_again = true;
		return;
	}
	b->released = 0;
	b->trim_work.data = b;
	if (uv_queue_work(b->loop, &b->trim_work, trim_work, trim_done) == 0)
		b->trimming = true;
}
