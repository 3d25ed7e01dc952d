/* OpenCL lowering of the conv family: conv2d (direct, depthwise, gemm paths), convTranspose2d. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ocl_conv_uses_gemm(const struct wnn_conv2d_attrs *p)
{
	return !(p->depthwise || (p->groups > 1 && p->c_in_g * p->kh * p->kw <= 16));
}

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
			const struct graph_epilogue *e)
{
	uint32_t si = ocl_operand_slot(b, p->input), sf = ocl_operand_slot(b, p->filter);
	uint32_t sb = p->has_bias ? ocl_operand_slot(b, p->bias) : sf;
	uint32_t sv = e && e->channel != OCL_NONE ? ocl_operand_slot(b, e->channel) : sf;
	uint32_t sr = e && e->residual != OCL_NONE ? ocl_operand_slot(b, e->residual) : sf;
	uint32_t so = ocl_output_slot(b, e ? e->output : p->output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "conv.cl", p->type, &prog))
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
	cl_uint flags = (e && e->channel != OCL_NONE ? 2u : 0) | (e && e->residual != OCL_NONE ? 4u : 0) |
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
	const void *host = ocl_const_data(b, p->filter);
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
	ocl_copy_nd(b, WNN_F32, src, 0, dst, 0, 4, dims, sstr, dstr);
	return dst;
}

/* Depthwise float32 convolution with the vectorised kernels (dw_nhwc needs C % 4 == 0). */
/* The fused epilogue's flag word (bias, per-channel, residual, activation << 4) as the
 * conv.cl kernels read it. */
static cl_uint epilogue_flags(uint32_t sbias, uint32_t sv, uint32_t sr,
			      const struct graph_epilogue *e)
{
	return (sbias != OCL_NONE ? 1u : 0) | (sv != OCL_NONE ? 2u : 0) | (sr != OCL_NONE ? 4u : 0) |
	       ((cl_uint)(e ? e->act : 0) << 4);
}

/* Arguments 0-5 of an epilogue kernel: input, weights, bias, per-channel and residual (the
 * weights stand in for an absent one; the flags say which are read), output. */
static void arg_epilogue_mems(struct ocl_build *b, struct ocl_step *s, uint32_t sin, uint32_t sw,
			      uint32_t sbias, uint32_t sv, uint32_t sr, uint32_t sout)
{
	ocl_arg_mem(b, s, 0, sin);
	ocl_arg_mem(b, s, 1, sw);
	ocl_arg_mem(b, s, 2, sbias != OCL_NONE ? sbias : sw);
	ocl_arg_mem(b, s, 3, sv != OCL_NONE ? sv : sw);
	ocl_arg_mem(b, s, 4, sr != OCL_NONE ? sr : sw);
	ocl_arg_mem(b, s, 5, sout);
}

