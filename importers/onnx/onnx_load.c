/* The ONNX importer's driver: parses the model, binds inputs and initializers, walks the nodes through the op tables, builds. */
#include "importers/onnx/onnx_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Operators of the ONNX standard WebNN cannot express (no such primitive, and no composition
 * of static shape): each is a clear load error with this reason. */
static const struct {
	const char *type, *why;
} inexpressible[] = {
	{ "NonZero", "its output shape depends on the input values" },
	{ "Unique", "its output shape depends on the input values" },
	{ "Compress", "its output shape depends on the condition's values" },
	{ "NonMaxSuppression", "its output shape depends on the input values" },
	{ "BitShift", "WebNN has no bit shifts" },
	{ "BitwiseAnd", "WebNN has no bitwise operators" },
	{ "BitwiseOr", "WebNN has no bitwise operators" },
	{ "BitwiseXor", "WebNN has no bitwise operators" },
	{ "BitwiseNot", "WebNN has no bitwise operators" },
	{ "RandomNormal", "WebNN has no random number generation" },
	{ "RandomUniform", "WebNN has no random number generation" },
	{ "RandomNormalLike", "WebNN has no random number generation" },
	{ "RandomUniformLike", "WebNN has no random number generation" },
	{ "Multinomial", "WebNN has no random number generation" },
	{ "Bernoulli", "WebNN has no random number generation" },
	{ "Det", "WebNN has no determinant or matrix decomposition" },
	{ "RoiAlign", "WebNN has no region-of-interest pooling" },
	{ "MaxRoiPool", "WebNN has no region-of-interest pooling" },
	{ "Col2Im", "WebNN has no col2im (overlapping scatter-add)" },
	{ "StringNormalizer", "WebNN has no string tensors" },
	{ "TfIdfVectorizer", "WebNN has no n-gram counting" },
	{ "RegexFullMatch", "WebNN has no string tensors" },
	{ "StringConcat", "WebNN has no string tensors" },
	{ "StringSplit", "WebNN has no string tensors" },
	{ "ImageDecoder", "WebNN decodes no image formats" },
	{ "SequenceAt", "WebNN has no sequence values" },
	{ "SequenceConstruct", "WebNN has no sequence values" },
	{ "SequenceEmpty", "WebNN has no sequence values" },
	{ "SequenceErase", "WebNN has no sequence values" },
	{ "SequenceInsert", "WebNN has no sequence values" },
	{ "SequenceLength", "WebNN has no sequence values" },
	{ "SequenceMap", "WebNN has no sequence values" },
	{ "SplitToSequence", "WebNN has no sequence values" },
	{ "ConcatFromSequence", "WebNN has no sequence values" },
	{ "Optional", "WebNN has no optional values" },
	{ "OptionalGetElement", "WebNN has no optional values" },
	{ "OptionalHasElement", "WebNN has no optional values" },
	{ "Momentum", "a training operator (ai.onnx.preview.training)" },
	{ "Adam", "a training operator (ai.onnx.preview.training)" },
	{ "Adagrad", "a training operator (ai.onnx.preview.training)" },
	{ "Gradient", "a training operator (ai.onnx.preview.training)" },
	{ NULL, NULL },
};

static const struct ox_op *const op_tables[] = { ox_ops_elementwise, ox_ops_nn, ox_ops_data,
						 ox_ops_misc, ox_ops_resize, ox_ops_topk,
						 ox_ops_fourier, ox_ops_gridsample, ox_ops_control,
						 ox_ops_transformer };
static const struct ox_op *const contrib_tables[] = { ox_ops_contrib_transformer,
						      ox_ops_quantized };

/* ------------------------------------------------------------------ errors */

static const char *node_name(const Onnx__NodeProto *node)
{
	if (node->name && *node->name)
		return node->name;
	return node->n_output && node->output[0] ? node->output[0] : "";
}

