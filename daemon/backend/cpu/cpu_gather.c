/* The cpu backend's gather family: gather, gatherElements, gatherND, scatterElements and scatterND as threaded copies of whole elements, indices wrapped and clamped as the reference does. */
#include <omp.h>
#include <string.h>

#include "daemon/backend/cpu/cpu.h"
#include "proto/resolve.h"

/* Below this many bytes moved a kernel stays on one thread. */
#define CPU_GATHER_PAR_BYTES (256u << 10)

static int cpu_gather_threads(const struct cpu_exec *x, uint64_t bytes)
{
	return bytes >= CPU_GATHER_PAR_BYTES && x->threads > 1 ? x->threads : 1;
}

/* One volatile load per index: the indices may be client shared memory that changes while the
 * kernel runs, so the value checked (wnn_wrap_index) must be the value used. */
static inline int64_t cpu_index(const void *X, enum wnn_dtype t, uint64_t i)
{
	switch (t) {
	case WNN_I32:
		return ((const volatile int32_t *)X)[i];
	case WNN_U32:
		return ((const volatile uint32_t *)X)[i];
	case WNN_I64:
		return ((const volatile int64_t *)X)[i];
	default:
		return 0;
	}
}

/* The scatters start from a copy of the input. */
static void cpu_copy_input(uint8_t *O, const uint8_t *I, uint64_t bytes, int nt)
{
	if (O == I)
		return;
	if (nt <= 1) {
		memcpy(O, I, bytes);
		return;
	}
#pragma omp parallel num_threads(nt)
	{
		uint64_t id = (uint64_t)omp_get_thread_num(), all = (uint64_t)omp_get_num_threads();
		uint64_t lo = bytes * id / all, hi = bytes * (id + 1) / all;
		memcpy(O + lo, I + lo, hi - lo);
	}
}

#define CPU_GATHER_ROWS_(N)                                                                    \
	_Pragma("omp parallel for schedule(static) num_threads(nt) if (nt > 1)")               \
	for (uint64_t r = 0; r < rows; r++) {                                                  \
		if (cpu_cancelled(cx))                                                         \
			continue;                                                              \
		uint64_t o = r / p->n_indices, k = r % p->n_indices;                           \
		uint64_t a = wnn_wrap_index(cpu_index(X, p->index_type, k), p->axis_size);     \
		memcpy(O + r * N, I + (o * p->axis_size + a) * N, N);                           \
	}

static void cpu_gather_axis(const struct wnn_gather_attrs *p, uint8_t *O, const uint8_t *I,
			    const void *X, int nt, const struct cpu_exec *cx)
{
	uint64_t rows = p->outer * p->n_indices, row = p->inner * wnn_dtype_size(p->type);
	switch (row) {
	case 1:
		CPU_GATHER_ROWS_(1);
		break;
	case 2:
		CPU_GATHER_ROWS_(2);
		break;
	case 4:
		CPU_GATHER_ROWS_(4);
		break;
	case 8:
		CPU_GATHER_ROWS_(8);
		break;
	default:
		CPU_GATHER_ROWS_(row);
		break;
	}
}

/* gatherElements: output and input viewed as [outer, axis, inner] (only the axis differs);
 * out(o, j, i) = in(o, index(indices(o, j, i)), i). */
#define CPU_GATHER_ELEMENTS_(N)                                                                \
	_Pragma("omp parallel for schedule(static) num_threads(nt) if (nt > 1)")               \
	for (uint64_t r = 0; r < rows; r++) {                                                  \
		if (cpu_cancelled(cx))                                                         \
			continue;                                                              \
		const uint8_t *base = I + (r / a_out) * p->axis_size * inner * N;              \
		uint8_t *d = O + r * inner * N;                                                \
		for (uint64_t i = 0; i < inner; i++) {                                         \
			uint64_t a = wnn_wrap_index(cpu_index(X, p->index_type, r * inner + i), \
						    p->axis_size);                             \
			memcpy(d + i * N, base + (a * inner + i) * N, N);                      \
		}                                                                              \
	}

