/* Family-independent schema: attrs-kind table, the one resolver driver (infer, check, resolve), roles, shared checks. */
#include "proto/schema.h"

/* ------------------------------------------------------------------------------------------ */
/* The dispatch table. */

static const struct wnn_attrs_rules *const attrs_kinds[] = {
#define WNN_ATTRS_RULES_ROW_(K, tag, name) [WEBNN__IPC__OPERATION__ATTRS_##K] = &wnn_attrs_##name,
	WNN_ATTRS_KINDS(WNN_ATTRS_RULES_ROW_)
#undef WNN_ATTRS_RULES_ROW_
};

/* The table entry of an attrs kind, NULL when unknown. */
static const struct wnn_attrs_rules *wnn_attrs_kind_of(uint32_t attrs_case)
{
	if (attrs_case >= sizeof(attrs_kinds) / sizeof(attrs_kinds[0]))
		return NULL;
	return attrs_kinds[attrs_case];
}

/* ------------------------------------------------------------------------------------------ */
/* Operand enumeration. */

struct id_sink {
	uint32_t *ids;
	const char **roles;
	int max;
	int n;
};

static bool sink_put(void *ud, uint32_t id, const char *role)
{
	struct id_sink *s = ud;
	if (s->n >= s->max)
		return false;
	if (s->ids)
		s->ids[s->n] = id;
	if (s->roles)
		s->roles[s->n] = role;
	s->n++;
	return true;
}

int wnn_op_inputs(const Webnn__Ipc__Operation *op, uint32_t *ids, const char **roles, int max)
{
	struct id_sink s = { ids, roles, max, 0 };
	const struct wnn_attrs_rules *k = op ? wnn_attrs_kind_of((uint32_t)op->attrs_case) : NULL;
	if (!k || max < 0 || !k->inputs(op, sink_put, &s))
		return -1;
	return s.n;
}

int wnn_op_outputs(const Webnn__Ipc__Operation *op, uint32_t *ids, int max)
{
	const uint32_t *list;
	size_t n;
	const struct wnn_attrs_rules *k = op ? wnn_attrs_kind_of((uint32_t)op->attrs_case) : NULL;
	if (!k || max < 0 || !k->outputs(op, &list, &n) || n > (size_t)max)
		return -1;
	for (size_t i = 0; i < n; i++)
		ids[i] = list[i];
	return (int)n;
}

void wnn_op_roles(enum wnn_op op, wnn_role_fn fn, void *ud)
{
	if ((unsigned)op >= WNN_OP_COUNT || !fn)
		return;
	const struct wnn_op_info *info = &wnn_ops[op];
	const struct wnn_attrs_rules *k = wnn_attrs_kind_of(info->attrs);
	if (k)
		k->roles(op, info->dtypes, info->out == WNN_OUT_U8 ? WNN_DT_U8 : info->dtypes, fn,
			 ud);
}

/* ------------------------------------------------------------------------------------------ */
/* Checks shared by the families' resolvers. */

bool wnn_failf(struct wnn_resolving *c, const char *fmt, ...)
{
	char msg[WNN_MAX_DIAG];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->op->label && c->op->label[0])
		wnn_diag_set(c->diag, WEBNN_STATUS_TYPE_ERROR, "%s: %s (operator \"%s\")", c->name,
			     msg, c->op->label);
	else
		wnn_diag_set(c->diag, WEBNN_STATUS_TYPE_ERROR, "%s: %s", c->name, msg);
	return false;
}

/* "[1, 3, 224, 224]" */
const char *wnn_dims_str(const uint32_t *dims, size_t rank, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "[");
	for (size_t i = 0; i < rank && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, i ? ", %" PRIu32 : "%" PRIu32, dims[i]);
	if (o < len)
		snprintf(buf + o, len - o, "]");
	return buf;
}

const char *wnn_types_str(uint32_t mask, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int t = 1; t < WNN_DT_COUNT && o < len; t++)
		if (mask & WNN_DT_BIT(t))
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "",
					      wnn_dtype_name((enum wnn_dtype)t));
	return buf;
}

bool wnn_check_type(struct wnn_resolving *c, const struct wnn_desc *d, const char *role, uint32_t mask)
{
	char buf[96];
	if (mask & WNN_DT_BIT(d->type))
		return true;
	return wnn_failf(c, "%s data type %s is not allowed, expected %s", role,
		     wnn_dtype_name(d->type), wnn_types_str(mask, buf, sizeof(buf)));
}

