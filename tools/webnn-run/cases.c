/* webnn-run's case parsing: JSON values, descriptors and tensor data, operands created by name. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* The one place messages get their operator prefix: while an operator is being built
 * (r->op_name), "<op>: " goes in front, once (a message already starting with it is kept). */
void replay_fail(struct replay *r, const char *fmt, ...)
{
	char msg[sizeof(r->err)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t n = r->op_name ? strlen(r->op_name) : 0, used = 0;
	if (n && !(strncmp(msg, r->op_name, n) == 0 && msg[n] == ':')) {
		if (n > sizeof(r->err) / 2)
			n = sizeof(r->err) / 2;
		memcpy(r->err, r->op_name, n);
		memcpy(r->err + n, ": ", 2);
		used = n + 2;
	}
	size_t len = strnlen(msg, sizeof(r->err) - 1 - used);
	memcpy(r->err + used, msg, len);
	r->err[used + len] = '\0';
}

/* "<what>: <status>: <detail>", where libwebnn's detail loses the "<name>: " it starts with
 * when that name is what's first word or the operator's (it would read twice). */
bool replay_fail_status(struct replay *r, enum webnn_status s, const char *what)
{
	const char *detail = webnn_context_last_error(r->ctx);
	size_t w = strcspn(what, " ");
	size_t n = r->op_name ? strlen(r->op_name) : 0;
	if (strncmp(detail, what, w) == 0 && detail[w] == ':' && detail[w + 1] == ' ')
		detail += w + 2;
	else if (n && strncmp(detail, r->op_name, n) == 0 && detail[n] == ':' && detail[n + 1] == ' ')
		detail += n + 2;
	replay_fail(r, "%s: %s: %s", what, webnn_status_name(s), detail);
	return false;
}

/* Edit distance (insertions, deletions, substitutions; case-insensitive), capped at 64 chars. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, 64), lb = strnlen(b, 64), row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t sub = diag + (tolower((unsigned char)a[i - 1]) !=
					     tolower((unsigned char)b[j - 1]));
			size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
			row[j] = sub < best ? sub : best;
			diag = up;
		}
	}
	return row[lb];
}

const char *replay_nearest_name(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, names[i]);
		if (d < best_d)
			best = names[i], best_d = d;
	}
	/* a suggestion only when it is plausibly a typo of it */
	size_t len = strlen(word);
	return best && best_d <= (len < 6 ? 2 : len / 3) ? best : NULL;
}

/* A reference that names no operand: the value as written, and the nearest operand name. */
void replay_not_operand(struct replay *r, const char *what, json_t *v)
{
	if (!json_is_string(v)) {
		replay_fail(r, "%s is not an operand name (a JSON %s)", what,
			json_is_number(v) ? "number" : json_is_array(v) ? "array" : "value");
		return;
	}
	const char *names[256];
	size_t n = 0;
	const char *key;
	json_t *e;
	json_object_foreach(r->inputs, key, e) {
		if (n < sizeof(names) / sizeof(names[0]))
			names[n++] = key;
	}
	for (size_t i = 0; i < r->n_names && n < sizeof(names) / sizeof(names[0]); i++)
		names[n++] = r->names[i].name;
	const char *near = replay_nearest_name(json_string_value(v), names, n);
	replay_fail(r, "%s \"%s\" is not a graph input or an earlier operator's output%s%s%s", what,
		json_string_value(v), near ? " (did you mean \"" : "", near ? near : "",
		near ? "\"?)" : "");
}

/* The operand a name refers to: an earlier result, or a graph input/constant created on its
 * first reference (as WPT does; unreferenced constants are never created). NULL: not a name. */
