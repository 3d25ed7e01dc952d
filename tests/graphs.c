/* Backend test helpers: small graphs imported into the IR, seeded data, running on a backend, tolerant compares. */
#include "tests/graphs.h"

#include "tools/common/compare.h"
#include "daemon/graph/passes.h"
#include "tests/test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tg_init(struct tg_graph *t)
{
	memset(t, 0, sizeof(*t));
	Webnn__Ipc__GraphInfo init = WEBNN__IPC__GRAPH_INFO__INIT;
	t->info = init;
}

void tg_free(struct tg_graph *t)
{
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		free(t->constant_copies[i]);
		t->constant_copies[i] = NULL;
	}
	graph_destroy(t->ir);
	t->ir = NULL;
}

uint32_t tg_next(const struct tg_graph *t)
{
	return (uint32_t)t->n_operands;
}

static uint32_t add_operand(struct tg_graph *t, Webnn__Ipc__OperandKind kind,
			    const struct wnn_desc *d)
{
	if (t->n_operands >= TG_MAX_OPERANDS) {
		fprintf(stderr, "tg: more than %d operands\n", TG_MAX_OPERANDS);
		abort();
	}
	uint32_t id = (uint32_t)t->n_operands++;
	Webnn__Ipc__Operand om = WEBNN__IPC__OPERAND__INIT;
	Webnn__Ipc__OperandDescriptor dm = WEBNN__IPC__OPERAND_DESCRIPTOR__INIT;
	t->descs[id] = *d;
	t->desc_msgs[id] = dm;
	wnn_desc_to_pb(&t->descs[id], &t->desc_msgs[id]);
	om.kind = kind;
	om.descriptor = &t->desc_msgs[id];
	t->operand_msgs[id] = om;
	t->operands[id] = &t->operand_msgs[id];
	return id;
}

static struct wnn_desc make_desc(enum wnn_dtype type, uint32_t rank, const uint32_t *dims)
{
	struct wnn_desc d = { .type = type, .rank = rank };
	if (rank > WNN_MAX_RANK) {
		fprintf(stderr, "tg: rank %u too large\n", rank);
		abort();
	}
	if (rank)
		memcpy(d.dims, dims, rank * sizeof(uint32_t));
	return d;
}

uint32_t tg_input(struct tg_graph *t, enum wnn_dtype type, uint32_t rank, const uint32_t *dims)
{
	struct wnn_desc d = make_desc(type, rank, dims);
	uint32_t id = add_operand(t, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, &d);
	snprintf(t->names[id], sizeof(t->names[id]), "in%u", id);
	t->operand_msgs[id].name = t->names[id];
	Webnn__Ipc__NamedOperand nm = WEBNN__IPC__NAMED_OPERAND__INIT;
	nm.name = t->names[id];
	nm.operand = id;
	t->named_msgs[t->n_inputs] = nm;
	t->in_named[t->n_inputs] = &t->named_msgs[t->n_inputs];
	t->input_ids[t->n_inputs++] = id;
	return id;
}

size_t tg_bytes(const struct wnn_desc *d)
{
	uint64_t b;
	return wnn_desc_bytes(d, &b) ? (size_t)b : 0;
}

uint32_t tg_constant(struct tg_graph *t, enum wnn_dtype type, uint32_t rank,
		     const uint32_t *dims, const void *data)
{
	struct wnn_desc d = make_desc(type, rank, dims);
	uint32_t id = add_operand(t, WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT, &d);
	size_t bytes = tg_bytes(&d);
	t->operand_msgs[id].has_constant_id = true;
	t->operand_msgs[id].constant_id = 1000 + id;
	t->constant_copies[id] = malloc(bytes ? bytes : 1);
	if (!t->constant_copies[id])
		abort();
	memcpy(t->constant_copies[id], data, bytes);
	t->constant_data[id] = t->constant_copies[id];
	return id;
}

void tg_set_op(Webnn__Ipc__Operation *op, enum wnn_op which, void *attrs)
{
	op->op = wnn_ops[which].id;
	op->attrs_case = (Webnn__Ipc__Operation__AttrsCase)wnn_ops[which].attrs;
	/* every member of the attrs union is a message pointer with the same representation */
	memcpy(&op->binary, &attrs, sizeof(attrs));
}

