/* libwebnn's asynchronous context creation, tensor creation and build: completion from the event loop, errors, loss. */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tests/clienttest.h"

/* What one callback reported, and when (ca_seq counts the callbacks of a test). */
struct ca_result {
	int calls, order;
	enum webnn_status status;
	char message[512];
	void *object; /* the tensor, graph or context delivered */
};
static int ca_seq;

static void ca_note(struct ca_result *r, enum webnn_status s, const char *message, void *object)
{
	r->calls++;
	r->order = ++ca_seq;
	r->status = s;
	r->object = object;
	snprintf(r->message, sizeof(r->message), "%s", message ? message : "(null)");
}

static void ca_tensor_cb(void *user, enum webnn_status s, const char *message,
			 struct webnn_tensor *t)
{
	ca_note(user, s, message, t);
}

static void ca_graph_cb(void *user, enum webnn_status s, const char *message,
			struct webnn_graph *g)
{
	ca_note(user, s, message, g);
}

static void ca_read_cb(void *user, enum webnn_status s, const char *message)
{
	ca_note(user, s, message, NULL);
}

static void ca_context_cb(void *user, enum webnn_status s, const char *message,
			  struct webnn_context *ctx)
{
	ca_note(user, s, message, ctx);
}

/* An application's event loop: poll the fd, let libwebnn handle what came. */
static void ca_loop_until(struct webnn_context *ctx, const int *done)
{
	for (int i = 0; i < 3000 && !*done; i++) {
		struct pollfd p = { webnn_context_get_fd(ctx), POLLIN, 0 };
		if (p.fd < 0)
			break;
		poll(&p, 1, 10);
		webnn_context_dispatch_events(ctx);
	}
}

static struct webnn_context *ca_connect_async(const struct test_daemon *d, const char *name)
{
	struct webnn_context_options o = WEBNN_CONTEXT_OPTIONS_INIT;
	o.socket_path = d->socket_path;
	o.client_name = name;
	o.accelerated = false;
	struct webnn_context *ctx = NULL;
	struct ca_result r = { 0 };
	char err[512] = "";
	enum webnn_status s = webnn_context_create_async(&o, &ctx, ca_context_cb, &r, err,
							 sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK && ctx, "create_async: %s: %s", webnn_status_name(s), err);
	ASSERT(r.calls == 0); /* the handshake is in flight */
	/* Not usable until the daemon's answer came. */
	struct webnn_builder *b = NULL;
	FAILS(ctx, webnn_builder_create(ctx, &b), WEBNN_STATUS_INVALID_STATE, "being created");
	ca_loop_until(ctx, &r.calls);
	ASSERT_MSG(r.calls == 1 && r.status == WEBNN_STATUS_OK && r.object == ctx, "%d calls, %s: %s",
		   r.calls, webnn_status_name(r.status), r.message);
	return ctx;
}