bool wnn_check_same_type(struct wnn_resolving *c, const struct wnn_desc *d, const char *role,
			    const struct wnn_desc *ref, const char *ref_role)
{
	if (d->type == ref->type)
		return true;
	return wnn_failf(c, "%s data type %s does not match %s data type %s", role,
		     wnn_dtype_name(d->type), ref_role, wnn_dtype_name(ref->type));
}

bool wnn_check_rank(struct wnn_resolving *c, const struct wnn_desc *d, const char *role, uint32_t lo,
		       uint32_t hi)
{
	if (d->rank >= lo && d->rank <= hi)
		return true;
	if (lo == hi)
		return wnn_failf(c, "%s rank is %" PRIu32 ", expected %" PRIu32, role, d->rank, lo);
	if (hi >= WNN_MAX_RANK)
		return wnn_failf(c, "%s rank is %" PRIu32 ", expected at least %" PRIu32, role, d->rank,
			     lo);
	return wnn_failf(c, "%s rank is %" PRIu32 ", expected %" PRIu32 " to %" PRIu32, role, d->rank,
		     lo, hi);
}

/* d's shape must equal want[0..n); what_want says where want comes from. */
bool wnn_check_shape(struct wnn_resolving *c, const struct wnn_desc *d, const char *role,
			const uint64_t *want, uint32_t n, const char *what_want)
{
	bool ok = d->rank == n;
	for (uint32_t i = 0; ok && i < n; i++)
		ok = d->dims[i] == want[i];
	if (ok)
		return true;
	char a[96], b[128];
	size_t o = (size_t)snprintf(b, sizeof(b), "[");
	for (uint32_t i = 0; i < n && o < sizeof(b); i++)
		o += (size_t)snprintf(b + o, sizeof(b) - o, i ? ", %" PRIu64 : "%" PRIu64, want[i]);
	if (o < sizeof(b))
		snprintf(b + o, sizeof(b) - o, "]");
	return wnn_failf(c, "%s shape %s is not %s (%s)", role, SHAPE(d, a), b, what_want);
}

bool wnn_check_axis(struct wnn_resolving *c, uint32_t axis, uint32_t rank, const char *what)
{
	if (axis < rank)
		return true;
	return wnn_failf(c, "%s %" PRIu32 " is out of range for rank %" PRIu32, what, axis, rank);
}

/* Spec axes rule: no duplicates, every item in [0, rank). Sets *mask bit per axis. */
bool wnn_check_axes(struct wnn_resolving *c, const uint32_t *axes, size_t n, uint32_t rank,
		       const char *what, uint32_t *mask)
{
	*mask = 0;
	for (size_t i = 0; i < n; i++) {
		if (axes[i] >= rank)
			return wnn_failf(c, "%s item %" PRIu32 " is out of range for rank %" PRIu32, what,
				     axes[i], rank);
		if (*mask & (1u << axes[i]))
			return wnn_failf(c, "%s contain the axis %" PRIu32 " more than once", what,
				     axes[i]);
		*mask |= 1u << axes[i];
	}
	return true;
}

struct wnn_desc *wnn_result(struct wnn_resolving *c, enum wnn_dtype type, uint32_t rank)
{
	struct wnn_desc *r = &c->res[c->n_res++];
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->rank = rank;
	return r;
}

struct wnn_desc *wnn_result_copy(struct wnn_resolving *c, const struct wnn_desc *d)
{
	struct wnn_desc *r = &c->res[c->n_res++];
	*r = *d;
	return r;
}

/* Sets a result dimension from a 64-bit value, failing when it is not a valid dimension. */
bool wnn_set_dim(struct wnn_resolving *c, struct wnn_desc *r, uint32_t i, int64_t v, const char *what)
{
	if (v < 1 || (uint64_t)v > MAX_DIM)
		return wnn_failf(c, "%s is %" PRId64 ", expected a valid dimension (1 to %" PRIu64 ")",
			     what, v, MAX_DIM);
	r->dims[i] = (uint32_t)v;
	return true;
}

/* The bidirectional broadcast shape of a and b (rank and dims of out): the one broadcasting
 * rule, wnn_broadcast's. False when they are not broadcastable. */
bool wnn_bcast_bi(const struct wnn_desc *a, const struct wnn_desc *b, struct wnn_desc *out)
{
	const struct wnn_desc *in[2] = { a, b };
	struct wnn_bcast bc;
	struct wnn_diag ignored = { 0 };
	if (wnn_broadcast(in, 2, &bc, "", &ignored) != WEBNN_STATUS_OK)
		return false;
	out->rank = bc.rank;
	memcpy(out->dims, bc.dims, sizeof(out->dims));
	return true;
}

