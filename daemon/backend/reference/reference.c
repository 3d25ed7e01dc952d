/* The reference backend, the test oracle: host tensors, plans of host-kernel steps (daemon/backend/host/kernels.h) over the graph IR's live nodes, fault injection. */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/backend/host/host.h"
#include "daemon/backend/host/kernels.h"
#include "daemon/graph/heap.h"

/*
 * Test hook, not a feature: WEBNN_REFERENCE_FAULT=<kind>:<n> makes executes fail on demand so
 * the tests can drive the daemon's and libwebnn's failure paths (ErrorEvent, poisoned outputs,
 * ContextLost) end to end. Executes are counted from 1 over the whole backend (all contexts and
 * connections). Kinds:
 *   execute-error       the n-th and every later execute fails with OPERATION_ERROR
 *   execute-error-once  only the n-th execute fails with OPERATION_ERROR
 *   context-lost        the n-th execute returns CONTEXT_LOST (the device "went away")
 * Anything else (n must be a plain decimal >= 1) is logged as an error and injects nothing.
 */
enum ref_fault { REF_FAULT_NONE, REF_FAULT_ERROR, REF_FAULT_ERROR_ONCE, REF_FAULT_LOST };

/* No devices or caches: every context is the host CPU. Only the test hook has state. */
struct backend {
	const struct backend_services *services; /* the daemon's log */
	enum ref_fault fault;
	uint64_t fault_at;
	char fault_spec[64];
	atomic_uint_least64_t n_executes; /* executes of different contexts run concurrently */
};

struct backend_context {
	struct backend *be;
	const atomic_bool *cancel; /* the daemon's: runs stop at the next step */
};


struct backend_plan {
	struct backend *be;
	const atomic_bool *cancel; /* the context's; NULL for plans made without one */
	const struct graph_ir *g;
	struct hk_step *steps;    /* one per live node, in the graph's order */
	size_t n_steps;
	struct host_values hv;    /* where each value lives during a run */
};

/* ---- backend and contexts */

static void ref_fault_parse(struct backend *be, const char *spec)
{
	static const struct {
		const char *name;
		enum ref_fault kind;
	} kinds[] = { { "execute-error:", REF_FAULT_ERROR },
		      { "execute-error-once:", REF_FAULT_ERROR_ONCE },
		      { "context-lost:", REF_FAULT_LOST } };
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t len = strlen(kinds[i].name);
		if (strncmp(spec, kinds[i].name, len) != 0)
			continue;
		const char *num = spec + len;
		char *end;
		errno = 0;
		unsigned long long n = strtoull(num, &end, 10);
		if (*num < '1' || *num > '9' || *end || errno)
			break;
		be->fault = kinds[i].kind;
		be->fault_at = n;
		snprintf(be->fault_spec, sizeof(be->fault_spec), "%s", spec);
		backend_log_warn(be->services,
				 "reference backend: WEBNN_REFERENCE_FAULT=%s: injecting faults (a "
				 "test hook)", be->fault_spec);
		return;
	}
	backend_log_error(be->services,
			  "reference backend: WEBNN_REFERENCE_FAULT=\"%s\" is not execute-error:<n>, "
			  "execute-error-once:<n> or context-lost:<n> with n >= 1; no fault injected",
			  spec);
}

/* The injected failure for this execute, if any (see WEBNN_REFERENCE_FAULT above). */
static enum webnn_status ref_fault_check(struct backend *be, struct wnn_diag *diag)
{
	if (!be || be->fault == REF_FAULT_NONE)
		return WEBNN_STATUS_OK;
	uint64_t k = atomic_fetch_add(&be->n_executes, 1) + 1;
	bool hit = be->fault == REF_FAULT_ERROR ? k >= be->fault_at : k == be->fault_at;
	if (!hit)
		return WEBNN_STATUS_OK;
	if (be->fault == REF_FAULT_LOST)
		return wnn_diag_set(diag, WEBNN_STATUS_CONTEXT_LOST,
				    "injected fault (WEBNN_REFERENCE_FAULT=%s): the device was lost "
				    "during execute %" PRIu64, be->fault_spec, k);
	return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
			    "injected fault (WEBNN_REFERENCE_FAULT=%s): execute %" PRIu64 " failed",
			    be->fault_spec, k);
}

