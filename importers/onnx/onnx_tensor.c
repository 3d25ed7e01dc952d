/* ONNX TensorProto decoding: typed fields, raw bytes and external data files, and .pb tensor files. */
#include "importers/onnx/onnx_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int terr(char *error, size_t len, enum webnn_status *status, enum webnn_status s,
		const char *fmt, ...)
{
	if (error && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(error, len, fmt, ap);
		va_end(ap);
	}
	*status = s;
	return -1;
}

bool ox_webnn_type(int onnx_type, enum webnn_data_type *t)
{
	switch (onnx_type) {
	case OX_FLOAT: *t = WEBNN_FLOAT32; return true;
	case OX_FLOAT16: *t = WEBNN_FLOAT16; return true;
	case OX_INT32: *t = WEBNN_INT32; return true;
	case OX_UINT32: *t = WEBNN_UINT32; return true;
	case OX_INT64: *t = WEBNN_INT64; return true;
	case OX_UINT64: *t = WEBNN_UINT64; return true;
	case OX_INT8: *t = WEBNN_INT8; return true;
	case OX_UINT8: case OX_BOOL: *t = WEBNN_UINT8; return true;
	case OX_INT4: *t = WEBNN_INT4; return true;
	case OX_UINT4: *t = WEBNN_UINT4; return true;
	default: return false;
	}
}

int ox_onnx_type_of(enum webnn_data_type t)
{
	switch (t) {
	case WEBNN_FLOAT32: return OX_FLOAT;
	case WEBNN_FLOAT16: return OX_FLOAT16;
	case WEBNN_INT32: return OX_INT32;
	case WEBNN_UINT32: return OX_UINT32;
	case WEBNN_INT64: return OX_INT64;
	case WEBNN_UINT64: return OX_UINT64;
	case WEBNN_INT8: return OX_INT8;
	case WEBNN_UINT8: return OX_UINT8;
	case WEBNN_INT4: return OX_INT4;
	case WEBNN_UINT4: return OX_UINT4;
	}
	return 0;
}

const char *ox_type_name(int onnx_type)
{
	static const char *const names[] = { "undefined", "float", "uint8", "int8", "uint16",
					     "int16", "int32", "int64", "string", "bool",
					     "float16", "double", "uint32", "uint64", "complex64",
					     "complex128", "bfloat16", "float8e4m3fn",
					     "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz",
					     "uint4", "int4" };
	if (onnx_type >= 0 && onnx_type < (int)(sizeof(names) / sizeof(names[0])))
		return names[onnx_type];
	return "unknown type";
}

/* Reads [offset, offset + length) of an external data file named relative to base_dir; the
 * file must stay inside base_dir (no absolute paths, no "..", no symlink out of it). */
static int read_external(const Onnx__TensorProto *t, const char *base_dir, size_t want,
			 unsigned char **dst, char *error, size_t len, enum webnn_status *status)
{
	const char *location = NULL;
	long long offset = 0, length = -1;
	for (size_t i = 0; i < t->n_external_data; i++) {
		const Onnx__StringStringEntryProto *e = t->external_data[i];
		if (!e->key || !e->value)
			continue;
		char *end;
		if (strcmp(e->key, "location") == 0) {
			location = e->value;
		} else if (strcmp(e->key, "offset") == 0) {
			errno = 0;
			offset = strtoll(e->value, &end, 10);
			if (errno || *end || offset < 0)
				return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
					    "tensor \"%s\": external data offset \"%s\" is not a "
					    "byte count", t->name, e->value);
		} else if (strcmp(e->key, "length") == 0) {
			errno = 0;
			length = strtoll(e->value, &end, 10);
			if (errno || *end || length < 0)
				return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
					    "tensor \"%s\": external data length \"%s\" is not a "
					    "byte count", t->name, e->value);
		}
	}
	if (!location || !*location)
		return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
			    "tensor \"%s\": external data without a location", t->name);
	if (!base_dir)
		return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
			    "tensor \"%s\": external data \"%s\" but the model was loaded from "
			    "memory without a base folder", t->name, location);
	if (location[0] == '/' || strstr(location, "..")) {
		return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
			    "tensor \"%s\": external data location \"%s\" leaves the model's "
			    "folder", t->name, location);
	}
	if (length >= 0 && (size_t)length != want)
		return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
			    "tensor \"%s\": external data length %lld, but its shape and type "
			    "need %zu bytes", t->name, length, want);
	char path[PATH_MAX], real[PATH_MAX], base[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", base_dir, location) >= (int)sizeof(path))
		return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
			    "tensor \"%s\": external data path too long", t->name);
	if (!realpath(path, real) || !realpath(base_dir, base))
		return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
			    "tensor \"%s\": external data %s: %s", t->name, path,
			    strerror(errno));
	size_t bl = strlen(base);
	if (strncmp(real, base, bl) != 0 || (real[bl] != '/' && bl > 1))
		return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
			    "tensor \"%s\": external data location \"%s\" leaves the model's "
			    "folder", t->name, location);
	FILE *f = fopen(real, "rb");
	if (!f)
		return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
			    "tensor \"%s\": external data %s: %s", t->name, path, strerror(errno));
	int rc = 0;
	struct stat st;
	/* the file's size bounds the allocation, not the model's claims */
	if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size < (uint64_t)offset ||
	    (uint64_t)st.st_size - (uint64_t)offset < want) {
		fclose(f);
		return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
			    "tensor \"%s\": external data %s holds fewer than %lld + %zu bytes",
			    t->name, path, offset, want);
	}
	*dst = malloc(want ? want : 1);
	if (!*dst)
		rc = terr(error, len, status, WEBNN_STATUS_NO_MEMORY,
			  "tensor \"%s\": out of memory for %zu bytes", t->name, want);
	else if (fseeko(f, (off_t)offset, SEEK_SET) != 0 || fread(*dst, 1, want, f) != want)
		rc = terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
			  "tensor \"%s\": external data %s holds fewer than %lld + %zu bytes",
			  t->name, path, offset, want);
	fclose(f);
	return rc;
}

