/* OpenCL backend: device discovery, shared contexts, program caches, CLBlast tuning, tensors. */
#include "daemon/backend/opencl/ocl.h"

#include <clblast_c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* PoCL's cl_mem (_cl_mem, about 300 bytes) and this header: BACKEND_TENSOR_BYTES. */
_Static_assert(sizeof(struct backend_tensor) + 16 <= BACKEND_TENSOR_BYTES / 2,
	       "an opencl tensor's header is charged as BACKEND_TENSOR_BYTES");

extern const struct {
	const char *name;
	const char *source;
} wnn_kernel_sources[];

struct ocl_program {
	struct ocl_program *next;
	char *key; /* options + '\1' + full source */
	cl_program program;
};

/* ------------------------------------------------------------------ errors */

const char *ocl_error_name(cl_int err)
{
	switch (err) {
#define E(x) case x: return #x;
	E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE)
	E(CL_COMPILER_NOT_AVAILABLE) E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES)
	E(CL_OUT_OF_HOST_MEMORY) E(CL_BUILD_PROGRAM_FAILURE) E(CL_INVALID_VALUE)
	E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT) E(CL_INVALID_COMMAND_QUEUE)
	E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS)
	E(CL_INVALID_PROGRAM) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL)
	E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
	E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
	E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
	E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
	E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_INVALID_OPERATION)
#undef E
	default: return "CL error";
	}
}

enum webnn_status ocl_enqueue_status(cl_int err)
{
	switch (err) {
	case CL_SUCCESS:
		return WEBNN_STATUS_OK;
	case CL_OUT_OF_HOST_MEMORY:
		return WEBNN_STATUS_NO_MEMORY;
	case CL_OUT_OF_RESOURCES:
	case CL_DEVICE_NOT_AVAILABLE:
	case CL_MEM_OBJECT_ALLOCATION_FAILURE:
	case CL_INVALID_COMMAND_QUEUE:
	case CL_INVALID_CONTEXT:
	case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
		return WEBNN_STATUS_CONTEXT_LOST;
	default:
		return WEBNN_STATUS_OPERATION_ERROR;
	}
}

/* ------------------------------------------------------------------ kernel sources */

static void ocl_options_read(struct ocl_options *o)
{
	memset(o, 0, sizeof *o);
	const char *e;
	o->profile = getenv("WEBNN_OCL_PROFILE") != NULL;
	o->rnn_gemm = getenv("WEBNN_OCL_RNN_GEMM") != NULL;
	o->clblast_defaults = getenv("WEBNN_CLBLAST_DEFAULTS") != NULL;
	o->storage_copy = getenv("WEBNN_OCL_STORAGE_COPY") != NULL;
	if ((e = getenv("WEBNN_KERNEL_DIR")) && *e)
		snprintf(o->kernel_dir, sizeof o->kernel_dir, "%s", e);
}

/* The text of kernels/<file> (from kernel_dir when it is not empty, else embedded); NULL when
 * unknown. Caller frees. */
static char *ocl_kernel_source(const char *dir, const char *file)
{
	if (dir && *dir) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, file);
		FILE *f = fopen(path, "rb");
		if (f) {
			char *buf = NULL;
			long n = -1;
			if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
			    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
				buf[n] = 0;
				fclose(f);
				return buf;
			}
			free(buf);
			fclose(f);
		}
	}
	for (int i = 0; wnn_kernel_sources[i].name; i++)
		if (strcmp(wnn_kernel_sources[i].name, file) == 0)
			return strdup(wnn_kernel_sources[i].source);
	return NULL;
}

/* ------------------------------------------------------------------ program cache */

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

static void disk_path(struct backend *be, struct ocl_device *dev, const char *key, char *out,
		      size_t len)
{
	uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
	h1 = fnv1a(fnv1a(fnv1a(h1, dev->info.device_name), dev->info.driver_version), key);
	h2 = fnv1a(fnv1a(fnv1a(h2, key), dev->info.driver_version), dev->info.device_name);
	snprintf(out, len, "%s/programs/%016" PRIx64 "%016" PRIx64 ".bin", be->cache_dir, h1, h2);
}

