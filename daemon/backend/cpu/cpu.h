/* Private to the cpu backend (oneDNN primitives + fast C kernels): plan steps, the oneDNN layer, each family's entry point. */
#ifndef DAEMON_BACKEND_CPU_CPU_H
#define DAEMON_BACKEND_CPU_CPU_H

#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>

#include "daemon/backend/backend.h"

/*
 * A plan is one step per live node of the optimised graph, run in order on host memory.
 * bufs[v] is where value v lives during a run (graph inputs and outputs in the caller's
 * tensors, constants in their data, intermediates in the memory plan's buffers). Values are
 * dense row-major in their own descriptor's shape: the layout pass already put conv2d/pool2d
 * in NHWC, which is what oneDNN's fastest CPU kernels read (its blocked-channel formats
 * come from NHWC without a transpose).
 *
 * A node with an epilogue (conv2d/convTranspose2d... gemm/matmul, graph_epilogue) writes its
 * final result to bufs[n->epilogue.output]; bufs[n->outputs[0]] aliases that same storage,
 * so a kernel that cannot fuse may write its product there and let cpu_epilogue_apply finish.
 */

/* What a family's prepare function may use at build: the graph, oneDNN, the thread count. */
struct cpu_build {
	const struct graph_ir *g;
	const struct wnn_desc *descs; /* per value: g->values[v].desc, as the reference kernels
					 take them */
	dnnl_engine_t engine;
	dnnl_stream_t stream;   /* for one-time work at build (weight reorders) */
	int threads;            /* threads a run of the step uses (C kernels split their outer
				   loops over it): 1 for a serial step */
	uint64_t *scratch_bytes; /* the plan's shared oneDNN scratchpad: the largest any step asks */
	/* oneDNN primitives the plan's steps run (for its charge). Steps are built on several
	 * threads. */
	atomic_uint *primitives;
	/* memory the steps' oneDNN memories allocate (reordered weights): the plan's, for its
	 * charge (backend_impl.plan_bytes) */
	_Atomic uint64_t *owned_bytes;
	struct cpu_binds *binds;  /* the plan's (NULL: not recorded) */
	bool winograd;          /* large 3x3 convolutions may use Winograd (WEBNN_CPU_NO_WINOGRAD
				   unset at init) */
	const atomic_bool *cancel; /* the context's: reference fallback kernels poll it */
	uint64_t chunk_ns;      /* estimated time per chunk of a split step (CPU_CHUNK_NS) */
	uint64_t serial_work;   /* a step of less work runs on one thread (CPU_SERIAL_WORK) */
	/* primitives made for the whole team (the others, of serial steps, for one thread): a
	 * plan with any runs only on the compute thread (never on the quick path) */
	atomic_uint *team_primitives;
};

/* Work (graph_node_work: elements plus FLOP) below which a linear-algebra node skips oneDNN
 * for the reference kernel: about what quick_max_ns lets run on the loop thread. */
#define CPU_TINY_WORK 32768u

