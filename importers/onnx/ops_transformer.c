/* onnxruntime's transformer operators (domain com.microsoft) as WebNN compositions. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "importers/onnx/onnx_internal.h"

/* Each step returns its result, or NULL with the node's error set; a NULL operand passes
 * through, so a composition reads as one expression and is checked once at its end. */
typedef enum webnn_status (*bin_fn)(struct webnn_builder *, struct webnn_operand *,
				    struct webnn_operand *, struct webnn_operand **);
typedef enum webnn_status (*un_fn)(struct webnn_builder *, struct webnn_operand *,
				   struct webnn_operand **);

static struct webnn_operand *bin(struct ox_node *n, const char *what, bin_fn f,
				 struct webnn_operand *a, struct webnn_operand *b)
{
	struct webnn_operand *o = NULL;
	if (!a || !b)
		return NULL;
	enum webnn_status s = f(n->M->b, a, b, &o);
	if (s != WEBNN_STATUS_OK) {
		ox_builder_fail(n, s, what);
		return NULL;
	}
	return o;
}

static struct webnn_operand *un(struct ox_node *n, const char *what, un_fn f,
				struct webnn_operand *a)
{
	struct webnn_operand *o = NULL;
	if (!a)
		return NULL;
	enum webnn_status s = f(n->M->b, a, &o);
	if (s != WEBNN_STATUS_OK) {
		ox_builder_fail(n, s, what);
		return NULL;
	}
	return o;
}

#define BIN(f, a, b) bin(n, #f, webnn_builder_##f, (a), (b))
#define UN(f, a) un(n, #f, webnn_builder_##f, (a))

/* o is read after the call that sets it (an argument would be read in any order). */
static struct webnn_operand *chk(struct ox_node *n, enum webnn_status s, const char *what,
				 struct webnn_operand *const *o)
{
	if (s != WEBNN_STATUS_OK) {
		ox_builder_fail(n, s, what);
		return NULL;
	}
	return *o;
}

static struct webnn_operand *tr(struct ox_node *n, struct webnn_operand *x, uint32_t rank,
				const uint32_t *perm)
{
	struct webnn_operand *o = NULL;
	if (!x)
		return NULL;
	return chk(n, webnn_builder_transpose(n->M->b, x, perm, rank, &o), "transpose", &o);
}

static struct webnn_operand *rs(struct ox_node *n, struct webnn_operand *x, uint32_t rank,
				const uint32_t *dims)
{
	return x ? ox_reshape(n, x, rank, dims) : NULL;
}

/* x[..., start:start+size] along axis. */
static struct webnn_operand *sl(struct ox_node *n, struct webnn_operand *x, uint32_t axis,
				uint32_t start, uint32_t size)
{
	struct webnn_operand *o = NULL;
	if (!x)
		return NULL;
	struct webnn_operand_desc d;
	ox_desc(x, &d);
	uint32_t st[WEBNN_MAX_RANK] = { 0 }, sz[WEBNN_MAX_RANK];
	memcpy(sz, d.shape, sizeof(sz[0]) * d.rank);
	st[axis] = start;
	sz[axis] = size;
	return chk(n, webnn_builder_slice(n->M->b, x, st, d.rank, sz, d.rank, NULL, &o), "slice",
		   &o);
}

static struct webnn_operand *cat(struct ox_node *n, struct webnn_operand *const *xs, size_t count,
				 uint32_t axis)
{
	struct webnn_operand *o = NULL;
	for (size_t i = 0; i < count; i++)
		if (!xs[i])
			return NULL;
	return chk(n, webnn_builder_concat(n->M->b, xs, count, axis, &o), "concat", &o);
}

static struct webnn_operand *expand(struct ox_node *n, struct webnn_operand *x, uint32_t rank,
				    const uint32_t *dims)
{
	struct webnn_operand *o = NULL;
	if (!x)
		return NULL;
	return chk(n, webnn_builder_expand(n->M->b, x, dims, rank, &o), "expand", &o);
}

static struct webnn_operand *where(struct ox_node *n, struct webnn_operand *c,
				   struct webnn_operand *a, struct webnn_operand *b)
{
	struct webnn_operand *o = NULL;
	if (!c || !a || !b)
		return NULL;
	return chk(n, webnn_builder_where(n->M->b, c, a, b, &o), "where", &o);
}

static struct webnn_operand *gather(struct ox_node *n, struct webnn_operand *x,
				    struct webnn_operand *idx, uint32_t axis)
{
	struct webnn_operand *o = NULL;
	if (!x || !idx)
		return NULL;
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	go.axis = axis;
	return chk(n, webnn_builder_gather(n->M->b, x, idx, &go, &o), "gather", &o);
}

static struct webnn_operand *cast(struct ox_node *n, struct webnn_operand *x,
				  enum webnn_data_type t)
{
	struct webnn_operand *o = NULL;
	if (!x)
		return NULL;
	return chk(n, webnn_builder_cast(n->M->b, x, t, &o), "cast", &o);
}

static struct webnn_operand *reduce_mean_last(struct ox_node *n, struct webnn_operand *x)
{
	struct webnn_operand *o = NULL;
	if (!x)
		return NULL;
	struct webnn_operand_desc d;
	ox_desc(x, &d);
	uint32_t axis = d.rank - 1;
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.axes = &axis;
	ro.n_axes = 1;
	ro.keep_dimensions = true;
	return chk(n, webnn_builder_reduce_mean(n->M->b, x, &ro, &o), "reduceMean", &o);
}

/* 0, 1, ..., count - 1 as int32 of shape [count]. */
static struct webnn_operand *iota(struct ox_node *n, uint32_t count)
{
	int32_t *v = ox_keep(n->M, malloc((count ? count : 1) * sizeof(int32_t)));
	if (!v) {
		ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < count; i++)
		v[i] = (int32_t)i;
	return ox_const(n, WEBNN_INT32, 1, &count, v);
}

static bool want_out(const struct ox_node *n, size_t i)
{
	return i < n->n_out && n->node->output[i] && *n->node->output[i];
}

static struct ox_val *in_val(struct ox_node *n, size_t i)
{
	return ox_has_in(n, i) ? n->in[i] : NULL;
}

static int need_float(struct ox_node *n, const char *role, size_t i)
{
	struct ox_val *v = in_val(n, i);
	if (v && v->type != WEBNN_FLOAT32 && v->type != WEBNN_FLOAT16)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "%s is %s: float32 or float16 expected",
			       role, webnn_data_type_name(v->type));
	return 0;
}

static int need_rank(struct ox_node *n, const char *role, size_t i, uint32_t lo, uint32_t hi)
{
	struct ox_val *v = in_val(n, i);
	if (v && (v->rank < lo || v->rank > hi))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "%s has rank %u: rank %u%s%.0u expected",
			       role, v->rank, lo, hi != lo ? " to " : "", hi != lo ? hi : 0);
	return 0;
}

/* ---------------------------------------------------------------- activations */

/* com.microsoft Gelu and BiasGelu: the erf form of (x + bias). */
static int op_gelu(struct ox_node *n)
{
	struct webnn_operand *x, *b = NULL;
	OX_IN(n, 0, x);
	if (need_float(n, "input", 0))
		return -1;
	if (ox_has_in(n, 1)) {
		OX_IN(n, 1, b);
		x = BIN(add, x, b);
	}
	struct webnn_operand *o = UN(gelu, x);
	return o ? ox_set(n, 0, o) : -1;
}