static void cpu_gather_elements(const struct wnn_gather_attrs *p, uint8_t *O, const uint8_t *I,
				const void *X, int nt, const struct cpu_exec *cx)
{
	uint64_t outer = 1, inner = 1, a_out = p->out_dims[p->axis];
	for (uint32_t d = 0; d < p->axis; d++)
		outer *= p->out_dims[d];
	for (uint32_t d = p->axis + 1; d < p->rank; d++)
		inner *= p->out_dims[d];
	uint64_t rows = outer * a_out;
	size_t es = wnn_dtype_size(p->type);
	switch (es) {
	case 1:
		CPU_GATHER_ELEMENTS_(1);
		break;
	case 2:
		CPU_GATHER_ELEMENTS_(2);
		break;
	case 4:
		CPU_GATHER_ELEMENTS_(4);
		break;
	default:
		CPU_GATHER_ELEMENTS_(8);
		break;
	}
}

static enum webnn_status cpu_run_gather(const struct cpu_step *s, void *const *bufs,
					const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_gather_attrs *p = &s->n->attrs.gather;
	const uint8_t *I = bufs[p->input];
	const void *X = bufs[p->indices];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	int nt = cpu_gather_threads(x, p->count * es);
	if (p->count == 0)
		return WEBNN_STATUS_OK;
	if (p->op == WNN_OP_GATHER) {
		cpu_gather_axis(p, O, I, X, nt, x);
	} else if (p->op == WNN_OP_GATHER_ELEMENTS) {
		cpu_gather_elements(p, O, I, X, nt, x);
	} else {
		uint64_t slice = p->slice * es;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
		for (uint64_t t = 0; t < p->n_tuples; t++) {
			if (cpu_cancelled(x))
				continue;
			uint64_t off = wnn_nd_offset(X, p->index_type, t, p->k, p->in_dims,
						     p->in_strides);
			memcpy(O + t * slice, I + off * es, slice);
		}
	}
	return cpu_kernel_status(x, diag);
}

/* scatterElements: updates viewed as [outer, axis, inner] (the input's axis differs). Updates
 * to one (o, i) stay in order on one thread, so the last one written wins as in the reference;
 * different (o, i) never meet, so threads split outer and inner. */
#define CPU_SCATTER_ELEMENTS_(N)                                                               \
	_Pragma("omp parallel for schedule(static) num_threads(nt) if (nt > 1)")               \
	for (uint64_t t = 0; t < tasks; t++) {                                                 \
		if (cpu_cancelled(cx))                                                         \
			continue;                                                              \
		uint64_t o = t / pieces, pc = t % pieces;                                      \
		uint64_t i0 = inner * pc / pieces, i1 = inner * (pc + 1) / pieces;             \
		uint8_t *base = O + o * p->axis_size * inner * N;                              \
		for (uint64_t b = 0; b < a_idx; b++) {                                         \
			uint64_t j0 = (o * a_idx + b) * inner;                                 \
			for (uint64_t i = i0; i < i1; i++) {                                   \
				uint64_t a = wnn_wrap_index(                                   \
					cpu_index(X, p->index_type, j0 + i), p->axis_size);    \
				memcpy(base + (a * inner + i) * N, U + (j0 + i) * N, N);       \
			}                                                                      \
		}                                                                              \
	}

