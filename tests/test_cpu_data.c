/* The cpu backend's data and gather kernels against the reference, bit for bit: every operator, element sizes 1/2/4/8, many shapes and options, one and several threads. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/backend/cpu/cpu.h"
#include "daemon/backend/host/kernels.h"
#include "tests/graphs.h"
#include "tests/test.h"

static const enum wnn_dtype DC_TYPES[] = { WNN_F32, WNN_F16, WNN_I32, WNN_U32,
					   WNN_I64, WNN_U64, WNN_I8,  WNN_U8 };
#define DC_N_TYPES (sizeof DC_TYPES / sizeof DC_TYPES[0])
/* one type per element size, for the big shapes */
static const enum wnn_dtype DC_SIZES[] = { WNN_U8, WNN_F16, WNN_F32, WNN_I64 };

static int dc_n_checked;
static struct backend *dc_be; /* the cpu backend, made once per test (each runs in a child) */
static uint64_t dc_seed = 99;

/* Values of input i: [lo, hi] where given (indices: past both ends of their axis, negative
 * ones included), else [-50, 50]. */
struct dc_range {
	double lo, hi;
};

/* Runs the one operation of g on the reference and through the cpu family kernel (on 1 and 4
 * threads, outputs pre-filled so a missed element shows) and compares the bytes. */
static void dc_check(const struct graph_ir *g, const struct dc_range *r, size_t n_r,
		     const char *label)
{
	void *in[TG_MAX_OPERANDS] = { 0 }, *ref[TG_MAX_OPERANDS] = { 0 };
	size_t out_bytes[TG_MAX_OPERANDS] = { 0 };
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		in[i] = malloc(tg_bytes(d) + 8);
		double lo = -50, hi = 50;
		if (i < n_r && (r[i].lo != 0 || r[i].hi != 0))
			lo = r[i].lo, hi = r[i].hi;
		bool uns = d->type == WNN_U8 || d->type == WNN_U32 || d->type == WNN_U64;
		tg_random(in[i], d->type, count, dc_seed++, uns && lo < 0 ? 0 : lo, hi);
	}
	for (size_t i = 0; i < g->n_outputs; i++) {
		out_bytes[i] = tg_bytes(&g->values[g->outputs[i]].desc);
		ref[i] = calloc(1, out_bytes[i] + 8);
	}
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(tg_run(&backend_reference, NULL, g, (const void *const *)in, ref, &diag) ==
			   WEBNN_STATUS_OK,
		   "%s: reference: %s", label, diag.message);
	const struct graph_node *n = NULL;
	GRAPH_FOR_EACH_LIVE_NODE(g, k)
	if (!n)
		n = &g->nodes[k];
	ASSERT_MSG(n != NULL, "%s: no operation", label);
	static const int threads[] = { 1, 4 };
	for (size_t ti = 0; ti < 2; ti++) {
		struct cpu_build b = { .g = g, .threads = threads[ti] };
		struct cpu_step s = { .n = n, .g = g };
		enum webnn_status st = wnn_ops[n->op].family == WNN_FAMILY_DATA
					       ? cpu_data_prepare(&b, &s, &diag)
					       : cpu_gather_prepare(&b, &s, &diag);
		ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: prepare: %s", label, diag.message);
		ASSERT_MSG(s.run != NULL, "%s: no cpu kernel", label);
		void **bufs = calloc(g->n_values, sizeof(*bufs));
		for (size_t i = 0; i < g->n_inputs; i++)
			bufs[g->inputs[i]] = in[i];
		for (size_t i = 0; i < g->n_outputs; i++) {
			bufs[g->outputs[i]] = malloc(out_bytes[i] + 8);
			memset(bufs[g->outputs[i]], 0x5a, out_bytes[i] + 8);
		}
		struct cpu_exec x = { .threads = threads[ti] };
		st = s.run(&s, bufs, &x, &diag);
		ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: run: %s", label, diag.message);
		for (size_t i = 0; i < g->n_outputs; i++) {
			const uint8_t *a = bufs[g->outputs[i]], *e = ref[i];
			size_t j = 0;
			while (j < out_bytes[i] && a[j] == e[j])
				j++;
			ASSERT_MSG(j == out_bytes[i], "%s (%d threads): output %zu differs at byte %zu of %zu",
				   label, threads[ti], i, j, out_bytes[i]);
			ASSERT_MSG(a[out_bytes[i]] == 0x5a, "%s: wrote past the output", label);
			free(bufs[g->outputs[i]]);
		}
		if (s.destroy)
			s.destroy(s.priv);
		free(bufs);
	}
	/* and through the backend: its passes, plan and buffers */
	if (!dc_be) {
		ASSERT_MSG(backend_cpu.init(NULL, &dc_be, &diag) == WEBNN_STATUS_OK, "cpu: %s",
			   diag.message);
	}
	void *out[TG_MAX_OPERANDS] = { 0 };
	for (size_t i = 0; i < g->n_outputs; i++)
		out[i] = calloc(1, out_bytes[i] + 8);
	ASSERT_MSG(tg_run(&backend_cpu, dc_be, g, (const void *const *)in, out, &diag) ==
			   WEBNN_STATUS_OK,
		   "%s: cpu backend: %s", label, diag.message);
	for (size_t i = 0; i < g->n_outputs; i++) {
		ASSERT_MSG(memcmp(out[i], ref[i], out_bytes[i]) == 0,
			   "%s: cpu backend output %zu differs", label, i);
		free(out[i]);
	}
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		free(in[i]);
		free(ref[i]);
	}
	dc_n_checked++;
}

/* input(t, dims) -> op(msg); msg has .input and .output */
#define DC_RUN1(t, rank, dims, kind, msg, label)                                               \
	do {                                                                                   \
		struct tg_graph tg_;                                                           \
		struct wnn_diag d_ = { 0 };                                                    \
		tg_init(&tg_);                                                                 \
		(msg).input = tg_input(&tg_, (t), (rank), (dims));                             \
		(msg).output = tg_next(&tg_);                                                  \
		Webnn__Ipc__Operation o_ = WEBNN__IPC__OPERATION__INIT;                        \
		tg_set_op(&o_, (kind), &(msg));                                                \
		ASSERT_MSG(tg_op(&tg_, &o_, &d_) == WEBNN_STATUS_OK, "%s: %s", (label),        \
			   d_.message);                                                        \
		const struct graph_ir *g_ = tg_finish(&tg_, &d_);                              \
		ASSERT_MSG(g_, "%s: %s", (label), d_.message);                                 \
		dc_check(g_, NULL, 0, (label));                                                \
		tg_free(&tg_);                                                                 \
	} while (0)

