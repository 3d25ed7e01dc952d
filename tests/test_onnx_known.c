/* ONNX importer on models built here: values known at load time, control flow (If, Loop) and the listing of every failing node. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx.pb-c.h"
#include "tests/clienttest.h"
#include "tests/test.h"
#include "webnn_import.h"

/* ---- a small ONNX writer: protobuf-c messages from an arena freed with the writer */

struct ow {
	void **mem;
	size_t n, cap;
};

static void *ow_alloc(struct ow *w, size_t size)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->mem = realloc(w->mem, w->cap * sizeof(*w->mem));
		ASSERT(w->mem);
	}
	void *p = calloc(1, size ? size : 1);
	ASSERT(p);
	return w->mem[w->n++] = p;
}

static void ow_free(struct ow *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->mem[i]);
	free(w->mem);
}

/* Appends p to a protobuf-c repeated field (arrays grown by copying into the arena). */
#define OW_PUSH(w, arr, count, p)                                                              \
	do {                                                                                   \
		void **a_ = ow_alloc((w), ((count) + 1) * sizeof(void *));                     \
		if (count)                                                                     \
			memcpy(a_, (arr), (count) * sizeof(void *));                           \
		a_[(count)++] = (p);                                                           \
		(arr) = (void *)a_;                                                            \
	} while (0)

static Onnx__GraphProto *ow_graph(struct ow *w, const char *name)
{
	Onnx__GraphProto *g = ow_alloc(w, sizeof(*g));
	onnx__graph_proto__init(g);
	g->name = (char *)name;
	return g;
}

/* A tensor value declaration: elem type (1 float, 7 int64, 9 bool), rank, sizes. */
static Onnx__ValueInfoProto *ow_value(struct ow *w, const char *name, int type, uint32_t rank,
				      const int64_t *dims)
{
	Onnx__ValueInfoProto *v = ow_alloc(w, sizeof(*v));
	Onnx__TypeProto *t = ow_alloc(w, sizeof(*t));
	Onnx__TypeProto__Tensor *tt = ow_alloc(w, sizeof(*tt));
	Onnx__TensorShapeProto *s = ow_alloc(w, sizeof(*s));
	onnx__value_info_proto__init(v);
	onnx__type_proto__init(t);
	onnx__type_proto__tensor__init(tt);
	onnx__tensor_shape_proto__init(s);
	v->name = (char *)name;
	v->type = t;
	t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	t->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = type;
	tt->shape = s;
	for (uint32_t i = 0; i < rank; i++) {
		Onnx__TensorShapeProto__Dimension *d = ow_alloc(w, sizeof(*d));
		onnx__tensor_shape_proto__dimension__init(d);
		d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		d->dim_value = dims[i];
		OW_PUSH(w, s->dim, s->n_dim, d);
	}
	return v;
}

static void ow_input(struct ow *w, Onnx__GraphProto *g, const char *name, int type, uint32_t rank,
		     const int64_t *dims)
{
	OW_PUSH(w, g->input, g->n_input, ow_value(w, name, type, rank, dims));
}

static void ow_output(struct ow *w, Onnx__GraphProto *g, const char *name, int type,
		      uint32_t rank, const int64_t *dims)
{
	OW_PUSH(w, g->output, g->n_output, ow_value(w, name, type, rank, dims));
}

/* A tensor with raw data (type 1 float: 4 bytes an element, 7 int64: 8, 9 bool: 1). */
static Onnx__TensorProto *ow_tensor(struct ow *w, const char *name, int type, uint32_t rank,
				    const int64_t *dims, const void *data)
{
	Onnx__TensorProto *t = ow_alloc(w, sizeof(*t));
	onnx__tensor_proto__init(t);
	t->name = (char *)name;
	t->has_data_type = 1;
	t->data_type = type;
	size_t count = 1;
	t->dims = ow_alloc(w, (rank + 1) * sizeof(int64_t));
	for (uint32_t i = 0; i < rank; i++) {
		t->dims[i] = dims[i];
		count *= (size_t)dims[i];
	}
	t->n_dims = rank;
	size_t es = type == 1 ? 4 : type == 7 ? 8 : 1;
	t->has_raw_data = 1;
	t->raw_data.len = count * es;
	t->raw_data.data = ow_alloc(w, count * es);
	memcpy(t->raw_data.data, data, count * es);
	return t;
}

static void ow_init(struct ow *w, Onnx__GraphProto *g, const char *name, int type, uint32_t rank,
		    const int64_t *dims, const void *data)
{
	OW_PUSH(w, g->initializer, g->n_initializer, ow_tensor(w, name, type, rank, dims, data));
}

/* A node; ins and outs are comma-separated names ("" between commas: an absent input). */
static Onnx__NodeProto *ow_node(struct ow *w, Onnx__GraphProto *g, const char *type,
				const char *ins, const char *outs)
{
	Onnx__NodeProto *n = ow_alloc(w, sizeof(*n));
	onnx__node_proto__init(n);
	n->op_type = (char *)type;
	const char *lists[2] = { ins, outs };
	for (int k = 0; k < 2; k++) {
		const char *p = lists[k];
		while (p && *p) {
			const char *c = strchr(p, ',');
			size_t len = c ? (size_t)(c - p) : strlen(p);
			char *s = ow_alloc(w, len + 1);
			memcpy(s, p, len);
			if (k == 0)
				OW_PUSH(w, n->input, n->n_input, s);
			else
				OW_PUSH(w, n->output, n->n_output, s);
			p = c ? c + 1 : NULL;
			if (p && !*p && k == 0)
				OW_PUSH(w, n->input, n->n_input, (char *)"");
		}
	}
	n->name = n->n_output ? n->output[0] : (char *)"";
	OW_PUSH(w, g->node, g->n_node, n);
	return n;
}

