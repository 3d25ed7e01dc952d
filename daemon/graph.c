/* Graph requests: CreateConstant, BuildGraph (re-validate, bind constants, compile), Dispatch. */
#include "daemon/daemon.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- constants */

int handle_create_constant(struct session *s, struct request *rq)
{
	const Webnn__Ipc__CreateConstant *m = rq->msg->create_constant;
	const struct daemon_limits *lim = &s->d->limits;
	struct wnn_diag diag = { 0 };
	struct context *c = (struct context *)session_lookup(s, m->context_id, OBJ_CONTEXT,
							     "CreateConstant");
	if (!c || session_check_new_id(s, m->constant_id, "CreateConstant") < 0)
		return -1;
	if (m->data && m->data->where_case == WEBNN__IPC__DATA__WHERE_SHM && rq->serial == 0)
		return session_violation(s, "CreateConstant: a serial is required with shm data");
	struct wnn_desc desc;
	uint64_t bytes = 0;
	uint8_t *data = NULL;
	if (!wnn_desc_from_pb(m->descriptor, &desc, "constant: descriptor", &diag))
		goto fail;
	wnn_desc_bytes(&desc, &bytes);
	if (bytes > lim->max_tensor_bytes) {
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
			     "constant: descriptor: byte length %" PRIu64
			     " exceeds maxTensorByteLength %" PRIu64, bytes, lim->max_tensor_bytes);
		goto fail;
	}
	int r = shm_resolve(s, m->data, bytes, "constant: data", &data, &diag);
	if (r < 0)
		return -1;
	if (r == 0)
		goto fail;
	if (s->ids.count >= lim->max_objects) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "constant: the connection already has %u objects (the limit)",
			     s->ids.count);
		goto fail;
	}
	if (!session_charge(s, bytes)) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "constant: %" PRIu64 " bytes would exceed the connection's quota of %"
			     PRIu64 " bytes (%" PRIu64 " in use)",
			     bytes, lim->max_session_bytes, s->mem_bytes);
		goto fail;
	}
	struct constant *k = calloc(1, sizeof(*k));
	if (!k) {
		session_uncharge(s, bytes);
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "constant: out of memory");
		goto fail;
	}
	obj_init(&k->obj, s, OBJ_CONSTANT, m->constant_id);
	k->ctx = c;
	obj_ref(&c->obj);
	k->desc = desc;
	k->bytes = bytes;
	k->data = data;
	if (session_register(s, &k->obj) < 0)
		return -1;
	if (rq->serial) {
		Webnn__Ipc__Reply reply = WEBNN__IPC__REPLY__INIT;
		reply.serial = rq->serial;
		context_reply(c, &reply);
	}
	return 0;
fail:
	free(data);
	context_fail(c, rq->serial, m->constant_id, &diag);
	return 0;
}

int handle_destroy_constant(struct session *s, struct request *rq)
{
	struct obj *o = session_lookup(s, rq->msg->destroy_constant->constant_id, OBJ_CONSTANT,
				       "DestroyConstant");
	if (!o)
		return -1;
	session_forget(s, o);
	return 0;
}

void constant_finalize(struct constant *k)
{
	struct session *s = k->obj.s;
	session_uncharge(s, k->bytes);
	free(k->data);
	obj_unref(&k->ctx->obj);
	free(k);
	session_unref(s);
}

/* ---- graphs */

void graph_finalize(struct graph *g)
{
	/* The plan is destroyed on the timeline after queued dispatches; the memory it may point
	 * into (GraphInfo, constants) is freed only after that, by the release command. */
	struct cmd *cmd = cmd_new(CMD_RELEASE_GRAPH, g->ctx);
	if (!cmd) {
		log_error("out of memory releasing graph %" PRIu32 "; its memory leaks", g->obj.id);
		return;
	}
	cmd->graph = g;
	timeline_push(cmd);
}

/* Frees a graph that never got registered (no plan, refs to its dependencies held). */
static void graph_discard(struct graph *g)
{
	for (size_t i = 0; i < g->n_deps; i++)
		obj_unref(g->deps[i]);
	free(g->deps);
	free(g->descs);
	free(g->cdata);
	free(g->in_ops);
	free(g->out_ops);
	free(g->scalars);
	free(g);
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

static bool name_operand(const Webnn__Ipc__NamedOperand *const *list, size_t n,
			 uint32_t **out, size_t n_operands)
{
	*out = malloc(sizeof(uint32_t) * (n ? n : 1));
	if (!*out)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (list[i]->operand >= n_operands)
			return false;
		(*out)[i] = list[i]->operand;
	}
	return true;
}

