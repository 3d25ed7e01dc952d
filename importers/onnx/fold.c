/* Host evaluation of elementwise ONNX operators on small known values: the arithmetic of shape subgraphs. */
#include "importers/onnx/onnx_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum fold_op {
	F_ADD, F_SUB, F_MUL, F_DIV, F_MAX, F_MIN, F_EQ, F_GT, F_LT, F_GE, F_LE, F_AND, F_OR,
	F_XOR, F_POW, F_MOD, F_WHERE, F_NEG, F_ABS, F_ID, F_FLOOR, F_CEIL, F_SQRT, F_NOT, F_RELU,
	F_SIGN, F_RECIP, F_ROUND, F_NONE,
};

static const struct {
	const char *type;
	enum fold_op op;
	int arity; /* 0: variadic binary (Max, Min, Sum) */
	bool boolean;
} fold_table[] = {
	{ "Add", F_ADD, 2, false },	    { "Sub", F_SUB, 2, false },
	{ "Mul", F_MUL, 2, false },	    { "Div", F_DIV, 2, false },
	{ "Max", F_MAX, 0, false },	    { "Min", F_MIN, 0, false },
	{ "Sum", F_ADD, 0, false },	    { "Equal", F_EQ, 2, true },
	{ "Greater", F_GT, 2, true },	    { "Less", F_LT, 2, true },
	{ "GreaterOrEqual", F_GE, 2, true }, { "LessOrEqual", F_LE, 2, true },
	{ "And", F_AND, 2, true },	    { "Or", F_OR, 2, true },
	{ "Xor", F_XOR, 2, true },	    { "Pow", F_POW, 2, false },
	{ "Mod", F_MOD, 2, false },	    { "Where", F_WHERE, 3, false },
	{ "Neg", F_NEG, 1, false },	    { "Abs", F_ABS, 1, false },
	{ "Identity", F_ID, 1, false },    { "Floor", F_FLOOR, 1, false },
	{ "Ceil", F_CEIL, 1, false },	    { "Sqrt", F_SQRT, 1, false },
	{ "Not", F_NOT, 1, true },	    { "Relu", F_RELU, 1, false },
	{ "Sign", F_SIGN, 1, false },	    { "Reciprocal", F_RECIP, 1, false },
	{ "Round", F_ROUND, 1, false },
};

static bool is_float(enum webnn_data_type t)
{
	return t == WEBNN_FLOAT32;
}

static bool foldable_type(enum webnn_data_type t)
{
	return t == WEBNN_FLOAT32 || t == WEBNN_INT32 || t == WEBNN_INT64 || t == WEBNN_UINT8 ||
	       t == WEBNN_INT8 || t == WEBNN_UINT32;
}

static int64_t get_i(const struct ox_val *v, size_t i)
{
	switch (v->type) {
	case WEBNN_INT64: return ((const int64_t *)v->host)[i];
	case WEBNN_INT32: return ((const int32_t *)v->host)[i];
	case WEBNN_UINT32: return ((const uint32_t *)v->host)[i];
	case WEBNN_INT8: return ((const int8_t *)v->host)[i];
	case WEBNN_UINT8: return ((const uint8_t *)v->host)[i];
	case WEBNN_FLOAT32: return ox_f2i(((const float *)v->host)[i]);
	default: return 0;
	}
}

static double get_f(const struct ox_val *v, size_t i)
{
	return v->type == WEBNN_FLOAT32 ? ((const float *)v->host)[i] : (double)get_i(v, i);
}

static void put(void *p, enum webnn_data_type t, size_t i, double f, int64_t k)
{
	switch (t) {
	case WEBNN_FLOAT32: ((float *)p)[i] = (float)f; break;
	case WEBNN_INT64: ((int64_t *)p)[i] = k; break;
	case WEBNN_INT32: ((int32_t *)p)[i] = (int32_t)k; break;
	case WEBNN_UINT32: ((uint32_t *)p)[i] = (uint32_t)k; break;
	case WEBNN_INT8: ((int8_t *)p)[i] = (int8_t)k; break;
	default: ((uint8_t *)p)[i] = (uint8_t)k; break;
	}
}

