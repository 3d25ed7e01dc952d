/* Unit tests of proto/ validation: per-operator inference and errors, roles, op table, graphs. */
#include "tests/test.h"

#include <math.h>
#include <stdarg.h>

#include "proto/resolve.h"
#include "proto/wnn.h"

/* ---- fixtures: an operand table and one operation at a time */

struct fx {
	struct wnn_desc d[32];
	size_t n;
	struct wnn_desc out[WNN_MAX_OUTPUTS];
	int n_out;
	struct wnn_diag diag;
	bool infer_only; /* the case is valid for the spec but no backend can resolve it */
};

static uint32_t add_desc(struct fx *f, enum wnn_dtype t, size_t rank, const uint32_t *dims)
{
	struct wnn_desc *d = &f->d[f->n];
	memset(d, 0, sizeof(*d));
	d->type = t;
	d->rank = (uint32_t)rank;
	for (size_t i = 0; i < rank; i++)
		d->dims[i] = dims[i];
	return (uint32_t)f->n++;
}
#define T(f, t, ...)                                                                           \
	add_desc(f, t, sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t),                 \
		 (uint32_t[]){ __VA_ARGS__ })
#define SCALAR(f, t) add_desc(f, t, 0, NULL)
/* An undefined slot for an operation to write. */
#define SLOT(f) add_desc(f, WNN_DT_NONE, 0, NULL)

static Webnn__Ipc__Operation mkop(enum wnn_op k)
{
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;
	op.op = wnn_ops[k].id;
	op.attrs_case = (Webnn__Ipc__Operation__AttrsCase)wnn_ops[k].attrs;
	return op;
}

/* Resolves op over the fixture's operands with the inferred outputs in place of its output
 * slots (on a copy), as a backend would after validation: every inferred operation must
 * resolve, with the same output shapes the resolver derives. */
static enum webnn_status resolve_inferred(const struct fx *f, const Webnn__Ipc__Operation *op,
					  union wnn_attrs *attrs, struct wnn_diag *diag)
{
	struct wnn_desc d[32];
	uint32_t ids[WNN_MAX_OUTPUTS];
	enum wnn_op kind;
	memcpy(d, f->d, sizeof(d));
	int n = wnn_op_outputs(op, ids, WNN_MAX_OUTPUTS);
	ASSERT_EQ(n, f->n_out);
	for (int i = 0; i < n; i++)
		d[ids[i]] = f->out[i];
	wnn_diag_clear(diag);
	return wnn_resolve(op, d, f->n, &kind, attrs, diag);
}

static enum webnn_status run(struct fx *f, const Webnn__Ipc__Operation *op)
{
	wnn_diag_clear(&f->diag);
	f->n_out = -1;
	enum webnn_status st = wnn_op_infer(op, f->d, f->n, f->out, WNN_MAX_OUTPUTS, &f->n_out,
					    &f->diag);
	if (st == WEBNN_STATUS_OK && !f->infer_only) {
		union wnn_attrs attrs;
		struct wnn_diag diag;
		if (resolve_inferred(f, op, &attrs, &diag) != WEBNN_STATUS_OK)
			FAIL("inferred operation does not resolve: %s", diag.message);
	}
	return st;
}

/* Asserts success and that output i has type t and the given shape. */
static void expect_out(struct fx *f, int i, enum wnn_dtype t, size_t rank, const uint32_t *dims,
		       int line)
{
	char buf[128];
	if (f->diag.status != WEBNN_STATUS_OK)
		FAIL("line %d: unexpected error: %s", line, f->diag.message);
	if (i >= f->n_out)
		FAIL("line %d: only %d outputs", line, f->n_out);
	struct wnn_desc want = { t, (uint32_t)rank, { 0 } };
	for (size_t k = 0; k < rank; k++)
		want.dims[k] = dims[k];
	if (!wnn_desc_equal(&want, &f->out[i]))
		FAIL("line %d: output %d is %s", line, i, wnn_desc_str(&f->out[i], buf, sizeof(buf)));
}
#define OK_OUT(f, op, i, t, ...)                                                               \
	do {                                                                                   \
		run(f, op);                                                                    \
		expect_out(f, i, t, sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t),     \
			   (uint32_t[]){ __VA_ARGS__ }, __LINE__);                              \
	} while (0)
#define OK_SCALAR(f, op, t)                                                                    \
	do {                                                                                   \
		run(f, op);                                                                    \
		expect_out(f, 0, t, 0, NULL, __LINE__);                                        \
	} while (0)
#define ERR(f, op, text)                                                                       \
	do {                                                                                   \
		ASSERT_EQ(run(f, op), WEBNN_STATUS_TYPE_ERROR);                                \
		ASSERT_EQ((f)->diag.status, WEBNN_STATUS_TYPE_ERROR);                          \
		ASSERT_CONTAINS((f)->diag.message, text);                                      \
	} while (0)

/* ---- element-wise binary */

static Webnn__Ipc__Operation binary(enum wnn_op k, Webnn__Ipc__ElementwiseBinary *m, uint32_t a,
				    uint32_t b, uint32_t out)
{
	Webnn__Ipc__Operation op = mkop(k);
	webnn__ipc__elementwise_binary__init(m);
	m->a = a, m->b = b, m->output = out;
	op.binary = m;
	return op;
}

TEST(schema_binary_broadcast)
{
	struct fx f = { 0 };
	Webnn__Ipc__ElementwiseBinary m;
	uint32_t a = T(&f, WNN_F32, 2, 1, 4), b = T(&f, WNN_F32, 3, 1), o = SLOT(&f);
	Webnn__Ipc__Operation op = binary(WNN_OP_ADD, &m, a, b, o);
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4);
	const enum wnn_op same[] = { WNN_OP_SUB, WNN_OP_MUL, WNN_OP_DIV, WNN_OP_MAX, WNN_OP_MIN,
				     WNN_OP_POW };
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		op = binary(same[i], &m, a, b, o);
		OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4);
	}
	uint32_t s = SCALAR(&f, WNN_F32);
	op = binary(WNN_OP_MUL, &m, s, a, o);
	OK_OUT(&f, &op, 0, WNN_F32, 2, 1, 4);
	op = binary(WNN_OP_MUL, &m, s, s, o);
	OK_SCALAR(&f, &op, WNN_F32);
	uint32_t i1 = T(&f, WNN_I64, 5), i2 = T(&f, WNN_I64, 1);
	op = binary(WNN_OP_POW, &m, i1, i2, o);
	OK_OUT(&f, &op, 0, WNN_I64, 5);
}

TEST(schema_binary_errors)
{
	struct fx f = { 0 };
	Webnn__Ipc__ElementwiseBinary m;
	uint32_t a = T(&f, WNN_F32, 2, 3), b = T(&f, WNN_F32, 4), h = T(&f, WNN_F16, 2, 3);
	uint32_t o = SLOT(&f);
	Webnn__Ipc__Operation op = binary(WNN_OP_ADD, &m, a, b, o);
	ERR(&f, &op, "add: input shapes [2, 3] and [4] are not broadcastable");
	op = binary(WNN_OP_SUB, &m, a, h, o);
	ERR(&f, &op, "sub: b data type float16 does not match a data type float32");
	op = binary(WNN_OP_DIV, &m, a, 99, o);
	ERR(&f, &op, "div: b operand id 99 is out of range");
	op = binary(WNN_OP_MAX, &m, a, o, o);
	ERR(&f, &op, "max: b operand 3 is used before it is defined");
	op = binary(WNN_OP_MIN, &m, a, a, 77);
	ERR(&f, &op, "min: output operand id 77 is out of range");
	op = binary(WNN_OP_POW, &m, a, a, o);
	op.label = (char *)"my pow";
	op.binary->b = b;
	ERR(&f, &op, "(operator \"my pow\")");
}

