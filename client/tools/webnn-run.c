/* webnn-run: replays WPT conformance cases (JSON) through libwebnn, prints or checks the outputs. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <webnn.h>

/* Keeps a malformed case from asking for an absurd allocation. */
#define MAX_ELEMENTS (1u << 28)
#define MAX_ARGS 16
/* Results of one operator returning a sequence (split's parts, gru/lstm states). */
#define MAX_OUTS 64
/* WPT compares at most this many elements of an output whose expected data is one scalar. */
#define SCALAR_COMPARE_LIMIT 1000

struct known_failure {
	char *file, *name, *reason;
	bool seen;
};

struct run_opts {
	const char *socket;
	const char *filter;
	const char *known_failures;
	bool check, verbose;
};

struct totals {
	int passed, failed, skipped, xfail, xpass;
};

/* One named operand of the case being replayed: a graph input/constant or an operator result. */
struct named {
	const char *name;
	struct webnn_operand *op;
};

/* A positional argument: the JSON literal, or the operand it names. */
struct arg {
	const char *key;
	json_t *value;
	struct webnn_operand *op;
};

struct replay {
	struct webnn_context *ctx;
	struct webnn_builder *b;
	json_t *inputs; /* graph.inputs */
	struct named *names;
	size_t n_names, cap_names;
	const char *op_name; /* operator being built, for messages */
	char err[1024];
	bool skip; /* err says why the case is skipped rather than failed */
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((format(printf, 2, 3))) static void set_err(struct replay *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------- data types and values */

static bool parse_dtype(const char *s, enum webnn_data_type *t)
{
	static const struct {
		const char *name;
		enum webnn_data_type t;
	} map[] = { { "float32", WEBNN_FLOAT32 }, { "float16", WEBNN_FLOAT16 },
		    { "int32", WEBNN_INT32 },     { "uint32", WEBNN_UINT32 },
		    { "int64", WEBNN_INT64 },     { "uint64", WEBNN_UINT64 },
		    { "int8", WEBNN_INT8 },       { "uint8", WEBNN_UINT8 } };
	for (size_t i = 0; s && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(s, map[i].name) == 0) {
			*t = map[i].t;
			return true;
		}
	return false;
}

static bool is_float_type(enum webnn_data_type t)
{
	return t == WEBNN_FLOAT32 || t == WEBNN_FLOAT16;
}

static size_t desc_elements(const struct webnn_operand_desc *d)
{
	size_t n = 1;
	for (uint32_t i = 0; i < d->rank; i++)
		n *= d->shape[i];
	return n;
}

static void format_desc(const struct webnn_operand_desc *d, char *buf, size_t len)
{
	const char *tn = webnn_data_type_name(d->data_type);
	int o = snprintf(buf, len, "%s [", tn ? tn : "?");
	for (uint32_t i = 0; i < d->rank && o > 0 && (size_t)o < len; i++)
		o += snprintf(buf + o, len - o, "%s%u", i ? "," : "", d->shape[i]);
	if (o > 0 && (size_t)o < len)
		snprintf(buf + o, len - o, "]");
}

/* Parses {"dataType", "shape"}; the element count is checked against MAX_ELEMENTS. */
static bool parse_desc(struct replay *r, const char *what, json_t *j, struct webnn_operand_desc *d)
{
	json_t *dt = json_object_get(j, "dataType"), *shape = json_object_get(j, "shape");
	memset(d, 0, sizeof(*d));
	if (!json_is_string(dt) || !json_is_array(shape)) {
		set_err(r, "%s: descriptor needs dataType and shape", what);
		return false;
	}
	if (!parse_dtype(json_string_value(dt), &d->data_type)) {
		set_err(r, "%s: data type %s not supported by libwebnn "
			   "(not an MLOperandDataType of the spec it implements)",
			what, json_string_value(dt));
		r->skip = true;
		return false;
	}
	if (json_array_size(shape) > WEBNN_MAX_RANK) {
		set_err(r, "%s: rank %zu exceeds %d", what, json_array_size(shape), WEBNN_MAX_RANK);
		return false;
	}
	uint64_t n = 1;
	for (size_t i = 0; i < json_array_size(shape); i++) {
		double v = json_number_value(json_array_get(shape, i));
		if (!json_is_number(json_array_get(shape, i)) || v < 0 || v > UINT32_MAX ||
		    v != floor(v)) {
			set_err(r, "%s: shape[%zu] is not a dimension", what, i);
			return false;
		}
		d->shape[i] = (uint32_t)v;
		n *= d->shape[i] ? d->shape[i] : 1;
		if (n > MAX_ELEMENTS) {
			set_err(r, "%s: more than %u elements", what, MAX_ELEMENTS);
			return false;
		}
	}
	d->rank = (uint32_t)json_array_size(shape);
	return true;
}

/* A JSON number or one of the strings "NaN", "Infinity", "-Infinity", or {"$bigint": "..."}. */
static bool json_to_double(json_t *v, double *out)
{
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return true;
	}
	if (json_is_object(v))
		v = json_object_get(v, "$bigint");
	if (!json_is_string(v))
		return false;
	const char *s = json_string_value(v);
	if (strcmp(s, "NaN") == 0)
		*out = NAN;
	else if (strcmp(s, "Infinity") == 0)
		*out = INFINITY;
	else if (strcmp(s, "-Infinity") == 0)
		*out = -INFINITY;
	else {
		char *end;
		errno = 0;
		*out = strtod(s, &end);
		return *s && !*end;
	}
	return true;
}

/* 64-bit integers are JSON numbers up to 2^53-1 and decimal strings beyond. */
static bool json_to_i64(json_t *v, int64_t *out)
{
	if (json_is_number(v)) {
		double d = json_number_value(v);
		if (d != floor(d) || fabs(d) > 9007199254740991.0)
			return false;
		*out = (int64_t)d;
		return true;
	}
	if (!json_is_string(v))
		return false;
	char *end;
	errno = 0;
	long long x = strtoll(json_string_value(v), &end, 10);
	*out = x;
	return !errno && *json_string_value(v) && !*end;
}

static bool json_to_u64(json_t *v, uint64_t *out)
{
	if (json_is_number(v)) {
		double d = json_number_value(v);
		if (d != floor(d) || d < 0 || d > 9007199254740991.0)
			return false;
		*out = (uint64_t)d;
		return true;
	}
	if (!json_is_string(v) || json_string_value(v)[0] == '-')
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(json_string_value(v), &end, 10);
	*out = x;
	return !errno && *json_string_value(v) && !*end;
}

static double half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;
	if (e == 0)
		v = ldexp(m, -24);
	else if (e == 31)
		v = m ? NAN : INFINITY;
	else
		v = ldexp(m | 0x400, e - 25);
	return (h & 0x8000) ? -v : v;
}

/* Stores element i of a JSON array (or the broadcast scalar) as dtype into buf. */
static bool store_element(json_t *v, enum webnn_data_type t, void *buf, size_t i)
{
	double d = 0;
	int64_t s64;
	uint64_t u64;
	switch (t) {
	case WEBNN_FLOAT32:
		if (!json_to_double(v, &d))
			return false;
		((float *)buf)[i] = (float)d;
		return true;
	case WEBNN_FLOAT16:
		/* v comes from float16Bits */
		if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 65535)
			return false;
		((uint16_t *)buf)[i] = (uint16_t)json_number_value(v);
		return true;
	case WEBNN_INT64:
		if (!json_to_i64(v, &s64))
			return false;
		((int64_t *)buf)[i] = s64;
		return true;
	case WEBNN_UINT64:
		if (!json_to_u64(v, &u64))
			return false;
		((uint64_t *)buf)[i] = u64;
		return true;
	default:
		break;
	}
	if (!json_to_double(v, &d) || d != floor(d))
		return false;
	switch (t) {
	case WEBNN_INT32:
		((int32_t *)buf)[i] = (int32_t)d;
		return d >= INT32_MIN && d <= INT32_MAX;
	case WEBNN_UINT32:
		((uint32_t *)buf)[i] = (uint32_t)d;
		return d >= 0 && d <= UINT32_MAX;
	case WEBNN_INT8:
		((int8_t *)buf)[i] = (int8_t)d;
		return d >= INT8_MIN && d <= INT8_MAX;
	case WEBNN_UINT8:
		((uint8_t *)buf)[i] = (uint8_t)d;
		return d >= 0 && d <= UINT8_MAX;
	default:
		return false;
	}
}

/* Encodes an operand's "data" (float16: "float16Bits"); a scalar fills every element. */
static void *encode_data(struct replay *r, const char *name, json_t *entry,
			 const struct webnn_operand_desc *d, size_t *size)
{
	json_t *data = json_object_get(entry, d->data_type == WEBNN_FLOAT16 ? "float16Bits" : "data");
	size_t n = desc_elements(d), es = webnn_data_type_size(d->data_type);
	if (!data) {
		set_err(r, "%s: no %s", name, d->data_type == WEBNN_FLOAT16 ? "float16Bits" : "data");
		return NULL;
	}
	if (json_is_array(data) && json_array_size(data) != n) {
		set_err(r, "%s: %zu values for %zu elements", name, json_array_size(data), n);
		return NULL;
	}
	void *buf = calloc(n ? n : 1, es);
	if (!buf) {
		set_err(r, "%s: out of memory", name);
		return NULL;
	}
	/* A scalar is converted once and copied: "large inputs" cases have 36M elements. */
	size_t n_convert = json_is_array(data) ? n : (n ? 1 : 0);
	for (size_t i = 0; i < n_convert; i++) {
		json_t *v = json_is_array(data) ? json_array_get(data, i) : data;
		if (!store_element(v, d->data_type, buf, i)) {
			set_err(r, "%s: element %zu is not a valid %s", name, i,
				webnn_data_type_name(d->data_type));
			free(buf);
			return NULL;
		}
	}
	for (size_t i = n_convert; i < n; i++)
		memcpy((char *)buf + i * es, buf, es);
	*size = n * es;
	return buf;
}

/* ---------------------------------------------------------------- operands by name */

static struct webnn_operand *lookup(struct replay *r, const char *name)
{
	for (size_t i = 0; i < r->n_names; i++)
		if (strcmp(r->names[i].name, name) == 0)
			return r->names[i].op;
	return NULL;
}

static bool add_name(struct replay *r, const char *name, struct webnn_operand *op)
{
	if (r->n_names == r->cap_names) {
		size_t cap = r->cap_names ? 2 * r->cap_names : 16;
		struct named *n = realloc(r->names, cap * sizeof(*n));
		if (!n) {
			set_err(r, "out of memory");
			return false;
		}
		r->names = n;
		r->cap_names = cap;
	}
	r->names[r->n_names++] = (struct named){ name, op };
	return true;
}

static bool fail_status(struct replay *r, enum webnn_status s, const char *what)
{
	set_err(r, "%s: %s: %s", what, webnn_status_name(s), webnn_context_last_error(r->ctx));
	return false;
}

