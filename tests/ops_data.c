/* Tests of the data movement family (concat, expand, pad, reshape, reverse, slice, split, tile, transpose, triangular): hand-computed vectors through libwebnn, validation, the reference backend's kernels, the OpenCL backend against the reference. */
#include "daemon/backend/opencl/ocl.h"
#include "tests/ocltest.h"
#include "tests/opvectors.h"
#include "tests/reftest.h"
#include "tests/opfixture.h"
#include "tests/test.h"

/* ==== hand-computed vectors through libwebnn on both backends (tests/opvectors.h) */

static enum webnn_status concat_axis1(struct webnn_builder *b, struct webnn_operand *const *in,
				      struct webnn_operand **out)
{
	return webnn_builder_concat(b, in, 2, 1, out);
}

static enum webnn_status concat_axis0_three(struct webnn_builder *b,
					    struct webnn_operand *const *in,
					    struct webnn_operand **out)
{
	return webnn_builder_concat(b, in, 3, 0, out);
}

static enum webnn_status expand_2x3(struct webnn_builder *b, struct webnn_operand *const *in,
				    struct webnn_operand **out)
{
	static const uint32_t shape[] = { 2, 3 };
	return webnn_builder_expand(b, in[0], shape, 2, out);
}

static const uint32_t pad_begin[] = { 1, 0 }, pad_end[] = { 0, 1 };

static enum webnn_status pad_default(struct webnn_builder *b, struct webnn_operand *const *in,
				     struct webnn_operand **out)
{
	return webnn_builder_pad(b, in[0], pad_begin, 2, pad_end, 2, NULL, out);
}

static enum webnn_status pad_value(struct webnn_builder *b, struct webnn_operand *const *in,
				   struct webnn_operand **out)
{
	struct webnn_pad_options o = WEBNN_PAD_OPTIONS_INIT;
	o.value = 9;
	return webnn_builder_pad(b, in[0], pad_begin, 2, pad_end, 2, &o, out);
}

/* MLNumber options are cast to the operand type: round half to even for integers */
static enum webnn_status pad_value_half(struct webnn_builder *b, struct webnn_operand *const *in,
					struct webnn_operand **out)
{
	struct webnn_pad_options o = WEBNN_PAD_OPTIONS_INIT;
	o.value = 2.5;
	return webnn_builder_pad(b, in[0], pad_begin, 2, pad_end, 2, &o, out);
}

static enum webnn_status pad_edge(struct webnn_builder *b, struct webnn_operand *const *in,
				  struct webnn_operand **out)
{
	static const uint32_t begin[] = { 0, 1 }, end[] = { 0, 1 };
	struct webnn_pad_options o = WEBNN_PAD_OPTIONS_INIT;
	o.mode = WEBNN_PAD_EDGE;
	return webnn_builder_pad(b, in[0], begin, 2, end, 2, &o, out);
}

static enum webnn_status pad_reflection(struct webnn_builder *b, struct webnn_operand *const *in,
					struct webnn_operand **out)
{
	static const uint32_t begin[] = { 2 }, end[] = { 1 };
	struct webnn_pad_options o = WEBNN_PAD_OPTIONS_INIT;
	o.mode = WEBNN_PAD_REFLECTION;
	return webnn_builder_pad(b, in[0], begin, 1, end, 1, &o, out);
}

static enum webnn_status reshape_3x2(struct webnn_builder *b, struct webnn_operand *const *in,
				     struct webnn_operand **out)
{
	static const uint32_t shape[] = { 3, 2 };
	return webnn_builder_reshape(b, in[0], shape, 2, out);
}

static enum webnn_status reverse_default(struct webnn_builder *b, struct webnn_operand *const *in,
					 struct webnn_operand **out)
{
	return webnn_builder_reverse(b, in[0], NULL, out);
}

static enum webnn_status reverse_axis1(struct webnn_builder *b, struct webnn_operand *const *in,
				       struct webnn_operand **out)
{
	static const uint32_t axes[] = { 1 };
	struct webnn_reverse_options o = WEBNN_REVERSE_OPTIONS_INIT;
	o.axes = axes;
	o.n_axes = 1;
	return webnn_builder_reverse(b, in[0], &o, out);
}

static enum webnn_status slice_window(struct webnn_builder *b, struct webnn_operand *const *in,
				      struct webnn_operand **out)
{
	static const uint32_t starts[] = { 1, 1 }, sizes[] = { 2, 2 };
	return webnn_builder_slice(b, in[0], starts, 2, sizes, 2, NULL, out);
}

