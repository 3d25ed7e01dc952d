/* ONNX DFT, STFT and MelWeightMatrix: Fourier transforms of a length known at load time are matmuls with constant cos/sin matrices; the mel matrix is computed on the host. */
#include "importers/onnx/onnx_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A transform's matrix holds (2 n) x (2 bins) float32 entries: past this (64 MiB) the signal is
 * longer than any a model transforms whole. */
#define DFT_MAX_MATRIX (1u << 24)

/* The real matrix of a transform of n samples into bins (n, or n / 2 + 1 onesided): rows are the
 * input's real parts then (complex input) its imaginary parts, columns the output's real parts
 * then its imaginary parts; the inverse conjugates and divides by n. */
static float *dft_matrix(uint32_t n, uint32_t bins, bool complex_in, bool inverse)
{
	uint32_t rows = complex_in ? 2 * n : n, cols = 2 * bins;
	float *w = malloc((size_t)rows * cols * sizeof(float));
	if (!w)
		return NULL;
	double sign = inverse ? 1 : -1, scale = inverse ? 1.0 / n : 1;
	for (uint32_t t = 0; t < n; t++)
		for (uint32_t k = 0; k < bins; k++) {
			/* exact angles: t k mod n first, so long signals keep their precision */
			double th = 2 * M_PI * (double)(((uint64_t)t * k) % n) / n;
			double c = cos(th) * scale, s = sign * sin(th) * scale;
			/* (xr + i xi)(c + i s) = (xr c - xi s) + i (xr s + xi c) */
			w[(size_t)t * cols + k] = (float)c;
			w[(size_t)t * cols + bins + k] = (float)s;
			if (complex_in) {
				w[(size_t)(n + t) * cols + k] = (float)-s;
				w[(size_t)(n + t) * cols + bins + k] = (float)c;
			}
		}
	return w;
}

/* The transform of x (shape d, rank r, last dim 1 or 2 for real or complex) along axis a, its
 * length already n: the other axes become rows, [re | im] x n the columns of one matmul. */
static int dft_apply(struct ox_node *n, struct webnn_operand **x, const uint32_t *d, uint32_t r,
		     uint32_t a, bool onesided, bool inverse)
{
	struct webnn_builder *b = n->M->b;
	uint32_t len = d[a], c = d[r - 1];
	bool complex_in = c == 2;
	if (onesided && complex_in)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "onesided with a complex input");
	uint32_t bins = onesided ? len / 2 + 1 : len;
	uint64_t entries = (uint64_t)(complex_in ? 2 : 1) * len * 2 * bins;
	if (entries > DFT_MAX_MATRIX)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a transform of %u samples needs a "
			       "matrix of more than 2^24 entries", len);
	/* others in order, then the complex axis, then the transformed one */
	uint32_t perm[WEBNN_MAX_RANK], inv[WEBNN_MAX_RANK], k = 0;
	uint64_t rows = 1;
	for (uint32_t i = 0; i < r - 1; i++)
		if (i != a) {
			perm[k++] = i;
			rows *= d[i];
		}
	perm[k++] = r - 1;
	perm[k++] = a;
	if (rows > UINT32_MAX)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "more than 2^32 transforms");
	struct webnn_operand *y;
	OX_B(n, "transpose", webnn_builder_transpose(b, *x, perm, r, &y));
	uint32_t flat[2] = { (uint32_t)rows, c * len };
	if (!(y = ox_reshape(n, y, 2, flat)))
		return -1;
	float *w = dft_matrix(len, bins, complex_in, inverse);
	if (!w)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	uint32_t wd[2] = { c * len, 2 * bins };
	struct webnn_operand *wm = ox_const(n, WEBNN_FLOAT32, 2, wd, w);
	free(w);
	if (!wm)
		return -1;
	OX_B(n, "matmul", webnn_builder_matmul(b, y, wm, &y));
	/* back: others, [re, im], bins -> the original order with bins at a, [re, im] last */
	uint32_t shaped[WEBNN_MAX_RANK];
	k = 0;
	for (uint32_t i = 0; i < r - 1; i++)
		if (i != a)
			shaped[k++] = d[i];
	shaped[k++] = 2;
	shaped[k++] = bins;
	if (!(y = ox_reshape(n, y, r, shaped)))
		return -1;
	for (uint32_t i = 0; i < r; i++)
		inv[perm[i]] = i;
	OX_B(n, "transpose", webnn_builder_transpose(b, y, inv, r, x));
	return 0;
}

