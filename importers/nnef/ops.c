/* NNEF operations as WebNN builder calls, with NNEF semantics (left-aligned broadcasting, auto padding, borders, groups 0). */
#include "importers/nnef/nnef.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct call {
	struct nnef_eval *ev;
	const struct nnef_fragment *f;
	const struct nnef_type *generic;
	struct nnef_value *args;
	struct nnef_value *results;
};

#define CHECK(c, expr, what)                                        \
	do {                                                        \
		enum webnn_status s_ = (expr);                      \
		if (s_ != WEBNN_STATUS_OK)                          \
			nnef_fail_webnn((c)->ev, (what), s_);       \
	} while (0)

static struct nnef_value *arg(struct call *c, const char *name)
{
	for (size_t i = 0; i < c->f->n_params; i++)
		if (strcmp(c->f->params[i].name, name) == 0)
			return &c->args[i];
	nnef_fail(c->ev, "internal: no parameter '%s'", name);
}

static bool has_arg(struct call *c, const char *name)
{
	for (size_t i = 0; i < c->f->n_params; i++)
		if (strcmp(c->f->params[i].name, name) == 0)
			return true;
	return false;
}

static int64_t arg_int(struct call *c, const char *name)
{
	struct nnef_value *v = arg(c, name);
	if (v->k != NV_INTEGER)
		nnef_fail(c->ev, "'%s' must be an integer", name);
	return v->u.i;
}

static double arg_scalar(struct call *c, const char *name)
{
	struct nnef_value *v = arg(c, name);
	if (v->k == NV_INTEGER)
		return (double)v->u.i;
	if (v->k != NV_SCALAR)
		nnef_fail(c->ev, "'%s' must be a scalar", name);
	return v->u.f;
}

static bool arg_logical(struct call *c, const char *name)
{
	struct nnef_value *v = arg(c, name);
	if (v->k != NV_LOGICAL)
		nnef_fail(c->ev, "'%s' must be a logical", name);
	return v->u.b;
}

static const char *arg_string(struct call *c, const char *name)
{
	struct nnef_value *v = arg(c, name);
	if (v->k != NV_STRING)
		nnef_fail(c->ev, "'%s' must be a string", name);
	return v->u.s;
}

/* An integer array argument, at most max items. */
static size_t arg_ints(struct call *c, const char *name, int64_t *out, size_t max)
{
	struct nnef_value *v = arg(c, name);
	if (v->k != NV_ARRAY)
		nnef_fail(c->ev, "'%s' must be an array of integers", name);
	if (v->u.list.n > max)
		nnef_fail(c->ev, "'%s' has %zu items, at most %zu are possible", name, v->u.list.n,
			  max);
	for (size_t i = 0; i < v->u.list.n; i++) {
		if (v->u.list.items[i].k != NV_INTEGER)
			nnef_fail(c->ev, "'%s' must be an array of integers", name);
		out[i] = v->u.list.items[i].u.i;
	}
	return v->u.list.n;
}

/* padding: (integer, integer)[] */
static size_t arg_pairs(struct call *c, const char *name, int64_t *p, int64_t *q, size_t max)
{
	struct nnef_value *v = arg(c, name);
	if (v->k != NV_ARRAY || v->u.list.n > max)
		nnef_fail(c->ev, "'%s' must be an array of at most %zu (integer, integer) pairs", name,
			  max);
	for (size_t i = 0; i < v->u.list.n; i++) {
		struct nnef_value *t = &v->u.list.items[i];
		if (t->k != NV_TUPLE || t->u.list.n != 2 || t->u.list.items[0].k != NV_INTEGER ||
		    t->u.list.items[1].k != NV_INTEGER)
			nnef_fail(c->ev, "'%s' must be an array of (integer, integer) pairs", name);
		p[i] = t->u.list.items[0].u.i;
		q[i] = t->u.list.items[1].u.i;
		if (p[i] < 0 || q[i] < 0 || p[i] > UINT32_MAX || q[i] > UINT32_MAX)
			nnef_fail(c->ev, "'%s' has a padding of (%lld, %lld) out of range", name,
				  (long long)p[i], (long long)q[i]);
	}
	return v->u.list.n;
}

static struct nnef_tensor *nnef_new_tensor(struct nnef_eval *ev, struct webnn_operand *op,
					   bool logical)
{
	struct nnef_tensor *t = nnef_alloc(&ev->arena, sizeof(*t));
	t->op = op;
	t->logical = logical;
	webnn_operand_get_desc(op, &t->desc);
	return t;
}

/* A constant of type from doubles (count values, or one repeated). */
static struct nnef_tensor *constant(struct nnef_eval *ev, enum webnn_data_type type,
				    const uint32_t *shape, uint32_t rank, const double *vals,
				    size_t n_vals, bool logical)
{
	struct webnn_operand_desc d = { .data_type = type, .rank = rank };
	size_t count = 1;
	for (uint32_t i = 0; i < rank; i++) {
		d.shape[i] = shape[i];
		if (shape[i] && count > ((size_t)1 << 40) / shape[i])
			nnef_fail(ev, "a constant of more than 2^40 items");
		count *= shape[i];
	}
	if (n_vals != 1 && n_vals != count)
		nnef_fail(ev, "a constant of %zu items given %zu values", count, n_vals);
	if (type == WEBNN_INT32 || type == WEBNN_INT64)
		for (size_t i = 0; i < n_vals; i++)
			if (vals[i] != floor(vals[i]))
				nnef_fail(ev, "the scalar %g where an integer tensor is expected", vals[i]);
	if (!ev->b) {
		struct nnef_tensor *t = nnef_alloc(&ev->arena, sizeof(*t));
		t->desc = d;
		t->logical = logical;
		t->is_constant = true;
		return t;
	}
	size_t es = webnn_data_type_size(type);
	if (count > ((size_t)1 << 31) / (es ? es : 1))
		nnef_fail(ev, "a constant of %zu items is too large", count);
	uint8_t *buf = malloc(count * es + 1);
	if (!buf)
		nnef_fail(ev, "out of memory for a constant of %zu items", count);
	for (size_t i = 0; i < count; i++) {
		double v = vals[n_vals == 1 ? 0 : i];
		switch (type) {
		case WEBNN_FLOAT32: {
			float f = (float)v;
			memcpy(buf + i * 4, &f, 4);
			break;
		}
		case WEBNN_FLOAT16: {
			uint16_t h = webnn_float32_to_float16((float)v);
			memcpy(buf + i * 2, &h, 2);
			break;
		}
		case WEBNN_INT32: {
			if (!(v >= INT32_MIN && v <= INT32_MAX)) {
				free(buf);
				nnef_fail(ev, "integer value %.17g does not fit the int32 WebNN integer "
					  "tensors use", v);
			}
			int32_t x = (int32_t)v;
			memcpy(buf + i * 4, &x, 4);
			break;
		}
		case WEBNN_INT64: {
			int64_t x = (int64_t)v;
			memcpy(buf + i * 8, &x, 8);
			break;
		}
		case WEBNN_UINT8:
			buf[i] = v != 0;
			break;
		default:
			free(buf);
			nnef_fail(ev, "internal: constant of type %d", (int)type);
		}
	}
	struct webnn_operand *op = NULL;
	enum webnn_status s = webnn_builder_constant(ev->b, &d, buf, count * es, &op);
	free(buf);
	if (s != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, "constant", s);
	struct nnef_tensor *t = nnef_new_tensor(ev, op, logical);
	t->is_constant = true;
	return t;
}

/* A nested array of numbers (or logicals) as a constant: [[1.0, 2.0]] is a [1, 2] tensor. Not
 * NNEF 1.0 syntax for a tensor, but what sonos/tract writes and reads for small constants. */
static void array_walk(struct nnef_eval *ev, const struct nnef_value *v, uint32_t depth,
		       uint32_t rank, const uint32_t *shape, double *vals, size_t *k, int *kind)
{
	if (depth == rank) {
		int kk = v->k == NV_LOGICAL ? 1 : v->k == NV_INTEGER || v->k == NV_SCALAR ? 2 : 0;
		if (!kk || (*kind && *kind != kk))
			nnef_fail(ev, "a tensor literal must hold numbers or logicals only");
		*kind = kk;
		vals[(*k)++] = v->k == NV_LOGICAL ? v->u.b : v->k == NV_INTEGER ? (double)v->u.i : v->u.f;
		return;
	}
	if (v->k != NV_ARRAY || v->u.list.n != shape[depth])
		nnef_fail(ev, "a tensor literal must be a rectangular nested array");
	for (size_t i = 0; i < v->u.list.n; i++)
		array_walk(ev, &v->u.list.items[i], depth + 1, rank, shape, vals, k, kind);
}

static struct nnef_tensor *array_tensor(struct nnef_eval *ev, const struct nnef_value *v,
					enum webnn_data_type like)
{
	uint32_t shape[WEBNN_MAX_RANK], rank = 0;
	size_t count = 1;
	const struct nnef_value *p = v;
	while (p->k == NV_ARRAY) {
		if (rank == WEBNN_MAX_RANK || p->u.list.n == 0)
			nnef_fail(ev, "a tensor literal must be a non-empty array of at most %d levels",
				  WEBNN_MAX_RANK);
		shape[rank++] = (uint32_t)p->u.list.n;
		count *= p->u.list.n;
		if (count > NNEF_MAX_ARRAY)
			nnef_fail(ev, "a tensor literal of more than %zu items", NNEF_MAX_ARRAY);
		p = &p->u.list.items[0];
	}
	double *vals = nnef_alloc(&ev->arena, count * sizeof(double));
	size_t k = 0;
	int kind = 0;
	array_walk(ev, v, 0, rank, shape, vals, &k, &kind);
	if (kind == 1)
		return constant(ev, WEBNN_UINT8, shape, rank, vals, count, true);
	if (like == WEBNN_UINT8)
		like = WEBNN_FLOAT32;
	return constant(ev, like, shape, rank, vals, count, false);
}

struct nnef_tensor *nnef_as_tensor(struct nnef_eval *ev, const struct nnef_value *v,
				   enum webnn_data_type like)
{
	switch (v->k) {
	case NV_TENSOR:
		return v->u.t;
	case NV_LOGICAL: {
		double x = v->u.b;
		return constant(ev, WEBNN_UINT8, NULL, 0, &x, 1, true);
	}
	case NV_INTEGER:
	case NV_SCALAR: {
		double x = v->k == NV_INTEGER ? (double)v->u.i : v->u.f;
		if (like == WEBNN_UINT8)
			like = WEBNN_FLOAT32;
		return constant(ev, like, NULL, 0, &x, 1, false);
	}
	case NV_ARRAY:
		return array_tensor(ev, v, like);
	default:
		nnef_fail(ev, "a %s where a tensor is expected",
			  v->k == NV_STRING ? "string" : "value");
	}
}

static struct nnef_tensor *tensor_arg(struct call *c, const char *name, enum webnn_data_type like)
{
	return nnef_as_tensor(c->ev, arg(c, name), like);
}

static void set_result(struct call *c, size_t i, struct nnef_tensor *t)
{
	c->results[i].k = NV_TENSOR;
	c->results[i].u.t = t;
}

/* The one tensor result of a WebNN operation (not logical). */
static bool result_op(struct call *c, struct webnn_operand *out)
{
	set_result(c, 0, nnef_new_tensor(c->ev, out, false));
	return true;
}

/* ---- building blocks */
typedef enum webnn_status (*unary_fn)(struct webnn_builder *, struct webnn_operand *,
				      struct webnn_operand **);
typedef enum webnn_status (*binary_fn)(struct webnn_builder *, struct webnn_operand *,
				       struct webnn_operand *, struct webnn_operand **);

static struct nnef_tensor *un(struct nnef_eval *ev, unary_fn fn, const char *what,
			      struct nnef_tensor *x)
{
	struct webnn_operand *o;
	enum webnn_status s = fn(ev->b, x->op, &o);
	if (s != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, what, s);
	return nnef_new_tensor(ev, o, false);
}

