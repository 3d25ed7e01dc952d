/* Differential tests of the cpu backend against the reference backend: its pool, normalization, reduce and resample kernels on random shapes, options and NaN/inf data (rnn: ops_rnn_cpu_gru_lstm), and its constant-folding evaluate. */
#include <math.h>
#include <stdlib.h>

#include "daemon/backend/backend.h"
#include "tests/graphs.h"
#include "tests/test.h"

static int cm_compared; /* outputs compared so far in this test */

/* The cpu backend with 1 and with 3 threads, in turn (3: an odd split of every threaded loop,
 * also on a machine with fewer cores). */
static enum webnn_status cm_run_cpu(const struct graph_ir *g, const void *const *in,
				    void *const *out, struct wnn_diag *diag)
{
	static struct backend *be[2];
	int k = cm_compared % 2;
	if (!be[k])
		be[k] = tg_cpu_team(k ? 3 : 1); /* every step split: the serial threshold aside */
	return tg_run(&backend_cpu, be[k], g, in, out, diag);
}

/* Value range of one graph input (lo == hi == 0: the call's default range). */
struct cm_range {
	double lo, hi;
};

static uint64_t cm_state = 88172645463325252ull;

/* 0 .. n-1, deterministic across runs (xorshift). */
static uint32_t cm_rand(uint32_t n)
{
	cm_state ^= cm_state << 13;
	cm_state ^= cm_state >> 7;
	cm_state ^= cm_state << 17;
	return (uint32_t)(cm_state % n);
}

/* Runs g on the reference and the cpu backend with inputs in (bytes of each graph input) and
 * compares every output: floats within atol + rtol * |expected| (or 4 ulps), integers
 * exactly. */
static void cm_check_data(const struct graph_ir *g, void *const *in, double atol, double rtol,
			  const char *label)
{
	void *ref[TG_MAX_OPERANDS] = { 0 }, *out[TG_MAX_OPERANDS] = { 0 };
	for (size_t i = 0; i < g->n_outputs; i++) {
		size_t bytes = tg_bytes(&g->values[g->outputs[i]].desc) + 8;
		ref[i] = calloc(1, bytes);
		out[i] = calloc(1, bytes);
		ASSERT(ref[i] && out[i]);
	}
	struct wnn_diag diag = { 0 };
	enum webnn_status st =
		tg_run(&backend_reference, NULL, g, (const void *const *)in, ref, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: reference: %s", label, diag.message);
	wnn_diag_clear(&diag);
	st = cm_run_cpu(g, (const void *const *)in, out, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: cpu: %s", label, diag.message);
	for (size_t i = 0; i < g->n_outputs; i++) {
		const struct wnn_desc *d = &g->values[g->outputs[i]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		char msg[256];
		bool fp = d->type == WNN_F32 || d->type == WNN_F16;
		ASSERT_MSG(tg_compare(out[i], ref[i], d->type, count, fp ? 4 : 0, fp ? atol : 0,
				      fp ? rtol : 0, msg, sizeof msg),
			   "%s: output %zu (%s): %s", label, i, wnn_dtype_name(d->type), msg);
	}
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		free(ref[i]);
		free(out[i]);
	}
	cm_compared++;
}

/* cm_check_data on random inputs: input i in r[i] where given, else in [lo, hi]. */
static void cm_check(const struct graph_ir *g, const struct cm_range *r, size_t n_r, double lo,
		     double hi, double atol, double rtol, const char *label)
{
	void *in[TG_MAX_OPERANDS] = { 0 };
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		in[i] = malloc(tg_bytes(d) + 8);
		ASSERT(in[i]);
		double l = lo, h = hi;
		if (i < n_r && (r[i].lo != 0 || r[i].hi != 0))
			l = r[i].lo, h = r[i].hi;
		tg_random(in[i], d->type, count, 977 + 31 * i + (uint64_t)cm_compared, l, h);
	}
	cm_check_data(g, in, atol, rtol, label);
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++)
		free(in[i]);
}

/* Adds op and finishes the graph; NULL when the random options make an invalid operation. */
static const struct graph_ir *cm_finish(struct tg_graph *t, Webnn__Ipc__Operation *op)
{
	struct wnn_diag diag = { 0 };
	if (tg_op(t, op, &diag) != WEBNN_STATUS_OK)
		return NULL;
	return tg_finish(t, &diag);
}

static const char *cm_label(char *buf, size_t len, enum wnn_op op, const struct wnn_desc *d,
			    const char *opts)
{
	char s[96];
	snprintf(buf, len, "%s %s %s", wnn_ops[op].name, wnn_desc_str(d, s, sizeof s), opts);
	return buf;
}

static enum wnn_dtype cm_random_type(void);

/* ==== pool: averagePool2d, l2Pool2d, maxPool2d in both layouts, with windows, strides,
 * dilations, padding (also past the window), ceil rounding and explicit output sizes */

