/* Resolved operation parameters (option defaults, broadcasting, layouts) shared by all backends. */
#ifndef PROTO_RESOLVE_H
#define PROTO_RESOLVE_H

/*
 * Each struct wnn_<x>_attrs below is filled by the one resolver of its attrs kind
 * (resolve_<x> in proto/schema_<family>.c), reached through wnn_resolve(): it reads one
 * Operation message and the operand descriptors (descs[id], n_descs of them, as in struct
 * backend_graph), checks every spec rule once (the builder's messages, "conv2d: ..."),
 * computes the output descriptors and fills a plain struct in which every option default of
 * the spec is already applied, so no backend re-derives them. It never allocates. The same
 * resolver is the client's eager shape inference (wnn_op_infer) and the daemon's graph
 * validation (wnn_op_check); wnn_resolve() also compares the computed outputs with the
 * descriptors at the output ids. A graph that passed wnn_graph_validate() always resolves,
 * except what the spec allows but no kernel gives a meaning: a convTranspose2d whose groups do
 * not divide its input channels, a pool window (ceil rounding) over padding only.
 *
 * Shapes are row-major. "Strides" are in elements, not bytes. List defaults are applied only
 * in the resolvers; the row-major shape helpers live in shape.c.
 */

#include "proto/wnn.h"

#define WNN_MAX_BCAST_INPUTS 3 /* broadcasting operands of one op (where: condition, true, false) */
#define WNN_NO_OPERAND UINT32_MAX /* operand id of an absent optional operand */

/* Row-major element strides of a shape. */
void wnn_shape_strides(uint32_t rank, const uint32_t *dims, uint64_t *strides);
/* Element count of a shape (1 for rank 0). */
uint64_t wnn_shape_count(uint32_t rank, const uint32_t *dims);
/* Unravels a row-major index over dims and returns sum(coord[i] * strides[i]): the element
 * offset of output element `index` in an operand read through (possibly 0) strides. */
uint64_t wnn_shape_offset(uint32_t rank, const uint32_t *dims, const uint64_t *strides,
		       uint64_t index);

/* Strides for reading `in` as if it were broadcast (numpy rules, aligned at the right) to the
 * shape out_dims[out_rank]: 0 on broadcast or new leading dimensions. False when `in` is not
 * unidirectionally broadcastable to that shape. */
bool wnn_bcast_strides(const struct wnn_desc *in, uint32_t out_rank, const uint32_t *out_dims,
			  uint64_t *strides);

/* N inputs broadcast bidirectionally to one output shape. */
struct wnn_bcast {
	uint32_t rank;                  /* output rank */
	uint32_t dims[WNN_MAX_RANK];    /* output shape */
	uint64_t count;                 /* output elements */
	int n_inputs;
	uint64_t strides[WNN_MAX_BCAST_INPUTS][WNN_MAX_RANK]; /* per input, per output dim; 0 where
							      the input is broadcast */
	bool same_shape[WNN_MAX_BCAST_INPUTS]; /* input has exactly the output shape (fast path) */
};
/* Bidirectional broadcast of n (1..WNN_MAX_BCAST_INPUTS) shapes; what names the op in the diag. */
enum webnn_status wnn_broadcast(const struct wnn_desc *const *inputs, int n,
				   struct wnn_bcast *out, const char *what,
				   struct wnn_diag *diag);

/* ---- elementwise */

/* BINARY family: add ... logicalXor. */
struct wnn_binary_attrs {
	enum wnn_op op;
	uint32_t a, b, output;
	enum wnn_dtype type;     /* of a and b */
	enum wnn_dtype out_type; /* uint8 for comparisons and logical ops */
	struct wnn_bcast bc;  /* input 0 = a, 1 = b */
};

/* UNARY family: abs ... linear. alpha/beta hold the spec defaults when not given (elu alpha 1,
 * leakyRelu alpha 0.01, hardSigmoid 0.2/0.5, linear 1/0; 0 for ops without options), cast to
 * the input data type as the spec says. */
struct wnn_unary_attrs {
	enum wnn_op op;
	uint32_t input, output;
	enum wnn_dtype type, out_type;
	uint64_t count;
	double alpha, beta;
};

