/* Concat in place: producers that write their result straight into a slice of a concat's output. */
#include "daemon/graph/passes.h"

#include <stdlib.h>

/* The output dimension a producer's kernel treats as channels (where a slice can start). */
static uint32_t channel_dim(const struct graph_ir *g, const struct graph_node *p, uint32_t v)
{
	if (p->epilogue.used)
		return p->epilogue.channel_dim;
	if (p->op == WNN_OP_CONV2D)
		return p->attrs.conv2d.nhwc ? 3 : 1;
	return g->values[v].desc.rank - 1;
}

/* Whether input v of concat node c can be written in place by its producer. */
static bool in_place(const struct graph_ir *g, const struct graph_caps *caps, uint32_t c,
		     uint32_t v, const uint32_t *reads)
{
	const struct graph_value *val = &g->values[v];
	if (val->kind != GRAPH_VALUE_INTERMEDIATE || val->producer == GRAPH_NONE ||
	    val->output_index != GRAPH_NONE || val->slice_of != GRAPH_NONE || reads[v] != 1)
		return false;
	uint32_t pi = val->producer;
	const struct graph_node *p = &g->nodes[pi];
	if (p->state == GRAPH_NODE_FUSED) {
		pi = p->fused_into;
		p = &g->nodes[pi];
	}
	uint32_t written = p->epilogue.used ? p->epilogue.output : p->outputs[0];
	if (p->state != GRAPH_NODE_LIVE || p->slice.used || p->chain.members || p->n_outputs != 1 ||
	    written != v || pi > c)
		return false;
	if (channel_dim(g, p, v) != g->nodes[c].attrs.concat.axis)
		return false;
	return caps->writes_concat_slice(p, &val->desc);
}

static void place_inputs(struct graph_ir *g, const struct graph_caps *caps, uint32_t c,
			 const uint32_t *reads)
{
	const struct graph_node *n = &g->nodes[c];
	const struct wnn_concat_attrs *a = &n->attrs.concat;
	uint32_t offset = 0;
	for (uint32_t q = 0; q < n->n_inputs; q++) {
		uint32_t v = n->inputs[q];
		uint32_t size = g->values[v].desc.dims[a->axis];
		if (in_place(g, caps, c, v, reads)) {
			struct graph_value *val = &g->values[v];
			struct graph_node *p = &g->nodes[val->producer];
			if (p->state == GRAPH_NODE_FUSED)
				p = &g->nodes[p->fused_into];
			p->slice = (struct graph_slice){ .used = true, .concat_output = a->output,
							 .axis = a->axis, .offset = offset,
							 .total = a->out_axis };
			val->slice_of = a->output;
		}
		offset += size;
	}
}

void graph_concat_in_place(struct graph_ir *g, const struct graph_caps *caps)
{
	if (!caps->writes_concat_slice)
		return;
	uint32_t *reads = calloc(g->n_values ? g->n_values : 1, sizeof *reads);
	if (!reads)
		return; /* writing no slice is always correct */
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		if (n->state == GRAPH_NODE_LIVE || n->state == GRAPH_NODE_FUSED)
			for (uint32_t k = 0; k < n->n_inputs; k++)
				reads[n->inputs[k]]++;
	}
	GRAPH_FOR_EACH_LIVE_NODE(g, c)
		if (g->nodes[c].op == WNN_OP_CONCAT)
			place_inputs(g, caps, c, reads);
	free(reads);
}