static void dc_transpose(enum wnn_dtype t, uint32_t rank, const uint32_t *dims,
			 const uint32_t *perm)
{
	char label[160];
	Webnn__Ipc__Transpose m = WEBNN__IPC__TRANSPOSE__INIT;
	if (perm) {
		m.n_permutation = rank;
		m.permutation = (uint32_t *)perm;
		m.has_has_permutation = 1;
		m.has_permutation = 1;
	}
	snprintf(label, sizeof label, "transpose %s rank %u [%u..] perm %u%u%u%u", wnn_dtype_name(t),
		 rank, rank ? dims[0] : 0, perm ? perm[0] : 9, perm && rank > 1 ? perm[1] : 9,
		 perm && rank > 2 ? perm[2] : 9, perm && rank > 3 ? perm[3] : 9);
	DC_RUN1(t, rank, dims, WNN_OP_TRANSPOSE, m, label);
}

TEST_TIMEOUT(cpu_data_transpose, 300)
{
	for (size_t ti = 0; ti < DC_N_TYPES; ti++) {
		enum wnn_dtype t = DC_TYPES[ti];
		/* every permutation of a rank-4 shape with odd sizes */
		uint32_t perm[4];
		for (uint32_t a = 0; a < 4; a++)
			for (uint32_t b = 0; b < 4; b++)
				for (uint32_t c = 0; c < 4; c++) {
					uint32_t d = 6 - a - b - c;
					if (a == b || a == c || b == c || d > 3 || d == a || d == b ||
					    d == c)
						continue;
					perm[0] = a, perm[1] = b, perm[2] = c, perm[3] = d;
					dc_transpose(t, 4, (uint32_t[]){ 2, 3, 5, 7 }, perm);
					dc_transpose(t, 4, (uint32_t[]){ 1, 33, 1, 40 }, perm);
				}
		dc_transpose(t, 3, (uint32_t[]){ 4, 5, 6 }, NULL);
		dc_transpose(t, 1, (uint32_t[]){ 9 }, NULL);
		dc_transpose(t, 0, NULL, NULL);
		dc_transpose(t, 2, (uint32_t[]){ 37, 70 }, NULL);
		dc_transpose(t, 3, (uint32_t[]){ 3, 65, 66 }, (uint32_t[]){ 1, 2, 0 });
		dc_transpose(t, 3, (uint32_t[]){ 3, 65, 66 }, (uint32_t[]){ 2, 0, 1 });
		dc_transpose(t, 5, (uint32_t[]){ 2, 3, 2, 5, 4 }, (uint32_t[]){ 4, 0, 3, 1, 2 });
		/* three planes both ways, with remainders */
		dc_transpose(t, 4, (uint32_t[]){ 2, 3, 7, 9 }, (uint32_t[]){ 0, 2, 3, 1 });
		dc_transpose(t, 4, (uint32_t[]){ 2, 7, 9, 3 }, (uint32_t[]){ 0, 3, 1, 2 });
		dc_transpose(t, 3, (uint32_t[]){ 5, 3, 333 }, (uint32_t[]){ 0, 2, 1 });
		dc_transpose(t, 3, (uint32_t[]){ 5, 333, 3 }, (uint32_t[]){ 0, 2, 1 });
	}
	for (size_t ti = 0; ti < 4; ti++) {
		enum wnn_dtype t = DC_SIZES[ti];
		/* the layout pass's edges: NCHW <-> NHWC on model shapes, parallel paths */
		dc_transpose(t, 4, (uint32_t[]){ 1, 3, 224, 224 }, (uint32_t[]){ 0, 2, 3, 1 });
		dc_transpose(t, 4, (uint32_t[]){ 1, 224, 224, 3 }, (uint32_t[]){ 0, 3, 1, 2 });
		dc_transpose(t, 4, (uint32_t[]){ 1, 64, 56, 56 }, (uint32_t[]){ 0, 2, 3, 1 });
		dc_transpose(t, 4, (uint32_t[]){ 1, 56, 56, 64 }, (uint32_t[]){ 0, 3, 1, 2 });
		dc_transpose(t, 4, (uint32_t[]){ 2, 512, 7, 7 }, (uint32_t[]){ 0, 2, 3, 1 });
		dc_transpose(t, 2, (uint32_t[]){ 1, 1000 }, NULL);
		dc_transpose(t, 3, (uint32_t[]){ 300, 2, 500 }, (uint32_t[]){ 0, 2, 1 });
	}
	ASSERT(dc_n_checked > 8 * 50);
}

