/* Tests of the gather/scatter family (gather, gatherElements, gatherND, scatterElements, scatterND): hand-computed vectors through libwebnn, validation, the reference backend's kernels, the OpenCL backend against the reference. */
#include "daemon/backend/opencl/ocl.h"
#include "tests/ocltest.h"
#include "tests/opvectors.h"
#include "tests/reftest.h"
#include "tests/opfixture.h"
#include "tests/test.h"

/* ==== hand-computed vectors through libwebnn on both backends (tests/opvectors.h) */

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

/* ==== validation and shape inference (proto/schema_<family>.c) */

TEST(ops_gather_schema_gather_scatter)
{
	struct fx f = { 0 };
	uint32_t x = T(&f, WNN_F32, 4, 3), idx = T(&f, WNN_U32, 2, 2), fidx = T(&f, WNN_F32, 2);
	uint32_t o = SLOT(&f);
	Webnn__Ipc__Gather gm = WEBNN__IPC__GATHER__INIT;
	Webnn__Ipc__Operation op = st_mkop(WNN_OP_GATHER);
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
	op = st_mkop(WNN_OP_SCATTER_ND);
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

/* ==== reference backend: hand-computed and literal WPT values through its kernels */

TEST(ops_gather_reference_negative_and_out_of_range_indices)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	uint32_t i = rt_constant(&t, WNN_I64, SHAPE(4), D(2, -1, -3, 99)); /* -3 -> 0, 99 clamps to 2 */
	Webnn__Ipc__Gather *m = MSG(Webnn__Ipc__Gather, WEBNN__IPC__GATHER__INIT);
	m->input = x, m->indices = i, m->output = tg_next(&t), m->axis = 1;
	uint32_t o = rt_op(&t, WNN_OP_GATHER, m);
	rt_expect_shape(&t, o, SHAPE(2, 4));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6)), D(3, 3, 1, 3, 6, 6, 4, 6), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	i = rt_constant(&t, WNN_U32, SHAPE(1, 3), D(1, 0, 7));
	m = MSG(Webnn__Ipc__Gather, WEBNN__IPC__GATHER__INIT);
	m->input = x, m->indices = i, m->output = tg_next(&t), m->axis = 0;
	o = rt_op(&t, WNN_OP_GATHER_ELEMENTS, m);
	rt_expect_shape(&t, o, SHAPE(1, 3));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6)), D(4, 2, 6), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_I8, SHAPE(2, 2, 2));
	i = rt_constant(&t, WNN_I32, SHAPE(3, 2), D(0, 1, -1, 0, 5, -9));
	m = MSG(Webnn__Ipc__Gather, WEBNN__IPC__GATHER__INIT);
	m->input = x, m->indices = i, m->output = tg_next(&t);
	o = rt_op(&t, WNN_OP_GATHER_ND, m);
	rt_expect_shape(&t, o, SHAPE(3, 2));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6, 7, 8)), D(3, 4, 5, 6, 5, 6), 0); /* (1, -9): -7 clamps to 0 */
	tg_free(&t);
}

TEST(ops_gather_reference_scatter_elements_and_nd)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	uint32_t i = rt_constant(&t, WNN_I32, SHAPE(2, 2), D(2, 2, 0, -1)); /* duplicate: later wins */
	uint32_t u = tg_input(&t, WNN_F32, SHAPE(2, 2));
	Webnn__Ipc__Scatter *m = MSG(Webnn__Ipc__Scatter, WEBNN__IPC__SCATTER__INIT);
	m->input = x, m->indices = i, m->updates = u, m->output = tg_next(&t), m->axis = 1;
	rt_op(&t, WNN_OP_SCATTER_ELEMENTS, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(10, 20, 30, 40)), D(1, 2, 20, 30, 5, 40), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_I64, SHAPE(3, 2));
	i = rt_constant(&t, WNN_I64, SHAPE(2, 1), D(-1, 50)); /* row 2, then row 2 again (clamped) */
	u = tg_input(&t, WNN_I64, SHAPE(2, 2));
	m = MSG(Webnn__Ipc__Scatter, WEBNN__IPC__SCATTER__INIT);
	m->input = x, m->indices = i, m->updates = u, m->output = tg_next(&t);
	rt_op(&t, WNN_OP_SCATTER_ND, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10)), D(1, 2, 3, 4, 9, 10), 0);
	tg_free(&t);
}

/* ---- literal WPT data copied from shared/conformance (BSD-3-Clause; see LICENSE.wpt.md there);
 * every operand is made a constant, graph inputs are covered by the tests above */

