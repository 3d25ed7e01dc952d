/* Private interface of the OpenCL backend: devices, program cache, plans and their steps. */
#ifndef DAEMON_BACKEND_OPENCL_OCL_H
#define DAEMON_BACKEND_OPENCL_OCL_H

#include <CL/cl.h>
#include <pthread.h>
#include <string.h>
#include <sys/types.h>

#include "daemon/backend/backend.h"
#include "proto/resolve.h"

#define OCL_MAX_DEVICES 16

struct ocl_program;

/* One OpenCL device with its own cl_context, shared by every MLContext that picks it. */
struct ocl_device {
	cl_platform_id platform;
	cl_device_id id;
	cl_context context;
	cl_device_type type;
	cl_uint compute_units;
	bool host_unified;      /* integrated GPU sharing host memory */
	bool fp64;              /* cl_khr_fp64: integer pow goes through double */
	bool is_pocl;
	struct backend_device_info info;
	cl_ulong max_alloc;
	/* In-memory program cache, keyed by the full source + options text. */
	pthread_mutex_t lock;
	struct ocl_program *programs;
};

/* The backend's switches, read from the environment once at init (ocl_options_read). */
struct ocl_options {
	bool profile;          /* $WEBNN_OCL_PROFILE: wait after every step and print its time */
	bool rnn_gemm;         /* $WEBNN_OCL_RNN_GEMM: recurrent products always as CLBlast gemms */
	bool clblast_defaults; /* $WEBNN_CLBLAST_DEFAULTS: CLBlast's generic parameters */
	/* $WEBNN_OCL_STORAGE_COPY: tensors in shared memory keep a device buffer moved by
	 * clEnqueueWrite/ReadBuffer even on host-unified devices (what discrete GPUs do), so that
	 * tests exercise that path on PoCL. */
	bool storage_copy;
	char kernel_dir[512];  /* $WEBNN_KERNEL_DIR: kernels/<file> read from there; "" embedded */
};

struct backend {
	struct ocl_device devices[OCL_MAX_DEVICES];
	int n_devices;
	char cache_dir[512]; /* the daemon's cache directory; "" for no on-disk cache */
	struct ocl_options opts;
};

struct backend_context {
	struct backend *be;
	struct ocl_device *dev;
	cl_command_queue queue;
	const atomic_bool *cancel; /* the daemon's: runs stop enqueuing at the next step */
};

struct backend_tensor {
	struct backend_context *ctx;
	cl_mem mem;
	size_t bytes;
	struct wnn_desc desc;
	/* tensor_create_shared: the client's shared memory. With host_ptr (devices with host
	 * unified memory) it is the buffer itself (CL_MEM_USE_HOST_PTR), kept mapped for the host
	 * except while a dispatch runs; otherwise it is the host side of the device buffer, moved
	 * by clEnqueueWrite/ReadBuffer in tensor_sync. */
	void *host;
	bool host_ptr;
	bool unmapped; /* host_ptr: handed to the device for the dispatch in progress */
};

/* ---- device layer (ocl_device.c) */

/* Status for a CL error on enqueue/finish (device-level failures mean the context is lost). */
enum webnn_status ocl_enqueue_status(cl_int err);
const char *ocl_error_name(cl_int err);
/* Returns a built program for the device (cached in memory and on disk). The program text is
 * prefix + kernels/<file> + suffix; options are clBuildProgram options. */
enum webnn_status ocl_program_get(struct backend *be, struct ocl_device *dev, const char *file,
				  const char *prefix, const char *suffix, const char *options,
				  cl_program *out, struct wnn_diag *diag);
/* Applies the carried CLBlast parameters for the PoCL CPU device (tuned) or CLBlast's generic
 * defaults (for comparisons in tests/bench_ops.c). */
void ocl_clblast_params(struct ocl_device *dev, bool tuned);

/* ---- plans (ocl_plan.c, ocl_steps.c) */

/* INPUT/OUTPUT: tensors bound at execute; CONST: owned buffers; PLANNED: the memory plan's
 * buffer `index` (graph intermediates); TEMP: the backend's own scratch, reused by live range. */
enum ocl_slot_kind {
	OCL_SLOT_INPUT,
	OCL_SLOT_OUTPUT,
	OCL_SLOT_CONST,
	OCL_SLOT_PLANNED,
	OCL_SLOT_TEMP,
};

struct ocl_slot {
	enum ocl_slot_kind kind;
	uint32_t index;       /* graph input/output position; plan buffer; physical buffer for temps */
	size_t bytes;
	cl_mem mem;           /* constants: owned; temps: set after assignment */
	int first_step, last_step; /* temps: live range in steps */
};