static Onnx__AttributeProto *ow_attr(struct ow *w, Onnx__NodeProto *n, const char *name,
				     Onnx__AttributeProto__AttributeType type)
{
	Onnx__AttributeProto *a = ow_alloc(w, sizeof(*a));
	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = 1;
	a->type = type;
	OW_PUSH(w, n->attribute, n->n_attribute, a);
	return a;
}

static void ow_attr_i(struct ow *w, Onnx__NodeProto *n, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
	a->has_i = 1;
	a->i = v;
}

static void ow_attr_ints(struct ow *w, Onnx__NodeProto *n, const char *name, const int64_t *v,
			 size_t count)
{
	Onnx__AttributeProto *a = ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
	a->ints = ow_alloc(w, count * sizeof(int64_t));
	memcpy(a->ints, v, count * sizeof(int64_t));
	a->n_ints = count;
}

static void ow_attr_g(struct ow *w, Onnx__NodeProto *n, const char *name, Onnx__GraphProto *g)
{
	Onnx__AttributeProto *a = ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
	a->g = g;
}

static void ow_attr_t(struct ow *w, Onnx__NodeProto *n, const char *name, Onnx__TensorProto *t)
{
	Onnx__AttributeProto *a = ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
	a->t = t;
}

/* A Constant node of an int64 list (rank 1; rank 0 when scalar). */
static void ow_const_i64(struct ow *w, Onnx__GraphProto *g, const char *out, const int64_t *v,
			 int64_t count, bool scalar)
{
	Onnx__NodeProto *n = ow_node(w, g, "Constant", NULL, out);
	ow_attr_t(w, n, "value", ow_tensor(w, "", 7, scalar ? 0 : 1, &count, v));
}

/* Loads graph g as a model of the given opset. */
static enum webnn_status ow_load(struct webnn_context *ctx, struct ow *w, Onnx__GraphProto *g,
				 int opset, const struct webnn_import_options *opts,
				 struct webnn_model **m, char *err, size_t len)
{
	Onnx__ModelProto model;
	Onnx__OperatorSetIdProto os, *osp = &os;
	onnx__model_proto__init(&model);
	onnx__operator_set_id_proto__init(&os);
	os.domain = (char *)"";
	os.has_version = 1;
	os.version = opset;
	model.has_ir_version = 1;
	model.ir_version = 8;
	model.n_opset_import = 1;
	model.opset_import = &osp;
	model.graph = g;
	size_t n = onnx__model_proto__get_packed_size(&model);
	uint8_t *buf = ow_alloc(w, n);
	onnx__model_proto__pack(&model, buf);
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	if (opts)
		o = *opts;
	o.format = WEBNN_MODEL_FORMAT_ONNX;
	return webnn_model_load_memory(ctx, buf, n, NULL, &o, m, err, len);
}

/* Runs a loaded model: inputs in the model's order, output 0 read into y (ny floats). */
static void run_model(struct webnn_context *ctx, struct webnn_model *m, const void *const *ins,
		      float *y, size_t ny)
{
	size_t n_in = webnn_model_input_count(m), n_out = webnn_model_output_count(m);
	struct webnn_named_tensor in[4], out[4];
	ASSERT(n_in <= 4 && n_out <= 4);
	for (size_t i = 0; i < n_in; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		webnn_model_input_desc(m, i, &td.desc);
		in[i].name = webnn_model_input_name(m, i);
		OK(ctx, webnn_context_create_tensor(ctx, &td, &in[i].tensor));
		OK(ctx, webnn_context_write_tensor(ctx, in[i].tensor, ins[i], ct_bytes(&td.desc)));
	}
	for (size_t i = 0; i < n_out; i++) {
		struct webnn_tensor_desc to = { .readable = true };
		webnn_model_output_desc(m, i, &to.desc);
		if (i == 0)
			ASSERT_EQ(ct_bytes(&to.desc), ny * sizeof(float));
		out[i].name = webnn_model_output_name(m, i);
		OK(ctx, webnn_context_create_tensor(ctx, &to, &out[i].tensor));
	}
	OK(ctx, webnn_context_dispatch(ctx, webnn_model_graph(m), in, n_in, out, n_out));
	OK(ctx, webnn_context_read_tensor(ctx, out[0].tensor, y, ny * sizeof(float)));
	for (size_t i = 0; i < n_in; i++)
		webnn_tensor_destroy(in[i].tensor);
	for (size_t i = 0; i < n_out; i++)
		webnn_tensor_destroy(out[i].tensor);
}

