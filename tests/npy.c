/* Minimal NumPy .npy reader for the model tests (little-endian float32, C order only). */
#include "tests/npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "webnn.h"

/* Weights of the shared models are at most a few MB; anything far larger is a broken file. */
#define NPY_MAX_ELEMENTS (1u << 28)
#define NPY_MAX_HEADER 65536

static bool parse_header(const char *h, struct npy_array *a, char *err, size_t len)
{
	if (!strstr(h, "'descr': '<f4'") || !strstr(h, "'fortran_order': False")) {
		snprintf(err, len, "not little-endian float32 in C order (header %s)", h);
		return false;
	}
	const char *p = strstr(h, "'shape': (");
	if (!p) {
		snprintf(err, len, "header has no shape");
		return false;
	}
	p += strlen("'shape': (");
	a->count = 1;
	while (*p && *p != ')') {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || a->rank == NPY_MAX_RANK || v > UINT32_MAX) {
			snprintf(err, len, "bad shape in header");
			return false;
		}
		a->shape[a->rank++] = (uint32_t)v;
		a->count *= v;
		if (a->count > NPY_MAX_ELEMENTS) {
			snprintf(err, len, "more than %u elements", NPY_MAX_ELEMENTS);
			return false;
		}
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return true;
}

bool npy_load_f32(const char *path, struct npy_array *out, char *err, size_t err_len)
{
	unsigned char pre[12];
	char *h = NULL;
	bool ok = false;
	memset(out, 0, sizeof(*out));
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return false;
	}
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
		snprintf(err, err_len, "%s: not a .npy file", path);
		goto out;
	}
	size_t hlen = pre[8] | (size_t)pre[9] << 8;
	if (pre[6] >= 2) {
		if (fread(pre + 10, 1, 2, f) != 2) {
			snprintf(err, err_len, "%s: truncated header", path);
			goto out;
		}
		hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	}
	if (hlen > NPY_MAX_HEADER || !(h = calloc(1, hlen + 1)) || fread(h, 1, hlen, f) != hlen) {
		snprintf(err, err_len, "%s: bad header", path);
		goto out;
	}
	char msg[256];
	if (!parse_header(h, out, msg, sizeof(msg))) {
		snprintf(err, err_len, "%s: %s", path, msg);
		goto out;
	}
	out->data = malloc(out->count * sizeof(float) + 1);
	if (!out->data || fread(out->data, sizeof(float), out->count, f) != out->count) {
		snprintf(err, err_len, "%s: expected %zu float32 values", path, out->count);
		goto out;
	}
	ok = true;
out:
	if (!ok)
		npy_free(out);
	free(h);
	fclose(f);
	return ok;
}

void npy_free(struct npy_array *a)
{
	free(a->data);
	a->data = NULL;
	a->count = 0;
}

_Static_assert(NPY_MAX_RANK <= WEBNN_MAX_RANK, "every .npy rank must fit an operand");

bool npy_constant(struct webnn_context *ctx, struct webnn_builder *b, const char *path,
		  struct webnn_operand **out, char *err, size_t err_len)
{
	struct npy_array a;
	*out = NULL;
	if (!npy_load_f32(path, &a, err, err_len))
		return false;
	struct webnn_operand_desc d = { .data_type = WEBNN_FLOAT32, .rank = a.rank };
	memcpy(d.shape, a.shape, sizeof(uint32_t) * a.rank);
	enum webnn_status s = webnn_builder_constant(b, &d, a.data, a.count * sizeof(float), out);
	npy_free(&a);
	if (s != WEBNN_STATUS_OK) {
		snprintf(err, err_len, "%s: constant: %s: %s", path, webnn_status_name(s),
			 webnn_context_last_error(ctx));
		*out = NULL;
		return false;
	}
	return true;
}
