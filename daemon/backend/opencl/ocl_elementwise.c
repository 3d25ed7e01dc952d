/* OpenCL lowering of the elementwise family: unary, binary, clamp, prelu, where. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdarg.h>
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

/* The storage and compute types elementwise.cl is specialised to (T, ACC, FACC, LD, ST...). */
static void ew_prefix(const struct ocl_device *dev, enum wnn_dtype t, char *prefix, size_t len)
{
	bool is_signed = t == WNN_I32 || t == WNN_I64 || t == WNN_I8;
	if (t == WNN_F32)
		snprintf(prefix, len,
			 "#define T float\n#define ACC float\n#define FACC float\n#define IS_FLOAT 1\n"
			 "#define LD(p, i) ((p)[i])\n#define ST(p, i, v) ((p)[i] = (float)(v))\n"
			 "#define CONVERT_SAT(v) (v)\n");
	else if (t == WNN_F16)
		snprintf(prefix, len,
			 "#define T half\n#define ACC float\n#define FACC float\n#define IS_FLOAT 1\n"
			 "#define LD(p, i) vload_half((i), (p))\n"
			 "#define ST(p, i, v) vstore_half_rte((float)(v), (i), (p))\n"
			 "#define CONVERT_SAT(v) (v)\n");
	else
		snprintf(prefix, len,
			 "%s#define T %s\n#define ACC %s\n#define FACC %s\n#define IS_INT 1\n"
			 "#define LD(p, i) ((ACC)(p)[i])\n#define ST(p, i, v) ((p)[i] = (T)(v))\n"
			 "#define CONVERT_SAT(v) convert_%s_sat_rte(v)\n",
			 dev->fp64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "",
			 ocl_cl_types[t], is_signed ? "long" : "ulong", dev->fp64 ? "double" : "float",
			 ocl_cl_types[t]);
}

/* The ops.def expression of a unary/binary operator for type t (NULL: none) and whether it is
 * computed in FACC (integer binaries with only a float expression). */
static const char *ew_expr(enum wnn_op op, enum wnn_dtype t, bool *in_facc)
{
	bool fl = t == WNN_F32 || t == WNN_F16;
	bool bin = wnn_ops[op].attrs == WNN_ATTRS_BINARY;
	*in_facc = false;
	if (op == WNN_OP_POW && !fl)
		return "ew_ipow(a, b)"; /* exact, as the reference: see elementwise.cl */
	if (fl && wnn_ops[op].has_float_expr)
		return ew_exprs[op].fexpr;
	if (!fl && wnn_ops[op].has_int_expr)
		return ew_exprs[op].iexpr;
	if (!fl && bin && wnn_ops[op].has_float_expr) {
		*in_facc = true;
		return ew_exprs[op].fexpr;
	}
	return NULL;
}