/* clamp: bounds already cast to the input type as the spec's "casting" does (saturating for
 * integers, NaN -> 0). Absent bounds are -inf/+inf (min/max of the type for integers). The
 * integer forms are exact for int64/uint64 (doubles lose bits above 2^53). */
struct wnn_clamp_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	uint64_t count;
	double min, max;
	int64_t min_i, max_i;   /* signed integer types */
	uint64_t min_u, max_u;  /* unsigned integer types */
};

/* ---- convolution and pooling. Spatial tensors are indexed (n, c, y, x) through the strides
 * below, whatever the layout: offset = n*s[0] + c*s[1] + y*s[2] + x*s[3]. */

enum wnn_filter_layout {
	WNN_FILTER_OIHW = 0, /* values equal Webnn__Ipc__Conv2dFilterLayout */
	WNN_FILTER_HWIO = 1,
	WNN_FILTER_OHWI = 2,
	WNN_FILTER_IHWO = 3,
};

struct wnn_conv2d_attrs {
	uint32_t input, filter, bias, output; /* bias: WNN_NO_OPERAND when absent */
	bool has_bias;
	enum wnn_dtype type;
	bool nhwc;                           /* input/output layout */
	enum wnn_filter_layout filter_layout;
	uint32_t n, c_in, h, w;              /* input */
	uint32_t c_out, kh, kw;              /* filter */
	uint32_t groups, c_in_g, c_out_g;    /* channels per group: c_in / groups, c_out / groups */
	uint32_t stride_h, stride_w, dil_h, dil_w;
	uint32_t pad_top, pad_bottom, pad_left, pad_right;
	uint32_t out_h, out_w;
	bool depthwise;                      /* groups == c_in == c_out (filter input channels 1) */
	uint64_t in_stride[4];               /* (n, c, y, x) of the input */
	uint64_t out_stride[4];              /* (n, c, y, x) of the output */
	uint64_t filter_stride[4];           /* (o, i, ky, kx) of the filter, i within the group */
};

enum wnn_pool_kind { WNN_POOL_AVG, WNN_POOL_L2, WNN_POOL_MAX };

/* Window positions outside the input (padding, or past the end with ceil rounding) are skipped:
 * max ignores them, l2 sums only real elements, and average divides by the number of real
 * elements in the window (padding is excluded from the average). A window holding no input
 * element at all produces 0 (WPT expects this for maxPool2d with ceil rounding). */
struct wnn_pool2d_attrs {
	enum wnn_pool_kind kind;
	uint32_t input, output;
	enum wnn_dtype type;
	bool nhwc;
	uint32_t n, c, h, w;
	uint32_t win_h, win_w;               /* default: the whole spatial size */
	uint32_t stride_h, stride_w, dil_h, dil_w;
	uint32_t pad_top, pad_bottom, pad_left, pad_right;
	uint32_t out_h, out_w;               /* from outputSizes, or rounded as asked */
	uint64_t in_stride[4], out_stride[4]; /* (n, c, y, x) */
};

/* ---- matrix products */

/* gemm: out[m][n] = alpha * sum_k A(m,k) B(k,n) + beta * C(m,n). A(m,k) lives at
 * m*a_stride_m + k*a_stride_k (transposes folded in), likewise B and C (C strides 0 where it
 * broadcasts; c absent means no C term). alpha/beta cast to the input type. */
struct wnn_gemm_attrs {
	uint32_t a, b, c, output; /* c: WNN_NO_OPERAND when absent */
	bool has_c;
	enum wnn_dtype type;
	uint32_t m, n, k;
	double alpha, beta;
	bool a_transpose, b_transpose;
	uint64_t a_stride_m, a_stride_k;
	uint64_t b_stride_k, b_stride_n;
	uint64_t c_stride_m, c_stride_n;
};

/* matmul: both ranks >= 2 (the spec rejects rank 1); batch dims broadcast bidirectionally to the
 * output batch shape. Matrix b of output batch index i starts at
 * wnn_shape_offset(batch_rank, batch_dims, b_batch_strides, i); the matrices themselves are dense
 * row-major (a: M x K, b: K x N, output: M x N, output batch i at i*M*N). */
