/* Hostile suite, what a worker holds for a client is charged (issue 18 item 2): shared memory it maps, constants graphs copy, graph IR and plans, object headers. */
#include "tests/hostile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Each attack runs under a small budget (one connection: max_connection_bytes, the smallest of
 * the three) and checks two things: the daemon refuses with NO_MEMORY naming the budget, and
 * the worker's peak resident memory (VmHWM, read after the attack: a fresh worker's peak is
 * its baseline) grew by at most the budget plus ACCOUNTING_SLACK_KIB, the constant README's
 * "Memory budgets" documents: what a worker holds uncharged (allocator slack and per-thread
 * arenas, one request's transient buffers, a library's caches).
 */
#define ACCOUNTING_SLACK_KIB (16 * 1024)
#define SEALED (F_SEAL_SHRINK | F_SEAL_GROW)

struct accounting {
	struct hz_scene s;
	struct pt_conn c;
	long base_kib;      /* the worker's resident memory before the attack */
	long budget_kib;
	char refused[512];  /* the first refusal's message */
};

/* A scene on backend with max_connection_bytes = budget_mib, the abuser connected with
 * context 1. */
static void acc_start(struct accounting *a, const char *backend, unsigned budget_mib)
{
	char lim[64];
	snprintf(lim, sizeof(lim), "max_connection_bytes=%uM", budget_mib);
	memset(a, 0, sizeof(*a));
	hz_scene_start(&a->s, "--backend", backend, "--limit", lim, NULL);
	hz_scene_abuser(&a->s, &a->c, true);
	pt_create_context(&a->c, 1);
	a->base_kib = hz_rss_kib(a->s.abuser_worker);
	a->budget_kib = (long)budget_mib * 1024;
}

/* Whether the reply is a refusal; the first one's message is kept and must be NO_MEMORY naming
 * the connection's budget. */
static bool acc_refused(struct accounting *a, Webnn__Ipc__ServerMessage *r)
{
	ASSERT(r && r->body_case == WEBNN__IPC__SERVER_MESSAGE__BODY_REPLY);
	bool refused = r->reply->error != NULL;
	if (refused) {
		ASSERT_MSG(r->reply->error->status == WEBNN__IPC__STATUS__NO_MEMORY,
			   "refused with status %d: %s", r->reply->error->status,
			   r->reply->error->message);
		ASSERT_CONTAINS(r->reply->error->message, "max_connection_bytes");
		if (!a->refused[0])
			snprintf(a->refused, sizeof(a->refused), "%s", r->reply->error->message);
	}
	pt_free(r);
	return refused;
}

/* The attack was refused, and the worker's peak stayed within the budget plus the slack. */
static void acc_finish(struct accounting *a, const char *attack)
{
	long peak = hz_status_kib(a->s.abuser_worker, "VmHWM");
	long grew = peak - a->base_kib;
	fprintf(stderr, "%s: the worker's peak grew by %ld KiB (budget %ld KiB); refused: %s\n",
		attack, grew, a->budget_kib, a->refused);
	ASSERT_MSG(a->refused[0], "%s: never refused under a %ld MiB budget", attack,
		   a->budget_kib >> 10);
	ASSERT_MSG(grew <= a->budget_kib + ACCOUNTING_SLACK_KIB,
		   "%s: the worker grew by %ld MiB under a %ld MiB budget (slack %d MiB)", attack,
		   grew >> 10, a->budget_kib >> 10, ACCOUNTING_SLACK_KIB >> 10);
	pt_close(&a->c);
	hz_scene_finish(&a->s);
}

/* Flushes context 1: every command before succeeded (no ErrorEvent). */
static void acc_flush(struct accounting *a)
{
	Webnn__Ipc__Flush f = WEBNN__IPC__FLUSH__INIT;
	f.context_id = 1;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_FLUSH;
	m.flush = &f;
	struct pt_events ev = { 0 };
	pt_expect_ok(pt_call_ev(&a->c, &m, NULL, 0, &ev));
	ASSERT_MSG(ev.errors == 0, "a command failed: %s", ev.error_message[0]);
}

/* A sealed memfd of size bytes registered as slot, the client's fd closed: from then on only
 * the worker holds its pages. */
