/* A raw wire-protocol test client (webnn-tests): frames, serial-matched calls, common requests. */
#include "tests/ptclient.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto/wire.h"

/* ---- connection */

const char *const pt_reference[] = { "--backend", "reference", NULL };

void pt_connect(struct pt_conn *c, const struct test_daemon *d)
{
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT(c->fd >= 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->socket_path);
	ASSERT_MSG(connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "connect: %s",
		   strerror(errno));
	wnn_reader_init(&c->r, 0);
	c->serial = 0;
	c->strict = false;
	c->timeout_ms = 10000;
}

void pt_close(struct pt_conn *c)
{
	wnn_reader_finish(&c->r);
	close(c->fd);
	c->fd = -1;
}

void pt_send_fds(struct pt_conn *c, Webnn__Ipc__ClientMessage *m, const int *fds, int n_fds)
{
	size_t len = webnn__ipc__client_message__get_packed_size(m);
	uint8_t *buf = malloc(len ? len : 1);
	ASSERT(buf);
	webnn__ipc__client_message__pack(m, buf);
	int r = wnn_frame_send(c->fd, buf, len, fds, n_fds);
	free(buf);
	ASSERT_MSG(r == 0, "send: %s", strerror(-r));
}

void pt_send(struct pt_conn *c, Webnn__Ipc__ClientMessage *m)
{
	pt_send_fds(c, m, NULL, 0);
}

int pt_try_send(struct pt_conn *c, Webnn__Ipc__ClientMessage *m)
{
	size_t len = webnn__ipc__client_message__get_packed_size(m);
	uint8_t *buf = malloc(len ? len : 1);
	ASSERT(buf);
	webnn__ipc__client_message__pack(m, buf);
	int r = wnn_frame_send(c->fd, buf, len, NULL, 0);
	free(buf);
	return r;
}

Webnn__Ipc__ServerMessage *pt_recv_within(struct pt_conn *c, int timeout_ms, bool *closed)
{
	if (closed)
		*closed = false;
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
		int pr = poll(&p, 1, timeout_ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0)
			return NULL;
		int r = wnn_reader_fill(&c->r, c->fd);
		if (r == -EAGAIN)
			continue;
		if (r == 0 || r == -ECONNRESET) {
			if (closed)
				*closed = true;
			return NULL;
		}
		ASSERT_MSG(r > 0, "read: %s", strerror(-r));
	}
}

Webnn__Ipc__ServerMessage *pt_recv(struct pt_conn *c)
{
	bool closed;
	Webnn__Ipc__ServerMessage *m = pt_recv_within(c, c->timeout_ms, &closed);
	ASSERT_MSG(m || closed, "no message from the daemon within %d ms", c->timeout_ms);
	return m;
}

void pt_adopt(struct pt_conn *c, int fd)
{
	c->fd = fd;
	wnn_reader_init(&c->r, 0);
	c->serial = 0;
	c->strict = false;
	c->timeout_ms = 10000;
}

void pt_send_raw(struct pt_conn *c, const void *bytes, size_t len, const int *fds, int n_fds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 16)];
		struct cmsghdr align;
	} cm;
	ASSERT(n_fds >= 0 && n_fds <= 16);
	struct iovec iov = { (void *)bytes, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (n_fds > 0) {
		memset(&cm, 0, sizeof(cm));
		msg.msg_control = cm.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n_fds);
		struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n_fds);
		memcpy(CMSG_DATA(h), fds, sizeof(int) * (size_t)n_fds);
	}
	size_t sent = 0;
	while (sent < len) {
		ssize_t n = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { c->fd, POLLOUT, 0 };
			poll(&p, 1, 1000);
			continue;
		}
		ASSERT_MSG(n > 0, "send: %s", strerror(errno));
		sent += (size_t)n;
		msg.msg_control = NULL; /* the fds went with the first byte */
		msg.msg_controllen = 0;
		iov.iov_base = (char *)bytes + sent;
		iov.iov_len = len - sent;
	}
}

