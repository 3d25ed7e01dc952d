/* Unit tests of proto/ validation across families: cases spanning families, roles, op table, graphs, resolve. */
#include "tests/test.h"

#include <math.h>
#include <stdarg.h>

#include "proto/resolve.h"
#include "proto/wnn.h"
#include "tests/opfixture.h"

/* ---- operators of several families in one case */

TEST(schema_cast_argminmax_cumsum)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2, 3, 4), o = SLOT(&f);
	Webnn__Ipc__Cast cm = WEBNN__IPC__CAST__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_CAST);
	op.cast = &cm;
	cm.input = x, cm.output = o, cm.data_type = WEBNN__IPC__DATA_TYPE__INT64;
	OK_OUT(&f, &op, 0, WNN_I64, 2, 3, 4);
	cm.data_type = (Webnn__Ipc__DataType)42;
	ERR(&f, &op, "cast: target data type 42 is not a valid data type");

	Webnn__Ipc__ArgMinMax am = WEBNN__IPC__ARG_MIN_MAX__INIT;
	op = st_mkop(WNN_OP_ARG_MAX);
	op.arg_min_max = &am;
	am.input = x, am.output = o, am.axis = 1;
	OK_OUT(&f, &op, 0, WNN_I32, 2, 4);
	am.keep_dimensions = true, am.output_data_type = WEBNN__IPC__DATA_TYPE__INT64;
	OK_OUT(&f, &op, 0, WNN_I64, 2, 1, 4);
	am.output_data_type = WEBNN__IPC__DATA_TYPE__UINT32;
	ERR(&f, &op, "argMax: output data type uint32 is not allowed, expected int32, int64");
	am.axis = 3;
	ERR(&f, &op, "argMax: axis 3 is out of range for rank 3");

	Webnn__Ipc__CumulativeSum cs = WEBNN__IPC__CUMULATIVE_SUM__INIT;
	op = st_mkop(WNN_OP_CUMULATIVE_SUM);
	op.cumulative_sum = &cs;
	cs.input = x, cs.output = o, cs.axis = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4);
	cs.axis = 5;
	ERR(&f, &op, "cumulativeSum: axis 5 is out of range for rank 3");
	uint32_t i8 = T(&f, WNN_I8, 2);
	cs.input = i8, cs.axis = 0;
	ERR(&f, &op, "cumulativeSum: input data type int8 is not allowed");
}

TEST(schema_prelu_where_triangular)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2, 3), s = T(&f, WNN_F32, 3), si = T(&f, WNN_I32, 3);
	uint32_t c = T(&f, WNN_U8, 4, 1, 1), o = SLOT(&f);
	Webnn__Ipc__Prelu pm = WEBNN__IPC__PRELU__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_PRELU);
	op.prelu = &pm;
	pm.input = x, pm.slope = s, pm.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3);
	pm.slope = si;
	ERR(&f, &op, "prelu: slope data type int32 does not match input data type float32");

	Webnn__Ipc__Where wm = WEBNN__IPC__WHERE__INIT;
	op = st_mkop(WNN_OP_WHERE);
	op.where = &wm;
	wm.condition = c, wm.true_value = x, wm.false_value = s, wm.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 4, 2, 3);
	wm.condition = x;
	ERR(&f, &op, "where: condition data type float32 is not allowed, expected uint8");
	wm.condition = c, wm.false_value = si;
	ERR(&f, &op, "where: falseValue data type int32 does not match trueValue data type float32");

	Webnn__Ipc__Triangular tm = WEBNN__IPC__TRIANGULAR__INIT;
	op = st_mkop(WNN_OP_TRIANGULAR);
	op.triangular = &tm;
	tm.input = x, tm.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3);
	tm.input = s;
	ERR(&f, &op, "triangular: input rank is 1, expected at least 2");
}

TEST(schema_reduce_reverse_resample)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2, 3, 4, 5), xi = T(&f, WNN_U32, 2, 3), o = SLOT(&f);
	uint32_t axes[] = { 1, 3 };
	Webnn__Ipc__Reduce rm = WEBNN__IPC__REDUCE__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_REDUCE_SUM);
	op.reduce = &rm;
	rm.input = x, rm.output = o;
	OK_SCALAR(&f, &op, WNN_F32);
	rm.has_axes = true, rm.axes = axes, rm.n_axes = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 4);
	rm.keep_dimensions = true;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 1, 4, 1);
	axes[1] = 4;
	ERR(&f, &op, "reduceSum: axes item 4 is out of range for rank 4");
	op.op = wnn_ops[WNN_OP_REDUCE_MEAN].id;
	rm.input = xi, rm.has_axes = false;
	ERR(&f, &op, "reduceMean: input data type uint32 is not allowed, expected float32, float16");
	op.op = wnn_ops[WNN_OP_REDUCE_PRODUCT].id;
	OK_OUT(&f, &op, 0, WNN_U32, 1, 1);

	Webnn__Ipc__Reverse vm = WEBNN__IPC__REVERSE__INIT;
	op = st_mkop(WNN_OP_REVERSE);
	op.reverse = &vm;
	vm.input = x, vm.output = o, vm.has_axes = true, vm.axes = axes, vm.n_axes = 2;
	axes[1] = 1;
	ERR(&f, &op, "reverse: axes contain the axis 1 more than once");
	vm.n_axes = 1;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4, 5);

	Webnn__Ipc__Resample2d sm = WEBNN__IPC__RESAMPLE2D__INIT;
	float scales[] = { 2.0f, 0.5f };
	uint32_t sizes[] = { 7, 9 }, raxes[] = { 1, 2 };
	op = st_mkop(WNN_OP_RESAMPLE2D);
	op.resample2d = &sm;
	sm.input = x, sm.output = o, sm.scales = scales, sm.n_scales = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 8, 2);
	sm.sizes = sizes, sm.n_sizes = 2, sm.axes = raxes, sm.n_axes = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 7, 9, 5);
	scales[0] = -1;
	ERR(&f, &op, "resample2d: scales item 0 is -1, expected a positive number");
	scales[0] = 1, raxes[1] = 1;
	ERR(&f, &op, "resample2d: axes contain the axis 1 more than once");
}

