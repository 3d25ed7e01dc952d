/* webnnd: options, backend selection, listening socket (bound or systemd-activated), event loop. */
#include "daemon/daemon.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define SD_LISTEN_FDS_START 3

void daemon_limits_default(struct daemon_limits *l)
{
	*l = (struct daemon_limits){
		.max_frame_bytes = WNN_FRAME_MAX,
		.max_inline_bytes = WNN_INLINE_MAX,
		.max_fds_per_frame = WNN_FRAME_MAX_FDS,
		.max_objects = 65536,
		.max_shm_bytes = 4ull << 30,
		.max_tensor_bytes = INT32_MAX, /* as Chromium: sizes stay within int32 arithmetic */
		.max_rank = WNN_MAX_RANK,
		.max_operations = 100000,
		.max_operands = 400000,
		.max_session_bytes = 8ull << 30,
		.unpack_budget = 128u << 20,
		.max_sessions = 256,
		.max_contexts = 32,
	};
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: webnnd [options]\n"
		"  --socket PATH      listen on PATH (default $WEBNN_SOCKET, else %s)\n"
		"  --backend NAME     opencl or reference (default $WEBNN_BACKEND, else opencl,\n"
		"                     falling back to reference when no OpenCL device exists)\n"
		"  --verbose          debug logging\n"
		"  --help             this text\n"
		"  --version          print the version\n"
		"Under systemd socket activation (LISTEN_FDS) the inherited socket is used.\n",
		WEBNN_DEFAULT_SOCKET);
}

/* systemd socket activation without libsystemd: fd 3 when LISTEN_PID is us. */
static int activation_fd(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	if (!pid || !fds || strtol(pid, NULL, 10) != (long)getpid())
		return -1;
	long n = strtol(fds, NULL, 10);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (n < 1)
		return -1;
	if (n > 1)
		log_warn("systemd passed %ld sockets; using the first", n);
	int fd = SD_LISTEN_FDS_START, type = 0, domain = 0, acc = 0;
	socklen_t l = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) != 0 || type != SOCK_STREAM ||
	    (l = sizeof(int), getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &l)) != 0 ||
	    domain != AF_UNIX ||
	    (l = sizeof(int), getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l)) != 0 || !acc) {
		log_error("the socket passed by systemd is not a listening AF_UNIX stream socket");
		return -2;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET. */
static void notify_systemd(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path))
		return;
	size_t len = strlen(path);
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0'; /* abstract namespace */
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		log_warn("sd_notify: %s", strerror(errno));
	close(fd);
}

static const struct backend_impl *backend_by_name(const char *name)
{
	if (strcmp(name, "opencl") == 0)
		return &backend_opencl;
	if (strcmp(name, "reference") == 0)
		return &backend_reference;
	return NULL;
}

static int backend_open(struct daemon *d, const char *name, bool chosen)
{
	const struct backend_impl *impl = backend_by_name(name);
	if (!impl) {
		log_error("unknown backend '%s' (expected opencl or reference)", name);
		return -1;
	}
	struct wnn_diag diag = { 0 };
	enum webnn_status st = impl->init(NULL, &d->be, &diag);
	if (st == WEBNN_STATUS_NOT_SUPPORTED && impl == &backend_opencl && !chosen) {
		log_info("no usable OpenCL device (%s); falling back to the reference backend",
			 diag.message[0] ? diag.message : "none found");
		impl = &backend_reference;
		wnn_diag_clear(&diag);
		st = impl->init(NULL, &d->be, &diag);
	}
	if (st != WEBNN_STATUS_OK) {
		log_error("the %s backend failed to start: %s", impl->name,
			  diag.message[0] ? diag.message : "no reason given");
		return -1;
	}
	d->impl = impl;
	log_info("backend: %s", impl->name);
	return 0;
}

static void close_signal(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (h->type == UV_SIGNAL && !uv_is_closing(h))
		uv_close(h, NULL);
}

