/* The cpu backend: oneDNN engine, host tensors, plans of per-node steps (oneDNN primitives, fast C kernels, reference kernels), one shared thread team. */
#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/backend/cpu/cpu.h"
#include "daemon/backend/reference/ref.h"
#include "daemon/log.h"

/*
 * Threads: one team of `threads` OpenMP threads (the runtime oneDNN is built on) serves every
 * context. Runs and builds take the backend's compute turn first, in arrival order, so one big
 * dispatch gets all the cores and two contexts never oversubscribe them: libgomp teams
 * spin-wait, and two teams on two cores run each dispatch several times slower than taking
 * turns. A per-dispatch thread budget (cores / running dispatches) was the alternative; it
 * does not work with oneDNN primitives, which fix their thread count when they are created.
 */
struct backend {
	dnnl_engine_t engine;
	int threads;
	char cpu_name[128];
	/* the compute turn: a ticket lock, so waiting contexts are served first come first */
	pthread_mutex_t turn_lock;
	pthread_cond_t turn_cond;
	uint64_t next_ticket, serving;
};

struct backend_context {
	struct backend *be;
	dnnl_stream_t stream; /* runs of this context (the timeline serialises them) */
};

struct backend_tensor {
	struct wnn_desc desc;
	size_t bytes;
	void *data;
};

enum cpu_source { CPU_SRC_NONE, CPU_SRC_INPUT, CPU_SRC_CONSTANT, CPU_SRC_OUTPUT, CPU_SRC_BUFFER,
		  CPU_SRC_ALIAS };

struct backend_plan {
	struct backend_context *ctx;
	const struct graph_ir *g;
	struct cpu_step *steps;
	size_t n_steps;
	struct wnn_desc *descs;   /* per value */
	enum cpu_source *src;     /* per value */
	uint32_t *alias;          /* CPU_SRC_ALIAS: the value whose storage it shares */
	void **buffers;           /* the memory plan's buffers */
	void **bufs;              /* per value, for the run in progress */
	uint64_t scratch_bytes;   /* oneDNN scratchpad shared by the steps (they run one at a
				     time) */
	void *scratch;
};

/* ---- the compute turn */

static void turn_take(struct backend *be)
{
	pthread_mutex_lock(&be->turn_lock);
	uint64_t me = be->next_ticket++;
	while (be->serving != me)
		pthread_cond_wait(&be->turn_cond, &be->turn_lock);
	pthread_mutex_unlock(&be->turn_lock);
	/* the team size is a per-thread setting in OpenMP: set it on whichever pool thread runs */
	omp_set_num_threads(be->threads);
}

static void turn_give(struct backend *be)
{
	pthread_mutex_lock(&be->turn_lock);
	be->serving++;
	pthread_cond_broadcast(&be->turn_cond);
	pthread_mutex_unlock(&be->turn_lock);
}

/* ---- backend */

/* Cores this process may run on (cpuset and affinity respected). */
static int cpu_cores(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return 1;
}

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
	int cores = cpu_cores();
	be->threads = opts && opts->threads > 0 ? opts->threads : cores;
	if (be->threads > cores)
		log_warn("cpu backend: %d threads on %d cores oversubscribes them", be->threads,
			 cores);
	pthread_mutex_init(&be->turn_lock, NULL);
	pthread_cond_init(&be->turn_cond, NULL);
	cpu_model_name(be->cpu_name, sizeof(be->cpu_name));
	dnnl_status_t st = dnnl_engine_create(&be->engine, dnnl_cpu, 0);
	if (st != dnnl_success) {
		pthread_mutex_destroy(&be->turn_lock);
		pthread_cond_destroy(&be->turn_cond);
		free(be);
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "cpu: oneDNN has no CPU engine (status %d)", (int)st);
	}
	const dnnl_version_t *v = dnnl_version();
	log_info("cpu backend: %s, %d thread%s, oneDNN %d.%d.%d (%s)", be->cpu_name, be->threads,
		 be->threads == 1 ? "" : "s", v->major, v->minor, v->patch, v->cpu_runtime ==
		 DNNL_RUNTIME_OMP ? "OpenMP" : "other runtime");
	*out = be;
	return WEBNN_STATUS_OK;
}

static void cpu_shutdown(struct backend *be)
{
	if (!be)
		return;
	dnnl_engine_destroy(be->engine);
	pthread_mutex_destroy(&be->turn_lock);
	pthread_cond_destroy(&be->turn_cond);
	free(be);
}

