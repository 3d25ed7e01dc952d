/* make bench, issue 8: dispatch and tensor I/O against a socket echo and memcpy, many clients; their values. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/models.h"
#include "tests/test.h"
#include "webnn.h"

/*
 * Every figure is taken beside its floor: each round measures a backend right next to the
 * socket echo (or memcpy) it is compared with, in an order that alternates from round to round
 * (A B, B A, ...), so that the load of this shared machine drifting hits both alike. Figures
 * are medians over rounds of each round's percentile; ratios the median of per-round ratios,
 * with their range. $WEBNN_BENCH_ROUNDS sets the rounds (default 3). Targets are printed with
 * whether they are met; they never fail the bench (the machine is shared and loaded).
 */
#define BD_MAX_ROUNDS 32
#define BD_ROUNDS 3
#define BD_MSG 32 /* bytes of the echo's messages: dispatch, read and reply frames are 13-34 */
#define BD_LAT_N 3000          /* round trips a block */
#define BD_BIG_BYTES (16u << 20)
#define BD_BIG_N 8             /* 16 MiB write + read pairs (or memcpys) a block */
#define BD_P50_GOAL 2.0        /* 1-op dispatch + read p50 <= 2 x the echo's */
#define BD_P99_GOAL 4.0        /* ... p99 <= 4 x */
#define BD_BW_GOAL 0.8         /* 16 MiB write + read >= 80% of memcpy's bandwidth */
#define BD_MLP 64              /* the many-clients graph: two 64 x 64 layers */
#define BD_CLIENT_S 1.5        /* seconds each many-clients configuration runs, a round */
#define BD_MAX_CLIENTS 64
#define BD_MAX_SAMPLES (1 << 16) /* latencies a client keeps */
#define BD_OTHER_UID 65534
#define BD_UID_BASE 12345
#define BD_MEDIAN_MAX 128     /* repetitions a median is taken over, at most */

static int bd_rounds(void)
{
	const char *e = getenv("WEBNN_BENCH_ROUNDS");
	int n = e && *e ? atoi(e) : BD_ROUNDS;
	return n < 1 ? 1 : n > BD_MAX_ROUNDS ? BD_MAX_ROUNDS : n;
}

/* Deterministic values in [-scale/2, scale/2). */
static void bd_fill(float *p, size_t n, uint32_t seed, float scale)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		p[i] = ((float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f) * scale;
	}
}

/* ------------------------------------------------------------------ daemons and graphs */

/* One daemon of one backend, and maybe a context of this process on it. */
struct bd_backend {
	const char *name; /* --backend */
	char label[96];
	char log[96]; /* the daemon's stderr: kept out of the tables, removed when it stops */
	struct test_daemon d;
	struct webnn_context *ctx;
};

static struct webnn_context *bd_connect(const char *sock, const char *backend)
{
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	struct webnn_context *ctx = NULL;
	char err[512] = "";
	co.socket_path = sock;
	co.client_name = "bench-dispatch";
	enum webnn_status s = webnn_context_create(&co, &ctx, err, sizeof err);
	ASSERT_MSG(s == WEBNN_STATUS_OK, "context on %s: %s: %s", backend, webnn_status_name(s),
		   err);
	struct webnn_context_info info;
	webnn_context_get_info(ctx, &info);
	ASSERT_MSG(info.backend && strcmp(info.backend, backend) == 0,
		   "a daemon started with --backend %s gave a context on %s", backend,
		   info.backend ? info.backend : "(unnamed)");
	return ctx;
}

/* Starts a daemon serving only that backend, and with connect a context of this process on
 * it. Other uids may connect (its directory is searchable, the socket's mode is the daemon's
 * default 0666). */
static void bd_backend_start(struct bd_backend *be, const char *name, bool connect)
{
	/* one worker per client's uid, and the spare */
	const char *args[] = { "--backend", name, "--limit", "max_workers=80", NULL };
	be->name = name;
	be->ctx = NULL;
	snprintf(be->label, sizeof be->label, "%s", name);
	snprintf(be->log, sizeof be->log, "/tmp/webnn-bench-dispatch-%d-%s.log", (int)getpid(),
		 name);
	test_daemon_start_logged(&be->d, NULL, args, be->log);
	ASSERT(chmod(be->d.dir, 0711) == 0);
	if (!connect)
		return;
	be->ctx = bd_connect(be->d.socket_path, name);
	struct webnn_context_info info;
	webnn_context_get_info(be->ctx, &info);
	if (strcmp(name, "opencl") == 0) {
		const char *p = info.platform_name ? info.platform_name : "?";
		snprintf(be->label, sizeof be->label, "opencl (%s %s)",
			 strstr(p, "Portable Computing Language") ? "PoCL" : p,
			 info.device_type ? info.device_type : "?");
	}
}

static void bd_backend_stop(struct bd_backend *be)
{
	webnn_context_destroy(be->ctx);
	be->ctx = NULL;
	test_daemon_stop(&be->d);
	unlink(be->log);
}

/* The backends this machine has: reference, cpu, and opencl when an OpenCL platform (PoCL
 * here) is installed. Returns how many. */
