/* ONNX control flow as straight-line WebNN: If keeps its branch or computes both and picks with where; Loop and Scan unroll. */
#include "importers/onnx/onnx_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* WebNN has no control flow. What a graph attribute computes becomes part of the one graph:
 * its nodes run in the current scope (their outer-scope names resolve to the values of the
 * enclosing graph), a loop's body once per iteration with its inputs defined anew. */

static const Onnx__GraphProto *graph_attr(struct ox_node *n, const char *name)
{
	const Onnx__AttributeProto *a = ox_attr(n, name);
	return a ? a->g : NULL;
}

static void release_all(struct ox_val *v, size_t count)
{
	for (size_t i = 0; v && i < count; i++)
		ox_val_release(&v[i]);
}

static const char *val_desc(const struct ox_val *v, char *buf, size_t len)
{
	int k = snprintf(buf, len, "%s[", ox_type_name(v->onnx_type));
	for (uint32_t i = 0; i < v->rank && k > 0 && (size_t)k < len; i++)
		k += snprintf(buf + k, len - (size_t)k, "%s%u", i ? "," : "", v->dims[i]);
	if (k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, "]");
	return buf;
}

/* Copies of the values a graph attribute's outputs name (first..first+count). */
static int graph_outputs(struct ox_node *n, const Onnx__GraphProto *g, size_t first, size_t count,
			 struct ox_val *outs, const char *what)
{
	for (size_t i = 0; i < count; i++) {
		const char *name = g->output[first + i]->name ? g->output[first + i]->name : "";
		const struct ox_val *v = ox_find(n->M, name);
		if (v && v->failed) { /* its reason is listed */
			release_all(outs, i);
			return -1;
		}
		if (!v) {
			release_all(outs, i);
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				       "%s output \"%s\" is not computed by any of its nodes", what,
				       name);
		}
		if (ox_clone(n, v, &outs[i])) {
			release_all(outs, i);
			return -1;
		}
	}
	return 0;
}

/* A known single-element value as a truth value. */
static int known_truth(struct ox_node *n, const struct ox_val *v, const char *what, bool *out)
{
	int64_t *c;
	size_t count;
	if (ox_host_i64(n, v, what, &c, &count))
		return -1;
	if (count != 1)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "%s has %zu elements (one expected)", what,
			       count);
	*out = c[0] != 0;
	return 0;
}

static int move_out(struct ox_node *n, size_t i, struct ox_val *v)
{
	if (i >= n->n_out) {
		ox_val_release(v);
		return 0;
	}
	n->out[i] = *v;
	n->out_set[i] = true;
	v->host = NULL;
	v->host_owned = false;
	return 0;
}

/* A branch of an If whose cond is computed at run time did not build (its nodes' reasons are
 * listed): ONNX runs only the branch taken, this composition builds both, so it says how to keep
 * one (a branch often fits only the inputs it is taken for, like a sample rate's). */
static void branch_failed(struct ox_node *n, const char *which)
{
	ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
		"cond is computed at run time, so both branches are built, and %s does not build "
		"with these inputs; bind the inputs cond depends on to keep one branch "
		"(webnn_import_options.binds, webnn-run --bind NAME=VALUE)", which);
}

