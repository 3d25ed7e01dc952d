/* Tests of the linear algebra family (gemm, matmul): hand-computed vectors through libwebnn, validation, the reference backend's kernels, the OpenCL backend against the reference. */
#include "daemon/backend/opencl/ocl.h"
#include "tests/ocltest.h"
#include "tests/opvectors.h"
#include "tests/reftest.h"
#include "tests/opfixture.h"
#include "tests/test.h"

/* ==== hand-computed vectors through libwebnn on both backends (tests/opvectors.h) */

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

/* ==== validation and shape inference (proto/schema_<family>.c) */

TEST(ops_linalg_schema_gemm)
{
	struct fx f = { 0 };
	uint32_t a = T(&f, WNN_F32, 2, 3), b = T(&f, WNN_F32, 3, 4), bt = T(&f, WNN_F32, 4, 3);
	uint32_t c1 = T(&f, WNN_F32, 4), c2 = T(&f, WNN_F32, 2, 1), cbad = T(&f, WNN_F32, 3);
	uint32_t ch = T(&f, WNN_F16, 4), a3 = T(&f, WNN_F32, 1, 2, 3), o = SLOT(&f);
	Webnn__Ipc__Gemm m = WEBNN__IPC__GEMM__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_GEMM);
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

TEST(ops_linalg_schema_matmul)
{
	struct fx f = { 0 };
	uint32_t a = T(&f, WNN_F32, 2, 1, 3, 4), b = T(&f, WNN_F32, 5, 4, 2);
	uint32_t b2 = T(&f, WNN_F32, 4, 2), r1 = T(&f, WNN_F32, 4), bad = T(&f, WNN_F32, 3, 4, 2);
	uint32_t k5 = T(&f, WNN_F32, 5, 2), o = SLOT(&f);
	Webnn__Ipc__Matmul m = WEBNN__IPC__MATMUL__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_MATMUL);
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

/* ==== reference backend: hand-computed and literal WPT values through its kernels */

/* ---- gemm and matmul: a = [[1,2,3],[4,5,6]], b = [[7,8],[9,10],[11,12]], a*b = [[58,64],[139,154]] */

TEST(ops_linalg_reference_gemm_options)
{
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		struct tg_graph t;
		tg_init(&t);
		uint32_t a = tg_input(&t, ty, SHAPE(2, 3)), b = tg_input(&t, ty, SHAPE(3, 2));
		uint32_t o = rt_op(&t, WNN_OP_GEMM, rt_gemm_msg(&t, a, b));
		rt_expect_shape(&t, o, SHAPE(2, 2));
		rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10, 11, 12)), D(58, 64, 139, 154), 0);
		tg_free(&t);
	}

	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(3, 2)), b = tg_input(&t, WNN_F32, SHAPE(2, 3));
	Webnn__Ipc__Gemm *m = rt_gemm_msg(&t, a, b);
	m->a_transpose = true, m->b_transpose = true;
	rt_op(&t, WNN_OP_GEMM, m);
	rt_expect(&t, INS(D(1, 4, 2, 5, 3, 6), D(7, 9, 11, 8, 10, 12)), D(58, 64, 139, 154), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 3));
	b = tg_input(&t, WNN_F32, SHAPE(3, 2));
	uint32_t c = tg_input(&t, WNN_F32, SHAPE(2));
	m = rt_gemm_msg(&t, a, b);
	m->has_c = true, m->c = c, m->has_alpha = m->has_beta = true, m->alpha = 2, m->beta = 0.5;
	rt_op(&t, WNN_OP_GEMM, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10, 11, 12), D(1, 2)),
	       D(116.5, 129, 278.5, 309), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 3));
	b = tg_input(&t, WNN_F32, SHAPE(3, 2));
	c = rt_constant(&t, WNN_F32, 0, NULL, D(10));
	m = rt_gemm_msg(&t, a, b);
	m->has_c = true, m->c = c;
	rt_op(&t, WNN_OP_GEMM, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10, 11, 12)), D(68, 74, 149, 164), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 3));
	b = tg_input(&t, WNN_F32, SHAPE(3, 2));
	c = tg_input(&t, WNN_F32, SHAPE(2, 1));
	m = rt_gemm_msg(&t, a, b);
	m->has_c = true, m->c = c;
	rt_op(&t, WNN_OP_GEMM, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10, 11, 12), D(1, 2)), D(59, 65, 141, 156), 0);
	tg_free(&t);
}