/* Runs a loaded model and reads every float output i into ys[i] (sized by the caller). */
static void run_all(struct webnn_context *ctx, struct webnn_model *m, const void *const *ins,
		    float *const *ys)
{
	size_t n_in = webnn_model_input_count(m), n_out = webnn_model_output_count(m);
	struct webnn_named_tensor in[4], out[4];
	ASSERT(n_in <= 4 && n_out <= 4);
	for (size_t i = 0; i < n_in; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		webnn_model_input_desc(m, i, &td.desc);
		in[i].name = webnn_model_input_name(m, i);
		OK(ctx, webnn_context_create_tensor(ctx, &td, &in[i].tensor));
		OK(ctx, webnn_context_write_tensor(ctx, in[i].tensor, ins[i], ct_bytes(&td.desc)));
	}
	size_t bytes[4];
	for (size_t i = 0; i < n_out; i++) {
		struct webnn_tensor_desc to = { .readable = true };
		webnn_model_output_desc(m, i, &to.desc);
		bytes[i] = ct_bytes(&to.desc);
		out[i].name = webnn_model_output_name(m, i);
		OK(ctx, webnn_context_create_tensor(ctx, &to, &out[i].tensor));
	}
	OK(ctx, webnn_context_dispatch(ctx, webnn_model_graph(m), in, n_in, out, n_out));
	for (size_t i = 0; i < n_out; i++)
		OK(ctx, webnn_context_read_tensor(ctx, out[i].tensor, ys[i], bytes[i]));
	for (size_t i = 0; i < n_in; i++)
		webnn_tensor_destroy(in[i].tensor);
	for (size_t i = 0; i < n_out; i++)
		webnn_tensor_destroy(out[i].tensor);
}

struct env {
	struct test_daemon d;
	struct webnn_context *ctx;
	struct ow w;
	char err[4096];
};

static void env_up(struct env *e, const char *client)
{
	memset(e, 0, sizeof(*e));
	ct_daemon_up(&e->d);
	e->ctx = ct_connect(&e->d, client);
}

static void env_down(struct env *e)
{
	ow_free(&e->w);
	webnn_context_destroy(e->ctx);
	test_daemon_stop(&e->d);
}

static struct webnn_model *load_ok(struct env *e, Onnx__GraphProto *g, int opset,
				   const struct webnn_import_options *o)
{
	struct webnn_model *m = NULL;
	enum webnn_status s = ow_load(e->ctx, &e->w, g, opset, o, &m, e->err, sizeof(e->err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "load -> %s: %s", webnn_status_name(s), e->err);
	return m;
}

static void load_fails(struct env *e, Onnx__GraphProto *g, int opset,
		       const struct webnn_import_options *o, enum webnn_status want,
		       const char *needle)
{
	struct webnn_model *m = NULL;
	enum webnn_status s = ow_load(e->ctx, &e->w, g, opset, o, &m, e->err, sizeof(e->err));
	ASSERT_MSG(s == want, "load -> %s (%s), expected %s", webnn_status_name(s), e->err,
		   webnn_status_name(want));
	ASSERT(m == NULL);
	ASSERT_CONTAINS(e->err, needle);
}

static const int64_t x4d[4] = { 1, 1, 2, 3 };

/* PyTorch's export of F.pad(x, (1, 2, 0, 1)) (opset 11+, _prepare_onnx_paddings): the pads
 * reach Pad through Size, Sub, ConstantOfShape, Concat, Reshape, a Slice with step -1 (flip),
 * Transpose, Reshape and Cast. */
TEST(onnx_known_pad_export)
{
	struct env e;
	env_up(&e, "onnx-known");
	struct ow *w = &e.w;
	Onnx__GraphProto *g = ow_graph(w, "pad");
	ow_input(w, g, "x", 1, 4, x4d);
	static const int64_t pad[4] = { 1, 2, 0, 1 }, zero1[1] = { 0 }, rank = 4, two = 2,
			     shape_m12[2] = { -1, 2 }, m1[1] = { -1 }, big_neg[1] = { INT64_MIN },
			     perm[2] = { 1, 0 };
	ow_const_i64(w, g, "pad", pad, 4, false);
	ow_const_i64(w, g, "zero1", zero1, 1, false);
	ow_node(w, g, "Size", "pad", "pad_len");
	ow_const_i64(w, g, "rank", &rank, 1, true);
	ow_const_i64(w, g, "two", &two, 1, true);
	ow_node(w, g, "Mul", "rank,two", "rank2");
	ow_node(w, g, "Sub", "rank2,pad_len", "extension");
	ow_node(w, g, "Unsqueeze", "extension,zero1", "ext_shape");
	Onnx__NodeProto *n = ow_node(w, g, "ConstantOfShape", "ext_shape", "zeros");
	ow_attr_t(w, n, "value", ow_tensor(w, "", 7, 1, (const int64_t[]){ 1 }, zero1));
	n = ow_node(w, g, "Cast", "pad", "pad64");
	ow_attr_i(w, n, "to", 7);
	n = ow_node(w, g, "Concat", "pad64,zeros", "paddings");
	ow_attr_i(w, n, "axis", 0);
	ow_const_i64(w, g, "shape_m12", shape_m12, 2, false);
	ow_node(w, g, "Reshape", "paddings,shape_m12", "pairs");
	ow_const_i64(w, g, "m1", m1, 1, false);
	ow_const_i64(w, g, "big_neg", big_neg, 1, false);
	ow_node(w, g, "Slice", "pairs,m1,big_neg,zero1,m1", "flipped");
	n = ow_node(w, g, "Transpose", "flipped", "cols");
	ow_attr_ints(w, n, "perm", perm, 2);
	ow_node(w, g, "Reshape", "cols,m1", "flat");
	n = ow_node(w, g, "Cast", "flat", "pads");
	ow_attr_i(w, n, "to", 7);
	static const float cv = 0.5f;
	ow_init(w, g, "cv", 1, 0, NULL, &cv);
	ow_node(w, g, "Pad", "x,pads,cv", "y");
	static const int64_t y4d[4] = { 1, 1, 3, 6 };
	ow_output(w, g, "y", 1, 4, y4d);
	struct webnn_model *m = load_ok(&e, g, 13, NULL);
	float x[6] = { 1, 2, 3, 4, 5, 6 }, y[18], want[18];
	/* last axis: 1 before, 2 after; the one before it: 0 before, 1 after */
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 6; c++)
			want[r * 6 + c] = r < 2 && c >= 1 && c < 4 ? x[r * 3 + c - 1] : cv;
	const void *ins[1] = { x };
	run_model(e.ctx, m, ins, y, 18);
	ct_assert_floats("F.pad export", y, want, 18, 0);
	webnn_model_destroy(m);
	env_down(&e);
}