static int op_if(struct ox_node *n)
{
	struct ox_model *M = n->M;
	const Onnx__GraphProto *gt = graph_attr(n, "then_branch"), *ge = graph_attr(n, "else_branch");
	if (!gt || !ge)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "the graph attribute %s is missing",
			       gt ? "else_branch" : "then_branch");
	if (!ox_has_in(n, 0))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "input 0 (cond) is missing");
	if (gt->n_output != ge->n_output || gt->n_output < n->n_out)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "the branches give %zu and %zu outputs for the node's %zu",
			       gt->n_output, ge->n_output, n->n_out);
	/* n->in points into the value table, which the branches' nodes grow: copy first */
	struct ox_val cond;
	if (ox_clone(n, n->in[0], &cond))
		return -1;
	if (ox_elems(cond.rank, cond.dims) != 1) {
		ox_val_release(&cond);
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "cond has %zu elements (one expected)",
			       ox_elems(cond.rank, cond.dims));
	}
	size_t count = n->n_out;
	if (cond.host) {
		/* known at load time: the other branch is never built */
		bool c;
		int rc = known_truth(n, &cond, "cond", &c);
		ox_val_release(&cond);
		if (rc)
			return -1;
		const Onnx__GraphProto *g = c ? gt : ge;
		struct ox_val *outs = calloc(count ? count : 1, sizeof(*outs));
		if (!outs)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		if (ox_run_graph(M, g, n->opset) || graph_outputs(n, g, 0, count, outs, "branch")) {
			free(outs);
			return -1;
		}
		for (size_t i = 0; i < count; i++)
			move_out(n, i, &outs[i]);
		free(outs);
		return 0;
	}
	/* computed at run time: both branches are built (ONNX operators have no side effects)
	 * and where picks each output, which needs the same type and shape from both */
	struct ox_val *t = calloc(count ? count : 1, sizeof(*t)),
		      *e = calloc(count ? count : 1, sizeof(*e));
	int rc = -1;
	if (!t || !e) {
		ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		goto out;
	}
	if (ox_run_graph(M, gt, n->opset) || graph_outputs(n, gt, 0, count, t, "then_branch")) {
		branch_failed(n, "then_branch");
		goto out_t;
	}
	if (ox_run_graph(M, ge, n->opset) || graph_outputs(n, ge, 0, count, e, "else_branch")) {
		branch_failed(n, "else_branch");
		goto out_e;
	}
	char why[768] = "";
	size_t k = 0;
	for (size_t i = 0; i < count && k < sizeof(why); i++) {
		bool same = t[i].type == e[i].type && t[i].rank == e[i].rank;
		for (uint32_t a = 0; same && a < t[i].rank; a++)
			same = t[i].dims[a] == e[i].dims[a];
		if (same)
			continue;
		char a[128], b[128];
		int w = snprintf(why + k, sizeof(why) - k, "%soutput %zu is %s in then_branch, %s "
				 "in else_branch", k ? "; " : "", i, val_desc(&t[i], a, sizeof(a)),
				 val_desc(&e[i], b, sizeof(b)));
		k += w > 0 ? (size_t)w : 0;
	}
	if (k) {
		ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			"cond is computed at run time and WebNN has no control flow: both branches "
			"are computed and where picks, which needs the same types and shapes (%s)",
			why);
		goto out_all;
	}
	struct webnn_operand *c = ox_operand(n, &cond);
	if (!c || !(c = ox_reshape(n, c, 0, NULL)))
		goto out_all;
	for (size_t i = 0; i < count; i++) {
		struct webnn_operand *a = ox_operand(n, &t[i]), *b, *o;
		if (!a || !(b = ox_operand(n, &e[i])))
			goto out_all;
		enum webnn_status s = webnn_builder_where(M->b, c, a, b, &o);
		if (s != WEBNN_STATUS_OK) {
			ox_builder_fail(n, s, "where");
			goto out_all;
		}
		ox_set(n, i, o);
		n->out[i].onnx_type = t[i].onnx_type;
	}
	rc = 0;
out_all:
	release_all(e, count);
out_e:
	release_all(t, count);
out_t:
out:
	ox_val_release(&cond);
	free(t);
	free(e);
	return rc;
}

/* Stacks count values of one type and shape along a new axis (reverse: last first) into
 * output i: on the host when all are known, else with reshape and concat. */
static int stack(struct ox_node *n, struct ox_val *v, size_t count, int64_t axis_attr, bool reverse,
		 size_t i, const char *what)
{
	const struct ox_val *f = &v[0];
	uint32_t axis;
	if (f->rank + 1 > WEBNN_MAX_RANK)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "%s: rank %u, more than WebNN's %d",
			       what, f->rank + 1, WEBNN_MAX_RANK);
	if (ox_axis(n, axis_attr, f->rank + 1, &axis))
		return -1;
	bool host = true;
	for (size_t t = 0; t < count; t++) {
		bool same = v[t].type == f->type && v[t].rank == f->rank;
		for (uint32_t a = 0; same && a < f->rank; a++)
			same = v[t].dims[a] == f->dims[a];
		if (!same) {
			char a[128], b[128];
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "%s: iteration %zu gives %s, iteration 0 %s (a stacked output "
				       "needs one shape)", what, t, val_desc(&v[t], a, sizeof(a)),
				       val_desc(f, b, sizeof(b)));
		}
		host = host && v[t].host;
	}
	uint32_t dims[WEBNN_MAX_RANK], one[WEBNN_MAX_RANK];
	for (uint32_t a = 0, s = 0; a <= f->rank; a++) {
		dims[a] = a == axis ? (uint32_t)count : f->dims[s];
		one[a] = a == axis ? 1 : f->dims[s];
		s += a != axis;
	}
	if (host && ox_elems(f->rank, f->dims) * count <= OX_FOLD_MAX_ELEMS) {
		size_t es = webnn_data_type_size(f->type), outer = ox_elems(axis, f->dims),
		       inner = ox_elems(f->rank - axis, f->dims + axis) * es;
		uint8_t *p = malloc(outer * count * inner + 1);
		if (!p)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		for (size_t o = 0; o < outer; o++)
			for (size_t t = 0; t < count; t++)
				memcpy(p + (o * count + t) * inner,
				       (const uint8_t *)v[reverse ? count - 1 - t : t].host + o * inner,
				       inner);
		return ox_set_host(n, i, f->onnx_type, f->rank + 1, dims, p);
	}
	struct webnn_operand **ops = malloc(count * sizeof(*ops)), *o;
	if (!ops)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (size_t t = 0; t < count; t++) {
		struct webnn_operand *x = ox_operand(n, &v[reverse ? count - 1 - t : t]);
		if (!x || !(ops[t] = ox_reshape(n, x, f->rank + 1, one))) {
			free(ops);
			return -1;
		}
	}
	enum webnn_status s = count == 1 ? webnn_builder_identity(n->M->b, ops[0], &o)
					 : webnn_builder_concat(n->M->b, ops, count, axis, &o);
	free(ops);
	if (s != WEBNN_STATUS_OK)
		return ox_builder_fail(n, s, "concat");
	ox_set(n, i, o);
	n->out[i].onnx_type = f->onnx_type;
	return 0;
}