TEST(ops_linalg_reference_matmul_batched_and_broadcast)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(2, 3)), b = tg_input(&t, WNN_F32, SHAPE(3, 2));
	rt_matmul(&t, a, b);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10, 11, 12)), D(58, 64, 139, 154), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F16, SHAPE(2, 2, 2));
	b = tg_input(&t, WNN_F16, SHAPE(2, 2, 2));
	uint32_t o = rt_matmul(&t, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 2, 2));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6, 7, 8), D(1, 0, 0, 1, 0, 1, 1, 0)), D(1, 2, 3, 4, 6, 5, 8, 7), 0);
	tg_free(&t);

	/* batch shapes [2, 1] and [3] broadcast to [2, 3] */
	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 1, 1, 2));
	b = tg_input(&t, WNN_F32, SHAPE(3, 2, 1));
	o = rt_matmul(&t, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 3, 1, 1));
	rt_expect(&t, INS(D(1, 2, 3, 4), D(1, 1, 2, 0, 0, 3)), D(3, 2, 6, 7, 6, 12), 0);
	tg_free(&t);

	/* a 2-D b against a batched a */
	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 1, 2));
	b = tg_input(&t, WNN_F32, SHAPE(2, 2));
	o = rt_matmul(&t, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 1, 2));
	rt_expect(&t, INS(D(1, 2, 3, 4), D(1, 2, 3, 4)), D(7, 10, 15, 22), 0);
	tg_free(&t);
}

/* ==== OpenCL backend against the reference: seeded inputs through both (tests/ocltest.h) */

OT_TEST(ops_linalg, gemm_options, 300)
{
	struct backend *be = ot_backend();
	const uint32_t M = 7, K = 13, N = 9;
	for (int f16 = 0; f16 < 2; f16++)
		for (int variant = 0; variant < 8; variant++) {
			enum wnn_dtype t = f16 ? WNN_F16 : WNN_F32;
			bool ta = variant & 1, tb = variant & 2;
			int cmode = variant >> 2 ? (variant & 1 ? 2 : 1) : 0; /* none, [N], [M,N] */
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t a = tg_input(&tg, t, 2, ta ? (uint32_t[]){ K, M } : (uint32_t[]){ M, K });
			uint32_t bb = tg_input(&tg, t, 2, tb ? (uint32_t[]){ N, K } : (uint32_t[]){ K, N });
			uint32_t c = 0;
			if (cmode == 1)
				c = tg_input(&tg, t, 1, (uint32_t[]){ N });
			else if (cmode == 2)
				c = tg_input(&tg, t, 2, (uint32_t[]){ M, N });
			Webnn__Ipc__Gemm m = WEBNN__IPC__GEMM__INIT;
			m.a = a;
			m.b = bb;
			m.has_c = cmode != 0;
			m.c = c;
			m.output = tg_next(&tg);
			m.has_alpha = m.has_beta = 1;
			m.alpha = 0.5;
			m.beta = variant == 7 ? 0 : 1.5;
			m.has_a_transpose = m.has_b_transpose = 1;
			m.a_transpose = ta;
			m.b_transpose = tb;
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_GEMM, &m);
			char label[64];
			snprintf(label, sizeof label, "gemm %s variant %d", wnn_dtype_name(t), variant);
			ot_check(be, ot_finish(&tg, &o, label), -1, 1, f16 ? TOL_F16_SUM : TOL_SUM, label);
			tg_free(&tg);
		}
	ot_impl->shutdown(be);
}

OT_TEST(ops_linalg, matmul_broadcast, 300)
{
	struct backend *be = ot_backend();
	static const struct {
		uint32_t ra, rb, a[4], b[4];
	} cases[] = {
		{ 2, 2, { 5, 6 }, { 6, 4 } },
		{ 3, 3, { 3, 5, 6 }, { 3, 6, 4 } },    /* strided batch */
		{ 3, 2, { 3, 5, 6 }, { 6, 4 } },       /* shared b: one tall gemm */
		{ 2, 3, { 5, 6 }, { 3, 6, 4 } },       /* broadcast a */
		{ 4, 3, { 2, 1, 5, 6 }, { 3, 6, 4 } }, /* both broadcast */
		{ 3, 3, { 64, 33, 70 }, { 64, 70, 65 } },
	};
	for (int f16 = 0; f16 < 2; f16++)
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			enum wnn_dtype t = f16 ? WNN_F16 : WNN_F32;
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t a = tg_input(&tg, t, cases[i].ra, cases[i].a);
			uint32_t bb = tg_input(&tg, t, cases[i].rb, cases[i].b);
			Webnn__Ipc__Matmul m = WEBNN__IPC__MATMUL__INIT;
			m.a = a;
			m.b = bb;
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_MATMUL, &m);
			char label[64];
			snprintf(label, sizeof label, "matmul %s case %zu", wnn_dtype_name(t), i);
			ot_check(be, ot_finish(&tg, &o, label), -1, 1, f16 ? TOL_F16_SUM : TOL_SUM, label);
			tg_free(&tg);
		}
	ot_impl->shutdown(be);
}
