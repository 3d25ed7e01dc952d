/* Expands proto/ops.def into the op info table, plus data type, descriptor and diag helpers. */
#include "proto/wnn.h"
#include "proto/webnn.pb-c.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define WNN_OUT_SPECIAL_ WNN_OUT_SPECIAL
const struct wnn_op_info wnn_ops[WNN_OP_COUNT] = {
#define WNN_UNPAREN_(...) __VA_ARGS__
#define X(ENUM, name_, id_, FAMILY, ATTRS, DTYPES, OUT, DEFAULTS, FEXPR, IEXPR)                 \
	[WNN_OP_##ENUM] = { .name = #name_, .id = id_, .family = WNN_FAMILY_##FAMILY,          \
			    .attrs = WNN_ATTRS_##ATTRS, .dtypes = DTYPES,    \
			    .out = WNN_OUT_##OUT, .defaults = { WNN_UNPAREN_ DEFAULTS },         \
			    .has_float_expr = sizeof(#FEXPR) > 2,                               \
			    .has_int_expr = sizeof(#IEXPR) > 2 },
#include "proto/ops.def"
#undef X
#undef WNN_UNPAREN_
};

#define WNN_ATTRS_WIRE_(A, v, name)                                                                   \
	_Static_assert((int)WNN_ATTRS_##A == (int)WEBNN__IPC__OPERATION__ATTRS_##A,         \
		       "enum wnn_attrs_kind must equal the wire's attrs case");
WNN_ATTRS_KINDS(WNN_ATTRS_WIRE_)
#undef WNN_ATTRS_WIRE_

const char *wnn_family_name(enum wnn_family f)
{
	static const char *const names[WNN_FAMILY_COUNT] = {
#define WNN_FAMILY_NAME_(E, n) [WNN_FAMILY_##E] = #n,
		WNN_FAMILIES(WNN_FAMILY_NAME_)
#undef WNN_FAMILY_NAME_
	};
	return (unsigned)f < WNN_FAMILY_COUNT ? names[f] : "invalid";
}

enum wnn_op wnn_op_from_id(uint32_t wire_id)
{
	for (int i = 0; i < WNN_OP_COUNT; i++)
		if (wnn_ops[i].id == wire_id)
			return (enum wnn_op)i;
	return WNN_OP_COUNT;
}

enum wnn_op wnn_op_from_name(const char *name)
{
	for (int i = 0; name && i < WNN_OP_COUNT; i++)
		if (strcmp(wnn_ops[i].name, name) == 0)
			return (enum wnn_op)i;
	return WNN_OP_COUNT;
}

static const struct {
	const char *name;
	size_t size;
} dtypes[WNN_DT_COUNT] = {
	[WNN_F32] = { "float32", 4 }, [WNN_F16] = { "float16", 2 }, [WNN_I32] = { "int32", 4 },
	[WNN_U32] = { "uint32", 4 },  [WNN_I64] = { "int64", 8 },   [WNN_U64] = { "uint64", 8 },
	[WNN_I8] = { "int8", 1 },     [WNN_U8] = { "uint8", 1 },
	[WNN_I4] = { "int4", 0 },     [WNN_U4] = { "uint4", 0 },
};

size_t wnn_dtype_size(enum wnn_dtype t)
{
	return (t > WNN_DT_NONE && t < WNN_DT_COUNT) ? dtypes[t].size : 0;
}

bool wnn_dtype_valid(enum wnn_dtype t)
{
	return t > WNN_DT_NONE && t < WNN_DT_COUNT;
}

bool wnn_dtype_is_4bit(enum wnn_dtype t)
{
	return t == WNN_I4 || t == WNN_U4;
}

bool wnn_dtype_bytes(enum wnn_dtype t, uint64_t count, uint64_t *bytes)
{
	if (wnn_dtype_is_4bit(t)) {
		if (count > (uint64_t)INT64_MAX)
			return false;
		*bytes = count / 2 + (count & 1);
		return true;
	}
	size_t es = wnn_dtype_size(t);
	if (!es || count > (uint64_t)INT64_MAX / es)
		return false;
	*bytes = count * es;
	return true;
}

const char *wnn_dtype_name(enum wnn_dtype t)
{
	return (t > WNN_DT_NONE && t < WNN_DT_COUNT) ? dtypes[t].name : "invalid";
}

bool wnn_desc_count(const struct wnn_desc *d, uint64_t *count)
{
	uint64_t n = 1;
	if (d->rank > WNN_MAX_RANK)
		return false;
	for (uint32_t i = 0; i < d->rank; i++) {
		if (d->dims[i] == 0 || n > (uint64_t)INT64_MAX / d->dims[i])
			return false;
		n *= d->dims[i];
	}
	*count = n;
	return true;
}

bool wnn_desc_bytes(const struct wnn_desc *d, uint64_t *bytes)
{
	uint64_t n;
	return wnn_desc_count(d, &n) && wnn_dtype_bytes(d->type, n, bytes);
}

bool wnn_desc_equal(const struct wnn_desc *a, const struct wnn_desc *b)
{
	if (a->type != b->type || a->rank != b->rank || a->rank > WNN_MAX_RANK)
		return false;
	return memcmp(a->dims, b->dims, sizeof(uint32_t) * a->rank) == 0;
}

const char *wnn_desc_str(const struct wnn_desc *d, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "%s [", wnn_dtype_name(d->type));
	for (uint32_t i = 0; i < d->rank && i < WNN_MAX_RANK && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, i ? ", %" PRIu32 : "%" PRIu32, d->dims[i]);
	if (o < len)
		snprintf(buf + o, len - o, "]");
	return buf;
}

bool wnn_desc_validate(const struct wnn_desc *d, const char *what, struct wnn_diag *diag)
{
	uint64_t n;
	if (!wnn_dtype_valid(d->type)) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: unknown data type %d", what,
			     (int)d->type);
		return false;
	}
	if (d->rank > WNN_MAX_RANK) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: rank %" PRIu32
			     " exceeds the maximum rank %d", what, d->rank, WNN_MAX_RANK);
		return false;
	}
	for (uint32_t i = 0; i < d->rank; i++) {
		if (d->dims[i] == 0 || d->dims[i] > INT32_MAX) {
			wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				     "%s: dimension %" PRIu32 " is %" PRIu32
				     ", expected a valid dimension (1 to 2147483647)",
				     what, i, d->dims[i]);
			return false;
		}
	}
	if (!wnn_desc_bytes(d, &n) || n > INT32_MAX * (uint64_t)8) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "%s: element count or byte length is too large", what);
		return false;
	}
	return true;
}