/* FastGelu: 0.5 y (1 + tanh(sqrt(2/pi) (y + 0.044715 y^3))), y = x + bias. */
static int op_fast_gelu(struct ox_node *n)
{
	struct webnn_operand *x, *b;
	OX_IN(n, 0, x);
	if (need_float(n, "X", 0))
		return -1;
	if (ox_has_in(n, 1)) {
		OX_IN(n, 1, b);
		x = BIN(add, x, b);
	}
	enum webnn_data_type t = n->in[0]->type;
	struct webnn_operand *x3 = BIN(mul, BIN(mul, x, x), x);
	struct webnn_operand *inner = BIN(mul, BIN(add, x, BIN(mul, x3, ox_scalar(n, t, 0.044715))),
					  ox_scalar(n, t, sqrt(2.0 / M_PI)));
	struct webnn_operand *o = BIN(mul, BIN(mul, x, ox_scalar(n, t, 0.5)),
				      BIN(add, UN(tanh, inner), ox_scalar(n, t, 1.0)));
	return o ? ox_set(n, 0, o) : -1;
}

/* QuickGelu: x sigmoid(alpha x). */
static int op_quick_gelu(struct ox_node *n)
{
	struct webnn_operand *x;
	OX_IN(n, 0, x);
	if (need_float(n, "X", 0))
		return -1;
	double alpha = ox_attr_f(n, "alpha", 1.702f);
	struct webnn_operand *o =
		BIN(mul, x, UN(sigmoid, BIN(mul, x, ox_scalar(n, n->in[0]->type, alpha))));
	return o ? ox_set(n, 0, o) : -1;
}

/* BiasAdd: X + bias + skip. */
static int op_bias_add(struct ox_node *n)
{
	struct webnn_operand *x, *b, *s;
	OX_IN(n, 0, x);
	OX_IN(n, 1, b);
	OX_IN(n, 2, s);
	struct webnn_operand *o = BIN(add, BIN(add, x, b), s);
	return o ? ox_set(n, 0, o) : -1;
}

/* ---------------------------------------------------------------- normalizations */

/* Normalizes x over its last axis: layer normalization (mean removed) or RMS (simplified).
 * Sets output 0 and, when the model names them, the statistics outputs mean_out and inv_out
 * (their shape is x's with the last axis 1; SIZE_MAX: the operator has none). The RMS form
 * removes no mean: its mean output is 0, as onnxruntime leaves it. */
static int norm_last(struct ox_node *n, struct webnn_operand *x, struct webnn_operand *gamma,
		     struct webnn_operand *beta, bool simplified, double eps, size_t mean_out,
		     size_t inv_out)
{
	if (!x)
		return -1;
	struct webnn_operand_desc d;
	ox_desc(x, &d);
	enum webnn_data_type t = d.data_type;
	struct webnn_operand *centered = x, *mean = NULL;
	if (!simplified) {
		mean = reduce_mean_last(n, x);
		centered = BIN(sub, x, mean);
	} else if (want_out(n, mean_out)) {
		uint32_t sd[WEBNN_MAX_RANK];
		memcpy(sd, d.shape, sizeof(sd[0]) * d.rank);
		sd[d.rank - 1] = 1;
		mean = expand(n, ox_scalar(n, t, 0), d.rank, sd);
	}
	struct webnn_operand *inv =
		UN(reciprocal, UN(sqrt, BIN(add, reduce_mean_last(n, BIN(mul, centered, centered)),
					    ox_scalar(n, t, eps))));
	struct webnn_operand *y = BIN(mul, centered, inv);
	if (gamma)
		y = BIN(mul, y, gamma);
	if (beta)
		y = BIN(add, y, beta);
	if (!y)
		return -1;
	ox_set(n, 0, y);
	if (want_out(n, mean_out)) {
		if (!mean)
			return -1;
		ox_set(n, mean_out, mean);
	}
	if (want_out(n, inv_out)) {
		if (!inv)
			return -1;
		ox_set(n, inv_out, inv);
	}
	return 0;
}

/* SimplifiedLayerNormalization (RMS norm): X / sqrt(mean(X^2) + epsilon) * scale over the
 * axes from axis on; output 1 the inverse standard deviation. */
static int op_simplified_layer_norm(struct ox_node *n)
{
	struct webnn_operand *x, *scale;
	OX_IN(n, 0, x);
	OX_IN(n, 1, scale);
	if (need_float(n, "X", 0))
		return -1;
	struct ox_val *v = n->in[0];
	uint32_t axis;
	if (ox_axis(n, ox_attr_i(n, "axis", -1), v->rank, &axis))
		return -1;
	double eps = ox_attr_f(n, "epsilon", 1e-5f);
	if (axis == v->rank - 1)
		return norm_last(n, x, scale, NULL, true, eps, SIZE_MAX, 1);
	/* several normalized axes: flattened into one, the statistics reshaped back */
	uint32_t lead[WEBNN_MAX_RANK], inner = 1;
	for (uint32_t i = 0; i < axis; i++)
		lead[i] = v->dims[i];
	for (uint32_t i = axis; i < v->rank; i++)
		inner *= v->dims[i];
	lead[axis] = inner;
	struct webnn_operand *flat = rs(n, x, axis + 1, lead);
	if (norm_last(n, flat, NULL, NULL, true, eps, SIZE_MAX, 1))
		return -1;
	struct webnn_operand *y = BIN(mul, rs(n, n->out[0].op, v->rank, v->dims), scale);
	if (!y)
		return -1;
	ox_set(n, 0, y);
	if (want_out(n, 1)) {
		uint32_t sd[WEBNN_MAX_RANK];
		for (uint32_t i = 0; i < v->rank; i++)
			sd[i] = i < axis ? v->dims[i] : 1;
		struct webnn_operand *inv = rs(n, n->out[1].op, v->rank, sd);
		if (!inv)
			return -1;
		ox_set(n, 1, inv);
	}
	return 0;
}

/* SkipLayerNormalization and SkipSimplifiedLayerNormalization: s = input + skip (+ bias),
 * normalized over the hidden axis; outputs: output, mean, inv_std_var, input_skip_bias_sum. */
static int skip_norm(struct ox_node *n, bool simplified)
{
	struct webnn_operand *x, *skip, *gamma, *beta = NULL, *bias = NULL;
	OX_IN(n, 0, x);
	OX_IN(n, 1, skip);
	OX_IN(n, 2, gamma);
	size_t bias_at = simplified ? 3 : 4;
	if (!simplified && ox_has_in(n, 3))
		OX_IN(n, 3, beta);
	if (ox_has_in(n, bias_at))
		OX_IN(n, bias_at, bias);
	if (need_float(n, "input", 0) || need_rank(n, "input", 0, 2, 3))
		return -1;
	struct webnn_operand *s = BIN(add, x, skip);
	if (bias)
		s = BIN(add, s, bias);
	if (norm_last(n, s, gamma, beta, simplified, ox_attr_f(n, "epsilon", 1e-12f), 1, 2))
		return -1;
	if (want_out(n, 3))
		ox_set(n, 3, s);
	return 0;
}

