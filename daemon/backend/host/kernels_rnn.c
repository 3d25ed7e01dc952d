/* Host kernels: gru/gruCell/lstm/lstmCell: the spec's cell decompositions stepped over time and directions. */
#include <math.h>
#include <stdlib.h>

#include "daemon/backend/host/kernels.h"

static double act(enum wnn_activation a, double x)
{
	switch (a) {
	case WNN_ACT_RELU:
		return x > 0 ? x : 0;
	case WNN_ACT_SIGMOID:
		return 1 / (1 + exp(-x));
	default:
		return tanh(x);
	}
}

/* One direction's operands: bases already offset to that direction. */
struct rnn_dir {
	const void *w, *rw, *b, *rb, *ph;
	uint64_t w_off, rw_off, b_off, ph_off; /* element offsets of this direction */
};

/* Row `row` of a [rows, cols] matrix dotted with vector v (double). */
static double dot_row(const void *m, enum wnn_dtype t, uint64_t off, uint64_t row, uint64_t cols,
		      const double *v)
{
	double acc = 0;
	for (uint64_t k = 0; k < cols; k++)
		acc += hk_load_f(m, t, off + row * cols + k) * v[k];
	return acc;
}

static double opt_at(const void *b, enum wnn_dtype t, uint64_t i)
{
	return b ? hk_load_f(b, t, i) : 0;
}

/* Advances one batch row of a gru cell: h (in/out, hidden values) from input x. */
static void gru_cell(const struct wnn_rnn_attrs *p, const struct rnn_dir *d, const double *x,
		     double *h, double *rh, double *nh)
{
	const uint64_t H = p->hidden, I = p->input_size;
	const enum wnn_dtype t = p->type;
	const uint64_t zb = (uint64_t)p->gate_block[WNN_GRU_Z] * H,
		       rb = (uint64_t)p->gate_block[WNN_GRU_R] * H,
		       nb = (uint64_t)p->gate_block[WNN_GRU_N] * H;
	double *z = nh + H; /* scratch: nh[0..H) new hidden, nh[H..2H) z, nh[2H..3H) r */
	double *r = nh + 2 * H;
	for (uint64_t j = 0; j < H; j++) {
		z[j] = act(p->act[0], dot_row(d->w, t, d->w_off, zb + j, I, x) +
					      dot_row(d->rw, t, d->rw_off, zb + j, H, h) +
					      opt_at(d->b, t, d->b_off + zb + j) +
					      opt_at(d->rb, t, d->b_off + zb + j));
		r[j] = act(p->act[0], dot_row(d->w, t, d->w_off, rb + j, I, x) +
					      dot_row(d->rw, t, d->rw_off, rb + j, H, h) +
					      opt_at(d->b, t, d->b_off + rb + j) +
					      opt_at(d->rb, t, d->b_off + rb + j));
	}
	if (!p->reset_after)
		for (uint64_t j = 0; j < H; j++)
			rh[j] = r[j] * h[j];
	for (uint64_t j = 0; j < H; j++) {
		double xn = dot_row(d->w, t, d->w_off, nb + j, I, x) + opt_at(d->b, t, d->b_off + nb + j);
		double hn;
		if (p->reset_after)
			hn = r[j] * (dot_row(d->rw, t, d->rw_off, nb + j, H, h) +
				     opt_at(d->rb, t, d->b_off + nb + j));
		else
			hn = dot_row(d->rw, t, d->rw_off, nb + j, H, rh) +
			     opt_at(d->rb, t, d->b_off + nb + j);
		double n = act(p->act[1], xn + hn);
		nh[j] = z[j] * h[j] + (1 - z[j]) * n;
	}
	for (uint64_t j = 0; j < H; j++)
		h[j] = wnn_cast_float(nh[j], t);
}

/* Advances one batch row of an lstm cell: h and c (in/out). Peepholes use the incoming cell
 * state for all three gates, as the spec's decomposition does. */
