/* make bench: a small graph's latency beside clients running large ones (one worker, two uids' workers), a new connection's latency beside another uid's connection churn, and what one worker per uid costs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/hostile.h"
#include "tests/models.h"
#include "tests/test.h"
#include "webnn.h"

/*
 * Client A runs a small graph (dispatch + read round trips, back to back) alone and while a
 * client B runs large graphs in a loop, B being another process of A's uid (the same worker,
 * so the cpu backend's compute thread decides) or of uid 65534 (its own worker: the kernel's
 * scheduler decides). Scenarios are interleaved round by round in a rotating order; figures
 * are medians over rounds of each round's percentiles, ratios the median of per-round ratios.
 * $WEBNN_BENCH_ROUNDS and $WEBNN_BENCH_BUDGET (seconds) shorten a run, as in bench_cpu.c;
 * $WEBNN_BENCH_PREVIOUS names another build's webnnd, measured too, interleaved (now/previous);
 * $WEBNN_BENCH_NICE (e.g. -10, as root) runs the bench, its daemon and clients at that nice
 * level, so that a loaded machine's other processes blur the tails less.
 */
#define BF_MAX_ROUNDS 32
#define BF_ROUNDS 7
#define BF_MAX_SAMPLES 400
#define BF_SAMPLE_S 1.2 /* seconds of A's round trips per scenario and round, at most */
#define BF_OTHER_UID 65534
#define BF_GOAL 3.0     /* p99 with B <= 3x p99 alone */

/* Applies $WEBNN_BENCH_NICE to this process and so to everything it starts; the level used. */
static int bf_nice(void)
{
	const char *e = getenv("WEBNN_BENCH_NICE");
	if (e && *e && setpriority(PRIO_PROCESS, 0, atoi(e)) != 0)
		FAIL("WEBNN_BENCH_NICE=%s: %s", e, strerror(errno));
	errno = 0;
	return getpriority(PRIO_PROCESS, 0);
}

static int bf_rounds(void)
{
	const char *e = getenv("WEBNN_BENCH_ROUNDS");
	int n = e && *e ? atoi(e) : BF_ROUNDS;
	return n < 1 ? 1 : n > BF_MAX_ROUNDS ? BF_MAX_ROUNDS : n;
}

static double bf_budget(void)
{
	const char *e = getenv("WEBNN_BENCH_BUDGET");
	return e && *e ? atof(e) : 90;
}

/* Runs bf_rounds() rounds, turn(sides, i, r) for each side i, the sides taking turns to go
 * first; past the third round only while bf_budget() seconds from t0 are not spent. Returns
 * the rounds run. */
static int bf_run_rounds(double t0, int n_sides, void (*turn)(void *sides, int i, int r),
			 void *sides)
{
	int rounds = bf_rounds();
	for (int r = 0; r < rounds; r++) {
		if (r >= 3 && test_now() - t0 > bf_budget())
			return r;
		for (int i = 0; i < n_sides; i++)
			turn(sides, (i + r) % n_sides, r);
	}
	return rounds;
}

/* ------------------------------------------------------------------ the daemon */

/* A front door with its workers, on a private socket other uids may reach; its log in a file. */
struct bf_daemon {
	pid_t pid;
	char dir[64], sock[108], log[96];
};