static void cm_pool_case(enum wnn_op op, enum wnn_dtype type, bool nhwc, uint32_t n, uint32_t c,
			 uint32_t h, uint32_t w, const uint32_t *win, const uint32_t *pad,
			 const uint32_t *stride, const uint32_t *dil, bool ceil_round)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t dims[4] = { n, c, h, w };
	if (nhwc)
		dims[1] = h, dims[2] = w, dims[3] = c;
	Webnn__Ipc__Pool2d m = WEBNN__IPC__POOL2D__INIT;
	uint32_t win_[2], pad_[4], stride_[2], dil_[2];
	m.input = tg_input(&t, type, 4, dims);
	m.output = tg_next(&t);
	if (win) {
		memcpy(win_, win, sizeof win_);
		m.window_dimensions = win_, m.n_window_dimensions = 2;
	}
	if (pad) {
		memcpy(pad_, pad, sizeof pad_);
		m.padding = pad_, m.n_padding = 4;
	}
	if (stride) {
		memcpy(stride_, stride, sizeof stride_);
		m.strides = stride_, m.n_strides = 2;
	}
	if (dil) {
		memcpy(dil_, dil, sizeof dil_);
		m.dilations = dil_, m.n_dilations = 2;
	}
	if (nhwc)
		m.has_layout = 1, m.layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	if (ceil_round)
		m.has_output_shape_rounding = 1,
		m.output_shape_rounding = WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, op, &m);
	const struct graph_ir *g = cm_finish(&t, &o);
	if (g) {
		char label[256], opts[160];
		snprintf(opts, sizeof opts, "%s win %ux%u pad %u,%u,%u,%u stride %u,%u dil %u,%u%s",
			 nhwc ? "nhwc" : "nchw", win ? win[0] : 0, win ? win[1] : 0,
			 pad ? pad[0] : 0, pad ? pad[1] : 0, pad ? pad[2] : 0, pad ? pad[3] : 0,
			 stride ? stride[0] : 1, stride ? stride[1] : 1, dil ? dil[0] : 1,
			 dil ? dil[1] : 1, ceil_round ? " ceil" : "");
		bool f16 = type == WNN_F16;
		cm_check(g, NULL, 0, -4, 4, f16 ? 4e-3 : 1e-5, f16 ? 4e-3 : 1e-5,
			 cm_label(label, sizeof label, op, &g->values[g->inputs[0]].desc, opts));
	}
	tg_free(&t);
}

TEST_TIMEOUT(cpu_misc_pool, 300)
{
	static const enum wnn_op ops[] = { WNN_OP_AVERAGE_POOL2D, WNN_OP_MAX_POOL2D,
					   WNN_OP_L2_POOL2D };
	/* the shapes of common networks */
	for (size_t k = 0; k < 3; k++) {
		cm_pool_case(ops[k], WNN_F32, true, 1, 64, 112, 112, (uint32_t[]){ 3, 3 },
			     (uint32_t[]){ 1, 1, 1, 1 }, (uint32_t[]){ 2, 2 }, NULL, false);
		cm_pool_case(ops[k], WNN_F32, true, 2, 1024, 7, 7, NULL, NULL, NULL, NULL, false);
		cm_pool_case(ops[k], WNN_F32, false, 1, 96, 55, 55, (uint32_t[]){ 3, 3 }, NULL,
			     (uint32_t[]){ 2, 2 }, NULL, true);
	}
	for (int i = 0; i < 400; i++) {
		enum wnn_op op = ops[cm_rand(3)];
		enum wnn_dtype type = cm_rand(5) == 0 ? WNN_F16 : WNN_F32;
		if (op == WNN_OP_MAX_POOL2D && cm_rand(3) == 0)
			type = cm_random_type();
		uint32_t h = 1 + cm_rand(12), w = 1 + cm_rand(12);
		uint32_t win[2] = { 1 + cm_rand(4), 1 + cm_rand(4) };
		uint32_t pad[4] = { cm_rand(3), cm_rand(3), cm_rand(3), cm_rand(3) };
		uint32_t stride[2] = { 1 + cm_rand(3), 1 + cm_rand(3) };
		uint32_t dil[2] = { 1 + cm_rand(2), 1 + cm_rand(2) };
		bool global = cm_rand(8) == 0;
		cm_pool_case(op, type, cm_rand(2), 1 + cm_rand(2), 1 + cm_rand(20), h, w,
			     global ? NULL : win, global || cm_rand(3) == 0 ? NULL : pad,
			     global ? NULL : stride, global || cm_rand(2) ? NULL : dil,
			     cm_rand(2));
	}
	ASSERT(cm_compared > 200);
}

/* ==== reduce: every reduce* over random axes (any order), argMin/argMax, cumulativeSum */

static enum wnn_dtype cm_reduce_type = WNN_F32; /* of the next reduce case */

/* float32 half the time, else float16 or an integer type */
static enum wnn_dtype cm_random_type(void)
{
	static const enum wnn_dtype others[] = { WNN_F16, WNN_I8, WNN_U8, WNN_I32,
						 WNN_U32, WNN_I64, WNN_U64 };
	return cm_rand(2) ? WNN_F32 : others[cm_rand(7)];
}
#define CM_RED_TOL(a) (cm_reduce_type == WNN_F16 ? 4e-3 : (a))

static void cm_random_shape(uint32_t *rank, uint32_t *dims, uint32_t max_rank, uint32_t max_dim)
{
	*rank = 1 + cm_rand(max_rank);
	for (uint32_t i = 0; i < *rank; i++)
		dims[i] = 1 + cm_rand(max_dim);
}

/* A random subset of the rank axes in random order; *has false for "all axes". */
static uint32_t cm_random_axes(uint32_t rank, uint32_t *axes, bool consecutive)
{
	uint32_t n = 0;
	if (consecutive) {
		uint32_t first = cm_rand(rank), count = 1 + cm_rand(rank - first);
		for (uint32_t i = 0; i < count; i++)
			axes[n++] = first + i;
		return n;
	}
	for (uint32_t i = 0; i < rank; i++)
		if (cm_rand(2))
			axes[n++] = i;
	for (uint32_t i = n; i > 1; i--) { /* shuffle */
		uint32_t j = cm_rand(i), tmp = axes[i - 1];
		axes[i - 1] = axes[j];
		axes[j] = tmp;
	}
	return n;
}