/* Shape -> Gather -> Range -> Equal -> Not -> Where -> Cast -> Reshape -> Transpose -> Slice:
 * the end of a Slice of x computed from x's shape through operators of every kind. */
TEST(onnx_known_shape_chain)
{
	struct env e;
	env_up(&e, "onnx-known");
	struct ow *w = &e.w;
	Onnx__GraphProto *g = ow_graph(w, "chain");
	static const int64_t xd[3] = { 2, 3, 4 }, two = 2, zero = 0, one = 1, sh22[2] = { 2, 2 },
			     perm[2] = { 1, 0 }, m1[1] = { -1 }, s3[1] = { 3 }, s4[1] = { 4 },
			     ax[1] = { 2 }, z1[1] = { 0 };
	ow_input(w, g, "x", 1, 3, xd);
	ow_node(w, g, "Shape", "x", "shape");
	ow_const_i64(w, g, "two", &two, 1, true);
	ow_const_i64(w, g, "zero", &zero, 1, true);
	ow_const_i64(w, g, "one", &one, 1, true);
	ow_node(w, g, "Gather", "shape,two", "d2");           /* 4 */
	ow_node(w, g, "Range", "zero,d2,one", "r");           /* [0 1 2 3] */
	ow_node(w, g, "Equal", "r,two", "is2");               /* [F F T F] */
	ow_node(w, g, "Not", "is2", "not2");                  /* [T T F T] */
	ow_node(w, g, "Where", "not2,r,zero", "w");           /* [0 1 0 3] */
	Onnx__NodeProto *n = ow_node(w, g, "Cast", "w", "wf");
	ow_attr_i(w, n, "to", 1);
	n = ow_node(w, g, "Cast", "wf", "wi");
	ow_attr_i(w, n, "to", 7);
	ow_const_i64(w, g, "sh22", sh22, 2, false);
	ow_node(w, g, "Reshape", "wi,sh22", "w22");           /* [[0 1] [0 3]] */
	n = ow_node(w, g, "Transpose", "w22", "wt");          /* [[0 0] [1 3]] */
	ow_attr_ints(w, n, "perm", perm, 2);
	ow_const_i64(w, g, "m1", m1, 1, false);
	ow_node(w, g, "Reshape", "wt,m1", "flat");            /* [0 0 1 3] */
	ow_const_i64(w, g, "s3", s3, 1, false);
	ow_const_i64(w, g, "s4", s4, 1, false);
	ow_const_i64(w, g, "z1", z1, 1, false);
	ow_node(w, g, "Slice", "flat,s3,s4,z1", "end");       /* [3] */
	ow_const_i64(w, g, "ax", ax, 1, false);
	ow_node(w, g, "Slice", "x,z1,end,ax", "y");           /* x[:, :, 0:3] */
	static const int64_t yd[3] = { 2, 3, 3 };
	ow_output(w, g, "y", 1, 3, yd);
	struct webnn_model *m = load_ok(&e, g, 13, NULL);
	float x[24], y[18], want[18];
	for (int i = 0; i < 24; i++)
		x[i] = (float)i;
	for (int i = 0; i < 6; i++)
		for (int c = 0; c < 3; c++)
			want[i * 3 + c] = x[i * 4 + c];
	const void *ins[1] = { x };
	run_model(e.ctx, m, ins, y, 18);
	ct_assert_floats("x[:, :, 0:end]", y, want, 18, 0);
	webnn_model_destroy(m);
	env_down(&e);
}

static const int64_t d23[2] = { 2, 3 }, d32[2] = { 3, 2 };

/* then: y = x * 2; else: y = x reshaped to [3, 2] (another shape, and a TopK WebNN cannot
 * express: a branch never taken must not be built). */
static void if_branches(struct ow *w, Onnx__NodeProto *n)
{
	static const float twof = 2;
	static const int64_t sh32[2] = { 3, 2 };
	Onnx__GraphProto *t = ow_graph(w, "then"), *f = ow_graph(w, "else");
	ow_init(w, t, "twof", 1, 0, NULL, &twof);
	ow_node(w, t, "Mul", "x,twof", "ty");
	ow_output(w, t, "ty", 1, 2, d23);
	ow_init(w, f, "sh32", 7, 1, (const int64_t[]){ 2 }, sh32);
	ow_node(w, f, "Reshape", "x,sh32", "fy");
	ow_output(w, f, "fy", 1, 2, d32);
	ow_attr_g(w, n, "then_branch", t);
	ow_attr_g(w, n, "else_branch", f);
}