static enum webnn_status ref_init(const struct backend_options *opts, struct backend **out,
				  struct wnn_diag *diag)
{
	struct backend *be = calloc(1, sizeof(*be));
	if (!be)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "reference: out of memory");
	be->services = opts ? opts->services : NULL; /* no on-disk caches */
	atomic_init(&be->n_executes, 0);
	const char *fault = getenv("WEBNN_REFERENCE_FAULT");
	if (fault && *fault)
		ref_fault_parse(be, fault);
	*out = be;
	return WEBNN_STATUS_OK;
}

static void ref_shutdown(struct backend *be)
{
	free(be);
}

static bool ref_supports_vt(struct backend *be, enum wnn_op op, enum wnn_dtype type)
{
	(void)be;
	return hk_supports(op, type);
}

static enum webnn_status ref_context_create(struct backend *be,
					    const struct backend_context_options *opts,
					    struct backend_context **out, struct wnn_diag *diag)
{
	struct backend_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "reference: out of memory");
	ctx->be = be;
	ctx->cancel = opts ? opts->cancel : NULL;
	*out = ctx;
	return WEBNN_STATUS_OK;
}

static void ref_context_destroy(struct backend_context *ctx)
{
	free(ctx);
}

static void ref_device_info(struct backend_device_info *info)
{
	memset(info, 0, sizeof(*info));
	info->accelerated = false;
	snprintf(info->device_name, sizeof(info->device_name), "reference");
	snprintf(info->device_type, sizeof(info->device_type), "cpu");
	snprintf(info->platform_name, sizeof(info->platform_name), "webnnd reference backend");
	snprintf(info->driver_version, sizeof(info->driver_version), "1");
	/* The oracle walks both layouts through strides with the same loops, so neither is
	 * faster; it answers the spec's default. */
	info->preferred_layout = WEBNN_LAYOUT_NCHW;
}

static void ref_context_info(struct backend_context *ctx, struct backend_device_info *info)
{
	(void)ctx;
	ref_device_info(info);
}

static uint32_t ref_devices(struct backend *be, struct backend_device_info *out, uint32_t max)
{
	(void)be;
	if (max > 0)
		ref_device_info(out);
	return 1;
}

/* ---- tensors: host memory (daemon/backend/host) */

static enum webnn_status ref_tensor_create(struct backend_context *ctx, const struct wnn_desc *desc,
					   struct backend_tensor **out, struct wnn_diag *diag)
{
	(void)ctx;
	return host_tensor_create(desc, "reference", out, diag);
}

static enum webnn_status ref_tensor_create_shared(struct backend_context *ctx,
						  const struct wnn_desc *desc, void *host,
						  struct backend_tensor **out, struct wnn_diag *diag)
{
	(void)ctx;
	return host_tensor_create_shared(desc, host, "reference", out, diag);
}

/* ---- plans */

static void ref_plan_destroy(struct backend_plan *plan)
{
	if (!plan)
		return;
	host_values_fini(&plan->hv);
	free(plan->steps);
	free(plan);
}

/* Exact: the reference kernels keep no state of their own. */
static uint64_t ref_plan_bytes(const struct backend_plan *plan)
{
	uint64_t n = plan->g && plan->g->n_nodes ? plan->g->n_nodes : 1;
	return heap_chunk_bytes(sizeof(*plan)) + heap_chunk_bytes(n * sizeof(*plan->steps)) +
	       host_values_bytes(&plan->hv);
}

static enum webnn_status plan_fail(struct backend_plan *plan, enum webnn_status st)
{
	ref_plan_destroy(plan);
	return st;
}

/* The oracle runs the graph as the client built it: no layout change, fusion or concat in
 * place (the caps stay zero); folding is the daemon's to add. */
static void ref_caps(struct backend_context *ctx, struct graph_caps *caps)
{
	(void)ctx;
	memset(caps, 0, sizeof(*caps));
}

