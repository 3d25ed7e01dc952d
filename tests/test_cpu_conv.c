/* The cpu backend's conv and linalg kernels (oneDNN) against the reference backend on random data, and their timings (--bench). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.h>

#include "tests/graphs.h"
#include "tests/test.h"

static const double CC_ATOL = 2e-4, CC_RTOL = 2e-4;

/* The cpu backend with every core, or $WEBNN_CPU_THREADS threads as webnnd takes them. */
static struct backend *cc_backend(void)
{
	struct backend *be = NULL;
	struct wnn_diag diag = { 0 };
	struct backend_options o = { 0 };
	const char *t = getenv("WEBNN_CPU_THREADS");
	o.threads = t ? atoi(t) : 0;
	if (backend_cpu.init(&o, &be, &diag) != WEBNN_STATUS_OK)
		SKIP("cpu backend: %s", diag.message);
	return be;
}

/* Runs g on the reference and on the cpu backend with the same random inputs in [-1, 1]
 * and compares every output. */
static void cc_compare(struct backend *be, const struct graph_ir *g, uint64_t seed,
		       const char *label)
{
	void *in[TG_MAX_OPERANDS] = { 0 }, *ref[TG_MAX_OPERANDS] = { 0 },
	     *out[TG_MAX_OPERANDS] = { 0 };
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		in[i] = malloc(tg_bytes(d) + 8);
		tg_random(in[i], d->type, count, seed + 31 * i, -1, 1);
	}
	for (size_t i = 0; i < g->n_outputs; i++) {
		size_t bytes = tg_bytes(&g->values[g->outputs[i]].desc) + 8;
		ref[i] = calloc(1, bytes);
		out[i] = calloc(1, bytes);
	}
	struct wnn_diag diag = { 0 };
	enum webnn_status st = tg_run(&backend_reference, NULL, g, (const void *const *)in, ref,
				      &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: reference: %s", label, diag.message);
	wnn_diag_clear(&diag);
	st = tg_run(&backend_cpu, be, g, (const void *const *)in, out, &diag);
	ASSERT_MSG(st == WEBNN_STATUS_OK, "%s: cpu: %s", label, diag.message);
	for (size_t i = 0; i < g->n_outputs; i++) {
		const struct wnn_desc *d = &g->values[g->outputs[i]].desc;
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		char msg[256];
		bool f16 = d->type == WNN_F16;
		ASSERT_MSG(tg_compare(out[i], ref[i], d->type, count, 0, f16 ? 2e-2 : CC_ATOL,
				      f16 ? 1e-2 : CC_RTOL, msg, sizeof msg),
			   "%s: output %zu: %s", label, i, msg);
	}
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		free(in[i]);
		free(ref[i]);
		free(out[i]);
	}
}

static const struct graph_ir *cc_finish(struct tg_graph *t, const char *label)
{
	struct wnn_diag diag = { 0 };
	const struct graph_ir *g = tg_finish(t, &diag);
	ASSERT_MSG(g, "%s: %s", label, diag.message);
	return g;
}

static uint32_t cc_add_op(struct tg_graph *t, Webnn__Ipc__Operation *op, enum wnn_op which,
			  void *msg, const char *label)
{
	struct wnn_diag diag = { 0 };
	tg_set_op(op, which, msg);
	uint32_t out = tg_next(t);
	ASSERT_MSG(tg_op(t, op, &diag) == WEBNN_STATUS_OK, "%s: %s", label, diag.message);
	return out;
}

/* ==== conv2d */

struct cc_conv {
	uint32_t n, c, h, w, oc, kh, kw, groups;
	uint32_t pad[4], stride[2], dil[2];
	bool bias;
	/* per run: layouts, filter kind, type, what follows the conv (0 nothing, 1 relu,
	 * 2 add(channel constant) + relu, 3 add(residual input) + relu, 4 clamp) */
	struct {
		bool nhwc, const_filter;
		int filter_layout; /* WNN_FILTER_* */
		enum wnn_dtype t;
		int epilogue;
	} r;
};

/* The storage a conv graph's messages need until the graph is freed. */
struct cc_conv_graph {
	struct tg_graph tg;
	Webnn__Ipc__Conv2d m;
	Webnn__Ipc__Operation ops[3];
	Webnn__Ipc__ElementwiseBinary add;
	Webnn__Ipc__ElementwiseUnary relu;
	Webnn__Ipc__Clamp clamp;
	Webnn__Ipc__Number lo, hi;
	uint32_t pad[4], stride[2], dil[2];
	void *fdata, *bdata, *cdata;
};

static void cc_conv_filter_dims(const struct cc_conv *c, uint32_t *fd)
{
	uint32_t icg = c->c / c->groups;
	switch (c->r.filter_layout) {
	case WNN_FILTER_OIHW: memcpy(fd, (uint32_t[]){ c->oc, icg, c->kh, c->kw }, 16); break;
	case WNN_FILTER_HWIO: memcpy(fd, (uint32_t[]){ c->kh, c->kw, icg, c->oc }, 16); break;
	case WNN_FILTER_OHWI: memcpy(fd, (uint32_t[]){ c->oc, c->kh, c->kw, icg }, 16); break;
	default: memcpy(fd, (uint32_t[]){ icg, c->kh, c->kw, c->oc }, 16); break;
	}
}