/* Starts exe (NULL: this build's webnnd) with args. */
static void bf_daemon_start(struct bf_daemon *d, const char *exe, const char *const *args)
{
	char bin[4200];
	if (exe)
		snprintf(bin, sizeof bin, "%s", exe);
	else
		snprintf(bin, sizeof bin, "%s/bin/webnnd", test_build_dir());
	memset(d, 0, sizeof *d);
	snprintf(d->dir, sizeof d->dir, "/tmp/webnn-bench-XXXXXX");
	ASSERT_MSG(mkdtemp(d->dir), "mkdtemp: %s", strerror(errno));
	ASSERT(chmod(d->dir, 0711) == 0); /* uid 65534 connects too */
	snprintf(d->sock, sizeof d->sock, "%s/webnnd.sock", d->dir);
	snprintf(d->log, sizeof d->log, "%s/webnnd.log", d->dir);
	const char *argv[16] = { bin, "--socket", d->sock };
	int argc = 3;
	for (int i = 0; args && args[i] && argc < 15; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		int fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0)
			dup2(fd, 2);
		execv(bin, (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	d->pid = pid;
	/* No probing connection: it would bind the spare worker to our uid. A context created
	 * before the first worker is ready waits in the listen backlog. */
	struct stat st;
	for (int i = 0; i < 3000 && stat(d->sock, &st) != 0; i++) {
		int ws;
		if (waitpid(pid, &ws, WNOHANG) == pid)
			FAIL("%s exited during start-up (status %d); see %s", bin, ws, d->log);
		usleep(10000);
	}
	ASSERT_MSG(stat(d->sock, &st) == 0, "%s did not bind %s within 30 s", bin, d->sock);
}

static void bf_daemon_stop(struct bf_daemon *d)
{
	if (d->pid <= 0)
		return;
	kill(d->pid, SIGTERM);
	int st = 0;
	for (int i = 0; i < 3000 && waitpid(d->pid, &st, WNOHANG) != d->pid; i++) {
		usleep(10000);
		if (i == 2999) {
			kill(d->pid, SIGKILL);
			waitpid(d->pid, &st, 0);
		}
	}
	d->pid = 0;
	unlink(d->sock);
	unlink(d->log);
	rmdir(d->dir);
}

static struct webnn_context *bf_connect(const struct bf_daemon *d, const char *name)
{
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	struct webnn_context *ctx = NULL;
	char err[512] = "";
	co.socket_path = d->sock;
	co.client_name = name;
	enum webnn_status s = webnn_context_create(&co, &ctx, err, sizeof err);
	ASSERT_MSG(s == WEBNN_STATUS_OK, "%s: context: %s: %s", name, webnn_status_name(s), err);
	struct webnn_context_info info;
	webnn_context_get_info(ctx, &info);
	ASSERT_MSG(info.backend && strcmp(info.backend, "cpu") == 0,
		   "%s: the context is on the %s backend, not cpu", name,
		   info.backend ? info.backend : "(unnamed)");
	return ctx;
}

/* ------------------------------------------------------------------ graphs */

struct bf_graph {
	struct webnn_graph *g;
	struct webnn_tensor *ti, *to;
	size_t out_bytes;
	void *out;
	uint32_t steps; /* the operations that run one after the other */
};

static float *bf_random(size_t n, uint32_t seed, float scale)
{
	float *p = malloc(n * sizeof(float));
	ASSERT(p);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		p[i] = ((float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f) * scale;
	}
	return p;
}

static size_t bf_count(const struct webnn_operand_desc *d)
{
	size_t n = 1;
	for (uint32_t i = 0; i < d->rank; i++)
		n *= d->shape[i];
	return n;
}

/* Builds y with input x (desc xd) into g, with its tensors; x gets random data. */
static void bf_finish(struct webnn_context *ctx, struct webnn_builder *b,
		      const struct webnn_operand_desc *xd, struct webnn_operand *y,
		      struct bf_graph *g, const char *what)
{
	struct webnn_named_operand named = { "y", y };
	struct webnn_tensor_desc tin = { *xd, false, true },
				 tout = { { WEBNN_FLOAT32, 0, { 0 } }, true, false };
	webnn_operand_get_desc(y, &tout.desc);
	MODEL_OK(ctx, webnn_builder_build(b, &named, 1, &g->g), what);
	webnn_builder_destroy(b);
	MODEL_OK(ctx, webnn_context_create_tensor(ctx, &tin, &g->ti), "input tensor");
	MODEL_OK(ctx, webnn_context_create_tensor(ctx, &tout, &g->to), "output tensor");
	size_t xn = bf_count(xd);
	float *x = bf_random(xn, 42, 1);
	MODEL_OK(ctx, webnn_context_write_tensor(ctx, g->ti, x, xn * sizeof(float)), "write");
	free(x);
	g->out_bytes = bf_count(&tout.desc) * sizeof(float);
	g->out = malloc(g->out_bytes);
	ASSERT(g->out);
}

/* A's graph: y = x + c on [1, 64]. */
static void bf_build_small(struct webnn_context *ctx, struct bf_graph *g)
{
	struct webnn_builder *b;
	struct webnn_operand *x, *c, *y;
	struct webnn_operand_desc xd = { WEBNN_FLOAT32, 2, { 1, 64 } };
	MODEL_OK(ctx, webnn_builder_create(ctx, &b), "builder");
	float *cd = bf_random(64, 7, 1);
	MODEL_OK(ctx, webnn_builder_input(b, "x", &xd, &x), "input");
	MODEL_OK(ctx, webnn_builder_constant(b, &xd, cd, 64 * sizeof(float), &c), "constant");
	free(cd);
	MODEL_OK(ctx, webnn_builder_add(b, x, c, &y), "add");
	bf_finish(ctx, b, &xd, y, g, "small graph");
	g->steps = 1;
}

/* Many medium steps, as in a MobileNet: layers x (conv 3x3 hw x hw x ch -> ch, padding 1,
 * relu), then the mean over the pixels (so what B reads back is small). */
#define BF_CHAIN_LAYERS 32
#define BF_CHAIN_HW 28
#define BF_CHAIN_CH 32
static void bf_build_chain(struct webnn_context *ctx, struct bf_graph *g)
{
	struct webnn_builder *b;
	struct webnn_operand *x, *y;
	struct webnn_operand_desc xd = { WEBNN_FLOAT32, 4,
					 { 1, BF_CHAIN_HW, BF_CHAIN_HW, BF_CHAIN_CH } };
	struct webnn_operand_desc wd = { WEBNN_FLOAT32, 4, { BF_CHAIN_CH, 3, 3, BF_CHAIN_CH } };
	MODEL_OK(ctx, webnn_builder_create(ctx, &b), "builder");
	MODEL_OK(ctx, webnn_builder_input(b, "x", &xd, &x), "input");
	y = x;
	size_t wn = bf_count(&wd);
	for (uint32_t l = 0; l < BF_CHAIN_LAYERS; l++) {
		/* scaled so that activations keep their magnitude through the layers */
		float *w = bf_random(wn, 100 + l, 2.0f * sqrtf(3.0f / (9 * BF_CHAIN_CH)));
		struct webnn_operand *wo, *c;
		MODEL_OK(ctx, webnn_builder_constant(b, &wd, w, wn * sizeof(float), &wo), "filter");
		free(w);
		struct webnn_conv2d_options co = WEBNN_CONV2D_OPTIONS_INIT;
		co.input_layout = WEBNN_LAYOUT_NHWC;
		co.filter_layout = WEBNN_FILTER_OHWI;
		for (int i = 0; i < 4; i++)
			co.padding[i] = 1;
		co.n_padding = 4;
		MODEL_OK(ctx, webnn_builder_conv2d(b, y, wo, &co, &c), "conv2d");
		MODEL_OK(ctx, webnn_builder_relu(b, c, &y), "relu");
	}
	static const uint32_t axes[] = { 1, 2 };
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.axes = axes;
	ro.n_axes = 2;
	MODEL_OK(ctx, webnn_builder_reduce_mean(b, y, &ro, &y), "reduceMean");
	bf_finish(ctx, b, &xd, y, g, "conv chain");
	g->steps = BF_CHAIN_LAYERS + 1;
}

/* One huge step: matmul n x n x n with a constant B, then the column means. */
#define BF_HUGE_N 1024
static void bf_build_huge(struct webnn_context *ctx, struct bf_graph *g)
{
	struct webnn_builder *b;
	struct webnn_operand *x, *w, *y;
	struct webnn_operand_desc xd = { WEBNN_FLOAT32, 2, { BF_HUGE_N, BF_HUGE_N } };
	MODEL_OK(ctx, webnn_builder_create(ctx, &b), "builder");
	MODEL_OK(ctx, webnn_builder_input(b, "x", &xd, &x), "input");
	float *wd = bf_random(bf_count(&xd), 9, 0.1f);
	MODEL_OK(ctx, webnn_builder_constant(b, &xd, wd, bf_count(&xd) * sizeof(float), &w),
		 "constant");
	free(wd);
	MODEL_OK(ctx, webnn_builder_matmul(b, x, w, &y), "matmul");
	static const uint32_t axes[] = { 0 };
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.axes = axes;
	ro.n_axes = 1;
	MODEL_OK(ctx, webnn_builder_reduce_mean(b, y, &ro, &y), "reduceMean");
	bf_finish(ctx, b, &xd, y, g, "matmul");
	g->steps = 2;
}

/* One dispatch + read of the output; seconds. */
static double bf_round_trip(struct webnn_context *ctx, struct bf_graph *g)
{
	struct webnn_named_tensor bi = { "x", g->ti }, bo = { "y", g->to };
	double t0 = test_now();
	MODEL_OK(ctx, webnn_context_dispatch(ctx, g->g, &bi, 1, &bo, 1), "dispatch");
	MODEL_OK(ctx, webnn_context_read_tensor(ctx, g->to, g->out, g->out_bytes), "read");
	return test_now() - t0;
}

static void bf_graph_close(struct bf_graph *g)
{
	webnn_tensor_destroy(g->ti);
	webnn_tensor_destroy(g->to);
	webnn_graph_destroy(g->g);
	free(g->out);
	memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------------ client B */

/* A process running B's graphs on command: 'c' (the chain) or 'h' (the huge step) loops
 * dispatch + read, 'b' builds (and releases) the chain graph in a loop, answering "running"
 * after the first iteration, until 's' ("stopped <n> <median ms> <max ms>"); 'C'/'H' time 11
 * round trips ("alone <median ms>"); 'q' ends it. It is forked before the bench process has a
 * context (libwebnn's threads do not survive fork). */
struct bf_peer {
	pid_t pid;
	int to;
	FILE *from;
	uid_t uid;
};

static void bf_peer_say(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bf_peer_say(int fd, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (write(fd, line, strlen(line)) < 0)
		_exit(1);
}

static void bf_peer_main(const struct bf_daemon *d, uid_t uid, int in, int out)
{
	if (uid != 0 && (setgroups(0, NULL) != 0 || setgid(uid) != 0 || setuid(uid) != 0)) {
		bf_peer_say(out, "err cannot become uid %u: %s\n", (unsigned)uid, strerror(errno));
		_exit(1);
	}
	struct webnn_context *ctx = bf_connect(d, "bench-fairness-b");
	struct bf_graph gs[2] = { 0 };
	bf_build_chain(ctx, &gs[0]);
	bf_build_huge(ctx, &gs[1]);
	bf_round_trip(ctx, &gs[0]);
	bf_round_trip(ctx, &gs[1]);
	bf_peer_say(out, "ready\n");
	char c;
	while (read(in, &c, 1) == 1) {
		struct bf_graph *g = &gs[c == 'h' || c == 'H'];
		double t[BF_MAX_SAMPLES];
		int n = 0;
		if (c == 'q')
			break;
		if (c == 'C' || c == 'H') {
			for (; n < 11; n++)
				t[n] = bf_round_trip(ctx, g);
			bf_peer_say(out, "alone %.4f\n", test_median(t, n) * 1e3);
			continue;
		}
		struct pollfd p = { .fd = in, .events = POLLIN };
		do {
			double s = test_now();
			if (c == 'b') {
				struct bf_graph built = { 0 };
				bf_build_chain(ctx, &built);
				bf_graph_close(&built);
				s = test_now() - s;
			} else {
				s = bf_round_trip(ctx, g);
			}
			if (n < BF_MAX_SAMPLES)
				t[n] = s;
			if (n++ == 0)
				bf_peer_say(out, "running\n");
		} while (poll(&p, 1, 0) == 0);
		if (read(in, &c, 1) != 1)
			break;
		double max = 0;
		for (int i = 0; i < n && i < BF_MAX_SAMPLES; i++)
			max = t[i] > max ? t[i] : max;
		bf_peer_say(out, "stopped %d %.4f %.4f\n", n, test_median(t, n) * 1e3, max * 1e3);
	}
	bf_graph_close(&gs[0]);
	bf_graph_close(&gs[1]);
	webnn_context_destroy(ctx);
	_exit(0);
}

static void bf_peer_start(struct bf_peer *p, const struct bf_daemon *d, uid_t uid)
{
	int down[2], up[2];
	ASSERT(pipe2(down, O_CLOEXEC) == 0 && pipe2(up, O_CLOEXEC) == 0);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		bf_peer_main(d, uid, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	*p = (struct bf_peer){ .pid = pid, .to = down[1], .from = fdopen(up[0], "r"), .uid = uid };
	ASSERT(p->from);
}

/* Sends command c and reads the answer line into reply; fails the bench on an error. */
static void bf_peer_cmd(struct bf_peer *p, char c, char *reply, size_t len)
{
	ASSERT(write(p->to, &c, 1) == 1);
	ASSERT_MSG(fgets(reply, (int)len, p->from), "client B (uid %u) ended", (unsigned)p->uid);
	reply[strcspn(reply, "\n")] = 0;
	ASSERT_MSG(strncmp(reply, "err", 3) != 0, "client B (uid %u): %s", (unsigned)p->uid,
		   reply);
}

static void bf_peer_wait(struct bf_peer *p, const char *want)
{
	char line[256];
	ASSERT_MSG(fgets(line, sizeof line, p->from), "client B (uid %u) ended", (unsigned)p->uid);
	ASSERT_MSG(strncmp(line, want, strlen(want)) == 0, "client B (uid %u): %s",
		   (unsigned)p->uid, line);
}

static void bf_peer_stop(struct bf_peer *p)
{
	if (p->pid <= 0)
		return;
	char c = 'q';
	if (write(p->to, &c, 1) != 1)
		kill(p->pid, SIGKILL);
	close(p->to);
	fclose(p->from);
	waitpid(p->pid, NULL, 0);
	p->pid = 0;
}

/* ------------------------------------------------------------------ fairness */

enum {
	BF_ALONE,
	BF_SAME_CHAIN,
	BF_SAME_HUGE,
	BF_SAME_BUILD,
	BF_OTHER_CHAIN,
	BF_OTHER_HUGE,
	BF_SCENARIOS
};
static const struct bf_scenario {
	const char *name;
	int peer;     /* -1: none, 0: A's uid, 1: BF_OTHER_UID */
	char command; /* what B does */
} bf_scenarios[BF_SCENARIOS] = {
	{ "A alone", -1, 0 },
	{ "B same uid, conv chain", 0, 'c' },
	{ "B same uid, one huge step", 0, 'h' },
	{ "B same uid, builds the chain", 0, 'b' },
	{ "B other uid, conv chain", 1, 'c' },
	{ "B other uid, one huge step", 1, 'h' },
};

struct bf_result {
	double p50[BF_MAX_ROUNDS], p99[BF_MAX_ROUNDS], max[BF_MAX_ROUNDS];
	double b_ms[BF_MAX_ROUNDS], b_max[BF_MAX_ROUNDS]; /* B's iterations: median, slowest */
	int n[BF_MAX_ROUNDS];
};

/* One webnnd under test (this build's, or $WEBNN_BENCH_PREVIOUS) with its clients. */
struct bf_side {
	const char *label;
	struct bf_daemon d;
	struct bf_peer peer[2]; /* [0]: A's uid (root here), [1]: BF_OTHER_UID */
	struct webnn_context *ctx;
	struct bf_graph small;
	struct bf_result res[BF_SCENARIOS];
	/* B's graphs alone, and the chain while the other uid's worker runs it too */
	double chain_ms[BF_MAX_ROUNDS], huge_ms[BF_MAX_ROUNDS], both_ms[BF_MAX_ROUNDS];
};

static void bf_side_start(struct bf_side *s, const char *label, const char *exe)
{
	static const char *const args[] = { "--backend", "cpu", NULL };
	s->label = label;
	bf_daemon_start(&s->d, exe, args);
	bf_peer_start(&s->peer[0], &s->d, 0);
	bf_peer_start(&s->peer[1], &s->d, BF_OTHER_UID);
}

/* After every side's clients B are forked: they wait ready, A connects. */
static void bf_side_connect(struct bf_side *s)
{
	bf_peer_wait(&s->peer[0], "ready");
	bf_peer_wait(&s->peer[1], "ready");
	s->ctx = bf_connect(&s->d, "bench-fairness-a");
	bf_build_small(s->ctx, &s->small);
	for (int i = 0; i < 50; i++)
		bf_round_trip(s->ctx, &s->small);
}

static double bf_peer_alone(struct bf_peer *p, char command)
{
	char line[256];
	double ms;
	bf_peer_cmd(p, command, line, sizeof line);
	ASSERT(sscanf(line, "alone %lf", &ms) == 1);
	return ms;
}

static void bf_side_round(struct bf_side *s, int r)
{
	char line[256];
	double samples[BF_MAX_SAMPLES];
	s->chain_ms[r] = bf_peer_alone(&s->peer[0], 'C');
	s->huge_ms[r] = bf_peer_alone(&s->peer[0], 'H');
	ASSERT(write(s->peer[1].to, "c", 1) == 1);
	bf_peer_wait(&s->peer[1], "running");
	s->both_ms[r] = bf_peer_alone(&s->peer[0], 'C');
	bf_peer_cmd(&s->peer[1], 's', line, sizeof line);
	for (int k = 0; k < BF_SCENARIOS; k++) {
		int sc = (k + r) % BF_SCENARIOS;
		const struct bf_scenario *scn = &bf_scenarios[sc];
		struct bf_peer *p = scn->peer < 0 ? NULL : &s->peer[scn->peer];
		if (p) {
			ASSERT(write(p->to, &scn->command, 1) == 1);
			bf_peer_wait(p, "running");
		}
		int n = 0;
		double end = test_now() + BF_SAMPLE_S;
		while (n < BF_MAX_SAMPLES && (n < 20 || test_now() < end))
			samples[n++] = bf_round_trip(s->ctx, &s->small);
		struct bf_result *o = &s->res[sc];
		o->n[r] = n;
		o->p50[r] = test_quantile(samples, n, 0.5);
		o->p99[r] = test_quantile(samples, n, 0.99);
		o->max[r] = samples[n - 1];
		o->b_ms[r] = o->b_max[r] = NAN;
		if (p) {
			int bn;
			bf_peer_cmd(p, 's', line, sizeof line);
			ASSERT(sscanf(line, "stopped %d %lf %lf", &bn, &o->b_ms[r], &o->b_max[r]) ==
			       3);
		}
	}
}

static void bf_side_turn(void *sides, int i, int r)
{
	bf_side_round(&((struct bf_side *)sides)[i], r);
}

static void bf_side_print(const struct bf_side *s, int rounds)
{
	char q[64];
	double chain = test_median(s->chain_ms, rounds);
	printf("   %s:\n", s->label);
	printf("    B's graphs alone: conv chain (%d x conv 3x3 %dx%dx%d + relu, then a mean): "
	       "%.2f ms a dispatch, %d steps (%.3f ms a step); one huge step (matmul %d^3, then "
	       "a mean): %.2f ms a dispatch\n",
	       BF_CHAIN_LAYERS, BF_CHAIN_HW, BF_CHAIN_HW, BF_CHAIN_CH, chain,
	       BF_CHAIN_LAYERS + 1, chain / (BF_CHAIN_LAYERS + 1), BF_HUGE_N,
	       test_median(s->huge_ms, rounds));
	test_round_ratio(s->both_ms, s->chain_ms, rounds, 6, q, sizeof q);
	printf("    two workers busy at once (uids 0 and %d both loop the conv chain, each worker's "
	       "team as large as the cores): %.2f ms a dispatch, x%s alone (2 is an even split "
	       "of the cores)\n",
	       BF_OTHER_UID, test_median(s->both_ms, rounds), q);
	for (int sc = 0; sc < BF_SCENARIOS; sc++) {
		const struct bf_result *o = &s->res[sc];
		double n[BF_MAX_ROUNDS];
		for (int r = 0; r < rounds; r++)
			n[r] = o->n[r];
		printf("    %-29s p50 %7.3f ms  p99 %7.3f ms  max %7.3f ms  (%3.0f samples)",
		       bf_scenarios[sc].name, test_median(o->p50, rounds) * 1e3,
		       test_median(o->p99, rounds) * 1e3, test_median(o->max, rounds) * 1e3,
		       test_median(n, rounds));
		if (sc != BF_ALONE) {
			double m = test_round_ratio(o->p99, s->res[BF_ALONE].p99, rounds, 6, q, sizeof q);
			printf("  p99/alone %s (goal <= %.0f: %s); B %.2f ms %s (max %.2f)", q,
			       BF_GOAL, m <= BF_GOAL ? "met" : "NOT MET",
			       test_median(o->b_ms, rounds),
			       bf_scenarios[sc].command == 'b' ? "a build" : "a dispatch",
			       test_median(o->b_max, rounds));
		}
		printf("\n");
	}
}

static void bf_side_stop(struct bf_side *s)
{
	bf_graph_close(&s->small);
	webnn_context_destroy(s->ctx);
	bf_peer_stop(&s->peer[0]);
	bf_peer_stop(&s->peer[1]);
	bf_daemon_stop(&s->d);
}

TEST_TIMEOUT(bench_fairness, 600)
{
	static struct bf_side side[2];
	if (geteuid() != 0)
		SKIP("client B of another uid needs root (setuid)");
	int nice = bf_nice();
	const char *prev = getenv("WEBNN_BENCH_PREVIOUS");
	int n_sides = prev && *prev ? 2 : 1;
	bf_side_start(&side[0], "this build", NULL);
	if (n_sides == 2)
		bf_side_start(&side[1], "previous build ($WEBNN_BENCH_PREVIOUS)", prev);
	for (int i = 0; i < n_sides; i++)
		bf_side_connect(&side[i]);
	double t0 = test_now(), load0 = test_load_average();
	int rounds = bf_run_rounds(t0, n_sides, bf_side_turn, side);
	printf("  fairness on the cpu backend (one worker per uid): client A's small graph (add "
	       "1x64, dispatch + read, back to back) alone and while client B loops a large "
	       "graph's dispatch + read (or its build); %d rounds (%.1f s, load average %.2f "
	       "before, %.2f after, nice %d); medians over rounds\n",
	       rounds, test_now() - t0, load0, test_load_average(), nice);
	for (int i = 0; i < n_sides; i++)
		bf_side_print(&side[i], rounds);
	if (n_sides == 2) {
		printf("   this build / previous build, per-round ratios:\n");
		for (int sc = 0; sc < BF_SCENARIOS; sc++) {
			char q50[64], q99[64];
			test_round_ratio(side[0].res[sc].p50, side[1].res[sc].p50, rounds, 6, q50, sizeof q50);
			test_round_ratio(side[0].res[sc].p99, side[1].res[sc].p99, rounds, 6, q99, sizeof q99);
			printf("    %-29s p50 %s  p99 %s\n", bf_scenarios[sc].name, q50, q99);
		}
	}
	for (int i = 0; i < n_sides; i++)
		bf_side_stop(&side[i]);
}

/* ------------------------------------------------------------------ connection churn */

/*
 * Uid 12345 opens and closes connections as fast as it can (bare connect + close, and
 * connect + Hello + close) while uid 65534 times new connections, connect() to HelloReply.
 * Per round: p50/p99 of BC_SAMPLES connections alone, beside each churn, and beside two
 * processes that only spin (no connection: what taking two cores' worth of CPU away costs by
 * itself, the churner and the front door each using about one); p99 with churn / alone per
 * round, medians over rounds (goal <= 3), and churn / spinning. The reference backend: the
 * front door's accept path and the hand-off are what is measured, not a backend's start.
 */
#define BC_SAMPLES 300
#define BC_CHURN_UID 12345
enum { BC_ALONE, BC_BARE, BC_HELLO, BC_SPIN, BC_SCENARIOS };
static const char *const bc_names[BC_SCENARIOS] = {
	"alone", "beside connect + close churn", "beside connect + Hello churn",
	"beside two spinning processes",
};

/* A process that only burns CPU until killed. */
static pid_t bc_spinner(void)
{
	fflush(NULL);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		for (volatile unsigned long x = 0;; x++)
			;
	}
	return pid;
}

struct bc_side {
	const char *label;
	struct bf_daemon d;
	struct test_daemon td; /* the socket, for the hostile suite's helpers */
	double p50[BC_SCENARIOS][BF_MAX_ROUNDS], p99[BC_SCENARIOS][BF_MAX_ROUNDS];
	double churn_rate[BC_SCENARIOS][BF_MAX_ROUNDS]; /* the churner's connections a second */
};

static void bc_side_round(struct bc_side *s, int r)
{
	double ms[BC_SAMPLES];
	for (int k = 0; k < BC_SCENARIOS; k++) {
		int sc = (k + r) % BC_SCENARIOS;
		struct hz_churn ch;
		pid_t spin[2] = { 0, 0 };
		double t0 = test_now();
		if (sc == BC_BARE || sc == BC_HELLO)
			hz_churn_start(&ch, &s->td, BC_CHURN_UID, sc == BC_HELLO);
		if (sc == BC_SPIN)
			spin[0] = bc_spinner(), spin[1] = bc_spinner();
		if (sc != BC_ALONE)
			usleep(100000);
		hz_hello_times(&s->td, BF_OTHER_UID, BC_SAMPLES, 10000, ms);
		s->churn_rate[sc][r] = 0;
		if (sc == BC_BARE || sc == BC_HELLO)
			s->churn_rate[sc][r] = hz_churn_stop(&ch) / (test_now() - t0);
		for (int i = 0; i < 2; i++)
			if (spin[i] > 0) {
				kill(spin[i], SIGKILL);
				waitpid(spin[i], NULL, 0);
			}
		s->p50[sc][r] = test_quantile(ms, BC_SAMPLES, 0.5);
		s->p99[sc][r] = test_quantile(ms, BC_SAMPLES, 0.99);
	}
}

static void bc_side_turn(void *sides, int i, int r)
{
	bc_side_round(&((struct bc_side *)sides)[i], r);
}

TEST_TIMEOUT(bench_churn_fairness, 600)
{
	static struct bc_side side[2];
	static const char *const args[] = { "--backend", "reference", NULL };
	if (geteuid() != 0)
		SKIP("clients of other uids need root (setuid)");
	int nice = bf_nice();
	const char *prev = getenv("WEBNN_BENCH_PREVIOUS");
	int n_sides = prev && *prev ? 2 : 1;
	for (int i = 0; i < n_sides; i++) {
		struct bc_side *s = &side[i];
		s->label = i == 0 ? "this build" : "previous build ($WEBNN_BENCH_PREVIOUS)";
		bf_daemon_start(&s->d, i == 0 ? NULL : prev, args);
		memcpy(s->td.socket_path, s->d.sock, sizeof s->td.socket_path);
		s->td.pid = s->d.pid;
		/* bound with no access, then opened up: other uids wait for the mode */
		struct stat st;
		for (int t = 0; t < 500 && (stat(s->d.sock, &st) != 0 || (st.st_mode & 0666) != 0666);
		     t++)
			usleep(10000);
		double warm[4];
		hz_hello_times(&s->td, BF_OTHER_UID, 4, 30000, warm);
		hz_hello_times(&s->td, BC_CHURN_UID, 4, 30000, warm);
	}
	double t0 = test_now(), load0 = test_load_average();
	int rounds = bf_run_rounds(t0, n_sides, bc_side_turn, side);
	printf("  connection churn (reference backend): uid %d's new connections, connect() to "
	       "HelloReply, %d a round, alone and while uid %d opens and closes connections as "
	       "fast as it can; %d rounds (%.1f s, load average %.2f before, %.2f after, nice %d); "
	       "medians over rounds\n", BF_OTHER_UID, BC_SAMPLES, BC_CHURN_UID, rounds,
	       test_now() - t0, load0, test_load_average(), nice);
	for (int i = 0; i < n_sides; i++) {
		struct bc_side *s = &side[i];
		printf("   %s:\n", s->label);
		for (int sc = 0; sc < BC_SCENARIOS; sc++) {
			char q[64];
			printf("    %-29s p50 %7.3f ms  p99 %7.3f ms", bc_names[sc],
			       test_median(s->p50[sc], rounds), test_median(s->p99[sc], rounds));
			if (sc != BC_ALONE) {
				double m = test_round_ratio(s->p99[sc], s->p99[BC_ALONE], rounds, 6, q,
							    sizeof q);
				printf("  p99/alone %s", q);
				if (sc != BC_SPIN) {
					char qs[64];
					test_round_ratio(s->p99[sc], s->p99[BC_SPIN], rounds, 6, qs,
							 sizeof qs);
					printf(" (goal <= %.0f: %s), /spinning %s; churn %.0f "
					       "connections/s", BF_GOAL, m <= BF_GOAL ? "met" : "NOT MET",
					       qs, test_median(s->churn_rate[sc], rounds));
				}
			}
			printf("\n");
		}
	}
	if (n_sides == 2) {
		printf("   this build / previous build, per-round ratios:\n");
		for (int sc = 0; sc < BC_SCENARIOS; sc++) {
			char q50[64], q99[64];
			test_round_ratio(side[0].p50[sc], side[1].p50[sc], rounds, 6, q50, sizeof q50);
			test_round_ratio(side[0].p99[sc], side[1].p99[sc], rounds, 6, q99, sizeof q99);
			printf("    %-29s p50 %s  p99 %s\n", bc_names[sc], q50, q99);
		}
	}
	for (int i = 0; i < n_sides; i++)
		bf_daemon_stop(&side[i].d);
}

/* ------------------------------------------------------------------ the isolation unit */

/* Memory of a process from /proc/<pid>/smaps_rollup, MiB: resident, proportional (shared pages
 * split between their users) and private (what this process alone holds: what one more
 * worker costs). False when unreadable. */
struct bf_mem {
	double rss, pss, priv;
};

static bool bf_mem_read(pid_t pid, struct bf_mem *m)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	memset(m, 0, sizeof *m);
	while (fgets(line, sizeof line, f)) {
		double kb;
		if (sscanf(line, "Rss: %lf kB", &kb) == 1)
			m->rss = kb / 1024;
		else if (sscanf(line, "Pss: %lf kB", &kb) == 1)
			m->pss = kb / 1024;
		else if (sscanf(line, "Private_Clean: %lf kB", &kb) == 1 ||
			 sscanf(line, "Private_Dirty: %lf kB", &kb) == 1)
			m->priv += kb / 1024;
	}
	fclose(f);
	return m->rss > 0;
}

/* The child of parent whose process name is name ("wnn-spare", "wnn-u0"); 0 when none. */
static pid_t bf_child_named(pid_t parent, const char *name)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;
	while (proc && !found && (e = readdir(proc))) {
		char path[300], stat[512];
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		FILE *f = fopen(path, "r");
		size_t len = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
		if (f)
			fclose(f);
		stat[len] = 0;
		/* "pid (comm) state ppid ...": comm may hold anything, the last ')' ends it */
		char *open = strchr(stat, '('), *close = strrchr(stat, ')');
		int ppid;
		if (!open || !close || sscanf(close + 1, " %*c %d", &ppid) != 1 || ppid != parent)
			continue;
		*close = 0;
		if (strcmp(open + 1, name) == 0)
			found = pid;
	}
	if (proc)
		closedir(proc);
	return found;
}

/* Waits (up to 20 s) for a spare worker to have started its backends; its pid. */
static pid_t bf_spare_wait(const struct bf_daemon *d)
{
	for (int i = 0; i < 2000; i++) {
		pid_t p = bf_child_named(d->pid, "wnn-spare");
		if (p > 0) {
			usleep(50000); /* it names itself just before it says it is ready */
			return p;
		}
		usleep(10000);
	}
	FAIL("no spare worker appeared within 20 s (see %s)", d->log);
}

/* Seconds to a context of uid (as the effective uid at connect, which SO_PEERCRED reports). */
static double bf_connect_as(const struct bf_daemon *d, uid_t uid, struct webnn_context **ctx)
{
	ASSERT(seteuid(uid) == 0);
	double t0 = test_now();
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	char err[512] = "";
	co.socket_path = d->sock;
	co.client_name = "bench-isolation";
	enum webnn_status s = webnn_context_create(&co, ctx, err, sizeof err);
	double t = test_now() - t0;
	ASSERT(seteuid(0) == 0);
	ASSERT_MSG(s == WEBNN_STATUS_OK, "uid %u: context: %s: %s", (unsigned)uid,
		   webnn_status_name(s), err);
	return t;
}

/* The workers' start-up times the front door logged ("worker N ready in M ms", --verbose). */
static int bf_ready_times(const struct bf_daemon *d, double *ms, int max)
{
	FILE *f = fopen(d->log, "r");
	char line[1024];
	int n = 0;
	while (f && n < max && fgets(line, sizeof line, f)) {
		char *p = strstr(line, " ready in ");
		if (p && strstr(line, "worker ") && sscanf(p, " ready in %lf ms", &ms[n]) == 1)
			n++;
	}
	if (f)
		fclose(f);
	return n;
}

#define BF_ISO_ROUNDS 7
#define BF_ISO_UID 40000 /* uids BF_ISO_UID.. are fresh users, two a round */

/* Memory and start-up of the workers with the given backend arguments. */
static void bf_isolation_workers(const char *label, const char *const *backend)
{
	struct bf_daemon d;
	const char *args[8] = { "--verbose", "--limit", "worker_idle_ms=1000" };
	int n = 3;
	for (int i = 0; backend[i]; i++)
		args[n++] = backend[i];
	args[n] = NULL;
	bf_daemon_start(&d, NULL, args);
	pid_t spare = bf_spare_wait(&d);
	struct bf_mem door, sm, bound, bound_idle;
	ASSERT(bf_mem_read(d.pid, &door));
	ASSERT(bf_mem_read(spare, &sm));
	struct webnn_context *ctx = bf_connect(&d, "bench-isolation");
	pid_t own = bf_child_named(d.pid, "wnn-u0");
	ASSERT_MSG(own > 0, "no worker named wnn-u0 serves uid 0");
	ASSERT(bf_mem_read(own, &bound_idle));
	struct bf_graph small = { 0 };
	bf_build_small(ctx, &small);
	for (int i = 0; i < 20; i++)
		bf_round_trip(ctx, &small);
	ASSERT(bf_mem_read(own, &bound));
	int rounds = bf_rounds() < BF_ISO_ROUNDS ? bf_rounds() : BF_ISO_ROUNDS;
	double spare_s[BF_MAX_ROUNDS], cold_s[BF_MAX_ROUNDS], same_s[BF_MAX_ROUNDS];
	for (int r = 0; r < rounds; r++) {
		struct webnn_context *c[3];
		bf_spare_wait(&d);
		/* a new user takes the ready spare; the next new user right after it finds the
		 * spare that replaces it still starting; a user with a worker goes straight there */
		spare_s[r] = bf_connect_as(&d, BF_ISO_UID + 2 * r, &c[0]);
		cold_s[r] = bf_connect_as(&d, BF_ISO_UID + 2 * r + 1, &c[1]);
		same_s[r] = bf_connect_as(&d, 0, &c[2]);
		for (int i = 0; i < 3; i++)
			webnn_context_destroy(c[i]);
	}
	double ready[64];
	int n_ready = bf_ready_times(&d, ready, 64);
	bf_graph_close(&small);
	webnn_context_destroy(ctx);
	bf_daemon_stop(&d);
	printf("    %s: memory, MiB, resident / proportional / private:\n", label);
	printf("      front door                               %6.1f / %6.1f / %6.1f\n", door.rss,
	       door.pss, door.priv);
	printf("      spare worker (backends up, no client)    %6.1f / %6.1f / %6.1f\n", sm.rss,
	       sm.pss, sm.priv);
	printf("      worker of uid 0, one context             %6.1f / %6.1f / %6.1f\n",
	       bound_idle.rss, bound_idle.pss, bound_idle.priv);
	printf("      ... after a small graph built and run    %6.1f / %6.1f / %6.1f\n", bound.rss,
	       bound.pss, bound.priv);
	printf("      worker start-up (fork + exec to ready, as the front door logs it): median "
	       "%.1f ms over %d workers\n",
	       test_median(ready, n_ready), n_ready);
	printf("      connect + handshake + context, medians of %d rounds: uid with a worker "
	       "%.2f ms; new uid taking the ready spare %.2f ms (x%.2f); new uid while the spare "
	       "is still starting %.2f ms (x%.2f)\n",
	       rounds, test_median(same_s, rounds) * 1e3, test_median(spare_s, rounds) * 1e3,
	       test_median(spare_s, rounds) / test_median(same_s, rounds),
	       test_median(cold_s, rounds) * 1e3,
	       test_median(cold_s, rounds) / test_median(same_s, rounds));
}

/* Seconds of one round trip of 64 bytes over a Unix socketpair to another process and back
 * (median of n): the floor under any request to a worker. */
static double bf_socket_floor(int fd, int n)
{
	double t[BF_MAX_SAMPLES];
	char buf[64] = { 0 };
	n = n < BF_MAX_SAMPLES ? n : BF_MAX_SAMPLES;
	for (int i = 0; i < n; i++) {
		double t0 = test_now();
		ASSERT(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
		size_t got = 0;
		while (got < sizeof buf) {
			ssize_t r = read(fd, buf + got, sizeof buf - got);
			ASSERT(r > 0);
			got += (size_t)r;
		}
		t[i] = test_now() - t0;
	}
	return test_median(t, n);
}

TEST_TIMEOUT(bench_isolation, 300)
{
	if (geteuid() != 0)
		SKIP("connecting as other uids needs root (seteuid)");
	static const char *const cpu[] = { "--backend", "cpu", NULL }, *const dflt[] = { NULL };
	int nice = bf_nice();
	printf("  the isolation unit, one device worker process per uid (load average %.2f, nice "
	       "%d):\n",
	       test_load_average(), nice);
	bf_isolation_workers("--backend cpu", cpu);
	bf_isolation_workers("default backends (cpu; opencl opens no CPU device)", dflt);

	/* the per-request cost: no extra hop, a worker serves its connections directly */
	int sv[2];
	ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	fflush(stdout);
	pid_t echo = fork();
	ASSERT(echo >= 0);
	if (echo == 0) {
		char buf[64];
		ssize_t r;
		close(sv[0]);
		while ((r = read(sv[1], buf, sizeof buf)) > 0)
			if (write(sv[1], buf, (size_t)r) != r)
				break;
		_exit(0);
	}
	close(sv[1]);
	struct bf_daemon d;
	bf_daemon_start(&d, NULL, cpu);
	struct webnn_context *ctx = bf_connect(&d, "bench-isolation");
	struct bf_graph small = { 0 };
	bf_build_small(ctx, &small);
	for (int i = 0; i < 50; i++)
		bf_round_trip(ctx, &small);
	int rounds = bf_rounds();
	double floor_s[BF_MAX_ROUNDS], flush_s[BF_MAX_ROUNDS], rt_s[BF_MAX_ROUNDS],
		t[BF_MAX_SAMPLES];
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < 3; k++) {
			switch ((k + r) % 3) {
			case 0:
				floor_s[r] = bf_socket_floor(sv[0], 200);
				break;
			case 1: /* a request the worker's loop thread answers itself */
				for (int i = 0; i < 200; i++) {
					double t0 = test_now();
					MODEL_OK(ctx, webnn_context_flush(ctx), "flush");
					t[i] = test_now() - t0;
				}
				flush_s[r] = test_median(t, 200);
				break;
			default:
				for (int i = 0; i < 200; i++)
					t[i] = bf_round_trip(ctx, &small);
				rt_s[r] = test_median(t, 200);
			}
		}
	}
	close(sv[0]);
	waitpid(echo, NULL, 0);
	bf_graph_close(&small);
	webnn_context_destroy(ctx);
	bf_daemon_stop(&d);
	char q1[64], q2[64];
	test_round_ratio(flush_s, floor_s, rounds, 6, q1, sizeof q1);
	test_round_ratio(rt_s, floor_s, rounds, 6, q2, sizeof q2);
	printf("    round trips, medians of %d rounds of 200 (load average %.2f after), against a "
	       "64-byte ping-pong over a socketpair between two processes (%.3f ms): flush, "
	       "answered by the worker's loop thread, %.3f ms, ratio %s; small dispatch + read "
	       "(loop, pool and compute threads) %.3f ms, ratio %s\n",
	       rounds, test_load_average(), test_median(floor_s, rounds) * 1e3,
	       test_median(flush_s, rounds) * 1e3, q1, test_median(rt_s, rounds) * 1e3, q2);
}