enum webnn_status tg_op(struct tg_graph *t, Webnn__Ipc__Operation *op, struct wnn_diag *diag)
{
	struct wnn_desc outs[WNN_MAX_OUTPUTS];
	uint32_t ids[WNN_MAX_OUTPUTS];
	int n_outs = 0;
	if (t->n_ops >= TG_MAX_OPS)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "tg: more than %d operations",
				    TG_MAX_OPS);
	/* output ids must name operands of the table (not yet defined) for the validator */
	int n_ids = wnn_op_outputs(op, ids, WNN_MAX_OUTPUTS);
	if (n_ids < 0 || t->n_operands + (size_t)n_ids > TG_MAX_OPERANDS)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "tg: bad output list or more than %d operands", TG_MAX_OPERANDS);
	for (int i = 0; i < n_ids; i++) {
		if (ids[i] != tg_next(t) + (uint32_t)i)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "tg: output %d has id %u, expected %u", i, ids[i],
					    tg_next(t) + (uint32_t)i);
		memset(&t->descs[ids[i]], 0, sizeof(t->descs[0]));
	}
	enum webnn_status st = wnn_op_infer(op, t->descs, t->n_operands + (size_t)n_ids, outs,
					    WNN_MAX_OUTPUTS, &n_outs, diag);
	if (st != WEBNN_STATUS_OK)
		return st;
	if (n_ids != n_outs)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "tg: %d output ids but %d descriptors", n_ids, n_outs);
	for (int i = 0; i < n_outs; i++) {
		add_operand(t, WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT, &outs[i]);
		t->last_outputs[i] = ids[i];
	}
	t->n_last_outputs = n_outs;
	t->ops[t->n_ops++] = op;
	return WEBNN_STATUS_OK;
}

void tg_output(struct tg_graph *t, uint32_t id)
{
	Webnn__Ipc__NamedOperand nm = WEBNN__IPC__NAMED_OPERAND__INIT;
	size_t k = TG_MAX_OPERANDS + t->n_outputs;
	snprintf(t->names[id], sizeof(t->names[id]), "out%u", id);
	nm.name = t->names[id];
	nm.operand = id;
	t->named_msgs[k] = nm;
	t->out_named[t->n_outputs] = &t->named_msgs[k];
	t->output_ids[t->n_outputs++] = id;
}

const struct graph_ir *tg_finish(struct tg_graph *t, struct wnn_diag *diag)
{
	struct wnn_desc check[TG_MAX_OPERANDS];
	if (t->n_outputs == 0)
		for (int i = 0; i < t->n_last_outputs; i++)
			tg_output(t, t->last_outputs[i]);
	t->info.n_operands = t->n_operands;
	t->info.operands = t->operands;
	t->info.n_operations = t->n_ops;
	t->info.operations = t->ops;
	t->info.n_inputs = t->n_inputs;
	t->info.inputs = t->in_named;
	t->info.n_outputs = t->n_outputs;
	t->info.outputs = t->out_named;
	if (wnn_graph_validate(&t->info, check, diag) != WEBNN_STATUS_OK)
		return NULL;
	t->src.info = &t->info;
	t->src.descs = t->descs;
	t->src.constant_data = t->constant_data;
	t->src.n_operands = t->n_operands;
	t->src.input_operands = t->input_ids;
	t->src.n_inputs = t->n_inputs;
	t->src.output_operands = t->output_ids;
	t->src.n_outputs = t->n_outputs;
	graph_destroy(t->ir);
	t->ir = NULL;
	if (graph_import(&t->src, &t->ir, diag) != WEBNN_STATUS_OK)
		return NULL;
	return t->ir;
}

enum webnn_status tg_optimize(struct graph_ir *g, const struct backend_impl *impl,
			      struct backend_context *ctx, struct wnn_diag *diag)
{
	struct graph_caps caps = { 0 };
	if (impl->caps)
		impl->caps(ctx, &caps);
	/* the daemon bounds the constants passes make by the client's budget; tests have none */
	caps.fold_max_bytes = UINT64_MAX;
	return graph_optimize(g, &caps, diag);
}

