/* Hostile suite, the front door's own safety: its socket's path, signals and reload, the spawner (issue 18 items 1, 7, 9). */
#include "tests/hostile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A file only root may read and write, which an attack tries to open up (chmod/chown through
 * a symlink webnnd follows). */
static void make_target(char *path, size_t len, const char *dir)
{
	snprintf(path, len, "%s/root-only", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ASSERT_MSG(fd >= 0, "%s: %s", path, strerror(errno));
	ASSERT(fchmod(fd, 0600) == 0);
	close(fd);
}

static void expect_target_untouched(const char *path)
{
	struct stat st;
	ASSERT(stat(path, &st) == 0);
	ASSERT_MSG((st.st_mode & 07777) == 0600 && st.st_uid == 0 && st.st_gid == 0,
		   "the root-only file became mode %04o, owner %u:%u", (unsigned)(st.st_mode & 07777),
		   (unsigned)st.st_uid, (unsigned)st.st_gid);
}

/* The attacker (uid HZ_OTHER) in its own process: for up to ms, every name in dir that is not
 * its own is renamed away or removed where it can be, and a symlink to target put in its
 * place; with squat, a symlink also comes and goes at socket_name. Stopped with SIGKILL. */
static pid_t start_swapper(const char *dir, const char *socket_name, const char *target, int ms,
			   bool squat)
{
	fflush(NULL);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid > 0)
		return pid;
	hz_child_fds(NULL, 0);
	hz_become(HZ_OTHER);
	double end = hz_now_ms() + ms;
	char path[4096], moved[4200];
	while (hz_now_ms() < end) {
		DIR *d = opendir(dir);
		if (!d)
			_exit(0);
		for (struct dirent *e; (e = readdir(d));) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
			    strstr(e->d_name, ".moved"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			struct stat st;
			if (lstat(path, &st) != 0 || st.st_uid == HZ_OTHER)
				continue;
			snprintf(moved, sizeof(moved), "%s.moved", path);
			if (rename(path, moved) != 0)
				unlink(path);
			(void)symlink(target, path);
		}
		closedir(d);
		if (!squat)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, socket_name);
		(void)symlink(target, path);
		unlink(path); /* its own link: the daemon is to bind, and the race go on */
	}
	_exit(0);
}

static void stop_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A scratch directory the other uids of the attacks may pass through. */
static void door_scratch_dir(char *scratch, size_t len)
{
	test_scratch_dir(scratch, len, "webnn-door");
	ASSERT(chmod(scratch, 0755) == 0);
}