static Webnn__Ipc__ServerMessage *acc_register(struct accounting *a, uint32_t slot, size_t size)
{
	int fd = pt_memfd(size, SEALED);
	Webnn__Ipc__ServerMessage *r = pt_register_shm(&a->c, slot, size, fd);
	close(fd);
	return r;
}

/* A float32 tensor of n elements whose storage is all of slot. */
static Webnn__Ipc__ServerMessage *acc_storage_tensor(struct accounting *a, uint32_t id,
						     uint32_t slot, uint32_t n)
{
	struct pt_tensor_msg t;
	pt_tensor_msg(&t, 1, id, WEBNN__IPC__DATA_TYPE__FLOAT32, (const uint32_t[]){ n }, 1, true,
		      true);
	Webnn__Ipc__ShmRange r = WEBNN__IPC__SHM_RANGE__INIT;
	r.slot_id = slot;
	r.size = (uint64_t)n * 4;
	t.ct.storage = &r;
	return pt_call(&a->c, &t.m);
}

/* Issue 18 item 2. Abuse: register memfds, close them and let dispatches fill them (1.5 GiB
 * resident with every budget at 4 MiB; bounded only by 4 GiB x 64 connections per uid). Each
 * slot is charged its sealed size when it is registered: refused past the budget, and the
 * worker holds no more than the budget. */
TEST(hostile_shm_storage_charged)
{
	struct accounting a;
	acc_start(&a, "reference", 32);
	enum { N = 1 << 20, SLOTS = 24 }; /* 4 MiB each, 96 MiB in all */
	struct pt_graph g;
	pt_graph_init(&g, 1, 2, 3);
	const uint32_t shape[] = { N };
	pt_operand(&g, 0, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "x", shape, 1);
	pt_operand(&g, 1, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, "y", shape, 1);
	pt_operand(&g, 2, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, NULL, shape, 1);
	webnn__ipc__elementwise_binary__init(&g.bin);
	g.bin.a = 0, g.bin.b = 1, g.bin.output = 2;
	g.op.op = wnn_ops[WNN_OP_ADD].id;
	g.op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_BINARY;
	g.op.binary = &g.bin;
	pt_graph_io(&g, 2, (const char *const[]){ "x", "y" }, (const uint32_t[]){ 0, 1 }, "z", 2);
	pt_call_ok(&a.c, &g.m);
	pt_create_tensor(&a.c, 1, 50, shape, 1); /* x and y, in daemon memory */
	pt_create_tensor(&a.c, 1, 51, shape, 1);
	int filled = 0;
	for (uint32_t i = 0; i < SLOTS; i++) {
		uint32_t slot = 100 + i, tensor = 200 + i;
		if (acc_refused(&a, acc_register(&a, slot, (size_t)N * 4)))
			break;
		if (acc_refused(&a, acc_storage_tensor(&a, tensor, slot, N)))
			break;
		/* The worker writes every page of the slot: z = x + y. */
		pt_dispatch(&a.c, 1, 2, 50, 51, tensor);
		acc_flush(&a);
		filled++;
	}
	ASSERT_MSG(filled >= 2, "only %d slots of 4 MiB fit a 32 MiB budget", filled);
	acc_finish(&a, "shm storage");
}

/* Builds graph id: y = matmul(x [1, K], w [K, K]) with w constant `constant`. */
static Webnn__Ipc__ServerMessage *acc_weighted_graph(struct accounting *a, uint32_t id,
						     uint32_t constant, uint32_t k)
{
	struct pt_graph g;
	pt_matmul_graph(&g, 1, id, 1, k, k);
	g.operands[1].kind = WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT;
	g.operands[1].has_constant_id = true;
	g.operands[1].constant_id = constant;
	g.operands[1].name = NULL;
	pt_graph_io(&g, 1, (const char *const[]){ "x" }, (const uint32_t[]){ 0 }, "z", 2);
	return pt_call(&a->c, &g.m);
}

/* Issue 18 item 2. Abuse: one constant of 4 MiB bound by many graphs (64 graphs sharing one
 * 64 MiB constant reached 1.68 GiB: each backend plan kept its own uncharged copy). Whatever a
 * plan copies is charged to it: the builds are refused past the budget, the worker holds no
 * more than the budget. */
