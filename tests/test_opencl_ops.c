/* OpenCL tests of each operator family against the reference backend on seeded inputs. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/backend/opencl/ocl.h"
#include "tests/graphs.h"
#include "tests/ocltest.h"
#include "tests/test.h"

#define N_TYPES (sizeof ALL_TYPES / sizeof ALL_TYPES[0])

static bool is_unsigned(enum wnn_dtype t)
{
	return t == WNN_U8 || t == WNN_U32 || t == WNN_U64;
}

static bool is_float(enum wnn_dtype t)
{
	return t == WNN_F32 || t == WNN_F16;
}

static int n_compared;
/* Allowed difference of integer outputs (linear resampling rounds an inexact value). */
static double int_atol;

/* Runs g on the reference and on OpenCL with the same seeded inputs and compares every
 * output (integer outputs exactly). */
static void compare_r(struct backend *be, const struct graph_ir *g, const struct range *r,
		      size_t n_r, double lo, double hi, struct tol tol, const char *label)
{
	ot_compare(be, g, r, n_r, lo, hi, tol, int_atol, 4321, 91, label);
	n_compared++;
}

static void compare(struct backend *be, const struct graph_ir *g, double lo, double hi,
		    struct tol tol, const char *label)
{
	compare_r(be, g, NULL, 0, lo, hi, tol, label);
}

/* Builds input(t, dims) -> op(msg) and compares; msg has .input and .output members. */
#define RUN1(be, t, rank, dims, kind, msg, lo, hi, tol, label)                                 \
	do {                                                                                   \
		struct tg_graph tg_;                                                           \
		tg_init(&tg_);                                                                 \
		(msg).input = tg_input(&tg_, (t), (rank), (dims));                             \
		(msg).output = tg_next(&tg_);                                                  \
		Webnn__Ipc__Operation o_ = WEBNN__IPC__OPERATION__INIT;                        \
		tg_set_op(&o_, (kind), &(msg));                                                \
		const struct graph_ir *g_ = ot_finish(&tg_, &o_, (label));                \
		compare(be, g_, (lo), (hi), (tol), (label));                                   \
		tg_free(&tg_);                                                                 \
	} while (0)

static double type_lo(enum wnn_dtype t, double lo)
{
	return is_unsigned(t) ? 0 : lo;
}

/* ------------------------------------------------------------------ support table */

TEST(opencl_supports_exactly_the_spec_types)
{
	struct backend *be = ot_backend();
	static const enum wnn_op ops[] = {
		WNN_OP_ARG_MIN, WNN_OP_ARG_MAX, WNN_OP_CAST, WNN_OP_CUMULATIVE_SUM,
		WNN_OP_CONV_TRANSPOSE2D, WNN_OP_QUANTIZE_LINEAR, WNN_OP_DEQUANTIZE_LINEAR,
		WNN_OP_EXPAND, WNN_OP_GATHER, WNN_OP_GATHER_ELEMENTS, WNN_OP_GATHER_ND,
		WNN_OP_SCATTER_ELEMENTS, WNN_OP_SCATTER_ND, WNN_OP_GRU, WNN_OP_GRU_CELL,
		WNN_OP_LSTM, WNN_OP_LSTM_CELL, WNN_OP_INSTANCE_NORMALIZATION,
		WNN_OP_LAYER_NORMALIZATION, WNN_OP_PAD, WNN_OP_PRELU, WNN_OP_REDUCE_L1,
		WNN_OP_REDUCE_L2, WNN_OP_REDUCE_LOG_SUM, WNN_OP_REDUCE_LOG_SUM_EXP,
		WNN_OP_REDUCE_MAX, WNN_OP_REDUCE_MEAN, WNN_OP_REDUCE_MIN, WNN_OP_REDUCE_PRODUCT,
		WNN_OP_REDUCE_SUM, WNN_OP_REDUCE_SUM_SQUARE, WNN_OP_RESAMPLE2D, WNN_OP_REVERSE,
		WNN_OP_SLICE, WNN_OP_SPLIT, WNN_OP_TILE, WNN_OP_TRIANGULAR, WNN_OP_WHERE,
	};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		for (size_t ti = 0; ti < N_TYPES; ti++) {
			enum wnn_dtype t = ALL_TYPES[ti];
			bool want = (wnn_ops[ops[i]].dtypes & WNN_DT_BIT(t)) != 0;
			ASSERT_MSG(backend_opencl.supports(be, ops[i], t) == want, "%s %s: %d",
				   wnn_ops[ops[i]].name, wnn_dtype_name(t), !want);
		}
	/* every operator of ops.def is now covered for every type its column allows */
	for (int op = 0; op < WNN_OP_COUNT; op++)
		for (size_t ti = 0; ti < N_TYPES; ti++) {
			enum wnn_dtype t = ALL_TYPES[ti];
			if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
				continue;
			bool ew = wnn_ops[op].attrs == WNN_ATTRS_UNARY ||
				  wnn_ops[op].attrs == WNN_ATTRS_BINARY;
			if (ew)
				continue;
			ASSERT_MSG(backend_opencl.supports(be, (enum wnn_op)op, t), "%s %s",
				   wnn_ops[op].name, wnn_dtype_name(t));
		}
	backend_opencl.shutdown(be);
}

/* ------------------------------------------------------------------ data movement */