TEST_TIMEOUT(cpu_data_concat_split_reshape, 300)
{
	for (size_t ti = 0; ti < DC_N_TYPES; ti++) {
		enum wnn_dtype t = DC_TYPES[ti];
		char label[128];
		for (uint32_t axis = 0; axis < 3; axis++) {
			struct tg_graph tg;
			struct wnn_diag d = { 0 };
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
			snprintf(label, sizeof label, "concat axis %u %s", axis, wnn_dtype_name(t));
			ASSERT_MSG(tg_op(&tg, &o, &d) == WEBNN_STATUS_OK, "%s", d.message);
			dc_check(tg_finish(&tg, &d), NULL, 0, label);
			tg_free(&tg);
		}
		for (int by_sizes = 0; by_sizes < 2; by_sizes++)
			for (uint32_t axis = 0; axis < 3; axis++) {
				struct tg_graph tg;
				struct wnn_diag d = { 0 };
				tg_init(&tg);
				uint32_t dims[3] = { 3, 5, 4 };
				dims[axis] = 6;
				uint32_t x = tg_input(&tg, t, 3, dims);
				Webnn__Ipc__Split m = WEBNN__IPC__SPLIT__INIT;
				uint32_t outs[3] = { tg_next(&tg), tg_next(&tg) + 1, tg_next(&tg) + 2 };
				uint32_t sizes[3] = { 1, 3, 2 };
				m.input = x;
				m.n_outputs = 3;
				m.outputs = outs;
				m.has_axis = 1;
				m.axis = axis;
				if (by_sizes) {
					m.n_sizes = 3;
					m.sizes = sizes;
				} else {
					m.has_count = 1;
					m.count = 3;
				}
				Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
				tg_set_op(&o, WNN_OP_SPLIT, &m);
				snprintf(label, sizeof label, "split %d axis %u %s", by_sizes, axis,
					 wnn_dtype_name(t));
				ASSERT_MSG(tg_op(&tg, &o, &d) == WEBNN_STATUS_OK, "%s", d.message);
				dc_check(tg_finish(&tg, &d), NULL, 0, label);
				tg_free(&tg);
			}
		Webnn__Ipc__Reshape r = WEBNN__IPC__RESHAPE__INIT;
		uint32_t shape[2] = { 6, 4 };
		r.n_new_shape = 2;
		r.new_shape = shape;
		snprintf(label, sizeof label, "reshape %s", wnn_dtype_name(t));
		DC_RUN1(t, 3, ((uint32_t[]){ 2, 3, 4 }), WNN_OP_RESHAPE, r, label);
	}
	for (size_t ti = 0; ti < 4; ti++) {
		enum wnn_dtype t = DC_SIZES[ti];
		char label[128];
		/* NHWC channel concat (many short runs), NCHW (few long ones), 20 inputs */
		for (int c = 0; c < 3; c++) {
			struct tg_graph tg;
			struct wnn_diag d = { 0 };
			tg_init(&tg);
			uint32_t ins[20], n_in = c == 2 ? 20 : 2, axis = c == 0 ? 3 : 1;
			for (uint32_t i = 0; i < n_in; i++) {
				uint32_t nhwc[4] = { 1, 56, 56, 32 + 32 * (i & 1) };
				uint32_t nchw[4] = { 1, 8 + i, 56, 56 };
				ins[i] = tg_input(&tg, t, 4, c == 0 ? nhwc : nchw);
			}
			Webnn__Ipc__Concat m = WEBNN__IPC__CONCAT__INIT;
			m.n_inputs = n_in;
			m.inputs = ins;
			m.axis = axis;
			m.output = tg_next(&tg);
			Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
			tg_set_op(&o, WNN_OP_CONCAT, &m);
			snprintf(label, sizeof label, "concat big %d %s", c, wnn_dtype_name(t));
			ASSERT_MSG(tg_op(&tg, &o, &d) == WEBNN_STATUS_OK, "%s", d.message);
			dc_check(tg_finish(&tg, &d), NULL, 0, label);
			tg_free(&tg);
		}
		Webnn__Ipc__Reshape r = WEBNN__IPC__RESHAPE__INIT;
		uint32_t shape[2] = { 512, 49 * 3 };
		r.n_new_shape = 2;
		r.new_shape = shape;
		snprintf(label, sizeof label, "reshape big %s", wnn_dtype_name(t));
		DC_RUN1(t, 4, ((uint32_t[]){ 3, 512, 7, 7 }), WNN_OP_RESHAPE, r, label);
	}
}

TEST_TIMEOUT(cpu_data_views, 300)
{
	for (size_t ti = 0; ti < DC_N_TYPES + 4; ti++) {
		bool big = ti >= DC_N_TYPES;
		enum wnn_dtype t = big ? DC_SIZES[ti - DC_N_TYPES] : DC_TYPES[ti];
		const char *tn = wnn_dtype_name(t);
		char label[128];
		uint32_t k = big ? 40 : 1; /* big: past the threading threshold */
		{
			Webnn__Ipc__Expand m = WEBNN__IPC__EXPAND__INIT;
			uint32_t shape[4] = { 2, 3, 4 * k, 5 };
			m.n_new_shape = 4;
			m.new_shape = shape;
			snprintf(label, sizeof label, "expand %s", tn);
			DC_RUN1(t, 3, ((uint32_t[]){ 3, 1, 5 }), WNN_OP_EXPAND, m, label);
			uint32_t shape2[2] = { 4, 6 * k };
			m.n_new_shape = 2;
			m.new_shape = shape2;
			DC_RUN1(t, 0, NULL, WNN_OP_EXPAND, m, label);
			uint32_t shape3[3] = { 7, 30 * k, 33 };
			m.n_new_shape = 3;
			m.new_shape = shape3;
			DC_RUN1(t, 2, ((uint32_t[]){ 30 * k, 1 }), WNN_OP_EXPAND, m, label);
			DC_RUN1(t, 3, ((uint32_t[]){ 7, 1, 33 }), WNN_OP_EXPAND, m, label);
		}
		{
			Webnn__Ipc__Tile m = WEBNN__IPC__TILE__INIT;
			uint32_t reps[3] = { 2, 1, 3 };
			m.n_repetitions = 3;
			m.repetitions = reps;
			snprintf(label, sizeof label, "tile %s", tn);
			DC_RUN1(t, 3, ((uint32_t[]){ 2, 3 * k, 4 }), WNN_OP_TILE, m, label);
			uint32_t reps2[3] = { 1, 3, 1 };
			m.repetitions = reps2;
			DC_RUN1(t, 3, ((uint32_t[]){ 2, 3 * k, 4 }), WNN_OP_TILE, m, label);
			uint32_t reps3[3] = { 3, 2, 5 };
			m.repetitions = reps3;
			DC_RUN1(t, 3, ((uint32_t[]){ 1, 5 * k, 1 }), WNN_OP_TILE, m, label);
		}
		{
			Webnn__Ipc__Slice m = WEBNN__IPC__SLICE__INIT;
			uint32_t starts[3] = { 1, 0, 2 }, sizes[3] = { 3, 2 * k, 5 },
				 strides[3] = { 2, 1, 2 }, strides2[3] = { 1, 3, 1 };
			m.n_starts = m.n_sizes = 3;
			m.starts = starts;
			m.sizes = sizes;
			snprintf(label, sizeof label, "slice %s", tn);
			DC_RUN1(t, 3, ((uint32_t[]){ 4, 3 * k, 7 }), WNN_OP_SLICE, m, label);
			m.n_strides = 3;
			m.strides = strides;
			DC_RUN1(t, 3, ((uint32_t[]){ 4, 3 * k, 7 }), WNN_OP_SLICE, m, label);
			m.strides = strides2;
			sizes[1] = k;
			DC_RUN1(t, 3, ((uint32_t[]){ 4, 3 * k, 7 }), WNN_OP_SLICE, m, label);
		}
		{
			Webnn__Ipc__Reverse m = WEBNN__IPC__REVERSE__INIT;
			snprintf(label, sizeof label, "reverse all %s", tn);
			DC_RUN1(t, 3, ((uint32_t[]){ 2, 3 * k, 4 }), WNN_OP_REVERSE, m, label);
			uint32_t axes[2] = { 1, 2 };
			m.has_has_axes = 1;
			m.has_axes = 1;
			m.axes = axes;
			for (uint32_t n = 0; n < 3; n++) {
				m.n_axes = n < 2 ? 1 : 2;
				axes[0] = n < 2 ? n : 1;
				snprintf(label, sizeof label, "reverse axes %u %s", n, tn);
				DC_RUN1(t, 3, ((uint32_t[]){ 2, 3 * k, 4 }), WNN_OP_REVERSE, m, label);
			}
			m.n_axes = 0;
			snprintf(label, sizeof label, "reverse none %s", tn);
			DC_RUN1(t, 3, ((uint32_t[]){ 2, 3 * k, 4 }), WNN_OP_REVERSE, m, label);
		}
		for (int mode = 0; mode < 3; mode++) {
			static const uint32_t cases[][2][3] = {
				{ { 1, 0, 2 }, { 2, 1, 3 } }, { { 0, 0, 2 }, { 0, 0, 1 } },
				{ { 2, 0, 0 }, { 1, 0, 0 } }, { { 0, 1, 0 }, { 0, 2, 0 } },
				{ { 0, 0, 0 }, { 0, 0, 0 } }, { { 2, 1, 3 }, { 0, 0, 0 } },
			};
			for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
				Webnn__Ipc__Pad m = WEBNN__IPC__PAD__INIT;
				m.n_beginning_padding = m.n_ending_padding = 3;
				m.beginning_padding = (uint32_t *)cases[c][0];
				m.ending_padding = (uint32_t *)cases[c][1];
				m.has_mode = 1;
				m.mode = (Webnn__Ipc__PaddingMode)mode;
				Webnn__Ipc__Number v = WEBNN__IPC__NUMBER__INIT;
				v.value_case = WEBNN__IPC__NUMBER__VALUE_F;
				v.f = 7;
				if (mode == 0 && (c & 1))
					m.value = &v;
				snprintf(label, sizeof label, "pad mode %d case %zu %s", mode, c, tn);
				DC_RUN1(t, 3, ((uint32_t[]){ 3, 4 * k, 4 }), WNN_OP_PAD, m, label);
			}
		}
		for (int c = 0; c < 10; c++) {
			static const int32_t diags[5] = { 0, -1, 2, -100, 100 };
			Webnn__Ipc__Triangular m = WEBNN__IPC__TRIANGULAR__INIT;
			m.has_upper = 1;
			m.upper = c & 1;
			m.has_diagonal = 1;
			m.diagonal = diags[c / 2];
			snprintf(label, sizeof label, "triangular %d %s", c, tn);
			DC_RUN1(t, 3, ((uint32_t[]){ 2, 4 * k, 5 * k }), WNN_OP_TRIANGULAR, m, label);
			DC_RUN1(t, 2, ((uint32_t[]){ 6, 3 }), WNN_OP_TRIANGULAR, m, label);
		}
	}
	/* NHWC spatial padding of a feature map */
	for (int mode = 0; mode < 3; mode++) {
		Webnn__Ipc__Pad m = WEBNN__IPC__PAD__INIT;
		uint32_t begin[4] = { 0, 1, 1, 0 }, end[4] = { 0, 1, 1, 0 };
		m.n_beginning_padding = m.n_ending_padding = 4;
		m.beginning_padding = begin;
		m.ending_padding = end;
		m.has_mode = 1;
		m.mode = (Webnn__Ipc__PaddingMode)mode;
		DC_RUN1(WNN_F32, 4, ((uint32_t[]){ 1, 56, 56, 64 }), WNN_OP_PAD, m, "pad nhwc");
	}
}

