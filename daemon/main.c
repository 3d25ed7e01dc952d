/* webnnd: options, then either the front door (socket, admission, worker supervision, cache
 * warm-up) or a device worker (backends, lockdown, the sessions handed to it). */
#include "daemon/front/caches.h"
#include "daemon/config.h"
#include "daemon/worker/context.h"
#include "daemon/control.h"
#include "daemon/worker/daemon.h"
#include "daemon/front/frontdoor.h"
#include "daemon/log.h"
#include "daemon/front/memlimit.h"
#include "daemon/worker/server.h"
#include "daemon/front/spawner.h"
#include "daemon/tasks.h"
#include "daemon/worker/sched.h"
#include "daemon/worker/timeline.h"
#include "daemon/worker/worker.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
	mode_t socket_mode;  /* --socket-mode (octal) */
	gid_t socket_gid;    /* --socket-group; (gid_t)-1: unchanged */
	const char *user;    /* --user: who to run as when started as root (NULL: the default) */
	struct sandbox_user svc; /* ... resolved */
	bool no_sandbox;     /* --no-sandbox: no Landlock, no seccomp (development only) */
	bool worker;         /* --worker: a device worker started by the front door (internal) */
	const char *config_path; /* --config, else CONFIG_DEFAULT_PATH */
	struct daemon_config cfg; /* the settings the fields above are read from */
	/* ",key,key," for every setting the environment or the command line set: a reload
	 * leaves those alone (they override the file). */
	char overridden[1024];
	bool inherited;           /* cfg came from the front door (a worker) */
	struct frontdoor_config door;
};

/* The process around the daemon state: what main sets up and tears down. */
struct daemon_process {
	struct daemon d;
	struct daemon_options opts;
	uv_signal_t sig_term, sig_int, sig_quit, sig_chld, sig_hup, sig_usr1;
	bool stopping;
	int status;
	/* worker */
	char stop_why[256]; /* the front door's reason to stop (CONTROL_STOP), "" until then */
	struct server srv;
	struct worker worker;
	/* front door */
	struct frontdoor door;
	struct spawner spawner;
	pid_t warm_pid; /* the cache warm-up child, 0 when none runs */
	uint64_t mem_available; /* memlimit_available() at start: the budgets' defaults follow it */
	char exe[PATH_MAX];
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: webnnd [options]\n"
		"  --socket PATH         listen on PATH (default $WEBNN_SOCKET, else %s)\n"
		"  --socket-mode MODE    access mode of the socket, octal (default 0666: every local\n"
		"                        user may connect; each uid is served by its own worker)\n"
		"  --socket-group GROUP  group owning the socket (use with --socket-mode 0660)\n"
		"  --allow-uid LIST      admit only these users (names or numbers, comma-separated)\n"
		"  --allow-gid LIST      ... or members of these groups (primary or supplementary)\n"
		"  --backend NAME        serve every context on one backend: cpu, opencl or reference\n"
		"                        (default $WEBNN_BACKEND; unset: CPUs on the cpu backend, GPUs\n"
		"                        and accelerators on opencl)\n"
		"  --threads N           compute threads of the cpu backend (default\n"
		"                        $WEBNN_CPU_THREADS, else every core the daemon may use)\n"
		"  --user NAME           started as root, run as NAME (default: webnn when that\n"
		"                        user exists, else nobody; root stays root, with a warning)\n"
		"  --no-sandbox          no Landlock or seccomp lockdown (development only)\n"
		"  --limit KEY=VALUE     set a limit or budget (repeatable; --help-limits lists them)\n"
		"  --help-limits         the limits and budgets with their defaults\n"
		"  --config FILE         read the settings from FILE (default %s, when it\n"
		"                        exists); the environment and these flags override it\n"
		"  --check-config        validate the settings, print the effective ones, exit\n"
		"  --print-default-config  the commented default configuration file\n"
		"  --log-level LEVEL     error, warn, info (default) or debug\n"
		"  --verbose             debug logging (--log-level debug)\n"
		"  --help                this text\n"
		"  --version             print the version\n"
		"Under systemd socket activation (LISTEN_FDS) the inherited socket is used.\n"
		"See webnnd(8) and webnnd.conf(5).\n",
		WEBNN_DEFAULT_SOCKET, CONFIG_DEFAULT_PATH);
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

