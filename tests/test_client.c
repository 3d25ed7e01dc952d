/* libwebnn API tests against a real webnnd (reference backend): contexts, builder, tensors, graphs. */
#include "proto/webnn.pb-c.h"
#include "tests/clienttest.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto/wire.h"
#include "proto/wnn.h"
#include "webnn.h"

static struct webnn_tensor *make_tensor(struct webnn_context *ctx, struct webnn_operand_desc d,
					bool readable, bool writable)
{
	struct webnn_tensor_desc td = { d, readable, writable };
	struct webnn_tensor *t = NULL;
	enum webnn_status s = webnn_context_create_tensor(ctx, &td, &t);
	ASSERT_MSG(s == WEBNN_STATUS_OK, "create_tensor: %s", webnn_context_last_error(ctx));
	return t;
}

/* ---- no daemon needed */

TEST(client_status_and_data_types)
{
	ASSERT_STREQ(webnn_status_name(WEBNN_STATUS_TYPE_ERROR), "TypeError");
	ASSERT_STREQ(webnn_status_name(WEBNN_STATUS_CONTEXT_LOST), "InvalidStateError");
	ASSERT_STREQ(webnn_status_name(WEBNN_STATUS_OK), "OK");
	ASSERT_STREQ(webnn_status_string(WEBNN_STATUS_OK), "success");
	ASSERT_STREQ(webnn_status_string(WEBNN_STATUS_NOT_SUPPORTED),
		     "not supported by this context");
	ASSERT_STREQ(webnn_status_name((enum webnn_status)99), "UnknownError");
	ASSERT_EQ(webnn_data_type_size(WEBNN_FLOAT16), 2);
	ASSERT_EQ(webnn_data_type_size(WEBNN_UINT64), 8);
	ASSERT_EQ(webnn_data_type_size((enum webnn_data_type)0), 0);
	ASSERT_STREQ(webnn_data_type_name(WEBNN_INT8), "int8");
	ASSERT(webnn_data_type_name((enum webnn_data_type)42) == NULL);
}

/* int4/uint4 (extension): half a byte each, packed low nibble first. */
TEST(client_int4_byte_length_and_packing)
{
	ASSERT_EQ(webnn_data_type_size(WEBNN_INT4), 0);
	ASSERT_EQ(webnn_data_type_byte_length(WEBNN_INT4, 3), 2);
	ASSERT_EQ(webnn_data_type_byte_length(WEBNN_UINT4, 4), 2);
	ASSERT_EQ(webnn_data_type_byte_length(WEBNN_UINT4, 1), 1);
	ASSERT_EQ(webnn_data_type_byte_length(WEBNN_FLOAT32, 3), 12);
	ASSERT_EQ(webnn_data_type_byte_length((enum webnn_data_type)42, 3), 0);
	ASSERT_STREQ(webnn_data_type_name(WEBNN_INT4), "int4");
	ASSERT_STREQ(webnn_data_type_name(WEBNN_UINT4), "uint4");
	const int8_t vals[3] = { -8, 7, -1 };
	uint8_t packed[2] = { 0xaa, 0xaa };
	webnn_int4_pack(vals, 3, packed);
	/* element 0 low nibble, element 1 high; the odd count's spare high nibble is 0 */
	ASSERT_EQ(packed[0], 0x78);
	ASSERT_EQ(packed[1], 0x0f);
	int8_t back[3];
	webnn_int4_unpack(WEBNN_INT4, packed, 3, back);
	ASSERT(back[0] == -8 && back[1] == 7 && back[2] == -1);
	webnn_int4_unpack(WEBNN_UINT4, packed, 3, back);
	ASSERT(back[0] == 8 && back[1] == 7 && back[2] == 15);
}

/* int4/uint4 exist only in the quantize roles WPT and Chromium give them; the byte length of a
 * constant is ceil(n / 2). */
TEST(client_int4_roles_and_constant_length)
{
	ct_require_webnnd();
	struct test_daemon td;
	ct_daemon_up(&td);
	struct webnn_context *ctx = ct_connect(&td, "test_client");
	struct webnn_tensor_limits l;
	ASSERT(webnn_context_op_limits(ctx, "dequantizeLinear", "input", &l));
	ASSERT(l.data_types & (1u << WEBNN_INT4) && l.data_types & (1u << WEBNN_UINT4));
	ASSERT(webnn_context_op_limits(ctx, "dequantizeLinear", "zeroPoint", &l));
	ASSERT(l.data_types & (1u << WEBNN_INT4) && l.data_types & (1u << WEBNN_UINT4));
	ASSERT(webnn_context_op_limits(ctx, "quantizeLinear", "zeroPoint", &l));
	ASSERT(l.data_types & (1u << WEBNN_INT4) && l.data_types & (1u << WEBNN_UINT4));
	ASSERT(webnn_context_op_limits(ctx, "quantizeLinear", "output", &l));
	ASSERT(l.data_types & (1u << WEBNN_INT4) && l.data_types & (1u << WEBNN_UINT4));
	ASSERT(webnn_context_op_limits(ctx, "quantizeLinear", "input", &l));
	ASSERT(!(l.data_types & (1u << WEBNN_INT4)));
	ASSERT(webnn_context_op_limits(ctx, "add", "a", &l));
	ASSERT(!(l.data_types & (1u << WEBNN_INT4)) && !(l.data_types & (1u << WEBNN_UINT4)));
	ASSERT(webnn_context_op_limits(ctx, "cast", "output", &l));
	ASSERT(!(l.data_types & (1u << WEBNN_INT4)));

	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand_desc d = ct_desc_of(WEBNN_INT4, 1, (uint32_t[]){ 3 });
	struct webnn_operand *c = NULL, *x = NULL, *y = NULL;
	const uint8_t three[3] = { 0 };
	FAILS(ctx, webnn_builder_constant(b, &d, three, 3, &c), WEBNN_STATUS_TYPE_ERROR,
	      "constant: data is 3 bytes, the descriptor's byte length is 2");
	OK(ctx, webnn_builder_constant(b, &d, three, 2, &c));
	OK(ctx, webnn_builder_input(b, "x", &d, &x));
	FAILS(ctx, webnn_builder_add(b, x, c, &y), WEBNN_STATUS_TYPE_ERROR,
	      "add: a data type int4 is not allowed");
	FAILS(ctx, webnn_builder_cast(b, x, WEBNN_FLOAT32, &y), WEBNN_STATUS_TYPE_ERROR,
	      "cast: input data type int4 is not allowed");
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&td);
}

/* An int4 intermediate between quantizeLinear and dequantizeLinear, also a graph output: packed
 * in the memory plan, and folded at build when the input is a constant. */
TEST(client_int4_quantize_dequantize_chain)
{
	ct_require_webnnd();
	struct test_daemon td;
	ct_daemon_up(&td);
	struct webnn_context *ctx = ct_connect(&td, "test_client");
	static const float xs[7] = { 0, 1, -1.25f, 100, -100, 3.3f, -7.9f };
	static const float half = 0.5f;
	static const uint8_t zp = 0x01; /* int4 1 */
	/* q = clamp(roundEven(x / 0.5) + 1, -8, 7) = 1 3 -1 7 -8 7 -8; y = (q - 1) * 0.5 */
	static const uint8_t want_q[4] = { 0x31, 0x7f, 0x78, 0x08 };
	static const float want_y[7] = { 0, 1, -1, 3, -4.5f, 3, -4.5f };
	for (int constant = 0; constant < 2; constant++) {
		struct webnn_builder *b = NULL;
		OK(ctx, webnn_builder_create(ctx, &b));
		uint32_t n = 7, one = 1;
		struct webnn_operand *x = constant ? ct_const(ctx, b, WEBNN_FLOAT32, 1, &n, xs)
						   : ct_input(ctx, b, "x", WEBNN_FLOAT32, 1, &n);
		struct webnn_operand *s = ct_const(ctx, b, WEBNN_FLOAT32, 1, &one, &half);
		struct webnn_operand *z = ct_const(ctx, b, WEBNN_INT4, 1, &one, &zp);
		struct webnn_operand *q = NULL, *y = NULL;
		OK(ctx, webnn_builder_quantize_linear(b, x, s, z, &q));
		OK(ctx, webnn_builder_dequantize_linear(b, q, s, z, &y));
		ct_assert_shape(q, WEBNN_INT4, 1, &n);
		uint8_t got_q[4];
		float got_y[7];
		memset(got_q, 0xff, sizeof got_q);
		const struct ct_io in[] = { { "x", NULL, (void *)xs } };
		const struct ct_io out[] = { { "q", q, got_q }, { "y", y, got_y } };
		ct_run(ctx, b, constant ? "constant x" : "input x", in, constant ? 0 : 1, out, 2);
		ASSERT_MSG(memcmp(got_q, want_q, sizeof want_q) == 0,
			   "q bytes %02x %02x %02x %02x", got_q[0], got_q[1], got_q[2], got_q[3]);
		ct_assert_floats("y", got_y, want_y, 7, 0);
		webnn_builder_destroy(b);
	}
	webnn_context_destroy(ctx);
	test_daemon_stop(&td);
}