static struct nnef_tensor *reshape(struct nnef_eval *ev, struct nnef_tensor *x,
				   const uint32_t *shape, uint32_t rank)
{
	if (x->desc.rank == rank && memcmp(x->desc.shape, shape, rank * sizeof(uint32_t)) == 0)
		return x;
	struct webnn_operand *o;
	enum webnn_status s = webnn_builder_reshape(ev->b, x->op, shape, rank, &o);
	if (s != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, "reshape", s);
	return nnef_new_tensor(ev, o, x->logical);
}

/* NNEF broadcasting aligns dimensions on the left: the lower-rank operand gains trailing 1s
 * ([1,C] against [N,C,H,W] is [1,C,1,1]), where WebNN would align on the right. */
static struct nnef_tensor *pad_rank(struct nnef_eval *ev, struct nnef_tensor *x, uint32_t rank)
{
	if (x->desc.rank >= rank || x->desc.rank == 0)
		return x;
	uint32_t shape[WEBNN_MAX_RANK];
	for (uint32_t i = 0; i < rank; i++)
		shape[i] = i < x->desc.rank ? x->desc.shape[i] : 1;
	return reshape(ev, x, shape, rank);
}

static struct nnef_tensor *bin(struct nnef_eval *ev, binary_fn fn, const char *what,
			       struct nnef_tensor *a, struct nnef_tensor *b, bool logical)
{
	uint32_t r = a->desc.rank > b->desc.rank ? a->desc.rank : b->desc.rank;
	a = pad_rank(ev, a, r);
	b = pad_rank(ev, b, r);
	struct webnn_operand *o;
	enum webnn_status s = fn(ev->b, a->op, b->op, &o);
	if (s != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, what, s);
	return nnef_new_tensor(ev, o, logical);
}

static struct nnef_tensor *scalar_like(struct nnef_eval *ev, struct nnef_tensor *x, double v)
{
	return constant(ev, x->desc.data_type, NULL, 0, &v, 1, false);
}

static struct nnef_tensor *transpose(struct nnef_eval *ev, struct nnef_tensor *x,
				     const uint32_t *perm)
{
	bool id = true;
	for (uint32_t i = 0; i < x->desc.rank; i++)
		id = id && perm[i] == i;
	if (id)
		return x;
	struct webnn_operand *o;
	enum webnn_status s = webnn_builder_transpose(ev->b, x->op, perm, x->desc.rank, &o);
	if (s != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, "transpose", s);
	return nnef_new_tensor(ev, o, x->logical);
}

/* How an NNEF border fills what lies outside the input. */
enum border_fill {
	BORDER_VALUE,     /* 'constant' and 'ignore': a value (zeros, or what the caller says) */
	BORDER_EDGE,      /* 'replicate' */
	BORDER_REFLECT,   /* 'reflect': mirrored without the edge */
	BORDER_SYMMETRIC, /* 'reflect-even': mirrored with the edge (no WebNN mode: composed) */
};

static struct webnn_operand *slice_axis(struct nnef_eval *ev, struct webnn_operand *x,
					const struct webnn_operand_desc *d, uint32_t axis,
					uint32_t start, uint32_t size)
{
	uint32_t st[WEBNN_MAX_RANK] = { 0 }, sz[WEBNN_MAX_RANK];
	for (uint32_t i = 0; i < d->rank; i++)
		sz[i] = d->shape[i];
	st[axis] = start;
	sz[axis] = size;
	struct webnn_operand *o;
	enum webnn_status s = webnn_builder_slice(ev->b, x, st, d->rank, sz, d->rank, NULL, &o);
	if (s != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, "slice", s);
	struct webnn_reverse_options ro = WEBNN_REVERSE_OPTIONS_INIT;
	ro.axes = &axis;
	ro.n_axes = 1;
	if ((s = webnn_builder_reverse(ev->b, o, &ro, &o)) != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, "reverse", s);
	return o;
}

/* 'reflect-even' padding: per axis, the first `begin` and last `end` entries reversed, concatenated
 * before and after (WebNN's pad mirrors only without the edge). */
static struct nnef_tensor *pad_symmetric(struct nnef_eval *ev, struct nnef_tensor *x,
					 const uint32_t *begin, const uint32_t *end)
{
	struct webnn_operand *cur = x->op;
	struct webnn_operand_desc d = x->desc;
	for (uint32_t a = 0; a < d.rank; a++) {
		if (!begin[a] && !end[a])
			continue;
		uint32_t dim = d.shape[a];
		if (begin[a] > dim || end[a] > dim)
			nnef_fail(ev, "border 'reflect-even': padding %u, %u of axis %u is more than its "
				  "size %u", begin[a], end[a], a, dim);
		struct webnn_operand *parts[3];
		uint32_t n = 0;
		if (begin[a])
			parts[n++] = slice_axis(ev, cur, &d, a, 0, begin[a]);
		parts[n++] = cur;
		if (end[a])
			parts[n++] = slice_axis(ev, cur, &d, a, dim - end[a], end[a]);
		enum webnn_status s = webnn_builder_concat(ev->b, parts, n, a, &cur);
		if (s != WEBNN_STATUS_OK)
			nnef_fail_webnn(ev, "concat", s);
		d.shape[a] = dim + begin[a] + end[a];
	}
	return nnef_new_tensor(ev, cur, x->logical);
}

static struct nnef_tensor *pad_tensor(struct nnef_eval *ev, struct nnef_tensor *x,
				      const uint32_t *begin, const uint32_t *end,
				      enum border_fill fill, double value)
{
	bool any = false;
	for (uint32_t i = 0; i < x->desc.rank; i++)
		any = any || begin[i] || end[i];
	if (!any)
		return x;
	if (fill == BORDER_SYMMETRIC)
		return pad_symmetric(ev, x, begin, end);
	struct webnn_pad_options o = WEBNN_PAD_OPTIONS_INIT;
	o.mode = fill == BORDER_EDGE ? WEBNN_PAD_EDGE
		 : fill == BORDER_REFLECT ? WEBNN_PAD_REFLECTION : WEBNN_PAD_CONSTANT;
	o.value = value;
	struct webnn_operand *out;
	enum webnn_status s = webnn_builder_pad(ev->b, x->op, begin, x->desc.rank, end,
						x->desc.rank, &o, &out);
	if (s != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, "pad", s);
	return nnef_new_tensor(ev, out, x->logical);
}

static enum border_fill border_fill(struct nnef_eval *ev, const char *border)
{
	if (strcmp(border, "constant") == 0 || strcmp(border, "ignore") == 0)
		return BORDER_VALUE;
	if (strcmp(border, "replicate") == 0)
		return BORDER_EDGE;
	if (strcmp(border, "reflect") == 0)
		return BORDER_REFLECT;
	if (strcmp(border, "reflect-even") == 0)
		return BORDER_SYMMETRIC;
	nnef_fail(ev, "unknown border '%s'", border);
}

static uint32_t to_u32(struct nnef_eval *ev, int64_t v, const char *what)
{
	if (v < 0 || v > UINT32_MAX)
		nnef_fail(ev, "%s %lld is out of range", what, (long long)v);
	return (uint32_t)v;
}

/* ---- declarations: external, variable, constant */
static enum webnn_data_type generic_type(struct call *c, bool *logical)
{
	const struct nnef_type *t = c->generic;
	*logical = false;
	if (!t || t->k == NT_SCALAR)
		return WEBNN_FLOAT32;
	if (t->k == NT_INTEGER)
		return WEBNN_INT32;
	if (t->k == NT_LOGICAL) {
		*logical = true;
		return WEBNN_UINT8;
	}
	nnef_fail(c->ev, "a tensor's data type must be scalar, integer or logical");
}

static uint32_t shape_arg(struct call *c, uint32_t *shape)
{
	int64_t s[WEBNN_MAX_RANK];
	uint32_t rank = (uint32_t)arg_ints(c, "shape", s, WEBNN_MAX_RANK);
	for (uint32_t i = 0; i < rank; i++)
		shape[i] = to_u32(c->ev, s[i], "dimension");
	return rank;
}

static bool op_external(struct call *c)
{
	struct nnef_eval *ev = c->ev;
	if (!ev->pending_name || ev->depth != 1)
		nnef_fail(ev, "external must be assigned directly to a graph identifier");
	bool logical;
	struct webnn_operand_desc d = { .data_type = generic_type(c, &logical) };
	d.rank = shape_arg(c, d.shape);
	struct webnn_operand *o;
	const struct webnn_input_binding *bd = NULL;
	for (size_t i = 0; ev->opt && i < ev->opt->n_binds && !bd; i++)
		if (ev->opt->binds[i].name && strcmp(ev->opt->binds[i].name, ev->pending_name) == 0)
			bd = &ev->opt->binds[i];
	if (bd) {
		/* a frozen input: the caller's value as a constant of the declared type */
		bool same = bd->desc.data_type == d.data_type && bd->desc.rank == d.rank;
		for (uint32_t i = 0; same && i < d.rank; i++)
			same = bd->desc.shape[i] == d.shape[i];
		if (!same)
			nnef_fail(ev, "bound input '%s': the value's type or shape differs from "
				  "the external's (%s, rank %u)", ev->pending_name,
				  webnn_data_type_name(d.data_type), d.rank);
		uint64_t count = 1;
		for (uint32_t i = 0; i < d.rank; i++)
			count *= d.shape[i];
		uint64_t bytes = webnn_data_type_byte_length(d.data_type, count);
		if (bd->size != bytes || (bytes && !bd->data))
			nnef_fail(ev, "bound input '%s': %zu bytes of data, its shape takes %llu",
				  ev->pending_name, bd->size, (unsigned long long)bytes);
		CHECK(c, webnn_builder_constant(ev->b, &d, bd->data, bd->size, &o), "constant");
	} else {
		CHECK(c, webnn_builder_input(ev->b, ev->pending_name, &d, &o), "input");
	}
	struct nnef_tensor *t = nnef_new_tensor(ev, o, logical);
	t->is_constant = true;
	t->input_name = ev->pending_name;
	t->bound = bd != NULL;
	set_result(c, 0, t);
	return true;
}

static bool op_constant(struct call *c)
{
	bool logical;
	enum webnn_data_type type = generic_type(c, &logical);
	uint32_t shape[WEBNN_MAX_RANK];
	uint32_t rank = shape_arg(c, shape);
	struct nnef_value *v = arg(c, "value");
	if (v->k != NV_ARRAY || v->u.list.n == 0)
		nnef_fail(c->ev, "'value' must be a non-empty array");
	double *vals = nnef_alloc(&c->ev->arena, v->u.list.n * sizeof(double));
	for (size_t i = 0; i < v->u.list.n; i++) {
		struct nnef_value *x = &v->u.list.items[i];
		if (x->k == NV_INTEGER && !logical)
			vals[i] = (double)x->u.i;
		else if (x->k == NV_SCALAR && type == WEBNN_FLOAT32)
			vals[i] = x->u.f;
		else if (x->k == NV_LOGICAL && logical)
			vals[i] = x->u.b;
		else
			nnef_fail(c->ev, "'value' item %zu does not match the constant's type", i);
	}
	set_result(c, 0, constant(c->ev, type, shape, rank, vals, v->u.list.n, logical));
	return true;
}

static const struct nnef_quant *find_quant(struct nnef_eval *ev, const char *a, const char *b)
{
	for (size_t i = 0; i < ev->n_quant; i++)
		if ((a && strcmp(ev->quant[i].tensor, a) == 0) ||
		    (b && strcmp(ev->quant[i].tensor, b) == 0))
			return &ev->quant[i];
	return NULL;
}