/* How many sockets systemd passed us (from fd 3 on): 0 unless LISTEN_PID is us. */
static int activation_fd_count(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	if (!pid || !fds || strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	long n = strtol(fds, NULL, 10);
	return n < 0 ? 0 : n > 64 ? 64 : (int)n;
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

/* ---- what the daemon lends its backends (struct backend_services) */

static void services_log(enum backend_log_level level, const char *file, int line,
			 const char *fmt, va_list ap)
{
	log_vmsg((enum log_level)level, file, line, fmt, ap);
}

static bool services_log_enabled(enum backend_log_level level)
{
	return log_enabled((enum log_level)level);
}

/* The same numbering on both sides: the casts above rely on it. */
_Static_assert((int)BACKEND_LOG_ERROR == (int)LOG_LEVEL_ERROR &&
		       (int)BACKEND_LOG_WARN == (int)LOG_LEVEL_WARN &&
		       (int)BACKEND_LOG_INFO == (int)LOG_LEVEL_INFO &&
		       (int)BACKEND_LOG_DEBUG == (int)LOG_LEVEL_DEBUG,
	       "backend and daemon log levels differ");

static const struct backend_services *daemon_services(void)
{
	static struct backend_services s = { .log = services_log,
					     .log_enabled = services_log_enabled,
					     .compute_thread = sched_compute_thread };
	s.cores = tasks_cores();
	return &s;
}

/* Whether impl may start in this process: the one forced, or any when the daemon chooses. */
static bool backend_wanted(const struct daemon_process *p, const struct backend_impl *impl)
{
	return !p->opts.backend_chosen || strcmp(p->opts.backend, impl->name) == 0;
}

/* What the backends that may start need, or-ed (the lockdown is set before they start). */
static struct backend_needs backends_needs(const struct daemon_process *p)
{
	struct backend_needs all = { 0 };
	for (size_t i = 0; backend_registry[i]; i++) {
		const struct backend_impl *impl = backend_registry[i];
		if (!backend_wanted(p, impl))
			continue;
		all.kernel_compiler |= impl->needs.kernel_compiler;
		all.device_nodes |= impl->needs.device_nodes;
		all.gpu_ioctl |= impl->needs.gpu_ioctl;
		all.thread_team |= impl->needs.thread_team;
	}
	return all;
}

/* Starts a backend and adds it to the daemon's routing list with the devices it serves. */
static enum webnn_status backend_start(struct daemon_process *p, const struct backend_impl *impl,
				       const struct backend_options *bo, struct wnn_diag *diag)
{
	struct daemon *d = &p->d;
	struct daemon_backend *db = &d->backends[d->n_backends];
	memset(db, 0, sizeof(*db));
	enum webnn_status st = impl->init(bo, &db->be, diag);
	if (st != WEBNN_STATUS_OK)
		return st;
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

/* Forced: that backend alone. Otherwise the registry's order decides (backend_serves): CPUs go
 * to the cpu backend (its fallback, the reference one, when oneDNN cannot start) and GPUs and
 * accelerators to the accelerator backends, which then open no CPU device: PoCL stays out of
 * the way, its 20 s of cold kernel compiles included. */
static int backend_open(struct daemon_process *p)
{
	struct backend_options bo = { .services = daemon_services(),
				      .cache_dir = p->opts.cache_dir,
				      .threads = p->opts.threads };
	struct wnn_diag diag = { 0 };
	enum webnn_status st;
	if (p->opts.backend_chosen) {
		const struct backend_impl *impl = backend_find(p->opts.backend);
		if (!impl) {
			log_error("unknown backend '%s' (expected %s)", p->opts.backend,
				  backend_names_text());
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
	const struct backend_impl *cpu = NULL;
	for (int pass = 0; pass < 2 && !cpu; pass++)
		for (size_t i = 0; backend_registry[i] && !cpu; i++) {
			const struct backend_impl *impl = backend_registry[i];
			if (impl->serves != (pass == 0 ? BACKEND_SERVES_CPU
						       : BACKEND_SERVES_CPU_FALLBACK))
				continue;
			wnn_diag_clear(&diag);
			st = backend_start(p, impl, &bo, &diag);
			if (st == WEBNN_STATUS_OK)
				cpu = impl;
			else
				log_warn("the %s backend failed to start (%s)%s", impl->name,
					 diag.message[0] ? diag.message : "no reason given",
					 pass == 0 ? "; CPUs run on its fallback" : "");
		}
	if (!cpu) {
		log_error("no backend could start for the CPUs");
		return -1;
	}
	struct backend_options accel = bo;
	accel.accelerators_only = true;
	for (size_t i = 0; backend_registry[i]; i++) {
		const struct backend_impl *impl = backend_registry[i];
		if (impl->serves != BACKEND_SERVES_ACCELERATORS)
			continue;
		wnn_diag_clear(&diag);
		st = backend_start(p, impl, &accel, &diag);
		if (st != WEBNN_STATUS_OK)
			log_info("%s; contexts for it run on the %s backend",
				 diag.message[0] ? diag.message : "no accelerator", cpu->name);
	}
	return 0;
}

static void close_signal(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (h->type == UV_SIGNAL && !uv_is_closing(h))
		uv_close(h, NULL);
}

static void report_leftover(uv_handle_t *h, void *arg)
{
	(void)arg;
	log_error("handle of type %s still open at exit", uv_handle_type_name(h->type));
}



/* ---- options */

/* "name,1000,..." into ids (users or groups by name or number). 0 or -1 with a message. */
static int parse_ids(const char *list, bool groups, uint32_t *ids, uint32_t *n)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n >= FRONTDOOR_MAX_ALLOW) {
			fprintf(stderr, "webnnd: at most %d entries in --allow-%s\n",
				FRONTDOOR_MAX_ALLOW, groups ? "gid" : "uid");
			return -1;
		}
		char *end;
		errno = 0;
		unsigned long v = strtoul(tok, &end, 10);
		if (!errno && *tok && !*end && v < UINT32_MAX) {
			ids[(*n)++] = (uint32_t)v;
			continue;
		}
		if (groups) {
			struct group *g = getgrnam(tok);
			if (g) {
				ids[(*n)++] = g->gr_gid;
				continue;
			}
		} else {
			struct passwd *pw = getpwnam(tok);
			if (pw) {
				ids[(*n)++] = pw->pw_uid;
				continue;
			}
		}
		fprintf(stderr, "webnnd: no %s named '%s'\n", groups ? "group" : "user", tok);
		return -1;
	}
	return 0;
}

/* Appends one --allow-uid/--allow-gid argument to the list: the first on the command line
 * replaces the configuration file's list. */
static int append_list(char *list, size_t cap, bool *replaced, const char *arg)
{
	if (!*replaced)
		list[0] = '\0';
	*replaced = true;
	size_t n = strlen(list);
	if (snprintf(list + n, cap - n, "%s%s", n ? "," : "", arg) >= (int)(cap - n))
		return -1;
	return 0;
}

static void mark_overridden(struct daemon_options *o, const char *key)
{
	size_t n = strlen(o->overridden);
	char item[80];
	snprintf(item, sizeof(item), ",%s,", key);
	if (strstr(o->overridden, item))
		return;
	snprintf(o->overridden + n, sizeof(o->overridden) - n, "%s%s,", n ? "" : ",", key);
}

static bool is_overridden(const struct daemon_options *o, const char *key)
{
	char item[80];
	snprintf(item, sizeof(item), ",%s,", key);
	return strstr(o->overridden, item) != NULL;
}

/* One flag's value through the configuration key's rule: "webnnd: --FLAG: why". */
static int flag_set(struct daemon_options *o, struct daemon_limits *limits, const char *flag,
		    const char *key, const char *value)
{
	char why[400];
	if (config_set(&o->cfg, limits, key, value, why, sizeof(why)) != 0) {
		fprintf(stderr, "webnnd: --%s: %s\n", flag, why);
		return -1;
	}
	mark_overridden(o, key);
	return 0;
}

/* The environment variables that override the configuration file (the command line overrides
 * them in turn). */
static int apply_environment(struct daemon_options *o, struct daemon_limits *limits)
{
	static const struct { const char *var, *key; } env[] = {
		{ "WEBNN_SOCKET", "socket" },
		{ "WEBNN_BACKEND", "backend" },
		{ "WEBNN_CPU_THREADS", "threads" },
		{ "WEBNN_CACHE_DIR", "cache_dir" },
	};
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++) {
		const char *v = getenv(env[i].var);
		char why[400];
		if (!v || !*v)
			continue;
		if (config_set(&o->cfg, limits, env[i].key, v, why, sizeof(why)) != 0) {
			fprintf(stderr, "webnnd: %s: %s\n", env[i].var, why);
			return -1;
		}
		mark_overridden(o, env[i].key);
	}
	if (getenv("WEBNN_NO_WARMUP")) {
		o->cfg.warm_up = false;
		mark_overridden(o, "warm_up");
	}
	/* read by every compute thread (daemon/worker/sched.c): refused here, once, when wrong */
	const char *nice = getenv("WEBNN_COMPUTE_NICE");
	if (nice && *nice) {
		char *end;
		long n = strtol(nice, &end, 10);
		if (*end || end == nice || n < 0 || n > 19) {
			fprintf(stderr, "webnnd: WEBNN_COMPUTE_NICE: '%s' is not a nice value 0..19\n",
				nice);
			return -1;
		}
	}
	return 0;
}

/* The configuration file named by --config (else the default one, when it exists); a worker
 * reads its front door's settings instead (o->inherited: the environment is in them already,
 * and WEBNN_CACHE_DIR is the directory the front door chose). */
static int load_config(int argc, char **argv, struct daemon_options *o,
		       struct daemon_limits *limits)
{
	const char *path = NULL;
	bool worker = false;
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strncmp(argv[i], "--config=", 9) == 0)
			path = argv[i] + 9;
		else if (strcmp(argv[i], "--worker") == 0)
			worker = true;
	}
	o->config_path = path ? path : CONFIG_DEFAULT_PATH;
	char why[600];
	const char *effective = getenv(CONFIG_EFFECTIVE_ENV);
	o->worker = worker;
	if (worker && effective) {
		o->inherited = true;
		if (config_parse(&o->cfg, limits, "(the front door's settings)", effective, why,
				 sizeof(why)) != 0) {
			fprintf(stderr, "webnnd: %s\n", why);
			return -1;
		}
		return 0;
	}
	if (config_load(&o->cfg, limits, o->config_path, path == NULL, why, sizeof(why)) != 0) {
		fprintf(stderr, "webnnd: %s\n", why);
		return -1;
	}
	return 0;
}

