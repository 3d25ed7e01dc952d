/* OpenCL backend plans: compile (lowering through the family table), buffer reuse, whole-graph execute. */
#include "daemon/backend/opencl/ocl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every family's lowering, and the rule for which types it runs beyond ops.def's type column
 * (NULL: every type ops.def allows). */
static const struct {
	void (*lower)(struct ocl_build *b, enum wnn_op op);
	bool (*supports)(enum wnn_op op, enum wnn_dtype t);
} families[WNN_FAMILY_COUNT] = {
	[WNN_FAMILY_ELEMENTWISE] = { ocl_lower_elementwise, ocl_supports_elementwise },
	[WNN_FAMILY_REDUCE] = { ocl_lower_reduce, NULL },
	[WNN_FAMILY_NORMALIZATION] = { ocl_lower_normalization, NULL },
	[WNN_FAMILY_CONV] = { ocl_lower_conv, NULL },
	[WNN_FAMILY_POOL] = { ocl_lower_pool, NULL },
	[WNN_FAMILY_LINALG] = { ocl_lower_linalg, NULL },
	[WNN_FAMILY_DATA] = { ocl_lower_data, NULL },
	[WNN_FAMILY_GATHER] = { ocl_lower_gather, NULL },
	[WNN_FAMILY_CAST] = { ocl_lower_cast, NULL },
	[WNN_FAMILY_RNN] = { ocl_lower_rnn, NULL },
	[WNN_FAMILY_RESAMPLE] = { ocl_lower_resample, NULL },
};

bool ocl_supports(enum wnn_op op, enum wnn_dtype t)
{
	if (op >= WNN_OP_COUNT || t <= WNN_DT_NONE || t >= WNN_DT_COUNT)
		return false;
	/* ops.def's column is the spec's table for the first input; float16 is computed in float
	 * where a kernel has no half path. */
	if (!(wnn_ops[op].dtypes & WNN_DT_BIT(t)))
		return false;
	enum wnn_family f = wnn_ops[op].family;
	if (f >= WNN_FAMILY_COUNT || !families[f].lower)
		return false;
	return !families[f].supports || families[f].supports(op, t);
}

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
		uint32_t id = ocl_slot_add(&b, OCL_SLOT_INPUT, (uint32_t)i, (size_t)bytes);
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
		uint32_t id = ocl_slot_add(&b, OCL_SLOT_OUTPUT, (uint32_t)i, (size_t)bytes);
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
		families[wnn_ops[kind].family].lower(&b, kind);
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
			st = ocl_run_gemm(p, s, slot_mem(p, s->gemm.a, inputs, outputs),
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