/* Removes dir and what the attack left in it (no subdirectories). */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char path[4096];
	for (struct dirent *e; (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* Item 1. Abuse: a user creates the socket's directory before root starts webnnd there, and
 * races to swap the new socket for a symlink to a root-only file (the old front door chmodded
 * the file 0666 after a few seconds of retries). Refused before anything is created, with a
 * message naming the directory's owner; the file keeps its mode and owner. The same for a
 * directory further up the path, and for one writable by its group. */
TEST(hostile_socket_dir_of_another_user)
{
	REQUIRE_ROOT("this test plays another local user who owns the directory");
	char scratch[256], userdir[300], deeper[320], sock[400], target[300], log[300];
	door_scratch_dir(scratch, sizeof(scratch));
	make_target(target, sizeof(target), scratch);
	snprintf(userdir, sizeof(userdir), "%s/user", scratch);
	ASSERT(mkdir(userdir, 0755) == 0 && chown(userdir, HZ_OTHER, HZ_OTHER) == 0);
	snprintf(sock, sizeof(sock), "%s/webnnd.sock", userdir);
	hz_log_path(log, sizeof(log));
	pid_t swapper = start_swapper(userdir, "webnnd.sock", target, 5000, true);
	for (int round = 0; round < 3; round++) {
		int st = hz_run_to_exit(log, 30000, "--socket", sock, "--backend", "reference",
					NULL);
		ASSERT_MSG(st != 0, "webnnd started in a directory of uid %u", HZ_OTHER);
		char *text = hz_read_log(log);
		ASSERT_CONTAINS(text, "belongs to uid 12345");
		free(text);
	}
	stop_child(swapper);
	expect_target_untouched(target);

	/* A root-owned directory inside the user's: the user can still rename it away. */
	snprintf(deeper, sizeof(deeper), "%s/root-owned", userdir);
	ASSERT(mkdir(deeper, 0755) == 0);
	snprintf(sock, sizeof(sock), "%s/webnnd.sock", deeper);
	ASSERT(hz_run_to_exit(log, 30000, "--socket", sock, "--backend", "reference", NULL) != 0);
	char *text = hz_read_log(log);
	ASSERT_CONTAINS(text, "belongs to uid 12345");
	free(text);
	rmdir(deeper);

	/* Root's, but writable by the user's group, without the sticky bit. */
	ASSERT(chown(userdir, 0, HZ_OTHER) == 0 && chmod(userdir, 0775) == 0);
	snprintf(sock, sizeof(sock), "%s/webnnd.sock", userdir);
	ASSERT(hz_run_to_exit(log, 30000, "--socket", sock, "--backend", "reference", NULL) != 0);
	text = hz_read_log(log);
	ASSERT_CONTAINS(text, "writable by its group or by others without the sticky bit");
	free(text);
	expect_target_untouched(target);
	remove_dir(userdir);
	unlink(target);
	unlink(log);
	rmdir(scratch);
}

/* Item 1. Abuse: the socket's directory is a shared sticky one (1777, as /tmp), and a user
 * races during start-up to move, remove or replace with symlinks to a root-only file every
 * name webnnd creates there. The sticky bit protects root's names: webnnd starts, its socket
 * is exactly the configured mode and group and serves, and the file keeps its mode. */
TEST(hostile_socket_symlink_race_in_sticky_dir)
{
	REQUIRE_ROOT("this test plays another local user who owns the directory");
	char scratch[256], shared[300], target[300];
	door_scratch_dir(scratch, sizeof(scratch));
	make_target(target, sizeof(target), scratch);
	for (int round = 0; round < 3; round++) {
		snprintf(shared, sizeof(shared), "%s/shared%d", scratch, round);
		ASSERT(mkdir(shared, 0700) == 0 && chmod(shared, 01777) == 0);
		pid_t swapper = start_swapper(shared, "webnnd.sock", target, 30000, false);
		usleep(50000);
		struct test_daemon d;
		const char *const args[] = { "--backend", "reference", "--socket-mode", "0660",
					     "--socket-group", "4242", NULL };
		test_daemon_start_in(&d, shared, NULL, args, NULL);
		usleep(300000); /* the race goes on against the live socket */
		stop_child(swapper);
		struct stat st;
		ASSERT(lstat(d.socket_path, &st) == 0);
		ASSERT_MSG(S_ISSOCK(st.st_mode) && (st.st_mode & 07777) == 0660 &&
				   st.st_uid == 0 && st.st_gid == 4242,
			   "the socket is mode %06o, owner %u:%u", (unsigned)st.st_mode,
			   (unsigned)st.st_uid, (unsigned)st.st_gid);
		expect_target_untouched(target);
		hz_fresh_client(&d, 0, 10000);
		test_daemon_stop(&d);
		remove_dir(shared);
	}
	expect_target_untouched(target);
	unlink(target);
	rmdir(scratch);
}

/* Item 1. Abuse: the cache directory (WEBNN_CACHE_DIR) belongs to another user, or sits in a
 * directory of another user who points it (a symlink) at a root-owned directory. Refused with
 * a clear message: webnnd creates and chowns nothing there, and serves with another cache. */
TEST(hostile_cache_dir_of_another_user)
{
	REQUIRE_ROOT("this test plays another local user who owns the directory");
	char scratch[200], foreign[240], userdir[240], link[260], victim[240], log[300];
	door_scratch_dir(scratch, sizeof(scratch));
	snprintf(foreign, sizeof(foreign), "%s/foreign-cache", scratch);
	ASSERT(mkdir(foreign, 0700) == 0 && chown(foreign, HZ_OTHER, HZ_OTHER) == 0);
	hz_log_path(log, sizeof(log));
	setenv("WEBNN_CACHE_DIR", foreign, 1);
	struct test_daemon d;
	hz_start_logged(&d, log, NULL);
	hz_fresh_client(&d, 0, 10000);
	test_daemon_stop(&d);
	char *text = hz_read_log(log);
	char want[600];
	snprintf(want, sizeof(want), "not using %s as the cache directory", foreign);
	ASSERT_CONTAINS(text, want);
	free(text);

	/* The user's directory holds a symlink of the user's to root's directory. */
	snprintf(userdir, sizeof(userdir), "%s/user", scratch);
	snprintf(victim, sizeof(victim), "%s/victim", scratch);
	snprintf(link, sizeof(link), "%s/cache", userdir);
	ASSERT(mkdir(userdir, 0755) == 0 && chown(userdir, HZ_OTHER, HZ_OTHER) == 0);
	ASSERT(mkdir(victim, 0755) == 0);
	ASSERT(symlink(victim, link) == 0 && lchown(link, HZ_OTHER, HZ_OTHER) == 0);
	char cache[400];
	snprintf(cache, sizeof(cache), "%s/webnn", link);
	setenv("WEBNN_CACHE_DIR", cache, 1);
	hz_start_logged(&d, log, NULL);
	hz_fresh_client(&d, 0, 10000);
	test_daemon_stop(&d);
	unsetenv("WEBNN_CACHE_DIR");
	text = hz_read_log(log);
	snprintf(want, sizeof(want), "not using %s as the cache directory", cache);
	ASSERT_CONTAINS(text, want);
	ASSERT_CONTAINS(text, "belongs to uid 12345");
	free(text);
	char made[400];
	snprintf(made, sizeof(made), "%s/webnn", victim);
	struct stat st;
	ASSERT_MSG(lstat(made, &st) != 0, "webnnd created %s through the user's symlink", made);
	unlink(link);
	rmdir(userdir);
	rmdir(victim);
	rmdir(foreign);
	unlink(log);
	rmdir(scratch);
}

/* Writes text to path (a configuration file). */
static void write_conf(const char *path, const char *text)
{
	char tmp[600];
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	FILE *f = fopen(tmp, "w");
	ASSERT_MSG(f, "%s: %s", tmp, strerror(errno));
	fputs(text, f);
	ASSERT(fclose(f) == 0);
	ASSERT(chmod(tmp, 0644) == 0);
	/* As editors save: a new inode renamed over the old one. */
	ASSERT(rename(tmp, path) == 0);
}

static uint64_t limit_of_new_client(const struct test_daemon *d, uid_t uid, const char *key)
{
	struct pt_conn c;
	if (uid == 0)
		pt_connect(&c, d);
	else
		hz_connect_as(&c, d, uid);
	uint64_t v = pt_hello_limit(&c, "reload-check", key);
	pt_close(&c);
	return v;
}

/* Item 7. Abuse (by the operator's mistake): SIGHUP after a limit changed in the configuration
 * file, then after the file was broken. The change reaches the front door and every worker
 * (running, spare and started later: a new client's HelloReply shows it) and is logged; a
 * limit the command line sets stays; a setting that needs a restart says so; the broken file
 * changes nothing and its error names FILE:LINE. */
TEST(hostile_sighup_reloads_the_configuration)
{
	char dir[256], conf[300], log[300];
	test_scratch_dir(dir, sizeof(dir), "webnn-conf");
	ASSERT(chmod(dir, 0755) == 0);
	snprintf(conf, sizeof(conf), "%s/webnnd.conf", dir);
	write_conf(conf, "max_contexts = 32\nmax_objects = 1000\n");
	hz_log_path(log, sizeof(log));
	struct test_daemon d;
	hz_start_logged(&d, log, "--config", conf, "--limit", "max_objects=900", "--verbose", NULL);
	ASSERT_EQ(limit_of_new_client(&d, 0, "max_contexts"), 32);
	struct hz_client before; /* a worker running through the reload */
	hz_client_open(&before, &d, 0);

	write_conf(conf, "max_contexts = 7\nmax_objects = 5000\nmax_frame_bytes = 1M\n"
			 "backend = cpu\n");
	ASSERT(kill(d.pid, SIGHUP) == 0);
	hz_wait_log(log, "reloaded", 10000);
	char *text = hz_read_log(log);
	ASSERT_CONTAINS(text, "reload: max_contexts: 32 -> 7");
	ASSERT_CONTAINS(text, "max_objects = 5000");
	ASSERT_CONTAINS(text, "--limit sets it: unchanged");
	ASSERT_CONTAINS(text, "max_frame_bytes = 1048576");
	ASSERT_CONTAINS(text, "backend = cpu");
	ASSERT_CONTAINS(text, "takes effect at the next start");
	free(text);
	ASSERT_EQ(limit_of_new_client(&d, 0, "max_contexts"), 7);          /* running worker */
	ASSERT_EQ(limit_of_new_client(&d, HZ_NOBODY, "max_contexts"), 7);  /* the spare */
	ASSERT_EQ(limit_of_new_client(&d, HZ_OTHER, "max_contexts"), 7);   /* started since */
	ASSERT_EQ(limit_of_new_client(&d, HZ_OTHER, "max_objects"), 900);
	/* The limit applies, not only its report: the 8th context is refused. */
	for (uint32_t i = 1; i <= 6; i++)
		pt_create_context(&before.c, 10 + i);
	Webnn__Ipc__ServerMessage *s = pt_create_context_reply(&before.c, 20);
	pt_expect_err(s, WEBNN_STATUS_NO_MEMORY, "max_contexts");

	write_conf(conf, "max_contexts = 3\nmax_objects = banana\n");
	ASSERT(kill(d.pid, SIGHUP) == 0);
	char want[400];
	snprintf(want, sizeof(want), "%s:2:", conf);
	hz_wait_log(log, "nothing changed", 10000);
	text = hz_read_log(log);
	ASSERT_CONTAINS(text, want);
	free(text);
	ASSERT_EQ(limit_of_new_client(&d, 0, "max_contexts"), 7);
	ASSERT_EQ(limit_of_new_client(&d, HZ_OTHER, "max_contexts"), 7);
	hz_client_roundtrip(&before, HZ_RTT_MS);
	hz_client_close(&before);
	test_daemon_stop(&d);
	unlink(conf);
	unlink(log);
	rmdir(dir);
}

/* Item 7. Abuse: signals nobody handled used to end the daemon (SIGHUP did, silently). Each of
 * these, sent to the front door and to a worker, leaves both serving; SIGUSR1 logs a status
 * line. */
TEST(hostile_stray_signals_do_not_kill)
{
	char log[300];
	hz_log_path(log, sizeof(log));
	struct test_daemon d;
	hz_start_logged(&d, log, NULL);
	struct hz_client c;
	hz_client_open(&c, &d, 0);
	pid_t worker = hz_worker_pid(&d, 0);
	static const int sigs[] = { SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGXFSZ,
				    SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGTTIN, SIGTTOU };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		ASSERT(kill(d.pid, sigs[i]) == 0);
		ASSERT(kill(worker, sigs[i]) == 0);
	}
	ASSERT(kill(d.pid, SIGRTMIN + 3) == 0 && kill(worker, SIGRTMIN + 3) == 0);
	hz_wait_log(log, "SIGUSR1: status", 10000);
	hz_client_roundtrip(&c, HZ_RTT_MS);
	ASSERT_EQ(hz_worker_pid(&d, 0), worker);
	hz_fresh_client(&d, HZ_OTHER, 10000);
	int st;
	ASSERT_MSG(waitpid(d.pid, &st, WNOHANG) == 0, "webnnd ended (status %#x)", st);
	hz_client_close(&c);
	test_daemon_stop(&d);
	unlink(log);
}

/* Item 7. SIGTERM (and SIGQUIT) stop webnnd with a Goodbye to every connected client saying
 * why, not a bare EOF. */
TEST(hostile_stop_signal_says_goodbye)
{
	static const int sigs[] = { SIGTERM, SIGQUIT };
	static const char *const names[] = { "SIGTERM", "SIGQUIT" };
	for (int i = 0; i < 2; i++) {
		struct test_daemon d;
		hz_start(&d, NULL);
		struct hz_client a, b;
		hz_client_open(&a, &d, 0);
		hz_client_open(&b, &d, HZ_OTHER);
		ASSERT(kill(d.pid, sigs[i]) == 0);
		char want[64];
		snprintf(want, sizeof(want), "webnnd is shutting down (%s)", names[i]);
		hz_expect_end(&a.c, want, false, 10000);
		hz_expect_end(&b.c, want, false, 10000);
		int st = 0;
		ASSERT(waitpid(d.pid, &st, 0) == d.pid);
		ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "webnnd ended with %#x", st);
		pt_close(&a.c);
		pt_close(&b.c);
		unlink(d.socket_path);
		rmdir(d.dir);
	}
}

