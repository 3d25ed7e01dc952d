/* The NNEF evaluator: compile-time expressions, fragment calls and their expansion, and the graph's statements. */
#include "importers/nnef/nnef.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Invokes operation name with bound arguments (one per parameter of f, defaults applied). */
static struct nnef_value nnef_invoke(struct nnef_eval *ev, const struct nnef_fragment *f,
				     const struct nnef_type *generic, struct nnef_value *args, int line);

/* Calls a fragment by name with positional arguments only (the operator forms: a + b). */
static struct nnef_value nnef_call(struct nnef_eval *ev, const char *name, struct nnef_value *args,
				   size_t n, int line);

_Noreturn void nnef_fail(struct nnef_eval *ev, const char *fmt, ...)
{
	if (ev->error && ev->len) {
		size_t n = (size_t)snprintf(ev->error, ev->len, "nnef: %s:%d: ", ev->file, ev->line);
		if (n < ev->len && ev->depth > 0) {
			n += (size_t)snprintf(ev->error + n, ev->len - n, "%s", ev->ops[ev->depth - 1]);
			if (n < ev->len && ev->depth > 1)
				n += (size_t)snprintf(ev->error + n, ev->len - n, " (in %s)",
						      ev->ops[0]);
			if (n < ev->len)
				n += (size_t)snprintf(ev->error + n, ev->len - n, ": ");
		}
		if (n < ev->len) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(ev->error + n, ev->len - n, fmt, ap);
			va_end(ap);
		}
	}
	longjmp(ev->fail, 1);
}

_Noreturn void nnef_fail_webnn(struct nnef_eval *ev, const char *call, enum webnn_status s)
{
	const char *detail = webnn_context_last_error(ev->ctx);
	size_t k = strlen(call);
	/* libwebnn's message starts with the operator, which this one already names */
	if (detail && strncmp(detail, call, k) == 0 && detail[k] == ':' && detail[k + 1] == ' ')
		detail += k + 2;
	nnef_fail(ev, "WebNN %s failed (%s): %s", call, webnn_status_name(s),
		  detail && *detail ? detail : webnn_status_string(s));
}

/* ---- scopes */
struct nnef_binding {
	const char *name;
	struct nnef_value v;
	struct nnef_binding *next;
};