static void conv_dw(struct ocl_build *b, const struct wnn_conv2d_attrs *p,
		    const struct graph_epilogue *e)
{
	uint32_t si = ocl_operand_slot(b, p->input);
	uint32_t sf = conv_filter(b, p, p->nhwc ? FILTER_HWO : FILTER_GEMM);
	uint32_t sb = p->has_bias ? ocl_f32_slot(b, p->bias) : OCL_NONE;
	uint32_t sv = e && e->channel != OCL_NONE ? ocl_f32_slot(b, e->channel) : OCL_NONE;
	uint32_t sr = e && e->residual != OCL_NONE ? ocl_f32_slot(b, e->residual) : OCL_NONE;
	uint32_t so = ocl_output_slot(b, e ? e->output : p->output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "conv.cl", WNN_F32, &prog))
		return;
	/* the widest channel vector that divides C */
	unsigned vw = p->c_out % 16 == 0 ? 16 : p->c_out % 8 == 0 ? 8 : 4;
	struct ocl_step *s = ocl_step_kernel(b, prog, !p->nhwc ? "dw_nchw"
						   : vw == 16 ? "dw_nhwc16"
						   : vw == 8  ? "dw_nhwc8"
							      : "dw_nhwc4");
	cl_uint16 pp = conv_params(p);
	pp.s[0] = p->c_out;
	pp.s[13] = epilogue_flags(sb, sv, sr, e);
	pp.s[14] = pp.s[15] = 0;
	cl_float lo = e ? e->lo : 0, hi = e ? e->hi : 0;
	arg_epilogue_mems(b, s, si, sf, sb, sv, sr, so);
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
		       const struct graph_epilogue *e, uint32_t sout, size_t rows, size_t n, size_t k,
		       const uint64_t dst3[3])
{
	uint32_t sv = e && e->channel != OCL_NONE ? ocl_f32_slot(b, e->channel) : OCL_NONE;
	uint32_t sr = e && e->residual != OCL_NONE ? ocl_f32_slot(b, e->residual) : OCL_NONE;
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "conv.cl", WNN_F32, &prog))
		return;
	unsigned vw = n % 16 == 0 ? 16 : 8;
	struct ocl_step *s = ocl_step_kernel(b, prog, vw == 16 ? "small_gemm16" : "small_gemm8");
	ocl_check_u32(b, dst3[0] + rows * dst3[1], "conv2d output");
	cl_uint cm = (cl_uint)rows, cn = (cl_uint)n, ck = (cl_uint)k, clda = (cl_uint)lda;
	cl_uint ldo = (cl_uint)dst3[1], off = (cl_uint)dst3[0];
	cl_uint flags = epilogue_flags(sbias, sv, sr, e);
	cl_float lo = e ? e->lo : 0, hi = e ? e->hi : 0;
	arg_epilogue_mems(b, s, sa, sw, sbias, sv, sr, sout);
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

/* What the gemm path of one conv2d decided: shapes, paths and the slots involved. */
struct conv_gemm {
	bool f16, small, swap, epi, direct_1x1;
	size_t P, Kg, out_count, rows, A, B;
	uint32_t sx, sw, sout, sy, scol, sbias;
	float beta;
	/* (element offset, a stride, c stride) seen as [A][C][B]: the destination and the gemm
	 * target (the destination itself, or a float32 temp, [C][rows] when swapped) */
	uint64_t dst3[3], y3[3];
};

/* The destination (the output, or a channel slice of a concat's output) and the gemm target. */
static void conv_gemm_targets(struct ocl_build *b, const struct wnn_conv2d_attrs *p,
			      const struct graph_epilogue *e, struct conv_gemm *c)
{
	const struct graph_slice *slice = &b->node->slice;
	size_t ch_total = slice->used ? slice->total : p->c_out;
	size_t ch_off = slice->used ? slice->offset : 0;
	c->sout = ocl_output_slot(b, slice->used ? slice->concat_output
				     : e	 ? e->output
						 : p->output);
	c->A = p->nhwc ? c->rows : p->n;
	c->B = p->nhwc ? 1 : c->P;
	if (p->nhwc) {
		c->dst3[0] = ch_off;
		c->dst3[1] = ch_total;
		c->dst3[2] = 1;
	} else {
		c->dst3[0] = ch_off * c->P;
		c->dst3[1] = ch_total * c->P;
		c->dst3[2] = c->P;
	}
	c->swap = !c->small && !c->f16 && p->nhwc && p->groups == 1 &&
		  p->c_out <= SMALL_N && c->rows >= 2 * SMALL_N;
	c->epi = !c->small && (ocl_epi_extra(e) || c->swap);
	c->sy = c->sout;
	memcpy(c->y3, c->dst3, sizeof c->y3);
	if (c->swap || c->f16) {
		c->sy = ocl_slot_new_temp(b, c->out_count * 4);
		if (c->swap) {
			c->y3[0] = 0;
			c->y3[1] = 1;
			c->y3[2] = c->rows;
		} else {
			c->y3[0] = 0;
			c->y3[1] = p->nhwc ? p->c_out : p->c_out * c->P;
			c->y3[2] = p->nhwc ? 1 : c->P;
		}
	}
}

