/* Dispatch: binds named tensors to a compiled graph's inputs and outputs and queues the run. */
#include "daemon/worker/mlgraph.h"

#include "daemon/worker/context.h"
#include "daemon/worker/graphcache.h"
#include "daemon/log.h"
#include "daemon/worker/request.h"
#include "daemon/worker/session.h"
#include "daemon/worker/tensor.h"
#include "daemon/worker/timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct named_ref {
	const char *name;
	size_t index;
};

static int named_cmp(const void *a, const void *b)
{
	return strcmp(((const struct named_ref *)a)->name, ((const struct named_ref *)b)->name);
}

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
	return x < y ? -1 : x > y;
}

/* Matches the given named tensors against the graph's names (sorted merge, so hostile name
 * lists cost n log n) and checks descriptors. Fills out[] in graph order. */
static bool dispatch_bind(const char *what, const Webnn__Ipc__NamedOperand *const *gnames,
			  size_t gn, const uint32_t *gops, const struct wnn_desc *descs,
			  Webnn__Ipc__NamedTensor *const *given, size_t n, struct tensor **tensors,
			  struct tensor **out, struct wnn_diag *diag)
{
	if (n != gn) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
			     "dispatch: the graph has %zu %ss, %zu given", gn, what, n);
		return false;
	}
	struct named_ref *a = malloc(sizeof(*a) * (n ? n : 1));
	struct named_ref *b = malloc(sizeof(*b) * (n ? n : 1));
	bool ok = a && b;
	if (!ok)
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "dispatch: out of memory");
	for (size_t i = 0; ok && i < n; i++) {
		a[i] = (struct named_ref){ gnames[i]->name, i };
		b[i] = (struct named_ref){ given[i]->name, i };
	}
	if (ok) {
		qsort(a, n, sizeof(*a), named_cmp);
		qsort(b, n, sizeof(*b), named_cmp);
	}
	for (size_t i = 0; ok && i < n; i++) {
		int cmp = strcmp(a[i].name, b[i].name);
		if (cmp != 0) {
			/* The smaller name is the one missing from the other list. */
			if (cmp < 0)
				wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					     "dispatch: %s '%s' of the graph is missing", what,
					     a[i].name);
			else
				wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					     "dispatch: '%s' is not an %s of the graph%s", b[i].name,
					     what, i + 1 < n && !strcmp(b[i].name, b[i + 1].name)
							   ? " (or is given twice)" : "");
			ok = false;
			break;
		}
		struct tensor *t = tensors[b[i].index];
		const struct wnn_desc *want = &descs[gops[a[i].index]];
		if (t->constant) {
			wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				     "dispatch: %s '%s': tensor %" PRIu32 " is a constant tensor",
				     what, a[i].name, t->obj.id);
			ok = false;
		} else if (!wnn_desc_equal(&t->desc, want)) {
			char d1[96], d2[96];
			wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				     "dispatch: %s '%s': tensor %" PRIu32 " is %s, the graph expects %s",
				     what, a[i].name, t->obj.id, wnn_desc_str(&t->desc, d1, sizeof(d1)),
				     wnn_desc_str(want, d2, sizeof(d2)));
			ok = false;
		} else {
			out[a[i].index] = t;
		}
	}
	free(a);
	free(b);
	return ok;
}

/* No tensor may appear twice, whether as two inputs, two outputs or both. */
static bool dispatch_unique(struct tensor *const *given, size_t nt, struct wnn_diag *diag)
{
	struct tensor **sorted = malloc(sizeof(*sorted) * (nt ? nt : 1));
	if (!sorted) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "dispatch: out of memory");
		return false;
	}
	bool ok = true;
	memcpy(sorted, given, sizeof(*sorted) * nt);
	qsort(sorted, nt, sizeof(*sorted), ptr_cmp);
	for (size_t i = 1; i < nt && ok; i++)
		if (sorted[i] == sorted[i - 1]) {
			wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				     "dispatch: tensor %" PRIu32 " is used more than "
				     "once among the inputs and outputs", sorted[i]->obj.id);
			ok = false;
		}
	free(sorted);
	return ok;
}

