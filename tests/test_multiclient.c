/* Several client processes on one webnnd at once; a client killed mid-way disturbs no one. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/test.h"
#include "webnn.h"

#define MC_N 4096   /* elements of the elementwise graph */
#define MC_M 8      /* matmul rows */
#define MC_K 64
#define MC_COLS 16

enum mc_kind { MC_ELEMENTWISE, MC_MATMUL };

struct mc_client {
	struct webnn_context *ctx;
	struct webnn_graph *g;
	struct webnn_tensor *in[2], *out;
	enum mc_kind kind;
	float w[MC_K * MC_COLS]; /* the matmul constant */
};

#define MC_OK(c, s, what)                                                                      \
	ASSERT_MSG((s) == WEBNN_STATUS_OK, "%s: %s: %s", what, webnn_status_name(s),           \
		   webnn_context_last_error((c)->ctx))

static void mc_write_byte(int fd, char b)
{
	ssize_t r;
	do
		r = write(fd, &b, 1);
	while (r < 0 && errno == EINTR);
	ASSERT_MSG(r == 1, "status pipe: %s", strerror(errno));
}

/* elementwise: out = x * y + x over [MC_N]; matmul: out = relu(a x W), W a constant. */
static void mc_setup(struct mc_client *c, const char *socket, enum mc_kind kind)
{
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	char err[512] = "";
	co.socket_path = socket;
	co.client_name = kind == MC_ELEMENTWISE ? "mc-elementwise" : "mc-matmul";
	enum webnn_status s = webnn_context_create(&co, &c->ctx, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "context: %s: %s", webnn_status_name(s), err);
	c->kind = kind;
	struct webnn_builder *b;
	struct webnn_operand *x, *y, *t;
	MC_OK(c, webnn_builder_create(c->ctx, &b), "builder");
	struct webnn_tensor_desc in0 = { .writable = true }, in1 = { .writable = true };
	struct webnn_tensor_desc out = { .readable = true };
	if (kind == MC_ELEMENTWISE) {
		struct webnn_operand_desc d = { WEBNN_FLOAT32, 1, { MC_N } };
		MC_OK(c, webnn_builder_input(b, "x", &d, &x), "input x");
		MC_OK(c, webnn_builder_input(b, "y", &d, &y), "input y");
		MC_OK(c, webnn_builder_mul(b, x, y, &t), "mul");
		MC_OK(c, webnn_builder_add(b, t, x, &t), "add");
		in0.desc = in1.desc = out.desc = d;
	} else {
		struct webnn_operand_desc da = { WEBNN_FLOAT32, 2, { MC_M, MC_K } };
		struct webnn_operand_desc dw = { WEBNN_FLOAT32, 2, { MC_K, MC_COLS } };
		struct webnn_operand_desc dout = { WEBNN_FLOAT32, 2, { MC_M, MC_COLS } };
		for (int i = 0; i < MC_K * MC_COLS; i++)
			c->w[i] = (float)((i * 37) % 23 - 11) / 16.0f;
		MC_OK(c, webnn_builder_input(b, "a", &da, &x), "input a");
		MC_OK(c, webnn_builder_constant(b, &dw, c->w, sizeof(c->w), &y), "constant w");
		MC_OK(c, webnn_builder_matmul(b, x, y, &t), "matmul");
		MC_OK(c, webnn_builder_relu(b, t, &t), "relu");
		in0.desc = da;
		out.desc = dout;
	}
	struct webnn_named_operand named = { "out", t };
	MC_OK(c, webnn_builder_build(b, &named, 1, &c->g), "build");
	webnn_builder_destroy(b);
	MC_OK(c, webnn_context_create_tensor(c->ctx, &in0, &c->in[0]), "tensor");
	if (kind == MC_ELEMENTWISE)
		MC_OK(c, webnn_context_create_tensor(c->ctx, &in1, &c->in[1]), "tensor");
	MC_OK(c, webnn_context_create_tensor(c->ctx, &out, &c->out), "tensor");
}

/* One write/dispatch/read round with inputs that depend on iter, checked against C math. */
static void mc_iteration(struct mc_client *c, int iter, int extra_dispatches)
{
	static float x[MC_N], y[MC_N], res[MC_N];
	struct webnn_named_tensor out = { "out", c->out };
	if (c->kind == MC_ELEMENTWISE) {
		for (int i = 0; i < MC_N; i++) {
			x[i] = (float)((i % 97) - 48) * 0.25f + (float)iter;
			y[i] = (float)((i % 13) - 6) * 0.5f - (float)iter * 0.125f;
		}
		struct webnn_named_tensor in[2] = { { "x", c->in[0] }, { "y", c->in[1] } };
		MC_OK(c, webnn_context_write_tensor(c->ctx, c->in[0], x, sizeof(x)), "write x");
		MC_OK(c, webnn_context_write_tensor(c->ctx, c->in[1], y, sizeof(y)), "write y");
		for (int k = 0; k <= extra_dispatches; k++)
			MC_OK(c, webnn_context_dispatch(c->ctx, c->g, in, 2, &out, 1), "dispatch");
		MC_OK(c, webnn_context_read_tensor(c->ctx, c->out, res, sizeof(res)), "read");
		for (int i = 0; i < MC_N; i++) {
			double e = (double)x[i] * y[i] + x[i];
			ASSERT_MSG(fabs(res[i] - e) <= 1e-5 * fabs(e) + 1e-5,
				   "elementwise iteration %d: out[%d] = %g, expected %g", iter, i,
				   res[i], e);
		}
	} else {
		for (int i = 0; i < MC_M * MC_K; i++)
			x[i] = (float)(((i + iter * 7) % 29) - 14) / 8.0f;
		struct webnn_named_tensor in = { "a", c->in[0] };
		MC_OK(c, webnn_context_write_tensor(c->ctx, c->in[0], x, MC_M * MC_K * sizeof(float)),
		      "write a");
		for (int k = 0; k <= extra_dispatches; k++)
			MC_OK(c, webnn_context_dispatch(c->ctx, c->g, &in, 1, &out, 1), "dispatch");
		MC_OK(c, webnn_context_read_tensor(c->ctx, c->out, res,
						   MC_M * MC_COLS * sizeof(float)),
		      "read");
		for (int r = 0; r < MC_M; r++)
			for (int j = 0; j < MC_COLS; j++) {
				double e = 0;
				for (int k = 0; k < MC_K; k++)
					e += (double)x[r * MC_K + k] * c->w[k * MC_COLS + j];
				e = e > 0 ? e : 0;
				ASSERT_MSG(fabs(res[r * MC_COLS + j] - e) <= 1e-4 * fabs(e) + 1e-4,
					   "matmul iteration %d: out[%d][%d] = %g, expected %g", iter,
					   r, j, res[r * MC_COLS + j], e);
			}
	}
}

