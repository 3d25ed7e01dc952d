/* libwebnn: the C API of the W3C WebNN API, served by the webnnd daemon. The public header (with webnn_types.h). */
#ifndef WEBNN_H
#define WEBNN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "webnn_types.h"
#include "webnn_ops.h" /* the operator list, generated from ops.def */

#ifdef __cplusplus
extern "C" {
#endif

#define WEBNN_EXPORT __attribute__((visibility("default")))

/* DOMException name ("TypeError"; "OK" for WEBNN_STATUS_OK) and generic text of a status. */
WEBNN_EXPORT const char *webnn_status_name(enum webnn_status s);
WEBNN_EXPORT const char *webnn_status_string(enum webnn_status s);

/* MLOperandDescriptor. */
struct webnn_operand_desc {
	enum webnn_data_type data_type;
	uint32_t rank;
	uint32_t shape[WEBNN_MAX_RANK];
};
/* Bytes one element of the type takes (float16: 2); 0 for an unknown type and for int4/uint4,
 * which take half a byte (use webnn_data_type_byte_length). */
WEBNN_EXPORT size_t webnn_data_type_size(enum webnn_data_type t);
/* Byte length of count elements: count * size, or ceil(count / 2) for int4/uint4; 0 for an
 * unknown type. The length constant(), writeTensor() and readTensor() expect. */
WEBNN_EXPORT uint64_t webnn_data_type_byte_length(enum webnn_data_type t, uint64_t count);
/* "float32", ... ; NULL for an unknown type. */
WEBNN_EXPORT const char *webnn_data_type_name(enum webnn_data_type t);
/* int4/uint4 packing: element i in bits (i & 1) * 4 of byte i / 2, the first element in the low
 * nibble; an odd count leaves the last high nibble 0. pack stores the low 4 bits of each value
 * (int4 -8..7 and uint4 0..15 alike) into webnn_data_type_byte_length(t, count) bytes; unpack
 * sign-extends int4 from bit 3. */
WEBNN_EXPORT void webnn_int4_pack(const int8_t *values, size_t count, void *packed);
WEBNN_EXPORT void webnn_int4_unpack(enum webnn_data_type t, const void *packed, size_t count,
				    int8_t *values);
/* float16 (IEEE binary16, as float16 tensors hold it) to and from float32: to float32 is exact;
 * from float32 rounds to nearest even, overflows to infinity and keeps NaN a NaN. */
WEBNN_EXPORT float webnn_float16_to_float32(uint16_t h);
WEBNN_EXPORT uint16_t webnn_float32_to_float16(float f);

struct webnn_context;
struct webnn_builder;
struct webnn_operand; /* owned by its builder; valid until webnn_builder_destroy */
struct webnn_graph;
struct webnn_tensor;

/* ======================================= context ========================================== */

/* MLContextOptions plus where to find webnnd. */
struct webnn_context_options {
	uint32_t struct_size;
	enum webnn_power_preference power_preference;
	bool accelerated;
	const char *socket_path; /* NULL: $WEBNN_SOCKET, else WEBNN_DEFAULT_SOCKET */
	const char *client_name; /* shown in daemon logs; NULL: program name */
};
#define WEBNN_CONTEXT_OPTIONS_INIT \
	{ sizeof(struct webnn_context_options), WEBNN_POWER_DEFAULT, true, NULL, NULL }

/* ML.createContext(). Connects to webnnd (one connection per context), performs the handshake and
 * creates the context. Blocking. On failure *out is NULL and, when last_error is not NULL, the
 * message is copied there (up to len bytes). */
WEBNN_EXPORT enum webnn_status webnn_context_create(const struct webnn_context_options *options,
						    struct webnn_context **out, char *last_error,
						    size_t len);
/* createContext() without blocking, for event loops: connects (connect(2) on a Unix socket does
 * not wait for the daemon), sends the handshake and CreateContext, and returns OK with *out a
 * context whose fd (webnn_context_get_fd) the caller polls, calling
 * webnn_context_dispatch_events when it is readable. cb runs once, from that call (or from
 * webnn_context_destroy): OK once the context is usable, else the error and its message (the
 * statuses of webnn_context_create). Until then the context's other calls fail with
 * WEBNN_STATUS_INVALID_STATE. The caller destroys *out in every case. A call that fails at once
 * returns the error (message in last_error), *out NULL, and never runs cb. */
typedef void (*webnn_context_cb)(void *user_data, enum webnn_status status, const char *message,
				 struct webnn_context *ctx);
WEBNN_EXPORT enum webnn_status webnn_context_create_async(
	const struct webnn_context_options *options, struct webnn_context **out,
	webnn_context_cb cb, void *user_data, char *last_error, size_t len);
/* MLContext.destroy(): releases the context and everything created from it; children stay
 * safe to call (they return WEBNN_STATUS_CONTEXT_LOST) and must still be destroyed. NULL: no-op. */
WEBNN_EXPORT void webnn_context_destroy(struct webnn_context *ctx);
/* Detail of the error of the latest call on this context or its objects: "" when that call
 * succeeded (or none failed yet). Getters that cannot fail (const arguments) leave it as is. */
WEBNN_EXPORT const char *webnn_context_last_error(const struct webnn_context *ctx);

/* What the context runs on. Strings are owned by the context. */
struct webnn_context_info {
	bool accelerated;
	const char *device_name;
	const char *device_type;  /* "gpu", "cpu", "accelerator" */
	const char *platform_name;
	const char *driver_version;
	const char *backend;      /* "cpu", "opencl", "reference" */
};
WEBNN_EXPORT void webnn_context_get_info(const struct webnn_context *ctx,
					 struct webnn_context_info *info);

/* A device webnnd serves and the backend that serves it. Not in the WebNN API (which hides
 * devices behind MLContextOptions); for tools and administrators. */
struct webnn_device_info {
	bool accelerated;
	char *device_name;
	char *device_type;        /* "gpu", "cpu", "accelerator" */
	char *platform_name;
	char *driver_version;
	char *backend;            /* "cpu", "opencl", "reference" */
};
/* Every device of the webnnd at socket_path (NULL: $WEBNN_SOCKET, else WEBNN_DEFAULT_SOCKET),
 * in the order contexts are routed to them, over a connection of its own that creates no
 * context. *out is freed with webnn_devices_free. */
WEBNN_EXPORT enum webnn_status webnn_list_devices(const char *socket_path,
						  struct webnn_device_info **out, size_t *n,
						  char *last_error, size_t len);
WEBNN_EXPORT void webnn_devices_free(struct webnn_device_info *devices, size_t n);

/* MLOpSupportLimits. data_types is a mask of (1u << enum webnn_data_type). */
struct webnn_tensor_limits {
	uint32_t data_types;
	uint32_t min_rank, max_rank;
};
struct webnn_support_limits {
	enum webnn_layout preferred_input_layout;
	uint64_t max_tensor_byte_length;
	struct webnn_tensor_limits input, constant, output;
};
WEBNN_EXPORT void webnn_context_support_limits(const struct webnn_context *ctx,
					       struct webnn_support_limits *limits);
/* Limits of one operand role of one operator ("conv2d", "filter"); false when the context does
 * not support that operator (or it has no such role). */
WEBNN_EXPORT bool webnn_context_op_limits(const struct webnn_context *ctx, const char *op,
					  const char *role, struct webnn_tensor_limits *limits);
/* Enumerates every (op, role) limit; returns false past the end. */
WEBNN_EXPORT bool webnn_context_op_limit_at(const struct webnn_context *ctx, size_t i,
					    const char **op, const char **role,
					    struct webnn_tensor_limits *limits);

/* MLContext.lost: the callback runs once, from whichever libwebnn call notices the loss. */
typedef void (*webnn_lost_cb)(void *user_data, const char *message);
WEBNN_EXPORT void webnn_context_set_lost_callback(struct webnn_context *ctx, webnn_lost_cb cb,
						  void *user_data);
WEBNN_EXPORT bool webnn_context_is_lost(const struct webnn_context *ctx);

/* Event-loop integration: the fd becomes readable when the daemon sent something;
 * webnn_context_dispatch_events() then handles it without blocking (errors of fire-and-forget
 * calls, context loss). The blocking calls below do the same internally. */
WEBNN_EXPORT int webnn_context_get_fd(const struct webnn_context *ctx);
WEBNN_EXPORT enum webnn_status webnn_context_dispatch_events(struct webnn_context *ctx);

/* For event loops: with hold true, requests that get no reply (dispatch, write, destroy) are
 * held back and go with the next request that does (a read, a creation, flush), or at
 * webnn_context_send_held(), in one sendmsg: an event loop calls that before it sleeps. Any call
 * that waits for the daemon sends them first. false sends what is held. */
WEBNN_EXPORT void webnn_context_hold_sends(struct webnn_context *ctx, bool hold);
WEBNN_EXPORT enum webnn_status webnn_context_send_held(struct webnn_context *ctx);
/* Whether requests are held (lock-free hint for an event loop's check before it sleeps). */
WEBNN_EXPORT bool webnn_context_has_held(const struct webnn_context *ctx);

/* Waits until all work submitted to the context so far has finished; returns the first error
 * of fire-and-forget calls (dispatch, write) reported since the previous flush. */
WEBNN_EXPORT enum webnn_status webnn_context_flush(struct webnn_context *ctx);

/* ======================================= tensors ========================================== */

/* MLTensorDescriptor. */
struct webnn_tensor_desc {
	struct webnn_operand_desc desc;
	bool readable;
	bool writable;
};

/* createTensor(). Where the daemon allows it (every backend of this version), the tensor's bytes
 * live in shared memory that libwebnn and the computing daemon process both map: write and read
 * then copy once, and dispatch computes in place (see webnn_tensor_map). */
WEBNN_EXPORT enum webnn_status webnn_context_create_tensor(struct webnn_context *ctx,
							   const struct webnn_tensor_desc *desc,
							   struct webnn_tensor **out);
/* createConstantTensor(): size must equal the descriptor's byte length. The bytes are copied
 * into the daemon's own memory (a constant never changes under a graph). */
WEBNN_EXPORT enum webnn_status webnn_context_create_constant_tensor(
	struct webnn_context *ctx, const struct webnn_operand_desc *desc, const void *data,
	size_t size, struct webnn_tensor **out);
/* The two calls above without blocking, for event loops (see webnn_context_read_tensor_async):
 * the request is sent (constant data copied) before it returns; cb runs once, unlocked, from the
 * libwebnn call that receives the daemon's reply, with OK and the new tensor (the caller's to
 * destroy), or with the error, its message and NULL (WEBNN_STATUS_CONTEXT_LOST when the context
 * is lost or destroyed first). Answers come in timeline order with reads. A tensor given shared
 * memory first registers it, waiting for webnnd's answer (given at once, not behind the
 * timeline; callbacks of replies read meanwhile run before it returns). A call that fails at
 * once (bad arguments) returns the error and never runs cb. */
typedef void (*webnn_tensor_cb)(void *user_data, enum webnn_status status, const char *message,
				struct webnn_tensor *tensor);
WEBNN_EXPORT enum webnn_status webnn_context_create_tensor_async(
	struct webnn_context *ctx, const struct webnn_tensor_desc *desc, webnn_tensor_cb cb,
	void *user_data);
WEBNN_EXPORT enum webnn_status webnn_context_create_constant_tensor_async(
	struct webnn_context *ctx, const struct webnn_operand_desc *desc, const void *data,
	size_t size, webnn_tensor_cb cb, void *user_data);
/* writeTensor(): fire-and-forget (the bytes are copied before it returns): once, into the
 * tensor's shared memory, when no command sent earlier still uses the tensor; otherwise (for
 * example write, dispatch, write without a read between) staged through a frame or the shm
 * arena and copied again by the daemon, in timeline order. */
WEBNN_EXPORT enum webnn_status webnn_context_write_tensor(struct webnn_context *ctx,
							  struct webnn_tensor *tensor,
							  const void *data, size_t size);
/* readTensor(): blocks until the bytes are in data (size must equal the tensor's byte length);
 * one copy, from the tensor's shared memory, after the daemon's reply. */
WEBNN_EXPORT enum webnn_status webnn_context_read_tensor(struct webnn_context *ctx,
							 struct webnn_tensor *tensor, void *data,
							 size_t size);
/* readTensor() without blocking, for event loops (see webnn_context_get_fd): sends the read and
 * returns. cb runs once, without libwebnn's lock held, from the libwebnn call that receives the
 * daemon's reply (webnn_context_dispatch_events once the fd is readable, or any blocking call of
 * the context): with WEBNN_STATUS_OK once the bytes are in data, or with the error and its
 * message (WEBNN_STATUS_CONTEXT_LOST when the context is lost or destroyed first; then cb runs
 * from the call that notices it, webnn_context_destroy included). Reads complete in the order
 * sent. data (size bytes, the tensor's byte length) must stay valid until cb. A later write,
 * dispatch or map of the tensor first waits for its pending reads. Tensors without shared
 * memory whose bytes exceed what a reply carries inline are read blocking, cb then running
 * before this returns. A call that fails at once (bad arguments) returns the error and never
 * runs cb. */
typedef void (*webnn_read_cb)(void *user_data, enum webnn_status status, const char *message);
WEBNN_EXPORT enum webnn_status webnn_context_read_tensor_async(struct webnn_context *ctx,
							       struct webnn_tensor *tensor,
							       void *data, size_t size,
							       webnn_read_cb cb, void *user_data);
WEBNN_EXPORT void webnn_tensor_get_desc(const struct webnn_tensor *tensor,
					struct webnn_tensor_desc *desc);
/* MLTensor.destroy(). NULL: no-op. */
WEBNN_EXPORT void webnn_tensor_destroy(struct webnn_tensor *tensor);

/*
 * webnn_tensor_map / webnn_tensor_unmap: a libwebnn extension, not part of the WebNN spec, for
 * applications that produce inputs or consume outputs in place. map gives a pointer to the
 * tensor's bytes (*size of them), ordered on the context's timeline like a read: it returns
 * once the work sent before it that uses the tensor is done. A readable tensor's pointer then
 * shows its contents (mapping a tensor whose last dispatch failed fails like readTensor); a
 * write-only tensor's pointer holds unspecified bytes, and the caller writes all of them.
 * Until unmap, using the tensor in dispatch, writeTensor or readTensor (or mapping it again)
 * fails with WEBNN_STATUS_INVALID_STATE naming the tensor. unmap of a writable tensor makes the
 * bytes the tensor's contents for the commands sent after it (on a discrete GPU: the upload);
 * the pointer is invalid after unmap. Tensors in shared memory map without a copy; others
 * (an older daemon, the daemon's caps on shared memory reached) through a copy read at map
 * and written at unmap.
 */
WEBNN_EXPORT enum webnn_status webnn_tensor_map(struct webnn_tensor *tensor, void **ptr,
						size_t *size);
WEBNN_EXPORT enum webnn_status webnn_tensor_unmap(struct webnn_tensor *tensor);

/* ======================================= builder ========================================== */

WEBNN_EXPORT enum webnn_status webnn_builder_create(struct webnn_context *ctx,
						    struct webnn_builder **out);
/* Frees the builder and all its operands. NULL: no-op. */
WEBNN_EXPORT void webnn_builder_destroy(struct webnn_builder *b);

/* MLOperatorOptions.label for the next builder call: the operation that call creates carries
 * the label (to webnnd too), and its validation errors end with ` (operator "label")`. The
 * next call consumes it whether it succeeds or fails; NULL or "" clears it. The string is
 * copied. Returns WEBNN_STATUS_NO_MEMORY or WEBNN_STATUS_INVALID_STATE after build. */
WEBNN_EXPORT enum webnn_status webnn_builder_set_next_label(struct webnn_builder *b,
							    const char *label);

/* The descriptor (dataType, shape) the builder inferred for an operand. */
WEBNN_EXPORT void webnn_operand_get_desc(const struct webnn_operand *op,
					 struct webnn_operand_desc *desc);

WEBNN_EXPORT enum webnn_status webnn_builder_input(struct webnn_builder *b, const char *name,
						   const struct webnn_operand_desc *desc,
						   struct webnn_operand **out);
/* constant(descriptor, buffer): the bytes are copied; size must equal the byte length. */
WEBNN_EXPORT enum webnn_status webnn_builder_constant(struct webnn_builder *b,
						      const struct webnn_operand_desc *desc,
						      const void *data, size_t size,
						      struct webnn_operand **out);
/* constant(descriptor, buffer) without the copy, for loaders of large weights (a mapped model
 * file): the builder keeps data, which must stay readable and unchanged until the builder is
 * destroyed, and reads it when build sends it to webnnd; then sent(arg, data, size) is called
 * (sent may be NULL): webnnd has the bytes, and the caller may let go of their memory's pages
 * (a file mapping's, which read back the same if needed again). */
WEBNN_EXPORT enum webnn_status webnn_builder_constant_borrowed(
	struct webnn_builder *b, const struct webnn_operand_desc *desc, const void *data,
	size_t size, void (*sent)(void *arg, const void *data, size_t size), void *arg,
	struct webnn_operand **out);
/* constant(type, value): a 0-D operand. The _int form keeps 64-bit integers exact. */
WEBNN_EXPORT enum webnn_status webnn_builder_constant_scalar(struct webnn_builder *b,
							     enum webnn_data_type type,
							     double value,
							     struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_constant_scalar_int(struct webnn_builder *b,
								 enum webnn_data_type type,
								 int64_t value,
								 struct webnn_operand **out);
/* constant(tensor): the tensor must have been created by createConstantTensor. */
WEBNN_EXPORT enum webnn_status webnn_builder_constant_tensor(struct webnn_builder *b,
							     struct webnn_tensor *tensor,
							     struct webnn_operand **out);

/* MLNumber kept exact: a double, or a bigint for int64/uint64 operands (a value outside the
 * operand's range saturates, as the spec's cast does). WEBNN_NUMBER_NONE: not given. */
enum webnn_number_kind {
	WEBNN_NUMBER_NONE,
	WEBNN_NUMBER_DOUBLE,
	WEBNN_NUMBER_INT64,
	WEBNN_NUMBER_UINT64,
};
struct webnn_number {
	enum webnn_number_kind kind;
	union {
		double f;
		int64_t i;
		uint64_t u;
	} value;
};
#define WEBNN_NUMBER_NONE_INIT { WEBNN_NUMBER_NONE, { 0 } }
#define WEBNN_NUMBER_F64(x) ((struct webnn_number){ WEBNN_NUMBER_DOUBLE, { .f = (x) } })
#define WEBNN_NUMBER_I64(x) ((struct webnn_number){ WEBNN_NUMBER_INT64, { .i = (x) } })
#define WEBNN_NUMBER_U64(x) ((struct webnn_number){ WEBNN_NUMBER_UINT64, { .u = (x) } })

/* Options structs: struct_size first (set by the _INIT macro; a smaller, older struct keeps the
 * defaults of the members it lacks), then the options, whose defaults the _INIT macro holds.
 * Optional operands are NULL when absent; fixed-size option arrays carry an n_ count (0: the
 * spec default); variable-length lists are pointer + count, where NULL means "not given"
 * (which differs from an empty list for axes). The scalar defaults proto/ops.def holds
 * (alpha, beta, epsilon) are applied from ops.def; their _INIT macros mirror them. */

/* The functions of a shared signature form, declared from the generated operator list
 * (webnn_ops.h, WEBNN_BUILDER_FORMS): adding such an operator is one row of proto/ops.def.
 * Each form's options struct is defined in its family's section below. */
#define WEBNN_DECLARE_BINARY_(c)                                                              \
	WEBNN_EXPORT enum webnn_status webnn_builder_##c(                                    \
		struct webnn_builder *b, struct webnn_operand *a, struct webnn_operand *bb,  \
		struct webnn_operand **out);
#define WEBNN_DECLARE_UNARY_(c)                                                               \
	WEBNN_EXPORT enum webnn_status webnn_builder_##c(                                    \
		struct webnn_builder *b, struct webnn_operand *x, struct webnn_operand **out);
