/* com.microsoft's quantized-weight operators (MatMulNBits, GatherBlockQuantized) as WebNN's block-wise dequantizeLinear feeding matmul or gather. */
#include "importers/onnx/onnx_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A constant of shape dims whose every element is v (int4/uint4 packed two per byte). */
static struct webnn_operand *filled(struct ox_node *n, enum webnn_data_type t, uint32_t rank,
				    const uint32_t *dims, uint8_t v)
{
	size_t bytes = ox_bytes(t, rank, dims);
	uint8_t *p = malloc(bytes ? bytes : 1);
	if (!p) {
		ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		return NULL;
	}
	bool packed = t == WEBNN_INT4 || t == WEBNN_UINT4;
	memset(p, packed ? (v & 15) | (v & 15) << 4 : v, bytes);
	size_t count = ox_elems(rank, dims);
	if (packed && (count & 1))
		p[bytes - 1] &= 15; /* the unused high nibble stays 0 */
	struct webnn_operand *o = ox_const(n, t, rank, dims, p);
	free(p);
	return o;
}

/* rows x cols 4-bit values stored row by row, each row padded to whole bytes (ORT's layout of
 * packed zero points), as a constant of shape dims with the values contiguous. */
static struct webnn_operand *repacked_nibbles(struct ox_node *n, enum webnn_data_type t,
					      const uint8_t *src, size_t rows, size_t cols,
					      uint32_t rank, const uint32_t *dims)
{
	size_t row_bytes = (cols + 1) / 2, count = rows * cols;
	uint8_t *p = calloc((count + 1) / 2 + 1, 1);
	if (!p) {
		ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		return NULL;
	}
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++) {
			unsigned v = (src[r * row_bytes + c / 2] >> ((c & 1) * 4)) & 15;
			size_t i = r * cols + c;
			p[i / 2] |= (uint8_t)(v << ((i & 1) * 4));
		}
	struct webnn_operand *o = ox_const(n, t, rank, dims, p);
	free(p);
	return o;
}

/* A node input that must be known when the model loads (an initializer or a constant). */
static int need_host(struct ox_node *n, size_t i, const char *role, const char *why)
{
	if (!ox_has_in(n, i))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "input %zu (%s) is missing", i, role);
	if (!n->in[i]->host)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "%s (\"%s\") is computed at run time: "
			       "it must be an initializer (%s)", role, n->in[i]->name, why);
	return 0;
}

static int64_t need_attr(struct ox_node *n, const char *name)
{
	if (!ox_attr(n, name)) {
		ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "attribute %s is missing", name);
		return -1;
	}
	return ox_attr_i(n, name, 0);
}

/* ---------------------------------------------------------------- MatMulNBits */

/* Y = A x dequantize(B)^T (+ bias). B is uint8 [N, n_blocks, blob_size]: for each output
 * column, K values in blocks of block_size along K, bits wide, packed low bits first (the
 * last block padded up to block_size). scales [N * n_blocks] (or [N, n_blocks]); zero points
 * packed like B, row by row ([N * ceil(n_blocks * bits / 8)] uint8), or unpacked in A's type;
 * without them 2^(bits - 1). The weight becomes a uint4/uint8 constant [N, n_blocks,
 * block_size] dequantized block-wise by WebNN, as onnxruntime's WebNN provider lowers it. */