static enum webnn_status elementwise_program(struct ocl_build *b, enum wnn_dtype t, cl_program *out)
{
	struct ocl_device *dev = b->plan->ctx->dev;
	char prefix[512];
	ew_prefix(dev, t, prefix, sizeof prefix);
	/* One kernel per operator that exists for this type, from the ops.def expressions. */
	size_t cap = 8192, len = 0;
	char *suffix = malloc(cap);
	if (!suffix)
		return wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
	suffix[0] = 0;
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		uint32_t fam = wnn_ops[op].attrs;
		bool bin = fam == WNN_ATTRS_BINARY;
		if ((!bin && fam != WNN_ATTRS_UNARY) ||
		    !(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
			continue;
		bool in_facc;
		const char *expr = ew_expr((enum wnn_op)op, t, &in_facc);
		const char *macro = !bin ? "EWU" : in_facc ? "EWBF" : "EWB";
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

/* where moves values only: elementwise.cl's where_select over unsigned integers of t's size. */
static enum webnn_status where_program(struct ocl_build *b, enum wnn_dtype t, cl_program *out)
{
	static const char *const by_size[9] = { [1] = "uchar", [2] = "ushort", [4] = "uint",
						[8] = "ulong" };
	char prefix[64];
	snprintf(prefix, sizeof prefix, "#define T %s\n#define WHERE_SELECT 1\n",
		 by_size[wnn_dtype_size(t)]);
	return ocl_program_get(b->plan->ctx->be, b->plan->ctx->dev, "elementwise.cl", prefix, "",
			       OCL_CL_OPTIONS, out, b->diag);
}

static void lower_binary(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_binary_attrs p = b->node->attrs.binary;
	uint32_t sa = ocl_operand_slot(b, p.a), sb = ocl_operand_slot(b, p.b);
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || elementwise_program(b, p.type, &prog))
		return;
	uint64_t in[2][WNN_MAX_RANK], out[2][WNN_MAX_RANK];
	uint32_t odims[WNN_MAX_RANK];
	for (uint32_t d = 0; d < p.bc.rank; d++) {
		in[0][d] = p.bc.strides[0][d];
		in[1][d] = p.bc.strides[1][d];
	}
	uint32_t r = ocl_collapse(p.bc.rank, p.bc.dims, 2, in, odims, out);
	cl_uint rank = r;
	if (p.bc.same_shape[0] && p.bc.same_shape[1])
		rank = 0;
	char name[64];
	snprintf(name, sizeof name, "ew_%s", wnn_ops[kind].name);
	struct ocl_step *s = ocl_step_kernel(b, prog, name);
	cl_uint n = (cl_uint)p.bc.count;
	cl_uint8 vd = ocl_u8dims(r, odims), va = ocl_u8vec(r, out[0]), vb = ocl_u8vec(r, out[1]);
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

static void lower_unary(struct ocl_build *b, enum wnn_op kind)
{
	struct wnn_unary_attrs p = b->node->attrs.unary;
	if (kind == WNN_OP_IDENTITY) {
		ocl_alias(b, p.input, p.output);
		return;
	}
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || elementwise_program(b, p.type, &prog))
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
	struct wnn_clamp_attrs p = b->node->attrs.clamp;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || elementwise_program(b, p.type, &prog))
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

/* Arguments first .. first + 2 + inputs of a broadcasting kernel: the output count, rank and
 * dims, then each input's strides. */
static void arg_broadcast(struct ocl_build *b, struct ocl_step *s, cl_uint first,
			  const struct wnn_bcast *bc, int inputs)
{
	ocl_arg_u(b, s, first, ocl_u32(b, bc->count, "output"));
	ocl_arg_u(b, s, first + 1, bc->rank);
	ocl_arg_u8(b, s, first + 2, ocl_u8dims(bc->rank, bc->dims));
	for (int i = 0; i < inputs; i++)
		ocl_arg_u8(b, s, first + 3 + (cl_uint)i, ocl_u8_wide(b, bc->rank, bc->strides[i]));
}

static void lower_prelu(struct ocl_build *b)
{
	struct wnn_prelu_attrs p = b->node->attrs.prelu;
	uint32_t si = ocl_operand_slot(b, p.input), ss = ocl_operand_slot(b, p.slope);
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || elementwise_program(b, p.type, &prog))
		return;
	struct ocl_step *s = ocl_kernel_n(b, prog, "prelu", p.bc.count);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, ss);
	ocl_arg_mem(b, s, 2, so);
	arg_broadcast(b, s, 3, &p.bc, 2);
}

static void lower_where(struct ocl_build *b)
{
	struct wnn_where_attrs p = b->node->attrs.where;
	uint32_t sc = ocl_operand_slot(b, p.condition), st = ocl_operand_slot(b, p.true_value);
	uint32_t sf = ocl_operand_slot(b, p.false_value), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || where_program(b, p.type, &prog))
		return;
	struct ocl_step *s = ocl_kernel_n(b, prog, "where_select", p.bc.count);
	ocl_arg_mem(b, s, 0, sc);
	ocl_arg_mem(b, s, 1, st);
	ocl_arg_mem(b, s, 2, sf);
	ocl_arg_mem(b, s, 3, so);
	arg_broadcast(b, s, 4, &p.bc, 3);
}

