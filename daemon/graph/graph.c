/* Graph IR storage: values, nodes, ownership of pass-made constants, use counts and names. */
#include "daemon/graph/graph.h"

#include "daemon/worker/obj.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool grow(void **items, uint32_t *cap, uint32_t need, size_t size)
{
	if (need <= *cap)
		return true;
	uint32_t n = *cap ? *cap : 16;
	while (n < need) {
		if (n > UINT32_MAX / 2)
			return false;
		n *= 2;
	}
	void *p = realloc(*items, (size_t)n * size);
	if (!p)
		return false;
	*items = p;
	*cap = n;
	return true;
}

void graph_destroy(struct graph_ir *g)
{
	if (!g)
		return;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		free(g->nodes[i].inputs);
		free(g->nodes[i].outputs);
		free(g->nodes[i].label);
		free(g->nodes[i].chain.members);
	}
	for (uint32_t i = 0; i < g->n_owned; i++)
		free(g->owned[i]);
	free(g->owned);
	free(g->nodes);
	free(g->values);
	free(g->inputs);
	free(g->outputs);
	free(g->plan.buffer_bytes);
	free(g);
}

uint32_t graph_add_value(struct graph_ir *g, const struct wnn_desc *desc, enum graph_value_kind kind,
			 struct wnn_diag *diag)
{
	if (g->n_values == GRAPH_NONE - 1 ||
	    !grow((void **)&g->values, &g->cap_values, g->n_values + 1, sizeof *g->values)) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
		return GRAPH_NONE;
	}
	struct graph_value *v = &g->values[g->n_values];
	memset(v, 0, sizeof *v);
	if (desc)
		v->desc = *desc;
	v->kind = kind;
	v->producer = v->input_index = v->output_index = GRAPH_NONE;
	v->slice_of = v->view_of = v->buffer = GRAPH_NONE;
	return g->n_values++;
}

static uint32_t *copy_ids(const uint32_t *ids, uint32_t n)
{
	uint32_t *p = malloc((n ? n : 1) * sizeof *p);
	if (p && n)
		memcpy(p, ids, n * sizeof *p);
	return p;
}

uint32_t graph_add_node(struct graph_ir *g, enum wnn_op op, const union wnn_attrs *attrs,
			const uint32_t *inputs, uint32_t n_inputs, const uint32_t *outputs,
			uint32_t n_outputs, struct wnn_diag *diag)
{
	if (g->n_nodes == GRAPH_NONE - 1 ||
	    !grow((void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof *g->nodes)) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
		return GRAPH_NONE;
	}
	struct graph_node *n = &g->nodes[g->n_nodes];
	memset(n, 0, sizeof *n);
	n->op = op;
	if (attrs)
		n->attrs = *attrs;
	n->inputs = copy_ids(inputs, n_inputs);
	n->outputs = copy_ids(outputs, n_outputs);
	if (!n->inputs || !n->outputs) {
		free(n->inputs);
		free(n->outputs);
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
		return GRAPH_NONE;
	}
	n->n_inputs = n_inputs;
	n->n_outputs = n_outputs;
	n->fused_into = GRAPH_NONE;
	n->epilogue.output = n->epilogue.channel = n->epilogue.residual = GRAPH_NONE;
	return g->n_nodes++;
}

void graph_node_repoint(struct graph_node *n)
{
	if (n->op == WNN_OP_CONCAT)
		n->attrs.concat.inputs = n->inputs;
	else if (n->op == WNN_OP_SPLIT)
		n->attrs.split.outputs = n->outputs;
}

static bool owns(const struct graph_ir *g, const void *p)
{
	for (uint32_t i = 0; i < g->n_owned; i++)
		if (g->owned[i] == p)
			return true;
	return false;
}

static void *dup_bytes(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);
	if (q && n)
		memcpy(q, p, n);
	return q;
}

/* The node arrays of a clone: fresh input/output/label/chain copies of the original's. */
static bool clone_node(struct graph_node *n, const struct graph_node *o)
{
	*n = *o;
	n->inputs = copy_ids(o->inputs, o->n_inputs);
	n->outputs = copy_ids(o->outputs, o->n_outputs);
	n->label = o->label ? strdup(o->label) : NULL;
	n->chain.members = o->chain.members ? copy_ids(o->chain.members, o->chain.n_members)
					    : NULL;
	graph_node_repoint(n);
	return n->inputs && n->outputs && (!o->label || n->label) &&
	       (!o->chain.members || n->chain.members);
}

/* Constants the original owns get bytes the clone owns. */
static bool clone_constants(struct graph_ir *c, const struct graph_ir *g)
{
	for (uint32_t v = 0; v < g->n_values; v++) {
		if (!g->values[v].data || !owns(g, g->values[v].data))
			continue;
		uint64_t bytes = 0;
		wnn_desc_bytes(&g->values[v].desc, &bytes);
		void *p = dup_bytes(g->values[v].data, (size_t)bytes);
		if (!p || !graph_own(c, p))
			return false;
		c->values[v].data = p;
	}
	return true;
}

