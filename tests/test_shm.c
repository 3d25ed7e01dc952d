/* Data in shared memory is read on the thread pool: a command holds its slot, constants are
 * whole before a graph of their context compiles, and the daemon's copies are private. */
#include "tests/ptclient.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

enum { SLOT = 10, CTX = 1 };

static int shm_slot(struct pt_conn *c, uint32_t slot, size_t size, float **map)
{
	int fd = memfd_create("test_shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT(fd >= 0);
	ASSERT(ftruncate(fd, (off_t)size) == 0);
	ASSERT(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
	*map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT(*map != MAP_FAILED);
	Webnn__Ipc__RegisterShm rs = WEBNN__IPC__REGISTER_SHM__INIT;
	rs.slot_id = slot;
	rs.size = size;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_REGISTER_SHM;
	m.register_shm = &rs;
	Webnn__Ipc__ServerMessage *s = pt_call_fds(c, &m, &fd, 1);
	ASSERT_MSG(!s->reply->error, "registerShm: %s", s->reply->error->message);
	pt_free(s);
	close(fd);
	return 0;
}

/* Sends m with the next serial without waiting; returns the serial. */
static uint64_t send_serial(struct pt_conn *c, Webnn__Ipc__ClientMessage *m)
{
	m->has_serial = true;
	m->serial = ++c->serial;
	pt_send(c, m);
	return m->serial;
}

static Webnn__Ipc__ServerMessage *reply_to(struct pt_conn *c, uint64_t serial)
{
	Webnn__Ipc__ServerMessage *s = pt_recv(c);
	ASSERT_MSG(s, "connection closed while waiting for reply %llu", (unsigned long long)serial);
	ASSERT_MSG(s->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY, "message %d instead of "
		   "reply %llu", (int)s->body_case, (unsigned long long)serial);
	ASSERT_EQ(s->reply->serial, serial);
	return s;
}

static void expect_ok(struct pt_conn *c, uint64_t serial)
{
	Webnn__Ipc__ServerMessage *s = reply_to(c, serial);
	ASSERT_MSG(!s->reply->error, "reply %llu: %s", (unsigned long long)serial,
		   s->reply->error->message);
	pt_free(s);
}

static const uint32_t shape23[] = { 2, 3 };

static void desc23(Webnn__Ipc__OperandDescriptor *d)
{
	webnn__ipc__operand_descriptor__init(d);
	d->data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	d->n_shape = 2;
	d->shape = (uint32_t *)shape23;
}

/* z = x + (k + k), where k (operand 1) is a constant or constant tensor: k + k folds at
 * compile time, so the constant's bytes must be there when the compile runs. */
struct fold_graph {
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__BuildGraph bg;
	Webnn__Ipc__GraphInfo gi;
	Webnn__Ipc__Operand ops[4], *op_ptrs[4];
	Webnn__Ipc__OperandDescriptor descs[4];
	Webnn__Ipc__Operation opn[2], *opn_ptrs[2];
	Webnn__Ipc__ElementwiseBinary bin[2];
	Webnn__Ipc__NamedOperand in, out, *in_ptr, *out_ptr;
};

static void fold_graph(struct fold_graph *g, uint32_t id, bool tensor, uint32_t k_id)
{
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < 4; i++) {
		webnn__ipc__operand__init(&g->ops[i]);
		desc23(&g->descs[i]);
		g->ops[i].descriptor = &g->descs[i];
		g->op_ptrs[i] = &g->ops[i];
	}
	g->ops[0].kind = WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT;
	g->ops[0].name = "x";
	if (tensor) {
		g->ops[1].kind = WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR;
		g->ops[1].has_tensor_id = true;
		g->ops[1].tensor_id = k_id;
	} else {
		g->ops[1].kind = WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT;
		g->ops[1].has_constant_id = true;
		g->ops[1].constant_id = k_id;
	}
	g->ops[2].kind = g->ops[3].kind = WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT;
	const uint32_t a[2] = { 1, 0 }, b[2] = { 1, 2 }, o[2] = { 2, 3 };
	for (int i = 0; i < 2; i++) {
		webnn__ipc__operation__init(&g->opn[i]);
		webnn__ipc__elementwise_binary__init(&g->bin[i]);
		g->bin[i].a = a[i];
		g->bin[i].b = b[i];
		g->bin[i].output = o[i];
		g->opn[i].op = wnn_ops[WNN_OP_ADD].id;
		g->opn[i].attrs_case = WEBNN__IPC__OPERATION__ATTRS_BINARY;
		g->opn[i].binary = &g->bin[i];
		g->opn_ptrs[i] = &g->opn[i];
	}
	webnn__ipc__named_operand__init(&g->in);
	webnn__ipc__named_operand__init(&g->out);
	g->in.name = "x";
	g->in.operand = 0;
	g->out.name = "z";
	g->out.operand = 3;
	g->in_ptr = &g->in;
	g->out_ptr = &g->out;
	webnn__ipc__graph_info__init(&g->gi);
	g->gi.n_operands = 4;
	g->gi.operands = g->op_ptrs;
	g->gi.n_operations = 2;
	g->gi.operations = g->opn_ptrs;
	g->gi.n_inputs = 1;
	g->gi.inputs = &g->in_ptr;
	g->gi.n_outputs = 1;
	g->gi.outputs = &g->out_ptr;
	pt_build_graph_msg(&g->m, &g->bg, CTX, id, &g->gi);
}

/* Runs graph id on x and checks z = x + 2k. */
static void run_fold_graph(struct pt_conn *c, uint32_t graph, uint32_t base, const float *k)
{
	float x[6], z[6];
	for (int i = 0; i < 6; i++) {
		x[i] = (float)(i + 1);
		z[i] = x[i] + 2 * k[i];
	}
	pt_create_tensor(c, CTX, base, shape23, 2);
	pt_create_tensor(c, CTX, base + 1, shape23, 2);
	pt_write_inline(c, base, x, sizeof(x));
	Webnn__Ipc__NamedTensor nx = WEBNN__IPC__NAMED_TENSOR__INIT, nz = nx;
	nx.name = "x";
	nx.tensor_id = base;
	nz.name = "z";
	nz.tensor_id = base + 1;
	Webnn__Ipc__NamedTensor *ins[] = { &nx }, *outs[] = { &nz };
	Webnn__Ipc__Dispatch d = WEBNN__IPC__DISPATCH__INIT;
	d.context_id = CTX;
	d.graph_id = graph;
	d.n_inputs = 1;
	d.inputs = ins;
	d.n_outputs = 1;
	d.outputs = outs;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DISPATCH;
	m.dispatch = &d;
	pt_send(c, &m);
	pt_read_expect(c, base + 1, z, 6);
}

static void shm_data(Webnn__Ipc__Data *data, Webnn__Ipc__ShmRange *r, uint32_t slot,
		     uint64_t off, uint64_t size)
{
	webnn__ipc__shm_range__init(r);
	r->slot_id = slot;
	r->offset = off;
	r->size = size;
	webnn__ipc__data__init(data);
	data->where_case = WEBNN__IPC__DATA__WHERE_SHM;
	data->shm = r;
}

/* CreateConstant and a constant tensor from shm, each followed at once (pipelined) by the slot's
 * removal and a build that folds it: the copy runs on the pool before the compile, from a slot
 * the command kept mapped, and the daemon's copy is its own (the client rewrites the slot). */
TEST(shm_constants_are_whole_before_their_graphs_compile)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	c.strict = true;
	pt_hello(&c, "test_shm");
	pt_create_context(&c, CTX);
	for (int tensor = 0; tensor < 2; tensor++) {
		float *map;
		shm_slot(&c, SLOT, 4096, &map);
		float k[6];
		for (int i = 0; i < 6; i++)
			map[64 + i] = k[i] = 100.0f * (float)(tensor + 1) + (float)i;
		Webnn__Ipc__ShmRange r;
		Webnn__Ipc__Data data;
		shm_data(&data, &r, SLOT, 256, sizeof(k));
		Webnn__Ipc__OperandDescriptor kd;
		desc23(&kd);
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		Webnn__Ipc__CreateConstant cc = WEBNN__IPC__CREATE_CONSTANT__INIT;
		struct pt_tensor_msg ct;
		uint32_t k_id = 20 + (uint32_t)tensor * 10;
		if (tensor) {
			pt_tensor_msg(&ct, CTX, k_id, WEBNN__IPC__DATA_TYPE__FLOAT32, shape23, 2,
				      false, false);
			ct.ct.has_constant = true;
			ct.ct.constant = true;
			ct.ct.data = &data;
			m = ct.m;
			m.create_tensor = &ct.ct;
		} else {
			cc.context_id = CTX;
			cc.constant_id = k_id;
			cc.descriptor = &kd;
			cc.data = &data;
			m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONSTANT;
			m.create_constant = &cc;
		}
		uint64_t s_k = send_serial(&c, &m);
		pt_unregister_shm(&c, SLOT);
		struct fold_graph g;
		fold_graph(&g, k_id + 1, tensor, k_id);
		uint64_t s_g = send_serial(&c, &g.m);
		expect_ok(&c, s_k);
		/* The reply means the daemon has its copy: the slot is the client's again. */
		for (int i = 0; i < 6; i++)
			map[64 + i] = -1.0f;
		Webnn__Ipc__ServerMessage *s = reply_to(&c, s_g);
		ASSERT_MSG(!s->reply->error, "build: %s", s->reply->error->message);
		ASSERT_EQ(s->reply->body_case, WEBNN__IPC__REPLY__BODY_BUILD_GRAPH);
		ASSERT_MSG(s->reply->build_graph->folded >= 1, "k + k was not folded (%u)",
			   (unsigned)s->reply->build_graph->folded);
		pt_free(s);
		run_fold_graph(&c, k_id + 1, k_id + 2, k);
		munmap(map, 4096);
	}
	pt_close(&c);
	test_daemon_stop(&d);
}