bool ocl_supports_elementwise(enum wnn_op op, enum wnn_dtype t)
{
	switch (wnn_ops[op].attrs) {
	case WNN_ATTRS_BINARY:
	case WNN_ATTRS_UNARY:
		if (op == WNN_OP_IDENTITY)
			return true;
		if (t == WNN_F32 || t == WNN_F16)
			return wnn_ops[op].has_float_expr;
		return wnn_ops[op].has_int_expr ||
		       (wnn_ops[op].attrs == WNN_ATTRS_BINARY &&
			wnn_ops[op].has_float_expr);
	default:
		return true;
	}
}

/* ------------------------------------------------------------------ elementwise chains */

/* A chain's generated kernel text, grown as needed. */
struct chain_src {
	char *s;
	size_t len, cap;
	bool oom;
};

static void src_add(struct chain_src *c, const char *fmt, ...)
{
	for (int tries = 0; tries < 2 && !c->oom; tries++) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(c->s ? c->s + c->len : NULL, c->s ? c->cap - c->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			c->oom = true;
			return;
		}
		if (c->s && c->len + (size_t)n < c->cap) {
			c->len += (size_t)n;
			return;
		}
		size_t cap = (c->cap + (size_t)n + 1) * 2;
		char *s = realloc(c->s, cap);
		if (!s) {
			c->oom = true;
			return;
		}
		c->s = s;
		c->cap = cap;
	}
}

/* The buffers a chain kernel reads: the head's inputs, then each binary member's operand from
 * outside the chain. false when there are more than a kernel step binds. */
static bool chain_buffers(const struct ocl_build *b, uint32_t *bufs, uint32_t *n_bufs)
{
	const struct graph_node *head = b->node;
	uint32_t n = 0, cur = head->outputs[0];
	switch (wnn_ops[head->op].attrs) {
	case WNN_ATTRS_UNARY:
		bufs[n++] = head->attrs.unary.input;
		break;
	case WNN_ATTRS_CLAMP:
		bufs[n++] = head->attrs.clamp.input;
		break;
	default:
		bufs[n++] = head->attrs.binary.a;
		bufs[n++] = head->attrs.binary.b;
	}
	for (uint32_t m = 1; m < head->chain.n_members; m++) {
		const struct graph_node *nd = &b->g->nodes[head->chain.members[m]];
		if (wnn_ops[nd->op].attrs == WNN_ATTRS_BINARY) {
			if (n == OCL_MAX_MEM_ARGS - 1)
				return false;
			const struct wnn_binary_attrs *p = &nd->attrs.binary;
			bufs[n++] = p->a == cur ? p->b : p->a;
		}
		cur = nd->outputs[0];
	}
	*n_bufs = n;
	return true;
}

/* How the kernel indexes buffer value v: element i, or its only element. */
static const char *chain_index(const struct ocl_build *b, uint32_t v)
{
	uint64_t count = 0;
	wnn_desc_count(&b->g->values[v].desc, &count);
	return count == 1 ? "0" : "i";
}

/* The statement of member m: v = RND(its expression), reading v (the previous member's value)
 * or buffers from *k on. */
static void chain_member(const struct ocl_build *b, const struct graph_node *nd, uint32_t m,
			 uint32_t cur, const uint32_t *bufs, uint32_t *k, enum wnn_dtype t,
			 struct chain_src *c)
{
	bool in_facc;
	switch (wnn_ops[nd->op].attrs) {
	case WNN_ATTRS_UNARY: {
		const char *expr = nd->op == WNN_OP_IDENTITY ? "x" : ew_expr(nd->op, t, &in_facc);
		if (m == 0)
			src_add(c, "\t{ ACC x = LD(S%u, i);", (*k)++);
		else
			src_add(c, "\t{ ACC x = v;");
		src_add(c, " ACC alpha = (ACC)a%u, beta = (ACC)b%u; (void)alpha; (void)beta;"
			   " v = RND(%s); }\n", m, m, expr);
		break;
	}
	case WNN_ATTRS_CLAMP:
		if (m == 0)
			src_add(c, "\t{ ACC x = LD(S%u, i);", (*k)++);
		else
			src_add(c, "\t{ ACC x = v;");
		src_add(c, " v = RND(x < l%u ? l%u : (x > h%u ? h%u : x)); }\n", m, m, m, m);
		break;
	default: {
		const struct wnn_binary_attrs *p = &nd->attrs.binary;
		const char *expr = ew_expr(nd->op, t, &in_facc), *ct = in_facc ? "FACC" : "ACC";
		char a[48], bb[48];
		if (m == 0) {
			snprintf(a, sizeof a, "LD(S%u, %s)", *k, chain_index(b, bufs[*k]));
			snprintf(bb, sizeof bb, "LD(S%u, %s)", *k + 1, chain_index(b, bufs[*k + 1]));
			*k += 2;
		} else {
			char side[48];
			snprintf(side, sizeof side, "LD(S%u, %s)", *k, chain_index(b, bufs[*k]));
			(*k)++;
			snprintf(a, sizeof a, "%s", p->a == cur ? "v" : side);
			snprintf(bb, sizeof bb, "%s", p->a == cur ? side : "v");
		}
		src_add(c, "\t{ %s a = (%s)%s, b = (%s)%s; v = RND(CVT_%s(%s)); }\n", ct, ct, a, ct,
			bb, ct, expr);
	}
	}
}