/*
 * A step whose work (graph_node_work: elements plus FLOP) is under CPU_SERIAL_WORK runs on the
 * thread that runs the plan alone, without waking the OpenMP team: its C kernels get one
 * thread, and its oneDNN primitives are created and executed with omp_get_max_threads() at 1
 * (oneDNN's OpenMP runtime reads it both when a primitive is made, for the kernels that fix
 * their thread count then, and at execution, for the others such as its sgemm). A plan whose
 * primitives are all such may run on the quick path.
 *
 * Measured with make bench (tests/bench_small_steps.c, "serial threshold"): one step alone in
 * its dispatch through the compute thread, with every step on one thread
 * (WEBNN_CPU_SERIAL_WORK=10^15) against every step on the team of two
 * (WEBNN_CPU_SERIAL_WORK=0), 11 interleaved rounds of 40 dispatches, 2-core AMD EPYC,
 * GOMP_SPINCOUNT=1000 as webnnd sets it, three runs at loads 5, 12 and 6.5 (one thread's time
 * / the team's, per run):
 *   add 128K elements (work 393K)       0.77 0.66 1.15
 *   add 256K (786K)                     0.83 0.77 0.94
 *   add 512K (1.6M)                     0.88 0.75 1.38
 *   add 1M (3.1M)                          - 0.85 0.85
 *   matmul [1,1536]x[1536,128] (591K)   0.75 0.67 0.78   (a wake-word classifier's layer)
 *   matmul [1,3072]x[3072,128] (1.2M)      - 0.70 0.90
 *   matmul [1,1024]x[1024,512] (1.6M)   0.82 0.69 0.86
 *   matmul [1,2048]x[2048,1024] (6.3M)  0.86 0.87 0.92
 * Below work ~50K the two are even (the kernels' own thresholds keep both on one thread).
 * Waking and joining the team costs 30-40 us there. The matmuls (memory-bound [1, K] products)
 * won on one thread in every run; the adds in at least two of three, by a median of 12-23% up
 * to work 1.6M. So 2^21, above the last add where one
 * thread's median won, not at the top of the matmuls' range: an idle machine wakes the team
 * faster than this loaded one.
 *
 * Convolutions and matrix products (the conv and linalg families) stay on one thread up to
 * CPU_SERIAL_PRODUCT_FACTOR times the threshold, measured on whole models (make bench, 2-core
 * AMD EPYC shared with other jobs, load 4.3-5.5, pairs of runs with every step's threshold at
 * 2^21 then 2^23, ratio to onnxruntime at its best): the openWakeWord speech embedding (20
 * convolutions of work 4-25M, ~1.2 ms) 1.40 -> 1.14 and 2.16 -> 1.03 (every step on one thread:
 * 1.12, 0.96); SqueezeNet 1.04 -> 1.02 and 1.03 -> 0.57; the MobileNetV2 body 1.32 -> 1.24 and
 * 1.26 -> 0.84. A product of work 8M takes 0.1-0.2 ms on one thread; the team's wake-up, join
 * and wait for its slowest member cost as much as its second thread saves (the melspectrogram's
 * framed DFT products, [8,512]x[512,257], work 2.1M: 0.061-0.110 ms on the team, 0.020 ms on
 * one thread at load 4-7). Memory-bound elementwise steps keep 2^21: in a later run (load 3.8)
 * adds of 256K-1M elements ran 1.2-1.7x faster on the team.
 */
#define CPU_SERIAL_WORK 2097152u /* WEBNN_CPU_SERIAL_WORK overrides it (0: every step on the
				    team; the bench and tests compare both paths with it) */
#define CPU_SERIAL_PRODUCT_FACTOR 4u
/* A product whose B is larger than this runs on the team whatever its work: streaming weights
 * that do not stay in cache is bound by memory bandwidth, which one core does not have alone
 * (GPT-2-small decoding, one row by [768, 768] to [3072, 768] weights: 27.8 ms a token with
 * them on one thread, 23.7 on the team, quiet machine, bench_decode). */
#define CPU_SERIAL_CACHED_B_BYTES (1u << 20)

/* What a run gives every step. */
struct cpu_exec {
	dnnl_stream_t stream;
	int threads;
	void *scratch;           /* the plan's shared scratchpad (steps run one at a time) */
	const atomic_bool *cancel; /* the context's: a step run in chunks stops between them */
	const char *work;        /* what a cancelled step reports ("dispatch", "build") */
};

/*
 * Cancellation inside a step. A oneDNN primitive cannot be interrupted once it runs, so a step
 * estimated (graph_cost_fast) at several chunk targets is built as chunks, one primitive per
 * slice of its output (gemm/matmul: rows, tiles of rows x columns or the outermost batch dim,
 * cpu_linalg.c cpu_mm_split; conv2d: an image's piece of output rows, convTranspose2d: an
 * image, cpu_conv.c), run one after another with a cancel check between them: a closed
 * context's step then stops within about one chunk instead of running for seconds. A gemm or
 * matmul chunk is CPU_CHUNK_NS of estimate, 5 GFLOP (daemon/graph/cost.c prices a multiply-add
 * at 15 ps): about 25 ms on two idle cores here (2048^3, 17 GFLOP, ran in 87 ms), and a product
 * of two targets or more is split (CPU_MM_CHUNK_MIN), so no oneDNN product runs longer than
 * about two targets unchecked. Chunks of 2048^3 to 4096^3 took 0.97-1.01x the wall time and
 * 0.97-1.03x the CPU of the whole step with GOMP_SPINCOUNT=1000, as the workers run
 * (bench_cpu_chunks, load 3-3.7; cpu_mm_split says which shape costs what).
 */
#define CPU_CHUNK_NS 75000000ull /* estimated time per gemm/matmul chunk; WEBNN_CPU_CHUNK_NS
				    overrides it (tests split small steps with it) */
