/* libFuzzer target: NNEF text (graph.nnef, NUL, graph.quant) through parser and evaluator, or a .dat file. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "importers/nnef/nnef.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char error[512];
	if (size >= 2 && data[0] == 'N' && data[1] == 0xEF) {
		struct webnn_operand_desc desc;
		void *out = NULL;
		size_t n;
		bool quantized;
		if (nnef_dat_decode(data, size, "fuzz.dat", &desc, &out, &n, &quantized, error,
				    sizeof(error)) == WEBNN_STATUS_OK)
			free(out);
		return 0;
	}
	/* the evaluator keeps every load small; long texts only slow the fuzzer down */
	if (size > 1 << 16)
		return 0;
	char *text = malloc(size + 2);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	text[size + 1] = 0;
	size_t graph_len = strlen(text);
	const char *quant = graph_len < size ? text + graph_len + 1 : NULL;
	nnef_check(text, quant, error, sizeof(error));
	free(text);
	return 0;
}
