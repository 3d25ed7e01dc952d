/* webnn-run's reading of operator arguments and MLOperatorOptions members from a case's JSON. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run.h"

const char *const opt_none[] = { NULL };

bool replay_want_args(struct replay *r, struct op_call *c, size_t n_operands, size_t n_total)
{
	if (c->n_args != n_total) {
		replay_fail(r, "%s: %zu arguments, expected %zu", r->op_name, c->n_args, n_total);
		return false;
	}
	for (size_t i = 0; i < n_operands; i++)
		if (!c->args[i].op) {
			char what[96];
			snprintf(what, sizeof(what), "argument %zu (%s)", i, c->args[i].key);
			replay_not_operand(r, what, c->args[i].value);
			return false;
		}
	return true;
}

bool opt_check(struct replay *r, json_t *opts, const char *const *known)
{
	const char *key;
	json_t *v;
	json_object_foreach(opts, key, v) {
		bool ok = strcmp(key, "label") == 0;
		for (size_t i = 0; known[i] && !ok; i++)
			ok = strcmp(key, known[i]) == 0;
		if (!ok) {
			replay_fail(r, "%s: option %s is not supported by libwebnn", r->op_name, key);
			r->skip = true;
			return false;
		}
	}
	return true;
}

bool opt_double(struct replay *r, json_t *opts, const char *key, double *out)
{
	json_t *v = json_object_get(opts, key);
	if (!v)
		return true;
	if (!replay_json_double(v, out)) {
		replay_fail(r, "%s: option %s is not a number", r->op_name, key);
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
bool opt_number(struct replay *r, json_t *opts, const char *key, struct webnn_number *out)
{
	json_t *v = json_object_get(opts, key);
	double d;
	*out = (struct webnn_number)WEBNN_NUMBER_NONE_INIT;
	if (!v)
		return true;
	if (json_is_object(v)) {
		if (json_bigint(v, out))
			return true;
	} else if (replay_json_double(v, &d)) {
		*out = WEBNN_NUMBER_F64(d);
		return true;
	}
	replay_fail(r, "%s: option %s is not a number", r->op_name, key);
	return false;
}

bool opt_bool(struct replay *r, json_t *opts, const char *key, bool *out)
{
	json_t *v = json_object_get(opts, key);
	if (!v)
		return true;
	if (!json_is_boolean(v)) {
		replay_fail(r, "%s: option %s is not a boolean", r->op_name, key);
		return false;
	}
	*out = json_is_true(v);
	return true;
}

bool opt_parse_u32_array(struct replay *r, json_t *v, const char *what, uint32_t *out, uint32_t max,
		      uint32_t *n)
{
	if (!json_is_array(v) || json_array_size(v) > max) {
		replay_fail(r, "%s: %s must be an array of at most %u unsigned integers", r->op_name,
			what, max);
		return false;
	}
	for (size_t i = 0; i < json_array_size(v); i++)
		if (!replay_json_u32(json_array_get(v, i), &out[i])) {
			replay_fail(r, "%s: %s[%zu] is not an unsigned integer", r->op_name, what, i);
			return false;
		}
	*n = (uint32_t)json_array_size(v);
	return true;
}

/* A fixed-length array option; *n stays 0 when absent. */
bool opt_u32_array(struct replay *r, json_t *opts, const char *key, uint32_t *out,
			  uint32_t len, uint32_t *n)
{
	json_t *v = json_object_get(opts, key);
	*n = 0;
	if (!v)
		return true;
	if (!opt_parse_u32_array(r, v, key, out, len, n))
		return false;
	if (*n != len) {
		replay_fail(r, "%s: option %s has %u entries, expected %u", r->op_name, key, *n, len);
		return false;
	}
	return true;
}

bool opt_enum(struct replay *r, json_t *opts, const char *key, const char *const *names,
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
	char allowed[256] = "";
	for (int i = 0, o = 0; names[i] && o < (int)sizeof(allowed); i++)
		o += snprintf(allowed + o, sizeof(allowed) - (size_t)o, "%s\"%s\"", i ? ", " : "",
			      names[i]);
	if (json_is_string(v))
		replay_fail(r, "option %s: unknown value \"%s\" (allowed: %s)", key,
			json_string_value(v), allowed);
	else
		replay_fail(r, "option %s is not a string (allowed: %s)", key, allowed);
	return false;
}

/* An options member naming an operand (bias, c, scale, ...); NULL when absent. */
bool opt_operand(struct replay *r, json_t *opts, const char *key, struct webnn_operand **out)
{
	json_t *v = json_object_get(opts, key);
	bool error;
	*out = NULL;
	if (!v)
		return true;
	*out = replay_operand_arg(r, v, &error);
	if (error)
		return false;
	if (!*out) {
		char what[96];
		snprintf(what, sizeof(what), "option %s", key);
		replay_not_operand(r, what, v);
		return false;
	}
	return true;
}


/* A positional unsigned integer argument (axis, steps, hiddenSize, ...). */
bool opt_arg_u32(struct replay *r, struct op_call *c, size_t i, uint32_t *out)
{
	if (!replay_json_u32(c->args[i].value, out)) {
		replay_fail(r, "%s: %s is not an unsigned integer", r->op_name, c->args[i].key);
		return false;
	}
	return true;
}

bool opt_u32(struct replay *r, json_t *opts, const char *key, uint32_t *out)
{
	json_t *v = json_object_get(opts, key);
	if (v && !replay_json_u32(v, out)) {
		replay_fail(r, "%s: option %s is not an unsigned integer", r->op_name, key);
		return false;
	}
	return true;
}

/* A variable-length list option (axes, strides): *present tells absent from empty. */
bool opt_list(struct replay *r, json_t *opts, const char *key, uint32_t *out,
		     uint32_t max, uint32_t *n, bool *present)
{
	json_t *v = json_object_get(opts, key);
	*n = 0;
	*present = v != NULL;
	return !v || opt_parse_u32_array(r, v, key, out, max, n);
}

bool opt_data_type(struct replay *r, json_t *opts, const char *key,
			  enum webnn_data_type *out)
{
	json_t *v = json_object_get(opts, key);
	if (v && !replay_parse_dtype(json_string_value(v), out)) {
		replay_fail(r, "%s: option %s: data type %s not supported by libwebnn", r->op_name, key,
			json_is_string(v) ? json_string_value(v) : "?");
		r->skip = true;
		return false;
	}
	return true;
}

/* options.activations: a list of "relu" / "sigmoid" / "tanh" of at most max items. */
bool opt_activations(struct replay *r, json_t *opts,
			    enum webnn_recurrent_activation *out, uint32_t max, uint32_t *n)
{
	static const char *const names[] = { "relu", "sigmoid", "tanh", NULL };
	json_t *v = json_object_get(opts, "activations");
	*n = 0;
	if (!v)
		return true;
	if (!json_is_array(v) || json_array_size(v) > max) {
		replay_fail(r, "%s: option activations must be a list of at most %u names", r->op_name,
			max);
		return false;
	}
	for (size_t i = 0; i < json_array_size(v); i++) {
		const char *s = json_string_value(json_array_get(v, i));
		int k = 0;
		while (s && names[k] && strcmp(names[k], s) != 0)
			k++;
		if (!s || !names[k]) {
			replay_fail(r, "%s: activations[%zu] is not relu, sigmoid or tanh", r->op_name, i);
			return false;
		}
		out[i] = (enum webnn_recurrent_activation)k;
	}
	*n = (uint32_t)json_array_size(v);
	return true;
}

