/* Hostile suite, workers, lockdown and logs (issue 7 items 4, 5 and 8). */
#include "tests/hostile.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

/* The Goodbye on c contains every needle (NULL-terminated), then the connection ends. */
static void expect_goodbye_all(struct pt_conn *c, int ms, ...)
{
	double end = hz_now_ms() + ms;
	Webnn__Ipc__ServerMessage *m = NULL;
	for (;;) {
		bool closed = false;
		int left = (int)(end - hz_now_ms());
		ASSERT_MSG(left > 0, "no Goodbye within %d ms", ms);
		m = pt_recv_within(c, left, &closed);
		ASSERT_MSG(m || !closed, "the connection ended without a Goodbye");
		if (m && m->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE)
			break;
		if (m)
			pt_free(m);
	}
	va_list ap;
	va_start(ap, ms);
	for (const char *n; (n = va_arg(ap, const char *));)
		ASSERT_CONTAINS(m->goodbye->reason, n);
	va_end(ap);
	pt_free(m);
}

/* Item 4. Abuse: the device worker of a uid killed by hand (SIGKILL) in the middle of a
 * dispatch. Its clients get a Goodbye saying it was killed and their contexts are lost, a
 * client of another uid is unaffected, and a new connection of the same uid works within 1 s. */
TEST(hostile_worker_killed_mid_dispatch)
{
	struct test_daemon d;
	hz_start(&d, NULL);
	struct hz_client other;
	hz_client_open(&other, &d, HZ_OTHER);
	struct pt_conn a;
	struct hz_client b;
	pt_connect(&a, &d);
	pt_hello(&a, "victim");
	pt_create_context(&a, 1);
	struct pt_graph g;
	pt_matmul_graph(&g, 1, 10, 1024, 1024, 1024);
	pt_call_ok(&a, &g.m);
	for (uint32_t i = 11; i <= 13; i++)
		pt_create_tensor(&a, 1, i, (const uint32_t[]){ 1024, 1024 }, 2);
	hz_client_open(&b, &d, 0);
	pid_t w = hz_worker_pid(&d, 0);
	pt_dispatch(&a, 1, 10, 11, 12, 13);
	usleep(300000);
	ASSERT(kill(w, SIGKILL) == 0);
	expect_goodbye_all(&a, 5000, "killed by signal 9", "its contexts are lost", NULL);
	expect_goodbye_all(&b.c, 5000, "killed by signal 9", "its contexts are lost", NULL);
	double t0 = hz_now_ms();
	hz_fresh_client(&d, 0, 1000);
	ASSERT_MSG(hz_now_ms() - t0 < 1000, "a new context of the uid took %.0f ms",
		   hz_now_ms() - t0);
	ASSERT_MSG(hz_worker_pid(&d, 0) != w, "the killed worker is still listed");
	hz_client_roundtrip(&other, HZ_RTT_MS);
	hz_client_close(&other);
	pt_close(&a);
	hz_client_close(&b);
	test_daemon_stop(&d);
}

/* Every thread of every worker serving a client shows NoNewPrivs 1 and Seccomp 2 (a filter),
 * every other child of the daemon NoNewPrivs 1; returns the serving workers' threads. */