TEST_TIMEOUT(opencl_data_movement_all_types, 180)
{
	struct backend *be = ot_backend();
	for (size_t ti = 0; ti < N_TYPES; ti++) {
		enum wnn_dtype t = ALL_TYPES[ti];
		const char *tn = wnn_dtype_name(t);
		double lo = type_lo(t, -50), hi = 50;
		char label[128];
		{
			Webnn__Ipc__Expand m = WEBNN__IPC__EXPAND__INIT;
			uint32_t shape[4] = { 2, 3, 4, 5 };
			m.n_new_shape = 4;
			m.new_shape = shape;
			snprintf(label, sizeof label, "expand %s", tn);
			RUN1(be, t, 3, ((uint32_t[]){ 3, 1, 5 }), WNN_OP_EXPAND, m, lo, hi, TOL_EXACT,
			     label);
			uint32_t shape2[2] = { 4, 6 };
			m.n_new_shape = 2;
			m.new_shape = shape2;
			RUN1(be, t, 0, NULL, WNN_OP_EXPAND, m, lo, hi, TOL_EXACT, label);
		}
		{
			Webnn__Ipc__Tile m = WEBNN__IPC__TILE__INIT;
			uint32_t reps[3] = { 2, 1, 3 };
			m.n_repetitions = 3;
			m.repetitions = reps;
			snprintf(label, sizeof label, "tile %s", tn);
			RUN1(be, t, 3, ((uint32_t[]){ 2, 3, 4 }), WNN_OP_TILE, m, lo, hi, TOL_EXACT,
			     label);
		}
		{
			Webnn__Ipc__Slice m = WEBNN__IPC__SLICE__INIT;
			uint32_t starts[3] = { 1, 0, 2 }, sizes[3] = { 3, 2, 5 }, strides[3] = { 2, 1, 2 };
			m.n_starts = m.n_sizes = 3;
			m.starts = starts;
			m.sizes = sizes;
			snprintf(label, sizeof label, "slice %s", tn);
			RUN1(be, t, 3, ((uint32_t[]){ 4, 3, 7 }), WNN_OP_SLICE, m, lo, hi, TOL_EXACT,
			     label);
			m.n_strides = 3;
			m.strides = strides;
			RUN1(be, t, 3, ((uint32_t[]){ 4, 3, 7 }), WNN_OP_SLICE, m, lo, hi, TOL_EXACT,
			     label);
		}
		{
			Webnn__Ipc__Reverse m = WEBNN__IPC__REVERSE__INIT;
			snprintf(label, sizeof label, "reverse all %s", tn);
			RUN1(be, t, 3, ((uint32_t[]){ 2, 3, 4 }), WNN_OP_REVERSE, m, lo, hi, TOL_EXACT,
			     label);
			uint32_t axes[1] = { 1 };
			m.n_axes = 1;
			m.axes = axes;
			m.has_has_axes = 1;
			m.has_axes = 1;
			snprintf(label, sizeof label, "reverse axis 1 %s", tn);
			RUN1(be, t, 3, ((uint32_t[]){ 2, 3, 4 }), WNN_OP_REVERSE, m, lo, hi, TOL_EXACT,
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
			RUN1(be, t, 3, ((uint32_t[]){ 3, 2, 4 }), WNN_OP_PAD, m, lo, hi, TOL_EXACT,
			     label);
		}
		for (int k = 0; k < 4; k++) {
			Webnn__Ipc__Triangular m = WEBNN__IPC__TRIANGULAR__INIT;
			m.has_upper = 1;
			m.upper = k & 1;
			m.has_diagonal = 1;
			m.diagonal = k < 2 ? 0 : (k == 2 ? -1 : 2);
			snprintf(label, sizeof label, "triangular %d %s", k, tn);
			RUN1(be, t, 3, ((uint32_t[]){ 2, 4, 5 }), WNN_OP_TRIANGULAR, m, lo, hi,
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
				compare(be, g, lo, hi, TOL_EXACT, label);
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
			compare_r(be, g, r, 3, lo, hi, TOL_EXACT, label);
			tg_free(&tg);
		}
	}
	ASSERT(n_compared >= 8 * 17);
	backend_opencl.shutdown(be);
}

/* ------------------------------------------------------------------ gather / scatter */

static const enum wnn_dtype INDEX_TYPES[] = { WNN_I32, WNN_U32, WNN_I64 };

TEST_TIMEOUT(opencl_gather_scatter, 180)
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
				compare_r(be, g, r, 2, type_lo(t, -9), 9, TOL_EXACT, label);
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
				compare_r(be, g, r, 2, type_lo(t, -9), 9, TOL_EXACT, label);
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
				compare_r(be, g, r, 2, type_lo(t, -9), 9, TOL_EXACT, label);
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
				compare_r(be, g, r, 3, type_lo(t, -9), 9, TOL_EXACT, label);
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
				compare_r(be, g, r, 3, type_lo(t, -9), 9, TOL_EXACT, label);
				tg_free(&tg);
			}
		}
	}
	backend_opencl.shutdown(be);
}

