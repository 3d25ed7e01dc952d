/* ONNX operators composed from several WebNN calls: quantization, integer matmul/conv, losses, LSTM/GRU, Einsum, windows. */
#include "importers/onnx/onnx_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- quantization */

/* A per-axis scale or zero point [C] is reshaped to broadcast along axis of x. */
static struct webnn_operand *along_axis(struct ox_node *n, struct ox_val *p, uint32_t rank,
					uint32_t axis)
{
	struct webnn_operand *o = ox_operand(n, p);
	if (!o || p->rank == 0 || rank == 0)
		return o;
	if (p->rank != 1) {
		ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a scale or zero point of rank %u (per-tensor "
			"or per-axis only)", p->rank);
		return NULL;
	}
	if (p->dims[0] == 1)
		return ox_reshape(n, o, 0, NULL);
	uint32_t d[WEBNN_MAX_RANK];
	for (uint32_t i = 0; i < rank; i++)
		d[i] = i == axis ? p->dims[0] : 1;
	return ox_reshape(n, o, rank, d);
}

/* WebNN's quantize and dequantize take scale and zero point of x's rank. */
static struct webnn_operand *full_rank(struct ox_node *n, struct webnn_operand *o, uint32_t rank)
{
	struct webnn_operand_desc d;
	ox_desc(o, &d);
	if (d.rank == rank)
		return o;
	uint32_t s[WEBNN_MAX_RANK];
	for (uint32_t i = 0; i < rank; i++)
		s[i] = i + d.rank >= rank ? d.shape[i + d.rank - rank] : 1;
	return ox_reshape(n, o, rank, s);
}

/* QuantizeLinear and DequantizeLinear: x, and the axis a per-axis scale runs along. */
static int quant_start(struct ox_node *n, struct webnn_operand **x, uint32_t *axis)
{
	OX_IN(n, 0, *x);
	if (!ox_has_in(n, 1))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no scale");
	*axis = 0;
	if (n->in[1]->rank && ox_axis(n, ox_attr_i(n, "axis", 1), n->in[0]->rank, axis))
		return -1;
	return 0;
}

/* Blocked quantization (opset 21): a scale or zero point of x's rank, x's shape but along axis
 * ceil(x.shape[axis] / block_size). WebNN repeats each scale over a block that divides x's
 * dimension exactly, so a partial last block cannot be expressed. */
static int blocked_shape(struct ox_node *n, const char *role, const struct ox_val *p, uint32_t axis,
			 int64_t block)
{
	const struct ox_val *v = n->in[0];
	if (p->rank != v->rank)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "block_size %lld: %s has rank %u, x "
			       "rank %u (blocked quantization needs the same rank)",
			       (long long)block, role, p->rank, v->rank);
	uint64_t d = v->dims[axis], want = (d + (uint64_t)block - 1) / (uint64_t)block;
	for (uint32_t i = 0; i < v->rank; i++) {
		uint64_t w = i == axis ? want : v->dims[i];
		if (p->dims[i] != w)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "block_size %lld along axis %u: "
				       "%s dimension %u is %u, expected %llu (x's dimension %u%s)",
				       (long long)block, axis, role, i, p->dims[i],
				       (unsigned long long)w, v->dims[i],
				       i == axis ? " divided by block_size, rounded up" : "");
	}
	if (d % (uint64_t)block)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "block_size %lld does not divide x's "
			       "dimension %u along axis %u (WebNN's block-wise scales repeat over "
			       "whole blocks only)", (long long)block, v->dims[axis], axis);
	return 0;
}

/* Scale and zero point at x's rank. A missing zero point is 0 of the quantized type: for
 * quantize (of_output_dtype) the output_dtype attribute (opset 21, uint8 by default), for
 * dequantize x's own type. */
static int scale_and_zero(struct ox_node *n, uint32_t axis, bool of_output_dtype,
			  struct webnn_operand **s, struct webnn_operand **z)
{
	struct ox_val *v = n->in[0];
	int64_t block = ox_attr_i(n, "block_size", 0);
	if (block < 0)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "block_size %lld is negative",
			       (long long)block);
	if (block) {
		if (blocked_shape(n, "x_scale", n->in[1], axis, block) ||
		    (ox_has_in(n, 2) && blocked_shape(n, "x_zero_point", n->in[2], axis, block)))
			return -1;
		/* WebNN's block-wise broadcast: same rank, each dimension dividing x's */
		if (!(*s = ox_operand(n, n->in[1])))
			return -1;
	} else if (!(*s = along_axis(n, n->in[1], v->rank, axis))) {
		return -1;
	}
	if (ox_has_in(n, 2)) {
		if (!(*z = block ? ox_operand(n, n->in[2])
				 : along_axis(n, n->in[2], v->rank, axis)))
			return -1;
	} else {
		uint64_t zero = 0;
		enum webnn_data_type zt = v->type;
		if (of_output_dtype) {
			int ot = (int)ox_attr_i(n, "output_dtype", OX_UINT8);
			if (!ox_webnn_type(ot, &zt) || ot == OX_BOOL)
				return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "output_dtype %s",
					       ox_type_name(ot));
		}
		struct webnn_operand_desc sd;
		ox_desc(*s, &sd);
		if (zt == WEBNN_INT4 || zt == WEBNN_UINT4) {
			/* expand takes no 4-bit type: the zeros are a constant of the scale's
			 * shape (half a byte each) */
			void *zeros = calloc(ox_bytes(zt, sd.rank, sd.shape) + 1, 1);
			if (!zeros)
				return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
			*z = ox_const(n, zt, sd.rank, sd.shape, zeros);
			free(zeros);
			if (!*z)
				return -1;
		} else {
			if (!(*z = ox_const(n, zt, 0, NULL, &zero)))
				return -1;
			OX_B(n, "expand", webnn_builder_expand(n->M->b, *z, sd.shape, sd.rank, z));
		}
	}
	if (!(*s = full_rank(n, *s, v->rank)) || !(*z = full_rank(n, *z, v->rank)))
		return -1;
	return 0;
}

static int op_quantize(struct ox_node *n)
{
	struct webnn_operand *x, *s, *z, *o;
	uint32_t axis;
	if (quant_start(n, &x, &axis))
		return -1;
	struct ox_val *v = n->in[0];
	if (ox_attr(n, "saturate") && !ox_attr_i(n, "saturate", 1))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "saturate 0 (float8 only)");
	if (scale_and_zero(n, axis, true, &s, &z))
		return -1;
	if (ox_need_type(n, "quantizeLinear", NULL, v->type))
		return -1;
	OX_B(n, "quantizeLinear", webnn_builder_quantize_linear(n->M->b, x, s, z, &o));
	return ox_set(n, 0, o);
}