static int op_skip_layer_norm(struct ox_node *n)
{
	return skip_norm(n, false);
}

static int op_skip_simplified_layer_norm(struct ox_node *n)
{
	return skip_norm(n, true);
}

/* EmbedLayerNormalization: word + position (+ segment) embeddings, layer-normalized; output 1
 * counts each row's mask entries equal to 1, output 2 is the embeddings' sum. */
static int op_embed_layer_norm(struct ox_node *n)
{
	struct webnn_operand *ids, *word, *pos, *gamma, *beta, *o;
	OX_IN(n, 0, ids);
	OX_IN(n, 2, word);
	OX_IN(n, 3, pos);
	OX_IN(n, 5, gamma);
	OX_IN(n, 6, beta);
	if (need_rank(n, "input_ids", 0, 2, 2))
		return -1;
	uint32_t batch = n->in[0]->dims[0], seq = n->in[0]->dims[1];
	struct webnn_operand *pids;
	if (ox_has_in(n, 8)) {
		OX_IN(n, 8, pids);
	} else {
		uint32_t d2[2] = { 1, seq };
		pids = rs(n, iota(n, seq), 2, d2);
	}
	struct webnn_operand *sum = BIN(add, gather(n, word, ids, 0), gather(n, pos, pids, 0));
	if (ox_has_in(n, 1) != ox_has_in(n, 4))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "segment_ids and segment_embedding must be given together");
	if (ox_has_in(n, 1)) {
		struct webnn_operand *seg, *segw;
		OX_IN(n, 1, seg);
		OX_IN(n, 4, segw);
		sum = BIN(add, sum, gather(n, segw, seg, 0));
	}
	if (norm_last(n, sum, gamma, beta, false, ox_attr_f(n, "epsilon", 1e-12f), SIZE_MAX,
		      SIZE_MAX))
		return -1;
	if (want_out(n, 1)) {
		if (ox_has_in(n, 7)) {
			struct webnn_operand *mask;
			OX_IN(n, 7, mask);
			struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
			uint32_t axis = 1;
			ro.axes = &axis;
			ro.n_axes = 1;
			struct webnn_operand *ones = cast(
				n, BIN(equal, mask, ox_scalar(n, n->in[7]->type, 1)), WEBNN_INT32);
			if (!ones)
				return -1;
			OX_B(n, "reduceSum", webnn_builder_reduce_sum(n->M->b, ones, &ro, &o));
		} else {
			static const int32_t zero = 0;
			uint32_t one = 1;
			o = expand(n, ox_const(n, WEBNN_INT32, 1, &one, &zero), 1, &batch);
		}
		if (!o)
			return -1;
		ox_set(n, 1, o);
	}
	if (want_out(n, 2))
		ox_set(n, 2, sum);
	return 0;
}

/* ---------------------------------------------------------------- rotary embeddings */

/* Rotates the first rot channels of x's last axis by the angles whose cosines and sines are
 * cs and sn (broadcastable to x's shape with the last axis rot / 2): the halves form
 * (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin), or the interleaved pairs. */
static struct webnn_operand *rotate(struct ox_node *n, struct webnn_operand *x,
				    struct webnn_operand *cs, struct webnn_operand *sn,
				    uint32_t rot, bool interleaved)
{
	if (!x || !cs || !sn)
		return NULL;
	struct webnn_operand_desc d;
	ox_desc(x, &d);
	uint32_t last = d.rank - 1, head = d.shape[last], half = rot / 2;
	struct webnn_operand *xr = rot == head ? x : sl(n, x, last, 0, rot), *x1, *x2, *o1, *o2, *o;
	if (!interleaved) {
		x1 = sl(n, xr, last, 0, half);
		x2 = sl(n, xr, last, half, half);
		o1 = BIN(sub, BIN(mul, x1, cs), BIN(mul, x2, sn));
		o2 = BIN(add, BIN(mul, x2, cs), BIN(mul, x1, sn));
		struct webnn_operand *parts[2] = { o1, o2 };
		o = cat(n, parts, 2, last);
	} else {
		uint32_t pd[WEBNN_MAX_RANK + 1], cd[WEBNN_MAX_RANK + 1];
		memcpy(pd, d.shape, sizeof(pd[0]) * d.rank);
		pd[last] = half;
		pd[last + 1] = 2;
		struct webnn_operand *pairs = rs(n, xr, d.rank + 1, pd);
		x1 = sl(n, pairs, last + 1, 0, 1);
		x2 = sl(n, pairs, last + 1, 1, 1);
		struct webnn_operand_desc cdd;
		ox_desc(cs, &cdd);
		memcpy(cd, cdd.shape, sizeof(cd[0]) * cdd.rank);
		cd[cdd.rank] = 1;
		struct webnn_operand *c = rs(n, cs, cdd.rank + 1, cd), *s = rs(n, sn, cdd.rank + 1, cd);
		o1 = BIN(sub, BIN(mul, x1, c), BIN(mul, x2, s));
		o2 = BIN(add, BIN(mul, x2, c), BIN(mul, x1, s));
		struct webnn_operand *parts[2] = { o1, o2 };
		pd[last] = rot;
		o = rs(n, cat(n, parts, 2, last + 1), d.rank, pd);
	}
	if (rot != head) {
		struct webnn_operand *parts[2] = { o, sl(n, x, last, rot, head - rot) };
		o = cat(n, parts, 2, last);
	}
	return o;
}

/* RotaryEmbedding: input [B, S, N*H] or [B, N, S, H]; position_ids [B, S], or [1] as the
 * first position (the rows then follow on); cos_cache and sin_cache [max_position, rot / 2]. */
static int op_rotary_embedding(struct ox_node *n)
{
	struct webnn_operand *x, *pid, *cc, *sc;
	OX_IN(n, 0, x);
	OX_IN(n, 1, pid);
	OX_IN(n, 2, cc);
	OX_IN(n, 3, sc);
	if (need_float(n, "input", 0) || need_rank(n, "input", 0, 3, 4) ||
	    need_rank(n, "cos_cache", 2, 2, 2) || need_rank(n, "position_ids", 1, 1, 2))
		return -1;
	if (ox_attr_i(n, "is_packed_batching", 0))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "is_packed_batching 1 is not supported: the packed rows' positions "
			       "come from a run-time batch layout");
	struct ox_val *v = n->in[0];
	bool bnsh = v->rank == 4;
	uint32_t batch = v->dims[0], seq = bnsh ? v->dims[2] : v->dims[1];
	uint32_t half = n->in[2]->dims[1];
	uint32_t rot = (uint32_t)ox_attr_i(n, "rotary_embedding_dim", 0);
	int64_t heads = ox_attr_i(n, "num_heads", 0);
	uint32_t head;
	if (bnsh) {
		head = v->dims[3];
	} else if (heads > 0) {
		if (v->dims[2] % heads)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				       "hidden size %u is not a multiple of num_heads %lld",
				       v->dims[2], (long long)heads);
		head = v->dims[2] / (uint32_t)heads;
	} else {
		if (rot)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				       "rotary_embedding_dim %u needs num_heads (rank-3 input)", rot);
		head = 2 * half;
	}
	if (!rot)
		rot = head;
	if (rot != 2 * half || rot > head || (bnsh ? 0 : v->dims[2] % head))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "cos_cache width %u must be half the rotary dimension %u "
			       "(rotary_embedding_dim, else the head size %u)", half, rot, head);
	/* positions [B or 1, S] */
	struct webnn_operand *pos;
	if (n->in[1]->rank == 1) {
		uint32_t d2[2] = { 1, seq };
		pos = rs(n, BIN(add, iota(n, seq), cast(n, pid, WEBNN_INT32)), 2, d2);
	} else {
		pos = pid;
	}
	struct webnn_operand *cs = gather(n, cc, pos, 0), *sn = gather(n, sc, pos, 0);
	uint32_t pb = n->in[1]->rank == 1 ? 1 : n->in[1]->dims[0];
	uint32_t cd[4];
	struct webnn_operand *xs = x;
	uint32_t xd[4];
	if (bnsh) {
		cd[0] = pb, cd[1] = 1, cd[2] = seq, cd[3] = half;
	} else {
		cd[0] = pb, cd[1] = seq, cd[2] = 1, cd[3] = half;
		xd[0] = batch, xd[1] = seq, xd[2] = v->dims[2] / head, xd[3] = head;
		xs = rs(n, x, 4, xd);
	}
	struct webnn_operand *o = rotate(n, xs, rs(n, cs, 4, cd), rs(n, sn, 4, cd), rot,
					 ox_attr_i(n, "interleaved", 0) != 0);
	if (!bnsh)
		o = rs(n, o, v->rank, v->dims);
	return o ? ox_set(n, 0, o) : -1;
}

