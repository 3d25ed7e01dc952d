/* webnn-run for model files: runs an ONNX file or NNEF folder through libwebnn-import, or checks model test folders (--check DIR). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tools/common/model_check.h"
#include "run.h"
#include "webnn_import.h"

#define MAX_BINDINGS 64

struct model_opts {
	const char *socket, *output_dir;
	struct { char *name; const char *file; } inputs[MAX_BINDINGS];
	size_t n_inputs;
	struct webnn_dim_binding dims[MAX_BINDINGS];
	size_t n_dims;
	struct { char *name; const char *value; } binds[MAX_BINDINGS];
	size_t n_binds;
	int iterations;
	bool check, info, verbose, cache;
	double atol, rtol;
};

/* A --input file read before the load: its shape binds the input's free dimensions. */
struct input_file {
	struct webnn_operand_desc desc;
	void *data;
	size_t size;
};

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

bool run_model_mode(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--input", 7) == 0 || strncmp(a, "--output-dir", 12) == 0 ||
		    strncmp(a, "--dim", 5) == 0 || strncmp(a, "--iterations", 12) == 0 ||
		    strncmp(a, "--atol", 6) == 0 || strncmp(a, "--rtol", 6) == 0 ||
		    strcmp(a, "--info") == 0 || strncmp(a, "--bind", 6) == 0 ||
		    strcmp(a, "--cache") == 0)
			return true;
		if (a[0] != '-' && (is_dir(a) || ends_with(a, ".onnx") || ends_with(a, ".nnef")))
			return true;
	}
	return false;
}

static void model_usage(FILE *f)
{
	fprintf(f,
		"usage: webnn-run [--socket PATH] MODEL [--input NAME=FILE.npy|.pb|.dat ...]\n"
		"                 [--output-dir DIR] [--dim NAME=N | --dim INPUT:AXIS=N ...]\n"
		"                 [--bind NAME=VALUE[,VALUE...] ...] [--iterations K] [--verbose]\n"
		"                 [--cache]\n"
		"       webnn-run [--socket PATH] MODEL --info [--dim ...]\n"
		"       webnn-run [--socket PATH] --check [--atol A] [--rtol R] [--dim NAME=N] DIR...\n"
		"MODEL is an ONNX file or an NNEF folder (or its graph.nnef). Inputs not given are\n"
		"filled with a fixed pattern. Prints each output's summary and the load, build, first\n"
		"and steady-state run times; --output-dir writes the outputs as .npy files.\n"
		"A free dimension is bound by its name (--dim N=1) or, named or not, by its input and\n"
		"axis (--dim x:0=1); one not bound takes its size from the --input file of its input.\n"
		"--bind freezes an input to a value (a number or a comma list, in the input's\n"
		"declared type): it is a constant at load time (e.g. --bind sr=16000).\n"
		"--info prints the inputs and outputs, the free dimensions, the operators by type and\n"
		"every reason the model would not load (exit status 1 when it would not).\n"
		"--verbose adds the operators by type, the constants' bytes and what webnnd made of\n"
		"the graph (operations, kernels, folded, fused, memory plan).\n"
		"--cache uses webnnd's graph cache (yours alone): the graph is saved under a key made\n"
		"of the model file's content hash and the options that shape it (--dim, --bind, the\n"
		"--input files' shapes); a later run with the same key loads it without importing\n"
		"the model or sending its weights. The run says whether it built or loaded.\n"
		"--check runs a test folder: ONNX's layout (model.onnx, test_data_set_K/input_I.pb and\n"
		"output_I.pb) or NNEF's (graph.nnef, inputs/<name>.dat, outputs/<name>.dat), printing\n"
		"PASS, FAIL <why> or SKIP <why> per data set; floats pass when |a-b| <= atol + rtol*|b|\n"
		"(default 1e-4 and 1e-4). The exit status is 1 when anything failed.\n");
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct progress {
	double start;
	bool tty, shown;
};

/* A bar on stderr, only for loads past a second and only on a terminal. */
static void on_progress(void *ud, double fraction)
{
	struct progress *p = ud;
	if (!p->tty || now_ms() - p->start < 1000)
		return;
	int w = 40, k = (int)(fraction * w);
	fprintf(stderr, "\rloading [%.*s%*s] %3.0f%%", k, "########################################",
		w - k, "", fraction * 100);
	p->shown = true;
}

static int parse_binding(const char *arg, char **name, const char **value)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return -1;
	*name = strndup(arg, (size_t)(eq - arg));
	*value = eq + 1;
	return *name ? 0 : -1;
}

