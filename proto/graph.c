/* Whole-graph validation of an untrusted GraphInfo: operand kinds, wiring, order, names, shapes. */
#include "proto/webnn.pb-c.h"
#include "proto/wnn.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GRAPH_MAX_OPERANDS 100000u
#define GRAPH_MAX_OPERATIONS 100000u

static enum webnn_status gfail(struct wnn_diag *diag, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static enum webnn_status gfail(struct wnn_diag *diag, const char *fmt, ...)
{
	char msg[WNN_MAX_DIAG];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "graph: %s", msg);
}

static const char *kind_name(Webnn__Ipc__OperandKind k)
{
	switch (k) {
	case WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT: return "an input";
	case WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT: return "a constant";
	case WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT: return "an operation output";
	case WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT: return "a scalar constant";
	case WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR: return "a constant tensor";
	default: return "of unknown kind";
	}
}

struct named_at {
	const char *name;
	size_t index;
};

static int named_at_cmp(const void *a, const void *b)
{
	const struct named_at *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Graph input or output names: non-empty, unique, operand ids in range. The lists are the
 * client's (one frame holds ~10^6 names): duplicates are found by sorting, not pairwise, and the
 * error reported is the one a pairwise scan in list order would find first. */
static enum webnn_status check_names(Webnn__Ipc__NamedOperand *const *list, size_t n,
				     size_t n_operands, const char *what, struct wnn_diag *diag)
{
	size_t bad = n; /* the first entry with an empty name or an operand out of range */
	for (size_t i = 0; i < n && bad == n; i++) {
		const Webnn__Ipc__NamedOperand *no = list[i];
		if (!no || !no->name || !no->name[0] || no->operand >= n_operands)
			bad = i;
	}
	struct named_at *sorted = malloc(sizeof(*sorted) * (bad ? bad : 1));
	if (!sorted)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
				    "graph: out of memory checking %s names", what);
	for (size_t i = 0; i < bad; i++)
		sorted[i] = (struct named_at){ list[i]->name, i };
	qsort(sorted, bad, sizeof(*sorted), named_at_cmp);
	/* A pairwise scan stops at the first entry whose name occurred before: the smallest
	 * second occurrence of any name. */
	size_t dup = bad;
	for (size_t k = 1; k < bad; k++)
		if (strcmp(sorted[k].name, sorted[k - 1].name) == 0 &&
		    (k < 2 || strcmp(sorted[k - 1].name, sorted[k - 2].name) != 0) &&
		    sorted[k].index < dup)
			dup = sorted[k].index;
	free(sorted);
	if (dup < bad)
		return gfail(diag, "%s name \"%s\" is used more than once", what, list[dup]->name);
	if (bad == n)
		return WEBNN_STATUS_OK;
	const Webnn__Ipc__NamedOperand *no = list[bad];
	if (!no || !no->name || !no->name[0])
		return gfail(diag, "%s %zu has an empty name", what, bad);
	return gfail(diag, "%s \"%s\" names operand %" PRIu32 ", out of range (%zu operands)",
		     what, no->name, no->operand, n_operands);
}

/* Pass 1: descriptors and kinds. OUTPUT operands stay undefined (type NONE) until the operation
 * producing them has been checked, so earlier use is caught by wnn_op_check. */
static enum webnn_status describe_operands(const Webnn__Ipc__GraphInfo *graph,
					   struct wnn_desc *descs, struct wnn_diag *diag)
{
	for (size_t i = 0; i < graph->n_operands; i++) {
		const Webnn__Ipc__Operand *o = graph->operands[i];
		char what[48];
		snprintf(what, sizeof(what), "graph: operand %zu", i);
		memset(&descs[i], 0, sizeof(descs[i]));
		if (!o)
			return gfail(diag, "operand %zu is missing", i);
		struct wnn_desc d;
		if (!wnn_desc_from_pb(o->descriptor, &d, what, diag))
			return diag->status;
		switch (o->kind) {
		case WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT:
			break; /* names are checked against graph->inputs by check_inputs */
		case WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT:
			if (!o->has_constant_id || o->constant_id == 0)
				return gfail(diag, "constant operand %zu has no constant_id", i);
			break;
		case WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR:
			if (!o->has_tensor_id || o->tensor_id == 0)
				return gfail(diag, "constant tensor operand %zu has no tensor_id", i);
			break;
		case WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT:
			if (!o->scalar || o->scalar->value_case == WEBNN__IPC__NUMBER__VALUE__NOT_SET)
				return gfail(diag, "scalar constant operand %zu has no value", i);
			if (d.rank != 0)
				return gfail(diag, "scalar constant operand %zu has rank %" PRIu32
					     ", expected 0", i, d.rank);
			break;
		case WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT:
			continue;
		default:
			return gfail(diag, "operand %zu has unknown kind %d", i, (int)o->kind);
		}
		descs[i] = d;
	}
	return WEBNN_STATUS_OK;
}

/* Graph inputs: every INPUT operand listed exactly once under a unique name. */
static enum webnn_status check_inputs(const Webnn__Ipc__GraphInfo *graph, struct wnn_diag *diag)
{
	size_t n = graph->n_operands;
	enum webnn_status st = check_names(graph->inputs, graph->n_inputs, n, "input", diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	/* Which operands are listed, marked in one pass (no scan of the list per operand). */
	uint8_t *listed = calloc(n ? n : 1, 1);
	if (!listed)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
				    "graph: out of memory checking inputs");
	for (size_t i = 0; i < graph->n_inputs; i++) {
		const Webnn__Ipc__NamedOperand *no = graph->inputs[i];
		const Webnn__Ipc__Operand *o = graph->operands[no->operand];
		if (o->kind != WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT)
			st = gfail(diag, "input \"%s\" names operand %" PRIu32 ", which is %s",
				   no->name, no->operand, kind_name(o->kind));
		else if (o->name && o->name[0] && strcmp(o->name, no->name) != 0)
			st = gfail(diag, "input \"%s\" names operand %" PRIu32
				   ", whose own name is \"%s\"", no->name, no->operand, o->name);
		else if (listed[no->operand])
			st = gfail(diag, "input operand %" PRIu32 " is listed more than once",
				   no->operand);
		if (st != WEBNN_STATUS_OK)
			break;
		listed[no->operand] = 1;
	}
	for (size_t i = 0; st == WEBNN_STATUS_OK && i < n; i++)
		if (!listed[i] &&
		    graph->operands[i]->kind == WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT)
			st = gfail(diag, "input operand %zu is not listed in the graph inputs", i);
	free(listed);
	return st;
}

