/* NNEF's binary tensor files (.dat): the 128-byte header, float, integer, quantized and bit-packed items. */
#include "importers/nnef/nnef.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ITEM_FLOAT, ITEM_UINT, ITEM_QUINT, ITEM_QINT, ITEM_INT, ITEM_BOOL };

#define DAT_HEADER 128
/* Items of one tensor file: beyond this a file is refused before anything is allocated. */
#define DAT_MAX_ITEMS ((uint64_t)1 << 32)

static enum webnn_status fail(char *error, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum webnn_status fail(char *error, size_t len, const char *fmt, ...)
{
	if (error && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(error, len, fmt, ap);
		va_end(ap);
	}
	return WEBNN_STATUS_DATA_ERROR;
}

static uint32_t u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Item i of bits bits, packed most significant bit first (as NNEF packs logicals). */
static uint64_t packed(const uint8_t *data, uint64_t i, uint32_t bits)
{
	uint64_t v = 0, bit = i * bits;
	for (uint32_t k = 0; k < bits; k++, bit++)
		v = v << 1 | ((data[bit / 8] >> (7 - bit % 8)) & 1);
	return v;
}

static uint64_t little(const uint8_t *p, uint32_t bytes)
{
	uint64_t v = 0;
	for (uint32_t k = 0; k < bytes; k++)
		v |= (uint64_t)p[k] << (8 * k);
	return v;
}

enum webnn_status nnef_dat_decode(const uint8_t *bytes, size_t size, const char *name,
				  struct webnn_operand_desc *desc, void **out, size_t *out_size,
				  bool *quantized, char *error, size_t len)
{
	*out = NULL;
	*out_size = 0;
	*quantized = false;
	if (size < DAT_HEADER)
		return fail(error, len, "%s: %zu bytes, shorter than the %d-byte NNEF tensor header",
			    name, size, DAT_HEADER);
	if (bytes[0] != 'N' || bytes[1] != 0xEF)
		return fail(error, len, "%s: not an NNEF tensor file (bad magic number)", name);
	if (bytes[2] != 1 || bytes[3] != 0)
		return fail(error, len, "%s: NNEF tensor file version %u.%u, only 1.0 is known", name,
			    bytes[2], bytes[3]);
	uint32_t data_length = u32(bytes + 4), rank = u32(bytes + 8);
	if (rank > WEBNN_MAX_RANK)
		return fail(error, len, "%s: rank %u is more than %d", name, rank, WEBNN_MAX_RANK);
	memset(desc, 0, sizeof(*desc));
	desc->rank = rank;
	uint64_t count = 1;
	for (uint32_t i = 0; i < rank; i++) {
		desc->shape[i] = u32(bytes + 12 + 4 * i);
		count *= desc->shape[i];
		if (count > DAT_MAX_ITEMS)
			return fail(error, len, "%s: more than %llu items", name,
				    (unsigned long long)DAT_MAX_ITEMS);
	}
	uint32_t bits = u32(bytes + 44), type = u32(bytes + 48), reserved0 = u32(bytes + 52);
	if (type & 0xffff0000u)
		return fail(error, len, "%s: vendor item type 0x%x is not known", name, type);
	bool is_signed;
	switch (type) {
	case ITEM_FLOAT:
		if (bits != 16 && bits != 32 && bits != 64)
			return fail(error, len, "%s: float items of %u bits (16, 32 or 64 are "
				    "possible)", name, bits);
		break;
	case ITEM_UINT:
	case ITEM_QUINT:
	case ITEM_QINT:
	case ITEM_INT:
		if (bits < 1 || bits > 64)
			return fail(error, len, "%s: integer items of %u bits (1 to 64 are possible)",
				    name, bits);
		break;
	case ITEM_BOOL:
		if (bits != 1 && bits != 8)
			return fail(error, len, "%s: logical items of %u bits (1 or 8 are possible)",
				    name, bits);
		break;
	default:
		return fail(error, len, "%s: unknown item type %u", name, type);
	}
	uint64_t want = (count * bits + 7) / 8;
	if (data_length != want)
		return fail(error, len, "%s: the header says %u data bytes, %llu items of %u bits "
			    "take %llu", name, data_length, (unsigned long long)count, bits,
			    (unsigned long long)want);
	if (size - DAT_HEADER != data_length)
		return fail(error, len, "%s: %zu data bytes follow the header, it says %u", name,
			    size - DAT_HEADER, data_length);
	const uint8_t *data = bytes + DAT_HEADER;
	/* NNEF-Tools wrote signed integers as UINT with reserved[0] set before INT existed */
	is_signed = type == ITEM_INT || type == ITEM_QINT || (type == ITEM_UINT && reserved0);
	*quantized = type == ITEM_QINT || type == ITEM_QUINT;
	enum webnn_data_type dt;
	if (type == ITEM_FLOAT)
		dt = bits == 16 ? WEBNN_FLOAT16 : WEBNN_FLOAT32;
	else if (type == ITEM_BOOL)
		dt = WEBNN_UINT8;
	else if (bits <= 8)
		dt = is_signed ? WEBNN_INT8 : WEBNN_UINT8;
	else if (bits <= 32)
		dt = is_signed ? WEBNN_INT32 : WEBNN_UINT32;
	else
		dt = is_signed ? WEBNN_INT64 : WEBNN_UINT64;
	desc->data_type = dt;
	size_t es = webnn_data_type_size(dt);
	uint8_t *buf = malloc(count * es + 1);
	if (!buf)
		return fail(error, len, "%s: out of memory for %llu items", name,
			    (unsigned long long)count);
	for (uint64_t i = 0; i < count; i++) {
		if (type == ITEM_FLOAT) {
			if (bits == 64) {
				double d;
				memcpy(&d, data + i * 8, 8);
				float f = (float)d;
				memcpy(buf + i * 4, &f, 4);
			} else {
				memcpy(buf + i * es, data + i * es, es);
			}
			continue;
		}
		if (type == ITEM_BOOL) {
			buf[i] = bits == 1 ? (uint8_t)packed(data, i, 1) : data[i] != 0;
			continue;
		}
		uint64_t v = bits % 8 ? packed(data, i, bits) : little(data + i * (bits / 8), bits / 8);
		if (is_signed && bits < 64 && (v >> (bits - 1)) & 1)
			v |= ~(uint64_t)0 << bits;
		switch (es) {
		case 1: buf[i] = (uint8_t)v; break;
		case 4: {
			uint32_t x = (uint32_t)v;
			memcpy(buf + i * 4, &x, 4);
			break;
		}
		default: memcpy(buf + i * 8, &v, 8); break;
		}
	}
	*out = buf;
	*out_size = count * es;
	return WEBNN_STATUS_OK;
}

enum webnn_status wnni_nnef_read_dat(const char *path, struct webnn_operand_desc *desc,
				     void **data, size_t *size, char *error, size_t len)
{
	size_t n;
	uint8_t *bytes = wnni_read_file(path, &n, error, len);
	if (!bytes)
		return WEBNN_STATUS_TYPE_ERROR;
	bool quantized;
	enum webnn_status s = nnef_dat_decode(bytes, n, path, desc, data, size, &quantized, error,
					      len);
	free(bytes);
	return s;
}