/* ---- operand wiring */

TEST(schema_op_inputs_outputs)
{
	uint32_t ids[16];
	const char *roles[16];
	Webnn__Ipc__Conv2d cm = WEBNN__IPC__CONV2D__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_CONV2D);
	op.conv2d = &cm;
	cm.input = 4, cm.filter = 5, cm.output = 6;
	ASSERT_EQ(wnn_op_inputs(&op, ids, roles, 16), 2);
	cm.has_bias = true, cm.bias = 7;
	ASSERT_EQ(wnn_op_inputs(&op, ids, roles, 16), 3);
	ASSERT_EQ(ids[2], 7);
	ASSERT_STREQ(roles[1], "filter");
	ASSERT_STREQ(roles[2], "bias");
	ASSERT_EQ(wnn_op_inputs(&op, ids, NULL, 2), -1);
	ASSERT_EQ(wnn_op_outputs(&op, ids, 16), 1);
	ASSERT_EQ(ids[0], 6);

	Webnn__Ipc__BatchNormalization bn = WEBNN__IPC__BATCH_NORMALIZATION__INIT;
	op = st_mkop(WNN_OP_BATCH_NORMALIZATION);
	op.batch_normalization = &bn;
	bn.input = 1, bn.mean = 2, bn.variance = 3, bn.has_bias = true, bn.bias = 9;
	ASSERT_EQ(wnn_op_inputs(&op, ids, roles, 16), 4);
	ASSERT_STREQ(roles[3], "bias");
	ASSERT_EQ(ids[3], 9);

	Webnn__Ipc__Lstm lm = WEBNN__IPC__LSTM__INIT;
	uint32_t outs[] = { 20, 21, 22 };
	op = st_mkop(WNN_OP_LSTM);
	op.lstm = &lm;
	lm.has_initial_cell_state = true, lm.initial_cell_state = 8;
	lm.has_peephole_weight = true, lm.peephole_weight = 7;
	lm.outputs = outs, lm.n_outputs = 3;
	ASSERT_EQ(wnn_op_inputs(&op, ids, roles, 16), 5);
	ASSERT_STREQ(roles[3], "peepholeWeight");
	ASSERT_STREQ(roles[4], "initialCellState");
	ASSERT_EQ(wnn_op_outputs(&op, ids, 16), 3);
	ASSERT_EQ(ids[2], 22);
	ASSERT_EQ(wnn_op_outputs(&op, ids, 2), -1);

	Webnn__Ipc__ElementwiseUnary un = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	op = st_mkop(WNN_OP_LOGICAL_NOT);
	op.unary = &un;
	ASSERT_EQ(wnn_op_inputs(&op, ids, roles, 16), 1);
	ASSERT_STREQ(roles[0], "a");
	op = st_mkop(WNN_OP_GEMM); /* attrs member missing */
	ASSERT_EQ(wnn_op_inputs(&op, ids, roles, 16), -1);
	ASSERT_EQ(wnn_op_outputs(&op, ids, 16), -1);
}

/* ---- the op table and roles */

struct role_rec {
	int n;
	char last[32];
	uint32_t first_types;
	uint32_t min0, max0;
};

static void role_cb(void *ud, const char *role, uint32_t types, uint32_t lo, uint32_t hi)
{
	struct role_rec *r = ud;
	if (r->n == 0)
		r->first_types = types, r->min0 = lo, r->max0 = hi;
	r->n++;
	snprintf(r->last, sizeof(r->last), "%s", role);
	ASSERT(lo <= hi && hi <= WNN_MAX_RANK);
	ASSERT(types != 0 && (types & ~WNN_DT_ANY) == 0);
}

TEST(schema_op_table_walk)
{
	for (int i = 0; i < WNN_OP_COUNT; i++) {
		const struct wnn_op_info *info = &wnn_ops[i];
		ASSERT(info->id != 0);
		for (int j = 0; j < i; j++)
			ASSERT_MSG(wnn_ops[j].id != info->id, "duplicate wire id %u", info->id);
		ASSERT_EQ(wnn_op_from_name(info->name), i);
		ASSERT_EQ(wnn_op_from_id(info->id), i);
		ASSERT(info->dtypes != 0 && (info->dtypes & ~WNN_DT_ANY) == 0);
		struct role_rec r = { 0 };
		wnn_op_roles((enum wnn_op)i, role_cb, &r);
		ASSERT_MSG(r.n >= 2, "%s has %d roles", info->name, r.n);
		ASSERT_MSG(strncmp(r.last, "output", 6) == 0, "%s: last role %s", info->name, r.last);
		ASSERT_EQ(r.first_types, info->dtypes);
	}
	ASSERT_EQ(wnn_op_from_name("nosuchop"), WNN_OP_COUNT);
	ASSERT_EQ(wnn_op_from_id(0), WNN_OP_COUNT);
	struct role_rec r = { 0 };
	wnn_op_roles(WNN_OP_CONV2D, role_cb, &r);
	ASSERT_EQ(r.n, 4);
	ASSERT_EQ(r.min0, 4);
	ASSERT_EQ(r.first_types, WNN_DT_FLOAT);
	memset(&r, 0, sizeof(r));
	wnn_op_roles(WNN_OP_LSTM, role_cb, &r);
	ASSERT_EQ(r.n, 11);
	ASSERT_STREQ(r.last, "output2");
	/* spec tables: resample2d allows (u)int8, dequantizeLinear uint32 */
	ASSERT(wnn_ops[WNN_OP_RESAMPLE2D].dtypes & WNN_DT_BIT(WNN_U8));
	ASSERT(wnn_ops[WNN_OP_DEQUANTIZE_LINEAR].dtypes & WNN_DT_BIT(WNN_U32));
}