/* ---------------------------------------------------------------- attention */

/* [B, L, N*H] -> [B, N, L, H]. */
static struct webnn_operand *heads_first(struct ox_node *n, struct webnn_operand *x,
					 uint32_t heads)
{
	if (!x)
		return NULL;
	struct webnn_operand_desc d;
	ox_desc(x, &d);
	uint32_t dims[4] = { d.shape[0], d.shape[1], heads, d.shape[2] / heads };
	static const uint32_t perm[4] = { 0, 2, 1, 3 };
	return tr(n, rs(n, x, 4, dims), 4, perm);
}

static struct webnn_operand *softmax(struct ox_node *n, struct webnn_operand *x)
{
	struct webnn_operand *o = NULL;
	if (!x)
		return NULL;
	return chk(n, webnn_builder_softmax(n->M->b, x, 3, &o), "softmax", &o);
}

/* softmax(q k^T scale + bias, masked where allowed is 0) v for q [B, N, S, H], k [B, N, T, H],
 * v [B, N, T, Hv]; softcap > 0 bounds the scaled scores to (-softcap, softcap) through tanh
 * before the bias is added; sink (broadcastable to [B, N, S, 1]) is one more score in every
 * row's softmax that weighs no value (smooth softmax: 0; GroupQueryAttention's head_sink: one
 * per head). Returns [B, S, N*Hv]. */
static struct webnn_operand *sdpa(struct ox_node *n, struct webnn_operand *q,
				  struct webnn_operand *k, struct webnn_operand *v, double scale,
				  struct webnn_operand *bias, struct webnn_operand *allowed,
				  double softcap, struct webnn_operand *sink)
{
	if (!q || !k || !v)
		return NULL;
	static const uint32_t kt[4] = { 0, 1, 3, 2 }, back[4] = { 0, 2, 1, 3 };
	struct webnn_operand_desc qd, vd;
	ox_desc(q, &qd);
	ox_desc(v, &vd);
	enum webnn_data_type t = qd.data_type;
	struct webnn_operand *s = BIN(mul, BIN(matmul, q, tr(n, k, 4, kt)), ox_scalar(n, t, scale));
	if (softcap > 0)
		s = BIN(mul, UN(tanh, BIN(div, s, ox_scalar(n, t, softcap))),
			ox_scalar(n, t, softcap));
	if (bias)
		s = BIN(add, s, bias);
	if (allowed)
		s = where(n, allowed, s, ox_scalar(n, t, -FLT_MAX));
	if (!s)
		return NULL;
	struct webnn_operand_desc sd;
	ox_desc(s, &sd);
	struct webnn_operand *p;
	if (sink) {
		uint32_t zd[4] = { sd.shape[0], sd.shape[1], sd.shape[2], 1 };
		struct webnn_operand *parts[2] = { s, expand(n, sink, 4, zd) };
		struct webnn_operand *e = cat(n, parts, 2, 3);
		if (!e)
			return NULL;
		p = sl(n, softmax(n, e), 3, 0, sd.shape[3]);
	} else {
		p = softmax(n, s);
	}
	uint32_t od[3] = { qd.shape[0], qd.shape[2], qd.shape[1] * vd.shape[3] };
	return rs(n, tr(n, BIN(matmul, p, v), 4, back), 3, od);
}

/* Where the key positions j of [T] are allowed for query rows i of [S] under a causal mask:
 * the queries are the last S positions (j <= T - S + i; onnxruntime aligns them so, past or
 * not): uint8 [S, T]. */
static struct webnn_operand *causal(struct ox_node *n, uint32_t s, uint32_t t)
{
	uint32_t offset = t >= s ? t - s : 0;
	uint8_t *m = ox_keep(n->M, malloc((size_t)s * t + 1));
	if (!m) {
		ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < s; i++)
		for (uint32_t j = 0; j < t; j++)
			m[(size_t)i * t + j] = j <= offset + i;
	uint32_t d[2] = { s, t };
	return ox_const(n, WEBNN_UINT8, 2, d, m);
}

/* The allowed key positions of a key padding mask (Attention's mask_index, MultiHeadAttention's
 * key_padding_mask) as uint8 broadcastable to [B, N, S, T]: [B] keeps j < end[b]; [2B] keeps
 * start[b] <= j < end[b]; [B, T] keeps the non-zero entries; [B, S, T] likewise per query. */
static struct webnn_operand *padding_allowed(struct ox_node *n, size_t i, uint32_t batch,
					     uint32_t seq, uint32_t total, const char *role)
{
	struct ox_val *v = n->in[i];
	struct webnn_operand *m = ox_operand(n, v);
	if (!m)
		return NULL;
	uint32_t d4[4] = { 1, 1, 1, total };
	if (v->rank == 1 && (v->dims[0] == batch || v->dims[0] == 2 * batch)) {
		struct webnn_operand *j = rs(n, iota(n, total), 4, d4);
		struct webnn_operand *mi = cast(n, m, WEBNN_INT32);
		uint32_t bd[4] = { batch, 1, 1, 1 };
		struct webnn_operand *end = rs(n, sl(n, mi, 0, 0, batch), 4, bd);
		struct webnn_operand *ok = BIN(lesser, j, end);
		if (v->dims[0] == 2 * batch)
			ok = BIN(logical_and, ok,
				 BIN(greater_or_equal, j, rs(n, sl(n, mi, 0, batch, batch), 4, bd)));
		return ok;
	}
	if (v->rank == 2 && v->dims[0] == batch && v->dims[1] == total) {
		uint32_t d[4] = { batch, 1, 1, total };
		return rs(n, BIN(not_equal, m, ox_scalar(n, v->type, 0)), 4, d);
	}
	if (v->rank == 3 && v->dims[0] == batch && v->dims[1] == seq && v->dims[2] == total) {
		uint32_t d[4] = { batch, 1, seq, total };
		return rs(n, BIN(not_equal, m, ox_scalar(n, v->type, 0)), 4, d);
	}
	char shape[64] = "";
	for (uint32_t k = 0; k < v->rank; k++)
		snprintf(shape + strlen(shape), sizeof(shape) - strlen(shape), "%s%u", k ? ", " : "",
			 v->dims[k]);
	ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
		"%s of shape [%s] is not supported: [%u] (end positions), [%u] (ends and starts), "
		"[%u, %u] or [%u, %u, %u] are", role, shape, batch, 2 * batch, batch, total, batch,
		seq, total);
	return NULL;
}

