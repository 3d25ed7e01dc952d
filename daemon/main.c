/* webnnd: options, process policy (caches, warm-up child), backend selection, listening socket
 * (bound or systemd-activated), lockdown, event loop. */
#include "daemon/caches.h"
#include "daemon/context.h"
#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/server.h"
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
#include <sys/types.h>
#include <unistd.h>

#define SD_LISTEN_FDS_START 3

/* Everything the environment and the command line decide, read once at start. */
struct daemon_options {
	const char *socket_path;
	const char *backend;
	bool backend_chosen; /* by --backend or WEBNN_BACKEND: that backend alone, no fallback */
	int threads;         /* cpu backend threads (--threads, WEBNN_CPU_THREADS); 0: all cores */
	bool warm_up;        /* fork the cache warm-up child (unless WEBNN_NO_WARMUP) */
	char cache_dir[512]; /* "" when no cache directory can be written */
};

/* The process around the daemon state: what main sets up and tears down. */
struct daemon_process {
	struct daemon d;
	struct server srv;
	struct daemon_options opts;
	pid_t warm_pid;       /* the cache warm-up child, 0 when none runs */
	uv_signal_t sig_term, sig_int, sig_chld;
	bool stopping;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: webnnd [options]\n"
		"  --socket PATH      listen on PATH (default $WEBNN_SOCKET, else %s)\n"
		"  --backend NAME     serve every context on one backend: cpu, opencl or reference\n"
		"                     (default $WEBNN_BACKEND; unset: CPUs on the cpu backend, GPUs\n"
		"                     and accelerators on opencl)\n"
		"  --threads N        compute threads of the cpu backend (default\n"
		"                     $WEBNN_CPU_THREADS, else every core the daemon may use)\n"
		"  --limit KEY=VALUE  set a limit or budget (repeatable; --help-limits lists them)\n"
		"  --help-limits      the limits and budgets with their defaults\n"
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
	static const struct backend_impl *const all[] = { &backend_cpu, &backend_opencl,
							   &backend_reference };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(name, all[i]->name) == 0)
			return all[i];
	return NULL;
}

/* Starts a backend (forking its cache warm-up first, before its first OpenCL call) and adds
 * it to the daemon's routing list with the devices it serves. */
static enum webnn_status backend_start(struct daemon_process *p, const struct backend_impl *impl,
				       const struct backend_options *bo, struct wnn_diag *diag)
{
	struct daemon *d = &p->d;
	if (p->opts.warm_up && impl->warm_caches && p->warm_pid == 0)
		p->warm_pid = caches_warm_start(impl, bo);
	struct daemon_backend *db = &d->backends[d->n_backends];
	memset(db, 0, sizeof(*db));
	enum webnn_status st = impl->init(bo, &db->be, diag);
	if (st != WEBNN_STATUS_OK) {
		if (impl->warm_caches)
			caches_warm_stop(&p->warm_pid);
		return st;
	}
	db->impl = impl;
	uint32_t n = impl->devices(db->be, db->devices, DAEMON_MAX_DEVICES);
	db->n_devices = n < DAEMON_MAX_DEVICES ? n : DAEMON_MAX_DEVICES;
	for (uint32_t i = 0; i < db->n_devices; i++) {
		db->accelerated |= db->devices[i].accelerated;
		log_info("device: %s (%s) on the %s backend", db->devices[i].device_name,
			 db->devices[i].device_type, impl->name);
	}
	d->n_backends++;
	return WEBNN_STATUS_OK;
}

static void backends_close(struct daemon *d)
{
	while (d->n_backends > 0) {
		struct daemon_backend *db = &d->backends[--d->n_backends];
		db->impl->shutdown(db->be);
	}
}

/* Forced: that backend alone. Otherwise CPUs go to the cpu backend (the reference one when
 * oneDNN cannot start) and GPUs and accelerators to opencl, which then opens no CPU device:
 * PoCL stays out of the way, its 20 s of cold kernel compiles included. */
