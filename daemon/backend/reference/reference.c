/* The reference backend: host tensors, plans walking operations in order through plain C kernels. */
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

enum ref_source { REF_SRC_NONE, REF_SRC_INPUT, REF_SRC_CONSTANT, REF_SRC_OUTPUT, REF_SRC_TEMP };

struct backend_plan {
	struct backend *be;
	const struct backend_graph *g;
	struct ref_step *steps;
	size_t n_steps;
	enum ref_source *src; /* per operand: where its bytes live during a run */
	uint32_t *src_index;  /* input/output index for REF_SRC_INPUT/OUTPUT */
	void **temps;         /* per operand: intermediate buffer (REF_SRC_TEMP) */
	void **bufs;          /* per operand, filled by execute; execute calls of one plan are
				 serialised by the context timeline */
};

bool ref_supports(enum wnn_op op, enum wnn_dtype type)
{
	if (op >= WNN_OP_COUNT || type <= WNN_DT_NONE || type >= WNN_DT_COUNT ||
	    !(wnn_ops[op].dtypes & WNN_DT_BIT(type)))
		return false;
	switch (wnn_ops[op].attrs) {
	case WEBNN__IPC__OPERATION__ATTRS_BINARY:
	case WEBNN__IPC__OPERATION__ATTRS_UNARY:
		if (op == WNN_OP_POW)
			return true; /* integer pow is a loop, not an ops.def expression */
		return ref_is_float(type) ? wnn_ops[op].has_float_expr : wnn_ops[op].has_int_expr;
	case WEBNN__IPC__OPERATION__ATTRS_CAST:
	case WEBNN__IPC__OPERATION__ATTRS_ARG_MIN_MAX:
	case WEBNN__IPC__OPERATION__ATTRS_INSTANCE_NORMALIZATION:
	case WEBNN__IPC__OPERATION__ATTRS_LAYER_NORMALIZATION:
	case WEBNN__IPC__OPERATION__ATTRS_CONV_TRANSPOSE2D:
	case WEBNN__IPC__OPERATION__ATTRS_CUMULATIVE_SUM:
	case WEBNN__IPC__OPERATION__ATTRS_QUANTIZE_LINEAR:
	case WEBNN__IPC__OPERATION__ATTRS_EXPAND:
	case WEBNN__IPC__OPERATION__ATTRS_GATHER:
	case WEBNN__IPC__OPERATION__ATTRS_SCATTER:
	case WEBNN__IPC__OPERATION__ATTRS_GRU:
	case WEBNN__IPC__OPERATION__ATTRS_GRU_CELL:
	case WEBNN__IPC__OPERATION__ATTRS_LSTM:
	case WEBNN__IPC__OPERATION__ATTRS_LSTM_CELL:
	case WEBNN__IPC__OPERATION__ATTRS_PAD:
	case WEBNN__IPC__OPERATION__ATTRS_PRELU:
	case WEBNN__IPC__OPERATION__ATTRS_REDUCE:
	case WEBNN__IPC__OPERATION__ATTRS_RESAMPLE2D:
	case WEBNN__IPC__OPERATION__ATTRS_REVERSE:
	case WEBNN__IPC__OPERATION__ATTRS_SLICE:
	case WEBNN__IPC__OPERATION__ATTRS_SPLIT:
	case WEBNN__IPC__OPERATION__ATTRS_TILE:
	case WEBNN__IPC__OPERATION__ATTRS_TRIANGULAR:
	case WEBNN__IPC__OPERATION__ATTRS_WHERE:
	case WEBNN__IPC__OPERATION__ATTRS_CLAMP:
	case WEBNN__IPC__OPERATION__ATTRS_CONV2D:
	case WEBNN__IPC__OPERATION__ATTRS_POOL2D:
	case WEBNN__IPC__OPERATION__ATTRS_GEMM:
	case WEBNN__IPC__OPERATION__ATTRS_MATMUL:
	case WEBNN__IPC__OPERATION__ATTRS_RESHAPE:
	case WEBNN__IPC__OPERATION__ATTRS_TRANSPOSE:
	case WEBNN__IPC__OPERATION__ATTRS_CONCAT:
	case WEBNN__IPC__OPERATION__ATTRS_SOFTMAX:
	case WEBNN__IPC__OPERATION__ATTRS_BATCH_NORMALIZATION:
		return true; /* the dtypes column already restricts these to what is implemented */
	default:
		return false;
	}
}

