/* libwebnn build() and graphs: pruning, renumbering, limit checks, upload, dispatch(). */
#include "client/client.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_ID UINT32_MAX

/* Fields of the operator messages in proto/webnn.proto that name operands (ids to renumber). */
static const char *const operand_fields[] = {
	"a", "b", "c", "input", "output", "inputs", "outputs", "filter", "bias", "mean",
	"variance", "scale", "weight", "recurrent_weight", "recurrent_bias",
	"initial_hidden_state", "initial_cell_state", "hidden_state", "cell_state",
	"peephole_weight", "indices", "updates", "zero_point", "slope", "condition", "true_value",
	"false_value",
};

static bool is_operand_field(const char *name)
{
	for (size_t i = 0; i < sizeof(operand_fields) / sizeof(operand_fields[0]); i++)
		if (strcmp(operand_fields[i], name) == 0)
			return true;
	return false;
}

static bool map_id(uint32_t *id, const uint32_t *map, size_t n)
{
	if (*id >= n || map[*id] == NO_ID)
		return false;
	*id = map[*id];
	return true;
}

/* Renumbers the operand ids of one operation in place through its protobuf-c descriptor, then
 * checks the result against wnn_op_inputs/wnn_op_outputs so a field missing from the list above
 * cannot slip through. */
static bool remap_op(Webnn__Ipc__Operation *op, const uint32_t *map, size_t n)
{
	uint32_t before[2 * WNN_MAX_OUTPUTS + 32], after[2 * WNN_MAX_OUTPUTS + 32];
	int max = (int)(sizeof(before) / sizeof(before[0])) / 2;
	int ni = wnn_op_inputs(op, before, NULL, max);
	int no = wnn_op_outputs(op, before + max, max);
	if (ni < 0 || no < 0)
		return false;
	const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
		&webnn__ipc__operation__descriptor, (unsigned)op->attrs_case);
	if (!f)
		return false;
	char *msg = *(char **)((char *)op + f->offset);
	const ProtobufCMessageDescriptor *md = f->descriptor;
	for (unsigned i = 0; msg && i < md->n_fields; i++) {
		const ProtobufCFieldDescriptor *fd = &md->fields[i];
		if (fd->type != PROTOBUF_C_TYPE_UINT32 || !is_operand_field(fd->name))
			continue;
		if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t cnt = *(size_t *)(msg + fd->quantifier_offset);
			uint32_t *ids = *(uint32_t **)(msg + fd->offset);
			for (size_t k = 0; k < cnt; k++)
				if (!map_id(&ids[k], map, n))
					return false;
		} else if (fd->label == PROTOBUF_C_LABEL_REQUIRED ||
			   *(protobuf_c_boolean *)(msg + fd->quantifier_offset)) {
			if (!map_id((uint32_t *)(msg + fd->offset), map, n))
				return false;
		}
	}
	if (wnn_op_inputs(op, after, NULL, max) != ni ||
	    wnn_op_outputs(op, after + max, max) != no)
		return false;
	for (int i = 0; i < ni; i++)
		if (before[i] >= n || map[before[i]] != after[i])
			return false;
	for (int i = 0; i < no; i++)
		if (before[max + i] >= n || map[before[max + i]] != after[max + i])
			return false;
	return true;
}

static enum webnn_status check_limits(struct webnn_context *ctx, const char *what,
				      const char *role, const struct webnn_tensor_limits *l,
				      const struct wnn_desc *d)
{
	if (!(l->data_types & WNN_DT_BIT(d->type)))
		return wnnc_fail(ctx, WEBNN_STATUS_NOT_SUPPORTED,
				 "%s: %s data type %s is not supported by this context (device %s)",
				 what, role, wnn_dtype_name(d->type), ctx->info.device_name);
	if (d->rank < l->min_rank || d->rank > l->max_rank)
		return wnnc_fail(ctx, WEBNN_STATUS_NOT_SUPPORTED,
				 "%s: %s rank %" PRIu32 " is outside the range %" PRIu32 "..%" PRIu32
				 " this context supports (device %s)",
				 what, role, d->rank, l->min_rank, l->max_rank,
				 ctx->info.device_name);
	return WEBNN_STATUS_OK;
}

/* MLOpSupportLimits of the context against one operation of the graph. */
static enum webnn_status check_op_support(struct webnn_builder *b, const Webnn__Ipc__Operation *op)
{
	struct webnn_context *ctx = b->ctx;
	enum wnn_op id = wnn_op_from_id(op->op);
	const char *name = id < WNN_OP_COUNT ? wnn_ops[id].name : "unknown operator";
	bool listed = false;
	for (size_t i = 0; i < ctx->n_op_limits && !listed; i++)
		listed = strcmp(ctx->op_limits[i].op, name) == 0;
	if (!listed)
		return wnnc_fail(ctx, WEBNN_STATUS_NOT_SUPPORTED,
				 "%s is not supported by this context (device %s)", name,
				 ctx->info.device_name);
	uint32_t ids[WNN_MAX_OUTPUTS + 32];
	const char *roles[WNN_MAX_OUTPUTS + 32];
	int n = wnn_op_inputs(op, ids, roles, WNN_MAX_OUTPUTS + 32);
	for (int i = 0; i < n; i++) {
		struct webnn_tensor_limits l;
		if (roles[i] && webnn_context_op_limits(ctx, name, roles[i], &l)) {
			enum webnn_status s = check_limits(ctx, name, roles[i], &l, b->descs + ids[i]);
			if (s != WEBNN_STATUS_OK)
				return s;
		}
	}
	n = wnn_op_outputs(op, ids, WNN_MAX_OUTPUTS);
	struct webnn_tensor_limits l;
	if (n == 1 && webnn_context_op_limits(ctx, name, "output", &l))
		return check_limits(ctx, name, "output", &l, b->descs + ids[0]);
	return WEBNN_STATUS_OK;
}