static int check_threads(const struct test_daemon *d)
{
	char path[128], list[4096];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", d->pid, d->pid);
	FILE *f = fopen(path, "r");
	ASSERT(f);
	size_t n = fread(list, 1, sizeof(list) - 1, f);
	list[n] = '\0';
	fclose(f);
	int threads = 0;
	char *save = NULL;
	for (char *tok = strtok_r(list, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		/* A worker serving a client ("wnn-u<uid>") is locked down before it reads a byte. The
		 * spawner (fork and exec of workers, nothing parsed) carries no seccomp filter by
		 * design, and a replacement spare may still be starting: those have no_new_privs. */
		char comm[32] = "";
		snprintf(path, sizeof(path), "/proc/%s/comm", tok);
		FILE *cf = fopen(path, "r");
		if (cf) {
			if (!fgets(comm, sizeof(comm), cf))
				comm[0] = '\0';
			fclose(cf);
		}
		bool serving = strncmp(comm, "wnn-u", 5) == 0;
		snprintf(path, sizeof(path), "/proc/%s/task", tok);
		DIR *dir = opendir(path);
		ASSERT(dir);
		for (struct dirent *e; (e = readdir(dir));) {
			if (e->d_name[0] == '.')
				continue;
			char st[600], buf[8192];
			snprintf(st, sizeof(st), "/proc/%s/task/%s/status", tok, e->d_name);
			FILE *s = fopen(st, "r");
			if (!s)
				continue; /* the thread ended */
			size_t len = fread(buf, 1, sizeof(buf) - 1, s);
			buf[len] = '\0';
			fclose(s);
			ASSERT_MSG(strstr(buf, "NoNewPrivs:\t1"), "%s: no NoNewPrivs", st);
			ASSERT_MSG(!serving || strstr(buf, "Seccomp:\t2"), "%s: no seccomp filter", st);
			threads += serving;
		}
		closedir(dir);
	}
	return threads;
}

/* Item 5. Lockdown: every thread of every device worker (the one serving a client, with its
 * thread pool started by work, and the spare) runs with no_new_privs and a seccomp filter, and
 * the client is served. */
TEST(hostile_worker_threads_locked_down)
{
	hz_need_testhooks();
	struct test_daemon d;
	hz_start(&d, NULL);
	struct hz_client c;
	hz_client_open(&c, &d, 0);
	pt_add_roundtrip(&c.c, 1, 10, 1.0f);
	int threads = check_threads(&d);
	ASSERT_MSG(threads >= 3, "only %d worker threads found", threads);
	hz_client_roundtrip(&c, HZ_RTT_MS);
	hz_client_close(&c);
	test_daemon_stop(&d);
}

/* Item 5. Abuse: code in the worker (a test hook standing for a compromised driver or parser)
 * calling socket(AF_INET). The seccomp filter kills the worker with SIGSYS: its clients are
 * told, another uid is unaffected and the uid gets a new worker. */
TEST(hostile_forbidden_syscall_kills_worker)
{
	hz_need_testhooks();
	struct test_daemon d;
	hz_start_binary(&d, "bin/webnnd-testhooks", NULL);
	struct hz_client other, same;
	hz_client_open(&other, &d, HZ_OTHER);
	hz_client_open(&same, &d, 0);
	struct pt_conn c;
	pt_connect(&c, &d);
	struct hz_hello h;
	hz_hello_msg(&h, "wnn-test:socket-inet", 1);
	pt_send(&c, &h.m);
	expect_goodbye_all(&c, 5000, "killed by signal 31", NULL);
	expect_goodbye_all(&same.c, 5000, "killed by signal 31", NULL);
	pt_close(&c);
	hz_client_roundtrip(&other, HZ_RTT_MS);
	hz_fresh_client(&d, 0, 1000);
	hz_client_close(&other);
	hz_client_close(&same);
	test_daemon_stop(&d);
}

/* A daemon logging as under journald into a file, with --verbose. */
static void start_journal(struct test_daemon *d, char *log, size_t len)
{
	hz_log_path(log, len);
	setenv("JOURNAL_STREAM", "1:1", 1);
	hz_start_logged(d, log, "--verbose", NULL);
}

/* Connects, says Hello with this name, then breaks a rule (so the name is logged as a warning
 * too) and is sent away. */
static void named_violation(const struct test_daemon *d, const char *name)
{
	struct pt_conn c;
	pt_connect(&c, d);
	pt_hello(&c, name);
	struct hz_hello h;
	hz_hello_msg(&h, name, 2);
	pt_send(&c, &h.m);
	hz_expect_end(&c, "Hello sent twice", false, 5000);
	pt_close(&c);
}

/* Item 8. Abuse: log forging, a client name with a newline and a journald priority prefix
 * ("x\n<0>forged": an emergency-level line in the journal). No line of the daemon's log starts
 * with the forged prefix; the name is still logged (escaped). */
TEST(hostile_log_forging)
{
	struct test_daemon d;
	char log[4096];
	start_journal(&d, log, sizeof(log));
	named_violation(&d, "x\n<0>forged");
	named_violation(&d, "y\r\n<1>forged too");
	hz_fresh_client(&d, HZ_OTHER, HZ_RTT_MS);
	test_daemon_stop(&d);
	char *text = hz_read_log(log);
	unlink(log);
	ASSERT_MSG(strstr(text, "forged"), "the client's name was not logged at all");
	for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1
									: NULL) {
		ASSERT_MSG(line[0] == '<' && line[1] >= '0' && line[1] <= '7' && line[2] == '>',
			   "a log line without a priority prefix: %.80s", line);
		ASSERT_MSG(strncmp(line, "<0>forged", 9) != 0 && strncmp(line, "<1>forged", 9) != 0,
			   "a client forged a log line: %.80s", line);
	}
	free(text);
}

