/* MLGraph requests: BuildGraph (look up, check, bind constants, charge, prepare, compile on the
 * context's timeline) and DestroyGraph; the graph's release. */
#include "daemon/worker/mlgraph.h"

#include "daemon/graph/passes.h"
#include "daemon/worker/constant.h"
#include "daemon/worker/context.h"
#include "daemon/worker/graphcache.h"
#include "daemon/log.h"
#include "daemon/worker/request.h"
#include "daemon/worker/session.h"
#include "daemon/worker/tensor.h"
#include "daemon/worker/timeline.h"
#include "daemon/worker/budget.h"
#include "daemon/worker/weights.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* After a successful compile, on the loop: the budgets hold what the compile really made (the
 * memory plan's peak, the folded constants, the IR, the backend's plan) instead of the bound
 * charged while it ran. false (diag set) when that is more than the budgets allow. */
static bool mlgraph_charge_plan(struct mlgraph *g, struct wnn_diag *diag);

/* On the timeline, before the compile: the constant operands' bytes as their fills left them
 * (a constant's bytes move into the worker's shared copy when its fill interns them). */
static void mlgraph_bind_data(struct mlgraph *g);

/* On the pool around the compile (daemon/worker/weights.h): the graph's constant bytes pinned
 * (restored where given back) before the import reads them; during the backend's compile,
 * unpinned and given back as soon as the plan reads them only through its prepared copies
 * (track_start). */
static bool mlgraph_pin_compile(struct mlgraph *g);
/* The graph's last step (on the loop, its plan gone): mlgraph_free_parts, but bytes given back
 * that outlive the graph are written back first: its plan charged the backend's copy standing
 * in for them, and nothing may charge it any more (another plan binding it, if any, charges
 * its own). */
static void mlgraph_keep_given_back(struct mlgraph *g, struct daemon *d);
/* One constant's bytes while the compile runs: given back once every use the optimised graph
 * makes of them is by a step built to read them only through the backend's prepared copies. */
struct track_one {
	struct weights *w;
	const uint8_t *p;
	uint64_t bytes;
	uint32_t pins;      /* the graph's pins on it (a constant bound twice, or two with the
			       same bytes) */
	uint64_t left;      /* uses not yet told (graph_ir.on_prepared) */
	bool eligible;
};

struct track {
	pthread_mutex_t lock;
	struct mlgraph *g;
	const struct backend_impl *impl;
	struct track_one *v;
	size_t n;
};

static bool track_start(struct track *t, struct mlgraph *g, const struct backend_impl *impl);
static void track_end(struct track *t);

/* Frees what the graph owns, except the request message and the context reference. */
static void mlgraph_free_parts(struct mlgraph *g)
{
	/* the plan is gone (or never was): its pins go before the constants they pin */
	for (size_t i = 0; g->pinned && i < g->n_deps; i++)
		if (g->pinned[i])
			weights_unpin(g->pinned[i]);
	free(g->pinned);
	g->pinned = NULL;
	for (size_t i = 0; i < g->n_deps; i++)
		obj_unref(g->deps[i]);
	free(g->deps);
	free(g->dep_operand);
	free(g->descs);
	free(g->cdata);
	free(g->in_ops);
	free(g->out_ops);
	free(g->scalars);
}

void mlgraph_loaded_free(struct mlgraph_loaded *ld)
{
	if (ld->info)
		webnn__ipc__graph_info__free_unpacked(ld->info, NULL);
	/* the backend's references to the copies go before the bytes they point into */
	for (size_t i = 0; i < ld->n_prepared; i++)
		ld->impl->prepared_release(ld->prepared[i]);
	free(ld->prepared);
	graphcache_check_free(ld->check);
	if (ld->map)
		munmap(ld->map, ld->map_len);
	ld->info = NULL;
	ld->prepared = NULL;
	ld->n_prepared = 0;
	ld->check = NULL;
	ld->map = NULL;
}

static void mlgraph_free_loaded(struct mlgraph *g)
{
	struct mlgraph_loaded ld = { .info = g->loaded_info, .map = g->map, .map_len = g->map_len,
				   .check = g->check, .impl = g->prepared_impl,
				   .prepared = g->prepared, .n_prepared = g->n_prepared };
	mlgraph_loaded_free(&ld);
	g->loaded_info = NULL;
	g->map = NULL;
	g->check = NULL;
	g->prepared = NULL;
	g->n_prepared = 0;
}