/* The patch matrix: the input itself for a plain 1x1 conv, else an im2col temp. */
static void conv_im2col(struct ocl_build *b, const struct wnn_conv2d_attrs *p,
			struct conv_gemm *c)
{
	c->direct_1x1 = p->kh == 1 && p->kw == 1 && p->stride_h == 1 && p->stride_w == 1 &&
			p->pad_top == 0 && p->pad_bottom == 0 && p->pad_left == 0 &&
			p->pad_right == 0;
	c->scol = c->sx;
	if (c->direct_1x1)
		return;
	size_t P = c->P, col = (size_t)p->n * p->groups * c->Kg * P;
	/* NHWC: one item per filter row; NCHW: one per output row of each patch element */
	size_t total = p->nhwc ? (size_t)p->groups * p->n * P * p->kh
			       : (size_t)p->n * p->groups * c->Kg * p->out_h;
	cl_program prog;
	if (ocl_typed_program(b, "conv.cl", WNN_F32, &prog))
		return;
	c->scol = ocl_slot_new_temp(b, col * 4);
	struct ocl_step *s = ocl_step_kernel(b, prog, p->nhwc ? "im2col_nhwc" : "im2col");
	cl_uint n = (cl_uint)total;
	cl_uint16 pp = conv_params(p);
	cl_uint4 is;
	/* f32_slot may have converted float16 input: same dense layout either way. */
	for (int i = 0; i < 4; i++)
		is.s[i] = (cl_uint)p->in_stride[i];
	cl_uint a = 0;
	ocl_arg_mem(b, s, a++, c->sx);
	ocl_arg_mem(b, s, a++, c->scol);
	ocl_arg(b, s, a++, sizeof n, &n);
	ocl_arg(b, s, a++, sizeof pp, &pp);
	ocl_arg(b, s, a++, sizeof is, &is);
	ocl_step_range1(s, total);
}

/* The gemm's orientation and its per-batch offsets (ao, bo, co: batch entries each). */
static void conv_gemm_shape(const struct wnn_conv2d_attrs *p, const struct conv_gemm *c,
			    struct ocl_gemm *gm, size_t *ao, size_t *bo, size_t *co)
{
	size_t G = p->groups, N = p->n, OCg = p->c_out_g, ICg = p->c_in_g, P = c->P, Kg = c->Kg;
	gm->k = Kg;
	gm->c = c->sy;
	if (c->swap) {
		/* outT[o][(n,y,x)] = sum_k W[o][k] * col[(n,y,x)][k]; the epilogue transposes */
		gm->m = OCg;
		gm->n = c->rows;
		gm->a = c->sw;
		gm->lda = Kg;
		gm->b = c->scol;
		gm->b_trans = true;
		gm->ldb = c->direct_1x1 ? p->c_in_g : Kg;
		gm->ldc = c->rows;
		ao[0] = bo[0] = co[0] = 0;
	} else if (p->nhwc) {
		/* out[(n,y,x)][g*OCg + o] = sum_k col_g[(n,y,x)][k] * W[g*OCg + o][k] */
		gm->m = c->rows;
		gm->n = OCg;
		gm->a = c->scol;
		gm->lda = c->direct_1x1 ? p->c_in_g * G : Kg;
		gm->b = c->sw;
		gm->b_trans = true;
		gm->ldb = Kg;
		gm->ldc = c->y3[1];
		for (size_t g = 0; g < G; g++) {
			ao[g] = c->direct_1x1 ? g * ICg : g * N * P * Kg;
			bo[g] = g * OCg * Kg;
			co[g] = c->y3[0] + g * OCg;
		}
	} else {
		/* out[n][g*OCg + o][p] = sum_k W[g*OCg + o][k] * col[n][g][k][p] */
		gm->m = OCg;
		gm->n = P;
		gm->a = c->sw;
		gm->lda = Kg;
		gm->b = c->scol;
		gm->ldb = P;
		gm->ldc = P;
		for (size_t n = 0; n < N; n++)
			for (size_t g = 0; g < G; g++) {
				size_t i = n * G + g;
				ao[i] = g * OCg * Kg;
				bo[i] = c->direct_1x1 ? n * p->c_in_g * G * P + g * ICg * P
						      : (n * G + g) * Kg * P;
				co[i] = c->y3[0] + n * c->y3[1] + g * OCg * P;
			}
	}
}