/* The operand a name refers to: an earlier result, or a graph input/constant created on its
 * first reference (as WPT does; unreferenced constants are never created). NULL: not a name. */
static struct webnn_operand *resolve(struct replay *r, json_t *v, bool *error)
{
	*error = false;
	if (!json_is_string(v))
		return NULL;
	const char *name = json_string_value(v);
	struct webnn_operand *op = lookup(r, name);
	if (op)
		return op;
	json_t *entry = json_object_get(r->inputs, name);
	if (!entry)
		return NULL;
	struct webnn_operand_desc d;
	*error = true;
	if (!parse_desc(r, name, json_object_get(entry, "descriptor"), &d))
		return NULL;
	enum webnn_status s;
	if (json_is_true(json_object_get(entry, "constant"))) {
		size_t size = 0;
		void *buf = encode_data(r, name, entry, &d, &size);
		if (!buf)
			return NULL;
		s = webnn_builder_constant(r->b, &d, buf, size, &op);
		free(buf);
	} else {
		s = webnn_builder_input(r->b, name, &d, &op);
	}
	if (s != WEBNN_STATUS_OK) {
		char what[300];
		snprintf(what, sizeof(what), "%s %s", json_is_true(json_object_get(entry, "constant")) ?
			 "constant" : "input", name);
		fail_status(r, s, what);
		r->skip = s == WEBNN_STATUS_NOT_SUPPORTED;
		return NULL;
	}
	if (!add_name(r, name, op))
		return NULL;
	*error = false;
	return op;
}

/* ---------------------------------------------------------------- options */

static bool check_options(struct replay *r, json_t *opts, const char *const *known)
{
	const char *key;
	json_t *v;
	json_object_foreach(opts, key, v) {
		bool ok = strcmp(key, "label") == 0;
		for (size_t i = 0; known[i] && !ok; i++)
			ok = strcmp(key, known[i]) == 0;
		if (!ok) {
			set_err(r, "%s: option %s is not supported by libwebnn", r->op_name, key);
			r->skip = true;
			return false;
		}
	}
	return true;
}

static bool opt_double(struct replay *r, json_t *opts, const char *key, double *out, bool *present)
{
	json_t *v = json_object_get(opts, key);
	if (present)
		*present = v != NULL;
	if (!v)
		return true;
	if (!json_to_double(v, out)) {
		set_err(r, "%s: option %s is not a number", r->op_name, key);
		return false;
	}
	return true;
}

/* A bigint {"$bigint": "..."} kept exact; beyond the 64-bit ranges it saturates, which is
 * what the spec's cast to an int64/uint64 operand does with it anyway. */
static bool json_bigint(json_t *v, struct webnn_number *out)
{
	const char *s = json_string_value(json_object_get(v, "$bigint"));
	char *end;
	if (!s || !*s)
		return false;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (*end)
		return false;
	if (!errno) {
		*out = WEBNN_NUMBER_I64((int64_t)x);
		return true;
	}
	if (s[0] == '-') {
		*out = WEBNN_NUMBER_I64(INT64_MIN);
		return true;
	}
	errno = 0;
	unsigned long long u = strtoull(s, &end, 10);
	*out = WEBNN_NUMBER_U64(errno ? UINT64_MAX : (uint64_t)u);
	return true;
}

/* An MLNumber option: kind WEBNN_NUMBER_NONE when absent. */
static bool opt_number(struct replay *r, json_t *opts, const char *key, struct webnn_number *out)
{
	json_t *v = json_object_get(opts, key);
	double d;
	*out = (struct webnn_number)WEBNN_NUMBER_NONE_INIT;
	if (!v)
		return true;
	if (json_is_object(v)) {
		if (json_bigint(v, out))
			return true;
	} else if (json_to_double(v, &d)) {
		*out = WEBNN_NUMBER_F64(d);
		return true;
	}
	set_err(r, "%s: option %s is not a number", r->op_name, key);
	return false;
}

static bool opt_bool(struct replay *r, json_t *opts, const char *key, bool *out)
{
	json_t *v = json_object_get(opts, key);
	if (!v)
		return true;
	if (!json_is_boolean(v)) {
		set_err(r, "%s: option %s is not a boolean", r->op_name, key);
		return false;
	}
	*out = json_is_true(v);
	return true;
}

static bool json_u32(json_t *v, uint32_t *out)
{
	double d;
	if (!json_is_number(v))
		return false;
	d = json_number_value(v);
	if (d < 0 || d > UINT32_MAX || d != floor(d))
		return false;
	*out = (uint32_t)d;
	return true;
}

/* An array of unsigned integers of at most max entries (n = its length). */
static bool u32_array(struct replay *r, json_t *v, const char *what, uint32_t *out, uint32_t max,
		      uint32_t *n)
{
	if (!json_is_array(v) || json_array_size(v) > max) {
		set_err(r, "%s: %s must be an array of at most %u unsigned integers", r->op_name,
			what, max);
		return false;
	}
	for (size_t i = 0; i < json_array_size(v); i++)
		if (!json_u32(json_array_get(v, i), &out[i])) {
			set_err(r, "%s: %s[%zu] is not an unsigned integer", r->op_name, what, i);
			return false;
		}
	*n = (uint32_t)json_array_size(v);
	return true;
}

/* A fixed-length array option; *n stays 0 when absent. */
static bool opt_u32_array(struct replay *r, json_t *opts, const char *key, uint32_t *out,
			  uint32_t len, uint32_t *n)
{
	json_t *v = json_object_get(opts, key);
	*n = 0;
	if (!v)
		return true;
	if (!u32_array(r, v, key, out, len, n))
		return false;
	if (*n != len) {
		set_err(r, "%s: option %s has %u entries, expected %u", r->op_name, key, *n, len);
		return false;
	}
	return true;
}

static bool opt_enum(struct replay *r, json_t *opts, const char *key, const char *const *names,
		     int *out)
{
	json_t *v = json_object_get(opts, key);
	if (!v)
		return true;
	for (int i = 0; json_is_string(v) && names[i]; i++)
		if (strcmp(json_string_value(v), names[i]) == 0) {
			*out = i;
			return true;
		}
	set_err(r, "%s: option %s has an unknown value", r->op_name, key);
	return false;
}

/* An options member naming an operand (bias, c, scale, ...); NULL when absent. */
static bool opt_operand(struct replay *r, json_t *opts, const char *key, struct webnn_operand **out)
{
	json_t *v = json_object_get(opts, key);
	bool error;
	*out = NULL;
	if (!v)
		return true;
	*out = resolve(r, v, &error);
	if (error)
		return false;
	if (!*out) {
		set_err(r, "%s: option %s does not name an operand", r->op_name, key);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- operators */

typedef enum webnn_status (*unary_fn)(struct webnn_builder *, struct webnn_operand *,
				      struct webnn_operand **);
typedef enum webnn_status (*binary_fn)(struct webnn_builder *, struct webnn_operand *,
				       struct webnn_operand *, struct webnn_operand **);

struct op_call {
	struct arg args[MAX_ARGS];
	size_t n_args;
	json_t *options; /* never NULL (an empty object when absent) */
	struct webnn_operand *out;
	struct webnn_operand *outs[MAX_OUTS]; /* operators returning a sequence */
	size_t n_outs;
};

static bool want_args(struct replay *r, struct op_call *c, size_t n_operands, size_t n_total)
{
	if (c->n_args != n_total) {
		set_err(r, "%s: %zu arguments, expected %zu", r->op_name, c->n_args, n_total);
		return false;
	}
	for (size_t i = 0; i < n_operands; i++)
		if (!c->args[i].op) {
			set_err(r, "%s: argument %zu (%s) does not name an operand", r->op_name, i,
				c->args[i].key);
			return false;
		}
	return true;
}

static const char *const no_options[] = { NULL };

static bool built(struct replay *r, enum webnn_status s)
{
	if (s != WEBNN_STATUS_OK) {
		fail_status(r, s, r->op_name);
		r->skip = s == WEBNN_STATUS_NOT_SUPPORTED;
		return false;
	}
	return true;
}

static bool do_unary(struct replay *r, struct op_call *c, unary_fn fn)
{
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, no_options))
		return false;
	return built(r, fn(r->b, c->args[0].op, &c->out));
}

static bool do_binary(struct replay *r, struct op_call *c, binary_fn fn)
{
	if (!want_args(r, c, 2, 2) || !check_options(r, c->options, no_options))
		return false;
	return built(r, fn(r->b, c->args[0].op, c->args[1].op, &c->out));
}

static bool do_elu(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "alpha", NULL };
	struct webnn_elu_options o = WEBNN_ELU_OPTIONS_INIT;
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_double(r, c->options, "alpha", &o.alpha, NULL))
		return false;
	return built(r, webnn_builder_elu(r->b, c->args[0].op, &o, &c->out));
}

static bool do_leaky_relu(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "alpha", NULL };
	struct webnn_leaky_relu_options o = WEBNN_LEAKY_RELU_OPTIONS_INIT;
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_double(r, c->options, "alpha", &o.alpha, NULL))
		return false;
	return built(r, webnn_builder_leaky_relu(r->b, c->args[0].op, &o, &c->out));
}

static bool do_hard_sigmoid(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "alpha", "beta", NULL };
	struct webnn_hard_sigmoid_options o = WEBNN_HARD_SIGMOID_OPTIONS_INIT;
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_double(r, c->options, "alpha", &o.alpha, NULL) ||
	    !opt_double(r, c->options, "beta", &o.beta, NULL))
		return false;
	return built(r, webnn_builder_hard_sigmoid(r->b, c->args[0].op, &o, &c->out));
}

static bool do_linear(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "alpha", "beta", NULL };
	struct webnn_linear_options o = WEBNN_LINEAR_OPTIONS_INIT;
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_double(r, c->options, "alpha", &o.alpha, NULL) ||
	    !opt_double(r, c->options, "beta", &o.beta, NULL))
		return false;
	return built(r, webnn_builder_linear(r->b, c->args[0].op, &o, &c->out));
}

static bool do_clamp(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "minValue", "maxValue", NULL };
	struct webnn_clamp_options o = WEBNN_CLAMP_OPTIONS_INIT;
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_number(r, c->options, "minValue", &o.min_number) ||
	    !opt_number(r, c->options, "maxValue", &o.max_number))
		return false;
	return built(r, webnn_builder_clamp(r->b, c->args[0].op, &o, &c->out));
}

static bool do_softmax(struct replay *r, struct op_call *c)
{
	uint32_t axis;
	if (!want_args(r, c, 1, 2) || !check_options(r, c->options, no_options))
		return false;
	if (!json_u32(c->args[1].value, &axis)) {
		set_err(r, "softmax: axis is not an unsigned integer");
		return false;
	}
	return built(r, webnn_builder_softmax(r->b, c->args[0].op, axis, &c->out));
}

static const char *const layouts[] = { "nchw", "nhwc", NULL };

