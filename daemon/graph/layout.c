/* Layout assignment: conv2d/convTranspose2d/pool2d rewritten to the backend's layout, with transposes only where the client's layout is read. */
#include "daemon/graph/passes.h"

#include <stdlib.h>
#include <string.h>

/*
 * One forward sweep rebuilds the node array. A conv2d, convTranspose2d or pool2d in the other
 * layout reads its input through a transpose into the backend's layout and writes its output in
 * that layout; the client-layout value is only made (by a transpose back, writing the original
 * value id) when something that cares about layout reads it or it is a graph output.
 * Layout-agnostic nodes (unary, clamp, binary, concat and batchNormalization with their axis
 * remapped; resample2d over the spatial axes and reductions that keep their dimensions, with
 * their axes remapped) whose inputs are in the backend's layout run in it too. So conv -> relu -> conv -> pool gets one transpose after
 * the graph input and one before the graph output, and no transpose pair ever needs cancelling.
 *
 * A binary node may read one operand only in the backend's layout and the other (same shape)
 * only in the client's: one of them needs a transpose whichever layout it runs in, see
 * binary_agnostic for the choice. When it runs in the backend's layout, the other operand's
 * transpose is placed right after that operand is defined, not just before the binary node, so
 * that a conv2d in between can still take the binary node into its epilogue (which reads the
 * operand where the conv2d runs).
 */

struct layout_pass {
	struct graph_ir *g;
	struct wnn_diag *diag;
	bool nhwc;               /* the backend's layout */
	uint32_t to_target[4];   /* client layout -> backend layout */
	uint32_t from_target[4]; /* backend layout -> client layout */
	uint32_t n_orig;         /* values that existed before the pass */
	uint32_t *alt;           /* per original value: the value holding it in the backend's
				    layout, or GRAPH_NONE */
	bool *have;              /* per original value: materialised in the client's layout */
	/* Per original value, from the graph as it was: certain to be needed in the client's
	 * layout (a graph output, or read by a node that never runs in the backend's one) ... */
	bool *client_bound;
	/* ... or certain to be needed in the backend's layout (the input of a rewritten conv2d or
	 * pool2d): a transpose made for it anyway costs nothing more. */
	bool *target_bound;
	uint32_t *made_at;       /* per original value: the new node defining its client form */
	uint32_t *new_index;     /* per old node placed so far: its index in the new array */
	uint32_t n_placed;
};

static bool is_spatial(enum wnn_op op)
{
	return op == WNN_OP_CONV2D || op == WNN_OP_CONV_TRANSPOSE2D ||
	       wnn_ops[op].attrs == WNN_ATTRS_POOL2D;
}

static bool spatial_nhwc(const struct graph_node *n)
{
	if (n->op == WNN_OP_CONV2D)
		return n->attrs.conv2d.nhwc;
	if (n->op == WNN_OP_CONV_TRANSPOSE2D)
		return n->attrs.conv_transpose2d.nhwc;
	return n->attrs.pool2d.nhwc;
}

static void permute_desc(const struct wnn_desc *in, const uint32_t *perm, struct wnn_desc *out)
{
	*out = *in;
	for (uint32_t i = 0; i < in->rank; i++)
		out->dims[i] = in->dims[perm[i]];
}

/* The (n, c, y, x) element strides of a 4-D tensor in either layout, as the conv2d resolver. */
static void spatial_strides(const struct wnn_desc *d, bool nhwc, uint64_t *s)
{
	uint64_t cs[4];
	wnn_shape_strides(4, d->dims, cs);
	if (nhwc) {
		s[0] = cs[0], s[1] = cs[3], s[2] = cs[1], s[3] = cs[2];
	} else {
		memcpy(s, cs, sizeof(cs));
	}
}

static void transpose_attrs(const struct wnn_desc *in, const uint32_t *perm, uint32_t input,
			    uint32_t output, union wnn_attrs *a)
{
	memset(a, 0, sizeof *a);
	struct wnn_transpose_attrs *t = &a->transpose;
	uint64_t cs[WNN_MAX_RANK];
	wnn_shape_strides(in->rank, in->dims, cs);
	t->input = input;
	t->output = output;
	t->type = in->type;
	t->rank = in->rank;
	for (uint32_t i = 0; i < in->rank; i++) {
		t->perm[i] = perm[i];
		t->out_dims[i] = in->dims[perm[i]];
		t->in_strides[i] = cs[perm[i]];
	}
	t->count = wnn_shape_count(in->rank, in->dims);
}