/* The additive mask of Attention and MultiHeadAttention: 0 where allowed, mask_filter_value
 * elsewhere (as onnxruntime's kernels fill it), plus attention_bias. NULL with no error when
 * there is nothing to add. */
static struct webnn_operand *attention_bias(struct ox_node *n, struct webnn_operand *allowed,
					    size_t bias_at, enum webnn_data_type t, bool *failed)
{
	struct webnn_operand *add = NULL;
	*failed = false;
	if (allowed) {
		add = where(n, allowed, ox_scalar(n, t, 0),
			    ox_scalar(n, t, ox_attr_f(n, "mask_filter_value", -10000.0f)));
		if (!add)
			return *failed = true, NULL;
	}
	if (ox_has_in(n, bias_at)) {
		struct webnn_operand *ab = ox_operand(n, n->in[bias_at]);
		add = add ? BIN(add, add, ab) : ab;
		if (!add)
			return *failed = true, NULL;
	}
	return add;
}

static struct webnn_operand *and_mask(struct ox_node *n, struct webnn_operand *a,
				      struct webnn_operand *b)
{
	return !a ? b : !b ? a : BIN(logical_and, a, b);
}

static int refuse_input(struct ox_node *n, size_t i, const char *name, const char *why)
{
	if (ox_has_in(n, i))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "input %s is not supported: %s", name,
			       why);
	return 0;
}

static int refuse_attr(struct ox_node *n, const char *name, int64_t def, const char *why)
{
	int64_t v = ox_attr_i(n, name, def);
	if (v != def)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "%s %lld is not supported: %s", name,
			       (long long)v, why);
	return 0;
}

static int heads_attr(struct ox_node *n, const char *name, uint32_t *out)
{
	int64_t h = ox_attr_i(n, name, 0);
	if (h <= 0 || h > 65536)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "%s %lld: a positive head count is required",
			       name, (long long)h);
	*out = (uint32_t)h;
	return 0;
}

/* Attention: input [B, S, In] projected by weights [In, Dq + Dk + Dv] (+ bias) into q, k, v of
 * num_heads heads; past [2, B, N, P, H] prepended to k and v (present = both, [2, B, N, P+S, H]);
 * mask_index, unidirectional and attention_bias as onnxruntime's Attention. */
static int op_attention(struct ox_node *n)
{
	struct webnn_operand *x, *w;
	OX_IN(n, 0, x);
	OX_IN(n, 1, w);
	uint32_t heads = 0;
	if (need_float(n, "input", 0) || need_rank(n, "input", 0, 3, 3) ||
	    need_rank(n, "weights", 1, 2, 2) || heads_attr(n, "num_heads", &heads) ||
	    refuse_attr(n, "do_rotary", 0, "rotary embedding inside Attention is not composed "
			"(onnxruntime's CPU kernel refuses it too); fuse the model as "
			"MultiHeadAttention + RotaryEmbedding") ||
	    refuse_attr(n, "past_present_share_buffer", 0,
			"a shared key-value buffer needs past_sequence_length at run time") ||
	    refuse_input(n, 6, "past_sequence_length", "it only serves a shared key-value buffer"))
		return -1;
	struct ox_val *xv = n->in[0];
	uint32_t batch = xv->dims[0], seq = xv->dims[1], total_w = n->in[1]->dims[1];
	const int64_t *hs;
	long nh = ox_attr_ints(n, "qkv_hidden_sizes", &hs);
	uint32_t sizes[3];
	if (nh == 3) {
		for (int i = 0; i < 3; i++)
			sizes[i] = hs[i] > 0 && hs[i] < (1 << 24) ? (uint32_t)hs[i] : 0;
	} else if (nh < 0) {
		sizes[0] = sizes[1] = sizes[2] = total_w / 3;
	} else {
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "qkv_hidden_sizes has %ld values: 3 expected",
			       nh);
	}
	if (!sizes[0] || sizes[0] != sizes[1] || sizes[0] % heads || sizes[2] % heads ||
	    sizes[0] + sizes[1] + sizes[2] != total_w)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "qkv_hidden_sizes (%u, %u, %u) do not fit weights' %u columns and "
			       "num_heads %u (q and k sizes equal, each a multiple of num_heads)",
			       sizes[0], sizes[1], sizes[2], total_w, heads);
	struct webnn_operand *proj = BIN(matmul, x, w);
	if (ox_has_in(n, 2))
		proj = BIN(add, proj, ox_operand(n, n->in[2]));
	struct webnn_operand *q = heads_first(n, sl(n, proj, 2, 0, sizes[0]), heads);
	struct webnn_operand *k = heads_first(n, sl(n, proj, 2, sizes[0], sizes[1]), heads);
	struct webnn_operand *v = heads_first(n, sl(n, proj, 2, sizes[0] + sizes[1], sizes[2]), heads);
	uint32_t past = 0;
	if (ox_has_in(n, 4)) {
		struct ox_val *pv = n->in[4];
		uint32_t hk = sizes[1] / heads;
		if (pv->rank != 5 || pv->dims[0] != 2 || pv->dims[1] != batch || pv->dims[2] != heads ||
		    pv->dims[4] != hk || sizes[1] != sizes[2])
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				       "past must be [2, %u, %u, P, %u] with equal k and v sizes",
				       batch, heads, hk);
		past = pv->dims[3];
		struct webnn_operand *p = ox_operand(n, pv);
		uint32_t d4[4] = { batch, heads, past, hk };
		struct webnn_operand *pk[2] = { rs(n, sl(n, p, 0, 0, 1), 4, d4), k };
		struct webnn_operand *pvv[2] = { rs(n, sl(n, p, 0, 1, 1), 4, d4), v };
		k = cat(n, pk, 2, 2);
		v = cat(n, pvv, 2, 2);
	}
	uint32_t total = past + seq;
	if (want_out(n, 1)) {
		if (sizes[1] != sizes[2])
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				       "present needs equal k and v hidden sizes");
		uint32_t d5[5] = { 1, batch, heads, total, sizes[1] / heads };
		struct webnn_operand *kv[2] = { rs(n, k, 5, d5), rs(n, v, 5, d5) };
		struct webnn_operand *present = cat(n, kv, 2, 0);
		if (!present)
			return -1;
		ox_set(n, 1, present);
	}
	struct webnn_operand *allowed = NULL;
	if (ox_has_in(n, 3) &&
	    !(allowed = padding_allowed(n, 3, batch, seq, total, "mask_index")))
		return -1;
	if (ox_attr_i(n, "unidirectional", 0))
		allowed = and_mask(n, allowed, causal(n, seq, total));
	bool failed;
	struct webnn_operand *add = attention_bias(n, allowed, 5, xv->type, &failed);
	if (failed)
		return -1;
	double scale = ox_attr_f(n, "scale", 0);
	if (scale == 0)
		scale = 1 / sqrt((double)(sizes[0] / heads));
	struct webnn_operand *o = sdpa(n, q, k, v, scale, add, NULL, 0, NULL);
	return o ? ox_set(n, 0, o) : -1;
}