/* Per output of a loop, the values of each iteration. */
struct scans {
	struct ox_val *v;
	size_t n, cap;
};

static int scan_push(struct ox_node *n, struct scans *s, struct ox_val *v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct ox_val *nv = realloc(s->v, cap * sizeof(*nv));
		if (!nv) {
			ox_val_release(v);
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		}
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = *v;
	return 0;
}

static void scans_free(struct scans *s, size_t count)
{
	for (size_t k = 0; s && k < count; k++) {
		release_all(s[k].v, s[k].n);
		free(s[k].v);
	}
	free(s);
}

static int define_scalar(struct ox_node *n, const char *name, int onnx_type, int64_t value)
{
	struct ox_val v = { 0 };
	v.onnx_type = onnx_type;
	ox_webnn_type(onnx_type, &v.type);
	int64_t i64 = value;
	uint8_t u8 = (uint8_t)value;
	v.host = onnx_type == OX_INT64 ? (void *)&i64 : (void *)&u8;
	return ox_define(n, name, &v);
}

static const char *input_name(const Onnx__GraphProto *g, size_t i)
{
	return g->input[i]->name ? g->input[i]->name : "";
}

#define UNROLL_REASON "WebNN has no loops, and a loop unrolls only where its trip count is known " \
		      "when the model loads"