static cl_program load_binary(struct ocl_device *dev, const char *path, const char *options)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	unsigned char *bin = NULL;
	long n = -1;
	cl_program p = NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (bin = malloc((size_t)n)) && fread(bin, 1, (size_t)n, f) == (size_t)n) {
		size_t sz = (size_t)n;
		const unsigned char *bp = bin;
		cl_int st, err;
		p = clCreateProgramWithBinary(dev->context, 1, &dev->id, &sz, &bp, &st, &err);
		if (p && (err != CL_SUCCESS || st != CL_SUCCESS ||
			  clBuildProgram(p, 1, &dev->id, options, NULL, NULL) != CL_SUCCESS)) {
			clReleaseProgram(p);
			p = NULL;
		}
	}
	free(bin);
	fclose(f);
	return p;
}

static void save_binary(struct ocl_device *dev, cl_program p, const char *path)
{
	size_t sz = 0;
	if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof sz, &sz, NULL) != CL_SUCCESS || !sz)
		return;
	unsigned char *bin = malloc(sz);
	if (!bin)
		return;
	unsigned char *bins[1] = { bin };
	(void)dev;
	if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS) {
		char tmp[PATH_MAX + 32];
		snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
		FILE *f = fopen(tmp, "wb");
		if (f) {
			bool ok = fwrite(bin, 1, sz, f) == sz;
			ok = fclose(f) == 0 && ok;
			if (!ok || rename(tmp, path) != 0)
				unlink(tmp);
		}
	}
	free(bin);
}

enum webnn_status ocl_program_get(struct backend *be, struct ocl_device *dev, const char *file,
				  const char *prefix, const char *suffix, const char *options,
				  cl_program *out, struct wnn_diag *diag)
{
	char *body = ocl_kernel_source(be->opts.kernel_dir, file);
	if (!body)
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
				    "opencl: kernel source %s not found", file);
	size_t lo = strlen(options), lp = strlen(prefix), lb = strlen(body), ls = strlen(suffix);
	char *key = malloc(lo + lp + lb + ls + 3);
	if (!key) {
		free(body);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "opencl: out of memory");
	}
	char *src = key + lo + 1;
	memcpy(key, options, lo);
	key[lo] = '\1';
	memcpy(src, prefix, lp);
	memcpy(src + lp, body, lb);
	memcpy(src + lp + lb, suffix, ls);
	src[lp + lb + ls] = 0;
	free(body);

	/* Held across the build: concurrent compiles of the same program build it once. */
	pthread_mutex_lock(&dev->lock);
	for (struct ocl_program *p = dev->programs; p; p = p->next) {
		if (strcmp(p->key, key) == 0) {
			*out = p->program;
			pthread_mutex_unlock(&dev->lock);
			free(key);
			return WEBNN_STATUS_OK;
		}
	}
	char path[700] = "";
	cl_program prog = NULL;
	if (be->cache_dir[0]) {
		disk_path(be, dev, key, path, sizeof path);
		prog = load_binary(dev, path, options);
	}
	if (!prog) {
		cl_int err;
		const char *s = src;
		prog = clCreateProgramWithSource(dev->context, 1, &s, NULL, &err);
		if (!prog) {
			pthread_mutex_unlock(&dev->lock);
			free(key);
			return wnn_diag_set(diag, ocl_enqueue_status(err),
					    "opencl: clCreateProgramWithSource(%s): %s", file,
					    ocl_error_name(err));
		}
		err = clBuildProgram(prog, 1, &dev->id, options, NULL, NULL);
		if (err != CL_SUCCESS) {
			char log[2048] = "";
			clGetProgramBuildInfo(prog, dev->id, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log,
					      NULL);
			log[sizeof log - 1] = 0;
			clReleaseProgram(prog);
			pthread_mutex_unlock(&dev->lock);
			free(key);
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "opencl: building %s failed (%s): %.200s", file,
					    ocl_error_name(err), log);
		}
		if (path[0])
			save_binary(dev, prog, path);
	}
	struct ocl_program *e = malloc(sizeof *e);
	if (!e) {
		clReleaseProgram(prog);
		pthread_mutex_unlock(&dev->lock);
		free(key);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "opencl: out of memory");
	}
	e->key = key;
	e->program = prog;
	e->next = dev->programs;
	dev->programs = e;
	*out = prog;
	pthread_mutex_unlock(&dev->lock);
	return WEBNN_STATUS_OK;
}

/* ------------------------------------------------------------------ CLBlast tuning */