static int model_fail(struct ox_model *M, enum webnn_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int model_fail(struct ox_model *M, enum webnn_status s, const char *fmt, ...)
{
	if (M->in_node) {
		/* the node's first reason; run_node lists it */
		if (M->node_status == WEBNN_STATUS_OK) {
			M->node_status = s;
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(M->node_error, sizeof(M->node_error), fmt, ap);
			va_end(ap);
		}
		return -1;
	}
	if (M->status == WEBNN_STATUS_OK || M->status == WEBNN_STATUS_NO_MEMORY) {
		M->status = s;
		if (M->error && M->len) {
			int k = snprintf(M->error, M->len, "onnx: ");
			va_list ap;
			va_start(ap, fmt);
			if (k > 0 && (size_t)k < M->len)
				vsnprintf(M->error + k, M->len - (size_t)k, fmt, ap);
			va_end(ap);
		}
	}
	return -1;
}

int ox_fail(struct ox_node *n, enum webnn_status s, const char *fmt, ...)
{
	char reason[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return model_fail(n->M, s, "node \"%s\" (%s): %s", node_name(n->node), n->node->op_type,
			  reason);
}

int ox_builder_fail(struct ox_node *n, enum webnn_status s, const char *what)
{
	/* libwebnn's message starts with the operator it was given ("add: ..."): what is only
	 * added when it says something more (a value's name, "indices"). */
	const char *msg = webnn_context_last_error(n->M->ctx);
	size_t k = strlen(what);
	if (strncmp(msg, what, k) == 0 && msg[k] == ':')
		return ox_fail(n, s, "%s", msg);
	return ox_fail(n, s, "%s: %s", what, msg);
}

/* ------------------------------------------------------------------ attributes */

const Onnx__AttributeProto *ox_attr(const struct ox_node *n, const char *name)
{
	for (size_t i = 0; i < n->node->n_attribute; i++)
		if (n->node->attribute[i]->name && strcmp(n->node->attribute[i]->name, name) == 0)
			return n->node->attribute[i];
	return NULL;
}

int64_t ox_attr_i(const struct ox_node *n, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = ox_attr(n, name);
	return a && a->has_i ? a->i : def;
}

float ox_attr_f(const struct ox_node *n, const char *name, float def)
{
	const Onnx__AttributeProto *a = ox_attr(n, name);
	return a && a->has_f ? a->f : def;
}

const char *ox_attr_s(struct ox_node *n, const char *name, const char *def)
{
	const Onnx__AttributeProto *a = ox_attr(n, name);
	if (!a || !a->has_s)
		return def;
	char *s = strndup((const char *)a->s.data, a->s.len);
	return s ? ox_keep(n->M, s) : def;
}

long ox_attr_ints(const struct ox_node *n, const char *name, const int64_t **v)
{
	const Onnx__AttributeProto *a = ox_attr(n, name);
	if (!a || (a->n_ints == 0 && a->has_type && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS))
		return -1;
	*v = a->ints;
	return (long)a->n_ints;
}

/* ------------------------------------------------------------------ values */

void *ox_keep(struct ox_model *M, void *p)
{
	if (!p)
		return NULL;
	if (M->n_owned == M->cap_owned) {
		size_t cap = M->cap_owned ? M->cap_owned * 2 : 64;
		void **o = realloc(M->owned, cap * sizeof(*o));
		if (!o) {
			free(p);
			return NULL;
		}
		M->owned = o;
		M->cap_owned = cap;
	}
	M->owned[M->n_owned++] = p;
	return p;
}

size_t ox_name_hash(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static struct ox_val *find_val(struct ox_model *M, const char *name)
{
	if (!M->hash_cap)
		return NULL;
	for (size_t h = ox_name_hash(name) & (M->hash_cap - 1);; h = (h + 1) & (M->hash_cap - 1)) {
		size_t k = M->hash[h];
		if (!k)
			return NULL;
		if (strcmp(M->vals[k - 1].name, name) == 0)
			return &M->vals[k - 1];
	}
}

/* Adds (or replaces: ONNX forbids it, but a later producer simply wins) a value by name. */
static struct ox_val *add_val(struct ox_model *M, const struct ox_val *v)
{
	struct ox_val *old = find_val(M, v->name);
	if (old) {
		if (old->host_owned)
			free(old->host);
		*old = *v;
		return old;
	}
	if (M->n_vals == M->cap_vals) {
		size_t cap = M->cap_vals ? M->cap_vals * 2 : 256;
		struct ox_val *nv = realloc(M->vals, cap * sizeof(*nv));
		if (!nv)
			return NULL;
		M->vals = nv;
		M->cap_vals = cap;
	}
	if ((M->n_vals + 1) * 2 > M->hash_cap) {
		size_t cap = M->hash_cap ? M->hash_cap * 2 : 512;
		size_t *nh = calloc(cap, sizeof(*nh));
		if (!nh)
			return NULL;
		free(M->hash);
		M->hash = nh;
		M->hash_cap = cap;
		for (size_t i = 0; i < M->n_vals; i++) {
			size_t h = ox_name_hash(M->vals[i].name) & (cap - 1);
			while (M->hash[h])
				h = (h + 1) & (cap - 1);
			M->hash[h] = i + 1;
		}
	}
	M->vals[M->n_vals] = *v;
	size_t h = ox_name_hash(v->name) & (M->hash_cap - 1);
	while (M->hash[h])
		h = (h + 1) & (M->hash_cap - 1);
	M->hash[h] = ++M->n_vals;
	return &M->vals[M->n_vals - 1];
}

int64_t ox_f2i(double d)
{
	if (isnan(d))
		return 0;
	if (d >= 9223372036854775807.0)
		return INT64_MAX;
	if (d <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)d;
}

size_t ox_elems(uint32_t rank, const uint32_t *dims)
{
	size_t n = 1;
	for (uint32_t i = 0; i < rank; i++)
		n *= dims[i];
	return n;
}

size_t ox_bytes(enum webnn_data_type t, uint32_t rank, const uint32_t *dims)
{
	return (size_t)webnn_data_type_byte_length(t, ox_elems(rank, dims));
}

void ox_desc(struct webnn_operand *x, struct webnn_operand_desc *d)
{
	webnn_operand_get_desc(x, d);
}

/* webnn_builder_constant_borrowed's `sent`: webnnd has a mapped initializer's bytes. */
static void mapped_sent(void *arg, const void *data, size_t size)
{
	(void)arg;
	wnni_drop_pages(data, size);
}

int ox_val_host(struct ox_node *n, struct ox_val *v)
{
	if (v->host || !v->mapped)
		return 0;
	size_t bytes = ox_bytes(v->type, v->rank, v->dims);
	if (!(v->host = malloc(bytes + 1))) {
		n->M->fatal = true;
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	}
	memcpy(v->host, v->mapped, bytes);
	v->host_owned = true;
	wnni_drop_pages(v->mapped, bytes);
	v->mapped = NULL;
	return 0;
}

struct webnn_operand *ox_operand(struct ox_node *n, struct ox_val *v)
{
	if (v->op)
		return v->op;
	if (!v->host && v->mapped) {
		struct webnn_operand_desc d = { v->type, v->rank, { 0 } };
		memcpy(d.shape, v->dims, sizeof(v->dims[0]) * v->rank);
		enum webnn_status s = webnn_builder_constant_borrowed(
			n->M->b, &d, v->mapped, ox_bytes(v->type, v->rank, v->dims), mapped_sent,
			NULL, &v->op);
		if (s != WEBNN_STATUS_OK) {
			ox_builder_fail(n, s, v->name);
			return NULL;
		}
		v->constant = true;
		return v->op;
	}
	if (!v->host) {
		ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "value \"%s\" has no operand", v->name);
		return NULL;
	}
	if (ox_elems(v->rank, v->dims) == 0) {
		ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "\"%s\" is empty (WebNN has no empty tensors)",
			v->name);
		return NULL;
	}
	struct webnn_operand_desc d = { v->type, v->rank, { 0 } };
	memcpy(d.shape, v->dims, sizeof(v->dims[0]) * v->rank);
	size_t bytes = ox_bytes(v->type, v->rank, v->dims);
	enum webnn_status s = webnn_builder_constant(n->M->b, &d, v->host, bytes, &v->op);
	if (s != WEBNN_STATUS_OK) {
		ox_builder_fail(n, s, v->name);
		return NULL;
	}
	v->constant = true;
	/* Weights live on in the builder (until build uploads them): the importer's copy of
	 * values too large to fold goes now, so a model is not held twice. */
	if (v->host_owned && ox_elems(v->rank, v->dims) > OX_FOLD_MAX_ELEMS) {
		free(v->host);
		v->host = NULL;
		v->host_owned = false;
	}
	return v->op;
}

bool ox_has_in(const struct ox_node *n, size_t i)
{
	return i < n->n_in && n->in[i];
}

int ox_set(struct ox_node *n, size_t i, struct webnn_operand *op)
{
	if (i >= n->n_out)
		return 0; /* an output the model does not name */
	struct webnn_operand_desc d;
	webnn_operand_get_desc(op, &d);
	struct ox_val *v = &n->out[i];
	memset(v, 0, sizeof(*v));
	v->op = op;
	v->type = d.data_type;
	v->onnx_type = ox_onnx_type_of(d.data_type);
	v->rank = d.rank;
	memcpy(v->dims, d.shape, sizeof(d.shape[0]) * d.rank);
	n->out_set[i] = true;
	return 0;
}

int ox_set_host(struct ox_node *n, size_t i, int onnx_type, uint32_t rank, const uint32_t *dims,
		void *data)
{
	if (i >= n->n_out) {
		free(data);
		return 0;
	}
	struct ox_val *v = &n->out[i];
	memset(v, 0, sizeof(*v));
	if (!ox_webnn_type(onnx_type, &v->type)) {
		free(data);
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "data type %s has no WebNN equivalent",
			       ox_type_name(onnx_type));
	}
	v->onnx_type = onnx_type;
	v->rank = rank;
	if (rank)
		memcpy(v->dims, dims, sizeof(dims[0]) * rank);
	v->host = data;
	v->host_owned = true;
	n->out_set[i] = true;
	return 0;
}

