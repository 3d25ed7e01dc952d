/* The ONNX importer's shared state: values by name, the node context op builders see, the op table. */
#ifndef IMPORTERS_ONNX_INTERNAL_H
#define IMPORTERS_ONNX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "importers/import_internal.h"
#include "onnx/onnx.pb-c.h"

/* Host values (known at load time) larger than this are left to the daemon: folding is for
 * shape subgraphs, not for weights arithmetic. */
#define OX_FOLD_MAX_ELEMS 65536
#define OX_MAX_IO 64
/* Loop and Scan unroll into the graph up to this many iterations (WebNN has no loops); a
 * longer or unknown trip count is a load error. */
#define OX_UNROLL_MAX 1024
/* Node runs in one load, graph attributes unrolled included (loops nested in loops multiply):
 * past this the load fails rather than grow without bound. */
#define OX_MAX_NODE_RUNS (1u << 20)
/* Graphs run at load time to compute known values (one each, see ox_eval_known): past this
 * many in one load, known nodes are built into the graph like any other. */
#define OX_MAX_EVALS 4096

/* ONNX element types (TensorProto.DataType). */
enum {
	OX_FLOAT = 1, OX_UINT8 = 2, OX_INT8 = 3, OX_UINT16 = 4, OX_INT16 = 5, OX_INT32 = 6,
	OX_INT64 = 7, OX_STRING = 8, OX_BOOL = 9, OX_FLOAT16 = 10, OX_DOUBLE = 11, OX_UINT32 = 12,
	OX_UINT64 = 13, OX_BFLOAT16 = 16, OX_UINT4 = 21, OX_INT4 = 22,
};

/* One ONNX value: a WebNN operand, made lazily when the value is known on the host (an
 * initializer, a Constant, a folded shape computation). */
struct ox_val {
	const char *name;
	int onnx_type;             /* OX_*: BOOL travels as uint8 */
	enum webnn_data_type type;
	uint32_t rank;
	uint32_t dims[WEBNN_MAX_RANK];
	struct webnn_operand *op;  /* NULL until needed when host is set */
	void *host;                /* row-major in type's layout, or NULL */
	/* A large initializer's bytes where they lie in the mapped model file (any alignment;
	 * host NULL): the builder borrows them (ox_operand), and an operator that reads
	 * initializers as host values gets them copied first (ox_val_host). */
	const void *mapped;
	bool host_owned;
	bool constant;             /* op was made from host data */
	bool failed;               /* its producer failed to load (reported): consumers skip */
};

struct ox_model;

/* What an op builder sees: the node, its inputs (NULL for an absent optional one) and the
 * outputs it must set. */
struct ox_node {
	struct ox_model *M;
	const Onnx__NodeProto *node;
	int opset;
	struct ox_val *in[OX_MAX_IO];
	size_t n_in;
	size_t n_out;
	struct ox_val out[OX_MAX_IO]; /* filled by the builder: op or host */
	bool out_set[OX_MAX_IO];
};

struct ox_model {
	struct webnn_context *ctx;
	struct webnn_builder *b;
	const struct webnn_import_options *opt;
	const char *base_dir;
	struct ox_val *vals;
	size_t n_vals, cap_vals;
	size_t *hash; /* open addressing over vals (index + 1; 0 empty) */
	size_t hash_cap;
	char *error;
	size_t len;
	enum webnn_status status;
	void **owned; /* allocations freed with the model */
	size_t n_owned, cap_owned;
	/* Free dimensions of the inputs as met (bound or not) and which of opt->dims were used:
	 * an unbound one or a binding naming nothing fails the load listing them all. */
	struct ox_free_dim {
		const char *name; /* "" unnamed */
		const char *input;
		uint32_t axis;
		bool bound;
	} *free_dims;
	size_t n_free_dims;
	bool *dim_used;
	/* webnn_model_inspect's trial load: failures are collected there, not only the first. */
	struct wnni_info *inspect;
	bool file_mapped; /* webnn_model.file_mapped */
	/* A node that fails does not stop the walk: its reason is listed (all of them end the
	 * load together), its outputs are marked failed and their consumers skip silently. */
	bool in_node;                    /* a node runs: failures go to node_error */
	enum webnn_status node_status;   /* that node's failure, OK while none */
	char node_error[1024];
	char **node_errors;              /* the reasons listed so far (kept with the model) */
	size_t n_node_errors, cap_node_errors;
	enum webnn_status node_errors_status; /* the first listed reason's */
	bool fatal;                      /* out of memory: stop at once */
	unsigned long n_node_runs;       /* against OX_MAX_NODE_RUNS */
	unsigned long n_evals;           /* against OX_MAX_EVALS */
};

