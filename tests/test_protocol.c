/* Raw wire-protocol tests of webnnd: handshake, shm, graphs, shutdown (abuses: hostile_*.c). */
#include "tests/ptclient.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/messages.h"
#include "proto/webnn.pb-c.h"
#include "proto/wire.h"
#include "proto/wnn.h"

/* ---- tests */

/* proto/messages.def has one row per ClientMessage body case of webnn.proto and no other:
 * adding a message without saying whether it needs a serial, may carry fds and is ordered
 * fails here (and in the router, which has a handler per row). */
TEST(protocol_message_table_covers_every_body)
{
	const ProtobufCMessageDescriptor *d = &webnn__ipc__client_message__descriptor;
	unsigned bodies = 0, rows = 0;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		if (!(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF))
			continue;
		bodies++;
		const struct wnn_message *m = wnn_message_find(f->id);
		ASSERT_MSG(m != NULL, "ClientMessage.%s (case %u) has no row in proto/messages.def",
			   f->name, f->id);
	}
	for (unsigned c = 0; c < 1024; c++)
		if (wnn_message_find(c)) {
			rows++;
			ASSERT_MSG(protobuf_c_message_descriptor_get_field(d, c) != NULL,
				   "messages.def row %s (case %u) is not a ClientMessage body",
				   wnn_message_find(c)->name, c);
		}
	ASSERT_MSG(bodies == rows && bodies >= 18, "%u bodies, %u rows", bodies, rows);
	/* what the client and the router read from it */
	ASSERT(wnn_message_has(WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR, WNN_MSG_ORDERED));
	ASSERT(!wnn_message_has(WEBNN__IPC__CLIENT_MESSAGE__BODY_DISPATCH, WNN_MSG_SERIAL));
	ASSERT(wnn_message_has(WEBNN__IPC__CLIENT_MESSAGE__BODY_REGISTER_SHM, WNN_MSG_FDS));
	ASSERT(wnn_message_find(WEBNN__IPC__CLIENT_MESSAGE__BODY__NOT_SET) == NULL);
}

TEST(protocol_handshake)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	Webnn__Ipc__Hello h = WEBNN__IPC__HELLO__INIT;
	h.major = WNN_PROTOCOL_MAJOR;
	h.minor = WNN_PROTOCOL_MINOR;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_HELLO;
	m.hello = &h;
	Webnn__Ipc__ServerMessage *s = pt_call(&c, &m);
	ASSERT(!s->reply->error);
	ASSERT_EQ(s->reply->body_case, WEBNN__IPC__REPLY__BODY_HELLO);
	const Webnn__Ipc__HelloReply *hr = s->reply->hello;
	ASSERT_EQ(hr->major, WNN_PROTOCOL_MAJOR);
	ASSERT_EQ(hr->limits->max_frame_bytes, WNN_FRAME_MAX);
	ASSERT_EQ(hr->limits->max_inline_bytes, WNN_INLINE_MAX);
	ASSERT_EQ(hr->limits->max_fds_per_frame, WNN_FRAME_MAX_FDS);
	ASSERT_EQ(hr->limits->max_rank, WNN_MAX_RANK);
	ASSERT(hr->limits->max_objects > 0 && hr->limits->max_tensor_bytes > 0);
	ASSERT_CONTAINS(hr->server_name, "webnnd");
	pt_free(s);

	/* The context reports the reference backend and real per-op limits. */
	s = pt_create_context_reply(&c, 1);
	ASSERT(!s->reply->error);
	const Webnn__Ipc__ContextInfo *ci = s->reply->context;
	ASSERT_STREQ(ci->backend, "reference");
	/* the backend's own preference, not a fixed answer */
	ASSERT_EQ(ci->limits->preferred_input_layout, WEBNN__IPC__INPUT_LAYOUT__NCHW);
	ASSERT(ci->limits->n_ops > 0);
	bool conv_filter = false;
	for (size_t i = 0; i < ci->limits->n_ops; i++) {
		const Webnn__Ipc__TensorLimit *tl = ci->limits->ops[i];
		ASSERT(tl->data_types != 0 && tl->max_rank <= WNN_MAX_RANK);
		if (tl->op == wnn_ops[WNN_OP_CONV2D].id && strcmp(tl->role, "filter") == 0) {
			conv_filter = true;
			ASSERT_EQ(tl->min_rank, 4);
			ASSERT_EQ(tl->max_rank, 4);
		}
	}
	ASSERT(conv_filter);
	pt_free(s);
	pt_close(&c);
	test_daemon_stop(&d);
}

