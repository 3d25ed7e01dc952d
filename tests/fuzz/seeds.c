/* Writes the seed corpora of the fuzz targets: one Operation per operator, graphs, client sessions. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proto/wire.h"
#include "proto/wnn.h"
#include "tests/fuzz/fuzz.h"

static const char *root;
static int n_written;

static void write_file(const char *target, const char *name, const void *buf, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", root, target);
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", root, target, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	n_written++;
}

static void write_msg(const char *target, const char *name, const ProtobufCMessage *m)
{
	size_t len = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = malloc(len + 1);
	if (!buf)
		exit(1);
	protobuf_c_message_pack(m, buf);
	write_file(target, name, buf, len);
	free(buf);
}

/* ---- one plausible operation per operator over the fuzz_infer operand table */

struct op_attrs {
	Webnn__Ipc__Operation op;
	union {
		Webnn__Ipc__ElementwiseBinary binary;
		Webnn__Ipc__ElementwiseUnary unary;
		Webnn__Ipc__Clamp clamp;
		Webnn__Ipc__Cast cast;
		Webnn__Ipc__ArgMinMax arg;
		Webnn__Ipc__BatchNormalization bn;
		Webnn__Ipc__InstanceNormalization in;
		Webnn__Ipc__LayerNormalization ln;
		Webnn__Ipc__Concat concat;
		Webnn__Ipc__Conv2d conv;
		Webnn__Ipc__ConvTranspose2d convt;
		Webnn__Ipc__CumulativeSum cumsum;
		Webnn__Ipc__QuantizeLinear quant;
		Webnn__Ipc__Expand expand;
		Webnn__Ipc__Gather gather;
		Webnn__Ipc__Scatter scatter;
		Webnn__Ipc__Gemm gemm;
		Webnn__Ipc__Matmul matmul;
		Webnn__Ipc__Gru gru;
		Webnn__Ipc__GruCell gru_cell;
		Webnn__Ipc__Lstm lstm;
		Webnn__Ipc__LstmCell lstm_cell;
		Webnn__Ipc__Pad pad;
		Webnn__Ipc__Pool2d pool;
		Webnn__Ipc__Prelu prelu;
		Webnn__Ipc__Reduce reduce;
		Webnn__Ipc__Resample2d resample;
		Webnn__Ipc__Reshape reshape;
		Webnn__Ipc__Reverse reverse;
		Webnn__Ipc__Slice slice;
		Webnn__Ipc__Softmax softmax;
		Webnn__Ipc__Split split;
		Webnn__Ipc__Tile tile;
		Webnn__Ipc__Transpose transpose;
		Webnn__Ipc__Triangular tri;
		Webnn__Ipc__Where where;
	} a;
	Webnn__Ipc__Number n1, n2;
	uint32_t v1[8], v2[8], v3[8];
	float f1[4];
};

#define O FUZZ_FIRST_OUTPUT
#define SETV(msg, field, arr, ...)                                                             \
	do {                                                                                   \
		static const uint32_t init_[] = { __VA_ARGS__ };                               \
		memcpy(arr, init_, sizeof(init_));                                             \
		(msg).n_##field = sizeof(init_) / sizeof(init_[0]);                            \
		(msg).field = arr;                                                             \
	} while (0)

