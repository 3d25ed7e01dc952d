/* ONNX GridSample (2-D) composed from WebNN: the grid's coordinates mapped elementwise, each interpolation tap a gatherElements of the flattened input, weighted and summed. */
#include "importers/onnx/onnx_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Flat pixel indices are computed in float32 before their cast: exact below 2^24. */
#define GS_MAX_PIXELS (1u << 24)

/* A run of builder calls: the first failure is kept (reported once by gs_done), later calls
 * are skipped. */
struct gs {
	struct ox_node *n;
	struct webnn_builder *b;
	enum webnn_status st;
	const char *what;
};

typedef enum webnn_status (*gs_bin_fn)(struct webnn_builder *, struct webnn_operand *,
				       struct webnn_operand *, struct webnn_operand **);
typedef enum webnn_status (*gs_un_fn)(struct webnn_builder *, struct webnn_operand *,
				      struct webnn_operand **);

static struct webnn_operand *gs_bin(struct gs *g, gs_bin_fn fn, const char *what,
				    struct webnn_operand *a, struct webnn_operand *b)
{
	struct webnn_operand *o = NULL;
	if (g->st == WEBNN_STATUS_OK && (g->st = fn(g->b, a, b, &o)) != WEBNN_STATUS_OK)
		g->what = what;
	return o;
}

static struct webnn_operand *gs_un(struct gs *g, gs_un_fn fn, const char *what,
				   struct webnn_operand *a)
{
	struct webnn_operand *o = NULL;
	if (g->st == WEBNN_STATUS_OK && (g->st = fn(g->b, a, &o)) != WEBNN_STATUS_OK)
		g->what = what;
	return o;
}

static struct webnn_operand *gs_c(struct gs *g, double v)
{
	struct webnn_operand *o = NULL;
	if (g->st == WEBNN_STATUS_OK &&
	    (g->st = webnn_builder_constant_scalar(g->b, WEBNN_FLOAT32, v, &o)) != WEBNN_STATUS_OK)
		g->what = "constant";
	return o;
}

/* a * x + c */
static struct webnn_operand *gs_affine(struct gs *g, struct webnn_operand *x, double a, double c)
{
	return gs_bin(g, webnn_builder_add, "add", gs_bin(g, webnn_builder_mul, "mul", x, gs_c(g, a)),
		      gs_c(g, c));
}

static struct webnn_operand *gs_clamp(struct gs *g, struct webnn_operand *x, double lo, double hi)
{
	struct webnn_clamp_options co = WEBNN_CLAMP_OPTIONS_INIT;
	co.has_min_value = co.has_max_value = true;
	co.min_value = lo;
	co.max_value = hi;
	struct webnn_operand *o = NULL;
	if (g->st == WEBNN_STATUS_OK &&
	    (g->st = webnn_builder_clamp(g->b, x, &co, &o)) != WEBNN_STATUS_OK)
		g->what = "clamp";
	return o;
}

/* ONNX's reflection of v into [lo, hi], as a triangle wave: lo + (hi - lo) (1 - |w - 1|) with
 * w = u - 2 floor(u / 2), u = (v - lo) / (hi - lo). */
static struct webnn_operand *gs_reflect(struct gs *g, struct webnn_operand *v, double lo, double hi)
{
	double rng = hi - lo;
	if (rng <= 0) /* one pixel with align_corners: every reflection lands on it */
		return gs_clamp(g, v, lo, lo);
	struct webnn_operand *u = gs_affine(g, v, 1 / rng, -lo / rng);
	struct webnn_operand *half = gs_un(g, webnn_builder_floor, "floor", gs_affine(g, u, 0.5, 0));
	struct webnn_operand *w = gs_bin(g, webnn_builder_sub, "sub", u, gs_affine(g, half, 2, 0));
	struct webnn_operand *tri = gs_un(g, webnn_builder_abs, "abs", gs_affine(g, w, 1, -1));
	return gs_affine(g, tri, -rng, lo + rng);
}

struct gs_axis {
	uint32_t size;
	double lo, hi; /* ONNX's border: [0, size - 1] with align_corners, else half a pixel out */
};

/* The source coordinate of a normalized grid value on an axis, with ONNX's rule for values
 * past the border (clamped for 'border', reflected for 'reflection'). */
static struct webnn_operand *gs_source(struct gs *g, struct webnn_operand *norm,
				       const struct gs_axis *ax, bool align, bool nearest,
				       const char *padding)
{
	double d = ax->size;
	struct webnn_operand *v = align ? gs_affine(g, norm, (d - 1) / 2, (d - 1) / 2)
					: gs_affine(g, norm, d / 2, (d - 1) / 2);
	if (nearest) /* PyTorch's nearbyint: half to even */
		v = gs_un(g, webnn_builder_round_even, "roundEven", v);
	if (strcmp(padding, "zeros") == 0)
		return v;
	struct webnn_operand *out = gs_bin(g, webnn_builder_logical_or, "logicalOr",
					   gs_bin(g, webnn_builder_lesser, "lesser", v, gs_c(g, ax->lo)),
					   gs_bin(g, webnn_builder_greater, "greater", v,
						  gs_c(g, ax->hi)));
	struct webnn_operand *fixed = strcmp(padding, "border") == 0 ? gs_clamp(g, v, 0, d - 1)
								      : gs_reflect(g, v, ax->lo, ax->hi);
	struct webnn_operand *o = NULL;
	if (g->st == WEBNN_STATUS_OK &&
	    (g->st = webnn_builder_where(g->b, out, fixed, v, &o)) != WEBNN_STATUS_OK)
		g->what = "where";
	return o;
}

