/* libwebnn builder: resampling (resample2d). */
#include "client/builder.h"

#include <inttypes.h>

enum webnn_status webnn_builder_resample2d(struct webnn_builder *b, struct webnn_operand *x,
					   const struct webnn_resample2d_options *o,
					   struct webnn_operand **out)
{
	WNNC_OP_BEGIN("resample2d")
	WNNC_OPTIONS(struct webnn_resample2d_options, opt, o, WEBNN_RESAMPLE2D_OPTIONS_INIT)
	WNNC_TRY(wnnc_use(b, what, "input", x));
	WNNC_TRY(wnnc_check_enum(b, what, "mode", (int)opt.mode, 2));
	if (opt.n_scales > 2) {
		s = wnnc_fail(b->ctx, WEBNN_STATUS_TYPE_ERROR,
			      "%s: scales has %" PRIu32 " values, expected at most 2", what,
			      opt.n_scales);
		goto done;
	}
	WNNC_NEW_OP(m, Webnn__Ipc__Resample2d, WNN_OP_RESAMPLE2D)
	m->input = x->id;
	m->output = (uint32_t)b->n_operands;
	m->has_mode = true;
	m->mode = (Webnn__Ipc__InterpolationMode)opt.mode;
	if (opt.n_scales) {
		m->scales = wnnc_arena_dup(b, opt.scales, opt.n_scales * sizeof(float));
		if (!m->scales) {
			s = wnnc_fail(b->ctx, WEBNN_STATUS_NO_MEMORY, "%s: out of memory", what);
			goto done;
		}
		m->n_scales = opt.n_scales;
	}
	WNNC_TRY(wnnc_opt_array(b, what, "sizes", opt.sizes, opt.n_sizes, 2, &m->n_sizes,
				&m->sizes));
	WNNC_TRY(wnnc_opt_array(b, what, "axes", opt.axes, opt.n_axes, 2, &m->n_axes, &m->axes));
	s = wnnc_finish(b, what, op, out);
	WNNC_OP_END
}