static void cm_reduce_case(enum wnn_op op, uint32_t rank, const uint32_t *dims, const uint32_t *axes,
			   uint32_t n_axes, bool has_axes, bool keep)
{
	struct tg_graph t;
	tg_init(&t);
	Webnn__Ipc__Reduce m = WEBNN__IPC__REDUCE__INIT;
	uint32_t ax[WNN_MAX_RANK];
	if (n_axes)
		memcpy(ax, axes, n_axes * sizeof *ax);
	m.input = tg_input(&t, cm_reduce_type, rank, dims);
	m.output = tg_next(&t);
	m.axes = ax, m.n_axes = n_axes;
	m.has_has_axes = 1, m.has_axes = has_axes;
	m.has_keep_dimensions = 1, m.keep_dimensions = keep;
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, op, &m);
	const struct graph_ir *g = cm_finish(&t, &o);
	if (!g && cm_reduce_type != WNN_F32 && cm_reduce_type != WNN_F16) {
		tg_free(&t); /* an operator without integer forms */
		return;
	}
	ASSERT_MSG(g, "%s: invalid", wnn_ops[op].name);
	char label[256], opts[64] = "axes";
	for (uint32_t i = 0; i < n_axes; i++)
		snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " %u", axes[i]);
	if (!has_axes)
		snprintf(opts, sizeof opts, "all axes");
	double lo = -2, hi = 2;
	if (op == WNN_OP_REDUCE_LOG_SUM)
		lo = 0.1;
	if (op == WNN_OP_REDUCE_PRODUCT)
		lo = 0.8, hi = 1.25;
	if (cm_reduce_type != WNN_F32 && cm_reduce_type != WNN_F16) /* integers: wrap-around too */
		lo = cm_reduce_type == WNN_U8 || cm_reduce_type == WNN_U32 ||
				     cm_reduce_type == WNN_U64
			     ? 0
			     : -120,
		hi = 120;
	cm_check(g, NULL, 0, lo, hi, CM_RED_TOL(1e-4), CM_RED_TOL(1e-4),
		 cm_label(label, sizeof label, op, &g->values[g->inputs[0]].desc, opts));
	tg_free(&t);
}

static const enum wnn_op cm_reduce_ops[] = {
	WNN_OP_REDUCE_L1,	  WNN_OP_REDUCE_L2,	WNN_OP_REDUCE_LOG_SUM,
	WNN_OP_REDUCE_LOG_SUM_EXP, WNN_OP_REDUCE_MAX,	WNN_OP_REDUCE_MEAN,
	WNN_OP_REDUCE_MIN,	  WNN_OP_REDUCE_PRODUCT, WNN_OP_REDUCE_SUM,
	WNN_OP_REDUCE_SUM_SQUARE,
};

TEST_TIMEOUT(cpu_misc_reduce, 300)
{
	const size_t n_ops = sizeof cm_reduce_ops / sizeof cm_reduce_ops[0];
	for (size_t k = 0; k < n_ops; k++) {
		/* global average pooling as a reduction (NHWC and NCHW), a row softmax's sum */
		cm_reduce_case(cm_reduce_ops[k], 4, (uint32_t[]){ 2, 7, 7, 512 },
			       (uint32_t[]){ 1, 2 }, 2, true, true);
		cm_reduce_case(cm_reduce_ops[k], 4, (uint32_t[]){ 2, 512, 7, 7 },
			       (uint32_t[]){ 2, 3 }, 2, true, false);
		cm_reduce_case(cm_reduce_ops[k], 2, (uint32_t[]){ 64, 3000 }, (uint32_t[]){ 1 }, 1,
			       true, false);
		cm_reduce_case(cm_reduce_ops[k], 1, (uint32_t[]){ 70000 }, NULL, 0, false, false);
		cm_reduce_case(cm_reduce_ops[k], 3, (uint32_t[]){ 3, 4, 5 }, NULL, 0, true, true);
	}
	for (int i = 0; i < 400; i++) {
		uint32_t rank, dims[WNN_MAX_RANK], axes[WNN_MAX_RANK];
		cm_random_shape(&rank, dims, 5, 9);
		uint32_t n_axes = cm_random_axes(rank, axes, cm_rand(2));
		cm_reduce_type = cm_random_type();
		cm_reduce_case(cm_reduce_ops[cm_rand((uint32_t)n_ops)], rank, dims, axes, n_axes,
			       cm_rand(6) != 0, cm_rand(2));
	}
}

/* NaN wins max/min/sums wherever it sits, -inf weighs nothing in logSumExp, all -inf stays
 * -inf, +inf with NaN gives NaN: in rows (reduced axis innermost) and columns (kept axis
 * innermost) alike. */