static void conv_gemm_step(struct ocl_build *b, const struct wnn_conv2d_attrs *p,
			   const struct conv_gemm *c)
{
	struct ocl_gemm gm;
	memset(&gm, 0, sizeof gm);
	gm.alpha = 1;
	gm.beta = c->beta;
	size_t batch = c->swap ? 1 : p->nhwc ? p->groups : (size_t)p->n * p->groups;
	size_t *offs = malloc(3 * batch * sizeof *offs);
	if (!offs) {
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
		return;
	}
	conv_gemm_shape(p, c, &gm, offs, offs + batch, offs + 2 * batch);
	ocl_add_gemm(b, &gm, batch, offs, offs + batch, offs + 2 * batch);
	free(offs);
}

static void conv_gemm(struct ocl_build *b, const struct wnn_conv2d_attrs *p,
		      const struct graph_epilogue *e)
{
	struct conv_gemm c = { .f16 = p->type == WNN_F16 };
	c.P = (size_t)p->out_h * p->out_w;
	c.Kg = (size_t)p->c_in_g * p->kh * p->kw;
	c.out_count = (size_t)p->n * p->c_out * c.P;
	c.rows = (size_t)p->n * c.P;
	/* NHWC with few channels: small_gemm (epilogue included) instead of CLBlast */
	c.small = !c.f16 && p->nhwc && p->groups == 1 && p->c_out % 8 == 0 &&
		  p->c_out <= SMALL_GEMM_N && c.Kg <= SMALL_GEMM_K;
	c.sx = ocl_f32_slot(b, p->input);
	c.sw = conv_filter(b, p, c.small ? FILTER_KN : FILTER_GEMM);
	conv_gemm_targets(b, p, e, &c);
	if (OCL_FAILED(b))
		return;
	ocl_check_u32(b, (uint64_t)p->n * p->groups * c.Kg * c.P, "im2col buffer");
	c.sbias = p->has_bias ? ocl_f32_slot(b, p->bias) : OCL_NONE;
	if (c.sbias != OCL_NONE && !c.epi && !c.small) {
		/* The target starts as the broadcast bias; the gemm accumulates onto it. */
		uint32_t dims[3] = { (uint32_t)c.A, p->c_out, (uint32_t)c.B };
		uint64_t ss[3] = { 0, 1, 0 }, ds[3] = { c.y3[1], c.y3[2], 1 };
		ocl_copy_nd(b, WNN_F32, c.sbias, 0, c.sy, c.y3[0], 3, dims, ss, ds);
		c.beta = 1;
	}
	conv_im2col(b, p, &c);
	if (OCL_FAILED(b))
		return;
	if (c.small) {
		small_gemm(b, c.scol, c.direct_1x1 ? p->c_in : c.Kg, c.sw, c.sbias, e, c.sout, c.rows,
			   p->c_out, c.Kg, c.dst3);
		return;
	}
	conv_gemm_step(b, p, &c);
	if (c.epi) {
		uint32_t sv = e && e->channel != OCL_NONE ? ocl_f32_slot(b, e->channel) : OCL_NONE;
		uint32_t sr = e && e->residual != OCL_NONE ? ocl_f32_slot(b, e->residual) : OCL_NONE;
		/* float16: the epilogue runs in place on the float32 temp, converted below */
		uint32_t to = c.f16 ? c.sy : c.sout;
		ocl_epilogue_step(b, c.sy, to, c.sbias, sv, sr, c.A, p->c_out, c.B, c.y3,
				  c.f16 ? c.y3 : c.dst3, e);
	}
	if (c.f16)
		ocl_convert(b, false, c.sy, c.sout, c.out_count);
}

static void lower_conv2d(struct ocl_build *b)
{
	struct wnn_conv2d_attrs p = b->node->attrs.conv2d;
	ocl_check_u32(b, (uint64_t)p.n * p.c_out * p.out_h * p.out_w, "conv2d output");
	if (OCL_FAILED(b))
		return;
	const struct graph_epilogue *e = ocl_node_epilogue(b);
	if (ocl_conv_uses_gemm(&p))
		conv_gemm(b, &p, e);
	else if (p.depthwise && p.type == WNN_F32 && (!p.nhwc || p.c_out % 4 == 0))
		conv_dw(b, &p, e);
	else
		conv_direct(b, &p, e);
}

/* The tap tables of kernels/conv.cl (TAPS_DECL): for each output row the (filter row,
 * input row) pairs that reach it, from oy = iy * stride + ky * dilation - pad; columns alike. */
