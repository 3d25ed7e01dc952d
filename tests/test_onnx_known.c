/* ONNX importer on models built here: values known at load time, control flow (If, Loop) and the listing of every failing node. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/clienttest.h"
#include "tests/onnx_writer.h"
#include "tests/test.h"
#include "webnn_import.h"

/* A Constant node of an int64 list (rank 1; rank 0 when scalar). */
static void const_i64(struct onnx_writer *w, const char *out, const int64_t *v, int64_t count,
		      bool scalar)
{
	onnx_writer_constant(w, out, ONNX_INT64, scalar ? 0 : 1, &count, v);
}

/* Loads the writer's model. */
static enum webnn_status load_model(struct webnn_context *ctx, const struct onnx_writer *w,
				    const struct webnn_import_options *opts,
				    struct webnn_model **m, char *err, size_t len)
{
	uint8_t *buf;
	size_t n;
	ASSERT(onnx_writer_serialise(w, &buf, &n));
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	if (opts)
		o = *opts;
	o.format = WEBNN_MODEL_FORMAT_ONNX;
	enum webnn_status s = webnn_model_load_memory(ctx, buf, n, NULL, &o, m, err, len);
	free(buf);
	return s;
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
	struct onnx_writer w;
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
	onnx_writer_free(&e->w);
	webnn_context_destroy(e->ctx);
	test_daemon_stop(&e->d);
}

/* Starts a model of graph `name` at opset `opset` (IR version 8) in e's writer. */
static struct onnx_writer *model_begin(struct env *e, const char *name, int opset)
{
	struct onnx_writer *w = &e->w;
	onnx_writer_free(w);
	onnx_writer_init(w, opset);
	w->model.ir_version = 8;
	w->graph->name = onnx_writer_strdup(w, name);
	return w;
}