/* Measured on PoCL 3.1 (pthread, AVX-512, 2 cores): CLBlast ships no CPU tuning; these sets
 * take SGEMM from ~25 to ~100 GFLOP/s (tests/bench_ops.c's bench_sgemm). */
static const char *const xgemm_names[16] = { "GEMMK", "KREG", "KWG",   "KWI",   "MDIMA", "MDIMC",
					     "MWG",   "NDIMB", "NDIMC", "NWG",  "SA",    "SB",
					     "STRM",  "STRN",  "VWM",   "VWN" };
static const size_t xgemm_pocl[16] = { 0, 1, 32, 2, 8, 8, 64, 8, 8, 128, 0, 0, 0, 0, 8, 16 };
static const char *const xgemmd_names[10] = { "KWID", "MDIMAD", "MDIMCD", "NDIMBD", "NDIMCD",
					      "PADA", "PADB",   "VWMD",   "VWND",   "WGD" };
static const size_t xgemmd_pocl[10] = { 2, 8, 8, 8, 8, 1, 1, 8, 8, 64 };
static const char *const routine_names[1] = { "XGEMM_MIN_INDIRECT_SIZE" };
/* The tuned indirect kernel beats the direct one from tiny sizes on (12 vs 7 GFLOP/s at
 * 3025x16x96, 49 vs 28 at 3025x64x144). */
static const size_t routine_pocl[1] = { 64 };

/* CLBlast's own all-device defaults (what it uses for a device missing from its database). */
static const size_t xgemm_default[16] = { 0, 1, 32, 2, 8, 8, 32, 16, 16, 32, 1, 1, 0, 0, 4, 2 };
static const size_t xgemmd_default[10] = { 2, 8, 8, 8, 8, 1, 1, 1, 1, 32 };
static const size_t routine_default[1] = { 384 };

void ocl_clblast_params(struct ocl_device *dev, bool tuned)
{
	CLBlastOverrideParameters(dev->id, "Xgemm", CLBlastPrecisionSingle, 16,
				  (const char **)xgemm_names, tuned ? xgemm_pocl : xgemm_default);
	CLBlastOverrideParameters(dev->id, "XgemmDirect", CLBlastPrecisionSingle, 10,
				  (const char **)xgemmd_names, tuned ? xgemmd_pocl : xgemmd_default);
	CLBlastOverrideParameters(dev->id, "GemmRoutine", CLBlastPrecisionSingle, 1,
				  (const char **)routine_names, tuned ? routine_pocl : routine_default);
}

static void tune_clblast(struct ocl_device *dev, const struct ocl_options *o)
{
	if (!dev->is_pocl || !(dev->type & CL_DEVICE_TYPE_CPU) || o->clblast_defaults)
		return;
	ocl_clblast_params(dev, true);
}

/* Builds CLBlast's gemm programs into PoCL's on-disk kernel cache, so that the first graph
 * does not pay PoCL's compile (seconds when the cache is cold, ~40 ms warm). The daemon runs it
 * in a child process (a compile cannot be interrupted; a process is simply killed at shutdown)
 * with POCL_CACHE_DIR already pointing into its cache directory. It starts OpenCL afresh and
 * applies the same CLBlast parameters as init, so the same program text hits the cache later. */