/* Index into an input broadcast to the output shape. */
static size_t bcast_index(const struct ox_val *v, uint32_t rank, const uint32_t *idx)
{
	size_t off = 0;
	for (uint32_t i = 0; i < v->rank; i++) {
		uint32_t a = i + rank - v->rank, k = v->dims[i] == 1 ? 0 : idx[a];
		off = off * v->dims[i] + k;
	}
	return off;
}

static int64_t ipow(int64_t b, int64_t e)
{
	int64_t r = 1;
	if (e < 0)
		return b == 1 ? 1 : b == -1 ? (e % 2 ? -1 : 1) : 0;
	while (e--)
		r *= b;
	return r;
}

static bool eval_i(enum fold_op op, int64_t a, int64_t b, int64_t c, int64_t *r, bool fmod_)
{
	switch (op) {
	case F_ADD: *r = (int64_t)((uint64_t)a + (uint64_t)b); return true;
	case F_SUB: *r = (int64_t)((uint64_t)a - (uint64_t)b); return true;
	case F_MUL: *r = (int64_t)((uint64_t)a * (uint64_t)b); return true;
	case F_DIV:
		if (b == 0 || (a == INT64_MIN && b == -1))
			return false;
		*r = a / b;
		return true;
	case F_MOD:
		if (b == 0 || (a == INT64_MIN && b == -1))
			return false;
		*r = a % b;
		if (!fmod_ && *r && ((*r < 0) != (b < 0)))
			*r += b;
		return true;
	case F_MAX: *r = a > b ? a : b; return true;
	case F_MIN: *r = a < b ? a : b; return true;
	case F_EQ: *r = a == b; return true;
	case F_GT: *r = a > b; return true;
	case F_LT: *r = a < b; return true;
	case F_GE: *r = a >= b; return true;
	case F_LE: *r = a <= b; return true;
	case F_AND: *r = a && b; return true;
	case F_OR: *r = a || b; return true;
	case F_XOR: *r = !a != !b; return true;
	case F_POW: *r = ipow(a, b); return b >= 0 && b < 64;
	case F_WHERE: *r = a ? b : c; return true;
	case F_NEG: *r = (int64_t)(0 - (uint64_t)a); return true;
	case F_ABS: *r = a < 0 ? (int64_t)(0 - (uint64_t)a) : a; return true;
	case F_ID: case F_FLOOR: case F_CEIL: case F_ROUND: *r = a; return true;
	case F_NOT: *r = !a; return true;
	case F_RELU: *r = a > 0 ? a : 0; return true;
	case F_SIGN: *r = a > 0 ? 1 : a < 0 ? -1 : 0; return true;
	default: return false;
	}
}

static double eval_f(enum fold_op op, double a, double b, double c, bool fmod_)
{
	switch (op) {
	case F_ADD: return (float)a + (float)b;
	case F_SUB: return (float)a - (float)b;
	case F_MUL: return (float)a * (float)b;
	case F_DIV: return (float)a / (float)b;
	case F_MOD: return fmod_ ? fmod(a, b) : a - b * floor(a / b);
	case F_MAX: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
	case F_MIN: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
	case F_EQ: return a == b;
	case F_GT: return a > b;
	case F_LT: return a < b;
	case F_GE: return a >= b;
	case F_LE: return a <= b;
	case F_POW: return pow(a, b);
	case F_WHERE: return a != 0 ? b : c;
	case F_NEG: return -a;
	case F_ABS: return fabs(a);
	case F_ID: return a;
	case F_FLOOR: return floor(a);
	case F_CEIL: return ceil(a);
	case F_SQRT: return sqrt((float)a);
	case F_RELU: return a > 0 ? a : 0;
	case F_SIGN: return a > 0 ? 1 : a < 0 ? -1 : 0;
	case F_RECIP: return 1 / (float)a;
	case F_ROUND: return nearbyint(a);
	default: return NAN;
	}
}