void pt_send_frame_raw(struct pt_conn *c, Webnn__Ipc__ClientMessage *m, uint32_t size_delta,
		       uint16_t n_fds, uint16_t flags, const int *fds, int n_sent)
{
	size_t len = webnn__ipc__client_message__get_packed_size(m);
	struct wnn_frame_header h = { (uint32_t)len + size_delta, n_fds, flags };
	uint8_t *buf = malloc(sizeof(h) + len);
	ASSERT(buf);
	memcpy(buf, &h, sizeof(h));
	webnn__ipc__client_message__pack(m, buf + sizeof(h));
	pt_send_raw(c, buf, sizeof(h) + len, fds, n_sent);
	free(buf);
}

/* Records an ErrorEvent or ContextLost in ev; without ev a strict connection fails on it and a
 * lenient one skips it. */
static void pt_event(struct pt_conn *c, const Webnn__Ipc__ServerMessage *s, struct pt_events *ev)
{
	switch (s->body_case) {
	case WEBNN__IPC__SERVER_MESSAGE__BODY_ERROR: {
		const Webnn__Ipc__ErrorEvent *e = s->error;
		if (!ev) {
			ASSERT_MSG(!c->strict, "unexpected ErrorEvent: %s",
				   e->error ? e->error->message : "(no error)");
			return;
		}
		ASSERT(e->error);
		ASSERT(ev->errors < 8);
		ev->error_context[ev->errors] = e->context_id;
		ev->error_object[ev->errors] = e->object_id;
		ev->error_status[ev->errors] = e->error->status;
		snprintf(ev->error_message[ev->errors], sizeof(ev->error_message[0]), "%s",
			 e->error->message ? e->error->message : "");
		ev->errors++;
		return;
	}
	case WEBNN__IPC__SERVER_MESSAGE__BODY_CONTEXT_LOST:
		if (!ev) {
			ASSERT_MSG(!c->strict, "unexpected ContextLost: %s",
				   s->context_lost->message);
			return;
		}
		ev->lost++;
		ev->lost_context = s->context_lost->context_id;
		snprintf(ev->lost_message, sizeof(ev->lost_message), "%s",
			 s->context_lost->message ? s->context_lost->message : "");
		return;
	default:
		ASSERT_MSG(!c->strict, "unexpected server message %d", (int)s->body_case);
	}
}

Webnn__Ipc__ServerMessage *pt_call_ev(struct pt_conn *c, Webnn__Ipc__ClientMessage *m,
				      const int *fds, int n_fds, struct pt_events *ev)
{
	m->has_serial = true;
	m->serial = ++c->serial;
	pt_send_fds(c, m, fds, n_fds);
	for (;;) {
		Webnn__Ipc__ServerMessage *s = pt_recv(c);
		ASSERT_MSG(s, "connection closed while waiting for reply %llu",
			   (unsigned long long)m->serial);
		if (s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE)
			FAIL("unexpected Goodbye: %s", s->goodbye->reason);
		if (s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY) {
			ASSERT_EQ(s->reply->serial, m->serial);
			return s;
		}
		pt_event(c, s, ev);
		webnn__ipc__server_message__free_unpacked(s, NULL);
	}
}

Webnn__Ipc__ServerMessage *pt_call_fds(struct pt_conn *c, Webnn__Ipc__ClientMessage *m,
				       const int *fds, int n_fds)
{
	return pt_call_ev(c, m, fds, n_fds, NULL);
}

Webnn__Ipc__ServerMessage *pt_call(struct pt_conn *c, Webnn__Ipc__ClientMessage *m)
{
	return pt_call_fds(c, m, NULL, 0);
}

void pt_free(Webnn__Ipc__ServerMessage *s)
{
	webnn__ipc__server_message__free_unpacked(s, NULL);
}

void pt_expect_ok(Webnn__Ipc__ServerMessage *s)
{
	ASSERT_MSG(!s->reply->error, "request failed: %s", s->reply->error->message);
	pt_free(s);
}

void pt_expect_err(Webnn__Ipc__ServerMessage *s, int status, const char *needle)
{
	ASSERT_MSG(s->reply->error, "request succeeded, expected an error containing '%s'", needle);
	ASSERT_MSG((int)s->reply->error->status == status, "status %d (%s), expected %d",
		   (int)s->reply->error->status, s->reply->error->message, status);
	ASSERT_CONTAINS(s->reply->error->message, needle);
	pt_free(s);
}

