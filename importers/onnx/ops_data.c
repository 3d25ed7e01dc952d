/* ONNX shape and data-movement operators, folded on the host when their inputs are known at load time. */
#include "importers/onnx/onnx_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- host helpers */

/* int4/uint4 host values (packed two per byte) are left to the builder's operators. */
static bool small_host(const struct ox_val *v)
{
	return v && v->host && ox_elems(v->rank, v->dims) <= OX_FOLD_MAX_ELEMS &&
	       v->type != WEBNN_INT4 && v->type != WEBNN_UINT4;
}

static size_t esize(const struct ox_val *v)
{
	return webnn_data_type_size(v->type);
}

/* Output i becomes a host copy of v's bytes under a new shape (the reshaping ops). */
static int host_reshaped(struct ox_node *n, size_t i, const struct ox_val *v, uint32_t rank,
			 const uint32_t *dims)
{
	size_t bytes = ox_elems(v->rank, v->dims) * esize(v);
	void *p = malloc(bytes ? bytes : 1);
	if (!p)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	memcpy(p, v->host, bytes);
	return ox_set_host(n, i, v->onnx_type, rank, dims, p);
}

static int set_shaped(struct ox_node *n, uint32_t rank, const uint32_t *dims)
{
	struct ox_val *v = n->in[0];
	if (small_host(v))
		return host_reshaped(n, 0, v, rank, dims);
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	if (!(o = ox_reshape(n, x, rank, dims)))
		return -1;
	ox_set(n, 0, o);
	n->out[0].onnx_type = v->onnx_type;
	return 0;
}

static int int64_list(struct ox_node *n, uint32_t rank, const uint32_t *dims, const int64_t *v,
		      size_t count)
{
	int64_t *p = malloc((count ? count : 1) * sizeof(*p));
	if (!p)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	if (count)
		memcpy(p, v, count * sizeof(*p));
	return ox_set_host(n, 0, OX_INT64, rank, dims, p);
}

/* An attribute (older opsets) or an input (newer) holding an int list: count or -1 absent. */
static long ints_of(struct ox_node *n, const char *attr, size_t input, const int64_t **out)
{
	if (ox_has_in(n, input)) {
		int64_t *v;
		size_t c;
		if (ox_host_i64(n, n->in[input], attr, &v, &c))
			return -2;
		*out = v;
		return (long)c;
	}
	return ox_attr_ints(n, attr, out);
}

/* ---------------------------------------------------------------- shape ops */

static int op_shape(struct ox_node *n)
{
	if (!n->in[0])
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no input");
	int64_t r = n->in[0]->rank, start = ox_attr_i(n, "start", 0), end = ox_attr_i(n, "end", r);
	if (start < 0)
		start += r;
	if (end < 0)
		end += r;
	start = start < 0 ? 0 : start > r ? r : start;
	end = end < 0 ? 0 : end > r ? r : end;
	int64_t d[WEBNN_MAX_RANK];
	uint32_t c = 0;
	for (int64_t i = start; i < end; i++)
		d[c++] = n->in[0]->dims[i];
	return int64_list(n, 1, &c, d, c);
}

static int op_size(struct ox_node *n)
{
	if (!n->in[0])
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no input");
	int64_t s = (int64_t)ox_elems(n->in[0]->rank, n->in[0]->dims);
	return int64_list(n, 0, NULL, &s, 1);
}

static int op_reshape(struct ox_node *n)
{
	const int64_t *sh;
	long c;
	if (n->opset < 5 || !ox_has_in(n, 1))
		c = ox_attr_ints(n, "shape", &sh);
	else
		c = ints_of(n, "shape", 1, &sh);
	if (c == -2)
		return -1;
	if (c < 0 || c > WEBNN_MAX_RANK)
		return ox_fail(n, c < 0 ? WEBNN_STATUS_TYPE_ERROR : WEBNN_STATUS_NOT_SUPPORTED,
			       "shape has %ld values", c);
	struct ox_val *x = n->in[0];
	bool allowzero = ox_attr_i(n, "allowzero", 0) != 0;
	uint32_t dims[WEBNN_MAX_RANK];
	size_t total = ox_elems(x->rank, x->dims), known = 1;
	int infer = -1;
	for (long i = 0; i < c; i++) {
		if (sh[i] == -1) {
			if (infer >= 0)
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "shape has two -1");
			infer = (int)i;
			continue;
		}
		if (sh[i] == 0 && !allowzero) {
			if ((uint32_t)i >= x->rank)
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
					       "shape[%ld] is 0 past the input's rank", i);
			dims[i] = x->dims[i];
		} else if (sh[i] < 0 || sh[i] > UINT32_MAX) {
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "shape[%ld] is %lld", i,
				       (long long)sh[i]);
		} else {
			dims[i] = (uint32_t)sh[i];
		}
		known *= dims[i];
	}
	if (infer >= 0) {
		if (!known || total % known)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				       "cannot infer -1: %zu elements into blocks of %zu", total, known);
		dims[infer] = (uint32_t)(total / known);
		known *= dims[infer];
	}
	if (known != total)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "%zu elements cannot take a shape of %zu",
			       total, known);
	return set_shaped(n, (uint32_t)c, dims);
}

static int op_flatten(struct ox_node *n)
{
	struct ox_val *x = n->in[0];
	if (!x)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no input");
	int64_t axis = ox_attr_i(n, "axis", 1);
	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis > x->rank)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "axis out of range");
	uint32_t d[2] = { (uint32_t)ox_elems((uint32_t)axis, x->dims),
			  (uint32_t)ox_elems(x->rank - (uint32_t)axis, x->dims + axis) };
	return set_shaped(n, 2, d);
}

/* Squeeze's and Unsqueeze's axes: an input from opset 13, an attribute before. The count, -1
 * where absent, -2 after an error (no input, or axes computed at run time). */
static long squeeze_axes(struct ox_node *n, const int64_t **axes)
{
	if (!n->in[0]) {
		ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no input");
		return -2;
	}
	return n->opset >= 13 ? ints_of(n, "axes", 1, axes) : ox_attr_ints(n, "axes", axes);
}

static int op_squeeze(struct ox_node *n)
{
	struct ox_val *x = n->in[0];
	const int64_t *axes;
	long c = squeeze_axes(n, &axes);
	if (c == -2)
		return -1;
	bool drop[WEBNN_MAX_RANK] = { false };
	if (c < 0) {
		for (uint32_t i = 0; i < x->rank; i++)
			drop[i] = x->dims[i] == 1;
	} else {
		for (long i = 0; i < c; i++) {
			uint32_t a;
			if (ox_axis(n, axes[i], x->rank, &a))
				return -1;
			if (x->dims[a] != 1)
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
					       "axis %u has size %u, not 1", a, x->dims[a]);
			drop[a] = true;
		}
	}
	uint32_t d[WEBNN_MAX_RANK], r = 0;
	for (uint32_t i = 0; i < x->rank; i++)
		if (!drop[i])
			d[r++] = x->dims[i];
	return set_shaped(n, r, d);
}