static void constant_shared_by_graphs(const char *backend)
{
	struct accounting a;
	acc_start(&a, backend, 48);
	enum { K = 1024, GRAPHS = 64 };
	size_t bytes = (size_t)K * K * 4;
	int fd = pt_memfd(bytes, SEALED);
	float *w = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT(w != MAP_FAILED);
	for (size_t i = 0; i < (size_t)K * K; i++)
		w[i] = (float)(i % 7) - 3.0f;
	pt_expect_ok(pt_register_shm(&a.c, 9, bytes, fd));
	Webnn__Ipc__OperandDescriptor d = WEBNN__IPC__OPERAND_DESCRIPTOR__INIT;
	d.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	d.n_shape = 2;
	d.shape = (uint32_t[]){ K, K };
	Webnn__Ipc__ShmRange r = WEBNN__IPC__SHM_RANGE__INIT;
	r.slot_id = 9;
	r.size = bytes;
	Webnn__Ipc__Data dd = WEBNN__IPC__DATA__INIT;
	dd.where_case = WEBNN__IPC__DATA__WHERE_SHM;
	dd.shm = &r;
	Webnn__Ipc__CreateConstant k = WEBNN__IPC__CREATE_CONSTANT__INIT;
	k.context_id = 1;
	k.constant_id = 10;
	k.descriptor = &d;
	k.data = &dd;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONSTANT;
	m.create_constant = &k;
	m.has_serial = true;
	pt_call_ok(&a.c, &m);
	munmap(w, bytes);
	close(fd);
	int built = 0;
	for (uint32_t i = 0; i < GRAPHS; i++) {
		if (acc_refused(&a, acc_weighted_graph(&a, 100 + i, 10, K)))
			break;
		built++;
	}
	fprintf(stderr, "%s: %d graphs over one 4 MiB constant built under 48 MiB\n", backend,
		built);
	ASSERT_MSG(built >= 1, "no graph over a 4 MiB constant fits a 48 MiB budget");
	acc_finish(&a, "constant shared by graphs");
}

TEST_TIMEOUT(hostile_constant_copies_charged_cpu, 240)
{
	constant_shared_by_graphs("cpu");
}

TEST_TIMEOUT(hostile_constant_copies_charged_opencl, 240)
{
	constant_shared_by_graphs("opencl");
}

/* A graph of n_ops relus over [1] floats in a chain, as graph id (the output is the last). */
static Webnn__Ipc__ServerMessage *acc_chain_graph(struct accounting *a, uint32_t id, uint32_t n_ops)
{
	size_t n_operands = (size_t)n_ops + 1;
	Webnn__Ipc__OperandDescriptor desc = WEBNN__IPC__OPERAND_DESCRIPTOR__INIT;
	desc.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	desc.n_shape = 1;
	desc.shape = (uint32_t[]){ 1 };
	Webnn__Ipc__Operand *operands = calloc(n_operands, sizeof(*operands));
	Webnn__Ipc__Operand **op_ptrs = calloc(n_operands, sizeof(*op_ptrs));
	Webnn__Ipc__Operation *ops = calloc(n_ops, sizeof(*ops));
	Webnn__Ipc__Operation **opp = calloc(n_ops, sizeof(*opp));
	Webnn__Ipc__ElementwiseUnary *un = calloc(n_ops, sizeof(*un));
	ASSERT(operands && op_ptrs && ops && opp && un);
	for (size_t i = 0; i < n_operands; i++) {
		webnn__ipc__operand__init(&operands[i]);
		operands[i].kind = i == 0 ? WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT
					  : WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT;
		operands[i].descriptor = &desc;
		op_ptrs[i] = &operands[i];
	}
	operands[0].name = "x";
	for (uint32_t i = 0; i < n_ops; i++) {
		webnn__ipc__operation__init(&ops[i]);
		webnn__ipc__elementwise_unary__init(&un[i]);
		un[i].input = i;
		un[i].output = i + 1;
		ops[i].op = wnn_ops[WNN_OP_RELU].id;
		ops[i].attrs_case = WEBNN__IPC__OPERATION__ATTRS_UNARY;
		ops[i].unary = &un[i];
		opp[i] = &ops[i];
	}
	Webnn__Ipc__NamedOperand nx = WEBNN__IPC__NAMED_OPERAND__INIT, ny = nx;
	nx.name = "x", nx.operand = 0;
	ny.name = "y", ny.operand = n_ops;
	Webnn__Ipc__NamedOperand *ins[] = { &nx }, *outs[] = { &ny };
	Webnn__Ipc__GraphInfo gi = WEBNN__IPC__GRAPH_INFO__INIT;
	gi.n_operands = n_operands, gi.operands = op_ptrs;
	gi.n_operations = n_ops, gi.operations = opp;
	gi.n_inputs = 1, gi.inputs = ins;
	gi.n_outputs = 1, gi.outputs = outs;
	Webnn__Ipc__BuildGraph bg;
	Webnn__Ipc__ClientMessage m;
	pt_build_graph_msg(&m, &bg, 1, id, &gi);
	Webnn__Ipc__ServerMessage *r = pt_call(&a->c, &m);
	free(operands);
	free(op_ptrs);
	free(ops);
	free(opp);
	free(un);
	return r;
}