/* ---- the build command (struct cmd_kind) and the release of a graph */

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* "1.23 s", "45.6 ms", "789 us": an estimate for messages. */
static void format_ns(char *out, size_t len, uint64_t ns)
{
	if (ns == UINT64_MAX)
		snprintf(out, len, "more than 584 years");
	else if (ns >= 1000000000ull)
		snprintf(out, len, "%.3g s", ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(out, len, "%.3g ms", ns / 1e6);
	else
		snprintf(out, len, "%.3g us", ns / 1e3);
}

/* graph_caps.evaluate: the backend's own kernels (evaluate_arg is the context). */
static enum webnn_status fold_on_backend(const struct graph_caps *caps, const struct graph_ir *g,
					 const struct graph_node *n, const void *const *inputs,
					 void *const *outputs, struct wnn_diag *diag)
{
	struct context *c = caps->evaluate_arg;
	return c->backend->impl->evaluate(c->bctx, g, n, inputs, outputs, diag);
}

/* graph_caps.evaluate: the registry's host evaluator. */
static enum webnn_status fold_on_host(const struct graph_caps *caps,
					   const struct graph_ir *g, const struct graph_node *n,
					   const void *const *inputs, void *const *outputs,
					   struct wnn_diag *diag)
{
	return backend_host_evaluate(n, g->values, inputs, outputs, caps->cancel, diag);
}

/* BuildGraph once the IR exists: the time budget, the shared passes with what the backend asks
 * for, then the backend's compile. Folding is the daemon's policy, for every backend: constant
 * subgraphs are evaluated on the backend's own kernels when it has an evaluate hook (cpu: oneDNN
 * and its C kernels), else on the registry's host evaluator (the reference kernels), within the graph's fold budgets (bytes,
 * and max_fold_ms of estimated time: what does not fit runs at dispatch instead). */
static enum webnn_status compile_imported(const struct backend_impl *impl, struct cmd *cmd,
					  struct wnn_diag *diag)
{
	struct mlgraph *g = cmd->graph;
	const atomic_bool *cancel = &cmd->ctx->cancel;
	const struct daemon_limits *lim = &cmd->ctx->obj.s->d->limits;
	/* The time budget, before anything is folded or compiled: the estimate of the imported
	 * graph on the backend's kernels counts what folding may evaluate here too. */
	const struct graph_cost_model *model = impl->cost_model ? impl->cost_model
								: &graph_cost_fast;
	uint64_t max_ns = lim->max_dispatch_ms > UINT64_MAX / 1000000 ? UINT64_MAX
								      : lim->max_dispatch_ms * 1000000;
	struct graph_cost cost;
	graph_estimate_cost(model, g->ir, &cost);
	g->estimate_ns = cost.ns;
	if (cost.ns > max_ns) {
		char name[96] = "", total[32], largest[32];
		const char *family = "";
		if (cost.largest != GRAPH_NONE) {
			const struct graph_node *n = &g->ir->nodes[cost.largest];
			graph_node_name(n, name, sizeof(name));
			if (n->op < WNN_OP_COUNT)
				family = wnn_family_name(wnn_ops[n->op].family);
		}
		format_ns(total, sizeof(total), cost.ns);
		format_ns(largest, sizeof(largest), cost.largest_ns);
		return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				    "build: a dispatch of the graph is estimated at %s on the %s "
				    "backend's %s, more than max_dispatch_ms (%" PRIu64 " ms); the "
				    "largest operator is %s (%s family, %s)", total, impl->name,
				    model->name, lim->max_dispatch_ms, name, family, largest);
	}
	if (backend_cancelled(cancel))
		return backend_cancelled_status(diag, "build");
	struct graph_caps caps = { 0 };
	if (impl->caps)
		impl->caps(cmd->ctx->bctx, &caps);
	caps.evaluate = impl->evaluate ? fold_on_backend : fold_on_host;
	caps.evaluate_arg = cmd->ctx;
	caps.fold_max_bytes = g->fold_budget;
	caps.fold_cost = impl->evaluate ? model : backend_host_evaluate_cost;
	caps.fold_max_ns = lim->max_fold_ms > UINT64_MAX / 1000000 ? UINT64_MAX
								   : lim->max_fold_ms * 1000000;
	caps.cancel = cancel;
	enum webnn_status st = graph_optimize(g->ir, &caps, diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	/* before the backend allocates it: the loop charges the plan's real size afterwards */
	if (g->ir->plan.peak_bytes > g->plan_max_bytes)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
				    "build: the graph's intermediates need %" PRIu64 " bytes at once, "
				    "more than the %" PRIu64 " its memory budgets allow",
				    g->ir->plan.peak_bytes, g->plan_max_bytes);
	if (backend_cancelled(cancel))
		return backend_cancelled_status(diag, "build");
	struct track t;
	track_start(&t, g, impl);
	st = impl->compile(cmd->ctx->bctx, g->ir, &g->plan, diag);
	track_end(&t);
	return st;
}

/* Pool side of BuildGraph: the IR import, then the rest. */
static enum webnn_status compile_graph(const struct backend_impl *impl, struct cmd *cmd,
				       struct wnn_diag *diag)
{
	struct mlgraph *g = cmd->graph;
	g->bg.cancel = &cmd->ctx->cancel;
	mlgraph_bind_data(g);
	enum webnn_status st = mlgraph_pin_compile(g) ? WEBNN_STATUS_OK
		: wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "build: out of memory restoring "
			       "a constant's bytes");
	if (st == WEBNN_STATUS_OK)
		st = graph_import(&g->bg, &g->ir, diag);
	if (st == WEBNN_STATUS_OK)
		st = compile_imported(impl, cmd, diag);
	if (st != WEBNN_STATUS_OK && !g->plan) {
		/* no plan: the graph's release has nothing to run on the pool, so the IR goes now */
		graph_destroy(g->ir);
		g->ir = NULL;
	}
	return st;
}

static void compile_work(struct cmd *cmd)
{
	double t0 = now_ms();
	cmd->status = compile_graph(cmd->ctx->backend->impl, cmd, &cmd->diag);
	cmd->ms = now_ms() - t0;
}

/* What the passes made of the graph, for webnn_graph_get_stats. */
static void build_graph_stats(const struct graph_ir *ir, Webnn__Ipc__BuildGraphReply *br)
{
	struct graph_counts n;
	graph_count(ir, &n);
	br->has_intermediate_bytes = br->has_unplanned_bytes = br->has_folded_bytes = true;
	br->intermediate_bytes = ir->plan.peak_bytes;
	br->unplanned_bytes = ir->plan.unplanned_bytes;
	br->folded_bytes = ir->folded_bytes;
	br->has_operations = br->has_kernels = br->has_folded = br->has_fused = true;
	br->has_removed = true;
	br->operations = n.imported;
	br->kernels = n.live;
	br->folded = n.folded;
	br->fused = n.fused;
	br->removed = n.dead;
}

