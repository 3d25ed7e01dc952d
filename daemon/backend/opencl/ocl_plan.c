/* OpenCL backend plans: slots, step lists, liveness-based buffer reuse, and whole-graph execute. */
#include "daemon/backend/opencl/ocl.h"

#include <clblast_c.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ slots and steps */

static uint32_t slot_add(struct ocl_build *b, enum ocl_slot_kind kind, uint32_t index,
			 size_t bytes)
{
	struct backend_plan *p = b->plan;
	if (p->n_slots == p->cap_slots) {
		size_t cap = p->cap_slots ? p->cap_slots * 2 : 64;
		struct ocl_slot *s = realloc(p->slots, cap * sizeof *s);
		if (!s) {
			wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
			return UINT32_MAX;
		}
		p->slots = s;
		p->cap_slots = cap;
	}
	struct ocl_slot *s = &p->slots[p->n_slots];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->index = index;
	s->bytes = bytes;
	s->first_step = INT_MAX;
	s->last_step = -1;
	return (uint32_t)p->n_slots++;
}

uint32_t ocl_slot_new_temp(struct ocl_build *b, size_t bytes)
{
	return slot_add(b, OCL_SLOT_TEMP, 0, bytes ? bytes : 4);
}

enum webnn_status ocl_slot_const(struct ocl_build *b, const void *data, size_t bytes,
				 uint32_t *slot)
{
	uint32_t id = slot_add(b, OCL_SLOT_CONST, 0, bytes);
	if (id == UINT32_MAX)
		return b->diag->status;
	size_t alloc = (bytes + 3) & ~(size_t)3;
	void *tmp = NULL;
	if (alloc != bytes) {
		/* Padding keeps word reads of tiny constants inside the buffer. */
		tmp = calloc(1, alloc);
		if (!tmp)
			return wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
					    b->what);
		memcpy(tmp, data, bytes);
		data = tmp;
	}
	cl_int err;
	cl_mem m = clCreateBuffer(b->plan->ctx->dev->context,
				  CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, alloc, (void *)data, &err);
	free(tmp);
	if (!m)
		return wnn_diag_set(b->diag, err == CL_OUT_OF_HOST_MEMORY ||
						     err == CL_MEM_OBJECT_ALLOCATION_FAILURE
					     ? WEBNN_STATUS_NO_MEMORY
					     : ocl_enqueue_status(err),
				    "%s: constant buffer of %zu bytes: %s", b->what, alloc,
				    ocl_error_name(err));
	b->plan->slots[id].mem = m;
	*slot = id;
	return WEBNN_STATUS_OK;
}

uint32_t ocl_operand_slot(struct ocl_build *b, uint32_t operand)
{
	struct backend_plan *p = b->plan;
	if (operand >= b->g->n_operands) {
		wnn_diag_set(b->diag, WEBNN_STATUS_DATA_ERROR, "%s: operand %u out of range",
			     b->what, operand);
		return UINT32_MAX;
	}
	if (p->operand_slot[operand] != UINT32_MAX)
		return p->operand_slot[operand];
	const void *data = b->g->constant_data ? b->g->constant_data[operand] : NULL;
	if (data) {
		uint64_t bytes;
		uint32_t id;
		if (!wnn_desc_bytes(&b->g->descs[operand], &bytes)) {
			wnn_diag_set(b->diag, WEBNN_STATUS_DATA_ERROR,
				     "%s: constant operand %u has an invalid size", b->what, operand);
			return UINT32_MAX;
		}
		if (ocl_slot_const(b, data, (size_t)bytes, &id) != WEBNN_STATUS_OK)
			return UINT32_MAX;
		p->operand_slot[operand] = id;
		return id;
	}
	wnn_diag_set(b->diag, WEBNN_STATUS_DATA_ERROR, "%s: operand %u is used before it is defined",
		     b->what, operand);
	return UINT32_MAX;
}