static void mc_teardown(struct mc_client *c)
{
	webnn_tensor_destroy(c->in[0]);
	webnn_tensor_destroy(c->in[1]);
	webnn_tensor_destroy(c->out);
	webnn_graph_destroy(c->g);
	webnn_context_destroy(c->ctx);
}

/* A child: set up, report ready (id), wait for the go pipe to close, run iterations; after
 * mark_after iterations it reports mark. iterations < 0: run until killed. Never returns. */
static void mc_child(const char *socket, enum mc_kind kind, char id, char mark, int mark_after,
		     int iterations, int status_fd, int go_fd)
{
	struct mc_client c = { 0 };
	char buf;
	mc_setup(&c, socket, kind);
	mc_write_byte(status_fd, id);
	while (read(go_fd, &buf, 1) < 0 && errno == EINTR)
		;
	for (int i = 0; iterations < 0 || i < iterations; i++) {
		mc_iteration(&c, i, iterations < 0 ? 3 : i % 3);
		if (i + 1 == mark_after)
			mc_write_byte(status_fd, mark);
	}
	mc_teardown(&c);
	_exit(0);
}

/* Reads status bytes until every byte of want has been seen. */
static void mc_wait_for(int fd, const char *want)
{
	bool seen[256] = { false };
	for (;;) {
		bool all = true;
		for (const char *w = want; *w; w++)
			all = all && seen[(unsigned char)*w];
		if (all)
			return;
		char b;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		/* A client that failed leaves the victim holding the pipe open: do not wait forever. */
		int n = poll(&pfd, 1, 60000);
		if (n < 0 && errno == EINTR)
			continue;
		ASSERT_MSG(n == 1, "no progress from the clients within 60 s (waiting for \"%s\")",
			   want);
		ssize_t r = read(fd, &b, 1);
		if (r < 0 && errno == EINTR)
			continue;
		ASSERT_MSG(r == 1, "a client exited before reporting (waiting for \"%s\")", want);
		seen[(unsigned char)b] = true;
	}
}

static void mc_reap(pid_t pid, const char *what)
{
	int st;
	ASSERT(waitpid(pid, &st, 0) == pid);
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s client failed (status %d)", what, st);
}

/* On the default backend (cpu here): contexts of several processes share its thread team. */
TEST_TIMEOUT(multiclient_concurrent_and_killed_client, 180)
{
	struct test_daemon d;
	test_daemon_start(&d, NULL);
	int status[2], go[2];
	ASSERT(pipe(status) == 0 && pipe(go) == 0);
	fflush(stdout);
	fflush(stderr);
	pid_t pids[3];
	static const struct {
		enum mc_kind kind;
		char id, mark;
		int mark_after, iterations;
	} spec[3] = {
		{ MC_ELEMENTWISE, 'a', 'A', 5, 30 },
		{ MC_MATMUL, 'b', 'B', 5, 30 },
		{ MC_ELEMENTWISE, 'v', 'V', 3, -1 }, /* the victim: runs until killed */
	};
	for (int i = 0; i < 3; i++) {
		pids[i] = fork();
		ASSERT(pids[i] >= 0);
		if (pids[i] == 0) {
			close(status[0]);
			close(go[1]);
			mc_child(d.socket_path, spec[i].kind, spec[i].id, spec[i].mark,
				 spec[i].mark_after, spec[i].iterations, status[1], go[0]);
		}
	}
	close(status[1]);
	close(go[0]);
	mc_wait_for(status[0], "abv");
	close(go[1]); /* all three start dispatching together */
	/* Kill the victim while both others are mid-way, with dispatches of its own queued. */
	mc_wait_for(status[0], "ABV");
	ASSERT(kill(pids[2], SIGKILL) == 0);
	int st;
	ASSERT(waitpid(pids[2], &st, 0) == pids[2]);
	ASSERT_MSG(WIFSIGNALED(st), "the victim client ended by itself (status %d)", st);
	mc_reap(pids[0], "elementwise");
	mc_reap(pids[1], "matmul");
	close(status[0]);

	/* The daemon still serves new clients after the crash. */
	struct mc_client c = { 0 };
	mc_setup(&c, d.socket_path, MC_MATMUL);
	mc_iteration(&c, 99, 1);
	mc_teardown(&c);
	test_daemon_stop(&d);
}