static int bd_backends(const char **names)
{
	int n = 0;
	names[n++] = "reference";
	names[n++] = "cpu";
	if (test_have_opencl())
		names[n++] = "opencl";
	return n;
}

static struct webnn_tensor *bd_tensor(struct webnn_context *ctx, uint32_t n, bool readable,
				      bool writable)
{
	struct webnn_tensor_desc td = { { WEBNN_FLOAT32, 1, { n } }, readable, writable };
	struct webnn_tensor *t = NULL;
	MODEL_OK(ctx, webnn_context_create_tensor(ctx, &td, &t), "createTensor");
	return t;
}

/* A graph with input "x" and output "y" and its tensors. */
struct bd_graph {
	struct webnn_context *ctx;
	struct webnn_graph *g;
	struct webnn_tensor *x, *y;
	uint32_t n_in, n_out; /* floats */
};

/* Builds y of input x (described by xd) into g, with a tensor for each. */
static void bd_graph_finish(struct bd_graph *g, struct webnn_builder *b,
			    const struct webnn_operand_desc *xd, struct webnn_operand *y,
			    const char *what)
{
	struct webnn_named_operand named = { "y", y };
	struct webnn_tensor_desc ti = { *xd, false, true }, to = { *xd, true, false };
	webnn_operand_get_desc(y, &to.desc);
	MODEL_OK(g->ctx, webnn_builder_build(b, &named, 1, &g->g), what);
	webnn_builder_destroy(b);
	MODEL_OK(g->ctx, webnn_context_create_tensor(g->ctx, &ti, &g->x), "createTensor x");
	MODEL_OK(g->ctx, webnn_context_create_tensor(g->ctx, &to, &g->y), "createTensor y");
}

/* The 1-op graph of issue 8: relu on 4 floats. */
static void bd_build_relu(struct webnn_context *ctx, struct bd_graph *g)
{
	struct webnn_builder *b;
	struct webnn_operand *x, *y;
	struct webnn_operand_desc xd = { WEBNN_FLOAT32, 1, { 4 } };
	*g = (struct bd_graph){ .ctx = ctx, .n_in = 4, .n_out = 4 };
	MODEL_OK(ctx, webnn_builder_create(ctx, &b), "builder");
	MODEL_OK(ctx, webnn_builder_input(b, "x", &xd, &x), "input");
	MODEL_OK(ctx, webnn_builder_relu(b, x, &y), "relu");
	bd_graph_finish(g, b, &xd, y, "relu graph");
}

/* The many-clients graph: y = relu(x W1 + b1) W2 + b2 on x [1, 64], weights of seed 1..4. */
static void bd_mlp_weights(float *w1, float *b1, float *w2, float *b2)
{
	float s = 2.0f / sqrtf((float)BD_MLP); /* activations keep their magnitude */
	bd_fill(w1, BD_MLP * BD_MLP, 1, s);
	bd_fill(b1, BD_MLP, 2, 1);
	bd_fill(w2, BD_MLP * BD_MLP, 3, s);
	bd_fill(b2, BD_MLP, 4, 1);
}

static void bd_build_mlp(struct webnn_context *ctx, struct bd_graph *g)
{
	static float w1[BD_MLP * BD_MLP], b1[BD_MLP], w2[BD_MLP * BD_MLP], b2[BD_MLP];
	struct webnn_builder *b;
	struct webnn_operand *x, *cw1, *cb1, *cw2, *cb2, *y;
	struct webnn_operand_desc xd = { WEBNN_FLOAT32, 2, { 1, BD_MLP } },
				  wd = { WEBNN_FLOAT32, 2, { BD_MLP, BD_MLP } };
	*g = (struct bd_graph){ .ctx = ctx, .n_in = BD_MLP, .n_out = BD_MLP };
	bd_mlp_weights(w1, b1, w2, b2);
	MODEL_OK(ctx, webnn_builder_create(ctx, &b), "builder");
	MODEL_OK(ctx, webnn_builder_input(b, "x", &xd, &x), "input");
	MODEL_OK(ctx, webnn_builder_constant(b, &wd, w1, sizeof w1, &cw1), "W1");
	MODEL_OK(ctx, webnn_builder_constant(b, &xd, b1, sizeof b1, &cb1), "b1");
	MODEL_OK(ctx, webnn_builder_constant(b, &wd, w2, sizeof w2, &cw2), "W2");
	MODEL_OK(ctx, webnn_builder_constant(b, &xd, b2, sizeof b2, &cb2), "b2");
	MODEL_OK(ctx, webnn_builder_matmul(b, x, cw1, &y), "matmul 1");
	MODEL_OK(ctx, webnn_builder_add(b, y, cb1, &y), "add 1");
	MODEL_OK(ctx, webnn_builder_relu(b, y, &y), "relu");
	MODEL_OK(ctx, webnn_builder_matmul(b, y, cw2, &y), "matmul 2");
	MODEL_OK(ctx, webnn_builder_add(b, y, cb2, &y), "add 2");
	bd_graph_finish(g, b, &xd, y, "MLP graph");
}