static int op_dequantize(struct ox_node *n)
{
	struct webnn_operand *x, *s, *z, *o;
	uint32_t axis;
	if (quant_start(n, &x, &axis))
		return -1;
	struct ox_val *v = n->in[0];
	if (ox_need_type(n, "dequantizeLinear", NULL, v->type))
		return -1;
	if (scale_and_zero(n, axis, false, &s, &z))
		return -1;
	OX_B(n, "dequantizeLinear", webnn_builder_dequantize_linear(n->M->b, x, s, z, &o));
	return ox_set(n, 0, o);
}

/* y_scale = (max(0, max x) - min(0, min x)) / 255 (1 / 255 when that range is empty: an
 * all-zero x), zero point = round(-min / scale). */
static int op_dynamic_quantize(struct ox_node *n)
{
	struct webnn_operand *x, *mx, *mn, *z, *sc, *zp, *q, *c;
	struct webnn_builder *b = n->M->b;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	OX_B(n, "reduceMax", webnn_builder_reduce_max(b, x, &ro, &mx));
	OX_B(n, "reduceMin", webnn_builder_reduce_min(b, x, &ro, &mn));
	if (!(z = ox_scalar(n, WEBNN_FLOAT32, 0)) || !(c = ox_scalar(n, WEBNN_FLOAT32, 255)))
		return -1;
	OX_B(n, "max", webnn_builder_max(b, mx, z, &mx));
	OX_B(n, "min", webnn_builder_min(b, mn, z, &mn));
	OX_B(n, "sub", webnn_builder_sub(b, mx, mn, &sc));
	struct webnn_operand *empty, *one = ox_scalar(n, WEBNN_FLOAT32, 1);
	if (!one)
		return -1;
	OX_B(n, "equal", webnn_builder_equal(b, mx, mn, &empty));
	OX_B(n, "where", webnn_builder_where(b, empty, one, sc, &sc));
	OX_B(n, "div", webnn_builder_div(b, sc, c, &sc));
	OX_B(n, "div", webnn_builder_div(b, mn, sc, &zp));
	OX_B(n, "neg", webnn_builder_neg(b, zp, &zp));
	OX_B(n, "roundEven", webnn_builder_round_even(b, zp, &zp));
	struct webnn_clamp_options co = WEBNN_CLAMP_OPTIONS_INIT;
	co.has_min_value = co.has_max_value = true;
	co.min_value = 0;
	co.max_value = 255;
	OX_B(n, "clamp", webnn_builder_clamp(b, zp, &co, &zp));
	OX_B(n, "cast", webnn_builder_cast(b, zp, WEBNN_UINT8, &zp));
	struct webnn_operand *sf = sc, *zf = zp;
	if (!(sf = full_rank(n, sc, v->rank)) || !(zf = full_rank(n, zp, v->rank)))
		return -1;
	OX_B(n, "quantizeLinear", webnn_builder_quantize_linear(b, x, sf, zf, &q));
	ox_set(n, 0, q);
	ox_set(n, 1, sc);
	ox_set(n, 2, zp);
	return 0;
}

/* Integer inputs minus their zero points, as float32: exact while every partial sum stays
 * below 2^24, which the callers check from the reduction length. */
static struct webnn_operand *int_to_float(struct ox_node *n, size_t i, size_t zi, uint32_t rank,
					  uint32_t axis)
{
	struct webnn_operand *x = ox_operand(n, n->in[i]), *z;
	if (!x)
		return NULL;
	enum webnn_status s = webnn_builder_cast(n->M->b, x, WEBNN_FLOAT32, &x);
	if (s != WEBNN_STATUS_OK) {
		ox_builder_fail(n, s, "cast");
		return NULL;
	}
	if (!ox_has_in(n, zi))
		return x;
	if (!(z = along_axis(n, n->in[zi], rank, axis)))
		return NULL;
	s = webnn_builder_cast(n->M->b, z, WEBNN_FLOAT32, &z);
	if (s == WEBNN_STATUS_OK)
		s = webnn_builder_sub(n->M->b, x, z, &x);
	if (s != WEBNN_STATUS_OK) {
		ox_builder_fail(n, s, "zero point");
		return NULL;
	}
	return x;
}

/* Integer products are summed exactly, as onnxruntime's integer kernels do: the reduction is
 * cut into runs short enough that float32 (WebNN's matmul and conv2d type) holds every
 * partial sum exactly (run * 255 * 255 < 2^24), each run's result is cast to int32 and the
 * runs are added in int32. */
#define EXACT_RUN ((1u << 24) / (255u * 255u))

static struct webnn_operand *slice_axis(struct ox_node *n, struct webnn_operand *x, uint32_t axis,
					uint32_t start, uint32_t size)
{
	struct webnn_operand_desc d;
	uint32_t st[WEBNN_MAX_RANK] = { 0 }, sz[WEBNN_MAX_RANK];
	ox_desc(x, &d);
	memcpy(sz, d.shape, sizeof(sz[0]) * d.rank);
	st[axis] = start;
	sz[axis] = size;
	enum webnn_status s = webnn_builder_slice(n->M->b, x, st, d.rank, sz, d.rank, NULL, &x);
	if (s != WEBNN_STATUS_OK) {
		ox_builder_fail(n, s, "slice");
		return NULL;
	}
	return x;
}

/* One run's float result as int32, added to the sum of the runs before it. */
static int add_run(struct ox_node *n, struct webnn_operand *part, struct webnn_operand **sum)
{
	OX_B(n, "cast", webnn_builder_cast(n->M->b, part, WEBNN_INT32, &part));
	if (!*sum) {
		*sum = part;
		return 0;
	}
	OX_B(n, "add", webnn_builder_add(n->M->b, *sum, part, sum));
	return 0;
}