enum webnn_status ref_check_supported(enum wnn_op op, enum wnn_dtype t, struct wnn_diag *diag)
{
	if (ref_supports(op, t))
		return WEBNN_STATUS_OK;
	return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
			    "%s: data type %s is not supported by the reference backend",
			    op < WNN_OP_COUNT ? wnn_ops[op].name : "operation", wnn_dtype_name(t));
}

enum webnn_status ref_prepare(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, struct ref_step *s, struct wnn_diag *diag)
{
	memset(s, 0, sizeof(*s));
	enum wnn_op o = op ? wnn_op_from_id(op->op) : WNN_OP_COUNT;
	if (o == WNN_OP_COUNT)
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "operation: unknown operator id %u", op ? op->op : 0);
	s->op = o;
	s->descs = descs;
	switch (wnn_ops[o].attrs) {
	case WEBNN__IPC__OPERATION__ATTRS_BINARY:
	case WEBNN__IPC__OPERATION__ATTRS_UNARY:
	case WEBNN__IPC__OPERATION__ATTRS_CLAMP:
		return ref_prepare_elementwise(op, descs, n_descs, s, diag);
	case WEBNN__IPC__OPERATION__ATTRS_CONV2D:
	case WEBNN__IPC__OPERATION__ATTRS_POOL2D:
		return ref_prepare_conv(op, descs, n_descs, s, diag);
	case WEBNN__IPC__OPERATION__ATTRS_GEMM:
	case WEBNN__IPC__OPERATION__ATTRS_MATMUL:
		return ref_prepare_linalg(op, descs, n_descs, s, diag);
	case WEBNN__IPC__OPERATION__ATTRS_RESHAPE:
	case WEBNN__IPC__OPERATION__ATTRS_TRANSPOSE:
	case WEBNN__IPC__OPERATION__ATTRS_CONCAT:
	case WEBNN__IPC__OPERATION__ATTRS_SOFTMAX:
	case WEBNN__IPC__OPERATION__ATTRS_BATCH_NORMALIZATION:
		return ref_prepare_misc(op, descs, n_descs, s, diag);
	case WEBNN__IPC__OPERATION__ATTRS_CAST:
	case WEBNN__IPC__OPERATION__ATTRS_EXPAND:
	case WEBNN__IPC__OPERATION__ATTRS_TILE:
	case WEBNN__IPC__OPERATION__ATTRS_GATHER:
	case WEBNN__IPC__OPERATION__ATTRS_SCATTER:
	case WEBNN__IPC__OPERATION__ATTRS_PAD:
	case WEBNN__IPC__OPERATION__ATTRS_REVERSE:
	case WEBNN__IPC__OPERATION__ATTRS_SLICE:
	case WEBNN__IPC__OPERATION__ATTRS_SPLIT:
	case WEBNN__IPC__OPERATION__ATTRS_TRIANGULAR:
	case WEBNN__IPC__OPERATION__ATTRS_WHERE:
	case WEBNN__IPC__OPERATION__ATTRS_PRELU:
		return ref_prepare_data(op, descs, n_descs, s, diag);
	case WEBNN__IPC__OPERATION__ATTRS_ARG_MIN_MAX:
	case WEBNN__IPC__OPERATION__ATTRS_CUMULATIVE_SUM:
	case WEBNN__IPC__OPERATION__ATTRS_REDUCE:
	case WEBNN__IPC__OPERATION__ATTRS_INSTANCE_NORMALIZATION:
	case WEBNN__IPC__OPERATION__ATTRS_LAYER_NORMALIZATION:
		return ref_prepare_reduce(op, descs, n_descs, s, diag);
	case WEBNN__IPC__OPERATION__ATTRS_CONV_TRANSPOSE2D:
	case WEBNN__IPC__OPERATION__ATTRS_RESAMPLE2D:
	case WEBNN__IPC__OPERATION__ATTRS_QUANTIZE_LINEAR:
		return ref_prepare_nn(op, descs, n_descs, s, diag);
	case WEBNN__IPC__OPERATION__ATTRS_GRU:
	case WEBNN__IPC__OPERATION__ATTRS_GRU_CELL:
	case WEBNN__IPC__OPERATION__ATTRS_LSTM:
	case WEBNN__IPC__OPERATION__ATTRS_LSTM_CELL:
		return ref_prepare_rnn(op, descs, n_descs, s, diag);
	default:
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "%s: not supported by the reference backend", wnn_ops[o].name);
	}
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