/* ---- whole graphs */

struct gb {
	Webnn__Ipc__Operand operand[16];
	Webnn__Ipc__Operand *operand_p[16];
	Webnn__Ipc__OperandDescriptor desc[16];
	uint32_t shape[16][WNN_MAX_RANK];
	Webnn__Ipc__Number scalar;
	Webnn__Ipc__Operation op[8];
	Webnn__Ipc__Operation *op_p[8];
	Webnn__Ipc__ElementwiseBinary bin[8];
	Webnn__Ipc__NamedOperand in[8], out[8];
	Webnn__Ipc__NamedOperand *in_p[8], *out_p[8];
	Webnn__Ipc__GraphInfo g;
	struct wnn_desc descs[16];
	struct wnn_diag diag;
};

static uint32_t g_operand(struct gb *b, Webnn__Ipc__OperandKind kind, enum wnn_dtype t, int rank,
			  ...)
{
	size_t i = b->g.n_operands++;
	va_list ap;
	va_start(ap, rank);
	for (int k = 0; k < rank; k++)
		b->shape[i][k] = va_arg(ap, uint32_t);
	va_end(ap);
	webnn__ipc__operand_descriptor__init(&b->desc[i]);
	b->desc[i].data_type = (Webnn__Ipc__DataType)t;
	b->desc[i].shape = b->shape[i];
	b->desc[i].n_shape = (size_t)rank;
	webnn__ipc__operand__init(&b->operand[i]);
	b->operand[i].kind = kind;
	b->operand[i].descriptor = &b->desc[i];
	b->operand_p[i] = &b->operand[i];
	b->g.operands = b->operand_p;
	return (uint32_t)i;
}

static void g_named(Webnn__Ipc__NamedOperand *no, Webnn__Ipc__NamedOperand **p, size_t *n,
		    Webnn__Ipc__NamedOperand ***list, const char *name, uint32_t id)
{
	webnn__ipc__named_operand__init(&no[*n]);
	no[*n].name = (char *)name;
	no[*n].operand = id;
	p[*n] = &no[*n];
	(*n)++;
	*list = p;
}
#define G_INPUT(b, name, id) g_named((b)->in, (b)->in_p, &(b)->g.n_inputs, &(b)->g.inputs, name, id)
#define G_OUTPUT(b, name, id)                                                                  \
	g_named((b)->out, (b)->out_p, &(b)->g.n_outputs, &(b)->g.outputs, name, id)

static void g_add(struct gb *b, uint32_t x, uint32_t y, uint32_t out)
{
	size_t i = b->g.n_operations++;
	b->op[i] = st_binary(WNN_OP_ADD, &b->bin[i], x, y, out);
	b->op_p[i] = &b->op[i];
	b->g.operations = b->op_p;
}

/* in0 + c -> t; t + in0 -> out (graph output "y") */
static void g_basic(struct gb *b)
{
	memset(b, 0, sizeof(*b));
	webnn__ipc__graph_info__init(&b->g);
	uint32_t in0 = g_operand(b, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, WNN_F32, 2, 2, 3);
	uint32_t c = g_operand(b, WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT, WNN_F32, 1, 3);
	b->operand[c].has_constant_id = true, b->operand[c].constant_id = 7;
	uint32_t t = g_operand(b, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, WNN_F32, 2, 2, 3);
	uint32_t out = g_operand(b, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, WNN_F32, 2, 2, 3);
	G_INPUT(b, "x", in0);
	G_OUTPUT(b, "y", out);
	g_add(b, in0, c, t);
	g_add(b, t, in0, out);
}

static enum webnn_status g_validate(struct gb *b)
{
	wnn_diag_clear(&b->diag);
	return wnn_graph_validate(&b->g, b->descs, &b->diag);
}
#define G_ERR(b, text)                                                                         \
	do {                                                                                   \
		ASSERT(g_validate(b) != WEBNN_STATUS_OK);                                      \
		ASSERT_CONTAINS((b)->diag.message, text);                                      \
	} while (0)

