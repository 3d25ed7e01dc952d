/* Failure paths end to end: injected backend faults (WEBNN_REFERENCE_FAULT) through webnnd to libwebnn. */
#include "tests/clienttest.h"
#include "tests/ptclient.h"

#include <poll.h>
#include <stdlib.h>

#include "proto/wnn.h"
#include "webnn.h"

/* ---- daemons with a fault armed */

/* Starts a reference-backend webnnd with WEBNN_REFERENCE_FAULT=spec (NULL: unset). The variable
 * is dropped again at once so nothing else in this process (--no-fork runs) inherits it. */
static void fault_daemon(struct test_daemon *d, const char *spec)
{
	ct_require_webnnd();
	if (spec)
		ASSERT(setenv("WEBNN_REFERENCE_FAULT", spec, 1) == 0);
	else
		unsetenv("WEBNN_REFERENCE_FAULT");
	test_daemon_start(d, pt_reference);
	unsetenv("WEBNN_REFERENCE_FAULT");
}

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
	struct webnn_context *ctx = ct_connect(&d, "test_faults");
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
	struct webnn_context *ctx = ct_connect(&d, "test_faults");
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
	struct webnn_context *ctx = ct_connect(&d, "test_faults"), *other = ct_connect(&d, "test_faults");
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
	struct webnn_context *late = ct_connect(&d, "test_faults");
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
		struct webnn_context *ctx = ct_connect(&d, "test_faults");
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

/* A connection on which every event must be asked for: unexpected ones fail the test. */
static void fp_connect(struct pt_conn *c, const struct test_daemon *d)
{
	pt_connect(c, d);
	c->strict = true;
}

static const uint32_t fp_shape[2] = { 2, 3 };

static void fp_read_err(struct pt_conn *c, uint32_t id, struct pt_events *ev, int status,
			const char *needle)
{
	pt_expect_err(pt_read_reply_ev(c, id, ev), status, needle);
}

static void fp_flush_msg(Webnn__Ipc__ClientMessage *m, Webnn__Ipc__Flush *f, uint32_t ctx)
{
	webnn__ipc__client_message__init(m);
	webnn__ipc__flush__init(f);
	f->context_id = ctx;
	m->body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH;
	m->flush = f;
}

/* Graph base, tensors base+1 (x), base+2 (y), base+3 (z) in context ctx; x and y written. */
static void fp_setup_add(struct pt_conn *c, uint32_t ctx, uint32_t base)
{
	struct pt_graph g;
	pt_add_graph(&g, ctx, base);
	pt_call_ok(c, &g.m);
	for (uint32_t i = 1; i <= 3; i++)
		pt_create_tensor(c, ctx, base + i, fp_shape, 2);
	pt_write_inline(c, base + 1, fault_a, sizeof(fault_a));
	pt_write_inline(c, base + 2, fault_b, sizeof(fault_b));
}

/* Dispatches z = x + y and checks it. */
static void fp_add_works(struct pt_conn *c, uint32_t ctx, uint32_t base)
{
	pt_dispatch(c, ctx, base, base + 1, base + 2, base + 3);
	pt_read_expect(c, base + 3, fault_sum, 6);
}

TEST(faults_protocol_error_event)
{
	struct test_daemon d;
	fault_daemon(&d, "execute-error-once:1");
	struct pt_conn c;
	fp_connect(&c, &d);
	pt_hello(&c, "test_faults");
	pt_create_context(&c, 7);
	fp_setup_add(&c, 7, 20);

	/* The failed dispatch: one ErrorEvent naming the context and the graph, before the
	 * flush reply; the reply itself is a success (flush reports nothing on the wire). */
	pt_dispatch(&c, 7, 20, 21, 22, 23);
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__Flush f;
	fp_flush_msg(&m, &f, 7);
	struct pt_events ev = { 0 };
	pt_expect_ok(pt_call_ev(&c, &m, NULL, 0, &ev));
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
	pt_read_expect(&c, 21, fault_a, 6);

	/* A poisoned input fails a dispatch before it runs, naming the input. */
	pt_dispatch(&c, 7, 20, 23, 22, 21);
	memset(&ev, 0, sizeof(ev));
	pt_expect_ok(pt_call_ev(&c, &m, NULL, 0, &ev));
	ASSERT_EQ(ev.errors, 1);
	ASSERT_EQ(ev.error_context[0], 7);
	ASSERT_EQ(ev.error_object[0], 20);
	ASSERT_EQ(ev.error_status[0], WEBNN__IPC__STATUS__OPERATION_ERROR);
	ASSERT_CONTAINS(ev.error_message[0], "dispatch: input 'x': tensor 23 holds no valid data");
	fp_read_err(&c, 21, NULL, WEBNN__IPC__STATUS__OPERATION_ERROR,
		    "dispatch of graph 20 failed: dispatch: input 'x'");

	/* A write, then a successful dispatch, clear the poison. */
	pt_write_inline(&c, 21, fault_a, sizeof(fault_a));
	pt_read_expect(&c, 21, fault_a, 6);
	fp_add_works(&c, 7, 20);
	memset(&ev, 0, sizeof(ev));
	pt_expect_ok(pt_call_ev(&c, &m, NULL, 0, &ev));
	ASSERT_EQ(ev.errors, 0);

	pt_close(&c);
	test_daemon_stop(&d);
}