static double quant_param(struct nnef_eval *ev, const struct nnef_quant *q, const char *name,
			  bool required, double def)
{
	for (size_t i = 0; i < q->call->n; i++)
		if (q->call->names[i] && strcmp(q->call->names[i], name) == 0) {
			const struct nnef_expr *e = q->call->items[i];
			bool neg = false;
			if (e->k == NX_UNARY && e->op == '-') {
				neg = true;
				e = e->a;
			}
			if (e->k == NX_NUMBER)
				return neg ? -e->num : e->num;
			if (e->k == NX_LOGICAL)
				return e->num;
			nnef_fail(ev, "graph.quant:%d: '%s' of '%s' must be a number", q->line, name,
				  q->tensor);
		}
	if (required)
		nnef_fail(ev, "graph.quant:%d: '%s' needs '%s'", q->line, q->call->str, name);
	return def;
}

/* Reads an integer item of the decoded .dat data (in the type read_dat chose). */
static double item_value(const struct webnn_operand_desc *d, const void *data, size_t i)
{
	switch (d->data_type) {
	case WEBNN_INT8: return ((const int8_t *)data)[i];
	case WEBNN_UINT8: return ((const uint8_t *)data)[i];
	case WEBNN_INT32: return ((const int32_t *)data)[i];
	case WEBNN_UINT32: return ((const uint32_t *)data)[i];
	case WEBNN_INT64: return (double)((const int64_t *)data)[i];
	case WEBNN_UINT64: return (double)((const uint64_t *)data)[i];
	case WEBNN_FLOAT16: return webnn_float16_to_float32(((const uint16_t *)data)[i]);
	case WEBNN_FLOAT32: return ((const float *)data)[i];
	default: return 0;
	}
}

static bool op_variable(struct call *c)
{
	struct nnef_eval *ev = c->ev;
	bool logical;
	enum webnn_data_type type = generic_type(c, &logical);
	uint32_t shape[WEBNN_MAX_RANK];
	uint32_t rank = shape_arg(c, shape);
	const char *label = arg_string(c, "label");
	if (!*label || label[0] == '/' || strstr(label, "..") || strlen(label) > 1024)
		nnef_fail(ev, "variable label '%s' is not a relative path inside the model folder",
			  label);
	if (!ev->base_dir)
		nnef_fail(ev, "variable '%s' needs a model folder for its .dat file", label);
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.dat", ev->base_dir, label);
	size_t fsize;
	char err[512];
	uint8_t *bytes = wnni_read_file(path, &fsize, err, sizeof(err));
	if (!bytes)
		nnef_fail(ev, "variable '%s': %s", label, err);
	struct webnn_operand_desc d;
	void *data = NULL;
	size_t size;
	bool quantized;
	const char *slash = strrchr(path, '/');
	enum webnn_status s = nnef_dat_decode(bytes, fsize, slash ? slash + 1 : path, &d, &data,
					      &size, &quantized, err, sizeof(err));
	free(bytes);
	if (s != WEBNN_STATUS_OK)
		nnef_fail(ev, "variable '%s': %s", label, err);
	if (d.rank != rank || memcmp(d.shape, shape, rank * sizeof(uint32_t)) != 0) {
		free(data);
		nnef_fail(ev, "variable '%s': its .dat file's shape differs from the declared one",
			  label);
	}
	size_t count = 1;
	for (uint32_t i = 0; i < rank; i++)
		count *= shape[i];
	const struct nnef_quant *q = find_quant(ev, ev->pending_name, label);
	bool dequantize = quantized || (q && type == WEBNN_FLOAT32 && d.data_type != WEBNN_FLOAT32 &&
					d.data_type != WEBNN_FLOAT16);
	double *vals = NULL;
	if (dequantize) {
		if (!q) {
			free(data);
			nnef_fail(ev, "variable '%s' is quantized but graph.quant does not describe "
				  "it", label);
		}
		double scale, zero;
		if (strcmp(q->call->str, "zero_point_linear_quantize") == 0) {
			scale = quant_param(ev, q, "scale", true, 0);
			zero = quant_param(ev, q, "zero_point", true, 0);
		} else if (strcmp(q->call->str, "linear_quantize") == 0 ||
			   strcmp(q->call->str, "min_max_linear_quantize") == 0) {
			double mn = quant_param(ev, q, "min", true, 0);
			double mx = quant_param(ev, q, "max", true, 0);
			double bits = quant_param(ev, q, "bits", true, 0);
			if (bits < 1 || bits > 32)
				nnef_fail(ev, "graph.quant:%d: bits %g out of range", q->line, bits);
			double steps = ldexp(1.0, (int)bits) - 1;
			bool sgn = quant_param(ev, q, "signed", false, 0) != 0;
			bool sym = quant_param(ev, q, "symmetric", false, 0) != 0;
			if (sgn && sym)
				steps -= 1;
			scale = (mx - mn) / steps;
			/* q = round((z - min) / (max - min) * r) - p, so z = (q + p) * scale + min */
			double p = sgn ? ldexp(1.0, (int)bits - 1) - (sym ? 1 : 0) : 0;
			zero = -p - mn / scale;
		} else {
			free(data);
			nnef_fail(ev, "graph.quant:%d: quantization '%s' of '%s' cannot be applied to "
				  "a variable", q->line, q->call->str, q->tensor);
		}
		if (type != WEBNN_FLOAT32) {
			free(data);
			nnef_fail(ev, "variable '%s': a quantized variable must be of type scalar",
				  label);
		}
		vals = malloc((count ? count : 1) * sizeof(double));
		if (!vals) {
			free(data);
			nnef_fail(ev, "out of memory");
		}
		for (size_t i = 0; i < count; i++)
			vals[i] = (item_value(&d, data, i) - zero) * scale;
	} else {
		bool ok = (type == WEBNN_FLOAT32 &&
			   (d.data_type == WEBNN_FLOAT32 || d.data_type == WEBNN_FLOAT16)) ||
			  (type == WEBNN_INT32 && d.data_type != WEBNN_FLOAT32 &&
			   d.data_type != WEBNN_FLOAT16) ||
			  (logical && d.data_type == WEBNN_UINT8);
		if (!ok) {
			free(data);
			nnef_fail(ev, "variable '%s': its .dat file holds %s items, the declaration "
				  "says %s", label, webnn_data_type_name(d.data_type),
				  logical ? "logical" : type == WEBNN_INT32 ? "integer" : "scalar");
		}
		if (d.data_type != type) {
			vals = malloc((count ? count : 1) * sizeof(double));
			if (!vals) {
				free(data);
				nnef_fail(ev, "out of memory");
			}
			for (size_t i = 0; i < count; i++)
				vals[i] = item_value(&d, data, i);
		}
	}
	struct nnef_tensor *t;
	if (vals) {
		free(data);
		t = constant(ev, type, shape, rank, vals, count, logical);
		t->dequantized = dequantize;
		free(vals);
	} else {
		struct webnn_operand *o;
		d.data_type = type;
		s = webnn_builder_constant(ev->b, &d, data, size, &o);
		free(data);
		if (s != WEBNN_STATUS_OK)
			nnef_fail_webnn(ev, "constant", s);
		t = nnef_new_tensor(ev, o, logical);
		t->is_constant = true;
	}
	ev->variables_done++;
	if (ev->opt && ev->opt->progress && ev->n_variables)
		ev->opt->progress(ev->opt->user_data,
				  (double)ev->variables_done / (double)ev->n_variables);
	set_result(c, 0, t);
	return true;
}

/* ---- elementwise */
static const struct {
	const char *name;
	unary_fn fn;
	const char *webnn;
	bool logical;
} unaries[] = {
	{ "exp", webnn_builder_exp, "exp", false },
	{ "log", webnn_builder_log, "log", false },
	{ "sin", webnn_builder_sin, "sin", false },
	{ "cos", webnn_builder_cos, "cos", false },
	{ "tan", webnn_builder_tan, "tan", false },
	{ "tanh", webnn_builder_tanh, "tanh", false },
	{ "abs", webnn_builder_abs, "abs", false },
	{ "sign", webnn_builder_sign, "sign", false },
	{ "rcp", webnn_builder_reciprocal, "reciprocal", false },
	{ "neg", webnn_builder_neg, "neg", false },
	{ "copy", webnn_builder_identity, "identity", false },
	{ "not", webnn_builder_logical_not, "logicalNot", true },
	{ "floor", webnn_builder_floor, "floor", false },
	{ "ceil", webnn_builder_ceil, "ceil", false },
	{ "sqrt", webnn_builder_sqrt, "sqrt", false },
	{ "relu", webnn_builder_relu, "relu", false },
	{ "sigmoid", webnn_builder_sigmoid, "sigmoid", false },
	{ "softplus", webnn_builder_softplus, "softplus", false },
};

static const struct {
	const char *name;
	binary_fn fn;
	const char *webnn;
	bool logical; /* result */
} binaries[] = {
	{ "add", webnn_builder_add, "add", false },
	{ "sub", webnn_builder_sub, "sub", false },
	{ "mul", webnn_builder_mul, "mul", false },
	{ "div", webnn_builder_div, "div", false },
	{ "pow", webnn_builder_pow, "pow", false },
	{ "min", webnn_builder_min, "min", false },
	{ "max", webnn_builder_max, "max", false },
	{ "lt", webnn_builder_lesser, "lesser", true },
	{ "gt", webnn_builder_greater, "greater", true },
	{ "le", webnn_builder_lesser_or_equal, "lesserOrEqual", true },
	{ "ge", webnn_builder_greater_or_equal, "greaterOrEqual", true },
	{ "eq", webnn_builder_equal, "equal", true },
	{ "ne", webnn_builder_not_equal, "notEqual", true },
	{ "and", webnn_builder_logical_and, "logicalAnd", true },
	{ "or", webnn_builder_logical_or, "logicalOr", true },
};

/* The two operands of a binary operation; a literal takes the other operand's type. */
static void operands(struct call *c, struct nnef_tensor **a, struct nnef_tensor **b)
{
	struct nnef_value *x = &c->args[0], *y = &c->args[1];
	enum webnn_data_type like = WEBNN_FLOAT32;
	if (x->k == NV_TENSOR)
		like = x->u.t->desc.data_type;
	else if (y->k == NV_TENSOR)
		like = y->u.t->desc.data_type;
	*a = nnef_as_tensor(c->ev, x, like);
	*b = nnef_as_tensor(c->ev, y, like);
}

static struct nnef_tensor *x_arg(struct call *c)
{
	return nnef_as_tensor(c->ev, &c->args[0], WEBNN_FLOAT32);
}

static bool op_sqr(struct call *c)
{
	struct nnef_tensor *x = x_arg(c);
	struct nnef_tensor *y = bin(c->ev, webnn_builder_mul, "mul", x, x, false);
	if (strcmp(c->f->name, "rsqr") == 0)
		y = un(c->ev, webnn_builder_reciprocal, "reciprocal", y);
	set_result(c, 0, y);
	return true;
}

static bool op_rsqrt(struct call *c)
{
	struct nnef_tensor *y = un(c->ev, webnn_builder_sqrt, "sqrt", x_arg(c));
	set_result(c, 0, un(c->ev, webnn_builder_reciprocal, "reciprocal", y));
	return true;
}

static bool op_log2(struct call *c)
{
	struct nnef_tensor *x = x_arg(c);
	struct nnef_tensor *y = un(c->ev, webnn_builder_log, "log", x);
	set_result(c, 0, bin(c->ev, webnn_builder_div, "div", y, scalar_like(c->ev, x, log(2.0)),
			     false));
	return true;
}

/* round: half away from zero, as sign(x) * floor(|x| + 0.5); WebNN's roundEven differs. */
static bool op_round(struct call *c)
{
	struct nnef_eval *ev = c->ev;
	struct nnef_tensor *x = x_arg(c);
	struct nnef_tensor *a = un(ev, webnn_builder_abs, "abs", x);
	a = bin(ev, webnn_builder_add, "add", a, scalar_like(ev, x, 0.5), false);
	a = un(ev, webnn_builder_floor, "floor", a);
	set_result(c, 0, bin(ev, webnn_builder_mul, "mul", un(ev, webnn_builder_sign, "sign", x),
			     a, false));
	return true;
}

