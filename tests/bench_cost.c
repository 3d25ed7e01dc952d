/* make bench: calibrates the time estimate (daemon/graph/cost.c): measured ns per unit of work, per operator family, on the cpu and reference kernels, and estimate vs real time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/backend/cpu/cpu.h"
#include "tests/graphs.h"
#include "tests/test.h"

/* One single-operation graph of a family, sized to run for milliseconds on the fast kernels. */
struct bc_case {
	const char *label;
	struct tg_graph t;
	Webnn__Ipc__Operation op;
	union {
		Webnn__Ipc__ElementwiseBinary bin;
		Webnn__Ipc__ElementwiseUnary un;
		Webnn__Ipc__Reduce red;
		Webnn__Ipc__Softmax sm;
		Webnn__Ipc__Conv2d cv;
		Webnn__Ipc__Pool2d pl;
		Webnn__Ipc__Matmul mm;
		Webnn__Ipc__Transpose tr;
		Webnn__Ipc__Gather ga;
		Webnn__Ipc__Cast ca;
		Webnn__Ipc__Lstm ls;
		Webnn__Ipc__Resample2d rs;
		Webnn__Ipc__LayerNormalization ln;
		Webnn__Ipc__Gemm gm;
	} m;
	uint32_t u32[8];
	float f32[4];
	uint32_t outs[2];
};

#define BC_SHAPE(...) (uint32_t)(sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)), \
		      ((const uint32_t[]){ __VA_ARGS__ })

enum { BC_N_CASES = 17 };

