/* ONNX TopK composed from WebNN's argMax/argMin, gatherElements and where: one extreme per step, each taken entry then masked out. */
#include "importers/onnx/onnx_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Each of the k steps adds about eight operations to the graph: past this, a model wants a sort
 * that WebNN does not have, and the graph would be larger than the model. */
#define TOPK_MAX_K 256

/* The value a taken entry is masked with: below (largest) or above every other of the type. */
static struct webnn_operand *topk_fill(struct ox_node *n, enum webnn_data_type t, bool largest)
{
	switch (t) {
	case WEBNN_FLOAT32:
	case WEBNN_FLOAT16:
		return ox_scalar(n, t, largest ? -INFINITY : INFINITY);
	case WEBNN_INT32:
		return ox_scalar(n, t, largest ? (double)INT32_MIN : (double)INT32_MAX);
	case WEBNN_UINT32:
		return ox_scalar(n, t, largest ? 0 : (double)UINT32_MAX);
	case WEBNN_INT8:
		return ox_scalar(n, t, largest ? -128 : 127);
	case WEBNN_UINT8:
		return ox_scalar(n, t, largest ? 0 : 255);
	default: { /* int64, uint64: the builder takes them exactly */
		struct webnn_operand *o = NULL;
		int64_t v = t == WEBNN_INT64 ? (largest ? INT64_MIN : INT64_MAX)
					     : (largest ? 0 : -1); /* uint64: all ones */
		enum webnn_status s = webnn_builder_constant_scalar_int(n->M->b, t, v, &o);
		if (s != WEBNN_STATUS_OK) {
			ox_builder_fail(n, s, "constant");
			return NULL;
		}
		return o;
	}
	}
}

static int op_topk(struct ox_node *n)
{
	struct webnn_operand *x;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	uint32_t axis;
	if (ox_axis(n, ox_attr_i(n, "axis", -1), v->rank, &axis))
		return -1;
	int64_t k;
	if (n->opset >= 10) {
		int64_t *kv;
		size_t c;
		if (!ox_has_in(n, 1))
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no K");
		if (ox_host_i64(n, n->in[1], "K", &kv, &c))
			return -1;
		if (c != 1)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "K has %zu values, not 1", c);
		k = kv[0];
	} else {
		k = ox_attr_i(n, "k", -1);
	}
	uint32_t len = v->dims[axis];
	if (k < 1 || k > (int64_t)len)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "K %lld is not in [1, %u] (WebNN has no "
			       "empty tensors)", (long long)k, len);
	if (k > TOPK_MAX_K)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "K %lld: WebNN has no sort, and a top-k "
			       "composed from argMax steps stops at %d", (long long)k, TOPK_MAX_K);
	bool largest = ox_attr_i(n, "largest", 1) != 0;
	const char *arg = largest ? "argMax" : "argMin";
	if (ox_need_type(n, arg, NULL, v->type))
		return -1;
	struct webnn_builder *b = n->M->b;
	enum webnn_status (*extreme)(struct webnn_builder *, struct webnn_operand *, uint32_t,
				     const struct webnn_arg_min_max_options *,
				     struct webnn_operand **) =
		largest ? webnn_builder_arg_max : webnn_builder_arg_min;
	struct webnn_arg_min_max_options ao = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
	ao.keep_dimensions = true;
	ao.output_data_type = WEBNN_INT64;
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	go.axis = axis;
	/* positions along the axis, shaped to broadcast against x */
	int64_t *pos = ox_keep(n->M, malloc((size_t)len * sizeof(int64_t)));
	if (!pos)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (uint32_t i = 0; i < len; i++)
		pos[i] = i;
	uint32_t pd[WEBNN_MAX_RANK];
	for (uint32_t i = 0; i < v->rank; i++)
		pd[i] = i == axis ? len : 1;
	struct webnn_operand *iota = ox_const(n, WEBNN_INT64, v->rank, pd, pos);
	struct webnn_operand *fill = topk_fill(n, v->type, largest);
	if (!iota || !fill)
		return -1;
	struct webnn_operand **vals = ox_keep(n->M, malloc((size_t)k * sizeof(*vals)));
	struct webnn_operand **idxs = ox_keep(n->M, malloc((size_t)k * sizeof(*idxs)));
	if (!vals || !idxs)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	struct webnn_operand *cur = x, *taken = NULL;
	for (int64_t i = 0; i < k; i++) {
		struct webnn_operand *idx, *best, *first_free, *exhausted, *hit;
		OX_B(n, arg, extreme(b, cur, axis, &ao, &idx));
		if (taken) {
			/* When every entry left equals the mask value (an input holding -inf for
			 * largest), argMax finds a taken one first: the first free entry is the one
			 * ONNX returns (equal values go in index order). */
			OX_B(n, "gatherElements", webnn_builder_gather_elements(b, cur, idx, &go, &best));
			OX_B(n, "equal", webnn_builder_equal(b, best, fill, &exhausted));
			OX_B(n, "argMin", webnn_builder_arg_min(b, taken, axis, &ao, &first_free));
			OX_B(n, "where", webnn_builder_where(b, exhausted, first_free, idx, &idx));
		}
		OX_B(n, "gatherElements", webnn_builder_gather_elements(b, x, idx, &go, &vals[i]));
		idxs[i] = idx;
		if (i + 1 == k)
			break;
		OX_B(n, "equal", webnn_builder_equal(b, iota, idx, &hit));
		if (taken)
			OX_B(n, "max", webnn_builder_max(b, taken, hit, &taken));
		else
			taken = hit;
		OX_B(n, "where", webnn_builder_where(b, taken, fill, x, &cur));
	}
	struct webnn_operand *values = vals[0], *indices = idxs[0];
	if (k > 1) {
		OX_B(n, "concat", webnn_builder_concat(b, vals, (size_t)k, axis, &values));
		OX_B(n, "concat", webnn_builder_concat(b, idxs, (size_t)k, axis, &indices));
	}
	if (ox_set(n, 0, values))
		return -1;
	n->out[0].onnx_type = v->onnx_type;
	if (n->n_out > 1) {
		if (ox_set(n, 1, indices))
			return -1;
		n->out[1].onnx_type = OX_INT64;
	}
	return 0;
}

const struct ox_op ox_ops_topk[] = {
	{ "TopK", 1, 21, op_topk },
	{ NULL, 0, 0, NULL },
};