static enum webnn_status slice_strided(struct webnn_builder *b, struct webnn_operand *const *in,
				       struct webnn_operand **out)
{
	static const uint32_t starts[] = { 0, 0 }, sizes[] = { 3, 4 }, strides[] = { 2, 2 };
	struct webnn_slice_options o = WEBNN_SLICE_OPTIONS_INIT;
	o.strides = strides;
	o.n_strides = 2;
	return webnn_builder_slice(b, in[0], starts, 2, sizes, 2, &o, out);
}

static enum webnn_status split_three(struct webnn_builder *b, struct webnn_operand *const *in,
				     struct webnn_operand **out)
{
	size_t n = 0;
	return webnn_builder_split(b, in[0], 3, NULL, out, OV_MAX_OUT, &n);
}

static enum webnn_status split_sizes_axis1(struct webnn_builder *b,
					   struct webnn_operand *const *in,
					   struct webnn_operand **out)
{
	static const uint32_t sizes[] = { 1, 2 };
	struct webnn_split_options o = WEBNN_SPLIT_OPTIONS_INIT;
	o.axis = 1;
	size_t n = 0;
	return webnn_builder_split_sizes(b, in[0], sizes, 2, &o, out, OV_MAX_OUT, &n);
}

static enum webnn_status tile_1x2(struct webnn_builder *b, struct webnn_operand *const *in,
				  struct webnn_operand **out)
{
	static const uint32_t reps[] = { 2, 3 };
	return webnn_builder_tile(b, in[0], reps, 2, out);
}

static enum webnn_status transpose_default(struct webnn_builder *b,
					   struct webnn_operand *const *in,
					   struct webnn_operand **out)
{
	return webnn_builder_transpose(b, in[0], NULL, 2, out);
}

static enum webnn_status transpose_102(struct webnn_builder *b, struct webnn_operand *const *in,
				       struct webnn_operand **out)
{
	static const uint32_t perm[] = { 1, 0, 2 };
	return webnn_builder_transpose(b, in[0], perm, 3, out);
}

static enum webnn_status triangular_default(struct webnn_builder *b,
					    struct webnn_operand *const *in,
					    struct webnn_operand **out)
{
	return webnn_builder_triangular(b, in[0], NULL, out);
}

#define TRIANGULAR_BUILD(fn_, upper_, diagonal_)                                               \
	static enum webnn_status fn_(struct webnn_builder *b, struct webnn_operand *const *in, \
				     struct webnn_operand **out)                               \
	{                                                                                      \
		struct webnn_triangular_options o = WEBNN_TRIANGULAR_OPTIONS_INIT;             \
		o.upper = upper_;                                                              \
		o.diagonal = diagonal_;                                                        \
		return webnn_builder_triangular(b, in[0], &o, out);                            \
	}
TRIANGULAR_BUILD(triangular_lower_minus1, false, -1)
TRIANGULAR_BUILD(triangular_upper_plus1, true, 1)

#define M23(type_) OV_IN(type_, 2, OV_SHAPE(2, 3), 1, 2, 3, 4, 5, 6)
#define M22(type_, ...) OV_IN(type_, 2, OV_SHAPE(2, 2), __VA_ARGS__)
#define M33(type_, ...) OV_IN(type_, 2, OV_SHAPE(3, 3), __VA_ARGS__)
#define M34 OV_IN(WEBNN_INT32, 2, OV_SHAPE(3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)

