/* The work estimate of a graph (max_dispatch_flops): per operator family, over the IR, saturating. */
#include "daemon/graph/graph.h"

/*
 * Every node costs the elements it reads and writes (what elementwise, data movement, gather,
 * cast, resample, reduction and normalization kernels are proportional to); the families whose
 * work grows faster than their tensors add their multiply-adds, counted as 2 FLOP each:
 *   linalg: matmul 2*batch*M*N*K, gemm 2*M*N*K (+ M*N for C);
 *   conv:   conv2d 2*out_elements*KH*KW*Cin/groups; convTranspose2d the larger of that and
 *           2*in_elements*KH*KW*Cout/groups (a kernel may gather per output or scatter per input);
 *   pool:   out_elements*window;
 *   rnn:    the gate gemms of every step and direction, 2*batch*gates*H*(I+H) each.
 * Sizes are bounded by max_tensor_bytes, but their products are not: every product and sum
 * saturates at UINT64_MAX.
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

static uint64_t rnn_work(const struct graph_node *n)
{
	const struct wnn_rnn_attrs *a = &n->attrs.rnn;
	uint64_t per_step = sat_prod((const uint64_t[]){ 2, a->batch, a->gates, a->hidden,
							 sat_add(a->input_size, a->hidden) }, 5);
	return sat_prod((const uint64_t[]){ per_step, a->steps, a->num_dirs }, 3);
}

/* Work beyond reading and writing each element once, by ops.def family (NULL: none). */
typedef uint64_t (*cost_family_fn)(const struct graph_node *n);
static const cost_family_fn cost_family[WNN_FAMILY_COUNT] = {
	[WNN_FAMILY_LINALG] = linalg_work,
	[WNN_FAMILY_CONV] = conv_work,
	[WNN_FAMILY_POOL] = pool_work,
	[WNN_FAMILY_RNN] = rnn_work,
};

uint64_t graph_node_cost(const struct graph_ir *g, const struct graph_node *n)
{
	uint64_t c = 0;
	for (uint32_t i = 0; i < n->n_inputs; i++)
		c = sat_add(c, value_elements(g, n->inputs[i]));
	for (uint32_t i = 0; i < n->n_outputs; i++)
		c = sat_add(c, value_elements(g, n->outputs[i]));
	if (n->op < WNN_OP_COUNT && cost_family[wnn_ops[n->op].family])
		c = sat_add(c, cost_family[wnn_ops[n->op].family](n));
	return c;
}

void graph_estimate_cost(const struct graph_ir *g, struct graph_cost *c)
{
	*c = (struct graph_cost){ .largest = GRAPH_NONE };
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		if (n->state != GRAPH_NODE_LIVE && n->state != GRAPH_NODE_FUSED)
			continue;
		uint64_t w = graph_node_cost(g, n);
		c->flops = sat_add(c->flops, w);
		if (c->largest == GRAPH_NONE || w > c->largest_flops) {
			c->largest = i;
			c->largest_flops = w;
		}
	}
}