TEST(protocol_shm)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 1);

	/* Sealed against shrinking (the refusals of other memfds are in hostile_shm.c). */
	int fd = pt_memfd(4096, F_SEAL_SHRINK | F_SEAL_GROW);
	Webnn__Ipc__ServerMessage *s = pt_register_shm(&c, 10, 4096, fd);
	ASSERT_MSG(!s->reply->error, "registerShm: %s", s->reply->error->message);
	pt_free(s);
	float *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT(map != MAP_FAILED);
	close(fd);

	/* Write from the slot (serial required), read back into another part of it. */
	pt_create_tensor(&c, 1, 2, (const uint32_t[]){ 16 }, 1);
	for (int i = 0; i < 16; i++)
		map[i] = (float)i * 1.5f;
	Webnn__Ipc__ShmRange src = WEBNN__IPC__SHM_RANGE__INIT;
	src.slot_id = 10;
	src.offset = 0;
	src.size = 64;
	Webnn__Ipc__Data data = WEBNN__IPC__DATA__INIT;
	data.where_case = WEBNN__IPC__DATA__WHERE_SHM;
	data.shm = &src;
	Webnn__Ipc__WriteTensor w = WEBNN__IPC__WRITE_TENSOR__INIT;
	w.tensor_id = 2;
	w.data = &data;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_WRITE_TENSOR;
	m.write_tensor = &w;
	pt_call_ok(&c, &m);
	memset(map, 0, 64); /* the daemon copied the bytes before replying */
	Webnn__Ipc__ShmRange dst = WEBNN__IPC__SHM_RANGE__INIT;
	dst.slot_id = 10;
	dst.offset = 1024;
	dst.size = 64;
	Webnn__Ipc__ReadTensor r = WEBNN__IPC__READ_TENSOR__INIT;
	r.tensor_id = 2;
	r.dest = &dst;
	Webnn__Ipc__ClientMessage mr = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	mr.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
	mr.read_tensor = &r;
	s = pt_call(&c, &mr);
	ASSERT_MSG(!s->reply->error, "readTensor: %s", s->reply->error->message);
	ASSERT(!s->reply->read_tensor || !s->reply->read_tensor->has_data);
	pt_free(s);
	for (int i = 0; i < 16; i++)
		ASSERT_MSG(map[256 + i] == (float)i * 1.5f, "element %d: %g", i, map[256 + i]);

	/* A wrong size is an invalid request, not a violation. */
	src.size = 60;
	s = pt_call(&c, &m);
	ASSERT(s->reply->error);
	ASSERT_CONTAINS(s->reply->error->message, "60 bytes, expected 64");
	pt_free(s);

	pt_close(&c);
	munmap(map, 4096);
	test_daemon_stop(&d);
}

/* y = conv2d(x [1, 1, 5, 5], w of the given shape), the output declared with out_shape (4-D),
 * for context 1 and graph 2. */
static void conv_graph(struct pt_graph *g, const uint32_t *w_shape, uint32_t w_rank,
		       const uint32_t *out_shape)
{
	pt_graph_init(g, 1, 2, 3);
	pt_operand(g, 0, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "x",
		   (const uint32_t[]){ 1, 1, 5, 5 }, 4);
	pt_operand(g, 1, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "w", w_shape, w_rank);
	pt_operand(g, 2, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, NULL, out_shape, 4);
	webnn__ipc__conv2d__init(&g->conv);
	g->conv.input = 0;
	g->conv.filter = 1;
	g->conv.output = 2;
	g->op.op = wnn_ops[WNN_OP_CONV2D].id;
	g->op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_CONV2D;
	g->op.conv2d = &g->conv;
	pt_graph_io(g, 2, (const char *const[]){ "x", "w" }, (const uint32_t[]){ 0, 1 }, "y", 2);
}

/* The daemon computes every operation's outputs with its resolver and refuses a graph whose
 * declared output descriptor differs, naming the operator, the output operand, the declared and
 * the computed descriptor (elementwise, linalg and conv families; shape and type). */