enum webnn_status tg_run(const struct backend_impl *impl, struct backend *be,
			 const struct graph_ir *g, const void *const *inputs,
			 void *const *outputs, struct wnn_diag *diag)
{
	struct backend *own = NULL;
	struct backend_context *ctx = NULL;
	struct backend_plan *plan = NULL;
	struct backend_tensor *ins[TG_MAX_OPERANDS] = { NULL }, *outs[TG_MAX_OPERANDS] = { NULL };
	struct backend_context_options opts = { 0 };
	enum webnn_status st;
	if (g->n_inputs > TG_MAX_OPERANDS || g->n_outputs > TG_MAX_OPERANDS)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "tg: too many inputs/outputs");
	if (!be) {
		st = impl->init(NULL, &own, diag);
		if (st != WEBNN_STATUS_OK)
			return st;
		be = own;
	}
	st = impl->context_create(be, &opts, &ctx, diag);
	for (size_t i = 0; st == WEBNN_STATUS_OK && i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		st = impl->tensor_create(ctx, d, &ins[i], diag);
		if (st == WEBNN_STATUS_OK)
			st = impl->tensor_write(ins[i], inputs[i], tg_bytes(d), diag);
	}
	for (size_t i = 0; st == WEBNN_STATUS_OK && i < g->n_outputs; i++)
		st = impl->tensor_create(ctx, &g->values[g->outputs[i]].desc, &outs[i], diag);
	/* Each backend optimises a private copy with its own caps; g stays as built. */
	struct graph_ir *copy = NULL;
	if (st == WEBNN_STATUS_OK && !g->optimized && !(copy = graph_clone(g)))
		st = wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "tg: out of memory");
	if (st == WEBNN_STATUS_OK && copy)
		st = tg_optimize(copy, impl, ctx, diag);
	if (st == WEBNN_STATUS_OK)
		st = impl->compile(ctx, copy ? copy : g, &plan, diag);
	if (st == WEBNN_STATUS_OK)
		st = impl->execute(plan, ins, outs, diag);
	for (size_t i = 0; st == WEBNN_STATUS_OK && i < g->n_outputs; i++)
		st = impl->tensor_read(outs[i], outputs[i],
				       tg_bytes(&g->values[g->outputs[i]].desc), diag);
	if (plan)
		impl->plan_destroy(plan);
	graph_destroy(copy);
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		if (ins[i])
			impl->tensor_destroy(ins[i]);
		if (outs[i])
			impl->tensor_destroy(outs[i]);
	}
	if (ctx)
		impl->context_destroy(ctx);
	if (own)
		impl->shutdown(own);
	return st;
}

struct backend *tg_cpu_team(int threads)
{
	bool set = !getenv("WEBNN_CPU_SERIAL_WORK");
	if (set)
		setenv("WEBNN_CPU_SERIAL_WORK", "0", 1);
	struct backend *be = NULL;
	struct wnn_diag diag = { 0 };
	struct backend_options opts = { .threads = threads };
	enum webnn_status st = backend_cpu.init(threads ? &opts : NULL, &be, &diag);
	if (set)
		unsetenv("WEBNN_CPU_SERIAL_WORK");
	ASSERT_MSG(st == WEBNN_STATUS_OK, "cpu backend: %s", diag.message);
	return be;
}

/* ---- data */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void tg_pack(void *dst, enum wnn_dtype t, const double *v, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		double x = v[i];
		switch (t) {
		case WNN_F32:
			((float *)dst)[i] = (float)x;
			break;
		case WNN_F16:
			((uint16_t *)dst)[i] = wnn_f32_to_f16((float)x);
			break;
		case WNN_I32:
			((int32_t *)dst)[i] = (int32_t)x;
			break;
		case WNN_U32:
			((uint32_t *)dst)[i] = (uint32_t)x;
			break;
		case WNN_I64:
			((int64_t *)dst)[i] = (int64_t)x;
			break;
		case WNN_U64:
			((uint64_t *)dst)[i] = (uint64_t)x;
			break;
		case WNN_I8:
			((int8_t *)dst)[i] = (int8_t)x;
			break;
		case WNN_U8:
			((uint8_t *)dst)[i] = (uint8_t)x;
			break;
		case WNN_I4:
		case WNN_U4:
			if (i == n - 1 && !(i & 1))
				((uint8_t *)dst)[i / 2] = 0; /* an odd count's last high nibble */
			wnn_nibble_set(dst, i, (int64_t)x);
			break;
		default:
			break;
		}
	}
}

double tg_get(const void *src, enum wnn_dtype t, uint64_t i)
{
	switch (t) {
	case WNN_F32:
		return ((const float *)src)[i];
	case WNN_F16:
		return wnn_f16_to_f32(((const uint16_t *)src)[i]);
	case WNN_I32:
		return ((const int32_t *)src)[i];
	case WNN_U32:
		return ((const uint32_t *)src)[i];
	case WNN_I64:
		return (double)((const int64_t *)src)[i];
	case WNN_U64:
		return (double)((const uint64_t *)src)[i];
	case WNN_I8:
		return ((const int8_t *)src)[i];
	case WNN_U8:
		return ((const uint8_t *)src)[i];
	case WNN_I4:
	case WNN_U4:
		return wnn_nibble_get(src, i, t);
	default:
		return 0;
	}
}

void tg_random(void *dst, enum wnn_dtype t, uint64_t count, uint64_t seed, double lo, double hi)
{
	uint64_t s = seed * 0x2545f4914f6cdd1dull + 1;
	bool flt = t == WNN_F32 || t == WNN_F16;
	if (wnn_dtype_is_4bit(t) && (count & 1))
		((uint8_t *)dst)[count / 2] = 0;
	for (uint64_t i = 0; i < count; i++) {
		double u = (double)(splitmix(&s) >> 11) / (double)(1ull << 53);
		double v = lo + u * (hi - lo);
		if (!flt) {
			v = floor(lo + u * (floor(hi) - ceil(lo) + 1));
			if (v > hi)
				v = floor(hi);
			if (v < lo)
				v = ceil(lo);
		}
		if (wnn_dtype_is_4bit(t))
			wnn_nibble_set(dst, i, (int64_t)v);
		else
			tg_pack((uint8_t *)dst + i * wnn_dtype_size(t), t, &v, 1);
	}
}