static int op_matmul_integer(struct ox_node *n)
{
	struct webnn_operand *a, *b, *o = NULL;
	if (!ox_has_in(n, 0) || !ox_has_in(n, 1))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "inputs missing");
	struct ox_val *va = n->in[0], *vb = n->in[1];
	if (va->rank < 2 || vb->rank < 2)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "1-D operands");
	/* a's zero point is per row (axis rank-2), b's per column (axis rank-1) */
	if (!(a = int_to_float(n, 0, 2, va->rank, va->rank - 2)) ||
	    !(b = int_to_float(n, 1, 3, vb->rank, vb->rank - 1)))
		return -1;
	uint32_t k = va->dims[va->rank - 1];
	for (uint32_t k0 = 0; k0 < k || k0 == 0; k0 += EXACT_RUN) {
		uint32_t len = k - k0 < EXACT_RUN ? k - k0 : EXACT_RUN;
		struct webnn_operand *ar = a, *br = b, *p;
		if (len < k && (!(ar = slice_axis(n, a, va->rank - 1, k0, len)) ||
				!(br = slice_axis(n, b, vb->rank - 2, k0, len))))
			return -1;
		OX_B(n, "matmul", webnn_builder_matmul(n->M->b, ar, br, &p));
		if (add_run(n, p, &o))
			return -1;
		if (k == 0)
			break;
	}
	return ox_set(n, 0, o);
}

/* ConvInteger and QLinearConv share the window handling of Conv through a float conv2d. */
static int conv_float(struct ox_node *n, struct webnn_operand *x, struct webnn_operand *w,
		      struct webnn_operand *bias, bool nhwc, struct webnn_operand **o)
{
	struct ox_val *vx = n->in[0];
	if (vx->rank != 4)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a rank %u input (2-D only)", vx->rank);
	struct webnn_conv2d_options co = WEBNN_CONV2D_OPTIONS_INIT;
	const int64_t *v;
	long c;
	if ((c = ox_attr_ints(n, "strides", &v)) == 2) {
		co.strides[0] = (uint32_t)v[0];
		co.strides[1] = (uint32_t)v[1];
		co.n_strides = 2;
	}
	if ((c = ox_attr_ints(n, "dilations", &v)) == 2) {
		co.dilations[0] = (uint32_t)v[0];
		co.dilations[1] = (uint32_t)v[1];
		co.n_dilations = 2;
	}
	if ((c = ox_attr_ints(n, "pads", &v)) == 4) {
		co.padding[0] = (uint32_t)v[0];
		co.padding[1] = (uint32_t)v[2];
		co.padding[2] = (uint32_t)v[1];
		co.padding[3] = (uint32_t)v[3];
		co.n_padding = 4;
	}
	const char *ap = ox_attr_s(n, "auto_pad", "NOTSET");
	if (strcmp(ap, "NOTSET") != 0 && strcmp(ap, "VALID") != 0)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "auto_pad %s", ap);
	co.groups = (uint32_t)ox_attr_i(n, "group", 1);
	co.bias = bias;
	co.input_layout = nhwc ? WEBNN_LAYOUT_NHWC : WEBNN_LAYOUT_NCHW;
	OX_B(n, "conv2d", webnn_builder_conv2d(n->M->b, x, w, &co, o));
	return 0;
}

static int op_conv_integer(struct ox_node *n)
{
	struct webnn_operand *x, *w, *o = NULL;
	if (!ox_has_in(n, 0) || !ox_has_in(n, 1))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "inputs missing");
	struct ox_val *vw = n->in[1];
	if (vw->rank != 4)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a %u-D filter", vw->rank);
	if (!(x = int_to_float(n, 0, 2, 4, 1)) || !(w = int_to_float(n, 1, 3, 4, 0)))
		return -1;
	/* runs of input channels: a grouped convolution's groups would each need their own */
	uint64_t window = (uint64_t)vw->dims[2] * vw->dims[3], c = vw->dims[1];
	uint64_t run = window ? EXACT_RUN / window : c;
	if (c * window > EXACT_RUN && (ox_attr_i(n, "group", 1) != 1 || run == 0))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "%llu products per output in %s: their int32 sum cannot be cut into "
			       "runs that float32 (WebNN's conv2d type) sums exactly",
			       (unsigned long long)(c * window),
			       run == 0 ? "one channel's window" : "a grouped convolution");
	/* runs of channels are cut from x in NHWC, where they are the innermost axis: cut in
	 * NCHW, each run would be transposed on its own into the backends' NHWC (a quantized
	 * 512x512 net spent as long on those transposes as on its slices) */
	static const uint32_t to_nhwc[4] = { 0, 2, 3, 1 }, to_nchw[4] = { 0, 3, 1, 2 };
	bool runs = c * window > EXACT_RUN;
	if (runs)
		OX_B(n, "transpose", webnn_builder_transpose(n->M->b, x, to_nhwc, 4, &x));
	for (uint64_t c0 = 0; c0 < c || c0 == 0; c0 += run) {
		uint32_t len = (uint32_t)(c - c0 < run ? c - c0 : run);
		struct webnn_operand *xr = x, *wr = w, *p;
		if (runs && (!(xr = slice_axis(n, x, 3, (uint32_t)c0, len)) ||
			     !(wr = slice_axis(n, w, 1, (uint32_t)c0, len))))
			return -1;
		if (conv_float(n, xr, wr, NULL, runs, &p) || add_run(n, p, &o))
			return -1;
		if (c == 0)
			break;
	}
	if (runs)
		OX_B(n, "transpose", webnn_builder_transpose(n->M->b, o, to_nchw, 4, &o));
	return ox_set(n, 0, o);
}

static struct webnn_operand *dequant(struct ox_node *n, size_t xi, size_t si, size_t zi,
				     uint32_t axis)
{
	struct ox_val *v = n->in[xi];
	struct webnn_operand *x = ox_operand(n, v), *s, *z;
	if (!x || !(s = along_axis(n, n->in[si], v->rank, axis)) ||
	    !(z = along_axis(n, n->in[zi], v->rank, axis)) || !(s = full_rank(n, s, v->rank)) ||
	    !(z = full_rank(n, z, v->rank)))
		return NULL;
	enum webnn_status st = webnn_builder_dequantize_linear(n->M->b, x, s, z, &x);
	if (st != WEBNN_STATUS_OK) {
		ox_builder_fail(n, st, "dequantizeLinear");
		return NULL;
	}
	return x;
}

static int requant(struct ox_node *n, struct webnn_operand *y, size_t si, size_t zi)
{
	struct webnn_operand_desc d;
	ox_desc(y, &d);
	struct webnn_operand *s, *z, *o;
	if (!(s = ox_operand(n, n->in[si])) || !(z = ox_operand(n, n->in[zi])) ||
	    !(s = full_rank(n, s, d.rank)) || !(z = full_rank(n, z, d.rank)))
		return -1;
	OX_B(n, "quantizeLinear", webnn_builder_quantize_linear(n->M->b, y, s, z, &o));
	return ox_set(n, 0, o);
}