const void *ox_tensor_view(const Onnx__TensorProto *t, int *onnx_type, uint32_t *rank,
			   uint32_t *dims)
{
	int ot = t->has_data_type ? t->data_type : 0;
	enum webnn_data_type wt;
	bool external = t->has_data_location &&
			t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	if (!t->has_raw_data || external || ot == OX_BOOL || !ox_webnn_type(ot, &wt) ||
	    t->n_dims > WEBNN_MAX_RANK)
		return NULL;
	uint64_t count = 1;
	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0 || t->dims[i] > UINT32_MAX)
			return NULL;
		dims[i] = (uint32_t)t->dims[i];
		count *= dims[i];
		if (count > ((uint64_t)1 << 34))
			return NULL;
	}
	if ((uint64_t)webnn_data_type_byte_length(wt, count) != t->raw_data.len ||
	    !t->raw_data.len)
		return NULL;
	*rank = (uint32_t)t->n_dims;
	*onnx_type = ot;
	return t->raw_data.data;
}

int ox_tensor_decode(const Onnx__TensorProto *t, const char *base_dir, int *onnx_type,
		     uint32_t *rank, uint32_t *dims, void **data, size_t *size, char *error,
		     size_t len, enum webnn_status *status)
{
	const char *name = t->name ? t->name : "";
	int ot = t->has_data_type ? t->data_type : 0;
	enum webnn_data_type wt;
	if (!ox_webnn_type(ot, &wt))
		return terr(error, len, status, WEBNN_STATUS_NOT_SUPPORTED,
			    "tensor \"%s\": data type %s has no WebNN equivalent", name,
			    ox_type_name(ot));
	if (t->n_dims > WEBNN_MAX_RANK)
		return terr(error, len, status, WEBNN_STATUS_NOT_SUPPORTED,
			    "tensor \"%s\": rank %zu, more than WebNN's %d", name, t->n_dims,
			    WEBNN_MAX_RANK);
	uint64_t count = 1;
	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0 || t->dims[i] > UINT32_MAX)
			return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
				    "tensor \"%s\": dimension %zu is %lld", name, i,
				    (long long)t->dims[i]);
		dims[i] = (uint32_t)t->dims[i];
		count *= dims[i];
		if (count > ((uint64_t)1 << 34))
			return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
				    "tensor \"%s\": more than 2^34 elements", name);
	}
	*rank = (uint32_t)t->n_dims;
	*onnx_type = ot;
	/* int4/uint4 are packed two per byte, the first in the low nibble, in raw data and
	 * external files as in WebNN; their int32_data holds one packed byte per entry. */
	size_t bytes = (size_t)webnn_data_type_byte_length(wt, count);
	bool packed = wt == WEBNN_INT4 || wt == WEBNN_UINT4;
	size_t n = packed ? bytes : (size_t)count;
	int rc = 0;
	unsigned char *out = NULL;
	bool external = t->has_data_location &&
			t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	/* Every length is checked against what backs it before anything is allocated. */
	if (external) {
		if (read_external(t, base_dir, bytes, &out, error, len, status)) {
			free(out);
			return -1;
		}
	} else {
		size_t have = t->has_raw_data ? t->raw_data.len
			    : ot == OX_FLOAT ? t->n_float_data
			    : ot == OX_INT64 ? t->n_int64_data
			    : ot == OX_UINT32 || ot == OX_UINT64 ? t->n_uint64_data
								   : t->n_int32_data;
		if (t->has_raw_data && have != bytes)
			return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
				    "tensor \"%s\": %zu raw bytes, but its shape and type need %zu",
				    name, have, bytes);
		if (!t->has_raw_data && have != n)
			return terr(error, len, status, WEBNN_STATUS_DATA_ERROR,
				    "tensor \"%s\": %zu values, but its shape holds %zu", name,
				    have, n);
		out = malloc(bytes ? bytes : 1);
		if (!out)
			return terr(error, len, status, WEBNN_STATUS_NO_MEMORY,
				    "tensor \"%s\": out of memory for %zu bytes", name, bytes);
	}
	if (external) {
	} else if (t->has_raw_data) {
		if (bytes)
			memcpy(out, t->raw_data.data, bytes);
	} else {
		/* Typed fields: float_data (float), int32_data (the small integer types, bool,
		 * float16 bits), int64_data, uint64_data (uint32, uint64). */
		{
			for (size_t i = 0; i < n; i++) {
				switch (ot) {
				case OX_FLOAT: ((float *)out)[i] = t->float_data[i]; break;
				case OX_INT64: ((int64_t *)out)[i] = t->int64_data[i]; break;
				case OX_UINT64: ((uint64_t *)out)[i] = t->uint64_data[i]; break;
				case OX_UINT32: ((uint32_t *)out)[i] = (uint32_t)t->uint64_data[i]; break;
				case OX_INT32: ((int32_t *)out)[i] = t->int32_data[i]; break;
				case OX_FLOAT16: ((uint16_t *)out)[i] = (uint16_t)t->int32_data[i]; break;
				case OX_INT8: ((int8_t *)out)[i] = (int8_t)t->int32_data[i]; break;
				case OX_BOOL: out[i] = t->int32_data[i] != 0; break;
				case OX_INT4:
				case OX_UINT4: out[i] = (uint8_t)t->int32_data[i]; break;
				default: out[i] = (uint8_t)t->int32_data[i]; break;
				}
			}
		}
	}
	if (rc == 0 && ot == OX_BOOL)
		for (size_t i = 0; i < n; i++)
			out[i] = out[i] != 0;
	if (rc) {
		free(out);
		return -1;
	}
	*data = out;
	*size = bytes;
	return 0;
}