static bool do_conv2d(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "padding", "strides", "dilations", "groups",
					     "inputLayout", "filterLayout", "bias", NULL };
	static const char *const filter_layouts[] = { "oihw", "hwio", "ohwi", "ihwo", NULL };
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	int il = (int)o.input_layout, fl = (int)o.filter_layout;
	json_t *g = json_object_get(c->options, "groups");
	if (!want_args(r, c, 2, 2) || !check_options(r, c->options, known) ||
	    !opt_u32_array(r, c->options, "padding", o.padding, 4, &o.n_padding) ||
	    !opt_u32_array(r, c->options, "strides", o.strides, 2, &o.n_strides) ||
	    !opt_u32_array(r, c->options, "dilations", o.dilations, 2, &o.n_dilations) ||
	    !opt_enum(r, c->options, "inputLayout", layouts, &il) ||
	    !opt_enum(r, c->options, "filterLayout", filter_layouts, &fl) ||
	    !opt_operand(r, c->options, "bias", &o.bias))
		return false;
	if (g && !json_u32(g, &o.groups)) {
		set_err(r, "conv2d: option groups is not an unsigned integer");
		return false;
	}
	o.input_layout = (enum webnn_layout)il;
	o.filter_layout = (enum webnn_conv2d_filter_layout)fl;
	return built(r, webnn_builder_conv2d(r->b, c->args[0].op, c->args[1].op, &o, &c->out));
}

typedef enum webnn_status (*pool_fn)(struct webnn_builder *, struct webnn_operand *,
				     const struct webnn_pool2d_options *, struct webnn_operand **);

static bool do_pool(struct replay *r, struct op_call *c, pool_fn fn)
{
	static const char *const known[] = { "windowDimensions", "padding", "strides", "dilations",
					     "layout", "outputShapeRounding", "outputSizes", NULL };
	static const char *const roundings[] = { "floor", "ceil", NULL };
	struct webnn_pool2d_options o = WEBNN_POOL2D_OPTIONS_INIT;
	int layout = (int)o.layout, rounding = (int)o.output_shape_rounding;
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_u32_array(r, c->options, "windowDimensions", o.window_dimensions, 2,
			   &o.n_window_dimensions) ||
	    !opt_u32_array(r, c->options, "padding", o.padding, 4, &o.n_padding) ||
	    !opt_u32_array(r, c->options, "strides", o.strides, 2, &o.n_strides) ||
	    !opt_u32_array(r, c->options, "dilations", o.dilations, 2, &o.n_dilations) ||
	    !opt_u32_array(r, c->options, "outputSizes", o.output_sizes, 2, &o.n_output_sizes) ||
	    !opt_enum(r, c->options, "layout", layouts, &layout) ||
	    !opt_enum(r, c->options, "outputShapeRounding", roundings, &rounding))
		return false;
	o.layout = (enum webnn_layout)layout;
	o.output_shape_rounding = (enum webnn_rounding)rounding;
	return built(r, fn(r->b, c->args[0].op, &o, &c->out));
}

static bool do_average_pool2d(struct replay *r, struct op_call *c)
{
	return do_pool(r, c, webnn_builder_average_pool2d);
}
static bool do_l2_pool2d(struct replay *r, struct op_call *c)
{
	return do_pool(r, c, webnn_builder_l2_pool2d);
}
static bool do_max_pool2d(struct replay *r, struct op_call *c)
{
	return do_pool(r, c, webnn_builder_max_pool2d);
}

static bool do_gemm(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "c", "alpha", "beta", "aTranspose", "bTranspose",
					     NULL };
	struct webnn_gemm_options o = WEBNN_GEMM_OPTIONS_INIT;
	if (!want_args(r, c, 2, 2) || !check_options(r, c->options, known) ||
	    !opt_operand(r, c->options, "c", &o.c) ||
	    !opt_double(r, c->options, "alpha", &o.alpha, NULL) ||
	    !opt_double(r, c->options, "beta", &o.beta, NULL) ||
	    !opt_bool(r, c->options, "aTranspose", &o.a_transpose) ||
	    !opt_bool(r, c->options, "bTranspose", &o.b_transpose))
		return false;
	return built(r, webnn_builder_gemm(r->b, c->args[0].op, c->args[1].op, &o, &c->out));
}

static bool do_matmul(struct replay *r, struct op_call *c)
{
	return do_binary(r, c, webnn_builder_matmul);
}

static bool do_reshape(struct replay *r, struct op_call *c)
{
	uint32_t shape[WEBNN_MAX_RANK], n;
	if (!want_args(r, c, 1, 2) || !check_options(r, c->options, no_options) ||
	    !u32_array(r, c->args[1].value, "newShape", shape, WEBNN_MAX_RANK, &n))
		return false;
	return built(r, webnn_builder_reshape(r->b, c->args[0].op, shape, n, &c->out));
}

static bool do_transpose(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "permutation", NULL };
	uint32_t perm[WEBNN_MAX_RANK], n = 0;
	json_t *p = json_object_get(c->options, "permutation");
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    (p && !u32_array(r, p, "permutation", perm, WEBNN_MAX_RANK, &n)))
		return false;
	return built(r, webnn_builder_transpose(r->b, c->args[0].op, p ? perm : NULL, n, &c->out));
}

static bool do_concat(struct replay *r, struct op_call *c)
{
	uint32_t axis;
	if (!want_args(r, c, 0, 2) || !check_options(r, c->options, no_options))
		return false;
	json_t *list = c->args[0].value;
	if (!json_is_array(list)) {
		set_err(r, "concat: inputs is not an array");
		return false;
	}
	if (!json_u32(c->args[1].value, &axis)) {
		set_err(r, "concat: axis is not an unsigned integer");
		return false;
	}
	size_t n = json_array_size(list);
	struct webnn_operand **ops = calloc(n ? n : 1, sizeof(*ops));
	if (!ops) {
		set_err(r, "concat: out of memory");
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		bool error;
		ops[i] = resolve(r, json_array_get(list, i), &error);
		if (!ops[i]) {
			if (!error)
				set_err(r, "concat: inputs[%zu] does not name an operand", i);
			free(ops);
			return false;
		}
	}
	bool ok = built(r, webnn_builder_concat(r->b, ops, n, axis, &c->out));
	free(ops);
	return ok;
}

static bool do_batch_normalization(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "scale", "bias", "axis", "epsilon", NULL };
	struct webnn_batch_normalization_options o = WEBNN_BATCH_NORMALIZATION_OPTIONS_INIT;
	json_t *axis = json_object_get(c->options, "axis");
	if (!want_args(r, c, 3, 3) || !check_options(r, c->options, known) ||
	    !opt_operand(r, c->options, "scale", &o.scale) ||
	    !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_double(r, c->options, "epsilon", &o.epsilon, NULL))
		return false;
	if (axis && !json_u32(axis, &o.axis)) {
		set_err(r, "batchNormalization: option axis is not an unsigned integer");
		return false;
	}
	return built(r, webnn_builder_batch_normalization(r->b, c->args[0].op, c->args[1].op,
							  c->args[2].op, &o, &c->out));
}

/* ---- operators beyond the CNN set */

/* A positional unsigned integer argument (axis, steps, hiddenSize, ...). */
static bool arg_u32(struct replay *r, struct op_call *c, size_t i, uint32_t *out)
{
	if (!json_u32(c->args[i].value, out)) {
		set_err(r, "%s: %s is not an unsigned integer", r->op_name, c->args[i].key);
		return false;
	}
	return true;
}

static bool opt_u32(struct replay *r, json_t *opts, const char *key, uint32_t *out)
{
	json_t *v = json_object_get(opts, key);
	if (v && !json_u32(v, out)) {
		set_err(r, "%s: option %s is not an unsigned integer", r->op_name, key);
		return false;
	}
	return true;
}

/* A variable-length list option (axes, strides): *present tells absent from empty. */
static bool opt_list(struct replay *r, json_t *opts, const char *key, uint32_t *out,
		     uint32_t max, uint32_t *n, bool *present)
{
	json_t *v = json_object_get(opts, key);
	*n = 0;
	*present = v != NULL;
	return !v || u32_array(r, v, key, out, max, n);
}

static bool opt_data_type(struct replay *r, json_t *opts, const char *key,
			  enum webnn_data_type *out)
{
	json_t *v = json_object_get(opts, key);
	if (v && !parse_dtype(json_string_value(v), out)) {
		set_err(r, "%s: option %s: data type %s not supported by libwebnn", r->op_name, key,
			json_is_string(v) ? json_string_value(v) : "?");
		r->skip = true;
		return false;
	}
	return true;
}

typedef enum webnn_status (*arg_min_max_fn)(struct webnn_builder *, struct webnn_operand *,
					    uint32_t, const struct webnn_arg_min_max_options *,
					    struct webnn_operand **);

static bool do_arg_min_max(struct replay *r, struct op_call *c, arg_min_max_fn fn)
{
	static const char *const known[] = { "keepDimensions", "outputDataType", NULL };
	struct webnn_arg_min_max_options o = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
	uint32_t axis;
	if (!want_args(r, c, 1, 2) || !check_options(r, c->options, known) ||
	    !arg_u32(r, c, 1, &axis) ||
	    !opt_bool(r, c->options, "keepDimensions", &o.keep_dimensions) ||
	    !opt_data_type(r, c->options, "outputDataType", &o.output_data_type))
		return false;
	return built(r, fn(r->b, c->args[0].op, axis, &o, &c->out));
}

static bool do_arg_min(struct replay *r, struct op_call *c)
{
	return do_arg_min_max(r, c, webnn_builder_arg_min);
}
static bool do_arg_max(struct replay *r, struct op_call *c)
{
	return do_arg_min_max(r, c, webnn_builder_arg_max);
}

static bool do_cast(struct replay *r, struct op_call *c)
{
	enum webnn_data_type t;
	if (!want_args(r, c, 1, 2) || !check_options(r, c->options, no_options))
		return false;
	if (!parse_dtype(json_string_value(c->args[1].value), &t)) {
		set_err(r, "cast: data type %s not supported by libwebnn",
			json_is_string(c->args[1].value) ? json_string_value(c->args[1].value)
							 : "?");
		r->skip = true;
		return false;
	}
	return built(r, webnn_builder_cast(r->b, c->args[0].op, t, &c->out));
}

static bool do_cumulative_sum(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "exclusive", "reversed", NULL };
	struct webnn_cumulative_sum_options o = WEBNN_CUMULATIVE_SUM_OPTIONS_INIT;
	uint32_t axis;
	if (!want_args(r, c, 1, 2) || !check_options(r, c->options, known) ||
	    !arg_u32(r, c, 1, &axis) || !opt_bool(r, c->options, "exclusive", &o.exclusive) ||
	    !opt_bool(r, c->options, "reversed", &o.reversed))
		return false;
	return built(r, webnn_builder_cumulative_sum(r->b, c->args[0].op, axis, &o, &c->out));
}