struct wnn_matmul_attrs {
	uint32_t a, b, output;
	enum wnn_dtype type;
	uint32_t m, n, k;
	uint32_t batch_rank;                  /* output rank - 2 */
	uint32_t batch_dims[WNN_MAX_RANK];
	uint64_t batch;                       /* product of batch_dims (1 when none) */
	uint64_t a_batch_strides[WNN_MAX_RANK]; /* element strides, 0 where a broadcasts */
	uint64_t b_batch_strides[WNN_MAX_RANK];
	bool a_broadcast, b_broadcast;        /* true when that operand's batch shape differs
						 from the output batch shape */
	/* Element strides of the last two axes of a (m, k) and b (k, n): dense as resolved (k, 1
	 * and n, 1). A graph pass may point an operand at the source of a transpose of those two
	 * axes instead (graph_absorb_transposes): then 1, m or 1, k. The batch strides are the
	 * same either way (m k or k n elements a matrix). */
	uint64_t a_stride_m, a_stride_k, b_stride_k, b_stride_n;
};

/* ---- data movement */

/* transpose: output dim i = input dim perm[i]; in_strides[i] is the input element stride of
 * output axis i, so out element j reads input wnn_shape_offset(rank, out_dims, in_strides, j). */
struct wnn_transpose_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	uint32_t rank;
	uint32_t perm[WNN_MAX_RANK];           /* default: reversed axes */
	uint32_t out_dims[WNN_MAX_RANK];
	uint64_t in_strides[WNN_MAX_RANK];
	uint64_t count;
};

/* concat: every input viewed as [outer, axis size, inner]; input i fills output axis range
 * [offset_i, offset_i + size_i) where offsets accumulate in input order. inputs points into the
 * Operation message (valid as long as it is). */
struct wnn_concat_attrs {
	const uint32_t *inputs;
	size_t n_inputs;
	uint32_t output;
	enum wnn_dtype type;
	uint32_t axis;
	uint64_t outer;     /* product of dims before axis */
	uint64_t inner;     /* product of dims after axis */
	uint32_t out_axis;  /* output size along axis */
};
/* Size of input i along the axis. */
uint32_t wnn_concat_size(const struct wnn_concat_attrs *p, const struct wnn_desc *descs,
			    size_t i);

/* reshape: a byte copy (same data type and element count). */
struct wnn_reshape_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	uint64_t count;
	uint64_t bytes;
};

/* ---- normalisation */

/* softmax over one axis: the input viewed as [outer, axis_size, inner]. */
struct wnn_softmax_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	uint32_t axis;
	uint64_t outer, axis_size, inner;
};

/* batchNormalization: out = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c] with the
 * input viewed as [outer, channels, inner] (channel c of element at stride `inner`). epsilon is
 * cast to the input type. */
struct wnn_batchnorm_attrs {
	uint32_t input, mean, variance, scale, bias, output; /* scale/bias: WNN_NO_OPERAND if absent */
	bool has_scale, has_bias;
	enum wnn_dtype type;
	uint32_t axis;
	double epsilon;
	uint64_t outer, channels, inner;
};

/* The value of x after the spec's "casting" to float type t (float32 or float16 rounding);
 * other types return x unchanged. */
double wnn_cast_float(double x, enum wnn_dtype t);

/* ---- reduce, cast, conv (transposed), gather/scatter, data movement, normalization, resample
 * and recurrent families. Same conventions: every option default applied. */

/* A tensor split into the axes an op keeps and the axes it reduces over. Input element of kept
 * index k and reduced index r (both row-major over their own dims) lives at
 *   wnn_shape_offset(kept_rank, kept_dims, kept_strides, k) +
 *   wnn_shape_offset(red_rank, red_dims, red_strides, r).
 * Reduced axes are listed in the order the op names them (layerNormalization's scale/bias are
 * indexed by r in that order); kept axes in input order. kept_count * red_count = input count. */
struct wnn_reduction {
	uint32_t kept_rank, red_rank;
	uint32_t kept_dims[WNN_MAX_RANK], red_dims[WNN_MAX_RANK];
	uint64_t kept_strides[WNN_MAX_RANK], red_strides[WNN_MAX_RANK];
	uint64_t kept_count, red_count;
};
/* Splits `in` into kept axes (input order) and reduced axes (order of `axes`); name is the
 * operator's, for the messages. */