TEST(cpu_misc_reduce_nan_inf)
{
	enum { ROWS = 7, LEN = 4096 };
	float *x = malloc(sizeof(float) * ROWS * LEN), *xt = malloc(sizeof(float) * ROWS * LEN);
	ASSERT(x && xt);
	tg_random(x, WNN_F32, (uint64_t)ROWS * LEN, 77, -3, 3);
	x[0 * LEN + 3000] = NAN;
	for (int k = 0; k < LEN; k++)
		x[1 * LEN + k] = k == 3500 ? 2.0f : -INFINITY;
	for (int k = 0; k < LEN; k++)
		x[2 * LEN + k] = -INFINITY;
	x[3 * LEN + 100] = INFINITY;
	x[4 * LEN + 0] = NAN;
	for (int k = 0; k < LEN / 2; k++)
		x[5 * LEN + k] = -INFINITY;
	x[6 * LEN + 10] = INFINITY;
	x[6 * LEN + 2000] = NAN;
	for (int r = 0; r < ROWS; r++)
		for (int k = 0; k < LEN; k++)
			xt[k * ROWS + r] = x[r * LEN + k];
	for (size_t k = 0; k < sizeof cm_reduce_ops / sizeof cm_reduce_ops[0]; k++)
		for (int cols = 0; cols < 2; cols++) {
			struct tg_graph t;
			tg_init(&t);
			Webnn__Ipc__Reduce m = WEBNN__IPC__REDUCE__INIT;
			uint32_t ax[1] = { cols ? 0 : 1 };
			m.input = tg_input(&t, WNN_F32, 2,
					   cols ? (uint32_t[]){ LEN, ROWS } : (uint32_t[]){ ROWS, LEN });
			m.output = tg_next(&t);
			m.axes = ax, m.n_axes = 1, m.has_has_axes = 1, m.has_axes = 1;
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, cm_reduce_ops[k], &m);
			const struct graph_ir *g = cm_finish(&t, &o);
			ASSERT(g);
			char label[128];
			snprintf(label, sizeof label, "%s NaN/inf %s", wnn_ops[cm_reduce_ops[k]].name,
				 cols ? "columns" : "rows");
			void *in[1] = { cols ? xt : x };
			cm_check_data(g, in, 1e-4, 1e-4, label);
			tg_free(&t);
		}
	free(x);
	free(xt);
}

static void cm_arg_case(enum wnn_op op, uint32_t rank, const uint32_t *dims, uint32_t axis,
			bool i64, double lo, double hi)
{
	struct tg_graph t;
	tg_init(&t);
	Webnn__Ipc__ArgMinMax m = WEBNN__IPC__ARG_MIN_MAX__INIT;
	m.input = tg_input(&t, cm_reduce_type, rank, dims);
	m.output = tg_next(&t);
	m.axis = axis;
	if (i64)
		m.has_output_data_type = 1, m.output_data_type = WEBNN__IPC__DATA_TYPE__INT64;
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, op, &m);
	const struct graph_ir *g = cm_finish(&t, &o);
	ASSERT_MSG(g, "%s: invalid", wnn_ops[op].name);
	char label[256], opts[32];
	snprintf(opts, sizeof opts, "axis %u", axis);
	cm_check(g, NULL, 0, lo, hi, 0, 0,
		 cm_label(label, sizeof label, op, &g->values[g->inputs[0]].desc, opts));
	tg_free(&t);
}

static void cm_cumsum_case(uint32_t rank, const uint32_t *dims, uint32_t axis, bool exclusive,
			   bool reversed)
{
	struct tg_graph t;
	tg_init(&t);
	Webnn__Ipc__CumulativeSum m = WEBNN__IPC__CUMULATIVE_SUM__INIT;
	m.input = tg_input(&t, cm_reduce_type, rank, dims);
	m.output = tg_next(&t);
	m.axis = axis;
	m.has_exclusive = 1, m.exclusive = exclusive;
	m.has_reversed = 1, m.reversed = reversed;
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, WNN_OP_CUMULATIVE_SUM, &m);
	const struct graph_ir *g = cm_finish(&t, &o);
	if (!g && cm_reduce_type != WNN_F32 && cm_reduce_type != WNN_F16) {
		tg_free(&t); /* int8/uint8 have no cumulativeSum */
		return;
	}
	ASSERT_MSG(g, "cumulativeSum: invalid");
	char label[256], opts[64];
	snprintf(opts, sizeof opts, "axis %u%s%s", axis, exclusive ? " exclusive" : "",
		 reversed ? " reversed" : "");
	cm_check(g, NULL, 0, -2, 2, CM_RED_TOL(1e-5), CM_RED_TOL(1e-5),
		 cm_label(label, sizeof label, WNN_OP_CUMULATIVE_SUM,
			  &g->values[g->inputs[0]].desc, opts));
	tg_free(&t);
}

TEST_TIMEOUT(cpu_misc_arg_cumsum, 300)
{
	cm_arg_case(WNN_OP_ARG_MAX, 2, (uint32_t[]){ 8, 1000 }, 1, false, -3, 3);
	cm_arg_case(WNN_OP_ARG_MIN, 4, (uint32_t[]){ 2, 5, 300, 7 }, 2, true, -3, 3);
	for (int i = 0; i < 200; i++) {
		uint32_t rank, dims[WNN_MAX_RANK];
		cm_random_shape(&rank, dims, 4, 9);
		uint32_t axis = cm_rand(rank);
		cm_reduce_type = cm_random_type();
		/* a narrow integer range makes ties, which the first index must win */
		bool ties = cm_rand(2);
		cm_arg_case(cm_rand(2) ? WNN_OP_ARG_MAX : WNN_OP_ARG_MIN, rank, dims, axis,
			    cm_rand(2), ties ? -2 : -100, ties ? 2 : 100);
		cm_cumsum_case(rank, dims, axis, cm_rand(2), cm_rand(2));
	}
}

/* ==== normalization: softmax, batch, layer and instance normalization */

static enum wnn_dtype cm_norm_type = WNN_F32; /* of the next normalization case */
#define CM_NORM_ATOL(a) (cm_norm_type == WNN_F16 ? 4e-3 : (a))