static void make_op(enum wnn_op e, struct op_attrs *x)
{
	memset(x, 0, sizeof(*x));
	webnn__ipc__operation__init(&x->op);
	x->op.op = wnn_ops[e].id;
	x->op.attrs_case = (Webnn__Ipc__Operation__AttrsCase)wnn_ops[e].attrs;
	void *attrs = &x->a;
	memcpy(&x->op.binary, &attrs, sizeof(attrs)); /* every attrs member is a message pointer */
	bool u8_only = wnn_ops[e].dtypes == WNN_DT_U8;
	switch (wnn_ops[e].attrs) {
	case WEBNN__IPC__OPERATION__ATTRS_BINARY:
		webnn__ipc__elementwise_binary__init(&x->a.binary);
		x->a.binary.a = u8_only ? 11 : 0;
		x->a.binary.b = u8_only ? 11 : 1;
		x->a.binary.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_UNARY:
		webnn__ipc__elementwise_unary__init(&x->a.unary);
		x->a.unary.input = u8_only ? 11 : 0;
		x->a.unary.output = O;
		if (e == WNN_OP_LINEAR || e == WNN_OP_HARD_SIGMOID) {
			x->a.unary.has_alpha = x->a.unary.has_beta = true;
			x->a.unary.alpha = 0.5;
			x->a.unary.beta = -1;
		}
		break;
	case WEBNN__IPC__OPERATION__ATTRS_CLAMP:
		webnn__ipc__clamp__init(&x->a.clamp);
		webnn__ipc__number__init(&x->n1);
		webnn__ipc__number__init(&x->n2);
		x->n1.value_case = x->n2.value_case = WEBNN__IPC__NUMBER__VALUE_F;
		x->n1.f = -1;
		x->n2.f = 1;
		x->a.clamp.input = 0;
		x->a.clamp.output = O;
		x->a.clamp.min_value = &x->n1;
		x->a.clamp.max_value = &x->n2;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_CAST:
		webnn__ipc__cast__init(&x->a.cast);
		x->a.cast.input = 0;
		x->a.cast.output = O;
		x->a.cast.data_type = WEBNN__IPC__DATA_TYPE__INT32;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_ARG_MIN_MAX:
		webnn__ipc__arg_min_max__init(&x->a.arg);
		x->a.arg.input = 0;
		x->a.arg.output = O;
		x->a.arg.axis = 1;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_BATCH_NORMALIZATION:
		webnn__ipc__batch_normalization__init(&x->a.bn);
		x->a.bn.input = 0;
		x->a.bn.mean = 21;
		x->a.bn.variance = 21;
		x->a.bn.has_scale = x->a.bn.has_bias = true;
		x->a.bn.scale = x->a.bn.bias = 21;
		x->a.bn.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_INSTANCE_NORMALIZATION:
		webnn__ipc__instance_normalization__init(&x->a.in);
		x->a.in.input = 0;
		x->a.in.has_scale = x->a.in.has_bias = true;
		x->a.in.scale = x->a.in.bias = 21;
		x->a.in.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_LAYER_NORMALIZATION:
		webnn__ipc__layer_normalization__init(&x->a.ln);
		x->a.ln.input = 0;
		x->a.ln.has_scale = true;
		x->a.ln.scale = 27;
		x->a.ln.output = O;
		x->a.ln.has_has_axes = x->a.ln.has_axes = true;
		SETV(x->a.ln, axes, x->v1, 3);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_CONCAT:
		webnn__ipc__concat__init(&x->a.concat);
		SETV(x->a.concat, inputs, x->v1, 0, 1);
		x->a.concat.output = O;
		x->a.concat.axis = 1;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_CONV2D:
		webnn__ipc__conv2d__init(&x->a.conv);
		x->a.conv.input = 2;
		x->a.conv.filter = 3;
		x->a.conv.has_bias = true;
		x->a.conv.bias = 4;
		x->a.conv.output = O;
		SETV(x->a.conv, padding, x->v1, 1, 1, 1, 1);
		SETV(x->a.conv, strides, x->v2, 2, 1);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_CONV_TRANSPOSE2D:
		webnn__ipc__conv_transpose2d__init(&x->a.convt);
		x->a.convt.input = 2;
		x->a.convt.filter = 24;
		x->a.convt.output = O;
		SETV(x->a.convt, strides, x->v1, 2, 2);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_CUMULATIVE_SUM:
		webnn__ipc__cumulative_sum__init(&x->a.cumsum);
		x->a.cumsum.input = 0;
		x->a.cumsum.output = O;
		x->a.cumsum.axis = 2;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_QUANTIZE_LINEAR:
		webnn__ipc__quantize_linear__init(&x->a.quant);
		x->a.quant.input = e == WNN_OP_QUANTIZE_LINEAR ? 0 : 11;
		x->a.quant.scale = 22;
		x->a.quant.zero_point = 23;
		x->a.quant.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_EXPAND:
		webnn__ipc__expand__init(&x->a.expand);
		x->a.expand.input = 22;
		x->a.expand.output = O;
		SETV(x->a.expand, new_shape, x->v1, 2, 3, 4, 5);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_GATHER:
		webnn__ipc__gather__init(&x->a.gather);
		x->a.gather.input = 0;
		x->a.gather.indices = e == WNN_OP_GATHER_ELEMENTS ? 25 : 9;
		x->a.gather.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_SCATTER:
		webnn__ipc__scatter__init(&x->a.scatter);
		x->a.scatter.input = 0;
		x->a.scatter.indices = 25;
		x->a.scatter.updates = 1;
		x->a.scatter.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_GEMM:
		webnn__ipc__gemm__init(&x->a.gemm);
		x->a.gemm.a = 5;
		x->a.gemm.b = 6;
		x->a.gemm.has_c = true;
		x->a.gemm.c = 27;
		x->a.gemm.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_MATMUL:
		webnn__ipc__matmul__init(&x->a.matmul);
		x->a.matmul.a = 5;
		x->a.matmul.b = 6;
		x->a.matmul.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_GRU:
		webnn__ipc__gru__init(&x->a.gru);
		x->a.gru.input = 13;
		x->a.gru.weight = 14;
		x->a.gru.recurrent_weight = 15;
		SETV(x->a.gru, outputs, x->v1, O);
		x->a.gru.steps = 1;
		x->a.gru.hidden_size = 4;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_GRU_CELL:
		webnn__ipc__gru_cell__init(&x->a.gru_cell);
		x->a.gru_cell.input = 26;
		x->a.gru_cell.weight = 14;
		x->a.gru_cell.recurrent_weight = 15;
		x->a.gru_cell.hidden_state = 18;
		x->a.gru_cell.output = O;
		x->a.gru_cell.hidden_size = 4;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_LSTM:
		webnn__ipc__lstm__init(&x->a.lstm);
		x->a.lstm.input = 13;
		x->a.lstm.weight = 16;
		x->a.lstm.recurrent_weight = 17;
		SETV(x->a.lstm, outputs, x->v1, O, O + 1);
		x->a.lstm.steps = 1;
		x->a.lstm.hidden_size = 4;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_LSTM_CELL:
		webnn__ipc__lstm_cell__init(&x->a.lstm_cell);
		x->a.lstm_cell.input = 26;
		x->a.lstm_cell.weight = 16;
		x->a.lstm_cell.recurrent_weight = 17;
		x->a.lstm_cell.hidden_state = 18;
		x->a.lstm_cell.cell_state = 18;
		SETV(x->a.lstm_cell, outputs, x->v1, O, O + 1);
		x->a.lstm_cell.hidden_size = 4;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_PAD:
		webnn__ipc__pad__init(&x->a.pad);
		x->a.pad.input = 0;
		x->a.pad.output = O;
		SETV(x->a.pad, beginning_padding, x->v1, 0, 1, 1, 0);
		SETV(x->a.pad, ending_padding, x->v2, 1, 0, 0, 1);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_POOL2D:
		webnn__ipc__pool2d__init(&x->a.pool);
		x->a.pool.input = 2;
		x->a.pool.output = O;
		SETV(x->a.pool, window_dimensions, x->v1, 2, 2);
		SETV(x->a.pool, strides, x->v2, 2, 2);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_PRELU:
		webnn__ipc__prelu__init(&x->a.prelu);
		x->a.prelu.input = 0;
		x->a.prelu.slope = 1;
		x->a.prelu.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_REDUCE:
		webnn__ipc__reduce__init(&x->a.reduce);
		x->a.reduce.input = 0;
		x->a.reduce.output = O;
		x->a.reduce.has_has_axes = x->a.reduce.has_axes = true;
		SETV(x->a.reduce, axes, x->v1, 1, 3);
		x->a.reduce.has_keep_dimensions = x->a.reduce.keep_dimensions = true;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_RESAMPLE2D:
		webnn__ipc__resample2d__init(&x->a.resample);
		x->a.resample.input = 2;
		x->a.resample.output = O;
		x->f1[0] = x->f1[1] = 2.0f;
		x->a.resample.n_scales = 2;
		x->a.resample.scales = x->f1;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_RESHAPE:
		webnn__ipc__reshape__init(&x->a.reshape);
		x->a.reshape.input = 0;
		x->a.reshape.output = O;
		SETV(x->a.reshape, new_shape, x->v1, 6, 20);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_REVERSE:
		webnn__ipc__reverse__init(&x->a.reverse);
		x->a.reverse.input = 0;
		x->a.reverse.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_SLICE:
		webnn__ipc__slice__init(&x->a.slice);
		x->a.slice.input = 0;
		x->a.slice.output = O;
		SETV(x->a.slice, starts, x->v1, 0, 1, 0, 1);
		SETV(x->a.slice, sizes, x->v2, 2, 2, 4, 4);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_SOFTMAX:
		webnn__ipc__softmax__init(&x->a.softmax);
		x->a.softmax.input = 5;
		x->a.softmax.output = O;
		x->a.softmax.axis = 1;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_SPLIT:
		webnn__ipc__split__init(&x->a.split);
		x->a.split.input = 0;
		SETV(x->a.split, outputs, x->v1, O, O + 1, O + 2);
		x->a.split.has_count = true;
		x->a.split.count = 3;
		x->a.split.has_axis = true;
		x->a.split.axis = 1;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_TILE:
		webnn__ipc__tile__init(&x->a.tile);
		x->a.tile.input = 5;
		x->a.tile.output = O;
		SETV(x->a.tile, repetitions, x->v1, 2, 1);
		break;
	case WEBNN__IPC__OPERATION__ATTRS_TRANSPOSE:
		webnn__ipc__transpose__init(&x->a.transpose);
		x->a.transpose.input = 0;
		x->a.transpose.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_TRIANGULAR:
		webnn__ipc__triangular__init(&x->a.tri);
		x->a.tri.input = 5;
		x->a.tri.output = O;
		break;
	case WEBNN__IPC__OPERATION__ATTRS_WHERE:
		webnn__ipc__where__init(&x->a.where);
		x->a.where.condition = 11;
		x->a.where.true_value = 0;
		x->a.where.false_value = 1;
		x->a.where.output = O;
		break;
	default:
		break;
	}
}

