/* The reference backend: host tensors, plans walking the graph IR's live nodes through plain C kernels, fault injection. */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/backend/reference/ref.h"
#include "daemon/log.h"

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
	enum ref_fault fault;
	uint64_t fault_at;
	char fault_spec[64];
	atomic_uint_least64_t n_executes; /* executes of different contexts run concurrently */
};

struct backend_context {
	struct backend *be;
};

struct backend_tensor {
	struct wnn_desc desc;
	size_t bytes;
	void *data;
};

/* Where a value's bytes live during a run. */
enum ref_source { REF_SRC_NONE, REF_SRC_INPUT, REF_SRC_CONSTANT, REF_SRC_OUTPUT, REF_SRC_BUFFER };

struct backend_plan {
	struct backend *be;
	const struct graph_ir *g;
	struct ref_step *steps;   /* one per live node, in the graph's order */
	size_t n_steps;
	struct wnn_desc *descs;   /* per value */
	enum ref_source *src;     /* per value */
	void **buffers;           /* the memory plan's buffers (g->plan), host memory */
	void **bufs;              /* per value: constants and buffers set at compile, inputs and
				     outputs by execute; executes of one plan are serialised by the
				     context timeline */
};

/* Every family's kernels, by ops.def family. */
typedef enum webnn_status (*ref_prepare_fn)(const struct graph_node *n, struct ref_step *s,
					    struct wnn_diag *diag);
static const ref_prepare_fn ref_prepare_family[WNN_FAMILY_COUNT] = {
#define REF_FAMILY_ENTRY_(E, name) [WNN_FAMILY_##E] = ref_##name##_prepare,
	WNN_FAMILIES(REF_FAMILY_ENTRY_)
#undef REF_FAMILY_ENTRY_
};

/* The dtypes column restricts every operator to what its family's kernels implement, except
 * elementwise rows, whose kernels exist per numeric domain of their expressions. */
bool ref_supports(enum wnn_op op, enum wnn_dtype type)
{
	if (op >= WNN_OP_COUNT || type <= WNN_DT_NONE || type >= WNN_DT_COUNT ||
	    !(wnn_ops[op].dtypes & WNN_DT_BIT(type)))
		return false;
	return wnn_ops[op].family != WNN_FAMILY_ELEMENTWISE || ref_elementwise_supports(op, type);
}

enum webnn_status ref_check_supported(enum wnn_op op, enum wnn_dtype t, struct wnn_diag *diag)
{
	if (ref_supports(op, t))
		return WEBNN_STATUS_OK;
	return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
			    "%s: data type %s is not supported by the reference backend",
			    op < WNN_OP_COUNT ? wnn_ops[op].name : "operation", wnn_dtype_name(t));
}

/* A step for node n: its kernel, chosen by its family. */
enum webnn_status ref_step_prepare(const struct graph_node *n, const struct wnn_desc *descs,
					  struct ref_step *s, struct wnn_diag *diag)
{
	memset(s, 0, sizeof(*s));
	if (n->op >= WNN_OP_COUNT)
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "operation: unknown operator %u", (unsigned)n->op);
	s->op = n->op;
	s->a = &n->attrs;
	s->descs = descs;
	return ref_prepare_family[wnn_ops[n->op].family](n, s, diag);
}

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
		log_warn("reference backend: WEBNN_REFERENCE_FAULT=%s: injecting faults (a test hook)",
			 be->fault_spec);
		return;
	}
	log_error("reference backend: WEBNN_REFERENCE_FAULT=\"%s\" is not execute-error:<n>, "
		  "execute-error-once:<n> or context-lost:<n> with n >= 1; no fault injected", spec);
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
	(void)opts; /* no on-disk caches */
	struct backend *be = calloc(1, sizeof(*be));
	if (!be)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "reference: out of memory");
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
	return ref_supports(op, type);
}

static enum webnn_status ref_context_create(struct backend *be,
					    const struct backend_context_options *opts,
					    struct backend_context **out, struct wnn_diag *diag)
{
	(void)opts;
	struct backend_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "reference: out of memory");
	ctx->be = be;
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

/* ---- tensors */

static enum webnn_status ref_tensor_create(struct backend_context *ctx, const struct wnn_desc *desc,
					   struct backend_tensor **out, struct wnn_diag *diag)
{
	uint64_t bytes;
	(void)ctx;
	if (!wnn_desc_bytes(desc, &bytes) || bytes > SIZE_MAX)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "reference: tensor descriptor is not valid");
	struct backend_tensor *t = calloc(1, sizeof(*t));
	if (!t)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "reference: out of memory");
	t->desc = *desc;
	t->bytes = (size_t)bytes;
	t->data = calloc(1, t->bytes ? t->bytes : 1);
	if (!t->data) {
		free(t);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
				    "reference: out of memory for a tensor of %zu bytes",
				    (size_t)bytes);
	}
	*out = t;
	return WEBNN_STATUS_OK;
}