static void cm_softmax_case(uint32_t rank, const uint32_t *dims, uint32_t axis)
{
	struct tg_graph t;
	tg_init(&t);
	Webnn__Ipc__Softmax m = WEBNN__IPC__SOFTMAX__INIT;
	m.input = tg_input(&t, cm_norm_type, rank, dims);
	m.output = tg_next(&t);
	m.axis = axis;
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, WNN_OP_SOFTMAX, &m);
	const struct graph_ir *g = cm_finish(&t, &o);
	ASSERT_MSG(g, "softmax: invalid");
	char label[256], opts[32];
	snprintf(opts, sizeof opts, "axis %u", axis);
	cm_check(g, NULL, 0, -8, 8, CM_NORM_ATOL(1e-6), CM_NORM_ATOL(1e-5),
		 cm_label(label, sizeof label, WNN_OP_SOFTMAX, &g->values[g->inputs[0]].desc,
			  opts));
	tg_free(&t);
}

/* Rows with NaN, +inf, all -inf and ordinary numbers: the reference's NaN results (a NaN or
 * +inf anywhere in a row makes it all NaN) on both softmax kernels (oneDNN along the last
 * axis, C along another) and layerNormalization. */
TEST(cpu_misc_normalization_nan_inf)
{
	enum { ROWS = 6, LEN = 300 };
	float *x = malloc(sizeof(float) * ROWS * LEN), *xt = malloc(sizeof(float) * ROWS * LEN);
	ASSERT(x && xt);
	tg_random(x, WNN_F32, (uint64_t)ROWS * LEN, 78, -3, 3);
	x[0 * LEN + 100] = NAN;
	x[1 * LEN + 7] = INFINITY;
	for (int k = 0; k < LEN; k++)
		x[2 * LEN + k] = -INFINITY;
	x[3 * LEN + 0] = -INFINITY;
	x[4 * LEN + 299] = NAN;
	x[4 * LEN + 5] = INFINITY;
	for (int r = 0; r < ROWS; r++)
		for (int k = 0; k < LEN; k++)
			xt[k * ROWS + r] = x[r * LEN + k];
	for (int c = 0; c < 3; c++) {
		struct tg_graph t;
		tg_init(&t);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		Webnn__Ipc__Softmax sm = WEBNN__IPC__SOFTMAX__INIT;
		Webnn__Ipc__LayerNormalization lm = WEBNN__IPC__LAYER_NORMALIZATION__INIT;
		uint32_t ax[1] = { 1 };
		bool cols = c == 1;
		uint32_t in = tg_input(&t, WNN_F32, 2,
				       cols ? (uint32_t[]){ LEN, ROWS } : (uint32_t[]){ ROWS, LEN });
		if (c < 2) {
			sm.input = in, sm.output = tg_next(&t), sm.axis = cols ? 0 : 1;
			tg_set_op(&o, WNN_OP_SOFTMAX, &sm);
		} else {
			lm.input = in, lm.output = tg_next(&t);
			lm.axes = ax, lm.n_axes = 1, lm.has_has_axes = 1, lm.has_axes = 1;
			tg_set_op(&o, WNN_OP_LAYER_NORMALIZATION, &lm);
		}
		const struct graph_ir *g = cm_finish(&t, &o);
		ASSERT(g);
		void *in_data[1] = { cols ? xt : x };
		cm_check_data(g, in_data, 1e-6, 1e-5,
			      c == 0 ? "softmax NaN/inf rows" : c == 1 ? "softmax NaN/inf columns"
								  : "layerNormalization NaN/inf rows");
		tg_free(&t);
	}
	free(x);
	free(xt);
}

static void cm_batchnorm_case(uint32_t rank, const uint32_t *dims, uint32_t axis, bool scale,
			      bool bias, bool constants)
{
	struct tg_graph t;
	tg_init(&t);
	Webnn__Ipc__BatchNormalization m = WEBNN__IPC__BATCH_NORMALIZATION__INIT;
	uint32_t c = dims[axis];
	struct cm_range r[5] = { { -3, 3 }, { -1, 1 }, { 0.1, 2 }, { 0.5, 2 }, { -1, 1 } };
	m.input = tg_input(&t, cm_norm_type, rank, dims);
	constants = constants && cm_norm_type == WNN_F32;
	float *data = malloc(4 * c * sizeof *data);
	ASSERT(data);
	for (uint32_t i = 0; i < c; i++) {
		data[i] = (float)(i % 7) * 0.1f - 0.3f;
		data[c + i] = 0.2f + (float)(i % 5) * 0.3f;
		data[2 * c + i] = 0.5f + (float)(i % 3) * 0.25f;
		data[3 * c + i] = (float)(i % 4) * 0.2f - 0.3f;
	}
	uint32_t *slots[4] = { &m.mean, &m.variance, &m.scale, &m.bias };
	bool use[4] = { true, true, scale, bias };
	for (int k = 0; k < 4; k++) {
		if (!use[k])
			continue;
		*slots[k] = constants ? tg_constant(&t, WNN_F32, 1, &c, data + k * c)
				      : tg_input(&t, cm_norm_type, 1, &c);
	}
	m.has_scale = scale, m.has_bias = bias;
	m.has_axis = 1, m.axis = axis;
	m.output = tg_next(&t);
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, WNN_OP_BATCH_NORMALIZATION, &m);
	const struct graph_ir *g = cm_finish(&t, &o);
	ASSERT_MSG(g, "batchNormalization: invalid");
	/* graph inputs in creation order: input, then mean, variance, scale, bias when given */
	struct cm_range rr[5] = { r[0] };
	size_t n_r = 1;
	for (int k = 0; k < 4 && !constants; k++)
		if (use[k])
			rr[n_r++] = r[k + 1];
	char label[256], opts[64];
	snprintf(opts, sizeof opts, "axis %u%s%s%s", axis, scale ? " scale" : "",
		 bias ? " bias" : "", constants ? " constants" : "");
	cm_check(g, rr, n_r, -3, 3, CM_NORM_ATOL(1e-5), CM_NORM_ATOL(1e-5),
		 cm_label(label, sizeof label, WNN_OP_BATCH_NORMALIZATION,
			  &g->values[g->inputs[0]].desc, opts));
	tg_free(&t);
	free(data);
}