/* What the MLP computes, in double, for checking what the daemon returns. */
static void bd_mlp_expect(const float *x, float *y)
{
	static float w1[BD_MLP * BD_MLP], b1[BD_MLP], w2[BD_MLP * BD_MLP], b2[BD_MLP];
	double h[BD_MLP];
	bd_mlp_weights(w1, b1, w2, b2);
	for (int j = 0; j < BD_MLP; j++) {
		double s = b1[j];
		for (int k = 0; k < BD_MLP; k++)
			s += (double)x[k] * w1[k * BD_MLP + j];
		h[j] = s > 0 ? s : 0;
	}
	for (int j = 0; j < BD_MLP; j++) {
		double s = b2[j];
		for (int k = 0; k < BD_MLP; k++)
			s += h[k] * w2[k * BD_MLP + j];
		y[j] = (float)s;
	}
}

/* The first index where got is not within float rounding of want; -1 when none. */
static int bd_mismatch(const float *got, const float *want, int n)
{
	for (int i = 0; i < n; i++)
		if (!(fabsf(got[i] - want[i]) <= 1e-4f * (1 + fabsf(want[i]))))
			return i;
	return -1;
}

static void bd_graph_close(struct bd_graph *g)
{
	webnn_tensor_destroy(g->x);
	webnn_tensor_destroy(g->y);
	webnn_graph_destroy(g->g);
	memset(g, 0, sizeof *g);
}

/* dispatch(x -> y), then readTensor(y) into out. */
static void bd_dispatch_read(struct bd_graph *g, float *out)
{
	struct webnn_named_tensor in = { "x", g->x }, o = { "y", g->y };
	MODEL_OK(g->ctx, webnn_context_dispatch(g->ctx, g->g, &in, 1, &o, 1), "dispatch");
	MODEL_OK(g->ctx, webnn_context_read_tensor(g->ctx, g->y, out, g->n_out * sizeof(float)),
		 "readTensor");
}

static void bd_write(struct webnn_context *ctx, struct webnn_tensor *t, const void *p, size_t n)
{
	MODEL_OK(ctx, webnn_context_write_tensor(ctx, t, p, n), "writeTensor");
}

/* ------------------------------------------------------------------ the floors */