uint32_t ocl_output_slot(struct ocl_build *b, uint32_t operand)
{
	struct backend_plan *p = b->plan;
	if (operand >= b->g->n_operands) {
		wnn_diag_set(b->diag, WEBNN_STATUS_DATA_ERROR, "%s: operand %u out of range",
			     b->what, operand);
		return UINT32_MAX;
	}
	if (p->operand_slot[operand] != UINT32_MAX)
		return p->operand_slot[operand]; /* a graph output */
	uint64_t bytes = 0;
	wnn_desc_bytes(&b->g->descs[operand], &bytes);
	uint32_t id = ocl_slot_new_temp(b, (size_t)bytes);
	if (id != UINT32_MAX)
		p->operand_slot[operand] = id;
	return id;
}

struct ocl_step *ocl_step_new(struct ocl_build *b, enum ocl_step_kind kind)
{
	struct backend_plan *p = b->plan;
	if (b->diag->status)
		return NULL;
	if (p->n_steps == p->cap_steps) {
		size_t cap = p->cap_steps ? p->cap_steps * 2 : 64;
		struct ocl_step *s = realloc(p->steps, cap * sizeof *s);
		if (!s) {
			wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
			return NULL;
		}
		p->steps = s;
		p->cap_steps = cap;
	}
	struct ocl_step *s = &p->steps[p->n_steps++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->what = b->what;
	return s;
}

void ocl_slot_use(struct ocl_build *b, uint32_t slot)
{
	struct backend_plan *p = b->plan;
	if (slot >= p->n_slots || p->n_steps == 0)
		return;
	int step = (int)p->n_steps - 1;
	struct ocl_slot *s = &p->slots[slot];
	if (step < s->first_step)
		s->first_step = step;
	if (step > s->last_step)
		s->last_step = step;
}

struct ocl_step *ocl_step_kernel(struct ocl_build *b, cl_program prog, const char *name)
{
	if (b->diag->status)
		return NULL;
	cl_int err;
	cl_kernel k = clCreateKernel(prog, name, &err);
	if (!k) {
		wnn_diag_set(b->diag, ocl_enqueue_status(err), "%s: clCreateKernel(%s): %s",
			     b->what, name, ocl_error_name(err));
		return NULL;
	}
	struct ocl_step *s = ocl_step_new(b, OCL_STEP_KERNEL);
	if (!s) {
		clReleaseKernel(k);
		return NULL;
	}
	s->kernel = k;
	return s;
}

void ocl_arg_mem(struct ocl_build *b, struct ocl_step *s, cl_uint arg, uint32_t slot)
{
	if (!s || b->diag->status)
		return;
	if (slot == UINT32_MAX || s->n_mem >= OCL_MAX_MEM_ARGS) {
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR, "%s: bad buffer argument",
			     b->what);
		return;
	}
	s->mem[s->n_mem].arg = arg;
	s->mem[s->n_mem].slot = slot;
	s->n_mem++;
	ocl_slot_use(b, slot);
}

void ocl_arg(struct ocl_build *b, struct ocl_step *s, cl_uint arg, size_t size, const void *v)
{
	if (!s || b->diag->status)
		return;
	cl_int err = clSetKernelArg(s->kernel, arg, size, v);
	if (err != CL_SUCCESS)
		wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR, "%s: kernel argument %u: %s",
			     b->what, arg, ocl_error_name(err));
}

void ocl_step_range1(struct ocl_step *s, size_t n)
{
	if (!s)
		return;
	const size_t local = 64;
	s->dims = 1;
	s->global[0] = (n + local - 1) / local * local;
	s->local[0] = local;
	s->has_local = true;
}

static size_t divisor_upto(size_t n, size_t cap)
{
	if (cap < 1)
		cap = 1;
	for (size_t d = cap < n ? cap : n; d > 1; d--)
		if (n % d == 0)
			return d;
	return 1;
}