TEST(schema_graph_valid)
{
	static struct gb b;
	g_basic(&b);
	ASSERT_EQ(g_validate(&b), WEBNN_STATUS_OK);
	ASSERT_EQ(b.descs[3].type, WNN_F32);
	ASSERT_EQ(b.descs[3].dims[1], 3);
	ASSERT_EQ(b.descs[1].rank, 1);
	/* scalar constants and constant tensors */
	uint32_t s = g_operand(&b, WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT, WNN_F32, 0);
	webnn__ipc__number__init(&b.scalar);
	b.scalar.value_case = WEBNN__IPC__NUMBER__VALUE_F, b.scalar.f = 2;
	b.operand[s].scalar = &b.scalar;
	uint32_t ct = g_operand(&b, WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR, WNN_F32, 2, 2, 3);
	b.operand[ct].has_tensor_id = true, b.operand[ct].tensor_id = 3;
	uint32_t o2 = g_operand(&b, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, WNN_F32, 2, 2, 3);
	g_add(&b, s, ct, o2);
	G_OUTPUT(&b, "z", o2);
	ASSERT_EQ(g_validate(&b), WEBNN_STATUS_OK);
	b.shape[s][0] = 1, b.desc[s].n_shape = 1;
	G_ERR(&b, "graph: scalar constant operand 4 has rank 1, expected 0");
	b.desc[s].n_shape = 0, b.operand[s].scalar = NULL;
	G_ERR(&b, "graph: scalar constant operand 4 has no value");
}

TEST(schema_graph_structure_errors)
{
	static struct gb b;
	/* use before define: second op reads an output produced later */
	g_basic(&b);
	b.bin[0].b = 3;
	G_ERR(&b, "add: b operand 3 is used before it is defined");
	/* duplicate producer */
	g_basic(&b);
	b.bin[1].output = 2;
	G_ERR(&b, "graph: operation 1 (add) writes operand 2, which an earlier operation already "
		  "produced");
	/* writing an input */
	g_basic(&b);
	b.bin[1].output = 0;
	G_ERR(&b, "graph: operation 1 (add) writes operand 0, which is an input");
	/* mismatched declared descriptor */
	g_basic(&b);
	b.shape[3][1] = 4;
	G_ERR(&b, "add: output (operand 3) is float32 [2, 4], expected float32 [2, 3]");
	g_basic(&b);
	b.desc[2].data_type = WEBNN__IPC__DATA_TYPE__FLOAT16;
	G_ERR(&b, "output (operand 2) is float16 [2, 3], expected float32 [2, 3]");
	/* unknown op id, wrong attrs member */
	g_basic(&b);
	b.op[1].op = 999;
	G_ERR(&b, "operation: unknown operator id 999");
	g_basic(&b);
	b.op[1].op = wnn_ops[WNN_OP_CONV2D].id;
	G_ERR(&b, "conv2d: operation carries binary attributes, expected conv2d");
	/* an output operand nobody produces */
	g_basic(&b);
	g_operand(&b, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, WNN_F32, 1, 1);
	G_ERR(&b, "graph: output operand 4 is never produced by an operation");
	/* constant without id, unknown kind, bad descriptor */
	g_basic(&b);
	b.operand[1].has_constant_id = false;
	G_ERR(&b, "graph: constant operand 1 has no constant_id");
	g_basic(&b);
	b.operand[1].kind = (Webnn__Ipc__OperandKind)17;
	G_ERR(&b, "graph: operand 1 has unknown kind 17");
	g_basic(&b);
	b.shape[0][0] = 0;
	G_ERR(&b, "graph: operand 0: dimension 0 is 0");
}

TEST(schema_graph_names)
{
	static struct gb b;
	g_basic(&b);
	uint32_t in1 = g_operand(&b, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, WNN_F32, 1, 3);
	G_INPUT(&b, "x", in1);
	G_ERR(&b, "graph: input name \"x\" is used more than once");
	b.in[1].name = (char *)"x2";
	ASSERT_EQ(g_validate(&b), WEBNN_STATUS_OK);
	b.in[1].operand = 0;
	G_ERR(&b, "graph: input operand 0 is listed more than once");
	b.g.n_inputs = 1;
	G_ERR(&b, "graph: input operand 4 is not listed in the graph inputs");
	b.in[0].name = (char *)"";
	G_ERR(&b, "graph: input 0 has an empty name");
	g_basic(&b);
	b.in[0].operand = 1;
	G_ERR(&b, "graph: input \"x\" names operand 1, which is a constant");
	g_basic(&b);
	b.operand[0].name = (char *)"other";
	G_ERR(&b, "whose own name is \"other\"");
	/* graph outputs */
	g_basic(&b);
	G_OUTPUT(&b, "y", 2);
	G_ERR(&b, "graph: output name \"y\" is used more than once");
	b.out[1].name = (char *)"t";
	ASSERT_EQ(g_validate(&b), WEBNN_STATUS_OK);
	b.out[1].operand = 0;
	G_ERR(&b, "graph: output \"t\" names operand 0, which is an input, not an operation output");
	b.out[1].operand = 40;
	G_ERR(&b, "graph: output \"t\" names operand 40, out of range");
	b.g.n_outputs = 0;
	G_ERR(&b, "graph: the graph has no outputs");
}

TEST(schema_graph_limits)
{
	static struct gb b;
	g_basic(&b);
	size_t n = b.g.n_operands;
	b.g.n_operands = 100001;
	G_ERR(&b, "graph: 100001 operands exceed the limit of 100000");
	b.g.n_operands = n;
	b.g.n_operations = 100001;
	G_ERR(&b, "graph: 100001 operations exceed the limit of 100000");
	b.g.n_operations = 0;
	G_ERR(&b, "graph: the graph has no operations");
	ASSERT(wnn_graph_validate(NULL, b.descs, &b.diag) != WEBNN_STATUS_OK);
}

/* ---- resolution: every default applied once, output shapes the same as inference's */