/* Reads the configuration file, the environment and the command line (each overriding the one
 * before) into o and limits. -1: exit 0 (help, version, --check-config); 0: go on; 2: usage or
 * configuration error. */
static int parse_options(int argc, char **argv, struct daemon_options *o,
			 struct daemon_limits *limits)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "socket-mode", required_argument, NULL, 'm' },
		{ "socket-group", required_argument, NULL, 'g' },
		{ "allow-uid", required_argument, NULL, 'U' },
		{ "allow-gid", required_argument, NULL, 'G' },
		{ "backend", required_argument, NULL, 'b' },
		{ "threads", required_argument, NULL, 't' },
		{ "user", required_argument, NULL, 'u' },
		{ "no-sandbox", no_argument, NULL, 'N' },
		{ "limit", required_argument, NULL, 'l' },
		{ "help-limits", no_argument, NULL, 'L' },
		{ "config", required_argument, NULL, 'C' },
		{ "check-config", no_argument, NULL, 'K' },
		{ "print-default-config", optional_argument, NULL, 'P' },
		{ "log-level", required_argument, NULL, 'E' },
		{ "worker", no_argument, NULL, 'W' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct daemon_config *c = &o->cfg;
	config_default(c);
	if (load_config(argc, argv, o, limits) != 0 ||
	    (!o->inherited && apply_environment(o, limits) != 0))
		return 2;
	bool check = false, uids_replaced = false, gids_replaced = false;
	int opt;
	while ((opt = getopt_long(argc, argv, "s:b:t:l:LvhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (flag_set(o, limits, "socket", "socket", optarg) != 0)
				return 2;
			break;
		case 'm':
			if (flag_set(o, limits, "socket-mode", "socket_mode", optarg) != 0)
				return 2;
			break;
		case 'g':
			if (flag_set(o, limits, "socket-group", "socket_group", optarg) != 0)
				return 2;
			break;
		case 'U':
		case 'G': {
			bool uids = opt == 'U';
			char *list = uids ? c->allow_uids : c->allow_gids;
			char merged[sizeof(c->allow_uids)];
			snprintf(merged, sizeof(merged), "%s", list);
			if (append_list(merged, sizeof(merged), uids ? &uids_replaced : &gids_replaced,
					optarg) != 0) {
				fprintf(stderr, "webnnd: --allow-%s: the list is too long\n",
					uids ? "uid" : "gid");
				return 2;
			}
			if (flag_set(o, limits, uids ? "allow-uid" : "allow-gid",
				     uids ? "allow_uids" : "allow_gids", merged) != 0)
				return 2;
			break;
		}
		case 'b':
			if (flag_set(o, limits, "backend", "backend", optarg) != 0)
				return 2;
			break;
		case 't':
			if (flag_set(o, limits, "threads", "threads", optarg) != 0)
				return 2;
			break;
		case 'u':
			if (strlen(optarg) >= sizeof(c->user)) {
				fprintf(stderr, "webnnd: --user: longer than %zu bytes\n",
					sizeof(c->user) - 1);
				return 2;
			}
			/* sandbox_user_resolve below names a user that does not exist */
			snprintf(c->user, sizeof(c->user), "%s", optarg);
			mark_overridden(o, "user");
			break;
		case 'N':
			c->sandbox = false;
			mark_overridden(o, "sandbox");
			break;
		case 'l': {
			char why[400], key[64];
			if (daemon_limits_set(limits, optarg, why, sizeof(why)) != 0) {
				fprintf(stderr, "webnnd: %s\n", why);
				return 2;
			}
			snprintf(key, sizeof(key), "%.*s", (int)strcspn(optarg, "="), optarg);
			mark_overridden(o, key);
			break;
		}
		case 'L':
			daemon_limits_print(stdout, limits);
			return -1;
		case 'C':
			break; /* read first, by load_config */
		case 'K':
			check = true;
			break;
		case 'P': {
			/* The compiled-in defaults, whatever the file, environment or flags say. */
			struct daemon_config def;
			struct daemon_limits def_limits;
			config_default(&def);
			daemon_limits_default(&def_limits);
			if (optarg && strcmp(optarg, "man") != 0) {
				fprintf(stderr, "webnnd: --print-default-config=%s: expected "
						"--print-default-config or --print-default-config=man\n",
					optarg);
				return 2;
			}
			config_write(stdout, &def, &def_limits, optarg ? CONFIG_MAN : CONFIG_TEMPLATE);
			return -1;
		}
		case 'E':
			if (flag_set(o, limits, "log-level", "log_level", optarg) != 0)
				return 2;
			break;
		case 'W':
			o->worker = true;
			break;
		case 'v':
			c->log_level = LOG_LEVEL_DEBUG;
			mark_overridden(o, "log_level");
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
	/* The settings, every one checked by its key's rule, into the options the code reads. */
	o->socket_path = c->socket;
	o->socket_mode = (mode_t)c->socket_mode;
	o->socket_gid = (gid_t)-1;
	if (c->socket_group[0]) {
		uint32_t gid[1], n = 0;
		if (parse_ids(c->socket_group, true, gid, &n) != 0 || n != 1)
			return 2;
		o->socket_gid = gid[0];
	}
	o->door.n_allow_uids = o->door.n_allow_gids = 0;
	if (parse_ids(c->allow_uids, false, o->door.allow_uids, &o->door.n_allow_uids) != 0 ||
	    parse_ids(c->allow_gids, true, o->door.allow_gids, &o->door.n_allow_gids) != 0)
		return 2;
	o->backend = c->backend;
	o->backend_chosen = strcmp(c->backend, "auto") != 0;
	o->threads = c->threads;
	o->user = c->user[0] ? c->user : NULL;
	o->no_sandbox = !c->sandbox;
	o->warm_up = c->warm_up;
	log_set_level((enum log_level)c->log_level);
	if (c->cache_dir[0] && !o->inherited)
		setenv("WEBNN_CACHE_DIR", c->cache_dir, 1);
	char why[200];
	if (sandbox_user_resolve(o->user, &o->svc, why, sizeof(why)) != 0) {
		fprintf(stderr, "webnnd: %s\n", why);
		return 2;
	}
	if (check) {
		printf("# webnnd %s: the effective settings (defaults, then %s, then the "
		       "environment, then the command line)\n# started now, it would run as %s "
		       "(uid %u)\n",
		       WEBNND_VERSION, o->config_path, o->svc.name, (unsigned)o->svc.uid);
		config_write(stdout, c, limits, CONFIG_SETTINGS);
		return -1;
	}
	return 0;
}

/* ---- the device worker */

/* The start-up line an operator looks for: version, then each backend with its devices. */
static void log_started(const struct daemon *d)
{
	char line[LOG_MAX / 2];
	size_t n = 0;
	line[0] = '\0';
	for (uint32_t b = 0; b < d->n_backends && n < sizeof(line); b++) {
		const struct daemon_backend *db = &d->backends[b];
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s backend:", b ? "; " : "",
				      db->impl->name);
		for (uint32_t i = 0; i < db->n_devices && n < sizeof(line); i++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s %s (%s)", i ? "," : "",
					      db->devices[i].device_name, db->devices[i].device_type);
	}
	log_info("webnnd %s worker started: %s", WEBNND_VERSION, line);
}

/* Stops serving: why for the log, goodbye (NULL: none) for every client. */
static void worker_shutdown(struct daemon_process *p, const char *why, const char *goodbye)
{
	if (p->stopping)
		return;
	log_info("%s: shutting down", why);
	p->stopping = true;
	server_stop(&p->srv, goodbye);
	worker_stop(&p->worker);
	/* With the signal handles closed too, the loop ends once in-flight device work has
	 * drained; a second signal then gets the default action (terminate). */
	uv_walk(p->d.loop, close_signal, NULL);
}

static void worker_on_stop_signal(uv_signal_t *h, int signum)
{
	struct daemon_process *p = h->data;
	/* The front door says why ahead of its SIGTERM (CONTROL_STOP): that is the Goodbye. */
	worker_drain(&p->worker);
	char bye[128];
	snprintf(bye, sizeof(bye), "webnnd's device worker got SIG%s: its contexts are lost",
		 sigabbrev_np(signum));
	worker_shutdown(p, signum == SIGTERM ? "SIGTERM" : "SIGINT",
			p->stop_why[0] ? p->stop_why : bye);
}

static void worker_door_gone(struct worker *w)
{
	struct daemon_process *p = (struct daemon_process *)((char *)w -
							     offsetof(struct daemon_process, worker));
	worker_shutdown(p, "the front door is gone",
			"webnnd's front door is gone (it crashed or was killed): this device "
			"worker stops, its contexts are lost");
}

static void worker_door_stops(struct worker *w, const char *why)
{
	struct daemon_process *p = (struct daemon_process *)((char *)w -
							     offsetof(struct daemon_process, worker));
	/* Kept for the SIGTERM that follows at once: stopping now would close the signal
	 * handles, and that SIGTERM would then end the worker before its work drained. */
	snprintf(p->stop_why, sizeof(p->stop_why), "%s", why);
}

/* A reload in the front door changed a setting (it validated the whole file). */
static void worker_setting(struct worker *w, const char *key, uint64_t value)
{
	struct daemon_process *p = (struct daemon_process *)((char *)w -
							     offsetof(struct daemon_process, worker));
	if (strcmp(key, "log_level") == 0 && value <= LOG_LEVEL_DEBUG) {
		log_set_level((enum log_level)value);
		return;
	}
	int i = daemon_limit_index(key);
	char num[32], why[256];
	snprintf(num, sizeof(num), "%" PRIu64, value);
	if (i < 0 || !daemon_limit_live(i) ||
	    daemon_limits_set_value(&p->d.limits, key, num, why, sizeof(why)) != 0) {
		log_warn("the front door sent setting %s = %s, which this worker cannot apply; "
			 "ignored", key, num);
		return;
	}
	log_debug("reload: %s = %s", key, num);
}

/* The worker's first lockdown step, before any backend starts a thread (PoCL, OpenMP, oneDNN):
 * Landlock restricts only the calling thread and those it starts later. */
static int worker_restrict_fs(struct daemon_process *p)
{
	int r = sandbox_harden_process();
	if (r < 0) {
		log_error("sandbox: %s", strerror(-r));
		return -1;
	}
	if (p->opts.no_sandbox)
		return 0;
	/* What the backends that may start need (a compiler and linker, device nodes, their
	 * runtime's cache directory), none of it when another backend was forced. */
	struct backend_needs needs = backends_needs(p);
	struct sandbox_fs_rules rules = { .compiler = needs.kernel_compiler,
					  .devices = needs.device_nodes };
	int n = 0;
	if (p->opts.cache_dir[0])
		rules.writable[n++] = p->opts.cache_dir;
	for (size_t i = 0; backend_registry[i] && n < SANDBOX_MAX_PATHS; i++) {
		const char *env = backend_registry[i]->needs.writable_dir_env;
		const char *dir = env && backend_wanted(p, backend_registry[i]) ? getenv(env) : NULL;
		if (dir && *dir)
			rules.writable[n++] = dir;
	}
	const char *kernels = getenv("WEBNN_KERNEL_DIR");
	if (kernels && *kernels)
		rules.readable[0] = kernels;
	char why[256];
	r = sandbox_restrict_fs(SANDBOX_WORKER, &rules, why, sizeof(why));
	if (r < 0) {
		log_error("sandbox: %s", why);
		return -1;
	}
	if (r > 0)
		log_debug("sandbox: no usable Landlock: this worker's files are not restricted");
	return 0;
}

/* The last lockdown step, once the backends are up and before the first client byte. */
static int worker_restrict_syscalls(struct daemon_process *p)
{
	if (p->opts.no_sandbox)
		return 0;
	struct sandbox_syscall_rules rules = { 0 };
	for (uint32_t i = 0; i < p->d.n_backends; i++) {
		const struct backend_needs *needs = &p->d.backends[i].impl->needs;
		rules.compiler |= needs->kernel_compiler;
		rules.gpu |= needs->gpu_ioctl && p->d.backends[i].accelerated;
	}
	char why[256];
	int n = sandbox_restrict_syscalls(SANDBOX_WORKER, &rules, why, sizeof(why));
	if (n < 0) {
		log_error("sandbox: %s", why);
		return -1;
	}
	log_debug("sandbox: seccomp allows %d syscalls%s%s", n,
		  rules.compiler ? ", PoCL's compile path included" : "",
		  rules.gpu ? ", ioctl unrestricted for the GPU" : "");
	return 0;
}

/* Whether the worker starts a backend with an OpenMP team. */
static bool uses_cpu_team(const struct daemon_process *p)
{
	return backends_needs(p).thread_team;
}

/* Before any thread starts: libuv aborts when its pool cannot start and libgomp exits when a
 * team cannot, neither saying why. Every thread the worker will run is started once here;
 * when one cannot be, the front door is told which limit stopped it (it tells the client). */
static int worker_check_threads(struct daemon_process *p)
{
	int pool = (int)p->d.limits.worker_pool_threads;
	int team = uses_cpu_team(p) ? (p->opts.threads > 0 ? p->opts.threads : tasks_cores()) : 0;
	int extra = pool + 2 * team; /* the team and its keep-awake threads (tasks.h) */
	struct control_msg m = { .type = CONTROL_FAILED };
	if (tasks_probe(extra, TASKS_WORKER_FIXED, TASKS_WORKER_FIXED + extra, getuid(), m.reason,
			sizeof(m.reason)) == 0)
		return 0;
	log_error("%s", m.reason);
	int r = control_send(CONTROL_WORKER_FD, &m, -1);
	if (r < 0)
		log_error("cannot tell the front door why: %s", strerror(-r));
	return -1;
}

/* A device worker: backends, then the lockdown, then the connections the front door hands
 * over on fd 3. Returns the exit status. */
static int run_worker(struct daemon_process *p)
{
	struct daemon *d = &p->d;
	if (fcntl(CONTROL_WORKER_FD, F_GETFD) < 0) {
		fprintf(stderr, "webnnd: --worker is internal: the front door starts workers\n");
		return 2;
	}
	/* Timeline commands block a pool thread until the device finishes (clFinish), so libuv's
	 * default of 4 threads would let 4 busy contexts stall everyone else's writes and builds;
	 * the front door may have given fewer to fit the task limit (daemon/tasks.h). */
	char pool[16];
	snprintf(pool, sizeof(pool), "%u", (unsigned)d->limits.worker_pool_threads);
	setenv("UV_THREADPOOL_SIZE", pool, 1);
	/* Before the lockdown (Landlock then forbids the write): past the budgets, the kernel's
	 * OOM killer takes a worker, one user's, rather than the front door, everyone's. */
	int oom = memlimit_prefer_oom_kill(MEMLIMIT_WORKER_OOM_SCORE_ADJ);
	if (oom != 0)
		log_info("cannot raise this worker's oom_score_adj: %s", strerror(-oom));
	budget_malloc_policy();
	int br = budget_attach(&d->budget, d->loop, CONTROL_LEASE_FD);
	if (br != 0) {
		log_error("no lease channel from the front door (fd %d): %s", CONTROL_LEASE_FD,
			  strerror(-br));
		return 1;
	}
	/* The front door dropped privileges before starting us; a worker started as root by
	 * hand does it here. */
	char why[200];
	if (sandbox_drop_privileges(&p->opts.svc, why, sizeof(why)) != 0) {
		log_error("cannot drop privileges: %s", why);
		return 1;
	}
	if (worker_check_threads(p) != 0)
		return 1;
	/* The front door chose the directory (WEBNN_CACHE_DIR) and PoCL's (POCL_CACHE_DIR). */
	caches_pick_dir(p->opts.cache_dir, sizeof(p->opts.cache_dir), &p->opts.svc);
	if (worker_restrict_fs(p) != 0)
		return 1;
	if (backend_open(p) != 0) {
		backends_close(d);
		budget_detach(&d->budget);
		return 1;
	}
	log_started(d);
	context_limits_init(d);
	conn_batch_init(&d->batch, d->loop);
	server_init(&p->srv, d);
	worker_prefer_latency();
	int r = worker_start(&p->worker, d->loop, &p->srv, worker_door_gone);
	if (r != 0) {
		log_error("cannot watch the control channel: %s", uv_strerror(r));
		server_stop(&p->srv, NULL);
		context_limits_finish(d);
		backends_close(d);
		budget_detach(&d->budget);
		return 1;
	}
	uv_signal_init(d->loop, &p->sig_term);
	uv_signal_init(d->loop, &p->sig_int);
	p->sig_term.data = p->sig_int.data = p;
	uv_signal_start(&p->sig_term, worker_on_stop_signal, SIGTERM);
	uv_signal_start(&p->sig_int, worker_on_stop_signal, SIGINT);
	p->worker.on_setting = worker_setting;
	p->worker.on_stop = worker_door_stops;
	if (worker_restrict_syscalls(p) != 0) {
		/* No READY: the front door sees a worker that died starting, and backs off. */
		worker_shutdown(p, "the lockdown failed", NULL);
		p->status = 1;
		conn_batch_close(&d->batch);
		uv_run(d->loop, UV_RUN_DEFAULT);
		context_limits_finish(d);
		backends_close(d);
		return 1;
	}
	worker_ready(&p->worker);
	uv_run(d->loop, UV_RUN_DEFAULT);
	/* Every session, and with it every backend object, is gone once uv_run returned. */
	timeline_watchdog_close(d);
	conn_batch_close(&d->batch);
	context_limits_finish(d);
	backends_close(d);
	budget_detach(&d->budget);
	return 0;
}

/* ---- the front door */

static void door_stopped(struct frontdoor *door)
{
	struct daemon_process *p = (struct daemon_process *)((char *)door -
							     offsetof(struct daemon_process, door));
	uv_walk(p->d.loop, close_signal, NULL);
}

/* SIGTERM, SIGINT and SIGQUIT: every client is told why, every worker finishes. */
static void door_on_stop_signal(uv_signal_t *h, int signum)
{
	struct daemon_process *p = h->data;
	if (p->stopping)
		return;
	log_info("SIG%s: shutting down", sigabbrev_np(signum));
	p->stopping = true;
	notify_systemd("STOPPING=1");
	frontdoor_stop(&p->door, CONTROL_STOP_SIGNAL, signum, door_stopped);
}

/* SIGUSR1: one line on what is running (a look without a debugger or /proc). */
static void door_on_status_signal(uv_signal_t *h, int signum)
{
	struct daemon_process *p = h->data;
	(void)signum;
	uint32_t workers = 0, users = 0;
	frontdoor_count(&p->door, &users, &workers);
	log_info("SIGUSR1: status: %u connection(s) of %u user(s), %u worker process(es) "
		 "(spare included); worker spawner %d, standby %d, %u replaced", p->door.n_conns,
		 users, workers, (int)p->spawner.primary.pid, (int)p->spawner.standby.pid,
		 p->spawner.replaced);
}

struct reload_report {
	struct daemon_process *p;
	struct daemon_config *next;
	unsigned applied, restart;
};

static void reload_key(const char *key, const char *was, const char *now, void *ud)
{
	struct reload_report *r = ud;
	if (is_overridden(&r->p->opts, key)) {
		log_debug("reload: %s = %s in %s, but the command line or the environment sets it: "
			  "unchanged", key, now, r->p->opts.config_path);
		return;
	}
	if (strcmp(key, "log_level") == 0) {
		log_set_level((enum log_level)r->next->log_level);
		r->p->opts.cfg.log_level = r->next->log_level;
		log_info("reload: log_level: %s -> %s", was, now);
		r->applied++;
		return;
	}
	log_warn("reload: %s = %s in %s takes effect at the next start (running with %s)", key,
		 now[0] ? now : "\"\"", r->p->opts.config_path, was[0] ? was : "\"\"");
	r->restart++;
}

/* SIGHUP: the configuration file again. The whole file is validated first (nothing changes
 * on any error); then the limits that can change at run time change, in the front door and
 * through the control channels in every worker, and the rest is said to need a restart. The
 * environment and the command line still override the file. */
static void door_reload(struct daemon_process *p)
{
	struct daemon_config next;
	struct daemon_limits limits;
	config_default(&next);
	daemon_limits_default(&limits);
	memlimit_derive_budgets(&limits, p->mem_available);
	char why[600];
	bool default_path = strcmp(p->opts.config_path, CONFIG_DEFAULT_PATH) == 0;
	if (config_load(&next, &limits, p->opts.config_path, default_path, why, sizeof(why)) != 0) {
		log_error("SIGHUP: %s; nothing changed", why);
		return;
	}
	struct daemon_limits before = p->d.limits;
	struct reload_report r = { .p = p, .next = &next };
	for (int i = 0; i < DAEMON_N_LIMITS; i++) {
		const char *key = daemon_limit_key(i);
		uint64_t was = daemon_limit_get(&p->d.limits, i), now = daemon_limit_get(&limits, i);
		if (was == now)
			continue;
		if (is_overridden(&p->opts, key)) {
			log_debug("reload: %s = %" PRIu64 " in %s, but --limit sets it: unchanged", key,
				  now, p->opts.config_path);
			continue;
		}
		if (!daemon_limit_live(i)) {
			log_warn("reload: %s = %" PRIu64 " in %s takes effect at the next start "
				 "(running with %" PRIu64 ")", key, now, p->opts.config_path, was);
			r.restart++;
			continue;
		}
		char num[32], err[256];
		snprintf(num, sizeof(num), "%" PRIu64, now);
		if (daemon_limits_set_value(&p->d.limits, key, num, err, sizeof(err)) == 0) {
			log_info("reload: %s: %" PRIu64 " -> %" PRIu64, key, was, now);
			r.applied++;
		}
	}
	config_diff(&p->opts.cfg, &next, reload_key, &r);
	if (r.applied)
		frontdoor_settings_changed(&p->door, &before, p->opts.cfg.log_level);
	log_info("SIGHUP: reloaded %s: %u setting(s) changed, %u wait for a restart",
		 p->opts.config_path, r.applied, r.restart);
}

static void door_on_reload_signal(uv_signal_t *h, int signum)
{
	struct daemon_process *p = h->data;
	(void)signum;
	if (!p->stopping)
		door_reload(p);
}

/* Workers and the warm-up child are reaped at once (no zombies); only their pids are waited
 * for, never the children the OpenCL driver spawns (ld) inside a worker. */
static void door_on_child_signal(uv_signal_t *h, int signum)
{
	struct daemon_process *p = h->data;
	(void)signum;
	caches_warm_reap(&p->warm_pid);
	/* A dead spawner's standby takes over (daemon/front/spawner.h). Without any spawner no worker
	 * can start (and we cannot fork one after our lockdown): stop, and let the service
	 * manager start webnnd again. */
	if (spawner_reap(&p->spawner) && !p->stopping) {
		log_error("both worker spawners are gone and no device worker can start without "
			  "one: stopping");
		p->status = 1;
		p->stopping = true;
		notify_systemd("STOPPING=1");
		frontdoor_stop(&p->door, CONTROL_STOP_NO_SPAWNER, 0, door_stopped);
	}
	frontdoor_reap(&p->door);
}

static void door_first_ready(struct frontdoor *door, bool ok)
{
	struct daemon_process *p = (struct daemon_process *)((char *)door -
							     offsetof(struct daemon_process, door));
	if (!ok) {
		log_error("the first device worker failed to start (its log is above): stopping");
		p->status = 1;
		p->stopping = true;
		frontdoor_stop(door, CONTROL_STOP_FAILED, 0, door_stopped);
		return;
	}
	log_info("ready");
	notify_systemd("READY=1");
}

/* The argv a worker runs with: ours, then --worker, then the thread sizes of the plan. */
static char **worker_argv(int argc, char **argv, const struct tasks_plan *plan)
{
	/* The thread sizes come last: the last flag wins over the user's own. */
	static char team[16], pool[48];
	char **wa = calloc((size_t)argc + 6, sizeof(*wa));
	if (!wa)
		return NULL;
	int n = 0;
	for (int i = 0; i < argc; i++)
		wa[n++] = argv[i];
	wa[n++] = "--worker";
	snprintf(pool, sizeof(pool), "worker_pool_threads=%u", (unsigned)plan->pool);
	wa[n++] = "--limit";
	wa[n++] = pool;
	if (plan->team) {
		snprintf(team, sizeof(team), "%u", (unsigned)plan->team);
		wa[n++] = "--threads";
		wa[n++] = team;
	}
	return wa;
}

/* Sizes the workers' threads and their number to the task limit (daemon/tasks.h), as the
 * service user: RLIMIT_NPROC counts its tasks. */
static void door_plan_threads(struct daemon_process *p, struct tasks_plan *plan)
{
	const struct daemon_limits *l = &p->d.limits;
	struct tasks_limit lim;
	tasks_limit_read(getuid(), &lim);
	uint32_t team = uses_cpu_team(p) ? (uint32_t)(p->opts.threads > 0 ? p->opts.threads
									     : tasks_cores()) : 0;
	tasks_plan_make(&lim, l->max_workers, l->worker_pool_threads, team, plan);
	uint32_t each = tasks_worker_threads(plan->pool, plan->team);
	struct frontdoor_config *cfg = &p->opts.door;
	cfg->max_workers = plan->workers;
	if (lim.available < 0) {
		snprintf(cfg->workers_why, sizeof(cfg->workers_why), "max_workers");
		log_info("device workers: up to %u of %u threads each (%u in the pool, %u in the "
			 "cpu team); no task limit applies", plan->workers, each, plan->pool,
			 plan->team);
		return;
	}
	if (plan->workers < l->max_workers)
		snprintf(cfg->workers_why, sizeof(cfg->workers_why), "max_workers=%u, lowered to "
			 "fit the task limit %.160s", (unsigned)l->max_workers, lim.what);
	else
		snprintf(cfg->workers_why, sizeof(cfg->workers_why), "max_workers");
	if (!plan->shrunk)
		log_info("device workers: up to %u of %u threads each (%u in the pool, %u in the cpu "
			 "team) fit the task limit (%s, %ld in use)", plan->workers, each, plan->pool,
			 plan->team, lim.what, lim.in_use);
	else
		log_warn("the task limit (%s, %ld in use) leaves %ld tasks to each of max_workers=%u "
			 "device workers: %u workers of %u threads each (%u in the pool of %u asked "
			 "for, %u in the cpu team of %u); raise the limit (TasksMax=) or lower "
			 "max_workers", lim.what, lim.in_use, plan->per_worker, l->max_workers,
			 plan->workers, each, plan->pool, l->worker_pool_threads, plan->team, team);
}

/* The service user, after the socket and the cache directory were set up as root. */
static int door_drop_privileges(struct daemon_process *p)
{
	const struct sandbox_user *u = &p->opts.svc;
	char why[200];
	if (sandbox_drop_privileges(u, why, sizeof(why)) != 0) {
		log_error("cannot drop privileges: %s", why);
		return -1;
	}
	if (u->drop)
		log_info("running as user %s (uid %u, gid %u)", u->name, (unsigned)u->uid,
			 (unsigned)u->gid);
	else if (u->uid == 0)
		log_warn("running as root (--user root): the workers keep root's access to "
			 "whatever their sandbox lets through");
	if (p->opts.no_sandbox) {
		log_warn("--no-sandbox: no Landlock and no seccomp filter (development only)");
		return 0;
	}
	int abi = sandbox_landlock_abi();
	if (abi < 0)
		log_warn("Landlock is not available (%s): only the seccomp filters restrict the "
			 "workers, not the files they may open", strerror(-abi));
	else
		log_debug("sandbox: Landlock ABI %d", abi);
	return 0;
}

/* The front door's lockdown, once the spawner and the first worker are started. */
static int door_lockdown(struct daemon_process *p, bool activated)
{
	int r = sandbox_harden_process();
	if (r < 0) {
		log_error("sandbox: %s", strerror(-r));
		return -1;
	}
	if (p->opts.no_sandbox)
		return 0;
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	snprintf(dir, sizeof(dir), "%s", p->opts.socket_path);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	struct sandbox_fs_rules fs = { .removable_in = activated ? NULL : dir };
	/* A reload (SIGHUP) reads the configuration file again: its directory stays readable
	 * (files only), not the file itself, whose inode an editor's save replaces; and the
	 * directory of the file it may be a symlink to. */
	char conf[PATH_MAX], conf_dir[PATH_MAX], conf_real[PATH_MAX];
	snprintf(conf, sizeof(conf), "%s", p->opts.config_path);
	char *cs = strrchr(conf, '/');
	if (cs == conf)
		cs[1] = '\0';
	else if (cs)
		*cs = '\0';
	if (realpath(cs ? conf : ".", conf_dir))
		fs.readable[0] = conf_dir;
	if (realpath(p->opts.config_path, conf_real)) {
		char *rs = strrchr(conf_real, '/');
		if (rs && rs != conf_real)
			*rs = '\0';
		else if (rs)
			rs[1] = '\0';
		fs.readable[1] = conf_real;
	}
	char why[256];
	if (sandbox_restrict_fs(SANDBOX_FRONTDOOR, &fs, why, sizeof(why)) < 0) {
		log_error("sandbox: %s", why);
		return -1;
	}
	struct sandbox_syscall_rules sc = { 0 };
	int n = sandbox_restrict_syscalls(SANDBOX_FRONTDOOR, &sc, why, sizeof(why));
	if (n < 0) {
		log_error("sandbox: %s", why);
		return -1;
	}
	log_debug("sandbox: the front door's seccomp filter allows %d syscalls", n);
	return 0;
}

/* Every worker runs with the settings we started with, not with the file as it is when the
 * worker starts (it may have been edited since). */
static int export_settings(const struct daemon_process *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		log_error("cannot pass the settings to the workers: %s", strerror(errno));
		return -1;
	}
	config_write(f, &p->opts.cfg, &p->d.limits, CONFIG_SETTINGS);
	int r = fclose(f) == 0 ? setenv(CONFIG_EFFECTIVE_ENV, text, 1) : -1;
	if (r != 0)
		log_error("cannot pass the settings to the workers: %s", strerror(errno));
	free(text);
	return r;
}

static int run_frontdoor(struct daemon_process *p, int argc, char **argv)
{
	struct daemon *d = &p->d;
	bool activated = false;
	char **wargv = NULL;
	int r;
	p->spawner.primary.sock = p->spawner.standby.sock = -1;
	p->status = 1; /* until the loop runs */
	log_info("webnnd %s (protocol %d.%d) starting; settings: %s%s", WEBNND_VERSION,
		 WNN_PROTOCOL_MAJOR, WNN_PROTOCOL_MINOR, p->opts.config_path,
		 access(p->opts.config_path, F_OK) == 0 ? "" : " (absent: the defaults)");
	uint64_t cg = memlimit_cgroup(), host = memlimit_host();
	log_info("memory budgets: %" PRIu64 " MiB for all users, %" PRIu64 " MiB per user, %" PRIu64
		 " MiB per connection (memory: cgroup limit %s%" PRIu64 " MiB, host %" PRIu64 " MiB)",
		 d->limits.max_total_bytes >> 20, d->limits.max_uid_bytes >> 20,
		 d->limits.max_connection_bytes >> 20, cg ? "" : "none, ", cg >> 20, host >> 20);
	/* The socket first: a second daemon on the same path fails before anything starts. */
	int fd = activation_fd();
	if (fd == -2)
		return 1;
	if (fd >= 0)
		activated = true;
	else if ((fd = frontdoor_bind(p->opts.socket_path, p->opts.socket_mode,
				      p->opts.socket_gid, p->opts.svc.uid)) < 0)
		return 1;
	ssize_t n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);
	if (n <= 0) {
		log_error("cannot find this program to start workers: %s", strerror(errno));
		goto out_socket;
	}
	p->exe[n] = '\0';
	/* Cache policy before any worker or warm-up starts: PoCL reads POCL_CACHE_DIR at platform
	 * init, and every worker must use the same directory whatever its environment says. */
	caches_pick_dir(p->opts.cache_dir, sizeof(p->opts.cache_dir), &p->opts.svc);
	if (p->opts.cache_dir[0])
		setenv("WEBNN_CACHE_DIR", p->opts.cache_dir, 1);
	caches_point_pocl(p->opts.cache_dir, &p->opts.svc);
	/* Every worker's OpenMP team (cpu backend) spans all cores, so busy workers oversubscribe
	 * them, and on a loaded machine a team's two threads often share one core: libgomp's
	 * default of ~3 ms of spinning per wait then stalls every step (bench_fairness: a graph
	 * 5-20x slower alone, two busy workers 3-8x slower each instead of 2x). 1000 spins, what
	 * libgomp itself uses once it sees more threads than cores (it cannot see other processes),
	 * still bridge back-to-back steps. libgomp reads it when a worker starts; an explicit
	 * OMP_WAIT_POLICY or GOMP_SPINCOUNT wins. */
	if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT"))
		setenv("GOMP_SPINCOUNT", "1000", 1);
	if (door_drop_privileges(p) != 0)
		goto out_socket;
	struct frontdoor_config *cfg = &p->opts.door;
	cfg->limits = &d->limits;
	cfg->log_level = p->opts.cfg.log_level;
	struct tasks_plan plan;
	door_plan_threads(p, &plan);
	wargv = worker_argv(argc, argv, &plan);
	if (!wargv || export_settings(p) != 0)
		goto out_socket;
	/* Before the warm-up child, the signal handlers and our own lockdown: the spawner starts
	 * every worker with none of them. */
	r = spawner_start(&p->spawner, p->exe, wargv);
	if (r != 0) {
		log_error("cannot start the worker spawner: %s", strerror(-r));
		goto out_socket;
	}
	cfg->spawner = &p->spawner;
	/* The OpenCL cache warm-up (CLBlast kernels into PoCL's disk cache) runs once, here, not in
	 * every worker. */
	for (size_t i = 0; p->opts.warm_up && backend_registry[i] && !p->warm_pid; i++) {
		const struct backend_impl *impl = backend_registry[i];
		if (!impl->warm_caches || !backend_wanted(p, impl))
			continue;
		struct backend_options bo = {
			.services = daemon_services(),
			.cache_dir = p->opts.cache_dir,
			.threads = p->opts.threads,
			.accelerators_only = !p->opts.backend_chosen &&
					     impl->serves == BACKEND_SERVES_ACCELERATORS,
		};
		p->warm_pid = caches_warm_start(impl, &bo);
	}
	uv_signal_t *sigs[] = { &p->sig_term, &p->sig_int, &p->sig_quit, &p->sig_chld,
				&p->sig_hup, &p->sig_usr1 };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		uv_signal_init(d->loop, sigs[i]);
		sigs[i]->data = p;
	}
	uv_signal_start(&p->sig_term, door_on_stop_signal, SIGTERM);
	uv_signal_start(&p->sig_int, door_on_stop_signal, SIGINT);
	uv_signal_start(&p->sig_quit, door_on_stop_signal, SIGQUIT);
	uv_signal_start(&p->sig_chld, door_on_child_signal, SIGCHLD);
	uv_signal_start(&p->sig_hup, door_on_reload_signal, SIGHUP);
	uv_signal_start(&p->sig_usr1, door_on_status_signal, SIGUSR1);
	p->status = 0;
	/* The door's loop answers too (accepts, hand-offs): under a client's connection churn it
	 * runs flat out, and a short slice lets other uids' workers and clients in between. */
	worker_prefer_latency();
	r = frontdoor_start(&p->door, d->loop, cfg, fd, door_first_ready);
	if (r != 0) {
		log_error("cannot start the front door: %s", strerror(-r));
		p->status = 1;
		p->stopping = true;
		frontdoor_stop(&p->door, CONTROL_STOP_FAILED, 0, door_stopped);
	} else if (activated) {
		log_info("listening on the socket passed by systemd");
	} else {
		log_info("listening on %s", p->opts.socket_path);
	}
	if (r == 0 && door_lockdown(p, activated) != 0) {
		p->status = 1;
		p->stopping = true;
		frontdoor_stop(&p->door, CONTROL_STOP_FAILED, 0, door_stopped);
	}
	/* From here on no user or group database lookups (a reload's names are not resolved). */
	config_stop_name_lookups();
	uv_run(d->loop, UV_RUN_DEFAULT);
	caches_warm_stop(&p->warm_pid);
