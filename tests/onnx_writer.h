/* Writes ONNX models for the tests and benches: protobuf-c ModelProto messages built in an arena freed at once. */
#ifndef TESTS_ONNX_WRITER_H
#define TESTS_ONNX_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onnx/onnx.pb-c.h"

/* TensorProto.DataType, the element types of values and tensors. */
enum onnx_type {
	ONNX_FLOAT = 1,
	ONNX_UINT8 = 2,
	ONNX_INT8 = 3,
	ONNX_UINT16 = 4,
	ONNX_INT16 = 5,
	ONNX_INT32 = 6,
	ONNX_INT64 = 7,
	ONNX_BOOL = 9,
	ONNX_FLOAT16 = 10,
	ONNX_DOUBLE = 11,
	ONNX_UINT32 = 12,
	ONNX_UINT64 = 13,
	ONNX_BFLOAT16 = 16,
	ONNX_UINT4 = 21,
	ONNX_INT4 = 22,
};

#define ONNX_WRITER_MAX_DEPTH 16

/* A model under construction. Every message, array, string and tensor's bytes lives in the
 * writer's arena until onnx_writer_free; names and data passed in are copied, so callers may
 * build them in temporary buffers. The messages are plain protobuf-c structures: a test that
 * wants a malformed model (a lying length, an untyped attribute) sets their fields directly.
 * A repeated field the writer grew must only be appended to through the writer (its capacity
 * is implied by its count). */
struct onnx_writer {
	Onnx__ModelProto model;
	/* where values, initializers and nodes go: the model's graph or the subgraph begun */
	Onnx__GraphProto *graph;
	Onnx__GraphProto *outer[ONNX_WRITER_MAX_DEPTH];
	int depth;
	void **mem;
	size_t n_mem, cap_mem;
};

/* Starts an empty model (its previous contents are not freed): graph "g", the ai.onnx opset
 * `opset` and the IR version ONNX released with it (13: 7, 17: 8, 21: 10; set
 * w->model.ir_version for another). */
void onnx_writer_init(struct onnx_writer *w, int64_t opset);
/* Frees every allocation; w is then all zeros (freeing it again does nothing). */
void onnx_writer_free(struct onnx_writer *w);
/* Imports `domain` ("" ai.onnx, "com.microsoft", ...) at `version`, or changes its version. */
void onnx_writer_opset(struct onnx_writer *w, const char *domain, int64_t version);

/* A copy of s in the arena; NULL stays NULL (an unset field). */
char *onnx_writer_strdup(struct onnx_writer *w, const char *s);

/* Starts a subgraph (If's branches, Loop's and Scan's bodies): the calls below add to it until
 * onnx_writer_subgraph_end. Subgraphs nest. */
Onnx__GraphProto *onnx_writer_subgraph_begin(struct onnx_writer *w, const char *name);
/* Adds to g (a subgraph begun and ended before) again, until onnx_writer_subgraph_end. */
void onnx_writer_subgraph_enter(struct onnx_writer *w, Onnx__GraphProto *g);
/* Returns to the enclosing graph; returns the subgraph, for onnx_writer_attr_graph. */
Onnx__GraphProto *onnx_writer_subgraph_end(struct onnx_writer *w);

/* A graph input or output: a tensor of `type` with rank sizes from dims (rank 0: a scalar;
 * rank -1: no shape at all, left for the importer to infer). */
Onnx__ValueInfoProto *onnx_writer_input(struct onnx_writer *w, const char *name, int type,
					int rank, const int64_t *dims);
Onnx__ValueInfoProto *onnx_writer_output(struct onnx_writer *w, const char *name, int type,
					 int rank, const int64_t *dims);
/* Makes axis `axis` of v a free dimension named param ("": free and unnamed). */
void onnx_writer_dim_param(struct onnx_writer *w, Onnx__ValueInfoProto *v, int axis,
			   const char *param);
/* The same for every axis i of v whose names[i] is not NULL ({ "batch", "seq" }). */
void onnx_writer_dim_params(struct onnx_writer *w, Onnx__ValueInfoProto *v,
			    const char *const *names);

