/* webnnd.conf: the keys besides daemon/limits.def's, their rules, and "key = value" parsing and printing. */
#include "daemon/config.h"
#include "daemon/backend/backend.h"
#include "daemon/log.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum config_type {
	CT_PATH,     /* absolute path, or "" (where the key allows it) */
	CT_SOCKET,   /* a path that fits sockaddr_un (relative: to where webnnd starts) */
	CT_MODE,     /* octal 0..0777 */
	CT_GROUP,    /* a group name or number, or "" */
	CT_USERS,    /* comma-separated user names or numbers, or "" */
	CT_GROUPS,   /* comma-separated group names or numbers, or "" */
	CT_BACKEND,  /* auto, cpu, opencl, reference */
	CT_THREADS,  /* 1..CONFIG_MAX_THREADS, or "" (0: every core) */
	CT_LEVEL,    /* error, warn, info, debug */
	CT_USER,     /* a user name or number, or "" */
	CT_BOOL,     /* yes, no */
};

#define CONFIG_MAX_THREADS 1024

struct config_key {
	const char *key;
	enum config_type type;
	size_t offset, size;
	const char *flag; /* the command-line flag or environment variable that overrides it */
	const char *help;
};

#define F(field) offsetof(struct daemon_config, field), sizeof(((struct daemon_config *)0)->field)

static const struct config_key config_keys[] = {
	{ "socket", CT_SOCKET, F(socket), "--socket, $WEBNN_SOCKET",
	  "path of the listening socket (a relative one is relative to the directory webnnd "
	  "starts in); under systemd socket activation webnnd.socket names it instead" },
	{ "socket_mode", CT_MODE, F(socket_mode), "--socket-mode",
	  "access mode of the socket, octal: 0666 lets every local user connect (each user is "
	  "served by a worker process of its own); 0660 with socket_group restricts it. Under "
	  "socket activation webnnd.socket's SocketMode= decides instead" },
	{ "socket_group", CT_GROUP, F(socket_group), "--socket-group",
	  "group owning the socket, a name or a number (empty: the group webnnd runs as); under "
	  "socket activation webnnd.socket's SocketGroup= decides instead" },
	{ "allow_uids", CT_USERS, F(allow_uids), "--allow-uid",
	  "admit only these users, names or numbers, comma-separated (empty, with allow_gids "
	  "empty too: every user who can open the socket)" },
	{ "allow_gids", CT_GROUPS, F(allow_gids), "--allow-gid",
	  "admit members of these groups too (primary or supplementary), names or numbers, "
	  "comma-separated" },
	{ "backend", CT_BACKEND, F(backend), "--backend, $WEBNN_BACKEND",
	  "auto: CPUs on the cpu backend (oneDNN; the reference backend when it cannot start), "
	  "GPUs and accelerators on opencl; cpu, opencl or reference: every context on that "
	  "backend and its devices alone" },
	{ "threads", CT_THREADS, F(threads), "--threads, $WEBNN_CPU_THREADS",
	  "compute threads of the cpu backend, 1..1024 (empty: every core webnnd may use)" },
	{ "cache_dir", CT_PATH, F(cache_dir), "$WEBNN_CACHE_DIR",
	  "directory of the compiled-kernel caches, writable by the service user (empty: "
	  "/var/cache/webnn when started as root, else $XDG_CACHE_HOME/webnn or "
	  "~/.cache/webnn; /tmp/webnn-cache-UID as a last resort)" },
	{ "log_level", CT_LEVEL, F(log_level), "--log-level, --verbose",
	  "error, warn, info or debug" },
	{ "user", CT_USER, F(user), "--user",
	  "started as root, run as this user (empty: webnn when that user exists, else nobody); "
	  "root keeps root, with a warning" },
	{ "sandbox", CT_BOOL, F(sandbox), "--no-sandbox",
	  "yes: Landlock and seccomp lock down the front door and the workers; no: development "
	  "only" },
	{ "warm_up", CT_BOOL, F(warm_up), "$WEBNN_NO_WARMUP",
	  "yes: a child process compiles the OpenCL kernels into the cache at start" },
};

#define N_KEYS (sizeof(config_keys) / sizeof(config_keys[0]))

static const char *const level_names[] = { "error", "warn", "info", "debug" };