static const struct graph_ir *cc_conv_build(struct cc_conv_graph *cg, const struct cc_conv *c,
					    char *label, size_t len)
{
	snprintf(label, len,
		 "conv2d %s %s filter %d%s g%u %ux%u->%u s%u,%u d%u,%u p%u,%u,%u,%u bias %d epi %d",
		 wnn_dtype_name(c->r.t), c->r.nhwc ? "nhwc" : "nchw", c->r.filter_layout,
		 c->r.const_filter ? " const" : "", c->groups, c->kh, c->kw, c->oc, c->stride[0],
		 c->stride[1], c->dil[0], c->dil[1], c->pad[0], c->pad[1], c->pad[2], c->pad[3],
		 c->bias, c->r.epilogue);
	struct tg_graph *tg = &cg->tg;
	tg_init(tg);
	uint32_t in_dims[4], fd[4];
	if (c->r.nhwc)
		memcpy(in_dims, (uint32_t[]){ c->n, c->h, c->w, c->c }, sizeof in_dims);
	else
		memcpy(in_dims, (uint32_t[]){ c->n, c->c, c->h, c->w }, sizeof in_dims);
	cc_conv_filter_dims(c, fd);
	uint32_t x = tg_input(tg, c->r.t, 4, in_dims);
	size_t fcount = (size_t)fd[0] * fd[1] * fd[2] * fd[3];
	cg->fdata = malloc(fcount * 4 + 4);
	cg->bdata = malloc(c->oc * 4 + 4);
	cg->cdata = malloc(c->oc * 4 + 4);
	uint32_t f;
	if (c->r.const_filter) {
		tg_random(cg->fdata, c->r.t, fcount, 99, -1, 1);
		f = tg_constant(tg, c->r.t, 4, fd, cg->fdata);
	} else {
		f = tg_input(tg, c->r.t, 4, fd);
	}
	Webnn__Ipc__Conv2d *m = &cg->m;
	*m = (Webnn__Ipc__Conv2d)WEBNN__IPC__CONV2D__INIT;
	if (c->bias) {
		tg_random(cg->bdata, c->r.t, c->oc, 7, -1, 1);
		m->has_bias = 1;
		m->bias = c->r.const_filter ? tg_constant(tg, c->r.t, 1, (uint32_t[]){ c->oc }, cg->bdata)
					  : tg_input(tg, c->r.t, 1, (uint32_t[]){ c->oc });
	}
	m->input = x;
	m->filter = f;
	memcpy(cg->pad, c->pad, sizeof cg->pad);
	memcpy(cg->stride, c->stride, sizeof cg->stride);
	memcpy(cg->dil, c->dil, sizeof cg->dil);
	m->n_padding = 4;
	m->padding = cg->pad;
	m->n_strides = 2;
	m->strides = cg->stride;
	m->n_dilations = 2;
	m->dilations = cg->dil;
	m->has_groups = 1;
	m->groups = c->groups;
	m->has_input_layout = 1;
	m->input_layout = c->r.nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC : WEBNN__IPC__INPUT_LAYOUT__NCHW;
	m->has_filter_layout = 1;
	m->filter_layout = (Webnn__Ipc__Conv2dFilterLayout)c->r.filter_layout;
	m->output = tg_next(tg);
	memset(cg->ops, 0, sizeof cg->ops);
	for (int i = 0; i < 3; i++)
		cg->ops[i] = (Webnn__Ipc__Operation)WEBNN__IPC__OPERATION__INIT;
	uint32_t y = cc_add_op(tg, &cg->ops[0], WNN_OP_CONV2D, m, label);
	const struct wnn_desc *yd = &tg->descs[y];
	int next = 1;
	if (c->r.epilogue == 2 || c->r.epilogue == 3) {
		uint32_t other;
		if (c->r.epilogue == 2) {
			/* a per-channel vector broadcast along the channel axis */
			uint32_t cd[4] = { 1, 1, 1, 1 };
			cd[c->r.nhwc ? 3 : 1] = c->oc;
			tg_random(cg->cdata, c->r.t, c->oc, 17, -1, 1);
			other = c->r.nhwc ? tg_constant(tg, c->r.t, 1, (uint32_t[]){ c->oc }, cg->cdata)
					: tg_constant(tg, c->r.t, 4, cd, cg->cdata);
		} else {
			other = tg_input(tg, c->r.t, yd->rank, yd->dims);
		}
		cg->add = (Webnn__Ipc__ElementwiseBinary)WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
		cg->add.a = y;
		cg->add.b = other;
		cg->add.output = tg_next(tg);
		y = cc_add_op(tg, &cg->ops[next++], WNN_OP_ADD, &cg->add, label);
	}
	if (c->r.epilogue >= 1 && c->r.epilogue <= 3) {
		cg->relu = (Webnn__Ipc__ElementwiseUnary)WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
		cg->relu.input = y;
		cg->relu.output = tg_next(tg);
		y = cc_add_op(tg, &cg->ops[next++], WNN_OP_RELU, &cg->relu, label);
	} else if (c->r.epilogue == 4) {
		cg->clamp = (Webnn__Ipc__Clamp)WEBNN__IPC__CLAMP__INIT;
		cg->clamp.input = y;
		cg->lo = cg->hi = (Webnn__Ipc__Number)WEBNN__IPC__NUMBER__INIT;
		cg->lo.value_case = cg->hi.value_case = WEBNN__IPC__NUMBER__VALUE_F;
		cg->lo.f = -0.5;
		cg->hi.f = 0.75;
		cg->clamp.min_value = &cg->lo;
		cg->clamp.max_value = &cg->hi;
		cg->clamp.output = tg_next(tg);
		y = cc_add_op(tg, &cg->ops[next++], WNN_OP_CLAMP, &cg->clamp, label);
	}
	return cc_finish(tg, label);
}

