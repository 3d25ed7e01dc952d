/* The spec's tensor limits (data types, rank range) of every operand role of every operator. */
#include "proto/wnn.h"

#define N WNN_MAX_RANK
#define INDEX_TYPES (WNN_DT_BIT(WNN_I32) | WNN_DT_BIT(WNN_U32) | WNN_DT_BIT(WNN_I64))
#define QUANT_TYPES (WNN_DT_BIT(WNN_U8) | WNN_DT_BIT(WNN_I8) | WNN_DT_BIT(WNN_U32) | \
		     WNN_DT_BIT(WNN_I32))

void wnn_op_roles(enum wnn_op op, wnn_role_fn fn, void *ud)
{
	if ((unsigned)op >= WNN_OP_COUNT || !fn)
		return;
	const struct wnn_op_info *info = &wnn_ops[op];
	uint32_t t = info->dtypes;
	uint32_t out = info->out == WNN_OUT_U8 ? WNN_DT_U8 : t;

	switch (info->attrs) {
	case WEBNN__IPC__OPERATION__ATTRS_BINARY:
		fn(ud, "a", t, 0, N);
		fn(ud, "b", t, 0, N);
		fn(ud, "output", out, 0, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_UNARY: {
		bool logical = op == WNN_OP_LOGICAL_NOT || op == WNN_OP_IS_NAN ||
			       op == WNN_OP_IS_INFINITE;
		fn(ud, logical ? "a" : "input", t, 0, N);
		fn(ud, "output", out, 0, N);
		return;
	}
	case WEBNN__IPC__OPERATION__ATTRS_CAST:
		fn(ud, "input", t, 0, N);
		fn(ud, "output", WNN_DT_ALL, 0, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_ARG_MIN_MAX:
		fn(ud, "input", t, 1, N);
		fn(ud, "output", WNN_DT_BIT(WNN_I32) | WNN_DT_BIT(WNN_I64), 0, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_BATCH_NORMALIZATION:
		fn(ud, "input", t, 1, N);
		fn(ud, "mean", t, 1, 1);
		fn(ud, "variance", t, 1, 1);
		fn(ud, "scale", t, 1, 1);
		fn(ud, "bias", t, 1, 1);
		fn(ud, "output", t, 1, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_INSTANCE_NORMALIZATION:
		fn(ud, "input", t, 4, 4);
		fn(ud, "scale", t, 1, 1);
		fn(ud, "bias", t, 1, 1);
		fn(ud, "output", t, 4, 4);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_LAYER_NORMALIZATION:
		fn(ud, "input", t, 0, N);
		fn(ud, "scale", t, 0, N);
		fn(ud, "bias", t, 0, N);
		fn(ud, "output", t, 0, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_CONCAT:
		fn(ud, "inputs", t, 1, N);
		fn(ud, "output", t, 1, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_CONV2D:
	case WEBNN__IPC__OPERATION__ATTRS_CONV_TRANSPOSE2D:
		fn(ud, "input", t, 4, 4);
		fn(ud, "filter", t, 4, 4);
		fn(ud, "bias", t, 1, 1);
		fn(ud, "output", t, 4, 4);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_QUANTIZE_LINEAR:
		if (op == WNN_OP_QUANTIZE_LINEAR) {
			fn(ud, "input", t, 0, N);
			fn(ud, "scale", t, 0, N);
			fn(ud, "zeroPoint", QUANT_TYPES, 0, N);
			fn(ud, "output", QUANT_TYPES, 0, N);
		} else {
			fn(ud, "input", t, 0, N);
			fn(ud, "scale", WNN_DT_FLOAT, 0, N);
			fn(ud, "zeroPoint", t, 0, N);
			fn(ud, "output", WNN_DT_FLOAT, 0, N);
		}
		return;
	case WEBNN__IPC__OPERATION__ATTRS_GATHER:
		fn(ud, "input", t, 1, N);
		fn(ud, "indices", INDEX_TYPES, op == WNN_OP_GATHER ? 0 : 1, N);
		fn(ud, "output", t, op == WNN_OP_GATHER_ELEMENTS ? 1 : 0, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_SCATTER:
		fn(ud, "input", t, 1, N);
		fn(ud, "indices", INDEX_TYPES, 1, N);
		fn(ud, "updates", t, op == WNN_OP_SCATTER_ND ? 0 : 1, N);
		fn(ud, "output", t, 1, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_GEMM:
		fn(ud, "a", t, 2, 2);
		fn(ud, "b", t, 2, 2);
		fn(ud, "c", t, 0, 2);
		fn(ud, "output", t, 2, 2);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_MATMUL:
		fn(ud, "a", t, 2, N);
		fn(ud, "b", t, 2, N);
		fn(ud, "output", t, 2, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_GRU:
		fn(ud, "input", t, 3, 3);
		fn(ud, "weight", t, 3, 3);
		fn(ud, "recurrentWeight", t, 3, 3);
		fn(ud, "bias", t, 2, 2);
		fn(ud, "recurrentBias", t, 2, 2);
		fn(ud, "initialHiddenState", t, 3, 3);
		fn(ud, "output0", t, 3, 3);
		fn(ud, "output1", t, 4, 4);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_GRU_CELL:
		fn(ud, "input", t, 2, 2);
		fn(ud, "weight", t, 2, 2);
		fn(ud, "recurrentWeight", t, 2, 2);
		fn(ud, "hiddenState", t, 2, 2);
		fn(ud, "bias", t, 1, 1);
		fn(ud, "recurrentBias", t, 1, 1);
		fn(ud, "output", t, 2, 2);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_LSTM:
		fn(ud, "input", t, 3, 3);
		fn(ud, "weight", t, 3, 3);
		fn(ud, "recurrentWeight", t, 3, 3);
		fn(ud, "bias", t, 2, 2);
		fn(ud, "recurrentBias", t, 2, 2);
		fn(ud, "peepholeWeight", t, 2, 2);
		fn(ud, "initialHiddenState", t, 3, 3);
		fn(ud, "initialCellState", t, 3, 3);
		fn(ud, "output0", t, 3, 3);
		fn(ud, "output1", t, 3, 3);
		fn(ud, "output2", t, 4, 4);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_LSTM_CELL:
		fn(ud, "input", t, 2, 2);
		fn(ud, "weight", t, 2, 2);
		fn(ud, "recurrentWeight", t, 2, 2);
		fn(ud, "hiddenState", t, 2, 2);
		fn(ud, "cellState", t, 2, 2);
		fn(ud, "bias", t, 1, 1);
		fn(ud, "recurrentBias", t, 1, 1);
		fn(ud, "peepholeWeight", t, 1, 1);
		fn(ud, "output0", t, 2, 2);
		fn(ud, "output1", t, 2, 2);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_POOL2D:
	case WEBNN__IPC__OPERATION__ATTRS_RESAMPLE2D:
		fn(ud, "input", t, 4, 4);
		fn(ud, "output", t, 4, 4);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_PRELU:
		fn(ud, "input", t, 0, N);
		fn(ud, "slope", t, 0, N);
		fn(ud, "output", t, 0, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_CUMULATIVE_SUM:
	case WEBNN__IPC__OPERATION__ATTRS_SOFTMAX:
		fn(ud, "input", t, 1, N);
		fn(ud, "output", t, 1, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_SPLIT:
		fn(ud, "input", t, 1, N);
		fn(ud, "outputs", t, 1, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_TRIANGULAR:
		fn(ud, "input", t, 2, N);
		fn(ud, "output", t, 2, N);
		return;
	case WEBNN__IPC__OPERATION__ATTRS_WHERE:
		fn(ud, "condition", t, 0, N);
		fn(ud, "trueValue", WNN_DT_ALL, 0, N);
		fn(ud, "falseValue", WNN_DT_ALL, 0, N);
		fn(ud, "output", WNN_DT_ALL, 0, N);
		return;
	default:
		/* clamp expand pad reduce* reshape reverse slice tile transpose: one input of any
		 * rank and an output of its type. */
		fn(ud, "input", t, 0, N);
		fn(ud, "output", t, 0, N);
		return;
	}
}