/* ---- graphs: the operand table as inputs (or constants), one operation, its outputs */

enum graph_variant { GV_INPUTS, GV_CONSTANTS, GV_SCALAR };

struct graph_msg {
	Webnn__Ipc__GraphInfo gi;
	Webnn__Ipc__Operand operands[FUZZ_N_OPERANDS], *operand_ptrs[FUZZ_N_OPERANDS];
	Webnn__Ipc__OperandDescriptor dms[FUZZ_N_OPERANDS];
	struct wnn_desc descs[FUZZ_N_OPERANDS];
	struct wnn_desc pb_descs[FUZZ_N_OPERANDS]; /* the pb dims point here */
	Webnn__Ipc__NamedOperand named[FUZZ_N_OPERANDS], *in_ptrs[FUZZ_N_OPERANDS],
		*out_ptrs[FUZZ_N_OPERANDS];
	char names[FUZZ_N_OPERANDS][16];
	Webnn__Ipc__Operation *op_ptrs[2];
	Webnn__Ipc__Number scalar;
};

/* Returns false when the operation is not valid over the table (no graph seed then). */
static bool make_graph(struct graph_msg *g, Webnn__Ipc__Operation *op, enum graph_variant v)
{
	memset(g, 0, sizeof(*g));
	webnn__ipc__graph_info__init(&g->gi);
	fuzz_operand_table(g->descs);
	struct wnn_desc outs[WNN_MAX_OUTPUTS];
	int n_outs = 0;
	struct wnn_diag diag = { 0 };
	if (wnn_op_infer(op, g->descs, FUZZ_N_OPERANDS, outs, WNN_MAX_OUTPUTS, &n_outs, &diag) !=
	    WEBNN_STATUS_OK)
		return false;
	size_t n = FUZZ_FIRST_OUTPUT + (size_t)n_outs;
	webnn__ipc__number__init(&g->scalar);
	g->scalar.value_case = WEBNN__IPC__NUMBER__VALUE_F;
	g->scalar.f = 2.5;
	for (size_t i = 0; i < n; i++) {
		bool out = i >= FUZZ_FIRST_OUTPUT;
		if (out)
			g->descs[i] = outs[i - FUZZ_FIRST_OUTPUT];
		webnn__ipc__operand__init(&g->operands[i]);
		webnn__ipc__operand_descriptor__init(&g->dms[i]);
		g->pb_descs[i] = g->descs[i];
		wnn_desc_to_pb(&g->pb_descs[i], &g->dms[i]);
		Webnn__Ipc__Operand *o = &g->operands[i];
		o->descriptor = &g->dms[i];
		g->operand_ptrs[i] = o;
		snprintf(g->names[i], sizeof(g->names[i]), "%s%zu", out ? "out" : "in", i);
		webnn__ipc__named_operand__init(&g->named[i]);
		g->named[i].name = g->names[i];
		g->named[i].operand = (uint32_t)i;
		if (out) {
			o->kind = WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT;
			g->out_ptrs[g->gi.n_outputs++] = &g->named[i];
		} else if (v == GV_SCALAR && i == 7) {
			o->kind = WEBNN__IPC__OPERAND_KIND__OPERAND_SCALAR_CONSTANT;
			o->scalar = &g->scalar;
		} else if (v == GV_CONSTANTS && i % 2 == 1) {
			o->kind = WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT;
			o->has_constant_id = true;
			o->constant_id = 100 + (uint32_t)i;
		} else {
			o->kind = WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT;
			o->name = g->names[i];
			g->in_ptrs[g->gi.n_inputs++] = &g->named[i];
		}
	}
	g->gi.n_operands = n;
	g->gi.operands = g->operand_ptrs;
	g->op_ptrs[0] = op;
	g->gi.n_operations = 1;
	g->gi.operations = g->op_ptrs;
	g->gi.inputs = g->in_ptrs;
	g->gi.outputs = g->out_ptrs;
	if (wnn_graph_validate(&g->gi, g->descs, &diag) == WEBNN_STATUS_OK)
		return true;
	if (getenv("FUZZ_SEEDS_DEBUG"))
		fprintf(stderr, "graph seed: %s\n", diag.message);
	return false;
}

