/* The cpu backend: oneDNN engine, host tensors, plans of per-node steps (oneDNN primitives, fast C kernels, reference kernels), one shared thread team. */
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/backend/cpu/cpu.h"
#include "daemon/backend/host/host.h"
#include "daemon/backend/host/kernels.h"
#include "daemon/graph/heap.h"

/*
 * Threads: a shared worker pool. One compute thread, the master of one team of `threads`
 * OpenMP threads (the runtime oneDNN is built on), runs every context's builds and dispatches;
 * the timeline's pool thread hands its job over and waits. So one big dispatch gets every
 * core, and contexts running at once take turns instead of oversubscribing the cores: libgomp
 * workers spin-wait, and two teams on two cores run each dispatch several times slower than
 * taking turns. With the job run on whichever libuv pool thread picked the command, every pool
 * thread would also grow a team of its own (16 teams). A per-dispatch thread budget (cores /
 * running dispatches) was the alternative; it does not work with oneDNN primitives, which fix
 * their thread count when they are created, and gives no dispatch more than its share even
 * when it runs alone for most of its time.
 *
 * Turns are round robin at step granularity: jobs wait in a ring; the one at its head runs
 * until it is finished or, once another job waits, until the end of its current step (a
 * dispatch: one plan step; a build: the nodes its threads are building), then goes to the
 * back. A small dispatch thus waits for about one step of each job ahead of it instead of
 * whole graphs, and a job alone runs straight through. The timeline gives a context one job
 * at a time, so the ring is round robin between contexts. Steps of different plans may
 * interleave: each plan has its own intermediates and scratchpad, each context its stream.
 */
struct cpu_job {
	bool (*fn)(void *arg); /* runs one turn of the job; true when it is finished */
	void *arg;
	bool done;
	struct cpu_job *next;
};

struct backend {
	dnnl_engine_t engine;
	const struct backend_services *services; /* the daemon's log and thread policy */
	int threads;
	bool profile;  /* WEBNN_CPU_PROFILE=1: log every step's time (development aid) */
	bool winograd; /* unless WEBNN_CPU_NO_WINOGRAD is set */
	uint64_t chunk_ns; /* WEBNN_CPU_CHUNK_NS, or 0: CPU_CHUNK_NS and CPU_CONV_CHUNK_NS */
	uint64_t serial_work; /* CPU_SERIAL_WORK, or WEBNN_CPU_SERIAL_WORK */
	char cpu_name[128];
	/* the compute thread and the ring of jobs waiting for their turn */
	pthread_t compute;
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
	struct cpu_job *head, *tail;
	atomic_uint waiting; /* jobs in the ring; read between steps without the lock */
	bool stop;
	/* the keep-awake threads (see keep_awake_main) */
	pthread_t *awake;
	int n_awake;
	_Atomic uint64_t awake_until; /* they spin until then (CLOCK_MONOTONIC ns) */
	_Atomic uint64_t awake_idle_until; /* but not before then: other threads want the cores */
	int loadavg_fd; /* /proc/loadavg, opened before the lockdown; -1: not readable */
	atomic_int awake_asleep;      /* how many wait on awake_wake */
	atomic_bool awake_stop;
	pthread_mutex_t awake_lock;
	pthread_cond_t awake_wake;
	int awake_ready; /* started (and set up) so far; under awake_lock */
};

struct backend_context {
	struct backend *be;
	dnnl_stream_t stream; /* runs of this context (the timeline serialises them) */
	const atomic_bool *cancel; /* the daemon's: this context's jobs stop at a step boundary */
};


struct backend_plan {
	struct backend_context *ctx;
	const struct graph_ir *g;
	struct cpu_step *steps;
	size_t n_steps;
	struct host_values hv;    /* where each value lives during a run */
	uint64_t scratch_bytes;   /* oneDNN scratchpad shared by the steps (they run one at a
				     time) */
	atomic_uint primitives;   /* oneDNN primitives among the steps (cpu_build.primitives) */
	atomic_uint team_primitives; /* those made for the whole team (cpu_build.team_primitives) */
	_Atomic uint64_t owned_bytes; /* the steps' own oneDNN memories (cpu_build.owned_bytes) */
	struct cpu_binds binds;   /* constants bound as reordered weights (cpu_build.binds) */
	void *scratch;
};

/* ---- keeping the team's cores awake while a job runs
 *
 * Between two steps the team's other threads wait in libgomp, which spins 1000 times
 * (GOMP_SPINCOUNT, daemon/main.c: longer spins stall the steps of two busy workers) and then
 * sleeps; a step after a serial one, or after the compute thread's few microseconds between
 * steps, wakes them again. A core whose threads all sleep halts, and a virtual machine's
 * halted core wakes slowly after a long idle (the hypervisor's halt polling shrinks; the
 * host may have given the core away; this machine's guest polls for 0 ns), so a dispatch
 * after 50 ms idle paid that wake-up on many of its team steps (SqueezeNet on an idle 2-core
 * VM: 13-16 halts in a call, cpuidle state1 usage; 1-5 with the spinners, and bench_models'
 * sporadic caller 18.4-20.4 ms -> 8.5-12.0, 1.71-1.95x onnxruntime -> 0.91-1.05x). For
 * CPU_AWAKE_NS after each step starts (and after a job starts or a command is queued for the
 * pool: cpu_work_queued), one thread per team member spins on each core at SCHED_IDLE:
 * those cores stay running and a woken thread preempts the spinner at once (the scheduler
 * takes a core that runs only SCHED_IDLE threads as idle). What they take is bounded by
 * CPU_AWAKE_NS per step (a long single-threaded step does not keep them spinning); otherwise
 * they sleep. WEBNN_CPU_KEEP_AWAKE=0 turns them off.
 *
 * Where other programs keep the cores busy, no core halts and spinning only costs: with
 * autogroup scheduling (or cgroups) a SCHED_IDLE thread is idle within its own group alone,
 * and at the top the worker's group competes at its full weight, so every spin is CPU its
 * team no longer gets (bench_models at load 16: SqueezeNet 16.3-16.5 ms best of 5 rounds
 * without them, 20.8-21.5 with spinners that never stopped). So a spinner looks at the runnable
 * threads of the machine (/proc/loadavg) when it starts and every CPU_AWAKE_CHECK_NS: more
 * than the team and the spinners themselves, and they all sleep for CPU_AWAKE_BACKOFF_NS. */