/* gatherND.json: "gatherND float32 2D input and 2D out-of-bounds indices" (tolerance ULP 0) */
/* float32 [16, 1] */
static const double cx_gnd_oob_gatherNDInput[] = {
	-66.05901336669922, -68.9197006225586, -77.02045440673828, -26.158037185668945,
	89.0337142944336, -45.89653396606445, 43.84803771972656, 48.81806945800781, 51.79948425292969,
	41.94132614135742, -1.1303654909133911, -50.42131042480469, 90.2870101928711,
	55.620765686035156, 44.92119598388672, 56.828636169433594
};
/* int32 [2, 1] constant */
static const double cx_gnd_oob_gatherNDIndices[] = { 16, 20 };
/* float32 [2, 1] */
static const double cx_gnd_oob_gatherNDOutput[] = { 56.828636169433594, 56.828636169433594 };

/* gatherElements.json: "gatherElements float32 3D input and int32 negative indices" (tolerance ULP 0) */
/* float32 [2, 2, 2] */
static const double cx_ge_neg_gatherElementsInput[] = {
	-66.05901336669922, -68.9197006225586, -77.02045440673828, -26.158037185668945,
	89.0337142944336, -45.89653396606445, 43.84803771972656, 48.81806945800781
};
/* int32 [1, 2, 2] constant */
static const double cx_ge_neg_gatherElementsIndices[] = { -1, 0, 0, -1 };
/* float32 [1, 2, 2] */
static const double cx_ge_neg_gatherElementsOutput[] = {
	89.0337142944336, -68.9197006225586, -77.02045440673828, 48.81806945800781
};

/* scatterND.json: "scatterND 2D int8 tensors with index out of bound" (tolerance ULP 0) */
/* int8 [2, 1] */
static const double cx_snd_oob_input[] = { 0, 0 };
/* int32 [1, 1] */
static const double cx_snd_oob_indices[] = { 2147483647 };
/* int8 [1, 1] */
static const double cx_snd_oob_updates[] = { 1 };
/* int8 [2, 1] */
static const double cx_snd_oob_output[] = { 0, 1 };

/* scatterElements.json: "scatterElements float32 tensors along axis 1" (tolerance ULP 0) */
/* float32 [1, 5] */
static const double cx_se_axis1_input[] = { 1, 2, 3, 4, 5 };
/* int32 [1, 2] */
static const double cx_se_axis1_indices[] = { 1, 3 };
/* float32 [1, 2] */
static const double cx_se_axis1_updates[] = { 1.1, 2.1 };
/* float32 [1, 5] */
static const double cx_se_axis1_output[] = { 1, 1.1, 3, 2.1, 5 };

TEST(ops_gather_reference_wpt_gather_scatter_out_of_bounds)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_gnd_oob_gatherNDInput, 16, 1);
	uint32_t i = C(&t, WNN_I32, cx_gnd_oob_gatherNDIndices, 2, 1);
	Webnn__Ipc__Gather *g = MSG(Webnn__Ipc__Gather, WEBNN__IPC__GATHER__INIT);
	g->input = x, g->indices = i, g->output = tg_next(&t);
	rt_op(&t, WNN_OP_GATHER_ND, g);
	rt_expect(&t, NULL, cx_gnd_oob_gatherNDOutput, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_ge_neg_gatherElementsInput, 2, 2, 2);
	i = C(&t, WNN_I32, cx_ge_neg_gatherElementsIndices, 1, 2, 2);
	g = MSG(Webnn__Ipc__Gather, WEBNN__IPC__GATHER__INIT);
	g->input = x, g->indices = i, g->output = tg_next(&t);
	rt_op(&t, WNN_OP_GATHER_ELEMENTS, g);
	rt_expect(&t, NULL, cx_ge_neg_gatherElementsOutput, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_I8, cx_snd_oob_input, 2, 1);
	i = C(&t, WNN_I32, cx_snd_oob_indices, 1, 1);
	uint32_t u = C(&t, WNN_I8, cx_snd_oob_updates, 1, 1);
	Webnn__Ipc__Scatter *s = MSG(Webnn__Ipc__Scatter, WEBNN__IPC__SCATTER__INIT);
	s->input = x, s->indices = i, s->updates = u, s->output = tg_next(&t);
	rt_op(&t, WNN_OP_SCATTER_ND, s);
	rt_expect(&t, NULL, cx_snd_oob_output, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_se_axis1_input, 1, 5);
	i = C(&t, WNN_I32, cx_se_axis1_indices, 1, 2);
	u = C(&t, WNN_F32, cx_se_axis1_updates, 1, 2);
	s = MSG(Webnn__Ipc__Scatter, WEBNN__IPC__SCATTER__INIT);
	s->input = x, s->indices = i, s->updates = u, s->output = tg_next(&t), s->axis = 1;
	rt_op(&t, WNN_OP_SCATTER_ELEMENTS, s);
	rt_expect(&t, NULL, cx_se_axis1_output, 0);
	tg_free(&t);
}

