/* libFuzzer target: arbitrary bytes -> Operation unpack -> wnn_op_infer over a fixed operand table. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto/wnn.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wnn_desc table[FUZZ_N_OPERANDS];
	fuzz_operand_table(table);
	Webnn__Ipc__Operation *op = webnn__ipc__operation__unpack(NULL, size, data);
	if (!op)
		return 0;
	struct wnn_desc outs[WNN_MAX_OUTPUTS];
	struct wnn_diag diag = { 0 };
	int n_outs = -1;
	enum webnn_status st = wnn_op_infer(op, table, FUZZ_N_OPERANDS, outs, WNN_MAX_OUTPUTS,
					    &n_outs, &diag);
	if (st == WEBNN_STATUS_OK) {
		/* A success must describe valid outputs, as many as the op lists. */
		uint32_t ids[WNN_MAX_OUTPUTS];
		if (n_outs < 1 || n_outs > WNN_MAX_OUTPUTS ||
		    wnn_op_outputs(op, ids, WNN_MAX_OUTPUTS) != n_outs)
			__builtin_trap();
		for (int i = 0; i < n_outs; i++) {
			struct wnn_diag d2 = { 0 };
			if (!wnn_desc_validate(&outs[i], "output", &d2))
				__builtin_trap();
		}
	} else {
		/* Every failure carries a message. */
		if (diag.status == WEBNN_STATUS_OK || !diag.message[0] ||
		    !memchr(diag.message, 0, sizeof(diag.message)))
			__builtin_trap();
	}
	/* The input/output walkers must agree with themselves on any attrs. */
	uint32_t ids[256];
	const char *roles[256];
	(void)wnn_op_inputs(op, ids, roles, 256);
	(void)wnn_op_outputs(op, ids, 256);
	webnn__ipc__operation__free_unpacked(op, NULL);
	return 0;
}
