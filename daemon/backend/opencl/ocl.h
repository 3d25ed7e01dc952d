/* Private interface of the OpenCL backend: devices, program cache, plans and their steps. */
#ifndef DAEMON_BACKEND_OPENCL_OCL_H
#define DAEMON_BACKEND_OPENCL_OCL_H

#include <CL/cl.h>
#include <pthread.h>
#include <string.h>
#include <sys/types.h>

#include "daemon/backend/backend.h"
#include "daemon/graph/import.h"
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

struct backend {
	struct ocl_device devices[OCL_MAX_DEVICES];
	int n_devices;
	char cache_dir[512]; /* "" when no cache directory could be made */
	pid_t warm_pid;      /* the warm-up process (ocl_device.c), 0 when none */
};

struct backend_context {
	struct backend *be;
	struct ocl_device *dev;
	cl_command_queue queue;
};

struct backend_tensor {
	struct backend_context *ctx;
	cl_mem mem;
	size_t bytes;
	struct wnn_desc desc;
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
/* The embedded (or $WEBNN_KERNEL_DIR) text of kernels/<file>; NULL when unknown. Caller frees. */
char *ocl_kernel_source(const char *file);

/* ---- plans (ocl_plan.c / ocl_lower.c) */

enum ocl_slot_kind { OCL_SLOT_INPUT, OCL_SLOT_OUTPUT, OCL_SLOT_CONST, OCL_SLOT_TEMP };

struct ocl_slot {
	enum ocl_slot_kind kind;
	uint32_t index;       /* graph input/output position; physical buffer for temps */
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
	cl_mem *phys;     /* physical temp buffers */
	size_t n_phys;
	uint32_t *operand_slot; /* per operand: slot id, UINT32_MAX when none yet */
	size_t n_inputs, n_outputs;
	/* after all steps: extra copies for operands that are several graph outputs */
	const struct graph_source *g;
};

/* Lowering helpers used by ocl_lower.c. */
struct ocl_build {
	struct backend_plan *plan;
	const struct graph_source *g;
	struct wnn_diag *diag;
	const Webnn__Ipc__Operation *op;
	const char *what;
	size_t op_index;            /* position of op in g->info->operations */
	struct ocl_fusion *fusion;  /* fused epilogues and in-place concats (ocl_lower.c) */
};

/* Plan-level fusion (ocl_lower.c): before lowering, ocl_fusion_plan finds conv2d/gemm/matmul
 * outputs whose only consumers are relu/clamp/add (folded into the producer's epilogue) and
 * convs whose result only feeds a channel concat (written straight into its slice).
 * ocl_fusion_skip tells the compile loop which operations were absorbed. */
enum webnn_status ocl_fusion_plan(struct ocl_build *b);
bool ocl_fusion_skip(const struct ocl_build *b, size_t op_index);
void ocl_fusion_free(struct ocl_build *b);
/* $WEBNN_OCL_BASELINE set (read at each compile): the plans of the first version (no fusion,
 * no in-place concat, CLBlast for every GEMM in one orientation, the generic depthwise, im2col
 * and pooling kernels), kept for same-run comparisons in tests/bench_ops.c. */
bool ocl_baseline(void);

uint32_t ocl_slot_new_temp(struct ocl_build *b, size_t bytes);
enum webnn_status ocl_slot_const(struct ocl_build *b, const void *data, size_t bytes,
				 uint32_t *slot);
/* Slot of an operand (graph input, constant, or defined earlier). */
uint32_t ocl_operand_slot(struct ocl_build *b, uint32_t operand);
/* Slot for writing an operation's output operand (a graph output, or a new temp). */
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
/* OpenCL C spelling of each storage type (ocl_plan.c), and every program's build options. */
extern const char *const ocl_cl_types[WNN_DT_COUNT];
#define OCL_CL_OPTIONS "-cl-std=CL1.2 -cl-single-precision-constant"

/* Lowering helpers shared by ocl_lower.c and ocl_lower_ext.c (defined in ocl_lower.c). */
size_t ocl_desc_count(const struct ocl_build *b, uint32_t operand);
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

/* conv.cl's gemm_epilogue alone, specialised to its flags and layout mode (see conv.cl). */
enum webnn_status ocl_epilogue_program(struct ocl_build *b, unsigned flags, unsigned mode,
				       cl_program *out);

/* The backend_impl entry points of plans (ocl_plan.c). */
enum webnn_status ocl_compile(struct backend_context *ctx, const struct graph_ir *g,
			      struct backend_plan **out, struct wnn_diag *diag);
void ocl_plan_destroy(struct backend_plan *plan);
enum webnn_status ocl_execute(struct backend_plan *plan, struct backend_tensor *const *inputs,
			      struct backend_tensor *const *outputs, struct wnn_diag *diag);

/* Lowers one operation into steps. */
enum webnn_status ocl_lower_op(struct ocl_build *b, enum wnn_op op);
bool ocl_supports(enum wnn_op op, enum wnn_dtype t);
/* The operators beyond the first CNN set live in ocl_lower_ext.c. */
bool ocl_ext_supports(enum wnn_op op, enum wnn_dtype t);
enum webnn_status ocl_lower_ext(struct ocl_build *b, enum wnn_op op);

#endif