static const struct op_vector data_vectors[] = {
	{ WNN_OP_CONCAT, "float32 [2,1] ++ [2,2] along axis 1", .build = concat_axis1,
	  .in = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 1), 1, 2), M22(WEBNN_FLOAT32, 3, 4, 5, 6) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 1, 3, 4, 2, 5, 6) } },
	{ WNN_OP_CONCAT, "uint8 three inputs along axis 0", .build = concat_axis0_three,
	  .in = { OV_U8(1, 7), OV_U8(2, 8, 9), OV_U8(1, 255) },
	  .want = { OV_U8(4, 7, 8, 9, 255) } },
	{ WNN_OP_EXPAND, "float32 [3] to [2,3]", .build = expand_2x3,
	  .in = { OV_F32(3, 1, 2, 3) }, .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 1, 2, 3,
			  1, 2, 3) } },
	{ WNN_OP_EXPAND, "int64 [2,1] to [2,3]", .build = expand_2x3,
	  .in = { OV_IN(WEBNN_INT64, 2, OV_SHAPE(2, 1), -1, 1099511627776) },
	  .want = { OV_IN(WEBNN_INT64, 2, OV_SHAPE(2, 3), -1, -1, -1, 1099511627776,
			  1099511627776, 1099511627776) } },
	{ WNN_OP_PAD, "float32 constant mode, default value 0", .build = pad_default,
	  .in = { M22(WEBNN_FLOAT32, 1, 2, 3, 4) },
	  .want = { M33(WEBNN_FLOAT32, 0, 0, 0, 1, 2, 0, 3, 4, 0) } },
	{ WNN_OP_PAD, "int32 constant mode, value 9", .build = pad_value,
	  .in = { M22(WEBNN_INT32, 1, 2, 3, 4) },
	  .want = { M33(WEBNN_INT32, 9, 9, 9, 1, 2, 9, 3, 4, 9) } },
	{ WNN_OP_PAD, "int32 constant mode, value 2.5 cast to 2", .build = pad_value_half,
	  .in = { M22(WEBNN_INT32, 1, 2, 3, 4) },
	  .want = { M33(WEBNN_INT32, 2, 2, 2, 1, 2, 2, 3, 4, 2) } },
	{ WNN_OP_PAD, "float32 edge mode", .build = pad_edge,
	  .in = { M22(WEBNN_FLOAT32, 1, 2, 3, 4) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 4), 1, 1, 2, 2, 3, 3, 4, 4) } },
	{ WNN_OP_PAD, "float32 reflection mode", .build = pad_reflection,
	  .in = { OV_F32(3, 1, 2, 3) }, .want = { OV_F32(6, 3, 2, 1, 2, 3, 2) } },
	{ WNN_OP_RESHAPE, "float32 [2,3] to [3,2]", .build = reshape_3x2,
	  .in = { M23(WEBNN_FLOAT32) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(3, 2), 1, 2, 3, 4, 5, 6) } },
	{ WNN_OP_REVERSE, "float32 every axis (default)", .build = reverse_default,
	  .in = { M23(WEBNN_FLOAT32) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 6, 5, 4, 3, 2, 1) } },
	{ WNN_OP_REVERSE, "int8 axis 1", .build = reverse_axis1,
	  .in = { M23(WEBNN_INT8) }, .want = { OV_IN(WEBNN_INT8, 2, OV_SHAPE(2, 3), 3, 2, 1, 6, 5,
			  4) } },
	{ WNN_OP_SLICE, "int32 window", .build = slice_window,
	  .in = { M34 }, .want = { M22(WEBNN_INT32, 5, 6, 9, 10) } },
	{ WNN_OP_SLICE, "int32 strides 2", .build = slice_strided,
	  .in = { M34 }, .want = { M22(WEBNN_INT32, 0, 2, 8, 10) } },
	{ WNN_OP_SPLIT, "float32 into 3 along axis 0 (default)", .build = split_three,
	  .in = { OV_F32(6, 1, 2, 3, 4, 5, 6) },
	  .want = { OV_F32(2, 1, 2), OV_F32(2, 3, 4), OV_F32(2, 5, 6) } },
	{ WNN_OP_SPLIT, "uint32 sizes [1,2] along axis 1", .build = split_sizes_axis1,
	  .in = { M23(WEBNN_UINT32) },
	  .want = { OV_IN(WEBNN_UINT32, 2, OV_SHAPE(2, 1), 1, 4),
		    OV_IN(WEBNN_UINT32, 2, OV_SHAPE(2, 2), 2, 3, 5, 6) } },
	{ WNN_OP_TILE, "float32 [1,2] repeated [2,3]", .build = tile_1x2,
	  .in = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(1, 2), 1, 2) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 6), 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1,
			  2) } },
	{ WNN_OP_TRANSPOSE, "float32 [2,3], default permutation", .build = transpose_default,
	  .in = { M23(WEBNN_FLOAT32) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(3, 2), 1, 4, 2, 5, 3, 6) } },
	{ WNN_OP_TRANSPOSE, "uint8 [2,2,2] permutation [1,0,2]", .build = transpose_102,
	  .in = { OV_IN(WEBNN_UINT8, 3, OV_SHAPE(2, 2, 2), 0, 1, 2, 3, 4, 5, 6, 7) },
	  .want = { OV_IN(WEBNN_UINT8, 3, OV_SHAPE(2, 2, 2), 0, 1, 4, 5, 2, 3, 6, 7) } },
	{ WNN_OP_TRIANGULAR, "float32 default (upper, diagonal 0)", .build = triangular_default,
	  .in = { M33(WEBNN_FLOAT32, 1, 2, 3, 4, 5, 6, 7, 8, 9) },
	  .want = { M33(WEBNN_FLOAT32, 1, 2, 3, 0, 5, 6, 0, 0, 9) } },
	{ WNN_OP_TRIANGULAR, "int32 lower, diagonal -1", .build = triangular_lower_minus1,
	  .in = { M33(WEBNN_INT32, 1, 2, 3, 4, 5, 6, 7, 8, 9) },
	  .want = { M33(WEBNN_INT32, 0, 0, 0, 4, 0, 0, 7, 8, 0) } },
	{ WNN_OP_TRIANGULAR, "float32 upper, diagonal 1", .build = triangular_upper_plus1,
	  .in = { M33(WEBNN_FLOAT32, 1, 2, 3, 4, 5, 6, 7, 8, 9) },
	  .want = { M33(WEBNN_FLOAT32, 0, 2, 3, 0, 0, 6, 0, 0, 0) } },
};
OV_TABLE(DATA, data_vectors);