/* MultiHeadAttention: query [B, S, D]; key and value [B, L, D] (projected, bias added, past_key
 * and past_value [B, N, P, H] prepended, present_key and present_value the results) or
 * [B, N, L, H] (cross-attention keys used as they are). */
/* One of a packed tensor's parts: x [B, L, N, parts, H] -> part i as [B, L, N*H]. */
static struct webnn_operand *unpack(struct ox_node *n, struct webnn_operand *x, uint32_t i)
{
	if (!x)
		return NULL;
	struct webnn_operand_desc d;
	ox_desc(x, &d);
	uint32_t od[3] = { d.shape[0], d.shape[1], d.shape[2] * d.shape[4] };
	return rs(n, sl(n, x, 3, i, 1), 3, od);
}

static int op_multi_head_attention(struct ox_node *n)
{
	struct webnn_operand *q, *k = NULL, *v = NULL;
	OX_IN(n, 0, q);
	uint32_t heads = 0;
	if (need_float(n, "query", 0) || heads_attr(n, "num_heads", &heads))
		return -1;
	if (refuse_input(n, 8, "past_sequence_length", "it only serves a shared key-value buffer") ||
	    refuse_input(n, 9, "cache_indirection", "beam search reorders the cache at run time"))
		return -1;
	if (want_out(n, 3))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "output qk (the raw scores) is not supported");
	struct ox_val *qv = n->in[0], *kv = in_val(n, 1), *vv = in_val(n, 2);
	/* q, k and v as [B, S, D] and [B, L, Dk], [B, L, Dv] (or k, v [B, N, L, H]): packed forms
	 * [B, S, N, 3, H] (query) and [B, L, N, 2, H] (key) unpacked */
	uint32_t batch = qv->dims[0], seq = qv->dims[1], dq, dk, dv;
	bool bnsh = false;
	if (qv->rank == 5 && qv->dims[3] == 3 && !kv && !vv) {
		dq = dk = dv = qv->dims[2] * qv->dims[4];
		k = unpack(n, q, 1);
		v = unpack(n, q, 2);
		q = unpack(n, q, 0);
	} else if (qv->rank == 3 && kv && kv->rank == 5 && kv->dims[3] == 2 && !vv) {
		dq = qv->dims[2];
		dk = dv = kv->dims[2] * kv->dims[4];
		OX_IN(n, 1, k);
		v = unpack(n, k, 1);
		k = unpack(n, k, 0);
	} else if (qv->rank == 3 && kv && vv && kv->rank == vv->rank &&
		   (kv->rank == 3 || kv->rank == 4)) {
		dq = qv->dims[2];
		OX_IN(n, 1, k);
		OX_IN(n, 2, v);
		bnsh = kv->rank == 4;
		dk = bnsh ? kv->dims[1] * kv->dims[3] : kv->dims[2];
		dv = bnsh ? vv->dims[1] * vv->dims[3] : vv->dims[2];
	} else {
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "query [B, S, D] with key and value both [B, L, D] or both "
			       "[B, N, L, H], or key [B, L, N, 2, H] alone, or query [B, S, N, 3, H] "
			       "alone are expected");
	}
	if (dq % heads || dk != dq || dv % heads)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "query and key hidden sizes %u and %u must be equal multiples of "
			       "num_heads %u (value %u)", dq, dk, heads, dv);
	if (ox_has_in(n, 3)) {
		if (bnsh)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "bias with key and value in [B, N, L, H] is not supported");
		struct webnn_operand *b = ox_operand(n, n->in[3]);
		q = BIN(add, q, sl(n, b, 0, 0, dq));
		k = BIN(add, k, sl(n, b, 0, dq, dk));
		v = BIN(add, v, sl(n, b, 0, dq + dk, dv));
	}
	q = heads_first(n, q, heads);
	if (!bnsh) {
		k = heads_first(n, k, heads);
		v = heads_first(n, v, heads);
	} else if (ox_has_in(n, 6) || ox_has_in(n, 7)) {
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "past_key/past_value with key and value in [B, N, L, H] is not "
			       "supported");
	}
	if (!q || !k || !v)
		return -1;
	if (ox_has_in(n, 6) != ox_has_in(n, 7))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "past_key and past_value must be given together");
	if (ox_has_in(n, 6)) {
		struct webnn_operand *pk = ox_operand(n, n->in[6]), *pv = ox_operand(n, n->in[7]);
		struct webnn_operand *ks[2] = { pk, k }, *vs[2] = { pv, v };
		k = cat(n, ks, 2, 2);
		v = cat(n, vs, 2, 2);
		if (!k || !v)
			return -1;
	}
	struct webnn_operand_desc kd;
	ox_desc(k, &kd);
	uint32_t total = kd.shape[2];
	if (want_out(n, 1))
		ox_set(n, 1, k);
	if (want_out(n, 2))
		ox_set(n, 2, v);
	struct webnn_operand *allowed = NULL;
	if (ox_has_in(n, 4) &&
	    !(allowed = padding_allowed(n, 4, batch, seq, total, "key_padding_mask")))
		return -1;
	if (ox_attr_i(n, "unidirectional", 0)) {
		if (total != seq)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "unidirectional 1 with %u keys for %u queries (past_key, or "
				       "key longer than query) is not supported: onnxruntime's kernel "
				       "masks the past keys there, which the operator's definition "
				       "does not say; give a causal attention_bias instead", total, seq);
		allowed = and_mask(n, allowed, causal(n, seq, total));
	}
	bool failed;
	struct webnn_operand *add = attention_bias(n, allowed, 5, qv->type, &failed);
	if (failed)
		return -1;
	double scale = ox_attr_f(n, "scale", 0);
	if (scale == 0)
		scale = 1 / sqrt((double)(dq / heads));
	struct webnn_operand *o = sdpa(n, q, k, v, scale, add, NULL, 0, NULL);
	return o ? ox_set(n, 0, o) : -1;
}

/* GroupQueryAttention, as onnxruntime's kernels define it: kv_num_heads key/value heads each
 * shared by num_heads / kv_num_heads query heads. The present caches are
 * [B, kvN, max(P, total_sequence_length), H]: batch b's first pos_b rows of the past
 * (pos_b = 0 on the first prompt, where S equals total_sequence_length, else
 * seqlens_k[b] + 1 - S) followed by the S new rows (a scatterND at run-time positions), zeros
 * after; query row i sees keys j <= pos_b + i, the last local_window_size of them when that is
 * positive (onnxruntime 1.30's CPU kernel counts the row's own key in the window). */
