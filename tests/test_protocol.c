/* Raw wire-protocol tests against a real webnnd: handshake, violations, shm, graphs, shutdown. */
#include "tests/ptclient.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto/wire.h"
#include "proto/wnn.h"

/* ---- tests */

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

TEST(protocol_wrong_major)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	Webnn__Ipc__Hello h = WEBNN__IPC__HELLO__INIT;
	h.major = WNN_PROTOCOL_MAJOR + 41;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_HELLO;
	m.hello = &h;
	m.has_serial = true;
	m.serial = 1;
	pt_send(&c, &m);
	pt_expect_goodbye(&c, "protocol version");
	pt_close(&c);
	test_daemon_stop(&d);
}

TEST(protocol_first_message_not_hello)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	Webnn__Ipc__CreateContext cc = WEBNN__IPC__CREATE_CONTEXT__INIT;
	cc.context_id = 1;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONTEXT;
	m.create_context = &cc;
	m.has_serial = true;
	m.serial = 1;
	pt_send(&c, &m);
	pt_expect_goodbye(&c, "first message must be Hello");
	pt_close(&c);
	test_daemon_stop(&d);
}

/* Malformed frames end only their own connection; a parallel one keeps working. */
TEST(protocol_malformed_frames_isolated)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn good, bad;
	pt_connect(&good, &d);
	pt_hello(&good, "test_protocol");
	pt_create_context(&good, 7);

	/* Header announcing more than WNN_FRAME_MAX bytes. */
	pt_connect(&bad, &d);
	struct wnn_frame_header h = { WNN_FRAME_MAX + 1, 0, 0 };
	ASSERT(write(bad.fd, &h, sizeof(h)) == (ssize_t)sizeof(h));
	pt_expect_goodbye(&bad, "bad frame header");
	pt_close(&bad);

	/* Garbage: reserved flags set, random bytes behind. */
	pt_connect(&bad, &d);
	uint8_t junk[64];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 151 + 7);
	ASSERT(write(bad.fd, junk, sizeof(junk)) == (ssize_t)sizeof(junk));
	pt_expect_goodbye(&bad, "bad frame header");
	pt_close(&bad);

	/* A well-framed payload that is not a ClientMessage. */
	pt_connect(&bad, &d);
	const uint8_t notpb[] = { 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02 };
	ASSERT_EQ(wnn_frame_send(bad.fd, notpb, sizeof(notpb), NULL, 0), 0);
	pt_expect_goodbye(&bad, "undecodable");
	pt_close(&bad);

	/* The same after a successful handshake. */
	pt_connect(&bad, &d);
	pt_hello(&bad, "test_protocol");
	pt_create_context(&bad, 7);
	ASSERT_EQ(wnn_frame_send(bad.fd, notpb, sizeof(notpb), NULL, 0), 0);
	pt_expect_goodbye(&bad, "undecodable");
	pt_close(&bad);

	/* An fd with a request that takes none. */
	pt_connect(&bad, &d);
	pt_hello(&bad, "test_protocol");
	Webnn__Ipc__Flush fl = WEBNN__IPC__FLUSH__INIT;
	fl.context_id = 1;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH;
	m.flush = &fl;
	m.has_serial = true;
	m.serial = 9;
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pt_send_fds(&bad, &m, &devnull, 1);
	close(devnull);
	pt_expect_goodbye(&bad, "unexpected fds");
	pt_close(&bad);

	pt_roundtrip(&good, 7, 8, 1.25f);
	pt_close(&good);
	test_daemon_stop(&d);
}