static size_t hash(const char *s)
{
	size_t h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static struct nnef_scope *new_scope(struct nnef_eval *ev, size_t n, struct nnef_scope *parent)
{
	struct nnef_scope *s = nnef_alloc(&ev->arena, sizeof(*s));
	s->n_buckets = n;
	s->buckets = nnef_alloc(&ev->arena, n * sizeof(*s->buckets));
	s->parent = parent;
	return s;
}

static struct nnef_value *lookup(struct nnef_scope *s, const char *name)
{
	for (; s; s = s->parent)
		for (struct nnef_binding *b = s->buckets[hash(name) % s->n_buckets]; b; b = b->next)
			if (strcmp(b->name, name) == 0)
				return &b->v;
	return NULL;
}

static void bind(struct nnef_eval *ev, struct nnef_scope *s, const char *name,
		 struct nnef_value v)
{
	size_t h = hash(name) % s->n_buckets;
	for (struct nnef_binding *b = s->buckets[h]; b; b = b->next)
		if (strcmp(b->name, name) == 0)
			nnef_fail(ev, "'%s' is assigned twice", name);
	struct nnef_binding *b = nnef_alloc(&ev->arena, sizeof(*b));
	b->name = name;
	b->v = v;
	b->next = s->buckets[h];
	s->buckets[h] = b;
}

/* ---- fragments */
struct nnef_fragment *nnef_find_fragment(struct nnef_eval *ev, const char *name)
{
	for (struct nnef_fragment *f = ev->frags[hash(name) % ev->n_frag_buckets]; f; f = f->next)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

/* ---- values */
static const char *kind_name(enum nnef_value_kind k)
{
	static const char *const names[] = { "nothing", "integer", "scalar", "logical",
					     "string",  "tensor",  "array",  "tuple" };
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "value";
}

static struct nnef_value mk_int(int64_t i)
{
	return (struct nnef_value){ .k = NV_INTEGER, .u.i = i };
}

static struct nnef_value mk_scalar(double f)
{
	return (struct nnef_value){ .k = NV_SCALAR, .u.f = f };
}

static struct nnef_value mk_logical(bool b)
{
	return (struct nnef_value){ .k = NV_LOGICAL, .u.b = b };
}

static struct nnef_value mk_list(struct nnef_eval *ev, enum nnef_value_kind k, size_t n)
{
	if (n > NNEF_MAX_ARRAY)
		nnef_fail(ev, "an array of %zu items, more than the %zu allowed", n, NNEF_MAX_ARRAY);
	struct nnef_value v = { .k = k };
	v.u.list.n = n;
	v.u.list.items = nnef_alloc(&ev->arena, (n ? n : 1) * sizeof(struct nnef_value));
	return v;
}

static bool is_tensorish(const struct nnef_value *v)
{
	if (v->k == NV_TENSOR)
		return true;
	return false;
}

static struct nnef_value eval(struct nnef_eval *ev, struct nnef_scope *s,
			       const struct nnef_expr *e);

static int64_t want_int(struct nnef_eval *ev, const struct nnef_value *v, const char *what)
{
	if (v->k != NV_INTEGER)
		nnef_fail(ev, "%s must be an integer, not a %s", what, kind_name(v->k));
	return v->u.i;
}

static bool want_logical(struct nnef_eval *ev, const struct nnef_value *v, const char *what)
{
	if (v->k != NV_LOGICAL)
		nnef_fail(ev, "%s must be a logical, not a %s", what, kind_name(v->k));
	return v->u.b;
}

static int cmp_values(struct nnef_eval *ev, const struct nnef_value *a,
		      const struct nnef_value *b)
{
	if ((a->k == NV_INTEGER || a->k == NV_SCALAR) && (b->k == NV_INTEGER || b->k == NV_SCALAR)) {
		if (a->k == NV_INTEGER && b->k == NV_INTEGER)
			return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
		double x = a->k == NV_INTEGER ? (double)a->u.i : a->u.f;
		double y = b->k == NV_INTEGER ? (double)b->u.i : b->u.f;
		return x < y ? -1 : x > y;
	}
	if (a->k != b->k)
		nnef_fail(ev, "cannot compare a %s with a %s", kind_name(a->k), kind_name(b->k));
	switch (a->k) {
	case NV_LOGICAL:
		return (int)a->u.b - (int)b->u.b;
	case NV_STRING: {
		int c = strcmp(a->u.s, b->u.s);
		return c < 0 ? -1 : c > 0;
	}
	case NV_ARRAY:
	case NV_TUPLE: {
		size_t n = a->u.list.n < b->u.list.n ? a->u.list.n : b->u.list.n;
		for (size_t i = 0; i < n; i++) {
			int c = cmp_values(ev, &a->u.list.items[i], &b->u.list.items[i]);
			if (c)
				return c;
		}
		return a->u.list.n < b->u.list.n ? -1 : a->u.list.n > b->u.list.n;
	}
	default:
		nnef_fail(ev, "cannot compare %s values", kind_name(a->k));
	}
}

/* The operator forms on tensors call the standard fragments. */
static const char *tensor_op_name(int op)
{
	switch (op) {
	case '+': return "add";
	case '-': return "sub";
	case '*': return "mul";
	case '/': return "div";
	case '^': return "pow";
	case '<': return "lt";
	case '>': return "gt";
	case NNEF_T_LE: return "le";
	case NNEF_T_GE: return "ge";
	case NNEF_T_EQ: return "eq";
	case NNEF_T_NE: return "ne";
	case NNEF_T_AND: return "and";
	case NNEF_T_OR: return "or";
	default: return NULL;
	}
}

static const char *op_text(int op)
{
	switch (op) {
	case NNEF_T_LE: return "<=";
	case NNEF_T_GE: return ">=";
	case NNEF_T_EQ: return "==";
	case NNEF_T_NE: return "!=";
	case NNEF_T_AND: return "&&";
	case NNEF_T_OR: return "||";
	case NNEF_T_IN: return "in";
	default: {
		static const char ops[] = "+-*/^<>!";
		const char *p = strchr(ops, op);
		static const char *const txt[] = { "+", "-", "*", "/", "^", "<", ">", "!" };
		return p ? txt[p - ops] : "?";
	}
	}
}

static struct nnef_value repeat(struct nnef_eval *ev, const struct nnef_value *list, int64_t times)
{
	if (times < 0)
		nnef_fail(ev, "cannot repeat an array %lld times", (long long)times);
	if (list->u.list.n && (uint64_t)times > NNEF_MAX_ARRAY / list->u.list.n)
		nnef_fail(ev, "an array of %zu items repeated %lld times is more than the %zu items "
			  "allowed", list->u.list.n, (long long)times, NNEF_MAX_ARRAY);
	struct nnef_value r = mk_list(ev, NV_ARRAY, list->u.list.n * (size_t)times);
	for (size_t i = 0; i < r.u.list.n; i++)
		r.u.list.items[i] = list->u.list.items[i % list->u.list.n];
	return r;
}

static int64_t ipow(struct nnef_eval *ev, int64_t b, int64_t e)
{
	if (e < 0)
		nnef_fail(ev, "integer power with a negative exponent %lld", (long long)e);
	int64_t r = 1;
	while (e--) {
		if (__builtin_mul_overflow(r, b, &r))
			nnef_fail(ev, "integer power overflows");
		if (r == 0 || r == 1)
			break;
	}
	return r;
}

static struct nnef_value binary(struct nnef_eval *ev, int op, struct nnef_value a,
				struct nnef_value b, int line)
{
	if (op == NNEF_T_IN) {
		if (b.k != NV_ARRAY)
			nnef_fail(ev, "the right side of 'in' must be an array");
		for (size_t i = 0; i < b.u.list.n; i++)
			if (b.u.list.items[i].k == a.k && cmp_values(ev, &a, &b.u.list.items[i]) == 0)
				return mk_logical(true);
		return mk_logical(false);
	}
	if (is_tensorish(&a) || is_tensorish(&b)) {
		const char *name = tensor_op_name(op);
		if (!name)
			nnef_fail(ev, "operator '%s' does not apply to tensors", op_text(op));
		struct nnef_value args[2] = { a, b };
		return nnef_call(ev, name, args, 2, line);
	}
	if (a.k == NV_ARRAY && b.k == NV_ARRAY && op == '+') {
		struct nnef_value r = mk_list(ev, NV_ARRAY, a.u.list.n + b.u.list.n);
		memcpy(r.u.list.items, a.u.list.items, a.u.list.n * sizeof(struct nnef_value));
		memcpy(r.u.list.items + a.u.list.n, b.u.list.items,
		       b.u.list.n * sizeof(struct nnef_value));
		return r;
	}
	if (a.k == NV_ARRAY && b.k == NV_INTEGER && op == '*')
		return repeat(ev, &a, b.u.i);
	if (a.k == NV_INTEGER && b.k == NV_ARRAY && op == '*')
		return repeat(ev, &b, a.u.i);
	if (a.k == NV_STRING && b.k == NV_STRING && op == '+') {
		size_t la = strlen(a.u.s), lb = strlen(b.u.s);
		if (la + lb > NNEF_MAX_ARRAY)
			nnef_fail(ev, "a string longer than %zu characters", NNEF_MAX_ARRAY);
		char *s = nnef_alloc(&ev->arena, la + lb + 1);
		memcpy(s, a.u.s, la);
		memcpy(s + la, b.u.s, lb + 1);
		return (struct nnef_value){ .k = NV_STRING, .u.s = s };
	}
	if (a.k == NV_STRING && b.k == NV_INTEGER && op == '*') {
		size_t la = strlen(a.u.s);
		if (b.u.i < 0 || (la && (uint64_t)b.u.i > NNEF_MAX_ARRAY / la))
			nnef_fail(ev, "cannot repeat a string %lld times", (long long)b.u.i);
		char *s = nnef_alloc(&ev->arena, la * (size_t)b.u.i + 1);
		for (int64_t i = 0; i < b.u.i; i++)
			memcpy(s + la * (size_t)i, a.u.s, la);
		return (struct nnef_value){ .k = NV_STRING, .u.s = s };
	}
	switch (op) {
	case '<': return mk_logical(cmp_values(ev, &a, &b) < 0);
	case '>': return mk_logical(cmp_values(ev, &a, &b) > 0);
	case NNEF_T_LE: return mk_logical(cmp_values(ev, &a, &b) <= 0);
	case NNEF_T_GE: return mk_logical(cmp_values(ev, &a, &b) >= 0);
	case NNEF_T_EQ: return mk_logical(a.k == b.k || (a.k <= NV_SCALAR && b.k <= NV_SCALAR)
					    ? cmp_values(ev, &a, &b) == 0 : false);
	case NNEF_T_NE: return mk_logical(a.k == b.k || (a.k <= NV_SCALAR && b.k <= NV_SCALAR)
					    ? cmp_values(ev, &a, &b) != 0 : true);
	case NNEF_T_AND: return mk_logical(want_logical(ev, &a, "'&&' operand") &&
				    want_logical(ev, &b, "'&&' operand"));
	case NNEF_T_OR: return mk_logical(want_logical(ev, &a, "'||' operand") ||
				    want_logical(ev, &b, "'||' operand"));
	default: break;
	}
	if (a.k == NV_INTEGER && b.k == NV_INTEGER) {
		int64_t x = a.u.i, y = b.u.i, r = 0;
		bool ovf = false;
		switch (op) {
		case '+': ovf = __builtin_add_overflow(x, y, &r); break;
		case '-': ovf = __builtin_sub_overflow(x, y, &r); break;
		case '*': ovf = __builtin_mul_overflow(x, y, &r); break;
		case '/':
			if (y == 0)
				nnef_fail(ev, "integer division by zero");
			if (x == INT64_MIN && y == -1)
				ovf = true;
			else
				r = x / y;
			break;
		case '^': r = ipow(ev, x, y); break;
		default: nnef_fail(ev, "operator '%s' does not apply to integers", op_text(op));
		}
		if (ovf)
			nnef_fail(ev, "integer arithmetic overflows");
		return mk_int(r);
	}
	if ((a.k == NV_INTEGER || a.k == NV_SCALAR) && (b.k == NV_INTEGER || b.k == NV_SCALAR)) {
		double x = a.k == NV_INTEGER ? (double)a.u.i : a.u.f;
		double y = b.k == NV_INTEGER ? (double)b.u.i : b.u.f;
		switch (op) {
		case '+': return mk_scalar(x + y);
		case '-': return mk_scalar(x - y);
		case '*': return mk_scalar(x * y);
		case '/': return mk_scalar(x / y);
		case '^': return mk_scalar(pow(x, y));
		default: break;
		}
	}
	nnef_fail(ev, "operator '%s' does not apply to a %s and a %s", op_text(op), kind_name(a.k),
		  kind_name(b.k));
}

static struct nnef_value builtin(struct nnef_eval *ev, const char *name, struct nnef_value x)
{
	if (strcmp(name, "shape_of") == 0) {
		if (x.k != NV_TENSOR)
			return mk_list(ev, NV_ARRAY, 0);
		struct nnef_value r = mk_list(ev, NV_ARRAY, x.u.t->desc.rank);
		for (size_t i = 0; i < r.u.list.n; i++)
			r.u.list.items[i] = mk_int(x.u.t->desc.shape[i]);
		return r;
	}
	if (strcmp(name, "length_of") == 0 || strcmp(name, "range_of") == 0) {
		size_t n;
		if (x.k == NV_ARRAY)
			n = x.u.list.n;
		else if (x.k == NV_STRING)
			n = strlen(x.u.s);
		else
			nnef_fail(ev, "%s needs an array or a string, not a %s", name, kind_name(x.k));
		if (name[0] == 'l')
			return mk_int((int64_t)n);
		struct nnef_value r = mk_list(ev, NV_ARRAY, n);
		for (size_t i = 0; i < n; i++)
			r.u.list.items[i] = mk_int((int64_t)i);
		return r;
	}
	if (strcmp(name, "integer") == 0) {
		switch (x.k) {
		case NV_INTEGER: return x;
		case NV_LOGICAL: return mk_int(x.u.b);
		case NV_SCALAR:
			if (!(fabs(x.u.f) < 9e15))
				nnef_fail(ev, "integer(%g) is out of range", x.u.f);
			return mk_int((int64_t)floor(x.u.f));
		case NV_STRING: {
			char *end;
			long long v = strtoll(x.u.s, &end, 10);
			if (!*x.u.s || *end)
				nnef_fail(ev, "integer('%s'): not an integer literal", x.u.s);
			return mk_int(v);
		}
		default: break;
		}
	} else if (strcmp(name, "scalar") == 0) {
		switch (x.k) {
		case NV_SCALAR: return x;
		case NV_INTEGER: return mk_scalar((double)x.u.i);
		case NV_LOGICAL: return mk_scalar(x.u.b ? 1.0 : 0.0);
		case NV_STRING: {
			char *end;
			double v = strtod(x.u.s, &end);
			if (!*x.u.s || *end)
				nnef_fail(ev, "scalar('%s'): not a numeric literal", x.u.s);
			return mk_scalar(v);
		}
		default: break;
		}
	} else if (strcmp(name, "logical") == 0) {
		switch (x.k) {
		case NV_LOGICAL: return x;
		case NV_INTEGER: return mk_logical(x.u.i != 0);
		case NV_SCALAR: return mk_logical(x.u.f != 0.0);
		case NV_STRING: return mk_logical(x.u.s[0] != 0);
		default: break;
		}
	} else if (strcmp(name, "string") == 0) {
		char buf[64];
		switch (x.k) {
		case NV_STRING: return x;
		case NV_INTEGER: snprintf(buf, sizeof(buf), "%lld", (long long)x.u.i); break;
		case NV_SCALAR: snprintf(buf, sizeof(buf), "%.9g", x.u.f); break;
		case NV_LOGICAL: snprintf(buf, sizeof(buf), "%s", x.u.b ? "true" : "false"); break;
		default: nnef_fail(ev, "string() of a %s", kind_name(x.k));
		}
		return (struct nnef_value){ .k = NV_STRING,
					    .u.s = nnef_strndup(&ev->arena, buf, strlen(buf)) };
	}
	nnef_fail(ev, "%s() of a %s", name, kind_name(x.k));
}

static struct nnef_value subscript(struct nnef_eval *ev, struct nnef_scope *s,
				   const struct nnef_expr *e)
{
	struct nnef_value base = eval(ev, s, e->a);
	size_t n;
	if (base.k == NV_ARRAY || base.k == NV_TUPLE)
		n = base.u.list.n;
	else if (base.k == NV_STRING)
		n = strlen(base.u.s);
	else if (base.k == NV_TENSOR)
		nnef_fail(ev, "tensors cannot be subscripted at load time");
	else
		nnef_fail(ev, "a %s cannot be subscripted", kind_name(base.k));
	if (!e->range) {
		struct nnef_value iv = eval(ev, s, e->b);
		int64_t i = want_int(ev, &iv, "a subscript");
		if (i < 0 || (uint64_t)i >= n)
			nnef_fail(ev, "index %lld is out of range [0, %zu)", (long long)i, n);
		if (base.k == NV_STRING)
			return (struct nnef_value){ .k = NV_STRING,
						    .u.s = nnef_strndup(&ev->arena, base.u.s + i, 1) };
		return base.u.list.items[i];
	}
	if (base.k == NV_TUPLE)
		nnef_fail(ev, "a tuple cannot be sliced");
	int64_t lo = 0, hi = (int64_t)n;
	if (e->b) {
		struct nnef_value v = eval(ev, s, e->b);
		lo = want_int(ev, &v, "a range's begin");
	}
	if (e->c) {
		struct nnef_value v = eval(ev, s, e->c);
		hi = want_int(ev, &v, "a range's end");
	}
	if (lo < 0)
		lo = 0;
	if (hi > (int64_t)n)
		hi = (int64_t)n;
	if (hi < lo)
		hi = lo;
	if (base.k == NV_STRING)
		return (struct nnef_value){ .k = NV_STRING,
					    .u.s = nnef_strndup(&ev->arena, base.u.s + lo,
								(size_t)(hi - lo)) };
	struct nnef_value r = mk_list(ev, NV_ARRAY, (size_t)(hi - lo));
	memcpy(r.u.list.items, base.u.list.items + lo, r.u.list.n * sizeof(struct nnef_value));
	return r;
}

static struct nnef_value comprehension(struct nnef_eval *ev, struct nnef_scope *s,
				       const struct nnef_expr *e)
{
	struct nnef_value *iters = nnef_alloc(&ev->arena, e->n * sizeof(*iters));
	size_t n = 0;
	for (size_t i = 0; i < e->n; i++) {
		iters[i] = eval(ev, s, e->items[i]);
		if (iters[i].k != NV_ARRAY)
			nnef_fail(ev, "a comprehension iterates over arrays, not a %s",
				  kind_name(iters[i].k));
		if (i && iters[i].u.list.n != n)
			nnef_fail(ev, "a comprehension's arrays have different lengths (%zu and %zu)",
				  n, iters[i].u.list.n);
		n = iters[i].u.list.n;
	}
	struct nnef_value r = mk_list(ev, NV_ARRAY, n);
	size_t k = 0;
	for (size_t j = 0; j < n; j++) {
		struct nnef_scope *loop = new_scope(ev, 4, s);
		for (size_t i = 0; i < e->n; i++)
			bind(ev, loop, e->names[i], iters[i].u.list.items[j]);
		if (e->c) {
			struct nnef_value c = eval(ev, loop, e->c);
			if (!want_logical(ev, &c, "a comprehension's condition"))
				continue;
		}
		r.u.list.items[k++] = eval(ev, loop, e->a);
	}
	r.u.list.n = k;
	return r;
}

/* Converts an argument to a parameter's type; tensor parameters keep literals as they are
 * (the operation makes constants of them in the data type it needs). */
static struct nnef_value convert(struct nnef_eval *ev, struct nnef_value v,
				 const struct nnef_type *t, const char *what)
{
	switch (t->k) {
	case NT_TENSOR:
		if (v.k == NV_TENSOR || v.k == NV_INTEGER || v.k == NV_SCALAR || v.k == NV_LOGICAL)
			return v;
		if (v.k == NV_ARRAY && v.u.list.n && v.u.list.items[0].k != NV_TENSOR) {
			struct nnef_value t = { .k = NV_TENSOR };
			t.u.t = nnef_as_tensor(ev, &v, WEBNN_FLOAT32);
			return t;
		}
		break;
	case NT_INTEGER:
		if (v.k == NV_INTEGER)
			return v;
		break;
	case NT_SCALAR:
		if (v.k == NV_SCALAR)
			return v;
		if (v.k == NV_INTEGER)
			return mk_scalar((double)v.u.i);
		break;
	case NT_LOGICAL:
		if (v.k == NV_LOGICAL)
			return v;
		break;
	case NT_STRING:
		if (v.k == NV_STRING)
			return v;
		break;
	case NT_GENERIC:
		return v;
	case NT_ARRAY:
		if (v.k == NV_ARRAY) {
			struct nnef_value r = mk_list(ev, NV_ARRAY, v.u.list.n);
			for (size_t i = 0; i < v.u.list.n; i++)
				r.u.list.items[i] = convert(ev, v.u.list.items[i], t->item, what);
			return r;
		}
		break;
	case NT_TUPLE:
		if (v.k == NV_TUPLE && v.u.list.n == t->n) {
			struct nnef_value r = mk_list(ev, NV_TUPLE, v.u.list.n);
			for (size_t i = 0; i < v.u.list.n; i++)
				r.u.list.items[i] = convert(ev, v.u.list.items[i], t->items[i], what);
			return r;
		}
		break;
	}
	static const char *const tn[] = { "tensor", "integer", "scalar", "logical",
					  "string", "?",       "array",  "tuple" };
	const char *want = (unsigned)t->k < sizeof(tn) / sizeof(tn[0]) ? tn[t->k] : "?";
	const char *got = kind_name(v.k);
	nnef_fail(ev, "%s must be a%s %s, not a%s %s", what, strchr("aeiou", want[0]) ? "n" : "",
		  want, strchr("aeiou", got[0]) ? "n" : "", got);
}

static struct nnef_value literal_default(struct nnef_eval *ev, const struct nnef_param *p)
{
	struct nnef_scope *empty = new_scope(ev, 1, NULL);
	return eval(ev, empty, p->def);
}

/* Binds a call's arguments to f's parameters, in parameter order. */
static struct nnef_value *bind_args(struct nnef_eval *ev, const struct nnef_fragment *f,
				    struct nnef_value *vals, const char **names, size_t n)
{
	struct nnef_value *args = nnef_alloc(&ev->arena, (f->n_params + 1) * sizeof(*args));
	bool *set = nnef_alloc(&ev->arena, f->n_params + 1);
	for (size_t i = 0; i < n; i++) {
		size_t j = i;
		if (!(names && names[i]) && i >= f->n_params)
			nnef_fail(ev, "'%s' takes %zu arguments, %zu given", f->name, f->n_params, n);
		if (names && names[i]) {
			for (j = 0; j < f->n_params; j++)
				if (strcmp(f->params[j].name, names[i]) == 0)
					break;
			if (j == f->n_params)
				nnef_fail(ev, "'%s' has no parameter '%s'", f->name, names[i]);
			if (set[j])
				nnef_fail(ev, "argument '%s' of '%s' given twice", names[i], f->name);
		}
		char what[160];
		snprintf(what, sizeof(what), "argument '%s' of '%s'", f->params[j].name, f->name);
		args[j] = convert(ev, vals[i], f->params[j].type, what);
		set[j] = true;
	}
	for (size_t j = 0; j < f->n_params; j++)
		if (!set[j]) {
			if (!f->params[j].def)
				nnef_fail(ev, "'%s' needs argument '%s'", f->name, f->params[j].name);
			char what[160];
			snprintf(what, sizeof(what), "default of '%s' of '%s'", f->params[j].name,
				 f->name);
			args[j] = convert(ev, literal_default(ev, &f->params[j]), f->params[j].type,
					  what);
		}
	return args;
}

static struct nnef_value nnef_call(struct nnef_eval *ev, const char *name, struct nnef_value *args,
				   size_t n, int line)
{
	struct nnef_fragment *f = nnef_find_fragment(ev, name);
	if (!f)
		nnef_fail(ev, "unknown operation '%s'", name);
	struct nnef_value *bound = bind_args(ev, f, args, NULL, n);
	return nnef_invoke(ev, f, NULL, bound, line);
}

static void assign(struct nnef_eval *ev, struct nnef_scope *s, const struct nnef_expr *lhs,
		   struct nnef_value v)
{
	if (lhs->k == NX_ID) {
		bind(ev, s, lhs->str, v);
		return;
	}
	enum nnef_value_kind want = lhs->k == NX_ARRAY ? NV_ARRAY : NV_TUPLE;
	if (v.k != want && !(v.k == NV_ARRAY && want == NV_TUPLE) &&
	    !(v.k == NV_TUPLE && want == NV_ARRAY))
		nnef_fail(ev, "cannot unpack a %s into %zu names", kind_name(v.k), lhs->n);
	if (v.u.list.n != lhs->n)
		nnef_fail(ev, "cannot unpack %zu values into %zu names", v.u.list.n, lhs->n);
	for (size_t i = 0; i < lhs->n; i++)
		assign(ev, s, lhs->items[i], v.u.list.items[i]);
}

static struct nnef_value eval_call(struct nnef_eval *ev, struct nnef_scope *s,
				   const struct nnef_expr *e)
{
	struct nnef_fragment *f = nnef_find_fragment(ev, e->str);
	if (!f)
		nnef_fail(ev, "unknown operation '%s'", e->str);
	if (e->generic && !f->generic)
		nnef_fail(ev, "'%s' is not generic", f->name);
	struct nnef_value *vals = nnef_alloc(&ev->arena, (e->n + 1) * sizeof(*vals));
	for (size_t i = 0; i < e->n; i++)
		vals[i] = eval(ev, s, e->items[i]);
	struct nnef_value *args = bind_args(ev, f, vals, e->names, e->n);
	return nnef_invoke(ev, f, e->generic ? e->generic : f->generic_default, args, e->line);
}

static struct nnef_value eval_expr(struct nnef_eval *ev, struct nnef_scope *s,
				    const struct nnef_expr *e);

/* Bounds the stack and the time a hostile document can take. */
static struct nnef_value eval(struct nnef_eval *ev, struct nnef_scope *s, const struct nnef_expr *e)
{
	if (++ev->nest > NNEF_MAX_EVAL_NESTING)
		nnef_fail(ev, "expressions nested deeper than %d", NNEF_MAX_EVAL_NESTING);
	if (++ev->steps > ev->max_steps)
		nnef_fail(ev, "evaluating the graph takes more than %llu steps",
			  (unsigned long long)ev->max_steps);
	struct nnef_value v = eval_expr(ev, s, e);
	ev->nest--;
	return v;
}

static struct nnef_value eval_expr(struct nnef_eval *ev, struct nnef_scope *s,
				   const struct nnef_expr *e)
{
	switch (e->k) {
	case NX_NUMBER:
		return e->is_int ? mk_int((int64_t)e->num) : mk_scalar(e->num);
	case NX_STRING:
		return (struct nnef_value){ .k = NV_STRING, .u.s = e->str };
	case NX_LOGICAL:
		return mk_logical(e->num != 0);
	case NX_ID: {
		struct nnef_value *v = lookup(s, e->str);
		if (v)
			return *v;
		if (s == ev->graph_scope && ev->opt)
			for (size_t i = 0; i < ev->opt->n_dims; i++)
				if (ev->opt->dims[i].name &&
				    strcmp(ev->opt->dims[i].name, e->str) == 0) {
					ev->dim_used[i] = true;
					return mk_int(ev->opt->dims[i].value);
				}
		nnef_fail(ev, "undefined identifier '%s'", e->str);
	}
	case NX_ARRAY:
	case NX_TUPLE: {
		struct nnef_value r = mk_list(ev, e->k == NX_ARRAY ? NV_ARRAY : NV_TUPLE, e->n);
		for (size_t i = 0; i < e->n; i++)
			r.u.list.items[i] = eval(ev, s, e->items[i]);
		return r;
	}
	case NX_UNARY: {
		struct nnef_value x = eval(ev, s, e->a);
		if (x.k == NV_TENSOR) {
			if (e->op == '+')
				return x;
			return nnef_call(ev, e->op == '-' ? "neg" : "not", &x, 1, e->line);
		}
		if (e->op == '!')
			return mk_logical(!want_logical(ev, &x, "the operand of '!'"));
		if (x.k == NV_INTEGER) {
			if (e->op == '-' && x.u.i == INT64_MIN)
				nnef_fail(ev, "integer negation overflows");
			return mk_int(e->op == '-' ? -x.u.i : x.u.i);
		}
		if (x.k == NV_SCALAR)
			return mk_scalar(e->op == '-' ? -x.u.f : x.u.f);
		nnef_fail(ev, "unary '%c' of a %s", e->op, kind_name(x.k));
	}
	case NX_BINARY: {
		struct nnef_value a = eval(ev, s, e->a);
		/* && and || short-circuit like the conditional expression */
		if ((e->op == NNEF_T_AND || e->op == NNEF_T_OR) && a.k == NV_LOGICAL)
			if (a.u.b == (e->op == NNEF_T_OR))
				return a;
		struct nnef_value b = eval(ev, s, e->b);
		return binary(ev, e->op, a, b, e->line);
	}
	case NX_SELECT: {
		struct nnef_value c = eval(ev, s, e->c);
		return want_logical(ev, &c, "a condition") ? eval(ev, s, e->a) : eval(ev, s, e->b);
	}
	case NX_COMPREHENSION:
		return comprehension(ev, s, e);
	case NX_SUBSCRIPT:
		return subscript(ev, s, e);
	case NX_BUILTIN:
		return builtin(ev, e->str, eval(ev, s, e->a));
	case NX_CALL:
		return eval_call(ev, s, e);
	}
	nnef_fail(ev, "bad expression");
}

/* ---- invocation */
static struct nnef_tensor *dry_tensor(struct nnef_eval *ev, const struct nnef_value *args,
				      const struct nnef_fragment *f)
{
	struct nnef_tensor *t = nnef_alloc(&ev->arena, sizeof(*t));
	t->desc.data_type = WEBNN_FLOAT32;
	for (size_t i = 0; i < f->n_params; i++)
		if (args[i].k == NV_TENSOR) {
			t->desc = args[i].u.t->desc;
			break;
		}
	return t;
}

/* Without a builder (the fuzzer) operations make tensors of a plausible shape. */
static void dry_primitive(struct nnef_eval *ev, const struct nnef_fragment *f,
			  struct nnef_value *args, struct nnef_value *results)
{
	for (size_t i = 0; i < f->n_results; i++) {
		const struct nnef_type *t = f->results[i].type;
		if (t->k == NT_ARRAY) {
			results[i] = mk_list(ev, NV_ARRAY, 2);
			results[i].u.list.items[0].k = NV_TENSOR;
			results[i].u.list.items[0].u.t = dry_tensor(ev, args, f);
			results[i].u.list.items[1] = results[i].u.list.items[0];
		} else {
			results[i].k = NV_TENSOR;
			results[i].u.t = dry_tensor(ev, args, f);
		}
	}
	if (f->n_params && strcmp(f->params[0].name, "shape") == 0 && args[0].k == NV_ARRAY) {
		struct nnef_tensor *t = results[0].u.t;
		if (args[0].u.list.n > WEBNN_MAX_RANK)
			nnef_fail(ev, "rank %zu is more than %d", args[0].u.list.n, WEBNN_MAX_RANK);
		t->desc.rank = (uint32_t)args[0].u.list.n;
		for (uint32_t i = 0; i < t->desc.rank; i++) {
			int64_t d = want_int(ev, &args[0].u.list.items[i], "a dimension");
			if (d < 0 || d > UINT32_MAX)
				nnef_fail(ev, "dimension %lld is out of range", (long long)d);
			t->desc.shape[i] = (uint32_t)d;
		}
		if (strcmp(f->name, "external") == 0) {
			if (!ev->pending_name || ev->depth != 1)
				nnef_fail(ev, "external must be assigned directly to a graph "
					  "identifier");
			t->input_name = ev->pending_name;
		}
	}
}

static struct nnef_value nnef_invoke(struct nnef_eval *ev, const struct nnef_fragment *f,
				     const struct nnef_type *generic, struct nnef_value *args, int line)
{
	if (ev->depth >= NNEF_MAX_CALL_DEPTH)
		nnef_fail(ev, "operations nested deeper than %d (unbounded recursion?)",
			  NNEF_MAX_CALL_DEPTH);
	(void)line;
	ev->ops[ev->depth++] = f->name;
	struct nnef_value *results = nnef_alloc(&ev->arena, (f->n_results + 1) * sizeof(*results));
	bool done = false;
	if (!ev->b) {
		if (!f->has_body) {
			dry_primitive(ev, f, args, results);
			done = true;
		}
	} else {
		done = nnef_primitive(ev, f, generic, args, results);
	}
	if (!done) {
		if (!f->has_body)
			nnef_fail(ev, "no WebNN operation or composition computes it");
		struct nnef_scope *s = new_scope(ev, 16, NULL);
		for (size_t i = 0; i < f->n_params; i++)
			bind(ev, s, f->params[i].name, args[i]);
		int saved_line = ev->line;
		bool user = strcmp(f->file, ev->file) == 0;
		const char *saved_pending = ev->pending_name;
		ev->pending_name = NULL;
		for (size_t i = 0; i < f->n_body; i++) {
			if (user)
				ev->line = f->body[i].line;
			for (size_t j = 0; j < f->n_params; j++)
				if (f->body[i].lhs->k == NX_ID &&
				    strcmp(f->body[i].lhs->str, f->params[j].name) == 0)
					nnef_fail(ev, "parameter '%s' is assigned in the body",
						  f->params[j].name);
			assign(ev, s, f->body[i].lhs, eval(ev, s, f->body[i].rhs));
		}
		ev->pending_name = saved_pending;
		ev->line = saved_line;
		for (size_t i = 0; i < f->n_results; i++) {
			struct nnef_value *v = lookup(s, f->results[i].name);
			if (!v)
				nnef_fail(ev, "result '%s' is never assigned", f->results[i].name);
			char what[160];
			snprintf(what, sizeof(what), "result '%s' of '%s'", f->results[i].name,
				 f->name);
			results[i] = convert(ev, *v, f->results[i].type, what);
			if (f->results[i].type->k == NT_TENSOR && results[i].k != NV_TENSOR)
				results[i].u.t = nnef_as_tensor(ev, &results[i], WEBNN_FLOAT32),
				results[i].k = NV_TENSOR;
		}
	}
	ev->depth--;
	if (f->n_results == 1)
		return results[0];
	struct nnef_value r = { .k = NV_TUPLE };
	r.u.list.items = results;
	r.u.list.n = f->n_results;
	return r;
}

/* ---- the graph */
static size_t count_variables(const struct nnef_graph *g)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n_body; i++)
		if (g->body[i].rhs->k == NX_CALL && strcmp(g->body[i].rhs->str, "variable") == 0)
			n++;
	return n;
}