OV_FAMILY_TESTS(DATA, data)

/* ==== validation and shape inference (proto/schema_<family>.c) */

TEST(ops_data_schema_reshape)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_I8, 2, 3, 4), one = T(&f, WNN_F32, 1, 1), o = SLOT(&f);
	uint32_t ns[] = { 6, 4 };
	Webnn__Ipc__Reshape m = WEBNN__IPC__RESHAPE__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_RESHAPE);
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

TEST(ops_data_schema_transpose)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 2, 3, 4), o = SLOT(&f);
	uint32_t perm[] = { 1, 2, 0 };
	Webnn__Ipc__Transpose m = WEBNN__IPC__TRANSPOSE__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_TRANSPOSE);
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

TEST(ops_data_schema_concat)
{
	struct fx f = { 0 };
	uint32_t a = T(&f, WNN_F32, 2, 3), b = T(&f, WNN_F32, 2, 5), c = T(&f, WNN_F32, 3, 3);
	uint32_t h = T(&f, WNN_F16, 2, 3), r3 = T(&f, WNN_F32, 2, 3, 1), o = SLOT(&f);
	uint32_t in[3] = { a, b, a };
	Webnn__Ipc__Concat m = WEBNN__IPC__CONCAT__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_CONCAT);
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

TEST(ops_data_schema_expand_pad_tile_slice)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 3, 1), o = SLOT(&f);
	uint32_t ns[] = { 2, 3, 4 };
	Webnn__Ipc__Expand em = WEBNN__IPC__EXPAND__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_EXPAND);
	op.expand = &em;
	em.input = x, em.output = o, em.new_shape = ns, em.n_new_shape = 3;
	OK_OUT(&f, &op, 0, WNN_F32, 2, 3, 4);
	ns[1] = 2;
	ERR(&f, &op, "expand: input shape [3, 1] is not broadcastable to newShape [2, 2, 4]");

	uint32_t b[] = { 1, 2 }, e[] = { 0, 1 };
	Webnn__Ipc__Pad pm = WEBNN__IPC__PAD__INIT;
	op = st_mkop(WNN_OP_PAD);
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
	op = st_mkop(WNN_OP_TILE);
	op.tile = &tm;
	tm.input = x, tm.output = o, tm.repetitions = reps, tm.n_repetitions = 2;
	OK_OUT(&f, &op, 0, WNN_F32, 6, 3);
	reps[1] = 0;
	ERR(&f, &op, "tile: repetitions item 1 is 0");

	uint32_t y = T(&f, WNN_I32, 5, 7);
	uint32_t starts[] = { 1, 2 }, sizes[] = { 4, 5 }, strides[] = { 2, 3 };
	Webnn__Ipc__Slice sm = WEBNN__IPC__SLICE__INIT;
	op = st_mkop(WNN_OP_SLICE);
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

TEST(ops_data_schema_split)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 6, 4), o[3] = { SLOT(&f), SLOT(&f), SLOT(&f) };
	uint32_t sizes[] = { 1, 2, 3 };
	Webnn__Ipc__Split m = WEBNN__IPC__SPLIT__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_SPLIT);
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

/* ==== reference backend: hand-computed and literal WPT values through its kernels */