/* ---- client sessions: framed ClientMessages after a flags byte (see fuzz_frame.c) */

struct stream {
	uint8_t *buf;
	size_t len;
	uint64_t serial;
};

static void put(struct stream *st, Webnn__Ipc__ClientMessage *m, bool with_serial,
		uint16_t n_fds)
{
	if (with_serial) {
		m->has_serial = true;
		m->serial = ++st->serial;
	}
	size_t len = webnn__ipc__client_message__get_packed_size(m);
	struct wnn_frame_header h = { (uint32_t)len, n_fds, 0 };
	st->buf = realloc(st->buf, st->len + sizeof(h) + len);
	if (!st->buf)
		exit(1);
	memcpy(st->buf + st->len, &h, sizeof(h));
	webnn__ipc__client_message__pack(m, st->buf + st->len + sizeof(h));
	st->len += sizeof(h) + len;
}

static void stream_begin(struct stream *st, uint8_t flags)
{
	st->buf = malloc(1);
	if (!st->buf)
		exit(1);
	st->buf[0] = flags;
	st->len = 1;
	st->serial = 1; /* the harness's Hello used serial 1 */
}

static void stream_end(struct stream *st, const char *name)
{
	write_file("fuzz_frame", name, st->buf, st->len);
	free(st->buf);
}

