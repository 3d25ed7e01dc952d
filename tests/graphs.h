/* Backend test helpers: small backend_graphs, seeded data, running on a backend, tolerant compares. */
#ifndef TESTS_GRAPHS_H
#define TESTS_GRAPHS_H

#include "proto/webnn.pb-c.h"
#include "daemon/backend/backend.h"
#include "daemon/graph/import.h"

#define TG_MAX_OPERANDS 24
#define TG_MAX_OPS 16

/*
 * A graph built in place (no allocation except constant copies):
 *   struct tg_graph t; tg_init(&t);
 *   uint32_t x = tg_input(&t, WNN_F32, 2, (uint32_t[]){2, 3});
 *   Webnn__Ipc__ElementwiseUnary u = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
 *   u.input = x; u.output = tg_next(&t);
 *   Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;
 *   tg_set_op(&op, WNN_OP_RELU, &u);
 *   ASSERT(tg_op(&t, &op, &diag) == WEBNN_STATUS_OK);   (infers the output descriptors)
 *   const struct graph_ir *g = tg_finish(&t, &diag);  (validates the whole graph)
 *   ... tg_run(&backend_reference, NULL, g, inputs, outputs, &diag) ... tg_free(&t);
 * Operation messages (and their attrs) stay owned by the caller and must outlive the graph.
 * Operand ids are dense in creation order; an operation's outputs must use the next ids.
 */
struct tg_graph {
	Webnn__Ipc__GraphInfo info;
	Webnn__Ipc__Operand operand_msgs[TG_MAX_OPERANDS];
	Webnn__Ipc__Operand *operands[TG_MAX_OPERANDS];
	Webnn__Ipc__OperandDescriptor desc_msgs[TG_MAX_OPERANDS];
	Webnn__Ipc__Operation *ops[TG_MAX_OPS];
	Webnn__Ipc__NamedOperand named_msgs[2 * TG_MAX_OPERANDS];
	Webnn__Ipc__NamedOperand *in_named[TG_MAX_OPERANDS], *out_named[TG_MAX_OPERANDS];
	char names[TG_MAX_OPERANDS][16];
	struct wnn_desc descs[TG_MAX_OPERANDS];
	void *constant_copies[TG_MAX_OPERANDS];
	const void *constant_data[TG_MAX_OPERANDS];
	uint32_t input_ids[TG_MAX_OPERANDS], output_ids[TG_MAX_OPERANDS];
	size_t n_operands, n_ops, n_inputs, n_outputs;
	uint32_t last_outputs[WNN_MAX_OUTPUTS];
	int n_last_outputs;
	struct graph_source src;
	struct graph_ir *ir; /* imported by tg_finish, freed by tg_free */
};

void tg_init(struct tg_graph *t);
void tg_free(struct tg_graph *t);
/* The id the next operand (input, constant or operation output) will get. */
uint32_t tg_next(const struct tg_graph *t);
/* Graph input named "in<id>"; returns its operand id. */
uint32_t tg_input(struct tg_graph *t, enum wnn_dtype type, uint32_t rank, const uint32_t *dims);
/* Constant operand with a copy of data (its byte length from the descriptor). */
uint32_t tg_constant(struct tg_graph *t, enum wnn_dtype type, uint32_t rank,
		     const uint32_t *dims, const void *data);
/* Sets op->op, the attrs case and member for operator `which` (attrs: that family's message). */
void tg_set_op(Webnn__Ipc__Operation *op, enum wnn_op which, void *attrs);
/* Appends an operation; its output descriptors come from wnn_op_infer (the spec's shape rules),
 * so an invalid operation fails here with the validator's status and message. */
enum webnn_status tg_op(struct tg_graph *t, Webnn__Ipc__Operation *op, struct wnn_diag *diag);
/* Marks operand id as a graph output "out<id>" (in call order). */
void tg_output(struct tg_graph *t, uint32_t id);
/* Completes the graph (marking the last operation's outputs when no output was marked) and runs
 * wnn_graph_validate on it. NULL with diag set when the graph is invalid. */
const struct graph_ir *tg_finish(struct tg_graph *t, struct wnn_diag *diag);