static bool all_tensors(const struct nnef_value *v)
{
	if (v->k == NV_TENSOR)
		return true;
	if (v->k != NV_ARRAY && v->k != NV_TUPLE)
		return false;
	for (size_t i = 0; i < v->u.list.n; i++)
		if (!all_tensors(&v->u.list.items[i]))
			return false;
	return true;
}

bool nnef_graph_lookup(struct nnef_eval *ev, const char *name, struct nnef_value *out)
{
	struct nnef_value *v = lookup(ev->graph_scope, name);
	if (v)
		*out = *v;
	return v != NULL;
}

/* graph.quant's entry for a tensor: the values are those of its quantization fragment (the
 * standard library's linear_quantize, zero_point_linear_quantize, ...) applied to it. */
static struct nnef_value quantize(struct nnef_eval *ev, const char *name, struct nnef_value v)
{
	const struct nnef_quant *q = NULL;
	for (size_t i = 0; i < ev->n_quant && !q; i++)
		if (strcmp(ev->quant[i].tensor, name) == 0)
			q = &ev->quant[i];
	if (!q)
		return v;
	const char *saved_file = ev->file;
	int saved_line = ev->line;
	ev->file = "graph.quant";
	ev->line = q->line;
	struct nnef_fragment *f = nnef_find_fragment(ev, q->call->str);
	if (!f)
		nnef_fail(ev, "unknown quantization operation '%s'", q->call->str);
	size_t n = q->call->n + 1;
	struct nnef_value *vals = nnef_alloc(&ev->arena, n * sizeof(*vals));
	const char **names = nnef_alloc(&ev->arena, n * sizeof(*names));
	vals[0] = v;
	struct nnef_scope *empty = new_scope(ev, 1, NULL);
	for (size_t i = 0; i < q->call->n; i++) {
		if (!q->call->names[i])
			nnef_fail(ev, "the arguments of '%s' must be named", q->call->str);
		names[i + 1] = q->call->names[i];
		vals[i + 1] = eval(ev, empty, q->call->items[i]);
	}
	struct nnef_value *args = bind_args(ev, f, vals, names, n);
	struct nnef_value r = nnef_invoke(ev, f, f->generic_default, args, q->line);
	if (r.k != NV_TENSOR)
		nnef_fail(ev, "'%s' does not give one tensor", q->call->str);
	r.u.t->input_name = v.u.t->input_name;
	ev->file = saved_file;
	ev->line = saved_line;
	return r;
}