enum ocl_step_kind { OCL_STEP_KERNEL, OCL_STEP_GEMM, OCL_STEP_COPY, OCL_STEP_FILL };

#define OCL_MAX_MEM_ARGS 6

struct ocl_gemm {
	bool a_trans, b_trans;
	size_t m, n, k;
	float alpha, beta;
	uint32_t a, b, c;           /* slots */
	size_t a_off, b_off, c_off; /* elements */
	size_t lda, ldb, ldc;
	size_t batch;               /* 1: plain gemm */
	bool strided;               /* batch > 1 with constant strides */
	size_t a_stride, b_stride, c_stride;
	size_t *a_offs, *b_offs, *c_offs; /* batch > 1, not strided: per-batch offsets (owned) */
	float *alphas, *betas;
};

struct ocl_step {
	enum ocl_step_kind kind;
	const char *what; /* operator name, for messages */
	/* kernel */
	cl_kernel kernel;
	cl_uint dims;
	size_t global[3], local[3];
	bool has_local;
	int n_mem;
	struct { cl_uint arg; uint32_t slot; } mem[OCL_MAX_MEM_ARGS];
	/* gemm */
	struct ocl_gemm gemm;
	/* copy/fill (bytes) */
	uint32_t src, dst;
	size_t src_off, dst_off, size;
	uint32_t pattern; /* fill: a 4-byte pattern (0) */
};

struct backend_plan {
	struct backend_context *ctx;
	struct ocl_slot *slots;
	size_t n_slots, cap_slots;
	struct ocl_step *steps;
	size_t n_steps, cap_steps;
	cl_mem *planned;  /* one buffer per graph.plan buffer */
	size_t n_planned;
	cl_mem *phys;     /* physical temp buffers */
	size_t n_phys;
	uint64_t phys_bytes; /* their sizes together */
	uint32_t *operand_slot; /* per value: slot id, UINT32_MAX when none yet */
	size_t n_inputs, n_outputs;
	const struct graph_ir *g;
};

/* The state of one compile: the node being lowered and where messages go. */
struct ocl_build {
	struct backend_plan *plan;
	const struct graph_ir *g;
	struct wnn_diag *diag;
	const struct graph_node *node; /* a LIVE node, its attributes resolved at import */
	const char *what;
};

/* The epilogue the fusion pass gave the node being lowered, or NULL. */
static inline const struct graph_epilogue *ocl_node_epilogue(const struct ocl_build *b)
{
	return b->node->epilogue.used ? &b->node->epilogue : NULL;
}
/* Depthwise and thin grouped convolutions do too little work per output for a gemm. */
bool ocl_conv_uses_gemm(const struct wnn_conv2d_attrs *p);

uint32_t ocl_slot_new_temp(struct ocl_build *b, size_t bytes);
enum webnn_status ocl_slot_const(struct ocl_build *b, const void *data, size_t bytes,
				 uint32_t *slot);
/* Slot of a value read by a node (graph input, constant, or written earlier). */
uint32_t ocl_operand_slot(struct ocl_build *b, uint32_t operand);
/* Slot for writing a node's output value: its graph output tensor, its buffer of the memory
 * plan, or (a value the plan gave no buffer) a temp. */
uint32_t ocl_output_slot(struct ocl_build *b, uint32_t operand);
/* Appends a kernel step; kernel from program `prog`. Arguments are set with ocl_arg_* on the
 * returned step's kernel (scalars) or recorded as mem args (slots). */
struct ocl_step *ocl_step_kernel(struct ocl_build *b, cl_program prog, const char *name);
void ocl_arg_mem(struct ocl_build *b, struct ocl_step *s, cl_uint arg, uint32_t slot);
void ocl_arg(struct ocl_build *b, struct ocl_step *s, cl_uint arg, size_t size, const void *v);
void ocl_step_range1(struct ocl_step *s, size_t n);
/* A 3-d range of exactly x * y * z items (dimension 0 fastest), work-groups chosen here. */
void ocl_step_range3(struct ocl_step *s, size_t x, size_t y, size_t z);
struct ocl_step *ocl_step_new(struct ocl_build *b, enum ocl_step_kind kind);
/* Marks a slot as used by the last appended step (live-range bookkeeping). */
void ocl_slot_use(struct ocl_build *b, uint32_t slot);

/* Program for a kernels/<file> specialised to a storage type. */
enum webnn_status ocl_typed_program(struct ocl_build *b, const char *file, enum wnn_dtype t,
				    cl_program *out);
/* OpenCL C spelling of each storage type (ocl_programs.c), and every program's build options. */
extern const char *const ocl_cl_types[WNN_DT_COUNT];
#define OCL_CL_OPTIONS "-cl-std=CL1.2 -cl-single-precision-constant"

