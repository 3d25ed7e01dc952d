/* Linear algebra family (gemm, matmul): operand wiring, role limits, the resolvers. */
#include "proto/schema.h"

/* gemm's matrix sizes after the transposes: mkn[0] = M (rows of A), mkn[1] = K of A,
 * mkn[2] = K of B, mkn[3] = N (columns of B); the caller checks both K agree. */
static void gemm_sizes(const Webnn__Ipc__Gemm *m, const struct wnn_desc *a,
		       const struct wnn_desc *b, uint32_t mkn[4])
{
	mkn[0] = a->dims[m->a_transpose ? 1 : 0];
	mkn[1] = a->dims[m->a_transpose ? 0 : 1];
	mkn[2] = b->dims[m->b_transpose ? 1 : 0];
	mkn[3] = b->dims[m->b_transpose ? 0 : 1];
}

static bool resolve_gemm(struct wnn_resolving *c, struct wnn_gemm_attrs *p)
{
	const Webnn__Ipc__Gemm *m = c->op->gemm;
	const struct wnn_desc *a = D(c, m->a), *b = D(c, m->b);
	char sa[96], sb[96];
	if (!wnn_check_type(c, a, "a", first_mask(c)) || !wnn_check_same_type(c, b, "b", a, "a") ||
	    !wnn_check_rank(c, a, "a", 2, 2) || !wnn_check_rank(c, b, "b", 2, 2))
		return false;
	uint32_t mkn[4];
	gemm_sizes(m, a, b, mkn);
	uint32_t am = mkn[0], ak = mkn[1], bk = mkn[2], bn = mkn[3];
	if (ak != bk)
		return wnn_failf(c, "a shape %s%s and b shape %s%s are incompatible: %" PRIu32
			     " columns vs %" PRIu32 " rows", SHAPE(a, sa),
			     m->a_transpose ? " (transposed)" : "", SHAPE(b, sb),
			     m->b_transpose ? " (transposed)" : "", ak, bk);
	struct wnn_desc *r = wnn_result(c, a->type, 2);
	r->dims[0] = am;
	r->dims[1] = bn;
	if (m->has_c) {
		const struct wnn_desc *cc = D(c, m->c);
		if (!wnn_bcast_uni(cc->dims, cc->rank, r->dims, 2))
			return wnn_failf(c, "c shape %s is not unidirectionally broadcastable to %s",
				     SHAPE(cc, sa), SHAPE(r, sb));
		if (!wnn_check_same_type(c, cc, "c", a, "a"))
			return false;
		uint64_t cs[2];
		wnn_bcast_strides(cc, 2, r->dims, cs); /* broadcastable: checked above */
		p->has_c = true;
		p->c = m->c;
		p->c_stride_m = cs[0], p->c_stride_n = cs[1];
	} else {
		p->c = WNN_NO_OPERAND;
	}
	p->a = m->a, p->b = m->b, p->output = m->output;
	p->type = a->type;
	p->a_transpose = m->a_transpose, p->b_transpose = m->b_transpose;
	p->m = am, p->k = ak, p->n = bn;
	/* Row-major A is [M, K], or [K, M] when transposed; likewise B. */
	p->a_stride_m = m->a_transpose ? 1 : a->dims[1];
	p->a_stride_k = m->a_transpose ? a->dims[1] : 1;
	p->b_stride_k = m->b_transpose ? 1 : b->dims[1];
	p->b_stride_n = m->b_transpose ? b->dims[1] : 1;
	const struct wnn_op_defaults *dflt = &wnn_ops[c->kind].defaults;
	p->alpha = wnn_cast_float(m->has_alpha ? m->alpha : dflt->alpha, p->type);
	p->beta = wnn_cast_float(m->has_beta ? m->beta : dflt->beta, p->type);
	return true;
}

/* matmul's output shape (a and b of rank >= 2): the broadcast of their batch shapes (all but
 * the last two dims, left in batch[0] and batch[1]) followed by [M, N], the rows of a and the
 * columns of b. False when the batch shapes are not broadcastable. */
static bool matmul_shape(const struct wnn_desc *a, const struct wnn_desc *b,
			 struct wnn_desc batch[2], struct wnn_desc *r)
{
	batch[0] = *a, batch[1] = *b;
	batch[0].rank -= 2;
	batch[1].rank -= 2;
	if (!wnn_bcast_bi(&batch[0], &batch[1], r))
		return false;
	r->dims[r->rank++] = a->dims[a->rank - 2];
	r->dims[r->rank++] = b->dims[b->rank - 1];
	return true;
}