/* The same operators on shapes past the threading threshold (256 KiB moved), so the split
 * of rows and blocks over threads is what is compared. */
TEST_TIMEOUT(cpu_data_views_threaded, 300)
{
	for (size_t ti = 0; ti < 4; ti++) {
		enum wnn_dtype t = DC_SIZES[ti];
		const char *tn = wnn_dtype_name(t);
		uint32_t E = (uint32_t)((512u << 10) / wnn_dtype_size(t)); /* elements */
		char label[128];
		{
			Webnn__Ipc__Expand m = WEBNN__IPC__EXPAND__INIT;
			uint32_t shape[3] = { 4, 64, E / 256 }, shape2[2] = { E / 64, 64 };
			m.n_new_shape = 3;
			m.new_shape = shape;
			snprintf(label, sizeof label, "expand threaded %s", tn);
			DC_RUN1(t, 3, ((uint32_t[]){ 1, 64, 1 }), WNN_OP_EXPAND, m, label);
			m.n_new_shape = 2;
			m.new_shape = shape2;
			DC_RUN1(t, 2, ((uint32_t[]){ E / 64, 1 }), WNN_OP_EXPAND, m, label);
		}
		{
			Webnn__Ipc__Tile m = WEBNN__IPC__TILE__INIT;
			uint32_t reps[3] = { 2, 1, 2 };
			m.n_repetitions = 3;
			m.repetitions = reps;
			snprintf(label, sizeof label, "tile threaded %s", tn);
			DC_RUN1(t, 3, ((uint32_t[]){ 2, E / 24, 3 }), WNN_OP_TILE, m, label);
		}
		{
			Webnn__Ipc__Slice m = WEBNN__IPC__SLICE__INIT;
			uint32_t starts[3] = { 1, 0, 2 }, sizes[3] = { 3, E / 16, 5 },
				 strides[3] = { 1, 2, 1 };
			m.n_starts = m.n_sizes = m.n_strides = 3;
			m.starts = starts;
			m.sizes = sizes;
			m.strides = strides;
			snprintf(label, sizeof label, "slice threaded %s", tn);
			DC_RUN1(t, 3, ((uint32_t[]){ 4, E / 8, 7 }), WNN_OP_SLICE, m, label);
			uint32_t starts2[2] = { 0, 0 }, sizes2[2] = { 1, E / 2 };
			m.n_starts = m.n_sizes = 2;
			m.n_strides = 0;
			m.starts = starts2;
			m.sizes = sizes2;
			DC_RUN1(t, 2, ((uint32_t[]){ 2, E }), WNN_OP_SLICE, m, label);
		}
		{
			Webnn__Ipc__Reverse m = WEBNN__IPC__REVERSE__INIT;
			snprintf(label, sizeof label, "reverse threaded %s", tn);
			DC_RUN1(t, 3, ((uint32_t[]){ 2, E / 8, 4 }), WNN_OP_REVERSE, m, label);
			uint32_t axes[1] = { 1 };
			m.has_has_axes = 1;
			m.has_axes = 1;
			m.n_axes = 1;
			m.axes = axes;
			DC_RUN1(t, 3, ((uint32_t[]){ 2, E / 8, 4 }), WNN_OP_REVERSE, m, label);
		}
		for (int mode = 0; mode < 3; mode++) {
			static const uint32_t cases[][2][3] = {
				{ { 1, 0, 2 }, { 2, 1, 3 } },
				{ { 0, 0, 2 }, { 0, 0, 1 } },
				{ { 2, 0, 0 }, { 1, 0, 0 } },
			};
			for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
				Webnn__Ipc__Pad m = WEBNN__IPC__PAD__INIT;
				m.n_beginning_padding = m.n_ending_padding = 3;
				m.beginning_padding = (uint32_t *)cases[c][0];
				m.ending_padding = (uint32_t *)cases[c][1];
				m.has_mode = 1;
				m.mode = (Webnn__Ipc__PaddingMode)mode;
				snprintf(label, sizeof label, "pad threaded mode %d case %zu %s", mode,
					 c, tn);
				DC_RUN1(t, 3, ((uint32_t[]){ 3, E / 12, 4 }), WNN_OP_PAD, m, label);
			}
		}
		for (int c = 0; c < 4; c++) {
			Webnn__Ipc__Triangular m = WEBNN__IPC__TRIANGULAR__INIT;
			m.has_upper = 1;
			m.upper = c & 1;
			m.has_diagonal = 1;
			m.diagonal = c < 2 ? 3 : -40;
			snprintf(label, sizeof label, "triangular threaded %d %s", c, tn);
			DC_RUN1(t, 3, ((uint32_t[]){ 2, 256, E / 512 }), WNN_OP_TRIANGULAR, m, label);
		}
		{
			Webnn__Ipc__Reshape m = WEBNN__IPC__RESHAPE__INIT;
			uint32_t shape[2] = { 2, E / 2 };
			m.n_new_shape = 2;
			m.new_shape = shape;
			snprintf(label, sizeof label, "reshape threaded %s", tn);
			DC_RUN1(t, 1, ((uint32_t[]){ E }), WNN_OP_RESHAPE, m, label);
		}
	}
}