TEST(ops_data_reference_transpose_reshape_concat)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_I32, SHAPE(2, 3));
	Webnn__Ipc__Transpose ti = WEBNN__IPC__TRANSPOSE__INIT, *tm = rt_arena(sizeof(*tm));
	*tm = ti;
	tm->input = x, tm->output = tg_next(&t);
	uint32_t o = rt_op(&t, WNN_OP_TRANSPOSE, tm);
	rt_expect_shape(&t, o, SHAPE(3, 2));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6)), D(1, 4, 2, 5, 3, 6), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F16, SHAPE(2, 2, 2));
	tm = rt_arena(sizeof(*tm));
	*tm = ti;
	tm->input = x, tm->output = tg_next(&t), tm->has_permutation = true;
	LIST(tm, permutation, 1, 0, 2);
	rt_op(&t, WNN_OP_TRANSPOSE, tm);
	rt_expect(&t, INS(D(0, 1, 2, 3, 4, 5, 6, 7)), D(0, 1, 4, 5, 2, 3, 6, 7), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_I64, SHAPE(2, 3));
	Webnn__Ipc__Reshape ri = WEBNN__IPC__RESHAPE__INIT, *rm = rt_arena(sizeof(*rm));
	*rm = ri;
	rm->input = x, rm->output = tg_next(&t);
	LIST(rm, new_shape, 3, 1, 2);
	o = rt_op(&t, WNN_OP_RESHAPE, rm);
	rt_expect_shape(&t, o, SHAPE(3, 1, 2));
	rt_expect(&t, INS(D(1, -2, 3, -4, 5, -6)), D(1, -2, 3, -4, 5, -6), 0);
	tg_free(&t);

	for (int axis = 0; axis < 2; axis++) {
		tg_init(&t);
		uint32_t a = axis ? tg_input(&t, WNN_U8, SHAPE(2, 1)) : tg_input(&t, WNN_U8, SHAPE(1, 2));
		uint32_t b = tg_input(&t, WNN_U8, SHAPE(2, 2));
		uint32_t c = axis ? rt_constant(&t, WNN_U8, SHAPE(2, 1), D(7, 8)) : rt_constant(&t, WNN_U8, SHAPE(1, 2), D(7, 8));
		Webnn__Ipc__Concat ci = WEBNN__IPC__CONCAT__INIT, *cm = rt_arena(sizeof(*cm));
		*cm = ci;
		LIST(cm, inputs, a, b, c);
		cm->axis = (uint32_t)axis, cm->output = tg_next(&t);
		o = rt_op(&t, WNN_OP_CONCAT, cm);
		if (axis) {
			rt_expect_shape(&t, o, SHAPE(2, 4));
			rt_expect(&t, INS(D(1, 2), D(3, 4, 5, 6)), D(1, 3, 4, 7, 2, 5, 6, 8), 0);
		} else {
			rt_expect_shape(&t, o, SHAPE(4, 2));
			rt_expect(&t, INS(D(1, 2), D(3, 4, 5, 6)), D(1, 2, 3, 4, 5, 6, 7, 8), 0);
		}
		tg_free(&t);
	}
}

/* Found by reading for the fuzz targets: compile listed an operation's inputs into a fixed
 * 80-entry array, so a concat of more inputs failed with "cannot list its inputs". */
TEST(ops_data_reference_concat_of_many_inputs)
{
	enum { N = 300 };
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_I32, SHAPE(1, 2));
	Webnn__Ipc__Concat ci = WEBNN__IPC__CONCAT__INIT, *cm = rt_arena(sizeof(*cm));
	*cm = ci;
	uint32_t *ids = rt_arena(N * sizeof(uint32_t));
	for (int i = 0; i < N; i++)
		ids[i] = x;
	cm->inputs = ids, cm->n_inputs = N;
	cm->axis = 0, cm->output = tg_next(&t);
	uint32_t o = rt_op(&t, WNN_OP_CONCAT, cm);
	rt_expect_shape(&t, o, SHAPE(N, 2));
	double *want = rt_arena(2 * N * sizeof(double));
	for (int i = 0; i < N; i++)
		want[2 * i] = 7, want[2 * i + 1] = -3;
	rt_expect(&t, INS(D(7, -3)), want, 0);
	tg_free(&t);
}

TEST(ops_data_reference_expand_tile)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_I32, SHAPE(3, 1));
	Webnn__Ipc__Expand *e = MSG(Webnn__Ipc__Expand, WEBNN__IPC__EXPAND__INIT);
	e->input = x, e->output = tg_next(&t);
	LIST(e, new_shape, 2, 3, 2);
	uint32_t o = rt_op(&t, WNN_OP_EXPAND, e);
	rt_expect_shape(&t, o, SHAPE(2, 3, 2));
	rt_expect(&t, INS(D(1, 2, 3)), D(1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F16, SHAPE(1, 2));
	Webnn__Ipc__Tile *tm = MSG(Webnn__Ipc__Tile, WEBNN__IPC__TILE__INIT);
	tm->input = x, tm->output = tg_next(&t);
	LIST(tm, repetitions, 2, 3);
	o = rt_op(&t, WNN_OP_TILE, tm);
	rt_expect_shape(&t, o, SHAPE(2, 6));
	rt_expect(&t, INS(D(1, 2)), D(1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2), 0);
	tg_free(&t);
}

