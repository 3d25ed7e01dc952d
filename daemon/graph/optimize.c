/* The pass pipeline every backend's graphs go through before compile. */
#include "daemon/graph/passes.h"

enum webnn_status graph_optimize(struct graph_ir *g, const struct graph_caps *caps,
				 struct wnn_diag *diag)
{
	(void)caps;
	if (g->optimized)
		return WEBNN_STATUS_OK;
	graph_recount(g);
	enum webnn_status st = graph_plan_memory(g, diag);
	if (st == WEBNN_STATUS_OK)
		g->optimized = true;
	return st;
}