TEST(client_async_create_build_and_dispatch)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ca_connect_async(&d, "client-async");
	struct webnn_context_info info;
	webnn_context_get_info(ctx, &info);
	ASSERT(info.backend && *info.backend);

	static const uint32_t shape[] = { 4 };
	static const float two[4] = { 2, 2, 2, 2 }, three[4] = { 3, 3, 3, 3 };
	struct webnn_operand_desc desc = ct_desc_of(WEBNN_FLOAT32, 1, shape);
	struct webnn_tensor_desc xd = { .desc = desc, .writable = true },
				 yd = { .desc = desc, .readable = true };
	struct ca_result rx = { 0 }, ry = { 0 }, rk = { 0 }, rg = { 0 };
	ca_seq = 0;
	OK(ctx, webnn_context_create_tensor_async(ctx, &xd, ca_tensor_cb, &rx));
	OK(ctx, webnn_context_create_tensor_async(ctx, &yd, ca_tensor_cb, &ry));
	OK(ctx, webnn_context_create_constant_tensor_async(ctx, &desc, two, sizeof(two),
							   ca_tensor_cb, &rk));
	/* (A tensor's storage registration is waited for; replies read meanwhile may already
	 * have run earlier callbacks, in order.) */
	ca_loop_until(ctx, &rk.calls);
	ASSERT_MSG(rx.status == WEBNN_STATUS_OK && ry.status == WEBNN_STATUS_OK &&
			   rk.status == WEBNN_STATUS_OK, "%s / %s / %s", rx.message, ry.message,
		   rk.message);
	/* Tensor creations are on the timeline: answered in the order sent. */
	ASSERT_MSG(rx.order == 1 && ry.order == 2 && rk.order == 3, "order %d %d %d", rx.order,
		   ry.order, rk.order);
	struct webnn_tensor *tx = rx.object, *ty = ry.object, *tk = rk.object;

	/* y = x * k + 3, k a constant tensor, 3 a builder constant (uploaded before the build). */
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 1, shape), *k = NULL;
	OK(ctx, webnn_builder_constant_tensor(b, tk, &k));
	struct webnn_operand *c = ct_const(ctx, b, WEBNN_FLOAT32, 1, shape, three), *xk = NULL,
			     *y = NULL;
	OK(ctx, webnn_builder_mul(b, x, k, &xk));
	OK(ctx, webnn_builder_add(b, xk, c, &y));
	struct webnn_named_operand out = { "y", y };
	OK(ctx, webnn_builder_build_async(b, &out, 1, ca_graph_cb, &rg));
	ASSERT(rg.calls == 0);
	/* The builder is spent as soon as the graph is sent. */
	FAILS(ctx, webnn_builder_build_async(b, &out, 1, ca_graph_cb, &rg),
	      WEBNN_STATUS_INVALID_STATE, "already built");
	ca_loop_until(ctx, &rg.calls);
	ASSERT_MSG(rg.calls == 1 && rg.status == WEBNN_STATUS_OK && rg.object, "%s: %s",
		   webnn_status_name(rg.status), rg.message);
	struct webnn_graph *g = rg.object;
	ASSERT(webnn_graph_input_count(g) == 1 && webnn_graph_output_count(g) == 1);

	const float in[4] = { 1, -2, 3, 0.5f };
	float got[4] = { 0 };
	OK(ctx, webnn_context_write_tensor(ctx, tx, in, sizeof(in)));
	struct webnn_named_tensor bi = { "x", tx }, bo = { "y", ty };
	OK(ctx, webnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
	OK(ctx, webnn_context_read_tensor(ctx, ty, got, sizeof(got)));
	for (int i = 0; i < 4; i++)
		ASSERT_MSG(got[i] == in[i] * 2 + 3, "got[%d] = %g", i, got[i]);

	/* A tensor created while a read is in flight: answered after it, in timeline order. */
	struct ca_result rr = { 0 }, rz = { 0 };
	ca_seq = 0;
	OK(ctx, webnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
	OK(ctx, webnn_context_read_tensor_async(ctx, ty, got, sizeof(got), ca_read_cb, &rr));
	OK(ctx, webnn_context_create_tensor_async(ctx, &yd, ca_tensor_cb, &rz));
	ca_loop_until(ctx, &rz.calls);
	ASSERT_MSG(rr.order == 1 && rz.order == 2 && rz.status == WEBNN_STATUS_OK,
		   "read %d, create %d: %s", rr.order, rz.order, rz.message);
	webnn_tensor_destroy(rz.object);

	/* Argument errors are returned at once and never call back. */
	struct ca_result bad = { 0 };
	struct webnn_tensor_desc badd = yd;
	badd.desc.data_type = (enum webnn_data_type)99;
	FAILS(ctx, webnn_context_create_tensor_async(ctx, &badd, ca_tensor_cb, &bad),
	      WEBNN_STATUS_TYPE_ERROR, "");
	FAILS(ctx, webnn_context_create_tensor_async(ctx, &yd, NULL, &bad),
	      WEBNN_STATUS_TYPE_ERROR, "callback");
	FAILS(ctx, webnn_context_create_constant_tensor_async(ctx, &desc, two, 3, ca_tensor_cb,
							      &bad),
	      WEBNN_STATUS_TYPE_ERROR, "byte length");
	ASSERT(bad.calls == 0);

	webnn_tensor_destroy(tx);
	webnn_tensor_destroy(ty);
	webnn_tensor_destroy(tk);
	webnn_graph_destroy(g);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* A graph large enough that its build is still in flight when the test acts on it. */
static struct webnn_builder *ca_big_builder(struct webnn_context *ctx, struct webnn_operand **y)
{
	static const uint32_t shape[] = { 64, 64 };
	static float w[64 * 64];
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, shape);
	for (int i = 0; i < 64; i++) {
		struct webnn_operand *k = ct_const(ctx, b, WEBNN_FLOAT32, 2, shape, w), *m = NULL;
		OK(ctx, webnn_builder_matmul(b, x, k, &m));
		OK(ctx, webnn_builder_relu(b, m, &x));
	}
	*y = x;
	return b;
}

TEST(client_async_pending_calls_fail_on_destroy_and_loss)
{
	struct test_daemon d;
	ct_daemon_up(&d);

	/* Destroyed with a build and a tensor creation pending: both fail from the destroy. */
	struct webnn_context *ctx = ca_connect_async(&d, "client-async-destroy");
	struct webnn_operand *y = NULL;
	struct webnn_builder *b = ca_big_builder(ctx, &y);
	struct webnn_named_operand out = { "y", y };
	struct ca_result rg = { 0 }, rt = { 0 };
	static const uint32_t shape[] = { 4 };
	struct webnn_tensor_desc td = { .desc = ct_desc_of(WEBNN_FLOAT32, 1, shape),
					.readable = true };
	/* The tensor first: its storage registration is waited for, and may read (and so
	 * complete) what was sent before it; nothing is read between the build and the destroy. */
	OK(ctx, webnn_context_create_tensor_async(ctx, &td, ca_tensor_cb, &rt));
	OK(ctx, webnn_builder_build_async(b, &out, 1, ca_graph_cb, &rg));
	webnn_context_destroy(ctx);
	ASSERT_MSG(rg.calls == 1 && rt.calls == 1, "callbacks ran %d / %d times", rg.calls,
		   rt.calls);
	/* (The build's constants go through the arena when large: its uploads may wait for
	 * the daemon, but not for the build's own reply.) */
	ASSERT_MSG(rg.status == WEBNN_STATUS_CONTEXT_LOST && !rg.object, "build: %s: %s",
		   webnn_status_name(rg.status), rg.message);
	ASSERT_CONTAINS(rg.message, "build: context lost");
	ASSERT((rt.status == WEBNN_STATUS_CONTEXT_LOST && !rt.object) ||
	       (rt.status == WEBNN_STATUS_OK && rt.object));
	webnn_tensor_destroy(rt.object);
	webnn_builder_destroy(b);

	/* The daemon goes away under a pending build: it fails once the loss is noticed. */
	struct webnn_context *c2 = ca_connect_async(&d, "client-async-lost");
	struct webnn_builder *b2 = ca_big_builder(c2, &y);
	struct webnn_named_operand out2 = { "y", y };
	struct ca_result r2 = { 0 };
	OK(c2, webnn_builder_build_async(b2, &out2, 1, ca_graph_cb, &r2));
	test_daemon_stop(&d);
	ca_loop_until(c2, &r2.calls);
	ASSERT_MSG(r2.calls == 1, "the build's callback ran %d times", r2.calls);
	/* Built before the daemon stopped, or lost. */
	ASSERT_MSG(r2.status == WEBNN_STATUS_CONTEXT_LOST || r2.status == WEBNN_STATUS_OK,
		   "%s: %s", webnn_status_name(r2.status), r2.message);
	if (r2.object)
		webnn_graph_destroy(r2.object);
	struct ca_result r3 = { 0 };
	enum webnn_status s = webnn_context_create_tensor_async(c2, &td, ca_tensor_cb, &r3);
	if (s == WEBNN_STATUS_OK)
		ca_loop_until(c2, &r3.calls);
	ASSERT_MSG(s == WEBNN_STATUS_CONTEXT_LOST ||
			   (r3.calls == 1 && r3.status == WEBNN_STATUS_CONTEXT_LOST),
		   "%s, %d calls, %s", webnn_status_name(s), r3.calls, r3.message);
	webnn_builder_destroy(b2);
	webnn_context_destroy(c2);
}

TEST(client_async_create_context_errors)
{
	/* Nobody listening: refused at once, no callback. */
	char dir[] = "/tmp/webnn-async-XXXXXX";
	ASSERT(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof(path), "%s/sock", dir);
	struct webnn_context_options o = WEBNN_CONTEXT_OPTIONS_INIT;
	o.socket_path = path;
	struct webnn_context *ctx = NULL;
	struct ca_result r = { 0 };
	char err[512] = "";
	ASSERT(webnn_context_create_async(&o, &ctx, ca_context_cb, &r, err, sizeof(err)) ==
	       WEBNN_STATUS_NOT_SUPPORTED);
	ASSERT(!ctx && r.calls == 0);
	ASSERT_CONTAINS(err, "is webnnd running?");
	ASSERT(webnn_context_create_async(&o, &ctx, NULL, &r, err, sizeof(err)) ==
	       WEBNN_STATUS_TYPE_ERROR);

	/* A listener that accepts and hangs up without a handshake: the callback reports
	 * NotSupportedError, as webnn_context_create does. */
	int ls = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, path, strlen(path) + 1); /* well under sun_path */
	ASSERT(ls >= 0 && bind(ls, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(ls, 4) == 0);
	OK(NULL, webnn_context_create_async(&o, &ctx, ca_context_cb, &r, err, sizeof(err)));
	ASSERT(ctx && r.calls == 0);
	int cs = accept(ls, NULL, NULL);
	ASSERT(cs >= 0);
	close(cs);
	ca_loop_until(ctx, &r.calls);
	ASSERT_MSG(r.calls == 1 && r.status == WEBNN_STATUS_NOT_SUPPORTED, "%d calls, %s: %s",
		   r.calls, webnn_status_name(r.status), r.message);
	ASSERT_CONTAINS(r.message, "createContext");
	webnn_context_destroy(ctx);

	/* Destroyed before the daemon answered: the callback runs from the destroy. */
	struct ca_result r2 = { 0 };
	OK(NULL, webnn_context_create_async(&o, &ctx, ca_context_cb, &r2, err, sizeof(err)));
	webnn_context_destroy(ctx);
	ASSERT_MSG(r2.calls == 1 && r2.status != WEBNN_STATUS_OK, "%d calls, %s", r2.calls,
		   webnn_status_name(r2.status));
	cs = accept(ls, NULL, NULL);
	if (cs >= 0)
		close(cs);
	close(ls);
	unlink(path);
	rmdir(dir);
}

TEST(client_async_hold_sends_goes_with_the_next_request)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "client-hold");
	static const uint32_t shape[] = { 4 };
	struct webnn_operand_desc desc = ct_desc_of(WEBNN_FLOAT32, 1, shape);
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 1, shape), *y = NULL;
	OK(ctx, webnn_builder_neg(b, x, &y));
	struct webnn_named_operand out = { "y", y };
	struct webnn_graph *g = NULL;
	OK(ctx, webnn_builder_build(b, &out, 1, &g));
	struct webnn_tensor_desc xd = { .desc = desc, .writable = true },
				 yd = { .desc = desc, .readable = true };
	struct webnn_tensor *tx = NULL, *ty = NULL;
	OK(ctx, webnn_context_create_tensor(ctx, &xd, &tx));
	OK(ctx, webnn_context_create_tensor(ctx, &yd, &ty));
	webnn_context_hold_sends(ctx, true);
	ASSERT(!webnn_context_has_held(ctx));
	const float in[4] = { 1, 2, 3, 4 };
	float got[4] = { 0 };
	struct webnn_named_tensor bi = { "x", tx }, bo = { "y", ty };

	/* Held: the write and the dispatch wait; send_held sends them. */
	OK(ctx, webnn_context_write_tensor(ctx, tx, in, sizeof(in)));
	OK(ctx, webnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
	ASSERT(webnn_context_has_held(ctx));
	OK(ctx, webnn_context_send_held(ctx));
	ASSERT(!webnn_context_has_held(ctx));
	OK(ctx, webnn_context_read_tensor(ctx, ty, got, sizeof(got)));
	for (int i = 0; i < 4; i++)
		ASSERT_MSG(got[i] == -in[i], "got[%d] = %g", i, got[i]);

	/* A request with a reply takes what is held along, in order: an asynchronous read sees
	 * the write and the dispatch before it. */
	const float in2[4] = { 5, 6, 7, 8 };
	struct ca_result r = { 0 };
	OK(ctx, webnn_context_write_tensor(ctx, tx, in2, sizeof(in2)));
	OK(ctx, webnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
	OK(ctx, webnn_context_read_tensor_async(ctx, ty, got, sizeof(got), ca_read_cb, &r));
	ASSERT(!webnn_context_has_held(ctx));
	ca_loop_until(ctx, &r.calls);
	ASSERT_MSG(r.status == WEBNN_STATUS_OK, "%s", r.message);
	for (int i = 0; i < 4; i++)
		ASSERT_MSG(got[i] == -in2[i], "got[%d] = %g", i, got[i]);

	/* flush takes what is held along too. */
	OK(ctx, webnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
	ASSERT(webnn_context_has_held(ctx));
	OK(ctx, webnn_context_flush(ctx));
	ASSERT(!webnn_context_has_held(ctx));

	/* Destroys held at the end go out with the context's own goodbye; the daemon serves the
	 * next client as before. */
	webnn_tensor_destroy(tx);
	webnn_graph_destroy(g);
	ASSERT(webnn_context_has_held(ctx));
	webnn_tensor_destroy(ty);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	struct webnn_context *c2 = ct_connect(&d, "client-hold-after");
	OK(c2, webnn_context_flush(c2));

	/* A daemon that went away: what is held cannot go, the context is lost. */
	webnn_context_hold_sends(c2, true);
	struct webnn_tensor *t2 = NULL;
	OK(c2, webnn_context_create_tensor(c2, &yd, &t2));
	test_daemon_stop(&d);
	webnn_tensor_destroy(t2); /* held */
	enum webnn_status s = WEBNN_STATUS_OK;
	for (int i = 0; i < 100 && s == WEBNN_STATUS_OK; i++) {
		webnn_context_dispatch_events(c2);
		s = webnn_context_flush(c2);
	}
	ASSERT_MSG(s == WEBNN_STATUS_CONTEXT_LOST, "%s", webnn_status_name(s));
	ASSERT(webnn_context_is_lost(c2));
	webnn_context_destroy(c2);
}

TEST(client_async_tensor_without_storage_when_the_daemon_refuses_its_slot)
{
	/* The uid's slot cap, below what one connection may hold: the daemon refuses the storage
	 * of the later tensors, which are then kept by the daemon, as the blocking call does. */
	static const char *const args[] = { "--backend", "reference", "--limit",
					    "max_uid_shm_slots=3", NULL };
	struct test_daemon d;
	ct_require_webnnd();
	test_daemon_start(&d, args);
	struct webnn_context *ctx = ca_connect_async(&d, "client-async-slots");
	static const uint32_t shape[] = { 4 };
	struct webnn_tensor_desc td = { .desc = ct_desc_of(WEBNN_FLOAT32, 1, shape),
					.readable = true, .writable = true };
	enum { N = 8 };
	struct ca_result r[N];
	memset(r, 0, sizeof(r));
	for (int i = 0; i < N; i++)
		OK(ctx, webnn_context_create_tensor_async(ctx, &td, ca_tensor_cb, &r[i]));
	ca_loop_until(ctx, &r[N - 1].calls);
	for (int i = 0; i < N; i++) {
		ASSERT_MSG(r[i].calls == 1 && r[i].status == WEBNN_STATUS_OK && r[i].object,
			   "tensor %d: %d calls, %s: %s", i, r[i].calls,
			   webnn_status_name(r[i].status), r[i].message);
		float v[4] = { (float)i, 1, 2, 3 }, got[4] = { 0 };
		OK(ctx, webnn_context_write_tensor(ctx, r[i].object, v, sizeof(v)));
		OK(ctx, webnn_context_read_tensor(ctx, r[i].object, got, sizeof(got)));
		ASSERT_MSG(got[0] == (float)i && got[3] == 3, "tensor %d read %g", i, got[0]);
	}
	OK(ctx, webnn_context_flush(ctx));
	for (int i = 0; i < N; i++)
		webnn_tensor_destroy(r[i].object);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}