#define MSG(var, CASE, field, body)                                                            \
	Webnn__Ipc__ClientMessage var = WEBNN__IPC__CLIENT_MESSAGE__INIT;                      \
	var.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_##CASE;                               \
	var.field = body

static void s_hello(struct stream *st)
{
	Webnn__Ipc__Hello h = WEBNN__IPC__HELLO__INIT;
	h.major = WNN_PROTOCOL_MAJOR;
	h.minor = WNN_PROTOCOL_MINOR;
	h.client_name = "seed";
	MSG(m, HELLO, hello, &h);
	put(st, &m, true, 0);
}

static void s_context(struct stream *st, uint32_t id)
{
	Webnn__Ipc__CreateContext c = WEBNN__IPC__CREATE_CONTEXT__INIT;
	c.context_id = id;
	MSG(m, CREATE_CONTEXT, create_context, &c);
	put(st, &m, true, 0);
}

static Webnn__Ipc__OperandDescriptor d23 = { PROTOBUF_C_MESSAGE_INIT(
	&webnn__ipc__operand_descriptor__descriptor), WEBNN__IPC__DATA_TYPE__FLOAT32, 2,
	(uint32_t[]){ 2, 3 } };

static void s_tensor(struct stream *st, uint32_t ctx, uint32_t id, bool rd, bool wr,
		     Webnn__Ipc__Data *constant_data)
{
	Webnn__Ipc__CreateTensor t = WEBNN__IPC__CREATE_TENSOR__INIT;
	t.context_id = ctx;
	t.tensor_id = id;
	t.descriptor = &d23;
	t.has_readable = rd;
	t.readable = rd;
	t.has_writable = wr;
	t.writable = wr;
	if (constant_data) {
		t.has_constant = t.constant = true;
		t.data = constant_data;
	}
	MSG(m, CREATE_TENSOR, create_tensor, &t);
	put(st, &m, true, 0);
}

static float six[6] = { 1, -2, 3, -4, 5, -6 };

static void s_inline(Webnn__Ipc__Data *d)
{
	webnn__ipc__data__init(d);
	d->where_case = WEBNN__IPC__DATA__WHERE_INLINE;
	d->inline_.data = (uint8_t *)six;
	d->inline_.len = sizeof(six);
}

static void s_write(struct stream *st, uint32_t id, Webnn__Ipc__Data *d, bool serial)
{
	Webnn__Ipc__WriteTensor w = WEBNN__IPC__WRITE_TENSOR__INIT;
	w.tensor_id = id;
	w.data = d;
	MSG(m, WRITE_TENSOR, write_tensor, &w);
	put(st, &m, serial, 0);
}

static void s_read(struct stream *st, uint32_t id, Webnn__Ipc__ShmRange *dest)
{
	Webnn__Ipc__ReadTensor r = WEBNN__IPC__READ_TENSOR__INIT;
	r.tensor_id = id;
	r.dest = dest;
	MSG(m, READ_TENSOR, read_tensor, &r);
	put(st, &m, true, 0);
}

static void s_constant(struct stream *st, uint32_t ctx, uint32_t id, Webnn__Ipc__Data *d,
		       bool serial)
{
	Webnn__Ipc__CreateConstant k = WEBNN__IPC__CREATE_CONSTANT__INIT;
	k.context_id = ctx;
	k.constant_id = id;
	k.descriptor = &d23;
	k.data = d;
	MSG(m, CREATE_CONSTANT, create_constant, &k);
	put(st, &m, serial, 0);
}