/* The last error describes the latest call: a successful call, on the context or on one of
 * its objects, leaves "". */
TEST(client_last_error_cleared_by_a_successful_call)
{
	ct_require_webnnd();
	struct test_daemon td;
	ct_daemon_up(&td);
	struct webnn_context *ctx = ct_connect(&td, "test_client");
	ASSERT_STREQ(webnn_context_last_error(ctx), "");
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand_desc d = ct_desc_of(WEBNN_FLOAT32, 1, (uint32_t[]){ 4 });
	struct webnn_operand_desc d8 = ct_desc_of(WEBNN_INT8, 1, (uint32_t[]){ 4 });
	struct webnn_operand *x = NULL, *y = NULL, *z = NULL;
	OK(ctx, webnn_builder_input(b, "x", &d, &x));
	OK(ctx, webnn_builder_input(b, "y", &d8, &y));
	/* a builder call fails, then one on the builder succeeds */
	FAILS(ctx, webnn_builder_add(b, x, y, &z), WEBNN_STATUS_TYPE_ERROR, "add:");
	OK(ctx, webnn_builder_relu(b, x, &z));
	ASSERT_STREQ(webnn_context_last_error(ctx), "");
	/* a tensor call fails, then a context call succeeds */
	struct webnn_tensor_desc tdsc = { d, true, true };
	struct webnn_tensor *t = NULL;
	OK(ctx, webnn_context_create_tensor(ctx, &tdsc, &t));
	float four[4] = { 0 };
	FAILS(ctx, webnn_context_write_tensor(ctx, t, four, 3), WEBNN_STATUS_TYPE_ERROR,
	      "data is 3 bytes");
	OK(ctx, webnn_context_write_tensor(ctx, t, four, sizeof four));
	ASSERT_STREQ(webnn_context_last_error(ctx), "");
	FAILS(ctx, webnn_context_read_tensor(ctx, t, four, 3), WEBNN_STATUS_TYPE_ERROR,
	      "data is 3 bytes");
	OK(ctx, webnn_context_flush(ctx));
	ASSERT_STREQ(webnn_context_last_error(ctx), "");
	webnn_tensor_destroy(t);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&td);
}

/* The harness puts daemon sockets and scratch directories under $TMPDIR (else /tmp). */
TEST(client_harness_honours_tmpdir)
{
	ct_require_webnnd();
	char base[4096];
	test_scratch_dir(base, sizeof(base), "webnn-tmpdir");
	setenv("TMPDIR", base, 1);
	ASSERT_STREQ(test_tmpdir(), base);
	struct test_daemon td;
	ct_daemon_up(&td);
	ASSERT_MSG(strncmp(td.socket_path, base, strlen(base)) == 0 &&
			   td.socket_path[strlen(base)] == '/',
		   "socket %s is not under TMPDIR %s", td.socket_path, base);
	struct webnn_context *ctx = ct_connect(&td, "test_client");
	webnn_context_destroy(ctx);
	test_daemon_stop(&td);
	char scratch[4096];
	test_scratch_dir(scratch, sizeof(scratch), "webnn-scratch");
	ASSERT(strncmp(scratch, base, strlen(base)) == 0);
	ASSERT(rmdir(scratch) == 0);
	unsetenv("TMPDIR");
	ASSERT_STREQ(test_tmpdir(), "/tmp");
	ASSERT(rmdir(base) == 0);
}

TEST(client_connect_error_message)
{
	struct webnn_context_options o = WEBNN_CONTEXT_OPTIONS_INIT;
	o.socket_path = "/nonexistent/webnnd.sock";
	struct webnn_context *ctx = (struct webnn_context *)1;
	char err[512] = "";
	enum webnn_status s = webnn_context_create(&o, &ctx, err, sizeof(err));
	ASSERT(s != WEBNN_STATUS_OK);
	ASSERT(ctx == NULL);
	ASSERT_STREQ(err, "cannot connect to webnnd at /nonexistent/webnnd.sock: No such file or "
			  "directory (is webnnd running?)");
	/* $WEBNN_SOCKET is the fallback when the options name no socket. */
	setenv("WEBNN_SOCKET", "/nonexistent/env.sock", 1);
	struct webnn_context_options o2 = WEBNN_CONTEXT_OPTIONS_INIT;
	s = webnn_context_create(&o2, &ctx, err, sizeof(err));
	ASSERT(s != WEBNN_STATUS_OK);
	ASSERT_CONTAINS(err, "/nonexistent/env.sock");
	unsetenv("WEBNN_SOCKET");
}

/* ---- contexts */