static int op_qlinear_matmul(struct ox_node *n)
{
	for (size_t i = 0; i < 8; i++)
		if (!ox_has_in(n, i))
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "input %zu is missing", i);
	struct ox_val *va = n->in[0], *vb = n->in[3];
	if (va->rank < 2 || vb->rank < 2)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "1-D operands");
	struct webnn_operand *a, *b, *y;
	if (!(a = dequant(n, 0, 1, 2, va->rank - 2)) || !(b = dequant(n, 3, 4, 5, vb->rank - 1)))
		return -1;
	OX_B(n, "matmul", webnn_builder_matmul(n->M->b, a, b, &y));
	return requant(n, y, 6, 7);
}

static int op_qlinear_conv(struct ox_node *n)
{
	for (size_t i = 0; i < 8; i++)
		if (!ox_has_in(n, i))
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "input %zu is missing", i);
	struct webnn_operand *x, *w, *y, *bias = NULL;
	if (!(x = dequant(n, 0, 1, 2, 1)) || !(w = dequant(n, 3, 4, 5, 0)))
		return -1;
	struct ox_val *vb = ox_has_in(n, 8) ? n->in[8] : NULL, *vxs = n->in[1], *vws = n->in[4];
	size_t nb = vb ? ox_elems(vb->rank, vb->dims) : 0, nws = ox_elems(vws->rank, vws->dims);
	if (vb && vb->host && vxs->host && vws->host && vb->type == WEBNN_INT32 &&
	    vxs->type == WEBNN_FLOAT32 && vws->type == WEBNN_FLOAT32 &&
	    ox_elems(vxs->rank, vxs->dims) == 1 && (nws == 1 || nws == nb)) {
		/* known (initializers, as exported): a float constant, the same float32 arithmetic
		 * as the graph below, that the daemon reads as a bias (graph_fuse_qdq) */
		float *f = malloc(nb * sizeof(*f) + 1);
		if (!f)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		const float xs = *(const float *)vxs->host, *ws = vws->host;
		for (size_t i = 0; i < nb; i++)
			f[i] = (float)((const int32_t *)vb->host)[i] * (xs * ws[nws == 1 ? 0 : i]);
		bias = ox_const(n, WEBNN_FLOAT32, vb->rank, vb->dims, f);
		free(f);
		if (!bias)
			return -1;
	} else if (vb) {
		/* int32 bias in units of x_scale * w_scale */
		struct webnn_operand *xs, *ws, *s;
		if (!(bias = ox_operand(n, n->in[8])) || !(xs = ox_operand(n, n->in[1])) ||
		    !(ws = ox_operand(n, n->in[4])))
			return -1;
		OX_B(n, "cast", webnn_builder_cast(n->M->b, bias, WEBNN_FLOAT32, &bias));
		OX_B(n, "mul", webnn_builder_mul(n->M->b, xs, ws, &s));
		OX_B(n, "mul", webnn_builder_mul(n->M->b, bias, s, &bias));
	}
	if (conv_float(n, x, w, bias, false, &y))
		return -1;
	return requant(n, y, 6, 7);
}

/* ---------------------------------------------------------------- losses */

/* -input[n, target[n, ...], ...] weighted, masked by ignore_index, reduced. */
static int nll(struct ox_node *n, struct webnn_operand *logp, const struct ox_val *vin,
	       struct ox_val *tv, struct ox_val *wv, size_t out)
{
	struct webnn_builder *b = n->M->b;
	struct webnn_operand *t, *loss, *w = NULL, *mask = NULL;
	if (!(t = ox_operand(n, tv)))
		return -1;
	if (vin->rank < 2 || tv->rank != vin->rank - 1)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "input rank %u with target rank %u",
			       vin->rank, tv->rank);
	const char *red = ox_attr_s(n, "reduction", "mean");
	bool has_ii = ox_attr(n, "ignore_index") != NULL;
	if (has_ii) {
		struct webnn_operand *ii, *z;
		if (!(ii = ox_scalar(n, tv->type, (double)ox_attr_i(n, "ignore_index", 0))) ||
		    !(z = ox_scalar(n, tv->type, 0)))
			return -1;
		OX_B(n, "notEqual", webnn_builder_not_equal(b, t, ii, &mask));
		OX_B(n, "where", webnn_builder_where(b, mask, t, z, &t));
		OX_B(n, "cast", webnn_builder_cast(b, mask, vin->type, &mask));
	}
	uint32_t d[WEBNN_MAX_RANK];
	d[0] = tv->dims[0];
	d[1] = 1;
	for (uint32_t i = 1; i < tv->rank; i++)
		d[i + 1] = tv->dims[i];
	struct webnn_operand *t1 = ox_reshape(n, t, vin->rank, d);
	if (!t1)
		return -1;
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	go.axis = 1;
	OX_B(n, "gatherElements", webnn_builder_gather_elements(b, logp, t1, &go, &loss));
	if (!(loss = ox_reshape(n, loss, tv->rank, tv->dims)))
		return -1;
	OX_B(n, "neg", webnn_builder_neg(b, loss, &loss));
	if (wv) {
		struct webnn_operand *wo = ox_operand(n, wv);
		if (!wo)
			return -1;
		struct webnn_gather_options g0 = WEBNN_GATHER_OPTIONS_INIT;
		OX_B(n, "gather", webnn_builder_gather(b, wo, t, &g0, &w));
		if (mask)
			OX_B(n, "mul", webnn_builder_mul(b, w, mask, &w));
	} else if (mask) {
		w = mask;
	}
	if (w)
		OX_B(n, "mul", webnn_builder_mul(b, loss, w, &loss));
	if (strcmp(red, "none") == 0)
		return ox_set(n, out, loss);
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	OX_B(n, "reduceSum", webnn_builder_reduce_sum(b, loss, &ro, &loss));
	if (strcmp(red, "sum") == 0)
		return ox_set(n, out, loss);
	if (strcmp(red, "mean") != 0)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "reduction \"%s\"", red);
	struct webnn_operand *den;
	if (w) {
		OX_B(n, "reduceSum", webnn_builder_reduce_sum(b, w, &ro, &den));
	} else if (!(den = ox_scalar(n, vin->type, (double)ox_elems(tv->rank, tv->dims)))) {
		return -1;
	}
	OX_B(n, "div", webnn_builder_div(b, loss, den, &loss));
	return ox_set(n, out, loss);
}

