/* Graph validation scales with the client's counts: 100k named inputs and outputs, and 15 MiB of
 * long names, validate (and build in the daemon) without pairwise scans. */
#include "tests/ptclient.h"

#include <time.h>

/* n inputs x<i> -> identity -> n outputs y<i>: 2n operands, n operations, 2n names; every name
 * starts with the same `prefix` bytes (so comparing two costs the prefix). */
struct wide_graph {
	Webnn__Ipc__GraphInfo gi;
	Webnn__Ipc__Operand *operands, **op_ptrs;
	Webnn__Ipc__OperandDescriptor desc;
	Webnn__Ipc__Operation *ops, **opn_ptrs;
	Webnn__Ipc__ElementwiseUnary *un;
	Webnn__Ipc__NamedOperand *names, **in_ptrs, **out_ptrs;
	char *text;
	struct wnn_desc *descs;
};

static const uint32_t one[] = { 1 };

static void wide_graph(struct wide_graph *w, size_t n, size_t prefix)
{
	memset(w, 0, sizeof(*w));
	size_t name_len = prefix + 24;
	w->operands = calloc(2 * n, sizeof(*w->operands));
	w->op_ptrs = calloc(2 * n, sizeof(*w->op_ptrs));
	w->ops = calloc(n, sizeof(*w->ops));
	w->opn_ptrs = calloc(n, sizeof(*w->opn_ptrs));
	w->un = calloc(n, sizeof(*w->un));
	w->names = calloc(2 * n, sizeof(*w->names));
	w->in_ptrs = calloc(n, sizeof(*w->in_ptrs));
	w->out_ptrs = calloc(n, sizeof(*w->out_ptrs));
	w->text = calloc(2 * n, name_len);
	w->descs = calloc(2 * n, sizeof(*w->descs));
	ASSERT(w->operands && w->op_ptrs && w->ops && w->opn_ptrs && w->un && w->names &&
	       w->in_ptrs && w->out_ptrs && w->text && w->descs);
	webnn__ipc__operand_descriptor__init(&w->desc);
	w->desc.data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	w->desc.n_shape = 1;
	w->desc.shape = (uint32_t *)one;
	for (size_t i = 0; i < 2 * n; i++) {
		char *t = w->text + i * name_len;
		memset(t, 'p', prefix);
		snprintf(t + prefix, 24, "%c%zu", i < n ? 'x' : 'y', i % n);
		webnn__ipc__operand__init(&w->operands[i]);
		w->operands[i].descriptor = &w->desc;
		w->operands[i].kind = i < n ? WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT
					    : WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT;
		w->op_ptrs[i] = &w->operands[i];
		webnn__ipc__named_operand__init(&w->names[i]);
		w->names[i].name = t;
		w->names[i].operand = (uint32_t)i;
		if (i < n)
			w->in_ptrs[i] = &w->names[i];
		else
			w->out_ptrs[i - n] = &w->names[i];
	}
	for (size_t i = 0; i < n; i++) {
		webnn__ipc__elementwise_unary__init(&w->un[i]);
		w->un[i].input = (uint32_t)i;
		w->un[i].output = (uint32_t)(n + i);
		webnn__ipc__operation__init(&w->ops[i]);
		w->ops[i].op = wnn_ops[WNN_OP_IDENTITY].id;
		w->ops[i].attrs_case = WEBNN__IPC__OPERATION__ATTRS_UNARY;
		w->ops[i].unary = &w->un[i];
		w->opn_ptrs[i] = &w->ops[i];
	}
	webnn__ipc__graph_info__init(&w->gi);
	w->gi.n_operands = 2 * n;
	w->gi.operands = w->op_ptrs;
	w->gi.n_operations = n;
	w->gi.operations = w->opn_ptrs;
	w->gi.n_inputs = n;
	w->gi.inputs = w->in_ptrs;
	w->gi.n_outputs = n;
	w->gi.outputs = w->out_ptrs;
}