/* Hostile indices (the extremes of each index type) stay inside the input: literal values. */
TEST(opencl_gather_hostile_indices)
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
	ASSERT_MSG(tg_run(&backend_opencl, be, g, in, outs, &diag) == WEBNN_STATUS_OK, "%s",
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
	ASSERT_MSG(tg_run(&backend_opencl, be, g, in2, outs2, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	double es[6] = { 9, 10, 3, 4, 7, 8 };
	ASSERT_MSG(tg_compare_values(os, WNN_I32, es, 6, 0, 0, msg, sizeof msg), "%s", msg);
	tg_free(&tg);
	backend_opencl.shutdown(be);
}

/* ------------------------------------------------------------------ conversions */

TEST_TIMEOUT(opencl_cast_all_pairs, 180)
{
	struct backend *be = ot_backend();
	char label[128];
	for (size_t a = 0; a < N_TYPES; a++)
		for (size_t c = 0; c < N_TYPES; c++) {
			enum wnn_dtype ti = ALL_TYPES[a], to = ALL_TYPES[c];
			Webnn__Ipc__Cast m = WEBNN__IPC__CAST__INIT;
			m.data_type = (Webnn__Ipc__DataType)to;
			snprintf(label, sizeof label, "cast %s -> %s", wnn_dtype_name(ti),
				 wnn_dtype_name(to));
			/* out-of-range float -> integer saturates, integer -> integer wraps */
			RUN1(be, ti, 2, ((uint32_t[]){ 5, 13 }), WNN_OP_CAST, m, type_lo(ti, -300),
			     300, TOL_EXACT, label);
		}
	backend_opencl.shutdown(be);
}

TEST_TIMEOUT(opencl_quantize_dequantize, 120)
{
	struct backend *be = ot_backend();
	static const enum wnn_dtype qtypes[] = { WNN_I8, WNN_U8, WNN_I32, WNN_U32 };
	static const uint32_t sdims[3][2] = { { 1, 1 }, { 3, 1 }, { 3, 2 } };
	char label[128];
	for (int f = 0; f < 2; f++)
		for (size_t qi = 0; qi < 4; qi++)
			for (int sd = 0; sd < 3; sd++) {
				enum wnn_dtype ft = f ? WNN_F16 : WNN_F32, qt = qtypes[qi];
				for (int deq = 0; deq < 2; deq++) {
					if (deq && qt == WNN_U32 &&
					    !(wnn_ops[WNN_OP_DEQUANTIZE_LINEAR].dtypes &
					      WNN_DT_BIT(WNN_U32)))
						continue;
					struct tg_graph tg;
					tg_init(&tg);
					uint32_t x = tg_input(&tg, deq ? qt : ft, 2,
							      (uint32_t[]){ 6, 4 });
					uint32_t s = tg_input(&tg, ft, 2, sdims[sd]);
					uint32_t z = tg_input(&tg, qt, 2, sdims[sd]);
					Webnn__Ipc__QuantizeLinear m = WEBNN__IPC__QUANTIZE_LINEAR__INIT;
					m.input = x;
					m.scale = s;
					m.zero_point = z;
					m.output = tg_next(&tg);
					Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
					tg_set_op(&o, deq ? WNN_OP_DEQUANTIZE_LINEAR
							  : WNN_OP_QUANTIZE_LINEAR,
						  &m);
					snprintf(label, sizeof label, "%s %s %s scale %d",
						 deq ? "dequantize" : "quantize", wnn_dtype_name(ft),
						 wnn_dtype_name(qt), sd);
					const struct graph_ir *g = ot_finish(&tg, &o, label);
					struct range r[3] = { { type_lo(qt, -40), 40 },
							      { 0.05, 0.5 },
							      { type_lo(qt, -5), 5 } };
					if (!deq)
						r[0] = (struct range){ -60, 60 };
					compare_r(be, g, r, 3, 0, 1, f ? TOL_F16 : TOL_EW, label);
					tg_free(&tg);
				}
			}
	backend_opencl.shutdown(be);
}

/* ------------------------------------------------------------------ math */

TEST_TIMEOUT(opencl_arg_cumsum, 180)
{
	struct backend *be = ot_backend();
	char label[128];
	static const uint32_t dims[3] = { 3, 4, 5 };
	for (size_t ti = 0; ti < N_TYPES; ti++) {
		enum wnn_dtype t = ALL_TYPES[ti];
		for (int op = 0; op < 2; op++)
			for (uint32_t axis = 0; axis < 3; axis++) {
				Webnn__Ipc__ArgMinMax m = WEBNN__IPC__ARG_MIN_MAX__INIT;
				m.axis = axis;
				m.has_keep_dimensions = 1;
				m.keep_dimensions = axis == 1;
				m.has_output_data_type = 1;
				m.output_data_type = axis == 2 ? WEBNN__IPC__DATA_TYPE__INT64
							       : WEBNN__IPC__DATA_TYPE__INT32;
				snprintf(label, sizeof label, "%s axis %u %s", op ? "argMax" : "argMin",
					 axis, wnn_dtype_name(t));
				RUN1(be, t, 3, dims, op ? WNN_OP_ARG_MAX : WNN_OP_ARG_MIN, m,
				     type_lo(t, -20), 20, TOL_EXACT, label);
			}
		if (!(wnn_ops[WNN_OP_CUMULATIVE_SUM].dtypes & WNN_DT_BIT(t)))
			continue;
		for (int v = 0; v < 4; v++) {
			Webnn__Ipc__CumulativeSum m = WEBNN__IPC__CUMULATIVE_SUM__INIT;
			m.axis = (uint32_t)v % 3;
			m.has_exclusive = 1;
			m.exclusive = v & 1;
			m.has_reversed = 1;
			m.reversed = (v >> 1) & 1;
			snprintf(label, sizeof label, "cumulativeSum %d %s", v, wnn_dtype_name(t));
			RUN1(be, t, 3, dims, WNN_OP_CUMULATIVE_SUM, m, type_lo(t, -20), 20,
			     t == WNN_F16 ? TOL_F16_SUM : TOL_SUM, label);
		}
	}
	backend_opencl.shutdown(be);
}

TEST_TIMEOUT(opencl_reductions, 180)
{
	struct backend *be = ot_backend();
	char label[128];
	static const struct {
		int n; /* -1: axes absent */
		uint32_t axes[3];
	} sets[] = { { -1, { 0 } }, { 1, { 1 } }, { 2, { 2, 0 } }, { 0, { 0 } }, { 2, { 1, 2 } } };
	for (int op = WNN_OP_REDUCE_L1; op <= WNN_OP_REDUCE_SUM_SQUARE; op++)
		for (size_t ti = 0; ti < N_TYPES; ti++) {
			enum wnn_dtype t = ALL_TYPES[ti];
			if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
				continue;
			for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
				Webnn__Ipc__Reduce m = WEBNN__IPC__REDUCE__INIT;
				uint32_t axes[3];
				memcpy(axes, sets[si].axes, sizeof axes);
				if (sets[si].n >= 0) {
					m.n_axes = (size_t)sets[si].n;
					m.axes = axes;
					m.has_has_axes = 1;
					m.has_axes = 1;
				}
				m.has_keep_dimensions = 1;
				m.keep_dimensions = si & 1;
				snprintf(label, sizeof label, "%s set %zu %s", wnn_ops[op].name, si,
					 wnn_dtype_name(t));
				/* positive inputs keep log and sqrt defined; small ones keep products
				 * of integers exact */
				bool logs = op == WNN_OP_REDUCE_LOG_SUM;
				double lo = logs ? 0.1 : type_lo(t, -3), hi = logs ? 4 : 3;
				if (op == WNN_OP_REDUCE_PRODUCT && is_float(t)) {
					lo = 0.5;
					hi = 1.5;
				}
				struct tol tol = t == WNN_F16 ? TOL_F16_SUM : TOL_SUM;
				RUN1(be, t, 3, ((uint32_t[]){ 3, 4, 5 }), (enum wnn_op)op, m, lo, hi,
				     tol, label);
			}
		}
	backend_opencl.shutdown(be);
}

/* Few outputs over many elements take the two-stage (split) reduction: a whole-tensor
 * reduction, strided and non-contiguous reduced spaces, with and without keepDimensions. */
TEST_TIMEOUT(opencl_reductions_large, 300)
{
	struct backend *be = ot_backend();
	char label[160];
	static const struct {
		uint32_t rank, dims[4];
		int n; /* -1: axes absent */
		uint32_t axes[3];
	} sets[] = {
		{ 1, { 262144 }, -1, { 0 } },             /* one output */
		{ 3, { 16, 64, 256 }, 2, { 0, 2 } },      /* 64 outputs, walks an outer axis */
		{ 3, { 8, 4096, 3 }, 1, { 1 } },          /* 24 outputs, strided */
		{ 2, { 32, 8192 }, 1, { 1 } },            /* 32 contiguous rows */
		{ 4, { 2, 3, 64, 64 }, 3, { 3, 1, 2 } },  /* 2 outputs, axes out of order */
	};
	static const enum wnn_dtype types[] = { WNN_F32, WNN_F16, WNN_I32 };
	for (int op = WNN_OP_REDUCE_L1; op <= WNN_OP_REDUCE_SUM_SQUARE; op++)
		for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
			enum wnn_dtype t = types[ti];
			if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
				continue;
			for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
				Webnn__Ipc__Reduce m = WEBNN__IPC__REDUCE__INIT;
				uint32_t axes[3], dims[4];
				memcpy(axes, sets[si].axes, sizeof axes);
				memcpy(dims, sets[si].dims, sizeof dims);
				if (sets[si].n >= 0) {
					m.n_axes = (size_t)sets[si].n;
					m.axes = axes;
					m.has_has_axes = 1;
					m.has_axes = 1;
				}
				m.has_keep_dimensions = 1;
				m.keep_dimensions = (si + ti) & 1;
				snprintf(label, sizeof label, "%s large set %zu %s", wnn_ops[op].name,
					 si, wnn_dtype_name(t));
				/* positive inputs keep log defined; products stay near 1 (floats)
				 * or wrap modulo 2^64 alike (integers); float16 ranges keep sums
				 * of squares finite */
				double lo = t == WNN_F16 ? -0.25 : -3, hi = t == WNN_F16 ? 0.25 : 3;
				if (op == WNN_OP_REDUCE_LOG_SUM) {
					lo = 0.1;
					hi = 4;
				} else if (op == WNN_OP_REDUCE_PRODUCT) {
					lo = is_float(t) ? 0.999 : 1;
					hi = is_float(t) ? 1.001 : 3;
				}
				struct tol tol = t == WNN_F16 ? TOL_F16_SUM : TOL_SUM;
				RUN1(be, t, sets[si].rank, dims, (enum wnn_op)op, m, lo, hi, tol, label);
			}
		}
	backend_opencl.shutdown(be);
}

