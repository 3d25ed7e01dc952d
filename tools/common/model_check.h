/* Checks a model test folder (ONNX backend-test or NNEF layout) against its expected outputs; shared by webnn-run --check and the tests. */
#ifndef WEBNN_TOOLS_MODEL_CHECK_H
#define WEBNN_TOOLS_MODEL_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "webnn.h"

struct tool_check_options {
	double atol, rtol;       /* float outputs: |a - b| <= atol + rtol * |b| */
	const struct webnn_import_options *import; /* NULL: defaults */
	FILE *out;               /* per data set lines; NULL: silent */
	const char *label;       /* printed before each line (NULL: the folder) */
};

struct tool_check_counts {
	int passed, failed, skipped;
	/* Why the last folder was skipped or failed (first reason), for tallies. */
	char reason[1024];
};

/* Loads DIR's model (model.onnx, or an NNEF graph.nnef in DIR) once and runs every data set:
 * ONNX test_data_set_K/{input,output}_I.pb matched to the graph's inputs and outputs in order;
 * NNEF inputs/<name>.dat and outputs/<name>.dat. A model the importer refuses as NOT_SUPPORTED
 * is one SKIP with the importer's reason; any other failure is a FAIL. Adds to *c. */
void tool_check_dir(struct webnn_context *ctx, const char *dir, const struct tool_check_options *o,
		   struct tool_check_counts *c);

/* Elements and bytes a descriptor holds (int4/uint4: two per byte). */
size_t tool_desc_elements(const struct webnn_operand_desc *d);
size_t tool_desc_byte_length(const struct webnn_operand_desc *d);
/* Element i of an array of type t, as a double. */
double tool_element(enum webnn_data_type t, const void *p, size_t i);

#endif