static void cpu_scatter_elements(const struct wnn_scatter_attrs *p, uint8_t *O, const uint8_t *U,
				 const void *X, int nt, const struct cpu_exec *cx)
{
	uint64_t outer = 1, inner = 1, a_idx = p->idx_dims[p->axis];
	for (uint32_t d = 0; d < p->axis; d++)
		outer *= p->idx_dims[d];
	for (uint32_t d = p->axis + 1; d < p->rank; d++)
		inner *= p->idx_dims[d];
	uint64_t pieces = 1;
	if (nt > 1 && outer < 4 * (uint64_t)nt) {
		pieces = (4 * (uint64_t)nt + outer - 1) / outer;
		if (pieces > inner)
			pieces = inner;
	}
	uint64_t tasks = outer * pieces;
	switch (wnn_dtype_size(p->type)) {
	case 1:
		CPU_SCATTER_ELEMENTS_(1);
		break;
	case 2:
		CPU_SCATTER_ELEMENTS_(2);
		break;
	case 4:
		CPU_SCATTER_ELEMENTS_(4);
		break;
	default:
		CPU_SCATTER_ELEMENTS_(8);
		break;
	}
}

static enum webnn_status cpu_run_scatter(const struct cpu_step *s, void *const *bufs,
					 const struct cpu_exec *x, struct wnn_diag *diag)
{
	const struct wnn_scatter_attrs *p = &s->n->attrs.scatter;
	const uint8_t *U = bufs[p->updates];
	const void *X = bufs[p->indices];
	uint8_t *O = bufs[p->output];
	size_t es = wnn_dtype_size(p->type);
	cpu_copy_input(O, bufs[p->input], p->count * es, cpu_gather_threads(x, p->count * es));
	int nt = cpu_gather_threads(x, p->n_updates * es);
	if (p->n_updates == 0)
		return WEBNN_STATUS_OK;
	if (p->op == WNN_OP_SCATTER_ELEMENTS) {
		cpu_scatter_elements(p, O, U, X, nt, x);
		return cpu_kernel_status(x, diag);
	}
	/* scatterND: slices land whole on one place (the same place as another tuple's, or a
	 * disjoint one), so threads split every slice by columns and go through the tuples in
	 * order: the last tuple still wins. */
	uint64_t slice = p->slice * es, pieces = 1;
	if (nt > 1) {
		pieces = slice / 4096;
		if (pieces > (uint64_t)nt)
			pieces = (uint64_t)nt;
	}
	if (pieces <= 1) {
		for (uint64_t t = 0; t < p->n_tuples && !cpu_cancelled(x); t++) {
			uint64_t off = wnn_nd_offset(X, p->index_type, t, p->k, p->in_dims,
						     p->in_strides);
			memcpy(O + off * es, U + t * slice, slice);
		}
		return cpu_kernel_status(x, diag);
	}
	uint64_t elems = p->slice;
#pragma omp parallel for schedule(static) num_threads((int)pieces)
	for (uint64_t pc = 0; pc < pieces; pc++) {
		uint64_t lo = elems * pc / pieces * es, hi = elems * (pc + 1) / pieces * es;
		for (uint64_t t = 0; t < p->n_tuples && !cpu_cancelled(x); t++) {
			uint64_t off = wnn_nd_offset(X, p->index_type, t, p->k, p->in_dims,
						     p->in_strides);
			memcpy(O + off * es + lo, U + t * slice + lo, hi - lo);
		}
	}
	return cpu_kernel_status(x, diag);
}

enum webnn_status cpu_gather_prepare(const struct cpu_build *b, struct cpu_step *s,
				     struct wnn_diag *diag)
{
	(void)b;
	(void)diag;
	s->run = NULL;
	if (s->n->slice.used || s->n->epilogue.used)
		return WEBNN_STATUS_OK; /* written into another value: the reference kernel */
	switch (s->n->op) {
	case WNN_OP_GATHER:
	case WNN_OP_GATHER_ELEMENTS:
	case WNN_OP_GATHER_ND:
		s->run = cpu_run_gather;
		break;
	case WNN_OP_SCATTER_ELEMENTS:
	case WNN_OP_SCATTER_ND:
		s->run = cpu_run_scatter;
		break;
	default:
		return WEBNN_STATUS_OK;
	}
	s->impl = "C";
	return WEBNN_STATUS_OK;
}