void ocl_step_range3(struct ocl_step *s, size_t x, size_t y, size_t z)
{
	if (!s)
		return;
	/* Work-groups of up to 256 items, dividing the range exactly (no padding items): PoCL
	 * runs a work-group as one loop, so tiny groups pay its per-group cost many times. */
	s->dims = 3;
	s->global[0] = x ? x : 1;
	s->global[1] = y ? y : 1;
	s->global[2] = z ? z : 1;
	s->local[0] = divisor_upto(s->global[0], 64);
	s->local[1] = divisor_upto(s->global[1], 256 / s->local[0]);
	s->local[2] = divisor_upto(s->global[2], 256 / (s->local[0] * s->local[1]));
	s->has_local = true;
}

/* ------------------------------------------------------------------ typed programs */

const char *const ocl_cl_types[WNN_DT_COUNT] = {
	[WNN_F32] = "float", [WNN_F16] = "half", [WNN_I32] = "int",  [WNN_U32] = "uint",
	[WNN_I64] = "long",  [WNN_U64] = "ulong", [WNN_I8] = "char", [WNN_U8] = "uchar",
};

static void type_prefix(struct ocl_device *dev, enum wnn_dtype t, char *buf, size_t len)
{
	const char *ct = ocl_cl_types[t];
	bool is_signed = t == WNN_I32 || t == WNN_I64 || t == WNN_I8;
	const char *facc = dev->fp64 ? "double" : "float";
	const char *fp64 = dev->fp64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "";
	static const char *const lowest[WNN_DT_COUNT] = {
		[WNN_I32] = "INT_MIN", [WNN_U32] = "0", [WNN_I64] = "LONG_MIN",
		[WNN_U64] = "0",       [WNN_I8] = "CHAR_MIN", [WNN_U8] = "0",
	};
	if (t == WNN_F32)
		snprintf(buf, len,
			 "#define T float\n#define ACC float\n#define FACC float\n#define IS_FLOAT 1\n"
			 "#define LD(p, i) ((p)[i])\n#define ST(p, i, v) ((p)[i] = (float)(v))\n"
			 "#define LOWEST (-INFINITY)\n#define CONVERT_SAT(v) (v)\n");
	else if (t == WNN_F16)
		snprintf(buf, len,
			 "#define T half\n#define ACC float\n#define FACC float\n#define IS_FLOAT 1\n"
			 "#define LD(p, i) vload_half((i), (p))\n"
			 "#define ST(p, i, v) vstore_half_rte((float)(v), (i), (p))\n"
			 "#define LOWEST (-INFINITY)\n#define CONVERT_SAT(v) (v)\n");
	else
		snprintf(buf, len,
			 "%s#define T %s\n#define ACC %s\n#define FACC %s\n#define IS_INT 1\n"
			 "#define LD(p, i) ((ACC)(p)[i])\n#define ST(p, i, v) ((p)[i] = (T)(v))\n"
			 "#define LOWEST %s\n#define CONVERT_SAT(v) convert_%s_sat_rte(v)\n",
			 fp64, ct, is_signed ? "long" : "ulong", facc, lowest[t], ct);
}

enum webnn_status ocl_epilogue_program(struct ocl_build *b, unsigned flags, unsigned mode,
				       cl_program *out)
{
	char prefix[600];
	type_prefix(b->plan->ctx->dev, WNN_F32, prefix, sizeof prefix - 80);
	size_t n = strlen(prefix);
	snprintf(prefix + n, sizeof prefix - n, "#define EPI_ONLY 1\n#define EPI_FLAGS %uu\n"
		 "#define EPI_MODE %u\n", flags, mode);
	return ocl_program_get(b->plan->ctx->be, b->plan->ctx->dev, "conv.cl", prefix, "",
			       OCL_CL_OPTIONS, out, b->diag);
}

enum webnn_status ocl_typed_program(struct ocl_build *b, const char *file, enum wnn_dtype t,
				    cl_program *out)
{
	char prefix[512];
	struct ocl_device *dev = b->plan->ctx->dev;
	if (strcmp(file, "data.cl") == 0) {
		static const char *const by_size[9] = { [1] = "uchar", [2] = "ushort", [4] = "uint",
							[8] = "ulong" };
		snprintf(prefix, sizeof prefix, "#define T %s\n", by_size[wnn_dtype_size(t)]);
	} else {
		type_prefix(dev, t, prefix, sizeof prefix);
	}
	return ocl_program_get(b->plan->ctx->be, dev, file, prefix, "", OCL_CL_OPTIONS, out,
			       b->diag);
}

