/* The NNEF importer's insides: tokens, the syntax tree of a document, values, and the evaluator's state. */
#ifndef IMPORTERS_NNEF_NNEF_H
#define IMPORTERS_NNEF_NNEF_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "importers/import_internal.h"

/* Bounds that keep a hostile document from exhausting the stack or memory: nesting of
 * expressions and fragment calls, items of one array value, and all memory of one load. */
#define NNEF_MAX_NESTING 200
#define NNEF_MAX_CALL_DEPTH 256
#define NNEF_MAX_ARRAY ((size_t)1 << 22)
#define NNEF_MAX_EVAL_NESTING 2048
/* Expressions evaluated in one load (a recursive fragment can branch exponentially). */
#define NNEF_MAX_STEPS ((uint64_t)1 << 26)
#define NNEF_MAX_ARENA ((size_t)1 << 30)

/* ---- memory: everything of one load lives in one arena, freed at once. */
struct nnef_arena {
	struct nnef_block *blocks;
	size_t used, limit;
	jmp_buf *oom; /* longjmp'ed to when the limit is reached */
};
void *nnef_alloc(struct nnef_arena *a, size_t n);
char *nnef_strndup(struct nnef_arena *a, const char *s, size_t n);
void nnef_arena_free(struct nnef_arena *a);

/* ---- tokens (characters stand for themselves) */
enum nnef_token {
	NNEF_T_EOF = 0,
	NNEF_T_ID = 256,
	NNEF_T_NUM,
	NNEF_T_STR,
	NNEF_T_LE,
	NNEF_T_GE,
	NNEF_T_EQ,
	NNEF_T_NE,
	NNEF_T_AND,
	NNEF_T_OR,
	NNEF_T_ARROW,
	NNEF_T_IN, /* the 'in' operator */
};

/* ---- syntax tree */
enum nnef_type_kind {
	NT_TENSOR,
	NT_INTEGER,
	NT_SCALAR,
	NT_LOGICAL,
	NT_STRING,
	NT_GENERIC, /* ? */
	NT_ARRAY,
	NT_TUPLE,
};
struct nnef_type {
	enum nnef_type_kind k;
	struct nnef_type *item; /* tensor's data type (NULL: any), array's item */
	struct nnef_type **items; /* tuple */
	size_t n;
};

enum nnef_expr_kind {
	NX_NUMBER,
	NX_STRING,
	NX_LOGICAL,
	NX_ID,
	NX_ARRAY,
	NX_TUPLE,
	NX_UNARY,
	NX_BINARY,
	NX_SELECT,   /* a if cond else b: a, cond=c, b */
	NX_COMPREHENSION,
	NX_SUBSCRIPT,
	NX_BUILTIN,  /* shape_of, length_of, range_of, integer, scalar, logical, string */
	NX_CALL,
};
struct nnef_expr {
	enum nnef_expr_kind k;
	int line;
	bool is_int;
	double num;
	const char *str;             /* identifier, string, builtin or operation name */
	int op;                      /* operator token */
	struct nnef_expr **items;    /* array, tuple, call arguments, comprehension iterables */
	const char **names;          /* call: argument names (NULL: positional); iterators */
	size_t n;
	struct nnef_expr *a, *b, *c; /* operands; subscript: base, begin, end; comprehension:
				      * item a, condition c */
	bool range;                  /* subscript with ':' */
	struct nnef_type *generic;   /* call<type>(...) */
};

struct nnef_assign {
	struct nnef_expr *lhs, *rhs;
	int line;
};

struct nnef_param {
	const char *name;
	struct nnef_type *type;
	struct nnef_expr *def; /* NULL: required */
};

struct nnef_fragment {
	const char *name;
	const char *file;
	int line;
	bool generic;
	struct nnef_type *generic_default; /* <? = scalar> */
	struct nnef_param *params, *results;
	size_t n_params, n_results;
	struct nnef_assign *body;
	size_t n_body;
	bool has_body;
	struct nnef_fragment *next; /* hash chain */
};

struct nnef_graph {
	const char *name;
	int line;
	const char **params, **results;
	size_t n_params, n_results;
	struct nnef_assign *body;
	size_t n_body;
};

struct nnef_document {
	struct nnef_fragment **fragments;
	size_t n_fragments;
	struct nnef_graph *graph; /* NULL for the standard library */
};

/* A graph.quant entry: "tensor": op(args); */
struct nnef_quant {
	const char *tensor;
	struct nnef_expr *call;
	int line;
};

/* Parses text (NUL-terminated) named file into doc (allow_graph: a graph may/must appear).
 * Returns false with error "nnef: file:line: ..." filled. */