/* Issue 18 item 2. Abuse: big graphs (a 100k-operation graph was charged 40 MB and used about
 * 170 MB: its IR and plan were charged a fraction of their size). The IR and the backend's plan
 * are charged what they hold: graphs of 20000 operations are refused past the budget and the
 * worker holds no more than the budget. */
static void big_graphs(const char *backend)
{
	struct accounting a;
	acc_start(&a, backend, 96);
	int built = 0;
	for (uint32_t i = 0; i < 16; i++) {
		if (acc_refused(&a, acc_chain_graph(&a, 100 + i, 20000)))
			break;
		built++;
	}
	fprintf(stderr, "%s: %d graphs of 20000 operations built under 96 MiB\n", backend, built);
	ASSERT_MSG(built >= 1, "no graph of 20000 operations fits a 96 MiB budget");
	acc_finish(&a, "big graphs");
}

TEST_TIMEOUT(hostile_graph_ir_plan_charged_reference, 240)
{
	big_graphs("reference");
}

TEST_TIMEOUT(hostile_graph_ir_plan_charged_cpu, 240)
{
	big_graphs("cpu");
}

/* Issue 18 item 2. Abuse: many tiny graphs (790 bytes charged, 9.2 KB used each). Refused past
 * the budget, the worker holds no more than the budget. */
TEST_TIMEOUT(hostile_tiny_graphs_charged, 240)
{
	struct accounting a;
	acc_start(&a, "cpu", 8);
	int built = 0;
	for (uint32_t i = 0; i < 4000; i++) {
		struct pt_graph g;
		pt_add_graph(&g, 1, 100 + i);
		if (acc_refused(&a, pt_call(&a.c, &g.m)))
			break;
		built++;
	}
	fprintf(stderr, "%d tiny graphs built under 8 MiB\n", built);
	ASSERT_MSG(built >= 16, "only %d tiny graphs fit an 8 MiB budget", built);
	acc_finish(&a, "tiny graphs");
}

/* Issue 18 item 2. Abuse: tensors and constants of one element (about 490 and 180 bytes of
 * headers uncharged each, up to max_objects of them). Their headers are charged: refused past
 * the budget, the worker holds no more than the budget. */
TEST_TIMEOUT(hostile_object_headers_charged, 240)
{
	struct accounting a;
	acc_start(&a, "reference", 4);
	int made = 0;
	for (uint32_t i = 0; i < 30000; i++) {
		struct pt_tensor_msg t;
		pt_tensor_msg(&t, 1, 100 + 2 * i, WEBNN__IPC__DATA_TYPE__FLOAT32,
			      (const uint32_t[]){ 1 }, 1, true, true);
		if (acc_refused(&a, pt_call(&a.c, &t.m)))
			break;
		float v = 1.0f;
		Webnn__Ipc__OperandDescriptor d = WEBNN__IPC__OPERAND_DESCRIPTOR__INIT;
		d.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
		d.n_shape = 1;
		d.shape = (uint32_t[]){ 1 };
		Webnn__Ipc__Data dd = WEBNN__IPC__DATA__INIT;
		dd.where_case = WEBNN__IPC__DATA__WHERE_INLINE;
		dd.inline_.data = (uint8_t *)&v;
		dd.inline_.len = sizeof(v);
		Webnn__Ipc__CreateConstant k = WEBNN__IPC__CREATE_CONSTANT__INIT;
		k.context_id = 1;
		k.constant_id = 101 + 2 * i;
		k.descriptor = &d;
		k.data = &dd;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONSTANT;
		m.create_constant = &k;
		m.has_serial = true;
		m.serial = 1;
		if (acc_refused(&a, pt_call(&a.c, &m)))
			break;
		made++;
	}
	fprintf(stderr, "%d tensors and constants of one element made under 4 MiB\n", made);
	ASSERT_MSG(made >= 16, "only %d one-element tensors fit a 4 MiB budget", made);
	acc_finish(&a, "object headers");
}

