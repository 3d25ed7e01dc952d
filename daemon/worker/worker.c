/* Worker side of the control channel: adopts handed-off connections, reports their ends. */
#include "daemon/worker/worker.h"

#include "daemon/control.h"
#include "daemon/log.h"
#include "daemon/worker/sched.h"
#include "daemon/worker/server.h"
#include "daemon/worker/session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

static void worker_report_closed(struct server *srv, struct session *s)
{
	struct worker *w = srv->ud;
	struct control_msg m = { .type = CONTROL_CLOSED, .no = s->no };
	int r = control_send(w->ctl, &m, -1);
	if (r < 0 && r != -EPIPE)
		log_warn("cannot report connection %" PRIu64 " closed to the front door: %s", s->no,
			 strerror(-r));
}

/* The process name says which user a worker serves (ps, top, and tests finding the worker of
 * a uid): "wnn-u1000", or "wnn-spare" until the first connection binds it (15 bytes at most). */
static void worker_name(const struct worker *w)
{
	char name[16];
	if (w->bound)
		snprintf(name, sizeof(name), "wnn-u%u", (unsigned)w->uid);
	else
		snprintf(name, sizeof(name), "wnn-spare");
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

static void worker_poll_stop(struct worker *w)
{
	if (w->polling) {
		w->polling = false;
		uv_poll_stop(&w->poll);
		uv_close((uv_handle_t *)&w->poll, NULL);
	}
}

static void worker_on_control(uv_poll_t *h, int status, int events)
{
	struct worker *w = h->data;
	(void)events;
	for (int i = 0; i < 64 && status == 0; i++) {
		struct control_msg m;
		int fd;
		int r = control_recv(w->ctl, &m, &fd);
		if (r == -EAGAIN)
			return;
		if (r == 1 && m.type == CONTROL_CONNECTION && fd >= 0) {
			/* The front door admitted it for our uid; a mismatch would mean a bug there,
			 * and serving another user's connection is the one thing a worker must not do. */
			if (!w->bound) {
				w->bound = true;
				w->uid = m.uid;
				log_info("serving uid %u", (unsigned)w->uid);
				worker_name(w);
			}
			struct ucred cr;
			socklen_t cl = sizeof(cr);
			if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 || cr.uid != w->uid) {
				log_error("connection %" PRIu64 " is not of uid %u: refused", m.no,
					  (unsigned)w->uid);
				control_goodbye(fd, "handed to the wrong device worker");
				close(fd);
				struct control_msg closed = { .type = CONTROL_CLOSED, .no = m.no };
				control_send(w->ctl, &closed, -1);
				continue;
			}
			server_adopt(w->srv, fd, m.no);
			continue;
		}
		if (r == 1 && fd < 0 && m.type == CONTROL_SETTING) {
			m.key[sizeof(m.key) - 1] = '\0';
			if (w->on_setting)
				w->on_setting(w, m.key, m.no);
			continue;
		}
		if (r == 1 && fd < 0 && m.type == CONTROL_STOP) {
			char why[256];
			control_stop_text(&m, why, sizeof(why));
			worker_poll_stop(w);
			if (w->on_stop)
				w->on_stop(w, why);
			return;
		}
		if (fd >= 0)
			close(fd);
		if (r == 0)
			log_info("the front door closed the control channel: stopping");
		else
			log_error("bad control message from the front door (%s): stopping",
				  r < 0 ? strerror(-r) : "unexpected type");
		worker_poll_stop(w);
		if (w->door_gone)
			w->door_gone(w);
		return;
	}
	if (status < 0) {
		log_error("control channel: %s: stopping", uv_strerror(status));
		worker_poll_stop(w);
		if (w->door_gone)
			w->door_gone(w);
	}
}

int worker_start(struct worker *w, uv_loop_t *loop, struct server *srv,
		 void (*door_gone)(struct worker *w))
{
	*w = (struct worker){ .srv = srv, .loop = loop, .ctl = CONTROL_WORKER_FD,
			      .door_gone = door_gone };
	srv->ended = worker_report_closed;
	srv->ud = w;
	worker_name(w);
	int r = uv_poll_init(loop, &w->poll, w->ctl);
	if (r != 0)
		return r;
	w->poll.data = w;
	w->polling = true;
	return uv_poll_start(&w->poll, UV_READABLE, worker_on_control);
}

void worker_drain(struct worker *w)
{
	if (w->polling)
		worker_on_control(&w->poll, 0, UV_READABLE);
}

void worker_ready(struct worker *w)
{
	struct control_msg m = { .type = CONTROL_READY };
	control_send(w->ctl, &m, -1);
}

void worker_stop(struct worker *w)
{
	worker_poll_stop(w);
	w->srv->ended = NULL;
}

/* The loop thread answers requests in microseconds beside compute threads that run for
 * milliseconds: see daemon/worker/sched.h. */
void worker_prefer_latency(void)
{
	char why[128];
	if (!sched_answer_thread(why, sizeof(why)))
		log_info("the loop thread keeps the default time slice (%s)", why);
}
