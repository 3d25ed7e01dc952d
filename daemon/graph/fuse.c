/* Fusion groups: conv2d/gemm/matmul epilogues (channel add, residual add, relu/clamp/leakyRelu, a bound), attention's score scale and mask add before a softmax, and elementwise chains. */
#include "daemon/graph/passes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Who reads each value: the number of input slots of live and fused nodes and the last such
 * node (the only one when the count is 1). */
struct readers {
	uint32_t *count;
	uint32_t *node;
};

static bool readers_init(const struct graph_ir *g, struct readers *r)
{
	size_t n = g->n_values ? g->n_values : 1;
	r->count = calloc(n, sizeof *r->count);
	r->node = malloc(n * sizeof *r->node);
	if (!r->count || !r->node)
		return false;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *nd = &g->nodes[i];
		if (nd->state != GRAPH_NODE_LIVE && nd->state != GRAPH_NODE_FUSED)
			continue;
		for (uint32_t k = 0; k < nd->n_inputs; k++) {
			r->count[nd->inputs[k]]++;
			r->node[nd->inputs[k]] = i;
		}
	}
	return true;
}

static void readers_free(struct readers *r)
{
	free(r->count);
	free(r->node);
}

/* The node that v alone feeds, when it feeds exactly one live node and is no graph output. */
static uint32_t sole_reader(const struct graph_ir *g, const struct readers *r, uint32_t v)
{
	if (r->count[v] != 1 || g->values[v].output_index != GRAPH_NONE)
		return GRAPH_NONE;
	uint32_t j = r->node[v];
	return g->nodes[j].state == GRAPH_NODE_LIVE ? j : GRAPH_NONE;
}

/* Whether v exists when the group headed by node i runs: not made by i or a later kernel. */
static bool ready_before(const struct graph_ir *g, uint32_t v, uint32_t i)
{
	const struct graph_value *val = &g->values[v];
	if (val->kind != GRAPH_VALUE_INTERMEDIATE || val->producer == GRAPH_NONE)
		return true;
	const struct graph_node *p = &g->nodes[val->producer];
	uint32_t at = p->state == GRAPH_NODE_FUSED ? p->fused_into : val->producer;
	return at < i;
}

static bool same_shape(const struct wnn_desc *a, const struct wnn_desc *b)
{
	if (a->rank != b->rank)
		return false;
	for (uint32_t d = 0; d < a->rank; d++)
		if (a->dims[d] != b->dims[d])
			return false;
	return true;
}

/* v broadcasts to out as one value per index of out's dimension cdim. */
static bool channel_vector(const struct wnn_desc *v, const struct wnn_desc *out, uint32_t cdim)
{
	if (v->rank > out->rank || cdim + v->rank < out->rank)
		return false;
	for (uint32_t d = 0; d < v->rank; d++) {
		uint32_t od = out->rank - v->rank + d;
		if (v->dims[d] != (od == cdim ? out->dims[cdim] : 1))
			return false;
	}
	return true;
}

/* Takes add node j (reading cur) into head i's epilogue: the other operand becomes the residual
 * (same shape) or the channel vector, one of each at most. */
static bool absorb_add(struct graph_ir *g, uint32_t i, uint32_t j, uint32_t cur)
{
	const struct wnn_binary_attrs *b = &g->nodes[j].attrs.binary;
	struct graph_epilogue *e = &g->nodes[i].epilogue;
	const struct wnn_desc *cd = &g->values[cur].desc;
	if (b->a == b->b || b->type != cd->type || !same_shape(&g->values[b->output].desc, cd))
		return false;
	uint32_t other = b->a == cur ? b->b : b->a;
	/* The epilogue runs where node i is: the addend must exist by then. */
	if (!ready_before(g, other, i))
		return false;
	if (e->residual == GRAPH_NONE && same_shape(&g->values[other].desc, cd))
		e->residual = other;
	else if (e->channel == GRAPH_NONE && channel_vector(&g->values[other].desc, cd, e->channel_dim))
		e->channel = other;
	else
		return false;
	return true;
}

/* A float32 constant of one element: its value in *v. */
static bool scalar_constant(const struct graph_ir *g, uint32_t v, float *x)
{
	const struct graph_value *val = &g->values[v];
	uint64_t count = 0;
	if (val->kind != GRAPH_VALUE_CONSTANT || val->desc.type != WNN_F32 || !val->data ||
	    !wnn_desc_count(&val->desc, &count) || count != 1)
		return false;
	memcpy(x, val->data, sizeof *x);
	return *x == *x;
}

