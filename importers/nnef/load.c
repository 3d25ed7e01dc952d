/* wnni_nnef_load: parses the standard library and the document, runs the graph on a builder and fills the model. */
#include "importers/nnef/nnef.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FRAG_BUCKETS 512

static bool add_fragments(struct nnef_eval *ev, const struct nnef_document *doc)
{
	for (size_t i = 0; i < doc->n_fragments; i++) {
		struct nnef_fragment *f = doc->fragments[i];
		struct nnef_fragment *old = nnef_find_fragment(ev, f->name);
		if (old) {
			snprintf(ev->error, ev->len, "nnef: %s:%d: fragment '%s' is already defined "
				 "(%s:%d)", f->file, f->line, f->name, old->file, old->line);
			return false;
		}
		size_t h = 5381;
		for (const char *s = f->name; *s; s++)
			h = h * 33 + (unsigned char)*s;
		h %= ev->n_frag_buckets;
		f->next = ev->frags[h];
		ev->frags[h] = f;
	}
	return true;
}

/* The standard library is parsed once per process into fragment chains every load starts
 * from (read-only afterwards; a document's fragments are put in front of them). */
static struct {
	pthread_once_t once;
	struct nnef_arena arena;
	struct nnef_fragment **frags;
	char error[256];
} lib = { .once = PTHREAD_ONCE_INIT };

static void lib_init(void)
{
	jmp_buf oom;
	lib.arena.limit = (size_t)16 << 20;
	lib.arena.oom = &oom;
	if (setjmp(oom)) {
		snprintf(lib.error, sizeof(lib.error), "nnef: stdlib.nnef: out of memory");
		lib.frags = NULL;
		return;
	}
	struct nnef_document doc;
	struct nnef_eval ev = { .error = lib.error, .len = sizeof(lib.error),
				.n_frag_buckets = FRAG_BUCKETS };
	ev.frags = nnef_alloc(&lib.arena, FRAG_BUCKETS * sizeof(*ev.frags));
	if (!nnef_parse(&lib.arena, "stdlib.nnef", nnef_stdlib_text, false, &doc, lib.error,
			sizeof(lib.error)) ||
	    !add_fragments(&ev, &doc))
		return;
	lib.frags = ev.frags;
}

__attribute__((destructor)) static void lib_free(void)
{
	nnef_arena_free(&lib.arena);
}

/* Sets up ev, parses the standard library, the document and its quantization text. */
static enum webnn_status prepare(struct nnef_eval *ev, const char *text, const char *quant,
				 struct nnef_document *doc)
{
	ev->file = "graph.nnef";
	ev->n_frag_buckets = FRAG_BUCKETS;
	pthread_once(&lib.once, lib_init);
	if (!lib.frags) {
		snprintf(ev->error, ev->len, "%s", lib.error);
		return WEBNN_STATUS_OPERATION_ERROR;
	}
	ev->frags = nnef_alloc(&ev->arena, FRAG_BUCKETS * sizeof(*ev->frags));
	memcpy(ev->frags, lib.frags, FRAG_BUCKETS * sizeof(*ev->frags));
	if (!nnef_parse(&ev->arena, "graph.nnef", text, true, doc, ev->error, ev->len) ||
	    !add_fragments(ev, doc))
		return WEBNN_STATUS_TYPE_ERROR;
	if (quant && !nnef_parse_quant(&ev->arena, "graph.quant", quant, &ev->quant, &ev->n_quant,
				       ev->error, ev->len))
		return WEBNN_STATUS_TYPE_ERROR;
	return WEBNN_STATUS_OK;
}

static struct nnef_tensor *graph_tensor(struct nnef_eval *ev, const char *name, const char *what)
{
	/* the graph scope holds tensors only (nnef_run_graph checks) */
	struct nnef_value v = { 0 };
	if (!nnef_graph_lookup(ev, name, &v))
		nnef_fail(ev, "graph %s '%s' is never assigned", what, name);
	if (v.k != NV_TENSOR)
		nnef_fail(ev, "graph %s '%s' is not a tensor", what, name);
	return v.u.t;
}

/* Checks the graph's interface and builds it. */
static void finish(struct nnef_eval *ev, const struct nnef_graph *g)
{
	struct webnn_model *m = ev->model;
	ev->line = g->line;
	for (size_t i = 0; i < g->n_params; i++) {
		struct nnef_tensor *t = graph_tensor(ev, g->params[i], "parameter");
		if (!t->input_name || strcmp(t->input_name, g->params[i]) != 0)
			nnef_fail(ev, "graph parameter '%s' must be assigned an external",
				  g->params[i]);
	}
	if (!ev->b)
		return;
	m->inputs = calloc(g->n_params ? g->n_params : 1, sizeof(*m->inputs));
	m->outputs = calloc(g->n_results ? g->n_results : 1, sizeof(*m->outputs));
	if (!m->inputs || !m->outputs)
		nnef_fail(ev, "out of memory");
	for (size_t b = 0; ev->opt && b < ev->opt->n_binds; b++) {
		const char *name = ev->opt->binds[b].name ? ev->opt->binds[b].name : "";
		bool found = false;
		for (size_t i = 0; i < g->n_params && !found; i++)
			found = strcmp(g->params[i], name) == 0;
		if (!found)
			nnef_fail(ev, "bound input '%s' is not a parameter of the graph", name);
	}
	for (size_t i = 0; i < g->n_params; i++) {
		struct nnef_tensor *t = graph_tensor(ev, g->params[i], "parameter");
		if (t->bound)
			continue;
		struct wnni_io *io = &m->inputs[m->n_inputs];
		if (!(io->name = strdup(g->params[i])))
			nnef_fail(ev, "out of memory");
		io->desc = t->desc;
		m->n_inputs++;
	}
	struct webnn_named_operand *outs = nnef_alloc(&ev->arena, (g->n_results + 1) *
							       sizeof(*outs));
	for (size_t i = 0; i < g->n_results; i++) {
		struct nnef_tensor *t = graph_tensor(ev, g->results[i], "result");
		bool again = false;
		for (size_t j = 0; j < i; j++)
			again = again || outs[j].operand == t->op;
		for (size_t j = 0; j < i; j++)
			if (strcmp(g->results[j], g->results[i]) == 0)
				nnef_fail(ev, "graph result '%s' is listed twice", g->results[i]);
		struct webnn_operand *o = t->op;
		/* an input, a constant or an operand already named needs an operation of its own */
		if (t->is_constant || again) {
			enum webnn_status s = webnn_builder_identity(ev->b, t->op, &o);
			if (s != WEBNN_STATUS_OK)
				nnef_fail_webnn(ev, "identity", s);
		}
		outs[i].name = g->results[i];
		outs[i].operand = o;
		if (!(m->outputs[i].name = strdup(g->results[i])))
			nnef_fail(ev, "out of memory");
		webnn_operand_get_desc(o, &m->outputs[i].desc);
		m->n_outputs++;
	}
	enum webnn_status s = webnn_builder_build(ev->b, outs, g->n_results, &m->graph);
	if (s != WEBNN_STATUS_OK)
		nnef_fail_webnn(ev, "build", s);
}

