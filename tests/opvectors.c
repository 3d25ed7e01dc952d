/* Runs the hand-computed operator vectors of tests/ops_<family>.c on a real webnnd, and checks that every operator has some. */
#include "tests/opvectors.h"

#include <dirent.h>
#include <math.h>

extern const struct ov_table __start_wnn_opvectors[], __stop_wnn_opvectors[];

/* ---- float16 bits, round to nearest even (the tests' own conversion, not the project's) */

static uint16_t ov_f16_from_double(double d)
{
	float f = (float)d;
	uint32_t x;
	memcpy(&x, &f, 4);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
	uint32_t exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
	if (exp == 0xff)
		return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
	int e = (int)exp - 127 + 15;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (e <= 0) {
		if (e < -10)
			return sign;
		man |= 0x800000u;
		uint32_t shift = (uint32_t)(14 - e);
		uint32_t h = man >> shift, rem = man & ((1u << shift) - 1);
		uint32_t half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		h++; /* may carry into the exponent, up to infinity: still correct */
	return (uint16_t)(sign | h);
}

static double ov_f16_to_double(uint16_t h)
{
	double sign = (h & 0x8000u) ? -1.0 : 1.0;
	int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
	if (exp == 0x1f)
		return man ? NAN : sign * INFINITY;
	if (exp == 0)
		return sign * ldexp(man, -24);
	return sign * ldexp(1024 + man, exp - 25);
}

/* ---- operand bytes <-> doubles */

static size_t ov_count(const struct ov_operand *o)
{
	size_t n = 1;
	for (uint32_t i = 0; i < o->rank; i++)
		n *= o->shape[i];
	return n;
}

static void ov_encode(const struct ov_operand *o, void *bytes)
{
	size_t n = ov_count(o);
	if (o->type == WEBNN_INT4 || o->type == WEBNN_UINT4) {
		/* through the public packing helper, as an application would */
		int8_t vals[1024];
		for (size_t i = 0; i < n && i < sizeof vals; i++)
			vals[i] = (int8_t)o->v[i];
		webnn_int4_pack(vals, n < sizeof vals ? n : sizeof vals, bytes);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		double v = o->v[i];
		switch (o->type) {
		case WEBNN_FLOAT32: ((float *)bytes)[i] = (float)v; break;
		case WEBNN_FLOAT16: ((uint16_t *)bytes)[i] = ov_f16_from_double(v); break;
		case WEBNN_INT32: ((int32_t *)bytes)[i] = (int32_t)v; break;
		case WEBNN_UINT32: ((uint32_t *)bytes)[i] = (uint32_t)v; break;
		case WEBNN_INT64: ((int64_t *)bytes)[i] = (int64_t)v; break;
		case WEBNN_UINT64: ((uint64_t *)bytes)[i] = (uint64_t)v; break;
		case WEBNN_INT8: ((int8_t *)bytes)[i] = (int8_t)v; break;
		case WEBNN_UINT8: ((uint8_t *)bytes)[i] = (uint8_t)v; break;
		case WEBNN_INT4:
		case WEBNN_UINT4: break; /* packed above */
		}
	}
}

static double ov_decode(enum webnn_data_type t, const void *bytes, size_t i)
{
	switch (t) {
	case WEBNN_FLOAT32: return ((const float *)bytes)[i];
	case WEBNN_FLOAT16: return ov_f16_to_double(((const uint16_t *)bytes)[i]);
	case WEBNN_INT32: return ((const int32_t *)bytes)[i];
	case WEBNN_UINT32: return ((const uint32_t *)bytes)[i];
	case WEBNN_INT64: return (double)((const int64_t *)bytes)[i];
	case WEBNN_UINT64: return (double)((const uint64_t *)bytes)[i];
	case WEBNN_INT8: return ((const int8_t *)bytes)[i];
	case WEBNN_UINT8: return ((const uint8_t *)bytes)[i];
	case WEBNN_INT4:
	case WEBNN_UINT4: {
		int8_t pair[2];
		webnn_int4_unpack(t, (const uint8_t *)bytes + i / 2, 2, pair);
		return pair[i & 1];
	}
	}
	return NAN;
}

static bool ov_is_float(enum webnn_data_type t)
{
	return t == WEBNN_FLOAT32 || t == WEBNN_FLOAT16;
}

static bool ov_value_matches(const struct op_vector *v, enum webnn_data_type t, double got,
			     double want)
{
	if (!ov_is_float(t))
		return got == want;
	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	if (want == 0 && v->zero_sign && signbit(got) != signbit(want))
		return false;
	double rtol = v->rtol, atol = v->atol;
	if (rtol == 0 && atol == 0)
		rtol = t == WEBNN_FLOAT16 ? 1e-3 : 1e-6;
	return fabs(got - want) <= atol + rtol * fabs(want);
}

/* ---- one vector */

struct ov_run {
	struct webnn_context *ctx;
	char *msg;
	size_t len;
};

#define OV_TRY(run, expr)                                                                      \
	do {                                                                                   \
		enum webnn_status s_ = (expr);                                                 \
		if (s_ != WEBNN_STATUS_OK) {                                                   \
			snprintf((run)->msg, (run)->len, "%s: %s: %s", #expr,                  \
				 webnn_status_name(s_), webnn_context_last_error((run)->ctx)); \
			goto out;                                                              \
		}                                                                              \
	} while (0)

static struct webnn_operand_desc ov_desc(const struct ov_operand *o)
{
	struct webnn_operand_desc d = { o->type, o->rank, { 0 } };
	for (uint32_t i = 0; i < o->rank; i++)
		d.shape[i] = o->shape[i];
	return d;
}

static size_t ov_n_want(const struct op_vector *v)
{
	size_t n = 0;
	while (n < OV_MAX_OUT && v->want[n].type)
		n++;
	return n;
}

/* Compares output k's descriptor and values; false with the first difference in run->msg. */
static bool ov_check_output(const struct op_vector *v, size_t k, struct webnn_operand *o,
			    const void *bytes, struct ov_run *run)
{
	const struct ov_operand *w = &v->want[k];
	struct webnn_operand_desc d;
	webnn_operand_get_desc(o, &d);
	bool same = d.data_type == w->type && d.rank == w->rank;
	for (uint32_t i = 0; same && i < w->rank; i++)
		same = d.shape[i] == w->shape[i];
	if (!same) {
		snprintf(run->msg, run->len, "output %zu: type %s rank %u, expected %s rank %u", k,
			 webnn_data_type_name(d.data_type), d.rank, webnn_data_type_name(w->type),
			 w->rank);
		return false;
	}
	if (!bytes)
		return true;
	for (size_t i = 0; i < ov_count(w); i++) {
		double got = ov_decode(w->type, bytes, i);
		if (!ov_value_matches(v, w->type, got, w->v[i])) {
			snprintf(run->msg, run->len, "output %zu [%zu] = %.9g, expected %.9g", k, i,
				 got, w->v[i]);
			return false;
		}
	}
	return true;
}

static enum webnn_status ov_build_op(const struct op_vector *v, struct webnn_builder *b,
				     struct webnn_operand *const *in, struct webnn_operand **out)
{
	if (v->unary)
		return v->unary(b, in[0], &out[0]);
	if (v->binary)
		return v->binary(b, in[0], in[1], &out[0]);
	return v->build(b, in, out);
}

/* Builds and runs one vector; false with the reason in run->msg. */
static bool ov_run_vector(const struct op_vector *v, struct ov_run *run)
{
	static const char *const in_names[OV_MAX_IN] = { "in0", "in1", "in2", "in3",
								  "in4", "in5", "in6", "in7" };
	static const char *const out_names[OV_MAX_OUT] = { "out0", "out1", "out2" };
	struct webnn_builder *b = NULL;
	struct webnn_graph *g = NULL;
	struct webnn_operand *in[OV_MAX_IN] = { 0 }, *out[OV_MAX_OUT] = { 0 };
	struct webnn_tensor *tin[OV_MAX_IN] = { 0 }, *tout[OV_MAX_OUT] = { 0 };
	struct webnn_named_tensor bind_in[OV_MAX_IN], bind_out[OV_MAX_OUT];
	struct webnn_named_operand named[OV_MAX_OUT];
	unsigned char bytes[OV_MAX_IN + OV_MAX_OUT][512];
	size_t n_in = 0, n_out = ov_n_want(v);
	bool ok = false;
	OV_TRY(run, webnn_builder_create(run->ctx, &b));
	for (size_t i = 0; i < OV_MAX_IN && v->in[i].type; i++) {
		struct webnn_operand_desc d = ov_desc(&v->in[i]);
		size_t size = webnn_data_type_byte_length(d.data_type, ov_count(&v->in[i]));
		if (size > sizeof(bytes[i])) {
			snprintf(run->msg, run->len, "input %zu: more than a vector holds", i);
			goto out;
		}
		ov_encode(&v->in[i], bytes[i]);
		if (v->in[i].constant) {
			OV_TRY(run, webnn_builder_constant(b, &d, bytes[i], size, &in[i]));
			continue;
		}
		OV_TRY(run, webnn_builder_input(b, in_names[i], &d, &in[i]));
		struct webnn_tensor_desc td = { .desc = d, .writable = true };
		OV_TRY(run, webnn_context_create_tensor(run->ctx, &td, &tin[n_in]));
		OV_TRY(run, webnn_context_write_tensor(run->ctx, tin[n_in], bytes[i], size));
		bind_in[n_in] = (struct webnn_named_tensor){ in_names[i], tin[n_in] };
		n_in++;
	}
	OV_TRY(run, ov_build_op(v, b, in, out));
	for (size_t k = 0; k < n_out; k++) {
		if (!ov_check_output(v, k, out[k], NULL, run))
			goto out;
		if (webnn_data_type_byte_length(v->want[k].type, ov_count(&v->want[k])) >
		    sizeof(bytes[0])) {
			snprintf(run->msg, run->len, "output %zu: more than a vector holds", k);
			goto out;
		}
		named[k] = (struct webnn_named_operand){ out_names[k], out[k] };
		bool packed = v->want[k].type == WEBNN_INT4 || v->want[k].type == WEBNN_UINT4;
		struct webnn_tensor_desc td = { .desc = ov_desc(&v->want[k]), .readable = true,
						.writable = packed };
		OV_TRY(run, webnn_context_create_tensor(run->ctx, &td, &tout[k]));
		if (packed) {
			/* all ones first: an odd count's spare high nibble must come back 0 */
			size_t size = webnn_data_type_byte_length(td.desc.data_type,
								  ov_count(&v->want[k]));
			memset(bytes[OV_MAX_IN + k], 0xff, size);
			OV_TRY(run, webnn_context_write_tensor(run->ctx, tout[k],
							       bytes[OV_MAX_IN + k], size));
		}
		bind_out[k] = (struct webnn_named_tensor){ out_names[k], tout[k] };
	}
	OV_TRY(run, webnn_builder_build(b, named, n_out, &g));
	OV_TRY(run, webnn_context_dispatch(run->ctx, g, bind_in, n_in, bind_out, n_out));
	OV_TRY(run, webnn_context_flush(run->ctx));
	for (size_t k = 0; k < n_out; k++) {
		void *o = bytes[OV_MAX_IN + k];
		size_t size = webnn_data_type_byte_length(v->want[k].type, ov_count(&v->want[k]));
		OV_TRY(run, webnn_context_read_tensor(run->ctx, tout[k], o, size));
		if (!ov_check_output(v, k, out[k], o, run))
			goto out;
		size_t cnt = ov_count(&v->want[k]);
		if ((v->want[k].type == WEBNN_INT4 || v->want[k].type == WEBNN_UINT4) && (cnt & 1) &&
		    (((const uint8_t *)o)[cnt / 2] & 0xf0)) {
			snprintf(run->msg, run->len, "output %zu: spare high nibble is 0x%x, not 0",
				 k, ((const uint8_t *)o)[cnt / 2] >> 4);
			goto out;
		}
	}
	ok = true;
out:
	for (size_t i = 0; i < OV_MAX_IN; i++)
		webnn_tensor_destroy(tin[i]);
	for (size_t k = 0; k < OV_MAX_OUT; k++)
		webnn_tensor_destroy(tout[k]);
	webnn_graph_destroy(g);
	webnn_builder_destroy(b);
	return ok;
}

void ov_run_family(enum wnn_family family, const char *backend)
{
	ct_require_webnnd();
	if (strcmp(backend, "opencl") == 0 && !test_have_opencl())
		SKIP("no OpenCL platform");
	const char *const args[] = { "--backend", backend, NULL };
	struct test_daemon d;
	test_daemon_start(&d, args);
	struct webnn_context *ctx = ct_connect(&d, "ops_vectors");
	char msg[1024];
	struct ov_run run = { ctx, msg, sizeof(msg) };
	size_t n = 0, failed = 0;
	for (const struct ov_table *t = __start_wnn_opvectors; t < __stop_wnn_opvectors; t++) {
		if (t->family != family)
			continue;
		for (size_t i = 0; i < t->n; i++) {
			const struct op_vector *v = &t->v[i];
			n++;
			msg[0] = 0;
			if (wnn_ops[v->op].family != family)
				snprintf(msg, sizeof(msg), "operator of family %s in the %s table",
					 wnn_family_name(wnn_ops[v->op].family),
					 wnn_family_name(family));
			else if (ov_run_vector(v, &run))
				continue;
			failed++;
			fprintf(stderr, "%s: %s (%s): %s\n", backend, wnn_ops[v->op].name, v->what,
				msg);
		}
	}
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
	fprintf(stderr, "%s %s: %zu vectors, %zu failed\n", wnn_family_name(family), backend, n,
		failed);
	ASSERT_MSG(n > 0, "no vectors registered for family %s", wnn_family_name(family));
	ASSERT_MSG(failed == 0, "%zu of %zu %s vectors failed on %s", failed, n,
		   wnn_family_name(family), backend);
}

/* ---- coverage: every operator has hand-computed vectors, integer ones where it has an
 * integer form */

static bool ov_int_vector(const struct op_vector *v)
{
	return v->in[0].type && !ov_is_float(v->in[0].type);
}

static void ov_count_vectors(enum wnn_op op, size_t *any, size_t *ints)
{
	*any = *ints = 0;
	for (const struct ov_table *t = __start_wnn_opvectors; t < __stop_wnn_opvectors; t++)
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i].op == op) {
				(*any)++;
				*ints += ov_int_vector(&t->v[i]);
			}
}

