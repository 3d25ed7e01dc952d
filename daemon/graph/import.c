/* Imports a validated GraphInfo: one value per operand, one node per operation, attributes resolved once. */
#include "daemon/graph/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_constant_kind(Webnn__Ipc__OperandKind kind)
{
	return kind == WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT ||
	       kind == WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT ||
	       kind == WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR;
}

static enum webnn_status import_values(struct graph_ir *g, const struct graph_source *src,
				       struct wnn_diag *diag)
{
	size_t n = src->info->n_operands;
	for (size_t i = 0; i < n; i++) {
		enum graph_value_kind kind = GRAPH_VALUE_UNUSED;
		if (is_constant_kind(src->info->operands[i]->kind) && src->constant_data &&
		    src->constant_data[i])
			kind = GRAPH_VALUE_CONSTANT;
		if (graph_add_value(g, &src->descs[i], kind, diag) == GRAPH_NONE)
			return diag->status;
		g->values[i].data = kind == GRAPH_VALUE_CONSTANT ? src->constant_data[i] : NULL;
	}
	g->inputs = malloc((src->n_inputs ? src->n_inputs : 1) * sizeof *g->inputs);
	g->outputs = malloc((src->n_outputs ? src->n_outputs : 1) * sizeof *g->outputs);
	if (!g->inputs || !g->outputs)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
	for (size_t i = 0; i < src->n_inputs; i++) {
		uint32_t id = src->input_operands[i];
		if (id >= n || g->values[id].kind != GRAPH_VALUE_UNUSED)
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "graph: input %zu names operand %u, not an input", i, id);
		g->values[id].kind = GRAPH_VALUE_INPUT;
		g->values[id].input_index = (uint32_t)i;
		g->inputs[i] = id;
	}
	g->n_inputs = (uint32_t)src->n_inputs;
	return WEBNN_STATUS_OK;
}

/* The operand ids an operation reads, in a buffer grown as needed (concat may have many). */
static int operation_inputs(const Webnn__Ipc__Operation *op, uint32_t **ids, int *cap)
{
	for (;;) {
		int n = wnn_op_inputs(op, *ids, NULL, *cap);
		if (n >= 0 || *cap >= (1 << 24))
			return n;
		uint32_t *bigger = realloc(*ids, (size_t)*cap * 2 * sizeof *bigger);
		if (!bigger)
			return -1;
		*ids = bigger;
		*cap *= 2;
	}
}

static enum webnn_status import_node(struct graph_ir *g, const struct graph_source *src,
				     const Webnn__Ipc__Operation *op, uint32_t **in, int *cap,
				     struct wnn_diag *diag)
{
	size_t n_operands = src->info->n_operands;
	union wnn_attrs attrs;
	enum wnn_op kind;
	if (wnn_resolve(op, src->descs, n_operands, &kind, &attrs, diag) != WEBNN_STATUS_OK)
		return diag->status;
	const char *name = wnn_ops[kind].name;
	int n_in = operation_inputs(op, in, cap);
	uint32_t out[WNN_MAX_OUTPUTS];
	int n_out = wnn_op_outputs(op, out, WNN_MAX_OUTPUTS);
	if (n_in < 0 || n_out < 0)
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
				    "%s: cannot list its operands", name);
	for (int k = 0; k < n_in; k++) {
		uint32_t id = (*in)[k];
		if (id >= n_operands || g->values[id].kind == GRAPH_VALUE_UNUSED)
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "%s: input operand %u has no data (not an input, "
					    "constant or earlier result)", name, id);
	}
	for (int k = 0; k < n_out; k++) {
		uint32_t id = out[k];
		if (id >= n_operands || g->values[id].kind != GRAPH_VALUE_UNUSED)
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "%s: output operand %u is already defined", name, id);
	}
	uint32_t idx = graph_add_node(g, kind, &attrs, *in, (uint32_t)n_in, out, (uint32_t)n_out,
				      diag);
	if (idx == GRAPH_NONE)
		return diag->status;
	struct graph_node *n = &g->nodes[idx];
	graph_node_repoint(n);
	if (op->label && *op->label && !(n->label = strdup(op->label)))
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
	for (int k = 0; k < n_out; k++) {
		g->values[out[k]].kind = GRAPH_VALUE_INTERMEDIATE;
		g->values[out[k]].producer = idx;
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status import_outputs(struct graph_ir *g, const struct graph_source *src,
					struct wnn_diag *diag)
{
	for (size_t i = 0; i < src->n_outputs; i++) {
		uint32_t id = src->output_operands[i];
		if (id >= src->info->n_operands ||
		    g->values[id].kind != GRAPH_VALUE_INTERMEDIATE)
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "graph: output %zu is not produced by an operation", i);
		if (g->values[id].output_index == GRAPH_NONE)
			g->values[id].output_index = (uint32_t)i;
		g->outputs[i] = id;
	}
	g->n_outputs = (uint32_t)src->n_outputs;
	return WEBNN_STATUS_OK;
}

enum webnn_status graph_import(const struct graph_source *src, struct graph_ir **out,
			       struct wnn_diag *diag)
{
	*out = NULL;
	if (!src->info || !src->descs)
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR, "graph: nothing to import");
	struct graph_ir *g = calloc(1, sizeof *g);
	int cap = 64;
	uint32_t *in = malloc((size_t)cap * sizeof *in);
	if (!g || !in) {
		free(g);
		free(in);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
	}
	enum webnn_status st = import_values(g, src, diag);
	for (size_t i = 0; st == WEBNN_STATUS_OK && i < src->info->n_operations; i++) {
		/* a build cancelled meanwhile: the rest is not imported (a graph may have 100k
		 * operations, tens of microseconds each) */
		if (i % GRAPH_IMPORT_CANCEL_EVERY == 0 && src->cancel &&
		    atomic_load_explicit(src->cancel, memory_order_relaxed)) {
			st = wnn_diag_set(diag, WEBNN_STATUS_CONTEXT_LOST,
					  "build: cancelled (the context is lost or closed)");
			break;
		}
		st = import_node(g, src, src->info->operations[i], &in, &cap, diag);
	}
	if (st == WEBNN_STATUS_OK)
		st = import_outputs(g, src, diag);
	free(in);
	if (st != WEBNN_STATUS_OK) {
		graph_destroy(g);
		return st;
	}
	graph_recount(g);
	g->n_imported_nodes = g->n_nodes;
	*out = g;
	return WEBNN_STATUS_OK;
}
