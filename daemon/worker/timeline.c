/* Per-context in-order timelines: one command at a time on the libuv thread pool; completions
 * reply through the reply module and account through the session, never the server. */
#include "daemon/worker/timeline.h"

#include "daemon/graph/passes.h"
#include "daemon/worker/constant.h"
#include "daemon/worker/context.h"
#include "daemon/control.h"
#include "daemon/worker/graphcache.h"
#include "daemon/log.h"
#include "daemon/worker/mlgraph.h"
#include "daemon/worker/reply.h"
#include "daemon/worker/session.h"
#include "daemon/worker/shm.h"
#include "daemon/worker/tensor.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

_Static_assert(sizeof(struct cmd) + 8 <= OBJ_CMD_BYTES, "obj_charge_bytes counts a command");

/* How often the watchdog looks at the running commands. */
#define WATCHDOG_TICK_MS 100

/*
 * The quick path: a command known to be short runs at once on the loop thread instead of
 * going through the thread pool (and, on the cpu backend, the compute thread): a small
 * dispatch then costs no thread hand-offs, and a read queued behind it is answered in the same
 * wake-up. Known short: a dispatch whose graph's time estimate is under quick_max_ns on a
 * backend that can run the plan on the calling thread alone, and tensor commands of host-memory
 * backends up to QUICK_COPY_BYTES. The loop must stay responsive to every other connection, so
 * quick work is capped per loop tick (QUICK_TICK_NS; the rest takes the pool), and a plan whose
 * quick runs took longer than QUICK_PLAN_NS QUICK_PLAN_STRIKES times in a row (an estimate that
 * was wrong) is not run quick again.
 *
 * The estimate is pessimistic for small graphs of one-thread steps: a wake-word classifier's
 * [1, 1536] x [1536, 128] layer is estimated at ~0.4 ms (its weights counted as elements) and
 * takes ~0.02 ms, and through the pool and the compute thread the same dispatch costs ~0.15 ms
 * more in hand-offs on a loaded machine (webnn-run --iterations 300, hey_jarvis: 0.235 ms by
 * the pool, 0.080 ms on the loop thread). So a plan the backend can run on the calling thread
 * whose estimate is over quick_max_ns but under QUICK_TRIAL_FACTOR times it is tried on the
 * quick path too, and leaves it as any plan does (a graph's first run is cold: hey_jarvis took
 * 0.36 ms, then 0.06).
 */
#define QUICK_COPY_BYTES (64u << 10)
#define QUICK_TICK_NS 1000000u
#define QUICK_PLAN_NS 250000u
#define QUICK_PLAN_STRIKES 3u
#define QUICK_TRIAL_FACTOR 40u /* x quick_max_ns: 2 ms at the default 50 us */

struct cmd *cmd_new(enum cmd_type type, struct context *c)
{
	struct cmd *cmd = calloc(1, sizeof(*cmd));
	if (!cmd)
		return NULL;
	cmd->type = type;
	cmd->ctx = c;
	obj_ref(&c->obj);
	cmd->work.data = cmd;
	return cmd;
}

void cmd_read_from(struct cmd *cmd, struct shm *slot, uint64_t offset)
{
	obj_ref(&slot->obj);
	cmd->src = slot;
	cmd->src_off = offset;
}

static bool cmd_is_release(const struct cmd *cmd)
{
	return cmd->type == CMD_RELEASE_TENSOR || cmd->type == CMD_RELEASE_GRAPH;
}

static void cmd_free(struct cmd *cmd)
{
	if (cmd->queued) {
		struct context *c = cmd->ctx;
		struct session *s = c->obj.s;
		if (c->n_queued-- == s->d->limits.max_inflight_per_context)
			session_context_full(s, false);
		session_pending_done(s, cmd->pending); /* reading resumes when nothing is full */
	}
	switch (cmd->type) {
	case CMD_RELEASE_TENSOR: /* refs already 0: this command owns the object */
		cmd->release_free(&cmd->tensor->obj);
		break;
	case CMD_RELEASE_GRAPH:
		cmd->release_free(&cmd->graph->obj);
		break;
	default:
		if (cmd->tensor)
			obj_unref(&cmd->tensor->obj);
		if (cmd->graph)
			obj_unref(&cmd->graph->obj);
		break;
	}
	for (size_t i = 0; i < cmd->n_ins; i++)
		obj_unref(&cmd->ins[i]->obj);
	for (size_t i = 0; i < cmd->n_outs; i++)
		obj_unref(&cmd->outs[i]->obj);
	free(cmd->ins);
	free(cmd->outs);
	if (cmd->dest)
		obj_unref(&cmd->dest->obj);
	if (cmd->src)
		obj_unref(&cmd->src->obj);
	if (cmd->constant)
		obj_unref(&cmd->constant->obj);
	free(cmd->data);
	if (cmd->charged)
		session_uncharge(cmd->ctx->obj.s, cmd->charged);
	struct context *c = cmd->ctx;
	free(cmd);
	obj_unref(&c->obj);
}