static void cm_norm_case(enum wnn_op op, uint32_t rank, const uint32_t *dims, const uint32_t *axes,
			 uint32_t n_axes, bool has_axes, bool nhwc, bool scale, bool bias)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t ax[WNN_MAX_RANK], sdims[WNN_MAX_RANK], srank;
	if (n_axes)
		memcpy(ax, axes, n_axes * sizeof *ax);
	uint32_t in = tg_input(&t, cm_norm_type, rank, dims), sc = 0, bi = 0;
	if (op == WNN_OP_INSTANCE_NORMALIZATION) {
		srank = 1;
		sdims[0] = dims[nhwc ? 3 : 1];
	} else if (has_axes) {
		srank = n_axes;
		for (uint32_t i = 0; i < n_axes; i++)
			sdims[i] = dims[axes[i]];
	} else { /* default axes: all but the first */
		srank = rank - 1;
		for (uint32_t i = 1; i < rank; i++)
			sdims[i - 1] = dims[i];
	}
	if (scale)
		sc = tg_input(&t, cm_norm_type, srank, sdims);
	if (bias)
		bi = tg_input(&t, cm_norm_type, srank, sdims);
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	Webnn__Ipc__InstanceNormalization im = WEBNN__IPC__INSTANCE_NORMALIZATION__INIT;
	Webnn__Ipc__LayerNormalization lm = WEBNN__IPC__LAYER_NORMALIZATION__INIT;
	if (op == WNN_OP_INSTANCE_NORMALIZATION) {
		im.input = in, im.has_scale = scale, im.scale = sc, im.has_bias = bias, im.bias = bi;
		im.output = tg_next(&t);
		if (nhwc)
			im.has_layout = 1, im.layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
		tg_set_op(&o, op, &im);
	} else {
		lm.input = in, lm.has_scale = scale, lm.scale = sc, lm.has_bias = bias, lm.bias = bi;
		lm.output = tg_next(&t);
		lm.axes = ax, lm.n_axes = n_axes;
		lm.has_has_axes = 1, lm.has_axes = has_axes;
		tg_set_op(&o, op, &lm);
	}
	const struct graph_ir *g = cm_finish(&t, &o);
	if (g) {
		char label[256], opts[96] = "axes";
		for (uint32_t i = 0; i < n_axes; i++)
			snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " %u", axes[i]);
		if (!has_axes || op == WNN_OP_INSTANCE_NORMALIZATION)
			snprintf(opts, sizeof opts, "%s", nhwc ? "nhwc" : "default");
		snprintf(opts + strlen(opts), sizeof opts - strlen(opts), "%s%s",
			 scale ? " scale" : "", bias ? " bias" : "");
		cm_check(g, NULL, 0, -3, 3, CM_NORM_ATOL(2e-5), CM_NORM_ATOL(2e-4),
			 cm_label(label, sizeof label, op, &g->values[g->inputs[0]].desc, opts));
	}
	tg_free(&t);
}

TEST_TIMEOUT(cpu_misc_normalization, 300)
{
	cm_norm_type = WNN_F16;
	cm_softmax_case(2, (uint32_t[]){ 32, 1000 }, 1);
	cm_norm_case(WNN_OP_LAYER_NORMALIZATION, 3, (uint32_t[]){ 4, 128, 768 }, (uint32_t[]){ 2 },
		     1, true, false, true, true);
	cm_norm_type = WNN_F32;
	cm_softmax_case(2, (uint32_t[]){ 32, 1000 }, 1);
	cm_softmax_case(4, (uint32_t[]){ 2, 12, 64, 64 }, 3);
	cm_softmax_case(3, (uint32_t[]){ 4, 100, 33 }, 1);
	cm_batchnorm_case(4, (uint32_t[]){ 1, 56, 56, 64 }, 3, true, true, true);
	cm_batchnorm_case(4, (uint32_t[]){ 1, 64, 56, 56 }, 1, true, true, false);
	cm_norm_case(WNN_OP_INSTANCE_NORMALIZATION, 4, (uint32_t[]){ 2, 32, 40, 40 }, NULL, 0,
		     false, false, true, true);
	cm_norm_case(WNN_OP_INSTANCE_NORMALIZATION, 4, (uint32_t[]){ 2, 40, 40, 300 }, NULL, 0,
		     false, true, true, true);
	cm_norm_case(WNN_OP_LAYER_NORMALIZATION, 3, (uint32_t[]){ 4, 128, 768 }, (uint32_t[]){ 2 },
		     1, true, false, true, true);
	cm_norm_case(WNN_OP_LAYER_NORMALIZATION, 3, (uint32_t[]){ 4, 128, 768 }, (uint32_t[]){ 1 },
		     1, true, false, true, false);
	for (int i = 0; i < 300; i++) {
		uint32_t rank, dims[WNN_MAX_RANK], axes[WNN_MAX_RANK];
		cm_random_shape(&rank, dims, 5, 9);
		cm_norm_type = cm_rand(4) == 0 ? WNN_F16 : WNN_F32;
		switch (cm_rand(4)) {
		case 0:
			cm_softmax_case(rank, dims, cm_rand(rank));
			break;
		case 1:
			cm_batchnorm_case(rank, dims, cm_rand(rank), cm_rand(2), cm_rand(2),
					  cm_rand(2));
			break;
		case 2: {
			uint32_t d4[4] = { 1 + cm_rand(3), 1 + cm_rand(9), 1 + cm_rand(9),
					   1 + cm_rand(9) };
			cm_norm_case(WNN_OP_INSTANCE_NORMALIZATION, 4, d4, NULL, 0, false,
				     cm_rand(2), cm_rand(2), cm_rand(2));
			break;
		}
		default: {
			uint32_t n_axes = cm_random_axes(rank, axes, cm_rand(2));
			cm_norm_case(WNN_OP_LAYER_NORMALIZATION, rank, dims, axes, n_axes,
				     cm_rand(6) != 0, false, cm_rand(2), cm_rand(2));
			break;
		}
		}
	}
}

