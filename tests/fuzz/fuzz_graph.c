/* libFuzzer target: bytes -> GraphInfo unpack -> wnn_graph_validate -> reference compile + execute. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/backend.h"
#include "daemon/graph/import.h"

/* Keeps every input fast: at most this many bytes over all operands, and bounded work for the
 * operators whose cost is output size times input size. */
#define FUZZ_MAX_GRAPH_BYTES (1u << 20)
#define FUZZ_MAX_OP_COST (1ull << 24)

static struct backend *be;
static struct backend_context *bctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	struct wnn_diag diag = { 0 };
	struct backend_context_options opts = { .accelerated = false };
	if (backend_reference.init(NULL, &be, &diag) != WEBNN_STATUS_OK ||
	    backend_reference.context_create(be, &opts, &bctx, &diag) != WEBNN_STATUS_OK)
		abort();
	return 0;
}

static uint64_t elems(const struct wnn_desc *d)
{
	uint64_t n = 0;
	wnn_desc_count(d, &n);
	return n;
}

/* The first input operand, as the daemon uses it to pick a kernel (0 inputs: none). */
static bool first_input(const Webnn__Ipc__Operation *op, uint32_t *first)
{
	uint32_t ids[WNN_MAX_OUTPUTS + 16];
	int n = wnn_op_inputs(op, ids, NULL, (int)(sizeof(ids) / sizeof(ids[0])));
	if (n <= 0)
		return false;
	*first = ids[0];
	return true;
}

/* The checks webnnd makes between validation and compile: sizes (here tighter) and support. */
static bool graph_runnable(const Webnn__Ipc__GraphInfo *gi, const struct wnn_desc *descs)
{
	uint64_t total = 0;
	for (size_t i = 0; i < gi->n_operands; i++) {
		uint64_t b = 0;
		wnn_desc_bytes(&descs[i], &b);
		total += b;
		if (total > FUZZ_MAX_GRAPH_BYTES)
			return false;
	}
	for (size_t k = 0; k < gi->n_operations; k++) {
		const Webnn__Ipc__Operation *op = gi->operations[k];
		enum wnn_op e = wnn_op_from_id(op->op);
		uint32_t first, ids[WNN_MAX_OUTPUTS + 16];
		if (e == WNN_OP_COUNT)
			return false;
		if (first_input(op, &first) && first < gi->n_operands &&
		    !backend_reference.supports(be, e, descs[first].type))
			return false;
		uint64_t in_max = 0, out_sum = 0;
		int n = wnn_op_inputs(op, ids, NULL, (int)(sizeof(ids) / sizeof(ids[0])));
		for (int j = 0; j < n; j++)
			if (ids[j] < gi->n_operands && elems(&descs[ids[j]]) > in_max)
				in_max = elems(&descs[ids[j]]);
		n = wnn_op_outputs(op, ids, (int)(sizeof(ids) / sizeof(ids[0])));
		for (int j = 0; j < n; j++)
			if (ids[j] < gi->n_operands)
				out_sum += elems(&descs[ids[j]]);
		if (out_sum * (in_max + 1) > FUZZ_MAX_OP_COST)
			return false;
	}
	return true;
}

