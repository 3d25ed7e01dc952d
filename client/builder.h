/* libwebnn builder internals shared by builder.c and the family files builder_<family>.c. */
#ifndef WNNC_BUILDER_H
#define WNNC_BUILDER_H

#include <stddef.h>
#include <string.h>

#include "proto/webnn.pb-c.h"
#include "client/client.h"

/* ---- builder arena: operation messages, option arrays and operands live until destroy */

struct wnnc_arena_mark {
	struct wnnc_arena_block *block;
	size_t used;
};

/* Zeroed, max_align_t-aligned memory owned by the builder; NULL when out of memory. */
void *wnnc_arena_alloc(struct webnn_builder *b, size_t size);
void *wnnc_arena_dup(struct webnn_builder *b, const void *src, size_t size);
struct wnnc_arena_mark wnnc_arena_mark(const struct webnn_builder *b);
/* Gives back everything allocated since the mark (a failed builder call leaves nothing). */
void wnnc_arena_reset(struct webnn_builder *b, struct wnnc_arena_mark m);

/* ---- shared steps of every builder method (lock held from wnnc_enter to wnnc_leave) */

/* Takes the lock and checks the builder can build (spec: "can not build" -> InvalidStateError). */
enum webnn_status wnnc_enter(struct webnn_builder *b, const char *what, const void *out);
/* Ends an operator call: drops the pending label (consume_label), adds it to the error message
 * of a failed call, and releases the lock. */
void wnnc_leave(struct webnn_builder *b, enum webnn_status s, bool consume_label);
/* Spec "validating operand": it must come from this builder. */
enum webnn_status wnnc_use(struct webnn_builder *b, const char *what, const char *role,
			   const struct webnn_operand *o);
/* A new operation of op's family with its attrs message allocated and initialised, carrying
 * the pending label. */
Webnn__Ipc__Operation *wnnc_new_op(struct webnn_builder *b, enum wnn_op op, void **attrs);
/* Validates the operation with the shared spec code and creates its output operand(s). The
 * family code has set the output id(s) to b->n_operands onwards. finish gives the first output;
 * finish_n writes up to max_outs of them to outs (fewer room is a TYPE_ERROR). */
enum webnn_status wnnc_finish(struct webnn_builder *b, const char *what,
			      Webnn__Ipc__Operation *op, struct webnn_operand **out);
enum webnn_status wnnc_finish_n(struct webnn_builder *b, const char *what,
				Webnn__Ipc__Operation *op, struct webnn_operand **outs,
				size_t max_outs, size_t *n_outs);
/* An option array of at most cap values: copied into the arena, count checked. */
enum webnn_status wnnc_opt_array(struct webnn_builder *b, const char *what, const char *name,
				 const uint32_t *values, uint32_t n, uint32_t cap, size_t *n_out,
				 uint32_t **out);
/* A shape-like argument of at most WNN_MAX_RANK values (values may be NULL only when rank 0). */
enum webnn_status wnnc_shape_arg(struct webnn_builder *b, const char *what, const char *name,
				 const uint32_t *values, uint32_t rank, size_t *n_out,
				 uint32_t **out);
/* An enum option in 0..count-1. */
enum webnn_status wnnc_check_enum(struct webnn_builder *b, const char *what, const char *name,
				  int value, int count);

/* An optional operand option: validated and recorded as (has, id); NULL leaves it absent. */
enum webnn_status wnnc_opt_operand(struct webnn_builder *b, const char *what, const char *role,
				   const struct webnn_operand *o, protobuf_c_boolean *has,
				   uint32_t *id);
/* A list argument of at most cap values; values may be NULL only for an empty list. */
enum webnn_status wnnc_list_arg(struct webnn_builder *b, const char *what, const char *name,
				const uint32_t *values, uint32_t n, uint32_t cap, size_t *n_out,
				uint32_t **out);
/* Output ids n_operands .. n_operands + n - 1 for an operator returning a sequence. */
enum webnn_status wnnc_output_list(struct webnn_builder *b, const char *what, size_t n,
				   size_t *n_out, uint32_t **out);

/* An MLNumber option for the wire: the exact form when its kind is not WEBNN_NUMBER_NONE, else
 * value when has_value; *out stays NULL (absent) otherwise. */
enum webnn_status wnnc_number(struct webnn_builder *b, const char *what, const char *name,
			      const struct webnn_number *exact, bool has_value, double value,
			      Webnn__Ipc__Number **out);

/* Runs one operator's body between wnnc_enter() and wnnc_leave(), undoing arena use on failure.
 * Operators consume the pending label; input() and constant() (no MLOperatorOptions) do not. */