/* indices just past both ends of an axis of size n */
static struct dc_range dc_idx(uint32_t n)
{
	return (struct dc_range){ -(double)n - 3, (double)n + 2 };
}

static const enum wnn_dtype DC_INDEX_TYPES[] = { WNN_I32, WNN_U32, WNN_I64 };

static void dc_gather(enum wnn_op op, enum wnn_dtype t, enum wnn_dtype it, uint32_t rank,
		      const uint32_t *dims, uint32_t irank, const uint32_t *idims, uint32_t axis,
		      uint32_t range)
{
	struct tg_graph tg;
	struct wnn_diag d = { 0 };
	char label[128];
	tg_init(&tg);
	Webnn__Ipc__Gather m = WEBNN__IPC__GATHER__INIT;
	m.input = tg_input(&tg, t, rank, dims);
	m.indices = tg_input(&tg, it, irank, idims);
	m.output = tg_next(&tg);
	m.has_axis = 1;
	m.axis = axis;
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, op, &m);
	snprintf(label, sizeof label, "%s %s idx %s axis %u", wnn_ops[op].name, wnn_dtype_name(t),
		 wnn_dtype_name(it), axis);
	ASSERT_MSG(tg_op(&tg, &o, &d) == WEBNN_STATUS_OK, "%s: %s", label, d.message);
	const struct graph_ir *g = tg_finish(&tg, &d);
	ASSERT_MSG(g, "%s: %s", label, d.message);
	struct dc_range r[2] = { { 0, 0 }, dc_idx(range) };
	dc_check(g, r, 2, label);
	tg_free(&tg);
}

static void dc_scatter(enum wnn_op op, enum wnn_dtype t, enum wnn_dtype it, uint32_t rank,
		       const uint32_t *dims, uint32_t irank, const uint32_t *idims, uint32_t urank,
		       const uint32_t *udims, uint32_t axis, uint32_t range)
{
	struct tg_graph tg;
	struct wnn_diag d = { 0 };
	char label[128];
	tg_init(&tg);
	Webnn__Ipc__Scatter m = WEBNN__IPC__SCATTER__INIT;
	m.input = tg_input(&tg, t, rank, dims);
	m.indices = tg_input(&tg, it, irank, idims);
	m.updates = tg_input(&tg, t, urank, udims);
	m.output = tg_next(&tg);
	m.has_axis = 1;
	m.axis = axis;
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&o, op, &m);
	snprintf(label, sizeof label, "%s %s idx %s axis %u", wnn_ops[op].name, wnn_dtype_name(t),
		 wnn_dtype_name(it), axis);
	ASSERT_MSG(tg_op(&tg, &o, &d) == WEBNN_STATUS_OK, "%s: %s", label, d.message);
	const struct graph_ir *g = tg_finish(&tg, &d);
	ASSERT_MSG(g, "%s: %s", label, d.message);
	struct dc_range r[3] = { { 0, 0 }, dc_idx(range), { 0, 0 } };
	dc_check(g, r, 3, label);
	tg_free(&tg);
}

TEST_TIMEOUT(cpu_data_gather_scatter, 300)
{
	for (size_t ti = 0; ti < DC_N_TYPES + 4; ti++) {
		bool big = ti >= DC_N_TYPES;
		enum wnn_dtype t = big ? DC_SIZES[ti - DC_N_TYPES] : DC_TYPES[ti];
		uint32_t k = big ? 64 : 1;
		for (size_t ii = 0; ii < 3; ii++) {
			enum wnn_dtype it = DC_INDEX_TYPES[ii];
			uint32_t dims[3] = { 4, 5 * k, 6 };
			for (uint32_t axis = 0; axis < 3; axis++) {
				dc_gather(WNN_OP_GATHER, t, it, 3, dims, 2, (uint32_t[]){ 2, 3 },
					  axis, dims[axis]);
				dc_gather(WNN_OP_GATHER, t, it, 3, dims, 0, NULL, axis, dims[axis]);
				uint32_t idims[3] = { 4, 5 * k, 6 };
				idims[axis] = 3;
				dc_gather(WNN_OP_GATHER_ELEMENTS, t, it, 3, dims, 3, idims, axis,
					  dims[axis]);
				dc_scatter(WNN_OP_SCATTER_ELEMENTS, t, it, 3, dims, 3, idims, 3,
					   idims, axis, dims[axis]);
				idims[axis] = dims[axis] + 2; /* more updates than places: duplicates */
				dc_scatter(WNN_OP_SCATTER_ELEMENTS, t, it, 3, dims, 3, idims, 3,
					   idims, axis, dims[axis]);
			}
			dc_gather(WNN_OP_GATHER, t, it, 1, (uint32_t[]){ 1000 * k }, 1,
				  (uint32_t[]){ 700 * k }, 0, 1000 * k);
			/* gatherND / scatterND with tuples of 1, 2 and 3 coordinates */
			for (uint32_t kk = 1; kk <= 3; kk++) {
				uint32_t idims[2] = { 7 * k, kk };
				dc_gather(WNN_OP_GATHER_ND, t, it, 3, dims, 2, idims, 0, 6);
				uint32_t udims[3] = { 7 * k, 0, 0 };
				for (uint32_t d = kk; d < 3; d++)
					udims[1 + d - kk] = dims[d];
				dc_scatter(WNN_OP_SCATTER_ND, t, it, 3, dims, 2, idims, 1 + 3 - kk,
					   udims, 0, 6);
			}
			/* scatterND of a few big slices: the column split */
			uint32_t bdims[2] = { 4, 20000 }, bidx[2] = { 6, 1 }, bupd[2] = { 6, 20000 };
			dc_scatter(WNN_OP_SCATTER_ND, t, it, 2, bdims, 2, bidx, 2, bupd, 0, 4);
		}
	}
}