static void run_graph(const Webnn__Ipc__GraphInfo *gi, const struct wnn_desc *descs)
{
	size_t n = gi->n_operands;
	const void **cdata = calloc(n, sizeof(*cdata));
	void **owned = calloc(n, sizeof(*owned));
	uint32_t *in_ops = calloc(gi->n_inputs + 1, sizeof(*in_ops));
	uint32_t *out_ops = calloc(gi->n_outputs + 1, sizeof(*out_ops));
	struct backend_tensor **ins = calloc(gi->n_inputs + 1, sizeof(*ins));
	struct backend_tensor **outs = calloc(gi->n_outputs + 1, sizeof(*outs));
	struct backend_plan *plan = NULL;
	struct wnn_diag diag = { 0 };
	enum webnn_status st = WEBNN_STATUS_OK;
	if (!cdata || !owned || !in_ops || !out_ops || !ins || !outs)
		abort();
	/* Constants read as zeros; scalar constants expand their value as the daemon does. */
	for (size_t i = 0; i < n; i++) {
		Webnn__Ipc__OperandKind kind = gi->operands[i]->kind;
		if (kind != WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT &&
		    kind != WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR &&
		    kind != WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT)
			continue;
		uint64_t b = 0;
		wnn_desc_bytes(&descs[i], &b);
		owned[i] = calloc(1, b ? b : 1);
		if (!owned[i])
			abort();
		if (kind == WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT) {
			size_t es = wnn_dtype_size(descs[i].type);
			for (uint64_t e = 0; e < elems(&descs[i]); e++)
				wnn_number_to_bytes(gi->operands[i]->scalar, descs[i].type,
						    (uint8_t *)owned[i] + e * es);
		}
		cdata[i] = owned[i];
	}
	for (size_t i = 0; i < gi->n_inputs; i++)
		in_ops[i] = gi->inputs[i]->operand;
	for (size_t i = 0; i < gi->n_outputs; i++)
		out_ops[i] = gi->outputs[i]->operand;
	struct graph_source src = {
		.info = gi,
		.descs = descs,
		.constant_data = cdata,
		.n_operands = n,
		.input_operands = in_ops,
		.n_inputs = gi->n_inputs,
		.output_operands = out_ops,
		.n_outputs = gi->n_outputs,
	};
	const struct backend_impl *impl = &backend_reference;
	for (size_t i = 0; st == WEBNN_STATUS_OK && i < gi->n_inputs; i++)
		st = impl->tensor_create(bctx, &descs[in_ops[i]], &ins[i], &diag);
	for (size_t i = 0; st == WEBNN_STATUS_OK && i < gi->n_outputs; i++)
		st = impl->tensor_create(bctx, &descs[out_ops[i]], &outs[i], &diag);
	struct graph_ir *g = NULL;
	if (st == WEBNN_STATUS_OK)
		st = graph_import(&src, &g, &diag);
	if (st == WEBNN_STATUS_OK)
		st = impl->compile(bctx, g, &plan, &diag);
	if (st == WEBNN_STATUS_OK)
		st = impl->execute(plan, ins, outs, &diag);
	/* Running twice must be as safe as once (plans are reused by every dispatch). */
	if (st == WEBNN_STATUS_OK)
		st = impl->execute(plan, ins, outs, &diag);
	if (st != WEBNN_STATUS_OK && (diag.status == WEBNN_STATUS_OK || !diag.message[0]))
		__builtin_trap(); /* a failure without a message */
	if (plan)
		impl->plan_destroy(plan);
	graph_destroy(g);
	for (size_t i = 0; i < gi->n_inputs; i++)
		impl->tensor_destroy(ins[i]);
	for (size_t i = 0; i < gi->n_outputs; i++)
		impl->tensor_destroy(outs[i]);
	for (size_t i = 0; i < n; i++)
		free(owned[i]);
	free(owned);
	free(cdata);
	free(in_ops);
	free(out_ops);
	free(ins);
	free(outs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Webnn__Ipc__GraphInfo *gi = webnn__ipc__graph_info__unpack(NULL, size, data);
	if (!gi)
		return 0;
	struct wnn_desc *descs = calloc(gi->n_operands + 1, sizeof(*descs));
	struct wnn_diag diag = { 0 };
	if (!descs)
		abort();
	enum webnn_status st = wnn_graph_validate(gi, descs, &diag);
	if (st != WEBNN_STATUS_OK && (diag.status != st || !diag.message[0]))
		__builtin_trap();
	if (st == WEBNN_STATUS_OK && graph_runnable(gi, descs))
		run_graph(gi, descs);
	free(descs);
	webnn__ipc__graph_info__free_unpacked(gi, NULL);
	return 0;
}
