/* The listening socket: binds or inherits it, accepts connections and hands them to sessions. */
#ifndef DAEMON_SERVER_H
#define DAEMON_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/session.h"

struct daemon;

struct server {
	struct daemon *d;
	int listen_fd;
	uv_poll_t listen_poll;
	bool listening;
	struct session_hooks hooks; /* given to every session: the router reads, we learn the end */
	struct session *sessions;   /* live connections, linked through session.prev/next */
	uint32_t n_sessions;
	uint64_t next_session_no;
};

/* Binds path (creating its parent directory; replaces a stale socket nobody answers on).
 * Returns the listening fd or -errno with a logged reason. */
int server_bind(const char *path);
/* Starts accepting on fd (bound here or inherited from systemd). */
int server_start(struct server *srv, struct daemon *d, int fd);
/* Stops accepting and closes every connection (shutdown). */
void server_stop(struct server *srv);

#endif
