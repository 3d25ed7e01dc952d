/* Constant folding: nodes that read only constants are evaluated at build time into constants the graph owns, within a size and a time budget. */
#include "daemon/graph/passes.h"

#include <stdlib.h>
#include <string.h>

static bool reads_only_constants(const struct graph_ir *g, const struct graph_node *n)
{
	if (n->n_inputs == 0)
		return false;
	for (uint32_t k = 0; k < n->n_inputs; k++)
		if (g->values[n->inputs[k]].kind != GRAPH_VALUE_CONSTANT)
			return false;
	return true;
}

/* Bytes of the node's outputs, or 0 when one is a graph output (it must still be written into
 * its tensor by a run) or has no valid size. */
static uint64_t foldable_bytes(const struct graph_ir *g, const struct graph_node *n)
{
	uint64_t total = 0;
	for (uint32_t k = 0; k < n->n_outputs; k++) {
		const struct graph_value *v = &g->values[n->outputs[k]];
		uint64_t bytes = 0;
		if (v->output_index != GRAPH_NONE || !wnn_desc_bytes(&v->desc, &bytes))
			return 0;
		total += bytes;
	}
	return total;
}

/* Evaluates node i into fresh host bytes. An evaluator that cannot compute it (or was
 * cancelled) leaves the node live (the backend then runs it, and reports any error at compile as
 * it always did); only running out of memory fails the pass. */
static enum webnn_status fold_node(struct graph_ir *g, uint32_t i, const struct graph_caps *caps,
				   struct wnn_diag *diag)
{
	struct graph_node *n = &g->nodes[i];
	const void **in = malloc(n->n_inputs * sizeof *in);
	void **out = calloc(n->n_outputs ? n->n_outputs : 1, sizeof *out);
	bool ok = in && out;
	for (uint32_t k = 0; ok && k < n->n_inputs; k++)
		in[k] = g->values[n->inputs[k]].data;
	for (uint32_t k = 0; ok && k < n->n_outputs; k++) {
		uint64_t bytes = 0;
		wnn_desc_bytes(&g->values[n->outputs[k]].desc, &bytes);
		/* aligned as tensors are: the fast kernels' vector loads may assume it */
		size_t size = (size_t)((bytes + 63) & ~(uint64_t)63);
		ok = (out[k] = aligned_alloc(64, size ? size : 64)) != NULL;
		if (ok)
			memset(out[k], 0, size ? size : 64);
	}
	struct wnn_diag quiet = { 0 };
	enum webnn_status st = ok ? caps->evaluate(caps, g, n, (const void *const *)in,
						  (void *const *)out, &quiet)
				  : WEBNN_STATUS_NO_MEMORY;
	bool owned = st == WEBNN_STATUS_OK;
	for (uint32_t k = 0; out && k < n->n_outputs; k++) {
		if (owned && !graph_own(g, out[k]))
			owned = false; /* graph_own freed it; the rest are freed below */
		else if (!owned)
			free(out[k]);
		if (!owned)
			continue;
		struct graph_value *v = &g->values[n->outputs[k]];
		v->kind = GRAPH_VALUE_CONSTANT;
		v->producer = GRAPH_NONE;
		v->data = out[k];
	}
	free(in);
	free(out);
	if (st == WEBNN_STATUS_OK && !owned)
		st = WEBNN_STATUS_NO_MEMORY;
	if (st == WEBNN_STATUS_NO_MEMORY)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
	if (st == WEBNN_STATUS_OK)
		n->state = GRAPH_NODE_FOLDED;
	return WEBNN_STATUS_OK;
}

enum webnn_status graph_fold_constants(struct graph_ir *g, const struct graph_caps *caps,
				       struct wnn_diag *diag)
{
	if (!caps->evaluate)
		return WEBNN_STATUS_OK;
	/* Nodes are in topological order, so a chain of constant operations folds in one sweep.
	 * A node past the size or time budget stays live, and so do the nodes that read it: the
	 * backend runs them at each dispatch, on its own (faster) kernels, within the dispatch's
	 * time budget, which counted them already. */
	uint64_t spent_ns = 0;
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		const struct graph_node *n = &g->nodes[i];
		uint64_t bytes = foldable_bytes(g, n);
		uint64_t room = caps->fold_max_bytes > g->folded_bytes
					? caps->fold_max_bytes - g->folded_bytes
					: 0;
		/* the evaluating kernels know products only as the client built them */
		if (!reads_only_constants(g, n) || bytes == 0 || bytes > room || n->qdq.used ||
		    n->qweight.used)
			continue;
		if (caps->fold_cost) {
			uint64_t ns = graph_node_cost(caps->fold_cost, g, n);
			if (ns > caps->fold_max_ns - spent_ns)
				continue;
			spent_ns += ns;
		}
		/* a build cancelled meanwhile stops evaluating (what is left stays live) */
		if (caps->cancel && atomic_load_explicit(caps->cancel, memory_order_relaxed))
			break;
		enum webnn_status st = fold_node(g, i, caps, diag);
		if (st != WEBNN_STATUS_OK)
			return st;
		if (g->nodes[i].state == GRAPH_NODE_FOLDED)
			g->folded_bytes += bytes;
	}
	return WEBNN_STATUS_OK;
}
