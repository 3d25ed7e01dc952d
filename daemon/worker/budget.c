/* Memory budgets: all users' budget leased by the front door, all-or-nothing reservations per
 * connection, uid and all users, and the worker's allocator policy. */
#include "daemon/worker/budget.h"

#include "daemon/control.h"
#include "daemon/worker/daemon.h"
#include "daemon/log.h"
#include "daemon/worker/session.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

int budget_attach(struct budget *b, uv_loop_t *loop, int lease_fd)
{
	b->loop = loop;
	b->leasing = false;
	b->lease = 0;
	b->pool_used = 0;
	b->lease_seq = 0;
	atomic_init(&b->used, 0);
	if (lease_fd < 0)
		return 0;
	struct stat st;
	if (fstat(lease_fd, &st) != 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	b->lease_fd = lease_fd;
	b->leasing = true;
	return 0;
}

void budget_detach(struct budget *b)
{
	b->leasing = false;
}

/* The uid's usage, and all users' (every worker's lease, as of the front door's last answer;
 * this process's usage without a front door), for the messages. */
static uint64_t budget_uid_used(const struct budget *b)
{
	return atomic_load(&b->used);
}

static uint64_t budget_total_used(const struct budget *b)
{
	return b->leasing ? b->pool_used : atomic_load(&b->used);
}

/* Leases grow by at least this much, and are returned once this much twice over is unused:
 * most charges then need no message, and a worker whose use hovers does not chatter. At most
 * 4 MiB, and 1/64 of all users' budget, so that the room held unused by the workers stays
 * small beside it (at most two chunks each). */
static uint64_t lease_chunk(const struct daemon_limits *lim)
{
	uint64_t c = lim->max_total_bytes / 64;
	return c < (4u << 20) ? c : (4u << 20);
}

static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

enum lease_answer {
	LEASE_GRANTED,
	LEASE_REFUSED,
	LEASE_NO_ANSWER, /* the front door did not answer in time, or the channel failed */
};

/* Sends an ask for a lease of `want` bytes (`need` at least) and waits for its grant, skipping
 * the grants of earlier asks that timed out. LEASE_GRANTED: *grant is the answer (whatever it
 * gave); LEASE_NO_ANSWER with *why. */
static enum lease_answer lease_exchange(struct budget *b, uint64_t need, uint64_t want,
					struct control_msg *grant, const char **why)
{
	struct control_msg m;
	int fd;
	/* Answers to asks that timed out. */
	while (control_recv(b->lease_fd, &m, &fd) == 1)
		if (fd >= 0)
			close(fd);
	struct control_msg ask = { .type = CONTROL_LEASE_ASK, .no = ++b->lease_seq, .lease = want,
				   .lease_min = need };
	uint64_t deadline = mono_us() + BUDGET_LEASE_WAIT_MS * 1000ull;
	int r;
	/* A full socket: the front door reads a flood's backlog at a bounded rate. */
	while ((r = control_send(b->lease_fd, &ask, -1)) == -EAGAIN) {
		uint64_t now = mono_us();
		struct pollfd p = { .fd = b->lease_fd, .events = POLLOUT };
		if (now >= deadline ||
		    (poll(&p, 1, (int)((deadline - now + 999) / 1000)) < 0 && errno != EINTR))
			break;
	}
	if (r < 0) {
		*why = r == -EAGAIN ? "the front door is not reading its lease channel"
				    : "the front door's lease channel is closed";
		return LEASE_NO_ANSWER;
	}
	for (;;) {
		r = control_recv(b->lease_fd, &m, &fd);
		if (fd >= 0)
			close(fd);
		if (r == 1 && m.type == CONTROL_LEASE_GRANT && m.no == ask.no) {
			*grant = m;
			return LEASE_GRANTED;
		}
		if (r == 1 || r == -EPROTO)
			continue; /* a stale grant; nothing else comes this way from an intact door */
		if (r != -EAGAIN) {
			*why = "the front door's lease channel is closed";
			return LEASE_NO_ANSWER;
		}
		uint64_t now = mono_us();
		if (now >= deadline)
			break;
		struct pollfd p = { .fd = b->lease_fd, .events = POLLIN };
		int ms = (int)((deadline - now + 999) / 1000);
		if (poll(&p, 1, ms) < 0 && errno != EINTR) {
			*why = "cannot wait for the front door's answer";
			return LEASE_NO_ANSWER;
		}
	}
	log_warn("the front door did not answer a lease ask within %d ms", BUDGET_LEASE_WAIT_MS);
	*why = "the front door did not answer in time";
	return LEASE_NO_ANSWER;
}

/* Asks the front door for a lease of `want` bytes, `need` at least, and adopts its answer
 * (every grant states the whole lease). The loop thread waits: the worker serves one uid
 * only, so only that uid's requests wait with it. */
static enum lease_answer lease_ask(struct budget *b, uint64_t need, uint64_t want,
				   const char **why)
{
	struct control_msg g;
	if (lease_exchange(b, need, want, &g, why) != LEASE_GRANTED)
		return LEASE_NO_ANSWER;
	b->lease = g.lease;
	b->pool_used = g.pool_used;
	return g.lease >= need ? LEASE_GRANTED : LEASE_REFUSED;
}

/* Asks the pool for a larger lease when used passes the one held (up to max_uid_bytes). */
static void lease_cover(struct budget *b, const struct daemon_limits *lim, uint64_t used)
{
	if (b->leasing && used > b->lease && b->lease < lim->max_uid_bytes) {
		uint64_t need = used < lim->max_uid_bytes ? used : lim->max_uid_bytes;
		uint64_t want = need + lease_chunk(lim);
		if (want > lim->max_uid_bytes || want < need)
			want = lim->max_uid_bytes;
		const char *why;
		lease_ask(b, need, want, &why);
	}
}

/* Room that is well beyond the use goes back to the pool (a chunk stays as headroom; an idle
 * worker keeps nothing). A return that cannot be sent now leaves the lease as it is. */
static void lease_trim(struct budget *b, const struct daemon_limits *lim, bool idle)
{
	if (!b->leasing)
		return;
	uint64_t used = atomic_load(&b->used);
	uint64_t chunk = lease_chunk(lim);
	uint64_t to;
	if (idle)
		to = used;
	else if (b->lease > used && b->lease - used > 2 * chunk)
		to = used + chunk;
	else
		return;
	if (to >= b->lease)
		return;
	struct control_msg m = { .type = CONTROL_LEASE_RETURN, .lease = to };
	if (control_send(b->lease_fd, &m, -1) == 0) {
		b->pool_used -= b->pool_used >= b->lease - to ? b->lease - to : b->pool_used;
		b->lease = to;
	}
}

/* used + bytes > limit, without overflow (forced charges may already be past the limit). */
static bool exceeds(uint64_t used, uint64_t bytes, uint64_t limit)
{
	return used > limit || bytes > limit - used;
}

bool budget_charge(struct session *s, uint64_t bytes, const char *what, struct wnn_diag *diag)
{
	return budget_charge_shared(s, bytes, bytes, what, diag);
}

bool budget_charge_shared(struct session *s, uint64_t conn_bytes, uint64_t bytes,
			  const char *what, struct wnn_diag *diag)
{
	struct budget *b = &s->d->budget;
	const struct daemon_limits *lim = &s->d->limits;
	if (exceeds(s->mem_bytes, conn_bytes, lim->max_connection_bytes)) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
			     "%s: %" PRIu64 " bytes would exceed the connection's quota "
			     "(max_connection_bytes %" PRIu64 ", %" PRIu64 " in use)",
			     what, conn_bytes, lim->max_connection_bytes, s->mem_bytes);
		return false;
	}
	uint64_t uid_used = atomic_load(&b->used);
	if (exceeds(uid_used, bytes, lim->max_uid_bytes)) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
			     "%s: %" PRIu64 " bytes would exceed the memory budget of uid %u "
			     "(max_uid_bytes %" PRIu64 ", %" PRIu64 " in use)",
			     what, bytes, (unsigned)s->uid, lim->max_uid_bytes, uid_used);
		return false;
	}
	/* uid_used + bytes <= max_uid_bytes from here: no overflow. */
	uint64_t need = uid_used + bytes;
	if (!b->leasing ? need > lim->max_total_bytes : need > b->lease) {
		const char *why = NULL;
		uint64_t want = need + lease_chunk(lim);
		if (want > lim->max_uid_bytes || want < need)
			want = lim->max_uid_bytes;
		enum lease_answer a = !b->leasing ? LEASE_REFUSED : lease_ask(b, need, want, &why);
		if (a == LEASE_NO_ANSWER) {
			wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
				     "%s: %" PRIu64 " bytes: no room in the memory budget of all users "
				     "(max_total_bytes %" PRIu64 "): %s",
				     what, bytes, lim->max_total_bytes, why);
			return false;
		}
		if (a == LEASE_REFUSED) {
			uint64_t total = budget_total_used(b);
			wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
				     "%s: %" PRIu64 " bytes would exceed the memory budget of all users "
				     "(max_total_bytes %" PRIu64 ", %" PRIu64 " in use)",
				     what, bytes, lim->max_total_bytes, total);
			return false;
		}
	}
	atomic_store(&b->used, need);
	s->mem_bytes += conn_bytes;
	if (s->mem_bytes > s->mem_peak)
		s->mem_peak = s->mem_bytes;
	return true;
}