bool replay_check_build(struct replay *r, enum webnn_status s)
{
	if (s != WEBNN_STATUS_OK) {
		replay_fail_status(r, s, r->op_name);
		r->skip = s == WEBNN_STATUS_NOT_SUPPORTED;
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- data types and values */

bool replay_parse_dtype(const char *s, enum webnn_data_type *t)
{
	static const struct {
		const char *name;
		enum webnn_data_type t;
	} map[] = { { "float32", WEBNN_FLOAT32 }, { "float16", WEBNN_FLOAT16 },
		    { "int32", WEBNN_INT32 },     { "uint32", WEBNN_UINT32 },
		    { "int64", WEBNN_INT64 },     { "uint64", WEBNN_UINT64 },
		    { "int8", WEBNN_INT8 },       { "uint8", WEBNN_UINT8 },
		    { "int4", WEBNN_INT4 },       { "uint4", WEBNN_UINT4 } };
	for (size_t i = 0; s && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(s, map[i].name) == 0) {
			*t = map[i].t;
			return true;
		}
	return false;
}

bool replay_is_float_type(enum webnn_data_type t)
{
	return t == WEBNN_FLOAT32 || t == WEBNN_FLOAT16;
}

size_t replay_desc_elements(const struct webnn_operand_desc *d)
{
	size_t n = 1;
	for (uint32_t i = 0; i < d->rank; i++)
		n *= d->shape[i];
	return n;
}

void replay_format_desc(const struct webnn_operand_desc *d, char *buf, size_t len)
{
	const char *tn = webnn_data_type_name(d->data_type);
	int o = snprintf(buf, len, "%s [", tn ? tn : "?");
	for (uint32_t i = 0; i < d->rank && o > 0 && (size_t)o < len; i++)
		o += snprintf(buf + o, len - o, "%s%u", i ? "," : "", d->shape[i]);
	if (o > 0 && (size_t)o < len)
		snprintf(buf + o, len - o, "]");
}

/* Parses {"dataType", "shape"}; the element count is checked against MAX_ELEMENTS. */
bool replay_parse_desc(struct replay *r, const char *what, json_t *j, struct webnn_operand_desc *d)
{
	json_t *dt = json_object_get(j, "dataType"), *shape = json_object_get(j, "shape");
	memset(d, 0, sizeof(*d));
	if (!json_is_string(dt) || !json_is_array(shape)) {
		replay_fail(r, "%s: descriptor needs dataType and shape", what);
		return false;
	}
	if (!replay_parse_dtype(json_string_value(dt), &d->data_type)) {
		/* libwebnn has every data type WPT uses: an unknown one is a mistake in the case */
		static const char *const names[] = { "float32", "float16", "int32", "uint32", "int64",
						     "uint64",  "int8",    "uint8", "int4",   "uint4" };
		const char *near = replay_nearest_name(json_string_value(dt), names,
						sizeof(names) / sizeof(names[0]));
		replay_fail(r, "%s: unknown data type \"%s\"%s%s%s", what, json_string_value(dt),
			near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
		return false;
	}
	if (json_array_size(shape) > WEBNN_MAX_RANK) {
		replay_fail(r, "%s: rank %zu exceeds %d", what, json_array_size(shape), WEBNN_MAX_RANK);
		return false;
	}
	uint64_t n = 1;
	for (size_t i = 0; i < json_array_size(shape); i++) {
		double v = json_number_value(json_array_get(shape, i));
		if (!json_is_number(json_array_get(shape, i)) || v < 0 || v > UINT32_MAX ||
		    v != floor(v)) {
			replay_fail(r, "%s: shape[%zu] is not a dimension", what, i);
			return false;
		}
		d->shape[i] = (uint32_t)v;
		n *= d->shape[i] ? d->shape[i] : 1;
		if (n > MAX_ELEMENTS) {
			replay_fail(r, "%s: more than %u elements", what, MAX_ELEMENTS);
			return false;
		}
	}
	d->rank = (uint32_t)json_array_size(shape);
	return true;
}

/* A JSON number or one of the strings "NaN", "Infinity", "-Infinity", or {"$bigint": "..."}. */
bool replay_json_double(json_t *v, double *out)
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
bool replay_json_i64(json_t *v, int64_t *out)
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

bool replay_json_u64(json_t *v, uint64_t *out)
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

bool replay_json_u32(json_t *v, uint32_t *out)
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
/* Stores element i of a JSON array (or the broadcast scalar) as dtype into buf. */
static bool store_element(json_t *v, enum webnn_data_type t, void *buf, size_t i)
{
	double d = 0;
	int64_t s64;
	uint64_t u64;
	switch (t) {
	case WEBNN_FLOAT32:
		if (!replay_json_double(v, &d))
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
		if (!replay_json_i64(v, &s64))
			return false;
		((int64_t *)buf)[i] = s64;
		return true;
	case WEBNN_UINT64:
		if (!replay_json_u64(v, &u64))
			return false;
		((uint64_t *)buf)[i] = u64;
		return true;
	default:
		break;
	}
	if (!replay_json_double(v, &d) || d != floor(d))
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
	/* unpacked one per int8 here; replay_encode_data packs them */
	case WEBNN_INT4:
		((int8_t *)buf)[i] = (int8_t)d;
		return d >= -8 && d <= 7;
	case WEBNN_UINT4:
		((int8_t *)buf)[i] = (int8_t)d;
		return d >= 0 && d <= 15;
	default:
		return false;
	}
}

/* Encodes an operand's "data" (float16: "float16Bits"); a scalar fills every element. int4 and
 * uint4 are read one value per byte, then packed two per byte as the tensor holds them. */
void *replay_encode_data(struct replay *r, const char *name, json_t *entry,
			 const struct webnn_operand_desc *d, size_t *size)
{
	json_t *data = json_object_get(entry, d->data_type == WEBNN_FLOAT16 ? "float16Bits" : "data");
	bool packed = d->data_type == WEBNN_INT4 || d->data_type == WEBNN_UINT4;
	size_t n = replay_desc_elements(d), es = packed ? 1 : webnn_data_type_size(d->data_type);
	if (!data) {
		replay_fail(r, "%s: no %s", name, d->data_type == WEBNN_FLOAT16 ? "float16Bits" : "data");
		return NULL;
	}
	if (json_is_array(data) && json_array_size(data) != n) {
		replay_fail(r, "%s: %zu values for %zu elements", name, json_array_size(data), n);
		return NULL;
	}
	void *buf = calloc(n ? n : 1, es);
	if (!buf) {
		replay_fail(r, "%s: out of memory", name);
		return NULL;
	}
	/* A scalar is converted once and copied: "large inputs" cases have 36M elements. */
	size_t n_convert = json_is_array(data) ? n : (n ? 1 : 0);
	for (size_t i = 0; i < n_convert; i++) {
		json_t *v = json_is_array(data) ? json_array_get(data, i) : data;
		if (!store_element(v, d->data_type, buf, i)) {
			replay_fail(r, "%s: element %zu is not a valid %s", name, i,
				webnn_data_type_name(d->data_type));
			free(buf);
			return NULL;
		}
	}
	for (size_t i = n_convert; i < n; i++)
		memcpy((char *)buf + i * es, buf, es);
	*size = n * es;
	if (packed) {
		/* in place: byte k of the packed form reads elements 2k and 2k + 1, never behind it */
		*size = webnn_data_type_byte_length(d->data_type, n);
		int8_t pair[2];
		for (size_t k = 0; k < *size; k++) {
			pair[0] = ((int8_t *)buf)[2 * k];
			pair[1] = 2 * k + 1 < n ? ((int8_t *)buf)[2 * k + 1] : 0;
			webnn_int4_pack(pair, 2, (uint8_t *)buf + k);
		}
	}
	return buf;
}

/* ---------------------------------------------------------------- operands by name */

struct webnn_operand *replay_find_operand(struct replay *r, const char *name)
{
	for (size_t i = 0; i < r->n_names; i++)
		if (strcmp(r->names[i].name, name) == 0)
			return r->names[i].op;
	return NULL;
}

bool replay_name_operand(struct replay *r, const char *name, struct webnn_operand *op)
{
	if (r->n_names == r->cap_names) {
		size_t cap = r->cap_names ? 2 * r->cap_names : 16;
		struct named *n = realloc(r->names, cap * sizeof(*n));
		if (!n) {
			replay_fail(r, "out of memory");
			return false;
		}
		r->names = n;
		r->cap_names = cap;
	}
	r->names[r->n_names++] = (struct named){ name, op };
	return true;
}

struct webnn_operand *replay_operand_arg(struct replay *r, json_t *v, bool *error)
{
	*error = false;
	if (!json_is_string(v))
		return NULL;
	const char *name = json_string_value(v);
	struct webnn_operand *op = replay_find_operand(r, name);
	if (op)
		return op;
	json_t *entry = json_object_get(r->inputs, name);
	if (!entry)
		return NULL;
	struct webnn_operand_desc d;
	*error = true;
	if (!replay_parse_desc(r, name, json_object_get(entry, "descriptor"), &d))
		return NULL;
	enum webnn_status s;
	if (json_is_true(json_object_get(entry, "constant"))) {
		size_t size = 0;
		void *buf = replay_encode_data(r, name, entry, &d, &size);
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
		replay_fail_status(r, s, what);
		r->skip = s == WEBNN_STATUS_NOT_SUPPORTED;
		return NULL;
	}
	if (!replay_name_operand(r, name, op))
		return NULL;
	*error = false;
	return op;
}

