/* The device-neutral graph IR every backend compiles: values, nodes with resolved attributes, pass results. */
#ifndef DAEMON_GRAPH_GRAPH_H
#define DAEMON_GRAPH_GRAPH_H

/*
 * A graph is imported once from a validated GraphInfo (graph_import) and then rewritten by the
 * passes every backend shares (graph_optimize: constant folding, dead-code removal, layout
 * assignment, fusion groups, concat in place, memory planning). Backends read it; they never
 * see protobuf and never re-derive what a pass decided.
 *
 * Values are the operands of the graph. Value ids start as the client's operand ids (so error
 * messages keep naming them) and passes append new values. Nodes are kept in a topological
 * order; a pass that removes a node marks it (state) instead of renumbering, so node indices
 * stay stable for the whole life of the graph.
 */

#include <stdatomic.h>

#include "proto/resolve.h"

#define GRAPH_NONE UINT32_MAX

enum graph_value_kind {
	GRAPH_VALUE_UNUSED = 0,    /* an operand id the graph never defined */
	GRAPH_VALUE_INPUT,         /* bound to a tensor at dispatch */
	GRAPH_VALUE_CONSTANT,      /* host bytes known at build time */
	GRAPH_VALUE_INTERMEDIATE,  /* produced by a node */
};

struct graph_value {
	struct wnn_desc desc;
	enum graph_value_kind kind;
	uint32_t producer;       /* INTERMEDIATE: node index; GRAPH_NONE otherwise */
	uint32_t n_uses;         /* input slots of live and fused nodes that read it */
	uint32_t input_index;    /* INPUT: position among the graph inputs; GRAPH_NONE otherwise */
	uint32_t output_index;   /* position of its first binding among the graph outputs, or
				    GRAPH_NONE; a value bound twice is written once and copied */
	const void *data;        /* CONSTANT: desc's byte length of host bytes (the daemon's, or
				    owned by the graph when a pass made them) */
	/* Set by the concat-in-place pass: the value is never materialised on its own; its
	 * producer writes it into channels [slice_offset, slice_offset + size) of slice_of along
	 * slice_axis (see struct graph_node.slice on the producer). */
	uint32_t slice_of;
	/* Set by graph_view_reshapes: a reshape's output that is its input's bytes read with
	 * another shape; view_of is the value that has the storage (the first value of a chain of
	 * such reshapes). GRAPH_NONE otherwise. */
	uint32_t view_of;
	/* Set by the memory plan (graph_plan_memory) for values that need device storage of their
	 * own during a run: intermediates that are not graph outputs, not fused away and not
	 * written into a concat. buffer indexes graph.plan.buffer_bytes; GRAPH_NONE otherwise. */
	uint32_t buffer;
};

enum graph_node_state {
	GRAPH_NODE_LIVE = 0,
	GRAPH_NODE_FOLDED,  /* evaluated at build time: its outputs became constants, or (a
			       per-channel scale/shift) its arithmetic moved into the constant
			       weights of the node before it, which now writes its output */
	GRAPH_NODE_DEAD,    /* nothing reads its outputs */
	GRAPH_NODE_FUSED,   /* computed by node fused_into (an epilogue or an elementwise chain) */
};

/* GRAPH_ACT_LEAKY_RELU only where the backend asked for it (graph_caps.epilogue_leaky_bound):
 * the OpenCL kernels take act as a number. */
enum graph_activation { GRAPH_ACT_NONE = 0, GRAPH_ACT_RELU, GRAPH_ACT_CLAMP, GRAPH_ACT_LEAKY_RELU };

/* What a conv2d / gemm / matmul node computes after its product when the fusion pass merged
 * the single-consumer chain that follows it: out = bound(act(product [+ own bias] + channel[c]
 * + residual)). Set on the head node (used); the absorbed add/relu/clamp nodes are FUSED. */
