/* Failure paths end to end: injected backend faults (WEBNN_REFERENCE_FAULT) through webnnd to libwebnn. */
#include "tests/test.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto/wire.h"
#include "proto/wnn.h"
#include "webnn.h"

/* ---- daemons with a fault armed */

/* Starts a reference-backend webnnd with WEBNN_REFERENCE_FAULT=spec (NULL: unset). The variable
 * is dropped again at once so nothing else in this process (--no-fork runs) inherits it. */
static void fault_daemon(struct test_daemon *d, const char *spec)
{
	char bin[4096];
	snprintf(bin, sizeof(bin), "%s/bin/webnnd", test_build_dir());
	if (access(bin, X_OK) != 0)
		SKIP("%s is not built", bin);
	static const char *const args[] = { "--backend", "reference", NULL };
	if (spec)
		ASSERT(setenv("WEBNN_REFERENCE_FAULT", spec, 1) == 0);
	else
		unsetenv("WEBNN_REFERENCE_FAULT");
	test_daemon_start(d, args);
	unsetenv("WEBNN_REFERENCE_FAULT");
}

/* ---- public API helpers */

static struct webnn_context *fault_connect(const struct test_daemon *d)
{
	struct webnn_context_options o = WEBNN_CONTEXT_OPTIONS_INIT;
	o.socket_path = d->socket_path;
	o.client_name = "test_faults";
	struct webnn_context *ctx = NULL;
	char err[512] = "";
	enum webnn_status s = webnn_context_create(&o, &ctx, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "webnn_context_create: %s: %s", webnn_status_name(s), err);
	return ctx;
}

#define OK(ctx, expr)                                                                          \
	do {                                                                                   \
		enum webnn_status s_ = (expr);                                                 \
		ASSERT_MSG(s_ == WEBNN_STATUS_OK, "%s -> %s: %s", #expr, webnn_status_name(s_), \
			   webnn_context_last_error(ctx));                                     \
	} while (0)

/* Expects a status and an error message containing needle. */
#define FAILS(ctx, expr, status, needle)                                                       \
	do {                                                                                   \
		enum webnn_status s_ = (expr);                                                 \
		ASSERT_MSG(s_ == (status), "%s -> %s (%s), expected %s", #expr,                \
			   webnn_status_name(s_), webnn_context_last_error(ctx),               \
			   webnn_status_name(status));                                         \
		ASSERT_CONTAINS(webnn_context_last_error(ctx), needle);                        \
	} while (0)

static const struct webnn_operand_desc fault_desc = { WEBNN_FLOAT32, 2, { 2, 3 } };

static struct webnn_tensor *fault_tensor(struct webnn_context *ctx)
{
	struct webnn_tensor_desc td = { fault_desc, true, true };
	struct webnn_tensor *t = NULL;
	OK(ctx, webnn_context_create_tensor(ctx, &td, &t));
	return t;
}

/* z = a + b, w = a * b over [2, 3]. */
static struct webnn_graph *fault_add_mul_graph(struct webnn_context *ctx)
{
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand *a, *bb, *z, *w;
	OK(ctx, webnn_builder_input(b, "a", &fault_desc, &a));
	OK(ctx, webnn_builder_input(b, "b", &fault_desc, &bb));
	OK(ctx, webnn_builder_add(b, a, bb, &z));
	OK(ctx, webnn_builder_mul(b, a, bb, &w));
	struct webnn_named_operand outs[] = { { "z", z }, { "w", w } };
	struct webnn_graph *g;
	OK(ctx, webnn_builder_build(b, outs, 2, &g));
	webnn_builder_destroy(b);
	return g;
}

/* q = -p over [2, 3]. */
static struct webnn_graph *fault_neg_graph(struct webnn_context *ctx)
{
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand *p, *q;
	OK(ctx, webnn_builder_input(b, "p", &fault_desc, &p));
	OK(ctx, webnn_builder_neg(b, p, &q));
	struct webnn_named_operand outs[] = { { "q", q } };
	struct webnn_graph *g;
	OK(ctx, webnn_builder_build(b, outs, 1, &g));
	webnn_builder_destroy(b);
	return g;
}

static void fault_dispatch_add_mul(struct webnn_context *ctx, struct webnn_graph *g,
				   struct webnn_tensor *a, struct webnn_tensor *b,
				   struct webnn_tensor *z, struct webnn_tensor *w)
{
	struct webnn_named_tensor in[] = { { "a", a }, { "b", b } };
	struct webnn_named_tensor out[] = { { "z", z }, { "w", w } };
	OK(ctx, webnn_context_dispatch(ctx, g, in, 2, out, 2));
}

static void fault_expect(struct webnn_context *ctx, struct webnn_tensor *t, const float *want)
{
	float got[6];
	OK(ctx, webnn_context_read_tensor(ctx, t, got, sizeof(got)));
	for (int i = 0; i < 6; i++)
		ASSERT_MSG(got[i] == want[i], "element %d: got %g, want %g", i, got[i], want[i]);
}

static const float fault_a[6] = { 1, 2, 3, 4, 5, 6 };
static const float fault_b[6] = { 0.5f, -1, 2, -3, 4, 10 };
static const float fault_sum[6] = { 1.5f, 1, 5, 1, 9, 16 };
static const float fault_prod[6] = { 0.5f, -2, 6, -12, 20, 60 };

