/* Dead-code removal: live nodes whose outputs nothing reads and no graph output binds. */
#include "daemon/graph/passes.h"

#include <stdlib.h>

void graph_remove_dead(struct graph_ir *g)
{
	bool *read = calloc(g->n_values ? g->n_values : 1, sizeof *read);
	if (!read)
		return; /* keeping every node is always correct */
	for (uint32_t k = 0; k < g->n_outputs; k++)
		read[g->outputs[k]] = true;
	/* Backwards: a node's readers come after it, so whether its outputs are read is known. */
	for (uint32_t i = g->n_nodes; i-- > 0;) {
		struct graph_node *n = &g->nodes[i];
		if (n->state != GRAPH_NODE_LIVE && n->state != GRAPH_NODE_FUSED)
			continue;
		bool needed = n->state == GRAPH_NODE_FUSED; /* its group's head decides */
		for (uint32_t k = 0; !needed && k < n->n_outputs; k++)
			needed = read[n->outputs[k]];
		if (!needed && !n->epilogue.used && !n->chain.members) {
			n->state = GRAPH_NODE_DEAD;
			continue;
		}
		for (uint32_t k = 0; k < n->n_inputs; k++)
			read[n->inputs[k]] = true;
	}
	free(read);
}
