/* OpenCL plans: compile (lowering through the family table), buffers, whole-graph execute. */
#include "daemon/worker/obj.h"
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

/* Concat in place: a conv2d on the gemm path writes its float32 result (and epilogue) straight
 * into its slice of the concat's output. */
static bool writes_concat_slice(const struct graph_node *n, const struct wnn_desc *out)
{
	return n->op == WNN_OP_CONV2D && out->type == WNN_F32 &&
	       ocl_conv_uses_gemm(&n->attrs.conv2d);
}

void ocl_caps(struct backend_context *ctx, struct graph_caps *caps)
{
	caps->assign_layout = true;
	caps->layout = ctx->dev->info.preferred_layout;
	caps->epilogues = true;
	caps->elementwise_chains = true;
	caps->writes_concat_slice = writes_concat_slice;
	caps->fold_scale_shift = true;
	caps->rewrite_pow = true;
}

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

/* The backend's scratch slots reuse buffers by their live ranges, like the memory plan. */
static void assign_buffers(struct ocl_build *b)
{
	struct backend_plan *p = b->plan;
	size_t n = 0;
	for (size_t i = 0; i < p->n_slots; i++)
		n += p->slots[i].kind == OCL_SLOT_TEMP;
	if (!n)
		return;
	struct graph_live_range *r = malloc(n * sizeof *r);
	uint32_t n_phys = 0;
	uint64_t *phys_size = NULL;
	if (r) {
		n = 0;
		for (size_t i = 0; i < p->n_slots; i++) {
			struct ocl_slot *s = &p->slots[i];
			if (s->kind != OCL_SLOT_TEMP)
				continue;
			if (s->first_step == INT_MAX) /* never used */
				s->first_step = s->last_step = 0;
			r[n++] = (struct graph_live_range){ .id = (uint32_t)i,
							    .first = (uint32_t)s->first_step,
							    .last = (uint32_t)s->last_step,
							    .bytes = s->bytes };
		}
		phys_size = graph_assign_buffers(r, (uint32_t)n, &n_phys);
	}
	if (!phys_size) {
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "compile: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		p->slots[r[i].id].index = r[i].buffer;
	p->phys = calloc(n_phys, sizeof *p->phys);
	if (!p->phys) {
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "compile: out of memory");
		goto out;
	}
	p->n_phys = n_phys;
	for (size_t k = 0; k < n_phys; k++) {
		cl_int err;
		size_t bytes = (phys_size[k] + 63) & ~(size_t)63;
		p->phys_bytes += bytes;
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
		p->slots[r[i].id].mem = p->phys[r[i].buffer];
out:
	free(r);
	free(phys_size);
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

/* Every value must fit the kernels' 32-bit element indices. */
static enum webnn_status check_sizes(const struct graph_ir *g, struct wnn_diag *diag)
{
	for (uint32_t i = 0; i < g->n_values; i++) {
		uint64_t count;
		if (g->values[i].kind == GRAPH_VALUE_UNUSED)
			continue;
		if (!wnn_desc_count(&g->values[i].desc, &count) || count >= UINT32_MAX) {
			char buf[96];
			return wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED,
					    "compile: operand %u (%s) has too many elements for the "
					    "OpenCL backend (limit 2^32 - 1)",
					    i, wnn_desc_str(&g->values[i].desc, buf, sizeof buf));
		}
	}
	return WEBNN_STATUS_OK;
}

/* One device buffer per buffer of the graph's memory plan. */
static enum webnn_status alloc_planned(struct ocl_build *b)
{
	struct backend_plan *p = b->plan;
	const struct graph_plan *gp = &b->g->plan;
	if (!gp->n_buffers)
		return WEBNN_STATUS_OK;
	p->planned = calloc(gp->n_buffers, sizeof *p->planned);
	if (!p->planned)
		return wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "compile: out of memory");
	p->n_planned = gp->n_buffers;
	for (uint32_t k = 0; k < gp->n_buffers; k++) {
		cl_int err;
		size_t bytes = ((size_t)gp->buffer_bytes[k] + 63) & ~(size_t)63;
		p->planned[k] = clCreateBuffer(p->ctx->dev->context, CL_MEM_READ_WRITE,
					       bytes ? bytes : 64, NULL, &err);
		if (!p->planned[k])
			return wnn_diag_set(b->diag,
					    err == CL_OUT_OF_HOST_MEMORY ||
							    err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
							    err == CL_INVALID_BUFFER_SIZE
						    ? WEBNN_STATUS_NO_MEMORY
						    : ocl_enqueue_status(err),
					    "compile: intermediate buffer of %zu bytes: %s", bytes,
					    ocl_error_name(err));
	}
	return WEBNN_STATUS_OK;
}