/* The two-stage reduction keeps the one-stage kernel's NaN and infinity results: NaN wins
 * max/min/sums wherever it sits, -inf chunks weigh nothing in logSumExp, all -inf stays -inf. */
TEST_TIMEOUT(opencl_reductions_large_nan_inf, 120)
{
	struct backend *be = ot_backend();
	enum { ROWS = 7, LEN = 8192 };
	float *x = malloc(sizeof(float) * ROWS * LEN);
	ASSERT(x);
	tg_random(x, WNN_F32, (uint64_t)ROWS * LEN, 77, -3, 3);
	x[0 * LEN + 5000] = NAN;                 /* NaN among numbers */
	for (int k = 0; k < LEN; k++)            /* -inf but one number */
		x[1 * LEN + k] = k == 7000 ? 2.0f : -INFINITY;
	for (int k = 0; k < LEN; k++)            /* all -inf */
		x[2 * LEN + k] = -INFINITY;
	x[3 * LEN + 100] = INFINITY;             /* +inf among numbers */
	x[4 * LEN + 0] = NAN;                    /* NaN first */
	for (int k = 0; k < LEN / 2; k++)        /* -inf chunks, then numbers */
		x[5 * LEN + k] = -INFINITY;
	x[6 * LEN + 10] = INFINITY;              /* +inf and NaN: NaN wins, also in logSumExp */
	x[6 * LEN + 6000] = NAN;
	static const enum wnn_op ops[] = { WNN_OP_REDUCE_MAX, WNN_OP_REDUCE_MIN,
					   WNN_OP_REDUCE_LOG_SUM_EXP, WNN_OP_REDUCE_SUM,
					   WNN_OP_REDUCE_MEAN, WNN_OP_REDUCE_L1 };
	/* Long rows take the two-stage path; the same data as rows of 16 take the one-stage one. */
	enum { SHORT = 16, MAX_OUT = ROWS * LEN / SHORT };
	float *want = malloc(sizeof(float) * MAX_OUT), *got = malloc(sizeof(float) * MAX_OUT);
	ASSERT(want && got);
	for (size_t c = 0; c < 2 * sizeof ops / sizeof ops[0]; c++) {
		size_t i = c % (sizeof ops / sizeof ops[0]);
		uint32_t rows = c < sizeof ops / sizeof ops[0] ? ROWS : MAX_OUT;
		uint32_t len = (uint32_t)(ROWS * LEN) / rows;
		struct tg_graph tg;
		struct wnn_diag diag = { 0 };
		tg_init(&tg);
		Webnn__Ipc__Reduce m = WEBNN__IPC__REDUCE__INIT;
		uint32_t axes[1] = { 1 };
		m.input = tg_input(&tg, WNN_F32, 2, (uint32_t[]){ rows, len });
		m.output = tg_next(&tg);
		m.has_has_axes = m.has_axes = 1;
		m.n_axes = 1;
		m.axes = axes;
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, ops[i], &m);
		const struct graph_ir *g = ot_finish(&tg, &o, wnn_ops[ops[i]].name);
		const void *in[1] = { x };
		void *out_ref[1] = { want }, *out_ocl[1] = { got };
		ASSERT_MSG(tg_run(&backend_reference, NULL, g, in, out_ref, &diag) ==
				   WEBNN_STATUS_OK,
			   "%s", diag.message);
		ASSERT_MSG(tg_run(&backend_opencl, be, g, in, out_ocl, &diag) == WEBNN_STATUS_OK,
			   "%s", diag.message);
		char msg[256];
		ASSERT_MSG(tg_compare(got, want, WNN_F32, rows, 0, TOL_SUM.atol, TOL_SUM.rtol, msg,
				      sizeof msg),
			   "%s over rows of %u: %s", wnn_ops[ops[i]].name, len, msg);
		tg_free(&tg);
	}
	free(want);
	free(got);
	free(x);
	backend_opencl.shutdown(be);
}

