/* The tests' and benches' ONNX model writer (tests/onnx_writer.h): an arena of protobuf-c messages, packed or streamed to a file. */
#include "tests/onnx_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test.h"

/* The IR version each ONNX release paired with its opset: {first opset, IR version}. */
static int64_t ir_for_opset(int64_t opset)
{
	static const int64_t first[][2] = { { 23, 11 }, { 21, 10 }, { 19, 9 }, { 15, 8 },
					    { 12, 7 },	{ 11, 6 },  { 10, 5 }, { 9, 4 } };
	for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++)
		if (opset >= first[i][0])
			return first[i][1];
	return 3;
}

/* size zeroed bytes, freed with the writer. */
static void *onnx_writer_alloc(struct onnx_writer *w, size_t size)
{
	if (w->n_mem == w->cap_mem) {
		size_t cap = w->cap_mem ? w->cap_mem * 2 : 64;
		void **mem = realloc(w->mem, cap * sizeof(*mem));
		ASSERT_MSG(mem, "onnx writer: out of memory");
		w->mem = mem;
		w->cap_mem = cap;
	}
	void *p = calloc(1, size ? size : 1);
	ASSERT_MSG(p, "onnx writer: out of memory for %zu bytes", size);
	return w->mem[w->n_mem++] = p;
}

static char *strdup_len(struct onnx_writer *w, const char *s, size_t len)
{
	char *c = onnx_writer_alloc(w, len + 1);
	memcpy(c, s, len);
	return c;
}

/* size bytes in the arena: a copy of src, zeros where src is NULL. */
static void *copy(struct onnx_writer *w, const void *src, size_t size)
{
	void *p = onnx_writer_alloc(w, size);
	if (src && size)
		memcpy(p, src, size);
	return p;
}

char *onnx_writer_strdup(struct onnx_writer *w, const char *s)
{
	return s ? strdup_len(w, s, strlen(s)) : NULL;
}

/* Room for one more element of a repeated field holding count: a new array, twice the size,
 * when count is 0 or reaches a power of two from 4 on, so the capacity need not be stored. */
static void *grow(struct onnx_writer *w, void *arr, size_t count, size_t elem)
{
	if (count && (count < 4 || (count & (count - 1))))
		return arr;
	void *a = onnx_writer_alloc(w, (count ? 2 * count : 4) * elem);
	if (count)
		memcpy(a, arr, count * elem);
	return a;
}

#define PUSH(w, arr, count, v)                                                                 \
	do {                                                                                   \
		(arr) = grow((w), (arr), (count), sizeof(*(arr)));                             \
		(arr)[(count)++] = (v);                                                        \
	} while (0)

void onnx_writer_init(struct onnx_writer *w, int64_t opset)
{
	memset(w, 0, sizeof(*w));
	onnx__model_proto__init(&w->model);
	w->model.has_ir_version = 1;
	w->model.ir_version = ir_for_opset(opset);
	Onnx__GraphProto *g = onnx_writer_alloc(w, sizeof(*g));
	onnx__graph_proto__init(g);
	g->name = onnx_writer_strdup(w, "g");
	w->model.graph = w->graph = g;
	onnx_writer_opset(w, "", opset);
}

void onnx_writer_free(struct onnx_writer *w)
{
	for (size_t i = 0; i < w->n_mem; i++)
		free(w->mem[i]);
	free(w->mem);
	memset(w, 0, sizeof(*w));
}

void onnx_writer_opset(struct onnx_writer *w, const char *domain, int64_t version)
{
	const char *d = domain ? domain : "";
	for (size_t i = 0; i < w->model.n_opset_import; i++) {
		Onnx__OperatorSetIdProto *o = w->model.opset_import[i];
		if (strcmp(o->domain ? o->domain : "", d) == 0) {
			o->has_version = 1;
			o->version = version;
			return;
		}
	}
	Onnx__OperatorSetIdProto *o = onnx_writer_alloc(w, sizeof(*o));
	onnx__operator_set_id_proto__init(o);
	o->domain = onnx_writer_strdup(w, d);
	o->has_version = 1;
	o->version = version;
	PUSH(w, w->model.opset_import, w->model.n_opset_import, o);
}

Onnx__GraphProto *onnx_writer_subgraph_begin(struct onnx_writer *w, const char *name)
{
	Onnx__GraphProto *g = onnx_writer_alloc(w, sizeof(*g));
	onnx__graph_proto__init(g);
	g->name = onnx_writer_strdup(w, name);
	onnx_writer_subgraph_enter(w, g);
	return g;
}

