/* Resolved operation parameters (option defaults, broadcasting, layouts) shared by all backends. */
#ifndef DAEMON_BACKEND_PARAMS_H
#define DAEMON_BACKEND_PARAMS_H

/*
 * Every function here reads one Operation message plus the validated operand descriptors
 * (descs[id], n_descs of them, as in struct backend_graph) and fills a plain struct in which
 * every option default of the spec is already applied, so no backend re-derives them. They
 * never allocate. They re-check what they rely on (ids in range, ranks, the attrs member) and
 * fail with a diag naming the operator ("conv2d: ...") instead of trusting the caller; a graph
 * that passed wnn_graph_validate() always resolves.
 *
 * Shapes are row-major. "Strides" are in elements, not bytes.
 */

#include "proto/wnn.h"

#define PARAMS_MAX_INPUTS 3 /* broadcasting operands of one op (where: condition, true, false) */
#define PARAMS_NONE UINT32_MAX /* operand id of an absent optional operand */

/* Row-major element strides of a shape. */
void params_strides(uint32_t rank, const uint32_t *dims, uint64_t *strides);
/* Element count of a shape (1 for rank 0). */
uint64_t params_count(uint32_t rank, const uint32_t *dims);
/* Unravels a row-major index over dims and returns sum(coord[i] * strides[i]): the element
 * offset of output element `index` in an operand read through (possibly 0) strides. */
uint64_t params_offset(uint32_t rank, const uint32_t *dims, const uint64_t *strides,
		       uint64_t index);

/* Strides for reading `in` as if it were broadcast (numpy rules, aligned at the right) to the
 * shape out_dims[out_rank]: 0 on broadcast or new leading dimensions. False when `in` is not
 * unidirectionally broadcastable to that shape. */
bool params_bcast_strides(const struct wnn_desc *in, uint32_t out_rank, const uint32_t *out_dims,
			  uint64_t *strides);

/* N inputs broadcast bidirectionally to one output shape. */
struct params_bcast {
	uint32_t rank;                  /* output rank */
	uint32_t dims[WNN_MAX_RANK];    /* output shape */
	uint64_t count;                 /* output elements */
	int n_inputs;
	uint64_t strides[PARAMS_MAX_INPUTS][WNN_MAX_RANK]; /* per input, per output dim; 0 where
							      the input is broadcast */
	bool same_shape[PARAMS_MAX_INPUTS]; /* input has exactly the output shape (fast path) */
};
/* Bidirectional broadcast of n (1..PARAMS_MAX_INPUTS) shapes; what names the op in the diag. */
enum webnn_status params_broadcast(const struct wnn_desc *const *inputs, int n,
				   struct params_bcast *out, const char *what,
				   struct wnn_diag *diag);

/* ---- elementwise */

/* BINARY family: add ... logicalXor. */
struct params_binary {
	enum wnn_op op;
	uint32_t a, b, output;
	enum wnn_dtype type;     /* of a and b */
	enum wnn_dtype out_type; /* uint8 for comparisons and logical ops */
	struct params_bcast bc;  /* input 0 = a, 1 = b */
};
enum webnn_status params_binary(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct params_binary *p, struct wnn_diag *diag);

/* UNARY family: abs ... linear. alpha/beta hold the spec defaults when not given (elu alpha 1,
 * leakyRelu alpha 0.01, hardSigmoid 0.2/0.5, linear 1/0; 0 for ops without options), cast to
 * the input data type as the spec says. */
struct params_unary {
	enum wnn_op op;
	uint32_t input, output;
	enum wnn_dtype type, out_type;
	uint64_t count;
	double alpha, beta;
};
enum webnn_status params_unary(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			       size_t n_descs, struct params_unary *p, struct wnn_diag *diag);

/* clamp: bounds already cast to the input type as the spec's "casting" does (saturating for
 * integers, NaN -> 0). Absent bounds are -inf/+inf (min/max of the type for integers). The
 * integer forms are exact for int64/uint64 (doubles lose bits above 2^53). */
struct params_clamp {
	uint32_t input, output;
	enum wnn_dtype type;
	uint64_t count;
	double min, max;
	int64_t min_i, max_i;   /* signed integer types */
	uint64_t min_u, max_u;  /* unsigned integer types */
};
enum webnn_status params_clamp(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			       size_t n_descs, struct params_clamp *p, struct wnn_diag *diag);

/* ---- convolution and pooling. Spatial tensors are indexed (n, c, y, x) through the strides
 * below, whatever the layout: offset = n*s[0] + c*s[1] + y*s[2] + x*s[3]. */

enum params_filter_layout {
	PARAMS_FILTER_OIHW = 0, /* values equal Webnn__Ipc__Conv2dFilterLayout */
	PARAMS_FILTER_HWIO = 1,
	PARAMS_FILTER_OHWI = 2,
	PARAMS_FILTER_IHWO = 3,
};