/* Hostile amplification: a frame of many tiny operands is refused by the decode budget. */
TEST(protocol_decode_budget)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c, good;
	pt_connect(&good, &d);
	pt_hello(&good, "test_protocol");
	pt_create_context(&good, 1);
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	size_t n = 1500000;
	Webnn__Ipc__OperandDescriptor desc = WEBNN__IPC__OPERAND_DESCRIPTOR__INIT;
	desc.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	Webnn__Ipc__Operand od = WEBNN__IPC__OPERAND__INIT;
	od.descriptor = &desc;
	Webnn__Ipc__Operand **ops = malloc(sizeof(*ops) * n);
	ASSERT(ops);
	for (size_t i = 0; i < n; i++)
		ops[i] = &od;
	Webnn__Ipc__GraphInfo gi = WEBNN__IPC__GRAPH_INFO__INIT;
	gi.n_operands = n;
	gi.operands = ops;
	Webnn__Ipc__BuildGraph bg = WEBNN__IPC__BUILD_GRAPH__INIT;
	bg.context_id = 1;
	bg.graph_id = 2;
	bg.graph = &gi;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_BUILD_GRAPH;
	m.build_graph = &bg;
	m.has_serial = true;
	m.serial = 5;
	ASSERT(webnn__ipc__client_message__get_packed_size(&m) < WNN_FRAME_MAX);
	pt_send(&c, &m);
	free(ops);
	pt_expect_goodbye(&c, "budget");
	pt_close(&c);
	pt_roundtrip(&good, 1, 2, -3.0f);
	pt_close(&good);
	test_daemon_stop(&d);
}

TEST(protocol_bad_ids)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;

	/* id 0 */
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	Webnn__Ipc__CreateContext cc = WEBNN__IPC__CREATE_CONTEXT__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONTEXT;
	m.create_context = &cc;
	m.has_serial = true;
	m.serial = 2;
	pt_send(&c, &m);
	pt_expect_goodbye(&c, "id 0");
	pt_close(&c);

	/* A reused id, across kinds (one id space). */
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 3);
	struct pt_tensor_msg t;
	pt_tensor_msg(&t, 3, 3, WEBNN__IPC__DATA_TYPE__FLOAT32, (const uint32_t[]){ 4 }, 1, true,
		      true);
	t.m.has_serial = true;
	t.m.serial = 99;
	pt_send(&c, &t.m);
	pt_expect_goodbye(&c, "already used");
	pt_close(&c);

	/* An unknown id. */
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 3);
	float v[4] = { 0 };
	pt_write_inline(&c, 12345, v, sizeof(v));
	pt_expect_goodbye(&c, "unknown tensor id 12345");
	pt_close(&c);

	/* An id of the wrong kind. */
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 3);
	pt_write_inline(&c, 3, v, sizeof(v));
	pt_expect_goodbye(&c, "is a context, expected a tensor");
	pt_close(&c);

	/* Ids are per connection: another client's tensor id is unknown here. */
	struct pt_conn a;
	pt_connect(&a, &d);
	pt_hello(&a, "test_protocol");
	pt_create_context(&a, 1);
	pt_create_tensor(&a, 1, 2, (const uint32_t[]){ 4 }, 1);
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 1);
	pt_write_inline(&c, 2, v, sizeof(v));
	pt_expect_goodbye(&c, "unknown tensor id 2");
	pt_close(&c);
	pt_write_inline(&a, 2, v, sizeof(v));
	pt_read_expect(&a, 2, v, 4);
	pt_close(&a);

	/* A required serial missing. */
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	cc.context_id = 4;
	m.has_serial = false;
	m.serial = 0;
	pt_send(&c, &m);
	pt_expect_goodbye(&c, "serial");
	pt_close(&c);
	test_daemon_stop(&d);
}