static int op_matmul_nbits(struct ox_node *n)
{
	struct webnn_builder *b = n->M->b;
	int64_t K = need_attr(n, "K"), N = K < 0 ? -1 : need_attr(n, "N");
	if (K < 0 || N < 0)
		return -1;
	int64_t bits = ox_attr_i(n, "bits", 4), bs = ox_attr_i(n, "block_size", 0);
	if (!ox_attr(n, "block_size"))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "attribute block_size is missing");
	if (bits != 4 && bits != 8)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "bits %lld (4 and 8 are mapped: "
			       "WebNN's quantized types are 4 and 8 bits wide)", (long long)bits);
	if (K < 1 || N < 1 || K > UINT32_MAX || N > UINT32_MAX)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "K %lld and N %lld must be positive",
			       (long long)K, (long long)N);
	if (bs < 2 || bs > K * 2 || (bs * bits) % 8)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "block_size %lld: a block must fill whole "
			       "bytes of %lld-bit values and be at least 2 (K %lld)", (long long)bs,
			       (long long)bits, (long long)K);
	uint32_t nb = (uint32_t)((K + bs - 1) / bs), blob = (uint32_t)(bs * bits / 8);
	struct webnn_operand *a, *w, *s, *z = NULL, *y;
	OX_IN(n, 0, a);
	struct ox_val *av = n->in[0];
	if (av->rank < 1 || av->dims[av->rank - 1] != K)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "A's last dimension is %u, attribute K "
			       "is %lld", av->rank ? av->dims[av->rank - 1] : 0, (long long)K);
	if (!ox_has_in(n, 1) || !ox_has_in(n, 2))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "inputs B and scales are required");
	struct ox_val *bv = n->in[1], *sv = n->in[2];
	if (bv->type != WEBNN_UINT8)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "B is %s, expected uint8",
			       ox_type_name(bv->onnx_type));
	if (bv->rank != 3 || bv->dims[0] != N || bv->dims[1] != nb || bv->dims[2] != blob)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "B has shape rank %u [%u, %u, %u], "
			       "expected [N %lld, ceil(K / block_size) %u, block_size * bits / 8 %u]",
			       bv->rank, bv->rank > 0 ? bv->dims[0] : 0,
			       bv->rank > 1 ? bv->dims[1] : 0, bv->rank > 2 ? bv->dims[2] : 0,
			       (long long)N, nb, blob);
	uint32_t qd[3] = { (uint32_t)N, nb, (uint32_t)bs }, sd[3] = { (uint32_t)N, nb, 1 };
	enum webnn_data_type qt = bits == 4 ? WEBNN_UINT4 : WEBNN_UINT8;
	if (bits == 4) {
		/* WebNN cannot reinterpret bytes as uint4 at run time: B's bytes are taken as
		 * the uint4 constant they already are (two per byte, low nibble first) */
		if (need_host(n, 1, "B", "its bytes become a uint4 constant"))
			return -1;
		if (!(w = ox_const(n, qt, 3, qd, bv->host)))
			return -1;
	} else {
		struct webnn_operand *bo;
		OX_IN(n, 1, bo);
		if (!(w = ox_reshape(n, bo, 3, qd)))
			return -1;
	}
	if (sv->type != av->type)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "scales are %s, A is %s (they must "
			       "match)", ox_type_name(sv->onnx_type), ox_type_name(av->onnx_type));
	if (ox_elems(sv->rank, sv->dims) != (size_t)N * nb)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "scales hold %zu values, expected N * "
			       "ceil(K / block_size) = %zu", ox_elems(sv->rank, sv->dims),
			       (size_t)N * nb);
	OX_IN(n, 2, s);
	if (!(s = ox_reshape(n, s, 3, sd)))
		return -1;
	struct webnn_operand *zs = NULL; /* float zero points times scales, subtracted after */
	if (ox_has_in(n, 3)) {
		struct ox_val *zv = n->in[3];
		size_t cnt = ox_elems(zv->rank, zv->dims);
		if (zv->type == av->type) {
			struct webnn_operand *zf;
			if (cnt != (size_t)N * nb)
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "zero_points (%s) hold %zu "
					       "values, expected N * ceil(K / block_size) = %zu",
					       ox_type_name(zv->onnx_type), cnt, (size_t)N * nb);
			OX_IN(n, 3, zf);
			if (!(zf = ox_reshape(n, zf, 3, sd)))
				return -1;
			OX_B(n, "mul", webnn_builder_mul(b, zf, s, &zs));
			if (!(z = filled(n, qt, 3, sd, 0)))
				return -1;
		} else if (zv->type == WEBNN_UINT8) {
			size_t row = ((size_t)nb * (size_t)bits + 7) / 8;
			if (cnt != (size_t)N * row)
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "zero_points (uint8) hold %zu "
					       "bytes, expected N * ceil(n_blocks * bits / 8) = %zu",
					       cnt, (size_t)N * row);
			if (bits == 4) {
				if (need_host(n, 3, "zero_points", "they become a uint4 constant"))
					return -1;
				if (!(z = repacked_nibbles(n, qt, zv->host, (size_t)N, nb, 3, sd)))
					return -1;
			} else {
				OX_IN(n, 3, z);
				if (!(z = ox_reshape(n, z, 3, sd)))
					return -1;
			}
		} else {
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "zero_points are %s (uint8 or A's "
				       "type %s)", ox_type_name(zv->onnx_type),
				       ox_type_name(av->onnx_type));
		}
	} else if (!(z = filled(n, qt, 3, sd, (uint8_t)(1u << (bits - 1))))) {
		return -1;
	}
	if (ox_has_in(n, 4)) {
		/* g_idx (deprecated) maps each k to its block; only the block-by-position map
		 * is a block-wise quantization WebNN can express */
		int64_t *g;
		size_t gc;
		if (need_host(n, 4, "g_idx", "a reordering of K is refused unless it is the "
			      "identity") ||
		    ox_host_i64(n, n->in[4], "g_idx", &g, &gc))
			return -1;
		if (gc != (size_t)K)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "g_idx holds %zu values, K is %lld",
				       gc, (long long)K);
		for (size_t k = 0; k < gc; k++)
			if (g[k] != (int64_t)(k / (size_t)bs))
				return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "g_idx[%zu] is %lld, not "
					       "k / block_size: blocks that are not runs of K cannot "
					       "be expressed as WebNN's block-wise dequantization", k,
					       (long long)g[k]);
	}
	OX_B(n, "dequantizeLinear", webnn_builder_dequantize_linear(b, w, s, z, &w));
	if (zs)
		OX_B(n, "sub", webnn_builder_sub(b, w, zs, &w));
	uint32_t wd[2] = { (uint32_t)N, nb * (uint32_t)bs };
	if (!(w = ox_reshape(n, w, 2, wd)))
		return -1;
	if (wd[1] != K) { /* the last block's padding */
		uint32_t st[2] = { 0, 0 }, sz[2] = { (uint32_t)N, (uint32_t)K };
		struct webnn_slice_options so = WEBNN_SLICE_OPTIONS_INIT;
		OX_B(n, "slice", webnn_builder_slice(b, w, st, 2, sz, 2, &so, &w));
	}
	OX_B(n, "transpose", webnn_builder_transpose(b, w, NULL, 2, &w));
	OX_B(n, "matmul", webnn_builder_matmul(b, a, w, &y));
	if (ox_has_in(n, 5)) {
		struct webnn_operand *bias;
		OX_IN(n, 5, bias);
		OX_B(n, "add", webnn_builder_add(b, y, bias, &y));
	}
	return ox_set(n, 0, y);
}