static double elem_f64(const struct ox_val *v, size_t i)
{
	switch (v->type) {
	case WEBNN_FLOAT32: return ((const float *)v->host)[i];
	case WEBNN_FLOAT16: return webnn_float16_to_float32(((const uint16_t *)v->host)[i]);
	case WEBNN_INT32: return ((const int32_t *)v->host)[i];
	case WEBNN_UINT32: return ((const uint32_t *)v->host)[i];
	case WEBNN_INT64: return (double)((const int64_t *)v->host)[i];
	case WEBNN_UINT64: return (double)((const uint64_t *)v->host)[i];
	case WEBNN_INT8: return ((const int8_t *)v->host)[i];
	case WEBNN_UINT8: return ((const uint8_t *)v->host)[i];
	case WEBNN_INT4:
	case WEBNN_UINT4: { /* two per byte, the first in the low nibble */
		unsigned nib = (((const uint8_t *)v->host)[i >> 1] >> ((i & 1) * 4)) & 15;
		return v->type == WEBNN_INT4 ? (double)(((int)nib ^ 8) - 8) : nib;
	}
	}
	return 0;
}

/* An array of one element size for each of v's host elements (kept with the model); NULL (the
 * error set) where v is computed at run time or memory is short. */
static void *host_array(struct ox_node *n, const struct ox_val *v, const char *what, size_t esz,
			size_t *count)
{
	if (!v || !v->host) {
		ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			"%s is computed at run time; WebNN needs it when the graph is built", what);
		return NULL;
	}
	*count = ox_elems(v->rank, v->dims);
	void *o = ox_keep(n->M, malloc((*count ? *count : 1) * esz));
	if (!o)
		ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	return o;
}

int ox_host_f64(struct ox_node *n, const struct ox_val *v, const char *what, double **out,
		size_t *count)
{
	size_t c;
	double *o = host_array(n, v, what, sizeof(*o), &c);
	if (!o)
		return -1;
	for (size_t i = 0; i < c; i++)
		o[i] = elem_f64(v, i);
	*out = o;
	*count = c;
	return 0;
}

int ox_host_i64(struct ox_node *n, const struct ox_val *v, const char *what, int64_t **out,
		size_t *count)
{
	size_t c;
	int64_t *o = host_array(n, v, what, sizeof(*o), &c);
	if (!o)
		return -1;
	for (size_t i = 0; i < c; i++) {
		if (v->type == WEBNN_INT64)
			o[i] = ((const int64_t *)v->host)[i];
		else if (v->type == WEBNN_UINT64)
			o[i] = (int64_t)((const uint64_t *)v->host)[i];
		else
			o[i] = ox_f2i(elem_f64(v, i));
	}
	*out = o;
	*count = c;
	return 0;
}

/* ------------------------------------------------------------------ builder helpers */

/* Operators whose importers read large initializers only through ox_operand (folding looks
 * at small ones alone): those keep a mapped initializer in the file. */
static bool borrows_operands(const Onnx__NodeProto *node)
{
	static const char *const ops[] = { "MatMul", "Add", "Sub", "Mul", "Div" };
	const char *domain = node->domain ? node->domain : "";
	if (*domain && strcmp(domain, "ai.onnx") != 0)
		return false;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (node->op_type && strcmp(node->op_type, ops[i]) == 0)
			return true;
	return false;
}

struct webnn_operand *ox_const(struct ox_node *n, enum webnn_data_type t, uint32_t rank,
			       const uint32_t *dims, const void *data)
{
	struct webnn_operand_desc d = { t, rank, { 0 } };
	if (rank)
		memcpy(d.shape, dims, sizeof(dims[0]) * rank);
	struct webnn_operand *o = NULL;
	enum webnn_status s = webnn_builder_constant(n->M->b, &d, data,
						     ox_bytes(t, rank, dims),
						     &o);
	if (s != WEBNN_STATUS_OK) {
		ox_builder_fail(n, s, "constant");
		return NULL;
	}
	return o;
}

struct webnn_operand *ox_scalar(struct ox_node *n, enum webnn_data_type t, double v)
{
	struct webnn_operand *o = NULL;
	enum webnn_status s;
	if (t == WEBNN_INT64 || t == WEBNN_UINT64 || t == WEBNN_INT32 || t == WEBNN_UINT32)
		s = webnn_builder_constant_scalar_int(n->M->b, t, ox_f2i(v), &o);
	else
		s = webnn_builder_constant_scalar(n->M->b, t, v, &o);
	if (s != WEBNN_STATUS_OK) {
		ox_builder_fail(n, s, "constant");
		return NULL;
	}
	return o;
}

struct webnn_operand *ox_reshape(struct ox_node *n, struct webnn_operand *x, uint32_t rank,
				 const uint32_t *dims)
{
	struct webnn_operand *o = NULL;
	enum webnn_status s = webnn_builder_reshape(n->M->b, x, dims, rank, &o);
	if (s != WEBNN_STATUS_OK) {
		ox_builder_fail(n, s, "reshape");
		return NULL;
	}
	return o;
}

int ox_axis(struct ox_node *n, int64_t axis, uint32_t rank, uint32_t *out)
{
	if (axis < -(int64_t)rank || axis >= (int64_t)(rank ? rank : 1))
		return ox_fail(n, WEBNN_STATUS_TYPE_ERROR, "axis %lld is out of range for rank %u",
			       (long long)axis, rank);
	*out = (uint32_t)(axis < 0 ? axis + rank : axis);
	return 0;
}

int ox_need_type(struct ox_node *n, const char *op, const char *role, enum webnn_data_type t)
{
	struct webnn_tensor_limits lim;
	bool found = false;
	if (role) {
		found = webnn_context_op_limits(n->M->ctx, op, role, &lim);
	} else {
		/* The operator's first role: its main input. */
		const char *o, *r;
		for (size_t i = 0; webnn_context_op_limit_at(n->M->ctx, i, &o, &r, &lim); i++)
			if (strcmp(o, op) == 0) {
				found = true;
				role = r;
				break;
			}
	}
	if (!found)
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "this context has no WebNN %s", op);
	if (!(lim.data_types & (1u << t)))
		return ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "WebNN %s does not take %s (%s)", op,
			       webnn_data_type_name(t), role);
	return 0;
}

/* ------------------------------------------------------------------ the load */

static int opset_of(struct ox_model *M, const Onnx__ModelProto *model, int *opset)
{
	*opset = -1;
	for (size_t i = 0; i < model->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = model->opset_import[i];
		if (!o->domain || !*o->domain || strcmp(o->domain, "ai.onnx") == 0)
			*opset = o->has_version ? (int)o->version : 1;
	}
	if (*opset < 0)
		*opset = 1; /* IR version 2 models have no opset import: opset 1 */
	/* Opsets 1-6 load where an operator's mapping covers them (the table's ranges). */
	if (*opset < 1 || *opset > 21)
		return model_fail(M, WEBNN_STATUS_NOT_SUPPORTED,
				  "opset %d: this importer maps opsets up to 21", *opset);
	return 0;
}

