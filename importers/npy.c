/* NumPy .npy tensor files (format 1.0-3.0, little-endian, C order) for webnn_tensor_file_read. */
#include "importers/import_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum webnn_status npy_fail(char *error, size_t len, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static enum webnn_status npy_fail(char *error, size_t len, const char *path, const char *fmt, ...)
{
	if (error && len) {
		int k = snprintf(error, len, "%s: ", path);
		va_list ap;
		va_start(ap, fmt);
		if (k > 0 && (size_t)k < len)
			vsnprintf(error + k, len - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return WEBNN_STATUS_DATA_ERROR;
}

static const struct {
	const char *descr;
	enum webnn_data_type type;
} npy_types[] = {
	{ "<f4", WEBNN_FLOAT32 }, { "<f2", WEBNN_FLOAT16 }, { "<i4", WEBNN_INT32 },
	{ "<u4", WEBNN_UINT32 },  { "<i8", WEBNN_INT64 },   { "<u8", WEBNN_UINT64 },
	{ "|i1", WEBNN_INT8 },    { "|u1", WEBNN_UINT8 },   { "|b1", WEBNN_UINT8 },
};

/* The value of 'key': in the header dict, or NULL. */
static const char *dict_value(const char *h, const char *key)
{
	const char *p = strstr(h, key);
	if (!p)
		return NULL;
	p += strlen(key);
	while (*p == ' ' || *p == ':')
		p++;
	return p;
}

enum webnn_status wnni_npy_read(const char *path, struct webnn_operand_desc *desc, void **data,
				size_t *size, char *error, size_t len)
{
	size_t n = 0;
	unsigned char *f = wnni_read_file(path, &n, error, len);
	if (!f)
		return WEBNN_STATUS_TYPE_ERROR;
	enum webnn_status s = WEBNN_STATUS_DATA_ERROR;
	if (n < 10 || memcmp(f, "\x93NUMPY", 6) != 0) {
		s = npy_fail(error, len, path, "not a NumPy file (no \\x93NUMPY magic)");
		goto out;
	}
	size_t hlen, start;
	if (f[6] == 1) {
		hlen = f[8] | (size_t)f[9] << 8;
		start = 10;
	} else if ((f[6] == 2 || f[6] == 3) && n >= 12) {
		hlen = f[8] | (size_t)f[9] << 8 | (size_t)f[10] << 16 | (size_t)f[11] << 24;
		start = 12;
	} else {
		s = npy_fail(error, len, path, "NumPy format version %u is unknown", f[6]);
		goto out;
	}
	if (hlen > n - start) {
		s = npy_fail(error, len, path, "header of %zu bytes past the end of the file", hlen);
		goto out;
	}
	char *h = strndup((const char *)f + start, hlen);
	if (!h) {
		s = WEBNN_STATUS_NO_MEMORY;
		goto out;
	}
	const char *d = dict_value(h, "'descr'"), *fo = dict_value(h, "'fortran_order'"),
		   *sh = dict_value(h, "'shape'");
	memset(desc, 0, sizeof(*desc));
	bool typed = false;
	for (size_t i = 0; d && i < sizeof(npy_types) / sizeof(npy_types[0]); i++)
		if (strncmp(d + 1, npy_types[i].descr, 3) == 0) {
			desc->data_type = npy_types[i].type;
			typed = true;
		}
	if (!typed) {
		s = npy_fail(error, len, path, "descr %.8s is not a WebNN data type", d ? d : "(none)");
	} else if (!fo || strncmp(fo, "False", 5) != 0) {
		s = npy_fail(error, len, path, "Fortran order is not supported (save C order)");
	} else if (!sh || *sh != '(') {
		s = npy_fail(error, len, path, "no shape in the header");
	} else {
		const char *p = sh + 1;
		uint64_t count = 1;
		s = WEBNN_STATUS_OK;
		while (*p && *p != ')') {
			while (*p == ' ' || *p == ',')
				p++;
			if (*p == ')')
				break;
			char *end;
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p || desc->rank == WEBNN_MAX_RANK || v > UINT32_MAX) {
				s = npy_fail(error, len, path, "bad shape %.40s", sh);
				break;
			}
			desc->shape[desc->rank++] = (uint32_t)v;
			count *= v;
			if (count > ((uint64_t)1 << 40)) {
				s = npy_fail(error, len, path, "shape %.40s is too large", sh);
				break;
			}
			p = end;
		}
		size_t bytes = (size_t)count * webnn_data_type_size(desc->data_type);
		if (s == WEBNN_STATUS_OK && n - start - hlen != bytes) {
			s = npy_fail(error, len, path, "%zu data bytes, the shape needs %zu",
				     n - start - hlen, bytes);
		} else if (s == WEBNN_STATUS_OK) {
			*data = malloc(bytes ? bytes : 1);
			if (!*data) {
				s = WEBNN_STATUS_NO_MEMORY;
			} else {
				memcpy(*data, f + start + hlen, bytes);
				*size = bytes;
			}
		}
	}
	free(h);
out:
	free(f);
	return s;
}