TEST(schema_logical_ops)
{
	struct fx f = { 0 };
	Webnn__Ipc__ElementwiseBinary m;
	uint32_t a = T(&f, WNN_F32, 2, 3), b = T(&f, WNN_F32, 3), u = T(&f, WNN_U8, 3);
	uint32_t o = SLOT(&f);
	Webnn__Ipc__Operation op = binary(WNN_OP_GREATER, &m, a, b, o);
	OK_OUT(&f, &op, 0, WNN_U8, 2, 3);
	op = binary(WNN_OP_LOGICAL_AND, &m, u, u, o);
	OK_OUT(&f, &op, 0, WNN_U8, 3);
	op = binary(WNN_OP_LOGICAL_XOR, &m, a, b, o);
	ERR(&f, &op, "logicalXor: a data type float32 is not allowed, expected uint8");

	Webnn__Ipc__ElementwiseUnary un = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	op = mkop(WNN_OP_LOGICAL_NOT);
	op.unary = &un;
	un.input = a, un.output = o;
	ERR(&f, &op, "logicalNot: a data type float32 is not allowed");
	un.input = u;
	OK_OUT(&f, &op, 0, WNN_U8, 3);
	op.op = wnn_ops[WNN_OP_IS_NAN].id;
	un.input = a;
	OK_OUT(&f, &op, 0, WNN_U8, 2, 3);
	un.input = u;
	ERR(&f, &op, "isNaN: a data type uint8 is not allowed, expected float32, float16");
}

/* ---- element-wise unary and activations */

TEST(schema_unary_types)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F16, 1, 2, 3), i = T(&f, WNN_I32, 4), u = T(&f, WNN_U32, 4);
	uint32_t o = SLOT(&f);
	Webnn__Ipc__ElementwiseUnary un = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_RELU);
	op.unary = &un;
	un.input = x, un.output = o;
	OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3);
	un.input = i;
	OK_OUT(&f, &op, 0, WNN_I32, 4);
	un.input = u;
	ERR(&f, &op, "relu: input data type uint32 is not allowed, expected float32, float16, int32, "
		     "int64, int8");
	const enum wnn_op float_only[] = { WNN_OP_SIGMOID, WNN_OP_TANH, WNN_OP_GELU,
					   WNN_OP_HARD_SWISH, WNN_OP_ELU, WNN_OP_LEAKY_RELU,
					   WNN_OP_SQRT, WNN_OP_EXP, WNN_OP_SOFTPLUS };
	for (size_t k = 0; k < sizeof(float_only) / sizeof(float_only[0]); k++) {
		op.op = wnn_ops[float_only[k]].id;
		un.input = x;
		OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3);
		un.input = i;
		ERR(&f, &op, "input data type int32 is not allowed, expected float32, float16");
		ASSERT_CONTAINS(f.diag.message, wnn_ops[float_only[k]].name);
	}
	op.op = wnn_ops[WNN_OP_IDENTITY].id;
	un.input = u;
	OK_OUT(&f, &op, 0, WNN_U32, 4);
	op.op = wnn_ops[WNN_OP_ABS].id;
	un.input = i;
	OK_OUT(&f, &op, 0, WNN_I32, 4);
}

TEST(schema_clamp)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2, 2), u8 = T(&f, WNN_U8, 3), o = SLOT(&f);
	Webnn__Ipc__Clamp m = WEBNN__IPC__CLAMP__INIT;
	Webnn__Ipc__Number lo = WEBNN__IPC__NUMBER__INIT, hi = WEBNN__IPC__NUMBER__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_CLAMP);
	op.clamp = &m;
	m.input = x, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 2); /* no bounds */
	lo.value_case = hi.value_case = WEBNN__IPC__NUMBER__VALUE_F;
	lo.f = 1, hi.f = 6;
	m.min_value = &lo, m.max_value = &hi;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 2);
	lo.f = 7;
	ERR(&f, &op, "clamp: minValue 7 is greater than maxValue 6");
	/* After casting to uint8 both saturate to 255: equal, so valid. */
	lo.f = 300, hi.f = 256;
	m.input = u8;
	OK_OUT(&f, &op, 0, WNN_U8, 3);
	lo.f = 3, hi.f = -5; /* -5 saturates to 0 */
	ERR(&f, &op, "after casting to uint8");
	m.max_value = NULL;
	OK_OUT(&f, &op, 0, WNN_U8, 3);
}

TEST(schema_unary_family_wrong_attrs)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2), o = SLOT(&f);
	Webnn__Ipc__ElementwiseBinary m;
	Webnn__Ipc__Operation op = binary(WNN_OP_ADD, &m, x, x, o);
	op.op = wnn_ops[WNN_OP_RELU].id; /* relu with binary attrs */
	ERR(&f, &op, "relu: operation carries binary attributes, expected unary");
	op.op = 12345;
	ERR(&f, &op, "unknown operator id 12345");
	op = mkop(WNN_OP_SIGMOID);
	op.attrs_case = WEBNN__IPC__OPERATION__ATTRS__NOT_SET;
	ERR(&f, &op, "sigmoid: operation carries none attributes, expected unary");
	op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_UNARY; /* member set but pointer missing */
	ERR(&f, &op, "sigmoid: operation attributes are missing");
}

/* ---- softmax, reshape, transpose, concat */

TEST(schema_softmax)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 3, 5), i = T(&f, WNN_I32, 3, 5), o = SLOT(&f);
	Webnn__Ipc__Softmax m = WEBNN__IPC__SOFTMAX__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_SOFTMAX);
	op.softmax = &m;
	m.input = x, m.output = o, m.axis = 1;
	OK_OUT(&f, &op, 0, WNN_F32, 3, 5);
	m.axis = 4;
	ERR(&f, &op, "softmax: axis 4 is out of range for rank 2");
	m.axis = 0, m.input = i;
	ERR(&f, &op, "softmax: input data type int32 is not allowed");
}

TEST(schema_reshape)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_I8, 2, 3, 4), one = T(&f, WNN_F32, 1, 1), o = SLOT(&f);
	uint32_t ns[] = { 6, 4 };
	Webnn__Ipc__Reshape m = WEBNN__IPC__RESHAPE__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_RESHAPE);
	op.reshape = &m;
	m.input = x, m.output = o, m.new_shape = ns, m.n_new_shape = 2;
	OK_OUT(&f, &op, 0, WNN_I8, 6, 4);
	ns[1] = 5;
	ERR(&f, &op, "reshape: newShape [6, 5] has 30 elements but input shape [2, 3, 4] has 24");
	ns[1] = 0;
	ERR(&f, &op, "reshape: newShape item 1 is 0, expected a valid dimension");
	m.input = one, m.n_new_shape = 0;
	OK_SCALAR(&f, &op, WNN_F32);
	uint32_t big[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	m.new_shape = big, m.n_new_shape = 9;
	ERR(&f, &op, "newShape rank 9 exceeds the maximum rank 8");
}

TEST(schema_transpose)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2, 3, 4), o = SLOT(&f);
	uint32_t perm[] = { 1, 2, 0 };
	Webnn__Ipc__Transpose m = WEBNN__IPC__TRANSPOSE__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_TRANSPOSE);
	op.transpose = &m;
	m.input = x, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 4, 3, 2);
	m.has_permutation = true, m.permutation = perm, m.n_permutation = 3;
	OK_OUT(&f, &op, 0, WNN_F32, 3, 4, 2);
	perm[2] = 1;
	ERR(&f, &op, "transpose: permutation contain the axis 1 more than once");
	perm[2] = 3;
	ERR(&f, &op, "transpose: permutation item 3 is out of range for rank 3");
	m.n_permutation = 2;
	ERR(&f, &op, "transpose: permutation has 2 values, expected 3");
}

TEST(schema_concat)
{
	struct fx f = { 0 };
	uint32_t a = T(&f, WNN_F32, 2, 3), b = T(&f, WNN_F32, 2, 5), c = T(&f, WNN_F32, 3, 3);
	uint32_t h = T(&f, WNN_F16, 2, 3), r3 = T(&f, WNN_F32, 2, 3, 1), o = SLOT(&f);
	uint32_t in[3] = { a, b, a };
	Webnn__Ipc__Concat m = WEBNN__IPC__CONCAT__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_CONCAT);
	op.concat = &m;
	m.inputs = in, m.n_inputs = 3, m.axis = 1, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 11);
	in[1] = c;
	ERR(&f, &op, "concat: inputs[1] shape [3, 3] does not match inputs[0] shape [2, 3] outside "
		     "axis 1");
	m.axis = 0;
	in[2] = c;
	OK_OUT(&f, &op, 0, WNN_F32, 8, 3);
	in[1] = h;
	ERR(&f, &op, "concat: inputs[1] data type float16 does not match inputs[0] data type float32");
	in[1] = r3;
	ERR(&f, &op, "concat: inputs[1] rank is 3, expected 2");
	m.axis = 2;
	ERR(&f, &op, "concat: axis 2 is out of range for rank 2");
	m.n_inputs = 0;
	ERR(&f, &op, "concat: 0 inputs, expected 1 to 8192");
}