void onnx_writer_subgraph_enter(struct onnx_writer *w, Onnx__GraphProto *g)
{
	ASSERT_MSG(w->depth < ONNX_WRITER_MAX_DEPTH, "onnx writer: subgraphs nested over %d deep",
		   ONNX_WRITER_MAX_DEPTH);
	w->outer[w->depth++] = w->graph;
	w->graph = g;
}

Onnx__GraphProto *onnx_writer_subgraph_end(struct onnx_writer *w)
{
	ASSERT_MSG(w->depth > 0, "onnx writer: subgraph_end without a subgraph begun");
	Onnx__GraphProto *g = w->graph;
	w->graph = w->outer[--w->depth];
	return g;
}

static Onnx__ValueInfoProto *value(struct onnx_writer *w, const char *name, int type, int rank,
				   const int64_t *dims)
{
	ASSERT_MSG(rank <= 0 || dims, "onnx writer: value \"%s\" of rank %d without sizes", name,
		   rank);
	Onnx__ValueInfoProto *v = onnx_writer_alloc(w, sizeof(*v));
	Onnx__TypeProto *t = onnx_writer_alloc(w, sizeof(*t));
	Onnx__TypeProto__Tensor *tt = onnx_writer_alloc(w, sizeof(*tt));
	onnx__value_info_proto__init(v);
	onnx__type_proto__init(t);
	onnx__type_proto__tensor__init(tt);
	v->name = onnx_writer_strdup(w, name);
	v->type = t;
	t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	t->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = type;
	if (rank < 0)
		return v;
	Onnx__TensorShapeProto *s = onnx_writer_alloc(w, sizeof(*s));
	onnx__tensor_shape_proto__init(s);
	tt->shape = s;
	for (int i = 0; i < rank; i++) {
		Onnx__TensorShapeProto__Dimension *d = onnx_writer_alloc(w, sizeof(*d));
		onnx__tensor_shape_proto__dimension__init(d);
		d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		d->dim_value = dims[i];
		PUSH(w, s->dim, s->n_dim, d);
	}
	return v;
}

Onnx__ValueInfoProto *onnx_writer_input(struct onnx_writer *w, const char *name, int type,
					int rank, const int64_t *dims)
{
	Onnx__ValueInfoProto *v = value(w, name, type, rank, dims);
	PUSH(w, w->graph->input, w->graph->n_input, v);
	return v;
}

Onnx__ValueInfoProto *onnx_writer_output(struct onnx_writer *w, const char *name, int type,
					 int rank, const int64_t *dims)
{
	Onnx__ValueInfoProto *v = value(w, name, type, rank, dims);
	PUSH(w, w->graph->output, w->graph->n_output, v);
	return v;
}

void onnx_writer_dim_param(struct onnx_writer *w, Onnx__ValueInfoProto *v, int axis,
			   const char *param)
{
	Onnx__TensorShapeProto *s = v->type && v->type->tensor_type ? v->type->tensor_type->shape
								    : NULL;
	ASSERT_MSG(s && axis >= 0 && (size_t)axis < s->n_dim,
		   "onnx writer: value \"%s\" has no axis %d", v->name, axis);
	Onnx__TensorShapeProto__Dimension *d = s->dim[axis];
	d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
	d->dim_value = 0;
	d->dim_param = onnx_writer_strdup(w, param ? param : "");
}

void onnx_writer_dim_params(struct onnx_writer *w, Onnx__ValueInfoProto *v,
			    const char *const *names)
{
	Onnx__TensorShapeProto *s = v->type && v->type->tensor_type ? v->type->tensor_type->shape
								    : NULL;
	for (size_t i = 0; s && i < s->n_dim; i++)
		if (names[i])
			onnx_writer_dim_param(w, v, (int)i, names[i]);
}

/* Bytes that count elements of type take (int4 and uint4: two to a byte, rounded up). */
static size_t onnx_writer_type_bytes(int type, size_t count)
{
	switch (type) {
	case ONNX_UINT4:
	case ONNX_INT4:
		return (count + 1) / 2;
	case ONNX_UINT8:
	case ONNX_INT8:
	case ONNX_BOOL:
		return count;
	case ONNX_UINT16:
	case ONNX_INT16:
	case ONNX_FLOAT16:
	case ONNX_BFLOAT16:
		return count * 2;
	case ONNX_INT64:
	case ONNX_DOUBLE:
	case ONNX_UINT64:
		return count * 8;
	case ONNX_FLOAT:
	case ONNX_INT32:
	case ONNX_UINT32:
		return count * 4;
	}
	FAIL("onnx writer: no element size for type %d", type);
}