#define CPU_CHUNK_MIN 4u          /* fewer chunks than this: a convolution is not split */
#define CPU_MM_CHUNK_MIN 2u       /* and a gemm or matmul */
/* A convolution's chunk target: its estimate is about 3x its CPU time, and a chunk costs no
 * weight repacking, so its chunks are made about as long in real time as a matmul's were at
 * 250 ms. WEBNN_CPU_CHUNK_NS sets it to that over CPU_CONV_CHUNK_DIV. */
#define CPU_CONV_CHUNK_DIV 2u
#define CPU_CONV_CHUNK_NS 125000000ull
/* Chunks for a node (1: run whole): its estimate over b->chunk_ns, capped at max_chunks. */
uint32_t cpu_chunks_for(const struct cpu_build *b, const struct graph_node *n,
			uint64_t max_chunks);

/*
 * Cancellation inside a C kernel: its threads look at the cancel flag once per block of work (a
 * block of CPU_CANCEL_BLOCK elements, a row, an output element of a long window) and skip the
 * blocks left once it is set; the step then returns cpu_kernel_status's cancelled status. A
 * block is well under a millisecond, and one relaxed load per block costs nothing measurable.
 */
#define CPU_CANCEL_BLOCK 65536u /* even: a 4-bit packed range starts on a whole byte */
static inline bool cpu_cancelled(const struct cpu_exec *x)
{
	return backend_cancelled(x->cancel);
}
/* OK, or the cancelled status when the kernel's blocks were skipped. */
static inline enum webnn_status cpu_kernel_status(const struct cpu_exec *x, struct wnn_diag *diag)
{
	return cpu_cancelled(x) ? backend_cancelled_status(diag, x->work ? x->work : "dispatch")
				: WEBNN_STATUS_OK;
}

struct cpu_step;
typedef enum webnn_status (*cpu_run_fn)(const struct cpu_step *s, void *const *bufs,
					const struct cpu_exec *x, struct wnn_diag *diag);

struct cpu_step {
	const struct graph_node *n;   /* the node (attrs resolved; value ids index bufs) */
	const struct graph_ir *g;     /* descriptors: g->values[v].desc */
	cpu_run_fn run;
	void *priv;                   /* the kernel's own state, freed with destroy */
	void (*destroy)(void *priv);
	const char *impl;             /* what runs it, for logs and tests ("oneDNN", "C", ...) */
	/* Set when the kernel computes only the node's product and the core must apply the
	 * node's epilogue (channel add, residual add, activation) afterwards. */
	bool epilogue_after;
	bool serial;                  /* under CPU_SERIAL_WORK: runs on one thread */
};

/*
 * One per ops.def family, in cpu_<family>.c; cpu_plan.c dispatches through a table. Returns:
 *  - OK with s->run set: the family's kernel runs the node;
 *  - OK with s->run NULL: this family has no fast kernel for this node (operator or data
 *    type): the plan runs the reference backend's kernel instead (cpu_fallback.c);
 *  - an error (OPERATION_ERROR from oneDNN, NO_MEMORY): the build fails with that message.
 * s->n and s->g are set by the caller.
 */
#define CPU_FAMILY_PREPARE_(E, name)                                                           \
	enum webnn_status cpu_##name##_prepare(const struct cpu_build *b, struct cpu_step *s,   \
					       struct wnn_diag *diag);
WNN_FAMILIES(CPU_FAMILY_PREPARE_)
#undef CPU_FAMILY_PREPARE_

/* A matmul with quantized weights (graph_node.qweight), cpu_quantized.c. */
enum webnn_status cpu_quantized_matmul_prepare(const struct cpu_build *b, struct cpu_step *s,
					       struct wnn_diag *diag);

/* The reference kernel of a node, for operators and types with no fast kernel (cpu_fallback.c). */
enum webnn_status cpu_fallback_prepare(const struct cpu_build *b, struct cpu_step *s,
				       struct wnn_diag *diag);
/* An elementwise chain (n->chain) as one step: its members' kernels over blocks
 * (cpu_elementwise.c); cpu_joins_chain says which nodes it has kernels for (graph_caps). */
enum webnn_status cpu_chain_prepare(const struct cpu_build *b, struct cpu_step *s,
				    struct wnn_diag *diag);
