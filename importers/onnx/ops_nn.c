/* ONNX neural-network operators: convolution, pooling, normalization, Gemm/MatMul, softmax family, reductions. */
#include "importers/onnx/onnx_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- windows and padding */

struct window {
	uint32_t k[2], s[2], d[2], pad[4]; /* pad: top, bottom, left, right */
	uint32_t spatial;                  /* 1 or 2 */
};

/* Reads kernel_shape (or the filter's), strides, dilations, pads/auto_pad for a 1-D or 2-D
 * window over in[] (the spatial sizes). */
static int read_window(struct ox_node *n, uint32_t spatial, const uint32_t *in,
		       const uint32_t *filter_k, struct window *w, bool transpose)
{
	memset(w, 0, sizeof(*w));
	w->spatial = spatial;
	const int64_t *v;
	long c;
	for (uint32_t i = 0; i < 2; i++)
		w->k[i] = w->s[i] = w->d[i] = 1;
	uint32_t off = spatial == 1 ? 1 : 0; /* 1-D goes to the width axis */
	if ((c = ox_attr_ints(n, "kernel_shape", &v)) >= 0) {
		if ((uint32_t)c != spatial)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "kernel_shape has %ld values", c);
		for (uint32_t i = 0; i < spatial; i++)
			w->k[i + off] = (uint32_t)v[i];
	} else if (filter_k) {
		for (uint32_t i = 0; i < spatial; i++)
			w->k[i + off] = filter_k[i];
	} else {
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "kernel_shape is missing");
	}
	if ((c = ox_attr_ints(n, "strides", &v)) >= 0) {
		if ((uint32_t)c != spatial)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "strides has %ld values", c);
		for (uint32_t i = 0; i < spatial; i++)
			w->s[i + off] = (uint32_t)v[i];
	}
	if ((c = ox_attr_ints(n, "dilations", &v)) >= 0) {
		if ((uint32_t)c != spatial)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "dilations has %ld values", c);
		for (uint32_t i = 0; i < spatial; i++)
			w->d[i + off] = (uint32_t)v[i];
	}
	const char *ap = ox_attr_s(n, "auto_pad", "NOTSET");
	long np = ox_attr_ints(n, "pads", &v);
	bool has_pads = false;
	for (long i = 0; i < np; i++)
		has_pads |= v[i] != 0;
	if (strcmp(ap, "NOTSET") == 0) {
		if (np >= 0) {
			if ((uint32_t)np != 2 * spatial)
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "pads has %ld values", np);
			for (uint32_t i = 0; i < spatial; i++) {
				if (v[i] < 0 || v[i + spatial] < 0)
					return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "negative pads");
				w->pad[2 * (i + off)] = (uint32_t)v[i];
				w->pad[2 * (i + off) + 1] = (uint32_t)v[i + spatial];
			}
		}
		return 0;
	}
	if (has_pads)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "auto_pad %s with pads given", ap);
	if (strcmp(ap, "VALID") == 0)
		return 0;
	bool upper = strcmp(ap, "SAME_UPPER") == 0;
	if (!upper && strcmp(ap, "SAME_LOWER") != 0)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "auto_pad \"%s\"", ap);
	if (transpose)
		return 0; /* ConvTranspose computes its own from the output size */
	for (uint32_t i = 0; i < spatial; i++) {
		uint32_t a = i + off, out = (in[i] + w->s[a] - 1) / w->s[a];
		int64_t total = (int64_t)(out - 1) * w->s[a] + (int64_t)(w->k[a] - 1) * w->d[a] + 1 -
				in[i];
		if (total < 0)
			total = 0;
		uint32_t small = (uint32_t)(total / 2), big = (uint32_t)total - small;
		w->pad[2 * a] = upper ? small : big;
		w->pad[2 * a + 1] = upper ? big : small;
	}
	return 0;
}

/* 1-D tensors [N, C, L] travel as [N, C, 1, L]. */
static struct webnn_operand *to_2d(struct ox_node *n, struct webnn_operand *x)
{
	struct webnn_operand_desc d;
	ox_desc(x, &d);
	uint32_t s[4] = { d.shape[0], d.shape[1], 1, d.shape[2] };
	return ox_reshape(n, x, 4, s);
}

static int set_from_2d(struct ox_node *n, struct webnn_operand *o, uint32_t spatial)
{
	if (spatial == 1) {
		struct webnn_operand_desc d;
		ox_desc(o, &d);
		uint32_t s[3] = { d.shape[0], d.shape[1], d.shape[3] };
		if (!(o = ox_reshape(n, o, 3, s)))
			return -1;
	}
	return ox_set(n, 0, o);
}

static int spatial_of(struct ox_node *n, const struct ox_val *x)
{
	if (x->rank == 4)
		return 2;
	if (x->rank == 3)
		return 1;
	return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
		       "a %u-D input (WebNN convolutions and pools are 2-D; 1-D and 3-D are mapped)",
		       x->rank >= 2 ? x->rank - 2 : 0);
}

/* ---------------------------------------------------------------- 3-D windows */

/* WebNN's convolutions and pools are 2-D: a 3-D one is decomposed along depth (below). */
struct window3 {
	uint32_t k[3], s[3], d[3], pb[3], pe[3];
};

static int read_window3(struct ox_node *n, const uint32_t *in, const uint32_t *filter_k,
			struct window3 *w)
{
	const int64_t *v;
	long c;
	for (int i = 0; i < 3; i++) {
		w->k[i] = filter_k ? filter_k[i] : 1;
		w->s[i] = w->d[i] = 1;
		w->pb[i] = w->pe[i] = 0;
	}
	static const char *const names[3] = { "kernel_shape", "strides", "dilations" };
	uint32_t *dst[3] = { w->k, w->s, w->d };
	for (int a = 0; a < 3; a++) {
		if ((c = ox_attr_ints(n, names[a], &v)) < 0)
			continue;
		if (c != 3)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "%s has %ld values", names[a], c);
		for (int i = 0; i < 3; i++) {
			if (v[i] < 1 || v[i] > (1 << 20))
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "%s[%d] is %lld", names[a],
					       i, (long long)v[i]);
			dst[a][i] = (uint32_t)v[i];
		}
	}
	if (!filter_k && ox_attr_ints(n, "kernel_shape", &v) < 0)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "kernel_shape is missing");
	const char *ap = ox_attr_s(n, "auto_pad", "NOTSET");
	long np = ox_attr_ints(n, "pads", &v);
	if (strcmp(ap, "NOTSET") == 0 || strcmp(ap, "VALID") == 0) {
		if (np >= 0 && strcmp(ap, "VALID") == 0)
			for (long i = 0; i < np; i++)
				if (v[i])
					return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
						       "auto_pad VALID with pads given");
		if (np >= 0 && strcmp(ap, "NOTSET") == 0) {
			if (np != 6)
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "pads has %ld values", np);
			for (int i = 0; i < 3; i++) {
				if (v[i] < 0 || v[i + 3] < 0)
					return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "negative pads");
				w->pb[i] = (uint32_t)v[i];
				w->pe[i] = (uint32_t)v[i + 3];
			}
		}
		return 0;
	}
	bool upper = strcmp(ap, "SAME_UPPER") == 0;
	if (!upper && strcmp(ap, "SAME_LOWER") != 0)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "auto_pad \"%s\"", ap);
	for (int i = 0; i < 3; i++) {
		uint32_t out = (in[i] + w->s[i] - 1) / w->s[i];
		int64_t total = (int64_t)(out - 1) * w->s[i] + (int64_t)(w->k[i] - 1) * w->d[i] + 1 -
				in[i];
		if (total < 0)
			total = 0;
		uint32_t small = (uint32_t)(total / 2), big = (uint32_t)total - small;
		w->pb[i] = upper ? small : big;
		w->pe[i] = upper ? big : small;
	}
	return 0;
}

/* The (H, W) part of a 3-D window into 2-D conv, convTranspose or pool options, whose fields
 * share their names. */
#define WINDOW3_HW(o, w)                                                                    \
	do {                                                                                \
		uint32_t pad_[4] = { (w).pb[1], (w).pe[1], (w).pb[2], (w).pe[2] };          \
		memcpy((o).padding, pad_, sizeof(pad_));                                    \
		(o).n_padding = 4;                                                          \
		(o).strides[0] = (w).s[1];                                                  \
		(o).strides[1] = (w).s[2];                                                  \
		(o).n_strides = 2;                                                          \
		(o).dilations[0] = (w).d[1];                                                \
		(o).dilations[1] = (w).d[2];                                                \
		(o).n_dilations = 2;                                                        \
	} while (0)

/* conv3d = the sum over the kernel's depth kd of conv2d over the depth slices
 * kd*dD + od*sD, with depth folded into the batch. */