static void ocl_warm_caches(const struct backend_options *opts)
{
	/* PoCL finds its cache through POCL_CACHE_DIR, set by the daemon */
	bool accelerators_only = opts && opts->accelerators_only;
	struct ocl_options o;
	ocl_options_read(&o);
	cl_platform_id plats[8];
	cl_uint np = 0;
	if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS)
		return;
	if (np > 8)
		np = 8;
	for (cl_uint p = 0; p < np; p++) {
		cl_device_id ids[OCL_MAX_DEVICES];
		cl_uint nd = 0;
		if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, OCL_MAX_DEVICES, ids, &nd) !=
		    CL_SUCCESS)
			continue;
		if (nd > OCL_MAX_DEVICES)
			nd = OCL_MAX_DEVICES;
		char pname[128] = "";
		clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
		for (cl_uint i = 0; i < nd; i++) {
			struct ocl_device d;
			memset(&d, 0, sizeof d);
			cl_bool avail = CL_FALSE, compiler = CL_FALSE;
			clGetDeviceInfo(ids[i], CL_DEVICE_AVAILABLE, sizeof avail, &avail, NULL);
			clGetDeviceInfo(ids[i], CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler,
					&compiler, NULL);
			if (!avail || !compiler)
				continue;
			d.id = ids[i];
			clGetDeviceInfo(ids[i], CL_DEVICE_TYPE, sizeof d.type, &d.type, NULL);
			if (accelerators_only &&
			    !(d.type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)))
				continue;
			d.is_pocl = strstr(pname, "Portable Computing Language") != NULL;
			cl_int err;
			cl_context_properties props[] = { CL_CONTEXT_PLATFORM,
							  (cl_context_properties)plats[p], 0 };
			d.context = clCreateContext(props, 1, &ids[i], NULL, NULL, &err);
			if (!d.context)
				continue;
			tune_clblast(&d, &o);
			cl_command_queue q = clCreateCommandQueue(d.context, d.id, 0, &err);
			/* 8: the direct kernel; 256: the indirect one with its pad/transpose helpers */
			const size_t sizes[2] = { 8, 256 };
			for (int k = 0; k < 2 && q; k++) {
				size_t n = sizes[k];
				cl_mem m = clCreateBuffer(d.context, CL_MEM_READ_WRITE, n * n * 4 * 3,
							  NULL, &err);
				if (!m)
					break;
				float zero = 0;
				clEnqueueFillBuffer(q, m, &zero, sizeof zero, 0, n * n * 4 * 3, 0, NULL,
						    NULL);
				CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo,
					     CLBlastTransposeYes, n, n, n, 1.0f, m, 0, n, m, n * n, n,
					     0.0f, m, 2 * n * n, n, &q, NULL);
				CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo,
					     CLBlastTransposeNo, n, n, n, 1.0f, m, 0, n, m, n * n, n,
					     1.0f, m, 2 * n * n, n, &q, NULL);
				CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo,
					     CLBlastTransposeNo, n, n, n, 1.0f, m, 0, n, m, n * n, n,
					     0.0f, m, 2 * n * n, n, &q, NULL);
				clFinish(q);
				clReleaseMemObject(m);
			}
			if (q)
				clReleaseCommandQueue(q);
			clReleaseContext(d.context);
		}
	}
}

/* ------------------------------------------------------------------ init / shutdown */

static void dev_str(cl_device_id d, cl_device_info what, char *buf, size_t len)
{
	buf[0] = 0;
	if (clGetDeviceInfo(d, what, len - 1, buf, NULL) != CL_SUCCESS)
		buf[0] = 0;
	buf[len - 1] = 0;
}

/* Fills d for a device of plat with its own cl_context; false when it is not usable. */
static bool probe_device(struct backend *be, struct ocl_device *d, cl_platform_id plat,
			 cl_device_id id, const char *pname, bool accelerators_only)
{
	memset(d, 0, sizeof *d);
	cl_device_type type = 0;
	clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
	if (accelerators_only && !(type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)))
		return false;
	cl_bool avail = CL_FALSE, compiler = CL_FALSE;
	clGetDeviceInfo(id, CL_DEVICE_AVAILABLE, sizeof avail, &avail, NULL);
	clGetDeviceInfo(id, CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler, &compiler, NULL);
	if (!avail || !compiler)
		return false;
	d->platform = plat;
	d->id = id;
	clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof d->type, &d->type, NULL);
	clGetDeviceInfo(id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->compute_units, &d->compute_units,
			NULL);
	cl_bool unified = CL_FALSE;
	clGetDeviceInfo(id, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
	d->host_unified = unified;
	cl_uint align_bits = 0;
	clGetDeviceInfo(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
	d->info.storage_align = align_bits / 8 > 64 ? align_bits / 8 : 64;
	clGetDeviceInfo(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc, &d->max_alloc, NULL);
	char ext[4096];
	dev_str(id, CL_DEVICE_EXTENSIONS, ext, sizeof ext);
	d->fp64 = strstr(ext, "cl_khr_fp64") != NULL;
	dev_str(id, CL_DEVICE_NAME, d->info.device_name, sizeof d->info.device_name);
	dev_str(id, CL_DRIVER_VERSION, d->info.driver_version, sizeof d->info.driver_version);
	snprintf(d->info.platform_name, sizeof d->info.platform_name, "%s", pname);
	d->is_pocl = strstr(pname, "Portable Computing Language") != NULL;
	bool gpu = d->type & CL_DEVICE_TYPE_GPU;
	bool acc = d->type & CL_DEVICE_TYPE_ACCELERATOR;
	snprintf(d->info.device_type, sizeof d->info.device_type, "%s",
		 gpu ? "gpu" : acc ? "accelerator" : "cpu");
	d->info.accelerated = gpu || acc;
	/* The conv2d fast paths (1x1 gemm without transposes, row-blocked direct and depthwise
	 * kernels, fused epilogues) are NHWC ones; bench_conv2d measures NHWC 1.1-10x faster than
	 * NCHW on SqueezeNet/MobileNetV2 shapes (most on 1x1 and depthwise), never slower beyond
	 * run-to-run noise. */
	d->info.preferred_layout = WEBNN_LAYOUT_NHWC;
	cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0 };
	cl_int err;
	d->context = clCreateContext(props, 1, &id, NULL, NULL, &err);
	if (!d->context)
		return false;
	pthread_mutex_init(&d->lock, NULL);
	tune_clblast(d, &be->opts);
	return true;
}