/* ---- lowering helpers shared by the families (ocl_steps.c, ocl_gemm.c) */

#define OCL_NONE UINT32_MAX
#define OCL_FAILED(b) ((b)->diag->status != WEBNN_STATUS_OK)

uint32_t ocl_slot_add(struct ocl_build *b, enum ocl_slot_kind kind, uint32_t index, size_t bytes);
size_t ocl_desc_count(const struct ocl_build *b, uint32_t operand);
/* Host bytes of a constant operand, NULL for anything else. */
const void *ocl_const_data(struct ocl_build *b, uint32_t operand);
/* v as a kernel's uint, NOT_SUPPORTED when it does not fit. */
cl_uint ocl_u32(struct ocl_build *b, uint64_t v, const char *what);
void ocl_arg_u(struct ocl_build *b, struct ocl_step *s, cl_uint i, cl_uint v);
void ocl_arg_f(struct ocl_build *b, struct ocl_step *s, cl_uint i, float v);
/* A macro: passing 32-byte vectors by value draws ABI notes from GCC. */
#define ocl_arg_u8(b, s, i, expr)                                                              \
	do {                                                                                   \
		cl_uint8 v_ = (expr);                                                          \
		ocl_arg((b), (s), (i), sizeof v_, &v_);                                        \
	} while (0)
/* Arguments first .. first + 5 of a kernel over a reduction: the kept rank, dims and strides,
 * then the reduced ones. */
void ocl_arg_reduction(struct ocl_build *b, struct ocl_step *s, cl_uint first,
		       const struct wnn_reduction *r);
/* A kernel step over n work-items. */
struct ocl_step *ocl_kernel_n(struct ocl_build *b, cl_program prog, const char *name, size_t n);
/* A fill step writing zeros over bytes [off, off + bytes) of dst. */
void ocl_step_zero(struct ocl_build *b, uint32_t dst, size_t off, size_t bytes);
/* Merges dimensions that every operand walks contiguously (and drops size-1 dimensions).
 * strides[op][d]; returns the new rank. */
uint32_t ocl_collapse(uint32_t rank, const uint32_t *dims, int nops,
		      uint64_t strides[][WNN_MAX_RANK], uint32_t *odims,
		      uint64_t ostr[][WNN_MAX_RANK]);
/* dst[doff + sum c_d * dstr_d] = src[soff + sum c_d * sstr_d] over dims (elements of t). */
void ocl_copy_nd(struct ocl_build *b, enum wnn_dtype t, uint32_t src, uint64_t soff,
		 uint32_t dst, uint64_t doff, uint32_t rank, const uint32_t *dims,
		 const uint64_t *sstr, const uint64_t *dstr);
/* identity/reshape: the output aliases the input unless it is a graph output. */
void ocl_alias(struct ocl_build *b, uint32_t input, uint32_t output);
/* Row-major float32 gemm C[m x n] = op(A)[m x k] * op(B) + beta * C, with element offsets. */
void ocl_gemm2d(struct ocl_build *b, uint32_t a, size_t a_off, size_t lda, bool a_trans,
		uint32_t bm, size_t b_off, size_t ldb, bool b_trans, uint32_t c, size_t c_off,
		size_t ldc, size_t m, size_t n, size_t k, float beta);
/* Appends gemm_epilogue over an A x C x B result: dst = act(src + v1[c] + v2[c] + r)
 * (see ocl_gemm.c for the strides). */
void ocl_epilogue_step(struct ocl_build *b, uint32_t src, uint32_t dst, uint32_t v1,
		       uint32_t v2, uint32_t r, size_t A, size_t C, size_t B,
		       const uint64_t ss[3], const uint64_t ds[3], const struct graph_epilogue *e);
/* Whether an epilogue does more than the bias. */
bool ocl_epi_extra(const struct graph_epilogue *e);
/* The fused epilogue of a gemm/matmul over its dense float32 result y ([rows][n]). */
void ocl_matrix_epilogue(struct ocl_build *b, uint32_t sy, size_t rows, size_t n,
			 const struct graph_epilogue *e);
/* dst[i] = src[base + sum c_d * strides_d] over dims (signed strides), elements of t. */
void ocl_view_copy(struct ocl_build *b, enum wnn_dtype t, uint32_t src, uint32_t dst,
		   uint32_t rank, const uint32_t *dims, const int64_t *strides, uint64_t base);
/* Runs a gemm step on the queue (execute). */
enum webnn_status ocl_run_gemm(struct backend_plan *p, struct ocl_step *s, cl_mem a, cl_mem b,
			       cl_mem c, struct wnn_diag *diag);