/* The binding of input's axis (named dname, "" when unnamed): by name first, then by position
 * "input:axis". Marks the bindings used; *found false when none applies. */
static uint32_t bound_dim(struct ox_model *M, const char *input, uint32_t axis, const char *dname,
			  bool *found)
{
	*found = false;
	uint32_t value = 0;
	for (int by_name = 1; by_name >= 0 && !*found; by_name--)
		for (size_t i = 0; M->opt && i < M->opt->n_dims; i++) {
			const char *b = M->opt->dims[i].name;
			if (!b)
				continue;
			bool match;
			if (by_name) {
				match = *dname && strcmp(b, dname) == 0;
			} else {
				const char *colon = strrchr(b, ':');
				char *end;
				unsigned long a = colon ? strtoul(colon + 1, &end, 10) : 0;
				match = colon && colon[1] >= '0' && colon[1] <= '9' && !*end &&
					a == axis && strlen(input) == (size_t)(colon - b) &&
					strncmp(b, input, (size_t)(colon - b)) == 0;
			}
			if (match && !*found) {
				*found = true;
				value = M->opt->dims[i].value;
			}
			if (match)
				M->dim_used[i] = true;
		}
	return value;
}

static int note_free_dim(struct ox_model *M, const char *input, uint32_t axis, const char *dname,
			 bool bound)
{
	struct ox_free_dim *f = realloc(M->free_dims, (M->n_free_dims + 1) * sizeof(*f));
	if (!f)
		return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
	M->free_dims = f;
	f[M->n_free_dims++] = (struct ox_free_dim){ dname, input, axis, bound };
	return 0;
}

/* '"N" (x:0, mask:0), x:1 (unnamed)' for the free dimensions (only the unbound ones when
 * unbound_only; a name bound anywhere is bound everywhere); the count of dimensions listed. */
static size_t list_free_dims(const struct ox_model *M, bool unbound_only, char *buf, size_t len,
			     char *hint, size_t hint_len)
{
	size_t listed = 0, k = 0, h = 0;
	buf[0] = 0;
	if (hint_len)
		hint[0] = 0;
	for (size_t i = 0; i < M->n_free_dims; i++) {
		const struct ox_free_dim *f = &M->free_dims[i];
		if (unbound_only && f->bound)
			continue;
		bool seen = false;
		for (size_t j = 0; j < i && *f->name; j++)
			seen |= strcmp(M->free_dims[j].name, f->name) == 0 &&
				(!unbound_only || !M->free_dims[j].bound);
		if (seen)
			continue;
		char one[512];
		int o;
		if (*f->name) {
			o = snprintf(one, sizeof(one), "\"%s\" (", f->name);
			for (size_t j = i, first = 1; j < M->n_free_dims && o < (int)sizeof(one); j++)
				if (strcmp(M->free_dims[j].name, f->name) == 0) {
					o += snprintf(one + o, sizeof(one) - (size_t)o, "%s%s:%u",
						      first ? "" : ", ", M->free_dims[j].input,
						      M->free_dims[j].axis);
					first = 0;
				}
			if (o < (int)sizeof(one))
				snprintf(one + o, sizeof(one) - (size_t)o, ")");
		} else {
			snprintf(one, sizeof(one), "%s:%u (unnamed)", f->input, f->axis);
		}
		if (k < len)
			k += (size_t)snprintf(buf + k, len - k, "%s%s", listed ? ", " : "", one);
		if (h < hint_len) {
			if (*f->name)
				h += (size_t)snprintf(hint + h, hint_len - h, "%s--dim %s=<size>",
						      listed ? " " : "", f->name);
			else
				h += (size_t)snprintf(hint + h, hint_len - h, "%s--dim %s:%u=<size>",
						      listed ? " " : "", f->input, f->axis);
		}
		listed++;
	}
	return listed;
}

/* After the inputs: every free dimension bound, and every binding naming one. */
static int check_dim_bindings(struct ox_model *M)
{
	char list[640], hint[384], unused[384];
	size_t n_unused = 0, k = 0;
	for (size_t i = 0; M->opt && i < M->opt->n_dims; i++)
		if (!M->dim_used[i] && k < sizeof(unused))
			k += (size_t)snprintf(unused + k, sizeof(unused) - k, "%s\"%s\"",
					      n_unused++ ? ", " : "",
					      M->opt->dims[i].name ? M->opt->dims[i].name : "(null)");
	if (n_unused) {
		size_t n = list_free_dims(M, false, list, sizeof(list), hint, 0);
		return model_fail(M, WEBNN_STATUS_TYPE_ERROR,
				  "dimension binding%s %s name%s no free dimension of the model; %s%s",
				  n_unused > 1 ? "s" : "", unused, n_unused > 1 ? "" : "s",
				  n ? "its free dimensions: " : "it has none", n ? list : "");
	}
	/* A trial load (inspect) takes unbound dimensions as 1; the info lists them. */
	size_t n = list_free_dims(M, true, list, sizeof(list), hint, sizeof(hint));
	if (n && !M->inspect)
		return model_fail(M, WEBNN_STATUS_TYPE_ERROR,
				  "%zu free dimension%s not bound: %s; bind %s by name or as "
				  "input:axis (%s)", n, n > 1 ? "s are" : " is", list,
				  n > 1 ? "each" : "it", hint);
	return 0;
}

