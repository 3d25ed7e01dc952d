/* Quantized matmul: a float32 matmul or gemm whose B is a block-wise dequantized constant reads the packed weights directly (graph_qweight). */
#include "daemon/graph/passes.h"

#include <stdlib.h>
#include <string.h>

/* The value's single live producer of operation op, or NULL. Every value on the way from the
 * constant to the matmul must be read once and bound to no output: the nodes that make it go
 * dead once the matmul reads the constant instead. */
static const struct graph_node *only_from(const struct graph_ir *g, uint32_t v, enum wnn_op op)
{
	const struct graph_value *val = &g->values[v];
	if (val->kind != GRAPH_VALUE_INTERMEDIATE || val->producer == GRAPH_NONE ||
	    val->n_uses != 1 || val->output_index != GRAPH_NONE)
		return NULL;
	const struct graph_node *p = &g->nodes[val->producer];
	return p->state == GRAPH_NODE_LIVE && p->op == op ? p : NULL;
}

/* v itself when it is a constant, or the constant a reshape (a byte copy) of it reads. */
static uint32_t constant_bytes(const struct graph_ir *g, uint32_t v)
{
	if (g->values[v].kind == GRAPH_VALUE_CONSTANT && g->values[v].data)
		return v;
	const struct graph_node *r = only_from(g, v, WNN_OP_RESHAPE);
	if (!r)
		return GRAPH_NONE;
	uint32_t in = r->attrs.reshape.input;
	return g->values[in].kind == GRAPH_VALUE_CONSTANT && g->values[in].data ? in : GRAPH_NONE;
}

static bool quantized_type(enum wnn_dtype t)
{
	return t == WNN_I4 || t == WNN_U4 || t == WNN_I8 || t == WNN_U8;
}

/* Matches B = [transpose] [slice of leading columns] [reshape [R, nb, bs] -> [R, nb * bs]]
 * dequantizeLinear(q, scale, zero) with q, scale and zero constants (or reshapes of them). */
static bool match(const struct graph_ir *g, uint32_t b, struct graph_qweight *w)
{
	memset(w, 0, sizeof(*w));
	const struct wnn_desc *bd = &g->values[b].desc;
	if (bd->rank != 2)
		return false;
	uint32_t v = b;
	const struct graph_node *p = only_from(g, v, WNN_OP_TRANSPOSE);
	if (p) {
		if (p->attrs.transpose.rank != 2 || p->attrs.transpose.perm[0] != 1)
			return false;
		w->transposed = true;
		v = p->attrs.transpose.input;
	}
	uint32_t used_cols = g->values[v].desc.dims[1], used_rows = g->values[v].desc.dims[0];
	if ((p = only_from(g, v, WNN_OP_SLICE))) {
		const struct wnn_slice_attrs *sl = &p->attrs.slice;
		const struct wnn_desc *in = &g->values[sl->input].desc;
		if (sl->rank != 2 || sl->starts[0] || sl->starts[1] || sl->strides[0] != 1 ||
		    sl->strides[1] != 1 || sl->out_dims[0] != in->dims[0])
			return false;
		v = sl->input;
	}
	bool flattened = false;
	if ((p = only_from(g, v, WNN_OP_RESHAPE))) {
		v = p->attrs.reshape.input;
		flattened = true;
	}
	if (!(p = only_from(g, v, WNN_OP_DEQUANTIZE_LINEAR)))
		return false;
	const struct wnn_quantize_attrs *qa = &p->attrs.quantize;
	if (qa->out_type != WNN_F32 || qa->scale_type != WNN_F32 || !quantized_type(qa->in_type) ||
	    qa->zp_type != qa->in_type)
		return false;
	w->q = constant_bytes(g, qa->input);
	w->scale = constant_bytes(g, qa->scale);
	w->zero = constant_bytes(g, qa->zero_point);
	if (w->q == GRAPH_NONE || w->scale == GRAPH_NONE || w->zero == GRAPH_NONE)
		return false;
	if (qa->rank == 2 && !flattened) {
		w->rows = qa->dims[0], w->cols = qa->dims[1];
		w->block_rows = qa->block[0], w->block_cols = qa->block[1];
	} else if (qa->rank == 3 && flattened && qa->block[1] == 1 && qa->block[2] == qa->dims[2]) {
		/* [R, nb, bs] with a scale [R / br, nb, 1]: blocks of bs along the flat row */
		w->rows = qa->dims[0], w->cols = qa->dims[1] * qa->dims[2];
		w->block_rows = qa->block[0], w->block_cols = qa->dims[2];
	} else {
		return false;
	}
	if (used_rows != w->rows || used_cols > w->cols)
		return false;
	w->used_cols = used_cols;
	w->used = true;
	return true;
}

void graph_fuse_quantized_matmul(struct graph_ir *g, const struct graph_caps *caps)
{
	if (!caps->quantized_matmul)
		return;
	bool any = false;
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		struct graph_node *n = &g->nodes[i];
		struct graph_qweight w;
		uint32_t *b;
		if (n->op == WNN_OP_MATMUL) {
			const struct wnn_matmul_attrs *a = &n->attrs.matmul;
			if (a->type != WNN_F32 || n->n_inputs != 2 || a->a_broadcast ||
			    !match(g, a->b, &w))
				continue;
			b = &n->attrs.matmul.b;
		} else if (n->op == WNN_OP_GEMM) {
			/* A read in place (not transposed); gemm's own transpose of B flips W's */
			const struct wnn_gemm_attrs *a = &n->attrs.gemm;
			if (a->type != WNN_F32 || a->a_transpose || !match(g, a->b, &w))
				continue;
			w.transposed = w.transposed != a->b_transpose;
			b = &n->attrs.gemm.b;
		} else {
			continue;
		}
		/* inputs: a, q, scale, zero, then the rest (gemm's C) */
		uint32_t rest = n->n_inputs - 2;
		uint32_t *in = realloc(n->inputs, (4 + rest) * sizeof(*in));
		if (!in)
			continue; /* the float path stays: always correct */
		memmove(in + 4, in + 2, rest * sizeof(*in));
		in[1] = w.q, in[2] = w.scale, in[3] = w.zero;
		n->inputs = in;
		n->n_inputs = 4 + rest;
		*b = w.q;
		n->qweight = w;
		any = true;
	}
	if (any) {
		/* the dequantizing nodes are read by nothing now */
		graph_recount(g);
		graph_remove_dead(g);
		graph_recount(g);
	}
}
