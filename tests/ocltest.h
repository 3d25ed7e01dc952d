/* Shared helpers of the product backends' differential tests (OpenCL, cpu) against the reference: the backend under test, tolerances, comparisons, one-op graphs. */
#ifndef TESTS_OCLTEST_H
#define TESTS_OCLTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/webnn.pb-c.h"
#include "tests/graphs.h"
#include "tests/test.h"

/* The product backend a differential test runs against the reference: &backend_opencl unless
 * the test was registered twice by OT_TEST. */
extern const struct backend_impl *ot_impl;

/* One test body registered twice: <prefix>_opencl_<what> and <prefix>_cpu_<what>, with ot_impl
 * set to each product backend. Bodies use ot_backend(), ot_impl and the ot_check family. */
#define OT_TEST(prefix_, what_, secs_)                                                         \
	OT_TEST_NAMED(prefix_##_opencl_##what_, prefix_##_cpu_##what_, secs_)
/* The same with both test names given. */
#define OT_TEST_NAMED(opencl_name_, cpu_name_, secs_)                                          \
	static void ot_body_##opencl_name_(void);                                              \
	TEST_TIMEOUT(opencl_name_, secs_)                                                      \
	{                                                                                      \
		ot_impl = &backend_opencl;                                                     \
		ot_body_##opencl_name_();                                                      \
	}                                                                                      \
	TEST_TIMEOUT(cpu_name_, secs_)                                                         \
	{                                                                                      \
		ot_impl = &backend_cpu;                                                        \
		ot_body_##opencl_name_();                                                      \
	}                                                                                      \
	static void ot_body_##opencl_name_(void)

/* ot_impl's backend; for OpenCL without an on-disk program cache (the daemon's warm-up child
 * is not run here, so nothing competes with the tests for the two cores); SKIPs without an
 * OpenCL device. */
struct backend *ot_backend(void);
/* The same with on-disk caches in cache_dir. */
struct backend *ot_backend_cached(const char *cache_dir);
/* ot_impl set to the cpu backend, started with WEBNN_CPU_CHUNK_NS at 1 ns: every oneDNN
 * convolution and product it plans runs in chunks. */
struct backend *ot_cpu_backend_chunked(void);
/* A copy of g optimised for a context of be (g itself stays as the client built it, for the
 * reference backend and further copies). Free with graph_destroy. */
struct graph_ir *ot_optimized_copy(struct backend_context *ctx,
				   const struct graph_ir *g);

/* Allowed difference of an output: ulps, absolute, relative. */
struct tol {
	double ulp, atol, rtol;
};
static const struct tol TOL_EXACT = { 0, 0, 0 };
static const struct tol TOL_EW = { 8, 1e-6, 1e-5 };
static const struct tol TOL_SUM = { 0, 2e-4, 2e-4 };
static const struct tol TOL_F16 = { 2, 2e-3, 4e-3 };
static const struct tol TOL_F16_SUM = { 0, 2e-2, 1e-2 };

static const enum wnn_dtype ALL_TYPES[] = { WNN_F32, WNN_F16, WNN_I32, WNN_U32,
					    WNN_I64, WNN_U64, WNN_I8,  WNN_U8 };

/* Value range of graph input i; inputs past the table (or with lo == hi == 0) use [lo, hi]. */
struct range {
	double lo, hi;
};

/* The per-operator tests (tests/ops_<family>.c) compare on one of two seed sets, the ones
 * their tolerances were chosen on:
 * ot_check: input i seeded with 1234 + 77 i, integer outputs exactly. */
void ot_check(struct backend *be, const struct graph_ir *g, double lo, double hi, struct tol tol,
	      const char *label);
/* ot_check_ranges: input i seeded with 4321 + 91 i in its range r[i] where given (else in
 * [lo, hi]), integer outputs within ot_int_atol; each call counts in ot_n_compared. Both are
 * per test: every test runs in a forked process. */
void ot_check_ranges(struct backend *be, const struct graph_ir *g, const struct range *r,
		     size_t n_r, double lo, double hi, struct tol tol, const char *label);
/* ot_check_ranges with every input in [lo, hi]. */
void ot_check_counted(struct backend *be, const struct graph_ir *g, double lo, double hi,
		      struct tol tol, const char *label);
/* Allowed difference of integer outputs (linear resampling rounds an inexact value). */
extern double ot_int_atol;
extern int ot_n_compared;

#define OT_N_TYPES (sizeof ALL_TYPES / sizeof ALL_TYPES[0])
/* lo, or 0 for an unsigned type. */
double ot_type_lo(enum wnn_dtype t, double lo);

/* Graph pieces that must outlive the graph. */
struct ot_conv {
	Webnn__Ipc__Conv2d m;
	Webnn__Ipc__Operation o;
	uint32_t pad[4], stride[2], dil[2];
};
struct ot_act {
	Webnn__Ipc__ElementwiseUnary u;
	Webnn__Ipc__Clamp c;
	Webnn__Ipc__ElementwiseBinary bin;
	Webnn__Ipc__Number lo, hi;
	Webnn__Ipc__Operation o;
};

/* conv2d with constant filter (layout as the input's usual partner; ihwo for depthwise nhwc)
 * and optional constant bias; returns the output id. */
uint32_t ot_conv(struct tg_graph *tg, struct ot_conv *pc, uint32_t x, enum wnn_dtype t, bool nhwc,
		 uint32_t c, uint32_t oc, uint32_t k, uint32_t groups, uint32_t stride,
		 const uint32_t pad[4], bool bias, uint64_t seed);
/* act 1 relu, 2 clamp(0, 0.75), 3 add(x, other): returns the output id. */
uint32_t ot_act(struct tg_graph *tg, struct ot_act *pa, int act, uint32_t x, uint32_t other);

/* [9, 14] x [14, 11] products with an epilogue: which 0: gemm + relu; 1: matmul + add of an
 * [11] input + clamp. */
struct ot_product {
	Webnn__Ipc__Gemm gemm;
	Webnn__Ipc__Matmul matmul;
	Webnn__Ipc__Operation o;
	struct ot_act act[2];
};
void ot_product_epilogue(struct tg_graph *tg, struct ot_product *pp, int which);

/* An epilogue case: input [2, 12, 13, 5] (or NCHW) -> conv2d (k x k, padding 1 for k = 3,
 * groups) -> chain 0: nothing (bias only), 1 relu, 2 clamp, 3 add of a residual input, 4 add of
 * a channel vector input ([oc] in NHWC, [oc, 1, 1] in NCHW) + relu, 5 residual + clamp. */
struct ot_epilogue {
	struct ot_conv conv;
	struct ot_act act[2];
};
void ot_epilogue_case(struct tg_graph *tg, struct ot_epilogue *pe, enum wnn_dtype t, bool nhwc,
		      uint32_t k, uint32_t oc, uint32_t groups, int chain, bool bias,
		      uint64_t seed);
static const uint32_t PAD0[4] = { 0, 0, 0, 0 }, PAD1[4] = { 1, 1, 1, 1 },
		      PAD01[4] = { 0, 1, 0, 1 };

/* Adds op to t and finishes the graph; fails the test naming label on a validation error. */
const struct graph_ir *ot_finish(struct tg_graph *t, Webnn__Ipc__Operation *op,
				      const char *label);

/* Builds input(t, dims) -> op(msg) and compares with ot_check_counted; msg has .input and
 * .output members. */
#define OT_RUN1(be, t, rank, dims, kind, msg, lo, hi, tol, label)                              \
	do {                                                                                   \
		struct tg_graph tg_;                                                           \
		tg_init(&tg_);                                                                 \
		(msg).input = tg_input(&tg_, (t), (rank), (dims));                             \
		(msg).output = tg_next(&tg_);                                                  \
		Webnn__Ipc__Operation o_ = WEBNN__IPC__OPERATION__INIT;                        \
		tg_set_op(&o_, (kind), &(msg));                                                \
		const struct graph_ir *g_ = ot_finish(&tg_, &o_, (label));                     \
		ot_check_counted(be, g_, (lo), (hi), (tol), (label));                          \
		tg_free(&tg_);                                                                 \
	} while (0)

#endif