/* add(x, second) -> y over float32 [2, 3]; second is an input, a constant or a constant tensor. */
static void s_graph(struct stream *st, uint32_t ctx, uint32_t id, Webnn__Ipc__OperandKind kind2,
		    uint32_t ref2, uint32_t op_id)
{
	Webnn__Ipc__Operand x = WEBNN__IPC__OPERAND__INIT, k = WEBNN__IPC__OPERAND__INIT,
			    y = WEBNN__IPC__OPERAND__INIT;
	x.kind = WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT;
	x.descriptor = &d23;
	x.name = "x";
	k.kind = kind2;
	k.descriptor = &d23;
	if (kind2 == WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT)
		k.name = "k";
	if (kind2 == WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT) {
		k.has_constant_id = true;
		k.constant_id = ref2;
	}
	if (kind2 == WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR) {
		k.has_tensor_id = true;
		k.tensor_id = ref2;
	}
	y.kind = WEBNN__IPC__OPERAND_KIND__OPERAND_OUTPUT;
	y.descriptor = &d23;
	Webnn__Ipc__Operand *ops[] = { &x, &k, &y };
	Webnn__Ipc__ElementwiseBinary b = WEBNN__IPC__ELEMENTWISE_BINARY__INIT;
	b.a = 0;
	b.b = 1;
	b.output = 2;
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;
	op.op = op_id;
	op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_BINARY;
	op.binary = &b;
	Webnn__Ipc__Operation *opp[] = { &op };
	Webnn__Ipc__NamedOperand nx = WEBNN__IPC__NAMED_OPERAND__INIT,
				 nk = WEBNN__IPC__NAMED_OPERAND__INIT,
				 ny = WEBNN__IPC__NAMED_OPERAND__INIT;
	nx.name = "x";
	nx.operand = 0;
	nk.name = "k";
	nk.operand = 1;
	ny.name = "y";
	ny.operand = 2;
	Webnn__Ipc__NamedOperand *ins[] = { &nx, &nk }, *outs[] = { &ny };
	Webnn__Ipc__GraphInfo gi = WEBNN__IPC__GRAPH_INFO__INIT;
	gi.n_operands = 3;
	gi.operands = ops;
	gi.n_operations = 1;
	gi.operations = opp;
	gi.n_inputs = kind2 == WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT ? 2 : 1;
	gi.inputs = ins;
	gi.n_outputs = 1;
	gi.outputs = outs;
	Webnn__Ipc__BuildGraph bg = WEBNN__IPC__BUILD_GRAPH__INIT;
	bg.context_id = ctx;
	bg.graph_id = id;
	bg.graph = &gi;
	MSG(m, BUILD_GRAPH, build_graph, &bg);
	put(st, &m, true, 0);
}

static void s_dispatch(struct stream *st, uint32_t ctx, uint32_t graph, uint32_t x, uint32_t k,
		       uint32_t y)
{
	Webnn__Ipc__NamedTensor nx = WEBNN__IPC__NAMED_TENSOR__INIT,
				nk = WEBNN__IPC__NAMED_TENSOR__INIT,
				ny = WEBNN__IPC__NAMED_TENSOR__INIT;
	nx.name = "x";
	nx.tensor_id = x;
	nk.name = "k";
	nk.tensor_id = k;
	ny.name = "y";
	ny.tensor_id = y;
	Webnn__Ipc__NamedTensor *ins[] = { &nx, &nk }, *outs[] = { &ny };
	Webnn__Ipc__Dispatch dp = WEBNN__IPC__DISPATCH__INIT;
	dp.context_id = ctx;
	dp.graph_id = graph;
	dp.n_inputs = k ? 2 : 1;
	dp.inputs = ins;
	dp.n_outputs = 1;
	dp.outputs = outs;
	MSG(m, DISPATCH, dispatch, &dp);
	put(st, &m, false, 0);
}

static void s_flush(struct stream *st, uint32_t ctx)
{
	Webnn__Ipc__Flush f = WEBNN__IPC__FLUSH__INIT;
	f.context_id = ctx;
	MSG(m, FLUSH, flush, &f);
	put(st, &m, true, 0);
}

static void s_destroy(struct stream *st, Webnn__Ipc__ClientMessage__BodyCase c, uint32_t id)
{
	/* every Destroy* message is one required uint32 id field */
	Webnn__Ipc__DestroyTensor dt = WEBNN__IPC__DESTROY_TENSOR__INIT;
	Webnn__Ipc__DestroyGraph dg = WEBNN__IPC__DESTROY_GRAPH__INIT;
	Webnn__Ipc__DestroyConstant dk = WEBNN__IPC__DESTROY_CONSTANT__INIT;
	Webnn__Ipc__DestroyContext dc = WEBNN__IPC__DESTROY_CONTEXT__INIT;
	Webnn__Ipc__UnregisterShm us = WEBNN__IPC__UNREGISTER_SHM__INIT;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = c;
	dt.tensor_id = dg.graph_id = dk.constant_id = dc.context_id = us.slot_id = id;
	switch (c) {
	case WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_TENSOR: m.destroy_tensor = &dt; break;
	case WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_GRAPH: m.destroy_graph = &dg; break;
	case WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONSTANT: m.destroy_constant = &dk; break;
	case WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONTEXT: m.destroy_context = &dc; break;
	case WEBNN__IPC__CLIENT_MESSAGE__BODY_UNREGISTER_SHM: m.unregister_shm = &us; break;
	default: return;
	}
	put(st, &m, false, 0);
}

