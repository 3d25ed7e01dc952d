/* webnn-run's operator calls: one entry of graph.operators read into its arguments and options,
 * built through its attrs handler, its results named; opSupportLimits gates optional cases. */
#include <stdio.h>
#include <string.h>

#include "run.h"

bool operators_context_lists(struct webnn_context *ctx, const char *spec_name)
{
	const char *op, *role;
	struct webnn_tensor_limits l;
	for (size_t i = 0; webnn_context_op_limit_at(ctx, i, &op, &role, &l); i++)
		if (strcmp(op, spec_name) == 0)
			return true;
	return false;
}

bool operators_type_in(uint32_t mask, enum webnn_data_type t)
{
	return (mask >> t) & 1u;
}

/* Optional cases run only where opSupportLimits admits their operands (WPT skips them there);
 * a required case is never skipped this way, so an unsupported required type is a failure. */
static bool check_role(struct replay *r, const char *op, const char *role,
		       struct webnn_operand *operand)
{
	struct webnn_tensor_limits l;
	struct webnn_operand_desc d;
	if (!webnn_context_op_limits(r->ctx, op, role, &l))
		return true;
	webnn_operand_get_desc(operand, &d);
	if (!operators_type_in(l.data_types, d.data_type) || d.rank < l.min_rank || d.rank > l.max_rank) {
		replay_fail(r, "%s: %s %s rank %u not in opSupportLimits", op, role,
			webnn_data_type_name(d.data_type), d.rank);
		r->skip = true;
		return false;
	}
	return true;
}

/* "arguments": a list of one-member objects, in call order; "options" is kept aside. */
static bool read_arguments(struct replay *r, json_t *args, struct op_call *c, bool optional)
{
	for (size_t i = 0; i < json_array_size(args); i++) {
		const char *key;
		json_t *v;
		json_object_foreach(json_array_get(args, i), key, v) {
			if (strcmp(key, "options") == 0) {
				if (!json_is_object(v)) {
					replay_fail(r, "options is not an object");
					return false;
				}
				c->options = v;
				continue;
			}
			if (c->n_args == MAX_ARGS) {
				replay_fail(r, "too many arguments");
				return false;
			}
			bool error;
			struct arg *ar = &c->args[c->n_args++];
			ar->key = key;
			ar->value = v;
			ar->op = replay_operand_arg(r, v, &error);
			if (error)
				return false;
			if (ar->op && optional && !check_role(r, r->op_name, key, ar->op))
				return false;
		}
	}
	return true;
}

/* Operands passed as options have roles of their own in opSupportLimits. */
static bool check_option_roles(struct replay *r, struct op_call *c)
{
	static const char *const roles[] = { "bias", "c", "scale", NULL };
	for (size_t i = 0; roles[i]; i++) {
		struct webnn_operand *op;
		if (json_is_string(json_object_get(c->options, roles[i])) &&
		    (!opt_operand(r, c->options, roles[i], &op) ||
		     (op && !check_role(r, r->op_name, roles[i], op))))
			return false;
	}
	return true;
}

/* A sequence result (split, gru, lstm): "outputs" lists its operands by position. */
static bool name_sequence(struct replay *r, json_t *outs, struct op_call *c, bool optional)
{
	if (!json_is_array(outs) || json_array_size(outs) != c->n_outs) {
		replay_fail(r, "returns %zu operands, outputs names %zu", c->n_outs,
			json_is_array(outs) ? json_array_size(outs) : (size_t)1);
		return false;
	}
	for (size_t i = 0; i < c->n_outs; i++) {
		const char *name = json_string_value(json_array_get(outs, i));
		char role[32];
		snprintf(role, sizeof(role), "output%zu", i);
		if (!name) {
			replay_fail(r, "outputs[%zu] is not a name", i);
			return false;
		}
		if (optional && (!check_role(r, r->op_name, role, c->outs[i]) ||
				 !check_role(r, r->op_name, "outputs", c->outs[i])))
			return false;
		if (!replay_name_operand(r, name, c->outs[i]))
			return false;
	}
	return true;
}

static bool name_result(struct replay *r, json_t *outs, struct op_call *c, bool optional)
{
	if (c->n_outs)
		return name_sequence(r, outs, c, optional);
	if (optional && !check_role(r, r->op_name, "output", c->out))
		return false;
	const char *name = json_is_string(outs) ? json_string_value(outs)
			   : json_string_value(json_array_get(outs, 0));
	if (!name || (json_is_array(outs) && json_array_size(outs) != 1)) {
		replay_fail(r, "outputs must name one operand");
		return false;
	}
	return replay_name_operand(r, name, c->out);
}

static bool call_operator(struct replay *r, const struct run_op *op, json_t *oper,
			  struct op_call *c, bool optional)
{
	json_t *args = json_object_get(oper, "arguments");
	if (!read_arguments(r, args, c, optional) || (optional && !check_option_roles(r, c)))
		return false;
	/* MLOperatorOptions.label travels with the operation and names it in errors. */
	json_t *label = json_object_get(c->options, "label");
	if (json_is_string(label) &&
	    !replay_check_build(r, webnn_builder_set_next_label(r->b, json_string_value(label))))
		return false;
	return op->build(r, op, c) && name_result(r, json_object_get(oper, "outputs"), c, optional);
}

bool operators_build(struct replay *r, json_t *oper, bool optional)
{
	const char *name = json_string_value(json_object_get(oper, "name"));
	struct op_call c = { .n_args = 0 };
	json_t *empty = json_object();
	bool ok = false;
	r->op_name = name;
	c.options = empty;
	if (!name || !json_is_array(json_object_get(oper, "arguments"))) {
		replay_fail(r, "operator without name or arguments");
	} else {
		const struct run_op *op = attrs_find_op(name);
		if (!op)
			attrs_unknown_op(r, name);
		else
			ok = call_operator(r, op, oper, &c, optional);
	}
	if (ok)
		r->n_built++;
	/* later messages (build, dispatch, outputs) are not this operator's */
	r->op_name = NULL;
	json_decref(empty);
	return ok;
}
