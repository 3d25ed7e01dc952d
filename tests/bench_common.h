/* make bench: what the bench_* tests share: medians and ratios, pausing contenders, daemons and helper processes. */
#ifndef WEBNN_TESTS_BENCH_COMMON_H
#define WEBNN_TESTS_BENCH_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "webnn.h"

/* Everything here is interleaved: each round times every contender once, in an order that
 * rotates from round to round, so slow drifts of the load on this shared machine hit all of
 * them alike. Figures are medians over rounds; ratios are the median of the per-round ratios.
 * $WEBNN_BENCH_ROUNDS shortens (or lengthens) a run; $WEBNN_BENCH_BUDGET caps its seconds. */
#define BC_MAX_ROUNDS 64
#define BC_ROUNDS 11

double bc_now(void);
/* Median of v[0..n) (v is left untouched); NAN when n is 0. */
double bc_median(const double *v, int n);
/* Median over rounds of a[r] / b[r]. */
double bc_ratio(const double *a, const double *b, int n);
/* The extremes of v[0..n). */
void bc_range(const double *v, int n, double *lo, double *hi);
/* A per-round ratio with its spread over the rounds: "1.02 [0.95..1.10]". */
void bc_print_ratio(const char *label, const double *a, const double *b, int n);
/* snprintf for messages, which may be cut short. */
void bc_fmt(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Rounds of a bench ($WEBNN_BENCH_ROUNDS, default BC_ROUNDS) and its budget in seconds
 * ($WEBNN_BENCH_BUDGET, default 90) after which rounds stop early. */
int bc_rounds(void);
double bc_budget(void);
/* Stops (SIGSTOP, waiting until it has) and resumes a contender, with the processes under it
 * (a daemon's device workers), between its turns. */
void bc_pause(pid_t pid);
void bc_resume(pid_t pid);

/* A webnnd of the bench: unlike the tests' test_daemon, one that does not come up is a result
 * (a previous build without the cpu backend, say), not a failure. */
struct bc_daemon {
	pid_t pid;
	char dir[64], sock[108], log[96]; /* its stderr goes to log, shown when it fails */
	char device[128];
	struct webnn_context *ctx;
};

/* Starts bin (NULL: this build's webnnd) with --backend backend and env: "NAME=value" sets,
 * "-NAME" unsets (NULL-terminated), and connects a context to it. False with why. */
bool bc_daemon_start(struct bc_daemon *d, const char *bin, const char *backend,
		     const char *const *env, char *why, size_t why_len);
/* The same with more command-line arguments (NULL-terminated, up to 18: "--limit", "..."). */
bool bc_daemon_start_with(struct bc_daemon *d, const char *bin, const char *backend,
			  const char *const *env, const char *const *args, char *why,
			  size_t why_len);
void bc_daemon_stop(struct bc_daemon *d);

/* A helper kept alive across rounds, like the daemons: the onnxruntime peer (its sessions stay
 * warm the way the daemons' graphs do) and the FMA-peak program (a fresh process per sample
 * would start behind the long-lived, mostly sleeping daemons in the scheduler's queue). One
 * command line in, one answer line out. */
struct bc_child {
	pid_t pid;
	FILE *to, *from;
	char version[160];
};

/* Sends one command line and reads the answer line into reply; false when the answer is
 * "err ..." or the helper has ended. */
bool bc_child_cmd(struct bc_child *o, char *reply, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Starts argv (from PATH) with pipes on its stdin and stdout and reads its first line, which
 * must be "ready <what it is>" (else "err <why>"); false with why. */
bool bc_child_start(struct bc_child *o, const char *const argv[], char *why, size_t why_len);
void bc_child_stop(struct bc_child *o);
/* Starts the onnxruntime-node peer (bench/ort_bench.js) with intraOpNumThreads threads; false
 * with why (no node, no onnxruntime-node, no script) when it cannot. */
bool bc_ort_start(struct bc_child *o, int threads, char *why, size_t why_len);
/* Mean seconds of n session.run calls of session id; NAN on failure (message on stderr). */
double bc_ort_run(struct bc_child *o, const char *id, int n);

#endif