/* ==== resample2d: nearest and linear, scales (up and down) or sizes, over axes [2, 3],
 * [1, 2] and [0, 1] */

static void cm_resample_case(enum wnn_dtype type, const uint32_t *dims, bool linear,
			     const uint32_t *axes, const float *scales, const uint32_t *sizes)
{
	struct tg_graph t;
	tg_init(&t);
	Webnn__Ipc__Resample2d m = WEBNN__IPC__RESAMPLE2D__INIT;
	uint32_t ax[2] = { axes[0], axes[1] }, sz[2];
	float sc[2];
	m.input = tg_input(&t, type, 4, dims);
	m.output = tg_next(&t);
	if (linear)
		m.has_mode = 1, m.mode = WEBNN__IPC__INTERPOLATION_MODE__LINEAR;
	m.axes = ax, m.n_axes = 2;
	if (sizes) {
		sz[0] = sizes[0], sz[1] = sizes[1];
		m.sizes = sz, m.n_sizes = 2;
	} else {
		sc[0] = scales[0], sc[1] = scales[1];
		m.scales = sc, m.n_scales = 2;
	}
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, WNN_OP_RESAMPLE2D, &m);
	const struct graph_ir *g = cm_finish(&t, &o);
	if (g) {
		char label[256], opts[96];
		snprintf(opts, sizeof opts, "%s axes %u,%u %s %g,%g", linear ? "linear" : "nearest",
			 axes[0], axes[1], sizes ? "sizes" : "scales",
			 sizes ? (double)sizes[0] : (double)scales[0],
			 sizes ? (double)sizes[1] : (double)scales[1]);
		cm_check(g, NULL, 0, -50, 50, 1e-4, 1e-5,
			 cm_label(label, sizeof label, WNN_OP_RESAMPLE2D,
				  &g->values[g->inputs[0]].desc, opts));
	}
	tg_free(&t);
}

TEST_TIMEOUT(cpu_misc_resample, 300)
{
	static const uint32_t axes[3][2] = { { 2, 3 }, { 1, 2 }, { 0, 1 } };
	static const float scales[] = { 0.5f, 1, 1.5f, 2, 3, 0.25f, 0.7f };
	cm_resample_case(WNN_F32, (uint32_t[]){ 1, 64, 64, 256 }, true, axes[1],
			 (float[]){ 2, 2 }, NULL);
	cm_resample_case(WNN_F32, (uint32_t[]){ 1, 256, 64, 64 }, false, axes[0],
			 (float[]){ 2, 2 }, NULL);
	cm_resample_case(WNN_F32, (uint32_t[]){ 1, 8, 64, 64 }, false, axes[0],
			 (float[]){ 0.5f, 0.5f }, NULL);
	for (int i = 0; i < 300; i++) {
		uint32_t dims[4];
		for (int d = 0; d < 4; d++)
			dims[d] = 1 + cm_rand(9);
		const uint32_t *a = axes[cm_rand(3)];
		bool linear = cm_rand(2);
		enum wnn_dtype type = WNN_F32;
		uint32_t k = cm_rand(8);
		if (k == 0)
			type = WNN_U8;
		else if (k == 1)
			type = WNN_I8;
		else if (k == 2)
			type = WNN_F16;
		if (cm_rand(3) == 0) {
			uint32_t sizes[2] = { 1 + cm_rand(16), 1 + cm_rand(16) };
			cm_resample_case(type, dims, linear, a, NULL, sizes);
		} else {
			float s[2] = { scales[cm_rand(7)], scales[cm_rand(7)] };
			cm_resample_case(type, dims, linear, a, s, NULL);
		}
	}
}


/* ---- constant folding on the fast kernels (backend_cpu.evaluate) */

/* Evaluates node 0 of g (inputs random) with backend_cpu.evaluate and the registry's host evaluator (backend_host_evaluate) and
 * compares the first output; with cancel set, the cpu evaluation is refused as cancelled. */