/* The spawners now (2 expected), lowest pid first: the primary, which forked the standby. */
static int spawners(const struct test_daemon *d, pid_t *pids)
{
	int n = hz_children(d, "wnn-spawner", pids, 4);
	if (n == 2 && pids[0] > pids[1]) {
		pid_t t = pids[0];
		pids[0] = pids[1];
		pids[1] = t;
	}
	return n;
}

/* Waits for two spawners, neither of them `gone`, the same two seen 5 times 20 ms apart (a
 * worker is a fork of a spawner, under that name for a moment before its exec). */
static void wait_spawners(const struct test_daemon *d, pid_t gone, pid_t *pids)
{
	pid_t seen[2] = { 0, 0 };
	int same = 0;
	for (int i = 0; i < 1000; i++) {
		if (spawners(d, pids) == 2 && pids[0] != gone && pids[1] != gone) {
			same = pids[0] == seen[0] && pids[1] == seen[1] ? same + 1 : 1;
			seen[0] = pids[0];
			seen[1] = pids[1];
			if (same == 5)
				return;
		} else {
			same = 0;
		}
		usleep(20000);
	}
	FAIL("webnnd %d has not two worker spawners again", d->pid);
}

/* Item 9. Abuse: the worker spawner killed (SIGKILL), twice. Its standby takes over and starts
 * a standby of its own: two new users after each kill get new workers (the first takes the
 * spare, the second needs a spawn), and the connected client is unaffected. Both killed at
 * once: webnnd stops, saying why. */