static int op_nll_loss(struct ox_node *n)
{
	struct webnn_operand *x;
	OX_IN(n, 0, x);
	if (!ox_has_in(n, 1))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no target");
	return nll(n, x, n->in[0], n->in[1], ox_has_in(n, 2) ? n->in[2] : NULL, 0);
}

static int op_sce_loss(struct ox_node *n)
{
	struct webnn_builder *b = n->M->b;
	struct webnn_operand *x, *m, *o, *s;
	OX_IN(n, 0, x);
	if (!ox_has_in(n, 1))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no labels");
	uint32_t axis = 1;
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.axes = &axis;
	ro.n_axes = 1;
	ro.keep_dimensions = true;
	OX_B(n, "reduceMax", webnn_builder_reduce_max(b, x, &ro, &m));
	OX_B(n, "sub", webnn_builder_sub(b, x, m, &o));
	OX_B(n, "exp", webnn_builder_exp(b, o, &s));
	OX_B(n, "reduceSum", webnn_builder_reduce_sum(b, s, &ro, &s));
	OX_B(n, "log", webnn_builder_log(b, s, &s));
	OX_B(n, "sub", webnn_builder_sub(b, o, s, &o));
	if (nll(n, o, n->in[0], n->in[1], ox_has_in(n, 2) ? n->in[2] : NULL, 0))
		return -1;
	if (n->n_out > 1)
		ox_set(n, 1, o);
	return 0;
}

/* ---------------------------------------------------------------- recurrent */

static int activation(struct ox_node *n, const char *name, enum webnn_recurrent_activation *a)
{
	if (strcmp(name, "Sigmoid") == 0)
		*a = WEBNN_ACTIVATION_SIGMOID;
	else if (strcmp(name, "Tanh") == 0)
		*a = WEBNN_ACTIVATION_TANH;
	else if (strcmp(name, "Relu") == 0)
		*a = WEBNN_ACTIVATION_RELU;
	else
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "activation %s (WebNN recurrent networks take sigmoid, tanh, relu)",
			       name);
	return 0;
}

/* The activations attribute lists k per direction; WebNN has one list for both. */
static int activations(struct ox_node *n, int k, int dirs, enum webnn_recurrent_activation *out,
		       uint32_t *count)
{
	const Onnx__AttributeProto *a = ox_attr(n, "activations");
	*count = 0;
	if (!a || !a->n_strings)
		return 0;
	if (a->n_strings != (size_t)(k * dirs))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "%zu activations, expected %d",
			       a->n_strings, k * dirs);
	for (int i = 0; i < k * dirs; i++) {
		char name[32];
		snprintf(name, sizeof(name), "%.*s", (int)a->strings[i].len, a->strings[i].data);
		enum webnn_recurrent_activation act = WEBNN_ACTIVATION_SIGMOID;
		if (activation(n, name, &act))
			return -1;
		if (i >= k && act != out[i - k])
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "different activations per direction");
		if (i < k)
			out[i] = act;
	}
	*count = (uint32_t)k;
	return 0;
}

struct rnn_common {
	struct webnn_operand *x, *w, *r, *bias, *rbias, *h0;
	uint32_t steps, hidden, dirs;
	enum webnn_recurrent_direction dir;
	bool batch_major;
};

static int rnn_common(struct ox_node *n, uint32_t gates, struct rnn_common *c)
{
	struct webnn_builder *b = n->M->b;
	memset(c, 0, sizeof(*c));
	OX_IN(n, 0, c->x);
	OX_IN(n, 1, c->w);
	OX_IN(n, 2, c->r);
	struct ox_val *vx = n->in[0];
	if (vx->rank != 3)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "X has rank %u", vx->rank);
	if (ox_attr(n, "clip"))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "clip (WebNN cells do not clip)");
	c->batch_major = ox_attr_i(n, "layout", 0) != 0;
	if (c->batch_major) {
		static const uint32_t perm[3] = { 1, 0, 2 };
		OX_B(n, "transpose", webnn_builder_transpose(b, c->x, perm, 3, &c->x));
	}
	c->steps = c->batch_major ? vx->dims[1] : vx->dims[0];
	uint32_t batch = c->batch_major ? vx->dims[0] : vx->dims[1];
	c->hidden = (uint32_t)ox_attr_i(n, "hidden_size", n->in[2]->dims[2]);
	const char *d = ox_attr_s(n, "direction", "forward");
	c->dir = strcmp(d, "reverse") == 0 ? WEBNN_DIRECTION_BACKWARD
	       : strcmp(d, "bidirectional") == 0 ? WEBNN_DIRECTION_BOTH
						 : WEBNN_DIRECTION_FORWARD;
	c->dirs = c->dir == WEBNN_DIRECTION_BOTH ? 2 : 1;
	if (ox_has_in(n, 3)) {
		struct webnn_operand *bb, *parts[2];
		size_t got;
		OX_IN(n, 3, bb);
		struct webnn_split_options so = WEBNN_SPLIT_OPTIONS_INIT;
		so.axis = 1;
		OX_B(n, "split", webnn_builder_split(b, bb, 2, &so, parts, 2, &got));
		c->bias = parts[0];
		c->rbias = parts[1];
	}
	if (ox_has_in(n, 4)) {
		/* sequence lengths: only the full length is expressible */
		int64_t *sl;
		size_t k;
		if (ox_host_i64(n, n->in[4], "sequence_lens", &sl, &k))
			return -1;
		for (size_t i = 0; i < k; i++)
			if (sl[i] != c->steps)
				return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
					       "sequence_lens shorter than the sequence (WebNN runs "
					       "every step)");
	}
	if (ox_has_in(n, 5)) {
		OX_IN(n, 5, c->h0);
		if (c->batch_major) {
			static const uint32_t perm[3] = { 1, 0, 2 };
			OX_B(n, "transpose", webnn_builder_transpose(b, c->h0, perm, 3, &c->h0));
		}
	}
	(void)gates;
	(void)batch;
	return 0;
}

/* WebNN's sequence is [steps, dirs, batch, hidden] like ONNX's Y (layout 0); the states are
 * [dirs, batch, hidden]. */
