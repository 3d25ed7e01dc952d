/* webnnd.conf: the parser's rules and messages, precedence, the shipped default, and the settings reaching the workers. */
#include "daemon/config.h"
#include "daemon/front/memlimit.h"
#include "tests/clienttest.h"
#include "tests/test.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs a shell command; its stdout and stderr into out. Returns the exit status. */
static int run_capture(const char *cmd, char *out, size_t cap)
{
	char full[8192];
	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	FILE *p = popen(full, "r");
	ASSERT_MSG(p, "popen %s: %s", cmd, strerror(errno));
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ASSERT_MSG(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	ASSERT(fclose(f) == 0);
}

/* Parses text as a file named "t.conf"; returns 0 or -1 with the message in why. */
static int parse(const char *text, struct daemon_config *c, struct daemon_limits *l, char *why,
		 size_t len)
{
	config_default(c);
	daemon_limits_default(l);
	return config_parse(c, l, "t.conf", text, why, len);
}

TEST(config_lines_set_keys_and_limits)
{
	struct daemon_config c;
	struct daemon_limits l;
	char why[512];
	ASSERT_EQ(parse("# a comment\n\n  socket = /run/x/y.sock  \nsocket_mode=0660\n"
			"backend = reference\n\tthreads = 3\nlog_level = debug\nsandbox = no\n"
			"warm_up = no\nmax_contexts = 7\nmax_shm_bytes = 2G\nuser = root\n"
			"allow_uids = root,0\nallow_gids = 0\nsocket_group = 0\ncache_dir =\n",
			&c, &l, why, sizeof(why)),
		  0);
	ASSERT_STREQ(c.socket, "/run/x/y.sock");
	ASSERT_EQ(c.socket_mode, 0660);
	ASSERT_STREQ(c.backend, "reference");
	ASSERT_EQ(c.threads, 3);
	ASSERT_EQ(c.log_level, 3);
	ASSERT(!c.sandbox && !c.warm_up);
	ASSERT_EQ(l.max_contexts, 7);
	ASSERT_EQ(l.max_shm_bytes, 2ull << 30);
	ASSERT_STREQ(c.allow_uids, "root,0");
	ASSERT_STREQ(c.cache_dir, "");
}

/* Every bad line: FILE:LINE, the key and the value, and the rule. */
TEST(config_bad_lines_name_file_line_key_and_rule)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
		{ "max_contexts = 0", "t.conf:2: max_contexts = 0: outside 1..4294967295" },
		{ "max_contexts = 12x", "t.conf:2: max_contexts = 12x: not a number" },
		{ "max_frame_bytes = 1T", "t.conf:2: max_frame_bytes = 1T: outside 1.." },
		{ "nosuchkey = 1", "t.conf:2: unknown key 'nosuchkey'" },
		{ "junk", "t.conf:2: expected 'key = value'" },
		{ "= 3", "t.conf:2: a value without a key" },
		{ "cache_dir = relative/path", "t.conf:2: cache_dir = relative/path: not an absolute path" },
		{ "socket =", "t.conf:2: socket: needs a path" },
		{ "socket_mode = 0999", "t.conf:2: socket_mode = 0999: not an octal mode" },
		{ "socket_group = no-such-group-xyz", "socket_group = no-such-group-xyz: no such group" },
		{ "allow_uids = root,no-such-user-xyz", "no user named 'no-such-user-xyz'" },
		{ "user = no-such-user-xyz", "user = no-such-user-xyz: no such user" },
		{ "backend = gpu", "t.conf:2: backend = gpu: expected auto, cpu, opencl or reference" },
		{ "threads = 1025", "t.conf:2: threads = 1025: expected 1..1024 (empty: every core)" },
		{ "threads = 0", "t.conf:2: threads = 0: expected 1..1024 (empty: every core)" },
		{ "log_level = loud", "log_level = loud: expected error, warn, info or debug" },
		{ "sandbox = maybe", "t.conf:2: sandbox = maybe: expected yes or no" },
		{ "max_contexts = 3 # three", "max_contexts = 3 # three: not a number" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct daemon_config c;
		struct daemon_limits l;
		char text[256], why[512] = "";
		snprintf(text, sizeof(text), "# line 1\n%s\n", cases[i].line);
		ASSERT_MSG(parse(text, &c, &l, why, sizeof(why)) == -1, "'%s' was accepted",
			   cases[i].line);
		ASSERT_CONTAINS(why, cases[i].want);
	}
	struct daemon_config c;
	struct daemon_limits l;
	char why[512];
	ASSERT_EQ(parse("threads = 1\nbackend = cpu\nthreads = 2\n", &c, &l, why, sizeof(why)), -1);
	ASSERT_CONTAINS(why, "t.conf:3: threads is set twice (first on line 1)");
}

