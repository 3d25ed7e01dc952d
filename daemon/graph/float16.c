/* float16 convolutions and matrix products computed in float32, for backends without float16 ones. */
#include "daemon/graph/passes.h"

#include <stdlib.h>
#include <string.h>

/*
 * A backend without fast float16 products would run a float16 conv2d, convTranspose2d, gemm or
 * matmul on its scalar fallback: a float16 segmentation net (88 MB, 119 convolutions at up to
 * 1024x1024) ran past the 300 s dispatch limit on the cpu backend where onnxruntime takes 7 s,
 * itself converting to float32. The node becomes cast(float32) of each float16 input, the
 * product in float32, and a cast back to float16 of its result: one rounding of the result
 * instead of float16 arithmetic throughout, closer to the exact value than any float16
 * accumulation (WPT's float16 tolerances allow both). Casts of constant weights fold at build
 * time while the fold budget lasts; past it they run at each dispatch.
 */

static bool product_op(enum wnn_op op)
{
	return op == WNN_OP_CONV2D || op == WNN_OP_CONV_TRANSPOSE2D || op == WNN_OP_GEMM ||
	       op == WNN_OP_MATMUL;
}

/* The node's float type, its operand fields and how many (inputs first, output last). */
static enum wnn_dtype *product_fields(struct graph_node *n, uint32_t *ids[4], uint32_t *count)
{
	switch (n->op) {
	case WNN_OP_CONV2D: {
		struct wnn_conv2d_attrs *a = &n->attrs.conv2d;
		ids[0] = &a->input, ids[1] = &a->filter, ids[2] = &a->bias, ids[3] = &a->output;
		*count = 4;
		return &a->type;
	}
	case WNN_OP_CONV_TRANSPOSE2D: {
		struct wnn_conv_transpose2d_attrs *a = &n->attrs.conv_transpose2d;
		ids[0] = &a->input, ids[1] = &a->filter, ids[2] = &a->bias, ids[3] = &a->output;
		*count = 4;
		return &a->type;
	}
	case WNN_OP_GEMM: {
		struct wnn_gemm_attrs *a = &n->attrs.gemm;
		ids[0] = &a->a, ids[1] = &a->b, ids[2] = &a->c, ids[3] = &a->output;
		*count = 4;
		return &a->type;
	}
	default: {
		struct wnn_matmul_attrs *a = &n->attrs.matmul;
		ids[0] = &a->a, ids[1] = &a->b, ids[2] = &a->output;
		*count = 3;
		return &a->type;
	}
	}
}

/* Appends cast(from) -> a new value of type `to` (or writes `into` when it is not GRAPH_NONE)
 * and moves the new node to index pos: the value's id, or GRAPH_NONE (diag set). */
static uint32_t insert_cast(struct graph_ir *g, uint32_t pos, uint32_t from, enum wnn_dtype to,
			    uint32_t into, struct wnn_diag *diag)
{
	if (into == GRAPH_NONE) {
		struct wnn_desc d = g->values[from].desc;
		d.type = to;
		if ((into = graph_add_value(g, &d, GRAPH_VALUE_INTERMEDIATE, diag)) == GRAPH_NONE)
			return GRAPH_NONE;
	}
	union wnn_attrs a;
	memset(&a, 0, sizeof a);
	a.cast.input = from;
	a.cast.output = into;
	a.cast.in_type = g->values[from].desc.type;
	a.cast.out_type = to;
	wnn_desc_count(&g->values[from].desc, &a.cast.count);
	uint32_t k = graph_add_node(g, WNN_OP_CAST, &a, &from, 1, &into, 1, diag);
	if (k == GRAPH_NONE)
		return GRAPH_NONE;
	struct graph_node nn = g->nodes[k];
	memmove(g->nodes + pos + 1, g->nodes + pos, (k - pos) * sizeof *g->nodes);
	g->nodes[pos] = nn;
	return into;
}

/* The index of the one live node after `from` that reads v (once), or GRAPH_NONE when v is
 * a graph output or has no or several readers. */
static uint32_t sole_reader(const struct graph_ir *g, uint32_t v, uint32_t from)
{
	if (g->values[v].kind != GRAPH_VALUE_INTERMEDIATE || g->values[v].output_index != GRAPH_NONE)
		return GRAPH_NONE;
	uint32_t found = GRAPH_NONE;
	for (uint32_t i = from; i < g->n_nodes; i++) {
		const struct graph_node *m = &g->nodes[i];
		if (m->state != GRAPH_NODE_LIVE)
			continue;
		for (uint32_t j = 0; j < m->n_inputs; j++)
			if (m->inputs[j] == v) {
				if (found != GRAPH_NONE)
					return GRAPH_NONE;
				found = i;
			}
	}
	return found;
}

/* Node m (relu, leakyRelu, clamp or add of float16, reading v) in float32: it reads `wide`
 * instead of v, a float32 cast of its other operand (an add's), and writes a new float32
 * value. That cast is inserted at *inserted (nodes from there move on by one, *mi included;
 * GRAPH_NONE: no cast). Returns the
 * new value, or GRAPH_NONE when m is none of those (nothing changed) or on failure (diag set). */
