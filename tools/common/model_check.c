/* Runs a model test folder's data sets through libwebnn-import and compares with the expected outputs. */
#include "tools/common/model_check.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/common/compare.h"
#include "webnn_import.h"

static void line(const struct tool_check_options *o, const char *dir, const char *set,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void line(const struct tool_check_options *o, const char *dir, const char *set,
		 const char *fmt, ...)
{
	if (!o->out)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(o->out, "%s%s%s: ", o->label ? o->label : dir, set ? "/" : "", set ? set : "");
	vfprintf(o->out, fmt, ap);
	fputc('\n', o->out);
	fflush(o->out);
	va_end(ap);
}

double tool_element(enum webnn_data_type t, const void *p, size_t i)
{
	switch (t) {
	case WEBNN_FLOAT32: return ((const float *)p)[i];
	case WEBNN_FLOAT16: return webnn_float16_to_float32(((const uint16_t *)p)[i]);
	case WEBNN_INT32: return ((const int32_t *)p)[i];
	case WEBNN_UINT32: return ((const uint32_t *)p)[i];
	case WEBNN_INT64: return (double)((const int64_t *)p)[i];
	case WEBNN_UINT64: return (double)((const uint64_t *)p)[i];
	case WEBNN_INT8: return ((const int8_t *)p)[i];
	case WEBNN_UINT8: return ((const uint8_t *)p)[i];
	case WEBNN_INT4:
	case WEBNN_UINT4: { /* two per byte, the first in the low nibble */
		unsigned nib = (((const uint8_t *)p)[i >> 1] >> ((i & 1) * 4)) & 15;
		return t == WEBNN_INT4 ? (double)(((int)nib ^ 8) - 8) : nib;
	}
	}
	return 0;
}

size_t tool_desc_elements(const struct webnn_operand_desc *d)
{
	size_t n = 1;
	for (uint32_t i = 0; i < d->rank; i++)
		n *= d->shape[i];
	return n;
}

size_t tool_desc_byte_length(const struct webnn_operand_desc *d)
{
	return (size_t)webnn_data_type_byte_length(d->data_type, tool_desc_elements(d));
}

/* Compares n elements of type t: true when all are within tolerance; else why (first bad
 * element) into why. */
static bool tool_check_values(enum webnn_data_type t, const void *got, const void *want, size_t n,
			     double atol, double rtol, char *why, size_t len)
{
	bool fl = t == WEBNN_FLOAT32 || t == WEBNN_FLOAT16;
	for (size_t i = 0; i < n; i++) {
		if (fl) {
			double a = tool_element(t, got, i), b = tool_element(t, want, i);
			if (isnan(a) && isnan(b))
				continue;
			if (a == b)
				continue; /* infinities of the same sign */
			if (fabs(a - b) <= atol + rtol * fabs(b))
				continue;
			snprintf(why, len, "element %zu is %.9g, expected %.9g (|diff| %.3g > %.3g)",
				 i, a, b, fabs(a - b), atol + rtol * fabs(b));
			return false;
		}
		bool same;
		if (t == WEBNN_INT64 || t == WEBNN_UINT64)
			same = ((const int64_t *)got)[i] == ((const int64_t *)want)[i];
		else
			same = tool_element(t, got, i) == tool_element(t, want, i);
		if (!same) {
			snprintf(why, len, "element %zu is %.17g, expected %.17g", i, tool_element(t, got, i),
				 tool_element(t, want, i));
			return false;
		}
	}
	return true;
}


static bool same_shape(const struct webnn_operand_desc *a, const struct webnn_operand_desc *b)
{
	if (a->rank != b->rank)
		return false;
	for (uint32_t i = 0; i < a->rank; i++)
		if (a->shape[i] != b->shape[i])
			return false;
	return true;
}

static void shape_str(const struct webnn_operand_desc *d, char *buf, size_t len)
{
	int k = snprintf(buf, len, "%s[", webnn_data_type_name(d->data_type));
	for (uint32_t i = 0; i < d->rank && k > 0 && (size_t)k < len; i++)
		k += snprintf(buf + k, len - (size_t)k, "%s%u", i ? "," : "", d->shape[i]);
	if (k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, "]");
}

struct tensor_file {
	struct webnn_operand_desc desc;
	void *data;
	size_t size;
};

/* One data set: inputs bound in graph order, outputs compared in graph order. Returns 1 pass,
 * 0 fail (why filled). */
static int run_set(struct webnn_context *ctx, struct webnn_model *m, struct tensor_file *in,
		   size_t n_in, struct tensor_file *want, size_t n_want,
		   const struct tool_check_options *o, char *why, size_t len)
{
	size_t ni = webnn_model_input_count(m), no = webnn_model_output_count(m);
	if (n_in != ni) {
		snprintf(why, len, "the data set has %zu inputs, the graph %zu", n_in, ni);
		return 0;
	}
	if (n_want != no) {
		snprintf(why, len, "the data set has %zu outputs, the graph %zu", n_want, no);
		return 0;
	}
	struct webnn_named_tensor *ti = calloc(ni + 1, sizeof(*ti)), *to = calloc(no + 1, sizeof(*to));
	int ok = 0;
	if (!ti || !to) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	/* A model input no operation reads is not an input of the built graph: its data is
	 * checked and left out of the dispatch. */
	struct webnn_graph *g = webnn_model_graph(m);
	size_t nb = 0;
	for (size_t i = 0; i < ni; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		webnn_model_input_desc(m, i, &td.desc);
		char a[128], b[128];
		if (td.desc.data_type != in[i].desc.data_type || !same_shape(&td.desc, &in[i].desc)) {
			shape_str(&td.desc, a, sizeof(a));
			shape_str(&in[i].desc, b, sizeof(b));
			snprintf(why, len, "input %zu (\"%s\") is %s, the data set's %s", i,
				 webnn_model_input_name(m, i), a, b);
			goto out;
		}
		bool used = false;
		for (size_t k = 0; k < webnn_graph_input_count(g) && !used; k++)
			used = strcmp(webnn_graph_input_name(g, k, NULL), webnn_model_input_name(m, i)) == 0;
		if (!used)
			continue;
		ti[nb].name = webnn_model_input_name(m, i);
		enum webnn_status s = webnn_context_create_tensor(ctx, &td, &ti[nb].tensor);
		if (s == WEBNN_STATUS_OK)
			s = webnn_context_write_tensor(ctx, ti[nb].tensor, in[i].data, in[i].size);
		nb++;
		if (s != WEBNN_STATUS_OK) {
			snprintf(why, len, "input \"%s\": %s", ti[nb - 1].name,
				 webnn_context_last_error(ctx));
			goto out;
		}
	}
	for (size_t i = 0; i < no; i++) {
		struct webnn_tensor_desc td = { .readable = true };
		webnn_model_output_desc(m, i, &td.desc);
		char a[128], b[128];
		if (td.desc.data_type != want[i].desc.data_type ||
		    !same_shape(&td.desc, &want[i].desc)) {
			shape_str(&td.desc, a, sizeof(a));
			shape_str(&want[i].desc, b, sizeof(b));
			snprintf(why, len, "output %zu (\"%s\") is %s, expected %s", i,
				 webnn_model_output_name(m, i), a, b);
			goto out;
		}
		to[i].name = webnn_model_output_name(m, i);
		if (webnn_context_create_tensor(ctx, &td, &to[i].tensor) != WEBNN_STATUS_OK) {
			snprintf(why, len, "output \"%s\": %s", to[i].name,
				 webnn_context_last_error(ctx));
			goto out;
		}
	}
	enum webnn_status s = webnn_context_dispatch(ctx, g, ti, nb, to, no);
	if (s != WEBNN_STATUS_OK) {
		snprintf(why, len, "dispatch: %s", webnn_context_last_error(ctx));
		goto out;
	}
	ok = 1;
	for (size_t i = 0; i < no && ok; i++) {
		size_t bytes = tool_desc_byte_length(&want[i].desc);
		void *got = malloc(bytes ? bytes : 1);
		if (!got) {
			snprintf(why, len, "out of memory");
			ok = 0;
			break;
		}
		s = webnn_context_read_tensor(ctx, to[i].tensor, got, bytes);
		if (s != WEBNN_STATUS_OK) {
			snprintf(why, len, "reading \"%s\": %s", to[i].name,
				 webnn_context_last_error(ctx));
			ok = 0;
		} else {
			char w[384];
			if (!tool_check_values(want[i].desc.data_type, got, want[i].data,
					      tool_desc_elements(&want[i].desc),
					      o->atol, o->rtol, w, sizeof(w))) {
				snprintf(why, len, "output %zu (\"%s\"): %s", i, to[i].name, w);
				ok = 0;
			}
		}
		free(got);
	}
out:
	for (size_t i = 0; ti && i < ni; i++)
		webnn_tensor_destroy(ti[i].tensor);
	for (size_t i = 0; to && i < no; i++)
		webnn_tensor_destroy(to[i].tensor);
	free(ti);
	free(to);
	return ok;
}

static void free_files(struct tensor_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].data);
}

