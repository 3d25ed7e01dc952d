/* The NNEF 1.0 lexer and parser (flat and compositional syntax, and graph.quant) into a syntax tree in an arena. */
#include "importers/nnef/nnef.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena */
struct nnef_block {
	struct nnef_block *next;
	size_t size, used;
	max_align_t data[];
};

void *nnef_alloc(struct nnef_arena *a, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	struct nnef_block *b = a->blocks;
	if (!b || b->size - b->used < n) {
		size_t size = n > ((size_t)1 << 16) ? n : ((size_t)1 << 16);
		if (n > a->limit || a->used + size > a->limit || !(b = malloc(sizeof(*b) + size)))
			longjmp(*a->oom, 1);
		b->size = size;
		b->used = 0;
		b->next = a->blocks;
		a->blocks = b;
		a->used += size;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

char *nnef_strndup(struct nnef_arena *a, const char *s, size_t n)
{
	char *p = nnef_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

void nnef_arena_free(struct nnef_arena *a)
{
	struct nnef_block *b = a->blocks;
	while (b) {
		struct nnef_block *next = b->next;
		free(b);
		b = next;
	}
	a->blocks = NULL;
	a->used = 0;
}

/* ---- lexer */

struct tok {
	int k;
	const char *s;
	size_t n;
	int line;
	double num;
	bool is_int;
};

struct parser {
	struct nnef_arena *a;
	const char *file, *text, *p;
	int line;
	struct tok t;
	int depth;
	jmp_buf fail;
	char *error;
	size_t len;
};

static _Noreturn void perr(struct parser *ps, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static _Noreturn void perr(struct parser *ps, int line, const char *fmt, ...)
{
	if (ps->error && ps->len) {
		int n = snprintf(ps->error, ps->len, "nnef: %s:%d: ", ps->file, line);
		if (n >= 0 && (size_t)n < ps->len) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(ps->error + n, ps->len - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	longjmp(ps->fail, 1);
}

static bool is_id0(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void next(struct parser *ps)
{
	const char *p = ps->p;
	for (;;) {
		if (*p == '\n') {
			ps->line++;
			p++;
		} else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f') {
			p++;
		} else if (*p == '#') {
			while (*p && *p != '\n')
				p++;
		} else {
			break;
		}
	}
	struct tok *t = &ps->t;
	t->s = p;
	t->line = ps->line;
	t->is_int = false;
	if (!*p) {
		if ((size_t)(p - ps->text) != strlen(ps->text))
			perr(ps, ps->line, "NUL byte in the text");
		t->k = NNEF_T_EOF;
		t->n = 0;
	} else if (is_id0(*p)) {
		while (is_id0(*p) || is_digit(*p))
			p++;
		t->k = NNEF_T_ID;
	} else if (is_digit(*p)) {
		bool frac = false;
		while (is_digit(*p))
			p++;
		if (*p == '.' && is_digit(p[1])) {
			frac = true;
			p++;
			while (is_digit(*p))
				p++;
		}
		if (*p == 'e' || *p == 'E') {
			const char *q = p + 1;
			if (*q == '+' || *q == '-')
				q++;
			if (is_digit(*q)) {
				frac = true;
				p = q;
				while (is_digit(*p))
					p++;
			}
		}
		t->k = NNEF_T_NUM;
		t->is_int = !frac;
		char buf[64];
		size_t n = (size_t)(p - t->s);
		if (n >= sizeof(buf))
			perr(ps, t->line, "numeric literal '%.20s...' is too long", t->s);
		memcpy(buf, t->s, n);
		buf[n] = 0;
		errno = 0;
		if (frac) {
			t->num = strtod(buf, NULL);
			if (!isfinite(t->num))
				perr(ps, t->line, "numeric literal '%s' is out of range", buf);
		} else {
			long long v = strtoll(buf, NULL, 10);
			if (errno == ERANGE || v > ((long long)1 << 53))
				perr(ps, t->line, "integer literal '%s' is out of range", buf);
			t->num = (double)v;
		}
	} else if (*p == '\'' || *p == '"') {
		char q = *p++;
		while (*p && *p != q && *p != '\n')
			p++;
		if (*p != q)
			perr(ps, t->line, "unterminated string literal");
		p++;
		t->k = NNEF_T_STR;
	} else {
		static const struct {
			const char s[3];
			int k;
		} two[] = { { "<=", NNEF_T_LE }, { ">=", NNEF_T_GE }, { "==", NNEF_T_EQ }, { "!=", NNEF_T_NE },
			    { "&&", NNEF_T_AND }, { "||", NNEF_T_OR }, { "->", NNEF_T_ARROW } };
		t->k = 0;
		for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++)
			if (p[0] == two[i].s[0] && p[1] == two[i].s[1]) {
				t->k = two[i].k;
				p += 2;
				break;
			}
		if (!t->k) {
			if (!strchr("()[]{}:=,;+-*/^<>!?", *p))
				perr(ps, t->line, "unexpected character '%c'", *p >= 32 && *p < 127 ? *p : '?');
			t->k = (unsigned char)*p++;
		}
	}
	t->n = (size_t)(p - t->s);
	ps->p = p;
}

static bool is_kw(const struct parser *ps, const char *kw)
{
	return ps->t.k == NNEF_T_ID && ps->t.n == strlen(kw) && memcmp(ps->t.s, kw, ps->t.n) == 0;
}

static const char *tokdesc(struct parser *ps)
{
	if (ps->t.k == NNEF_T_EOF)
		return "the end of the file";
	return nnef_strndup(ps->a, ps->t.s, ps->t.n > 40 ? 40 : ps->t.n);
}

static void expect(struct parser *ps, int k, const char *what)
{
	if (ps->t.k != k)
		perr(ps, ps->t.line, "expected %s, found '%s'", what, tokdesc(ps));
	next(ps);
}

static bool accept(struct parser *ps, int k)
{
	if (ps->t.k != k)
		return false;
	next(ps);
	return true;
}

static const char *const keywords[] = { "version", "extension", "fragment", "graph", "tensor",
					"integer", "extent", "scalar", "logical", "string", "true",
					"false", "for", "in", "if", "else", "yield", "length_of",
					"shape_of", "range_of" };

static const char *ident(struct parser *ps, const char *what)
{
	if (ps->t.k != NNEF_T_ID)
		perr(ps, ps->t.line, "expected %s, found '%s'", what, tokdesc(ps));
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (is_kw(ps, keywords[i]))
			perr(ps, ps->t.line, "expected %s, found the keyword '%s'", what, keywords[i]);
	const char *s = nnef_strndup(ps->a, ps->t.s, ps->t.n);
	next(ps);
	return s;
}

/* Growing arrays inside the arena. */
struct vec {
	void **v;
	size_t n, cap;
};

static void push(struct parser *ps, struct vec *v, void *x)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		void **nv = nnef_alloc(ps->a, cap * sizeof(void *));
		if (v->n)
			memcpy(nv, v->v, v->n * sizeof(void *));
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = x;
}

static void enter(struct parser *ps)
{
	if (++ps->depth > NNEF_MAX_NESTING)
		perr(ps, ps->t.line, "nesting deeper than %d levels", NNEF_MAX_NESTING);
}

/* ---- types */
static struct nnef_type *new_type(struct parser *ps, enum nnef_type_kind k)
{
	struct nnef_type *t = nnef_alloc(ps->a, sizeof(*t));
	t->k = k;
	return t;
}

static bool at_type_name(struct parser *ps)
{
	return is_kw(ps, "tensor") || is_kw(ps, "integer") || is_kw(ps, "extent") ||
	       is_kw(ps, "scalar") || is_kw(ps, "logical") || is_kw(ps, "string") || ps->t.k == '?';
}

static struct nnef_type *parse_type(struct parser *ps)
{
	enter(ps);
	struct nnef_type *t;
	if (accept(ps, '(')) {
		struct vec items = { 0 };
		do
			push(ps, &items, parse_type(ps));
		while (accept(ps, ','));
		expect(ps, ')', "')' closing a tuple type");
		t = new_type(ps, NT_TUPLE);
		t->items = (struct nnef_type **)items.v;
		t->n = items.n;
	} else if (is_kw(ps, "tensor")) {
		next(ps);
		t = new_type(ps, NT_TENSOR);
		if (accept(ps, '<')) {
			if (ps->t.k != '>')
				t->item = parse_type(ps);
			if (t->item && t->item->k != NT_SCALAR && t->item->k != NT_INTEGER &&
			    t->item->k != NT_LOGICAL && t->item->k != NT_GENERIC)
				perr(ps, ps->t.line, "a tensor's data type must be scalar, integer, "
				     "logical or ?");
			expect(ps, '>', "'>' closing tensor<");
		}
	} else if (ps->t.k == '?') {
		next(ps);
		t = new_type(ps, NT_GENERIC);
	} else if (is_kw(ps, "integer") || is_kw(ps, "extent")) {
		next(ps);
		t = new_type(ps, NT_INTEGER);
	} else if (is_kw(ps, "scalar")) {
		next(ps);
		t = new_type(ps, NT_SCALAR);
	} else if (is_kw(ps, "logical")) {
		next(ps);
		t = new_type(ps, NT_LOGICAL);
	} else if (is_kw(ps, "string")) {
		next(ps);
		t = new_type(ps, NT_STRING);
	} else {
		perr(ps, ps->t.line, "expected a type, found '%s'", tokdesc(ps));
	}
	while (ps->t.k == '[' && ps->p[0] == ']') {
		next(ps);
		next(ps);
		struct nnef_type *arr = new_type(ps, NT_ARRAY);
		arr->item = t;
		t = arr;
	}
	ps->depth--;
	return t;
}

/* ---- expressions */
static struct nnef_expr *new_expr(struct parser *ps, enum nnef_expr_kind k, int line)
{
	struct nnef_expr *e = nnef_alloc(ps->a, sizeof(*e));
	e->k = k;
	e->line = line;
	return e;
}

static struct nnef_expr *parse_select(struct parser *ps);
static struct nnef_expr *parse_or(struct parser *ps);

/* expr, or a tuple a, b, ... where a bare tuple may stand (assignments, parentheses). */
static struct nnef_expr *parse_tuple_or_expr(struct parser *ps)
{
	int line = ps->t.line;
	struct nnef_expr *e = parse_select(ps);
	if (ps->t.k != ',')
		return e;
	struct vec items = { 0 };
	push(ps, &items, e);
	while (accept(ps, ','))
		push(ps, &items, parse_select(ps));
	struct nnef_expr *t = new_expr(ps, NX_TUPLE, line);
	t->items = (struct nnef_expr **)items.v;
	t->n = items.n;
	return t;
}

static void parse_args(struct parser *ps, struct nnef_expr *call)
{
	struct vec items = { 0 }, names = { 0 };
	bool named = false;
	if (ps->t.k != ')') {
		do {
			const char *name = NULL;
			if (ps->t.k == NNEF_T_ID) {
				struct parser save = *ps;
				next(ps);
				if (ps->t.k == '=') {
					name = nnef_strndup(ps->a, save.t.s, save.t.n);
					next(ps);
				} else {
					ps->p = save.p;
					ps->line = save.line;
					ps->t = save.t;
				}
			}
			if (name)
				named = true;
			else if (named)
				perr(ps, ps->t.line, "positional argument after named arguments in "
				     "'%s'", call->str);
			push(ps, &names, (void *)name);
			push(ps, &items, parse_select(ps));
		} while (accept(ps, ','));
	}
	expect(ps, ')', "')' closing the arguments");
	call->items = (struct nnef_expr **)items.v;
	call->names = (const char **)names.v;
	call->n = items.n;
}

/* [for i in a, j in b if c yield e] (NNEF 1.0) or [e for i in a if c] (the draft's form). */
static struct nnef_expr *parse_iterators(struct parser *ps, struct nnef_expr *e)
{
	struct vec iters = { 0 }, names = { 0 };
	do {
		push(ps, &names, (void *)ident(ps, "a loop variable"));
		if (!is_kw(ps, "in"))
			perr(ps, ps->t.line, "expected 'in' after the loop variable, found '%s'",
			     tokdesc(ps));
		next(ps);
		push(ps, &iters, parse_or(ps));
	} while (accept(ps, ','));
	e->items = (struct nnef_expr **)iters.v;
	e->names = (const char **)names.v;
	e->n = iters.n;
	if (is_kw(ps, "if")) {
		next(ps);
		e->c = parse_or(ps);
	}
	return e;
}

static struct nnef_expr *parse_array(struct parser *ps, int line)
{
	if (accept(ps, ']'))
		return new_expr(ps, NX_ARRAY, line);
	if (is_kw(ps, "for")) {
		next(ps);
		struct nnef_expr *e = parse_iterators(ps, new_expr(ps, NX_COMPREHENSION, line));
		if (!is_kw(ps, "yield"))
			perr(ps, ps->t.line, "expected 'yield' in the comprehension, found '%s'",
			     tokdesc(ps));
		next(ps);
		e->a = parse_select(ps);
		expect(ps, ']', "']' closing the comprehension");
		return e;
	}
	struct nnef_expr *first = parse_select(ps);
	if (is_kw(ps, "for")) {
		next(ps);
		struct nnef_expr *e = parse_iterators(ps, new_expr(ps, NX_COMPREHENSION, line));
		e->a = first;
		expect(ps, ']', "']' closing the comprehension");
		return e;
	}
	struct vec items = { 0 };
	push(ps, &items, first);
	while (accept(ps, ','))
		push(ps, &items, parse_select(ps));
	expect(ps, ']', "']' closing the array");
	struct nnef_expr *e = new_expr(ps, NX_ARRAY, line);
	e->items = (struct nnef_expr **)items.v;
	e->n = items.n;
	return e;
}

static struct nnef_expr *parse_primary(struct parser *ps)
{
	int line = ps->t.line;
	struct nnef_expr *e;
	if (ps->t.k == NNEF_T_NUM) {
		e = new_expr(ps, NX_NUMBER, line);
		e->num = ps->t.num;
		e->is_int = ps->t.is_int;
		next(ps);
	} else if (ps->t.k == NNEF_T_STR) {
		e = new_expr(ps, NX_STRING, line);
		e->str = nnef_strndup(ps->a, ps->t.s + 1, ps->t.n - 2);
		next(ps);
	} else if (is_kw(ps, "true") || is_kw(ps, "false")) {
		e = new_expr(ps, NX_LOGICAL, line);
		e->num = is_kw(ps, "true");
		next(ps);
	} else if (accept(ps, '(')) {
		e = parse_tuple_or_expr(ps);
		expect(ps, ')', "')'");
	} else if (accept(ps, '[')) {
		e = parse_array(ps, line);
	} else if (is_kw(ps, "shape_of") || is_kw(ps, "length_of") || is_kw(ps, "range_of") ||
		   is_kw(ps, "integer") || is_kw(ps, "extent") || is_kw(ps, "scalar") ||
		   is_kw(ps, "logical") || is_kw(ps, "string")) {
		e = new_expr(ps, NX_BUILTIN, line);
		e->str = nnef_strndup(ps->a, ps->t.s, ps->t.n);
		if (strcmp(e->str, "extent") == 0)
			e->str = "integer";
		next(ps);
		expect(ps, '(', "'(' after a builtin function");
		e->a = parse_select(ps);
		expect(ps, ')', "')' closing a builtin function's argument");
	} else if (ps->t.k == NNEF_T_ID) {
		const char *name = ident(ps, "an expression");
		struct nnef_type *generic = NULL;
		if (ps->t.k == '<') {
			/* name<type>(...) against a comparison name < x */
			struct parser save = *ps;
			next(ps);
			if (at_type_name(ps)) {
				struct nnef_type *t = parse_type(ps);
				if (ps->t.k == '>' && (next(ps), ps->t.k == '('))
					generic = t;
			}
			if (!generic) {
				ps->p = save.p;
				ps->line = save.line;
				ps->t = save.t;
				ps->depth = save.depth;
			}
		}
		if (ps->t.k == '(') {
			next(ps);
			e = new_expr(ps, NX_CALL, line);
			e->str = name;
			e->generic = generic;
			parse_args(ps, e);
		} else {
			e = new_expr(ps, NX_ID, line);
			e->str = name;
		}
	} else {
		perr(ps, line, "expected an expression, found '%s'", tokdesc(ps));
	}
	while (ps->t.k == '[') {
		next(ps);
		struct nnef_expr *s = new_expr(ps, NX_SUBSCRIPT, ps->t.line);
		s->a = e;
		if (ps->t.k != ':')
			s->b = parse_select(ps);
		if (accept(ps, ':')) {
			s->range = true;
			if (ps->t.k != ']')
				s->c = parse_select(ps);
		} else if (!s->b) {
			perr(ps, ps->t.line, "empty subscript");
		}
		expect(ps, ']', "']' closing the subscript");
		e = s;
	}
	return e;
}

static struct nnef_expr *parse_unary(struct parser *ps);

static struct nnef_expr *parse_power(struct parser *ps)
{
	struct nnef_expr *e = parse_primary(ps);
	if (ps->t.k == '^') {
		struct nnef_expr *x = new_expr(ps, NX_BINARY, ps->t.line);
		next(ps);
		x->op = '^';
		x->a = e;
		x->b = parse_unary(ps); /* right-associative */
		e = x;
	}
	return e;
}

static struct nnef_expr *parse_unary(struct parser *ps)
{
	enter(ps);
	struct nnef_expr *e;
	if (ps->t.k == '-' || ps->t.k == '+' || ps->t.k == '!') {
		e = new_expr(ps, NX_UNARY, ps->t.line);
		e->op = ps->t.k;
		next(ps);
		e->a = parse_unary(ps);
	} else {
		e = parse_power(ps);
	}
	ps->depth--;
	return e;
}

static struct nnef_expr *binary(struct parser *ps, int op, struct nnef_expr *a,
				struct nnef_expr *(*rhs)(struct parser *))
{
	struct nnef_expr *x = new_expr(ps, NX_BINARY, ps->t.line);
	next(ps);
	x->op = op;
	x->a = a;
	x->b = rhs(ps);
	return x;
}

static struct nnef_expr *parse_mul(struct parser *ps)
{
	struct nnef_expr *e = parse_unary(ps);
	while (ps->t.k == '*' || ps->t.k == '/')
		e = binary(ps, ps->t.k, e, parse_unary);
	return e;
}

static struct nnef_expr *parse_add(struct parser *ps)
{
	struct nnef_expr *e = parse_mul(ps);
	while (ps->t.k == '+' || ps->t.k == '-')
		e = binary(ps, ps->t.k, e, parse_mul);
	return e;
}

static struct nnef_expr *parse_cmp(struct parser *ps)
{
	struct nnef_expr *e = parse_add(ps);
	while (ps->t.k == '<' || ps->t.k == '>' || ps->t.k == NNEF_T_LE || ps->t.k == NNEF_T_GE ||
	       ps->t.k == NNEF_T_EQ || ps->t.k == NNEF_T_NE)
		e = binary(ps, ps->t.k, e, parse_add);
	return e;
}

static struct nnef_expr *parse_in(struct parser *ps)
{
	struct nnef_expr *e = parse_cmp(ps);
	if (is_kw(ps, "in"))
		e = binary(ps, NNEF_T_IN, e, parse_cmp);
	return e;
}

static struct nnef_expr *parse_and(struct parser *ps)
{
	struct nnef_expr *e = parse_in(ps);
	while (ps->t.k == NNEF_T_AND)
		e = binary(ps, NNEF_T_AND, e, parse_in);
	return e;
}

static struct nnef_expr *parse_or(struct parser *ps)
{
	struct nnef_expr *e = parse_and(ps);
	while (ps->t.k == NNEF_T_OR)
		e = binary(ps, NNEF_T_OR, e, parse_and);
	return e;
}

static struct nnef_expr *parse_select(struct parser *ps)
{
	enter(ps);
	struct nnef_expr *e = parse_or(ps);
	if (is_kw(ps, "if")) {
		struct nnef_expr *s = new_expr(ps, NX_SELECT, ps->t.line);
		next(ps);
		s->a = e;
		s->c = parse_or(ps);
		if (!is_kw(ps, "else"))
			perr(ps, ps->t.line, "expected 'else' in a conditional expression, found "
			     "'%s'", tokdesc(ps));
		next(ps);
		s->b = parse_select(ps);
		e = s;
	}
	ps->depth--;
	return e;
}

/* ---- declarations */
static void check_lvalue(struct parser *ps, const struct nnef_expr *e)
{
	if (e->k == NX_ID)
		return;
	if (e->k != NX_ARRAY && e->k != NX_TUPLE)
		perr(ps, e->line, "the left side of an assignment must be identifiers, arrays or "
		     "tuples of them");
	for (size_t i = 0; i < e->n; i++)
		check_lvalue(ps, e->items[i]);
}

static void parse_body(struct parser *ps, struct nnef_assign **body, size_t *n)
{
	expect(ps, '{', "'{' opening a body");
	struct vec v = { 0 };
	while (ps->t.k != '}') {
		if (ps->t.k == NNEF_T_EOF)
			perr(ps, ps->t.line, "expected '}' closing the body, found the end of the file");
		struct nnef_assign *as = nnef_alloc(ps->a, sizeof(*as));
		as->line = ps->t.line;
		as->lhs = parse_tuple_or_expr(ps);
		check_lvalue(ps, as->lhs);
		expect(ps, '=', "'=' in an assignment");
		as->rhs = parse_tuple_or_expr(ps);
		accept(ps, ';'); /* required by NNEF 1.0, absent in its draft */
		push(ps, &v, as);
	}
	next(ps);
	struct nnef_assign *arr = nnef_alloc(ps->a, (v.n ? v.n : 1) * sizeof(*arr));
	for (size_t i = 0; i < v.n; i++)
		arr[i] = *(struct nnef_assign *)v.v[i];
	*body = arr;
	*n = v.n;
}

static void parse_params(struct parser *ps, struct nnef_param **out, size_t *n, bool defaults,
			 const char *what)
{
	struct vec v = { 0 };
	expect(ps, '(', "'('");
	if (ps->t.k != ')') {
		do {
			struct nnef_param *p = nnef_alloc(ps->a, sizeof(*p));
			p->name = ident(ps, what);
			for (size_t i = 0; i < v.n; i++)
				if (strcmp(((struct nnef_param *)v.v[i])->name, p->name) == 0)
					perr(ps, ps->t.line, "'%s' declared twice", p->name);
			expect(ps, ':', "':' before a type");
			p->type = parse_type(ps);
			if (defaults && accept(ps, '='))
				p->def = parse_select(ps);
			push(ps, &v, p);
		} while (accept(ps, ','));
	}
	expect(ps, ')', "')'");
	struct nnef_param *arr = nnef_alloc(ps->a, (v.n ? v.n : 1) * sizeof(*arr));
	for (size_t i = 0; i < v.n; i++)
		arr[i] = *(struct nnef_param *)v.v[i];
	*out = arr;
	*n = v.n;
}

static struct nnef_fragment *parse_fragment(struct parser *ps)
{
	struct nnef_fragment *f = nnef_alloc(ps->a, sizeof(*f));
	f->file = ps->file;
	f->line = ps->t.line;
	next(ps);
	f->name = ident(ps, "a fragment name");
	if (accept(ps, '<')) {
		expect(ps, '?', "'?' (the generic type)");
		f->generic = true;
		if (accept(ps, '='))
			f->generic_default = parse_type(ps);
		expect(ps, '>', "'>'");
	}
	parse_params(ps, &f->params, &f->n_params, true, "a parameter name");
	expect(ps, NNEF_T_ARROW, "'->' before the results");
	parse_params(ps, &f->results, &f->n_results, false, "a result name");
	for (size_t i = 0; i < f->n_results; i++)
		for (size_t j = 0; j < f->n_params; j++)
			if (strcmp(f->results[i].name, f->params[j].name) == 0)
				perr(ps, f->line, "'%s' is both a parameter and a result of '%s'",
				     f->results[i].name, f->name);
	if (ps->t.k == '{') {
		f->has_body = true;
		parse_body(ps, &f->body, &f->n_body);
	} else {
		accept(ps, ';');
	}
	return f;
}

static void parse_idlist(struct parser *ps, const char ***out, size_t *n)
{
	struct vec v = { 0 };
	expect(ps, '(', "'('");
	if (ps->t.k != ')') {
		do
			push(ps, &v, (void *)ident(ps, "an identifier"));
		while (accept(ps, ','));
	}
	expect(ps, ')', "')'");
	*out = (const char **)v.v;
	*n = v.n;
}

/* Runs body over text with the arena's out-of-memory and the parser's errors caught: false with
 * error filled in where either happened; what names the input in the memory error. */
static bool parse_guarded(struct nnef_arena *a, const char *file, const char *text,
			  const char *what, void (*body)(struct parser *, void *), void *ctx,
			  char *error, size_t len)
{
	struct parser ps = { .a = a, .file = file, .text = text, .p = text, .line = 1,
			     .error = error, .len = len };
	jmp_buf oom;
	jmp_buf *saved = a->oom;
	a->oom = &oom;
	if (setjmp(oom)) {
		a->oom = saved;
		snprintf(error, len, "nnef: %s:%d: the %s needs more than %zu bytes of memory", file,
			 ps.line, what, a->limit);
		return false;
	}
	if (setjmp(ps.fail)) {
		a->oom = saved;
		return false;
	}
	body(&ps, ctx);
	a->oom = saved;
	return true;
}

struct document_job {
	bool need_graph;
	struct nnef_document *doc;
};

static void parse_document(struct parser *ps, void *ctx)
{
	const struct document_job *job = ctx;
	bool need_graph = job->need_graph;
	struct nnef_document *doc = job->doc;
	memset(doc, 0, sizeof(*doc));
	next(ps);
	if (need_graph) {
		if (!is_kw(ps, "version"))
			perr(ps, ps->t.line, "expected 'version' first, found '%s'", tokdesc(ps));
		next(ps);
		if (ps->t.k != NNEF_T_NUM)
			perr(ps, ps->t.line, "expected a version number, found '%s'", tokdesc(ps));
		if (ps->t.num < 1.0 || ps->t.num >= 2.0)
			perr(ps, ps->t.line, "version %g is not NNEF 1.x", ps->t.num);
		next(ps);
		accept(ps, ';');
		while (is_kw(ps, "extension")) {
			next(ps);
			do {
				int line = ps->t.line;
				const char *ext = ident(ps, "an extension name");
				if (strcmp(ext, "KHR_enable_fragment_definitions") != 0 &&
				    strcmp(ext, "KHR_enable_operator_expressions") != 0)
					perr(ps, line, "unknown extension '%s'", ext);
			} while (accept(ps, ','));
			accept(ps, ';');
		}
	}
	struct vec frags = { 0 };
	while (is_kw(ps, "fragment"))
		push(ps, &frags, parse_fragment(ps));
	doc->fragments = (struct nnef_fragment **)frags.v;
	doc->n_fragments = frags.n;
	if (need_graph) {
		if (!is_kw(ps, "graph"))
			perr(ps, ps->t.line, "expected 'fragment' or 'graph', found '%s'",
			     tokdesc(ps));
		struct nnef_graph *g = nnef_alloc(ps->a, sizeof(*g));
		g->line = ps->t.line;
		next(ps);
		g->name = ident(ps, "the graph's name");
		parse_idlist(ps, &g->params, &g->n_params);
		expect(ps, NNEF_T_ARROW, "'->' before the graph's results");
		parse_idlist(ps, &g->results, &g->n_results);
		parse_body(ps, &g->body, &g->n_body);
		doc->graph = g;
	}
	if (ps->t.k != NNEF_T_EOF)
		perr(ps, ps->t.line, "unexpected '%s' after the %s", tokdesc(ps),
		     need_graph ? "graph" : "fragments");
}

bool nnef_parse(struct nnef_arena *a, const char *file, const char *text, bool need_graph,
		struct nnef_document *doc, char *error, size_t len)
{
	struct document_job job = { need_graph, doc };
	return parse_guarded(a, file, text, "document", parse_document, &job, error, len);
}

struct quant_job {
	struct nnef_quant **out;
	size_t *n;
};

static void parse_quant_lines(struct parser *ps, void *ctx)
{
	const struct quant_job *job = ctx;
	struct vec v = { 0 };
	next(ps);
	while (ps->t.k != NNEF_T_EOF) {
		struct nnef_quant *q = nnef_alloc(ps->a, sizeof(*q));
		q->line = ps->t.line;
		if (ps->t.k != NNEF_T_STR)
			perr(ps, ps->t.line, "expected a quoted tensor name, found '%s'", tokdesc(ps));
		q->tensor = nnef_strndup(ps->a, ps->t.s + 1, ps->t.n - 2);
		next(ps);
		expect(ps, ':', "':' after the tensor name");
		q->call = parse_primary(ps);
		if (q->call->k != NX_CALL)
			perr(ps, q->line, "expected a quantization operation for '%s'", q->tensor);
		expect(ps, ';', "';' after the quantization");
		push(ps, &v, q);
	}
	struct nnef_quant *arr = nnef_alloc(ps->a, (v.n ? v.n : 1) * sizeof(*arr));
	for (size_t i = 0; i < v.n; i++)
		arr[i] = *(struct nnef_quant *)v.v[i];
	*job->out = arr;
	*job->n = v.n;
}

bool nnef_parse_quant(struct nnef_arena *a, const char *file, const char *text,
		      struct nnef_quant **out, size_t *n, char *error, size_t len)
{
	struct quant_job job = { out, n };
	return parse_guarded(a, file, text, "file", parse_quant_lines, &job, error, len);
}