/* ---- conv2d */

struct conv {
	Webnn__Ipc__Conv2d m;
	Webnn__Ipc__Operation op;
};

static void conv_init(struct conv *c, uint32_t x, uint32_t w, uint32_t o)
{
	webnn__ipc__conv2d__init(&c->m);
	c->op = mkop(WNN_OP_CONV2D);
	c->op.conv2d = &c->m;
	c->m.input = x, c->m.filter = w, c->m.output = o;
}

TEST(schema_conv2d_shapes)
{
	struct fx f = { 0 };
	struct conv c;
	uint32_t x = T(&f, WNN_F32, 1, 3, 5, 5), w = T(&f, WNN_F32, 2, 3, 3, 3), o = SLOT(&f);
	conv_init(&c, x, w, o);
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 2, 3, 3);
	uint32_t pad[] = { 1, 1, 1, 1 }, strides[] = { 2, 2 }, dil[] = { 2, 1 };
	c.m.padding = pad, c.m.n_padding = 4;
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 2, 5, 5);
	c.m.strides = strides, c.m.n_strides = 2;
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 2, 3, 3);
	c.m.dilations = dil, c.m.n_dilations = 2;
	/* height: (5 - 5 + 2) / 2 + 1 = 2; width: (5 - 3 + 2) / 2 + 1 = 3 */
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 2, 2, 3);

	/* nhwc input with each filter layout */
	uint32_t xn = T(&f, WNN_F16, 2, 7, 6, 4);
	uint32_t hwio = T(&f, WNN_F16, 3, 2, 4, 8), ohwi = T(&f, WNN_F16, 8, 3, 2, 4);
	uint32_t ihwo = T(&f, WNN_F16, 4, 3, 2, 8), oihw = T(&f, WNN_F16, 8, 4, 3, 2);
	conv_init(&c, xn, hwio, o);
	c.m.input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	c.m.filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__HWIO;
	OK_OUT(&f, &c.op, 0, WNN_F16, 2, 5, 5, 8);
	c.m.filter = ohwi, c.m.filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI;
	OK_OUT(&f, &c.op, 0, WNN_F16, 2, 5, 5, 8);
	c.m.filter = ihwo, c.m.filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO;
	OK_OUT(&f, &c.op, 0, WNN_F16, 2, 5, 5, 8);
	c.m.filter = oihw, c.m.filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW;
	OK_OUT(&f, &c.op, 0, WNN_F16, 2, 5, 5, 8);
}

TEST(schema_conv2d_groups_and_bias)
{
	struct fx f = { 0 };
	struct conv c;
	/* depthwise: 8 channels, groups 8, filter [8, 1, 3, 3] */
	uint32_t x = T(&f, WNN_F32, 1, 8, 4, 4), w = T(&f, WNN_F32, 8, 1, 3, 3);
	uint32_t b = T(&f, WNN_F32, 8), bad_b = T(&f, WNN_F32, 4), bh = T(&f, WNN_F16, 8);
	uint32_t o = SLOT(&f);
	conv_init(&c, x, w, o);
	c.m.groups = 8;
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 8, 2, 2);
	c.m.has_bias = true, c.m.bias = b;
	OK_OUT(&f, &c.op, 0, WNN_F32, 1, 8, 2, 2);
	c.m.bias = bad_b;
	ERR(&f, &c.op, "conv2d: bias shape [4] is not [8] (output channels)");
	c.m.bias = bh;
	ERR(&f, &c.op, "conv2d: bias data type float16 does not match input data type float32");
	c.m.has_bias = false;
	c.m.groups = 3;
	ERR(&f, &c.op, "conv2d: input channels 8 are not divisible by groups 3");
	c.m.groups = 2;
	ERR(&f, &c.op, "conv2d: filter input channels 1 do not match input channels 8 / groups 2");
	uint32_t w3 = T(&f, WNN_F32, 3, 4, 3, 3);
	c.m.filter = w3;
	ERR(&f, &c.op, "conv2d: output channels 3 are not divisible by groups 2");
	c.m.groups = 0;
	ERR(&f, &c.op, "conv2d: groups must not be 0");
}

TEST(schema_conv2d_errors)
{
	struct fx f = { 0 };
	struct conv c;
	uint32_t x = T(&f, WNN_F32, 1, 3, 5, 5), w = T(&f, WNN_F32, 2, 3, 3, 3);
	uint32_t w3 = T(&f, WNN_F32, 2, 3, 3), x3 = T(&f, WNN_F32, 3, 5, 5);
	uint32_t xi = T(&f, WNN_I32, 1, 3, 5, 5), wh = T(&f, WNN_F16, 2, 3, 3, 3);
	uint32_t wbig = T(&f, WNN_F32, 2, 3, 7, 7), o = SLOT(&f);
	conv_init(&c, x, w3, o);
	ERR(&f, &c.op, "conv2d: filter rank is 3, expected 4");
	conv_init(&c, x3, w, o);
	ERR(&f, &c.op, "conv2d: input rank is 3, expected 4");
	conv_init(&c, xi, w, o);
	ERR(&f, &c.op, "conv2d: input data type int32 is not allowed, expected float32, float16");
	conv_init(&c, x, wh, o);
	ERR(&f, &c.op, "conv2d: filter data type float16 does not match input data type float32");
	conv_init(&c, x, wbig, o);
	ERR(&f, &c.op, "conv2d: output height is -1, expected a valid dimension");
	conv_init(&c, x, w, o);
	uint32_t three[] = { 1, 1, 1 }, zero[] = { 1, 0 };
	c.m.padding = three, c.m.n_padding = 3;
	ERR(&f, &c.op, "conv2d: padding has 3 values, expected 4");
	c.m.n_padding = 0;
	c.m.strides = zero, c.m.n_strides = 2;
	ERR(&f, &c.op, "conv2d: strides [1, 0] must not contain 0");
	c.m.n_strides = 0;
	c.m.dilations = three, c.m.n_dilations = 3;
	ERR(&f, &c.op, "conv2d: dilations has 3 values, expected 2");
	c.m.dilations = zero, c.m.n_dilations = 2;
	ERR(&f, &c.op, "conv2d: dilations [1, 0] must not contain 0");
	c.m.n_dilations = 0;
	c.m.filter_layout = (Webnn__Ipc__Conv2dFilterLayout)9;
	ERR(&f, &c.op, "conv2d: filterLayout value 9 is not valid");
}

TEST(schema_conv_transpose2d)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 1, 1, 3, 3), w = T(&f, WNN_F32, 1, 2, 3, 3), o = SLOT(&f);
	uint32_t strides[] = { 3, 2 }, osz[] = { 10, 8 }, opad[] = { 1, 1 };
	Webnn__Ipc__ConvTranspose2d m = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_CONV_TRANSPOSE2D);
	op.conv_transpose2d = &m;
	m.input = x, m.filter = w, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 5, 5);
	m.strides = strides, m.n_strides = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 9, 7);
	m.output_padding = opad, m.n_output_padding = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 10, 8);
	m.n_output_padding = 0;
	m.output_sizes = osz, m.n_output_sizes = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 10, 8);
	osz[0] = 12;
	ERR(&f, &op, "convTranspose2d: outputSizes item 0 is 12, expected at least 9 and less than 12");
	m.n_output_sizes = 0;
	opad[1] = 2;
	m.n_output_padding = 2;
	ERR(&f, &op, "convTranspose2d: outputPadding [1, 2] must be smaller than strides [3, 2]");
	m.n_output_padding = 0;
	m.groups = 2;
	/* The spec does not require groups to divide the input channels of convTranspose2d; the
	 * resolver does (a group of no input channel has no meaning), so this graph fails at build
	 * time in the daemon rather than at validation. */
	f.infer_only = true;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 4, 9, 7);
	f.infer_only = false;
	uint32_t w2 = T(&f, WNN_F32, 2, 2, 3, 3);
	m.filter = w2;
	ERR(&f, &op, "convTranspose2d: filter input channels 2 do not match input channels 1");
}

