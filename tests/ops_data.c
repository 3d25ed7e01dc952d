/* Hand-computed vectors of the data movement family (concat, expand, pad, reshape, reverse, slice, split, tile, transpose, triangular) on both backends. */
#include "tests/opvectors.h"

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
