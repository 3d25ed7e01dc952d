/* Hostile suite, frames and envelopes (issue 7 items 3 and 7): bad headers, stray fds, ids. */
#include "tests/hostile.h"

#include <fcntl.h>
#include <unistd.h>

#include "proto/wire.h"

/* A Flush of ctx with a serial (a request that takes no fds and always gets a reply). */
struct flush_msg {
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__Flush f;
};
static void flush_msg(struct flush_msg *x, uint32_t ctx, uint64_t serial)
{
	webnn__ipc__flush__init(&x->f);
	x->f.context_id = ctx;
	webnn__ipc__client_message__init(&x->m);
	x->m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH;
	x->m.flush = &x->f;
	x->m.has_serial = true;
	x->m.serial = serial;
}

static void devnulls(int *fds, int n)
{
	for (int i = 0; i < n; i++) {
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		ASSERT(fds[i] >= 0);
	}
}

static void close_all(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/* Item 3/7. Abuse: a frame header announcing more than max_frame_bytes (the daemon must refuse
 * it from the header, before buffering). Goodbye "bad frame header". */
TEST(hostile_frame_size_over_max)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	struct wnn_frame_header h = { WNN_FRAME_MAX + 1, 0, 0 };
	pt_send_raw(&c, &h, sizeof(h), NULL, 0);
	hz_expect_end(&c, "bad frame header", false, 5000);
	pt_close(&c);
	/* Before Hello, with the largest size there is. */
	hz_scene_abuser(&s, &c, false);
	h.size = UINT32_MAX;
	pt_send_raw(&c, &h, sizeof(h), NULL, 0);
	hz_expect_end(&c, "bad frame header", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 7. Abuse: reserved header flags set, garbage behind. Goodbye "bad frame header". */
TEST(hostile_frame_flags_set)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	uint8_t junk[64];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 151 + 7);
	struct wnn_frame_header h = { 56, 0, 0x8000 };
	memcpy(junk, &h, sizeof(h));
	pt_send_raw(&c, junk, sizeof(junk), NULL, 0);
	hz_expect_end(&c, "bad frame header", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 3/7. Abuse: a header announcing more fds than a frame may carry (5 > 4), with 5 fds
 * sent. Goodbye naming the file descriptors (the fds arrive with the header's bytes, so either
 * rule may speak first); none of the fds stays open in the worker. */
TEST(hostile_frame_too_many_fds)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pid_t w = s.abuser_worker;
	int base = hz_fd_count(w);
	pt_create_context(&c, 1);
	struct flush_msg f;
	flush_msg(&f, 1, 7);
	int fds[5];
	devnulls(fds, 5);
	pt_send_frame_raw(&c, &f.m, 0, 5, 0, fds, 5);
	close_all(fds, 5);
	hz_expect_end(&c, "file descriptors", false, 5000);
	pt_close(&c);
	int n = hz_fd_count_settle(w, base - 1, 3000);
	ASSERT_MSG(n <= base - 1, "the worker holds %d fds, %d with the connection open", n, base);
	hz_scene_finish(&s);
}

/* Item 3. Abuse: a header announcing 3 fds with only 1 sent. Goodbye naming the file
 * descriptors; the one that came is closed. */
TEST(hostile_fds_fewer_than_announced)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pid_t w = s.abuser_worker;
	int base = hz_fd_count(w);
	pt_create_context(&c, 1);
	struct flush_msg f;
	flush_msg(&f, 1, 7);
	int fd;
	devnulls(&fd, 1);
	pt_send_frame_raw(&c, &f.m, 0, 3, 0, &fd, 1);
	close(fd);
	hz_expect_end(&c, "file descriptors", false, 5000);
	pt_close(&c);
	int n = hz_fd_count_settle(w, base - 1, 3000);
	ASSERT_MSG(n <= base - 1, "the worker holds %d fds, %d with the connection open", n, base);
	hz_scene_finish(&s);
}

/* Item 3. Abuse (the fd exhaustion): fds sent with frames whose header says n_fds=0,
 * on 80 connections at once. Each gets a Goodbye naming the file descriptors, and the worker's
 * fd table does not grow with them. */