static int pt_memfd(size_t size, unsigned seals)
{
	int fd = memfd_create("pt", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT(fd >= 0);
	ASSERT(ftruncate(fd, (off_t)size) == 0);
	if (seals)
		ASSERT(fcntl(fd, F_ADD_SEALS, seals) == 0);
	return fd;
}

static Webnn__Ipc__ServerMessage *pt_register_shm(struct pt_conn *c, uint32_t slot, size_t size,
						  int fd)
{
	Webnn__Ipc__RegisterShm rs = WEBNN__IPC__REGISTER_SHM__INIT;
	rs.slot_id = slot;
	rs.size = size;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_REGISTER_SHM;
	m.register_shm = &rs;
	return pt_call_fds(c, &m, &fd, 1);
}

TEST(protocol_shm)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 1);

	/* Without F_SEAL_SHRINK: refused, the session lives on. */
	int fd = pt_memfd(4096, 0);
	Webnn__Ipc__ServerMessage *s = pt_register_shm(&c, 10, 4096, fd);
	ASSERT(s->reply->error);
	ASSERT_EQ(s->reply->error->status, WEBNN__IPC__STATUS__TYPE_ERROR);
	ASSERT_CONTAINS(s->reply->error->message, "F_SEAL_SHRINK");
	pt_free(s);
	close(fd);
	/* Smaller than announced. */
	fd = pt_memfd(4096, F_SEAL_SHRINK | F_SEAL_GROW);
	s = pt_register_shm(&c, 10, 8192, fd);
	ASSERT(s->reply->error);
	ASSERT_CONTAINS(s->reply->error->message, "fewer than");
	pt_free(s);
	/* Properly sealed. */
	s = pt_register_shm(&c, 10, 4096, fd);
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

	/* A range past the end of the slot (offset + size overflowing too) is a violation. */
	src.offset = UINT64_MAX - 8;
	src.size = 64;
	m.has_serial = true;
	m.serial = 1000;
	pt_send(&c, &m);
	pt_expect_goodbye(&c, "outside slot 10");
	pt_close(&c);
	munmap(map, 4096);

	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 1);
	fd = pt_memfd(4096, F_SEAL_SHRINK);
	s = pt_register_shm(&c, 10, 4096, fd);
	close(fd);
	ASSERT(!s->reply->error);
	pt_free(s);
	pt_create_tensor(&c, 1, 2, (const uint32_t[]){ 16 }, 1);
	dst.offset = 4090;
	mr.has_serial = true;
	pt_send(&c, &mr);
	pt_expect_goodbye(&c, "outside slot 10");
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
	pt_graph_init(&g, 1, 2, 3);
	pt_operand(&g, 0, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "x",
		   (const uint32_t[]){ 1, 1, 5, 5 }, 4);
	pt_operand(&g, 1, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "w",
		   (const uint32_t[]){ 1, 3, 3 }, 3);
	pt_operand(&g, 2, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, NULL,
		   (const uint32_t[]){ 1, 1, 3, 3 }, 4);
	webnn__ipc__conv2d__init(&g.conv);
	g.conv.input = 0;
	g.conv.filter = 1;
	g.conv.output = 2;
	g.op.op = wnn_ops[WNN_OP_CONV2D].id;
	g.op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_CONV2D;
	g.op.conv2d = &g.conv;
	pt_graph_io(&g, 2, (const char *const[]){ "x", "w" }, (const uint32_t[]){ 0, 1 }, "y", 2);
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

TEST(protocol_absurd_tensors)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 1);
	struct pt_tensor_msg t;
	const uint32_t huge[] = { 0x7fffffff, 0x7fffffff, 0x7fffffff };
	pt_tensor_msg(&t, 1, 2, WEBNN__IPC__DATA_TYPE__FLOAT32, huge, 3, true, true);
	pt_call_err(&c, &t.m, WEBNN__IPC__STATUS__TYPE_ERROR, "createTensor");
	const uint32_t big[] = { 1u << 20, 1u << 12 }; /* 16 GiB of float32 */
	pt_tensor_msg(&t, 1, 2, WEBNN__IPC__DATA_TYPE__FLOAT32, big, 2, true, true);
	pt_call_err(&c, &t.m, WEBNN__IPC__STATUS__TYPE_ERROR, "createTensor");
	const uint32_t zero[] = { 4, 0 };
	pt_tensor_msg(&t, 1, 2, WEBNN__IPC__DATA_TYPE__FLOAT32, zero, 2, true, true);
	pt_call_err(&c, &t.m, WEBNN__IPC__STATUS__TYPE_ERROR, "dimension 1");
	const uint32_t deep[WNN_MAX_RANK + 1] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	pt_tensor_msg(&t, 1, 2, WEBNN__IPC__DATA_TYPE__FLOAT32, deep, WNN_MAX_RANK + 1, true,
		      true);
	pt_call_err(&c, &t.m, WEBNN__IPC__STATUS__TYPE_ERROR, "rank");
	pt_tensor_msg(&t, 1, 2, 77, (const uint32_t[]){ 4 }, 1, true, true);
	pt_call_err(&c, &t.m, WEBNN__IPC__STATUS__TYPE_ERROR, "data type");
	/* A failed creation leaves the id free. */
	pt_roundtrip(&c, 1, 2, 9.0f);
	/* A write of the wrong length is an ErrorEvent and changes nothing. */
	float three[3] = { 1, 2, 3 };
	pt_write_inline(&c, 2, three, sizeof(three));
	Webnn__Ipc__ServerMessage *s = pt_recv(&c);
	ASSERT(s && s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_ERROR);
	ASSERT_CONTAINS(s->error->error->message, "12 bytes, expected 24");
	pt_free(s);
	float v[6];
	for (int i = 0; i < 6; i++)
		v[i] = 9.0f + (float)i * 0.5f;
	pt_read_expect(&c, 2, v, 6);
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