static void free_io(struct wnnc_graph_io *io, size_t n)
{
	for (size_t i = 0; io && i < n; i++)
		free(io[i].name);
	free(io);
}

void wnnc_graph_free(struct webnn_graph *g)
{
	free_io(g->inputs, g->n_inputs);
	free_io(g->outputs, g->n_outputs);
	free(g->op_counts);
	free(g);
}

/* Everything build() allocates for one request; freed together. */
struct build_state {
	bool *keep_operand, *keep_op;
	uint32_t *map;
	uint32_t *constant_ids;
	size_t n_constants;
	Webnn__Ipc__Operand *operands;
	Webnn__Ipc__Operand **operand_ptrs;
	Webnn__Ipc__OperandDescriptor *descs;
	Webnn__Ipc__Operation **ops;
	Webnn__Ipc__NamedOperand *named;
	Webnn__Ipc__NamedOperand **inputs, **outputs;
};

static void build_state_free(struct build_state *st)
{
	free(st->keep_operand);
	free(st->keep_op);
	free(st->map);
	free(st->constant_ids);
	free(st->operands);
	free(st->operand_ptrs);
	free(st->descs);
	free(st->ops);
	free(st->named);
	free(st->inputs);
	free(st->outputs);
}

static enum webnn_status check_outputs(struct webnn_builder *b,
				       const struct webnn_named_operand *outputs, size_t n)
{
	struct webnn_context *ctx = b->ctx;
	if (n == 0 || !outputs)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "build: no outputs given");
	for (size_t i = 0; i < n; i++) {
		const char *name = outputs[i].name;
		const struct webnn_operand *o = outputs[i].operand;
		if (!name || !*name)
			return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
					 "build: output %zu has an empty name", i);
		for (size_t j = 0; j < i; j++)
			if (strcmp(outputs[j].name, name) == 0)
				return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
						 "build: duplicate output name \"%s\"", name);
		if (!o)
			return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
					 "build: output \"%s\" is NULL", name);
		if (o->builder != b)
			return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
					 "build: output \"%s\" belongs to another builder", name);
		if (o->kind != WNNC_OUTPUT)
			return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
					 "build: output \"%s\" is a graph %s, expected the output "
					 "of an operator", name,
					 o->kind == WNNC_INPUT ? "input" : "constant");
	}
	return WEBNN_STATUS_OK;
}

/* Marks the operations (and operands) the outputs depend on; ops are in topological order so
 * one backwards pass finds them all. */
