/* The order the ONNX importer walks a graph's nodes in: every value made before it is read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "importers/onnx/onnx_internal.h"

/* ONNX asks files to list nodes in that order, but converters do not always keep it
 * (onnxconverter-common's float16 pass appends the casts of the graph inputs at the end) and
 * onnxruntime sorts, so files like that are shipped. The walk below keeps the file's order
 * wherever it is already valid: a sorted file is walked exactly as written. */

struct producers {
	const char **name;
	size_t *node;
	size_t mask;
};

static bool producers_init(struct producers *p, const Onnx__GraphProto *g)
{
	size_t outs = 0, cap = 16;
	for (size_t i = 0; i < g->n_node; i++)
		outs += g->node[i]->n_output;
	while (cap < 2 * outs)
		cap *= 2;
	p->name = calloc(cap, sizeof(*p->name));
	p->node = calloc(cap, sizeof(*p->node));
	p->mask = cap - 1;
	if (!p->name || !p->node)
		return false;
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t o = 0; o < g->node[i]->n_output; o++) {
			const char *s = g->node[i]->output[o];
			if (!s || !*s)
				continue;
			size_t h = ox_name_hash(s) & p->mask;
			while (p->name[h] && strcmp(p->name[h], s) != 0)
				h = (h + 1) & p->mask;
			if (!p->name[h]) /* a name made twice: the first maker counts */
				p->name[h] = s, p->node[h] = i;
		}
	return true;
}

/* The node that makes s, or SIZE_MAX for a graph input, an initializer or an outer value. */
static size_t producer(const struct producers *p, const char *s)
{
	if (!s || !*s)
		return SIZE_MAX;
	for (size_t h = ox_name_hash(s) & p->mask; p->name[h]; h = (h + 1) & p->mask)
		if (strcmp(p->name[h], s) == 0)
			return p->node[h];
	return SIZE_MAX;
}

int ox_node_order(const Onnx__GraphProto *g, size_t **order_out, char *why, size_t len)
{
	size_t n = g->n_node;
	struct producers p = { 0 };
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	size_t *stack = malloc((n ? n : 1) * sizeof(*stack));
	size_t *cursor = calloc(n ? n : 1, sizeof(*cursor));
	unsigned char *state = calloc(n ? n : 1, 1); /* 0 new, 1 on the stack, 2 placed */
	int rc = -1;
	*order_out = NULL;
	if (!order || !stack || !cursor || !state || !producers_init(&p, g)) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	size_t placed = 0;
	for (size_t root = 0; root < n; root++) {
		if (state[root])
			continue;
		size_t depth = 0;
		stack[depth++] = root;
		state[root] = 1;
		while (depth) {
			size_t i = stack[depth - 1];
			const Onnx__NodeProto *node = g->node[i];
			size_t dep = SIZE_MAX;
			while (cursor[i] < node->n_input && dep == SIZE_MAX) {
				size_t q = producer(&p, node->input[cursor[i]++]);
				if (q == SIZE_MAX || q == i || state[q] == 2)
					continue;
				if (state[q] == 1) {
					snprintf(why, len, "nodes \"%s\" and \"%s\" read each other's "
						 "outputs (the graph has a cycle)",
						 node->name ? node->name : "", g->node[q]->name
						 ? g->node[q]->name : "");
					goto out;
				}
				dep = q;
			}
			if (dep != SIZE_MAX) {
				state[dep] = 1;
				stack[depth++] = dep;
				continue;
			}
			state[i] = 2;
			order[placed++] = i;
			depth--;
		}
	}
	*order_out = order;
	order = NULL;
	rc = 0;
out:
	free(order);
	free(stack);
	free(cursor);
	free(state);
	free(p.name);
	free(p.node);
	return rc;
}
