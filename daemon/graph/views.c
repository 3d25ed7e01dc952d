/* Reshapes as views: a reshape's output (or a transpose's that moves only axes of size 1) shares its input's bytes, so no kernel copies them. */
#include "daemon/graph/passes.h"

/*
 * A reshape only renames the dimensions of row-major bytes, yet ran as a copy: exported
 * transformers reshape before and after every attention (49 of GPT-2's 50 reshapes copied).
 * Where nothing needs the output in storage of its own, the output becomes a view of the
 * input: the memory plan gives it no buffer and keeps the input's storage live for the view's
 * readers, and the backend binds both values to the same bytes. Left as copies: a reshape
 * whose output is a graph output (it is written into the caller's tensor), one written into a
 * concat's output or reading a value that lives inside one (a channel slice is not the input's
 * bytes in order), and nodes some fusion took.
 */

static bool has_own_bytes(const struct graph_value *v)
{
	return v->slice_of == GRAPH_NONE;
}

/*
 * A transpose that moves only axes of size 1 keeps the bytes in order: the layout pass writes
 * such ones around every convolution of one row or one channel ([1, C, 1, W] <-> [1, 1, W, C]
 * with C or W 1, [1, C, 1, 1] <-> [1, 1, 1, C]: 15 of Silero VAD v4's 99 steps, 2 of the
 * melspectrogram's). It becomes a reshape, and then a view like any other.
 */
static bool keeps_order(const struct wnn_transpose_attrs *t, const struct wnn_desc *in)
{
	int32_t last = -1;
	for (uint32_t i = 0; i < t->rank; i++) {
		uint32_t axis = t->perm[i];
		if (in->dims[axis] == 1)
			continue;
		if ((int32_t)axis < last)
			return false;
		last = (int32_t)axis;
	}
	return true;
}

static void transposes_as_reshapes(struct graph_ir *g)
{
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		struct graph_node *n = &g->nodes[i];
		if (n->op != WNN_OP_TRANSPOSE || n->slice.used || n->epilogue.used ||
		    n->chain.members)
			continue;
		const struct wnn_transpose_attrs *t = &n->attrs.transpose;
		const struct wnn_desc *in = &g->values[t->input].desc;
		uint64_t bytes = 0;
		if (!keeps_order(t, in) || !wnn_desc_bytes(in, &bytes))
			continue;
		struct wnn_reshape_attrs r = { .input = t->input, .output = t->output,
					       .type = t->type, .count = t->count, .bytes = bytes };
		n->op = WNN_OP_RESHAPE;
		n->attrs.reshape = r;
	}
}

void graph_view_reshapes(struct graph_ir *g, const struct graph_caps *caps)
{
	if (!caps->reshape_views)
		return;
	transposes_as_reshapes(g);
	/* in node order, so that a reshape of a view finds its input's storage already resolved */
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		struct graph_node *n = &g->nodes[i];
		if (n->op != WNN_OP_RESHAPE || n->slice.used || n->epilogue.used || n->chain.members)
			continue;
		uint32_t in = n->attrs.reshape.input, out = n->attrs.reshape.output;
		struct graph_value *ov = &g->values[out];
		const struct graph_value *iv = &g->values[in];
		if (ov->output_index != GRAPH_NONE || !has_own_bytes(ov) || !has_own_bytes(iv))
			continue;
		n->view = true;
		ov->view_of = iv->view_of != GRAPH_NONE ? iv->view_of : in;
	}
}