/* preferredInputLayout is the backend's: NHWC on OpenCL, whose conv2d fast paths are NHWC. */
TEST_TIMEOUT(client_context_preferred_layout_opencl, 120)
{
	ct_require_webnnd();
	if (!test_have_opencl())
		SKIP("no OpenCL device");
	const char *const args[] = { "--backend", "opencl", NULL };
	struct test_daemon d;
	test_daemon_start(&d, args);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	struct webnn_context_info info;
	webnn_context_get_info(ctx, &info);
	ASSERT_STREQ(info.backend, "opencl");
	struct webnn_support_limits sl;
	webnn_context_support_limits(ctx, &sl);
	ASSERT_EQ(sl.preferred_input_layout, WEBNN_LAYOUT_NHWC);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* A context with the given options on a daemon started without --backend; its backend. */
static void ct_route(struct test_daemon *d, bool accelerated, enum webnn_power_preference pp,
		     char *backend, size_t len)
{
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	co.socket_path = d->socket_path;
	co.accelerated = accelerated;
	co.power_preference = pp;
	struct webnn_context *ctx = NULL;
	char err[512] = "";
	enum webnn_status s = webnn_context_create(&co, &ctx, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "context: %s: %s", webnn_status_name(s), err);
	struct webnn_context_info info;
	webnn_context_get_info(ctx, &info);
	snprintf(backend, len, "%s", info.backend);
	struct webnn_support_limits sl;
	webnn_context_support_limits(ctx, &sl);
	if (strcmp(backend, "cpu") == 0) /* oneDNN's convolutions read NHWC */
		ASSERT_EQ(sl.preferred_input_layout, WEBNN_LAYOUT_NHWC);
	webnn_context_destroy(ctx);
}

/* Without --backend: CPUs run on the cpu backend, GPUs and accelerators on opencl; the device
 * list says which backend serves which device, in routing order. */
TEST_TIMEOUT(client_context_routing_by_device, 120)
{
	ct_require_webnnd();
	struct test_daemon d;
	test_daemon_start(&d, NULL);
	struct webnn_device_info *devs = NULL;
	size_t n = 0;
	char err[512] = "";
	ASSERT_MSG(webnn_list_devices(d.socket_path, &devs, &n, err, sizeof(err)) ==
			   WEBNN_STATUS_OK, "listDevices: %s", err);
	ASSERT(n >= 1);
	ASSERT_STREQ(devs[0].backend, "cpu");
	ASSERT_STREQ(devs[0].device_type, "cpu");
	ASSERT(!devs[0].accelerated);
	bool gpu = false;
	for (size_t i = 0; i < n; i++) {
		ASSERT(devs[i].device_name && *devs[i].device_name);
		/* PoCL's CPU device is never opened beside the cpu backend */
		if (strcmp(devs[i].backend, "opencl") == 0)
			ASSERT(devs[i].accelerated);
		gpu = gpu || devs[i].accelerated;
	}
	webnn_devices_free(devs, n);
	char b[32];
	ct_route(&d, true, WEBNN_POWER_DEFAULT, b, sizeof(b));
	ASSERT_STREQ(b, gpu ? "opencl" : "cpu");
	ct_route(&d, true, WEBNN_POWER_HIGH_PERFORMANCE, b, sizeof(b));
	ASSERT_STREQ(b, gpu ? "opencl" : "cpu");
	ct_route(&d, true, WEBNN_POWER_LOW_POWER, b, sizeof(b));
	ASSERT_STREQ(b, "cpu");
	ct_route(&d, false, WEBNN_POWER_DEFAULT, b, sizeof(b));
	ASSERT_STREQ(b, "cpu");

	/* webnn-info --list prints the same list as JSON */
	char cmd[8192], out[8192] = "";
	snprintf(cmd, sizeof(cmd), "'%s/bin/webnn-info' --socket '%s' --list", test_build_dir(),
		 d.socket_path);
	FILE *p = popen(cmd, "r");
	ASSERT(p);
	size_t got = fread(out, 1, sizeof(out) - 1, p);
	out[got] = 0;
	ASSERT_EQ(pclose(p), 0);
	ASSERT_MSG(strstr(out, "\"backend\": \"cpu\"") && strstr(out, "\"devices\""),
		   "webnn-info --list printed: %s", out);
	test_daemon_stop(&d);

	/* forced: that backend alone, for every context */
	const char *const args[] = { "--backend", "reference", NULL };
	test_daemon_start(&d, args);
	ct_route(&d, true, WEBNN_POWER_HIGH_PERFORMANCE, b, sizeof(b));
	ASSERT_STREQ(b, "reference");
	test_daemon_stop(&d);
}

TEST(client_context_info_and_limits)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	struct webnn_context_info info;
	webnn_context_get_info(ctx, &info);
	ASSERT_STREQ(info.backend, "reference");
	ASSERT(info.device_name && *info.device_name);
	ASSERT(info.device_type && info.platform_name && info.driver_version);

	struct webnn_support_limits sl;
	webnn_context_support_limits(ctx, &sl);
	/* the reference backend walks both layouts alike and answers the spec's default */
	ASSERT_EQ(sl.preferred_input_layout, WEBNN_LAYOUT_NCHW);
	ASSERT(sl.max_tensor_byte_length >= (1u << 20));
	ASSERT(sl.input.data_types & (1u << WEBNN_FLOAT32));
	ASSERT(sl.output.data_types & (1u << WEBNN_FLOAT32));
	ASSERT(sl.input.max_rank >= 4);

	struct webnn_tensor_limits tl;
	ASSERT(webnn_context_op_limits(ctx, "conv2d", "filter", &tl));
	ASSERT(tl.data_types & (1u << WEBNN_FLOAT32));
	ASSERT(tl.min_rank <= 4 && tl.max_rank >= 4);
	ASSERT(webnn_context_op_limits(ctx, "add", "a", &tl));
	ASSERT(!webnn_context_op_limits(ctx, "conv2d", "no-such-role", &tl));
	ASSERT(!webnn_context_op_limits(ctx, "noSuchOp", "input", &tl));

	size_t n = 0;
	const char *op, *role;
	bool saw_relu = false;
	while (webnn_context_op_limit_at(ctx, n, &op, &role, &tl)) {
		ASSERT(op && role);
		saw_relu = saw_relu || strcmp(op, "relu") == 0;
		n++;
	}
	ASSERT(n > 50);
	ASSERT(saw_relu);
	ASSERT(!webnn_context_is_lost(ctx));
	ASSERT(webnn_context_get_fd(ctx) >= 0);
	OK(ctx, webnn_context_flush(ctx));
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ---- builder: eager validation with the spec's errors */

TEST(client_builder_eager_errors)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	struct webnn_builder *b, *b2;
	OK(ctx, webnn_builder_create(ctx, &b));
	OK(ctx, webnn_builder_create(ctx, &b2));

	struct webnn_operand *x, *w3, *p, *q, *r, *other;
	struct webnn_operand_desc dx = ct_desc_of(WEBNN_FLOAT32, 4, (uint32_t[]){ 1, 1, 5, 5 });
	struct webnn_operand_desc dw = ct_desc_of(WEBNN_FLOAT32, 3, (uint32_t[]){ 1, 3, 3 });
	float wbuf[9] = { 0 };
	OK(ctx, webnn_builder_input(b, "x", &dx, &x));
	OK(ctx, webnn_builder_constant(b, &dw, wbuf, sizeof(wbuf), &w3));
	struct webnn_operand *out = (struct webnn_operand *)1;
	FAILS(ctx, webnn_builder_conv2d(b, x, w3, NULL, &out), WEBNN_STATUS_TYPE_ERROR, "conv2d");
	ASSERT_CONTAINS(webnn_context_last_error(ctx), "filter");
	ASSERT(out == NULL);

	/* Broadcasting mismatch: [2, 3] + [4]. */
	struct webnn_operand_desc d23 = ct_desc_of(WEBNN_FLOAT32, 2, (uint32_t[]){ 2, 3 });
	struct webnn_operand_desc d4 = ct_desc_of(WEBNN_FLOAT32, 1, (uint32_t[]){ 4 });
	OK(ctx, webnn_builder_input(b, "p", &d23, &p));
	OK(ctx, webnn_builder_input(b, "q", &d4, &q));
	FAILS(ctx, webnn_builder_add(b, p, q, &r), WEBNN_STATUS_TYPE_ERROR, "add");

	/* Input names: non-empty and unique. */
	FAILS(ctx, webnn_builder_input(b, "p", &d4, &r), WEBNN_STATUS_TYPE_ERROR,
	      "duplicate input name \"p\"");
	FAILS(ctx, webnn_builder_input(b, "", &d4, &r), WEBNN_STATUS_TYPE_ERROR, "empty");
	struct webnn_operand_desc bad = ct_desc_of(WEBNN_FLOAT32, 2, (uint32_t[]){ 2, 0 });
	FAILS(ctx, webnn_builder_input(b, "z", &bad, &r), WEBNN_STATUS_TYPE_ERROR, "dimension");

	/* constant(): byte length must match. */
	FAILS(ctx, webnn_builder_constant(b, &d23, wbuf, 8, &r), WEBNN_STATUS_TYPE_ERROR,
	      "byte length is 24");

	/* Operands of another builder are rejected. */
	OK(ctx, webnn_builder_input(b2, "p", &d23, &other));
	FAILS(ctx, webnn_builder_add(b, p, other, &r), WEBNN_STATUS_TYPE_ERROR,
	      "belongs to another builder");
	FAILS(ctx, webnn_builder_relu(b, NULL, &r), WEBNN_STATUS_TYPE_ERROR, "NULL");

	/* Data type rules: logicalNot wants uint8. */
	FAILS(ctx, webnn_builder_logical_not(b, p, &r), WEBNN_STATUS_TYPE_ERROR, "logicalNot");

	/* Inferred descriptors. */
	struct webnn_operand *s1, *c1, *t1;
	OK(ctx, webnn_builder_add(b, p, p, &s1));
	OK(ctx, webnn_builder_greater(b, p, s1, &c1));
	struct webnn_operand_desc od;
	webnn_operand_get_desc(c1, &od);
	ASSERT_EQ(od.data_type, WEBNN_UINT8);
	ASSERT_EQ(od.rank, 2);
	OK(ctx, webnn_builder_transpose(b, s1, NULL, 0, &t1));
	webnn_operand_get_desc(t1, &od);
	ASSERT_EQ(od.shape[0], 3);
	ASSERT_EQ(od.shape[1], 2);

	/* build(): outputs must be operator results with unique, non-empty names. */
	struct webnn_graph *g = NULL;
	FAILS(ctx, webnn_builder_build(b, NULL, 0, &g), WEBNN_STATUS_TYPE_ERROR, "no outputs");
	struct webnn_named_operand bad_out[] = { { "y", p } };
	FAILS(ctx, webnn_builder_build(b, bad_out, 1, &g), WEBNN_STATUS_TYPE_ERROR, "input");
	struct webnn_named_operand dup[] = { { "y", s1 }, { "y", t1 } };
	FAILS(ctx, webnn_builder_build(b, dup, 2, &g), WEBNN_STATUS_TYPE_ERROR,
	      "duplicate output name");
	struct webnn_named_operand foreign[] = { { "y", other } };
	FAILS(ctx, webnn_builder_build(b, foreign, 1, &g), WEBNN_STATUS_TYPE_ERROR,
	      "another builder");

	/* A good build, then the builder is spent. */
	struct webnn_named_operand outs[] = { { "y", t1 } };
	OK(ctx, webnn_builder_build(b, outs, 1, &g));
	ASSERT_EQ(webnn_graph_input_count(g), 1); /* only "p" feeds y */
	struct webnn_graph *g2 = NULL;
	FAILS(ctx, webnn_builder_build(b, outs, 1, &g2), WEBNN_STATUS_INVALID_STATE,
	      "already built");
	ASSERT(g2 == NULL);
	FAILS(ctx, webnn_builder_relu(b, p, &r), WEBNN_STATUS_INVALID_STATE, "already built");
	webnn_graph_destroy(g);

	webnn_builder_destroy(b);
	webnn_builder_destroy(b2);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ---- tensors */

static void roundtrip(struct webnn_context *ctx, uint32_t n)
{
	struct webnn_tensor *t = make_tensor(ctx, ct_desc_of(WEBNN_FLOAT32, 1, &n), true, true);
	float *in = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
	ASSERT(in && out);
	for (uint32_t i = 0; i < n; i++)
		in[i] = (float)i * 0.5f - 3.0f;
	OK(ctx, webnn_context_write_tensor(ctx, t, in, n * sizeof(float)));
	memset(out, 0, n * sizeof(float));
	OK(ctx, webnn_context_read_tensor(ctx, t, out, n * sizeof(float)));
	ASSERT(memcmp(in, out, n * sizeof(float)) == 0);
	/* A second write right behind the first reuses the arena after its reply. */
	for (uint32_t i = 0; i < n; i++)
		in[i] = -(float)i;
	OK(ctx, webnn_context_write_tensor(ctx, t, in, n * sizeof(float)));
	OK(ctx, webnn_context_write_tensor(ctx, t, in, n * sizeof(float)));
	OK(ctx, webnn_context_read_tensor(ctx, t, out, n * sizeof(float)));
	ASSERT(memcmp(in, out, n * sizeof(float)) == 0);
	struct webnn_tensor_desc td;
	webnn_tensor_get_desc(t, &td);
	ASSERT_EQ(td.desc.shape[0], n);
	ASSERT(td.readable && td.writable);
	webnn_tensor_destroy(t);
	free(in);
	free(out);
}

TEST(client_tensor_roundtrip_small_and_large)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	roundtrip(ctx, 7);
	roundtrip(ctx, 16384);         /* exactly 64 KiB: still inline */
	roundtrip(ctx, 16385);         /* just over: shared memory */
	roundtrip(ctx, 3u << 18);      /* 3 MiB: the arena grows */
	OK(ctx, webnn_context_flush(ctx));
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(client_tensor_errors)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	uint32_t four = 4;
	struct webnn_tensor *ro = make_tensor(ctx, ct_desc_of(WEBNN_FLOAT32, 1, &four), true, false);
	struct webnn_tensor *wo = make_tensor(ctx, ct_desc_of(WEBNN_FLOAT32, 1, &four), false, true);
	float buf[4] = { 1, 2, 3, 4 };
	FAILS(ctx, webnn_context_write_tensor(ctx, ro, buf, sizeof(buf)), WEBNN_STATUS_TYPE_ERROR,
	      "not created writable");
	FAILS(ctx, webnn_context_read_tensor(ctx, wo, buf, sizeof(buf)), WEBNN_STATUS_TYPE_ERROR,
	      "not created readable");
	FAILS(ctx, webnn_context_write_tensor(ctx, wo, buf, 12), WEBNN_STATUS_TYPE_ERROR,
	      "data is 12 bytes, the tensor's byte length is 16");
	struct webnn_tensor_desc bad = { ct_desc_of((enum webnn_data_type)77, 1, &four), true, true };
	struct webnn_tensor *t;
	FAILS(ctx, webnn_context_create_tensor(ctx, &bad, &t), WEBNN_STATUS_TYPE_ERROR,
	      "data type");
	struct webnn_operand_desc cd = ct_desc_of(WEBNN_FLOAT32, 1, &four);
	FAILS(ctx, webnn_context_create_constant_tensor(ctx, &cd, buf, 8, &t),
	      WEBNN_STATUS_TYPE_ERROR, "byte length is 16");
	OK(ctx, webnn_context_create_constant_tensor(ctx, &cd, buf, sizeof(buf), &t));
	FAILS(ctx, webnn_context_write_tensor(ctx, t, buf, sizeof(buf)), WEBNN_STATUS_TYPE_ERROR,
	      "constant tensor");
	webnn_tensor_destroy(t);
	webnn_tensor_destroy(ro);
	webnn_tensor_destroy(wo);
	OK(ctx, webnn_context_flush(ctx));
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ---- graphs */

TEST(client_graph_add_relu)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand_desc dd = ct_desc_of(WEBNN_FLOAT32, 2, (uint32_t[]){ 2, 3 });
	struct webnn_operand *a, *bb, *sum, *y, *unused, *two, *z;
	OK(ctx, webnn_builder_input(b, "a", &dd, &a));
	OK(ctx, webnn_builder_input(b, "b", &dd, &bb));
	OK(ctx, webnn_builder_input(b, "unused", &dd, &unused));
	OK(ctx, webnn_builder_add(b, a, bb, &sum));
	OK(ctx, webnn_builder_relu(b, sum, &y));
	OK(ctx, webnn_builder_constant_scalar(b, WEBNN_FLOAT32, 2.0, &two));
	OK(ctx, webnn_builder_mul(b, y, two, &z));
	struct webnn_operand *dead;
	OK(ctx, webnn_builder_neg(b, unused, &dead)); /* pruned: nothing reads it */
	struct webnn_named_operand outs[] = { { "y", y }, { "z", z } };
	struct webnn_graph *g;
	OK(ctx, webnn_builder_build(b, outs, 2, &g));
	webnn_builder_destroy(b);

	ASSERT_EQ(webnn_graph_input_count(g), 2);
	ASSERT_EQ(webnn_graph_output_count(g), 2);
	struct webnn_operand_desc gd;
	ASSERT_STREQ(webnn_graph_input_name(g, 0, &gd), "a");
	ASSERT_EQ(gd.shape[1], 3);
	ASSERT_STREQ(webnn_graph_input_name(g, 1, NULL), "b");
	ASSERT(webnn_graph_input_name(g, 2, NULL) == NULL);
	ASSERT_STREQ(webnn_graph_output_name(g, 1, NULL), "z");
	ASSERT(webnn_graph_compile_ms(g) >= 0);

	struct webnn_tensor *ta = make_tensor(ctx, dd, false, true);
	struct webnn_tensor *tb = make_tensor(ctx, dd, false, true);
	struct webnn_tensor *ty = make_tensor(ctx, dd, true, false);
	struct webnn_tensor *tz = make_tensor(ctx, dd, true, false);
	float va[6] = { 1, -2, 3, -4, 5, -6 }, vb[6] = { 0.5f, 1, -4, 2, 0, 10 };
	OK(ctx, webnn_context_write_tensor(ctx, ta, va, sizeof(va)));
	OK(ctx, webnn_context_write_tensor(ctx, tb, vb, sizeof(vb)));
	struct webnn_named_tensor in[] = { { "b", tb }, { "a", ta } };
	struct webnn_named_tensor out[] = { { "z", tz }, { "y", ty } };
	OK(ctx, webnn_context_dispatch(ctx, g, in, 2, out, 2));
	float ry[6], rz[6];
	OK(ctx, webnn_context_read_tensor(ctx, ty, ry, sizeof(ry)));
	OK(ctx, webnn_context_read_tensor(ctx, tz, rz, sizeof(rz)));
	for (int i = 0; i < 6; i++) {
		float e = va[i] + vb[i] > 0 ? va[i] + vb[i] : 0;
		ASSERT_MSG(ry[i] == e, "y[%d] = %g, expected %g", i, ry[i], e);
		ASSERT_MSG(rz[i] == 2 * e, "z[%d] = %g, expected %g", i, rz[i], 2 * e);
	}
	OK(ctx, webnn_context_flush(ctx));

	/* Dispatch argument errors, all caught before anything is sent. */
	struct webnn_tensor *t22 =
		make_tensor(ctx, ct_desc_of(WEBNN_FLOAT32, 2, (uint32_t[]){ 2, 2 }), true, true);
	struct webnn_named_tensor wrong_name[] = { { "a", ta }, { "c", tb } };
	FAILS(ctx, webnn_context_dispatch(ctx, g, wrong_name, 2, out, 2), WEBNN_STATUS_TYPE_ERROR,
	      "no input named \"c\"");
	struct webnn_named_tensor missing[] = { { "a", ta } };
	FAILS(ctx, webnn_context_dispatch(ctx, g, missing, 1, out, 2), WEBNN_STATUS_TYPE_ERROR,
	      "graph input \"b\" is missing");
	struct webnn_named_tensor wrong_desc[] = { { "a", ta }, { "b", t22 } };
	FAILS(ctx, webnn_context_dispatch(ctx, g, wrong_desc, 2, out, 2), WEBNN_STATUS_TYPE_ERROR,
	      "float32 [2, 2], the graph expects float32 [2, 3]");
	struct webnn_named_tensor in_out[] = { { "a", ta }, { "b", ty } };
	FAILS(ctx, webnn_context_dispatch(ctx, g, in_out, 2, out, 2), WEBNN_STATUS_TYPE_ERROR,
	      "same tensor");
	struct webnn_named_tensor twice[] = { { "a", ta }, { "a", tb } };
	FAILS(ctx, webnn_context_dispatch(ctx, g, twice, 2, out, 2), WEBNN_STATUS_TYPE_ERROR,
	      "given twice");
	/* Still usable afterwards. */
	OK(ctx, webnn_context_dispatch(ctx, g, in, 2, out, 2));
	OK(ctx, webnn_context_flush(ctx));

	webnn_tensor_destroy(t22);
	webnn_tensor_destroy(ta);
	webnn_tensor_destroy(tb);
	webnn_tensor_destroy(ty);
	webnn_tensor_destroy(tz);
	webnn_graph_destroy(g);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(client_graph_conv2d_clamp)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	/* x: 1x1x3x3 = 1..9; filter 1x1x2x2 = [1, 0, 0, -1]; bias 0.5; clamp to [-3, 100]. */
	struct webnn_operand_desc dx = ct_desc_of(WEBNN_FLOAT32, 4, (uint32_t[]){ 1, 1, 3, 3 });
	struct webnn_operand_desc dw = ct_desc_of(WEBNN_FLOAT32, 4, (uint32_t[]){ 1, 1, 2, 2 });
	struct webnn_operand_desc db = ct_desc_of(WEBNN_FLOAT32, 1, (uint32_t[]){ 1 });
	float w[4] = { 1, 0, 0, -1 }, bias = 0.5f;
	struct webnn_operand *x, *f, *bo, *c, *y;
	OK(ctx, webnn_builder_input(b, "x", &dx, &x));
	OK(ctx, webnn_builder_constant(b, &dw, w, sizeof(w), &f));
	OK(ctx, webnn_builder_constant(b, &db, &bias, sizeof(bias), &bo));
	struct webnn_conv2d_options co = WEBNN_CONV2D_OPTIONS_INIT;
	co.bias = bo;
	co.padding[0] = co.padding[1] = co.padding[2] = co.padding[3] = 1;
	co.n_padding = 4;
	co.strides[0] = co.strides[1] = 2;
	co.n_strides = 2;
	OK(ctx, webnn_builder_conv2d(b, x, f, &co, &c));
	struct webnn_operand_desc cd;
	webnn_operand_get_desc(c, &cd);
	ASSERT_EQ(cd.rank, 4);
	ASSERT_EQ(cd.shape[2], 2);
	ASSERT_EQ(cd.shape[3], 2);
	struct webnn_clamp_options clo = WEBNN_CLAMP_OPTIONS_INIT;
	clo.has_min_value = clo.has_max_value = true;
	clo.min_value = -3;
	clo.max_value = 100;
	OK(ctx, webnn_builder_clamp(b, c, &clo, &y));
	struct webnn_named_operand outs[] = { { "y", y } };
	struct webnn_graph *g;
	OK(ctx, webnn_builder_build(b, outs, 1, &g));
	webnn_builder_destroy(b);

	struct webnn_tensor *tx = make_tensor(ctx, dx, false, true);
	struct webnn_tensor *ty = make_tensor(ctx, cd, true, false);
	float vx[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	OK(ctx, webnn_context_write_tensor(ctx, tx, vx, sizeof(vx)));
	struct webnn_named_tensor in[] = { { "x", tx } }, out[] = { { "y", ty } };
	OK(ctx, webnn_context_dispatch(ctx, g, in, 1, out, 1));
	float ry[4];
	OK(ctx, webnn_context_read_tensor(ctx, ty, ry, sizeof(ry)));
	/* Padded input rows/cols -1..3 step 2: windows at (-1,-1), (-1,1), (1,-1), (1,1):
	 * out = x[i][j] - x[i+1][j+1] over the padded image, plus 0.5, clamped. */
	float expect[4] = { 0 - 1 + 0.5f, 0 - 3 + 0.5f, 0 - 7 + 0.5f, 5 - 9 + 0.5f };
	for (int i = 0; i < 4; i++) {
		float e = expect[i] < -3 ? -3 : expect[i];
		ASSERT_MSG(fabsf(ry[i] - e) < 1e-5f, "y[%d] = %g, expected %g", i, ry[i], e);
	}
	webnn_tensor_destroy(tx);
	webnn_tensor_destroy(ty);
	webnn_graph_destroy(g);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(client_graph_large_and_tensor_constants)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	enum { N = 256 * 128 }; /* 128 KiB of float32: the constant travels through shm */
	uint32_t shape[2] = { 256, 128 };
	struct webnn_operand_desc dd = ct_desc_of(WEBNN_FLOAT32, 2, shape);
	float *big = malloc(N * sizeof(float)), *vx = malloc(N * sizeof(float));
	float *ry = malloc(N * sizeof(float));
	ASSERT(big && vx && ry);
	for (int i = 0; i < N; i++) {
		big[i] = (float)(i % 1000);
		vx[i] = (float)(i % 7) - 3;
	}
	struct webnn_tensor *ct;
	float small[128];
	for (int i = 0; i < 128; i++)
		small[i] = (float)i / 4;
	struct webnn_operand_desc dsmall = ct_desc_of(WEBNN_FLOAT32, 1, (uint32_t[]){ 128 });
	OK(ctx, webnn_context_create_constant_tensor(ctx, &dsmall, small, sizeof(small), &ct));

	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand *x, *c, *ctop, *s1, *y;
	OK(ctx, webnn_builder_input(b, "x", &dd, &x));
	OK(ctx, webnn_builder_constant(b, &dd, big, N * sizeof(float), &c));
	OK(ctx, webnn_builder_constant_tensor(b, ct, &ctop));
	OK(ctx, webnn_builder_add(b, x, c, &s1));
	OK(ctx, webnn_builder_sub(b, s1, ctop, &y));
	/* The tensor may be destroyed once used: the operand keeps what build() needs. */
	webnn_tensor_destroy(ct);
	struct webnn_named_operand outs[] = { { "y", y } };
	struct webnn_graph *g;
	enum webnn_status st = webnn_builder_build(b, outs, 1, &g);
	ASSERT_EQ(st, WEBNN_STATUS_TYPE_ERROR); /* spec: a destroyed constant tensor fails build */
	ASSERT_CONTAINS(webnn_context_last_error(ctx), "destroyed");
	webnn_builder_destroy(b);

	OK(ctx, webnn_context_create_constant_tensor(ctx, &dsmall, small, sizeof(small), &ct));
	OK(ctx, webnn_builder_create(ctx, &b));
	OK(ctx, webnn_builder_input(b, "x", &dd, &x));
	OK(ctx, webnn_builder_constant(b, &dd, big, N * sizeof(float), &c));
	OK(ctx, webnn_builder_constant_tensor(b, ct, &ctop));
	OK(ctx, webnn_builder_add(b, x, c, &s1));
	OK(ctx, webnn_builder_sub(b, s1, ctop, &y));
	outs[0].operand = y;
	OK(ctx, webnn_builder_build(b, outs, 1, &g));
	webnn_builder_destroy(b);
	webnn_tensor_destroy(ct); /* after build: the graph keeps working */

	struct webnn_tensor *tx = make_tensor(ctx, dd, false, true);
	struct webnn_tensor *ty = make_tensor(ctx, dd, true, false);
	OK(ctx, webnn_context_write_tensor(ctx, tx, vx, N * sizeof(float)));
	struct webnn_named_tensor in[] = { { "x", tx } }, out[] = { { "y", ty } };
	OK(ctx, webnn_context_dispatch(ctx, g, in, 1, out, 1));
	OK(ctx, webnn_context_read_tensor(ctx, ty, ry, N * sizeof(float)));
	for (int i = 0; i < N; i++) {
		float e = vx[i] + big[i] - small[i % 128];
		ASSERT_MSG(ry[i] == e, "y[%d] = %g, expected %g", i, ry[i], e);
	}
	webnn_tensor_destroy(tx);
	webnn_tensor_destroy(ty);
	webnn_graph_destroy(g);
	OK(ctx, webnn_context_flush(ctx));
	webnn_context_destroy(ctx);
	free(big);
	free(vx);
	free(ry);
	test_daemon_stop(&d);
}

/* ---- loss, events, threads */

static int lost_calls;
static char lost_msg[256];

static void on_lost(void *ud, const char *message)
{
	(void)ud;
	lost_calls++;
	snprintf(lost_msg, sizeof(lost_msg), "%s", message);
}

static void kill_daemon(struct test_daemon *d)
{
	kill(d->pid, SIGKILL);
	waitpid(d->pid, NULL, 0);
	d->pid = 0;
	unlink(d->socket_path);
	rmdir(d->dir);
}

TEST(client_lost_when_daemon_dies)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	uint32_t four = 4;
	struct webnn_tensor *t = make_tensor(ctx, ct_desc_of(WEBNN_FLOAT32, 1, &four), true, true);
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	lost_calls = 0;
	webnn_context_set_lost_callback(ctx, on_lost, NULL);
	ASSERT_EQ(lost_calls, 0);
	kill_daemon(&d);

	ASSERT_EQ(webnn_context_flush(ctx), WEBNN_STATUS_CONTEXT_LOST);
	ASSERT_EQ(lost_calls, 1);
	ASSERT_CONTAINS(lost_msg, "webnnd");
	ASSERT(webnn_context_is_lost(ctx));
	float buf[4];
	ASSERT_EQ(webnn_context_read_tensor(ctx, t, buf, sizeof(buf)), WEBNN_STATUS_CONTEXT_LOST);
	ASSERT_EQ(webnn_context_write_tensor(ctx, t, buf, sizeof(buf)), WEBNN_STATUS_CONTEXT_LOST);
	struct webnn_operand *x;
	struct webnn_operand_desc dd = ct_desc_of(WEBNN_FLOAT32, 1, &four);
	ASSERT_EQ(webnn_builder_input(b, "x", &dd, &x), WEBNN_STATUS_CONTEXT_LOST);
	ASSERT_CONTAINS(webnn_context_last_error(ctx), "context lost");
	struct webnn_tensor_desc td = { dd, true, true };
	struct webnn_tensor *t2;
	ASSERT_EQ(webnn_context_create_tensor(ctx, &td, &t2), WEBNN_STATUS_CONTEXT_LOST);
	ASSERT_EQ(webnn_context_dispatch_events(ctx), WEBNN_STATUS_CONTEXT_LOST);
	ASSERT_EQ(lost_calls, 1); /* once */
	webnn_builder_destroy(b);
	webnn_tensor_destroy(t);
	webnn_context_destroy(ctx);
	ASSERT_EQ(lost_calls, 1);
}