/* Item 8. Abuse: client names with terminal escape sequences, a bell, DEL, backspace and tabs,
 * one of them 100 KiB long. The log stays one bounded line per event, with no control
 * characters from the client. */
TEST(hostile_log_control_characters)
{
	struct test_daemon d;
	char log[4096];
	start_journal(&d, log, sizeof(log));
	/* Escapes first (a name may be cut short when logged), then 100 KiB, then more. */
	const char *esc = "\x1b[2J\x07\x1b]0;t\x07\x7f\b\t";
	size_t n = 100u << 10, e = strlen(esc);
	char *name = malloc(n + 2 * e + 1);
	ASSERT(name);
	memcpy(name, esc, e);
	memset(name + e, 'A', n);
	memcpy(name + e + n, esc, e + 1);
	named_violation(&d, name);
	named_violation(&d, "tab\there, bell\a, esc\x1b[31mred");
	free(name);
	hz_fresh_client(&d, HZ_OTHER, HZ_RTT_MS);
	test_daemon_stop(&d);
	char *text = hz_read_log(log);
	unlink(log);
	ASSERT_MSG(strstr(text, "AAAA"), "the client's name was not logged at all");
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		ASSERT_MSG(len <= 4096, "a log line of %zu bytes", len);
		for (size_t i = 0; i < len; i++)
			ASSERT_MSG((unsigned char)line[i] >= 0x20 && line[i] != 0x7f,
				   "control character %#x in the log: %.60s",
				   (unsigned char)line[i], line);
		line = nl ? nl + 1 : NULL;
	}
	free(text);
}

/* Lines of text containing needle and not "suppressed", and the K of every "suppressed K
 * messages like '...needle...'" summary, summed. */
static void count_limited(const char *text, const char *needle, long *lines, long *suppressed)
{
	*lines = *suppressed = 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[8192];
		snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1),
			 line);
		const char *sup = strstr(buf, "suppressed ");
		if (strstr(buf, needle)) {
			if (!sup)
				(*lines)++;
			else
				*suppressed += atol(sup + strlen("suppressed "));
		}
		line = nl ? nl + 1 : NULL;
	}
}

/* Issue 18 item 6. Abuse: log flooding. A uid outside --allow-uid connects over and over (each
 * refused by the front door, which logs why), and another uid breaks the protocol on
 * connection after connection (each logged by its worker). Each flood writes at most a burst
 * and a few lines a second, and says how many it held back: the lines written plus the
 * summaries' counts are exactly the events. A bystander's own lines still get through. */