void cmd_discard(struct cmd *cmd)
{
	cmd_free(cmd);
}

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

/* Thread-pool side: only backend calls and the command's own fields. */
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
	if (backend_cancelled(cancel))
		return backend_cancelled_status(diag, "build");
	return impl->compile(cmd->ctx->bctx, g->ir, &g->plan, diag);
}

/* Pool side of BuildGraph: the IR import, then the rest. */
static enum webnn_status compile_graph(const struct backend_impl *impl, struct cmd *cmd,
				       struct wnn_diag *diag)
{
	struct mlgraph *g = cmd->graph;
	g->bg.cancel = &cmd->ctx->cancel;
	graph_bind_data(g);
	enum webnn_status st = graph_import(&g->bg, &g->ir, diag);
	if (st == WEBNN_STATUS_OK)
		st = compile_imported(impl, cmd, diag);
	if (st != WEBNN_STATUS_OK && !g->plan) {
		/* no plan: the graph's release has nothing to run on the pool, so the IR goes now */
		graph_destroy(g->ir);
		g->ir = NULL;
	}
	return st;
}

static void cmd_work(uv_work_t *w)
{
	struct cmd *cmd = w->data;
	atomic_store(&cmd->started_ms, uv_hrtime() / 1000000 + 1);
	const struct backend_impl *impl = cmd->ctx->backend->impl;
	struct wnn_diag *diag = &cmd->diag;
	struct tensor *t = cmd->tensor;
	const uint8_t *src = cmd->src ? cmd->src->map + cmd->src_off : cmd->data;
	switch (cmd->type) {
	case CMD_CREATE_TENSOR:
		/* A constant tensor's host copy (what graphs bind) is filled first, whatever the
		 * device does; the device copy is written from it. */
		if (t->host && cmd->src)
			memcpy(t->host, src, cmd->size);
		if (t->storage)
			cmd->status = impl->tensor_create_shared(cmd->ctx->bctx, &t->desc,
								 t->storage->map + t->storage_off,
								 &t->bt, diag);
		else
			cmd->status = impl->tensor_create(cmd->ctx->bctx, &t->desc, &t->bt, diag);
		if (cmd->status == WEBNN_STATUS_OK && t->host)
			cmd->status = impl->tensor_write(t->bt, t->host, cmd->size, diag);
		break;
	case CMD_WRITE:
		if (cmd->in_place) /* the client wrote the storage; cmd_prepare ran host ones */
			cmd->status = impl->tensor_sync(t->bt, true, diag);
		else
			cmd->status = impl->tensor_write(t->bt, src, cmd->size, diag);
		break;
	case CMD_FILL_CONSTANT:
		constant_intern(cmd->constant, src);
		break;
	case CMD_READ: {
		if (cmd->in_place) {
			cmd->status = impl->tensor_sync(t->bt, false, diag);
			break;
		}
		void *dst = cmd->dest ? (void *)(cmd->dest->map + cmd->dest_off) : cmd->data;
		cmd->status = impl->tensor_read(t->bt, dst, (size_t)t->bytes, diag);
		break;
	}
	case CMD_DISPATCH: {
		/* a graph loaded from a large cache entry: its bytes are checked first */
		if (cmd->graph->check &&
		    (cmd->status = graphcache_check_run(cmd->graph->check, diag)) !=
			    WEBNN_STATUS_OK)
			break;
		struct backend_tensor **bts = malloc(sizeof(*bts) * (cmd->n_ins + cmd->n_outs + 1));
		if (!bts) {
			cmd->status = wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY,
						   "dispatch: out of memory");
			break;
		}
		for (size_t i = 0; i < cmd->n_ins; i++)
			bts[i] = cmd->ins[i]->bt;
		for (size_t i = 0; i < cmd->n_outs; i++)
			bts[cmd->n_ins + i] = cmd->outs[i]->bt;
		/* The loop thread (the quick path) runs plans on itself alone. */
		cmd->status = cmd->quick ? impl->execute_quick(cmd->graph->plan, bts,
							       bts + cmd->n_ins, diag)
					 : impl->execute(cmd->graph->plan, bts, bts + cmd->n_ins, diag);
		free(bts);
		break;
	}
	case CMD_COMPILE: {
		double t0 = now_ms();
		cmd->status = compile_graph(impl, cmd, diag);
		cmd->ms = now_ms() - t0;
		break;
	}
	case CMD_RELEASE_TENSOR:
		if (t->bt)
			impl->tensor_destroy(t->bt);
		t->bt = NULL;
		break;
	case CMD_RELEASE_GRAPH:
		if (cmd->graph->plan)
			impl->plan_destroy(cmd->graph->plan);
		cmd->graph->plan = NULL;
		graph_destroy(cmd->graph->ir);
		cmd->graph->ir = NULL;
		break;
	case CMD_FLUSH:
	case CMD_REPLY:
		break;
	}
	if (cmd->status != WEBNN_STATUS_OK && diag->status == WEBNN_STATUS_OK)
		wnn_diag_set(diag, cmd->status, "the %s backend failed without a message",
			     impl->name);
}