/* ------------------------------------------------------------------ compile */

static void assign_buffers(struct ocl_build *b)
{
	struct backend_plan *p = b->plan;
	size_t n = 0;
	for (size_t i = 0; i < p->n_slots; i++)
		n += p->slots[i].kind == OCL_SLOT_TEMP;
	if (!n)
		return;
	uint32_t *order = malloc(n * sizeof *order);
	size_t *phys_size = calloc(n, sizeof *phys_size);
	int *phys_busy = malloc(n * sizeof *phys_busy);
	if (!order || !phys_size || !phys_busy) {
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "compile: out of memory");
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < p->n_slots; i++)
		if (p->slots[i].kind == OCL_SLOT_TEMP)
			order[n++] = (uint32_t)i;
	/* Insertion sort by first use: plans are at most a few thousand temps. */
	for (size_t i = 1; i < n; i++) {
		uint32_t v = order[i];
		size_t j = i;
		while (j > 0 && p->slots[order[j - 1]].first_step > p->slots[v].first_step) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = v;
	}
	size_t n_phys = 0;
	for (size_t i = 0; i < n; i++) {
		struct ocl_slot *s = &p->slots[order[i]];
		if (s->first_step == INT_MAX) /* never used */
			s->first_step = s->last_step = 0;
		/* Best fit among free buffers; else grow the largest free one; else a new one. */
		int best = -1, grow = -1;
		for (size_t k = 0; k < n_phys; k++) {
			if (phys_busy[k] >= s->first_step)
				continue;
			if (phys_size[k] >= s->bytes) {
				if (best < 0 || phys_size[k] < phys_size[best])
					best = (int)k;
			} else if (grow < 0 || phys_size[k] > phys_size[grow]) {
				grow = (int)k;
			}
		}
		if (best < 0)
			best = grow;
		if (best < 0)
			best = (int)n_phys++;
		if (phys_size[best] < s->bytes)
			phys_size[best] = s->bytes;
		phys_busy[best] = s->last_step;
		s->index = (uint32_t)best;
	}
	p->phys = calloc(n_phys, sizeof *p->phys);
	if (!p->phys) {
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "compile: out of memory");
		goto out;
	}
	p->n_phys = n_phys;
	for (size_t k = 0; k < n_phys; k++) {
		cl_int err;
		size_t bytes = (phys_size[k] + 63) & ~(size_t)63;
		p->phys[k] = clCreateBuffer(p->ctx->dev->context, CL_MEM_READ_WRITE, bytes, NULL,
					    &err);
		if (!p->phys[k]) {
			wnn_diag_set(b->diag,
				     err == CL_OUT_OF_HOST_MEMORY ||
						     err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
						     err == CL_INVALID_BUFFER_SIZE
					     ? WEBNN_STATUS_NO_MEMORY
					     : ocl_enqueue_status(err),
				     "compile: intermediate buffer of %zu bytes: %s", bytes,
				     ocl_error_name(err));
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++)
		p->slots[order[i]].mem = p->phys[p->slots[order[i]].index];
out:
	free(order);
	free(phys_size);
	free(phys_busy);
}

static void bind_fixed_args(struct ocl_build *b)
{
	struct backend_plan *p = b->plan;
	for (size_t i = 0; i < p->n_steps && !b->diag->status; i++) {
		struct ocl_step *s = &p->steps[i];
		if (s->kind != OCL_STEP_KERNEL)
			continue;
		for (int m = 0; m < s->n_mem; m++) {
			struct ocl_slot *sl = &p->slots[s->mem[m].slot];
			if (sl->kind == OCL_SLOT_INPUT || sl->kind == OCL_SLOT_OUTPUT)
				continue;
			cl_int err = clSetKernelArg(s->kernel, s->mem[m].arg, sizeof(cl_mem), &sl->mem);
			if (err != CL_SUCCESS)
				wnn_diag_set(b->diag, WEBNN_STATUS_OPERATION_ERROR,
					     "%s: buffer argument: %s", s->what, ocl_error_name(err));
		}
	}
}