/* Slots of the graph inputs and outputs (tensors bound at execute). A value bound to several
 * outputs is written into the first; dups[i] is the slot the later ones are copied to. */
static enum webnn_status bind_tensors(struct ocl_build *b, uint32_t *dups)
{
	struct backend_plan *p = b->plan;
	const struct graph_ir *g = b->g;
	for (uint32_t i = 0; i < g->n_inputs; i++) {
		uint64_t bytes = 0;
		wnn_desc_bytes(&g->values[g->inputs[i]].desc, &bytes);
		uint32_t id = ocl_slot_add(b, OCL_SLOT_INPUT, i, (size_t)bytes);
		if (id == UINT32_MAX)
			return b->diag->status;
		p->operand_slot[g->inputs[i]] = id;
	}
	for (uint32_t i = 0; i < g->n_outputs; i++) {
		uint32_t v = g->outputs[i];
		uint64_t bytes = 0;
		wnn_desc_bytes(&g->values[v].desc, &bytes);
		uint32_t id = ocl_slot_add(b, OCL_SLOT_OUTPUT, i, (size_t)bytes);
		if (id == UINT32_MAX)
			return b->diag->status;
		dups[i] = UINT32_MAX;
		if (p->operand_slot[v] != UINT32_MAX)
			dups[i] = id;
		else
			p->operand_slot[v] = id;
	}
	return WEBNN_STATUS_OK;
}

/* Steps of every live node in order; folded, dead and fused nodes are computed elsewhere. */
static void lower_nodes(struct ocl_build *b)
{
	const struct graph_ir *g = b->g;
	GRAPH_FOR_EACH_LIVE_NODE(g, i) {
		if (b->diag->status)
			return;
		const struct graph_node *n = &g->nodes[i];
		b->node = n;
		b->what = wnn_ops[n->op].name;
		enum wnn_dtype t = n->n_inputs ? g->values[n->inputs[0]].desc.type : WNN_DT_NONE;
		if (!ocl_supports(n->op, t)) {
			wnn_diag_set(b->diag, WEBNN_STATUS_NOT_SUPPORTED,
				     "%s: not supported by the OpenCL backend for %s", b->what,
				     wnn_dtype_name(t));
			return;
		}
		families[wnn_ops[n->op].family].lower(b, n->op);
	}
	b->node = NULL;
	b->what = "compile";
}

static void copy_duplicate_outputs(struct ocl_build *b, const uint32_t *dups)
{
	struct backend_plan *p = b->plan;
	for (uint32_t i = 0; i < b->g->n_outputs && !b->diag->status; i++) {
		if (dups[i] == UINT32_MAX)
			continue;
		struct ocl_step *s = ocl_step_new(b, OCL_STEP_COPY);
		if (!s)
			return;
		s->src = p->operand_slot[b->g->outputs[i]];
		s->dst = dups[i];
		s->size = p->slots[dups[i]].bytes;
	}
}