static void ref_context_info(struct backend_context *ctx, struct backend_device_info *info)
{
	(void)ctx;
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
	if (plan->temps)
		for (size_t i = 0; i < plan->g->n_operands; i++)
			free(plan->temps[i]);
	free(plan->temps);
	free(plan->steps);
	free(plan->src);
	free(plan->src_index);
	free(plan->bufs);
	free(plan);
}

static enum webnn_status plan_fail(struct backend_plan *plan, enum webnn_status st)
{
	ref_plan_destroy(plan);
	return st;
}

static enum webnn_status ref_compile(struct backend_context *ctx, const struct backend_graph *g,
				     struct backend_plan **out, struct wnn_diag *diag)
{
	const Webnn__Ipc__GraphInfo *info = g->info;
	size_t n = g->n_operands;
	if (!info || info->n_operands != n)
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
				    "reference: graph operand table is inconsistent");
	struct backend_plan *plan = calloc(1, sizeof(*plan));
	if (!plan)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "reference: out of memory");
	plan->be = ctx ? ctx->be : NULL;
	plan->g = g;
	plan->src = calloc(n ? n : 1, sizeof(*plan->src));
	plan->src_index = calloc(n ? n : 1, sizeof(*plan->src_index));
	plan->temps = calloc(n ? n : 1, sizeof(*plan->temps));
	plan->bufs = calloc(n ? n : 1, sizeof(*plan->bufs));
	plan->steps = calloc(info->n_operations ? info->n_operations : 1, sizeof(*plan->steps));
	if (!plan->src || !plan->src_index || !plan->temps || !plan->bufs || !plan->steps)
		return plan_fail(plan, wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
						    "reference: out of memory"));

	for (size_t i = 0; i < n; i++) {
		Webnn__Ipc__OperandKind kind = info->operands[i]->kind;
		if (kind == WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT ||
		    kind == WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT ||
		    kind == WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR) {
			if (g->constant_data && g->constant_data[i])
				plan->src[i] = REF_SRC_CONSTANT;
		}
	}
	for (size_t i = 0; i < g->n_inputs; i++) {
		uint32_t id = g->input_operands[i];
		if (id >= n)
			return plan_fail(plan, wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
							    "reference: input %zu names operand %u "
							    "out of range", i, id));
		plan->src[id] = REF_SRC_INPUT;
		plan->src_index[id] = (uint32_t)i;
	}
	/* The first output binding of an operand receives the writes; duplicates copy it after. */
	for (size_t i = g->n_outputs; i-- > 0;) {
		uint32_t id = g->output_operands[i];
		if (id >= n || plan->src[id] == REF_SRC_INPUT || plan->src[id] == REF_SRC_CONSTANT)
			return plan_fail(plan, wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
							    "reference: output %zu is not produced "
							    "by an operation", i));
		plan->src[id] = REF_SRC_OUTPUT;
		plan->src_index[id] = (uint32_t)i;
	}

	for (size_t k = 0; k < info->n_operations; k++) {
		const Webnn__Ipc__Operation *op = info->operations[k];
		struct ref_step *s = &plan->steps[k];
		enum webnn_status st = ref_prepare(op, g->descs, n, s, diag);
		if (st != WEBNN_STATUS_OK)
			return plan_fail(plan, st);
		plan->n_steps = k + 1;

		uint32_t ids[WNN_MAX_OUTPUTS + 16];
		/* concat takes any number of inputs: list those on the heap */
		uint32_t *in_ids = ids;
		int in_cap = (int)(sizeof(ids) / sizeof(ids[0]));
		if (op->attrs_case == WEBNN__IPC__OPERATION__ATTRS_CONCAT && op->concat &&
		    op->concat->n_inputs >= (size_t)in_cap && op->concat->n_inputs < INT32_MAX) {
			in_cap = (int)op->concat->n_inputs + 1;
			in_ids = malloc(sizeof(uint32_t) * (size_t)in_cap);
			if (!in_ids)
				return plan_fail(plan, wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
								    "reference: out of memory"));
		}
		int n_in = wnn_op_inputs(op, in_ids, NULL, in_cap);
		int bad = -1;
		for (int j = 0; j < n_in && bad < 0; j++)
			if (in_ids[j] >= n || plan->src[in_ids[j]] == REF_SRC_NONE)
				bad = j;
		uint32_t bad_id = bad >= 0 ? in_ids[bad] : 0;
		if (in_ids != ids)
			free(in_ids);
		if (n_in < 0)
			return plan_fail(plan, wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
							    "%s: cannot list its inputs",
							    wnn_ops[s->op].name));
		if (bad >= 0)
			return plan_fail(plan,
					 wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
						      "%s: input operand %u has no data "
						      "(not an input, constant or earlier "
						      "result)", wnn_ops[s->op].name, bad_id));
		int n_out = wnn_op_outputs(op, ids, (int)(sizeof(ids) / sizeof(ids[0])));
		if (n_out < 0)
			return plan_fail(plan, wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
							    "%s: cannot list its outputs",
							    wnn_ops[s->op].name));
		for (int j = 0; j < n_out; j++) {
			uint32_t id = ids[j];
			if (id >= n || (plan->src[id] != REF_SRC_NONE && plan->src[id] != REF_SRC_OUTPUT))
				return plan_fail(plan,
						 wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
							      "%s: output operand %u is already "
							      "defined", wnn_ops[s->op].name, id));
			if (plan->src[id] == REF_SRC_OUTPUT)
				continue;
			uint64_t bytes;
			if (!wnn_desc_bytes(&g->descs[id], &bytes) || bytes > SIZE_MAX)
				return plan_fail(plan,
						 wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
							      "%s: output operand %u has an invalid "
							      "descriptor", wnn_ops[s->op].name, id));
			plan->temps[id] = calloc(1, bytes ? (size_t)bytes : 1);
			if (!plan->temps[id])
				return plan_fail(plan,
						 wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
							      "%s: out of memory for an intermediate "
							      "of %llu bytes", wnn_ops[s->op].name,
							      (unsigned long long)bytes));
			plan->src[id] = REF_SRC_TEMP;
		}
	}
	*out = plan;
	return WEBNN_STATUS_OK;
}

