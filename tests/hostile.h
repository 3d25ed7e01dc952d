/* Helpers of the hostile-client suite (tests/hostile_*.c): other uids, /proc probes, bystanders. */
#ifndef TESTS_HOSTILE_H
#define TESTS_HOSTILE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tests/ptclient.h"

/* Users the suite plays (the tests run as root): nobody, and an unnamed one. */
#define HZ_NOBODY 65534u
#define HZ_OTHER 12345u

/* Generous latency bounds (two shared cores): a bystander's round trip while abuse goes on. */
#define HZ_RTT_MS 2000.0

/* webnnd on the reference backend with the extra arguments (NULL-terminated), its socket
 * reachable by every uid. */
void hz_start(struct test_daemon *d, ...) __attribute__((sentinel));
/* The same with the daemon's stderr written to log (JOURNAL_STREAM as the caller set it). */
void hz_start_logged(struct test_daemon *d, const char *log, ...) __attribute__((sentinel));
/* The same with another webnnd binary (bin relative to the build directory). */
void hz_start_binary(struct test_daemon *d, const char *bin, ...) __attribute__((sentinel));

double hz_now_ms(void);

/* ---- other uids */

/* In a forked child: drops to uid (gid = uid, no supplementary groups). */
void hz_become(uid_t uid);
/* In a forked child: keeps the fds in keep (moved to 3, 4, ...) and closes every other fd
 * above 2, so that the child holds no copy of the parent's connections. */
void hz_child_fds(int *keep, int n);
/* A connection made by a child running as uid (its SO_PEERCRED is uid), handed back here. */
void hz_connect_as(struct pt_conn *c, const struct test_daemon *d, uid_t uid);
/* The same, with these supplementary groups (SO_PEERGROUPS). */
void hz_connect_as_groups(struct pt_conn *c, const struct test_daemon *d, uid_t uid,
			  const gid_t *groups, int n_groups);

/* connect() as uid with these supplementary groups: 0, or the errno it failed with. */
int hz_try_connect_as(const struct test_daemon *d, uid_t uid, const gid_t *groups, int n_groups);

/* ---- logs and failed starts */

/* A file's whole text (a daemon's log; the caller frees it). */
char *hz_read_log(const char *path);
/* Waits up to ms for the log to contain needle; fails (printing the log) otherwise. */
void hz_wait_log(const char *path, const char *needle, int ms);
/* A new empty file for a daemon's log (mkstemp under test_tmpdir()). */
void hz_log_path(char *buf, size_t len);
/* Runs webnnd with these arguments (NULL-terminated), its stderr into log, and expects it to
 * exit by itself within ms; returns its exit status. */
int hz_run_to_exit(const char *log, int ms, ...) __attribute__((sentinel));

/* ---- /proc */

/* The daemon's children named comm (up to max), as they are now; returns how many. */
int hz_children(const struct test_daemon *d, const char *comm, pid_t *pids, int max);

/* The device worker serving uid (comm "wnn-u<uid>"), waiting up to 5 s for it; fails if none. */
pid_t hz_worker_pid(const struct test_daemon *d, uid_t uid);
/* The same, or -1 at once when there is none. */
pid_t hz_find_worker(const struct test_daemon *d, uid_t uid);
long hz_rss_kib(pid_t pid);
/* A "Key:  N kB" line of /proc/<pid>/status (VmHWM, VmData, ...), in KiB. */
long hz_status_kib(pid_t pid, const char *key);
int hz_fd_count(pid_t pid);
int hz_maps_count(pid_t pid);
/* User plus system CPU time of a process, in seconds. */
double hz_cpu_s(pid_t pid);
/* Samples pid's CPU time (every thread's, to the nanosecond) every 5 ms from now until it has
 * not grown by more than 1 ms in a sample for quiet_ms (or max_ms passed): returns the
 * milliseconds from the call to the last sample where it still grew (0: it never grew), so work
 * cancelled just before the call reads as the time it took to stop; with cpu_ms, the CPU
 * milliseconds pid spent meanwhile (what a loaded machine does not stretch). */
double hz_cpu_stop_ms(pid_t pid, int quiet_ms, int max_ms, double *cpu_ms);
/* Waits up to ms for fd count of pid to be at most want; returns the last count. */
int hz_fd_count_settle(pid_t pid, int want, int ms);
/* Waits up to ms for the RSS of pid to be at most want_kib; returns the last value. */
long hz_rss_settle(pid_t pid, long want_kib, int ms);

/* ---- well-behaved clients */

/* A session of uid with context 1 and a [2, 3] tensor 2, for round trips. */
struct hz_client {
	struct pt_conn c;
	uid_t uid;
	int round;
};
void hz_client_open(struct hz_client *b, const struct test_daemon *d, uid_t uid);
/* Writes and reads back tensor 2; fails past max_ms. Returns the milliseconds it took. */
double hz_client_roundtrip(struct hz_client *b, double max_ms);
void hz_client_close(struct hz_client *b);
/* A new connection of uid: Hello, a context, a round trip, Goodbye; fails past max_ms. */
double hz_fresh_client(const struct test_daemon *d, uid_t uid, double max_ms);