int handle_build_graph(struct session *s, struct request *rq)
{
	const Webnn__Ipc__BuildGraph *m = rq->msg->build_graph;
	const struct daemon_limits *lim = &s->d->limits;
	const struct backend_impl *impl = s->d->impl;
	size_t msg_bytes = s->unpack_used;
	struct wnn_diag diag = { 0 };
	struct context *c =
		(struct context *)session_lookup(s, m->context_id, OBJ_CONTEXT, "BuildGraph");
	if (!c || session_check_new_id(s, m->graph_id, "BuildGraph") < 0)
		return -1;
	const Webnn__Ipc__GraphInfo *gi = m->graph;
	if (c->lost) {
		wnn_diag_set(&diag, WEBNN_STATUS_CONTEXT_LOST, "build: context %" PRIu32
			     " is lost: %s", c->obj.id, c->lost_msg);
		goto fail_early;
	}
	if (s->ids.count >= lim->max_objects) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "build: the connection already has %u objects (the limit)",
			     s->ids.count);
		goto fail_early;
	}
	if (gi->n_operations > lim->max_operations || gi->n_operands > lim->max_operands) {
		wnn_diag_set(&diag, WEBNN_STATUS_NOT_SUPPORTED,
			     "build: the graph has %zu operands and %zu operations; the limits are "
			     "%u and %u", gi->n_operands, gi->n_operations, lim->max_operands,
			     lim->max_operations);
		goto fail_early;
	}
	struct graph *g = calloc(1, sizeof(*g));
	if (!g) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
		goto fail_early;
	}
	size_t n = gi->n_operands;
	g->descs = calloc(n ? n : 1, sizeof(*g->descs));
	g->cdata = calloc(n ? n : 1, sizeof(*g->cdata));
	g->deps = calloc(n ? n : 1, sizeof(*g->deps));
	if (!g->descs || !g->cdata || !g->deps) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
		goto fail;
	}
	/* The same validation the client ran: never trust the client's shapes. */
	if (wnn_graph_validate(gi, g->descs, &diag) != WEBNN_STATUS_OK)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		uint64_t b = 0;
		wnn_desc_bytes(&g->descs[i], &b);
		if (b > lim->max_tensor_bytes) {
			char ds[96];
			wnn_diag_set(&diag, WEBNN_STATUS_NOT_SUPPORTED,
				     "build: operand %zu (%s) is %" PRIu64 " bytes, more than "
				     "maxTensorByteLength %" PRIu64, i,
				     wnn_desc_str(&g->descs[i], ds, sizeof(ds)), b,
				     lim->max_tensor_bytes);
			goto fail;
		}
	}
	for (size_t i = 0; i < gi->n_operations; i++) {
		const Webnn__Ipc__Operation *op = gi->operations[i];
		enum wnn_op e = wnn_op_from_id(op->op);
		uint32_t first = 0;
		if (e == WNN_OP_COUNT || op_first_input(op, &first) <= 0 || first >= n)
			continue; /* validation accepted it: an operator without tensor inputs */
		enum wnn_dtype t = g->descs[first].type;
		if (!impl->supports(s->d->be, e, t)) {
			bool lab = op->label && *op->label;
			wnn_diag_set(&diag, WEBNN_STATUS_NOT_SUPPORTED,
				     "%s%s%s%s: input data type %s is not supported by the %s backend",
				     wnn_ops[e].name, lab ? " (" : "", lab ? op->label : "",
				     lab ? ")" : "", wnn_dtype_name(t), impl->name);
			goto fail;
		}
	}
	/* Bind constant bytes: constants and constant tensors must be this context's, with the
	 * declared descriptor; the graph keeps them alive for as long as its plan. */
	uint64_t scalar_bytes = 0;
	for (size_t i = 0; i < n; i++)
		if (gi->operands[i]->kind == WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT) {
			uint64_t b = 0;
			wnn_desc_bytes(&g->descs[i], &b);
			scalar_bytes += b;
		}
	/* Scalar constants expand to their descriptor's size: bound that before allocating. */
	if (scalar_bytes > lim->max_session_bytes - s->mem_bytes) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "build: scalar constants of %" PRIu64 " bytes would exceed the "
			     "connection's quota of %" PRIu64 " bytes", scalar_bytes,
			     lim->max_session_bytes);
		goto fail;
	}
	g->scalars = malloc(scalar_bytes ? scalar_bytes : 1);
	if (!g->scalars) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
		goto fail;
	}
	uint64_t scalar_off = 0;
	for (size_t i = 0; i < n; i++) {
		const Webnn__Ipc__Operand *od = gi->operands[i];
		const struct wnn_desc *want = &g->descs[i];
		char ds1[96], ds2[96];
		switch (od->kind) {
		case WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT: {
			struct constant *k = (struct constant *)session_lookup(
				s, od->constant_id, OBJ_CONSTANT, "BuildGraph: constant operand");
			if (!k)
				goto violation;
			if (k->ctx != c) {
				session_violation(s, "BuildGraph: constant %" PRIu32
						     " belongs to context %" PRIu32 ", not %" PRIu32,
						  k->obj.id, k->ctx->obj.id, c->obj.id);
				goto violation;
			}
			if (!wnn_desc_equal(&k->desc, want)) {
				wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
					     "build: operand %zu: constant %" PRIu32 " is %s, the graph "
					     "declares %s", i, k->obj.id,
					     wnn_desc_str(&k->desc, ds1, sizeof(ds1)),
					     wnn_desc_str(want, ds2, sizeof(ds2)));
				goto fail;
			}
			obj_ref(&k->obj);
			g->deps[g->n_deps++] = &k->obj;
			g->cdata[i] = k->data;
			break;
		}
		case WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR: {
			struct tensor *t = (struct tensor *)session_lookup(
				s, od->tensor_id, OBJ_TENSOR, "BuildGraph: constant tensor operand");
			if (!t)
				goto violation;
			if (t->ctx != c) {
				session_violation(s, "BuildGraph: tensor %" PRIu32
						     " belongs to context %" PRIu32 ", not %" PRIu32,
						  t->obj.id, t->ctx->obj.id, c->obj.id);
				goto violation;
			}
			if (!t->constant || !t->host) {
				wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
					     "build: operand %zu: tensor %" PRIu32
					     " is not a constant tensor", i, t->obj.id);
				goto fail;
			}
			if (!wnn_desc_equal(&t->desc, want)) {
				wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
					     "build: operand %zu: constant tensor %" PRIu32
					     " is %s, the graph declares %s", i, t->obj.id,
					     wnn_desc_str(&t->desc, ds1, sizeof(ds1)),
					     wnn_desc_str(want, ds2, sizeof(ds2)));
				goto fail;
			}
			obj_ref(&t->obj);
			g->deps[g->n_deps++] = &t->obj;
			g->cdata[i] = t->host;
			break;
		}
		case WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT: {
			uint64_t cnt = 0;
			wnn_desc_count(want, &cnt);
			size_t es = wnn_dtype_size(want->type);
			uint8_t *p = g->scalars + scalar_off;
			for (uint64_t e = 0; e < cnt; e++)
				wnn_number_to_bytes(od->scalar, want->type, p + e * es);
			g->cdata[i] = p;
			scalar_off += cnt * es;
			break;
		}
		default:
			break;
		}
	}
	if (!name_operand((const Webnn__Ipc__NamedOperand *const *)gi->inputs, gi->n_inputs,
			  &g->in_ops, n) ||
	    !name_operand((const Webnn__Ipc__NamedOperand *const *)gi->outputs, gi->n_outputs,
			  &g->out_ops, n)) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
		goto fail;
	}
	/* The backend holds every operation result that is not a graph output (those live in the
	 * dispatch's tensors) for as long as the plan: count them like tensors. */
	uint8_t *is_output = calloc(n ? n : 1, 1);
	if (!is_output) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
		goto fail;
	}
	for (size_t i = 0; i < gi->n_outputs; i++)
		is_output[g->out_ops[i]] = 1;
	uint64_t inter_bytes = 0;
	for (size_t i = 0; i < n; i++)
		if (gi->operands[i]->kind == WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT &&
		    !is_output[i]) {
			uint64_t b = 0;
			wnn_desc_bytes(&g->descs[i], &b);
			inter_bytes += b;
		}
	free(is_output);
	g->mem_bytes = msg_bytes + scalar_bytes + inter_bytes +
		       n * (sizeof(struct wnn_desc) + 2 * sizeof(void *));
	if (!session_charge(s, g->mem_bytes)) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY,
			     "build: the graph's %" PRIu64 " bytes would exceed the connection's "
			     "quota of %" PRIu64 " bytes", g->mem_bytes, lim->max_session_bytes);
		goto fail;
	}
	struct cmd *cmd = cmd_new(CMD_COMPILE, c);
	if (!cmd) {
		session_uncharge(s, g->mem_bytes);
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
		goto fail;
	}
	g->bg.info = gi;
	g->bg.descs = g->descs;
	g->bg.constant_data = g->cdata;
	g->bg.n_operands = n;
	g->bg.input_operands = g->in_ops;
	g->bg.n_inputs = gi->n_inputs;
	g->bg.output_operands = g->out_ops;
	g->bg.n_outputs = gi->n_outputs;
	g->msg = rq->msg;
	rq->retained = true;
	obj_init(&g->obj, s, OBJ_GRAPH, m->graph_id);
	g->ctx = c;
	obj_ref(&c->obj);
	if (session_register(s, &g->obj) < 0) {
		cmd_discard(cmd);
		return -1;
	}
	obj_ref(&g->obj);
	cmd->graph = g;
	cmd->serial = rq->serial;
	timeline_push(cmd);
	return 0;