/* Infers op (expecting success) and resolves it with the inferred outputs. */
static void infer_and_resolve(struct fx *f, const Webnn__Ipc__Operation *op,
			      union wnn_attrs *attrs)
{
	struct wnn_diag diag;
	ASSERT_MSG(st_run(f, op) == WEBNN_STATUS_OK, "infer: %s", f->diag.message);
	ASSERT_MSG(st_resolve(f, op, attrs, &diag) == WEBNN_STATUS_OK, "resolve: %s",
		   diag.message);
}

TEST(schema_resolve_applies_defaults)
{
	struct fx f = { 0 };
	union wnn_attrs a;
	uint32_t x = T(&f, WNN_F32, 1, 2, 5, 6), w = T(&f, WNN_F32, 4, 2, 3, 3), o = SLOT(&f);
	struct conv c;
	st_conv_init(&c, x, w, o);
	infer_and_resolve(&f, &c.op, &a);
	ASSERT_EQ(a.conv2d.stride_h, 1);
	ASSERT_EQ(a.conv2d.stride_w, 1);
	ASSERT_EQ(a.conv2d.dil_h, 1);
	ASSERT_EQ(a.conv2d.dil_w, 1);
	ASSERT_EQ(a.conv2d.pad_top + a.conv2d.pad_bottom + a.conv2d.pad_left + a.conv2d.pad_right,
		  0);
	ASSERT_EQ(a.conv2d.groups, 1);
	ASSERT_EQ(a.conv2d.out_h, 3);
	ASSERT_EQ(a.conv2d.out_w, 4);

	Webnn__Ipc__Pool2d pm = WEBNN__IPC__POOL2D__INIT;
	Webnn__Ipc__Operation pool = st_mkop(WNN_OP_MAX_POOL2D);
	pool.pool2d = &pm, pm.input = x, pm.output = o;
	infer_and_resolve(&f, &pool, &a);
	ASSERT_EQ(a.pool2d.win_h, 5);
	ASSERT_EQ(a.pool2d.win_w, 6); /* the spatial size */
	ASSERT_EQ(a.pool2d.stride_h, 1);
	ASSERT_EQ(a.pool2d.dil_w, 1);
	ASSERT_EQ(a.pool2d.out_h, 1);
	ASSERT_EQ(a.pool2d.out_w, 1);

	const enum wnn_op unary[] = { WNN_OP_ELU, WNN_OP_LEAKY_RELU, WNN_OP_HARD_SIGMOID,
				      WNN_OP_LINEAR };
	Webnn__Ipc__ElementwiseUnary um;
	for (size_t i = 0; i < sizeof(unary) / sizeof(unary[0]); i++) {
		Webnn__Ipc__Operation op = st_mkop(unary[i]);
		webnn__ipc__elementwise_unary__init(&um);
		op.unary = &um, um.input = x, um.output = o;
		infer_and_resolve(&f, &op, &a);
		ASSERT(a.unary.alpha == (double)(float)wnn_ops[unary[i]].defaults.alpha);
		ASSERT(a.unary.beta == (double)(float)wnn_ops[unary[i]].defaults.beta);
	}
	ASSERT(wnn_ops[WNN_OP_ELU].defaults.alpha == 1.0);
	ASSERT(wnn_ops[WNN_OP_HARD_SIGMOID].defaults.beta == 0.5);

	uint32_t xi = T(&f, WNN_I8, 3);
	Webnn__Ipc__Clamp cm = WEBNN__IPC__CLAMP__INIT;
	Webnn__Ipc__Operation clamp = st_mkop(WNN_OP_CLAMP);
	clamp.clamp = &cm, cm.input = xi, cm.output = o;
	infer_and_resolve(&f, &clamp, &a);
	ASSERT_EQ(a.clamp.min_i, INT8_MIN);
	ASSERT_EQ(a.clamp.max_i, INT8_MAX);
	cm.input = x;
	infer_and_resolve(&f, &clamp, &a);
	ASSERT(isinf(a.clamp.min) && a.clamp.min < 0 && isinf(a.clamp.max) && a.clamp.max > 0);

	Webnn__Ipc__Transpose tm = WEBNN__IPC__TRANSPOSE__INIT;
	Webnn__Ipc__Operation tr = st_mkop(WNN_OP_TRANSPOSE);
	tr.transpose = &tm, tm.input = x, tm.output = o;
	infer_and_resolve(&f, &tr, &a);
	for (uint32_t i = 0; i < 4; i++)
		ASSERT_EQ(a.transpose.perm[i], 3 - i);

	Webnn__Ipc__Reduce rm = WEBNN__IPC__REDUCE__INIT;
	Webnn__Ipc__Operation red = st_mkop(WNN_OP_REDUCE_SUM);
	red.reduce = &rm, rm.input = x, rm.output = o;
	infer_and_resolve(&f, &red, &a);
	ASSERT_EQ(a.reduce.r.red_count, 60);
	ASSERT_EQ(a.reduce.r.kept_count, 1);

	Webnn__Ipc__LayerNormalization lm = WEBNN__IPC__LAYER_NORMALIZATION__INIT;
	Webnn__Ipc__Operation ln = st_mkop(WNN_OP_LAYER_NORMALIZATION);
	ln.layer_normalization = &lm, lm.input = x, lm.output = o;
	infer_and_resolve(&f, &ln, &a);
	ASSERT_EQ(a.norm.r.red_count, 60);
	ASSERT_EQ(a.norm.r.kept_count, 1); /* axes 1..3 */
	ASSERT(a.norm.epsilon == (double)(float)wnn_ops[WNN_OP_LAYER_NORMALIZATION].defaults.epsilon);

	Webnn__Ipc__Resample2d sm = WEBNN__IPC__RESAMPLE2D__INIT;
	Webnn__Ipc__Operation rs = st_mkop(WNN_OP_RESAMPLE2D);
	rs.resample2d = &sm, sm.input = x, sm.output = o;
	infer_and_resolve(&f, &rs, &a);
	ASSERT_EQ(a.resample.axes[0], 2);
	ASSERT_EQ(a.resample.axes[1], 3);
	ASSERT(a.resample.scale[0] == 1.0 && a.resample.scale[1] == 1.0);
}