/* ==== OpenCL backend against the reference: seeded inputs through both (tests/ocltest.h) */

static const enum wnn_dtype INDEX_TYPES[] = { WNN_I32, WNN_U32, WNN_I64 };

OT_TEST(ops_gather, gather_scatter, 180)
{
	struct backend *be = ot_backend();
	static const enum wnn_dtype types[] = { WNN_F32, WNN_F16, WNN_I64, WNN_U8 };
	char label[128];
	for (size_t ti = 0; ti < 4; ti++) {
		enum wnn_dtype t = types[ti];
		for (size_t ii = 0; ii < 3; ii++) {
			enum wnn_dtype it = INDEX_TYPES[ii];
			/* indices range past both ends: out-of-range values are clamped */
			struct range ir = { it == WNN_U32 ? 0 : -7, 7 };
			const char *tn = wnn_dtype_name(t), *in = wnn_dtype_name(it);
			for (uint32_t axis = 0; axis < 3; axis++) {
				struct tg_graph tg;
				tg_init(&tg);
				uint32_t x = tg_input(&tg, t, 3, (uint32_t[]){ 4, 3, 5 });
				uint32_t ix = tg_input(&tg, it, 2, (uint32_t[]){ 2, 3 });
				Webnn__Ipc__Gather m = WEBNN__IPC__GATHER__INIT;
				m.input = x;
				m.indices = ix;
				m.has_axis = 1;
				m.axis = axis;
				m.output = tg_next(&tg);
				Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
				tg_set_op(&o, WNN_OP_GATHER, &m);
				snprintf(label, sizeof label, "gather axis %u %s %s", axis, tn, in);
				const struct graph_ir *g = ot_finish(&tg, &o, label);
				struct range r[2] = { { 0, 0 }, ir };
				ot_check_ranges(be, g, r, 2, ot_type_lo(t, -9), 9, TOL_EXACT, label);
				tg_free(&tg);
			}
			for (uint32_t axis = 0; axis < 2; axis++) {
				struct tg_graph tg;
				tg_init(&tg);
				uint32_t x = tg_input(&tg, t, 2, (uint32_t[]){ 4, 5 });
				uint32_t idims[2] = { 4, 5 };
				idims[axis] = 3;
				uint32_t ix = tg_input(&tg, it, 2, idims);
				Webnn__Ipc__Gather m = WEBNN__IPC__GATHER__INIT;
				m.input = x;
				m.indices = ix;
				m.has_axis = 1;
				m.axis = axis;
				m.output = tg_next(&tg);
				Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
				tg_set_op(&o, WNN_OP_GATHER_ELEMENTS, &m);
				snprintf(label, sizeof label, "gatherElements axis %u %s %s", axis, tn,
					 in);
				const struct graph_ir *g = ot_finish(&tg, &o, label);
				struct range r[2] = { { 0, 0 }, ir };
				ot_check_ranges(be, g, r, 2, ot_type_lo(t, -9), 9, TOL_EXACT, label);
				tg_free(&tg);
			}
			for (uint32_t k = 1; k <= 3; k++) {
				struct tg_graph tg;
				tg_init(&tg);
				uint32_t x = tg_input(&tg, t, 3, (uint32_t[]){ 4, 3, 5 });
				uint32_t ix = tg_input(&tg, it, 3, (uint32_t[]){ 2, 2, k });
				Webnn__Ipc__Gather m = WEBNN__IPC__GATHER__INIT;
				m.input = x;
				m.indices = ix;
				m.output = tg_next(&tg);
				Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
				tg_set_op(&o, WNN_OP_GATHER_ND, &m);
				snprintf(label, sizeof label, "gatherND k %u %s %s", k, tn, in);
				const struct graph_ir *g = ot_finish(&tg, &o, label);
				struct range r[2] = { { 0, 0 }, ir };
				ot_check_ranges(be, g, r, 2, ot_type_lo(t, -9), 9, TOL_EXACT, label);
				tg_free(&tg);
			}
			for (uint32_t axis = 0; axis < 2; axis++) {
				struct tg_graph tg;
				tg_init(&tg);
				uint32_t x = tg_input(&tg, t, 2, (uint32_t[]){ 4, 5 });
				uint32_t idims[2] = { 4, 5 };
				idims[axis] = 6; /* more updates than the axis: duplicates */
				uint32_t ix = tg_input(&tg, it, 2, idims);
				uint32_t up = tg_input(&tg, t, 2, idims);
				Webnn__Ipc__Scatter m = WEBNN__IPC__SCATTER__INIT;
				m.input = x;
				m.indices = ix;
				m.updates = up;
				m.has_axis = 1;
				m.axis = axis;
				m.output = tg_next(&tg);
				Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
				tg_set_op(&o, WNN_OP_SCATTER_ELEMENTS, &m);
				snprintf(label, sizeof label, "scatterElements axis %u %s %s", axis, tn,
					 in);
				const struct graph_ir *g = ot_finish(&tg, &o, label);
				struct range r[3] = { { 0, 0 }, ir, { 0, 0 } };
				ot_check_ranges(be, g, r, 3, ot_type_lo(t, -9), 9, TOL_EXACT, label);
				tg_free(&tg);
			}
			for (uint32_t k = 1; k <= 3; k++) {
				struct tg_graph tg;
				tg_init(&tg);
				static const uint32_t in_dims[3] = { 4, 3, 5 };
				uint32_t x = tg_input(&tg, t, 3, in_dims);
				uint32_t ix = tg_input(&tg, it, 2, (uint32_t[]){ 5, k });
				uint32_t udims[4] = { 5 };
				for (uint32_t d = k; d < 3; d++)
					udims[1 + d - k] = in_dims[d];
				uint32_t up = tg_input(&tg, t, 1 + 3 - k, udims);
				Webnn__Ipc__Scatter m = WEBNN__IPC__SCATTER__INIT;
				m.input = x;
				m.indices = ix;
				m.updates = up;
				m.output = tg_next(&tg);
				Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
				tg_set_op(&o, WNN_OP_SCATTER_ND, &m);
				snprintf(label, sizeof label, "scatterND k %u %s %s", k, tn, in);
				const struct graph_ir *g = ot_finish(&tg, &o, label);
				struct range r[3] = { { 0, 0 }, ir, { 0, 0 } };
				ot_check_ranges(be, g, r, 3, ot_type_lo(t, -9), 9, TOL_EXACT, label);
				tg_free(&tg);
			}
		}
	}
	ot_impl->shutdown(be);
}