static bool op_hyperbolic(struct call *c)
{
	struct nnef_eval *ev = c->ev;
	struct nnef_tensor *x = x_arg(c), *y;
	const char *n = c->f->name;
	if (strcmp(n, "sinh") == 0 || strcmp(n, "cosh") == 0) {
		struct nnef_tensor *p = un(ev, webnn_builder_exp, "exp", x);
		struct nnef_tensor *m = un(ev, webnn_builder_exp, "exp",
					   un(ev, webnn_builder_neg, "neg", x));
		y = bin(ev, n[0] == 's' ? webnn_builder_sub : webnn_builder_add, "add", p, m, false);
		y = bin(ev, webnn_builder_mul, "mul", y, scalar_like(ev, x, 0.5), false);
	} else if (strcmp(n, "asinh") == 0 || strcmp(n, "acosh") == 0) {
		struct nnef_tensor *s = bin(ev, webnn_builder_mul, "mul", x, x, false);
		s = bin(ev, n[1] == 's' ? webnn_builder_add : webnn_builder_sub, "add", s,
			scalar_like(ev, x, 1.0), false);
		s = un(ev, webnn_builder_sqrt, "sqrt", s);
		y = un(ev, webnn_builder_log, "log", bin(ev, webnn_builder_add, "add", x, s, false));
	} else { /* atanh = log((1 + x) / (1 - x)) / 2 */
		struct nnef_tensor *one = scalar_like(ev, x, 1.0);
		struct nnef_tensor *q = bin(ev, webnn_builder_div, "div",
					    bin(ev, webnn_builder_add, "add", one, x, false),
					    bin(ev, webnn_builder_sub, "sub", one, x, false), false);
		y = bin(ev, webnn_builder_mul, "mul", un(ev, webnn_builder_log, "log", q),
			scalar_like(ev, x, 0.5), false);
	}
	set_result(c, 0, y);
	return true;
}

static bool op_inverse_trig(struct call *c)
{
	struct nnef_tensor *x = x_arg(c);
	const char *name = c->f->name;
	enum wnni_inverse_trig which = name[1] == 's' ? WNNI_ASIN : name[1] == 'c' ? WNNI_ACOS
										   : WNNI_ATAN;
	struct webnn_operand *out;
	CHECK(c, wnni_inverse_trig(c->ev->b, which, x->op, &out), name);
	set_result(c, 0, nnef_new_tensor(c->ev, out, false));
	return true;
}

static bool op_select(struct call *c)
{
	struct nnef_eval *ev = c->ev;
	struct nnef_value *tv = arg(c, "true_value"), *fv = arg(c, "false_value");
	enum webnn_data_type like = tv->k == NV_TENSOR ? tv->u.t->desc.data_type
			   : fv->k == NV_TENSOR ? fv->u.t->desc.data_type : WEBNN_FLOAT32;
	struct nnef_tensor *cond = tensor_arg(c, "condition", WEBNN_UINT8);
	struct nnef_tensor *t = nnef_as_tensor(ev, tv, like), *f = nnef_as_tensor(ev, fv, like);
	if (cond->desc.data_type != WEBNN_UINT8)
		nnef_fail(ev, "'condition' must be a logical tensor");
	uint32_t r = cond->desc.rank;
	if (t->desc.rank > r)
		r = t->desc.rank;
	if (f->desc.rank > r)
		r = f->desc.rank;
	cond = pad_rank(ev, cond, r);
	t = pad_rank(ev, t, r);
	f = pad_rank(ev, f, r);
	struct webnn_operand *o;
	CHECK(c, webnn_builder_where(ev->b, cond->op, t->op, f->op, &o), "where");
	set_result(c, 0, nnef_new_tensor(ev, o, t->logical));
	return true;
}

static bool op_clamp(struct call *c)
{
	struct nnef_eval *ev = c->ev;
	struct nnef_value *a = arg(c, "a"), *b = arg(c, "b");
	struct nnef_tensor *x = x_arg(c);
	if ((a->k == NV_SCALAR || a->k == NV_INTEGER) && (b->k == NV_SCALAR || b->k == NV_INTEGER)) {
		struct webnn_clamp_options o = WEBNN_CLAMP_OPTIONS_INIT;
		o.has_min_value = o.has_max_value = true;
		o.min_value = a->k == NV_SCALAR ? a->u.f : (double)a->u.i;
		o.max_value = b->k == NV_SCALAR ? b->u.f : (double)b->u.i;
		if (o.min_value > o.max_value) /* max(min(x, b), a) is a everywhere */
			o.max_value = o.min_value;
		struct webnn_operand *out;
		CHECK(c, webnn_builder_clamp(ev->b, x->op, &o, &out), "clamp");
		set_result(c, 0, nnef_new_tensor(ev, out, false));
		return true;
	}
	struct nnef_tensor *lo = nnef_as_tensor(ev, a, x->desc.data_type);
	struct nnef_tensor *hi = nnef_as_tensor(ev, b, x->desc.data_type);
	struct nnef_tensor *y = bin(ev, webnn_builder_min, "min", x, hi, false);
	set_result(c, 0, bin(ev, webnn_builder_max, "max", y, lo, false));
	return true;
}

/* ---- activations with options */
static bool op_elu(struct call *c)
{
	struct webnn_elu_options o = WEBNN_ELU_OPTIONS_INIT;
	o.alpha = arg_scalar(c, "alpha");
	struct webnn_operand *out;
	CHECK(c, webnn_builder_elu(c->ev->b, x_arg(c)->op, &o, &out), "elu");
	return result_op(c, out);
}

static bool leaky_relu(struct call *c, double alpha)
{
	struct webnn_leaky_relu_options o = WEBNN_LEAKY_RELU_OPTIONS_INIT;
	o.alpha = alpha;
	struct webnn_operand *out;
	CHECK(c, webnn_builder_leaky_relu(c->ev->b, x_arg(c)->op, &o, &out), "leakyRelu");
	return result_op(c, out);
}

static bool op_leaky_relu(struct call *c)
{
	return leaky_relu(c, arg_scalar(c, "alpha"));
}

static bool op_prelu(struct call *c)
{
	struct nnef_value *a = arg(c, "alpha");
	if (a->k == NV_SCALAR || a->k == NV_INTEGER)
		return leaky_relu(c, arg_scalar(c, "alpha"));
	struct nnef_tensor *x = x_arg(c);
	struct nnef_tensor *slope = pad_rank(c->ev, nnef_as_tensor(c->ev, a, x->desc.data_type),
					     x->desc.rank);
	struct webnn_operand *out;
	CHECK(c, webnn_builder_prelu(c->ev->b, x->op, slope->op, &out), "prelu");
	return result_op(c, out);
}

static uint32_t axis_of(struct call *c, int64_t a, uint32_t rank)
{
	if (a < 0)
		a += rank;
	if (a < 0 || a >= (int64_t)rank)
		nnef_fail(c->ev, "axis %lld is out of range for rank %u", (long long)a, rank);
	return (uint32_t)a;
}

static bool op_softmax(struct call *c)
{
	int64_t axes[WEBNN_MAX_RANK];
	if (arg(c, "axes")->k != NV_ARRAY || arg(c, "axes")->u.list.n != 1)
		return false; /* several axes: the standard definition */
	arg_ints(c, "axes", axes, 1);
	struct nnef_tensor *x = x_arg(c);
	struct webnn_operand *out;
	CHECK(c, webnn_builder_softmax(c->ev->b, x->op, axis_of(c, axes[0], x->desc.rank), &out),
	      "softmax");
	return result_op(c, out);
}

/* ---- shape operations */
static bool op_reshape(struct call *c)
{
	struct nnef_tensor *x = tensor_arg(c, "input", WEBNN_FLOAT32);
	int64_t s[WEBNN_MAX_RANK];
	size_t n = arg_ints(c, "shape", s, WEBNN_MAX_RANK);
	int64_t start = arg_int(c, "axis_start"), cnt = arg_int(c, "axis_count");
	uint32_t r = x->desc.rank;
	if (start < 0 || start > r || (cnt != -1 && (cnt < 0 || start + cnt > r)))
		nnef_fail(c->ev, "axis_start %lld / axis_count %lld out of range for rank %u",
			  (long long)start, (long long)cnt, r);
	if (cnt == -1)
		cnt = r - start;
	if (r - cnt + n > WEBNN_MAX_RANK)
		nnef_fail(c->ev, "the result's rank is more than %d", WEBNN_MAX_RANK);
	uint32_t out[WEBNN_MAX_RANK];
	uint32_t k = 0;
	for (int64_t i = 0; i < start; i++)
		out[k++] = x->desc.shape[i];
	int infer = -1;
	uint64_t known = 1, total = 1;
	for (int64_t i = start; i < start + cnt; i++)
		total *= x->desc.shape[i];
	for (size_t i = 0; i < n; i++) {
		int64_t d = s[i];
		if (d == 0) {
			if (start + (int64_t)i >= r)
				nnef_fail(c->ev, "shape item %zu is 0 but the input has no such axis", i);
			d = x->desc.shape[start + i];
		} else if (d == -1) {
			if (infer >= 0)
				nnef_fail(c->ev, "'shape' has more than one -1");
			infer = (int)k;
			out[k++] = 1;
			continue;
		}
		out[k] = to_u32(c->ev, d, "shape item");
		known *= out[k++];
	}
	if (infer >= 0) {
		if (known == 0 || total % known)
			nnef_fail(c->ev, "cannot infer the -1 of 'shape'");
		out[infer] = (uint32_t)(total / known);
	}
	for (int64_t i = start + cnt; i < r; i++)
		out[k++] = x->desc.shape[i];
	set_result(c, 0, reshape(c->ev, x, out, k));
	return true;
}

/* The "input" tensor and the "axes" list of squeeze, unsqueeze, transpose and the reductions. */
static struct nnef_tensor *input_and_axes(struct call *c, int64_t *axes, size_t *n)
{
	struct nnef_tensor *x = tensor_arg(c, "input", WEBNN_FLOAT32);
	*n = arg_ints(c, "axes", axes, WEBNN_MAX_RANK);
	return x;
}

static bool op_squeeze_unsqueeze(struct call *c)
{
	int64_t axes[WEBNN_MAX_RANK];
	size_t n;
	struct nnef_tensor *x = input_and_axes(c, axes, &n);
	uint32_t out[WEBNN_MAX_RANK], k = 0, r = x->desc.rank;
	if (c->f->name[0] == 's') {
		bool drop[WEBNN_MAX_RANK] = { 0 };
		for (size_t i = 0; i < n; i++) {
			uint32_t a = axis_of(c, axes[i], r);
			if (x->desc.shape[a] != 1)
				nnef_fail(c->ev, "axis %u has size %u, not 1", a, x->desc.shape[a]);
			drop[a] = true;
		}
		for (uint32_t i = 0; i < r; i++)
			if (!drop[i])
				out[k++] = x->desc.shape[i];
	} else {
		uint32_t nr = r + (uint32_t)n;
		if (nr > WEBNN_MAX_RANK)
			nnef_fail(c->ev, "the result's rank is more than %d", WEBNN_MAX_RANK);
		bool ins[WEBNN_MAX_RANK] = { 0 };
		for (size_t i = 0; i < n; i++)
			ins[axis_of(c, axes[i], nr)] = true;
		uint32_t j = 0;
		for (uint32_t i = 0; i < nr; i++)
			out[k++] = ins[i] ? 1 : (j < r ? x->desc.shape[j++] : 1);
	}
	set_result(c, 0, reshape(c->ev, x, out, k));
	return true;
}