struct graph_epilogue {
	bool used;
	uint32_t output;        /* the value finally written (the last absorbed node's output) */
	uint32_t channel;       /* value added per channel (broadcast along channel_dim), or NONE */
	uint32_t residual;      /* value of the output's shape added elementwise, or NONE */
	uint32_t channel_dim;   /* the output dimension that is the channel axis */
	enum graph_activation act;
	float lo, hi;           /* GRAPH_ACT_CLAMP bounds */
	float alpha;            /* GRAPH_ACT_LEAKY_RELU slope below zero */
	/* A clamp after the activation (a clamp, or max/min by a constant scalar, that follows
	 * it: tf2onnx's leakyRelu then max(x, -0.4)); only with graph_caps.epilogue_leaky_bound. */
	bool bound;
	float bound_lo, bound_hi;
};

/* An elementwise chain: the head node and the FUSED nodes after it (unary, clamp, binary with
 * a second operand that is not produced inside the chain), each the single consumer of the
 * previous one's output and of the same shape. A backend that accepts chains evaluates them in
 * one kernel; the last member's output is the only value materialised. */
struct graph_chain {
	uint32_t *members;      /* node indices in order, head first; NULL when not a chain head */
	uint32_t n_members;
};

/* A float32 softmax over its last axis that first scales its input by a constant and adds a
 * mask, as attention computes its scores (graph_fuse with graph_caps.softmax_prologue): the
 * mul or div by the constant (producer of scaled) and the add (producer of the softmax's input,
 * when mask is set) are FUSED into the softmax, which reads input and mask instead. */
struct graph_softmax_prologue {
	bool used;
	uint32_t input;  /* the value before scaling (or before the mask add when unscaled) */
	uint32_t scaled; /* the scaling node's output, or GRAPH_NONE */
	uint32_t mask;   /* the value added after scaling (any broadcast), or GRAPH_NONE */
	float scale;     /* the constant: input * scale, or input / scale when divide */
	bool divide;
};

/* Set on a producer whose output value is written straight into its concat's output. */
struct graph_slice {
	bool used;
	uint32_t concat_output; /* the concat's output value */
	uint32_t axis;          /* the concat axis (the channel dimension for the producer) */
	uint32_t offset;        /* first index along axis */
	uint32_t total;         /* the concat output's size along axis */
};

/* A matmul whose B is a block-wise dequantized constant (graph_fuse_quantized_matmul): the
 * quantized weights stay packed and the kernel dequantizes them block by block. The constant
 * W (value q, int4/uint4/int8/uint8) is viewed as rows x cols row-major; scale (float32) and
 * zero (q's type) are [rows / block_rows, cols / block_cols] row-major. Only the first
 * used_cols columns of W are read. B[k][n] = W[n][k] when transposed (W is N x K, the
 * MatMulNBits layout), else W[k][n]. The node's inputs are then a, q, scale, zero. */
struct graph_qweight {
	bool used;
	uint32_t q, scale, zero;
	uint32_t rows, cols, used_cols;
	uint32_t block_rows, block_cols;
	bool transposed;
};

/* An int8 product (graph_fuse_qdq): a conv2d, gemm or matmul whose activation operand is
 * dequantizeLinear(x_q, one scale, one zero point) of uint8/int8 and whose weights are
 * dequantizeLinear(an int8 constant, one scale or one per output channel, zero point 0) reads
 * x_q and the int8 constant themselves (the node's input and filter/b; its type stays
 * float32, the arithmetic's). With `zero` the x_q zero point, each output channel c computes
 *   p = scale[c] * (sum (x_q - zero) * w_q + bias[c])
 * where scale (a float32 constant [channels]) is x_scale * w_scale[c] (times gemm's alpha),
 * divided by y_scale when the output is quantized, and bias (a float32 constant [channels],
 * or GRAPH_NONE) is in the sum's units: the float bias / (x_scale * w_scale[c]), from
 * conv2d's bias, gemm's beta * C, and an add of one value per channel that followed the
 * product (absorbed). bias is also the node's bias operand (conv2d's bias, gemm's C, a third
 * input of matmul). A quantized output (the output value is uint8/int8: the node absorbed
 * the quantizeLinear after it, and a relu or clamp before that) is
 * saturate(round_half_even(act(p)) + y_zero), act's bounds in p's units; a float32 output is
 * p, with any epilogue the fusion pass adds after. */