static enum webnn_status ocl_init(const struct backend_options *opts, struct backend **out,
				  struct wnn_diag *diag)
{
	struct backend *be = calloc(1, sizeof *be);
	if (!be)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "opencl: out of memory");
	ocl_options_read(&be->opts);
	/* Compiled programs go under the daemon's cache directory; none without one. */
	if (opts && opts->cache_dir && *opts->cache_dir &&
	    snprintf(be->cache_dir, sizeof be->cache_dir, "%s", opts->cache_dir) <
		    (int)sizeof be->cache_dir) {
		/* The daemon made the cache directory itself; only our own subdirectory is ours. */
		char sub[600];
		if (snprintf(sub, sizeof sub, "%s/programs", be->cache_dir) >= (int)sizeof sub ||
		    (mkdir(sub, 0700) != 0 && errno != EEXIST) || access(sub, W_OK | X_OK) != 0)
			be->cache_dir[0] = 0;
	} else {
		be->cache_dir[0] = 0;
	}

	cl_platform_id plats[8];
	cl_uint np = 0;
	cl_int err = clGetPlatformIDs(8, plats, &np);
	if (err != CL_SUCCESS || np == 0) {
		free(be);
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "opencl: no OpenCL platform (%s)", ocl_error_name(err));
	}
	if (np > 8)
		np = 8;
	for (cl_uint p = 0; p < np && be->n_devices < OCL_MAX_DEVICES; p++) {
		cl_device_id ids[OCL_MAX_DEVICES];
		cl_uint nd = 0;
		if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, OCL_MAX_DEVICES, ids, &nd) !=
		    CL_SUCCESS)
			continue;
		if (nd > OCL_MAX_DEVICES)
			nd = OCL_MAX_DEVICES;
		char pname[128];
		pname[0] = 0;
		clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
		pname[sizeof pname - 1] = 0;
		for (cl_uint i = 0; i < nd && be->n_devices < OCL_MAX_DEVICES; i++)
			if (probe_device(be, &be->devices[be->n_devices], plats[p], ids[i], pname,
					 opts && opts->accelerators_only))
				be->n_devices++;
	}
	if (be->n_devices == 0) {
		free(be);
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    opts && opts->accelerators_only
					    ? "opencl: no OpenCL GPU or accelerator"
					    : "opencl: no usable OpenCL device");
	}
	*out = be;
	return WEBNN_STATUS_OK;
}

static uint32_t ocl_devices(struct backend *be, struct backend_device_info *out, uint32_t max)
{
	for (int i = 0; i < be->n_devices && (uint32_t)i < max; i++)
		out[i] = be->devices[i].info;
	return (uint32_t)be->n_devices;
}

static void ocl_shutdown(struct backend *be)
{
	if (!be)
		return;
	for (int i = 0; i < be->n_devices; i++) {
		struct ocl_device *d = &be->devices[i];
		while (d->programs) {
			struct ocl_program *p = d->programs;
			d->programs = p->next;
			clReleaseProgram(p->program);
			free(p->key);
			free(p);
		}
		clReleaseContext(d->context);
		pthread_mutex_destroy(&d->lock);
	}
	free(be);
}

/* ------------------------------------------------------------------ contexts */