/* A client vanishing with work queued and a graph compiling frees everything safely. */
TEST(protocol_disconnect_with_work_in_flight)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn a, b;
	pt_connect(&b, &d);
	pt_hello(&b, "test_protocol");
	pt_create_context(&b, 1);
	for (int round = 0; round < 3; round++) {
		pt_connect(&a, &d);
		pt_hello(&a, "test_protocol");
		pt_create_context(&a, 1);
		pt_add_roundtrip(&a, 1, 2, 1.0f);
		float x[6] = { 1, 2, 3, 4, 5, 6 };
		for (int i = 0; i < 200; i++) {
			pt_write_inline(&a, 3, x, sizeof(x));
			pt_dispatch(&a, 1, 2, 3, 4, 5);
		}
		struct pt_graph g;
		pt_add_graph(&g, 1, 100);
		g.m.has_serial = true;
		g.m.serial = 1000;
		pt_send(&a, &g.m);
		Webnn__Ipc__ReadTensor r = WEBNN__IPC__READ_TENSOR__INIT;
		r.tensor_id = 5;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
		m.read_tensor = &r;
		m.has_serial = true;
		m.serial = 1001;
		pt_send(&a, &m);
		pt_close(&a);
		pt_roundtrip(&b, 1, 10 + (uint32_t)round, (float)round);
	}
	pt_close(&b);
	test_daemon_stop(&d);
}

/* ---- hostile-input regressions (found reviewing for the fuzz targets) */

/* The plan's intermediates count against the connection's quota: without that, one BuildGraph
 * of small inputs broadcast to 2 GiB intermediates made the backend allocate far beyond it. */
TEST(protocol_graph_intermediates_are_charged)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 1);
	/* t0 = add(a [N, 1], b [1, N]) is just under 2 GiB; relu six times; the last is the output:
	 * five 2 GiB intermediates exceed the default 8 GiB quota. */
	enum { N = 23170, RELUS = 6, N_OPS = RELUS + 1, N_OPERANDS = 2 + N_OPS };
	uint32_t sa[2] = { N, 1 }, sb[2] = { 1, N }, sbig[2] = { N, N };
	Webnn__Ipc__OperandDescriptor da = WEBNN__IPC__OPERAND_DESCRIPTOR__INIT, db = da, dbig = da;
	da.data_type = db.data_type = dbig.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	da.n_shape = db.n_shape = dbig.n_shape = 2;
	da.shape = sa, db.shape = sb, dbig.shape = sbig;
	Webnn__Ipc__Operand operands[N_OPERANDS], *op_ptrs[N_OPERANDS];
	for (int i = 0; i < N_OPERANDS; i++) {
		webnn__ipc__operand__init(&operands[i]);
		operands[i].kind = i < 2 ? WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT
					 : WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT;
		operands[i].descriptor = i == 0 ? &da : i == 1 ? &db : &dbig;
		op_ptrs[i] = &operands[i];
	}
	operands[0].name = "a";
	operands[1].name = "b";
	Webnn__Ipc__ElementwiseBinary bin = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
	bin.a = 0, bin.b = 1, bin.output = 2;
	Webnn__Ipc__ElementwiseUnary un[RELUS];
	Webnn__Ipc__Operation ops[N_OPS], *opp[N_OPS];
	for (int i = 0; i < N_OPS; i++) {
		webnn__ipc__operation__init(&ops[i]);
		opp[i] = &ops[i];
		if (i == 0) {
			ops[i].op = wnn_ops[WNN_OP_ADD].id;
			ops[i].attrs_case = WEBNN__IPC__OPERATION__ATTRS_BINARY;
			ops[i].binary = &bin;
			continue;
		}
		webnn__ipc__elementwise_unary__init(&un[i - 1]);
		un[i - 1].input = (uint32_t)(i + 1);
		un[i - 1].output = (uint32_t)(i + 2);
		ops[i].op = wnn_ops[WNN_OP_RELU].id;
		ops[i].attrs_case = WEBNN__IPC__OPERATION__ATTRS_UNARY;
		ops[i].unary = &un[i - 1];
	}
	Webnn__Ipc__NamedOperand na = WEBNN__IPC__NAMED_OPERAND__INIT, nb = na, ny = na;
	na.name = "a", na.operand = 0;
	nb.name = "b", nb.operand = 1;
	ny.name = "y", ny.operand = N_OPERANDS - 1;
	Webnn__Ipc__NamedOperand *ins[] = { &na, &nb }, *outs[] = { &ny };
	Webnn__Ipc__GraphInfo gi = WEBNN__IPC__GRAPH_INFO__INIT;
	gi.n_operands = N_OPERANDS, gi.operands = op_ptrs;
	gi.n_operations = N_OPS, gi.operations = opp;
	gi.n_inputs = 2, gi.inputs = ins;
	gi.n_outputs = 1, gi.outputs = outs;
	Webnn__Ipc__BuildGraph bg = WEBNN__IPC__BUILD_GRAPH__INIT;
	bg.context_id = 1, bg.graph_id = 2, bg.graph = &gi;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_BUILD_GRAPH;
	m.build_graph = &bg;
	pt_call_err(&c, &m, WEBNN__IPC__STATUS__NO_MEMORY, "quota");
	/* The same graph over [64, 64] builds. */
	sa[0] = sb[1] = sbig[0] = sbig[1] = 64;
	pt_call_ok(&c, &m);
	pt_roundtrip(&c, 1, 3, 1.0f);
	pt_close(&c);
	test_daemon_stop(&d);
}

