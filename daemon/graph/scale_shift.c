/* Scale/shift folding: batchNormalization and constant per-channel mul/add/sub after a conv2d, convTranspose2d, gemm or matmul moved into its constant weights and bias. */
#include "daemon/graph/passes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Inference networks put a batchNormalization (or a mul/add by per-channel constants) after
 * nearly every convolution; run as they are, each is a step that reads and writes the whole
 * activation again. y = x * s[c] + t[c] after a product whose weights are constants is the same
 * product with weights w * s[c] and bias b * s[c] + t[c], so the node goes away. Only float32 is
 * folded: the new weights are rounded once from double, which keeps the product within the
 * tolerances the unfolded graph has; float16 weights would lose 2^-11 of relative precision.
 *
 * The producer's output must have no reader but the folded node (and not be a graph output):
 * the unscaled value no longer exists afterwards. The folded node is marked FOLDED (its
 * arithmetic was done at build time) and the producer writes the folded node's output value.
 */

struct ss_pass {
	struct graph_ir *g;
	const struct graph_caps *caps;
	struct wnn_diag *diag;
	uint32_t *count; /* per value: input slots of live nodes that read it */
	uint32_t *reader; /* per value: the last such node */
	double *s, *t;   /* per channel of the producer being folded */
};

static bool is_f32_constant(const struct graph_ir *g, uint32_t v)
{
	return v != WNN_NO_OPERAND && v < g->n_values && g->values[v].kind == GRAPH_VALUE_CONSTANT &&
	       g->values[v].desc.type == WNN_F32 && g->values[v].data;
}

/* The producer's channel axis (in its output) and channel count; false for other nodes. */
static bool producer_channels(const struct graph_ir *g, const struct graph_node *p, uint32_t *axis,
			      uint32_t *channels)
{
	const struct wnn_desc *od = &g->values[p->outputs[0]].desc;
	if (p->n_outputs != 1 || od->type != WNN_F32)
		return false;
	switch (p->op) {
	case WNN_OP_CONV2D:
		*axis = p->attrs.conv2d.nhwc ? 3 : 1;
		*channels = p->attrs.conv2d.c_out;
		return is_f32_constant(g, p->attrs.conv2d.filter) &&
		       (!p->attrs.conv2d.has_bias || is_f32_constant(g, p->attrs.conv2d.bias));
	case WNN_OP_CONV_TRANSPOSE2D:
		*axis = p->attrs.conv_transpose2d.nhwc ? 3 : 1;
		*channels = p->attrs.conv_transpose2d.c_out;
		return is_f32_constant(g, p->attrs.conv_transpose2d.filter) &&
		       (!p->attrs.conv_transpose2d.has_bias ||
			is_f32_constant(g, p->attrs.conv_transpose2d.bias));
	case WNN_OP_GEMM: {
		const struct wnn_gemm_attrs *a = &p->attrs.gemm;
		*axis = 1;
		*channels = a->n;
		/* a C that varies along M is no per-channel bias */
		return is_f32_constant(g, a->b) &&
		       (!a->has_c || (is_f32_constant(g, a->c) && a->c_stride_m == 0));
	}
	case WNN_OP_MATMUL:
		*axis = od->rank - 1;
		*channels = p->attrs.matmul.n;
		return is_f32_constant(g, p->attrs.matmul.b);
	default:
		return false;
	}
}

/* v broadcasts to out as one value per index of out's axis (or is one element); its value for
 * channel c is then data[per_channel ? c : 0]. */
static bool channel_constant(const struct graph_ir *g, uint32_t v, const struct wnn_desc *out,
			     uint32_t axis, bool *per_channel)
{
	if (!is_f32_constant(g, v))
		return false;
	const struct wnn_desc *d = &g->values[v].desc;
	if (d->rank > out->rank)
		return false;
	*per_channel = false;
	for (uint32_t k = 0; k < d->rank; k++) {
		uint32_t od = out->rank - d->rank + k;
		if (d->dims[k] == 1)
			continue;
		if (od != axis || d->dims[k] != out->dims[axis])
			return false;
		*per_channel = true;
	}
	return true;
}

static double channel_value(const struct graph_ir *g, uint32_t v, bool per_channel, uint32_t c)
{
	return ((const float *)g->values[v].data)[per_channel ? c : 0];
}

/* Fills p->s and p->t with what node j (the sole reader of u, the producer's output) does per
 * channel; false when j is no per-channel affine map of u with constant coefficients. */