static void set_poison(struct tensor *t, const char *why)
{
	free(t->poison);
	t->poison = strdup(why);
}

static void cmd_reply_ok(struct cmd *cmd, Webnn__Ipc__Reply *r)
{
	r->serial = cmd->serial;
	reply_send(cmd->ctx->obj.s, r);
}

static void cmd_fail(struct cmd *cmd, uint32_t object_id)
{
	struct session *s = cmd->ctx->obj.s;
	if (cmd->serial)
		reply_error(s, cmd->serial, &cmd->diag);
	else
		reply_error_event(s, cmd->ctx->obj.id, object_id, &cmd->diag);
}

static void complete_create_tensor(struct cmd *cmd, bool ok)
{
	if (ok) {
		Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
		cmd_reply_ok(cmd, &r);
		return;
	}
	cmd->tensor->failed = true;
	set_poison(cmd->tensor, cmd->diag.message);
	cmd_fail(cmd, cmd->tensor->obj.id);
	/* The client saw the failure and will not destroy it: free the id. */
	session_forget(cmd->ctx->obj.s, &cmd->tensor->obj);
}

static void complete_write(struct cmd *cmd, bool ok)
{
	if (!ok) {
		set_poison(cmd->tensor, cmd->diag.message);
		cmd_fail(cmd, cmd->tensor->obj.id);
		return;
	}
	free(cmd->tensor->poison);
	cmd->tensor->poison = NULL;
	if (cmd->serial) {
		Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
		cmd_reply_ok(cmd, &r);
	}
}

static void complete_read(struct cmd *cmd, bool ok)
{
	if (!ok) {
		cmd_fail(cmd, cmd->tensor->obj.id);
		return;
	}
	Webnn__Ipc__ReadTensorReply rr = WEBNN__IPC__READ_TENSOR_REPLY__INIT;
	if (!cmd->dest && !cmd->in_place) {
		rr.has_data = true;
		rr.data.data = cmd->data;
		rr.data.len = cmd->size;
	}
	Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
	r.body_case = WEBNN__IPC__REPLY__BODY_READ_TENSOR;
	r.read_tensor = &rr;
	cmd_reply_ok(cmd, &r);
}

static void complete_dispatch(struct cmd *cmd, bool ok)
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
		set_poison(cmd->outs[i], why);
	cmd_fail(cmd, cmd->graph->obj.id);
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