/* The protocol's [default = ...] values of scalar options are the op table's (ops.def DEFAULTS
 * is the one place they are decided; the .proto repeats them for messages that omit them). */
/* Options the message leaves out resolve to the op table's defaults (the wire carries none of
 * its own): gemm alpha/beta, the normalizations' epsilon. */
TEST(schema_absent_options_resolve_to_op_table_defaults)
{
	struct fx f = { 0 };
	union wnn_attrs a;
	uint32_t x = T(&f, WNN_F32, 2, 3), y = T(&f, WNN_F32, 3, 2), o = SLOT(&f);
	Webnn__Ipc__Gemm gm = WEBNN__IPC__GEMM__INIT;
	Webnn__Ipc__Operation gemm = st_mkop(WNN_OP_GEMM);
	gemm.gemm = &gm, gm.a = x, gm.b = y, gm.output = o;
	infer_and_resolve(&f, &gemm, &a);
	ASSERT(a.gemm.alpha == (double)(float)wnn_ops[WNN_OP_GEMM].defaults.alpha);
	ASSERT(a.gemm.beta == (double)(float)wnn_ops[WNN_OP_GEMM].defaults.beta);
	ASSERT(wnn_ops[WNN_OP_GEMM].defaults.alpha == 1.0 && wnn_ops[WNN_OP_GEMM].defaults.beta == 1.0);

	uint32_t in = T(&f, WNN_F32, 1, 2, 3, 3), c = T(&f, WNN_F32, 2), o2 = SLOT(&f);
	Webnn__Ipc__BatchNormalization bm = WEBNN__IPC__BATCH_NORMALIZATION__INIT;
	Webnn__Ipc__Operation bn = st_mkop(WNN_OP_BATCH_NORMALIZATION);
	bn.batch_normalization = &bm, bm.input = in, bm.mean = c, bm.variance = c, bm.output = o2;
	infer_and_resolve(&f, &bn, &a);
	ASSERT(a.batchnorm.epsilon == (double)(float)1e-5);
	Webnn__Ipc__InstanceNormalization im = WEBNN__IPC__INSTANCE_NORMALIZATION__INIT;
	Webnn__Ipc__Operation inorm = st_mkop(WNN_OP_INSTANCE_NORMALIZATION);
	inorm.instance_normalization = &im, im.input = in, im.output = o2;
	infer_and_resolve(&f, &inorm, &a);
	ASSERT(a.norm.epsilon == (double)(float)1e-5);
	Webnn__Ipc__LayerNormalization lm = WEBNN__IPC__LAYER_NORMALIZATION__INIT;
	Webnn__Ipc__Operation lnorm = st_mkop(WNN_OP_LAYER_NORMALIZATION);
	lnorm.layer_normalization = &lm, lm.input = in, lm.output = o2;
	infer_and_resolve(&f, &lnorm, &a);
	ASSERT(a.norm.epsilon == (double)(float)1e-5);
	lm.has_epsilon = true, lm.epsilon = 0.25;
	infer_and_resolve(&f, &lnorm, &a);
	ASSERT(a.norm.epsilon == 0.25);
}

/* The daemon's resolution (wnn_resolve) refuses declared outputs other than the computed ones,
 * whichever output and dimension differs, with the one message of schema.c naming the output
 * operand (one sample per family whose shape is not the input's). */
static void expect_resolve_rejects_other_shape(struct fx *f, const Webnn__Ipc__Operation *op,
					       int line)
{
	union wnn_attrs a;
	struct wnn_diag diag;
	infer_and_resolve(f, op, &a);
	for (int i = 0; i < f->n_out; i++) {
		for (uint32_t d = 0; d < f->out[i].rank; d++) {
			f->out[i].dims[d]++;
			if (st_resolve(f, op, &a, &diag) == WEBNN_STATUS_OK)
				FAIL("line %d: output %d dimension %u off by one still resolves",
				     line, i, d);
			f->out[i].dims[d]--;
			char want[160], got[128];
			snprintf(want, sizeof(want), "%s: output%s", wnn_ops[wnn_op_from_id(op->op)].name,
				 f->n_out > 1 ? " " : " (operand");
			if (!strstr(diag.message, want) || !strstr(diag.message, ", expected ") ||
			    !strstr(diag.message, wnn_desc_str(&f->out[i], got, sizeof(got))))
				FAIL("line %d: output %d dimension %u: %s", line, i, d, diag.message);
		}
	}
}

/* gru, lstm (both directions, every output) and their cells: steps 2, batch 3, input size 4,
 * hidden size 5. */