/* A well-behaved client in its own process (as uid) making round trips until stopped. */
struct hz_watch {
	pid_t pid;
	int stop_fd, res_fd;
	uid_t uid;
};
/* Returns once its session is set up. */
void hz_watch_start(struct hz_watch *w, const struct test_daemon *d, uid_t uid);
/* Stops it; fails unless every round trip succeeded, there was one at least, and the slowest
 * took under max_ms. Returns the slowest. */
double hz_watch_stop(struct hz_watch *w, double max_ms);

/* The usual scene: a daemon, a well-behaved client of root connected before the abuse, and
 * the abuser (nobody). */
struct hz_scene {
	struct test_daemon d;
	struct hz_client good;
	pid_t abuser_worker;
};
/* Starts the daemon (reference backend and the extra arguments) and the bystander. */
void hz_scene_start(struct hz_scene *s, ...) __attribute__((sentinel));
/* A connection of the abuser; with hello, Hello is said (and the abuser's worker noted). */
void hz_scene_abuser(struct hz_scene *s, struct pt_conn *c, bool hello);
/* After the abuse: the bystander's session makes a round trip in time, the abuser's worker is
 * the process it was (it did not die), and a new connection of the abuser's uid works. Stops
 * the daemon. */
void hz_scene_finish(struct hz_scene *s);

/* ---- connection churn */

/* A process of uid opening and closing connections as fast as it can until stopped: with
 * hello, each says Hello and waits for the answer (or refusal) before closing. */
struct hz_churn {
	pid_t pid;
	int stop_fd, res_fd;
};
void hz_churn_start(struct hz_churn *ch, const struct test_daemon *d, uid_t uid, bool hello);
/* Stops it; returns the connections it made (connect() succeeded). */
long hz_churn_stop(struct hz_churn *ch);
/* n new connections of uid, one after another, each timed from connect() to the HelloReply
 * (then closed), in a process of that uid: the milliseconds into ms[0..n). Fails when one is
 * refused or takes longer than max_ms. */
void hz_hello_times(const struct test_daemon *d, uid_t uid, int n, double max_ms, double *ms);

/* ---- task limits */

/* A pids cgroup made for one test (cgroup v1's pids hierarchy, or v2 with the pids
 * controller), to start a daemon in: this process enters it, starts the daemon (which stays in
 * it with every worker) and leaves. */
struct hz_pids {
	char dir[512];  /* the cgroup's directory */
	char home[512]; /* the cgroup.procs this process came from */
};
/* False when no pids cgroup can be made here (the caller skips). */
bool hz_pids_create(struct hz_pids *g);
void hz_pids_enter(struct hz_pids *g);
void hz_pids_leave(struct hz_pids *g);
/* Sets pids.max (-1: "max"). */
void hz_pids_set_max(struct hz_pids *g, long max);
long hz_pids_current(const struct hz_pids *g);
/* Removes it, once the daemon is gone. */
void hz_pids_destroy(struct hz_pids *g);
/* Threads of a process (entries of /proc/<pid>/task). */
int hz_task_count(pid_t pid);

/* ---- hostile traffic */

/* Many frames packed into one buffer, to be pipelined. */
struct hz_buf {
	uint8_t *p;
	size_t len, cap;
};
void hz_buf_msg(struct hz_buf *b, Webnn__Ipc__ClientMessage *m);
void hz_buf_free(struct hz_buf *b);

/* What came back while pumping. */
struct hz_pump {
	int replies, reply_errors, events, lost, goodbyes;
	char first_error[512], goodbye[512], lost_message[512];
	bool closed;
};
/* Sends out (non-blocking) while reading replies, until everything is sent and want replies
 * came back or the connection ends; fails when nothing moves for idle_ms or it all takes longer
 * than total_ms (0: no bound). */
void hz_pump(struct pt_conn *c, const struct hz_buf *out, int want, int idle_ms, int total_ms,
	     struct hz_pump *st);

/* Expects the connection to end with a Goodbye containing needle (or, if accept_eof, with no
 * Goodbye at all) within ms. */
void hz_expect_end(struct pt_conn *c, const char *needle, bool accept_eof, int ms);

/* A CreateTensor of a [rows, 1024] float32 tensor (rows * 4 KiB) and its reply. */
Webnn__Ipc__ServerMessage *hz_create_rows(struct pt_conn *c, uint32_t ctx, uint32_t id,
					  uint32_t rows);

/* ---- a compromised worker (webnnd-testhooks) */

/* SKIPs unless build/bin/webnnd-testhooks (webnnd with the test hooks) exists. */
void hz_need_testhooks(void);
/* Says Hello on c with client_name "wnn-test:ACTION": the worker's test hook acts, and what it
 * answered (the HelloReply's server_name) is copied to out. */
void hz_hook(struct pt_conn *c, const char *action, char *out, size_t len);

/* A Hello message (the caller sends it). */
struct hz_hello {
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__Hello h;
};
void hz_hello_msg(struct hz_hello *h, const char *name, uint64_t serial);

/* Whether freed memory leaves the worker's resident set: not under AddressSanitizer, whose
 * allocator keeps it (the "back to the baseline" checks then only hold for the real allocator). */
#if defined(__SANITIZE_ADDRESS__)
#define HZ_RSS_RETURNS 0
#else
#define HZ_RSS_RETURNS 1
#endif

#endif