#define WEBNN_DECLARE_UNARY_OPTIONS_(c)                                                       \
	struct webnn_##c##_options;                                                          \
	WEBNN_EXPORT enum webnn_status webnn_builder_##c(                                    \
		struct webnn_builder *b, struct webnn_operand *x,                            \
		const struct webnn_##c##_options *o, struct webnn_operand **out);
#define WEBNN_DECLARE_REDUCE_(c)                                                              \
	struct webnn_reduce_options;                                                         \
	WEBNN_EXPORT enum webnn_status webnn_builder_##c(                                    \
		struct webnn_builder *b, struct webnn_operand *x,                            \
		const struct webnn_reduce_options *o, struct webnn_operand **out);
#define WEBNN_DECLARE_OWN_(c) /* declared in its family's section */
#define WEBNN_DECLARE_FORM_(spec, c, FORM) WEBNN_DECLARE_##FORM##_(c)
WEBNN_BUILDER_FORMS(WEBNN_DECLARE_FORM_)

/* ------------------------------------ elementwise ------------------------------------- */
/* Binary, broadcasting (declared above): add sub mul div max min pow, the comparisons equal ...
 * lesserOrEqual and logicalAnd/Or/Xor (uint8 results). Unary (declared above): abs ...
 * hardSwish, logicalNot, isNaN, isInfinite (uint8 results). Unary with scalar options
 * (declared above; defaults mirror ops.def): */