static int parse_model_args(int argc, char **argv, struct model_opts *o, int *first)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "input", required_argument, NULL, 'i' },
		{ "output-dir", required_argument, NULL, 'o' },
		{ "dim", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "check", no_argument, NULL, 'c' },
		{ "info", no_argument, NULL, 'I' },
		{ "bind", required_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "cache", no_argument, NULL, 'C' },
		{ "atol", required_argument, NULL, 'a' },
		{ "rtol", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	char *name, *end;
	const char *value;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "s:i:o:d:n:cvb:a:r:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': o->socket = optarg; break;
		case 'o': o->output_dir = optarg; break;
		case 'c': o->check = true; break;
		case 'I': o->info = true; break;
		case 'v': o->verbose = true; break;
		case 'C': o->cache = true; break;
		case 'i':
			if (o->n_inputs == MAX_BINDINGS || parse_binding(optarg, &name, &value)) {
				fprintf(stderr, "webnn-run: --input %s: expected NAME=FILE\n", optarg);
				return -1;
			}
			o->inputs[o->n_inputs].name = name;
			o->inputs[o->n_inputs++].file = value;
			break;
		case 'b':
			if (o->n_binds == MAX_BINDINGS || parse_binding(optarg, &name, &value)) {
				fprintf(stderr, "webnn-run: --bind %s: expected NAME=VALUE or "
					"NAME=V1,V2,...\n", optarg);
				return -1;
			}
			o->binds[o->n_binds].name = name;
			o->binds[o->n_binds++].value = value;
			break;
		case 'd': {
			unsigned long v;
			if (o->n_dims == MAX_BINDINGS || parse_binding(optarg, &name, &value) ||
			    (errno = 0, v = strtoul(value, &end, 10), *end || errno || v == 0 ||
			     v > UINT32_MAX)) {
				fprintf(stderr, "webnn-run: --dim %s: expected NAME=N or INPUT:AXIS=N "
					"with N >= 1\n", optarg);
				return -1;
			}
			o->dims[o->n_dims].name = name;
			o->dims[o->n_dims++].value = (uint32_t)v;
			break;
		}
		case 'n':
			o->iterations = atoi(optarg);
			if (o->iterations < 1) {
				fprintf(stderr, "webnn-run: --iterations %s: expected K >= 1\n", optarg);
				return -1;
			}
			break;
		case 'a':
		case 'r': {
			double v = strtod(optarg, &end);
			if (*end || v < 0 || isnan(v)) {
				fprintf(stderr, "webnn-run: --%s %s: expected a number >= 0\n",
					ch == 'a' ? "atol" : "rtol", optarg);
				return -1;
			}
			*(ch == 'a' ? &o->atol : &o->rtol) = v;
			break;
		}
		case 'h': model_usage(stdout); exit(0);
		default: model_usage(stderr); return -1;
		}
	}
	if (optind >= argc) {
		model_usage(stderr);
		return -1;
	}
	*first = optind;
	return 0;
}

static struct webnn_context *connect_model_context(const struct model_opts *o)
{
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	co.socket_path = o->socket;
	co.client_name = "webnn-run";
	struct webnn_context *ctx = NULL;
	char err[512] = "";
	enum webnn_status s = webnn_context_create(&co, &ctx, err, sizeof(err));
	if (s != WEBNN_STATUS_OK) {
		fprintf(stderr, "webnn-run: cannot create a context: %s: %s\n", webnn_status_name(s),
			err);
		return NULL;
	}
	return ctx;
}


static void print_desc(FILE *f, const struct webnn_operand_desc *d)
{
	fprintf(f, "%s[", webnn_data_type_name(d->data_type));
	for (uint32_t i = 0; i < d->rank; i++)
		fprintf(f, "%s%u", i ? "," : "", d->shape[i]);
	fprintf(f, "]");
}

/* .npy, format 1.0, little-endian C order. */
static int write_npy(const char *path, const struct webnn_operand_desc *d, const void *data,
		     size_t bytes)
{
	static const char *const descr[] = { [WEBNN_FLOAT32] = "<f4", [WEBNN_FLOAT16] = "<f2",
		[WEBNN_INT32] = "<i4", [WEBNN_UINT32] = "<u4", [WEBNN_INT64] = "<i8",
		[WEBNN_UINT64] = "<u8", [WEBNN_INT8] = "|i1", [WEBNN_UINT8] = "|u1" };
	char shape[256] = "", h[512];
	int k = 0;
	for (uint32_t i = 0; i < d->rank; i++)
		k += snprintf(shape + k, sizeof(shape) - (size_t)k, "%u,%s", d->shape[i],
			      i + 1 < d->rank ? " " : "");
	if (d->rank > 1)
		shape[k - 1] = 0; /* (2, 3) but (4,) */
	int n = snprintf(h, sizeof(h), "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
			 descr[d->data_type], shape);
	int pad = 64 - (10 + n + 1) % 64;
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	uint16_t hl = (uint16_t)(n + pad + 1);
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	fputc(hl & 0xff, f);
	fputc(hl >> 8, f);
	fwrite(h, 1, (size_t)n, f);
	for (int i = 0; i < pad; i++)
		fputc(' ', f);
	fputc('\n', f);
	size_t w = fwrite(data, 1, bytes, f);
	return fclose(f) == 0 && w == bytes ? 0 : -1;
}

/* "x, mask" into buf: the inputs the caller may give, from the file's declarations or, where
 * the format declares nothing before the load (NNEF), from the loaded model. */
static void input_names(const struct webnn_model_info *info, const struct webnn_model *m,
			char *buf, size_t len)
{
	size_t k = 0, n = info && info->n_inputs ? info->n_inputs : webnn_model_input_count(m);
	buf[0] = 0;
	for (size_t i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "",
				      info && info->n_inputs ? info->inputs[i].name
							     : webnn_model_input_name(m, i));
	if (!n)
		snprintf(buf, len, "none");
}

static bool has_input(const struct webnn_model_info *info, const struct webnn_model *m,
		      const char *name)
{
	if (info && info->n_inputs) {
		for (size_t i = 0; i < info->n_inputs; i++)
			if (strcmp(info->inputs[i].name, name) == 0)
				return true;
		return false;
	}
	for (size_t i = 0; i < webnn_model_input_count(m); i++)
		if (strcmp(webnn_model_input_name(m, i), name) == 0)
			return true;
	return false;
}

/* Every --input names an input of the model; false (said why) otherwise. */
static bool check_input_names(const struct model_opts *o, const struct webnn_model_info *info,
			      const struct webnn_model *m)
{
	for (size_t k = 0; k < o->n_inputs; k++)
		if (!has_input(info, m, o->inputs[k].name)) {
			char names[1024];
			input_names(info, m, names, sizeof(names));
			fprintf(stderr, "webnn-run: --input %s: the model has no input \"%s\"; its "
				"inputs: %s\n", o->inputs[k].name, o->inputs[k].name, names);
			return false;
		}
	return true;
}

