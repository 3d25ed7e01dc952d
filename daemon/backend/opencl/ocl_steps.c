/* OpenCL plan building blocks every family shares: slots, steps, arguments, copies, conversions. */
#include "daemon/backend/opencl/ocl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

uint32_t ocl_slot_add(struct ocl_build *b, enum ocl_slot_kind kind, uint32_t index,
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
	return ocl_slot_add(b, OCL_SLOT_TEMP, 0, bytes ? bytes : 4);
}

enum webnn_status ocl_slot_const(struct ocl_build *b, const void *data, size_t bytes,
				 uint32_t *slot)
{
	uint32_t id = ocl_slot_add(b, OCL_SLOT_CONST, 0, bytes);
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

static bool operand_in_range(struct ocl_build *b, uint32_t operand)
{
	if (operand < b->g->n_values)
		return true;
	wnn_diag_set(b->diag, WEBNN_STATUS_DATA_ERROR, "%s: operand %u out of range", b->what,
		     operand);
	return false;
}

uint32_t ocl_operand_slot(struct ocl_build *b, uint32_t operand)
{
	struct backend_plan *p = b->plan;
	if (!operand_in_range(b, operand))
		return UINT32_MAX;
	if (p->operand_slot[operand] != UINT32_MAX)
		return p->operand_slot[operand];
	const void *data = ocl_const_data(b, operand);
	if (data) {
		uint64_t bytes;
		uint32_t id;
		if (!wnn_desc_bytes(&b->g->values[operand].desc, &bytes)) {
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
	if (!operand_in_range(b, operand))
		return UINT32_MAX;
	if (p->operand_slot[operand] != UINT32_MAX)
		return p->operand_slot[operand]; /* a graph output */
	const struct graph_value *v = &b->g->values[operand];
	uint64_t bytes = 0;
	wnn_desc_bytes(&v->desc, &bytes);
	uint32_t id;
	if (v->buffer != GRAPH_NONE && v->buffer < p->n_planned) {
		/* The memory plan's buffer: reused by the values the plan gives it. */
		id = ocl_slot_add(b, OCL_SLOT_PLANNED, v->buffer, (size_t)bytes);
		if (id != UINT32_MAX)
			p->slots[id].mem = p->planned[v->buffer];
	} else {
		id = ocl_slot_new_temp(b, (size_t)bytes);
	}
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

void ocl_arg_u(struct ocl_build *b, struct ocl_step *s, cl_uint i, cl_uint v)
{
	ocl_arg(b, s, i, sizeof v, &v);
}

void ocl_arg_f(struct ocl_build *b, struct ocl_step *s, cl_uint i, float v)
{
	cl_float f = v;
	ocl_arg(b, s, i, sizeof f, &f);
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

/* A kernel step over n work-items. */
struct ocl_step *ocl_kernel_n(struct ocl_build *b, cl_program prog, const char *name, size_t n)
{
	struct ocl_step *s = ocl_step_kernel(b, prog, name);
	ocl_step_range1(s, n);
	return s;
}

static size_t ocl_desc_bytes(const struct ocl_build *b, uint32_t operand)
{
	uint64_t n = 0;
	wnn_desc_bytes(&b->g->values[operand].desc, &n);
	return (size_t)n;
}

size_t ocl_desc_count(const struct ocl_build *b, uint32_t operand)
{
	uint64_t n = 0;
	wnn_desc_count(&b->g->values[operand].desc, &n);
	return (size_t)n;
}

void ocl_check_u32(struct ocl_build *b, uint64_t v, const char *what)
{
	if (v >= UINT32_MAX)
		wnn_diag_set(b->diag, WEBNN_STATUS_NOT_SUPPORTED,
			     "%s: %s too large for the OpenCL backend", b->what, what);
}

cl_uint ocl_u32(struct ocl_build *b, uint64_t v, const char *what)
{
	ocl_check_u32(b, v, what);
	return (cl_uint)v;
}

/* Merges dimensions that every operand walks contiguously (and drops size-1 dimensions).
 * strides[op][d]; returns the new rank. */
uint32_t ocl_collapse(uint32_t rank, const uint32_t *dims, int nops,
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

void ocl_step_zero(struct ocl_build *b, uint32_t dst, size_t off, size_t bytes)
{
	struct ocl_step *s = ocl_step_new(b, OCL_STEP_FILL);
	if (!s)
		return;
	s->dst = dst;
	s->dst_off = off;
	s->size = bytes;
	s->pattern = 0;
	ocl_slot_use(b, dst);
}

/* dst[doff + sum c_d * dstr_d] = src[soff + sum c_d * sstr_d] over dims (elements of esize). */
void ocl_copy_nd(struct ocl_build *b, enum wnn_dtype t, uint32_t src, uint64_t soff,
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
	uint32_t r = ocl_collapse(rank, dims, 2, in, odims, out);
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
	cl_uint8 vd = ocl_u8dims(r - 1, odims), vs = ocl_u8vec(r - 1, out[0]);
	cl_uint8 vdst = ocl_u8vec(r - 1, out[1]);
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
	if (OCL_FAILED(b) || ocl_typed_program(b, "data.cl", WNN_F32, &prog))
		return;
	struct ocl_step *s = ocl_step_kernel(b, prog, to_f32 ? "cvt_h2f" : "cvt_f2h");
	cl_uint n = (cl_uint)count;
	ocl_arg_mem(b, s, 0, src);
	ocl_arg_mem(b, s, 1, dst);
	ocl_arg(b, s, 2, sizeof n, &n);
	ocl_step_range1(s, count);
}

const void *ocl_const_data(struct ocl_build *b, uint32_t operand)
{
	const struct graph_value *v = &b->g->values[operand];
	return v->kind == GRAPH_VALUE_CONSTANT ? v->data : NULL;
}

uint32_t ocl_f32_slot(struct ocl_build *b, uint32_t operand)
{
	if (OCL_FAILED(b))
		return UINT32_MAX;
	if (b->g->values[operand].desc.type == WNN_F32)
		return ocl_operand_slot(b, operand);
	size_t count = ocl_desc_count(b, operand);
	const uint16_t *h = ocl_const_data(b, operand);
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

/* identity/reshape: the output aliases the input unless it is a graph output. */
void ocl_alias(struct ocl_build *b, uint32_t input, uint32_t output)
{
	struct backend_plan *p = b->plan;
	uint32_t src = ocl_operand_slot(b, input);
	if (OCL_FAILED(b))
		return;
	/* A planned buffer is reused once the plan sees its value dead: the output cannot
	 * share it. Temps, constants and tensors live as long as their readers need them. */
	if (p->operand_slot[output] == UINT32_MAX && p->slots[src].kind != OCL_SLOT_PLANNED) {
		p->operand_slot[output] = src;
		return;
	}
	uint32_t dst = ocl_output_slot(b, output);
	if (!OCL_FAILED(b))
		ocl_step_copy(b, src, 0, dst, 0, ocl_desc_bytes(b, output));
}

void ocl_arg_reduction(struct ocl_build *b, struct ocl_step *s, cl_uint first,
		       const struct wnn_reduction *r)
{
	ocl_arg_u(b, s, first, r->kept_rank);
	ocl_arg_u8(b, s, first + 1, ocl_u8dims(r->kept_rank, r->kept_dims));
	ocl_arg_u8(b, s, first + 2, ocl_u8_wide(b, r->kept_rank, r->kept_strides));
	ocl_arg_u(b, s, first + 3, r->red_rank);
	ocl_arg_u8(b, s, first + 4, ocl_u8dims(r->red_rank, r->red_dims));
	ocl_arg_u8(b, s, first + 5, ocl_u8_wide(b, r->red_rank, r->red_strides));
}