struct webnn_elu_options { uint32_t struct_size; double alpha; };
#define WEBNN_ELU_OPTIONS_INIT { sizeof(struct webnn_elu_options), 1.0 }
struct webnn_leaky_relu_options { uint32_t struct_size; double alpha; };
#define WEBNN_LEAKY_RELU_OPTIONS_INIT { sizeof(struct webnn_leaky_relu_options), 0.01 }
struct webnn_hard_sigmoid_options { uint32_t struct_size; double alpha, beta; };
#define WEBNN_HARD_SIGMOID_OPTIONS_INIT { sizeof(struct webnn_hard_sigmoid_options), 0.2, 0.5 }
struct webnn_linear_options { uint32_t struct_size; double alpha, beta; };
#define WEBNN_LINEAR_OPTIONS_INIT { sizeof(struct webnn_linear_options), 1.0, 0.0 }

/* clamp: bounds absent by default (has_min/has_max false). min_number/max_number, when their
 * kind is not WEBNN_NUMBER_NONE, replace has_min_value+min_value (has_max_value+max_value) and
 * keep 64-bit bounds exact. */
struct webnn_clamp_options {
	uint32_t struct_size;
	bool has_min_value, has_max_value;
	double min_value, max_value;
	struct webnn_number min_number, max_number;
};
#define WEBNN_CLAMP_OPTIONS_INIT                                                         \
	{ sizeof(struct webnn_clamp_options), false, false, 0, 0, WEBNN_NUMBER_NONE_INIT, \
	  WEBNN_NUMBER_NONE_INIT }