TEST_TIMEOUT(opencl_normalization_prelu, 120)
{
	struct backend *be = ot_backend();
	char label[128];
	for (int f = 0; f < 2; f++) {
		enum wnn_dtype t = f ? WNN_F16 : WNN_F32;
		struct tol tol = f ? TOL_F16_SUM : TOL_SUM;
		for (int v = 0; v < 4; v++) {
			bool nhwc = v & 1, sb = v & 2;
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t x = tg_input(&tg, t, 4,
					      nhwc ? (uint32_t[]){ 2, 5, 6, 3 } : (uint32_t[]){ 2, 3, 5, 6 });
			Webnn__Ipc__InstanceNormalization m =
				WEBNN__IPC__INSTANCE_NORMALIZATION__INIT;
			m.input = x;
			if (sb) {
				m.has_scale = m.has_bias = 1;
				m.scale = tg_input(&tg, t, 1, (uint32_t[]){ 3 });
				m.bias = tg_input(&tg, t, 1, (uint32_t[]){ 3 });
			}
			m.has_layout = 1;
			m.layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC : WEBNN__IPC__INPUT_LAYOUT__NCHW;
			m.has_epsilon = 1;
			m.epsilon = 1e-3;
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_INSTANCE_NORMALIZATION, &m);
			snprintf(label, sizeof label, "instanceNormalization %d %s", v,
				 wnn_dtype_name(t));
			const struct graph_ir *g = ot_finish(&tg, &o, label);
			compare(be, g, -3, 3, tol, label);
			tg_free(&tg);
		}
		static const struct {
			int n;
			uint32_t axes[3];
		} sets[] = { { -1, { 0 } }, { 2, { 1, 2 } }, { 2, { 2, 1 } }, { 1, { 0 } }, { 0, { 0 } } };
		static const uint32_t xd[3] = { 2, 3, 4 };
		for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t x = tg_input(&tg, t, 3, xd);
			Webnn__Ipc__LayerNormalization m = WEBNN__IPC__LAYER_NORMALIZATION__INIT;
			uint32_t axes[3];
			memcpy(axes, sets[si].axes, sizeof axes);
			m.input = x;
			uint32_t sdims[3], sr = 0;
			if (sets[si].n >= 0) {
				m.n_axes = (size_t)sets[si].n;
				m.axes = axes;
				m.has_has_axes = 1;
				m.has_axes = 1;
				for (int k = 0; k < sets[si].n; k++)
					sdims[sr++] = xd[axes[k]];
			} else {
				sdims[sr++] = xd[1];
				sdims[sr++] = xd[2];
			}
			if (si != 3) {
				m.has_scale = m.has_bias = 1;
				m.scale = tg_input(&tg, t, sr, sdims);
				m.bias = tg_input(&tg, t, sr, sdims);
			}
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_LAYER_NORMALIZATION, &m);
			snprintf(label, sizeof label, "layerNormalization %zu %s", si,
				 wnn_dtype_name(t));
			const struct graph_ir *g = ot_finish(&tg, &o, label);
			compare(be, g, -3, 3, tol, label);
			tg_free(&tg);
		}
	}
	static const enum wnn_dtype ptypes[] = { WNN_F32, WNN_F16, WNN_I32, WNN_I64, WNN_I8 };
	for (size_t ti = 0; ti < 5; ti++) {
		enum wnn_dtype t = ptypes[ti];
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t x = tg_input(&tg, t, 3, (uint32_t[]){ 2, 3, 4 });
		uint32_t s = tg_input(&tg, t, 2, (uint32_t[]){ 3, 1 });
		Webnn__Ipc__Prelu m = WEBNN__IPC__PRELU__INIT;
		m.input = x;
		m.slope = s;
		m.output = tg_next(&tg);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, WNN_OP_PRELU, &m);
		snprintf(label, sizeof label, "prelu %s", wnn_dtype_name(t));
		const struct graph_ir *g = ot_finish(&tg, &o, label);
		compare(be, g, -5, 5, t == WNN_F16 ? TOL_F16 : TOL_EW, label);
		tg_free(&tg);
	}
	backend_opencl.shutdown(be);
}