static void cc_conv_free(struct cc_conv_graph *cg)
{
	tg_free(&cg->tg);
	free(cg->fdata);
	free(cg->bdata);
	free(cg->cdata);
}

static void cc_conv_run(struct backend *be, const struct cc_conv *c, uint64_t seed)
{
	struct cc_conv_graph cg;
	char label[200];
	const struct graph_ir *g = cc_conv_build(&cg, c, label, sizeof label);
	cc_compare(be, g, seed, label);
	cc_conv_free(&cg);
}

static const struct cc_conv cc_conv_cases[] = {
	/* one channel (the op vectors' 3x3 * 2x2) */
	{ 1, 1, 3, 3, 1, 2, 2, 1, { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, false, { 0 } },
	{ 1, 1, 3, 3, 1, 2, 2, 1, { 1, 1, 1, 1 }, { 2, 2 }, { 1, 1 }, true, { 0 } },
	{ 1, 2, 4, 4, 2, 2, 2, 2, { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, false, { 0 } },
	/* plain 3x3, same padding */
	{ 1, 8, 9, 8, 16, 3, 3, 1, { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 }, true, { 0 } },
	/* 1x1, batch 2, no bias */
	{ 2, 16, 7, 5, 24, 1, 1, 1, { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 }, false, { 0 } },
	/* strides, asymmetric padding */
	{ 1, 3, 15, 13, 8, 3, 3, 1, { 1, 2, 0, 1 }, { 2, 2 }, { 1, 1 }, true, { 0 } },
	/* dilations, rectangular kernel, uneven strides */
	{ 1, 4, 12, 12, 5, 3, 2, 1, { 2, 2, 1, 0 }, { 1, 2 }, { 2, 3 }, false, { 0 } },
	/* 7x7 stride 2 (a stem) */
	{ 1, 3, 23, 23, 6, 7, 7, 1, { 3, 3, 3, 3 }, { 2, 2 }, { 1, 1 }, true, { 0 } },
	/* groups */
	{ 2, 8, 6, 7, 12, 3, 3, 4, { 1, 0, 1, 0 }, { 1, 1 }, { 1, 1 }, true, { 0 } },
	{ 1, 6, 9, 9, 4, 3, 3, 2, { 0, 1, 2, 0 }, { 2, 1 }, { 1, 2 }, false, { 0 } },
	/* depthwise, multiplier 1 and 2 */
	{ 1, 16, 10, 9, 16, 3, 3, 16, { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 }, true, { 0 } },
	{ 2, 8, 10, 9, 16, 3, 3, 8, { 1, 1, 1, 1 }, { 2, 1 }, { 1, 2 }, true, { 0 } },
	{ 1, 32, 14, 14, 32, 5, 5, 32, { 2, 2, 2, 2 }, { 2, 2 }, { 1, 1 }, false, { 0 } },
	/* output smaller than the padded input divides (floor) */
	{ 1, 5, 8, 6, 7, 3, 3, 1, { 0, 1, 1, 0 }, { 3, 2 }, { 1, 1 }, true, { 0 } },
};

/* Every case in both layouts, every filter layout, constant and input filter. */
static void cc_conv_all(struct backend *be)
{
	int runs = 0;
	for (size_t i = 0; i < sizeof cc_conv_cases / sizeof cc_conv_cases[0]; i++)
		for (int nhwc = 0; nhwc < 2; nhwc++)
			for (int fl = 0; fl < 4; fl++)
				for (int cf = 0; cf < 2; cf++) {
					struct cc_conv c = cc_conv_cases[i];
					c.r.nhwc = nhwc;
					c.r.filter_layout = fl;
					c.r.const_filter = cf;
					c.r.t = WNN_F32;
					cc_conv_run(be, &c, 1000 + runs++);
				}
}

TEST_TIMEOUT(cpu_conv_conv2d_vs_reference, 300)
{
	struct backend *be = cc_backend();
	cc_conv_all(be);
	backend_cpu.shutdown(be);
}

/* conv + add + relu / clamp, which the fusion pass turns into epilogues (post-ops). */
static void cc_conv_epilogues(struct backend *be)
{
	int runs = 0;
	static const size_t picks[] = { 3, 4, 8, 10, 11, 0, 1 };
	for (size_t p = 0; p < sizeof picks / sizeof picks[0]; p++)
		for (int nhwc = 0; nhwc < 2; nhwc++)
			for (int epi = 1; epi <= 4; epi++)
				for (int cf = 0; cf < 2; cf++) {
					struct cc_conv c = cc_conv_cases[picks[p]];
					c.r.nhwc = nhwc;
					c.r.filter_layout = nhwc ? WNN_FILTER_OHWI : WNN_FILTER_OIHW;
					c.r.const_filter = cf;
					c.r.t = WNN_F32;
					c.r.epilogue = epi;
					cc_conv_run(be, &c, 2000 + runs++);
				}
}

TEST_TIMEOUT(cpu_conv_conv2d_epilogues, 300)
{
	struct backend *be = cc_backend();
	cc_conv_epilogues(be);
	backend_cpu.shutdown(be);
}


/* float16 is left to the reference kernel: same results as the reference. */
TEST_TIMEOUT(cpu_conv_conv2d_float16, 120)
{
	struct backend *be = cc_backend();
	struct cc_conv c = cc_conv_cases[0];
	c.r.t = WNN_F16;
	c.r.nhwc = true;
	c.r.filter_layout = WNN_FILTER_OHWI;
	c.r.const_filter = true;
	c.r.epilogue = 1;
	cc_conv_run(be, &c, 77);
	backend_cpu.shutdown(be);
}

/* ==== convTranspose2d */

static void cc_conv_transpose_all(struct backend *be)
{
	static const struct {
		uint32_t n, cin, h, w, cout, kh, kw, groups;
		uint32_t stride[2], dil[2], pad[4], out_pad[2];
		bool bias, output_sizes;
	} cases[] = {
		{ 1, 2, 3, 3, 3, 3, 3, 1, { 1, 1 }, { 1, 1 }, { 0, 0, 0, 0 }, { 0, 0 }, false, false },
		{ 2, 4, 4, 5, 6, 3, 2, 2, { 2, 2 }, { 1, 1 }, { 1, 1, 1, 0 }, { 1, 0 }, true, false },
		{ 1, 3, 5, 4, 2, 2, 3, 1, { 3, 2 }, { 2, 1 }, { 1, 0, 1, 1 }, { 2, 1 }, true, false },
		{ 1, 4, 3, 3, 4, 3, 3, 2, { 2, 2 }, { 1, 1 }, { 0, 0, 0, 0 }, { 1, 1 }, false, false },
		{ 2, 2, 4, 4, 2, 1, 1, 1, { 1, 1 }, { 1, 1 }, { 0, 0, 0, 0 }, { 0, 0 }, true, false },
		{ 1, 16, 7, 7, 8, 4, 4, 1, { 2, 2 }, { 1, 1 }, { 1, 1, 1, 1 }, { 0, 0 }, true, false },
		{ 1, 8, 5, 5, 8, 3, 3, 8, { 2, 2 }, { 1, 1 }, { 1, 1, 1, 1 }, { 1, 1 }, false, false },
		{ 1, 8, 5, 6, 8, 3, 3, 1, { 2, 3 }, { 2, 1 }, { 2, 1, 0, 2 }, { 1, 2 }, true, true },
	};
	int runs = 0;
	for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
		for (int nhwc = 0; nhwc < 2; nhwc++)
			for (int layout = 0; layout < 3; layout++)
				for (int cf = 0; cf < 2; cf++) {
					__typeof__(cases[0]) c = cases[ci];
					char label[200];
					snprintf(label, sizeof label,
						 "convTranspose2d case %zu %s filter %d%s", ci,
						 nhwc ? "nhwc" : "nchw", layout, cf ? " const" : "");
					struct tg_graph tg;
					tg_init(&tg);
					uint32_t idims[4] = { c.n, c.cin, c.h, c.w };
					if (nhwc) {
						idims[1] = c.h;
						idims[2] = c.w;
						idims[3] = c.cin;
					}
					uint32_t og = c.cout / c.groups;
					uint32_t fd[3][4] = { { c.cin, og, c.kh, c.kw },
							      { c.kh, c.kw, og, c.cin },
							      { og, c.kh, c.kw, c.cin } };
					uint32_t x = tg_input(&tg, WNN_F32, 4, idims);
					size_t fcount = (size_t)c.cin * og * c.kh * c.kw;
					float *fdata = malloc(fcount * 4), *bdata = malloc(c.cout * 4);
					tg_random(fdata, WNN_F32, fcount, 5, -1, 1);
					tg_random(bdata, WNN_F32, c.cout, 6, -1, 1);
					uint32_t w = cf ? tg_constant(&tg, WNN_F32, 4, fd[layout], fdata)
							: tg_input(&tg, WNN_F32, 4, fd[layout]);
					Webnn__Ipc__ConvTranspose2d m = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
					m.input = x;
					m.filter = w;
					if (c.bias) {
						m.has_bias = 1;
						m.bias = cf ? tg_constant(&tg, WNN_F32, 1,
									  (uint32_t[]){ c.cout }, bdata)
							    : tg_input(&tg, WNN_F32, 1,
								       (uint32_t[]){ c.cout });
					}
					uint32_t osz[2];
					for (int i = 0; i < 2; i++) {
						uint32_t k = i ? c.kw : c.kh, in = i ? c.w : c.h;
						osz[i] = (in - 1) * c.stride[i] + (k - 1) * c.dil[i] + 1 -
							 c.pad[2 * i] - c.pad[2 * i + 1] + c.out_pad[i];
					}
					uint32_t st[2], dl[2], pd[4], op[2];
					memcpy(st, c.stride, sizeof st);
					memcpy(dl, c.dil, sizeof dl);
					memcpy(pd, c.pad, sizeof pd);
					memcpy(op, c.out_pad, sizeof op);
					m.n_strides = 2;
					m.strides = st;
					m.n_dilations = 2;
					m.dilations = dl;
					m.n_padding = 4;
					m.padding = pd;
					if (c.output_sizes) {
						m.n_output_sizes = 2;
						m.output_sizes = osz;
					} else {
						m.n_output_padding = 2;
						m.output_padding = op;
					}
					m.has_groups = 1;
					m.groups = c.groups;
					m.has_input_layout = 1;
					m.input_layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC
							      : WEBNN__IPC__INPUT_LAYOUT__NCHW;
					m.has_filter_layout = 1;
					m.filter_layout = (Webnn__Ipc__ConvTranspose2dFilterLayout)layout;
					m.output = tg_next(&tg);
					Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
					cc_add_op(&tg, &o, WNN_OP_CONV_TRANSPOSE2D, &m, label);
					cc_compare(be, cc_finish(&tg, label), 3000 + runs++, label);
					tg_free(&tg);
					free(fdata);
					free(bdata);
				}
}

TEST_TIMEOUT(cpu_conv_conv_transpose2d_vs_reference, 300)
{
	struct backend *be = cc_backend();
	cc_conv_transpose_all(be);
	backend_cpu.shutdown(be);
}

/* ==== gemm and matmul */

/* Every transpose, alpha, beta and C shape (absent, scalar, [N], [1, N], [M, 1], [M, N]), C and
 * B as constants or inputs, with and without a relu after it. */
static void cc_gemm_all(struct backend *be)
{
	const uint32_t M = 5, N = 7, K = 9;
	static const float alphas[] = { 1, 0.5f }, betas[] = { 1, 2, 0 };
	int runs = 0;
	for (int at = 0; at < 2; at++)
		for (int bt = 0; bt < 2; bt++)
			for (int ai = 0; ai < 2; ai++)
				for (int bi = 0; bi < 3; bi++)
					for (int cs = 0; cs < 6; cs++)
						for (int konst = 0; konst < 4; konst++) {
		/* C shapes: 0 none, 1 scalar, 2 [N], 3 [1, N], 4 [M, 1], 5 [M, N] */
		if (cs == 0 && bi > 0)
			continue;
		/* after it: 0 nothing, 1 relu, 2 add([N] constant) + relu, 3 add(input) + relu */
		bool const_b = konst & 1, const_c = konst & 2;
		int epi = runs % 4;
		if (cs == 0 && const_c)
			continue;
		char label[200];
		snprintf(label, sizeof label, "gemm aT %d bT %d alpha %g beta %g C %d%s%s epi %d", at,
			 bt, alphas[ai], betas[bi], cs, const_b ? " constB" : "",
			 const_c ? " constC" : "", epi);
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t adims[2] = { at ? K : M, at ? M : K }, bdims[2] = { bt ? N : K, bt ? K : N };
		float bdata[K * N], cdata[M * N];
		tg_random(bdata, WNN_F32, K * N, 41, -1, 1);
		tg_random(cdata, WNN_F32, M * N, 43, -1, 1);
		uint32_t a = tg_input(&tg, WNN_F32, 2, adims);
		uint32_t b = const_b ? tg_constant(&tg, WNN_F32, 2, bdims, bdata)
				     : tg_input(&tg, WNN_F32, 2, bdims);
		Webnn__Ipc__Gemm m = WEBNN__IPC__GEMM__INIT;
		m.a = a;
		m.b = b;
		if (cs) {
			static const uint32_t ranks[6] = { 0, 0, 1, 2, 2, 2 };
			uint32_t cd[6][2] = { { 0 }, { 0 }, { N }, { 1, N }, { M, 1 }, { M, N } };
			m.has_c = 1;
			m.c = const_c ? tg_constant(&tg, WNN_F32, ranks[cs], cd[cs], cdata)
				      : tg_input(&tg, WNN_F32, ranks[cs], cd[cs]);
		}
		m.has_alpha = m.has_beta = 1;
		m.alpha = alphas[ai];
		m.beta = betas[bi];
		m.has_a_transpose = m.has_b_transpose = 1;
		m.a_transpose = at;
		m.b_transpose = bt;
		m.output = tg_next(&tg);
		Webnn__Ipc__Operation o[3] = { WEBNN__IPC__OPERATION__INIT,
					       WEBNN__IPC__OPERATION__INIT,
					       WEBNN__IPC__OPERATION__INIT };
		uint32_t y = cc_add_op(&tg, &o[0], WNN_OP_GEMM, &m, label);
		Webnn__Ipc__ElementwiseBinary add = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
		float vdata[N];
		tg_random(vdata, WNN_F32, N, 47, -1, 1);
		if (epi >= 2) {
			add.a = y;
			add.b = epi == 2 ? tg_constant(&tg, WNN_F32, 1, (uint32_t[]){ N }, vdata)
					 : tg_input(&tg, WNN_F32, 2, (uint32_t[]){ M, N });
			add.output = tg_next(&tg);
			y = cc_add_op(&tg, &o[1], WNN_OP_ADD, &add, label);
		}
		Webnn__Ipc__ElementwiseUnary r = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
		if (epi >= 1) {
			r.input = y;
			r.output = tg_next(&tg);
			cc_add_op(&tg, &o[2], WNN_OP_RELU, &r, label);
		}
		cc_compare(be, cc_finish(&tg, label), 4000 + runs++, label);
		tg_free(&tg);
						}
}

TEST_TIMEOUT(cpu_conv_gemm_vs_reference, 300)
{
	struct backend *be = cc_backend();
	cc_gemm_all(be);
	backend_cpu.shutdown(be);
}

static void cc_matmul_all(struct backend *be)
{
	static const struct {
		uint32_t ar, a[5], br, b[5];
	} cases[] = {
		{ 2, { 5, 7 }, 2, { 7, 3 } },
		{ 3, { 4, 5, 7 }, 3, { 4, 7, 3 } },
		{ 3, { 4, 5, 7 }, 2, { 7, 3 } },          /* b broadcast (rank) */
		{ 2, { 5, 7 }, 3, { 4, 7, 3 } },          /* a broadcast (rank) */
		{ 4, { 2, 1, 5, 7 }, 4, { 1, 3, 7, 6 } }, /* both broadcast */
		{ 4, { 2, 3, 5, 7 }, 3, { 1, 7, 6 } },
		{ 5, { 2, 1, 3, 4, 6 }, 3, { 3, 6, 2 } },
		{ 2, { 1, 64 }, 2, { 64, 33 } },
		{ 2, { 67, 129 }, 2, { 129, 65 } },
		{ 2, { 5, 7 }, 2, { 7, 1 } },             /* one column */
		{ 3, { 3, 1, 7 }, 3, { 3, 7, 1 } },
	};
	int runs = 0;
	for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
		for (int konst = 0; konst < 2; konst++)
			for (int epi = 0; epi < 3; epi++) {
				char label[160];
				snprintf(label, sizeof label, "matmul case %zu%s epi %d", ci,
					 konst ? " constB" : "", epi);
				struct tg_graph tg;
				tg_init(&tg);
				uint64_t bcount = 1;
				for (uint32_t i = 0; i < cases[ci].br; i++)
					bcount *= cases[ci].b[i];
				float *bdata = malloc(bcount * 4), cdata[256];
				tg_random(bdata, WNN_F32, bcount, 51, -1, 1);
				uint32_t a = tg_input(&tg, WNN_F32, cases[ci].ar, cases[ci].a);
				uint32_t b = konst ? tg_constant(&tg, WNN_F32, cases[ci].br,
								 cases[ci].b, bdata)
						   : tg_input(&tg, WNN_F32, cases[ci].br, cases[ci].b);
				Webnn__Ipc__Matmul m = WEBNN__IPC__MATMUL__INIT;
				m.a = a;
				m.b = b;
				m.output = tg_next(&tg);
				Webnn__Ipc__Operation o[3] = { WEBNN__IPC__OPERATION__INIT,
							       WEBNN__IPC__OPERATION__INIT,
							       WEBNN__IPC__OPERATION__INIT };
				uint32_t y = cc_add_op(&tg, &o[0], WNN_OP_MATMUL, &m, label);
				Webnn__Ipc__ElementwiseBinary add = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
				Webnn__Ipc__Clamp cl = WEBNN__IPC__CLAMP__INIT;
				/* the messages must live until the graph is validated */
				Webnn__Ipc__Number lo = WEBNN__IPC__NUMBER__INIT;
				if (epi) {
					/* add([N]) (a channel add on the last axis) or a full tensor */
					uint32_t nn = cases[ci].b[cases[ci].br - 1];
					tg_random(cdata, WNN_F32, nn, 53, -1, 1);
					add.a = y;
					add.b = epi == 1 ? tg_constant(&tg, WNN_F32, 1, &nn, cdata)
							 : tg_input(&tg, WNN_F32, tg.descs[y].rank,
								    tg.descs[y].dims);
					add.output = tg_next(&tg);
					y = cc_add_op(&tg, &o[1], WNN_OP_ADD, &add, label);
					lo.value_case = WEBNN__IPC__NUMBER__VALUE_F;
					lo.f = -0.25;
					cl.input = y;
					cl.min_value = &lo;
					cl.output = tg_next(&tg);
					cc_add_op(&tg, &o[2], WNN_OP_CLAMP, &cl, label);
				}
				cc_compare(be, cc_finish(&tg, label), 5000 + runs++, label);
				tg_free(&tg);
				free(bdata);
			}
}

TEST_TIMEOUT(cpu_conv_matmul_vs_reference, 300)
{
	struct backend *be = cc_backend();
	cc_matmul_all(be);
	backend_cpu.shutdown(be);
}

/* ==== every case again on the kernels oneDNN runs on CPUs without AVX-512 (each test is its
 * own process, so the ISA cap set before oneDNN's first use holds for it): other
 * implementations, e.g. gemm:jit for grouped convolutions, which adds a residual post-op
 * wrongly. */
static void cc_isa(dnnl_cpu_isa_t isa)
{
	if (dnnl_set_max_cpu_isa(isa) != dnnl_success)
		SKIP("oneDNN was used in this process already (--no-fork): its ISA is fixed");
	struct backend *be = cc_backend();
	cc_conv_all(be);
	cc_conv_epilogues(be);
	cc_conv_transpose_all(be);
	cc_gemm_all(be);
	cc_matmul_all(be);
	backend_cpu.shutdown(be);
}

TEST_TIMEOUT(cpu_conv_avx2, 300)
{
	cc_isa(dnnl_cpu_isa_avx2);
}

TEST_TIMEOUT(cpu_conv_sse41, 300)
{
	cc_isa(dnnl_cpu_isa_sse41);
}

/* ==== timings (--bench): SqueezeNet's and MobileNetV2's conv shapes, through the backend */

static double cc_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cc_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median seconds of one execute of g (compiled once, inputs random), over about 0.5 s; the
 * fastest run in *best (the machine is shared: the median shows the load as much as the
 * kernel). */
static double cc_time(struct backend *be, const struct graph_ir *g, double *best)
{
	struct wnn_diag diag = { 0 };
	struct backend_context *ctx = NULL;
	struct backend_context_options o = { 0 };
	ASSERT_MSG(backend_cpu.context_create(be, &o, &ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	struct backend_tensor *in[TG_MAX_OPERANDS] = { 0 }, *out[TG_MAX_OPERANDS] = { 0 };
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct wnn_desc *d = &g->values[g->inputs[i]].desc;
		ASSERT(backend_cpu.tensor_create(ctx, d, &in[i], &diag) == WEBNN_STATUS_OK);
		uint64_t count = 1;
		wnn_desc_count(d, &count);
		void *buf = malloc(tg_bytes(d));
		tg_random(buf, d->type, count, 5 + i, -1, 1);
		ASSERT(backend_cpu.tensor_write(in[i], buf, tg_bytes(d), &diag) == WEBNN_STATUS_OK);
		free(buf);
	}
	for (size_t i = 0; i < g->n_outputs; i++)
		ASSERT(backend_cpu.tensor_create(ctx, &g->values[g->outputs[i]].desc, &out[i],
						 &diag) == WEBNN_STATUS_OK);
	struct graph_ir *copy = graph_clone(g);
	ASSERT(copy);
	ASSERT_MSG(tg_optimize(copy, &backend_cpu, ctx, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	struct backend_plan *plan = NULL;
	double t0 = cc_now();
	ASSERT_MSG(backend_cpu.compile(ctx, copy, &plan, &diag) == WEBNN_STATUS_OK, "%s",
		   diag.message);
	double compile = cc_now() - t0;
	t0 = cc_now();
	ASSERT(backend_cpu.execute(plan, in, out, &diag) == WEBNN_STATUS_OK);
	double first = cc_now() - t0;
	enum { MAX_REPS = 401 };
	double t[MAX_REPS];
	int reps = first > 0 ? (int)(0.5 / first) : MAX_REPS;
	reps = reps < 11 ? 11 : reps > MAX_REPS ? MAX_REPS : reps | 1;
	for (int r = 0; r < reps; r++) {
		t0 = cc_now();
		ASSERT_MSG(backend_cpu.execute(plan, in, out, &diag) == WEBNN_STATUS_OK, "%s",
			   diag.message);
		t[r] = cc_now() - t0;
	}
	qsort(t, (size_t)reps, sizeof t[0], cc_cmp_double);
	printf("  compile %.2f ms, first run %.3f ms, %d runs: ", compile * 1e3, first * 1e3, reps);
	*best = t[0];
	backend_cpu.plan_destroy(plan);
	graph_destroy(copy);
	for (size_t i = 0; i < TG_MAX_OPERANDS; i++) {
		if (in[i])
			backend_cpu.tensor_destroy(in[i]);
		if (out[i])
			backend_cpu.tensor_destroy(out[i]);
	}
	backend_cpu.context_destroy(ctx);
	return t[reps / 2];
}

static void cc_bench_conv(struct backend *be, const char *name, const struct cc_conv *c)
{
	struct cc_conv_graph cg;
	char label[200];
	const struct graph_ir *g = cc_conv_build(&cg, c, label, sizeof label);
	uint32_t oh = (c->h + c->pad[0] + c->pad[1] - c->kh) / c->stride[0] + 1;
	uint32_t ow = (c->w + c->pad[2] + c->pad[3] - c->kw) / c->stride[1] + 1;
	double flop = 2.0 * c->n * oh * ow * c->oc * (c->c / c->groups) * c->kh * c->kw;
	printf("%s (%s)\n", name, label);
	double best, t = cc_time(be, g, &best);
	printf("median %.1f us = %.1f GFLOP/s, best %.1f us = %.1f GFLOP/s\n", t * 1e6,
	       flop / t * 1e-9, best * 1e6, flop / best * 1e-9);
	cc_conv_free(&cg);
}

TEST_TIMEOUT(bench_cpu_conv, 300)
{
	struct backend *be = cc_backend();
	struct cc_conv c3 = { 1, 64, 56, 56, 64, 3, 3, 1, { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 }, true,
			      { true, true, WNN_FILTER_OHWI, WNN_F32, 0 } };
	cc_bench_conv(be, "conv 3x3 56x56x64->64 NHWC", &c3);
	c3.r.epilogue = 1;
	cc_bench_conv(be, "conv 3x3 56x56x64->64 NHWC + relu", &c3);
	struct cc_conv c1 = { 1, 64, 56, 56, 128, 1, 1, 1, { 0, 0, 0, 0 }, { 1, 1 }, { 1, 1 },
			      true, { true, true, WNN_FILTER_OHWI, WNN_F32, 0 } };
	cc_bench_conv(be, "conv 1x1 56x56x64->128 NHWC", &c1);
	struct cc_conv dw = { 1, 144, 56, 56, 144, 3, 3, 144, { 1, 1, 1, 1 }, { 1, 1 }, { 1, 1 },
			      true, { true, true, WNN_FILTER_IHWO, WNN_F32, 0 } };
	cc_bench_conv(be, "depthwise 3x3 56x56x144 NHWC", &dw);
	c3.r.nhwc = false;
	c3.r.filter_layout = WNN_FILTER_OIHW;
	c3.r.epilogue = 0;
	cc_bench_conv(be, "conv 3x3 56x56x64->64, client NCHW (layout pass transposes)", &c3);
	c3.r.nhwc = true;
	c3.r.filter_layout = WNN_FILTER_OHWI;
	c3.r.const_filter = false;
	cc_bench_conv(be, "conv 3x3 56x56x64->64 NHWC, filter as an input", &c3);
	backend_cpu.shutdown(be);
}

static void cc_bench_matmul(struct backend *be, uint32_t M, uint32_t K, uint32_t N, bool konst)
{
	struct tg_graph tg;
	tg_init(&tg);
	float *bdata = malloc((size_t)K * N * 4);
	tg_random(bdata, WNN_F32, (uint64_t)K * N, 3, -1, 1);
	uint32_t a = tg_input(&tg, WNN_F32, 2, (uint32_t[]){ M, K });
	uint32_t b = konst ? tg_constant(&tg, WNN_F32, 2, (uint32_t[]){ K, N }, bdata)
			   : tg_input(&tg, WNN_F32, 2, (uint32_t[]){ K, N });
	Webnn__Ipc__Matmul m = WEBNN__IPC__MATMUL__INIT;
	m.a = a;
	m.b = b;
	m.output = tg_next(&tg);
	Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
	cc_add_op(&tg, &o, WNN_OP_MATMUL, &m, "matmul");
	printf("matmul %ux%ux%u, B %s\n", M, K, N, konst ? "constant" : "an input");
	double best, t = cc_time(be, cc_finish(&tg, "matmul"), &best);
	double flop = 2.0 * M * N * K;
	printf("median %.3f ms = %.1f GFLOP/s, best %.3f ms = %.1f GFLOP/s\n", t * 1e3,
	       flop / t * 1e-9, best * 1e3, flop / best * 1e-9);
	tg_free(&tg);
	free(bdata);
}

TEST_TIMEOUT(bench_cpu_matmul, 300)
{
	struct backend *be = cc_backend();
	cc_bench_matmul(be, 1024, 1024, 1024, true);
	cc_bench_matmul(be, 1024, 1024, 1024, false);
	cc_bench_matmul(be, 1, 1024, 1000, true);
	backend_cpu.shutdown(be);
}

/* A decoder's 2x upsampling convTranspose2d, 4x4 stride 2, in both client layouts. */
TEST_TIMEOUT(bench_cpu_conv_transpose2d, 300)
{
	struct backend *be = cc_backend();
	for (int nhwc = 1; nhwc >= 0; nhwc--) {
		const uint32_t C = 64, OC = 32, H = 28, K = 4;
		struct tg_graph tg;
		tg_init(&tg);
		uint32_t idims[4] = { 1, C, H, H };
		if (nhwc)
			memcpy(idims, (uint32_t[]){ 1, H, H, C }, sizeof idims);
		uint32_t fd[4] = { C, OC, K, K }; /* iohw */
		float *fdata = malloc((size_t)C * OC * K * K * 4);
		tg_random(fdata, WNN_F32, (uint64_t)C * OC * K * K, 5, -1, 1);
		uint32_t x = tg_input(&tg, WNN_F32, 4, idims);
		uint32_t w = tg_constant(&tg, WNN_F32, 4, fd, fdata);
		Webnn__Ipc__ConvTranspose2d m = WEBNN__IPC__CONV_TRANSPOSE2D__INIT;
		uint32_t st[2] = { 2, 2 }, pd[4] = { 1, 1, 1, 1 };
		m.input = x;
		m.filter = w;
		m.n_strides = 2;
		m.strides = st;
		m.n_padding = 4;
		m.padding = pd;
		m.has_input_layout = 1;
		m.input_layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC : WEBNN__IPC__INPUT_LAYOUT__NCHW;
		m.output = tg_next(&tg);
		Webnn__Ipc__Operation o = WEBNN__IPC__OPERATION__INIT;
		cc_add_op(&tg, &o, WNN_OP_CONV_TRANSPOSE2D, &m, "convTranspose2d");
		printf("convTranspose2d 28x28x64 -> 56x56x32, 4x4 stride 2, %s\n",
		       nhwc ? "NHWC" : "NCHW");
		double best, t = cc_time(be, cc_finish(&tg, "convTranspose2d"), &best);
		double flop = 2.0 * H * H * C * OC * K * K;
		printf("median %.1f us = %.1f GFLOP/s, best %.1f us = %.1f GFLOP/s\n", t * 1e6,
		       flop / t * 1e-9, best * 1e6, flop / best * 1e-9);
		tg_free(&tg);
		free(fdata);
	}
	backend_cpu.shutdown(be);
}