static enum webnn_status prune(struct webnn_builder *b, const struct webnn_named_operand *outputs,
			       size_t n_outputs, struct build_state *st)
{
	for (size_t i = 0; i < n_outputs; i++)
		st->keep_operand[outputs[i].operand->id] = true;
	for (size_t k = b->n_ops; k-- > 0;) {
		const Webnn__Ipc__Operation *op = b->ops[k];
		uint32_t ids[WNN_MAX_OUTPUTS + 32];
		int no = wnn_op_outputs(op, ids, WNN_MAX_OUTPUTS + 32);
		bool needed = false;
		for (int i = 0; i < no; i++)
			needed = needed || st->keep_operand[ids[i]];
		if (!needed)
			continue;
		st->keep_op[k] = true;
		for (int i = 0; i < no; i++)
			st->keep_operand[ids[i]] = true;
		int ni = wnn_op_inputs(op, ids, NULL, WNN_MAX_OUTPUTS + 32);
		if (ni < 0 || no < 0)
			return wnnc_fail(b->ctx, WEBNN_STATUS_OPERATION_ERROR,
					 "build: operation %zu has too many operands", k);
		for (int i = 0; i < ni; i++)
			st->keep_operand[ids[i]] = true;
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status check_support(struct webnn_builder *b, const struct build_state *st)
{
	struct webnn_context *ctx = b->ctx;
	for (size_t k = 0; k < b->n_ops; k++) {
		if (!st->keep_op[k])
			continue;
		enum webnn_status s = check_op_support(b, b->ops[k]);
		if (s != WEBNN_STATUS_OK)
			return s;
	}
	for (size_t i = 0; i < b->n_operands; i++) {
		const struct webnn_operand *o = b->operands[i];
		if (!st->keep_operand[i] || o->kind == WNNC_OUTPUT)
			continue;
		if (o->kind == WNNC_CONSTANT_TENSOR && o->tensor->destroyed)
			return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
					 "build: the constant tensor of operand %zu is destroyed", i);
		char what[160];
		if (o->kind == WNNC_INPUT)
			snprintf(what, sizeof(what), "build: input \"%s\"", o->name);
		else
			snprintf(what, sizeof(what), "build: constant operand %zu", i);
		enum webnn_status s = check_limits(ctx, what, "graph operand",
						   o->kind == WNNC_INPUT ? &ctx->support.input
									 : &ctx->support.constant,
						   &o->desc);
		if (s != WEBNN_STATUS_OK)
			return s;
	}
	return WEBNN_STATUS_OK;
}

/* Uploads the builder's constants (CreateConstant) the pruned graph uses. */
static enum webnn_status upload_constants(struct webnn_builder *b, struct build_state *st)
{
	struct webnn_context *ctx = b->ctx;
	for (size_t i = 0; i < b->n_operands; i++) {
		struct webnn_operand *o = b->operands[i];
		if (!st->keep_operand[i] || o->kind != WNNC_CONSTANT)
			continue;
		Webnn__Ipc__CreateConstant cc = WEBNN__IPC__CREATE_CONSTANT__INIT;
		Webnn__Ipc__OperandDescriptor pd;
		Webnn__Ipc__Data data;
		Webnn__Ipc__ShmRange shm;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		uint64_t serial;
		enum webnn_status s = wnnc_put_data(ctx, o->data, o->size, "build", &data, &shm,
						    &serial);
		if (s != WEBNN_STATUS_OK)
			return s;
		wnn_desc_to_pb(&o->desc, &pd);
		cc.context_id = ctx->context_id;
		cc.constant_id = wnnc_new_id(ctx);
		cc.descriptor = &pd;
		cc.data = &data;
		m.has_serial = serial != 0;
		m.serial = serial;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_CREATE_CONSTANT;
		m.create_constant = &cc;
		s = wnnc_send(ctx, &m, NULL, 0);
		if (s != WEBNN_STATUS_OK)
			return s;
		wnnc_arena_sent(ctx, serial);
		/* in webnnd's hands (inline in the message, or copied into the shared memory it
		 * reads): a borrowed constant's owner may drop its pages now */
		if (o->sent)
			o->sent(o->sent_arg, o->data, o->size);
		st->constant_ids[st->n_constants++] = cc.constant_id;
		st->operands[st->map[i]].has_constant_id = true;
		st->operands[st->map[i]].constant_id = cc.constant_id;
	}
	return WEBNN_STATUS_OK;
}

static void destroy_constants(struct webnn_context *ctx, const uint32_t *ids, size_t n)
{
	for (size_t i = 0; i < n && !ctx->lost; i++) {
		Webnn__Ipc__DestroyConstant dc = WEBNN__IPC__DESTROY_CONSTANT__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		dc.constant_id = ids[i];
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONSTANT;
		m.destroy_constant = &dc;
		wnnc_send(ctx, &m, NULL, 0);
	}
}

static struct webnn_graph *make_graph(struct webnn_builder *b,
				      const struct webnn_named_operand *outputs, size_t n_outputs,
				      const struct build_state *st)
{
	struct webnn_graph *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	size_t n_in = 0;
	for (size_t i = 0; i < b->n_operands; i++)
		n_in += st->keep_operand[i] && b->operands[i]->kind == WNNC_INPUT;
	g->inputs = calloc(n_in ? n_in : 1, sizeof(*g->inputs));
	g->outputs = calloc(n_outputs, sizeof(*g->outputs));
	g->op_counts = calloc(WNN_OP_COUNT, sizeof(*g->op_counts));
	if (!g->inputs || !g->outputs || !g->op_counts) {
		wnnc_graph_free(g);
		return NULL;
	}
	for (size_t i = 0; i < b->n_operands; i++) {
		const struct webnn_operand *o = b->operands[i];
		if (!st->keep_operand[i] || o->kind != WNNC_INPUT)
			continue;
		struct wnnc_graph_io *io = &g->inputs[g->n_inputs++];
		io->desc = o->desc;
		if (!(io->name = strdup(o->name))) {
			wnnc_graph_free(g);
			return NULL;
		}
	}
	for (size_t k = 0; k < b->n_ops; k++) {
		enum wnn_op id = wnn_op_from_id(b->ops[k]->op);
		if (st->keep_op[k] && id < WNN_OP_COUNT)
			g->op_counts[id]++;
	}
	for (size_t i = 0; i < n_outputs; i++) {
		struct wnnc_graph_io *io = &g->outputs[g->n_outputs++];
		io->desc = outputs[i].operand->desc;
		if (!(io->name = strdup(outputs[i].name))) {
			wnnc_graph_free(g);
			return NULL;
		}
	}
	return g;
}

static void graph_set_stats(struct webnn_graph *g, const Webnn__Ipc__BuildGraphReply *r)
{
	g->compile_ms = r->compile_ms;
	g->stats = (struct webnn_graph_stats){
		.struct_size = sizeof g->stats,
		.compile_ms = r->compile_ms,
		.intermediate_bytes = r->intermediate_bytes,
		.unplanned_bytes = r->unplanned_bytes,
		.folded_bytes = r->folded_bytes,
		.operations = r->operations,
		.kernels = r->kernels,
		.folded = r->folded,
		.fused = r->fused,
		.removed = r->removed,
	};
}

/* The build's working arrays, sized for every operand and operation the builder holds. */
static bool build_state_alloc(struct build_state *st, size_t n_operands, size_t n_ops,
			      size_t n_outputs)
{
	size_t nb = n_operands;
	st->keep_operand = calloc(nb, sizeof(bool));
	st->keep_op = calloc(n_ops ? n_ops : 1, sizeof(bool));
	st->map = malloc(nb * sizeof(uint32_t));
	st->constant_ids = malloc(nb * sizeof(uint32_t));
	st->operands = calloc(nb, sizeof(*st->operands));
	st->operand_ptrs = calloc(nb, sizeof(*st->operand_ptrs));
	st->descs = calloc(nb, sizeof(*st->descs));
	st->ops = calloc(n_ops ? n_ops : 1, sizeof(*st->ops));
	st->named = calloc(nb + n_outputs, sizeof(*st->named));
	st->inputs = calloc(nb, sizeof(*st->inputs));
	st->outputs = calloc(n_outputs, sizeof(*st->outputs));
	return st->keep_operand && st->keep_op && st->map && st->constant_ids && st->operands &&
	       st->operand_ptrs && st->descs && st->ops && st->named && st->inputs && st->outputs;
}

/* The kept operands under dense ids in creation order, which is topological: operands only
 * feed later ops. Inputs also get their named entry; *n_named counts the named entries used. */
static void serialise_operands(const struct webnn_builder *b, struct build_state *st,
			       Webnn__Ipc__GraphInfo *gi, size_t *n_named)
{
	for (size_t i = 0; i < b->n_operands; i++) {
		st->map[i] = NO_ID;
		if (!st->keep_operand[i])
			continue;
		const struct webnn_operand *o = b->operands[i];
		uint32_t id = (uint32_t)gi->n_operands;
		st->map[i] = id;
		Webnn__Ipc__Operand *po = &st->operands[id];
		webnn__ipc__operand__init(po);
		po->kind = (Webnn__Ipc__OperandKind)o->kind;
		wnn_desc_to_pb(&o->desc, &st->descs[id]);
		po->descriptor = &st->descs[id];
		if (o->kind == WNNC_INPUT) {
			po->name = o->name;
			Webnn__Ipc__NamedOperand *no = &st->named[(*n_named)++];
			webnn__ipc__named_operand__init(no);
			no->name = o->name;
			no->operand = id;
			st->inputs[gi->n_inputs++] = no;
		} else if (o->kind == WNNC_SCALAR) {
			po->scalar = (Webnn__Ipc__Number *)&o->scalar;
		} else if (o->kind == WNNC_CONSTANT_TENSOR) {
			po->has_tensor_id = true;
			po->tensor_id = o->tensor->id;
		}
		st->operand_ptrs[gi->n_operands++] = po;
	}
}

/* The pruned graph as the wire's GraphInfo: operands, the kept operations renumbered onto the
 * dense ids, and the named outputs. gi points into st, which must outlive it. */
static enum webnn_status serialise_graph(struct webnn_builder *b,
					 const struct webnn_named_operand *outputs,
					 size_t n_outputs, struct build_state *st,
					 Webnn__Ipc__GraphInfo *gi)
{
	size_t n_named = 0;
	serialise_operands(b, st, gi, &n_named);
	for (size_t k = 0; k < b->n_ops; k++) {
		if (!st->keep_op[k])
			continue;
		if (!remap_op(b->ops[k], st->map, b->n_operands))
			return wnnc_fail(b->ctx, WEBNN_STATUS_OPERATION_ERROR,
					 "build: cannot renumber the operands of operation %zu", k);
		st->ops[gi->n_operations++] = b->ops[k];
	}
	for (size_t i = 0; i < n_outputs; i++) {
		Webnn__Ipc__NamedOperand *no = &st->named[n_named++];
		webnn__ipc__named_operand__init(no);
		no->name = (char *)outputs[i].name;
		no->operand = st->map[outputs[i].operand->id];
		st->outputs[gi->n_outputs++] = no;
	}
	gi->operands = st->operand_ptrs;
	gi->operations = st->ops;
	gi->inputs = st->inputs;
	gi->outputs = st->outputs;
	return WEBNN_STATUS_OK;
}

/* Sends BuildGraph under a fresh graph id (recorded in g); *serial is its reply's. */
static enum webnn_status send_build_graph(struct webnn_context *ctx, Webnn__Ipc__GraphInfo *gi,
					  struct webnn_graph *g, uint64_t *serial)
{
	Webnn__Ipc__BuildGraph bg = WEBNN__IPC__BUILD_GRAPH__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	bg.context_id = ctx->context_id;
	bg.graph_id = wnnc_new_id(ctx);
	bg.graph = gi;
	m.has_serial = true;
	m.serial = *serial = wnnc_new_serial(ctx);
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_BUILD_GRAPH;
	m.build_graph = &bg;
	g->id = bg.graph_id;
	return wnnc_send(ctx, &m, NULL, 0);
}

/* The builder is spent: the uploaded constant bytes are no longer needed here. */
static void release_builder_data(struct webnn_builder *b)
{
	for (size_t i = 0; i < b->n_operands; i++) {
		if (!b->operands[i]->borrowed)
			free(b->operands[i]->data);
		b->operands[i]->data = NULL;
	}
}

/* Validates, uploads the constants and sends the graph; blocking (waits for the daemon's
 * compilation) when call is NULL, else queued for call. */
static enum webnn_status build_locked(struct webnn_builder *b,
				      const struct webnn_named_operand *outputs, size_t n_outputs,
				      struct webnn_graph **out, struct wnnc_async *call)
{
	struct webnn_context *ctx = b->ctx;
	enum webnn_status s = wnnc_check_live(ctx, "build");
	if (s != WEBNN_STATUS_OK)
		return s;
	if (b->built)
		return wnnc_fail(ctx, WEBNN_STATUS_INVALID_STATE,
				 "build: the builder has already built its graph");
	if ((s = check_outputs(b, outputs, n_outputs)) != WEBNN_STATUS_OK)
		return s;
	b->built = true; /* from here on the spec rejects the promise but the builder is spent */

	struct build_state st = { 0 };
	if (!build_state_alloc(&st, b->n_operands, b->n_ops, n_outputs)) {
		build_state_free(&st);
		return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
	}
	Webnn__Ipc__GraphInfo gi = WEBNN__IPC__GRAPH_INFO__INIT;
	if ((s = prune(b, outputs, n_outputs, &st)) != WEBNN_STATUS_OK ||
	    (s = check_support(b, &st)) != WEBNN_STATUS_OK ||
	    (s = serialise_graph(b, outputs, n_outputs, &st, &gi)) != WEBNN_STATUS_OK) {
		build_state_free(&st);
		return s;
	}
	struct webnn_graph *g = make_graph(b, outputs, n_outputs, &st);
	if (!g) {
		build_state_free(&st);
		return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
	}
	s = upload_constants(b, &st);
	uint64_t serial = 0;
	if (s == WEBNN_STATUS_OK)
		s = send_build_graph(ctx, &gi, g, &serial);
	release_builder_data(b);
	if (call && s == WEBNN_STATUS_OK) {
		/* The daemon's constants go once it has built (wnnc_graph_answered). */
		call->kind = WNNC_ASYNC_GRAPH;
		call->graph = g;
		call->serial = serial;
		call->seq = ctx->sent_seq;
		call->constant_ids = st.constant_ids;
		call->n_constants = st.n_constants;
		st.constant_ids = NULL;
		build_state_free(&st);
		g->ctx = ctx;
		ctx->refs++; /* the graph's, from now on */
		wnnc_async_add(ctx, call);
		return WEBNN_STATUS_OK;
	}
	Webnn__Ipc__ServerMessage *reply = NULL;
	if (s == WEBNN_STATUS_OK)
		s = wnnc_wait_reply(ctx, serial, "build", &reply);
	/* The daemon keeps what it compiled; its copies of the constants are not needed. */
	destroy_constants(ctx, st.constant_ids, st.n_constants);
	build_state_free(&st);
	if (s != WEBNN_STATUS_OK) {
		wnnc_graph_free(g);
		return s;
	}
	const Webnn__Ipc__Reply *r = reply->reply;
	if (r->body_case == WEBNN__IPC__REPLY__BODY_BUILD_GRAPH)
		graph_set_stats(g, r->build_graph);
	webnn__ipc__server_message__free_unpacked(reply, NULL);
	g->ctx = ctx;
	ctx->refs++;
	*out = g;
	return WEBNN_STATUS_OK;
}

void wnnc_graph_answered(struct webnn_context *ctx, struct wnnc_async *a,
			 const Webnn__Ipc__Reply *reply)
{
	destroy_constants(ctx, a->constant_ids, a->n_constants);
	if (reply->error) {
		a->status = wnnc_status_from_error(reply->error);
		snprintf(a->message, sizeof(a->message), "%s",
			 reply->error->message ? reply->error->message : "build");
		return;
	}
	if (reply->body_case == WEBNN__IPC__REPLY__BODY_BUILD_GRAPH)
		graph_set_stats(a->graph, reply->build_graph);
	a->status = WEBNN_STATUS_OK;
	a->message[0] = '\0';
}

enum webnn_status webnn_builder_build(struct webnn_builder *b,
				      const struct webnn_named_operand *outputs, size_t n_outputs,
				      struct webnn_graph **out)
{
	if (out)
		*out = NULL;
	if (!b)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(b->ctx);
	enum webnn_status s = out ? build_locked(b, outputs, n_outputs, out, NULL)
				  : wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "build: out is NULL");
	wnnc_unlock(b->ctx);
	return s;
}