static void expect_recurrent_outputs_checked(struct fx *f, uint32_t *outs)
{
	uint32_t in = T(f, WNN_F32, 2, 3, 4), cin = T(f, WNN_F32, 3, 4), hs = T(f, WNN_F32, 3, 5);
	Webnn__Ipc__Gru gm = WEBNN__IPC__GRU__INIT;
	Webnn__Ipc__Operation gru = st_mkop(WNN_OP_GRU);
	gru.gru = &gm, gm.input = in, gm.weight = T(f, WNN_F32, 2, 15, 4);
	gm.recurrent_weight = T(f, WNN_F32, 2, 15, 5), gm.steps = 2, gm.hidden_size = 5;
	gm.direction = WEBNN__IPC__RECURRENT_DIRECTION__BOTH, gm.return_sequence = true;
	gm.outputs = outs, gm.n_outputs = 2;
	expect_resolve_rejects_other_shape(f, &gru, __LINE__);

	Webnn__Ipc__Lstm lm = WEBNN__IPC__LSTM__INIT;
	Webnn__Ipc__Operation lstm = st_mkop(WNN_OP_LSTM);
	lstm.lstm = &lm, lm.input = in, lm.weight = T(f, WNN_F32, 2, 20, 4);
	lm.recurrent_weight = T(f, WNN_F32, 2, 20, 5), lm.steps = 2, lm.hidden_size = 5;
	lm.direction = WEBNN__IPC__RECURRENT_DIRECTION__BOTH, lm.return_sequence = true;
	lm.outputs = outs, lm.n_outputs = 3;
	expect_resolve_rejects_other_shape(f, &lstm, __LINE__);

	Webnn__Ipc__GruCell gcm = WEBNN__IPC__GRU_CELL__INIT;
	Webnn__Ipc__Operation gcell = st_mkop(WNN_OP_GRU_CELL);
	gcell.gru_cell = &gcm, gcm.input = cin, gcm.weight = T(f, WNN_F32, 15, 4);
	gcm.recurrent_weight = T(f, WNN_F32, 15, 5), gcm.hidden_state = hs, gcm.hidden_size = 5;
	gcm.output = outs[0];
	expect_resolve_rejects_other_shape(f, &gcell, __LINE__);

	Webnn__Ipc__LstmCell lcm = WEBNN__IPC__LSTM_CELL__INIT;
	Webnn__Ipc__Operation lcell = st_mkop(WNN_OP_LSTM_CELL);
	lcell.lstm_cell = &lcm, lcm.input = cin, lcm.weight = T(f, WNN_F32, 20, 4);
	lcm.recurrent_weight = T(f, WNN_F32, 20, 5), lcm.hidden_state = hs, lcm.cell_state = hs;
	lcm.hidden_size = 5, lcm.outputs = outs, lcm.n_outputs = 2;
	expect_resolve_rejects_other_shape(f, &lcell, __LINE__);
}