#define CPU_AWAKE_NS 1000000u
#define CPU_AWAKE_CHECK_NS 100000u
#define CPU_AWAKE_YIELD_NS 20000u
#define CPU_AWAKE_BACKOFF_NS 20000000u

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Whether the spinners should spin at time now. */
static bool keep_awake_wanted(struct backend *be, uint64_t now)
{
	return !atomic_load(&be->awake_stop) && now < atomic_load(&be->awake_until) &&
	       now >= atomic_load(&be->awake_idle_until);
}

/* Whether threads other than the team and the spinners want the machine's cores: the running
 * count of /proc/loadavg ("0.10 0.20 0.30 R/T last") is above what this backend runs. */
static bool keep_awake_crowded(struct backend *be)
{
	char buf[128];
	if (be->loadavg_fd < 0)
		return false;
	ssize_t n = pread(be->loadavg_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *p = buf;
	for (int field = 0; field < 3 && p; field++) {
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	return p && strtol(p, NULL, 10) > be->threads + be->n_awake;
}

/* Spins while wanted, looking at the machine's runnable threads now and then, and yielding
 * as often to the threads of its own group on its core (the compute thread's core has one:
 * within the group a SCHED_IDLE thread still has a small share, taken in whole slices). */
static void keep_awake_spin(struct backend *be)
{
	uint64_t now = mono_ns(), check = now, yield = now + CPU_AWAKE_YIELD_NS;
	while (keep_awake_wanted(be, now)) {
		if (now >= check) {
			if (keep_awake_crowded(be)) {
				atomic_store(&be->awake_idle_until, now + CPU_AWAKE_BACKOFF_NS);
				return;
			}
			check = now + CPU_AWAKE_CHECK_NS;
		}
		if (now >= yield) {
			sched_yield();
			yield = now + CPU_AWAKE_YIELD_NS;
		}
		for (int k = 0; k < 64; k++)
			cpu_relax();
		now = mono_ns();
	}
}

static void *keep_awake_main(void *arg)
{
	struct backend *be = arg;
	pthread_mutex_lock(&be->awake_lock);
	int me = be->awake_ready; /* which core: the threads start one at a time */
	pthread_mutex_unlock(&be->awake_lock);
	struct sched_param sp = { 0 };
	(void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
		for (int c = 0, seen = 0; c < CPU_SETSIZE; c++) {
			if (!CPU_ISSET(c, &allowed) || seen++ != me)
				continue;
			cpu_set_t one;
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			(void)pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
			break;
		}
	}
	pthread_mutex_lock(&be->awake_lock);
	be->awake_ready++;
	pthread_cond_broadcast(&be->awake_wake);
	while (!atomic_load(&be->awake_stop)) {
		/* asleep is raised before the last look at the flags, and a job's start sets them
		 * before it reads asleep: one of the two sees the other */
		atomic_fetch_add(&be->awake_asleep, 1);
		if (!keep_awake_wanted(be, mono_ns()) && !atomic_load(&be->awake_stop))
			pthread_cond_wait(&be->awake_wake, &be->awake_lock);
		atomic_fetch_sub(&be->awake_asleep, 1);
		pthread_mutex_unlock(&be->awake_lock);
		keep_awake_spin(be);
		pthread_mutex_lock(&be->awake_lock);
	}
	pthread_mutex_unlock(&be->awake_lock);
	return NULL;
}

/* Starts the spinners (one per team thread, on as many cores); none when off or refused. */
static void keep_awake_start(struct backend *be, int cores)
{
	const char *env = getenv("WEBNN_CPU_KEEP_AWAKE");
	int n = be->threads < cores ? be->threads : cores;
	if ((env && strcmp(env, "0") == 0) || n < 1)
		return;
	be->loadavg_fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	be->awake = calloc((size_t)n, sizeof(*be->awake));
	if (!be->awake)
		return;
	pthread_mutex_lock(&be->awake_lock);
	for (int i = 0; i < n; i++) {
		if (pthread_create(&be->awake[i], NULL, keep_awake_main, be) != 0)
			break;
		be->n_awake++;
		while (be->awake_ready < be->n_awake)
			pthread_cond_wait(&be->awake_wake, &be->awake_lock);
	}
	pthread_mutex_unlock(&be->awake_lock);
}

/* The compute thread starts a job or a step: the spinners spin CPU_AWAKE_NS from now on. */
static void keep_awake_poke(struct backend *be)
{
	if (!be->n_awake)
		return;
	uint64_t now = mono_ns();
	/* the spinners read awake_until all the time: a store every step would move its cache
	 * line between the cores at every step; a quarter of the window is soon enough */
	if (now + CPU_AWAKE_NS - CPU_AWAKE_NS / 4 > atomic_load_explicit(&be->awake_until,
									  memory_order_relaxed))
		atomic_store(&be->awake_until, now + CPU_AWAKE_NS);
	if (atomic_load(&be->awake_asleep) > 0 && now >= atomic_load(&be->awake_idle_until)) {
		pthread_mutex_lock(&be->awake_lock);
		pthread_cond_broadcast(&be->awake_wake);
		pthread_mutex_unlock(&be->awake_lock);
	}
}

/* A command was queued for the pool: its job reaches the compute thread after two thread
 * hand-overs (pool, compute), so cores that halted during a long idle wake meanwhile. */
static void cpu_work_queued(struct backend *be)
{
	keep_awake_poke(be);
}

/* The last job finished: the spinners stop now rather than CPU_AWAKE_NS after its last step
 * (another worker's threads, in another group, would compete with them meanwhile); the next
 * command's work_queued wakes them again. */
static void keep_awake_rest(struct backend *be)
{
	if (be->n_awake)
		atomic_store(&be->awake_until, 0);
}

static void keep_awake_stop(struct backend *be)
{
	pthread_mutex_lock(&be->awake_lock);
	atomic_store(&be->awake_stop, true);
	pthread_cond_broadcast(&be->awake_wake);
	pthread_mutex_unlock(&be->awake_lock);
	for (int i = 0; i < be->n_awake; i++)
		pthread_join(be->awake[i], NULL);
	free(be->awake);
	if (be->loadavg_fd >= 0)
		close(be->loadavg_fd);
	pthread_mutex_destroy(&be->awake_lock);
	pthread_cond_destroy(&be->awake_wake);
}

/* ---- the compute thread */

/* Appends j to the ring; the lock is held. */
static void ring_push(struct backend *be, struct cpu_job *j)
{
	j->next = NULL;
	if (be->tail)
		be->tail->next = j;
	else
		be->head = j;
	be->tail = j;
	atomic_fetch_add_explicit(&be->waiting, 1, memory_order_relaxed);
}

static void *compute_main(void *arg)
{
	struct backend *be = arg;
	/* the team size is a per-thread setting in OpenMP: this thread's is the pool's */
	omp_set_num_threads(be->threads);
	pthread_mutex_lock(&be->lock);
	for (;;) {
		while (!be->head && !be->stop)
			pthread_cond_wait(&be->wake, &be->lock);
		struct cpu_job *j = be->head;
		if (!j)
			break; /* stopping, nothing queued */
		be->head = j->next;
		if (!be->head)
			be->tail = NULL;
		atomic_fetch_sub_explicit(&be->waiting, 1, memory_order_relaxed);
		pthread_mutex_unlock(&be->lock);
		keep_awake_poke(be);
		bool finished = j->fn(j->arg);
		pthread_mutex_lock(&be->lock);
		if (finished) {
			j->done = true;
			pthread_cond_broadcast(&be->done);
			if (!be->head)
				keep_awake_rest(be);
		} else {
			ring_push(be, j);
		}
	}
	pthread_mutex_unlock(&be->lock);
	return NULL;
}

/* Another job waits for its turn: the running one should end its turn after its current step. */
static bool compute_contended(struct backend *be)
{
	return atomic_load_explicit(&be->waiting, memory_order_relaxed) > 0;
}

/* Runs fn(arg) on the compute thread, one turn per call (fn returns true when finished), in
 * turns with the other jobs; returns when done. */
static void compute_run(struct backend *be, bool (*fn)(void *), void *arg)
{
	struct cpu_job j = { fn, arg, false, NULL };
	pthread_mutex_lock(&be->lock);
	ring_push(be, &j);
	pthread_cond_signal(&be->wake);
	while (!j.done)
		pthread_cond_wait(&be->done, &be->lock);
	pthread_mutex_unlock(&be->lock);
}

/* The team's first job, before any other (and before the worker's lockdown): every thread of it
 * becomes a compute thread (daemon/worker/sched.h), so that requests preempt computations at once. */
static bool team_setup(void *arg)
{
	struct backend *be = arg;
	atomic_int refused = 0;
	char why[128] = "";
#pragma omp parallel num_threads(be->threads)
	{
		char mine[128];
		if (be->services && be->services->compute_thread &&
		    !be->services->compute_thread(mine, sizeof(mine)) &&
		    atomic_fetch_add(&refused, 1) == 0)
			memcpy(why, mine, sizeof(why));
	}
	if (refused)
		backend_log_info(be->services,
				 "cpu backend: compute threads keep the default time slice (%s)", why);
	return true;
}

/* ---- backend */

static void cpu_model_name(char *out, size_t len)
{
	snprintf(out, len, "CPU");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) == 0 && colon) {
			char *v = colon + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			v[strcspn(v, "\n")] = '\0';
			snprintf(out, len, "%s", v);
			break;
		}
	}
	fclose(f);
}

