/* Plan-level fusion: conv2d/gemm/matmul epilogues and convs written into their concat slice. */
#include "daemon/backend/opencl/ocl.h"

#include <stdlib.h>
#include <string.h>

bool ocl_baseline(void)
{
	const char *e = getenv("WEBNN_OCL_BASELINE");
	return e && *e && strcmp(e, "0") != 0;
}

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

bool ocl_fusion_in_slice(const struct ocl_build *b, uint32_t operand)
{
	return b->fusion && b->fusion->concat_done[operand];
}

const struct ocl_epi *ocl_op_epi(const struct ocl_build *b)
{
	if (!b->fusion || !b->fusion->epi[b->op_index].used)
		return NULL;
	return &b->fusion->epi[b->op_index];
}

/* Depthwise and thin grouped convolutions do too little work per output for a gemm. */
bool ocl_conv_uses_gemm(const struct wnn_conv2d_attrs *p)
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
			if (prod[other] != OCL_NONE && prod[other] >= i)
				break;
			if (e->res == OCL_NONE && desc_same_shape(&g->descs[other], &g->descs[cur]))
				e->res = other;
			else if (e->vec == OCL_NONE &&
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
		prod[i] = OCL_NONE;
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
		e->vec = e->res = OCL_NONE;
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
		 * the ocl_gemm2d (and its epilogue) writes straight into the concat's output. */
		uint32_t cur = e->output;
		if (k != WNN_OP_CONV2D || od->type != WNN_F32 || !ocl_conv_uses_gemm(&pc) ||
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