static void wide_graph_free(struct wide_graph *w)
{
	free(w->operands);
	free(w->op_ptrs);
	free(w->ops);
	free(w->opn_ptrs);
	free(w->un);
	free(w->names);
	free(w->in_ptrs);
	free(w->out_ptrs);
	free(w->text);
	free(w->descs);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Validates and returns the seconds it took. */
static double validate(struct wide_graph *w, enum webnn_status want, const char *needle)
{
	struct wnn_diag diag = { 0 };
	double t0 = now_s();
	enum webnn_status st = wnn_graph_validate(&w->gi, w->descs, &diag);
	double dt = now_s() - t0;
	ASSERT_MSG(st == want, "status %d (%s), expected %d", (int)st, diag.message, (int)want);
	if (needle)
		ASSERT_CONTAINS(diag.message, needle);
	return dt;
}

/* 49999 inputs and 49999 outputs (the most 100000 operands allow): validation was pairwise in
 * the names and in the listed operands (~10^10 comparisons); now it sorts. The bounds are
 * generous: a quadratic scan takes minutes here. */
TEST(graph_scale_100k_names_validate)
{
	enum { N = 49999 };
	static struct wide_graph w;
	wide_graph(&w, N, 8);
	double dt = validate(&w, WEBNN_STATUS_OK, NULL);
	ASSERT_MSG(dt < 2.0, "validating %d inputs and outputs took %.2f s", N, dt);
	/* Duplicates are still found, and the one reported is the first a scan in list order
	 * meets (the second "y7" at 40000, not the second "y9" at 45000). */
	char *y7 = w.names[N + 7].name, *y9 = w.names[N + 9].name;
	w.names[N + 45000].name = y9;
	w.names[N + 40000].name = y7;
	validate(&w, WEBNN_STATUS_TYPE_ERROR, "output name \"pppppppp");
	struct wnn_diag diag = { 0 };
	wnn_graph_validate(&w.gi, w.descs, &diag);
	ASSERT_CONTAINS(diag.message, "y7\" is used more than once");
	w.names[N + 45000].name = (char *)"unique-a";
	w.names[N + 40000].name = (char *)"unique-b";
	validate(&w, WEBNN_STATUS_OK, NULL);
	/* An empty name before any duplicate is reported first, as before. */
	w.names[3].name = (char *)"";
	w.names[10].name = w.names[5].name;
	validate(&w, WEBNN_STATUS_TYPE_ERROR, "input 3 has an empty name");
	w.names[3].name = w.names[2].name;
	validate(&w, WEBNN_STATUS_TYPE_ERROR, "is used more than once");
	wide_graph_free(&w);
	wide_graph(&w, N, 8);
	/* One operand listed twice, and one input operand never listed. */
	w.names[N - 1].operand = 17;
	validate(&w, WEBNN_STATUS_TYPE_ERROR, "input operand 17 is listed more than once");
	wide_graph_free(&w);
}

/* 8192 names of 1.8 KB sharing all but their last bytes: 15 MiB of names in one build. */
TEST(graph_scale_long_names_validate)
{
	enum { N = 4096 };
	static struct wide_graph w;
	wide_graph(&w, N, 1800);
	double dt = validate(&w, WEBNN_STATUS_OK, NULL);
	ASSERT_MSG(dt < 2.0, "validating %d long names took %.2f s", 2 * N, dt);
	wide_graph_free(&w);
}

/* The same 100k-name graph built by the daemon, then another connection is served. */
TEST_TIMEOUT(graph_scale_100k_names_build, 300)
{
	enum { N = 49999 };
	static struct wide_graph w;
	wide_graph(&w, N, 8);
	struct test_daemon d;
	test_daemon_start(&d, pt_reference);
	struct pt_conn c, other;
	pt_connect(&c, &d);
	pt_hello(&c, "test_graph_scale");
	pt_create_context(&c, 1);
	Webnn__Ipc__BuildGraph bg;
	Webnn__Ipc__ClientMessage m;
	pt_build_graph_msg(&m, &bg, 1, 2, &w.gi);
	Webnn__Ipc__ServerMessage *s = pt_call(&c, &m);
	ASSERT_MSG(!s->reply->error, "build: %s", s->reply->error->message);
	ASSERT_EQ(s->reply->body_case, WEBNN__IPC__REPLY__BODY_BUILD_GRAPH);
	pt_free(s);
	pt_connect(&other, &d);
	pt_hello(&other, "test_graph_scale");
	pt_create_context(&other, 1);
	pt_roundtrip(&other, 1, 2, 1.0f);
	pt_close(&other);
	pt_close(&c);
	test_daemon_stop(&d);
	wide_graph_free(&w);
}