static bool dim_given(const struct webnn_dim_binding *dims, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(dims[i].name, name) == 0)
			return true;
	return false;
}

/* The --dim bindings, then one for each free dimension that none binds, taken from the shape
 * of its input's --input file (when its rank is the declared one: otherwise the mismatch is
 * reported once the model is loaded). Names are malloc'ed into names[]. */
static size_t bind_from_files(const struct model_opts *o, const struct webnn_model_info *info,
			      const struct input_file *files, struct webnn_dim_binding *dims,
			      size_t cap, char **names, size_t *n_names)
{
	size_t n = o->n_dims;
	memcpy(dims, o->dims, n * sizeof(*dims));
	for (size_t i = 0; info && i < info->n_free_dims && n < cap; i++) {
		const struct webnn_model_free_dim *f = &info->free_dims[i];
		char pos[1024];
		snprintf(pos, sizeof(pos), "%s:%u", f->input, f->axis);
		if ((*f->name && dim_given(dims, n, f->name)) || dim_given(dims, n, pos))
			continue;
		const struct webnn_model_value_info *decl = NULL;
		for (size_t k = 0; k < info->n_inputs; k++)
			if (strcmp(info->inputs[k].name, f->input) == 0)
				decl = &info->inputs[k];
		const struct input_file *file = NULL;
		for (size_t k = 0; k < o->n_inputs; k++)
			if (strcmp(o->inputs[k].name, f->input) == 0)
				file = &files[k];
		if (!decl || !file || file->desc.rank != decl->rank)
			continue;
		char *name = strdup(*f->name ? f->name : pos);
		if (!name)
			break;
		names[(*n_names)++] = name;
		dims[n++] = (struct webnn_dim_binding){ name, file->desc.shape[f->axis] };
	}
	return n;
}

static void print_value_info(FILE *f, const struct webnn_model_value_info *v)
{
	fprintf(f, "  %s %s", v->name, v->has_data_type ? webnn_data_type_name(v->data_type)
							 : v->type_name);
	if (!v->has_shape) {
		fprintf(f, " (no shape)\n");
		return;
	}
	fprintf(f, "[");
	for (uint32_t i = 0; i < v->rank; i++) {
		const char *dn = i < WEBNN_MAX_RANK ? v->dim_names[i] : "";
		if (dn)
			fprintf(f, "%s%s", i ? "," : "", *dn ? dn : "?");
		else
			fprintf(f, "%s%u", i ? "," : "", v->shape[i]);
	}
	fprintf(f, "]%s\n", v->has_data_type ? "" : " (no WebNN data type)");
}

/* One --bind value as the input's declared type and shape: one free dimension (at most) takes
 * what the count of values leaves; without declarations (NNEF) float32 [count], or a scalar
 * for one value. false (said why) when the values do not fit. */
static bool encode_bind(const char *name, const char *text,
			const struct webnn_model_value_info *decl, struct webnn_input_binding *b)
{
	size_t count = 1;
	for (const char *c = text; *c; c++)
		count += *c == ',';
	struct webnn_operand_desc d = { WEBNN_FLOAT32, count > 1, { (uint32_t)count } };
	if (decl && !decl->has_data_type) {
		fprintf(stderr, "webnn-run: --bind %s: the input's type %s has no WebNN "
			"equivalent\n", name, decl->type_name);
		return false;
	}
	if (decl) {
		d.data_type = decl->data_type;
		if (decl->has_shape) {
			size_t fixed = 1, n_free = 0, at = 0;
			d.rank = decl->rank;
			for (uint32_t i = 0; i < decl->rank && i < WEBNN_MAX_RANK; i++) {
				d.shape[i] = decl->shape[i];
				if (decl->dim_names[i]) {
					n_free++;
					at = i;
				} else {
					fixed *= decl->shape[i];
				}
			}
			if (n_free == 1 && fixed && count % fixed == 0)
				d.shape[at] = (uint32_t)(count / fixed);
			if (d.rank > WEBNN_MAX_RANK || n_free > 1 || tool_desc_elements(&d) != count) {
				fprintf(stderr, "webnn-run: --bind %s: %zu value%s do%s not fill "
					"the input's shape:\n", name, count, count > 1 ? "s" : "",
					count > 1 ? "" : "es");
				print_value_info(stderr, decl);
				return false;
			}
		}
	}
	size_t esz = webnn_data_type_size(d.data_type);
	if (!esz || d.data_type == WEBNN_FLOAT16) {
		fprintf(stderr, "webnn-run: --bind %s: %s inputs cannot be bound from the command "
			"line\n", name, webnn_data_type_name(d.data_type));
		return false;
	}
	uint8_t *data = calloc(count, esz);
	if (!data)
		return false;
	const char *p = text;
	for (size_t i = 0; i < count; i++) {
		char *end;
		errno = 0;
		double v = strtod(p, &end);
		long long iv = strtoll(p, NULL, 10);
		bool is_float = d.data_type == WEBNN_FLOAT32;
		bool ok = end != p && (*end == ',' || !*end) && !errno;
		double lo = 0, hi = 0;
		switch (d.data_type) {
		case WEBNN_INT8: lo = INT8_MIN; hi = INT8_MAX; break;
		case WEBNN_UINT8: hi = UINT8_MAX; break;
		case WEBNN_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
		case WEBNN_UINT32: hi = UINT32_MAX; break;
		case WEBNN_INT64: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
		case WEBNN_UINT64: hi = 18446744073709551615.0; break;
		default: break;
		}
		if (ok && !is_float)
			ok = v == floor(v) && v >= lo && v <= hi;
		if (!ok) {
			fprintf(stderr, "webnn-run: --bind %s: \"%.*s\" is not %s %s value\n", name,
				(int)strcspn(p, ","), p, d.data_type == WEBNN_INT8 ||
				d.data_type == WEBNN_INT32 || d.data_type == WEBNN_INT64 ? "an" : "a",
				webnn_data_type_name(d.data_type));
			free(data);
			return false;
		}
		void *e = data + i * esz;
		switch (d.data_type) {
		case WEBNN_FLOAT32: *(float *)e = (float)v; break;
		case WEBNN_INT8: *(int8_t *)e = (int8_t)v; break;
		case WEBNN_UINT8: *(uint8_t *)e = (uint8_t)v; break;
		case WEBNN_INT32: *(int32_t *)e = (int32_t)v; break;
		case WEBNN_UINT32: *(uint32_t *)e = (uint32_t)v; break;
		case WEBNN_INT64: *(int64_t *)e = iv; break; /* exact past 2^53 */
		case WEBNN_UINT64: *(uint64_t *)e = strtoull(p, NULL, 10); break;
		default: break;
		}
		p = end + (*end == ',');
	}
	*b = (struct webnn_input_binding){ name, d, data, count * esz };
	return true;
}

