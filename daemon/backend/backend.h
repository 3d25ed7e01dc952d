/* The backend vtable every compute backend implements (cpu and opencl: product, reference: oracle). */
#ifndef DAEMON_BACKEND_H
#define DAEMON_BACKEND_H

#include <stdarg.h>
#include <stdatomic.h>

#include "daemon/graph/graph.h"

struct backend_device_info {
	bool accelerated;
	char device_name[128];
	char device_type[16];     /* "gpu", "cpu", "accelerator" */
	char platform_name[128];
	char driver_version[64];
	/* The input layout (conv2d/pool2d inputLayout) this device runs faster; the context
	 * reports it as MLOpSupportLimits.preferredInputLayout. */
	enum webnn_layout preferred_layout;
	/* The alignment in bytes host memory given to tensor_create_shared needs (0: 64). */
	uint32_t storage_align;
	/* What else compiled plans depend on (the cpu backend: the instruction set oneDNN's
	 * kernels use): a saved graph of another is stale (daemon/worker/graphcache.h). */
	char plan_tag[64];
};

/* A copy of constant bytes a backend prepared for its kernels (the cpu backend: a weight
 * reordered into the layout its primitive wants), as the graph cache saves and restores it. */
struct backend_prepared {
	const void *src;     /* the constant bytes it was made from */
	const void *key;     /* how it was made from them (backend-defined bytes) */
	uint32_t key_len;
	const void *data;    /* the prepared bytes */
	uint64_t bytes;
};

struct backend_context_options {
	enum webnn_power_preference power_preference;
	bool accelerated;
	/* Set by the daemon, from the loop thread, once the context is lost or closed (it stays
	 * set; NULL: never). The context's compile and execute check it at their step boundaries:
	 * work still queued inside the backend is skipped, a running plan stops before its next
	 * step (a kernel already running is not pre-empted; the cpu backend runs its long matmul
	 * and convolution steps in chunks and stops between them, and its C kernels skip their
	 * remaining blocks), and they return
	 * backend_cancelled_status(). The flag outlives the backend context. */
	const atomic_bool *cancel;
};

/* Whether the daemon cancelled the context's work (see backend_context_options.cancel). */
static inline bool backend_cancelled(const atomic_bool *cancel)
{
	return cancel && atomic_load_explicit(cancel, memory_order_relaxed);
}

/* What cancelled work returns: the daemon discards it (the context is lost or closed). */
static inline enum webnn_status backend_cancelled_status(struct wnn_diag *diag, const char *what)
{
	return wnn_diag_set(diag, WEBNN_STATUS_CONTEXT_LOST,
			    "%s: cancelled (the context is lost or closed)", what);
}

/* What the daemon lends its backends (backend_options.services), so that no backend includes a
 * daemon header: its log (levels as the daemon's) and its policy for compute threads. */
enum backend_log_level { BACKEND_LOG_ERROR, BACKEND_LOG_WARN, BACKEND_LOG_INFO, BACKEND_LOG_DEBUG };
struct backend_services {
	void (*log)(enum backend_log_level level, const char *file, int line, const char *fmt,
		    va_list ap);
	bool (*log_enabled)(enum backend_log_level level);
	/* Gives the calling thread the compute threads' time slice and nice value; false with
	 * why (the kernel refused: nothing changed). */
	bool (*compute_thread)(char *why, unsigned len);
	int cores; /* the CPUs the process may run on */
};

/* A backend's log line through s (NULL, as in tests that start backends alone: stderr, debug
 * lines dropped). */