/* A tensor's name, type and shape; *count its element count. */
static Onnx__TensorProto *tensor_head(struct onnx_writer *w, const char *name, int type,
				      int rank, const int64_t *dims, size_t *count)
{
	ASSERT_MSG(rank >= 0 && (rank == 0 || dims),
		   "onnx writer: tensor \"%s\" of rank %d without sizes", name ? name : "", rank);
	Onnx__TensorProto *t = onnx_writer_alloc(w, sizeof(*t));
	onnx__tensor_proto__init(t);
	t->name = onnx_writer_strdup(w, name);
	t->has_data_type = 1;
	t->data_type = type;
	t->dims = onnx_writer_alloc(w, ((size_t)rank + 1) * sizeof(int64_t));
	t->n_dims = (size_t)rank;
	*count = 1;
	for (int i = 0; i < rank; i++) {
		t->dims[i] = dims[i];
		*count *= (size_t)dims[i];
	}
	return t;
}

Onnx__TensorProto *onnx_writer_tensor(struct onnx_writer *w, const char *name, int type,
				      int rank, const int64_t *dims, const void *data)
{
	size_t count;
	Onnx__TensorProto *t = tensor_head(w, name, type, rank, dims, &count);
	t->has_raw_data = 1;
	t->raw_data.len = onnx_writer_type_bytes(type, count);
	t->raw_data.data = copy(w, data, t->raw_data.len);
	return t;
}

Onnx__TensorProto *onnx_writer_initializer(struct onnx_writer *w, const char *name, int type,
					   int rank, const int64_t *dims, const void *data)
{
	Onnx__TensorProto *t = onnx_writer_tensor(w, name, type, rank, dims, data);
	PUSH(w, w->graph->initializer, w->graph->n_initializer, t);
	return t;
}

Onnx__TensorProto *onnx_writer_initializer_int32(struct onnx_writer *w, const char *name,
						 int type, int rank, const int64_t *dims,
						 const int32_t *values, size_t n)
{
	size_t count;
	Onnx__TensorProto *t = tensor_head(w, name, type, rank, dims, &count);
	t->int32_data = copy(w, values, n * sizeof(int32_t));
	t->n_int32_data = n;
	PUSH(w, w->graph->initializer, w->graph->n_initializer, t);
	return t;
}

Onnx__TensorProto *onnx_writer_initializer_external(struct onnx_writer *w, const char *name,
						    int type, int rank, const int64_t *dims,
						    const char *location)
{
	size_t count;
	Onnx__TensorProto *t = tensor_head(w, name, type, rank, dims, &count);
	onnx_writer_external_data(w, t, "location", location);
	PUSH(w, w->graph->initializer, w->graph->n_initializer, t);
	return t;
}

void onnx_writer_external_data(struct onnx_writer *w, Onnx__TensorProto *t, const char *key,
			       const char *value)
{
	Onnx__StringStringEntryProto *e = onnx_writer_alloc(w, sizeof(*e));
	onnx__string_string_entry_proto__init(e);
	e->key = onnx_writer_strdup(w, key);
	e->value = onnx_writer_strdup(w, value);
	t->has_data_location = 1;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	PUSH(w, t->external_data, t->n_external_data, e);
}

static void add_node(struct onnx_writer *w, Onnx__NodeProto *n, const char *name)
{
	n->name = name ? onnx_writer_strdup(w, name) : n->n_output ? n->output[0] : NULL;
	PUSH(w, w->graph->node, w->graph->n_node, n);
}

static Onnx__NodeProto *new_node(struct onnx_writer *w, const char *op_type, const char *domain)
{
	Onnx__NodeProto *n = onnx_writer_alloc(w, sizeof(*n));
	onnx__node_proto__init(n);
	n->op_type = onnx_writer_strdup(w, op_type);
	n->domain = onnx_writer_strdup(w, domain);
	return n;
}

/* Appends the comma-separated names of list to a node's inputs or outputs. */
static void add_names(struct onnx_writer *w, char ***arr, size_t *count, const char *list)
{
	if (!list || !*list)
		return;
	for (const char *p = list;;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		PUSH(w, *arr, *count, strdup_len(w, p, len));
		if (!e)
			break;
		p = e + 1;
	}
}

Onnx__NodeProto *onnx_writer_node(struct onnx_writer *w, const char *name, const char *op_type,
				  const char *domain, const char *inputs, const char *outputs)
{
	Onnx__NodeProto *n = new_node(w, op_type, domain);
	add_names(w, &n->input, &n->n_input, inputs);
	add_names(w, &n->output, &n->n_output, outputs);
	add_node(w, n, name);
	return n;
}

