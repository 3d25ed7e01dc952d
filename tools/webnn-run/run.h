/* webnn-run's internal interface: the state of one replayed case, shared by its source files. */
#ifndef WEBNN_RUN_H
#define WEBNN_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <webnn.h>

#include "tools/common/compare.h"

/* Keeps a malformed case from asking for an absurd allocation. */
#define MAX_ELEMENTS (1u << 28)
#define MAX_ARGS 16
/* Results of one operator returning a sequence (split's parts, gru/lstm states). */
#define MAX_OUTS 64
/* WPT compares at most this many elements of an output whose expected data is one scalar. */
#define SCALAR_COMPARE_LIMIT 1000

/* One named operand of the case being replayed: a graph input/constant or an operator result. */
struct named {
	const char *name;
	struct webnn_operand *op;
};

/* A positional argument: the JSON literal, or the operand it names. */
struct arg {
	const char *key;
	json_t *value;
	struct webnn_operand *op;
};

struct replay {
	struct webnn_context *ctx;
	struct webnn_builder *b;
	json_t *inputs; /* graph.inputs */
	struct named *names;
	size_t n_names, cap_names;
	size_t n_built;      /* operators of graph.operators built so far */
	const char *op_name; /* operator being built, for messages */
	char err[1024];
	bool skip; /* err says why the case is skipped rather than failed */
};

/* One operator call as the case writes it. */
struct op_call {
	struct arg args[MAX_ARGS];
	size_t n_args;
	json_t *options; /* never NULL (an empty object when absent) */
	struct webnn_operand *out;
	struct webnn_operand *outs[MAX_OUTS]; /* operators returning a sequence */
	size_t n_outs;
};

/* ---- cases.c: JSON values, descriptors and data, operands by name */
__attribute__((format(printf, 2, 3))) void replay_fail(struct replay *r, const char *fmt, ...);
bool replay_fail_status(struct replay *r, enum webnn_status s, const char *what);
/* The name of names nearest to word when it is plausibly a misspelling of it, else NULL. */
const char *replay_nearest_name(const char *word, const char *const *names, size_t n);
void replay_not_operand(struct replay *r, const char *what, json_t *v);
/* A builder call's status: on failure err says why; NOT_SUPPORTED makes it a skip. */
bool replay_check_build(struct replay *r, enum webnn_status s);
bool replay_parse_dtype(const char *s, enum webnn_data_type *t);
bool replay_is_float_type(enum webnn_data_type t);
size_t replay_desc_elements(const struct webnn_operand_desc *d);
void replay_format_desc(const struct webnn_operand_desc *d, char *buf, size_t len);
bool replay_parse_desc(struct replay *r, const char *what, json_t *j, struct webnn_operand_desc *d);
bool replay_json_double(json_t *v, double *out);
bool replay_json_i64(json_t *v, int64_t *out);
bool replay_json_u64(json_t *v, uint64_t *out);
bool replay_json_u32(json_t *v, uint32_t *out);
void *replay_encode_data(struct replay *r, const char *name, json_t *entry,
		  const struct webnn_operand_desc *d, size_t *size);
struct webnn_operand *replay_find_operand(struct replay *r, const char *name);
bool replay_name_operand(struct replay *r, const char *name, struct webnn_operand *op);
struct webnn_operand *replay_operand_arg(struct replay *r, json_t *v, bool *error);

/* ---- options.c: arguments and MLOperatorOptions members read from JSON */
extern const char *const opt_none[];
bool replay_want_args(struct replay *r, struct op_call *c, size_t n_operands, size_t n_total);
bool opt_check(struct replay *r, json_t *opts, const char *const *known);
bool opt_arg_u32(struct replay *r, struct op_call *c, size_t i, uint32_t *out);
bool opt_parse_u32_array(struct replay *r, json_t *v, const char *what, uint32_t *out, uint32_t max,
	       uint32_t *n);
bool opt_double(struct replay *r, json_t *opts, const char *key, double *out);
bool opt_number(struct replay *r, json_t *opts, const char *key, struct webnn_number *out);
bool opt_bool(struct replay *r, json_t *opts, const char *key, bool *out);
bool opt_u32(struct replay *r, json_t *opts, const char *key, uint32_t *out);
bool opt_u32_array(struct replay *r, json_t *opts, const char *key, uint32_t *out, uint32_t len,
		   uint32_t *n);
bool opt_list(struct replay *r, json_t *opts, const char *key, uint32_t *out, uint32_t max,
	      uint32_t *n, bool *present);
bool opt_enum(struct replay *r, json_t *opts, const char *key, const char *const *names,
	      int *out);
bool opt_operand(struct replay *r, json_t *opts, const char *key, struct webnn_operand **out);
bool opt_data_type(struct replay *r, json_t *opts, const char *key, enum webnn_data_type *out);
bool opt_activations(struct replay *r, json_t *opts, enum webnn_recurrent_activation *out,
		     uint32_t max, uint32_t *n);

/* ---- attrs.c: the operator list of webnn_ops.h, each operator with its attrs kind's handler */

/* One row of WEBNN_OPERATORS: the spec name the cases use and how to build the operator. */
struct run_op {
	const char *spec_name;
	bool (*build)(struct replay *r, const struct run_op *op, struct op_call *c);
	struct webnn_builder_fns fn;
};

const struct run_op *attrs_find_op(const char *spec_name);
/* "rleu: unknown operator (did you mean relu?)" into r->err. */
void attrs_unknown_op(struct replay *r, const char *spec_name);

/* ---- operators.c: one operator of graph.operators, its arguments, roles and results */
bool operators_build(struct replay *r, json_t *oper, bool optional);
/* Whether opSupportLimits names the operator at all. */
bool operators_context_lists(struct webnn_context *ctx, const char *spec_name);
bool operators_type_in(uint32_t mask, enum webnn_data_type t);

/* ---- outputs.c: outputs against expectedOutputs (WPT tolerances), or as JSON */
bool outputs_parse_tolerance(struct replay *r, json_t *c, struct tool_tolerance *tol);
bool outputs_compare(struct replay *r, const char *name, json_t *expected,
		    const struct webnn_operand_desc *d, const void *actual,
		    struct tool_tolerance tol, bool verbose);
json_t *outputs_json(const struct webnn_operand_desc *d, const void *buf);

/* ---- graph.c: one case built, run and checked */
enum verdict { V_PASS, V_FAIL, V_SKIP };

struct case_result {
	double build_ms, compile_ms, dispatch_ms, read_ms;
	struct webnn_graph_stats stats; /* what the daemon made of the graph */
	size_t n_operators; /* operators of graph.operators that were built */
	json_t *outputs;    /* name -> {descriptor, data} */
};

enum verdict run_case(struct webnn_context *ctx, json_t *c, bool check, bool verbose,
		      struct case_result *res, char *why, size_t why_len);

/* model.c: a model file or a model test folder on the command line (MODEL, --check DIR,
 * --input, --dim ...) selects the model mode. */
bool run_model_mode(int argc, char **argv);
int run_model_main(int argc, char **argv);

#endif