static int backend_open(struct daemon_process *p)
{
	struct backend_options bo = { .cache_dir = p->opts.cache_dir, .threads = p->opts.threads };
	struct wnn_diag diag = { 0 };
	enum webnn_status st;
	if (p->opts.backend_chosen) {
		const struct backend_impl *impl = backend_by_name(p->opts.backend);
		if (!impl) {
			log_error("unknown backend '%s' (expected cpu, opencl or reference)",
				  p->opts.backend);
			return -1;
		}
		st = backend_start(p, impl, &bo, &diag);
		if (st != WEBNN_STATUS_OK) {
			log_error("the %s backend failed to start: %s", impl->name,
				  diag.message[0] ? diag.message : "no reason given");
			return -1;
		}
		log_info("backend: %s (forced)", impl->name);
		return 0;
	}
	st = backend_start(p, &backend_cpu, &bo, &diag);
	if (st != WEBNN_STATUS_OK) {
		log_warn("the cpu backend failed to start (%s); CPUs run on the reference backend",
			 diag.message[0] ? diag.message : "no reason given");
		wnn_diag_clear(&diag);
		st = backend_start(p, &backend_reference, &bo, &diag);
		if (st != WEBNN_STATUS_OK) {
			log_error("the reference backend failed to start: %s", diag.message);
			return -1;
		}
	}
	struct backend_options gpu = bo;
	gpu.accelerators_only = true;
	wnn_diag_clear(&diag);
	st = backend_start(p, &backend_opencl, &gpu, &diag);
	if (st != WEBNN_STATUS_OK)
		log_info("%s; every context runs on the %s backend",
			 diag.message[0] ? diag.message : "opencl: no GPU",
			 p->d.backends[0].impl->name);
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
	struct daemon_process *p = h->data;
	if (p->stopping)
		return;
	log_info("%s: shutting down", signum == SIGTERM ? "SIGTERM" : "SIGINT");
	p->stopping = true;
	notify_systemd("STOPPING=1");
	server_stop(&p->srv);
	/* With the signal handles closed too, the loop ends once in-flight device work has
	 * drained; a second signal then gets the default action (terminate). */
	uv_walk(p->d.loop, close_signal, NULL);
}

/* A finished warm-up is reaped at once (no zombie until shutdown); only its pid is waited
 * for, never the children the OpenCL driver spawns (ld) and waits for itself. */
static void on_child_signal(uv_signal_t *h, int signum)
{
	struct daemon_process *p = h->data;
	(void)signum;
	caches_warm_reap(&p->warm_pid);
	if (p->warm_pid == 0)
		uv_close((uv_handle_t *)h, NULL);
}

static void report_leftover(uv_handle_t *h, void *arg)
{
	(void)arg;
	log_error("handle of type %s still open at exit", uv_handle_type_name(h->type));
}

#define MAX_THREADS 1024

static int parse_threads(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > MAX_THREADS)
		return -1;
	*out = (int)v;
	return 0;
}

/* Reads the command line and the environment into p->opts. -1: exit 0 (help, version);
 * 0: go on; 2: usage error. */
