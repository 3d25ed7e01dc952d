/* Hand-computed vectors of the gather/scatter family (gather, gatherElements, gatherND, scatterElements, scatterND) on both backends. */
#include "tests/opvectors.h"

static enum webnn_status gather_default(struct webnn_builder *b, struct webnn_operand *const *in,
					struct webnn_operand **out)
{
	return webnn_builder_gather(b, in[0], in[1], NULL, out);
}

static enum webnn_status gather_axis1(struct webnn_builder *b, struct webnn_operand *const *in,
				      struct webnn_operand **out)
{
	struct webnn_gather_options o = WEBNN_GATHER_OPTIONS_INIT;
	o.axis = 1;
	return webnn_builder_gather(b, in[0], in[1], &o, out);
}

static enum webnn_status gather_elements_default(struct webnn_builder *b,
						 struct webnn_operand *const *in,
						 struct webnn_operand **out)
{
	return webnn_builder_gather_elements(b, in[0], in[1], NULL, out);
}

static enum webnn_status gather_elements_axis1(struct webnn_builder *b,
					       struct webnn_operand *const *in,
					       struct webnn_operand **out)
{
	struct webnn_gather_options o = WEBNN_GATHER_OPTIONS_INIT;
	o.axis = 1;
	return webnn_builder_gather_elements(b, in[0], in[1], &o, out);
}

static enum webnn_status gather_nd(struct webnn_builder *b, struct webnn_operand *const *in,
				   struct webnn_operand **out)
{
	return webnn_builder_gather_nd(b, in[0], in[1], out);
}

static enum webnn_status scatter_elements_default(struct webnn_builder *b,
						  struct webnn_operand *const *in,
						  struct webnn_operand **out)
{
	return webnn_builder_scatter_elements(b, in[0], in[1], in[2], NULL, out);
}

static enum webnn_status scatter_elements_axis1(struct webnn_builder *b,
						struct webnn_operand *const *in,
						struct webnn_operand **out)
{
	struct webnn_scatter_options o = WEBNN_SCATTER_OPTIONS_INIT;
	o.axis = 1;
	return webnn_builder_scatter_elements(b, in[0], in[1], in[2], &o, out);
}

static enum webnn_status scatter_nd(struct webnn_builder *b, struct webnn_operand *const *in,
				    struct webnn_operand **out)
{
	return webnn_builder_scatter_nd(b, in[0], in[1], in[2], out);
}

/* [[1, 2], [3, 4], [5, 6]] */
#define M32(type_) OV_IN(type_, 2, OV_SHAPE(3, 2), 1, 2, 3, 4, 5, 6)