/* The --bind values, typed by the inputs' declarations; their data is freed with free_binds. */
static bool make_binds(const struct model_opts *o, const struct webnn_model_info *info,
		       struct webnn_input_binding *binds)
{
	for (size_t k = 0; k < o->n_binds; k++) {
		const struct webnn_model_value_info *decl = NULL;
		for (size_t i = 0; info && i < info->n_inputs; i++)
			if (strcmp(info->inputs[i].name, o->binds[k].name) == 0)
				decl = &info->inputs[i];
		if (info && info->n_inputs && !decl) {
			char names[1024];
			input_names(info, NULL, names, sizeof(names));
			fprintf(stderr, "webnn-run: --bind %s: the model has no input \"%s\"; its "
				"inputs: %s\n", o->binds[k].name, o->binds[k].name, names);
			return false;
		}
		if (!encode_bind(o->binds[k].name, o->binds[k].value, decl, &binds[k]))
			return false;
	}
	return true;
}

static void free_binds(struct webnn_input_binding *binds, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free((void *)binds[k].data);
}

static void print_op_types(FILE *f, const struct webnn_model_info *info)
{
	fprintf(f, "operators (%zu):", info->n_nodes);
	for (size_t i = 0; i < info->n_op_types; i++)
		fprintf(f, "%s %zu %s", i ? "," : "", info->op_types[i].count,
			info->op_types[i].op_type);
	fprintf(f, "\n");
}

/* --info: what the file declares and, from a trial load on ctx, what stops it loading. */
static int print_model_info(struct webnn_context *ctx, const struct model_opts *o,
			    const char *path)
{
	struct webnn_import_options io = WEBNN_IMPORT_OPTIONS_INIT;
	struct webnn_input_binding binds[MAX_BINDINGS] = { 0 };
	io.dims = o->dims;
	io.n_dims = o->n_dims;
	io.binds = binds;
	io.n_binds = o->n_binds;
	struct webnn_model_info *info = NULL;
	char err[1024] = "";
	/* the declarations type the --bind values */
	enum webnn_status s = webnn_model_inspect(NULL, path, NULL, &info, err, sizeof(err));
	bool bound = s == WEBNN_STATUS_OK && make_binds(o, info, binds);
	webnn_model_info_destroy(info);
	info = NULL;
	if (bound)
		s = webnn_model_inspect(ctx, path, &io, &info, err, sizeof(err));
	free_binds(binds, o->n_binds);
	if (s != WEBNN_STATUS_OK)
		fprintf(stderr, "webnn-run: %s\n", err);
	if (s != WEBNN_STATUS_OK || !bound)
		return 1;
	bool onnx = strcmp(info->format, "onnx") == 0;
	printf("%s: %s model", path, info->format);
	if (onnx)
		printf(", %llu bytes of constants", (unsigned long long)info->constant_bytes);
	printf("\n");
	printf("inputs:\n");
	for (size_t i = 0; i < info->n_inputs; i++)
		print_value_info(stdout, &info->inputs[i]);
	printf("outputs:\n");
	for (size_t i = 0; i < info->n_outputs; i++)
		print_value_info(stdout, &info->outputs[i]);
	if (info->n_free_dims) {
		printf("free dimensions (bind with --dim NAME=N or --dim INPUT:AXIS=N):\n");
		for (size_t i = 0; i < info->n_free_dims; i++) {
			const struct webnn_model_free_dim *f = &info->free_dims[i];
			printf("  %s:%u %s\n", f->input, f->axis, *f->name ? f->name : "?");
		}
	} else if (onnx) {
		printf("free dimensions: none\n");
	} else {
		printf("free dimensions and operators: not listed for NNEF (an identifier the graph "
		       "leaves undefined is bound with --dim NAME=N)\n");
	}
	if (info->n_op_types)
		print_op_types(stdout, info);
	if (info->n_problems) {
		printf("does not load (%zu reason%s%s):\n", info->n_problems,
		       info->n_problems > 1 ? "s" : "",
		       info->n_free_dims ? "; tried with unbound free dimensions as 1" : "");
		for (size_t i = 0; i < info->n_problems; i++)
			printf("  %s\n", info->problems[i]);
	} else {
		printf("loads%s\n", info->n_free_dims ? " (unbound free dimensions tried as 1)" : "");
	}
	int rc = info->n_problems ? 1 : 0;
	webnn_model_info_destroy(info);
	return rc;
}