static int op_unsqueeze(struct ox_node *n)
{
	struct ox_val *x = n->in[0];
	const int64_t *axes;
	long c = squeeze_axes(n, &axes);
	if (c == -2)
		return -1;
	if (c < 0)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "axes are missing");
	uint32_t r = x->rank + (uint32_t)c;
	if (r > WEBNN_MAX_RANK)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "rank %u is more than WebNN's %d", r,
			       WEBNN_MAX_RANK);
	bool add[WEBNN_MAX_RANK] = { false };
	for (long i = 0; i < c; i++) {
		uint32_t a;
		if (ox_axis(n, axes[i], r, &a))
			return -1;
		add[a] = true;
	}
	uint32_t d[WEBNN_MAX_RANK];
	for (uint32_t i = 0, k = 0; i < r; i++)
		d[i] = add[i] ? 1 : x->dims[k++];
	return set_shaped(n, r, d);
}

static int op_transpose(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	uint32_t r = n->in[0]->rank, perm[WEBNN_MAX_RANK];
	const int64_t *p;
	long c = ox_attr_ints(n, "perm", &p);
	if (c >= 0 && (uint32_t)c != r)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "perm has %ld values for rank %u", c, r);
	for (uint32_t i = 0; i < r; i++)
		perm[i] = c >= 0 ? (uint32_t)p[i] : r - 1 - i;
	OX_B(n, "transpose", webnn_builder_transpose(n->M->b, x, perm, r, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = n->in[0]->onnx_type;
	return 0;
}

static int op_concat(struct ox_node *n)
{
	if (!n->n_in || !n->in[0])
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no inputs");
	uint32_t r = n->in[0]->rank, axis;
	if (ox_axis(n, ox_attr_i(n, "axis", n->opset < 4 ? 1 : 0), r, &axis))
		return -1;
	bool host = true;
	size_t k = 0;
	struct ox_val *ins[OX_MAX_IO];
	for (size_t i = 0; i < n->n_in; i++) {
		if (!n->in[i])
			continue;
		/* empty inputs (a zero-sized dimension) add nothing */
		if (ox_elems(n->in[i]->rank, n->in[i]->dims) == 0)
			continue;
		host &= small_host(n->in[i]);
		ins[k++] = n->in[i];
	}
	if (!k)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "every input is empty");
	uint32_t d[WEBNN_MAX_RANK];
	memcpy(d, ins[0]->dims, sizeof(d[0]) * r);
	d[axis] = 0;
	for (size_t i = 0; i < k; i++)
		d[axis] += ins[i]->dims[axis];
	if (host) {
		size_t es = esize(ins[0]), outer = ox_elems(axis, d), inner = ox_elems(r - axis - 1, d + axis + 1);
		unsigned char *p = malloc(ox_elems(r, d) * es + 1), *w = p;
		if (!p)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		for (size_t o = 0; o < outer; o++)
			for (size_t i = 0; i < k; i++) {
				size_t blk = ins[i]->dims[axis] * inner * es;
				memcpy(w, (unsigned char *)ins[i]->host + o * blk, blk);
				w += blk;
			}
		return ox_set_host(n, 0, ins[0]->onnx_type, r, d, p);
	}
	struct webnn_operand *ops[OX_MAX_IO], *o;
	for (size_t i = 0; i < k; i++)
		if (!(ops[i] = ox_operand(n, ins[i])))
			return -1;
	if (k == 1)
		OX_B(n, "identity", webnn_builder_identity(n->M->b, ops[0], &o));
	else
		OX_B(n, "concat", webnn_builder_concat(n->M->b, ops, k, axis, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = ins[0]->onnx_type;
	return 0;
}

static int op_split(struct ox_node *n)
{
	struct webnn_operand *x;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	uint32_t axis;
	if (ox_axis(n, ox_attr_i(n, "axis", 0), v->rank, &axis))
		return -1;
	const int64_t *sp;
	long c = n->opset >= 13 ? ints_of(n, "split", 1, &sp) : ox_attr_ints(n, "split", &sp);
	if (c == -2)
		return -1;
	uint32_t sizes[OX_MAX_IO];
	size_t parts = n->n_out;
	if (c >= 0) {
		if ((size_t)c != parts)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "split has %ld sizes for %zu outputs",
				       c, parts);
		for (long i = 0; i < c; i++) {
			if (sp[i] <= 0)
				return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
					       "split size %lld (WebNN has no empty tensors)",
					       (long long)sp[i]);
			sizes[i] = (uint32_t)sp[i];
		}
	} else {
		uint32_t d = v->dims[axis], each = (uint32_t)((d + parts - 1) / parts);
		for (size_t i = 0; i < parts; i++) {
			uint32_t left = d > each * i ? d - each * (uint32_t)i : 0;
			sizes[i] = left < each ? left : each;
			if (!sizes[i])
				return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
					       "an empty part (WebNN has no empty tensors)");
		}
	}
	struct webnn_operand *outs[OX_MAX_IO];
	size_t got;
	struct webnn_split_options so = WEBNN_SPLIT_OPTIONS_INIT;
	so.axis = axis;
	if (parts == 1) {
		OX_B(n, "identity", webnn_builder_identity(n->M->b, x, &outs[0]));
		got = 1;
	} else {
		OX_B(n, "split", webnn_builder_split_sizes(n->M->b, x, sizes, (uint32_t)parts, &so,
							   outs, OX_MAX_IO, &got));
	}
	for (size_t i = 0; i < got; i++) {
		ox_set(n, i, outs[i]);
		n->out[i].onnx_type = v->onnx_type;
	}
	return 0;
}