static bool do_conv_transpose2d(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "padding", "strides", "dilations", "outputPadding",
					     "outputSizes", "groups", "inputLayout",
					     "filterLayout", "bias", NULL };
	static const char *const filter_layouts[] = { "iohw", "hwoi", "ohwi", NULL };
	struct webnn_conv_transpose2d_options o = WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
	int il = (int)o.input_layout, fl = (int)o.filter_layout;
	if (!want_args(r, c, 2, 2) || !check_options(r, c->options, known) ||
	    !opt_u32_array(r, c->options, "padding", o.padding, 4, &o.n_padding) ||
	    !opt_u32_array(r, c->options, "strides", o.strides, 2, &o.n_strides) ||
	    !opt_u32_array(r, c->options, "dilations", o.dilations, 2, &o.n_dilations) ||
	    !opt_u32_array(r, c->options, "outputPadding", o.output_padding, 2,
			   &o.n_output_padding) ||
	    !opt_u32_array(r, c->options, "outputSizes", o.output_sizes, 2, &o.n_output_sizes) ||
	    !opt_u32(r, c->options, "groups", &o.groups) ||
	    !opt_enum(r, c->options, "inputLayout", layouts, &il) ||
	    !opt_enum(r, c->options, "filterLayout", filter_layouts, &fl) ||
	    !opt_operand(r, c->options, "bias", &o.bias))
		return false;
	o.input_layout = (enum webnn_layout)il;
	o.filter_layout = (enum webnn_conv_transpose2d_filter_layout)fl;
	return built(r, webnn_builder_conv_transpose2d(r->b, c->args[0].op, c->args[1].op, &o,
						       &c->out));
}

typedef enum webnn_status (*ternary_fn)(struct webnn_builder *, struct webnn_operand *,
					struct webnn_operand *, struct webnn_operand *,
					struct webnn_operand **);

static bool do_ternary(struct replay *r, struct op_call *c, ternary_fn fn)
{
	if (!want_args(r, c, 3, 3) || !check_options(r, c->options, no_options))
		return false;
	return built(r, fn(r->b, c->args[0].op, c->args[1].op, c->args[2].op, &c->out));
}

static bool do_quantize_linear(struct replay *r, struct op_call *c)
{
	return do_ternary(r, c, webnn_builder_quantize_linear);
}
static bool do_dequantize_linear(struct replay *r, struct op_call *c)
{
	return do_ternary(r, c, webnn_builder_dequantize_linear);
}
static bool do_scatter_nd(struct replay *r, struct op_call *c)
{
	return do_ternary(r, c, webnn_builder_scatter_nd);
}
static bool do_where(struct replay *r, struct op_call *c)
{
	return do_ternary(r, c, webnn_builder_where);
}
static bool do_prelu(struct replay *r, struct op_call *c)
{
	return do_binary(r, c, webnn_builder_prelu);
}
static bool do_gather_nd(struct replay *r, struct op_call *c)
{
	return do_binary(r, c, webnn_builder_gather_nd);
}

typedef enum webnn_status (*shape_fn)(struct webnn_builder *, struct webnn_operand *,
				      const uint32_t *, uint32_t, struct webnn_operand **);

static bool do_shape_op(struct replay *r, struct op_call *c, shape_fn fn)
{
	uint32_t shape[WEBNN_MAX_RANK], n;
	if (!want_args(r, c, 1, 2) || !check_options(r, c->options, no_options) ||
	    !u32_array(r, c->args[1].value, c->args[1].key, shape, WEBNN_MAX_RANK, &n))
		return false;
	return built(r, fn(r->b, c->args[0].op, shape, n, &c->out));
}

static bool do_expand(struct replay *r, struct op_call *c)
{
	return do_shape_op(r, c, webnn_builder_expand);
}
static bool do_tile(struct replay *r, struct op_call *c)
{
	return do_shape_op(r, c, webnn_builder_tile);
}

typedef enum webnn_status (*gather_fn)(struct webnn_builder *, struct webnn_operand *,
				       struct webnn_operand *, const struct webnn_gather_options *,
				       struct webnn_operand **);

static bool do_gather_axis(struct replay *r, struct op_call *c, gather_fn fn)
{
	static const char *const known[] = { "axis", NULL };
	struct webnn_gather_options o = WEBNN_GATHER_OPTIONS_INIT;
	if (!want_args(r, c, 2, 2) || !check_options(r, c->options, known) ||
	    !opt_u32(r, c->options, "axis", &o.axis))
		return false;
	return built(r, fn(r->b, c->args[0].op, c->args[1].op, &o, &c->out));
}

static bool do_gather(struct replay *r, struct op_call *c)
{
	return do_gather_axis(r, c, webnn_builder_gather);
}
static bool do_gather_elements(struct replay *r, struct op_call *c)
{
	return do_gather_axis(r, c, webnn_builder_gather_elements);
}

static bool do_scatter_elements(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "axis", NULL };
	struct webnn_scatter_options o = WEBNN_SCATTER_OPTIONS_INIT;
	if (!want_args(r, c, 3, 3) || !check_options(r, c->options, known) ||
	    !opt_u32(r, c->options, "axis", &o.axis))
		return false;
	return built(r, webnn_builder_scatter_elements(r->b, c->args[0].op, c->args[1].op,
						       c->args[2].op, &o, &c->out));
}

static const char *const directions[] = { "forward", "backward", "both", NULL };

/* options.activations: a list of "relu" / "sigmoid" / "tanh" of at most max items. */
static bool opt_activations(struct replay *r, json_t *opts,
			    enum webnn_recurrent_activation *out, uint32_t max, uint32_t *n)
{
	static const char *const names[] = { "relu", "sigmoid", "tanh", NULL };
	json_t *v = json_object_get(opts, "activations");
	*n = 0;
	if (!v)
		return true;
	if (!json_is_array(v) || json_array_size(v) > max) {
		set_err(r, "%s: option activations must be a list of at most %u names", r->op_name,
			max);
		return false;
	}
	for (size_t i = 0; i < json_array_size(v); i++) {
		const char *s = json_string_value(json_array_get(v, i));
		int k = 0;
		while (s && names[k] && strcmp(names[k], s) != 0)
			k++;
		if (!s || !names[k]) {
			set_err(r, "%s: activations[%zu] is not relu, sigmoid or tanh", r->op_name, i);
			return false;
		}
		out[i] = (enum webnn_recurrent_activation)k;
	}
	*n = (uint32_t)json_array_size(v);
	return true;
}

static const char *const gru_layouts[] = { "zrn", "rzn", NULL };

static bool do_gru(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "bias", "recurrentBias", "initialHiddenState",
					     "resetAfter", "returnSequence", "direction",
					     "layout", "activations", NULL };
	struct webnn_gru_options o = WEBNN_GRU_OPTIONS_INIT;
	int dir = (int)o.direction, layout = (int)o.layout;
	uint32_t steps, hidden;
	if (!want_args(r, c, 3, 5) || !check_options(r, c->options, known) ||
	    !arg_u32(r, c, 3, &steps) || !arg_u32(r, c, 4, &hidden) ||
	    !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_operand(r, c->options, "recurrentBias", &o.recurrent_bias) ||
	    !opt_operand(r, c->options, "initialHiddenState", &o.initial_hidden_state) ||
	    !opt_bool(r, c->options, "resetAfter", &o.reset_after) ||
	    !opt_bool(r, c->options, "returnSequence", &o.return_sequence) ||
	    !opt_enum(r, c->options, "direction", directions, &dir) ||
	    !opt_enum(r, c->options, "layout", gru_layouts, &layout) ||
	    !opt_activations(r, c->options, o.activations, 2, &o.n_activations))
		return false;
	o.direction = (enum webnn_recurrent_direction)dir;
	o.layout = (enum webnn_gru_weight_layout)layout;
	return built(r, webnn_builder_gru(r->b, c->args[0].op, c->args[1].op, c->args[2].op,
					  steps, hidden, &o, c->outs, MAX_OUTS, &c->n_outs));
}

static bool do_gru_cell(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "bias", "recurrentBias", "resetAfter", "layout",
					     "activations", NULL };
	struct webnn_gru_cell_options o = WEBNN_GRU_CELL_OPTIONS_INIT;
	int layout = (int)o.layout;
	uint32_t hidden;
	if (!want_args(r, c, 4, 5) || !check_options(r, c->options, known) ||
	    !arg_u32(r, c, 4, &hidden) || !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_operand(r, c->options, "recurrentBias", &o.recurrent_bias) ||
	    !opt_bool(r, c->options, "resetAfter", &o.reset_after) ||
	    !opt_enum(r, c->options, "layout", gru_layouts, &layout) ||
	    !opt_activations(r, c->options, o.activations, 2, &o.n_activations))
		return false;
	o.layout = (enum webnn_gru_weight_layout)layout;
	return built(r, webnn_builder_gru_cell(r->b, c->args[0].op, c->args[1].op, c->args[2].op,
					       c->args[3].op, hidden, &o, &c->out));
}

static const char *const lstm_layouts[] = { "iofg", "ifgo", NULL };

static bool do_lstm(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "bias", "recurrentBias", "peepholeWeight",
					     "initialHiddenState", "initialCellState",
					     "returnSequence", "direction", "layout",
					     "activations", NULL };
	struct webnn_lstm_options o = WEBNN_LSTM_OPTIONS_INIT;
	int dir = (int)o.direction, layout = (int)o.layout;
	uint32_t steps, hidden;
	if (!want_args(r, c, 3, 5) || !check_options(r, c->options, known) ||
	    !arg_u32(r, c, 3, &steps) || !arg_u32(r, c, 4, &hidden) ||
	    !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_operand(r, c->options, "recurrentBias", &o.recurrent_bias) ||
	    !opt_operand(r, c->options, "peepholeWeight", &o.peephole_weight) ||
	    !opt_operand(r, c->options, "initialHiddenState", &o.initial_hidden_state) ||
	    !opt_operand(r, c->options, "initialCellState", &o.initial_cell_state) ||
	    !opt_bool(r, c->options, "returnSequence", &o.return_sequence) ||
	    !opt_enum(r, c->options, "direction", directions, &dir) ||
	    !opt_enum(r, c->options, "layout", lstm_layouts, &layout) ||
	    !opt_activations(r, c->options, o.activations, 3, &o.n_activations))
		return false;
	o.direction = (enum webnn_recurrent_direction)dir;
	o.layout = (enum webnn_lstm_weight_layout)layout;
	return built(r, webnn_builder_lstm(r->b, c->args[0].op, c->args[1].op, c->args[2].op,
					   steps, hidden, &o, c->outs, MAX_OUTS, &c->n_outs));
}