out_socket:
	spawner_stop(&p->spawner);
	free(wargv);
	close(fd);
	/* After the drop the socket's directory may not be ours to write: the socket then
	 * stays, and the next start replaces it (a socket nobody answers on is stale). */
	if (!activated && unlink(p->opts.socket_path) != 0 && errno != ENOENT)
		log_debug("cannot remove %s: %s", p->opts.socket_path, strerror(errno));
	return p->status;
}

/* Every catchable signal, decided one by one (README, "Signals"; webnnd(8)). Ignored here,
 * before the spawner and the workers exist, so that they inherit it across fork and exec:
 *   SIGPIPE: a client gone mid-reply is an EPIPE on that connection, not the end of us;
 *   SIGXFSZ: a write past RLIMIT_FSIZE is an EFBIG on that write;
 *   SIGHUP, SIGUSR1, SIGQUIT: the front door handles them itself (reload, status, stop)
 *     once its loop runs; until then, and in the workers and the spawners, ignored (a
 *     terminal's hangup reaches the whole process group; the front door tells the workers
 *     over their control channels what concerns them);
 *   SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGTTIN, SIGTTOU and the
 *     real-time signals: nothing here uses them; sent by mistake they must not end a daemon
 *     with users' work in it.
 * Left as they are: SIGTERM and SIGINT (handled: a stop with a Goodbye), SIGCHLD (handled
 * by the front door), SIGTSTP and SIGCONT (job control when run from a shell), SIGWINCH and
 * SIGURG (ignored by default), SIGXCPU (a CPU-time limit set by the operator ends the
 * process, as asked), and the faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS,
 * SIGTRAP: the process is not to be trusted after one; a worker's clients then get the front
 * door's Goodbye, a front door's clients get their worker's). */
