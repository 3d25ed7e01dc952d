/* ONNX Resize and Upsample: WebNN's resample2d where it samples the same points, else per axis a gather (nearest) or a matmul with a constant interpolation matrix (linear, cubic, antialias, every coordinate mode, any rank). */
#include "importers/onnx/onnx_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Interpolation matrices are constants of out x in entries per resized axis: past this a model
 * resizes something no image is (64 MiB of float32). */
#define RS_MAX_MATRIX (1u << 24)

/* What one Resize asks for, read from its attributes and inputs. */
struct rs_spec {
	const char *mode, *ctm, *nm; /* mode, coordinate_transformation_mode, nearest_mode */
	double cubic_a;
	bool exclude_outside, antialias;
	double extrapolation;
	const double *roi; /* tf_crop_and_resize: starts then ends, one per axis of the input */
	uint32_t rank;
	uint32_t in[WEBNN_MAX_RANK], out[WEBNN_MAX_RANK];
	double scale[WEBNN_MAX_RANK]; /* the scale the coordinates are transformed with */
};

static bool rs_is(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* ONNX's coordinate in the input of output x along an axis of in entries resized with scale s
 * to out entries; *outside for tf_crop_and_resize's samples past the input (extrapolation_value).
 * As ONNX's reference (and its test data) does, the resized length in the formulas is s * in,
 * not the whole out, where they differ (a scale given that does not divide). */
static double rs_source(const struct rs_spec *sp, uint32_t axis, double x, bool *outside)
{
	uint32_t in = sp->in[axis], out = sp->out[axis];
	double s = sp->scale[axis], len = s * in;
	const char *c = sp->ctm;
	*outside = false;
	if (rs_is(c, "align_corners"))
		return len == 1 ? 0 : x * (in - 1.0) / (len - 1.0);
	if (rs_is(c, "asymmetric"))
		return x / s;
	if (rs_is(c, "pytorch_half_pixel"))
		return len > 1 ? (x + 0.5) / s - 0.5 : -0.5;
	if (rs_is(c, "tf_half_pixel_for_nn"))
		return (x + 0.5) / s;
	if (rs_is(c, "half_pixel_symmetric")) {
		double adjustment = out / len, center = in / 2.0;
		return center * (1 - adjustment) + (x + 0.5) / s - 0.5;
	}
	if (rs_is(c, "tf_crop_and_resize")) {
		double a = sp->roi[axis], b = sp->roi[sp->rank + axis], p;
		p = len > 1 ? a * (in - 1.0) + x * (b - a) * (in - 1.0) / (len - 1.0)
			    : 0.5 * (a + b) * (in - 1.0);
		*outside = p < 0 || p > in - 1.0;
		return p;
	}
	return (x + 0.5) / s - 0.5; /* half_pixel */
}

/* The cubic convolution kernel with parameter a at distance t. */
static double rs_cubic(double t, double a)
{
	t = fabs(t);
	if (t <= 1)
		return ((a + 2) * t - (a + 3)) * t * t + 1;
	if (t < 2)
		return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
	return 0;
}

/* Taps of output x: n weights w[] for inputs first .. first + n - 1 (not yet clamped); 0 when
 * the sample is outside (tf_crop_and_resize). At most 64 taps (antialias widens them by the
 * downscale: the caller bounds it). */
static uint32_t rs_taps(const struct rs_spec *sp, uint32_t axis, uint32_t x, int64_t *first,
			double *w)
{
	bool outside;
	double p = rs_source(sp, axis, x, &outside);
	if (outside)
		return 0;
	/* ONNX takes the taps around p preferring lower indices: at a whole p the left
	 * neighbour is floor(p) - 1 with ratio 1 */
	double fl = floor(p), ratio = p - fl;
	if (ratio == 0) {
		fl -= 1;
		ratio = 1;
	}
	double s = sp->scale[axis] < 1 && sp->antialias ? sp->scale[axis] : 1;
	if (rs_is(sp->mode, "nearest")) {
		bool up;
		if (ratio == 1 || rs_is(sp->nm, "ceil"))
			up = true;
		else if (rs_is(sp->nm, "floor"))
			up = false;
		else if (rs_is(sp->nm, "round_prefer_ceil"))
			up = ratio >= 0.5;
		else
			up = ratio > 0.5; /* round_prefer_floor */
		*first = (int64_t)fl + up;
		w[0] = 1;
		return 1;
	}
	bool cubic = rs_is(sp->mode, "cubic");
	/* the support is 1 (linear) or 2 (cubic) input steps, widened by 1 / scale when an
	 * antialiasing downscale */
	int64_t start = (int64_t)floor((cubic ? -2.0 : -1.0) / s) + 1;
	uint32_t n = (uint32_t)(2 - 2 * start);
	double sum = 0;
	for (uint32_t j = 0; j < n; j++) {
		double t = s * ((double)(start + (int64_t)j) - ratio);
		w[j] = cubic ? rs_cubic(t, sp->cubic_a) : fmax(0, 1 - fabs(t));
		sum += w[j];
	}
	if (sp->antialias && sum != 0)
		for (uint32_t j = 0; j < n; j++)
			w[j] /= sum;
	*first = (int64_t)fl + start;
	return n;
}

/* The interpolation matrix of an axis, out rows of in entries (row-major), and the value added
 * to each row (tf_crop_and_resize's extrapolation, else 0); *with_bias when one is not 0.
 * Edge samples repeat the edge, or with exclude_outside weigh nothing (the rest renormalized). */
static int rs_matrix(struct ox_node *n, const struct rs_spec *sp, uint32_t axis, float *mat,
		     float *bias, bool *with_bias)
{
	uint32_t in = sp->in[axis], out = sp->out[axis];
	double w[256];
	*with_bias = false;
	for (uint32_t o = 0; o < out; o++) {
		int64_t first;
		uint32_t taps = rs_taps(sp, axis, o, &first, w);
		bias[o] = 0;
		if (taps == 0) {
			bias[o] = (float)sp->extrapolation;
			*with_bias = *with_bias || sp->extrapolation != 0;
			continue;
		}
		double kept = 0, all = 0;
		for (uint32_t j = 0; j < taps; j++) {
			all += w[j];
			int64_t i = first + (int64_t)j;
			if (i >= 0 && i < (int64_t)in)
				kept += w[j];
		}
		double renorm = sp->exclude_outside && kept != 0 ? all / kept : 1;
		for (uint32_t j = 0; j < taps; j++) {
			int64_t i = first + (int64_t)j;
			if (i < 0 || i >= (int64_t)in) {
				if (sp->exclude_outside)
					continue;
				i = i < 0 ? 0 : (int64_t)in - 1;
			}
			mat[(size_t)o * in + (size_t)i] += (float)(w[j] * renorm);
		}
	}
	(void)n;
	return 0;
}

/* Resizes axis k of x (shape d) by the spec: a gather of constant indices for nearest, else a
 * matmul with the interpolation matrix; d[k] becomes the output size. */
static int rs_axis(struct ox_node *n, const struct rs_spec *sp, uint32_t k,
		   struct webnn_operand **x, uint32_t *d)
{
	uint32_t in = sp->in[k], out = sp->out[k], r = sp->rank;
	bool nearest = rs_is(sp->mode, "nearest");
	bool crop = rs_is(sp->ctm, "tf_crop_and_resize");
	if (nearest && !crop) {
		int32_t *idx = malloc((size_t)out * sizeof(int32_t));
		if (!idx)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		for (uint32_t o = 0; o < out; o++) {
			int64_t first;
			double w[1];
			rs_taps(sp, k, o, &first, w);
			idx[o] = (int32_t)(first < 0 ? 0 : first >= (int64_t)in ? in - 1 : first);
		}
		struct webnn_operand *ic = ox_const(n, WEBNN_INT32, 1, &out, idx);
		free(idx);
		if (!ic)
			return -1;
		struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
		go.axis = k;
		OX_B(n, "gather", webnn_builder_gather(n->M->b, *x, ic, &go, x));
		d[k] = out;
		return 0;
	}
	if ((uint64_t)in * out > RS_MAX_MATRIX)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "resizing axis %u from %u to %u needs an interpolation matrix of more "
			       "than 2^24 entries", k, in, out);
	float *mat = calloc((size_t)in * out, sizeof(float));
	float *bias = calloc(out, sizeof(float));
	bool with_bias;
	if (!mat || !bias) {
		free(mat);
		free(bias);
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	}
	rs_matrix(n, sp, k, mat, bias, &with_bias);
	uint64_t before = 1, after = 1;
	for (uint32_t i = 0; i < k; i++)
		before *= d[i];
	for (uint32_t i = k + 1; i < r; i++)
		after *= d[i];
	struct webnn_operand *m = NULL, *b = NULL, *y;
	if (after == 1) {
		/* [.., in] x [in, out]: the matrix transposed */
		float *t = malloc((size_t)in * out * sizeof(float));
		if (t) {
			for (uint32_t o = 0; o < out; o++)
				for (uint32_t i = 0; i < in; i++)
					t[(size_t)i * out + o] = mat[(size_t)o * in + i];
			uint32_t md[2] = { in, out };
			m = ox_const(n, WEBNN_FLOAT32, 2, md, t);
			free(t);
		}
		if (m && with_bias)
			b = ox_const(n, WEBNN_FLOAT32, 1, &out, bias);
	} else {
		uint32_t md[2] = { out, in }, bd[2] = { out, 1 };
		m = ox_const(n, WEBNN_FLOAT32, 2, md, mat);
		if (m && with_bias)
			b = ox_const(n, WEBNN_FLOAT32, 2, bd, bias);
	}
	free(mat);
	free(bias);
	if (!m || (with_bias && !b))
		return -1;
	if (before > UINT32_MAX || after > UINT32_MAX)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "an input of more than 2^32 rows");
	uint32_t s3[3] = { (uint32_t)before, in, (uint32_t)after };
	if (!(y = ox_reshape(n, *x, after == 1 ? 2 : 3, s3)))
		return -1;
	if (after == 1)
		OX_B(n, "matmul", webnn_builder_matmul(n->M->b, y, m, &y));
	else
		OX_B(n, "matmul", webnn_builder_matmul(n->M->b, m, y, &y));
	if (b)
		OX_B(n, "add", webnn_builder_add(n->M->b, y, b, &y));
	d[k] = out;
	if (!(*x = ox_reshape(n, y, r, d)))
		return -1;
	return 0;
}