/* Cuts or zero-pads axis a of x (shape d) to len. */
static int dft_fit(struct ox_node *n, struct webnn_operand **x, uint32_t *d, uint32_t r,
		   uint32_t a, uint32_t len)
{
	if (len == d[a])
		return 0;
	uint32_t zero[WEBNN_MAX_RANK] = { 0 }, sz[WEBNN_MAX_RANK], end[WEBNN_MAX_RANK] = { 0 };
	memcpy(sz, d, r * sizeof(sz[0]));
	if (len < d[a]) {
		sz[a] = len;
		OX_B(n, "slice", webnn_builder_slice(n->M->b, *x, zero, r, sz, r, NULL, x));
	} else {
		end[a] = len - d[a];
		struct webnn_pad_options po = WEBNN_PAD_OPTIONS_INIT;
		OX_B(n, "pad", webnn_builder_pad(n->M->b, *x, zero, r, end, r, &po, x));
	}
	d[a] = len;
	return 0;
}

/* A scalar integer input known at load time. */
static int host_int(struct ox_node *n, size_t i, const char *what, int64_t *v)
{
	int64_t *p;
	size_t c;
	if (ox_host_i64(n, n->in[i], what, &p, &c))
		return -1;
	if (c != 1)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "%s has %zu values, not 1", what, c);
	*v = p[0];
	return 0;
}

static int op_dft(struct ox_node *n)
{
	struct webnn_operand *x;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	uint32_t r = v->rank, d[WEBNN_MAX_RANK];
	memcpy(d, v->dims, sizeof(d));
	if (r < 2 || (d[r - 1] != 1 && d[r - 1] != 2))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "the input's last dimension is %u, not 1 "
			       "(real) or 2 (complex)", r ? d[r - 1] : 0);
	if (v->type != WEBNN_FLOAT32)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a %s input (the transform is a float32 "
			       "matmul)", webnn_data_type_name(v->type));
	int64_t axis = n->opset >= 20 ? -2 : ox_attr_i(n, "axis", 1);
	if (n->opset >= 20 && ox_has_in(n, 2) && host_int(n, 2, "axis", &axis))
		return -1;
	if (axis < 0)
		axis += r;
	if (axis < 0 || axis >= (int64_t)r - 1)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "axis %lld is not a signal axis",
			       (long long)axis);
	uint32_t a = (uint32_t)axis;
	int64_t len = d[a];
	if (ox_has_in(n, 1) && host_int(n, 1, "dft_length", &len))
		return -1;
	if (len < 1 || len > UINT32_MAX)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "dft_length %lld", (long long)len);
	bool inverse = ox_attr_i(n, "inverse", 0) != 0, onesided = ox_attr_i(n, "onesided", 0) != 0;
	if (dft_fit(n, &x, d, r, a, (uint32_t)len) || dft_apply(n, &x, d, r, a, onesided, inverse))
		return -1;
	return ox_set(n, 0, x);
}

/* STFT: frames of the signal gathered by constant indices, times the window, transformed. */
static int op_stft(struct ox_node *n)
{
	struct webnn_operand *x;
	OX_IN(n, 0, x);
	struct ox_val *v = n->in[0];
	if (v->rank != 3 || (v->dims[2] != 1 && v->dims[2] != 2))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "the signal is not [batch, length, 1 or 2]");
	if (v->type != WEBNN_FLOAT32)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a %s signal (the transform is a float32 "
			       "matmul)", webnn_data_type_name(v->type));
	int64_t step, flen = -1;
	if (!ox_has_in(n, 1))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "no frame_step");
	if (host_int(n, 1, "frame_step", &step))
		return -1;
	bool windowed = ox_has_in(n, 2);
	if (windowed) {
		if (n->in[2]->rank != 1)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "the window is not 1-D");
		flen = n->in[2]->dims[0];
	}
	if (ox_has_in(n, 3)) {
		int64_t f;
		if (host_int(n, 3, "frame_length", &f))
			return -1;
		if (windowed && f != flen)
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "frame_length %lld differs from the "
				       "window's %lld", (long long)f, (long long)flen);
		flen = f;
	}
	uint32_t sig = v->dims[1];
	if (flen < 1 || flen > sig || step < 1)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "frame_length %lld and frame_step %lld for "
			       "a signal of %u", (long long)flen, (long long)step, sig);
	uint32_t frames = (uint32_t)((sig - flen) / step + 1), fl = (uint32_t)flen;
	if ((uint64_t)frames * fl > DFT_MAX_MATRIX)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "%u frames of %u samples", frames, fl);
	int32_t *idx = malloc((size_t)frames * fl * sizeof(int32_t));
	if (!idx)
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (uint32_t f = 0; f < frames; f++)
		for (uint32_t t = 0; t < fl; t++)
			idx[(size_t)f * fl + t] = (int32_t)((uint64_t)f * step + t);
	uint32_t id[2] = { frames, fl };
	struct webnn_operand *ic = ox_const(n, WEBNN_INT32, 2, id, idx);
	free(idx);
	if (!ic)
		return -1;
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	go.axis = 1;
	OX_B(n, "gather", webnn_builder_gather(n->M->b, x, ic, &go, &x));
	uint32_t d[4] = { v->dims[0], frames, fl, v->dims[2] };
	if (windowed) {
		struct webnn_operand *w;
		OX_IN(n, 2, w);
		uint32_t wd[2] = { fl, 1 };
		if (!(w = ox_reshape(n, w, 2, wd)))
			return -1;
		OX_B(n, "mul", webnn_builder_mul(n->M->b, x, w, &x));
	}
	bool onesided = ox_attr_i(n, "onesided", 1) != 0;
	if (dft_apply(n, &x, d, 4, 2, onesided && v->dims[2] == 1, false))
		return -1;
	return ox_set(n, 0, x);
}

