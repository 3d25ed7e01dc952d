/* Host tensors and the binding of a graph's values to host memory, shared by the reference and cpu backends. */
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/host/host.h"
#include "daemon/graph/heap.h"

_Static_assert(sizeof(struct backend_tensor) + 16 <= BACKEND_TENSOR_BYTES,
	       "a host tensor's header is charged as BACKEND_TENSOR_BYTES");

/* bytes rounded up to whole cache lines (aligned_alloc wants a multiple of the alignment) */
static void *host_alloc_zeroed(uint64_t bytes)
{
	uint64_t n = (bytes + 63) & ~(uint64_t)63;
	if (n == 0)
		n = 64;
	if (n > SIZE_MAX || n < bytes)
		return NULL;
	void *p = aligned_alloc(64, (size_t)n);
	if (p)
		memset(p, 0, (size_t)n);
	return p;
}

enum webnn_status host_tensor_create(const struct wnn_desc *desc, const char *who,
				     struct backend_tensor **out, struct wnn_diag *diag)
{
	uint64_t bytes;
	if (!wnn_desc_bytes(desc, &bytes) || bytes > SIZE_MAX)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: tensor descriptor is not valid", who);
	struct backend_tensor *t = calloc(1, sizeof(*t));
	void *data = host_alloc_zeroed(bytes);
	if (!t || !data) {
		free(t);
		free(data);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
				    "%s: out of memory for a tensor of %llu bytes", who,
				    (unsigned long long)bytes);
	}
	t->desc = *desc;
	t->bytes = (size_t)bytes;
	t->data = data;
	*out = t;
	return WEBNN_STATUS_OK;
}

enum webnn_status host_tensor_create_shared(const struct wnn_desc *desc, void *host,
					    const char *who, struct backend_tensor **out,
					    struct wnn_diag *diag)
{
	uint64_t bytes;
	if (!wnn_desc_bytes(desc, &bytes) || bytes > SIZE_MAX)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: tensor descriptor is not valid", who);
	struct backend_tensor *t = calloc(1, sizeof(*t));
	if (!t)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", who);
	t->desc = *desc;
	t->bytes = (size_t)bytes;
	t->data = host;
	t->shared = true;
	*out = t;
	return WEBNN_STATUS_OK;
}

void host_tensor_destroy(struct backend_tensor *t)
{
	if (!t)
		return;
	if (!t->shared)
		free(t->data);
	free(t);
}

enum webnn_status host_tensor_write(struct backend_tensor *t, const void *src, size_t size,
				    struct wnn_diag *diag)
{
	if (size != t->bytes)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "writeTensor: %zu bytes given, the tensor has %zu", size, t->bytes);
	/* memmove: a client may name its tensor's own storage as the source (or, reading, as the
	 * destination), and overlapping memcpy is undefined. */
	memmove(t->data, src, size);
	return WEBNN_STATUS_OK;
}

enum webnn_status host_tensor_read(struct backend_tensor *t, void *dst, size_t size,
				   struct wnn_diag *diag)
{
	if (size != t->bytes)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "readTensor: %zu bytes asked, the tensor has %zu", size, t->bytes);
	memmove(dst, t->data, size);
	return WEBNN_STATUS_OK;
}

uint64_t host_values_bytes(const struct host_values *hv)
{
	if (!hv->g)
		return 0;
	uint64_t nv = hv->g->n_values ? hv->g->n_values : 1;
	uint64_t nb = hv->g->plan.n_buffers ? hv->g->plan.n_buffers : 1;
	return heap_chunk_bytes(nv * sizeof(*hv->descs)) + heap_chunk_bytes(nv * sizeof(*hv->src)) +
	       heap_chunk_bytes(nv * sizeof(*hv->alias)) + heap_chunk_bytes(nv * sizeof(*hv->bufs)) +
	       heap_chunk_bytes(nb * sizeof(*hv->buffers)) + nb * 64; /* buffers' alignment */
}

void host_values_fini(struct host_values *hv)
{
	if (hv->buffers && hv->g)
		for (uint32_t i = 0; i < hv->g->plan.n_buffers; i++)
			free(hv->buffers[i]);
	free(hv->buffers);
	free(hv->descs);
	free(hv->src);
	free(hv->alias);
	free(hv->bufs);
	memset(hv, 0, sizeof(*hv));
}