enum webnn_status wnn_make_reduction(const struct wnn_desc *in, const uint32_t *axes,
				     size_t n_axes, struct wnn_reduction *r, const char *name,
				     struct wnn_diag *diag);

/* cast: element i converted from in_type to out_type. Float -> integer truncates toward zero
 * and saturates to the target range (NaN -> 0); integer -> integer wraps (two's complement,
 * like a C cast / OpenCL convert_T); anything -> float rounds to nearest. */
struct wnn_cast_attrs {
	uint32_t input, output;
	enum wnn_dtype in_type, out_type;
	uint64_t count;
};

/* argMin/argMax along one axis: input viewed as [outer, axis_size, inner]; output element
 * (o, in) (o * inner + in) is the index (out_type int32 or int64) of the first minimum/maximum
 * (ties: the smallest index; NaN never wins). keepDimensions does not change the data. */
struct wnn_arg_attrs {
	enum wnn_op op;
	uint32_t input, output;
	enum wnn_dtype type, out_type;
	uint32_t axis;
	uint64_t outer, axis_size, inner;
};

/* cumulativeSum along one axis, input viewed as [outer, axis_size, inner]. */
struct wnn_cumsum_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	uint32_t axis;
	bool exclusive, reversed;
	uint64_t outer, axis_size, inner;
};

enum wnn_tfilter_layout {
	WNN_TFILTER_IOHW = 0, /* values equal Webnn__Ipc__ConvTranspose2dFilterLayout */
	WNN_TFILTER_HWOI = 1,
	WNN_TFILTER_OHWI = 2,
};

/* convTranspose2d. Input channel ic (absolute, 0..c_in) belongs to group g = ic / c_in_g;
 * output channel oc = g * c_out_g + o. The filter element for (ic, o, ky, kx) lives at
 * ic*filter_stride[0] + o*filter_stride[1] + ky*filter_stride[2] + kx*filter_stride[3].
 * Input (iy, ix) with kernel tap (ky, kx) lands on output
 *   oy = iy*stride_h + ky*dil_h - pad_top,  ox = ix*stride_w + kx*dil_w - pad_left
 * (contributions outside [0, out_h) x [0, out_w) are dropped). out_h/out_w include
 * outputPadding or come from outputSizes. */
struct wnn_conv_transpose2d_attrs {
	uint32_t input, filter, bias, output; /* bias: WNN_NO_OPERAND when absent */
	bool has_bias;
	enum wnn_dtype type;
	bool nhwc;
	enum wnn_tfilter_layout filter_layout;
	uint32_t n, c_in, h, w;
	uint32_t c_out, kh, kw;
	uint32_t groups, c_in_g, c_out_g;
	uint32_t stride_h, stride_w, dil_h, dil_w;
	uint32_t pad_top, pad_bottom, pad_left, pad_right;
	uint32_t out_pad_h, out_pad_w;
	uint32_t out_h, out_w;
	uint64_t in_stride[4];     /* (n, c, y, x) of the input */
	uint64_t out_stride[4];    /* (n, c, y, x) of the output */
	uint64_t filter_stride[4]; /* (ic, o, ky, kx) */
};

/* quantizeLinear: out = saturate(roundEven(x / scale) + zeroPoint) in the zeroPoint type.
 * dequantizeLinear: out = (x - zeroPoint) * scale in the scale type.
 * scale and zeroPoint (same shape, same rank as the input) are broadcast blockwise: input
 * element with coordinates c reads scale/zeroPoint element
 *   wnn_shape_offset(rank, dims, sz_strides, i) where sz_strides[d] = block stride, i.e.
 * sum_d (c[d] / block[d]) * scale_strides[d]; block[d] = dims[d] / scale_dims[d]. */
struct wnn_quantize_attrs {
	enum wnn_op op;
	uint32_t input, scale, zero_point, output;
	enum wnn_dtype in_type, scale_type, zp_type, out_type;
	uint32_t rank;
	uint32_t dims[WNN_MAX_RANK];        /* input (= output) shape */
	uint32_t scale_dims[WNN_MAX_RANK];
	uint32_t block[WNN_MAX_RANK];
	uint64_t scale_strides[WNN_MAX_RANK]; /* row-major strides of scale_dims */
	uint64_t count;
};
/* Scale/zeroPoint element of input element i. */
uint64_t wnn_quantize_index(const struct wnn_quantize_attrs *p, uint64_t i);

