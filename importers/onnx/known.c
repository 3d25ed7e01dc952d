/* Values known at load time: a node whose inputs are all known is computed when the model loads, through WebNN on the context. */
#include "importers/onnx/onnx_internal.h"

#include <stdlib.h>
#include <string.h>

/* Why through WebNN: the node's own mapping (the op tables) builds it on a scratch builder of
 * the same context, so every mapped operator is covered by one mechanism with WebNN's exact
 * semantics, and libwebnn-import keeps to libwebnn's public API (the daemon's reference
 * kernels are not the client's to link). Builders that fold on the host (shape arithmetic,
 * Shape, Gather, Concat, Cast ...) set host outputs themselves and cost no dispatch; the rest
 * costs one build and one dispatch of a graph of that node. */

static bool has_graph_attribute(const Onnx__NodeProto *node)
{
	for (size_t i = 0; i < node->n_attribute; i++)
		if (node->attribute[i]->g || node->attribute[i]->n_graphs)
			return true;
	return false;
}

/* Whether the node qualifies: at least one input, every input present known and small. */
static bool all_inputs_known(const struct ox_node *n)
{
	bool any = false;
	for (size_t i = 0; i < n->n_in; i++) {
		const struct ox_val *v = n->in[i];
		if (!v)
			continue;
		if (!v->host || ox_elems(v->rank, v->dims) > OX_FOLD_MAX_ELEMS)
			return false;
		any = true;
	}
	return any;
}

static void drop_outputs(struct ox_node *n)
{
	for (size_t i = 0; i < OX_MAX_IO; i++) {
		if (n->out_set[i] && n->out[i].host_owned)
			free(n->out[i].host);
		n->out_set[i] = false;
		memset(&n->out[i], 0, sizeof(n->out[i]));
	}
}

/* Builds the operand outputs of n (all built on b) as one graph, runs it and makes them host
 * values. false when WebNN refused (the caller then builds the node as usual). */
static bool compute(struct ox_node *n, struct webnn_builder *b)
{
	struct webnn_context *ctx = n->M->ctx;
	struct webnn_named_operand outs[OX_MAX_IO];
	struct webnn_named_tensor tensors[OX_MAX_IO];
	size_t which[OX_MAX_IO], k = 0;
	static const char *const names[] = { "o0", "o1", "o2", "o3", "o4", "o5", "o6", "o7" };
	for (size_t i = 0; i < n->n_out; i++) {
		struct ox_val *v = &n->out[i];
		if (!n->out_set[i] || v->host)
			continue;
		if (k == sizeof(names) / sizeof(names[0]) ||
		    ox_elems(v->rank, v->dims) > OX_FOLD_MAX_ELEMS)
			return false;
		/* an output may be a constant or an input's operand: a graph output is an
		 * operation's result */
		struct webnn_operand *o;
		if (webnn_builder_identity(b, v->op, &o) != WEBNN_STATUS_OK)
			return false;
		outs[k] = (struct webnn_named_operand){ names[k], o };
		which[k++] = i;
	}
	if (!k)
		return true;
	if (++n->M->n_evals > OX_MAX_EVALS)
		return false; /* a bound on load time (a loop unrolled around known nodes) */
	struct webnn_graph *g = NULL;
	if (webnn_builder_build(b, outs, k, &g) != WEBNN_STATUS_OK)
		return false;
	size_t made = 0;
	bool ok = true;
	for (; made < k && ok; made++) {
		struct webnn_tensor_desc td = { .readable = true };
		struct ox_val *v = &n->out[which[made]];
		td.desc = (struct webnn_operand_desc){ v->type, v->rank, { 0 } };
		memcpy(td.desc.shape, v->dims, sizeof(v->dims[0]) * v->rank);
		tensors[made].name = names[made];
		ok = webnn_context_create_tensor(ctx, &td, &tensors[made].tensor) ==
		     WEBNN_STATUS_OK;
		if (!ok)
			break;
	}
	ok = ok && webnn_context_dispatch(ctx, g, NULL, 0, tensors, k) == WEBNN_STATUS_OK;
	void *data[OX_MAX_IO] = { 0 };
	for (size_t j = 0; j < k && ok; j++) {
		struct ox_val *v = &n->out[which[j]];
		size_t bytes = ox_bytes(v->type, v->rank, v->dims);
		ok = (data[j] = malloc(bytes + 1)) &&
		     webnn_context_read_tensor(ctx, tensors[j].tensor, data[j], bytes) ==
			     WEBNN_STATUS_OK;
	}
	for (size_t j = 0; j < made; j++)
		webnn_tensor_destroy(tensors[j].tensor);
	webnn_graph_destroy(g);
	for (size_t j = 0; j < k; j++) {
		struct ox_val *v = &n->out[which[j]];
		if (!ok) {
			free(data[j]);
			continue;
		}
		v->op = NULL;
		v->constant = false;
		v->host = data[j];
		v->host_owned = true;
	}
	return ok;
}

int ox_eval_known(struct ox_node *n, ox_build_fn fn)
{
	struct ox_model *M = n->M;
	if (has_graph_attribute(n->node) || !all_inputs_known(n))
		return 0;
	/* The builder sees copies of the inputs: the operands it makes for them belong to the
	 * scratch builder and must not stick to the model's values. */
	struct ox_val copies[OX_MAX_IO], *given[OX_MAX_IO];
	for (size_t i = 0; i < n->n_in; i++) {
		given[i] = n->in[i];
		if (!given[i])
			continue;
		copies[i] = *given[i];
		copies[i].op = NULL;
		copies[i].constant = false;
		copies[i].host_owned = false;
		n->in[i] = &copies[i];
	}
	struct webnn_builder *main_b = M->b, *b = NULL;
	int rc = 0;
	if (webnn_builder_create(M->ctx, &b) == WEBNN_STATUS_OK) {
		M->b = b;
		bool ok = fn(n) == 0;
		M->b = main_b;
		ok = ok && compute(n, b);
		webnn_builder_destroy(b);
		if (ok) {
			/* outputs that stayed operands (of the scratch builder) cannot be used */
			for (size_t i = 0; i < n->n_out; i++)
				ok = ok && (!n->out_set[i] || n->out[i].host);
		}
		rc = ok ? 1 : 0;
	}
	for (size_t i = 0; i < n->n_in; i++)
		n->in[i] = given[i];
	if (rc == 0) {
		/* not computed now: the node is built as usual, whose own reasons count */
		drop_outputs(n);
		if (M->node_status == WEBNN_STATUS_NO_MEMORY)
			return -1;
		M->node_status = WEBNN_STATUS_OK;
		M->node_error[0] = 0;
	}
	return rc;
}