/* gather and scatter past the threading threshold: rows, elements and column splits */
TEST_TIMEOUT(cpu_data_gather_scatter_threaded, 300)
{
	for (size_t ti = 0; ti < 4; ti++) {
		enum wnn_dtype t = DC_SIZES[ti], it = DC_INDEX_TYPES[ti % 3];
		uint32_t E = (uint32_t)((512u << 10) / wnn_dtype_size(t));
		uint32_t rows[2] = { E / 64, 64 }, col[2] = { E / 64, 1 }, d3[3] = { 4, E / 16, 4 };
		dc_gather(WNN_OP_GATHER, t, it, 2, rows, 1, (uint32_t[]){ E / 64 }, 0, E / 64);
		dc_gather(WNN_OP_GATHER, t, it, 2, (uint32_t[]){ 64, E / 64 }, 1,
			  (uint32_t[]){ E / 64 }, 1, E / 64);
		for (uint32_t axis = 0; axis < 3; axis += 2) {
			dc_gather(WNN_OP_GATHER_ELEMENTS, t, it, 3, d3, 3, d3, axis, d3[axis]);
			dc_scatter(WNN_OP_SCATTER_ELEMENTS, t, it, 3, d3, 3, d3, 3, d3, axis,
				   d3[axis]);
		}
		dc_gather(WNN_OP_GATHER_ND, t, it, 2, rows, 2, col, 0, E / 64);
		dc_scatter(WNN_OP_SCATTER_ND, t, it, 2, rows, 2, col, 2, rows, 0, E / 64);
		dc_scatter(WNN_OP_SCATTER_ND, t, it, 2, (uint32_t[]){ 4, E / 4 }, 2,
			   (uint32_t[]){ 6, 1 }, 2, (uint32_t[]){ 6, E / 4 }, 0, 4);
	}
}

/* ==== speed (WEBNN_CPU_DATA_BENCH=1): GB/s of bytes read + written, against the reference
 * kernel and memcpy of the output's bytes */

static double dc_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct dc_bench_ctx {
	const struct graph_ir *g;
	void **bufs;
	uint64_t out_bytes;
	void *mc_src, *mc_dst;
};

enum dc_bench_what { DC_BENCH_REF, DC_BENCH_CPU, DC_BENCH_MEMCPY };

static void dc_bench_once(struct dc_bench_ctx *c, enum dc_bench_what what, int threads,
			  const struct cpu_step *s, const struct hk_step *rs)
{
	struct wnn_diag diag = { 0 };
	if (what == DC_BENCH_REF) {
		rs->run(rs, c->bufs, &diag);
	} else if (what == DC_BENCH_CPU) {
		struct cpu_exec x = { .threads = threads };
		s->run(s, c->bufs, &x, &diag);
	} else {
		uint64_t bytes = c->out_bytes;
		uint8_t *d = c->mc_dst;
		const uint8_t *sr = c->mc_src;
#pragma omp parallel num_threads(threads) if (threads > 1)
		{
			uint64_t id = (uint64_t)omp_get_thread_num(), all = (uint64_t)omp_get_num_threads();
			uint64_t lo = bytes * id / all, hi = bytes * (id + 1) / all;
			memcpy(d + lo, sr + lo, hi - lo);
		}
	}
}

/* best time of one run, in seconds */
static double dc_bench_time(struct dc_bench_ctx *c, enum dc_bench_what what, int threads,
			    const struct cpu_step *s, const struct hk_step *rs)
{
	double best = 1e30, start = dc_now();
	int n = 0;
	while (n < 5 || (dc_now() - start < 0.3 && n < 2000)) {
		double t0 = dc_now();
		dc_bench_once(c, what, threads, s, rs);
		double t = dc_now() - t0;
		best = t < best ? t : best;
		n++;
	}
	return best;
}