/* If with a condition known at load time from x's shape: only the branch taken is built. */
TEST(onnx_if_known_condition)
{
	struct env e;
	env_up(&e, "onnx-if");
	struct ow *w = &e.w;
	Onnx__GraphProto *g = ow_graph(w, "if");
	static const int64_t zero = 0, one = 1;
	ow_input(w, g, "x", 1, 2, d23);
	ow_node(w, g, "Shape", "x", "shape");
	ow_const_i64(w, g, "zero", &zero, 1, true);
	ow_const_i64(w, g, "one", &one, 1, true);
	ow_node(w, g, "Gather", "shape,zero", "rows");
	ow_node(w, g, "Greater", "rows,one", "cond");
	Onnx__NodeProto *n = ow_node(w, g, "If", "cond", "y");
	if_branches(w, n);
	/* the else branch also holds what WebNN cannot express */
	Onnx__GraphProto *f = n->attribute[1]->g;
	ow_node(w, f, "NonZero", "x", "nz");
	ow_output(w, g, "y", 1, 2, d23);
	struct webnn_model *m = load_ok(&e, g, 13, NULL);
	float x[6] = { 1, -2, 3, 4, 5, -6 }, y[6], want[6];
	for (int i = 0; i < 6; i++)
		want[i] = x[i] * 2;
	const void *ins[1] = { x };
	run_model(e.ctx, m, ins, y, 6);
	ct_assert_floats("If(known) then branch", y, want, 6, 0);
	webnn_model_destroy(m);
	env_down(&e);
}

/* If on an input the caller freezes (Silero VAD's sample rate sr): with sr bound the branch is
 * chosen at load time; unbound, the branches' shapes differ and the load says why. */
TEST(onnx_if_bound_input)
{
	struct env e;
	env_up(&e, "onnx-if");
	struct ow *w = &e.w;
	Onnx__GraphProto *g = ow_graph(w, "sr");
	static const int64_t rate = 16000;
	ow_input(w, g, "x", 1, 2, d23);
	ow_input(w, g, "sr", 7, 0, NULL);
	ow_init(w, g, "rate", 7, 0, NULL, &rate);
	ow_node(w, g, "Equal", "sr,rate", "is16k");
	Onnx__NodeProto *n = ow_node(w, g, "If", "is16k", "y");
	if_branches(w, n);
	ow_output(w, g, "y", 1, 2, d23);
	load_fails(&e, g, 13, NULL, WEBNN_STATUS_NOT_SUPPORTED,
		   "onnx: node \"y\" (If): cond is computed at run time and WebNN has no control "
		   "flow: both branches are computed and where picks, which needs the same types "
		   "and shapes (output 0 is float[2,3] in then_branch, float[3,2] in "
		   "else_branch)");
	int64_t sr = 16000;
	struct webnn_input_binding b = { "sr", { WEBNN_INT64, 0, { 0 } }, &sr, sizeof(sr) };
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	o.binds = &b;
	o.n_binds = 1;
	struct webnn_model *m = load_ok(&e, g, 13, &o);
	ASSERT_EQ(webnn_model_input_count(m), 1);
	ASSERT_STREQ(webnn_model_input_name(m, 0), "x");
	float x[6] = { 1, 2, 3, 4, 5, 6 }, y[6], want[6];
	for (int i = 0; i < 6; i++)
		want[i] = x[i] * 2;
	const void *ins[1] = { x };
	run_model(e.ctx, m, ins, y, 6);
	ct_assert_floats("If(sr = 16000)", y, want, 6, 0);
	webnn_model_destroy(m);
	sr = 8000; /* the else branch: x as [3, 2] */
	m = load_ok(&e, g, 13, &o);
	struct webnn_operand_desc d;
	webnn_model_output_desc(m, 0, &d);
	ASSERT_EQ(d.rank, 2);
	ASSERT_EQ(d.shape[0], 3);
	ASSERT_EQ(d.shape[1], 2);
	run_model(e.ctx, m, ins, y, 6);
	ct_assert_floats("If(sr = 8000)", y, x, 6, 0);
	webnn_model_destroy(m);
	env_down(&e);
}