static bool do_lstm_cell(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "bias", "recurrentBias", "peepholeWeight", "layout",
					     "activations", NULL };
	struct webnn_lstm_cell_options o = WEBNN_LSTM_CELL_OPTIONS_INIT;
	int layout = (int)o.layout;
	uint32_t hidden;
	if (!want_args(r, c, 5, 6) || !check_options(r, c->options, known) ||
	    !arg_u32(r, c, 5, &hidden) || !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_operand(r, c->options, "recurrentBias", &o.recurrent_bias) ||
	    !opt_operand(r, c->options, "peepholeWeight", &o.peephole_weight) ||
	    !opt_enum(r, c->options, "layout", lstm_layouts, &layout) ||
	    !opt_activations(r, c->options, o.activations, 3, &o.n_activations))
		return false;
	o.layout = (enum webnn_lstm_weight_layout)layout;
	return built(r, webnn_builder_lstm_cell(r->b, c->args[0].op, c->args[1].op,
						c->args[2].op, c->args[3].op, c->args[4].op, hidden,
						&o, c->outs, MAX_OUTS, &c->n_outs));
}

static bool do_instance_normalization(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "scale", "bias", "epsilon", "layout", NULL };
	struct webnn_instance_normalization_options o = WEBNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
	int layout = (int)o.layout;
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_operand(r, c->options, "scale", &o.scale) ||
	    !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_double(r, c->options, "epsilon", &o.epsilon, NULL) ||
	    !opt_enum(r, c->options, "layout", layouts, &layout))
		return false;
	o.layout = (enum webnn_layout)layout;
	return built(r, webnn_builder_instance_normalization(r->b, c->args[0].op, &o, &c->out));
}

static bool do_layer_normalization(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "scale", "bias", "axes", "epsilon", NULL };
	struct webnn_layer_normalization_options o = WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT;
	uint32_t axes[WEBNN_MAX_RANK];
	bool has_axes;
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_operand(r, c->options, "scale", &o.scale) ||
	    !opt_operand(r, c->options, "bias", &o.bias) ||
	    !opt_list(r, c->options, "axes", axes, WEBNN_MAX_RANK, &o.n_axes, &has_axes) ||
	    !opt_double(r, c->options, "epsilon", &o.epsilon, NULL))
		return false;
	o.axes = has_axes ? axes : NULL;
	return built(r, webnn_builder_layer_normalization(r->b, c->args[0].op, &o, &c->out));
}

static bool do_pad(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "mode", "value", NULL };
	static const char *const modes[] = { "constant", "edge", "reflection", NULL };
	struct webnn_pad_options o = WEBNN_PAD_OPTIONS_INIT;
	uint32_t begin[WEBNN_MAX_RANK], end[WEBNN_MAX_RANK], nb, ne;
	int mode = (int)o.mode;
	if (!want_args(r, c, 1, 3) || !check_options(r, c->options, known) ||
	    !u32_array(r, c->args[1].value, "beginningPadding", begin, WEBNN_MAX_RANK, &nb) ||
	    !u32_array(r, c->args[2].value, "endingPadding", end, WEBNN_MAX_RANK, &ne) ||
	    !opt_enum(r, c->options, "mode", modes, &mode) ||
	    !opt_number(r, c->options, "value", &o.value_number))
		return false;
	o.mode = (enum webnn_padding_mode)mode;
	return built(r, webnn_builder_pad(r->b, c->args[0].op, begin, nb, end, ne, &o, &c->out));
}

typedef enum webnn_status (*reduce_fn)(struct webnn_builder *, struct webnn_operand *,
				       const struct webnn_reduce_options *,
				       struct webnn_operand **);

static bool do_reduce(struct replay *r, struct op_call *c, reduce_fn fn)
{
	static const char *const known[] = { "axes", "keepDimensions", NULL };
	struct webnn_reduce_options o = WEBNN_REDUCE_OPTIONS_INIT;
	uint32_t axes[WEBNN_MAX_RANK];
	bool has_axes;
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_list(r, c->options, "axes", axes, WEBNN_MAX_RANK, &o.n_axes, &has_axes) ||
	    !opt_bool(r, c->options, "keepDimensions", &o.keep_dimensions))
		return false;
	o.axes = has_axes ? axes : NULL;
	return built(r, fn(r->b, c->args[0].op, &o, &c->out));
}

#define REDUCE_DO_(name)                                                                       \
	static bool do_##name(struct replay *r, struct op_call *c)                             \
	{                                                                                      \
		return do_reduce(r, c, webnn_builder_##name);                                  \
	}
WEBNN_REDUCE_OPS(REDUCE_DO_)
#undef REDUCE_DO_

static bool do_resample2d(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "mode", "scales", "sizes", "axes", NULL };
	static const char *const modes[] = { "nearest-neighbor", "linear", NULL };
	struct webnn_resample2d_options o = WEBNN_RESAMPLE2D_OPTIONS_INIT;
	int mode = (int)o.mode;
	bool present;
	json_t *scales = json_object_get(c->options, "scales");
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_enum(r, c->options, "mode", modes, &mode) ||
	    !opt_list(r, c->options, "sizes", o.sizes, 2, &o.n_sizes, &present) ||
	    !opt_list(r, c->options, "axes", o.axes, 2, &o.n_axes, &present))
		return false;
	if (scales) {
		if (!json_is_array(scales) || json_array_size(scales) > 2) {
			set_err(r, "resample2d: option scales must be a list of at most 2 numbers");
			return false;
		}
		for (size_t i = 0; i < json_array_size(scales); i++) {
			double d;
			if (!json_to_double(json_array_get(scales, i), &d)) {
				set_err(r, "resample2d: scales[%zu] is not a number", i);
				return false;
			}
			o.scales[i] = (float)d;
		}
		o.n_scales = (uint32_t)json_array_size(scales);
	}
	o.mode = (enum webnn_interpolation_mode)mode;
	return built(r, webnn_builder_resample2d(r->b, c->args[0].op, &o, &c->out));
}

static bool do_reverse(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "axes", NULL };
	struct webnn_reverse_options o = WEBNN_REVERSE_OPTIONS_INIT;
	uint32_t axes[WEBNN_MAX_RANK];
	bool has_axes;
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_list(r, c->options, "axes", axes, WEBNN_MAX_RANK, &o.n_axes, &has_axes))
		return false;
	o.axes = has_axes ? axes : NULL;
	return built(r, webnn_builder_reverse(r->b, c->args[0].op, &o, &c->out));
}

static bool do_slice(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "strides", NULL };
	struct webnn_slice_options o = WEBNN_SLICE_OPTIONS_INIT;
	uint32_t starts[WEBNN_MAX_RANK], sizes[WEBNN_MAX_RANK], strides[WEBNN_MAX_RANK], ns, nz;
	bool has_strides;
	if (!want_args(r, c, 1, 3) || !check_options(r, c->options, known) ||
	    !u32_array(r, c->args[1].value, "starts", starts, WEBNN_MAX_RANK, &ns) ||
	    !u32_array(r, c->args[2].value, "sizes", sizes, WEBNN_MAX_RANK, &nz) ||
	    !opt_list(r, c->options, "strides", strides, WEBNN_MAX_RANK, &o.n_strides,
		      &has_strides))
		return false;
	o.strides = has_strides ? strides : NULL;
	return built(r, webnn_builder_slice(r->b, c->args[0].op, starts, ns, sizes, nz, &o,
					    &c->out));
}

static bool do_split(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "axis", NULL };
	struct webnn_split_options o = WEBNN_SPLIT_OPTIONS_INIT;
	uint32_t sizes[MAX_OUTS], n, count;
	json_t *splits = c->args[1].value;
	if (!want_args(r, c, 1, 2) || !check_options(r, c->options, known) ||
	    !opt_u32(r, c->options, "axis", &o.axis))
		return false;
	if (json_is_array(splits)) {
		if (!u32_array(r, splits, "splits", sizes, MAX_OUTS, &n))
			return false;
		return built(r, webnn_builder_split_sizes(r->b, c->args[0].op, sizes, n, &o,
							  c->outs, MAX_OUTS, &c->n_outs));
	}
	if (!arg_u32(r, c, 1, &count))
		return false;
	return built(r, webnn_builder_split(r->b, c->args[0].op, count, &o, c->outs, MAX_OUTS,
					    &c->n_outs));
}

static bool do_triangular(struct replay *r, struct op_call *c)
{
	static const char *const known[] = { "upper", "diagonal", NULL };
	struct webnn_triangular_options o = WEBNN_TRIANGULAR_OPTIONS_INIT;
	json_t *diag = json_object_get(c->options, "diagonal");
	if (!want_args(r, c, 1, 1) || !check_options(r, c->options, known) ||
	    !opt_bool(r, c->options, "upper", &o.upper))
		return false;
	if (diag) {
		double d = json_number_value(diag);
		if (!json_is_number(diag) || d != floor(d) || d < INT32_MIN || d > INT32_MAX) {
			set_err(r, "triangular: option diagonal is not a 32-bit integer");
			return false;
		}
		o.diagonal = (int32_t)d;
	}
	return built(r, webnn_builder_triangular(r->b, c->args[0].op, &o, &c->out));
}

/* MLGraphBuilder method name -> how to build it. Unary/binary rows come from webnn.h's lists,
 * so a new elementwise operator there is picked up here without another edit. */
struct op_entry {
	const char *c_name; /* webnn_builder_<c_name> */
	bool (*fn)(struct replay *, struct op_call *);
	unary_fn unary;
	binary_fn binary;
};

static const struct op_entry op_table[] = {
#define UNARY_ROW_(name) { #name, NULL, webnn_builder_##name, NULL },
#define BINARY_ROW_(name) { #name, NULL, NULL, webnn_builder_##name },
	WEBNN_UNARY_OPS(UNARY_ROW_) WEBNN_BINARY_OPS(BINARY_ROW_)
#undef UNARY_ROW_
#undef BINARY_ROW_
/* Operators with options have a do_<name> parser named after the operator. */
#define DO_ROW_(name) { #name, do_##name, NULL, NULL },
	DO_ROW_(elu)
	DO_ROW_(leaky_relu)
	DO_ROW_(hard_sigmoid)
	DO_ROW_(linear)
	DO_ROW_(clamp)
	DO_ROW_(softmax)
	DO_ROW_(conv2d)
	DO_ROW_(average_pool2d)
	DO_ROW_(l2_pool2d)
	DO_ROW_(max_pool2d)
	DO_ROW_(gemm)
	DO_ROW_(matmul)
	DO_ROW_(reshape)
	DO_ROW_(transpose)
	DO_ROW_(concat)
	DO_ROW_(batch_normalization)
	DO_ROW_(arg_min)
	DO_ROW_(arg_max)
	DO_ROW_(cast)
	DO_ROW_(cumulative_sum)
	DO_ROW_(conv_transpose2d)
	DO_ROW_(quantize_linear)
	DO_ROW_(dequantize_linear)
	DO_ROW_(expand)
	DO_ROW_(gather)
	DO_ROW_(gather_elements)
	DO_ROW_(gather_nd)
	DO_ROW_(scatter_elements)
	DO_ROW_(scatter_nd)
	DO_ROW_(gru)
	DO_ROW_(gru_cell)
	DO_ROW_(lstm)
	DO_ROW_(lstm_cell)
	DO_ROW_(instance_normalization)
	DO_ROW_(layer_normalization)
	DO_ROW_(pad)
	DO_ROW_(prelu)
	WEBNN_REDUCE_OPS(DO_ROW_)
	DO_ROW_(resample2d)
	DO_ROW_(reverse)
	DO_ROW_(slice)
	DO_ROW_(split)
	DO_ROW_(tile)
	DO_ROW_(triangular)
	DO_ROW_(where)
#undef DO_ROW_
};