/* Issue 18 item 2. Abuse: many small graphs that each make a library object (a oneDNN matmul
 * primitive, with its JIT code, on cpu; a kernel on opencl), whose size the backend charges as
 * a measured constant (CPU_PRIMITIVE_BYTES, OCL_KERNEL_BYTES). Refused past the budget, the
 * worker holds no more than the budget: the constants are not below what they stand for. */
static void primitive_graphs(const char *backend)
{
	struct accounting a;
	acc_start(&a, backend, 16);
	int built = 0;
	for (uint32_t i = 0; i < 2000; i++) {
		struct pt_graph g;
		pt_matmul_graph(&g, 1, 100 + i, 8, 64, 64 + (i % 16)); /* not all the same kernel */
		if (acc_refused(&a, pt_call(&a.c, &g.m)))
			break;
		built++;
	}
	fprintf(stderr, "%s: %d matmul graphs built under 16 MiB\n", backend, built);
	ASSERT_MSG(built >= 16, "only %d small matmul graphs fit a 16 MiB budget", built);
	acc_finish(&a, "library objects");
}

TEST_TIMEOUT(hostile_primitive_graphs_charged_cpu, 240)
{
	primitive_graphs("cpu");
}

TEST_TIMEOUT(hostile_primitive_graphs_charged_opencl, 240)
{
	primitive_graphs("opencl");
}

static int oom_score_adj(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
	FILE *f = fopen(path, "r");
	ASSERT_MSG(f, "%s: %s", path, strerror(errno));
	int v = 0;
	ASSERT(fscanf(f, "%d", &v) == 1);
	fclose(f);
	return v;
}

/* Issue 18 item 2. Should memory run out anyway, the kernel's OOM killer must take one user's
 * worker, not the front door that serves everyone: workers raise their oom_score_adj. */
TEST(hostile_oom_killer_prefers_workers)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	int worker = oom_score_adj(s.abuser_worker), door = oom_score_adj(s.d.pid);
	ASSERT_MSG(worker >= 500 && worker >= door,
		   "oom_score_adj: the worker's %d, the front door's %d", worker, door);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* ---- constants shared by content (daemon/worker/weights.h) */

enum { SW_K = 1024, SW_N = 3072, SW_CONNS = 6 }; /* a 12 MiB constant, six connections */

static float sw_weight(uint32_t k, uint32_t n)
{
	return (float)((k * 31u + n) % 17u) * 0.25f;
}

/* CreateConstant `id` in context 1 of c: the [rows, N] weights (one element changed when
 * `odd`), inline (small ones) or through a memfd unregistered once the worker has the bytes. */
static void sw_constant(struct pt_conn *c, uint32_t id, uint32_t rows, bool shm, bool odd)
{
	size_t bytes = (size_t)rows * SW_N * 4;
	int fd = -1;
	float *w;
	if (shm) {
		fd = pt_memfd(bytes, SEALED);
		w = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ASSERT(w != MAP_FAILED);
	} else {
		w = malloc(bytes);
		ASSERT(w);
	}
	for (uint32_t k = 0; k < rows; k++)
		for (uint32_t n = 0; n < SW_N; n++)
			w[(size_t)k * SW_N + n] = sw_weight(k, n);
	if (odd)
		w[SW_N + 5] += 1.0f;
	Webnn__Ipc__OperandDescriptor d = WEBNN__IPC__OPERAND_DESCRIPTOR__INIT;
	d.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	d.n_shape = 2;
	d.shape = (uint32_t[]){ rows, SW_N };
	Webnn__Ipc__ShmRange r = WEBNN__IPC__SHM_RANGE__INIT;
	r.slot_id = 9;
	r.size = bytes;
	Webnn__Ipc__Data dd = WEBNN__IPC__DATA__INIT;
	if (shm) {
		pt_expect_ok(pt_register_shm(c, 9, bytes, fd));
		dd.where_case = WEBNN__IPC__DATA__WHERE_SHM;
		dd.shm = &r;
	} else {
		dd.where_case = WEBNN__IPC__DATA__WHERE_INLINE;
		dd.inline_.data = (uint8_t *)w;
		dd.inline_.len = bytes;
	}
	Webnn__Ipc__CreateConstant k = WEBNN__IPC__CREATE_CONSTANT__INIT;
	k.context_id = 1;
	k.constant_id = id;
	k.descriptor = &d;
	k.data = &dd;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONSTANT;
	m.create_constant = &k;
	m.has_serial = true;
	pt_call_ok(c, &m);
	if (shm) {
		pt_unregister_shm(c, 9);
		munmap(w, bytes);
		close(fd);
	} else {
		free(w);
	}
}

