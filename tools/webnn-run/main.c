/* webnn-run: replays WPT conformance cases (JSON) through libwebnn, prints or checks the outputs;
 * the command line, the known failures and the tally. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

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


/* --verbose: what one case built and how long each step took; the one place for per-case
 * figures from libwebnn. */
static void print_case_details(FILE *f, json_t *c, const struct case_result *res)
{
	json_t *opers = json_object_get(json_object_get(c, "graph"), "operators");
	if (res->n_operators) {
		fprintf(f, "  operators:");
		for (size_t i = 0; i < res->n_operators; i++)
			fprintf(f, "%s %s", i ? "," : "",
				json_string_value(json_object_get(json_array_get(opers, i), "name")));
		fprintf(f, "\n");
	}
	if (res->build_ms > 0)
		fprintf(f, "  build %.2f ms (compile %.2f ms), dispatch %.3f ms, read %.3f ms\n",
			res->build_ms, res->compile_ms, res->dispatch_ms, res->read_ms);
	const struct webnn_graph_stats *s = &res->stats;
	if (s->operations)
		fprintf(f, "  graph: %u operations, %u kernels (%u folded, %u fused, %u removed); "
			   "intermediates %llu bytes planned, %llu without reuse; "
			   "%llu bytes of constants made at build\n",
			s->operations, s->kernels, s->folded, s->fused, s->removed,
			(unsigned long long)s->intermediate_bytes,
			(unsigned long long)s->unplanned_bytes, (unsigned long long)s->folded_bytes);
}

/* --check: one line per case and the tally. */
static void record_check(const char *name, enum verdict v, const char *why,
			 const struct known_failure *k, struct totals *t)
{
	if (v == V_SKIP) {
		printf("SKIP %s: %s\n", name, why);
		t->skipped++;
	} else if (v == V_PASS && k) {
		printf("XPASS %s: passes, but tests/known-failures.txt lists it (%s)\n", name,
		       k->reason);
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
}

/* Without --check: the case's outputs and timings as one JSON object of the report. */
static void record_json(const char *path, const char *name, enum verdict v, const char *why,
			const struct case_result *res, struct totals *t, json_t *report)
{
	json_t *j = json_pack("{s:s, s:s}", "file", path, "name", name);
	if (v == V_PASS) {
		json_object_set_new(j, "buildMs", json_real(round_ms(res->build_ms)));
		json_object_set_new(j, "compileMs", json_real(round_ms(res->compile_ms)));
		json_object_set_new(j, "dispatchMs", json_real(round_ms(res->dispatch_ms)));
		json_object_set_new(j, "readMs", json_real(round_ms(res->read_ms)));
		json_object_set_new(j, "intermediateBytes",
				    json_integer((json_int_t)res->stats.intermediate_bytes));
		json_object_set(j, "outputs", res->outputs);
		t->passed++;
	} else {
		json_object_set_new(j, v == V_SKIP ? "skipped" : "error", json_string(why));
		if (v == V_SKIP)
			t->skipped++;
		else
			t->failed++;
	}
	json_array_append_new(report, j);
}

/* Later cases get a fresh context, if webnnd is still there. */
static void recover_context(struct webnn_context **ctx, const struct run_opts *o, const char *name)
{
	fprintf(stderr, "webnn-run: context lost during %s: %s\n", name,
		webnn_context_last_error(*ctx));
	webnn_context_destroy(*ctx);
	*ctx = connect_context(o);
	if (!*ctx) {
		fprintf(stderr, "webnn-run: giving up\n");
		exit(1);
	}
}

static void run_file(struct webnn_context **ctx, const struct run_opts *o, const char *path,
		     struct known_failure *kf, size_t n_kf, struct totals *t, json_t *report)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, JSON_DECODE_INT_AS_REAL, &jerr);
	if (!root) {
		/* jansson has no line (-1) when the file could not be read at all */
		if (jerr.line > 0)
			fprintf(stderr, "webnn-run: %s:%d: %s\n", path, jerr.line, jerr.text);
		else
			fprintf(stderr, "webnn-run: %s\n", jerr.text);
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
		if (webnn_context_is_lost(*ctx))
			recover_context(ctx, o, name);
		struct known_failure *k = find_known(kf, n_kf, path, name);
		if (k)
			k->seen = true;
		if (o->check)
			record_check(name, v, why, k, t);
		else
			record_json(path, name, v, why, &res, t, report);
		/* The JSON report owns stdout without --check. */
		if (o->verbose)
			print_case_details(o->check ? stdout : stderr, c, &res);
		fflush(stdout);
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
		"  --verbose          per case: operators built, timings, mismatching elements\n"
		"  --known-failures F expected failures, lines \"file | case | reason\"\n"
		"                     (default: tests/known-failures.txt when it exists)\n"
		"  --version          print the version\n"
		"Without --check the outputs are printed as JSON with build and dispatch times.\n"
		"With a model file or folder (ONNX, NNEF) see webnn-run MODEL --help.\n");
}


static void parse_args(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "check", no_argument, NULL, 'c' },
		{ "filter", required_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "known-failures", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "s:cf:vk:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': o->socket = optarg; break;
		case 'c': o->check = true; break;
		case 'f': o->filter = optarg; break;
		case 'v': o->verbose = true; break;
		case 'k': o->known_failures = optarg; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("webnn-run %s\n", WEBNN_VERSION_STRING); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		exit(2);
	}
}

static void print_report(const struct run_opts *o, const struct totals *t, json_t *report)
{
	if (o->check) {
		printf("%d passed, %d failed, %d skipped, %d xfail", t->passed, t->failed,
		       t->skipped, t->xfail);
		if (t->xpass)
			printf(", %d xpass", t->xpass);
		printf("\n");
		return;
	}
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

int main(int argc, char **argv)
{
	/* Model files and model test folders (model.c); conformance JSON otherwise. */
	if (run_model_mode(argc, argv))
		return run_model_main(argc, argv);
	struct run_opts o = { 0 };
	parse_args(argc, argv, &o);
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
	print_report(&o, &t, report);
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
