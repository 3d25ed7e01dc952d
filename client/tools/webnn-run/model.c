/* webnn-run for model files: runs an ONNX file or NNEF folder through libwebnn-import, or checks model test folders (--check DIR). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/tools/common/model_check.h"
#include "run.h"
#include "webnn_import.h"

#define MAX_BINDINGS 64

struct model_opts {
	const char *socket, *output_dir;
	struct { char *name; const char *file; } inputs[MAX_BINDINGS];
	size_t n_inputs;
	struct webnn_dim_binding dims[MAX_BINDINGS];
	size_t n_dims;
	int iterations;
	bool check;
	double atol, rtol;
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
		    strncmp(a, "--atol", 6) == 0 || strncmp(a, "--rtol", 6) == 0)
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
		"                 [--output-dir DIR] [--dim NAME=N ...] [--iterations K]\n"
		"       webnn-run [--socket PATH] --check [--atol A] [--rtol R] [--dim NAME=N] DIR...\n"
		"MODEL is an ONNX file or an NNEF folder (or its graph.nnef). Inputs not given are\n"
		"filled with a fixed pattern. Prints each output's summary and the load, build, first\n"
		"and steady-state run times; --output-dir writes the outputs as .npy files.\n"
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
		{ "atol", required_argument, NULL, 'a' },
		{ "rtol", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	char *name, *end;
	const char *value;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "s:i:o:d:n:ca:r:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': o->socket = optarg; break;
		case 'o': o->output_dir = optarg; break;
		case 'c': o->check = true; break;
		case 'i':
			if (o->n_inputs == MAX_BINDINGS || parse_binding(optarg, &name, &value)) {
				fprintf(stderr, "webnn-run: --input %s: expected NAME=FILE\n", optarg);
				return -1;
			}
			o->inputs[o->n_inputs].name = name;
			o->inputs[o->n_inputs++].file = value;
			break;
		case 'd': {
			unsigned long v;
			if (o->n_dims == MAX_BINDINGS || parse_binding(optarg, &name, &value) ||
			    (errno = 0, v = strtoul(value, &end, 10), *end || errno || v == 0 ||
			     v > UINT32_MAX)) {
				fprintf(stderr, "webnn-run: --dim %s: expected NAME=N with N >= 1\n",
					optarg);
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

static int run_one_model(struct webnn_context *ctx, const struct model_opts *o, const char *path)
{
	struct progress pg = { now_ms(), isatty(2) != 0, false };
	struct webnn_import_options io = WEBNN_IMPORT_OPTIONS_INIT;
	io.dims = o->dims;
	io.n_dims = o->n_dims;
	io.progress = on_progress;
	io.user_data = &pg;
	struct webnn_model *m = NULL;
	char err[1024] = "";
	double t0 = now_ms();
	enum webnn_status s = webnn_model_load(ctx, path, &io, &m, err, sizeof(err));
	double load_ms = now_ms() - t0;
	if (pg.shown)
		fprintf(stderr, "\n");
	if (s != WEBNN_STATUS_OK) {
		fprintf(stderr, "webnn-run: %s: %s: %s\n", path, webnn_status_name(s), err);
		return 1;
	}
	struct webnn_graph *g = webnn_model_graph(m);
	size_t ni = webnn_graph_input_count(g), no = webnn_model_output_count(m);
	struct webnn_named_tensor *ti = calloc(ni + 1, sizeof(*ti)), *to = calloc(no + 1, sizeof(*to));
	void **outs = calloc(no + 1, sizeof(*outs));
	int rc = 1;
	if (!ti || !to || !outs)
		goto out;
	for (size_t k = 0; k < o->n_inputs; k++) {
		bool found = false;
		for (size_t i = 0; i < webnn_model_input_count(m); i++)
			found |= strcmp(webnn_model_input_name(m, i), o->inputs[k].name) == 0;
		if (!found) {
			fprintf(stderr, "webnn-run: --input %s: the model has no such input\n",
				o->inputs[k].name);
			goto out;
		}
	}
	for (size_t i = 0; i < ni; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		ti[i].name = webnn_graph_input_name(g, i, &td.desc);
		void *data = NULL;
		size_t size = wnn_desc_byte_length(&td.desc);
		const char *file = NULL;
		for (size_t k = 0; k < o->n_inputs; k++)
			if (strcmp(o->inputs[k].name, ti[i].name) == 0)
				file = o->inputs[k].file;
		if (file) {
			struct webnn_operand_desc fd;
			size_t fsize;
			if (webnn_tensor_file_read(file, &fd, &data, &fsize, err, sizeof(err)) !=
			    WEBNN_STATUS_OK) {
				fprintf(stderr, "webnn-run: --input %s: %s\n", ti[i].name, err);
				goto out;
			}
			if (fd.data_type != td.desc.data_type || fsize != size) {
				fprintf(stderr, "webnn-run: --input %s: %s holds ", ti[i].name, file);
				print_desc(stderr, &fd);
				fprintf(stderr, ", the model takes ");
				print_desc(stderr, &td.desc);
				fprintf(stderr, "\n");
				free(data);
				goto out;
			}
		} else {
			/* A fixed, type-independent pattern: small non-negative integers. */
			data = calloc(1, size ? size : 1);
			if (!data)
				goto out;
			size_t n = wnn_desc_elements(&td.desc);
			for (size_t e = 0; e < n; e++) {
				unsigned v = (unsigned)(e % 7);
				switch (td.desc.data_type) {
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
			fprintf(stderr, "webnn-run: input %s not given: filled with a pattern\n",
				ti[i].name);
		}
		s = webnn_context_create_tensor(ctx, &td, &ti[i].tensor);
		if (s == WEBNN_STATUS_OK)
			s = webnn_context_write_tensor(ctx, ti[i].tensor, data, size);
		free(data);
		if (s != WEBNN_STATUS_OK) {
			fprintf(stderr, "webnn-run: input %s: %s\n", ti[i].name,
				webnn_context_last_error(ctx));
			goto out;
		}
	}
	for (size_t i = 0; i < no; i++) {
		struct webnn_tensor_desc td = { .readable = true };
		webnn_model_output_desc(m, i, &td.desc);
		to[i].name = webnn_model_output_name(m, i);
		if (!(outs[i] = malloc(wnn_desc_byte_length(&td.desc) + 1)) ||
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
			webnn_model_output_desc(m, i, &d);
			s = webnn_context_read_tensor(ctx, to[i].tensor, outs[i], wnn_desc_byte_length(&d));
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
	printf("%s: %zu inputs, %zu outputs\n", path, webnn_model_input_count(m), no);
	for (size_t i = 0; i < no; i++) {
		struct webnn_operand_desc d;
		webnn_model_output_desc(m, i, &d);
		size_t n = wnn_desc_elements(&d);
		double mn = INFINITY, mx = -INFINITY, sum = 0;
		for (size_t e = 0; e < n; e++) {
			double v = wnn_element(d.data_type, outs[i], e);
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
			sum += v;
		}
		printf("  output %s ", to[i].name);
		print_desc(stdout, &d);
		printf(": min %.6g max %.6g mean %.6g  [", mn, mx, n ? sum / (double)n : 0);
		for (size_t e = 0; e < n && e < 6; e++)
			printf("%s%.6g", e ? ", " : "", wnn_element(d.data_type, outs[i], e));
		printf("%s]\n", n > 6 ? ", ..." : "");
		if (o->output_dir) {
			char p[4096];
			snprintf(p, sizeof(p), "%s/%s.npy", o->output_dir, to[i].name);
			for (char *c = p + strlen(o->output_dir) + 1; *c; c++)
				if (*c == '/')
					*c = '_';
			if (write_npy(p, &d, outs[i], wnn_desc_byte_length(&d)) != 0) {
				fprintf(stderr, "webnn-run: writing %s: %s\n", p, strerror(errno));
				goto out;
			}
		}
	}
	printf("  load %.1f ms (build %.1f ms in webnnd), first run %.2f ms", load_ms,
	       webnn_graph_compile_ms(g), first_ms);
	if (iters > 1)
		printf(", steady %.3f ms (mean of %d)", steady_total / (iters - 1), iters - 1);
	printf("\n");
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
	webnn_model_destroy(m);
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
		struct wnn_check_options co = { .atol = o.atol, .rtol = o.rtol, .import = &io,
						.out = stdout };
		struct wnn_check_counts c = { 0 };
		for (int i = first; i < argc; i++)
			wnn_check_dir(ctx, argv[i], &co, &c);
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
	return rc;
}