static void complete_compile(struct cmd *cmd, bool ok)
{
	struct session *s = cmd->ctx->obj.s;
	struct mlgraph *g = cmd->graph;
	if (!ok) {
		g->failed = true;
		snprintf(g->fail_msg, sizeof(g->fail_msg), "%s", cmd->diag.message);
		cmd_fail(cmd, g->obj.id);
		session_forget(s, &g->obj);
		return;
	}
	if (!graph_charge_plan(g, &cmd->diag)) {
		cmd->status = cmd->diag.status;
		complete_compile(cmd, false);
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
			complete_compile(cmd, false);
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

/* Loop side, after the work (or instead of it): replies, events, poison, loss. */
static void cmd_complete(struct cmd *cmd)
{
	bool ok = cmd->status == WEBNN_STATUS_OK;
	if (cmd->status == WEBNN_STATUS_CONTEXT_LOST)
		timeline_lose(cmd->ctx, cmd->diag.message);
	switch (cmd->type) {
	case CMD_CREATE_TENSOR:
		complete_create_tensor(cmd, ok);
		break;
	case CMD_WRITE:
		complete_write(cmd, ok);
		break;
	case CMD_READ:
		complete_read(cmd, ok);
		break;
	case CMD_DISPATCH:
		complete_dispatch(cmd, ok);
		break;
	case CMD_COMPILE:
		complete_compile(cmd, ok);
		break;
	case CMD_FLUSH:
		if (ok) {
			Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
			cmd_reply_ok(cmd, &r);
		} else {
			cmd_fail(cmd, 0);
		}
		break;
	case CMD_FILL_CONSTANT:
		constant_settle(cmd->constant);
		if (cmd->serial) {
			Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
			cmd_reply_ok(cmd, &r);
		}
		break;
	case CMD_REPLY:
		if (cmd->data) {
			reply_frame(cmd->ctx->obj.s, cmd->data, cmd->size);
			cmd->data = NULL;
		}
		break;
	case CMD_RELEASE_TENSOR:
	case CMD_RELEASE_GRAPH:
		break;
	}
}

/* A dispatch's graph and tensors are still usable when it reaches the head of the timeline. */
static void check_dispatch(struct cmd *cmd)
{
	struct mlgraph *g = cmd->graph;
	struct wnn_diag *diag = &cmd->diag;
	if (g->failed) {
		cmd->status = wnn_diag_set(diag, WEBNN_STATUS_INVALID_STATE,
					   "dispatch: graph %" PRIu32 " failed to build: %s",
					   g->obj.id, g->fail_msg);
		return;
	}
	const Webnn__Ipc__GraphInfo *gi = graph_info(g);
	for (size_t i = 0; i < cmd->n_ins + cmd->n_outs; i++) {
		bool in = i < cmd->n_ins;
		struct tensor *x = in ? cmd->ins[i] : cmd->outs[i - cmd->n_ins];
		const Webnn__Ipc__NamedOperand *no = in ? gi->inputs[i] : gi->outputs[i - cmd->n_ins];
		if (x->failed) {
			cmd->status = wnn_diag_set(diag, WEBNN_STATUS_INVALID_STATE,
						   "dispatch: %s '%s': tensor %" PRIu32
						   " was never created", in ? "input" : "output",
						   no->name, x->obj.id);
			return;
		}
		if (in && x->poison) {
			cmd->status = wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
						   "dispatch: input '%s': tensor %" PRIu32
						   " holds no valid data: %s", no->name, x->obj.id,
						   x->poison);
			return;
		}
	}
}

/* Loop-side checks made when a command reaches the head of its timeline; false when it was
 * completed without needing the pool. */
static bool cmd_prepare(struct cmd *cmd)
{
	struct context *c = cmd->ctx;
	struct wnn_diag *diag = &cmd->diag;
	if (cmd_is_release(cmd))
		return cmd->type == CMD_RELEASE_TENSOR ? cmd->tensor->bt != NULL
						       : cmd->graph->plan != NULL;
	if (cmd->type == CMD_REPLY) {
		/* A reply queued behind other work is due even on a lost context. */
		cmd_complete(cmd);
		return false;
	}
	/* A constant's bytes are host memory: its creation succeeds on a lost context too. */
	if (c->lost && cmd->type != CMD_FILL_CONSTANT) {
		cmd->status = wnn_diag_set(diag, WEBNN_STATUS_CONTEXT_LOST,
					   "context %" PRIu32 " is lost: %s", c->obj.id, c->lost_msg);
		goto done;
	}
	struct tensor *t = cmd->tensor;
	switch (cmd->type) {
	case CMD_WRITE:
		if (t->failed)
			cmd->status = wnn_diag_set(diag, WEBNN_STATUS_INVALID_STATE,
						   "writeTensor: tensor %" PRIu32
						   " was never created: %s", t->obj.id, t->poison);
		break;
	case CMD_READ:
		if (t->failed)
			cmd->status = wnn_diag_set(diag, WEBNN_STATUS_INVALID_STATE,
						   "readTensor: tensor %" PRIu32
						   " was never created: %s", t->obj.id, t->poison);
		else if (t->poison)
			cmd->status = wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
						   "readTensor: tensor %" PRIu32
						   " holds no valid data: %s", t->obj.id, t->poison);
		break;
	case CMD_DISPATCH:
		check_dispatch(cmd);
		break;
	case CMD_FLUSH:
		cmd_complete(cmd);
		return false;
	default:
		break;
	}
	/* An in-place write or read of a tensor computed in its shared memory moves nothing:
	 * it completes here, in timeline order, without a trip through the pool. */
	if (cmd->status == WEBNN_STATUS_OK && cmd->in_place && !c->backend->impl->tensor_sync) {
		cmd_complete(cmd);
		return false;
	}
done:
	if (cmd->status != WEBNN_STATUS_OK) {
		cmd_complete(cmd);
		return false;
	}
	return true;
}