static struct webnn_model *load_ok(struct env *e, const struct webnn_import_options *o)
{
	struct webnn_model *m = NULL;
	enum webnn_status s = load_model(e->ctx, &e->w, o, &m, e->err, sizeof(e->err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "load -> %s: %s", webnn_status_name(s), e->err);
	return m;
}

static void load_fails(struct env *e, const struct webnn_import_options *o,
		       enum webnn_status want, const char *needle)
{
	struct webnn_model *m = NULL;
	enum webnn_status s = load_model(e->ctx, &e->w, o, &m, e->err, sizeof(e->err));
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
	struct onnx_writer *w = model_begin(&e, "pad", 13);
	onnx_writer_input(w, "x", ONNX_FLOAT, 4, x4d);
	static const int64_t pad[4] = { 1, 2, 0, 1 }, zero1[1] = { 0 }, rank = 4, two = 2,
			     shape_m12[2] = { -1, 2 }, m1[1] = { -1 }, big_neg[1] = { INT64_MIN },
			     perm[2] = { 1, 0 };
	const_i64(w, "pad", pad, 4, false);
	const_i64(w, "zero1", zero1, 1, false);
	onnx_writer_node(w, NULL, "Size", NULL, "pad", "pad_len");
	const_i64(w, "rank", &rank, 1, true);
	const_i64(w, "two", &two, 1, true);
	onnx_writer_node(w, NULL, "Mul", NULL, "rank,two", "rank2");
	onnx_writer_node(w, NULL, "Sub", NULL, "rank2,pad_len", "extension");
	onnx_writer_node(w, NULL, "Unsqueeze", NULL, "extension,zero1", "ext_shape");
	Onnx__NodeProto *n = onnx_writer_node(w, NULL, "ConstantOfShape", NULL, "ext_shape",
					      "zeros");
	onnx_writer_attr_tensor(w, n, "value", onnx_writer_tensor(w, "", ONNX_INT64, 1,
								  (const int64_t[]){ 1 }, zero1));
	n = onnx_writer_node(w, NULL, "Cast", NULL, "pad", "pad64");
	onnx_writer_attr_int(w, n, "to", 7);
	n = onnx_writer_node(w, NULL, "Concat", NULL, "pad64,zeros", "paddings");
	onnx_writer_attr_int(w, n, "axis", 0);
	const_i64(w, "shape_m12", shape_m12, 2, false);
	onnx_writer_node(w, NULL, "Reshape", NULL, "paddings,shape_m12", "pairs");
	const_i64(w, "m1", m1, 1, false);
	const_i64(w, "big_neg", big_neg, 1, false);
	onnx_writer_node(w, NULL, "Slice", NULL, "pairs,m1,big_neg,zero1,m1", "flipped");
	n = onnx_writer_node(w, NULL, "Transpose", NULL, "flipped", "cols");
	onnx_writer_attr_ints(w, n, "perm", perm, 2);
	onnx_writer_node(w, NULL, "Reshape", NULL, "cols,m1", "flat");
	n = onnx_writer_node(w, NULL, "Cast", NULL, "flat", "pads");
	onnx_writer_attr_int(w, n, "to", 7);
	static const float cv = 0.5f;
	onnx_writer_initializer(w, "cv", ONNX_FLOAT, 0, NULL, &cv);
	onnx_writer_node(w, NULL, "Pad", NULL, "x,pads,cv", "y");
	static const int64_t y4d[4] = { 1, 1, 3, 6 };
	onnx_writer_output(w, "y", ONNX_FLOAT, 4, y4d);
	struct webnn_model *m = load_ok(&e, NULL);
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
	struct onnx_writer *w = model_begin(&e, "chain", 13);
	static const int64_t xd[3] = { 2, 3, 4 }, two = 2, zero = 0, one = 1, sh22[2] = { 2, 2 },
			     perm[2] = { 1, 0 }, m1[1] = { -1 }, s3[1] = { 3 }, s4[1] = { 4 },
			     ax[1] = { 2 }, z1[1] = { 0 };
	onnx_writer_input(w, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_node(w, NULL, "Shape", NULL, "x", "shape");
	const_i64(w, "two", &two, 1, true);
	const_i64(w, "zero", &zero, 1, true);
	const_i64(w, "one", &one, 1, true);
	onnx_writer_node(w, NULL, "Gather", NULL, "shape,two", "d2");           /* 4 */
	onnx_writer_node(w, NULL, "Range", NULL, "zero,d2,one", "r");           /* [0 1 2 3] */
	onnx_writer_node(w, NULL, "Equal", NULL, "r,two", "is2");               /* [F F T F] */
	onnx_writer_node(w, NULL, "Not", NULL, "is2", "not2");                  /* [T T F T] */
	onnx_writer_node(w, NULL, "Where", NULL, "not2,r,zero", "w");           /* [0 1 0 3] */
	Onnx__NodeProto *n = onnx_writer_node(w, NULL, "Cast", NULL, "w", "wf");
	onnx_writer_attr_int(w, n, "to", 1);
	n = onnx_writer_node(w, NULL, "Cast", NULL, "wf", "wi");
	onnx_writer_attr_int(w, n, "to", 7);
	const_i64(w, "sh22", sh22, 2, false);
	onnx_writer_node(w, NULL, "Reshape", NULL, "wi,sh22", "w22");           /* [[0 1] [0 3]] */
	n = onnx_writer_node(w, NULL, "Transpose", NULL, "w22", "wt");          /* [[0 0] [1 3]] */
	onnx_writer_attr_ints(w, n, "perm", perm, 2);
	const_i64(w, "m1", m1, 1, false);
	onnx_writer_node(w, NULL, "Reshape", NULL, "wt,m1", "flat");            /* [0 0 1 3] */
	const_i64(w, "s3", s3, 1, false);
	const_i64(w, "s4", s4, 1, false);
	const_i64(w, "z1", z1, 1, false);
	onnx_writer_node(w, NULL, "Slice", NULL, "flat,s3,s4,z1", "end");       /* [3] */
	const_i64(w, "ax", ax, 1, false);
	onnx_writer_node(w, NULL, "Slice", NULL, "x,z1,end,ax", "y");           /* x[:, :, 0:3] */
	static const int64_t yd[3] = { 2, 3, 3 };
	onnx_writer_output(w, "y", ONNX_FLOAT, 3, yd);
	struct webnn_model *m = load_ok(&e, NULL);
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
static void if_branches(struct onnx_writer *w, Onnx__NodeProto *n)
{
	static const float twof = 2;
	static const int64_t sh32[2] = { 3, 2 };
	onnx_writer_subgraph_begin(w, "then");
	onnx_writer_initializer(w, "twof", ONNX_FLOAT, 0, NULL, &twof);
	onnx_writer_node(w, NULL, "Mul", NULL, "x,twof", "ty");
	onnx_writer_output(w, "ty", ONNX_FLOAT, 2, d23);
	onnx_writer_attr_graph(w, n, "then_branch", onnx_writer_subgraph_end(w));
	onnx_writer_subgraph_begin(w, "else");
	onnx_writer_initializer(w, "sh32", ONNX_INT64, 1, (const int64_t[]){ 2 }, sh32);
	onnx_writer_node(w, NULL, "Reshape", NULL, "x,sh32", "fy");
	onnx_writer_output(w, "fy", ONNX_FLOAT, 2, d32);
	onnx_writer_attr_graph(w, n, "else_branch", onnx_writer_subgraph_end(w));
}

/* If with a condition known at load time from x's shape: only the branch taken is built. */
TEST(onnx_if_known_condition)
{
	struct env e;
	env_up(&e, "onnx-if");
	struct onnx_writer *w = model_begin(&e, "if", 13);
	static const int64_t zero = 0, one = 1;
	onnx_writer_input(w, "x", ONNX_FLOAT, 2, d23);
	onnx_writer_node(w, NULL, "Shape", NULL, "x", "shape");
	const_i64(w, "zero", &zero, 1, true);
	const_i64(w, "one", &one, 1, true);
	onnx_writer_node(w, NULL, "Gather", NULL, "shape,zero", "rows");
	onnx_writer_node(w, NULL, "Greater", NULL, "rows,one", "cond");
	Onnx__NodeProto *n = onnx_writer_node(w, NULL, "If", NULL, "cond", "y");
	if_branches(w, n);
	/* the else branch also holds what WebNN cannot express */
	onnx_writer_subgraph_enter(w, n->attribute[1]->g);
	onnx_writer_node(w, NULL, "NonZero", NULL, "x", "nz");
	onnx_writer_subgraph_end(w);
	onnx_writer_output(w, "y", ONNX_FLOAT, 2, d23);
	struct webnn_model *m = load_ok(&e, NULL);
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
	struct onnx_writer *w = model_begin(&e, "sr", 13);
	static const int64_t rate = 16000;
	onnx_writer_input(w, "x", ONNX_FLOAT, 2, d23);
	onnx_writer_input(w, "sr", ONNX_INT64, 0, NULL);
	onnx_writer_initializer(w, "rate", ONNX_INT64, 0, NULL, &rate);
	onnx_writer_node(w, NULL, "Equal", NULL, "sr,rate", "is16k");
	Onnx__NodeProto *n = onnx_writer_node(w, NULL, "If", NULL, "is16k", "y");
	if_branches(w, n);
	onnx_writer_output(w, "y", ONNX_FLOAT, 2, d23);
	load_fails(&e, NULL, WEBNN_STATUS_NOT_SUPPORTED,
		   "onnx: node \"y\" (If): cond is computed at run time and WebNN has no control "
		   "flow: both branches are computed and where picks, which needs the same types "
		   "and shapes (output 0 is float[2,3] in then_branch, float[3,2] in "
		   "else_branch)");
	int64_t sr = 16000;
	struct webnn_input_binding b = { "sr", { WEBNN_INT64, 0, { 0 } }, &sr, sizeof(sr) };
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	o.binds = &b;
	o.n_binds = 1;
	struct webnn_model *m = load_ok(&e, &o);
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
	m = load_ok(&e, &o);
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
	struct onnx_writer *w = model_begin(&e, "where", 11);
	static const float zerof = 0, twof = 2;
	onnx_writer_input(w, "x", ONNX_FLOAT, 2, d23);
	onnx_writer_initializer(w, "zerof", ONNX_FLOAT, 0, NULL, &zerof);
	Onnx__NodeProto *n = onnx_writer_node(w, NULL, "ReduceSum", NULL, "x", "sum");
	onnx_writer_attr_int(w, n, "keepdims", 0);
	onnx_writer_node(w, NULL, "Greater", NULL, "sum,zerof", "positive");
	n = onnx_writer_node(w, NULL, "If", NULL, "positive", "y");
	onnx_writer_subgraph_begin(w, "then");
	onnx_writer_initializer(w, "twof", ONNX_FLOAT, 0, NULL, &twof);
	onnx_writer_node(w, NULL, "Mul", NULL, "x,twof", "ty");
	onnx_writer_output(w, "ty", ONNX_FLOAT, 2, d23);
	onnx_writer_attr_graph(w, n, "then_branch", onnx_writer_subgraph_end(w));
	onnx_writer_subgraph_begin(w, "else");
	onnx_writer_node(w, NULL, "Neg", NULL, "x", "fy");
	onnx_writer_output(w, "fy", ONNX_FLOAT, 2, d23);
	onnx_writer_attr_graph(w, n, "else_branch", onnx_writer_subgraph_end(w));
	onnx_writer_output(w, "y", ONNX_FLOAT, 2, d23);
	struct webnn_model *m = load_ok(&e, NULL);
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
	model_begin(&e, "where2", 13);
	onnx_writer_input(w, "x", ONNX_FLOAT, 2, d23);
	onnx_writer_input(w, "flag", ONNX_BOOL, 0, NULL);
	n = onnx_writer_node(w, NULL, "If", NULL, "flag", "y");
	onnx_writer_subgraph_begin(w, "then2");
	onnx_writer_node(w, NULL, "Neg", NULL, "x", "ty");
	onnx_writer_output(w, "ty", ONNX_FLOAT, 2, d23);
	onnx_writer_attr_graph(w, n, "then_branch", onnx_writer_subgraph_end(w));
	onnx_writer_subgraph_begin(w, "else2");
	onnx_writer_node(w, NULL, "MatMul", NULL, "x,x", "fy"); /* [2, 3] x [2, 3] */
	onnx_writer_output(w, "fy", ONNX_FLOAT, 2, d23);
	onnx_writer_attr_graph(w, n, "else_branch", onnx_writer_subgraph_end(w));
	onnx_writer_output(w, "y", ONNX_FLOAT, 2, d23);
	load_fails(&e, NULL, WEBNN_STATUS_TYPE_ERROR,
		   "node \"y\" (If): cond is computed at run time, so both branches are built, and "
		   "else_branch does not build with these inputs; bind the inputs cond depends on "
		   "to keep one branch (webnn_import_options.binds, webnn-run --bind NAME=VALUE)");
	env_down(&e);
}

/* The body of both loops: acc = acc * 0.5 + x + iteration; cond = iteration + 1 < 3; the scan
 * output is acc. */
static Onnx__GraphProto *loop_body(struct onnx_writer *w)
{
	static const float half = 0.5f;
	static const int64_t one = 1, three = 3;
	onnx_writer_subgraph_begin(w, "body");
	onnx_writer_input(w, "it", ONNX_INT64, 0, NULL);
	onnx_writer_input(w, "cond_in", ONNX_BOOL, 0, NULL);
	onnx_writer_input(w, "acc_in", ONNX_FLOAT, 2, d23);
	onnx_writer_initializer(w, "half", ONNX_FLOAT, 0, NULL, &half);
	onnx_writer_initializer(w, "one", ONNX_INT64, 0, NULL, &one);
	onnx_writer_initializer(w, "three", ONNX_INT64, 0, NULL, &three);
	onnx_writer_node(w, NULL, "Mul", NULL, "acc_in,half", "scaled");
	onnx_writer_node(w, NULL, "Add", NULL, "scaled,x", "plus_x");
	Onnx__NodeProto *n = onnx_writer_node(w, NULL, "Cast", NULL, "it", "itf");
	onnx_writer_attr_int(w, n, "to", 1);
	onnx_writer_node(w, NULL, "Add", NULL, "plus_x,itf", "acc_out");
	onnx_writer_node(w, NULL, "Add", NULL, "it,one", "next");
	onnx_writer_node(w, NULL, "Less", NULL, "next,three", "cond_out");
	onnx_writer_node(w, NULL, "Identity", NULL, "acc_out", "scan_out");
	onnx_writer_output(w, "cond_out", ONNX_BOOL, 0, NULL);
	onnx_writer_output(w, "acc_out", ONNX_FLOAT, 2, d23);
	onnx_writer_output(w, "scan_out", ONNX_FLOAT, 2, d23);
	return onnx_writer_subgraph_end(w);
}

/* Loop unrolled: with a trip count M = 4 (the body's cond ignored: no cond input), and with
 * only a condition that turns false after 3 iterations. */
TEST(onnx_loop_unrolled)
{
	struct env e;
	env_up(&e, "onnx-loop");
	float x[6] = { 1, -2, 3, 4, 0.5f, -6 };
	for (int variant = 0; variant < 2; variant++) {
		struct onnx_writer *w = model_begin(&e, "loop", 13);
		static const int64_t trip = 4;
		static const uint8_t yes = 1;
		static const float zero6[6] = { 0 };
		onnx_writer_input(w, "x", ONNX_FLOAT, 2, d23);
		onnx_writer_initializer(w, "trip", ONNX_INT64, 0, NULL, &trip);
		onnx_writer_initializer(w, "yes", ONNX_BOOL, 0, NULL, &yes);
		onnx_writer_initializer(w, "acc0", ONNX_FLOAT, 2, d23, zero6);
		Onnx__NodeProto *n = onnx_writer_node(w, NULL, "Loop", NULL,
						      variant ? ",yes,acc0" : "trip,,acc0",
						      "acc,scan");
		onnx_writer_attr_graph(w, n, "body", loop_body(w));
		size_t iters = variant ? 3 : 4;
		static const int64_t d423[3] = { 4, 2, 3 }, d323[3] = { 3, 2, 3 };
		/* the scan output first: run_model reads output 0 */
		onnx_writer_output(w, "scan", ONNX_FLOAT, 3, variant ? d323 : d423);
		onnx_writer_output(w, "acc", ONNX_FLOAT, 2, d23);
		struct webnn_model *m = load_ok(&e, NULL);
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
	struct onnx_writer *w = model_begin(&e, "errors", 13);
	static const int64_t big = 5000;
	onnx_writer_input(w, "x", ONNX_FLOAT, 2, d23);
	onnx_writer_input(w, "m", ONNX_INT64, 0, NULL);
	onnx_writer_initializer(w, "big", ONNX_INT64, 0, NULL, &big);
	onnx_writer_node(w, NULL, "Unique", NULL, "x", "top");
	/* consumes a failed value: no reason */
	onnx_writer_node(w, NULL, "Relu", NULL, "top", "after_top");
	onnx_writer_node(w, NULL, "NonZero", NULL, "x", "nz");
	Onnx__NodeProto *n = onnx_writer_node(w, NULL, "Loop", NULL, "m,,x", "l1");
	onnx_writer_attr_graph(w, n, "body", loop_body(w));
	n = onnx_writer_node(w, NULL, "Loop", NULL, "big,,x", "l2");
	onnx_writer_attr_graph(w, n, "body", loop_body(w));
	onnx_writer_node(w, NULL, "FooBar", NULL, "x", "foo");
	onnx_writer_output(w, "after_top", ONNX_FLOAT, 2, d23);
	load_fails(&e, NULL, WEBNN_STATUS_NOT_SUPPORTED,
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
	struct onnx_writer *w = model_begin(&e, "lstm", 14);
	onnx_writer_input(w, "x", ONNX_FLOAT, 3, xd);
	onnx_writer_initializer(w, "W", ONNX_FLOAT, 3, wd, W);
	onnx_writer_initializer(w, "R", ONNX_FLOAT, 3, rd, R);
	onnx_writer_initializer(w, "B", ONNX_FLOAT, 2, bd, B);
	onnx_writer_node(w, NULL, "Neg", NULL, "x", "nx");
	Onnx__NodeProto *n = onnx_writer_node(w, NULL, "LSTM", NULL, "nx,W,R,B", "y");
	onnx_writer_attr_int(w, n, "hidden_size", H);
	onnx_writer_output(w, "y", ONNX_FLOAT, 4, yd);
	struct webnn_model *m = load_ok(&e, NULL);
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
	static const int64_t d2[1] = { 2 }, one[1] = { 1 }, axes1[1] = { 1 },
			     oax[2] = { 1, 0 }, odir[2] = { 0, 1 }, d32b[2] = { 3, 2 };
	static const float z2[2] = { 0, 0 };
	float x[6] = { 1, 2, 3, 10, 20, 30 };
	/* x an input (slices and concat in the graph), then an initializer (all on the host) */
	for (int known = 0; known < 2; known++) {
		struct onnx_writer *w = model_begin(&e, "scan", 11);
		Onnx__GraphProto *b = onnx_writer_subgraph_begin(w, "body");
		onnx_writer_input(w, "sum_in", ONNX_FLOAT, 1, d2);
		onnx_writer_input(w, "col", ONNX_FLOAT, 1, d2);
		onnx_writer_node(w, NULL, "Add", NULL, "sum_in,col", "sum_out");
		onnx_writer_node(w, NULL, "Identity", NULL, "sum_out", "s1");
		onnx_writer_node(w, NULL, "Identity", NULL, "sum_out", "s2");
		onnx_writer_output(w, "sum_out", ONNX_FLOAT, 1, d2);
		onnx_writer_output(w, "s1", ONNX_FLOAT, 1, d2);
		onnx_writer_output(w, "s2", ONNX_FLOAT, 1, d2);
		onnx_writer_subgraph_end(w);
		if (known)
			onnx_writer_initializer(w, "x", ONNX_FLOAT, 2, d23, x);
		else
			onnx_writer_input(w, "x", ONNX_FLOAT, 2, d23);
		onnx_writer_initializer(w, "s0", ONNX_FLOAT, 1, d2, z2);
		Onnx__NodeProto *n = onnx_writer_node(w, NULL, "Scan", NULL, "s0,x",
						      "total,fwd,bwd");
		onnx_writer_attr_graph(w, n, "body", b);
		onnx_writer_attr_int(w, n, "num_scan_inputs", 1);
		onnx_writer_attr_ints(w, n, "scan_input_axes", axes1, 1);
		onnx_writer_attr_ints(w, n, "scan_input_directions", one, 1);
		onnx_writer_attr_ints(w, n, "scan_output_axes", oax, 2);
		onnx_writer_attr_ints(w, n, "scan_output_directions", odir, 2);
		onnx_writer_output(w, "total", ONNX_FLOAT, 1, d2);
		onnx_writer_output(w, "fwd", ONNX_FLOAT, 2, d23);
		onnx_writer_output(w, "bwd", ONNX_FLOAT, 2, d32b);
		struct webnn_model *m = load_ok(&e, NULL);
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
	struct onnx_writer *w = model_begin(&e, "cf", 13);
	static const uint8_t yes = 1;
	static const int64_t two[1] = { 2 };
	static const uint8_t yes2[2] = { 1, 1 };
	onnx_writer_input(w, "x", ONNX_FLOAT, 2, d23);
	onnx_writer_input(w, "flag", ONNX_BOOL, 0, NULL);
	onnx_writer_initializer(w, "yes", ONNX_BOOL, 0, NULL, &yes);
	onnx_writer_initializer(w, "yes2", ONNX_BOOL, 1, two, yes2);
	/* If without else_branch */
	Onnx__NodeProto *n = onnx_writer_node(w, NULL, "If", NULL, "yes", "i1");
	Onnx__GraphProto *t = onnx_writer_subgraph_begin(w, "then");
	onnx_writer_node(w, NULL, "Identity", NULL, "x", "t1");
	onnx_writer_output(w, "t1", ONNX_FLOAT, 2, d23);
	onnx_writer_subgraph_end(w);
	onnx_writer_attr_graph(w, n, "then_branch", t);
	/* If on two elements */
	n = onnx_writer_node(w, NULL, "If", NULL, "yes2", "i2");
	onnx_writer_attr_graph(w, n, "then_branch", t);
	onnx_writer_attr_graph(w, n, "else_branch", t);
	/* Loop with neither M nor cond */
	n = onnx_writer_node(w, NULL, "Loop", NULL, ",,x", "l1");
	onnx_writer_attr_graph(w, n, "body", loop_body(w));
	/* Loop on a condition computed at run time */
	n = onnx_writer_node(w, NULL, "Loop", NULL, ",flag,x", "l2");
	onnx_writer_attr_graph(w, n, "body", loop_body(w));
	onnx_writer_output(w, "i1", ONNX_FLOAT, 2, d23);
	load_fails(&e, NULL, WEBNN_STATUS_TYPE_ERROR,
		   "onnx: 4 nodes cannot be loaded: node \"i1\" (If): the graph attribute "
		   "else_branch is missing; node \"i2\" (If): cond has 2 elements (one expected); "
		   "node \"l1\" (Loop): neither M nor cond is given (a loop that never ends); node "
		   "\"l2\" (Loop): cond is computed at run time: WebNN has no loops, and a loop "
		   "unrolls only where its trip count is known when the model loads");
	env_down(&e);
}