/* "greaterOrEqual" -> "greater_or_equal"; the acronyms: "isNaN" -> "is_nan",
 * "gatherND" -> "gather_nd", "scatterND" -> "scatter_nd". */
static void method_to_c_name(const char *m, char *out, size_t len)
{
	static const char *const acronyms[][2] = {
		{ "isNaN", "is_nan" }, { "gatherND", "gather_nd" }, { "scatterND", "scatter_nd" }
	};
	size_t o = 0;
	for (size_t i = 0; i < sizeof(acronyms) / sizeof(acronyms[0]); i++)
		if (strcmp(m, acronyms[i][0]) == 0) {
			snprintf(out, len, "%s", acronyms[i][1]);
			return;
		}
	for (; *m && o + 2 < len; m++) {
		if (isupper((unsigned char)*m)) {
			out[o++] = '_';
			out[o++] = (char)tolower((unsigned char)*m);
		} else {
			out[o++] = *m;
		}
	}
	out[o] = 0;
}

static const struct op_entry *find_op(const char *method)
{
	char c_name[64];
	method_to_c_name(method, c_name, sizeof(c_name));
	for (size_t i = 0; i < sizeof(op_table) / sizeof(op_table[0]); i++)
		if (strcmp(op_table[i].c_name, c_name) == 0)
			return &op_table[i];
	return NULL;
}

/* Whether opSupportLimits names the operator at all. */
static bool context_lists_op(struct webnn_context *ctx, const char *method)
{
	const char *op, *role;
	struct webnn_tensor_limits l;
	for (size_t i = 0; webnn_context_op_limit_at(ctx, i, &op, &role, &l); i++)
		if (strcmp(op, method) == 0)
			return true;
	return false;
}

/* ---------------------------------------------------------------- one operator */

static bool type_in(uint32_t mask, enum webnn_data_type t)
{
	return (mask >> t) & 1u;
}

/* Optional cases run only where opSupportLimits admits their operands (WPT skips them there);
 * a required case is never skipped this way, so an unsupported required type is a failure. */
static bool check_role(struct replay *r, const char *op, const char *role,
		       struct webnn_operand *operand)
{
	struct webnn_tensor_limits l;
	struct webnn_operand_desc d;
	if (!webnn_context_op_limits(r->ctx, op, role, &l))
		return true;
	webnn_operand_get_desc(operand, &d);
	if (!type_in(l.data_types, d.data_type) || d.rank < l.min_rank || d.rank > l.max_rank) {
		set_err(r, "%s %s %s rank %u not in opSupportLimits", op, role,
			webnn_data_type_name(d.data_type), d.rank);
		r->skip = true;
		return false;
	}
	return true;
}

static bool build_operator(struct replay *r, json_t *oper, bool optional)
{
	const char *method = json_string_value(json_object_get(oper, "name"));
	json_t *args = json_object_get(oper, "arguments"), *outs = json_object_get(oper, "outputs");
	struct op_call c = { .n_args = 0 };
	json_t *empty = json_object();
	bool ok = false;
	r->op_name = method;
	c.options = empty;
	if (!method || !json_is_array(args)) {
		set_err(r, "operator without name or arguments");
		goto out;
	}
	const struct op_entry *e = find_op(method);
	if (!e) {
		set_err(r, "%s: libwebnn has no such builder operator", method);
		r->skip = true;
		goto out;
	}
	for (size_t i = 0; i < json_array_size(args); i++) {
		json_t *a = json_array_get(args, i);
		const char *key;
		json_t *v;
		json_object_foreach(a, key, v) {
			if (strcmp(key, "options") == 0) {
				if (!json_is_object(v)) {
					set_err(r, "%s: options is not an object", method);
					goto out;
				}
				c.options = v;
				continue;
			}
			if (c.n_args == MAX_ARGS) {
				set_err(r, "%s: too many arguments", method);
				goto out;
			}
			bool error;
			struct arg *ar = &c.args[c.n_args++];
			ar->key = key;
			ar->value = v;
			ar->op = resolve(r, v, &error);
			if (error)
				goto out;
			if (ar->op && optional && !check_role(r, method, key, ar->op))
				goto out;
		}
	}
	if (optional) {
		static const char *const roles[] = { "bias", "c", "scale", NULL };
		for (size_t i = 0; roles[i]; i++) {
			struct webnn_operand *op;
			if (json_is_string(json_object_get(c.options, roles[i])) &&
			    (!opt_operand(r, c.options, roles[i], &op) ||
			     (op && !check_role(r, method, roles[i], op))))
				goto out;
		}
	}
	/* MLOperatorOptions.label travels with the operation and names it in errors. */
	json_t *label = json_object_get(c.options, "label");
	if (json_is_string(label) &&
	    !built(r, webnn_builder_set_next_label(r->b, json_string_value(label))))
		goto out;
	if (e->fn)
		ok = e->fn(r, &c);
	else if (e->unary)
		ok = do_unary(r, &c, e->unary);
	else
		ok = do_binary(r, &c, e->binary);
	if (!ok)
		goto out;
	if (c.n_outs) {
		/* A sequence: outputs lists its results by position. */
		if (!json_is_array(outs) || json_array_size(outs) != c.n_outs) {
			set_err(r, "%s: returns %zu operands, outputs names %zu", method, c.n_outs,
				json_is_array(outs) ? json_array_size(outs) : (size_t)1);
			ok = false;
			goto out;
		}
		for (size_t i = 0; i < c.n_outs && ok; i++) {
			const char *name = json_string_value(json_array_get(outs, i));
			char role[32];
			snprintf(role, sizeof(role), "output%zu", i);
			if (!name) {
				set_err(r, "%s: outputs[%zu] is not a name", method, i);
				ok = false;
			} else if (optional && (!check_role(r, method, role, c.outs[i]) ||
						!check_role(r, method, "outputs", c.outs[i]))) {
				ok = false;
			} else {
				ok = add_name(r, name, c.outs[i]);
			}
		}
		goto out;
	}
	if (optional && !check_role(r, method, "output", c.out)) {
		ok = false;
		goto out;
	}
	const char *out_name = json_is_string(outs) ? json_string_value(outs)
			       : json_string_value(json_array_get(outs, 0));
	if (!out_name || (json_is_array(outs) && json_array_size(outs) != 1)) {
		set_err(r, "%s: outputs must name one operand", method);
		ok = false;
		goto out;
	}
	ok = add_name(r, out_name, c.out);
out:
	json_decref(empty);
	return ok;
}

/* ---------------------------------------------------------------- comparison */

static int64_t f32_key(float x)
{
	uint32_t b;
	float a = fabsf(x);
	memcpy(&b, &a, sizeof(b));
	return x < 0 ? -(int64_t)b : (int64_t)b;
}

/* Reads element i of a typed buffer: as a double, and exactly for integer types. */
struct elem {
	double d;
	int64_t s;
	uint64_t u;
	bool is_unsigned;
};

static struct elem load_elem(const void *buf, enum webnn_data_type t, size_t i)
{
	struct elem e = { 0 };
	switch (t) {
	case WEBNN_FLOAT32: e.d = ((const float *)buf)[i]; break;
	case WEBNN_FLOAT16: e.d = half_to_double(((const uint16_t *)buf)[i]); break;
	case WEBNN_INT32: e.s = ((const int32_t *)buf)[i]; break;
	case WEBNN_UINT32: e.u = ((const uint32_t *)buf)[i]; e.is_unsigned = true; break;
	case WEBNN_INT64: e.s = ((const int64_t *)buf)[i]; break;
	case WEBNN_UINT64: e.u = ((const uint64_t *)buf)[i]; e.is_unsigned = true; break;
	case WEBNN_INT8: e.s = ((const int8_t *)buf)[i]; break;
	case WEBNN_UINT8: e.u = ((const uint8_t *)buf)[i]; e.is_unsigned = true; break;
	}
	if (!is_float_type(t))
		e.d = e.is_unsigned ? (double)e.u : (double)e.s;
	return e;
}

static void format_elem(const void *buf, enum webnn_data_type t, size_t i, char *s, size_t len)
{
	struct elem e = load_elem(buf, t, i);
	if (t == WEBNN_FLOAT16)
		snprintf(s, len, "%.9g (0x%04x)", e.d, ((const uint16_t *)buf)[i]);
	else if (is_float_type(t))
		snprintf(s, len, "%.9g", e.d);
	else if (e.is_unsigned)
		snprintf(s, len, "%" PRIu64, e.u);
	else
		snprintf(s, len, "%" PRId64, e.s);
}

struct tolerance {
	bool atol;
	double value;
};

/* Compares one output; on mismatch writes the first bad element into r->err. Prints up to
 * a few more mismatches when verbose. */