TEST(hostile_log_flood_rate_limited)
{
	struct test_daemon d;
	char log[4096];
	snprintf(log, sizeof(log), "%s/webnn-hostile-log-XXXXXX", test_tmpdir());
	int fd = mkstemp(log);
	ASSERT(fd >= 0);
	close(fd);
	unsetenv("JOURNAL_STREAM");
	hz_start_logged(&d, log, "--allow-uid", "0,12345", NULL);
	double t0 = hz_now_ms();
	struct hz_churn ch;
	hz_churn_start(&ch, &d, HZ_NOBODY, true);
	usleep(1500000);
	long refused = hz_churn_stop(&ch);
	enum { VIOLATIONS = 150 };
	for (int i = 0; i < VIOLATIONS; i++)
		named_violation(&d, "flood");
	double secs = (hz_now_ms() - t0) / 1e3;
	hz_fresh_client(&d, HZ_OTHER, HZ_RTT_MS);
	test_daemon_stop(&d);
	char *text = hz_read_log(log);
	unlink(log);
	long lines, suppressed;
	/* a burst of 20, then 2 a second (daemon/log.h), plus slack for the clock */
	long most = 20 + (long)(2 * secs) + 4;
	count_limited(text, "is not allowed", &lines, &suppressed);
	printf("%ld refused connections in 1.5 s: %ld lines, %ld suppressed\n", refused, lines,
	       suppressed);
	ASSERT_MSG(refused > most, "only %ld refused connections: not a flood", refused);
	ASSERT_MSG(lines <= most, "%ld refusal lines in %.1f s", lines, secs);
	ASSERT_MSG(lines + suppressed == refused, "%ld lines + %ld suppressed for %ld refusals",
		   lines, suppressed, refused);
	ASSERT_MSG(strstr(text, "from uid 65534 in the last"), "no summary names the uid");
	count_limited(text, "Hello sent twice", &lines, &suppressed);
	printf("%d protocol violations: %ld lines, %ld suppressed\n", VIOLATIONS, lines,
	       suppressed);
	ASSERT_MSG(lines <= most, "%ld protocol-violation lines in %.1f s", lines, secs);
	ASSERT_MSG(lines + suppressed == VIOLATIONS, "%ld lines + %ld suppressed for %d "
		   "violations", lines, suppressed, VIOLATIONS);
	ASSERT_MSG(strstr(text, "serves uid 12345"), "the bystander's worker was not logged");
	free(text);
}

/* A scratch file for a daemon's log. */
static void log_path(char *log, size_t len)
{
	snprintf(log, len, "%s/webnn-hostile-log-XXXXXX", test_tmpdir());
	int fd = mkstemp(log);
	ASSERT(fd >= 0);
	close(fd);
	unsetenv("JOURNAL_STREAM");
}

/* Starts d (max_workers=4, its log at a new path in log) inside the pids cgroup g, whose
 * limit becomes max (-1: none). */
static void start_in_pids(struct test_daemon *d, struct hz_pids *g, long max, char *log,
			  size_t len)
{
	hz_pids_set_max(g, max);
	log_path(log, len);
	hz_pids_enter(g);
	hz_start_logged(d, log, "--limit", "max_workers=4", NULL);
	hz_pids_leave(g);
}

/* Issue 18 item 4. Abuse: users enough to fill the service's task limit (TasksMax=, here a
 * pids cgroup of 60 tasks). The front door divides the limit between max_workers=4 workers:
 * each worker's threads (loop, pool) fit its share, four users are served, and a fifth is
 * refused with a Goodbye naming max_workers instead of a worker dying at start. */
TEST(hostile_workers_sized_to_task_limit)
{
	struct hz_pids g;
	if (!hz_pids_create(&g))
		SKIP("no pids cgroup can be made here (/sys/fs/cgroup/pids or cgroup v2 with pids)");
	char log[4096];
	struct test_daemon d;
	start_in_pids(&d, &g, 60, log, sizeof(log));
	const uid_t users[4] = { 0, HZ_OTHER, HZ_NOBODY, 4242 };
	for (int i = 0; i < 4; i++) {
		hz_fresh_client(&d, users[i], HZ_RTT_MS);
		int n = hz_task_count(hz_worker_pid(&d, users[i]));
		ASSERT_MSG(n <= (60 - 8) / 4, "the worker of uid %u runs %d threads, more than its "
			   "share of the 60 tasks", (unsigned)users[i], n);
	}
	struct pt_conn c;
	hz_connect_as(&c, &d, 4343);
	hz_expect_end(&c, "(max_workers)", false, 5000);
	pt_close(&c);
	long cur = hz_pids_current(&g);
	ASSERT_MSG(cur <= 60, "%ld tasks in a cgroup of 60", cur);
	hz_fresh_client(&d, HZ_OTHER, HZ_RTT_MS);
	test_daemon_stop(&d);
	char *text = hz_read_log(log);
	unlink(log);
	ASSERT_MSG(strstr(text, "tasks to each of max_workers=4 device workers"),
		   "the front door did not say how it sized the workers");
	free(text);
	hz_pids_destroy(&g);
}