TEST(client_destroy_context_with_live_children)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	uint32_t four = 4;
	struct webnn_tensor *t = make_tensor(ctx, ct_desc_of(WEBNN_FLOAT32, 1, &four), true, true);
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	lost_calls = 0;
	webnn_context_set_lost_callback(ctx, on_lost, NULL);
	webnn_context_destroy(ctx); /* MLContext.destroy() loses the context */
	ASSERT_EQ(lost_calls, 1);
	ASSERT_CONTAINS(lost_msg, "destroyed");
	float buf[4] = { 0 };
	ASSERT_EQ(webnn_context_write_tensor(ctx, t, buf, sizeof(buf)), WEBNN_STATUS_CONTEXT_LOST);
	struct webnn_operand *x;
	struct webnn_operand_desc dd = ct_desc_of(WEBNN_FLOAT32, 1, &four);
	ASSERT_EQ(webnn_builder_input(b, "x", &dd, &x), WEBNN_STATUS_CONTEXT_LOST);
	webnn_tensor_destroy(t);
	webnn_builder_destroy(b); /* the last child frees the context */
	test_daemon_stop(&d);
}

TEST(client_fd_and_dispatch_events)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	int fd = webnn_context_get_fd(ctx);
	ASSERT(fd >= 0);
	struct pollfd p = { fd, POLLIN, 0 };
	ASSERT_EQ(poll(&p, 1, 0), 0); /* nothing pending after the handshake */
	ASSERT_EQ(webnn_context_dispatch_events(ctx), WEBNN_STATUS_OK);
	lost_calls = 0;
	webnn_context_set_lost_callback(ctx, on_lost, NULL);
	kill_daemon(&d);
	ASSERT_EQ(poll(&p, 1, 5000), 1); /* EOF makes the fd readable */
	ASSERT_EQ(webnn_context_dispatch_events(ctx), WEBNN_STATUS_CONTEXT_LOST);
	ASSERT_EQ(lost_calls, 1);
	webnn_context_destroy(ctx);
}