enum webnn_status webnn_builder_build_async(struct webnn_builder *b,
					    const struct webnn_named_operand *outputs,
					    size_t n_outputs, webnn_graph_cb cb, void *user_data)
{
	if (!b)
		return WEBNN_STATUS_TYPE_ERROR;
	struct webnn_context *ctx = b->ctx;
	wnnc_lock(ctx);
	enum webnn_status s = WEBNN_STATUS_OK;
	struct wnnc_async *a = NULL;
	if (!cb)
		s = wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "build: the callback is NULL");
	else if (!(a = calloc(1, sizeof(*a))))
		s = wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "build: out of memory");
	if (s == WEBNN_STATUS_OK) {
		a->graph_cb = cb;
		a->user_data = user_data;
		s = build_locked(b, outputs, n_outputs, NULL, a);
		if (s != WEBNN_STATUS_OK)
			free(a);
	}
	wnnc_unlock(ctx);
	return s;
}

/* ---- graphs */

size_t webnn_graph_input_count(const struct webnn_graph *g)
{
	return g ? g->n_inputs : 0;
}

size_t webnn_graph_output_count(const struct webnn_graph *g)
{
	return g ? g->n_outputs : 0;
}

static const char *io_at(const struct wnnc_graph_io *io, size_t n, size_t i,
			 struct webnn_operand_desc *desc)
{
	if (i >= n)
		return NULL;
	if (desc) {
		memset(desc, 0, sizeof(*desc));
		desc->data_type = (enum webnn_data_type)io[i].desc.type;
		desc->rank = io[i].desc.rank;
		memcpy(desc->shape, io[i].desc.dims, sizeof(uint32_t) * io[i].desc.rank);
	}
	return io[i].name;
}