bool nnef_parse(struct nnef_arena *a, const char *file, const char *text, bool need_graph,
		struct nnef_document *doc, char *error, size_t len);
bool nnef_parse_quant(struct nnef_arena *a, const char *file, const char *text,
		      struct nnef_quant **out, size_t *n, char *error, size_t len);

/* The standard fragment library's text (stdlib.nnef, embedded at build time). */
extern const char nnef_stdlib_text[];

/* ---- values */
enum nnef_value_kind {
	NV_NONE,
	NV_INTEGER,
	NV_SCALAR,
	NV_LOGICAL,
	NV_STRING,
	NV_TENSOR,
	NV_ARRAY,
	NV_TUPLE,
};
/* NNEF's tensor data types as WebNN types: scalar float32 (float16 where the data says so),
 * integer int32 (or the .dat's width), logical uint8. */
struct nnef_tensor {
	struct webnn_operand *op;
	struct webnn_operand_desc desc;
	bool logical;
	bool is_constant; /* input/constant/variable: an output needs an identity */
	const char *input_name; /* made by external */
	bool bound;             /* an external the caller froze (options.binds): a constant */
	bool dequantized;       /* a variable read from quantized items: already on its grid */
};
struct nnef_value {
	enum nnef_value_kind k;
	union {
		int64_t i;
		double f;
		bool b;
		const char *s;
		struct nnef_tensor *t;
		struct {
			struct nnef_value *items;
			size_t n;
		} list;
	} u;
};

/* ---- evaluation */
struct nnef_binding;
struct nnef_scope {
	struct nnef_binding **buckets;
	size_t n_buckets;
	struct nnef_scope *parent; /* a comprehension's loop variables see their expression's scope */
};

struct nnef_eval {
	struct nnef_arena arena;
	jmp_buf fail; /* every error longjmps here with the message in error */
	char *error;
	size_t len;
	struct webnn_context *ctx;
	struct webnn_builder *b; /* NULL: a dry run (the fuzzer): tensors carry shapes only */
	const char *base_dir;
	const struct webnn_import_options *opt;
	struct nnef_fragment **frags;
	size_t n_frag_buckets;
	struct nnef_quant *quant;
	size_t n_quant;
	/* where an error is reported: the innermost statement of the user's file and the
	 * innermost operations being expanded */
	const char *file;
	int line;
	const char *ops[NNEF_MAX_CALL_DEPTH + 1];
	int depth;
	struct nnef_scope *graph_scope;
	bool *dim_used; /* which of opt->dims an identifier of the graph took */
	const char *pending_name; /* the identifier a graph statement assigns (names externals) */
	struct webnn_model *model;
	size_t n_variables, variables_done;
	int nest;
	uint64_t steps, max_steps;
};

/* Fails the load: "nnef: file:line: op (in outer): message". Never returns. */
_Noreturn void nnef_fail(struct nnef_eval *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Fails with the builder's own message for a WebNN call that returned s. */
_Noreturn void nnef_fail_webnn(struct nnef_eval *ev, const char *call, enum webnn_status s);

/* Runs the document's graph: binds externals to inputs and fills ev->model. */
void nnef_run_graph(struct nnef_eval *ev, const struct nnef_document *doc);
bool nnef_graph_lookup(struct nnef_eval *ev, const char *name, struct nnef_value *out);
struct nnef_fragment *nnef_find_fragment(struct nnef_eval *ev, const char *name);

/* The operations mapped to the WebNN builder. Returns false when name has no direct
 * mapping for these arguments (the fragment's body, if it has one, is expanded instead). */
bool nnef_primitive(struct nnef_eval *ev, const struct nnef_fragment *f,
		    const struct nnef_type *generic, struct nnef_value *args,
		    struct nnef_value *results);

/* A tensor value from a literal (for a tensor parameter given a number or logical). */
struct nnef_tensor *nnef_as_tensor(struct nnef_eval *ev, const struct nnef_value *v,
				   enum webnn_data_type like);

/* Parses and evaluates a graph (and its graph.quant text, may be NULL) without building
 * anything: the fuzzer's entry. */
enum webnn_status nnef_check(const char *text, const char *quant, char *error, size_t len);

/* .dat files: reads the header and data of one tensor; quant (may be NULL) dequantizes. */
enum webnn_status nnef_dat_decode(const uint8_t *bytes, size_t size, const char *name,
				  struct webnn_operand_desc *desc, void **data, size_t *out_size,
				  bool *quantized, char *error, size_t len);

#endif