static enum webnn_status values_alloc(struct host_values *hv, const char *who,
				      struct wnn_diag *diag)
{
	const struct graph_ir *g = hv->g;
	const struct graph_plan *mp = &g->plan;
	size_t nv = g->n_values ? g->n_values : 1;
	hv->descs = calloc(nv, sizeof(*hv->descs));
	hv->src = calloc(nv, sizeof(*hv->src));
	hv->alias = calloc(nv, sizeof(*hv->alias));
	hv->bufs = calloc(nv, sizeof(*hv->bufs));
	hv->buffers = calloc(mp->n_buffers ? mp->n_buffers : 1, sizeof(*hv->buffers));
	if (!hv->descs || !hv->src || !hv->alias || !hv->bufs || !hv->buffers)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", who);
	for (uint32_t i = 0; i < mp->n_buffers; i++)
		if (!(hv->buffers[i] = host_alloc_zeroed(mp->buffer_bytes[i])))
			return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
					    "%s: out of memory for an intermediate buffer of %llu "
					    "bytes", who, (unsigned long long)mp->buffer_bytes[i]);
	return WEBNN_STATUS_OK;
}

enum webnn_status host_values_init(struct host_values *hv, const struct graph_ir *g,
				   bool alias_epilogues, const char *who, struct wnn_diag *diag)
{
	memset(hv, 0, sizeof(*hv));
	hv->g = g;
	enum webnn_status st = values_alloc(hv, who, diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	for (uint32_t v = 0; v < g->n_values; v++) {
		const struct graph_value *val = &g->values[v];
		hv->descs[v] = val->desc;
		if (val->kind == GRAPH_VALUE_INPUT && val->input_index != GRAPH_NONE) {
			hv->src[v] = HOST_SRC_INPUT;
		} else if (val->kind == GRAPH_VALUE_CONSTANT && val->data) {
			hv->src[v] = HOST_SRC_CONSTANT;
			hv->bufs[v] = (void *)val->data; /* kernels never write constants */
		} else if (val->kind == GRAPH_VALUE_INTERMEDIATE && val->output_index != GRAPH_NONE) {
			hv->src[v] = HOST_SRC_OUTPUT;
		} else if (val->kind == GRAPH_VALUE_INTERMEDIATE && val->buffer != GRAPH_NONE) {
			hv->src[v] = HOST_SRC_BUFFER;
			hv->bufs[v] = hv->buffers[val->buffer];
		}
	}
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		const struct graph_node *n = &g->nodes[i];
		if (!alias_epilogues || !n->epilogue.used || n->epilogue.output == n->outputs[0])
			continue;
		hv->src[n->outputs[0]] = HOST_SRC_ALIAS;
		hv->alias[n->outputs[0]] = n->epilogue.output;
	}
	for (uint32_t v = 0; v < g->n_values; v++)
		if (g->values[v].view_of != GRAPH_NONE) {
			hv->src[v] = HOST_SRC_ALIAS;
			hv->alias[v] = g->values[v].view_of;
		}
	for (uint32_t i = 0; i < g->n_outputs; i++) {
		uint32_t v = g->outputs[i];
		if (v >= g->n_values ||
		    (hv->src[v] != HOST_SRC_OUTPUT && hv->src[v] != HOST_SRC_CONSTANT))
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "%s: output %u is not produced by an operation", who, i);
	}
	return WEBNN_STATUS_OK;
}

/* Whether v is written by a member of the chain before member k. */
static bool made_in_chain(const struct graph_ir *g, const struct graph_chain *c, uint32_t k,
			  uint32_t v)
{
	for (uint32_t m = 0; m < k; m++) {
		const struct graph_node *p = &g->nodes[c->members[m]];
		for (uint32_t j = 0; j < p->n_outputs; j++)
			if (p->outputs[j] == v)
				return true;
	}
	return false;
}