struct worker {
	struct webnn_context *ctx;
	int seed;
	int failures;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint32_t n = (w->seed % 2) ? 40000 : 100; /* odd workers use shared memory */
	struct webnn_tensor_desc td = { ct_desc_of(WEBNN_INT32, 1, &n), true, true };
	struct webnn_tensor *t;
	if (webnn_context_create_tensor(w->ctx, &td, &t) != WEBNN_STATUS_OK) {
		w->failures++;
		return NULL;
	}
	int32_t *in = malloc(n * 4), *out = malloc(n * 4);
	for (int round = 0; round < 20 && in && out; round++) {
		for (uint32_t i = 0; i < n; i++)
			in[i] = w->seed * 100000 + round * 1000 + (int32_t)i;
		if (webnn_context_write_tensor(w->ctx, t, in, n * 4) != WEBNN_STATUS_OK ||
		    webnn_context_read_tensor(w->ctx, t, out, n * 4) != WEBNN_STATUS_OK ||
		    memcmp(in, out, n * 4) != 0)
			w->failures++;
	}
	free(in);
	free(out);
	webnn_tensor_destroy(t);
	return NULL;
}

TEST(client_threads_share_a_context)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	pthread_t th[4];
	struct worker w[4];
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ ctx, i + 1, 0 };
		ASSERT(pthread_create(&th[i], NULL, worker_main, &w[i]) == 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		ASSERT_MSG(w[i].failures == 0, "worker %d: %d failures (%s)", i, w[i].failures,
			   webnn_context_last_error(ctx));
	}
	OK(ctx, webnn_context_flush(ctx));
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ---- a scripted fake daemon: protocol paths the real one does not take on demand */