void budget_force(struct session *s, uint64_t bytes)
{
	struct budget *b = &s->d->budget;
	const struct daemon_limits *lim = &s->d->limits;
	uint64_t used = atomic_load(&b->used);
	used = bytes > UINT64_MAX - used ? UINT64_MAX : used + bytes;
	atomic_store(&b->used, used);
	s->mem_bytes += bytes;
	if (s->mem_bytes > s->mem_peak)
		s->mem_peak = s->mem_bytes;
	/* The bytes are held whatever the answer; a lease that cannot cover them leaves the
	 * worker over its lease (budget_over), which stops reading the connection. */
	lease_cover(b, lim, used);
}

void budget_force_uid(struct daemon *d, uint64_t bytes)
{
	struct budget *b = &d->budget;
	const struct daemon_limits *lim = &d->limits;
	uint64_t used = atomic_load(&b->used);
	used = bytes > UINT64_MAX - used ? UINT64_MAX : used + bytes;
	atomic_store(&b->used, used);
	lease_cover(b, lim, used);
}

void budget_release(struct session *s, uint64_t bytes)
{
	if (bytes > s->mem_bytes) {
		log_error("session %" PRIu64 ": releasing %" PRIu64 " bytes, %" PRIu64
			  " charged (accounting bug)", s->no, bytes, s->mem_bytes);
		bytes = s->mem_bytes;
	}
	budget_release_connection(s, bytes);
	budget_release_uid(s->d, bytes);
}