static int add_input(struct ox_model *M, const Onnx__ValueInfoProto *vi)
{
	const char *name = vi->name ? vi->name : "";
	const Onnx__TypeProto *tp = vi->type;
	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
		return model_fail(M, WEBNN_STATUS_NOT_SUPPORTED,
				  "input \"%s\": not a tensor (WebNN has no sequence, map or "
				  "optional values)", name);
	const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
	struct ox_val v = { 0 };
	v.name = name;
	v.onnx_type = tt->has_elem_type ? tt->elem_type : 0;
	if (!ox_webnn_type(v.onnx_type, &v.type))
		return model_fail(M, WEBNN_STATUS_NOT_SUPPORTED,
				  "input \"%s\": data type %s has no WebNN equivalent", name,
				  ox_type_name(v.onnx_type));
	if (!tt->shape)
		return model_fail(M, WEBNN_STATUS_NOT_SUPPORTED,
				  "input \"%s\": no shape (WebNN graphs have static shapes)", name);
	if (tt->shape->n_dim > WEBNN_MAX_RANK)
		return model_fail(M, WEBNN_STATUS_NOT_SUPPORTED,
				  "input \"%s\": rank %zu, more than WebNN's %d", name,
				  tt->shape->n_dim, WEBNN_MAX_RANK);
	v.rank = (uint32_t)tt->shape->n_dim;
	for (uint32_t i = 0; i < v.rank; i++) {
		const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
			if (d->dim_value < 0 || d->dim_value > UINT32_MAX)
				return model_fail(M, WEBNN_STATUS_DATA_ERROR,
						  "input \"%s\": dimension %u is %lld", name, i,
						  (long long)d->dim_value);
			v.dims[i] = (uint32_t)d->dim_value;
		} else {
			/* free: named (dim_param), or with neither a size nor a name */
			bool named = d->value_case ==
					     ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
				     d->dim_param && *d->dim_param;
			const char *dname = named ? d->dim_param : "";
			bool found;
			v.dims[i] = bound_dim(M, name, i, dname, &found);
			if (note_free_dim(M, name, i, dname, found) != 0)
				return -1;
			if (found && !v.dims[i])
				return model_fail(M, WEBNN_STATUS_NOT_SUPPORTED,
						  "input \"%s\": dimension %u (%s%s%s) is bound to 0 "
						  "(WebNN has no empty tensors)", name, i,
						  named ? "\"" : "unnamed", named ? dname : "",
						  named ? "\"" : "");
			if (!found)
				v.dims[i] = 1; /* check_dim_bindings reports it (or inspect) */
		}
	}
	uint64_t total = 1;
	for (uint32_t i = 0; i < v.rank; i++)
		total = total > ((uint64_t)1 << 40) ? total : total * v.dims[i];
	if (total > ((uint64_t)1 << 40))
		return model_fail(M, WEBNN_STATUS_NOT_SUPPORTED,
				  "input \"%s\": more than 2^40 elements", name);
	if (ox_elems(v.rank, v.dims) == 0) {
		/* An empty input carries no data: its value (nothing) is known now, and a node
		 * may use it as such (empty axes); WebNN itself has no empty tensors. */
		v.host = malloc(1);
		v.host_owned = true;
		if (!v.host || !add_val(M, &v)) {
			free(v.host);
			return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
		}
		return 0;
	}
	struct webnn_operand_desc d = { v.type, v.rank, { 0 } };
	memcpy(d.shape, v.dims, sizeof(v.dims[0]) * v.rank);
	enum webnn_status s = webnn_builder_input(M->b, name, &d, &v.op);
	if (s != WEBNN_STATUS_OK)
		return model_fail(M, s, "input \"%s\": %s", name, webnn_context_last_error(M->ctx));
	return add_val(M, &v) ? 0 : model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
}

static const struct webnn_input_binding *find_bind(const struct ox_model *M, const char *name)
{
	for (size_t i = 0; M->opt && i < M->opt->n_binds; i++)
		if (M->opt->binds[i].name && strcmp(M->opt->binds[i].name, name) == 0)
			return &M->opt->binds[i];
	return NULL;
}

/* The inputs the caller froze (options.binds) become host values, known at load time like
 * initializers (a binding replaces an initializer's default). Each binding must name a graph
 * input and agree with its declared type and sizes. */
static int bind_inputs(struct ox_model *M, const Onnx__GraphProto *g)
{
	for (size_t b = 0; M->opt && b < M->opt->n_binds; b++) {
		const struct webnn_input_binding *bd = &M->opt->binds[b];
		const char *name = bd->name ? bd->name : "";
		const Onnx__ValueInfoProto *vi = NULL;
		for (size_t i = 0; i < g->n_input && !vi; i++)
			if (g->input[i]->name && strcmp(g->input[i]->name, name) == 0)
				vi = g->input[i];
		if (!vi) {
			char names[512] = "";
			size_t k = 0;
			for (size_t i = 0; i < g->n_input && k + 1 < sizeof(names); i++) {
				int w = snprintf(names + k, sizeof(names) - k, "%s\"%s\"",
						 k ? ", " : "", g->input[i]->name ? g->input[i]->name : "");
				if (w < 0)
					break;
				k += (size_t)w;
			}
			return model_fail(M, WEBNN_STATUS_TYPE_ERROR,
					  "bound input \"%s\" is not an input of the model (its "
					  "inputs: %s)", name, g->n_input ? names : "none");
		}
		for (size_t j = 0; j < b; j++)
			if (M->opt->binds[j].name && strcmp(M->opt->binds[j].name, name) == 0)
				return model_fail(M, WEBNN_STATUS_TYPE_ERROR,
						  "input \"%s\" is bound twice", name);
		const struct webnn_operand_desc *d = &bd->desc;
		if (!webnn_data_type_name(d->data_type))
			return model_fail(M, WEBNN_STATUS_TYPE_ERROR,
					  "bound input \"%s\": data type %d is not a WebNN data type",
					  name, (int)d->data_type);
		if (d->rank > WEBNN_MAX_RANK)
			return model_fail(M, WEBNN_STATUS_TYPE_ERROR,
					  "bound input \"%s\": rank %u, more than %d", name,
					  d->rank, WEBNN_MAX_RANK);
		const Onnx__TypeProto *tp = vi->type;
		const Onnx__TypeProto__Tensor *tt =
			tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? tp->tensor_type
										 : NULL;
		enum webnn_data_type want;
		if (tt && tt->has_elem_type && ox_webnn_type(tt->elem_type, &want) &&
		    want != d->data_type)
			return model_fail(M, WEBNN_STATUS_TYPE_ERROR,
					  "bound input \"%s\": the value is %s, the model declares "
					  "%s", name, webnn_data_type_name(d->data_type),
					  ox_type_name(tt->elem_type));
		if (tt && tt->shape) {
			bool ok = tt->shape->n_dim == d->rank;
			for (size_t i = 0; ok && i < d->rank; i++) {
				const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[i];
				ok = dm->value_case !=
					     ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ||
				     dm->dim_value == (int64_t)d->shape[i];
			}
			if (!ok)
				return model_fail(M, WEBNN_STATUS_TYPE_ERROR,
						  "bound input \"%s\": the value's shape (rank %u) "
						  "differs from the model's declaration (rank %zu)",
						  name, d->rank, tt->shape->n_dim);
		}
		struct ox_val v = { 0 };
		v.name = vi->name;
		v.type = d->data_type;
		v.onnx_type = tt && tt->has_elem_type ? tt->elem_type : ox_onnx_type_of(d->data_type);
		v.rank = d->rank;
		memcpy(v.dims, d->shape, sizeof(d->shape[0]) * d->rank);
		size_t bytes = ox_bytes(v.type, v.rank, v.dims);
		if (bd->size != bytes || (bytes && !bd->data))
			return model_fail(M, WEBNN_STATUS_TYPE_ERROR,
					  "bound input \"%s\": %zu bytes of data, its %s shape "
					  "takes %zu", name, bd->data ? bd->size : 0,
					  webnn_data_type_name(v.type), bytes);
		v.host = malloc(bytes + 1);
		if (!v.host)
			return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
		if (bytes)
			memcpy(v.host, bd->data, bytes);
		v.host_owned = true;
		if (!add_val(M, &v)) {
			free(v.host);
			return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
		}
	}
	return 0;
}