/* A fixed, type-independent pattern for an input not given: small non-negative integers. */
static void *pattern_data(const struct webnn_operand_desc *d, size_t size)
{
	void *data = calloc(1, size ? size : 1);
	if (!data)
		return NULL;
	size_t n = tool_desc_elements(d);
	for (size_t e = 0; e < n; e++) {
		unsigned v = (unsigned)(e % 7);
		switch (d->data_type) {
		case WEBNN_FLOAT32: ((float *)data)[e] = (float)v / 7; break;
		case WEBNN_FLOAT16: ((uint16_t *)data)[e] = v ? 0x3000 : 0; break;
		case WEBNN_INT32: case WEBNN_UINT32: ((uint32_t *)data)[e] = v; break;
		case WEBNN_INT64: case WEBNN_UINT64: ((uint64_t *)data)[e] = v; break;
		case WEBNN_INT4: case WEBNN_UINT4: /* two per byte */
			((uint8_t *)data)[e / 2] |= (uint8_t)((v & 1) << (e & 1) * 4);
			break;
		default: ((uint8_t *)data)[e] = (uint8_t)(v & 1); break;
		}
	}
	return data;
}

/* --verbose: the model's operators by type and constants, the WebNN operations the importer
 * made of them, and what webnnd made of those. */
static void print_model_details(const struct webnn_model_info *info, const struct webnn_graph *g)
{
	if (info && info->n_op_types) {
		printf("  ");
		print_op_types(stdout, info);
		printf("  constants: %llu bytes in the file\n",
		       (unsigned long long)info->constant_bytes);
	}
	const char *name;
	uint32_t count;
	printf("  WebNN operations:");
	for (size_t i = 0; webnn_graph_operation_type(g, i, &name, &count); i++)
		printf("%s %u %s", i ? "," : "", count, name);
	printf("\n");
	struct webnn_graph_stats st = WEBNN_GRAPH_STATS_INIT;
	if (webnn_graph_get_stats(g, &st) == WEBNN_STATUS_OK)
		printf("  graph in webnnd: %u operations, %u kernels (%u folded, %u fused, %u "
		       "removed); intermediates %llu bytes planned, %llu without reuse; %llu bytes "
		       "of constants made at build\n", st.operations, st.kernels, st.folded,
		       st.fused, st.removed, (unsigned long long)st.intermediate_bytes,
		       (unsigned long long)st.unplanned_bytes, (unsigned long long)st.folded_bytes);
	printf("  per-step times: not reported to clients; WEBNN_CPU_PROFILE=1 in webnnd's "
	       "environment logs them (cpu backend)\n");
}

/* A 64-bit hash of bytes, four multiply-rotate lanes (a cache key, not a security check: the
 * daemon verifies its entries itself). */
static uint64_t key_hash(const void *data, size_t n, uint64_t h)
{
	const uint64_t p1 = 0x9E3779B185EBCA87ull, p2 = 0xC2B2AE3D27D4EB4Full;
	const uint8_t *p = data;
	uint64_t lane[4] = { h ^ p1, h + p2, h ^ ~p1, h - p2 };
	size_t i = 0;
	for (; i + 32 <= n; i += 32)
		for (int k = 0; k < 4; k++) {
			uint64_t v;
			memcpy(&v, p + i + 8 * k, 8);
			lane[k] = (lane[k] + v * p2);
			lane[k] = ((lane[k] << 31) | (lane[k] >> 33)) * p1;
		}
	h = lane[0] ^ (lane[1] * 3) ^ (lane[2] * 5) ^ (lane[3] * 7) ^ n;
	for (; i < n; i++)
		h = (h ^ p[i]) * p1;
	h ^= h >> 29;
	h *= p2;
	return h ^ (h >> 32);
}

static bool hash_file(const char *path, uint64_t *h)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	static uint8_t buf[1 << 20];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		*h = key_hash(buf, n, *h);
	bool ok = !ferror(f);
	fclose(f);
	return ok;
}

/*
 * The content hash of a model file, remembered per file (as git's index remembers its files'
 * hashes): hashing BERT-base's 340 MB took 60-130 ms of a 100 ms load. The memo, one small
 * file per model under $XDG_CACHE_HOME/webnn-run (or ~/.cache/webnn-run), holds the file's
 * device, inode, size, modification and status-change times and the hash; it is used only
 * when all of them still match. Any write changes the status-change time, which no user can
 * set back; a file changed within the timestamps' granularity of its hashing could keep them,
 * so a memo is written only for a file unchanged for the last 2 seconds. A memo that cannot
 * be read or written only costs the hashing.
 */
struct hash_memo {
	char magic[8];
	uint64_t dev, ino, size, mtime_s, mtime_ns, ctime_s, ctime_ns, seed, hash;
};

static bool memo_path(const struct stat *st, char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char dir[3000];
	if (xdg && *xdg)
		snprintf(dir, sizeof(dir), "%s/webnn-run", xdg);
	else if (home && *home)
		snprintf(dir, sizeof(dir), "%s/.cache/webnn-run", home);
	else
		return false;
	return snprintf(out, len, "%s/hash-%llx-%llx", dir, (unsigned long long)st->st_dev,
			(unsigned long long)st->st_ino) < (int)len;
}

static void memo_fill(struct hash_memo *m, const struct stat *st, uint64_t seed)
{
	memset(m, 0, sizeof(*m));
	memcpy(m->magic, "WNNHASH1", 8);
	m->dev = (uint64_t)st->st_dev;
	m->ino = (uint64_t)st->st_ino;
	m->size = (uint64_t)st->st_size;
	m->mtime_s = (uint64_t)st->st_mtim.tv_sec;
	m->mtime_ns = (uint64_t)st->st_mtim.tv_nsec;
	m->ctime_s = (uint64_t)st->st_ctim.tv_sec;
	m->ctime_ns = (uint64_t)st->st_ctim.tv_nsec;
	m->seed = seed;
}