void pt_call_ok(struct pt_conn *c, Webnn__Ipc__ClientMessage *m)
{
	pt_expect_ok(pt_call(c, m));
}

void pt_call_err(struct pt_conn *c, Webnn__Ipc__ClientMessage *m, int status, const char *needle)
{
	pt_expect_err(pt_call(c, m), status, needle);
}

void pt_expect_goodbye(struct pt_conn *c, const char *needle)
{
	Webnn__Ipc__ServerMessage *s;
	while ((s = pt_recv(c)) && s->body_case != WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE)
		pt_free(s);
	ASSERT_MSG(s, "connection closed without a Goodbye (expected '%s')", needle);
	ASSERT_CONTAINS(s->goodbye->reason, needle);
	pt_free(s);
	ASSERT_MSG(pt_recv(c) == NULL, "the daemon kept talking after Goodbye");
}

void pt_hello_fill(Webnn__Ipc__ClientMessage *m, Webnn__Ipc__Hello *h, const char *client_name)
{
	webnn__ipc__hello__init(h);
	h->major = WNN_PROTOCOL_MAJOR;
	h->minor = WNN_PROTOCOL_MINOR;
	h->client_name = (char *)client_name;
	webnn__ipc__client_message__init(m);
	m->body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_HELLO;
	m->hello = h;
}

/* Hello, and its successful HelloReply (the caller frees it). */
static Webnn__Ipc__ServerMessage *pt_hello_reply(struct pt_conn *c, const char *client_name)
{
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__Hello h;
	pt_hello_fill(&m, &h, client_name);
	Webnn__Ipc__ServerMessage *s = pt_call(c, &m);
	ASSERT(!s->reply->error);
	ASSERT_EQ(s->reply->body_case, WEBNN__IPC__REPLY__BODY_HELLO);
	return s;
}

void pt_hello(struct pt_conn *c, const char *client_name)
{
	pt_free(pt_hello_reply(c, client_name));
}

uint64_t pt_hello_limit(struct pt_conn *c, const char *client_name, const char *key)
{
	Webnn__Ipc__ServerMessage *s = pt_hello_reply(c, client_name);
	const Webnn__Ipc__Limits *l = s->reply->hello->limits;
	for (size_t i = 0; l && i < l->n_budgets; i++)
		if (strcmp(l->budgets[i]->key, key) == 0) {
			uint64_t v = l->budgets[i]->value;
			pt_free(s);
			return v;
		}
	pt_free(s);
	FAIL("the HelloReply lists no limit %s", key);
}

Webnn__Ipc__ServerMessage *pt_create_context_reply(struct pt_conn *c, uint32_t id)
{
	Webnn__Ipc__CreateContext cc = WEBNN__IPC__CREATE_CONTEXT__INIT;
	cc.context_id = id;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONTEXT;
	m.create_context = &cc;
	return pt_call(c, &m);
}

void pt_create_context(struct pt_conn *c, uint32_t id)
{
	Webnn__Ipc__ServerMessage *s = pt_create_context_reply(c, id);
	ASSERT_MSG(!s->reply->error, "createContext: %s", s->reply->error->message);
	pt_free(s);
}

void pt_tensor_msg(struct pt_tensor_msg *t, uint32_t ctx, uint32_t id, int type,
		   const uint32_t *shape, size_t rank, bool readable, bool writable)
{
	webnn__ipc__client_message__init(&t->m);
	webnn__ipc__create_tensor__init(&t->ct);
	webnn__ipc__operand_descriptor__init(&t->d);
	memcpy(t->shape, shape, sizeof(uint32_t) * rank);
	t->d.data_type = (Webnn__Ipc__DataType)type;
	t->d.n_shape = rank;
	t->d.shape = t->shape;
	t->ct.context_id = ctx;
	t->ct.tensor_id = id;
	t->ct.descriptor = &t->d;
	t->ct.has_readable = t->ct.has_writable = true;
	t->ct.readable = readable;
	t->ct.writable = writable;
	t->m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_TENSOR;
	t->m.create_tensor = &t->ct;
}