static enum webnn_status cpu_init(const struct backend_options *opts, struct backend **out,
				  struct wnn_diag *diag)
{
	struct backend *be = calloc(1, sizeof(*be));
	if (!be)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
	be->services = opts ? opts->services : NULL;
	/* the daemon's count honours its affinity and cgroup; alone, OpenMP's */
	int cores = be->services && be->services->cores > 0 ? be->services->cores
							     : omp_get_num_procs();
	be->threads = opts && opts->threads > 0 ? opts->threads : cores;
	if (be->threads > cores)
		backend_log_warn(be->services,
				 "cpu backend: %d threads on %d cores oversubscribes them",
				 be->threads, cores);
	cpu_model_name(be->cpu_name, sizeof(be->cpu_name));
	const char *prof = getenv("WEBNN_CPU_PROFILE");
	be->profile = prof && strcmp(prof, "1") == 0;
	be->winograd = getenv("WEBNN_CPU_NO_WINOGRAD") == NULL;
	const char *chunk = getenv("WEBNN_CPU_CHUNK_NS");
	be->chunk_ns = chunk ? strtoull(chunk, NULL, 10) : 0; /* 0: cpu.h's targets */
	const char *serial = getenv("WEBNN_CPU_SERIAL_WORK");
	be->serial_work = serial && *serial ? strtoull(serial, NULL, 10) : CPU_SERIAL_WORK;
	dnnl_status_t st = dnnl_engine_create(&be->engine, dnnl_cpu, 0);
	if (st != dnnl_success) {
		free(be);
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "cpu: oneDNN has no CPU engine (status %d)", (int)st);
	}
	atomic_init(&be->waiting, 0);
	atomic_init(&be->awake_until, 0);
	atomic_init(&be->awake_idle_until, 0);
	be->loadavg_fd = -1;
	atomic_init(&be->awake_asleep, 0);
	atomic_init(&be->awake_stop, false);
	pthread_mutex_init(&be->awake_lock, NULL);
	pthread_cond_init(&be->awake_wake, NULL);
	pthread_mutex_init(&be->lock, NULL);
	pthread_cond_init(&be->wake, NULL);
	pthread_cond_init(&be->done, NULL);
	int e = pthread_create(&be->compute, NULL, compute_main, be);
	if (e != 0) {
		pthread_mutex_destroy(&be->lock);
		pthread_cond_destroy(&be->wake);
		pthread_cond_destroy(&be->done);
		pthread_mutex_destroy(&be->awake_lock);
		pthread_cond_destroy(&be->awake_wake);
		dnnl_engine_destroy(be->engine);
		free(be);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
				    "cpu: cannot start the compute thread: %s", strerror(e));
	}
	compute_run(be, team_setup, be);
	keep_awake_start(be, cores);
	const dnnl_version_t *v = dnnl_version();
	backend_log_info(be->services, "cpu backend: %s, %d thread%s, oneDNN %d.%d.%d (%s)",
		 be->cpu_name, be->threads,
		 be->threads == 1 ? "" : "s", v->major, v->minor, v->patch, v->cpu_runtime ==
		 DNNL_RUNTIME_OMP ? "OpenMP" : "other runtime");
	*out = be;
	return WEBNN_STATUS_OK;
}