struct graph_qdq {
	bool used;
	int32_t zero, y_zero;
	uint32_t scale, bias;
	enum graph_activation act; /* NONE, RELU or CLAMP */
	float lo, hi;
};

struct graph_node {
	enum wnn_op op;
	union wnn_attrs attrs;   /* resolved once at import; operand ids are value ids */
	uint32_t *inputs;        /* values read, in wnn_op_inputs order (absent optional operands
				    are not listed) */
	uint32_t n_inputs;
	uint32_t *outputs;       /* values written, in wnn_op_outputs order */
	uint32_t n_outputs;
	char *label;             /* the client's operator label, or NULL */
	enum graph_node_state state;
	uint32_t fused_into;     /* FUSED: the node that computes it; GRAPH_NONE otherwise */
	struct graph_epilogue epilogue;
	struct graph_chain chain;
	struct graph_slice slice;
	struct graph_qweight qweight;
	struct graph_softmax_prologue softmax_pre;
	struct graph_qdq qdq;
	/* A live reshape whose output is a view of its input (graph_view_reshapes): it stays in
	 * the graph for liveness (it reads its input where it stands) but no kernel runs it. */
	bool view;
};

struct graph_ir;

/* What a backend accepts from the shared passes (backend_impl.caps). Zero means "none of it":
 * the graph is then run as the client built it. */
struct graph_caps {
	/* Rewrite conv2d/convTranspose2d/pool2d to this input layout, with the fewest transposes. */
	bool assign_layout;
	enum webnn_layout layout;
	/* conv2d/gemm/matmul epilogues: add of a channel vector or a same-shape tensor, then
	 * relu or clamp. */
	bool epilogues;
	/* epilogues may also end in leakyRelu, and in one clamp after the activation
	 * (graph_epilogue.bound) */
	bool epilogue_leaky_bound;
	/* elementwise chains evaluated in one kernel */
	bool elementwise_chains;
	/* Which chainable nodes the backend's chain kernel runs (NULL: all of them). */
	bool (*joins_chain)(const struct graph_ir *g, const struct graph_node *n);
	/* batchNormalization and constant per-channel mul/add/sub after a float32 conv2d,
	 * convTranspose2d, gemm or matmul with constant weights folded into those weights and
	 * bias (graph_fold_scale_shift) */
	bool fold_scale_shift;
	/* float16 conv2d, convTranspose2d, gemm and matmul run in float32 between casts
	 * (graph_float16_products_in_float32): the backend has no fast float16 ones */
	bool float16_products_in_float32;
	/* pow by a constant small integer exponent rewritten as mul / reciprocal
	 * (graph_rewrite_pow) */
	bool rewrite_pow;
	/* matmul reads an operand through the strides of a transpose of its last two axes
	 * instead of the transpose's copy (graph_absorb_transposes; wnn_matmul_attrs strides) */
	bool matmul_strided_operands;
	/* float32 matmul of a block-wise dequantized constant run on the packed weights
	 * (graph_fuse_quantized_matmul, struct graph_qweight) */
	bool quantized_matmul;
	/* float32 softmax over the last axis takes a constant scale and a mask add before it
	 * (graph_softmax_prologue) */
	bool softmax_prologue;
	/* int8 QDQ conv2d/gemm/matmul run on the quantized values (graph_fuse_qdq, struct
	 * graph_qdq) */
	bool int8_products;
	/* reshapes whose output can share the input's bytes run no kernel (graph_view_reshapes;
	 * graph_value.view_of, graph_node.view) */
	bool reshape_views;
	/* Producers whose output can be written into a slice of a concat's output along the
	 * channel axis. NULL: no concat in place. */
	bool (*writes_concat_slice)(const struct graph_node *n, const struct wnn_desc *out);
	/* Evaluates node n of g on host memory for constant folding (inputs[i]: bytes of
	 * n->inputs[i]; outputs[i]: zeroed, 64-byte aligned bytes of n->outputs[i]); stops early
	 * once *cancel is set. evaluate_arg is the caller's. NULL: no folding. */
	enum webnn_status (*evaluate)(const struct graph_caps *caps, const struct graph_ir *g,
				      const struct graph_node *n, const void *const *inputs,
				      void *const *outputs, struct wnn_diag *diag);
	void *evaluate_arg;
	/* Folding stops when the constants it would create pass this many bytes in all. */
	uint64_t fold_max_bytes;
	/* What evaluate takes per unit of work, and the estimated nanoseconds folding may spend
	 * in all: a node that would pass them stays live (it runs at each dispatch instead).
	 * NULL model: no time budget. */
	const struct graph_cost_model *fold_cost;
	uint64_t fold_max_ns;
	/* Folding also stops once this is set (the build was cancelled); NULL: never. */
	const atomic_bool *cancel;
};