static bool op_transpose(struct call *c)
{
	int64_t axes[WEBNN_MAX_RANK];
	size_t n;
	struct nnef_tensor *x = input_and_axes(c, axes, &n);
	if (n > x->desc.rank)
		nnef_fail(c->ev, "'axes' has %zu items for rank %u", n, x->desc.rank);
	uint32_t perm[WEBNN_MAX_RANK];
	bool seen[WEBNN_MAX_RANK] = { 0 };
	for (uint32_t i = 0; i < x->desc.rank; i++) {
		perm[i] = i < n ? (uint32_t)axes[i] : i;
		if (i < n && (axes[i] < 0 || axes[i] >= (int64_t)n))
			nnef_fail(c->ev, "'axes' is not a permutation");
		if (seen[perm[i]])
			nnef_fail(c->ev, "'axes' is not a permutation");
		seen[perm[i]] = true;
	}
	set_result(c, 0, transpose(c->ev, x, perm));
	return true;
}

static struct nnef_tensor **tensor_list(struct call *c, const char *name, size_t *n)
{
	struct nnef_value *v = arg(c, name);
	if (v->k != NV_ARRAY || v->u.list.n == 0)
		nnef_fail(c->ev, "'%s' must be a non-empty array of tensors", name);
	struct nnef_tensor **t = nnef_alloc(&c->ev->arena, v->u.list.n * sizeof(*t));
	for (size_t i = 0; i < v->u.list.n; i++)
		t[i] = nnef_as_tensor(c->ev, &v->u.list.items[i], WEBNN_FLOAT32);
	*n = v->u.list.n;
	return t;
}

static struct nnef_tensor *concat(struct nnef_eval *ev, struct nnef_tensor **t, size_t n,
				  uint32_t axis)
{
	if (n == 1)
		return t[0];
	struct webnn_operand **ops = nnef_alloc(&ev->arena, n * sizeof(*ops));
	for (size_t i = 0; i < n; i++)
		ops[i] = t[i]->op;
	struct webnn_operand *o;
	enum webnn_status s = webnn_builder_concat(ev->b, ops, n, axis, &o);
	if (s != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, "concat", s);
	return nnef_new_tensor(ev, o, t[0]->logical);
}

static bool op_concat_stack(struct call *c)
{
	size_t n;
	struct nnef_tensor **t = tensor_list(c, "values", &n);
	bool stack = strcmp(c->f->name, "stack") == 0;
	uint32_t r = t[0]->desc.rank + stack;
	if (r > WEBNN_MAX_RANK)
		nnef_fail(c->ev, "rank more than %d", WEBNN_MAX_RANK);
	uint32_t axis = axis_of(c, arg_int(c, "axis"), r);
	if (stack)
		for (size_t i = 0; i < n; i++) {
			uint32_t shape[WEBNN_MAX_RANK], k = 0;
			for (uint32_t j = 0; j < r; j++)
				shape[j] = j == axis ? 1 : t[i]->desc.shape[k++];
			t[i] = reshape(c->ev, t[i], shape, r);
		}
	set_result(c, 0, concat(c->ev, t, n, axis));
	return true;
}

static void list_result(struct call *c, struct webnn_operand **outs, size_t n, bool logical,
			int squeeze_axis)
{
	c->results[0].k = NV_ARRAY;
	c->results[0].u.list.n = n;
	c->results[0].u.list.items = nnef_alloc(&c->ev->arena, (n ? n : 1) *
						sizeof(struct nnef_value));
	for (size_t i = 0; i < n; i++) {
		struct nnef_tensor *t = nnef_new_tensor(c->ev, outs[i], logical);
		if (squeeze_axis >= 0) {
			uint32_t shape[WEBNN_MAX_RANK], k = 0;
			for (uint32_t j = 0; j < t->desc.rank; j++)
				if ((int)j != squeeze_axis)
					shape[k++] = t->desc.shape[j];
			t = reshape(c->ev, t, shape, k);
		}
		c->results[0].u.list.items[i].k = NV_TENSOR;
		c->results[0].u.list.items[i].u.t = t;
	}
}

static bool op_split(struct call *c)
{
	bool unstack = strcmp(c->f->name, "unstack") == 0;
	struct nnef_tensor *x = tensor_arg(c, "value", WEBNN_FLOAT32);
	uint32_t axis = axis_of(c, arg_int(c, "axis"), x->desc.rank);
	uint32_t dim = x->desc.shape[axis];
	uint32_t *sizes;
	size_t n;
	if (unstack) {
		n = dim;
		if (n == 0 || n > 4096)
			nnef_fail(c->ev, "cannot unstack %u items", dim);
		sizes = nnef_alloc(&c->ev->arena, n * sizeof(*sizes));
		for (size_t i = 0; i < n; i++)
			sizes[i] = 1;
	} else {
		struct nnef_value *r = arg(c, "ratios");
		if (r->k != NV_ARRAY || r->u.list.n == 0 || r->u.list.n > 4096)
			nnef_fail(c->ev, "'ratios' must be a non-empty array");
		n = r->u.list.n;
		int64_t *ratios = nnef_alloc(&c->ev->arena, n * sizeof(*ratios));
		arg_ints(c, "ratios", ratios, n);
		uint64_t total = 0;
		for (size_t i = 0; i < n; i++) {
			if (ratios[i] <= 0 || ratios[i] > UINT32_MAX)
				nnef_fail(c->ev, "'ratios' must be positive");
			total += (uint64_t)ratios[i];
		}
		if (dim % total)
			nnef_fail(c->ev, "axis size %u is not divisible by the ratios' sum %llu", dim,
				  (unsigned long long)total);
		sizes = nnef_alloc(&c->ev->arena, n * sizeof(*sizes));
		for (size_t i = 0; i < n; i++)
			sizes[i] = (uint32_t)(dim / total * (uint64_t)ratios[i]);
	}
	struct webnn_operand **outs = nnef_alloc(&c->ev->arena, n * sizeof(*outs));
	size_t got = 0;
	struct webnn_split_options o = WEBNN_SPLIT_OPTIONS_INIT;
	o.axis = axis;
	if (n == 1) {
		outs[0] = x->op;
		got = 1;
	} else {
		CHECK(c, webnn_builder_split_sizes(c->ev->b, x->op, sizes, (uint32_t)n, &o, outs, n,
						   &got), "split");
	}
	list_result(c, outs, got, x->logical, unstack ? (int)axis : -1);
	return true;
}

static bool op_slice(struct call *c)
{
	struct nnef_tensor *x = tensor_arg(c, "input", WEBNN_FLOAT32);
	int64_t axes[WEBNN_MAX_RANK], begin[WEBNN_MAX_RANK], end[WEBNN_MAX_RANK],
		stride[WEBNN_MAX_RANK];
	size_t n = arg_ints(c, "axes", axes, WEBNN_MAX_RANK);
	if (arg_ints(c, "begin", begin, WEBNN_MAX_RANK) != n ||
	    arg_ints(c, "end", end, WEBNN_MAX_RANK) != n)
		nnef_fail(c->ev, "'axes', 'begin' and 'end' must have the same length");
	size_t ns = has_arg(c, "stride") ? arg_ints(c, "stride", stride, WEBNN_MAX_RANK) : 0;
	if (ns && ns != n)
		nnef_fail(c->ev, "'stride' must have as many items as 'axes'");
	bool unit = true; /* NNEF: an end of 0 means the axis' end only when every stride is 1 */
	for (size_t i = 0; i < ns; i++)
		unit = unit && stride[i] == 1;
	uint32_t starts[WEBNN_MAX_RANK], sizes[WEBNN_MAX_RANK], strides[WEBNN_MAX_RANK];
	uint32_t rev[WEBNN_MAX_RANK], n_rev = 0;
	for (uint32_t i = 0; i < x->desc.rank; i++) {
		starts[i] = 0;
		sizes[i] = x->desc.shape[i];
		strides[i] = 1;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t a = axis_of(c, axes[i], x->desc.rank);
		int64_t dim = x->desc.shape[a], s = ns ? stride[i] : 1, b = begin[i], e = end[i];
		if (s == 0)
			nnef_fail(c->ev, "'stride' must not be 0 (axis %u)", a);
		if (e == 0 && unit)
			e = dim;
		/* negative offsets count from the end; both clamp to [-1, dim] */
		b = b < 0 ? b + dim : b;
		e = e < 0 ? e + dim : e;
		b = b < -1 ? -1 : b > dim ? dim : b;
		e = e < -1 ? -1 : e > dim ? dim : e;
		int64_t count;
		if (s > 0) {
			b = b < 0 ? 0 : b;
			count = e > b ? (e - b + s - 1) / s : 0;
		} else {
			if (b >= dim)
				b = dim - 1;
			count = b > e ? (b - e + (-s) - 1) / (-s) : 0;
			/* a negative stride walks the reversed axis, where index b is dim - 1 - b */
			b = dim - 1 - b;
			s = -s;
			rev[n_rev++] = a;
		}
		if (count == 0)
			nnef_fail(c->ev, "the slice of axis %u is empty (WebNN has no empty tensors)",
				  a);
		starts[a] = (uint32_t)b;
		/* WebNN's size is the span of the input the strided slice reads, not its count */
		sizes[a] = (uint32_t)((count - 1) * s + 1);
		strides[a] = (uint32_t)s;
	}
	struct webnn_operand *in = x->op, *out;
	if (n_rev) {
		struct webnn_reverse_options ro = WEBNN_REVERSE_OPTIONS_INIT;
		ro.axes = rev;
		ro.n_axes = n_rev;
		CHECK(c, webnn_builder_reverse(c->ev->b, in, &ro, &in), "reverse");
	}
	struct webnn_slice_options o = WEBNN_SLICE_OPTIONS_INIT;
	o.strides = strides;
	o.n_strides = x->desc.rank;
	CHECK(c, webnn_builder_slice(c->ev->b, in, starts, x->desc.rank, sizes, x->desc.rank, &o,
				     &out), "slice");
	set_result(c, 0, nnef_new_tensor(c->ev, out, x->logical));
	return true;
}

static bool op_tile(struct call *c)
{
	struct nnef_tensor *x = tensor_arg(c, "input", WEBNN_FLOAT32);
	int64_t rep[WEBNN_MAX_RANK];
	size_t n = arg_ints(c, "repeats", rep, WEBNN_MAX_RANK);
	if (n != x->desc.rank)
		nnef_fail(c->ev, "'repeats' must have %u items", x->desc.rank);
	uint32_t r[WEBNN_MAX_RANK];
	for (size_t i = 0; i < n; i++)
		r[i] = to_u32(c->ev, rep[i], "repeat");
	struct webnn_operand *out;
	CHECK(c, webnn_builder_tile(c->ev->b, x->op, r, (uint32_t)n, &out), "tile");
	set_result(c, 0, nnef_new_tensor(c->ev, out, x->logical));
	return true;
}

static bool op_pad(struct call *c)
{
	struct nnef_tensor *x = tensor_arg(c, "input", WEBNN_FLOAT32);
	int64_t p[WEBNN_MAX_RANK], q[WEBNN_MAX_RANK];
	size_t n = arg_pairs(c, "padding", p, q, WEBNN_MAX_RANK);
	if (n != x->desc.rank)
		nnef_fail(c->ev, "'padding' must have %u pairs", x->desc.rank);
	uint32_t b[WEBNN_MAX_RANK], e[WEBNN_MAX_RANK];
	for (size_t i = 0; i < n; i++) {
		b[i] = (uint32_t)p[i];
		e[i] = (uint32_t)q[i];
	}
	set_result(c, 0, pad_tensor(c->ev, x, b, e, border_fill(c->ev, arg_string(c, "border")),
				    arg_scalar(c, "value")));
	return true;
}

static bool op_gather(struct call *c)
{
	struct nnef_tensor *x = tensor_arg(c, "input", WEBNN_FLOAT32);
	struct nnef_tensor *idx = tensor_arg(c, "indices", WEBNN_INT32);
	struct webnn_gather_options o = WEBNN_GATHER_OPTIONS_INIT;
	o.axis = axis_of(c, arg_int(c, "axis"), x->desc.rank);
	struct webnn_operand *out;
	CHECK(c, webnn_builder_gather(c->ev->b, x->op, idx->op, &o, &out), "gather");
	set_result(c, 0, nnef_new_tensor(c->ev, out, x->logical));
	return true;
}

