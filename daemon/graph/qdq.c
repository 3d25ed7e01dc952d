/* Int8 products: dequantize -> conv2d/gemm/matmul -> [bias add, relu/clamp, quantize] (ONNX QDQ) rewritten as one node that reads the quantized values (graph_qdq). */
#include "daemon/graph/passes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * ONNX models quantized "statically" (onnxruntime's quantize_static, QLinearConv and
 * QLinearMatMul as the importer lowers them) arrive as float products between
 * dequantizeLinear and quantizeLinear nodes. Run as written they materialise every activation
 * in float and quantize it again. Here the product reads the quantized activation and the
 * int8 weights directly, and the scales fold into one per-channel factor (graph.h, struct
 * graph_qdq, says what the node then computes). Only what an int8 primitive computes exactly
 * is taken: a per-tensor activation scale and zero point; int8 weights, or uint8/int8 weights
 * whose zero points (per tensor or per output channel) fold into int8 values w - zp, with one
 * scale or one per output channel; biases, adds and quantizeLinear scales known at build.
 * Anything else keeps the float decomposition, which a backend that does not ask for the pass
 * (the reference, the oracle) always runs. The tolerance between the two is one quantum of
 * the output scale: both compute the same real number up to float rounding, and a value
 * within that rounding of a half-quantum boundary may round either way.
 */

struct qdq_pass {
	struct graph_ir *g;
	const struct graph_caps *caps;
	struct wnn_diag *diag;
	uint32_t *reader; /* per value: a live node reading it (the only one when n_uses is 1) */
};

/* The constant bytes behind v through reshapes, and expands of one element (how the ONNX
 * importer shapes scales and default zero points); *count: the elements of that constant. */
static const void *const_data(const struct graph_ir *g, uint32_t v, uint64_t *count)
{
	for (int hops = 0; hops < 8 && v != WNN_NO_OPERAND && v < g->n_values; hops++) {
		const struct graph_value *val = &g->values[v];
		if (val->kind == GRAPH_VALUE_CONSTANT)
			return val->data && wnn_desc_count(&val->desc, count) ? val->data : NULL;
		if (val->kind != GRAPH_VALUE_INTERMEDIATE || val->producer == GRAPH_NONE)
			return NULL;
		const struct graph_node *p = &g->nodes[val->producer];
		if (p->state != GRAPH_NODE_LIVE)
			return NULL;
		if (p->op == WNN_OP_RESHAPE) {
			v = p->attrs.reshape.input;
		} else if (p->op == WNN_OP_EXPAND) {
			uint64_t one = 0;
			v = p->attrs.expand.input;
			if (!wnn_desc_count(&g->values[v].desc, &one) || one != 1)
				return NULL;
		} else {
			return NULL;
		}
	}
	return NULL;
}

static double elem(enum wnn_dtype t, const void *data, uint64_t i)
{
	switch (t) {
	case WNN_F32: return ((const float *)data)[i];
	case WNN_I8: return ((const int8_t *)data)[i];
	case WNN_U8: return ((const uint8_t *)data)[i];
	case WNN_I32: return ((const int32_t *)data)[i];
	default: return NAN;
	}
}

/* v's live dequantizeLinear producer with float32 scale and output, or NULL. */
static const struct graph_node *dequantized(const struct graph_ir *g, uint32_t v)
{
	const struct graph_value *val = &g->values[v];
	if (val->kind != GRAPH_VALUE_INTERMEDIATE || val->producer == GRAPH_NONE)
		return NULL;
	const struct graph_node *p = &g->nodes[val->producer];
	if (p->state != GRAPH_NODE_LIVE || p->op != WNN_OP_DEQUANTIZE_LINEAR)
		return NULL;
	const struct wnn_quantize_attrs *qa = &p->attrs.quantize;
	return qa->out_type == WNN_F32 && qa->scale_type == WNN_F32 ? p : NULL;
}

/* A per-tensor uint8/int8 dequantization of a value that is not constant: its scale and zero
 * point. */