static void cpu_shutdown(struct backend *be)
{
	if (!be)
		return;
	pthread_mutex_lock(&be->lock);
	be->stop = true;
	pthread_cond_signal(&be->wake);
	pthread_mutex_unlock(&be->lock);
	pthread_join(be->compute, NULL);
	keep_awake_stop(be);
	pthread_mutex_destroy(&be->lock);
	pthread_cond_destroy(&be->wake);
	pthread_cond_destroy(&be->done);
	dnnl_engine_destroy(be->engine);
	free(be);
}

/* Every operator and type the reference runs: what no fast kernel takes, it runs. */
static bool cpu_supports(struct backend *be, enum wnn_op op, enum wnn_dtype type)
{
	(void)be;
	return hk_supports(op, type);
}

static enum webnn_status cpu_context_create(struct backend *be,
					    const struct backend_context_options *opts,
					    struct backend_context **out, struct wnn_diag *diag)
{
	struct backend_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
	ctx->be = be;
	ctx->cancel = opts ? opts->cancel : NULL;
	if (dnnl_stream_create(&ctx->stream, be->engine, dnnl_stream_default_flags) !=
	    dnnl_success) {
		free(ctx);
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
				    "cpu: oneDNN could not create a stream");
	}
	*out = ctx;
	return WEBNN_STATUS_OK;
}

static void cpu_context_destroy(struct backend_context *ctx)
{
	if (!ctx)
		return;
	dnnl_stream_destroy(ctx->stream);
	free(ctx);
}

static void cpu_device_info(const struct backend *be, struct backend_device_info *info)
{
	memset(info, 0, sizeof(*info));
	info->accelerated = false;
	snprintf(info->device_name, sizeof(info->device_name), "%s", be->cpu_name);
	snprintf(info->device_type, sizeof(info->device_type), "cpu");
	const dnnl_version_t *v = dnnl_version();
	snprintf(info->platform_name, sizeof(info->platform_name), "oneDNN");
	snprintf(info->driver_version, sizeof(info->driver_version), "%d.%d.%d", v->major, v->minor,
		 v->patch);
	/* the layouts oneDNN picks for weights follow the instruction set its kernels use */
	snprintf(info->plan_tag, sizeof(info->plan_tag), "isa %d",
		 (int)dnnl_get_effective_cpu_isa());
	/* oneDNN's CPU convolutions read NHWC activations (NCHW is 1.6-16x slower here) */
	info->preferred_layout = WEBNN_LAYOUT_NHWC;
}

static void cpu_context_info(struct backend_context *ctx, struct backend_device_info *info)
{
	cpu_device_info(ctx->be, info);
}

static uint32_t cpu_devices(struct backend *be, struct backend_device_info *out, uint32_t max)
{
	if (max > 0)
		cpu_device_info(be, out);
	return 1;
}

/* ---- tensors: host memory (daemon/backend/host) */

static enum webnn_status cpu_tensor_create(struct backend_context *ctx, const struct wnn_desc *desc,
					   struct backend_tensor **out, struct wnn_diag *diag)
{
	(void)ctx;
	return host_tensor_create(desc, "cpu", out, diag);
}

static enum webnn_status cpu_tensor_create_shared(struct backend_context *ctx,
						  const struct wnn_desc *desc, void *host,
						  struct backend_tensor **out, struct wnn_diag *diag)
{
	(void)ctx;
	return host_tensor_create_shared(desc, host, "cpu", out, diag);
}

/* ---- plans */

/* NHWC (oneDNN's fast convolutions), epilogues as post-ops, elementwise chains as one C step
 * (cpu_chain_prepare), scale/shift folded into weights, pow as multiplication, matmuls of
 * dequantized constants on the packed weights (cpu_quantized.c). Concat in place
 * is not asked for: oneDNN's concat and the C kernels are memory-bound copies either way. */
static void cpu_caps(struct backend_context *ctx, struct graph_caps *caps)
{
	(void)ctx;
	memset(caps, 0, sizeof(*caps));
	caps->assign_layout = true;
	caps->layout = WEBNN_LAYOUT_NHWC;
	caps->epilogues = true;
	caps->epilogue_leaky_bound = true;
	caps->elementwise_chains = true;
	caps->joins_chain = cpu_joins_chain;
	caps->fold_scale_shift = true;
	caps->rewrite_pow = true;
	/* oneDNN 2.6 has no float16 convolution or matmul on AVX2 CPUs */
	caps->float16_products_in_float32 = true;
	caps->matmul_strided_operands = true;
	caps->quantized_matmul = true;
	caps->int8_products = true;
	caps->reshape_views = true;
	caps->softmax_prologue = true;
}

static void cpu_plan_destroy(struct backend_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n_steps; i++)
		if (plan->steps[i].destroy)
			plan->steps[i].destroy(plan->steps[i].priv);
	host_values_fini(&plan->hv);
	cpu_binds_fini(&plan->binds);
	free(plan->scratch);
	free(plan->steps);
	free(plan);
}

typedef enum webnn_status (*cpu_prepare_fn)(const struct cpu_build *b, struct cpu_step *s,
					    struct wnn_diag *diag);