bool wnn_desc_from_pb(const Webnn__Ipc__OperandDescriptor *pb, struct wnn_desc *d,
		      const char *what, struct wnn_diag *diag)
{
	memset(d, 0, sizeof(*d));
	if (!pb) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: missing descriptor", what);
		return false;
	}
	if (pb->n_shape > WNN_MAX_RANK) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "%s: rank %zu exceeds the maximum rank %d", what, pb->n_shape,
			     WNN_MAX_RANK);
		return false;
	}
	d->type = (enum wnn_dtype)pb->data_type;
	d->rank = (uint32_t)pb->n_shape;
	for (size_t i = 0; i < pb->n_shape; i++)
		d->dims[i] = pb->shape[i];
	return wnn_desc_validate(d, what, diag);
}

void wnn_desc_to_pb(const struct wnn_desc *d, Webnn__Ipc__OperandDescriptor *pb)
{
	webnn__ipc__operand_descriptor__init(pb);
	pb->data_type = (Webnn__Ipc__DataType)d->type;
	pb->n_shape = d->rank;
	pb->shape = (uint32_t *)d->dims;
}

enum webnn_status wnn_diag_set(struct wnn_diag *diag, enum webnn_status status,
			       const char *fmt, ...)
{
	if (!diag || diag->status != WEBNN_STATUS_OK)
		return diag ? diag->status : status;
	diag->status = status;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
	va_end(ap);
	return status;
}

void wnn_diag_clear(struct wnn_diag *diag)
{
	diag->status = WEBNN_STATUS_OK;
	diag->message[0] = '\0';
}

/* IEEE binary16 conversion with round-to-nearest-even. */
uint16_t wnn_f32_to_f16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000u;
	uint32_t absx = x & 0x7fffffffu;
	if (absx >= 0x7f800000u) /* inf or nan */
		return (uint16_t)(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u | ((absx >> 13) & 0x3ffu) : 0));
	if (absx >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
		return (uint16_t)(sign | 0x7c00u);
	if (absx < 0x38800000u) { /* subnormal half or zero */
		if (absx < 0x33000000u)
			return (uint16_t)sign;
		uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
		int shift = 126 - (int)(absx >> 23); /* 14..24 */
		uint32_t half = mant >> shift;
		uint32_t rem = mant & ((1u << shift) - 1);
		uint32_t mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (half & 1)))
			half++;
		return (uint16_t)(sign | half);
	}
	uint32_t half = ((absx >> 13) - (112u << 10));
	uint32_t rem = absx & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (half & 1)))
		half++;
	return (uint16_t)(sign | half);
}