static bool affine_of(struct ss_pass *p, const struct graph_node *j, uint32_t u, uint32_t axis,
		      uint32_t channels)
{
	const struct graph_ir *g = p->g;
	const struct wnn_desc *ud = &g->values[u].desc;
	if (j->n_outputs != 1 || !wnn_desc_equal(&g->values[j->outputs[0]].desc, ud))
		return false;
	if (j->op == WNN_OP_BATCH_NORMALIZATION) {
		const struct wnn_batchnorm_attrs *a = &j->attrs.batchnorm;
		if (a->input != u || a->axis != axis || a->type != WNN_F32 ||
		    !is_f32_constant(g, a->mean) || !is_f32_constant(g, a->variance) ||
		    (a->has_scale && !is_f32_constant(g, a->scale)) ||
		    (a->has_bias && !is_f32_constant(g, a->bias)))
			return false;
		const float *m = g->values[a->mean].data, *v = g->values[a->variance].data;
		const float *sc = a->has_scale ? g->values[a->scale].data : NULL;
		const float *bi = a->has_bias ? g->values[a->bias].data : NULL;
		for (uint32_t c = 0; c < channels; c++) {
			/* as the reference computes it: (x - mean) / sqrt(var + eps) * scale + bias */
			double inv = 1.0 / sqrt((double)v[c] + a->epsilon);
			p->s[c] = inv * (sc ? sc[c] : 1.0);
			p->t[c] = (bi ? bi[c] : 0.0) - (double)m[c] * p->s[c];
		}
		return true;
	}
	if (j->op != WNN_OP_MUL && j->op != WNN_OP_ADD && j->op != WNN_OP_SUB)
		return false;
	const struct wnn_binary_attrs *b = &j->attrs.binary;
	if (b->a == b->b || b->type != WNN_F32 || (b->a != u && b->b != u) ||
	    (j->op == WNN_OP_SUB && b->a != u))
		return false;
	uint32_t other = b->a == u ? b->b : b->a;
	bool per_channel;
	if (!channel_constant(g, other, ud, axis, &per_channel))
		return false;
	for (uint32_t c = 0; c < channels; c++) {
		double k = channel_value(g, other, per_channel, c);
		p->s[c] = j->op == WNN_OP_MUL ? k : 1.0;
		p->t[c] = j->op == WNN_OP_ADD ? k : j->op == WNN_OP_SUB ? -k : 0.0;
	}
	return true;
}

/* A new float32 constant of desc d (bytes from fill); GRAPH_NONE when out of memory or past the
 * folding budget (*oom tells which). */
static uint32_t new_constant(struct ss_pass *p, const struct wnn_desc *d, float **data, bool *oom)
{
	uint64_t bytes = 0;
	*oom = false;
	if (!wnn_desc_bytes(d, &bytes) || p->g->folded_bytes + bytes > p->caps->fold_max_bytes)
		return GRAPH_NONE;
	/* aligned as tensors are: the fast kernels' vector loads may assume it */
	size_t size = (size_t)((bytes + 63) & ~(uint64_t)63);
	float *q = aligned_alloc(64, size ? size : 64);
	if (!q || !graph_own(p->g, q)) {
		*oom = true;
		return GRAPH_NONE;
	}
	uint32_t v = graph_add_value(p->g, d, GRAPH_VALUE_CONSTANT, p->diag);
	if (v == GRAPH_NONE) {
		*oom = true;
		return GRAPH_NONE;
	}
	p->g->values[v].data = q;
	p->g->folded_bytes += bytes;
	*data = q;
	return v;
}

static bool any_shift(const struct ss_pass *p, uint32_t channels)
{
	for (uint32_t c = 0; c < channels; c++)
		if (p->t[c] != 0.0)
			return true;
	return false;
}

/* The weights of producer n scaled per output channel: a new constant (the old one may have other
 * readers). The element at linear index i belongs to channel chan(i). */