/* Slice: steps may be negative (a reverse first); bounds are clamped as ONNX says. */
static int op_slice(struct ox_node *n)
{
	struct ox_val *v = n->in[0];
	if (!v)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no input");
	const int64_t *st, *en, *ax = NULL, *sp = NULL;
	long cs, ce, ca = -1, cp = -1;
	if (n->opset < 10) {
		cs = ox_attr_ints(n, "starts", &st);
		ce = ox_attr_ints(n, "ends", &en);
		ca = ox_attr_ints(n, "axes", &ax);
	} else {
		if ((cs = ints_of(n, "starts", 1, &st)) == -2 || (ce = ints_of(n, "ends", 2, &en)) == -2)
			return -1;
		if (ox_has_in(n, 3) && (ca = ints_of(n, "axes", 3, &ax)) == -2)
			return -1;
		if (ox_has_in(n, 4) && (cp = ints_of(n, "steps", 4, &sp)) == -2)
			return -1;
	}
	if (cs < 0 || ce != cs || (ca >= 0 && ca != cs) || (cp >= 0 && cp != cs))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "starts, ends, axes and steps differ in length");
	uint32_t r = v->rank, start[WEBNN_MAX_RANK], size[WEBNN_MAX_RANK], stride[WEBNN_MAX_RANK],
		 outd[WEBNN_MAX_RANK], rev[WEBNN_MAX_RANK], n_rev = 0;
	for (uint32_t i = 0; i < r; i++) {
		start[i] = 0;
		size[i] = outd[i] = v->dims[i];
		stride[i] = 1;
	}
	for (long i = 0; i < cs; i++) {
		uint32_t a;
		if (ox_axis(n, ca >= 0 ? ax[i] : i, r, &a))
			return -1;
		int64_t d = v->dims[a], s = st[i], e = en[i], step = cp >= 0 ? sp[i] : 1;
		if (step == 0)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "step 0");
		if (s < 0)
			s += d;
		if (e < 0)
			e += d;
		int64_t count;
		if (step > 0) {
			s = s < 0 ? 0 : s > d ? d : s;
			e = e < 0 ? 0 : e > d ? d : e;
			count = e > s ? (e - s + step - 1) / step : 0;
		} else {
			s = s < 0 ? -1 : s > d - 1 ? d - 1 : s;
			e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
			count = s > e ? (s - e + (-step) - 1) / (-step) : 0;
			/* index s of the input is index d-1-s of the reversed input */
			s = d - 1 - s;
			step = -step;
			rev[n_rev++] = a;
		}
		if (count == 0 && !small_host(v))
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "the slice of axis %u is empty (WebNN has no empty tensors)", a);
		start[a] = (uint32_t)s;
		stride[a] = (uint32_t)step;
		size[a] = count ? (uint32_t)((count - 1) * step + 1) : 0;
		outd[a] = (uint32_t)count;
	}
	if (small_host(v) && !n_rev && r) {
		size_t es = esize(v), total = ox_elems(r, outd);
		unsigned char *p = malloc(total * es + 1);
		if (!p)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		uint32_t idx[WEBNN_MAX_RANK] = { 0 };
		for (size_t k = 0; k < total; k++) {
			size_t off = 0;
			for (uint32_t i = 0; i < r; i++)
				off = off * v->dims[i] + start[i] + idx[i] * stride[i];
			memcpy(p + k * es, (unsigned char *)v->host + off * es, es);
			for (int i = (int)r - 1; i >= 0; i--) {
				if (++idx[i] < outd[i])
					break;
				idx[i] = 0;
			}
		}
		return ox_set_host(n, 0, v->onnx_type, r, outd, p);
	}
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	if (n_rev) {
		struct webnn_reverse_options ro = WEBNN_REVERSE_OPTIONS_INIT;
		ro.axes = rev;
		ro.n_axes = n_rev;
		OX_B(n, "reverse", webnn_builder_reverse(n->M->b, x, &ro, &x));
	}
	struct webnn_slice_options so = WEBNN_SLICE_OPTIONS_INIT;
	so.strides = stride;
	so.n_strides = r;
	OX_B(n, "slice", webnn_builder_slice(n->M->b, x, start, r, size, r, &so, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = v->onnx_type;
	return 0;
}

/* Broadcast of two shapes (numpy rules); false when they do not broadcast. */
static bool broadcast(uint32_t ra, const uint32_t *a, uint32_t rb, const uint32_t *b,
		      uint32_t *r, uint32_t *out)
{
	*r = ra > rb ? ra : rb;
	for (uint32_t i = 0; i < *r; i++) {
		uint32_t x = i + ra >= *r ? a[i + ra - *r] : 1, y = i + rb >= *r ? b[i + rb - *r] : 1;
		if (x != y && x != 1 && y != 1)
			return false;
		out[i] = x == 1 ? y : x;
	}
	return true;
}

static int op_expand(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	const int64_t *sh;
	long c = ints_of(n, "shape", 1, &sh);
	if (c < 0)
		return c == -2 ? -1 : ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no shape");
	if (c > WEBNN_MAX_RANK)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "rank %ld", c);
	uint32_t want[WEBNN_MAX_RANK], d[WEBNN_MAX_RANK], r;
	for (long i = 0; i < c; i++) {
		if (sh[i] < 0 || sh[i] > UINT32_MAX)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "shape[%ld] is %lld", i,
				       (long long)sh[i]);
		want[i] = (uint32_t)sh[i];
	}
	if (!broadcast(n->in[0]->rank, n->in[0]->dims, (uint32_t)c, want, &r, d))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "shape does not broadcast");
	OX_B(n, "expand", webnn_builder_expand(n->M->b, x, d, r, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = n->in[0]->onnx_type;
	return 0;
}

static int op_tile(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	const int64_t *rp;
	long c = ints_of(n, "repeats", 1, &rp);
	if (c < 0)
		return c == -2 ? -1 : ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no repeats");
	if ((uint32_t)c != n->in[0]->rank)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "repeats has %ld values", c);
	uint32_t reps[WEBNN_MAX_RANK];
	for (long i = 0; i < c; i++) {
		if (rp[i] < 1)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "repeats %lld (WebNN has no empty tensors)", (long long)rp[i]);
		reps[i] = (uint32_t)rp[i];
	}
	OX_B(n, "tile", webnn_builder_tile(n->M->b, x, reps, (uint32_t)c, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = n->in[0]->onnx_type;
	return 0;
}

/* where(x < zero, x + dim, x) for indices counted from the end (dim a scalar, or a row that
 * broadcasts); s carries a failure of the caller's own building into the same "indices" error. */
static struct webnn_operand *wrap_negative(struct ox_node *n, enum webnn_status s,
					   struct webnn_operand *x, struct webnn_operand *zero,
					   struct webnn_operand *dim)
{
	struct webnn_operand *c, *a;
	if (s == WEBNN_STATUS_OK)
		s = webnn_builder_lesser(n->M->b, x, zero, &c);
	if (s == WEBNN_STATUS_OK)
		s = webnn_builder_add(n->M->b, x, dim, &a);
	if (s == WEBNN_STATUS_OK)
		s = webnn_builder_where(n->M->b, c, a, x, &x);
	if (s != WEBNN_STATUS_OK) {
		ox_builder_fail(n, s, "indices");
		return NULL;
	}
	return x;
}

/* Indices may be negative in ONNX: known ones are fixed here, others with a where(). */
static struct webnn_operand *norm_indices(struct ox_node *n, struct ox_val *iv, uint32_t dim)
{
	if (iv->host) {
		int64_t *v;
		size_t c;
		if (ox_host_i64(n, iv, "indices", &v, &c))
			return NULL;
		int32_t *p = ox_keep(n->M, malloc((c ? c : 1) * sizeof(*p)));
		if (!p) {
			ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
			return NULL;
		}
		for (size_t i = 0; i < c; i++) {
			int64_t k = v[i] < 0 ? v[i] + dim : v[i];
			if (k < 0 || k >= dim) {
				ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
					"index %lld is out of range for a dimension of %u",
					(long long)v[i], dim);
				return NULL;
			}
			p[i] = (int32_t)k;
		}
		return ox_const(n, WEBNN_INT32, iv->rank, iv->dims, p);
	}
	struct webnn_operand *x = ox_operand(n, iv), *z, *d;
	if (!x || !(z = ox_scalar(n, iv->type, 0)) || !(d = ox_scalar(n, iv->type, dim)))
		return NULL;
	return wrap_negative(n, WEBNN_STATUS_OK, x, z, d);
}