static void compile_complete(struct cmd *cmd, bool ok)
{
	struct session *s = cmd->ctx->obj.s;
	struct mlgraph *g = cmd->graph;
	mlgraph_weights_settle(s->d, g->weights_dropped, g->weights_restored);
	g->weights_dropped = g->weights_restored = 0;
	if (!ok) {
		g->failed = true;
		snprintf(g->fail_msg, sizeof(g->fail_msg), "%s", cmd->diag.message);
		cmd_fail(cmd, g->obj.id);
		session_forget(s, &g->obj);
		return;
	}
	if (!mlgraph_charge_plan(g, &cmd->diag)) {
		cmd->status = cmd->diag.status;
		compile_complete(cmd, false);
		return;
	}
	g->compiled = true;
	const struct backend_impl *impl = cmd->ctx->backend->impl;
	uint64_t quick_max = s->d->limits.quick_max_ns;
	/* the first dispatch of a graph whose cache entry is still to be checked hashes it: not
	 * on the loop thread */
	bool alone = impl->execute_quick && (!impl->plan_quick || impl->plan_quick(g->plan)) &&
		     !(g->check && graphcache_check_pending(g->check));
	bool under = alone && g->estimate_ns < quick_max;
	bool trial = alone && !under && quick_max > 1 &&
		     g->estimate_ns / QUICK_TRIAL_FACTOR < quick_max;
	g->quick = under || trial;
	if (g->quick)
		log_debug("session %" PRIu64 ": graph %" PRIu32 " takes the quick path (estimated "
			  "%" PRIu64 " ns, %s quick_max_ns)", s->no, g->obj.id, g->estimate_ns,
			  under ? "under" : "on trial: over");
	Webnn__Ipc__BuildGraphReply br = WEBNN__IPC__BUILD_GRAPH_REPLY__INIT;
	br.compile_ms = cmd->ms;
	build_graph_stats(g->ir, &br);
	Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
	struct graphcache_reply gr;
	if (g->loaded_info) {
		if (!graphcache_reply_fill(&gr, g, &br)) {
			cmd->status = wnn_diag_set(&cmd->diag, WEBNN_STATUS_NO_MEMORY,
						   "load: out of memory");
			compile_complete(cmd, false);
			return;
		}
		r.body_case = WEBNN__IPC__REPLY__BODY_LOAD_GRAPH;
		r.load_graph = &gr.lr;
	} else {
		r.body_case = WEBNN__IPC__REPLY__BODY_BUILD_GRAPH;
		r.build_graph = &br;
	}
	cmd_reply_ok(cmd, &r);
	if (g->loaded_info)
		graphcache_reply_free(&gr);
	log_debug("session %" PRIu64 ": graph %" PRIu32 " compiled in %.1f ms (a dispatch "
		  "estimated at %.3f ms)", s->no, g->obj.id, cmd->ms, g->estimate_ns / 1e6);
}

static const struct cmd_kind cmd_compile = {
	.verb = "build",
	.watched = true,
	.work = compile_work,
	.complete = compile_complete,
};

static bool release_graph_prepare(struct cmd *cmd)
{
	return cmd->graph->plan != NULL;
}

static void release_graph_work(struct cmd *cmd)
{
	struct mlgraph *g = cmd->graph;
	if (g->plan)
		cmd->ctx->backend->impl->plan_destroy(g->plan);
	g->plan = NULL;
	graph_destroy(g->ir);
	g->ir = NULL;
}

static void mlgraph_free(struct obj *o);

static void release_graph_object(struct cmd *cmd)
{
	mlgraph_free(&cmd->graph->obj);
}

static const struct cmd_kind cmd_release_graph = {
	.verb = "releaseGraph",
	.prepare = release_graph_prepare,
	.work = release_graph_work,
	.release_object = release_graph_object,
};

/* The release command's last step: the plan is gone, so what it pointed into can go. */
static void mlgraph_free(struct obj *o)
{
	struct mlgraph *g = (struct mlgraph *)o;
	struct session *s = g->obj.s;
	mlgraph_keep_given_back(g, s->d);
	session_uncharge(s, g->mem_bytes);
	request_msg_free(g->msg);
	mlgraph_free_loaded(g);
	obj_unref(&g->ctx->obj);
	free(g);
	session_unref(s);
}

static void mlgraph_finalize(struct obj *o)
{
	/* The plan is destroyed on the timeline after queued dispatches; the memory it may point
	 * into (GraphInfo, constants) is freed only after that, by the release command. */
	struct mlgraph *g = (struct mlgraph *)o;
	struct cmd *cmd = cmd_new(&cmd_release_graph, g->ctx);
	if (!cmd) {
		log_error("out of memory releasing graph %" PRIu32 "; its memory leaks", g->obj.id);
		return;
	}
	cmd->graph = g;
	timeline_push(cmd);
}

const struct obj_kind mlgraph_kind = { .name = "graph", .finalize = mlgraph_finalize };

/* Frees a graph that never got registered (no plan, refs to its dependencies held) and gives
 * back what it had charged. */
static void mlgraph_discard(struct session *s, struct mlgraph *g)
{
	session_uncharge(s, g->mem_bytes);
	mlgraph_free_parts(g);
	mlgraph_free_loaded(g);
	free(g);
}

static struct mlgraph *mlgraph_alloc(size_t n_operands)
{
	size_t n = n_operands ? n_operands : 1;
	struct mlgraph *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->descs = calloc(n, sizeof(*g->descs));
	g->cdata = calloc(n, sizeof(*g->cdata));
	g->deps = calloc(n, sizeof(*g->deps));
	g->dep_operand = calloc(n, sizeof(*g->dep_operand));
	if (!g->descs || !g->cdata || !g->deps || !g->dep_operand) {
		mlgraph_free_parts(g);
		free(g);
		return NULL;
	}
	return g;
}

/* ---- BuildGraph, step by step */

