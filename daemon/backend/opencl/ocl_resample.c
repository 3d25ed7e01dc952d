/* OpenCL lowering of the resample family: resample2d. */
#include "daemon/backend/opencl/ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void lower_resample(struct ocl_build *b)
{
	struct wnn_resample_attrs p = b->node->attrs.resample;
	uint32_t si = ocl_operand_slot(b, p.input), so = ocl_output_slot(b, p.output);
	cl_program prog;
	if (OCL_FAILED(b) || ocl_typed_program(b, "resample.cl", p.type, &prog))
		return;
	/* Source coordinates come from the shared params code, so every backend samples the
	 * same input elements. Tables go in memory order of the two axes. */
	int first = p.axes[0] < p.axes[1] ? 0 : 1;
	uint32_t a1 = p.axes[first], a2 = p.axes[1 - first];
	uint32_t oh = p.out_dims[a1], ow = p.out_dims[a2];
	size_t nidx = 2 * ((size_t)oh + ow);
	uint32_t *ix = malloc(nidx * sizeof *ix);
	float *wt = malloc(((size_t)oh + ow) * sizeof *wt);
	if (!ix || !wt) {
		free(ix);
		free(wt);
		wnn_diag_set(b->diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", b->what);
		return;
	}
	for (int k = 0; k < 2; k++) {
		int a = k ? 1 - first : first; /* index into p.axes / params' per-axis functions */
		uint32_t on = k ? ow : oh, in = p.in_dims[p.axes[a]];
		uint32_t *i0 = ix + (k ? 2 * (size_t)oh : 0), *i1 = i0 + on;
		float *w = wt + (k ? oh : 0);
		for (uint32_t o = 0; o < on; o++) {
			if (p.mode == WNN_INTERP_NEAREST) {
				i0[o] = wnn_resample_nearest(&p, a, o);
				i1[o] = i0[o];
				w[o] = 0;
			} else {
				double x = wnn_resample_coord(&p, a, o);
				i0[o] = (uint32_t)floor(x);
				i1[o] = (uint32_t)ceil(x);
				w[o] = (float)(x - floor(x));
			}
			if (i0[o] >= in)
				i0[o] = in - 1;
			if (i1[o] >= in)
				i1[o] = in - 1;
		}
	}
	uint32_t six = UINT32_MAX, swt = UINT32_MAX;
	ocl_slot_const(b, ix, nidx * sizeof *ix, &six);
	ocl_slot_const(b, wt, ((size_t)oh + ow) * sizeof *wt, &swt);
	free(ix);
	free(wt);
	if (OCL_FAILED(b))
		return;
	uint64_t between = 1;
	for (uint32_t d = a1 + 1; d < a2; d++)
		between *= p.out_dims[d];
	uint64_t inner = p.in_strides[a2], outer = p.count / (between * oh * ow * inner);
	struct ocl_step *s = ocl_step_kernel(b, prog, "resample2d");
	ocl_step_range3(s, (size_t)(ow * inner), oh, (size_t)(outer * between));
	ocl_arg_mem(b, s, 0, si);
	ocl_arg_mem(b, s, 1, so);
	ocl_arg_mem(b, s, 2, six);
	ocl_arg_mem(b, s, 3, swt);
	ocl_arg_u(b, s, 4, oh);
	ocl_arg_u(b, s, 5, (cl_uint)between);
	ocl_arg_u(b, s, 6, ow);
	ocl_arg_u(b, s, 7, ocl_u32(b, inner, "stride"));
	ocl_arg_u(b, s, 8, ocl_u32(b, p.in_strides[a1] * p.in_dims[a1], "stride"));
	ocl_arg_u(b, s, 9, ocl_u32(b, p.in_strides[a1], "stride"));
	ocl_arg_u(b, s, 10, ocl_u32(b, p.in_strides[a2] * p.in_dims[a2], "stride"));
	ocl_arg_u(b, s, 11, ocl_u32(b, p.in_strides[a2], "stride"));
	ocl_arg_u(b, s, 12, p.mode == WNN_INTERP_LINEAR);
	ocl_check_u32(b, p.count, "output");
}

void ocl_lower_resample(struct ocl_build *b, enum wnn_op op)
{
	(void)op;
	lower_resample(b);
}