static const struct ox_op *find_op(const struct ox_op *const *tables, size_t n_tables,
				   const char *type, int opset, int *nearest)
{
	*nearest = 0;
	for (size_t t = 0; t < n_tables; t++) {
		for (const struct ox_op *o = tables[t]; o->type; o++)
			if (strcmp(o->type, type) == 0) {
				if (opset >= o->since && opset <= o->until)
					return o;
				*nearest = o->since;
			}
	}
	return NULL;
}

/* Lists the reason of the node that just failed (once: a loop unrolled many times repeats it). */
static void list_node_error(struct ox_model *M)
{
	if (M->node_status == WEBNN_STATUS_NO_MEMORY)
		M->fatal = true;
	for (size_t i = 0; i < M->n_node_errors; i++)
		if (strcmp(M->node_errors[i], M->node_error) == 0)
			return;
	if (M->n_node_errors == M->cap_node_errors) {
		size_t cap = M->cap_node_errors ? M->cap_node_errors * 2 : 16;
		char **e = realloc(M->node_errors, cap * sizeof(*e));
		if (!e) {
			M->fatal = true;
			return;
		}
		M->node_errors = e;
		M->cap_node_errors = cap;
	}
	char *copy = ox_keep(M, strdup(M->node_error));
	if (!copy) {
		M->fatal = true;
		return;
	}
	if (!M->n_node_errors)
		M->node_errors_status = M->node_status;
	M->node_errors[M->n_node_errors++] = copy;
}

/* Runs one node: its outputs join the table. A failure is listed and marks the outputs failed
 * (their consumers then skip without a reason of their own); only running out of memory stops
 * the walk (-1). */
static int run_node(struct ox_model *M, const Onnx__NodeProto *node, int opset)
{
	if (M->fatal)
		return -1;
	static struct ox_node zero;
	struct ox_node *n = malloc(sizeof(*n));
	if (!n) {
		M->fatal = true;
		return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
	}
	*n = zero;
	n->M = M;
	n->node = node;
	n->opset = opset;
	/* a node inside a graph attribute runs while its If/Loop/Scan node does */
	bool was_in = M->in_node;
	enum webnn_status was_status = M->node_status;
	char *was_error = was_status != WEBNN_STATUS_OK ? strdup(M->node_error) : NULL;
	M->in_node = true;
	M->node_status = WEBNN_STATUS_OK;
	bool skipped = false;
	int rc = -1;
	const char *type = node->op_type ? node->op_type : "";
	if (++M->n_node_runs > OX_MAX_NODE_RUNS) {
		ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "more than %u node runs in one load (loops "
			"unrolled inside loops?): refused", OX_MAX_NODE_RUNS);
		M->fatal = true;
		goto out;
	}
	const char *domain = node->domain ? node->domain : "";
	bool contrib = strcmp(domain, OX_CONTRIB_DOMAIN) == 0;
	if (*domain && !contrib && strcmp(domain, "ai.onnx") != 0) {
		ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
			"operator domain \"%s\" is neither ai.onnx nor " OX_CONTRIB_DOMAIN, domain);
		goto out;
	}
	if (node->n_input > OX_MAX_IO || node->n_output > OX_MAX_IO) {
		ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "more than %d inputs or outputs", OX_MAX_IO);
		goto out;
	}
	n->n_in = node->n_input;
	n->n_out = node->n_output;
	for (size_t i = 0; i < node->n_input; i++) {
		if (!node->input[i] || !*node->input[i])
			continue;
		n->in[i] = find_val(M, node->input[i]);
		if (!n->in[i]) {
			ox_fail(n, WEBNN_STATUS_TYPE_ERROR,
				"input \"%s\" is neither a graph input, an initializer nor the "
				"output of an earlier node", node->input[i]);
			goto out;
		}
		if (n->in[i]->failed) {
			skipped = true; /* its producer's reason is listed */
			goto out;
		}
		/* operators that take large initializers only as operands borrow them; the
		 * others may read them as host values */
		if (n->in[i]->mapped && !n->in[i]->op && !borrows_operands(node) &&
		    ox_val_host(n, n->in[i]) != 0)
			goto out;
	}
	int nearest;
	const struct ox_op *op =
		contrib ? find_op(contrib_tables, sizeof(contrib_tables) / sizeof(contrib_tables[0]),
				  type, 1, &nearest)
			: find_op(op_tables, sizeof(op_tables) / sizeof(op_tables[0]), type, opset,
				  &nearest);
	if (!op && contrib) {
		ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "unknown operator \"%s\" in domain "
			OX_CONTRIB_DOMAIN, type);
		goto out;
	}
	if (!op) {
		for (size_t i = 0; inexpressible[i].type; i++)
			if (strcmp(inexpressible[i].type, type) == 0) {
				ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "WebNN cannot express %s: %s",
					type, inexpressible[i].why);
				goto out;
			}
		if (nearest)
			ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED,
				"opset %d's %s is not mapped (the mapping covers opset %d on)",
				opset, type, nearest);
		else
			ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "unknown operator \"%s\"", type);
		goto out;
	}
	/* A dequantized int8/uint8 weight stays dequantizeLinear of the quantized constant: the
	 * daemon runs the product that reads it on the quantized values where its backend can
	 * (graph_fuse_qdq: a QDQ model's Conv/MatMul/Gemm), or folds it there. */
	bool quantized_weight = !contrib && strcmp(type, "DequantizeLinear") == 0 && n->n_in &&
				n->in[0] && (n->in[0]->type == WEBNN_INT8 || n->in[0]->type == WEBNN_UINT8);
	int known = quantized_weight ? 0 : ox_eval_known(n, op->fn);
	if (known < 0 || (known == 0 && op->fn(n) != 0))
		goto out;
	for (size_t i = 0; i < node->n_output; i++) {
		if (!node->output[i] || !*node->output[i])
			continue;
		if (!n->out_set[i]) {
			ox_fail(n, WEBNN_STATUS_NOT_SUPPORTED, "output %zu (\"%s\") is not computed",
				i, node->output[i]);
			goto out;
		}
	}
	for (size_t i = 0; i < node->n_output; i++) {
		if (!node->output[i] || !*node->output[i])
			continue;
		n->out[i].name = node->output[i];
		if (!add_val(M, &n->out[i])) {
			model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
			goto out;
		}
		n->out_set[i] = false; /* now owned by the table */
	}
	rc = 0;
out:
	for (size_t i = 0; i < OX_MAX_IO; i++)
		if (n->out_set[i] && n->out[i].host_owned)
			free(n->out[i].host);
	if (rc != 0) {
		if (M->node_status != WEBNN_STATUS_OK)
			list_node_error(M);
		else if (!skipped && !M->n_node_errors) {
			/* a builder that failed without a reason (one that read a failed value of
			 * an outer scope has its reason listed already): still a listed failure */
			snprintf(M->node_error, sizeof(M->node_error), "node \"%s\" (%s): failed",
				 node_name(node), type);
			M->node_status = WEBNN_STATUS_OPERATION_ERROR;
			list_node_error(M);
		}
		for (size_t i = 0; i < node->n_output && !M->fatal; i++) {
			if (!node->output[i] || !*node->output[i])
				continue;
			struct ox_val f = { .name = node->output[i], .failed = true };
			if (!add_val(M, &f))
				M->fatal = true;
		}
	}
	M->in_node = was_in;
	M->node_status = was_status;
	if (was_error) {
		snprintf(M->node_error, sizeof(M->node_error), "%s", was_error);
		free(was_error);
	}
	free(n);
	return M->fatal ? -1 : 0;
}