/* Whether the connection and the context may take another graph of this size. */
static bool build_admit(const struct session *s, const struct context *c,
			const Webnn__Ipc__GraphInfo *gi, struct wnn_diag *diag)
{
	const struct daemon_limits *lim = &s->d->limits;
	if (c->lost) {
		wnn_diag_set(diag, WEBNN_STATUS_CONTEXT_LOST, "build: context %" PRIu32
			     " is lost: %s", c->obj.id, c->lost_msg);
		return false;
	}
	if (s->ids.count >= lim->max_objects) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
			     "build: the connection already has %u objects (max_objects)",
			     s->ids.count);
		return false;
	}
	if (gi->n_operations > lim->max_operations || gi->n_operands > lim->max_operands) {
		wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
			     "build: the graph has %zu operands and %zu operations; the limits are "
			     "%u and %u (max_operands, max_operations)", gi->n_operands,
			     gi->n_operations, lim->max_operands, lim->max_operations);
		return false;
	}
	return true;
}

/* The first input operand of an operation (its type selects the backend kernel). */
static int op_first_input(const Webnn__Ipc__Operation *op, uint32_t *first)
{
	/* concat takes any number of inputs (past the cap below, which would skip the check) */
	if (op->attrs_case == WEBNN__IPC__OPERATION__ATTRS_CONCAT && op->concat) {
		if (op->concat->n_inputs == 0)
			return 0;
		*first = op->concat->inputs[0];
		return 1;
	}
	uint32_t small[64], *ids = small;
	int cap = 64, n;
	for (;;) {
		n = wnn_op_inputs(op, ids, NULL, cap);
		if (n >= 0 || cap >= (1 << 22))
			break;
		cap *= 8;
		uint32_t *big = realloc(ids == small ? NULL : ids, sizeof(uint32_t) * (size_t)cap);
		if (!big)
			break;
		ids = big;
	}
	if (n > 0)
		*first = ids[0];
	if (ids != small)
		free(ids);
	return n;
}

/* The same validation the client ran (never trust the client's shapes), the size limit of
 * every operand, and the backend's data types. Fills g->descs. */
static bool build_check(const struct session *s, const struct context *c, struct mlgraph *g,
			const Webnn__Ipc__GraphInfo *gi, struct wnn_diag *diag)
{
	const struct daemon_limits *lim = &s->d->limits;
	const struct daemon_backend *db = c->backend;
	const struct backend_impl *impl = db->impl;
	size_t n = gi->n_operands;
	if (wnn_graph_validate(gi, g->descs, diag) != WEBNN_STATUS_OK)
		return false;
	for (size_t i = 0; i < n; i++) {
		uint64_t b = 0;
		wnn_desc_bytes(&g->descs[i], &b);
		if (b > lim->max_tensor_bytes) {
			char ds[96];
			wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				     "build: operand %zu (%s) is %" PRIu64 " bytes, more than "
				     "maxTensorByteLength %" PRIu64 " (max_tensor_bytes)", i,
				     wnn_desc_str(&g->descs[i], ds, sizeof(ds)), b,
				     lim->max_tensor_bytes);
			return false;
		}
	}
	for (size_t i = 0; i < gi->n_operations; i++) {
		const Webnn__Ipc__Operation *op = gi->operations[i];
		enum wnn_op e = wnn_op_from_id(op->op);
		uint32_t first = 0;
		if (e == WNN_OP_COUNT || op_first_input(op, &first) <= 0 || first >= n)
			continue; /* validation accepted it: an operator without tensor inputs */
		enum wnn_dtype t = g->descs[first].type;
		if (!impl->supports(db->be, e, t)) {
			bool lab = op->label && *op->label;
			wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				     "%s%s%s%s: input data type %s is not supported by the %s backend",
				     wnn_ops[e].name, lab ? " (" : "", lab ? op->label : "",
				     lab ? ")" : "", wnn_dtype_name(t), impl->name);
			return false;
		}
	}
	return true;
}

/* Binds one constant operand (a constant or a constant tensor of this context with the declared
 * descriptor): the graph references it for as long as its plan. 1, 0 (diag), -1 (violation). */
static int bind_constant(struct session *s, const struct context *c, struct mlgraph *g, size_t i,
			 const Webnn__Ipc__Operand *od, const struct mlgraph_loaded *ld,
			 struct wnn_diag *diag)
{
	const struct wnn_desc *want = &g->descs[i];
	char ds1[96], ds2[96];
	if (ld && (od->kind == WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT ||
		   od->kind == WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR)) {
		uint64_t b = 0;
		wnn_desc_bytes(want, &b);
		if (!ld->data[i] || ld->bytes[i] != b) {
			wnn_diag_set(diag, WEBNN_STATUS_DATA_ERROR,
				     "load: the cache entry is damaged: constant operand %zu (%s) "
				     "has %" PRIu64 " bytes stored", i,
				     wnn_desc_str(want, ds1, sizeof(ds1)),
				     ld->data[i] ? ld->bytes[i] : 0);
			return 0;
		}
		g->cdata[i] = ld->data[i];
		return 1;
	}
	switch (od->kind) {
	case WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT: {
		struct constant *k = (struct constant *)request_lookup(
			s, od->constant_id, &constant_kind, "BuildGraph: constant operand");
		if (!k)
			return -1;
		if (k->ctx != c) {
			request_violation(s, "BuildGraph: constant %" PRIu32
					     " belongs to context %" PRIu32 ", not %" PRIu32,
					  k->obj.id, k->ctx->obj.id, c->obj.id);
			return -1;
		}
		if (!wnn_desc_equal(&k->desc, want)) {
			wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				     "build: operand %zu: constant %" PRIu32 " is %s, the graph "
				     "declares %s", i, k->obj.id,
				     wnn_desc_str(&k->desc, ds1, sizeof(ds1)),
				     wnn_desc_str(want, ds2, sizeof(ds2)));
			return 0;
		}
		obj_ref(&k->obj);
		g->dep_operand[g->n_deps] = i;
		g->deps[g->n_deps++] = &k->obj;
		g->cdata[i] = k->data; /* until mlgraph_bind_data: the fill may intern it */
		break;
	}
	case WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR: {
		struct tensor *t = (struct tensor *)request_lookup(
			s, od->tensor_id, &tensor_kind, "BuildGraph: constant tensor operand");
		if (!t)
			return -1;
		if (t->ctx != c) {
			request_violation(s, "BuildGraph: tensor %" PRIu32
					     " belongs to context %" PRIu32 ", not %" PRIu32,
					  t->obj.id, t->ctx->obj.id, c->obj.id);
			return -1;
		}
		if (!t->constant || !t->host) {
			wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				     "build: operand %zu: tensor %" PRIu32
				     " is not a constant tensor", i, t->obj.id);
			return 0;
		}
		if (!wnn_desc_equal(&t->desc, want)) {
			wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				     "build: operand %zu: constant tensor %" PRIu32
				     " is %s, the graph declares %s", i, t->obj.id,
				     wnn_desc_str(&t->desc, ds1, sizeof(ds1)),
				     wnn_desc_str(want, ds2, sizeof(ds2)));
			return 0;
		}
		obj_ref(&t->obj);
		g->dep_operand[g->n_deps] = i;
		g->deps[g->n_deps++] = &t->obj;
		g->cdata[i] = t->host;
		break;
	}
	default:
		break;
	}
	return 1;
}

