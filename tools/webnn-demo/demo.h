/* webnn-demo's parts: .npy reading, the SqueezeNet NNEF export, and failing with a message. */
#ifndef WEBNN_DEMO_H
#define WEBNN_DEMO_H

#include <stddef.h>
#include <stdint.h>

#include <webnn.h>

/* A float32 array from a .npy file (C order). */
struct array {
	uint32_t rank;
	uint32_t shape[WEBNN_MAX_RANK];
	float *data;
	size_t count;
};

__attribute__((format(printf, 1, 2), noreturn)) void demo_die(const char *fmt, ...);
/* Loads a NumPy v1-v3 file of little-endian float32 in C order; dies with a message on
 * anything else (the demo cannot do without its data). */
struct array demo_npy_load(const char *path);

/* Writes SqueezeNet 1.0 as an NNEF model folder (graph.nnef, one .dat per variable, and
 * inputs/input.dat + outputs/output.dat from test_data_set/0, the layout webnn-run --check
 * reads) from the .npy weights of shared/models/squeezenet1.0_nhwc. Dies on failure. */
void demo_export_squeezenet(const char *weights_dir, const char *out_dir);

#endif