static bool resolve_matmul(struct wnn_resolving *c, struct wnn_matmul_attrs *p)
{
	const Webnn__Ipc__Matmul *m = c->op->matmul;
	const struct wnn_desc *a = D(c, m->a), *b = D(c, m->b);
	char sa[96], sb[96];
	if (!wnn_check_type(c, a, "a", first_mask(c)) || !wnn_check_same_type(c, b, "b", a, "a") ||
	    !wnn_check_rank(c, a, "a", 2, WNN_MAX_RANK) || !wnn_check_rank(c, b, "b", 2, WNN_MAX_RANK))
		return false;
	uint32_t cols_a = a->dims[a->rank - 1], rows_b = b->dims[b->rank - 2];
	if (cols_a != rows_b)
		return wnn_failf(c, "a shape %s and b shape %s are incompatible: %" PRIu32
			     " columns vs %" PRIu32 " rows", SHAPE(a, sa), SHAPE(b, sb), cols_a,
			     rows_b);
	struct wnn_desc batch[2];
	struct wnn_bcast bc;
	struct wnn_diag ignored = { 0 };
	if (!matmul_shape(a, b, batch, wnn_result(c, a->type, 0)) ||
	    wnn_broadcast((const struct wnn_desc *[2]){ &batch[0], &batch[1] }, 2, &bc, c->name,
			  &ignored) != WEBNN_STATUS_OK)
		return wnn_failf(c, "batch shapes %s and %s are not broadcastable",
			     SHAPE(&batch[0], sa), SHAPE(&batch[1], sb));
	p->a = m->a, p->b = m->b, p->output = m->output;
	p->type = a->type;
	p->m = a->dims[a->rank - 2], p->k = cols_a, p->n = b->dims[b->rank - 1];
	p->batch_rank = bc.rank;
	memcpy(p->batch_dims, bc.dims, sizeof(bc.dims));
	p->batch = bc.count;
	uint64_t mk = (uint64_t)p->m * p->k, kn = (uint64_t)p->k * p->n;
	for (uint32_t i = 0; i < bc.rank; i++) {
		p->a_batch_strides[i] = bc.strides[0][i] * mk;
		p->b_batch_strides[i] = bc.strides[1][i] * kn;
	}
	p->a_broadcast = !bc.same_shape[0];
	p->b_broadcast = !bc.same_shape[1];
	p->a_stride_m = p->k, p->a_stride_k = 1;
	p->b_stride_k = p->n, p->b_stride_n = 1;
	return true;
}

/* ---- the table entries: operands, role limits and the resolver by attrs kind */

static bool inputs_gemm(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->gemm);
	IN(op->gemm->a, "a");
	IN(op->gemm->b, "b");
	OPT(op->gemm, c, "c");
	return true;
}

static bool outputs_gemm(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->gemm);
}

static void roles_gemm(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "a", t, 2, 2);
	fn(ud, "b", t, 2, 2);
	fn(ud, "c", t, 0, 2);
	fn(ud, "output", t, 2, 2);
}

WNN_RESOLVER(resolve_gemm, gemm)

const struct wnn_attrs_rules wnn_attrs_gemm = {
	.inputs = inputs_gemm,
	.outputs = outputs_gemm,
	.resolve = resolve_gemm_any,
	.roles = roles_gemm,
};

static bool inputs_matmul(const Webnn__Ipc__Operation *op, wnn_io_fn fn, void *ud)
{
	NEED(op->matmul);
	IN(op->matmul->a, "a");
	IN(op->matmul->b, "b");
	return true;
}

static bool outputs_matmul(const Webnn__Ipc__Operation *op, const uint32_t **list, size_t *n)
{
	OUT_ONE(op->matmul);
}

static void roles_matmul(enum wnn_op op, uint32_t t, uint32_t out, wnn_role_fn fn, void *ud)
{
	(void)op;
	(void)out;
	fn(ud, "a", t, 2, WNN_MAX_RANK);
	fn(ud, "b", t, 2, WNN_MAX_RANK);
	fn(ud, "output", t, 2, WNN_MAX_RANK);
}

WNN_RESOLVER(resolve_matmul, matmul)

const struct wnn_attrs_rules wnn_attrs_matmul = {
	.inputs = inputs_matmul,
	.outputs = outputs_matmul,
	.resolve = resolve_matmul_any,
	.roles = roles_matmul,
};
