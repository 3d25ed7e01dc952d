/* What an ONNX file declares, read without building it: inputs, outputs, free dimensions, operators by type, constant bytes (webnn_model_inspect). */
#include "importers/onnx/onnx_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum webnn_status info_fail(char *error, size_t len, enum webnn_status s, const char *msg)
{
	if (error && len)
		snprintf(error, len, "onnx: %s", msg);
	return s;
}

/* One declared value; its free dimensions are added to info->free_dims when is_input. */
static int declare(struct wnni_info *info, const Onnx__ValueInfoProto *vi,
		   struct webnn_model_value_info *out, bool is_input, size_t *n_free, size_t cap_free)
{
	memset(out, 0, sizeof(*out));
	out->name = wnni_info_strdup(info, vi->name ? vi->name : "");
	if (!out->name)
		return -1;
	const Onnx__TypeProto *tp = vi->type;
	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) {
		out->type_name = "not a tensor";
		return 0;
	}
	const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
	int t = tt->has_elem_type ? tt->elem_type : 0;
	out->type_name = ox_type_name(t);
	out->has_data_type = ox_webnn_type(t, &out->data_type);
	if (!tt->shape)
		return 0;
	out->has_shape = true;
	out->rank = (uint32_t)tt->shape->n_dim;
	for (uint32_t i = 0; i < out->rank && i < WEBNN_MAX_RANK; i++) {
		const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    d->dim_value >= 0 && d->dim_value <= UINT32_MAX) {
			out->shape[i] = (uint32_t)d->dim_value;
			continue;
		}
		bool named = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
			     d->dim_param && *d->dim_param;
		out->dim_names[i] = named ? wnni_info_strdup(info, d->dim_param) : "";
		if (!out->dim_names[i])
			return -1;
		if (is_input && *n_free < cap_free)
			info->pub.free_dims[(*n_free)++] = (struct webnn_model_free_dim){
				out->dim_names[i], out->name, i };
	}
	return 0;
}

static bool is_initializer(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0)
			return true;
	return false;
}

static int by_count(const void *a, const void *b)
{
	const struct webnn_model_op_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->op_type, y->op_type);
}

static uint64_t tensor_bytes(const Onnx__TensorProto *t);

/* Nodes of g and of the graphs in its nodes' attributes (If branches, Loop bodies). */
static size_t count_nodes(const Onnx__GraphProto *g, int depth)
{
	size_t n = g->n_node;
	for (size_t i = 0; i < g->n_node && depth < 64; i++)
		for (size_t a = 0; a < g->node[i]->n_attribute; a++) {
			const Onnx__AttributeProto *at = g->node[i]->attribute[a];
			if (at->g)
				n += count_nodes(at->g, depth + 1);
			for (size_t k = 0; k < at->n_graphs; k++)
				n += count_nodes(at->graphs[k], depth + 1);
		}
	return n;
}

/* Adds g's operators (and its subgraphs') to ops and its constants' bytes to the info. */
static int count_graph(struct wnni_info *info, const Onnx__GraphProto *g,
		       struct webnn_model_op_count *ops, size_t *n, int depth)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		info->pub.constant_bytes += tensor_bytes(g->initializer[i]);
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *node = g->node[i];
		for (size_t a = 0; a < node->n_attribute; a++) {
			const Onnx__AttributeProto *at = node->attribute[a];
			if (at->t) /* Constant nodes hold constants too */
				info->pub.constant_bytes += tensor_bytes(at->t);
			if (depth < 64 && at->g && count_graph(info, at->g, ops, n, depth + 1) != 0)
				return -1;
			for (size_t k = 0; depth < 64 && k < at->n_graphs; k++)
				if (count_graph(info, at->graphs[k], ops, n, depth + 1) != 0)
					return -1;
		}
		const char *type = node->op_type ? node->op_type : "";
		char full[256];
		if (node->domain && *node->domain && strcmp(node->domain, "ai.onnx") != 0) {
			snprintf(full, sizeof(full), "%s.%s", node->domain, type);
			type = full;
		}
		size_t k = 0;
		while (k < *n && strcmp(ops[k].op_type, type) != 0)
			k++;
		if (k == *n) {
			ops[*n].op_type = wnni_info_strdup(info, type);
			if (!ops[(*n)++].op_type)
				return -1;
		}
		ops[k].count++;
	}
	return 0;
}

