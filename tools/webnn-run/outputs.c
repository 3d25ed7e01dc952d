/* webnn-run's outputs: compared with expectedOutputs under the case's WPT tolerance, or as JSON. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run.h"

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
	case WEBNN_FLOAT16: e.d = webnn_float16_to_float32(((const uint16_t *)buf)[i]); break;
	case WEBNN_INT32: e.s = ((const int32_t *)buf)[i]; break;
	case WEBNN_UINT32: e.u = ((const uint32_t *)buf)[i]; e.is_unsigned = true; break;
	case WEBNN_INT64: e.s = ((const int64_t *)buf)[i]; break;
	case WEBNN_UINT64: e.u = ((const uint64_t *)buf)[i]; e.is_unsigned = true; break;
	case WEBNN_INT8: e.s = ((const int8_t *)buf)[i]; break;
	case WEBNN_UINT8: e.u = ((const uint8_t *)buf)[i]; e.is_unsigned = true; break;
	case WEBNN_INT4:
	case WEBNN_UINT4: {
		/* packed two per byte: unpack the byte holding element i */
		int8_t pair[2];
		webnn_int4_unpack(t, (const uint8_t *)buf + i / 2, 2, pair);
		e.s = pair[i & 1];
		e.u = (uint64_t)e.s;
		e.is_unsigned = t == WEBNN_UINT4;
		break;
	}
	}
	if (!replay_is_float_type(t))
		e.d = e.is_unsigned ? (double)e.u : (double)e.s;
	return e;
}

static void format_elem(const void *buf, enum webnn_data_type t, size_t i, char *s, size_t len)
{
	struct elem e = load_elem(buf, t, i);
	if (t == WEBNN_FLOAT16)
		snprintf(s, len, "%.9g (0x%04x)", e.d, ((const uint16_t *)buf)[i]);
	else if (replay_is_float_type(t))
		snprintf(s, len, "%.9g", e.d);
	else if (e.is_unsigned)
		snprintf(s, len, "%" PRIu64, e.u);
	else
		snprintf(s, len, "%" PRId64, e.s);
}
bool outputs_parse_tolerance(struct replay *r, json_t *c, struct tool_tolerance *tol)
{
	json_t *t = json_object_get(c, "tolerance");
	const char *metric = json_string_value(json_object_get(t, "metric"));
	json_t *v = json_object_get(t, "value");
	if (!metric || !json_is_number(v) ||
	    (strcmp(metric, "ULP") != 0 && strcmp(metric, "ATOL") != 0)) {
		replay_fail(r, "case has no valid tolerance {metric: ULP|ATOL, value}");
		return false;
	}
	tol->metric = strcmp(metric, "ATOL") == 0 ? TOOL_METRIC_ATOL : TOOL_METRIC_ULP;
	tol->value = json_number_value(v);
	return true;
}

/* One element against its expected JSON value: false when that value is malformed (err says
 * why); otherwise *pass, the distance and the expected value as text. */
struct element_check {
	bool pass;
	double dist;
	char expected[64];
};

static bool expected_number(struct replay *r, const char *name, json_t *ev, size_t i, double *e)
{
	if (!replay_json_double(ev, e)) {
		replay_fail(r, "output %s: expected[%zu] is not a number", name, i);
		return false;
	}
	return true;
}

static bool check_integer(struct replay *r, const char *name, json_t *ev, struct elem a,
			  enum webnn_data_type t, size_t i, double tol, struct element_check *k)
{
	uint64_t diff;
	if (a.is_unsigned) {
		uint64_t e;
		if (!replay_json_u64(ev, &e)) {
			replay_fail(r, "output %s: expected[%zu] is not a %s", name, i,
				webnn_data_type_name(t));
			return false;
		}
		diff = tool_uint_distance(a.u, e);
		snprintf(k->expected, sizeof(k->expected), "%" PRIu64, e);
	} else {
		int64_t e;
		if (!replay_json_i64(ev, &e)) {
			replay_fail(r, "output %s: expected[%zu] is not a %s", name, i,
				webnn_data_type_name(t));
			return false;
		}
		diff = tool_int_distance(a.s, e);
		snprintf(k->expected, sizeof(k->expected), "%" PRId64, e);
	}
	k->dist = (double)diff;
	k->pass = diff <= (uint64_t)tol;
	return true;
}