/* ---- the dispatch command (struct cmd_kind) */

/* A dispatch's graph and tensors are still usable when it reaches the head of the timeline. */
static bool dispatch_prepare(struct cmd *cmd)
{
	struct mlgraph *g = cmd->graph;
	struct wnn_diag *diag = &cmd->diag;
	if (g->failed) {
		cmd->status = wnn_diag_set(diag, WEBNN_STATUS_INVALID_STATE,
					   "dispatch: graph %" PRIu32 " failed to build: %s",
					   g->obj.id, g->fail_msg);
		return true;
	}
	const Webnn__Ipc__GraphInfo *gi = mlgraph_info(g);
	for (size_t i = 0; i < cmd->n_ins + cmd->n_outs; i++) {
		bool in = i < cmd->n_ins;
		struct tensor *x = in ? cmd->ins[i] : cmd->outs[i - cmd->n_ins];
		const Webnn__Ipc__NamedOperand *no = in ? gi->inputs[i] : gi->outputs[i - cmd->n_ins];
		if (x->failed) {
			cmd->status = wnn_diag_set(diag, WEBNN_STATUS_INVALID_STATE,
						   "dispatch: %s '%s': tensor %" PRIu32
						   " was never created", in ? "input" : "output",
						   no->name, x->obj.id);
			return true;
		}
		if (in && x->poison) {
			cmd->status = wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
						   "dispatch: input '%s': tensor %" PRIu32
						   " holds no valid data: %s", no->name, x->obj.id,
						   x->poison);
			return true;
		}
	}
	return true;
}

static bool dispatch_quick(const struct cmd *cmd)
{
	return cmd->graph->quick;
}

static void dispatch_work(struct cmd *cmd)
{
	const struct backend_impl *impl = cmd->ctx->backend->impl;
	struct wnn_diag *diag = &cmd->diag;
	/* a graph loaded from a large cache entry: its bytes are checked first */
	if (cmd->graph->check &&
	    (cmd->status = graphcache_check_run(cmd->graph->check, diag)) != WEBNN_STATUS_OK)
		return;
	struct backend_tensor **bts = malloc(sizeof(*bts) * (cmd->n_ins + cmd->n_outs + 1));
	if (!bts) {
		cmd->status = wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "dispatch: out of memory");
		return;
	}
	for (size_t i = 0; i < cmd->n_ins; i++)
		bts[i] = cmd->ins[i]->bt;
	for (size_t i = 0; i < cmd->n_outs; i++)
		bts[cmd->n_ins + i] = cmd->outs[i]->bt;
	/* The loop thread (the quick path) runs plans on itself alone. */
	cmd->status = cmd->quick ? impl->execute_quick(cmd->graph->plan, bts, bts + cmd->n_ins, diag)
				 : impl->execute(cmd->graph->plan, bts, bts + cmd->n_ins, diag);
	free(bts);
}

static void dispatch_complete(struct cmd *cmd, bool ok)
{
	if (ok) {
		for (size_t i = 0; i < cmd->n_outs; i++) {
			free(cmd->outs[i]->poison);
			cmd->outs[i]->poison = NULL;
		}
		return;
	}
	char why[WNN_MAX_DIAG + 64];
	snprintf(why, sizeof(why), "dispatch of graph %" PRIu32 " failed: %s", cmd->graph->obj.id,
		 cmd->diag.message);
	for (size_t i = 0; i < cmd->n_outs; i++)
		tensor_poison(cmd->outs[i], why);
	cmd_fail(cmd, cmd->graph->obj.id);
}

/* Wall time also counts preemption (a loaded machine): only a plan slow several runs in a row
 * is taken off the quick path. */
static void dispatch_ran_quick(struct cmd *cmd, uint64_t ns)
{
	struct mlgraph *g = cmd->graph;
	g->quick_strikes = ns > QUICK_PLAN_NS ? g->quick_strikes + 1 : 0;
	if (g->quick_strikes >= QUICK_PLAN_STRIKES) {
		g->quick = false;
		log_debug("session %" PRIu64 ": graph %" PRIu32 " took %.3f ms on the quick path; "
			  "its dispatches take the thread pool from now on", cmd->ctx->obj.s->no,
			  g->obj.id, ns / 1e6);
	}
}