static int op_gather(struct ox_node *n)
{
	struct ox_val *v = n->in[0], *iv = n->in[1];
	if (!v || !iv)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "inputs missing");
	uint32_t axis;
	if (ox_axis(n, ox_attr_i(n, "axis", 0), v->rank, &axis))
		return -1;
	if (small_host(v) && small_host(iv) &&
	    ox_elems(iv->rank, iv->dims) * (ox_elems(v->rank, v->dims) / (v->dims[axis] ? v->dims[axis] : 1)) <=
		    OX_FOLD_MAX_ELEMS) {
		int64_t *idx;
		size_t ni;
		if (ox_host_i64(n, iv, "indices", &idx, &ni))
			return -1;
		uint32_t d[WEBNN_MAX_RANK], r = 0;
		if (v->rank + iv->rank - 1 > WEBNN_MAX_RANK)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "rank too large");
		for (uint32_t i = 0; i < axis; i++)
			d[r++] = v->dims[i];
		for (uint32_t i = 0; i < iv->rank; i++)
			d[r++] = iv->dims[i];
		for (uint32_t i = axis + 1; i < v->rank; i++)
			d[r++] = v->dims[i];
		size_t es = esize(v), outer = ox_elems(axis, v->dims),
		       inner = ox_elems(v->rank - axis - 1, v->dims + axis + 1) * es;
		unsigned char *p = malloc(outer * ni * inner + 1), *w = p;
		if (!p)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		for (size_t o = 0; o < outer; o++)
			for (size_t k = 0; k < ni; k++) {
				int64_t j = idx[k] < 0 ? idx[k] + v->dims[axis] : idx[k];
				if (j < 0 || j >= v->dims[axis]) {
					free(p);
					return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
						       "index %lld is out of range", (long long)idx[k]);
				}
				memcpy(w, (unsigned char *)v->host + (o * v->dims[axis] + (size_t)j) * inner,
				       inner);
				w += inner;
			}
		return ox_set_host(n, 0, v->onnx_type, r, d, p);
	}
	struct webnn_operand *x, *i, *o;
	OX_IN(n, 0, x);
	if (!(i = norm_indices(n, iv, v->dims[axis])))
		return -1;
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	go.axis = axis;
	OX_B(n, "gather", webnn_builder_gather(n->M->b, x, i, &go, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = v->onnx_type;
	return 0;
}

static int op_gather_elements(struct ox_node *n)
{
	struct webnn_operand *x, *i, *o;
	OX_IN(n, 0, x);
	if (!ox_has_in(n, 1))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no indices");
	uint32_t axis;
	if (ox_axis(n, ox_attr_i(n, "axis", 0), n->in[0]->rank, &axis))
		return -1;
	if (!(i = norm_indices(n, n->in[1], n->in[0]->dims[axis])))
		return -1;
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	go.axis = axis;
	OX_B(n, "gatherElements", webnn_builder_gather_elements(n->M->b, x, i, &go, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = n->in[0]->onnx_type;
	return 0;
}

/* GatherND/ScatterND indices may be negative in ONNX (from the end of the dimension each
 * column indexes, starting at first_dim of the data): made non-negative here. */
static struct webnn_operand *norm_nd_indices(struct ox_node *n, struct ox_val *iv,
					     const struct ox_val *data, uint32_t first_dim)
{
	uint32_t k = iv->rank ? iv->dims[iv->rank - 1] : 0;
	if (!iv->rank || k == 0 || first_dim + k > data->rank) {
		ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "indices of shape ending in %u for data of rank %u",
			k, data->rank);
		return NULL;
	}
	struct webnn_operand *x = ox_operand(n, iv), *z, *dims;
	if (!x)
		return NULL;
	int64_t *dv = ox_keep(n->M, malloc(k * sizeof(int64_t)));
	if (!dv) {
		ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		return NULL;
	}
	for (uint32_t j = 0; j < k; j++)
		dv[j] = data->dims[first_dim + j];
	if (!(z = ox_scalar(n, iv->type, 0)) || !(dims = ox_const(n, WEBNN_INT64, 1, &k, dv)))
		return NULL;
	enum webnn_status s = WEBNN_STATUS_OK;
	if (iv->type != WEBNN_INT64)
		s = webnn_builder_cast(n->M->b, dims, iv->type, &dims);
	return wrap_negative(n, s, x, z, dims);
}

static int op_gather_nd(struct ox_node *n)
{
	struct webnn_operand *x, *i, *o;
	OX_IN(n, 0, x);
	if (!ox_has_in(n, 1))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no indices");
	int64_t bd = ox_attr_i(n, "batch_dims", 0);
	struct ox_val *iv = n->in[1];
	if (bd < 0 || bd >= iv->rank || bd >= n->in[0]->rank)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "batch_dims %lld", (long long)bd);
	if (!(i = norm_nd_indices(n, iv, n->in[0], (uint32_t)bd)))
		return -1;
	if (bd) {
		/* batch dimensions become leading index columns: their own positions */
		uint32_t r = iv->rank, shp[WEBNN_MAX_RANK];
		memcpy(shp, iv->dims, r * sizeof(uint32_t));
		shp[r - 1] = 1;
		struct webnn_operand *cols[WEBNN_MAX_RANK + 1];
		for (int64_t j = 0; j < bd; j++) {
			uint32_t len = iv->dims[j], d1[WEBNN_MAX_RANK];
			int64_t *io = ox_keep(n->M, malloc(len * sizeof(int64_t) + 1));
			if (!io)
				return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
			for (uint32_t k = 0; k < len; k++)
				io[k] = k;
			for (uint32_t a = 0; a < r; a++)
				d1[a] = a == j ? len : 1;
			struct webnn_operand *c = ox_const(n, WEBNN_INT64, r, d1, io);
			if (!c)
				return -1;
			if (iv->type != WEBNN_INT64)
				OX_B(n, "cast", webnn_builder_cast(n->M->b, c, iv->type, &c));
			OX_B(n, "expand", webnn_builder_expand(n->M->b, c, shp, r, &cols[j]));
		}
		cols[bd] = i;
		OX_B(n, "concat", webnn_builder_concat(n->M->b, cols, (size_t)bd + 1, r - 1, &i));
	}
	OX_B(n, "gatherND", webnn_builder_gather_nd(n->M->b, x, i, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = n->in[0]->onnx_type;
	return 0;
}

static int op_scatter(struct ox_node *n)
{
	struct webnn_operand *x, *i, *u, *o;
	OX_IN(n, 0, x);
	OX_IN(n, 2, u);
	if (!ox_has_in(n, 1))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no indices");
	const char *red = ox_attr_s(n, "reduction", "none");
	if (strcmp(red, "none") != 0)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "reduction \"%s\" (WebNN scatters replace, they do not accumulate)",
			       red);
	bool nd = strcmp(n->node->op_type, "ScatterND") == 0;
	if (nd) {
		if (!(i = norm_nd_indices(n, n->in[1], n->in[0], 0)))
			return -1;
		OX_B(n, "scatterND", webnn_builder_scatter_nd(n->M->b, x, i, u, &o));
	} else {
		uint32_t axis;
		if (ox_axis(n, ox_attr_i(n, "axis", 0), n->in[0]->rank, &axis))
			return -1;
		if (!(i = norm_indices(n, n->in[1], n->in[0]->dims[axis])))
			return -1;
		struct webnn_scatter_options so = WEBNN_SCATTER_OPTIONS_INIT;
		so.axis = axis;
		OX_B(n, "scatterElements", webnn_builder_scatter_elements(n->M->b, x, i, u, &so, &o));
	}
	ox_set(n, 0, o);
	n->out[0].onnx_type = n->in[0]->onnx_type;
	return 0;
}

/* ---------------------------------------------------------------- cast and constants */

static int cast_to(struct ox_node *n, int to)
{
	struct ox_val *v = n->in[0];
	if (!v)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no input");
	enum webnn_data_type t;
	if (!ox_webnn_type(to, &t))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "cast to %s: WebNN has no such type",
			       ox_type_name(to));
	if (small_host(v) && (t != WEBNN_FLOAT16 && v->type != WEBNN_FLOAT16)) {
		size_t c = ox_elems(v->rank, v->dims);
		void *p = malloc(c * webnn_data_type_size(t) + 1);
		if (!p)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		double *dv;
		int64_t *iv;
		size_t k;
		if (ox_host_f64(n, v, "input", &dv, &k) || ox_host_i64(n, v, "input", &iv, &k)) {
			free(p);
			return -1;
		}
		bool fl = v->type == WEBNN_FLOAT32;
		for (size_t i = 0; i < c; i++) {
			double d = dv[i];
			int64_t q = fl ? ox_f2i(d) : iv[i];
			switch (t) {
			case WEBNN_FLOAT32: ((float *)p)[i] = fl ? (float)d : (float)iv[i]; break;
			case WEBNN_INT32: ((int32_t *)p)[i] = (int32_t)q; break;
			case WEBNN_UINT32: ((uint32_t *)p)[i] = (uint32_t)q; break;
			case WEBNN_INT64: ((int64_t *)p)[i] = q; break;
			case WEBNN_UINT64: ((uint64_t *)p)[i] = (uint64_t)q; break;
			case WEBNN_INT8: ((int8_t *)p)[i] = (int8_t)q; break;
			case WEBNN_UINT8: ((uint8_t *)p)[i] = to == OX_BOOL ? d != 0 : (uint8_t)q; break;
			default: break;
			}
		}
		return ox_set_host(n, 0, to, v->rank, v->dims, p);
	}
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	if (to == OX_BOOL && v->onnx_type != OX_BOOL) {
		struct webnn_operand *z = ox_scalar(n, v->type, 0);
		if (!z)
			return -1;
		OX_B(n, "notEqual", webnn_builder_not_equal(n->M->b, x, z, &o));
	} else if (t == v->type) {
		OX_B(n, "identity", webnn_builder_identity(n->M->b, x, &o));
	} else {
		if (ox_need_type(n, "cast", NULL, v->type))
			return -1;
		OX_B(n, "cast", webnn_builder_cast(n->M->b, x, t, &o));
	}
	ox_set(n, 0, o);
	n->out[0].onnx_type = to;
	return 0;
}

static int op_cast(struct ox_node *n)
{
	if (ox_attr(n, "saturate") && ox_attr_i(n, "saturate", 1) != 1)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "saturate 0 (float8 only)");
	return cast_to(n, (int)ox_attr_i(n, "to", 0));
}