const char *webnn_graph_input_name(const struct webnn_graph *g, size_t i,
				   struct webnn_operand_desc *desc)
{
	return g ? io_at(g->inputs, g->n_inputs, i, desc) : NULL;
}

const char *webnn_graph_output_name(const struct webnn_graph *g, size_t i,
				    struct webnn_operand_desc *desc)
{
	return g ? io_at(g->outputs, g->n_outputs, i, desc) : NULL;
}

double webnn_graph_compile_ms(const struct webnn_graph *g)
{
	return g ? g->compile_ms : 0;
}

enum webnn_status webnn_graph_get_stats(const struct webnn_graph *g, struct webnn_graph_stats *out)
{
	if (!g || !out || out->struct_size < sizeof(uint32_t))
		return WEBNN_STATUS_TYPE_ERROR;
	/* Copy what both versions of the struct have: older callers pass a smaller struct. */
	struct webnn_graph_stats s = g->stats;
	size_t n = out->struct_size < sizeof s ? out->struct_size : sizeof s;
	s.struct_size = out->struct_size;
	memcpy(out, &s, n);
	return WEBNN_STATUS_OK;
}

bool webnn_graph_operation_type(const struct webnn_graph *g, size_t i, const char **name,
				uint32_t *count)
{
	for (size_t id = 0; g && g->op_counts && id < WNN_OP_COUNT; id++) {
		if (!g->op_counts[id] || i--)
			continue;
		if (name)
			*name = wnn_ops[id].name;
		if (count)
			*count = g->op_counts[id];
		return true;
	}
	return false;
}