/* expand (broadcast to out_dims) and tile (out coordinate d reads input coordinate
 * d % in_dims): out element j reads input wnn_shape_offset(rank, out_dims, in_strides, j) for
 * expand; tile reads through wnn_tile_offset(). For expand the input is right-aligned to
 * out_dims and in_strides are 0 on broadcast axes. */
struct wnn_expand_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	uint32_t rank;                      /* output rank */
	uint32_t out_dims[WNN_MAX_RANK];
	uint64_t in_strides[WNN_MAX_RANK];
	uint64_t count;
};

struct wnn_tile_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	uint32_t rank;
	uint32_t in_dims[WNN_MAX_RANK], out_dims[WNN_MAX_RANK];
	uint64_t in_strides[WNN_MAX_RANK];
	uint64_t count;
};
uint64_t wnn_tile_offset(const struct wnn_tile_attrs *p, uint64_t j);

/* Index conversion shared by gather/scatter: an index value v (signed, as loaded) against an
 * axis of size n. Negative values count from the end (v + n); what is still out of [0, n) is
 * clamped into it, so no backend ever reads or writes out of bounds. (The spec leaves
 * out-of-range indices implementation-defined; clamping is what its decomposition notes and
 * most implementations do.) */
static inline uint64_t wnn_wrap_index(int64_t v, uint64_t n)
{
	if (v < 0)
		v += (int64_t)n;
	if (v < 0)
		return 0;
	if ((uint64_t)v >= n)
		return n - 1;
	return (uint64_t)v;
}

/* gather / gatherElements / gatherND (op says which).
 *  gather: input viewed as [outer, axis_size, inner], output as [outer, n_indices, inner]:
 *    out(o, j, in) = input(o, index(indices[j]), in).
 *  gatherElements: output has the indices shape (rank dims); out element j with coordinates c
 *    reads input at c with c[axis] replaced by index(indices[j]) along axis_size;
 *    in_strides are the input's row-major strides.
 *  gatherND: indices viewed as [n_tuples, k]; output as [n_tuples, slice]: tuple t selects
 *    input coordinates 0..k-1 (each through index() against in_dims[d]) and copies the
 *    `slice` elements that follow (slice = product of input dims k..rank-1). */
struct wnn_gather_attrs {
	enum wnn_op op;
	uint32_t input, indices, output;
	enum wnn_dtype type, index_type;
	uint32_t axis;
	uint64_t outer, axis_size, inner, n_indices; /* gather */
	uint32_t rank;                               /* gatherElements: output (indices) rank */
	uint32_t out_dims[WNN_MAX_RANK];
	uint32_t in_dims[WNN_MAX_RANK];
	uint64_t in_strides[WNN_MAX_RANK];
	uint32_t in_rank;
	uint64_t n_tuples, slice;                    /* gatherND */
	uint32_t k;
	uint64_t count;                              /* output elements */
};

/* scatterElements / scatterND: the output starts as a copy of the input, then updates are
 * written in order (later updates win on duplicate indices).
 *  scatterElements: updates/indices have rank dims (idx_dims); update j with coordinates c
 *    goes to the input position c with c[axis] = index(indices[j]) along axis_size.
 *  scatterND: indices viewed as [n_tuples, k]; tuple t writes `slice` elements of updates
 *    (starting at t * slice) to the input position selected by its k coordinates. */
struct wnn_scatter_attrs {
	enum wnn_op op;
	uint32_t input, indices, updates, output;
	enum wnn_dtype type, index_type;
	uint32_t axis;
	uint64_t axis_size;
	uint32_t rank;                    /* input rank */
	uint32_t in_dims[WNN_MAX_RANK];
	uint64_t in_strides[WNN_MAX_RANK];
	uint32_t idx_dims[WNN_MAX_RANK];  /* scatterElements: indices (= updates) shape */
	uint64_t n_updates;               /* scatterElements: update elements */
	uint64_t n_tuples, slice;         /* scatterND */
	uint32_t k;
	uint64_t count;                   /* input (= output) elements */
};
/* Element offset into the input/output selected by index tuple t of a scatterND/gatherND
 * (reads k index values from idx, any index type), before adding the slice element. */