void backend_log(const struct backend_services *s, enum backend_log_level level,
		 const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
bool backend_log_enabled(const struct backend_services *s, enum backend_log_level level);
#define backend_log_error(s, ...) backend_log(s, BACKEND_LOG_ERROR, __FILE__, __LINE__, __VA_ARGS__)
#define backend_log_warn(s, ...) backend_log(s, BACKEND_LOG_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define backend_log_info(s, ...) backend_log(s, BACKEND_LOG_INFO, __FILE__, __LINE__, __VA_ARGS__)
#define backend_log_debug(s, ...)                                                              \
	do {                                                                                   \
		if (backend_log_enabled(s, BACKEND_LOG_DEBUG))                                 \
			backend_log(s, BACKEND_LOG_DEBUG, __FILE__, __LINE__, __VA_ARGS__);    \
	} while (0)

/* What the daemon decides for every backend: process policy (forking, environment, directories)
 * stays in the daemon, and backends read their own switches once in init. */
struct backend_options {
	const struct backend_services *services; /* NULL: backend_log's defaults, no slices */
	const char *cache_dir; /* writable directory for on-disk caches; NULL or "" for none */
	int threads;           /* compute threads (cpu backend); 0: every core the process may use */
	/* Serve only GPUs and accelerators (opencl): the daemon routes CPU devices to the cpu
	 * backend, so the OpenCL backend neither opens nor warms caches for them. */
	bool accelerators_only;
};

struct backend;          /* one per backend per daemon: devices, shared OpenCL contexts, caches */
struct backend_context;  /* one per MLContext: queue, device choice */
struct backend_tensor;   /* device memory of one MLTensor */
struct backend_plan;     /* a compiled graph */

/*
 * Threading contract (the daemon guarantees it):
 *  - init/shutdown/supports/context_create/context_destroy/context_info run on the loop thread;
 *    context_create must be quick (no kernel compiles).
 *  - tensor_* and execute of one backend_context are serialised (the context's timeline) and run
 *    on a thread-pool thread; different contexts run concurrently.
 *  - compile runs on a thread-pool thread, possibly concurrently with anything of the same or
 *    other contexts; it must only read the graph and write its own plan.
 *  - every call returns a status and fills diag ("conv2d: ..."); nothing aborts on device errors.
 *    WEBNN_STATUS_CONTEXT_LOST from execute/tensor_* means the device context is gone.
 *  - a context's cancel flag (backend_context_options.cancel) may be set while its compile or
 *    execute runs; they stop at their next step boundary.
 *  - short work may instead run on the loop thread (the daemon decides from the work estimate,
 *    see quick_max_ns): execute_quick for a plan plan_quick accepted, and, with
 *    host_tensors, tensor_* of small tensors. Still serialised per context as above; it must
 *    not wait for anything (no other thread, no device queue) and uses only the calling thread.
 */
/* What a backend may hold per tensor besides its bytes (its struct backend_tensor, a cl_mem's
 * runtime object), charged with every tensor; the backends check their part at build time. */
#define BACKEND_TENSOR_BYTES 512u

/* Which devices a backend serves when the daemon chooses (no --backend): the first cpu one
 * that starts takes the CPUs, a cpu_fallback one takes them when none did, and every
 * accelerators one starts with backend_options.accelerators_only. */
enum backend_serves {
	BACKEND_SERVES_CPU,
	BACKEND_SERVES_CPU_FALLBACK,
	BACKEND_SERVES_ACCELERATORS,
};

/* What a backend needs from the worker's lockdown and set-up, so that the daemon grants it
 * without naming backends. */
struct backend_needs {
	bool kernel_compiler; /* runs a compiler and linker at run time (PoCL: ld, vfork/execve) */
	bool device_nodes;    /* opens GPU and accelerator device nodes */
	bool gpu_ioctl;       /* any ioctl, when one of its devices is accelerated (GPU drivers) */
	bool thread_team;     /* starts an OpenMP team of backend_options.threads threads */
	/* An environment variable naming a directory it writes (its runtime's own cache). */
	const char *writable_dir_env;
};

struct backend_impl {
	const char *name; /* "cpu", "opencl", "reference" */
	enum backend_serves serves;
	struct backend_needs needs;
	/* What its kernels take per unit of work (daemon/graph/cost.c): the time estimate that
	 * max_dispatch_ms and quick_max_ns bound. NULL: graph_cost_fast. */
	const struct graph_cost_model *cost_model;
	/* tensor_create/destroy/write/read are host-memory allocations and copies: quick enough for
	 * the loop thread when the tensor is small. */
	bool host_tensors;
	/* Probe devices. Returns OK, or NOT_SUPPORTED when this backend has no usable device.
	 * opts may be NULL (no on-disk caches). */
	enum webnn_status (*init)(const struct backend_options *opts, struct backend **out,
				  struct wnn_diag *diag);
	/* Optional: fills the on-disk caches (compiled kernels, tuned libraries) so that later
	 * starts are fast. The daemon runs it in a child process it forks before init and before
	 * lockdown; it may take seconds and must not assume any other call happened. */
	void (*warm_caches)(const struct backend_options *opts);
	void (*shutdown)(struct backend *be);
	/* Optional: work for the thread pool was just queued (the loop thread calls it, so it
	 * must return in microseconds); the backend may get its threads ready meanwhile. */
	void (*work_queued)(struct backend *be);
	/* The devices it serves (at most max written); returns how many there are. */
	uint32_t (*devices)(struct backend *be, struct backend_device_info *out, uint32_t max);
	/* Whether op can run with this data type as its first input (drives opSupportLimits and
	 * build-time checks). */
	bool (*supports)(struct backend *be, enum wnn_op op, enum wnn_dtype type);

	enum webnn_status (*context_create)(struct backend *be,
					    const struct backend_context_options *opts,
					    struct backend_context **out, struct wnn_diag *diag);
	void (*context_destroy)(struct backend_context *ctx);
	void (*context_info)(struct backend_context *ctx, struct backend_device_info *info);

	enum webnn_status (*tensor_create)(struct backend_context *ctx, const struct wnn_desc *desc,
					   struct backend_tensor **out, struct wnn_diag *diag);
	void (*tensor_destroy)(struct backend_tensor *t);
	/* size is exactly the tensor's byte length. New tensors read as zeros. */
	enum webnn_status (*tensor_write)(struct backend_tensor *t, const void *src, size_t size,
					  struct wnn_diag *diag);
	enum webnn_status (*tensor_read)(struct backend_tensor *t, void *dst, size_t size,
					 struct wnn_diag *diag);
	/* Optional: a tensor whose bytes live in `host` (shared memory the client maps too,
	 * storage_align-aligned, at least the byte length rounded up to 64 bytes, valid until
	 * tensor_destroy returns). Its current bytes are the tensor's contents. Host-memory
	 * backends compute in it directly; device backends use it as the host side of their
	 * buffer. tensor_write/tensor_read work as for any tensor (the host side stays what
	 * tensor_sync last made it). Any thread may write `host` at any time: kernels must treat
	 * every byte they load from it as untrusted and load an index exactly once. */
	enum webnn_status (*tensor_create_shared)(struct backend_context *ctx,
						  const struct wnn_desc *desc, void *host,
						  struct backend_tensor **out, struct wnn_diag *diag);
	/* Optional (NULL: `host` is the tensor, nothing to move): for tensor_create_shared
	 * tensors, to_device makes the bytes the client wrote into host the tensor's contents;
	 * !to_device makes host hold the tensor's contents for the client to read. */
	enum webnn_status (*tensor_sync)(struct backend_tensor *t, bool to_device,
					 struct wnn_diag *diag);

	/* What this context wants from the shared graph passes (layout, fusion, concat in place);
	 * the daemon adds constant folding (with evaluate below, or the reference kernels). */
	void (*caps)(struct backend_context *ctx, struct graph_caps *caps);
	/* Optional: evaluates node n of g, whose inputs are constants, on this context's kernels
	 * (inputs[i]: bytes of n->inputs[i]; outputs[i]: zeroed, 64-byte aligned bytes of
	 * n->outputs[i]), for constant folding before the passes (any layout, no fusion); priced
	 * by cost_model, and it stops at the cancel flag as compile does. Runs where compile runs.
	 * NULL: the daemon folds on the reference kernels. */
	enum webnn_status (*evaluate)(struct backend_context *ctx, const struct graph_ir *g,
				      const struct graph_node *n, const void *const *inputs,
				      void *const *outputs, struct wnn_diag *diag);
	/* Compiles an optimised graph. The graph outlives the plan. */
	enum webnn_status (*compile)(struct backend_context *ctx, const struct graph_ir *g,
				     struct backend_plan **out, struct wnn_diag *diag);
	void (*plan_destroy)(struct backend_plan *plan);
	/* Host (or device) memory the plan holds besides the memory plan's buffers (graph.plan,
	 * which the daemon charges itself): its steps, kernels' state, copies of constants,
	 * scratch. Exact sizes where the backend allocates them, measured constants per step or
	 * primitive where a library does (tests/hostile_accounting.c checks them against the
	 * worker's growth). The daemon charges it once the compile is done. */
	uint64_t (*plan_bytes)(const struct backend_plan *plan);
	/* What plan_bytes takes per operation at least, charged while a compile runs (before
	 * plan_bytes can be asked); library objects (oneDNN primitives, OpenCL kernels) are
	 * charged when it is done. */
	uint32_t plan_op_bytes;
	/* Its plans may hold copies of the graph's constants (charged before the compile). */
	bool copies_constants;
	/* Optional, for the graph cache: the prepared copies the backend holds now, each
	 * referenced (so that its bytes stay while the caller writes them), in a malloc'ed array
	 * (*out; NULL and 0 when none or out of memory). prepared_release drops one reference
	 * (of one taken here or adopted). */
	size_t (*prepared_take)(struct backend_prepared **out);
	void (*prepared_release)(const void *data);
	/* Optional: offers a copy prepared by an earlier process (data, bytes long, stays readable
	 * until prepared_release(data)); a compile that would prepare key from src's bytes binds
	 * data instead. The key is not trusted: a key that does not equal what the compile wants
	 * exactly is never used. false when it cannot be taken (out of memory, a key this backend
	 * does not make). data's bytes are checked by the caller before any execute reads them. */
	bool (*prepared_adopt)(const struct backend_prepared *p);
	/* Optional: a reference (released with prepared_release) on a prepared copy made from all
	 * `bytes` bytes at src from which prepared_restore gives them back exactly, or NULL. While
	 * it is held the copy stays, whatever plan goes. */
	const void *(*prepared_hold)(const void *src, uint64_t bytes);
	/* Writes the bytes the held copy was made from into dst (bytes long); false on failure
	 * (out of memory). */
	bool (*prepared_restore)(const void *held, void *dst, uint64_t bytes);
	/* Runs the plan to completion. inputs/outputs follow g->inputs/g->outputs;
	 * descriptors were checked by the daemon. An output tensor may not alias an input. */
	enum webnn_status (*execute)(struct backend_plan *plan, struct backend_tensor *const *inputs,
				     struct backend_tensor *const *outputs, struct wnn_diag *diag);
	/* Optional: whether execute_quick can run this plan (after compile, on the loop thread). */
	bool (*plan_quick)(const struct backend_plan *plan);
	/* Optional: execute on the calling thread alone, for plans the daemon judged short. */
	enum webnn_status (*execute_quick)(struct backend_plan *plan,
					    struct backend_tensor *const *inputs,
					    struct backend_tensor *const *outputs,
					    struct wnn_diag *diag);
};

extern const struct backend_impl backend_cpu;
extern const struct backend_impl backend_opencl;
extern const struct backend_impl backend_reference;

/* ---- the registry (registry.c): the one list of backends, for the daemon and its tools */

/* Every backend of this build, NULL-terminated; the daemon tries those that serve the same
 * devices in this order. */
extern const struct backend_impl *const backend_registry[];
/* The backend called name; NULL when there is none. */
const struct backend_impl *backend_find(const char *name);
/* "cpu, opencl or reference": the names, for messages. */
const char *backend_names_text(void);

/* Evaluates one node on host memory for constant folding where the context's backend has no
 * evaluate hook (inputs[i]: bytes of n->inputs[i]; outputs[i]: zeroed, 64-byte aligned); stops
 * early with backend_cancelled_status() once *cancel is set (NULL: never). */
typedef enum webnn_status (*backend_host_evaluator)(const struct graph_node *n,
						    const struct graph_value *values,
						    const void *const *inputs,
						    void *const *outputs,
						    const atomic_bool *cancel,
						    struct wnn_diag *diag);
extern const backend_host_evaluator backend_host_evaluate;
/* What backend_host_evaluate takes per unit of work (its folds' time budget). */
extern const struct graph_cost_model *const backend_host_evaluate_cost;

#endif