/* Builds case k (k < BC_N_CASES) into c; its attrs live in c. */
static void bc_build(struct bc_case *c, int k)
{
	memset(c, 0, sizeof(*c));
	tg_init(&c->t);
	struct tg_graph *t = &c->t;
	c->op = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	switch (k) {
	case 0: /* elementwise binary */
		c->label = "add [4M]";
		c->m.bin = (Webnn__Ipc__ElementwiseBinary)WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
		c->m.bin.a = tg_input(t, WNN_F32, BC_SHAPE(4u << 20));
		c->m.bin.b = tg_input(t, WNN_F32, BC_SHAPE(4u << 20));
		c->m.bin.output = tg_next(t);
		tg_set_op(&c->op, WNN_OP_ADD, &c->m.bin);
		break;
	case 1: /* elementwise unary, transcendental */
		c->label = "exp [4M]";
		c->m.un = (Webnn__Ipc__ElementwiseUnary)WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
		c->m.un.input = tg_input(t, WNN_F32, BC_SHAPE(4u << 20));
		c->m.un.output = tg_next(t);
		tg_set_op(&c->op, WNN_OP_EXP, &c->m.un);
		break;
	case 2: /* elementwise, broadcast */
		c->label = "mul [2048,2048]x[2048]";
		c->m.bin = (Webnn__Ipc__ElementwiseBinary)WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
		c->m.bin.a = tg_input(t, WNN_F32, BC_SHAPE(2048, 2048));
		c->m.bin.b = tg_input(t, WNN_F32, BC_SHAPE(2048));
		c->m.bin.output = tg_next(t);
		tg_set_op(&c->op, WNN_OP_MUL, &c->m.bin);
		break;
	case 3:
		c->label = "reduceSum [2048,2048] axis 1";
		c->m.red = (Webnn__Ipc__Reduce)WEBNN__IPC__REDUCE__INIT;
		c->m.red.input = tg_input(t, WNN_F32, BC_SHAPE(2048, 2048));
		c->m.red.output = tg_next(t);
		c->u32[0] = 1;
		c->m.red.has_has_axes = c->m.red.has_axes = 1;
		c->m.red.n_axes = 1;
		c->m.red.axes = c->u32;
		tg_set_op(&c->op, WNN_OP_REDUCE_SUM, &c->m.red);
		break;
	case 4:
		c->label = "softmax [2048,2048]";
		c->m.sm = (Webnn__Ipc__Softmax)WEBNN__IPC__SOFTMAX__INIT;
		c->m.sm.input = tg_input(t, WNN_F32, BC_SHAPE(2048, 2048));
		c->m.sm.output = tg_next(t);
		c->m.sm.axis = 1;
		tg_set_op(&c->op, WNN_OP_SOFTMAX, &c->m.sm);
		break;
	case 5:
		c->label = "conv2d 64->64 3x3 @56";
		c->m.cv = (Webnn__Ipc__Conv2d)WEBNN__IPC__CONV2D__INIT;
		c->m.cv.input = tg_input(t, WNN_F32, BC_SHAPE(1, 64, 56, 56));
		c->m.cv.filter = tg_input(t, WNN_F32, BC_SHAPE(64, 64, 3, 3));
		c->m.cv.output = tg_next(t);
		c->u32[0] = c->u32[1] = c->u32[2] = c->u32[3] = 1;
		c->m.cv.padding = c->u32;
		c->m.cv.n_padding = 4;
		tg_set_op(&c->op, WNN_OP_CONV2D, &c->m.cv);
		break;
	case 6:
		c->label = "maxPool2d 3x3 [1,64,112,112]";
		c->m.pl = (Webnn__Ipc__Pool2d)WEBNN__IPC__POOL2D__INIT;
		c->m.pl.input = tg_input(t, WNN_F32, BC_SHAPE(1, 64, 112, 112));
		c->m.pl.output = tg_next(t);
		c->u32[0] = c->u32[1] = 3;
		c->m.pl.window_dimensions = c->u32;
		c->m.pl.n_window_dimensions = 2;
		tg_set_op(&c->op, WNN_OP_MAX_POOL2D, &c->m.pl);
		break;
	case 7:
		c->label = "averagePool2d 8x8 [1,32,128,128]";
		c->m.pl = (Webnn__Ipc__Pool2d)WEBNN__IPC__POOL2D__INIT;
		c->m.pl.input = tg_input(t, WNN_F32, BC_SHAPE(1, 32, 128, 128));
		c->m.pl.output = tg_next(t);
		c->u32[0] = c->u32[1] = 8;
		c->m.pl.window_dimensions = c->u32;
		c->m.pl.n_window_dimensions = 2;
		tg_set_op(&c->op, WNN_OP_AVERAGE_POOL2D, &c->m.pl);
		break;
	case 8:
		c->label = "matmul 256^3";
		c->m.mm = (Webnn__Ipc__Matmul)WEBNN__IPC__MATMUL__INIT;
		c->m.mm.a = tg_input(t, WNN_F32, BC_SHAPE(256, 256));
		c->m.mm.b = tg_input(t, WNN_F32, BC_SHAPE(256, 256));
		c->m.mm.output = tg_next(t);
		tg_set_op(&c->op, WNN_OP_MATMUL, &c->m.mm);
		break;
	case 9:
		c->label = "transpose [2048,2048]";
		c->m.tr = (Webnn__Ipc__Transpose)WEBNN__IPC__TRANSPOSE__INIT;
		c->m.tr.input = tg_input(t, WNN_F32, BC_SHAPE(2048, 2048));
		c->m.tr.output = tg_next(t);
		tg_set_op(&c->op, WNN_OP_TRANSPOSE, &c->m.tr);
		break;
	case 10:
		c->label = "gather [1M] of [4096,64]";
		c->m.ga = (Webnn__Ipc__Gather)WEBNN__IPC__GATHER__INIT;
		c->m.ga.input = tg_input(t, WNN_F32, BC_SHAPE(4096, 64));
		c->m.ga.indices = tg_input(t, WNN_I32, BC_SHAPE(16384));
		c->m.ga.output = tg_next(t);
		tg_set_op(&c->op, WNN_OP_GATHER, &c->m.ga);
		break;
	case 11:
		c->label = "cast f32->i32 [4M]";
		c->m.ca = (Webnn__Ipc__Cast)WEBNN__IPC__CAST__INIT;
		c->m.ca.input = tg_input(t, WNN_F32, BC_SHAPE(4u << 20));
		c->m.ca.output = tg_next(t);
		c->m.ca.data_type = WEBNN__IPC__DATA_TYPE__INT32;
		tg_set_op(&c->op, WNN_OP_CAST, &c->m.ca);
		break;
	case 12:
		c->label = "lstm 8 steps, 8x128 -> 128";
		c->m.ls = (Webnn__Ipc__Lstm)WEBNN__IPC__LSTM__INIT;
		c->m.ls.input = tg_input(t, WNN_F32, BC_SHAPE(8, 8, 128));
		c->m.ls.weight = tg_input(t, WNN_F32, BC_SHAPE(1, 512, 128));
		c->m.ls.recurrent_weight = tg_input(t, WNN_F32, BC_SHAPE(1, 512, 128));
		c->outs[0] = tg_next(t);
		c->outs[1] = c->outs[0] + 1;
		c->m.ls.outputs = c->outs;
		c->m.ls.n_outputs = 2;
		c->m.ls.steps = 8;
		c->m.ls.hidden_size = 128;
		tg_set_op(&c->op, WNN_OP_LSTM, &c->m.ls);
		break;
	case 14:
		c->label = "layerNormalization [2048,2048] axis 1";
		c->m.ln = (Webnn__Ipc__LayerNormalization)WEBNN__IPC__LAYER_NORMALIZATION__INIT;
		c->m.ln.input = tg_input(t, WNN_F32, BC_SHAPE(2048, 2048));
		c->m.ln.output = tg_next(t);
		c->u32[0] = 1;
		c->m.ln.has_has_axes = c->m.ln.has_axes = 1;
		c->m.ln.n_axes = 1;
		c->m.ln.axes = c->u32;
		tg_set_op(&c->op, WNN_OP_LAYER_NORMALIZATION, &c->m.ln);
		break;
	case 15: /* the products the chunk target and the admission limits see */
		c->label = "matmul 1536^3";
		c->m.mm = (Webnn__Ipc__Matmul)WEBNN__IPC__MATMUL__INIT;
		c->m.mm.a = tg_input(t, WNN_F32, BC_SHAPE(1536, 1536));
		c->m.mm.b = tg_input(t, WNN_F32, BC_SHAPE(1536, 1536));
		c->m.mm.output = tg_next(t);
		tg_set_op(&c->op, WNN_OP_MATMUL, &c->m.mm);
		break;
	case 16: /* a decoding step's layer: one row, memory-bound */
		c->label = "gemm [1,4096]x[4096,4096]";
		c->m.gm = (Webnn__Ipc__Gemm)WEBNN__IPC__GEMM__INIT;
		c->m.gm.a = tg_input(t, WNN_F32, BC_SHAPE(1, 4096));
		c->m.gm.b = tg_input(t, WNN_F32, BC_SHAPE(4096, 4096));
		c->m.gm.output = tg_next(t);
		tg_set_op(&c->op, WNN_OP_GEMM, &c->m.gm);
		break;
	default:
		c->label = "resample2d linear x2 [1,32,128,128]";
		c->m.rs = (Webnn__Ipc__Resample2d)WEBNN__IPC__RESAMPLE2D__INIT;
		c->m.rs.input = tg_input(t, WNN_F32, BC_SHAPE(1, 32, 128, 128));
		c->m.rs.output = tg_next(t);
		c->m.rs.mode = WEBNN__IPC__INTERPOLATION_MODE__LINEAR;
		c->f32[0] = c->f32[1] = 2;
		c->m.rs.scales = c->f32;
		c->m.rs.n_scales = 2;
		tg_set_op(&c->op, WNN_OP_RESAMPLE2D, &c->m.rs);
		break;
	}
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(tg_op(t, &c->op, &diag) == WEBNN_STATUS_OK, "%s: %s", c->label, diag.message);
}