bool cpu_joins_chain(const struct graph_ir *g, const struct graph_node *n);
/* float32 erf, gelu, tanh, exp, log, sigmoid (unary, contiguous) and pow (sa/sb: 1 contiguous,
 * 0 one broadcast element) computed in float32 within a few ulp (cpu_transcendental.c): NULL for
 * other operators, without AVX2+FMA, or with WEBNN_CPU_EXACT_MATH set (the reference's bits). */
typedef void (*cpu_f32_unary_fn)(const float *x, float *o, uint64_t n);
typedef void (*cpu_f32_binary_fn)(const void *a, const void *b, void *o, uint64_t n, int sa,
				  int sb);
cpu_f32_unary_fn cpu_f32_unary(enum wnn_op op);
cpu_f32_binary_fn cpu_f32_binary(enum wnn_op op);
/* One row of a softmax with a prologue (graph_softmax_prologue): softmax(x * scale (mode 1), or
 * x / scale (mode 2), or x (mode 0), plus mask (NULL, or read with stride 0 or 1)) into o. */
void cpu_f32_softmax_row(const float *restrict x, const float *restrict mask, int mask_stride,
			 float scale, int mode, float *restrict o, uint64_t k);
/* Applies n->epilogue to bufs[n->epilogue.output], which holds the product (any float type). */
void cpu_epilogue_apply(const struct graph_ir *g, const struct graph_node *n, void *const *bufs,
			int threads);

/* ---- reductions (cpu_reduce.c): the reduce family and normalizations over axes */

#define CPU_PAR_MIN 32768          /* elements below which threads cost more than they save */
#define CPU_GATHER_MAX (1u << 22)  /* reduced elements per output an offset table may hold */

/* A wnn_reduction over a dense row-major input: an [A, R, B] view (roff NULL) when the reduced
 * axes (size-1 axes aside) are consecutive and ascending, so kept index k = a * B + b and the
 * reduced index r is row-major over the named axes; otherwise the offsets of the R reduced
 * elements from each kept element's base, read through a gathered row. */
struct cpu_axes {
	uint64_t A, R, B;
	uint64_t *roff;
};
/* The view of r; with gather, the offset table when there is no [A, R, B] view and at most
 * CPU_GATHER_MAX elements are reduced. Returns a step's priv (freed with cpu_axes_free), NULL
 * when the node gets no such view (*oom: out of memory). */
struct cpu_axes *cpu_axes_new(const struct wnn_reduction *r, bool gather, bool *oom);
void cpu_axes_free(void *axes);

/* ---- float16 (cpu_float16.c): CPUs here have no float16 arithmetic, so float16 nodes run the
 * float32 kernels on converted copies (F16C when the CPU has it). */

/* Makes the float32 kernel prepared in s run on the node's float16 values: inputs converted to
 * float32 before, outputs back to float16 (round to nearest even) after. */
enum webnn_status cpu_f16_wrap(struct cpu_step *s, struct wnn_diag *diag);
/* Exactly wnn_f16_to_f32/wnn_f32_to_f16 on n elements (F16C when the CPU has it: the same bits
 * for every float32, and for float16 signalling NaNs the quiet NaN that any arithmetic on the
 * value gives anyway), on the calling thread. */
void cpu_half_to_float(float *dst, const uint16_t *src, uint64_t n);
void cpu_float_to_half(uint16_t *dst, const float *src, uint64_t n);

/* ---- the oneDNN layer (cpu_dnnl.c). oneDNN 2.x C API (Debian 12 ships 2.6); 3.x changed
 * operation descriptors, so every call that differs stays behind these helpers. */

/* OPERATION_ERROR "conv2d 'label': oneDNN <what>: <status>" unless st is dnnl_success. */
enum webnn_status cpu_dnnl_check(dnnl_status_t st, const struct graph_node *n, const char *what,
				 struct wnn_diag *diag);
/* The oneDNN data type of t; dnnl_data_type_undef when oneDNN has no such type here. */
dnnl_data_type_t cpu_dnnl_type(enum wnn_dtype t);
/* A plain row-major descriptor of a value (rank 0 becomes {1}). */
dnnl_status_t cpu_dnnl_md_plain(dnnl_memory_desc_t *md, const struct wnn_desc *d);
/* A descriptor of the given dims read through element strides (broadcast: stride 0 is not
 * allowed by oneDNN, give dim 1 instead). */
dnnl_status_t cpu_dnnl_md_strided(dnnl_memory_desc_t *md, int rank, const int64_t *dims,
				  const int64_t *strides, dnnl_data_type_t type);