static int conv3d(struct ox_node *n, struct webnn_operand *x, struct webnn_operand *f)
{
	struct webnn_builder *b = n->M->b;
	struct ox_val *vx = n->in[0], *vf = n->in[1];
	struct window3 w;
	if (read_window3(n, vx->dims + 2, vf->dims + 2, &w))
		return -1;
	uint32_t N = vx->dims[0], C = vx->dims[1], D = vx->dims[2] + w.pb[0] + w.pe[0],
		 M = vf->dims[0], Cg = vf->dims[1];
	int64_t span = (int64_t)(w.k[0] - 1) * w.d[0] + 1;
	if (span > D)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "the kernel is deeper than the input");
	uint32_t oD = (uint32_t)((D - span) / w.s[0] + 1);
	if (w.pb[0] || w.pe[0]) {
		uint32_t pb[5] = { 0, 0, w.pb[0], 0, 0 }, pe[5] = { 0, 0, w.pe[0], 0, 0 };
		OX_B(n, "pad", webnn_builder_pad(b, x, pb, 5, pe, 5, NULL, &x));
	}
	static const uint32_t to_ndc[5] = { 0, 2, 1, 3, 4 };
	OX_B(n, "transpose", webnn_builder_transpose(b, x, to_ndc, 5, &x));
	struct webnn_operand *acc = NULL;
	for (uint32_t kd = 0; kd < w.k[0]; kd++) {
		struct webnn_operand *xs, *fs, *o;
		uint32_t st[5] = { 0, kd * w.d[0], 0, 0, 0 },
			 sz[5] = { N, (oD - 1) * w.s[0] + 1, C, vx->dims[3], vx->dims[4] },
			 str[5] = { 1, w.s[0], 1, 1, 1 };
		struct webnn_slice_options so = WEBNN_SLICE_OPTIONS_INIT;
		so.strides = str;
		so.n_strides = 5;
		OX_B(n, "slice", webnn_builder_slice(b, x, st, 5, sz, 5, &so, &xs));
		uint32_t s4[4] = { N * oD, C, vx->dims[3], vx->dims[4] };
		if (!(xs = ox_reshape(n, xs, 4, s4)))
			return -1;
		uint32_t fst[5] = { 0, 0, kd, 0, 0 }, fsz[5] = { M, Cg, 1, w.k[1], w.k[2] },
			 f4[4] = { M, Cg, w.k[1], w.k[2] };
		OX_B(n, "slice", webnn_builder_slice(b, f, fst, 5, fsz, 5, NULL, &fs));
		if (!(fs = ox_reshape(n, fs, 4, f4)))
			return -1;
		struct webnn_conv2d_options co = WEBNN_CONV2D_OPTIONS_INIT;
		WINDOW3_HW(co, w);
		co.groups = (uint32_t)ox_attr_i(n, "group", 1);
		if (kd == 0 && ox_has_in(n, 2) && !(co.bias = ox_operand(n, n->in[2])))
			return -1;
		OX_B(n, "conv2d", webnn_builder_conv2d(b, xs, fs, &co, &o));
		if (acc)
			OX_B(n, "add", webnn_builder_add(b, acc, o, &acc));
		else
			acc = o;
	}
	struct webnn_operand_desc d;
	ox_desc(acc, &d);
	uint32_t s5[5] = { N, oD, M, d.shape[2], d.shape[3] };
	if (!(acc = ox_reshape(n, acc, 5, s5)))
		return -1;
	OX_B(n, "transpose", webnn_builder_transpose(b, acc, to_ndc, 5, &acc));
	return ox_set(n, 0, acc);
}

/* convTranspose3d: output depth slice od (of the full output, od + pad) sums the 2-D
 * transposed convolutions of input slice id with kernel slice kd where id*sD + kd*dD = od. */
static int conv_transpose3d(struct ox_node *n, struct webnn_operand *x, struct webnn_operand *f)
{
	struct webnn_builder *b = n->M->b;
	struct ox_val *vx = n->in[0], *vf = n->in[1];
	if (ox_attr(n, "output_shape") || strcmp(ox_attr_s(n, "auto_pad", "NOTSET"), "NOTSET") != 0)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "3-D with output_shape or auto_pad (explicit pads only)");
	struct window3 w;
	if (read_window3(n, vx->dims + 2, vf->dims + 2, &w))
		return -1;
	uint32_t op[3] = { 0, 0, 0 };
	const int64_t *v;
	long c = ox_attr_ints(n, "output_padding", &v);
	if (c >= 0 && c != 3)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "output_padding has %ld values", c);
	for (long i = 0; i < c; i++)
		op[i] = (uint32_t)v[i];
	uint32_t N = vx->dims[0], C = vx->dims[1], iD = vx->dims[2], H = vx->dims[3],
		 W = vx->dims[4], Mg = vf->dims[1], kD = w.k[0];
	int64_t full = (int64_t)(iD - 1) * w.s[0] + (int64_t)(kD - 1) * w.d[0] + 1 + op[0],
		outD = full - w.pb[0] - w.pe[0];
	if (outD < 1 || (uint64_t)iD * kD > 4096)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "an output depth of %lld from %u x %u "
			       "slices", (long long)outD, iD, kD);
	struct webnn_operand **xs = ox_keep(n->M, calloc(iD, sizeof(*xs)));
	struct webnn_operand **fs = ox_keep(n->M, calloc(kD, sizeof(*fs)));
	struct webnn_operand **outs = ox_keep(n->M, calloc((size_t)outD, sizeof(*outs)));
	if (!xs || !fs || !outs)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (uint32_t i = 0; i < iD; i++) {
		uint32_t st[5] = { 0, 0, i, 0, 0 }, sz[5] = { N, C, 1, H, W }, d4[4] = { N, C, H, W };
		OX_B(n, "slice", webnn_builder_slice(b, x, st, 5, sz, 5, NULL, &xs[i]));
		if (!(xs[i] = ox_reshape(n, xs[i], 4, d4)))
			return -1;
	}
	for (uint32_t k = 0; k < kD; k++) {
		uint32_t st[5] = { 0, 0, k, 0, 0 }, sz[5] = { C, Mg, 1, w.k[1], w.k[2] },
			 d4[4] = { C, Mg, w.k[1], w.k[2] };
		OX_B(n, "slice", webnn_builder_slice(b, f, st, 5, sz, 5, NULL, &fs[k]));
		if (!(fs[k] = ox_reshape(n, fs[k], 4, d4)))
			return -1;
	}
	struct webnn_conv_transpose2d_options co = WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
	WINDOW3_HW(co, w);
	co.output_padding[0] = op[1];
	co.output_padding[1] = op[2];
	co.n_output_padding = 2;
	co.groups = (uint32_t)ox_attr_i(n, "group", 1);
	struct webnn_operand_desc d2 = { 0 };
	for (int64_t od = 0; od < outD; od++) {
		int64_t fd = od + w.pb[0];
		for (uint32_t k = 0; k < kD; k++) {
			int64_t rest = fd - (int64_t)k * w.d[0];
			if (rest < 0 || rest % w.s[0] || rest / w.s[0] >= iD)
				continue;
			struct webnn_operand *t;
			OX_B(n, "convTranspose2d",
			     webnn_builder_conv_transpose2d(b, xs[rest / w.s[0]], fs[k], &co, &t));
			if (outs[od])
				OX_B(n, "add", webnn_builder_add(b, outs[od], t, &outs[od]));
			else
				outs[od] = t;
			ox_desc(t, &d2);
		}
	}
	if (!d2.rank)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "no input slice reaches the output");
	uint32_t s5[5] = { d2.shape[0], d2.shape[1], 1, d2.shape[2], d2.shape[3] };
	struct webnn_operand *zero = NULL;
	for (int64_t od = 0; od < outD; od++) {
		if (!outs[od]) {
			/* padding past every contribution: zeros */
			if (!zero) {
				float z = 0;
				if (!(zero = ox_const(n, WEBNN_FLOAT32, 0, NULL, &z)))
					return -1;
				if (d2.data_type != WEBNN_FLOAT32)
					OX_B(n, "cast", webnn_builder_cast(b, zero, d2.data_type, &zero));
				OX_B(n, "expand", webnn_builder_expand(b, zero, d2.shape, 4, &zero));
			}
			outs[od] = zero;
		}
		if (!(outs[od] = ox_reshape(n, outs[od], 5, s5)))
			return -1;
	}
	struct webnn_operand *o;
	if (outD == 1)
		o = outs[0];
	else
		OX_B(n, "concat", webnn_builder_concat(b, outs, (size_t)outD, 2, &o));
	if (ox_has_in(n, 2)) {
		struct webnn_operand *bias = ox_operand(n, n->in[2]);
		uint32_t bs[5] = { 1, d2.shape[1], 1, 1, 1 };
		if (!bias || !(bias = ox_reshape(n, bias, 5, bs)))
			return -1;
		OX_B(n, "add", webnn_builder_add(b, o, bias, &o));
	}
	return ox_set(n, 0, o);
}

typedef enum webnn_status (*pool_fn)(struct webnn_builder *, struct webnn_operand *,
				     const struct webnn_pool2d_options *, struct webnn_operand **);

/* 3-D pools are separable: a 2-D pool over (H, W), then one over depth with a (kD, 1) window
 * (max of maxes; averages of real elements, whose counts multiply; L2 of L2s). */
