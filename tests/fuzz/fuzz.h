/* Shared by the fuzz targets and their seed generator: the fixed operand table of fuzz_infer. */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <string.h>

#include "proto/webnn.pb-c.h"
#include "proto/wnn.h"

/* Operands 0..27 are defined (shapes that fit conv, pooling, gemm, recurrent ops, ...);
 * 28..35 are undefined, the slots operations write their outputs to. */
#define FUZZ_N_OPERANDS 36
#define FUZZ_FIRST_OUTPUT 28

static inline void fuzz_operand_table(struct wnn_desc *t)
{
	static const struct {
		enum wnn_dtype type;
		uint32_t rank, dims[4];
	} defs[FUZZ_FIRST_OUTPUT] = {
		{ WNN_F32, 4, { 2, 3, 4, 5 } }, /* 0 */
		{ WNN_F32, 4, { 2, 3, 4, 5 } }, /* 1 */
		{ WNN_F32, 4, { 1, 3, 8, 8 } }, /* 2: conv input */
		{ WNN_F32, 4, { 4, 3, 3, 3 } }, /* 3: conv filter */
		{ WNN_F32, 1, { 4 } },          /* 4: bias */
		{ WNN_F32, 2, { 3, 4 } },       /* 5 */
		{ WNN_F32, 2, { 4, 5 } },       /* 6 */
		{ WNN_F32, 0, { 0 } },          /* 7: scalar */
		{ WNN_F16, 4, { 2, 3, 4, 5 } }, /* 8 */
		{ WNN_I32, 2, { 2, 3 } },       /* 9: indices */
		{ WNN_I32, 1, { 3 } },          /* 10 */
		{ WNN_U8, 4, { 2, 3, 4, 5 } },  /* 11 */
		{ WNN_I64, 2, { 2, 2 } },       /* 12 */
		{ WNN_F32, 3, { 1, 2, 3 } },    /* 13: recurrent input [steps, batch, input] */
		{ WNN_F32, 3, { 1, 12, 3 } },   /* 14: gru weight (hidden 4) */
		{ WNN_F32, 3, { 1, 12, 4 } },   /* 15: gru recurrent weight */
		{ WNN_F32, 3, { 1, 16, 3 } },   /* 16: lstm weight */
		{ WNN_F32, 3, { 1, 16, 4 } },   /* 17: lstm recurrent weight */
		{ WNN_F32, 2, { 2, 4 } },       /* 18: hidden state */
		{ WNN_U32, 1, { 5 } },          /* 19 */
		{ WNN_I8, 4, { 2, 3, 4, 5 } },  /* 20 */
		{ WNN_F32, 1, { 3 } },          /* 21: batchnorm mean/variance */
		{ WNN_F32, 4, { 1, 1, 1, 1 } }, /* 22 */
		{ WNN_U8, 4, { 1, 1, 1, 1 } },  /* 23: zero point */
		{ WNN_F32, 4, { 3, 2, 3, 3 } }, /* 24: convTranspose2d filter */
		{ WNN_I32, 4, { 2, 3, 4, 5 } }, /* 25: element indices */
		{ WNN_F32, 2, { 2, 3 } },       /* 26: recurrent cell input */
		{ WNN_F32, 1, { 5 } },          /* 27: gemm c, layerNormalization scale */
	};
	memset(t, 0, sizeof(*t) * FUZZ_N_OPERANDS);
	for (int i = 0; i < FUZZ_FIRST_OUTPUT; i++) {
		t[i].type = defs[i].type;
		t[i].rank = defs[i].rank;
		memcpy(t[i].dims, defs[i].dims, sizeof(defs[i].dims));
	}
}

#endif
