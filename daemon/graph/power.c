/* pow by a constant small integer exponent rewritten as multiplications or a reciprocal. */
#include "daemon/graph/passes.h"

#include <stdlib.h>
#include <string.h>

/*
 * pow(x, e) runs libm's pow per element (tens of nanoseconds); exporters write x^2 for squared
 * distances and variances. For float types:
 *   e = 2:   x * x, exactly pow's result (the product of two float32 is exact in double, and
 *            both round it once to the output type);
 *   e = -1:  reciprocal(x), 1 / x in double rounded once, as pow's;
 *   e = 3, 4 (float32 only): x * x, then * x or squared: one more rounding than pow, within a
 *            few ulp of it (WPT's pow tolerance is 32 ulp; float16 would be 2^-11 per rounding,
 *            so it keeps pow).
 * The exponent must be one constant value (any shape of one element, or all elements equal with
 * the output's shape unchanged by it).
 */

static bool one_exponent(const struct graph_ir *g, const struct graph_node *n, double *e)
{
	const struct wnn_binary_attrs *b = &n->attrs.binary;
	const struct graph_value *ev = &g->values[b->b];
	if (ev->kind != GRAPH_VALUE_CONSTANT || !ev->data || b->a == b->b)
		return false;
	/* the result has x's shape: the exponent broadcasts into it */
	if (!wnn_desc_equal(&g->values[b->a].desc, &g->values[b->output].desc))
		return false;
	uint64_t count = 0;
	if (!wnn_desc_count(&ev->desc, &count) || count == 0)
		return false;
	for (uint64_t i = 0; i < count; i++) {
		double v = ev->desc.type == WNN_F32 ? ((const float *)ev->data)[i]
						    : wnn_f16_to_f32(((const uint16_t *)ev->data)[i]);
		if (i && v != *e)
			return false;
		*e = v;
	}
	return true;
}

/* Node n becomes mul(x, y) writing out. */
static enum webnn_status make_mul(struct graph_ir *g, struct graph_node *n, uint32_t x, uint32_t y,
				  uint32_t out, struct wnn_diag *diag)
{
	struct wnn_binary_attrs a = n->attrs.binary;
	a.op = WNN_OP_MUL;
	a.a = x, a.b = y, a.output = out;
	const struct wnn_desc *d[2] = { &g->values[x].desc, &g->values[y].desc };
	enum webnn_status st = wnn_broadcast(d, 2, &a.bc, "mul", diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	n->op = WNN_OP_MUL;
	n->attrs.binary = a;
	n->inputs[0] = x, n->inputs[1] = y;
	n->outputs[0] = out;
	return WEBNN_STATUS_OK;
}

/* Inserts mul(x, x) before node i, writing a new value: its id, or GRAPH_NONE (diag set). */
static uint32_t insert_square(struct graph_ir *g, uint32_t i, uint32_t x, struct wnn_diag *diag)
{
	struct wnn_desc d = g->values[x].desc;
	uint32_t sq = graph_add_value(g, &d, GRAPH_VALUE_INTERMEDIATE, diag);
	if (sq == GRAPH_NONE)
		return GRAPH_NONE;
	union wnn_attrs a;
	memset(&a, 0, sizeof a);
	a.binary.op = WNN_OP_MUL;
	a.binary.a = a.binary.b = x;
	a.binary.output = sq;
	a.binary.type = a.binary.out_type = d.type;
	const struct wnn_desc *dd[2] = { &d, &d };
	if (wnn_broadcast(dd, 2, &a.binary.bc, "mul", diag) != WEBNN_STATUS_OK)
		return GRAPH_NONE;
	uint32_t in[2] = { x, x };
	uint32_t k = graph_add_node(g, WNN_OP_MUL, &a, in, 2, &sq, 1, diag);
	if (k == GRAPH_NONE)
		return GRAPH_NONE;
	/* keep the topological order: the new node goes right before node i (no pass before
	 * fusion keeps node indices) */
	struct graph_node nn = g->nodes[k];
	memmove(g->nodes + i + 1, g->nodes + i, (k - i) * sizeof *g->nodes);
	g->nodes[i] = nn;
	if (g->nodes[i].label == NULL && g->nodes[i + 1].label)
		g->nodes[i].label = strdup(g->nodes[i + 1].label);
	return sq;
}

enum webnn_status graph_rewrite_pow(struct graph_ir *g, const struct graph_caps *caps,
				    struct wnn_diag *diag)
{
	if (!caps->rewrite_pow)
		return WEBNN_STATUS_OK;
	bool changed = false;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		struct graph_node *n = &g->nodes[i];
		if (n->state != GRAPH_NODE_LIVE || n->op != WNN_OP_POW)
			continue;
		enum wnn_dtype t = n->attrs.binary.type;
		double e = 0;
		if ((t != WNN_F32 && t != WNN_F16) || !one_exponent(g, n, &e))
			continue;
		uint32_t x = n->attrs.binary.a, out = n->attrs.binary.output;
		enum webnn_status st = WEBNN_STATUS_OK;
		if (e == 2.0) {
			st = make_mul(g, n, x, x, out, diag);
		} else if (e == -1.0) {
			struct wnn_unary_attrs u = { .op = WNN_OP_RECIPROCAL, .input = x, .output = out,
						     .type = t, .out_type = t };
			wnn_desc_count(&g->values[out].desc, &u.count);
			n->op = WNN_OP_RECIPROCAL;
			n->attrs.unary = u;
			n->n_inputs = 1;
		} else if (t == WNN_F32 && (e == 3.0 || e == 4.0)) {
			uint32_t sq = insert_square(g, i, x, diag);
			if (sq == GRAPH_NONE)
				return diag->status ? diag->status : WEBNN_STATUS_NO_MEMORY;
			n = &g->nodes[++i]; /* the pow node moved one place on */
			st = make_mul(g, n, sq, e == 3.0 ? x : sq, out, diag);
		} else {
			continue;
		}
		if (st != WEBNN_STATUS_OK)
			return st;
		changed = true;
	}
	if (changed)
		graph_recount(g);
	return WEBNN_STATUS_OK;
}
