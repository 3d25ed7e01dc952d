/* libwebnn-import: turns ONNX and NNEF model files into libwebnn graphs (client side; libwebnn does not depend on it). */
#ifndef WEBNN_IMPORT_H
#define WEBNN_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "webnn.h"

#ifdef __cplusplus
extern "C" {
#endif

enum webnn_model_format {
	WEBNN_MODEL_FORMAT_AUTO = 0, /* from the path: a folder or *.nnef is NNEF, else ONNX */
	WEBNN_MODEL_FORMAT_ONNX,
	WEBNN_MODEL_FORMAT_NNEF,
};

/* A binding of a free dimension of the model's inputs: { "N", 1 } binds every dimension named
 * N; { "x:0", 1 } binds axis 0 of input x by position, which is how a dimension with neither a
 * size nor a name is bound (the input name is everything before the last ':', so "in:0:1" is
 * axis 1 of input "in:0"). A name is matched first; a binding that names no free dimension of
 * the model fails the load with a message listing the model's free dimensions. NNEF binds by
 * name only: an identifier the graph leaves undefined ("external(shape = [N, 2])"). */
struct webnn_dim_binding {
	const char *name;
	uint32_t value;
};

/* A model input frozen to one value, e.g. a sample rate the caller always sets to 16000: the
 * importer treats it as a constant (known at load time, so what depends on it is computed then
 * and an `If` on it keeps one branch) and it is no longer an input of the built graph. desc is
 * the value's type and shape (it must match the model's declaration of the input where that
 * names a type or sizes); data holds size bytes in desc's data type, row-major, and is copied
 * during the load (the caller may free it once the load returns). */
struct webnn_input_binding {
	const char *name;
	struct webnn_operand_desc desc;
	const void *data;
	size_t size;
};

struct webnn_import_options {
	uint32_t struct_size; /* sizeof(struct webnn_import_options) as the caller compiled it */
	enum webnn_model_format format;
	const struct webnn_dim_binding *dims;
	size_t n_dims;
	/* Called now and then while weights load (fraction 0..1); NULL: none. */
	void (*progress)(void *user_data, double fraction);
	void *user_data;
	/* Since binds: inputs frozen to a value (see struct webnn_input_binding). A caller
	 * compiled before this field passes a smaller struct_size and gets none. */
	const struct webnn_input_binding *binds;
	size_t n_binds;
};
#define WEBNN_IMPORT_OPTIONS_INIT { sizeof(struct webnn_import_options), WEBNN_MODEL_FORMAT_AUTO, \
				    NULL, 0, NULL, NULL, NULL, 0 }
/* The struct_size of the first version (up to user_data): still accepted. */
#define WEBNN_IMPORT_OPTIONS_SIZE_V1 \
	(offsetof(struct webnn_import_options, user_data) + sizeof(void *))

struct webnn_model; /* a built graph with its input and output names and descriptors */

/* Loads the model at path (an ONNX file; an NNEF folder or its graph.nnef) for ctx and builds
 * its graph. On failure *out is NULL and error (len bytes, may be NULL) names the file, the node
 * or line, the op type and the rule: 'onnx: node "conv_3" (Conv): auto_pad VALID with pads
 * given', 'nnef: graph.nnef:12: unknown operation 'foo''. options may be NULL. */
WEBNN_EXPORT enum webnn_status webnn_model_load(struct webnn_context *ctx, const char *path,
						const struct webnn_import_options *options,
						struct webnn_model **out, char *error, size_t len);
/* The same from memory: an ONNX file's bytes, or an NNEF graph.nnef's text (whose variables'
 * .dat files are then looked up relative to base_dir; NULL: none allowed). format must not be
 * AUTO. */
WEBNN_EXPORT enum webnn_status webnn_model_load_memory(struct webnn_context *ctx,
						       const void *data, size_t size,
						       const char *base_dir,
						       const struct webnn_import_options *options,
						       struct webnn_model **out, char *error,
						       size_t len);
WEBNN_EXPORT void webnn_model_destroy(struct webnn_model *m);

/* The built graph (owned by the model) for webnn_context_dispatch. */
WEBNN_EXPORT struct webnn_graph *webnn_model_graph(const struct webnn_model *m);
/* Inputs and outputs in the model's order, with free dimensions bound. Names are owned by the
 * model. */