static int op_group_query_attention(struct ox_node *n)
{
	struct webnn_operand *q, *k = NULL, *v = NULL, *seqlens;
	OX_IN(n, 0, q);
	uint32_t heads = 0, kv_heads = 0;
	if (need_float(n, "query", 0) || need_rank(n, "query", 0, 3, 3) ||
	    heads_attr(n, "num_heads", &heads) || heads_attr(n, "kv_num_heads", &kv_heads))
		return -1;
	if (heads % kv_heads)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "num_heads %u is not a multiple of kv_num_heads %u", heads, kv_heads);
	if (want_out(n, 3))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "output output_qk (the raw scores) is not supported");
	OX_IN(n, 5, seqlens);
	if (!ox_has_in(n, 6))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "input total_sequence_length is missing");
	int64_t *tsl;
	size_t ntsl;
	if (!n->in[6]->host)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "total_sequence_length must be known at load time (an initializer, "
			       "a constant or computed from shapes): it sets the present caches' "
			       "length");
	if (ox_host_i64(n, n->in[6], "total_sequence_length", &tsl, &ntsl))
		return -1;
	if (ntsl != 1 || tsl[0] <= 0 || tsl[0] > (1 << 24))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "total_sequence_length must be one positive value");
	uint32_t total = (uint32_t)tsl[0];
	struct ox_val *qv = n->in[0];
	enum webnn_data_type t = qv->type;
	uint32_t batch = qv->dims[0], seq = qv->dims[1], head;
	if (ox_has_in(n, 1) != ox_has_in(n, 2))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "key and value must be given together (or neither, packed in query)");
	struct webnn_operand *qh, *kn, *vn;
	if (ox_has_in(n, 1)) {
		if (qv->dims[2] % heads)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				       "query hidden size %u is not a multiple of num_heads %u",
				       qv->dims[2], heads);
		head = qv->dims[2] / heads;
		OX_IN(n, 1, k);
		OX_IN(n, 2, v);
		qh = q;
	} else {
		if (qv->dims[2] % (heads + 2 * kv_heads))
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				       "packed query width %u is not (num_heads + 2 kv_num_heads) x "
				       "head size", qv->dims[2]);
		head = qv->dims[2] / (heads + 2 * kv_heads);
		qh = sl(n, q, 2, 0, heads * head);
		k = sl(n, q, 2, heads * head, kv_heads * head);
		v = sl(n, q, 2, (heads + kv_heads) * head, kv_heads * head);
	}
	qh = heads_first(n, qh, heads);
	kn = heads_first(n, k, kv_heads);
	vn = heads_first(n, v, kv_heads);
	bool first_prompt = seq == total;
	/* pos_b: where batch b's new rows go, int32 [B] */
	struct webnn_operand *pos;
	uint32_t b1[1] = { batch };
	if (first_prompt)
		pos = expand(n, ox_scalar(n, WEBNN_INT32, 0), 1, b1);
	else
		pos = BIN(sub, rs(n, cast(n, seqlens, WEBNN_INT32), 1, b1),
			  ox_scalar(n, WEBNN_INT32, (double)seq - 1));
	if (ox_attr_i(n, "do_rotary", 0)) {
		struct webnn_operand *cc, *sc;
		OX_IN(n, 7, cc);
		OX_IN(n, 8, sc);
		if (need_rank(n, "cos_cache", 7, 2, 2))
			return -1;
		uint32_t half = n->in[7]->dims[1];
		if (2 * half > head)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				       "cos_cache width %u is more than half the head size %u", half,
				       head);
		/* positions [B, S] = pos_b + i */
		uint32_t bs[2] = { batch, 1 }, ss[2] = { 1, seq }, cd[4] = { batch, 1, seq, half };
		struct webnn_operand *p =
			ox_has_in(n, 9) ? cast(n, ox_operand(n, n->in[9]), WEBNN_INT32)
					: BIN(add, rs(n, pos, 2, bs), rs(n, iota(n, seq), 2, ss));
		struct webnn_operand *cs = rs(n, gather(n, cc, p, 0), 4, cd);
		struct webnn_operand *sn = rs(n, gather(n, sc, p, 0), 4, cd);
		bool il = ox_attr_i(n, "rotary_interleaved", 0) != 0;
		qh = rotate(n, qh, cs, sn, 2 * half, il);
		kn = rotate(n, kn, cs, sn, 2 * half, il);
	} else if (ox_has_in(n, 7) || ox_has_in(n, 8)) {
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "cos_cache and sin_cache need do_rotary 1");
	}
	/* the present caches */
	uint32_t past_len = 0;
	struct webnn_operand *pk = NULL, *pv = NULL;
	if (ox_has_in(n, 3) != ox_has_in(n, 4))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "past_key and past_value must be given together");
	if (ox_has_in(n, 3)) {
		struct ox_val *pkv = n->in[3];
		if (pkv->rank != 4 || pkv->dims[0] != batch || pkv->dims[1] != kv_heads ||
		    pkv->dims[3] != head)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				       "past_key must be [%u, %u, P, %u] (BNSH)", batch, kv_heads,
				       head);
		past_len = pkv->dims[2];
		pk = ox_operand(n, pkv);
		pv = ox_operand(n, n->in[4]);
	}
	uint32_t plen = past_len > total ? past_len : total;
	if (plen > past_len) {
		struct webnn_operand *z = expand(n, ox_scalar(n, t, 0), 4,
						 (uint32_t[4]){ batch, kv_heads, plen - past_len, head });
		if (pk) {
			struct webnn_operand *a[2] = { pk, z }, *c[2] = { pv, z };
			pk = cat(n, a, 2, 2);
			pv = cat(n, c, 2, 2);
		} else {
			pk = pv = z;
		}
	}
	if (seq > plen)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
			       "sequence length %u exceeds the cache length %u", seq, plen);
	/* rows j < pos_b of the past are kept, the rest zeroed (onnxruntime's present is a fresh
	 * buffer), then the new rows scattered at pos_b + i */
	uint32_t b4[4] = { batch, 1, 1, 1 }, j4[4] = { 1, 1, plen, 1 };
	struct webnn_operand *keep = BIN(lesser, rs(n, iota(n, plen), 4, j4), rs(n, pos, 4, b4));
	struct webnn_operand *zero = ox_scalar(n, t, 0);
	pk = where(n, keep, pk, zero);
	pv = where(n, keep, pv, zero);
	/* indices [B, kvN, S, 3] = (b, h, pos_b + i) */
	int32_t *bh = ox_keep(n->M, malloc((size_t)batch * kv_heads * seq * 3 * sizeof(int32_t)));
	if (!bh)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (uint32_t b = 0; b < batch; b++)
		for (uint32_t h = 0; h < kv_heads; h++)
			for (uint32_t i = 0; i < seq; i++) {
				int32_t *e = bh + (((size_t)b * kv_heads + h) * seq + i) * 3;
				e[0] = (int32_t)b, e[1] = (int32_t)h, e[2] = (int32_t)i;
			}
	uint32_t id[4] = { batch, kv_heads, seq, 3 };
	struct webnn_operand *base = ox_const(n, WEBNN_INT32, 4, id, bh);
	struct webnn_operand *shift = BIN(mul, rs(n, pos, 4, b4),
					  ox_const(n, WEBNN_INT32, 1, (uint32_t[1]){ 3 },
						   (int32_t[3]){ 0, 0, 1 }));
	struct webnn_operand *idx = BIN(add, base, shift), *present_k = NULL, *present_v = NULL;
	if (!idx || !pk || !pv || !kn || !vn || !qh)
		return -1;
	OX_B(n, "scatterND", webnn_builder_scatter_nd(n->M->b, pk, idx, kn, &present_k));
	OX_B(n, "scatterND", webnn_builder_scatter_nd(n->M->b, pv, idx, vn, &present_v));
	if (want_out(n, 1))
		ox_set(n, 1, present_k);
	if (want_out(n, 2))
		ox_set(n, 2, present_v);
	/* every query head reads its group's key/value head */
	struct webnn_operand *kk = present_k, *vv = present_v;
	uint32_t group = heads / kv_heads;
	if (group > 1) {
		uint32_t d5[5] = { batch, kv_heads, 1, plen, head }, e5[5] = { batch, kv_heads, group,
									    plen, head };
		uint32_t d4[4] = { batch, heads, plen, head };
		kk = rs(n, expand(n, rs(n, kk, 5, d5), 5, e5), 4, d4);
		vv = rs(n, expand(n, rs(n, vv, 5, d5), 5, e5), 4, d4);
	}
	/* allowed [B, 1, S, T]: pos_b + i - window < j <= pos_b + i */
	uint32_t bq[4] = { batch, 1, 1, 1 }, iq[4] = { 1, 1, seq, 1 }, jq[4] = { 1, 1, 1, plen };
	struct webnn_operand *last = BIN(add, rs(n, pos, 4, bq), rs(n, iota(n, seq), 4, iq));
	struct webnn_operand *j = rs(n, iota(n, plen), 4, jq);
	struct webnn_operand *allowed = BIN(lesser_or_equal, j, last);
	/* a prompt's keys stop at its row's length (rows past it, padding, see the valid keys) */
	if (first_prompt)
		allowed = BIN(logical_and, allowed,
			      BIN(lesser_or_equal, j, rs(n, cast(n, seqlens, WEBNN_INT32), 4, bq)));
	int64_t window = ox_attr_i(n, "local_window_size", -1);
	if (window > 0)
		allowed = BIN(logical_and, allowed,
			      BIN(greater, j,
				  BIN(sub, last, ox_scalar(n, WEBNN_INT32, (double)window))));
	double scale = ox_attr_f(n, "scale", 0);
	if (scale == 0)
		scale = 1 / sqrt((double)head);
	/* attention_bias [B or 1, N or 1, S, T <= cache length]: added after softcap (as
	 * onnxruntime 1.30 does); keys past its T are past every row's length (masked), bias 0 */
	struct webnn_operand *bias = NULL;
	if (ox_has_in(n, 10)) {
		struct ox_val *bv = n->in[10];
		if (bv->rank != 4 || bv->dims[2] != seq || bv->dims[3] > plen)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				       "attention_bias must be [B or 1, N or 1, %u, T <= %u]", seq, plen);
		bias = ox_operand(n, bv);
		if (bias && bv->dims[3] < plen) {
			uint32_t zd[4] = { bv->dims[0], bv->dims[1], seq, plen - bv->dims[3] };
			struct webnn_operand *parts[2] = { bias, expand(n, ox_scalar(n, t, 0), 4, zd) };
			bias = cat(n, parts, 2, 3);
		}
		if (!bias)
			return -1;
	}
	/* head_sink [N]: each head's extra softmax score; smooth_softmax alone: 0 */
	struct webnn_operand *sink = NULL;
	if (ox_has_in(n, 11)) {
		struct ox_val *hv = n->in[11];
		if (hv->rank != 1 || hv->dims[0] != heads)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "head_sink must be [%u]", heads);
		uint32_t hd[4] = { 1, heads, 1, 1 };
		if (!(sink = rs(n, ox_operand(n, hv), 4, hd)))
			return -1;
	} else if (ox_attr_i(n, "smooth_softmax", 0)) {
		if (!(sink = ox_scalar(n, t, 0)))
			return -1;
	}
	struct webnn_operand *o = sdpa(n, qh, kk, vv, scale, bias, allowed,
				       ox_attr_f(n, "softcap", 0), sink);
	return o ? ox_set(n, 0, o) : -1;
}