TEST_TIMEOUT(opencl_resample2d, 120)
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
			int_atol = (v & 1) ? 1 : 0;
			/* interpolating values up to 50 in float: absolute error ~ 50 * 2^-23 */
			struct tol tol = t == WNN_F16 ? TOL_F16 : (struct tol){ 8, 1e-4, 1e-5 };
			RUN1(be, t, 4, ((uint32_t[]){ 2, 4, 6, 5 }), WNN_OP_RESAMPLE2D, m,
			     type_lo(t, -50), 50, tol, label);
		}
	backend_opencl.shutdown(be);
}

/* The spec's worked example: [4, 4] -> [8, 8] linear, literal values. */
TEST(opencl_resample2d_spec_example)
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
	ASSERT_MSG(tg_run(&backend_opencl, be, g, ins, outs, &diag) == WEBNN_STATUS_OK, "%s",
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
	backend_opencl.shutdown(be);
}

TEST_TIMEOUT(opencl_conv_transpose2d, 180)
{
	struct backend *be = ot_backend();
	char label[128];
	static const struct {
		uint32_t n, cin, h, w, cout, kh, kw, groups;
		uint32_t stride, dil, pad, out_pad;
		bool nhwc, bias;
		int layout;
	} cases[] = {
		{ 1, 2, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, false, false, 0 },
		{ 2, 4, 4, 5, 6, 3, 2, 2, 2, 1, 1, 1, false, true, 0 },
		{ 1, 3, 5, 4, 2, 2, 3, 1, 3, 2, 1, 0, true, true, 1 },
		{ 1, 4, 3, 3, 4, 3, 3, 2, 2, 1, 0, 1, true, false, 2 },
		{ 2, 2, 4, 4, 2, 1, 1, 1, 1, 1, 0, 0, false, true, 2 },
		/* eight or more input channels per group: gemm + col2im */
		{ 1, 8, 4, 4, 6, 3, 3, 1, 2, 1, 1, 1, false, true, 0 },
		{ 2, 16, 3, 5, 4, 2, 2, 2, 1, 2, 0, 0, true, true, 1 },
		{ 1, 8, 5, 5, 8, 3, 3, 1, 2, 2, 2, 1, false, false, 2 },
		{ 2, 9, 3, 3, 3, 2, 3, 1, 3, 1, 1, 2, true, false, 0 },
	};
	for (int f = 0; f < 2; f++)
		for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
			enum wnn_dtype t = f ? WNN_F16 : WNN_F32;
			__typeof__(cases[0]) c = cases[ci];
			struct tg_graph tg;
			tg_init(&tg);
			uint32_t idims[4] = { c.n, c.cin, c.h, c.w };
			if (c.nhwc) {
				idims[1] = c.h;
				idims[2] = c.w;
				idims[3] = c.cin;
			}
			uint32_t og = c.cout / c.groups;
			uint32_t fd[3][4] = { { c.cin, og, c.kh, c.kw },   /* iohw */
					      { c.kh, c.kw, og, c.cin },   /* hwoi */
					      { og, c.kh, c.kw, c.cin } }; /* ohwi */
			uint32_t x = tg_input(&tg, t, 4, idims);
			uint32_t w = tg_input(&tg, t, 4, fd[c.layout]);
			Webnn__Ipc__ConvTranspose2d m = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
			m.input = x;
			m.filter = w;
			if (c.bias) {
				m.has_bias = 1;
				m.bias = tg_input(&tg, t, 1, (uint32_t[]){ c.cout });
			}
			uint32_t strides[2] = { c.stride, c.stride }, dil[2] = { c.dil, c.dil };
			uint32_t pad[4] = { c.pad, c.pad, c.pad, 0 }, opad[2] = { c.out_pad, 0 };
			m.n_strides = 2;
			m.strides = strides;
			m.n_dilations = 2;
			m.dilations = dil;
			m.n_padding = 4;
			m.padding = pad;
			m.n_output_padding = 2;
			m.output_padding = opad;
			m.has_groups = 1;
			m.groups = c.groups;
			m.has_input_layout = 1;
			m.input_layout = c.nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC
						: WEBNN__IPC__INPUT_LAYOUT__NCHW;
			m.has_filter_layout = 1;
			m.filter_layout = (Webnn__Ipc__ConvTranspose2dFilterLayout)c.layout;
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_CONV_TRANSPOSE2D, &m);
			snprintf(label, sizeof label, "convTranspose2d case %zu %s", ci,
				 wnn_dtype_name(t));
			const struct graph_ir *g = ot_finish(&tg, &o, label);
			compare(be, g, -1, 1, f ? TOL_F16_SUM : TOL_SUM, label);
			tg_free(&tg);
		}
	backend_opencl.shutdown(be);
}