/* Whether from[rf] broadcasts unidirectionally to to[rt] (wnn_bcast_strides' rule). */
bool wnn_bcast_uni(const uint32_t *from, uint32_t rf, const uint32_t *to, uint32_t rt)
{
	struct wnn_desc d = { .type = WNN_F32, .rank = rf };
	uint64_t strides[WNN_MAX_RANK];
	if (rf > WNN_MAX_RANK || rt > WNN_MAX_RANK)
		return false;
	memcpy(d.dims, from, rf * sizeof(uint32_t));
	return wnn_bcast_strides(&d, rt, to, strides);
}

bool wnn_check_enum(struct wnn_resolving *c, int v, int max, const char *what)
{
	if (v >= 0 && v <= max)
		return true;
	return wnn_failf(c, "%s value %d is not valid", what, v);
}

/* ------------------------------------------------------------------------------------------ */
/* Convolution and pooling. */

int64_t wnn_floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

int64_t wnn_ceil_div(int64_t a, int64_t b)
{
	return a >= 0 ? (a + b - 1) / b : -(-a / b);
}

/* Check of an optional list option: absent, or exactly `want` values (none 0 when nonzero).
 * Its default is applied where the resolvers read it (wnn_list_or). */
bool wnn_check_list(struct wnn_resolving *c, const uint32_t *v, size_t n, size_t want, bool nonzero,
		    const char *what)
{
	char buf[96];
	if (n == 0)
		return true;
	if (n != want)
		return wnn_failf(c, "%s has %zu values, expected %zu", what, n, want);
	for (size_t i = 0; i < want; i++)
		if (nonzero && v[i] == 0)
			return wnn_failf(c, "%s %s must not contain 0", what, LIST(v, n, buf));
	return true;
}

/* Spec "calculate conv output size" numerator, before dividing by the stride. */
int64_t wnn_conv_span(uint32_t in, uint32_t filter, uint32_t pb, uint32_t pe, uint32_t dil)
{
	int64_t eff = ((int64_t)filter - 1) * dil + 1;
	return (int64_t)in - eff + pb + pe;
}

/* ---- layout helpers the resolvers share */

/* Shapes listed as "n, c, y, x" strides of a 4-D tensor in either layout. */
void wnn_spatial_strides(const struct wnn_desc *d, bool nhwc, uint64_t *s)
{
	uint64_t cs[4];
	wnn_shape_strides(4, d->dims, cs);
	if (nhwc) {
		s[0] = cs[0], s[1] = cs[3], s[2] = cs[1], s[3] = cs[2];
	} else {
		memcpy(s, cs, sizeof(cs));
	}
}

/* The (n, c, h, w) sizes of a 4-D input in either layout. */
void wnn_nchw_dims(const struct wnn_desc *d, bool nhwc, uint32_t *n, uint32_t *c, uint32_t *h,
		      uint32_t *w)
{
	*n = d->dims[0];
	if (nhwc)
		*h = d->dims[1], *w = d->dims[2], *c = d->dims[3];
	else
		*c = d->dims[1], *h = d->dims[2], *w = d->dims[3];
}

/* An axes option with its default applied: the given axes (at most WNN_MAX_RANK), else every
 * axis from `first` to rank - 1 (reductions: 0, layerNormalization: 1). Returns the count. */
uint32_t wnn_axes_or(bool given, const uint32_t *axes, size_t n, uint32_t first, uint32_t rank,
		     uint32_t *out)
{
	uint32_t k = 0;
	if (given) {
		for (size_t i = 0; i < n && k < WNN_MAX_RANK; i++)
			out[k++] = axes[i];
		return k;
	}
	for (uint32_t i = first; i < rank; i++)
		out[k++] = i;
	return k;
}

/* An optional list option with its default applied: v when given (n == want), else dflt. */
void wnn_list_or(size_t n, const uint32_t *v, size_t want, uint32_t dflt, uint32_t *out)
{
	for (size_t i = 0; i < want; i++)
		out[i] = n ? v[i] : dflt;
}

/* A [outer, axis, inner] view of a shape around one axis. */
void wnn_axis_view(const struct wnn_desc *d, uint32_t axis, uint64_t *outer, uint64_t *size,
		      uint64_t *inner)
{
	*outer = wnn_shape_count(axis, d->dims);
	*size = d->dims[axis];
	*inner = wnn_shape_count(d->rank - axis - 1, d->dims + axis + 1);
}

