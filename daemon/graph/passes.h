/* The passes every backend shares, run on an imported graph in graph_optimize's order. */
#ifndef DAEMON_GRAPH_PASSES_H
#define DAEMON_GRAPH_PASSES_H

#include "daemon/graph/graph.h"

/* Runs, in order: int8 products (caps->int8_products), quantized matmul (caps->quantized_matmul),
 * float16 products in float32 (caps->float16_products_in_float32), constant folding
 * (caps->evaluate), dead-code removal, scale/shift folding (caps->fold_scale_shift), pow
 * rewriting (caps->rewrite_pow), transposes absorbed into matmul's strides
 * (caps->matmul_strided_operands), layout assignment
 * (caps->assign_layout), fusion (caps->epilogues, caps->elementwise_chains), concat in place
 * (caps->writes_concat_slice), reshapes as views (caps->reshape_views), dead-code removal
 * again, and the memory plan. */
enum webnn_status graph_optimize(struct graph_ir *g, const struct graph_caps *caps,
				 struct wnn_diag *diag);

enum webnn_status graph_fold_constants(struct graph_ir *g, const struct graph_caps *caps,
				       struct wnn_diag *diag);
void graph_remove_dead(struct graph_ir *g);
/* caps->quantized_matmul: matmul(a, [transpose] [slice] [reshape] dequantizeLinear(constants))
 * keeps the weights quantized (graph_node.qweight); the dequantizing nodes go dead. Runs
 * before constant folding, which would otherwise make the float weights. */
void graph_fuse_quantized_matmul(struct graph_ir *g, const struct graph_caps *caps);
/* caps->int8_products: dequantizeLinear(x_q) -> conv2d/gemm/matmul(dequantizeLinear(int8
 * constant)) [-> relu/clamp -> quantizeLinear] becomes one node that reads the quantized
 * values (graph_node.qdq). Runs first: the quantized-matmul pass and constant folding would
 * otherwise take the weights. false only when out of memory (diag set). */
bool graph_fuse_qdq(struct graph_ir *g, const struct graph_caps *caps, struct wnn_diag *diag);
/* caps->float16_products_in_float32: each float16 conv2d, convTranspose2d, gemm and matmul
 * reads float32 casts of its inputs and writes a float32 result cast back to float16. Runs
 * before constant folding, which turns the weights' casts into float32 constants. */
enum webnn_status graph_float16_products_in_float32(struct graph_ir *g,
						    const struct graph_caps *caps,
						    struct wnn_diag *diag);
enum webnn_status graph_fold_scale_shift(struct graph_ir *g, const struct graph_caps *caps,
					 struct wnn_diag *diag);
enum webnn_status graph_rewrite_pow(struct graph_ir *g, const struct graph_caps *caps,
				    struct wnn_diag *diag);
void graph_absorb_transposes(struct graph_ir *g, const struct graph_caps *caps);
enum webnn_status graph_assign_layout(struct graph_ir *g, enum webnn_layout layout,
				      struct wnn_diag *diag);
void graph_fuse(struct graph_ir *g, const struct graph_caps *caps);
void graph_concat_in_place(struct graph_ir *g, const struct graph_caps *caps);
void graph_view_reshapes(struct graph_ir *g, const struct graph_caps *caps);
/* Whether a run materialises value v in a buffer of its own (see graph_value.buffer). */
bool graph_value_needs_buffer(const struct graph_ir *g, uint32_t v);
/* Liveness over the nodes' order (a fused node's reads count where its group runs); best-fit
 * reuse of buffers. */
enum webnn_status graph_plan_memory(struct graph_ir *g, struct wnn_diag *diag);

#endif