TEST(hostile_spawner_killed)
{
	char log[300];
	hz_log_path(log, sizeof(log));
	struct test_daemon d;
	hz_start_logged(&d, log, NULL);
	struct hz_client c;
	hz_client_open(&c, &d, 0);
	pid_t sp[4];
	wait_spawners(&d, 0, sp);
	uid_t uid = 30000;
	for (int round = 0; round < 2; round++) {
		pid_t primary = sp[0];
		ASSERT(kill(primary, SIGKILL) == 0);
		wait_spawners(&d, primary, sp);
		for (int k = 0; k < 2; k++, uid++) {
			hz_fresh_client(&d, uid, 10000);
			ASSERT(hz_find_worker(&d, uid) > 0);
		}
		hz_client_roundtrip(&c, HZ_RTT_MS);
	}
	hz_wait_log(log, "takes over", 1000);
	hz_client_close(&c);
	ASSERT(kill(sp[0], SIGKILL) == 0 && kill(sp[1], SIGKILL) == 0);
	double end = hz_now_ms() + 30000;
	int st = 0;
	while (waitpid(d.pid, &st, WNOHANG) != d.pid) {
		if (hz_now_ms() > end) {
			char *t = hz_read_log(log);
			fprintf(stderr, "---- %s ----\n%s----\n", log, t);
			free(t);
			FAIL("webnnd kept running without any spawner");
		}
		usleep(10000);
	}
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1, "webnnd ended with %#x", st);
	char *text = hz_read_log(log);
	ASSERT_CONTAINS(text, "both worker spawners are gone");
	free(text);
	unlink(d.socket_path);
	rmdir(d.dir);
	unlink(log);
}
