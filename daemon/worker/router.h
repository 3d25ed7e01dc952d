/* Reads a session's frames and routes each request to its handler (the handler table). */
#ifndef DAEMON_ROUTER_H
#define DAEMON_ROUTER_H

struct session;

/* Handles the bytes readable on the session's socket (the session's readable hook). */
void router_on_readable(struct session *s);

#endif