static void ref_tensor_destroy(struct backend_tensor *t)
{
	if (!t)
		return;
	free(t->data);
	free(t);
}

static enum webnn_status ref_tensor_write(struct backend_tensor *t, const void *src, size_t size,
					  struct wnn_diag *diag)
{
	if (size != t->bytes)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "writeTensor: %zu bytes given, the tensor has %zu", size, t->bytes);
	memcpy(t->data, src, size);
	return WEBNN_STATUS_OK;
}

static enum webnn_status ref_tensor_read(struct backend_tensor *t, void *dst, size_t size,
					 struct wnn_diag *diag)
{
	if (size != t->bytes)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "readTensor: %zu bytes asked, the tensor has %zu", size, t->bytes);
	memcpy(dst, t->data, size);
	return WEBNN_STATUS_OK;
}

/* ---- plans */

static void ref_plan_destroy(struct backend_plan *plan)
{
	if (!plan)
		return;
	if (plan->buffers)
		for (uint32_t i = 0; i < plan->g->plan.n_buffers; i++)
			free(plan->buffers[i]);
	free(plan->buffers);
	free(plan->steps);
	free(plan->descs);
	free(plan->src);
	free(plan->bufs);
	free(plan);
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

/* Host memory for the memory plan's buffers, once per plan. */
static enum webnn_status plan_alloc_buffers(struct backend_plan *plan, struct wnn_diag *diag)
{
	const struct graph_plan *mp = &plan->g->plan;
	plan->buffers = calloc(mp->n_buffers ? mp->n_buffers : 1, sizeof(*plan->buffers));
	if (!plan->buffers)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "reference: out of memory");
	for (uint32_t i = 0; i < mp->n_buffers; i++) {
		if (mp->buffer_bytes[i] > SIZE_MAX)
			return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
					    "reference: out of memory for an intermediate buffer "
					    "of %llu bytes", (unsigned long long)mp->buffer_bytes[i]);
		plan->buffers[i] = calloc(1, mp->buffer_bytes[i] ? (size_t)mp->buffer_bytes[i] : 1);
		if (!plan->buffers[i])
			return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
					    "reference: out of memory for an intermediate buffer "
					    "of %llu bytes", (unsigned long long)mp->buffer_bytes[i]);
	}
	return WEBNN_STATUS_OK;
}

/* Where each value lives during a run: inputs and the first binding of each output in the
 * caller's tensors, constants in their data, intermediates in the plan's buffers. */
static enum webnn_status plan_bind_values(struct backend_plan *plan, struct wnn_diag *diag)
{
	const struct graph_ir *g = plan->g;
	for (uint32_t v = 0; v < g->n_values; v++) {
		const struct graph_value *val = &g->values[v];
		plan->descs[v] = val->desc;
		if (val->kind == GRAPH_VALUE_INPUT && val->input_index != GRAPH_NONE) {
			plan->src[v] = REF_SRC_INPUT;
		} else if (val->kind == GRAPH_VALUE_CONSTANT && val->data) {
			plan->src[v] = REF_SRC_CONSTANT;
			/* kernels only write their own outputs, never constants */
			plan->bufs[v] = (void *)val->data;
		} else if (val->kind == GRAPH_VALUE_INTERMEDIATE && val->output_index != GRAPH_NONE) {
			plan->src[v] = REF_SRC_OUTPUT;
		} else if (val->kind == GRAPH_VALUE_INTERMEDIATE && val->buffer != GRAPH_NONE) {
			plan->src[v] = REF_SRC_BUFFER;
			plan->bufs[v] = plan->buffers[val->buffer];
		}
	}
	for (uint32_t i = 0; i < g->n_outputs; i++) {
		uint32_t v = g->outputs[i];
		if (v >= g->n_values || (plan->src[v] != REF_SRC_OUTPUT &&
					 plan->src[v] != REF_SRC_CONSTANT))
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "reference: output %u is not produced by an operation", i);
	}
	return WEBNN_STATUS_OK;
}

/* Every value a live node reads must have bytes when it runs, and every value it writes a
 * place to go. */