static uint32_t conv_transpose_taps(struct ocl_build *b, const struct wnn_conv_transpose2d_attrs *p)
{
	size_t n = (size_t)p->out_h * (1 + 2 * p->kh) + (size_t)p->out_w * (1 + 2 * p->kw);
	uint32_t *tab = calloc(n, sizeof *tab), id = UINT32_MAX;
	if (!tab) {
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
		return UINT32_MAX;
	}
	uint32_t *at = tab;
	for (int axis = 0; axis < 2; axis++) {
		uint32_t on = axis ? p->out_w : p->out_h, kn = axis ? p->kw : p->kh;
		uint32_t in = axis ? p->w : p->h, st = axis ? p->stride_w : p->stride_h;
		uint32_t dil = axis ? p->dil_w : p->dil_h, pad = axis ? p->pad_left : p->pad_top;
		uint32_t *cnt = at, *ks = at + on, *is = ks + (size_t)on * kn;
		for (uint32_t o = 0; o < on; o++)
			for (uint32_t k = 0; k < kn; k++) {
				int64_t t = (int64_t)o + pad - (int64_t)k * dil;
				if (t < 0 || t % st || t / st >= in)
					continue;
				ks[(size_t)o * kn + cnt[o]] = k;
				is[(size_t)o * kn + cnt[o]] = (uint32_t)(t / st);
				cnt[o]++;
			}
		at = is + (size_t)on * kn;
	}
	ocl_slot_const(b, tab, n * sizeof *tab, &id);
	free(tab);
	return id;
}

/* One work-item per output element, summing its input taps: for thin groups, where a gemm's
 * inner dimension (input channels per group) would be too short. */
static void conv_transpose_direct(struct ocl_build *b,
				  const struct wnn_conv_transpose2d_attrs *params)
{
	const struct wnn_conv_transpose2d_attrs p = *params;
	uint32_t si = ocl_operand_slot(b, p.input), sf = ocl_operand_slot(b, p.filter);
	uint32_t sb = p.has_bias ? ocl_operand_slot(b, p.bias) : sf;
	uint32_t so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "conv.cl", p.type, &prog))
		return;
	uint64_t total = (uint64_t)p.n * p.c_out * p.out_h * p.out_w;
	cl_uint16 pp;
	memset(&pp, 0, sizeof pp);
	uint32_t v[16] = { p.c_in_g,   p.h,      p.w,       p.kh,       p.kw,     p.out_h,
			   p.out_w,    p.stride_h, p.stride_w, p.dil_h,  p.dil_w,  p.pad_top,
			   p.pad_left, p.c_out_g, p.c_out,   p.has_bias };
	for (int i = 0; i < 16; i++)
		pp.s[i] = v[i];
	cl_uint4 is, fs;
	for (int i = 0; i < 4; i++) {
		is.s[i] = ocl_u32(b, p.in_stride[i], "stride");
		fs.s[i] = ocl_u32(b, p.filter_stride[i], "stride");
	}
	uint32_t tab = conv_transpose_taps(b, &p);
	struct ocl_step *s = ocl_kernel_n(b, prog, "conv_transpose2d", total);
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, sf);
	ocl_arg_mem(b, s, 2, sb);
	ocl_arg_mem(b, s, 3, so);
	ocl_arg_mem(b, s, 4, tab);
	ocl_arg_u(b, s, 5, ocl_u32(b, total, "output"));
	ocl_arg_u(b, s, 6, p.nhwc);
	ocl_arg(b, s, 7, sizeof pp, &pp);
	ocl_arg(b, s, 8, sizeof is, &is);
	ocl_arg(b, s, 9, sizeof fs, &fs);
}