void budget_release_connection(struct session *s, uint64_t bytes)
{
	if (bytes > s->mem_bytes) {
		log_error("session %" PRIu64 ": releasing %" PRIu64 " bytes of the connection's, "
			  "%" PRIu64 " charged (accounting bug)", s->no, bytes, s->mem_bytes);
		bytes = s->mem_bytes;
	}
	s->mem_bytes -= bytes;
}

void budget_release_uid(struct daemon *d, uint64_t bytes)
{
	struct budget *b = &d->budget;
	uint64_t used = atomic_load(&b->used);
	if (bytes > used) {
		log_error("releasing %" PRIu64 " bytes of the uid's, %" PRIu64 " charged "
			  "(accounting bug)", bytes, used);
		bytes = used;
	}
	atomic_fetch_sub(&b->used, bytes);
	b->released += bytes;
	lease_trim(b, &d->limits, false);
}

static uint64_t room(uint64_t used, uint64_t limit)
{
	return used < limit ? limit - used : 0;
}

uint64_t budget_left(const struct session *s)
{
	const struct budget *b = &s->d->budget;
	const struct daemon_limits *lim = &s->d->limits;
	uint64_t used = budget_uid_used(b);
	uint64_t left = room(s->mem_bytes, lim->max_connection_bytes);
	uint64_t u = room(used, lim->max_uid_bytes);
	/* The lease's rest, and what the pool had free at the door's last answer. */
	uint64_t t = room(used, lim->max_total_bytes);
	if (b->leasing) {
		uint64_t free = room(b->pool_used, lim->max_total_bytes);
		t = room(used, b->lease);
		t = free > UINT64_MAX - t ? UINT64_MAX : t + free;
	}
	if (u < left)
		left = u;
	return t < left ? t : left;
}