/* Whether WebNN's resample2d samples exactly where ONNX does: linear is half_pixel (and
 * pytorch_half_pixel for outputs past 1), nearest is half_pixel rounding half down (and
 * asymmetric floor for whole upscales), both at the size ratio, over at most two axes. */
static bool rs_fits_resample2d(const struct rs_spec *sp, uint32_t *axes)
{
	if (sp->rank != 4 || sp->antialias)
		return false;
	uint32_t na = 0;
	bool integral = true, out1 = false;
	for (uint32_t i = 0; i < 4; i++) {
		if (sp->out[i] == sp->in[i] && sp->scale[i] == 1)
			continue;
		if (na == 2 || sp->scale[i] != (double)sp->out[i] / sp->in[i])
			return false;
		double f = sp->scale[i];
		integral &= f >= 1 && f == floor(f);
		out1 |= sp->out[i] <= 1;
		axes[na++] = i;
	}
	if (na == 0)
		return false;
	if (na == 1)
		axes[na++] = axes[0] == 3 ? 2 : axes[0] + 1;
	if (axes[0] > axes[1]) {
		uint32_t t = axes[0];
		axes[0] = axes[1];
		axes[1] = t;
	}
	if (rs_is(sp->mode, "nearest"))
		return (rs_is(sp->ctm, "half_pixel") && rs_is(sp->nm, "round_prefer_floor")) ||
		       (integral && rs_is(sp->ctm, "asymmetric") && rs_is(sp->nm, "floor"));
	if (rs_is(sp->mode, "linear"))
		return rs_is(sp->ctm, "half_pixel") || (rs_is(sp->ctm, "pytorch_half_pixel") && !out1);
	return false;
}