void config_default(struct daemon_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->socket, sizeof(c->socket), "%s", WEBNN_DEFAULT_SOCKET);
	c->socket_mode = 0666;
	snprintf(c->backend, sizeof(c->backend), "auto");
	c->log_level = LOG_LEVEL_INFO;
	c->sandbox = true;
	c->warm_up = true;
}

static int pick(const char *value, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(value, names[i]) == 0)
			return (int)i;
	return -1;
}

static bool names_looked_up = true;

void config_stop_name_lookups(void)
{
	names_looked_up = false;
}

static bool name_ok(const char *name, bool group)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(name, &end, 10);
	if (!errno && *name && !*end && v < UINT32_MAX)
		return true;
	if (!names_looked_up)
		return *name && !strpbrk(name, " \t,:/");
	return group ? getgrnam(name) != NULL : getpwnam(name) != NULL;
}

/* Each comma-separated entry names an existing user (group); why says which does not. */
static int check_list(const struct config_key *k, const char *value, char *why, size_t why_len)
{
	bool group = k->type == CT_GROUPS;
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", value);
	unsigned n = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (++n > CONFIG_MAX_ALLOW) {
			snprintf(why, why_len, "%s: more than %d entries", k->key,
				 CONFIG_MAX_ALLOW);
			return -1;
		}
		if (!name_ok(tok, group)) {
			snprintf(why, why_len, "%s = %.200s: no %s named '%.64s'", k->key, value,
				 group ? "group" : "user", tok);
			return -1;
		}
	}
	return 0;
}

static int set_string(const struct config_key *k, char *field, const char *value, char *why,
		      size_t why_len)
{
	if (strlen(value) >= k->size) {
		snprintf(why, why_len, "%s: the value is longer than %zu bytes", k->key, k->size - 1);
		return -1;
	}
	memcpy(field, value, strlen(value) + 1);
	return 0;
}

static int set_key(const struct config_key *k, struct daemon_config *c, const char *value,
		   char *why, size_t why_len)
{
	char *field = (char *)c + k->offset;
	char *end;
	switch (k->type) {
	case CT_SOCKET:
		if (!value[0]) {
			snprintf(why, why_len, "%s: needs a path", k->key);
			return -1;
		}
		return set_string(k, field, value, why, why_len);
	case CT_PATH:
		if (value[0] && value[0] != '/') {
			snprintf(why, why_len, "%s = %.200s: not an absolute path (or empty)", k->key,
				 value);
			return -1;
		}
		return set_string(k, field, value, why, why_len);
	case CT_MODE: {
		errno = 0;
		unsigned long m = strtoul(value, &end, 8);
		if (errno || *end || end == value || m > 0777 || value[0] == '-') {
			snprintf(why, why_len, "%s = %.64s: not an octal mode 0000..0777", k->key,
				 value);
			return -1;
		}
		c->socket_mode = (unsigned)m;
		return 0;
	}
	case CT_GROUP:
		if (value[0] && !name_ok(value, true)) {
			snprintf(why, why_len, "%s = %.64s: no such group", k->key, value);
			return -1;
		}
		return set_string(k, field, value, why, why_len);
	case CT_USER:
		if (value[0] && !name_ok(value, false)) {
			snprintf(why, why_len, "%s = %.64s: no such user", k->key, value);
			return -1;
		}
		return set_string(k, field, value, why, why_len);
	case CT_USERS:
	case CT_GROUPS:
		if (strlen(value) >= k->size) {
			snprintf(why, why_len, "%s: the value is longer than %zu bytes", k->key,
				 k->size - 1);
			return -1;
		}
		if (check_list(k, value, why, why_len) != 0)
			return -1;
		return set_string(k, field, value, why, why_len);
	case CT_BACKEND:
		if (strcmp(value, "auto") != 0 && !backend_find(value)) {
			snprintf(why, why_len, "%s = %.64s: expected auto, %s", k->key, value,
				 backend_names_text());
			return -1;
		}
		return set_string(k, field, value, why, why_len);
	case CT_THREADS: {
		if (!*value) {
			c->threads = 0;
			return 0;
		}
		errno = 0;
		long v = strtol(value, &end, 10);
		if (errno || *end || end == value || v < 1 || v > CONFIG_MAX_THREADS) {
			snprintf(why, why_len, "%s = %.64s: expected 1..%d (empty: every core)", k->key,
				 value, CONFIG_MAX_THREADS);
			return -1;
		}
		c->threads = (int)v;
		return 0;
	}
	case CT_LEVEL: {
		int v = pick(value, level_names, 4);
		if (v < 0) {
			snprintf(why, why_len, "%s = %.64s: expected error, warn, info or debug",
				 k->key, value);
			return -1;
		}
		c->log_level = v;
		return 0;
	}
	case CT_BOOL: {
		bool v;
		if (strcmp(value, "yes") == 0)
			v = true;
		else if (strcmp(value, "no") == 0)
			v = false;
		else {
			snprintf(why, why_len, "%s = %.64s: expected yes or no", k->key, value);
			return -1;
		}
		memcpy(field, &v, sizeof(v));
		return 0;
	}
	}
	return -1;
}