/* If whose condition depends on the data: both branches and where. */
TEST(onnx_if_runtime_condition)
{
	struct env e;
	env_up(&e, "onnx-if");
	struct ow *w = &e.w;
	Onnx__GraphProto *g = ow_graph(w, "where");
	static const float zerof = 0, twof = 2;
	ow_input(w, g, "x", 1, 2, d23);
	ow_init(w, g, "zerof", 1, 0, NULL, &zerof);
	Onnx__NodeProto *n = ow_node(w, g, "ReduceSum", "x", "sum");
	ow_attr_i(w, n, "keepdims", 0);
	ow_node(w, g, "Greater", "sum,zerof", "positive");
	n = ow_node(w, g, "If", "positive", "y");
	Onnx__GraphProto *t = ow_graph(w, "then"), *f = ow_graph(w, "else");
	ow_init(w, t, "twof", 1, 0, NULL, &twof);
	ow_node(w, t, "Mul", "x,twof", "ty");
	ow_output(w, t, "ty", 1, 2, d23);
	ow_node(w, f, "Neg", "x", "fy");
	ow_output(w, f, "fy", 1, 2, d23);
	ow_attr_g(w, n, "then_branch", t);
	ow_attr_g(w, n, "else_branch", f);
	ow_output(w, g, "y", 1, 2, d23);
	struct webnn_model *m = load_ok(&e, g, 11, NULL);
	float pos[6] = { 1, -2, 3, 4, 5, -6 }, neg[6] = { -1, 2, -3, -4, -5, 6 }, y[6], want[6];
	const void *ins[1] = { pos };
	run_model(e.ctx, m, ins, y, 6);
	for (int i = 0; i < 6; i++)
		want[i] = pos[i] * 2;
	ct_assert_floats("If(sum > 0): then", y, want, 6, 0);
	ins[0] = neg;
	run_model(e.ctx, m, ins, y, 6);
	for (int i = 0; i < 6; i++)
		want[i] = -neg[i];
	ct_assert_floats("If(sum > 0): else", y, want, 6, 0);
	webnn_model_destroy(m);
	/* a branch that does not build for these inputs (ONNX would never run it) is an error that
	 * says to bind what the condition depends on */
	g = ow_graph(w, "where2");
	ow_input(w, g, "x", 1, 2, d23);
	ow_input(w, g, "flag", 9, 0, NULL);
	n = ow_node(w, g, "If", "flag", "y");
	t = ow_graph(w, "then2");
	f = ow_graph(w, "else2");
	ow_node(w, t, "Neg", "x", "ty");
	ow_output(w, t, "ty", 1, 2, d23);
	ow_node(w, f, "MatMul", "x,x", "fy"); /* [2, 3] x [2, 3] */
	ow_output(w, f, "fy", 1, 2, d23);
	ow_attr_g(w, n, "then_branch", t);
	ow_attr_g(w, n, "else_branch", f);
	ow_output(w, g, "y", 1, 2, d23);
	load_fails(&e, g, 13, NULL, WEBNN_STATUS_TYPE_ERROR,
		   "node \"y\" (If): cond is computed at run time, so both branches are built, and "
		   "else_branch does not build with these inputs; bind the inputs cond depends on "
		   "to keep one branch (webnn_import_options.binds, webnn-run --bind NAME=VALUE)");
	env_down(&e);
}

/* The body of both loops: acc = acc * 0.5 + x + iteration; cond = iteration + 1 < 3; the scan
 * output is acc. */
static Onnx__GraphProto *loop_body(struct ow *w)
{
	static const float half = 0.5f;
	static const int64_t one = 1, three = 3;
	Onnx__GraphProto *b = ow_graph(w, "body");
	ow_input(w, b, "it", 7, 0, NULL);
	ow_input(w, b, "cond_in", 9, 0, NULL);
	ow_input(w, b, "acc_in", 1, 2, d23);
	ow_init(w, b, "half", 1, 0, NULL, &half);
	ow_init(w, b, "one", 7, 0, NULL, &one);
	ow_init(w, b, "three", 7, 0, NULL, &three);
	ow_node(w, b, "Mul", "acc_in,half", "scaled");
	ow_node(w, b, "Add", "scaled,x", "plus_x");
	Onnx__NodeProto *n = ow_node(w, b, "Cast", "it", "itf");
	ow_attr_i(w, n, "to", 1);
	ow_node(w, b, "Add", "plus_x,itf", "acc_out");
	ow_node(w, b, "Add", "it,one", "next");
	ow_node(w, b, "Less", "next,three", "cond_out");
	ow_node(w, b, "Identity", "acc_out", "scan_out");
	ow_output(w, b, "cond_out", 9, 0, NULL);
	ow_output(w, b, "acc_out", 1, 2, d23);
	ow_output(w, b, "scan_out", 1, 2, d23);
	return b;
}

/* Loop unrolled: with a trip count M = 4 (the body's cond ignored: no cond input), and with
 * only a condition that turns false after 3 iterations. */
TEST(onnx_loop_unrolled)
{
	struct env e;
	env_up(&e, "onnx-loop");
	struct ow *w = &e.w;
	float x[6] = { 1, -2, 3, 4, 0.5f, -6 };
	for (int variant = 0; variant < 2; variant++) {
		Onnx__GraphProto *g = ow_graph(w, "loop");
		static const int64_t trip = 4;
		static const uint8_t yes = 1;
		static const float zero6[6] = { 0 };
		ow_input(w, g, "x", 1, 2, d23);
		ow_init(w, g, "trip", 7, 0, NULL, &trip);
		ow_init(w, g, "yes", 9, 0, NULL, &yes);
		ow_init(w, g, "acc0", 1, 2, d23, zero6);
		Onnx__NodeProto *n = ow_node(w, g, "Loop", variant ? ",yes,acc0" : "trip,,acc0",
					     "acc,scan");
		ow_attr_g(w, n, "body", loop_body(w));
		size_t iters = variant ? 3 : 4;
		static const int64_t d423[3] = { 4, 2, 3 }, d323[3] = { 3, 2, 3 };
		/* the scan output first: run_model reads output 0 */
		ow_output(w, g, "scan", 1, 3, variant ? d323 : d423);
		ow_output(w, g, "acc", 1, 2, d23);
		struct webnn_model *m = load_ok(&e, g, 13, NULL);
		float y[24], want[24], acc[6] = { 0 };
		for (size_t it = 0; it < iters; it++)
			for (int i = 0; i < 6; i++) {
				acc[i] = acc[i] * 0.5f + x[i] + (float)it;
				want[it * 6 + i] = acc[i];
			}
		const void *ins[1] = { x };
		run_model(e.ctx, m, ins, y, iters * 6);
		ct_assert_floats(variant ? "Loop(cond)" : "Loop(M = 4)", y, want, iters * 6, 1e-6f);
		webnn_model_destroy(m);
	}
	env_down(&e);
}