/* Appends transpose(in) by perm writing value out (GRAPH_NONE: a new value); returns out. */
static uint32_t emit_transpose(struct layout_pass *p, uint32_t in, const uint32_t *perm,
			       uint32_t out)
{
	struct wnn_desc d;
	permute_desc(&p->g->values[in].desc, perm, &d);
	if (out == GRAPH_NONE)
		out = graph_add_value(p->g, &d, GRAPH_VALUE_INTERMEDIATE, p->diag);
	if (out == GRAPH_NONE)
		return GRAPH_NONE;
	union wnn_attrs a;
	transpose_attrs(&p->g->values[in].desc, perm, in, out, &a);
	uint32_t node = graph_add_node(p->g, WNN_OP_TRANSPOSE, &a, &in, 1, &out, 1, p->diag);
	if (node == GRAPH_NONE)
		return GRAPH_NONE;
	if (out < p->n_orig)
		p->made_at[out] = node;
	return out;
}

/* Moves the last node to index pos (nodes from pos on move one place later). */
static void hoist_last(struct layout_pass *p, uint32_t pos)
{
	struct graph_ir *g = p->g;
	uint32_t last = g->n_nodes - 1;
	struct graph_node n = g->nodes[last];
	memmove(g->nodes + pos + 1, g->nodes + pos, (last - pos) * sizeof *g->nodes);
	g->nodes[pos] = n;
	for (uint32_t i = 0; i < p->n_placed; i++)
		p->new_index[i] += p->new_index[i] >= pos;
	for (uint32_t v = 0; v < p->n_orig; v++)
		if (p->made_at[v] != GRAPH_NONE && p->made_at[v] >= pos)
			p->made_at[v]++;
}