static const struct cmd_kind cmd_dispatch = {
	.verb = "dispatch",
	.watched = true,
	.prepare = dispatch_prepare,
	.quick = dispatch_quick,
	.work = dispatch_work,
	.complete = dispatch_complete,
	.ran_quick = dispatch_ran_quick,
};

int handle_dispatch(struct session *s, struct request *rq)
{
	const Webnn__Ipc__Dispatch *m = rq->msg->dispatch;
	struct wnn_diag diag = { 0 };
	struct context *c =
		(struct context *)request_lookup(s, m->context_id, &context_kind, "Dispatch");
	if (!c)
		return -1;
	struct mlgraph *g =
		(struct mlgraph *)request_lookup(s, m->graph_id, &mlgraph_kind, "Dispatch");
	if (!g)
		return -1;
	if (g->ctx != c)
		return request_violation(s, "Dispatch: graph %" PRIu32 " belongs to context %" PRIu32
					    ", not %" PRIu32, g->obj.id, g->ctx->obj.id, c->obj.id);
	size_t nt = m->n_inputs + m->n_outputs;
	struct tensor **given = malloc(sizeof(*given) * (nt ? nt : 1));
	struct cmd *cmd = cmd_new(&cmd_dispatch, c);
	if (!given || !cmd) {
		free(given);
		if (cmd)
			cmd_discard(cmd);
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "dispatch: out of memory");
		goto fail;
	}
	for (size_t i = 0; i < nt; i++) {
		const Webnn__Ipc__NamedTensor *nt_i =
			i < m->n_inputs ? m->inputs[i] : m->outputs[i - m->n_inputs];
		struct tensor *t = (struct tensor *)request_lookup(s, nt_i->tensor_id, &tensor_kind,
								   "Dispatch");
		if (!t || t->ctx != c) {
			if (t)
				request_violation(s, "Dispatch: tensor %" PRIu32 " belongs to context %"
						     PRIu32 ", not %" PRIu32,
						  t->obj.id, t->ctx->obj.id, c->obj.id);
			free(given);
			cmd_discard(cmd);
			return -1;
		}
		given[i] = t;
	}
	const Webnn__Ipc__GraphInfo *gi = mlgraph_info(g);
	cmd->ins = calloc(gi->n_inputs ? gi->n_inputs : 1, sizeof(*cmd->ins));
	cmd->outs = calloc(gi->n_outputs ? gi->n_outputs : 1, sizeof(*cmd->outs));
	bool ok = cmd->ins && cmd->outs;
	if (!ok)
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "dispatch: out of memory");
	if (ok && c->lost) {
		wnn_diag_set(&diag, WEBNN_STATUS_CONTEXT_LOST, "dispatch: context %" PRIu32
			     " is lost: %s", c->obj.id, c->lost_msg);
		ok = false;
	}
	ok = ok && dispatch_unique(given, nt, &diag);
	ok = ok && dispatch_bind("input", (const Webnn__Ipc__NamedOperand *const *)gi->inputs,
				 gi->n_inputs, g->in_ops, g->descs, m->inputs, m->n_inputs, given,
				 cmd->ins, &diag);
	ok = ok && dispatch_bind("output", (const Webnn__Ipc__NamedOperand *const *)gi->outputs,
				 gi->n_outputs, g->out_ops, g->descs, m->outputs, m->n_outputs,
				 given + m->n_inputs, cmd->outs, &diag);
	free(given);
	if (!ok) {
		cmd_discard(cmd);
		goto fail;
	}
	cmd->n_ins = gi->n_inputs;
	cmd->n_outs = gi->n_outputs;
	for (size_t i = 0; i < cmd->n_ins; i++)
		obj_ref(&cmd->ins[i]->obj);
	for (size_t i = 0; i < cmd->n_outs; i++)
		obj_ref(&cmd->outs[i]->obj);
	obj_ref(&g->obj);
	cmd->graph = g;
	timeline_push(cmd);
	return 0;
fail:
	timeline_fail(c, 0, g->obj.id, &diag);
	return 0;
}