static void signals_set_dispositions(void)
{
	static const int ignored[] = { SIGPIPE, SIGXFSZ, SIGHUP, SIGUSR1, SIGQUIT, SIGUSR2,
				       SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT,
				       SIGTTIN, SIGTTOU };
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		signal(sig, SIG_IGN);
}

int main(int argc, char **argv)
{
	/* Before anything can start a thread or exec a program: no new privileges for either,
	 * and nothing inherited but stdio, systemd's sockets and (in a worker) the front door's
	 * control channel and lease channel. */
	int nnp = sandbox_no_new_privs();
	bool worker = false;
	for (int i = 1; i < argc; i++)
		worker |= strcmp(argv[i], "--worker") == 0;
	if (worker)
		sandbox_close_inherited_fds(CONTROL_WORKER_FD, 2); /* and CONTROL_LEASE_FD */
	else
		sandbox_close_inherited_fds(SD_LISTEN_FDS_START, activation_fd_count());
	static struct daemon_process p;
	daemon_limits_default(&p.d.limits);
	/* The memory budgets' defaults fit the memory we may use (daemon/front/memlimit.h); the file,
	 * the environment and --limit override them. Read once: a reload derives them again
	 * from the same figure (the front door's lockdown hides /proc and /sys from it). */
	p.mem_available = memlimit_available();
	memlimit_derive_budgets(&p.d.limits, p.mem_available);
	int r = parse_options(argc, argv, &p.opts, &p.d.limits);
	if (r != 0)
		return r < 0 ? 0 : r;
	if (nnp < 0) {
		log_error("cannot set no_new_privs: %s", strerror(-nnp));
		return 1;
	}
	signals_set_dispositions();
	/* Every connection is an fd in the front door and in its worker (the caps, not the
	 * default soft limit of 1024, should decide how many are served). */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	uv_loop_t loop;
	if (uv_loop_init(&loop) != 0) {
		log_error("cannot initialise the event loop");
		return 1;
	}
	p.d.loop = &loop;
	int status = p.opts.worker ? run_worker(&p) : run_frontdoor(&p, argc, argv);
	/* A last pass closes handles left behind by an early failure. */
	uv_walk(&loop, close_signal, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&loop) != 0) {
		uv_walk(&loop, report_leftover, NULL);
		status = 1;
	}
	log_limit_flush(true);
	if (status == 0)
		log_info("stopped");
	return status;
}