static uint32_t scaled_weights(struct ss_pass *p, const struct graph_node *n, uint32_t w,
			       bool *oom)
{
	struct wnn_desc d = p->g->values[w].desc;
	float *q;
	uint32_t nw = new_constant(p, &d, &q, oom);
	if (nw == GRAPH_NONE)
		return GRAPH_NONE;
	const float *src = p->g->values[w].data;
	uint64_t count = wnn_shape_count(d.rank, d.dims);
	memcpy(q, src, count * sizeof *q);
	if (n->op == WNN_OP_CONV2D) {
		const struct wnn_conv2d_attrs *a = &n->attrs.conv2d;
		const uint64_t *fs = a->filter_stride;
		for (uint32_t o = 0; o < a->c_out; o++)
			for (uint32_t i = 0; i < a->c_in_g; i++)
				for (uint32_t y = 0; y < a->kh; y++)
					for (uint32_t x = 0; x < a->kw; x++) {
						uint64_t at = o * fs[0] + i * fs[1] + y * fs[2] + x * fs[3];
						q[at] = (float)((double)src[at] * p->s[o]);
					}
	} else if (n->op == WNN_OP_CONV_TRANSPOSE2D) {
		const struct wnn_conv_transpose2d_attrs *a = &n->attrs.conv_transpose2d;
		const uint64_t *fs = a->filter_stride;
		for (uint32_t ic = 0; ic < a->c_in; ic++)
			for (uint32_t o = 0; o < a->c_out_g; o++) {
				uint32_t c = (ic / a->c_in_g) * a->c_out_g + o;
				for (uint32_t y = 0; y < a->kh; y++)
					for (uint32_t x = 0; x < a->kw; x++) {
						uint64_t at = ic * fs[0] + o * fs[1] + y * fs[2] + x * fs[3];
						q[at] = (float)((double)src[at] * p->s[c]);
					}
			}
	} else if (n->op == WNN_OP_GEMM) {
		const struct wnn_gemm_attrs *a = &n->attrs.gemm;
		for (uint32_t k = 0; k < a->k; k++)
			for (uint32_t c = 0; c < a->n; c++) {
				uint64_t at = k * a->b_stride_k + c * a->b_stride_n;
				q[at] = (float)((double)src[at] * p->s[c]);
			}
	} else { /* matmul: b is dense row-major with N innermost */
		uint32_t channels = n->attrs.matmul.n;
		for (uint64_t i = 0; i < count; i++)
			q[i] = (float)((double)src[i] * p->s[i % channels]);
	}
	return nw;
}

/* Appends value v to node n's inputs (a bias or C operand that was absent). */
static bool append_input(struct graph_node *n, uint32_t v)
{
	uint32_t *in = realloc(n->inputs, (n->n_inputs + 1) * sizeof *in);
	if (!in)
		return false;
	in[n->n_inputs++] = v;
	n->inputs = in;
	return true;
}

/* The producer's per-channel bias after the map: b * s + t (b: its old bias, or 0). */
static uint32_t shifted_bias(struct ss_pass *p, uint32_t old, double old_scale, uint32_t channels,
			     bool *oom)
{
	struct wnn_desc d = { .type = WNN_F32, .rank = 1, .dims = { channels } };
	float *q;
	uint32_t nb = new_constant(p, &d, &q, oom);
	if (nb == GRAPH_NONE)
		return GRAPH_NONE;
	const float *b = old != WNN_NO_OPERAND ? p->g->values[old].data : NULL;
	uint64_t one = 0;
	bool scalar = b && wnn_desc_count(&p->g->values[old].desc, &one) && one == 1;
	for (uint32_t c = 0; c < channels; c++) {
		double bc = b ? (double)b[scalar ? 0 : c] * old_scale : 0.0;
		q[c] = (float)(bc * p->s[c] + p->t[c]);
	}
	return nb;
}

/* Replaces input slot `old` of n (or appends one when old is absent) by v. */
static bool set_operand(struct graph_node *n, uint32_t old, uint32_t v)
{
	if (old == WNN_NO_OPERAND)
		return append_input(n, v);
	for (uint32_t k = 0; k < n->n_inputs; k++)
		if (n->inputs[k] == old)
			n->inputs[k] = v;
	return true;
}

/* Folds p->s, p->t into producer i's weights and bias. Returns false when it cannot (matmul
 * with a shift, over the budget); *oom when out of memory. */
static bool apply(struct ss_pass *p, uint32_t i, uint32_t channels, bool *oom)
{
	struct graph_node *n = &p->g->nodes[i];
	bool shift = any_shift(p, channels);
	*oom = false;
	if (n->op == WNN_OP_MATMUL) {
		if (shift)
			return false; /* matmul has no bias operand */
		uint32_t nw = scaled_weights(p, n, n->attrs.matmul.b, oom);
		n = &p->g->nodes[i];
		if (nw == GRAPH_NONE)
			return false;
		set_operand(n, n->attrs.matmul.b, nw);
		n->attrs.matmul.b = nw;
		return true;
	}
	uint32_t *w, *bias;
	bool *has_bias;
	double old_scale = 1.0;
	if (n->op == WNN_OP_CONV2D) {
		w = &n->attrs.conv2d.filter, bias = &n->attrs.conv2d.bias;
		has_bias = &n->attrs.conv2d.has_bias;
	} else if (n->op == WNN_OP_CONV_TRANSPOSE2D) {
		w = &n->attrs.conv_transpose2d.filter, bias = &n->attrs.conv_transpose2d.bias;
		has_bias = &n->attrs.conv_transpose2d.has_bias;
	} else {
		w = &n->attrs.gemm.b, bias = &n->attrs.gemm.c, has_bias = &n->attrs.gemm.has_c;
		old_scale = n->attrs.gemm.beta;
	}
	uint32_t old_w = *w, old_b = *has_bias ? *bias : WNN_NO_OPERAND;
	uint32_t nw = scaled_weights(p, n, old_w, oom), nb = GRAPH_NONE;
	if (nw == GRAPH_NONE)
		return false;
	if ((shift || old_b != WNN_NO_OPERAND) &&
	    (nb = shifted_bias(p, old_b, old_scale, channels, oom)) == GRAPH_NONE)
		return false;
	/* graph_add_value may have moved nothing of the nodes, but re-read n anyway */
	n = &p->g->nodes[i];
	set_operand(n, old_w, nw);
	if (n->op == WNN_OP_CONV2D)
		n->attrs.conv2d.filter = nw;
	else if (n->op == WNN_OP_CONV_TRANSPOSE2D)
		n->attrs.conv_transpose2d.filter = nw;
	else
		n->attrs.gemm.b = nw;
	if (nb == GRAPH_NONE)
		return true;
	if (!set_operand(n, old_b, nb)) {
		*oom = true;
		return false;
	}
	if (n->op == WNN_OP_CONV2D) {
		n->attrs.conv2d.bias = nb, n->attrs.conv2d.has_bias = true;
	} else if (n->op == WNN_OP_CONV_TRANSPOSE2D) {
		n->attrs.conv_transpose2d.bias = nb, n->attrs.conv_transpose2d.has_bias = true;
	} else {
		struct wnn_gemm_attrs *a = &n->attrs.gemm;
		a->c = nb, a->has_c = true, a->beta = 1.0;
		a->c_stride_m = 0, a->c_stride_n = 1;
	}
	return true;
}

