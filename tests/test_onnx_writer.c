/* The tests' ONNX model writer (tests/onnx_writer.h): what it writes, read back by protobuf-c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/onnx_writer.h"
#include "tests/test.h"

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ASSERT(f && fseek(f, 0, SEEK_END) == 0);
	long n = ftell(f);
	ASSERT(n >= 0 && fseek(f, 0, SEEK_SET) == 0);
	void *buf = malloc((size_t)n + 1);
	ASSERT(buf && fread(buf, 1, (size_t)n, f) == (size_t)n && fclose(f) == 0);
	*len = (size_t)n;
	return buf;
}

/* Every call of the writer once (names built in a reused buffer, 40 nodes to grow the repeated
 * fields past several doublings, a subgraph inside a subgraph), serialised and saved: the two
 * are the same bytes, and protobuf-c reads back what was written. */
TEST(onnx_writer_round_trip)
{
	struct onnx_writer w;
	onnx_writer_init(&w, 21);
	ASSERT_EQ(w.model.ir_version, 10);
	onnx_writer_opset(&w, "com.microsoft", 1);
	onnx_writer_opset(&w, "", 17); /* changes the version, adds no import */
	static const int64_t xd[2] = { 2, 5 }, q5[1] = { 5 }, sd[1] = { 3 };
	static const char *const dims[2] = { "batch", NULL };
	onnx_writer_dim_params(&w, onnx_writer_input(&w, "x", ONNX_FLOAT, 2, xd), dims);
	onnx_writer_output(&w, "y", ONNX_FLOAT16, -1, NULL);
	static const uint8_t nibbles[3] = { 0x21, 0x43, 0x05 };
	Onnx__TensorProto *q = onnx_writer_initializer(&w, "q", ONNX_INT4, 1, q5, nibbles);
	ASSERT_EQ(q->raw_data.len, 3);
	static const int32_t i32[3] = { -1, 0, 7 };
	onnx_writer_initializer_int32(&w, "i", ONNX_INT8, 1, sd, i32, 3);
	onnx_writer_external_data(&w, onnx_writer_initializer_external(&w, "e", ONNX_BFLOAT16, 1,
									sd, "e.bin"),
				  "length", "6");
	char name[16], prev[16] = "x";
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		Onnx__NodeProto *n = onnx_writer_node(&w, NULL, "Relu", NULL, prev, name);
		snprintf(prev, sizeof(prev), "%s", name);
		if (i == 0) {
			static const float fs[2] = { 0.5f, -2 };
			static const int64_t is[3] = { 1, 2, 3 };
			onnx_writer_attr_floats(&w, n, "fs", fs, 2);
			onnx_writer_attr_ints(&w, n, "is", is, 3);
			onnx_writer_attr_float(&w, n, "f", 1.5f);
			onnx_writer_attr_string(&w, n, "s", "text");
		}
	}
	const char *ins[3] = { "h39", "", "q" }, *outs[1] = { "y" };
	Onnx__NodeProto *iff = onnx_writer_node_v(&w, "if", "If", "com.microsoft", 3, ins, 1, outs);
	onnx_writer_subgraph_begin(&w, "then");
	Onnx__NodeProto *loop = onnx_writer_node(&w, "loop", "Loop", NULL, ",,h39", "t");
	onnx_writer_subgraph_begin(&w, "body");
	onnx_writer_constant(&w, "c", ONNX_INT64, 0, NULL, &xd[1]);
	onnx_writer_attr_graph(&w, loop, "body", onnx_writer_subgraph_end(&w));
	onnx_writer_attr_graph(&w, iff, "then_branch", onnx_writer_subgraph_end(&w));
	ASSERT(w.graph == w.model.graph);

	uint8_t *buf;
	size_t len, flen;
	ASSERT(onnx_writer_serialise(&w, &buf, &len));
	char path[] = "/tmp/wnn-writer-XXXXXX";
	int fd = mkstemp(path);
	ASSERT(fd >= 0 && close(fd) == 0);
	ASSERT(onnx_writer_save(&w, path));
	uint8_t *file = read_file(path, &flen);
	unlink(path);
	ASSERT_EQ(flen, len);
	ASSERT(memcmp(file, buf, len) == 0);
	free(file);
	onnx_writer_free(&w);
	onnx_writer_free(&w); /* a freed writer frees nothing */

	Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
	free(buf);
	ASSERT(m && m->graph);
	ASSERT_EQ(m->ir_version, 10);
	ASSERT_EQ(m->n_opset_import, 2);
	ASSERT_STREQ(m->opset_import[0]->domain, "");
	ASSERT_EQ(m->opset_import[0]->version, 17);
	ASSERT_STREQ(m->opset_import[1]->domain, "com.microsoft");
	Onnx__GraphProto *g = m->graph;
	ASSERT_STREQ(g->name, "g");
	ASSERT_EQ(g->n_input, 1);
	Onnx__TensorShapeProto *s = g->input[0]->type->tensor_type->shape;
	ASSERT_EQ(s->n_dim, 2);
	ASSERT_STREQ(s->dim[0]->dim_param, "batch");
	ASSERT_EQ(s->dim[1]->value_case, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE);
	ASSERT_EQ(s->dim[1]->dim_value, 5);
	ASSERT_EQ(g->output[0]->type->tensor_type->elem_type, ONNX_FLOAT16);
	ASSERT(g->output[0]->type->tensor_type->shape == NULL);
	ASSERT_EQ(g->n_initializer, 3);
	ASSERT_EQ(g->initializer[0]->data_type, ONNX_INT4);
	ASSERT_EQ(g->initializer[0]->raw_data.len, 3);
	ASSERT(memcmp(g->initializer[0]->raw_data.data, nibbles, 3) == 0);
	ASSERT_EQ(g->initializer[1]->n_int32_data, 3);
	ASSERT_EQ(g->initializer[1]->int32_data[0], -1);
	ASSERT(!g->initializer[1]->has_raw_data);
	Onnx__TensorProto *e = g->initializer[2];
	ASSERT_EQ(e->data_location, ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
	ASSERT_EQ(e->n_external_data, 2);
	ASSERT_STREQ(e->external_data[0]->key, "location");
	ASSERT_STREQ(e->external_data[0]->value, "e.bin");
	ASSERT_STREQ(e->external_data[1]->value, "6");
	ASSERT_EQ(g->n_node, 41);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		ASSERT_STREQ(g->node[i]->name, name); /* named after the output */
		ASSERT_STREQ(g->node[i]->output[0], name);
		ASSERT(g->node[i]->domain == NULL);
	}
	Onnx__NodeProto *r = g->node[0];
	ASSERT_EQ(r->n_attribute, 4);
	ASSERT_EQ(r->attribute[0]->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
	ASSERT_EQ(r->attribute[0]->n_floats, 2);
	ASSERT(r->attribute[0]->floats[1] == -2);
	ASSERT_EQ(r->attribute[1]->ints[2], 3);
	ASSERT(r->attribute[2]->f == 1.5f);
	ASSERT_EQ(r->attribute[3]->s.len, 4);
	ASSERT(memcmp(r->attribute[3]->s.data, "text", 4) == 0);
	Onnx__NodeProto *n = g->node[40];
	ASSERT_STREQ(n->domain, "com.microsoft");
	ASSERT_EQ(n->n_input, 3);
	ASSERT_STREQ(n->input[1], "");
	ASSERT_STREQ(n->input[2], "q");
	Onnx__GraphProto *then = n->attribute[0]->g;
	ASSERT_STREQ(then->name, "then");
	ASSERT_EQ(then->n_node, 1);
	Onnx__NodeProto *lp = then->node[0];
	ASSERT_EQ(lp->n_input, 3);
	ASSERT_STREQ(lp->input[0], "");
	ASSERT_STREQ(lp->input[2], "h39");
	Onnx__GraphProto *body = lp->attribute[0]->g;
	ASSERT_STREQ(body->name, "body");
	Onnx__NodeProto *c = body->node[0];
	ASSERT_STREQ(c->op_type, "Constant");
	ASSERT_STREQ(c->name, "c");
	Onnx__TensorProto *ct = c->attribute[0]->t;
	ASSERT_EQ(ct->n_dims, 0);
	ASSERT_EQ(ct->raw_data.len, 8);
	int64_t cv;
	memcpy(&cv, ct->raw_data.data, 8);
	ASSERT_EQ(cv, 5);
	onnx__model_proto__free_unpacked(m, NULL);
}