/* The kernel: each member's value rounded through the storage type as a store and a load
 * between two kernels would, so that results equal the unfused plan's bit for bit. */
static void chain_kernel(const struct ocl_build *b, enum wnn_dtype t, const uint32_t *bufs,
			 uint32_t n_bufs, struct chain_src *c)
{
	const struct graph_node *head = b->node;
	if (t == WNN_F32)
		src_add(c, "#define RND(v) ((float)(v))\n");
	else if (t == WNN_F16)
		src_add(c, "inline float chain_rnd(float v)\n{\n\tushort u;\n"
			   "\tvstore_half_rte(v, 0, (half *)&u);\n"
			   "\treturn vload_half(0, (const half *)&u);\n}\n"
			   "#define RND(v) chain_rnd((float)(v))\n");
	else
		src_add(c, "#define RND(v) ((ACC)(T)(v))\n");
	src_add(c, "__kernel void ew_chain(");
	for (uint32_t k = 0; k < n_bufs; k++)
		src_add(c, "__global const T *S%u, ", k);
	src_add(c, "__global T *O, uint n");
	for (uint32_t m = 0; m < head->chain.n_members; m++) {
		const struct graph_node *nd = &b->g->nodes[head->chain.members[m]];
		if (wnn_ops[nd->op].attrs == WNN_ATTRS_UNARY)
			src_add(c, ", float a%u, float b%u", m, m);
		else if (wnn_ops[nd->op].attrs == WNN_ATTRS_CLAMP)
			src_add(c, ", ACC l%u, ACC h%u", m, m);
	}
	src_add(c, ")\n{\n\tuint i = get_global_id(0);\n\tif (i >= n)\n\t\treturn;\n\tACC v;\n");
	uint32_t k = 0, cur = GRAPH_NONE;
	for (uint32_t m = 0; m < head->chain.n_members; m++) {
		const struct graph_node *nd = &b->g->nodes[head->chain.members[m]];
		chain_member(b, nd, m, cur, bufs, &k, t, c);
		cur = nd->outputs[0];
	}
	src_add(c, "\tST(O, i, v);\n}\n");
}

/* The scalar arguments of member m (unary alpha/beta, clamp bounds), from argument *a on. */
static void chain_scalars(struct ocl_build *b, struct ocl_step *s, const struct graph_node *nd,
			  cl_uint *a)
{
	if (wnn_ops[nd->op].attrs == WNN_ATTRS_UNARY) {
		ocl_arg_f(b, s, (*a)++, (float)nd->attrs.unary.alpha);
		ocl_arg_f(b, s, (*a)++, (float)nd->attrs.unary.beta);
	} else if (wnn_ops[nd->op].attrs == WNN_ATTRS_CLAMP) {
		const struct wnn_clamp_attrs *p = &nd->attrs.clamp;
		if (p->type == WNN_F32 || p->type == WNN_F16) {
			cl_float lo = (cl_float)p->min, hi = (cl_float)p->max;
			ocl_arg(b, s, (*a)++, sizeof lo, &lo);
			ocl_arg(b, s, (*a)++, sizeof hi, &hi);
		} else if (p->type == WNN_U32 || p->type == WNN_U64 || p->type == WNN_U8) {
			cl_ulong lo = p->min_u, hi = p->max_u;
			ocl_arg(b, s, (*a)++, sizeof lo, &lo);
			ocl_arg(b, s, (*a)++, sizeof hi, &hi);
		} else {
			cl_long lo = p->min_i, hi = p->max_i;
			ocl_arg(b, s, (*a)++, sizeof lo, &lo);
			ocl_arg(b, s, (*a)++, sizeof hi, &hi);
		}
	}
}