static int rnn_outputs(struct ox_node *n, const struct rnn_common *c, struct webnn_operand *h,
		       struct webnn_operand *cell, struct webnn_operand *seq)
{
	struct webnn_builder *b = n->M->b;
	if (c->batch_major) {
		static const uint32_t ps[4] = { 2, 0, 1, 3 }, p3[3] = { 1, 0, 2 };
		if (seq)
			OX_B(n, "transpose", webnn_builder_transpose(b, seq, ps, 4, &seq));
		OX_B(n, "transpose", webnn_builder_transpose(b, h, p3, 3, &h));
		if (cell)
			OX_B(n, "transpose", webnn_builder_transpose(b, cell, p3, 3, &cell));
	}
	if (seq)
		ox_set(n, 0, seq);
	ox_set(n, 1, h);
	if (cell)
		ox_set(n, 2, cell);
	return 0;
}

static bool wants(const struct ox_node *n, size_t i)
{
	return i < n->n_out && n->node->output[i] && *n->node->output[i];
}

static int op_lstm(struct ox_node *n)
{
	struct rnn_common c;
	if (rnn_common(n, 4, &c))
		return -1;
	if (ox_attr_i(n, "input_forget", 0))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "input_forget (coupled gates)");
	struct webnn_lstm_options lo = WEBNN_LSTM_OPTIONS_INIT;
	lo.bias = c.bias;
	lo.recurrent_bias = c.rbias;
	lo.initial_hidden_state = c.h0;
	if (ox_has_in(n, 6)) {
		OX_IN(n, 6, lo.initial_cell_state);
		if (c.batch_major) {
			static const uint32_t perm[3] = { 1, 0, 2 };
			OX_B(n, "transpose", webnn_builder_transpose(n->M->b, lo.initial_cell_state,
								     perm, 3, &lo.initial_cell_state));
		}
	}
	if (ox_has_in(n, 7)) {
		/* ONNX's output gate peeks at the new cell state, WebNN's at the previous one:
		 * only input and forget peepholes map */
		struct ox_val *pv = n->in[7];
		double *pw;
		size_t cnt;
		if (!pv->host || ox_host_f64(n, pv, "P", &pw, &cnt))
			return pv->host ? -1
					: ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
						  "peepholes computed at run time (WebNN's output-gate "
						  "peephole reads the previous cell state, ONNX's the new "
						  "one)");
		for (size_t i = 0; i < cnt; i++)
			if (pw[i] != 0 && (i % (3 * c.hidden)) / c.hidden == 1)
				return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
					       "an output-gate peephole (WebNN's reads the previous "
					       "cell state, ONNX's the new one)");
		OX_IN(n, 7, lo.peephole_weight);
	}
	lo.direction = c.dir;
	lo.layout = WEBNN_LSTM_LAYOUT_IOFG;
	lo.return_sequence = wants(n, 0);
	if (activations(n, 3, (int)c.dirs, lo.activations, &lo.n_activations))
		return -1;
	struct webnn_operand *outs[3];
	size_t got;
	OX_B(n, "lstm", webnn_builder_lstm(n->M->b, c.x, c.w, c.r, c.steps, c.hidden, &lo, outs, 3,
					    &got));
	return rnn_outputs(n, &c, outs[0], outs[1], lo.return_sequence ? outs[2] : NULL);
}

static int op_gru(struct ox_node *n)
{
	struct rnn_common c;
	if (rnn_common(n, 3, &c))
		return -1;
	struct webnn_gru_options go = WEBNN_GRU_OPTIONS_INIT;
	go.bias = c.bias;
	go.recurrent_bias = c.rbias;
	go.initial_hidden_state = c.h0;
	go.direction = c.dir;
	go.layout = WEBNN_GRU_LAYOUT_ZRN;
	go.reset_after = ox_attr_i(n, "linear_before_reset", 0) != 0;
	go.return_sequence = wants(n, 0);
	if (activations(n, 2, (int)c.dirs, go.activations, &go.n_activations))
		return -1;
	struct webnn_operand *outs[2];
	size_t got;
	OX_B(n, "gru", webnn_builder_gru(n->M->b, c.x, c.w, c.r, c.steps, c.hidden, &go, outs, 2,
					  &got));
	return rnn_outputs(n, &c, outs[0], NULL, go.return_sequence ? outs[1] : NULL);
}

