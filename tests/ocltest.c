/* Shared helpers of the OpenCL backend tests: the backend, tolerances, comparisons, one-op graphs. */
#include "tests/ocltest.h"

#include <stdlib.h>

#include "daemon/backend/opencl/ocl.h"
#include "daemon/graph/import.h"


const struct backend_impl *ot_impl = &backend_opencl;

struct backend *ot_backend_cached(const char *cache_dir)
{
	if (ot_impl == &backend_cpu)
		return tg_cpu_team(0); /* the per-operator tests' sizes straddle the kernels' own
					  thresholds (CPU_PAR_MIN, CPU_EW_PAR_MIN) */
	if (ot_impl != &backend_opencl) {
		struct backend *be = NULL;
		struct wnn_diag diag = { 0 };
		ASSERT_MSG(ot_impl->init(NULL, &be, &diag) == WEBNN_STATUS_OK, "%s backend: %s",
			   ot_impl->name, diag.message);
		return be;
	}
	if (!test_have_opencl())
		SKIP("no OpenCL device");
	struct backend *be = NULL;
	struct wnn_diag diag = { 0 };
	struct backend_options opts = { .cache_dir = cache_dir };
	if (backend_opencl.init(cache_dir ? &opts : NULL, &be, &diag) != WEBNN_STATUS_OK)
		SKIP("opencl backend: %s", diag.message);
	return be;
}

struct backend *ot_backend(void)
{
	return ot_backend_cached(NULL);
}

struct backend *ot_cpu_backend_chunked(void)
{
	setenv("WEBNN_CPU_CHUNK_NS", "1", 1);
	ot_impl = &backend_cpu;
	struct backend *be = ot_backend();
	unsetenv("WEBNN_CPU_CHUNK_NS");
	return be;
}