static bool element_ok(const void *actual, const void *expected, enum wnn_dtype t, uint64_t i,
		       double ulp, double atol, double rtol)
{
	size_t es = wnn_dtype_size(t);
	if (es && memcmp((const uint8_t *)actual + i * es, (const uint8_t *)expected + i * es,
			 es) == 0)
		return true;
	double a = tg_get(actual, t, i), e = tg_get(expected, t, i);
	if (t == WNN_F32 || t == WNN_F16) {
		if (isnan(a) || isnan(e))
			return isnan(a) && isnan(e);
		if (a == e)
			return true;
		double dist = t == WNN_F32 ? tool_f32_ulp_distance((float)a, (float)e)
					   : tool_f16_ulp_distance(((const uint16_t *)actual)[i],
								  ((const uint16_t *)expected)[i]);
		if (dist <= ulp)
			return true;
	}
	return fabs(a - e) <= atol + rtol * fabs(e);
}

bool tg_compare(const void *actual, const void *expected, enum wnn_dtype t, uint64_t n,
		double ulp, double atol, double rtol, char *msg, size_t len)
{
	for (uint64_t i = 0; i < n; i++)
		if (!element_ok(actual, expected, t, i, ulp, atol, rtol)) {
			if (msg && len)
				snprintf(msg, len, "%s element %llu: got %.9g, expected %.9g",
					 wnn_dtype_name(t), (unsigned long long)i,
					 tg_get(actual, t, i), tg_get(expected, t, i));
			return false;
		}
	return true;
}

bool tg_compare_values(const void *actual, enum wnn_dtype t, const double *expected, uint64_t n,
		       double ulp, double atol, char *msg, size_t len)
{
	uint64_t bytes = 0;
	wnn_dtype_bytes(t, n, &bytes);
	void *e = malloc(bytes ? bytes : 1);
	if (!e)
		abort();
	tg_pack(e, t, expected, n);
	bool ok = tg_compare(actual, e, t, n, ulp, atol, 0, msg, len);
	free(e);
	return ok;
}

/* ---- the builder that owns its operation messages */

struct tg_builder *tb_new(void)
{
	struct tg_builder *b = calloc(1, sizeof *b);
	ASSERT(b);
	tg_init(&b->t);
	b->seed = 1;
	return b;
}

void tb_free(struct tg_builder *b)
{
	tg_free(&b->t);
	free(b);
}

uint32_t tb_add(struct tg_builder *b, enum wnn_op which)
{
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	ASSERT_MSG(b->n < TG_MAX_OPS, "more than %d operations", TG_MAX_OPS);
	b->ops[b->n] = o;
	tg_set_op(&b->ops[b->n], which, &b->msgs[b->n]);
	uint32_t out = tg_next(&b->t);
	ASSERT_MSG(tg_op(&b->t, &b->ops[b->n], &b->diag) == WEBNN_STATUS_OK, "%s: %s",
		   wnn_ops[which].name, b->diag.message);
	b->n++;
	return out;
}

uint32_t tb_unary(struct tg_builder *b, enum wnn_op which, uint32_t x)
{
	Webnn__Ipc__ElementwiseUnary m = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	m.input = x;
	m.output = tg_next(&b->t);
	b->msgs[b->n].unary = m;
	return tb_add(b, which);
}

uint32_t tb_binary(struct tg_builder *b, enum wnn_op which, uint32_t x, uint32_t y)
{
	Webnn__Ipc__ElementwiseBinary m = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
	m.a = x;
	m.b = y;
	m.output = tg_next(&b->t);
	b->msgs[b->n].binary = m;
	return tb_add(b, which);
}

uint32_t tb_clamp(struct tg_builder *b, uint32_t x, double lo, double hi)
{
	Webnn__Ipc__Clamp m = WEBNN__IPC__CLAMP__INIT;
	Webnn__Ipc__Number num = WEBNN__IPC__NUMBER__INIT;
	num.value_case = WEBNN__IPC__NUMBER__VALUE_F;
	b->numbers[b->n][0] = b->numbers[b->n][1] = num;
	b->numbers[b->n][0].f = lo;
	b->numbers[b->n][1].f = hi;
	m.input = x;
	m.output = tg_next(&b->t);
	m.min_value = &b->numbers[b->n][0];
	m.max_value = &b->numbers[b->n][1];
	b->msgs[b->n].clamp = m;
	return tb_add(b, WNN_OP_CLAMP);
}
