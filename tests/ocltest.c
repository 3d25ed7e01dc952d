/* Shared helpers of the OpenCL backend tests: the backend, tolerances, comparisons, one-op graphs. */
#include "tests/ocltest.h"

#include <stdlib.h>

#include "daemon/backend/opencl/ocl.h"
#include "daemon/graph/import.h"


struct backend *ot_backend_cached(const char *cache_dir)
{
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

struct graph_ir *ot_optimized_copy(struct backend *be, struct backend_context *ctx,
				   const struct graph_ir *g, bool baseline)
{
	/* The copy must see every pass with this option's caps: clone before any optimisation. */
	ASSERT_MSG(!g->optimized, "ot_optimized_copy: the graph was already optimised");
	struct graph_ir *copy = graph_clone(g);
	struct wnn_diag diag = { 0 };
	ASSERT_MSG(copy != NULL, "graph_clone: out of memory");
	be->opts.baseline = baseline;
	ASSERT_MSG(tg_optimize(copy, &backend_opencl, ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	return copy;
}

void ot_compare(struct backend *be, const struct graph_ir *g, const struct range *r,
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
	st = tg_run(&backend_opencl, be, g, (const void *const *)in, out, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: opencl: %s", label, diag.message);
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
