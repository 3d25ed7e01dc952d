/* webnn_context_read_tensor_async: reads that complete from the event loop, in order, and fail on loss. */
#include <poll.h>
#include <string.h>

#include "tests/clienttest.h"

struct ra_result {
	int calls;
	int order;       /* the value of ra_seq when the callback ran */
	enum webnn_status status;
	char message[256];
};
static int ra_seq;

static void ra_cb(void *user, enum webnn_status s, const char *message)
{
	struct ra_result *r = user;
	r->calls++;
	r->order = ++ra_seq;
	r->status = s;
	strncpy(r->message, message, sizeof(r->message) - 1);
}

/* The event loop of an application: poll the fd, let libwebnn handle what came. */
static void ra_loop_until(struct webnn_context *ctx, const int *done)
{
	for (int i = 0; i < 3000 && !*done; i++) {
		struct pollfd p = { webnn_context_get_fd(ctx), POLLIN, 0 };
		if (p.fd < 0)
			break;
		poll(&p, 1, 10);
		webnn_context_dispatch_events(ctx);
	}
}

/* y = x * 2 over 4 floats. */
static struct webnn_graph *ra_graph(struct webnn_context *ctx, struct webnn_operand_desc *d)
{
	static const uint32_t shape[] = { 4 };
	static const float two[4] = { 2, 2, 2, 2 };
	*d = ct_desc_of(WEBNN_FLOAT32, 1, shape);
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 1, shape);
	struct webnn_operand *k = ct_const(ctx, b, WEBNN_FLOAT32, 1, shape, two), *y = NULL;
	OK(ctx, webnn_builder_mul(b, x, k, &y));
	struct webnn_named_operand out = { "y", y };
	struct webnn_graph *g = NULL;
	OK(ctx, webnn_builder_build(b, &out, 1, &g));
	webnn_builder_destroy(b);
	return g;
}

TEST(read_async_completes_from_the_loop_in_order)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "read-async");
	struct webnn_operand_desc desc;
	struct webnn_graph *g = ra_graph(ctx, &desc);
	struct webnn_tensor_desc xd = { .desc = desc, .writable = true },
				 yd = { .desc = desc, .readable = true, .writable = true };
	struct webnn_tensor *tx = NULL, *ty = NULL;
	OK(ctx, webnn_context_create_tensor(ctx, &xd, &tx));
	OK(ctx, webnn_context_create_tensor(ctx, &yd, &ty));
	const float x1[4] = { 1, 2, 3, 4 }, later[4] = { -1, -1, -1, -1 };
	float got1[4] = { 0 }, got2[4] = { 0 };
	struct ra_result r1 = { 0 }, r2 = { 0 };
	OK(ctx, webnn_context_write_tensor(ctx, tx, x1, sizeof(x1)));
	struct webnn_named_tensor in = { "x", tx }, out = { "y", ty };
	OK(ctx, webnn_context_dispatch(ctx, g, &in, 1, &out, 1));
	ra_seq = 0;
	OK(ctx, webnn_context_read_tensor_async(ctx, ty, got1, sizeof(got1), ra_cb, &r1));
	/* A write after the read: the read still sees the dispatch's result (the write waits for
	 * the read's reply, which runs its callback from that call). */
	OK(ctx, webnn_context_write_tensor(ctx, ty, later, sizeof(later)));
	ASSERT_MSG(r1.calls == 1, "the write did not wait for the pending read (%d calls)", r1.calls);
	OK(ctx, webnn_context_read_tensor_async(ctx, ty, got2, sizeof(got2), ra_cb, &r2));
	ASSERT(r2.calls == 0); /* in flight: nothing blocked */
	ra_loop_until(ctx, &r2.calls);
	ASSERT_MSG(r1.status == WEBNN_STATUS_OK && r2.status == WEBNN_STATUS_OK, "%s / %s",
		   r1.message, r2.message);
	ASSERT(r1.order == 1 && r2.order == 2 && r1.calls == 1 && r2.calls == 1);
	for (int i = 0; i < 4; i++) {
		ASSERT_MSG(got1[i] == 2 * x1[i], "got1[%d] = %g", i, got1[i]);
		ASSERT_MSG(got2[i] == later[i], "got2[%d] = %g", i, got2[i]);
	}
	/* Argument errors are returned at once and never call back. */
	struct ra_result r3 = { 0 };
	FAILS(ctx, webnn_context_read_tensor_async(ctx, tx, got1, sizeof(got1), ra_cb, &r3),
	      WEBNN_STATUS_TYPE_ERROR, "readable");
	FAILS(ctx, webnn_context_read_tensor_async(ctx, ty, got1, 3, ra_cb, &r3),
	      WEBNN_STATUS_TYPE_ERROR, "byte length");
	ASSERT(r3.calls == 0);
	webnn_tensor_destroy(tx);
	webnn_tensor_destroy(ty);
	webnn_graph_destroy(g);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(read_async_pending_reads_fail_on_destroy_and_loss)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "read-async-destroy");
	struct webnn_operand_desc desc;
	struct webnn_graph *g = ra_graph(ctx, &desc);
	struct webnn_tensor_desc td = { .desc = desc, .readable = true, .writable = true };
	struct webnn_tensor *t = NULL;
	OK(ctx, webnn_context_create_tensor(ctx, &td, &t));
	float got[4];
	struct ra_result r = { 0 };
	OK(ctx, webnn_context_read_tensor_async(ctx, t, got, sizeof(got), ra_cb, &r));
	/* Destroying the tensor keeps the read's own reference: it still completes or fails. */
	webnn_tensor_destroy(t);
	webnn_context_destroy(ctx);
	ASSERT_MSG(r.calls == 1, "the pending read's callback ran %d times", r.calls);
	ASSERT(r.status == WEBNN_STATUS_CONTEXT_LOST || r.status == WEBNN_STATUS_OK);
	webnn_graph_destroy(g);

	/* The daemon goes away under a pending read: the read fails when the loss is noticed. */
	struct webnn_context *c2 = ct_connect(&d, "read-async-lost");
	struct webnn_tensor *t2 = NULL;
	OK(c2, webnn_context_create_tensor(c2, &td, &t2));
	test_daemon_stop(&d);
	struct ra_result r2 = { 0 };
	enum webnn_status s = webnn_context_read_tensor_async(c2, t2, got, sizeof(got), ra_cb, &r2);
	if (s == WEBNN_STATUS_OK)
		ra_loop_until(c2, &r2.calls);
	ASSERT_MSG(s == WEBNN_STATUS_CONTEXT_LOST || (r2.calls == 1 &&
						    r2.status == WEBNN_STATUS_CONTEXT_LOST),
		   "status %s, %d calls, %s", webnn_status_name(s), r2.calls, r2.message);
	webnn_tensor_destroy(t2);
	webnn_context_destroy(c2);
}