/* The memory plan: device buffers for the intermediates, reused once their values are dead. */
struct graph_plan {
	uint64_t *buffer_bytes;  /* size of each buffer */
	uint32_t n_buffers;
	uint64_t peak_bytes;     /* sum of buffer_bytes: what a run needs besides its tensors */
	uint64_t unplanned_bytes; /* sum of the intermediates' sizes without reuse (for reports) */
};

struct graph_ir {
	struct graph_value *values;
	uint32_t n_values, cap_values;
	struct graph_node *nodes;     /* topological order */
	uint32_t n_nodes, cap_nodes;
	uint32_t *inputs;             /* value of each graph input, in binding order */
	uint32_t n_inputs;
	uint32_t *outputs;            /* value of each graph output, in binding order */
	uint32_t n_outputs;
	uint32_t n_imported_nodes;    /* operations as the client built them */
	struct graph_plan plan;
	bool optimized;               /* graph_optimize ran: backends compile only such graphs */
	uint64_t folded_bytes;        /* host bytes of constants the passes made */
	void **owned;                 /* allocations the graph frees (constants made by passes) */
	uint32_t n_owned, cap_owned;
	/* Set by the daemon for a compile (NULL: none): a backend that copies constants into
	 * layouts of its own (backend_impl.prepared_hold) says, from its build threads, that the
	 * step of node `node` is built and reads the constant bytes starting at src only through
	 * such a copy, once per step and src; the daemon may then give them back. */
	void (*on_prepared)(void *arg, uint32_t node, const void *src);
	void *on_prepared_arg;
};

#define GRAPH_FOR_EACH_LIVE_NODE(g, i)                                                          \
	for (uint32_t i = 0; i < (g)->n_nodes; i++)                                             \
		if ((g)->nodes[i].state == GRAPH_NODE_LIVE)

void graph_destroy(struct graph_ir *g);

/* Appends a value (returns its id) or a node (returns its index); GRAPH_NONE when out of
 * memory (diag set). A new node copies inputs/outputs; its attrs are the caller's. */
uint32_t graph_add_value(struct graph_ir *g, const struct wnn_desc *desc, enum graph_value_kind kind,
			 struct wnn_diag *diag);
uint32_t graph_add_node(struct graph_ir *g, enum wnn_op op, const union wnn_attrs *attrs,
			const uint32_t *inputs, uint32_t n_inputs, const uint32_t *outputs,
			uint32_t n_outputs, struct wnn_diag *diag);
/* A deep copy (nodes, values, plan, constants the graph owns; borrowed constant bytes stay
 * borrowed), e.g. to optimise one import for two backends. NULL when out of memory. */