void pt_create_tensor(struct pt_conn *c, uint32_t ctx, uint32_t id, const uint32_t *shape,
		      size_t rank)
{
	struct pt_tensor_msg t;
	pt_tensor_msg(&t, ctx, id, WEBNN__IPC__DATA_TYPE__FLOAT32, shape, rank, true, true);
	pt_call_ok(c, &t.m);
}

void pt_write_inline(struct pt_conn *c, uint32_t id, const void *bytes, size_t len)
{
	Webnn__Ipc__Data data = WEBNN__IPC__DATA__INIT;
	data.where_case = WEBNN__IPC__DATA__WHERE_INLINE;
	data.inline_.data = (uint8_t *)bytes;
	data.inline_.len = len;
	Webnn__Ipc__WriteTensor w = WEBNN__IPC__WRITE_TENSOR__INIT;
	w.tensor_id = id;
	w.data = &data;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_WRITE_TENSOR;
	m.write_tensor = &w;
	pt_send(c, &m);
}

void pt_destroy_tensor(struct pt_conn *c, uint32_t id)
{
	Webnn__Ipc__DestroyTensor d = WEBNN__IPC__DESTROY_TENSOR__INIT;
	d.tensor_id = id;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_TENSOR;
	m.destroy_tensor = &d;
	pt_send(c, &m);
}

void pt_unregister_shm(struct pt_conn *c, uint32_t slot)
{
	Webnn__Ipc__UnregisterShm u = WEBNN__IPC__UNREGISTER_SHM__INIT;
	u.slot_id = slot;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_UNREGISTER_SHM;
	m.unregister_shm = &u;
	pt_send(c, &m);
}

Webnn__Ipc__ServerMessage *pt_read_reply_ev(struct pt_conn *c, uint32_t id, struct pt_events *ev)
{
	Webnn__Ipc__ReadTensor r = WEBNN__IPC__READ_TENSOR__INIT;
	r.tensor_id = id;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
	m.read_tensor = &r;
	return pt_call_ev(c, &m, NULL, 0, ev);
}

Webnn__Ipc__ServerMessage *pt_read_reply(struct pt_conn *c, uint32_t id)
{
	return pt_read_reply_ev(c, id, NULL);
}

void pt_read_expect(struct pt_conn *c, uint32_t id, const float *want, size_t n)
{
	Webnn__Ipc__ServerMessage *s = pt_read_reply(c, id);
	ASSERT_MSG(!s->reply->error, "readTensor: %s", s->reply->error->message);
	ASSERT_EQ(s->reply->body_case, WEBNN__IPC__REPLY__BODY_READ_TENSOR);
	ASSERT(s->reply->read_tensor->has_data);
	ASSERT_EQ(s->reply->read_tensor->data.len, n * sizeof(float));
	const float *got = (const float *)s->reply->read_tensor->data.data;
	for (size_t i = 0; i < n; i++)
		ASSERT_MSG(got[i] == want[i], "element %zu: got %g, want %g", i, got[i], want[i]);
	pt_free(s);
}

void pt_roundtrip(struct pt_conn *c, uint32_t ctx, uint32_t tensor, float seed)
{
	float v[6];
	for (int i = 0; i < 6; i++)
		v[i] = seed + (float)i * 0.5f;
	pt_create_tensor(c, ctx, tensor, (const uint32_t[]){ 2, 3 }, 2);
	pt_write_inline(c, tensor, v, sizeof(v));
	pt_read_expect(c, tensor, v, 6);
}