static int op_cast_like(struct ox_node *n)
{
	if (!ox_has_in(n, 1))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no target_type input");
	return cast_to(n, n->in[1]->onnx_type);
}

static int host_tensor(struct ox_node *n, const Onnx__TensorProto *t)
{
	int ot;
	uint32_t r, d[WEBNN_MAX_RANK];
	void *p;
	size_t size;
	char msg[512];
	enum webnn_status s = WEBNN_STATUS_OK;
	if (ox_tensor_decode(t, n->M->base_dir, &ot, &r, d, &p, &size, msg, sizeof(msg), &s))
		return ox_fail(n, s, "%s", msg);
	return ox_set_host(n, 0, ot, r, d, p);
}

static int op_constant(struct ox_node *n)
{
	const Onnx__AttributeProto *a;
	if ((a = ox_attr(n, "value")) && a->t)
		return host_tensor(n, a->t);
	if ((a = ox_attr(n, "value_float")) && a->has_f) {
		float *p = malloc(sizeof(*p));
		if (!p)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		*p = a->f;
		return ox_set_host(n, 0, OX_FLOAT, 0, NULL, p);
	}
	if ((a = ox_attr(n, "value_int")) && a->has_i)
		return int64_list(n, 0, NULL, &a->i, 1);
	if ((a = ox_attr(n, "value_ints"))) {
		uint32_t c = (uint32_t)a->n_ints;
		return int64_list(n, 1, &c, a->ints, a->n_ints);
	}
	if ((a = ox_attr(n, "value_floats"))) {
		uint32_t c = (uint32_t)a->n_floats;
		float *p = malloc(c * sizeof(*p) + 1);
		if (!p)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		if (c)
			memcpy(p, a->floats, c * sizeof(*p));
		return ox_set_host(n, 0, OX_FLOAT, 1, &c, p);
	}
	if (ox_attr(n, "sparse_value"))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "sparse_value (no sparse tensors)");
	if (ox_attr(n, "value_string") || ox_attr(n, "value_strings"))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "string values (no string tensors)");
	return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no value attribute");
}

static int op_constant_of_shape(struct ox_node *n)
{
	int64_t *sh;
	size_t c;
	if (!ox_has_in(n, 0) || ox_host_i64(n, n->in[0], "shape", &sh, &c))
		return n->in[0] ? -1 : ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no shape");
	if (c > WEBNN_MAX_RANK)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "rank %zu", c);
	uint32_t d[WEBNN_MAX_RANK];
	size_t total = 1;
	for (size_t i = 0; i < c; i++) {
		if (sh[i] < 0 || sh[i] > (1 << 30))
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "shape[%zu] is %lld", i,
				       (long long)sh[i]);
		d[i] = (uint32_t)sh[i];
		total *= d[i];
	}
	if (!total)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "an empty tensor (WebNN has none)");
	if (total > ((size_t)1 << 28))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "%zu elements", total);
	int ot = OX_FLOAT;
	unsigned char val[8] = { 0 };
	const Onnx__AttributeProto *a = ox_attr(n, "value");
	if (a && a->t) {
		uint32_t r, dd[WEBNN_MAX_RANK];
		void *p;
		size_t size;
		char msg[512];
		enum webnn_status s = WEBNN_STATUS_OK;
		if (ox_tensor_decode(a->t, NULL, &ot, &r, dd, &p, &size, msg, sizeof(msg), &s))
			return ox_fail(n, s, "%s", msg);
		if (size > sizeof(val) || size == 0) {
			free(p);
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "value is not one element");
		}
		memcpy(val, p, size);
		free(p);
	}
	enum webnn_data_type t;
	ox_webnn_type(ot, &t);
	size_t es = webnn_data_type_size(t);
	if (total <= OX_FOLD_MAX_ELEMS) {
		unsigned char *p = malloc(total * es);
		if (!p)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		for (size_t i = 0; i < total; i++)
			memcpy(p + i * es, val, es);
		return ox_set_host(n, 0, ot, (uint32_t)c, d, p);
	}
	struct webnn_operand *s1 = ox_const(n, t, 0, NULL, val), *o;
	if (!s1)
		return -1;
	OX_B(n, "expand", webnn_builder_expand(n->M->b, s1, d, (uint32_t)c, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = ot;
	return 0;
}

static int op_range(struct ox_node *n)
{
	double *s, *l, *d;
	size_t c;
	for (int i = 0; i < 3; i++)
		if (!ox_has_in(n, (size_t)i))
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "input %d is missing", i);
	if (ox_host_f64(n, n->in[0], "start", &s, &c) || ox_host_f64(n, n->in[1], "limit", &l, &c) ||
	    ox_host_f64(n, n->in[2], "delta", &d, &c))
		return -1;
	if (d[0] == 0)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "delta 0");
	double cnt = ceil((l[0] - s[0]) / d[0]);
	if (isnan(cnt))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "start, limit and delta give no count");
	if (cnt <= 0)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "an empty range (WebNN has no empty tensors)");
	if (cnt > (1 << 24))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "%.0f elements", cnt);
	uint32_t k = (uint32_t)cnt;
	struct ox_val *v = n->in[0];
	void *p = malloc(k * esize(v));
	if (!p)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	int64_t *si, *di;
	if (ox_host_i64(n, n->in[0], "start", &si, &c) || ox_host_i64(n, n->in[2], "delta", &di, &c)) {
		free(p);
		return -1;
	}
	for (uint32_t i = 0; i < k; i++) {
		switch (v->type) {
		case WEBNN_FLOAT32: ((float *)p)[i] = (float)s[0] + (float)i * (float)d[0]; break;
		case WEBNN_INT32: ((int32_t *)p)[i] = (int32_t)(si[0] + (int64_t)i * di[0]); break;
		case WEBNN_INT64: ((int64_t *)p)[i] = si[0] + (int64_t)i * di[0]; break;
		default:
			free(p);
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a range of %s",
				       webnn_data_type_name(v->type));
		}
	}
	return ox_set_host(n, 0, v->onnx_type, 1, &k, p);
}

