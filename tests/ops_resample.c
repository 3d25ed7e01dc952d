/* Tests of the resample family (resample2d): hand-computed vectors through libwebnn, the reference backend's kernels, the OpenCL backend against the reference. */
#include "daemon/backend/opencl/ocl.h"
#include "tests/ocltest.h"
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

/* ==== OpenCL backend against the reference: seeded inputs through both (tests/ocltest.h) */

OT_TEST(ops_resample, resample2d, 120)
{
	struct backend *be = ot_backend();
	char label[128];
	static const enum wnn_dtype types[] = { WNN_F32, WNN_F16, WNN_I8, WNN_U8 };
	for (size_t ti = 0; ti < 4; ti++)
		for (int v = 0; v < 16; v++) {
			enum wnn_dtype t = types[ti];
			Webnn__Ipc__Resample2d m = WEBNN__IPC__RESAMPLE2D__INIT;
			m.has_mode = 1;
			m.mode = v & 1 ? WEBNN__IPC__INTERPOLATION_MODE__LINEAR
				       : WEBNN__IPC__INTERPOLATION_MODE__NEAREST_NEIGHBOR;
			float scales[2] = { 2.0f, 1.5f };
			/* axes in any order, adjacent or not */
			static const uint32_t axsets[4][2] = { { 2, 3 }, { 1, 2 }, { 3, 0 }, { 2, 1 } };
			uint32_t sizes[2] = { 3, 7 }, axes[2] = { axsets[v >> 2][0], axsets[v >> 2][1] };
			if (v & 2) {
				m.n_sizes = 2;
				m.sizes = sizes;
			} else {
				m.n_scales = 2;
				m.scales = scales;
			}
			if (v >> 2) {
				m.n_axes = 2;
				m.axes = axes;
			}
			snprintf(label, sizeof label, "resample2d %d %s", v, wnn_dtype_name(t));
			/* the float math of linear interpolation may land either side of .5 */
			ot_int_atol = (v & 1) ? 1 : 0;
			/* interpolating values up to 50 in float: absolute error ~ 50 * 2^-23 */
			struct tol tol = t == WNN_F16 ? TOL_F16 : (struct tol){ 8, 1e-4, 1e-5 };
			OT_RUN1(be, t, 4, ((uint32_t[]){ 2, 4, 6, 5 }), WNN_OP_RESAMPLE2D, m,
			     ot_type_lo(t, -50), 50, tol, label);
		}
	ot_impl->shutdown(be);
}

/* The spec's worked example: [4, 4] -> [8, 8] linear, literal values. */
OT_TEST(ops_resample, spec_example, 0)
{
	struct backend *be = ot_backend();
	struct tg_graph tg;
	tg_init(&tg);
	uint32_t x = tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 1, 1, 4, 4 });
	Webnn__Ipc__Resample2d m = WEBNN__IPC__RESAMPLE2D__INIT;
	uint32_t sizes[2] = { 8, 8 };
	m.input = x;
	m.has_mode = 1;
	m.mode = WEBNN__IPC__INTERPOLATION_MODE__LINEAR;
	m.n_sizes = 2;
	m.sizes = sizes;
	m.output = tg_next(&tg);
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, WNN_OP_RESAMPLE2D, &m);
	const struct graph_ir *g = ot_finish(&tg, &o, "resample example");
	float in[16] = { 0, 1, 2, 3, 0, 1, 2, 3, 12, 13, 14, 15, 12, 13, 14, 15 };
	float out[64];
	const void *ins[1] = { in };
	void *outs[1] = { out };
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(tg_run(ot_impl, be, g, ins, outs, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	static const double row[8] = { 0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3 };
	static const double add[8] = { 0, 0, 0, 3, 9, 12, 12, 12 };
	double ev[64];
	for (int r = 0; r < 8; r++)
		for (int c = 0; c < 8; c++)
			ev[r * 8 + c] = row[c] + add[r];
	char msg[200];
	ASSERT_MSG(tg_compare_values(out, WNN_F32, ev, 64, 4, 1e-6, msg, sizeof msg), "%s", msg);
	tg_free(&tg);
	ot_impl->shutdown(be);
}
