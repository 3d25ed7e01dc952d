/* Operand wiring and spec validation + output shape inference for every MLGraphBuilder operator. */
#include "proto/wnn.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_DIM ((uint64_t)INT32_MAX) /* valid dimension bound shared with wnn_desc_validate */
#define MAX_TENSOR_COUNT 8192         /* spec "valid tensor count" */

/* ------------------------------------------------------------------------------------------ */
/* Operand enumeration: one walker feeds wnn_op_inputs(), wnn_op_outputs() and the checks. */

typedef bool (*io_fn)(void *ud, uint32_t id, const char *role);

static const char *unary_role(uint32_t wire_id)
{
	enum wnn_op k = wnn_op_from_id(wire_id);
	/* logicalNot/isNaN/isInfinite name their operand "a" (MLLogicalNotSupportLimits). */
	if (k == WNN_OP_LOGICAL_NOT || k == WNN_OP_IS_NAN || k == WNN_OP_IS_INFINITE)
		return "a";
	return "input";
}

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

/* Calls fn for every operand read, in operator-input order; false when attrs are missing or
 * fn stopped the walk. */
static bool walk_inputs(const Webnn__Ipc__Operation *op, io_fn fn, void *ud)
{
	switch (op->attrs_case) {
	case WEBNN__IPC__OPERATION__ATTRS_BINARY:
		NEED(op->binary);
		IN(op->binary->a, "a");
		IN(op->binary->b, "b");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_UNARY:
		NEED(op->unary);
		IN(op->unary->input, unary_role(op->op));
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_CLAMP:
		NEED(op->clamp);
		IN(op->clamp->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_CAST:
		NEED(op->cast);
		IN(op->cast->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_ARG_MIN_MAX:
		NEED(op->arg_min_max);
		IN(op->arg_min_max->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_BATCH_NORMALIZATION: {
		const Webnn__Ipc__BatchNormalization *m = op->batch_normalization;
		NEED(m);
		IN(m->input, "input");
		IN(m->mean, "mean");
		IN(m->variance, "variance");
		OPT(m, scale, "scale");
		OPT(m, bias, "bias");
		return true;
	}
	case WEBNN__IPC__OPERATION__ATTRS_INSTANCE_NORMALIZATION: {
		const Webnn__Ipc__InstanceNormalization *m = op->instance_normalization;
		NEED(m);
		IN(m->input, "input");
		OPT(m, scale, "scale");
		OPT(m, bias, "bias");
		return true;
	}
	case WEBNN__IPC__OPERATION__ATTRS_LAYER_NORMALIZATION: {
		const Webnn__Ipc__LayerNormalization *m = op->layer_normalization;
		NEED(m);
		IN(m->input, "input");
		OPT(m, scale, "scale");
		OPT(m, bias, "bias");
		return true;
	}
	case WEBNN__IPC__OPERATION__ATTRS_CONCAT:
		NEED(op->concat);
		for (size_t i = 0; i < op->concat->n_inputs; i++)
			IN(op->concat->inputs[i], "inputs");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_CONV2D:
		NEED(op->conv2d);
		IN(op->conv2d->input, "input");
		IN(op->conv2d->filter, "filter");
		OPT(op->conv2d, bias, "bias");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_CONV_TRANSPOSE2D:
		NEED(op->conv_transpose2d);
		IN(op->conv_transpose2d->input, "input");
		IN(op->conv_transpose2d->filter, "filter");
		OPT(op->conv_transpose2d, bias, "bias");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_CUMULATIVE_SUM:
		NEED(op->cumulative_sum);
		IN(op->cumulative_sum->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_QUANTIZE_LINEAR:
		NEED(op->quantize_linear);
		IN(op->quantize_linear->input, "input");
		IN(op->quantize_linear->scale, "scale");
		IN(op->quantize_linear->zero_point, "zeroPoint");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_EXPAND:
		NEED(op->expand);
		IN(op->expand->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_GATHER:
		NEED(op->gather);
		IN(op->gather->input, "input");
		IN(op->gather->indices, "indices");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_SCATTER:
		NEED(op->scatter);
		IN(op->scatter->input, "input");
		IN(op->scatter->indices, "indices");
		IN(op->scatter->updates, "updates");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_GEMM:
		NEED(op->gemm);
		IN(op->gemm->a, "a");
		IN(op->gemm->b, "b");
		OPT(op->gemm, c, "c");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_MATMUL:
		NEED(op->matmul);
		IN(op->matmul->a, "a");
		IN(op->matmul->b, "b");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_GRU: {
		const Webnn__Ipc__Gru *m = op->gru;
		NEED(m);
		IN(m->input, "input");
		IN(m->weight, "weight");
		IN(m->recurrent_weight, "recurrentWeight");
		OPT(m, bias, "bias");
		OPT(m, recurrent_bias, "recurrentBias");
		OPT(m, initial_hidden_state, "initialHiddenState");
		return true;
	}
	case WEBNN__IPC__OPERATION__ATTRS_GRU_CELL: {
		const Webnn__Ipc__GruCell *m = op->gru_cell;
		NEED(m);
		IN(m->input, "input");
		IN(m->weight, "weight");
		IN(m->recurrent_weight, "recurrentWeight");
		IN(m->hidden_state, "hiddenState");
		OPT(m, bias, "bias");
		OPT(m, recurrent_bias, "recurrentBias");
		return true;
	}
	case WEBNN__IPC__OPERATION__ATTRS_LSTM: {
		const Webnn__Ipc__Lstm *m = op->lstm;
		NEED(m);
		IN(m->input, "input");
		IN(m->weight, "weight");
		IN(m->recurrent_weight, "recurrentWeight");
		OPT(m, bias, "bias");
		OPT(m, recurrent_bias, "recurrentBias");
		OPT(m, peephole_weight, "peepholeWeight");
		OPT(m, initial_hidden_state, "initialHiddenState");
		OPT(m, initial_cell_state, "initialCellState");
		return true;
	}
	case WEBNN__IPC__OPERATION__ATTRS_LSTM_CELL: {
		const Webnn__Ipc__LstmCell *m = op->lstm_cell;
		NEED(m);
		IN(m->input, "input");
		IN(m->weight, "weight");
		IN(m->recurrent_weight, "recurrentWeight");
		IN(m->hidden_state, "hiddenState");
		IN(m->cell_state, "cellState");
		OPT(m, bias, "bias");
		OPT(m, recurrent_bias, "recurrentBias");
		OPT(m, peephole_weight, "peepholeWeight");
		return true;
	}
	case WEBNN__IPC__OPERATION__ATTRS_PAD:
		NEED(op->pad);
		IN(op->pad->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_POOL2D:
		NEED(op->pool2d);
		IN(op->pool2d->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_PRELU:
		NEED(op->prelu);
		IN(op->prelu->input, "input");
		IN(op->prelu->slope, "slope");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_REDUCE:
		NEED(op->reduce);
		IN(op->reduce->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_RESAMPLE2D:
		NEED(op->resample2d);
		IN(op->resample2d->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_RESHAPE:
		NEED(op->reshape);
		IN(op->reshape->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_REVERSE:
		NEED(op->reverse);
		IN(op->reverse->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_SLICE:
		NEED(op->slice);
		IN(op->slice->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_SOFTMAX:
		NEED(op->softmax);
		IN(op->softmax->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_SPLIT:
		NEED(op->split);
		IN(op->split->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_TILE:
		NEED(op->tile);
		IN(op->tile->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_TRANSPOSE:
		NEED(op->transpose);
		IN(op->transpose->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_TRIANGULAR:
		NEED(op->triangular);
		IN(op->triangular->input, "input");
		return true;
	case WEBNN__IPC__OPERATION__ATTRS_WHERE:
		NEED(op->where);
		IN(op->where->condition, "condition");
		IN(op->where->true_value, "trueValue");
		IN(op->where->false_value, "falseValue");
		return true;
	default:
		return false;
	}
}

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

/* Points *list at the operation's output ids (a single field or a repeated one). */
static bool output_ids(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	switch (op->attrs_case) {
	case WEBNN__IPC__OPERATION__ATTRS_BINARY: OUT_ONE(op->binary);
	case WEBNN__IPC__OPERATION__ATTRS_UNARY: OUT_ONE(op->unary);
	case WEBNN__IPC__OPERATION__ATTRS_CLAMP: OUT_ONE(op->clamp);
	case WEBNN__IPC__OPERATION__ATTRS_CAST: OUT_ONE(op->cast);
	case WEBNN__IPC__OPERATION__ATTRS_ARG_MIN_MAX: OUT_ONE(op->arg_min_max);
	case WEBNN__IPC__OPERATION__ATTRS_BATCH_NORMALIZATION: OUT_ONE(op->batch_normalization);
	case WEBNN__IPC__OPERATION__ATTRS_INSTANCE_NORMALIZATION: OUT_ONE(op->instance_normalization);
	case WEBNN__IPC__OPERATION__ATTRS_LAYER_NORMALIZATION: OUT_ONE(op->layer_normalization);
	case WEBNN__IPC__OPERATION__ATTRS_CONCAT: OUT_ONE(op->concat);
	case WEBNN__IPC__OPERATION__ATTRS_CONV2D: OUT_ONE(op->conv2d);
	case WEBNN__IPC__OPERATION__ATTRS_CONV_TRANSPOSE2D: OUT_ONE(op->conv_transpose2d);
	case WEBNN__IPC__OPERATION__ATTRS_CUMULATIVE_SUM: OUT_ONE(op->cumulative_sum);
	case WEBNN__IPC__OPERATION__ATTRS_QUANTIZE_LINEAR: OUT_ONE(op->quantize_linear);
	case WEBNN__IPC__OPERATION__ATTRS_EXPAND: OUT_ONE(op->expand);
	case WEBNN__IPC__OPERATION__ATTRS_GATHER: OUT_ONE(op->gather);
	case WEBNN__IPC__OPERATION__ATTRS_SCATTER: OUT_ONE(op->scatter);
	case WEBNN__IPC__OPERATION__ATTRS_GEMM: OUT_ONE(op->gemm);
	case WEBNN__IPC__OPERATION__ATTRS_MATMUL: OUT_ONE(op->matmul);
	case WEBNN__IPC__OPERATION__ATTRS_GRU: OUT_LIST(op->gru, outputs);
	case WEBNN__IPC__OPERATION__ATTRS_GRU_CELL: OUT_ONE(op->gru_cell);
	case WEBNN__IPC__OPERATION__ATTRS_LSTM: OUT_LIST(op->lstm, outputs);
	case WEBNN__IPC__OPERATION__ATTRS_LSTM_CELL: OUT_LIST(op->lstm_cell, outputs);
	case WEBNN__IPC__OPERATION__ATTRS_PAD: OUT_ONE(op->pad);
	case WEBNN__IPC__OPERATION__ATTRS_POOL2D: OUT_ONE(op->pool2d);
	case WEBNN__IPC__OPERATION__ATTRS_PRELU: OUT_ONE(op->prelu);
	case WEBNN__IPC__OPERATION__ATTRS_REDUCE: OUT_ONE(op->reduce);
	case WEBNN__IPC__OPERATION__ATTRS_RESAMPLE2D: OUT_ONE(op->resample2d);
	case WEBNN__IPC__OPERATION__ATTRS_RESHAPE: OUT_ONE(op->reshape);
	case WEBNN__IPC__OPERATION__ATTRS_REVERSE: OUT_ONE(op->reverse);
	case WEBNN__IPC__OPERATION__ATTRS_SLICE: OUT_ONE(op->slice);
	case WEBNN__IPC__OPERATION__ATTRS_SOFTMAX: OUT_ONE(op->softmax);
	case WEBNN__IPC__OPERATION__ATTRS_SPLIT: OUT_LIST(op->split, outputs);
	case WEBNN__IPC__OPERATION__ATTRS_TILE: OUT_ONE(op->tile);
	case WEBNN__IPC__OPERATION__ATTRS_TRANSPOSE: OUT_ONE(op->transpose);
	case WEBNN__IPC__OPERATION__ATTRS_TRIANGULAR: OUT_ONE(op->triangular);
	case WEBNN__IPC__OPERATION__ATTRS_WHERE: OUT_ONE(op->where);
	default:
		return false;
	}
}

struct id_sink {
	uint32_t *ids;
	const char **roles;
	int max;
	int n;
};

static bool sink_put(void *ud, uint32_t id, const char *role)
{
	struct id_sink *s = ud;
	if (s->n >= s->max)
		return false;
	if (s->ids)
		s->ids[s->n] = id;
	if (s->roles)
		s->roles[s->n] = role;
	s->n++;
	return true;
}

int wnn_op_inputs(const Webnn__Ipc__Operation *op, uint32_t *ids, const char **roles, int max)
{
	struct id_sink s = { ids, roles, max, 0 };
	if (!op || max < 0 || !walk_inputs(op, sink_put, &s))
		return -1;
	return s.n;
}

int wnn_op_outputs(const Webnn__Ipc__Operation *op, uint32_t *ids, int max)
{
	const uint32_t *list;
	size_t n;
	if (!op || max < 0 || !output_ids(op, &list, &n) || n > (size_t)max)
		return -1;
	for (size_t i = 0; i < n; i++)
		ids[i] = list[i];
	return (int)n;
}

/* ------------------------------------------------------------------------------------------ */
/* Inference context and message helpers. */

struct infer {
	const Webnn__Ipc__Operation *op;
	enum wnn_op kind;
	const char *name;
	const struct wnn_desc *operands;
	size_t n_operands;
	struct wnn_diag *diag;
	struct wnn_desc res[WNN_MAX_OUTPUTS];
	int n_res;
};

static bool failf(struct infer *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool failf(struct infer *c, const char *fmt, ...)
{
	char msg[WNN_MAX_DIAG];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->op->label && c->op->label[0])
		wnn_diag_set(c->diag, WEBNN_STATUS_TYPE_ERROR, "%s: %s (operator \"%s\")", c->name,
			     msg, c->op->label);
	else
		wnn_diag_set(c->diag, WEBNN_STATUS_TYPE_ERROR, "%s: %s", c->name, msg);
	return false;
}

/* "[1, 3, 224, 224]" */
static const char *dims_str(const uint32_t *dims, size_t rank, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "[");
	for (size_t i = 0; i < rank && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, i ? ", %" PRIu32 : "%" PRIu32, dims[i]);
	if (o < len)
		snprintf(buf + o, len - o, "]");
	return buf;
}
#define SHAPE(d, buf) dims_str((d)->dims, (d)->rank, buf, sizeof(buf))
#define LIST(p, n, buf) dims_str((p), (n), buf, sizeof(buf))

static const char *types_str(uint32_t mask, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int t = 1; t < WNN_DT_COUNT && o < len; t++)
		if (mask & WNN_DT_BIT(t))
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "",
					      wnn_dtype_name((enum wnn_dtype)t));
	return buf;
}

static const struct wnn_desc *D(const struct infer *c, uint32_t id)
{
	return &c->operands[id]; /* ids were range- and definition-checked up front */
}

static bool check_type(struct infer *c, const struct wnn_desc *d, const char *role, uint32_t mask)
{
	char buf[96];
	if (mask & WNN_DT_BIT(d->type))
		return true;
	return failf(c, "%s data type %s is not allowed, expected %s", role,
		     wnn_dtype_name(d->type), types_str(mask, buf, sizeof(buf)));
}

static bool check_same_type(struct infer *c, const struct wnn_desc *d, const char *role,
			    const struct wnn_desc *ref, const char *ref_role)
{
	if (d->type == ref->type)
		return true;
	return failf(c, "%s data type %s does not match %s data type %s", role,
		     wnn_dtype_name(d->type), ref_role, wnn_dtype_name(ref->type));
}

static bool check_rank(struct infer *c, const struct wnn_desc *d, const char *role, uint32_t lo,
		       uint32_t hi)
{
	if (d->rank >= lo && d->rank <= hi)
		return true;
	if (lo == hi)
		return failf(c, "%s rank is %" PRIu32 ", expected %" PRIu32, role, d->rank, lo);
	if (hi >= WNN_MAX_RANK)
		return failf(c, "%s rank is %" PRIu32 ", expected at least %" PRIu32, role, d->rank,
			     lo);
	return failf(c, "%s rank is %" PRIu32 ", expected %" PRIu32 " to %" PRIu32, role, d->rank,
		     lo, hi);
}

/* d's shape must equal want[0..n); what_want says where want comes from. */
static bool check_shape(struct infer *c, const struct wnn_desc *d, const char *role,
			const uint64_t *want, uint32_t n, const char *what_want)
{
	bool ok = d->rank == n;
	for (uint32_t i = 0; ok && i < n; i++)
		ok = d->dims[i] == want[i];
	if (ok)
		return true;
	char a[96], b[128];
	size_t o = (size_t)snprintf(b, sizeof(b), "[");
	for (uint32_t i = 0; i < n && o < sizeof(b); i++)
		o += (size_t)snprintf(b + o, sizeof(b) - o, i ? ", %" PRIu64 : "%" PRIu64, want[i]);
	if (o < sizeof(b))
		snprintf(b + o, sizeof(b) - o, "]");
	return failf(c, "%s shape %s is not %s (%s)", role, SHAPE(d, a), b, what_want);
}

static bool check_axis(struct infer *c, uint32_t axis, uint32_t rank, const char *what)
{
	if (axis < rank)
		return true;
	return failf(c, "%s %" PRIu32 " is out of range for rank %" PRIu32, what, axis, rank);
}

/* Spec axes rule: no duplicates, every item in [0, rank). Sets *mask bit per axis. */
static bool check_axes(struct infer *c, const uint32_t *axes, size_t n, uint32_t rank,
		       const char *what, uint32_t *mask)
{
	*mask = 0;
	for (size_t i = 0; i < n; i++) {
		if (axes[i] >= rank)
			return failf(c, "%s item %" PRIu32 " is out of range for rank %" PRIu32, what,
				     axes[i], rank);
		if (*mask & (1u << axes[i]))
			return failf(c, "%s contain the axis %" PRIu32 " more than once", what,
				     axes[i]);
		*mask |= 1u << axes[i];
	}
	return true;
}

static struct wnn_desc *result(struct infer *c, enum wnn_dtype type, uint32_t rank)
{
	struct wnn_desc *r = &c->res[c->n_res++];
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->rank = rank;
	return r;
}

static struct wnn_desc *result_copy(struct infer *c, const struct wnn_desc *d)
{
	struct wnn_desc *r = &c->res[c->n_res++];
	*r = *d;
	return r;
}

/* Sets a result dimension from a 64-bit value, failing when it is not a valid dimension. */
static bool set_dim(struct infer *c, struct wnn_desc *r, uint32_t i, int64_t v, const char *what)
{
	if (v < 1 || (uint64_t)v > MAX_DIM)
		return failf(c, "%s is %" PRId64 ", expected a valid dimension (1 to %" PRIu64 ")",
			     what, v, MAX_DIM);
	r->dims[i] = (uint32_t)v;
	return true;
}

static bool bcast_bi(const struct wnn_desc *a, const struct wnn_desc *b, struct wnn_desc *out)
{
	uint32_t rank = a->rank > b->rank ? a->rank : b->rank;
	for (uint32_t i = 0; i < rank; i++) {
		uint32_t da = i + a->rank >= rank ? a->dims[i + a->rank - rank] : 1;
		uint32_t db = i + b->rank >= rank ? b->dims[i + b->rank - rank] : 1;
		if (da != db && da != 1 && db != 1)
			return false;
		out->dims[i] = da > db ? da : db;
	}
	out->rank = rank;
	return true;
}

static bool bcast_uni(const uint32_t *from, uint32_t rf, const uint32_t *to, uint32_t rt)
{
	if (rf > rt)
		return false;
	for (uint32_t i = 0; i < rt; i++) {
		uint32_t df = i + rf >= rt ? from[i + rf - rt] : 1;
		if (df != to[i] && df != 1)
			return false;
	}
	return true;
}

static bool check_enum(struct infer *c, int v, int max, const char *what)
{
	if (v >= 0 && v <= max)
		return true;
	return failf(c, "%s value %d is not valid", what, v);
}

static uint32_t first_mask(const struct infer *c)
{
	return wnn_ops[c->kind].dtypes;
}

/* ------------------------------------------------------------------------------------------ */
/* Element-wise families. */

static bool infer_binary(struct infer *c)
{
	const Webnn__Ipc__ElementwiseBinary *m = c->op->binary;
	const struct wnn_desc *a = D(c, m->a), *b = D(c, m->b);
	char sa[96], sb[96];
	if (!check_type(c, a, "a", first_mask(c)) || !check_same_type(c, b, "b", a, "a"))
		return false;
	struct wnn_desc *r = result(c, wnn_ops[c->kind].out == WNN_OUT_U8 ? WNN_U8 : a->type, 0);
	if (!bcast_bi(a, b, r))
		return failf(c, "input shapes %s and %s are not broadcastable", SHAPE(a, sa),
			     SHAPE(b, sb));
	return true;
}

static bool infer_unary(struct infer *c)
{
	const struct wnn_desc *x = D(c, c->op->unary->input);
	if (!check_type(c, x, unary_role(c->op->op), first_mask(c)))
		return false;
	struct wnn_desc *r = result_copy(c, x);
	if (wnn_ops[c->kind].out == WNN_OUT_U8)
		r->type = WNN_U8;
	return true;
}

/* Compares two MLNumbers after the spec's cast to t: 1 when a > b, else 0 (NaN compares
 * false, as in the spec). */
static int number_gt(const Webnn__Ipc__Number *a, const Webnn__Ipc__Number *b, enum wnn_dtype t)
{
	union {
		int8_t i8;
		uint8_t u8;
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
	} x, y;
	switch (t) {
	case WNN_F32:
		return (float)wnn_number_to_double(a) > (float)wnn_number_to_double(b);
	case WNN_F16:
		return wnn_f16_to_f32(wnn_f32_to_f16((float)wnn_number_to_double(a))) >
		       wnn_f16_to_f32(wnn_f32_to_f16((float)wnn_number_to_double(b)));
	default:
		break;
	}
	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	wnn_number_to_bytes(a, t, &x);
	wnn_number_to_bytes(b, t, &y);
	switch (t) {
	case WNN_I8: return x.i8 > y.i8;
	case WNN_U8: return x.u8 > y.u8;
	case WNN_I32: return x.i32 > y.i32;
	case WNN_U32: return x.u32 > y.u32;
	case WNN_I64: return x.i64 > y.i64;
	case WNN_U64: return x.u64 > y.u64;
	default: return 0;
	}
}

static bool number_present(const Webnn__Ipc__Number *n)
{
	return n && n->value_case != WEBNN__IPC__NUMBER__VALUE__NOT_SET;
}

static bool infer_clamp(struct infer *c)
{
	const Webnn__Ipc__Clamp *m = c->op->clamp;
	const struct wnn_desc *x = D(c, m->input);
	if (!check_type(c, x, "input", first_mask(c)))
		return false;
	/* An absent bound does not constrain (the spec's defaults are -Infinity/+Infinity). */
	if (number_present(m->min_value) && number_present(m->max_value) &&
	    number_gt(m->min_value, m->max_value, x->type))
		return failf(c, "minValue %g is greater than maxValue %g after casting to %s",
			     wnn_number_to_double(m->min_value), wnn_number_to_double(m->max_value),
			     wnn_dtype_name(x->type));
	result_copy(c, x);
	return true;
}

static bool infer_cast(struct infer *c)
{
	const Webnn__Ipc__Cast *m = c->op->cast;
	const struct wnn_desc *x = D(c, m->input);
	if (!check_type(c, x, "input", first_mask(c)))
		return false;
	if (wnn_dtype_size((enum wnn_dtype)m->data_type) == 0)
		return failf(c, "target data type %d is not a valid data type", (int)m->data_type);
	result_copy(c, x)->type = (enum wnn_dtype)m->data_type;
	return true;
}

/* Spec "calculate reduction output sizes"; axes_mask has a bit per reduced axis. */
static void reduce_shape(const struct wnn_desc *x, uint32_t axes_mask, bool keep,
			 struct wnn_desc *r)
{
	r->rank = 0;
	for (uint32_t i = 0; i < x->rank; i++) {
		if (axes_mask & (1u << i)) {
			if (keep)
				r->dims[r->rank++] = 1;
		} else {
			r->dims[r->rank++] = x->dims[i];
		}
	}
}

static bool infer_arg_min_max(struct infer *c)
{
	const Webnn__Ipc__ArgMinMax *m = c->op->arg_min_max;
	const struct wnn_desc *x = D(c, m->input);
	char buf[64];
	if (!check_type(c, x, "input", first_mask(c)) || !check_axis(c, m->axis, x->rank, "axis"))
		return false;
	enum wnn_dtype ot = (enum wnn_dtype)m->output_data_type;
	if (ot != WNN_I32 && ot != WNN_I64)
		return failf(c, "output data type %s is not allowed, expected %s",
			     wnn_dtype_name(ot),
			     types_str(WNN_DT_BIT(WNN_I32) | WNN_DT_BIT(WNN_I64), buf, sizeof(buf)));
	if (ot == WNN_I32 && x->dims[m->axis] > (uint32_t)INT32_MAX)
		return failf(c, "input dimension %" PRIu32 " does not fit the output data type int32",
			     x->dims[m->axis]);
	reduce_shape(x, 1u << m->axis, m->keep_dimensions, result(c, ot, 0));
	return true;
}

static bool infer_cumulative_sum(struct infer *c)
{
	const Webnn__Ipc__CumulativeSum *m = c->op->cumulative_sum;
	const struct wnn_desc *x = D(c, m->input);
	if (!check_type(c, x, "input", first_mask(c)) || !check_axis(c, m->axis, x->rank, "axis"))
		return false;
	result_copy(c, x);
	return true;
}

static bool infer_prelu(struct infer *c)
{
	const Webnn__Ipc__Prelu *m = c->op->prelu;
	const struct wnn_desc *x = D(c, m->input), *s = D(c, m->slope);
	char sa[96], sb[96];
	if (!check_type(c, x, "input", first_mask(c)) ||
	    !check_same_type(c, s, "slope", x, "input"))
		return false;
	struct wnn_desc *r = result(c, x->type, 0);
	if (!bcast_bi(s, x, r))
		return failf(c, "slope shape %s is not broadcastable with input shape %s",
			     SHAPE(s, sa), SHAPE(x, sb));
	return true;
}

static bool infer_where(struct infer *c)
{
	const Webnn__Ipc__Where *m = c->op->where;
	const struct wnn_desc *cond = D(c, m->condition), *t = D(c, m->true_value),
			      *f = D(c, m->false_value);
	char sa[96], sb[96];
	if (!check_type(c, cond, "condition", first_mask(c)) ||
	    !check_type(c, t, "trueValue", WNN_DT_ALL) ||
	    !check_same_type(c, f, "falseValue", t, "trueValue"))
		return false;
	struct wnn_desc tf = { 0 }, *r = result(c, t->type, 0);
	if (!bcast_bi(t, f, &tf))
		return failf(c, "trueValue shape %s and falseValue shape %s are not broadcastable",
			     SHAPE(t, sa), SHAPE(f, sb));
	if (!bcast_bi(cond, &tf, r))
		return failf(c, "condition shape %s is not broadcastable with %s", SHAPE(cond, sa),
			     SHAPE(&tf, sb));
	return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Normalizations. */

static bool check_channel_operand(struct infer *c, uint32_t id, const char *role,
				  const struct wnn_desc *x, uint32_t size, const char *what)
{
	const struct wnn_desc *d = D(c, id);
	uint64_t want = size;
	return check_same_type(c, d, role, x, "input") && check_shape(c, d, role, &want, 1, what);
}

static bool infer_batch_norm(struct infer *c)
{
	const Webnn__Ipc__BatchNormalization *m = c->op->batch_normalization;
	const struct wnn_desc *x = D(c, m->input);
	if (!check_type(c, x, "input", first_mask(c)) || !check_axis(c, m->axis, x->rank, "axis"))
		return false;
	uint32_t n = x->dims[m->axis];
	const char *w = "input.shape[axis]";
	if (!check_channel_operand(c, m->mean, "mean", x, n, w) ||
	    !check_channel_operand(c, m->variance, "variance", x, n, w) ||
	    (m->has_scale && !check_channel_operand(c, m->scale, "scale", x, n, w)) ||
	    (m->has_bias && !check_channel_operand(c, m->bias, "bias", x, n, w)))
		return false;
	result_copy(c, x);
	return true;
}

static bool infer_instance_norm(struct infer *c)
{
	const Webnn__Ipc__InstanceNormalization *m = c->op->instance_normalization;
	const struct wnn_desc *x = D(c, m->input);
	if (!check_type(c, x, "input", first_mask(c)) || !check_rank(c, x, "input", 4, 4) ||
	    !check_enum(c, (int)m->layout, WEBNN__IPC__INPUT_LAYOUT__NHWC, "layout"))
		return false;
	uint32_t n = x->dims[m->layout == WEBNN__IPC__INPUT_LAYOUT__NCHW ? 1 : 3];
	const char *w = "input channels";
	if ((m->has_scale && !check_channel_operand(c, m->scale, "scale", x, n, w)) ||
	    (m->has_bias && !check_channel_operand(c, m->bias, "bias", x, n, w)))
		return false;
	result_copy(c, x);
	return true;
}

static bool infer_layer_norm(struct infer *c)
{
	const Webnn__Ipc__LayerNormalization *m = c->op->layer_normalization;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t axes[WNN_MAX_RANK], n_axes = 0, mask;
	char buf[96];
	if (!check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->has_axes) {
		if (!check_axes(c, m->axes, m->n_axes, x->rank, "axes", &mask))
			return false;
		for (size_t i = 0; i < m->n_axes; i++)
			axes[n_axes++] = m->axes[i];
	} else {
		for (uint32_t i = 1; i < x->rank; i++)
			axes[n_axes++] = i;
	}
	const uint32_t ids[2] = { m->scale, m->bias };
	const bool has[2] = { m->has_scale, m->has_bias };
	const char *roles[2] = { "scale", "bias" };
	for (int k = 0; k < 2; k++) {
		if (!has[k])
			continue;
		const struct wnn_desc *d = D(c, ids[k]);
		if (!check_same_type(c, d, roles[k], x, "input"))
			return false;
		if (d->rank != n_axes)
			return failf(c, "%s rank is %" PRIu32 ", expected %" PRIu32
				     " (the number of axes)", roles[k], d->rank, n_axes);
		for (uint32_t i = 0; i < n_axes; i++)
			if (d->dims[i] != x->dims[axes[i]])
				return failf(c, "%s shape %s does not match the input dimensions "
					     "along the axes", roles[k], SHAPE(d, buf));
	}
	result_copy(c, x);
	return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Shape manipulation. */

static bool infer_concat(struct infer *c)
{
	const Webnn__Ipc__Concat *m = c->op->concat;
	char sa[96], sb[96];
	if (m->n_inputs < 1 || m->n_inputs > MAX_TENSOR_COUNT)
		return failf(c, "%zu inputs, expected 1 to %d", m->n_inputs, MAX_TENSOR_COUNT);
	const struct wnn_desc *first = D(c, m->inputs[0]);
	if (!check_type(c, first, "inputs[0]", first_mask(c)) ||
	    !check_axis(c, m->axis, first->rank, "axis"))
		return false;
	uint64_t size = first->dims[m->axis];
	for (size_t i = 1; i < m->n_inputs; i++) {
		const struct wnn_desc *x = D(c, m->inputs[i]);
		if (x->type != first->type)
			return failf(c, "inputs[%zu] data type %s does not match inputs[0] data type %s",
				     i, wnn_dtype_name(x->type), wnn_dtype_name(first->type));
		if (x->rank != first->rank)
			return failf(c, "inputs[%zu] rank is %" PRIu32 ", expected %" PRIu32
				     " (the rank of inputs[0])", i, x->rank, first->rank);
		for (uint32_t d = 0; d < x->rank; d++)
			if (d != m->axis && x->dims[d] != first->dims[d])
				return failf(c, "inputs[%zu] shape %s does not match inputs[0] shape %s "
					     "outside axis %" PRIu32, i, SHAPE(x, sa),
					     SHAPE(first, sb), m->axis);
		size += x->dims[m->axis];
		if (size > MAX_DIM)
			return failf(c, "output size along axis %" PRIu32 " exceeds %" PRIu64,
				     m->axis, MAX_DIM);
	}
	result_copy(c, first)->dims[m->axis] = (uint32_t)size;
	return true;
}

static bool infer_expand(struct infer *c)
{
	const Webnn__Ipc__Expand *m = c->op->expand;
	const struct wnn_desc *x = D(c, m->input);
	char sa[96], sb[96];
	if (!check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->n_new_shape > WNN_MAX_RANK)
		return failf(c, "newShape rank %zu exceeds the maximum rank %d", m->n_new_shape,
			     WNN_MAX_RANK);
	if (!bcast_uni(x->dims, x->rank, m->new_shape, (uint32_t)m->n_new_shape))
		return failf(c, "input shape %s is not broadcastable to newShape %s", SHAPE(x, sa),
			     LIST(m->new_shape, m->n_new_shape, sb));
	struct wnn_desc *r = result(c, x->type, (uint32_t)m->n_new_shape);
	for (size_t i = 0; i < m->n_new_shape; i++)
		r->dims[i] = m->new_shape[i];
	return true;
}

static bool infer_pad(struct infer *c)
{
	const Webnn__Ipc__Pad *m = c->op->pad;
	const struct wnn_desc *x = D(c, m->input);
	if (!check_type(c, x, "input", first_mask(c)) ||
	    !check_enum(c, (int)m->mode, WEBNN__IPC__PADDING_MODE__PAD_REFLECTION, "mode"))
		return false;
	if (m->n_beginning_padding != x->rank || m->n_ending_padding != x->rank)
		return failf(c, "beginningPadding and endingPadding have %zu and %zu values, "
			     "expected %" PRIu32 " (the input rank)", m->n_beginning_padding,
			     m->n_ending_padding, x->rank);
	struct wnn_desc *r = result_copy(c, x);
	for (uint32_t i = 0; i < x->rank; i++) {
		uint32_t b = m->beginning_padding[i], e = m->ending_padding[i];
		if (m->mode == WEBNN__IPC__PADDING_MODE__PAD_REFLECTION &&
		    (b >= x->dims[i] || e >= x->dims[i]))
			return failf(c, "reflection padding %" PRIu32 "+%" PRIu32 " along axis %" PRIu32
				     " must be smaller than the input dimension %" PRIu32, b, e, i,
				     x->dims[i]);
		char what[48];
		snprintf(what, sizeof(what), "output dimension %" PRIu32, i);
		if (!set_dim(c, r, i, (int64_t)x->dims[i] + b + e, what))
			return false;
	}
	return true;
}

static bool infer_reduce(struct infer *c)
{
	const Webnn__Ipc__Reduce *m = c->op->reduce;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t mask = x->rank ? (uint32_t)((1ull << x->rank) - 1) : 0;
	if (!check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->has_axes && !check_axes(c, m->axes, m->n_axes, x->rank, "axes", &mask))
		return false;
	reduce_shape(x, mask, m->keep_dimensions, result(c, x->type, 0));
	return true;
}

static bool infer_reshape(struct infer *c)
{
	const Webnn__Ipc__Reshape *m = c->op->reshape;
	const struct wnn_desc *x = D(c, m->input);
	char sa[96], sb[96];
	uint64_t in = 1, out = 1;
	if (!check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->n_new_shape > WNN_MAX_RANK)
		return failf(c, "newShape rank %zu exceeds the maximum rank %d", m->n_new_shape,
			     WNN_MAX_RANK);
	for (size_t i = 0; i < m->n_new_shape; i++) {
		if (m->new_shape[i] == 0 || m->new_shape[i] > MAX_DIM)
			return failf(c, "newShape item %zu is %" PRIu32 ", expected a valid dimension",
				     i, m->new_shape[i]);
		out *= m->new_shape[i]; /* <= 8 factors below 2^31 each: bounded below */
		if (out > (uint64_t)INT64_MAX / MAX_DIM)
			return failf(c, "newShape %s has too many elements",
				     LIST(m->new_shape, m->n_new_shape, sb));
	}
	wnn_desc_count(x, &in);
	if (in != out)
		return failf(c, "newShape %s has %" PRIu64 " elements but input shape %s has %" PRIu64,
			     LIST(m->new_shape, m->n_new_shape, sb), out, SHAPE(x, sa), in);
	struct wnn_desc *r = result(c, x->type, (uint32_t)m->n_new_shape);
	for (size_t i = 0; i < m->n_new_shape; i++)
		r->dims[i] = m->new_shape[i];
	return true;
}

static bool infer_reverse(struct infer *c)
{
	const Webnn__Ipc__Reverse *m = c->op->reverse;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t mask;
	if (!check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->has_axes && !check_axes(c, m->axes, m->n_axes, x->rank, "axes", &mask))
		return false;
	result_copy(c, x);
	return true;
}

static bool infer_slice(struct infer *c)
{
	const Webnn__Ipc__Slice *m = c->op->slice;
	const struct wnn_desc *x = D(c, m->input);
	if (!check_type(c, x, "input", first_mask(c)))
		return false;
	for (size_t i = 0; i < m->n_sizes; i++)
		if (m->sizes[i] == 0)
			return failf(c, "sizes item %zu is 0", i);
	if (m->n_starts != x->rank || m->n_sizes != x->rank)
		return failf(c, "starts and sizes have %zu and %zu values, expected %" PRIu32
			     " (the input rank)", m->n_starts, m->n_sizes, x->rank);
	if (m->n_strides && m->n_strides != x->rank)
		return failf(c, "strides has %zu values, expected %" PRIu32 " (the input rank)",
			     m->n_strides, x->rank);
	struct wnn_desc *r = result_copy(c, x);
	for (uint32_t i = 0; i < x->rank; i++) {
		uint32_t stride = m->n_strides ? m->strides[i] : 1;
		if (stride < 1)
			return failf(c, "strides item %" PRIu32 " is 0, expected at least 1", i);
		if ((uint64_t)m->starts[i] + m->sizes[i] > x->dims[i])
			return failf(c, "starts %" PRIu32 " + sizes %" PRIu32 " along axis %" PRIu32
				     " exceed the input dimension %" PRIu32, m->starts[i],
				     m->sizes[i], i, x->dims[i]);
		r->dims[i] = m->sizes[i] / stride + (m->sizes[i] % stride != 0);
	}
	return true;
}

static bool infer_softmax(struct infer *c)
{
	const Webnn__Ipc__Softmax *m = c->op->softmax;
	const struct wnn_desc *x = D(c, m->input);
	if (!check_type(c, x, "input", first_mask(c)) || !check_axis(c, m->axis, x->rank, "axis"))
		return false;
	result_copy(c, x);
	return true;
}

static bool infer_split(struct infer *c)
{
	const Webnn__Ipc__Split *m = c->op->split;
	const struct wnn_desc *x = D(c, m->input);
	if (!check_type(c, x, "input", first_mask(c)) || !check_axis(c, m->axis, x->rank, "axis"))
		return false;
	uint32_t dim = x->dims[m->axis];
	size_t count = m->has_count ? m->count : m->n_sizes;
	if (m->has_count && m->n_sizes)
		return failf(c, "splits given both as a count and as sizes");
	if (count < 1 || count > MAX_TENSOR_COUNT)
		return failf(c, "splits count %zu is not a valid tensor count (1 to %d)", count,
			     MAX_TENSOR_COUNT);
	if (count > WNN_MAX_OUTPUTS)
		return failf(c, "%zu outputs exceed the maximum of %d outputs", count,
			     WNN_MAX_OUTPUTS);
	if (m->has_count) {
		if (dim % m->count)
			return failf(c, "input dimension %" PRIu32 " along axis %" PRIu32
				     " is not divisible by splits %" PRIu32, dim, m->axis, m->count);
	} else {
		uint64_t sum = 0;
		for (size_t i = 0; i < m->n_sizes; i++) {
			if (m->sizes[i] == 0)
				return failf(c, "splits item %zu is 0", i);
			sum += m->sizes[i];
		}
		if (sum != dim)
			return failf(c, "splits sum to %" PRIu64 ", expected %" PRIu32
				     " (the input dimension along axis %" PRIu32 ")", sum, dim,
				     m->axis);
	}
	for (size_t i = 0; i < count; i++)
		result_copy(c, x)->dims[m->axis] = m->has_count ? dim / m->count : m->sizes[i];
	return true;
}

static bool infer_tile(struct infer *c)
{
	const Webnn__Ipc__Tile *m = c->op->tile;
	const struct wnn_desc *x = D(c, m->input);
	if (!check_type(c, x, "input", first_mask(c)))
		return false;
	if (m->n_repetitions != x->rank)
		return failf(c, "repetitions has %zu values, expected %" PRIu32 " (the input rank)",
			     m->n_repetitions, x->rank);
	struct wnn_desc *r = result_copy(c, x);
	for (uint32_t i = 0; i < x->rank; i++) {
		if (m->repetitions[i] == 0)
			return failf(c, "repetitions item %" PRIu32 " is 0", i);
		char what[48];
		snprintf(what, sizeof(what), "output dimension %" PRIu32, i);
		uint64_t v = (uint64_t)x->dims[i] * m->repetitions[i];
		if (!set_dim(c, r, i, v > MAX_DIM ? INT64_MAX : (int64_t)v, what))
			return false;
	}
	return true;
}

static bool infer_transpose(struct infer *c)
{
	const Webnn__Ipc__Transpose *m = c->op->transpose;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t mask;
	if (!check_type(c, x, "input", first_mask(c)))
		return false;
	struct wnn_desc *r = result_copy(c, x);
	if (!m->has_permutation) {
		for (uint32_t i = 0; i < x->rank; i++)
			r->dims[i] = x->dims[x->rank - 1 - i];
		return true;
	}
	if (m->n_permutation != x->rank)
		return failf(c, "permutation has %zu values, expected %" PRIu32 " (the input rank)",
			     m->n_permutation, x->rank);
	if (!check_axes(c, m->permutation, m->n_permutation, x->rank, "permutation", &mask))
		return false;
	for (uint32_t i = 0; i < x->rank; i++)
		r->dims[i] = x->dims[m->permutation[i]];
	return true;
}

static bool infer_triangular(struct infer *c)
{
	const struct wnn_desc *x = D(c, c->op->triangular->input);
	if (!check_type(c, x, "input", first_mask(c)) ||
	    !check_rank(c, x, "input", 2, WNN_MAX_RANK))
		return false;
	result_copy(c, x);
	return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Gather / scatter. */

#define INDEX_TYPES (WNN_DT_BIT(WNN_I32) | WNN_DT_BIT(WNN_U32) | WNN_DT_BIT(WNN_I64))

static bool infer_gather(struct infer *c)
{
	const Webnn__Ipc__Gather *m = c->op->gather;
	const struct wnn_desc *x = D(c, m->input), *idx = D(c, m->indices);
	char sa[96];
	if (!check_type(c, x, "input", first_mask(c)) ||
	    !check_type(c, idx, "indices", INDEX_TYPES) ||
	    !check_rank(c, x, "input", 1, WNN_MAX_RANK))
		return false;
	if (c->kind == WNN_OP_GATHER) {
		if (!check_axis(c, m->axis, x->rank, "axis"))
			return false;
		uint32_t rank = x->rank - 1 + idx->rank;
		if (rank > WNN_MAX_RANK)
			return failf(c, "output rank %" PRIu32 " exceeds the maximum rank %d", rank,
				     WNN_MAX_RANK);
		struct wnn_desc *r = result(c, x->type, 0);
		for (uint32_t i = 0; i < m->axis; i++)
			r->dims[r->rank++] = x->dims[i];
		for (uint32_t i = 0; i < idx->rank; i++)
			r->dims[r->rank++] = idx->dims[i];
		for (uint32_t i = m->axis + 1; i < x->rank; i++)
			r->dims[r->rank++] = x->dims[i];
		return true;
	}
	if (c->kind == WNN_OP_GATHER_ELEMENTS) {
		if (!check_rank(c, idx, "indices", x->rank, x->rank) ||
		    !check_axis(c, m->axis, x->rank, "axis"))
			return false;
		for (uint32_t i = 0; i < x->rank; i++)
			if (i != m->axis && idx->dims[i] != x->dims[i])
				return failf(c, "indices shape %s must equal the input shape except "
					     "along axis %" PRIu32, SHAPE(idx, sa), m->axis);
		result_copy(c, idx)->type = x->type;
		return true;
	}
	/* gatherND */
	if (!check_rank(c, idx, "indices", 1, WNN_MAX_RANK))
		return false;
	uint32_t coord = idx->dims[idx->rank - 1];
	if (coord > x->rank)
		return failf(c, "indices last dimension %" PRIu32 " exceeds the input rank %" PRIu32,
			     coord, x->rank);
	uint32_t rank = idx->rank - 1 + x->rank - coord;
	if (rank > WNN_MAX_RANK)
		return failf(c, "output rank %" PRIu32 " exceeds the maximum rank %d", rank,
			     WNN_MAX_RANK);
	struct wnn_desc *r = result(c, x->type, 0);
	for (uint32_t i = 0; i + 1 < idx->rank; i++)
		r->dims[r->rank++] = idx->dims[i];
	for (uint32_t i = coord; i < x->rank; i++)
		r->dims[r->rank++] = x->dims[i];
	return true;
}

static bool infer_scatter(struct infer *c)
{
	const Webnn__Ipc__Scatter *m = c->op->scatter;
	const struct wnn_desc *x = D(c, m->input), *idx = D(c, m->indices), *u = D(c, m->updates);
	char sa[96], sb[96];
	if (!check_type(c, x, "input", first_mask(c)) ||
	    !check_type(c, idx, "indices", INDEX_TYPES) ||
	    !check_same_type(c, u, "updates", x, "input") ||
	    !check_rank(c, x, "input", 1, WNN_MAX_RANK))
		return false;
	if (c->kind == WNN_OP_SCATTER_ELEMENTS) {
		if (!check_rank(c, idx, "indices", x->rank, x->rank) ||
		    !check_rank(c, u, "updates", x->rank, x->rank) ||
		    !check_axis(c, m->axis, x->rank, "axis"))
			return false;
		for (uint32_t i = 0; i < x->rank; i++)
			if (i != m->axis && idx->dims[i] != x->dims[i])
				return failf(c, "indices shape %s must equal the input shape except "
					     "along axis %" PRIu32, SHAPE(idx, sa), m->axis);
		if (u->rank != idx->rank ||
		    memcmp(u->dims, idx->dims, sizeof(uint32_t) * idx->rank) != 0)
			return failf(c, "updates shape %s is not the indices shape %s", SHAPE(u, sa),
				     SHAPE(idx, sb));
		result_copy(c, x);
		return true;
	}
	/* scatterND */
	if (!check_rank(c, idx, "indices", 1, WNN_MAX_RANK))
		return false;
	uint32_t coord = idx->dims[idx->rank - 1];
	if (coord > x->rank)
		return failf(c, "indices last dimension %" PRIu32 " exceeds the input rank %" PRIu32,
			     coord, x->rank);
	uint64_t want[2 * WNN_MAX_RANK];
	uint32_t n = 0;
	for (uint32_t i = 0; i + 1 < idx->rank; i++)
		want[n++] = idx->dims[i];
	for (uint32_t i = coord; i < x->rank; i++)
		want[n++] = x->dims[i];
	if (!check_shape(c, u, "updates", want, n, "indices.shape[0:-1] + input.shape[k:]"))
		return false;
	result_copy(c, x);
	return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Quantization. */

static bool blockwise(const struct wnn_desc *from, const struct wnn_desc *to)
{
	if (from->rank != to->rank)
		return false;
	for (uint32_t i = 0; i < to->rank; i++)
		if (to->dims[i] % from->dims[i])
			return false;
	return true;
}

static bool infer_quantize(struct infer *c)
{
	const Webnn__Ipc__QuantizeLinear *m = c->op->quantize_linear;
	const struct wnn_desc *x = D(c, m->input), *s = D(c, m->scale), *z = D(c, m->zero_point);
	const uint32_t qtypes = WNN_DT_BIT(WNN_U8) | WNN_DT_BIT(WNN_I8) | WNN_DT_BIT(WNN_U32) |
				WNN_DT_BIT(WNN_I32);
	char sa[96], sb[96];
	if (!check_type(c, x, "input", first_mask(c)))
		return false;
	if (c->kind == WNN_OP_QUANTIZE_LINEAR) {
		if (!check_type(c, s, "scale", WNN_DT_FLOAT) ||
		    !check_same_type(c, s, "scale", x, "input") ||
		    !check_type(c, z, "zeroPoint", qtypes))
			return false;
	} else {
		if (!check_type(c, s, "scale", WNN_DT_FLOAT) ||
		    !check_type(c, z, "zeroPoint", qtypes) ||
		    !check_same_type(c, z, "zeroPoint", x, "input"))
			return false;
	}
	if (s->rank != x->rank || z->rank != x->rank)
		return failf(c, "scale rank %" PRIu32 " and zeroPoint rank %" PRIu32
			     " must equal the input rank %" PRIu32, s->rank, z->rank, x->rank);
	if (memcmp(s->dims, z->dims, sizeof(uint32_t) * s->rank) != 0)
		return failf(c, "scale shape %s differs from zeroPoint shape %s", SHAPE(s, sa),
			     SHAPE(z, sb));
	if (!blockwise(s, x))
		return failf(c, "scale shape %s is not blockwise broadcastable to input shape %s",
			     SHAPE(s, sa), SHAPE(x, sb));
	result_copy(c, x)->type = c->kind == WNN_OP_QUANTIZE_LINEAR ? z->type : s->type;
	return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Matrix products. */

static bool infer_gemm(struct infer *c)
{
	const Webnn__Ipc__Gemm *m = c->op->gemm;
	const struct wnn_desc *a = D(c, m->a), *b = D(c, m->b);
	char sa[96], sb[96];
	if (!check_type(c, a, "a", first_mask(c)) || !check_same_type(c, b, "b", a, "a") ||
	    !check_rank(c, a, "a", 2, 2) || !check_rank(c, b, "b", 2, 2))
		return false;
	uint32_t am = m->a_transpose ? a->dims[1] : a->dims[0];
	uint32_t ak = m->a_transpose ? a->dims[0] : a->dims[1];
	uint32_t bk = m->b_transpose ? b->dims[1] : b->dims[0];
	uint32_t bn = m->b_transpose ? b->dims[0] : b->dims[1];
	if (ak != bk)
		return failf(c, "a shape %s%s and b shape %s%s are incompatible: %" PRIu32
			     " columns vs %" PRIu32 " rows", SHAPE(a, sa),
			     m->a_transpose ? " (transposed)" : "", SHAPE(b, sb),
			     m->b_transpose ? " (transposed)" : "", ak, bk);
	struct wnn_desc *r = result(c, a->type, 2);
	r->dims[0] = am;
	r->dims[1] = bn;
	if (m->has_c) {
		const struct wnn_desc *cc = D(c, m->c);
		if (!bcast_uni(cc->dims, cc->rank, r->dims, 2))
			return failf(c, "c shape %s is not unidirectionally broadcastable to %s",
				     SHAPE(cc, sa), SHAPE(r, sb));
		if (!check_same_type(c, cc, "c", a, "a"))
			return false;
	}
	return true;
}

static bool infer_matmul(struct infer *c)
{
	const Webnn__Ipc__Matmul *m = c->op->matmul;
	const struct wnn_desc *a = D(c, m->a), *b = D(c, m->b);
	char sa[96], sb[96];
	if (!check_type(c, a, "a", first_mask(c)) || !check_same_type(c, b, "b", a, "a") ||
	    !check_rank(c, a, "a", 2, WNN_MAX_RANK) || !check_rank(c, b, "b", 2, WNN_MAX_RANK))
		return false;
	uint32_t cols_a = a->dims[a->rank - 1], rows_a = a->dims[a->rank - 2];
	uint32_t cols_b = b->dims[b->rank - 1], rows_b = b->dims[b->rank - 2];
	if (cols_a != rows_b)
		return failf(c, "a shape %s and b shape %s are incompatible: %" PRIu32
			     " columns vs %" PRIu32 " rows", SHAPE(a, sa), SHAPE(b, sb), cols_a,
			     rows_b);
	struct wnn_desc ba = *a, bb = *b;
	ba.rank -= 2;
	bb.rank -= 2;
	struct wnn_desc *r = result(c, a->type, 0);
	if (!bcast_bi(&ba, &bb, r))
		return failf(c, "batch shapes %s and %s are not broadcastable", SHAPE(&ba, sa),
			     SHAPE(&bb, sb));
	r->dims[r->rank++] = rows_a;
	r->dims[r->rank++] = cols_b;
	return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Convolution and pooling. */

static int64_t floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return a >= 0 ? (a + b - 1) / b : -(-a / b);
}

/* Returns the list (or the default when empty) after checking its length and zeros. */
static bool conv_list(struct infer *c, const uint32_t *v, size_t n, size_t want, uint32_t dflt,
		      bool nonzero, const char *what, uint32_t *out)
{
	char buf[96];
	if (n == 0) {
		for (size_t i = 0; i < want; i++)
			out[i] = dflt;
		return true;
	}
	if (n != want)
		return failf(c, "%s has %zu values, expected %zu", what, n, want);
	for (size_t i = 0; i < want; i++) {
		if (nonzero && v[i] == 0)
			return failf(c, "%s %s must not contain 0", what, LIST(v, n, buf));
		out[i] = v[i];
	}
	return true;
}

/* Spec "calculate conv output size" numerator, before dividing by the stride. */
static int64_t conv_span(uint32_t in, uint32_t filter, uint32_t pb, uint32_t pe, uint32_t dil)
{
	int64_t eff = ((int64_t)filter - 1) * dil + 1;
	return (int64_t)in - eff + pb + pe;
}

static bool infer_conv2d(struct infer *c)
{
	const Webnn__Ipc__Conv2d *m = c->op->conv2d;
	const struct wnn_desc *x = D(c, m->input), *f = D(c, m->filter);
	uint32_t pad[4], strides[2], dil[2];
	if (!check_type(c, x, "input", first_mask(c)) || !check_rank(c, x, "input", 4, 4) ||
	    !check_rank(c, f, "filter", 4, 4) || !check_same_type(c, f, "filter", x, "input") ||
	    !conv_list(c, m->padding, m->n_padding, 4, 0, false, "padding", pad) ||
	    !conv_list(c, m->strides, m->n_strides, 2, 1, true, "strides", strides) ||
	    !conv_list(c, m->dilations, m->n_dilations, 2, 1, true, "dilations", dil))
		return false;
	if (m->groups == 0)
		return failf(c, "groups must not be 0");
	if (!check_enum(c, (int)m->input_layout, WEBNN__IPC__INPUT_LAYOUT__NHWC, "inputLayout") ||
	    !check_enum(c, (int)m->filter_layout, WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO,
			"filterLayout"))
		return false;
	bool nhwc = m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	uint32_t n = x->dims[0], ic = x->dims[nhwc ? 3 : 1], ih = x->dims[nhwc ? 1 : 2],
		 iw = x->dims[nhwc ? 2 : 3];
	uint32_t oc, fi, fh, fw;
	const uint32_t *fd = f->dims;
	switch (m->filter_layout) {
	case WEBNN__IPC__CONV2D_FILTER_LAYOUT__HWIO:
		fh = fd[0], fw = fd[1], fi = fd[2], oc = fd[3];
		break;
	case WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI:
		oc = fd[0], fh = fd[1], fw = fd[2], fi = fd[3];
		break;
	case WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO:
		fi = fd[0], fh = fd[1], fw = fd[2], oc = fd[3];
		break;
	default:
		oc = fd[0], fi = fd[1], fh = fd[2], fw = fd[3];
		break;
	}
	if (ic % m->groups)
		return failf(c, "input channels %" PRIu32 " are not divisible by groups %" PRIu32, ic,
			     m->groups);
	if (ic / m->groups != fi)
		return failf(c, "filter input channels %" PRIu32 " do not match input channels %" PRIu32
			     " / groups %" PRIu32, fi, ic, m->groups);
	if (oc % m->groups)
		return failf(c, "output channels %" PRIu32 " are not divisible by groups %" PRIu32,
			     oc, m->groups);
	if (m->has_bias) {
		const struct wnn_desc *b = D(c, m->bias);
		uint64_t want = oc;
		if (!check_shape(c, b, "bias", &want, 1, "output channels") ||
		    !check_same_type(c, b, "bias", x, "input"))
			return false;
	}
	int64_t oh = floor_div(conv_span(ih, fh, pad[0], pad[1], dil[0]), strides[0]) + 1;
	int64_t ow = floor_div(conv_span(iw, fw, pad[2], pad[3], dil[1]), strides[1]) + 1;
	struct wnn_desc *r = result(c, x->type, 4);
	r->dims[0] = n;
	r->dims[nhwc ? 3 : 1] = oc;
	return set_dim(c, r, nhwc ? 1 : 2, oh, "output height") &&
	       set_dim(c, r, nhwc ? 2 : 3, ow, "output width");
}

static bool infer_conv_transpose2d(struct infer *c)
{
	const Webnn__Ipc__ConvTranspose2d *m = c->op->conv_transpose2d;
	const struct wnn_desc *x = D(c, m->input), *f = D(c, m->filter);
	uint32_t pad[4], strides[2], dil[2], opad[2], osz[2];
	if (!check_type(c, x, "input", first_mask(c)) || !check_rank(c, x, "input", 4, 4) ||
	    !check_rank(c, f, "filter", 4, 4) || !check_same_type(c, f, "filter", x, "input") ||
	    !conv_list(c, m->padding, m->n_padding, 4, 0, false, "padding", pad) ||
	    !conv_list(c, m->strides, m->n_strides, 2, 1, true, "strides", strides) ||
	    !conv_list(c, m->dilations, m->n_dilations, 2, 1, true, "dilations", dil) ||
	    !conv_list(c, m->output_padding, m->n_output_padding, 2, 0, false, "outputPadding",
		       opad) ||
	    !conv_list(c, m->output_sizes, m->n_output_sizes, 2, 0, false, "outputSizes", osz))
		return false;
	if (!m->n_output_sizes && (opad[0] >= strides[0] || opad[1] >= strides[1]))
		return failf(c, "outputPadding [%" PRIu32 ", %" PRIu32
			     "] must be smaller than strides [%" PRIu32 ", %" PRIu32 "]", opad[0],
			     opad[1], strides[0], strides[1]);
	if (m->groups == 0)
		return failf(c, "groups must not be 0");
	if (!check_enum(c, (int)m->input_layout, WEBNN__IPC__INPUT_LAYOUT__NHWC, "inputLayout") ||
	    !check_enum(c, (int)m->filter_layout,
			WEBNN__IPC__CONV_TRANSPOSE2D_FILTER_LAYOUT__OHWI_T, "filterLayout"))
		return false;
	bool nhwc = m->input_layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	uint32_t n = x->dims[0], ic = x->dims[nhwc ? 3 : 1], ih = x->dims[nhwc ? 1 : 2],
		 iw = x->dims[nhwc ? 2 : 3];
	uint32_t fo, fi, fh, fw;
	const uint32_t *fd = f->dims;
	switch (m->filter_layout) {
	case WEBNN__IPC__CONV_TRANSPOSE2D_FILTER_LAYOUT__HWOI:
		fh = fd[0], fw = fd[1], fo = fd[2], fi = fd[3];
		break;
	case WEBNN__IPC__CONV_TRANSPOSE2D_FILTER_LAYOUT__OHWI_T:
		fo = fd[0], fh = fd[1], fw = fd[2], fi = fd[3];
		break;
	default:
		fi = fd[0], fo = fd[1], fh = fd[2], fw = fd[3];
		break;
	}
	if (ic != fi)
		return failf(c, "filter input channels %" PRIu32 " do not match input channels %" PRIu32,
			     fi, ic);
	uint64_t oc = (uint64_t)fo * m->groups;
	if (oc > MAX_DIM)
		return failf(c, "output channels %" PRIu64 " (filter output channels * groups) "
			     "exceed %" PRIu64, oc, MAX_DIM);
	if (m->has_bias) {
		const struct wnn_desc *b = D(c, m->bias);
		if (!check_shape(c, b, "bias", &oc, 1, "output channels") ||
		    !check_same_type(c, b, "bias", x, "input"))
			return false;
	}
	const uint32_t in[2] = { ih, iw }, fs[2] = { fh, fw };
	int64_t out[2];
	for (int i = 0; i < 2; i++) {
		/* (in - 1) * stride can reach 2^63: compute in 128 bits and clamp. */
		__int128 eff = ((__int128)fs[i] - 1) * dil[i] + 1;
		__int128 calc = ((__int128)in[i] - 1) * strides[i] + eff - pad[2 * i] -
				pad[2 * i + 1];
		if (m->n_output_sizes) {
			if (osz[i] < calc || osz[i] >= calc + strides[i])
				return failf(c, "outputSizes item %d is %" PRIu32
					     ", expected at least %" PRId64 " and less than %" PRId64,
					     i, osz[i], (int64_t)calc,
					     (int64_t)(calc + strides[i]));
			out[i] = osz[i];
		} else {
			calc += opad[i];
			out[i] = calc > (__int128)INT64_MAX ? INT64_MAX
				 : calc < (__int128)INT64_MIN ? INT64_MIN : (int64_t)calc;
		}
	}
	struct wnn_desc *r = result(c, x->type, 4);
	r->dims[0] = n;
	r->dims[nhwc ? 3 : 1] = (uint32_t)oc;
	return set_dim(c, r, nhwc ? 1 : 2, out[0], "output height") &&
	       set_dim(c, r, nhwc ? 2 : 3, out[1], "output width");
}

static bool infer_pool2d(struct infer *c)
{
	const Webnn__Ipc__Pool2d *m = c->op->pool2d;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t win[2], pad[4], strides[2], dil[2], osz[2];
	if (!check_type(c, x, "input", first_mask(c)) || !check_rank(c, x, "input", 4, 4) ||
	    !check_enum(c, (int)m->layout, WEBNN__IPC__INPUT_LAYOUT__NHWC, "layout") ||
	    !check_enum(c, (int)m->output_shape_rounding, WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL,
			"outputShapeRounding"))
		return false;
	bool nhwc = m->layout == WEBNN__IPC__INPUT_LAYOUT__NHWC;
	uint32_t ih = x->dims[nhwc ? 1 : 2], iw = x->dims[nhwc ? 2 : 3];
	if (!conv_list(c, m->window_dimensions, m->n_window_dimensions, 2, 0, true,
		       "windowDimensions", win))
		return false;
	if (!m->n_window_dimensions)
		win[0] = ih, win[1] = iw;
	/* The spec text zeroes padding when outputSizes is given and requires outputSizes below
	 * strides; both contradict its own conformance tests (and every implementation), so the
	 * padding is kept and outputSizes is checked against the floor/ceil sizes only. */
	if (!conv_list(c, m->padding, m->n_padding, 4, 0, false, "padding", pad) ||
	    !conv_list(c, m->strides, m->n_strides, 2, 1, true, "strides", strides) ||
	    !conv_list(c, m->output_sizes, m->n_output_sizes, 2, 0, false, "outputSizes", osz) ||
	    !conv_list(c, m->dilations, m->n_dilations, 2, 1, true, "dilations", dil))
		return false;
	int64_t span_h = conv_span(ih, win[0], pad[0], pad[1], dil[0]);
	int64_t span_w = conv_span(iw, win[1], pad[2], pad[3], dil[1]);
	int64_t fh = floor_div(span_h, strides[0]) + 1, fw = floor_div(span_w, strides[1]) + 1;
	int64_t ch = ceil_div(span_h, strides[0]) + 1, cw = ceil_div(span_w, strides[1]) + 1;
	int64_t oh, ow;
	if (m->n_output_sizes) {
		oh = osz[0], ow = osz[1];
		if (!((oh == fh && ow == fw) || (oh == ch && ow == cw)))
			return failf(c, "outputSizes [%" PRIu32 ", %" PRIu32 "] match neither the "
				     "floor sizes [%" PRId64 ", %" PRId64 "] nor the ceil sizes [%"
				     PRId64 ", %" PRId64 "]", osz[0], osz[1], fh, fw, ch, cw);
	} else if (m->output_shape_rounding == WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL) {
		oh = ch, ow = cw;
	} else {
		oh = fh, ow = fw;
	}
	struct wnn_desc *r = result_copy(c, x);
	return set_dim(c, r, nhwc ? 1 : 2, oh, "output height") &&
	       set_dim(c, r, nhwc ? 2 : 3, ow, "output width");
}

static bool infer_resample2d(struct infer *c)
{
	const Webnn__Ipc__Resample2d *m = c->op->resample2d;
	const struct wnn_desc *x = D(c, m->input);
	uint32_t axes[2] = { 2, 3 }, mask;
	if (!check_type(c, x, "input", first_mask(c)) || !check_rank(c, x, "input", 4, 4) ||
	    !check_enum(c, (int)m->mode, WEBNN__IPC__INTERPOLATION_MODE__LINEAR, "mode"))
		return false;
	if (m->n_scales) {
		if (m->n_scales != 2)
			return failf(c, "scales has %zu values, expected 2", m->n_scales);
		for (int i = 0; i < 2; i++)
			if (!(m->scales[i] > 0))
				return failf(c, "scales item %d is %g, expected a positive number", i,
					     (double)m->scales[i]);
	}
	if (m->n_sizes) {
		if (m->n_sizes != 2)
			return failf(c, "sizes has %zu values, expected 2", m->n_sizes);
		for (int i = 0; i < 2; i++)
			if (m->sizes[i] == 0)
				return failf(c, "sizes item %d is 0", i);
	}
	if (m->n_axes) {
		/* scales and sizes have two items, so the axes must too. */
		if (m->n_axes != 2)
			return failf(c, "axes has %zu values, expected 2", m->n_axes);
		if (!check_axes(c, m->axes, m->n_axes, x->rank, "axes", &mask))
			return false;
		axes[0] = m->axes[0], axes[1] = m->axes[1];
	}
	struct wnn_desc *r = result_copy(c, x);
	for (int i = 0; i < 2; i++) {
		double size = m->n_sizes ? m->sizes[i]
				: floor((double)x->dims[axes[i]] * (m->n_scales ? m->scales[i] : 1.0));
		char what[48];
		snprintf(what, sizeof(what), "output dimension %" PRIu32, axes[i]);
		if (!(size >= 1 && size <= (double)MAX_DIM))
			return failf(c, "%s is %.0f, expected a valid dimension", what, size);
		r->dims[axes[i]] = (uint32_t)size;
	}
	return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Recurrent networks. */

static bool check_activations(struct infer *c, const Webnn__Ipc__RecurrentActivation *acts,
			      size_t n, size_t want)
{
	if (n == 0)
		return true; /* absent: the spec defaults */
	if (n != want)
		return failf(c, "activations has %zu items, expected %zu", n, want);
	for (size_t i = 0; i < n; i++)
		if (!check_enum(c, (int)acts[i], WEBNN__IPC__RECURRENT_ACTIVATION__ACT_TANH,
				"activations item"))
			return false;
	return true;
}

/* Checks an optional recurrent operand against a shape of 1 to 3 dims. */
static bool check_rnn_operand(struct infer *c, bool has, uint32_t id, const char *role,
			      const struct wnn_desc *x, uint64_t d0, uint64_t d1, uint64_t d2,
			      uint32_t rank, const char *what)
{
	if (!has)
		return true;
	const struct wnn_desc *d = D(c, id);
	const uint64_t want[3] = { d0, d1, d2 };
	return check_same_type(c, d, role, x, "input") && check_shape(c, d, role, want, rank, what);
}

static bool check_hidden_size(struct infer *c, uint32_t hidden, uint64_t gates)
{
	if (hidden == 0 || (uint64_t)hidden * gates * 2 > MAX_DIM)
		return failf(c, "hiddenSize %" PRIu32 " is not valid: hiddenSize * %" PRIu64
			     " must be a valid dimension", hidden, gates * 2);
	return true;
}

static bool infer_gru(struct infer *c)
{
	const Webnn__Ipc__Gru *m = c->op->gru;
	const struct wnn_desc *x = D(c, m->input), *w = D(c, m->weight),
			      *rw = D(c, m->recurrent_weight);
	if (!check_type(c, x, "input", first_mask(c)) ||
	    !check_same_type(c, w, "weight", x, "input") ||
	    !check_same_type(c, rw, "recurrentWeight", x, "input") ||
	    !check_rank(c, x, "input", 3, 3) || !check_rank(c, w, "weight", 3, 3) ||
	    !check_rank(c, rw, "recurrentWeight", 3, 3) ||
	    !check_enum(c, (int)m->direction, WEBNN__IPC__RECURRENT_DIRECTION__BOTH, "direction") ||
	    !check_enum(c, (int)m->layout, WEBNN__IPC__GRU_WEIGHT_LAYOUT__RZN, "layout"))
		return false;
	if (m->steps == 0 || x->dims[0] != m->steps)
		return failf(c, "input.shape[0] is %" PRIu32 ", expected steps %" PRIu32, x->dims[0],
			     m->steps);
	uint32_t batch = x->dims[1], in_size = x->dims[2], h = m->hidden_size;
	uint64_t dirs = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BOTH ? 2 : 1;
	uint64_t h3 = 3 * (uint64_t)h;
	const char *wd = "[numDirections, 3 * hiddenSize, inputSize]";
	const char *rd = "[numDirections, 3 * hiddenSize, hiddenSize]";
	if (!check_rnn_operand(c, true, m->weight, "weight", x, dirs, h3, in_size, 3, wd) ||
	    !check_rnn_operand(c, true, m->recurrent_weight, "recurrentWeight", x, dirs, h3, h, 3,
			       rd) ||
	    !check_hidden_size(c, h, 3) ||
	    !check_rnn_operand(c, m->has_bias, m->bias, "bias", x, dirs, h3, 0, 2,
			       "[numDirections, 3 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_recurrent_bias, m->recurrent_bias, "recurrentBias", x, dirs,
			       h3, 0, 2, "[numDirections, 3 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_initial_hidden_state, m->initial_hidden_state,
			       "initialHiddenState", x, dirs, batch, h, 3,
			       "[numDirections, batchSize, hiddenSize]") ||
	    !check_activations(c, m->activations, m->n_activations, 2))
		return false;
	struct wnn_desc *r = result(c, x->type, 3);
	r->dims[0] = (uint32_t)dirs, r->dims[1] = batch, r->dims[2] = h;
	if (m->return_sequence) {
		r = result(c, x->type, 4);
		r->dims[0] = m->steps, r->dims[1] = (uint32_t)dirs, r->dims[2] = batch, r->dims[3] = h;
	}
	return true;
}

static bool infer_gru_cell(struct infer *c)
{
	const Webnn__Ipc__GruCell *m = c->op->gru_cell;
	const struct wnn_desc *x = D(c, m->input), *w = D(c, m->weight),
			      *rw = D(c, m->recurrent_weight), *hs = D(c, m->hidden_state);
	if (!check_type(c, x, "input", first_mask(c)) ||
	    !check_same_type(c, w, "weight", x, "input") ||
	    !check_same_type(c, rw, "recurrentWeight", x, "input") ||
	    !check_same_type(c, hs, "hiddenState", x, "input") ||
	    !check_rank(c, x, "input", 2, 2) || !check_rank(c, w, "weight", 2, 2) ||
	    !check_rank(c, rw, "recurrentWeight", 2, 2) ||
	    !check_rank(c, hs, "hiddenState", 2, 2) ||
	    !check_enum(c, (int)m->layout, WEBNN__IPC__GRU_WEIGHT_LAYOUT__RZN, "layout"))
		return false;
	uint32_t batch = x->dims[0], in_size = x->dims[1], h = m->hidden_size;
	uint64_t h3 = 3 * (uint64_t)h;
	if (!check_rnn_operand(c, true, m->weight, "weight", x, h3, in_size, 0, 2,
			       "[3 * hiddenSize, inputSize]") ||
	    !check_rnn_operand(c, true, m->recurrent_weight, "recurrentWeight", x, h3, h, 0, 2,
			       "[3 * hiddenSize, hiddenSize]") ||
	    !check_rnn_operand(c, true, m->hidden_state, "hiddenState", x, batch, h, 0, 2,
			       "[batchSize, hiddenSize]") ||
	    !check_hidden_size(c, h, 3) ||
	    !check_rnn_operand(c, m->has_bias, m->bias, "bias", x, h3, 0, 0, 1,
			       "[3 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_recurrent_bias, m->recurrent_bias, "recurrentBias", x, h3,
			       0, 0, 1, "[3 * hiddenSize]") ||
	    !check_activations(c, m->activations, m->n_activations, 2))
		return false;
	struct wnn_desc *r = result(c, x->type, 2);
	r->dims[0] = batch, r->dims[1] = h;
	return true;
}

static bool infer_lstm(struct infer *c)
{
	const Webnn__Ipc__Lstm *m = c->op->lstm;
	const struct wnn_desc *x = D(c, m->input), *w = D(c, m->weight),
			      *rw = D(c, m->recurrent_weight);
	if (!check_type(c, x, "input", first_mask(c)) ||
	    !check_same_type(c, w, "weight", x, "input") ||
	    !check_same_type(c, rw, "recurrentWeight", x, "input") ||
	    !check_rank(c, x, "input", 3, 3) || !check_rank(c, w, "weight", 3, 3) ||
	    !check_rank(c, rw, "recurrentWeight", 3, 3) ||
	    !check_enum(c, (int)m->direction, WEBNN__IPC__RECURRENT_DIRECTION__BOTH, "direction") ||
	    !check_enum(c, (int)m->layout, WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IFGO, "layout"))
		return false;
	if (m->steps == 0 || x->dims[0] != m->steps)
		return failf(c, "input.shape[0] is %" PRIu32 ", expected steps %" PRIu32, x->dims[0],
			     m->steps);
	uint32_t batch = x->dims[1], in_size = x->dims[2], h = m->hidden_size;
	uint64_t dirs = m->direction == WEBNN__IPC__RECURRENT_DIRECTION__BOTH ? 2 : 1;
	uint64_t h4 = 4 * (uint64_t)h, h3 = 3 * (uint64_t)h;
	const char *st = "[numDirections, batchSize, hiddenSize]";
	if (!check_rnn_operand(c, true, m->weight, "weight", x, dirs, h4, in_size, 3,
			       "[numDirections, 4 * hiddenSize, inputSize]") ||
	    !check_rnn_operand(c, true, m->recurrent_weight, "recurrentWeight", x, dirs, h4, h, 3,
			       "[numDirections, 4 * hiddenSize, hiddenSize]") ||
	    !check_hidden_size(c, h, 4) ||
	    !check_rnn_operand(c, m->has_bias, m->bias, "bias", x, dirs, h4, 0, 2,
			       "[numDirections, 4 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_recurrent_bias, m->recurrent_bias, "recurrentBias", x, dirs,
			       h4, 0, 2, "[numDirections, 4 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_peephole_weight, m->peephole_weight, "peepholeWeight", x,
			       dirs, h3, 0, 2, "[numDirections, 3 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_initial_hidden_state, m->initial_hidden_state,
			       "initialHiddenState", x, dirs, batch, h, 3, st) ||
	    !check_rnn_operand(c, m->has_initial_cell_state, m->initial_cell_state,
			       "initialCellState", x, dirs, batch, h, 3, st) ||
	    !check_activations(c, m->activations, m->n_activations, 3))
		return false;
	for (int k = 0; k < 2; k++) {
		struct wnn_desc *r = result(c, x->type, 3);
		r->dims[0] = (uint32_t)dirs, r->dims[1] = batch, r->dims[2] = h;
	}
	if (m->return_sequence) {
		struct wnn_desc *r = result(c, x->type, 4);
		r->dims[0] = m->steps, r->dims[1] = (uint32_t)dirs, r->dims[2] = batch, r->dims[3] = h;
	}
	return true;
}

static bool infer_lstm_cell(struct infer *c)
{
	const Webnn__Ipc__LstmCell *m = c->op->lstm_cell;
	const struct wnn_desc *x = D(c, m->input), *w = D(c, m->weight),
			      *rw = D(c, m->recurrent_weight), *hs = D(c, m->hidden_state),
			      *cs = D(c, m->cell_state);
	if (!check_type(c, x, "input", first_mask(c)) ||
	    !check_same_type(c, w, "weight", x, "input") ||
	    !check_same_type(c, rw, "recurrentWeight", x, "input") ||
	    !check_same_type(c, hs, "hiddenState", x, "input") ||
	    !check_same_type(c, cs, "cellState", x, "input") ||
	    !check_rank(c, x, "input", 2, 2) || !check_rank(c, w, "weight", 2, 2) ||
	    !check_rank(c, rw, "recurrentWeight", 2, 2) ||
	    !check_rank(c, hs, "hiddenState", 2, 2) || !check_rank(c, cs, "cellState", 2, 2) ||
	    !check_enum(c, (int)m->layout, WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IFGO, "layout"))
		return false;
	uint32_t batch = x->dims[0], in_size = x->dims[1], h = m->hidden_size;
	uint64_t h4 = 4 * (uint64_t)h, h3 = 3 * (uint64_t)h;
	if (!check_rnn_operand(c, true, m->weight, "weight", x, h4, in_size, 0, 2,
			       "[4 * hiddenSize, inputSize]") ||
	    !check_rnn_operand(c, true, m->recurrent_weight, "recurrentWeight", x, h4, h, 0, 2,
			       "[4 * hiddenSize, hiddenSize]") ||
	    !check_rnn_operand(c, true, m->hidden_state, "hiddenState", x, batch, h, 0, 2,
			       "[batchSize, hiddenSize]") ||
	    !check_rnn_operand(c, true, m->cell_state, "cellState", x, batch, h, 0, 2,
			       "[batchSize, hiddenSize]") ||
	    !check_hidden_size(c, h, 4) ||
	    !check_rnn_operand(c, m->has_bias, m->bias, "bias", x, h4, 0, 0, 1,
			       "[4 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_recurrent_bias, m->recurrent_bias, "recurrentBias", x, h4,
			       0, 0, 1, "[4 * hiddenSize]") ||
	    !check_rnn_operand(c, m->has_peephole_weight, m->peephole_weight, "peepholeWeight", x,
			       h3, 0, 0, 1, "[3 * hiddenSize]") ||
	    !check_activations(c, m->activations, m->n_activations, 3))
		return false;
	for (int k = 0; k < 2; k++) {
		struct wnn_desc *r = result(c, x->type, 2);
		r->dims[0] = batch, r->dims[1] = h;
	}
	return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Entry point. */

static bool check_input(void *ud, uint32_t id, const char *role)
{
	struct infer *c = ud;
	if (id >= c->n_operands)
		return failf(c, "%s operand id %" PRIu32 " is out of range (%zu operands)", role, id,
			     c->n_operands);
	const struct wnn_desc *d = &c->operands[id];
	if (d->type == WNN_DT_NONE)
		return failf(c, "%s operand %" PRIu32 " is used before it is defined", role, id);
	bool valid = wnn_dtype_size(d->type) != 0 && d->rank <= WNN_MAX_RANK;
	for (uint32_t i = 0; valid && i < d->rank; i++)
		valid = d->dims[i] != 0 && d->dims[i] <= MAX_DIM;
	if (!valid) /* the size arithmetic below relies on valid dimensions */
		return failf(c, "%s operand %" PRIu32 " has an invalid descriptor", role, id);
	return true;
}

static const char *family_name(uint32_t family)
{
	const ProtobufCFieldDescriptor *f =
		protobuf_c_message_descriptor_get_field(&webnn__ipc__operation__descriptor, family);
	return f && family >= WEBNN__IPC__OPERATION__ATTRS_BINARY ? f->name : "none";
}

static bool infer_family(struct infer *c)
{
	switch (c->op->attrs_case) {
	case WEBNN__IPC__OPERATION__ATTRS_BINARY: return infer_binary(c);
	case WEBNN__IPC__OPERATION__ATTRS_UNARY: return infer_unary(c);
	case WEBNN__IPC__OPERATION__ATTRS_CLAMP: return infer_clamp(c);
	case WEBNN__IPC__OPERATION__ATTRS_CAST: return infer_cast(c);
	case WEBNN__IPC__OPERATION__ATTRS_ARG_MIN_MAX: return infer_arg_min_max(c);
	case WEBNN__IPC__OPERATION__ATTRS_BATCH_NORMALIZATION: return infer_batch_norm(c);
	case WEBNN__IPC__OPERATION__ATTRS_INSTANCE_NORMALIZATION: return infer_instance_norm(c);
	case WEBNN__IPC__OPERATION__ATTRS_LAYER_NORMALIZATION: return infer_layer_norm(c);
	case WEBNN__IPC__OPERATION__ATTRS_CONCAT: return infer_concat(c);
	case WEBNN__IPC__OPERATION__ATTRS_CONV2D: return infer_conv2d(c);
	case WEBNN__IPC__OPERATION__ATTRS_CONV_TRANSPOSE2D: return infer_conv_transpose2d(c);
	case WEBNN__IPC__OPERATION__ATTRS_CUMULATIVE_SUM: return infer_cumulative_sum(c);
	case WEBNN__IPC__OPERATION__ATTRS_QUANTIZE_LINEAR: return infer_quantize(c);
	case WEBNN__IPC__OPERATION__ATTRS_EXPAND: return infer_expand(c);
	case WEBNN__IPC__OPERATION__ATTRS_GATHER: return infer_gather(c);
	case WEBNN__IPC__OPERATION__ATTRS_SCATTER: return infer_scatter(c);
	case WEBNN__IPC__OPERATION__ATTRS_GEMM: return infer_gemm(c);
	case WEBNN__IPC__OPERATION__ATTRS_MATMUL: return infer_matmul(c);
	case WEBNN__IPC__OPERATION__ATTRS_GRU: return infer_gru(c);
	case WEBNN__IPC__OPERATION__ATTRS_GRU_CELL: return infer_gru_cell(c);
	case WEBNN__IPC__OPERATION__ATTRS_LSTM: return infer_lstm(c);
	case WEBNN__IPC__OPERATION__ATTRS_LSTM_CELL: return infer_lstm_cell(c);
	case WEBNN__IPC__OPERATION__ATTRS_PAD: return infer_pad(c);
	case WEBNN__IPC__OPERATION__ATTRS_POOL2D: return infer_pool2d(c);
	case WEBNN__IPC__OPERATION__ATTRS_PRELU: return infer_prelu(c);
	case WEBNN__IPC__OPERATION__ATTRS_REDUCE: return infer_reduce(c);
	case WEBNN__IPC__OPERATION__ATTRS_RESAMPLE2D: return infer_resample2d(c);
	case WEBNN__IPC__OPERATION__ATTRS_RESHAPE: return infer_reshape(c);
	case WEBNN__IPC__OPERATION__ATTRS_REVERSE: return infer_reverse(c);
	case WEBNN__IPC__OPERATION__ATTRS_SLICE: return infer_slice(c);
	case WEBNN__IPC__OPERATION__ATTRS_SOFTMAX: return infer_softmax(c);
	case WEBNN__IPC__OPERATION__ATTRS_SPLIT: return infer_split(c);
	case WEBNN__IPC__OPERATION__ATTRS_TILE: return infer_tile(c);
	case WEBNN__IPC__OPERATION__ATTRS_TRANSPOSE: return infer_transpose(c);
	case WEBNN__IPC__OPERATION__ATTRS_TRIANGULAR: return infer_triangular(c);
	case WEBNN__IPC__OPERATION__ATTRS_WHERE: return infer_where(c);
	default:
		return failf(c, "operation has no attributes");
	}
}

enum webnn_status wnn_op_infer(const Webnn__Ipc__Operation *op, const struct wnn_desc *operands,
			       size_t n_operands, struct wnn_desc *outs, int max_outs,
			       int *n_outs, struct wnn_diag *diag)
{
	struct infer c;
	if (n_outs)
		*n_outs = 0;
	if (!op)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "operation: missing operation");
	c.kind = wnn_op_from_id(op->op);
	if (c.kind == WNN_OP_COUNT)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "operation: unknown operator id %" PRIu32, op->op);
	c.op = op;
	c.name = wnn_ops[c.kind].name;
	c.operands = operands;
	c.n_operands = operands ? n_operands : 0;
	c.diag = diag;
	c.n_res = 0;
	if ((uint32_t)op->attrs_case != wnn_ops[c.kind].attrs) {
		failf(&c, "operation carries %s attributes, expected %s",
		      family_name((uint32_t)op->attrs_case), family_name(wnn_ops[c.kind].attrs));
		return WEBNN_STATUS_TYPE_ERROR;
	}
	if (!walk_inputs(op, check_input, &c)) {
		failf(&c, "operation attributes are missing");
		return WEBNN_STATUS_TYPE_ERROR;
	}
	const uint32_t *out_ids;
	size_t n_out_ids;
	if (!output_ids(op, &out_ids, &n_out_ids)) {
		failf(&c, "operation attributes are missing");
		return WEBNN_STATUS_TYPE_ERROR;
	}
	for (size_t i = 0; i < n_out_ids; i++)
		if (out_ids[i] >= c.n_operands) {
			failf(&c, "output operand id %" PRIu32 " is out of range (%zu operands)",
			      out_ids[i], c.n_operands);
			return WEBNN_STATUS_TYPE_ERROR;
		}
	if (!infer_family(&c))
		return WEBNN_STATUS_TYPE_ERROR;
	if ((size_t)c.n_res != n_out_ids) {
		failf(&c, "operation lists %zu output operands, the operator produces %d",
		      n_out_ids, c.n_res);
		return WEBNN_STATUS_TYPE_ERROR;
	}
	for (int i = 0; i < c.n_res; i++) {
		char what[64];
		snprintf(what, sizeof(what), "%s: output %d", c.name, i);
		if (!wnn_desc_validate(&c.res[i], what, diag))
			return WEBNN_STATUS_TYPE_ERROR;
	}
	if (c.n_res > max_outs || !outs) {
		failf(&c, "%d outputs do not fit the caller's room for %d", c.n_res, max_outs);
		return WEBNN_STATUS_TYPE_ERROR;
	}
	memcpy(outs, c.res, sizeof(c.res[0]) * (size_t)c.n_res);
	if (n_outs)
		*n_outs = c.n_res;
	return WEBNN_STATUS_OK;
}