struct graph_ir *ot_optimized_copy(struct backend_context *ctx,
				   const struct graph_ir *g)
{
	/* The copy must see every pass: clone before any optimisation. */
	ASSERT_MSG(!g->optimized, "ot_optimized_copy: the graph was already optimised");
	struct graph_ir *copy = graph_clone(g);
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(copy != NULL, "graph_clone: out of memory");
	ASSERT_MSG(tg_optimize(copy, &backend_opencl, ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	return copy;
}

/* Runs g on the reference and on ot_impl with the same inputs (input i seeded with
 * seed + i * seed_step, in its range) and compares every output: float ones within tol,
 * integer ones within int_atol. */
static void ot_compare(struct backend *be, const struct graph_ir *g, const struct range *r,
		       size_t n_r, double lo, double hi, struct tol tol, double int_atol, uint64_t seed,
		       uint64_t seed_step, const char *label)
{
	void *in[TG_MAX_OPERANDS] = { 0 }, *ref[TG_MAX_OPERANDS] = { 0 },
	     *out[TG_MAX_OPERANDS] = { 0 };
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		in[i] = malloc(tg_bytes(d) + 8);
		double l = lo, h = hi;
		if (i < n_r && (r[i].lo != 0 || r[i].hi != 0)) {
			l = r[i].lo;
			h = r[i].hi;
		}
		tg_random(in[i], d->type, count, seed + i * seed_step, l, h);
	}
	for (size_t i = 0; i < g->n_outputs; i++) {
		size_t bytes = tg_bytes(&g->values[g->outputs[i]].desc) + 8;
		ref[i] = calloc(1, bytes);
		out[i] = calloc(1, bytes);
	}
	struct wnn_diag diag = { 0 };
	enum webnn_status st = tg_run(&backend_reference, NULL, g, (const void *const *)in, ref,
				      &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: reference: %s", label, diag.message);
	wnn_diag_clear(&diag);
	st = tg_run(ot_impl, be, g, (const void *const *)in, out, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: %s: %s", label, ot_impl->name, diag.message);
	for (size_t i = 0; i < g->n_outputs; i++) {
		const struct wnn_desc *d = &g->values[g->outputs[i]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		char msg[256];
		bool fp = d->type == WNN_F32 || d->type == WNN_F16;
		struct tol t = fp ? tol : (struct tol){ 0, int_atol, 0 };
		ASSERT_MSG(tg_compare(out[i], ref[i], d->type, count, t.ulp, t.atol, t.rtol, msg,
				      sizeof msg),
			   "%s: output %zu (%s): %s", label, i, wnn_dtype_name(d->type), msg);
	}
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		free(in[i]);
		free(ref[i]);
		free(out[i]);
	}
}

const struct graph_ir *ot_finish(struct tg_graph *t, Webnn__Ipc__Operation *op,
				      const char *label)
{
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(tg_op(t, op, &diag) == WEBNN_STATUS_OK, "%s: %s", label, diag.message);
	const struct graph_ir *g = tg_finish(t, &diag);
	ASSERT_MSG(g, "%s: %s", label, diag.message);
	return g;
}

void ot_check(struct backend *be, const struct graph_ir *g, double lo, double hi, struct tol tol,
	      const char *label)
{
	ot_compare(be, g, NULL, 0, lo, hi, tol, 0, 1234, 77, label);
}

double ot_int_atol;
int ot_n_compared;

void ot_check_ranges(struct backend *be, const struct graph_ir *g, const struct range *r,
		     size_t n_r, double lo, double hi, struct tol tol, const char *label)
{
	ot_compare(be, g, r, n_r, lo, hi, tol, ot_int_atol, 4321, 91, label);
	ot_n_compared++;
}

void ot_check_counted(struct backend *be, const struct graph_ir *g, double lo, double hi,
		      struct tol tol, const char *label)
{
	ot_check_ranges(be, g, NULL, 0, lo, hi, tol, label);
}

double ot_type_lo(enum wnn_dtype t, double lo)
{
	bool is_unsigned = t == WNN_U8 || t == WNN_U32 || t == WNN_U64;
	return is_unsigned ? 0 : lo;
}

/* conv2d with constant filter (layout as the input's usual partner; ihwo for depthwise nhwc)
 * and optional constant bias; returns the output id. */
uint32_t ot_conv(struct tg_graph *tg, struct ot_conv *pc, uint32_t x, enum wnn_dtype t,
			bool nhwc, uint32_t c, uint32_t oc, uint32_t k, uint32_t groups,
			uint32_t stride, const uint32_t pad[4], bool bias, uint64_t seed)
{
	struct wnn_diag diag = { 0 };
	uint32_t icg = c / groups;
	bool dw = groups > 1 && groups == c && oc == c;
	uint32_t fd[4];
	if (!nhwc)
		memcpy(fd, (uint32_t[]){ oc, icg, k, k }, sizeof fd);
	else if (dw)
		memcpy(fd, (uint32_t[]){ 1, k, k, oc }, sizeof fd);
	else
		memcpy(fd, (uint32_t[]){ oc, k, k, icg }, sizeof fd);
	size_t fcount = (size_t)oc * icg * k * k;
	void *fdata = malloc(fcount * 4), *bdata = malloc(oc * 4 + 4);
	tg_random(fdata, t, fcount, seed, -0.5, 0.5);
	tg_random(bdata, t, oc, seed + 1, -0.5, 0.5);
	uint32_t f = tg_constant(tg, t, 4, fd, fdata);
	uint32_t b = bias ? tg_constant(tg, t, 1, (uint32_t[]){ oc }, bdata) : 0;
	free(fdata);
	free(bdata);
	Webnn__Ipc__Conv2d init = WEBNN__IPC__CONV2D__INIT;
	Webnn__Ipc__Operation oinit = WEBNN__IPC__OPERATION__INIT;
	pc->m = init;
	pc->o = oinit;
	memcpy(pc->pad, pad, sizeof pc->pad);
	pc->stride[0] = pc->stride[1] = stride;
	pc->dil[0] = pc->dil[1] = 1;
	pc->m.input = x;
	pc->m.filter = f;
	pc->m.has_bias = bias;
	pc->m.bias = b;
	pc->m.output = tg_next(tg);
	pc->m.n_padding = 4;
	pc->m.padding = pc->pad;
	pc->m.n_strides = 2;
	pc->m.strides = pc->stride;
	pc->m.n_dilations = 2;
	pc->m.dilations = pc->dil;
	pc->m.has_groups = 1;
	pc->m.groups = groups;
	pc->m.has_input_layout = pc->m.has_filter_layout = 1;
	pc->m.input_layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC : WEBNN__IPC__INPUT_LAYOUT__NCHW;
	pc->m.filter_layout = !nhwc ? WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW
			      : dw  ? WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO
				    : WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI;
	tg_set_op(&pc->o, WNN_OP_CONV2D, &pc->m);
	ASSERT_MSG(tg_op(tg, &pc->o, &diag) == WEBNN_STATUS_OK, "conv2d: %s", diag.message);
	return pc->m.output;
}

/* act 1 relu, 2 clamp(0, 6), 3 add(x, other): returns the output id. */
uint32_t ot_act(struct tg_graph *tg, struct ot_act *pa, int act, uint32_t x,
		       uint32_t other)
{
	struct wnn_diag diag = { 0 };
	Webnn__Ipc__Operation oinit = WEBNN__IPC__OPERATION__INIT;
	pa->o = oinit;
	if (act == 1) {
		Webnn__Ipc__ElementwiseUnary init = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
		pa->u = init;
		pa->u.input = x;
		pa->u.output = tg_next(tg);
		tg_set_op(&pa->o, WNN_OP_RELU, &pa->u);
	} else if (act == 2) {
		Webnn__Ipc__Clamp init = WEBNN__IPC__CLAMP__INIT;
		Webnn__Ipc__Number ninit = WEBNN__IPC__NUMBER__INIT;
		pa->c = init;
		pa->lo = pa->hi = ninit;
		pa->lo.value_case = pa->hi.value_case = WEBNN__IPC__NUMBER__VALUE_F;
		pa->lo.f = 0;
		pa->hi.f = 0.75; /* inside the data range, so both bounds clip */
		pa->c.input = x;
		pa->c.output = tg_next(tg);
		pa->c.min_value = &pa->lo;
		pa->c.max_value = &pa->hi;
		tg_set_op(&pa->o, WNN_OP_CLAMP, &pa->c);
	} else {
		Webnn__Ipc__ElementwiseBinary init = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
		pa->bin = init;
		pa->bin.a = other;
		pa->bin.b = x;
		pa->bin.output = tg_next(tg);
		tg_set_op(&pa->o, WNN_OP_ADD, &pa->bin);
	}
	ASSERT_MSG(tg_op(tg, &pa->o, &diag) == WEBNN_STATUS_OK, "activation: %s", diag.message);
	return tg_next(tg) - 1;
}

void ot_epilogue_case(struct tg_graph *tg, struct ot_epilogue *pe, enum wnn_dtype t, bool nhwc,
		      uint32_t k, uint32_t oc, uint32_t groups, int chain, bool bias,
		      uint64_t seed)
{
	uint32_t c = 5, h = 12, w = 13;
	uint32_t x = tg_input(tg, t, 4, nhwc ? (uint32_t[]){ 2, h, w, c }
					     : (uint32_t[]){ 2, c, h, w });
	uint32_t y = ot_conv(tg, &pe->conv, x, t, nhwc, c, oc, k, groups, 1, k == 3 ? PAD1 : PAD0,
			     bias, seed);
	const struct wnn_desc *od = &tg->descs[y];
	if (chain == 1 || chain == 2) {
		ot_act(tg, &pe->act[0], chain, y, 0);
	} else if (chain == 3 || chain == 5) {
		uint32_t res = tg_input(tg, t, od->rank, od->dims);
		y = ot_act(tg, &pe->act[0], 3, y, res);
		if (chain == 5)
			ot_act(tg, &pe->act[1], 2, y, 0);
	} else if (chain == 4) {
		uint32_t vd[3] = { oc, 1, 1 };
		uint32_t vec = nhwc ? tg_input(tg, t, 1, vd) : tg_input(tg, t, 3, vd);
		y = ot_act(tg, &pe->act[0], 3, y, vec);
		ot_act(tg, &pe->act[1], 1, y, 0);
	}
}

void ot_product_epilogue(struct tg_graph *tg, struct ot_product *pp, int which)
{
	uint32_t a = tg_input(tg, WNN_F32, 2, (uint32_t[]){ 9, 14 });
	uint32_t bb = tg_input(tg, WNN_F32, 2, (uint32_t[]){ 14, 11 });
	Webnn__Ipc__Gemm ginit = WEBNN__IPC__GEMM__INIT;
	Webnn__Ipc__Matmul minit = WEBNN__IPC__MATMUL__INIT;
	Webnn__Ipc__Operation oinit = WEBNN__IPC__OPERATION__INIT;
	pp->gemm = ginit;
	pp->matmul = minit;
	pp->o = oinit;
	struct wnn_diag diag = { 0 };
	uint32_t y = tg_next(tg);
	if (which == 0) {
		pp->gemm.a = a;
		pp->gemm.b = bb;
		pp->gemm.output = y;
		tg_set_op(&pp->o, WNN_OP_GEMM, &pp->gemm);
	} else {
		pp->matmul.a = a;
		pp->matmul.b = bb;
		pp->matmul.output = y;
		tg_set_op(&pp->o, WNN_OP_MATMUL, &pp->matmul);
	}
	ASSERT_MSG(tg_op(tg, &pp->o, &diag) == WEBNN_STATUS_OK, "product: %s", diag.message);
	if (which == 0) {
		ot_act(tg, &pp->act[0], 1, y, 0);
	} else {
		uint32_t vec = tg_input(tg, WNN_F32, 1, (uint32_t[]){ 11 });
		y = ot_act(tg, &pp->act[0], 3, y, vec);
		ot_act(tg, &pp->act[1], 2, y, 0);
	}
}