/* Each expanded scalar constant starts 16-byte aligned in g->scalars (as malloc'ed memory does):
 * kernels load its elements as their type, and an int64 after a float32 was misaligned. */
#define SCALAR_SLOT(bytes) (((bytes) + 15) & ~(uint64_t)15)

/* Binds every constant operand; scalar constants expand to their descriptor's size (bounded by
 * the quota before allocating). 1, 0 (diag), -1 (violation). */
static int build_bind(struct session *s, const struct context *c, struct mlgraph *g,
		      const Webnn__Ipc__GraphInfo *gi, const struct mlgraph_loaded *ld,
		      uint64_t *scalar_bytes, struct wnn_diag *diag)
{
	size_t n = gi->n_operands;
	*scalar_bytes = 0;
	for (size_t i = 0; i < n; i++)
		if (gi->operands[i]->kind == WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT) {
			uint64_t b = 0;
			wnn_desc_bytes(&g->descs[i], &b);
			*scalar_bytes += SCALAR_SLOT(b);
		}
	/* Charged until build_charge takes them into the graph's total. */
	if (!session_charge(s, *scalar_bytes, "build: scalar constants", diag))
		return 0;
	g->scalars = malloc(*scalar_bytes ? *scalar_bytes : 1);
	if (!g->scalars) {
		session_uncharge(s, *scalar_bytes);
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
		return 0;
	}
	g->mem_bytes += *scalar_bytes;
	uint64_t scalar_off = 0;
	for (size_t i = 0; i < n; i++) {
		const Webnn__Ipc__Operand *od = gi->operands[i];
		if (od->kind == WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT) {
			const struct wnn_desc *want = &g->descs[i];
			uint64_t cnt = 0, bytes = 0;
			wnn_desc_count(want, &cnt);
			wnn_desc_bytes(want, &bytes);
			size_t es = wnn_dtype_size(want->type);
			uint8_t *p = g->scalars + scalar_off;
			if (es == 0) /* int4/uint4: a scalar is rank 0, one element in one byte */
				wnn_number_to_bytes(od->scalar, want->type, p);
			for (uint64_t e = 0; es && e < cnt; e++)
				wnn_number_to_bytes(od->scalar, want->type, p + e * es);
			g->cdata[i] = p;
			scalar_off += SCALAR_SLOT(bytes);
			continue;
		}
		int r = bind_constant(s, c, g, i, od, ld, diag);
		if (r <= 0)
			return r;
	}
	return 1;
}

/* The operand ids op reads into *ids (grown from small as needed): the count, or -1. */
static int op_reads(const Webnn__Ipc__Operation *op, uint32_t *small, uint32_t **ids)
{
	int cap = 64, n;
	*ids = small;
	for (;;) {
		n = wnn_op_inputs(op, *ids, NULL, cap);
		if (n >= 0 || cap >= (1 << 22))
			return n;
		cap *= 8;
		uint32_t *big = realloc(*ids == small ? NULL : *ids, sizeof(uint32_t) * (size_t)cap);
		if (!big)
			return -1;
		*ids = big;
	}
}

/* The most bytes of operation results alive at once when the operations run in the order
 * sent, each from its operation to its last reader (graph outputs live in the dispatch's
 * tensors: not counted), or UINT64_MAX when that cannot be worked out. Charging every result
 * at once instead refused real models (a quantized 1024x1024 segmentation net: 15.5 GB of
 * results, a few hundred MB alive at once). The compile's memory plan is checked against
 * this plus what the budgets had left before anything is allocated for it. */