static char *read_quant(const char *base_dir, char *error, size_t len, bool *failed)
{
	*failed = false;
	if (!base_dir)
		return NULL;
	char path[4096];
	snprintf(path, sizeof(path), "%s/graph.quant", base_dir);
	struct stat st;
	if (stat(path, &st) != 0)
		return NULL;
	size_t n;
	char *text = wnni_read_file(path, &n, error, len);
	if (!text)
		*failed = true;
	else if (strlen(text) != n) {
		snprintf(error, len, "nnef: graph.quant: NUL byte in the text");
		free(text);
		*failed = true;
		return NULL;
	}
	return text;
}

enum webnn_status wnni_nnef_load(struct webnn_context *ctx, const char *graph_text, size_t size,
				 const char *base_dir, const struct webnn_import_options *opt,
				 struct webnn_model *m, char *error, size_t len)
{
	char scratch[1];
	if (!error || !len) {
		error = scratch;
		len = sizeof(scratch);
	}
	if (strlen(graph_text) != size) {
		snprintf(error, len, "nnef: graph.nnef: NUL byte in the text");
		return WEBNN_STATUS_TYPE_ERROR;
	}
	bool qfail;
	char *quant = read_quant(base_dir, error, len, &qfail);
	if (qfail)
		return WEBNN_STATUS_TYPE_ERROR;
	struct nnef_eval *ev = calloc(1, sizeof(*ev));
	if (!ev) {
		free(quant);
		snprintf(error, len, "nnef: out of memory");
		return WEBNN_STATUS_NO_MEMORY;
	}
	ev->error = error;
	ev->len = len;
	ev->ctx = ctx;
	ev->base_dir = base_dir;
	ev->opt = opt;
	ev->model = m;
	ev->arena.limit = NNEF_MAX_ARENA;
	ev->max_steps = NNEF_MAX_STEPS;
	jmp_buf oom;
	ev->arena.oom = &oom;
	enum webnn_status s = WEBNN_STATUS_OK;
	struct nnef_document doc;
	if (setjmp(oom)) {
		snprintf(ev->error, ev->len, "nnef: graph.nnef:%d: the graph needs more than %zu bytes of "
			 "memory to evaluate", ev->line, ev->arena.limit);
		s = WEBNN_STATUS_NO_MEMORY;
	} else if (setjmp(ev->fail)) {
		s = WEBNN_STATUS_TYPE_ERROR;
	} else if ((s = prepare(ev, graph_text, quant, &doc)) == WEBNN_STATUS_OK) {
		enum webnn_status bs = webnn_builder_create(ctx, &ev->b);
		if (bs != WEBNN_STATUS_OK)
			nnef_fail_webnn(ev, "builder", bs);
		nnef_run_graph(ev, &doc);
		finish(ev, doc.graph);
	}
	webnn_builder_destroy(ev->b);
	nnef_arena_free(&ev->arena);
	free(ev);
	free(quant);
	return s;
}

enum webnn_status nnef_check(const char *text, const char *quant, char *error, size_t len)
{
	struct nnef_eval *ev = calloc(1, sizeof(*ev));
	if (!ev)
		return WEBNN_STATUS_NO_MEMORY;
	ev->error = error;
	ev->len = len;
	ev->arena.limit = (size_t)64 << 20;
	ev->max_steps = (uint64_t)1 << 20;
	jmp_buf oom;
	ev->arena.oom = &oom;
	struct webnn_model m = { 0 };
	ev->model = &m;
	enum webnn_status s = WEBNN_STATUS_OK;
	struct nnef_document doc;
	if (setjmp(oom)) {
		snprintf(error, len, "nnef: out of memory");
		s = WEBNN_STATUS_NO_MEMORY;
	} else if (setjmp(ev->fail)) {
		s = WEBNN_STATUS_TYPE_ERROR;
	} else if ((s = prepare(ev, text, quant, &doc)) == WEBNN_STATUS_OK) {
		nnef_run_graph(ev, &doc);
		finish(ev, doc.graph);
	}
	nnef_arena_free(&ev->arena);
	free(ev);
	return s;
}