/* Pad's "wrap" (WebNN pads have no circular mode): per axis the input's last pb entries before
 * it and its first pe after it, whole copies of it first where a pad is longer than the axis,
 * concatenated. */
static int pad_wrap(struct ox_node *n, struct webnn_operand **x, const uint32_t *dims, uint32_t r,
		    const uint32_t *pb, const uint32_t *pe)
{
	uint32_t d[WEBNN_MAX_RANK];
	memcpy(d, dims, r * sizeof(d[0]));
	for (uint32_t a = 0; a < r; a++) {
		if (!pb[a] && !pe[a])
			continue;
		uint32_t dim = d[a];
		uint64_t copies = (uint64_t)pb[a] / dim + (uint64_t)pe[a] / dim + 3;
		if (copies > 1024)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "wrap padding of %u and %u repeats axis %u of size %u more than "
				       "1024 times", pb[a], pe[a], a, dim);
		struct webnn_operand **parts = malloc(copies * sizeof(*parts));
		if (!parts)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		uint32_t np = 0, st[WEBNN_MAX_RANK] = { 0 }, sz[WEBNN_MAX_RANK];
		memcpy(sz, d, r * sizeof(sz[0]));
		enum webnn_status s = WEBNN_STATUS_OK;
		if (pb[a] % dim) { /* the tail of a copy, then whole copies */
			st[a] = dim - pb[a] % dim;
			sz[a] = pb[a] % dim;
			s = webnn_builder_slice(n->M->b, *x, st, r, sz, r, NULL, &parts[np++]);
		}
		for (uint32_t k = 0; k < pb[a] / dim + 1 + pe[a] / dim; k++)
			parts[np++] = *x;
		if (s == WEBNN_STATUS_OK && pe[a] % dim) { /* the head of a copy */
			st[a] = 0;
			sz[a] = pe[a] % dim;
			s = webnn_builder_slice(n->M->b, *x, st, r, sz, r, NULL, &parts[np++]);
		}
		if (s == WEBNN_STATUS_OK)
			s = webnn_builder_concat(n->M->b, parts, np, a, x);
		free(parts);
		if (s != WEBNN_STATUS_OK)
			return ox_builder_fail(n, s, "wrap padding");
		d[a] = dim + pb[a] + pe[a];
	}
	return 0;
}

