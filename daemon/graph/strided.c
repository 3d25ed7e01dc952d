/* Operands read in place through strides: a transpose of a matrix's last two axes feeding matmul becomes matmul's view of the transpose's source. */
#include "daemon/graph/passes.h"

/*
 * Exported transformers write k.transpose(-2, -1) before the attention scores' matmul and tie
 * the output layer to the embedding as matmul(x, transpose(E)); a copy runs for every
 * inference, and a constant E above the folding limit (GPT-2's is 154 MB) is transposed anew
 * each time. A matmul reads either operand at any stride, so it takes the transpose's source
 * with the last two strides swapped (wnn_matmul_attrs.a_stride_m ...); the transpose is left to
 * dead-code removal when nothing else reads it. A constant source is then reordered once at
 * build like any constant weight.
 */

/* Whether node t transposes exactly the last two axes of a rank >= 2 value. */
static bool swaps_last_two(const struct graph_node *t)
{
	const struct wnn_transpose_attrs *a = &t->attrs.transpose;
	if (t->op != WNN_OP_TRANSPOSE || a->rank < 2)
		return false;
	for (uint32_t d = 0; d + 2 < a->rank; d++)
		if (a->perm[d] != d)
			return false;
	return a->perm[a->rank - 2] == a->rank - 1 && a->perm[a->rank - 1] == a->rank - 2;
}

/* The transpose's source when value v is such a transpose's live output; else GRAPH_NONE. */
static uint32_t transposed_source(const struct graph_ir *g, uint32_t v)
{
	const struct graph_value *val = &g->values[v];
	if (val->kind != GRAPH_VALUE_INTERMEDIATE || val->producer == GRAPH_NONE)
		return GRAPH_NONE;
	const struct graph_node *t = &g->nodes[val->producer];
	if (t->state != GRAPH_NODE_LIVE || !swaps_last_two(t))
		return GRAPH_NONE;
	return t->attrs.transpose.input;
}

static void replace_input(struct graph_node *n, uint32_t old, uint32_t v)
{
	for (uint32_t k = 0; k < n->n_inputs; k++)
		if (n->inputs[k] == old)
			n->inputs[k] = v;
}

void graph_absorb_transposes(struct graph_ir *g, const struct graph_caps *caps)
{
	if (!caps->matmul_strided_operands)
		return;
	bool changed = false;
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		struct graph_node *n = &g->nodes[i];
		/* a quantized matmul's kernel reads a dense A and packed weights, not strides */
		if (n->op != WNN_OP_MATMUL || n->qweight.used || n->qdq.used)
			continue;
		struct wnn_matmul_attrs *a = &n->attrs.matmul;
		/* matmul(x, x) reads one value twice: both slots move together or neither */
		if (a->a == a->b)
			continue;
		uint32_t src = transposed_source(g, a->a);
		if (src != GRAPH_NONE && a->a_stride_k == 1) {
			replace_input(n, a->a, src);
			a->a = src;
			a->a_stride_m = 1, a->a_stride_k = a->m;
			changed = true;
		}
		src = transposed_source(g, a->b);
		if (src != GRAPH_NONE && a->b_stride_n == 1) {
			replace_input(n, a->b, src);
			a->b = src;
			a->b_stride_k = 1, a->b_stride_n = a->k;
			changed = true;
		}
	}
	if (changed) {
		graph_recount(g);
		graph_remove_dead(g);
		graph_recount(g);
	}
}