int config_set(struct daemon_config *c, struct daemon_limits *l, const char *key,
	       const char *value, char *why, size_t why_len)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (strcmp(config_keys[i].key, key) == 0)
			return set_key(&config_keys[i], c, value, why, why_len);
	if (daemon_limits_has(key))
		return daemon_limits_set_value(l, key, value, why, why_len);
	snprintf(why, why_len, "unknown key '%.64s' (webnnd.conf(5) and webnnd --check-config "
		 "list the keys)", key);
	return -1;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* The key of each line that set one, to name a key set twice. */
struct seen {
	char key[64];
	unsigned line;
};

int config_parse(struct daemon_config *c, struct daemon_limits *l, const char *name,
		 const char *text, char *why, size_t why_len)
{
	enum { MAX_SEEN = 128 };
	struct seen seen[MAX_SEEN];
	size_t n_seen = 0;
	unsigned line = 0;
	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char buf[1200];
		line++;
		if (len >= sizeof(buf)) {
			snprintf(why, why_len, "%s:%u: a line longer than %zu bytes", name, line,
				 sizeof(buf) - 1);
			return -1;
		}
		memcpy(buf, p, len);
		buf[len] = '\0';
		p = eol ? eol + 1 : p + len;
		char *s = buf, *e = buf + len;
		while (is_space(*s))
			s++;
		while (e > s && is_space(e[-1]))
			*--e = '\0';
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			snprintf(why, why_len, "%s:%u: expected 'key = value' (a # starts a comment "
				 "line), not '%.64s'", name, line, s);
			return -1;
		}
		char *ke = eq;
		while (ke > s && is_space(ke[-1]))
			ke--;
		*ke = '\0';
		char *v = eq + 1;
		while (is_space(*v))
			v++;
		if (!*s) {
			snprintf(why, why_len, "%s:%u: a value without a key", name, line);
			return -1;
		}
		for (size_t i = 0; i < n_seen; i++)
			if (strcmp(seen[i].key, s) == 0) {
				snprintf(why, why_len, "%s:%u: %.64s is set twice (first on line %u)",
					 name, line, s, seen[i].line);
				return -1;
			}
		char rule[400];
		if (config_set(c, l, s, v, rule, sizeof(rule)) != 0) {
			snprintf(why, why_len, "%s:%u: %s", name, line, rule);
			return -1;
		}
		if (n_seen < MAX_SEEN && strlen(s) < sizeof(seen[n_seen].key)) {
			memcpy(seen[n_seen].key, s, strlen(s) + 1);
			seen[n_seen++].line = line;
		}
	}
	return 0;
}