static int op_loop(struct ox_node *n)
{
	struct ox_model *M = n->M;
	const Onnx__GraphProto *body = graph_attr(n, "body");
	if (!body)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "the graph attribute body is missing");
	if (n->n_in < 2)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "%zu inputs: Loop takes M and cond (either may be empty) first",
			       n->n_in);
	size_t carried = n->n_in - 2;
	if (body->n_input != carried + 2 || body->n_output < carried + 1)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "the body takes %zu inputs and gives %zu outputs for %zu loop-carried "
			       "values (expected %zu inputs and at least %zu outputs)",
			       body->n_input, body->n_output, carried, carried + 2, carried + 1);
	size_t n_scan = body->n_output - 1 - carried;
	int64_t trip = -1;
	bool cond = true, cond_given = ox_has_in(n, 1);
	if (ox_has_in(n, 0)) {
		if (!n->in[0]->host)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "the trip count M is computed at run time: " UNROLL_REASON);
		int64_t *v;
		size_t c;
		if (ox_host_i64(n, n->in[0], "M", &v, &c))
			return -1;
		if (c != 1)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "M has %zu elements (one expected)",
				       c);
		trip = v[0] < 0 ? 0 : v[0];
	}
	if (cond_given) {
		if (!n->in[1]->host)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "cond is computed at run time: " UNROLL_REASON);
		if (known_truth(n, n->in[1], "cond", &cond))
			return -1;
	}
	if (trip < 0 && !cond_given)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "neither M nor cond is given (a loop "
			       "that never ends)");
	if (trip > OX_UNROLL_MAX)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "M is %lld: more iterations than the %d this importer unrolls",
			       (long long)trip, OX_UNROLL_MAX);
	struct ox_val *state = calloc(carried + 1, sizeof(*state));
	struct scans *scans = calloc(n_scan + 1, sizeof(*scans));
	int rc = -1;
	size_t have = 0;
	if (!state || !scans) {
		ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		goto out;
	}
	for (; have < carried; have++) {
		if (!ox_has_in(n, 2 + have)) {
			ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "loop-carried input %zu is empty",
				2 + have);
			goto out;
		}
		if (ox_clone(n, n->in[2 + have], &state[have]))
			goto out;
	}
	/* n->in is stale from here on: the body's nodes grow the value table */
	int64_t it = 0;
	for (; cond && (trip < 0 || it < trip); it++) {
		if (it >= OX_UNROLL_MAX) {
			ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				"the loop runs past %d iterations, the most this importer unrolls",
				OX_UNROLL_MAX);
			goto out;
		}
		if (define_scalar(n, input_name(body, 0), OX_INT64, it) ||
		    define_scalar(n, input_name(body, 1), OX_BOOL, cond))
			goto out;
		for (size_t j = 0; j < carried; j++)
			if (ox_define(n, input_name(body, 2 + j), &state[j]))
				goto out;
		if (ox_run_graph(M, body, n->opset))
			goto out;
		struct ox_val next;
		if (cond_given) {
			if (graph_outputs(n, body, 0, 1, &next, "body"))
				goto out;
			if (!next.host) {
				ox_val_release(&next);
				ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
					"the body computes cond at run time: " UNROLL_REASON);
				goto out;
			}
			int r = known_truth(n, &next, "the body's cond", &cond);
			ox_val_release(&next);
			if (r)
				goto out;
		}
		release_all(state, carried);
		if (graph_outputs(n, body, 1, carried, state, "body"))
			goto out;
		for (size_t k = 0; k < n_scan; k++)
			if (graph_outputs(n, body, 1 + carried + k, 1, &next, "body") ||
			    scan_push(n, &scans[k], &next))
				goto out;
	}
	for (size_t j = 0; j < carried; j++)
		move_out(n, j, &state[j]);
	for (size_t k = 0; k < n_scan && carried + k < n->n_out; k++) {
		if (!it) {
			ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "scan output %zu is empty (no "
				"iterations; WebNN has no empty tensors)", k);
			goto out;
		}
		char what[64];
		snprintf(what, sizeof(what), "scan output %zu", k);
		if (stack(n, scans[k].v, scans[k].n, 0, false, carried + k, what))
			goto out;
	}
	rc = 0;
out:
	release_all(state, have);
	free(state);
	scans_free(scans, n_scan);
	return rc;
}

/* Element idx of v along axis (that axis dropped) into dst: a host copy when v is known. */
static int take(struct ox_node *n, struct ox_val *v, uint32_t axis, uint32_t idx,
		struct ox_val *dst)
{
	memset(dst, 0, sizeof(*dst));
	dst->type = v->type;
	dst->onnx_type = v->onnx_type;
	dst->rank = v->rank - 1;
	for (uint32_t a = 0, s = 0; a < v->rank; a++)
		if (a != axis)
			dst->dims[s++] = v->dims[a];
	if (v->host) {
		size_t es = webnn_data_type_size(v->type), outer = ox_elems(axis, v->dims),
		       inner = ox_elems(v->rank - axis - 1, v->dims + axis + 1) * es;
		uint8_t *p = malloc(outer * inner + 1);
		if (!p)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		for (size_t o = 0; o < outer; o++)
			memcpy(p + o * inner,
			       (const uint8_t *)v->host + (o * v->dims[axis] + idx) * inner, inner);
		dst->host = p;
		dst->host_owned = true;
		return 0;
	}
	uint32_t starts[WEBNN_MAX_RANK] = { 0 }, sizes[WEBNN_MAX_RANK];
	memcpy(sizes, v->dims, sizeof(sizes[0]) * v->rank);
	starts[axis] = idx;
	sizes[axis] = 1;
	struct webnn_operand *x = ox_operand(n, v), *o;
	if (!x)
		return -1;
	enum webnn_status s = webnn_builder_slice(n->M->b, x, starts, v->rank, sizes, v->rank,
						  NULL, &o);
	if (s != WEBNN_STATUS_OK)
		return ox_builder_fail(n, s, "slice");
	if (!(dst->op = ox_reshape(n, o, dst->rank, dst->dims)))
		return -1;
	return 0;
}

static int64_t list_at(long count, const int64_t *v, size_t i)
{
	return count > 0 && i < (size_t)count ? v[i] : 0;
}