/* What cannot be expressed: every failing node is named, in one message, and nodes that only
 * consume a failed value add nothing. */
TEST(onnx_error_lists_every_node)
{
	struct env e;
	env_up(&e, "onnx-errors");
	struct ow *w = &e.w;
	Onnx__GraphProto *g = ow_graph(w, "errors");
	static const int64_t big = 5000;
	ow_input(w, g, "x", 1, 2, d23);
	ow_input(w, g, "m", 7, 0, NULL);
	ow_init(w, g, "big", 7, 0, NULL, &big);
	ow_node(w, g, "Unique", "x", "top");
	ow_node(w, g, "Relu", "top", "after_top"); /* consumes a failed value: no reason */
	ow_node(w, g, "NonZero", "x", "nz");
	Onnx__NodeProto *n = ow_node(w, g, "Loop", "m,,x", "l1");
	ow_attr_g(w, n, "body", loop_body(w));
	n = ow_node(w, g, "Loop", "big,,x", "l2");
	ow_attr_g(w, n, "body", loop_body(w));
	ow_node(w, g, "FooBar", "x", "foo");
	ow_output(w, g, "after_top", 1, 2, d23);
	load_fails(&e, g, 13, NULL, WEBNN_STATUS_NOT_SUPPORTED,
		   "onnx: 5 nodes cannot be loaded: node \"top\" (Unique): WebNN cannot express "
		   "Unique: its output shape depends on the input values; node \"nz\" (NonZero): WebNN cannot express "
		   "NonZero: its output shape depends on the input values; node \"l1\" (Loop): the "
		   "trip count M is computed at run time: WebNN has no loops, and a loop unrolls "
		   "only where its trip count is known when the model loads; node \"l2\" (Loop): M "
		   "is 5000: more iterations than the 1024 this importer unrolls; node \"foo\" "
		   "(FooBar): unknown operator \"FooBar\"");
	ASSERT(!strstr(e.err, "Relu"));
	env_down(&e);
}

/* An LSTM whose input another operation computes (Silero VAD: relu -> transpose -> LSTM): the
 * resolved recurrent operators read their input operand, not operand 0 (they did, which only
 * graphs whose first operand was the LSTM's input hid). */
TEST(onnx_lstm_computed_input)
{
	struct env e;
	env_up(&e, "onnx-lstm");
	struct ow *w = &e.w;
	enum { I = 8, H = 4 };
	static const int64_t xd[3] = { 1, 1, I }, wd[3] = { 1, 4 * H, I }, rd[3] = { 1, 4 * H, H },
			     bd[2] = { 1, 8 * H }, yd[4] = { 1, 1, 1, H };
	static float W[4 * H * I], R[4 * H * H], B[8 * H];
	for (int i = 0; i < 4 * H * I; i++)
		W[i] = 0.05f * (float)(i % 17) - 0.4f;
	for (int i = 0; i < 4 * H * H; i++)
		R[i] = 0.05f * (float)(i % 7);
	for (int i = 0; i < 8 * H; i++)
		B[i] = 0.01f * (float)(i % 11);
	Onnx__GraphProto *g = ow_graph(w, "lstm");
	ow_input(w, g, "x", 1, 3, xd);
	ow_init(w, g, "W", 1, 3, wd, W);
	ow_init(w, g, "R", 1, 3, rd, R);
	ow_init(w, g, "B", 1, 2, bd, B);
	ow_node(w, g, "Neg", "x", "nx");
	Onnx__NodeProto *n = ow_node(w, g, "LSTM", "nx,W,R,B", "y");
	ow_attr_i(w, n, "hidden_size", H);
	ow_output(w, g, "y", 1, 4, yd);
	struct webnn_model *m = load_ok(&e, g, 14, NULL);
	float x[I], y[H], want[H];
	for (int i = 0; i < I; i++)
		x[i] = sinf((float)i + 0.5f);
	const void *ins[1] = { x };
	run_model(e.ctx, m, ins, y, H);
	/* one step from zero states: h = o * tanh(i * g), gates in ONNX's i, o, f, c order */
	for (int j = 0; j < H; j++) {
		double gate[4];
		for (int k = 0; k < 4; k++) {
			int r = k * H + j;
			gate[k] = B[r] + B[4 * H + r];
			for (int c = 0; c < I; c++)
				gate[k] += W[r * I + c] * -x[c];
		}
		double i = 1 / (1 + exp(-gate[0])), o = 1 / (1 + exp(-gate[1])), c = tanh(gate[3]);
		want[j] = (float)(o * tanh(i * c));
	}
	ct_assert_floats("LSTM(-x)", y, want, H, 1e-5f);
	webnn_model_destroy(m);
	env_down(&e);
}

/* Scan over axis 1 of x backwards (scan_input_directions), a running sum as the state, its
 * values stacked along axis 1 forwards and along axis 0 backwards (scan_output_axes and
 * scan_output_directions). */