int config_load(struct daemon_config *c, struct daemon_limits *l, const char *path,
		bool missing_ok, char *why, size_t why_len)
{
	/* open and read only: a reload runs in the front door after its lockdown, whose seccomp
	 * filter has no fstat (which stdio would call). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (missing_ok && errno == ENOENT)
			return 0;
		snprintf(why, why_len, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	/* Small by nature: a bound keeps a wrong path (a device, a huge file) from hanging us. */
	enum { MAX_FILE = 256 << 10 };
	char *text = malloc(MAX_FILE + 1);
	if (!text) {
		close(fd);
		snprintf(why, why_len, "cannot read %s: out of memory", path);
		return -1;
	}
	size_t n = 0;
	int err = 0;
	while (n < MAX_FILE + 1) {
		ssize_t got = read(fd, text + n, MAX_FILE + 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			err = errno;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	int r = -1;
	if (err)
		snprintf(why, why_len, "cannot read %s: %s", path, strerror(err));
	else if (n > MAX_FILE)
		snprintf(why, why_len, "%s: larger than %d KiB; not a configuration file", path,
			 MAX_FILE >> 10);
	else if (memchr(text, '\0', n))
		snprintf(why, why_len, "%s: contains a NUL byte; not a configuration file", path);
	else {
		text[n] = '\0';
		r = config_parse(c, l, path, text, why, why_len);
	}
	free(text);
	return r;
}

/* The value as config_parse reads it back. */
static void write_value(FILE *f, const struct config_key *k, const struct daemon_config *c)
{
	const char *field = (const char *)c + k->offset;
	switch (k->type) {
	case CT_MODE:
		fprintf(f, "%04o", c->socket_mode);
		break;
	case CT_THREADS:
		if (c->threads)
			fprintf(f, "%d", c->threads);
		break;
	case CT_LEVEL:
		fprintf(f, "%s", level_names[c->log_level]);
		break;
	case CT_BOOL: {
		bool v;
		memcpy(&v, field, sizeof(v));
		fprintf(f, "%s", v ? "yes" : "no");
		break;
	}
	default:
		fprintf(f, "%s", field);
		break;
	}
}

void config_diff(const struct daemon_config *a, const struct daemon_config *b,
		 void (*changed)(const char *key, const char *was, const char *now, void *ud),
		 void *ud)
{
	for (size_t i = 0; i < N_KEYS; i++) {
		char was[1100] = "", now[1100] = "";
		FILE *f = fmemopen(was, sizeof(was) - 1, "w");
		if (f) {
			write_value(f, &config_keys[i], a);
			fclose(f);
		}
		f = fmemopen(now, sizeof(now) - 1, "w");
		if (f) {
			write_value(f, &config_keys[i], b);
			fclose(f);
		}
		if (strcmp(was, now) != 0)
			changed(config_keys[i].key, was, now, ud);
	}
}

void config_write(FILE *f, const struct daemon_config *c, const struct daemon_limits *l,
		  enum config_format fmt)
{
	if (fmt == CONFIG_TEMPLATE)
		fprintf(f, "# /etc/webnnd/webnnd.conf: settings of webnnd, the WebNN daemon (see "
			   "webnnd.conf(5)).\n"
			   "# One 'key = value' a line; lines starting with # are comments. Every "
			   "key is listed\n"
			   "# below, commented out, with its default. Command-line flags override "
			   "this file;\n"
			   "# `webnnd --check-config` validates it and prints the effective "
			   "settings.\n"
			   "# Generated by `webnnd --print-default-config`.\n");
	for (size_t i = 0; i < N_KEYS; i++) {
		const struct config_key *k = &config_keys[i];
		switch (fmt) {
		case CONFIG_SETTINGS:
			fprintf(f, "%s = ", k->key);
			write_value(f, k, c);
			fputc('\n', f);
			break;
		case CONFIG_TEMPLATE:
		{
			char text[600];
			snprintf(text, sizeof(text), "%s (overridden by %s)", k->help, k->flag);
			fputc('\n', f);
			daemon_conf_comment(f, text);
			fprintf(f, "#%s = ", k->key);
		}
			write_value(f, k, c);
			fputc('\n', f);
			break;
		case CONFIG_MAN:
			fprintf(f, ".TP\n\\fB%s\\fR = \\fI", k->key);
			write_value(f, k, c);
			fputs("\\fR\n", f);
			daemon_man_escape(f, k->help);
			fputs(" (overridden by ", f);
			daemon_man_escape(f, k->flag);
			fputs(")\n", f);
			break;
		}
	}
	if (fmt == CONFIG_TEMPLATE)
		fprintf(f, "\n# ---- Limits and budgets. Values are positive integers; bytes take "
			   "the binary\n# suffixes K, M, G and T. Each is overridden by --limit "
			   "KEY=VALUE.\n");
	if (fmt == CONFIG_MAN)
		fprintf(f, ".SS Limits and budgets\n"
			   "Each is a positive integer; byte counts take the binary suffixes "
			   "\\fBK\\fR, \\fBM\\fR, \\fBG\\fR and \\fBT\\fR.\n");
	daemon_limits_write(f, l,
			    fmt == CONFIG_SETTINGS   ? DAEMON_LIMITS_SETTINGS
			    : fmt == CONFIG_TEMPLATE ? DAEMON_LIMITS_TEMPLATE
						     : DAEMON_LIMITS_MAN);
}
