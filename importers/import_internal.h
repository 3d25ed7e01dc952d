/* What the importers share inside libwebnn-import: the model object each format fills in. */
#ifndef IMPORTERS_IMPORT_INTERNAL_H
#define IMPORTERS_IMPORT_INTERNAL_H

#include "webnn_import.h"

struct wnni_io {
	char *name;
	struct webnn_operand_desc desc;
};

/* webnn_model_info with the allocations it owns. */
struct wnni_info {
	struct webnn_model_info pub;
	void **owned;
	size_t n_owned, cap_owned;
	const char **problems;
	size_t cap_problems;
};

struct webnn_model {
	struct webnn_graph *graph;
	struct wnni_io *inputs, *outputs;
	size_t n_inputs, n_outputs;
	/* Set for webnn_model_inspect's trial load: the format goes on past failures and adds
	 * each to inspect->pub.problems, and binds unbound free dimensions to 1. */
	struct wnni_info *inspect;
	/* The bytes being loaded are a private read-only mapping of the model file (not the
	 * caller's memory): pages whose weights were copied may be dropped (madvise). */
	bool file_mapped;
};

/* An allocation (calloc'ed) or a copy of s owned by info; NULL when memory is short. */
void *wnni_info_alloc(struct wnni_info *info, size_t size);
const char *wnni_info_strdup(struct wnni_info *info, const char *s);
/* Appends one reason the model does not load; -1 when memory is short. */
int wnni_info_problem(struct wnni_info *info, const char *msg);
/* ONNX: fills info with what the file declares (inputs, outputs, free dimensions, operators,
 * constant bytes) without building anything. */
enum webnn_status wnni_onnx_declared(const void *data, size_t size, struct wnni_info *info,
				     char *error, size_t len);

/* Each format: parse, build into a new graph of ctx and fill m (whose fields are zero on entry;
 * on failure the caller frees what was filled with webnn_model_destroy). error: "onnx: ..." or
 * "nnef: ...". */
enum webnn_status wnni_onnx_load(struct webnn_context *ctx, const void *data, size_t size,
				 const char *base_dir, const struct webnn_import_options *opt,
				 struct webnn_model *m, char *error, size_t len);
enum webnn_status wnni_nnef_load(struct webnn_context *ctx, const char *graph_text, size_t size,
				 const char *base_dir, const struct webnn_import_options *opt,
				 struct webnn_model *m, char *error, size_t len);

/* Tensor files (webnn_tensor_file_read): an ONNX TensorProto, a NumPy .npy, an NNEF .dat. */
enum webnn_status wnni_onnx_read_tensor_pb(const char *path, struct webnn_operand_desc *desc,
					   void **data, size_t *size, char *error, size_t len);
enum webnn_status wnni_npy_read(const char *path, struct webnn_operand_desc *desc, void **data,
				size_t *size, char *error, size_t len);
enum webnn_status wnni_nnef_read_dat(const char *path, struct webnn_operand_desc *desc,
				     void **data, size_t *size, char *error, size_t len);

/* compose.c: asin, acos or atan of a float32 or float16 x from WebNN's elementwise operations
 * (a polynomial within 2 ulp of atan; NOT_SUPPORTED for other types). */
enum wnni_inverse_trig { WNNI_ASIN, WNNI_ACOS, WNNI_ATAN };
enum webnn_status wnni_inverse_trig(struct webnn_builder *b, enum wnni_inverse_trig which,
				    struct webnn_operand *x, struct webnn_operand **out);

/* Reads a whole file (NUL-terminated past *size). NULL with error filled on failure. */
void *wnni_read_file(const char *path, size_t *size, char *error, size_t len);
/* Drops the pages wholly inside [p, p + n) of a private file mapping from memory (read again
 * from the file should they be touched). */
void wnni_drop_pages(const void *p, size_t n);

#endif
