/* Shared harness of the reference-backend tests: message arena, graph building, run, compare. */
#ifndef TESTS_REFTEST_H
#define TESTS_REFTEST_H

#include "proto/webnn.pb-c.h"
#include "proto/resolve.h"
#include "tests/graphs.h"

#define N_(...) (sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))
#define SHAPE(...) (uint32_t) N_(__VA_ARGS__), (uint32_t[]){ __VA_ARGS__ }
#define D(...) ((const double[]){ __VA_ARGS__ })
#define INS(...) ((const double *const[]){ __VA_ARGS__ })
/* Sets the repeated field f of message m to the listed values (copied into the arena). */
#define LIST(m, f, ...)                                                                        \
	((m)->n_##f = N_(__VA_ARGS__), (m)->f = rt_u32dup(N_(__VA_ARGS__), (uint32_t[]){ __VA_ARGS__ }))
/* New message of family type T (its INIT macro given) in the arena. */
#define MSG(T, INIT)                                                                           \
	({                                                                                     \
		T init_ = INIT, *m_ = rt_arena(sizeof(T));                                     \
		*m_ = init_;                                                                   \
		m_;                                                                            \
	})

/* Zeroed test memory that is never freed: each test runs in its own forked process, so the
 * static arena behind it is fresh for every test. */
void *rt_arena(size_t n);
uint32_t *rt_u32dup(size_t n, const uint32_t *v);
/* A constant operand holding the values v converted to type. */
uint32_t rt_constant(struct tg_graph *t, enum wnn_dtype type, uint32_t rank, const uint32_t *dims,
		     const double *v);
/* Adds operation `which` with its family message attrs; returns its first output. Create every
 * operand of an operation before its message: the message takes the next operand id. */
uint32_t rt_op(struct tg_graph *t, enum wnn_op which, void *attrs);
Webnn__Ipc__Number *rt_number(double f);
/* A reduce message reading input (axes and keepDimensions at their defaults). */
Webnn__Ipc__Reduce *rt_reduce_msg(struct tg_graph *t, uint32_t input);
/* Finishes t and runs it on the reference backend; ins[i] are the values of graph input i.
 * Returns the output buffers (arena). */
void **rt_run(struct tg_graph *t, const double *const *ins);
/* Compares output i of a run with expected within ulp (floats) or atol. */
void rt_check(struct tg_graph *t, void **outs, size_t i, const double *expected, double ulp,
	      double atol);
/* Runs and checks the single output. */
void rt_expect(struct tg_graph *t, const double *const *ins, const double *expected, double ulp);
void rt_expect_shape(struct tg_graph *t, uint32_t id, uint32_t rank, const uint32_t *dims);
/* Constant operand of values arr with the listed shape. */
#define C(t, type, arr, ...) rt_constant((t), (type), SHAPE(__VA_ARGS__), (arr))

/* Message constructors shared by the families' reference tests (the message takes the next
 * operand id for its output, so create every operand of an operation first). */
uint32_t rt_binary(struct tg_graph *t, enum wnn_op which, uint32_t a, uint32_t b);
uint32_t rt_unary_ab(struct tg_graph *t, enum wnn_op which, uint32_t x, bool has_alpha,
		     double alpha, bool has_beta, double beta);
uint32_t rt_unary(struct tg_graph *t, enum wnn_op which, uint32_t x);
Webnn__Ipc__Pool2d *rt_pool_msg(struct tg_graph *t, uint32_t in);
Webnn__Ipc__Gemm *rt_gemm_msg(struct tg_graph *t, uint32_t a, uint32_t b);
Webnn__Ipc__BatchNormalization *rt_bn_msg(struct tg_graph *t, uint32_t in, uint32_t mean,
					    uint32_t var);
/* 1..9: the values of a 3x3 test image. */
extern const double rt_iota9[9];
uint32_t rt_pool(struct tg_graph *t, enum wnn_op op, Webnn__Ipc__Pool2d *m);
uint32_t rt_matmul(struct tg_graph *t, uint32_t a, uint32_t b);
uint32_t rt_softmax(struct tg_graph *t, uint32_t x, uint32_t axis);

#endif