uint64_t wnn_nd_offset(const void *idx, enum wnn_dtype index_type, uint64_t t, uint32_t k,
			  const uint32_t *in_dims, const uint64_t *in_strides);
/* Loads index element i of an int32/uint32/int64 indices tensor as a signed value. */
int64_t wnn_load_index(const void *idx, enum wnn_dtype index_type, uint64_t i);

/* ---- recurrent networks: gru, gruCell, lstm, lstmCell in one shape.
 * The cell forms are the sequence forms with steps = 1, num_dirs = 1 and no direction axis in
 * memory (which does not change the layout). Per direction d the operands are
 *   weight [gates*H, I], recurrentWeight [gates*H, H], bias/recurrentBias [gates*H],
 *   peephole [3*H] (i, o, f), states [batch, H]
 * each at offset d * (its per-direction size). gate_block[g] is the row block (0..gates-1) of
 * canonical gate g in the weights/biases: gru g = WNN_GRU_Z/R/N, lstm WNN_LSTM_I/F/G/O.
 * Direction d = 1 (direction BOTH) runs backward; direction BACKWARD alone is d = 0 backward.
 * Outputs (ids in output order, as wnn_op_outputs): gru [hidden, (sequence)], gruCell
 * [hidden], lstm [hidden, cell, (sequence)], lstmCell [hidden, cell]. Sequence output is
 * [steps, num_dirs, batch, H]; state outputs [num_dirs, batch, H]. */
enum { WNN_GRU_Z = 0, WNN_GRU_R = 1, WNN_GRU_N = 2 };
enum { WNN_LSTM_I = 0, WNN_LSTM_F = 1, WNN_LSTM_G = 2, WNN_LSTM_O = 3 };
enum wnn_activation { WNN_ACT_RELU = 0, WNN_ACT_SIGMOID = 1, WNN_ACT_TANH = 2 };

struct wnn_rnn_attrs {
	enum wnn_op op;
	bool lstm;        /* lstm/lstmCell, else gru/gruCell */
	bool cell;        /* gruCell/lstmCell */
	enum wnn_dtype type;
	uint32_t input, weight, recurrent_weight;
	uint32_t bias, recurrent_bias, peephole;      /* WNN_NO_OPERAND when absent */
	uint32_t initial_hidden, initial_cell;        /* WNN_NO_OPERAND when absent (zeros) */
	bool has_bias, has_recurrent_bias, has_peephole, has_initial_hidden, has_initial_cell;
	uint32_t out_hidden, out_cell, out_sequence;  /* WNN_NO_OPERAND when not produced */
	uint32_t steps, batch, input_size, hidden;
	uint32_t num_dirs;
	bool backward;         /* direction BACKWARD (with num_dirs 1) */
	bool reset_after;      /* gru */
	bool return_sequence;
	uint32_t gates;        /* 3 (gru) or 4 (lstm) */
	uint32_t gate_block[4];
	/* gru: [0] gates z/r (default sigmoid), [1] candidate n (tanh).
	 * lstm: [0] gates i/f/o (sigmoid), [1] cell candidate g (tanh), [2] cell output (tanh) */
	enum wnn_activation act[3];
};

/* pad: out coordinate d maps to input coordinate d - begin[d]; outside the input, mode decides
 * (constant: value; edge: clamp; reflection: mirror without repeating the edge). value holds
 * the padding value cast to the input type (saturating for integers; float16 as its bits), as
 * raw bytes of one element; value_f is the same as a double for float types. */
enum wnn_pad_mode { WNN_PAD_CONSTANT = 0, WNN_PAD_EDGE = 1, WNN_PAD_REFLECTION = 2 };
struct wnn_pad_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	enum wnn_pad_mode mode;
	uint32_t rank;
	uint32_t in_dims[WNN_MAX_RANK], out_dims[WNN_MAX_RANK];
	uint32_t begin[WNN_MAX_RANK];
	uint64_t in_strides[WNN_MAX_RANK];
	uint64_t count;        /* output elements */
	uint8_t value[8];
	double value_f;
};