static bool compare_output(struct replay *r, const char *name, json_t *expected,
			   const struct webnn_operand_desc *d, const void *actual,
			   struct tolerance tol, bool verbose)
{
	enum webnn_data_type t = d->data_type;
	bool f16 = t == WEBNN_FLOAT16;
	json_t *data = json_object_get(expected, f16 && !tol.atol ? "float16Bits" : "data");
	size_t n = desc_elements(d);
	if (!data) {
		set_err(r, "output %s: no expected data", name);
		return false;
	}
	if (json_is_array(data) && json_array_size(data) != n) {
		set_err(r, "output %s: %zu expected values for %zu elements", name,
			json_array_size(data), n);
		return false;
	}
	if (!json_is_array(data) && n > SCALAR_COMPARE_LIMIT)
		n = SCALAR_COMPARE_LIMIT;
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *ev = json_is_array(data) ? json_array_get(data, i) : data;
		struct elem a = load_elem(actual, t, i);
		bool pass;
		double dist = 0;
		char exp_s[64];
		if (tol.atol) {
			double e;
			if (!json_to_double(ev, &e)) {
				set_err(r, "output %s: expected[%zu] is not a number", name, i);
				return false;
			}
			dist = fabs(a.d - e);
			pass = !isnan(a.d) && !isnan(e) && dist <= tol.value;
			snprintf(exp_s, sizeof(exp_s), "%.9g", e);
		} else if (t == WEBNN_FLOAT32) {
			double e;
			if (!json_to_double(ev, &e)) {
				set_err(r, "output %s: expected[%zu] is not a number", name, i);
				return false;
			}
			float ef = (float)e, af = (float)a.d;
			if (isnan(ef) || isnan(af))
				pass = isnan(ef) && isnan(af);
			else if (af == ef)
				pass = true;
			else {
				dist = fabs((double)(f32_key(af) - f32_key(ef)));
				pass = dist <= tol.value;
			}
			if (isnan(ef) != isnan(af))
				dist = INFINITY;
			snprintf(exp_s, sizeof(exp_s), "%.9g", (double)ef);
		} else if (f16) {
			uint16_t ab = ((const uint16_t *)actual)[i];
			if (!json_is_number(ev)) {
				set_err(r, "output %s: expected float16Bits[%zu] is not a number",
					name, i);
				return false;
			}
			uint16_t eb = (uint16_t)json_number_value(ev);
			dist = fabs((double)ab - (double)eb);
			pass = ((ab & 0x7fff) == 0 && (eb & 0x7fff) == 0) || dist <= tol.value;
			snprintf(exp_s, sizeof(exp_s), "%.9g (0x%04x)", half_to_double(eb), eb);
		} else {
			uint64_t diff;
			if (a.is_unsigned) {
				uint64_t e;
				if (!json_to_u64(ev, &e)) {
					set_err(r, "output %s: expected[%zu] is not a %s", name, i,
						webnn_data_type_name(t));
					return false;
				}
				diff = a.u > e ? a.u - e : e - a.u;
				snprintf(exp_s, sizeof(exp_s), "%" PRIu64, e);
			} else {
				int64_t e;
				if (!json_to_i64(ev, &e)) {
					set_err(r, "output %s: expected[%zu] is not a %s", name, i,
						webnn_data_type_name(t));
					return false;
				}
				diff = a.s > e ? (uint64_t)a.s - (uint64_t)e
					       : (uint64_t)e - (uint64_t)a.s;
				snprintf(exp_s, sizeof(exp_s), "%" PRId64, e);
			}
			dist = (double)diff;
			pass = diff <= (uint64_t)tol.value;
		}
		if (pass)
			continue;
		char act_s[64];
		format_elem(actual, t, i, act_s, sizeof(act_s));
		if (bad == 0)
			set_err(r, "output %s[%zu] = %s, expected %s (%s distance %g > %g)", name, i,
				act_s, exp_s, tol.atol ? "absolute" : "ULP", dist, tol.value);
		if (verbose && bad < 8)
			fprintf(stderr, "  mismatch %s[%zu]: actual %s expected %s distance %g\n",
				name, i, act_s, exp_s, dist);
		bad++;
	}
	if (bad && verbose)
		fprintf(stderr, "  %zu of %zu elements of %s out of tolerance\n", bad, n, name);
	return bad == 0;
}

/* ---------------------------------------------------------------- printing outputs */

static json_t *elem_json(const void *buf, enum webnn_data_type t, size_t i)
{
	struct elem e = load_elem(buf, t, i);
	if (is_float_type(t)) {
		if (isnan(e.d))
			return json_string("NaN");
		if (isinf(e.d))
			return json_string(e.d > 0 ? "Infinity" : "-Infinity");
		return json_real(e.d);
	}
	char s[32];
	if (e.is_unsigned) {
		if (e.u <= 9007199254740991ull)
			return json_integer((json_int_t)e.u);
		snprintf(s, sizeof(s), "%" PRIu64, e.u);
		return json_string(s);
	}
	if (e.s >= -9007199254740991ll && e.s <= 9007199254740991ll)
		return json_integer((json_int_t)e.s);
	snprintf(s, sizeof(s), "%" PRId64, e.s);
	return json_string(s);
}

static json_t *output_json(const struct webnn_operand_desc *d, const void *buf)
{
	json_t *o = json_object(), *shape = json_array(), *data = json_array();
	for (uint32_t i = 0; i < d->rank; i++)
		json_array_append_new(shape, json_integer(d->shape[i]));
	json_object_set_new(o, "descriptor",
			    json_pack("{s:s, s:o}", "dataType", webnn_data_type_name(d->data_type),
				      "shape", shape));
	size_t n = desc_elements(d);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(data, elem_json(buf, d->data_type, i));
	json_object_set_new(o, "data", data);
	if (d->data_type == WEBNN_FLOAT16) {
		json_t *bits = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(bits, json_integer(((const uint16_t *)buf)[i]));
		json_object_set_new(o, "float16Bits", bits);
	}
	return o;
}

/* ---------------------------------------------------------------- one case */

enum verdict { V_PASS, V_FAIL, V_SKIP };

struct case_result {
	double build_ms, compile_ms, dispatch_ms, read_ms;
	json_t *outputs; /* name -> {descriptor, data} */
};

static bool parse_tolerance(struct replay *r, json_t *c, struct tolerance *tol)
{
	json_t *t = json_object_get(c, "tolerance");
	const char *metric = json_string_value(json_object_get(t, "metric"));
	json_t *v = json_object_get(t, "value");
	if (!metric || !json_is_number(v) ||
	    (strcmp(metric, "ULP") != 0 && strcmp(metric, "ATOL") != 0)) {
		set_err(r, "case has no valid tolerance {metric: ULP|ATOL, value}");
		return false;
	}
	tol->atol = strcmp(metric, "ATOL") == 0;
	tol->value = json_number_value(v);
	return true;
}

/* Builds, runs and (with check) compares one case. */
static enum verdict run_case(struct webnn_context *ctx, json_t *c, bool check, bool verbose,
			     struct case_result *res, char *why, size_t why_len)
{
	struct replay r = { .ctx = ctx };
	json_t *graph = json_object_get(c, "graph");
	json_t *opers = json_object_get(graph, "operators");
	json_t *expected = json_object_get(graph, "expectedOutputs");
	bool optional = json_is_false(json_object_get(c, "required"));
	struct tolerance tol = { 0 };
	struct webnn_graph *g = NULL;
	struct webnn_tensor **tensors = NULL;
	struct webnn_named_tensor *bind_in = NULL, *bind_out = NULL;
	void **out_bufs = NULL;
	size_t n_in = 0, n_out = 0;
	enum verdict v = V_FAIL;

	r.inputs = json_object_get(graph, "inputs");
	if (!json_is_object(r.inputs) || !json_is_array(opers) || !json_is_object(expected) ||
	    json_object_size(expected) == 0) {
		set_err(&r, "case needs graph.inputs, graph.operators and graph.expectedOutputs");
		goto out;
	}
	if (check && !parse_tolerance(&r, c, &tol))
		goto out;

	/* Operators libwebnn or this context lacks make the case a skip, before anything runs. */
	for (size_t i = 0; i < json_array_size(opers); i++) {
		const char *m = json_string_value(json_object_get(json_array_get(opers, i), "name"));
		if (!m) {
			set_err(&r, "operator %zu has no name", i);
			goto out;
		}
		if (!find_op(m)) {
			set_err(&r, "%s: libwebnn has no such builder operator", m);
			v = V_SKIP;
			goto out;
		}
		if (!context_lists_op(ctx, m)) {
			set_err(&r, "%s: not supported by this context (absent from its opSupportLimits)",
				m);
			v = V_SKIP;
			goto out;
		}
	}
	if (optional) {
		/* Context-wide data type limits for graph inputs, constants and outputs. */
		struct webnn_support_limits lim;
		const char *key;
		json_t *e;
		webnn_context_support_limits(ctx, &lim);
		json_object_foreach(r.inputs, key, e) {
			struct webnn_operand_desc d;
			bool cst = json_is_true(json_object_get(e, "constant"));
			if (!parse_desc(&r, key, json_object_get(e, "descriptor"), &d)) {
				if (r.skip)
					v = V_SKIP;
				goto out;
			}
			if (!type_in(cst ? lim.constant.data_types : lim.input.data_types,
				     d.data_type)) {
				set_err(&r, "optional case: %s %s not supported by the context",
					cst ? "constant" : "input", webnn_data_type_name(d.data_type));
				v = V_SKIP;
				goto out;
			}
		}
		json_object_foreach(expected, key, e) {
			struct webnn_operand_desc d;
			if (!parse_desc(&r, key, json_object_get(e, "descriptor"), &d)) {
				if (r.skip)
					v = V_SKIP;
				goto out;
			}
			if (!type_in(lim.output.data_types, d.data_type)) {
				set_err(&r, "optional case: output %s not supported by the context",
					webnn_data_type_name(d.data_type));
				v = V_SKIP;
				goto out;
			}
		}
	}

	enum webnn_status s = webnn_builder_create(ctx, &r.b);
	if (s != WEBNN_STATUS_OK) {
		fail_status(&r, s, "createBuilder");
		goto out;
	}
	for (size_t i = 0; i < json_array_size(opers); i++)
		if (!build_operator(&r, json_array_get(opers, i), optional)) {
			if (r.skip && (optional || strstr(r.err, "not supported by libwebnn")))
				v = V_SKIP;
			goto out;
		}

	/* The graph computes exactly the expected outputs; WPT checks their descriptors first. */
	n_out = json_object_size(expected);
	struct webnn_named_operand *named = calloc(n_out, sizeof(*named));
	if (!named) {
		set_err(&r, "out of memory");
		goto out;
	}
	{
		const char *key;
		json_t *e;
		size_t i = 0;
		json_object_foreach(expected, key, e) {
			struct webnn_operand_desc want, got;
			char ws[128], gs[128];
			named[i].name = key;
			named[i].operand = lookup(&r, key);
			if (!named[i].operand) {
				set_err(&r, "expected output %s is not produced by any operator", key);
				break;
			}
			if (!parse_desc(&r, key, json_object_get(e, "descriptor"), &want))
				break;
			webnn_operand_get_desc(named[i].operand, &got);
			format_desc(&want, ws, sizeof(ws));
			format_desc(&got, gs, sizeof(gs));
			if (strcmp(ws, gs) != 0) {
				set_err(&r, "output %s: descriptor is %s, expected %s", key, gs, ws);
				break;
			}
			i++;
		}
		if (i != n_out) {
			free(named);
			if (r.skip && optional)
				v = V_SKIP;
			goto out;
		}
	}
	double t0 = now_ms();
	s = webnn_builder_build(r.b, named, n_out, &g);
	res->build_ms = now_ms() - t0;
	free(named);
	if (s != WEBNN_STATUS_OK) {
		fail_status(&r, s, "build");
		if (optional && s == WEBNN_STATUS_NOT_SUPPORTED)
			v = V_SKIP;
		goto out;
	}
	res->compile_ms = webnn_graph_compile_ms(g);