static long pt_vm_data_kib(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long kib = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmData: %ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* A client pipelining thousands of small requests behind slow work must not make the daemon
 * queue unbounded memory: each ReadTensor of 64 KiB used to allocate its reply buffer when it
 * was read, so 14-byte frames cost 64 KiB each. The daemon now stops reading while too much
 * work is queued; every request is still answered. */
TEST(protocol_pipelined_requests_are_bounded)
{
	/* Under AddressSanitizer freed blocks sit in a 256 MiB quarantine that would count as
	 * growth here; a small one keeps the measurement about the daemon's own queues. */
	char asan[512];
	const char *prev = getenv("ASAN_OPTIONS");
	snprintf(asan, sizeof(asan), "%s%squarantine_size_mb=8", prev ? prev : "", prev ? ":" : "");
	setenv("ASAN_OPTIONS", asan, 1);
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	pt_create_context(&c, 1);
	/* Slow head of line: y = matmul(a, b) over [512, 512]. */
	enum { M = 512 };
	const uint32_t sq[] = { M, M }, row[] = { 1, 16384 };
	struct pt_graph g;
	pt_graph_init(&g, 1, 2, 3);
	pt_operand(&g, 0, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "x", sq, 2);
	pt_operand(&g, 1, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "y", sq, 2);
	pt_operand(&g, 2, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, NULL, sq, 2);
	Webnn__Ipc__Matmul mm = WEBNN__IPC__MATMUL__INIT;
	mm.a = 0, mm.b = 1, mm.output = 2;
	g.op.op = wnn_ops[WNN_OP_MATMUL].id;
	g.op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_MATMUL;
	g.op.matmul = &mm;
	pt_graph_io(&g, 2, (const char *const[]){ "x", "y" }, (const uint32_t[]){ 0, 1 }, "z", 2);
	pt_call_ok(&c, &g.m);
	pt_create_tensor(&c, 1, 3, sq, 2);
	pt_create_tensor(&c, 1, 4, sq, 2);
	pt_create_tensor(&c, 1, 5, sq, 2);
	pt_create_tensor(&c, 1, 6, row, 2); /* 64 KiB, read back many times */

	enum { N = 12000 };
	size_t cap = 1 << 20, len = 0;
	uint8_t *out = malloc(cap);
	ASSERT(out);
	for (int i = 0; i <= N; i++) {
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		Webnn__Ipc__ReadTensor r = WEBNN__IPC__READ_TENSOR__INIT;
		Webnn__Ipc__NamedTensor nx = WEBNN__IPC__NAMED_TENSOR__INIT, ny = nx, nz = nx;
		Webnn__Ipc__NamedTensor *dins[] = { &nx, &ny }, *douts[] = { &nz };
		Webnn__Ipc__Dispatch dp = WEBNN__IPC__DISPATCH__INIT;
		if (i == 0) {
			nx.name = "x", nx.tensor_id = 3;
			ny.name = "y", ny.tensor_id = 4;
			nz.name = "z", nz.tensor_id = 5;
			dp.context_id = 1, dp.graph_id = 2;
			dp.n_inputs = 2, dp.inputs = dins;
			dp.n_outputs = 1, dp.outputs = douts;
			m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DISPATCH;
			m.dispatch = &dp;
		} else {
			r.tensor_id = 6;
			m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
			m.read_tensor = &r;
			m.has_serial = true;
			m.serial = 100 + (uint64_t)i;
		}
		size_t n;
		uint8_t *f = wnn_frame_pack(&m, &n);
		ASSERT(f);
		if (len + n > cap) {
			cap *= 2;
			out = realloc(out, cap);
			ASSERT(out);
		}
		memcpy(out + len, f, n);
		len += n;
		free(f);
	}
	long base = pt_vm_data_kib(d.pid), peak = base;
	ASSERT(base > 0);
	int fl = fcntl(c.fd, F_GETFL);
	ASSERT(fcntl(c.fd, F_SETFL, fl | O_NONBLOCK) == 0);
	size_t sent = 0;
	int replies = 0;
	for (int spins = 0; replies < N; spins++) {
		ASSERT_MSG(spins < 2000000, "stalled: %d of %d replies, %zu of %zu bytes sent",
			   replies, N, sent, len);
		struct pollfd p = { c.fd, POLLIN | (sent < len ? POLLOUT : 0), 0 };
		ASSERT_MSG(poll(&p, 1, 10000) > 0, "no progress within 10 s (%d replies)", replies);
		if (sent < len && (p.revents & POLLOUT)) {
			ssize_t w = send(c.fd, out + sent, len - sent, MSG_NOSIGNAL);
			ASSERT_MSG(w > 0 || errno == EAGAIN, "send: %s", strerror(errno));
			if (w > 0)
				sent += (size_t)w;
		}
		if (p.revents & POLLIN) {
			int r = wnn_reader_fill(&c.r, c.fd);
			ASSERT_MSG(r > 0 || r == -EAGAIN, "read: %d", r);
			const uint8_t *payload;
			size_t plen;
			int fds[WNN_FRAME_MAX_FDS], n_fds = 0;
			while (wnn_reader_next(&c.r, &payload, &plen, fds, &n_fds) == 1) {
				Webnn__Ipc__ServerMessage *s =
					webnn__ipc__server_message__unpack(NULL, plen, payload);
				ASSERT(s && s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY);
				ASSERT_MSG(!s->reply->error, "read: %s", s->reply->error->message);
				ASSERT_EQ(s->reply->serial, 100 + (uint64_t)replies + 1);
				replies++;
				pt_free(s);
				wnn_reader_consume(&c.r);
			}
		}
		long now = pt_vm_data_kib(d.pid);
		if (now > peak)
			peak = now;
	}
	free(out);
	/* Unbounded, the queue alone was N * 64 KiB = 750 MiB. */
	ASSERT_MSG(peak - base < 400 * 1024, "the daemon's data grew by %ld MiB", (peak - base) >> 10);
	ASSERT(fcntl(c.fd, F_SETFL, fl) == 0);
	pt_roundtrip(&c, 1, 20, 2.0f);
	pt_close(&c);
	test_daemon_stop(&d);
}

TEST(protocol_contexts_per_connection_are_limited)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "test_protocol");
	for (uint32_t id = 1; id <= 32; id++)
		pt_create_context(&c, id);
	Webnn__Ipc__ServerMessage *s = pt_create_context_reply(&c, 33);
	ASSERT(s->reply->error);
	ASSERT_EQ(s->reply->error->status, WEBNN_STATUS_NO_MEMORY);
	ASSERT_CONTAINS(s->reply->error->message, "already has 32 contexts");
	pt_free(s);
	/* Destroying one frees its slot: the next context is accepted again. */
	Webnn__Ipc__DestroyContext dc = WEBNN__IPC__DESTROY_CONTEXT__INIT;
	dc.context_id = 5;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONTEXT;
	m.destroy_context = &dc;
	pt_send(&c, &m);
	pt_create_context(&c, 34);
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
	char root[] = "/tmp/webnn-cache-test-XXXXXX", dir[128], pocl[160], own[160];
	ASSERT(mkdtemp(root));
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