static int pool3d(struct ox_node *n, struct webnn_operand *x, pool_fn fn, const char *wop,
		  bool include_pad)
{
	struct webnn_builder *b = n->M->b;
	struct ox_val *v = n->in[0];
	struct window3 w;
	if (read_window3(n, v->dims + 2, NULL, &w))
		return -1;
	enum webnn_rounding r = ox_attr_i(n, "ceil_mode", 0) ? WEBNN_ROUND_CEIL : WEBNN_ROUND_FLOOR;
	uint32_t N = v->dims[0], C = v->dims[1], D = v->dims[2], H = v->dims[3], W = v->dims[4];
	bool padded = w.pb[0] || w.pb[1] || w.pb[2] || w.pe[0] || w.pe[1] || w.pe[2];
	if (include_pad && padded) {
		if (r == WEBNN_ROUND_CEIL)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "count_include_pad with ceil_mode");
		uint32_t pb[5] = { 0, 0, w.pb[0], w.pb[1], w.pb[2] },
			 pe[5] = { 0, 0, w.pe[0], w.pe[1], w.pe[2] };
		OX_B(n, "pad", webnn_builder_pad(b, x, pb, 5, pe, 5, NULL, &x));
		D += w.pb[0] + w.pe[0];
		H += w.pb[1] + w.pe[1];
		W += w.pb[2] + w.pe[2];
		memset(w.pb, 0, sizeof(w.pb));
		memset(w.pe, 0, sizeof(w.pe));
	}
	uint32_t s4[4] = { N, C * D, H, W };
	if (!(x = ox_reshape(n, x, 4, s4)))
		return -1;
	struct webnn_pool2d_options po = WEBNN_POOL2D_OPTIONS_INIT;
	po.window_dimensions[0] = w.k[1];
	po.window_dimensions[1] = w.k[2];
	po.n_window_dimensions = 2;
	WINDOW3_HW(po, w);
	po.output_shape_rounding = r;
	OX_B(n, wop, fn(b, x, &po, &x));
	struct webnn_operand_desc d;
	ox_desc(x, &d);
	uint32_t oH = d.shape[2], oW = d.shape[3], s4b[4] = { N, C, D, oH * oW };
	if (!(x = ox_reshape(n, x, 4, s4b)))
		return -1;
	struct webnn_pool2d_options pd = WEBNN_POOL2D_OPTIONS_INIT;
	pd.window_dimensions[0] = w.k[0];
	pd.window_dimensions[1] = 1;
	pd.n_window_dimensions = 2;
	pd.strides[0] = w.s[0];
	pd.strides[1] = 1;
	pd.n_strides = 2;
	pd.dilations[0] = w.d[0];
	pd.dilations[1] = 1;
	pd.n_dilations = 2;
	uint32_t padd[4] = { w.pb[0], w.pe[0], 0, 0 };
	memcpy(pd.padding, padd, sizeof(padd));
	pd.n_padding = 4;
	pd.output_shape_rounding = r;
	OX_B(n, wop, fn(b, x, &pd, &x));
	ox_desc(x, &d);
	uint32_t s5[5] = { N, C, d.shape[2], oH, oW };
	if (!(x = ox_reshape(n, x, 5, s5)))
		return -1;
	return ox_set(n, 0, x);
}

/* ---------------------------------------------------------------- conv */

/* What Conv and ConvTranspose share before their options: the inputs, the type check and the
 * window. Returns the spatial rank (1 or 2), 3 where both are 5-D (the caller decomposes the
 * 3-D convolution; *w is then unread) or -1 on error. */
static int conv_start(struct ox_node *n, const char *wop, bool transpose, struct webnn_operand **x,
		      struct webnn_operand **f, struct window *w)
{
	OX_IN(n, 0, *x);
	OX_IN(n, 1, *f);
	if (ox_need_type(n, wop, NULL, n->in[0]->type))
		return -1;
	if (n->in[0]->rank == 5 && n->in[1]->rank == 5)
		return 3;
	int sp = spatial_of(n, n->in[0]);
	if (sp < 0)
		return -1;
	uint32_t fk[2] = { n->in[1]->dims[2], sp == 2 ? n->in[1]->dims[3] : 0 };
	if (read_window(n, (uint32_t)sp, n->in[0]->dims + 2, fk, w, transpose))
		return -1;
	return sp;
}

/* A 2-D window into conv or convTranspose options, whose fields share their names. */
#define WINDOW_2D(o, w)                                                                     \
	do {                                                                                \
		memcpy((o).padding, (w).pad, sizeof((w).pad));                              \
		(o).n_padding = 4;                                                          \
		memcpy((o).strides, (w).s, sizeof((w).s));                                  \
		(o).n_strides = 2;                                                          \
		memcpy((o).dilations, (w).d, sizeof((w).d));                                \
		(o).n_dilations = 2;                                                        \
	} while (0)

static int op_conv(struct ox_node *n)
{
	struct webnn_operand *x, *f, *o;
	struct window w;
	int sp = conv_start(n, "conv2d", false, &x, &f, &w);
	if (sp == 3)
		return conv3d(n, x, f);
	if (sp < 0)
		return -1;
	if (sp == 1 && (!(x = to_2d(n, x)) || !(f = to_2d(n, f))))
		return -1;
	struct webnn_conv2d_options co = WEBNN_CONV2D_OPTIONS_INIT;
	WINDOW_2D(co, w);
	co.groups = (uint32_t)ox_attr_i(n, "group", 1);
	if (ox_has_in(n, 2) && !(co.bias = ox_operand(n, n->in[2])))
		return -1;
	OX_B(n, "conv2d", webnn_builder_conv2d(n->M->b, x, f, &co, &o));
	return set_from_2d(n, o, (uint32_t)sp);
}

static int op_conv_transpose(struct ox_node *n)
{
	struct webnn_operand *x, *f, *o;
	struct window w;
	int sp = conv_start(n, "convTranspose2d", true, &x, &f, &w);
	if (sp == 3)
		return conv_transpose3d(n, x, f);
	if (sp < 0)
		return -1;
	uint32_t off = sp == 1 ? 1 : 0, in[2] = { 1, 1 }, opad[2] = { 0, 0 };
	for (int i = 0; i < sp; i++)
		in[i + off] = n->in[0]->dims[2 + i];
	const int64_t *v;
	long c;
	if ((c = ox_attr_ints(n, "output_padding", &v)) >= 0) {
		if (c != sp)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "output_padding has %ld values", c);
		for (int i = 0; i < sp; i++)
			opad[i + off] = (uint32_t)v[i];
	}
	const char *ap = ox_attr_s(n, "auto_pad", "NOTSET");
	long cs = ox_attr_ints(n, "output_shape", &v);
	bool same = strncmp(ap, "SAME", 4) == 0;
	if (cs >= 0 || same) {
		uint32_t want[2] = { 1, 1 };
		for (int i = 0; i < sp; i++) {
			uint32_t a = (uint32_t)i + off;
			want[a] = cs >= 0 ? (uint32_t)v[cs - sp + i] : in[a] * w.s[a];
		}
		for (uint32_t a = 0; a < 2; a++) {
			int64_t total = (int64_t)w.s[a] * (in[a] - 1) + opad[a] +
					(int64_t)(w.k[a] - 1) * w.d[a] + 1 - want[a];
			if (total < 0) {
				/* a larger output is extra rows at the end: output padding */
				opad[a] += (uint32_t)-total;
				total = 0;
			}
			uint32_t small = (uint32_t)(total / 2), big = (uint32_t)total - small;
			bool lower = strcmp(ap, "SAME_LOWER") == 0;
			w.pad[2 * a] = lower ? big : small;
			w.pad[2 * a + 1] = lower ? small : big;
		}
	}
	struct webnn_conv_transpose2d_options co = WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
	WINDOW_2D(co, w);
	memcpy(co.output_padding, opad, sizeof(opad));
	co.n_output_padding = 2;
	co.groups = (uint32_t)ox_attr_i(n, "group", 1);
	if (sp == 1 && (!(x = to_2d(n, x)) || !(f = to_2d(n, f))))
		return -1;
	if (ox_has_in(n, 2) && !(co.bias = ox_operand(n, n->in[2])))
		return -1;
	OX_B(n, "convTranspose2d", webnn_builder_conv_transpose2d(n->M->b, x, f, &co, &o));
	return set_from_2d(n, o, (uint32_t)sp);
}

/* ---------------------------------------------------------------- pools */

/* MaxPool's Indices output (2-D): the window taps as strided slices of the input padded with
 * -inf, stacked; argMax picks the first largest tap (ONNX's order), whose position becomes the
 * flat index into [N, C, H, W] (row-major, or column-major over H and W for storage_order 1).
 * y is the pooled output: its size gives the windows. */