static enum webnn_status ref_execute(struct backend_plan *plan,
				     struct backend_tensor *const *inputs,
				     struct backend_tensor *const *outputs, struct wnn_diag *diag)
{
	const struct backend_graph *g = plan->g;
	enum webnn_status fault = ref_fault_check(plan->be, diag);
	if (fault != WEBNN_STATUS_OK)
		return fault;
	for (size_t i = 0; i < g->n_operands; i++) {
		switch (plan->src[i]) {
		case REF_SRC_INPUT:
			plan->bufs[i] = inputs[plan->src_index[i]]->data;
			break;
		case REF_SRC_OUTPUT:
			plan->bufs[i] = outputs[plan->src_index[i]]->data;
			break;
		case REF_SRC_CONSTANT:
			/* kernels only write their own output operands, never constants */
			plan->bufs[i] = (void *)g->constant_data[i];
			break;
		case REF_SRC_TEMP:
			plan->bufs[i] = plan->temps[i];
			break;
		default:
			plan->bufs[i] = NULL;
			break;
		}
	}
	for (size_t k = 0; k < plan->n_steps; k++) {
		const struct ref_step *s = &plan->steps[k];
		enum webnn_status st = s->run(s, plan->bufs, diag);
		if (st != WEBNN_STATUS_OK)
			return st;
	}
	for (size_t i = 0; i < g->n_outputs; i++) {
		uint32_t id = g->output_operands[i];
		if (plan->src_index[id] != i)
			memcpy(outputs[i]->data, plan->bufs[id], outputs[i]->bytes);
	}
	return WEBNN_STATUS_OK;
}

const struct backend_impl backend_reference = {
	.name = "reference",
	.init = ref_init,
	.shutdown = ref_shutdown,
	.supports = ref_supports_vt,
	.context_create = ref_context_create,
	.context_destroy = ref_context_destroy,
	.context_info = ref_context_info,
	.tensor_create = ref_tensor_create,
	.tensor_destroy = ref_tensor_destroy,
	.tensor_write = ref_tensor_write,
	.tensor_read = ref_tensor_read,
	.compile = ref_compile,
	.plan_destroy = ref_plan_destroy,
	.execute = ref_execute,
};