static void dc_bench(const struct graph_ir *g, const char *label)
{
	struct dc_bench_ctx c = { .g = g };
	struct wnn_diag diag = { 0 };
	c.bufs = calloc(g->n_values, sizeof(*c.bufs));
	struct wnn_desc *descs = calloc(g->n_values, sizeof(*descs));
	uint64_t bytes = 0;
	for (uint32_t v = 0; v < g->n_values; v++)
		descs[v] = g->values[v].desc;
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		c.bufs[g->inputs[i]] = malloc(tg_bytes(d) + 8);
		tg_random(c.bufs[g->inputs[i]], d->type, count, 7 + i, 0, 3);
		bytes += tg_bytes(d);
	}
	for (size_t i = 0; i < g->n_outputs; i++) {
		size_t ob = tg_bytes(&g->values[g->outputs[i]].desc);
		c.bufs[g->outputs[i]] = calloc(1, ob + 8);
		c.out_bytes += ob;
	}
	bytes += c.out_bytes;
	if (wnn_ops[g->nodes[0].op].family == WNN_FAMILY_GATHER)
		bytes = 2 * c.out_bytes; /* the rows read, not the table */
	c.mc_src = calloc(1, c.out_bytes);
	c.mc_dst = calloc(1, c.out_bytes);
	const struct graph_node *n = &g->nodes[0];
	int threads = omp_get_num_procs();
	struct cpu_build b = { .g = g, .threads = threads };
	struct cpu_step s = { .n = n, .g = g };
	enum webnn_status st = wnn_ops[n->op].family == WNN_FAMILY_DATA
				       ? cpu_data_prepare(&b, &s, &diag)
				       : cpu_gather_prepare(&b, &s, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK && s.run, "%s: %s", label, diag.message);
	struct hk_step rs = { .op = n->op, .a = &n->attrs, .descs = descs };
	st = wnn_ops[n->op].family == WNN_FAMILY_DATA ? hk_data_prepare(n, &rs, &diag)
						      : hk_gather_prepare(n, &rs, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: %s", label, diag.message);
	/* alternated, best of both rounds: the machine is shared */
	double t_ref = 1e30, t_c1 = 1e30;
	for (int round = 0; round < 2; round++) {
		double t = dc_bench_time(&c, DC_BENCH_REF, 1, &s, &rs);
		t_ref = t < t_ref ? t : t_ref;
		t = dc_bench_time(&c, DC_BENCH_CPU, 1, &s, &rs);
		t_c1 = t < t_c1 ? t : t_c1;
	}
	double t_cn = dc_bench_time(&c, DC_BENCH_CPU, threads, &s, &rs);
	double t_m1 = dc_bench_time(&c, DC_BENCH_MEMCPY, 1, &s, &rs);
	double t_mn = dc_bench_time(&c, DC_BENCH_MEMCPY, threads, &s, &rs);
	double gb = (double)bytes / 1e9, mgb = 2.0 * (double)c.out_bytes / 1e9;
	fprintf(stderr,
		"%-44s %7.2f MB  ref %6.2f GB/s  C 1t %6.2f  C %dt %6.2f GB/s (%7.1f us)  "
		"memcpy 1t %6.2f  %dt %6.2f GB/s (%7.1f us)\n",
		label, (double)bytes / 1e6, gb / t_ref, gb / t_c1, threads, gb / t_cn, t_cn * 1e6,
		mgb / t_m1, threads, mgb / t_mn, t_mn * 1e6);
	if (s.destroy)
		s.destroy(s.priv);
	for (size_t i = 0; i < g->n_inputs; i++)
		free(c.bufs[g->inputs[i]]);
	for (size_t i = 0; i < g->n_outputs; i++)
		free(c.bufs[g->outputs[i]]);
	free(c.bufs);
	free(descs);
	free(c.mc_src);
	free(c.mc_dst);
}

/* oneDNN's concat primitive on the same two NHWC tensors, for comparison */
static void dc_bench_dnnl_concat(void)
{
	dnnl_engine_t eng;
	dnnl_stream_t strm;
	ASSERT(dnnl_engine_create(&eng, dnnl_cpu, 0) == dnnl_success);
	ASSERT(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags) == dnnl_success);
	struct wnn_desc in_d = { .type = WNN_F32, .rank = 4, .dims = { 1, 56, 56, 64 } };
	struct wnn_desc out_d = { .type = WNN_F32, .rank = 4, .dims = { 1, 56, 56, 128 } };
	dnnl_memory_desc_t src[2], dst;
	ASSERT(cpu_dnnl_md_plain(&src[0], &in_d) == dnnl_success);
	src[1] = src[0];
	ASSERT(cpu_dnnl_md_plain(&dst, &out_d) == dnnl_success);
	dnnl_primitive_desc_t pd;
	ASSERT(dnnl_concat_primitive_desc_create(&pd, &dst, 2, 3, src, NULL, eng) == dnnl_success);
	dnnl_primitive_t prim;
	ASSERT(dnnl_primitive_create(&prim, pd) == dnnl_success);
	const char *impl = "";
	dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
	size_t in_b = 56 * 56 * 64 * 4, out_b = 2 * in_b;
	void *a = calloc(1, in_b), *b = calloc(1, in_b), *o = calloc(1, out_b);
	dnnl_memory_t ma, mb, mo;
	dnnl_memory_create(&ma, &src[0], eng, a);
	dnnl_memory_create(&mb, &src[1], eng, b);
	dnnl_memory_create(&mo, &dst, eng, o);
	dnnl_exec_arg_t args[3] = { { DNNL_ARG_MULTIPLE_SRC, ma },
				    { DNNL_ARG_MULTIPLE_SRC + 1, mb },
				    { DNNL_ARG_DST, mo } };
	double best = 1e30, start = dc_now();
	for (int n = 0; n < 5 || (dc_now() - start < 0.3 && n < 2000); n++) {
		double t0 = dc_now();
		dnnl_primitive_execute(prim, strm, 3, args);
		dnnl_stream_wait(strm);
		double t = dc_now() - t0;
		best = t < best ? t : best;
	}
	fprintf(stderr, "%-44s %7.2f MB  oneDNN (%s, its own threads) %6.2f GB/s (%7.1f us)\n",
		"concat 2x 1x56x56x64 f32 axis 3", (double)(2 * out_b) / 1e6, impl,
		(double)(2 * out_b) / 1e9 / best, best * 1e6);
	dnnl_memory_destroy(ma);
	dnnl_memory_destroy(mb);
	dnnl_memory_destroy(mo);
	dnnl_primitive_destroy(prim);
	dnnl_primitive_desc_destroy(pd);
	dnnl_stream_destroy(strm);
	dnnl_engine_destroy(eng);
	free(a);
	free(b);
	free(o);
}

#define DC_BENCH1(t, rank, dims, kind, msg, label)                                             \
	do {                                                                                   \
		struct tg_graph tg_;                                                           \
		struct wnn_diag d_ = { 0 };                                                    \
		tg_init(&tg_);                                                                 \
		(msg).input = tg_input(&tg_, (t), (rank), (dims));                             \
		(msg).output = tg_next(&tg_);                                                  \
		Webnn__Ipc__Operation o_ = WEBNN__IPC__OPERATION__INIT;                        \
		tg_set_op(&o_, (kind), &(msg));                                                \
		ASSERT_MSG(tg_op(&tg_, &o_, &d_) == WEBNN_STATUS_OK, "%s: %s", (label),        \
			   d_.message);                                                        \
		const struct graph_ir *g_ = tg_finish(&tg_, &d_);                              \
		ASSERT_MSG(g_, "%s: %s", (label), d_.message);                                 \
		dc_bench(g_, (label));                                                         \
		tg_free(&tg_);                                                                 \
	} while (0)

static void dc_bench_transpose(enum wnn_dtype t, const uint32_t *dims, const uint32_t *perm,
			       const char *label)
{
	Webnn__Ipc__Transpose m = WEBNN__IPC__TRANSPOSE__INIT;
	m.n_permutation = 4;
	m.permutation = (uint32_t *)perm;
	m.has_has_permutation = 1;
	m.has_permutation = 1;
	DC_BENCH1(t, 4, dims, WNN_OP_TRANSPOSE, m, label);
}