/* One operation: each output it writes is an OUTPUT operand not produced before; it reads only
 * defined operands and its resolver computes the declared outputs (wnn_op_check compares them);
 * then those outputs are defined. */
static enum webnn_status check_operation(const Webnn__Ipc__GraphInfo *graph, size_t k,
					 struct wnn_desc *descs, struct wnn_diag *diag)
{
	const Webnn__Ipc__Operation *op = graph->operations[k];
	struct wnn_desc outs[WNN_MAX_OUTPUTS], declared[WNN_MAX_OUTPUTS];
	uint32_t out_ids[WNN_MAX_OUTPUTS];
	int n_outs = 0;
	if (!op)
		return gfail(diag, "operation %zu is missing", k);
	/* A malformed operation (attrs missing, an id out of range) is left to wnn_op_check,
	 * which names the fault; the declared outputs are compared only when all can be read. */
	int n_ids = wnn_op_outputs(op, out_ids, WNN_MAX_OUTPUTS);
	bool have_declared = n_ids >= 0;
	enum wnn_op kind = wnn_op_from_id(op->op);
	const char *name = kind == WNN_OP_COUNT ? "operation" : wnn_ops[kind].name;
	for (int j = 0; have_declared && j < n_ids; j++) {
		uint32_t id = out_ids[j];
		if (id >= graph->n_operands) {
			have_declared = false;
			break;
		}
		const Webnn__Ipc__Operand *o = graph->operands[id];
		if (o->kind != WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT)
			return gfail(diag, "operation %zu (%s) writes operand %" PRIu32
				     ", which is %s", k, name, id, kind_name(o->kind));
		if (descs[id].type != WNN_DT_NONE)
			return gfail(diag, "operation %zu (%s) writes operand %" PRIu32
				     ", which an earlier operation already produced", k, name, id);
		wnn_desc_from_pb(o->descriptor, &declared[j], "graph", diag); /* valid: pass 1 */
	}
	enum webnn_status st = wnn_op_check(op, descs, graph->n_operands,
					    have_declared ? declared : NULL, outs, WNN_MAX_OUTPUTS,
					    &n_outs, diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	if (n_ids != n_outs)
		return gfail(diag, "operation %zu: output operands do not match", k);
	for (int j = 0; j < n_outs; j++)
		descs[out_ids[j]] = outs[j];
	return WEBNN_STATUS_OK;
}

/* Operations in order (so the graph is topological), then every OUTPUT operand produced. */
static enum webnn_status check_operations(const Webnn__Ipc__GraphInfo *graph,
					  struct wnn_desc *descs, struct wnn_diag *diag)
{
	for (size_t k = 0; k < graph->n_operations; k++) {
		enum webnn_status st = check_operation(graph, k, descs, diag);
		if (st != WEBNN_STATUS_OK)
			return st;
	}
	for (size_t i = 0; i < graph->n_operands; i++)
		if (descs[i].type == WNN_DT_NONE)
			return gfail(diag, "output operand %zu is never produced by an operation", i);
	return WEBNN_STATUS_OK;
}

/* Graph outputs: produced by operations, uniquely named. */
static enum webnn_status check_outputs(const Webnn__Ipc__GraphInfo *graph, struct wnn_diag *diag)
{
	enum webnn_status st =
		check_names(graph->outputs, graph->n_outputs, graph->n_operands, "output", diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	for (size_t i = 0; i < graph->n_outputs; i++) {
		const Webnn__Ipc__NamedOperand *no = graph->outputs[i];
		const Webnn__Ipc__Operand *o = graph->operands[no->operand];
		if (o->kind != WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT)
			return gfail(diag, "output \"%s\" names operand %" PRIu32
				     ", which is %s, not an operation output", no->name, no->operand,
				     kind_name(o->kind));
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_graph_validate(const Webnn__Ipc__GraphInfo *graph, struct wnn_desc *descs,
				     struct wnn_diag *diag)
{
	if (!graph || !descs)
		return gfail(diag, "missing graph");
	if (graph->n_operands > GRAPH_MAX_OPERANDS)
		return gfail(diag, "%zu operands exceed the limit of %u", graph->n_operands,
			     GRAPH_MAX_OPERANDS);
	if (graph->n_operations > GRAPH_MAX_OPERATIONS)
		return gfail(diag, "%zu operations exceed the limit of %u", graph->n_operations,
			     GRAPH_MAX_OPERATIONS);
	if (graph->n_operations == 0)
		return gfail(diag, "the graph has no operations");
	if (graph->n_outputs == 0)
		return gfail(diag, "the graph has no outputs");
	enum webnn_status st;
	if ((st = describe_operands(graph, descs, diag)) != WEBNN_STATUS_OK ||
	    (st = check_inputs(graph, diag)) != WEBNN_STATUS_OK ||
	    (st = check_operations(graph, descs, diag)) != WEBNN_STATUS_OK)
		return st;
	return check_outputs(graph, diag);
}