static int count_ops(struct wnni_info *info, const Onnx__GraphProto *g)
{
	size_t total = count_nodes(g, 0), n = 0;
	struct webnn_model_op_count *ops = wnni_info_alloc(info, (total + 1) * sizeof(*ops));
	if (!ops || count_graph(info, g, ops, &n, 0) != 0)
		return -1;
	qsort(ops, n, sizeof(*ops), by_count);
	info->pub.op_types = ops;
	info->pub.n_op_types = n;
	info->pub.n_nodes = total;
	return 0;
}

static uint64_t tensor_bytes(const Onnx__TensorProto *t)
{
	if (t->has_raw_data && t->raw_data.len)
		return t->raw_data.len;
	uint64_t n = 1;
	for (size_t i = 0; i < t->n_dims; i++)
		n *= t->dims[i] > 0 ? (uint64_t)t->dims[i] : 0;
	enum webnn_data_type wt;
	int type = t->has_data_type ? t->data_type : 0;
	if (!ox_webnn_type(type, &wt))
		return 0;
	return webnn_data_type_byte_length(wt, n);
}

enum webnn_status wnni_onnx_declared(const void *data, size_t size, struct wnni_info *info,
				     char *error, size_t len)
{
	if (!ox_nesting_ok(data, size))
		return info_fail(error, len, WEBNN_STATUS_DATA_ERROR,
				 "messages nested too deep (graphs in attributes?): refused");
	struct ox_raw_ref *refs;
	size_t n_refs;
	Onnx__ModelProto *model = ox_unpack_model(data, size, &refs, &n_refs);
	if (!model)
		return info_fail(error, len, WEBNN_STATUS_DATA_ERROR,
				 "not an ONNX model (protobuf decoding of ModelProto failed)");
	enum webnn_status s = WEBNN_STATUS_NO_MEMORY;
	const Onnx__GraphProto *g = model->graph;
	if (!g) {
		ox_free_model(model, refs, n_refs);
		return info_fail(error, len, WEBNN_STATUS_DATA_ERROR, "the model has no graph");
	}
	size_t cap_free = 0;
	for (size_t i = 0; i < g->n_input; i++) {
		const Onnx__TypeProto *tp = g->input[i]->type;
		if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type &&
		    tp->tensor_type->shape)
			cap_free += tp->tensor_type->shape->n_dim;
	}
	info->pub.format = "onnx";
	info->pub.inputs = wnni_info_alloc(info, (g->n_input + 1) * sizeof(*info->pub.inputs));
	info->pub.outputs = wnni_info_alloc(info, (g->n_output + 1) * sizeof(*info->pub.outputs));
	info->pub.free_dims = wnni_info_alloc(info, (cap_free + 1) * sizeof(*info->pub.free_dims));
	if (!info->pub.inputs || !info->pub.outputs || !info->pub.free_dims)
		goto out;
	for (size_t i = 0; i < g->n_input; i++) {
		/* an input with an initializer of its name has a value: not the caller's to give */
		if (g->input[i]->name && is_initializer(g, g->input[i]->name))
			continue;
		if (declare(info, g->input[i], &info->pub.inputs[info->pub.n_inputs++], true,
			    &info->pub.n_free_dims, cap_free) != 0)
			goto out;
	}
	for (size_t i = 0; i < g->n_output; i++)
		if (declare(info, g->output[i], &info->pub.outputs[info->pub.n_outputs++], false,
			    NULL, 0) != 0)
			goto out;
	if (count_ops(info, g) != 0)
		goto out;
	s = WEBNN_STATUS_OK;
out:
	ox_free_model(model, refs, n_refs);
	if (s != WEBNN_STATUS_OK)
		info_fail(error, len, s, "out of memory");
	return s;
}