void webnn_graph_destroy(struct webnn_graph *g)
{
	if (!g)
		return;
	struct webnn_context *ctx = g->ctx;
	wnnc_lock(ctx);
	if (!ctx->lost) {
		Webnn__Ipc__DestroyGraph dg = WEBNN__IPC__DESTROY_GRAPH__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		dg.graph_id = g->id;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_GRAPH;
		m.destroy_graph = &dg;
		wnnc_send(ctx, &m, NULL, 0);
	}
	wnnc_unlock(ctx);
	wnnc_graph_free(g);
	wnnc_context_unref(ctx);
}

/* ---- the graph cache */

static enum webnn_status check_key(struct webnn_context *ctx, const char *what, const char *key)
{
	struct wnn_diag diag = { 0 };
	size_t n = key ? strlen(key) : 0;
	if (n == 0 || n > 128)
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR, "%s: the key is %zu characters long; "
			     "a key has 1 to 128", what, n);
	else if (key[0] == '.')
		wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR, "%s: the key '%s' starts with '.'",
			     what, key);
	for (size_t i = 0; diag.status == WEBNN_STATUS_OK && i < n; i++) {
		unsigned char ch = (unsigned char)key[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-'))
			wnn_diag_set(&diag, WEBNN_STATUS_TYPE_ERROR,
				     "%s: the key has character 0x%02x at %zu; a key is made of "
				     "letters, digits, '.', '_' and '-'", what, ch, i);
	}
	if (diag.status != WEBNN_STATUS_OK)
		return wnnc_fail(ctx, diag.status, "%s", diag.message);
	return WEBNN_STATUS_OK;
}

enum webnn_status webnn_context_save_graph(struct webnn_context *ctx, const char *key,
					   const struct webnn_graph *graph)
{
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = wnnc_check_live(ctx, "saveGraph");
	if (s == WEBNN_STATUS_OK && (!graph || graph->ctx != ctx || graph->destroyed))
		s = wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "saveGraph: the graph is %s",
			      !graph ? "NULL" : graph->destroyed ? "destroyed"
							  : "of another context");
	if (s == WEBNN_STATUS_OK)
		s = check_key(ctx, "saveGraph", key);
	if (s == WEBNN_STATUS_OK) {
		Webnn__Ipc__SaveGraph sg = WEBNN__IPC__SAVE_GRAPH__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		sg.graph_id = graph->id;
		sg.key = (char *)key;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_SAVE_GRAPH;
		m.save_graph = &sg;
		s = wnnc_call(ctx, &m, "saveGraph", NULL);
	}
	wnnc_unlock(ctx);
	return s;
}