static int pool_indices(struct ox_node *n, struct webnn_operand *x, const struct window *w,
			struct webnn_operand *y, bool column_major)
{
	struct webnn_builder *b = n->M->b;
	struct ox_val *v = n->in[0];
	if (v->type != WEBNN_FLOAT32)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "the Indices output of a %s input "
			       "(float32 only)", webnn_data_type_name(v->type));
	uint32_t N = v->dims[0], C = v->dims[1], H = v->dims[2], W = v->dims[3];
	struct webnn_operand_desc yd;
	ox_desc(y, &yd);
	uint32_t oh = yd.shape[2], ow = yd.shape[3], K = w->k[0] * w->k[1];
	if (K > 1024)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "the Indices output of a window of %u "
			       "taps (at most 1024)", K);
	/* enough padding after for every window ceil_mode makes */
	uint32_t pb[4] = { 0, 0, w->pad[0], w->pad[2] }, pe[4] = { 0, 0, 0, 0 };
	uint32_t span[2] = { (oh - 1) * w->s[0] + (w->k[0] - 1) * w->d[0] + 1,
			     (ow - 1) * w->s[1] + (w->k[1] - 1) * w->d[1] + 1 };
	uint32_t in_hw[2] = { H, W };
	for (int a = 0; a < 2; a++) {
		int64_t need = (int64_t)span[a] - in_hw[a] - w->pad[2 * a];
		uint32_t given = w->pad[2 * a + 1];
		pe[2 + a] = need > (int64_t)given ? (uint32_t)need : given;
	}
	struct webnn_pad_options po = WEBNN_PAD_OPTIONS_INIT;
	po.value = -INFINITY;
	OX_B(n, "pad", webnn_builder_pad(b, x, pb, 4, pe, 4, &po, &x));
	struct webnn_operand **taps = ox_keep(n->M, malloc(K * sizeof(*taps)));
	if (!taps)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	struct webnn_slice_options so = WEBNN_SLICE_OPTIONS_INIT;
	uint32_t str[4] = { 1, 1, w->s[0], w->s[1] };
	so.strides = str;
	so.n_strides = 4;
	uint32_t one5[5] = { 1, N, C, oh, ow };
	for (uint32_t i = 0; i < w->k[0]; i++)
		for (uint32_t j = 0; j < w->k[1]; j++) {
			uint32_t st[4] = { 0, 0, i * w->d[0], j * w->d[1] };
			uint32_t sz[4] = { N, C, (oh - 1) * w->s[0] + 1, (ow - 1) * w->s[1] + 1 };
			struct webnn_operand *t;
			OX_B(n, "slice", webnn_builder_slice(b, x, st, 4, sz, 4, &so, &t));
			if (!(taps[i * w->k[1] + j] = ox_reshape(n, t, 5, one5)))
				return -1;
		}
	struct webnn_operand *stack = taps[0], *k, *ki, *kj, *kwc, *h, *wc, *idx;
	if (K > 1)
		OX_B(n, "concat", webnn_builder_concat(b, taps, K, 0, &stack));
	struct webnn_arg_min_max_options ao = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
	ao.output_data_type = WEBNN_INT32;
	OX_B(n, "argMax", webnn_builder_arg_max(b, stack, 0, &ao, &k));
	/* tap k is row k / kw, column k % kw of the window (small: exact in float32) */
	OX_B(n, "cast", webnn_builder_cast(b, k, WEBNN_FLOAT32, &k));
	if (!(kwc = ox_scalar(n, WEBNN_FLOAT32, w->k[1])))
		return -1;
	OX_B(n, "div", webnn_builder_div(b, k, kwc, &ki));
	OX_B(n, "floor", webnn_builder_floor(b, ki, &ki));
	OX_B(n, "mul", webnn_builder_mul(b, ki, kwc, &kj));
	OX_B(n, "sub", webnn_builder_sub(b, k, kj, &kj));
	/* h = ho s - pad + ki d, w likewise, from per-position constants */
	float *hs = ox_keep(n->M, malloc((size_t)oh * sizeof(float)));
	float *ws = ox_keep(n->M, malloc((size_t)ow * sizeof(float)));
	if (!hs || !ws)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (uint32_t i = 0; i < oh; i++)
		hs[i] = (float)((int64_t)i * w->s[0] - (int64_t)w->pad[0]);
	for (uint32_t i = 0; i < ow; i++)
		ws[i] = (float)((int64_t)i * w->s[1] - (int64_t)w->pad[2]);
	uint32_t hd[2] = { oh, 1 }, wd[2] = { 1, ow };
	struct webnn_operand *hc = ox_const(n, WEBNN_FLOAT32, 2, hd, hs);
	struct webnn_operand *wcc = ox_const(n, WEBNN_FLOAT32, 2, wd, ws);
	struct webnn_operand *dh = ox_scalar(n, WEBNN_FLOAT32, w->d[0]);
	struct webnn_operand *dw = ox_scalar(n, WEBNN_FLOAT32, w->d[1]);
	if (!hc || !wcc || !dh || !dw)
		return -1;
	OX_B(n, "mul", webnn_builder_mul(b, ki, dh, &h));
	OX_B(n, "add", webnn_builder_add(b, h, hc, &h));
	OX_B(n, "mul", webnn_builder_mul(b, kj, dw, &wc));
	OX_B(n, "add", webnn_builder_add(b, wc, wcc, &wc));
	OX_B(n, "cast", webnn_builder_cast(b, h, WEBNN_INT64, &h));
	OX_B(n, "cast", webnn_builder_cast(b, wc, WEBNN_INT64, &wc));
	/* + the offset of (n, c): (n C + c) H W */
	int64_t *base = ox_keep(n->M, malloc((size_t)N * C * sizeof(int64_t)));
	if (!base)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (uint64_t i = 0; i < (uint64_t)N * C; i++)
		base[i] = (int64_t)i * H * W;
	uint32_t bd[4] = { N, C, 1, 1 };
	struct webnn_operand *bc = ox_const(n, WEBNN_INT64, 4, bd, base);
	struct webnn_operand *inner = ox_scalar(n, WEBNN_INT64, column_major ? H : W);
	if (!bc || !inner)
		return -1;
	OX_B(n, "mul", webnn_builder_mul(b, column_major ? wc : h, inner, &idx));
	OX_B(n, "add", webnn_builder_add(b, idx, column_major ? h : wc, &idx));
	OX_B(n, "add", webnn_builder_add(b, idx, bc, &idx));
	if (ox_set(n, 1, idx))
		return -1;
	n->out[1].onnx_type = OX_INT64;
	return 0;
}

/* LpPool (and GlobalLpPool) of a p WebNN has no pooling for: (sum |x|^p)^(1/p), the sum an average
 * over whole windows of the zero-padded input times the window's size. */
static int lp_pool_general(struct ox_node *n, struct webnn_operand *x, const struct window *w,
			   double p, struct webnn_operand **o)
{
	struct webnn_builder *b = n->M->b;
	struct webnn_operand *pc, *ip, *cnt;
	enum webnn_data_type t = n->in[0]->type;
	if (!(pc = ox_scalar(n, t, p)) || !(ip = ox_scalar(n, t, 1 / p)))
		return -1;
	OX_B(n, "abs", webnn_builder_abs(b, x, &x));
	OX_B(n, "pow", webnn_builder_pow(b, x, pc, &x));
	uint32_t pb[4] = { 0, 0, w->pad[0], w->pad[2] }, pe[4] = { 0, 0, w->pad[1], w->pad[3] };
	if (pb[2] || pb[3] || pe[2] || pe[3])
		OX_B(n, "pad", webnn_builder_pad(b, x, pb, 4, pe, 4, NULL, &x));
	struct webnn_pool2d_options po = WEBNN_POOL2D_OPTIONS_INIT;
	memcpy(po.window_dimensions, w->k, sizeof(w->k));
	po.n_window_dimensions = 2;
	memcpy(po.strides, w->s, sizeof(w->s));
	po.n_strides = 2;
	memcpy(po.dilations, w->d, sizeof(w->d));
	po.n_dilations = 2;
	OX_B(n, "averagePool2d", webnn_builder_average_pool2d(b, x, &po, &x));
	if (!(cnt = ox_scalar(n, t, (double)w->k[0] * w->k[1])))
		return -1;
	OX_B(n, "mul", webnn_builder_mul(b, x, cnt, &x));
	OX_B(n, "pow", webnn_builder_pow(b, x, ip, o));
	return 0;
}

/* MaxUnpool: a scatterND of X's values to the flat indices I in zeros of the output's size
 * (windows that overlap write the same maximum twice, which gives the same result). */