/* Adds 1 to files[op] for each operator a WPT conformance file builds a graph with. */
static void ov_scan_conformance_file(const char *path, int *files)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	static char buf[1 << 22];
	size_t len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = 0;
	fclose(f);
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		char needle[96];
		snprintf(needle, sizeof(needle), "{\"name\":\"%s\",\"arguments\"",
			 wnn_ops[op].name);
		files[op] += strstr(buf, needle) != NULL;
	}
}

/* Informational: which operators the WPT conformance cases of ../shared exercise as well. */
static void ov_report_conformance(void)
{
	const char *shared = test_shared_dir();
	char dir[4096], path[8192];
	snprintf(dir, sizeof(dir), "%s/conformance", shared ? shared : "");
	DIR *dp = shared ? opendir(dir) : NULL;
	if (!dp) {
		fprintf(stderr, "note: ../shared/conformance is absent (set WEBNN_SHARED): "
				"WPT conformance cases not listed\n");
		return;
	}
	int files[WNN_OP_COUNT] = { 0 }, with = 0;
	for (struct dirent *e; (e = readdir(dp));) {
		if (e->d_name[0] == '_' || !strstr(e->d_name, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		ov_scan_conformance_file(path, files);
	}
	closedir(dp);
	fprintf(stderr, "WPT conformance files per operator:");
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		fprintf(stderr, " %s:%d", wnn_ops[op].name, files[op]);
		with += files[op] > 0;
	}
	fprintf(stderr, "\nnote: %d of %d operators have WPT conformance cases\n", with,
		WNN_OP_COUNT);
}

TEST(ops_vectors_cover_every_operator)
{
	size_t missing = 0;
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		const struct wnn_op_info *info = &wnn_ops[op];
		size_t any, ints;
		ov_count_vectors((enum wnn_op)op, &any, &ints);
		if (!any) {
			fprintf(stderr, "%s (%s): no hand-computed vector\n", info->name,
				wnn_family_name(info->family));
			missing++;
		} else if (info->family == WNN_FAMILY_ELEMENTWISE && info->has_int_expr && !ints) {
			fprintf(stderr, "%s: has an integer expression but no integer vector\n",
				info->name);
			missing++;
		}
	}
	ov_report_conformance();
	ASSERT_MSG(missing == 0, "%zu operators lack hand-computed vectors (listed above)",
		   missing);
}