/* Higher is better for the options. */
static int device_score(const struct ocl_device *d, const struct backend_context_options *o)
{
	bool gpu = d->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR);
	int score = 0;
	if (o->accelerated) {
		if (gpu) {
			score += 1000000;
			if (o->power_preference == WEBNN_POWER_LOW_POWER)
				score += d->host_unified ? 100000 : 0;
			else if (o->power_preference == WEBNN_POWER_HIGH_PERFORMANCE)
				score += d->host_unified ? 0 : 100000;
			score += (int)(d->compute_units > 50000 ? 50000 : d->compute_units);
		} else {
			score += (int)(d->compute_units > 50000 ? 50000 : d->compute_units);
		}
	} else {
		score += gpu ? 0 : 1000000;
		score += (int)(d->compute_units > 50000 ? 50000 : d->compute_units);
	}
	return score;
}

static enum webnn_status ocl_context_create(struct backend *be,
					    const struct backend_context_options *opts,
					    struct backend_context **out, struct wnn_diag *diag)
{
	int best = -1, best_score = -1;
	for (int i = 0; i < be->n_devices; i++) {
		int s = device_score(&be->devices[i], opts);
		if (s > best_score) {
			best_score = s;
			best = i;
		}
	}
	if (best < 0)
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED, "opencl: no device");
	struct backend_context *ctx = calloc(1, sizeof *ctx);
	if (!ctx)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "opencl: out of memory");
	ctx->be = be;
	ctx->dev = &be->devices[best];
	ctx->cancel = opts ? opts->cancel : NULL;
	cl_int err;
	ctx->queue = clCreateCommandQueue(ctx->dev->context, ctx->dev->id, 0, &err);
	if (!ctx->queue) {
		free(ctx);
		return wnn_diag_set(diag, ocl_enqueue_status(err),
				    "opencl: clCreateCommandQueue on %s: %s",
				    be->devices[best].info.device_name, ocl_error_name(err));
	}
	*out = ctx;
	return WEBNN_STATUS_OK;
}

static void ocl_context_destroy(struct backend_context *ctx)
{
	if (!ctx)
		return;
	clFinish(ctx->queue);
	clReleaseCommandQueue(ctx->queue);
	free(ctx);
}

static void ocl_context_info(struct backend_context *ctx, struct backend_device_info *info)
{
	*info = ctx->dev->info;
}

/* ------------------------------------------------------------------ tensors */

/* A buffer of bytes for a tensor (its host side `host`, or NULL); zeroed when host is NULL. */
static enum webnn_status tensor_create_in(struct backend_context *ctx, const struct wnn_desc *desc,
					  void *host, struct backend_tensor **out,
					  struct wnn_diag *diag)
{
	uint64_t bytes;
	if (!wnn_desc_bytes(desc, &bytes))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "tensor: invalid descriptor");
	if (bytes > ctx->dev->max_alloc)
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "tensor: %" PRIu64 " bytes exceed the device's largest buffer "
				    "(%" PRIu64 ")", bytes, (uint64_t)ctx->dev->max_alloc);
	struct backend_tensor *t = calloc(1, sizeof *t);
	if (!t)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "tensor: out of memory");
	cl_int err;
	/* Rounded up so kernels may read whole 4-byte words of tiny tensors (shared memory is
	 * at least the byte length rounded up to 64). */
	size_t alloc = ((size_t)bytes + 3) & ~(size_t)3;
	t->host = host;
	t->host_ptr = host && ctx->dev->host_unified && !ctx->be->opts.storage_copy;
	t->mem = clCreateBuffer(ctx->dev->context,
				CL_MEM_READ_WRITE | (t->host_ptr ? CL_MEM_USE_HOST_PTR : 0), alloc,
				t->host_ptr ? host : NULL, &err);
	if (!t->mem) {
		free(t);
		return wnn_diag_set(diag, err == CL_OUT_OF_HOST_MEMORY ||
					      err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
					      err == CL_INVALID_BUFFER_SIZE
					      ? WEBNN_STATUS_NO_MEMORY
					      : ocl_enqueue_status(err),
				    "tensor: clCreateBuffer(%zu bytes): %s", alloc,
				    ocl_error_name(err));
	}
	cl_uint zero = 0;
	const char *step = "zero fill";
	if (t->host_ptr) {
		/* The host owns a USE_HOST_PTR buffer while it is mapped: it rests mapped. */
		step = "clEnqueueMapBuffer";
		void *p = clEnqueueMapBuffer(ctx->queue, t->mem, CL_TRUE,
					     CL_MAP_READ | CL_MAP_WRITE, 0, alloc, 0, NULL, NULL,
					     &err);
		if (err == CL_SUCCESS && p != host) {
			clEnqueueUnmapMemObject(ctx->queue, t->mem, p, 0, NULL, NULL);
			clFinish(ctx->queue);
			err = CL_INVALID_HOST_PTR;
			step = "clEnqueueMapBuffer (the device did not map the shared memory)";
		}
	} else if (host) {
		step = "upload of the initial contents";
		err = clEnqueueWriteBuffer(ctx->queue, t->mem, CL_TRUE, 0, (size_t)bytes, host, 0,
					   NULL, NULL);
	} else {
		err = clEnqueueFillBuffer(ctx->queue, t->mem, &zero, sizeof zero, 0, alloc, 0, NULL,
					  NULL);
	}
	if (err != CL_SUCCESS) {
		clReleaseMemObject(t->mem);
		free(t);
		return wnn_diag_set(diag, ocl_enqueue_status(err), "tensor: %s: %s", step,
				    ocl_error_name(err));
	}
	t->ctx = ctx;
	t->bytes = (size_t)bytes;
	t->desc = *desc;
	*out = t;
	return WEBNN_STATUS_OK;
}