/* RNN has no WebNN operator: unrolled over its (static) steps as gemm + activation. */
static int op_rnn(struct ox_node *n)
{
	struct webnn_builder *b = n->M->b;
	struct rnn_common c;
	if (rnn_common(n, 1, &c))
		return -1;
	enum webnn_recurrent_activation acts[2] = { WEBNN_ACTIVATION_TANH, WEBNN_ACTIVATION_TANH };
	uint32_t n_acts;
	if (activations(n, 1, (int)c.dirs, acts, &n_acts))
		return -1;
	struct ox_val *vx = n->in[0];
	uint32_t batch = c.batch_major ? vx->dims[0] : vx->dims[1], I = vx->dims[2], H = c.hidden;
	if (c.steps > 4096)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "%u steps to unroll", c.steps);
	struct webnn_operand **steps = ox_keep(n->M, calloc(c.steps, sizeof(*steps)));
	struct webnn_operand **ys = ox_keep(n->M, calloc((size_t)c.steps * c.dirs, sizeof(*ys)));
	struct webnn_operand *hs[2];
	if (!steps || !ys)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	size_t got;
	struct webnn_split_options so = WEBNN_SPLIT_OPTIONS_INIT;
	if (c.steps == 1)
		steps[0] = c.x;
	else
		OX_B(n, "split", webnn_builder_split(b, c.x, c.steps, &so, steps, c.steps, &got));
	uint32_t x2[2] = { batch, I }, h2[2] = { batch, H }, y4[4] = { 1, 1, batch, H };
	for (uint32_t d = 0; d < c.dirs; d++) {
		bool back = c.dir == WEBNN_DIRECTION_BACKWARD || d == 1;
		struct webnn_operand *w, *r, *bias = NULL, *h = NULL;
		uint32_t st3[3] = { d, 0, 0 }, wsz[3] = { 1, H, I }, rsz[3] = { 1, H, H };
		OX_B(n, "slice", webnn_builder_slice(b, c.w, st3, 3, wsz, 3, NULL, &w));
		OX_B(n, "slice", webnn_builder_slice(b, c.r, st3, 3, rsz, 3, NULL, &r));
		uint32_t wd[2] = { H, I }, rd[2] = { H, H };
		if (!(w = ox_reshape(n, w, 2, wd)) || !(r = ox_reshape(n, r, 2, rd)))
			return -1;
		if (c.bias) {
			struct webnn_operand *b1, *b2;
			uint32_t bst[2] = { d, 0 }, bsz[2] = { 1, H };
			OX_B(n, "slice", webnn_builder_slice(b, c.bias, bst, 2, bsz, 2, NULL, &b1));
			OX_B(n, "slice", webnn_builder_slice(b, c.rbias, bst, 2, bsz, 2, NULL, &b2));
			OX_B(n, "add", webnn_builder_add(b, b1, b2, &bias));
		}
		if (c.h0) {
			uint32_t hst[3] = { d, 0, 0 }, hsz[3] = { 1, batch, H };
			OX_B(n, "slice", webnn_builder_slice(b, c.h0, hst, 3, hsz, 3, NULL, &h));
			if (!(h = ox_reshape(n, h, 2, h2)))
				return -1;
		}
		for (uint32_t k = 0; k < c.steps; k++) {
			uint32_t t = back ? c.steps - 1 - k : k;
			struct webnn_operand *xt = ox_reshape(n, steps[t], 2, x2), *a;
			if (!xt)
				return -1;
			struct webnn_gemm_options go = WEBNN_GEMM_OPTIONS_INIT;
			go.b_transpose = true;
			go.c = bias;
			OX_B(n, "gemm", webnn_builder_gemm(b, xt, w, &go, &a));
			if (h) {
				struct webnn_gemm_options gr = WEBNN_GEMM_OPTIONS_INIT;
				gr.b_transpose = true;
				gr.c = a;
				OX_B(n, "gemm", webnn_builder_gemm(b, h, r, &gr, &a));
			}
			switch (acts[0]) {
			case WEBNN_ACTIVATION_TANH: OX_B(n, "tanh", webnn_builder_tanh(b, a, &h)); break;
			case WEBNN_ACTIVATION_SIGMOID:
				OX_B(n, "sigmoid", webnn_builder_sigmoid(b, a, &h));
				break;
			default: OX_B(n, "relu", webnn_builder_relu(b, a, &h)); break;
			}
			if (!(ys[(size_t)t * c.dirs + d] = ox_reshape(n, h, 4, y4)))
				return -1;
		}
		uint32_t h3[3] = { 1, batch, H };
		if (!(hs[d] = ox_reshape(n, h, 3, h3)))
			return -1;
	}
	struct webnn_operand *y, *yh;
	OX_B(n, "concat", webnn_builder_concat(b, ys, (size_t)c.steps * c.dirs, 0, &y));
	uint32_t yd[4] = { c.steps, c.dirs, batch, H };
	if (!(y = ox_reshape(n, y, 4, yd)))
		return -1;
	if (c.dirs == 2)
		OX_B(n, "concat", webnn_builder_concat(b, hs, 2, 0, &yh));
	else
		yh = hs[0];
	return rnn_outputs(n, &c, yh, NULL, y);
}

/* ---------------------------------------------------------------- Einsum */

/* Two-operand contractions (batch, free and summed letters, no repeated letter within an
 * operand) as transpose + reshape + matmul; one operand as transpose + reduceSum. */