/* prelu: out = x >= 0 ? x : slope * x, input 0 = input, 1 = slope broadcast bidirectionally. */
struct wnn_prelu_attrs {
	uint32_t input, slope, output;
	enum wnn_dtype type;
	struct wnn_bcast bc;
};

/* reduce*: output element k (row-major over the kept axes, which is also the output layout with
 * or without keepDimensions) reduces the red_count inputs of r.red. Empty axes (given but
 * empty) is no reduction: red_count 1, the op applied to each single element (reduceL1 = |x|,
 * reduceSumSquare = x*x, reduceLogSum = log(x), ...). */
struct wnn_reduce_attrs {
	enum wnn_op op;
	uint32_t input, output;
	enum wnn_dtype type;
	struct wnn_reduction r;
};

/* instanceNormalization / layerNormalization: mean and variance over r.red for each kept
 * index; out = (x - mean) / sqrt(var + epsilon) * scale + bias. instance: r.kept = (n, c) and
 * scale/bias are indexed by channel = kept index % channels (per_channel); layer: scale/bias
 * are indexed by the reduced index r (axes order). */
struct wnn_norm_attrs {
	enum wnn_op op;
	uint32_t input, scale, bias, output; /* WNN_NO_OPERAND when absent */
	bool has_scale, has_bias;
	enum wnn_dtype type;
	double epsilon;                      /* cast to the input type */
	bool per_channel;
	uint32_t channels;
	struct wnn_reduction r;
};

/* resample2d over the two axes axes[0], axes[1] of a 4-D tensor (spec algorithm). For output
 * coordinate o along resized axis i:
 *   x = clamp((o + 0.5) / scale[i] - 0.5, 0, in - 1)
 * nearest: input index ceil(x - 0.5) (wnn_resample_nearest);
 * linear: x0 = floor(x), x1 = ceil(x), weights (1 - (x - x0), x - x0) (wnn_resample_coord).
 * scale[i] is out_size / in_size as the spec says (equal to the given scale whenever that
 * scale times the input size is a whole number). Axes not resized copy straight through. */
enum wnn_interp { WNN_INTERP_NEAREST = 0, WNN_INTERP_LINEAR = 1 };
struct wnn_resample_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	enum wnn_interp mode;
	uint32_t axes[2];
	uint32_t in_dims[4], out_dims[4];
	double scale[2];
	uint64_t in_strides[4];
	uint64_t count;
};
/* The clamped source coordinate x along resized axis i for output coordinate o. */
double wnn_resample_coord(const struct wnn_resample_attrs *p, int i, uint32_t o);
/* Nearest input index along resized axis i for output coordinate o. */
uint32_t wnn_resample_nearest(const struct wnn_resample_attrs *p, int i, uint32_t o);

/* reverse: out coordinate d reads input coordinate dims-1-d on axes in the mask (bit per axis;
 * axes absent: all axes; empty: none). slice: out element j reads input
 * base + wnn_shape_offset(rank, out_dims, step_strides, j), step_strides = in stride * stride. */
struct wnn_reverse_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	uint32_t rank;
	uint32_t dims[WNN_MAX_RANK];
	uint32_t mask;
	uint64_t count;
};

struct wnn_slice_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	uint32_t rank;
	uint32_t out_dims[WNN_MAX_RANK];
	uint32_t starts[WNN_MAX_RANK], strides[WNN_MAX_RANK];
	uint64_t base;
	uint64_t step_strides[WNN_MAX_RANK];
	uint64_t count;
};

/* split: the input viewed as [outer, axis_size, inner]; output i takes axis range
 * [offsets[i], offsets[i] + sizes[i]). outputs points into the Operation message. */
struct wnn_split_attrs {
	uint32_t input;
	const uint32_t *outputs;
	size_t n_outputs;
	enum wnn_dtype type;
	uint32_t axis;
	uint64_t outer, axis_size, inner;
	uint32_t sizes[WNN_MAX_OUTPUTS], offsets[WNN_MAX_OUTPUTS];
};