/* ------------------------------------------------------------------ recurrent networks */

struct rnn_case {
	bool lstm, cell;
	uint32_t steps, batch, in, hidden;
	int dir;           /* 0 forward, 1 backward, 2 both */
	bool bias, rbias, peephole, init_h, init_c, seq, reset_after, const_w;
	int layout;
	int n_act;
	Webnn__Ipc__RecurrentActivation act[3];
};

static void run_rnn(struct backend *be, enum wnn_dtype t, const struct rnn_case *c,
		    const char *label)
{
	struct tg_graph tg;
	tg_init(&tg);
	uint32_t D = c->dir == 2 ? 2 : 1, G = c->lstm ? 4 : 3, H = c->hidden, NB = c->batch;
	uint32_t x, w, r;
	float wdata[2 * 4 * 8 * 8];
	uint16_t hdata[2 * 4 * 8 * 8];
	if (c->cell) {
		x = tg_input(&tg, t, 2, (uint32_t[]){ NB, c->in });
	} else {
		x = tg_input(&tg, t, 3, (uint32_t[]){ c->steps, NB, c->in });
	}
	uint32_t wd[3] = { D, G * H, c->in }, rd[3] = { D, G * H, H };
	const uint32_t *wdp = c->cell ? wd + 1 : wd, *rdp = c->cell ? rd + 1 : rd;
	uint32_t wr = c->cell ? 2 : 3;
	if (c->const_w) {
		size_t n = (size_t)D * G * H * c->in;
		ASSERT(n <= sizeof wdata / sizeof wdata[0]);
		tg_random(wdata, WNN_F32, n, 99, -0.6, 0.6);
		for (size_t i = 0; i < n; i++)
			hdata[i] = wnn_f32_to_f16(wdata[i]);
		w = tg_constant(&tg, t, wr, wdp, t == WNN_F16 ? (void *)hdata : (void *)wdata);
	} else {
		w = tg_input(&tg, t, wr, wdp);
	}
	r = tg_input(&tg, t, wr, rdp);
	uint32_t bd[2] = { D, G * H }, pd[2] = { D, 3 * H }, hd[3] = { D, NB, H };
	const uint32_t *bdp = c->cell ? bd + 1 : bd, *pdp = c->cell ? pd + 1 : pd;
	const uint32_t *hdp = c->cell ? hd + 1 : hd;
	uint32_t br = c->cell ? 1 : 2, hr = c->cell ? 2 : 3;
	uint32_t bias = c->bias ? tg_input(&tg, t, br, bdp) : 0;
	uint32_t rbias = c->rbias ? tg_input(&tg, t, br, bdp) : 0;
	uint32_t peep = c->lstm && c->peephole ? tg_input(&tg, t, br, pdp) : 0;
	uint32_t ih = c->init_h || c->cell ? tg_input(&tg, t, hr, hdp) : 0;
	uint32_t ic = c->lstm && (c->init_c || c->cell) ? tg_input(&tg, t, hr, hdp) : 0;
	uint32_t outs[3] = { tg_next(&tg), tg_next(&tg) + 1, tg_next(&tg) + 2 };
	size_t n_outs = (c->lstm ? 2 : 1) + (!c->cell && c->seq ? 1 : 0);
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	Webnn__Ipc__RecurrentActivation act[3];
	memcpy(act, c->act, sizeof act);
	Webnn__Ipc__Gru gm = WEBNN__IPC__GRU__INIT;
	Webnn__Ipc__GruCell gc = WEBNN__IPC__GRU_CELL__INIT;
	Webnn__Ipc__Lstm lm = WEBNN__IPC__LSTM__INIT;
	Webnn__Ipc__LstmCell lc = WEBNN__IPC__LSTM_CELL__INIT;
	if (!c->lstm && !c->cell) {
		gm.input = x;
		gm.weight = w;
		gm.recurrent_weight = r;
		gm.has_bias = c->bias;
		gm.bias = bias;
		gm.has_recurrent_bias = c->rbias;
		gm.recurrent_bias = rbias;
		gm.has_initial_hidden_state = c->init_h;
		gm.initial_hidden_state = ih;
		gm.n_outputs = n_outs;
		gm.outputs = outs;
		gm.steps = c->steps;
		gm.hidden_size = H;
		gm.has_reset_after = 1;
		gm.reset_after = c->reset_after;
		gm.has_return_sequence = 1;
		gm.return_sequence = c->seq;
		gm.has_direction = 1;
		gm.direction = (Webnn__Ipc__RecurrentDirection)c->dir;
		gm.has_layout = 1;
		gm.layout = (Webnn__Ipc__GruWeightLayout)c->layout;
		gm.n_activations = (size_t)c->n_act;
		gm.activations = act;
		tg_set_op(&o, WNN_OP_GRU, &gm);
	} else if (!c->lstm) {
		gc.input = x;
		gc.weight = w;
		gc.recurrent_weight = r;
		gc.hidden_state = ih;
		gc.has_bias = c->bias;
		gc.bias = bias;
		gc.has_recurrent_bias = c->rbias;
		gc.recurrent_bias = rbias;
		gc.output = outs[0];
		gc.hidden_size = H;
		gc.has_reset_after = 1;
		gc.reset_after = c->reset_after;
		gc.has_layout = 1;
		gc.layout = (Webnn__Ipc__GruWeightLayout)c->layout;
		gc.n_activations = (size_t)c->n_act;
		gc.activations = act;
		tg_set_op(&o, WNN_OP_GRU_CELL, &gc);
	} else if (!c->cell) {
		lm.input = x;
		lm.weight = w;
		lm.recurrent_weight = r;
		lm.has_bias = c->bias;
		lm.bias = bias;
		lm.has_recurrent_bias = c->rbias;
		lm.recurrent_bias = rbias;
		lm.has_peephole_weight = c->peephole;
		lm.peephole_weight = peep;
		lm.has_initial_hidden_state = c->init_h;
		lm.initial_hidden_state = ih;
		lm.has_initial_cell_state = c->init_c;
		lm.initial_cell_state = ic;
		lm.n_outputs = n_outs;
		lm.outputs = outs;
		lm.steps = c->steps;
		lm.hidden_size = H;
		lm.has_return_sequence = 1;
		lm.return_sequence = c->seq;
		lm.has_direction = 1;
		lm.direction = (Webnn__Ipc__RecurrentDirection)c->dir;
		lm.has_layout = 1;
		lm.layout = (Webnn__Ipc__LstmWeightLayout)c->layout;
		lm.n_activations = (size_t)c->n_act;
		lm.activations = act;
		tg_set_op(&o, WNN_OP_LSTM, &lm);
	} else {
		lc.input = x;
		lc.weight = w;
		lc.recurrent_weight = r;
		lc.hidden_state = ih;
		lc.cell_state = ic;
		lc.has_bias = c->bias;
		lc.bias = bias;
		lc.has_recurrent_bias = c->rbias;
		lc.recurrent_bias = rbias;
		lc.has_peephole_weight = c->peephole;
		lc.peephole_weight = peep;
		lc.n_outputs = 2;
		lc.outputs = outs;
		lc.hidden_size = H;
		lc.has_layout = 1;
		lc.layout = (Webnn__Ipc__LstmWeightLayout)c->layout;
		lc.n_activations = (size_t)c->n_act;
		lc.activations = act;
		tg_set_op(&o, WNN_OP_LSTM_CELL, &lc);
	}
	const struct graph_ir *g = ot_finish(&tg, &o, label);
	compare(be, g, -0.6, 0.6, t == WNN_F16 ? TOL_F16_SUM : TOL_SUM, label);
	tg_free(&tg);
}