TEST(protocol_declared_output_must_match)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 1);
	struct pt_graph g;

	pt_add_graph(&g, 1, 2);
	g.shapes[2][1] = 4;
	pt_call_err(&c, &g.m, WEBNN__IPC__STATUS__TYPE_ERROR,
		    "add: output (operand 2) is float32 [2, 4], expected float32 [2, 3]");
	pt_add_graph(&g, 1, 2);
	g.descs[2].data_type = WEBNN__IPC__DATA_TYPE__FLOAT16;
	pt_call_err(&c, &g.m, WEBNN__IPC__STATUS__TYPE_ERROR,
		    "add: output (operand 2) is float16 [2, 3], expected float32 [2, 3]");

	pt_matmul_graph(&g, 1, 2, 2, 3, 4);
	g.shapes[2][0] = 3;
	pt_call_err(&c, &g.m, WEBNN__IPC__STATUS__TYPE_ERROR,
		    "matmul: output (operand 2) is float32 [3, 4], expected float32 [2, 4]");

	conv_graph(&g, (const uint32_t[]){ 2, 1, 3, 3 }, 4, (const uint32_t[]){ 1, 2, 5, 5 });
	pt_call_err(&c, &g.m, WEBNN__IPC__STATUS__TYPE_ERROR,
		    "conv2d: output (operand 2) is float32 [1, 2, 5, 5], expected float32 [1, 2, 3, 3]");
	g.shapes[2][2] = 3, g.shapes[2][3] = 3;
	pt_call_ok(&c, &g.m);

	pt_close(&c);
	test_daemon_stop(&d);
}

TEST(protocol_invalid_graph_then_valid)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 1);

	/* conv2d with a rank-3 filter. */
	struct pt_graph g;
	conv_graph(&g, (const uint32_t[]){ 1, 3, 3 }, 3, (const uint32_t[]){ 1, 1, 3, 3 });
	pt_call_err(&c, &g.m, WEBNN__IPC__STATUS__TYPE_ERROR, "conv2d");

	/* An output descriptor that disagrees with shape inference. */
	pt_add_graph(&g, 1, 2);
	g.shapes[2][1] = 4;
	pt_call_err(&c, &g.m, WEBNN__IPC__STATUS__TYPE_ERROR, "add");

	/* The session is alive: the same ids build, dispatch and compute. */
	pt_add_roundtrip(&c, 1, 2, 0.75f);

	/* Dispatch mistakes are ErrorEvents naming the problem; the session continues. */
	pt_create_tensor(&c, 1, 20, (const uint32_t[]){ 3, 2 }, 2);
	pt_dispatch(&c, 1, 2, 3, 20, 5);
	Webnn__Ipc__ServerMessage *s = pt_recv(&c);
	ASSERT(s && s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_ERROR);
	ASSERT_EQ(s->error->object_id, 2);
	ASSERT_CONTAINS(s->error->error->message, "input 'y'");
	pt_free(s);
	pt_dispatch(&c, 1, 2, 3, 3, 5);
	s = pt_recv(&c);
	ASSERT(s && s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_ERROR);
	ASSERT_CONTAINS(s->error->error->message, "more than once");
	pt_free(s);

	/* Destroying the graph frees its id for reuse. */
	Webnn__Ipc__DestroyGraph dg = WEBNN__IPC__DESTROY_GRAPH__INIT;
	dg.graph_id = 2;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_GRAPH;
	m.destroy_graph = &dg;
	pt_send(&c, &m);
	pt_add_graph(&g, 1, 2);
	pt_call_ok(&c, &g.m);
	pt_close(&c);
	test_daemon_stop(&d);
}

/* Two connections at once, their requests interleaved. */
TEST(protocol_two_connections)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn a, b;
	pt_connect(&a, &d);
	pt_connect(&b, &d);
	pt_hello(&a, "test_protocol");
	pt_hello(&b, "test_protocol");
	pt_create_context(&a, 1);
	pt_create_context(&b, 1); /* same id, different connection */
	for (int round = 0; round < 5; round++) {
		uint32_t base = 10 + (uint32_t)round * 10;
		pt_add_roundtrip(&a, 1, base, (float)round);
		pt_add_roundtrip(&b, 1, base, -(float)round);
	}
	pt_close(&a);
	pt_roundtrip(&b, 1, 500, 4.0f);
	pt_close(&b);
	test_daemon_stop(&d);
}