static uint32_t widen_epilogue(struct graph_ir *g, uint32_t product, uint32_t *mi, uint32_t v,
			       uint32_t wide, uint32_t *inserted, struct wnn_diag *diag)
{
	struct graph_node *m = &g->nodes[*mi];
	uint32_t *in, *out;
	enum wnn_dtype *type, *out_type = NULL;
	if ((m->op == WNN_OP_RELU || m->op == WNN_OP_LEAKY_RELU) && m->attrs.unary.input == v) {
		in = &m->attrs.unary.input, out = &m->attrs.unary.output;
		type = &m->attrs.unary.type, out_type = &m->attrs.unary.out_type;
	} else if (m->op == WNN_OP_CLAMP) {
		in = &m->attrs.clamp.input, out = &m->attrs.clamp.output;
		type = &m->attrs.clamp.type;
	} else if (m->op == WNN_OP_ADD && m->attrs.binary.type == WNN_F16 &&
		   m->attrs.binary.a != m->attrs.binary.b &&
		   wnn_desc_equal(&g->values[m->attrs.binary.output].desc, &g->values[v].desc)) {
		struct wnn_binary_attrs *b = &m->attrs.binary;
		uint32_t other = b->a == v ? b->b : b->a;
		/* the other operand's cast goes right after it is made (before the product when
		 * it already exists then), so the product can read it in its epilogue */
		uint32_t at = product;
		for (uint32_t k = 0; k < *mi; k++)
			for (uint32_t o = 0; o < g->nodes[k].n_outputs; o++)
				if (g->nodes[k].outputs[o] == other && k + 1 > at)
					at = k + 1;
		uint32_t f = insert_cast(g, at, other, WNN_F32, GRAPH_NONE, diag);
		if (f == GRAPH_NONE)
			return GRAPH_NONE;
		*inserted = at;
		m = &g->nodes[++*mi];
		b = &m->attrs.binary;
		if (b->a == other)
			b->a = f;
		else
			b->b = f;
		for (uint32_t j = 0; j < m->n_inputs; j++)
			if (m->inputs[j] == other)
				m->inputs[j] = f;
		in = b->a == v ? &b->a : &b->b;
		out = &b->output, type = &b->type, out_type = &b->out_type;
	} else {
		return GRAPH_NONE;
	}
	if (*type != WNN_F16)
		return GRAPH_NONE;
	struct wnn_desc d = g->values[*out].desc;
	d.type = WNN_F32;
	uint32_t nv = graph_add_value(g, &d, GRAPH_VALUE_INTERMEDIATE, diag);
	if (nv == GRAPH_NONE)
		return GRAPH_NONE;
	m = &g->nodes[*mi];
	/* the attrs pointers stay valid: graph_add_value grows the values, not the nodes */
	*in = wide;
	*out = nv;
	*type = WNN_F32;
	if (out_type)
		*out_type = WNN_F32;
	for (uint32_t j = 0; j < m->n_inputs; j++)
		if (m->inputs[j] == v)
			m->inputs[j] = wide;
	m->outputs[0] = nv;
	return nv;
}

enum webnn_status graph_float16_products_in_float32(struct graph_ir *g,
						    const struct graph_caps *caps,
						    struct wnn_diag *diag)
{
	if (!caps->float16_products_in_float32)
		return WEBNN_STATUS_OK;
	bool changed = false;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		struct graph_node *n = &g->nodes[i];
		uint32_t *ids[4], count;
		if (n->state != GRAPH_NODE_LIVE || !product_op(n->op) || n->qdq.used || n->qweight.used)
			continue;
		enum wnn_dtype *type = product_fields(n, ids, &count);
		if (*type != WNN_F16)
			continue;
		/* the inputs' casts go before the node, which moves on by one each time */
		for (uint32_t k = 0; k + 1 < count; k++) {
			uint32_t v = *ids[k];
			if (v == WNN_NO_OPERAND)
				continue;
			uint32_t f = insert_cast(g, i, v, WNN_F32, GRAPH_NONE, diag);
			if (f == GRAPH_NONE)
				return diag->status ? diag->status : WEBNN_STATUS_NO_MEMORY;
			n = &g->nodes[++i];
			product_fields(n, ids, &count);
			for (uint32_t j = 0; j < n->n_inputs; j++)
				if (n->inputs[j] == v)
					n->inputs[j] = f;
			for (uint32_t j = k; j + 1 < count; j++)
				if (*ids[j] == v)
					*ids[j] = f;
		}
		uint32_t out = *ids[count - 1];
		struct wnn_desc d = g->values[out].desc;
		d.type = WNN_F32;
		uint32_t wide = graph_add_value(g, &d, GRAPH_VALUE_INTERMEDIATE, diag);
		if (wide == GRAPH_NONE)
			return diag->status ? diag->status : WEBNN_STATUS_NO_MEMORY;
		n = &g->nodes[i];
		type = product_fields(n, ids, &count);
		*type = WNN_F32;
		*ids[count - 1] = wide;
		n->outputs[0] = wide;
		/* an epilogue after it (relu, clamp, a bias or residual add) stays in float32 with
		 * it, so the backend can still fuse it: relu and clamp commute with the rounding,
		 * an add rounds once instead of twice */
		uint32_t last = i;
		for (;;) {
			uint32_t mi = sole_reader(g, out, last + 1);
			if (mi == GRAPH_NONE)
				break;
			uint32_t next_out = g->nodes[mi].outputs[0], at = GRAPH_NONE;
			diag->status = WEBNN_STATUS_OK;
			uint32_t nv = widen_epilogue(g, i, &mi, out, wide, &at, diag);
			if (at != GRAPH_NONE && at <= i)
				i++;
			if (at != GRAPH_NONE && at <= last)
				last++;
			if (nv == GRAPH_NONE) {
				if (diag->status != WEBNN_STATUS_OK)
					return diag->status;
				break;
			}
			wide = nv, out = next_out, last = mi;
		}
		if (insert_cast(g, last + 1, wide, WNN_F16, out, diag) == GRAPH_NONE)
			return diag->status ? diag->status : WEBNN_STATUS_NO_MEMORY;
		changed = true;
	}
	if (changed)
		graph_recount(g);
	return WEBNN_STATUS_OK;
}