static enum webnn_status ocl_tensor_create(struct backend_context *ctx,
					   const struct wnn_desc *desc,
					   struct backend_tensor **out, struct wnn_diag *diag)
{
	return tensor_create_in(ctx, desc, NULL, out, diag);
}

static enum webnn_status ocl_tensor_create_shared(struct backend_context *ctx,
						  const struct wnn_desc *desc, void *host,
						  struct backend_tensor **out, struct wnn_diag *diag)
{
	return tensor_create_in(ctx, desc, host, out, diag);
}

static void ocl_tensor_destroy(struct backend_tensor *t)
{
	if (!t)
		return;
	if (t->host_ptr && !t->unmapped) {
		clEnqueueUnmapMemObject(t->ctx->queue, t->mem, t->host, 0, NULL, NULL);
		clFinish(t->ctx->queue); /* the mapping goes before the daemon unmaps the memory */
	}
	clReleaseMemObject(t->mem);
	free(t);
}

static enum webnn_status ocl_tensor_write(struct backend_tensor *t, const void *src, size_t size,
					  struct wnn_diag *diag)
{
	if (size != t->bytes)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "writeTensor: %zu bytes given, tensor holds %zu", size, t->bytes);
	if (t->host_ptr) { /* mapped for the host: the memory is the buffer (memmove: the client
			     * may name the storage itself as the source) */
		memmove(t->host, src, size);
		return WEBNN_STATUS_OK;
	}
	cl_int err = clEnqueueWriteBuffer(t->ctx->queue, t->mem, CL_TRUE, 0, size, src, 0, NULL,
					  NULL);
	if (err != CL_SUCCESS)
		return wnn_diag_set(diag, ocl_enqueue_status(err), "writeTensor: %s",
				    ocl_error_name(err));
	return WEBNN_STATUS_OK;
}

static enum webnn_status ocl_tensor_read(struct backend_tensor *t, void *dst, size_t size,
					 struct wnn_diag *diag)
{
	if (size != t->bytes)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "readTensor: %zu bytes asked, tensor holds %zu", size, t->bytes);
	if (t->host_ptr) {
		memmove(dst, t->host, size);
		return WEBNN_STATUS_OK;
	}
	cl_int err = clEnqueueReadBuffer(t->ctx->queue, t->mem, CL_TRUE, 0, size, dst, 0, NULL,
					 NULL);
	if (err != CL_SUCCESS)
		return wnn_diag_set(diag, ocl_enqueue_status(err), "readTensor: %s",
				    ocl_error_name(err));
	return WEBNN_STATUS_OK;
}