/* A WriteTensor from shm, pipelined with the slot's removal: the command keeps the mapping. */
TEST(shm_write_keeps_its_slot_until_done)
{
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c;
	pt_connect(&c, &d);
	c.strict = true;
	pt_hello(&c, "test_shm");
	pt_create_context(&c, CTX);
	enum { N = 1 << 20 }; /* 4 MiB of float32 */
	float *map;
	shm_slot(&c, SLOT, N * sizeof(float), &map);
	for (uint32_t i = 0; i < N; i++)
		map[i] = (float)(i % 4099) * 0.25f;
	const uint32_t shape[] = { N };
	pt_create_tensor(&c, CTX, 2, shape, 1);
	Webnn__Ipc__ShmRange r;
	Webnn__Ipc__Data data;
	shm_data(&data, &r, SLOT, 0, N * sizeof(float));
	Webnn__Ipc__WriteTensor w = WEBNN__IPC__WRITE_TENSOR__INIT;
	w.tensor_id = 2;
	w.data = &data;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_WRITE_TENSOR;
	m.write_tensor = &w;
	uint64_t s_w = send_serial(&c, &m);
	pt_unregister_shm(&c, SLOT);
	expect_ok(&c, s_w);
	for (uint32_t i = 0; i < N; i++)
		map[i] = -1.0f;
	/* Read back through a new slot. */
	float *back;
	shm_slot(&c, SLOT + 1, N * sizeof(float), &back);
	Webnn__Ipc__ShmRange dst;
	webnn__ipc__shm_range__init(&dst);
	dst.slot_id = SLOT + 1;
	dst.size = N * sizeof(float);
	Webnn__Ipc__ReadTensor rd = WEBNN__IPC__READ_TENSOR__INIT;
	rd.tensor_id = 2;
	rd.dest = &dst;
	Webnn__Ipc__ClientMessage mr = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	mr.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
	mr.read_tensor = &rd;
	expect_ok(&c, send_serial(&c, &mr));
	for (uint32_t i = 0; i < N; i++)
		ASSERT_MSG(back[i] == (float)(i % 4099) * 0.25f, "element %u: %g", i, back[i]);
	munmap(map, N * sizeof(float));
	munmap(back, N * sizeof(float));
	pt_close(&c);
	test_daemon_stop(&d);
}