/* ---------------------------------------------------------------- GatherBlockQuantized */

/* Gather of a block-wise quantized tensor: data (int4, uint4, or uint8: with bits 4 two values
 * per byte along the last axis, the quantized one), scales of data's rank with
 * ceil(dim / block_size) along quantize_axis, zero points like data (default 0 for int4/uint4,
 * 2^(bits - 1) for uint8). Dequantized block-wise, then gathered along gather_axis. */
static int op_gather_block_quantized(struct ox_node *n)
{
	struct webnn_builder *b = n->M->b;
	struct webnn_operand *x, *idx, *s, *z, *y;
	if (!ox_has_in(n, 0) || !ox_has_in(n, 1) || !ox_has_in(n, 2))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "inputs data, indices and scales are "
			       "required");
	struct ox_val *dv = n->in[0], *sv = n->in[2];
	int64_t bits = ox_attr_i(n, "bits", 4), bs = ox_attr_i(n, "block_size", 128);
	if (bits != 4 && bits != 8)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "bits %lld (4 and 8 are mapped)",
			       (long long)bits);
	uint32_t rank = dv->rank, qaxis, gaxis;
	if (rank < 1)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "data is a scalar");
	if (ox_axis(n, ox_attr_i(n, "quantize_axis", 1), rank, &qaxis) ||
	    ox_axis(n, ox_attr_i(n, "gather_axis", 0), rank, &gaxis))
		return -1;
	bool packed = dv->type == WEBNN_UINT8 && bits == 4;
	if (dv->type != WEBNN_UINT8 && dv->type != WEBNN_INT4 && dv->type != WEBNN_UINT4)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "data is %s (int4, uint4 or uint8)",
			       ox_type_name(dv->onnx_type));
	if (dv->type != WEBNN_UINT8 && bits != 4)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "data is %s but bits is %lld",
			       ox_type_name(dv->onnx_type), (long long)bits);
	if (packed && qaxis != rank - 1)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "uint8 data with bits 4 packs the last "
			       "axis: quantize_axis must be %u, it is %u", rank - 1, qaxis);
	uint32_t ld[WEBNN_MAX_RANK];
	memcpy(ld, dv->dims, sizeof(ld[0]) * rank);
	if (packed)
		ld[rank - 1] *= 2;
	if (bs < 1 || ld[qaxis] % (uint64_t)bs)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "block_size %lld does not divide "
			       "data's dimension %u along quantize_axis %u (WebNN's block-wise "
			       "scales repeat over whole blocks only)", (long long)bs, ld[qaxis],
			       qaxis);
	uint32_t nd[WEBNN_MAX_RANK];
	memcpy(nd, ld, sizeof(nd[0]) * rank);
	nd[qaxis] = ld[qaxis] / (uint32_t)bs;
	bool shape_ok = sv->rank == rank;
	for (uint32_t i = 0; shape_ok && i < rank; i++)
		shape_ok = sv->dims[i] == nd[i];
	if (!shape_ok)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "scales must have data's shape with "
			       "dimension %u divided by block_size %lld (rank %u, dimension %u "
			       "%u)", qaxis, (long long)bs, sv->rank, qaxis,
			       qaxis < sv->rank ? sv->dims[qaxis] : 0);
	enum webnn_data_type qt = packed ? WEBNN_UINT4 : dv->type;
	if (packed) {
		if (need_host(n, 0, "data", "its bytes become a uint4 constant"))
			return -1;
		if (!(x = ox_const(n, qt, rank, ld, dv->host)))
			return -1;
	} else {
		OX_IN(n, 0, x);
	}
	OX_IN(n, 1, idx);
	OX_IN(n, 2, s);
	if (ox_has_in(n, 3)) {
		struct ox_val *zv = n->in[3];
		if (zv->type != dv->type)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "zero_points are %s, data is %s",
				       ox_type_name(zv->onnx_type), ox_type_name(dv->onnx_type));
		size_t rows = ox_elems(rank - 1, nd), cols = nd[rank - 1];
		if (packed) {
			if (need_host(n, 3, "zero_points", "they become a uint4 constant"))
				return -1;
			if (ox_elems(zv->rank, zv->dims) != rows * ((cols + 1) / 2))
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "zero_points hold %zu bytes, "
					       "expected %zu (scales' shape, two per byte)",
					       ox_elems(zv->rank, zv->dims), rows * ((cols + 1) / 2));
			if (!(z = repacked_nibbles(n, qt, zv->host, rows, cols, rank, nd)))
				return -1;
		} else {
			if (ox_elems(zv->rank, zv->dims) != rows * cols || zv->rank != rank)
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "zero_points must have "
					       "scales' shape");
			OX_IN(n, 3, z);
		}
	} else if (!(z = filled(n, qt, rank, nd,
				dv->type == WEBNN_UINT8 ? (uint8_t)(1u << (bits - 1)) : 0))) {
		return -1;
	}
	OX_B(n, "dequantizeLinear", webnn_builder_dequantize_linear(b, x, s, z, &x));
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	go.axis = gaxis;
	OX_B(n, "gather", webnn_builder_gather(b, x, idx, &go, &y));
	return ox_set(n, 0, y);
}

const struct ox_op ox_ops_quantized[] = {
	{ "MatMulNBits", 1, INT_MAX, op_matmul_nbits },
	{ "GatherBlockQuantized", 1, INT_MAX, op_gather_block_quantized },
	{ NULL, 0, 0, NULL },
};