static int op_max_unpool(struct ox_node *n)
{
	struct webnn_operand *x, *ind, *z, *o;
	OX_IN(n, 0, x);
	OX_IN(n, 1, ind);
	struct ox_val *v = n->in[0];
	if (v->rank != 4)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a rank %u input (2-D unpooling)",
			       v->rank);
	/* the indices count in the shape the pool read (its input's); an output_shape places
	 * those rows and columns in a larger one */
	uint32_t dd[4] = { v->dims[0], v->dims[1], 0, 0 }, od[4];
	struct window w;
	if (read_window(n, 2, v->dims + 2, NULL, &w, true))
		return -1;
	for (int a = 0; a < 2; a++) {
		int64_t s = (int64_t)(v->dims[2 + a] - 1) * w.s[a] + w.k[a] - w.pad[2 * a] -
			    w.pad[2 * a + 1];
		if (s < 1 || s > UINT32_MAX)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "an output size of %lld",
				       (long long)s);
		dd[2 + a] = (uint32_t)s;
	}
	memcpy(od, dd, sizeof(od));
	if (ox_has_in(n, 2)) {
		int64_t *os;
		size_t c;
		if (ox_host_i64(n, n->in[2], "output_shape", &os, &c))
			return -1;
		if (c != 4 || os[0] != v->dims[0] || os[1] != v->dims[1] || os[2] < dd[2] ||
		    os[3] < dd[3] || os[2] > UINT32_MAX || os[3] > UINT32_MAX)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "output_shape is not [N, C, H, W] "
				       "of the input's N and C, at least [%u, %u]", dd[2], dd[3]);
		od[2] = (uint32_t)os[2];
		od[3] = (uint32_t)os[3];
	}
	if (od[2] != dd[2] || od[3] != dd[3]) {
		/* i = (n C + c) H W + h W + w  ->  (n C + c) H' W' + h W' + w */
		struct webnn_builder *b = n->M->b;
		struct webnn_operand *plane, *nc, *rest, *h, *col, *wd2, *od_plane, *od_w;
		if (!(plane = ox_scalar(n, WEBNN_INT64, (double)dd[2] * dd[3])) ||
		    !(wd2 = ox_scalar(n, WEBNN_INT64, dd[3])) ||
		    !(od_plane = ox_scalar(n, WEBNN_INT64, (double)od[2] * od[3])) ||
		    !(od_w = ox_scalar(n, WEBNN_INT64, od[3])))
			return -1;
		if (n->in[1]->type != WEBNN_INT64)
			OX_B(n, "cast", webnn_builder_cast(b, ind, WEBNN_INT64, &ind));
		OX_B(n, "div", webnn_builder_div(b, ind, plane, &nc));
		OX_B(n, "mul", webnn_builder_mul(b, nc, plane, &rest));
		OX_B(n, "sub", webnn_builder_sub(b, ind, rest, &rest));
		OX_B(n, "div", webnn_builder_div(b, rest, wd2, &h));
		OX_B(n, "mul", webnn_builder_mul(b, h, wd2, &col));
		OX_B(n, "sub", webnn_builder_sub(b, rest, col, &col));
		OX_B(n, "mul", webnn_builder_mul(b, nc, od_plane, &nc));
		OX_B(n, "mul", webnn_builder_mul(b, h, od_w, &h));
		OX_B(n, "add", webnn_builder_add(b, nc, h, &ind));
		OX_B(n, "add", webnn_builder_add(b, ind, col, &ind));
	}
	uint64_t total = (uint64_t)od[0] * od[1] * od[2] * od[3], m = ox_elems(4, v->dims);
	if (total > UINT32_MAX)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "an output of %llu elements",
			       (unsigned long long)total);
	uint32_t flat = (uint32_t)total, id[2] = { (uint32_t)m, 1 }, xd = (uint32_t)m;
	struct webnn_operand *zero = ox_scalar(n, v->type, 0);
	if (!zero)
		return -1;
	OX_B(n, "expand", webnn_builder_expand(n->M->b, zero, &flat, 1, &z));
	if (!(ind = ox_reshape(n, ind, 2, id)) || !(x = ox_reshape(n, x, 1, &xd)))
		return -1;
	OX_B(n, "scatterND", webnn_builder_scatter_nd(n->M->b, z, ind, x, &o));
	if (!(o = ox_reshape(n, o, 4, od)))
		return -1;
	return ox_set(n, 0, o);
}

static int op_pool(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	const char *ty = n->node->op_type;
	int sp = n->in[0]->rank == 5 ? 3 : spatial_of(n, n->in[0]);
	if (sp < 0)
		return -1;
	bool avg = strcmp(ty, "AveragePool") == 0, lp = strcmp(ty, "LpPool") == 0;
	bool indices = n->n_out > 1 && n->node->output[1] && *n->node->output[1];
	if (indices && sp != 2)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "the Indices output of a %d-D pool "
			       "(2-D only)", sp);
	int64_t p = lp ? ox_attr_i(n, "p", 2) : 2;
	if (lp && (p < 1 || p > 64))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "p %lld", (long long)p);
	const char *wop = avg ? "averagePool2d" : lp ? "l2Pool2d" : "maxPool2d";
	if (ox_need_type(n, wop, NULL, n->in[0]->type))
		return -1;
	if (n->in[0]->rank == 5) {
		if (ox_attr_i(n, "storage_order", 0) != 0)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "storage_order 1");
		return pool3d(n, x, avg ? webnn_builder_average_pool2d : lp ? webnn_builder_l2_pool2d
									: webnn_builder_max_pool2d,
			      wop, avg && ox_attr_i(n, "count_include_pad", 0));
	}
	struct window w;
	if (read_window(n, (uint32_t)sp, n->in[0]->dims + 2, NULL, &w, false))
		return -1;
	if (sp == 1 && !(x = to_2d(n, x)))
		return -1;
	if (lp && p != 2) {
		if (ox_attr_i(n, "ceil_mode", 0))
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "p %lld with ceil_mode",
				       (long long)p);
		if (lp_pool_general(n, x, &w, (double)p, &o))
			return -1;
		return set_from_2d(n, o, (uint32_t)sp);
	}
	struct webnn_pool2d_options po = WEBNN_POOL2D_OPTIONS_INIT;
	memcpy(po.window_dimensions, w.k, sizeof(w.k));
	po.n_window_dimensions = 2;
	memcpy(po.strides, w.s, sizeof(w.s));
	po.n_strides = 2;
	memcpy(po.dilations, w.d, sizeof(w.d));
	po.n_dilations = 2;
	po.output_shape_rounding = ox_attr_i(n, "ceil_mode", 0) ? WEBNN_ROUND_CEIL : WEBNN_ROUND_FLOOR;
	bool padded = w.pad[0] || w.pad[1] || w.pad[2] || w.pad[3];
	if (avg && padded && ox_attr_i(n, "count_include_pad", 0)) {
		/* WebNN averages real elements only: pad with zeros first to count them. */
		if (po.output_shape_rounding == WEBNN_ROUND_CEIL)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "count_include_pad with ceil_mode (a window may pass the "
				       "padding, where WebNN counts no element)");
		uint32_t pb[4] = { 0, 0, w.pad[0], w.pad[2] }, pe[4] = { 0, 0, w.pad[1], w.pad[3] };
		OX_B(n, "pad", webnn_builder_pad(n->M->b, x, pb, 4, pe, 4, NULL, &x));
	} else {
		memcpy(po.padding, w.pad, sizeof(w.pad));
		po.n_padding = 4;
	}
	OX_B(n, wop, (avg ? webnn_builder_average_pool2d : lp ? webnn_builder_l2_pool2d
							      : webnn_builder_max_pool2d)(n->M->b, x, &po, &o));
	if (indices && pool_indices(n, x, &w, o, ox_attr_i(n, "storage_order", 0) != 0))
		return -1;
	return set_from_2d(n, o, (uint32_t)sp);
}

typedef enum webnn_status (*reduce_fn)(struct webnn_builder *, struct webnn_operand *,
				       const struct webnn_reduce_options *, struct webnn_operand **);

static int op_global_pool(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	uint32_t r = n->in[0]->rank, axes[WEBNN_MAX_RANK];
	if (r < 3)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "rank %u", r);
	for (uint32_t i = 2; i < r; i++)
		axes[i - 2] = i;
	const char *ty = n->node->op_type;
	reduce_fn fn = webnn_builder_reduce_mean;
	const char *wop = "reduceMean";
	if (strcmp(ty, "GlobalMaxPool") == 0) {
		fn = webnn_builder_reduce_max;
		wop = "reduceMax";
	} else if (strcmp(ty, "GlobalLpPool") == 0) {
		int64_t p = ox_attr_i(n, "p", 2);
		if (p != 1 && p != 2)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "p %lld (WebNN has L1 and L2)",
				       (long long)p);
		fn = p == 1 ? webnn_builder_reduce_l1 : webnn_builder_reduce_l2;
		wop = p == 1 ? "reduceL1" : "reduceL2";
	}
	if (ox_need_type(n, wop, NULL, n->in[0]->type))
		return -1;
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.axes = axes;
	ro.n_axes = r - 2;
	ro.keep_dimensions = true;
	OX_B(n, wop, fn(n->M->b, x, &ro, &o));
	return ox_set(n, 0, o);
}

/* ---------------------------------------------------------------- normalization */

/* training_mode: normalizes with the batch's mean and (population) variance over every axis
 * but 1, and blends them into the running statistics with momentum. */