/* One step per live node; folded and dead nodes are skipped (folded ones' outputs are
 * constants now). The oracle asks for no fusion, so a fused node means a pass disregarded
 * its caps. */
static enum webnn_status plan_steps(struct backend_plan *plan, struct wnn_diag *diag)
{
	const struct graph_ir *g = plan->g;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		char name[96];
		if (n->state == GRAPH_NODE_FUSED)
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "reference: %s was fused, which this backend does not ask for",
					    graph_node_name(n, name, sizeof(name)));
		if (n->state != GRAPH_NODE_LIVE)
			continue;
		enum webnn_status st = host_values_check_node(&plan->hv, i, diag);
		if (st == WEBNN_STATUS_OK)
			st = hk_step_prepare(n, plan->hv.descs, plan->cancel,
					     &plan->steps[plan->n_steps], diag);
		if (st != WEBNN_STATUS_OK)
			return st;
		plan->n_steps++;
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status ref_compile(struct backend_context *ctx, const struct graph_ir *g,
				     struct backend_plan **out, struct wnn_diag *diag)
{
	if (!g->optimized)
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
				    "reference: graph was not optimised");
	struct backend_plan *plan = calloc(1, sizeof(*plan));
	if (!plan)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "reference: out of memory");
	plan->be = ctx ? ctx->be : NULL;
	plan->cancel = ctx ? ctx->cancel : NULL;
	plan->g = g;
	enum webnn_status st = WEBNN_STATUS_OK;
	plan->steps = calloc(g->n_nodes ? g->n_nodes : 1, sizeof(*plan->steps));
	if (!plan->steps)
		st = wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "reference: out of memory");
	if (st == WEBNN_STATUS_OK)
		st = host_values_init(&plan->hv, g, false, "reference", diag);
	if (st == WEBNN_STATUS_OK)
		st = plan_steps(plan, diag);
	if (st != WEBNN_STATUS_OK)
		return plan_fail(plan, st);
	*out = plan;
	return WEBNN_STATUS_OK;
}

static enum webnn_status ref_execute(struct backend_plan *plan,
				     struct backend_tensor *const *inputs,
				     struct backend_tensor *const *outputs, struct wnn_diag *diag)
{
	enum webnn_status fault = ref_fault_check(plan->be, diag);
	if (fault != WEBNN_STATUS_OK)
		return fault;
	host_values_bind_run(&plan->hv, inputs, outputs);
	for (size_t k = 0; k < plan->n_steps; k++) {
		const struct hk_step *s = &plan->steps[k];
		if (backend_cancelled(plan->cancel))
			return backend_cancelled_status(diag, "dispatch");
		enum webnn_status st = s->run(s, plan->hv.bufs, diag);
		if (st != WEBNN_STATUS_OK)
			return st;
	}
	host_values_copy_outputs(&plan->hv, outputs);
	return WEBNN_STATUS_OK;
}

const struct backend_impl backend_reference = {
	.name = "reference",
	.serves = BACKEND_SERVES_CPU_FALLBACK,
	.cost_model = &graph_cost_reference,
	.init = ref_init,
	.shutdown = ref_shutdown,
	.devices = ref_devices,
	.supports = ref_supports_vt,
	.context_create = ref_context_create,
	.context_destroy = ref_context_destroy,
	.context_info = ref_context_info,
	.tensor_create = ref_tensor_create,
	.tensor_destroy = host_tensor_destroy,
	.tensor_write = host_tensor_write,
	.tensor_read = host_tensor_read,
	.tensor_create_shared = ref_tensor_create_shared,
	.caps = ref_caps,
	.compile = ref_compile,
	.plan_destroy = ref_plan_destroy,
	.plan_bytes = ref_plan_bytes,
	.plan_op_bytes = sizeof(struct hk_step) + 4 * sizeof(void *) + 64,
	.execute = ref_execute,
	/* every plan runs on its caller's thread alone anyway */
	.execute_quick = ref_execute,
	.host_tensors = true,
};