	n_in = webnn_graph_input_count(g);
	n_out = webnn_graph_output_count(g);
	tensors = calloc(n_in + n_out + 1, sizeof(*tensors));
	bind_in = calloc(n_in + 1, sizeof(*bind_in));
	bind_out = calloc(n_out + 1, sizeof(*bind_out));
	out_bufs = calloc(n_out + 1, sizeof(*out_bufs));
	if (!tensors || !bind_in || !bind_out || !out_bufs) {
		set_err(&r, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n_in; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		const char *name = webnn_graph_input_name(g, i, &td.desc);
		json_t *entry = json_object_get(r.inputs, name);
		size_t size = 0;
		void *buf = entry ? encode_data(&r, name, entry, &td.desc, &size) : NULL;
		if (!entry)
			set_err(&r, "graph input %s has no data in the case", name);
		if (!buf)
			goto out;
		s = webnn_context_create_tensor(ctx, &td, &tensors[i]);
		if (s == WEBNN_STATUS_OK)
			s = webnn_context_write_tensor(ctx, tensors[i], buf, size);
		free(buf);
		if (s != WEBNN_STATUS_OK) {
			fail_status(&r, s, name);
			goto out;
		}
		bind_in[i] = (struct webnn_named_tensor){ name, tensors[i] };
	}
	for (size_t i = 0; i < n_out; i++) {
		struct webnn_tensor_desc td = { .readable = true };
		const char *name = webnn_graph_output_name(g, i, &td.desc);
		s = webnn_context_create_tensor(ctx, &td, &tensors[n_in + i]);
		if (s != WEBNN_STATUS_OK) {
			fail_status(&r, s, name);
			goto out;
		}
		bind_out[i] = (struct webnn_named_tensor){ name, tensors[n_in + i] };
	}
	t0 = now_ms();
	s = webnn_context_dispatch(ctx, g, bind_in, n_in, bind_out, n_out);
	if (s == WEBNN_STATUS_OK)
		s = webnn_context_flush(ctx);
	res->dispatch_ms = now_ms() - t0;
	if (s != WEBNN_STATUS_OK) {
		fail_status(&r, s, "dispatch");
		goto out;
	}
	t0 = now_ms();
	res->outputs = json_object();
	bool all_ok = true;
	for (size_t i = 0; i < n_out; i++) {
		struct webnn_operand_desc d;
		const char *name = webnn_graph_output_name(g, i, &d);
		size_t size = desc_elements(&d) * webnn_data_type_size(d.data_type);
		out_bufs[i] = calloc(size ? size : 1, 1);
		if (!out_bufs[i]) {
			set_err(&r, "out of memory");
			goto out;
		}
		s = webnn_context_read_tensor(ctx, tensors[n_in + i], out_bufs[i], size);
		if (s != WEBNN_STATUS_OK) {
			fail_status(&r, s, name);
			goto out;
		}
		if (!check)
			json_object_set_new(res->outputs, name, output_json(&d, out_bufs[i]));
		if (check && all_ok &&
		    !compare_output(&r, name, json_object_get(expected, name), &d, out_bufs[i],
				    tol, verbose))
			all_ok = false;
	}
	res->read_ms = now_ms() - t0;
	v = all_ok ? V_PASS : V_FAIL;
out:
	snprintf(why, why_len, "%s", r.err);
	for (size_t i = 0; tensors && i < n_in + n_out; i++)
		webnn_tensor_destroy(tensors[i]);
	for (size_t i = 0; out_bufs && i < n_out; i++)
		free(out_bufs[i]);
	free(tensors);
	free(bind_in);
	free(bind_out);
	free(out_bufs);
	webnn_graph_destroy(g);
	webnn_builder_destroy(r.b);
	free(r.names);
	return v;
}

/* ---------------------------------------------------------------- known failures */

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Lines "file.json | case name | reason"; '#' starts a comment line. */
static struct known_failure *load_known_failures(const char *path, size_t *n, bool must_exist)
{
	FILE *f = fopen(path, "r");
	struct known_failure *list = NULL;
	char line[4096];
	size_t cap = 0, lineno = 0;
	*n = 0;
	if (!f) {
		if (must_exist) {
			fprintf(stderr, "webnn-run: cannot open %s: %s\n", path, strerror(errno));
			exit(2);
		}
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		char *bar1 = strchr(s, '|'), *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
		if (!bar2) {
			fprintf(stderr, "webnn-run: %s:%zu: expected \"file | case | reason\"\n",
				path, lineno);
			exit(2);
		}
		*bar1 = *bar2 = 0;
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			struct known_failure *nl = realloc(list, cap * sizeof(*nl));
			if (!nl) {
				fprintf(stderr, "webnn-run: out of memory\n");
				exit(2);
			}
			list = nl;
		}
		list[*n] = (struct known_failure){ strdup(trim(s)), strdup(trim(bar1 + 1)),
						   strdup(trim(bar2 + 1)), false };
		(*n)++;
	}
	fclose(f);
	return list;
}

static struct known_failure *find_known(struct known_failure *kf, size_t n, const char *file,
					const char *name)
{
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	for (size_t i = 0; i < n; i++)
		if (strcmp(kf[i].file, base) == 0 && strcmp(kf[i].name, name) == 0)
			return &kf[i];
	return NULL;
}

/* ---------------------------------------------------------------- main */

/* Microsecond resolution is all a wall-clock timing can claim. */
static double round_ms(double ms)
{
	return round(ms * 1000) / 1000;
}

static struct webnn_context *connect_context(const struct run_opts *o)
{
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	struct webnn_context *ctx = NULL;
	char err[512] = "";
	co.socket_path = o->socket;
	co.client_name = "webnn-run";
	enum webnn_status s = webnn_context_create(&co, &ctx, err, sizeof(err));
	if (s != WEBNN_STATUS_OK) {
		const char *sock = o->socket ? o->socket : getenv("WEBNN_SOCKET");
		fprintf(stderr, "webnn-run: cannot create a context on webnnd (%s): %s: %s\n",
			sock && *sock ? sock : WEBNN_DEFAULT_SOCKET, webnn_status_name(s), err);
		return NULL;
	}
	return ctx;
}

static void run_file(struct webnn_context **ctx, const struct run_opts *o, const char *path,
		     struct known_failure *kf, size_t n_kf, struct totals *t, json_t *report)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, JSON_DECODE_INT_AS_REAL, &jerr);
	if (!root) {
		fprintf(stderr, "webnn-run: %s:%d: %s\n", path, jerr.line, jerr.text);
		t->failed++;
		return;
	}
	size_t n = json_is_array(root) ? json_array_size(root) : 1;
	for (size_t i = 0; i < n; i++) {
		json_t *c = json_is_array(root) ? json_array_get(root, i) : root;
		const char *name = json_string_value(json_object_get(c, "name"));
		char why[1024] = "";
		struct case_result res = { 0 };
		if (!name)
			name = "(unnamed case)";
		if (o->filter && !strstr(name, o->filter))
			continue;
		enum verdict v = run_case(*ctx, c, o->check, o->verbose, &res, why, sizeof(why));
		if (webnn_context_is_lost(*ctx)) {
			/* Later cases get a fresh context, if webnnd is still there. */
			fprintf(stderr, "webnn-run: context lost during %s: %s\n", name,
				webnn_context_last_error(*ctx));
			webnn_context_destroy(*ctx);
			*ctx = connect_context(o);
			if (!*ctx) {
				fprintf(stderr, "webnn-run: giving up\n");
				exit(1);
			}
		}
		struct known_failure *k = find_known(kf, n_kf, path, name);
		if (k)
			k->seen = true;
		if (o->check) {
			if (v == V_SKIP) {
				printf("SKIP %s: %s\n", name, why);
				t->skipped++;
			} else if (v == V_PASS && k) {
				printf("XPASS %s: passes, but tests/known-failures.txt lists it (%s)\n",
				       name, k->reason);
				t->xpass++;
				t->passed++;
			} else if (v == V_PASS) {
				printf("PASS %s\n", name);
				t->passed++;
			} else if (k) {
				printf("XFAIL %s: %s (%s)\n", name, k->reason, why);
				t->xfail++;
			} else {
				printf("FAIL %s: %s\n", name, why);
				t->failed++;
			}
			if (o->verbose && res.build_ms > 0)
				printf("  build %.2f ms (compile %.2f ms), dispatch %.3f ms, read %.3f ms\n",
				       res.build_ms, res.compile_ms, res.dispatch_ms, res.read_ms);
			fflush(stdout);
		} else {
			json_t *j = json_pack("{s:s, s:s}", "file", path, "name", name);
			if (v == V_PASS) {
				json_object_set_new(j, "buildMs", json_real(round_ms(res.build_ms)));
				json_object_set_new(j, "compileMs", json_real(round_ms(res.compile_ms)));
				json_object_set_new(j, "dispatchMs", json_real(round_ms(res.dispatch_ms)));
				json_object_set_new(j, "readMs", json_real(round_ms(res.read_ms)));
				json_object_set(j, "outputs", res.outputs);
				t->passed++;
			} else {
				json_object_set_new(j, v == V_SKIP ? "skipped" : "error",
						    json_string(why));
				if (v == V_SKIP)
					t->skipped++;
				else
					t->failed++;
			}
			json_array_append_new(report, j);
		}
		json_decref(res.outputs);
	}
	json_decref(root);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: webnn-run [--socket PATH] [--check] [--filter SUBSTR] [--verbose]\n"
		"                 [--known-failures FILE] FILE...\n"
		"Replays WebNN conformance cases (one case or an array of cases per JSON file, in the\n"
		"schema of shared/conformance/README.md) through libwebnn and webnnd.\n"
		"  --check            compare with expectedOutputs; print PASS/FAIL/SKIP/XFAIL per case\n"
		"  --filter SUBSTR    only cases whose name contains SUBSTR\n"
		"  --verbose          timings and mismatching elements\n"
		"  --known-failures F expected failures, lines \"file | case | reason\"\n"
		"                     (default: tests/known-failures.txt when it exists)\n"
		"Without --check the outputs are printed as JSON with build and dispatch times.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "check", no_argument, NULL, 'c' },
		{ "filter", required_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "known-failures", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_opts o = { 0 };
	int ch;
	while ((ch = getopt_long(argc, argv, "s:cf:vk:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': o.socket = optarg; break;
		case 'c': o.check = true; break;
		case 'f': o.filter = optarg; break;
		case 'v': o.verbose = true; break;
		case 'k': o.known_failures = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	size_t n_kf = 0;
	struct known_failure *kf = load_known_failures(
		o.known_failures ? o.known_failures : "tests/known-failures.txt", &n_kf,
		o.known_failures != NULL);
	struct webnn_context *ctx = connect_context(&o);
	if (!ctx)
		return 1;
	struct totals t = { 0 };
	json_t *report = json_array();
	for (int i = optind; i < argc; i++)
		run_file(&ctx, &o, argv[i], kf, n_kf, &t, report);
	if (o.check) {
		printf("%d passed, %d failed, %d skipped, %d xfail", t.passed, t.failed, t.skipped,
		       t.xfail);
		if (t.xpass)
			printf(", %d xpass", t.xpass);
		printf("\n");
	} else {
		/* One case per line: valid JSON that stays readable for large outputs. */
		size_t i;
		json_t *j;
		printf("[");
		json_array_foreach(report, i, j) {
			printf("%s\n", i ? "," : "");
			json_dumpf(j, stdout, JSON_COMPACT | JSON_REAL_PRECISION(9));
		}
		printf("\n]\n");
	}
	json_decref(report);
	webnn_context_destroy(ctx);
	for (size_t i = 0; i < n_kf; i++) {
		free(kf[i].file);
		free(kf[i].name);
		free(kf[i].reason);
	}
	free(kf);
	return t.failed ? 1 : 0;
}