/* ---- pooling */

TEST(schema_pool2d)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 1, 2, 5, 5), xi = T(&f, WNN_I8, 1, 5, 5, 2), o = SLOT(&f);
	uint32_t win[] = { 3, 3 }, pad[] = { 1, 0, 0, 1 }, strides[] = { 2, 2 }, osz[] = { 3, 3 };
	Webnn__Ipc__Pool2d m = WEBNN__IPC__POOL2D__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_AVERAGE_POOL2D);
	op.pool2d = &m;
	m.input = x, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 1, 1); /* global pooling */
	m.window_dimensions = win, m.n_window_dimensions = 2;
	m.padding = pad, m.n_padding = 4;
	m.strides = strides, m.n_strides = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 2, 2); /* floor(1.5) + 1 */
	m.output_shape_rounding = WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 3, 3);
	m.output_sizes = osz, m.n_output_sizes = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 1, 2, 3, 3);
	osz[1] = 2;
	ERR(&f, &op, "averagePool2d: outputSizes [3, 2] match neither the floor sizes [2, 2] nor the "
		     "ceil sizes [3, 3]");
	m.n_output_sizes = 0;
	op.op = wnn_ops[WNN_OP_MAX_POOL2D].id;
	m.input = xi, m.layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	OK_OUT(&f, &op, 0, WNN_I8, 1, 3, 3, 2);
	op.op = wnn_ops[WNN_OP_L2_POOL2D].id;
	ERR(&f, &op, "l2Pool2d: input data type int8 is not allowed, expected float32, float16");
	op.op = wnn_ops[WNN_OP_MAX_POOL2D].id;
	win[0] = 0;
	ERR(&f, &op, "maxPool2d: windowDimensions [0, 3] must not contain 0");
	win[0] = 9;
	ERR(&f, &op, "maxPool2d: output height is 0, expected a valid dimension"); /* ceil(-1.5)+1 */
	win[0] = 3;
	m.n_padding = 2;
	ERR(&f, &op, "maxPool2d: padding has 2 values, expected 4");
	uint32_t x3 = T(&f, WNN_F32, 2, 5, 5);
	m.input = x3, m.n_padding = 4;
	ERR(&f, &op, "maxPool2d: input rank is 3, expected 4");
}

/* ---- gemm, matmul */

TEST(schema_gemm)
{
	struct fx f = { 0 };
	uint32_t a = T(&f, WNN_F32, 2, 3), b = T(&f, WNN_F32, 3, 4), bt = T(&f, WNN_F32, 4, 3);
	uint32_t c1 = T(&f, WNN_F32, 4), c2 = T(&f, WNN_F32, 2, 1), cbad = T(&f, WNN_F32, 3);
	uint32_t ch = T(&f, WNN_F16, 4), a3 = T(&f, WNN_F32, 1, 2, 3), o = SLOT(&f);
	Webnn__Ipc__Gemm m = WEBNN__IPC__GEMM__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_GEMM);
	op.gemm = &m;
	m.a = a, m.b = b, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 4);
	m.b = bt, m.b_transpose = true;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 4);
	m.a_transpose = true;
	ERR(&f, &op, "gemm: a shape [2, 3] (transposed) and b shape [4, 3] (transposed) are "
		     "incompatible: 2 columns vs 3 rows");
	m.a_transpose = false;
	m.has_c = true, m.c = c1;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 4);
	m.c = c2;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 4);
	m.c = cbad;
	ERR(&f, &op, "gemm: c shape [3] is not unidirectionally broadcastable to [2, 4]");
	m.c = ch;
	ERR(&f, &op, "gemm: c data type float16 does not match a data type float32");
	m.has_c = false, m.a = a3;
	ERR(&f, &op, "gemm: a rank is 3, expected 2");
}

TEST(schema_matmul)
{
	struct fx f = { 0 };
	uint32_t a = T(&f, WNN_F32, 2, 1, 3, 4), b = T(&f, WNN_F32, 5, 4, 2);
	uint32_t b2 = T(&f, WNN_F32, 4, 2), r1 = T(&f, WNN_F32, 4), bad = T(&f, WNN_F32, 3, 4, 2);
	uint32_t k5 = T(&f, WNN_F32, 5, 2), o = SLOT(&f);
	Webnn__Ipc__Matmul m = WEBNN__IPC__MATMUL__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_MATMUL);
	op.matmul = &m;
	m.a = a, m.b = b, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 5, 3, 2);
	m.b = b2;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 1, 3, 2);
	m.b = bad;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 3, 2);
	uint32_t a2 = T(&f, WNN_F32, 2, 2, 3, 4), b3 = T(&f, WNN_F32, 3, 4, 2);
	m.a = a2, m.b = b3;
	ERR(&f, &op, "matmul: batch shapes [2, 2] and [3] are not broadcastable");
	m.a = a, m.b = r1;
	ERR(&f, &op, "matmul: b rank is 1, expected at least 2");
	m.b = k5;
	ERR(&f, &op, "matmul: a shape [2, 1, 3, 4] and b shape [5, 2] are incompatible: 4 columns "
		     "vs 5 rows");
}

/* ---- batchNormalization and the other normalizations */

TEST(schema_batch_normalization)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2, 3, 4, 4), mean = T(&f, WNN_F32, 3), var = T(&f, WNN_F32, 3);
	uint32_t m4 = T(&f, WNN_F32, 4), sh = T(&f, WNN_F16, 3), o = SLOT(&f);
	Webnn__Ipc__BatchNormalization m = WEBNN__IPC__BATCH_NORMALIZATION__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_BATCH_NORMALIZATION);
	op.batch_normalization = &m;
	m.input = x, m.mean = mean, m.variance = var, m.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4, 4);
	m.has_scale = m.has_bias = true, m.scale = mean, m.bias = var;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4, 4);
	m.mean = m4;
	ERR(&f, &op, "batchNormalization: mean shape [4] is not [3] (input.shape[axis])");
	m.axis = 3;
	m.scale = m.bias = m4;
	ERR(&f, &op, "batchNormalization: variance shape [3] is not [4] (input.shape[axis])");
	m.variance = m4;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4, 4);
	m.bias = sh;
	ERR(&f, &op, "batchNormalization: bias data type float16 does not match input data type "
		     "float32");
	m.axis = 4;
	ERR(&f, &op, "batchNormalization: axis 4 is out of range for rank 4");
	uint32_t xi = T(&f, WNN_I32, 2, 3);
	m.input = xi, m.axis = 1;
	ERR(&f, &op, "batchNormalization: input data type int32 is not allowed");
}

TEST(schema_instance_layer_normalization)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F16, 1, 2, 3, 5), s2 = T(&f, WNN_F16, 2), s5 = T(&f, WNN_F16, 5);
	uint32_t s35 = T(&f, WNN_F16, 3, 5), o = SLOT(&f);
	Webnn__Ipc__InstanceNormalization in = WEBNN__IPC__INSTANCE_NORMALIZATION__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_INSTANCE_NORMALIZATION);
	op.instance_normalization = &in;
	in.input = x, in.output = o, in.has_scale = true, in.scale = s2;
	OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3, 5);
	in.layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	ERR(&f, &op, "instanceNormalization: scale shape [2] is not [5] (input channels)");
	in.scale = s5;
	OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3, 5);

	Webnn__Ipc__LayerNormalization ln = WEBNN__IPC__LAYER_NORMALIZATION__INIT;
	uint32_t axes[] = { 2, 3 };
	op = mkop(WNN_OP_LAYER_NORMALIZATION);
	op.layer_normalization = &ln;
	ln.input = x, ln.output = o;
	OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3, 5);
	ln.has_scale = true, ln.scale = s35;
	ERR(&f, &op, "layerNormalization: scale rank is 2, expected 3 (the number of axes)");
	ln.has_axes = true, ln.axes = axes, ln.n_axes = 2;
	OK_OUT(&f, &op, 0, WNN_F16, 1, 2, 3, 5);
	axes[1] = 2;
	ERR(&f, &op, "layerNormalization: axes contain the axis 2 more than once");
	axes[0] = 3, axes[1] = 2;
	ERR(&f, &op, "layerNormalization: scale shape [3, 5] does not match the input dimensions");
}