static enum webnn_status plan_check_node(const struct backend_plan *plan, uint32_t index,
					 struct wnn_diag *diag)
{
	const struct graph_ir *g = plan->g;
	const struct graph_node *n = &g->nodes[index];
	for (uint32_t j = 0; j < n->n_inputs; j++) {
		uint32_t v = n->inputs[j];
		enum ref_source src = v < g->n_values ? plan->src[v] : REF_SRC_NONE;
		bool computed = src == REF_SRC_OUTPUT || src == REF_SRC_BUFFER;
		bool has_data = computed ? g->values[v].producer < index : src != REF_SRC_NONE;
		if (!has_data)
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "%s: input operand %u has no data (not an input, constant "
					    "or earlier result)", wnn_ops[n->op].name, v);
	}
	for (uint32_t j = 0; j < n->n_outputs; j++) {
		uint32_t v = n->outputs[j];
		if (v >= g->n_values || g->values[v].producer != index ||
		    (plan->src[v] != REF_SRC_OUTPUT && plan->src[v] != REF_SRC_BUFFER))
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "%s: output operand %u has no storage in the memory plan",
					    wnn_ops[n->op].name, v);
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status plan_alloc(struct backend_plan *plan, struct wnn_diag *diag)
{
	const struct graph_ir *g = plan->g;
	size_t nv = g->n_values ? g->n_values : 1;
	plan->descs = calloc(nv, sizeof(*plan->descs));
	plan->src = calloc(nv, sizeof(*plan->src));
	plan->bufs = calloc(nv, sizeof(*plan->bufs));
	plan->steps = calloc(g->n_nodes ? g->n_nodes : 1, sizeof(*plan->steps));
	if (!plan->descs || !plan->src || !plan->bufs || !plan->steps)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "reference: out of memory");
	return plan_alloc_buffers(plan, diag);
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
		enum webnn_status st = plan_check_node(plan, i, diag);
		if (st == WEBNN_STATUS_OK)
			st = ref_step_prepare(n, plan->descs, &plan->steps[plan->n_steps], diag);
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
	plan->g = g;
	enum webnn_status st = plan_alloc(plan, diag);
	if (st == WEBNN_STATUS_OK)
		st = plan_bind_values(plan, diag);
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
	const struct graph_ir *g = plan->g;
	enum webnn_status fault = ref_fault_check(plan->be, diag);
	if (fault != WEBNN_STATUS_OK)
		return fault;
	for (uint32_t v = 0; v < g->n_values; v++) {
		if (plan->src[v] == REF_SRC_INPUT)
			plan->bufs[v] = inputs[g->values[v].input_index]->data;
		else if (plan->src[v] == REF_SRC_OUTPUT)
			plan->bufs[v] = outputs[g->values[v].output_index]->data;
	}
	for (size_t k = 0; k < plan->n_steps; k++) {
		const struct ref_step *s = &plan->steps[k];
		enum webnn_status st = s->run(s, plan->bufs, diag);
		if (st != WEBNN_STATUS_OK)
			return st;
	}
	/* later bindings of an output value, and outputs that folding made constant */
	for (uint32_t i = 0; i < g->n_outputs; i++) {
		uint32_t v = g->outputs[i];
		if (plan->src[v] == REF_SRC_CONSTANT || g->values[v].output_index != i)
			memcpy(outputs[i]->data, plan->bufs[v], outputs[i]->bytes);
	}
	return WEBNN_STATUS_OK;
}

/* ---- single-node evaluation (constant folding) */

enum webnn_status reference_evaluate(const struct graph_node *n, const struct graph_value *values,
				     const void *const *inputs, void *const *outputs,
				     struct wnn_diag *diag)
{
	uint32_t top = 0;
	for (uint32_t j = 0; j < n->n_inputs; j++)
		top = n->inputs[j] > top ? n->inputs[j] : top;
	for (uint32_t j = 0; j < n->n_outputs; j++)
		top = n->outputs[j] > top ? n->outputs[j] : top;
	/* kernels index memory and descriptors by value id */
	void **bufs = calloc((size_t)top + 1, sizeof(*bufs));
	struct wnn_desc *descs = calloc((size_t)top + 1, sizeof(*descs));
	if (!bufs || !descs) {
		free(bufs);
		free(descs);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "reference: out of memory");
	}
	for (uint32_t v = 0; v <= top; v++)
		descs[v] = values[v].desc;
	for (uint32_t j = 0; j < n->n_inputs; j++)
		bufs[n->inputs[j]] = (void *)inputs[j]; /* kernels never write their inputs */
	for (uint32_t j = 0; j < n->n_outputs; j++)
		bufs[n->outputs[j]] = outputs[j];
	struct ref_step s;
	enum webnn_status st = ref_step_prepare(n, descs, &s, diag);
	if (st == WEBNN_STATUS_OK)
		st = s.run(&s, bufs, diag);
	free(bufs);
	free(descs);
	return st;
}

const struct backend_impl backend_reference = {
	.name = "reference",
	.init = ref_init,
	.shutdown = ref_shutdown,
	.devices = ref_devices,
	.supports = ref_supports_vt,
	.context_create = ref_context_create,
	.context_destroy = ref_context_destroy,
	.context_info = ref_context_info,
	.tensor_create = ref_tensor_create,
	.tensor_destroy = ref_tensor_destroy,
	.tensor_write = ref_tensor_write,
	.tensor_read = ref_tensor_read,
	.caps = ref_caps,
	.compile = ref_compile,
	.plan_destroy = ref_plan_destroy,
	.execute = ref_execute,
};