TEST(ops_data_reference_pad_modes)
{
	const double *want[3] = { D(9, 9, 1, 2, 3, 9, 9), D(1, 1, 1, 2, 3, 3, 3),
				  D(3, 2, 1, 2, 3, 2, 1) };
	for (int mode = 0; mode < 3; mode++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(3));
		Webnn__Ipc__Pad *m = MSG(Webnn__Ipc__Pad, WEBNN__IPC__PAD__INIT);
		m->input = x, m->output = tg_next(&t), m->mode = (Webnn__Ipc__PaddingMode)mode;
		LIST(m, beginning_padding, 2);
		LIST(m, ending_padding, 2);
		if (mode == 0)
			m->value = rt_number(9);
		uint32_t o = rt_op(&t, WNN_OP_PAD, m);
		rt_expect_shape(&t, o, SHAPE(7));
		rt_expect(&t, INS(D(1, 2, 3)), want[mode], 0);
		tg_free(&t);
	}
	/* 2-D integer, default value 0, value saturated to the type */
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_U8, SHAPE(1, 2));
	Webnn__Ipc__Pad *m = MSG(Webnn__Ipc__Pad, WEBNN__IPC__PAD__INIT);
	m->input = x, m->output = tg_next(&t), m->value = rt_number(1000);
	LIST(m, beginning_padding, 1, 0);
	LIST(m, ending_padding, 0, 1);
	rt_op(&t, WNN_OP_PAD, m);
	rt_expect(&t, INS(D(4, 5)), D(255, 255, 255, 4, 5, 255), 0);
	tg_free(&t);
}

TEST(ops_data_reference_reverse_slice_split)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	Webnn__Ipc__Reverse *r = MSG(Webnn__Ipc__Reverse, WEBNN__IPC__REVERSE__INIT);
	r->input = x, r->output = tg_next(&t), r->has_axes = true;
	LIST(r, axes, 1);
	rt_op(&t, WNN_OP_REVERSE, r);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6)), D(3, 2, 1, 6, 5, 4), 0);
	tg_free(&t);

	tg_init(&t); /* axes absent: all axes; given but empty: none */
	x = tg_input(&t, WNN_I32, SHAPE(2, 2));
	r = MSG(Webnn__Ipc__Reverse, WEBNN__IPC__REVERSE__INIT);
	r->input = x, r->output = tg_next(&t);
	uint32_t a = rt_op(&t, WNN_OP_REVERSE, r);
	r = MSG(Webnn__Ipc__Reverse, WEBNN__IPC__REVERSE__INIT);
	r->input = x, r->output = tg_next(&t), r->has_axes = true;
	uint32_t b = rt_op(&t, WNN_OP_REVERSE, r);
	tg_output(&t, a);
	tg_output(&t, b);
	void **outs = rt_run(&t, INS(D(1, 2, 3, 4)));
	rt_check(&t, outs, 0, D(4, 3, 2, 1), 0, 0);
	rt_check(&t, outs, 1, D(1, 2, 3, 4), 0, 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(3, 5));
	Webnn__Ipc__Slice *s = MSG(Webnn__Ipc__Slice, WEBNN__IPC__SLICE__INIT);
	s->input = x, s->output = tg_next(&t);
	LIST(s, starts, 0, 1);
	LIST(s, sizes, 3, 4);
	LIST(s, strides, 2, 3);
	uint32_t o = rt_op(&t, WNN_OP_SLICE, s);
	rt_expect_shape(&t, o, SHAPE(2, 2));
	rt_expect(&t, INS(D(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)), D(1, 4, 11, 14), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 5));
	Webnn__Ipc__Split *sp = MSG(Webnn__Ipc__Split, WEBNN__IPC__SPLIT__INIT);
	sp->input = x, sp->axis = 1;
	LIST(sp, sizes, 2, 3);
	LIST(sp, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_SPLIT, sp);
	outs = rt_run(&t, INS(D(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)));
	rt_check(&t, outs, 0, D(0, 1, 5, 6), 0, 0);
	rt_check(&t, outs, 1, D(2, 3, 4, 7, 8, 9), 0, 0);
	tg_free(&t);
}

/* ==== OpenCL backend against the reference: seeded inputs through both (tests/ocltest.h) */