/* Reads prefix_0.pb, prefix_1.pb, ... of set into f (up to max); -1 with why on error. */
static long read_pb_series(const char *set, const char *prefix, struct tensor_file *f, size_t max,
			   char *why, size_t len)
{
	size_t n = 0;
	for (; n < max; n++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s_%zu.pb", set, prefix, n);
		struct stat st;
		if (stat(path, &st) != 0)
			break;
		if (webnn_tensor_file_read(path, &f[n].desc, &f[n].data, &f[n].size, why, len) !=
		    WEBNN_STATUS_OK) {
			free_files(f, n);
			return -1;
		}
	}
	return (long)n;
}

/* NNEF: inputs/<input name>.dat and outputs/<output name>.dat, in the model's order. */
static long read_named(const char *dir, const char *sub, struct webnn_model *m, bool inputs,
		       struct tensor_file *f, size_t max, char *why, size_t len)
{
	size_t n = inputs ? webnn_model_input_count(m) : webnn_model_output_count(m);
	if (n > max) {
		snprintf(why, len, "more than %zu %s", max, sub);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		const char *name = inputs ? webnn_model_input_name(m, i) : webnn_model_output_name(m, i);
		snprintf(path, sizeof(path), "%s/%s/%s.dat", dir, sub, name);
		if (webnn_tensor_file_read(path, &f[i].desc, &f[i].data, &f[i].size, why, len) !=
		    WEBNN_STATUS_OK) {
			free_files(f, i);
			return -1;
		}
	}
	return (long)n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

#define MAX_TENSORS 64

/* Free dimensions of an ONNX model the caller did not bind take their sizes from the first
 * data set's inputs (input_K.pb is the K-th of the graph's inputs that are not initializers):
 * named ones by name, the others by position ("input:axis"). */
static size_t bind_from_data(const char *model_path, const char *set,
			     const struct webnn_import_options *base, struct webnn_dim_binding *out,
			     char names[][64], size_t max)
{
	size_t n = 0;
	char err[256];
	struct webnn_model_info *info = NULL;
	if (webnn_model_inspect(NULL, model_path, NULL, &info, err, sizeof(err)) != WEBNN_STATUS_OK)
		return 0;
	for (size_t k = 0; k < info->n_inputs && n < max; k++) {
		const struct webnn_model_value_info *vi = &info->inputs[k];
		char path[4200];
		snprintf(path, sizeof(path), "%s/input_%zu.pb", set, k);
		struct webnn_operand_desc d;
		void *data = NULL;
		size_t ds;
		if (!vi->has_shape ||
		    webnn_tensor_file_read(path, &d, &data, &ds, err, sizeof(err)) != WEBNN_STATUS_OK)
			continue;
		free(data);
		for (uint32_t a = 0; a < vi->rank && a < d.rank && a < WEBNN_MAX_RANK && n < max;
		     a++) {
			const char *dn = vi->dim_names[a];
			if (!dn)
				continue;
			char name[64];
			if ((size_t)snprintf(name, sizeof(name), *dn ? "%s" : "%s:%u",
					     *dn ? dn : vi->name, a) >= sizeof(name))
				continue; /* too long to keep: left unbound, which the load reports */
			bool known = false;
			for (size_t b = 0; base && b < base->n_dims; b++)
				known |= strcmp(base->dims[b].name, name) == 0;
			for (size_t b = 0; b < n; b++)
				known |= strcmp(out[b].name, name) == 0;
			if (known)
				continue;
			memcpy(names[n], name, sizeof(name));
			out[n].name = names[n];
			out[n].value = d.shape[a];
			n++;
		}
	}
	webnn_model_info_destroy(info);
	return n;
}

void tool_check_dir(struct webnn_context *ctx, const char *dir, const struct tool_check_options *o,
		   struct tool_check_counts *c)
{
	char path[4096], err[1024] = "";
	struct stat st;
	bool onnx = true;
	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	if (stat(path, &st) != 0) {
		snprintf(path, sizeof(path), "%s/graph.nnef", dir);
		if (stat(path, &st) != 0) {
			line(o, dir, NULL, "FAIL neither model.onnx nor graph.nnef");
			snprintf(c->reason, sizeof(c->reason), "neither model.onnx nor graph.nnef");
			c->failed++;
			return;
		}
		onnx = false;
		snprintf(path, sizeof(path), "%s", dir);
	}
	struct webnn_model *m = NULL;
	/* The caller's bindings, then the free dimensions' sizes in the first data set. */
	struct webnn_import_options io = WEBNN_IMPORT_OPTIONS_INIT;
	if (o->import)
		io = *o->import;
	struct webnn_dim_binding dims[32];
	static char dim_names[32][64];
	size_t nd = 0;
	for (size_t i = 0; i < io.n_dims && nd < 32; i++)
		dims[nd++] = io.dims[i];
	if (onnx) {
		char set[4096];
		snprintf(set, sizeof(set), "%s/test_data_set_0", dir);
		nd += bind_from_data(path, set, o->import, dims + nd, dim_names, 32 - nd);
	}
	io.dims = dims;
	io.n_dims = nd;
	enum webnn_status s = webnn_model_load(ctx, path, &io, &m, err, sizeof(err));
	if (s != WEBNN_STATUS_OK) {
		/* one line per data set: the load's reasons (one a line) joined by "; " */
		char joined[sizeof(err)];
		size_t k = 0;
		for (const char *p = err; *p && k + 3 < sizeof(joined); p++) {
			if (*p == '\n')
				joined[k++] = ';';
			joined[k++] = *p == '\n' ? ' ' : *p;
		}
		joined[k] = 0;
		memcpy(err, joined, k + 1);
		snprintf(c->reason, sizeof(c->reason), "%s", err);
		if (s == WEBNN_STATUS_NOT_SUPPORTED) {
			line(o, dir, NULL, "SKIP %s", err);
			c->skipped++;
		} else {
			line(o, dir, NULL, "FAIL %s: %s", webnn_status_name(s), err);
			c->failed++;
		}
		return;
	}
	struct tensor_file in[MAX_TENSORS], want[MAX_TENSORS];
	if (!onnx) {
		long ni = read_named(dir, "inputs", m, true, in, MAX_TENSORS, err, sizeof(err)), nw = -1;
		if (ni >= 0 && (nw = read_named(dir, "outputs", m, false, want, MAX_TENSORS, err,
						sizeof(err))) < 0)
			free_files(in, (size_t)ni);
		if (ni < 0 || nw < 0) {
			line(o, dir, NULL, "FAIL %s", err);
			snprintf(c->reason, sizeof(c->reason), "%s", err);
			c->failed++;
		} else {
			if (run_set(ctx, m, in, (size_t)ni, want, (size_t)nw, o, err, sizeof(err))) {
				line(o, dir, NULL, "PASS");
				c->passed++;
			} else {
				line(o, dir, NULL, "FAIL %s", err);
				snprintf(c->reason, sizeof(c->reason), "%s", err);
				c->failed++;
			}
			free_files(in, (size_t)ni);
			free_files(want, (size_t)nw);
		}
		webnn_model_destroy(m);
		return;
	}
	DIR *d = opendir(dir);
	char **sets = NULL;
	size_t n_sets = 0, cap = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "test_data_set_", 14) != 0)
			continue;
		if (n_sets == cap) {
			cap = cap ? cap * 2 : 8;
			char **ns = realloc(sets, cap * sizeof(*ns));
			if (!ns)
				break;
			sets = ns;
		}
		if (!(sets[n_sets] = strdup(e->d_name)))
			break;
		n_sets++;
	}
	if (d)
		closedir(d);
	if (!n_sets) {
		line(o, dir, NULL, "FAIL no test_data_set_* folders");
		snprintf(c->reason, sizeof(c->reason), "no test_data_set_* folders");
		c->failed++;
	}
	qsort(sets, n_sets, sizeof(*sets), cmp_str);
	for (size_t k = 0; k < n_sets; k++) {
		char set[4096];
		snprintf(set, sizeof(set), "%s/%s", dir, sets[k]);
		long ni = read_pb_series(set, "input", in, MAX_TENSORS, err, sizeof(err)), nw = -1;
		if (ni >= 0 && (nw = read_pb_series(set, "output", want, MAX_TENSORS, err,
						    sizeof(err))) < 0)
			free_files(in, (size_t)ni);
		int ok = 0;
		if (ni >= 0 && nw >= 0) {
			ok = run_set(ctx, m, in, (size_t)ni, want, (size_t)nw, o, err, sizeof(err));
			free_files(in, (size_t)ni);
			free_files(want, (size_t)nw);
		}
		if (ok) {
			line(o, dir, sets[k], "PASS");
			c->passed++;
		} else {
			line(o, dir, sets[k], "FAIL %s", err);
			snprintf(c->reason, sizeof(c->reason), "%s", err);
			c->failed++;
		}
		free(sets[k]);
	}
	free(sets);
	webnn_model_destroy(m);
}