/* ---- remaining families */

TEST(schema_cast_argminmax_cumsum)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2, 3, 4), o = SLOT(&f);
	Webnn__Ipc__Cast cm = WEBNN__IPC__CAST__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_CAST);
	op.cast = &cm;
	cm.input = x, cm.output = o, cm.data_type = WEBNN__IPC__DATA_TYPE__INT64;
	OK_OUT(&f, &op, 0, WNN_I64, 2, 3, 4);
	cm.data_type = (Webnn__Ipc__DataType)42;
	ERR(&f, &op, "cast: target data type 42 is not a valid data type");

	Webnn__Ipc__ArgMinMax am = WEBNN__IPC__ARG_MIN_MAX__INIT;
	op = mkop(WNN_OP_ARG_MAX);
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
	op = mkop(WNN_OP_CUMULATIVE_SUM);
	op.cumulative_sum = &cs;
	cs.input = x, cs.output = o, cs.axis = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4);
	cs.axis = 5;
	ERR(&f, &op, "cumulativeSum: axis 5 is out of range for rank 3");
	uint32_t i8 = T(&f, WNN_I8, 2);
	cs.input = i8, cs.axis = 0;
	ERR(&f, &op, "cumulativeSum: input data type int8 is not allowed");
}

TEST(schema_quantize_dequantize)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 4, 6), s = T(&f, WNN_F32, 2, 3), z = T(&f, WNN_U8, 2, 3);
	uint32_t sbad = T(&f, WNN_F32, 3, 3), zbad = T(&f, WNN_U8, 3, 3), q = T(&f, WNN_U8, 4, 6);
	uint32_t s1 = T(&f, WNN_F32, 6), o = SLOT(&f);
	Webnn__Ipc__QuantizeLinear m = WEBNN__IPC__QUANTIZE_LINEAR__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_QUANTIZE_LINEAR);
	op.quantize_linear = &m;
	m.input = x, m.scale = s, m.zero_point = z, m.output = o;
	OK_OUT(&f, &op, 0, WNN_U8, 4, 6);
	m.scale = sbad, m.zero_point = zbad;
	ERR(&f, &op, "quantizeLinear: scale shape [3, 3] is not blockwise broadcastable to input shape "
		     "[4, 6]");
	m.scale = s1;
	ERR(&f, &op, "quantizeLinear: scale rank 1 and zeroPoint rank 2 must equal the input rank 2");
	op = mkop(WNN_OP_DEQUANTIZE_LINEAR);
	op.quantize_linear = &m;
	m.input = q, m.scale = s, m.zero_point = z;
	OK_OUT(&f, &op, 0, WNN_F32, 4, 6);
	m.zero_point = x;
	ERR(&f, &op, "dequantizeLinear: zeroPoint data type float32 is not allowed");
	m.input = x;
	ERR(&f, &op, "dequantizeLinear: input data type float32 is not allowed");
}

TEST(schema_expand_pad_tile_slice)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 3, 1), o = SLOT(&f);
	uint32_t ns[] = { 2, 3, 4 };
	Webnn__Ipc__Expand em = WEBNN__IPC__EXPAND__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_EXPAND);
	op.expand = &em;
	em.input = x, em.output = o, em.new_shape = ns, em.n_new_shape = 3;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4);
	ns[1] = 2;
	ERR(&f, &op, "expand: input shape [3, 1] is not broadcastable to newShape [2, 2, 4]");

	uint32_t b[] = { 1, 2 }, e[] = { 0, 1 };
	Webnn__Ipc__Pad pm = WEBNN__IPC__PAD__INIT;
	op = mkop(WNN_OP_PAD);
	op.pad = &pm;
	pm.input = x, pm.output = o, pm.beginning_padding = b, pm.n_beginning_padding = 2;
	pm.ending_padding = e, pm.n_ending_padding = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 4, 4);
	pm.mode = WEBNN__IPC__PADDING_MODE__PAD_REFLECTION;
	ERR(&f, &op, "pad: reflection padding 2+1 along axis 1 must be smaller than the input "
		     "dimension 1");
	pm.n_ending_padding = 1;
	ERR(&f, &op, "pad: beginningPadding and endingPadding have 2 and 1 values, expected 2");

	uint32_t reps[] = { 2, 3 };
	Webnn__Ipc__Tile tm = WEBNN__IPC__TILE__INIT;
	op = mkop(WNN_OP_TILE);
	op.tile = &tm;
	tm.input = x, tm.output = o, tm.repetitions = reps, tm.n_repetitions = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 6, 3);
	reps[1] = 0;
	ERR(&f, &op, "tile: repetitions item 1 is 0");

	uint32_t y = T(&f, WNN_I32, 5, 7);
	uint32_t starts[] = { 1, 2 }, sizes[] = { 4, 5 }, strides[] = { 2, 3 };
	Webnn__Ipc__Slice sm = WEBNN__IPC__SLICE__INIT;
	op = mkop(WNN_OP_SLICE);
	op.slice = &sm;
	sm.input = y, sm.output = o, sm.starts = starts, sm.n_starts = 2, sm.sizes = sizes;
	sm.n_sizes = 2;
	OK_OUT(&f, &op, 0, WNN_I32, 4, 5);
	sm.strides = strides, sm.n_strides = 2;
	OK_OUT(&f, &op, 0, WNN_I32, 2, 2);
	sizes[1] = 6;
	ERR(&f, &op, "slice: starts 2 + sizes 6 along axis 1 exceed the input dimension 7");
	sizes[1] = 0;
	ERR(&f, &op, "slice: sizes item 1 is 0");
}

TEST(schema_gather_scatter)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 4, 3), idx = T(&f, WNN_U32, 2, 2), fidx = T(&f, WNN_F32, 2);
	uint32_t o = SLOT(&f);
	Webnn__Ipc__Gather gm = WEBNN__IPC__GATHER__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_GATHER);
	op.gather = &gm;
	gm.input = x, gm.indices = idx, gm.output = o, gm.axis = 1;
	OK_OUT(&f, &op, 0, WNN_F32, 4, 2, 2);
	gm.indices = fidx;
	ERR(&f, &op, "gather: indices data type float32 is not allowed, expected int32, uint32, int64");
	gm.indices = idx, gm.axis = 2;
	ERR(&f, &op, "gather: axis 2 is out of range for rank 2");
	op.op = wnn_ops[WNN_OP_GATHER_ELEMENTS].id;
	gm.axis = 0;
	ERR(&f, &op, "gatherElements: indices shape [2, 2] must equal the input shape except along "
		     "axis 0");
	uint32_t ie = T(&f, WNN_I64, 7, 3);
	gm.indices = ie;
	OK_OUT(&f, &op, 0, WNN_F32, 7, 3);
	op.op = wnn_ops[WNN_OP_GATHER_ND].id;
	ERR(&f, &op, "gatherND: indices last dimension 3 exceeds the input rank 2");
	uint32_t ind = T(&f, WNN_I32, 5, 1);
	gm.indices = ind;
	OK_OUT(&f, &op, 0, WNN_F32, 5, 3);

	Webnn__Ipc__Scatter sm = WEBNN__IPC__SCATTER__INIT;
	uint32_t upd = T(&f, WNN_F32, 5, 3), updh = T(&f, WNN_F16, 5, 3), upd2 = T(&f, WNN_F32, 5);
	op = mkop(WNN_OP_SCATTER_ND);
	op.scatter = &sm;
	sm.input = x, sm.indices = ind, sm.updates = upd, sm.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 4, 3);
	sm.updates = upd2;
	ERR(&f, &op, "scatterND: updates shape [5] is not [5, 3]");
	sm.updates = updh;
	ERR(&f, &op, "scatterND: updates data type float16 does not match input data type float32");
	op.op = wnn_ops[WNN_OP_SCATTER_ELEMENTS].id;
	uint32_t sidx = T(&f, WNN_I32, 2, 3), supd = T(&f, WNN_F32, 2, 3);
	sm.indices = sidx, sm.updates = supd;
	OK_OUT(&f, &op, 0, WNN_F32, 4, 3);
	sm.updates = upd;
	ERR(&f, &op, "scatterElements: updates shape [5, 3] is not the indices shape [2, 3]");
}