static void lower_node(struct ocl_build *b, enum wnn_op op);

/* An elementwise chain (the fusion pass's graph_chain) in one generated kernel; a chain that
 * reads more buffers than a step binds runs member by member on temps instead. */
static void lower_chain(struct ocl_build *b)
{
	const struct graph_node *head = b->node;
	const struct graph_node *last = &b->g->nodes[head->chain.members[head->chain.n_members - 1]];
	enum wnn_dtype t = b->g->values[last->outputs[0]].desc.type;
	for (uint32_t m = 1; m < head->chain.n_members; m++) {
		/* Members are fused: their support is checked here, as compile checks live nodes. */
		const struct graph_node *nd = &b->g->nodes[head->chain.members[m]];
		if (!ocl_supports(nd->op, t)) {
			wnn_diag_set(b->diag, WEBNN_STATUS_NOT_SUPPORTED,
				     "%s: not supported by the OpenCL backend for %s",
				     wnn_ops[nd->op].name, wnn_dtype_name(t));
			return;
		}
	}
	uint32_t bufs[OCL_MAX_MEM_ARGS], n_bufs = 0;
	if (!chain_buffers(b, bufs, &n_bufs)) {
		for (uint32_t m = 0; m < head->chain.n_members && !OCL_FAILED(b); m++) {
			b->node = &b->g->nodes[head->chain.members[m]];
			lower_node(b, b->node->op);
		}
		b->node = head;
		return;
	}
	uint32_t slots[OCL_MAX_MEM_ARGS];
	for (uint32_t k = 0; k < n_bufs; k++)
		slots[k] = ocl_operand_slot(b, bufs[k]);
	uint32_t so = ocl_output_slot(b, last->outputs[0]);
	struct chain_src src = { 0 };
	chain_kernel(b, t, bufs, n_bufs, &src);
	char prefix[512];
	ew_prefix(b->plan->ctx->dev, t, prefix, sizeof prefix);
	cl_program prog;
	if (src.oom)
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
	else if (!OCL_FAILED(b))
		ocl_program_get(b->plan->ctx->be, b->plan->ctx->dev, "elementwise.cl", prefix, src.s,
				OCL_CL_OPTIONS, &prog, b->diag);
	free(src.s);
	if (OCL_FAILED(b))
		return;
	size_t count = ocl_desc_count(b, last->outputs[0]);
	struct ocl_step *s = ocl_step_kernel(b, prog, "ew_chain");
	cl_uint a = 0;
	for (uint32_t k = 0; k < n_bufs; k++)
		ocl_arg_mem(b, s, a++, slots[k]);
	ocl_arg_mem(b, s, a++, so);
	ocl_arg_u(b, s, a++, (cl_uint)count);
	for (uint32_t m = 0; m < head->chain.n_members; m++)
		chain_scalars(b, s, &b->g->nodes[head->chain.members[m]], &a);
	ocl_step_range1(s, count);
}

static void lower_node(struct ocl_build *b, enum wnn_op op)
{
	switch (wnn_ops[op].attrs) {
	case WNN_ATTRS_BINARY:
		lower_binary(b, op);
		break;
	case WNN_ATTRS_UNARY:
		lower_unary(b, op);
		break;
	case WNN_ATTRS_CLAMP:
		lower_clamp(b);
		break;
	case WNN_ATTRS_PRELU:
		lower_prelu(b);
		break;
	case WNN_ATTRS_WHERE:
		lower_where(b);
		break;
	default:
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR, "%s: no OpenCL lowering", b->what);
	}
}

void ocl_lower_elementwise(struct ocl_build *b, enum wnn_op op)
{
	if (b->node->chain.members)
		lower_chain(b);
	else
		lower_node(b, op);
}