/* The client's view of a loaded graph: its inputs, outputs and operations from the reply. */
static struct webnn_graph *loaded_graph(const Webnn__Ipc__LoadGraphReply *r)
{
	struct webnn_graph *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->inputs = calloc(r->n_inputs ? r->n_inputs : 1, sizeof(*g->inputs));
	g->outputs = calloc(r->n_outputs ? r->n_outputs : 1, sizeof(*g->outputs));
	g->op_counts = calloc(WNN_OP_COUNT, sizeof(*g->op_counts));
	if (!g->inputs || !g->outputs || !g->op_counts) {
		wnnc_graph_free(g);
		return NULL;
	}
	for (size_t k = 0; k < 2; k++) {
		size_t n = k ? r->n_outputs : r->n_inputs;
		Webnn__Ipc__NamedDescriptor **src = k ? r->outputs : r->inputs;
		for (size_t i = 0; i < n; i++) {
			struct wnnc_graph_io *io = k ? &g->outputs[g->n_outputs] : &g->inputs[g->n_inputs];
			if (!wnn_desc_from_pb(src[i]->descriptor, &io->desc, "loadGraph", NULL) ||
			    !(io->name = strdup(src[i]->name))) {
				wnnc_graph_free(g);
				return NULL;
			}
			if (k)
				g->n_outputs++;
			else
				g->n_inputs++;
		}
	}
	for (size_t i = 0; i < r->n_operations; i++) {
		enum wnn_op id = wnn_op_from_id(r->operations[i]);
		if (id < WNN_OP_COUNT)
			g->op_counts[id]++;
	}
	if (r->build)
		graph_set_stats(g, r->build);
	return g;
}

enum webnn_status webnn_context_load_graph(struct webnn_context *ctx, const char *key,
					   struct webnn_graph **out)
{
	if (out)
		*out = NULL;
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = wnnc_check_live(ctx, "loadGraph");
	if (s == WEBNN_STATUS_OK && !out)
		s = wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "loadGraph: out is NULL");
	if (s == WEBNN_STATUS_OK)
		s = check_key(ctx, "loadGraph", key);
	Webnn__Ipc__ServerMessage *reply = NULL;
	uint32_t id = 0;
	if (s == WEBNN_STATUS_OK) {
		Webnn__Ipc__LoadGraph lg = WEBNN__IPC__LOAD_GRAPH__INIT;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		lg.context_id = ctx->context_id;
		lg.graph_id = id = wnnc_new_id(ctx);
		lg.key = (char *)key;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_LOAD_GRAPH;
		m.load_graph = &lg;
		s = wnnc_call(ctx, &m, "loadGraph", &reply);
	}
	if (s == WEBNN_STATUS_OK) {
		const Webnn__Ipc__Reply *r = reply->reply;
		if (r->body_case != WEBNN__IPC__REPLY__BODY_LOAD_GRAPH) {
			s = wnnc_fail(ctx, WEBNN_STATUS_OPERATION_ERROR,
				      "loadGraph: the daemon's reply has no LoadGraphReply");
		} else if (r->load_graph->found) {
			struct webnn_graph *g = loaded_graph(r->load_graph);
			if (!g) {
				s = wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "loadGraph: out of "
					      "memory (or a malformed reply)");
				Webnn__Ipc__DestroyGraph dg = WEBNN__IPC__DESTROY_GRAPH__INIT;
				Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
				dg.graph_id = id;
				m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_GRAPH;
				m.destroy_graph = &dg;
				wnnc_send(ctx, &m, NULL, 0);
			} else {
				g->id = id;
				g->ctx = ctx;
				ctx->refs++;
				*out = g;
			}
		}
	}
	if (reply)
		webnn__ipc__server_message__free_unpacked(reply, NULL);
	wnnc_unlock(ctx);
	return s;
}

/* ---- dispatch */

/* Spec "validate tensors with descriptors" plus the tensor checks, for inputs or outputs. */
static enum webnn_status check_named(struct webnn_context *ctx, const char *kind,
				     const struct webnn_named_tensor *t, size_t n,
				     const struct wnnc_graph_io *io, size_t n_io)
{
	if (n && !t)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "dispatch: %ss is NULL", kind);
	for (size_t i = 0; i < n; i++) {
		const char *name = t[i].name ? t[i].name : "";
		const struct webnn_tensor *tensor = t[i].tensor;
		size_t k = 0;
		while (k < n_io && strcmp(io[k].name, name) != 0)
			k++;
		if (k == n_io)
			return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
					 "dispatch: the graph has no %s named \"%s\"", kind, name);
		for (size_t j = 0; j < i; j++)
			if (t[j].name && strcmp(t[j].name, name) == 0)
				return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
						 "dispatch: %s \"%s\" is given twice", kind, name);
		if (!tensor)
			return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
					 "dispatch: %s \"%s\": tensor is NULL", kind, name);
		if (tensor->ctx != ctx)
			return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
					 "dispatch: %s \"%s\": the tensor belongs to another "
					 "context", kind, name);
		if (tensor->destroyed)
			return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
					 "dispatch: %s \"%s\": the tensor is destroyed", kind, name);
		if (tensor->constant)
			return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
					 "dispatch: %s \"%s\": a constant tensor cannot be "
					 "dispatched", kind, name);
		if (tensor->mapped)
			return wnnc_fail(ctx, WEBNN_STATUS_INVALID_STATE,
					 "dispatch: %s \"%s\": tensor %" PRIu32 " is mapped "
					 "(webnn_tensor_unmap it first)", kind, name, tensor->id);
		struct wnn_desc d = { .type = (enum wnn_dtype)tensor->desc.desc.data_type,
				      .rank = tensor->desc.desc.rank };
		memcpy(d.dims, tensor->desc.desc.shape, sizeof(uint32_t) * d.rank);
		if (!wnn_desc_equal(&d, &io[k].desc)) {
			char have[128], want[128];
			return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
					 "dispatch: %s \"%s\": tensor is %s, the graph expects %s",
					 kind, name, wnn_desc_str(&d, have, sizeof(have)),
					 wnn_desc_str(&io[k].desc, want, sizeof(want)));
		}
	}
	if (n != n_io) {
		for (size_t k = 0; k < n_io; k++) {
			size_t i = 0;
			while (i < n && strcmp(t[i].name ? t[i].name : "", io[k].name) != 0)
				i++;
			if (i == n)
				return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
						 "dispatch: graph %s \"%s\" is missing", kind,
						 io[k].name);
		}
	}
	return WEBNN_STATUS_OK;
}