int pt_memfd(size_t size, unsigned seals)
{
	int fd = memfd_create("pt", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT(fd >= 0);
	ASSERT(ftruncate(fd, (off_t)size) == 0);
	if (seals)
		ASSERT(fcntl(fd, F_ADD_SEALS, seals) == 0);
	return fd;
}

Webnn__Ipc__ServerMessage *pt_register_shm(struct pt_conn *c, uint32_t slot, size_t size, int fd)
{
	Webnn__Ipc__RegisterShm rs = WEBNN__IPC__REGISTER_SHM__INIT;
	rs.slot_id = slot;
	rs.size = size;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_REGISTER_SHM;
	m.register_shm = &rs;
	return pt_call_fds(c, &m, &fd, 1);
}

void pt_flush(struct pt_conn *c, uint32_t ctx)
{
	Webnn__Ipc__Flush f = WEBNN__IPC__FLUSH__INIT;
	f.context_id = ctx;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH;
	m.flush = &f;
	pt_call_ok(c, &m);
}

/* ---- graphs, written out as the client library would send them */

void pt_operand(struct pt_graph *g, int i, Webnn__Ipc__OperandKind kind, const char *name,
		const uint32_t *shape, size_t rank)
{
	webnn__ipc__operand__init(&g->operands[i]);
	webnn__ipc__operand_descriptor__init(&g->descs[i]);
	memcpy(g->shapes[i], shape, sizeof(uint32_t) * rank);
	g->descs[i].data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	g->descs[i].n_shape = rank;
	g->descs[i].shape = g->shapes[i];
	g->operands[i].kind = kind;
	g->operands[i].descriptor = &g->descs[i];
	g->operands[i].name = (char *)name;
	g->op_ptrs[i] = &g->operands[i];
}

void pt_build_graph_msg(Webnn__Ipc__ClientMessage *m, Webnn__Ipc__BuildGraph *bg, uint32_t ctx,
			uint32_t id, Webnn__Ipc__GraphInfo *gi)
{
	webnn__ipc__build_graph__init(bg);
	bg->context_id = ctx;
	bg->graph_id = id;
	bg->graph = gi;
	webnn__ipc__client_message__init(m);
	m->body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_BUILD_GRAPH;
	m->build_graph = bg;
}

void pt_graph_init(struct pt_graph *g, uint32_t ctx, uint32_t id, size_t n_operands)
{
	memset(g, 0, sizeof(*g));
	webnn__ipc__client_message__init(&g->m);
	webnn__ipc__build_graph__init(&g->bg);
	webnn__ipc__graph_info__init(&g->gi);
	webnn__ipc__operation__init(&g->op);
	g->m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_BUILD_GRAPH;
	g->m.build_graph = &g->bg;
	g->bg.context_id = ctx;
	g->bg.graph_id = id;
	g->bg.graph = &g->gi;
	g->gi.n_operands = n_operands;
	g->gi.operands = g->op_ptrs;
	g->op_ptr = &g->op;
	g->gi.n_operations = 1;
	g->gi.operations = &g->op_ptr;
}

void pt_graph_io(struct pt_graph *g, int n_in, const char *const *in_names, const uint32_t *in_ops,
		 const char *out_name, uint32_t out_op)
{
	for (int i = 0; i < n_in; i++) {
		webnn__ipc__named_operand__init(&g->names[i]);
		g->names[i].name = (char *)in_names[i];
		g->names[i].operand = in_ops[i];
		g->in_ptrs[i] = &g->names[i];
	}
	webnn__ipc__named_operand__init(&g->names[3]);
	g->names[3].name = (char *)out_name;
	g->names[3].operand = out_op;
	g->out_ptr = &g->names[3];
	g->gi.n_inputs = (size_t)n_in;
	g->gi.inputs = g->in_ptrs;
	g->gi.n_outputs = 1;
	g->gi.outputs = &g->out_ptr;
}

void pt_add_graph(struct pt_graph *g, uint32_t ctx, uint32_t id)
{
	const uint32_t shape[] = { 2, 3 };
	pt_graph_init(g, ctx, id, 3);
	pt_operand(g, 0, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "x", shape, 2);
	pt_operand(g, 1, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "y", shape, 2);
	pt_operand(g, 2, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, NULL, shape, 2);
	webnn__ipc__elementwise_binary__init(&g->bin);
	g->bin.a = 0;
	g->bin.b = 1;
	g->bin.output = 2;
	g->op.op = wnn_ops[WNN_OP_ADD].id;
	g->op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_BINARY;
	g->op.binary = &g->bin;
	pt_graph_io(g, 2, (const char *const[]){ "x", "y" }, (const uint32_t[]){ 0, 1 }, "z", 2);
}

void pt_matmul_graph(struct pt_graph *g, uint32_t ctx, uint32_t id, uint32_t m, uint32_t k,
		     uint32_t n)
{
	pt_graph_init(g, ctx, id, 3);
	pt_operand(g, 0, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "x", (const uint32_t[]){ m, k },
		   2);
	pt_operand(g, 1, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "y", (const uint32_t[]){ k, n },
		   2);
	pt_operand(g, 2, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, NULL, (const uint32_t[]){ m, n },
		   2);
	webnn__ipc__matmul__init(&g->mm);
	g->mm.a = 0;
	g->mm.b = 1;
	g->mm.output = 2;
	g->op.op = wnn_ops[WNN_OP_MATMUL].id;
	g->op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_MATMUL;
	g->op.matmul = &g->mm;
	pt_graph_io(g, 2, (const char *const[]){ "x", "y" }, (const uint32_t[]){ 0, 1 }, "z", 2);
}

void pt_dispatch(struct pt_conn *c, uint32_t ctx, uint32_t graph, uint32_t x, uint32_t y,
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
	pt_send(c, &m);
}

void pt_add_roundtrip(struct pt_conn *c, uint32_t ctx, uint32_t base, float seed)
{
	struct pt_graph g;
	pt_add_graph(&g, ctx, base);
	Webnn__Ipc__ServerMessage *s = pt_call(c, &g.m);
	ASSERT_MSG(!s->reply->error, "build: %s", s->reply->error->message);
	ASSERT_EQ(s->reply->body_case, WEBNN__IPC__REPLY__BODY_BUILD_GRAPH);
	pt_free(s);
	const uint32_t shape[] = { 2, 3 };
	float x[6], y[6], z[6];
	for (int i = 0; i < 6; i++) {
		x[i] = seed + (float)i;
		y[i] = (float)(i * i) - seed;
		z[i] = x[i] + y[i];
	}
	pt_create_tensor(c, ctx, base + 1, shape, 2);
	pt_create_tensor(c, ctx, base + 2, shape, 2);
	pt_create_tensor(c, ctx, base + 3, shape, 2);
	pt_write_inline(c, base + 1, x, sizeof(x));
	pt_write_inline(c, base + 2, y, sizeof(y));
	pt_dispatch(c, ctx, base, base + 1, base + 2, base + 3);
	pt_read_expect(c, base + 3, z, 6);
}

/* ---- chains of matmuls (pt_matmul_chain) */

static void chain_operand(struct pt_matmul_chain *g, size_t i, Webnn__Ipc__OperandKind kind,
		       const char *name)
{
	webnn__ipc__operand__init(&g->operands[i]);
	g->operands[i].descriptor = &g->desc;
	g->operands[i].kind = kind;
	g->operands[i].name = (char *)name;
	g->operand_ptrs[i] = &g->operands[i];
}

static Webnn__Ipc__Operation *chain_op(struct pt_matmul_chain *g, size_t i, enum wnn_op op)
{
	webnn__ipc__operation__init(&g->ops[i]);
	g->ops[i].op = wnn_ops[op].id;
	g->op_ptrs[i] = &g->ops[i];
	return &g->ops[i];
}

static void chain_io(struct pt_matmul_chain *g, int n_in, const char *const *in_names, const uint32_t *ins,
		  uint32_t out)
{
	for (int i = 0; i < n_in; i++) {
		webnn__ipc__named_operand__init(&g->names[i]);
		g->names[i].name = (char *)in_names[i];
		g->names[i].operand = ins[i];
		g->in_ptrs[i] = &g->names[i];
	}
	webnn__ipc__named_operand__init(&g->names[2]);
	g->names[2].name = "z";
	g->names[2].operand = out;
	g->out_ptr = &g->names[2];
	g->gi.n_inputs = (size_t)n_in;
	g->gi.inputs = g->in_ptrs;
	g->gi.n_outputs = 1;
	g->gi.outputs = &g->out_ptr;
}

void pt_matmul_chain(struct pt_matmul_chain *g, uint32_t ctx, uint32_t id, uint32_t m, uint32_t n_ops,
		     bool folded)
{
	memset(g, 0, sizeof(*g));
	size_t n_operands = (size_t)n_ops + (folded ? 4 : 2);
	size_t n_operations = (size_t)n_ops + (folded ? 2 : 0);
	g->operands = calloc(n_operands, sizeof(*g->operands));
	g->operand_ptrs = calloc(n_operands, sizeof(*g->operand_ptrs));
	g->ops = calloc(n_operations, sizeof(*g->ops));
	g->op_ptrs = calloc(n_operations, sizeof(*g->op_ptrs));
	g->mm = calloc(n_ops, sizeof(*g->mm));
	g->labels = calloc(n_ops, sizeof(*g->labels));
	ASSERT(g->operands && g->operand_ptrs && g->ops && g->op_ptrs && g->mm && g->labels);
	webnn__ipc__graph_info__init(&g->gi);
	webnn__ipc__operand_descriptor__init(&g->desc);
	g->shape[0] = g->shape[1] = m;
	g->desc.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	g->desc.n_shape = 2;
	g->desc.shape = g->shape;
	/* operand 0: x (dispatched) or the scalar 0.0 (folded); 1: y; 2..n_ops+1: products */
	size_t op = 0;
	if (folded) {
		webnn__ipc__operand_descriptor__init(&g->scalar_desc);
		g->scalar_desc.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
		webnn__ipc__number__init(&g->zero);
		g->zero.value_case = WEBNN__IPC__NUMBER__VALUE_F;
		chain_operand(g, 0, WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT, NULL);
		g->operands[0].descriptor = &g->scalar_desc;
		g->operands[0].scalar = &g->zero;
		chain_operand(g, 1, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, NULL);
		webnn__ipc__expand__init(&g->expand);
		g->expand.input = 0;
		g->expand.output = 1;
		g->expand.n_new_shape = 2;
		g->expand.new_shape = g->shape;
		Webnn__Ipc__Operation *o = chain_op(g, op++, WNN_OP_EXPAND);
		o->attrs_case = WEBNN__IPC__OPERATION__ATTRS_EXPAND;
		o->expand = &g->expand;
	} else {
		chain_operand(g, 0, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "x");
		chain_operand(g, 1, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "y");
	}
	for (uint32_t i = 0; i < n_ops; i++) {
		chain_operand(g, i + 2, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, NULL);
		webnn__ipc__matmul__init(&g->mm[i]);
		g->mm[i].a = i > 0 ? i + 1 : folded ? 1 : 0;
		g->mm[i].b = 1;
		g->mm[i].output = i + 2;
		snprintf(g->labels[i], sizeof(g->labels[i]), "mm%u", i);
		Webnn__Ipc__Operation *o = chain_op(g, op++, WNN_OP_MATMUL);
		o->label = g->labels[i];
		o->attrs_case = WEBNN__IPC__OPERATION__ATTRS_MATMUL;
		o->matmul = &g->mm[i];
	}
	if (folded) {
		uint32_t x = n_ops + 2, z = n_ops + 3;
		chain_operand(g, x, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "x");
		chain_operand(g, z, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, NULL);
		webnn__ipc__elementwise_binary__init(&g->add);
		g->add.a = n_ops + 1;
		g->add.b = x;
		g->add.output = z;
		Webnn__Ipc__Operation *o = chain_op(g, op++, WNN_OP_ADD);
		o->attrs_case = WEBNN__IPC__OPERATION__ATTRS_BINARY;
		o->binary = &g->add;
		chain_io(g, 1, (const char *const[]){ "x" }, (const uint32_t[]){ x }, z);
	} else {
		chain_io(g, 2, (const char *const[]){ "x", "y" }, (const uint32_t[]){ 0, 1 }, n_ops + 1);
	}
	g->gi.n_operands = n_operands;
	g->gi.operands = g->operand_ptrs;
	g->gi.n_operations = n_operations;
	g->gi.operations = g->op_ptrs;
	pt_build_graph_msg(&g->m, &g->bg, ctx, id, &g->gi);
}

void pt_matmul_chain_free(struct pt_matmul_chain *g)
{
	free(g->operands);
	free(g->operand_ptrs);
	free(g->ops);
	free(g->op_ptrs);
	free(g->mm);
	free(g->labels);
}

void pt_destroy_context(struct pt_conn *c, uint32_t ctx)
{
	Webnn__Ipc__DestroyContext dc = WEBNN__IPC__DESTROY_CONTEXT__INIT;
	dc.context_id = ctx;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONTEXT;
	m.destroy_context = &dc;
	pt_send(c, &m);
}