static bool op_cast(struct call *c)
{
	bool logical;
	enum webnn_data_type type = generic_type(c, &logical);
	struct nnef_tensor *x = tensor_arg(c, "input", WEBNN_FLOAT32);
	struct nnef_tensor *y;
	if (logical) { /* nonzero is true */
		y = bin(c->ev, webnn_builder_not_equal, "notEqual", x,
			scalar_like(c->ev, x, 0), true);
	} else {
		struct webnn_operand *out;
		CHECK(c, webnn_builder_cast(c->ev->b, x->op, type, &out), "cast");
		y = nnef_new_tensor(c->ev, out, false);
	}
	set_result(c, 0, y);
	return true;
}

static bool op_matmul(struct call *c)
{
	struct nnef_tensor *a = tensor_arg(c, "A", WEBNN_FLOAT32);
	struct nnef_tensor *b = tensor_arg(c, "B", WEBNN_FLOAT32);
	struct nnef_tensor *m[2] = { a, b };
	bool tr[2] = { arg_logical(c, "transposeA"), arg_logical(c, "transposeB") };
	for (int i = 0; i < 2; i++) {
		if (m[i]->desc.rank < 2)
			nnef_fail(c->ev, "matmul needs operands of rank 2 or more");
		if (tr[i]) {
			uint32_t perm[WEBNN_MAX_RANK], r = m[i]->desc.rank;
			for (uint32_t j = 0; j < r; j++)
				perm[j] = j;
			perm[r - 2] = r - 1;
			perm[r - 1] = r - 2;
			m[i] = transpose(c->ev, m[i], perm);
		}
	}
	struct webnn_operand *out;
	CHECK(c, webnn_builder_matmul(c->ev->b, m[0]->op, m[1]->op, &out), "matmul");
	return result_op(c, out);
}

/* ---- reductions: NNEF keeps the reduced axes as 1s */
static bool op_reduce(struct call *c)
{
	int64_t axes[WEBNN_MAX_RANK];
	size_t n;
	struct nnef_tensor *x = input_and_axes(c, axes, &n);
	uint32_t ax[WEBNN_MAX_RANK];
	for (size_t i = 0; i < n; i++)
		ax[i] = axis_of(c, axes[i], x->desc.rank);
	const char *name = c->f->name;
	struct webnn_operand *out;
	if (strncmp(name, "arg", 3) == 0) {
		if (n != 1)
			nnef_fail(c->ev, "an index over %zu axes cannot be expressed (WebNN's "
				  "argMin/argMax take one axis)", n);
		struct webnn_arg_min_max_options o = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
		o.keep_dimensions = true;
		o.output_data_type = WEBNN_INT32;
		CHECK(c, (name[3] == 'm' && name[4] == 'a' ? webnn_builder_arg_max
							     : webnn_builder_arg_min)(
				 c->ev->b, x->op, ax[0], &o, &out), "argMax");
		return result_op(c, out);
	}
	struct webnn_reduce_options o = WEBNN_REDUCE_OPTIONS_INIT;
	o.axes = ax;
	o.n_axes = (uint32_t)n;
	o.keep_dimensions = true;
	enum webnn_status (*fn)(struct webnn_builder *, struct webnn_operand *,
				const struct webnn_reduce_options *, struct webnn_operand **);
	if (strcmp(name, "sum_reduce") == 0)
		fn = arg_logical(c, "normalize") ? webnn_builder_reduce_mean : webnn_builder_reduce_sum;
	else if (strcmp(name, "mean_reduce") == 0)
		fn = webnn_builder_reduce_mean;
	else if (strcmp(name, "max_reduce") == 0 || strcmp(name, "any_reduce") == 0)
		fn = webnn_builder_reduce_max;
	else
		fn = webnn_builder_reduce_min;
	if (n == 0) {
		set_result(c, 0, x);
		return true;
	}
	CHECK(c, fn(c->ev->b, x->op, &o, &out), name);
	set_result(c, 0, nnef_new_tensor(c->ev, out, x->logical));
	return true;
}

/* ---- sliding windows */
enum window_kind { WIN_AVG, WIN_SUM, WIN_MAX };

struct window {
	uint32_t rank;
	int64_t size[WEBNN_MAX_RANK], stride[WEBNN_MAX_RANK], dil[WEBNN_MAX_RANK];
	int64_t p[WEBNN_MAX_RANK], q[WEBNN_MAX_RANK];
};

/* size, padding ([] automatic: the output is ceil(input / stride), the excess split with the
 * smaller half in front), stride and dilation ([] ones) over the last n of rank dimensions. */