static void timeline_kick(struct context *c);

/* ---- the watchdog */

static uint64_t mono_ms(void)
{
	return uv_hrtime() / 1000000;
}

static const char *cmd_verb(const struct cmd *cmd)
{
	return cmd->type == CMD_COMPILE ? "build" : "dispatch";
}

static void watchdog_tick(uv_timer_t *t)
{
	struct daemon *d = t->data;
	const struct daemon_limits *lim = &d->limits;
	uint64_t grace = (uint64_t)lim->dispatch_timeout_ms * 2;
	if (grace < lim->watchdog_grace_ms)
		grace = lim->watchdog_grace_ms;
	uint64_t now = mono_ms();
	struct cmd *cmd = d->running;
	while (cmd) {
		struct cmd *next = cmd->run_next; /* losing a context never ends a command here */
		uint64_t t0 = atomic_load(&cmd->started_ms);
		bool watched = cmd->type == CMD_DISPATCH || cmd->type == CMD_COMPILE;
		uint64_t ran = t0 ? now + 1 - t0 : 0; /* started_ms is offset by 1 from 0 */
		struct context *c = cmd->ctx;
		if (watched && !cmd->timed_out && ran > lim->dispatch_timeout_ms) {
			cmd->timed_out = true;
			char why[WNN_MAX_DIAG];
			snprintf(why, sizeof(why), "%s of graph %" PRIu32 " ran longer than "
				 "dispatch_timeout_ms (%" PRIu32 " ms)", cmd_verb(cmd),
				 cmd->graph->obj.id, lim->dispatch_timeout_ms);
			if (c->closing) /* already cancelled, and nobody to tell */
				log_client_warn(c->obj.s->uid, "session %" PRIu64 ": %s (context "
						"%" PRIu32 " is closing)", c->obj.s->no, why, c->obj.id);
			else
				timeline_lose(c, why); /* cancels it; its client learns why */
		}
		if (cmd->timed_out && ran > (uint64_t)lim->dispatch_timeout_ms + grace) {
			log_error("session %" PRIu64 ": the %s of graph %" PRIu32 " on context %" PRIu32
				  " has not returned %" PRIu64 " ms after dispatch_timeout_ms (%" PRIu32
				  " ms) cancelled it: the worker exits (watchdog)", c->obj.s->no,
				  cmd_verb(cmd), cmd->graph->obj.id, c->obj.id, grace,
				  lim->dispatch_timeout_ms);
			/* Its thread cannot be reclaimed; nothing here may wait for it (exit()'s
			 * handlers and library destructors could). */
			_exit(WORKER_EXIT_WATCHDOG);
		}
		cmd = next;
	}
}