static int batch_norm_training(struct ox_node *n, struct webnn_operand *x)
{
	struct webnn_builder *b = n->M->b;
	struct ox_val *v = n->in[0];
	struct webnn_operand *scale, *bias, *rm, *rv, *mean, *var, *d, *mom, *one_m, *o;
	OX_IN(n, 1, scale);
	OX_IN(n, 2, bias);
	OX_IN(n, 3, rm);
	OX_IN(n, 4, rv);
	uint32_t axes[WEBNN_MAX_RANK], na = 0;
	for (uint32_t i = 0; i < v->rank; i++)
		if (i != 1)
			axes[na++] = i;
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.axes = axes;
	ro.n_axes = na;
	ro.keep_dimensions = true;
	OX_B(n, "reduceMean", webnn_builder_reduce_mean(b, x, &ro, &mean));
	OX_B(n, "sub", webnn_builder_sub(b, x, mean, &d));
	OX_B(n, "mul", webnn_builder_mul(b, d, d, &var));
	OX_B(n, "reduceMean", webnn_builder_reduce_mean(b, var, &ro, &var));
	uint32_t c = v->dims[1];
	if (!(mean = ox_reshape(n, mean, 1, &c)) || !(var = ox_reshape(n, var, 1, &c)))
		return -1;
	struct webnn_batch_normalization_options bo = WEBNN_BATCH_NORMALIZATION_OPTIONS_INIT;
	bo.scale = scale;
	bo.bias = bias;
	bo.epsilon = ox_attr_f(n, "epsilon", 1e-5f);
	OX_B(n, "batchNormalization", webnn_builder_batch_normalization(b, x, mean, var, &bo, &o));
	ox_set(n, 0, o);
	double m = ox_attr_f(n, "momentum", 0.9f);
	if (!(mom = ox_scalar(n, v->type, m)) || !(one_m = ox_scalar(n, v->type, 1 - m)))
		return -1;
	struct webnn_operand *t1, *t2;
	OX_B(n, "mul", webnn_builder_mul(b, rm, mom, &t1));
	OX_B(n, "mul", webnn_builder_mul(b, mean, one_m, &t2));
	OX_B(n, "add", webnn_builder_add(b, t1, t2, &t1));
	ox_set(n, 1, t1);
	OX_B(n, "mul", webnn_builder_mul(b, rv, mom, &t1));
	OX_B(n, "mul", webnn_builder_mul(b, var, one_m, &t2));
	OX_B(n, "add", webnn_builder_add(b, t1, t2, &t1));
	ox_set(n, 2, t1);
	return 0;
}

static int op_batch_norm(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	if (n->opset < 9 && ox_attr_i(n, "spatial", 1) == 0)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "spatial 0 (statistics per activation; WebNN normalizes per channel)");
	if (ox_attr_i(n, "training_mode", 0))
		return batch_norm_training(n, x);
	if (n->n_out > 1)
		for (size_t i = 1; i < n->n_out; i++)
			if (n->node->output[i] && *n->node->output[i])
				return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
					       "training outputs (running mean and variance)");
	struct webnn_operand *mean, *var;
	OX_IN(n, 3, mean);
	OX_IN(n, 4, var);
	struct webnn_batch_normalization_options bo = WEBNN_BATCH_NORMALIZATION_OPTIONS_INIT;
	OX_IN(n, 1, bo.scale);
	OX_IN(n, 2, bo.bias);
	bo.epsilon = ox_attr_f(n, "epsilon", 1e-5f);
	bo.axis = n->in[0]->rank > 1 ? 1 : 0;
	if (ox_need_type(n, "batchNormalization", NULL, n->in[0]->type))
		return -1;
	OX_B(n, "batchNormalization", webnn_builder_batch_normalization(n->M->b, x, mean, var, &bo, &o));
	return ox_set(n, 0, o);
}

static int op_instance_norm(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	if (v->rank < 3 || v->rank > 4)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "rank %u (WebNN instanceNormalization is 4-D; 3-D is mapped)", v->rank);
	if (ox_need_type(n, "instanceNormalization", NULL, v->type))
		return -1;
	struct webnn_instance_normalization_options io = WEBNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
	OX_IN(n, 1, io.scale);
	OX_IN(n, 2, io.bias);
	io.epsilon = ox_attr_f(n, "epsilon", 1e-5f);
	if (v->rank == 3) {
		uint32_t s[4] = { v->dims[0], v->dims[1], v->dims[2], 1 };
		if (!(x = ox_reshape(n, x, 4, s)))
			return -1;
	}
	OX_B(n, "instanceNormalization", webnn_builder_instance_normalization(n->M->b, x, &io, &o));
	if (v->rank == 3 && !(o = ox_reshape(n, o, 3, v->dims)))
		return -1;
	return ox_set(n, 0, o);
}

static int op_layer_norm(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	uint32_t axis, axes[WEBNN_MAX_RANK];
	if (ox_axis(n, ox_attr_i(n, "axis", -1), v->rank, &axis))
		return -1;
	for (uint32_t i = axis; i < v->rank; i++)
		axes[i - axis] = i;
	if (ox_need_type(n, "layerNormalization", NULL, v->type))
		return -1;
	double eps = ox_attr_f(n, "epsilon", 1e-5f);
	struct webnn_layer_normalization_options lo = WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT;
	/* scale and bias have the normalized dimensions, possibly broadcast from fewer. */
	uint32_t nd = v->rank - axis;
	for (int k = 1; k <= 2; k++) {
		if (!ox_has_in(n, (size_t)k))
			continue;
		struct webnn_operand *p = ox_operand(n, n->in[k]);
		if (!p)
			return -1;
		struct ox_val *pv = n->in[k];
		bool exact = pv->rank == nd && memcmp(pv->dims, v->dims + axis, nd * sizeof(uint32_t)) == 0;
		if (!exact)
			OX_B(n, "expand", webnn_builder_expand(n->M->b, p, v->dims + axis, nd, &p));
		if (k == 1)
			lo.scale = p;
		else
			lo.bias = p;
	}
	lo.axes = axes;
	lo.n_axes = nd;
	lo.epsilon = eps;
	OX_B(n, "layerNormalization", webnn_builder_layer_normalization(n->M->b, x, &lo, &o));
	ox_set(n, 0, o);
	if ((n->n_out > 1 && *n->node->output[1]) || (n->n_out > 2 && *n->node->output[2])) {
		/* Mean and InvStdDev, with the normalized axes kept as 1. */
		struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
		ro.axes = axes;
		ro.n_axes = nd;
		ro.keep_dimensions = true;
		struct webnn_operand *mean, *d, *var, *e;
		OX_B(n, "reduceMean", webnn_builder_reduce_mean(n->M->b, x, &ro, &mean));
		OX_B(n, "sub", webnn_builder_sub(n->M->b, x, mean, &d));
		OX_B(n, "mul", webnn_builder_mul(n->M->b, d, d, &d));
		OX_B(n, "reduceMean", webnn_builder_reduce_mean(n->M->b, d, &ro, &var));
		if (!(e = ox_scalar(n, v->type, eps)))
			return -1;
		OX_B(n, "add", webnn_builder_add(n->M->b, var, e, &var));
		OX_B(n, "sqrt", webnn_builder_sqrt(n->M->b, var, &var));
		OX_B(n, "reciprocal", webnn_builder_reciprocal(n->M->b, var, &var));
		ox_set(n, 1, mean);
		ox_set(n, 2, var);
	}
	return 0;
}

/* GroupNormalization: the channels' groups normalized over (C/G, spatial) as one layer
 * normalization of [N, G, rest], then a per-channel (opset 21) or per-group (18) scale and
 * bias. */
static int op_group_norm(struct ox_node *n)
{
	struct webnn_builder *b = n->M->b;
	struct webnn_operand *x, *o, *sc, *bi;
	OX_IN(n, 0, x);
	OX_IN(n, 1, sc);
	OX_IN(n, 2, bi);
	struct ox_val *v = n->in[0];
	int64_t G = ox_attr_i(n, "num_groups", 0);
	if (v->rank < 2 || G < 1 || v->dims[1] % (uint32_t)G)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "num_groups %lld for %u channels",
			       (long long)G, v->rank >= 2 ? v->dims[1] : 0);
	if (ox_need_type(n, "layerNormalization", NULL, v->type))
		return -1;
	uint32_t C = v->dims[1], rest = (uint32_t)ox_elems(v->rank - 1, v->dims + 1) / (uint32_t)G,
		 s3[3] = { v->dims[0], (uint32_t)G, rest }, axis = 2;
	if (!(x = ox_reshape(n, x, 3, s3)))
		return -1;
	struct webnn_layer_normalization_options lo = WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT;
	lo.axes = &axis;
	lo.n_axes = 1;
	lo.epsilon = ox_attr_f(n, "epsilon", 1e-5f);
	OX_B(n, "layerNormalization", webnn_builder_layer_normalization(b, x, &lo, &o));
	/* scale and bias per channel: [1, C, 1, ...] (a per-group one repeats C/G times) */
	uint32_t cs[WEBNN_MAX_RANK];
	for (uint32_t i = 0; i < v->rank; i++)
		cs[i] = i == 1 ? C : 1;
	struct webnn_operand *p[2] = { sc, bi };
	for (int k = 0; k < 2; k++) {
		struct ox_val *pv = n->in[1 + k];
		if (pv->rank != 1 || (pv->dims[0] != C && pv->dims[0] != (uint32_t)G))
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "%s of shape [%u]",
				       k ? "bias" : "scale", pv->rank ? pv->dims[0] : 0);
		if (pv->dims[0] != C) {
			uint32_t g2[2] = { (uint32_t)G, 1 }, ge[2] = { (uint32_t)G, C / (uint32_t)G };
			if (!(p[k] = ox_reshape(n, p[k], 2, g2)))
				return -1;
			OX_B(n, "expand", webnn_builder_expand(b, p[k], ge, 2, &p[k]));
		}
		if (!(p[k] = ox_reshape(n, p[k], v->rank, cs)))
			return -1;
	}
	if (!(o = ox_reshape(n, o, v->rank, v->dims)))
		return -1;
	OX_B(n, "mul", webnn_builder_mul(b, o, p[0], &o));
	OX_B(n, "add", webnn_builder_add(b, o, p[1], &o));
	return ox_set(n, 0, o);
}