/* Every operation message the builder below makes room for. */
union tg_msg {
	Webnn__Ipc__ElementwiseUnary unary;
	Webnn__Ipc__ElementwiseBinary binary;
	Webnn__Ipc__Clamp clamp;
	Webnn__Ipc__Conv2d conv;
	Webnn__Ipc__ConvTranspose2d convt;
	Webnn__Ipc__BatchNormalization bn;
	Webnn__Ipc__Pool2d pool;
	Webnn__Ipc__Concat concat;
	Webnn__Ipc__Transpose transpose;
	Webnn__Ipc__Gemm gemm;
	Webnn__Ipc__Matmul matmul;
	Webnn__Ipc__Reshape reshape;
	Webnn__Ipc__Reduce reduce;
	Webnn__Ipc__Resample2d resample;
	Webnn__Ipc__Softmax softmax;
};

/* A tg_graph that owns its operation messages: tb_unary, tb_binary and tb_clamp append one;
 * for other operations fill msgs[n] (ids[n] for operand lists, numbers[n] for numbers) and
 * call tb_add. seed starts at 1 for the seeded constants tests make. */
struct tg_builder {
	struct tg_graph t;
	Webnn__Ipc__Operation ops[TG_MAX_OPS];
	union tg_msg msgs[TG_MAX_OPS];
	uint32_t ids[TG_MAX_OPS][8];
	Webnn__Ipc__Number numbers[TG_MAX_OPS][2];
	int n;
	uint64_t seed;
	struct wnn_diag diag;
};
struct tg_builder *tb_new(void);
void tb_free(struct tg_builder *b);
/* Appends operation which, its message in msgs[n]; returns its output id (asserts success). */
uint32_t tb_add(struct tg_builder *b, enum wnn_op which);
uint32_t tb_unary(struct tg_builder *b, enum wnn_op which, uint32_t x);
uint32_t tb_binary(struct tg_builder *b, enum wnn_op which, uint32_t x, uint32_t y);
uint32_t tb_clamp(struct tg_builder *b, uint32_t x, double lo, double hi);

/* Runs the shared graph passes on g with what impl asks for (impl->caps on ctx): a graph must be
 * optimised once before any backend compiles it. */
enum webnn_status tg_optimize(struct graph_ir *g, const struct backend_impl *impl,
			      struct backend_context *ctx, struct wnn_diag *diag);

/* Runs g as built on a backend: when g was not optimised yet, a copy of it is, with impl's caps
 * (so one graph runs on several backends, each with its own passes). */
/* Creates context and tensors on a backend (be NULL: init and shut down impl here), writes
 * inputs[i] (bytes of graph input i), compiles, executes and reads every output into
 * outputs[i]. Everything it created is released before it returns. */
enum webnn_status tg_run(const struct backend_impl *impl, struct backend *be,
			 const struct graph_ir *g, const void *const *inputs,
			 void *const *outputs, struct wnn_diag *diag);

/* The cpu backend with `threads` threads (0: one per core) and every step on its team
 * (WEBNN_CPU_SERIAL_WORK=0, unless the environment sets it): for the tests that compare the
 * split of a step over threads, at sizes the serial threshold (daemon/backend/cpu/cpu.h
 * CPU_SERIAL_WORK) would run on one thread. */
struct backend *tg_cpu_team(int threads);

/* ---- data */

/* Deterministic values in [lo, hi] (integers: whole numbers, clamped to the type). */
void tg_random(void *dst, enum wnn_dtype t, uint64_t count, uint64_t seed, double lo, double hi);
/* Stores doubles as type t (float16 rounded to nearest even; integers truncated). */
void tg_pack(void *dst, enum wnn_dtype t, const double *v, uint64_t n);
/* Element i of typed data as a double. */
double tg_get(const void *src, enum wnn_dtype t, uint64_t i);
/* Bytes of a descriptor (0 when invalid). */
size_t tg_bytes(const struct wnn_desc *d);

/* Element-wise comparison: equal bits, or both NaN, or (floats) at most `ulp` units in the last
 * place apart (WPT's metric: float32 on sign-magnitude keys, float16 on raw bits), or
 * |a - e| <= atol + rtol * |e|. Integers compare exactly unless atol allows. On failure writes
 * the first bad index with both values into msg. */
bool tg_compare(const void *actual, const void *expected, enum wnn_dtype t, uint64_t n,
		double ulp, double atol, double rtol, char *msg, size_t len);
/* Same against expected values given as doubles (packed into t first). */
bool tg_compare_values(const void *actual, enum wnn_dtype t, const double *expected, uint64_t n,
		       double ulp, double atol, char *msg, size_t len);

#endif