static int parse_options(int argc, char **argv, struct daemon_options *o,
			 struct daemon_limits *limits)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "backend", required_argument, NULL, 'b' },
		{ "threads", required_argument, NULL, 't' },
		{ "limit", required_argument, NULL, 'l' },
		{ "help-limits", no_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	o->socket_path = getenv("WEBNN_SOCKET");
	o->backend = getenv("WEBNN_BACKEND");
	o->backend_chosen = o->backend && *o->backend;
	o->warm_up = !getenv("WEBNN_NO_WARMUP");
	if (!o->socket_path || !*o->socket_path)
		o->socket_path = WEBNN_DEFAULT_SOCKET;
	const char *threads = getenv("WEBNN_CPU_THREADS");
	if (threads && *threads && parse_threads(threads, &o->threads) != 0) {
		fprintf(stderr, "webnnd: WEBNN_CPU_THREADS=%s is not a thread count 1..%d\n", threads,
			MAX_THREADS);
		return 2;
	}
	int opt;
	while ((opt = getopt_long(argc, argv, "s:b:t:l:LvhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			o->socket_path = optarg;
			break;
		case 'b':
			o->backend = optarg;
			o->backend_chosen = true;
			break;
		case 't':
			if (parse_threads(optarg, &o->threads) != 0) {
				fprintf(stderr, "webnnd: --threads %s is not a thread count 1..%d\n",
					optarg, MAX_THREADS);
				return 2;
			}
			break;
		case 'l': {
			char why[160];
			if (daemon_limits_set(limits, optarg, why, sizeof(why)) != 0) {
				fprintf(stderr, "webnnd: %s\n", why);
				return 2;
			}
			break;
		}
		case 'L':
			daemon_limits_print(stdout, limits);
			return -1;
		case 'v':
			log_set_level(LOG_LEVEL_DEBUG);
			break;
		case 'h':
			usage(stdout);
			return -1;
		case 'V':
			printf("webnnd %s (protocol %d.%d)\n", WEBNND_VERSION, WNN_PROTOCOL_MAJOR,
			       WNN_PROTOCOL_MINOR);
			return -1;
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
	return 0;
}

static void watch_signals(struct daemon_process *p)
{
	uv_loop_t *loop = p->d.loop;
	uv_signal_init(loop, &p->sig_term);
	uv_signal_init(loop, &p->sig_int);
	p->sig_term.data = p->sig_int.data = p;
	uv_signal_start(&p->sig_term, on_stop_signal, SIGTERM);
	uv_signal_start(&p->sig_int, on_stop_signal, SIGINT);
	if (p->warm_pid > 0) {
		uv_signal_init(loop, &p->sig_chld);
		p->sig_chld.data = p;
		uv_signal_start(&p->sig_chld, on_child_signal, SIGCHLD);
		on_child_signal(&p->sig_chld, SIGCHLD); /* it may have ended before the watch */
	}
}

/* Binds the socket (or takes systemd's), starts the backend and serves until a stop signal.
 * Returns the exit status. */
static int serve(struct daemon_process *p)
{
	struct daemon *d = &p->d;
	int status = 1;
	bool activated = false;
	/* The socket first: a second daemon on the same path fails before probing devices. */
	int fd = activation_fd();
	if (fd == -2)
		return 1;
	if (fd >= 0) {
		activated = true;
	} else {
		fd = server_bind(p->opts.socket_path);
		if (fd < 0)
			return 1;
	}
	if (backend_open(p) != 0) {
		backends_close(d);
		goto out_socket;
	}
	context_limits_init(d);
	int r = server_start(&p->srv, d, fd);
	if (r != 0) {
		log_error("cannot watch the listening socket: %s", uv_strerror(r));
		server_stop(&p->srv);
		goto out_backend;
	}
	if (activated)
		log_info("listening on the socket passed by systemd");
	else
		log_info("listening on %s", p->opts.socket_path);
	watch_signals(p);
	r = sandbox_enter();
	if (r < 0)
		log_warn("sandbox: %s; continuing without the full lockdown", strerror(-r));
	notify_systemd("READY=1");
	uv_run(d->loop, UV_RUN_DEFAULT);
	status = 0;
out_backend:
	/* Every session, and with it every backend object, is gone once uv_run returned. */
	caches_warm_stop(&p->warm_pid);
	context_limits_finish(d);
	backends_close(d);
out_socket:
	caches_warm_stop(&p->warm_pid);
	close(fd);
	if (!activated)
		unlink(p->opts.socket_path);
	return status;
}

int main(int argc, char **argv)
{
	static struct daemon_process p;
	daemon_limits_default(&p.d.limits);
	int r = parse_options(argc, argv, &p.opts, &p.d.limits);
	if (r != 0)
		return r < 0 ? 0 : r;
	signal(SIGPIPE, SIG_IGN);
	/* Timeline commands block a pool thread until the device finishes (clFinish), so libuv's
	 * default of 4 threads would let 4 busy contexts stall everyone else's writes and builds. */
	setenv("UV_THREADPOOL_SIZE", "16", 0);
	/* Cache policy before any backend starts: PoCL reads POCL_CACHE_DIR at platform init. */
	caches_pick_dir(p.opts.cache_dir, sizeof(p.opts.cache_dir));
	caches_point_pocl(p.opts.cache_dir);

	uv_loop_t loop;
	if (uv_loop_init(&loop) != 0) {
		log_error("cannot initialise the event loop");
		return 1;
	}
	p.d.loop = &loop;
	int status = serve(&p);
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
