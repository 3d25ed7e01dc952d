/* Private contract shared by libwebnn and webnnd: op table, descriptors, diagnostics, validation. */
#ifndef WNN_H
#define WNN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "webnn_types.h"       /* enum webnn_status, webnn_layout, webnn_power_preference */

#define WNN_PROTOCOL_MAJOR 1
#define WNN_PROTOCOL_MINOR 4 /* 1.3: int4/uint4; tensors in shared memory (CreateTensor.storage);
				1.4: SaveGraph/LoadGraph (the graph cache) */

#define WNN_MAX_RANK 8          /* ranks above this are rejected everywhere */
#define WNN_MAX_OUTPUTS 64      /* split/gru/lstm outputs of one operation */
#define WNN_MAX_DIAG 320

/* ---- data types: values equal Webnn__Ipc__DataType and enum webnn_data_type. */
enum wnn_dtype {
	WNN_DT_NONE = 0,
	WNN_F32 = 1,
	WNN_F16 = 2,
	WNN_I32 = 3,
	WNN_U32 = 4,
	WNN_I64 = 5,
	WNN_U64 = 6,
	WNN_I8 = 7,
	WNN_U8 = 8,
	WNN_I4 = 9,     /* extension (not in the spec text; WPT and Chromium have it): packed */
	WNN_U4 = 10,    /* two per byte, see wnn_nibble_get */
	WNN_DT_COUNT
};
#define WNN_DT_BIT(t) (1u << (t))
#define WNN_DT_FLOAT (WNN_DT_BIT(WNN_F32) | WNN_DT_BIT(WNN_F16))
#define WNN_DT_SIGNED (WNN_DT_FLOAT | WNN_DT_BIT(WNN_I32) | WNN_DT_BIT(WNN_I64) | WNN_DT_BIT(WNN_I8))
#define WNN_DT_NUMERIC (WNN_DT_FLOAT | WNN_DT_BIT(WNN_I32) | WNN_DT_BIT(WNN_U32) | \
			WNN_DT_BIT(WNN_I64) | WNN_DT_BIT(WNN_U64))
#define WNN_DT_INT4 (WNN_DT_BIT(WNN_I4) | WNN_DT_BIT(WNN_U4))
#define WNN_DT_QUANT (WNN_DT_BIT(WNN_I8) | WNN_DT_BIT(WNN_U8) | WNN_DT_BIT(WNN_I32) | WNN_DT_INT4)
#define WNN_DT_U8 WNN_DT_BIT(WNN_U8)
/* Every whole-byte type. The packed 4-bit types are left out on purpose: only the roles that
 * name them (quantizeLinear's zeroPoint/output, dequantizeLinear's input/zeroPoint) take them. */
#define WNN_DT_ALL 0x1feu
#define WNN_DT_ANY (WNN_DT_ALL | WNN_DT_INT4)

/* Bytes per element of a whole-byte type; 0 for WNN_DT_NONE, out of range, and the packed 4-bit
 * types (whose byte length is wnn_dtype_bytes, never count * size). */
size_t wnn_dtype_size(enum wnn_dtype t);
bool wnn_dtype_valid(enum wnn_dtype t);           /* a known type, 4-bit ones included */
bool wnn_dtype_is_4bit(enum wnn_dtype t);
/* Byte length of count elements: count * size, or ceil(count / 2) for int4/uint4; false when
 * the type is unknown or the length overflows int64. */
bool wnn_dtype_bytes(enum wnn_dtype t, uint64_t count, uint64_t *bytes);
/* Packed 4-bit elements: element i in bits (i & 1) * 4 of byte i / 2, the first in the low
 * nibble; an odd count leaves the last high nibble 0. int4 is sign-extended from bit 3. */
static inline int32_t wnn_nibble_get(const uint8_t *p, uint64_t i, enum wnn_dtype t)
{
	uint32_t v = (p[i >> 1] >> ((i & 1) * 4)) & 0xfu;
	return t == WNN_I4 ? (int32_t)(v ^ 8u) - 8 : (int32_t)v;
}
/* Writes the low 4 bits of v; the other nibble of the byte is kept. */
static inline void wnn_nibble_set(uint8_t *p, uint64_t i, int64_t v)
{
	unsigned sh = (unsigned)(i & 1) * 4;
	p[i >> 1] = (uint8_t)((p[i >> 1] & ~(0xfu << sh)) | (((uint64_t)v & 0xfu) << sh));
}
const char *wnn_dtype_name(enum wnn_dtype t);     /* "float32", ...; "invalid" when unknown */