static const cpu_prepare_fn cpu_prepare_family[WNN_FAMILY_COUNT] = {
#define CPU_FAMILY_ENTRY_(E, name) [WNN_FAMILY_##E] = cpu_##name##_prepare,
	WNN_FAMILIES(CPU_FAMILY_ENTRY_)
#undef CPU_FAMILY_ENTRY_
};

/* The family's fast kernel for the node, else the reference kernel. */
static enum webnn_status step_prepare(const struct cpu_build *b, const struct graph_node *n,
				      struct cpu_step *s, struct wnn_diag *diag)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->g = b->g;
	char name[96];
	if (n->op >= WNN_OP_COUNT)
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "operation: unknown operator %u", (unsigned)n->op);
	enum wnn_dtype t = n->n_inputs ? b->descs[n->inputs[0]].type : WNN_F32;
	/* an int8 product reads quantized values (graph_qdq): its family runs it */
	if (!n->qdq.used && !hk_supports(n->op, t))
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "%s: data type %s is not supported by the cpu backend",
				    graph_node_name(n, name, sizeof(name)), wnn_dtype_name(t));
	/* a small step is built for one thread: its kernels' thread count and, for oneDNN, what
	 * omp_get_max_threads() says while its primitives are made (cpu.h CPU_SERIAL_WORK) */
	struct graph_work w;
	graph_node_work(b->g, n, &w);
	/* a chain runs its members in the same pass: their work is the step's too (GELU's five
	 * operations over [128, 3072] counted as the head's division alone stayed on one thread:
	 * 2.9 ms, a fifth of a BERT layer) */
	for (uint32_t k = 1; n->chain.members && k < n->chain.n_members; k++) {
		struct graph_work m;
		graph_node_work(b->g, &b->g->nodes[n->chain.members[k]], &m);
		w.elements = w.elements + m.elements < w.elements ? UINT64_MAX : w.elements + m.elements;
		w.ops = w.ops + m.ops < w.ops ? UINT64_MAX : w.ops + m.ops;
	}
	struct cpu_build one = *b;
	enum wnn_family fam = wnn_ops[n->op].family;
	uint64_t limit = fam == WNN_FAMILY_CONV || fam == WNN_FAMILY_LINALG
				 ? b->serial_work * CPU_SERIAL_PRODUCT_FACTOR
				 : b->serial_work;
	if (n->op == WNN_OP_MATMUL || n->op == WNN_OP_GEMM) {
		uint32_t bv = n->op == WNN_OP_MATMUL ? n->attrs.matmul.b : n->attrs.gemm.b;
		uint64_t bytes = 0;
		if (wnn_desc_bytes(&b->g->values[bv].desc, &bytes) && bytes > CPU_SERIAL_CACHED_B_BYTES)
			limit = 0;
	}
	bool serial = b->threads > 1 && w.elements < limit && w.ops < limit - w.elements;
	int team = omp_get_max_threads();
	if (serial) {
		one.threads = 1;
		b = &one;
		omp_set_num_threads(1);
	}
	enum webnn_status st = n->chain.members ? cpu_chain_prepare(b, s, diag)
					       : cpu_prepare_family[wnn_ops[n->op].family](b, s, diag);
	if (serial)
		omp_set_num_threads(team);
	s->serial = serial;
	if (st != WEBNN_STATUS_OK) {
		if (s->destroy)
			s->destroy(s->priv);
		memset(s, 0, sizeof(*s));
		return st;
	}
	if (s->run)
		return WEBNN_STATUS_OK;
	if (s->destroy)
		s->destroy(s->priv);
	if (b->binds)
		cpu_binds_step(b->binds, n, false); /* the fallback reads the constants as they are */
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->g = b->g;
	s->serial = serial;
	return cpu_fallback_prepare(b, s, diag);
}

/* Builds steps[k] for live node nodes[k] on a team thread: its own stream for the weight
 * reorders; the first failure's message wins. */
static void build_one(struct backend_plan *plan, const struct cpu_build *b, uint32_t node,
		      struct cpu_step *step, enum webnn_status *first, struct wnn_diag *diag)
{
	const struct graph_node *n = &plan->g->nodes[node];
	struct wnn_diag d = { 0 };
	char name[96];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	enum webnn_status st = step_prepare(b, n, step, &d);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (b->binds)
		cpu_binds_step(b->binds, n, st == WEBNN_STATUS_OK);
	if (st != WEBNN_STATUS_OK) {
#pragma omp critical(cpu_build_error)
		{
			enum webnn_status seen;
#pragma omp atomic read
			seen = *first;
			if (seen == WEBNN_STATUS_OK) {
				*diag = d;
#pragma omp atomic write
				*first = st;
			}
		}
		return;
	}
	backend_log_debug(plan->ctx->be->services, "cpu: %s runs on %s (built in %.2f ms)",
			  graph_node_name(n, name, sizeof(name)), step->impl ? step->impl : "C",
			  (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
}

/* The live nodes a plan gets a step each for, in order. The passes were asked for epilogues
 * only, so a node fused into anything but an epilogue head means they disregarded the caps. */
static enum webnn_status plan_nodes(struct backend_plan *plan, uint32_t *nodes, uint32_t *count,
				    struct wnn_diag *diag)
{
	const struct graph_ir *g = plan->g;
	enum webnn_status st = WEBNN_STATUS_OK;
	*count = 0;
	for (uint32_t i = 0; i < g->n_nodes && st == WEBNN_STATUS_OK; i++) {
		const struct graph_node *n = &g->nodes[i];
		char name[96];
		if (n->state == GRAPH_NODE_FUSED) {
			if (n->fused_into < g->n_nodes && (g->nodes[n->fused_into].epilogue.used ||
							   g->nodes[n->fused_into].chain.members ||
							   g->nodes[n->fused_into].softmax_pre.used))
				continue;
			st = wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					  "cpu: %s was fused in a way this backend does not ask for",
					  graph_node_name(n, name, sizeof(name)));
		} else if (n->state != GRAPH_NODE_LIVE || n->view) {
			continue; /* a view has no kernel: its output is its input's bytes */
		} else if (n->slice.used) {
			st = wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					  "cpu: %s is part of a fusion this backend does not ask for",
					  graph_node_name(n, name, sizeof(name)));
		} else {
			st = host_values_check_node(&plan->hv, i, diag);
			nodes[(*count)++] = i;
		}
	}
	return st;
}