/* MelWeightMatrix, computed on the host from its scalar inputs (ONNX's definition: triangles
 * between mel-spaced points, mapped to the nearest of the FFT's bins). */
static int op_mel(struct ox_node *n)
{
	int64_t bins, dft_len, rate;
	double *lo, *hi;
	size_t c1, c2;
	if (!ox_has_in(n, 4))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "inputs are missing");
	if (host_int(n, 0, "num_mel_bins", &bins) || host_int(n, 1, "dft_length", &dft_len) ||
	    host_int(n, 2, "sample_rate", &rate) ||
	    ox_host_f64(n, n->in[3], "lower_edge_hertz", &lo, &c1) ||
	    ox_host_f64(n, n->in[4], "upper_edge_hertz", &hi, &c2))
		return -1;
	if (c1 != 1 || c2 != 1 || bins < 1 || bins > 65536 || dft_len < 1 || dft_len > (1 << 20) ||
	    rate < 1)
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "num_mel_bins %lld, dft_length %lld, "
			       "sample_rate %lld", (long long)bins, (long long)dft_len,
			       (long long)rate);
	uint32_t spectrum = (uint32_t)(dft_len / 2 + 1), mb = (uint32_t)bins;
	if ((uint64_t)spectrum * mb > DFT_MAX_MATRIX)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "a %u x %u matrix", spectrum, mb);
	double low_mel = 2595 * log10(1 + lo[0] / 700), high_mel = 2595 * log10(1 + hi[0] / 700);
	int64_t *edge = malloc((size_t)(mb + 2) * sizeof(int64_t));
	float *w = calloc((size_t)spectrum * mb, sizeof(float));
	if (!edge || !w) {
		free(edge);
		free(w);
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	}
	/* mb + 2 points evenly spaced in mel (a step of the span over mb + 2, as ONNX has it),
	 * as FFT bins: floor((dft_length + 1) hz / sample_rate) */
	for (uint32_t i = 0; i < mb + 2; i++) {
		double mel = low_mel + (high_mel - low_mel) / (mb + 2) * i;
		double hz = 700 * (pow(10, mel / 2595) - 1);
		edge[i] = (int64_t)floor((double)(dft_len + 1) * hz / (double)rate);
	}
	for (uint32_t m = 0; m < mb; m++) {
		int64_t l = edge[m], ctr = edge[m + 1], h = edge[m + 2];
		if (l < 0 || h >= (int64_t)spectrum + 1 || ctr >= (int64_t)spectrum) {
			free(edge);
			free(w);
			return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "mel bin %u reaches FFT bin %lld, "
				       "past the %u of the spectrum", m, (long long)h, spectrum);
		}
		if (ctr == l)
			w[(size_t)ctr * mb + m] = 1;
		else
			for (int64_t k = l; k <= ctr; k++)
				w[(size_t)k * mb + m] = (float)((double)(k - l) / (double)(ctr - l));
		for (int64_t k = ctr; k < h; k++)
			w[(size_t)k * mb + m] = (float)((double)(h - k) / (double)(h - ctr));
	}
	free(edge);
	int out_type = (int)ox_attr_i(n, "output_datatype", 1);
	if (out_type != 1) {
		free(w);
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "output_datatype %d (float only)",
			       out_type);
	}
	uint32_t od[2] = { spectrum, mb };
	return ox_set_host(n, 0, 1, 2, od, w);
}

const struct ox_op ox_ops_fourier[] = {
	{ "DFT", 17, 21, op_dft },
	{ "STFT", 17, 21, op_stft },
	{ "MelWeightMatrix", 17, 21, op_mel },
	{ NULL, 0, 0, NULL },
};