static uint64_t results_live_peak(const Webnn__Ipc__GraphInfo *gi, const struct wnn_desc *descs,
				  const uint8_t *is_output)
{
	size_t n = gi->n_operands;
	uint32_t *last = malloc((n ? n : 1) * sizeof(*last)), small[64], *ids, outs[WNN_MAX_OUTPUTS];
	uint8_t *live = calloc(n ? n : 1, 1);
	uint64_t cur = 0, peak = UINT64_MAX;
	if (!last || !live)
		goto out;
	for (size_t i = 0; i < n; i++)
		last[i] = UINT32_MAX;
	for (size_t j = 0; j < gi->n_operations; j++) {
		int k = op_reads(gi->operations[j], small, &ids);
		for (int i = 0; i < k; i++)
			if (ids[i] < n)
				last[ids[i]] = (uint32_t)j;
		if (ids != small)
			free(ids);
		if (k < 0)
			goto out;
	}
	peak = 0;
	for (size_t j = 0; j < gi->n_operations; j++) {
		const Webnn__Ipc__Operation *op = gi->operations[j];
		int no = wnn_op_outputs(op, outs, WNN_MAX_OUTPUTS);
		for (int i = 0; i < no; i++) {
			uint64_t b = 0;
			if (outs[i] >= n || is_output[outs[i]] || live[outs[i]])
				continue;
			wnn_desc_bytes(&descs[outs[i]], &b);
			live[outs[i]] = 1;
			cur += b;
		}
		if (cur > peak)
			peak = cur;
		int k = op_reads(op, small, &ids);
		for (int i = -no; i < k; i++) {
			uint32_t id = i < 0 ? outs[i + no] : ids[i];
			uint64_t b = 0;
			if (id >= n || live[id] != 1 || (last[id] != (uint32_t)j &&
							  last[id] != UINT32_MAX))
				continue;
			wnn_desc_bytes(&descs[id], &b);
			live[id] = 2;
			cur -= b;
		}
		if (ids != small)
			free(ids);
		if (no < 0 || k < 0) {
			peak = UINT64_MAX;
			goto out;
		}
	}
out:
	free(last);
	free(live);
	return peak;
}

/* Charges the rest of the graph to the memory budgets (its scalar constants already are): its
 * header and per-operand arrays, the retained request, every operation result that is not a
 * graph output (the backend holds those for as long as the plan; outputs live in the
 * dispatch's tensors), and bounds of the IR and of the backend's plan that the compile makes
 * (mlgraph_charge_plan replaces them with what it made). */
static bool build_charge(struct session *s, const struct context *c, struct mlgraph *g,
			 const Webnn__Ipc__GraphInfo *gi, uint64_t msg_bytes, struct wnn_diag *diag)
{
	size_t n = gi->n_operands;
	uint8_t *is_output = calloc(n ? n : 1, 1);
	if (!is_output) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
		return false;
	}
	for (size_t i = 0; i < gi->n_outputs; i++)
		if (gi->outputs[i]->operand < n)
			is_output[gi->outputs[i]->operand] = 1;
	const struct backend_impl *impl = c->backend->impl;
	uint64_t inter_bytes = 0, const_bytes = 0;
	for (size_t i = 0; i < n; i++) {
		Webnn__Ipc__OperandKind kind = gi->operands[i]->kind;
		uint64_t b = 0;
		wnn_desc_bytes(&g->descs[i], &b);
		if (kind == WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT && !is_output[i])
			inter_bytes += b;
		else if (kind != WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT &&
			 kind != WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT)
			const_bytes += b;
	}
	uint64_t live = results_live_peak(gi, g->descs, is_output);
	if (live < inter_bytes)
		inter_bytes = live;
	free(is_output);
	/* A backend that copies constants into its plan does it during the compile: the copies
	 * are charged before they are made (one each; what it really made replaces this). */
	uint64_t made = inter_bytes + graph_ir_bytes_bound(gi->n_operations, n, msg_bytes) +
			(uint64_t)gi->n_operations * impl->plan_op_bytes +
			(impl->copies_constants ? const_bytes : 0);
	uint64_t rest = msg_bytes + made + obj_charge_bytes(sizeof(*g)) +
			3 * heap_chunk_bytes(n * (sizeof(struct wnn_desc) + 2 * sizeof(void *))) +
			heap_chunk_bytes((gi->n_inputs + 1) * sizeof(uint32_t)) +
			heap_chunk_bytes((gi->n_outputs + 1) * sizeof(uint32_t));
	if (!session_charge(s, rest, "build: the graph", diag))
		return false;
	g->mem_bytes += rest;
	g->compiled_bytes = made;
	g->plan_max_bytes = inter_bytes + budget_left(s);
	g->fold_budget = budget_left(s);
	if (g->fold_budget > GRAPH_FOLD_MAX_BYTES)
		g->fold_budget = GRAPH_FOLD_MAX_BYTES;
	return true;
}

static uint32_t *operand_ids(const Webnn__Ipc__NamedOperand *const *list, size_t n)
{
	uint32_t *ids = malloc(sizeof(uint32_t) * (n ? n : 1));
	for (size_t i = 0; ids && i < n; i++)
		ids[i] = list[i]->operand;
	return ids;
}

/* Makes what the backend compiles from the validated GraphInfo and its bound constants:
 * g->bg points into gi (owned by g->msg), g->descs, g->cdata and g->in_ops/out_ops, so it is
 * valid exactly as long as the graph. The device-neutral IR import replaces this step.
 * false when out of memory. */
static bool mlgraph_prepare(struct mlgraph *g, const Webnn__Ipc__GraphInfo *gi)
{
	g->in_ops = operand_ids((const Webnn__Ipc__NamedOperand *const *)gi->inputs, gi->n_inputs);
	g->out_ops =
		operand_ids((const Webnn__Ipc__NamedOperand *const *)gi->outputs, gi->n_outputs);
	if (!g->in_ops || !g->out_ops)
		return false;
	g->bg = (struct graph_source){
		.info = gi,
		.descs = g->descs,
		.constant_data = g->cdata,
		.n_operands = gi->n_operands,
		.input_operands = g->in_ops,
		.n_inputs = gi->n_inputs,
		.output_operands = g->out_ops,
		.n_outputs = gi->n_outputs,
	};
	return true;
}

/* Registers the prepared graph under its id and queues its compile. -1 when the session
 * closed (out of memory registering). */