/* Every operator and type the reference runs: what no fast kernel takes, it runs. */
static bool cpu_supports(struct backend *be, enum wnn_op op, enum wnn_dtype type)
{
	(void)be;
	return ref_supports(op, type);
}

static enum webnn_status cpu_context_create(struct backend *be,
					    const struct backend_context_options *opts,
					    struct backend_context **out, struct wnn_diag *diag)
{
	(void)opts;
	struct backend_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
	ctx->be = be;
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

/* ---- tensors: host memory, cache-line aligned for the vector kernels */

static enum webnn_status cpu_tensor_create(struct backend_context *ctx, const struct wnn_desc *desc,
					   struct backend_tensor **out, struct wnn_diag *diag)
{
	(void)ctx;
	uint64_t bytes;
	if (!wnn_desc_bytes(desc, &bytes) || bytes > SIZE_MAX - 64)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "cpu: tensor descriptor is not valid");
	struct backend_tensor *t = calloc(1, sizeof(*t));
	size_t alloc = ((size_t)bytes + 63) & ~(size_t)63;
	void *data = aligned_alloc(64, alloc ? alloc : 64);
	if (!t || !data) {
		free(t);
		free(data);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
				    "cpu: out of memory for a tensor of %llu bytes",
				    (unsigned long long)bytes);
	}
	memset(data, 0, alloc ? alloc : 64);
	t->desc = *desc;
	t->bytes = (size_t)bytes;
	t->data = data;
	*out = t;
	return WEBNN_STATUS_OK;
}

static void cpu_tensor_destroy(struct backend_tensor *t)
{
	if (!t)
		return;
	free(t->data);
	free(t);
}

static enum webnn_status cpu_tensor_write(struct backend_tensor *t, const void *src, size_t size,
					  struct wnn_diag *diag)
{
	if (size != t->bytes)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "writeTensor: %zu bytes given, the tensor has %zu", size, t->bytes);
	memcpy(t->data, src, size);
	return WEBNN_STATUS_OK;
}

static enum webnn_status cpu_tensor_read(struct backend_tensor *t, void *dst, size_t size,
					 struct wnn_diag *diag)
{
	if (size != t->bytes)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "readTensor: %zu bytes asked, the tensor has %zu", size, t->bytes);
	memcpy(dst, t->data, size);
	return WEBNN_STATUS_OK;
}

/* ---- plans */

/* NHWC (oneDNN's fast convolutions), epilogues as post-ops; chains and concat in place are
 * not asked for: oneDNN's concat and the C kernels are memory-bound copies either way. */
static void cpu_caps(struct backend_context *ctx, struct graph_caps *caps)
{
	(void)ctx;
	memset(caps, 0, sizeof(*caps));
	caps->assign_layout = true;
	caps->layout = WEBNN_LAYOUT_NHWC;
	caps->epilogues = true;
}

static void cpu_plan_destroy(struct backend_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n_steps; i++)
		if (plan->steps[i].destroy)
			plan->steps[i].destroy(plan->steps[i].priv);
	if (plan->buffers)
		for (uint32_t i = 0; i < plan->g->plan.n_buffers; i++)
			free(plan->buffers[i]);
	free(plan->buffers);
	free(plan->scratch);
	free(plan->steps);
	free(plan->descs);
	free(plan->src);
	free(plan->alias);
	free(plan->bufs);
	free(plan);
}

static enum webnn_status plan_alloc(struct backend_plan *plan, struct wnn_diag *diag)
{
	const struct graph_ir *g = plan->g;
	size_t nv = g->n_values ? g->n_values : 1;
	const struct graph_plan *mp = &g->plan;
	plan->descs = calloc(nv, sizeof(*plan->descs));
	plan->src = calloc(nv, sizeof(*plan->src));
	plan->alias = calloc(nv, sizeof(*plan->alias));
	plan->bufs = calloc(nv, sizeof(*plan->bufs));
	plan->steps = calloc(g->n_nodes ? g->n_nodes : 1, sizeof(*plan->steps));
	plan->buffers = calloc(mp->n_buffers ? mp->n_buffers : 1, sizeof(*plan->buffers));
	if (!plan->descs || !plan->src || !plan->alias || !plan->bufs || !plan->steps ||
	    !plan->buffers)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "cpu: out of memory");
	for (uint32_t i = 0; i < mp->n_buffers; i++) {
		uint64_t bytes = (mp->buffer_bytes[i] + 63) & ~(uint64_t)63;
		if (bytes > SIZE_MAX || !(plan->buffers[i] = aligned_alloc(64, bytes ? bytes : 64)))
			return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
					    "cpu: out of memory for an intermediate buffer of %llu "
					    "bytes", (unsigned long long)mp->buffer_bytes[i]);
		memset(plan->buffers[i], 0, bytes ? bytes : 64);
	}
	return WEBNN_STATUS_OK;
}

