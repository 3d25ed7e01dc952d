/* Hostile suite, memory and object budgets (issue 7 item 2): floods, partial frames, sizes. */
#include "tests/hostile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/wire.h"

/* Whether a refusal names one of the memory budgets. */
static bool names_budget(const char *why)
{
	return strstr(why, "max_connection_bytes") || strstr(why, "max_uid_bytes") ||
	       strstr(why, "max_total_bytes");
}

/* Sends up to len bytes without blocking for more than stall_ms at a time; returns how many
 * went (fewer when the daemon stopped reading or hung up). */
static size_t send_some(struct pt_conn *c, const uint8_t *p, size_t len, int stall_ms)
{
	size_t sent = 0;
	while (sent < len) {
		struct pollfd pf = { c->fd, POLLOUT, 0 };
		if (poll(&pf, 1, stall_ms) <= 0 || !(pf.revents & POLLOUT))
			break;
		ssize_t n = send(c->fd, p + sent, len - sent < 65536 ? len - sent : 65536,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			break;
		sent += (size_t)n;
	}
	return sent;
}

/* A Goodbye or the end on c within ms, if any: a Goodbye must name a memory budget. Returns
 * whether the connection ended. */
static bool ended_for_budget(struct pt_conn *c, int ms)
{
	bool closed = false;
	Webnn__Ipc__ServerMessage *m;
	while ((m = pt_recv_within(c, ms, &closed))) {
		if (m->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE)
			ASSERT_MSG(names_budget(m->goodbye->reason),
				   "refused for another reason: %s", m->goodbye->reason);
		pt_free(m);
	}
	return closed;
}

/* Item 2. Abuse: many connections each sending a header announcing a 16 MiB frame and half of
 * it (the issue: 256 connections held ~4 GiB). Partial frames count against the uid's budget:
 * the connections are refused or no longer read, the worker's memory stays within the budget
 * (plus slack), and returns near its baseline once they close. */
TEST(hostile_partial_frames_memory)
{
	struct hz_scene s;
	hz_scene_start(&s, "--limit", "max_uid_bytes=33554432", "--limit",
		       "frame_timeout_ms=60000", NULL);
	struct pt_conn first;
	hz_scene_abuser(&s, &first, true);
	pid_t w = s.abuser_worker;
	long base = hz_rss_kib(w), peak = base;
	enum { N = 16, HALF = 8u << 20 };
	uint8_t *chunk = calloc(1, HALF);
	ASSERT(chunk);
	struct pt_conn c[N];
	for (int i = 0; i < N; i++) {
		hz_scene_abuser(&s, &c[i], true);
		struct wnn_frame_header h = { WNN_FRAME_MAX, 0, 0 };
		memcpy(chunk, &h, sizeof(h));
		send_some(&c[i], chunk, HALF, 300);
		long now = hz_rss_kib(w);
		peak = now > peak ? now : peak;
	}
	free(chunk);
	hz_client_roundtrip(&s.good, HZ_RTT_MS);
	for (int i = 0; i < N; i++)
		ended_for_budget(&c[i], 0);
	long now = hz_rss_kib(w);
	peak = now > peak ? now : peak;
	ASSERT_MSG(peak - base < 64 * 1024, "the worker grew by %ld MiB holding partial frames "
					    "(max_uid_bytes 32 MiB)", (peak - base) >> 10);
	for (int i = 0; i < N; i++)
		pt_close(&c[i]);
	pt_close(&first);
	if (HZ_RSS_RETURNS) {
		long after = hz_rss_settle(w, base + 16 * 1024, 5000);
		ASSERT_MSG(after < base + 16 * 1024, "the worker kept %ld MiB after the abusers left",
			   (after - base) >> 10);
	}
	hz_scene_finish(&s);
}

/* Item 2. Abuse: clients that pipeline ReadTensors and never read the replies (the issue:
 * 130 MiB each, 588 MiB still allocated after they closed). Unread replies count against the
 * uid's budget: refused or no longer read, the worker's memory stays within the budget (plus
 * slack) and returns near its baseline after they close. */
TEST(hostile_unread_replies_memory)
{
	struct hz_scene s;
	hz_scene_start(&s, "--limit", "max_uid_bytes=33554432", NULL);
	struct pt_conn first;
	hz_scene_abuser(&s, &first, true);
	pid_t w = s.abuser_worker;
	long base = hz_rss_kib(w), peak = base;
	enum { N = 4, READS = 2000 };
	struct pt_conn c[N];
	/* Every tensor first: once replies pile up unread, the uid's budget refuses new ones. */
	for (int i = 0; i < N; i++) {
		hz_scene_abuser(&s, &c[i], true);
		pt_create_context(&c[i], 1);
		pt_create_tensor(&c[i], 1, 2, (const uint32_t[]){ 1, 16384 }, 2); /* 64 KiB */
	}
	for (int i = 0; i < N; i++) {
		struct hz_buf b = { 0 };
		for (int r = 0; r < READS; r++) {
			Webnn__Ipc__ReadTensor rt = WEBNN__IPC__READ_TENSOR__INIT;
			rt.tensor_id = 2;
			Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
			m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
			m.read_tensor = &rt;
			m.has_serial = true;
			m.serial = 100 + (uint64_t)r;
			hz_buf_msg(&b, &m);
		}
		send_some(&c[i], b.p, b.len, 300);
		hz_buf_free(&b);
	}
	/* Let the worker do what it will with them, sampling its memory. */
	for (double end = hz_now_ms() + 3000; hz_now_ms() < end; usleep(50000)) {
		long now = hz_rss_kib(w);
		peak = now > peak ? now : peak;
	}
	hz_client_roundtrip(&s.good, HZ_RTT_MS);
	ASSERT_MSG(peak - base < 64 * 1024, "the worker grew by %ld MiB holding unread replies "
					    "(max_uid_bytes 32 MiB)", (peak - base) >> 10);
	for (int i = 0; i < N; i++)
		pt_close(&c[i]);
	pt_close(&first);
	if (HZ_RSS_RETURNS) {
		long after = hz_rss_settle(w, base + 16 * 1024, 5000);
		ASSERT_MSG(after < base + 16 * 1024, "the worker kept %ld MiB after the abusers left",
			   (after - base) >> 10);
	}
	hz_scene_finish(&s);
}

/* Item 2. Abuse: CreateTensor until the connection's memory budget is gone. Refused with
 * NO_MEMORY naming max_connection_bytes; destroying a tensor gives its bytes back. */
TEST(hostile_tensor_flood_connection_budget)
{
	struct hz_scene s;
	hz_scene_start(&s, "--limit", "max_connection_bytes=16777216", NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	uint32_t id = 10;
	Webnn__Ipc__ServerMessage *r = NULL;
	for (; id < 10 + 32; id++) { /* 1 MiB each */
		r = hz_create_rows(&c, 1, id, 256);
		if (r->reply->error)
			break;
		pt_free(r);
		r = NULL;
	}
	ASSERT_MSG(r, "32 MiB of tensors fit a 16 MiB budget");
	ASSERT_MSG(id - 10 >= 8, "only %u MiB of a 16 MiB budget could be used", id - 10);
	pt_expect_err(r, WEBNN__IPC__STATUS__NO_MEMORY, "max_connection_bytes");
	hz_client_roundtrip(&s.good, HZ_RTT_MS);
	Webnn__Ipc__DestroyTensor dt = WEBNN__IPC__DESTROY_TENSOR__INIT;
	dt.tensor_id = 10;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_TENSOR;
	m.destroy_tensor = &dt;
	pt_send(&c, &m);
	pt_flush(&c, 1);
	pt_expect_ok(hz_create_rows(&c, 1, 10, 256));
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 2. Abuse: one uid spreading its memory over several connections, each under its own
 * budget. The uid's total is refused naming max_uid_bytes, another uid is not affected, and
 * the bytes of a closed connection come back to the uid. */
TEST(hostile_uid_budget_across_connections)
{
	struct hz_scene s;
	hz_scene_start(&s, "--limit", "max_connection_bytes=16777216", "--limit",
		       "max_uid_bytes=25165824", NULL);
	struct pt_conn a, b, c, other;
	hz_scene_abuser(&s, &a, true);
	hz_scene_abuser(&s, &b, true);
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&a, 1);
	pt_create_context(&b, 1);
	pt_create_context(&c, 1);
	pt_expect_ok(hz_create_rows(&a, 1, 2, 2560)); /* 10 MiB */
	pt_expect_ok(hz_create_rows(&b, 1, 2, 2560));
	pt_expect_err(hz_create_rows(&c, 1, 2, 2048), WEBNN__IPC__STATUS__NO_MEMORY, "max_uid_bytes");
	hz_connect_as(&other, &s.d, HZ_OTHER);
	pt_hello(&other, "other uid");
	pt_create_context(&other, 1);
	pt_expect_ok(hz_create_rows(&other, 1, 2, 2560));
	hz_client_roundtrip(&s.good, HZ_RTT_MS);
	pt_close(&a);
	for (double end = hz_now_ms() + 5000;; usleep(50000)) {
		Webnn__Ipc__ServerMessage *r = hz_create_rows(&c, 1, 2, 2048);
		bool ok = !r->reply->error;
		pt_free(r);
		if (ok)
			break;
		ASSERT_MSG(hz_now_ms() < end, "a closed connection's bytes did not return to its uid");
	}
	pt_close(&b);
	pt_close(&c);
	pt_close(&other);
	hz_scene_finish(&s);
}

/* Item 2. Abuse: two uids together exhausting the daemon's total memory budget. A third is
 * refused naming max_total_bytes (NO_MEMORY, its session lives on) and gets the memory once
 * one of them leaves. */
TEST(hostile_total_budget_across_uids)
{
	struct hz_scene s;
	hz_scene_start(&s, "--limit", "max_total_bytes=25165824", "--limit",
		       "max_uid_bytes=16777216", "--limit", "max_connection_bytes=16777216", NULL);
	struct pt_conn a, b;
	hz_scene_abuser(&s, &a, true);
	pt_create_context(&a, 1);
	pt_expect_ok(hz_create_rows(&a, 1, 2, 2560));
	hz_connect_as(&b, &s.d, HZ_OTHER);
	pt_hello(&b, "second abuser");
	pt_create_context(&b, 1);
	pt_expect_ok(hz_create_rows(&b, 1, 2, 2560));
	pt_expect_err(hz_create_rows(&s.good.c, 1, 50, 2048), WEBNN__IPC__STATUS__NO_MEMORY,
		      "max_total_bytes");
	hz_client_roundtrip(&s.good, HZ_RTT_MS);
	pt_close(&a);
	for (double end = hz_now_ms() + 5000;; usleep(50000)) {
		Webnn__Ipc__ServerMessage *r = hz_create_rows(&s.good.c, 1, 50, 2048);
		bool ok = !r->reply->error;
		pt_free(r);
		if (ok)
			break;
		ASSERT_MSG(hz_now_ms() < end, "a closed connection's bytes did not return to the "
					      "daemon's budget");
	}
	pt_close(&b);
	hz_scene_finish(&s);
}

/* Item 2. Abuse: CreateTensor of tiny tensors until max_objects. Refused with NO_MEMORY
 * naming the object limit; the session and the worker are fine. */
TEST(hostile_object_flood)
{
	struct hz_scene s;
	hz_scene_start(&s, "--limit", "max_objects=200", NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	struct hz_buf b = { 0 };
	for (uint32_t i = 0; i < 199; i++) {
		struct pt_tensor_msg t;
		pt_tensor_msg(&t, 1, 2 + i, WEBNN__IPC__DATA_TYPE__FLOAT32,
			      (const uint32_t[]){ 1 }, 1, true, true);
		t.m.has_serial = true;
		t.m.serial = 10 + i;
		hz_buf_msg(&b, &t.m);
	}
	struct hz_pump st;
	hz_pump(&c, &b, 199, 10000, 0, &st);
	hz_buf_free(&b);
	ASSERT_MSG(st.reply_errors == 0, "%s", st.first_error);
	struct pt_tensor_msg t;
	pt_tensor_msg(&t, 1, 5000, WEBNN__IPC__DATA_TYPE__FLOAT32, (const uint32_t[]){ 1 }, 1,
		      true, true);
	Webnn__Ipc__ServerMessage *r = pt_call(&c, &t.m);
	ASSERT_MSG(r->reply->error, "object 201 of a connection was accepted");
	ASSERT_EQ(r->reply->error->status, WEBNN__IPC__STATUS__NO_MEMORY);
	ASSERT_CONTAINS(r->reply->error->message, "objects");
	pt_free(r);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 2. Abuse: CreateContext until max_contexts (each holds a device queue). Refused with
 * NO_MEMORY "(max_contexts)"; destroying one frees its slot. (Moved from test_protocol.c.) */
TEST(hostile_context_flood)
{
	struct hz_scene s;
	hz_scene_start(&s, "--limit", "max_contexts=4", NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	for (uint32_t id = 1; id <= 4; id++)
		pt_create_context(&c, id);
	for (uint32_t id = 5; id <= 20; id++)
		pt_expect_err(pt_create_context_reply(&c, id), WEBNN__IPC__STATUS__NO_MEMORY,
			      "(max_contexts)");
	Webnn__Ipc__DestroyContext dc = WEBNN__IPC__DESTROY_CONTEXT__INIT;
	dc.context_id = 2;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONTEXT;
	m.destroy_context = &dc;
	pt_send(&c, &m);
	pt_create_context(&c, 21);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* The abuser's CreateTensor of tensor 2 with this descriptor is refused (TYPE_ERROR, needle);
 * the id stays free and the session works. limit: a --limit argument or NULL. */
static void tensor_refused(const char *limit, const uint32_t *shape, size_t rank, int type,
			   const char *needle)
{
	struct hz_scene s;
	hz_scene_start(&s, limit ? "--limit" : NULL, limit, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	struct pt_tensor_msg t;
	pt_tensor_msg(&t, 1, 2, type, shape, rank, true, true);
	pt_call_err(&c, &t.m, WEBNN__IPC__STATUS__TYPE_ERROR, needle);
	pt_roundtrip(&c, 1, 2, 9.0f);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 2/7. Abuse: a tensor over maxTensorByteLength (max_tensor_bytes lowered to 1 MiB, a
 * 2 MiB tensor), and one of 16 GiB whatever the limit. (Moved from test_protocol.c.) */
TEST(hostile_tensor_too_large)
{
	tensor_refused("max_tensor_bytes=1048576", (const uint32_t[]){ 512, 1024 }, 2,
		       WEBNN__IPC__DATA_TYPE__FLOAT32, "maxTensorByteLength");
	tensor_refused(NULL, (const uint32_t[]){ 1u << 20, 1u << 12 }, 2,
		       WEBNN__IPC__DATA_TYPE__FLOAT32, "createTensor");
}

/* Item 2/7. Abuse: dimensions whose product overflows 64 bits (a size check after a wrapped
 * multiplication would pass). (Moved from test_protocol.c.) */
TEST(hostile_tensor_dims_overflow)
{
	const uint32_t huge[] = { 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff };
	tensor_refused(NULL, huge, 4, WEBNN__IPC__DATA_TYPE__FLOAT32, "createTensor");
}

/* Item 7. Abuse: rank 9, past the protocol's maximum of 8. (Moved from test_protocol.c.) */
TEST(hostile_tensor_rank_over_max)
{
	const uint32_t deep[WNN_MAX_RANK + 1] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	tensor_refused(NULL, deep, WNN_MAX_RANK + 1, WEBNN__IPC__DATA_TYPE__FLOAT32, "rank");
}

/* Item 7. Abuse: a zero dimension, and a "negative" one (0xffffffff as uint32). (Moved from
 * test_protocol.c, the negative one added.) */
TEST(hostile_tensor_zero_or_negative_dims)
{
	tensor_refused(NULL, (const uint32_t[]){ 4, 0 }, 2, WEBNN__IPC__DATA_TYPE__FLOAT32,
		       "dimension 1");
	tensor_refused(NULL, (const uint32_t[]){ 0xffffffffu, 2 }, 2, WEBNN__IPC__DATA_TYPE__FLOAT32,
		       "createTensor");
}

/* Item 7. Abuse: an out-of-range data type enum. (Moved from test_protocol.c.) */
TEST(hostile_tensor_bad_data_type)
{
	tensor_refused(NULL, (const uint32_t[]){ 4 }, 1, 77, "data type");
}

/* Item 2/7. Abuse: a write whose data is shorter than the tensor (an over-read if trusted). An
 * ErrorEvent naming both sizes; the tensor is unchanged. (Moved from test_protocol.c.) */
TEST(hostile_write_wrong_length)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	pt_roundtrip(&c, 1, 2, 9.0f);
	float three[3] = { 1, 2, 3 };
	pt_write_inline(&c, 2, three, sizeof(three));
	Webnn__Ipc__ServerMessage *m = pt_recv(&c);
	ASSERT(m && m->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_ERROR);
	ASSERT_CONTAINS(m->error->error->message, "12 bytes, expected 24");
	pt_free(m);
	float v[6];
	for (int i = 0; i < 6; i++)
		v[i] = 9.0f + (float)i * 0.5f;
	pt_read_expect(&c, 2, v, 6);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 2. Abuse: fire-and-forget CreateConstants (64 KiB inline each, no reply to wait for)
 * past the connection's budget. They fail with ErrorEvents naming max_connection_bytes, the
 * worker's memory stays within the budget, and it comes back when the client leaves. */
TEST(hostile_constant_flood)
{
	struct hz_scene s;
	hz_scene_start(&s, "--limit", "max_connection_bytes=4194304", NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	pid_t w = s.abuser_worker;
	long base = hz_rss_kib(w);
	static float data[16384];
	for (int i = 0; i < 16384; i++)
		data[i] = (float)i;
	struct hz_buf b = { 0 };
	enum { N = 200 };
	for (uint32_t i = 0; i < N; i++) {
		Webnn__Ipc__OperandDescriptor d = WEBNN__IPC__OPERAND_DESCRIPTOR__INIT;
		d.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
		uint32_t shape[] = { 16384 };
		d.n_shape = 1;
		d.shape = shape;
		Webnn__Ipc__Data dd = WEBNN__IPC__DATA__INIT;
		dd.where_case = WEBNN__IPC__DATA__WHERE_INLINE;
		dd.inline_.data = (uint8_t *)data;
		dd.inline_.len = sizeof(data);
		Webnn__Ipc__CreateConstant k = WEBNN__IPC__CREATE_CONSTANT__INIT;
		k.context_id = 1;
		k.constant_id = 10 + i;
		k.descriptor = &d;
		k.data = &dd;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONSTANT;
		m.create_constant = &k;
		hz_buf_msg(&b, &m);
	}
	Webnn__Ipc__Flush f = WEBNN__IPC__FLUSH__INIT;
	f.context_id = 1;
	Webnn__Ipc__ClientMessage fm = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	fm.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH;
	fm.flush = &f;
	fm.has_serial = true;
	fm.serial = 9;
	hz_buf_msg(&b, &fm);
	struct hz_pump st;
	hz_pump(&c, &b, 1, 10000, 0, &st);
	hz_buf_free(&b);
	ASSERT_MSG(st.events > 0, "%d constants of 64 KiB fit a 4 MiB budget", N);
	ASSERT_CONTAINS(st.first_error, "max_connection_bytes");
	long grew = hz_rss_kib(w) - base;
	ASSERT_MSG(grew < 16 * 1024, "the worker grew by %ld MiB under a 4 MiB budget", grew >> 10);
	hz_client_roundtrip(&s.good, HZ_RTT_MS);
	pt_close(&c);
	if (HZ_RSS_RETURNS) {
		long after = hz_rss_settle(w, base + 2048, 5000);
		ASSERT_MSG(after < base + 2048, "the worker kept %ld KiB of constants after the client "
						"left", after - base);
	}
	hz_scene_finish(&s);
}

/* Item 2. Abuse: memory amplification through a graph, small inputs broadcast to 2 GiB
 * intermediates (the backend allocated far beyond the quota before they were charged). Refused
 * with NO_MEMORY naming max_connection_bytes; the same graph over small shapes builds. (Moved
 * from test_protocol.c.) */
TEST(hostile_graph_intermediates_charged)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	/* t0 = add(a [N, 1], b [1, N]) is just under 2 GiB; t1..t5 = relu(t0); then
	 * y = t1 + t2 + t3 + t4 + t5: after t5, six 2 GiB results are alive at once, over the
	 * default 8 GiB quota (a chain of them would not be: each dies at its reader). */
	enum { N = 23170, RELUS = 5, N_OPS = 1 + RELUS + RELUS - 1, N_OPERANDS = 2 + N_OPS };
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
	/* operand 2 is t0, 3..7 are t1..t5, 8.. the running sums */
	Webnn__Ipc__ElementwiseBinary bin[RELUS];
	Webnn__Ipc__ElementwiseUnary un[RELUS];
	Webnn__Ipc__Operation ops[N_OPS], *opp[N_OPS];
	for (int i = 0; i < N_OPS; i++) {
		webnn__ipc__operation__init(&ops[i]);
		opp[i] = &ops[i];
		if (i >= 1 && i <= RELUS) {
			webnn__ipc__elementwise_unary__init(&un[i - 1]);
			un[i - 1].input = 2;
			un[i - 1].output = (uint32_t)(i + 2);
			ops[i].op = wnn_ops[WNN_OP_RELU].id;
			ops[i].attrs_case = WEBNN__IPC__OPERATION__ATTRS_UNARY;
			ops[i].unary = &un[i - 1];
			continue;
		}
		int k = i == 0 ? 0 : i - RELUS;
		webnn__ipc__elementwise_binary__init(&bin[k]);
		bin[k].a = i == 0 ? 0 : k == 1 ? 3 : (uint32_t)(i + 1);
		bin[k].b = i == 0 ? 1 : (uint32_t)(k + 3);
		bin[k].output = (uint32_t)(i + 2);
		ops[i].op = wnn_ops[WNN_OP_ADD].id;
		ops[i].attrs_case = WEBNN__IPC__OPERATION__ATTRS_BINARY;
		ops[i].binary = &bin[k];
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
	Webnn__Ipc__BuildGraph bg;
	Webnn__Ipc__ClientMessage m;
	pt_build_graph_msg(&m, &bg, 1, 2, &gi);
	long base = hz_rss_kib(s.abuser_worker);
	pt_call_err(&c, &m, WEBNN__IPC__STATUS__NO_MEMORY, "max_connection_bytes");
	long grew = hz_rss_kib(s.abuser_worker) - base;
	ASSERT_MSG(grew < 256 * 1024, "the refused build grew the worker by %ld MiB", grew >> 10);
	/* The same graph over [64, 64] builds. */
	sa[0] = sb[1] = sbig[0] = sbig[1] = 64;
	pt_call_ok(&c, &m);
	pt_roundtrip(&c, 1, 3, 1.0f);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Item 2. Abuse: thousands of pipelined ReadTensors behind slow work (each 14-byte request
 * used to allocate its 64 KiB reply buffer when read: 750 MiB queued). The worker stops reading
 * while too much is queued; every request is still answered, memory stays bounded, and a client
 * of another uid is served meanwhile. (Moved from test_protocol.c, where it measured the front
 * door instead of the worker once connections moved to workers.) */
TEST(hostile_pipelined_reads_bounded)
{
	struct test_daemon d;
	hz_start(&d, NULL);
	struct hz_watch watch;
	hz_watch_start(&watch, &d, HZ_OTHER);
	struct pt_conn c;
	pt_connect(&c, &d);
	pt_hello(&c, "pipeliner");
	pt_create_context(&c, 1);
	pid_t worker = hz_worker_pid(&d, 0);
	/* Slow head of line: y = matmul(a, b) over [512, 512]. */
	enum { M = 512 };
	const uint32_t sq[] = { M, M }, row[] = { 1, 16384 };
	struct pt_graph g;
	pt_matmul_graph(&g, 1, 2, M, M, M);
	pt_call_ok(&c, &g.m);
	pt_create_tensor(&c, 1, 3, sq, 2);
	pt_create_tensor(&c, 1, 4, sq, 2);
	pt_create_tensor(&c, 1, 5, sq, 2);
	pt_create_tensor(&c, 1, 6, row, 2); /* 64 KiB, read back many times */

	enum { N = 12000 };
	struct hz_buf out = { 0 };
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
		hz_buf_msg(&out, &m);
	}
	long base = hz_status_kib(worker, "VmData"), peak = base;
	int fl = fcntl(c.fd, F_GETFL);
	ASSERT(fcntl(c.fd, F_SETFL, fl | O_NONBLOCK) == 0);
	size_t sent = 0;
	int replies = 0;
	for (int spins = 0; replies < N; spins++) {
		ASSERT_MSG(spins < 2000000, "stalled: %d of %d replies, %zu of %zu bytes sent",
			   replies, N, sent, out.len);
		struct pollfd p = { c.fd, POLLIN | (sent < out.len ? POLLOUT : 0), 0 };
		ASSERT_MSG(poll(&p, 1, 10000) > 0, "no progress within 10 s (%d replies)", replies);
		if (sent < out.len && (p.revents & POLLOUT)) {
			ssize_t w = send(c.fd, out.p + sent, out.len - sent, MSG_NOSIGNAL);
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
		long now = hz_status_kib(worker, "VmData");
		if (now > peak)
			peak = now;
	}
	hz_buf_free(&out);
	/* Unbounded, the queue alone was N * 64 KiB = 750 MiB. */
	ASSERT_MSG(peak - base < 400 * 1024, "the worker's data grew by %ld MiB",
		   (peak - base) >> 10);
	ASSERT(fcntl(c.fd, F_SETFL, fl) == 0);
	pt_roundtrip(&c, 1, 20, 2.0f);
	hz_watch_stop(&watch, HZ_RTT_MS);
	pt_close(&c);
	test_daemon_stop(&d);
}