struct wnn_diag;

/* The wire messages some functions here read (proto/webnn.proto, generated into build/gen):
 * declared, not included, so that what only needs the types above never sees protobuf. */
struct Webnn__Ipc__OperandDescriptor;
struct Webnn__Ipc__Operation;
struct Webnn__Ipc__GraphInfo;
struct Webnn__Ipc__Number;

/* ---- operand descriptors. type == WNN_DT_NONE means "not defined (yet)". */
struct wnn_desc {
	enum wnn_dtype type;
	uint32_t rank;
	uint32_t dims[WNN_MAX_RANK];
};

/* Element count; false when a dimension is 0 or the count/byte size overflows int64 range. */
bool wnn_desc_count(const struct wnn_desc *d, uint64_t *count);
bool wnn_desc_bytes(const struct wnn_desc *d, uint64_t *bytes);
bool wnn_desc_equal(const struct wnn_desc *a, const struct wnn_desc *b);
/* "float32 [1, 3, 224, 224]" into buf; returns buf. */
const char *wnn_desc_str(const struct wnn_desc *d, char *buf, size_t len);
/* Spec "valid descriptor": known type, rank <= WNN_MAX_RANK, every dim valid, count and byte
 * length valid dimensions. On failure fills diag (TYPE_ERROR) naming what, and returns false. */
bool wnn_desc_validate(const struct wnn_desc *d, const char *what, struct wnn_diag *diag);
/* Protocol descriptor conversions; from_pb validates and fills diag. */
bool wnn_desc_from_pb(const struct Webnn__Ipc__OperandDescriptor *pb, struct wnn_desc *d,
		      const char *what, struct wnn_diag *diag);
/* Fills a caller-provided pb descriptor; dims points into d (no allocation). */
void wnn_desc_to_pb(const struct wnn_desc *d, struct Webnn__Ipc__OperandDescriptor *pb);