static inline bool ocl_is_float(enum wnn_dtype t)
{
	return t == WNN_F32 || t == WNN_F16;
}
/* Sets NOT_SUPPORTED when v does not fit the kernels' 32-bit indices. */
void ocl_check_u32(struct ocl_build *b, uint64_t v, const char *what);
/* A buffer-to-buffer copy step (byte offsets and size). */
void ocl_step_copy(struct ocl_build *b, uint32_t src, size_t soff, uint32_t dst, size_t doff,
		   size_t bytes);
/* float16 <-> float32 conversion of count elements (kernels of data.cl). */
void ocl_convert(struct ocl_build *b, bool to_f32, uint32_t src, uint32_t dst, size_t count);
/* The operand as float32: itself, a constant widened on the host, or a converted temp. */
uint32_t ocl_f32_slot(struct ocl_build *b, uint32_t operand);
/* A CLBlast gemm step of gm (alpha, beta, slots, shapes) over batch offsets; batch 1 is plain. */
void ocl_add_gemm(struct ocl_build *b, const struct ocl_gemm *gm, size_t batch,
		  const size_t *aoffs, const size_t *boffs, const size_t *coffs);

/* Static inline: passing 32-byte vectors across calls draws ABI notes from GCC. */
static inline cl_uint8 ocl_u8dims(uint32_t rank, const uint32_t *v)
{
	cl_uint8 out;
	memset(&out, 0, sizeof out);
	for (uint32_t i = 0; i < rank && i < 8; i++)
		out.s[i] = v[i];
	return out;
}

static inline cl_uint8 ocl_u8vec(uint32_t rank, const uint64_t *v)
{
	cl_uint8 out;
	memset(&out, 0, sizeof out);
	for (uint32_t i = 0; i < rank && i < 8; i++)
		out.s[i] = (cl_uint)v[i];
	return out;
}

/* Strides as uint8, NOT_SUPPORTED when one does not fit. */
static inline cl_uint8 ocl_u8_wide(struct ocl_build *b, uint32_t rank, const uint64_t *v)
{
	cl_uint8 out;
	memset(&out, 0, sizeof out);
	for (uint32_t i = 0; i < rank && i < 8; i++) {
		ocl_check_u32(b, v[i], "stride");
		out.s[i] = (cl_uint)v[i];
	}
	return out;
}

/* conv.cl's gemm_epilogue alone, specialised to its flags and layout mode (see conv.cl). */
enum webnn_status ocl_epilogue_program(struct ocl_build *b, unsigned flags, unsigned mode,
				       cl_program *out);

/* The backend_impl entry points of plans (ocl_plan.c). */
void ocl_caps(struct backend_context *ctx, struct graph_caps *caps);
enum webnn_status ocl_compile(struct backend_context *ctx, const struct graph_ir *g,
			      struct backend_plan **out, struct wnn_diag *diag);
void ocl_plan_destroy(struct backend_plan *plan);
/* backend_impl.plan_bytes: its arrays, constant and temp buffers exactly, kernels measured. */
uint64_t ocl_plan_bytes(const struct backend_plan *plan);
/* What a kernel object and a buffer object take in the OpenCL runtime (PoCL: the kernel's
 * argument storage and per-device data; _cl_mem), measured as for the cpu backend's
 * primitives (tests/hostile_accounting.c). */
#define OCL_KERNEL_BYTES (8u << 10)
#define OCL_BUFFER_BYTES 1024u
enum webnn_status ocl_execute(struct backend_plan *plan, struct backend_tensor *const *inputs,
			      struct backend_tensor *const *outputs, struct wnn_diag *diag);

/* Which operators and types the backend runs (the family table in ocl_plan.c). */
bool ocl_supports(enum wnn_op op, enum wnn_dtype t);

/* ---- families: each lowers one operation of its family into steps (ocl_<family>.c) */

void ocl_lower_elementwise(struct ocl_build *b, enum wnn_op op);
bool ocl_supports_elementwise(enum wnn_op op, enum wnn_dtype t);
void ocl_lower_reduce(struct ocl_build *b, enum wnn_op op);
void ocl_lower_normalization(struct ocl_build *b, enum wnn_op op);
void ocl_lower_conv(struct ocl_build *b, enum wnn_op op);
void ocl_lower_pool(struct ocl_build *b, enum wnn_op op);
void ocl_lower_linalg(struct ocl_build *b, enum wnn_op op);
void ocl_lower_data(struct ocl_build *b, enum wnn_op op);
void ocl_lower_gather(struct ocl_build *b, enum wnn_op op);
void ocl_lower_cast(struct ocl_build *b, enum wnn_op op);
void ocl_lower_rnn(struct ocl_build *b, enum wnn_op op);
void ocl_lower_resample(struct ocl_build *b, enum wnn_op op);

#endif
