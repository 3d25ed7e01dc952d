/* Row-major shapes, strides and broadcasting shared by shape inference, resolution and backends. */
#include "proto/resolve.h"

#include <string.h>

void wnn_shape_strides(uint32_t rank, const uint32_t *dims, uint64_t *strides)
{
	uint64_t s = 1;
	for (uint32_t i = rank; i-- > 0;) {
		strides[i] = s;
		s *= dims[i];
	}
}

uint64_t wnn_shape_count(uint32_t rank, const uint32_t *dims)
{
	uint64_t n = 1;
	for (uint32_t i = 0; i < rank; i++)
		n *= dims[i];
	return n;
}

uint64_t wnn_shape_offset(uint32_t rank, const uint32_t *dims, const uint64_t *strides,
		       uint64_t index)
{
	uint64_t off = 0;
	for (uint32_t i = rank; i-- > 0;) {
		uint64_t c = index % dims[i];
		index /= dims[i];
		off += c * strides[i];
	}
	return off;
}

bool wnn_bcast_strides(const struct wnn_desc *in, uint32_t out_rank, const uint32_t *out_dims,
			  uint64_t *strides)
{
	uint64_t cs[WNN_MAX_RANK];
	if (in->rank > out_rank || out_rank > WNN_MAX_RANK)
		return false;
	wnn_shape_strides(in->rank, in->dims, cs);
	uint32_t lead = out_rank - in->rank;
	for (uint32_t i = 0; i < out_rank; i++) {
		if (i < lead) {
			strides[i] = 0;
			continue;
		}
		uint32_t d = in->dims[i - lead];
		if (d == out_dims[i])
			strides[i] = d == 1 ? 0 : cs[i - lead];
		else if (d == 1)
			strides[i] = 0;
		else
			return false;
	}
	return true;
}

double wnn_cast_float(double x, enum wnn_dtype t)
{
	if (t == WNN_F32)
		return (double)(float)x;
	if (t == WNN_F16)
		return (double)wnn_f16_to_f32(wnn_f32_to_f16((float)x));
	return x;
}

enum webnn_status wnn_broadcast(const struct wnn_desc *const *inputs, int n,
				   struct wnn_bcast *out, const char *what,
				   struct wnn_diag *diag)
{
	char b1[96], b2[96];
	memset(out, 0, sizeof(*out));
	if (n < 1 || n > WNN_MAX_BCAST_INPUTS)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: %d inputs to broadcast", what,
				    n);
	uint32_t rank = 0;
	for (int i = 0; i < n; i++) {
		if (inputs[i]->rank > WNN_MAX_RANK)
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: input %d rank %u exceeds %d", what, i,
					    inputs[i]->rank, WNN_MAX_RANK);
		if (inputs[i]->rank > rank)
			rank = inputs[i]->rank;
	}
	out->rank = rank;
	out->n_inputs = n;
	for (uint32_t d = 0; d < rank; d++)
		out->dims[d] = 1;
	for (int i = 0; i < n; i++) {
		const struct wnn_desc *in = inputs[i];
		uint32_t lead = rank - in->rank;
		for (uint32_t d = 0; d < in->rank; d++) {
			uint32_t v = in->dims[d], *o = &out->dims[d + lead];
			if (v == *o || v == 1)
				continue;
			if (*o != 1)
				return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
						    "%s: shapes %s and %s are not broadcastable",
						    what, wnn_desc_str(inputs[0], b1, sizeof(b1)),
						    wnn_desc_str(in, b2, sizeof(b2)));
			*o = v;
		}
	}
	out->count = wnn_shape_count(rank, out->dims);
	for (int i = 0; i < n; i++) {
		wnn_bcast_strides(inputs[i], rank, out->dims, out->strides[i]);
		out->same_shape[i] = inputs[i]->rank == rank &&
				     memcmp(inputs[i]->dims, out->dims, rank * sizeof(uint32_t)) == 0;
	}
	return WEBNN_STATUS_OK;
}
