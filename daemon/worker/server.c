/* A worker's live sessions: adoption of handed-off sockets, the Hello and slow-frame deadlines. */
#include "daemon/worker/server.h"

#include "daemon/worker/daemon.h"
#include "daemon/log.h"
#include "daemon/worker/reply.h"
#include "daemon/worker/sched.h"
#include "daemon/worker/request.h"
#include "daemon/worker/router.h"

#include <errno.h>
#include <inttypes.h>
#include <time.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SWEEP_MS 200

/* A session's end (its ended hook): it leaves the list of live connections. */
static void server_session_ended(struct session *s, void *ud)
{
	struct server *srv = ud;
	if (s->prev)
		s->prev->next = s->next;
	else if (srv->sessions == s)
		srv->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->prev = s->next = NULL;
	srv->n_sessions--;
	if (srv->ended)
		srv->ended(srv, s);
	if (!srv->sessions && srv->sweeping) {
		srv->sweeping = false;
		uv_timer_stop(&srv->sweep);
	}
}

/* Deadlines, checked a few times a second: a connection must say Hello in time, and a frame
 * it started must arrive whole in time (a slow sender holds a buffer and a connection slot). */
static void server_on_sweep(uv_timer_t *t)
{
	struct server *srv = t->data;
	const struct daemon_limits *lim = &srv->d->limits;
	uint64_t now = uv_now(srv->d->loop);
	log_limit_flush(false);
	struct session *s = srv->sessions;
	while (s) {
		struct session *next = s->next;
		if (!s->closed && !s->hello_done && now - s->adopted_ms >= lim->hello_timeout_ms)
			request_violation(s, "no Hello within %" PRIu32 " ms (hello_timeout_ms)",
					  lim->hello_timeout_ms);
		else if (!s->closed && s->partial_since_ms &&
			 now - s->partial_since_ms >= lim->frame_timeout_ms)
			request_violation(s, "a frame was not completed within %" PRIu32
					     " ms (frame_timeout_ms): %zu bytes arrived",
					  lim->frame_timeout_ms, s->reader.have);
		s = next;
	}
}

/*
 * The pool runs builds and dispatches too long for the quick path: its threads are compute
 * threads (daemon/worker/sched.h). Each start-up item makes its own thread one, and waits (a few
 * seconds at most) until every item has a thread, so that each thread takes exactly one; the
 * loop thread waits for them too, since the worker's lockdown follows.
 */
struct pool_start {
	pthread_mutex_t lock;
	pthread_cond_t all;
	int n, arrived, done;
	uv_work_t work[];
};

static void pool_thread_start(uv_work_t *w)
{
	struct pool_start *ps = w->data;
	char why[128];
	if (!sched_compute_thread(why, sizeof(why)) && w == &ps->work[0])
		log_info("thread pool: compute threads keep the default time slice (%s)", why);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&ps->lock);
	if (++ps->arrived == ps->n)
		pthread_cond_broadcast(&ps->all);
	while (ps->arrived < ps->n)
		if (pthread_cond_timedwait(&ps->all, &ps->lock, &until) != 0)
			break;
	pthread_mutex_unlock(&ps->lock);
}

static void pool_thread_started(uv_work_t *w, int status)
{
	struct pool_start *ps = w->data;
	(void)status;
	if (++ps->done < ps->n)
		return;
	pthread_mutex_destroy(&ps->lock);
	pthread_cond_destroy(&ps->all);
	free(ps);
}

/* libuv's pool size, as libuv reads it. */
static int pool_size(void)
{
	const char *env = getenv("UV_THREADPOOL_SIZE");
	int n = env ? atoi(env) : 0;
	return n <= 0 ? 4 : n > 1024 ? 1024 : n;
}

void server_init(struct server *srv, struct daemon *d)
{
	*srv = (struct server){
		.d = d,
		.hooks = { .readable = router_on_readable, .ended = server_session_ended, .ud = srv },
	};
	uv_timer_init(d->loop, &srv->sweep);
	srv->sweep.data = srv;
	/* libuv starts its pool on the first queued work and aborts the process when a thread
	 * cannot be created then. Started lazily, the first timeline command of a client that
	 * exhausted mappings (vm.max_map_count: each thread needs a stack) or threads would abort
	 * the worker and every client in it; started here it fails, if at all, before any client
	 * is served, and the threads exist before the lockdown. */
	int n = pool_size();
	struct pool_start *ps = calloc(1, sizeof(*ps) + (size_t)n * sizeof(uv_work_t));
	if (!ps) {
		log_warn("cannot start the thread pool: out of memory");
		return;
	}
	pthread_mutex_init(&ps->lock, NULL);
	pthread_cond_init(&ps->all, NULL);
	ps->n = n;
	for (int i = 0; i < n; i++) {
		ps->work[i].data = ps;
		int r = uv_queue_work(d->loop, &ps->work[i], pool_thread_start,
				      pool_thread_started);
		if (r != 0) {
			log_warn("cannot start the thread pool: %s", uv_strerror(r));
			pthread_mutex_lock(&ps->lock);
			ps->n = i; /* the queued ones free it */
			pthread_cond_broadcast(&ps->all);
			pthread_mutex_unlock(&ps->lock);
			if (i == 0) {
				pthread_mutex_destroy(&ps->lock);
				pthread_cond_destroy(&ps->all);
				free(ps);
			}
			return;
		}
	}
	/* Their set-up calls are not in the worker's system-call filter: done before lockdown. */
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&ps->lock);
	while (ps->arrived < ps->n)
		if (pthread_cond_timedwait(&ps->all, &ps->lock, &until) != 0) {
			log_warn("thread pool: %d of %d threads started within 5 s", ps->arrived,
				 ps->n);
			break;
		}
	pthread_mutex_unlock(&ps->lock);
}

int server_adopt(struct server *srv, int fd, uint64_t no)
{
	struct session *s = session_create(srv->d, fd, no, &srv->hooks);
	if (!s) {
		log_error("out of memory adopting connection %" PRIu64, no);
		close(fd);
		if (srv->ended) {
			struct session gone = { .no = no };
			srv->ended(srv, &gone);
		}
		return -1;
	}
	s->adopted_ms = uv_now(srv->d->loop);
	s->next = srv->sessions;
	if (srv->sessions)
		srv->sessions->prev = s;
	srv->sessions = s;
	srv->n_sessions++;
	if (!srv->sweeping) {
		srv->sweeping = true;
		uv_timer_start(&srv->sweep, server_on_sweep, SWEEP_MS, SWEEP_MS);
	}
	if (session_watch(s) != 0) {
		log_error("cannot watch connection %" PRIu64, no);
		session_close(s, "poll setup failed");
		return -1;
	}
	return 0;
}

void server_stop(struct server *srv, const char *why)
{
	while (srv->sessions) {
		if (why)
			reply_goodbye(srv->sessions, why);
		session_close(srv->sessions, why ? why : "daemon shutting down");
	}
	if (!uv_is_closing((uv_handle_t *)&srv->sweep)) {
		uv_timer_stop(&srv->sweep);
		uv_close((uv_handle_t *)&srv->sweep, NULL);
	}
}