fail:
	graph_discard(g);
fail_early:
	context_reply_error(c, rq->serial, &diag);
	return 0;
violation:
	graph_discard(g);
	return -1;
}

int handle_destroy_graph(struct session *s, struct request *rq)
{
	struct obj *o = session_lookup(s, rq->msg->destroy_graph->graph_id, OBJ_GRAPH,
				       "DestroyGraph");
	if (!o)
		return -1;
	session_forget(s, o);
	return 0;
}

/* ---- dispatch */

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

int handle_dispatch(struct session *s, struct request *rq)
{
	const Webnn__Ipc__Dispatch *m = rq->msg->dispatch;
	struct wnn_diag diag = { 0 };
	struct context *c =
		(struct context *)session_lookup(s, m->context_id, OBJ_CONTEXT, "Dispatch");
	if (!c)
		return -1;
	struct graph *g = (struct graph *)session_lookup(s, m->graph_id, OBJ_GRAPH, "Dispatch");
	if (!g)
		return -1;
	if (g->ctx != c)
		return session_violation(s, "Dispatch: graph %" PRIu32 " belongs to context %" PRIu32
					    ", not %" PRIu32, g->obj.id, g->ctx->obj.id, c->obj.id);
	size_t nt = m->n_inputs + m->n_outputs;
	struct tensor **given = malloc(sizeof(*given) * (nt ? nt : 1));
	struct cmd *cmd = cmd_new(CMD_DISPATCH, c);
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
		struct tensor *t = (struct tensor *)session_lookup(s, nt_i->tensor_id, OBJ_TENSOR,
								   "Dispatch");
		if (!t || t->ctx != c) {
			if (t)
				session_violation(s, "Dispatch: tensor %" PRIu32 " belongs to context %"
						     PRIu32 ", not %" PRIu32,
						  t->obj.id, t->ctx->obj.id, c->obj.id);
			free(given);
			cmd_discard(cmd);
			return -1;
		}
		given[i] = t;
	}
	const Webnn__Ipc__GraphInfo *gi = g->msg->build_graph->graph;
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
	if (ok) {
		/* No tensor may appear twice, whether as two inputs, two outputs or both. */
		struct tensor **sorted = malloc(sizeof(*sorted) * (nt ? nt : 1));
		ok = sorted != NULL;
		if (!ok)
			wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "dispatch: out of memory");
		if (sorted) {
			memcpy(sorted, given, sizeof(*sorted) * nt);
			qsort(sorted, nt, sizeof(*sorted), ptr_cmp);
			for (size_t i = 1; i < nt && ok; i++)
				if (sorted[i] == sorted[i - 1]) {
					wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
						     "dispatch: tensor %" PRIu32 " is used more than "
						     "once among the inputs and outputs",
						     sorted[i]->obj.id);
					ok = false;
				}
			free(sorted);
		}
	}
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
	context_fail(c, 0, g->obj.id, &diag);
	return 0;
}