/* Node n (reading cur) as a clamp after the activation: a clamp, or max/min of cur and a
 * float32 constant scalar that does not broadcast cur to another shape. */
static bool bound_node(const struct graph_ir *g, const struct graph_node *n, uint32_t cur,
		       enum wnn_dtype t, float *lo, float *hi)
{
	if (n->op == WNN_OP_CLAMP && n->attrs.clamp.type == t) {
		*lo = (float)n->attrs.clamp.min;
		*hi = (float)n->attrs.clamp.max;
		return true;
	}
	if (n->op != WNN_OP_MAX && n->op != WNN_OP_MIN)
		return false;
	const struct wnn_binary_attrs *b = &n->attrs.binary;
	float c;
	if (t != WNN_F32 || b->type != t || b->a == b->b ||
	    !same_shape(&g->values[b->output].desc, &g->values[cur].desc) ||
	    !scalar_constant(g, b->a == cur ? b->b : b->a, &c))
		return false;
	*lo = n->op == WNN_OP_MAX ? c : -INFINITY;
	*hi = n->op == WNN_OP_MIN ? c : INFINITY;
	return true;
}

/* Follows the single-consumer chain after head i through adds, then one relu or clamp (or,
 * where the backend asked, leakyRelu), then (where asked) one clamp more. */
static void fuse_epilogue(struct graph_ir *g, const struct graph_caps *caps, const struct readers *r,
			  uint32_t i)
{
	struct graph_node *h = &g->nodes[i];
	struct graph_epilogue *e = &h->epilogue;
	uint32_t cur = h->outputs[0];
	enum wnn_dtype t = g->values[cur].desc.type;
	e->channel_dim = h->op == WNN_OP_CONV2D ? (h->attrs.conv2d.nhwc ? 3 : 1)
						: g->values[cur].desc.rank - 1;
	uint32_t j;
	while (e->act == GRAPH_ACT_NONE && (j = sole_reader(g, r, cur)) != GRAPH_NONE) {
		struct graph_node *n = &g->nodes[j];
		if (n->op == WNN_OP_RELU && n->attrs.unary.type == t) {
			e->act = GRAPH_ACT_RELU;
		} else if (n->op == WNN_OP_CLAMP && n->attrs.clamp.type == t) {
			e->act = GRAPH_ACT_CLAMP;
			e->lo = (float)n->attrs.clamp.min;
			e->hi = (float)n->attrs.clamp.max;
		} else if (n->op == WNN_OP_LEAKY_RELU && caps->epilogue_leaky_bound &&
			   n->attrs.unary.type == t) {
			e->act = GRAPH_ACT_LEAKY_RELU;
			e->alpha = (float)n->attrs.unary.alpha;
		} else if (n->op != WNN_OP_ADD || !absorb_add(g, i, j, cur)) {
			break;
		}
		cur = n->outputs[0];
		n->state = GRAPH_NODE_FUSED;
		n->fused_into = i;
		e->used = true;
	}
	if (e->act != GRAPH_ACT_NONE && caps->epilogue_leaky_bound &&
	    (j = sole_reader(g, r, cur)) != GRAPH_NONE &&
	    bound_node(g, &g->nodes[j], cur, t, &e->bound_lo, &e->bound_hi)) {
		e->bound = true;
		cur = g->nodes[j].outputs[0];
		g->nodes[j].state = GRAPH_NODE_FUSED;
		g->nodes[j].fused_into = i;
	}
	if (e->used)
		e->output = cur;
}

static bool epilogue_head(const struct graph_ir *g, const struct graph_node *n)
{
	if (n->op != WNN_OP_CONV2D && n->op != WNN_OP_GEMM && n->op != WNN_OP_MATMUL)
		return false;
	if (n->n_outputs != 1 || n->epilogue.used)
		return false;
	enum wnn_dtype t = g->values[n->outputs[0]].desc.type;
	return t == WNN_F32 || t == WNN_F16;
}

/* Unary, clamp and binary operations whose output type is their input type. */
static bool chainable(const struct graph_ir *g, const struct graph_caps *caps,
		      const struct graph_node *n)
{
	if (n->state != GRAPH_NODE_LIVE || n->n_outputs != 1 || n->epilogue.used)
		return false;
	if (caps->joins_chain && !caps->joins_chain(g, n))
		return false;
	enum wnn_dtype out = g->values[n->outputs[0]].desc.type;
	switch (wnn_ops[n->op].attrs) {
	case WNN_ATTRS_UNARY:
		return n->attrs.unary.type == out;
	case WNN_ATTRS_CLAMP:
		return n->attrs.clamp.type == out;
	case WNN_ATTRS_BINARY:
		return n->attrs.binary.type == out;
	default:
		return false;
	}
}