/* Where each value lives during a run (as in the reference backend), plus: an epilogue head's
 * own output shares the storage of the value its epilogue finally writes. */
static enum webnn_status plan_bind_values(struct backend_plan *plan, struct wnn_diag *diag)
{
	const struct graph_ir *g = plan->g;
	for (uint32_t v = 0; v < g->n_values; v++) {
		const struct graph_value *val = &g->values[v];
		plan->descs[v] = val->desc;
		if (val->kind == GRAPH_VALUE_INPUT && val->input_index != GRAPH_NONE) {
			plan->src[v] = CPU_SRC_INPUT;
		} else if (val->kind == GRAPH_VALUE_CONSTANT && val->data) {
			plan->src[v] = CPU_SRC_CONSTANT;
			plan->bufs[v] = (void *)val->data; /* kernels never write constants */
		} else if (val->kind == GRAPH_VALUE_INTERMEDIATE && val->output_index != GRAPH_NONE) {
			plan->src[v] = CPU_SRC_OUTPUT;
		} else if (val->kind == GRAPH_VALUE_INTERMEDIATE && val->buffer != GRAPH_NONE) {
			plan->src[v] = CPU_SRC_BUFFER;
			plan->bufs[v] = plan->buffers[val->buffer];
		}
	}
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		const struct graph_node *n = &g->nodes[i];
		if (!n->epilogue.used || n->epilogue.output == n->outputs[0])
			continue;
		plan->src[n->outputs[0]] = CPU_SRC_ALIAS;
		plan->alias[n->outputs[0]] = n->epilogue.output;
	}
	for (uint32_t i = 0; i < g->n_outputs; i++) {
		uint32_t v = g->outputs[i];
		if (v >= g->n_values ||
		    (plan->src[v] != CPU_SRC_OUTPUT && plan->src[v] != CPU_SRC_CONSTANT))
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "cpu: output %u is not produced by an operation", i);
	}
	return WEBNN_STATUS_OK;
}

/* Every value a live node reads has bytes when it runs, every value it writes a place. */
static enum webnn_status plan_check_node(const struct backend_plan *plan, uint32_t index,
					 struct wnn_diag *diag)
{
	const struct graph_ir *g = plan->g;
	const struct graph_node *n = &g->nodes[index];
	char name[96];
	for (uint32_t j = 0; j < n->n_inputs; j++) {
		uint32_t v = n->inputs[j];
		enum cpu_source src = v < g->n_values ? plan->src[v] : CPU_SRC_NONE;
		bool computed = src == CPU_SRC_OUTPUT || src == CPU_SRC_BUFFER;
		bool has_data = computed ? g->values[v].producer < index
					 : src != CPU_SRC_NONE && src != CPU_SRC_ALIAS;
		if (!has_data)
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "%s: input operand %u has no data (not an input, constant "
					    "or earlier result)", graph_node_name(n, name, sizeof(name)),
					    v);
	}
	for (uint32_t j = 0; j < n->n_outputs; j++) {
		uint32_t v = n->outputs[j];
		enum cpu_source src = v < g->n_values ? plan->src[v] : CPU_SRC_NONE;
		if (g->values[v].producer != index ||
		    (src != CPU_SRC_OUTPUT && src != CPU_SRC_BUFFER && src != CPU_SRC_ALIAS))
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "%s: output operand %u has no storage in the memory plan",
					    graph_node_name(n, name, sizeof(name)), v);
	}
	return WEBNN_STATUS_OK;
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
	if (!ref_supports(n->op, t))
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "%s: data type %s is not supported by the cpu backend",
				    graph_node_name(n, name, sizeof(name)), wnn_dtype_name(t));
	enum webnn_status st = cpu_prepare_family[wnn_ops[n->op].family](b, s, diag);
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
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->g = b->g;
	return cpu_fallback_prepare(b, s, diag);
}

/* One step per live node. The passes were asked for epilogues only, so a node fused into
 * anything but an epilogue head means they disregarded the caps. */
