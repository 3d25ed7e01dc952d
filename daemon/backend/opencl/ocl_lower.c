/* OpenCL backend: lowers each operation into kernel launches, CLBlast gemms and copies. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Elementwise expressions of proto/ops.def, stringified for the OpenCL compiler. */
static const struct {
	const char *fexpr, *iexpr;
} ew_exprs[WNN_OP_COUNT] = {
#define X(ENUM, name, id, FAMILY, ATTRS, DTYPES, OUT, DEFAULTS, FEXPR, IEXPR) [WNN_OP_##ENUM] = { #FEXPR, #IEXPR },
#include "proto/ops.def"
#undef X
};

bool ocl_supports(enum wnn_op op, enum wnn_dtype t)
{
	if (op >= WNN_OP_COUNT || t <= WNN_DT_NONE || t >= WNN_DT_COUNT)
		return false;
	if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
		return false;
	switch (wnn_ops[op].attrs) {
	case WEBNN__IPC__OPERATION__ATTRS_BINARY:
	case WEBNN__IPC__OPERATION__ATTRS_UNARY:
		if (op == WNN_OP_IDENTITY)
			return true;
		if (t == WNN_F32 || t == WNN_F16)
			return wnn_ops[op].has_float_expr;
		return wnn_ops[op].has_int_expr ||
		       (wnn_ops[op].attrs == WEBNN__IPC__OPERATION__ATTRS_BINARY &&
			wnn_ops[op].has_float_expr);
	default:
		break;
	}
	switch (op) {
	case WNN_OP_CLAMP:
	case WNN_OP_CONV2D:
	case WNN_OP_GEMM:
	case WNN_OP_MATMUL:
	case WNN_OP_AVERAGE_POOL2D:
	case WNN_OP_L2_POOL2D:
	case WNN_OP_MAX_POOL2D:
	case WNN_OP_SOFTMAX:
	case WNN_OP_BATCH_NORMALIZATION:
	case WNN_OP_TRANSPOSE:
	case WNN_OP_CONCAT:
	case WNN_OP_RESHAPE:
		return true;
	default:
		return ocl_ext_supports(op, t);
	}
}

/* ------------------------------------------------------------------ shared helpers */

#define FAILED(b) ((b)->diag->status != WEBNN_STATUS_OK)

static size_t desc_bytes(const struct ocl_build *b, uint32_t operand)
{
	uint64_t n = 0;
	wnn_desc_bytes(&b->g->descs[operand], &n);
	return (size_t)n;
}

size_t ocl_desc_count(const struct ocl_build *b, uint32_t operand)
{
	uint64_t n = 0;
	wnn_desc_count(&b->g->descs[operand], &n);
	return (size_t)n;
}

void ocl_check_u32(struct ocl_build *b, uint64_t v, const char *what)
{
	if (v >= UINT32_MAX)
		wnn_diag_set(b->diag, WEBNN_STATUS_NOT_SUPPORTED,
			     "%s: %s too large for the OpenCL backend", b->what, what);
}

/* Merges dimensions that every operand walks contiguously (and drops size-1 dimensions).
 * strides[op][d]; returns the new rank. */
static uint32_t collapse(uint32_t rank, const uint32_t *dims, int nops,
			 uint64_t strides[][WNN_MAX_RANK], uint32_t *odims,
			 uint64_t ostr[][WNN_MAX_RANK])
{
	uint32_t r = 0;
	for (uint32_t d = 0; d < rank; d++) {
		if (dims[d] == 1)
			continue;
		bool merge = r > 0;
		for (int o = 0; o < nops && merge; o++)
			merge = ostr[o][r - 1] == strides[o][d] * dims[d];
		if (merge) {
			odims[r - 1] *= dims[d];
			for (int o = 0; o < nops; o++)
				ostr[o][r - 1] = strides[o][d];
		} else {
			odims[r] = dims[d];
			for (int o = 0; o < nops; o++)
				ostr[o][r] = strides[o][d];
			r++;
		}
	}
	return r;
}

static cl_uint8 u8vec(uint32_t rank, const uint64_t *v)
{
	cl_uint8 out;
	memset(&out, 0, sizeof out);
	for (uint32_t i = 0; i < rank && i < 8; i++)
		out.s[i] = (cl_uint)v[i];
	return out;
}

void ocl_step_copy(struct ocl_build *b, uint32_t src, size_t soff, uint32_t dst, size_t doff,
		   size_t bytes)
{
	struct ocl_step *s = ocl_step_new(b, OCL_STEP_COPY);
	if (!s)
		return;
	s->src = src;
	s->dst = dst;
	s->src_off = soff;
	s->dst_off = doff;
	s->size = bytes;
	ocl_slot_use(b, src);
	ocl_slot_use(b, dst);
}

/* dst[doff + sum c_d * dstr_d] = src[soff + sum c_d * sstr_d] over dims (elements of esize). */
static void copy_nd(struct ocl_build *b, enum wnn_dtype t, uint32_t src, uint64_t soff,
		    uint32_t dst, uint64_t doff, uint32_t rank, const uint32_t *dims,
		    const uint64_t *sstr, const uint64_t *dstr)
{
	uint64_t in[2][WNN_MAX_RANK], out[2][WNN_MAX_RANK];
	uint32_t odims[WNN_MAX_RANK];
	uint64_t count = 1;
	for (uint32_t d = 0; d < rank; d++) {
		in[0][d] = sstr[d];
		in[1][d] = dstr[d];
		count *= dims[d];
	}
	uint32_t r = collapse(rank, dims, 2, in, odims, out);
	size_t es = wnn_dtype_size(t);
	if (r == 0 || (r == 1 && out[0][0] == 1 && out[1][0] == 1)) {
		ocl_step_copy(b, src, (size_t)soff * es, dst, (size_t)doff * es, (size_t)count * es);
		return;
	}
	/* The last dimension becomes the kernel's inner loop; a long one with few rows is split
	 * so that there are rows enough for every compute unit. */
	uint32_t len = odims[r - 1];
	uint64_t sl = out[0][r - 1], dl = out[1][r - 1];
	uint64_t rows = count / len;
	if (rows < 128 && len >= 512) {
		static const uint32_t chunks[] = { 256, 128, 64, 32, 16 };
		for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
			if (len % chunks[c] || r >= WNN_MAX_RANK)
				continue;
			odims[r - 1] = len / chunks[c];
			out[0][r - 1] = sl * chunks[c];
			out[1][r - 1] = dl * chunks[c];
			len = chunks[c];
			r++;
			rows = count / len;
			break;
		}
	}
	cl_program prog;
	if (ocl_typed_program(b, "data.cl", t, &prog))
		return;
	ocl_check_u32(b, soff + count, "copy offset");
	struct ocl_step *s = ocl_step_kernel(b, prog, "copy_nd");
	cl_uint so = (cl_uint)soff, dof = (cl_uint)doff, n = (cl_uint)rows, rr = r - 1;
	cl_uint8 vd = ocl_u8dims(r - 1, odims), vs = u8vec(r - 1, out[0]), vdst = u8vec(r - 1, out[1]);
	cl_uint cl_len = len, csl = (cl_uint)sl, cdl = (cl_uint)dl;
	ocl_arg_mem(b, s, 0, src);
	ocl_arg(b, s, 1, sizeof so, &so);
	ocl_arg_mem(b, s, 2, dst);
	ocl_arg(b, s, 3, sizeof dof, &dof);
	ocl_arg(b, s, 4, sizeof n, &n);
	ocl_arg(b, s, 5, sizeof rr, &rr);
	ocl_arg(b, s, 6, sizeof vd, &vd);
	ocl_arg(b, s, 7, sizeof vs, &vs);
	ocl_arg(b, s, 8, sizeof vdst, &vdst);
	ocl_arg(b, s, 9, sizeof cl_len, &cl_len);
	ocl_arg(b, s, 10, sizeof csl, &csl);
	ocl_arg(b, s, 11, sizeof cdl, &cdl);
	ocl_step_range1(s, rows);
}

void ocl_convert(struct ocl_build *b, bool to_f32, uint32_t src, uint32_t dst, size_t count)
{
	cl_program prog;
	if (FAILED(b) || ocl_typed_program(b, "data.cl", WNN_F32, &prog))
		return;
	struct ocl_step *s = ocl_step_kernel(b, prog, to_f32 ? "cvt_h2f" : "cvt_f2h");
	cl_uint n = (cl_uint)count;
	ocl_arg_mem(b, s, 0, src);
	ocl_arg_mem(b, s, 1, dst);
	ocl_arg(b, s, 2, sizeof n, &n);
	ocl_step_range1(s, count);
}

