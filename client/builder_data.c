/* libwebnn builder: data movement (concat, expand, pad, reshape, reverse, slice, split, tile,
 * transpose, triangular). */
#include "client/builder.h"

#include <inttypes.h>
#include <stdio.h>

enum webnn_status webnn_builder_concat(struct webnn_builder *b,
				       struct webnn_operand *const *inputs, size_t n_inputs,
				       uint32_t axis, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("concat")
	if (n_inputs && !inputs) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR, "concat: inputs is NULL");
		goto done;
	}
	for (size_t i = 0; i < n_inputs; i++) {
		char role[32];
		snprintf(role, sizeof(role), "inputs[%zu]", i);
		WNNC_TRY(wnnc_use(b, what, role, inputs[i]));
	}
	WNNC_NEW_OP(m, Webnn__Ipc__Concat, WNN_OP_CONCAT)
	if (n_inputs) {
		m->inputs = wnnc_arena_alloc(b, n_inputs * sizeof(uint32_t));
		if (!m->inputs) {
			s = wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "concat: out of memory");
			goto done;
		}
	}
	m->n_inputs = n_inputs;
	for (size_t i = 0; i < n_inputs; i++)
		m->inputs[i] = inputs[i]->id;
	m->axis = axis;
	m->output = (uint32_t)b->n_operands;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_expand(struct webnn_builder *b, struct webnn_operand *x,
				       const uint32_t *new_shape, uint32_t rank,
				       struct webnn_operand **out)
{
	WNNC_OP_BEGIN("expand")
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Expand, WNN_OP_EXPAND)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(wnnc_shape_arg(b, what, "newShape", new_shape, rank, &m->n_new_shape,
				&m->new_shape));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_tile(struct webnn_builder *b, struct webnn_operand *x,
				     const uint32_t *repetitions, uint32_t rank,
				     struct webnn_operand **out)
{
	WNNC_OP_BEGIN("tile")
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Tile, WNN_OP_TILE)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(wnnc_shape_arg(b, what, "repetitions", repetitions, rank, &m->n_repetitions,
				&m->repetitions));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_pad(struct webnn_builder *b, struct webnn_operand *x,
				    const uint32_t *beginning_padding, uint32_t n_beginning_padding,
				    const uint32_t *ending_padding, uint32_t n_ending_padding,
				    const struct webnn_pad_options *o, struct webnn_operand **out)
{
	WNNC_OP_BEGIN("pad")
	WNNC_OPTIONS(struct webnn_pad_options, opt, o, WEBNN_PAD_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_check_enum(b, what, "mode", (int)opt.mode, 3));
	WNNC_NEW_OP(m, Webnn__Ipc__Pad, WNN_OP_PAD)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(wnnc_list_arg(b, what, "beginningPadding", beginning_padding, n_beginning_padding,
			       WNN_MAX_RANK, &m->n_beginning_padding, &m->beginning_padding));
	WNNC_TRY(wnnc_list_arg(b, what, "endingPadding", ending_padding, n_ending_padding,
			       WNN_MAX_RANK, &m->n_ending_padding, &m->ending_padding));
	m->has_mode = true;
	m->mode = (Webnn__Ipc__PaddingMode)opt.mode;
	WNNC_TRY(wnnc_number(b, what, "value", &opt.value_number, true, opt.value, &m->value));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_reshape(struct webnn_builder *b, struct webnn_operand *x,
					const uint32_t *new_shape, uint32_t rank,
					struct webnn_operand **out)
{
	WNNC_OP_BEGIN("reshape")
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Reshape, WNN_OP_RESHAPE)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(wnnc_shape_arg(b, what, "newShape", new_shape, rank, &m->n_new_shape, &m->new_shape));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_transpose(struct webnn_builder *b, struct webnn_operand *x,
					  const uint32_t *permutation, uint32_t rank,
					  struct webnn_operand **out)
{
	WNNC_OP_BEGIN("transpose")
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Transpose, WNN_OP_TRANSPOSE)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	if (permutation) {
		m->has_has_permutation = true;
		m->has_permutation = true;
		WNNC_TRY(wnnc_shape_arg(b, what, "permutation", permutation, rank, &m->n_permutation,
				   &m->permutation));
	}
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_reverse(struct webnn_builder *b, struct webnn_operand *x,
					const struct webnn_reverse_options *o,
					struct webnn_operand **out)
{
	WNNC_OP_BEGIN("reverse")
	WNNC_OPTIONS(struct webnn_reverse_options, opt, o, WEBNN_REVERSE_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Reverse, WNN_OP_REVERSE)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	if (opt.axes) {
		m->has_has_axes = m->has_axes = true;
		WNNC_TRY(wnnc_list_arg(b, what, "axes", opt.axes, opt.n_axes, WNN_MAX_RANK, &m->n_axes,
				       &m->axes));
	}
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

enum webnn_status webnn_builder_slice(struct webnn_builder *b, struct webnn_operand *x,
				      const uint32_t *starts, uint32_t n_starts,
				      const uint32_t *sizes, uint32_t n_sizes,
				      const struct webnn_slice_options *o,
				      struct webnn_operand **out)
{
	WNNC_OP_BEGIN("slice")
	WNNC_OPTIONS(struct webnn_slice_options, opt, o, WEBNN_SLICE_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Slice, WNN_OP_SLICE)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	WNNC_TRY(wnnc_list_arg(b, what, "starts", starts, n_starts, WNN_MAX_RANK, &m->n_starts,
			       &m->starts));
	WNNC_TRY(wnnc_list_arg(b, what, "sizes", sizes, n_sizes, WNN_MAX_RANK, &m->n_sizes,
			       &m->sizes));
	if (opt.strides)
		WNNC_TRY(wnnc_list_arg(b, what, "strides", opt.strides, opt.n_strides, WNN_MAX_RANK,
				       &m->n_strides, &m->strides));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}

static enum webnn_status split(struct webnn_builder *b, struct webnn_operand *x, bool by_count,
			       uint32_t count, const uint32_t *sizes, uint32_t n_sizes,
			       const struct webnn_split_options *o, struct webnn_operand **outs,
			       size_t max_outs, size_t *n_outs)
{
	WNNC_MULTI_BEGIN("split")
	WNNC_OPTIONS(struct webnn_split_options, opt, o, WEBNN_SPLIT_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	uint32_t parts = by_count ? count : n_sizes;
	if (parts > WNN_MAX_OUTPUTS) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
			      "%s: %" PRIu32 " outputs exceed the maximum of %d outputs", what,
			      parts, WNN_MAX_OUTPUTS);
		goto done;
	}
	WNNC_NEW_OP(m, Webnn__Ipc__Split, WNN_OP_SPLIT)
	m->input = x->id;
	if (by_count) {
		m->has_count = true;
		m->count = count;
	} else {
		WNNC_TRY(wnnc_list_arg(b, what, "splits", sizes, n_sizes, WNN_MAX_OUTPUTS, &m->n_sizes,
				       &m->sizes));
	}
	m->has_axis = true;
	m->axis = opt.axis;
	/* No outputs for zero parts: the spec checks then report the invalid count. */
	WNNC_TRY(wnnc_output_list(b, what, parts, &m->n_outputs, &m->outputs));
	s = wnnc_finish_n(b, what, op, outs, max_outs, n_outs);
	WNNC_MULTI_END
}

enum webnn_status webnn_builder_split(struct webnn_builder *b, struct webnn_operand *x,
				      uint32_t count, const struct webnn_split_options *o,
				      struct webnn_operand **outs, size_t max_outs, size_t *n_outs)
{
	return split(b, x, true, count, NULL, 0, o, outs, max_outs, n_outs);
}

enum webnn_status webnn_builder_split_sizes(struct webnn_builder *b, struct webnn_operand *x,
					    const uint32_t *sizes, uint32_t n_sizes,
					    const struct webnn_split_options *o,
					    struct webnn_operand **outs, size_t max_outs,
					    size_t *n_outs)
{
	return split(b, x, false, 0, sizes, n_sizes, o, outs, max_outs, n_outs);
}

enum webnn_status webnn_builder_triangular(struct webnn_builder *b, struct webnn_operand *x,
					   const struct webnn_triangular_options *o,
					   struct webnn_operand **out)
{
	WNNC_OP_BEGIN("triangular")
	WNNC_OPTIONS(struct webnn_triangular_options, opt, o, WEBNN_TRIANGULAR_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_NEW_OP(m, Webnn__Ipc__Triangular, WNN_OP_TRIANGULAR)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	m->has_upper = m->has_diagonal = true;
	m->upper = opt.upper;
	m->diagonal = opt.diagonal;
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}