static void on_stop_signal(uv_signal_t *h, int signum)
{
	struct daemon *d = h->data;
	if (d->stopping)
		return;
	log_info("%s: shutting down", signum == SIGTERM ? "SIGTERM" : "SIGINT");
	d->stopping = true;
	notify_systemd("STOPPING=1");
	server_stop(d);
	/* With the signal handles closed too, the loop ends once in-flight device work has
	 * drained; a second signal then gets the default action (terminate). */
	uv_walk(d->loop, close_signal, NULL);
}

static void report_leftover(uv_handle_t *h, void *arg)
{
	(void)arg;
	log_error("handle of type %s still open at exit", uv_handle_type_name(h->type));
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "backend", required_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *socket_path = getenv("WEBNN_SOCKET");
	const char *backend = getenv("WEBNN_BACKEND");
	bool backend_chosen = backend && *backend;
	if (!socket_path || !*socket_path)
		socket_path = WEBNN_DEFAULT_SOCKET;
	if (!backend_chosen)
		backend = "opencl";
	int opt;
	while ((opt = getopt_long(argc, argv, "s:b:vhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			socket_path = optarg;
			break;
		case 'b':
			backend = optarg;
			backend_chosen = true;
			break;
		case 'v':
			log_set_level(LOG_LEVEL_DEBUG);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("webnnd %s (protocol %d.%d)\n", WEBNND_VERSION, WNN_PROTOCOL_MAJOR,
			       WNN_PROTOCOL_MINOR);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "webnnd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	/* Timeline commands block a pool thread until the device finishes (clFinish), so libuv's
	 * default of 4 threads would let 4 busy contexts stall everyone else's writes and builds. */
	setenv("UV_THREADPOOL_SIZE", "16", 0);

	static struct daemon d;
	uv_loop_t loop;
	daemon_limits_default(&d.limits);
	d.listen_fd = -1;
	if (uv_loop_init(&loop) != 0) {
		log_error("cannot initialise the event loop");
		return 1;
	}
	d.loop = &loop;
	int status = 1;
	bool activated = false;
	uv_signal_t sig_term, sig_int;
	/* The socket first: a second daemon on the same path fails before probing devices. */
	int fd = activation_fd();
	if (fd == -2)
		goto out_loop;
	if (fd >= 0) {
		activated = true;
	} else {
		fd = server_bind(socket_path);
		if (fd < 0)
			goto out_loop;
	}
	if (backend_open(&d, backend, backend_chosen) != 0)
		goto out_socket;
	context_limits_init(&d);
	int r = server_start(&d, fd);
	if (r != 0) {
		log_error("cannot watch the listening socket: %s", uv_strerror(r));
		server_stop(&d);
		goto out_backend;
	}
	if (activated)
		log_info("listening on the socket passed by systemd");
	else
		log_info("listening on %s", socket_path);
	uv_signal_init(&loop, &sig_term);
	uv_signal_init(&loop, &sig_int);
	sig_term.data = sig_int.data = &d;
	uv_signal_start(&sig_term, on_stop_signal, SIGTERM);
	uv_signal_start(&sig_int, on_stop_signal, SIGINT);

	r = sandbox_enter();
	if (r < 0)
		log_warn("sandbox: %s; continuing without the full lockdown", strerror(-r));
	notify_systemd("READY=1");
	uv_run(&loop, UV_RUN_DEFAULT);
	status = 0;
out_backend:
	/* Every session, and with it every backend object, is gone once uv_run returned. */
	context_limits_finish(&d);
	d.impl->shutdown(d.be);
out_socket:
	close(fd);
	if (!activated)
		unlink(socket_path);
out_loop:
	/* A last pass closes handles left behind by an early failure. */
	uv_walk(&loop, close_signal, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&loop) != 0) {
		uv_walk(&loop, report_leftover, NULL);
		status = 1;
	}
	if (status == 0)
		log_info("stopped");
	return status;
}