WEBNN_EXPORT enum webnn_status webnn_builder_clamp(struct webnn_builder *b,
						   struct webnn_operand *x,
						   const struct webnn_clamp_options *o,
						   struct webnn_operand **out);

/* -- prelu: slope broadcasts against input. where: elementwise select by condition (uint8). */
WEBNN_EXPORT enum webnn_status webnn_builder_prelu(struct webnn_builder *b,
						   struct webnn_operand *x,
						   struct webnn_operand *slope,
						   struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_where(struct webnn_builder *b,
						   struct webnn_operand *condition,
						   struct webnn_operand *true_value,
						   struct webnn_operand *false_value,
						   struct webnn_operand **out);

/* --------------------------------------- reduce --------------------------------------- */
/* reduceL1 ... reduceSumSquare (declared above) share one options struct. */
struct webnn_reduce_options {
	uint32_t struct_size;
	const uint32_t *axes; /* NULL: every axis; non-NULL with n_axes 0: no axis */
	uint32_t n_axes;
	bool keep_dimensions;
};
#define WEBNN_REDUCE_OPTIONS_INIT { sizeof(struct webnn_reduce_options), NULL, 0, false }

/* -- argMin / argMax: indices of the extreme values along axis. */
struct webnn_arg_min_max_options {
	uint32_t struct_size;
	bool keep_dimensions;
	enum webnn_data_type output_data_type; /* WEBNN_INT32 or WEBNN_INT64 */
};
#define WEBNN_ARG_MIN_MAX_OPTIONS_INIT \
	{ sizeof(struct webnn_arg_min_max_options), false, WEBNN_INT32 }
WEBNN_EXPORT enum webnn_status webnn_builder_arg_min(struct webnn_builder *b,
						     struct webnn_operand *x, uint32_t axis,
						     const struct webnn_arg_min_max_options *o,
						     struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_arg_max(struct webnn_builder *b,
						     struct webnn_operand *x, uint32_t axis,
						     const struct webnn_arg_min_max_options *o,
						     struct webnn_operand **out);

/* -- cumulativeSum along axis. */
struct webnn_cumulative_sum_options {
	uint32_t struct_size;
	bool exclusive;
	bool reversed;
};
#define WEBNN_CUMULATIVE_SUM_OPTIONS_INIT \
	{ sizeof(struct webnn_cumulative_sum_options), false, false }
WEBNN_EXPORT enum webnn_status webnn_builder_cumulative_sum(
	struct webnn_builder *b, struct webnn_operand *x, uint32_t axis,
	const struct webnn_cumulative_sum_options *o, struct webnn_operand **out);

/* ----------------------------------- normalization ------------------------------------ */
/* -- batchNormalization. The epsilon defaults of the normalizations mirror ops.def. */
struct webnn_batch_normalization_options {
	uint32_t struct_size;
	struct webnn_operand *scale; /* NULL: none */
	struct webnn_operand *bias;  /* NULL: none */
	uint32_t axis;
	double epsilon;
};
#define WEBNN_BATCH_NORMALIZATION_OPTIONS_INIT \
	{ sizeof(struct webnn_batch_normalization_options), NULL, NULL, 1, 1e-5 }
WEBNN_EXPORT enum webnn_status webnn_builder_batch_normalization(
	struct webnn_builder *b, struct webnn_operand *input, struct webnn_operand *mean,
	struct webnn_operand *variance, const struct webnn_batch_normalization_options *o,
	struct webnn_operand **out);

/* -- instanceNormalization / layerNormalization. */
struct webnn_instance_normalization_options {
	uint32_t struct_size;
	struct webnn_operand *scale; /* NULL: ones */
	struct webnn_operand *bias;  /* NULL: zeros */
	double epsilon;
	enum webnn_layout layout;
};
#define WEBNN_INSTANCE_NORMALIZATION_OPTIONS_INIT \
	{ sizeof(struct webnn_instance_normalization_options), NULL, NULL, 1e-5, WEBNN_LAYOUT_NCHW }
WEBNN_EXPORT enum webnn_status webnn_builder_instance_normalization(
	struct webnn_builder *b, struct webnn_operand *input,
	const struct webnn_instance_normalization_options *o, struct webnn_operand **out);

struct webnn_layer_normalization_options {
	uint32_t struct_size;
	struct webnn_operand *scale; /* NULL: ones */
	struct webnn_operand *bias;  /* NULL: zeros */
	const uint32_t *axes;        /* NULL: [1, ..., rank - 1]; non-NULL with n_axes 0: [] */
	uint32_t n_axes;
	double epsilon;
};
#define WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT \
	{ sizeof(struct webnn_layer_normalization_options), NULL, NULL, NULL, 0, 1e-5 }
WEBNN_EXPORT enum webnn_status webnn_builder_layer_normalization(
	struct webnn_builder *b, struct webnn_operand *input,
	const struct webnn_layer_normalization_options *o, struct webnn_operand **out);

WEBNN_EXPORT enum webnn_status webnn_builder_softmax(struct webnn_builder *b,
						     struct webnn_operand *x, uint32_t axis,
						     struct webnn_operand **out);

/* ---------------------------------------- conv ---------------------------------------- */
/* -- conv2d. n_padding/n_strides/n_dilations 0: the spec default (zeros, ones, ones). */
struct webnn_conv2d_options {
	uint32_t struct_size;
	uint32_t padding[4];   /* beginning height, ending height, beginning width, ending width */
	uint32_t n_padding;    /* 0 or 4 */
	uint32_t strides[2];
	uint32_t n_strides;    /* 0 or 2 */
	uint32_t dilations[2];
	uint32_t n_dilations;  /* 0 or 2 */
	uint32_t groups;
	enum webnn_layout input_layout;
	enum webnn_conv2d_filter_layout filter_layout;
	struct webnn_operand *bias; /* NULL: none */
};
#define WEBNN_CONV2D_OPTIONS_INIT                                                      \
	{ sizeof(struct webnn_conv2d_options), { 0, 0, 0, 0 }, 0, { 1, 1 }, 0, { 1, 1 }, 0, 1, \
	  WEBNN_LAYOUT_NCHW, WEBNN_FILTER_OIHW, NULL }
WEBNN_EXPORT enum webnn_status webnn_builder_conv2d(struct webnn_builder *b,
						    struct webnn_operand *input,
						    struct webnn_operand *filter,
						    const struct webnn_conv2d_options *o,
						    struct webnn_operand **out);

/* -- convTranspose2d. n_* 0 means the spec default (zeros for padding/outputPadding, ones
 * for strides/dilations, outputSizes computed). */
enum webnn_conv_transpose2d_filter_layout {
	WEBNN_TFILTER_IOHW,
	WEBNN_TFILTER_HWOI,
	WEBNN_TFILTER_OHWI,
};
struct webnn_conv_transpose2d_options {
	uint32_t struct_size;
	uint32_t padding[4];   /* beginning height, ending height, beginning width, ending width */
	uint32_t n_padding;    /* 0 or 4 */
	uint32_t strides[2];
	uint32_t n_strides;    /* 0 or 2 */
	uint32_t dilations[2];
	uint32_t n_dilations;  /* 0 or 2 */
	uint32_t output_padding[2];
	uint32_t n_output_padding; /* 0 or 2 */
	uint32_t output_sizes[2];
	uint32_t n_output_sizes;   /* 0 or 2 */
	uint32_t groups;
	enum webnn_layout input_layout;
	enum webnn_conv_transpose2d_filter_layout filter_layout;
	struct webnn_operand *bias; /* NULL: none */
};
#define WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT                                                  \
	{ sizeof(struct webnn_conv_transpose2d_options), { 0, 0, 0, 0 }, 0, { 1, 1 }, 0,     \
	  { 1, 1 }, 0, { 0, 0 }, 0, { 0, 0 }, 0, 1, WEBNN_LAYOUT_NCHW, WEBNN_TFILTER_IOHW, NULL }
WEBNN_EXPORT enum webnn_status webnn_builder_conv_transpose2d(
	struct webnn_builder *b, struct webnn_operand *input, struct webnn_operand *filter,
	const struct webnn_conv_transpose2d_options *o, struct webnn_operand **out);

/* ---------------------------------------- pool ---------------------------------------- */
/* -- pooling (averagePool2d, l2Pool2d, maxPool2d). n_window 0: the whole spatial size. */
struct webnn_pool2d_options {
	uint32_t struct_size;
	uint32_t window_dimensions[2];
	uint32_t n_window_dimensions; /* 0 or 2 */
	uint32_t padding[4];
	uint32_t n_padding;
	uint32_t strides[2];
	uint32_t n_strides;
	uint32_t dilations[2];
	uint32_t n_dilations;
	enum webnn_layout layout;
	enum webnn_rounding output_shape_rounding;
	uint32_t output_sizes[2];
	uint32_t n_output_sizes; /* 0 or 2: overrides the rounding */
};
#define WEBNN_POOL2D_OPTIONS_INIT                                                            \
	{ sizeof(struct webnn_pool2d_options), { 0, 0 }, 0, { 0, 0, 0, 0 }, 0, { 1, 1 }, 0,  \
	  { 1, 1 }, 0, WEBNN_LAYOUT_NCHW, WEBNN_ROUND_FLOOR, { 0, 0 }, 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_average_pool2d(struct webnn_builder *b,
							    struct webnn_operand *x,
							    const struct webnn_pool2d_options *o,
							    struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_l2_pool2d(struct webnn_builder *b,
						       struct webnn_operand *x,
						       const struct webnn_pool2d_options *o,
						       struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_max_pool2d(struct webnn_builder *b,
							struct webnn_operand *x,
							const struct webnn_pool2d_options *o,
							struct webnn_operand **out);

/* --------------------------------------- linalg --------------------------------------- */
/* -- gemm: alpha * A' * B' + beta * C. The alpha and beta defaults mirror ops.def. */
struct webnn_gemm_options {
	uint32_t struct_size;
	struct webnn_operand *c; /* NULL: none */
	double alpha, beta;
	bool a_transpose, b_transpose;
};
#define WEBNN_GEMM_OPTIONS_INIT { sizeof(struct webnn_gemm_options), NULL, 1.0, 1.0, false, false }
WEBNN_EXPORT enum webnn_status webnn_builder_gemm(struct webnn_builder *b, struct webnn_operand *a,
						  struct webnn_operand *bb,
						  const struct webnn_gemm_options *o,
						  struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_matmul(struct webnn_builder *b,
						    struct webnn_operand *a,
						    struct webnn_operand *bb,
						    struct webnn_operand **out);

/* ---------------------------------------- data ---------------------------------------- */
WEBNN_EXPORT enum webnn_status webnn_builder_reshape(struct webnn_builder *b,
						     struct webnn_operand *x,
						     const uint32_t *new_shape, uint32_t rank,
						     struct webnn_operand **out);
/* permutation NULL: reversed axes. */
WEBNN_EXPORT enum webnn_status webnn_builder_transpose(struct webnn_builder *b,
						       struct webnn_operand *x,
						       const uint32_t *permutation, uint32_t rank,
						       struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_concat(struct webnn_builder *b,
						    struct webnn_operand *const *inputs,
						    size_t n_inputs, uint32_t axis,
						    struct webnn_operand **out);

/* -- expand: broadcast to new_shape. tile: repeat along each axis. */
WEBNN_EXPORT enum webnn_status webnn_builder_expand(struct webnn_builder *b,
						    struct webnn_operand *x,
						    const uint32_t *new_shape, uint32_t rank,
						    struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_tile(struct webnn_builder *b, struct webnn_operand *x,
						  const uint32_t *repetitions, uint32_t rank,
						  struct webnn_operand **out);

/* -- pad: beginning/ending padding per axis (each must have rank values). value is the
 * constant-mode fill; value_number, when its kind is not WEBNN_NUMBER_NONE, replaces it (exact
 * int64/uint64 fills). */
enum webnn_padding_mode { WEBNN_PAD_CONSTANT, WEBNN_PAD_EDGE, WEBNN_PAD_REFLECTION };
struct webnn_pad_options {
	uint32_t struct_size;
	enum webnn_padding_mode mode;
	double value;
	struct webnn_number value_number;
};
#define WEBNN_PAD_OPTIONS_INIT \
	{ sizeof(struct webnn_pad_options), WEBNN_PAD_CONSTANT, 0, WEBNN_NUMBER_NONE_INIT }
WEBNN_EXPORT enum webnn_status webnn_builder_pad(struct webnn_builder *b, struct webnn_operand *x,
						 const uint32_t *beginning_padding,
						 uint32_t n_beginning_padding,
						 const uint32_t *ending_padding,
						 uint32_t n_ending_padding,
						 const struct webnn_pad_options *o,
						 struct webnn_operand **out);

/* -- reverse along axes. */
struct webnn_reverse_options {
	uint32_t struct_size;
	const uint32_t *axes; /* NULL: every axis; non-NULL with n_axes 0: no axis */
	uint32_t n_axes;
};
#define WEBNN_REVERSE_OPTIONS_INIT { sizeof(struct webnn_reverse_options), NULL, 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_reverse(struct webnn_builder *b,
						     struct webnn_operand *x,
						     const struct webnn_reverse_options *o,
						     struct webnn_operand **out);

/* -- slice: starts and sizes must each have rank values. */
struct webnn_slice_options {
	uint32_t struct_size;
	const uint32_t *strides; /* NULL: all ones */
	uint32_t n_strides;
};
#define WEBNN_SLICE_OPTIONS_INIT { sizeof(struct webnn_slice_options), NULL, 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_slice(struct webnn_builder *b,
						   struct webnn_operand *x, const uint32_t *starts,
						   uint32_t n_starts, const uint32_t *sizes,
						   uint32_t n_sizes,
						   const struct webnn_slice_options *o,
						   struct webnn_operand **out);

/* -- split into count equal parts (split) or parts of the given sizes (split_sizes) along
 * axis; the parts go to outs (room for max_outs) and their number to *n_outs. */
struct webnn_split_options {
	uint32_t struct_size;
	uint32_t axis;
};
#define WEBNN_SPLIT_OPTIONS_INIT { sizeof(struct webnn_split_options), 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_split(struct webnn_builder *b,
						   struct webnn_operand *x, uint32_t count,
						   const struct webnn_split_options *o,
						   struct webnn_operand **outs, size_t max_outs,
						   size_t *n_outs);
WEBNN_EXPORT enum webnn_status webnn_builder_split_sizes(struct webnn_builder *b,
							 struct webnn_operand *x,
							 const uint32_t *sizes, uint32_t n_sizes,
							 const struct webnn_split_options *o,
							 struct webnn_operand **outs,
							 size_t max_outs, size_t *n_outs);

/* -- triangular: keeps the upper (or lower) triangle of the last two dimensions. */
struct webnn_triangular_options {
	uint32_t struct_size;
	bool upper;
	int32_t diagonal;
};
#define WEBNN_TRIANGULAR_OPTIONS_INIT { sizeof(struct webnn_triangular_options), true, 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_triangular(struct webnn_builder *b,
							struct webnn_operand *x,
							const struct webnn_triangular_options *o,
							struct webnn_operand **out);

/* --------------------------------------- gather --------------------------------------- */
/* -- gather / gatherElements (axis option), gatherND. */
struct webnn_gather_options {
	uint32_t struct_size;
	uint32_t axis;
};
#define WEBNN_GATHER_OPTIONS_INIT { sizeof(struct webnn_gather_options), 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_gather(struct webnn_builder *b,
						    struct webnn_operand *x,
						    struct webnn_operand *indices,
						    const struct webnn_gather_options *o,
						    struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_gather_elements(struct webnn_builder *b,
							     struct webnn_operand *x,
							     struct webnn_operand *indices,
							     const struct webnn_gather_options *o,
							     struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_gather_nd(struct webnn_builder *b,
						       struct webnn_operand *x,
						       struct webnn_operand *indices,
						       struct webnn_operand **out);

/* -- scatterElements (axis option), scatterND. */
struct webnn_scatter_options {
	uint32_t struct_size;
	uint32_t axis;
};
#define WEBNN_SCATTER_OPTIONS_INIT { sizeof(struct webnn_scatter_options), 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_scatter_elements(
	struct webnn_builder *b, struct webnn_operand *x, struct webnn_operand *indices,
	struct webnn_operand *updates, const struct webnn_scatter_options *o,
	struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_scatter_nd(struct webnn_builder *b,
							struct webnn_operand *x,
							struct webnn_operand *indices,
							struct webnn_operand *updates,
							struct webnn_operand **out);

/* ---------------------------------------- cast ---------------------------------------- */
/* -- cast to another data type. */
WEBNN_EXPORT enum webnn_status webnn_builder_cast(struct webnn_builder *b,
						  struct webnn_operand *x,
						  enum webnn_data_type type,
						  struct webnn_operand **out);

/* -- quantizeLinear / dequantizeLinear: the output type is zero_point's (quantize) or
 * scale's (dequantize). */
WEBNN_EXPORT enum webnn_status webnn_builder_quantize_linear(struct webnn_builder *b,
							     struct webnn_operand *x,
							     struct webnn_operand *scale,
							     struct webnn_operand *zero_point,
							     struct webnn_operand **out);
WEBNN_EXPORT enum webnn_status webnn_builder_dequantize_linear(struct webnn_builder *b,
							       struct webnn_operand *x,
							       struct webnn_operand *scale,
							       struct webnn_operand *zero_point,
							       struct webnn_operand **out);

/* ---------------------------------------- rnn ----------------------------------------- */
/* -- recurrent networks. Operators returning a sequence write their results to outs (room for
 * max_outs operands) in the spec's order and their count to *n_outs: gru [output, sequence when
 * return_sequence], lstm [output, cell state, sequence when return_sequence], lstmCell
 * [output, cell state]. n_activations 0 means the spec's default activations. */
enum webnn_recurrent_activation {
	WEBNN_ACTIVATION_RELU,
	WEBNN_ACTIVATION_SIGMOID,
	WEBNN_ACTIVATION_TANH,
};
enum webnn_recurrent_direction {
	WEBNN_DIRECTION_FORWARD,
	WEBNN_DIRECTION_BACKWARD,
	WEBNN_DIRECTION_BOTH,
};
enum webnn_gru_weight_layout { WEBNN_GRU_LAYOUT_ZRN, WEBNN_GRU_LAYOUT_RZN };
enum webnn_lstm_weight_layout { WEBNN_LSTM_LAYOUT_IOFG, WEBNN_LSTM_LAYOUT_IFGO };

struct webnn_gru_options {
	uint32_t struct_size;
	struct webnn_operand *bias;                 /* NULL: none */
	struct webnn_operand *recurrent_bias;       /* NULL: none */
	struct webnn_operand *initial_hidden_state; /* NULL: zeros */
	bool reset_after;
	bool return_sequence;
	enum webnn_recurrent_direction direction;
	enum webnn_gru_weight_layout layout;
	enum webnn_recurrent_activation activations[2];
	uint32_t n_activations; /* 0 ([sigmoid, tanh]) or 2 */
};
#define WEBNN_GRU_OPTIONS_INIT                                                           \
	{ sizeof(struct webnn_gru_options), NULL, NULL, NULL, true, false,               \
	  WEBNN_DIRECTION_FORWARD, WEBNN_GRU_LAYOUT_ZRN,                                 \
	  { WEBNN_ACTIVATION_SIGMOID, WEBNN_ACTIVATION_TANH }, 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_gru(
	struct webnn_builder *b, struct webnn_operand *input, struct webnn_operand *weight,
	struct webnn_operand *recurrent_weight, uint32_t steps, uint32_t hidden_size,
	const struct webnn_gru_options *o, struct webnn_operand **outs, size_t max_outs,
	size_t *n_outs);

struct webnn_gru_cell_options {
	uint32_t struct_size;
	struct webnn_operand *bias;           /* NULL: none */
	struct webnn_operand *recurrent_bias; /* NULL: none */
	bool reset_after;
	enum webnn_gru_weight_layout layout;
	enum webnn_recurrent_activation activations[2];
	uint32_t n_activations; /* 0 ([sigmoid, tanh]) or 2 */
};
#define WEBNN_GRU_CELL_OPTIONS_INIT                                                      \
	{ sizeof(struct webnn_gru_cell_options), NULL, NULL, true, WEBNN_GRU_LAYOUT_ZRN,   \
	  { WEBNN_ACTIVATION_SIGMOID, WEBNN_ACTIVATION_TANH }, 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_gru_cell(
	struct webnn_builder *b, struct webnn_operand *input, struct webnn_operand *weight,
	struct webnn_operand *recurrent_weight, struct webnn_operand *hidden_state,
	uint32_t hidden_size, const struct webnn_gru_cell_options *o, struct webnn_operand **out);

struct webnn_lstm_options {
	uint32_t struct_size;
	struct webnn_operand *bias;                 /* NULL: none */
	struct webnn_operand *recurrent_bias;       /* NULL: none */
	struct webnn_operand *peephole_weight;      /* NULL: none */
	struct webnn_operand *initial_hidden_state; /* NULL: zeros */
	struct webnn_operand *initial_cell_state;   /* NULL: zeros */
	bool return_sequence;
	enum webnn_recurrent_direction direction;
	enum webnn_lstm_weight_layout layout;
	enum webnn_recurrent_activation activations[3];
	uint32_t n_activations; /* 0 ([sigmoid, tanh, tanh]) or 3 */
};
#define WEBNN_LSTM_OPTIONS_INIT                                                          \
	{ sizeof(struct webnn_lstm_options), NULL, NULL, NULL, NULL, NULL, false,        \
	  WEBNN_DIRECTION_FORWARD, WEBNN_LSTM_LAYOUT_IOFG,                               \
	  { WEBNN_ACTIVATION_SIGMOID, WEBNN_ACTIVATION_TANH, WEBNN_ACTIVATION_TANH }, 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_lstm(
	struct webnn_builder *b, struct webnn_operand *input, struct webnn_operand *weight,
	struct webnn_operand *recurrent_weight, uint32_t steps, uint32_t hidden_size,
	const struct webnn_lstm_options *o, struct webnn_operand **outs, size_t max_outs,
	size_t *n_outs);

struct webnn_lstm_cell_options {
	uint32_t struct_size;
	struct webnn_operand *bias;            /* NULL: none */
	struct webnn_operand *recurrent_bias;  /* NULL: none */
	struct webnn_operand *peephole_weight; /* NULL: none */
	enum webnn_lstm_weight_layout layout;
	enum webnn_recurrent_activation activations[3];
	uint32_t n_activations; /* 0 ([sigmoid, tanh, tanh]) or 3 */
};
#define WEBNN_LSTM_CELL_OPTIONS_INIT                                                     \
	{ sizeof(struct webnn_lstm_cell_options), NULL, NULL, NULL, WEBNN_LSTM_LAYOUT_IOFG, \
	  { WEBNN_ACTIVATION_SIGMOID, WEBNN_ACTIVATION_TANH, WEBNN_ACTIVATION_TANH }, 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_lstm_cell(
	struct webnn_builder *b, struct webnn_operand *input, struct webnn_operand *weight,
	struct webnn_operand *recurrent_weight, struct webnn_operand *hidden_state,
	struct webnn_operand *cell_state, uint32_t hidden_size,
	const struct webnn_lstm_cell_options *o, struct webnn_operand **outs, size_t max_outs,
	size_t *n_outs);

/* -------------------------------------- resample -------------------------------------- */
/* -- resample2d. n_scales/n_sizes/n_axes 0: scales [1, 1], no sizes, axes [2, 3]. */
enum webnn_interpolation_mode { WEBNN_INTERPOLATION_NEAREST_NEIGHBOR, WEBNN_INTERPOLATION_LINEAR };
struct webnn_resample2d_options {
	uint32_t struct_size;
	enum webnn_interpolation_mode mode;
	float scales[2];
	uint32_t n_scales; /* 0 or 2 */
	uint32_t sizes[2];
	uint32_t n_sizes;  /* 0 or 2: overrides scales */
	uint32_t axes[2];
	uint32_t n_axes;   /* 0 or 2 */
};
#define WEBNN_RESAMPLE2D_OPTIONS_INIT                                                   \
	{ sizeof(struct webnn_resample2d_options), WEBNN_INTERPOLATION_NEAREST_NEIGHBOR, \
	  { 1.0f, 1.0f }, 0, { 0, 0 }, 0, { 2, 3 }, 0 }
WEBNN_EXPORT enum webnn_status webnn_builder_resample2d(struct webnn_builder *b,
							struct webnn_operand *x,
							const struct webnn_resample2d_options *o,
							struct webnn_operand **out);

/* ------------------------------- operator tables -------------------------------------- */
/* The function types of the builder's shared signatures and one member per type, for programs
 * that keep a table of operators (bindings, tools): a row of WEBNN_OPERATORS fills the member
 * of its form with webnn_builder_<c_name>. */
typedef enum webnn_status (*webnn_builder_unary_fn)(struct webnn_builder *, struct webnn_operand *,
				      struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_binary_fn)(struct webnn_builder *, struct webnn_operand *,
				       struct webnn_operand *, struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_ternary_fn)(struct webnn_builder *, struct webnn_operand *,
					struct webnn_operand *, struct webnn_operand *,
					struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_shape_fn)(struct webnn_builder *, struct webnn_operand *,
				      const uint32_t *, uint32_t, struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_pool_fn)(struct webnn_builder *, struct webnn_operand *,
				     const struct webnn_pool2d_options *, struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_reduce_fn)(struct webnn_builder *, struct webnn_operand *,
				       const struct webnn_reduce_options *,
				       struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_arg_min_max_fn)(struct webnn_builder *, struct webnn_operand *,
					    uint32_t, const struct webnn_arg_min_max_options *,
					    struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_gather_fn)(struct webnn_builder *, struct webnn_operand *,
				       struct webnn_operand *, const struct webnn_gather_options *,
				       struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_scatter_fn)(struct webnn_builder *, struct webnn_operand *,
					struct webnn_operand *, struct webnn_operand *,
					const struct webnn_scatter_options *,
					struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_elu_fn)(struct webnn_builder *, struct webnn_operand *,
				    const struct webnn_elu_options *, struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_leaky_relu_fn)(struct webnn_builder *, struct webnn_operand *,
					   const struct webnn_leaky_relu_options *,
					   struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_hard_sigmoid_fn)(struct webnn_builder *, struct webnn_operand *,
					     const struct webnn_hard_sigmoid_options *,
					     struct webnn_operand **);
typedef enum webnn_status (*webnn_builder_linear_fn)(struct webnn_builder *, struct webnn_operand *,
				       const struct webnn_linear_options *,
				       struct webnn_operand **);
struct webnn_builder_fns {
	webnn_builder_unary_fn unary;
	webnn_builder_binary_fn binary;
	webnn_builder_ternary_fn ternary;
	webnn_builder_shape_fn shape;
	webnn_builder_pool_fn pool;
	webnn_builder_reduce_fn reduce;
	webnn_builder_arg_min_max_fn arg_min_max;
	webnn_builder_gather_fn gather;
	webnn_builder_scatter_fn scatter;
	webnn_builder_elu_fn elu;
	webnn_builder_leaky_relu_fn leaky_relu;
	webnn_builder_hard_sigmoid_fn hard_sigmoid;
	webnn_builder_linear_fn linear;
};

/* The initializer of struct webnn_builder_fns for the operator webnn_builder_<c>: the member of
 * its form set, the others NULL (C11 _Generic, so the compiler checks every signature). */
#define WEBNN_BUILDER_FN_IF_(T, c) _Generic(&webnn_builder_##c, T: webnn_builder_##c, default: (T)0)
#define WEBNN_BUILDER_FNS(c) \
	{ WEBNN_BUILDER_FN_IF_(webnn_builder_unary_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_binary_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_ternary_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_shape_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_pool_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_reduce_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_arg_min_max_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_gather_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_scatter_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_elu_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_leaky_relu_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_hard_sigmoid_fn, c), \
	  WEBNN_BUILDER_FN_IF_(webnn_builder_linear_fn, c) }

/* --------------------------------------- build ---------------------------------------- */
/* -- build(): compiles the graph that computes the named outputs. Blocking. Afterwards the
 * builder accepts no more operations (WEBNN_STATUS_INVALID_STATE). */
struct webnn_named_operand {
	const char *name;
	struct webnn_operand *operand;
};
WEBNN_EXPORT enum webnn_status webnn_builder_build(struct webnn_builder *b,
						   const struct webnn_named_operand *outputs,
						   size_t n_outputs, struct webnn_graph **out);
/* build() without blocking, for event loops (see webnn_context_read_tensor_async): validates,
 * uploads the constants and sends the graph before it returns (the builder is spent from then
 * on); cb runs once, unlocked, from the libwebnn call that receives the daemon's reply, with OK
 * and the graph (the caller's to destroy), or with the error, its message and NULL
 * (WEBNN_STATUS_CONTEXT_LOST when the context is lost or destroyed first). A call that fails at
 * once returns the error and never runs cb. */
typedef void (*webnn_graph_cb)(void *user_data, enum webnn_status status, const char *message,
			       struct webnn_graph *graph);
WEBNN_EXPORT enum webnn_status webnn_builder_build_async(struct webnn_builder *b,
							 const struct webnn_named_operand *outputs,
							 size_t n_outputs, webnn_graph_cb cb,
							 void *user_data);

/* ======================================= graphs =========================================== */

/* Graph inputs and outputs by position, as the graph expects them in dispatch. */
WEBNN_EXPORT size_t webnn_graph_input_count(const struct webnn_graph *g);
WEBNN_EXPORT size_t webnn_graph_output_count(const struct webnn_graph *g);
WEBNN_EXPORT const char *webnn_graph_input_name(const struct webnn_graph *g, size_t i,
						struct webnn_operand_desc *desc);
WEBNN_EXPORT const char *webnn_graph_output_name(const struct webnn_graph *g, size_t i,
						 struct webnn_operand_desc *desc);
/* Milliseconds the daemon spent validating and compiling the graph. */
WEBNN_EXPORT double webnn_graph_compile_ms(const struct webnn_graph *g);
/* What webnnd made of a graph at build: its graph passes (constant folding, dead-code removal,
 * layout, fusion, concat in place) and its memory plan. */
struct webnn_graph_stats {
	uint32_t struct_size;        /* sizeof(struct webnn_graph_stats), set by the caller */
	double compile_ms;           /* as webnn_graph_compile_ms */
	uint64_t intermediate_bytes; /* device memory the plan reserves for intermediates (peak);
					charged to the connection's quota */
	uint64_t unplanned_bytes;    /* the same intermediates without buffer reuse */
	uint64_t folded_bytes;       /* constants made at build time (folding, layout) */
	uint32_t operations;         /* operations as built */
	uint32_t kernels;            /* operations the backend runs, fused groups counted once */
	uint32_t folded;             /* evaluated at build time */
	uint32_t fused;              /* computed inside another operation's kernel */
	uint32_t removed;            /* nothing reads their results */
};
#define WEBNN_GRAPH_STATS_INIT { .struct_size = sizeof(struct webnn_graph_stats) }
WEBNN_EXPORT enum webnn_status webnn_graph_get_stats(const struct webnn_graph *g,
						     struct webnn_graph_stats *out);
/* The operations the graph was built with (those an output depends on), by type: the i-th type
 * present (in the operator table's order) as its spec name ("conv2d") and count; false past
 * the last. What the daemon then folds or fuses is in webnn_graph_get_stats. */
WEBNN_EXPORT bool webnn_graph_operation_type(const struct webnn_graph *g, size_t i,
					     const char **name, uint32_t *count);
/* MLGraph.destroy(). NULL: no-op. */
WEBNN_EXPORT void webnn_graph_destroy(struct webnn_graph *g);

/* The graph cache (the WebNN MLGraph caching explainer's saveGraph/loadGraph): a built graph
 * saved under a key in this user's store in webnnd (its constants included), and loaded by any
 * later context of the same user, in this process or another, without building it or sending
 * its constants again. A key is 1 to 128 characters of letters, digits, '.', '_' and '-', not
 * starting with '.' (TYPE_ERROR otherwise); saving under a key replaces its entry. Entries are
 * per user (another user never sees them), checked against the hash of their contents when
 * loaded (a damaged entry is DATA_ERROR and removed), dropped when the daemon, backend or device
 * changes, and evicted least recently used first past the daemon's max_graph_cache_bytes.
 * Blocking. */
WEBNN_EXPORT enum webnn_status webnn_context_save_graph(struct webnn_context *ctx,
							const char *key,
							const struct webnn_graph *graph);
/* OK with *out the loaded graph (as webnn_builder_build's, ready to dispatch), or OK with *out
 * NULL when the store has no entry under key (build the graph, and save it). */
WEBNN_EXPORT enum webnn_status webnn_context_load_graph(struct webnn_context *ctx,
							const char *key,
							struct webnn_graph **out);

/* MLContext.dispatch(): fire-and-forget; inputs/outputs must name exactly the graph's inputs and
 * outputs with tensors of matching descriptors (checked here and again in the daemon). */
struct webnn_named_tensor {
	const char *name;
	struct webnn_tensor *tensor;
};
WEBNN_EXPORT enum webnn_status webnn_context_dispatch(struct webnn_context *ctx,
						      struct webnn_graph *graph,
						      const struct webnn_named_tensor *inputs,
						      size_t n_inputs,
						      const struct webnn_named_tensor *outputs,
						      size_t n_outputs);

#ifdef __cplusplus
}
#endif
#endif