/* Reading t fails because a dispatch failed with the injected fault. */
static void fault_expect_poisoned(struct webnn_context *ctx, struct webnn_tensor *t)
{
	float got[6];
	FAILS(ctx, webnn_context_read_tensor(ctx, t, got, sizeof(got)),
	      WEBNN_STATUS_OPERATION_ERROR, "holds no valid data: dispatch of graph");
	ASSERT_CONTAINS(webnn_context_last_error(ctx), "injected fault");
}

struct lost_record {
	int calls;
	char message[512];
};

static void on_lost(void *ud, const char *message)
{
	struct lost_record *r = ud;
	r->calls++;
	snprintf(r->message, sizeof(r->message), "%s", message ? message : "(null)");
}

/* ---- public API */

TEST(faults_dispatch_error_poisons_outputs)
{
	struct test_daemon d;
	fault_daemon(&d, "execute-error-once:2");
	struct webnn_context *ctx = fault_connect(&d);
	struct lost_record lost = { 0 };
	webnn_context_set_lost_callback(ctx, on_lost, &lost);
	struct webnn_graph *g = fault_add_mul_graph(ctx), *neg = fault_neg_graph(ctx);
	struct webnn_tensor *a = fault_tensor(ctx), *b = fault_tensor(ctx);
	struct webnn_tensor *z = fault_tensor(ctx), *w = fault_tensor(ctx);
	struct webnn_tensor *z0 = fault_tensor(ctx), *w0 = fault_tensor(ctx), *q = fault_tensor(ctx);
	OK(ctx, webnn_context_write_tensor(ctx, a, fault_a, sizeof(fault_a)));
	OK(ctx, webnn_context_write_tensor(ctx, b, fault_b, sizeof(fault_b)));

	/* Execute 1 succeeds: z0 and w0 hold results that must survive the later failure. */
	fault_dispatch_add_mul(ctx, g, a, b, z0, w0);
	OK(ctx, webnn_context_flush(ctx));
	fault_expect(ctx, z0, fault_sum);

	/* Execute 2 fails: flush reports it with the backend's message, once. */
	fault_dispatch_add_mul(ctx, g, a, b, z, w);
	FAILS(ctx, webnn_context_flush(ctx), WEBNN_STATUS_OPERATION_ERROR,
	      "injected fault (WEBNN_REFERENCE_FAULT=execute-error-once:2): execute 2 failed");
	OK(ctx, webnn_context_flush(ctx));

	/* Both outputs are poisoned and say why; the inputs and other tensors are untouched. */
	fault_expect_poisoned(ctx, z);
	fault_expect_poisoned(ctx, w);
	fault_expect(ctx, a, fault_a);
	fault_expect(ctx, b, fault_b);
	fault_expect(ctx, z0, fault_sum);
	fault_expect(ctx, w0, fault_prod);
	ASSERT(!webnn_context_is_lost(ctx));

	/* A poisoned input fails the next dispatch without running it and poisons its output. */
	struct webnn_named_tensor nin[] = { { "p", z } }, nout[] = { { "q", q } };
	OK(ctx, webnn_context_dispatch(ctx, neg, nin, 1, nout, 1));
	FAILS(ctx, webnn_context_flush(ctx), WEBNN_STATUS_OPERATION_ERROR,
	      "dispatch: input 'p'");
	ASSERT_CONTAINS(webnn_context_last_error(ctx), "holds no valid data");
	float got[6];
	FAILS(ctx, webnn_context_read_tensor(ctx, q, got, sizeof(got)),
	      WEBNN_STATUS_OPERATION_ERROR, "dispatch of graph");

	/* A write clears the poison of z (w stays poisoned)... */
	const float fresh[6] = { -1, -2, -3, -4, -5, -6 };
	OK(ctx, webnn_context_write_tensor(ctx, z, fresh, sizeof(fresh)));
	fault_expect(ctx, z, fresh);
	fault_expect_poisoned(ctx, w);
	/* ...and so does a successful dispatch (execute 3) for both outputs, and for q (4). */
	fault_dispatch_add_mul(ctx, g, a, b, z, w);
	OK(ctx, webnn_context_dispatch(ctx, neg, nin, 1, nout, 1));
	OK(ctx, webnn_context_flush(ctx));
	fault_expect(ctx, z, fault_sum);
	fault_expect(ctx, w, fault_prod);
	const float neg_sum[6] = { -1.5f, -1, -5, -1, -9, -16 };
	fault_expect(ctx, q, neg_sum);
	ASSERT_EQ(lost.calls, 0);

	webnn_tensor_destroy(a);
	webnn_tensor_destroy(b);
	webnn_tensor_destroy(z);
	webnn_tensor_destroy(w);
	webnn_tensor_destroy(z0);
	webnn_tensor_destroy(w0);
	webnn_tensor_destroy(q);
	webnn_graph_destroy(g);
	webnn_graph_destroy(neg);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(faults_execute_error_persists_flush_reports_first)
{
	struct test_daemon d;
	fault_daemon(&d, "execute-error:1");
	struct webnn_context *ctx = fault_connect(&d);
	struct lost_record lost = { 0 };
	webnn_context_set_lost_callback(ctx, on_lost, &lost);
	struct webnn_graph *g = fault_add_mul_graph(ctx);
	struct webnn_tensor *a = fault_tensor(ctx), *b = fault_tensor(ctx);
	struct webnn_tensor *z = fault_tensor(ctx), *w = fault_tensor(ctx);
	OK(ctx, webnn_context_write_tensor(ctx, a, fault_a, sizeof(fault_a)));
	OK(ctx, webnn_context_write_tensor(ctx, b, fault_b, sizeof(fault_b)));

	/* Two failures before one flush: the first is reported, the second is not kept over. */
	fault_dispatch_add_mul(ctx, g, a, b, z, w);
	fault_dispatch_add_mul(ctx, g, a, b, z, w);
	FAILS(ctx, webnn_context_flush(ctx), WEBNN_STATUS_OPERATION_ERROR, "execute 1 failed");
	OK(ctx, webnn_context_flush(ctx));
	fault_expect_poisoned(ctx, z);
	ASSERT_CONTAINS(webnn_context_last_error(ctx), "execute 2 failed");

	/* Writes clear the poison; the next failing dispatch poisons again, and a read queued
	 * right behind it (no flush between) already sees that. */
	OK(ctx, webnn_context_write_tensor(ctx, z, fault_b, sizeof(fault_b)));
	fault_expect(ctx, z, fault_b);
	fault_dispatch_add_mul(ctx, g, a, b, z, w);
	fault_expect_poisoned(ctx, z);
	ASSERT_CONTAINS(webnn_context_last_error(ctx), "execute 3 failed");
	FAILS(ctx, webnn_context_flush(ctx), WEBNN_STATUS_OPERATION_ERROR, "execute 3 failed");

	/* An event loop picks the ErrorEvent up through the fd; flush then reports it. */
	fault_dispatch_add_mul(ctx, g, a, b, z, w);
	struct pollfd p = { webnn_context_get_fd(ctx), POLLIN, 0 };
	ASSERT_MSG(poll(&p, 1, 10000) > 0, "no ErrorEvent from webnnd within 10 s");
	OK(ctx, webnn_context_dispatch_events(ctx));
	FAILS(ctx, webnn_context_flush(ctx), WEBNN_STATUS_OPERATION_ERROR, "execute 4 failed");

	/* Operation errors are not device loss: the context keeps working otherwise. */
	ASSERT(!webnn_context_is_lost(ctx));
	ASSERT_EQ(lost.calls, 0);
	fault_expect(ctx, a, fault_a);
	struct webnn_tensor *extra = fault_tensor(ctx);
	OK(ctx, webnn_context_write_tensor(ctx, extra, fault_sum, sizeof(fault_sum)));
	fault_expect(ctx, extra, fault_sum);
	OK(ctx, webnn_context_flush(ctx));

	webnn_tensor_destroy(extra);
	webnn_tensor_destroy(a);
	webnn_tensor_destroy(b);
	webnn_tensor_destroy(z);
	webnn_tensor_destroy(w);
	webnn_graph_destroy(g);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(faults_context_lost_leaves_other_clients_alone)
{
	struct test_daemon d;
	fault_daemon(&d, "context-lost:1");
	struct webnn_context *ctx = fault_connect(&d), *other = fault_connect(&d);
	struct lost_record lost = { 0 }, other_lost = { 0 };
	webnn_context_set_lost_callback(ctx, on_lost, &lost);
	webnn_context_set_lost_callback(other, on_lost, &other_lost);

	struct webnn_graph *g = fault_add_mul_graph(ctx);
	struct webnn_tensor *a = fault_tensor(ctx), *b = fault_tensor(ctx);
	struct webnn_tensor *z = fault_tensor(ctx), *w = fault_tensor(ctx);
	OK(ctx, webnn_context_write_tensor(ctx, a, fault_a, sizeof(fault_a)));
	OK(ctx, webnn_context_write_tensor(ctx, b, fault_b, sizeof(fault_b)));
	struct webnn_builder *pending;
	OK(ctx, webnn_builder_create(ctx, &pending)); /* made before the loss, used after it */
	struct webnn_graph *og = fault_add_mul_graph(other);
	struct webnn_tensor *oa = fault_tensor(other), *ob = fault_tensor(other);
	struct webnn_tensor *oz = fault_tensor(other), *ow = fault_tensor(other);
	OK(other, webnn_context_write_tensor(other, oa, fault_a, sizeof(fault_a)));
	OK(other, webnn_context_write_tensor(other, ob, fault_b, sizeof(fault_b)));
	OK(other, webnn_context_flush(other));

	/* Execute 1 loses the device of ctx. An event loop notices (the fd turns readable) and
	 * the callback fires once, from dispatch_events, with the daemon's message. */
	fault_dispatch_add_mul(ctx, g, a, b, z, w);
	enum webnn_status es = WEBNN_STATUS_OK;
	for (int i = 0; i < 100 && es == WEBNN_STATUS_OK; i++) {
		struct pollfd p = { webnn_context_get_fd(ctx), POLLIN, 0 };
		ASSERT_MSG(poll(&p, 1, 10000) > 0, "no event from webnnd within 10 s");
		es = webnn_context_dispatch_events(ctx);
	}
	ASSERT_EQ(es, WEBNN_STATUS_CONTEXT_LOST);
	ASSERT_CONTAINS(webnn_context_last_error(ctx), "dispatchEvents: context lost: injected");
	ASSERT_EQ(lost.calls, 1);
	FAILS(ctx, webnn_context_flush(ctx), WEBNN_STATUS_CONTEXT_LOST, "the device was lost");
	ASSERT_CONTAINS(lost.message, "injected fault (WEBNN_REFERENCE_FAULT=context-lost:1)");
	ASSERT_CONTAINS(lost.message, "the device was lost during execute 1");
	ASSERT(webnn_context_is_lost(ctx));

	/* Every later call on ctx and its objects reports CONTEXT_LOST; no second callback. */
	float got[6];
	FAILS(ctx, webnn_context_read_tensor(ctx, a, got, sizeof(got)), WEBNN_STATUS_CONTEXT_LOST,
	      "the device was lost");
	FAILS(ctx, webnn_context_read_tensor(ctx, z, got, sizeof(got)), WEBNN_STATUS_CONTEXT_LOST,
	      "the device was lost");
	FAILS(ctx, webnn_context_write_tensor(ctx, a, fault_b, sizeof(fault_b)),
	      WEBNN_STATUS_CONTEXT_LOST, "the device was lost");
	struct webnn_tensor_desc td = { fault_desc, true, true };
	struct webnn_tensor *t = NULL;
	FAILS(ctx, webnn_context_create_tensor(ctx, &td, &t), WEBNN_STATUS_CONTEXT_LOST,
	      "the device was lost");
	ASSERT(t == NULL);
	struct webnn_named_tensor in[] = { { "a", a }, { "b", b } };
	struct webnn_named_tensor out[] = { { "z", z }, { "w", w } };
	FAILS(ctx, webnn_context_dispatch(ctx, g, in, 2, out, 2), WEBNN_STATUS_CONTEXT_LOST,
	      "the device was lost");
	FAILS(ctx, webnn_context_flush(ctx), WEBNN_STATUS_CONTEXT_LOST, "the device was lost");
	FAILS(ctx, webnn_context_dispatch_events(ctx), WEBNN_STATUS_CONTEXT_LOST,
	      "the device was lost");
	struct webnn_builder *b2 = NULL;
	FAILS(ctx, webnn_builder_create(ctx, &b2), WEBNN_STATUS_CONTEXT_LOST,
	      "the device was lost");
	ASSERT(b2 == NULL);
	struct webnn_operand *x = NULL;
	FAILS(ctx, webnn_builder_input(pending, "x", &fault_desc, &x), WEBNN_STATUS_CONTEXT_LOST,
	      "the device was lost");
	ASSERT_EQ(lost.calls, 1);

	/* The other connection's context never noticed: it builds, dispatches and reads. */
	ASSERT(!webnn_context_is_lost(other));
	fault_dispatch_add_mul(other, og, oa, ob, oz, ow);
	OK(other, webnn_context_flush(other));
	fault_expect(other, oz, fault_sum);
	fault_expect(other, ow, fault_prod);
	struct webnn_graph *ong = fault_neg_graph(other);
	struct webnn_named_tensor nin[] = { { "p", oz } }, nout[] = { { "q", ow } };
	OK(other, webnn_context_dispatch(other, ong, nin, 1, nout, 1));
	OK(other, webnn_context_flush(other));
	const float neg_sum[6] = { -1.5f, -1, -5, -1, -9, -16 };
	fault_expect(other, ow, neg_sum);
	ASSERT_EQ(other_lost.calls, 0);
	ASSERT(!webnn_context_is_lost(other));

	/* Objects of the lost context are still safe to destroy. */
	webnn_builder_destroy(pending);
	webnn_tensor_destroy(a);
	webnn_tensor_destroy(b);
	webnn_tensor_destroy(z);
	webnn_tensor_destroy(w);
	webnn_graph_destroy(g);
	webnn_context_destroy(ctx);
	ASSERT_EQ(lost.calls, 1);

	/* A fresh connection after the loss works too: the daemon as a whole is fine. */
	struct webnn_context *late = fault_connect(&d);
	struct webnn_graph *lg = fault_add_mul_graph(late);
	struct webnn_tensor *la = fault_tensor(late), *lb = fault_tensor(late);
	struct webnn_tensor *lz = fault_tensor(late), *lw = fault_tensor(late);
	OK(late, webnn_context_write_tensor(late, la, fault_a, sizeof(fault_a)));
	OK(late, webnn_context_write_tensor(late, lb, fault_b, sizeof(fault_b)));
	fault_dispatch_add_mul(late, lg, la, lb, lz, lw);
	OK(late, webnn_context_flush(late));
	fault_expect(late, lw, fault_prod);
	webnn_tensor_destroy(la);
	webnn_tensor_destroy(lb);
	webnn_tensor_destroy(lz);
	webnn_tensor_destroy(lw);
	webnn_graph_destroy(lg);
	webnn_context_destroy(late);

	webnn_tensor_destroy(oa);
	webnn_tensor_destroy(ob);
	webnn_tensor_destroy(oz);
	webnn_tensor_destroy(ow);
	webnn_graph_destroy(og);
	webnn_graph_destroy(ong);
	webnn_context_destroy(other);
	test_daemon_stop(&d); /* exits 0 */
}

TEST(faults_bad_spec_injects_nothing)
{
	static const char *const specs[] = { "execute-error:0", "execute-error:", "context-lost:1x",
					     "context-lost:-1", "execute-error-twice:1",
					     "execute-error: 1", "bogus" };
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct test_daemon d;
		fault_daemon(&d, specs[i]);
		struct webnn_context *ctx = fault_connect(&d);
		struct webnn_graph *g = fault_add_mul_graph(ctx);
		struct webnn_tensor *a = fault_tensor(ctx), *b = fault_tensor(ctx);
		struct webnn_tensor *z = fault_tensor(ctx), *w = fault_tensor(ctx);
		OK(ctx, webnn_context_write_tensor(ctx, a, fault_a, sizeof(fault_a)));
		OK(ctx, webnn_context_write_tensor(ctx, b, fault_b, sizeof(fault_b)));
		for (int k = 0; k < 3; k++)
			fault_dispatch_add_mul(ctx, g, a, b, z, w);
		ASSERT_MSG(webnn_context_flush(ctx) == WEBNN_STATUS_OK, "%s: %s", specs[i],
			   webnn_context_last_error(ctx));
		fault_expect(ctx, w, fault_prod);
		webnn_tensor_destroy(a);
		webnn_tensor_destroy(b);
		webnn_tensor_destroy(z);
		webnn_tensor_destroy(w);
		webnn_graph_destroy(g);
		webnn_context_destroy(ctx);
		test_daemon_stop(&d);
	}
}

/* ---- raw protocol: what exactly goes over the wire */

struct fp_conn {
	int fd;
	struct wnn_reader r;
	uint64_t serial;
};

/* Messages that arrived before the awaited reply. */
struct fp_events {
	int errors, lost;
	uint32_t error_context[8], error_object[8], error_status[8];
	char error_message[8][512];
	uint32_t lost_context;
	char lost_message[512];
};

static void fp_connect(struct fp_conn *c, const struct test_daemon *d)
{
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT(c->fd >= 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->socket_path);
	ASSERT_MSG(connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "connect: %s",
		   strerror(errno));
	wnn_reader_init(&c->r, 0);
	c->serial = 0;
}

static void fp_close(struct fp_conn *c)
{
	wnn_reader_finish(&c->r);
	close(c->fd);
}

static void fp_send(struct fp_conn *c, Webnn__Ipc__ClientMessage *m)
{
	size_t len = webnn__ipc__client_message__get_packed_size(m);
	uint8_t *buf = malloc(len ? len : 1);
	ASSERT(buf);
	webnn__ipc__client_message__pack(m, buf);
	int r = wnn_frame_send(c->fd, buf, len, NULL, 0);
	free(buf);
	ASSERT_MSG(r == 0, "send: %s", strerror(-r));
}

static Webnn__Ipc__ServerMessage *fp_recv(struct fp_conn *c)
{
	for (;;) {
		const uint8_t *payload;
		size_t len;
		int fds[WNN_FRAME_MAX_FDS], n_fds = 0;
		int nr = wnn_reader_next(&c->r, &payload, &len, fds, &n_fds);
		ASSERT(nr >= 0);
		if (nr == 1) {
			Webnn__Ipc__ServerMessage *m =
				webnn__ipc__server_message__unpack(NULL, len, payload);
			ASSERT_MSG(m, "the daemon sent an undecodable message");
			wnn_reader_consume(&c->r);
			return m;
		}
		struct pollfd p = { c->fd, POLLIN, 0 };
		ASSERT_MSG(poll(&p, 1, 10000) > 0, "no message from the daemon within 10 s");
		int r = wnn_reader_fill(&c->r, c->fd);
		if (r == -EAGAIN)
			continue;
		ASSERT_MSG(r > 0, "the daemon closed the connection (%d)", r);
	}
}

/* Sends m with a fresh serial; returns its Reply. Events before it are recorded in ev (NULL:
 * none may arrive). */
static Webnn__Ipc__ServerMessage *fp_call(struct fp_conn *c, Webnn__Ipc__ClientMessage *m,
					  struct fp_events *ev)
{
	m->has_serial = true;
	m->serial = ++c->serial;
	fp_send(c, m);
	for (;;) {
		Webnn__Ipc__ServerMessage *s = fp_recv(c);
		switch (s->body_case) {
		case WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY:
			ASSERT_EQ(s->reply->serial, m->serial);
			return s;
		case WEBNN__IPC__SERVER_MESSAGE__BODY_ERROR: {
			const Webnn__Ipc__ErrorEvent *e = s->error;
			ASSERT_MSG(ev, "unexpected ErrorEvent: %s",
				   e->error ? e->error->message : "(no error)");
			ASSERT(e->error);
			ASSERT(ev->errors < 8);
			ev->error_context[ev->errors] = e->context_id;
			ev->error_object[ev->errors] = e->object_id;
			ev->error_status[ev->errors] = e->error->status;
			snprintf(ev->error_message[ev->errors], sizeof(ev->error_message[0]), "%s",
				 e->error->message ? e->error->message : "");
			ev->errors++;
			break;
		}
		case WEBNN__IPC__SERVER_MESSAGE__BODY_CONTEXT_LOST:
			ASSERT_MSG(ev, "unexpected ContextLost: %s", s->context_lost->message);
			ev->lost++;
			ev->lost_context = s->context_lost->context_id;
			snprintf(ev->lost_message, sizeof(ev->lost_message), "%s",
				 s->context_lost->message ? s->context_lost->message : "");
			break;
		case WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE:
			FAIL("unexpected Goodbye: %s", s->goodbye->reason);
		default:
			FAIL("unexpected server message %d", (int)s->body_case);
		}
		webnn__ipc__server_message__free_unpacked(s, NULL);
	}
}

static void fp_call_ok(struct fp_conn *c, Webnn__Ipc__ClientMessage *m, struct fp_events *ev)
{
	Webnn__Ipc__ServerMessage *s = fp_call(c, m, ev);
	ASSERT_MSG(!s->reply->error, "request failed: %s", s->reply->error->message);
	webnn__ipc__server_message__free_unpacked(s, NULL);
}

static void fp_call_err(struct fp_conn *c, Webnn__Ipc__ClientMessage *m, struct fp_events *ev,
			int status, const char *needle)
{
	Webnn__Ipc__ServerMessage *s = fp_call(c, m, ev);
	ASSERT_MSG(s->reply->error, "request succeeded, expected an error containing '%s'",
		   needle);
	ASSERT_MSG((int)s->reply->error->status == status, "status %d (%s), expected %d",
		   (int)s->reply->error->status, s->reply->error->message, status);
	ASSERT_CONTAINS(s->reply->error->message, needle);
	webnn__ipc__server_message__free_unpacked(s, NULL);
}

static void fp_hello(struct fp_conn *c)
{
	Webnn__Ipc__Hello h = WEBNN__IPC__HELLO__INIT;
	h.major = WNN_PROTOCOL_MAJOR;
	h.minor = WNN_PROTOCOL_MINOR;
	h.client_name = "test_faults";
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_HELLO;
	m.hello = &h;
	fp_call_ok(c, &m, NULL);
}

static void fp_create_context(struct fp_conn *c, uint32_t id)
{
	Webnn__Ipc__CreateContext cc = WEBNN__IPC__CREATE_CONTEXT__INIT;
	cc.context_id = id;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONTEXT;
	m.create_context = &cc;
	fp_call_ok(c, &m, NULL);
}

static const uint32_t fp_shape[2] = { 2, 3 };

static void fp_tensor_msg(Webnn__Ipc__ClientMessage *m, Webnn__Ipc__CreateTensor *ct,
			  Webnn__Ipc__OperandDescriptor *d, uint32_t ctx, uint32_t id)
{
	webnn__ipc__client_message__init(m);
	webnn__ipc__create_tensor__init(ct);
	webnn__ipc__operand_descriptor__init(d);
	d->data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	d->n_shape = 2;
	d->shape = (uint32_t *)fp_shape;
	ct->context_id = ctx;
	ct->tensor_id = id;
	ct->descriptor = d;
	ct->has_readable = ct->has_writable = true;
	ct->readable = ct->writable = true;
	m->body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_TENSOR;
	m->create_tensor = ct;
}

static void fp_write(struct fp_conn *c, uint32_t id, const float *v)
{
	Webnn__Ipc__Data data = WEBNN__IPC__DATA__INIT;
	data.where_case = WEBNN__IPC__DATA__WHERE_INLINE;
	data.inline_.data = (uint8_t *)v;
	data.inline_.len = 6 * sizeof(float);
	Webnn__Ipc__WriteTensor wt = WEBNN__IPC__WRITE_TENSOR__INIT;
	wt.tensor_id = id;
	wt.data = &data;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_WRITE_TENSOR;
	m.write_tensor = &wt;
	fp_send(c, &m);
}

static void fp_read_msg(Webnn__Ipc__ClientMessage *m, Webnn__Ipc__ReadTensor *r, uint32_t id)
{
	webnn__ipc__client_message__init(m);
	webnn__ipc__read_tensor__init(r);
	r->tensor_id = id;
	m->body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
	m->read_tensor = r;
}

static void fp_read_expect(struct fp_conn *c, uint32_t id, const float *want)
{
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__ReadTensor r;
	fp_read_msg(&m, &r, id);
	Webnn__Ipc__ServerMessage *s = fp_call(c, &m, NULL);
	ASSERT_MSG(!s->reply->error, "readTensor %u: %s", id, s->reply->error->message);
	ASSERT(s->reply->read_tensor && s->reply->read_tensor->has_data);
	ASSERT_EQ(s->reply->read_tensor->data.len, 6 * sizeof(float));
	const float *got = (const float *)s->reply->read_tensor->data.data;
	for (int i = 0; i < 6; i++)
		ASSERT_MSG(got[i] == want[i], "tensor %u element %d: got %g, want %g", id, i,
			   got[i], want[i]);
	webnn__ipc__server_message__free_unpacked(s, NULL);
}

static void fp_read_err(struct fp_conn *c, uint32_t id, struct fp_events *ev, int status,
			const char *needle)
{
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__ReadTensor r;
	fp_read_msg(&m, &r, id);
	fp_call_err(c, &m, ev, status, needle);
}

static void fp_flush_msg(Webnn__Ipc__ClientMessage *m, Webnn__Ipc__Flush *f, uint32_t ctx)
{
	webnn__ipc__client_message__init(m);
	webnn__ipc__flush__init(f);
	f->context_id = ctx;
	m->body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH;
	m->flush = f;
}

/* BuildGraph of z = add(x, y) over [2, 3] as graph id in context ctx. */
static void fp_build_add(struct fp_conn *c, uint32_t ctx, uint32_t id)
{
	Webnn__Ipc__OperandDescriptor desc = WEBNN__IPC__OPERAND_DESCRIPTOR__INIT;
	desc.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	desc.n_shape = 2;
	desc.shape = (uint32_t *)fp_shape;
	Webnn__Ipc__Operand ops[3], *op_ptrs[3];
	static const Webnn__Ipc__OperandKind kinds[3] = { WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT,
							  WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT,
							  WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT };
	static const char *const names[3] = { "x", "y", NULL };
	for (int i = 0; i < 3; i++) {
		webnn__ipc__operand__init(&ops[i]);
		ops[i].kind = kinds[i];
		ops[i].descriptor = &desc;
		ops[i].name = (char *)names[i];
		op_ptrs[i] = &ops[i];
	}
	Webnn__Ipc__ElementwiseBinary bin = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
	bin.a = 0;
	bin.b = 1;
	bin.output = 2;
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT, *op_ptr = &op;
	op.op = wnn_ops[WNN_OP_ADD].id;
	op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_BINARY;
	op.binary = &bin;
	Webnn__Ipc__NamedOperand nx = WEBNN__IPC__NAMED_OPERAND__INIT, ny = nx, nz = nx;
	nx.name = "x";
	nx.operand = 0;
	ny.name = "y";
	ny.operand = 1;
	nz.name = "z";
	nz.operand = 2;
	Webnn__Ipc__NamedOperand *ins[] = { &nx, &ny }, *outs[] = { &nz };
	Webnn__Ipc__GraphInfo gi = WEBNN__IPC__GRAPH_INFO__INIT;
	gi.n_operands = 3;
	gi.operands = op_ptrs;
	gi.n_operations = 1;
	gi.operations = &op_ptr;
	gi.n_inputs = 2;
	gi.inputs = ins;
	gi.n_outputs = 1;
	gi.outputs = outs;
	Webnn__Ipc__BuildGraph bg = WEBNN__IPC__BUILD_GRAPH__INIT;
	bg.context_id = ctx;
	bg.graph_id = id;
	bg.graph = &gi;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_BUILD_GRAPH;
	m.build_graph = &bg;
	fp_call_ok(c, &m, NULL);
}

static void fp_dispatch(struct fp_conn *c, uint32_t ctx, uint32_t graph, uint32_t x, uint32_t y,
			uint32_t z)
{
	Webnn__Ipc__NamedTensor nx = WEBNN__IPC__NAMED_TENSOR__INIT, ny = nx, nz = nx;
	nx.name = "x";
	nx.tensor_id = x;
	ny.name = "y";
	ny.tensor_id = y;
	nz.name = "z";
	nz.tensor_id = z;
	Webnn__Ipc__NamedTensor *ins[] = { &nx, &ny }, *outs[] = { &nz };
	Webnn__Ipc__Dispatch d = WEBNN__IPC__DISPATCH__INIT;
	d.context_id = ctx;
	d.graph_id = graph;
	d.n_inputs = 2;
	d.inputs = ins;
	d.n_outputs = 1;
	d.outputs = outs;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DISPATCH;
	m.dispatch = &d;
	fp_send(c, &m);
}

/* Graph base, tensors base+1 (x), base+2 (y), base+3 (z) in context ctx; x and y written. */
static void fp_setup_add(struct fp_conn *c, uint32_t ctx, uint32_t base)
{
	fp_build_add(c, ctx, base);
	for (uint32_t i = 1; i <= 3; i++) {
		Webnn__Ipc__ClientMessage m;
		Webnn__Ipc__CreateTensor ct;
		Webnn__Ipc__OperandDescriptor d;
		fp_tensor_msg(&m, &ct, &d, ctx, base + i);
		fp_call_ok(c, &m, NULL);
	}
	fp_write(c, base + 1, fault_a);
	fp_write(c, base + 2, fault_b);
}

/* Dispatches z = x + y and checks it. */
static void fp_add_works(struct fp_conn *c, uint32_t ctx, uint32_t base)
{
	fp_dispatch(c, ctx, base, base + 1, base + 2, base + 3);
	fp_read_expect(c, base + 3, fault_sum);
}

TEST(faults_protocol_error_event)
{
	struct test_daemon d;
	fault_daemon(&d, "execute-error-once:1");
	struct fp_conn c;
	fp_connect(&c, &d);
	fp_hello(&c);
	fp_create_context(&c, 7);
	fp_setup_add(&c, 7, 20);

	/* The failed dispatch: one ErrorEvent naming the context and the graph, before the
	 * flush reply; the reply itself is a success (flush reports nothing on the wire). */
	fp_dispatch(&c, 7, 20, 21, 22, 23);
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__Flush f;
	fp_flush_msg(&m, &f, 7);
	struct fp_events ev = { 0 };
	fp_call_ok(&c, &m, &ev);
	ASSERT_EQ(ev.lost, 0);
	ASSERT_EQ(ev.errors, 1);
	ASSERT_EQ(ev.error_context[0], 7);
	ASSERT_EQ(ev.error_object[0], 20);
	ASSERT_EQ(ev.error_status[0], WEBNN__IPC__STATUS__OPERATION_ERROR);
	ASSERT_CONTAINS(ev.error_message[0],
			"injected fault (WEBNN_REFERENCE_FAULT=execute-error-once:1): execute 1");

	/* The output reads as an error reply that says which dispatch failed and why. */
	fp_read_err(&c, 23, NULL, WEBNN__IPC__STATUS__OPERATION_ERROR,
		    "readTensor: tensor 23 holds no valid data: dispatch of graph 20 failed: "
		    "injected fault");
	fp_read_expect(&c, 21, fault_a);

	/* A poisoned input fails a dispatch before it runs, naming the input. */
	fp_dispatch(&c, 7, 20, 23, 22, 21);
	memset(&ev, 0, sizeof(ev));
	fp_call_ok(&c, &m, &ev);
	ASSERT_EQ(ev.errors, 1);
	ASSERT_EQ(ev.error_context[0], 7);
	ASSERT_EQ(ev.error_object[0], 20);
	ASSERT_EQ(ev.error_status[0], WEBNN__IPC__STATUS__OPERATION_ERROR);
	ASSERT_CONTAINS(ev.error_message[0], "dispatch: input 'x': tensor 23 holds no valid data");
	fp_read_err(&c, 21, NULL, WEBNN__IPC__STATUS__OPERATION_ERROR,
		    "dispatch of graph 20 failed: dispatch: input 'x'");

	/* A write, then a successful dispatch, clear the poison. */
	fp_write(&c, 21, fault_a);
	fp_read_expect(&c, 21, fault_a);
	fp_add_works(&c, 7, 20);
	memset(&ev, 0, sizeof(ev));
	fp_call_ok(&c, &m, &ev);
	ASSERT_EQ(ev.errors, 0);

	fp_close(&c);
	test_daemon_stop(&d);
}

TEST(faults_protocol_context_lost_once)
{
	struct test_daemon d;
	fault_daemon(&d, "context-lost:1");
	/* Connection c has two contexts (5 loses its device, 6 must not care); e is another
	 * client. */
	struct fp_conn c, e;
	fp_connect(&c, &d);
	fp_hello(&c);
	fp_connect(&e, &d);
	fp_hello(&e);
	fp_create_context(&c, 5);
	fp_create_context(&c, 6);
	fp_create_context(&e, 5);
	fp_setup_add(&c, 5, 10);
	fp_setup_add(&c, 6, 30);
	fp_setup_add(&e, 5, 10);

	/* Execute 1 loses context 5 of c; more work queued behind it fails without running. */
	fp_dispatch(&c, 5, 10, 11, 12, 13);
	fp_dispatch(&c, 5, 10, 11, 12, 13);
	fp_write(&c, 11, fault_b);
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__Flush f;
	fp_flush_msg(&m, &f, 5);
	struct fp_events ev = { 0 };
	fp_call_err(&c, &m, &ev, WEBNN__IPC__STATUS__CONTEXT_LOST, "context 5 is lost");
	ASSERT_EQ(ev.lost, 1);
	ASSERT_EQ(ev.lost_context, 5);
	ASSERT_CONTAINS(ev.lost_message,
			"injected fault (WEBNN_REFERENCE_FAULT=context-lost:1): the device was "
			"lost during execute 1");
	/* The failing dispatch, the queued dispatch and the write each report CONTEXT_LOST. */
	ASSERT_EQ(ev.errors, 3);
	for (int i = 0; i < ev.errors; i++) {
		ASSERT_EQ(ev.error_context[i], 5);
		ASSERT_EQ(ev.error_status[i], WEBNN__IPC__STATUS__CONTEXT_LOST);
	}
	ASSERT_EQ(ev.error_object[0], 10);
	ASSERT_EQ(ev.error_object[1], 10);
	ASSERT_EQ(ev.error_object[2], 11);

	/* Later requests on context 5 get CONTEXT_LOST errors, and no second ContextLost. */
	memset(&ev, 0, sizeof(ev));
	fp_read_err(&c, 12, &ev, WEBNN__IPC__STATUS__CONTEXT_LOST, "context 5 is lost");
	Webnn__Ipc__ClientMessage tm;
	Webnn__Ipc__CreateTensor ct;
	Webnn__Ipc__OperandDescriptor td;
	fp_tensor_msg(&tm, &ct, &td, 5, 14);
	fp_call_err(&c, &tm, &ev, WEBNN__IPC__STATUS__CONTEXT_LOST, "context 5 is lost");
	fp_dispatch(&c, 5, 10, 11, 12, 13);
	fp_call_err(&c, &m, &ev, WEBNN__IPC__STATUS__CONTEXT_LOST, "context 5 is lost");
	ASSERT_EQ(ev.lost, 0);
	ASSERT_EQ(ev.errors, 1);
	ASSERT_EQ(ev.error_object[0], 10);
	ASSERT_EQ(ev.error_status[0], WEBNN__IPC__STATUS__CONTEXT_LOST);

	/* Context 6 on the same connection and context 5 of the other connection still work. */
	memset(&ev, 0, sizeof(ev));
	fp_add_works(&c, 6, 30);
	fp_flush_msg(&m, &f, 6);
	fp_call_ok(&c, &m, &ev);
	fp_add_works(&e, 5, 10);
	fp_flush_msg(&m, &f, 5);
	fp_call_ok(&e, &m, NULL);
	ASSERT_EQ(ev.lost, 0);
	ASSERT_EQ(ev.errors, 0);

	/* The lost context can still be destroyed cleanly; the connection lives on. */
	Webnn__Ipc__DestroyContext dc = WEBNN__IPC__DESTROY_CONTEXT__INIT;
	dc.context_id = 5;
	Webnn__Ipc__ClientMessage dm = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	dm.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONTEXT;
	dm.destroy_context = &dc;
	fp_send(&c, &dm);
	fp_add_works(&c, 6, 30);

	fp_close(&c);
	fp_close(&e);
	test_daemon_stop(&d);
}