/* SIGTERM with clients connected and work queued: clean exit, status 0. */
TEST(protocol_sigterm_with_clients)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn a, b;
	pt_connect(&a, &d);
	pt_hello(&a, "test_protocol");
	pt_create_context(&a, 1);
	pt_add_roundtrip(&a, 1, 2, 1.0f);
	pt_connect(&b, &d);
	pt_hello(&b, "test_protocol");
	pt_create_context(&b, 1);
	/* Fire-and-forget work left in flight. */
	float x[6] = { 1, 2, 3, 4, 5, 6 };
	for (int i = 0; i < 50; i++) {
		pt_write_inline(&a, 3, x, sizeof(x));
		pt_dispatch(&a, 1, 2, 3, 4, 5);
	}
	test_daemon_stop(&d); /* asserts exit status 0 */
	ASSERT_MSG(access(d.socket_path, F_OK) != 0, "the socket file was left behind");
	pt_close(&a);
	pt_close(&b);
}

/* The same raw requests compute on the OpenCL backend (forced: PoCL's CPU device here). */
TEST_TIMEOUT(protocol_opencl_dispatch, 300)
{
	if (!test_have_opencl())
		SKIP("no OpenCL device");
	static const char *const args[] = { "--backend", "opencl", NULL };
	struct test_daemon d;
	test_daemon_start(&d, args);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	Webnn__Ipc__ServerMessage *s = pt_create_context_reply(&c, 1);
	ASSERT_MSG(!s->reply->error, "createContext: %s", s->reply->error->message);
	ASSERT_STREQ(s->reply->context->backend, "opencl");
	/* its conv2d fast paths are NHWC ones (bench_conv2d) */
	ASSERT_EQ(s->reply->context->limits->preferred_input_layout,
		  WEBNN__IPC__INPUT_LAYOUT__NHWC);
	pt_free(s);
	pt_add_roundtrip(&c, 1, 2, 2.5f);
	pt_close(&c);
	test_daemon_stop(&d);
}

/* The cache directory is the daemon's policy: it is created from WEBNN_CACHE_DIR (parents too)
 * before any backend starts, PoCL's cache goes under it unless POCL_CACHE_DIR is already set. */
static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A handshake: the daemon is past its start-up (signal handlers installed). */
static void cache_policy_serving(struct test_daemon *d)
{
	struct pt_conn c;
	pt_connect(&c, d);
	pt_hello(&c, "test_protocol");
	pt_close(&c);
}

TEST(protocol_cache_dir_policy)
{
	char root[4096], dir[4200], pocl[4300], own[4200];
	test_scratch_dir(root, sizeof(root), "webnn-cache-test");
	/* Started as root, webnnd drops to its service user, which must reach the directory. */
	ASSERT(chmod(root, 0755) == 0);
	snprintf(dir, sizeof(dir), "%s/a/b", root);
	snprintf(pocl, sizeof(pocl), "%s/pocl", dir);
	snprintf(own, sizeof(own), "%s/own", root);
	const char *saved = getenv("POCL_CACHE_DIR");
	char *keep = saved ? strdup(saved) : NULL;
	struct test_daemon d;
	/* Chosen by the daemon: <dir>/pocl exists once the daemon serves. */
	ASSERT(setenv("WEBNN_CACHE_DIR", dir, 1) == 0);
	unsetenv("POCL_CACHE_DIR");
	test_daemon_start(&d, pt_reference);
	cache_policy_serving(&d);
	ASSERT_MSG(is_dir(pocl), "%s was not created", pocl);
	test_daemon_stop(&d);
	rmdir(pocl);
	/* Set by the environment: left alone, nothing created under the cache directory. */
	ASSERT(setenv("POCL_CACHE_DIR", own, 1) == 0);
	test_daemon_start(&d, pt_reference);
	cache_policy_serving(&d);
	ASSERT_MSG(!is_dir(pocl), "%s was created although POCL_CACHE_DIR was set", pocl);
	test_daemon_stop(&d);
	unsetenv("WEBNN_CACHE_DIR");
	if (keep)
		setenv("POCL_CACHE_DIR", keep, 1);
	else
		unsetenv("POCL_CACHE_DIR");
	free(keep);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/a", root);
	rmdir(dir);
	ASSERT_MSG(rmdir(root) == 0, "%s: unexpected files left (%s)", root, strerror(errno));
}