/* ---- diagnostics: the first error wins; messages read "conv2d: filter rank is 3, expected 4". */
struct wnn_diag {
	enum webnn_status status;
	char message[WNN_MAX_DIAG];
};
/* Records status + formatted message unless an error is already recorded; returns status. */
enum webnn_status wnn_diag_set(struct wnn_diag *diag, enum webnn_status status,
			       const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void wnn_diag_clear(struct wnn_diag *diag);

/* ---- the operator table (proto/ops.def) */
enum wnn_op_out { WNN_OUT_SAME, WNN_OUT_U8, WNN_OUT_SPECIAL };

enum wnn_op {
#define X(ENUM, name, id, FAMILY, ATTRS, DTYPES, OUT, DEFAULTS, FEXPR, IEXPR) WNN_OP_##ENUM,
#include "proto/ops.def"
#undef X
	WNN_OP_COUNT
};

/* Operator families: the one axis along which every layer's code is split (ops.def FAMILY). */
#define WNN_FAMILIES(F)                                                                        \
	F(ELEMENTWISE, elementwise) F(REDUCE, reduce) F(NORMALIZATION, normalization)          \
	F(CONV, conv) F(POOL, pool) F(LINALG, linalg) F(DATA, data) F(GATHER, gather)          \
	F(CAST, cast) F(RNN, rnn) F(RESAMPLE, resample)
enum wnn_family {
#define WNN_FAMILY_ENUM_(E, n) WNN_FAMILY_##E,
	WNN_FAMILIES(WNN_FAMILY_ENUM_)
#undef WNN_FAMILY_ENUM_
	WNN_FAMILY_COUNT
};
/* "elementwise", ...: the suffix of the family's file names. */
const char *wnn_family_name(enum wnn_family f);

/* The Operation.attrs member that carries an operator's operands and options (ops.def ATTRS).
 * Values equal Webnn__Ipc__Operation__AttrsCase (checked at compile time in proto/ops.c), so
 * code that never sees protobuf (backends, the IR) can switch on them. */
#include "proto/attrs_kinds.h" /* WNN_ATTRS_KINDS, generated from webnn.proto */
enum wnn_attrs_kind {
#define WNN_ATTRS_ENUM_(A, v, name) WNN_ATTRS_##A = v,
	WNN_ATTRS_KINDS(WNN_ATTRS_ENUM_)
#undef WNN_ATTRS_ENUM_
};

/* Spec defaults of scalar options (ops.def DEFAULTS); 0 where an operator has no such option.
 * min_value/max_value are clamp's bounds (-Infinity/+Infinity, saturated to integer types). */
struct wnn_op_defaults {
	double alpha, beta, epsilon;
	double min_value, max_value;
};

struct wnn_op_info {
	const char *name;   /* spec method name */
	uint32_t id;        /* wire id */
	enum wnn_family family;
	enum wnn_attrs_kind attrs; /* the Operation.attrs member */
	uint32_t dtypes;    /* allowed types of the first input */
	enum wnn_op_out out;
	struct wnn_op_defaults defaults;
	bool has_float_expr;
	bool has_int_expr;
};
extern const struct wnn_op_info wnn_ops[WNN_OP_COUNT];

/* Lookups; return WNN_OP_COUNT when unknown. */
enum wnn_op wnn_op_from_id(uint32_t wire_id);
enum wnn_op wnn_op_from_name(const char *name);

/* ---- graph structure helpers (pure; no allocation) */

/* The operand ids an operation reads (positional and optional, in a fixed per-family order) and
 * writes. Return the count written; at most max entries (returns -1 if more were needed or the
 * attrs member is missing). Role names (for messages/limits) go to roles[] when not NULL. */
int wnn_op_inputs(const struct Webnn__Ipc__Operation *op, uint32_t *ids, const char **roles, int max);
int wnn_op_outputs(const struct Webnn__Ipc__Operation *op, uint32_t *ids, int max);

/* Validates one operation exactly as the spec's builder algorithm does and infers its outputs.
 * operands[i] are the descriptors of operand id i (type WNN_DT_NONE: not defined yet, an error
 * to use). scalars[i], when not NULL, gives values of scalar constants (unused today).
 * Checks: the attrs member matches the op's family, every referenced id is < n_operands and
 * defined, data types, ranks, shapes, options. Writes the output descriptors in the order of
 * wnn_op_outputs() into outs and their count into *n_outs. */
enum webnn_status wnn_op_infer(const struct Webnn__Ipc__Operation *op, const struct wnn_desc *operands,
			       size_t n_operands, struct wnn_desc *outs, int max_outs,
			       int *n_outs, struct wnn_diag *diag);

/* wnn_op_infer, then each computed output must equal declared[i] (the graph's declared
 * descriptors, in the order of wnn_op_outputs()): "<op>: output (operand N) is <declared>,
 * expected <computed>" otherwise. The same resolver as wnn_resolve() runs. */
enum webnn_status wnn_op_check(const struct Webnn__Ipc__Operation *op, const struct wnn_desc *operands,
			       size_t n_operands, const struct wnn_desc *declared,
			       struct wnn_desc *outs, int max_outs, int *n_outs,
			       struct wnn_diag *diag);

/* Validates a whole GraphInfo as the daemon receives it: operand descriptors valid, kinds
 * consistent (inputs named uniquely, constants with ids, outputs produced exactly once by an
 * earlier-listed operation, topological order), each operation through wnn_op_check with the
 * recomputed output descriptors equal to the declared ones, graph outputs named uniquely and
 * not inputs/constants, at least one output. descs must have room for graph->n_operands. */
enum webnn_status wnn_graph_validate(const struct Webnn__Ipc__GraphInfo *graph, struct wnn_desc *descs,
				     struct wnn_diag *diag);

/* Spec tensor limits (MLTensorLimits) of every operand role of an operator, in the order of the
 * spec's MLxxxSupportLimits dictionary, outputs last ("output", or "outputs"/"output0".. for
 * multi-output ops): fn(ud, role, data type mask, min rank, max rank). */
typedef void (*wnn_role_fn)(void *ud, const char *role, uint32_t dtypes, uint32_t min_rank,
			    uint32_t max_rank);
void wnn_op_roles(enum wnn_op op, wnn_role_fn fn, void *ud);

/* MLNumber conversions. wnn_number_to_bytes writes one element of type t (saturating for
 * integers, NaN -> 0; float16 rounded to nearest even; int4/uint4: one byte, the value in its
 * low nibble). An absent number (NULL or no value) converts as 0. wnn_number_to_double gives the value as a double (bigints rounded). */
void wnn_number_to_bytes(const struct Webnn__Ipc__Number *n, enum wnn_dtype t, void *out);
double wnn_number_to_double(const struct Webnn__Ipc__Number *n);

/* ---- float16 helpers (round to nearest even; NaN stays NaN) */
uint16_t wnn_f32_to_f16(float f);
float wnn_f16_to_f32(uint16_t h);

#endif
