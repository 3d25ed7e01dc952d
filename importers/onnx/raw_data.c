/* A ModelProto decoded without copying its weights: the main graph's initializers point their raw_data into the file's bytes. */
#include "importers/onnx/onnx_internal.h"

#include <stdlib.h>
#include <string.h>

/*
 * protobuf-c copies every bytes field while decoding, so a model's weights would be in memory
 * twice (the file and the decoded message) and a third time once decoded into tensors. Here
 * the serialised ModelProto is rewritten without the raw_data fields of its graph's
 * initializers (a copy of everything else: the graph's structure, a few KiB to MiB), that is
 * decoded, and each initializer's raw_data is then pointed at its bytes in the caller's buffer
 * (the mapped file). Fields of the graph (7), the initializers (GraphProto 5) and raw_data
 * (TensorProto 9) are the numbers of onnx.proto; what is not understood falls back to the
 * plain decoder, which says what is wrong.
 */

/* raw_data smaller than this is left to protobuf-c: not worth a reference */
#define OX_RAW_MIN 1024

struct ox_buf {
	uint8_t *p;
	size_t n, cap;
	bool oom;
};

static void put(struct ox_buf *b, const void *p, size_t n)
{
	if (b->oom || n == 0) /* an empty nested message has no bytes, maybe no buffer */
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->n + n)
			cap *= 2;
		uint8_t *q = realloc(b->p, cap);
		if (!q) {
			b->oom = true;
			return;
		}
		b->p = q, b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put_varint(struct ox_buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;
	do {
		t[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put(b, t, n);
}

bool ox_read_varint(const uint8_t *p, size_t n, size_t *i, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (*i >= n)
			return false;
		uint8_t b = p[(*i)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* The field at p[*i] (its key read into key): its payload's start and length (wire type 2), or
 * skipped; false when malformed. */
static bool next_field(const uint8_t *p, size_t n, size_t *i, uint64_t *key, size_t *start,
		       size_t *len)
{
	uint64_t v;
	if (!ox_read_varint(p, n, i, key) || (*key >> 3) == 0)
		return false;
	*start = *i, *len = 0;
	switch (*key & 7) {
	case 0:
		return ox_read_varint(p, n, i, &v);
	case 1:
		if (n - *i < 8)
			return false;
		*i += 8;
		return true;
	case 5:
		if (n - *i < 4)
			return false;
		*i += 4;
		return true;
	case 2:
		if (!ox_read_varint(p, n, i, &v) || v > n - *i)
			return false;
		*start = *i, *len = (size_t)v;
		*i += (size_t)v;
		return true;
	default:
		return false;
	}
}

struct ox_strip {
	const uint8_t *base; /* the whole file: offsets are from here */
	struct ox_raw_ref *refs;
	size_t n_refs, cap_refs;
	size_t n_inits;      /* initializer fields seen */
	bool oom;
};

/* TensorProto p without a large raw_data (recorded as a reference), into out. */
static bool strip_tensor(struct ox_strip *s, const uint8_t *p, size_t n, struct ox_buf *out)
{
	size_t i = 0, raw_off = 0, raw_len = 0, n_raw = 0;
	while (i < n) {
		size_t start, len;
		uint64_t key;
		if (!next_field(p, n, &i, &key, &start, &len))
			return false;
		if (key == ((9u << 3) | 2)) {
			n_raw++;
			raw_off = (size_t)(p + start - s->base), raw_len = len;
		}
	}
	/* one raw_data, and a large one (several: the last counts; leave that to protobuf-c) */
	if (n_raw != 1 || raw_len < OX_RAW_MIN) {
		put(out, p, n);
		return true;
	}
	for (i = 0; i < n;) {
		size_t at = i, start, len;
		uint64_t key;
		next_field(p, n, &i, &key, &start, &len);
		if (key != ((9u << 3) | 2))
			put(out, p + at, i - at);
	}
	if (s->n_refs == s->cap_refs) {
		size_t cap = s->cap_refs ? 2 * s->cap_refs : 64;
		struct ox_raw_ref *r = realloc(s->refs, cap * sizeof *r);
		if (!r) {
			s->oom = true;
			return false;
		}
		s->refs = r, s->cap_refs = cap;
	}
	s->refs[s->n_refs++] = (struct ox_raw_ref){ s->n_inits, raw_off, raw_len };
	return true;
}

/* GraphProto p with its initializers stripped, into out. */
static bool strip_graph(struct ox_strip *s, const uint8_t *p, size_t n, struct ox_buf *out)
{
	size_t i = 0;
	while (i < n) {
		size_t at = i, start, len;
		uint64_t key;
		if (!next_field(p, n, &i, &key, &start, &len))
			return false;
		if (key != ((5u << 3) | 2)) {
			put(out, p + at, i - at);
			continue;
		}
		struct ox_buf t = { 0 };
		bool ok = strip_tensor(s, p + start, len, &t);
		s->n_inits++;
		if (ok) {
			put_varint(out, key);
			put_varint(out, t.n);
			put(out, t.p, t.n);
		}
		s->oom = s->oom || t.oom;
		free(t.p);
		if (!ok || s->oom)
			return false;
	}
	return true;
}

/* ModelProto p with its graph stripped, into out; false when p is not understood. */
static bool strip_model(struct ox_strip *s, const uint8_t *p, size_t n, struct ox_buf *out)
{
	size_t i = 0;
	bool graph = false;
	while (i < n) {
		size_t at = i, start, len;
		uint64_t key;
		if (!next_field(p, n, &i, &key, &start, &len))
			return false;
		if (key != ((7u << 3) | 2)) {
			put(out, p + at, i - at);
			continue;
		}
		/* two graph fields merge in protobuf: leave that to the plain decoder */
		if (graph)
			return false;
		graph = true;
		struct ox_buf g = { 0 };
		bool ok = strip_graph(s, p + start, len, &g);
		if (ok) {
			put_varint(out, key);
			put_varint(out, g.n);
			put(out, g.p, g.n);
		}
		s->oom = s->oom || g.oom;
		free(g.p);
		if (!ok)
			return false;
	}
	return !out->oom && !s->oom;
}

Onnx__ModelProto *ox_unpack_model(const void *data, size_t size, struct ox_raw_ref **refs,
				  size_t *n_refs)
{
	*refs = NULL, *n_refs = 0;
	struct ox_strip s = { .base = data };
	struct ox_buf out = { 0 };
	Onnx__ModelProto *m = NULL;
	if (strip_model(&s, data, size, &out) && s.n_refs) {
		m = onnx__model_proto__unpack(NULL, out.n, out.p);
		/* the initializers must be the fields counted, in order */
		if (m && (!m->graph || m->graph->n_initializer != s.n_inits)) {
			onnx__model_proto__free_unpacked(m, NULL);
			m = NULL;
		}
	}
	free(out.p);
	if (!m) {
		free(s.refs);
		return onnx__model_proto__unpack(NULL, size, data);
	}
	for (size_t k = 0; k < s.n_refs; k++) {
		Onnx__TensorProto *t = m->graph->initializer[s.refs[k].init_index];
		t->has_raw_data = 1;
		t->raw_data.data = (uint8_t *)data + s.refs[k].offset;
		t->raw_data.len = s.refs[k].len;
	}
	*refs = s.refs, *n_refs = s.n_refs;
	return m;
}

void ox_free_model(Onnx__ModelProto *m, struct ox_raw_ref *refs, size_t n_refs)
{
	if (!m)
		return;
	/* the borrowed bytes are not protobuf-c's to free */
	for (size_t k = 0; k < n_refs; k++) {
		Onnx__TensorProto *t = m->graph->initializer[refs[k].init_index];
		t->has_raw_data = 0;
		t->raw_data.data = NULL;
		t->raw_data.len = 0;
	}
	free(refs);
	onnx__model_proto__free_unpacked(m, NULL);
}