/* LRN: x / (bias + alpha/size * sum of squares over a channel window)^beta; the window sum is
 * an average pool over [N, 1, C, H*W] times size. */
static int op_lrn(struct ox_node *n)
{
	struct webnn_operand *x, *o, *sq, *c;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	if (v->rank < 3)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "rank %u", v->rank);
	uint32_t size = (uint32_t)ox_attr_i(n, "size", 1);
	double alpha = ox_attr_f(n, "alpha", 1e-4f), beta = ox_attr_f(n, "beta", 0.75f),
	       bias = ox_attr_f(n, "bias", 1.0f);
	uint32_t N = v->dims[0], C = v->dims[1], S = (uint32_t)ox_elems(v->rank - 2, v->dims + 2);
	uint32_t s4[4] = { N, 1, C, S };
	OX_B(n, "mul", webnn_builder_mul(n->M->b, x, x, &sq));
	if (!(sq = ox_reshape(n, sq, 4, s4)))
		return -1;
	uint32_t pb[4] = { 0, 0, (size - 1) / 2, 0 }, pe[4] = { 0, 0, size - 1 - (size - 1) / 2, 0 };
	OX_B(n, "pad", webnn_builder_pad(n->M->b, sq, pb, 4, pe, 4, NULL, &sq));
	struct webnn_pool2d_options po = WEBNN_POOL2D_OPTIONS_INIT;
	po.window_dimensions[0] = size;
	po.window_dimensions[1] = 1;
	po.n_window_dimensions = 2;
	OX_B(n, "averagePool2d", webnn_builder_average_pool2d(n->M->b, sq, &po, &sq));
	if (!(sq = ox_reshape(n, sq, v->rank, v->dims)))
		return -1;
	/* the average times size is the sum: alpha/size * sum = alpha * average */
	if (!(c = ox_scalar(n, v->type, alpha)))
		return -1;
	OX_B(n, "mul", webnn_builder_mul(n->M->b, sq, c, &sq));
	if (!(c = ox_scalar(n, v->type, bias)))
		return -1;
	OX_B(n, "add", webnn_builder_add(n->M->b, sq, c, &sq));
	if (!(c = ox_scalar(n, v->type, beta)))
		return -1;
	OX_B(n, "pow", webnn_builder_pow(n->M->b, sq, c, &sq));
	OX_B(n, "div", webnn_builder_div(n->M->b, x, sq, &o));
	return ox_set(n, 0, o);
}

static int op_mvn(struct ox_node *n)
{
	struct webnn_operand *x, *o, *mean, *sq, *msq, *var, *e;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	const int64_t *a;
	long c = ox_attr_ints(n, "axes", &a);
	uint32_t axes[WEBNN_MAX_RANK], na = 0;
	static const int64_t def[3] = { 0, 2, 3 };
	if (c < 0) {
		a = def;
		c = 3;
	}
	for (long i = 0; i < c; i++)
		if (ox_axis(n, a[i], v->rank, &axes[na++]))
			return -1;
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.axes = axes;
	ro.n_axes = na;
	ro.keep_dimensions = true;
	OX_B(n, "reduceMean", webnn_builder_reduce_mean(n->M->b, x, &ro, &mean));
	OX_B(n, "mul", webnn_builder_mul(n->M->b, x, x, &sq));
	OX_B(n, "reduceMean", webnn_builder_reduce_mean(n->M->b, sq, &ro, &msq));
	OX_B(n, "mul", webnn_builder_mul(n->M->b, mean, mean, &var));
	OX_B(n, "sub", webnn_builder_sub(n->M->b, msq, var, &var));
	OX_B(n, "sqrt", webnn_builder_sqrt(n->M->b, var, &var));
	if (!(e = ox_scalar(n, v->type, 1e-9)))
		return -1;
	OX_B(n, "add", webnn_builder_add(n->M->b, var, e, &var));
	OX_B(n, "sub", webnn_builder_sub(n->M->b, x, mean, &o));
	OX_B(n, "div", webnn_builder_div(n->M->b, o, var, &o));
	return ox_set(n, 0, o);
}

static int op_lp_norm(struct ox_node *n)
{
	struct webnn_operand *x, *o, *nrm;
	OX_IN(n, 0, x);
	uint32_t axis;
	if (ox_axis(n, ox_attr_i(n, "axis", -1), n->in[0]->rank, &axis))
		return -1;
	int64_t p = ox_attr_i(n, "p", 2);
	if (p != 1 && p != 2)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "p %lld", (long long)p);
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.axes = &axis;
	ro.n_axes = 1;
	ro.keep_dimensions = true;
	OX_B(n, "reduce", (p == 1 ? webnn_builder_reduce_l1 : webnn_builder_reduce_l2)(n->M->b, x, &ro, &nrm));
	OX_B(n, "div", webnn_builder_div(n->M->b, x, nrm, &o));
	return ox_set(n, 0, o);
}

/* ---------------------------------------------------------------- linear algebra */

static int op_gemm(struct ox_node *n)
{
	struct webnn_operand *a, *b, *o;
	OX_IN(n, 0, a);
	OX_IN(n, 1, b);
	if (ox_need_type(n, "gemm", NULL, n->in[0]->type))
		return -1;
	struct webnn_gemm_options go = WEBNN_GEMM_OPTIONS_INIT;
	go.alpha = ox_attr_f(n, "alpha", 1.0f);
	go.beta = ox_attr_f(n, "beta", 1.0f);
	go.a_transpose = ox_attr_i(n, "transA", 0) != 0;
	go.b_transpose = ox_attr_i(n, "transB", 0) != 0;
	if (ox_has_in(n, 2) && !(go.c = ox_operand(n, n->in[2])))
		return -1;
	OX_B(n, "gemm", webnn_builder_gemm(n->M->b, a, b, &go, &o));
	return ox_set(n, 0, o);
}

/* MatMul with numpy's 1-D rules: a vector gains a dimension that is dropped after. */
static int op_matmul(struct ox_node *n)
{
	struct webnn_operand *a, *b, *o;
	OX_IN(n, 0, a);
	OX_IN(n, 1, b);
	struct ox_val *va = n->in[0], *vb = n->in[1];
	if (ox_need_type(n, "matmul", NULL, va->type))
		return -1;
	if (va->rank == 1) {
		uint32_t s[2] = { 1, va->dims[0] };
		if (!(a = ox_reshape(n, a, 2, s)))
			return -1;
	}
	if (vb->rank == 1) {
		uint32_t s[2] = { vb->dims[0], 1 };
		if (!(b = ox_reshape(n, b, 2, s)))
			return -1;
	}
	OX_B(n, "matmul", webnn_builder_matmul(n->M->b, a, b, &o));
	if (va->rank == 1 || vb->rank == 1) {
		struct webnn_operand_desc d;
		ox_desc(o, &d);
		uint32_t s[WEBNN_MAX_RANK], r = 0;
		for (uint32_t i = 0; i < d.rank; i++) {
			if (va->rank == 1 && i == d.rank - 2)
				continue;
			if (vb->rank == 1 && i == d.rank - 1)
				continue;
			s[r++] = d.shape[i];
		}
		if (!(o = ox_reshape(n, o, r, s)))
			return -1;
	}
	return ox_set(n, 0, o);
}

/* ---------------------------------------------------------------- softmax family */

/* Opset < 13 coerces the input to 2-D at axis; the result is computed on axis 1 of that. */
static int softmax_input(struct ox_node *n, struct webnn_operand **x, uint32_t *axis)
{
	struct ox_val *v = n->in[0];
	OX_IN(n, 0, *x);
	if (n->opset >= 13)
		return ox_axis(n, ox_attr_i(n, "axis", -1), v->rank, axis);
	uint32_t a;
	if (ox_axis(n, ox_attr_i(n, "axis", 1), v->rank, &a))
		return -1;
	uint32_t s[2] = { (uint32_t)ox_elems(a, v->dims), (uint32_t)ox_elems(v->rank - a, v->dims + a) };
	if (!(*x = ox_reshape(n, *x, 2, s)))
		return -1;
	*axis = 1;
	return 0;
}

static int softmax_output(struct ox_node *n, struct webnn_operand *o)
{
	if (n->opset < 13 && !(o = ox_reshape(n, o, n->in[0]->rank, n->in[0]->dims)))
		return -1;
	return ox_set(n, 0, o);
}