/* Graph `id` of context 1: y = matmul(x [1, rows], constant) run on x = ones, y checked
 * against the column sums (exact: multiples of 0.25 below 2^12). */
static void sw_run(struct pt_conn *c, uint32_t id, uint32_t constant, uint32_t rows, bool odd)
{
	struct pt_graph g;
	pt_matmul_graph(&g, 1, id, 1, rows, SW_N);
	g.operands[1].kind = WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT;
	g.operands[1].has_constant_id = true;
	g.operands[1].constant_id = constant;
	g.operands[1].name = NULL;
	pt_graph_io(&g, 1, (const char *const[]){ "x" }, (const uint32_t[]){ 0 }, "z", 2);
	pt_call_ok(c, &g.m);
	uint32_t xs[] = { 1, rows }, ys[] = { 1, SW_N };
	pt_create_tensor(c, 1, id + 1, xs, 2);
	pt_create_tensor(c, 1, id + 2, ys, 2);
	static float ones[SW_K], want[SW_N];
	for (uint32_t k = 0; k < SW_K; k++)
		ones[k] = 1.0f;
	for (uint32_t n = 0; n < SW_N; n++) {
		want[n] = 0;
		for (uint32_t k = 0; k < rows; k++)
			want[n] += sw_weight(k, n);
	}
	if (odd)
		want[5] += 1.0f;
	pt_write_inline(c, id + 1, ones, rows * sizeof(float));
	Webnn__Ipc__NamedTensor nx = WEBNN__IPC__NAMED_TENSOR__INIT, nz = nx;
	nx.name = "x";
	nx.tensor_id = id + 1;
	nz.name = "z";
	nz.tensor_id = id + 2;
	Webnn__Ipc__NamedTensor *ins[] = { &nx }, *outs[] = { &nz };
	Webnn__Ipc__Dispatch dp = WEBNN__IPC__DISPATCH__INIT;
	dp.context_id = 1;
	dp.graph_id = id;
	dp.n_inputs = 1;
	dp.inputs = ins;
	dp.n_outputs = 1;
	dp.outputs = outs;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DISPATCH;
	m.dispatch = &dp;
	pt_send(c, &m);
	pt_read_expect(c, id + 2, want, SW_N);
}

/* The "weights" test hook's figures: the uid's charged bytes, the shared copies and bytes, and
 * of those the bytes given back once reordered (daemon/worker/weights.h). */
static void sw_stats_given(const struct test_daemon *d, uint64_t *uid, uint64_t *copies,
			   uint64_t *bytes, uint64_t *given)
{
	struct pt_conn h;
	char got[300];
	hz_connect_as(&h, d, HZ_NOBODY);
	hz_hook(&h, "weights", got, sizeof(got));
	pt_close(&h);
	unsigned long long u, c, b, g;
	ASSERT_MSG(sscanf(got, "wnn-test weights: uid %llu bytes charged, %llu shared copies of "
			  "%llu bytes, %llu given back", &u, &c, &b, &g) == 4, "%s", got);
	fprintf(stderr, "  %s\n", got);
	*uid = u, *copies = c, *bytes = b, *given = g;
}

static void sw_stats(const struct test_daemon *d, uint64_t *uid, uint64_t *copies,
		     uint64_t *bytes)
{
	uint64_t given;
	sw_stats_given(d, uid, copies, bytes, &given);
}