/* The daemon stops at a bad line before it binds its socket, exit status 2, the message on
 * stderr; --check-config says the same. */
TEST(config_bad_line_stops_webnnd)
{
	ct_require_webnnd();
	char dir[200], conf[256], sock[256], cmd[1024], out[4096];
	test_scratch_dir(dir, sizeof(dir), "webnn-config");
	snprintf(conf, sizeof(conf), "%s/webnnd.conf", dir);
	snprintf(sock, sizeof(sock), "%s/s", dir);
	write_file(conf, "# webnnd\nbackend = reference\nmax_operations = -4\n");
	const char *modes[] = { "--check-config", "--no-sandbox" };
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "%s/bin/webnnd --config %s --socket %s %s", test_build_dir(),
			 conf, sock, modes[i]);
		ASSERT_EQ(run_capture(cmd, out, sizeof(out)), 2);
		char want[400];
		snprintf(want, sizeof(want), "webnnd: %s:3: max_operations = -4: not a number", conf);
		ASSERT_CONTAINS(out, want);
		ASSERT(access(sock, F_OK) != 0);
	}
	snprintf(cmd, sizeof(cmd), "%s/bin/webnnd --config %s/absent.conf --check-config",
		 test_build_dir(), dir);
	ASSERT_EQ(run_capture(cmd, out, sizeof(out)), 2);
	ASSERT_CONTAINS(out, "absent.conf: No such file or directory");
	unlink(conf);
	rmdir(dir);
}