/* triangular: input viewed as [batch, rows, cols]; element (r, c) is kept when
 * upper ? c - r >= diagonal : c - r <= diagonal, else 0. */
struct wnn_triangular_attrs {
	uint32_t input, output;
	enum wnn_dtype type;
	bool upper;
	int64_t diagonal;
	uint64_t batch, rows, cols;
};

/* where: inputs 0 = condition (uint8, nonzero = true), 1 = trueValue, 2 = falseValue. */
struct wnn_where_attrs {
	uint32_t condition, true_value, false_value, output;
	enum wnn_dtype type; /* of the values */
	struct wnn_bcast bc;
};

/* ---- any operation */

/* Every Operation.attrs member and the resolver (and union member) that reads it. */
#define WNN_RESOLVERS(R) \
	R(BINARY, binary) \
	R(UNARY, unary) \
	R(CLAMP, clamp) \
	R(CAST, cast) \
	R(ARG_MIN_MAX, arg) \
	R(BATCH_NORMALIZATION, batchnorm) \
	R(INSTANCE_NORMALIZATION, norm) \
	R(LAYER_NORMALIZATION, norm) \
	R(CONCAT, concat) \
	R(CONV2D, conv2d) \
	R(CONV_TRANSPOSE2D, conv_transpose2d) \
	R(CUMULATIVE_SUM, cumsum) \
	R(QUANTIZE_LINEAR, quantize) \
	R(EXPAND, expand) \
	R(GATHER, gather) \
	R(SCATTER, scatter) \
	R(GEMM, gemm) \
	R(MATMUL, matmul) \
	R(GRU, rnn) \
	R(GRU_CELL, rnn) \
	R(LSTM, rnn) \
	R(LSTM_CELL, rnn) \
	R(PAD, pad) \
	R(POOL2D, pool2d) \
	R(PRELU, prelu) \
	R(REDUCE, reduce) \
	R(RESAMPLE2D, resample) \
	R(RESHAPE, reshape) \
	R(REVERSE, reverse) \
	R(SLICE, slice) \
	R(SOFTMAX, softmax) \
	R(SPLIT, split) \
	R(TILE, tile) \
	R(TRANSPOSE, transpose) \
	R(TRIANGULAR, triangular) \
	R(WHERE, where)

/* The resolved attributes of one operation, by its resolver (wnn_resolve() picks the member). */
union wnn_attrs {
	struct wnn_binary_attrs binary;
	struct wnn_unary_attrs unary;
	struct wnn_clamp_attrs clamp;
	struct wnn_cast_attrs cast;
	struct wnn_arg_attrs arg;
	struct wnn_batchnorm_attrs batchnorm;
	struct wnn_norm_attrs norm;
	struct wnn_concat_attrs concat;
	struct wnn_conv2d_attrs conv2d;
	struct wnn_conv_transpose2d_attrs conv_transpose2d;
	struct wnn_cumsum_attrs cumsum;
	struct wnn_quantize_attrs quantize;
	struct wnn_expand_attrs expand;
	struct wnn_gather_attrs gather;
	struct wnn_scatter_attrs scatter;
	struct wnn_gemm_attrs gemm;
	struct wnn_matmul_attrs matmul;
	struct wnn_rnn_attrs rnn;
	struct wnn_pad_attrs pad;
	struct wnn_pool2d_attrs pool2d;
	struct wnn_prelu_attrs prelu;
	struct wnn_reduce_attrs reduce;
	struct wnn_resample_attrs resample;
	struct wnn_reshape_attrs reshape;
	struct wnn_reverse_attrs reverse;
	struct wnn_slice_attrs slice;
	struct wnn_softmax_attrs softmax;
	struct wnn_split_attrs split;
	struct wnn_tile_attrs tile;
	struct wnn_transpose_attrs transpose;
	struct wnn_triangular_attrs triangular;
	struct wnn_where_attrs where;
};

/* Resolves any operation: the member of union wnn_attrs for op->attrs_case is filled, *kind is
 * the operator. Fails like the per-family resolvers (unknown operator or attrs included). */
enum webnn_status wnn_resolve(const struct Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, enum wnn_op *kind, union wnn_attrs *attrs,
			      struct wnn_diag *diag);

#endif