/* A binary operand a chain kernel reads beside the chain: one element, or as many as the
 * output (its shape then is the output's, or the output's without some leading 1s: a
 * layer norm's gamma [32] against [1, 32]; broadcasting it is the identity, so element i is
 * element i). */
static bool side_operand(const struct graph_ir *g, uint32_t v, const struct wnn_desc *out)
{
	uint64_t count = 0, out_count = 0;
	return same_shape(&g->values[v].desc, out) ||
	       (wnn_desc_count(&g->values[v].desc, &count) && wnn_desc_count(out, &out_count) &&
		(count == 1 || count == out_count));
}

/* Whether node j, the sole reader of cur, continues the chain headed by node i. */
static bool chain_member(const struct graph_ir *g, const struct graph_caps *caps, uint32_t i,
			 uint32_t j, uint32_t cur)
{
	const struct graph_node *n = &g->nodes[j];
	const struct wnn_desc *out = &g->values[g->nodes[i].outputs[0]].desc;
	if (!chainable(g, caps, n) || !wnn_desc_equal(&g->values[n->outputs[0]].desc, out))
		return false;
	if (wnn_ops[n->op].attrs != WNN_ATTRS_BINARY)
		return true;
	const struct wnn_binary_attrs *b = &n->attrs.binary;
	uint32_t other = b->a == cur ? b->b : b->a;
	/* Every earlier member's output has one reader (the next member): other is outside. */
	return b->a != b->b && side_operand(g, other, out) && ready_before(g, other, i);
}

static bool chain_head(const struct graph_ir *g, const struct graph_caps *caps,
		       const struct graph_node *n)
{
	if (!chainable(g, caps, n) || n->chain.members)
		return false;
	if (wnn_ops[n->op].attrs != WNN_ATTRS_BINARY)
		return true;
	const struct wnn_desc *out = &g->values[n->outputs[0]].desc;
	return side_operand(g, n->attrs.binary.a, out) && side_operand(g, n->attrs.binary.b, out);
}

/* Collects the chain after head i; false only when out of memory. */
static bool fuse_chain(struct graph_ir *g, const struct graph_caps *caps, const struct readers *r,
		       uint32_t i, uint32_t *scratch)
{
	uint32_t n = 0, cur = g->nodes[i].outputs[0], j;
	scratch[n++] = i;
	while ((j = sole_reader(g, r, cur)) != GRAPH_NONE && chain_member(g, caps, i, j, cur)) {
		scratch[n++] = j;
		cur = g->nodes[j].outputs[0];
	}
	if (n < 2)
		return true;
	uint32_t *members = malloc(n * sizeof *members);
	if (!members)
		return false;
	for (uint32_t k = 0; k < n; k++) {
		members[k] = scratch[k];
		if (k) {
			g->nodes[scratch[k]].state = GRAPH_NODE_FUSED;
			g->nodes[scratch[k]].fused_into = i;
		}
	}
	g->nodes[i].chain.members = members;
	g->nodes[i].chain.n_members = n;
	return true;
}

/* The live node that produces v, when v is an intermediate read only by one live node. */
static uint32_t sole_producer(const struct graph_ir *g, const struct readers *r, uint32_t v)
{
	const struct graph_value *val = &g->values[v];
	if (val->kind != GRAPH_VALUE_INTERMEDIATE || val->producer == GRAPH_NONE ||
	    sole_reader(g, r, v) == GRAPH_NONE)
		return GRAPH_NONE;
	return g->nodes[val->producer].state == GRAPH_NODE_LIVE ? val->producer : GRAPH_NONE;
}

/* Softmax node i over the last axis of a float32 tensor, its input add(scores, mask) with
 * scores = mul(x, c) or div(x, c) for a constant scalar c (either step may be missing, not
 * both; the mask broadcasts in any way, the scores have the add's shape): the add and the
 * scaling become its prologue (attention: matmul, scale, mask, softmax). */