static void frame_seeds(void)
{
	struct stream st;
	Webnn__Ipc__Data inl;
	s_inline(&inl);

	/* A whole session: tensors, a constant, a graph, dispatch, read back, destroy. */
	stream_begin(&st, 8);
	s_context(&st, 1);
	s_tensor(&st, 1, 2, false, true, NULL);
	s_tensor(&st, 1, 3, true, false, NULL);
	s_write(&st, 2, &inl, false);
	s_constant(&st, 1, 4, &inl, false);
	s_graph(&st, 1, 5, WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT, 4, wnn_ops[WNN_OP_ADD].id);
	s_destroy(&st, WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONSTANT, 4);
	s_dispatch(&st, 1, 5, 2, 0, 3);
	s_read(&st, 3, NULL);
	s_flush(&st, 1);
	s_destroy(&st, WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_GRAPH, 5);
	s_destroy(&st, WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_TENSOR, 2);
	s_destroy(&st, WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_CONTEXT, 1);
	stream_end(&st, "session-constant");

	/* Two graph inputs, a constant tensor graph, and a disconnect with work queued. */
	stream_begin(&st, 8);
	s_context(&st, 1);
	s_tensor(&st, 1, 2, true, true, NULL);
	s_tensor(&st, 1, 3, true, true, NULL);
	s_tensor(&st, 1, 6, true, true, NULL);
	s_tensor(&st, 1, 7, false, false, &inl);
	s_write(&st, 2, &inl, false);
	s_write(&st, 3, &inl, false);
	s_graph(&st, 1, 5, WEBNN__IPC__OPERAND_KIND__OPERAND_INPUT, 0, wnn_ops[WNN_OP_MUL].id);
	s_graph(&st, 1, 8, WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR, 7,
		wnn_ops[WNN_OP_SUB].id);
	s_dispatch(&st, 1, 5, 2, 3, 6);
	s_dispatch(&st, 1, 5, 6, 3, 2);
	s_read(&st, 2, NULL);
	stream_end(&st, "session-inputs-disconnect");

	/* Shared memory: register the harness's memfd, write from it and read into it. */
	stream_begin(&st, 8 | 1);
	{
		Webnn__Ipc__RegisterShm r = WEBNN__IPC__REGISTER_SHM__INIT;
		r.slot_id = 9;
		r.size = 4096;
		MSG(m, REGISTER_SHM, register_shm, &r);
		put(&st, &m, true, 1);
	}
	s_context(&st, 1);
	s_tensor(&st, 1, 2, true, true, NULL);
	Webnn__Ipc__ShmRange range = WEBNN__IPC__SHM_RANGE__INIT;
	range.slot_id = 9;
	range.offset = 64;
	range.size = sizeof(six);
	Webnn__Ipc__Data shm = WEBNN__IPC__DATA__INIT;
	shm.where_case = WEBNN__IPC__DATA__WHERE_SHM;
	shm.shm = &range;
	s_write(&st, 2, &shm, true);
	s_constant(&st, 1, 4, &shm, true);
	s_read(&st, 2, &range);
	s_destroy(&st, WEBNN__IPC__CLIENT_MESSAGE__BODY_UNREGISTER_SHM, 9);
	s_read(&st, 2, NULL);
	stream_end(&st, "session-shm");

	/* The client's own Hello (no harness one), then Goodbye. */
	stream_begin(&st, 0);
	st.serial = 0;
	s_hello(&st);
	s_context(&st, 1);
	{
		Webnn__Ipc__Goodbye g = WEBNN__IPC__GOODBYE__INIT;
		g.reason = "bye";
		MSG(m, GOODBYE, goodbye, &g);
		put(&st, &m, false, 0);
	}
	stream_end(&st, "session-hello-goodbye");
}

/* fuzz_nnef: NNEF documents (a NUL byte, then graph.quant text) and .dat files. */
static void nnef_seeds(void)
{
	static const char *const docs[] = {
		"version 1.0;\ngraph G( x ) -> ( y ) {\n x = external<scalar>(shape = [1, 3, 8, 8]);\n"
		" w = variable<scalar>(shape = [4, 3, 3, 3], label = 'w');\n"
		" c = conv(x, w, padding = [], stride = [2, 2], groups = 1);\n"
		" p = avg_pool(c, size = [1, 1, 3, 3], border = 'ignore');\n"
		" y = softmax(reshape(p, shape = [1, -1]), axes = [1]);\n}\n",
		"version 1.0;\nextension KHR_enable_fragment_definitions, "
		"KHR_enable_operator_expressions;\n"
		"fragment f<? = scalar>( x: tensor<?>, k: integer[] = [1, 2] ) -> ( y: tensor<?>[] )\n"
		"{\n y = [for i in k if i > 0 yield x * scalar(i)];\n}\n"
		"fragment s( a: scalar[] ) -> ( r: scalar ) {\n"
		" r = a[0] + s(a[1:]) if length_of(a) > 0 else 0.0;\n}\n"
		"graph G( x ) -> ( a, b ) {\n x = external(shape = [2, 2]);\n"
		" [a, b] = f(x);\n}\n",
		"version 1.0;\ngraph G( x ) -> ( y ) {\n x = external<scalar>(shape = [4]);\n"
		" q = variable<scalar>(shape = [4], label = 'q');\n y = x + q;\n}\n"
		"\0\"q\": zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 8, "
		"signed = true, symmetric = false);\n",
	};
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char name[32];
		snprintf(name, sizeof(name), "doc-%zu.nnef", i);
		size_t len = strlen(docs[i]);
		if (i == 2) /* the quant text after the NUL */
			len += 1 + strlen(docs[i] + len + 1);
		write_file("fuzz_nnef", name, docs[i], len);
	}
	uint8_t dat[128 + 2] = { 'N', 0xEF, 1, 0, 2, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0 };
	dat[44] = 4; /* 4-bit signed integers, packed */
	dat[48] = 4;
	dat[128] = 0x7F;
	dat[129] = 0x10;
	write_file("fuzz_nnef", "int4.dat", dat, sizeof(dat));
}