/* defaults < file < environment < command line, as --check-config prints them. */
TEST(config_check_prints_effective_settings)
{
	ct_require_webnnd();
	char dir[200], conf[256], cmd[1024], out[16384];
	test_scratch_dir(dir, sizeof(dir), "webnn-config");
	snprintf(conf, sizeof(conf), "%s/webnnd.conf", dir);
	write_file(conf, "threads = 3\nbackend = reference\nmax_contexts = 5\nmax_objects = 9\n"
			 "socket = /tmp/from-file.sock\nallow_uids = 0\n");
	snprintf(cmd, sizeof(cmd),
		 "env -u WEBNN_SOCKET -u WEBNN_CPU_THREADS WEBNN_BACKEND=cpu %s/bin/webnnd "
		 "--config %s --check-config --threads 5 --limit max_objects=11 --allow-uid root",
		 test_build_dir(), conf);
	ASSERT_EQ(run_capture(cmd, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "\nthreads = 5\n");
	ASSERT_CONTAINS(out, "\nbackend = cpu\n");
	ASSERT_CONTAINS(out, "\nmax_contexts = 5\n");
	ASSERT_CONTAINS(out, "\nmax_objects = 11\n");
	ASSERT_CONTAINS(out, "\nsocket = /tmp/from-file.sock\n");
	ASSERT_CONTAINS(out, "\nallow_uids = root\n");
	ASSERT_CONTAINS(out, "\nmax_operations = 100000\n");
	/* what it prints reads back to the same settings */
	write_file(conf, strchr(out, '\n') + 1);
	char again[16384];
	snprintf(cmd, sizeof(cmd), "env -u WEBNN_SOCKET -u WEBNN_CPU_THREADS -u WEBNN_BACKEND "
		 "%s/bin/webnnd --config %s --check-config", test_build_dir(), conf);
	ASSERT_EQ(run_capture(cmd, again, sizeof(again)), 0);
	ASSERT_STREQ(strchr(again, '\n') + 1 + strcspn(strchr(again, '\n') + 1, "\n"),
		     strchr(out, '\n') + 1 + strcspn(strchr(out, '\n') + 1, "\n"));
	unlink(conf);
	rmdir(dir);
}

/* The shipped file (--print-default-config) lists every key commented out with its default,
 * and uncommented it gives the defaults. */
TEST(config_default_file_lists_every_key)
{
	struct daemon_config c;
	struct daemon_limits l;
	config_default(&c);
	daemon_limits_default(&l);
	char *settings = NULL, *tmpl = NULL, *first;
	size_t ns = 0, nt = 0;
	FILE *f = open_memstream(&settings, &ns);
	config_write(f, &c, &l, CONFIG_SETTINGS);
	fclose(f);
	f = open_memstream(&tmpl, &nt);
	config_write(f, &c, &l, CONFIG_TEMPLATE);
	fclose(f);
	size_t keys = 0;
	first = settings;
	for (char *line = strtok(settings, "\n"); line; line = strtok(NULL, "\n")) {
		char want[600];
		snprintf(want, sizeof(want), "\n#%s\n", line);
		/* "socket_group = " prints with its trailing blank in both */
		ASSERT_MSG(strstr(tmpl, want), "the default file lacks '#%s'", line);
		keys++;
	}
	ASSERT_MSG(keys == 12 + DAEMON_N_LIMITS, "%zu keys", keys);
	/* uncommented, it parses to the defaults */
	char *plain = malloc(nt + 1);
	size_t o = 0;
	for (size_t i = 0; i < nt; i++) {
		if (tmpl[i] == '#' && (i == 0 || tmpl[i - 1] == '\n') && tmpl[i + 1] >= 'a' &&
		    tmpl[i + 1] <= 'z')
			continue;
		plain[o++] = tmpl[i];
	}
	plain[o] = '\0';
	struct daemon_config c2;
	struct daemon_limits l2;
	char why[512];
	ASSERT_MSG(parse(plain, &c2, &l2, why, sizeof(why)) == 0, "%s", why);
	char *again = NULL;
	size_t na = 0;
	f = open_memstream(&again, &na);
	config_write(f, &c2, &l2, CONFIG_SETTINGS);
	fclose(f);
	free(first); /* strtok cut it */
	f = open_memstream(&settings, &ns);
	config_write(f, &c, &l, CONFIG_SETTINGS);
	fclose(f);
	ASSERT_STREQ(again, settings);
	free(again);
	free(plain);
	free(settings);
	free(tmpl);
}

/* A limit from the file binds in the device worker, which gets the front door's settings,
 * never the file (here only root can read it, and workers run as the service user). */
TEST(config_limits_reach_the_workers)
{
	ct_require_webnnd();
	char dir[200], conf[256];
	test_scratch_dir(dir, sizeof(dir), "webnn-config");
	/* 0700 as test_scratch_dir made it: a worker (the service user) would fail to read it */
	snprintf(conf, sizeof(conf), "%s/webnnd.conf", dir);
	write_file(conf, "max_operations = 2\nbackend = reference\n");
	const char *const args[] = { "--config", conf, NULL };
	struct test_daemon d;
	test_daemon_start(&d, args);
	struct webnn_context *ctx = ct_connect(&d, "config-test");
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	uint32_t shape[1] = { 4 };
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 1, shape), *y = x;
	for (int i = 0; i < 3; i++)
		OK(ctx, webnn_builder_relu(b, y, &y));
	struct webnn_named_operand out = { "y", y };
	struct webnn_graph *g = NULL;
	FAILS(ctx, webnn_builder_build(b, &out, 1, &g), WEBNN_STATUS_NOT_SUPPORTED,
	      "max_operations");
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
	unlink(conf);
	rmdir(dir);
}

/* A relative --socket (relative to where webnnd starts) also reaches the workers, which get
 * it in the front door's settings. */
TEST(config_relative_socket_serves)
{
	ct_require_webnnd();
	char bin[4096], dir[200], sock[256];
	ASSERT(realpath(test_build_dir(), bin));
	strncat(bin, "/bin/webnnd", sizeof(bin) - strlen(bin) - 1);
	test_scratch_dir(dir, sizeof(dir), "webnn-config");
	snprintf(sock, sizeof(sock), "%s/rel.sock", dir);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(126);
		execl(bin, bin, "--socket", "rel.sock", "--backend", "reference", (char *)NULL);
		_exit(127);
	}
	struct webnn_context_options o = WEBNN_CONTEXT_OPTIONS_INIT;
	o.socket_path = sock;
	struct webnn_context *ctx = NULL;
	char err[512] = "";
	for (int i = 0; i < 300 && !ctx; i++) {
		if (webnn_context_create(&o, &ctx, err, sizeof(err)) != WEBNN_STATUS_OK) {
			ctx = NULL;
			int st;
			ASSERT_MSG(waitpid(pid, &st, WNOHANG) == 0, "webnnd exited (status %d)", st);
			usleep(100000);
		}
	}
	ASSERT_MSG(ctx, "no context on %s: %s", sock, err);
	webnn_context_destroy(ctx);
	kill(pid, SIGTERM);
	int st;
	ASSERT(waitpid(pid, &st, 0) == pid);
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "webnnd status %d", st);
	unlink(sock);
	rmdir(dir);
}