/* 1: folded (output 0 set), 0: not applicable (leave it to WebNN), -1: error. */
int ox_fold_elementwise(struct ox_node *n)
{
	size_t k = 0, nk = sizeof(fold_table) / sizeof(fold_table[0]);
	while (k < nk && strcmp(fold_table[k].type, n->node->op_type) != 0)
		k++;
	if (k == nk || n->n_in == 0 || n->n_in > 8)
		return 0;
	int arity = fold_table[k].arity ? fold_table[k].arity : (int)n->n_in;
	if ((size_t)arity != n->n_in)
		return 0;
	uint32_t rank = 0, dims[WEBNN_MAX_RANK];
	for (size_t i = 0; i < n->n_in; i++) {
		const struct ox_val *v = n->in[i];
		if (!v || !v->host || !foldable_type(v->type) ||
		    ox_elems(v->rank, v->dims) > OX_FOLD_MAX_ELEMS)
			return 0;
		if (v->rank > rank) {
			for (uint32_t a = 0; a < v->rank - rank; a++)
				dims[a] = 1;
			memmove(dims + (v->rank - rank), dims, rank * sizeof(dims[0]));
			rank = v->rank;
		}
		for (uint32_t a = 0; a < v->rank; a++) {
			uint32_t *d = &dims[a + rank - v->rank], e = v->dims[a];
			if (e != 1 && *d != 1 && e != *d)
				return 0; /* WebNN reports the broadcast error */
			if (*d == 1 || e == 0)
				*d = e;
		}
	}
	enum fold_op op = fold_table[k].op;
	/* the data type of the result: the values' (Where: the second input's) */
	const struct ox_val *tv = n->in[op == F_WHERE ? 1 : 0];
	enum webnn_data_type t = fold_table[k].boolean ? WEBNN_UINT8 : tv->type;
	int ot = fold_table[k].boolean ? OX_BOOL : tv->onnx_type;
	bool fl = false;
	for (size_t i = op == F_WHERE ? 1 : 0; i < n->n_in; i++)
		fl |= is_float(n->in[i]->type);
	size_t total = ox_elems(rank, dims);
	if (total > OX_FOLD_MAX_ELEMS)
		return 0;
	void *p = malloc(total * webnn_data_type_size(t) + 1);
	if (!p)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	bool fmod_ = ox_attr_i(n, "fmod", 0) != 0;
	uint32_t idx[WEBNN_MAX_RANK] = { 0 };
	for (size_t e = 0; e < total; e++) {
		size_t off[8] = { 0 };
		for (size_t i = 0; i < n->n_in; i++)
			off[i] = bcast_index(n->in[i], rank, idx);
		if (arity > 3 || (fold_table[k].arity == 0 && n->n_in > 2)) {
			/* variadic: fold left */
			if (fl) {
				double acc = get_f(n->in[0], off[0]);
				for (size_t i = 1; i < n->n_in; i++)
					acc = eval_f(op, acc, get_f(n->in[i], off[i]), 0, fmod_);
				put(p, t, e, acc, 0);
			} else {
				int64_t acc = get_i(n->in[0], off[0]), r;
				for (size_t i = 1; i < n->n_in; i++) {
					if (!eval_i(op, acc, get_i(n->in[i], off[i]), 0, &r, fmod_)) {
						free(p);
						return 0;
					}
					acc = r;
				}
				put(p, t, e, 0, acc);
			}
		} else if (fl || op == F_SQRT || op == F_RECIP) {
			double a = get_f(n->in[0], off[0]), b = arity > 1 ? get_f(n->in[1], off[1]) : 0,
			       c = arity > 2 ? get_f(n->in[2], off[2]) : 0;
			if (!fl) {
				free(p);
				return 0; /* integer sqrt and reciprocal: no such WebNN op either */
			}
			double r = eval_f(op, a, b, c, fmod_);
			put(p, t, e, r, ox_f2i(r));
		} else {
			int64_t a = get_i(n->in[0], off[0]), b = arity > 1 ? get_i(n->in[1], off[1]) : 0,
				c = arity > 2 ? get_i(n->in[2], off[2]) : 0, r;
			if (!eval_i(op, a, b, c, &r, fmod_)) {
				free(p);
				return 0; /* division by zero and the like: WebNN's own rules */
			}
			put(p, t, e, (double)r, r);
		}
		for (int a = (int)rank - 1; a >= 0; a--) {
			if (++idx[a] < dims[a])
				break;
			idx[a] = 0;
		}
	}
	if (ox_set_host(n, 0, ot, rank, dims, p))
		return -1;
	return 1;
}