/* Issue 20 item 6 / issue 18 item 2. Six connections of one uid load the same 12 MiB of
 * weights and run a graph over them: the worker holds one copy (resident memory grows by ~12 MiB, not 72),
 * the uid is charged for it once (all of it fits a 48 MiB uid budget, where the copies would
 * need 72), every connection's quota still sees its constant, the outputs are right. A
 * constant differing in one element gets its own copy. When the last holder leaves, the copy
 * and its charge go. */
static void constants_shared_by_content(const char *backend, const char *uid_limit,
					int resident_copies, int charged_copies, bool gives_back)
{
	hz_need_testhooks();
	const long slack_kib = 16 * 1024;
	struct test_daemon d;
	hz_start_binary(&d, "bin/webnnd-testhooks", "--backend", backend, "--limit", uid_limit,
			"--limit", "max_connection_bytes=128M", NULL);
	ASSERT(chmod(d.dir, 0755) == 0);
	struct pt_conn c[SW_CONNS];
	const long one_kib = (long)SW_K * SW_N * 4 / 1024;
	hz_connect_as(&c[0], &d, HZ_NOBODY);
	pt_hello(&c[0], "shared weights 0");
	pid_t w = hz_worker_pid(&d, HZ_NOBODY);
	long base = hz_rss_kib(w);
	for (int i = 0; i < SW_CONNS; i++) {
		if (i)
			hz_connect_as(&c[i], &d, HZ_NOBODY);
		if (i)
			pt_hello(&c[i], "shared weights");
		pt_create_context(&c[i], 1);
		sw_constant(&c[i], 10, SW_K, true, false);
		sw_run(&c[i], 100, 10, SW_K, false);
	}
	uint64_t uid, copies, bytes, given;
	sw_stats_given(&d, &uid, &copies, &bytes, &given);
	long grew = hz_rss_kib(w) - base;
	fprintf(stderr, "%s: %d connections over one %ld KiB constant: the worker grew by %ld KiB, "
		"the uid is charged %" PRIu64 " KiB\n", backend, SW_CONNS, one_kib, grew, uid >> 10);
	ASSERT_EQ(copies, 1);
	ASSERT_EQ(bytes, (uint64_t)one_kib * 1024);
	/* a backend that reorders the constant gives its bytes back (each later connection's
	 * identical bytes compared with them written back: one copy still) */
	ASSERT_EQ(given, gives_back ? bytes : 0);
	ASSERT_MSG(uid < (uint64_t)one_kib * 1024 * (charged_copies + 1), "the uid is charged %"
		   PRIu64 " KiB for one %ld KiB constant", uid >> 10, one_kib);
	ASSERT_MSG(uid >= (uint64_t)one_kib * 1024 * charged_copies, "the uid is charged %" PRIu64
		   " KiB: less than the %d copies it should count", uid >> 10, charged_copies);
	ASSERT_MSG(grew < resident_copies * one_kib + slack_kib, "the worker grew by %ld KiB for "
		   "one %ld KiB constant (%d expected copies; %d connections)", grew, one_kib,
		   resident_copies, SW_CONNS);
	/* The same bytes again in the same connection, and a copy with one element changed. */
	sw_constant(&c[0], 11, SW_K, true, false);
	sw_run(&c[0], 200, 11, SW_K, false);
	sw_constant(&c[0], 12, SW_K, true, true);
	sw_run(&c[0], 300, 12, SW_K, true);
	sw_stats(&d, &uid, &copies, &bytes);
	ASSERT_EQ(copies, 2);
	ASSERT_EQ(bytes, (uint64_t)one_kib * 1024 * 2);
	/* Inline bytes (interned as the request is read) in two connections: one more copy. */
	const uint64_t small = 4 * SW_N * 4;
	for (int i = 0; i < 2; i++) {
		sw_constant(&c[i], 20, 4, false, false);
		sw_run(&c[i], 400, 20, 4, false);
	}
	sw_stats(&d, &uid, &copies, &bytes);
	ASSERT_EQ(copies, 3);
	ASSERT_EQ(bytes, (uint64_t)one_kib * 1024 * 2 + small);
	for (int i = 0; i < SW_CONNS; i++)
		pt_close(&c[i]);
	/* The last holder gone, so are the copies and their charge (the probe's own session holds
	 * only its header). */
	for (int tries = 0; tries < 50; tries++) {
		sw_stats(&d, &uid, &copies, &bytes);
		if (copies == 0 && uid < 64 * 1024)
			break;
		usleep(100 * 1000);
	}
	ASSERT_EQ(copies, 0);
	ASSERT_MSG(uid < 64 * 1024, "the uid is still charged %" PRIu64 " bytes", uid);
	test_daemon_stop(&d);
}