static int op_softmax(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	uint32_t axis;
	if (softmax_input(n, &x, &axis))
		return -1;
	if (ox_need_type(n, "softmax", NULL, n->in[0]->type))
		return -1;
	OX_B(n, "softmax", webnn_builder_softmax(n->M->b, x, axis, &o));
	return softmax_output(n, o);
}

/* x - max - log(sum(exp(x - max))): stable for large inputs. */
static int op_log_softmax(struct ox_node *n)
{
	struct webnn_operand *x, *o, *m, *s;
	uint32_t axis;
	if (softmax_input(n, &x, &axis))
		return -1;
	if (ox_need_type(n, "reduceLogSumExp", NULL, n->in[0]->type))
		return -1;
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.axes = &axis;
	ro.n_axes = 1;
	ro.keep_dimensions = true;
	OX_B(n, "reduceMax", webnn_builder_reduce_max(n->M->b, x, &ro, &m));
	OX_B(n, "sub", webnn_builder_sub(n->M->b, x, m, &o));
	OX_B(n, "exp", webnn_builder_exp(n->M->b, o, &s));
	OX_B(n, "reduceSum", webnn_builder_reduce_sum(n->M->b, s, &ro, &s));
	OX_B(n, "log", webnn_builder_log(n->M->b, s, &s));
	OX_B(n, "sub", webnn_builder_sub(n->M->b, o, s, &o));
	return softmax_output(n, o);
}

/* One-hot of the first maximum: argMax compared with the positions along axis. */
static int op_hardmax(struct ox_node *n)
{
	struct webnn_operand *x, *o, *am, *iota, *eq;
	uint32_t axis;
	if (softmax_input(n, &x, &axis))
		return -1;
	struct webnn_operand_desc d;
	ox_desc(x, &d);
	struct webnn_arg_min_max_options ao = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
	ao.keep_dimensions = true;
	ao.output_data_type = WEBNN_INT32;
	OX_B(n, "argMax", webnn_builder_arg_max(n->M->b, x, axis, &ao, &am));
	uint32_t s[WEBNN_MAX_RANK];
	for (uint32_t i = 0; i < d.rank; i++)
		s[i] = i == axis ? d.shape[i] : 1;
	int32_t *io = ox_keep(n->M, malloc(d.shape[axis] * sizeof(int32_t) + 1));
	if (!io)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (uint32_t i = 0; i < d.shape[axis]; i++)
		io[i] = (int32_t)i;
	if (!(iota = ox_const(n, WEBNN_INT32, d.rank, s, io)))
		return -1;
	OX_B(n, "equal", webnn_builder_equal(n->M->b, am, iota, &eq));
	OX_B(n, "cast", webnn_builder_cast(n->M->b, eq, d.data_type, &o));
	return softmax_output(n, o);
}

/* ---------------------------------------------------------------- reductions */

static const struct {
	const char *onnx, *webnn;
	reduce_fn fn;
} reduces[] = {
	{ "ReduceSum", "reduceSum", webnn_builder_reduce_sum },
	{ "ReduceMean", "reduceMean", webnn_builder_reduce_mean },
	{ "ReduceMax", "reduceMax", webnn_builder_reduce_max },
	{ "ReduceMin", "reduceMin", webnn_builder_reduce_min },
	{ "ReduceProd", "reduceProduct", webnn_builder_reduce_product },
	{ "ReduceL1", "reduceL1", webnn_builder_reduce_l1 },
	{ "ReduceL2", "reduceL2", webnn_builder_reduce_l2 },
	{ "ReduceLogSum", "reduceLogSum", webnn_builder_reduce_log_sum },
	{ "ReduceLogSumExp", "reduceLogSumExp", webnn_builder_reduce_log_sum_exp },
	{ "ReduceSumSquare", "reduceSumSquare", webnn_builder_reduce_sum_square },
};

static int op_reduce(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	size_t k = 0;
	while (strcmp(reduces[k].onnx, n->node->op_type) != 0)
		k++;
	if (ox_need_type(n, reduces[k].webnn, NULL, v->type))
		return -1;
	bool axes_input = strcmp(n->node->op_type, "ReduceSum") == 0 ? n->opset >= 13 : n->opset >= 18;
	const int64_t *a = NULL;
	long c = -1;
	if (axes_input) {
		if (ox_has_in(n, 1)) {
			int64_t *iv;
			size_t cnt;
			if (ox_host_i64(n, n->in[1], "axes", &iv, &cnt))
				return -1;
			a = iv;
			c = (long)cnt;
		}
	} else {
		c = ox_attr_ints(n, "axes", &a);
	}
	uint32_t axes[WEBNN_MAX_RANK];
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.keep_dimensions = ox_attr_i(n, "keepdims", 1) != 0;
	if (c <= 0) {
		if (ox_attr_i(n, "noop_with_empty_axes", 0)) {
			OX_B(n, "identity", webnn_builder_identity(n->M->b, x, &o));
			return ox_set(n, 0, o);
		}
	} else {
		for (long i = 0; i < c; i++)
			if (ox_axis(n, a[i], v->rank, &axes[i]))
				return -1;
		ro.axes = axes;
		ro.n_axes = (uint32_t)c;
	}
	for (uint32_t i = 0; i < v->rank; i++)
		if (!v->dims[i])
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "an empty input (WebNN has no empty tensors)");
	OX_B(n, reduces[k].webnn, reduces[k].fn(n->M->b, x, &ro, &o));
	return ox_set(n, 0, o);
}

static int op_arg(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	bool max = strcmp(n->node->op_type, "ArgMax") == 0;
	uint32_t axis;
	if (ox_axis(n, ox_attr_i(n, "axis", 0), v->rank, &axis))
		return -1;
	struct webnn_arg_min_max_options ao = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
	ao.keep_dimensions = ox_attr_i(n, "keepdims", 1) != 0;
	ao.output_data_type = WEBNN_INT64;
	if (ox_need_type(n, max ? "argMax" : "argMin", NULL, v->type))
		return -1;
	bool last = ox_attr_i(n, "select_last_index", 0) != 0;
	if (last) {
		/* the last extreme is the first one of the reversed axis */
		struct webnn_reverse_options ro = WEBNN_REVERSE_OPTIONS_INIT;
		ro.axes = &axis;
		ro.n_axes = 1;
		OX_B(n, "reverse", webnn_builder_reverse(n->M->b, x, &ro, &x));
	}
	OX_B(n, max ? "argMax" : "argMin",
	     (max ? webnn_builder_arg_max : webnn_builder_arg_min)(n->M->b, x, axis, &ao, &o));
	if (last) {
		struct webnn_operand *c = ox_scalar(n, WEBNN_INT64, (double)v->dims[axis] - 1);
		if (!c)
			return -1;
		OX_B(n, "sub", webnn_builder_sub(n->M->b, c, o, &o));
	}
	return ox_set(n, 0, o);
}

const struct ox_op ox_ops_nn[] = {
	{ "Conv", 1, 21, op_conv }, { "ConvTranspose", 1, 21, op_conv_transpose },
	{ "MaxPool", 1, 21, op_pool }, { "AveragePool", 1, 21, op_pool },
	{ "MaxUnpool", 9, 21, op_max_unpool },
	{ "LpPool", 2, 21, op_pool }, { "GlobalAveragePool", 1, 21, op_global_pool },
	{ "GlobalMaxPool", 1, 21, op_global_pool }, { "GlobalLpPool", 2, 21, op_global_pool },
	{ "BatchNormalization", 1, 21, op_batch_norm },
	{ "InstanceNormalization", 1, 21, op_instance_norm },
	/* opset 17's operator; onnxruntime has had it in the default domain since version 1 (the
	 * same attributes and outputs), so its fused models of older opsets use it too */
	{ "LayerNormalization", 1, 21, op_layer_norm }, { "LRN", 1, 21, op_lrn },
	{ "GroupNormalization", 18, 21, op_group_norm },
	{ "MeanVarianceNormalization", 9, 21, op_mvn },
	{ "LpNormalization", 1, 21, op_lp_norm },
	{ "Gemm", 1, 21, op_gemm }, { "MatMul", 1, 21, op_matmul },
	{ "Softmax", 1, 21, op_softmax }, { "LogSoftmax", 1, 21, op_log_softmax },
	{ "Hardmax", 1, 21, op_hardmax },
	{ "ReduceSum", 1, 21, op_reduce }, { "ReduceMean", 1, 21, op_reduce },
	{ "ReduceMax", 1, 21, op_reduce }, { "ReduceMin", 1, 21, op_reduce },
	{ "ReduceProd", 1, 21, op_reduce }, { "ReduceL1", 1, 21, op_reduce },
	{ "ReduceL2", 1, 21, op_reduce }, { "ReduceLogSum", 1, 21, op_reduce },
	{ "ReduceLogSumExp", 1, 21, op_reduce }, { "ReduceSumSquare", 1, 21, op_reduce },
	{ "ArgMax", 1, 21, op_arg }, { "ArgMin", 1, 21, op_arg },
	{ NULL, 0, 0, NULL },
};