static void lstm_cell(const struct wnn_rnn_attrs *p, const struct rnn_dir *d, const double *x,
		      double *h, double *c, double *scratch)
{
	const uint64_t H = p->hidden, I = p->input_size;
	const enum wnn_dtype t = p->type;
	double *nh = scratch, *nc = scratch + H;
	/* peephole packing: i at 0, o at H, f at 2H */
	const uint64_t ph_off[4] = { [WNN_LSTM_I] = 0, [WNN_LSTM_F] = 2 * H,
				     [WNN_LSTM_G] = 0, [WNN_LSTM_O] = H };
	for (uint64_t j = 0; j < H; j++) {
		double g[4];
		for (int k = 0; k < 4; k++) {
			uint64_t row = (uint64_t)p->gate_block[k] * H + j;
			g[k] = dot_row(d->w, t, d->w_off, row, I, x) +
			       dot_row(d->rw, t, d->rw_off, row, H, h) +
			       opt_at(d->b, t, d->b_off + row) + opt_at(d->rb, t, d->b_off + row);
			if (k != WNN_LSTM_G && d->ph)
				g[k] += c[j] * hk_load_f(d->ph, t, d->ph_off + ph_off[k] + j);
		}
		double i = act(p->act[0], g[WNN_LSTM_I]);
		double f = act(p->act[0], g[WNN_LSTM_F]);
		double gg = act(p->act[1], g[WNN_LSTM_G]);
		double o = act(p->act[0], g[WNN_LSTM_O]);
		nc[j] = wnn_cast_float(f * c[j] + i * gg, t);
		nh[j] = o * act(p->act[2], nc[j]);
	}
	for (uint64_t j = 0; j < H; j++) {
		h[j] = wnn_cast_float(nh[j], t);
		c[j] = nc[j];
	}
}

static enum webnn_status run_rnn(const struct hk_step *s, void *const *bufs,
				 struct wnn_diag *diag)
{
	const struct wnn_rnn_attrs *p = &s->a->rnn;
	const uint64_t H = p->hidden, I = p->input_size, B = p->batch, G = p->gates;
	const enum wnn_dtype t = p->type;
	const void *X = bufs[p->input];
	/* per batch row: h, c (H each); x (I); scratch (3H) and r*h (H) */
	double *mem = calloc(B * 2 * H + I + 4 * H, sizeof(double));
	if (!mem)
		return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "%s: out of memory",
				    wnn_ops[s->op].name);
	double *hs = mem, *cs = mem + B * H, *x = mem + 2 * B * H, *scratch = x + I;
	for (uint32_t dir = 0; dir < p->num_dirs; dir++) {
		bool backward = dir == 1 || p->backward;
		struct rnn_dir d = {
			.w = bufs[p->weight],
			.rw = bufs[p->recurrent_weight],
			.b = p->has_bias ? bufs[p->bias] : NULL,
			.rb = p->has_recurrent_bias ? bufs[p->recurrent_bias] : NULL,
			.ph = p->has_peephole ? bufs[p->peephole] : NULL,
			.w_off = dir * G * H * I,
			.rw_off = dir * G * H * H,
			.b_off = dir * G * H,
			.ph_off = dir * 3 * H,
		};
		uint64_t st_off = (uint64_t)dir * B * H;
		for (uint64_t k = 0; k < B * H; k++) {
			hs[k] = p->has_initial_hidden
					? hk_load_f(bufs[p->initial_hidden], t, st_off + k)
					: 0;
			cs[k] = p->has_initial_cell ? hk_load_f(bufs[p->initial_cell], t, st_off + k)
						    : 0;
		}
		for (uint32_t step = 0; step < p->steps; step++) {
			uint64_t ts = backward ? p->steps - 1 - step : step;
			for (uint64_t b = 0; b < B; b++) {
				if (hk_cancelled(s)) {
					free(mem);
					return hk_cancel_status(s, diag);
				}
				for (uint64_t k = 0; k < I; k++)
					x[k] = hk_load_f(X, t, (ts * B + b) * I + k);
				if (p->lstm)
					lstm_cell(p, &d, x, hs + b * H, cs + b * H, scratch);
				else
					gru_cell(p, &d, x, hs + b * H, scratch + 3 * H, scratch);
			}
			if (p->out_sequence != WNN_NO_OPERAND)
				for (uint64_t k = 0; k < B * H; k++)
					hk_store_f(bufs[p->out_sequence], t,
						   (ts * p->num_dirs + dir) * B * H + k, hs[k]);
		}
		for (uint64_t k = 0; k < B * H; k++) {
			hk_store_f(bufs[p->out_hidden], t, st_off + k, hs[k]);
			if (p->out_cell != WNN_NO_OPERAND)
				hk_store_f(bufs[p->out_cell], t, st_off + k, cs[k]);
		}
	}
	free(mem);
	return WEBNN_STATUS_OK;
}

enum webnn_status hk_rnn_prepare(const struct graph_node *n, struct hk_step *s,
				 struct wnn_diag *diag)
{
	s->run = run_rnn;
	return hk_check_supported(n->op, n->attrs.rnn.type, diag);
}