static void ce_check(const struct graph_ir *g, const char *what)
{
	struct wnn_diag diag = { 0 };
	struct backend *be = NULL;
	ASSERT_MSG(backend_cpu.init(NULL, &be, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	atomic_bool cancel;
	atomic_init(&cancel, false);
	struct backend_context_options opts = { .cancel = &cancel };
	struct backend_context *ctx = NULL;
	ASSERT(backend_cpu.context_create(be, &opts, &ctx, &diag) == WEBNN_STATUS_OK);
	const struct graph_node *n = &g->nodes[0];
	const void *in[4] = { 0 };
	for (uint32_t k = 0; k < n->n_inputs; k++) {
		const struct wnn_desc *d = &g->values[n->inputs[k]].desc;
		void *p = aligned_alloc(64, (tg_bytes(d) + 63) & ~(size_t)63);
		ASSERT(p);
		tg_random(p, d->type, tg_bytes(d) / wnn_dtype_size(d->type), 7 + k, -1, 1);
		in[k] = p;
	}
	const struct wnn_desc *od = &g->values[n->outputs[0]].desc;
	size_t bytes = (tg_bytes(od) + 63) & ~(size_t)63;
	void *fast = aligned_alloc(64, bytes), *ref = aligned_alloc(64, bytes);
	ASSERT(fast && ref);
	memset(fast, 0, bytes);
	memset(ref, 0, bytes);
	ASSERT_MSG(backend_cpu.evaluate(ctx, g, n, in, (void *const[]){ fast }, &diag) ==
		   WEBNN_STATUS_OK, "%s: %s", what, diag.message);
	ASSERT_MSG(backend_host_evaluate(n, g->values, in, (void *const[]){ ref }, NULL, &diag) ==
		   WEBNN_STATUS_OK, "%s: %s", what, diag.message);
	char msg[256];
	ASSERT_MSG(tg_compare(fast, ref, od->type, tg_bytes(od) / wnn_dtype_size(od->type), 0, 1e-4,
			      1e-4, msg, sizeof(msg)), "%s: %s", what, msg);
	atomic_store(&cancel, true);
	wnn_diag_clear(&diag);
	ASSERT_EQ(backend_cpu.evaluate(ctx, g, n, in, (void *const[]){ fast }, &diag),
		  WEBNN_STATUS_CONTEXT_LOST);
	ASSERT_CONTAINS(diag.message, "cancelled");
	for (uint32_t k = 0; k < n->n_inputs; k++)
		free((void *)in[k]);
	free(fast);
	free(ref);
	backend_cpu.context_destroy(ctx);
	backend_cpu.shutdown(be);
}

#define CE_SHAPE(...) (uint32_t)(sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)), \
		      ((const uint32_t[]){ __VA_ARGS__ })

/* Folding runs before the passes: the nodes are in the client's layout (NCHW here) and unfused;
 * the fast kernels give the reference's results on them. */
TEST(cpu_evaluate_matches_reference)
{
	struct tg_graph t;
	struct wnn_diag diag = { 0 };
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;

	tg_init(&t);
	Webnn__Ipc__Matmul mm = WEBNN__IPC__MATMUL__INIT;
	mm.a = tg_input(&t, WNN_F32, CE_SHAPE(2, 64, 48));
	mm.b = tg_input(&t, WNN_F32, CE_SHAPE(2, 48, 80));
	mm.output = tg_next(&t);
	tg_set_op(&op, WNN_OP_MATMUL, &mm);
	ASSERT_MSG(tg_op(&t, &op, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ce_check(tg_finish(&t, &diag), "matmul");
	tg_free(&t);

	tg_init(&t);
	Webnn__Ipc__Conv2d cv = WEBNN__IPC__CONV2D__INIT;
	uint32_t pad[] = { 1, 1, 1, 1 };
	cv.input = tg_input(&t, WNN_F32, CE_SHAPE(1, 8, 10, 10));
	cv.filter = tg_input(&t, WNN_F32, CE_SHAPE(16, 8, 3, 3));
	cv.output = tg_next(&t);
	cv.padding = pad;
	cv.n_padding = 4;
	op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_CONV2D, &cv);
	ASSERT_MSG(tg_op(&t, &op, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ce_check(tg_finish(&t, &diag), "conv2d NCHW");
	tg_free(&t);

	tg_init(&t);
	Webnn__Ipc__Pool2d pl = WEBNN__IPC__POOL2D__INIT;
	uint32_t window[] = { 3, 3 };
	pl.input = tg_input(&t, WNN_F32, CE_SHAPE(1, 4, 9, 9));
	pl.output = tg_next(&t);
	pl.window_dimensions = window;
	pl.n_window_dimensions = 2;
	op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_AVERAGE_POOL2D, &pl);
	ASSERT_MSG(tg_op(&t, &op, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ce_check(tg_finish(&t, &diag), "averagePool2d NCHW");
	tg_free(&t);

	tg_init(&t);
	Webnn__Ipc__ElementwiseBinary add = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
	add.a = tg_input(&t, WNN_F32, CE_SHAPE(3, 1, 5));
	add.b = tg_input(&t, WNN_F32, CE_SHAPE(4, 1));
	add.output = tg_next(&t);
	op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_ADD, &add);
	ASSERT_MSG(tg_op(&t, &op, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ce_check(tg_finish(&t, &diag), "add, broadcast");
	tg_free(&t);

	tg_init(&t);
	Webnn__Ipc__Softmax sm = WEBNN__IPC__SOFTMAX__INIT;
	sm.input = tg_input(&t, WNN_F32, CE_SHAPE(6, 33));
	sm.output = tg_next(&t);
	sm.axis = 1;
	op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_SOFTMAX, &sm);
	ASSERT_MSG(tg_op(&t, &op, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ce_check(tg_finish(&t, &diag), "softmax");
	tg_free(&t);
}
