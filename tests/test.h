/* Self-registering test cases and assertions for the webnn-tests runner. */
#ifndef TESTS_TEST_H
#define TESTS_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct test_case {
	const char *name;
	void (*fn)(void);
	int timeout_s; /* 0: the default (120 s) */
};

/* TEST(name) { ... }: registered in the "wnn_tests" ELF section; run in a forked child. */
#define TEST_TIMEOUT(name_, secs)                                                              \
	static void test_fn_##name_(void);                                                     \
	static const struct test_case test_case_##name_                                        \
		__attribute__((used, section("wnn_tests"), aligned(sizeof(void *)))) = {       \
			#name_, test_fn_##name_, secs };                                       \
	static void test_fn_##name_(void)
#define TEST(name_) TEST_TIMEOUT(name_, 0)

#define TEST_SKIP_CODE 77
/* Ends the test as skipped, with a reason on stderr. */
#define SKIP(...)                                                                              \
	do {                                                                                   \
		fprintf(stderr, "SKIP: " __VA_ARGS__);                                         \
		fprintf(stderr, "\n");                                                         \
		exit(TEST_SKIP_CODE);                                                          \
	} while (0)

/* Skips the test unless it runs as root; why says what it needs root for. */
#define REQUIRE_ROOT(why)                                                                      \
	do {                                                                                   \
		if (geteuid() != 0)                                                            \
			SKIP("%s: run it as root", why);                                       \
	} while (0)

#define FAIL(...)                                                                              \
	do {                                                                                   \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                \
		fprintf(stderr, __VA_ARGS__);                                                  \
		fprintf(stderr, "\n");                                                         \
		exit(1);                                                                       \
	} while (0)

#define ASSERT(cond)                                                                           \
	do {                                                                                   \
		if (!(cond))                                                                   \
			FAIL("assertion failed: %s", #cond);                                   \
	} while (0)
#define ASSERT_MSG(cond, ...)                                                                  \
	do {                                                                                   \
		if (!(cond))                                                                   \
			FAIL(__VA_ARGS__);                                                     \
	} while (0)
#define ASSERT_EQ(a, b)                                                                        \
	do {                                                                                   \
		long long a_ = (long long)(a), b_ = (long long)(b);                            \
		if (a_ != b_)                                                                  \
			FAIL("%s == %s failed: %lld != %lld", #a, #b, a_, b_);                 \
	} while (0)
#define ASSERT_STREQ(a, b)                                                                     \
	do {                                                                                   \
		const char *a_ = (a), *b_ = (b);                                               \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                                         \
			FAIL("%s == %s failed: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)",  \
			     b_ ? b_ : "(null)");                                              \
	} while (0)
/* Substring check, for error messages. */
#define ASSERT_CONTAINS(hay, needle)                                                           \
	do {                                                                                   \
		const char *h_ = (hay), *n_ = (needle);                                        \
		if (!h_ || !strstr(h_, n_))                                                    \
			FAIL("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", n_);        \
	} while (0)

/* ---- harness (tests/harness.c) */

/* Directory holding bin/webnnd etc.: $WEBNN_BUILD or "build". */
const char *test_build_dir(void);
/* ../shared (or $WEBNN_SHARED) when it exists, else NULL: tests needing it SKIP. */
const char *test_shared_dir(void);
/* The 1-minute load average (NAN when unknown), for benches to say how contended a run was. */
double test_load_average(void);
/* Benchmark statistics (make bench). Seconds on the monotonic clock. */
double test_now(void);
/* qsort comparison of doubles, ascending. */
int test_cmp_double(const void *a, const void *b);
/* The q-quantile of v[0..n) by nearest rank; v is sorted in place. NAN when n is 0. */
double test_quantile(double *v, int n, double q);
/* The median of v[0..n), v untouched; NAN when n is 0. */
double test_median(const double *v, int n);
/* The median of a[r] / b[r] over n rounds; "median [min..max]" (the median in width columns)
 * into out. */
double test_round_ratio(const double *a, const double *b, int n, int width, char *out,
			size_t len);
/* True when an OpenCL device is usable (else end-to-end tests SKIP). */
bool test_have_opencl(void);

/* A webnnd started for one test on a private socket; stopped with SIGTERM, exit status checked. */
/* $TMPDIR when set and non-empty, else /tmp: where tests put sockets and scratch files. */
const char *test_tmpdir(void);
/* mkdtemp of "<test_tmpdir()>/<prefix>-XXXXXX" into buf; fails the test when it cannot. */
void test_scratch_dir(char *buf, size_t len, const char *prefix);

struct test_daemon {
	int pid;
	char socket_path[108]; /* sun_path: the scratch directory must leave room for it */
	char dir[4096];
};
/* Starts build/bin/webnnd with the extra args (NULL-terminated list, may be NULL); fails the
 * test if it does not come up within 30 s. */
void test_daemon_start(struct test_daemon *d, const char *const *extra_args);
/* The same with another webnnd binary (a previous build, for same-run comparisons). */
void test_daemon_start_binary(struct test_daemon *d, const char *bin,
			      const char *const *extra_args);
/* The same with the daemon's stderr (its log) written to stderr_path; bin NULL: the default
 * webnnd. */
void test_daemon_start_logged(struct test_daemon *d, const char *bin,
			      const char *const *extra_args, const char *stderr_path);
/* The same in a directory the caller made (its socket: DIR/webnnd.sock); bin NULL: the
 * default webnnd. The directory is removed by test_daemon_stop. */
void test_daemon_start_in(struct test_daemon *d, const char *dir, const char *bin,
			  const char *const *extra_args, const char *stderr_path);
/* SIGTERM, waits, asserts a clean exit (status 0). */
void test_daemon_stop(struct test_daemon *d);
/* The pid of the daemon's child process named comm (a device worker: "wnn-u0" serves uid 0,
 * "wnn-spare" is not bound yet), waiting up to 10 s for it; fails the test otherwise. */
int test_daemon_child(const struct test_daemon *d, const char *comm);
/* Whether a Unix socket at path accepts a connection (a daemon listening there). */
bool test_socket_ready(const char *path);
/* Open file descriptors of a process (entries of /proc/<pid>/fd). */
int test_open_fds(int pid);

#endif