/* A constant (rank <= 4, viewed with leading ones) transposed at build time: a new constant. */
static uint32_t constant_in_target(struct layout_pass *p, uint32_t v)
{
	struct wnn_desc d4 = p->g->values[v].desc, d;
	uint32_t pad = 4 - d4.rank;
	memmove(d4.dims + pad, d4.dims, d4.rank * sizeof *d4.dims);
	for (uint32_t i = 0; i < pad; i++)
		d4.dims[i] = 1;
	d4.rank = 4;
	permute_desc(&d4, p->to_target, &d);
	union wnn_attrs a;
	transpose_attrs(&d4, p->to_target, v, v, &a);
	uint64_t bytes = 0, size = wnn_dtype_size(d.type);
	wnn_desc_bytes(&d, &bytes);
	unsigned char *dst = malloc(bytes ? bytes : 1);
	if (!dst || !graph_own(p->g, dst)) {
		wnn_diag_set(p->diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
		return GRAPH_NONE;
	}
	const unsigned char *src = p->g->values[v].data;
	for (uint64_t i = 0; i < a.transpose.count; i++)
		memcpy(dst + i * size,
		       src + wnn_shape_offset(4, d.dims, a.transpose.in_strides, i) * size, size);
	uint32_t c = graph_add_value(p->g, &d, GRAPH_VALUE_CONSTANT, p->diag);
	if (c != GRAPH_NONE) {
		p->g->values[c].data = dst;
		p->g->folded_bytes += bytes;
	}
	return c;
}

/* The value holding v in the backend's layout, made once. */
static uint32_t in_target(struct layout_pass *p, uint32_t v)
{
	if (v < p->n_orig && p->alt[v] != GRAPH_NONE)
		return p->alt[v];
	uint32_t t = p->g->values[v].kind == GRAPH_VALUE_CONSTANT
			     ? constant_in_target(p, v)
			     : emit_transpose(p, v, p->to_target, GRAPH_NONE);
	if (t != GRAPH_NONE && v < p->n_orig && p->g->values[v].kind != GRAPH_VALUE_CONSTANT)
		p->alt[v] = t;
	return t;
}

/* Makes v in the client's layout (writing its own id) if only its backend form exists. */
static bool materialise(struct layout_pass *p, uint32_t v)
{
	if (v >= p->n_orig || p->have[v])
		return true;
	p->have[v] = true;
	return emit_transpose(p, p->alt[v], p->from_target, v) != GRAPH_NONE;
}

/* Appends old node o with the given operands and attrs, taking over its label and pass state. */
static uint32_t move_node(struct layout_pass *p, struct graph_node *o, const uint32_t *inputs,
			  const uint32_t *outputs, const union wnn_attrs *attrs)
{
	uint32_t i = graph_add_node(p->g, o->op, attrs, inputs, o->n_inputs, outputs, o->n_outputs,
				    p->diag);
	if (i == GRAPH_NONE)
		return GRAPH_NONE;
	struct graph_node *n = &p->g->nodes[i];
	for (uint32_t k = 0; k < n->n_outputs; k++)
		if (n->outputs[k] < p->n_orig)
			p->made_at[n->outputs[k]] = i;
	n->label = o->label;
	o->label = NULL;
	n->state = o->state;
	n->fused_into = o->fused_into;
	n->epilogue = o->epilogue;
	n->chain = o->chain;
	o->chain.members = NULL;
	n->slice = o->slice;
	n->qweight = o->qweight;
	n->qdq = o->qdq;
	graph_node_repoint(n);
	return i;
}

/* A new value for output v of a rewritten node, in the backend's layout. */
static uint32_t target_output(struct layout_pass *p, uint32_t v)
{
	struct wnn_desc d;
	permute_desc(&p->g->values[v].desc, p->to_target, &d);
	uint32_t t = graph_add_value(p->g, &d, GRAPH_VALUE_INTERMEDIATE, p->diag);
	if (t != GRAPH_NONE) {
		p->alt[v] = t;
		p->have[v] = false;
	}
	return t;
}

/* conv2d / convTranspose2d / pool2d in the client's other layout: its input (operand 0) and
 * output switch; filters are read through their own strides whatever the input layout. */
static uint32_t rewrite_spatial(struct layout_pass *p, struct graph_node *o)
{
	uint32_t in[3], out; /* conv2d, convTranspose2d: input, filter, bias */
	if (o->n_inputs > 3) {
		wnn_diag_set(p->diag, WEBNN_STATUS_OPERATION_ERROR, "graph: %s reads %u operands",
			     wnn_ops[o->op].name, o->n_inputs);
		return GRAPH_NONE;
	}
	memcpy(in, o->inputs, o->n_inputs * sizeof *in);
	if ((in[0] = in_target(p, in[0])) == GRAPH_NONE ||
	    (out = target_output(p, o->outputs[0])) == GRAPH_NONE)
		return GRAPH_NONE;
	union wnn_attrs a = o->attrs;
	const struct wnn_desc *id = &p->g->values[in[0]].desc, *od = &p->g->values[out].desc;
	if (o->op == WNN_OP_CONV2D) {
		a.conv2d.input = in[0];
		a.conv2d.output = out;
		a.conv2d.nhwc = p->nhwc;
		spatial_strides(id, p->nhwc, a.conv2d.in_stride);
		spatial_strides(od, p->nhwc, a.conv2d.out_stride);
	} else if (o->op == WNN_OP_CONV_TRANSPOSE2D) {
		a.conv_transpose2d.input = in[0];
		a.conv_transpose2d.output = out;
		a.conv_transpose2d.nhwc = p->nhwc;
		spatial_strides(id, p->nhwc, a.conv_transpose2d.in_stride);
		spatial_strides(od, p->nhwc, a.conv_transpose2d.out_stride);
	} else {
		a.pool2d.input = in[0];
		a.pool2d.output = out;
		a.pool2d.nhwc = p->nhwc;
		spatial_strides(id, p->nhwc, a.pool2d.in_stride);
		spatial_strides(od, p->nhwc, a.pool2d.out_stride);
	}
	return move_node(p, o, in, &out, &a);
}

static bool has_alt(const struct layout_pass *p, uint32_t v)
{
	return v < p->n_orig && p->alt[v] != GRAPH_NONE;
}

/* Whether v exists only in the backend's layout so far: running its reader in that layout
 * saves a transpose (a value also in the client's layout gains nothing from it). */
static bool only_target(const struct layout_pass *p, uint32_t v)
{
	return has_alt(p, v) && !p->have[v];
}

static bool one_element(const struct graph_value *v)
{
	uint64_t count = 0;
	return wnn_desc_count(&v->desc, &count) && count == 1;
}

/*
 * Whether a binary node runs in the backend's layout. Its operands must be one element, a
 * constant (transposed at build time), or 4-D like the output (so a broadcast, such as a
 * squeeze-and-excitation gate [1,C,1,1] times the activation, means the same once both move to
 * the backend's layout), and at least one must exist only in the backend's layout
 * (otherwise the client's layout costs nothing). Each layout then costs the transposes of
 * its missing operand forms: in the backend's layout, one per operand only in the client's
 * (unless a rewritten conv2d/pool2d will need that transpose anyway, or one exists already);
 * in the client's, one per operand only in the backend's (unless the client's form will be
 * needed anyway: a graph output, or a reader that only runs in the client's layout). The
 * cheaper layout wins; a tie goes to the backend's layout, because there the node's result
 * stays in the layout the next conv2d reads, the transpose back is only deferred to where the
 * client's layout is needed (possibly never), and the conv2d that made the operand can take
 * the node into its epilogue: conv -> add(residual input) -> relu in NCHW transposes the
 * conv's input, the residual and the result, and runs as one kernel.
 */
static bool binary_agnostic(const struct layout_pass *p, const struct graph_node *o)
{
	uint32_t only = 0, cost_target = 0, cost_client = 0;
	for (uint32_t k = 0; k < 2; k++) {
		uint32_t v = o->inputs[k];
		const struct graph_value *val = &p->g->values[v];
		if (has_alt(p, v)) {
			/* any 4-D operand: permuted with the output, it broadcasts the same */
			if (only_target(p, v)) {
				only++;
				cost_client += !p->client_bound[v];
			}
		} else if (one_element(val) ||
			   (val->kind == GRAPH_VALUE_CONSTANT && val->desc.rank <= 4)) {
			continue;
		} else if (val->desc.rank == 4) {
			cost_target += !p->target_bound[v];
		} else {
			return false;
		}
	}
	return only && cost_target <= cost_client;
}

/* The backend-layout position of client-layout axis a. */
static uint32_t target_axis(const struct layout_pass *p, uint32_t a)
{
	uint32_t t = 0;
	while (t < 4 && p->to_target[t] != a)
		t++;
	return t;
}

static bool agnostic(const struct layout_pass *p, const struct graph_node *o)
{
	if (o->n_outputs != 1 || p->g->values[o->outputs[0]].desc.rank != 4)
		return false;
	switch (wnn_ops[o->op].attrs) {
	case WNN_ATTRS_UNARY:
	case WNN_ATTRS_CLAMP:
		return only_target(p, o->inputs[0]);
	case WNN_ATTRS_BINARY:
		return binary_agnostic(p, o);
	case WNN_ATTRS_BATCH_NORMALIZATION:
		/* per-channel constants along an axis that moves with the layout */
		return only_target(p, o->inputs[0]);
	case WNN_ATTRS_RESAMPLE2D: {
		/* the resized axes must stay two neighbours in order (resample2d's rule) */
		uint32_t t0 = target_axis(p, o->attrs.resample.axes[0]),
			 t1 = target_axis(p, o->attrs.resample.axes[1]);
		return t1 == t0 + 1 && only_target(p, o->inputs[0]);
	}
	case WNN_ATTRS_REDUCE:
		/* rank 4 out: keepDimensions, so the reduced axes are the output's ones of size 1 */
		return only_target(p, o->inputs[0]);
	case WNN_ATTRS_CONCAT: {
		bool any = false;
		for (uint32_t k = 0; k < o->n_inputs; k++) {
			if (!has_alt(p, o->inputs[k]))
				return false;
			any = any || only_target(p, o->inputs[k]);
		}
		return any;
	}
	default:
		return false;
	}
}

/* Concat attrs for inputs and output already in the backend's layout. */
static void concat_attrs(struct layout_pass *p, union wnn_attrs *a, uint32_t out)
{
	uint32_t axis = 0;
	while (p->to_target[axis] != a->concat.axis)
		axis++;
	const struct wnn_desc *od = &p->g->values[out].desc;
	a->concat.axis = axis;
	a->concat.output = out;
	a->concat.out_axis = od->dims[axis];
	a->concat.outer = wnn_shape_count(axis, od->dims);
	a->concat.inner = wnn_shape_count(od->rank - axis - 1, od->dims + axis + 1);
}

/* Operand k of an agnostic node, in the backend's layout (one-element operands as they are);
 * a transpose it needs goes right after v is defined (see the top of the file). */
static uint32_t agnostic_operand(struct layout_pass *p, uint32_t v)
{
	if (has_alt(p, v))
		return p->alt[v];
	if (one_element(&p->g->values[v]))
		return v;
	uint32_t t = in_target(p, v);
	if (t != GRAPH_NONE && p->g->values[v].kind != GRAPH_VALUE_CONSTANT)
		hoist_last(p, p->made_at[v] == GRAPH_NONE ? 0 : p->made_at[v] + 1);
	return t;
}

/* batchNormalization on its input's backend-layout form: the axis moves, mean, variance, scale
 * and bias (1-D) stay. */
static uint32_t rewrite_batchnorm(struct layout_pass *p, struct graph_node *o)
{
	uint32_t *in = malloc(o->n_inputs * sizeof *in), out, node = GRAPH_NONE;
	if (!in) {
		wnn_diag_set(p->diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
		return GRAPH_NONE;
	}
	memcpy(in, o->inputs, o->n_inputs * sizeof *in);
	in[0] = p->alt[o->inputs[0]];
	if ((out = target_output(p, o->outputs[0])) != GRAPH_NONE) {
		union wnn_attrs a = o->attrs;
		struct wnn_batchnorm_attrs *b = &a.batchnorm;
		const struct wnn_desc *od = &p->g->values[out].desc;
		uint32_t axis = 0;
		while (p->to_target[axis] != b->axis)
			axis++;
		b->input = in[0];
		b->output = out;
		b->axis = axis;
		b->outer = wnn_shape_count(axis, od->dims);
		b->channels = od->dims[axis];
		b->inner = wnn_shape_count(od->rank - axis - 1, od->dims + axis + 1);
		node = move_node(p, o, in, &out, &a);
	}
	free(in);
	return node;
}

/* resample2d attrs for input in and output out in the backend's layout. */
static void resample_attrs(struct layout_pass *p, union wnn_attrs *a, uint32_t in, uint32_t out)
{
	struct wnn_resample_attrs *r = &a->resample;
	const struct wnn_desc *id = &p->g->values[in].desc, *od = &p->g->values[out].desc;
	r->input = in;
	r->output = out;
	for (int i = 0; i < 2; i++)
		r->axes[i] = target_axis(p, r->axes[i]);
	for (uint32_t i = 0; i < 4; i++)
		r->in_dims[i] = id->dims[i], r->out_dims[i] = od->dims[i];
	wnn_shape_strides(4, id->dims, r->in_strides);
}

/* A reduction that keeps its dimensions, for input in and output out in the backend's layout:
 * the reduced axes are those of size 1 in the output and not in the input (reducing an axis of
 * size 1 as well or not groups the same elements). */
static bool reduce_attrs(struct layout_pass *p, union wnn_attrs *a, uint32_t in, uint32_t out)
{
	const struct wnn_desc *id = &p->g->values[in].desc, *od = &p->g->values[out].desc;
	uint32_t axes[4], n = 0;
	for (uint32_t i = 0; i < 4; i++)
		if (od->dims[i] == 1 && id->dims[i] != 1)
			axes[n++] = i;
	a->reduce.input = in;
	a->reduce.output = out;
	return wnn_make_reduction(id, axes, n, &a->reduce.r, wnn_ops[a->reduce.op].name,
				  p->diag) == WEBNN_STATUS_OK;
}

/* Runs a layout-agnostic node on its operands' backend-layout forms. */
static uint32_t rewrite_agnostic(struct layout_pass *p, struct graph_node *o)
{
	if (o->op == WNN_OP_BATCH_NORMALIZATION)
		return rewrite_batchnorm(p, o);
	uint32_t *in = malloc(o->n_inputs * sizeof *in), out = GRAPH_NONE, node = GRAPH_NONE;
	if (!in) {
		wnn_diag_set(p->diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
		return GRAPH_NONE;
	}
	bool ok = true;
	for (uint32_t k = 0; ok && k < o->n_inputs; k++)
		ok = (in[k] = agnostic_operand(p, o->inputs[k])) != GRAPH_NONE;
	if (ok && (out = target_output(p, o->outputs[0])) != GRAPH_NONE) {
		union wnn_attrs a = o->attrs;
		ok = true;
		switch (wnn_ops[o->op].attrs) {
		case WNN_ATTRS_UNARY:
			a.unary.input = in[0], a.unary.output = out;
			break;
		case WNN_ATTRS_CLAMP:
			a.clamp.input = in[0], a.clamp.output = out;
			break;
		case WNN_ATTRS_BINARY: {
			const struct wnn_desc *d[2] = { &p->g->values[in[0]].desc,
							&p->g->values[in[1]].desc };
			a.binary.a = in[0], a.binary.b = in[1], a.binary.output = out;
			ok = wnn_broadcast(d, 2, &a.binary.bc, wnn_ops[o->op].name, p->diag) ==
			     WEBNN_STATUS_OK;
			break;
		}
		case WNN_ATTRS_RESAMPLE2D:
			resample_attrs(p, &a, in[0], out);
			break;
		case WNN_ATTRS_REDUCE:
			ok = reduce_attrs(p, &a, in[0], out);
			break;
		default:
			concat_attrs(p, &a, out);
		}
		if (ok)
			node = move_node(p, o, in, &out, &a);
	}
	free(in);
	return node;
}

/* Appends old node o: rewritten into the backend's layout, or as it was once every operand it
 * reads exists in the client's layout. */
static uint32_t place_node(struct layout_pass *p, struct graph_node *o)
{
	if (o->state == GRAPH_NODE_LIVE && is_spatial(o->op) && spatial_nhwc(o) != p->nhwc)
		return rewrite_spatial(p, o);
	if (o->state == GRAPH_NODE_LIVE && agnostic(p, o))
		return rewrite_agnostic(p, o);
	for (uint32_t k = 0; o->state == GRAPH_NODE_LIVE && k < o->n_inputs; k++)
		if (!materialise(p, o->inputs[k]))
			return GRAPH_NONE;
	return move_node(p, o, o->inputs, o->outputs, &o->attrs);
}

/* Rebuilds the node array from old (n_old nodes, freed here) in the backend's layout. */
static enum webnn_status rebuild(struct layout_pass *p, struct graph_node *old, uint32_t n_old)
{
	struct graph_ir *g = p->g;
	uint32_t *new_index = p->new_index;
	enum webnn_status st = WEBNN_STATUS_OK;
	for (uint32_t i = 0; st == WEBNN_STATUS_OK && i < n_old; i++, p->n_placed = i)
		if ((new_index[i] = place_node(p, &old[i])) == GRAPH_NONE)
			st = p->diag->status;
	for (uint32_t k = 0; st == WEBNN_STATUS_OK && k < g->n_outputs; k++)
		if (!materialise(p, g->outputs[k]))
			st = p->diag->status;
	for (uint32_t i = 0; st == WEBNN_STATUS_OK && i < g->n_nodes; i++) {
		struct graph_node *n = &g->nodes[i];
		if (n->fused_into != GRAPH_NONE)
			n->fused_into = new_index[n->fused_into];
		for (uint32_t k = 0; k < n->chain.n_members; k++)
			n->chain.members[k] = new_index[n->chain.members[k]];
	}
	for (uint32_t i = 0; i < n_old; i++) {
		free(old[i].inputs);
		free(old[i].outputs);
		free(old[i].label);
		free(old[i].chain.members);
	}
	free(old);
	return st;
}

/* Whether old node o reads operand slot k in the client's layout whatever the pass decides. */
static bool reads_client(const struct layout_pass *p, const struct graph_node *o, uint32_t k)
{
	if (is_spatial(o->op) && spatial_nhwc(o) != p->nhwc)
		return k != 0;
	if (o->n_outputs != 1 || p->g->values[o->outputs[0]].desc.rank != 4)
		return true;
	switch (wnn_ops[o->op].attrs) {
	case WNN_ATTRS_UNARY:
	case WNN_ATTRS_CLAMP:
	case WNN_ATTRS_BINARY:
	case WNN_ATTRS_CONCAT:
		return false;
	case WNN_ATTRS_BATCH_NORMALIZATION:
		return k != 0;
	default:
		return true;
	}
}

/* client_bound and target_bound from the graph before the pass. */
static void mark_bound(struct layout_pass *p)
{
	const struct graph_ir *g = p->g;
	for (uint32_t k = 0; k < g->n_outputs; k++)
		p->client_bound[g->outputs[k]] = true;
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		const struct graph_node *o = &g->nodes[i];
		for (uint32_t k = 0; k < o->n_inputs; k++) {
			if (reads_client(p, o, k))
				p->client_bound[o->inputs[k]] = true;
			else if (k == 0 && is_spatial(o->op))
				p->target_bound[o->inputs[k]] = true;
		}
	}
}

/* The per-value and per-node arrays of the pass; false when out of memory. */
static bool pass_alloc(struct layout_pass *p)
{
	size_t nv = p->n_orig ? p->n_orig : 1, nn = p->g->n_nodes ? p->g->n_nodes : 1;
	p->alt = malloc(nv * sizeof *p->alt);
	p->made_at = malloc(nv * sizeof *p->made_at);
	p->have = malloc(nv * sizeof *p->have);
	p->client_bound = calloc(nv, sizeof *p->client_bound);
	p->target_bound = calloc(nv, sizeof *p->target_bound);
	p->new_index = malloc(nn * sizeof *p->new_index);
	if (!p->alt || !p->made_at || !p->have || !p->client_bound || !p->target_bound ||
	    !p->new_index)
		return false;
	for (uint32_t v = 0; v < p->n_orig; v++) {
		p->alt[v] = p->made_at[v] = GRAPH_NONE;
		p->have[v] = true;
	}
	mark_bound(p);
	return true;
}

static void pass_free(struct layout_pass *p)
{
	free(p->alt);
	free(p->made_at);
	free(p->have);
	free(p->client_bound);
	free(p->target_bound);
	free(p->new_index);
}

enum webnn_status graph_assign_layout(struct graph_ir *g, enum webnn_layout layout,
				      struct wnn_diag *diag)
{
	bool nhwc = layout == WEBNN_LAYOUT_NHWC, needed = false;
	GRAPH_FOR_EACH_LIVE_NODE(g, i)
		needed = needed || (is_spatial(g->nodes[i].op) && spatial_nhwc(&g->nodes[i]) != nhwc);
	if (!needed)
		return WEBNN_STATUS_OK;
	struct layout_pass p = { .g = g, .diag = diag, .nhwc = nhwc, .n_orig = g->n_values };
	static const uint32_t to_nhwc[4] = { 0, 2, 3, 1 }, to_nchw[4] = { 0, 3, 1, 2 };
	memcpy(p.to_target, nhwc ? to_nhwc : to_nchw, sizeof p.to_target);
	memcpy(p.from_target, nhwc ? to_nchw : to_nhwc, sizeof p.from_target);
	if (!pass_alloc(&p)) {
		pass_free(&p);
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
	}
	struct graph_node *old = g->nodes;
	uint32_t n_old = g->n_nodes;
	g->nodes = NULL;
	g->n_nodes = g->cap_nodes = 0;
	enum webnn_status st = rebuild(&p, old, n_old);
	/* Values only ever made in the backend's layout are no longer defined by any node. */
	for (uint32_t v = 0; st == WEBNN_STATUS_OK && v < p.n_orig; v++)
		if (!p.have[v] && g->values[v].kind == GRAPH_VALUE_INTERMEDIATE) {
			g->values[v].kind = GRAPH_VALUE_UNUSED;
			g->values[v].producer = GRAPH_NONE;
		}
	pass_free(&p);
	graph_recount(g);
	return st;
}