TEST(schema_prelu_where_triangular)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2, 3), s = T(&f, WNN_F32, 3), si = T(&f, WNN_I32, 3);
	uint32_t c = T(&f, WNN_U8, 4, 1, 1), o = SLOT(&f);
	Webnn__Ipc__Prelu pm = WEBNN__IPC__PRELU__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_PRELU);
	op.prelu = &pm;
	pm.input = x, pm.slope = s, pm.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3);
	pm.slope = si;
	ERR(&f, &op, "prelu: slope data type int32 does not match input data type float32");

	Webnn__Ipc__Where wm = WEBNN__IPC__WHERE__INIT;
	op = mkop(WNN_OP_WHERE);
	op.where = &wm;
	wm.condition = c, wm.true_value = x, wm.false_value = s, wm.output = o;
	OK_OUT(&f, &op, 0, WNN_F32, 4, 2, 3);
	wm.condition = x;
	ERR(&f, &op, "where: condition data type float32 is not allowed, expected uint8");
	wm.condition = c, wm.false_value = si;
	ERR(&f, &op, "where: falseValue data type int32 does not match trueValue data type float32");

	Webnn__Ipc__Triangular tm = WEBNN__IPC__TRIANGULAR__INIT;
	op = mkop(WNN_OP_TRIANGULAR);
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
	Webnn__Ipc__Operation op = mkop(WNN_OP_REDUCE_SUM);
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
	op = mkop(WNN_OP_REVERSE);
	op.reverse = &vm;
	vm.input = x, vm.output = o, vm.has_axes = true, vm.axes = axes, vm.n_axes = 2;
	axes[1] = 1;
	ERR(&f, &op, "reverse: axes contain the axis 1 more than once");
	vm.n_axes = 1;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4, 5);

	Webnn__Ipc__Resample2d sm = WEBNN__IPC__RESAMPLE2D__INIT;
	float scales[] = { 2.0f, 0.5f };
	uint32_t sizes[] = { 7, 9 }, raxes[] = { 1, 2 };
	op = mkop(WNN_OP_RESAMPLE2D);
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

TEST(schema_split)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 6, 4), o[3] = { SLOT(&f), SLOT(&f), SLOT(&f) };
	uint32_t sizes[] = { 1, 2, 3 };
	Webnn__Ipc__Split m = WEBNN__IPC__SPLIT__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_SPLIT);
	op.split = &m;
	m.input = x, m.outputs = o, m.n_outputs = 3, m.has_count = true, m.count = 3;
	OK_OUT(&f, &op, 2, WNN_F32, 2, 4);
	m.count = 4;
	ERR(&f, &op, "split: input dimension 6 along axis 0 is not divisible by splits 4");
	m.count = 2;
	ERR(&f, &op, "split: operation lists 3 output operands, the operator produces 2");
	m.has_count = false, m.sizes = sizes, m.n_sizes = 3;
	OK_OUT(&f, &op, 2, WNN_F32, 3, 4);
	ASSERT_EQ(f.n_out, 3);
	ASSERT_EQ(f.out[0].dims[0], 1);
	sizes[2] = 4;
	ERR(&f, &op, "split: splits sum to 7, expected 6");
	m.axis = 2;
	ERR(&f, &op, "split: axis 2 is out of range for rank 2");
	/* Too little room for the outputs. */
	m.axis = 0, sizes[2] = 3;
	struct wnn_desc two[2];
	int n = 0;
	wnn_diag_clear(&f.diag);
	ASSERT_EQ(wnn_op_infer(&op, f.d, f.n, two, 2, &n, &f.diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(f.diag.message, "3 outputs do not fit");
}

TEST(schema_recurrent)
{
	struct fx f = { 0 };
	/* steps 2, batch 3, input 4, hidden 5 */
	uint32_t x = T(&f, WNN_F32, 2, 3, 4), w = T(&f, WNN_F32, 2, 15, 4);
	uint32_t rw = T(&f, WNN_F32, 2, 15, 5), b = T(&f, WNN_F32, 2, 15), h0 = T(&f, WNN_F32, 2, 3, 5);
	uint32_t o[3] = { SLOT(&f), SLOT(&f), SLOT(&f) };
	Webnn__Ipc__Gru gm = WEBNN__IPC__GRU__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_GRU);
	op.gru = &gm;
	gm.input = x, gm.weight = w, gm.recurrent_weight = rw, gm.steps = 2, gm.hidden_size = 5;
	gm.direction = WEBNN__IPC__RECURRENT_DIRECTION__BOTH, gm.outputs = o, gm.n_outputs = 1;
	gm.has_bias = gm.has_recurrent_bias = gm.has_initial_hidden_state = true;
	gm.bias = gm.recurrent_bias = b, gm.initial_hidden_state = h0;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 5);
	gm.return_sequence = true, gm.n_outputs = 2;
	OK_OUT(&f, &op, 1, WNN_F32, 2, 2, 3, 5);
	gm.steps = 3;
	ERR(&f, &op, "gru: input.shape[0] is 2, expected steps 3");
	gm.steps = 2, gm.hidden_size = 4;
	ERR(&f, &op, "gru: weight shape [2, 15, 4] is not [2, 12, 4]");
	gm.hidden_size = 5, gm.direction = WEBNN__IPC__RECURRENT_DIRECTION__FORWARD;
	ERR(&f, &op, "gru: weight shape [2, 15, 4] is not [1, 15, 4]");
	gm.direction = WEBNN__IPC__RECURRENT_DIRECTION__BOTH;
	Webnn__Ipc__RecurrentActivation acts[3] = { 0 };
	gm.activations = acts, gm.n_activations = 3;
	ERR(&f, &op, "gru: activations has 3 items, expected 2");

	/* lstm: 4 gates */
	uint32_t lw = T(&f, WNN_F32, 1, 20, 4), lrw = T(&f, WNN_F32, 1, 20, 5);
	uint32_t pw = T(&f, WNN_F32, 1, 15), pbad = T(&f, WNN_F32, 1, 20);
	Webnn__Ipc__Lstm lm = WEBNN__IPC__LSTM__INIT;
	op = mkop(WNN_OP_LSTM);
	op.lstm = &lm;
	lm.input = x, lm.weight = lw, lm.recurrent_weight = lrw, lm.steps = 2, lm.hidden_size = 5;
	lm.outputs = o, lm.n_outputs = 2;
	OK_OUT(&f, &op, 1, WNN_F32, 1, 3, 5);
	lm.has_peephole_weight = true, lm.peephole_weight = pbad;
	ERR(&f, &op, "lstm: peepholeWeight shape [1, 20] is not [1, 15]");
	lm.peephole_weight = pw, lm.return_sequence = true, lm.n_outputs = 3;
	OK_OUT(&f, &op, 2, WNN_F32, 2, 1, 3, 5);
	lm.n_outputs = 2;
	ERR(&f, &op, "lstm: operation lists 2 output operands, the operator produces 3");

	/* cells */
	uint32_t cx = T(&f, WNN_F32, 3, 4), cw = T(&f, WNN_F32, 15, 4), crw = T(&f, WNN_F32, 15, 5);
	uint32_t hs = T(&f, WNN_F32, 3, 5), hbad = T(&f, WNN_F32, 3, 4);
	Webnn__Ipc__GruCell gc = WEBNN__IPC__GRU_CELL__INIT;
	op = mkop(WNN_OP_GRU_CELL);
	op.gru_cell = &gc;
	gc.input = cx, gc.weight = cw, gc.recurrent_weight = crw, gc.hidden_state = hs;
	gc.hidden_size = 5, gc.output = o[0];
	OK_OUT(&f, &op, 0, WNN_F32, 3, 5);
	gc.hidden_state = hbad;
	ERR(&f, &op, "gruCell: hiddenState shape [3, 4] is not [3, 5]");

	uint32_t lcw = T(&f, WNN_F32, 20, 4), lcrw = T(&f, WNN_F32, 20, 5);
	Webnn__Ipc__LstmCell lc = WEBNN__IPC__LSTM_CELL__INIT;
	op = mkop(WNN_OP_LSTM_CELL);
	op.lstm_cell = &lc;
	lc.input = cx, lc.weight = lcw, lc.recurrent_weight = lcrw, lc.hidden_state = hs;
	lc.cell_state = hs, lc.hidden_size = 5, lc.outputs = o, lc.n_outputs = 2;
	OK_OUT(&f, &op, 1, WNN_F32, 3, 5);
	lc.cell_state = hbad;
	ERR(&f, &op, "lstmCell: cellState shape [3, 4] is not [3, 5]");
}

