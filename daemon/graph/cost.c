/* The time estimate of a graph (max_dispatch_ms, quick_max_ns, max_fold_ms): work per operator family over the IR, times calibrated costs per unit. */
#include "daemon/graph/graph.h"

/*
 * Work: every node costs the elements it reads and writes (what elementwise, data movement, gather,
 * cast, resample, reduction and normalization kernels are proportional to); the families whose
 * work grows faster than their tensors add their multiply-adds, counted as 2 FLOP each:
 *   linalg: matmul 2*batch*M*N*K, gemm 2*M*N*K (+ M*N for C);
 *   conv:   conv2d 2*out_elements*KH*KW*Cin/groups; convTranspose2d the larger of that and
 *           2*in_elements*KH*KW*Cout/groups (a kernel may gather per output or scatter per input);
 *   pool:   out_elements*window;
 *   rnn:    the gate gemms of every step and direction, 2*batch*gates*H*(I+H) each;
 *   elementwise: one per output element of a transcendental function (exp, erf, tanh...);
 *   gather: the rows it looks up (one index each: gather's outer*indices, gatherElements' and
 *           scatterElements' elements, gatherND's and scatterND's tuples), whose cost per row
 *           (an index read, wrapped, and a copy) the elements do not show: a gather of rows
 *           of one element costs tens of times more per element than one of long rows.
 * Sizes are bounded by max_tensor_bytes, but their products are not: every product and sum
 * saturates at UINT64_MAX.
 *
 * Time: the elements cost elem_ps each and the family's extra work op_ps each, in picoseconds,
 * from the tables below. They were measured by bench_cost (make bench) on the machine webnnd is
 * developed on (2 cores of an AVX-512 Xeon, shared): the median ns per unit of a few
 * representative shapes of each family, rounded up to the slowest of them, so that an estimate
 * is within 10x of the real time there (bench_cost checks it; other machines differ by their
 * speed, and the limits are meant as orders of magnitude).
 */

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* The product of n factors, saturating. */
static uint64_t sat_prod(const uint64_t *f, int n)
{
	uint64_t r = 1;
	for (int i = 0; i < n; i++)
		r = sat_mul(r, f[i]);
	return r;
}

static uint64_t value_elements(const struct graph_ir *g, uint32_t v)
{
	if (v >= g->n_values)
		return 0;
	const struct wnn_desc *d = &g->values[v].desc;
	return wnn_shape_count(d->rank, d->dims);
}

static uint64_t linalg_work(const struct graph_node *n)
{
	if (n->op == WNN_OP_MATMUL) {
		const struct wnn_matmul_attrs *a = &n->attrs.matmul;
		return sat_prod((const uint64_t[]){ 2, a->batch, a->m, a->n, a->k }, 5);
	}
	const struct wnn_gemm_attrs *a = &n->attrs.gemm;
	uint64_t w = sat_prod((const uint64_t[]){ 2, a->m, a->n, a->k }, 4);
	return a->has_c ? sat_add(w, sat_mul(a->m, a->n)) : w;
}

static uint64_t conv_work(const struct graph_node *n)
{
	if (n->op == WNN_OP_CONV2D) {
		const struct wnn_conv2d_attrs *a = &n->attrs.conv2d;
		return sat_prod((const uint64_t[]){ 2, a->n, a->c_out, a->out_h, a->out_w, a->kh,
						    a->kw, a->c_in_g }, 8);
	}
	const struct wnn_conv_transpose2d_attrs *a = &n->attrs.conv_transpose2d;
	uint64_t gather = sat_prod((const uint64_t[]){ 2, a->n, a->c_out, a->out_h, a->out_w, a->kh,
						       a->kw, a->c_in_g }, 8);
	uint64_t scatter = sat_prod((const uint64_t[]){ 2, a->n, a->c_in, a->h, a->w, a->kh, a->kw,
							a->c_out_g }, 8);
	return gather > scatter ? gather : scatter;
}

static uint64_t pool_work(const struct graph_node *n)
{
	const struct wnn_pool2d_attrs *a = &n->attrs.pool2d;
	return sat_prod((const uint64_t[]){ a->n, a->c, a->out_h, a->out_w, a->win_h, a->win_w }, 6);
}

static uint64_t gather_work(const struct graph_node *n)
{
	switch (n->op) {
	case WNN_OP_GATHER:
		return sat_mul(n->attrs.gather.outer, n->attrs.gather.n_indices);
	case WNN_OP_GATHER_ELEMENTS:
		return n->attrs.gather.count;
	case WNN_OP_GATHER_ND:
		return n->attrs.gather.n_tuples;
	case WNN_OP_SCATTER_ELEMENTS:
		return n->attrs.scatter.n_updates;
	case WNN_OP_SCATTER_ND:
		return n->attrs.scatter.n_tuples;
	default:
		return 0;
	}
}

static uint64_t rnn_work(const struct graph_node *n)
{
	const struct wnn_rnn_attrs *a = &n->attrs.rnn;
	uint64_t per_step = sat_prod((const uint64_t[]){ 2, a->batch, a->gates, a->hidden,
							 sat_add(a->input_size, a->hidden) }, 5);
	return sat_prod((const uint64_t[]){ per_step, a->steps, a->num_dirs }, 3);
}