/* A whole-valued tap position i mapped to the pixel ONNX reads: clamped ('border'), reflected and
 * truncated ('reflection'), or ('zeros') clamped with *valid set to whether it was inside. */
static struct webnn_operand *gs_pixel(struct gs *g, struct webnn_operand *i, const struct gs_axis *ax,
				      const char *padding, struct webnn_operand **valid)
{
	double d = ax->size;
	*valid = NULL;
	if (strcmp(padding, "reflection") == 0) {
		/* reflected values are >= -0.5: truncation is floor of the non-negative part */
		struct webnn_operand *r = gs_reflect(g, i, ax->lo, ax->hi);
		r = gs_un(g, webnn_builder_floor, "floor", gs_clamp(g, r, 0, d - 1));
		return r;
	}
	if (strcmp(padding, "zeros") == 0) {
		struct webnn_operand *ge = gs_bin(g, webnn_builder_greater_or_equal, "greaterOrEqual",
						  i, gs_c(g, 0));
		struct webnn_operand *le = gs_bin(g, webnn_builder_lesser_or_equal, "lesserOrEqual",
						  i, gs_c(g, d - 1));
		struct webnn_operand *in = gs_bin(g, webnn_builder_logical_and, "logicalAnd", ge, le);
		struct webnn_operand *f = NULL;
		if (g->st == WEBNN_STATUS_OK &&
		    (g->st = webnn_builder_cast(g->b, in, WEBNN_FLOAT32, &f)) != WEBNN_STATUS_OK)
			g->what = "cast";
		*valid = f;
	}
	return gs_clamp(g, i, 0, d - 1);
}

/* The cubic convolution weight (a = -0.75) of tap k (offset k - 1 from floor) at fraction t. */
static struct webnn_operand *gs_cubic_weight(struct gs *g, struct webnn_operand *t, int k)
{
	const double a = -0.75;
	/* distance from the tap: t + 1, t, 1 - t, 2 - t */
	static const double sgn[4] = { 1, 1, -1, -1 }, off[4] = { 1, 0, 1, 2 };
	struct webnn_operand *x = gs_affine(g, t, sgn[k], off[k]);
	if (k == 1 || k == 2) /* (a + 2) x^3 - (a + 3) x^2 + 1 */
		return gs_affine(g, gs_bin(g, webnn_builder_mul, "mul",
					   gs_bin(g, webnn_builder_mul, "mul", x, x),
					   gs_affine(g, x, a + 2, -(a + 3))), 1, 1);
	/* ((a x - 5 a) x + 8 a) x - 4 a */
	struct webnn_operand *p = gs_affine(g, x, a, -5 * a);
	p = gs_affine(g, gs_bin(g, webnn_builder_mul, "mul", p, x), 1, 8 * a);
	return gs_affine(g, gs_bin(g, webnn_builder_mul, "mul", p, x), 1, -4 * a);
}