/* ==== operators beyond the first CNN set */

/* Splits `in` into kept axes (input order) and reduced axes (order of `axes`). */
enum webnn_status wnn_make_reduction(const struct wnn_desc *in, const uint32_t *axes,
					size_t n_axes, struct wnn_reduction *r,
					const char *name, struct wnn_diag *diag)
{
	uint64_t cs[WNN_MAX_RANK];
	uint32_t mask = 0;
	memset(r, 0, sizeof(*r));
	wnn_shape_strides(in->rank, in->dims, cs);
	if (n_axes > in->rank)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: %zu axes for an input of rank %u", name, n_axes, in->rank);
	for (size_t i = 0; i < n_axes; i++) {
		uint32_t a = axes[i];
		if (a >= in->rank || (mask & (1u << a)))
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: axes item %u is out of range or repeated", name, a);
		mask |= 1u << a;
		r->red_dims[r->red_rank] = in->dims[a];
		r->red_strides[r->red_rank++] = cs[a];
	}
	for (uint32_t a = 0; a < in->rank; a++) {
		if (mask & (1u << a))
			continue;
		r->kept_dims[r->kept_rank] = in->dims[a];
		r->kept_strides[r->kept_rank++] = cs[a];
	}
	r->kept_count = wnn_shape_count(r->kept_rank, r->kept_dims);
	r->red_count = wnn_shape_count(r->red_rank, r->red_dims);
	return WEBNN_STATUS_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* wnn_op_infer. */

/* ------------------------------------------------------------------------------------------ */
/* Entry point. */

static bool check_input(void *ud, uint32_t id, const char *role)
{
	struct wnn_resolving *c = ud;
	if (id >= c->n_operands)
		return wnn_failf(c, "%s operand id %" PRIu32 " is out of range (%zu operands)", role, id,
			     c->n_operands);
	const struct wnn_desc *d = &c->operands[id];
	if (d->type == WNN_DT_NONE)
		return wnn_failf(c, "%s operand %" PRIu32 " is used before it is defined", role, id);
	bool valid = wnn_dtype_valid(d->type) && d->rank <= WNN_MAX_RANK;
	for (uint32_t i = 0; valid && i < d->rank; i++)
		valid = d->dims[i] != 0 && d->dims[i] <= MAX_DIM;
	if (!valid) /* the size arithmetic below relies on valid dimensions */
		return wnn_failf(c, "%s operand %" PRIu32 " has an invalid descriptor", role, id);
	return true;
}

static const char *family_name(uint32_t family)
{
	const ProtobufCFieldDescriptor *f =
		protobuf_c_message_descriptor_get_field(&webnn__ipc__operation__descriptor, family);
	return f && family >= WEBNN__IPC__OPERATION__ATTRS_BINARY ? f->name : "none";
}

/* Checks the operation's wiring before its family looks at it: attrs member, input ids defined
 * and valid, output ids in range. Returns the output ids through out_ids/n_out_ids. */
static bool check_wiring(struct wnn_resolving *c, const struct wnn_attrs_rules *k,
			 const uint32_t **out_ids, size_t *n_out_ids)
{
	const Webnn__Ipc__Operation *op = c->op;
	if ((uint32_t)op->attrs_case != wnn_ops[c->kind].attrs || !k)
		return wnn_failf(c, "operation carries %s attributes, expected %s",
				 family_name((uint32_t)op->attrs_case),
				 family_name(wnn_ops[c->kind].attrs));
	if (!k->inputs(op, check_input, c))
		return wnn_failf(c, "operation attributes are missing");
	if (!k->outputs(op, out_ids, n_out_ids))
		return wnn_failf(c, "operation attributes are missing");
	for (size_t i = 0; i < *n_out_ids; i++)
		if ((*out_ids)[i] >= c->n_operands)
			return wnn_failf(c, "output operand id %" PRIu32
					 " is out of range (%zu operands)", (*out_ids)[i],
					 c->n_operands);
	return true;
}

/* Checks the computed outputs against the operation's output list and the caller's room. */
static bool check_results(struct wnn_resolving *c, size_t n_out_ids, int max_outs,
			  const struct wnn_desc *outs)
{
	if ((size_t)c->n_res != n_out_ids)
		return wnn_failf(c, "operation lists %zu output operands, the operator produces %d",
				 n_out_ids, c->n_res);
	for (int i = 0; i < c->n_res; i++) {
		char what[64];
		snprintf(what, sizeof(what), "%s: output %d", c->name, i);
		if (!wnn_desc_validate(&c->res[i], what, c->diag))
			return false;
	}
	if (c->n_res > max_outs || !outs)
		return wnn_failf(c, "%d outputs do not fit the caller's room for %d", c->n_res,
				 max_outs);
	return true;
}

/* The declared output descriptors (in operands, or given) against the computed ones: the one
 * place where a graph's declared outputs meet the operator's rule. */
static bool check_declared(struct wnn_resolving *c, const uint32_t *out_ids,
			   const struct wnn_desc *declared, bool in_operands)
{
	for (int i = 0; i < c->n_res; i++) {
		const struct wnn_desc *d = in_operands ? &c->operands[out_ids[i]] : &declared[i];
		if (wnn_desc_equal(d, &c->res[i]))
			continue;
		char role[24], a[128], b[128];
		if (c->n_res > 1)
			snprintf(role, sizeof(role), "output %d", i);
		else
			snprintf(role, sizeof(role), "output");
		return wnn_failf(c, "%s (operand %" PRIu32 ") is %s, expected %s", role, out_ids[i],
				 wnn_desc_str(d, a, sizeof(a)), wnn_desc_str(&c->res[i], b, sizeof(b)));
	}
	return true;
}

/* Runs the operation's resolver once: wiring, every spec rule, the resolved attributes into
 * *attrs and the output descriptors into outs; then, when declared descriptors are given (or
 * in_operands: the operands at the output ids), compares them with the computed ones. */
static enum webnn_status run_resolver(const Webnn__Ipc__Operation *op,
				      const struct wnn_desc *operands, size_t n_operands,
				      const struct wnn_desc *declared, bool in_operands,
				      bool for_kernels, union wnn_attrs *attrs, struct wnn_desc *outs,
				      int max_outs, int *n_outs, enum wnn_op *kind,
				      struct wnn_diag *diag)
{
	struct wnn_resolving c;
	if (n_outs)
		*n_outs = 0;
	if (kind)
		*kind = WNN_OP_COUNT;
	if (!op)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "operation: missing operation");
	c.kind = wnn_op_from_id(op->op);
	if (c.kind == WNN_OP_COUNT)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "operation: unknown operator id %" PRIu32, op->op);
	if (kind)
		*kind = c.kind;
	c.op = op;
	c.name = wnn_ops[c.kind].name;
	c.operands = operands;
	c.n_operands = operands ? n_operands : 0;
	c.diag = diag;
	c.n_res = 0;
	c.for_kernels = for_kernels;
	memset(attrs, 0, sizeof(*attrs));
	const struct wnn_attrs_rules *k = wnn_attrs_kind_of((uint32_t)op->attrs_case);
	const uint32_t *out_ids;
	size_t n_out_ids;
	if (!check_wiring(&c, k, &out_ids, &n_out_ids))
		return WEBNN_STATUS_TYPE_ERROR;
	if (!k->resolve(&c, attrs) || !check_results(&c, n_out_ids, max_outs, outs) ||
	    ((declared || in_operands) && !check_declared(&c, out_ids, declared, in_operands)))
		return WEBNN_STATUS_TYPE_ERROR;
	memcpy(outs, c.res, sizeof(c.res[0]) * (size_t)c.n_res);
	if (n_outs)
		*n_outs = c.n_res;
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_op_infer(const Webnn__Ipc__Operation *op, const struct wnn_desc *operands,
			       size_t n_operands, struct wnn_desc *outs, int max_outs,
			       int *n_outs, struct wnn_diag *diag)
{
	union wnn_attrs attrs;
	return run_resolver(op, operands, n_operands, NULL, false, false, &attrs, outs, max_outs,
			    n_outs, NULL, diag);
}

enum webnn_status wnn_op_check(const Webnn__Ipc__Operation *op, const struct wnn_desc *operands,
			       size_t n_operands, const struct wnn_desc *declared,
			       struct wnn_desc *outs, int max_outs, int *n_outs,
			       struct wnn_diag *diag)
{
	union wnn_attrs attrs;
	return run_resolver(op, operands, n_operands, declared, false, false, &attrs, outs,
			    max_outs, n_outs, NULL, diag);
}

enum webnn_status wnn_resolve(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, enum wnn_op *kind, union wnn_attrs *attrs,
			      struct wnn_diag *diag)
{
	struct wnn_desc outs[WNN_MAX_OUTPUTS];
	return run_resolver(op, descs, n_descs, NULL, true, true, attrs, outs, WNN_MAX_OUTPUTS,
			    NULL, kind, diag);
}