/* fuzz_onnx: small models of ONNX's own backend tests (libonnx-testdata), when installed, and
 * one hand-encoded model (Relu of a [1] input) that needs nothing. */
static void onnx_seeds(void)
{
	static const uint8_t relu[] = {
		0x08, 0x07, 0x12, 0x00, 0x3a, 0x2c, 0x0a, 0x0c, 0x0a, 0x01, 'x', 0x12, 0x01, 'y',
		0x22, 0x04, 'R', 'e', 'l', 'u', 0x12, 0x01, 'g', 0x5a, 0x0b, 0x0a, 0x01, 'x', 0x12,
		0x06, 0x0a, 0x04, 0x08, 0x01, 0x12, 0x00, 0x62, 0x0b, 0x0a, 0x01, 'y', 0x12, 0x06,
		0x0a, 0x04, 0x08, 0x01, 0x12, 0x00, 0x42, 0x02, 0x10, 0x0d,
	};
	write_file("fuzz_onnx", "relu", relu, sizeof(relu));
	static const char *const models[] = {
		"node/test_add", "node/test_conv_with_strides_padding", "node/test_lstm_defaults",
		"node/test_gru_defaults", "node/test_resize_upsample_scales_nearest",
		"node/test_slice", "node/test_reshape_reduced_dims", "node/test_gather_0",
		"node/test_softmax_axis_1", "node/test_maxpool_2d_pads", "node/test_einsum_batch_matmul",
		"node/test_layer_normalization_2d_axis0", "node/test_quantizelinear",
		"node/test_nllloss_NCd1_weight", "node/test_pad", "node/test_cumsum_1d",
		"pytorch-converted/test_Conv3d", "pytorch-operator/test_operator_flatten",
		"simple/test_single_relu_model",
		/* control flow: If, Loop and Scan graph attributes */
		"node/test_if", "node/test_loop11", "node/test_scan9_sum",
		"node/test_range_float_type_positive_delta_expanded",
	};
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		for (int k = 0; k < 2; k++) {
			char path[512], name[128];
			snprintf(path, sizeof(path), "/usr/share/libonnx-testdata/data/%s/%s", models[i],
				 k ? "test_data_set_0/input_0.pb" : "model.onnx");
			FILE *f = fopen(path, "rb");
			if (!f)
				continue;
			static uint8_t buf[1 << 20];
			size_t n = fread(buf, 1, sizeof(buf), f);
			fclose(f);
			const char *base = strrchr(models[i], '/') + 1;
			snprintf(name, sizeof(name), "%s%s", base, k ? "-input0" : "");
			write_file("fuzz_onnx", name, buf, n);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	root = argv[1];
	if (mkdir(root, 0755) != 0 && errno != EEXIST) {
		perror(root);
		return 1;
	}
	int graphs = 0;
	for (int e = 0; e < WNN_OP_COUNT; e++) {
		static struct op_attrs x;
		static struct graph_msg g;
		char name[96];
		make_op((enum wnn_op)e, &x);
		snprintf(name, sizeof(name), "op-%s", wnn_ops[e].name);
		write_msg("fuzz_infer", name, &x.op.base);
		static const char *const vname[] = { "inputs", "constants", "scalar" };
		for (int v = GV_INPUTS; v <= GV_SCALAR; v++) {
			if (!make_graph(&g, &x.op, (enum graph_variant)v))
				continue;
			snprintf(name, sizeof(name), "graph-%s-%s", wnn_ops[e].name, vname[v]);
			write_msg("fuzz_graph", name, &g.gi.base);
			graphs++;
		}
	}
	frame_seeds();
	nnef_seeds();
	onnx_seeds();
	printf("fuzz-seeds: %d files in %s (%d operators, %d graphs)\n", n_written, root,
	       WNN_OP_COUNT, graphs);
	return 0;
}