static enum webnn_status ocl_compile_source(struct backend_context *ctx,
					    const struct graph_source *g,
			      struct backend_plan **out, struct wnn_diag *diag)
{
	struct backend_plan *p = calloc(1, sizeof *p);
	if (!p)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "compile: out of memory");
	p->ctx = ctx;
	p->g = g;
	p->n_inputs = g->n_inputs;
	p->n_outputs = g->n_outputs;
	p->operand_slot = malloc((g->n_operands ? g->n_operands : 1) * sizeof *p->operand_slot);
	struct ocl_build b = { .plan = p, .g = g, .diag = diag, .what = "compile" };
	if (!p->operand_slot) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "compile: out of memory");
		goto fail;
	}
	for (size_t i = 0; i < g->n_operands; i++) {
		uint64_t count;
		p->operand_slot[i] = UINT32_MAX;
		if (!wnn_desc_count(&g->descs[i], &count) || count >= UINT32_MAX) {
			char buf[96];
			wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				     "compile: operand %zu (%s) has too many elements for the "
				     "OpenCL backend (limit 2^32 - 1)",
				     i, wnn_desc_str(&g->descs[i], buf, sizeof buf));
			goto fail;
		}
	}
	for (size_t i = 0; i < g->n_inputs; i++) {
		uint64_t bytes = 0;
		wnn_desc_bytes(&g->descs[g->input_operands[i]], &bytes);
		uint32_t id = slot_add(&b, OCL_SLOT_INPUT, (uint32_t)i, (size_t)bytes);
		if (id == UINT32_MAX)
			goto fail;
		p->operand_slot[g->input_operands[i]] = id;
	}
	/* Graph outputs are written in place; an operand named twice is copied at the end. */
	uint32_t *dups = calloc(g->n_outputs ? g->n_outputs : 1, sizeof *dups);
	if (!dups) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "compile: out of memory");
		goto fail;
	}
	for (size_t i = 0; i < g->n_outputs; i++) {
		uint32_t opd = g->output_operands[i];
		uint64_t bytes = 0;
		wnn_desc_bytes(&g->descs[opd], &bytes);
		uint32_t id = slot_add(&b, OCL_SLOT_OUTPUT, (uint32_t)i, (size_t)bytes);
		if (id == UINT32_MAX) {
			free(dups);
			goto fail;
		}
		dups[i] = UINT32_MAX;
		if (p->operand_slot[opd] != UINT32_MAX)
			dups[i] = id;
		else
			p->operand_slot[opd] = id;
	}
	if (ocl_fusion_plan(&b) != WEBNN_STATUS_OK) {
		free(dups);
		goto fail;
	}
	for (size_t i = 0; i < g->info->n_operations && !diag->status; i++) {
		const Webnn__Ipc__Operation *op = g->info->operations[i];
		enum wnn_op kind = wnn_op_from_id(op->op);
		if (ocl_fusion_skip(&b, i))
			continue; /* computed by the epilogue of an earlier operation */
		b.op = op;
		b.op_index = i;
		b.what = kind < WNN_OP_COUNT ? wnn_ops[kind].name : "compile";
		if (kind == WNN_OP_COUNT) {
			wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED, "compile: unknown operator id %u",
				     op->op);
			break;
		}
		uint32_t ids[16];
		int n_in = wnn_op_inputs(op, ids, NULL, 16);
		enum wnn_dtype t = n_in > 0 && ids[0] < g->n_operands ? g->descs[ids[0]].type
								       : WNN_DT_NONE;
		if (!ocl_supports(kind, t)) {
			wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
				     "%s: not supported by the OpenCL backend for %s", b.what,
				     wnn_dtype_name(t));
			break;
		}
		ocl_lower_op(&b, kind);
	}
	b.what = "compile";
	for (size_t i = 0; i < g->n_outputs && !diag->status; i++) {
		if (dups[i] == UINT32_MAX)
			continue;
		struct ocl_step *s = ocl_step_new(&b, OCL_STEP_COPY);
		if (!s)
			break;
		s->src = p->operand_slot[g->output_operands[i]];
		s->dst = dups[i];
		s->size = p->slots[dups[i]].bytes;
	}
	free(dups);
	ocl_fusion_free(&b);
	if (diag->status)
		goto fail;
	assign_buffers(&b);
	bind_fixed_args(&b);
	if (diag->status)
		goto fail;
	*out = p;
	return WEBNN_STATUS_OK;