/* ---------------------------------------------------------------- fused matmul */

/* FusedMatMul: alpha (A or A^T) (B or B^T), the transposes over the last two axes. */
static int op_fused_matmul(struct ox_node *n)
{
	struct webnn_operand *a, *b;
	OX_IN(n, 0, a);
	OX_IN(n, 1, b);
	if (need_float(n, "A", 0) ||
	    refuse_attr(n, "transBatchA", 0, "moving the batch axes into the matrix is not composed") ||
	    refuse_attr(n, "transBatchB", 0, "moving the batch axes into the matrix is not composed"))
		return -1;
	struct webnn_operand *ab[2] = { a, b };
	static const char *const trans[2] = { "transA", "transB" };
	for (int i = 0; i < 2; i++) {
		if (!ox_attr_i(n, trans[i], 0))
			continue;
		uint32_t r = n->in[i]->rank, perm[WEBNN_MAX_RANK];
		if (r < 2)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "%s 1 needs a matrix (rank %u)",
				       trans[i], r);
		for (uint32_t k = 0; k < r; k++)
			perm[k] = k;
		perm[r - 2] = r - 1;
		perm[r - 1] = r - 2;
		ab[i] = tr(n, ab[i], r, perm);
	}
	if (n->in[0]->rank < 2 || n->in[1]->rank < 2)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "vector operands are not supported");
	struct webnn_operand *o = BIN(matmul, ab[0], ab[1]);
	double alpha = ox_attr_f(n, "alpha", 1.0f);
	if (alpha != 1.0)
		o = BIN(mul, o, ox_scalar(n, n->in[0]->type, alpha));
	return o ? ox_set(n, 0, o) : -1;
}

/* SimplifiedLayerNormalization is in onnxruntime's default domain (not in com.microsoft). */
const struct ox_op ox_ops_transformer[] = {
	{ "SimplifiedLayerNormalization", 1, 21, op_simplified_layer_norm },
	{ NULL, 0, 0, NULL },
};

/* Domain com.microsoft (its operators are all version 1). */
const struct ox_op ox_ops_contrib_transformer[] = {
	{ "Gelu", 1, 1, op_gelu },
	{ "BiasGelu", 1, 1, op_gelu },
	{ "FastGelu", 1, 1, op_fast_gelu },
	{ "QuickGelu", 1, 1, op_quick_gelu },
	{ "BiasAdd", 1, 1, op_bias_add },
	{ "FusedMatMul", 1, 1, op_fused_matmul },
	{ "SkipLayerNormalization", 1, 1, op_skip_layer_norm },
	{ "SkipSimplifiedLayerNormalization", 1, 1, op_skip_simplified_layer_norm },
	{ "EmbedLayerNormalization", 1, 1, op_embed_layer_norm },
	{ "RotaryEmbedding", 1, 1, op_rotary_embedding },
	{ "Attention", 1, 1, op_attention },
	{ "MultiHeadAttention", 1, 1, op_multi_head_attention },
	{ "GroupQueryAttention", 1, 1, op_group_query_attention },
	{ NULL, 0, 0, NULL },
};