static bool activation(const struct graph_ir *g, uint32_t v, uint32_t *xq, float *scale,
		       int32_t *zero)
{
	const struct graph_node *p = dequantized(g, v);
	if (!p)
		return false;
	const struct wnn_quantize_attrs *qa = &p->attrs.quantize;
	if ((qa->in_type != WNN_U8 && qa->in_type != WNN_I8) || qa->zp_type != qa->in_type ||
	    g->values[qa->input].kind == GRAPH_VALUE_CONSTANT)
		return false;
	uint64_t ns = 0, nz = 0;
	const void *s = const_data(g, qa->scale, &ns), *z = const_data(g, qa->zero_point, &nz);
	if (!s || !z || ns != 1 || nz != 1)
		return false;
	*xq = qa->input;
	*scale = (float)elem(WNN_F32, s, 0);
	*zero = (int32_t)elem(qa->zp_type, z, 0);
	return isfinite(*scale) && *scale > 0;
}

/* A new constant of desc d (bytes uninitialised) owned by the graph; GRAPH_NONE when out of
 * memory (diag set). */
static uint32_t new_constant(struct qdq_pass *p, const struct wnn_desc *d, void **data)
{
	uint64_t bytes = 0;
	wnn_desc_bytes(d, &bytes);
	/* aligned as tensors are: the kernels' vector loads may assume it */
	void *q = aligned_alloc(64, ((size_t)bytes + 63) & ~(size_t)63);
	if (!q || !graph_own(p->g, q)) {
		wnn_diag_set(p->diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
		return GRAPH_NONE;
	}
	uint32_t v = graph_add_value(p->g, d, GRAPH_VALUE_CONSTANT, p->diag);
	if (v == GRAPH_NONE)
		return GRAPH_NONE;
	p->g->values[v].data = q;
	p->g->folded_bytes += bytes;
	*data = q;
	return v;
}

/* Weights dequantized from a uint8/int8 constant with one scale, or one per index of the axis
 * whose element stride in the weights is `stride` (the output channels, `channels` of them),
 * and the zero point likewise: *wq is an int8 constant of the weights minus their zero point
 * (the constant itself when every zero point is 0 and it is int8; else a new one, when every
 * difference fits int8: uint8 weights with zero point 128, say), scales[c] (the caller's)
 * each channel's scale. false: not such weights (*oom when out of memory). */
static bool weights(struct qdq_pass *p, uint32_t v, uint64_t stride, uint32_t channels,
		    uint32_t *wq, float *scales, bool *oom)
{
	const struct graph_ir *g = p->g;
	*oom = false;
	const struct graph_node *d = dequantized(g, v);
	if (!d)
		return false;
	const struct wnn_quantize_attrs *qa = &d->attrs.quantize;
	const struct graph_value *qv = &g->values[qa->input];
	if ((qa->in_type != WNN_I8 && qa->in_type != WNN_U8) || qa->zp_type != qa->in_type ||
	    qv->kind != GRAPH_VALUE_CONSTANT || !qv->data)
		return false;
	uint64_t ns = 0, nz = 0;
	const void *s = const_data(g, qa->scale, &ns), *z = const_data(g, qa->zero_point, &nz);
	if (!s || !z || (ns != 1 && ns != channels) || (nz != 1 && nz != channels))
		return false;
	if (ns != 1 || nz != 1) {
		/* scale and zero point vary along one axis at most: the output channels */
		uint64_t axis_stride = 1, found = 0;
		uint32_t varying = 0;
		for (uint32_t k = qa->rank; k-- > 0;) {
			if (qa->scale_dims[k] != 1) {
				varying++;
				if (qa->scale_dims[k] != qa->dims[k] || qa->block[k] != 1)
					return false;
				found = axis_stride;
			}
			axis_stride *= qa->dims[k];
		}
		if (varying != 1 || found != stride || qa->dims[qa->rank - 1] == 0)
			return false;
	}
	for (uint32_t c = 0; c < channels; c++) {
		scales[c] = (float)elem(WNN_F32, s, ns == 1 ? 0 : c);
		if (!isfinite(scales[c]) || scales[c] <= 0)
			return false;
	}
	bool zero = qa->in_type == WNN_I8;
	for (uint64_t i = 0; i < nz && zero; i++)
		zero = elem(qa->zp_type, z, i) == 0;
	if (zero) {
		*wq = qa->input;
		return true;
	}
	/* w - zp, when it fits int8 everywhere */
	uint64_t count = 0;
	wnn_desc_count(&qv->desc, &count);
	for (uint64_t i = 0; i < count; i++) {
		double w = elem(qa->in_type, qv->data, i) -
			   elem(qa->zp_type, z, nz == 1 ? 0 : (i / stride) % channels);
		if (w < -128 || w > 127)
			return false;
	}
	struct wnn_desc dd = qv->desc;
	dd.type = WNN_I8;
	/* a copy of the weights counts against the folding budget (the graph's charge), as
	 * folding them to float would */
	if (g->folded_bytes + count > p->caps->fold_max_bytes)
		return false;
	void *data;
	uint32_t nv = new_constant(p, &dd, &data);
	if (nv == GRAPH_NONE) {
		*oom = true;
		return false;
	}
	int8_t *out = data;
	qv = &p->g->values[qa->input]; /* graph_add_value may have moved the values */
	for (uint64_t i = 0; i < count; i++)
		out[i] = (int8_t)(elem(qa->in_type, qv->data, i) -
				  elem(qa->zp_type, z, nz == 1 ? 0 : (i / stride) % channels));
	*wq = nv;
	return true;
}

/* The float bias of each channel (b[channels], the caller's) from a float32 constant, or a
 * dequantizeLinear of constants (QDQ's int32 bias), of one value or one per channel. */
static bool bias_values(const struct graph_ir *g, uint32_t v, uint32_t channels, double mul,
			double *b)
{
	uint64_t n = 0;
	const void *d = const_data(g, v, &n);
	if (d && g->values[v].desc.type == WNN_F32) {
		if (n != 1 && n != channels)
			return false;
		for (uint32_t c = 0; c < channels; c++)
			b[c] = mul * elem(WNN_F32, d, n == 1 ? 0 : c);
		return true;
	}
	const struct graph_node *p = dequantized(g, v);
	if (!p)
		return false;
	const struct wnn_quantize_attrs *qa = &p->attrs.quantize;
	uint64_t nq = 0, ns = 0, nz = 0;
	const void *q = const_data(g, qa->input, &nq), *s = const_data(g, qa->scale, &ns),
		   *z = const_data(g, qa->zero_point, &nz);
	if (!q || !s || !z || (nq != 1 && nq != channels) || (ns != 1 && ns != nq) ||
	    (nz != 1 && nz != nq))
		return false;
	for (uint32_t c = 0; c < channels; c++) {
		uint64_t i = nq == 1 ? 0 : c;
		b[c] = mul * (elem(qa->in_type, q, i) - elem(qa->zp_type, z, nz == 1 ? 0 : i)) *
		       elem(WNN_F32, s, ns == 1 ? 0 : i);
		if (!isfinite(b[c]))
			return false;
	}
	return true;
}

/* The single live reader of v when v is no graph output, or NULL. */
static struct graph_node *only_reader(const struct qdq_pass *p, uint32_t v)
{
	const struct graph_value *val = &p->g->values[v];
	if (val->n_uses != 1 || val->output_index != GRAPH_NONE || p->reader[v] == GRAPH_NONE)
		return NULL;
	struct graph_node *r = &p->g->nodes[p->reader[v]];
	return r->state == GRAPH_NODE_LIVE ? r : NULL;
}

/* What follows the product y: an add of one value per output channel (a bias), then a
 * relu or clamp and quantizeLinear (per tensor, to uint8/int8). An activation is taken only
 * with the quantizeLinear after it (else the fusion pass makes it an epilogue). */
struct qdq_tail {
	struct graph_node *add, *act, *quant;
	uint32_t add_operand;
	uint32_t output;   /* the value the node writes once the tail is absorbed */
	float y_scale;
	int32_t y_zero;
};

/* v has the shape of a bias of channels along channel_axis of an output of rank out_rank:
 * right-aligned, 1 but there (or one element). */
static bool channel_shaped(const struct graph_ir *g, uint32_t v, uint32_t out_rank,
			   uint32_t channel_axis, uint32_t channels)
{
	const struct wnn_desc *d = &g->values[v].desc;
	if (d->type != WNN_F32 || d->rank > out_rank)
		return false;
	for (uint32_t k = 0; k < d->rank; k++) {
		uint32_t axis = out_rank - d->rank + k;
		if (d->dims[k] != 1 && !(axis == channel_axis && d->dims[k] == channels))
			return false;
	}
	return true;
}

static void tail(const struct qdq_pass *p, uint32_t y, uint32_t channel_axis, uint32_t channels,
		 struct qdq_tail *t)
{
	const struct graph_ir *g = p->g;
	memset(t, 0, sizeof(*t));
	t->output = y;
	struct graph_node *r = only_reader(p, y);
	if (r && r->op == WNN_OP_ADD && r->attrs.binary.a != r->attrs.binary.b) {
		const struct wnn_binary_attrs *b = &r->attrs.binary;
		uint32_t other = b->a == y ? b->b : b->a;
		const struct wnn_desc *yd = &g->values[y].desc, *od = &g->values[b->output].desc;
		if (od->rank == yd->rank && !memcmp(od->dims, yd->dims, yd->rank * sizeof(*yd->dims)) &&
		    channel_shaped(g, other, yd->rank, channel_axis, channels)) {
			t->add = r;
			t->add_operand = other;
			t->output = b->output;
			r = only_reader(p, b->output);
		}
	}
	struct graph_node *act = NULL;
	if (r && (r->op == WNN_OP_RELU || (r->op == WNN_OP_CLAMP && r->attrs.clamp.type == WNN_F32))) {
		act = r;
		r = only_reader(p, r->outputs[0]);
	}
	if (!r || r->op != WNN_OP_QUANTIZE_LINEAR)
		return;
	const struct wnn_quantize_attrs *qa = &r->attrs.quantize;
	if ((qa->out_type != WNN_U8 && qa->out_type != WNN_I8) || qa->scale_type != WNN_F32 ||
	    qa->zp_type != qa->out_type || qa->input != (act ? act->outputs[0] : t->output))
		return;
	uint64_t ns = 0, nz = 0;
	const void *s = const_data(g, qa->scale, &ns), *z = const_data(g, qa->zero_point, &nz);
	if (!s || !z || ns != 1 || nz != 1)
		return;
	float y_scale = (float)elem(WNN_F32, s, 0);
	if (!isfinite(y_scale) || !(y_scale > 0))
		return;
	t->y_scale = y_scale;
	t->y_zero = (int32_t)elem(qa->zp_type, z, 0);
	t->act = act;
	t->quant = r;
	t->output = qa->output;
}

/* A new float32 constant [n] owned by the graph; GRAPH_NONE when out of memory. */
static uint32_t new_vector(struct qdq_pass *p, uint32_t n, float **data)
{
	struct wnn_desc d = { .type = WNN_F32, .rank = 1, .dims = { n } };
	void *q;
	uint32_t v = new_constant(p, &d, &q);
	*data = q;
	return v;
}

/* What one candidate node reads: its activation and weights operands and where they sit. */
struct qdq_site {
	uint32_t *x, *w, *bias, *out; /* the attrs' operand ids */
	bool has_bias;
	uint32_t channels;
	uint64_t channel_stride;      /* element stride of the output channel in the weights */
	uint32_t channel_axis;        /* the output channel's axis in the output */
	double alpha, beta;           /* gemm's; 1 otherwise */
};

static bool site(struct graph_node *n, const struct graph_ir *g, struct qdq_site *s)
{
	memset(s, 0, sizeof(*s));
	s->alpha = s->beta = 1;
	if (n->op == WNN_OP_CONV2D) {
		struct wnn_conv2d_attrs *a = &n->attrs.conv2d;
		if (a->type != WNN_F32)
			return false;
		s->x = &a->input, s->w = &a->filter, s->bias = &a->bias, s->out = &a->output;
		s->has_bias = a->has_bias;
		s->channels = a->c_out;
		s->channel_stride = a->filter_stride[0];
		s->channel_axis = a->nhwc ? 3 : 1;
		return true;
	}
	if (n->op == WNN_OP_GEMM) {
		struct wnn_gemm_attrs *a = &n->attrs.gemm;
		/* C must be a per-column vector: it becomes the bias */
		if (a->type != WNN_F32 || a->a_transpose || (a->has_c && a->c_stride_m != 0) ||
		    !(a->alpha > 0) || a->a == a->b)
			return false;
		s->x = &a->a, s->w = &a->b, s->bias = &a->c, s->out = &a->output;
		s->has_bias = a->has_c;
		s->channels = a->n;
		s->channel_stride = a->b_transpose ? a->k : 1;
		s->channel_axis = 1;
		s->alpha = a->alpha, s->beta = a->beta;
		return true;
	}
	if (n->op == WNN_OP_MATMUL) {
		struct wnn_matmul_attrs *a = &n->attrs.matmul;
		/* one weights matrix for every batch, dense [K, N] */
		if (a->type != WNN_F32 || a->a == a->b || g->values[a->b].desc.rank != 2 ||
		    a->a_broadcast || a->b_stride_n != 1 || a->b_stride_k != a->n ||
		    a->a_stride_k != 1)
			return false;
		s->x = &a->a, s->w = &a->b, s->out = &a->output;
		s->channels = a->n;
		s->channel_stride = 1;
		s->channel_axis = g->values[a->output].desc.rank - 1;
		return true;
	}
	return false;
}

/* Sets the node's bias operand to v (conv2d's bias, gemm's C, a third input of matmul). */
static bool set_bias(struct qdq_pass *p, struct graph_node *n, const struct qdq_site *s,
		     uint32_t v)
{
	if (s->has_bias) {
		for (uint32_t i = 0; i < n->n_inputs; i++)
			if (n->inputs[i] == *s->bias)
				n->inputs[i] = v;
	} else {
		uint32_t *in = realloc(n->inputs, (n->n_inputs + 1) * sizeof(*in));
		if (!in) {
			wnn_diag_set(p->diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
			return false;
		}
		in[n->n_inputs++] = v;
		n->inputs = in;
	}
	if (n->op == WNN_OP_CONV2D) {
		n->attrs.conv2d.bias = v;
		n->attrs.conv2d.has_bias = true;
	} else if (n->op == WNN_OP_GEMM) {
		struct wnn_gemm_attrs *a = &n->attrs.gemm;
		a->c = v;
		a->has_c = true;
		a->c_stride_m = 0, a->c_stride_n = 1;
	}
	n->qdq.bias = v;
	return true;
}

/* Rewrites n when it is an int8 product; false only when out of memory. */
static bool rewrite(struct qdq_pass *p, struct graph_node *n)
{
	struct graph_ir *g = p->g;
	struct qdq_site s;
	if (!site(n, g, &s))
		return true;
	uint32_t xq, wq;
	float x_scale;
	int32_t x_zero;
	if (!activation(g, *s.x, &xq, &x_scale, &x_zero))
		return true;
	float *ws = malloc(s.channels * sizeof(float));
	double *bias = calloc(s.channels, sizeof(double)), *add = calloc(s.channels, sizeof(double));
	bool ok = ws && bias && add;
	if (!ok) {
		wnn_diag_set(p->diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
		goto done;
	}
	struct qdq_tail t;
	tail(p, *s.out, s.channel_axis, s.channels, &t);
	bool oom;
	if (!weights(p, *s.w, s.channel_stride, s.channels, &wq, ws, &oom) ||
	    (s.has_bias && !bias_values(g, *s.bias, s.channels, s.beta, bias))) {
		ok = !oom;
		goto done;
	}
	if (t.add && !bias_values(g, t.add_operand, s.channels, 1, add))
		t.add = NULL, t.act = NULL, t.quant = NULL, t.output = *s.out;
	bool has_bias = s.has_bias || t.add;
	float *scale, *acc_bias = NULL;
	uint32_t sv = new_vector(p, s.channels, &scale), bv = GRAPH_NONE;
	if (sv == GRAPH_NONE ||
	    (has_bias && (bv = new_vector(p, s.channels, &acc_bias)) == GRAPH_NONE)) {
		ok = false;
		goto done;
	}
	for (uint32_t c = 0; c < s.channels; c++) {
		double unit = (double)x_scale * ws[c] * s.alpha;
		scale[c] = (float)(t.quant ? unit / t.y_scale : unit);
		if (acc_bias)
			acc_bias[c] = (float)((bias[c] + add[c]) / unit);
	}
	struct graph_qdq *q = &n->qdq;
	*q = (struct graph_qdq){ .used = true, .zero = x_zero, .scale = sv, .bias = GRAPH_NONE,
				 .lo = -INFINITY, .hi = INFINITY };
	uint32_t old_x = *s.x, old_w = *s.w;
	for (uint32_t i = 0; i < n->n_inputs; i++) {
		if (n->inputs[i] == old_x)
			n->inputs[i] = xq;
		else if (n->inputs[i] == old_w)
			n->inputs[i] = wq;
	}
	*s.x = xq, *s.w = wq;
	if (n->op == WNN_OP_GEMM)
		n->attrs.gemm.alpha = 1, n->attrs.gemm.beta = 1;
	if (has_bias && !set_bias(p, n, &s, bv)) {
		ok = false;
		goto done;
	}
	if (t.quant) {
		q->y_zero = t.y_zero;
		if (t.act && t.act->op == WNN_OP_RELU) {
			q->act = GRAPH_ACT_RELU;
		} else if (t.act) {
			q->act = GRAPH_ACT_CLAMP;
			q->lo = (float)(t.act->attrs.clamp.min / t.y_scale);
			q->hi = (float)(t.act->attrs.clamp.max / t.y_scale);
		}
		if (t.act)
			t.act->state = GRAPH_NODE_DEAD;
		t.quant->state = GRAPH_NODE_DEAD;
	}
	if (t.add)
		t.add->state = GRAPH_NODE_DEAD;
	*s.out = t.output;
	n->outputs[0] = t.output;
	g->values[t.output].producer = (uint32_t)(n - g->nodes);
done:
	free(ws);
	free(bias);
	free(add);
	return ok;
}

bool graph_fuse_qdq(struct graph_ir *g, const struct graph_caps *caps, struct wnn_diag *diag)
{
	if (!caps->int8_products)
		return true;
	struct qdq_pass p = { .g = g, .caps = caps, .diag = diag };
	bool any = false;
	GRAPH_FOR_EACH_LIVE_NODE(g, i)
		any = any || g->nodes[i].op == WNN_OP_DEQUANTIZE_LINEAR;
	if (!any)
		return true;
	p.reader = malloc(g->n_values * sizeof(*p.reader));
	if (!p.reader) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
		return false;
	}
	for (uint32_t v = 0; v < g->n_values; v++)
		p.reader[v] = GRAPH_NONE;
	GRAPH_FOR_EACH_LIVE_NODE(g, i)
		for (uint32_t k = 0; k < g->nodes[i].n_inputs; k++)
			p.reader[g->nodes[i].inputs[k]] = i;
	bool ok = true;
	uint32_t n_nodes = g->n_nodes; /* the pass adds values, never nodes */
	for (uint32_t i = 0; i < n_nodes && ok; i++)
		if (g->nodes[i].state == GRAPH_NODE_LIVE)
			ok = rewrite(&p, &g->nodes[i]);
	free(p.reader);
	/* the dequantizing nodes nothing reads now go */
	graph_recount(g);
	graph_remove_dead(g);
	graph_recount(g);
	return ok;
}