struct graph_ir *graph_clone(const struct graph_ir *g);
/* Attributes that list operands (concat inputs, split outputs) point at the node's own arrays:
 * call after a node's arrays were (re)allocated. */
void graph_node_repoint(struct graph_node *n);
/* Takes ownership of p (freed with the graph); false when out of memory (p is freed). */
bool graph_own(struct graph_ir *g, void *p);
/* Recounts n_uses and producers from the live and fused nodes. */
void graph_recount(struct graph_ir *g);
/* Storage live from step `first` to step `last` (inclusive), for buffer reuse. */
struct graph_live_range {
	uint32_t id;          /* the caller's (value, slot); ties in first use go by id */
	uint32_t first, last;
	uint64_t bytes;
	uint32_t buffer;      /* set by graph_assign_buffers */
};
/* Best-fit reuse, shared by the memory plan and backends' own scratch: sorts r by first use and
 * gives each range a buffer that no range live at the same time uses (a buffer read at a step
 * is not free for that step's writes). Returns the n_buffers sizes (caller frees), NULL when
 * out of memory. */
uint64_t *graph_assign_buffers(struct graph_live_range *r, uint32_t n, uint32_t *n_buffers);

/* How many nodes are in each state (what the passes made of the graph, for reports). */
struct graph_counts {
	uint32_t imported, live, folded, fused, dead;
};
void graph_count(const struct graph_ir *g, struct graph_counts *c);
/* The work of one node (cost.c): the elements it reads and writes, and the family's work beyond
 * that (2 FLOP per multiply-add for linalg, conv and rnn, window elements for pools). Saturates
 * at UINT64_MAX instead of overflowing. */
struct graph_work {
	uint64_t elements;
	uint64_t ops;
};
void graph_node_work(const struct graph_ir *g, const struct graph_node *n, struct graph_work *w);

/* What one unit of work takes on some kernels, in picoseconds, per ops.def family: the
 * calibration (cost.c; measured by bench_cost). */
struct graph_unit_cost {
	uint32_t elem_ps; /* per element read or written */
	uint32_t op_ps;   /* per unit of the family's own work (graph_work.ops) */
};
struct graph_cost_model {
	const char *name;
	struct graph_unit_cost ps[WNN_FAMILY_COUNT];
};
/* The cpu backend's oneDNN and C kernels; the reference kernels (also what folding runs). */
extern const struct graph_cost_model graph_cost_fast;
extern const struct graph_cost_model graph_cost_reference;

/* The estimated time of one run on the kernels m describes, in nanoseconds. Counts live and
 * fused nodes, so on a freshly imported graph it also counts what constant folding would
 * evaluate at build. Saturates at UINT64_MAX instead of overflowing. */
struct graph_cost {
	uint64_t ns;            /* the whole graph */
	uint32_t largest;       /* node index of the costliest node; GRAPH_NONE when none */
	uint64_t largest_ns;
};
void graph_estimate_cost(const struct graph_cost_model *m, const struct graph_ir *g,
			 struct graph_cost *c);
/* The estimate of one node (whatever its state), in nanoseconds. */
uint64_t graph_node_cost(const struct graph_cost_model *m, const struct graph_ir *g,
			 const struct graph_node *n);

/* The heap the IR itself holds (every array at its capacity, per-node arrays and labels, in
 * glibc chunks), not counting the constants the passes made (folded_bytes) nor the memory
 * plan's buffers (plan.peak_bytes, which a backend allocates): what the graph's charge counts
 * for the IR once it is compiled. */
uint64_t graph_ir_bytes(const struct graph_ir *g);
/* A bound of graph_ir_bytes for a graph of n_operations and n_operands as imported from a
 * request that takes msg_bytes unpacked, charged until the compile measured the real size. */
uint64_t graph_ir_bytes_bound(uint64_t n_operations, uint64_t n_operands, uint64_t msg_bytes);

/* "conv2d" or "conv2d 'label'": how messages name a node. */
const char *graph_node_name(const struct graph_node *n, char *buf, size_t len);

#endif