TEST(hostile_fds_unannounced)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	enum { N = 80 };
	struct pt_conn c[N];
	int base = 0;
	for (int i = 0; i < N; i++) {
		hz_scene_abuser(&s, &c[i], true);
		if (i == 0)
			base = hz_fd_count(s.abuser_worker);
		pt_create_context(&c[i], 1);
		struct flush_msg f;
		flush_msg(&f, 1, 7);
		int fds[4];
		devnulls(fds, 4);
		pt_send_frame_raw(&c[i], &f.m, 0, 0, 0, fds, 4);
		close_all(fds, 4);
		hz_expect_end(&c[i], "file descriptors", false, 5000);
	}
	int n = hz_fd_count_settle(s.abuser_worker, base - 1, 3000);
	ASSERT_MSG(n <= base - 1, "the worker holds %d fds after %d connections sent stray fds "
				  "(%d with one connection)", n, N, base);
	for (int i = 0; i < N; i++)
		pt_close(&c[i]);
	hz_scene_finish(&s);
}

/* Item 3. Abuse: an fd slipped in with a later chunk of a frame (mid-frame, the header said
 * none). Goodbye naming the file descriptors. */
TEST(hostile_fds_mid_frame)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	struct flush_msg f;
	flush_msg(&f, 1, 7);
	size_t n;
	uint8_t *frame = wnn_frame_pack(&f.m, &n);
	ASSERT(frame && n > sizeof(struct wnn_frame_header) + 2);
	size_t first = sizeof(struct wnn_frame_header) + 1;
	pt_send_raw(&c, frame, first, NULL, 0);
	usleep(50000);
	int fd;
	devnulls(&fd, 1);
	pt_send_raw(&c, frame + first, n - first, &fd, 1);
	close(fd);
	free(frame);
	hz_expect_end(&c, "file descriptors", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 3/7. Abuse: an fd attached (and announced) to a request that takes none. Goodbye
 * "unexpected fds". (Moved from test_protocol.c.) */
TEST(hostile_fds_with_request_that_takes_none)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	struct flush_msg f;
	flush_msg(&f, 1, 9);
	int fd;
	devnulls(&fd, 1);
	pt_send_fds(&c, &f.m, &fd, 1);
	close(fd);
	hz_expect_end(&c, "unexpected fds", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 7. Abuse: a well-framed payload that is not a ClientMessage, before and after the
 * handshake. Goodbye "undecodable". (Moved from test_protocol.c.) */
TEST(hostile_garbage_protobuf)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	const uint8_t notpb[] = { 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02 };
	struct pt_conn c;
	hz_scene_abuser(&s, &c, false);
	ASSERT_EQ(wnn_frame_send(c.fd, notpb, sizeof(notpb), NULL, 0), 0);
	hz_expect_end(&c, "undecodable", false, 5000);
	pt_close(&c);
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 7);
	ASSERT_EQ(wnn_frame_send(c.fd, notpb, sizeof(notpb), NULL, 0), 0);
	hz_expect_end(&c, "undecodable", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 2/7. Abuse: decode amplification, a 8 MB frame of a million tiny operand messages that
 * would unpack to ~30 times its size. Refused by the decode budget (Goodbye); the worker's peak
 * memory stays near the budget. (Moved from test_protocol.c, with the peak measured.) */
TEST(hostile_decode_amplification)
{
	struct hz_scene s;
	hz_scene_start(&s, "--limit", "unpack_budget=16777216", NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	long hwm = hz_status_kib(s.abuser_worker, "VmHWM");
	size_t n = 1000000;
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
	Webnn__Ipc__BuildGraph bg;
	Webnn__Ipc__ClientMessage m;
	pt_build_graph_msg(&m, &bg, 1, 2, &gi);
	m.has_serial = true;
	m.serial = 5;
	ASSERT(webnn__ipc__client_message__get_packed_size(&m) < WNN_FRAME_MAX);
	pt_send(&c, &m);
	free(ops);
	hz_client_roundtrip(&s.good, HZ_RTT_MS);
	hz_expect_end(&c, "budget", false, 10000);
	pt_close(&c);
	long grew = hz_status_kib(s.abuser_worker, "VmHWM") - hwm;
	ASSERT_MSG(grew < 64 * 1024, "the worker's peak memory grew by %ld MiB decoding a frame "
				     "over a 16 MiB decode budget", grew >> 10);
	hz_scene_finish(&s);
}

/* Item 7. Abuse: a ClientMessage whose body is a field this daemon does not know (message
 * case 0). Goodbye "unknown request". */
TEST(hostile_unknown_message_case)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	/* serial = 5, then field 99 (varint 1): valid protobuf, no known body. */
	const uint8_t payload[] = { 0x08, 0x05, 0x98, 0x06, 0x01 };
	ASSERT_EQ(wnn_frame_send(c.fd, payload, sizeof(payload), NULL, 0), 0);
	hz_expect_end(&c, "unknown request", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 7. Abuse: a request before Hello. Goodbye "must be Hello". (Moved from
 * test_protocol.c.) */
TEST(hostile_request_before_hello)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, false);
	Webnn__Ipc__CreateContext cc = WEBNN__IPC__CREATE_CONTEXT__INIT;
	cc.context_id = 1;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONTEXT;
	m.create_context = &cc;
	m.has_serial = true;
	m.serial = 1;
	pt_send(&c, &m);
	hz_expect_end(&c, "first message must be Hello", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 7. Abuse: Hello twice (renegotiating limits or identity mid-session). Goodbye. */
TEST(hostile_hello_twice)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	struct hz_hello h;
	hz_hello_msg(&h, "again", 50);
	pt_send(&c, &h.m);
	hz_expect_end(&c, "Hello sent twice", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 7. Abuse: a Hello with a protocol major this daemon does not speak. Goodbye "not
 * supported". (Moved from test_protocol.c.) */
TEST(hostile_wrong_major)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, false);
	struct hz_hello h;
	hz_hello_msg(&h, "future", 1);
	h.h.major = WNN_PROTOCOL_MAJOR + 41;
	pt_send(&c, &h.m);
	hz_expect_end(&c, "not supported", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 7. Abuse: a request that needs a serial sent without one (its reply could not be
 * matched). Goodbye naming the serial. (Moved from test_protocol.c.) */
TEST(hostile_missing_serial)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	Webnn__Ipc__CreateContext cc = WEBNN__IPC__CREATE_CONTEXT__INIT;
	cc.context_id = 4;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONTEXT;
	m.create_context = &cc;
	pt_send(&c, &m);
	hz_expect_end(&c, "serial", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 7. Abuse: object id 0. Goodbye "id 0". (Moved from test_protocol.c.) */
TEST(hostile_id_zero)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	Webnn__Ipc__CreateContext cc = WEBNN__IPC__CREATE_CONTEXT__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONTEXT;
	m.create_context = &cc;
	m.has_serial = true;
	m.serial = 2;
	pt_send(&c, &m);
	hz_expect_end(&c, "id 0", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 7. Abuse: an id never created. Goodbye "unknown tensor id". (Moved from
 * test_protocol.c.) */
TEST(hostile_unknown_id)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 3);
	float v[4] = { 0 };
	pt_write_inline(&c, 12345, v, sizeof(v));
	hz_expect_end(&c, "unknown tensor id 12345", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 7. Abuse: an id of the wrong kind (a context used as a tensor: type confusion).
 * Goodbye "is a context, expected a tensor". (Moved from test_protocol.c.) */
TEST(hostile_wrong_kind_id)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 3);
	float v[4] = { 0 };
	pt_write_inline(&c, 3, v, sizeof(v));
	hz_expect_end(&c, "is a context, expected a tensor", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 7. Abuse: a live id reused for a new object (across kinds: one id space). Goodbye
 * "already used". (Moved from test_protocol.c.) */
TEST(hostile_id_reuse)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 3);
	struct pt_tensor_msg t;
	pt_tensor_msg(&t, 3, 3, WEBNN__IPC__DATA_TYPE__FLOAT32, (const uint32_t[]){ 4 }, 1, true,
		      true);
	t.m.has_serial = true;
	t.m.serial = 99;
	pt_send(&c, &t.m);
	hz_expect_end(&c, "already used", false, 5000);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 4/7. Abuse: naming another client's (another uid's) tensor id. Ids are per connection:
 * Goodbye "unknown tensor id", and the other client's tensor is untouched. (Moved from
 * test_protocol.c, now across uids.) */
TEST(hostile_foreign_ids)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	hz_client_roundtrip(&s.good, HZ_RTT_MS); /* tensor 2 of the bystander holds 0..5 */
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	float v[6] = { 9, 9, 9, 9, 9, 9 };
	pt_write_inline(&c, 2, v, sizeof(v));
	hz_expect_end(&c, "unknown tensor id 2", false, 5000);
	pt_close(&c);
	pt_read_expect(&s.good.c, 2, (const float[]){ 0, 1, 2, 3, 4, 5 }, 6);
	hz_scene_finish(&s);
}

/* Ids that collide under the id map's old public hash (the murmur3 finalizer of obj.c): the
 * hash is inverted so that every id's hash has the same low 17 bits but one. */
static uint32_t inverse_odd(uint32_t a)
{
	uint32_t x = a;
	for (int i = 0; i < 5; i++)
		x *= 2u - a * x;
	return x;
}

static uint32_t colliding_id(uint32_t i)
{
	uint32_t x = (i >> 1) << 17 | (1u + (i & 1)); /* the hash wanted: never 0 */
	x ^= x >> 16;
	x *= inverse_odd(0x846ca68bu);
	x ^= (x >> 15) ^ (x >> 30);
	x *= inverse_odd(0x7feb352du);
	x ^= x >> 16;
	return x;
}

/* Item 3. Abuse: 65536 object ids chosen to collide in the id map (the 7 s loop
 * stall with a public, invertible hash and linear probing). They are created quickly, another
 * client of the same worker keeps its round trips short meanwhile, and closing the session
 * does not stall the worker either. */
TEST_TIMEOUT(hostile_colliding_ids, 60)
{
	struct test_daemon d;
	hz_start(&d, "--limit", "max_objects=70000", NULL);
	struct hz_watch w;
	hz_watch_start(&w, &d, 0);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "colliding ids");
	enum { N = 65536 };
	uint32_t ctx = 0;
	for (uint32_t id = 1; !ctx; id++) {
		bool used = false;
		for (uint32_t i = 0; i < N && !used; i++)
			used = colliding_id(i) == id;
		if (!used)
			ctx = id;
	}
	pt_create_context(&c, ctx);
	struct hz_buf b = { 0 };
	for (uint32_t i = 0; i < N; i++) {
		struct pt_tensor_msg t;
		pt_tensor_msg(&t, ctx, colliding_id(i), WEBNN__IPC__DATA_TYPE__FLOAT32,
			      (const uint32_t[]){ 1 }, 1, true, true);
		t.m.has_serial = true;
		t.m.serial = 100 + i;
		hz_buf_msg(&b, &t.m);
	}
	/* Distinct ids take ~3 s here; colliding ones took 20 s before the keyed hash. */
	struct hz_pump st;
	hz_pump(&c, &b, N, 10000, 15000, &st);
	hz_buf_free(&b);
	ASSERT_MSG(st.reply_errors == 0 && st.goodbyes == 0 && !st.closed,
		   "%d errors (%s), goodbye '%s'", st.reply_errors, st.first_error, st.goodbye);
	ASSERT_EQ(st.replies, N);
	hz_watch_stop(&w, HZ_RTT_MS);
	hz_watch_start(&w, &d, 0);
	pt_close(&c);
	hz_fresh_client(&d, 0, HZ_RTT_MS);
	hz_watch_stop(&w, HZ_RTT_MS);
	test_daemon_stop(&d);
}