/* The filter as dense float32 [c_in][c_out_g][kh][kw] (IOHW): per group, the gemm's A. */
static uint32_t conv_transpose_filter(struct ocl_build *b,
				      const struct wnn_conv_transpose2d_attrs *p)
{
	uint32_t dims[4] = { p->c_in, p->c_out_g, p->kh, p->kw };
	uint64_t dense[4];
	wnn_shape_strides(4, dims, dense);
	uint32_t src = ocl_f32_slot(b, p->filter);
	if (OCL_FAILED(b) || memcmp(dense, p->filter_stride, sizeof dense) == 0)
		return src;
	size_t count = ocl_desc_count(b, p->filter);
	uint32_t dst = ocl_slot_new_temp(b, count * 4);
	int64_t st[4];
	for (int d = 0; d < 4; d++)
		st[d] = (int64_t)p->filter_stride[d];
	ocl_view_copy(b, WNN_F32, src, dst, 4, dims, st, 0);
	return dst;
}

/* cols[n][g] = W_g^T x X_g (a gemm per batch entry and group, [c_out_g*kh*kw] x [h*w]), then
 * each output element sums the columns of the taps that land on it (col2im). */
static void conv_transpose_gemm(struct ocl_build *b, const struct wnn_conv_transpose2d_attrs *p)
{
	size_t K = (size_t)p->kh * p->kw, HW = (size_t)p->h * p->w, OK = (size_t)p->c_out_g * K;
	size_t G = p->groups, ICg = p->c_in_g;
	uint32_t sx = ocl_f32_slot(b, p->input);
	uint32_t sw = conv_transpose_filter(b, p);
	uint32_t sb = p->has_bias ? ocl_operand_slot(b, p->bias) : sw;
	uint32_t so = ocl_output_slot(b, p->output);
	if (OCL_FAILED(b))
		return;
	uint32_t cols = ocl_slot_new_temp(b, (size_t)p->n * G * OK * HW * 4);
	for (size_t n = 0; n < p->n; n++)
		for (size_t g = 0; g < G; g++) {
			size_t coff = (n * G + g) * OK * HW;
			if (p->nhwc)
				ocl_gemm2d(b, sw, g * ICg * OK, OK, true, sx, n * HW * p->c_in + g * ICg,
				     p->c_in, true, cols, coff, HW, OK, HW, ICg, 0);
			else
				ocl_gemm2d(b, sw, g * ICg * OK, OK, true, sx, (n * p->c_in + g * ICg) * HW,
				     HW, false, cols, coff, HW, OK, HW, ICg, 0);
		}
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "conv.cl", p->type, &prog))
		return;
	uint64_t total = (uint64_t)p->n * p->c_out * p->out_h * p->out_w;
	cl_uint16 pp;
	memset(&pp, 0, sizeof pp);
	uint32_t v[16] = { p->groups,   p->h,       p->w,        p->kh,      p->kw,     p->out_h,
			   p->out_w,    p->stride_h, p->stride_w, p->dil_h,  p->dil_w,  p->pad_top,
			   p->pad_left, p->c_out_g, p->c_out,    p->has_bias };
	for (int i = 0; i < 16; i++)
		pp.s[i] = v[i];
	uint32_t tab = conv_transpose_taps(b, p);
	struct ocl_step *s = ocl_kernel_n(b, prog, "col2im_t", total);
	ocl_arg_mem(b, s, 0, cols);
	ocl_arg_mem(b, s, 1, sb);
	ocl_arg_mem(b, s, 2, so);
	ocl_arg_mem(b, s, 3, tab);
	ocl_arg_u(b, s, 4, ocl_u32(b, total, "output"));
	ocl_arg_u(b, s, 5, p->nhwc);
	ocl_arg(b, s, 6, sizeof pp, &pp);
}

static void lower_conv_transpose(struct ocl_build *b)
{
	struct wnn_conv_transpose2d_attrs p = b->node->attrs.conv_transpose2d;
	uint64_t cols = (uint64_t)p.n * p.c_out * p.kh * p.kw * p.h * p.w;
	if (p.c_in_g >= 8 && cols < (1u << 26))
		conv_transpose_gemm(b, &p);
	else
		conv_transpose_direct(b, &p);
}

void ocl_lower_conv(struct ocl_build *b, enum wnn_op op)
{
	switch (wnn_ops[op].attrs) {
	case WNN_ATTRS_CONV2D:
		lower_conv2d(b);
		break;
	case WNN_ATTRS_CONV_TRANSPOSE2D:
		lower_conv_transpose(b);
		break;
	default:
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR, "%s: no OpenCL lowering", b->what);
	}
}