static int build_push(struct session *s, uint32_t graph_id, uint64_t serial, struct context *c,
		      struct mlgraph *g, struct cmd *cmd)
{
	session_obj_init(s, &g->obj, &mlgraph_kind, graph_id);
	g->obj.owner = &c->obj;
	g->ctx = c;
	obj_ref(&c->obj);
	if (session_register(s, &g->obj) < 0) {
		cmd_discard(cmd);
		return -1;
	}
	obj_ref(&g->obj);
	cmd->graph = g;
	cmd->serial = serial;
	timeline_push(cmd);
	return 0;
}

/* BuildGraph and a load from the graph cache: the checks, binding, charges and compile. On
 * success g is registered (and owns what ld held); on failure g is freed (ld's parts with it). */
static int build_common(struct session *s, struct context *c, const Webnn__Ipc__GraphInfo *gi,
			uint32_t graph_id, uint64_t serial, uint64_t msg_bytes,
			struct mlgraph_loaded *ld, struct request *rq)
{
	uint64_t scalar_bytes = 0;
	struct wnn_diag diag = { 0 };
	if (!build_admit(s, c, gi, &diag))
		goto fail_early;
	struct mlgraph *g = mlgraph_alloc(gi->n_operands);
	if (!g) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
		goto fail_early;
	}
	if (ld) {
		g->loaded_info = ld->info;
		g->map = ld->map;
		g->map_len = ld->map_len;
		g->check = ld->check;
		g->prepared_impl = ld->impl;
		g->prepared = ld->prepared;
		g->n_prepared = ld->n_prepared;
		ld->info = NULL;
		ld->map = NULL;
		ld->check = NULL;
		ld->prepared = NULL;
		ld->n_prepared = 0;
		/* The mapped entry is charged whole: its constants are read by every compile
		 * and may all be resident. */
		if (!session_charge(s, g->map_len, "load: the mapped cache entry", &diag))
			goto fail;
		g->mem_bytes += g->map_len;
	}
	if (!build_check(s, c, g, gi, &diag))
		goto fail;
	int bound = build_bind(s, c, g, gi, ld, &scalar_bytes, &diag);
	if (bound < 0) {
		mlgraph_discard(s, g);
		return -1;
	}
	if (bound == 0 || !build_charge(s, c, g, gi, msg_bytes, &diag))
		goto fail;
	struct cmd *cmd = mlgraph_prepare(g, gi) ? cmd_new(&cmd_compile, c) : NULL;
	if (!cmd) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
		goto fail;
	}
	if (rq) {
		g->msg = rq->msg;
		rq->retained = true;
	}
	return build_push(s, graph_id, serial, c, g, cmd);
fail:
	mlgraph_discard(s, g);
fail_early:
	if (ld)
		mlgraph_loaded_free(ld);
	timeline_reply_error(c, serial, &diag);
	return 0;
}

int handle_build_graph(struct session *s, struct request *rq)
{
	const Webnn__Ipc__BuildGraph *m = rq->msg->build_graph;
	struct context *c =
		(struct context *)request_lookup(s, m->context_id, &context_kind, "BuildGraph");
	if (!c || request_check_new_id(s, m->graph_id, "BuildGraph") < 0)
		return -1;
	return build_common(s, c, m->graph, m->graph_id, rq->serial, s->unpack_used, NULL, rq);
}

int mlgraph_build_loaded(struct session *s, struct context *c, uint32_t graph_id, uint64_t serial,
			 struct mlgraph_loaded *ld)
{
	/* What the GraphInfo's unpacked form holds, as a request's is counted. */
	uint64_t info_bytes = webnn__ipc__graph_info__get_packed_size(ld->info) * 4;
	return build_common(s, c, ld->info, graph_id, serial, info_bytes, ld, NULL);
}

int handle_destroy_graph(struct session *s, struct request *rq)
{
	struct obj *o = request_lookup(s, rq->msg->destroy_graph->graph_id, &mlgraph_kind,
				       "DestroyGraph");
	if (!o)
		return -1;
	session_forget(s, o);
	return 0;
}

static void mlgraph_bind_data(struct mlgraph *g)
{
	for (size_t i = 0; i < g->n_deps; i++)
		if (g->deps[i]->kind == &constant_kind)
			g->cdata[g->dep_operand[i]] = ((struct constant *)g->deps[i])->data;
}

static bool mlgraph_charge_plan(struct mlgraph *g, struct wnn_diag *diag)
{
	struct session *s = g->obj.s;
	const struct backend_impl *impl = g->ctx->backend->impl;
	uint64_t ir = graph_ir_bytes(g->ir);
	uint64_t plan = impl->plan_bytes ? impl->plan_bytes(g->plan) : 0;
	uint64_t now = g->ir->plan.peak_bytes + g->ir->folded_bytes + ir + plan;
	if (now > g->compiled_bytes) {
		char what[256];
		snprintf(what, sizeof(what), "build: the compiled graph (%" PRIu64 " bytes of "
			 "intermediates, %" PRIu64 " of constants made at build, %" PRIu64 " of IR, "
			 "%" PRIu64 " of %s plan; %" PRIu64 " charged so far)",
			 g->ir->plan.peak_bytes, g->ir->folded_bytes, ir, plan, impl->name,
			 g->compiled_bytes);
		if (!session_charge(s, now - g->compiled_bytes, what, diag))
			return false;
	}
	if (now < g->compiled_bytes)
		session_uncharge(s, g->compiled_bytes - now);
	g->mem_bytes = g->mem_bytes - g->compiled_bytes + now;
	g->compiled_bytes = now;
	return true;
}

/* ---- constant bytes given back (daemon/worker/weights.h) */