static enum webnn_status dispatch_locked(struct webnn_context *ctx, struct webnn_graph *graph,
					 const struct webnn_named_tensor *inputs, size_t n_inputs,
					 const struct webnn_named_tensor *outputs,
					 size_t n_outputs)
{
	enum webnn_status s = wnnc_check_live(ctx, "dispatch");
	if (s != WEBNN_STATUS_OK)
		return s;
	if (!graph)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR, "dispatch: graph is NULL");
	if (graph->ctx != ctx)
		return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
				 "dispatch: the graph belongs to another context");
	if ((s = check_named(ctx, "input", inputs, n_inputs, graph->inputs, graph->n_inputs)) !=
		    WEBNN_STATUS_OK ||
	    (s = check_named(ctx, "output", outputs, n_outputs, graph->outputs,
			     graph->n_outputs)) != WEBNN_STATUS_OK)
		return s;
	size_t n_all = n_inputs + n_outputs;
	for (size_t i = 0; i < n_all; i++) {
		const struct webnn_named_tensor *a = i < n_inputs ? &inputs[i]
								 : &outputs[i - n_inputs];
		for (size_t j = i + 1; j < n_all; j++) {
			const struct webnn_named_tensor *c = j < n_inputs ? &inputs[j]
									 : &outputs[j - n_inputs];
			if (a->tensor == c->tensor)
				return wnnc_fail(ctx, WEBNN_STATUS_TYPE_ERROR,
						 "dispatch: the same tensor is given as %s \"%s\" "
						 "and %s \"%s\"",
						 i < n_inputs ? "input" : "output", a->name,
						 j < n_inputs ? "input" : "output", c->name);
		}
	}

	Webnn__Ipc__NamedTensor nt_stack[32];
	Webnn__Ipc__NamedTensor *ptr_stack_storage[32];
	Webnn__Ipc__NamedTensor *nt = n_all <= 32 ? nt_stack : calloc(n_all, sizeof(*nt));
	Webnn__Ipc__NamedTensor **ptrs = n_all <= 32 ? ptr_stack_storage
						     : calloc(n_all, sizeof(*ptrs));
	if (!nt || !ptrs) {
		if (nt != nt_stack)
			free(nt);
		if (ptrs != ptr_stack_storage)
			free(ptrs);
		return wnnc_fail(ctx, WEBNN_STATUS_NO_MEMORY, "dispatch: out of memory");
	}
	for (size_t i = 0; i < n_all; i++) {
		const struct webnn_named_tensor *a = i < n_inputs ? &inputs[i]
								 : &outputs[i - n_inputs];
		webnn__ipc__named_tensor__init(&nt[i]);
		nt[i].name = (char *)a->name;
		nt[i].tensor_id = a->tensor->id;
		ptrs[i] = &nt[i];
	}
	/* The outputs' pending asynchronous reads copy their bytes before the dispatch changes
	 * them. */
	for (size_t i = 0; i < n_outputs; i++)
		wnnc_wait_reads(ctx, outputs[i].tensor);
	Webnn__Ipc__Dispatch d = WEBNN__IPC__DISPATCH__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	d.context_id = ctx->context_id;
	d.graph_id = graph->id;
	d.n_inputs = n_inputs;
	d.inputs = ptrs;
	d.n_outputs = n_outputs;
	d.outputs = ptrs + n_inputs;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DISPATCH;
	m.dispatch = &d;
	s = wnnc_send(ctx, &m, NULL, 0);
	for (size_t i = 0; i < n_all; i++) /* their storage is the dispatch's until it finishes */
		(i < n_inputs ? inputs[i] : outputs[i - n_inputs]).tensor->last_use = ctx->sent_seq;
	if (nt != nt_stack)
		free(nt);
	if (ptrs != ptr_stack_storage)
		free(ptrs);
	return s;
}

enum webnn_status webnn_context_dispatch(struct webnn_context *ctx, struct webnn_graph *graph,
					 const struct webnn_named_tensor *inputs, size_t n_inputs,
					 const struct webnn_named_tensor *outputs,
					 size_t n_outputs)
{
	if (!ctx)
		return WEBNN_STATUS_TYPE_ERROR;
	wnnc_lock(ctx);
	enum webnn_status s = dispatch_locked(ctx, graph, inputs, n_inputs, outputs, n_outputs);
	wnnc_unlock(ctx);
	return s;
}