static void fuse_softmax_prologue(struct graph_ir *g, const struct readers *r, uint32_t i)
{
	struct graph_node *sm = &g->nodes[i];
	const struct wnn_softmax_attrs *sa = &sm->attrs.softmax;
	const struct wnn_desc *d = &g->values[sa->input].desc;
	if (sa->type != WNN_F32 || sa->inner != 1 || sm->n_inputs != 1 || d->rank == 0)
		return;
	uint32_t add = sole_producer(g, r, sa->input), mask = GRAPH_NONE, scores = sa->input;
	if (add != GRAPH_NONE && g->nodes[add].op == WNN_OP_ADD) {
		const struct wnn_binary_attrs *b = &g->nodes[add].attrs.binary;
		if (b->type != WNN_F32 || b->a == b->b)
			add = GRAPH_NONE;
		else {
			/* the scores: the operand a mul or div makes, else the one of the add's
			 * shape (a when both are) */
			uint32_t pa = sole_producer(g, r, b->a), pb = sole_producer(g, r, b->b);
			bool a_scaled = pa != GRAPH_NONE && (g->nodes[pa].op == WNN_OP_MUL ||
							     g->nodes[pa].op == WNN_OP_DIV);
			bool b_scaled = pb != GRAPH_NONE && (g->nodes[pb].op == WNN_OP_MUL ||
							     g->nodes[pb].op == WNN_OP_DIV);
			bool b_first = a_scaled ? false
					: b_scaled ? true
						   : !same_shape(&g->values[b->a].desc, d);
			scores = b_first ? b->b : b->a;
			mask = b_first ? b->a : b->b;
			if (!same_shape(&g->values[scores].desc, d))
				add = GRAPH_NONE, mask = GRAPH_NONE, scores = sa->input;
		}
	} else {
		add = GRAPH_NONE;
	}
	uint32_t sc = sole_producer(g, r, scores), input = scores;
	float c = 0;
	if (sc != GRAPH_NONE) {
		const struct graph_node *n = &g->nodes[sc];
		const struct wnn_binary_attrs *b = &n->attrs.binary;
		bool ok = (n->op == WNN_OP_MUL || n->op == WNN_OP_DIV) && b->type == WNN_F32 &&
			  b->a != b->b;
		/* x / c with c the divisor; x * c either way round */
		if (ok && scalar_constant(g, b->b, &c) && same_shape(&g->values[b->a].desc, d))
			input = b->a;
		else if (ok && n->op == WNN_OP_MUL && scalar_constant(g, b->a, &c) &&
			 same_shape(&g->values[b->b].desc, d))
			input = b->b;
		else
			sc = GRAPH_NONE;
	}
	if (sc == GRAPH_NONE && add == GRAPH_NONE)
		return;
	struct graph_softmax_prologue *p = &sm->softmax_pre;
	p->used = true;
	p->input = input;
	p->scaled = sc != GRAPH_NONE ? scores : GRAPH_NONE;
	p->mask = mask;
	p->scale = sc != GRAPH_NONE ? c : 1.0f;
	p->divide = sc != GRAPH_NONE && g->nodes[sc].op == WNN_OP_DIV;
	if (sc != GRAPH_NONE) {
		g->nodes[sc].state = GRAPH_NODE_FUSED;
		g->nodes[sc].fused_into = i;
	}
	if (add != GRAPH_NONE) {
		g->nodes[add].state = GRAPH_NODE_FUSED;
		g->nodes[add].fused_into = i;
	}
}

void graph_fuse(struct graph_ir *g, const struct graph_caps *caps)
{
	if (!caps->epilogues && !caps->elementwise_chains && !caps->softmax_prologue)
		return;
	struct readers r;
	uint32_t *scratch = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *scratch);
	if (!readers_init(g, &r) || !scratch) {
		readers_free(&r);
		free(scratch);
		return; /* fusing nothing is always correct */
	}
	if (caps->epilogues)
		GRAPH_FOR_EACH_LIVE_NODE(g, i)
			if (epilogue_head(g, &g->nodes[i]))
				fuse_epilogue(g, caps, &r, i);
	/* before the chains: a scale and a same-shape mask add would chain otherwise */
	if (caps->softmax_prologue)
		GRAPH_FOR_EACH_LIVE_NODE(g, i)
			if (g->nodes[i].op == WNN_OP_SOFTMAX && !g->nodes[i].softmax_pre.used)
				fuse_softmax_prologue(g, &r, i);
	if (caps->elementwise_chains)
		GRAPH_FOR_EACH_LIVE_NODE(g, i)
			if (chain_head(g, caps, &g->nodes[i]) && !fuse_chain(g, caps, &r, i, scratch))
				break;
	readers_free(&r);
	free(scratch);
}