OT_TEST(ops_data, transpose_concat_reshape, 300)
{
	struct backend *be = ot_backend();
	static const enum wnn_dtype types[] = { WNN_F32, WNN_F16, WNN_I8, WNN_I64 };
	for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
		enum wnn_dtype t = types[ti];
		/* transpose with a permutation and the default (reversed) one */
		for (int def = 0; def < 2; def++) {
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t x = tg_input(&tg, t, 4, (uint32_t[]){ 2, 3, 4, 5 });
			uint32_t perm[4] = { 0, 2, 3, 1 };
			Webnn__Ipc__Transpose m = WEBNN__IPC__TRANSPOSE__INIT;
			m.input = x;
			m.output = tg_next(&tg);
			if (!def) {
				m.n_permutation = 4;
				m.permutation = perm;
				m.has_has_permutation = 1;
				m.has_permutation = 1;
			}
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_TRANSPOSE, &m);
			ot_check(be, ot_finish(&tg, &o, "transpose"), -50, 50, TOL_EXACT, "transpose");
			tg_free(&tg);
		}
		for (uint32_t axis = 0; axis < 3; axis++) {
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t d0[3] = { 2, 3, 4 }, d1[3] = { 2, 3, 4 }, d2[3] = { 2, 3, 4 };
			d1[axis] = 1;
			d2[axis] = 5;
			uint32_t ins[3] = { tg_input(&tg, t, 3, d0), tg_input(&tg, t, 3, d1),
					    tg_input(&tg, t, 3, d2) };
			Webnn__Ipc__Concat m = WEBNN__IPC__CONCAT__INIT;
			m.n_inputs = 3;
			m.inputs = ins;
			m.axis = axis;
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_CONCAT, &m);
			ot_check(be, ot_finish(&tg, &o, "concat"), -50, 50, TOL_EXACT, "concat");
			tg_free(&tg);
		}
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t x = tg_input(&tg, t, 3, (uint32_t[]){ 2, 3, 4 });
		uint32_t shape[2] = { 6, 4 };
		Webnn__Ipc__Reshape m = WEBNN__IPC__RESHAPE__INIT;
		m.input = x;
		m.output = tg_next(&tg);
		m.n_new_shape = 2;
		m.new_shape = shape;
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, WNN_OP_RESHAPE, &m);
		ot_check(be, ot_finish(&tg, &o, "reshape"), -50, 50, TOL_EXACT, "reshape");
		tg_free(&tg);
	}
	ot_impl->shutdown(be);
}