/* The producer now writes w, the folded node's output. */
static void retarget_output(struct graph_node *n, uint32_t w)
{
	n->outputs[0] = w;
	switch (n->op) {
	case WNN_OP_CONV2D:
		n->attrs.conv2d.output = w;
		break;
	case WNN_OP_CONV_TRANSPOSE2D:
		n->attrs.conv_transpose2d.output = w;
		break;
	case WNN_OP_GEMM:
		n->attrs.gemm.output = w;
		break;
	default:
		n->attrs.matmul.output = w;
	}
}

/* Folds the chain of affine nodes after producer i, one after another. */
static enum webnn_status fold_after(struct ss_pass *p, uint32_t i)
{
	struct graph_ir *g = p->g;
	uint32_t axis, channels;
	while (producer_channels(g, &g->nodes[i], &axis, &channels)) {
		uint32_t u = g->nodes[i].outputs[0];
		if (g->values[u].output_index != GRAPH_NONE || p->count[u] != 1)
			break;
		uint32_t j = p->reader[u];
		if (g->nodes[j].state != GRAPH_NODE_LIVE)
			break;
		double *s = realloc(p->s, channels * sizeof *s), *t;
		if (s)
			p->s = s;
		t = s ? realloc(p->t, channels * sizeof *t) : NULL;
		if (!t)
			return wnn_diag_set(p->diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
		p->t = t;
		if (!affine_of(p, &g->nodes[j], u, axis, channels))
			break;
		bool oom;
		if (!apply(p, i, channels, &oom)) {
			if (oom)
				return wnn_diag_set(p->diag, WEBNN_STATUS_NO_MEMORY,
						    "graph: out of memory");
			break;
		}
		uint32_t w = g->nodes[j].outputs[0];
		retarget_output(&g->nodes[i], w);
		g->nodes[j].state = GRAPH_NODE_FOLDED;
		g->values[u].kind = GRAPH_VALUE_UNUSED;
		g->values[u].producer = GRAPH_NONE;
		g->values[w].producer = i;
		p->count[u] = 0;
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status graph_fold_scale_shift(struct graph_ir *g, const struct graph_caps *caps,
					 struct wnn_diag *diag)
{
	if (!caps->fold_scale_shift)
		return WEBNN_STATUS_OK;
	struct ss_pass p = { .g = g, .caps = caps, .diag = diag };
	size_t nv = g->n_values ? g->n_values : 1;
	p.count = calloc(nv, sizeof *p.count);
	p.reader = malloc(nv * sizeof *p.reader);
	enum webnn_status st = WEBNN_STATUS_OK;
	if (!p.count || !p.reader) {
		st = wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "graph: out of memory");
		goto out;
	}
	GRAPH_FOR_EACH_LIVE_NODE(g, i)
		for (uint32_t k = 0; k < g->nodes[i].n_inputs; k++) {
			p.count[g->nodes[i].inputs[k]]++;
			p.reader[g->nodes[i].inputs[k]] = i;
		}
	/* new values (weights, biases) are constants nobody counts: the arrays cover the values
	 * that existed, which are all a producer can write */
	GRAPH_FOR_EACH_LIVE_NODE(g, i)
		if ((st = fold_after(&p, i)) != WEBNN_STATUS_OK)
			break;
	graph_recount(g);
out:
	free(p.count);
	free(p.reader);
	free(p.s);
	free(p.t);
	return st;
}