TEST(faults_protocol_context_lost_once)
{
	struct test_daemon d;
	fault_daemon(&d, "context-lost:1");
	/* Connection c has two contexts (5 loses its device, 6 must not care); e is another
	 * client. */
	struct pt_conn c, e;
	fp_connect(&c, &d);
	pt_hello(&c, "test_faults");
	fp_connect(&e, &d);
	pt_hello(&e, "test_faults");
	pt_create_context(&c, 5);
	pt_create_context(&c, 6);
	pt_create_context(&e, 5);
	fp_setup_add(&c, 5, 10);
	fp_setup_add(&c, 6, 30);
	fp_setup_add(&e, 5, 10);

	/* Execute 1 loses context 5 of c; more work queued behind it fails without running. */
	pt_dispatch(&c, 5, 10, 11, 12, 13);
	pt_dispatch(&c, 5, 10, 11, 12, 13);
	pt_write_inline(&c, 11, fault_b, sizeof(fault_b));
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__Flush f;
	fp_flush_msg(&m, &f, 5);
	struct pt_events ev = { 0 };
	pt_expect_err(pt_call_ev(&c, &m, NULL, 0, &ev),
		      WEBNN__IPC__STATUS__CONTEXT_LOST, "context 5 is lost");
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
	struct pt_tensor_msg tm;
	pt_tensor_msg(&tm, 5, 14, WEBNN__IPC__DATA_TYPE__FLOAT32, fp_shape, 2, true, true);
	pt_expect_err(pt_call_ev(&c, &tm.m, NULL, 0, &ev),
		      WEBNN__IPC__STATUS__CONTEXT_LOST, "context 5 is lost");
	pt_dispatch(&c, 5, 10, 11, 12, 13);
	pt_expect_err(pt_call_ev(&c, &m, NULL, 0, &ev),
		      WEBNN__IPC__STATUS__CONTEXT_LOST, "context 5 is lost");
	ASSERT_EQ(ev.lost, 0);
	ASSERT_EQ(ev.errors, 1);
	ASSERT_EQ(ev.error_object[0], 10);
	ASSERT_EQ(ev.error_status[0], WEBNN__IPC__STATUS__CONTEXT_LOST);

	/* Context 6 on the same connection and context 5 of the other connection still work. */
	memset(&ev, 0, sizeof(ev));
	fp_add_works(&c, 6, 30);
	fp_flush_msg(&m, &f, 6);
	pt_expect_ok(pt_call_ev(&c, &m, NULL, 0, &ev));
	fp_add_works(&e, 5, 10);
	fp_flush_msg(&m, &f, 5);
	pt_call_ok(&e, &m);
	ASSERT_EQ(ev.lost, 0);
	ASSERT_EQ(ev.errors, 0);

	/* The lost context can still be destroyed cleanly; the connection lives on. */
	Webnn__Ipc__DestroyContext dc = WEBNN__IPC__DESTROY_CONTEXT__INIT;
	dc.context_id = 5;
	Webnn__Ipc__ClientMessage dm = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	dm.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONTEXT;
	dm.destroy_context = &dc;
	pt_send(&c, &dm);
	fp_add_works(&c, 6, 30);

	pt_close(&c);
	pt_close(&e);
	test_daemon_stop(&d);
}