static bool bd_read_full(int fd, char *p, size_t n)
{
	while (n > 0) {
		ssize_t r = read(fd, p, n);
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

static bool bd_write_full(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t r = write(fd, p, n);
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

/* A forked process answering every `per_reply` messages of BD_MSG bytes with one such message,
 * by blocking reads and writes on a Unix socket: what any request to another process costs. */
struct bd_echo {
	pid_t pid;
	int fd;
	int per_reply;
};

static void bd_echo_start(struct bd_echo *e, int per_reply)
{
	int sv[2];
	ASSERT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		char buf[BD_MSG];
		close(sv[0]);
		for (;;) {
			for (int i = 0; i < per_reply; i++)
				if (!bd_read_full(sv[1], buf, sizeof buf))
					_exit(0);
			if (!bd_write_full(sv[1], buf, sizeof buf))
				_exit(0);
		}
	}
	close(sv[1]);
	*e = (struct bd_echo){ .pid = pid, .fd = sv[0], .per_reply = per_reply };
}

static void bd_echo_stop(struct bd_echo *e)
{
	close(e->fd);
	/* another echo forked later holds this one's socket too: end it by its pid */
	kill(e->pid, SIGKILL);
	waitpid(e->pid, NULL, 0);
}

/* n round trips (per_reply messages out, one back) into t, seconds. */
static void bd_echo_block(struct bd_echo *e, double *t, int n)
{
	char buf[BD_MSG];
	memset(buf, 0x5a, sizeof buf);
	for (int i = 0; i < n; i++) {
		double t0 = test_now();
		for (int k = 0; k < e->per_reply; k++)
			ASSERT(bd_write_full(e->fd, buf, sizeof buf));
		ASSERT(bd_read_full(e->fd, buf, sizeof buf));
		t[i] = test_now() - t0;
	}
}

/* Through a volatile pointer so that the compiler keeps every copy. */
static void *(*volatile bd_memcpy)(void *, const void *, size_t) = memcpy;

/* Median seconds of one memcpy of n bytes, over reps. */
static double bd_memcpy_time(void *dst, const void *src, size_t n, int reps)
{
	double t[BD_MEDIAN_MAX];
	reps = reps < BD_MEDIAN_MAX ? reps : BD_MEDIAN_MAX;
	for (int i = 0; i < reps; i++) {
		double t0 = test_now();
		bd_memcpy(dst, src, n);
		t[i] = test_now() - t0;
	}
	return test_median(t, reps);
}

/* ------------------------------------------------------------------ 1-op latency, 16 MiB */

struct bd_lat {
	double p50[BD_MAX_ROUNDS], p99[BD_MAX_ROUNDS];
};

/* Per backend: its 1-op figures and the echo measured next to them; 16 MiB figures and the
 * memcpy measured next to them (bytes a second). */
struct bd_side {
	struct bd_backend be;
	struct bd_graph relu;
	struct webnn_tensor *big;
	struct bd_lat op, echo;
	double big_s[BD_MAX_ROUNDS], big_bw[BD_MAX_ROUNDS], copy_bw[BD_MAX_ROUNDS];
};

static const float bd_relu_in[4] = { -1.5f, 2.0f, -0.0f, 4.25f },
		   bd_relu_out[4] = { 0.0f, 2.0f, 0.0f, 4.25f };

static void bd_lat_block(struct bd_side *s, double *t, int n)
{
	float out[4];
	for (int i = 0; i < n; i++) {
		double t0 = test_now();
		bd_dispatch_read(&s->relu, out);
		t[i] = test_now() - t0;
	}
	/* every dispatch read the same input: the last output and no deferred error vouch for
	 * all of them */
	MODEL_OK(s->be.ctx, webnn_context_flush(s->be.ctx), "flush");
	ASSERT_MSG(bd_mismatch(out, bd_relu_out, 4) < 0, /* relu(-0) may be -0 */
		   "%s: relu returned %g %g %g %g", s->be.label, out[0], out[1], out[2], out[3]);
}

static void bd_lat_record(struct bd_lat *l, int r, double *t, int n)
{
	l->p50[r] = test_quantile(t, n, 0.5);
	l->p99[r] = test_quantile(t, n, 0.99);
}

/* BD_BIG_N write + read pairs of the 16 MiB tensor; median seconds of one pair. Each write
 * carries a different first word, checked in what comes back; the whole once a block. */
static double bd_big_block(struct bd_side *s, uint32_t *src, uint32_t *dst, uint32_t serial)
{
	double t[BD_BIG_N];
	for (int i = 0; i < BD_BIG_N; i++) {
		src[0] = serial * BD_BIG_N + (uint32_t)i;
		dst[0] = ~src[0];
		double t0 = test_now();
		bd_write(s->be.ctx, s->big, src, BD_BIG_BYTES);
		MODEL_OK(s->be.ctx,
			 webnn_context_read_tensor(s->be.ctx, s->big, dst, BD_BIG_BYTES),
			 "readTensor 16 MiB");
		t[i] = test_now() - t0;
		ASSERT_MSG(dst[0] == src[0], "%s: read back word 0 = %u, wrote %u", s->be.label,
			   dst[0], src[0]);
	}
	ASSERT_MSG(memcmp(src, dst, BD_BIG_BYTES) == 0, "%s: 16 MiB read back differs",
		   s->be.label);
	return test_median(t, BD_BIG_N);
}

TEST_TIMEOUT(bench_dispatch_floor, 600)
{
	static struct bd_side side[3];
	const char *names[3];
	int n_sides = bd_backends(names);
	int rounds = bd_rounds();
	struct bd_echo echo1, echo2;
	bd_echo_start(&echo1, 1);
	bd_echo_start(&echo2, 2);
	uint32_t *src = malloc(BD_BIG_BYTES), *dst = malloc(BD_BIG_BYTES),
		 *cpy = malloc(BD_BIG_BYTES);
	ASSERT(src && dst && cpy);
	bd_fill((float *)src, BD_BIG_BYTES / 4, 77, 100);
	memset(dst, 0, BD_BIG_BYTES);
	memset(cpy, 0, BD_BIG_BYTES);
	double *t = malloc(sizeof(double) * BD_LAT_N);
	ASSERT(t);
	for (int i = 0; i < n_sides; i++) {
		struct bd_side *s = &side[i];
		bd_backend_start(&s->be, names[i], true);
		bd_build_relu(s->be.ctx, &s->relu);
		bd_write(s->be.ctx, s->relu.x, bd_relu_in, sizeof bd_relu_in);
		s->big = bd_tensor(s->be.ctx, BD_BIG_BYTES / 4, true, true);
		/* warm: kernels built, pools and arenas grown, pages touched */
		bd_lat_block(s, t, 200);
		bd_big_block(s, src, dst, 0);
	}
	struct bd_lat e2 = { 0 };
	double copy64[BD_MAX_ROUNDS];
	double t0 = test_now(), load0 = test_load_average();
	for (int r = 0; r < rounds; r++) {
		/* the 2 + 1 echo and memcpy of 64 bytes once a round, for reference */
		bd_echo_block(&echo2, t, BD_LAT_N);
		bd_lat_record(&e2, r, t, BD_LAT_N);
		char a[BD_MSG], b[BD_MSG] = { 0 };
		memset(a, 1, sizeof a);
		double c0 = test_now();
		for (int i = 0; i < BD_LAT_N; i++)
			bd_memcpy(i % 2 ? a : b, i % 2 ? b : a, BD_MSG);
		copy64[r] = (test_now() - c0) / BD_LAT_N;
		for (int k = 0; k < n_sides; k++) {
			struct bd_side *s = &side[(k + r) % n_sides];
			for (int ab = 0; ab < 2; ab++) {
				if ((ab + r) % 2 == 0) {
					bd_echo_block(&echo1, t, BD_LAT_N);
					bd_lat_record(&s->echo, r, t, BD_LAT_N);
				} else {
					bd_lat_block(s, t, BD_LAT_N);
					bd_lat_record(&s->op, r, t, BD_LAT_N);
				}
			}
			for (int ab = 0; ab < 2; ab++) {
				if ((ab + r) % 2 == 0) {
					double c = bd_memcpy_time(cpy, src, BD_BIG_BYTES, BD_BIG_N);
					s->copy_bw[r] = BD_BIG_BYTES / c;
				} else {
					s->big_s[r] = bd_big_block(s, src, dst, (uint32_t)r + 1);
					s->big_bw[r] = 2.0 * BD_BIG_BYTES / s->big_s[r];
				}
			}
		}
	}
	double elapsed = test_now() - t0, load1 = test_load_average();
	/* the echo's figures over all its blocks */
	double all50[BD_MEDIAN_MAX], all99[BD_MEDIAN_MAX], allbw[BD_MEDIAN_MAX];
	int m = 0;
	for (int i = 0; i < n_sides; i++)
		for (int r = 0; r < rounds && m < BD_MEDIAN_MAX; r++, m++) {
			all50[m] = side[i].echo.p50[r];
			all99[m] = side[i].echo.p99[r];
			allbw[m] = side[i].copy_bw[r];
		}
	printf("\n  dispatch against the socket floor: %d rounds (%.1f s), load average %.2f "
	       "before, %.2f after; medians over rounds, ratios: median [min..max] of per-round "
	       "ratios to the floor measured next to it\n",
	       rounds, elapsed, load0, load1);
	printf("    floor: Unix-socket echo of %d B to a forked process (blocking read/write) p50 "
	       "%.1f us p99 %.1f us; 2 messages out + 1 back (as dispatch + read) p50 %.1f us "
	       "p99 %.1f us; memcpy %d B %.3f us, 16 MiB %.2f GB/s\n",
	       BD_MSG, test_median(all50, m) * 1e6, test_median(all99, m) * 1e6,
	       test_median(e2.p50, rounds) * 1e6, test_median(e2.p99, rounds) * 1e6, BD_MSG,
	       test_median(copy64, rounds) * 1e6, test_median(allbw, m) / 1e9);
	printf("    1-op dispatch + readTensor (relu on 4 floats), %d a round:\n", BD_LAT_N);
	printf("      %-22s %8s %8s  %-30s %-30s %s\n", "backend", "p50 us", "p99 us",
	       "p50/echo (goal <= 2)", "p99/echo (goal <= 4)", "p50/(2+1 echo)");
	for (int i = 0; i < n_sides; i++) {
		struct bd_side *s = &side[i];
		char q50[64], q99[64], q2[64];
		double m50 = test_round_ratio(s->op.p50, s->echo.p50, rounds, 5, q50, sizeof q50);
		double m99 = test_round_ratio(s->op.p99, s->echo.p99, rounds, 5, q99, sizeof q99);
		test_round_ratio(s->op.p50, e2.p50, rounds, 5, q2, sizeof q2);
		printf("      %-22s %8.1f %8.1f  %-22s %-7s %-22s %-7s %s\n", s->be.label,
		       test_median(s->op.p50, rounds) * 1e6, test_median(s->op.p99, rounds) * 1e6, q50,
		       m50 <= BD_P50_GOAL ? "met" : "NOT MET", q99,
		       m99 <= BD_P99_GOAL ? "met" : "NOT MET", q2);
	}
	printf("    16 MiB writeTensor + readTensor, %d a round (bandwidth: 2 x 16 MiB over the "
	       "time of both) against memcpy of 16 MiB:\n",
	       BD_BIG_N);
	printf("      %-22s %8s %8s %12s  %s\n", "backend", "ms", "GB/s", "memcpy GB/s",
	       "ratio (goal >= 0.80)");
	for (int i = 0; i < n_sides; i++) {
		struct bd_side *s = &side[i];
		char q[64];
		double mq = test_round_ratio(s->big_bw, s->copy_bw, rounds, 5, q, sizeof q);
		printf("      %-22s %8.2f %8.2f %12.2f  %s %s\n", s->be.label,
		       test_median(s->big_s, rounds) * 1e3, test_median(s->big_bw, rounds) / 1e9,
		       test_median(s->copy_bw, rounds) / 1e9, q,
		       mq >= BD_BW_GOAL ? "met" : "NOT MET");
	}
	for (int i = 0; i < n_sides; i++) {
		webnn_tensor_destroy(side[i].big);
		bd_graph_close(&side[i].relu);
		bd_backend_stop(&side[i].be);
	}
	bd_echo_stop(&echo1);
	bd_echo_stop(&echo2);
	free(t);
	free(src);
	free(dst);
	free(cpy);
}

/* ------------------------------------------------------------------ many clients */

/* Client k's uid: all root, or each its own (65534 first, then BD_UID_BASE + k), so that each
 * has its own device worker. */
static uid_t bd_client_uid(int k, bool own_uids)
{
	return !own_uids ? 0 : k == 0 ? BD_OTHER_UID : (uid_t)(BD_UID_BASE + k);
}

static void bd_become(uid_t uid)
{
	if (uid != 0)
		ASSERT_MSG(setgroups(0, NULL) == 0 && setgid(uid) == 0 && setuid(uid) == 0,
			   "cannot become uid %u: %s", (unsigned)uid, strerror(errno));
}

/* Two inputs of the MLP and what it gives for them. */
struct bd_mlp_io {
	float x[2][BD_MLP], y[2][BD_MLP];
};

static void bd_mlp_io(struct bd_mlp_io *io)
{
	for (int i = 0; i < 2; i++) {
		bd_fill(io->x[i], BD_MLP, 10 + (uint32_t)i, 2);
		bd_mlp_expect(io->x[i], io->y[i]);
	}
}

/* One frame of an interactive client: writeTensor(x), dispatch, readTensor(y), checked. */
static void bd_mlp_step(struct bd_graph *g, const struct bd_mlp_io *io, int i, const char *who)
{
	float out[BD_MLP];
	bd_write(g->ctx, g->x, io->x[i % 2], sizeof io->x[0]);
	bd_dispatch_read(g, out);
	int bad = bd_mismatch(out, io->y[i % 2], BD_MLP);
	ASSERT_MSG(bad < 0, "%s: MLP output %d is %g, not %g", who, bad, bad < 0 ? 0 : out[bad],
		   bad < 0 ? 0 : io->y[i % 2][bad]);
}

/* A client process: connects as uid, builds the MLP, says "ready", waits for go_fd to close,
 * then runs frames for BD_CLIENT_S and says "done <frames> <seconds they took> <p50 s>
 * <p99 s>" (the last frame ends past BD_CLIENT_S: by a lot where frames take long). */
static void bd_client_main(const char *sock, uid_t uid, int go_fd, int up_fd)
{
	char who[64], line[128];
	snprintf(who, sizeof who, "client of uid %u", (unsigned)uid);
	bd_become(uid);
	struct webnn_context *ctx = bd_connect(sock, "cpu");
	struct bd_graph g;
	struct bd_mlp_io io;
	bd_mlp_io(&io);
	bd_build_mlp(ctx, &g);
	for (int i = 0; i < 2; i++) /* the first builds the backend's kernels */
		bd_mlp_step(&g, &io, i, who);
	double *t = malloc(sizeof(double) * BD_MAX_SAMPLES);
	ASSERT(t);
	ASSERT(write(up_fd, "ready\n", 6) == 6);
	char c;
	ASSERT(read(go_fd, &c, 1) == 0);
	long n = 0;
	double start = test_now(), end = start + BD_CLIENT_S, now = start;
	for (; now < end; n++) {
		double t0 = now;
		bd_mlp_step(&g, &io, (int)n, who);
		now = test_now();
		if (n < BD_MAX_SAMPLES)
			t[n] = now - t0;
	}
	MODEL_OK(ctx, webnn_context_flush(ctx), "flush");
	int kept = n < BD_MAX_SAMPLES ? (int)n : BD_MAX_SAMPLES;
	double p50 = test_quantile(t, kept, 0.5), p99 = test_quantile(t, kept, 0.99);
	int len = snprintf(line, sizeof line, "done %ld %.6f %.9f %.9f\n", n, now - start, p50,
			   p99);
	ASSERT(write(up_fd, line, (size_t)len) == len);
	free(t);
	bd_graph_close(&g);
	webnn_context_destroy(ctx);
	_exit(0);
}

static const struct bd_config {
	int clients;
	bool own_uids;
} bd_configs[] = { { 1, false }, { 4, false }, { 16, false }, { 64, false },
		   { 1, true },  { 4, true },  { 16, true },  { 64, true } };
#define BD_CONFIGS (int)(sizeof bd_configs / sizeof bd_configs[0])

struct bd_clients_result {
	/* a round each: frames a second of all clients together; per-client p50 and p99, median
	 * over clients and the worst client's; the slowest client's frames a second / the
	 * fastest's */
	double rate[BD_MAX_ROUNDS], p50[BD_MAX_ROUNDS], p99[BD_MAX_ROUNDS],
		p99_worst[BD_MAX_ROUNDS], fair[BD_MAX_ROUNDS];
};

/* The clients of one round: their pids, uids, and those already waited for. */
struct bd_crowd {
	int n;
	pid_t pid[BD_MAX_CLIENTS];
	uid_t uid[BD_MAX_CLIENTS];
	bool reaped[BD_MAX_CLIENTS];
	int fd; /* the lines they write */
};

/* Fails the bench when a client has ended unsuccessfully (the others would wait for the go, and
 * this process for their lines, forever). */
static void bd_crowd_check(struct bd_crowd *c)
{
	for (int k = 0; k < c->n; k++) {
		int st;
		if (c->reaped[k] || waitpid(c->pid[k], &st, WNOHANG) != c->pid[k])
			continue;
		c->reaped[k] = true;
		ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			   "client %d of %d (uid %u) failed (status %d; its error above)", k, c->n,
			   (unsigned)c->uid[k], st);
	}
}

/* Reads one line of each client (lines are shorter than PIPE_BUF, so they arrive whole),
 * stopping at the first that says more than want. */
static void bd_crowd_lines(struct bd_crowd *c, char (*lines)[128], const char *want)
{
	char buf[BD_MAX_CLIENTS * 128];
	size_t len = 0;
	int got = 0;
	while (got < c->n) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		if (poll(&p, 1, 200) == 0) {
			bd_crowd_check(c);
			continue;
		}
		ssize_t r = read(c->fd, buf + len, sizeof buf - len - 1);
		ASSERT_MSG(r > 0, "the clients' pipe closed with %d of %d lines \"%s...\"", got,
			   c->n, want);
		len += (size_t)r;
		buf[len] = '\0';
		char *nl;
		while (got < c->n && (nl = strchr(buf, '\n'))) {
			*nl = '\0';
			ASSERT_MSG(strncmp(buf, want, strlen(want)) == 0 && nl - buf < 128,
				   "a client said \"%s\", not \"%s...\"", buf, want);
			memcpy(lines[got++], buf, (size_t)(nl - buf) + 1);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len + 1);
		}
	}
	ASSERT_MSG(len == 0, "a client said more than one line: \"%s\"", buf);
}