enum webnn_status wnni_onnx_read_tensor_pb(const char *path, struct webnn_operand_desc *desc,
					   void **data, size_t *size, char *error, size_t len)
{
	size_t n = 0;
	void *bytes = wnni_read_file(path, &n, error, len);
	if (!bytes)
		return WEBNN_STATUS_TYPE_ERROR;
	Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, n, bytes);
	free(bytes);
	if (!t) {
		if (error && len)
			snprintf(error, len, "%s: not an ONNX TensorProto (protobuf decoding failed)",
				 path);
		return WEBNN_STATUS_DATA_ERROR;
	}
	/* External data of a lone tensor file lives beside it. */
	char *dir = strdup(path);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	if (slash)
		*slash = 0;
	int ot = 0;
	uint32_t rank = 0, dims[WEBNN_MAX_RANK] = { 0 };
	enum webnn_status s = WEBNN_STATUS_OK;
	char msg[512];
	int rc = ox_tensor_decode(t, slash ? dir : ".", &ot, &rank, dims, data, size, msg,
				  sizeof(msg), &s);
	onnx__tensor_proto__free_unpacked(t, NULL);
	free(dir);
	if (rc) {
		if (error && len)
			snprintf(error, len, "%s: %s", path, msg);
		return s;
	}
	memset(desc, 0, sizeof(*desc));
	ox_webnn_type(ot, &desc->data_type);
	desc->rank = rank;
	memcpy(desc->shape, dims, sizeof(dims[0]) * rank);
	return WEBNN_STATUS_OK;
}
