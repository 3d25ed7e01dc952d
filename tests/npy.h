/* Minimal NumPy .npy reader for the model tests (little-endian float32, C order only). */
#ifndef TESTS_NPY_H
#define TESTS_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_RANK 8

struct npy_array {
	uint32_t rank;
	uint32_t shape[NPY_MAX_RANK];
	size_t count; /* elements */
	float *data;
};

/* Loads path; false with a message in err on a missing, malformed or non-float32 file. */
bool npy_load_f32(const char *path, struct npy_array *out, char *err, size_t err_len);
void npy_free(struct npy_array *a);

struct webnn_context;
struct webnn_builder;
struct webnn_operand;
/* Loads path as a float32 constant of b (a model weight); false with a message in err naming the
 * file and, for a builder error, its status and ctx's last error. */
bool npy_constant(struct webnn_context *ctx, struct webnn_builder *b, const char *path,
		  struct webnn_operand **out, char *err, size_t err_len);

#endif