static void bd_clients_round(const char *sock, const struct bd_config *cfg,
			     struct bd_clients_result *res, int r)
{
	static char lines[BD_MAX_CLIENTS][128];
	struct bd_crowd c = { .n = cfg->clients };
	int go[2], up[2];
	ASSERT(pipe2(go, O_CLOEXEC) == 0 && pipe2(up, O_CLOEXEC) == 0);
	fflush(stdout);
	fflush(stderr);
	for (int k = 0; k < c.n; k++) {
		c.uid[k] = bd_client_uid(k, cfg->own_uids);
		c.pid[k] = fork();
		ASSERT(c.pid[k] >= 0);
		if (c.pid[k] == 0) {
			close(go[1]);
			close(up[0]);
			bd_client_main(sock, c.uid[k], go[0], up[1]);
		}
	}
	close(go[0]);
	close(up[1]);
	c.fd = up[0];
	bd_crowd_lines(&c, lines, "ready");
	close(go[1]); /* go: every client sees the end of the pipe at once */
	double p50[BD_MAX_CLIENTS], p99[BD_MAX_CLIENTS], rate[BD_MAX_CLIENTS], total = 0;
	bd_crowd_lines(&c, lines, "done ");
	for (int k = 0; k < c.n; k++) {
		long n;
		double secs;
		ASSERT(sscanf(lines[k], "done %ld %lf %lf %lf", &n, &secs, &p50[k], &p99[k]) == 4);
		rate[k] = (double)n / secs;
		total += rate[k];
	}
	close(up[0]);
	for (int k = 0; k < c.n; k++) {
		int st;
		if (c.reaped[k])
			continue;
		ASSERT(waitpid(c.pid[k], &st, 0) == c.pid[k]);
		ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "client %d: exit status %d", k,
			   st);
	}
	res->rate[r] = total;
	res->p50[r] = test_median(p50, c.n);
	res->p99[r] = test_median(p99, c.n);
	res->p99_worst[r] = test_quantile(p99, c.n, 1.0);
	qsort(rate, (size_t)c.n, sizeof(double), test_cmp_double);
	res->fair[r] = rate[0] / rate[c.n - 1];
}