TEST_TIMEOUT(opencl_gru_lstm, 240)
{
	struct backend *be = ot_backend();
	const Webnn__Ipc__RecurrentActivation S = WEBNN__IPC__RECURRENT_ACTIVATION__ACT_SIGMOID,
					      T = WEBNN__IPC__RECURRENT_ACTIVATION__ACT_TANH,
					      R = WEBNN__IPC__RECURRENT_ACTIVATION__ACT_RELU;
	const struct rnn_case cases[] = {
		/* lstm cell steps batch in hidden dir bias rbias peep ih ic seq reset constw
		 * layout n_act act */
		{ false, false, 3, 2, 4, 5, 0, true, true, false, true, false, true, true, false, 0, 0, { S } },
		{ false, false, 4, 1, 3, 4, 1, true, false, false, false, false, true, false, true, 1, 0, { S } },
		{ false, false, 2, 3, 2, 3, 2, false, true, false, true, false, true, true, false, 0, 2, { T, R } },
		{ false, false, 3, 2, 3, 2, 2, true, true, false, false, false, false, false, false, 1, 0, { S } },
		{ false, true, 1, 3, 4, 5, 0, true, true, false, true, false, false, true, false, 1, 0, { S } },
		{ false, true, 1, 2, 3, 4, 0, false, true, false, true, false, false, false, true, 0, 2, { S, R } },
		{ true, false, 3, 2, 4, 5, 0, true, true, true, true, true, true, false, false, 0, 0, { S } },
		{ true, false, 4, 1, 3, 3, 1, false, true, false, false, true, true, false, true, 1, 0, { S } },
		{ true, false, 2, 2, 3, 2, 2, true, false, true, true, false, true, false, false, 1, 3, { S, R, T } },
		{ true, false, 3, 3, 2, 4, 2, false, false, false, false, false, false, false, false, 0, 0, { S } },
		{ true, true, 1, 3, 4, 5, 0, true, true, true, true, true, false, false, false, 0, 0, { S } },
		{ true, true, 1, 2, 3, 3, 0, true, false, false, true, true, false, false, true, 1, 3, { T, S, R } },
	};
	char label[128];
	/* f = 2: float32 again with the recurrent products as CLBlast gemms instead of fused */
	for (int f = 0; f < 3; f++) {
		be->opts.rnn_gemm = f == 2; /* what $WEBNN_OCL_RNN_GEMM sets at init */
		for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
			enum wnn_dtype t = f == 1 ? WNN_F16 : WNN_F32;
			snprintf(label, sizeof label, "%s%s case %zu %s%s", cases[ci].lstm ? "lstm" : "gru",
				 cases[ci].cell ? "Cell" : "", ci, wnn_dtype_name(t),
				 f == 2 ? " gemm" : "");
			run_rnn(be, t, &cases[ci], label);
		}
	}
	backend_opencl.shutdown(be);
}