float wnn_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, x;
	if (exp == 0) {
		if (mant == 0) {
			x = sign;
		} else {
			float f = ldexpf((float)mant, -24);
			return sign ? -f : f;
		}
	} else if (exp == 31) {
		x = sign | 0x7f800000u | (mant << 13);
	} else {
		x = sign | ((exp + 112u) << 23) | (mant << 13);
	}
	float f;
	memcpy(&f, &x, 4);
	return f;
}

double wnn_number_to_double(const Webnn__Ipc__Number *n)
{
	if (!n)
		return 0;
	switch (n->value_case) {
	case WEBNN__IPC__NUMBER__VALUE_F:
		return n->f;
	case WEBNN__IPC__NUMBER__VALUE_I:
		return (double)n->i;
	case WEBNN__IPC__NUMBER__VALUE_U:
		return (double)n->u;
	default:
		return 0;
	}
}

static int64_t sat_i64(const Webnn__Ipc__Number *n, int64_t lo, int64_t hi)
{
	if (n && n->value_case == WEBNN__IPC__NUMBER__VALUE_I)
		return n->i < lo ? lo : n->i > hi ? hi : n->i;
	if (n && n->value_case == WEBNN__IPC__NUMBER__VALUE_U)
		return n->u > (uint64_t)hi ? hi : (int64_t)n->u;
	double d = wnn_number_to_double(n);
	if (isnan(d))
		return 0;
	if (d <= (double)lo)
		return lo;
	if (d >= (double)hi)
		return hi;
	return (int64_t)d;
}

static uint64_t sat_u64(const Webnn__Ipc__Number *n, uint64_t hi)
{
	if (n && n->value_case == WEBNN__IPC__NUMBER__VALUE_U)
		return n->u > hi ? hi : n->u;
	if (n && n->value_case == WEBNN__IPC__NUMBER__VALUE_I)
		return n->i < 0 ? 0 : (uint64_t)n->i > hi ? hi : (uint64_t)n->i;
	double d = wnn_number_to_double(n);
	if (isnan(d) || d <= 0)
		return 0;
	if (d >= (double)hi)
		return hi;
	return (uint64_t)d;
}

void wnn_number_to_bytes(const Webnn__Ipc__Number *n, enum wnn_dtype t, void *out)
{
	switch (t) {
	case WNN_F32: {
		float f = (float)wnn_number_to_double(n);
		memcpy(out, &f, 4);
		break;
	}
	case WNN_F16: {
		uint16_t h = wnn_f32_to_f16((float)wnn_number_to_double(n));
		memcpy(out, &h, 2);
		break;
	}
	case WNN_I32: {
		int32_t v = (int32_t)sat_i64(n, INT32_MIN, INT32_MAX);
		memcpy(out, &v, 4);
		break;
	}
	case WNN_U32: {
		uint32_t v = (uint32_t)sat_u64(n, UINT32_MAX);
		memcpy(out, &v, 4);
		break;
	}
	case WNN_I64: {
		int64_t v = sat_i64(n, INT64_MIN, INT64_MAX);
		memcpy(out, &v, 8);
		break;
	}
	case WNN_U64: {
		uint64_t v = sat_u64(n, UINT64_MAX);
		memcpy(out, &v, 8);
		break;
	}
	case WNN_I8: {
		int8_t v = (int8_t)sat_i64(n, INT8_MIN, INT8_MAX);
		memcpy(out, &v, 1);
		break;
	}
	case WNN_U8: {
		uint8_t v = (uint8_t)sat_u64(n, UINT8_MAX);
		memcpy(out, &v, 1);
		break;
	}
	/* one element packed alone: the low nibble, the high one 0 */
	case WNN_I4:
		*(uint8_t *)out = (uint8_t)(sat_i64(n, -8, 7) & 0xf);
		break;
	case WNN_U4:
		*(uint8_t *)out = (uint8_t)sat_u64(n, 15);
		break;
	default:
		break;
	}
}