/*
 * A build: one step per live node, built by the team in parallel: creating a oneDNN primitive
 * (JIT code) and reordering its weights is single-threaded work, so two cores halve a
 * SqueezeNet build. Nodes are handed out in order; once another job waits, a turn takes no
 * node after its first, and the next turn resumes where it stopped.
 */
struct build_job {
	struct backend_plan *plan;
	const struct cpu_build *b;
	struct wnn_diag *diag;
	enum webnn_status st;  /* the first failure's */
	uint32_t *nodes;       /* live node of each step; NULL before the first turn */
	uint32_t count, next;  /* steps; the first step not handed out yet */
};

static bool build_job_run(void *arg)
{
	struct build_job *j = arg;
	struct backend_plan *plan = j->plan;
	const struct cpu_build *b = j->b;
	struct backend *be = plan->ctx->be;
	/* a build of a context lost or closed while it waited for its turn is dropped */
	if (backend_cancelled(plan->ctx->cancel)) {
		j->st = backend_cancelled_status(j->diag, "build");
		return true;
	}
	if (!j->nodes) {
		const struct graph_ir *g = plan->g;
		j->nodes = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof(*j->nodes));
		if (!j->nodes) {
			j->st = wnn_diag_set(j->diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
			return true;
		}
		j->st = plan_nodes(plan, j->nodes, &j->count, j->diag);
		/* steps not built stay zeroed: plan destruction skips them */
		plan->n_steps = j->count;
		if (j->st != WEBNN_STATUS_OK)
			return true;
	}
	uint32_t start = j->next;
#pragma omp parallel num_threads(b->threads) if (j->count > 8)
	{
		struct cpu_build bt = *b;
		bool own = dnnl_stream_create(&bt.stream, bt.engine, dnnl_stream_default_flags) ==
			   dnnl_success;
		if (!own) {
#pragma omp critical(cpu_build_error)
			{
				enum webnn_status seen;
#pragma omp atomic read
				seen = j->st;
				if (seen == WEBNN_STATUS_OK) {
					wnn_diag_set(j->diag, WEBNN_STATUS_OPERATION_ERROR,
						     "cpu: oneDNN could not create a stream");
#pragma omp atomic write
					j->st = WEBNN_STATUS_OPERATION_ERROR;
				}
			}
		}
		for (;;) {
			enum webnn_status seen;
			uint32_t k;
#pragma omp atomic read
			seen = j->st;
#pragma omp atomic read
			k = j->next;
			/* a context lost or closed meanwhile: the nodes left are not built */
			if (!own || seen != WEBNN_STATUS_OK || k >= j->count ||
			    (k != start && compute_contended(be)) ||
			    backend_cancelled(plan->ctx->cancel))
				break;
#pragma omp atomic capture
			k = j->next++;
			if (k >= j->count)
				break;
			build_one(plan, &bt, j->nodes[k], &plan->steps[k], &j->st, j->diag);
		}
		if (own)
			dnnl_stream_destroy(bt.stream);
	}
	if (j->next > j->count)
		j->next = j->count; /* the threads that found nothing left still counted */
	if (j->st == WEBNN_STATUS_OK && backend_cancelled(plan->ctx->cancel))
		j->st = backend_cancelled_status(j->diag, "build");
	return j->st != WEBNN_STATUS_OK || j->next == j->count;
}

static enum webnn_status cpu_compile(struct backend_context *ctx, const struct graph_ir *g,
				     struct backend_plan **out, struct wnn_diag *diag)
{
	if (!g->optimized)
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR, "cpu: graph was not optimised");
	struct backend_plan *plan = calloc(1, sizeof(*plan));
	if (!plan)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
	plan->ctx = ctx;
	plan->g = g;
	pthread_mutex_init(&plan->binds.lock, NULL);
	plan->binds.g = g;
	enum webnn_status st = WEBNN_STATUS_OK;
	plan->steps = calloc(g->n_nodes ? g->n_nodes : 1, sizeof(*plan->steps));
	if (!plan->steps)
		st = wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
	if (st == WEBNN_STATUS_OK)
		st = host_values_init(&plan->hv, g, true, "cpu", diag);
	if (st == WEBNN_STATUS_OK) {
		/* builds may run beside this context's runs: weight reorders get a stream of
		 * their own */
		struct cpu_build b = { .g = g, .descs = plan->hv.descs, .engine = ctx->be->engine,
				       .threads = ctx->be->threads,
				       .scratch_bytes = &plan->scratch_bytes,
				       .primitives = &plan->primitives,
				       .team_primitives = &plan->team_primitives,
				       .owned_bytes = &plan->owned_bytes,
				       .binds = &plan->binds,
				       .winograd = ctx->be->winograd, .cancel = ctx->cancel,
				       .chunk_ns = ctx->be->chunk_ns,
				       .serial_work = ctx->be->serial_work };
		if (dnnl_stream_create(&b.stream, b.engine, dnnl_stream_default_flags) !=
		    dnnl_success) {
			st = wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					  "cpu: oneDNN could not create a stream");
		} else {
			struct build_job job = { plan, &b, diag, WEBNN_STATUS_OK, NULL, 0, 0 };
			compute_run(ctx->be, build_job_run, &job);
			free(job.nodes);
			st = job.st;
			dnnl_stream_destroy(b.stream);
		}
	}
	if (st == WEBNN_STATUS_OK && plan->scratch_bytes) {
		uint64_t bytes = (plan->scratch_bytes + 63) & ~(uint64_t)63;
		if (bytes > SIZE_MAX || !(plan->scratch = aligned_alloc(64, (size_t)bytes)))
			st = wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
					  "cpu: out of memory for a %llu-byte oneDNN scratchpad",
					  (unsigned long long)plan->scratch_bytes);
	}
	if (st != WEBNN_STATUS_OK) {
		cpu_plan_destroy(plan);
		return st;
	}
	*out = plan;
	return WEBNN_STATUS_OK;
}