enum webnn_status ocl_compile(struct backend_context *ctx, const struct graph_ir *g,
			      struct backend_plan **out, struct wnn_diag *diag)
{
	if (!g->optimized)
		return wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR,
				    "opencl: graph was not optimised");
	if (check_sizes(g, diag) != WEBNN_STATUS_OK)
		return diag->status;
	struct backend_plan *p = calloc(1, sizeof *p);
	uint32_t *dups = calloc(g->n_outputs ? g->n_outputs : 1, sizeof *dups);
	if (p) {
		p->ctx = ctx;
		p->g = g;
		p->n_inputs = g->n_inputs;
		p->n_outputs = g->n_outputs;
		p->operand_slot = malloc((g->n_values ? g->n_values : 1) * sizeof *p->operand_slot);
	}
	struct ocl_build b = { .plan = p, .g = g, .diag = diag, .what = "compile" };
	if (!p || !dups || !p->operand_slot) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "compile: out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < g->n_values; i++)
		p->operand_slot[i] = UINT32_MAX;
	if (alloc_planned(&b) || bind_tensors(&b, dups))
		goto fail;
	lower_nodes(&b);
	copy_duplicate_outputs(&b, dups);
	if (!diag->status)
		assign_buffers(&b);
	if (!diag->status)
		bind_fixed_args(&b);
	if (diag->status)
		goto fail;
	free(dups);
	*out = p;
	return WEBNN_STATUS_OK;
fail:
	free(dups);
	ocl_plan_destroy(p);
	if (!diag->status)
		wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR, "compile: failed");
	return diag->status;
}

uint64_t ocl_plan_bytes(const struct backend_plan *p)
{
	uint64_t n = obj_heap_bytes(sizeof(*p)) + obj_heap_bytes(p->cap_slots * sizeof(*p->slots)) +
		     obj_heap_bytes(p->cap_steps * sizeof(*p->steps)) +
		     obj_heap_bytes((p->n_planned + 1) * sizeof(cl_mem)) +
		     obj_heap_bytes((p->n_phys + 1) * sizeof(cl_mem)) +
		     (p->g ? obj_heap_bytes((p->g->n_values + 1) * sizeof(uint32_t)) : 0);
	for (size_t i = 0; i < p->n_steps; i++) {
		const struct ocl_step *s = &p->steps[i];
		if (s->kernel)
			n += OCL_KERNEL_BYTES;
		if (s->gemm.a_offs)
			n += 3 * obj_heap_bytes(s->gemm.batch * sizeof(size_t));
		if (s->gemm.alphas)
			n += 2 * obj_heap_bytes(s->gemm.batch * sizeof(float));
	}
	for (size_t i = 0; i < p->n_slots; i++)
		if (p->slots[i].kind == OCL_SLOT_CONST && p->slots[i].mem)
			n += ((p->slots[i].bytes + 3) & ~(uint64_t)3) + OCL_BUFFER_BYTES;
	return n + p->phys_bytes + (p->n_phys + p->n_planned) * (uint64_t)OCL_BUFFER_BYTES;
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
	for (size_t i = 0; i < p->n_planned; i++)
		if (p->planned[i])
			clReleaseMemObject(p->planned[i]);
	free(p->phys);
	free(p->planned);
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
	/* Development aid: waits after every step and prints its time. */
	bool profile = p->ctx->be->opts.profile;
	struct timespec t0, t1;
	bool cancelled = false;
	for (size_t i = 0; i < p->n_steps && st == WEBNN_STATUS_OK; i++) {
		struct ocl_step *s = &p->steps[i];
		cl_int err = CL_SUCCESS;
		/* Nothing more is enqueued once the context is lost or closed; what the device has
		 * is still waited for below (the buffers stay in use until it finishes). */
		if ((cancelled = backend_cancelled(p->ctx->cancel)))
			break;
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
	if (st == WEBNN_STATUS_OK && cancelled)
		st = backend_cancelled_status(diag, "dispatch");
	return st;
}