/* The command goes to the pool: the watchdog times it. */
static void watchdog_add(struct cmd *cmd)
{
	struct daemon *d = cmd->ctx->obj.s->d;
	cmd->run_prev = NULL;
	cmd->run_next = d->running;
	if (d->running)
		d->running->run_prev = cmd;
	d->running = cmd;
	if (!d->watchdog_init) {
		uv_timer_init(d->loop, &d->watchdog);
		d->watchdog.data = d;
		d->watchdog_init = true;
	}
	if (!d->watchdog_on && !uv_is_closing((uv_handle_t *)&d->watchdog)) {
		d->watchdog_on = true;
		uv_timer_start(&d->watchdog, watchdog_tick, WATCHDOG_TICK_MS, WATCHDOG_TICK_MS);
	}
}

static void watchdog_remove(struct cmd *cmd)
{
	struct daemon *d = cmd->ctx->obj.s->d;
	if (cmd->run_prev)
		cmd->run_prev->run_next = cmd->run_next;
	else if (d->running == cmd)
		d->running = cmd->run_next;
	if (cmd->run_next)
		cmd->run_next->run_prev = cmd->run_prev;
	cmd->run_prev = cmd->run_next = NULL;
	if (!d->running && d->watchdog_on) {
		d->watchdog_on = false;
		uv_timer_stop(&d->watchdog);
	}
}

void timeline_watchdog_close(struct daemon *d)
{
	if (d->watchdog_init && !uv_is_closing((uv_handle_t *)&d->watchdog)) {
		d->watchdog_on = false;
		uv_close((uv_handle_t *)&d->watchdog, NULL);
	}
}

/* Whether the command at the head of an idle timeline may run on the loop thread now. */
static bool cmd_quick(struct cmd *cmd)
{
	struct context *c = cmd->ctx;
	struct daemon *d = c->obj.s->d;
	const struct backend_impl *impl = c->backend->impl;
	uint64_t tick = uv_now(d->loop);
	if (tick != d->quick_tick) {
		d->quick_tick = tick;
		d->quick_spent_ns = 0;
	}
	if (d->quick_spent_ns >= QUICK_TICK_NS)
		return false;
	switch (cmd->type) {
	case CMD_DISPATCH:
		return cmd->graph->quick;
	case CMD_CREATE_TENSOR:
	case CMD_RELEASE_TENSOR:
		/* over shared-memory storage neither allocates nor frees the bytes */
		return impl->host_tensors &&
		       (cmd->tensor->storage || cmd->tensor->bytes <= QUICK_COPY_BYTES);
	case CMD_WRITE:
	case CMD_READ:
		return impl->host_tensors && cmd->tensor->bytes <= QUICK_COPY_BYTES;
	case CMD_FILL_CONSTANT:
		return cmd->size <= QUICK_COPY_BYTES;
	default:
		return false;
	}
}

static void cmd_after(uv_work_t *w, int status);

/* Runs a quick command on the loop thread, then completes it as the pool's would be. */
static void cmd_run_quick(struct cmd *cmd)
{
	struct daemon *d = cmd->ctx->obj.s->d;
	struct mlgraph *g = cmd->type == CMD_DISPATCH ? cmd->graph : NULL;
	uint64_t t0 = uv_hrtime();
	cmd->quick = true;
	cmd_work(&cmd->work);
	uint64_t ns = uv_hrtime() - t0;
	d->quick_spent_ns += ns;
	/* Wall time also counts preemption (a loaded machine): only a plan slow several runs in
	 * a row is taken off the quick path. */
	if (g)
		g->quick_strikes = ns > QUICK_PLAN_NS ? g->quick_strikes + 1 : 0;
	if (g && g->quick_strikes >= QUICK_PLAN_STRIKES) {
		g->quick = false;
		log_debug("session %" PRIu64 ": graph %" PRIu32 " took %.3f ms on the quick path; "
			  "its dispatches take the thread pool from now on", cmd->ctx->obj.s->no,
			  g->obj.id, ns / 1e6);
	}
	cmd_after(&cmd->work, 0);
}

static void cmd_after(uv_work_t *w, int status)
{
	struct cmd *cmd = w->data;
	struct context *c = cmd->ctx;
	(void)status; /* never cancelled: uv_cancel is not used */
	obj_ref(&c->obj);
	c->running = false;
	watchdog_remove(cmd);
	if (c->lost && !cmd_is_release(cmd)) {
		/* Lost while it ran (the watchdog): whatever it made is discarded, as for the
		 * commands queued behind it. */
		wnn_diag_clear(&cmd->diag);
		cmd->status = wnn_diag_set(&cmd->diag, WEBNN_STATUS_CONTEXT_LOST,
					   "context %" PRIu32 " is lost: %s", c->obj.id, c->lost_msg);
	}
	if (!cmd_is_release(cmd) && !c->closing)
		cmd_complete(cmd);
	cmd_free(cmd);
	timeline_kick(c);
	obj_unref(&c->obj);
}