/*
 * Constant folding on the fast kernels: one step of node n, built and run once on the compute
 * thread (in its turn, like any job), over host buffers indexed by value id. The graph has not
 * been through the passes yet: the kernels take either layout, and no node is fused.
 */
struct eval_job {
	struct backend_context *ctx;
	const struct graph_ir *g;
	const struct graph_node *n;
	void *const *bufs;
	const struct wnn_desc *descs;
	struct wnn_diag *diag;
	enum webnn_status st;
};

static bool eval_job_run(void *arg)
{
	struct eval_job *j = arg;
	struct backend_context *ctx = j->ctx;
	if (backend_cancelled(ctx->cancel)) {
		j->st = backend_cancelled_status(j->diag, "build");
		return true;
	}
	uint64_t scratch_bytes = 0;
	atomic_uint primitives;
	atomic_init(&primitives, 0);
	struct cpu_build b = { .g = j->g, .descs = j->descs, .engine = ctx->be->engine,
			       .threads = ctx->be->threads, .scratch_bytes = &scratch_bytes,
			       .primitives = &primitives, .winograd = ctx->be->winograd,
			       .cancel = ctx->cancel, .chunk_ns = ctx->be->chunk_ns,
			       .serial_work = ctx->be->serial_work };
	/* its own stream: a build may run beside this context's dispatches */
	if (dnnl_stream_create(&b.stream, b.engine, dnnl_stream_default_flags) != dnnl_success) {
		j->st = wnn_diag_set(j->diag, WEBNN_STATUS_OPERATION_ERROR,
				     "cpu: oneDNN could not create a stream");
		return true;
	}
	struct cpu_step step;
	void *scratch = NULL;
	j->st = step_prepare(&b, j->n, &step, j->diag);
	if (j->st == WEBNN_STATUS_OK && scratch_bytes) {
		uint64_t bytes = (scratch_bytes + 63) & ~(uint64_t)63;
		if (bytes > SIZE_MAX || !(scratch = aligned_alloc(64, (size_t)bytes)))
			j->st = wnn_diag_set(j->diag, WEBNN_STATUS_NO_MEMORY,
					     "cpu: out of memory for a %llu-byte oneDNN scratchpad",
					     (unsigned long long)scratch_bytes);
	}
	if (j->st == WEBNN_STATUS_OK) {
		struct cpu_exec x = { .stream = b.stream,
				      .threads = step.serial ? 1 : ctx->be->threads,
				      .scratch = scratch, .cancel = ctx->cancel, .work = "build" };
		j->st = step.run(&step, j->bufs, &x, j->diag);
		/* a C kernel cancelled meanwhile skipped the rest of its blocks: nothing is folded */
		if (j->st == WEBNN_STATUS_OK && backend_cancelled(ctx->cancel))
			j->st = backend_cancelled_status(j->diag, "build");
		if (j->st == WEBNN_STATUS_OK && step.epilogue_after)
			cpu_epilogue_apply(j->g, j->n, j->bufs, x.threads);
	}
	if (step.destroy)
		step.destroy(step.priv);
	free(scratch);
	dnnl_stream_destroy(b.stream);
	return true;
}

static enum webnn_status cpu_evaluate(struct backend_context *ctx, const struct graph_ir *g,
				      const struct graph_node *n, const void *const *inputs,
				      void *const *outputs, struct wnn_diag *diag)
{
	/* buffers and descriptors by value id, up to the node's largest */
	uint32_t top = 0;
	for (uint32_t k = 0; k < n->n_inputs; k++)
		top = n->inputs[k] > top ? n->inputs[k] : top;
	for (uint32_t k = 0; k < n->n_outputs; k++)
		top = n->outputs[k] > top ? n->outputs[k] : top;
	void **bufs = calloc((size_t)top + 1, sizeof(*bufs));
	struct wnn_desc *descs = calloc((size_t)top + 1, sizeof(*descs));
	if (!bufs || !descs) {
		free(bufs);
		free(descs);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
	}
	for (uint32_t v = 0; v <= top; v++)
		descs[v] = g->values[v].desc;
	for (uint32_t k = 0; k < n->n_inputs; k++)
		bufs[n->inputs[k]] = (void *)inputs[k]; /* kernels never write their inputs */
	for (uint32_t k = 0; k < n->n_outputs; k++)
		bufs[n->outputs[k]] = outputs[k];
	struct eval_job job = { ctx, g, n, bufs, descs, diag, WEBNN_STATUS_OK };
	compute_run(ctx->be, eval_job_run, &job);
	free(bufs);
	free(descs);
	return job.st;
}

/* What a step's state and a oneDNN primitive take besides the memories counted exactly:
 * measured (tests/hostile_accounting.c: graphs of 20000 elementwise steps, and hundreds of
 * graphs of one matmul primitive, grow the worker by less than they are charged; a small
 * matmul graph took about 15 KiB in all before it was charged). A primitive holds its
 * descriptors, argument memories and JIT code (oneDNN's primitive cache shares the code of
 * equal primitives and is bounded). */
#define CPU_STEP_BYTES 512u
#define CPU_PRIMITIVE_BYTES (16u << 10)

static uint64_t cpu_plan_bytes(const struct backend_plan *plan)
{
	uint64_t n = plan->g && plan->g->n_nodes ? plan->g->n_nodes : 1;
	return heap_chunk_bytes(sizeof(*plan)) + heap_chunk_bytes(n * sizeof(*plan->steps)) +
	       host_values_bytes(&plan->hv) + (plan->scratch ? plan->scratch_bytes + 64 : 0) +
	       atomic_load_explicit(&plan->owned_bytes, memory_order_relaxed) +
	       plan->n_steps * (uint64_t)CPU_STEP_BYTES +
	       atomic_load_explicit(&plan->primitives, memory_order_relaxed) *
		       (uint64_t)CPU_PRIMITIVE_BYTES;
}

struct run_job {
	struct backend_plan *plan;
	struct wnn_diag *diag;
	enum webnn_status st;
	size_t next; /* the step its next turn starts with */
};