enum fake_mode { FAKE_NORMAL, FAKE_OLD_MAJOR, FAKE_GOODBYE, FAKE_LOSE_ON_FLUSH };

struct fake {
	enum fake_mode mode;
	int listen_fd;
	char path[108];
	char dir[4096];
	pthread_t thread;
	int flushes;
};

static void fake_send(int fd, Webnn__Ipc__ServerMessage *m)
{
	size_t len = webnn__ipc__server_message__get_packed_size(m);
	uint8_t *buf = malloc(len ? len : 1);
	webnn__ipc__server_message__pack(m, buf);
	wnn_frame_send(fd, buf, len, NULL, 0);
	free(buf);
}

static void fake_reply(int fd, uint64_t serial, Webnn__Ipc__Reply *r)
{
	Webnn__Ipc__ServerMessage m = WEBNN__IPC__SERVER_MESSAGE__INIT;
	r->serial = serial;
	m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY;
	m.reply = r;
	fake_send(fd, &m);
}

/* Answers one request; false ends the connection. */
static bool fake_handle(struct fake *f, int fd, const Webnn__Ipc__ClientMessage *cm)
{
	Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
	Webnn__Ipc__ServerMessage m = WEBNN__IPC__SERVER_MESSAGE__INIT;
	switch (cm->body_case) {
	case WEBNN__IPC__CLIENT_MESSAGE__BODY_HELLO: {
		if (f->mode == FAKE_GOODBYE) {
			Webnn__Ipc__Goodbye bye = WEBNN__IPC__GOODBYE__INIT;
			bye.reason = "too many connections";
			m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE;
			m.goodbye = &bye;
			fake_send(fd, &m);
			return false;
		}
		Webnn__Ipc__HelloReply h = WEBNN__IPC__HELLO_REPLY__INIT;
		Webnn__Ipc__Limits l = WEBNN__IPC__LIMITS__INIT;
		l.max_frame_bytes = WNN_FRAME_MAX;
		l.max_inline_bytes = WNN_INLINE_MAX;
		l.max_fds_per_frame = WNN_FRAME_MAX_FDS;
		l.max_objects = 1000;
		l.max_shm_bytes = 1 << 30;
		l.max_tensor_bytes = 1 << 30;
		l.max_rank = 8;
		l.max_operations = 1000;
		h.major = f->mode == FAKE_OLD_MAJOR ? WNN_PROTOCOL_MAJOR + 1 : WNN_PROTOCOL_MAJOR;
		h.limits = &l;
		r.body_case = WEBNN__IPC__REPLY__BODY_HELLO;
		r.hello = &h;
		fake_reply(fd, cm->serial, &r);
		return f->mode != FAKE_OLD_MAJOR;
	}
	case WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONTEXT: {
		/* Supports add (float32 only) and nothing else. */
		Webnn__Ipc__TensorLimit tl[3], *tp[3];
		const char *roles[3] = { "a", "b", "output" };
		for (int i = 0; i < 3; i++) {
			webnn__ipc__tensor_limit__init(&tl[i]);
			tl[i].op = wnn_ops[WNN_OP_ADD].id;
			tl[i].role = (char *)roles[i];
			tl[i].data_types = 1u << WNN_F32;
			tl[i].max_rank = 8;
			tp[i] = &tl[i];
		}
		Webnn__Ipc__SupportLimits sl = WEBNN__IPC__SUPPORT_LIMITS__INIT;
		sl.max_tensor_byte_length = 1 << 30;
		sl.input_data_types = sl.constant_data_types = sl.output_data_types = 1u << WNN_F32;
		sl.max_rank = 8;
		sl.n_ops = 3;
		sl.ops = tp;
		Webnn__Ipc__ContextInfo ci = WEBNN__IPC__CONTEXT_INFO__INIT;
		ci.device_name = "fake-device";
		ci.device_type = "cpu";
		ci.platform_name = "fake";
		ci.driver_version = "0";
		ci.backend = "fake";
		ci.limits = &sl;
		r.body_case = WEBNN__IPC__REPLY__BODY_CONTEXT;
		r.context = &ci;
		fake_reply(fd, cm->serial, &r);
		return true;
	}
	case WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH: {
		f->flushes++;
		if (f->mode == FAKE_LOSE_ON_FLUSH) {
			Webnn__Ipc__ContextLost cl = WEBNN__IPC__CONTEXT_LOST__INIT;
			cl.context_id = cm->flush->context_id;
			cl.message = "the device fell off the bus";
			m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_CONTEXT_LOST;
			m.context_lost = &cl;
			fake_send(fd, &m);
			return true;
		}
		if (f->flushes == 1) { /* an earlier fire-and-forget request failed */
			Webnn__Ipc__Error e = WEBNN__IPC__ERROR__INIT;
			Webnn__Ipc__ErrorEvent ev = WEBNN__IPC__ERROR_EVENT__INIT;
			e.status = WEBNN__IPC__STATUS__OPERATION_ERROR;
			e.message = "dispatch: the kernel failed";
			ev.context_id = cm->flush->context_id;
			ev.error = &e;
			m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_ERROR;
			m.error = &ev;
			fake_send(fd, &m);
		}
		fake_reply(fd, cm->serial, &r);
		return true;
	}
	case WEBNN__IPC__CLIENT_MESSAGE__BODY_GOODBYE:
		return false;
	default:
		if (cm->serial) /* nothing else is needed by these tests: answer OK */
			fake_reply(fd, cm->serial, &r);
		return true;
	}
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	int fd = accept(f->listen_fd, NULL, NULL);
	if (fd < 0)
		return NULL;
	struct wnn_reader rd;
	wnn_reader_init(&rd, 0);
	bool go = true;
	while (go) {
		const uint8_t *p;
		size_t len;
		int fds[WNN_FRAME_MAX_FDS], nfds = 0;
		int n = wnn_reader_next(&rd, &p, &len, fds, &nfds);
		if (n < 0)
			break;
		if (n == 0) {
			struct pollfd pf = { fd, POLLIN, 0 };
			poll(&pf, 1, -1);
			if (wnn_reader_fill(&rd, fd) <= 0 && errno != EAGAIN)
				break;
			continue;
		}
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		Webnn__Ipc__ClientMessage *cm = webnn__ipc__client_message__unpack(NULL, len, p);
		wnn_reader_consume(&rd);
		if (!cm)
			break;
		go = fake_handle(f, fd, cm);
		webnn__ipc__client_message__free_unpacked(cm, NULL);
	}
	wnn_reader_finish(&rd);
	close(fd);
	return NULL;
}