TEST_TIMEOUT(bench_dispatch_clients, 600)
{
	if (geteuid() != 0)
		SKIP("clients of other uids need root (setuid)");
	static struct bd_clients_result res[BD_CONFIGS];
	struct bd_backend be;
	bd_backend_start(&be, "cpu", false);
	int rounds = bd_rounds();
	double t0 = test_now(), load0 = test_load_average();
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < BD_CONFIGS; k++) {
			int c = (k + r) % BD_CONFIGS;
			bd_clients_round(be.d.socket_path, &bd_configs[c], &res[c], r);
		}
	double elapsed = test_now() - t0, load1 = test_load_average();
	bd_backend_stop(&be);
	/* the workers inherit it: with several workers busy, OpenMP's spinning teams decide */
	const char *wait = getenv("OMP_WAIT_POLICY");
	printf("\n  many clients on the cpu backend: each a process with its own connection and "
	       "context looping writeTensor + dispatch + readTensor of a 2-layer MLP (1x%d, "
	       "%dx%d weights) for %.1f s; %d rounds (%.1f s with start-ups), load average "
	       "%.2f before, %.2f after, %ld cores, OMP_WAIT_POLICY %s; medians over rounds\n",
	       BD_MLP, BD_MLP, BD_MLP, BD_CLIENT_S, rounds, elapsed, load0, load1,
	       sysconf(_SC_NPROCESSORS_ONLN), wait && *wait ? wait : "unset");
	printf("    %7s  %-24s %10s  %-22s %10s %10s %12s %16s\n", "clients", "uids", "dispatch/s",
	       "x 1 client", "p50 us", "p99 us", "worst p99 us", "slowest/fastest");
	for (int c = 0; c < BD_CONFIGS; c++) {
		const struct bd_config *cfg = &bd_configs[c];
		const struct bd_clients_result *o = &res[c];
		int one = cfg->own_uids ? 4 : 0; /* the 1-client row of the same kind */
		char q[64], uids[32];
		test_round_ratio(o->rate, res[one].rate, rounds, 5, q, sizeof q);
		if (!cfg->own_uids)
			snprintf(uids, sizeof uids, "0 (one worker)");
		else if (cfg->clients == 1)
			snprintf(uids, sizeof uids, "%u", BD_OTHER_UID);
		else
			snprintf(uids, sizeof uids, "%u, %u..%u", BD_OTHER_UID, BD_UID_BASE + 1,
				 BD_UID_BASE + cfg->clients - 1);
		printf("    %7d  %-24s %10.0f  %-22s %10.1f %10.1f %12.1f %16.2f\n", cfg->clients,
		       uids, test_median(o->rate, rounds), q, test_median(o->p50, rounds) * 1e6,
		       test_median(o->p99, rounds) * 1e6, test_median(o->p99_worst, rounds) * 1e6,
		       test_median(o->fair, rounds));
	}
}