static bool hash_file_memo(const char *path, uint64_t *h)
{
	struct stat st;
	char mp[3200];
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !memo_path(&st, mp, sizeof(mp)))
		return hash_file(path, h);
	struct hash_memo want, got = { 0 };
	memo_fill(&want, &st, *h);
	FILE *f = fopen(mp, "rb");
	bool hit = f && fread(&got, sizeof(got), 1, f) == 1;
	if (f)
		fclose(f);
	want.hash = got.hash;
	if (hit && memcmp(&want, &got, sizeof(want)) == 0) {
		*h = got.hash;
		return true;
	}
	if (!hash_file(path, h))
		return false;
	struct stat after;
	time_t now = time(NULL);
	if (stat(path, &after) != 0 || after.st_ctim.tv_sec != st.st_ctim.tv_sec ||
	    after.st_ctim.tv_nsec != st.st_ctim.tv_nsec || now - st.st_ctim.tv_sec < 2 ||
	    now - st.st_mtim.tv_sec < 2)
		return true;
	want.hash = *h;
	char dir[3200], tmp[3300];
	snprintf(dir, sizeof(dir), "%s", mp);
	*strrchr(dir, '/') = 0;
	char *parent = strrchr(dir, '/');
	if (parent) { /* ~/.cache, then webnn-run */
		*parent = 0;
		mkdir(dir, 0700);
		*parent = '/';
	}
	mkdir(dir, 0700);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", mp, (int)getpid());
	f = fopen(tmp, "wb");
	bool ok = f && fwrite(&want, sizeof(want), 1, f) == 1;
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok || rename(tmp, mp) != 0)
		unlink(tmp);
	return true;
}

/* Every regular file under dir (names and contents, in name order; depth-limited). */
static bool hash_tree(const char *dir, uint64_t *h, int depth)
{
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, alphasort);
	if (n < 0)
		return false;
	bool ok = true;
	for (int i = 0; i < n; i++) {
		char p[4096];
		struct stat st;
		if (ok && list[i]->d_name[0] != '.' &&
		    snprintf(p, sizeof(p), "%s/%s", dir, list[i]->d_name) < (int)sizeof(p) &&
		    stat(p, &st) == 0) {
			*h = key_hash(list[i]->d_name, strlen(list[i]->d_name) + 1, *h);
			if (S_ISREG(st.st_mode))
				ok = hash_file(p, h);
			else if (S_ISDIR(st.st_mode) && depth < 4)
				ok = hash_tree(p, h, depth + 1);
		}
		free(list[i]);
	}
	free(list);
	return ok;
}

/* The other files beside an ONNX file (its external data may be any of them): names, sizes
 * and modification times, cheaply. */
static void hash_siblings(const char *path, uint64_t *h)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char p[4200];
		struct stat st;
		if (snprintf(p, sizeof(p), "%s/%s", dir, list[i]->d_name) < (int)sizeof(p) &&
		    stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			uint64_t fp[3] = { (uint64_t)st.st_size, (uint64_t)st.st_mtim.tv_sec,
					   (uint64_t)st.st_mtim.tv_nsec };
			*h = key_hash(list[i]->d_name, strlen(list[i]->d_name) + 1, *h);
			*h = key_hash(fp, sizeof(fp), *h);
		}
		free(list[i]);
	}
	free(list);
}

/* --cache: the key of this model and these options, "webnn-run-<content>-<options>": the
 * model file's content (an NNEF folder: every file in it; an ONNX file: also the names, sizes
 * and times of the files beside it, where external data lives), then --dim and --bind as
 * applied. false (said why) when the model cannot be read. */
static bool cache_key(const char *path, const struct webnn_import_options *io, char *key,
		      size_t len)
{
	uint64_t content = 0;
	bool ok;
	if (is_dir(path)) {
		ok = hash_tree(path, &content, 0);
	} else {
		ok = hash_file_memo(path, &content);
		hash_siblings(path, &content);
	}
	if (!ok) {
		fprintf(stderr, "webnn-run: --cache: cannot read %s: %s\n", path, strerror(errno));
		return false;
	}
	uint64_t opts = 0x5eed; /* the path does not count: a copied model keeps its entry */
	for (size_t i = 0; i < io->n_dims; i++) {
		opts = key_hash(io->dims[i].name, strlen(io->dims[i].name) + 1, opts);
		opts = key_hash(&io->dims[i].value, sizeof(io->dims[i].value), opts);
	}
	for (size_t i = 0; i < io->n_binds; i++) {
		opts = key_hash(io->binds[i].name, strlen(io->binds[i].name) + 1, opts);
		opts = key_hash(&io->binds[i].desc, sizeof(io->binds[i].desc), opts);
		opts = key_hash(io->binds[i].data, io->binds[i].size, opts);
	}
	snprintf(key, len, "webnn-run-%016llx-%016llx", (unsigned long long)content,
		 (unsigned long long)opts);
	return true;
}

/* Output i's name and descriptor: the model's, or the graph's when it came from the cache. */
static const char *output_at(const struct webnn_model *m, const struct webnn_graph *g, size_t i,
			     struct webnn_operand_desc *d)
{
	if (m) {
		webnn_model_output_desc(m, i, d);
		return webnn_model_output_name(m, i);
	}
	return webnn_graph_output_name(g, i, d);
}