#define WNNC_BEGIN_(what_, consume_)                                                           \
	if (out)                                                                               \
		*out = NULL;                                                                   \
	if (!b)                                                                                \
		return WEBNN_STATUS_TYPE_ERROR;                                                \
	const char *what = (what_);                                                            \
	const bool consume_label = (consume_);                                                 \
	enum webnn_status s = wnnc_enter(b, what, out);                                        \
	struct wnnc_arena_mark mark = wnnc_arena_mark(b);                                      \
	if (s != WEBNN_STATUS_OK)                                                              \
		goto done;

#define WNNC_OP_BEGIN(what_) WNNC_BEGIN_(what_, true)
#define WNNC_OPERAND_BEGIN(what_) WNNC_BEGIN_(what_, false)

#define WNNC_OP_END                                                                            \
	done:                                                                                  \
	if (s != WEBNN_STATUS_OK) {                                                            \
		wnnc_arena_reset(b, mark);                                                     \
		if (out)                                                                       \
			*out = NULL;                                                           \
	}                                                                                      \
	wnnc_leave(b, s, consume_label);                                                       \
	return s;

/* The multi-output form of WNNC_OP_BEGIN: outs/n_outs are cleared first; out only stands for
 * "outs is not NULL" in the shared checks. */
#define WNNC_MULTI_BEGIN(what_)                                                                \
	struct webnn_operand *first_ = NULL;                                                   \
	struct webnn_operand **out = outs ? &first_ : NULL;                                    \
	if (n_outs)                                                                            \
		*n_outs = 0;                                                                   \
	for (size_t i_ = 0; outs && i_ < max_outs; i_++)                                       \
		outs[i_] = NULL;                                                               \
	WNNC_OP_BEGIN(what_)                                                                   \
	if (!n_outs) {                                                                         \
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "%s: n_outs is NULL", what);    \
		goto done;                                                                     \
	}

#define WNNC_MULTI_END                                                                         \
	done:                                                                                  \
	if (s != WEBNN_STATUS_OK) {                                                            \
		wnnc_arena_reset(b, mark);                                                     \
		for (size_t i_ = 0; outs && i_ < max_outs; i_++)                               \
			outs[i_] = NULL;                                                       \
		if (n_outs)                                                                    \
			*n_outs = 0;                                                           \
	}                                                                                      \
	wnnc_leave(b, s, consume_label);                                                       \
	return s;

#define WNNC_TRY(expr)                                                                         \
	do {                                                                                   \
		if ((s = (expr)) != WEBNN_STATUS_OK)                                           \
			goto done;                                                             \
	} while (0)

#define WNNC_NEW_OP(var_, type_, op_)                                                          \
	type_ *var_ = NULL;                                                                    \
	if ((op_) >= WNN_OP_COUNT) {                                                           \
		s = wnnc_fail(b->ctx, WEBNN_STATUS_NOT_SUPPORTED,                              \
			      "%s: no such operator in proto/ops.def", what);                  \
		goto done;                                                                     \
	}                                                                                      \
	Webnn__Ipc__Operation *op = wnnc_new_op(b, (op_), (void **)&var_);                     \
	if (!op) {                                                                             \
		s = wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);      \
		goto done;                                                                     \
	}

/* Copies the caller's options struct over the defaults (older, smaller structs keep the
 * defaults for the fields they lack). The public _INIT macro gives the defaults of the members
 * ops.def does not hold; WNNC_OPS_DEF_DEFAULT then applies those it does. */
#define WNNC_OPTIONS(type_, var_, in_, init_)                                                  \
	type_ var_ = init_;                                                                    \
	if (in_) {                                                                             \
		if ((in_)->struct_size == 0) {                                                 \
			s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,                         \
				      "%s: options.struct_size is 0 (initialise the options "  \
				      "with its _INIT macro)", what);                          \
			goto done;                                                             \
		}                                                                              \
		memcpy(&var_, (in_), (in_)->struct_size < sizeof(var_) ? (in_)->struct_size    \
								       : sizeof(var_));        \
	}

/* A field of a caller's options struct, or the default when the struct is NULL or older (smaller)
 * than the field. */
#define WNNC_OPT_FIELD(o, field, def)                                                          \
	((o) && (o)->struct_size >= offsetof(__typeof__(*(o)), field) + sizeof((o)->field)     \
		 ? (o)->field                                                                  \
		 : (def))

/* A scalar option whose spec default ops.def holds (DEFAULTS: alpha, beta, epsilon): the
 * caller's value, or wnn_ops[op].defaults.<field> when the options are NULL or older than the
 * field. The _INIT macros only mirror these values for C callers. */
#define WNNC_OPS_DEF_DEFAULT(opt, in, field, op)                                               \
	((opt).field = WNNC_OPT_FIELD(in, field, wnn_ops[op].defaults.field))

#endif
