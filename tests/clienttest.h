/* Shared helpers for the libwebnn tests that run against a reference-backend webnnd. */
#ifndef TESTS_CLIENTTEST_H
#define TESTS_CLIENTTEST_H

#include "tests/test.h"
#include "webnn.h"

/* SKIPs the test when bin/webnnd is not built. */
void ct_require_webnnd(void);
/* Starts a reference-backend webnnd (SKIP when it is not built). */
void ct_daemon_up(struct test_daemon *d);
/* A context on d's socket under client_name; fails the test when it cannot be created. */
struct webnn_context *ct_connect(const struct test_daemon *d, const char *client_name);

#define OK(ctx, expr)                                                                          \
	do {                                                                                   \
		enum webnn_status s_ = (expr);                                                 \
		ASSERT_MSG(s_ == WEBNN_STATUS_OK, "%s -> %s: %s", #expr, webnn_status_name(s_), \
			   webnn_context_last_error(ctx));                                     \
	} while (0)

/* Expects a status and an error message containing needle. */
#define FAILS(ctx, expr, status, needle)                                                       \
	do {                                                                                   \
		enum webnn_status s_ = (expr);                                                 \
		ASSERT_MSG(s_ == (status), "%s -> %s (%s), expected %s", #expr,                \
			   webnn_status_name(s_), webnn_context_last_error(ctx),               \
			   webnn_status_name(status));                                         \
		ASSERT_CONTAINS(webnn_context_last_error(ctx), needle);                        \
	} while (0)

/* ---- building and running small graphs */

/* An operand descriptor of type t and the given shape. */
struct webnn_operand_desc ct_desc_of(enum webnn_data_type t, uint32_t rank,
				      const uint32_t *shape);
/* A graph input / a constant of the given type and shape; fail the test on error. */
struct webnn_operand *ct_input(struct webnn_context *ctx, struct webnn_builder *b,
			       const char *name, enum webnn_data_type t, uint32_t rank,
			       const uint32_t *shape);
struct webnn_operand *ct_const(struct webnn_context *ctx, struct webnn_builder *b,
			       enum webnn_data_type t, uint32_t rank, const uint32_t *shape,
			       const void *data);
/* The bytes of a tensor of descriptor d. */
size_t ct_bytes(const struct webnn_operand_desc *d);
/* One graph input with its bytes, one graph output with room for its bytes. */
struct ct_io {
	const char *name;
	struct webnn_operand *operand; /* outputs */
	void *data;
};

/* Builds the graph of the given outputs, binds the inputs (in graph order, found by name),
 * dispatches and reads every output into its data. A context without an operator of the graph
 * (NOT_SUPPORTED at build) skips the test: backends gain operators over time. */
void ct_run(struct webnn_context *ctx, struct webnn_builder *b, const char *what,
	    const struct ct_io *inputs, size_t n_in, const struct ct_io *outputs, size_t n_out);
/* Dispatches a built graph of one input and one output: x (x_desc's bytes) in, y out (y_desc's
 * bytes); the tensors are made for the call and destroyed. */
void ct_dispatch_one(struct webnn_context *ctx, struct webnn_graph *g, const char *x_name,
		     const struct webnn_operand_desc *x_desc, const void *x, const char *y_name,
		     const struct webnn_operand_desc *y_desc, void *y);
/* Asserts got[i] within tol of want[i] for every i < n. */
void ct_assert_floats(const char *what, const float *got, const float *want, size_t n,
		      float tol);
/* Asserts the data type and shape of operand o. */
void ct_assert_shape(const struct webnn_operand *o, enum webnn_data_type t, uint32_t rank,
		     const uint32_t *shape);

#endif