/* Runs steps from j->next on, with `threads` threads. With turns, ends early after a step when
 * another job waits for the compute thread (returns false; j->next says where to go on). */
static bool run_steps(struct run_job *j, int threads, bool turns)
{
	struct backend_plan *plan = j->plan;
	const struct graph_ir *g = plan->g;
	struct backend *be = plan->ctx->be;
	struct cpu_exec x = { .stream = plan->ctx->stream, .threads = threads,
			      .scratch = plan->scratch, .cancel = plan->ctx->cancel,
			      .work = "dispatch" };
	enum webnn_status st = WEBNN_STATUS_OK;
	struct wnn_diag *diag = j->diag;
	for (size_t k = j->next; k < plan->n_steps && st == WEBNN_STATUS_OK; k++) {
		if (turns && k > j->next && compute_contended(be)) {
			j->next = k;
			return false;
		}
		const struct cpu_step *s = &plan->steps[k];
		struct timespec t0, t1;
		/* a run that waited in the queue, or is between steps, when its context went */
		if (backend_cancelled(plan->ctx->cancel)) {
			st = backend_cancelled_status(diag, "dispatch");
			break;
		}
		if (be->profile)
			clock_gettime(CLOCK_MONOTONIC, &t0);
		x.threads = s->serial ? 1 : threads;
		if (turns)
			keep_awake_poke(be);
		st = s->run(s, plan->hv.bufs, &x, diag);
		/* a C kernel cancelled meanwhile skipped the rest of its blocks */
		if (st == WEBNN_STATUS_OK && backend_cancelled(plan->ctx->cancel))
			st = backend_cancelled_status(diag, "dispatch");
		if (st == WEBNN_STATUS_OK && s->epilogue_after)
			cpu_epilogue_apply(g, s->n, plan->hv.bufs, x.threads);
		if (be->profile) {
			char name[96], shape[96];
			clock_gettime(CLOCK_MONOTONIC, &t1);
			char members[32] = "";
			if (s->n->chain.members)
				snprintf(members, sizeof(members), " (+%u chained)",
					 s->n->chain.n_members - 1);
			backend_log_info(be->services,
				 "cpu profile: step %zu %s%s -> %s on %s, %d thread%s: %.3f ms", k,
				 graph_node_name(s->n, name, sizeof(name)), members,
				 wnn_desc_str(&g->values[s->n->outputs[0]].desc, shape, sizeof(shape)),
				 s->impl ? s->impl : "C", x.threads, x.threads == 1 ? "" : "s",
				 (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
		}
	}
	j->st = st;
	return true;
}

/* The steps of a plan, in order, on the compute thread: one turn, which ends early after a step
 * when another job waits. */
static bool run_job_run(void *arg)
{
	struct run_job *j = arg;
	return run_steps(j, j->plan->ctx->be->threads, true);
}

static enum webnn_status cpu_execute(struct backend_plan *plan,
				     struct backend_tensor *const *inputs,
				     struct backend_tensor *const *outputs, struct wnn_diag *diag)
{
	host_values_bind_run(&plan->hv, inputs, outputs);
	struct run_job job = { plan, diag, WEBNN_STATUS_OK, 0 };
	compute_run(plan->ctx->be, run_job_run, &job);
	if (job.st != WEBNN_STATUS_OK)
		return job.st;
	host_values_copy_outputs(&plan->hv, outputs);
	return WEBNN_STATUS_OK;
}

static bool cpu_plan_quick(const struct backend_plan *plan)
{
	return atomic_load_explicit(&plan->team_primitives, memory_order_relaxed) == 0;
}

size_t cpu_plan_team_steps(const struct backend_plan *plan)
{
	size_t n = 0;
	for (size_t i = 0; i < plan->n_steps; i++)
		n += plan->steps[i].run && !plan->steps[i].serial;
	return n;
}

/* The quick path: the C kernels and the serial steps' primitives (made for one thread) on the
 * calling thread (a team of one), beside whatever the compute thread runs for other contexts;
 * they share nothing with it but read-only state (oneDNN primitives may run on several threads
 * at once; each context has its own stream, each plan its own scratchpad). */
static enum webnn_status cpu_execute_quick(struct backend_plan *plan,
					   struct backend_tensor *const *inputs,
					   struct backend_tensor *const *outputs,
					   struct wnn_diag *diag)
{
	host_values_bind_run(&plan->hv, inputs, outputs);
	struct run_job job = { plan, diag, WEBNN_STATUS_OK, 0 };
	run_steps(&job, 1, false);
	if (job.st != WEBNN_STATUS_OK)
		return job.st;
	host_values_copy_outputs(&plan->hv, outputs);
	return WEBNN_STATUS_OK;
}

const struct backend_impl backend_cpu = {
	.name = "cpu",
	.serves = BACKEND_SERVES_CPU,
	.needs = { .thread_team = true },
	.cost_model = &graph_cost_fast,
	.init = cpu_init,
	.shutdown = cpu_shutdown,
	.work_queued = cpu_work_queued,
	.devices = cpu_devices,
	.supports = cpu_supports,
	.context_create = cpu_context_create,
	.context_destroy = cpu_context_destroy,
	.context_info = cpu_context_info,
	.tensor_create = cpu_tensor_create,
	.tensor_destroy = host_tensor_destroy,
	.tensor_write = host_tensor_write,
	.tensor_read = host_tensor_read,
	.tensor_create_shared = cpu_tensor_create_shared,
	.caps = cpu_caps,
	.evaluate = cpu_evaluate,
	.compile = cpu_compile,
	.plan_destroy = cpu_plan_destroy,
	.plan_bytes = cpu_plan_bytes,
	.plan_op_bytes = CPU_STEP_BYTES,
	.copies_constants = true, /* reordered weights */
	.prepared_take = cpu_weights_take,
	.prepared_release = cpu_weights_release_prepared,
	.prepared_adopt = cpu_weights_adopt,
	.prepared_hold = cpu_weights_hold,
	.prepared_restore = cpu_weights_restore,
	.execute = cpu_execute,
	.plan_quick = cpu_plan_quick,
	.execute_quick = cpu_execute_quick,
	.host_tensors = true,
};