bool budget_over(const struct session *s)
{
	const struct budget *b = &s->d->budget;
	const struct daemon_limits *lim = &s->d->limits;
	uint64_t used = budget_uid_used(b);
	return s->mem_bytes > lim->max_connection_bytes || used > lim->max_uid_bytes ||
	       used > (b->leasing ? b->lease : lim->max_total_bytes);
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
	if (b->sessions == 0)
		lease_trim(b, &s->d->limits, true);
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

#ifdef WNN_TEST_HOOKS
#include <sys/mman.h>

#include "daemon/worker/weights.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The compromised worker's moves go around the honest bookkeeping above: what the front door
 * grants them is not adopted (an honest worker would return it again). */
bool budget_test_hook(struct budget *b, const char *client_name, char *reply, size_t reply_len)
{
	static const char prefix[] = "wnn-test:";
	if (!client_name || strncmp(client_name, prefix, sizeof(prefix) - 1) != 0)
		return false;
	const char *what = client_name + sizeof(prefix) - 1;
	if (strncmp(what, "lease-", 6) == 0 && !b->leasing) {
		snprintf(reply, reply_len, "wnn-test %s: no lease channel", what);
		return true;
	}
	struct control_msg g;
	const char *why = "?";
	unsigned long long need, want;
	unsigned n;
	if (sscanf(what, "lease-ask:%llu:%llu", &need, &want) == 2) {
		if (lease_exchange(b, need, want, &g, &why) == LEASE_GRANTED)
			snprintf(reply, reply_len, "wnn-test lease-ask: lease %" PRIu64
				 ", all users %" PRIu64, g.lease, g.pool_used);
		else
			snprintf(reply, reply_len, "wnn-test lease-ask: no answer (%s)", why);
	} else if (strcmp(what, "lease-garbage") == 0) {
		ssize_t r = send(b->lease_fd, "xyz", 3, MSG_NOSIGNAL | MSG_DONTWAIT);
		snprintf(reply, reply_len, "wnn-test lease-garbage: sent %zd", r);
	} else if (strcmp(what, "lease-forge") == 0) {
		struct control_msg m = { .type = CONTROL_LEASE_GRANT, .lease = UINT64_MAX };
		int r = control_send(b->lease_fd, &m, -1);
		snprintf(reply, reply_len, "wnn-test lease-forge: sent %d", r);
	} else if (strcmp(what, "lease-flood") == 0) {
		uint64_t end = mono_us() + 300000, sent = 0, full = 0;
		while (mono_us() < end && sent < 200000) {
			struct control_msg m = { .type = CONTROL_LEASE_ASK, .no = ++b->lease_seq };
			int r = control_send(b->lease_fd, &m, -1);
			if (r == 0) {
				sent++;
				continue;
			}
			full++;
			struct control_msg drop;
			int fd;
			while (control_recv(b->lease_fd, &drop, &fd) == 1)
				if (fd >= 0)
					close(fd);
			struct pollfd p = { .fd = b->lease_fd, .events = POLLOUT };
			poll(&p, 1, 1);
		}
		snprintf(reply, reply_len, "wnn-test lease-flood: %" PRIu64 " asks sent in 300 ms, "
			 "%" PRIu64 " times the socket was full", sent, full);
	} else if (sscanf(what, "lease-rtt:%u", &n) == 1 && n > 0 && n <= 100000) {
		uint64_t *t = malloc(n * sizeof(*t));
		uint32_t got = 0;
		for (uint32_t i = 0; t && i < n; i++) {
			uint64_t t0 = mono_us();
			if (lease_exchange(b, 0, 0, &g, &why) != LEASE_GRANTED)
				break;
			t[got++] = mono_us() - t0;
		}
		if (got == n) {
			qsort(t, n, sizeof(*t), cmp_u64);
			snprintf(reply, reply_len, "wnn-test lease-rtt: %u round trips, median %" PRIu64
				 " us, p99 %" PRIu64 " us, max %" PRIu64 " us", n, t[n / 2],
				 t[(uint64_t)n * 99 / 100], t[n - 1]);
		} else {
			snprintf(reply, reply_len, "wnn-test lease-rtt: failed after %u (%s)", got,
				 t ? why : "out of memory");
		}
		free(t);
	} else if (strcmp(what, "weights") == 0) {
		uint64_t copies, bytes, given;
		weights_stats(&copies, &bytes, &given);
		snprintf(reply, reply_len, "wnn-test weights: uid %" PRIu64 " bytes charged, %" PRIu64
			 " shared copies of %" PRIu64 " bytes, %" PRIu64 " given back",
			 atomic_load(&b->used), copies, bytes, given);
	} else if (strcmp(what, "board") == 0) {
		/* Workers once mapped a shared, writable budget board at fd 4. */
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, CONTROL_LEASE_FD, 0);
		int err = errno;
		bool shared = false;
		FILE *f = fopen("/proc/self/maps", "r");
		bool readable = f != NULL;
		char line[512];
		while (f && fgets(line, sizeof(line), f))
			shared |= strstr(line, "webnnd-budgets") != NULL;
		if (f)
			fclose(f);
		if (p != MAP_FAILED) {
			munmap(p, 4096);
			snprintf(reply, reply_len, "wnn-test board: fd %d mapped writable",
				 CONTROL_LEASE_FD);
		} else {
			snprintf(reply, reply_len, "wnn-test board: mmap of fd %d: errno %d (%s); %s",
				 CONTROL_LEASE_FD, err, strerrorname_np(err),
				 !readable ? "/proc/self/maps unreadable"
				 : shared ? "a shared budget mapping exists" : "no shared budget mapping");
		}
	} else {
		return false; /* maybe the sandbox's (sandbox_test_hook) */
	}
	return true;
}
#endif