WEBNN_EXPORT size_t webnn_model_input_count(const struct webnn_model *m);
WEBNN_EXPORT size_t webnn_model_output_count(const struct webnn_model *m);
WEBNN_EXPORT const char *webnn_model_input_name(const struct webnn_model *m, size_t i);
WEBNN_EXPORT const char *webnn_model_output_name(const struct webnn_model *m, size_t i);
WEBNN_EXPORT void webnn_model_input_desc(const struct webnn_model *m, size_t i,
					 struct webnn_operand_desc *desc);
WEBNN_EXPORT void webnn_model_output_desc(const struct webnn_model *m, size_t i,
					  struct webnn_operand_desc *desc);

/* What a model file declares and what would stop it from loading (webnn-run MODEL --info). */
struct webnn_model_value_info {
	const char *name;
	const char *type_name;          /* the file's name for the element type ("float", "string") */
	bool has_data_type;             /* false where WebNN has no equivalent of type_name */
	enum webnn_data_type data_type;
	bool has_shape;                 /* false: the file declares no shape */
	uint32_t rank;                  /* as declared (may exceed WEBNN_MAX_RANK) */
	uint32_t shape[WEBNN_MAX_RANK]; /* 0 where free (and past WEBNN_MAX_RANK) */
	/* A free dimension's name, "" for one with neither a size nor a name; NULL where fixed. */
	const char *dim_names[WEBNN_MAX_RANK];
};
/* A free dimension of an input, one per input axis: bind it by name (when it has one) or by
 * position "input:axis" (struct webnn_dim_binding). */
struct webnn_model_free_dim {
	const char *name; /* "" when unnamed */
	const char *input;
	uint32_t axis;
};
struct webnn_model_op_count {
	const char *op_type; /* as the file names it (ONNX: "Conv", or "domain.Op" off ai.onnx) */
	size_t count;
};
/* Every pointer is owned by the info. New members are only ever appended (the library
 * allocates the struct, never the caller). */
struct webnn_model_info {
	const char *format; /* "onnx" or "nnef" */
	struct webnn_model_value_info *inputs, *outputs; /* outputs as declared, before binding */
	size_t n_inputs, n_outputs;
	struct webnn_model_free_dim *free_dims;
	size_t n_free_dims;
	/* Operators and constants count those of subgraphs (If branches, Loop bodies) too. */
	struct webnn_model_op_count *op_types; /* most frequent first */
	size_t n_op_types;
	size_t n_nodes;          /* operations */
	uint64_t constant_bytes; /* bytes of weights and other constants the file holds */
	/* Why the model does not load, one message per failing node or input, in the form of
	 * webnn_model_load's error ('onnx: node "n" (If): ...'); nodes that only depend on a
	 * failing one are not repeated. Empty when it loads (or when inspected without a
	 * context). */
	const char *const *problems;
	size_t n_problems;
};
/* Describes the model at path. With ctx, it is also loaded for ctx as a trial (its free
 * dimensions bound by options, unbound ones taken as 1) and every reason it fails is listed;
 * without (ctx NULL) only the file's declarations are read, which is cheap. Fails only when the
 * file cannot be read or parsed at all. Free with webnn_model_info_destroy. NNEF: the inputs,
 * outputs and problems (its load stops at the first) come from the trial load, nothing
 * without ctx; free dimensions, operators and constant bytes are not listed. */
WEBNN_EXPORT enum webnn_status webnn_model_inspect(struct webnn_context *ctx, const char *path,
						   const struct webnn_import_options *options,
						   struct webnn_model_info **out, char *error,
						   size_t len);
WEBNN_EXPORT void webnn_model_info_destroy(struct webnn_model_info *info);

/* Reads one tensor file: ONNX TensorProto (.pb), NumPy (.npy) or NNEF binary (.dat), by
 * extension. *data is malloc'ed (free it), in the tensor's data type, row-major. */
WEBNN_EXPORT enum webnn_status webnn_tensor_file_read(const char *path,
						      struct webnn_operand_desc *desc,
						      void **data, size_t *size, char *error,
						      size_t len);

#ifdef __cplusplus
}
#endif

#endif