static bool check_element(struct replay *r, const char *name, json_t *ev, const void *actual,
			  enum webnn_data_type t, size_t i, struct tool_tolerance tol,
			  struct element_check *k)
{
	struct elem a = load_elem(actual, t, i);
	double e;
	if (tol.metric == TOOL_METRIC_ATOL) {
		if (!expected_number(r, name, ev, i, &e))
			return false;
		k->pass = tool_within_atol(a.d, e, tol.value, &k->dist);
		snprintf(k->expected, sizeof(k->expected), "%.9g", e);
	} else if (t == WEBNN_FLOAT32) {
		if (!expected_number(r, name, ev, i, &e))
			return false;
		k->dist = tool_f32_ulp_distance((float)a.d, (float)e);
		k->pass = k->dist <= tol.value;
		snprintf(k->expected, sizeof(k->expected), "%.9g", (double)(float)e);
	} else if (t == WEBNN_FLOAT16) {
		if (!json_is_number(ev)) {
			replay_fail(r, "output %s: expected float16Bits[%zu] is not a number", name, i);
			return false;
		}
		uint16_t eb = (uint16_t)json_number_value(ev);
		k->dist = tool_f16_ulp_distance(((const uint16_t *)actual)[i], eb);
		k->pass = k->dist <= tol.value;
		snprintf(k->expected, sizeof(k->expected), "%.9g (0x%04x)", webnn_float16_to_float32(eb),
			 eb);
	} else {
		return check_integer(r, name, ev, a, t, i, tol.value, k);
	}
	return true;
}

/* Compares one output; on mismatch writes the first bad element into r->err. Prints up to
 * a few more mismatches when verbose. */
bool outputs_compare(struct replay *r, const char *name, json_t *expected,
		    const struct webnn_operand_desc *d, const void *actual,
		    struct tool_tolerance tol, bool verbose)
{
	enum webnn_data_type t = d->data_type;
	bool bits = t == WEBNN_FLOAT16 && tol.metric == TOOL_METRIC_ULP;
	json_t *data = json_object_get(expected, bits ? "float16Bits" : "data");
	size_t n = replay_desc_elements(d), bad = 0;
	if (!data) {
		replay_fail(r, "output %s: no expected data", name);
		return false;
	}
	if (json_is_array(data) && json_array_size(data) != n) {
		replay_fail(r, "output %s: %zu expected values for %zu elements", name,
			json_array_size(data), n);
		return false;
	}
	if (!json_is_array(data) && n > SCALAR_COMPARE_LIMIT)
		n = SCALAR_COMPARE_LIMIT;
	for (size_t i = 0; i < n; i++) {
		json_t *ev = json_is_array(data) ? json_array_get(data, i) : data;
		struct element_check k;
		char act_s[64];
		if (!check_element(r, name, ev, actual, t, i, tol, &k))
			return false;
		if (k.pass)
			continue;
		format_elem(actual, t, i, act_s, sizeof(act_s));
		if (bad == 0)
			replay_fail(r, "output %s[%zu] = %s, expected %s (%s distance %g > %g)", name, i,
				act_s, k.expected, tol.metric == TOOL_METRIC_ATOL ? "absolute" : "ULP",
				k.dist, tol.value);
		if (verbose && bad < 8)
			fprintf(stderr, "  mismatch %s[%zu]: actual %s expected %s distance %g\n",
				name, i, act_s, k.expected, k.dist);
		bad++;
	}
	if (bad && verbose)
		fprintf(stderr, "  %zu of %zu elements of %s out of tolerance\n", bad, n, name);
	return bad == 0;
}

static json_t *elem_json(const void *buf, enum webnn_data_type t, size_t i)
{
	struct elem e = load_elem(buf, t, i);
	if (replay_is_float_type(t)) {
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

json_t *outputs_json(const struct webnn_operand_desc *d, const void *buf)
{
	json_t *o = json_object(), *shape = json_array(), *data = json_array();
	for (uint32_t i = 0; i < d->rank; i++)
		json_array_append_new(shape, json_integer(d->shape[i]));
	json_object_set_new(o, "descriptor",
			    json_pack("{s:s, s:o}", "dataType", webnn_data_type_name(d->data_type),
				      "shape", shape));
	size_t n = replay_desc_elements(d);
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