fail:
	ocl_fusion_free(&b);
	ocl_plan_destroy(p);
	if (!diag->status)
		wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR, "compile: failed");
	return diag->status;
}

/* Transitional: compiles from the graph's source until the plan is made from its nodes. */
enum webnn_status ocl_compile(struct backend_context *ctx, const struct graph_ir *ir,
			      struct backend_plan **out, struct wnn_diag *diag)
{
	return ocl_compile_source(ctx, ir->source, out, diag);
}

void ocl_plan_destroy(struct backend_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_steps; i++) {
		struct ocl_step *s = &p->steps[i];
		if (s->kernel)
			clReleaseKernel(s->kernel);
		free(s->gemm.a_offs);
		free(s->gemm.b_offs);
		free(s->gemm.c_offs);
		free(s->gemm.alphas);
		free(s->gemm.betas);
	}
	for (size_t i = 0; i < p->n_slots; i++)
		if (p->slots[i].kind == OCL_SLOT_CONST && p->slots[i].mem)
			clReleaseMemObject(p->slots[i].mem);
	for (size_t i = 0; i < p->n_phys; i++)
		if (p->phys[i])
			clReleaseMemObject(p->phys[i]);
	free(p->phys);
	free(p->steps);
	free(p->slots);
	free(p->operand_slot);
	free(p);
}

/* ------------------------------------------------------------------ execute */

static cl_mem slot_mem(struct backend_plan *p, uint32_t slot, struct backend_tensor *const *in,
		       struct backend_tensor *const *out)
{
	struct ocl_slot *s = &p->slots[slot];
	switch (s->kind) {
	case OCL_SLOT_INPUT:
		return in[s->index]->mem;
	case OCL_SLOT_OUTPUT:
		return out[s->index]->mem;
	default:
		return s->mem;
	}
}

static enum webnn_status clblast_status(struct ocl_step *s, CLBlastStatusCode st,
					struct wnn_diag *diag)
{
	if (st == CLBlastSuccess)
		return WEBNN_STATUS_OK;
	if (st > -1000) /* an OpenCL error code passed through */
		return wnn_diag_set(diag, ocl_enqueue_status(st), "%s: CLBlast gemm: %s", s->what,
				    ocl_error_name(st));
	return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR, "%s: CLBlast gemm failed (status %d)",
			    s->what, (int)st);
}

static enum webnn_status run_gemm(struct backend_plan *p, struct ocl_step *s, cl_mem a, cl_mem b,
				  cl_mem c, struct wnn_diag *diag)
{
	struct ocl_gemm *g = &s->gemm;
	cl_command_queue q = p->ctx->queue;
	CLBlastTranspose ta = g->a_trans ? CLBlastTransposeYes : CLBlastTransposeNo;
	CLBlastTranspose tb = g->b_trans ? CLBlastTransposeYes : CLBlastTransposeNo;
	CLBlastStatusCode st;
	if (g->batch <= 1)
		st = CLBlastSgemm(CLBlastLayoutRowMajor, ta, tb, g->m, g->n, g->k, g->alpha, a,
				  g->a_off, g->lda, b, g->b_off, g->ldb, g->beta, c, g->c_off, g->ldc,
				  &q, NULL);
	else if (g->strided)
		st = CLBlastSgemmStridedBatched(CLBlastLayoutRowMajor, ta, tb, g->m, g->n, g->k,
						g->alpha, a, g->a_off, g->lda, g->a_stride, b,
						g->b_off, g->ldb, g->b_stride, g->beta, c, g->c_off,
						g->ldc, g->c_stride, g->batch, &q, NULL);
	else
		st = CLBlastSgemmBatched(CLBlastLayoutRowMajor, ta, tb, g->m, g->n, g->k, g->alphas,
					 a, g->a_offs, g->lda, b, g->b_offs, g->ldb, g->betas, c,
					 g->c_offs, g->ldc, g->batch, &q, NULL);
	return clblast_status(s, st, diag);
}

