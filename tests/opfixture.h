/* Shared fixture of the validation tests: an operand table and one operation at a time through its resolver. */
#ifndef TESTS_OPFIXTURE_H
#define TESTS_OPFIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/webnn.pb-c.h"
#include "proto/resolve.h"
#include "proto/wnn.h"

/* An operand table and the outputs inferred for the last operation run over it. */
struct fx {
	struct wnn_desc d[32];
	size_t n;
	struct wnn_desc out[WNN_MAX_OUTPUTS];
	int n_out;
	struct wnn_diag diag;
};

/* Appends an operand of type t and the given shape; returns its id. */
uint32_t st_add_desc(struct fx *f, enum wnn_dtype t, size_t rank, const uint32_t *dims);
#define T(f, t, ...)                                                                           \
	st_add_desc(f, t, sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t),              \
		    (uint32_t[]){ __VA_ARGS__ })
#define SCALAR(f, t) st_add_desc(f, t, 0, NULL)
/* An undefined slot for an operation to write. */
#define SLOT(f) st_add_desc(f, WNN_DT_NONE, 0, NULL)

/* An operation of kind k with its attrs case set (the attrs message is the caller's). */
Webnn__Ipc__Operation st_mkop(enum wnn_op k);
/* Resolves op for kernels (wnn_resolve) over the fixture's operands with f->out (the last
 * inferred outputs, possibly altered) declared in its output slots, on a copy of the table. */
enum webnn_status st_resolve(const struct fx *f, const Webnn__Ipc__Operation *op,
			     union wnn_attrs *attrs, struct wnn_diag *diag);
/* Infers op's outputs into f->out (wnn_op_infer, the client's eager inference). */
enum webnn_status st_run(struct fx *f, const Webnn__Ipc__Operation *op);
/* Asserts success and that output i has type t and the given shape. */
void st_expect_out(struct fx *f, int i, enum wnn_dtype t, size_t rank, const uint32_t *dims,
		   int line);
#define OK_OUT(f, op, i, t, ...)                                                               \
	do {                                                                                   \
		st_run(f, op);                                                                 \
		st_expect_out(f, i, t, sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t), \
			      (uint32_t[]){ __VA_ARGS__ }, __LINE__);                          \
	} while (0)
#define OK_SCALAR(f, op, t)                                                                    \
	do {                                                                                   \
		st_run(f, op);                                                                 \
		st_expect_out(f, 0, t, 0, NULL, __LINE__);                                     \
	} while (0)
#define ERR(f, op, text)                                                                       \
	do {                                                                                   \
		ASSERT_EQ(st_run(f, op), WEBNN_STATUS_TYPE_ERROR);                             \
		ASSERT_EQ((f)->diag.status, WEBNN_STATUS_TYPE_ERROR);                          \
		ASSERT_CONTAINS((f)->diag.message, text);                                      \
	} while (0)

/* An element-wise binary operation k of a and b into out, its message in m. */
Webnn__Ipc__Operation st_binary(enum wnn_op k, Webnn__Ipc__ElementwiseBinary *m, uint32_t a,
				uint32_t b, uint32_t out);

/* A conv2d operation and its message, kept together. */
struct conv {
	Webnn__Ipc__Conv2d m;
	Webnn__Ipc__Operation op;
};
void st_conv_init(struct conv *c, uint32_t x, uint32_t w, uint32_t o);

#endif
