/* Tests of the resample family (resample2d): hand-computed vectors through libwebnn, the reference backend's kernels. */
#include "tests/opvectors.h"
#include "tests/reftest.h"
#include "tests/test.h"

/* ==== hand-computed vectors through libwebnn on both backends (tests/opvectors.h) */

static enum webnn_status resample_default(struct webnn_builder *b,
					  struct webnn_operand *const *in,
					  struct webnn_operand **out)
{
	return webnn_builder_resample2d(b, in[0], NULL, out);
}

static enum webnn_status resample_nearest_x2(struct webnn_builder *b,
					     struct webnn_operand *const *in,
					     struct webnn_operand **out)
{
	struct webnn_resample2d_options o = WEBNN_RESAMPLE2D_OPTIONS_INIT;
	o.n_scales = 2;
	o.scales[0] = o.scales[1] = 2;
	return webnn_builder_resample2d(b, in[0], &o, out);
}

static enum webnn_status resample_linear_4x4(struct webnn_builder *b,
					     struct webnn_operand *const *in,
					     struct webnn_operand **out)
{
	struct webnn_resample2d_options o = WEBNN_RESAMPLE2D_OPTIONS_INIT;
	o.mode = WEBNN_INTERPOLATION_LINEAR;
	o.n_sizes = 2;
	o.sizes[0] = o.sizes[1] = 4;
	return webnn_builder_resample2d(b, in[0], &o, out);
}

#define IMAGE_2X2(type_) OV_IN(type_, 4, OV_SHAPE(1, 1, 2, 2), 1, 2, 3, 4)

static const struct op_vector resample_vectors[] = {
	{ WNN_OP_RESAMPLE2D, "float32 default options (scales 1)", .build = resample_default,
	  .in = { IMAGE_2X2(WEBNN_FLOAT32) }, .want = { IMAGE_2X2(WEBNN_FLOAT32) } },
	{ WNN_OP_RESAMPLE2D, "float32 nearest neighbor, scales 2", .build = resample_nearest_x2,
	  .in = { IMAGE_2X2(WEBNN_FLOAT32) },
	  .want = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 4, 4), 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4,
			  4, 3, 3, 4, 4) } },
	{ WNN_OP_RESAMPLE2D, "uint8 nearest neighbor, scales 2", .build = resample_nearest_x2,
	  .in = { IMAGE_2X2(WEBNN_UINT8) },
	  .want = { OV_IN(WEBNN_UINT8, 4, OV_SHAPE(1, 1, 4, 4), 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4,
			  4, 3, 3, 4, 4) } },
	/* source coordinate (d + 0.5) / 2 - 0.5, clamped to the edge: weights 0, 0.25, 0.75, 1 */
	{ WNN_OP_RESAMPLE2D, "float32 linear, sizes 4x4", .build = resample_linear_4x4,
	  .in = { IMAGE_2X2(WEBNN_FLOAT32) },
	  .want = { OV_IN(WEBNN_FLOAT32, 4, OV_SHAPE(1, 1, 4, 4), 1, 1.25, 1.75, 2, 1.5, 1.75,
			  2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4) } },
};
OV_TABLE(RESAMPLE, resample_vectors);

OV_FAMILY_TESTS(RESAMPLE, resample)

/* ==== reference backend: hand-computed and literal WPT values through its kernels */

TEST(ops_resample_reference_nearest_and_linear)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	Webnn__Ipc__Resample2d *m = MSG(Webnn__Ipc__Resample2d, WEBNN__IPC__RESAMPLE2D__INIT);
	m->input = x, m->output = tg_next(&t);
	m->n_scales = 2, m->scales = rt_arena(2 * sizeof(float)), m->scales[0] = 2, m->scales[1] = 2;
	uint32_t o = rt_op(&t, WNN_OP_RESAMPLE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 4, 4));
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4), 0);
	tg_free(&t);

	/* linear, sizes: half-pixel coordinates clamped at the edges */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 1, 2));
	m = MSG(Webnn__Ipc__Resample2d, WEBNN__IPC__RESAMPLE2D__INIT);
	m->input = x, m->output = tg_next(&t), m->mode = WEBNN__IPC__INTERPOLATION_MODE__LINEAR;
	LIST(m, sizes, 1, 4);
	rt_op(&t, WNN_OP_RESAMPLE2D, m);
	rt_expect(&t, INS(D(0, 4)), D(0, 1, 3, 4), 0);
	tg_free(&t);

	/* uint8 linear rounds to nearest; axes [0, 1] */
	tg_init(&t);
	x = tg_input(&t, WNN_U8, SHAPE(1, 2, 1, 1));
	m = MSG(Webnn__Ipc__Resample2d, WEBNN__IPC__RESAMPLE2D__INIT);
	m->input = x, m->output = tg_next(&t), m->mode = WEBNN__IPC__INTERPOLATION_MODE__LINEAR;
	LIST(m, sizes, 1, 4);
	LIST(m, axes, 0, 1);
	o = rt_op(&t, WNN_OP_RESAMPLE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 4, 1, 1));
	rt_expect(&t, INS(D(0, 3)), D(0, 1, 2, 3), 0);
	tg_free(&t);
}