TEST(schema_resolve_rejects_declared_outputs_that_differ)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 1, 2, 7, 6), w = T(&f, WNN_F32, 4, 2, 3, 3), o = SLOT(&f);
	uint32_t strides[] = { 2, 3 }, pad[] = { 1, 2, 0, 1 }, dil[] = { 2, 1 };
	struct conv c;
	st_conv_init(&c, x, w, o);
	c.m.strides = strides, c.m.n_strides = 2, c.m.padding = pad, c.m.n_padding = 4;
	c.m.dilations = dil, c.m.n_dilations = 2;
	expect_resolve_rejects_other_shape(&f, &c.op, __LINE__);

	uint32_t tw = T(&f, WNN_F32, 2, 3, 3, 3);
	Webnn__Ipc__ConvTranspose2d tm = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
	Webnn__Ipc__Operation ct = st_mkop(WNN_OP_CONV_TRANSPOSE2D);
	ct.conv_transpose2d = &tm, tm.input = x, tm.filter = tw, tm.output = o;
	tm.strides = strides, tm.n_strides = 2, tm.padding = pad, tm.n_padding = 4;
	expect_resolve_rejects_other_shape(&f, &ct, __LINE__);

	uint32_t win[] = { 3, 2 };
	Webnn__Ipc__Pool2d pm = WEBNN__IPC__POOL2D__INIT;
	Webnn__Ipc__Operation pool = st_mkop(WNN_OP_AVERAGE_POOL2D);
	pool.pool2d = &pm, pm.input = x, pm.output = o;
	pm.window_dimensions = win, pm.n_window_dimensions = 2, pm.strides = strides;
	pm.n_strides = 2, pm.output_shape_rounding = WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
	expect_resolve_rejects_other_shape(&f, &pool, __LINE__);

	float scales[] = { 1.5f, 0.5f };
	Webnn__Ipc__Resample2d sm = WEBNN__IPC__RESAMPLE2D__INIT;
	Webnn__Ipc__Operation rs = st_mkop(WNN_OP_RESAMPLE2D);
	rs.resample2d = &sm, sm.input = x, sm.output = o, sm.scales = scales, sm.n_scales = 2;
	expect_resolve_rejects_other_shape(&f, &rs, __LINE__);

	uint32_t idx = T(&f, WNN_I32, 2, 3);
	Webnn__Ipc__Gather gm = WEBNN__IPC__GATHER__INIT;
	Webnn__Ipc__Operation g = st_mkop(WNN_OP_GATHER);
	g.gather = &gm, gm.input = x, gm.indices = idx, gm.output = o, gm.axis = 2;
	expect_resolve_rejects_other_shape(&f, &g, __LINE__);
	uint32_t nd = T(&f, WNN_I32, 5, 2);
	g = st_mkop(WNN_OP_GATHER_ND);
	g.gather = &gm, gm.indices = nd;
	expect_resolve_rejects_other_shape(&f, &g, __LINE__);

	uint32_t axes[] = { 1, 3 };
	Webnn__Ipc__Reduce rm = WEBNN__IPC__REDUCE__INIT;
	Webnn__Ipc__Operation red = st_mkop(WNN_OP_REDUCE_MEAN);
	red.reduce = &rm, rm.input = x, rm.output = o, rm.axes = axes, rm.n_axes = 2;
	rm.has_axes = true, rm.keep_dimensions = true;
	expect_resolve_rejects_other_shape(&f, &red, __LINE__);

	uint32_t perm[] = { 2, 0, 3, 1 };
	Webnn__Ipc__Transpose trm = WEBNN__IPC__TRANSPOSE__INIT;
	Webnn__Ipc__Operation tr = st_mkop(WNN_OP_TRANSPOSE);
	tr.transpose = &trm, trm.input = x, trm.output = o;
	trm.permutation = perm, trm.n_permutation = 4, trm.has_permutation = true;
	expect_resolve_rejects_other_shape(&f, &tr, __LINE__);

	uint32_t ma = T(&f, WNN_F32, 3, 1, 4, 5), mb = T(&f, WNN_F32, 2, 5, 6);
	Webnn__Ipc__Matmul mm = WEBNN__IPC__MATMUL__INIT;
	Webnn__Ipc__Operation mat = st_mkop(WNN_OP_MATMUL);
	mat.matmul = &mm, mm.a = ma, mm.b = mb, mm.output = o;
	expect_resolve_rejects_other_shape(&f, &mat, __LINE__);

	uint32_t ga = T(&f, WNN_F32, 5, 4), gb = T(&f, WNN_F32, 6, 5);
	Webnn__Ipc__Gemm gem = WEBNN__IPC__GEMM__INIT;
	Webnn__Ipc__Operation gemm = st_mkop(WNN_OP_GEMM);
	gemm.gemm = &gem, gem.a = ga, gem.b = gb, gem.output = o;
	gem.a_transpose = true, gem.b_transpose = true;
	expect_resolve_rejects_other_shape(&f, &gemm, __LINE__);

	uint32_t bb = T(&f, WNN_F32, 2, 1, 6);
	Webnn__Ipc__ElementwiseBinary bm;
	Webnn__Ipc__Operation add = st_binary(WNN_OP_ADD, &bm, x, bb, o);
	expect_resolve_rejects_other_shape(&f, &add, __LINE__);

	Webnn__Ipc__ArgMinMax am = WEBNN__IPC__ARG_MIN_MAX__INIT;
	Webnn__Ipc__Operation arg = st_mkop(WNN_OP_ARG_MAX);
	arg.arg_min_max = &am, am.input = x, am.output = o, am.axis = 2;
	am.output_data_type = WEBNN__IPC__DATA_TYPE__INT64, am.keep_dimensions = true;
	expect_resolve_rejects_other_shape(&f, &arg, __LINE__);

	uint32_t starts[] = { 0, 1, 2, 1 }, sizes[] = { 1, 1, 5, 5 }, steps[] = { 1, 1, 2, 3 };
	Webnn__Ipc__Slice slm = WEBNN__IPC__SLICE__INIT;
	Webnn__Ipc__Operation sl = st_mkop(WNN_OP_SLICE);
	sl.slice = &slm, slm.input = x, slm.output = o;
	slm.starts = starts, slm.n_starts = 4, slm.sizes = sizes, slm.n_sizes = 4;
	slm.strides = steps, slm.n_strides = 4;
	expect_resolve_rejects_other_shape(&f, &sl, __LINE__);

	uint32_t begin[] = { 0, 1, 2, 0 }, end[] = { 1, 0, 0, 3 };
	Webnn__Ipc__Pad padm = WEBNN__IPC__PAD__INIT;
	Webnn__Ipc__Operation pd = st_mkop(WNN_OP_PAD);
	pd.pad = &padm, padm.input = x, padm.output = o;
	padm.beginning_padding = begin, padm.n_beginning_padding = 4;
	padm.ending_padding = end, padm.n_ending_padding = 4;
	expect_resolve_rejects_other_shape(&f, &pd, __LINE__);

	uint32_t reps[] = { 2, 1, 3, 1 };
	Webnn__Ipc__Tile tlm = WEBNN__IPC__TILE__INIT;
	Webnn__Ipc__Operation tl = st_mkop(WNN_OP_TILE);
	tl.tile = &tlm, tlm.input = x, tlm.output = o, tlm.repetitions = reps;
	tlm.n_repetitions = 4;
	expect_resolve_rejects_other_shape(&f, &tl, __LINE__);

	uint32_t parts[] = { 2, 3, 2 }, outs[] = { o, SLOT(&f), SLOT(&f) };
	Webnn__Ipc__Split spm = WEBNN__IPC__SPLIT__INIT;
	Webnn__Ipc__Operation sp = st_mkop(WNN_OP_SPLIT);
	sp.split = &spm, spm.input = x, spm.axis = 2, spm.sizes = parts, spm.n_sizes = 3;
	spm.outputs = outs, spm.n_outputs = 3;
	expect_resolve_rejects_other_shape(&f, &sp, __LINE__);

	uint32_t cat[] = { x, T(&f, WNN_F32, 1, 2, 3, 6), x };
	Webnn__Ipc__Concat cm = WEBNN__IPC__CONCAT__INIT;
	Webnn__Ipc__Operation cc = st_mkop(WNN_OP_CONCAT);
	cc.concat = &cm, cm.inputs = cat, cm.n_inputs = 3, cm.axis = 2, cm.output = o;
	expect_resolve_rejects_other_shape(&f, &cc, __LINE__);

	expect_recurrent_outputs_checked(&f, outs);
}