void nnef_run_graph(struct nnef_eval *ev, const struct nnef_document *doc)
{
	const struct nnef_graph *g = doc->graph;
	ev->graph_scope = new_scope(ev, 4096, NULL);
	ev->n_variables = count_variables(g);
	size_t n_dims = ev->opt ? ev->opt->n_dims : 0;
	ev->dim_used = nnef_alloc(&ev->arena, n_dims ? n_dims : 1);
	memset(ev->dim_used, 0, n_dims ? n_dims : 1);
	for (size_t i = 0; i < g->n_body; i++) {
		const struct nnef_assign *as = &g->body[i];
		ev->line = as->line;
		ev->pending_name = as->lhs->k == NX_ID ? as->lhs->str : NULL;
		struct nnef_value v = eval(ev, ev->graph_scope, as->rhs);
		ev->pending_name = NULL;
		if (as->lhs->k == NX_ID && v.k != NV_TENSOR) {
			if (v.k == NV_INTEGER || v.k == NV_SCALAR || v.k == NV_LOGICAL ||
			    (v.k == NV_ARRAY && v.u.list.n && v.u.list.items[0].k != NV_TENSOR))
				v.u.t = nnef_as_tensor(ev, &v, WEBNN_FLOAT32), v.k = NV_TENSOR;
			else
				nnef_fail(ev, "'%s' must be a tensor in the graph, not a %s",
					  as->lhs->str, kind_name(v.k));
		}
		if (!all_tensors(&v))
			nnef_fail(ev, "the graph's identifiers must be tensors");
		if (as->lhs->k == NX_ID && !v.u.t->dequantized)
			v = quantize(ev, as->lhs->str, v);
		assign(ev, ev->graph_scope, as->lhs, v);
	}
	ev->line = g->line;
	ev->depth = 0;
	/* a binding the graph never looked up is a mistake the caller should hear of */
	for (size_t i = 0; i < n_dims; i++)
		if (!ev->dim_used[i])
			nnef_fail(ev, "dimension binding '%s' names no identifier the graph leaves "
				  "undefined", ev->opt->dims[i].name ? ev->opt->dims[i].name : "");
}