TEST(onnx_scan_unrolled)
{
	struct env e;
	env_up(&e, "onnx-scan");
	struct ow *w = &e.w;
	static const int64_t d2[1] = { 2 }, one[1] = { 1 }, axes1[1] = { 1 },
			     oax[2] = { 1, 0 }, odir[2] = { 0, 1 }, d32b[2] = { 3, 2 };
	static const float z2[2] = { 0, 0 };
	float x[6] = { 1, 2, 3, 10, 20, 30 };
	/* x an input (slices and concat in the graph), then an initializer (all on the host) */
	for (int known = 0; known < 2; known++) {
		Onnx__GraphProto *b = ow_graph(w, "body");
		ow_input(w, b, "sum_in", 1, 1, d2);
		ow_input(w, b, "col", 1, 1, d2);
		ow_node(w, b, "Add", "sum_in,col", "sum_out");
		ow_node(w, b, "Identity", "sum_out", "s1");
		ow_node(w, b, "Identity", "sum_out", "s2");
		ow_output(w, b, "sum_out", 1, 1, d2);
		ow_output(w, b, "s1", 1, 1, d2);
		ow_output(w, b, "s2", 1, 1, d2);
		Onnx__GraphProto *g = ow_graph(w, "scan");
		if (known)
			ow_init(w, g, "x", 1, 2, d23, x);
		else
			ow_input(w, g, "x", 1, 2, d23);
		ow_init(w, g, "s0", 1, 1, d2, z2);
		Onnx__NodeProto *n = ow_node(w, g, "Scan", "s0,x", "total,fwd,bwd");
		ow_attr_g(w, n, "body", b);
		ow_attr_i(w, n, "num_scan_inputs", 1);
		ow_attr_ints(w, n, "scan_input_axes", axes1, 1);
		ow_attr_ints(w, n, "scan_input_directions", one, 1);
		ow_attr_ints(w, n, "scan_output_axes", oax, 2);
		ow_attr_ints(w, n, "scan_output_directions", odir, 2);
		ow_output(w, g, "total", 1, 1, d2);
		ow_output(w, g, "fwd", 1, 2, d23);
		ow_output(w, g, "bwd", 1, 2, d32b);
		struct webnn_model *m = load_ok(&e, g, 11, NULL);
		float total[2], fwd[6], bwd[6];
		float want_total[2], want_fwd[6], want_bwd[6], s[2] = { 0, 0 };
		for (int t = 0; t < 3; t++)
			for (int r = 0; r < 2; r++) {
				s[r] += x[r * 3 + 2 - t]; /* columns last to first */
				want_fwd[r * 3 + t] = s[r];
				want_bwd[(2 - t) * 2 + r] = s[r];
				want_total[r] = s[r];
			}
		const void *ins[1] = { x };
		float *ys[3] = { total, fwd, bwd };
		run_all(e.ctx, m, ins, ys);
		ct_assert_floats("Scan state", total, want_total, 2, 0);
		ct_assert_floats("Scan output, axis 1", fwd, want_fwd, 6, 0);
		ct_assert_floats("Scan output, axis 0 reversed", bwd, want_bwd, 6, 0);
		webnn_model_destroy(m);
	}
	env_down(&e);
}

/* The reasons of control flow that cannot be unrolled or merged, listed together. */
TEST(onnx_error_control_flow)
{
	struct env e;
	env_up(&e, "onnx-errors");
	struct ow *w = &e.w;
	Onnx__GraphProto *g = ow_graph(w, "cf");
	static const uint8_t yes = 1;
	static const int64_t two[1] = { 2 };
	static const uint8_t yes2[2] = { 1, 1 };
	ow_input(w, g, "x", 1, 2, d23);
	ow_input(w, g, "flag", 9, 0, NULL);
	ow_init(w, g, "yes", 9, 0, NULL, &yes);
	ow_init(w, g, "yes2", 9, 1, two, yes2);
	/* If without else_branch */
	Onnx__NodeProto *n = ow_node(w, g, "If", "yes", "i1");
	Onnx__GraphProto *t = ow_graph(w, "then");
	ow_node(w, t, "Identity", "x", "t1");
	ow_output(w, t, "t1", 1, 2, d23);
	ow_attr_g(w, n, "then_branch", t);
	/* If on two elements */
	n = ow_node(w, g, "If", "yes2", "i2");
	ow_attr_g(w, n, "then_branch", t);
	ow_attr_g(w, n, "else_branch", t);
	/* Loop with neither M nor cond */
	n = ow_node(w, g, "Loop", ",,x", "l1");
	ow_attr_g(w, n, "body", loop_body(w));
	/* Loop on a condition computed at run time */
	n = ow_node(w, g, "Loop", ",flag,x", "l2");
	ow_attr_g(w, n, "body", loop_body(w));
	ow_output(w, g, "i1", 1, 2, d23);
	load_fails(&e, g, 13, NULL, WEBNN_STATUS_TYPE_ERROR,
		   "onnx: 4 nodes cannot be loaded: node \"i1\" (If): the graph attribute "
		   "else_branch is missing; node \"i2\" (If): cond has 2 elements (one expected); "
		   "node \"l1\" (Loop): neither M nor cond is given (a loop that never ends); node "
		   "\"l2\" (Loop): cond is computed at run time: WebNN has no loops, and a loop "
		   "unrolls only where its trip count is known when the model loads");
	env_down(&e);
}