/* A tensor in no graph (a Constant's or ConstantOfShape's value) with its elements as raw_data
 * copied from data (NULL: zeros, to fill in t->raw_data.data). */
Onnx__TensorProto *onnx_writer_tensor(struct onnx_writer *w, const char *name, int type,
				      int rank, const int64_t *dims, const void *data);
/* The same, added to the graph's initializers. A large weight is best written in place: pass
 * NULL and fill t->raw_data.data (t->raw_data.len bytes) instead of copying a buffer. float16
 * elements are their bits (wnn_f32_to_f16 in proto/wnn.h). A model of 2 GiB or more needs its
 * weights as external data: protobuf readers, onnxruntime's among them, refuse larger ones. */
Onnx__TensorProto *onnx_writer_initializer(struct onnx_writer *w, const char *name, int type,
					   int rank, const int64_t *dims, const void *data);
/* An initializer whose elements are in the typed field int32_data (as exporters write int8,
 * uint8, int16, float16, bool and 4-bit types without raw_data): n values. */
Onnx__TensorProto *onnx_writer_initializer_int32(struct onnx_writer *w, const char *name,
						 int type, int rank, const int64_t *dims,
						 const int32_t *values, size_t n);
/* An initializer whose bytes are in the file `location` beside the model (external data). */
Onnx__TensorProto *onnx_writer_initializer_external(struct onnx_writer *w, const char *name,
						    int type, int rank, const int64_t *dims,
						    const char *location);
/* Adds an external data entry ("offset", "length", ...) to t. */
void onnx_writer_external_data(struct onnx_writer *w, Onnx__TensorProto *t, const char *key,
			       const char *value);

/* A node of domain (NULL or "": ai.onnx) named name (NULL: after its first output). inputs and
 * outputs are comma-separated ("" or NULL: none; an empty entry: an absent optional one, as in
 * "x,,mask"). */
Onnx__NodeProto *onnx_writer_node(struct onnx_writer *w, const char *name, const char *op_type,
				  const char *domain, const char *inputs, const char *outputs);
/* The same with the names in arrays (names built in a loop). */
Onnx__NodeProto *onnx_writer_node_v(struct onnx_writer *w, const char *name,
				    const char *op_type, const char *domain, size_t n_in,
				    const char *const *inputs, size_t n_out,
				    const char *const *outputs);
/* A Constant node named after its output, its value a tensor (unnamed) as onnx_writer_tensor. */
Onnx__NodeProto *onnx_writer_constant(struct onnx_writer *w, const char *output, int type,
				      int rank, const int64_t *dims, const void *data);

/* Typed attributes of node n; each returns the attribute for a test to alter. */
Onnx__AttributeProto *onnx_writer_attr_int(struct onnx_writer *w, Onnx__NodeProto *n,
					   const char *name, int64_t v);
Onnx__AttributeProto *onnx_writer_attr_ints(struct onnx_writer *w, Onnx__NodeProto *n,
					    const char *name, const int64_t *v, size_t count);
Onnx__AttributeProto *onnx_writer_attr_float(struct onnx_writer *w, Onnx__NodeProto *n,
					     const char *name, float v);
Onnx__AttributeProto *onnx_writer_attr_floats(struct onnx_writer *w, Onnx__NodeProto *n,
					      const char *name, const float *v, size_t count);
Onnx__AttributeProto *onnx_writer_attr_string(struct onnx_writer *w, Onnx__NodeProto *n,
					      const char *name, const char *v);
Onnx__AttributeProto *onnx_writer_attr_tensor(struct onnx_writer *w, Onnx__NodeProto *n,
					      const char *name, Onnx__TensorProto *t);
Onnx__AttributeProto *onnx_writer_attr_graph(struct onnx_writer *w, Onnx__NodeProto *n,
					     const char *name, Onnx__GraphProto *g);

/* The serialised model in *buf (malloc'd, the caller frees it), *len bytes; false when out of
 * memory. */
bool onnx_writer_serialise(const struct onnx_writer *w, uint8_t **buf, size_t *len);
/* Writes the model to path, streamed (a tensor's bytes go to the file without another copy);
 * false on an I/O error. */
bool onnx_writer_save(const struct onnx_writer *w, const char *path);

#endif
