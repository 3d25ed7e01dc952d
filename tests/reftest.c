/* Shared harness of the reference-backend tests: one copy of the arena, run and compare helpers. */
#include "tests/reftest.h"

#include "tests/test.h"

static unsigned char arena_buf[1 << 20] __attribute__((aligned(16)));
static size_t arena_used;

void *rt_arena(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (arena_used + n > sizeof(arena_buf))
		FAIL("test arena exhausted");
	void *p = arena_buf + arena_used;
	arena_used += n;
	memset(p, 0, n);
	return p;
}

uint32_t *rt_u32dup(size_t n, const uint32_t *v)
{
	uint32_t *p = rt_arena(n * sizeof(uint32_t));
	memcpy(p, v, n * sizeof(uint32_t));
	return p;
}

uint32_t rt_constant(struct tg_graph *t, enum wnn_dtype type, uint32_t rank, const uint32_t *dims,
		     const double *v)
{
	struct wnn_desc d = { .type = type, .rank = rank };
	if (rank)
		memcpy(d.dims, dims, rank * sizeof(uint32_t));
	void *bytes = rt_arena(tg_bytes(&d));
	tg_pack(bytes, type, v, wnn_shape_count(rank, dims));
	return tg_constant(t, type, rank, dims, bytes);
}

uint32_t rt_op(struct tg_graph *t, enum wnn_op which, void *attrs)
{
	Webnn__Ipc__Operation init = WEBNN__IPC__OPERATION__INIT;
	Webnn__Ipc__Operation *op = rt_arena(sizeof(*op));
	struct wnn_diag diag = { 0 };
	*op = init;
	tg_set_op(op, which, attrs);
	if (tg_op(t, op, &diag) != WEBNN_STATUS_OK)
		FAIL("%s: %s", wnn_ops[which].name, diag.message);
	return t->last_outputs[0];
}

Webnn__Ipc__Number *rt_number(double f)
{
	Webnn__Ipc__Number init = WEBNN__IPC__NUMBER__INIT, *n = rt_arena(sizeof(*n));
	*n = init;
	n->value_case = WEBNN__IPC__NUMBER__VALUE_F;
	n->f = f;
	return n;
}

Webnn__Ipc__Reduce *rt_reduce_msg(struct tg_graph *t, uint32_t input)
{
	Webnn__Ipc__Reduce init = WEBNN__IPC__REDUCE__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = input, m->output = tg_next(t);
	return m;
}

void **rt_run(struct tg_graph *t, const double *const *ins)
{
	struct wnn_diag diag = { 0 };
	const struct graph_ir *g = tg_finish(t, &diag);
	if (!g)
		FAIL("graph: %s", diag.message);
	const void *in_bytes[TG_MAX_OPERANDS];
	void **outs = rt_arena(TG_MAX_OPERANDS * sizeof(void *));
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		uint64_t n;
		ASSERT(wnn_desc_count(d, &n));
		void *b = rt_arena(tg_bytes(d));
		tg_pack(b, d->type, ins[i], n);
		in_bytes[i] = b;
	}
	for (size_t i = 0; i < g->n_outputs; i++)
		outs[i] = rt_arena(tg_bytes(&g->values[g->outputs[i]].desc));
	if (tg_run(&backend_reference, NULL, g, in_bytes, outs, &diag) != WEBNN_STATUS_OK)
		FAIL("run: %s", diag.message);
	return outs;
}

void rt_check(struct tg_graph *t, void **outs, size_t i, const double *expected, double ulp,
	      double atol)
{
	const struct wnn_desc *d = &t->descs[t->output_ids[i]];
	uint64_t n;
	char msg[256];
	ASSERT(wnn_desc_count(d, &n));
	if (!tg_compare_values(outs[i], d->type, expected, n, ulp, atol, msg, sizeof(msg)))
		FAIL("output %zu: %s", i, msg);
}

void rt_expect(struct tg_graph *t, const double *const *ins, const double *expected, double ulp)
{
	rt_check(t, rt_run(t, ins), 0, expected, ulp, 0);
}

void rt_expect_shape(struct tg_graph *t, uint32_t id, uint32_t rank, const uint32_t *dims)
{
	ASSERT_EQ(t->descs[id].rank, rank);
	for (uint32_t i = 0; i < rank; i++)
		ASSERT_EQ(t->descs[id].dims[i], dims[i]);
}

/* ---- message constructors shared by the families' reference tests: each creates every operand
 * of its operation before the message, because the message takes the next operand id. */

uint32_t rt_binary(struct tg_graph *t, enum wnn_op which, uint32_t a, uint32_t b)
{
	Webnn__Ipc__ElementwiseBinary init = WEBNN__IPC__ELEMENTWISE_BINARY__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->a = a, m->b = b, m->output = tg_next(t);
	return rt_op(t, which, m);
}

uint32_t rt_unary_ab(struct tg_graph *t, enum wnn_op which, uint32_t x, bool has_alpha,
		     double alpha, bool has_beta, double beta)
{
	Webnn__Ipc__ElementwiseUnary init = WEBNN__IPC__ELEMENTWISE_UNARY__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = x, m->output = tg_next(t);
	m->has_alpha = has_alpha, m->alpha = alpha;
	m->has_beta = has_beta, m->beta = beta;
	return rt_op(t, which, m);
}

uint32_t rt_unary(struct tg_graph *t, enum wnn_op which, uint32_t x)
{
	return rt_unary_ab(t, which, x, false, 0, false, 0);
}

Webnn__Ipc__Pool2d *rt_pool_msg(struct tg_graph *t, uint32_t in)
{
	Webnn__Ipc__Pool2d init = WEBNN__IPC__POOL2D__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = in, m->output = tg_next(t);
	return m;
}

Webnn__Ipc__Gemm *rt_gemm_msg(struct tg_graph *t, uint32_t a, uint32_t b)
{
	Webnn__Ipc__Gemm init = WEBNN__IPC__GEMM__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->a = a, m->b = b, m->output = tg_next(t);
	return m;
}

Webnn__Ipc__BatchNormalization *rt_bn_msg(struct tg_graph *t, uint32_t in, uint32_t mean,
					    uint32_t var)
{
	Webnn__Ipc__BatchNormalization init = WEBNN__IPC__BATCH_NORMALIZATION__INIT;
	Webnn__Ipc__BatchNormalization *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = in, m->mean = mean, m->variance = var, m->output = tg_next(t);
	return m;
}

const double rt_iota9[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };

uint32_t rt_pool(struct tg_graph *t, enum wnn_op op, Webnn__Ipc__Pool2d *m)
{
	return rt_op(t, op, m);
}

uint32_t rt_matmul(struct tg_graph *t, uint32_t a, uint32_t b)
{
	Webnn__Ipc__Matmul init = WEBNN__IPC__MATMUL__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->a = a, m->b = b, m->output = tg_next(t);
	return rt_op(t, WNN_OP_MATMUL, m);
}

uint32_t rt_softmax(struct tg_graph *t, uint32_t x, uint32_t axis)
{
	Webnn__Ipc__Softmax init = WEBNN__IPC__SOFTMAX__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = x, m->axis = axis, m->output = tg_next(t);
	return rt_op(t, WNN_OP_SOFTMAX, m);
}