static int op_grid_sample(struct ox_node *n)
{
	struct webnn_operand *x, *grid;
	OX_IN(n, 0, x);
	OX_IN(n, 1, grid);
	struct ox_val *v = n->in[0], *gv = n->in[1];
	if (v->rank != 4 || gv->rank != 4 || gv->dims[3] != 2 || gv->dims[0] != v->dims[0])
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a %u-D input with a %u-D grid (2-D "
			       "sampling of [N, C, H, W] with a [N, H_out, W_out, 2] grid)", v->rank,
			       gv->rank);
	if (v->type != WEBNN_FLOAT32 || gv->type != WEBNN_FLOAT32)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "%s input or grid (float32 only)",
			       webnn_data_type_name(v->type != WEBNN_FLOAT32 ? v->type : gv->type));
	const char *mode = ox_attr_s(n, "mode", n->opset >= 20 ? "linear" : "bilinear");
	const char *padding = ox_attr_s(n, "padding_mode", "zeros");
	bool align = ox_attr_i(n, "align_corners", 0) != 0;
	bool nearest = strcmp(mode, "nearest") == 0;
	bool cubic = strcmp(mode, "bicubic") == 0 || strcmp(mode, "cubic") == 0;
	if (!nearest && !cubic && strcmp(mode, "bilinear") != 0 && strcmp(mode, "linear") != 0)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "mode \"%s\"", mode);
	if (strcmp(padding, "zeros") && strcmp(padding, "border") && strcmp(padding, "reflection"))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "padding_mode \"%s\"", padding);
	uint32_t N = v->dims[0], C = v->dims[1], H = v->dims[2], W = v->dims[3];
	uint32_t P = gv->dims[1] * gv->dims[2];
	if ((uint64_t)H * W >= GS_MAX_PIXELS || (uint64_t)gv->dims[1] * gv->dims[2] > UINT32_MAX)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "an input of %u x %u pixels (at most "
			       "2^24)", H, W);
	struct gs g = { n, n->M->b, WEBNN_STATUS_OK, NULL };
	struct gs_axis ax[2] = { { W, align ? 0 : -0.5, align ? W - 1.0 : W - 0.5 },
				 { H, align ? 0 : -0.5, align ? H - 1.0 : H - 0.5 } };
	/* the grid's x (width) and y (height) as [N, P] */
	struct webnn_operand *coord[2];
	for (uint32_t c = 0; c < 2; c++) {
		uint32_t st[4] = { 0, 0, 0, c }, sz[4] = { N, gv->dims[1], gv->dims[2], 1 };
		OX_B(n, "slice", webnn_builder_slice(g.b, grid, st, 4, sz, 4, NULL, &coord[c]));
		uint32_t flat[2] = { N, P };
		if (!(coord[c] = ox_reshape(n, coord[c], 2, flat)))
			return -1;
		coord[c] = gs_source(&g, coord[c], &ax[c], align, nearest, padding);
	}
	/* per axis: the taps' positions and weights */
	int taps = nearest ? 1 : cubic ? 4 : 2;
	struct webnn_operand *pos[2][4], *wt[2][4], *valid[2][4];
	for (uint32_t c = 0; c < 2; c++) {
		struct webnn_operand *fl = nearest ? coord[c]
					   : gs_un(&g, webnn_builder_floor, "floor", coord[c]);
		struct webnn_operand *t = nearest ? NULL
					  : gs_bin(&g, webnn_builder_sub, "sub", coord[c], fl);
		for (int k = 0; k < taps; k++) {
			int offset = cubic ? k - 1 : k;
			struct webnn_operand *i = offset ? gs_affine(&g, fl, 1, offset) : fl;
			pos[c][k] = gs_pixel(&g, i, &ax[c], padding, &valid[c][k]);
			wt[c][k] = nearest ? NULL
				   : cubic ? gs_cubic_weight(&g, t, k)
				   : k == 0 ? gs_affine(&g, t, -1, 1) : t;
		}
	}
	uint32_t xf[3] = { N, C, H * W }, one[3] = { N, 1, P }, all[3] = { N, C, P };
	struct webnn_operand *flat_x = ox_reshape(n, x, 3, xf);
	if (!flat_x)
		return -1;
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	go.axis = 2;
	struct webnn_operand *sum = NULL;
	for (int ky = 0; ky < taps; ky++)
		for (int kx = 0; kx < taps; kx++) {
			struct webnn_operand *idx = gs_affine(&g, pos[1][ky], W, 0);
			idx = gs_bin(&g, webnn_builder_add, "add", idx, pos[0][kx]);
			struct webnn_operand *w = nearest ? NULL
						  : gs_bin(&g, webnn_builder_mul, "mul", wt[1][ky],
							   wt[0][kx]);
			if (valid[1][ky]) {
				struct webnn_operand *both = gs_bin(&g, webnn_builder_mul, "mul",
								    valid[1][ky], valid[0][kx]);
				w = w ? gs_bin(&g, webnn_builder_mul, "mul", w, both) : both;
			}
			if (g.st != WEBNN_STATUS_OK)
				return ox_builder_fail(n, g.st, g.what);
			OX_B(n, "cast", webnn_builder_cast(g.b, idx, WEBNN_INT32, &idx));
			if (!(idx = ox_reshape(n, idx, 3, one)))
				return -1;
			OX_B(n, "expand", webnn_builder_expand(g.b, idx, all, 3, &idx));
			struct webnn_operand *tap;
			OX_B(n, "gatherElements",
			     webnn_builder_gather_elements(g.b, flat_x, idx, &go, &tap));
			if (w) {
				if (!(w = ox_reshape(n, w, 3, one)))
					return -1;
				tap = gs_bin(&g, webnn_builder_mul, "mul", tap, w);
			}
			sum = sum ? gs_bin(&g, webnn_builder_add, "add", sum, tap) : tap;
		}
	if (g.st != WEBNN_STATUS_OK)
		return ox_builder_fail(n, g.st, g.what);
	uint32_t od[4] = { N, C, gv->dims[1], gv->dims[2] };
	struct webnn_operand *y = ox_reshape(n, sum, 4, od);
	if (!y)
		return -1;
	return ox_set(n, 0, y);
}

const struct ox_op ox_ops_gridsample[] = {
	{ "GridSample", 16, 21, op_grid_sample },
	{ NULL, 0, 0, NULL },
};