enum webnn_status ocl_execute(struct backend_plan *p, struct backend_tensor *const *inputs,
			      struct backend_tensor *const *outputs, struct wnn_diag *diag)
{
	cl_command_queue q = p->ctx->queue;
	enum webnn_status st = WEBNN_STATUS_OK;
	/* Development aid: WEBNN_OCL_PROFILE=1 waits after every step and prints its time. */
	static int profile = -1;
	if (profile < 0)
		profile = getenv("WEBNN_OCL_PROFILE") != NULL;
	struct timespec t0, t1;
	for (size_t i = 0; i < p->n_steps && st == WEBNN_STATUS_OK; i++) {
		struct ocl_step *s = &p->steps[i];
		cl_int err = CL_SUCCESS;
		if (profile)
			clock_gettime(CLOCK_MONOTONIC, &t0);
		switch (s->kind) {
		case OCL_STEP_KERNEL:
			for (int m = 0; m < s->n_mem && err == CL_SUCCESS; m++) {
				struct ocl_slot *sl = &p->slots[s->mem[m].slot];
				if (sl->kind != OCL_SLOT_INPUT && sl->kind != OCL_SLOT_OUTPUT)
					continue;
				cl_mem mem = slot_mem(p, s->mem[m].slot, inputs, outputs);
				err = clSetKernelArg(s->kernel, s->mem[m].arg, sizeof mem, &mem);
			}
			if (err == CL_SUCCESS)
				err = clEnqueueNDRangeKernel(q, s->kernel, s->dims, NULL, s->global,
							     s->has_local ? s->local : NULL, 0, NULL,
							     NULL);
			break;
		case OCL_STEP_GEMM:
			st = run_gemm(p, s, slot_mem(p, s->gemm.a, inputs, outputs),
				      slot_mem(p, s->gemm.b, inputs, outputs),
				      slot_mem(p, s->gemm.c, inputs, outputs), diag);
			break;
		case OCL_STEP_COPY:
			err = clEnqueueCopyBuffer(q, slot_mem(p, s->src, inputs, outputs),
						  slot_mem(p, s->dst, inputs, outputs), s->src_off,
						  s->dst_off, s->size, 0, NULL, NULL);
			break;
		case OCL_STEP_FILL:
			err = clEnqueueFillBuffer(q, slot_mem(p, s->dst, inputs, outputs), &s->pattern,
						  sizeof s->pattern, s->dst_off, s->size, 0, NULL,
						  NULL);
			break;
		}
		if (err != CL_SUCCESS)
			st = wnn_diag_set(diag, ocl_enqueue_status(err), "%s: enqueue failed: %s",
					  s->what, ocl_error_name(err));
		if (profile) {
			clFinish(q);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			char kname[64] = "";
			if (s->kind == OCL_STEP_KERNEL)
				clGetKernelInfo(s->kernel, CL_KERNEL_FUNCTION_NAME, sizeof kname - 1,
						kname, NULL);
			fprintf(stderr, "ocl step %3zu %-18s %-14s %9.3f ms\n", i, s->what,
				s->kind == OCL_STEP_KERNEL ? kname
				: s->kind == OCL_STEP_GEMM ? "gemm"
				: s->kind == OCL_STEP_COPY ? "copy" : "fill",
				(t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
		}
	}
	cl_int err = clFinish(q);
	if (err != CL_SUCCESS && st == WEBNN_STATUS_OK)
		st = wnn_diag_set(diag, ocl_enqueue_status(err), "dispatch: clFinish: %s",
				  ocl_error_name(err));
	return st;
}