static int rs_build(struct ox_node *n, struct rs_spec *sp)
{
	struct webnn_operand *x, *o;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	bool same = true;
	for (uint32_t i = 0; i < sp->rank; i++)
		same = same && sp->out[i] == sp->in[i] && sp->scale[i] == 1;
	if (same && !rs_is(sp->ctm, "tf_crop_and_resize")) {
		OX_B(n, "identity", webnn_builder_identity(n->M->b, x, &o));
		return ox_set(n, 0, o);
	}
	for (uint32_t i = 0; i < sp->rank; i++)
		if (sp->out[i] == 0)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "axis %u is resized to 0 (WebNN has no empty tensors)", i);
	uint32_t axes[2];
	if (rs_fits_resample2d(sp, axes)) {
		struct webnn_resample2d_options ro = WEBNN_RESAMPLE2D_OPTIONS_INIT;
		ro.mode = rs_is(sp->mode, "nearest") ? WEBNN_INTERPOLATION_NEAREST_NEIGHBOR
						     : WEBNN_INTERPOLATION_LINEAR;
		for (uint32_t i = 0; i < 2; i++) {
			ro.sizes[i] = sp->out[axes[i]];
			ro.axes[i] = axes[i];
		}
		ro.n_sizes = ro.n_axes = 2;
		if (ox_need_type(n, "resample2d", NULL, v->type))
			return -1;
		OX_B(n, "resample2d", webnn_builder_resample2d(n->M->b, x, &ro, &o));
		return ox_set(n, 0, o);
	}
	bool nearest = rs_is(sp->mode, "nearest");
	bool crop = rs_is(sp->ctm, "tf_crop_and_resize");
	enum webnn_data_type t = v->type;
	bool floats = t == WEBNN_FLOAT32 || t == WEBNN_FLOAT16;
	if (!(nearest && !crop) && !floats)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			       "%s resize of %s (its interpolation is a float matmul; nearest of any "
			       "type is a gather)", sp->mode, webnn_data_type_name(t));
	/* antialias widens a downscale's taps by 1 / scale; rs_taps has room for 256 */
	for (uint32_t i = 0; i < sp->rank; i++)
		if (sp->antialias && sp->scale[i] < 1 && 4.0 / sp->scale[i] + 4 > 256)
			return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				       "antialias of a downscale by %g on axis %u (at most 1/60)",
				       sp->scale[i], i);
	if (t == WEBNN_FLOAT16 && !(nearest && !crop)) /* the matrices are float32 */
		OX_B(n, "cast", webnn_builder_cast(n->M->b, x, WEBNN_FLOAT32, &x));
	uint32_t d[WEBNN_MAX_RANK];
	memcpy(d, sp->in, sizeof(d));
	/* the innermost axis first, as ONNX nests its one-axis interpolations */
	for (uint32_t k = sp->rank; k-- > 0;) {
		if (sp->out[k] == sp->in[k] && sp->scale[k] == 1 && !crop)
			continue;
		if (rs_axis(n, sp, k, &x, d))
			return -1;
	}
	if (t == WEBNN_FLOAT16 && !(nearest && !crop))
		OX_B(n, "cast", webnn_builder_cast(n->M->b, x, WEBNN_FLOAT16, &x));
	return ox_set(n, 0, x);
}