static bool ox_is_initializer(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0)
			return true;
	return false;
}

static void free_model(struct ox_model *M)
{
	for (size_t i = 0; i < M->n_vals; i++)
		if (M->vals[i].host_owned)
			free(M->vals[i].host);
	for (size_t i = 0; i < M->n_owned; i++)
		free(M->owned[i]);
	free(M->owned);
	free(M->node_errors);
	free(M->free_dims);
	free(M->vals);
	free(M->hash);
	webnn_builder_destroy(M->b);
}

/* A graph's initializers join the table (progress: report it, for the model's own graph). */
static int add_initializers(struct ox_model *M, const Onnx__GraphProto *g, bool progress)
{
	for (size_t i = 0; i < g->n_initializer; i++) {
		const Onnx__TensorProto *t = g->initializer[i];
		struct ox_val v = { 0 };
		v.name = t->name ? t->name : "";
		size_t size;
		char msg[512];
		enum webnn_status s = WEBNN_STATUS_OK;
		/* A large one whose bytes in the mapped file are already WebNN's stays there: the
		 * builder reads it when it sends it, and its pages go then (ox_operand). */
		if (M->file_mapped &&
		    (v.mapped = ox_tensor_view(t, &v.onnx_type, &v.rank, v.dims)) &&
		    ox_elems(v.rank, v.dims) > OX_FOLD_MAX_ELEMS) {
			ox_webnn_type(v.onnx_type, &v.type);
			if (!add_val(M, &v))
				return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
			continue;
		}
		v.mapped = NULL;
		if (ox_tensor_decode(t, M->base_dir, &v.onnx_type, &v.rank, v.dims, &v.host, &size,
				     msg, sizeof(msg), &s) != 0)
			return model_fail(M, s, "initializer %s", msg);
		/* decoded: a mapped file's pages of it are no longer needed in memory */
		if (M->file_mapped && t->has_raw_data)
			wnni_drop_pages(t->raw_data.data, t->raw_data.len);
		ox_webnn_type(v.onnx_type, &v.type);
		v.host_owned = true;
		if (!add_val(M, &v)) {
			free(v.host);
			return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
		}
		if (progress && M->opt && M->opt->progress && g->n_initializer > 1)
			M->opt->progress(M->opt->user_data, 0.9 * (double)(i + 1) / g->n_initializer);
	}
	if (g->n_sparse_initializer)
		return model_fail(M, WEBNN_STATUS_NOT_SUPPORTED,
				  "sparse initializers are not supported");
	return 0;
}

struct ox_val *ox_find(struct ox_model *M, const char *name)
{
	return find_val(M, name);
}

int ox_clone(struct ox_node *n, const struct ox_val *v, struct ox_val *dst)
{
	*dst = *v;
	dst->host_owned = false;
	if (!v->host)
		return 0;
	size_t bytes = ox_bytes(v->type, v->rank, v->dims);
	if (!(dst->host = malloc(bytes + 1))) {
		n->M->fatal = true;
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	}
	memcpy(dst->host, v->host, bytes);
	dst->host_owned = true;
	return 0;
}

void ox_val_release(struct ox_val *v)
{
	if (v->host_owned)
		free(v->host);
	v->host = NULL;
	v->host_owned = false;
}

int ox_define(struct ox_node *n, const char *name, const struct ox_val *v)
{
	struct ox_val c;
	if (ox_clone(n, v, &c))
		return -1;
	c.name = name;
	if (!add_val(n->M, &c)) {
		ox_val_release(&c);
		n->M->fatal = true;
		return ox_fail(n, WEBNN_STATUS_NO_MEMORY, "out of memory");
	}
	return 0;
}

int ox_run_graph(struct ox_model *M, const Onnx__GraphProto *g, int opset)
{
	size_t listed = M->n_node_errors;
	size_t *order;
	char why[600];
	if (add_initializers(M, g, false) != 0)
		return -1;
	if (ox_node_order(g, &order, why, sizeof(why)) != 0)
		return model_fail(M, WEBNN_STATUS_TYPE_ERROR, "graph \"%s\": %s",
				  g->name ? g->name : "", why);
	int rc = 0;
	for (size_t i = 0; i < g->n_node && rc == 0; i++)
		rc = run_node(M, g->node[order[i]], opset);
	free(order);
	return rc != 0 || M->n_node_errors > listed ? -1 : 0;
}

/* Ends a walk in which nodes failed: every reason, one message (and each a problem of
 * webnn_model_inspect). */
static int report_node_errors(struct ox_model *M)
{
	enum webnn_status s = M->fatal ? WEBNN_STATUS_NO_MEMORY : M->node_errors_status;
	for (size_t i = 0; M->inspect && !M->fatal && i < M->n_node_errors; i++) {
		char line[1200];
		snprintf(line, sizeof(line), "onnx: %s", M->node_errors[i]);
		if (wnni_info_problem(M->inspect, line) != 0)
			s = WEBNN_STATUS_NO_MEMORY;
	}
	M->status = s;
	if (!M->error || !M->len)
		return -1;
	if (M->n_node_errors == 1 || (M->fatal && !M->n_node_errors)) {
		snprintf(M->error, M->len, "onnx: %s",
			 M->n_node_errors ? M->node_errors[0] : "out of memory");
		return -1;
	}
	size_t k = 0;
	int w = snprintf(M->error, M->len, "onnx: %zu nodes cannot be loaded: ", M->n_node_errors);
	for (size_t i = 0; i < M->n_node_errors && w >= 0 && (k += (size_t)w) < M->len; i++)
		w = snprintf(M->error + k, M->len - k, "%s%s", i ? "; " : "", M->node_errors[i]);
	return -1;
}