struct params_conv2d {
	uint32_t input, filter, bias, output; /* bias: PARAMS_NONE when absent */
	bool has_bias;
	enum wnn_dtype type;
	bool nhwc;                           /* input/output layout */
	enum params_filter_layout filter_layout;
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
enum webnn_status params_conv2d(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct params_conv2d *p, struct wnn_diag *diag);

enum params_pool_kind { PARAMS_POOL_AVG, PARAMS_POOL_L2, PARAMS_POOL_MAX };

/* Window positions outside the input (padding, or past the end with ceil rounding) are skipped:
 * max ignores them, l2 sums only real elements, and average divides by the number of real
 * elements in the window (padding is excluded from the average). A window holding no input
 * element at all produces 0 (WPT expects this for maxPool2d with ceil rounding). */
struct params_pool2d {
	enum params_pool_kind kind;
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
enum webnn_status params_pool2d(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct params_pool2d *p, struct wnn_diag *diag);

/* ---- matrix products */

/* gemm: out[m][n] = alpha * sum_k A(m,k) B(k,n) + beta * C(m,n). A(m,k) lives at
 * m*a_stride_m + k*a_stride_k (transposes folded in), likewise B and C (C strides 0 where it
 * broadcasts; c absent means no C term). alpha/beta cast to the input type. */
struct params_gemm {
	uint32_t a, b, c, output; /* c: PARAMS_NONE when absent */
	bool has_c;
	enum wnn_dtype type;
	uint32_t m, n, k;
	double alpha, beta;
	bool a_transpose, b_transpose;
	uint64_t a_stride_m, a_stride_k;
	uint64_t b_stride_k, b_stride_n;
	uint64_t c_stride_m, c_stride_n;
};
enum webnn_status params_gemm(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, struct params_gemm *p, struct wnn_diag *diag);

/* matmul: both ranks >= 2 (the spec rejects rank 1); batch dims broadcast bidirectionally to the
 * output batch shape. Matrix b of output batch index i starts at
 * params_offset(batch_rank, batch_dims, b_batch_strides, i); the matrices themselves are dense
 * row-major (a: M x K, b: K x N, output: M x N, output batch i at i*M*N). */
struct params_matmul {
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
};
enum webnn_status params_matmul(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct params_matmul *p, struct wnn_diag *diag);

/* ---- data movement */

/* transpose: output dim i = input dim perm[i]; in_strides[i] is the input element stride of
 * output axis i, so out element j reads input params_offset(rank, out_dims, in_strides, j). */
struct params_transpose {
	uint32_t input, output;
	enum wnn_dtype type;
	uint32_t rank;
	uint32_t perm[WNN_MAX_RANK];           /* default: reversed axes */
	uint32_t out_dims[WNN_MAX_RANK];
	uint64_t in_strides[WNN_MAX_RANK];
	uint64_t count;
};
enum webnn_status params_transpose(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct params_transpose *p,
				   struct wnn_diag *diag);

/* concat: every input viewed as [outer, axis size, inner]; input i fills output axis range
 * [offset_i, offset_i + size_i) where offsets accumulate in input order. inputs points into the
 * Operation message (valid as long as it is). */
struct params_concat {
	const uint32_t *inputs;
	size_t n_inputs;
	uint32_t output;
	enum wnn_dtype type;
	uint32_t axis;
	uint64_t outer;     /* product of dims before axis */
	uint64_t inner;     /* product of dims after axis */
	uint32_t out_axis;  /* output size along axis */
};
enum webnn_status params_concat(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct params_concat *p, struct wnn_diag *diag);
/* Size of input i along the axis. */
uint32_t params_concat_size(const struct params_concat *p, const struct wnn_desc *descs,
			    size_t i);

/* reshape: a byte copy (same data type and element count). */
struct params_reshape {
	uint32_t input, output;
	enum wnn_dtype type;
	uint64_t count;
	uint64_t bytes;
};
enum webnn_status params_reshape(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct params_reshape *p, struct wnn_diag *diag);

/* ---- normalisation */

/* softmax over one axis: the input viewed as [outer, axis_size, inner]. */
struct params_softmax {
	uint32_t input, output;
	enum wnn_dtype type;
	uint32_t axis;
	uint64_t outer, axis_size, inner;
};
enum webnn_status params_softmax(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				 size_t n_descs, struct params_softmax *p, struct wnn_diag *diag);

/* batchNormalization: out = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c] with the
 * input viewed as [outer, channels, inner] (channel c of element at stride `inner`). epsilon is
 * cast to the input type. */
struct params_batchnorm {
	uint32_t input, mean, variance, scale, bias, output; /* scale/bias: PARAMS_NONE if absent */
	bool has_scale, has_bias;
	enum wnn_dtype type;
	uint32_t axis;
	double epsilon;
	uint64_t outer, channels, inner;
};
enum webnn_status params_batchnorm(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				   size_t n_descs, struct params_batchnorm *p,
				   struct wnn_diag *diag);

/* The value of x after the spec's "casting" to float type t (float32 or float16 rounding);
 * other types return x unchanged. */
double params_cast_float(double x, enum wnn_dtype t);

#endif