/* Whether an elementwise operation evaluates a transcendental function (exp, log, the
 * trigonometric ones and those built on them) per output element: its work counts one op per
 * output element. Such a function costs 4-15x what an add does per element (bench_cost: exp
 * 2.4 ns, add 0.6, a broadcast mul 0.14 per element on the fast kernels), more than one
 * per-element price can cover within 10x. */
static bool transcendental(enum wnn_op op)
{
	switch (op) {
	case WNN_OP_POW:
	case WNN_OP_COS:
	case WNN_OP_ERF:
	case WNN_OP_EXP:
	case WNN_OP_LOG:
	case WNN_OP_SIN:
	case WNN_OP_TAN:
	case WNN_OP_SIGMOID:
	case WNN_OP_TANH:
	case WNN_OP_SOFTPLUS:
	case WNN_OP_GELU:
	case WNN_OP_ELU:
		return true;
	default:
		return false;
	}
}

/* Work beyond reading and writing each element once, by ops.def family (NULL: none). */
typedef uint64_t (*cost_family_fn)(const struct graph_node *n);
static const cost_family_fn cost_family[WNN_FAMILY_COUNT] = {
	[WNN_FAMILY_LINALG] = linalg_work,
	[WNN_FAMILY_CONV] = conv_work,
	[WNN_FAMILY_POOL] = pool_work,
	[WNN_FAMILY_RNN] = rnn_work,
	[WNN_FAMILY_GATHER] = gather_work,
};

/*
 * The calibration, picoseconds per unit by family: F(FAMILY, fast per element, fast per op,
 * reference per element, reference per op). Fast: the cpu backend's oneDNN primitives and C
 * kernels on its team of threads; reference: the reference kernels on one thread (the oracle
 * backend, constant folding, the cpu backend's fallback for what it has no fast kernel for).
 */
#define COST_TABLE(F)                                   \
	F(ELEMENTWISE,     700, 2000,   3000, 12000)     \
	F(REDUCE,          400,    0,  15000,     0)     \
	F(NORMALIZATION,  1500,    0,  30000,     0)     \
	F(CONV,            300,   25,  10000, 10000)     \
	F(POOL,           2000,  100,  10000,  7000)     \
	F(LINALG,          500,   15,  10000,  2000)     \
	F(DATA,           1000,    0,  15000,     0)     \
	F(GATHER,          500, 3000,    300,  5000)     \
	F(CAST,           1000,    0,  25000,     0)     \
	F(RNN,            2000,  300,  10000,  1500)     \
	F(RESAMPLE,       4000,    0,  60000,     0)

#define COST_FAST_(E, fe, fo, re, ro) [WNN_FAMILY_##E] = { fe, fo },
#define COST_REF_(E, fe, fo, re, ro) [WNN_FAMILY_##E] = { re, ro },
const struct graph_cost_model graph_cost_fast = {
	.name = "fast kernels",
	.ps = { COST_TABLE(COST_FAST_) },
};
const struct graph_cost_model graph_cost_reference = {
	.name = "reference kernels",
	.ps = { COST_TABLE(COST_REF_) },
};
#undef COST_FAST_
#undef COST_REF_

void graph_node_work(const struct graph_ir *g, const struct graph_node *n,
		     struct graph_work *w)
{
	*w = (struct graph_work){ 0 };
	for (uint32_t i = 0; i < n->n_inputs; i++)
		w->elements = sat_add(w->elements, value_elements(g, n->inputs[i]));
	for (uint32_t i = 0; i < n->n_outputs; i++)
		w->elements = sat_add(w->elements, value_elements(g, n->outputs[i]));
	if (n->op < WNN_OP_COUNT && cost_family[wnn_ops[n->op].family])
		w->ops = cost_family[wnn_ops[n->op].family](n);
	else if (n->op < WNN_OP_COUNT && transcendental(n->op))
		for (uint32_t i = 0; i < n->n_outputs; i++)
			w->ops = sat_add(w->ops, value_elements(g, n->outputs[i]));
}

uint64_t graph_node_cost(const struct graph_cost_model *m, const struct graph_ir *g,
			 const struct graph_node *n)
{
	struct graph_work w;
	graph_node_work(g, n, &w);
	if (n->op >= WNN_OP_COUNT)
		return UINT64_MAX;
	const struct graph_unit_cost *u = &m->ps[wnn_ops[n->op].family];
	uint64_t ps = sat_add(sat_mul(w.elements, u->elem_ps), sat_mul(w.ops, u->op_ps));
	/* every node costs at least a nanosecond: a graph of many empty ones is not free */
	return ps == UINT64_MAX ? ps : ps / 1000 + 1;
}

void graph_estimate_cost(const struct graph_cost_model *m, const struct graph_ir *g,
			 struct graph_cost *c)
{
	*c = (struct graph_cost){ .largest = GRAPH_NONE };
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		if (n->state != GRAPH_NODE_LIVE && n->state != GRAPH_NODE_FUSED)
			continue;
		uint64_t ns = graph_node_cost(m, g, n);
		c->ns = sat_add(c->ns, ns);
		if (c->largest == GRAPH_NONE || ns > c->largest_ns) {
			c->largest = i;
			c->largest_ns = ns;
		}
	}
}