/* Connects c as uid, sends a Hello and returns the first message back (NULL: the connection
 * ended); the caller frees it and closes c. */
static Webnn__Ipc__ServerMessage *hello_as(struct pt_conn *c, const struct test_daemon *d,
					   uid_t uid, const char *name)
{
	hz_connect_as(c, d, uid);
	struct hz_hello h;
	hz_hello_msg(&h, name, 1);
	pt_try_send(c, &h.m);
	return pt_recv(c);
}

/* Issue 18 item 4. Abuse: the task limit is reached after the daemon sized its workers (other
 * services' tasks, a lowered TasksMax): a new user's worker cannot start its threads. The
 * client gets a Goodbye naming the limit ("the task limit (pids.max=N of ...) is reached"), so
 * does the log, the served users keep working, and once the limit is raised the user is
 * served. */
TEST(hostile_worker_start_past_task_limit)
{
	struct hz_pids g;
	if (!hz_pids_create(&g))
		SKIP("no pids cgroup can be made here (/sys/fs/cgroup/pids or cgroup v2 with pids)");
	char log[4096];
	struct test_daemon d;
	start_in_pids(&d, &g, -1, log, sizeof(log));
	struct hz_client other;
	hz_client_open(&other, &d, HZ_OTHER);
	/* The next spare, its threads started (their number steady), is the last to fit. */
	pid_t spare = test_daemon_child(&d, "wnn-spare");
	for (int steady = 0, last = -1, i = 0; steady < 3; i++) {
		ASSERT_MSG(i < 200, "the spare worker's threads did not settle");
		int n = hz_task_count(spare);
		steady = n == last ? steady + 1 : 0;
		last = n;
		usleep(100000);
	}
	hz_pids_set_max(&g, hz_pids_current(&g) + 1);
	hz_fresh_client(&d, 0, HZ_RTT_MS); /* takes that spare */
	char reason[512] = "";
	for (double end = hz_now_ms() + 15000; !reason[0]; usleep(100000)) {
		ASSERT_MSG(hz_now_ms() < end, "no refusal naming the task limit within 15 s");
		struct pt_conn c;
		Webnn__Ipc__ServerMessage *s = hello_as(&c, &d, HZ_NOBODY, "past the task limit");
		ASSERT_MSG(s, "the connection ended without a reason");
		ASSERT_MSG(s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE,
			   "served although no thread can start");
		/* A worker starting for the spare may hold the last free worker place a moment. */
		if (!strstr(s->goodbye->reason, "(max_workers)"))
			snprintf(reason, sizeof(reason), "%s", s->goodbye->reason);
		pt_free(s);
		pt_close(&c);
	}
	printf("refused: %s\n", reason);
	ASSERT_CONTAINS(reason, "the task limit (pids.max=");
	ASSERT_CONTAINS(reason, "is reached");
	hz_client_roundtrip(&other, HZ_RTT_MS);
	hz_pids_set_max(&g, -1);
	/* Served again once the back-off (at most 8 s) lets a worker start. */
	for (double end = hz_now_ms() + 20000;; usleep(200000)) {
		ASSERT_MSG(hz_now_ms() < end, "uid %u not served within 20 s of the limit rising",
			   HZ_NOBODY);
		struct pt_conn c;
		Webnn__Ipc__ServerMessage *s = hello_as(&c, &d, HZ_NOBODY, "after the task limit");
		bool served = s && s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY;
		pt_free(s);
		pt_close(&c);
		if (served)
			break;
	}
	hz_client_close(&other);
	test_daemon_stop(&d);
	char *text = hz_read_log(log);
	unlink(log);
	ASSERT_MSG(strstr(text, "cannot start thread") && strstr(text, "pids.max="),
		   "the log does not say which limit stopped the worker");
	free(text);
	hz_pids_destroy(&g);
}