/* Median seconds of one execute of g on impl (compiled once; runs until about `budget` seconds
 * or 15 runs, whichever first, at least 1 after a warm-up); the fastest in bc_best_s. */
static double bc_time_cpu(const struct backend_impl *impl, struct backend *be,
			  struct graph_ir *g, double budget, double *cpu_s);
static double bc_best_s; /* the fastest execute of the last bc_time_cpu */
static double bc_time(const struct backend_impl *impl, struct backend *be, struct graph_ir *g,
		      double budget)
{
	return bc_time_cpu(impl, be, g, budget, NULL);
}

/* bc_time, with the median CPU time of the process per execute in *cpu_s when not NULL (what a
 * loaded machine blurs less). */
static double bc_time_cpu(const struct backend_impl *impl, struct backend *be,
			  struct graph_ir *g, double budget, double *cpu_s)
{
	struct wnn_diag diag = { 0 };
	struct backend_context *ctx = NULL;
	struct backend_context_options opts = { 0 };
	ASSERT_MSG(impl->context_create(be, &opts, &ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	struct backend_tensor *ins[TG_MAX_OPERANDS] = { 0 }, *outs[TG_MAX_OPERANDS] = { 0 };
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		ASSERT(impl->tensor_create(ctx, d, &ins[i], &diag) == WEBNN_STATUS_OK);
		uint64_t bytes = 0, count = 0;
		wnn_desc_bytes(d, &bytes);
		wnn_desc_count(d, &count);
		void *host = malloc(bytes);
		ASSERT(host);
		if (d->type == WNN_I32) /* gather indices: in range of every case's axis */
			for (uint64_t k = 0; k < count; k++)
				((int32_t *)host)[k] = (int32_t)(k * 7 % 4096);
		else
			tg_random(host, d->type, count, 42 + i, -1, 1);
		ASSERT(impl->tensor_write(ins[i], host, bytes, &diag) == WEBNN_STATUS_OK);
		free(host);
	}
	for (size_t i = 0; i < g->n_outputs; i++)
		ASSERT(impl->tensor_create(ctx, &g->values[g->outputs[i]].desc, &outs[i], &diag) ==
		       WEBNN_STATUS_OK);
	struct graph_ir *copy = graph_clone(g);
	ASSERT(copy);
	ASSERT_MSG(tg_optimize(copy, impl, ctx, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	struct backend_plan *plan = NULL;
	ASSERT_MSG(impl->compile(ctx, copy, &plan, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	double v[15], c[15];
	int n = 0;
	ASSERT(impl->execute(plan, ins, outs, &diag) == WEBNN_STATUS_OK); /* warm-up */
	for (double start = test_now(); n < 15 && (n == 0 || test_now() - start < budget); n++) {
		double t0 = test_now(), c0 = (double)clock() / CLOCKS_PER_SEC;
		ASSERT_MSG(impl->execute(plan, ins, outs, &diag) == WEBNN_STATUS_OK, "%s",
			   diag.message);
		v[n] = test_now() - t0;
		c[n] = (double)clock() / CLOCKS_PER_SEC - c0;
	}
	if (cpu_s)
		*cpu_s = test_median(c, n);
	bc_best_s = v[0];
	for (int i = 1; i < n; i++)
		bc_best_s = v[i] < bc_best_s ? v[i] : bc_best_s;
	impl->plan_destroy(plan);
	graph_destroy(copy);
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		if (ins[i])
			impl->tensor_destroy(ins[i]);
		if (outs[i])
			impl->tensor_destroy(outs[i]);
	}
	impl->context_destroy(ctx);
	return test_median(v, n);
}

/* Each case on the cpu backend (fast kernels) and on the reference kernels: real time (median
 * and fastest of up to 15 executes), the estimate from the calibrated table, its ratio to the
 * fastest (this machine's speed with the load taken out: a shared machine's medians move 10x
 * from one minute to the next) and to the median, and the measured picoseconds per unit of
 * work (from the fastest) with the other unit's share (the table's) taken out. Estimates off
 * the fastest by more than 10x either way are counted and listed; a loaded machine blurs the
 * times, so nothing here fails on a ratio. */
TEST_TIMEOUT(bench_cost, 900)
{
	struct wnn_diag diag = { 0 };
	const struct backend_impl *impls[2] = { &backend_cpu, &backend_reference };
	const struct graph_cost_model *models[2] = { &graph_cost_fast, &graph_cost_reference };
	struct backend *bes[2] = { NULL, NULL };
	for (int b = 0; b < 2; b++)
		ASSERT_MSG(impls[b]->init(NULL, &bes[b], &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	printf("bench_cost: estimate vs real time per operator family (load %.2f)\n",
	       test_load_average());
	printf("  %-38s %-9s %9s %9s %9s %8s %8s %8s %8s\n", "case", "kernels", "best ms",
	       "median ms", "est ms", "est/best", "est/med", "ps/elem", "ps/op");
	int off = 0, total = 0;
	for (int k = 0; k < BC_N_CASES; k++) {
		struct bc_case *c = malloc(sizeof(*c));
		ASSERT(c);
		bc_build(c, k);
		const struct graph_ir *g = tg_finish(&c->t, &diag);
		ASSERT_MSG(g, "%s: %s", c->label, diag.message);
		struct graph_work w;
		graph_node_work(g, &g->nodes[0], &w);
		enum wnn_family fam = wnn_ops[g->nodes[0].op].family;
		for (int b = 0; b < 2; b++) {
			struct graph_cost est;
			graph_estimate_cost(models[b], g, &est);
			/* the reference kernels are slow: they get a shorter look */
			double median = bc_time(impls[b], bes[b], c->t.ir, b ? 2.0 : 1.0);
			double best = bc_best_s;
			double ratio = est.ns / 1e9 / best;
			const struct graph_unit_cost *u = &models[b]->ps[fam];
			/* the measured cost of the dominant unit, the other one at the table's */
			double ps_elem = NAN, ps_op = NAN;
			if (w.ops > 4 * w.elements)
				ps_op = (best * 1e12 - (double)w.elements * u->elem_ps) / (double)w.ops;
			else
				ps_elem = (best * 1e12 - (double)w.ops * u->op_ps) / (double)w.elements;
			bool bad = ratio > 10 || ratio < 0.1;
			off += bad;
			total++;
			printf("  %-38s %-9s %9.3f %9.3f %9.3f %7.2f%s %8.2f %8.0f %8.1f\n", c->label,
			       impls[b]->name, best * 1e3, median * 1e3, est.ns / 1e6, ratio,
			       bad ? "!" : " ", est.ns / 1e9 / median, ps_elem, ps_op);
		}
		tg_free(&c->t);
		free(c);
	}
	printf("  %d of %d estimates are more than 10x off the fastest run (marked !)\n", off,
	       total);
	for (int b = 0; b < 2; b++)
		impls[b]->shutdown(bes[b]);
}

/* A matmul [m, k] x [k, n] (b constant when const_b) as the only node of t. */
static void bc_matmul(struct tg_graph *t, uint32_t m, uint32_t k, uint32_t n, bool const_b)
{
	struct wnn_diag diag = { 0 };
	tg_init(t);
	Webnn__Ipc__Matmul mm = WEBNN__IPC__MATMUL__INIT;
	mm.a = tg_input(t, WNN_F32, BC_SHAPE(m, k));
	if (const_b) {
		float *b = malloc((size_t)k * n * sizeof(float));
		ASSERT(b);
		tg_random(b, WNN_F32, (uint64_t)k * n, 7, -1, 1);
		mm.b = tg_constant(t, WNN_F32, BC_SHAPE(k, n), b);
		free(b);
	} else {
		mm.b = tg_input(t, WNN_F32, BC_SHAPE(k, n));
	}
	mm.output = tg_next(t);
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_MATMUL, &mm);
	ASSERT_MSG(tg_op(t, &op, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ASSERT_MSG(tg_finish(t, &diag), "%s", diag.message);
}

/* A conv2d of [1, hw, hw, c] NHWC by a constant k x k OHWI filter to oc channels, padded to
 * keep hw, as the only node of t. */
static void bc_conv(struct tg_graph *t, uint32_t hw, uint32_t c, uint32_t oc, uint32_t k)
{
	struct wnn_diag diag = { 0 };
	tg_init(t);
	Webnn__Ipc__Conv2d cv = WEBNN__IPC__CONV2D__INIT;
	cv.input = tg_input(t, WNN_F32, BC_SHAPE(1, hw, hw, c));
	float *w = malloc((size_t)oc * k * k * c * sizeof(float));
	ASSERT(w);
	tg_random(w, WNN_F32, (uint64_t)oc * k * k * c, 7, -1, 1);
	cv.filter = tg_constant(t, WNN_F32, BC_SHAPE(oc, k, k, c), w);
	free(w);
	cv.output = tg_next(t);
	uint32_t pad[4] = { k / 2, k / 2, k / 2, k / 2 };
	cv.padding = pad;
	cv.n_padding = 4;
	cv.has_input_layout = true;
	cv.input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	cv.has_filter_layout = true;
	cv.filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI;
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_CONV2D, &cv);
	ASSERT_MSG(tg_op(t, &op, &diag) == WEBNN_STATUS_OK, "%s", diag.message);
	ASSERT_MSG(tg_finish(t, &diag), "%s", diag.message);
}

/* The cost of running long cpu steps in chunks (cpu.h CPU_CHUNK_NS): large matmuls and
 * convolutions on a cpu backend that splits them (with WEBNN_BENCH_CHUNK_NS, at that target)
 * and on one that does not (WEBNN_CPU_CHUNK_NS past their estimate), built and timed in turns:
 * medians of wall and process CPU time (which a loaded machine blurs less) and the
 * chunked/whole ratios (goal <= 1.03). 2048^3 is below the size that is split.
 * WEBNN_BENCH_CHUNK_CASES=conv, matmul (or the start of a label, "matmul 3072") runs only those
 * cases, WEBNN_BENCH_CHUNK_ROUNDS=N N rounds. Run it with GOMP_SPINCOUNT=1000, as webnnd starts
 * its workers (libgomp reads it before main): with libgomp's default a thread spins for
 * milliseconds after each chunk, which a loaded machine counts as CPU (matmuls 1.07-1.11x the
 * CPU of the whole at load 3.6; 0.97-1.03x with it, as the workers run). */
TEST_TIMEOUT(bench_cpu_chunks, 900)
{
	/* m, k, n: a matmul; conv: a conv2d of [1, m, m, k] by a conv x conv filter to n */
	static const struct {
		uint32_t m, k, n;
		bool const_b;
		uint32_t conv;
	} cases[] = { { 2048, 2048, 2048, false, 0 }, { 3072, 3072, 3072, false, 0 },
		      { 3072, 3072, 3072, true, 0 },  { 4096, 4096, 4096, false, 0 },
		      { 448, 64, 64, false, 7 },      { 256, 128, 128, false, 5 } };
	struct wnn_diag diag = { 0 };
	/* WEBNN_BENCH_CHUNK_ROUNDS: more rounds (up to 15) for a loaded machine */
	const char *rs = getenv("WEBNN_BENCH_CHUNK_ROUNDS");
	int rounds = rs && atoi(rs) > 0 ? (atoi(rs) < 15 ? atoi(rs) : 15) : 3;
	printf("bench_cpu_chunks: long matmuls in chunks vs whole (load %.2f)%s\n",
	       test_load_average(), getenv("GOMP_SPINCOUNT") || getenv("OMP_WAIT_POLICY") ? ""
	       : "; GOMP_SPINCOUNT is not set: run with GOMP_SPINCOUNT=1000 as webnnd's workers");
	/* WEBNN_BENCH_CHUNK_CASES=conv, matmul or the start of a case's label: only those */
	const char *only = getenv("WEBNN_BENCH_CHUNK_CASES");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tg_graph t;
		char what[96];
		if (cases[i].conv)
			snprintf(what, sizeof what, "conv2d %ux%u %u->%u at %ux%u", cases[i].conv,
				 cases[i].conv, cases[i].k, cases[i].n, cases[i].m, cases[i].m);
		else
			snprintf(what, sizeof what, "matmul %ux%ux%u%s", cases[i].m, cases[i].k,
				 cases[i].n, cases[i].const_b ? " (constant B)" : "");
		if (only && strncmp(what, only, strlen(only)) != 0)
			continue;
		if (cases[i].conv)
			bc_conv(&t, cases[i].m, cases[i].k, cases[i].n, cases[i].conv);
		else
			bc_matmul(&t, cases[i].m, cases[i].k, cases[i].n, cases[i].const_b);
		double whole[15], chunked[15], whole_cpu[15], chunked_cpu[15];
		for (int r = 0; r < rounds; r++)
			for (int split = 0; split < 2; split++) {
				struct backend *be = NULL;
				if (split && getenv("WEBNN_BENCH_CHUNK_NS"))
					setenv("WEBNN_CPU_CHUNK_NS", getenv("WEBNN_BENCH_CHUNK_NS"), 1);
				else if (split)
					unsetenv("WEBNN_CPU_CHUNK_NS");
				else
					setenv("WEBNN_CPU_CHUNK_NS", "1000000000000000", 1);
				ASSERT_MSG(backend_cpu.init(NULL, &be, &diag) == WEBNN_STATUS_OK, "%s",
					   diag.message);
				unsetenv("WEBNN_CPU_CHUNK_NS");
				(split ? chunked : whole)[r] =
					bc_time_cpu(&backend_cpu, be, t.ir, 2.0,
						    split ? &chunked_cpu[r] : &whole_cpu[r]);
				backend_cpu.shutdown(be);
			}
		double cm = test_median(chunked, rounds), wm = test_median(whole, rounds);
		double cc = test_median(chunked_cpu, rounds), wc = test_median(whole_cpu, rounds);
		printf("  %s: whole %.1f ms (CPU %.1f ms), in chunks %.1f ms (CPU %.1f ms): "
		       "chunked/whole %.3f, CPU %.3f (goal <= 1.03)\n", what, wm * 1e3, wc * 1e3,
		       cm * 1e3, cc * 1e3, cm / wm, cc / wc);
		fflush(stdout);
		tg_free(&t);
	}
}