/* Fills the output sizes and scales from scales or sizes given for the axes listed (all when
 * axes is NULL), with keep_aspect_ratio_policy for sizes. */
static int rs_sizes(struct ox_node *n, struct rs_spec *sp, const double *scales,
		    const int64_t *sizes, size_t count, const int64_t *axes, long n_axes,
		    const char *policy)
{
	uint32_t r = sp->rank, map[WEBNN_MAX_RANK];
	size_t want = n_axes >= 0 ? (size_t)n_axes : r;
	if (count != want)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "%zu scales or sizes for %zu axes", count,
			       want);
	bool seen[WEBNN_MAX_RANK] = { false };
	for (size_t i = 0; i < want; i++) {
		if (n_axes >= 0) {
			if (ox_axis(n, axes[i], r, &map[i]))
				return -1;
			if (seen[map[i]])
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "axis %u is listed twice",
					       map[i]);
			seen[map[i]] = true;
		} else {
			map[i] = (uint32_t)i;
		}
	}
	for (uint32_t i = 0; i < r; i++) {
		sp->out[i] = sp->in[i];
		sp->scale[i] = 1;
	}
	bool crop = rs_is(sp->ctm, "tf_crop_and_resize");
	if (scales) {
		for (size_t i = 0; i < want; i++) {
			uint32_t a = map[i];
			double s = scales[i], span = crop ? sp->roi[r + a] - sp->roi[a] : 1;
			if (!(s > 0) || !isfinite(s))
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "scale %g of axis %u is not "
					       "positive", s, a);
			double o = floor(sp->in[a] * span * s);
			if (!(o >= 0 && o <= UINT32_MAX))
				return ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
					       "scale %g of axis %u gives a size out of range", s, a);
			sp->out[a] = (uint32_t)o;
			sp->scale[a] = s;
		}
		return 0;
	}
	bool larger = rs_is(policy, "not_smaller"), stretch = rs_is(policy, "stretch");
	if (!stretch && !larger && !rs_is(policy, "not_larger"))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "keep_aspect_ratio_policy \"%s\"", policy);
	double common = larger ? 0 : INFINITY;
	for (size_t i = 0; i < want; i++) {
		uint32_t a = map[i];
		if (sizes[i] < 0 || sizes[i] > UINT32_MAX)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "size %lld of axis %u is out of "
				       "range", (long long)sizes[i], a);
		double ratio = (double)sizes[i] / sp->in[a];
		common = larger ? fmax(common, ratio) : fmin(common, ratio);
		sp->out[a] = (uint32_t)sizes[i];
		sp->scale[a] = ratio;
	}
	if (!stretch)
		for (size_t i = 0; i < want; i++) {
			uint32_t a = map[i];
			sp->scale[a] = common;
			sp->out[a] = (uint32_t)round(common * sp->in[a]);
		}
	return 0;
}