TEST_TIMEOUT(hostile_constants_shared_by_content, 120)
{
	/* the reference backend reads constants in place */
	constants_shared_by_content("reference", "max_uid_bytes=48M", 1, 1, false);
}

/* The same on cpu, whose plans reorder the weights for oneDNN: the six plans share one
 * reordered copy, and the constant's own bytes are given back once it is reordered (each
 * later connection's identical bytes are compared against them written back, then given
 * back again by its compile): one copy resident in all, not twelve. Each plan still counts
 * the reordered copy in its own charge (over the truth, never under: six reorders, the
 * constant not at all while its pages are given back). */
TEST_TIMEOUT(hostile_constants_shared_by_content_cpu, 120)
{
	constants_shared_by_content("cpu", "max_uid_bytes=128M", 1, SW_CONNS, true);
}

/* Bytes given back stay right when they are needed again (daemon/worker/weights.h): a 12 MiB
 * constant reordered by a cpu plan is given back (its charge with it); destroying that graph
 * while the constant is still held writes the bytes back (the reordered copy standing in for
 * them had only the plan's charge) and charges them again; a second graph built on the same
 * constant computes from the bytes written back (exact column sums) and gives them back
 * again. Closing the connection frees everything and its charge. */
TEST_TIMEOUT(hostile_constant_given_back_then_rebuilt_cpu, 120)
{
	hz_need_testhooks();
	struct test_daemon d;
	hz_start_binary(&d, "bin/webnnd-testhooks", "--backend", "cpu", NULL);
	ASSERT(chmod(d.dir, 0755) == 0);
	struct pt_conn c;
	hz_connect_as(&c, &d, HZ_NOBODY);
	pt_hello(&c, "given back");
	pt_create_context(&c, 1);
	const uint64_t bytes = (uint64_t)SW_K * SW_N * 4;
	uint64_t uid, copies, held, given;
	sw_constant(&c, 10, SW_K, true, false);
	sw_run(&c, 100, 10, SW_K, false);
	sw_stats_given(&d, &uid, &copies, &held, &given);
	ASSERT_EQ(copies, 1);
	ASSERT_EQ(given, bytes);
	uint64_t uid_given = uid;
	Webnn__Ipc__DestroyGraph dg = WEBNN__IPC__DESTROY_GRAPH__INIT;
	dg.graph_id = 100;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_GRAPH;
	m.destroy_graph = &dg;
	pt_send(&c, &m);
	for (int tries = 0; tries < 100; tries++) {
		sw_stats_given(&d, &uid, &copies, &held, &given);
		if (given == 0)
			break;
		usleep(50 * 1000);
	}
	ASSERT_MSG(given == 0, "the constant's bytes were not written back when its graph went");
	ASSERT_EQ(copies, 1);
	/* the plan's reordered copy gone, the constant's bytes charged again */
	ASSERT_MSG(uid + bytes / 2 > uid_given && uid >= bytes, "uid charged %" PRIu64
		   " bytes (%" PRIu64 " with the plan)", uid, uid_given);
	sw_run(&c, 200, 10, SW_K, false);
	sw_stats_given(&d, &uid, &copies, &held, &given);
	ASSERT_EQ(copies, 1);
	ASSERT_EQ(given, bytes);
	pt_close(&c);
	for (int tries = 0; tries < 50; tries++) {
		sw_stats_given(&d, &uid, &copies, &held, &given);
		if (copies == 0 && uid < 64 * 1024)
			break;
		usleep(100 * 1000);
	}
	ASSERT_EQ(copies, 0);
	ASSERT_EQ(given, 0);
	ASSERT_MSG(uid < 64 * 1024, "the uid is still charged %" PRIu64 " bytes", uid);
	test_daemon_stop(&d);
}