enum webnn_status host_values_check_node(const struct host_values *hv, uint32_t index,
					 struct wnn_diag *diag)
{
	const struct graph_ir *g = hv->g;
	const struct graph_node *head = &g->nodes[index];
	/* an elementwise chain reads what its members read from outside it and writes only its
	 * last member's output */
	const struct graph_chain one = { .members = &index, .n_members = 1 };
	const struct graph_chain *c = head->chain.members ? &head->chain : &one;
	/* a softmax with a prologue reads what its scaling and mask add read, before them */
	uint32_t pre[3], n_pre = 0;
	struct graph_chain pro;
	if (head->softmax_pre.used && head->n_inputs == 1) {
		if (head->softmax_pre.scaled != GRAPH_NONE)
			pre[n_pre++] = g->values[head->softmax_pre.scaled].producer;
		if (head->softmax_pre.mask != GRAPH_NONE)
			pre[n_pre++] = g->values[head->inputs[0]].producer;
		pre[n_pre++] = index;
		pro = (struct graph_chain){ .members = pre, .n_members = n_pre };
		c = &pro;
	}
	char name[96];
	for (uint32_t k = 0; k < c->n_members; k++) {
		const struct graph_node *n = &g->nodes[c->members[k]];
		for (uint32_t j = 0; j < n->n_inputs; j++) {
			uint32_t v = n->inputs[j];
			if (made_in_chain(g, c, k, v))
				continue;
			/* a view has the data of the value whose storage it shares */
			if (v < g->n_values && g->values[v].view_of != GRAPH_NONE)
				v = g->values[v].view_of;
			enum host_source src = v < g->n_values ? hv->src[v] : HOST_SRC_NONE;
			bool computed = src == HOST_SRC_OUTPUT || src == HOST_SRC_BUFFER;
			uint32_t at = computed ? g->values[v].producer : GRAPH_NONE;
			if (at != GRAPH_NONE && g->nodes[at].state == GRAPH_NODE_FUSED)
				at = g->nodes[at].fused_into;
			bool has_data = computed ? at < index
						 : src != HOST_SRC_NONE && src != HOST_SRC_ALIAS;
			if (!has_data)
				return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
						    "%s: input operand %u has no data (not an input, "
						    "constant or earlier result)",
						    graph_node_name(n, name, sizeof(name)), v);
		}
	}
	const struct graph_node *n = &g->nodes[c->members[c->n_members - 1]];
	for (uint32_t j = 0; j < n->n_outputs; j++) {
		uint32_t v = n->outputs[j];
		enum host_source src = v < g->n_values ? hv->src[v] : HOST_SRC_NONE;
		if (v >= g->n_values || g->values[v].producer != c->members[c->n_members - 1] ||
		    (src != HOST_SRC_OUTPUT && src != HOST_SRC_BUFFER && src != HOST_SRC_ALIAS))
			return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
					    "%s: output operand %u has no storage in the memory plan",
					    graph_node_name(n, name, sizeof(name)), v);
	}
	return WEBNN_STATUS_OK;
}

void host_values_bind_run(struct host_values *hv, struct backend_tensor *const *inputs,
			  struct backend_tensor *const *outputs)
{
	const struct graph_ir *g = hv->g;
	for (uint32_t v = 0; v < g->n_values; v++) {
		if (hv->src[v] == HOST_SRC_INPUT)
			hv->bufs[v] = inputs[g->values[v].input_index]->data;
		else if (hv->src[v] == HOST_SRC_OUTPUT)
			hv->bufs[v] = outputs[g->values[v].output_index]->data;
	}
	/* an alias may point at another (a view of an epilogue's own output): follow the chain */
	for (uint32_t v = 0; v < g->n_values; v++) {
		uint32_t r = v;
		for (uint32_t hops = 0; hv->src[r] == HOST_SRC_ALIAS && hops < g->n_values; hops++)
			r = hv->alias[r];
		if (r != v)
			hv->bufs[v] = hv->bufs[r];
	}
}

void host_values_copy_outputs(const struct host_values *hv,
			      struct backend_tensor *const *outputs)
{
	const struct graph_ir *g = hv->g;
	for (uint32_t i = 0; i < g->n_outputs; i++) {
		uint32_t v = g->outputs[i];
		if (hv->src[v] == HOST_SRC_CONSTANT || g->values[v].output_index != i)
			memcpy(outputs[i]->data, hv->bufs[v], outputs[i]->bytes);
	}
}