/* A primitive attribute with the user scratchpad mode, which every cpu primitive must use:
 * oneDNN's own (library) scratchpad belongs to the thread that created the primitive, and plans
 * run on whichever pool thread is free. Add post-ops to it as needed; cpu_dnnl_create refuses a
 * primitive descriptor made without it. */
enum webnn_status cpu_dnnl_attr_create(dnnl_primitive_attr_t *attr, const struct graph_node *n,
				       struct wnn_diag *diag);

/* Value id of cpu_dnnl_prim.value for the plan's shared scratchpad. */
#define CPU_VALUE_SCRATCH (UINT32_MAX - 1)
/* Value id for memory another primitive of the same step owns (a chunk's shared weights). */
#define CPU_VALUE_SHARED (UINT32_MAX - 2)
/* ... a reordered constant of the shared table (cpu_weights.c): its memory object is the
 * step's, its buffer the table's (released when the step goes) */
#define CPU_VALUE_WEIGHTS (UINT32_MAX - 3)

/* A oneDNN primitive and its arguments: bound to values (their handle set from bufs at each
 * run) or owned memory (reordered weights, kept for the plan's life). */
#define CPU_DNNL_MAX_ARGS 16
struct cpu_dnnl_prim {
	dnnl_primitive_t prim;
	int n_args;
	dnnl_exec_arg_t args[CPU_DNNL_MAX_ARGS];
	uint32_t value[CPU_DNNL_MAX_ARGS]; /* value id, CPU_VALUE_SCRATCH, CPU_VALUE_SHARED, or
					      GRAPH_NONE for owned memory */
	uint64_t offset[CPU_DNNL_MAX_ARGS]; /* bytes from the value's start (a chunk's slice) */
	char impl[64];                     /* oneDNN's implementation name ("brgconv:avx512_core") */
};
/* Reordered weights shared by plans (cpu_weights.c): the buffer holding src's bytes
 * (src_md) reordered into dst_md, referenced, or NULL (*adopted: it lies in a graph cache
 * entry, which the graph charges); put offers buf (aligned_alloc'ed) as
 * that buffer and returns the one to use, referenced (buf, or another plan's: then the caller
 * frees buf; NULL when out of memory); release drops a reference. count: entries (tests).
 * take, release_prepared and adopt are backend_impl's prepared_* hooks. */
void *cpu_weights_get(const void *src, const dnnl_memory_desc_t *src_md,
		      const dnnl_memory_desc_t *dst_md, bool *adopted);
size_t cpu_weights_take(struct backend_prepared **out);
void cpu_weights_release_prepared(const void *data);
bool cpu_weights_adopt(const struct backend_prepared *p);
void *cpu_weights_put(const void *src, const dnnl_memory_desc_t *src_md,
		      const dnnl_memory_desc_t *dst_md, void *buf);
void cpu_weights_release(void *buf);
/* The constants a plan's steps bind through the table (cpu_dnnl_bind_constant), recorded per
 * step until it is built; then cpu_binds_step tells the graph's on_prepared (built: each src
 * once) and forgets them. Steps are built on several threads. */
struct cpu_bind {
	const void *src;
	const struct graph_node *n;
};
struct cpu_binds {
	pthread_mutex_t lock;
	const struct graph_ir *g;
	struct cpu_bind *v;
	size_t n, cap;
	bool oom;             /* a record was lost: nothing is told any more */
};
void cpu_binds_add(struct cpu_binds *b, const struct graph_node *n, const void *src);
void cpu_binds_step(struct cpu_binds *b, const struct graph_node *n, bool built);
void cpu_binds_fini(struct cpu_binds *b);
/* backend_impl.prepared_hold and prepared_restore (cpu_weights.c) */
const void *cpu_weights_hold(const void *src, uint64_t bytes);
bool cpu_weights_restore(const void *held, void *dst, uint64_t bytes);
/* Destroys the primitive and every argument's memory object (not p itself). */
void cpu_dnnl_prim_fini(struct cpu_dnnl_prim *p);
/* Allocates a step's primitive record (s->priv, s->destroy, s->run = cpu_dnnl_run are set);
 * NULL when out of memory. Several primitives in one step: see cpu_dnnl_chunks below. */
struct cpu_dnnl_prim *cpu_dnnl_step(struct cpu_step *s);
/* Creates the primitive from pd (which it then owns and destroys, also on failure), binds its
 * scratchpad to the plan's shared one and records the implementation name. */
