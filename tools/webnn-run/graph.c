/* webnn-run's execution of one case: checks it can run here, builds its graph, binds its tensors,
 * dispatches, and reads the outputs back for comparison or printing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run.h"

/* The graph of one case and the tensors bound to it. */
struct execution {
	struct webnn_graph *g;
	struct webnn_tensor **tensors; /* inputs, then outputs */
	struct webnn_named_tensor *bind_in, *bind_out;
	void **out_bufs;
	size_t n_in, n_out;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* An operator this context lacks makes the case a skip, before anything runs; a name libwebnn
 * does not know is a mistake in the case. */
static enum verdict check_operators(struct replay *r, json_t *opers)
{
	for (size_t i = 0; i < json_array_size(opers); i++) {
		const char *m = json_string_value(json_object_get(json_array_get(opers, i), "name"));
		if (!m) {
			replay_fail(r, "operator %zu has no name", i);
			return V_FAIL;
		}
		if (!attrs_find_op(m)) {
			attrs_unknown_op(r, m);
			return V_FAIL;
		}
		if (!operators_context_lists(r->ctx, m)) {
			replay_fail(r, "%s: not supported by this context (absent from its opSupportLimits)",
				m);
			return V_SKIP;
		}
	}
	return V_PASS;
}

/* An optional case's operand of a data type the context does not support is a skip. */
static enum verdict check_type_limit(struct replay *r, const char *key, json_t *entry,
				     uint32_t types, const char *what)
{
	struct webnn_operand_desc d;
	if (!replay_parse_desc(r, key, json_object_get(entry, "descriptor"), &d))
		return r->skip ? V_SKIP : V_FAIL;
	if (!operators_type_in(types, d.data_type)) {
		replay_fail(r, "optional case: %s %s not supported by the context", what,
			webnn_data_type_name(d.data_type));
		return V_SKIP;
	}
	return V_PASS;
}

/* Context-wide data type limits for graph inputs, constants and outputs. */
static enum verdict check_type_limits(struct replay *r, json_t *expected)
{
	struct webnn_support_limits lim;
	const char *key;
	json_t *e;
	webnn_context_support_limits(r->ctx, &lim);
	json_object_foreach(r->inputs, key, e) {
		bool cst = json_is_true(json_object_get(e, "constant"));
		enum verdict v = check_type_limit(r, key, e, cst ? lim.constant.data_types
								  : lim.input.data_types,
						  cst ? "constant" : "input");
		if (v != V_PASS)
			return v;
	}
	json_object_foreach(expected, key, e) {
		enum verdict v = check_type_limit(r, key, e, lim.output.data_types, "output");
		if (v != V_PASS)
			return v;
	}
	return V_PASS;
}

static enum verdict build_operators(struct replay *r, json_t *opers, bool optional)
{
	enum webnn_status s = webnn_builder_create(r->ctx, &r->b);
	if (s != WEBNN_STATUS_OK) {
		replay_fail_status(r, s, "createBuilder");
		return V_FAIL;
	}
	for (size_t i = 0; i < json_array_size(opers); i++)
		if (!operators_build(r, json_array_get(opers, i), optional))
			return r->skip && (optional || strstr(r->err, "not supported by libwebnn"))
				       ? V_SKIP
				       : V_FAIL;
	return V_PASS;
}

/* The graph computes exactly the expected outputs; WPT checks their descriptors first. */
static bool name_outputs(struct replay *r, json_t *expected, struct webnn_named_operand *named)
{
	const char *key;
	json_t *e;
	size_t i = 0;
	json_object_foreach(expected, key, e) {
		struct webnn_operand_desc want, got;
		char ws[128], gs[128];
		named[i].name = key;
		named[i].operand = replay_find_operand(r, key);
		if (!named[i].operand) {
			replay_fail(r, "expected output %s is not produced by any operator", key);
			return false;
		}
		if (!replay_parse_desc(r, key, json_object_get(e, "descriptor"), &want))
			return false;
		webnn_operand_get_desc(named[i].operand, &got);
		replay_format_desc(&want, ws, sizeof(ws));
		replay_format_desc(&got, gs, sizeof(gs));
		if (strcmp(ws, gs) != 0) {
			replay_fail(r, "output %s: descriptor is %s, expected %s", key, gs, ws);
			return false;
		}
		i++;
	}
	return true;
}

static enum verdict build_graph(struct replay *r, json_t *expected, bool optional,
				struct execution *x, struct case_result *res)
{
	size_t n = json_object_size(expected);
	struct webnn_named_operand *named = calloc(n, sizeof(*named));
	if (!named) {
		replay_fail(r, "out of memory");
		return V_FAIL;
	}
	if (!name_outputs(r, expected, named)) {
		free(named);
		return r->skip && optional ? V_SKIP : V_FAIL;
	}
	double t0 = now_ms();
	enum webnn_status s = webnn_builder_build(r->b, named, n, &x->g);
	res->build_ms = now_ms() - t0;
	free(named);
	if (s != WEBNN_STATUS_OK) {
		replay_fail_status(r, s, "build");
		return optional && s == WEBNN_STATUS_NOT_SUPPORTED ? V_SKIP : V_FAIL;
	}
	res->compile_ms = webnn_graph_compile_ms(x->g);
	res->stats = (struct webnn_graph_stats)WEBNN_GRAPH_STATS_INIT;
	webnn_graph_get_stats(x->g, &res->stats);
	return V_PASS;
}

/* One writable tensor per graph input, filled from the case's data. */
static bool bind_input(struct replay *r, struct execution *x, size_t i)
{
	struct webnn_tensor_desc td = { .writable = true };
	const char *name = webnn_graph_input_name(x->g, i, &td.desc);
	json_t *entry = json_object_get(r->inputs, name);
	size_t size = 0;
	void *buf = entry ? replay_encode_data(r, name, entry, &td.desc, &size) : NULL;
	if (!entry)
		replay_fail(r, "graph input %s has no data in the case", name);
	if (!buf)
		return false;
	enum webnn_status s = webnn_context_create_tensor(r->ctx, &td, &x->tensors[i]);
	if (s == WEBNN_STATUS_OK)
		s = webnn_context_write_tensor(r->ctx, x->tensors[i], buf, size);
	free(buf);
	if (s != WEBNN_STATUS_OK)
		return replay_fail_status(r, s, name);
	x->bind_in[i] = (struct webnn_named_tensor){ name, x->tensors[i] };
	return true;
}

static bool bind_tensors(struct replay *r, struct execution *x)
{
	x->n_in = webnn_graph_input_count(x->g);
	x->n_out = webnn_graph_output_count(x->g);
	x->tensors = calloc(x->n_in + x->n_out + 1, sizeof(*x->tensors));
	x->bind_in = calloc(x->n_in + 1, sizeof(*x->bind_in));
	x->bind_out = calloc(x->n_out + 1, sizeof(*x->bind_out));
	x->out_bufs = calloc(x->n_out + 1, sizeof(*x->out_bufs));
	if (!x->tensors || !x->bind_in || !x->bind_out || !x->out_bufs) {
		replay_fail(r, "out of memory");
		return false;
	}
	for (size_t i = 0; i < x->n_in; i++)
		if (!bind_input(r, x, i))
			return false;
	for (size_t i = 0; i < x->n_out; i++) {
		struct webnn_tensor_desc td = { .readable = true };
		const char *name = webnn_graph_output_name(x->g, i, &td.desc);
		struct webnn_tensor **t = &x->tensors[x->n_in + i];
		enum webnn_status s = webnn_context_create_tensor(r->ctx, &td, t);
		if (s != WEBNN_STATUS_OK)
			return replay_fail_status(r, s, name);
		x->bind_out[i] = (struct webnn_named_tensor){ name, *t };
	}
	return true;
}

static bool dispatch(struct replay *r, struct execution *x, struct case_result *res)
{
	double t0 = now_ms();
	enum webnn_status s = webnn_context_dispatch(r->ctx, x->g, x->bind_in, x->n_in,
						     x->bind_out, x->n_out);
	if (s == WEBNN_STATUS_OK)
		s = webnn_context_flush(r->ctx);
	res->dispatch_ms = now_ms() - t0;
	if (s != WEBNN_STATUS_OK)
		return replay_fail_status(r, s, "dispatch");
	return true;
}

/* Reads every output; with check (tol non-NULL) compares it, else keeps it as JSON. */
static enum verdict read_outputs(struct replay *r, struct execution *x, json_t *expected,
				 const struct tool_tolerance *tol, bool verbose,
				 struct case_result *res)
{
	double t0 = now_ms();
	bool all_ok = true;
	res->outputs = json_object();
	for (size_t i = 0; i < x->n_out; i++) {
		struct webnn_operand_desc d;
		const char *name = webnn_graph_output_name(x->g, i, &d);
		size_t size = webnn_data_type_byte_length(d.data_type, replay_desc_elements(&d));
		x->out_bufs[i] = calloc(size ? size : 1, 1);
		if (!x->out_bufs[i]) {
			replay_fail(r, "out of memory");
			return V_FAIL;
		}
		enum webnn_status s = webnn_context_read_tensor(r->ctx, x->tensors[x->n_in + i],
								x->out_bufs[i], size);
		if (s != WEBNN_STATUS_OK) {
			replay_fail_status(r, s, name);
			return V_FAIL;
		}
		if (!tol)
			json_object_set_new(res->outputs, name, outputs_json(&d, x->out_bufs[i]));
		if (tol && all_ok &&
		    !outputs_compare(r, name, json_object_get(expected, name), &d, x->out_bufs[i],
				    *tol, verbose))
			all_ok = false;
	}
	res->read_ms = now_ms() - t0;
	return all_ok ? V_PASS : V_FAIL;
}

static void release(struct replay *r, struct execution *x)
{
	for (size_t i = 0; x->tensors && i < x->n_in + x->n_out; i++)
		webnn_tensor_destroy(x->tensors[i]);
	for (size_t i = 0; x->out_bufs && i < x->n_out; i++)
		free(x->out_bufs[i]);
	free(x->tensors);
	free(x->bind_in);
	free(x->bind_out);
	free(x->out_bufs);
	webnn_graph_destroy(x->g);
	webnn_builder_destroy(r->b);
	free(r->names);
}

/* Everything before dispatch: the case's shape, its support here, the built graph. */
static enum verdict prepare(struct replay *r, json_t *c, bool check, struct tool_tolerance *tol,
			    struct execution *x, struct case_result *res)
{
	json_t *graph = json_object_get(c, "graph");
	json_t *opers = json_object_get(graph, "operators");
	json_t *expected = json_object_get(graph, "expectedOutputs");
	bool optional = json_is_false(json_object_get(c, "required"));
	enum verdict v;
	r->inputs = json_object_get(graph, "inputs");
	if (!json_is_object(r->inputs) || !json_is_array(opers) || !json_is_object(expected) ||
	    json_object_size(expected) == 0) {
		replay_fail(r, "case needs graph.inputs, graph.operators and graph.expectedOutputs");
		return V_FAIL;
	}
	if (check && !outputs_parse_tolerance(r, c, tol))
		return V_FAIL;
	if ((v = check_operators(r, opers)) != V_PASS)
		return v;
	if (optional && (v = check_type_limits(r, expected)) != V_PASS)
		return v;
	if ((v = build_operators(r, opers, optional)) != V_PASS)
		return v;
	return build_graph(r, expected, optional, x, res);
}

/* Builds, runs and (with check) compares one case. */
enum verdict run_case(struct webnn_context *ctx, json_t *c, bool check, bool verbose,
		      struct case_result *res, char *why, size_t why_len)
{
	struct replay r = { .ctx = ctx };
	struct execution x = { 0 };
	struct tool_tolerance tol = { 0 };
	json_t *expected = json_object_get(json_object_get(c, "graph"), "expectedOutputs");
	enum verdict v = prepare(&r, c, check, &tol, &x, res);
	if (v == V_PASS)
		v = bind_tensors(&r, &x) && dispatch(&r, &x, res)
			    ? read_outputs(&r, &x, expected, check ? &tol : NULL, verbose, res)
			    : V_FAIL;
	res->n_operators = r.n_built;
	snprintf(why, why_len, "%s", r.err);
	release(&r, &x);
	return v;
}