static const void *const_data(struct ocl_build *b, uint32_t operand)
{
	return b->g->constant_data ? b->g->constant_data[operand] : NULL;
}

uint32_t ocl_f32_slot(struct ocl_build *b, uint32_t operand)
{
	if (FAILED(b))
		return UINT32_MAX;
	if (b->g->descs[operand].type == WNN_F32)
		return ocl_operand_slot(b, operand);
	size_t count = ocl_desc_count(b, operand);
	const uint16_t *h = const_data(b, operand);
	if (h) {
		float *f = malloc(count * sizeof *f);
		uint32_t id = UINT32_MAX;
		if (!f) {
			wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
			return UINT32_MAX;
		}
		for (size_t i = 0; i < count; i++)
			f[i] = wnn_f16_to_f32(h[i]);
		ocl_slot_const(b, f, count * sizeof *f, &id);
		free(f);
		return id;
	}
	uint32_t src = ocl_operand_slot(b, operand);
	uint32_t dst = ocl_slot_new_temp(b, count * 4);
	ocl_convert(b, true, src, dst, count);
	return dst;
}

void ocl_add_gemm(struct ocl_build *b, const struct ocl_gemm *gm, size_t batch,
		  const size_t *aoffs, const size_t *boffs, const size_t *coffs)
{
	struct ocl_step *s = ocl_step_new(b, OCL_STEP_GEMM);
	if (!s)
		return;
	s->gemm = *gm;
	s->gemm.batch = batch;
	if (batch > 1) {
		/* Constant, non-zero strides: the strided-batched routine; else offset arrays. */
		bool strided = true;
		size_t as = aoffs[1] - aoffs[0], bs = boffs[1] - boffs[0], cs = coffs[1] - coffs[0];
		strided = aoffs[1] > aoffs[0] && boffs[1] > boffs[0] && coffs[1] > coffs[0];
		for (size_t i = 1; i < batch && strided; i++)
			strided = aoffs[i] - aoffs[i - 1] == as && boffs[i] - boffs[i - 1] == bs &&
				  coffs[i] - coffs[i - 1] == cs;
		if (strided) {
			s->gemm.strided = true;
			s->gemm.a_off = aoffs[0];
			s->gemm.b_off = boffs[0];
			s->gemm.c_off = coffs[0];
			s->gemm.a_stride = as;
			s->gemm.b_stride = bs;
			s->gemm.c_stride = cs;
		} else {
			s->gemm.a_offs = malloc(batch * sizeof(size_t));
			s->gemm.b_offs = malloc(batch * sizeof(size_t));
			s->gemm.c_offs = malloc(batch * sizeof(size_t));
			s->gemm.alphas = malloc(batch * sizeof(float));
			s->gemm.betas = malloc(batch * sizeof(float));
			if (!s->gemm.a_offs || !s->gemm.b_offs || !s->gemm.c_offs ||
			    !s->gemm.alphas || !s->gemm.betas) {
				wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
					     b->what);
				return;
			}
			memcpy(s->gemm.a_offs, aoffs, batch * sizeof(size_t));
			memcpy(s->gemm.b_offs, boffs, batch * sizeof(size_t));
			memcpy(s->gemm.c_offs, coffs, batch * sizeof(size_t));
			for (size_t i = 0; i < batch; i++) {
				s->gemm.alphas[i] = gm->alpha;
				s->gemm.betas[i] = gm->beta;
			}
		}
	} else if (batch == 1) {
		s->gemm.a_off = aoffs[0];
		s->gemm.b_off = boffs[0];
		s->gemm.c_off = coffs[0];
	}
	ocl_slot_use(b, gm->a);
	ocl_slot_use(b, gm->b);
	ocl_slot_use(b, gm->c);
}

/* ------------------------------------------------------------------ fusion */

#define NONE UINT32_MAX

bool ocl_baseline(void)
{
	const char *e = getenv("WEBNN_OCL_BASELINE");
	return e && *e && strcmp(e, "0") != 0;
}

/* What a conv2d/gemm/matmul writes besides its plain product. */
struct ocl_epi {
	bool used;
	uint32_t output;   /* the operand finally written (the last fused operation's output) */
	uint32_t vec, res; /* fused add of a per-channel vector / a same-shape tensor, or NONE */
	int act;           /* 0 none, 1 relu, 2 clamp(lo, hi) */
	float lo, hi;
	bool concat;       /* written into a slice of concat_output along the channel axis */
	uint32_t concat_output, ch_off, ch_total;
};

struct ocl_fusion {
	bool *skip;            /* per operation: absorbed into an earlier one */
	struct ocl_epi *epi;   /* per operation */
	uint8_t *concat_done;  /* per operand: already written into its concat's output */
};

void ocl_fusion_free(struct ocl_build *b)
{
	if (!b->fusion)
		return;
	free(b->fusion->skip);
	free(b->fusion->epi);
	free(b->fusion->concat_done);
	free(b->fusion);
	b->fusion = NULL;
}

bool ocl_fusion_skip(const struct ocl_build *b, size_t op_index)
{
	return b->fusion && b->fusion->skip[op_index];
}

static const struct ocl_epi *op_epi(const struct ocl_build *b)
{
	if (!b->fusion || !b->fusion->epi[b->op_index].used)
		return NULL;
	return &b->fusion->epi[b->op_index];
}

/* Depthwise and thin grouped convolutions do too little work per output for a gemm. */
static bool conv_uses_gemm(const struct wnn_conv2d_attrs *p)
{
	return !(p->depthwise || (p->groups > 1 && p->c_in_g * p->kh * p->kw <= 16));
}

static bool desc_same_shape(const struct wnn_desc *a, const struct wnn_desc *b)
{
	if (a->rank != b->rank)
		return false;
	for (uint32_t d = 0; d < a->rank; d++)
		if (a->dims[d] != b->dims[d])
			return false;
	return true;
}

/* v broadcasts to out as one value per index of out's dimension cdim (of size C). */
static bool desc_channel_vector(const struct wnn_desc *v, const struct wnn_desc *out,
				uint32_t cdim)
{
	if (v->rank > out->rank || cdim + v->rank < out->rank)
		return false;
	for (uint32_t d = 0; d < v->rank; d++) {
		uint32_t od = out->rank - v->rank + d;
		if (v->dims[d] != (od == cdim ? out->dims[cdim] : 1))
			return false;
	}
	return true;
}

/* Operand ids an operation reads, in a buffer grown as needed (concat may have many). */
static int op_inputs(const Webnn__Ipc__Operation *op, uint32_t **ids, int *cap)
{
	for (;;) {
		int n = wnn_op_inputs(op, *ids, NULL, *cap);
		if (n >= 0 || *cap >= (1 << 20))
			return n;
		uint32_t *bigger = realloc(*ids, (size_t)*cap * 2 * sizeof *bigger);
		if (!bigger)
			return -1;
		*ids = bigger;
		*cap *= 2;
	}
}

/* Follows the single-consumer chain after operation i (output `out`, channel dimension cdim)
 * through add (operand defined before i) then relu/clamp. */
static void fuse_chain(struct ocl_build *b, struct ocl_fusion *f, size_t i, uint32_t out,
		       uint32_t cdim, const uint32_t *cons, const uint32_t *user,
		       const uint32_t *prod, const uint8_t *is_out, struct ocl_epi *e)
{
	const struct graph_source *g = b->g;
	struct wnn_diag quiet = { 0 };
	uint32_t cur = out;
	enum wnn_dtype t = g->descs[out].type;
	while (cons[cur] == 1 && !is_out[cur] && !e->act) {
		size_t j = user[cur];
		const Webnn__Ipc__Operation *op = g->info->operations[j];
		enum wnn_op k = wnn_op_from_id(op->op);
		if (f->skip[j])
			break;
		if (k == WNN_OP_RELU) {
			struct wnn_unary_attrs pu;
			if (wnn_resolve_unary(op, g->descs, g->n_operands, &pu, &quiet) || pu.type != t)
				break;
			e->act = 1;
			cur = pu.output;
		} else if (k == WNN_OP_CLAMP) {
			struct wnn_clamp_attrs pc;
			if (wnn_resolve_clamp(op, g->descs, g->n_operands, &pc, &quiet) || pc.type != t)
				break;
			e->act = 2;
			e->lo = (float)pc.min;
			e->hi = (float)pc.max;
			cur = pc.output;
		} else if (k == WNN_OP_ADD) {
			struct wnn_binary_attrs pb;
			if (wnn_resolve_binary(op, g->descs, g->n_operands, &pb, &quiet) || pb.a == pb.b ||
			    pb.type != t || !desc_same_shape(&g->descs[pb.output], &g->descs[cur]))
				break;
			uint32_t other = pb.a == cur ? pb.b : pb.a;
			/* The epilogue runs where operation i is: the addend must exist by then. */
			if (prod[other] != NONE && prod[other] >= i)
				break;
			if (e->res == NONE && desc_same_shape(&g->descs[other], &g->descs[cur]))
				e->res = other;
			else if (e->vec == NONE &&
				 desc_channel_vector(&g->descs[other], &g->descs[cur], cdim))
				e->vec = other;
			else
				break;
			cur = pb.output;
		} else {
			break;
		}
		f->skip[j] = true;
		e->used = true;
	}
	e->output = cur;
}