/* Hostile indices (the extremes of each index type) stay inside the input: literal values. */
OT_TEST(ops_gather, hostile_indices, 0)
{
	struct backend *be = ot_backend();
	struct tg_graph tg;
	tg_init(&tg);
	uint32_t x = tg_input(&tg, WNN_F32, 1, (uint32_t[]){ 4 });
	uint32_t ix = tg_input(&tg, WNN_I64, 1, (uint32_t[]){ 6 });
	Webnn__Ipc__Gather m = WEBNN__IPC__GATHER__INIT;
	m.input = x;
	m.indices = ix;
	m.output = tg_next(&tg);
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, WNN_OP_GATHER, &m);
	const struct graph_ir *g = ot_finish(&tg, &o, "gather hostile");
	float xv[4] = { 10, 11, 12, 13 };
	int64_t iv[6] = { INT64_MIN, INT64_MAX, -1, -4, -5, 1LL << 40 };
	float out[6];
	const void *in[2] = { xv, iv };
	void *outs[1] = { out };
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(tg_run(ot_impl, be, g, in, outs, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	double ev[6] = { 10, 13, 13, 10, 10, 13 };
	char msg[200];
	ASSERT_MSG(tg_compare_values(out, WNN_F32, ev, 6, 0, 0, msg, sizeof msg), "%s", msg);
	tg_free(&tg);

	/* scatterND with uint32 indices at UINT32_MAX: clamped to the last row */
	tg_init(&tg);
	x = tg_input(&tg, WNN_I32, 2, (uint32_t[]){ 3, 2 });
	ix = tg_input(&tg, WNN_U32, 2, (uint32_t[]){ 2, 1 });
	uint32_t up = tg_input(&tg, WNN_I32, 2, (uint32_t[]){ 2, 2 });
	Webnn__Ipc__Scatter s = WEBNN__IPC__SCATTER__INIT;
	s.input = x;
	s.indices = ix;
	s.updates = up;
	s.output = tg_next(&tg);
	Webnn__Ipc__Operation o2 = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o2, WNN_OP_SCATTER_ND, &s);
	g = ot_finish(&tg, &o2, "scatterND hostile");
	int32_t xs[6] = { 1, 2, 3, 4, 5, 6 }, us[4] = { 7, 8, 9, 10 }, os[6];
	uint32_t is[2] = { UINT32_MAX, 0 };
	const void *in2[3] = { xs, is, us };
	void *outs2[1] = { os };
	ASSERT_MSG(tg_run(ot_impl, be, g, in2, outs2, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	double es[6] = { 9, 10, 3, 4, 7, 8 };
	ASSERT_MSG(tg_compare_values(os, WNN_I32, es, 6, 0, 0, msg, sizeof msg), "%s", msg);
	tg_free(&tg);
	ot_impl->shutdown(be);
}