typedef int (*ox_build_fn)(struct ox_node *n);
struct ox_op {
	const char *type;
	int since, until; /* opset range the mapping covers (inclusive) */
	ox_build_fn fn;
};
/* The op tables of each family (NULL-terminated). */
extern const struct ox_op ox_ops_elementwise[], ox_ops_nn[], ox_ops_data[], ox_ops_misc[],
	ox_ops_resize[], ox_ops_topk[], ox_ops_fourier[], ox_ops_gridsample[], ox_ops_transformer[];
/* Domain com.microsoft: onnxruntime's contrib operators, all of version 1. */
#define OX_CONTRIB_DOMAIN "com.microsoft"
extern const struct ox_op ox_ops_contrib_transformer[];
/* quantized.c: com.microsoft's quantized-weight operators (MatMulNBits, GatherBlockQuantized). */
extern const struct ox_op ox_ops_quantized[];

/* ---- errors: "onnx: node "name" (Type): reason"; return -1 for chaining. */
int ox_fail(struct ox_node *n, enum webnn_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A builder call failed: its status and the context's last error. */
int ox_builder_fail(struct ox_node *n, enum webnn_status s, const char *what);
#define OX_B(n, what, expr)                                                                 \
	do {                                                                                \
		enum webnn_status s_ = (expr);                                              \
		if (s_ != WEBNN_STATUS_OK)                                                  \
			return ox_builder_fail((n), s_, (what));                            \
	} while (0)

/* Whether protobuf-c may decode data: no message nests deeper than it can recurse safely. */
bool ox_nesting_ok(const void *data, size_t size);

/* ---- attributes */
const Onnx__AttributeProto *ox_attr(const struct ox_node *n, const char *name);
int64_t ox_attr_i(const struct ox_node *n, const char *name, int64_t def);
float ox_attr_f(const struct ox_node *n, const char *name, float def);
/* The string attribute (NUL-terminated copy kept with the model), or def. */
const char *ox_attr_s(struct ox_node *n, const char *name, const char *def);
/* ints attribute: count (or -1 when absent) and values. */
long ox_attr_ints(const struct ox_node *n, const char *name, const int64_t **v);

/* ---- values */
/* The WebNN operand of v (uploads a host value as a constant). NULL with the error set. */
struct webnn_operand *ox_operand(struct ox_node *n, struct ox_val *v);
/* Input i's operand; -1 (error set) when absent or failing. */
#define OX_IN(n, i, dst)                                                                    \
	do {                                                                                \
		if ((i) >= (n)->n_in || !(n)->in[i])                                         \
			return ox_fail((n), WEBNN_STATUS_TYPE_ERROR, "input %d is missing",   \
				       (int)(i));                                             \
		if (!((dst) = ox_operand((n), (n)->in[i])))                                  \
			return -1;                                                           \
	} while (0)
bool ox_has_in(const struct ox_node *n, size_t i);
/* Sets output i to a built operand (shape read back from the builder). */
int ox_set(struct ox_node *n, size_t i, struct webnn_operand *op);
/* Sets output i to a host value (data is adopted, malloc'ed). */
int ox_set_host(struct ox_node *n, size_t i, int onnx_type, uint32_t rank, const uint32_t *dims,
		void *data);
/* A host value's elements as int64 (integer or float types); -1 with error when v has no
 * host value (e.g. computed at run time). */
int ox_host_i64(struct ox_node *n, const struct ox_val *v, const char *what, int64_t **out,
		size_t *count);
int ox_host_f64(struct ox_node *n, const struct ox_val *v, const char *what, double **out,
		size_t *count);
size_t ox_elems(uint32_t rank, const uint32_t *dims);
/* Bytes a value of that type and shape takes (int4/uint4 two per byte). */
size_t ox_bytes(enum webnn_data_type t, uint32_t rank, const uint32_t *dims);
/* double -> int64 without undefined behaviour: NaN is 0, out-of-range values saturate. */
int64_t ox_f2i(double d);
/* Memory freed when the load ends. */
void *ox_keep(struct ox_model *M, void *p);

/* ---- small builder helpers */
struct webnn_operand *ox_scalar(struct ox_node *n, enum webnn_data_type t, double v);
struct webnn_operand *ox_const(struct ox_node *n, enum webnn_data_type t, uint32_t rank,
			       const uint32_t *dims, const void *data);
struct webnn_operand *ox_reshape(struct ox_node *n, struct webnn_operand *x, uint32_t rank,
				 const uint32_t *dims);
void ox_desc(struct webnn_operand *x, struct webnn_operand_desc *d);
/* Normalizes a possibly negative axis against rank; -1 with the error set when out of range. */
int ox_axis(struct ox_node *n, int64_t axis, uint32_t rank, uint32_t *out);
/* Refuses a data type the WebNN operator does not take on this context (NOT_SUPPORTED). */
int ox_need_type(struct ox_node *n, const char *op, const char *role, enum webnn_data_type t);
/* ONNX type -> WebNN type; false when WebNN has none. */
bool ox_webnn_type(int onnx_type, enum webnn_data_type *t);
const char *ox_type_name(int onnx_type);
int ox_onnx_type_of(enum webnn_data_type t);

/* ---- values known at load time (known.c): a node whose inputs are all known (host values of
 * at most OX_FOLD_MAX_ELEMS elements) is computed when the model loads, whatever its operator:
 * its builder runs on a scratch builder of the same context and the results are read back.
 * 1: evaluated (the outputs are host values), 0: not (the caller builds it as usual), -1: out
 * of memory. */
int ox_eval_known(struct ox_node *n, ox_build_fn fn);

/* ---- graphs inside nodes (control.c: If, Loop, Scan) */
extern const struct ox_op ox_ops_control[];
/* The value of that name in the scope now (outer values included), or NULL. */
/* FNV-1a of a value name (the importer's name tables). */
size_t ox_name_hash(const char *s);
/* The nodes of g in an order where every value is made before it is read (the file's order
 * where that is already true): *order (malloc'd, g->n_node entries). 0, or -1 with why. */
int ox_node_order(const Onnx__GraphProto *g, size_t **order, char *why, size_t len);
struct ox_val *ox_find(struct ox_model *M, const char *name);
/* Defines name as a copy of v (its host data duplicated); -1 with the error set. */
int ox_define(struct ox_node *n, const char *name, const struct ox_val *v);
/* dst = v with its own copy of the host data (op shared); -1 with the error set. */
int ox_clone(struct ox_node *n, const struct ox_val *v, struct ox_val *dst);
void ox_val_release(struct ox_val *v);
/* Runs a graph attribute's initializers and nodes in the current scope. 0, or -1 when one of
 * its nodes failed (already listed) or memory ran out. */
int ox_run_graph(struct ox_model *M, const Onnx__GraphProto *g, int opset);

/* fold.c: evaluates an elementwise node on the host when all its inputs are small known
 * values: 1 folded (output 0 set), 0 not applicable, -1 error. */
int ox_fold_elementwise(struct ox_node *n);

/* ---- tensors (onnx_tensor.c) */
/* Decodes a TensorProto into malloc'ed row-major data of its WebNN type (bool as uint8). */
/* raw_data.c: a ModelProto decoded with the main graph's large initializers' raw_data pointing
 * into data (which must outlive the model) instead of copied: refs[n_refs] say which; freed
 * with ox_free_model. NULL when data is no model (as onnx__model_proto__unpack). */
struct ox_raw_ref {
	size_t init_index; /* graph->initializer[init_index] */
	size_t offset, len; /* its raw_data: data + offset */
};
Onnx__ModelProto *ox_unpack_model(const void *data, size_t size, struct ox_raw_ref **refs,
				  size_t *n_refs);
void ox_free_model(Onnx__ModelProto *m, struct ox_raw_ref *refs, size_t n_refs);
/* A protobuf varint at p[*i] (n bytes), *i moved past it; false when malformed. */
bool ox_read_varint(const uint8_t *p, size_t n, size_t *i, uint64_t *v);

/* A tensor whose raw bytes are its WebNN bytes as they are (raw_data in the message: not
 * external, not bool), checked as ox_tensor_decode checks it: the bytes, with the type, rank
 * and dims filled; NULL when it must be decoded. */
/* Copies a mapped initializer's bytes into host memory (v->host; nothing when it has host
 * bytes or none are mapped): 0, or -1 (out of memory, reported). */
int ox_val_host(struct ox_node *n, struct ox_val *v);
const void *ox_tensor_view(const Onnx__TensorProto *t, int *onnx_type, uint32_t *rank,
			   uint32_t *dims);
int ox_tensor_decode(const Onnx__TensorProto *t, const char *base_dir, int *onnx_type,
		     uint32_t *rank, uint32_t *dims, void **data, size_t *size, char *error,
		     size_t len, enum webnn_status *status);

#endif