static enum webnn_status plan_steps(struct backend_plan *plan, const struct cpu_build *b,
				    struct wnn_diag *diag)
{
	const struct graph_ir *g = plan->g;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		char name[96];
		if (n->state == GRAPH_NODE_FUSED) {
			if (n->fused_into < g->n_nodes && g->nodes[n->fused_into].epilogue.used)
				continue;
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "cpu: %s was fused in a way this backend does not ask for",
					    graph_node_name(n, name, sizeof(name)));
		}
		if (n->state != GRAPH_NODE_LIVE)
			continue;
		if (n->chain.members || n->slice.used)
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "cpu: %s is part of a fusion this backend does not ask for",
					    graph_node_name(n, name, sizeof(name)));
		enum webnn_status st = plan_check_node(plan, i, diag);
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (st == WEBNN_STATUS_OK)
			st = step_prepare(b, n, &plan->steps[plan->n_steps], diag);
		if (st != WEBNN_STATUS_OK)
			return st;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		log_debug("cpu: %s runs on %s (built in %.2f ms)",
			  graph_node_name(n, name, sizeof(name)),
			  plan->steps[plan->n_steps].impl ? plan->steps[plan->n_steps].impl : "C",
			  (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
		plan->n_steps++;
	}
	return WEBNN_STATUS_OK;
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
	enum webnn_status st = plan_alloc(plan, diag);
	if (st == WEBNN_STATUS_OK)
		st = plan_bind_values(plan, diag);
	if (st == WEBNN_STATUS_OK) {
		/* builds may run beside this context's runs: weight reorders get a stream of
		 * their own */
		struct cpu_build b = { .g = g, .descs = plan->descs, .engine = ctx->be->engine,
				       .threads = ctx->be->threads,
				       .scratch_bytes = &plan->scratch_bytes };
		if (dnnl_stream_create(&b.stream, b.engine, dnnl_stream_default_flags) !=
		    dnnl_success) {
			st = wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					  "cpu: oneDNN could not create a stream");
		} else {
			turn_take(ctx->be);
			st = plan_steps(plan, &b, diag);
			turn_give(ctx->be);
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

static enum webnn_status cpu_execute(struct backend_plan *plan,
				     struct backend_tensor *const *inputs,
				     struct backend_tensor *const *outputs, struct wnn_diag *diag)
{
	const struct graph_ir *g = plan->g;
	for (uint32_t v = 0; v < g->n_values; v++) {
		if (plan->src[v] == CPU_SRC_INPUT)
			plan->bufs[v] = inputs[g->values[v].input_index]->data;
		else if (plan->src[v] == CPU_SRC_OUTPUT)
			plan->bufs[v] = outputs[g->values[v].output_index]->data;
	}
	for (uint32_t v = 0; v < g->n_values; v++)
		if (plan->src[v] == CPU_SRC_ALIAS)
			plan->bufs[v] = plan->bufs[plan->alias[v]];
	struct backend *be = plan->ctx->be;
	struct cpu_exec x = { .stream = plan->ctx->stream, .threads = be->threads,
			      .scratch = plan->scratch };
	enum webnn_status st = WEBNN_STATUS_OK;
	turn_take(be);
	for (size_t k = 0; k < plan->n_steps && st == WEBNN_STATUS_OK; k++) {
		const struct cpu_step *s = &plan->steps[k];
		st = s->run(s, plan->bufs, &x, diag);
		if (st == WEBNN_STATUS_OK && s->epilogue_after)
			cpu_epilogue_apply(g, s->n, plan->bufs, x.threads);
	}
	turn_give(be);
	if (st != WEBNN_STATUS_OK)
		return st;
	/* later bindings of an output value, and outputs that folding made constant */
	for (uint32_t i = 0; i < g->n_outputs; i++) {
		uint32_t v = g->outputs[i];
		if (plan->src[v] == CPU_SRC_CONSTANT || g->values[v].output_index != i)
			memcpy(outputs[i]->data, plan->bufs[v], outputs[i]->bytes);
	}
	return WEBNN_STATUS_OK;
}

const struct backend_impl backend_cpu = {
	.name = "cpu",
	.init = cpu_init,
	.shutdown = cpu_shutdown,
	.devices = cpu_devices,
	.supports = cpu_supports,
	.context_create = cpu_context_create,
	.context_destroy = cpu_context_destroy,
	.context_info = cpu_context_info,
	.tensor_create = cpu_tensor_create,
	.tensor_destroy = cpu_tensor_destroy,
	.tensor_write = cpu_tensor_write,
	.tensor_read = cpu_tensor_read,
	.caps = cpu_caps,
	.compile = cpu_compile,
	.plan_destroy = cpu_plan_destroy,
	.execute = cpu_execute,
};