static struct weights *dep_weights(const struct mlgraph *g, size_t i)
{
	if (g->deps[i]->kind != &constant_kind)
		return NULL;
	return ((struct constant *)g->deps[i])->shared;
}

static bool mlgraph_pin_compile(struct mlgraph *g)
{
	if (!g->n_deps)
		return true;
	g->pinned = calloc(g->n_deps, sizeof(*g->pinned));
	if (!g->pinned)
		return false;
	for (size_t i = 0; i < g->n_deps; i++) {
		struct weights *w = dep_weights(g, i);
		if (w && !weights_pin(w, &g->weights_restored))
			return false; /* the pins taken go with the graph */
		g->pinned[i] = w;
	}
	return true;
}

/* The uses the optimised graph makes of the bytes at p (n long); false when some are not
 * binds of the whole of them (a value inside them, a view, a graph output): those read them as
 * they are. */
static bool track_uses(const struct graph_ir *ir, const uint8_t *p, uint64_t n, uint64_t *uses)
{
	*uses = 0;
	for (uint32_t v = 0; v < ir->n_values; v++) {
		const struct graph_value *x = &ir->values[v];
		const uint8_t *d = x->data;
		if (x->view_of != GRAPH_NONE && x->view_of < ir->n_values) {
			const struct graph_value *o = &ir->values[x->view_of];
			const uint8_t *od = o->data;
			if (o->kind == GRAPH_VALUE_CONSTANT && od && od >= p && od < p + n)
				return false;
		}
		if (x->kind != GRAPH_VALUE_CONSTANT || !d || d < p || d >= p + n)
			continue;
		if (d != p || x->output_index != GRAPH_NONE)
			return false;
		*uses += x->n_uses;
	}
	return true;
}

/* Under t->lock: the graph's pins on e go, and its bytes are given back if nothing else pins
 * them. */
static void track_release(struct track *t, struct track_one *e)
{
	struct mlgraph *g = t->g;
	for (size_t i = 0; i < g->n_deps; i++)
		if (g->pinned[i] == e->w) {
			g->pinned[i] = NULL;
			weights_unpin(e->w);
		}
	e->eligible = false;
	g->weights_dropped += weights_drop(e->w, t->impl);
}

static void track_told(void *arg, uint32_t node, const void *src)
{
	(void)node;
	struct track *t = arg;
	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n; i++) {
		struct track_one *e = &t->v[i];
		if (e->p != src || !e->eligible)
			continue;
		if (e->left && --e->left == 0)
			track_release(t, e);
		break;
	}
	pthread_mutex_unlock(&t->lock);
}

/* Before the backend's compile: what to follow. false when there is nothing (or no memory:
 * then nothing is given back). */
static bool track_start(struct track *t, struct mlgraph *g, const struct backend_impl *impl)
{
	memset(t, 0, sizeof(*t));
	if (!g->pinned || !impl->prepared_hold || !impl->prepared_restore || !g->n_deps)
		return false;
	t->v = calloc(g->n_deps, sizeof(*t->v));
	if (!t->v)
		return false;
	pthread_mutex_init(&t->lock, NULL);
	t->g = g;
	t->impl = impl;
	for (size_t i = 0; i < g->n_deps; i++) {
		struct weights *w = g->pinned[i];
		if (!w)
			continue;
		size_t k = 0;
		while (k < t->n && t->v[k].w != w)
			k++;
		if (k == t->n) {
			uint64_t bytes = ((struct constant *)g->deps[i])->bytes;
			struct track_one *e = &t->v[t->n++];
			*e = (struct track_one){ .w = w, .p = weights_data(w), .bytes = bytes };
			e->eligible = bytes >= WEIGHTS_DROP_MIN &&
				      track_uses(g->ir, e->p, bytes, &e->left) && e->left;
		}
		t->v[k].pins++;
	}
	g->ir->on_prepared = track_told;
	g->ir->on_prepared_arg = t;
	return true;
}

static void track_end(struct track *t)
{
	if (!t->g)
		return;
	t->g->ir->on_prepared = NULL;
	t->g->ir->on_prepared_arg = NULL;
	pthread_mutex_destroy(&t->lock);
	free(t->v);
}

struct weights *mlgraph_operand_weights(const struct mlgraph *g, size_t operand)
{
	for (size_t i = 0; i < g->n_deps; i++)
		if (g->dep_operand[i] == operand)
			return dep_weights(g, i);
	return NULL;
}

void mlgraph_weights_settle(struct daemon *d, uint64_t dropped, uint64_t restored)
{
	if (restored)
		budget_force_uid(d, restored);
	if (dropped)
		budget_release_uid(d, dropped);
}

static void mlgraph_keep_given_back(struct mlgraph *g, struct daemon *d)
{
	struct weights **keep = NULL;
	size_t n = 0;
	if (g->compiled_bytes && g->n_deps)
		keep = calloc(g->n_deps, sizeof(*keep));
	for (size_t i = 0; keep && i < g->n_deps; i++) {
		struct weights *w = dep_weights(g, i);
		bool seen = false;
		for (size_t k = 0; k < n; k++)
			seen |= keep[k] == w;
		if (w && !seen && weights_dropped(w)) {
			weights_ref(w);
			keep[n++] = w;
		}
	}
	mlgraph_free_parts(g);
	uint64_t restored = 0, released = 0;
	for (size_t k = 0; k < n; k++) {
		struct weights *w = keep[k];
		uint64_t bytes = weights_bytes(w);
		/* held by others (constants, other graphs): written back; else freed with this
		 * reference (given back: its charge went then) */
		if (!weights_only_ref(w) && weights_pin(w, &restored))
			weights_unpin(w);
		if (weights_unref(w))
			released += bytes;
	}
	mlgraph_weights_settle(d, released, restored);
	free(keep);
}
