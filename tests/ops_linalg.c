/* Hand-computed vectors of the linear algebra family (gemm, matmul) on both backends. */
#include "tests/opvectors.h"

static enum webnn_status gemm_default(struct webnn_builder *b, struct webnn_operand *const *in,
				      struct webnn_operand **out)
{
	return webnn_builder_gemm(b, in[0], in[1], NULL, out);
}

/* 2 * A'B' + 0.5 * C with both operands given transposed */
static enum webnn_status gemm_options(struct webnn_builder *b, struct webnn_operand *const *in,
				      struct webnn_operand **out)
{
	struct webnn_gemm_options o = WEBNN_GEMM_OPTIONS_INIT;
	o.c = in[2];
	o.alpha = 2;
	o.beta = 0.5;
	o.a_transpose = o.b_transpose = true;
	return webnn_builder_gemm(b, in[0], in[1], &o, out);
}

/* C given, alpha and beta left at their defaults (1, 1) */
static enum webnn_status gemm_c_default_scales(struct webnn_builder *b,
					       struct webnn_operand *const *in,
					       struct webnn_operand **out)
{
	struct webnn_gemm_options o = WEBNN_GEMM_OPTIONS_INIT;
	o.c = in[2];
	return webnn_builder_gemm(b, in[0], in[1], &o, out);
}

#define A23 OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 1, 2, 3, 4, 5, 6)
#define B32 OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(3, 2), 1, 0, 0, 1, 1, -1)
/* A23 x B32 */
#define AB OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 2), 4, -1, 10, -1)

static const struct op_vector linalg_vectors[] = {
	{ WNN_OP_GEMM, "float32 default options", .build = gemm_default,
	  .in = { A23, B32 }, .want = { AB } },
	{ WNN_OP_GEMM, "float32 C, default alpha and beta", .build = gemm_c_default_scales,
	  .in = { A23, B32, OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 2), 1, 2, 3, 4) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 2), 5, 1, 13, 3) } },
	{ WNN_OP_GEMM, "float32 transposed operands, alpha 2, beta 0.5, C broadcast",
	  .build = gemm_options,
	  .in = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(3, 2), 1, 4, 2, 5, 3, 6),
		  OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 3), 1, 0, 1, 0, 1, -1), OV_F32(2, 1, 2) },
	  .want = { OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 2), 8.5, -1, 20.5, -1) } },
	{ WNN_OP_MATMUL, "float32 [2,3] x [3,2]", .binary = webnn_builder_matmul,
	  .in = { A23, B32 }, .want = { AB } },
	{ WNN_OP_MATMUL, "float32 batch broadcast [2,1,2] x [2,2]", .binary = webnn_builder_matmul,
	  .in = { OV_IN(WEBNN_FLOAT32, 3, OV_SHAPE(2, 1, 2), 1, 2, 3, 4),
		  OV_IN(WEBNN_FLOAT32, 2, OV_SHAPE(2, 2), 1, 2, 3, 4) },
	  .want = { OV_IN(WEBNN_FLOAT32, 3, OV_SHAPE(2, 1, 2), 7, 10, 15, 22) } },
};
OV_TABLE(LINALG, linalg_vectors);

OV_FAMILY_TESTS(LINALG, linalg)