static int op_scan(struct ox_node *n)
{
	struct ox_model *M = n->M;
	const Onnx__GraphProto *body = graph_attr(n, "body");
	if (!body)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "the graph attribute body is missing");
	int64_t m = ox_attr_i(n, "num_scan_inputs", -1);
	if (m < 1 || (size_t)m > n->n_in)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "num_scan_inputs is %lld for %zu inputs",
			       (long long)m, n->n_in);
	size_t n_state = n->n_in - (size_t)m;
	if (body->n_input != n->n_in || body->n_output < n_state)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "the body takes %zu inputs and gives %zu outputs for %zu states and "
			       "%lld scan inputs", body->n_input, body->n_output, n_state,
			       (long long)m);
	size_t n_scan = body->n_output - n_state;
	const int64_t *in_axes, *in_dirs, *out_axes, *out_dirs;
	long n_in_axes = ox_attr_ints(n, "scan_input_axes", &in_axes),
	     n_in_dirs = ox_attr_ints(n, "scan_input_directions", &in_dirs),
	     n_out_axes = ox_attr_ints(n, "scan_output_axes", &out_axes),
	     n_out_dirs = ox_attr_ints(n, "scan_output_directions", &out_dirs);
	struct ox_val *vals = calloc(n->n_in + 1, sizeof(*vals));
	uint32_t *axis = calloc((size_t)m, sizeof(*axis));
	struct scans *scans = calloc(n_scan + 1, sizeof(*scans));
	size_t have = 0;
	int rc = -1;
	if (!vals || !axis || !scans) {
		ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		goto out;
	}
	for (; have < n->n_in; have++) {
		if (!ox_has_in(n, have)) {
			ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "input %zu is empty", have);
			goto out;
		}
		if (ox_clone(n, n->in[have], &vals[have]))
			goto out;
	}
	/* the trip count: every scan input's length along its axis, known from the shapes */
	uint32_t steps = 0;
	for (size_t i = 0; i < (size_t)m; i++) {
		struct ox_val *v = &vals[n_state + i];
		if (v->rank == 0) {
			ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "scan input %zu is a scalar", i);
			goto out;
		}
		if (ox_axis(n, list_at(n_in_axes, in_axes, i), v->rank, &axis[i]))
			goto out;
		if (i && v->dims[axis[i]] != steps) {
			ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "scan input %zu has %u steps, input 0 %u",
				i, v->dims[axis[i]], steps);
			goto out;
		}
		steps = v->dims[axis[i]];
	}
	if (steps > OX_UNROLL_MAX) {
		ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			"%u steps: more iterations than the %d this importer unrolls", steps,
			OX_UNROLL_MAX);
		goto out;
	}
	for (uint32_t t = 0; t < steps; t++) {
		for (size_t j = 0; j < n_state; j++)
			if (ox_define(n, input_name(body, j), &vals[j]))
				goto out;
		for (size_t i = 0; i < (size_t)m; i++) {
			struct ox_val el;
			uint32_t idx = list_at(n_in_dirs, in_dirs, i) ? steps - 1 - t : t;
			if (take(n, &vals[n_state + i], axis[i], idx, &el))
				goto out;
			int r = ox_define(n, input_name(body, n_state + i), &el);
			ox_val_release(&el);
			if (r)
				goto out;
		}
		if (ox_run_graph(M, body, n->opset))
			goto out;
		release_all(vals, n_state);
		if (graph_outputs(n, body, 0, n_state, vals, "body"))
			goto out;
		for (size_t k = 0; k < n_scan; k++) {
			struct ox_val next;
			if (graph_outputs(n, body, n_state + k, 1, &next, "body") ||
			    scan_push(n, &scans[k], &next))
				goto out;
		}
	}
	for (size_t j = 0; j < n_state; j++)
		move_out(n, j, &vals[j]);
	for (size_t k = 0; k < n_scan && n_state + k < n->n_out; k++) {
		if (!steps) {
			ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "scan output %zu is empty (no steps; "
				"WebNN has no empty tensors)", k);
			goto out;
		}
		char what[64];
		snprintf(what, sizeof(what), "scan output %zu", k);
		if (stack(n, scans[k].v, scans[k].n, list_at(n_out_axes, out_axes, k),
			  list_at(n_out_dirs, out_dirs, k) != 0, n_state + k, what))
			goto out;
	}
	rc = 0;
out:
	release_all(vals, have);
	free(vals);
	free(axis);
	scans_free(scans, n_scan);
	return rc;
}

const struct ox_op ox_ops_control[] = {
	{ "If", 1, 21, op_if },
	{ "Loop", 1, 21, op_loop },
	{ "Scan", 9, 21, op_scan },
	{ NULL, 0, 0, NULL },
};