/* ---- operand wiring */

TEST(schema_op_inputs_outputs)
{
	uint32_t ids[16];
	const char *roles[16];
	Webnn__Ipc__Conv2d cm = WEBNN__IPC__CONV2D__INIT;
	Webnn__Ipc__Operation op = mkop(WNN_OP_CONV2D);
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
	op = mkop(WNN_OP_BATCH_NORMALIZATION);
	op.batch_normalization = &bn;
	bn.input = 1, bn.mean = 2, bn.variance = 3, bn.has_bias = true, bn.bias = 9;
	ASSERT_EQ(wnn_op_inputs(&op, ids, roles, 16), 4);
	ASSERT_STREQ(roles[3], "bias");
	ASSERT_EQ(ids[3], 9);

	Webnn__Ipc__Lstm lm = WEBNN__IPC__LSTM__INIT;
	uint32_t outs[] = { 20, 21, 22 };
	op = mkop(WNN_OP_LSTM);
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
	op = mkop(WNN_OP_LOGICAL_NOT);
	op.unary = &un;
	ASSERT_EQ(wnn_op_inputs(&op, ids, roles, 16), 1);
	ASSERT_STREQ(roles[0], "a");
	op = mkop(WNN_OP_GEMM); /* attrs member missing */
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
	ASSERT(types != 0 && (types & ~WNN_DT_ALL) == 0);
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
		ASSERT(info->dtypes != 0 && (info->dtypes & ~WNN_DT_ALL) == 0);
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
	b->op[i] = binary(WNN_OP_ADD, &b->bin[i], x, y, out);
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
	G_ERR(&b, "graph: operation 1 (add) output 0: operand 3 is declared float32 [2, 4] but the "
		  "operator produces float32 [2, 3]");
	g_basic(&b);
	b.desc[2].data_type = WEBNN__IPC__DATA_TYPE__FLOAT16;
	G_ERR(&b, "is declared float16 [2, 3] but the operator produces float32 [2, 3]");
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
	ASSERT_MSG(run(f, op) == WEBNN_STATUS_OK, "infer: %s", f->diag.message);
	ASSERT_MSG(resolve_inferred(f, op, attrs, &diag) == WEBNN_STATUS_OK, "resolve: %s",
		   diag.message);
}

TEST(schema_resolve_applies_defaults)
{
	struct fx f = { 0 };
	union wnn_attrs a;
	uint32_t x = T(&f, WNN_F32, 1, 2, 5, 6), w = T(&f, WNN_F32, 4, 2, 3, 3), o = SLOT(&f);
	struct conv c;
	conv_init(&c, x, w, o);
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
	Webnn__Ipc__Operation pool = mkop(WNN_OP_MAX_POOL2D);
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
		Webnn__Ipc__Operation op = mkop(unary[i]);
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
	Webnn__Ipc__Operation clamp = mkop(WNN_OP_CLAMP);
	clamp.clamp = &cm, cm.input = xi, cm.output = o;
	infer_and_resolve(&f, &clamp, &a);
	ASSERT_EQ(a.clamp.min_i, INT8_MIN);
	ASSERT_EQ(a.clamp.max_i, INT8_MAX);
	cm.input = x;
	infer_and_resolve(&f, &clamp, &a);
	ASSERT(isinf(a.clamp.min) && a.clamp.min < 0 && isinf(a.clamp.max) && a.clamp.max > 0);

	Webnn__Ipc__Transpose tm = WEBNN__IPC__TRANSPOSE__INIT;
	Webnn__Ipc__Operation tr = mkop(WNN_OP_TRANSPOSE);
	tr.transpose = &tm, tm.input = x, tm.output = o;
	infer_and_resolve(&f, &tr, &a);
	for (uint32_t i = 0; i < 4; i++)
		ASSERT_EQ(a.transpose.perm[i], 3 - i);

	Webnn__Ipc__Reduce rm = WEBNN__IPC__REDUCE__INIT;
	Webnn__Ipc__Operation red = mkop(WNN_OP_REDUCE_SUM);
	red.reduce = &rm, rm.input = x, rm.output = o;
	infer_and_resolve(&f, &red, &a);
	ASSERT_EQ(a.reduce.r.red_count, 60);
	ASSERT_EQ(a.reduce.r.kept_count, 1);

	Webnn__Ipc__LayerNormalization lm = WEBNN__IPC__LAYER_NORMALIZATION__INIT;
	Webnn__Ipc__Operation ln = mkop(WNN_OP_LAYER_NORMALIZATION);
	ln.layer_normalization = &lm, lm.input = x, lm.output = o;
	infer_and_resolve(&f, &ln, &a);
	ASSERT_EQ(a.norm.r.red_count, 60);
	ASSERT_EQ(a.norm.r.kept_count, 1); /* axes 1..3 */
	ASSERT(a.norm.epsilon == (double)(float)wnn_ops[WNN_OP_LAYER_NORMALIZATION].defaults.epsilon);

	Webnn__Ipc__Resample2d sm = WEBNN__IPC__RESAMPLE2D__INIT;
	Webnn__Ipc__Operation rs = mkop(WNN_OP_RESAMPLE2D);
	rs.resample2d = &sm, sm.input = x, sm.output = o;
	infer_and_resolve(&f, &rs, &a);
	ASSERT_EQ(a.resample.axes[0], 2);
	ASSERT_EQ(a.resample.axes[1], 3);
	ASSERT(a.resample.scale[0] == 1.0 && a.resample.scale[1] == 1.0);
}

/* The protocol's [default = ...] values of scalar options are the op table's (ops.def DEFAULTS
 * is the one place they are decided; the .proto repeats them for messages that omit them). */
TEST(schema_proto_defaults_match_the_op_table)
{
	Webnn__Ipc__Gemm g = WEBNN__IPC__GEMM__INIT;
	ASSERT(g.alpha == wnn_ops[WNN_OP_GEMM].defaults.alpha);
	ASSERT(g.beta == wnn_ops[WNN_OP_GEMM].defaults.beta);
	Webnn__Ipc__BatchNormalization b = WEBNN__IPC__BATCH_NORMALIZATION__INIT;
	ASSERT(b.epsilon == wnn_ops[WNN_OP_BATCH_NORMALIZATION].defaults.epsilon);
	Webnn__Ipc__InstanceNormalization in = WEBNN__IPC__INSTANCE_NORMALIZATION__INIT;
	ASSERT(in.epsilon == wnn_ops[WNN_OP_INSTANCE_NORMALIZATION].defaults.epsilon);
	Webnn__Ipc__LayerNormalization l = WEBNN__IPC__LAYER_NORMALIZATION__INIT;
	ASSERT(l.epsilon == wnn_ops[WNN_OP_LAYER_NORMALIZATION].defaults.epsilon);
	Webnn__Ipc__Conv2d c = WEBNN__IPC__CONV2D__INIT;
	Webnn__Ipc__ConvTranspose2d ct = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
	ASSERT_EQ(c.groups, 1);
	ASSERT_EQ(ct.groups, 1);
}

/* Resolving against an output shape other than the inferred one fails: the resolver computes
 * the shape with the same rule (one sample per family whose shape is not the input's). */
static void expect_resolve_rejects_other_shape(struct fx *f, const Webnn__Ipc__Operation *op,
					       int line)
{
	union wnn_attrs a;
	struct wnn_diag diag;
	infer_and_resolve(f, op, &a);
	for (uint32_t d = 0; d < f->out[0].rank; d++) {
		f->out[0].dims[d]++;
		if (resolve_inferred(f, op, &a, &diag) == WEBNN_STATUS_OK)
			FAIL("line %d: output dimension %u off by one still resolves", line, d);
		f->out[0].dims[d]--;
	}
}

