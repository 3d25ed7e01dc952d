/* Linear algebra family (gemm, matmul): operand wiring, inference, role limits, resolution. */
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

static bool infer_gemm(struct wnn_infer *c)
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
	}
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

static bool infer_matmul(struct wnn_infer *c)
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
	if (!matmul_shape(a, b, batch, wnn_result(c, a->type, 0)))
		return wnn_failf(c, "batch shapes %s and %s are not broadcastable",
			     SHAPE(&batch[0], sa), SHAPE(&batch[1], sb));
	return true;
}

enum webnn_status wnn_resolve_gemm(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
			      size_t n_descs, struct wnn_gemm_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_GEMM, &which, &name, diag));
	const Webnn__Ipc__Gemm *m = op->gemm;
	OPERAND(a, m->a, "a");
	OPERAND(b, m->b, "b");
	OPERAND(out, m->output, "output");
	CHECK(wnn_rank_is(a, 2, name, "a", diag));
	CHECK(wnn_rank_is(b, 2, name, "b", diag));
	CHECK(wnn_rank_is(out, 2, name, "output", diag));
	p->a = m->a, p->b = m->b, p->output = m->output, p->c = WNN_NO_OPERAND;
	p->type = a->type;
	p->a_transpose = m->a_transpose, p->b_transpose = m->b_transpose;
	uint32_t mkn[4];
	gemm_sizes(m, a, b, mkn);
	uint32_t ka = mkn[1], kb = mkn[2];
	p->m = mkn[0], p->n = mkn[3];
	/* Row-major A is [M, K], or [K, M] when transposed; likewise B. */
	p->a_stride_m = m->a_transpose ? 1 : a->dims[1];
	p->a_stride_k = m->a_transpose ? a->dims[1] : 1;
	p->b_stride_k = m->b_transpose ? 1 : b->dims[1];
	p->b_stride_n = m->b_transpose ? b->dims[1] : 1;
	if (ka != kb)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: a has %u columns but b has %u rows (after transposes)", name,
				    ka, kb);
	p->k = ka;
	if (out->dims[0] != p->m || out->dims[1] != p->n)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape must be [%u, %u]", name, p->m, p->n);
	const struct wnn_op_defaults *dflt = &wnn_ops[WNN_OP_GEMM].defaults;
	p->alpha = wnn_cast_float(m->has_alpha ? m->alpha : dflt->alpha, p->type);
	p->beta = wnn_cast_float(m->has_beta ? m->beta : dflt->beta, p->type);
	if (m->has_c) {
		OPERAND(c, m->c, "c");
		uint64_t cs[2];
		uint32_t mn[2] = { p->m, p->n };
		if (!wnn_bcast_strides(c, 2, mn, cs))
			return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
					    "%s: c is not broadcastable to [%u, %u]", name, p->m,
					    p->n);
		p->has_c = true;
		p->c = m->c;
		p->c_stride_m = cs[0], p->c_stride_n = cs[1];
	}
	return WEBNN_STATUS_OK;
}

enum webnn_status wnn_resolve_matmul(const Webnn__Ipc__Operation *op, const struct wnn_desc *descs,
				size_t n_descs, struct wnn_matmul_attrs *p, struct wnn_diag *diag)
{
	const char *name;
	enum wnn_op which = WNN_OP_COUNT;
	memset(p, 0, sizeof(*p));
	CHECK(wnn_check_op(op, WEBNN__IPC__OPERATION__ATTRS_MATMUL, &which, &name, diag));
	const Webnn__Ipc__Matmul *m = op->matmul;
	OPERAND(a, m->a, "a");
	OPERAND(b, m->b, "b");
	OPERAND(out, m->output, "output");
	if (a->rank < 2 || b->rank < 2)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: a rank %u and b rank %u must both be at least 2", name,
				    a->rank, b->rank);
	p->a = m->a, p->b = m->b, p->output = m->output;
	p->type = a->type;
	p->m = a->dims[a->rank - 2], p->k = a->dims[a->rank - 1];
	p->n = b->dims[b->rank - 1];
	if (b->dims[b->rank - 2] != p->k)
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: a has %u columns but b has %u rows", name, p->k,
				    b->dims[b->rank - 2]);
	struct wnn_desc batch[2], want = { .type = a->type };
	bool shaped = matmul_shape(a, b, batch, &want);
	struct wnn_bcast bc;
	const struct wnn_desc *in[2] = { &batch[0], &batch[1] };
	CHECK(wnn_broadcast(in, 2, &bc, name, diag));
	if (!shaped || out->rank != want.rank ||
	    memcmp(out->dims, want.dims, want.rank * sizeof(uint32_t)))
		return wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				    "%s: output shape does not match the matrix product", name);
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
	return WEBNN_STATUS_OK;
}

/* ---- the table entries: operands, inference, role limits and resolution by attrs kind */

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

WNN_RESOLVE_ANY(gemm)

const struct wnn_attrs_rules wnn_attrs_gemm = {
	.inputs = inputs_gemm,
	.outputs = outputs_gemm,
	.infer = infer_gemm,
	.roles = roles_gemm,
	.resolve = resolve_any_gemm,
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

WNN_RESOLVE_ANY(matmul)

const struct wnn_attrs_rules wnn_attrs_matmul = {
	.inputs = inputs_matmul,
	.outputs = outputs_matmul,
	.infer = infer_matmul,
	.roles = roles_matmul,
	.resolve = resolve_any_matmul,
};