enum webnn_status ocl_fusion_plan(struct ocl_build *b)
{
	const struct graph_source *g = b->g;
	size_t n_ops = g->info->n_operations, n_opd = g->n_operands;
	b->fusion = NULL;
	if (ocl_baseline() || !n_ops || !n_opd)
		return WEBNN_STATUS_OK;
	struct ocl_fusion *f = calloc(1, sizeof *f);
	uint32_t *cons = calloc(n_opd, sizeof *cons), *user = malloc(n_opd * sizeof *user);
	uint32_t *prod = malloc(n_opd * sizeof *prod);
	uint8_t *is_out = calloc(n_opd, 1);
	int cap = 64;
	uint32_t *ids = malloc((size_t)cap * sizeof *ids);
	if (f) {
		f->skip = calloc(n_ops, sizeof *f->skip);
		f->epi = calloc(n_ops, sizeof *f->epi);
		f->concat_done = calloc(n_opd, 1);
	}
	b->fusion = f;
	if (!f || !f->skip || !f->epi || !f->concat_done || !cons || !user || !prod || !is_out ||
	    !ids) {
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "compile: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n_opd; i++)
		prod[i] = NONE;
	for (size_t i = 0; i < n_ops; i++) {
		const Webnn__Ipc__Operation *op = g->info->operations[i];
		int n = op_inputs(op, &ids, &cap);
		if (n < 0) {
			/* Unknown consumers: fusing anything could drop a read. */
			ocl_fusion_free(b);
			goto out;
		}
		for (int k = 0; k < n; k++)
			if (ids[k] < n_opd) {
				cons[ids[k]]++;
				user[ids[k]] = (uint32_t)i;
			}
		uint32_t outs[WNN_MAX_OUTPUTS];
		int no = wnn_op_outputs(op, outs, WNN_MAX_OUTPUTS);
		for (int k = 0; k < no; k++)
			if (outs[k] < n_opd)
				prod[outs[k]] = (uint32_t)i;
	}
	for (size_t i = 0; i < g->n_outputs; i++)
		if (g->output_operands[i] < n_opd)
			is_out[g->output_operands[i]] = 1;
	struct wnn_diag quiet = { 0 };
	for (size_t i = 0; i < n_ops; i++) {
		const Webnn__Ipc__Operation *op = g->info->operations[i];
		enum wnn_op k = wnn_op_from_id(op->op);
		struct ocl_epi *e = &f->epi[i];
		e->vec = e->res = NONE;
		if (f->skip[i] || (k != WNN_OP_CONV2D && k != WNN_OP_GEMM && k != WNN_OP_MATMUL))
			continue;
		uint32_t outs[WNN_MAX_OUTPUTS];
		if (wnn_op_outputs(op, outs, WNN_MAX_OUTPUTS) != 1 || outs[0] >= n_opd)
			continue;
		const struct wnn_desc *od = &g->descs[outs[0]];
		if (od->type != WNN_F32 && od->type != WNN_F16)
			continue;
		struct wnn_conv2d_attrs pc;
		uint32_t cdim = od->rank - 1;
		if (k == WNN_OP_CONV2D) {
			if (wnn_resolve_conv2d(op, g->descs, n_opd, &pc, &quiet))
				continue;
			cdim = pc.nhwc ? 3 : 1;
		}
		fuse_chain(b, f, i, outs[0], cdim, cons, user, prod, is_out, e);
		/* A conv on the gemm path whose result only feeds a concat along the channels:
		 * the gemm (and its epilogue) writes straight into the concat's output. */
		uint32_t cur = e->output;
		if (k != WNN_OP_CONV2D || od->type != WNN_F32 || !conv_uses_gemm(&pc) ||
		    cons[cur] != 1 || is_out[cur])
			continue;
		const Webnn__Ipc__Operation *cop = g->info->operations[user[cur]];
		struct wnn_concat_attrs pk;
		if (wnn_op_from_id(cop->op) != WNN_OP_CONCAT ||
		    wnn_resolve_concat(cop, g->descs, n_opd, &pk, &quiet) || pk.axis != cdim)
			continue;
		uint32_t off = 0, pos = 0, seen = 0;
		for (size_t q = 0; q < pk.n_inputs; q++) {
			if (pk.inputs[q] == cur) {
				seen++;
				pos = off;
			}
			off += wnn_concat_size(&pk, g->descs, q);
		}
		if (seen != 1)
			continue;
		e->used = true;
		e->concat = true;
		e->concat_output = pk.output;
		e->ch_off = pos;
		e->ch_total = pk.out_axis;
		f->concat_done[cur] = 1;
	}
out:
	free(cons);
	free(user);
	free(prod);
	free(is_out);
	free(ids);
	return b->diag->status;
}

/* Appends gemm_epilogue over an A x C x B result: dst = act(src + v1[c] + v2[c] + r).
 * ss/ds: element offset, a stride and c stride of source and destination (b stride 1); the
 * c stride is 1 on both sides (B == 1), or the source is [C][A] (transposed, ss[1] == 1,
 * ss[2] == A), or B > 1. */
static void epilogue_step(struct ocl_build *b, uint32_t src, uint32_t dst, uint32_t v1,
			  uint32_t v2, uint32_t r, size_t A, size_t C, size_t B,
			  const uint64_t ss[3], const uint64_t ds[3], const struct ocl_epi *e)
{
	unsigned flags = (v1 != NONE ? 1u : 0) | (v2 != NONE ? 2u : 0) | (r != NONE ? 4u : 0) |
			 ((unsigned)(e ? e->act : 0) << 4);
	unsigned mode = B > 1 ? 2 : ss[2] != 1 ? 1 : 0;
	cl_program prog;
	if (FAILED(b) || ocl_epilogue_program(b, flags, mode, &prog))
		return;
	ocl_check_u32(b, ss[0] + A * ss[1] + C * ss[2] + B, "epilogue source");
	ocl_check_u32(b, ds[0] + A * ds[1] + C * ds[2] + B, "epilogue destination");
	struct ocl_step *s = ocl_step_kernel(b, prog, "gemm_epilogue");
	cl_uint ca = (cl_uint)A, cc = (cl_uint)C, cb = (cl_uint)B;
	cl_uint4 vs = { { (cl_uint)ss[0], (cl_uint)ss[1], (cl_uint)ss[2], 1 } };
	cl_uint4 vd = { { (cl_uint)ds[0], (cl_uint)ds[1], (cl_uint)ds[2], 1 } };
	cl_float lo = e ? e->lo : 0, hi = e ? e->hi : 0;
	ocl_arg_mem(b, s, 0, src);
	ocl_arg_mem(b, s, 1, dst);
	ocl_arg_mem(b, s, 2, v1 != NONE ? v1 : dst);
	ocl_arg_mem(b, s, 3, v2 != NONE ? v2 : dst);
	ocl_arg_mem(b, s, 4, r != NONE ? r : dst);
	ocl_arg(b, s, 5, sizeof ca, &ca);
	ocl_arg(b, s, 6, sizeof cc, &cc);
	ocl_arg(b, s, 7, sizeof cb, &cb);
	ocl_arg(b, s, 8, sizeof vs, &vs);
	ocl_arg(b, s, 9, sizeof vd, &vd);
	ocl_arg(b, s, 10, sizeof lo, &lo);
	ocl_arg(b, s, 11, sizeof hi, &hi);
	if (B == 1)
		ocl_step_range3(s, C, 1, A);
	else
		ocl_step_range3(s, B, C, A);
}

/* Whether an epilogue does more than the bias. */
static bool epi_extra(const struct ocl_epi *e)
{
	return e && (e->act || e->vec != NONE || e->res != NONE);
}

/* ------------------------------------------------------------------ elementwise */

static enum webnn_status ew_program(struct ocl_build *b, enum wnn_dtype t, cl_program *out)
{
	struct ocl_device *dev = b->plan->ctx->dev;
	char prefix[512];
	bool fl = t == WNN_F32 || t == WNN_F16;
	bool is_signed = t == WNN_I32 || t == WNN_I64 || t == WNN_I8;
	if (t == WNN_F32)
		snprintf(prefix, sizeof prefix,
			 "#define T float\n#define ACC float\n#define FACC float\n#define IS_FLOAT 1\n"
			 "#define LD(p, i) ((p)[i])\n#define ST(p, i, v) ((p)[i] = (float)(v))\n"
			 "#define CONVERT_SAT(v) (v)\n");
	else if (t == WNN_F16)
		snprintf(prefix, sizeof prefix,
			 "#define T half\n#define ACC float\n#define FACC float\n#define IS_FLOAT 1\n"
			 "#define LD(p, i) vload_half((i), (p))\n"
			 "#define ST(p, i, v) vstore_half_rte((float)(v), (i), (p))\n"
			 "#define CONVERT_SAT(v) (v)\n");
	else
		snprintf(prefix, sizeof prefix,
			 "%s#define T %s\n#define ACC %s\n#define FACC %s\n#define IS_INT 1\n"
			 "#define LD(p, i) ((ACC)(p)[i])\n#define ST(p, i, v) ((p)[i] = (T)(v))\n"
			 "#define CONVERT_SAT(v) convert_%s_sat_rte(v)\n",
			 dev->fp64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "",
			 ocl_cl_types[t], is_signed ? "long" : "ulong", dev->fp64 ? "double" : "float",
			 ocl_cl_types[t]);
	/* One kernel per operator that exists for this type, from the ops.def expressions. */
	size_t cap = 8192, len = 0;
	char *suffix = malloc(cap);
	if (!suffix)
		return wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
	suffix[0] = 0;
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		uint32_t fam = wnn_ops[op].attrs;
		bool bin = fam == WEBNN__IPC__OPERATION__ATTRS_BINARY;
		if ((!bin && fam != WEBNN__IPC__OPERATION__ATTRS_UNARY) ||
		    !(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
			continue;
		const char *expr = NULL, *macro = bin ? "EWB" : "EWU";
		if (op == WNN_OP_POW && !fl)
			expr = "ew_ipow(a, b)"; /* exact, as the reference: see elementwise.cl */
		else if (fl && wnn_ops[op].has_float_expr)
			expr = ew_exprs[op].fexpr;
		else if (!fl && wnn_ops[op].has_int_expr)
			expr = ew_exprs[op].iexpr;
		else if (!fl && bin && wnn_ops[op].has_float_expr) {
			expr = ew_exprs[op].fexpr;
			macro = "EWBF";
		}
		if (!expr)
			continue;
		size_t need = strlen(expr) + strlen(wnn_ops[op].name) + 32;
		if (len + need >= cap) {
			cap = (cap + need) * 2;
			char *n = realloc(suffix, cap);
			if (!n) {
				free(suffix);
				return wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY,
						    "%s: out of memory", b->what);
			}
			suffix = n;
		}
		len += (size_t)snprintf(suffix + len, cap - len, "%s(%s, %s, %s)\n", macro,
					wnn_ops[op].name,
					wnn_ops[op].out == WNN_OUT_U8 ? "U8" : "SAME", expr);
	}
	enum webnn_status st = ocl_program_get(b->plan->ctx->be, dev, "elementwise.cl", prefix,
					       suffix, OCL_CL_OPTIONS, out, b->diag);
	free(suffix);
	return st;
}

static void lower_binary(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_binary_attrs p;
	if (wnn_resolve_binary(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t sa = ocl_operand_slot(b, p.a), sb = ocl_operand_slot(b, p.b);
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || ew_program(b, p.type, &prog))
		return;
	uint64_t in[2][WNN_MAX_RANK], out[2][WNN_MAX_RANK];
	uint32_t odims[WNN_MAX_RANK];
	for (uint32_t d = 0; d < p.bc.rank; d++) {
		in[0][d] = p.bc.strides[0][d];
		in[1][d] = p.bc.strides[1][d];
	}
	uint32_t r = collapse(p.bc.rank, p.bc.dims, 2, in, odims, out);
	cl_uint rank = r;
	if (p.bc.same_shape[0] && p.bc.same_shape[1])
		rank = 0;
	char name[64];
	snprintf(name, sizeof name, "ew_%s", wnn_ops[kind].name);
	struct ocl_step *s = ocl_step_kernel(b, prog, name);
	cl_uint n = (cl_uint)p.bc.count;
	cl_uint8 vd = ocl_u8dims(r, odims), va = u8vec(r, out[0]), vb = u8vec(r, out[1]);
	ocl_arg_mem(b, s, 0, sa);
	ocl_arg_mem(b, s, 1, sb);
	ocl_arg_mem(b, s, 2, so);
	ocl_arg(b, s, 3, sizeof n, &n);
	ocl_arg(b, s, 4, sizeof rank, &rank);
	ocl_arg(b, s, 5, sizeof vd, &vd);
	ocl_arg(b, s, 6, sizeof va, &va);
	ocl_arg(b, s, 7, sizeof vb, &vb);
	ocl_step_range1(s, p.bc.count);
}

/* identity/reshape: the output aliases the input unless it is a graph output. */
static void lower_alias(struct ocl_build *b, uint32_t input, uint32_t output)
{
	struct backend_plan *p = b->plan;
	uint32_t src = ocl_operand_slot(b, input);
	if (FAILED(b))
		return;
	if (p->operand_slot[output] == UINT32_MAX) {
		p->operand_slot[output] = src;
		return;
	}
	ocl_step_copy(b, src, 0, p->operand_slot[output], 0, desc_bytes(b, output));
}

static void lower_unary(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_unary_attrs p;
	if (wnn_resolve_unary(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	if (kind == WNN_OP_IDENTITY) {
		lower_alias(b, p.input, p.output);
		return;
	}
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || ew_program(b, p.type, &prog))
		return;
	char name[64];
	snprintf(name, sizeof name, "ew_%s", wnn_ops[kind].name);
	struct ocl_step *s = ocl_step_kernel(b, prog, name);
	cl_uint n = (cl_uint)p.count;
	cl_float alpha = (cl_float)p.alpha, beta = (cl_float)p.beta;
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg(b, s, 2, sizeof n, &n);
	ocl_arg(b, s, 3, sizeof alpha, &alpha);
	ocl_arg(b, s, 4, sizeof beta, &beta);
	ocl_step_range1(s, p.count);
}

static void lower_clamp(struct ocl_build *b)
{
	struct wnn_clamp_attrs p;
	if (wnn_resolve_clamp(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || ew_program(b, p.type, &prog))
		return;
	struct ocl_step *s = ocl_step_kernel(b, prog, "ew_clamp");
	cl_uint n = (cl_uint)p.count;
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg(b, s, 2, sizeof n, &n);
	if (p.type == WNN_F32 || p.type == WNN_F16) {
		cl_float lo = (cl_float)p.min, hi = (cl_float)p.max;
		ocl_arg(b, s, 3, sizeof lo, &lo);
		ocl_arg(b, s, 4, sizeof hi, &hi);
	} else if (p.type == WNN_U32 || p.type == WNN_U64 || p.type == WNN_U8) {
		cl_ulong lo = p.min_u, hi = p.max_u;
		ocl_arg(b, s, 3, sizeof lo, &lo);
		ocl_arg(b, s, 4, sizeof hi, &hi);
	} else {
		cl_long lo = p.min_i, hi = p.max_i;
		ocl_arg(b, s, 3, sizeof lo, &lo);
		ocl_arg(b, s, 4, sizeof hi, &hi);
	}
	ocl_step_range1(s, p.count);
}

static void lower_softmax(struct ocl_build *b)
{
	struct wnn_softmax_attrs p;
	if (wnn_resolve_softmax(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	ocl_check_u32(b, p.outer * p.axis_size * p.inner, "softmax input");
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || ew_program(b, p.type, &prog))
		return;
	struct ocl_step *s = ocl_step_kernel(b, prog, "softmax");
	cl_uint outer = (cl_uint)p.outer, axis = (cl_uint)p.axis_size, inner = (cl_uint)p.inner;
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg(b, s, 2, sizeof outer, &outer);
	ocl_arg(b, s, 3, sizeof axis, &axis);
	ocl_arg(b, s, 4, sizeof inner, &inner);
	ocl_step_range1(s, p.outer * p.inner);
}

static void lower_batchnorm(struct ocl_build *b)
{
	struct wnn_batchnorm_attrs p;
	if (wnn_resolve_batchnorm(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t sx = ocl_operand_slot(b, p.input), sm = ocl_operand_slot(b, p.mean);
	uint32_t sv = ocl_operand_slot(b, p.variance);
	uint32_t ss = p.has_scale ? ocl_operand_slot(b, p.scale) : sm;
	uint32_t sb = p.has_bias ? ocl_operand_slot(b, p.bias) : sm;
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || ew_program(b, p.type, &prog))
		return;
	struct ocl_step *s = ocl_step_kernel(b, prog, "batchnorm");
	size_t count = ocl_desc_count(b, p.input);
	cl_uint n = (cl_uint)count, ch = (cl_uint)p.channels, inner = (cl_uint)p.inner;
	cl_float eps = (cl_float)p.epsilon;
	cl_uint hs = p.has_scale, hb = p.has_bias;
	ocl_arg_mem(b, s, 0, sx);
	ocl_arg_mem(b, s, 1, sm);
	ocl_arg_mem(b, s, 2, sv);
	ocl_arg_mem(b, s, 3, ss);
	ocl_arg_mem(b, s, 4, sb);
	ocl_arg_mem(b, s, 5, so);
	ocl_arg(b, s, 6, sizeof n, &n);
	ocl_arg(b, s, 7, sizeof ch, &ch);
	ocl_arg(b, s, 8, sizeof inner, &inner);
	ocl_arg(b, s, 9, sizeof eps, &eps);
	ocl_arg(b, s, 10, sizeof hs, &hs);
	ocl_arg(b, s, 11, sizeof hb, &hb);
	ocl_step_range1(s, count);
}

/* ------------------------------------------------------------------ data movement */

static void lower_transpose(struct ocl_build *b)
{
	struct wnn_transpose_attrs p;
	if (wnn_resolve_transpose(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	if (FAILED(b))
		return;
	uint64_t dstr[WNN_MAX_RANK];
	wnn_shape_strides(p.rank, p.out_dims, dstr);
	copy_nd(b, p.type, si, 0, so, 0, p.rank, p.out_dims, p.in_strides, dstr);
}

static void lower_concat(struct ocl_build *b)
{
	struct wnn_concat_attrs p;
	if (wnn_resolve_concat(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t so = ocl_output_slot(b, p.output);
	uint64_t off = 0;
	for (size_t i = 0; i < p.n_inputs && !FAILED(b); i++) {
		uint32_t size = wnn_concat_size(&p, b->g->descs, i);
		if (b->fusion && b->fusion->concat_done[p.inputs[i]]) {
			off += size; /* its producer wrote it in place */
			continue;
		}
		uint32_t si = ocl_operand_slot(b, p.inputs[i]);
		if (FAILED(b))
			return;
		uint32_t dims[2] = { (uint32_t)p.outer, (uint32_t)(size * p.inner) };
		uint64_t sstr[2] = { size * p.inner, 1 };
		uint64_t dstr[2] = { (uint64_t)p.out_axis * p.inner, 1 };
		copy_nd(b, p.type, si, 0, so, off * p.inner, 2, dims, sstr, dstr);
		off += size;
	}
}

static void lower_reshape(struct ocl_build *b)
{
	struct wnn_reshape_attrs p;
	if (wnn_resolve_reshape(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	lower_alias(b, p.input, p.output);
}

/* ------------------------------------------------------------------ pooling */

static void lower_pool(struct ocl_build *b)
{
	struct wnn_pool2d_attrs p;
	if (wnn_resolve_pool2d(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (FAILED(b) || ocl_typed_program(b, "pool.cl", p.type, &prog))
		return;
	uint32_t v[13] = { p.c, p.h, p.w, p.out_h, p.out_w, p.win_h, p.win_w, p.stride_h,
			   p.stride_w, p.dil_h, p.dil_w, p.pad_top, p.pad_left };
	cl_uint16 pp;
	memset(&pp, 0, sizeof pp);
	for (int i = 0; i < 13; i++)
		pp.s[i] = v[i];
	cl_uint kind = p.kind;
	if (p.nhwc && !ocl_baseline()) {
		struct ocl_step *s = ocl_step_kernel(b, prog, "pool2d_nhwc");
		ocl_arg_mem(b, s, 0, si);
		ocl_arg_mem(b, s, 1, so);
		ocl_arg(b, s, 2, sizeof kind, &kind);
		ocl_arg(b, s, 3, sizeof pp, &pp);
		ocl_step_range3(s, p.c, p.out_w, (size_t)p.n * p.out_h);
		return;
	}
	struct ocl_step *s = ocl_step_kernel(b, prog, "pool2d");
	size_t total = (size_t)p.n * p.c * p.out_h * p.out_w;
	cl_uint n = (cl_uint)total, nhwc = p.nhwc;
	cl_uint4 is;
	for (int i = 0; i < 4; i++)
		is.s[i] = (cl_uint)p.in_stride[i];
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg(b, s, 2, sizeof n, &n);
	ocl_arg(b, s, 3, sizeof kind, &kind);
	ocl_arg(b, s, 4, sizeof nhwc, &nhwc);
	ocl_arg(b, s, 5, sizeof pp, &pp);
	ocl_arg(b, s, 6, sizeof is, &is);
	ocl_step_range1(s, total);
}

/* ------------------------------------------------------------------ convolution */

static cl_uint16 conv_params(const struct wnn_conv2d_attrs *p)
{
	cl_uint16 v;
	memset(&v, 0, sizeof v);
	uint32_t a[15] = { p->c_in_g, p->h, p->w, p->kh, p->kw, p->out_h, p->out_w, p->stride_h,
			   p->stride_w, p->dil_h, p->dil_w, p->pad_top, p->pad_left, p->groups,
			   p->n };
	for (int i = 0; i < 15; i++)
		v.s[i] = a[i];
	return v;
}

static void conv_direct(struct ocl_build *b, const struct wnn_conv2d_attrs *p,
			const struct ocl_epi *e)
{
	uint32_t si = ocl_operand_slot(b, p->input), sf = ocl_operand_slot(b, p->filter);
	uint32_t sb = p->has_bias ? ocl_operand_slot(b, p->bias) : sf;
	uint32_t sv = e && e->vec != NONE ? ocl_operand_slot(b, e->vec) : sf;
	uint32_t sr = e && e->res != NONE ? ocl_operand_slot(b, e->res) : sf;
	uint32_t so = ocl_output_slot(b, e ? e->output : p->output);
	cl_program prog;
	if (FAILED(b) || ocl_typed_program(b, "conv.cl", p->type, &prog))
		return;
	struct ocl_step *s = ocl_step_kernel(b, prog, "conv2d_direct");
	size_t total = (size_t)p->n * p->c_out * p->out_h * p->out_w;
	cl_uint n = (cl_uint)total, nhwc = p->nhwc;
	cl_uint16 pp = conv_params(p);
	pp.s[13] = p->c_out_g;
	pp.s[14] = p->c_out;
	pp.s[15] = p->has_bias;
	cl_uint4 is, fs;
	for (int i = 0; i < 4; i++) {
		is.s[i] = (cl_uint)p->in_stride[i];
		fs.s[i] = (cl_uint)p->filter_stride[i];
	}
	cl_uint flags = (e && e->vec != NONE ? 2u : 0) | (e && e->res != NONE ? 4u : 0) |
			((cl_uint)(e ? e->act : 0) << 4);
	cl_float lo = e ? e->lo : 0, hi = e ? e->hi : 0;
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, sf);
	ocl_arg_mem(b, s, 2, sb);
	ocl_arg_mem(b, s, 3, sv);
	ocl_arg_mem(b, s, 4, sr);
	ocl_arg_mem(b, s, 5, so);
	ocl_arg(b, s, 6, sizeof n, &n);
	ocl_arg(b, s, 7, sizeof nhwc, &nhwc);
	ocl_arg(b, s, 8, sizeof pp, &pp);
	ocl_arg(b, s, 9, sizeof is, &is);
	ocl_arg(b, s, 10, sizeof fs, &fs);
	ocl_arg(b, s, 11, sizeof flags, &flags);
	ocl_arg(b, s, 12, sizeof lo, &lo);
	ocl_arg(b, s, 13, sizeof hi, &hi);
	ocl_step_range1(s, total);
}

enum filter_order { FILTER_GEMM, FILTER_HWO, FILTER_KN };

/* The filter as float32 in the layout a kernel reads: FILTER_GEMM is OHWI for nhwc and OIHW
 * for nchw (o, then the patch in the order im2col writes it); FILTER_HWO is [KH][KW][O][I]
 * (for depthwise, I = 1: one channel vector per tap); FILTER_KN is [KH][KW][I][O] (the nhwc
 * patch index, then o: small_gemm's W). */
static uint32_t conv_filter(struct ocl_build *b, const struct wnn_conv2d_attrs *p,
			    enum filter_order order)
{
	const uint64_t *fs = p->filter_stride; /* (o, i, ky, kx) */
	uint32_t dims[4];
	uint64_t sstr[4];
	if (order == FILTER_HWO) {
		uint32_t d[4] = { p->kh, p->kw, p->c_out, p->c_in_g };
		uint64_t s[4] = { fs[2], fs[3], fs[0], fs[1] };
		memcpy(dims, d, sizeof d);
		memcpy(sstr, s, sizeof s);
	} else if (order == FILTER_KN) {
		uint32_t d[4] = { p->kh, p->kw, p->c_in_g, p->c_out };
		uint64_t s[4] = { fs[2], fs[3], fs[1], fs[0] };
		memcpy(dims, d, sizeof d);
		memcpy(sstr, s, sizeof s);
	} else if (p->nhwc) {
		uint32_t d[4] = { p->c_out, p->kh, p->kw, p->c_in_g };
		uint64_t s[4] = { fs[0], fs[2], fs[3], fs[1] };
		memcpy(dims, d, sizeof d);
		memcpy(sstr, s, sizeof s);
	} else {
		uint32_t d[4] = { p->c_out, p->c_in_g, p->kh, p->kw };
		uint64_t s[4] = { fs[0], fs[1], fs[2], fs[3] };
		memcpy(dims, d, sizeof d);
		memcpy(sstr, s, sizeof s);
	}
	uint64_t dstr[4];
	wnn_shape_strides(4, dims, dstr);
	/* Size-1 dimensions place nothing: only the others' strides must match. */
	bool dense = true;
	for (int d = 0; d < 4; d++)
		dense = dense && (dims[d] == 1 || sstr[d] == dstr[d]);
	size_t count = ocl_desc_count(b, p->filter);
	const void *host = const_data(b, p->filter);
	if (dense)
		return ocl_f32_slot(b, p->filter);
	if (host) {
		/* Reordered (and widened) once, on the host, at compile time. */
		float *f = malloc(count * sizeof *f);
		uint32_t id = UINT32_MAX;
		if (!f) {
			wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
			return UINT32_MAX;
		}
		for (size_t i = 0; i < count; i++) {
			size_t j = i, src = 0;
			for (int d = 3; d >= 0; d--) {
				src += (j % dims[d]) * sstr[d];
				j /= dims[d];
			}
			f[i] = p->type == WNN_F16 ? wnn_f16_to_f32(((const uint16_t *)host)[src])
						  : ((const float *)host)[src];
		}
		ocl_slot_const(b, f, count * sizeof *f, &id);
		free(f);
		return id;
	}
	uint32_t src = ocl_f32_slot(b, p->filter);
	uint32_t dst = ocl_slot_new_temp(b, count * 4);
	copy_nd(b, WNN_F32, src, 0, dst, 0, 4, dims, sstr, dstr);
	return dst;
}

/* Depthwise float32 convolution with the vectorised kernels (dw_nhwc needs C % 4 == 0). */
static void conv_dw(struct ocl_build *b, const struct wnn_conv2d_attrs *p, const struct ocl_epi *e)
{
	uint32_t si = ocl_operand_slot(b, p->input);
	uint32_t sf = conv_filter(b, p, p->nhwc ? FILTER_HWO : FILTER_GEMM);
	uint32_t sb = p->has_bias ? ocl_f32_slot(b, p->bias) : NONE;
	uint32_t sv = e && e->vec != NONE ? ocl_f32_slot(b, e->vec) : NONE;
	uint32_t sr = e && e->res != NONE ? ocl_f32_slot(b, e->res) : NONE;
	uint32_t so = ocl_output_slot(b, e ? e->output : p->output);
	cl_program prog;
	if (FAILED(b) || ocl_typed_program(b, "conv.cl", WNN_F32, &prog))
		return;
	/* the widest channel vector that divides C */
	unsigned vw = p->c_out % 16 == 0 ? 16 : p->c_out % 8 == 0 ? 8 : 4;
	struct ocl_step *s = ocl_step_kernel(b, prog, !p->nhwc ? "dw_nchw"
						   : vw == 16 ? "dw_nhwc16"
						   : vw == 8  ? "dw_nhwc8"
							      : "dw_nhwc4");
	cl_uint16 pp = conv_params(p);
	pp.s[0] = p->c_out;
	pp.s[13] = (sb != NONE ? 1u : 0) | (sv != NONE ? 2u : 0) | (sr != NONE ? 4u : 0) |
		   ((cl_uint)(e ? e->act : 0) << 4);
	pp.s[14] = pp.s[15] = 0;
	cl_float lo = e ? e->lo : 0, hi = e ? e->hi : 0;
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, sf);
	ocl_arg_mem(b, s, 2, sb != NONE ? sb : sf);
	ocl_arg_mem(b, s, 3, sv != NONE ? sv : sf);
	ocl_arg_mem(b, s, 4, sr != NONE ? sr : sf);
	ocl_arg_mem(b, s, 5, so);
	ocl_arg(b, s, 6, sizeof pp, &pp);
	ocl_arg(b, s, 7, sizeof lo, &lo);
	ocl_arg(b, s, 8, sizeof hi, &hi);
	/* Sizes as the kernels' DW_XB / DW_XN. */
	if (p->nhwc)
		ocl_step_range3(s, p->c_out / vw, (p->out_w + 7) / 8, (size_t)p->n * p->out_h);
	else
		ocl_step_range3(s, (p->out_w + 7) / 8, p->out_h, (size_t)p->n * p->c_out);
}

/* small_gemm's range: NHWC convs with at most this many output channels and patch values
 * (measured on PoCL/AVX-512 against CLBlast's tuned Xgemm: tests/bench_ops.c). */
#define SMALL_GEMM_N 160
#define SMALL_GEMM_K 1024

/* out[rows][n] (row stride dst3[1], from element dst3[0]) = epilogue(A . W), A [rows][K] with
 * row stride lda, W [K][N]. */
static void small_gemm(struct ocl_build *b, uint32_t sa, size_t lda, uint32_t sw, uint32_t sbias,
		       const struct ocl_epi *e, uint32_t sout, size_t rows, size_t n, size_t k,
		       const uint64_t dst3[3])
{
	uint32_t sv = e && e->vec != NONE ? ocl_f32_slot(b, e->vec) : NONE;
	uint32_t sr = e && e->res != NONE ? ocl_f32_slot(b, e->res) : NONE;
	cl_program prog;
	if (FAILED(b) || ocl_typed_program(b, "conv.cl", WNN_F32, &prog))
		return;
	unsigned vw = n % 16 == 0 ? 16 : 8;
	struct ocl_step *s = ocl_step_kernel(b, prog, vw == 16 ? "small_gemm16" : "small_gemm8");
	ocl_check_u32(b, dst3[0] + rows * dst3[1], "conv2d output");
	cl_uint cm = (cl_uint)rows, cn = (cl_uint)n, ck = (cl_uint)k, clda = (cl_uint)lda;
	cl_uint ldo = (cl_uint)dst3[1], off = (cl_uint)dst3[0];
	cl_uint flags = (sbias != NONE ? 1u : 0) | (sv != NONE ? 2u : 0) | (sr != NONE ? 4u : 0) |
			((cl_uint)(e ? e->act : 0) << 4);
	cl_float lo = e ? e->lo : 0, hi = e ? e->hi : 0;
	ocl_arg_mem(b, s, 0, sa);
	ocl_arg_mem(b, s, 1, sw);
	ocl_arg_mem(b, s, 2, sbias != NONE ? sbias : sw);
	ocl_arg_mem(b, s, 3, sv != NONE ? sv : sw);
	ocl_arg_mem(b, s, 4, sr != NONE ? sr : sw);
	ocl_arg_mem(b, s, 5, sout);
	ocl_arg(b, s, 6, sizeof cm, &cm);
	ocl_arg(b, s, 7, sizeof cn, &cn);
	ocl_arg(b, s, 8, sizeof ck, &ck);
	ocl_arg(b, s, 9, sizeof clda, &clda);
	ocl_arg(b, s, 10, sizeof ldo, &ldo);
	ocl_arg(b, s, 11, sizeof off, &off);
	ocl_arg(b, s, 12, sizeof flags, &flags);
	ocl_arg(b, s, 13, sizeof lo, &lo);
	ocl_arg(b, s, 14, sizeof hi, &hi);
	ocl_step_range3(s, n / vw, (rows + 7) / 8, 1); /* SG_R rows per item */
}

/* Output channels up to this many are computed as the transposed product (channels as the
 * GEMM's M): the tuned Xgemm tile is 64 x 128 (MWG x NWG), so N = 16 would waste 7/8 of it. */
#define SMALL_N 64

static void conv_gemm(struct ocl_build *b, const struct wnn_conv2d_attrs *p, const struct ocl_epi *e)
{
	bool f16 = p->type == WNN_F16;
	size_t P = (size_t)p->out_h * p->out_w;
	size_t Kg = (size_t)p->c_in_g * p->kh * p->kw;
	size_t out_count = (size_t)p->n * p->c_out * P;
	size_t rows = (size_t)p->n * P;
	/* NHWC with few channels: small_gemm (epilogue included) instead of CLBlast */
	bool small = !ocl_baseline() && !f16 && p->nhwc && p->groups == 1 && p->c_out % 8 == 0 &&
		     p->c_out <= SMALL_GEMM_N && Kg <= SMALL_GEMM_K;
	uint32_t sx = ocl_f32_slot(b, p->input);
	uint32_t sw = conv_filter(b, p, small ? FILTER_KN : FILTER_GEMM);
	/* Where the result lands: the output operand, or a channel slice of a concat's output. */
	bool in_concat = e && e->concat;
	size_t ch_total = in_concat ? e->ch_total : p->c_out, ch_off = in_concat ? e->ch_off : 0;
	uint32_t sout = ocl_output_slot(b, in_concat ? e->concat_output
					: e		? e->output
							: p->output);
	/* (element offset, a stride, c stride) of the destination seen as [A][C][B] */
	uint64_t dst3[3];
	size_t A = p->nhwc ? rows : p->n, B = p->nhwc ? 1 : P;
	if (p->nhwc) {
		dst3[0] = ch_off;
		dst3[1] = ch_total;
		dst3[2] = 1;
	} else {
		dst3[0] = ch_off * P;
		dst3[1] = ch_total * P;
		dst3[2] = P;
	}
	bool swap = !small && !ocl_baseline() && !f16 && p->nhwc && p->groups == 1 &&
		    p->c_out <= SMALL_N && rows >= 2 * SMALL_N;
	bool epi = !small && (epi_extra(e) || swap);
	/* gemm target: the destination itself, or a float32 temp ([C][rows] when swapped) */
	uint32_t sy = sout;
	uint64_t y3[3];
	memcpy(y3, dst3, sizeof y3);
	if (swap || f16) {
		sy = ocl_slot_new_temp(b, out_count * 4);
		if (swap) {
			y3[0] = 0;
			y3[1] = 1;
			y3[2] = rows;
		} else {
			y3[0] = 0;
			y3[1] = p->nhwc ? p->c_out : p->c_out * P;
			y3[2] = p->nhwc ? 1 : P;
		}
	}
	if (FAILED(b))
		return;
	ocl_check_u32(b, (uint64_t)p->n * p->groups * Kg * P, "im2col buffer");
	float beta = 0;
	uint32_t sbias = p->has_bias ? ocl_f32_slot(b, p->bias) : NONE;
	if (sbias != NONE && !epi && !small) {
		/* The target starts as the broadcast bias; the gemm accumulates onto it. */
		uint32_t dims[3] = { (uint32_t)A, p->c_out, (uint32_t)B };
		uint64_t ss[3] = { 0, 1, 0 }, ds[3] = { y3[1], y3[2], 1 };
		copy_nd(b, WNN_F32, sbias, 0, sy, y3[0], 3, dims, ss, ds);
		beta = 1;
	}
	bool direct_1x1 = p->kh == 1 && p->kw == 1 && p->stride_h == 1 && p->stride_w == 1 &&
			  p->pad_top == 0 && p->pad_bottom == 0 && p->pad_left == 0 &&
			  p->pad_right == 0;
	uint32_t scol = sx;
	if (!direct_1x1) {
		size_t col = (size_t)p->n * p->groups * Kg * P;
		/* NHWC: one item per filter row (im2col_nhwc) or, in the first version, per tap */
		bool rows_kernel = p->nhwc && !ocl_baseline();
		size_t total = rows_kernel ? (size_t)p->groups * p->n * P * p->kh
			       : p->nhwc   ? (size_t)p->groups * p->n * P * p->kh * p->kw
					   : (size_t)p->n * p->groups * Kg * p->out_h;
		cl_program prog;
		if (ocl_typed_program(b, "conv.cl", WNN_F32, &prog))
			return;
		scol = ocl_slot_new_temp(b, col * 4);
		struct ocl_step *s = ocl_step_kernel(b, prog, rows_kernel ? "im2col_nhwc" : "im2col");
		cl_uint n = (cl_uint)total, nhwc = p->nhwc;
		cl_uint16 pp = conv_params(p);
		cl_uint4 is;
		/* f32_slot may have converted float16 input: same dense layout either way. */
		for (int i = 0; i < 4; i++)
			is.s[i] = (cl_uint)p->in_stride[i];
		cl_uint a = 0;
		ocl_arg_mem(b, s, a++, sx);
		ocl_arg_mem(b, s, a++, scol);
		ocl_arg(b, s, a++, sizeof n, &n);
		if (!rows_kernel)
			ocl_arg(b, s, a++, sizeof nhwc, &nhwc);
		ocl_arg(b, s, a++, sizeof pp, &pp);
		ocl_arg(b, s, a++, sizeof is, &is);
		ocl_step_range1(s, total);
	}
	if (FAILED(b))
		return;
	if (small) {
		small_gemm(b, scol, direct_1x1 ? p->c_in : Kg, sw, sbias, e, sout, rows, p->c_out,
			   Kg, dst3);
		return;
	}
	struct ocl_gemm gm;
	memset(&gm, 0, sizeof gm);
	gm.alpha = 1;
	gm.beta = beta;
	size_t G = p->groups, N = p->n, OCg = p->c_out_g, ICg = p->c_in_g;
	size_t batch = p->nhwc ? G : N * G;
	size_t *offs = malloc(3 * batch * sizeof *offs);
	if (!offs) {
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
		return;
	}
	size_t *ao = offs, *bo = offs + batch, *co = offs + 2 * batch;
	if (swap) {
		/* outT[o][(n,y,x)] = sum_k W[o][k] * col[(n,y,x)][k]; the epilogue transposes */
		gm.m = OCg;
		gm.n = rows;
		gm.k = Kg;
		gm.a = sw;
		gm.lda = Kg;
		gm.b = scol;
		gm.b_trans = true;
		gm.ldb = direct_1x1 ? p->c_in_g : Kg;
		gm.c = sy;
		gm.ldc = rows;
		ao[0] = bo[0] = co[0] = 0;
	} else if (p->nhwc) {
		/* out[(n,y,x)][g*OCg + o] = sum_k col_g[(n,y,x)][k] * W[g*OCg + o][k] */
		gm.m = rows;
		gm.n = OCg;
		gm.k = Kg;
		gm.a = scol;
		gm.lda = direct_1x1 ? p->c_in_g * G : Kg;
		gm.b = sw;
		gm.b_trans = true;
		gm.ldb = Kg;
		gm.c = sy;
		gm.ldc = y3[1];
		for (size_t g = 0; g < G; g++) {
			ao[g] = direct_1x1 ? g * ICg : g * N * P * Kg;
			bo[g] = g * OCg * Kg;
			co[g] = y3[0] + g * OCg;
		}
	} else {
		/* out[n][g*OCg + o][p] = sum_k W[g*OCg + o][k] * col[n][g][k][p] */
		gm.m = OCg;
		gm.n = P;
		gm.k = Kg;
		gm.a = sw;
		gm.lda = Kg;
		gm.b = scol;
		gm.ldb = P;
		gm.c = sy;
		gm.ldc = P;
		for (size_t n = 0; n < N; n++)
			for (size_t g = 0; g < G; g++) {
				size_t i = n * G + g;
				ao[i] = g * OCg * Kg;
				bo[i] = direct_1x1 ? n * p->c_in_g * G * P + g * ICg * P
						   : (n * G + g) * Kg * P;
				co[i] = y3[0] + n * y3[1] + g * OCg * P;
			}
	}
	ocl_add_gemm(b, &gm, batch, ao, bo, co);
	free(offs);
	if (epi) {
		uint32_t sv = e && e->vec != NONE ? ocl_f32_slot(b, e->vec) : NONE;
		uint32_t sr = e && e->res != NONE ? ocl_f32_slot(b, e->res) : NONE;
		/* float16: the epilogue runs in place on the float32 temp, converted below */
		uint32_t to = f16 ? sy : sout;
		epilogue_step(b, sy, to, sbias, sv, sr, A, p->c_out, B, y3, f16 ? y3 : dst3, e);
	}
	if (f16)
		ocl_convert(b, false, sy, sout, out_count);
}

static void lower_conv2d(struct ocl_build *b)
{
	struct wnn_conv2d_attrs p;
	if (wnn_resolve_conv2d(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	ocl_check_u32(b, (uint64_t)p.n * p.c_out * p.out_h * p.out_w, "conv2d output");
	if (FAILED(b))
		return;
	const struct ocl_epi *e = op_epi(b);
	if (conv_uses_gemm(&p))
		conv_gemm(b, &p, e);
	else if (p.depthwise && p.type == WNN_F32 && !ocl_baseline() && (!p.nhwc || p.c_out % 4 == 0))
		conv_dw(b, &p, e);
	else
		conv_direct(b, &p, e);
}

/* ------------------------------------------------------------------ gemm / matmul */

/* The fused epilogue of a gemm/matmul over its dense float32 result y ([rows][n]). */
static void matrix_epilogue(struct ocl_build *b, uint32_t sy, size_t rows, size_t n,
			    const struct ocl_epi *e)
{
	if (!epi_extra(e))
		return;
	uint32_t sv = e->vec != NONE ? ocl_f32_slot(b, e->vec) : NONE;
	uint32_t sr = e->res != NONE ? ocl_f32_slot(b, e->res) : NONE;
	uint64_t s3[3] = { 0, n, 1 };
	epilogue_step(b, sy, sy, NONE, sv, sr, rows, n, 1, s3, s3, e);
}

static void lower_gemm(struct ocl_build *b)
{
	struct wnn_gemm_attrs p;
	if (wnn_resolve_gemm(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	const struct ocl_epi *e = op_epi(b);
	bool f16 = p.type == WNN_F16;
	size_t mn = (size_t)p.m * p.n;
	uint32_t sa = ocl_f32_slot(b, p.a), sb = ocl_f32_slot(b, p.b);
	uint32_t sout = ocl_output_slot(b, e ? e->output : p.output);
	uint32_t sy = f16 ? ocl_slot_new_temp(b, mn * 4) : sout;
	if (FAILED(b))
		return;
	float beta = 0;
	if (p.has_c && p.beta != 0) {
		uint32_t sc = ocl_f32_slot(b, p.c);
		uint32_t dims[2] = { p.m, p.n };
		uint64_t ss[2] = { p.c_stride_m, p.c_stride_n }, ds[2] = { p.n, 1 };
		copy_nd(b, WNN_F32, sc, 0, sy, 0, 2, dims, ss, ds);
		beta = (float)p.beta;
	}
	struct ocl_gemm gm;
	memset(&gm, 0, sizeof gm);
	gm.m = p.m;
	gm.n = p.n;
	gm.k = p.k;
	gm.alpha = (float)p.alpha;
	gm.beta = beta;
	gm.a = sa;
	gm.a_trans = p.a_transpose;
	gm.lda = p.a_transpose ? p.m : p.k;
	gm.b = sb;
	gm.b_trans = p.b_transpose;
	gm.ldb = p.b_transpose ? p.k : p.n;
	gm.c = sy;
	gm.ldc = p.n;
	size_t zero = 0;
	ocl_add_gemm(b, &gm, 1, &zero, &zero, &zero);
	matrix_epilogue(b, sy, p.m, p.n, e);
	if (f16)
		ocl_convert(b, false, sy, sout, mn);
}

static void lower_matmul(struct ocl_build *b)
{
	struct wnn_matmul_attrs p;
	if (wnn_resolve_matmul(b->op, b->g->descs, b->g->n_operands, &p, b->diag))
		return;
	const struct ocl_epi *e = op_epi(b);
	bool f16 = p.type == WNN_F16;
	size_t mn = (size_t)p.m * p.n, total = mn * p.batch;
	uint32_t sa = ocl_f32_slot(b, p.a), sb = ocl_f32_slot(b, p.b);
	uint32_t sout = ocl_output_slot(b, e ? e->output : p.output);
	uint32_t sy = f16 ? ocl_slot_new_temp(b, total * 4) : sout;
	if (FAILED(b))
		return;
	struct ocl_gemm gm;
	memset(&gm, 0, sizeof gm);
	gm.m = p.m;
	gm.n = p.n;
	gm.k = p.k;
	gm.alpha = 1;
	gm.beta = 0;
	gm.a = sa;
	gm.lda = p.k;
	gm.b = sb;
	gm.ldb = p.n;
	gm.c = sy;
	gm.ldc = p.n;
	bool b_shared = true;
	for (uint32_t i = 0; i < p.batch_rank; i++)
		b_shared = b_shared && p.b_batch_strides[i] == 0;
	if (p.batch > 1 && !p.a_broadcast && b_shared) {
		/* Every a matrix against the same b: one tall gemm. */
		gm.m = (size_t)p.m * p.batch;
		size_t zero = 0;
		ocl_add_gemm(b, &gm, 1, &zero, &zero, &zero);
	} else {
		size_t *offs = malloc(3 * p.batch * sizeof *offs);
		if (!offs) {
			wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
			return;
		}
		for (uint64_t i = 0; i < p.batch; i++) {
			offs[i] = wnn_shape_offset(p.batch_rank, p.batch_dims, p.a_batch_strides, i);
			offs[p.batch + i] =
				wnn_shape_offset(p.batch_rank, p.batch_dims, p.b_batch_strides, i);
			offs[2 * p.batch + i] = i * mn;
		}
		ocl_add_gemm(b, &gm, p.batch, offs, offs + p.batch, offs + 2 * p.batch);
		free(offs);
	}
	matrix_epilogue(b, sy, (size_t)p.m * p.batch, p.n, e);
	if (f16)
		ocl_convert(b, false, sy, sout, total);
}

/* ------------------------------------------------------------------ dispatch */

enum webnn_status ocl_lower_op(struct ocl_build *b, enum wnn_op kind)
{
	switch (wnn_ops[kind].attrs) {
	case WEBNN__IPC__OPERATION__ATTRS_BINARY:
		lower_binary(b, kind);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_UNARY:
		lower_unary(b, kind);
		break;
	default:
		switch (kind) {
		case WNN_OP_CLAMP:
			lower_clamp(b);
			break;
		case WNN_OP_SOFTMAX:
			lower_softmax(b);
			break;
		case WNN_OP_BATCH_NORMALIZATION:
			lower_batchnorm(b);
			break;
		case WNN_OP_TRANSPOSE:
			lower_transpose(b);
			break;
		case WNN_OP_CONCAT:
			lower_concat(b);
			break;
		case WNN_OP_RESHAPE:
			lower_reshape(b);
			break;
		case WNN_OP_AVERAGE_POOL2D:
		case WNN_OP_L2_POOL2D:
		case WNN_OP_MAX_POOL2D:
			lower_pool(b);
			break;
		case WNN_OP_CONV2D:
			lower_conv2d(b);
			break;
		case WNN_OP_GEMM:
			lower_gemm(b);
			break;
		case WNN_OP_MATMUL:
			lower_matmul(b);
			break;
		default:
			ocl_lower_ext(b, kind);
		}
	}
	return b->diag->status;
}