/* WEBNN_COMPUTE_NICE (read by every compute thread) is checked once, when webnnd starts. */
TEST(config_compute_nice_is_checked)
{
	ct_require_webnnd();
	char cmd[1024], out[4096];
	const char *bad[] = { "abc", "20", "-1", "5x" };
	for (int i = 0; i < 4; i++) {
		snprintf(cmd, sizeof(cmd), "WEBNN_COMPUTE_NICE=%s %s/bin/webnnd --check-config", bad[i],
			 test_build_dir());
		ASSERT_EQ(run_capture(cmd, out, sizeof(out)), 2);
		char want[128];
		snprintf(want, sizeof(want), "WEBNN_COMPUTE_NICE: '%s' is not a nice value 0..19",
			 bad[i]);
		ASSERT_CONTAINS(out, want);
	}
	snprintf(cmd, sizeof(cmd), "WEBNN_COMPUTE_NICE=19 %s/bin/webnnd --check-config",
		 test_build_dir());
	ASSERT_EQ(run_capture(cmd, out, sizeof(out)), 0);
}

/* Issue 18 item 2: the memory budgets' defaults are shares of the memory the daemon may use
 * (daemon/front/memlimit.h), never above limits.def's; the file, the environment and --limit win. */
TEST(config_memory_budgets_follow_the_memory_limit)
{
	struct daemon_limits l;
	daemon_limits_default(&l);
	const struct daemon_limits def = l;
	memlimit_derive_budgets(&l, 8ull << 30); /* the shipped unit's MemoryMax=8G */
	ASSERT_EQ(l.max_total_bytes, 6ull << 30);
	ASSERT_EQ(l.max_uid_bytes, 4ull << 30);
	ASSERT_EQ(l.max_connection_bytes, 4ull << 30);
	l = def;
	memlimit_derive_budgets(&l, 1ull << 40); /* plenty: limits.def's stay */
	ASSERT_EQ(l.max_total_bytes, def.max_total_bytes);
	ASSERT_EQ(l.max_uid_bytes, def.max_uid_bytes);
	ASSERT_EQ(l.max_connection_bytes, def.max_connection_bytes);
	l = def;
	memlimit_derive_budgets(&l, 0); /* unknown */
	ASSERT_EQ(l.max_uid_bytes, def.max_uid_bytes);

	ct_require_webnnd();
	uint64_t mem = memlimit_available();
	ASSERT_MSG(mem > 0, "neither a cgroup limit nor MemTotal could be read");
	char dir[200], conf[256], cmd[1024], out[16384];
	test_scratch_dir(dir, sizeof(dir), "webnn-config");
	snprintf(conf, sizeof(conf), "%s/webnnd.conf", dir);
	write_file(conf, "# nothing set: the defaults\n");
	snprintf(cmd, sizeof(cmd), "env -u WEBNN_BACKEND %s/bin/webnnd --config %s --check-config",
		 test_build_dir(), conf);
	ASSERT_EQ(run_capture(cmd, out, sizeof(out)), 0);
	const char *p = strstr(out, "\nmax_uid_bytes = ");
	ASSERT_MSG(p, "no max_uid_bytes in:\n%s", out);
	unsigned long long uid = strtoull(p + strlen("\nmax_uid_bytes = "), NULL, 10);
	ASSERT_MSG(uid <= mem / 2 && uid <= def.max_uid_bytes,
		   "max_uid_bytes %llu with %llu bytes of memory", uid, (unsigned long long)mem);
	snprintf(cmd, sizeof(cmd), "env -u WEBNN_BACKEND %s/bin/webnnd --config %s --check-config "
		 "--limit max_uid_bytes=20G", test_build_dir(), conf);
	ASSERT_EQ(run_capture(cmd, out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "\nmax_uid_bytes = 21474836480\n");
	unlink(conf);
	rmdir(dir);
}
