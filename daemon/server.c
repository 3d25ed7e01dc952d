/* The listening socket: bind (or systemd's), accept4, and the list of live sessions. */
#include "daemon/server.h"

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/router.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

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
}

static void server_accept_one(struct server *srv, int fd)
{
	if (srv->n_sessions >= srv->d->limits.max_connections) {
		log_warn("refusing a connection: %u connections already", srv->n_sessions);
		close(fd);
		return;
	}
	struct session *s = session_create(srv->d, fd, ++srv->next_session_no, &srv->hooks);
	if (!s) {
		log_error("out of memory accepting a connection");
		close(fd);
		return;
	}
	s->next = srv->sessions;
	if (srv->sessions)
		srv->sessions->prev = s;
	srv->sessions = s;
	srv->n_sessions++;
	if (session_watch(s) != 0) {
		log_error("cannot watch a client socket");
		session_close(s, "poll setup failed");
	}
}

static void server_on_listen(uv_poll_t *h, int status, int events)
{
	struct server *srv = h->data;
	(void)events;
	if (status < 0) {
		log_error("listening socket error: %s", uv_strerror(status));
		return;
	}
	for (int i = 0; i < 32; i++) {
		int fd = accept4(srv->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				log_warn("accept: %s", strerror(errno));
			return;
		}
		server_accept_one(srv, fd);
	}
}

int server_start(struct server *srv, struct daemon *d, int fd)
{
	*srv = (struct server){
		.d = d,
		.listen_fd = -1,
		.hooks = { .readable = router_on_readable, .ended = server_session_ended, .ud = srv },
	};
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0)
		return -errno;
	srv->listen_fd = fd;
	int r = uv_poll_init(d->loop, &srv->listen_poll, fd);
	if (r != 0)
		return r;
	srv->listen_poll.data = srv;
	srv->listening = true;
	return uv_poll_start(&srv->listen_poll, UV_READABLE, server_on_listen);
}

void server_stop(struct server *srv)
{
	if (srv->listening) {
		srv->listening = false;
		uv_poll_stop(&srv->listen_poll);
		uv_close((uv_handle_t *)&srv->listen_poll, NULL);
	}
	while (srv->sessions)
		session_close(srv->sessions, "daemon shutting down");
}
