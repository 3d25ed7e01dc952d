/* The listening socket and per-connection socket I/O: uv_poll_t, accept4, queued frame writes. */
#include "daemon/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Above this much unsent output a connection is not read from until its peer catches up. */
#define SERVER_OUT_HIGH (64u << 20)

static int mkdir_parents(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int server_bind(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_error("socket path %s is longer than %zu bytes", path, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int r = mkdir_parents(path);
	if (r < 0) {
		log_error("cannot create the directory of %s: %s", path, strerror(-r));
		return r;
	}
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			log_error("%s exists and is not a socket; not replacing it", path);
			return -EEXIST;
		}
		/* Only a socket nobody answers on is stale: never take over a live daemon's path. */
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe < 0)
			return -errno;
		int c = connect(probe, (struct sockaddr *)&sa, sizeof(sa));
		int err = errno;
		close(probe);
		if (c == 0) {
			log_error("another webnnd is already serving %s", path);
			return -EADDRINUSE;
		}
		if (err != ECONNREFUSED && err != ENOENT) {
			log_error("cannot probe the existing socket %s: %s", path, strerror(err));
			return -err;
		}
		log_info("removing stale socket %s", path);
		unlink(path);
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* Clients of any user may connect; access control belongs to the directory or the unit. */
	mode_t old = umask(0);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	int err = errno;
	umask(old);
	if (r != 0 || listen(fd, 64) != 0) {
		err = r != 0 ? err : errno;
		log_error("cannot listen on %s: %s", path, strerror(err));
		close(fd);
		return -err;
	}
	return fd;
}

static void server_on_client(uv_poll_t *h, int status, int events);

static void server_set_poll(struct session *s)
{
	int ev = 0;
	if (s->out_bytes < SERVER_OUT_HIGH && !session_backlogged(s))
		ev |= UV_READABLE;
	if (s->out_head)
		ev |= UV_WRITABLE;
	if (ev == s->poll_events)
		return;
	s->poll_events = ev;
	uv_poll_start(&s->poll, ev, server_on_client);
}

/* Writes queued frames until the socket would block; returns -errno on a dead peer. */
static int server_flush(struct session *s)
{
	while (s->out_head) {
		struct outbuf *b = s->out_head;
		ssize_t n = send(s->fd, b->buf + b->off, b->len - b->off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		b->off += (size_t)n;
		s->out_bytes -= (size_t)n;
		if (b->off == b->len) {
			s->out_head = b->next;
			if (!s->out_head)
				s->out_tail = NULL;
			free(b->buf);
			free(b);
		}
	}
	return 0;
}

void server_queue(struct session *s, uint8_t *buf, size_t len)
{
	struct outbuf *b = malloc(sizeof(*b));
	if (!b) {
		free(buf);
		session_close(s, "out of memory queueing a reply");
		return;
	}
	*b = (struct outbuf){ .buf = buf, .len = len };
	if (s->out_tail)
		s->out_tail->next = b;
	else
		s->out_head = b;
	s->out_tail = b;
	s->out_bytes += len;
	if (s->closed || !s->poll_active)
		return;
	int r = server_flush(s);
	if (r < 0) {
		char why[96];
		snprintf(why, sizeof(why), "write error: %s", strerror(-r));
		session_close(s, why);
		return;
	}
	server_set_poll(s);
}

static void server_on_client(uv_poll_t *h, int status, int events)
{
	struct session *s = h->data;
	if (s->closed)
		return;
	session_ref(s);
	if (status < 0) {
		char why[96];
		snprintf(why, sizeof(why), "socket error: %s", uv_strerror(status));
		session_close(s, why);
	}
	if (!s->closed && (events & UV_WRITABLE)) {
		int r = server_flush(s);
		if (r < 0) {
			char why[96];
			snprintf(why, sizeof(why), "write error: %s", strerror(-r));
			session_close(s, why);
		}
	}
	if (!s->closed && (events & (UV_READABLE | UV_DISCONNECT)))
		session_on_readable(s);
	if (!s->closed)
		server_set_poll(s);
	session_unref(s);
}

void server_resume(struct session *s)
{
	if (!s->closed && s->poll_active)
		server_set_poll(s);
}

static void server_on_conn_closed(uv_handle_t *h)
{
	struct session *s = h->data;
	session_unref(s); /* the poll handle's reference */
}

void server_close_conn(struct session *s)
{
	if (s->fd < 0)
		return;
	/* Best effort: a Goodbye queued just before this usually fits the socket buffer. */
	server_flush(s);
	if (s->poll_active) {
		s->poll_active = false;
		uv_poll_stop(&s->poll);
		uv_close((uv_handle_t *)&s->poll, server_on_conn_closed);
	}
	close(s->fd);
	s->fd = -1;
}

static void server_on_listen(uv_poll_t *h, int status, int events)
{
	struct daemon *d = h->data;
	(void)events;
	if (status < 0) {
		log_error("listening socket error: %s", uv_strerror(status));
		return;
	}
	for (int i = 0; i < 32; i++) {
		int fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				log_warn("accept: %s", strerror(errno));
			return;
		}
		if (d->n_sessions >= d->limits.max_sessions) {
			log_warn("refusing a connection: %u connections already", d->n_sessions);
			close(fd);
			continue;
		}
		struct session *s = session_create(d, fd);
		if (!s) {
			log_error("out of memory accepting a connection");
			close(fd);
			continue;
		}
		if (uv_poll_init(d->loop, &s->poll, fd) != 0) {
			log_error("cannot watch a client socket");
			session_close(s, "poll setup failed");
			continue;
		}
		s->poll.data = s;
		s->poll_active = true;
		session_ref(s); /* held by the poll handle until its close callback */
		server_set_poll(s);
	}
}

int server_start(struct daemon *d, int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0)
		return -errno;
	d->listen_fd = fd;
	int r = uv_poll_init(d->loop, &d->listen_poll, fd);
	if (r != 0)
		return r;
	d->listen_poll.data = d;
	d->listening = true;
	return uv_poll_start(&d->listen_poll, UV_READABLE, server_on_listen);
}

void server_stop(struct daemon *d)
{
	if (d->listening) {
		d->listening = false;
		uv_poll_stop(&d->listen_poll);
		uv_close((uv_handle_t *)&d->listen_poll, NULL);
	}
	while (d->sessions)
		session_close(d->sessions, "daemon shutting down");
}