static enum webnn_status ocl_tensor_sync(struct backend_tensor *t, bool to_device,
				       struct wnn_diag *diag)
{
	if (!t->host || t->host_ptr) /* mapped for the host whenever no dispatch runs */
		return WEBNN_STATUS_OK;
	cl_int err = to_device ? clEnqueueWriteBuffer(t->ctx->queue, t->mem, CL_TRUE, 0, t->bytes,
						      t->host, 0, NULL, NULL)
			       : clEnqueueReadBuffer(t->ctx->queue, t->mem, CL_TRUE, 0, t->bytes,
						     t->host, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		return wnn_diag_set(diag, ocl_enqueue_status(err), "%s: %s",
				    to_device ? "writeTensor" : "readTensor", ocl_error_name(err));
	return WEBNN_STATUS_OK;
}

/* Hands the USE_HOST_PTR tensors of a dispatch to the device (unmap) or back to the host (a
 * blocking map, after the kernels); a tensor bound twice moves once. */
static cl_int hand_over(struct backend_tensor *const *ts, size_t n, bool to_device)
{
	cl_int first = CL_SUCCESS;
	for (size_t i = 0; i < n; i++) {
		struct backend_tensor *t = ts[i];
		if (!t || !t->host_ptr || t->unmapped == to_device)
			continue;
		cl_int err = CL_SUCCESS;
		if (to_device) {
			err = clEnqueueUnmapMemObject(t->ctx->queue, t->mem, t->host, 0, NULL, NULL);
		} else {
			size_t alloc = (t->bytes + 3) & ~(size_t)3;
			void *p = clEnqueueMapBuffer(t->ctx->queue, t->mem, CL_TRUE,
						     CL_MAP_READ | CL_MAP_WRITE, 0, alloc, 0, NULL,
						     NULL, &err);
			if (err == CL_SUCCESS && p != t->host)
				err = CL_INVALID_HOST_PTR;
		}
		if (err == CL_SUCCESS)
			t->unmapped = to_device;
		else if (first == CL_SUCCESS)
			first = err;
	}
	return first;
}

static enum webnn_status ocl_execute_tensors(struct backend_plan *p,
					     struct backend_tensor *const *inputs,
					     struct backend_tensor *const *outputs,
					     struct wnn_diag *diag)
{
	cl_int err = hand_over(inputs, p->n_inputs, true);
	if (err == CL_SUCCESS)
		err = hand_over(outputs, p->n_outputs, true);
	enum webnn_status st = err == CL_SUCCESS
		? ocl_execute(p, inputs, outputs, diag)
		: wnn_diag_set(diag, ocl_enqueue_status(err), "dispatch: clEnqueueUnmapMemObject: %s",
			       ocl_error_name(err));
	/* Back to the host whatever happened, so that reads and the client see the memory. */
	cl_int back = hand_over(inputs, p->n_inputs, false);
	cl_int back_out = hand_over(outputs, p->n_outputs, false);
	if (back == CL_SUCCESS)
		back = back_out;
	if (back != CL_SUCCESS && st == WEBNN_STATUS_OK)
		st = wnn_diag_set(diag, ocl_enqueue_status(back), "dispatch: clEnqueueMapBuffer: %s",
				  ocl_error_name(back));
	return st;
}

static bool ocl_supports_be(struct backend *be, enum wnn_op op, enum wnn_dtype type)
{
	(void)be;
	return ocl_supports(op, type);
}

const struct backend_impl backend_opencl = {
	.name = "opencl",
	.serves = BACKEND_SERVES_ACCELERATORS,
	/* PoCL compiles and links kernels, and GPU drivers are reached by ioctl on device nodes */
	.needs = { .kernel_compiler = true,
		   .device_nodes = true,
		   .gpu_ioctl = true,
		   .writable_dir_env = "POCL_CACHE_DIR" },
	.init = ocl_init,
	.warm_caches = ocl_warm_caches,
	.devices = ocl_devices,
	.caps = ocl_caps,
	.shutdown = ocl_shutdown,
	.supports = ocl_supports_be,
	.context_create = ocl_context_create,
	.context_destroy = ocl_context_destroy,
	.context_info = ocl_context_info,
	.tensor_create = ocl_tensor_create,
	.tensor_destroy = ocl_tensor_destroy,
	.tensor_write = ocl_tensor_write,
	.tensor_read = ocl_tensor_read,
	.tensor_create_shared = ocl_tensor_create_shared,
	.tensor_sync = ocl_tensor_sync,
	.compile = ocl_compile,
	.plan_destroy = ocl_plan_destroy,
	.plan_bytes = ocl_plan_bytes,
	.plan_op_bytes = sizeof(struct ocl_step) + OCL_KERNEL_BYTES,
	.copies_constants = true, /* constant buffers */
	.execute = ocl_execute_tensors,
};
