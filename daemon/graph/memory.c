/* The memory plan: which intermediates need storage, their live ranges, and best-fit buffer reuse. */
#include "daemon/graph/passes.h"

#include <stdlib.h>
#include <string.h>

/* The node whose kernel computes node i: itself, or the head it was fused into. */
static uint32_t computing_node(const struct graph_ir *g, uint32_t i)
{
	const struct graph_node *n = &g->nodes[i];
	return n->state == GRAPH_NODE_FUSED ? n->fused_into : i;
}

/* Whether a run materialises value v on its own: intermediates a live kernel writes, unless
 * they are graph outputs (written into the output tensor), written into a concat's output, or
 * internal to a fusion group (only the group's last value leaves the kernel). */
bool graph_value_needs_buffer(const struct graph_ir *g, uint32_t v)
{
	const struct graph_value *val = &g->values[v];
	if (val->kind != GRAPH_VALUE_INTERMEDIATE || val->output_index != GRAPH_NONE ||
	    val->slice_of != GRAPH_NONE || val->view_of != GRAPH_NONE ||
	    val->producer == GRAPH_NONE)
		return false;
	const struct graph_node *p = &g->nodes[val->producer];
	if (p->state != GRAPH_NODE_LIVE && p->state != GRAPH_NODE_FUSED)
		return false;
	const struct graph_node *head = &g->nodes[computing_node(g, val->producer)];
	if (head->epilogue.used)
		return v == head->epilogue.output;
	if (head->chain.members) {
		const struct graph_node *tail = &g->nodes[head->chain.members[head->chain.n_members - 1]];
		return tail->n_outputs == 1 && v == tail->outputs[0];
	}
	return p->state == GRAPH_NODE_LIVE;
}

static int by_first(const void *a, const void *b)
{
	const struct graph_live_range *x = a, *y = b;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

uint64_t *graph_assign_buffers(struct graph_live_range *r, uint32_t n, uint32_t *n_buffers)
{
	uint64_t *size = calloc(n ? n : 1, sizeof *size);
	uint32_t *busy_until = malloc((n ? n : 1) * sizeof *busy_until);
	if (!size || !busy_until) {
		free(size);
		free(busy_until);
		return NULL;
	}
	qsort(r, n, sizeof *r, by_first);
	uint32_t n_buf = 0;
	for (uint32_t i = 0; i < n; i++) {
		/* Best fit among free buffers; else grow the largest free one; else a new one. A
		 * buffer read at a step is not free for that step's writes. */
		int64_t best = -1, grow = -1;
		for (uint32_t k = 0; k < n_buf; k++) {
			if (busy_until[k] >= r[i].first)
				continue;
			if (size[k] >= r[i].bytes) {
				if (best < 0 || size[k] < size[best])
					best = k;
			} else if (grow < 0 || size[k] > size[grow]) {
				grow = k;
			}
		}
		if (best < 0)
			best = grow;
		if (best < 0)
			best = n_buf++;
		if (size[best] < r[i].bytes)
			size[best] = r[i].bytes;
		busy_until[best] = r[i].last;
		r[i].buffer = (uint32_t)best;
	}
	free(busy_until);
	*n_buffers = n_buf;
	return size;
}

/* Live ranges of every value that needs a buffer; *n_out of them. */
static struct graph_live_range *live_ranges(const struct graph_ir *g, uint32_t *n_out)
{
	uint32_t *slot = malloc((g->n_values ? g->n_values : 1) * sizeof *slot);
	struct graph_live_range *r = malloc((g->n_values ? g->n_values : 1) * sizeof *r);
	if (!slot || !r) {
		free(slot);
		free(r);
		return NULL;
	}
	uint32_t n = 0;
	for (uint32_t v = 0; v < g->n_values; v++) {
		slot[v] = GRAPH_NONE;
		if (!graph_value_needs_buffer(g, v))
			continue;
		uint64_t bytes = 0;
		wnn_desc_bytes(&g->values[v].desc, &bytes);
		uint32_t at = computing_node(g, g->values[v].producer);
		r[n] = (struct graph_live_range){ .id = v, .first = at, .last = at, .bytes = bytes };
		slot[v] = n++;
	}
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *nd = &g->nodes[i];
		if (nd->state != GRAPH_NODE_LIVE && nd->state != GRAPH_NODE_FUSED)
			continue;
		uint32_t at = computing_node(g, i);
		/* A concat's output is written from its first in-place producer on. */
		for (uint32_t k = 0; k < nd->n_outputs; k++) {
			uint32_t whole = g->values[nd->outputs[k]].slice_of;
			uint32_t s = whole != GRAPH_NONE ? slot[whole] : GRAPH_NONE;
			if (s != GRAPH_NONE && r[s].first > at)
				r[s].first = at;
		}
		for (uint32_t k = 0; k < nd->n_inputs; k++) {
			/* a view is read where its storage is: that value stays live until then */
			uint32_t v = nd->inputs[k];
			uint32_t s = slot[g->values[v].view_of != GRAPH_NONE ? g->values[v].view_of : v];
			if (s != GRAPH_NONE && r[s].last < at)
				r[s].last = at;
		}
	}
	free(slot);
	*n_out = n;
	return r;
}

enum webnn_status graph_plan_memory(struct graph_ir *g, struct wnn_diag *diag)
{
	free(g->plan.buffer_bytes);
	memset(&g->plan, 0, sizeof g->plan);
	for (uint32_t v = 0; v < g->n_values; v++)
		g->values[v].buffer = GRAPH_NONE;
	uint32_t n = 0, n_buf = 0;
	struct graph_live_range *r = live_ranges(g, &n);
	uint64_t *size = r ? graph_assign_buffers(r, n, &n_buf) : NULL;
	if (!size) {
		free(r);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		g->values[r[i].id].buffer = r[i].buffer;
		g->plan.unplanned_bytes += r[i].bytes;
	}
	free(r);
	g->plan.buffer_bytes = size;
	g->plan.n_buffers = n_buf;
	for (uint32_t k = 0; k < n_buf; k++)
		g->plan.peak_bytes += size[k];
	return WEBNN_STATUS_OK;
}