TEST(schema_infer_and_resolve_agree_on_output_shapes)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 1, 2, 7, 6), w = T(&f, WNN_F32, 4, 2, 3, 3), o = SLOT(&f);
	uint32_t strides[] = { 2, 3 }, pad[] = { 1, 2, 0, 1 }, dil[] = { 2, 1 };
	struct conv c;
	conv_init(&c, x, w, o);
	c.m.strides = strides, c.m.n_strides = 2, c.m.padding = pad, c.m.n_padding = 4;
	c.m.dilations = dil, c.m.n_dilations = 2;
	expect_resolve_rejects_other_shape(&f, &c.op, __LINE__);

	uint32_t tw = T(&f, WNN_F32, 2, 3, 3, 3);
	Webnn__Ipc__ConvTranspose2d tm = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
	Webnn__Ipc__Operation ct = mkop(WNN_OP_CONV_TRANSPOSE2D);
	ct.conv_transpose2d = &tm, tm.input = x, tm.filter = tw, tm.output = o;
	tm.strides = strides, tm.n_strides = 2, tm.padding = pad, tm.n_padding = 4;
	expect_resolve_rejects_other_shape(&f, &ct, __LINE__);

	uint32_t win[] = { 3, 2 };
	Webnn__Ipc__Pool2d pm = WEBNN__IPC__POOL2D__INIT;
	Webnn__Ipc__Operation pool = mkop(WNN_OP_AVERAGE_POOL2D);
	pool.pool2d = &pm, pm.input = x, pm.output = o;
	pm.window_dimensions = win, pm.n_window_dimensions = 2, pm.strides = strides;
	pm.n_strides = 2, pm.output_shape_rounding = WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
	expect_resolve_rejects_other_shape(&f, &pool, __LINE__);

	float scales[] = { 1.5f, 0.5f };
	Webnn__Ipc__Resample2d sm = WEBNN__IPC__RESAMPLE2D__INIT;
	Webnn__Ipc__Operation rs = mkop(WNN_OP_RESAMPLE2D);
	rs.resample2d = &sm, sm.input = x, sm.output = o, sm.scales = scales, sm.n_scales = 2;
	expect_resolve_rejects_other_shape(&f, &rs, __LINE__);

	uint32_t idx = T(&f, WNN_I32, 2, 3);
	Webnn__Ipc__Gather gm = WEBNN__IPC__GATHER__INIT;
	Webnn__Ipc__Operation g = mkop(WNN_OP_GATHER);
	g.gather = &gm, gm.input = x, gm.indices = idx, gm.output = o, gm.axis = 2;
	expect_resolve_rejects_other_shape(&f, &g, __LINE__);
	uint32_t nd = T(&f, WNN_I32, 5, 2);
	g = mkop(WNN_OP_GATHER_ND);
	g.gather = &gm, gm.indices = nd;
	expect_resolve_rejects_other_shape(&f, &g, __LINE__);

	uint32_t axes[] = { 1, 3 };
	Webnn__Ipc__Reduce rm = WEBNN__IPC__REDUCE__INIT;
	Webnn__Ipc__Operation red = mkop(WNN_OP_REDUCE_MEAN);
	red.reduce = &rm, rm.input = x, rm.output = o, rm.axes = axes, rm.n_axes = 2;
	rm.has_axes = true, rm.keep_dimensions = true;
	expect_resolve_rejects_other_shape(&f, &red, __LINE__);

	uint32_t perm[] = { 2, 0, 3, 1 };
	Webnn__Ipc__Transpose trm = WEBNN__IPC__TRANSPOSE__INIT;
	Webnn__Ipc__Operation tr = mkop(WNN_OP_TRANSPOSE);
	tr.transpose = &trm, trm.input = x, trm.output = o;
	trm.permutation = perm, trm.n_permutation = 4, trm.has_permutation = true;
	expect_resolve_rejects_other_shape(&f, &tr, __LINE__);

	uint32_t ma = T(&f, WNN_F32, 3, 1, 4, 5), mb = T(&f, WNN_F32, 2, 5, 6);
	Webnn__Ipc__Matmul mm = WEBNN__IPC__MATMUL__INIT;
	Webnn__Ipc__Operation mat = mkop(WNN_OP_MATMUL);
	mat.matmul = &mm, mm.a = ma, mm.b = mb, mm.output = o;
	expect_resolve_rejects_other_shape(&f, &mat, __LINE__);

	uint32_t ga = T(&f, WNN_F32, 5, 4), gb = T(&f, WNN_F32, 6, 5);
	Webnn__Ipc__Gemm gem = WEBNN__IPC__GEMM__INIT;
	Webnn__Ipc__Operation gemm = mkop(WNN_OP_GEMM);
	gemm.gemm = &gem, gem.a = ga, gem.b = gb, gem.output = o;
	gem.a_transpose = true, gem.b_transpose = true;
	expect_resolve_rejects_other_shape(&f, &gemm, __LINE__);

	uint32_t bb = T(&f, WNN_F32, 2, 1, 6);
	Webnn__Ipc__ElementwiseBinary bm;
	Webnn__Ipc__Operation add = binary(WNN_OP_ADD, &bm, x, bb, o);
	expect_resolve_rejects_other_shape(&f, &add, __LINE__);

	Webnn__Ipc__ArgMinMax am = WEBNN__IPC__ARG_MIN_MAX__INIT;
	Webnn__Ipc__Operation arg = mkop(WNN_OP_ARG_MAX);
	arg.arg_min_max = &am, am.input = x, am.output = o, am.axis = 2;
	am.output_data_type = WEBNN__IPC__DATA_TYPE__INT64, am.keep_dimensions = true;
	expect_resolve_rejects_other_shape(&f, &arg, __LINE__);

	uint32_t starts[] = { 0, 1, 2, 1 }, sizes[] = { 1, 1, 5, 5 }, steps[] = { 1, 1, 2, 3 };
	Webnn__Ipc__Slice slm = WEBNN__IPC__SLICE__INIT;
	Webnn__Ipc__Operation sl = mkop(WNN_OP_SLICE);
	sl.slice = &slm, slm.input = x, slm.output = o;
	slm.starts = starts, slm.n_starts = 4, slm.sizes = sizes, slm.n_sizes = 4;
	slm.strides = steps, slm.n_strides = 4;
	expect_resolve_rejects_other_shape(&f, &sl, __LINE__);

	uint32_t begin[] = { 0, 1, 2, 0 }, end[] = { 1, 0, 0, 3 };
	Webnn__Ipc__Pad padm = WEBNN__IPC__PAD__INIT;
	Webnn__Ipc__Operation pd = mkop(WNN_OP_PAD);
	pd.pad = &padm, padm.input = x, padm.output = o;
	padm.beginning_padding = begin, padm.n_beginning_padding = 4;
	padm.ending_padding = end, padm.n_ending_padding = 4;
	expect_resolve_rejects_other_shape(&f, &pd, __LINE__);

	uint32_t reps[] = { 2, 1, 3, 1 };
	Webnn__Ipc__Tile tlm = WEBNN__IPC__TILE__INIT;
	Webnn__Ipc__Operation tl = mkop(WNN_OP_TILE);
	tl.tile = &tlm, tlm.input = x, tlm.output = o, tlm.repetitions = reps;
	tlm.n_repetitions = 4;
	expect_resolve_rejects_other_shape(&f, &tl, __LINE__);

	uint32_t parts[] = { 2, 3, 2 }, outs[] = { o, SLOT(&f), SLOT(&f) };
	Webnn__Ipc__Split spm = WEBNN__IPC__SPLIT__INIT;
	Webnn__Ipc__Operation sp = mkop(WNN_OP_SPLIT);
	sp.split = &spm, spm.input = x, spm.axis = 2, spm.sizes = parts, spm.n_sizes = 3;
	spm.outputs = outs, spm.n_outputs = 3;
	expect_resolve_rejects_other_shape(&f, &sp, __LINE__);
}