enum webnn_status cpu_dnnl_create(const struct cpu_build *b, struct cpu_dnnl_prim *p,
				  dnnl_primitive_desc_t pd, const struct graph_node *n,
				  struct wnn_diag *diag);
/* Binds argument arg (DNNL_ARG_SRC, ...) to value v, described by md. */
enum webnn_status cpu_dnnl_bind(const struct cpu_build *b, struct cpu_dnnl_prim *p, int arg,
				const dnnl_memory_desc_t *md, uint32_t v, const struct graph_node *n,
				struct wnn_diag *diag);
/* Binds argument arg to memory the primitive owns, described by md (allocated by oneDNN),
 * e.g. a scratch buffer; returns it in *mem when mem is not NULL. */
enum webnn_status cpu_dnnl_bind_owned(const struct cpu_build *b, struct cpu_dnnl_prim *p, int arg,
				      const dnnl_memory_desc_t *md, dnnl_memory_t *mem,
				      const struct graph_node *n, struct wnn_diag *diag);
/* Constant data reordered once at build from src_md (over the value's host bytes) into the
 * layout the primitive chose (want, e.g. the pd's weights_desc for format_tag_any) and bound
 * to arg as owned memory. */
enum webnn_status cpu_dnnl_bind_constant(const struct cpu_build *b, struct cpu_dnnl_prim *p,
					 int arg, const dnnl_memory_desc_t *src_md, const void *data,
					 const dnnl_memory_desc_t *want, const struct graph_node *n,
					 struct wnn_diag *diag);
/* Binds argument arg to mem, which another primitive of the same step owns and outlives p. */
enum webnn_status cpu_dnnl_bind_shared(struct cpu_dnnl_prim *p, int arg, dnnl_memory_t mem,
				       const struct graph_node *n, struct wnn_diag *diag);
/* A step run as chunks (see CPU_CHUNK_NS): count primitive records run in order, with a cancel
 * check before each but the first. */
struct cpu_dnnl_chunks {
	uint32_t count;
	struct cpu_dnnl_prim p[];
};
/* Allocates a step's chunk records (s->priv, s->destroy, s->run = cpu_dnnl_chunks_run); NULL
 * when out of memory. */
struct cpu_dnnl_chunks *cpu_dnnl_chunks_step(struct cpu_step *s, uint32_t count);
/* Runs the chunks in order; stops with backend_cancelled_status once x->cancel is set. */
enum webnn_status cpu_dnnl_chunks_exec(const struct cpu_dnnl_chunks *c, const struct graph_node *n,
				       void *const *bufs, const struct cpu_exec *x,
				       struct wnn_diag *diag);
/* Runs one primitive record: sets bound handles from bufs, executes, waits. */
enum webnn_status cpu_dnnl_exec(const struct cpu_dnnl_prim *p, const struct graph_node *n,
				void *const *bufs, const struct cpu_exec *x, struct wnn_diag *diag);

/* Post-ops for n's epilogue on a primitive whose dst is described by dst_md (channel add as a
 * per-channel binary add, residual as a full-shape binary add, relu/clamp as eltwise), for
 * conv2d/convTranspose2d/gemm/matmul. *attr is created here with cpu_dnnl_attr_create (post-ops
 * only when the node has an epilogue); the caller passes it to the primitive descriptor and
 * destroys it. The binary operands are bound to p. */
enum webnn_status cpu_dnnl_epilogue_attr(const struct cpu_build *b, struct cpu_dnnl_prim *p,
					 const struct graph_node *n, const dnnl_memory_desc_t *dst_md,
					 dnnl_primitive_attr_t *attr, struct wnn_diag *diag);

/* The attribute of an int8 product (graph_node.qdq): output scales per channel (dim 1 of dst),
 * the activation's and output's zero points, the activation before a quantized output; with
 * fuse, n's epilogue as post-ops (cpu_dnnl_epilogue_attr). Same ownership as that. */
enum webnn_status cpu_dnnl_qdq_attr(const struct cpu_build *b, struct cpu_dnnl_prim *p,
				    const struct graph_node *n, const dnnl_memory_desc_t *dst_md,
				    bool fuse, dnnl_primitive_attr_t *attr, struct wnn_diag *diag);

/* Steps of a compiled plan that run on the whole team (not serial): for the tests. */
size_t cpu_plan_team_steps(const struct backend_plan *plan);

#endif
