/* The pass pipeline every backend's graphs go through before compile. */
#include "daemon/graph/passes.h"

enum webnn_status graph_optimize(struct graph_ir *g, const struct graph_caps *caps,
				 struct wnn_diag *diag)
{
	if (g->optimized)
		return WEBNN_STATUS_OK;
	graph_recount(g);
	if (!graph_fuse_qdq(g, caps, diag))
		return diag->status ? diag->status : WEBNN_STATUS_NO_MEMORY;
	graph_fuse_quantized_matmul(g, caps);
	enum webnn_status st = graph_float16_products_in_float32(g, caps, diag);
	if (st == WEBNN_STATUS_OK)
		st = graph_fold_constants(g, caps, diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	graph_remove_dead(g);
	graph_recount(g);
	if ((st = graph_fold_scale_shift(g, caps, diag)) != WEBNN_STATUS_OK ||
	    (st = graph_rewrite_pow(g, caps, diag)) != WEBNN_STATUS_OK)
		return st;
	graph_absorb_transposes(g, caps);
	if (caps->assign_layout && (st = graph_assign_layout(g, caps->layout, diag)) != WEBNN_STATUS_OK)
		return st;
	graph_fuse(g, caps);
	graph_concat_in_place(g, caps);
	graph_view_reshapes(g, caps);
	graph_remove_dead(g);
	graph_recount(g);
	st = graph_plan_memory(g, diag);
	if (st == WEBNN_STATUS_OK)
		g->optimized = true;
	return st;
}