/* Pad: negative pads crop (a slice after padding the positive ones). */
static int op_pad(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	uint32_t r = v->rank;
	const int64_t *pads;
	long c = n->opset >= 11 ? ints_of(n, "pads", 1, &pads) : ox_attr_ints(n, "pads", &pads);
	if (c == -2)
		return -1;
	const int64_t *axes = NULL;
	long ca = -1;
	if (n->opset >= 18 && ox_has_in(n, 3) && (ca = ints_of(n, "axes", 3, &axes)) == -2)
		return -1;
	long na = ca >= 0 ? ca : r;
	if (c != 2 * na)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "pads has %ld values, expected %ld", c,
			       2 * na);
	int64_t beg[WEBNN_MAX_RANK] = { 0 }, end[WEBNN_MAX_RANK] = { 0 };
	for (long i = 0; i < na; i++) {
		uint32_t a;
		if (ox_axis(n, axes ? axes[i] : i, r, &a))
			return -1;
		beg[a] = pads[i];
		end[a] = pads[i + na];
	}
	const char *mode = ox_attr_s(n, "mode", "constant");
	struct webnn_pad_options po = WEBNN_PAD_OPTIONS_INIT;
	bool wrap = false;
	if (strcmp(mode, "constant") == 0)
		po.mode = WEBNN_PAD_CONSTANT;
	else if (strcmp(mode, "edge") == 0)
		po.mode = WEBNN_PAD_EDGE;
	else if (strcmp(mode, "reflect") == 0)
		po.mode = WEBNN_PAD_REFLECTION;
	else if (strcmp(mode, "wrap") == 0 && n->opset >= 19)
		wrap = true;
	else
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "mode \"%s\"", mode);
	if (n->opset < 11) {
		po.value = ox_attr_f(n, "value", 0);
	} else if (ox_has_in(n, 2)) {
		double *cv;
		size_t k;
		if (ox_host_f64(n, n->in[2], "constant_value", &cv, &k))
			return -1;
		if (k)
			po.value = cv[0];
		if (v->type == WEBNN_INT64 && k) {
			int64_t *iv;
			if (ox_host_i64(n, n->in[2], "constant_value", &iv, &k))
				return -1;
			po.value_number = WEBNN_NUMBER_I64(iv[0]);
		}
	}
	uint32_t pb[WEBNN_MAX_RANK], pe[WEBNN_MAX_RANK], st[WEBNN_MAX_RANK], sz[WEBNN_MAX_RANK];
	bool crop = false, pad = false;
	for (uint32_t i = 0; i < r; i++) {
		pb[i] = beg[i] > 0 ? (uint32_t)beg[i] : 0;
		pe[i] = end[i] > 0 ? (uint32_t)end[i] : 0;
		pad |= pb[i] || pe[i];
		int64_t full = (int64_t)v->dims[i] + pb[i] + pe[i];
		int64_t s = beg[i] < 0 ? -beg[i] : 0, e = end[i] < 0 ? -end[i] : 0;
		if (s + e >= full)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "axis %u is cropped to nothing (WebNN has no empty tensors)", i);
		st[i] = (uint32_t)s;
		sz[i] = (uint32_t)(full - s - e);
		crop |= s || e;
	}
	o = x;
	if (pad && wrap) {
		if (pad_wrap(n, &o, v->dims, r, pb, pe))
			return -1;
	} else if (pad) {
		OX_B(n, "pad", webnn_builder_pad(n->M->b, x, pb, r, pe, r, &po, &o));
	}
	if (crop)
		OX_B(n, "slice", webnn_builder_slice(n->M->b, o, st, r, sz, r, NULL, &o));
	if (o == x)
		OX_B(n, "identity", webnn_builder_identity(n->M->b, x, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = v->onnx_type;
	return 0;
}

static int op_dropout(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	if (ox_has_in(n, 2)) {
		struct ox_val *t = n->in[2];
		double *ratio = NULL;
		size_t c = 0;
		/* training with ratio 0 drops nothing: still deterministic */
		bool zero = ox_has_in(n, 1) && n->in[1]->host &&
			    ox_host_f64(n, n->in[1], "ratio", &ratio, &c) == 0 && c == 1 &&
			    ratio[0] == 0;
		if (!t->host || (((uint8_t *)t->host)[0] && !zero))
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "training_mode (random masks) is not inference");
	}
	OX_B(n, "identity", webnn_builder_identity(n->M->b, x, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = n->in[0]->onnx_type;
	if (n->n_out > 1 && n->node->output[1] && *n->node->output[1]) {
		/* the mask keeps everything: ones, expanded from one element */
		uint8_t one = 1;
		struct webnn_operand *m = ox_const(n, WEBNN_UINT8, 0, NULL, &one);
		if (!m)
			return -1;
		OX_B(n, "expand", webnn_builder_expand(n->M->b, m, n->in[0]->dims, n->in[0]->rank, &m));
		ox_set(n, 1, m);
		n->out[1].onnx_type = OX_BOOL;
	}
	return 0;
}

static int op_depth_space(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	if (v->rank != 4)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "rank %u, expected 4", v->rank);
	uint32_t bs = (uint32_t)ox_attr_i(n, "blocksize", 0), N = v->dims[0], C = v->dims[1],
		 H = v->dims[2], W = v->dims[3];
	if (!bs)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "blocksize 0");
	uint32_t d6[6], perm[6], d4[4];
	if (strcmp(n->node->op_type, "DepthToSpace") == 0) {
		if (C % (bs * bs))
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "channels not divisible");
		bool crd = strcmp(ox_attr_s(n, "mode", "DCR"), "CRD") == 0;
		uint32_t c = C / (bs * bs);
		if (crd) {
			uint32_t a[6] = { N, c, bs, bs, H, W }, p[6] = { 0, 1, 4, 2, 5, 3 };
			memcpy(d6, a, sizeof(a));
			memcpy(perm, p, sizeof(p));
		} else {
			uint32_t a[6] = { N, bs, bs, c, H, W }, p[6] = { 0, 3, 4, 1, 5, 2 };
			memcpy(d6, a, sizeof(a));
			memcpy(perm, p, sizeof(p));
		}
		uint32_t e[4] = { N, c, H * bs, W * bs };
		memcpy(d4, e, sizeof(e));
	} else {
		if (H % bs || W % bs)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "spatial size not divisible");
		uint32_t a[6] = { N, C, H / bs, bs, W / bs, bs }, p[6] = { 0, 3, 5, 1, 2, 4 };
		memcpy(d6, a, sizeof(a));
		memcpy(perm, p, sizeof(p));
		uint32_t e[4] = { N, C * bs * bs, H / bs, W / bs };
		memcpy(d4, e, sizeof(e));
	}
	if (!(o = ox_reshape(n, x, 6, d6)))
		return -1;
	OX_B(n, "transpose", webnn_builder_transpose(n->M->b, o, perm, 6, &o));
	if (!(o = ox_reshape(n, o, 4, d4)))
		return -1;
	return ox_set(n, 0, o);
}

static int op_trilu(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	struct webnn_triangular_options to = WEBNN_TRIANGULAR_OPTIONS_INIT;
	to.upper = ox_attr_i(n, "upper", 1) != 0;
	if (ox_has_in(n, 1)) {
		int64_t *k;
		size_t c;
		if (ox_host_i64(n, n->in[1], "k", &k, &c))
			return -1;
		to.diagonal = (int32_t)(k[0] > INT32_MAX ? INT32_MAX : k[0] < INT32_MIN ? INT32_MIN : k[0]);
	}
	if (n->in[0]->rank < 2)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "rank %u, expected at least 2",
			       n->in[0]->rank);
	bool empty = false;
	for (uint32_t i = 0; i < n->in[0]->rank; i++)
		empty |= n->in[0]->dims[i] == 0;
	if (empty)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "an empty input (WebNN has no empty tensors)");
	OX_B(n, "triangular", webnn_builder_triangular(n->M->b, x, &to, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = n->in[0]->onnx_type;
	return 0;
}

static int op_cumsum(struct ox_node *n)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	int64_t *a;
	size_t c;
	if (!ox_has_in(n, 1) || ox_host_i64(n, n->in[1], "axis", &a, &c))
		return ox_has_in(n, 1) ? -1 : ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no axis");
	uint32_t axis;
	if (ox_axis(n, a[0], n->in[0]->rank, &axis))
		return -1;
	struct webnn_cumulative_sum_options co = WEBNN_CUMULATIVE_SUM_OPTIONS_INIT;
	co.exclusive = ox_attr_i(n, "exclusive", 0) != 0;
	co.reversed = ox_attr_i(n, "reverse", 0) != 0;
	if (ox_need_type(n, "cumulativeSum", NULL, n->in[0]->type))
		return -1;
	OX_B(n, "cumulativeSum", webnn_builder_cumulative_sum(n->M->b, x, axis, &co, &o));
	return ox_set(n, 0, o);
}

static int op_eye_like(struct ox_node *n)
{
	struct ox_val *v = n->in[0];
	if (!v || v->rank != 2)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "input must have rank 2");
	int ot = (int)ox_attr_i(n, "dtype", v->onnx_type);
	enum webnn_data_type t;
	if (!ox_webnn_type(ot, &t))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "dtype %s", ox_type_name(ot));
	int64_t k = ox_attr_i(n, "k", 0);
	size_t es = webnn_data_type_size(t), rows = v->dims[0], cols = v->dims[1];
	if (rows * cols > ((size_t)1 << 26))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a %zux%zu identity is too large to make "
			       "here", rows, cols);
	unsigned char *p = calloc(rows * cols + 1, es);
	if (!p)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (size_t i = 0; i < rows; i++) {
		int64_t j = (int64_t)i + k;
		if (j < 0 || j >= (int64_t)cols)
			continue;
		unsigned char *e = p + (i * cols + (size_t)j) * es;
		switch (t) {
		case WEBNN_FLOAT32: *(float *)e = 1; break;
		case WEBNN_FLOAT16: *(uint16_t *)e = 0x3c00; break;
		case WEBNN_INT32: case WEBNN_UINT32: *(int32_t *)e = 1; break;
		case WEBNN_INT64: case WEBNN_UINT64: *(int64_t *)e = 1; break;
		default: *e = 1; break;
		}
	}
	return ox_set_host(n, 0, ot, 2, v->dims, p);
}