OT_TEST(ops_data, all_types, 180)
{
	struct backend *be = ot_backend();
	for (size_t ti = 0; ti < OT_N_TYPES; ti++) {
		enum wnn_dtype t = ALL_TYPES[ti];
		const char *tn = wnn_dtype_name(t);
		double lo = ot_type_lo(t, -50), hi = 50;
		char label[128];
		{
			Webnn__Ipc__Expand m = WEBNN__IPC__EXPAND__INIT;
			uint32_t shape[4] = { 2, 3, 4, 5 };
			m.n_new_shape = 4;
			m.new_shape = shape;
			snprintf(label, sizeof label, "expand %s", tn);
			OT_RUN1(be, t, 3, ((uint32_t[]){ 3, 1, 5 }), WNN_OP_EXPAND, m, lo, hi, TOL_EXACT,
			     label);
			uint32_t shape2[2] = { 4, 6 };
			m.n_new_shape = 2;
			m.new_shape = shape2;
			OT_RUN1(be, t, 0, NULL, WNN_OP_EXPAND, m, lo, hi, TOL_EXACT, label);
		}
		{
			Webnn__Ipc__Tile m = WEBNN__IPC__TILE__INIT;
			uint32_t reps[3] = { 2, 1, 3 };
			m.n_repetitions = 3;
			m.repetitions = reps;
			snprintf(label, sizeof label, "tile %s", tn);
			OT_RUN1(be, t, 3, ((uint32_t[]){ 2, 3, 4 }), WNN_OP_TILE, m, lo, hi, TOL_EXACT,
			     label);
		}
		{
			Webnn__Ipc__Slice m = WEBNN__IPC__SLICE__INIT;
			uint32_t starts[3] = { 1, 0, 2 }, sizes[3] = { 3, 2, 5 }, strides[3] = { 2, 1, 2 };
			m.n_starts = m.n_sizes = 3;
			m.starts = starts;
			m.sizes = sizes;
			snprintf(label, sizeof label, "slice %s", tn);
			OT_RUN1(be, t, 3, ((uint32_t[]){ 4, 3, 7 }), WNN_OP_SLICE, m, lo, hi, TOL_EXACT,
			     label);
			m.n_strides = 3;
			m.strides = strides;
			OT_RUN1(be, t, 3, ((uint32_t[]){ 4, 3, 7 }), WNN_OP_SLICE, m, lo, hi, TOL_EXACT,
			     label);
		}
		{
			Webnn__Ipc__Reverse m = WEBNN__IPC__REVERSE__INIT;
			snprintf(label, sizeof label, "reverse all %s", tn);
			OT_RUN1(be, t, 3, ((uint32_t[]){ 2, 3, 4 }), WNN_OP_REVERSE, m, lo, hi, TOL_EXACT,
			     label);
			uint32_t axes[1] = { 1 };
			m.n_axes = 1;
			m.axes = axes;
			m.has_has_axes = 1;
			m.has_axes = 1;
			snprintf(label, sizeof label, "reverse axis 1 %s", tn);
			OT_RUN1(be, t, 3, ((uint32_t[]){ 2, 3, 4 }), WNN_OP_REVERSE, m, lo, hi, TOL_EXACT,
			     label);
		}
		for (int mode = 0; mode < 3; mode++) {
			Webnn__Ipc__Pad m = WEBNN__IPC__PAD__INIT;
			uint32_t begin[3] = { 1, 0, 2 }, end[3] = { 2, 1, 3 };
			m.n_beginning_padding = m.n_ending_padding = 3;
			m.beginning_padding = begin;
			m.ending_padding = end;
			m.has_mode = 1;
			m.mode = (Webnn__Ipc__PaddingMode)mode;
			Webnn__Ipc__Number v = WEBNN__IPC__NUMBER__INIT;
			v.value_case = WEBNN__IPC__NUMBER__VALUE_F;
			v.f = 7;
			if (mode == 0)
				m.value = &v;
			snprintf(label, sizeof label, "pad mode %d %s", mode, tn);
			OT_RUN1(be, t, 3, ((uint32_t[]){ 3, 2, 4 }), WNN_OP_PAD, m, lo, hi, TOL_EXACT,
			     label);
		}
		for (int k = 0; k < 4; k++) {
			Webnn__Ipc__Triangular m = WEBNN__IPC__TRIANGULAR__INIT;
			m.has_upper = 1;
			m.upper = k & 1;
			m.has_diagonal = 1;
			m.diagonal = k < 2 ? 0 : (k == 2 ? -1 : 2);
			snprintf(label, sizeof label, "triangular %d %s", k, tn);
			OT_RUN1(be, t, 3, ((uint32_t[]){ 2, 4, 5 }), WNN_OP_TRIANGULAR, m, lo, hi,
			     TOL_EXACT, label);
		}
		{
			/* split by count and by sizes, along the middle axis */
			for (int by_sizes = 0; by_sizes < 2; by_sizes++) {
				struct tg_graph tg;
				tg_init(&tg);
				uint32_t x = tg_input(&tg, t, 3, (uint32_t[]){ 2, 6, 3 });
				Webnn__Ipc__Split m = WEBNN__IPC__SPLIT__INIT;
				uint32_t outs[3] = { tg_next(&tg), tg_next(&tg) + 1, tg_next(&tg) + 2 };
				uint32_t sizes[3] = { 1, 3, 2 };
				m.input = x;
				m.n_outputs = 3;
				m.outputs = outs;
				m.has_axis = 1;
				m.axis = 1;
				if (by_sizes) {
					m.n_sizes = 3;
					m.sizes = sizes;
				} else {
					m.has_count = 1;
					m.count = 3;
				}
				Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
				tg_set_op(&o, WNN_OP_SPLIT, &m);
				snprintf(label, sizeof label, "split %d %s", by_sizes, tn);
				const struct graph_ir *g = ot_finish(&tg, &o, label);
				ASSERT_EQ(g->n_outputs, 3);
				ot_check_counted(be, g, lo, hi, TOL_EXACT, label);
				tg_free(&tg);
			}
		}
		{
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t c = tg_input(&tg, WNN_U8, 3, (uint32_t[]){ 2, 1, 4 });
			uint32_t a = tg_input(&tg, t, 2, (uint32_t[]){ 3, 4 });
			uint32_t bb = tg_input(&tg, t, 1, (uint32_t[]){ 1 });
			Webnn__Ipc__Where m = WEBNN__IPC__WHERE__INIT;
			m.condition = c;
			m.true_value = a;
			m.false_value = bb;
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_WHERE, &m);
			snprintf(label, sizeof label, "where %s", tn);
			const struct graph_ir *g = ot_finish(&tg, &o, label);
			struct range r[3] = { { 0, 2 }, { 0, 0 }, { 0, 0 } };
			ot_check_ranges(be, g, r, 3, lo, hi, TOL_EXACT, label);
			tg_free(&tg);
		}
	}
	ASSERT(ot_n_compared >= 8 * 17);
	ot_impl->shutdown(be);
}