static const struct op_vector gather_vectors[] = {
	{ WNN_OP_GATHER, "float32 axis 0 (default), int32 indices", .build = gather_default,
	  .in = { M32(WEBNN_FLOAT32), OV_I32(3, 2, 0, 2) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(3, 2), 5, 6, 1, 2, 5, 6) } },
	{ WNN_OP_GATHER, "int64 axis 1, [1,1] uint32 indices", .build = gather_axis1,
	  .in = { M32(WEBNN_INT64), OV_IN(WEBNN_UINT32, 2, OV_SHAPE(1, 1), 1) },
	  .want = { OV_IN(WEBNN_INT64, 3, OV_SHAPE(3, 1, 1), 2, 4, 6) } },
	{ WNN_OP_GATHER, "float32 negative indices count from the end", .build = gather_default,
	  .in = { M32(WEBNN_FLOAT32), OV_I32(2, -1, -3) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 2), 5, 6, 1, 2) } },
	{ WNN_OP_GATHER_ELEMENTS, "int32 negative indices", .build = gather_elements_axis1,
	  .in = { M32(WEBNN_INT32), OV_IN(WEBNN_INT32, 2, OV_SHAPE(3, 1), -1, -2, -1) },
	  .want = { OV_IN(WEBNN_INT32, 2, OV_SHAPE(3, 1), 2, 3, 6) } },
	{ WNN_OP_GATHER_ND, "float32 negative indices", .build = gather_nd,
	  .in = { M32(WEBNN_FLOAT32), OV_IN(WEBNN_INT64, 2, OV_SHAPE(2, 2), -3, -1, -1, 0) },
	  .want = { OV_F32(2, 2, 5) } },
	{ WNN_OP_SCATTER_ELEMENTS, "float32 negative indices", .build = scatter_elements_default,
	  .in = { M32(WEBNN_FLOAT32), OV_IN(WEBNN_INT32, 2, OV_SHAPE(1, 2), -1, -3),
		  OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(1, 2), 10, 20) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(3, 2), 1, 20, 3, 4, 10, 6) } },
	{ WNN_OP_SCATTER_ND, "float32 negative indices", .build = scatter_nd,
	  .in = { OV_F32(4, 1, 2, 3, 4), OV_IN(WEBNN_INT32, 2, OV_SHAPE(2, 1), -1, -3),
		  OV_F32(2, 9, 10) },
	  .want = { OV_F32(4, 1, 10, 3, 9) } },
	{ WNN_OP_GATHER_ELEMENTS, "float32 axis 0 (default)", .build = gather_elements_default,
	  .in = { M32(WEBNN_FLOAT32), OV_IN(WEBNN_INT32, 2, OV_SHAPE(2, 2), 0, 2, 1, 0) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 2), 1, 6, 3, 2) } },
	{ WNN_OP_GATHER_ELEMENTS, "int32 axis 1", .build = gather_elements_axis1,
	  .in = { M32(WEBNN_INT32), OV_IN(WEBNN_INT32, 2, OV_SHAPE(3, 1), 1, 0, 1) },
	  .want = { OV_IN(WEBNN_INT32, 2, OV_SHAPE(3, 1), 2, 3, 6) } },
	{ WNN_OP_GATHER_ND, "float32 element indices", .build = gather_nd,
	  .in = { M32(WEBNN_FLOAT32), OV_IN(WEBNN_INT32, 2, OV_SHAPE(2, 2), 0, 1, 2, 0) },
	  .want = { OV_F32(2, 2, 5) } },
	{ WNN_OP_GATHER_ND, "uint8 row indices", .build = gather_nd,
	  .in = { M32(WEBNN_UINT8), OV_IN(WEBNN_INT32, 2, OV_SHAPE(2, 1), 2, 1) },
	  .want = { OV_IN(WEBNN_UINT8, 2, OV_SHAPE(2, 2), 5, 6, 3, 4) } },
	{ WNN_OP_SCATTER_ELEMENTS, "float32 axis 0 (default)", .build = scatter_elements_default,
	  .in = { M32(WEBNN_FLOAT32), OV_IN(WEBNN_INT32, 2, OV_SHAPE(1, 2), 2, 0),
		  OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(1, 2), 10, 20) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(3, 2), 1, 20, 3, 4, 10, 6) } },
	{ WNN_OP_SCATTER_ELEMENTS, "int32 axis 1", .build = scatter_elements_axis1,
	  .in = { M32(WEBNN_INT32), OV_IN(WEBNN_INT32, 2, OV_SHAPE(3, 1), 1, 0, 1),
		  OV_IN(WEBNN_INT32, 2, OV_SHAPE(3, 1), -1, -2, -3) },
	  .want = { OV_IN(WEBNN_INT32, 2, OV_SHAPE(3, 2), 1, -1, -2, 4, 5, -3) } },
	{ WNN_OP_SCATTER_ND, "float32 element updates", .build = scatter_nd,
	  .in = { OV_F32(4, 1, 2, 3, 4), OV_IN(WEBNN_INT32, 2, OV_SHAPE(2, 1), 3, 1),
		  OV_F32(2, 9, 10) },
	  .want = { OV_F32(4, 1, 10, 3, 9) } },
	{ WNN_OP_SCATTER_ND, "int32 row update", .build = scatter_nd,
	  .in = { M32(WEBNN_INT32), OV_IN(WEBNN_INT32, 2, OV_SHAPE(1, 1), 1),
		  OV_IN(WEBNN_INT32, 2, OV_SHAPE(1, 2), 7, 8) },
	  .want = { OV_IN(WEBNN_INT32, 2, OV_SHAPE(3, 2), 1, 2, 7, 8, 5, 6) } },
};
OV_TABLE(GATHER, gather_vectors);

OV_FAMILY_TESTS(GATHER, gather)