static int run_one_model(struct webnn_context *ctx, const struct model_opts *o, const char *path)
{
	if (access(path, R_OK) != 0) {
		fprintf(stderr, "webnn-run: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (o->info)
		return print_model_info(ctx, o, path);
	struct progress pg = { now_ms(), isatty(2) != 0, false };
	struct webnn_import_options io = WEBNN_IMPORT_OPTIONS_INIT;
	struct webnn_model_info *info = NULL;
	struct webnn_model *m = NULL;
	struct input_file files[MAX_BINDINGS] = { 0 };
	struct webnn_dim_binding dims[2 * MAX_BINDINGS];
	struct webnn_input_binding binds[MAX_BINDINGS] = { 0 };
	char *dim_names[2 * MAX_BINDINGS], err[4096] = "";
	size_t n_dim_names = 0;
	struct webnn_graph *g = NULL;
	size_t ni = 0, no = 0;
	struct webnn_named_tensor *ti = NULL, *to = NULL;
	void **outs = NULL;
	int rc = 1;
	double t0 = now_ms();
	/* What the file declares (cheap: no build) names the inputs and free dimensions before
	 * the load; NNEF declares nothing readable before it. */
	enum webnn_status s = webnn_model_inspect(NULL, path, NULL, &info, err, sizeof(err));
	if (s != WEBNN_STATUS_OK) {
		fprintf(stderr, "webnn-run: %s\n", err);
		goto out;
	}
	if (info->n_inputs && !check_input_names(o, info, NULL))
		goto out;
	for (size_t k = 0; k < o->n_inputs; k++)
		if (webnn_tensor_file_read(o->inputs[k].file, &files[k].desc, &files[k].data,
					   &files[k].size, err, sizeof(err)) != WEBNN_STATUS_OK) {
			fprintf(stderr, "webnn-run: --input %s: %s\n", o->inputs[k].name, err);
			goto out;
		}
	if (!make_binds(o, info, binds))
		goto out;
	io.binds = binds;
	io.n_binds = o->n_binds;
	io.dims = dims;
	io.n_dims = bind_from_files(o, info, files, dims, sizeof(dims) / sizeof(dims[0]),
				    dim_names, &n_dim_names);
	io.progress = on_progress;
	io.user_data = &pg;
	char key[160] = "";
	const char *cache_how = NULL;
	if (o->cache) {
		if (!cache_key(path, &io, key, sizeof(key)))
			goto out;
		s = webnn_context_load_graph(ctx, key, &g);
		if (s != WEBNN_STATUS_OK) /* damaged (and removed by webnnd): built again */
			fprintf(stderr, "webnn-run: --cache: %s: %s; building it again\n", key,
				webnn_context_last_error(ctx));
		if (g)
			cache_how = "loaded from webnnd's graph cache";
	}
	s = g ? WEBNN_STATUS_OK : webnn_model_load(ctx, path, &io, &m, err, sizeof(err));
	double load_ms = now_ms() - t0;
	if (pg.shown)
		fprintf(stderr, "\n");
	if (s == WEBNN_STATUS_OK && o->cache && !g) {
		if (webnn_context_save_graph(ctx, key, webnn_model_graph(m)) == WEBNN_STATUS_OK)
			cache_how = "built and saved in webnnd's graph cache";
		else
			fprintf(stderr, "webnn-run: --cache: not saved: %s\n",
				webnn_context_last_error(ctx));
	}
	if (s != WEBNN_STATUS_OK) {
		/* one reason per line */
		for (char *line = err, *nl; line; line = nl ? nl + 1 : NULL) {
			if ((nl = strchr(line, '\n')))
				*nl = 0;
			fprintf(stderr, "webnn-run: %s: %s: %s\n", path, webnn_status_name(s), line);
		}
		goto out;
	}
	if (m && !check_input_names(o, info, m))
		goto out;
	for (size_t k = 0; !m && k < o->n_inputs; k++) {
		bool found = false;
		for (size_t i = 0; i < webnn_graph_input_count(g); i++)
			found |= strcmp(webnn_graph_input_name(g, i, NULL), o->inputs[k].name) == 0;
		if (!found) {
			fprintf(stderr, "webnn-run: --input %s: the cached graph has no input \"%s\"\n",
				o->inputs[k].name, o->inputs[k].name);
			goto out;
		}
	}
	if (m)
		g = webnn_model_graph(m);
	ni = webnn_graph_input_count(g);
	no = m ? webnn_model_output_count(m) : webnn_graph_output_count(g);
	ti = calloc(ni + 1, sizeof(*ti));
	to = calloc(no + 1, sizeof(*to));
	outs = calloc(no + 1, sizeof(*outs));
	if (!ti || !to || !outs)
		goto out;
	for (size_t i = 0; i < ni; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		ti[i].name = webnn_graph_input_name(g, i, &td.desc);
		void *data = NULL;
		size_t size = tool_desc_byte_length(&td.desc);
		const struct input_file *file = NULL;
		const char *file_name = NULL;
		for (size_t k = 0; k < o->n_inputs; k++)
			if (strcmp(o->inputs[k].name, ti[i].name) == 0) {
				file = &files[k];
				file_name = o->inputs[k].file;
			}
		if (file) {
			if (file->desc.data_type != td.desc.data_type || file->size != size) {
				fprintf(stderr, "webnn-run: --input %s: %s holds ", ti[i].name,
					file_name);
				print_desc(stderr, &file->desc);
				fprintf(stderr, ", the model takes ");
				print_desc(stderr, &td.desc);
				fprintf(stderr, "\n");
				goto out;
			}
			data = file->data;
		} else {
			if (!(data = pattern_data(&td.desc, size)))
				goto out;
			fprintf(stderr, "webnn-run: input %s not given: filled with a pattern\n",
				ti[i].name);
		}
		s = webnn_context_create_tensor(ctx, &td, &ti[i].tensor);
		if (s == WEBNN_STATUS_OK)
			s = webnn_context_write_tensor(ctx, ti[i].tensor, data, size);
		if (!file)
			free(data);
		if (s != WEBNN_STATUS_OK) {
			fprintf(stderr, "webnn-run: input %s: %s\n", ti[i].name,
				webnn_context_last_error(ctx));
			goto out;
		}
	}
	for (size_t i = 0; i < no; i++) {
		struct webnn_tensor_desc td = { .readable = true };
		to[i].name = output_at(m, g, i, &td.desc);
		if (!(outs[i] = malloc(tool_desc_byte_length(&td.desc) + 1)) ||
		    webnn_context_create_tensor(ctx, &td, &to[i].tensor) != WEBNN_STATUS_OK) {
			fprintf(stderr, "webnn-run: output %s: %s\n", to[i].name,
				webnn_context_last_error(ctx));
			goto out;
		}
	}
	int iters = o->iterations ? o->iterations : 10;
	double first_ms = 0, steady_total = 0;
	for (int it = 0; it < iters; it++) {
		double t1 = now_ms();
		s = webnn_context_dispatch(ctx, g, ti, ni, to, no);
		for (size_t i = 0; i < no && s == WEBNN_STATUS_OK; i++) {
			struct webnn_operand_desc d;
			output_at(m, g, i, &d);
			s = webnn_context_read_tensor(ctx, to[i].tensor, outs[i], tool_desc_byte_length(&d));
		}
		if (s != WEBNN_STATUS_OK) {
			fprintf(stderr, "webnn-run: run %d: %s: %s\n", it + 1, webnn_status_name(s),
				webnn_context_last_error(ctx));
			goto out;
		}
		double dt = now_ms() - t1;
		if (it == 0)
			first_ms = dt;
		else
			steady_total += dt;
	}
	printf("%s: %zu inputs, %zu outputs\n", path, m ? webnn_model_input_count(m) : ni, no);
	for (size_t i = 0; i < no; i++) {
		struct webnn_operand_desc d;
		output_at(m, g, i, &d);
		size_t n = tool_desc_elements(&d);
		double mn = INFINITY, mx = -INFINITY, sum = 0;
		for (size_t e = 0; e < n; e++) {
			double v = tool_element(d.data_type, outs[i], e);
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
			sum += v;
		}
		printf("  output %s ", to[i].name);
		print_desc(stdout, &d);
		printf(": min %.6g max %.6g mean %.6g  [", mn, mx, n ? sum / (double)n : 0);
		for (size_t e = 0; e < n && e < 6; e++)
			printf("%s%.6g", e ? ", " : "", tool_element(d.data_type, outs[i], e));
		printf("%s]\n", n > 6 ? ", ..." : "");
		if (o->output_dir) {
			char p[4096];
			snprintf(p, sizeof(p), "%s/%s.npy", o->output_dir, to[i].name);
			for (char *c = p + strlen(o->output_dir) + 1; *c; c++)
				if (*c == '/')
					*c = '_';
			if (write_npy(p, &d, outs[i], tool_desc_byte_length(&d)) != 0) {
				fprintf(stderr, "webnn-run: writing %s: %s\n", p, strerror(errno));
				goto out;
			}
		}
	}
	printf("  load %.1f ms (build %.1f ms in webnnd%s%s), first run %.2f ms", load_ms,
	       webnn_graph_compile_ms(g), cache_how ? "; " : "", cache_how ? cache_how : "",
	       first_ms);
	if (iters > 1)
		printf(", steady %.3f ms (mean of %d)", steady_total / (iters - 1), iters - 1);
	printf("\n");
	if (o->verbose)
		print_model_details(info, g);
	rc = 0;
out:
	for (size_t i = 0; ti && i < ni; i++)
		webnn_tensor_destroy(ti[i].tensor);
	for (size_t i = 0; to && i < no; i++) {
		webnn_tensor_destroy(to[i].tensor);
		free(outs[i]);
	}
	free(ti);
	free(to);
	free(outs);
	if (!m)
		webnn_graph_destroy(g); /* a model owns its graph; a loaded graph is ours */
	webnn_model_destroy(m);
	webnn_model_info_destroy(info);
	free_binds(binds, o->n_binds);
	for (size_t k = 0; k < o->n_inputs; k++)
		free(files[k].data);
	for (size_t k = 0; k < n_dim_names; k++)
		free(dim_names[k]);
	return rc;
}

int run_model_main(int argc, char **argv)
{
	struct model_opts o = { .atol = 1e-4, .rtol = 1e-4 };
	int first, rc = 0;
	if (parse_model_args(argc, argv, &o, &first))
		rc = 2;
	struct webnn_context *ctx = rc ? NULL : connect_model_context(&o);
	if (!rc && !ctx)
		rc = 1;
	if (ctx && o.check) {
		struct webnn_import_options io = WEBNN_IMPORT_OPTIONS_INIT;
		io.dims = o.dims;
		io.n_dims = o.n_dims;
		struct tool_check_options co = { .atol = o.atol, .rtol = o.rtol, .import = &io,
						.out = stdout };
		struct tool_check_counts c = { 0 };
		for (int i = first; i < argc; i++)
			tool_check_dir(ctx, argv[i], &co, &c);
		printf("%d passed, %d failed, %d skipped\n", c.passed, c.failed, c.skipped);
		rc = c.failed ? 1 : 0;
	} else if (ctx) {
		for (int i = first; i < argc; i++)
			rc |= run_one_model(ctx, &o, argv[i]);
	}
	webnn_context_destroy(ctx);
	for (size_t i = 0; i < o.n_inputs; i++)
		free(o.inputs[i].name);
	for (size_t i = 0; i < o.n_dims; i++)
		free((char *)o.dims[i].name);
	for (size_t i = 0; i < o.n_binds; i++)
		free(o.binds[i].name);
	return rc;
}
