/* The device worker's side of the control channel: connections arrive from the front door,
 * closes are reported back, and the worker stops when the front door goes away. */
#ifndef DAEMON_WORKER_H
#define DAEMON_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <uv.h>

struct server;

struct worker {
	struct server *srv;
	uv_loop_t *loop;
	uid_t uid;      /* the one client uid this worker serves, once bound */
	bool bound;     /* a spare until its first connection names the uid */
	int ctl;        /* CONTROL_WORKER_FD */
	uv_poll_t poll;
	bool polling;
	void (*door_gone)(struct worker *w); /* the front door closed the channel: shut down */
	/* Set after worker_start: a reload changed a setting (a limits.def key or "log_level"),
	 * and webnnd stops (why: the Goodbye its clients get; the front door's SIGTERM follows). */
	void (*on_setting)(struct worker *w, const char *key, uint64_t value);
	void (*on_stop)(struct worker *w, const char *why);
};

/* Starts taking connections from the control socket. 0 or a libuv error. */
int worker_start(struct worker *w, uv_loop_t *loop, struct server *srv,
		 void (*door_gone)(struct worker *w));
/* Handles what the front door queued on the control channel now (a stop signal arrived: the
 * CONTROL_STOP ahead of it says why). */
void worker_drain(struct worker *w);
/* Tells the front door the worker is up and locked down (it logs the start-up time). */
void worker_ready(struct worker *w);
/* Asks the kernel for a short time slice for the calling thread (the loop thread), so that it
 * preempts compute threads as soon as a client's request arrives. Best effort: logs why not. */
void worker_prefer_latency(void);
void worker_stop(struct worker *w);

#endif