Onnx__NodeProto *onnx_writer_node_v(struct onnx_writer *w, const char *name,
				    const char *op_type, const char *domain, size_t n_in,
				    const char *const *inputs, size_t n_out,
				    const char *const *outputs)
{
	Onnx__NodeProto *n = new_node(w, op_type, domain);
	for (size_t i = 0; i < n_in; i++)
		PUSH(w, n->input, n->n_input, onnx_writer_strdup(w, inputs[i] ? inputs[i] : ""));
	for (size_t i = 0; i < n_out; i++) {
		const char *o = outputs[i] ? outputs[i] : "";
		PUSH(w, n->output, n->n_output, onnx_writer_strdup(w, o));
	}
	add_node(w, n, name);
	return n;
}

Onnx__NodeProto *onnx_writer_constant(struct onnx_writer *w, const char *output, int type,
				      int rank, const int64_t *dims, const void *data)
{
	Onnx__NodeProto *n = onnx_writer_node(w, NULL, "Constant", NULL, NULL, output);
	onnx_writer_attr_tensor(w, n, "value", onnx_writer_tensor(w, "", type, rank, dims, data));
	return n;
}

static Onnx__AttributeProto *attr(struct onnx_writer *w, Onnx__NodeProto *n, const char *name,
				  Onnx__AttributeProto__AttributeType type)
{
	Onnx__AttributeProto *a = onnx_writer_alloc(w, sizeof(*a));
	onnx__attribute_proto__init(a);
	a->name = onnx_writer_strdup(w, name);
	a->has_type = 1;
	a->type = type;
	PUSH(w, n->attribute, n->n_attribute, a);
	return a;
}

Onnx__AttributeProto *onnx_writer_attr_int(struct onnx_writer *w, Onnx__NodeProto *n,
					   const char *name, int64_t v)
{
	Onnx__AttributeProto *a = attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
	a->has_i = 1;
	a->i = v;
	return a;
}

Onnx__AttributeProto *onnx_writer_attr_ints(struct onnx_writer *w, Onnx__NodeProto *n,
					    const char *name, const int64_t *v, size_t count)
{
	Onnx__AttributeProto *a = attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
	a->ints = copy(w, v, count * sizeof(int64_t));
	a->n_ints = count;
	return a;
}

Onnx__AttributeProto *onnx_writer_attr_float(struct onnx_writer *w, Onnx__NodeProto *n,
					     const char *name, float v)
{
	Onnx__AttributeProto *a = attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
	a->has_f = 1;
	a->f = v;
	return a;
}

Onnx__AttributeProto *onnx_writer_attr_floats(struct onnx_writer *w, Onnx__NodeProto *n,
					      const char *name, const float *v, size_t count)
{
	Onnx__AttributeProto *a = attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
	a->floats = copy(w, v, count * sizeof(float));
	a->n_floats = count;
	return a;
}

Onnx__AttributeProto *onnx_writer_attr_string(struct onnx_writer *w, Onnx__NodeProto *n,
					      const char *name, const char *v)
{
	Onnx__AttributeProto *a = attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
	a->has_s = 1;
	a->s.len = strlen(v);
	a->s.data = (uint8_t *)strdup_len(w, v, a->s.len);
	return a;
}

Onnx__AttributeProto *onnx_writer_attr_tensor(struct onnx_writer *w, Onnx__NodeProto *n,
					      const char *name, Onnx__TensorProto *t)
{
	Onnx__AttributeProto *a = attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
	a->t = t;
	return a;
}

Onnx__AttributeProto *onnx_writer_attr_graph(struct onnx_writer *w, Onnx__NodeProto *n,
					     const char *name, Onnx__GraphProto *g)
{
	Onnx__AttributeProto *a = attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
	a->g = g;
	return a;
}

bool onnx_writer_serialise(const struct onnx_writer *w, uint8_t **buf, size_t *len)
{
	*len = onnx__model_proto__get_packed_size(&w->model);
	*buf = malloc(*len ? *len : 1);
	if (!*buf)
		return false;
	onnx__model_proto__pack(&w->model, *buf);
	return true;
}

/* protobuf-c's output sink, appending to a file: bytes fields reach it in one piece. */
struct file_sink {
	ProtobufCBuffer base;
	FILE *f;
	bool ok;
};

static void file_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct file_sink *s = (struct file_sink *)b;
	if (s->ok && len && fwrite(data, 1, len, s->f) != len)
		s->ok = false;
}

bool onnx_writer_save(const struct onnx_writer *w, const char *path)
{
	struct file_sink s = { { file_append }, fopen(path, "wb"), true };
	if (!s.f)
		return false;
	setvbuf(s.f, NULL, _IOFBF, 1 << 20);
	onnx__model_proto__pack_to_buffer(&w->model, &s.base);
	return fclose(s.f) == 0 && s.ok;
}