static int op_einsum(struct ox_node *n)
{
	const char *eq = ox_attr_s(n, "equation", "");
	char terms[3][WEBNN_MAX_RANK + 1] = { "", "", "" };
	int nt = 0, k = 0;
	bool arrow = false;
	for (const char *p = eq; *p; p++) {
		if (*p == ' ')
			continue;
		if (*p == '.')
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "ellipsis in \"%s\"", eq);
		if (*p == ',' || (*p == '-' && p[1] == '>')) {
			if (*p == '-') {
				p++;
				arrow = true;
			}
			terms[nt][k] = 0;
			if (++nt > 2)
				return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "more than two operands");
			k = 0;
			continue;
		}
		if (k == WEBNN_MAX_RANK || !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "equation \"%s\"", eq);
		terms[nt][k++] = *p;
	}
	terms[nt][k] = 0;
	int n_ops = arrow ? nt : nt + 1;
	if ((size_t)n_ops != n->n_in)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "equation \"%s\" for %zu inputs", eq, n->n_in);
	char out[WEBNN_MAX_RANK + 1] = "";
	if (arrow) {
		snprintf(out, sizeof(out), "%s", terms[nt]);
	} else {
		/* implicit output: letters seen once, sorted */
		int o = 0;
		for (char ch = 'A'; ch <= 'z'; ch++) {
			int cnt = 0;
			for (int t = 0; t < n_ops; t++)
				cnt += strchr(terms[t], ch) != NULL;
			if (cnt == 1 && o < WEBNN_MAX_RANK)
				out[o++] = ch;
		}
		out[o] = 0;
	}
	struct webnn_builder *b = n->M->b;
	struct webnn_operand *x[2];
	uint32_t dim_of[128] = { 0 };
	for (int t = 0; t < n_ops; t++) {
		OX_IN(n, (size_t)t, x[t]);
		if (strlen(terms[t]) != n->in[t]->rank)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "term \"%s\" for rank %u", terms[t],
				       n->in[t]->rank);
		for (size_t i = 0; terms[t][i]; i++) {
			if (strchr(terms[t] + i + 1, terms[t][i]))
				return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
					       "a repeated letter (diagonal) in \"%s\"", eq);
			dim_of[(int)terms[t][i]] = n->in[t]->dims[i];
		}
	}
	/* Letters only in one operand and not in the output are summed first. */
	for (int t = 0; t < n_ops; t++) {
		uint32_t axes[WEBNN_MAX_RANK], na = 0;
		char kept[WEBNN_MAX_RANK + 1];
		int kk = 0;
		for (size_t i = 0; terms[t][i]; i++) {
			char ch = terms[t][i];
			bool other = n_ops == 2 && strchr(terms[1 - t], ch);
			if (!strchr(out, ch) && !other)
				axes[na++] = (uint32_t)i;
			else
				kept[kk++] = ch;
		}
		kept[kk] = 0;
		if (na) {
			struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
			ro.axes = axes;
			ro.n_axes = na;
			OX_B(n, "reduceSum", webnn_builder_reduce_sum(b, x[t], &ro, &x[t]));
			snprintf(terms[t], sizeof(terms[t]), "%s", kept);
		}
	}
	char cur[32];
	struct webnn_operand *o;
	if (n_ops == 1) {
		o = x[0];
		snprintf(cur, sizeof(cur), "%s", terms[0]);
	} else {
		char batch[9] = "", fa[9] = "", fb[9] = "", con[9] = "";
		int nb = 0, na = 0, nbb = 0, nc = 0;
		for (size_t i = 0; terms[0][i]; i++) {
			char ch = terms[0][i];
			if (strchr(terms[1], ch) && strchr(out, ch))
				batch[nb++] = ch;
			else if (strchr(terms[1], ch))
				con[nc++] = ch;
			else
				fa[na++] = ch;
		}
		for (size_t i = 0; terms[1][i]; i++)
			if (!strchr(terms[0], terms[1][i]))
				fb[nbb++] = terms[1][i];
		batch[nb] = fa[na] = fb[nbb] = con[nc] = 0;
		uint32_t B = 1, FA = 1, FB = 1, K = 1;
		for (int i = 0; i < nb; i++)
			B *= dim_of[(int)batch[i]];
		for (int i = 0; i < na; i++)
			FA *= dim_of[(int)fa[i]];
		for (int i = 0; i < nbb; i++)
			FB *= dim_of[(int)fb[i]];
		for (int i = 0; i < nc; i++)
			K *= dim_of[(int)con[i]];
		char ta[32], tb[32];
		snprintf(ta, sizeof(ta), "%s%s%s", batch, fa, con);
		snprintf(tb, sizeof(tb), "%s%s%s", batch, con, fb);
		uint32_t pa[WEBNN_MAX_RANK], pb[WEBNN_MAX_RANK];
		for (size_t i = 0; ta[i]; i++)
			pa[i] = (uint32_t)(strchr(terms[0], ta[i]) - terms[0]);
		for (size_t i = 0; tb[i]; i++)
			pb[i] = (uint32_t)(strchr(terms[1], tb[i]) - terms[1]);
		struct webnn_operand *a = x[0], *bb = x[1];
		if (strlen(ta))
			OX_B(n, "transpose", webnn_builder_transpose(b, a, pa, (uint32_t)strlen(ta), &a));
		if (strlen(tb))
			OX_B(n, "transpose", webnn_builder_transpose(b, bb, pb, (uint32_t)strlen(tb), &bb));
		uint32_t sa[3] = { B, FA, K }, sb[3] = { B, K, FB };
		if (ox_need_type(n, "matmul", NULL, n->in[0]->type))
			return -1;
		if (!(a = ox_reshape(n, a, 3, sa)) || !(bb = ox_reshape(n, bb, 3, sb)))
			return -1;
		OX_B(n, "matmul", webnn_builder_matmul(b, a, bb, &o));
		snprintf(cur, sizeof(cur), "%s%s%s", batch, fa, fb);
		if (strlen(cur) > WEBNN_MAX_RANK)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a result of rank %zu",
				       strlen(cur));
		uint32_t d[WEBNN_MAX_RANK];
		for (size_t i = 0; cur[i]; i++)
			d[i] = dim_of[(int)cur[i]];
		if (!(o = ox_reshape(n, o, (uint32_t)strlen(cur), d)))
			return -1;
	}
	if (strlen(cur) != strlen(out))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "output letters of \"%s\"", eq);
	uint32_t perm[WEBNN_MAX_RANK];
	bool ident = true;
	for (size_t i = 0; out[i]; i++) {
		const char *p = strchr(cur, out[i]);
		if (!p)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "output letter %c", out[i]);
		perm[i] = (uint32_t)(p - cur);
		ident &= perm[i] == i;
	}
	if (!ident)
		OX_B(n, "transpose", webnn_builder_transpose(b, o, perm, (uint32_t)strlen(out), &o));
	else if (o == x[0])
		OX_B(n, "identity", webnn_builder_identity(b, o, &o));
	return ox_set(n, 0, o);
}

/* ---------------------------------------------------------------- windows */

static int op_window(struct ox_node *n)
{
	int64_t *sz;
	size_t c;
	if (!ox_has_in(n, 0) || ox_host_i64(n, n->in[0], "size", &sz, &c))
		return ox_has_in(n, 0) ? -1 : ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no size");
	if (sz[0] < 1 || sz[0] > (1 << 24))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "size %lld", (long long)sz[0]);
	int ot = (int)ox_attr_i(n, "output_datatype", OX_FLOAT);
	enum webnn_data_type t;
	if (!ox_webnn_type(ot, &t) || (t != WEBNN_FLOAT32 && t != WEBNN_INT32 && t != WEBNN_INT64))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "output_datatype %s", ox_type_name(ot));
	uint32_t len = (uint32_t)sz[0];
	double N = ox_attr_i(n, "periodic", 1) ? len : len - 1;
	void *p = malloc(len * webnn_data_type_size(t));
	if (!p)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	const char *ty = n->node->op_type;
	for (uint32_t i = 0; i < len; i++) {
		double x = 2 * M_PI * i / N, v;
		if (strcmp(ty, "HannWindow") == 0)
			v = 0.5 - 0.5 * cos(x);
		else if (strcmp(ty, "HammingWindow") == 0)
			v = 25.0 / 46 - 21.0 / 46 * cos(x);
		else
			v = 0.42 - 0.5 * cos(x) + 0.08 * cos(2 * x);
		if (t == WEBNN_FLOAT32)
			((float *)p)[i] = (float)v;
		else if (t == WEBNN_INT32)
			((int32_t *)p)[i] = (int32_t)ox_f2i(v);
		else
			((int64_t *)p)[i] = ox_f2i(v);
	}
	return ox_set_host(n, 0, ot, 1, &len, p);
}

const struct ox_op ox_ops_misc[] = {
	{ "QuantizeLinear", 10, 21, op_quantize }, { "DequantizeLinear", 10, 21, op_dequantize },
	{ "DynamicQuantizeLinear", 11, 21, op_dynamic_quantize },
	{ "MatMulInteger", 10, 21, op_matmul_integer }, { "ConvInteger", 10, 21, op_conv_integer },
	{ "QLinearMatMul", 10, 21, op_qlinear_matmul }, { "QLinearConv", 10, 21, op_qlinear_conv },
	{ "NegativeLogLikelihoodLoss", 12, 21, op_nll_loss },
	{ "SoftmaxCrossEntropyLoss", 12, 21, op_sce_loss },
	{ "LSTM", 7, 21, op_lstm }, { "GRU", 7, 21, op_gru }, { "RNN", 7, 21, op_rnn },
	{ "Einsum", 12, 21, op_einsum },
	{ "HannWindow", 17, 21, op_window }, { "HammingWindow", 17, 21, op_window },
	{ "BlackmanWindow", 17, 21, op_window },
	{ NULL, 0, 0, NULL },
};