static void fake_start(struct fake *f, enum fake_mode mode)
{
	memset(f, 0, sizeof(*f));
	f->mode = mode;
	test_scratch_dir(f->dir, sizeof(f->dir), "webnn-fake");
	ASSERT_MSG(strlen(f->dir) + sizeof("/fake.sock") <= sizeof(f->path),
		   "%s/fake.sock is too long for a unix socket address: set a shorter TMPDIR", f->dir);
	size_t dl = strlen(f->dir);
	memcpy(f->path, f->dir, dl);
	memcpy(f->path + dl, "/fake.sock", sizeof("/fake.sock"));
	f->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	ASSERT(bind(f->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	ASSERT(listen(f->listen_fd, 4) == 0);
	ASSERT(pthread_create(&f->thread, NULL, fake_main, f) == 0);
}

static void fake_stop(struct fake *f)
{
	pthread_join(f->thread, NULL);
	close(f->listen_fd);
	unlink(f->path);
	rmdir(f->dir);
}

static enum webnn_status fake_connect(struct fake *f, struct webnn_context **ctx, char *err,
				      size_t len)
{
	struct webnn_context_options o = WEBNN_CONTEXT_OPTIONS_INIT;
	o.socket_path = f->path;
	return webnn_context_create(&o, ctx, err, len);
}

TEST(client_fake_handshake_failures)
{
	struct fake f;
	struct webnn_context *ctx;
	char err[512];
	fake_start(&f, FAKE_OLD_MAJOR);
	ASSERT_EQ(fake_connect(&f, &ctx, err, sizeof(err)), WEBNN_STATUS_NOT_SUPPORTED);
	ASSERT(ctx == NULL);
	ASSERT_CONTAINS(err, "libwebnn needs major version");
	fake_stop(&f);

	fake_start(&f, FAKE_GOODBYE);
	ASSERT_EQ(fake_connect(&f, &ctx, err, sizeof(err)), WEBNN_STATUS_NOT_SUPPORTED);
	ASSERT_CONTAINS(err, "too many connections");
	fake_stop(&f);
}

TEST(client_fake_limits_and_event_errors)
{
	struct fake f;
	struct webnn_context *ctx;
	char err[512];
	fake_start(&f, FAKE_NORMAL);
	OK(NULL, fake_connect(&f, &ctx, err, sizeof(err)));

	/* An operator missing from SupportLimits fails build() with NOT_SUPPORTED. */
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand_desc dx = ct_desc_of(WEBNN_FLOAT32, 4, (uint32_t[]){ 1, 1, 4, 4 });
	struct webnn_operand_desc dw = ct_desc_of(WEBNN_FLOAT32, 4, (uint32_t[]){ 1, 1, 1, 1 });
	float one = 1;
	struct webnn_operand *x, *w, *c, *s;
	OK(ctx, webnn_builder_input(b, "x", &dx, &x));
	OK(ctx, webnn_builder_constant(b, &dw, &one, sizeof(one), &w));
	OK(ctx, webnn_builder_conv2d(b, x, w, NULL, &c));
	OK(ctx, webnn_builder_add(b, x, x, &s));
	struct webnn_named_operand outs[] = { { "c", c } };
	struct webnn_graph *g;
	FAILS(ctx, webnn_builder_build(b, outs, 1, &g), WEBNN_STATUS_NOT_SUPPORTED,
	      "conv2d is not supported by this context (device fake-device)");
	webnn_builder_destroy(b);

	/* Data types outside the limits: int32 inputs of add. */
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand_desc di = ct_desc_of(WEBNN_INT32, 1, (uint32_t[]){ 4 });
	OK(ctx, webnn_builder_input(b, "i", &di, &x));
	OK(ctx, webnn_builder_add(b, x, x, &s));
	outs[0].operand = s;
	FAILS(ctx, webnn_builder_build(b, outs, 1, &g), WEBNN_STATUS_NOT_SUPPORTED,
	      "a data type int32 is not supported");
	webnn_builder_destroy(b);

	/* An ErrorEvent reaches the next flush, once. */
	FAILS(ctx, webnn_context_flush(ctx), WEBNN_STATUS_OPERATION_ERROR,
	      "dispatch: the kernel failed");
	OK(ctx, webnn_context_flush(ctx));
	webnn_context_destroy(ctx);
	fake_stop(&f);
}

TEST(client_fake_context_lost_event)
{
	struct fake f;
	struct webnn_context *ctx;
	char err[512];
	fake_start(&f, FAKE_LOSE_ON_FLUSH);
	OK(NULL, fake_connect(&f, &ctx, err, sizeof(err)));
	lost_calls = 0;
	webnn_context_set_lost_callback(ctx, on_lost, NULL);
	FAILS(ctx, webnn_context_flush(ctx), WEBNN_STATUS_CONTEXT_LOST, "fell off the bus");
	ASSERT_EQ(lost_calls, 1);
	ASSERT_STREQ(lost_msg, "the device fell off the bus");
	ASSERT_EQ(webnn_context_flush(ctx), WEBNN_STATUS_CONTEXT_LOST);
	ASSERT_EQ(lost_calls, 1);
	webnn_context_destroy(ctx);
	fake_stop(&f);
}

/* What the daemon's graph passes made of a graph reaches the client: a transposed constant is
 * folded at build, the memory plan reuses buffers, and the numbers stay those of the graph. */
static void check_graph_stats(const char *backend)
{
	struct test_daemon d;
	ct_require_webnnd();
	const char *args[] = { "--backend", backend, NULL };
	test_daemon_start(&d, args);
	struct webnn_context *ctx = ct_connect(&d, "test_client");
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	const float wv[6] = { 1, 2, 3, 4, 5, 6 }; /* [3, 2]; transposed: 1 3 5 / 2 4 6 */
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, (uint32_t[]){ 2, 3 });
	struct webnn_operand *w = ct_const(ctx, b, WEBNN_FLOAT32, 2, (uint32_t[]){ 3, 2 }, wv);
	struct webnn_operand *wt, *s, *r, *two, *z;
	OK(ctx, webnn_builder_transpose(b, w, NULL, 0, &wt));
	OK(ctx, webnn_builder_sub(b, x, wt, &s));
	OK(ctx, webnn_builder_relu(b, s, &r));
	OK(ctx, webnn_builder_constant_scalar(b, WEBNN_FLOAT32, 2.0, &two));
	OK(ctx, webnn_builder_mul(b, r, two, &z));
	struct webnn_operand *unused; /* no output depends on it: not in the graph */
	OK(ctx, webnn_builder_sigmoid(b, x, &unused));
	struct webnn_named_operand named = { "z", z };
	struct webnn_graph *g;
	OK(ctx, webnn_builder_build(b, &named, 1, &g));
	float xv[6] = { 0, 4, 9, 1, 1, 7 }, zv[6];
	const float want[6] = { 0, 2, 8, 0, 0, 2 };
	struct webnn_operand_desc dd = ct_desc_of(WEBNN_FLOAT32, 2, (uint32_t[]){ 2, 3 });
	struct webnn_tensor_desc tin = { dd, false, true }, tout = { dd, true, false };
	struct webnn_tensor *ti, *to;
	OK(ctx, webnn_context_create_tensor(ctx, &tin, &ti));
	OK(ctx, webnn_context_create_tensor(ctx, &tout, &to));
	OK(ctx, webnn_context_write_tensor(ctx, ti, xv, sizeof xv));
	struct webnn_named_tensor bi = { "x", ti }, bo = { "z", to };
	OK(ctx, webnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
	OK(ctx, webnn_context_read_tensor(ctx, to, zv, sizeof zv));
	ct_assert_floats("stats", zv, want, 6, 0);
	webnn_tensor_destroy(ti);
	webnn_tensor_destroy(to);

	struct webnn_graph_stats st = WEBNN_GRAPH_STATS_INIT;
	ASSERT_EQ(webnn_graph_get_stats(g, &st), WEBNN_STATUS_OK);
	ASSERT_EQ(st.operations, 4u);
	ASSERT_EQ(st.folded, 1u);
	ASSERT_EQ(st.folded_bytes, 24u);
	ASSERT(st.kernels >= 1 && st.kernels <= 3);
	ASSERT_EQ(st.kernels + st.fused + st.removed, 3u);
	ASSERT(st.intermediate_bytes <= st.unplanned_bytes);
	ASSERT(st.intermediate_bytes <= 2 * 24u);
	ASSERT(st.compile_ms >= 0);
	struct webnn_graph_stats small = {
		.struct_size = offsetof(struct webnn_graph_stats, intermediate_bytes)
	};
	ASSERT_EQ(webnn_graph_get_stats(g, &small), WEBNN_STATUS_OK);
	ASSERT(small.compile_ms == st.compile_ms && small.operations == 0);
	/* the operations as built, by type: one each, the unused sigmoid left out */
	const char *name, *seen[8];
	uint32_t count;
	size_t n = 0;
	while (n < 8 && webnn_graph_operation_type(g, n, &name, &count)) {
		ASSERT_EQ(count, 1u);
		seen[n++] = name;
	}
	ASSERT_EQ(n, 4u);
	static const char *const want_ops[4] = { "transpose", "sub", "relu", "mul" };
	for (int i = 0; i < 4; i++) {
		bool found = false;
		for (size_t k = 0; k < n; k++)
			found |= strcmp(seen[k], want_ops[i]) == 0;
		ASSERT_MSG(found, "%s missing", want_ops[i]);
	}
	ASSERT(!webnn_graph_operation_type(NULL, 0, &name, &count));
	webnn_graph_destroy(g);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(client_graph_stats_reference)
{
	check_graph_stats("reference");
}

TEST(client_graph_stats_opencl)
{
	if (!test_have_opencl())
		SKIP("no OpenCL platform");
	check_graph_stats("opencl");
}
