/* The host kernels' step API: which operators and types they run, a node's step, and one node evaluated on host memory (constant folding). */
#include <stdlib.h>

#include "daemon/backend/host/kernels.h"

/* Every family's kernels, by ops.def family. */
typedef enum webnn_status (*hk_prepare_fn)(const struct graph_node *n, struct hk_step *s,
					   struct wnn_diag *diag);
static const hk_prepare_fn hk_prepare_family[WNN_FAMILY_COUNT] = {
#define HK_FAMILY_ENTRY_(E, name) [WNN_FAMILY_##E] = hk_##name##_prepare,
	WNN_FAMILIES(HK_FAMILY_ENTRY_)
#undef HK_FAMILY_ENTRY_
};

/* The dtypes column restricts every operator to what its family's kernels implement, except
 * elementwise rows, whose kernels exist per numeric domain of their expressions. */
bool hk_supports(enum wnn_op op, enum wnn_dtype type)
{
	if (op >= WNN_OP_COUNT || type <= WNN_DT_NONE || type >= WNN_DT_COUNT ||
	    !(wnn_ops[op].dtypes & WNN_DT_BIT(type)))
		return false;
	return wnn_ops[op].family != WNN_FAMILY_ELEMENTWISE || hk_elementwise_supports(op, type);
}

enum webnn_status hk_check_supported(enum wnn_op op, enum wnn_dtype t, struct wnn_diag *diag)
{
	if (hk_supports(op, t))
		return WEBNN_STATUS_OK;
	return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
			    "%s: data type %s is not supported by the reference backend",
			    op < WNN_OP_COUNT ? wnn_ops[op].name : "operation", wnn_dtype_name(t));
}

/* A step for node n: its kernel, chosen by its family. */
enum webnn_status hk_step_prepare(const struct graph_node *n, const struct wnn_desc *descs,
				  const atomic_bool *cancel, struct hk_step *s,
				  struct wnn_diag *diag)
{
	memset(s, 0, sizeof(*s));
	s->cancel = cancel;
	if (n->op >= WNN_OP_COUNT)
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "operation: unknown operator %u", (unsigned)n->op);
	s->op = n->op;
	s->a = &n->attrs;
	s->descs = descs;
	return hk_prepare_family[wnn_ops[n->op].family](n, s, diag);
}

enum webnn_status hk_evaluate(const struct graph_node *n, const struct graph_value *values,
			      const void *const *inputs, void *const *outputs,
			      const atomic_bool *cancel, struct wnn_diag *diag)
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
	struct hk_step s;
	enum webnn_status st = hk_step_prepare(n, descs, cancel, &s, diag);
	if (st == WEBNN_STATUS_OK)
		st = s.run(&s, bufs, diag);
	free(bufs);
	free(descs);
	return st;
}