static void window_args(struct call *c, const uint32_t *in, uint32_t rank, uint32_t first,
			const int64_t *size, struct window *w)
{
	uint32_t n = rank - first;
	int64_t tmp[WEBNN_MAX_RANK];
	w->rank = rank;
	for (uint32_t i = 0; i < rank; i++) {
		w->size[i] = i < first ? 1 : size[i - first];
		w->stride[i] = w->dil[i] = 1;
		w->p[i] = w->q[i] = 0;
		if (w->size[i] <= 0 || w->size[i] > UINT32_MAX)
			nnef_fail(c->ev, "window size %lld is out of range", (long long)w->size[i]);
	}
	size_t ns = arg_ints(c, "stride", tmp, WEBNN_MAX_RANK);
	if (ns && ns != n)
		nnef_fail(c->ev, "'stride' must have %u items", n);
	for (size_t i = 0; i < ns; i++)
		w->stride[first + i] = tmp[i];
	size_t nd = arg_ints(c, "dilation", tmp, WEBNN_MAX_RANK);
	if (nd && nd != n)
		nnef_fail(c->ev, "'dilation' must have %u items", n);
	for (size_t i = 0; i < nd; i++)
		w->dil[first + i] = tmp[i];
	for (uint32_t i = 0; i < rank; i++)
		if (w->stride[i] <= 0 || w->stride[i] > 65536 || w->dil[i] <= 0 ||
		    w->dil[i] > 65536)
			nnef_fail(c->ev, "stride and dilation must be positive (and at most 65536)");
	int64_t p[WEBNN_MAX_RANK], q[WEBNN_MAX_RANK];
	size_t np = arg_pairs(c, "padding", p, q, WEBNN_MAX_RANK);
	if (np && np != n)
		nnef_fail(c->ev, "'padding' must have %u pairs (or be [] for automatic padding)", n);
	for (uint32_t i = first; i < rank; i++) {
		if (np) {
			w->p[i] = p[i - first];
			w->q[i] = q[i - first];
			continue;
		}
		int64_t out = ((int64_t)in[i] + w->stride[i] - 1) / w->stride[i];
		int64_t total = (out - 1) * w->stride[i] + (w->size[i] - 1) * w->dil[i] + 1 -
				(int64_t)in[i];
		if (total < 0)
			total = 0;
		w->p[i] = total / 2;
		w->q[i] = total - total / 2;
	}
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* How many taps k < size of the window at output o fall inside [0, in): o*s + k*d - p. */
static int64_t inside(int64_t o, int64_t s, int64_t d, int64_t p, int64_t size, int64_t in)
{
	int64_t base = o * s - p;
	int64_t lo = -floor_div(base, d); /* ceil(-base / d) */
	int64_t hi = floor_div(in - 1 - base, d);
	if (lo < 0)
		lo = 0;
	if (hi > size - 1)
		hi = size - 1;
	return hi >= lo ? hi - lo + 1 : 0;
}

/* The pooling family on up to two windowed dimensions of any rank: those dimensions are moved
 * last and the others folded into the batch, then pooled as NCHW. */
static struct nnef_tensor *pool(struct nnef_eval *ev, struct nnef_tensor *x, enum window_kind kind,
				const char *border, const struct window *w)
{
	uint32_t r = x->desc.rank;
	uint32_t win[WEBNN_MAX_RANK], nw = 0;
	for (uint32_t i = 0; i < r; i++)
		if (w->size[i] > 1 || w->stride[i] > 1 || w->p[i] || w->q[i])
			win[nw++] = i;
	if (nw == 0)
		return x;
	if (nw > 2)
		nnef_fail(ev, "a window over %u dimensions cannot be expressed (WebNN pools two)", nw);
	enum border_fill bf = border_fill(ev, border);
	bool ignore = strcmp(border, "ignore") == 0;
	uint32_t pb[WEBNN_MAX_RANK], pe[WEBNN_MAX_RANK];
	for (uint32_t i = 0; i < r; i++) {
		pb[i] = (uint32_t)w->p[i];
		pe[i] = (uint32_t)w->q[i];
	}
	double fill = kind == WIN_MAX && ignore ? -INFINITY : 0.0;
	struct nnef_tensor *xp = pad_tensor(ev, x, pb, pe, bf, fill);
	/* layout: the other dimensions, then the windowed ones */
	uint32_t perm[WEBNN_MAX_RANK], inv[WEBNN_MAX_RANK], k = 0;
	for (uint32_t i = 0; i < r; i++)
		if (!(i == win[0] || (nw == 2 && i == win[1])))
			perm[k++] = i;
	uint32_t lead = k;
	for (uint32_t i = 0; i < nw; i++)
		perm[k++] = win[i];
	for (uint32_t i = 0; i < r; i++)
		inv[perm[i]] = i;
	struct nnef_tensor *t = transpose(ev, xp, perm);
	uint64_t batch = 1;
	for (uint32_t i = 0; i < lead; i++)
		batch *= t->desc.shape[i];
	if (batch > UINT32_MAX)
		nnef_fail(ev, "the pooled tensor is too large");
	uint32_t a = nw == 2 ? t->desc.shape[r - 2] : 1, bdim = t->desc.shape[r - 1];
	uint32_t s4[4] = { (uint32_t)batch, 1, a, bdim };
	/* NCHW pooled over H and W as it is */
	bool direct = r == 4 && nw == 2 && win[0] == 2 && win[1] == 3;
	struct nnef_tensor *t4 = direct ? t : reshape(ev, t, s4, 4);
	struct webnn_pool2d_options o = WEBNN_POOL2D_OPTIONS_INIT;
	uint32_t w0 = nw == 2 ? win[0] : 0, w1 = win[nw - 1];
	o.window_dimensions[0] = nw == 2 ? (uint32_t)w->size[w0] : 1;
	o.window_dimensions[1] = (uint32_t)w->size[w1];
	o.n_window_dimensions = 2;
	o.strides[0] = nw == 2 ? (uint32_t)w->stride[w0] : 1;
	o.strides[1] = (uint32_t)w->stride[w1];
	o.n_strides = 2;
	o.dilations[0] = nw == 2 ? (uint32_t)w->dil[w0] : 1;
	o.dilations[1] = (uint32_t)w->dil[w1];
	o.n_dilations = 2;
	struct webnn_operand *out;
	enum webnn_status s = (kind == WIN_MAX ? webnn_builder_max_pool2d
					       : webnn_builder_average_pool2d)(ev->b, t4->op, &o, &out);
	if (s != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, kind == WIN_MAX ? "maxPool2d" : "averagePool2d", s);
	struct nnef_tensor *y = nnef_new_tensor(ev, out, false);
	uint32_t oa = y->desc.shape[2], ob = y->desc.shape[3];
	if (!direct) {
		uint32_t shape[WEBNN_MAX_RANK];
		for (uint32_t i = 0; i < lead; i++)
			shape[i] = t->desc.shape[i];
		if (nw == 2)
			shape[lead] = oa;
		shape[r - 1] = ob;
		y = transpose(ev, reshape(ev, y, shape, r), inv);
	}
	double area = (double)o.window_dimensions[0] * o.window_dimensions[1];
	if (kind == WIN_SUM || (kind == WIN_AVG && ignore && (w->p[w0] || w->q[w0] || w->p[w1] ||
							       w->q[w1]))) {
		if (kind == WIN_SUM) {
			y = bin(ev, webnn_builder_mul, "mul", y, scalar_like(ev, y, area), false);
		} else {
			/* 'ignore' averages over the window's part inside the input: scale by
			 * area / count, the counts computed here per output position */
			uint32_t od[2] = { nw == 2 ? oa : 1, ob };
			uint32_t dims[2] = { nw == 2 ? w0 : 0, w1 };
			double *f = nnef_alloc(&ev->arena, (size_t)od[0] * od[1] * sizeof(double));
			for (uint32_t i = 0; i < od[0]; i++)
				for (uint32_t j = 0; j < od[1]; j++) {
					uint32_t o2[2] = { i, j };
					double cnt = 1;
					for (int d = 0; d < 2; d++) {
						if (d == 0 && nw == 1)
							continue;
						uint32_t ax = dims[d];
						cnt *= (double)inside(o2[d], w->stride[ax], w->dil[ax],
								      w->p[ax], w->size[ax],
								      x->desc.shape[ax]);
					}
					f[(size_t)i * od[1] + j] = cnt > 0 ? area / cnt : 0;
				}
			uint32_t fs[WEBNN_MAX_RANK];
			for (uint32_t i = 0; i < r; i++)
				fs[i] = 1;
			if (nw == 2)
				fs[w0] = oa;
			fs[w1] = ob;
			struct nnef_tensor *ft = constant(ev, y->desc.data_type, fs, r, f,
							  (size_t)od[0] * od[1], false);
			y = bin(ev, webnn_builder_mul, "mul", y, ft, false);
		}
	}
	return y;
}

static bool op_box(struct call *c)
{
	const char *name = c->f->name;
	struct nnef_tensor *x = tensor_arg(c, "input", WEBNN_FLOAT32);
	int64_t size[WEBNN_MAX_RANK];
	size_t n = arg_ints(c, "size", size, WEBNN_MAX_RANK);
	if (n != x->desc.rank)
		nnef_fail(c->ev, "'size' must have %u items", x->desc.rank);
	struct window w;
	window_args(c, x->desc.shape, x->desc.rank, 0, size, &w);
	enum window_kind kind = strcmp(name, "max_pool") == 0 ? WIN_MAX
				: strcmp(name, "avg_pool") == 0 ? WIN_AVG
				: arg_logical(c, "normalize") ? WIN_AVG : WIN_SUM;
	set_result(c, 0, pool(c->ev, x, kind, arg_string(c, "border"), &w));
	return true;
}

static bool op_no_indices(struct call *c)
{
	nnef_fail(c->ev, "WebNN has no pooling with indices (argmax_pool, sample, desample, "
		  "max_pool_with_index)");
}

/* padding, strides and dilations into conv2d or convTranspose2d options (same field names). */
#define CONV_WINDOW(o, pad, strides, dil)                                                   \
	do {                                                                                \
		memcpy((o).padding, (pad), sizeof(pad));                                    \
		(o).n_padding = 4;                                                          \
		memcpy((o).strides, (strides), sizeof(strides));                            \
		(o).n_strides = 2;                                                          \
		memcpy((o).dilations, (dil), sizeof(dil));                                  \
		(o).n_dilations = 2;                                                        \
	} while (0)

/* conv and deconv on rank 3 (one spatial dimension, given a unit width) or 4. */
static bool op_conv(struct call *c)
{
	struct nnef_eval *ev = c->ev;
	bool deconv = strcmp(c->f->name, "deconv") == 0;
	struct nnef_tensor *x = tensor_arg(c, "input", WEBNN_FLOAT32);
	struct nnef_tensor *f = tensor_arg(c, "filter", x->desc.data_type);
	uint32_t r = x->desc.rank;
	if (r != 3 && r != 4)
		nnef_fail(ev, "%u-D convolution cannot be expressed (WebNN convolves in 1 or 2 "
			  "dimensions)", r - 2);
	if (f->desc.rank != r)
		nnef_fail(ev, "'filter' must have rank %u", r);
	int64_t ks[2] = { f->desc.shape[2], r == 4 ? f->desc.shape[3] : 1 };
	struct window w;
	window_args(c, x->desc.shape, r, 2, ks, &w);
	const char *border = arg_string(c, "border");
	bool moded = border_fill(ev, border) != BORDER_VALUE;
	int64_t groups = arg_int(c, "groups");
	if (groups < 0 || groups > UINT32_MAX)
		nnef_fail(ev, "'groups' %lld is out of range", (long long)groups);
	int64_t oshape[WEBNN_MAX_RANK];
	size_t nos = deconv ? arg_ints(c, "output_shape", oshape, WEBNN_MAX_RANK) : 0;
	if (nos && nos != r)
		nnef_fail(ev, "'output_shape' must have %u items", r);
	if (groups == 0) /* depthwise */
		groups = deconv && nos ? oshape[1] : x->desc.shape[1];
	if (deconv && moded)
		nnef_fail(ev, "deconv with border '%s' cannot be expressed", border);
	struct nnef_tensor *in = x;
	if (moded) { /* the border's values first, then an unpadded convolution */
		uint32_t pb[WEBNN_MAX_RANK] = { 0 }, pe[WEBNN_MAX_RANK] = { 0 };
		for (uint32_t i = 2; i < r; i++) {
			pb[i] = (uint32_t)w.p[i];
			pe[i] = (uint32_t)w.q[i];
			w.p[i] = w.q[i] = 0;
		}
		in = pad_tensor(ev, x, pb, pe, border_fill(ev, border), 0);
	}
	if (r == 3) {
		uint32_t s[4] = { in->desc.shape[0], in->desc.shape[1], in->desc.shape[2], 1 };
		in = reshape(ev, in, s, 4);
		uint32_t fsh[4] = { f->desc.shape[0], f->desc.shape[1], f->desc.shape[2], 1 };
		f = reshape(ev, f, fsh, 4);
	}
	uint32_t sp[2] = { 2, 3 };
	uint32_t pad[4], strides[2], dil[2];
	for (int i = 0; i < 2; i++) {
		uint32_t a = r == 4 || i == 0 ? sp[i] : 0;
		bool real = r == 4 || i == 0;
		pad[2 * i] = real ? (uint32_t)w.p[a] : 0;
		pad[2 * i + 1] = real ? (uint32_t)w.q[a] : 0;
		strides[i] = real ? (uint32_t)w.stride[a] : 1;
		dil[i] = real ? (uint32_t)w.dil[a] : 1;
	}
	/* bias: [1, C] (or a number) as WebNN's 1-D bias; anything else added afterwards */
	struct nnef_value *bv = arg(c, "bias");
	struct webnn_operand *bias = NULL;
	struct nnef_tensor *late_bias = NULL;
	if (bv->k == NV_TENSOR) {
		struct nnef_tensor *bt = bv->u.t;
		if (bt->desc.rank == 2 && bt->desc.shape[0] == 1) {
			uint32_t s1 = bt->desc.shape[1];
			bias = reshape(ev, bt, &s1, 1)->op;
		} else if (bt->desc.rank == 1) {
			bias = bt->op;
		} else {
			late_bias = bt;
		}
	} else if (!((bv->k == NV_SCALAR && bv->u.f == 0) || (bv->k == NV_INTEGER && bv->u.i == 0))) {
		late_bias = nnef_as_tensor(ev, bv, x->desc.data_type);
	}
	struct webnn_operand *out;
	if (!deconv) {
		struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
		CONV_WINDOW(o, pad, strides, dil);
		o.groups = (uint32_t)groups;
		o.bias = bias;
		CHECK(c, webnn_builder_conv2d(ev->b, in->op, f->op, &o, &out), "conv2d");
	} else {
		struct webnn_conv_transpose2d_options o = WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
		/* NNEF's automatic padding here yields input * stride (or output_shape) */
		uint32_t osz[2];
		for (int i = 0; i < 2; i++) {
			bool real = r == 4 || i == 0;
			uint32_t a = real ? sp[i] : 0;
			int64_t inx = real ? x->desc.shape[a] : 1, k = real ? ks[i] : 1;
			int64_t want = nos ? (real ? oshape[a] : 1) : -1;
			bool autopad = arg(c, "padding")->u.list.n == 0;
			if (autopad) {
				int64_t o2 = want >= 0 ? want : inx * strides[i];
				int64_t total = (inx - 1) * strides[i] + (k - 1) * dil[i] + 1 - o2;
				if (total < 0)
					total = 0;
				pad[2 * i] = (uint32_t)(total / 2);
				pad[2 * i + 1] = (uint32_t)(total - total / 2);
				want = o2;
			}
			if (want < 0)
				want = (inx - 1) * strides[i] + (k - 1) * dil[i] + 1 - pad[2 * i] -
				       pad[2 * i + 1];
			if (want <= 0 || want > UINT32_MAX)
				nnef_fail(ev, "the output size %lld is out of range", (long long)want);
			osz[i] = (uint32_t)want;
		}
		CONV_WINDOW(o, pad, strides, dil);
		memcpy(o.output_sizes, osz, sizeof(osz));
		o.n_output_sizes = 2;
		o.groups = (uint32_t)groups;
		o.filter_layout = WEBNN_TFILTER_IOHW;
		o.bias = bias;
		CHECK(c, webnn_builder_conv_transpose2d(ev->b, in->op, f->op, &o, &out),
		      "convTranspose2d");
	}
	struct nnef_tensor *y = nnef_new_tensor(ev, out, false);
	if (r == 3) {
		uint32_t s[3] = { y->desc.shape[0], y->desc.shape[1], y->desc.shape[2] };
		y = reshape(ev, y, s, 3);
	}
	if (late_bias)
		y = bin(ev, webnn_builder_add, "add", y, late_bias, false);
	set_result(c, 0, y);
	return true;
}

/* multilinear_upsample's 1-D weights for factor f (NNEF defines the method through them):
 * 'symmetric' has 2f taps, 1 - (i + 0.5) / f mirrored; 'asymmetric' 2f - 1 taps, 1 - |i| / f;
 * a factor of 1 is one tap of 1 (the axis is kept). Returns the count. */
static uint32_t upsample_taps(int64_t f, bool symmetric, double *w)
{
	if (f == 1) {
		w[0] = 1;
		return 1;
	}
	if (symmetric) {
		for (int64_t i = 0; i < f; i++) {
			double v = 1 - ((double)i + 0.5) / (double)f;
			w[f - 1 - i] = v;
			w[f + i] = v;
		}
		return (uint32_t)(2 * f);
	}
	for (int64_t i = -f + 1; i < f; i++)
		w[i + f - 1] = 1 - fabs((double)i) / (double)f;
	return (uint32_t)(2 * f - 1);
}

/* 'symmetric' or 'asymmetric' multilinear_upsample by factors of 1 or 2 as the depthwise
 * deconvolution NNEF defines it: a stride of the factor and the taps above as filter.
 * 'symmetric' is padded f - 1 on both sides (half-pixel linear interpolation); 'asymmetric' puts
 * output f i on input i (f - 1 before, none after: TensorFlow's legacy bilinear resize, which
 * NNEF's converters map to it). Outside the input is zero ('constant'), or ('replicate') the
 * input is first extended by its edge rows and columns, f more padding on each side taking them
 * back off. */
static struct nnef_tensor *upsample_deconv(struct nnef_eval *ev, struct nnef_tensor *x,
					   const int64_t *factor, bool symmetric, bool replicate)
{
	uint32_t ch = x->desc.shape[1], k[2], pad[4], strides[2], dil[2] = { 1, 1 }, osz[2];
	double *w[2];
	uint32_t pb[4] = { 0 }, pe[4] = { 0 };
	for (int i = 0; i < 2; i++) {
		if (!(w[i] = malloc((size_t)(2 * factor[i]) * sizeof(double))))
			nnef_fail(ev, "out of memory");
		uint32_t f = (uint32_t)factor[i];
		k[i] = upsample_taps(f, symmetric, w[i]);
		pad[2 * i] = pad[2 * i + 1] = 0;
		if (f > 1) {
			pad[2 * i] = f - 1;
			pad[2 * i + 1] = symmetric ? f - 1 : 0;
			if (replicate) {
				pb[2 + i] = pe[2 + i] = 1;
				pad[2 * i] += f;
				pad[2 * i + 1] += f;
			}
		}
		strides[i] = f;
		osz[i] = x->desc.shape[2 + i] * f;
	}
	size_t per = (size_t)k[0] * k[1];
	double *filt = malloc((size_t)ch * per * sizeof(double));
	if (!filt) {
		free(w[0]);
		free(w[1]);
		nnef_fail(ev, "out of memory");
	}
	for (uint32_t c = 0; c < ch; c++)
		for (uint32_t a = 0; a < k[0]; a++)
			for (uint32_t b = 0; b < k[1]; b++)
				filt[c * per + a * k[1] + b] = w[0][a] * w[1][b];
	free(w[0]);
	free(w[1]);
	uint32_t fshape[4] = { ch, 1, k[0], k[1] };
	struct nnef_tensor *f = constant(ev, WEBNN_FLOAT32, fshape, 4, filt, ch * per, false);
	free(filt);
	struct nnef_tensor *in = pad_tensor(ev, x, pb, pe, BORDER_EDGE, 0);
	struct webnn_conv_transpose2d_options o = WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
	CONV_WINDOW(o, pad, strides, dil);
	memcpy(o.output_sizes, osz, sizeof(osz));
	o.n_output_sizes = 2;
	o.groups = ch;
	o.filter_layout = WEBNN_TFILTER_IOHW;
	struct webnn_operand *out;
	enum webnn_status st = webnn_builder_conv_transpose2d(ev->b, in->op, f->op, &o, &out);
	if (st != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, "convTranspose2d", st);
	return nnef_new_tensor(ev, out, false);
}

/* Where multilinear_upsample's output o samples an input axis of n entries (m = n f outputs). */
enum upsample_grid {
	GRID_HALF_PIXEL, /* 'symmetric': (o + 0.5) / f - 0.5 */
	GRID_ASYMMETRIC, /* 'asymmetric': o / f */
	GRID_ALIGNED,    /* 'aligned': o (n - 1) / (m - 1), corners on corners */
};

/* multilinear_upsample as two matmuls with constant interpolation matrices, one per axis: exact
 * for any factor, grid and border (samples outside the input are zero, or with replicate the
 * edge). Used where no WebNN resample or deconvolution of NNEF's factor-2 definition fits. */
static struct nnef_tensor *upsample_matrices(struct nnef_eval *ev, struct nnef_tensor *x,
					     const int64_t *factor, enum upsample_grid grid,
					     bool replicate)
{
	struct nnef_tensor *y = x;
	for (int i = 1; i >= 0; i--) {
		if (factor[i] == 1)
			continue;
		uint32_t n = x->desc.shape[2 + i], m = n * (uint32_t)factor[i];
		double f = (double)factor[i];
		if ((uint64_t)n * m > (1u << 24)) /* a 64 MiB constant */
			nnef_fail(ev, "an interpolation matrix of %u x %u entries is too large (at most "
				  "2^24)", m, n);
		double *mat = calloc((size_t)n * m, sizeof(double));
		if (!mat)
			nnef_fail(ev, "out of memory");
		/* width: [n, m] on the right of [.., H, n]; height: [m, n] on the left of [.., n, W] */
		for (uint32_t o = 0; o < m; o++) {
			double p = grid == GRID_HALF_PIXEL ? ((double)o + 0.5) / f - 0.5
				   : grid == GRID_ASYMMETRIC ? (double)o / f
				   : m > 1 ? (double)o * (double)(n - 1) / (double)(m - 1) : 0;
			double lo = floor(p), t = p - lo;
			for (int side = 0; side < 2; side++) {
				int64_t in = (int64_t)lo + side;
				double wgt = side ? t : 1 - t;
				if (in < 0 || in >= (int64_t)n) {
					if (!replicate || wgt == 0)
						continue;
					in = in < 0 ? 0 : (int64_t)n - 1;
				}
				size_t at = i == 1 ? (size_t)in * m + o : (size_t)o * n + (size_t)in;
				mat[at] += wgt;
			}
		}
		uint32_t shape[4] = { 1, 1, i == 1 ? n : m, i == 1 ? m : n };
		struct nnef_tensor *k = constant(ev, WEBNN_FLOAT32, shape, 4, mat, (size_t)n * m,
						 false);
		free(mat);
		struct webnn_operand *out;
		enum webnn_status st = i == 1 ? webnn_builder_matmul(ev->b, y->op, k->op, &out)
					      : webnn_builder_matmul(ev->b, k->op, y->op, &out);
		if (st != WEBNN_STATUS_OK)
			nnef_fail_webnn(ev, "matmul", st);
		y = nnef_new_tensor(ev, out, false);
	}
	return y;
}

static bool op_upsample(struct call *c)
{
	struct nnef_eval *ev = c->ev;
	struct nnef_tensor *x = tensor_arg(c, "input", WEBNN_FLOAT32);
	int64_t factor[WEBNN_MAX_RANK];
	size_t n = arg_ints(c, "factor", factor, WEBNN_MAX_RANK);
	if (x->desc.rank != 4 || n != 2)
		nnef_fail(ev, "only 2-D upsampling of rank-4 tensors can be expressed");
	for (int i = 0; i < 2; i++) {
		uint64_t s = (uint64_t)x->desc.shape[2 + i] * (uint64_t)to_u32(ev, factor[i], "factor");
		if (factor[i] == 0 || factor[i] > 4096 || s > UINT32_MAX)
			nnef_fail(ev, "factor %lld is out of range", (long long)factor[i]);
	}
	struct webnn_resample2d_options o = WEBNN_RESAMPLE2D_OPTIONS_INIT;
	if (strcmp(c->f->name, "multilinear_upsample") == 0) {
		const char *method = arg_string(c, "method"), *border = arg_string(c, "border");
		bool replicate = strcmp(border, "replicate") == 0;
		bool constant_border = strcmp(border, "constant") == 0;
		bool symmetric = strcmp(method, "symmetric") == 0;
		bool aligned = strcmp(method, "aligned") == 0;
		if (!aligned && !symmetric && strcmp(method, "asymmetric") != 0)
			nnef_fail(ev, "unknown method '%s' (NNEF has 'symmetric', 'asymmetric' and "
				  "'aligned')", method);
		if (!replicate && !constant_border)
			nnef_fail(ev, "border '%s' is not defined for multilinear_upsample (NNEF has "
				  "'constant' and 'replicate')", border);
		bool by_two = factor[0] <= 2 && factor[1] <= 2;
		if (!aligned && !(symmetric && replicate) && by_two) {
			/* the deconvolution NNEF defines for factor 2 */
			set_result(c, 0, upsample_deconv(ev, x, factor, symmetric, replicate));
			return true;
		}
		if (!(symmetric && replicate)) {
			enum upsample_grid g = aligned ? GRID_ALIGNED
					       : symmetric ? GRID_HALF_PIXEL : GRID_ASYMMETRIC;
			set_result(c, 0, upsample_matrices(ev, x, factor, g, replicate));
			return true;
		}
		/* half-pixel linear interpolation clamped at the edges: WebNN's linear mode */
		o.mode = WEBNN_INTERPOLATION_LINEAR;
	}
	for (int i = 0; i < 2; i++)
		o.sizes[i] = x->desc.shape[2 + i] * (uint32_t)factor[i];
	o.n_sizes = 2;
	struct webnn_operand *out;
	CHECK(c, webnn_builder_resample2d(ev->b, x->op, &o, &out), "resample2d");
	set_result(c, 0, nnef_new_tensor(ev, out, false));
	return true;
}

static bool op_unsupported(struct call *c)
{
	const char *n = c->f->name;
	if (strcmp(n, "update") == 0)
		nnef_fail(c->ev, "WebNN graphs have no state for 'update' to change");
	if (strcmp(n, "debox") == 0)
		nnef_fail(c->ev, "WebNN has no transposed pooling");
	nnef_fail(c->ev, "WebNN has no region-of-interest operations");
}

static const struct {
	const char *name;
	bool (*fn)(struct call *);
} table[] = {
	{ "external", op_external },
	{ "variable", op_variable },
	{ "constant", op_constant },
	{ "update", op_unsupported },
	{ "reshape", op_reshape },
	{ "squeeze", op_squeeze_unsqueeze },
	{ "unsqueeze", op_squeeze_unsqueeze },
	{ "transpose", op_transpose },
	{ "concat", op_concat_stack },
	{ "stack", op_concat_stack },
	{ "split", op_split },
	{ "unstack", op_split },
	{ "slice", op_slice },
	{ "tile", op_tile },
	{ "pad", op_pad },
	{ "gather", op_gather },
	{ "cast", op_cast },
	{ "sqr", op_sqr },
	{ "rsqr", op_sqr },
	{ "rsqrt", op_rsqrt },
	{ "log2", op_log2 },
	{ "round", op_round },
	{ "sinh", op_hyperbolic },
	{ "cosh", op_hyperbolic },
	{ "asinh", op_hyperbolic },
	{ "acosh", op_hyperbolic },
	{ "atanh", op_hyperbolic },
	{ "asin", op_inverse_trig },
	{ "acos", op_inverse_trig },
	{ "atan", op_inverse_trig },
	{ "select", op_select },
	{ "clamp", op_clamp },
	{ "elu", op_elu },
	{ "leaky_relu", op_leaky_relu },
	{ "prelu", op_prelu },
	{ "softmax", op_softmax },
	{ "matmul", op_matmul },
	{ "sum_reduce", op_reduce },
	{ "mean_reduce", op_reduce },
	{ "max_reduce", op_reduce },
	{ "min_reduce", op_reduce },
	{ "any_reduce", op_reduce },
	{ "all_reduce", op_reduce },
	{ "argmax_reduce", op_reduce },
	{ "argmin_reduce", op_reduce },
	{ "box", op_box },
	{ "avg_pool", op_box },
	{ "max_pool", op_box },
	{ "argmax_pool", op_no_indices },
	{ "sample", op_no_indices },
	{ "desample", op_no_indices },
	{ "max_pool_with_index", op_no_indices },
	{ "debox", op_unsupported },
	{ "conv", op_conv },
	{ "deconv", op_conv },
	{ "nearest_upsample", op_upsample },
	{ "multilinear_upsample", op_upsample },
	{ "avg_roi_pool", op_unsupported },
	{ "max_roi_pool", op_unsupported },
	{ "roi_resample", op_unsupported },
};

bool nnef_primitive(struct nnef_eval *ev, const struct nnef_fragment *f,
		    const struct nnef_type *generic, struct nnef_value *args,
		    struct nnef_value *results)
{
	/* A fragment of the document itself may reuse no standard name (names are unique), so
	 * only standard-library fragments map to WebNN directly. */
	if (strcmp(f->file, "stdlib.nnef") != 0)
		return false;
	struct call c = { ev, f, generic, args, results };
	for (size_t i = 0; i < sizeof(unaries) / sizeof(unaries[0]); i++)
		if (strcmp(f->name, unaries[i].name) == 0) {
			struct nnef_tensor *x = nnef_as_tensor(ev, &args[0], WEBNN_FLOAT32);
			struct nnef_tensor *y = un(ev, unaries[i].fn, unaries[i].webnn, x);
			y->logical = unaries[i].logical;
			set_result(&c, 0, y);
			return true;
		}
	for (size_t i = 0; i < sizeof(binaries) / sizeof(binaries[0]); i++)
		if (strcmp(f->name, binaries[i].name) == 0) {
			struct nnef_tensor *a, *b;
			operands(&c, &a, &b);
			set_result(&c, 0, bin(ev, binaries[i].fn, binaries[i].webnn, a, b,
					      binaries[i].logical));
			return true;
		}
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(f->name, table[i].name) == 0)
			return table[i].fn(&c);
	return false;
}