/* ------------------------------------------------------------------ the paths measured */

/* The calls the benches above time, checked for their values on one context: relu on inputs
 * that change every time, the 16 MiB write + read with two patterns, the MLP frames. */
static void bd_check_paths(const char *sock, const char *backend, uid_t uid)
{
	char who[96];
	snprintf(who, sizeof who, "%s backend, uid %u", backend, (unsigned)uid);
	bd_become(uid);
	struct webnn_context *ctx = bd_connect(sock, backend);
	struct bd_graph g;
	bd_build_relu(ctx, &g);
	for (int i = 0; i < 16; i++) {
		float x[4], y[4], want[4];
		bd_fill(x, 4, 100 + (uint32_t)i, 8);
		x[i % 4] = -fabsf(x[i % 4]) - 0.25f; /* one negative, one positive at least */
		x[(i + 1) % 4] = fabsf(x[(i + 1) % 4]) + 0.25f;
		for (int k = 0; k < 4; k++)
			want[k] = x[k] > 0 ? x[k] : 0;
		bd_write(ctx, g.x, x, sizeof x);
		bd_dispatch_read(&g, y);
		ASSERT_MSG(bd_mismatch(y, want, 4) < 0,
			   "%s: relu(%g %g %g %g) gave %g %g %g %g", who, x[0], x[1], x[2], x[3],
			   y[0], y[1], y[2], y[3]);
	}
	bd_graph_close(&g);

	uint32_t *src = malloc(BD_BIG_BYTES), *dst = malloc(BD_BIG_BYTES);
	ASSERT(src && dst);
	struct webnn_tensor *big = bd_tensor(ctx, BD_BIG_BYTES / 4, true, true);
	for (uint32_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < BD_BIG_BYTES / 4; i++)
			src[i] = (uint32_t)i * 2654435761u + pass;
		memset(dst, 0, BD_BIG_BYTES);
		bd_write(ctx, big, src, BD_BIG_BYTES);
		MODEL_OK(ctx, webnn_context_read_tensor(ctx, big, dst, BD_BIG_BYTES),
			 "readTensor 16 MiB");
		ASSERT_MSG(memcmp(src, dst, BD_BIG_BYTES) == 0,
			   "%s: the 16 MiB tensor read back differs from what was written "
			   "(pass %u)",
			   who, pass);
	}
	webnn_tensor_destroy(big);
	free(src);
	free(dst);

	struct bd_mlp_io io;
	bd_mlp_io(&io);
	ASSERT(bd_mismatch(io.y[0], io.y[1], BD_MLP) >= 0); /* the two frames differ */
	bd_build_mlp(ctx, &g);
	for (int i = 0; i < 6; i++)
		bd_mlp_step(&g, &io, i, who);
	bd_graph_close(&g);
	MODEL_OK(ctx, webnn_context_flush(ctx), "flush");
	webnn_context_destroy(ctx);
}

/* Runs bd_check_paths in a child process of that uid (this process keeps no context, so that
 * the children start from a clean library). */
static void bd_check_as(const char *sock, const char *backend, uid_t uid)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		bd_check_paths(sock, backend, uid);
		_exit(0);
	}
	int st;
	ASSERT(waitpid(pid, &st, 0) == pid);
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "the %s backend's paths as uid %u: failed (status %d, its error above)",
		   backend, (unsigned)uid, st);
}

TEST_TIMEOUT(dispatch_paths_values, 300)
{
	const char *names[3];
	int n = bd_backends(names);
	for (int i = 0; i < n; i++) {
		struct bd_backend be;
		bd_backend_start(&be, names[i], false);
		bd_check_as(be.d.socket_path, names[i], 0);
		/* the many-clients bench's clients of other uids go to workers of their own */
		if (geteuid() == 0 && strcmp(names[i], "cpu") == 0)
			bd_check_as(be.d.socket_path, names[i], BD_OTHER_UID);
		bd_backend_stop(&be);
	}
}