static void timeline_kick(struct context *c)
{
	if (c->kicking)
		return; /* the outer loop below picks up what nested pushes appended */
	c->kicking = true;
	obj_ref(&c->obj);
	while (!c->running && c->head) {
		struct cmd *cmd = c->head;
		c->head = cmd->next;
		if (!c->head)
			c->tail = NULL;
		cmd->next = NULL;
		if (c->closing && !cmd_is_release(cmd)) {
			cmd_free(cmd); /* dropped: nobody is listening any more */
			continue;
		}
		if (!cmd_prepare(cmd)) {
			cmd_free(cmd);
			continue;
		}
		c->running = true;
		if (cmd_quick(cmd)) {
			cmd_run_quick(cmd);
			continue;
		}
		watchdog_add(cmd);
		int r = uv_queue_work(c->obj.s->d->loop, &cmd->work, cmd_work, cmd_after);
		if (r != 0) {
			/* Only fails on invalid arguments; run it here rather than lose it. */
			log_error("uv_queue_work: %s", uv_strerror(r));
			cmd_work(&cmd->work);
			cmd_after(&cmd->work, 0);
		}
	}
	c->kicking = false;
	obj_unref(&c->obj);
}

void timeline_push(struct cmd *cmd)
{
	struct context *c = cmd->ctx;
	if (!cmd_is_release(cmd)) {
		struct session *s = c->obj.s;
		cmd->queued = true;
		cmd->pending = cmd->size;
		session_pending_add(s, cmd->pending);
		/* A client pipelining on one context is no longer read from at the limit (the
		 * router checks between frames), so it cannot make the daemon hold unbounded work. */
		if (++c->n_queued == s->d->limits.max_inflight_per_context)
			session_context_full(s, true);
	}
	if (c->tail)
		c->tail->next = cmd;
	else
		c->head = cmd;
	c->tail = cmd;
	timeline_kick(c);
}

void timeline_reply(struct context *c, Webnn__Ipc__Reply *reply)
{
	struct session *s = c->obj.s;
	if (!c->running && !c->head) {
		reply_send(s, reply);
		return;
	}
	/* Work is queued: the reply waits its turn so replies stay in request order. */
	size_t len;
	uint8_t *buf = reply_pack(reply, &len);
	struct cmd *cmd = buf ? cmd_new(CMD_REPLY, c) : NULL;
	if (!cmd) {
		free(buf);
		session_close(s, "out of memory queueing a reply");
		return;
	}
	cmd->data = buf;
	cmd->size = len;
	/* Owed to the client like any reply (session_queue). */
	budget_force(s, len);
	cmd->charged = len;
	timeline_push(cmd);
}

void timeline_reply_error(struct context *c, uint64_t serial, const struct wnn_diag *diag)
{
	log_debug("session %" PRIu64 ": reply %" PRIu64 " failed: %s", c->obj.s->no, serial,
		  diag->message);
	Webnn__Ipc__Error err;
	reply_error_body(&err, diag);
	Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
	r.serial = serial;
	r.error = &err;
	timeline_reply(c, &r);
}

void timeline_fail(struct context *c, uint64_t serial, uint32_t object_id,
		   const struct wnn_diag *diag)
{
	if (serial)
		timeline_reply_error(c, serial, diag);
	else
		reply_error_event(c->obj.s, c->obj.id, object_id, diag);
}

void timeline_lose(struct context *c, const char *message)
{
	if (c->lost)
		return;
	c->lost = true;
	atomic_store(&c->cancel, true);
	snprintf(c->lost_msg, sizeof(c->lost_msg), "%s", message);
	log_client_warn(c->obj.s->uid, "session %" PRIu64 ": context %" PRIu32 " lost: %s",
			c->obj.s->no, c->obj.id, message);
	reply_context_lost(c->obj.s, c->obj.id, c->lost_msg);
}

void timeline_close(struct context *c)
{
	c->closing = true;
	atomic_store(&c->cancel, true);
}
