/* Private to proto/: what the operator family files (schema_<family>.c) share with schema.c. */
#ifndef PROTO_SCHEMA_H
#define PROTO_SCHEMA_H

#include "proto/webnn.pb-c.h"
#include "proto/resolve.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_DIM ((uint64_t)INT32_MAX) /* valid dimension bound shared with wnn_desc_validate */
#define MAX_TENSOR_COUNT 8192         /* spec "valid tensor count" */

/* ---- operand enumeration: each attrs kind lists the ids it reads through one callback */

typedef bool (*wnn_io_fn)(void *ud, uint32_t id, const char *role);

#define IN(id, role)                                                                           \
	do {                                                                                   \
		if (!fn(ud, (id), (role)))                                                     \
			return false;                                                          \
	} while (0)
#define OPT(msg, field, role)                                                                  \
	do {                                                                                   \
		if ((msg)->has_##field)                                                        \
			IN((msg)->field, role);                                                \
	} while (0)
#define NEED(ptr)                                                                              \
	do {                                                                                   \
		if (!(ptr))                                                                    \
			return false;                                                          \
	} while (0)
#define OUT_LIST(msg, field)                                                                   \
	do {                                                                                   \
		NEED(msg);                                                                     \
		*list = (msg)->field;                                                          \
		*n = (msg)->n_##field;                                                         \
		return true;                                                                   \
	} while (0)
#define OUT_ONE(msg)                                                                           \
	do {                                                                                   \
		NEED(msg);                                                                     \
		*list = &(msg)->output;                                                        \
		*n = 1;                                                                        \
		return true;                                                                   \
	} while (0)

/* ---- what a resolver works on: the operation, its operand descriptors (ids already range-
 * and definition-checked) and the outputs computed so far. */
struct wnn_resolving {
	const Webnn__Ipc__Operation *op;
	enum wnn_op kind;
	const char *name;
	const struct wnn_desc *operands;
	size_t n_operands;
	struct wnn_diag *diag;
	struct wnn_desc res[WNN_MAX_OUTPUTS];
	int n_res;
	/* Resolving for kernels (wnn_resolve), which may refuse what the spec allows but no kernel
	 * gives a meaning; shape inference and graph validation accept it. */
	bool for_kernels;
};

static inline const struct wnn_desc *D(const struct wnn_resolving *c, uint32_t id)
{
	return &c->operands[id]; /* ids were range- and definition-checked up front */
}

/* Allowed data types of the operator's first input (ops.def DTYPES). */
static inline uint32_t first_mask(const struct wnn_resolving *c)
{
	return wnn_ops[c->kind].dtypes;
}

#define SHAPE(d, buf) wnn_dims_str((d)->dims, (d)->rank, buf, sizeof(buf))
#define LIST(p, n, buf) wnn_dims_str((p), (n), buf, sizeof(buf))

/* Returns a failed status from a helper that reports through a diag. */
#define CHECK(expr)                                                                            \
	do {                                                                                   \
		enum webnn_status st_ = (expr);                                                \
		if (st_ != WEBNN_STATUS_OK)                                                    \
			return st_;                                                            \
	} while (0)

/* ---- the one dispatch table: what each Operation.attrs kind does, indexed by attrs_case */
struct wnn_attrs_rules {
	/* Calls fn for every operand read, in operator-input order; false when the attrs member
	 * is missing or fn stopped the walk. */
	bool (*inputs)(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud);
	/* Points *list at the output ids (a single field or a repeated one). */
	bool (*outputs)(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n);
	/* The one resolver of the kind: checks every spec rule once (as the builder does), fills
	 * its union wnn_attrs member and appends the output descriptors to c->res. */
	bool (*resolve)(struct wnn_resolving *c, union wnn_attrs *attrs);
	/* Spec tensor limits of every role (t: the op's input types, out: its output types). */
	void (*roles)(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud);
};

/* Adapts a kind's resolver fn(c, &attrs->member) to the table's signature (defines fn_any). */
#define WNN_RESOLVER(fn, member)                                                               \
	static bool fn##_any(struct wnn_resolving *c, union wnn_attrs *attrs)                      \
	{                                                                                      \
		return fn(c, &attrs->member);                                                  \
	}

/* Each attributes kind's rules, defined in its family's schema_<family>.c. */
#define WNN_ATTRS_RULES_EXTERN_(K, tag, name) extern const struct wnn_attrs_rules wnn_attrs_##name;
WNN_ATTRS_KINDS(WNN_ATTRS_RULES_EXTERN_)
#undef WNN_ATTRS_RULES_EXTERN_

/* ---- shared checks of the resolvers (messages read "<op>: <what>") */
bool wnn_failf(struct wnn_resolving *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *wnn_dims_str(const uint32_t *dims, size_t rank, char *buf, size_t len);
const char *wnn_types_str(uint32_t mask, char *buf, size_t len);
bool wnn_check_type(struct wnn_resolving *c, const struct wnn_desc *d, const char *role, uint32_t mask);
bool wnn_check_same_type(struct wnn_resolving *c, const struct wnn_desc *d, const char *role,
			    const struct wnn_desc *ref, const char *ref_role);
bool wnn_check_rank(struct wnn_resolving *c, const struct wnn_desc *d, const char *role, uint32_t lo,
		       uint32_t hi);
bool wnn_check_shape(struct wnn_resolving *c, const struct wnn_desc *d, const char *role,
			const uint64_t *want, uint32_t n, const char *what_want);
bool wnn_check_axis(struct wnn_resolving *c, uint32_t axis, uint32_t rank, const char *what);
bool wnn_check_axes(struct wnn_resolving *c, const uint32_t *axes, size_t n, uint32_t rank,
		       const char *what, uint32_t *mask);
struct wnn_desc *wnn_result(struct wnn_resolving *c, enum wnn_dtype type, uint32_t rank);
struct wnn_desc *wnn_result_copy(struct wnn_resolving *c, const struct wnn_desc *d);
bool wnn_set_dim(struct wnn_resolving *c, struct wnn_desc *r, uint32_t i, int64_t v, const char *what);
bool wnn_bcast_bi(const struct wnn_desc *a, const struct wnn_desc *b, struct wnn_desc *out);
bool wnn_bcast_uni(const uint32_t *from, uint32_t rf, const uint32_t *to, uint32_t rt);
bool wnn_check_enum(struct wnn_resolving *c, int v, int max, const char *what);
int64_t wnn_floor_div(int64_t a, int64_t b);
int64_t wnn_ceil_div(int64_t a, int64_t b);
bool wnn_check_list(struct wnn_resolving *c, const uint32_t *v, size_t n, size_t want, bool nonzero,
		    const char *what);
int64_t wnn_conv_span(uint32_t in, uint32_t filter, uint32_t pb, uint32_t pe, uint32_t dil);
void wnn_spatial_strides(const struct wnn_desc *d, bool nhwc, uint64_t *s);
void wnn_nchw_dims(const struct wnn_desc *d, bool nhwc, uint32_t *n, uint32_t *c, uint32_t *h,
		      uint32_t *w);
uint32_t wnn_axes_or(bool given, const uint32_t *axes, size_t n, uint32_t first, uint32_t rank,
		     uint32_t *out);
void wnn_list_or(size_t n, const uint32_t *v, size_t want, uint32_t dflt, uint32_t *out);
void wnn_axis_view(const struct wnn_desc *d, uint32_t axis, uint64_t *outer, uint64_t *size,
		      uint64_t *inner);

#endif