/* The spec of input 0 and the mode attribute ("bilinear" is linear), shared by Resize and
 * Upsample. */
static int rs_start(struct ox_node *n, struct rs_spec *sp)
{
	struct ox_val *v = n->in[0];
	if (!v)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "input 0 is missing");
	memset(sp, 0, sizeof(*sp));
	sp->rank = v->rank;
	memcpy(sp->in, v->dims, sizeof(sp->in));
	sp->mode = ox_attr_s(n, "mode", "nearest");
	if (rs_is(sp->mode, "bilinear"))
		sp->mode = "linear";
	return 0;
}

static int op_resize(struct ox_node *n)
{
	struct rs_spec sp;
	if (rs_start(n, &sp))
		return -1;
	bool v11 = n->opset >= 11;
	sp.ctm = v11 ? ox_attr_s(n, "coordinate_transformation_mode", "half_pixel") : "asymmetric";
	sp.nm = v11 ? ox_attr_s(n, "nearest_mode", "round_prefer_floor") : "floor";
	sp.cubic_a = ox_attr_f(n, "cubic_coeff_a", -0.75f);
	sp.exclude_outside = ox_attr_i(n, "exclude_outside", 0) != 0;
	sp.extrapolation = ox_attr_f(n, "extrapolation_value", 0);
	sp.antialias = ox_attr_i(n, "antialias", 0) != 0;
	if (!rs_is(sp.mode, "nearest") && !rs_is(sp.mode, "linear") && !rs_is(sp.mode, "cubic"))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "mode \"%s\"", sp.mode);
	static const char *const ctms[] = { "half_pixel", "half_pixel_symmetric",
					    "pytorch_half_pixel", "align_corners", "asymmetric",
					    "tf_half_pixel_for_nn", "tf_crop_and_resize" };
	bool known = false;
	for (size_t i = 0; i < sizeof(ctms) / sizeof(ctms[0]); i++)
		known = known || rs_is(sp.ctm, ctms[i]);
	if (!known)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "coordinate_transformation_mode \"%s\"",
			       sp.ctm);
	static const char *const nms[] = { "round_prefer_floor", "round_prefer_ceil", "floor",
					   "ceil" };
	known = false;
	for (size_t i = 0; i < sizeof(nms) / sizeof(nms[0]); i++)
		known = known || rs_is(sp.nm, nms[i]);
	if (!known)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "nearest_mode \"%s\"", sp.nm);
	const int64_t *axes = NULL;
	long n_axes = n->opset >= 18 ? ox_attr_ints(n, "axes", &axes) : -1;
	const char *policy = n->opset >= 18 ? ox_attr_s(n, "keep_aspect_ratio_policy", "stretch")
					    : "stretch";
	if (rs_is(sp.ctm, "tf_crop_and_resize")) {
		double *roi;
		size_t c;
		if (!ox_has_in(n, 1))
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "tf_crop_and_resize without roi");
		if (ox_host_f64(n, n->in[1], "roi", &roi, &c))
			return -1;
		size_t want = 2 * (n_axes >= 0 ? (size_t)n_axes : sp.rank);
		if (c != want)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "roi has %zu values, not %zu", c,
				       want);
		/* roi over all axes: starts 0 and ends 1 for the axes not listed */
		double *full = ox_keep(n->M, malloc(2 * WEBNN_MAX_RANK * sizeof(double)));
		if (!full)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		for (uint32_t i = 0; i < sp.rank; i++) {
			full[i] = 0;
			full[sp.rank + i] = 1;
		}
		size_t listed = want / 2;
		for (size_t i = 0; i < listed; i++) {
			uint32_t a = (uint32_t)i;
			if (n_axes >= 0 && ox_axis(n, axes[i], sp.rank, &a))
				return -1;
			full[a] = roi[i];
			full[sp.rank + a] = roi[listed + i];
		}
		sp.roi = full;
	}
	size_t si = v11 ? 2 : 1;
	double *scales = NULL;
	int64_t *sizes = NULL;
	size_t c = 0;
	if (v11 && ox_has_in(n, 3) && ox_elems(n->in[3]->rank, n->in[3]->dims)) {
		if (ox_host_i64(n, n->in[3], "sizes", &sizes, &c))
			return -1;
	} else if (ox_has_in(n, si) && ox_elems(n->in[si]->rank, n->in[si]->dims)) {
		if (ox_host_f64(n, n->in[si], "scales", &scales, &c))
			return -1;
	} else {
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "neither scales nor sizes");
	}
	if (rs_sizes(n, &sp, scales, sizes, c, axes, n_axes, policy))
		return -1;
	return rs_build(n, &sp);
}

static int op_upsample(struct ox_node *n)
{
	struct rs_spec sp;
	if (rs_start(n, &sp))
		return -1;
	if (!rs_is(sp.mode, "nearest") && !rs_is(sp.mode, "linear"))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "mode \"%s\"", sp.mode);
	sp.ctm = "asymmetric";
	sp.nm = "floor";
	double *scales;
	size_t c;
	if (n->opset >= 9) {
		if (ox_host_f64(n, n->in[1], "scales", &scales, &c))
			return -1;
	} else {
		const Onnx__AttributeProto *a = ox_attr(n, "scales");
		if (!a)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no scales");
		c = a->n_floats;
		scales = ox_keep(n->M, malloc((c + 1) * sizeof(double)));
		if (!scales)
			return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
		for (size_t i = 0; i < c; i++)
			scales[i] = a->floats[i];
	}
	if (rs_sizes(n, &sp, scales, NULL, c, NULL, -1, "stretch"))
		return -1;
	return rs_build(n, &sp);
}

const struct ox_op ox_ops_resize[] = {
	{ "Resize", 10, 21, op_resize },
	{ "Upsample", 7, 9, op_upsample },
	{ NULL, 0, 0, NULL },
};