/* OneHot: (indices == iota along axis) selects on/off values. */
static int op_one_hot(struct ox_node *n)
{
	struct ox_val *iv = n->in[0], *vals = n->in[2];
	if (!iv || !ox_has_in(n, 1) || !vals)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "inputs missing");
	double *dep;
	size_t c;
	if (ox_host_f64(n, n->in[1], "depth", &dep, &c))
		return -1;
	if (!(dep[0] >= 1 && dep[0] <= (1 << 20)))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "depth %g", dep[0]);
	uint32_t depth = (uint32_t)dep[0], r = iv->rank + 1, axis;
	if (r > WEBNN_MAX_RANK)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "rank too large");
	if (ox_axis(n, ox_attr_i(n, "axis", -1), r, &axis))
		return -1;
	struct webnn_operand *idx, *iota, *eq, *off, *on, *o, *vo;
	if (!(idx = ox_operand(n, iv)) || !(vo = ox_operand(n, vals)))
		return -1;
	/* indices as float32 (exact below 2^24), negative ones counted from depth */
	if (iv->type != WEBNN_FLOAT32)
		OX_B(n, "cast", webnn_builder_cast(n->M->b, idx, WEBNN_FLOAT32, &idx));
	struct webnn_operand *z, *d, *cnd, *a;
	if (!(z = ox_scalar(n, WEBNN_FLOAT32, 0)) || !(d = ox_scalar(n, WEBNN_FLOAT32, depth)))
		return -1;
	OX_B(n, "lesser", webnn_builder_lesser(n->M->b, idx, z, &cnd));
	OX_B(n, "add", webnn_builder_add(n->M->b, idx, d, &a));
	OX_B(n, "where", webnn_builder_where(n->M->b, cnd, a, idx, &idx));
	uint32_t d1[WEBNN_MAX_RANK], di[WEBNN_MAX_RANK];
	for (uint32_t i = 0, k = 0; i < r; i++) {
		d1[i] = i == axis ? depth : 1;
		di[i] = i == axis ? 1 : iv->dims[k++];
	}
	float *io = ox_keep(n->M, malloc(depth * sizeof(float)));
	if (!io)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (uint32_t i = 0; i < depth; i++)
		io[i] = (float)i;
	if (!(iota = ox_const(n, WEBNN_FLOAT32, r, d1, io)) || !(idx = ox_reshape(n, idx, r, di)))
		return -1;
	OX_B(n, "equal", webnn_builder_equal(n->M->b, idx, iota, &eq));
	uint32_t one = 1, st0 = 0, st1 = 1;
	OX_B(n, "slice", webnn_builder_slice(n->M->b, vo, &st0, 1, &one, 1, NULL, &off));
	OX_B(n, "slice", webnn_builder_slice(n->M->b, vo, &st1, 1, &one, 1, NULL, &on));
	if (!(off = ox_reshape(n, off, 0, NULL)) || !(on = ox_reshape(n, on, 0, NULL)))
		return -1;
	OX_B(n, "where", webnn_builder_where(n->M->b, eq, on, off, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = vals->onnx_type;
	return 0;
}

/* ReverseSequence: a gatherElements along the time axis whose indices come from the lengths at
 * run time: t < len[b] ? len[b] - 1 - t : t. */
static int op_reverse_sequence(struct ox_node *n)
{
	struct webnn_operand *x, *lens, *o;
	OX_IN(n, 0, x);
	OX_IN(n, 1, lens);
	struct ox_val *v = n->in[0];
	uint32_t r = v->rank, ta, ba;
	if (r < 2)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "a rank %u input (at least 2)", r);
	if (ox_axis(n, ox_attr_i(n, "time_axis", 0), r, &ta) ||
	    ox_axis(n, ox_attr_i(n, "batch_axis", 1), r, &ba))
		return -1;
	if (ta > 1 || ba > 1 || ta == ba)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "time_axis %u and batch_axis %u (0 and 1, "
			       "either way)", ta, ba);
	struct webnn_builder *b = n->M->b;
	uint32_t T = v->dims[ta], B = v->dims[ba];
	if (n->in[1]->rank != 1 || n->in[1]->dims[0] != B)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "sequence_lens is not [%u]", B);
	int64_t *t = ox_keep(n->M, malloc((size_t)T * sizeof(int64_t)));
	if (!t)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (uint32_t i = 0; i < T; i++)
		t[i] = i;
	uint32_t td[WEBNN_MAX_RANK], ld[WEBNN_MAX_RANK];
	for (uint32_t i = 0; i < r; i++) {
		td[i] = i == ta ? T : 1;
		ld[i] = i == ba ? B : 1;
	}
	struct webnn_operand *iota = ox_const(n, WEBNN_INT64, r, td, t), *one, *last, *in, *idx;
	if (!iota || !(one = ox_scalar(n, WEBNN_INT64, 1)))
		return -1;
	if (n->in[1]->type != WEBNN_INT64)
		OX_B(n, "cast", webnn_builder_cast(b, lens, WEBNN_INT64, &lens));
	if (!(lens = ox_reshape(n, lens, r, ld)))
		return -1;
	OX_B(n, "sub", webnn_builder_sub(b, lens, one, &last));
	OX_B(n, "sub", webnn_builder_sub(b, last, iota, &last));
	OX_B(n, "lesser", webnn_builder_lesser(b, iota, lens, &in));
	OX_B(n, "where", webnn_builder_where(b, in, last, iota, &idx));
	OX_B(n, "expand", webnn_builder_expand(b, idx, v->dims, r, &idx));
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	go.axis = ta;
	OX_B(n, "gatherElements", webnn_builder_gather_elements(b, x, idx, &go, &o));
	ox_set(n, 0, o);
	n->out[0].onnx_type = v->onnx_type;
	return 0;
}

const struct ox_op ox_ops_data[] = {
	{ "Shape", 1, 21, op_shape }, { "Size", 1, 21, op_size },
	{ "ReverseSequence", 10, 21, op_reverse_sequence },
	{ "Reshape", 1, 21, op_reshape }, { "Flatten", 1, 21, op_flatten },
	{ "Squeeze", 1, 21, op_squeeze }, { "Unsqueeze", 1, 21, op_unsqueeze },
	{ "Transpose", 1, 21, op_transpose }, { "Concat", 1, 21, op_concat },
	{ "Split", 1, 21, op_split }, { "Slice", 1, 21, op_slice },
	{ "Expand", 8, 21, op_expand }, { "Tile", 6, 21, op_tile },
	{ "Gather", 1, 21, op_gather }, { "GatherElements", 11, 21, op_gather_elements },
	{ "GatherND", 11, 21, op_gather_nd }, { "ScatterElements", 11, 21, op_scatter },
	{ "Scatter", 9, 10, op_scatter }, { "ScatterND", 11, 21, op_scatter },
	{ "Cast", 6, 21, op_cast }, { "CastLike", 15, 21, op_cast_like },
	{ "Constant", 1, 21, op_constant }, { "ConstantOfShape", 9, 21, op_constant_of_shape },
	{ "Range", 11, 21, op_range }, { "Pad", 2, 21, op_pad },
	{ "Dropout", 1, 21, op_dropout }, { "DepthToSpace", 1, 21, op_depth_space },
	{ "SpaceToDepth", 1, 21, op_depth_space }, { "Trilu", 14, 21, op_trilu },
	{ "CumSum", 11, 21, op_cumsum }, { "EyeLike", 9, 21, op_eye_like },
	{ "OneHot", 9, 21, op_one_hot },
	{ NULL, 0, 0, NULL },
};
