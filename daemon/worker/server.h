/* The connections a device worker serves: adopting handed-off sockets, deadlines, shutdown. */
#ifndef DAEMON_SERVER_H
#define DAEMON_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/worker/session.h"

struct daemon;

struct server {
	struct daemon *d;
	struct session_hooks hooks; /* given to every session: the router reads, we learn the end */
	struct session *sessions;   /* live connections, linked through session.prev/next */
	uint32_t n_sessions;
	uv_timer_t sweep;           /* Hello and slow-frame deadlines */
	bool sweeping;
	/* A session ended (the worker tells the front door); optional. */
	void (*ended)(struct server *srv, struct session *s);
	void *ud;
};

/* Also starts the loop's thread pool, before any client is served. */
void server_init(struct server *srv, struct daemon *d);
/* Serves an accepted (and admitted) socket as connection number `no`. 0, or -1 when it could
 * not be set up (the fd is closed and `ended` has run). */
int server_adopt(struct server *srv, int fd, uint64_t no);
/* Closes every connection (shutdown), each told why with a Goodbye (why NULL: none), and the
 * deadline timer. */
void server_stop(struct server *srv, const char *why);

#endif