static int load_graph(struct ox_model *M, const Onnx__GraphProto *g, int opset,
		      struct webnn_model *m)
{
	/* Initializers first: graph inputs that share their name take their value (a default
	 * the caller cannot override here: WebNN inputs have no defaults). */
	if (add_initializers(M, g, true) != 0)
		return -1;
	if (bind_inputs(M, g) != 0)
		return -1;
	M->dim_used = ox_keep(M, calloc(M->opt && M->opt->n_dims ? M->opt->n_dims : 1, 1));
	if (!M->dim_used)
		return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (size_t i = 0; i < g->n_input; i++) {
		if (find_val(M, g->input[i]->name ? g->input[i]->name : ""))
			continue;
		if (add_input(M, g->input[i]) != 0)
			return -1;
	}
	if (check_dim_bindings(M) != 0) {
		/* a trial load (inspect) lists it and goes on to the nodes */
		if (!M->inspect || !M->error || wnni_info_problem(M->inspect, M->error) != 0)
			return -1;
		M->status = WEBNN_STATUS_OK;
	}
	m->inputs = calloc(g->n_input ? g->n_input : 1, sizeof(*m->inputs));
	if (!m->inputs)
		return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
	for (size_t i = 0; i < g->n_input; i++) {
		struct ox_val *v = find_val(M, g->input[i]->name ? g->input[i]->name : "");
		bool empty = v && v->host && ox_elems(v->rank, v->dims) == 0 &&
			     !ox_is_initializer(g, v->name) && !find_bind(M, v->name);
		if (!v || (!empty && (!v->op || v->host)))
			continue;
		struct wnni_io *io = &m->inputs[m->n_inputs];
		io->name = strdup(v->name);
		if (!io->name)
			return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
		io->desc = (struct webnn_operand_desc){ v->type, v->rank, { 0 } };
		memcpy(io->desc.shape, v->dims, sizeof(v->dims[0]) * v->rank);
		m->n_inputs++;
	}
	size_t *order;
	char why[600];
	if (ox_node_order(g, &order, why, sizeof(why)) != 0)
		return model_fail(M, WEBNN_STATUS_TYPE_ERROR, "%s", why);
	for (size_t i = 0; i < g->n_node; i++)
		if (run_node(M, g->node[order[i]], opset) != 0)
			break;
	free(order);
	if (M->fatal || M->n_node_errors)
		return report_node_errors(M);
	if (g->n_output == 0)
		return model_fail(M, WEBNN_STATUS_TYPE_ERROR, "the graph has no outputs");
	struct webnn_named_operand *outs = ox_keep(M, calloc(g->n_output, sizeof(*outs)));
	m->outputs = calloc(g->n_output, sizeof(*m->outputs));
	if (!outs || !m->outputs)
		return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
	static const Onnx__NodeProto out_node = { .name = (char *)"", .op_type = (char *)"output" };
	for (size_t i = 0; i < g->n_output; i++) {
		const char *name = g->output[i]->name ? g->output[i]->name : "";
		struct ox_node on = { .M = M, .node = &out_node, .opset = opset };
		struct ox_val *v = find_val(M, name);
		if (!v)
			return model_fail(M, WEBNN_STATUS_TYPE_ERROR,
					  "output \"%s\" is not computed by any node", name);
		/* An output that is a graph input, a constant or another output's operand gets
		 * an identity of its own: a graph output is an operation's result. */
		bool dup = v->host != NULL || v->constant;
		struct webnn_operand *op = ox_operand(&on, v);
		if (!op)
			return -1;
		for (size_t j = 0; j < i; j++)
			dup |= outs[j].operand == op;
		for (size_t j = 0; j < m->n_inputs; j++)
			dup |= strcmp(m->inputs[j].name, name) == 0;
		if (dup) {
			enum webnn_status s = webnn_builder_identity(M->b, op, &op);
			if (s != WEBNN_STATUS_OK)
				return model_fail(M, s, "output \"%s\": %s", name,
						  webnn_context_last_error(M->ctx));
		}
		outs[i].name = name;
		outs[i].operand = op;
		struct wnni_io *io = &m->outputs[m->n_outputs];
		io->name = strdup(name);
		if (!io->name)
			return model_fail(M, WEBNN_STATUS_NO_MEMORY, "out of memory");
		webnn_operand_get_desc(op, &io->desc);
		m->n_outputs++;
	}
	enum webnn_status s = webnn_builder_build(M->b, outs, g->n_output, &m->graph);
	if (s != WEBNN_STATUS_OK)
		return model_fail(M, s, "build: %s", webnn_context_last_error(M->ctx));
	if (M->opt && M->opt->progress)
		M->opt->progress(M->opt->user_data, 1.0);
	return 0;
}

/* protobuf-c decodes nested messages recursively: a hostile file nesting graphs in attributes
 * (or types in types) thousands deep would exhaust the stack. Every length-delimited field
 * that parses as a message counts as a level; deeper than this is refused before decoding. */
#define OX_MAX_NESTING 64

/* The nesting depth of p as a message (depth if it has no nested message), or -1 when it is
 * not one; stops past OX_MAX_NESTING. */
static int nesting(const uint8_t *p, size_t n, int depth)
{
	if (depth > OX_MAX_NESTING)
		return depth;
	int deepest = depth;
	size_t i = 0;
	while (i < n) {
		uint64_t key, v;
		if (!ox_read_varint(p, n, &i, &key) || (key >> 3) == 0)
			return -1;
		switch (key & 7) {
		case 0:
			if (!ox_read_varint(p, n, &i, &v))
				return -1;
			break;
		case 1:
			if (n - i < 8)
				return -1;
			i += 8;
			break;
		case 5:
			if (n - i < 4)
				return -1;
			i += 4;
			break;
		case 2: {
			if (!ox_read_varint(p, n, &i, &v) || v > n - i)
				return -1;
			int d = nesting(p + i, (size_t)v, depth + 1);
			if (d > deepest)
				deepest = d;
			if (deepest > OX_MAX_NESTING)
				return deepest;
			i += (size_t)v;
			break;
		}
		default:
			return -1;
		}
	}
	return deepest;
}

bool ox_nesting_ok(const void *data, size_t size)
{
	return nesting(data, size, 0) <= OX_MAX_NESTING;
}

enum webnn_status wnni_onnx_load(struct webnn_context *ctx, const void *data, size_t size,
				 const char *base_dir, const struct webnn_import_options *opt,
				 struct webnn_model *m, char *error, size_t len)
{
	struct ox_model M = { .ctx = ctx, .opt = opt, .base_dir = base_dir, .error = error,
			      .len = len, .status = WEBNN_STATUS_OK, .inspect = m->inspect,
			      .file_mapped = m->file_mapped };
	if (nesting(data, size, 0) > OX_MAX_NESTING) {
		model_fail(&M, WEBNN_STATUS_DATA_ERROR,
			   "messages nested more than %d deep (graphs in attributes?): refused",
			   OX_MAX_NESTING);
		return M.status;
	}
	struct ox_raw_ref *refs;
	size_t n_refs;
	Onnx__ModelProto *model = ox_unpack_model(data, size, &refs, &n_refs);
	if (!model) {
		model_fail(&M, WEBNN_STATUS_DATA_ERROR,
			   "not an ONNX model (protobuf decoding of ModelProto failed)");
		return M.status;
	}
	int opset;
	if (!model->graph) {
		model_fail(&M, WEBNN_STATUS_DATA_ERROR, "the model has no graph");
	} else if (opset_of(&M, model, &opset) == 0) {
		enum webnn_status s = webnn_builder_create(ctx, &M.b);
		if (s != WEBNN_STATUS_OK)
			model_fail(&M, s, "builder: %s", webnn_context_last_error(ctx));
		else
			load_graph(&M, model->graph, opset, m);
	}
	free_model(&M);
	ox_free_model(model, refs, n_refs);
	return M.status;
}