TEST_TIMEOUT(cpu_data_bench, 600)
{
	if (!getenv("WEBNN_CPU_DATA_BENCH"))
		SKIP("set WEBNN_CPU_DATA_BENCH=1 to time the data kernels");
	static const uint32_t to_nhwc[4] = { 0, 2, 3, 1 }, to_nchw[4] = { 0, 3, 1, 2 };
	dc_bench_transpose(WNN_F32, (uint32_t[]){ 1, 3, 224, 224 }, to_nhwc,
			   "transpose 1x3x224x224 f32 NCHW->NHWC");
	dc_bench_transpose(WNN_F32, (uint32_t[]){ 1, 224, 224, 3 }, to_nchw,
			   "transpose 1x224x224x3 f32 NHWC->NCHW");
	dc_bench_transpose(WNN_F32, (uint32_t[]){ 1, 64, 56, 56 }, to_nhwc,
			   "transpose 1x64x56x56 f32 NCHW->NHWC");
	dc_bench_transpose(WNN_F32, (uint32_t[]){ 1, 56, 56, 64 }, to_nchw,
			   "transpose 1x56x56x64 f32 NHWC->NCHW");
	dc_bench_transpose(WNN_F32, (uint32_t[]){ 1, 512, 7, 7 }, to_nhwc,
			   "transpose 1x512x7x7 f32 NCHW->NHWC");
	dc_bench_transpose(WNN_F16, (uint32_t[]){ 1, 64, 56, 56 }, to_nhwc,
			   "transpose 1x64x56x56 f16 NCHW->NHWC");
	dc_bench_transpose(WNN_U8, (uint32_t[]){ 1, 3, 224, 224 }, to_nhwc,
			   "transpose 1x3x224x224 u8 NCHW->NHWC");
	{
		struct tg_graph tg;
		struct wnn_diag d = { 0 };
		tg_init(&tg);
		uint32_t ins[2] = { tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 1, 56, 56, 64 }),
				    tg_input(&tg, WNN_F32, 4, (uint32_t[]){ 1, 56, 56, 64 }) };
		Webnn__Ipc__Concat m = WEBNN__IPC__CONCAT__INIT;
		m.n_inputs = 2;
		m.inputs = ins;
		m.axis = 3;
		m.output = tg_next(&tg);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, WNN_OP_CONCAT, &m);
		ASSERT(tg_op(&tg, &o, &d) == WEBNN_STATUS_OK);
		dc_bench(tg_finish(&tg, &d), "concat 2x 1x56x56x64 f32 axis 3");
		tg_free(&tg);
		dc_bench_dnnl_concat();
	}
	{
		Webnn__Ipc__Slice m = WEBNN__IPC__SLICE__INIT;
		uint32_t starts[4] = { 0, 0, 0, 16 }, sizes[4] = { 1, 56, 56, 32 };
		m.n_starts = m.n_sizes = 4;
		m.starts = starts;
		m.sizes = sizes;
		DC_BENCH1(WNN_F32, 4, ((uint32_t[]){ 1, 56, 56, 64 }), WNN_OP_SLICE, m,
			  "slice 1x56x56x64 -> channels 16..47 f32");
		uint32_t starts2[4] = { 0, 0, 1, 1 }, sizes2[4] = { 1, 64, 56, 56 },
			 strides2[4] = { 1, 1, 2, 2 };
		m.starts = starts2;
		m.sizes = sizes2;
		m.n_strides = 4;
		m.strides = strides2;
		DC_BENCH1(WNN_F32, 4, ((uint32_t[]){ 1, 64, 113, 113 }), WNN_OP_SLICE, m,
			  "slice 1x64x113x113 step 2 f32");
	}
	for (int mode = 0; mode < 3; mode++) {
		static const char *names[3] = { "pad 1x56x56x64 f32 H,W +1 constant",
						"pad 1x56x56x64 f32 H,W +1 edge",
						"pad 1x56x56x64 f32 H,W +1 reflection" };
		Webnn__Ipc__Pad m = WEBNN__IPC__PAD__INIT;
		uint32_t begin[4] = { 0, 1, 1, 0 }, end[4] = { 0, 1, 1, 0 };
		m.n_beginning_padding = m.n_ending_padding = 4;
		m.beginning_padding = begin;
		m.ending_padding = end;
		m.has_mode = 1;
		m.mode = (Webnn__Ipc__PaddingMode)mode;
		DC_BENCH1(WNN_F32, 4, ((uint32_t[]){ 1, 56, 56, 64 }), WNN_OP_PAD, m, names[mode]);
	}
	{
		Webnn__Ipc__Pad m = WEBNN__IPC__PAD__INIT;
		uint32_t begin[4] = { 0, 0, 1, 1 }, end[4] = { 0, 0, 1, 1 };
		m.n_beginning_padding = m.n_ending_padding = 4;
		m.beginning_padding = begin;
		m.ending_padding = end;
		DC_BENCH1(WNN_F32, 4, ((uint32_t[]){ 1, 64, 56, 56 }), WNN_OP_PAD, m,
			  "pad 1x64x56x56 f32 H,W +1 constant");
	}
	{
		Webnn__Ipc__Reshape m = WEBNN__IPC__RESHAPE__INIT;
		uint32_t shape[2] = { 1, 64 * 56 * 56 };
		m.n_new_shape = 2;
		m.new_shape = shape;
		DC_BENCH1(WNN_F32, 4, ((uint32_t[]){ 1, 64, 56, 56 }), WNN_OP_RESHAPE, m,
			  "reshape 1x64x56x56 f32");
	}
	{
		Webnn__Ipc__Expand m = WEBNN__IPC__EXPAND__INIT;
		uint32_t shape[4] = { 1, 64, 56, 56 };
		m.n_new_shape = 4;
		m.new_shape = shape;
		DC_BENCH1(WNN_F32, 4, ((uint32_t[]){ 1, 64, 1, 1 }), WNN_OP_EXPAND, m,
			  "expand 1x64x1x1 -> 1x64x56x56 f32");
	}
	{
		struct tg_graph tg;
		struct wnn_diag d = { 0 };
		tg_init(&tg);
		Webnn__Ipc__Gather m = WEBNN__IPC__GATHER__INIT;
		m.input = tg_input(&tg, WNN_F32, 2, (uint32_t[]){ 30000, 256 });
		m.indices = tg_input(&tg, WNN_I32, 1, (uint32_t[]){ 2048 });
		m.output = tg_next(&tg);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		tg_set_op(&o, WNN_OP_GATHER, &m);
		ASSERT(tg_op(&tg, &o, &d) == WEBNN_STATUS_OK);
		dc_bench(tg_finish(&tg, &d), "gather 2048 rows of 30000x256 f32");
		tg_free(&tg);
	}
}