struct graph_ir *graph_clone(const struct graph_ir *g)
{
	struct graph_ir *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	*c = *g;
	c->owned = NULL;
	c->n_owned = c->cap_owned = 0;
	c->values = dup_bytes(g->values, (size_t)g->n_values * sizeof *g->values);
	c->nodes = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *c->nodes);
	c->inputs = copy_ids(g->inputs, g->n_inputs);
	c->outputs = copy_ids(g->outputs, g->n_outputs);
	c->plan.buffer_bytes = dup_bytes(g->plan.buffer_bytes,
					 (size_t)g->plan.n_buffers * sizeof *g->plan.buffer_bytes);
	c->cap_values = g->n_values;
	c->cap_nodes = g->n_nodes;
	c->n_nodes = 0;
	bool ok = c->values && c->nodes && c->inputs && c->outputs && c->plan.buffer_bytes;
	for (uint32_t i = 0; ok && i < g->n_nodes; i++) {
		ok = clone_node(&c->nodes[i], &g->nodes[i]);
		c->n_nodes = i + 1; /* freed by graph_destroy even when incomplete */
	}
	if (!ok || !clone_constants(c, g)) {
		graph_destroy(c);
		return NULL;
	}
	return c;
}

bool graph_own(struct graph_ir *g, void *p)
{
	if (!grow((void **)&g->owned, &g->cap_owned, g->n_owned + 1, sizeof *g->owned)) {
		free(p);
		return false;
	}
	g->owned[g->n_owned++] = p;
	return true;
}

void graph_recount(struct graph_ir *g)
{
	for (uint32_t v = 0; v < g->n_values; v++) {
		g->values[v].n_uses = 0;
		if (g->values[v].kind == GRAPH_VALUE_INTERMEDIATE)
			g->values[v].producer = GRAPH_NONE;
	}
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		if (n->state != GRAPH_NODE_LIVE && n->state != GRAPH_NODE_FUSED)
			continue;
		for (uint32_t k = 0; k < n->n_inputs; k++)
			g->values[n->inputs[k]].n_uses++;
		for (uint32_t k = 0; k < n->n_outputs; k++)
			if (g->values[n->outputs[k]].kind == GRAPH_VALUE_INTERMEDIATE)
				g->values[n->outputs[k]].producer = i;
	}
}

void graph_count(const struct graph_ir *g, struct graph_counts *c)
{
	*c = (struct graph_counts){ .imported = g->n_imported_nodes };
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		switch (g->nodes[i].state) {
		case GRAPH_NODE_LIVE:
			c->live++;
			break;
		case GRAPH_NODE_FOLDED:
			c->folded++;
			break;
		case GRAPH_NODE_FUSED:
			c->fused++;
			break;
		case GRAPH_NODE_DEAD:
			c->dead++;
			break;
		}
	}
}

const char *graph_node_name(const struct graph_node *n, char *buf, size_t len)
{
	if (n->label && *n->label)
		snprintf(buf, len, "%s '%s'", wnn_ops[n->op].name, n->label);
	else
		snprintf(buf, len, "%s", wnn_ops[n->op].name);
	return buf;
}

uint64_t graph_ir_bytes(const struct graph_ir *g)
{
	uint64_t n = obj_heap_bytes(sizeof *g);
	n += obj_heap_bytes((uint64_t)g->cap_values * sizeof *g->values);
	n += obj_heap_bytes((uint64_t)g->cap_nodes * sizeof *g->nodes);
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *d = &g->nodes[i];
		n += obj_heap_bytes((d->n_inputs ? d->n_inputs : 1) * sizeof(uint32_t));
		n += obj_heap_bytes((d->n_outputs ? d->n_outputs : 1) * sizeof(uint32_t));
		if (d->label)
			n += obj_heap_bytes(strlen(d->label) + 1);
		if (d->chain.members)
			n += obj_heap_bytes(d->chain.n_members * sizeof(uint32_t));
	}
	n += obj_heap_bytes((uint64_t)g->cap_owned * sizeof *g->owned);
	n += obj_heap_bytes((uint64_t)g->n_owned * 32); /* the owned blocks' chunk headers */
	n += obj_heap_bytes((g->n_inputs ? g->n_inputs : 1) * sizeof(uint32_t));
	n += obj_heap_bytes((g->n_outputs ? g->n_outputs : 1) * sizeof(uint32_t));
	n += obj_heap_bytes((g->plan.n_buffers ? g->plan.n_buffers : 1) * sizeof(uint64_t));
	return n;
}

uint64_t graph_ir_bytes_bound(uint64_t n_operations, uint64_t n_operands, uint64_t msg_bytes)
{
	/* The node and value arrays may be twice their need (and start at 16); every id and label
	 * byte of a node is at least as large in the unpacked request (msg_bytes), besides the
	 * chunk headers of its two id arrays and label. Passes that add nodes (layout transposes)
	 * can go past this: the compile's completion charges what was really made. */
	uint64_t nodes = n_operations + 16, values = n_operands + 16;
	return 4096 + 2 * nodes * sizeof(struct graph_node) + 2 * values * sizeof(struct graph_value) +
	       nodes * 3 * obj_heap_bytes(0) + msg_bytes;
}
