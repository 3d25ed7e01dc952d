/* libwebnn-import's entry points: picks the format, reads the file, and owns the model object. */
#include "importers/import_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static enum webnn_status fail(char *error, size_t len, enum webnn_status s, const char *fmt, ...)
{
	if (error && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(error, len, fmt, ap);
		va_end(ap);
	}
	return s;
}

/* Files larger than this are refused before reading: a model is weights plus a graph, and the
 * protobuf and NNEF parsers need the whole text in memory. */
#define WNNI_MAX_FILE ((size_t)4 << 30)

void *wnni_read_file(const char *path, size_t *size, char *error, size_t len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fail(error, len, WEBNN_STATUS_TYPE_ERROR, "cannot open %s: %s", path,
		     strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fail(error, len, WEBNN_STATUS_TYPE_ERROR, "%s: not a regular file", path);
		fclose(f);
		return NULL;
	}
	if ((uint64_t)st.st_size > WNNI_MAX_FILE) {
		fail(error, len, WEBNN_STATUS_NOT_SUPPORTED, "%s: %lld bytes, more than the %zu "
		     "a model file may have", path, (long long)st.st_size, WNNI_MAX_FILE);
		fclose(f);
		return NULL;
	}
	size_t n = (size_t)st.st_size;
	char *buf = malloc(n + 1);
	if (!buf) {
		fail(error, len, WEBNN_STATUS_NO_MEMORY, "%s: out of memory reading %zu bytes",
		     path, n);
		fclose(f);
		return NULL;
	}
	size_t got = fread(buf, 1, n, f);
	int err = ferror(f);
	fclose(f);
	if (got != n || err) {
		fail(error, len, WEBNN_STATUS_TYPE_ERROR, "%s: short read (%zu of %zu bytes)", path,
		     got, n);
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*size = n;
	return buf;
}

/* A model file is mapped rather than read: its weights are copied once, to the daemon, from
 * the page cache, and the pages already sent can be dropped (wnni_drop_pages), so loading a
 * model costs about its size once, not three times. */
/* Maps a whole file read-only (private; *size > 0): released with wnni_unmap_file. NULL with
 * error filled on failure. */
static void *wnni_map_file(const char *path, size_t *size, char *error, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fail(error, len, WEBNN_STATUS_TYPE_ERROR, "cannot open %s: %s", path,
		     strerror(errno));
		return NULL;
	}
	struct stat st;
	void *p = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		fail(error, len, WEBNN_STATUS_TYPE_ERROR, "%s: not a regular file", path);
	} else if ((uint64_t)st.st_size > WNNI_MAX_FILE) {
		fail(error, len, WEBNN_STATUS_NOT_SUPPORTED, "%s: %lld bytes, more than the %zu "
		     "a model file may have", path, (long long)st.st_size, WNNI_MAX_FILE);
	} else if (st.st_size == 0) {
		fail(error, len, WEBNN_STATUS_TYPE_ERROR, "%s: empty file", path);
	} else {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			p = NULL;
			fail(error, len, WEBNN_STATUS_NO_MEMORY, "%s: cannot map %lld bytes: %s",
			     path, (long long)st.st_size, strerror(errno));
		} else {
			*size = (size_t)st.st_size;
		}
	}
	close(fd);
	return p;
}

static void wnni_unmap_file(void *data, size_t size)
{
	if (data)
		munmap(data, size);
}

void wnni_drop_pages(const void *p, size_t n)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), b = ((uintptr_t)p + n) & ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The caller's options as this version's struct, in *options (NULL stays NULL): fields past the
 * caller's struct_size (a caller compiled against an older header) read as zero. A struct_size
 * smaller than the first version's is a TypeError. */
static enum webnn_status current_options(const struct webnn_import_options **options,
					 struct webnn_import_options *full, char *error, size_t len)
{
	const struct webnn_import_options *o = *options;
	if (!o)
		return WEBNN_STATUS_OK;
	if (o->struct_size < WEBNN_IMPORT_OPTIONS_SIZE_V1)
		return fail(error, len, WEBNN_STATUS_TYPE_ERROR,
			    "import: options.struct_size is %u, expected %zu (or %zu, the first "
			    "version's)", o->struct_size, sizeof(*o),
			    (size_t)WEBNN_IMPORT_OPTIONS_SIZE_V1);
	memset(full, 0, sizeof(*full));
	memcpy(full, o, o->struct_size < sizeof(*full) ? o->struct_size : sizeof(*full));
	full->struct_size = sizeof(*full);
	*options = full;
	return WEBNN_STATUS_OK;
}

static enum webnn_status load(struct webnn_context *ctx, enum webnn_model_format format,
			      const void *data, size_t size, const char *base_dir,
			      const struct webnn_import_options *options, struct wnni_info *inspect,
			      bool file_mapped, struct webnn_model **out, char *error, size_t len)
{
	struct webnn_model *m = calloc(1, sizeof(*m));
	if (!m)
		return fail(error, len, WEBNN_STATUS_NO_MEMORY, "import: out of memory");
	m->inspect = inspect;
	m->file_mapped = file_mapped;
	enum webnn_status s;
	if (format == WEBNN_MODEL_FORMAT_ONNX)
		s = wnni_onnx_load(ctx, data, size, base_dir, options, m, error, len);
	else
		s = wnni_nnef_load(ctx, data, size, base_dir, options, m, error, len);
	if (s != WEBNN_STATUS_OK) {
		webnn_model_destroy(m);
		return s;
	}
	*out = m;
	return WEBNN_STATUS_OK;
}

/* webnn_model_load, or webnn_model_inspect's trial load (inspect set). */
static enum webnn_status load_path(struct webnn_context *ctx, const char *path,
				   const struct webnn_import_options *options,
				   struct wnni_info *inspect, struct webnn_model **out, char *error,
				   size_t len)
{
	if (out)
		*out = NULL;
	if (error && len)
		error[0] = 0;
	if (!ctx || !path || !out)
		return fail(error, len, WEBNN_STATUS_TYPE_ERROR, "import: %s is NULL",
			    !ctx ? "context" : !path ? "path" : "out");
	struct webnn_import_options full;
	enum webnn_status os = current_options(&options, &full, error, len);
	if (os != WEBNN_STATUS_OK)
		return os;
	enum webnn_model_format format = options ? options->format : WEBNN_MODEL_FORMAT_AUTO;
	struct stat st;
	bool dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	if (format == WEBNN_MODEL_FORMAT_AUTO)
		format = dir || ends_with(path, ".nnef") ? WEBNN_MODEL_FORMAT_NNEF
							 : WEBNN_MODEL_FORMAT_ONNX;
	/* NNEF: a folder holds graph.nnef and the variables' .dat files beside it. */
	char *base = NULL, *file = NULL;
	if (format == WEBNN_MODEL_FORMAT_NNEF) {
		if (dir) {
			base = strdup(path);
			if (base && asprintf(&file, "%s/graph.nnef", path) < 0)
				file = NULL;
		} else {
			file = strdup(path);
			const char *slash = strrchr(path, '/');
			base = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
		}
		if (!base || !file) {
			free(base);
			free(file);
			return fail(error, len, WEBNN_STATUS_NO_MEMORY, "import: out of memory");
		}
	} else {
		/* ONNX external data files are named relative to the model's folder. */
		const char *slash = strrchr(path, '/');
		base = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
		file = strdup(path);
		if (!base || !file) {
			free(base);
			free(file);
			return fail(error, len, WEBNN_STATUS_NO_MEMORY, "import: out of memory");
		}
	}
	size_t size = 0;
	/* NNEF is text, parsed NUL-terminated; ONNX is mapped */
	bool mapped = format == WEBNN_MODEL_FORMAT_ONNX;
	void *data = mapped ? wnni_map_file(file, &size, error, len)
			    : wnni_read_file(file, &size, error, len);
	enum webnn_status s = WEBNN_STATUS_TYPE_ERROR;
	if (data)
		s = load(ctx, format, data, size, base, options, inspect, mapped, out, error, len);
	if (mapped)
		wnni_unmap_file(data, size);
	else
		free(data);
	free(base);
	free(file);
	return s;
}

enum webnn_status webnn_model_load(struct webnn_context *ctx, const char *path,
				   const struct webnn_import_options *options,
				   struct webnn_model **out, char *error, size_t len)
{
	return load_path(ctx, path, options, NULL, out, error, len);
}

enum webnn_status webnn_model_load_memory(struct webnn_context *ctx, const void *data, size_t size,
					  const char *base_dir,
					  const struct webnn_import_options *options,
					  struct webnn_model **out, char *error, size_t len)
{
	if (out)
		*out = NULL;
	if (error && len)
		error[0] = 0;
	if (!ctx || !data || !out)
		return fail(error, len, WEBNN_STATUS_TYPE_ERROR, "import: %s is NULL",
			    !ctx ? "context" : !data ? "data" : "out");
	struct webnn_import_options full;
	enum webnn_status os = current_options(&options, &full, error, len);
	if (os != WEBNN_STATUS_OK)
		return os;
	if (!options || options->format == WEBNN_MODEL_FORMAT_AUTO)
		return fail(error, len, WEBNN_STATUS_TYPE_ERROR,
			    "import: loading from memory needs options with a format (ONNX or "
			    "NNEF)");
	if (options->format != WEBNN_MODEL_FORMAT_ONNX && options->format != WEBNN_MODEL_FORMAT_NNEF)
		return fail(error, len, WEBNN_STATUS_TYPE_ERROR, "import: unknown format %d",
			    (int)options->format);
	/* The parsers want a NUL-terminated text (NNEF) or may peek one past the end. */
	char *copy = malloc(size + 1);
	if (!copy)
		return fail(error, len, WEBNN_STATUS_NO_MEMORY, "import: out of memory");
	memcpy(copy, data, size);
	copy[size] = 0;
	enum webnn_status s = load(ctx, options->format, copy, size, base_dir, options, NULL,
				   false, out, error, len);
	free(copy);
	return s;
}

void webnn_model_destroy(struct webnn_model *m)
{
	if (!m)
		return;
	webnn_graph_destroy(m->graph);
	for (size_t i = 0; i < m->n_inputs; i++)
		free(m->inputs[i].name);
	for (size_t i = 0; i < m->n_outputs; i++)
		free(m->outputs[i].name);
	free(m->inputs);
	free(m->outputs);
	free(m);
}

struct webnn_graph *webnn_model_graph(const struct webnn_model *m)
{
	return m ? m->graph : NULL;
}

size_t webnn_model_input_count(const struct webnn_model *m)
{
	return m ? m->n_inputs : 0;
}

size_t webnn_model_output_count(const struct webnn_model *m)
{
	return m ? m->n_outputs : 0;
}

const char *webnn_model_input_name(const struct webnn_model *m, size_t i)
{
	return m && i < m->n_inputs ? m->inputs[i].name : NULL;
}

const char *webnn_model_output_name(const struct webnn_model *m, size_t i)
{
	return m && i < m->n_outputs ? m->outputs[i].name : NULL;
}

void webnn_model_input_desc(const struct webnn_model *m, size_t i, struct webnn_operand_desc *desc)
{
	if (desc)
		*desc = m && i < m->n_inputs ? m->inputs[i].desc : (struct webnn_operand_desc){ 0 };
}

void webnn_model_output_desc(const struct webnn_model *m, size_t i,
			     struct webnn_operand_desc *desc)
{
	if (desc)
		*desc = m && i < m->n_outputs ? m->outputs[i].desc : (struct webnn_operand_desc){ 0 };
}

enum webnn_status webnn_tensor_file_read(const char *path, struct webnn_operand_desc *desc,
					 void **data, size_t *size, char *error, size_t len)
{
	if (error && len)
		error[0] = 0;
	if (!path || !desc || !data || !size)
		return fail(error, len, WEBNN_STATUS_TYPE_ERROR, "tensor file: an argument is NULL");
	*data = NULL;
	*size = 0;
	enum webnn_status (*reader)(const char *, struct webnn_operand_desc *, void **, size_t *,
				    char *, size_t) = NULL;
	if (ends_with(path, ".pb"))
		reader = wnni_onnx_read_tensor_pb;
	else if (ends_with(path, ".npy"))
		reader = wnni_npy_read;
	else if (ends_with(path, ".dat"))
		reader = wnni_nnef_read_dat;
	else
		return fail(error, len, WEBNN_STATUS_TYPE_ERROR,
			    "%s: unknown tensor file type (expected .pb, .npy or .dat)", path);
	return reader(path, desc, data, size, error, len);
}

/* ------------------------------------------------------------------ webnn_model_inspect */

void *wnni_info_alloc(struct wnni_info *info, size_t size)
{
	if (info->n_owned == info->cap_owned) {
		size_t cap = info->cap_owned ? info->cap_owned * 2 : 32;
		void **o = realloc(info->owned, cap * sizeof(*o));
		if (!o)
			return NULL;
		info->owned = o;
		info->cap_owned = cap;
	}
	void *p = calloc(1, size ? size : 1);
	if (p)
		info->owned[info->n_owned++] = p;
	return p;
}

const char *wnni_info_strdup(struct wnni_info *info, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = wnni_info_alloc(info, n);
	return p ? memcpy(p, s, n) : NULL;
}

int wnni_info_problem(struct wnni_info *info, const char *msg)
{
	if (info->pub.n_problems == info->cap_problems) {
		size_t cap = info->cap_problems ? info->cap_problems * 2 : 8;
		const char **p = realloc(info->problems, cap * sizeof(*p));
		if (!p)
			return -1;
		info->problems = p;
		info->cap_problems = cap;
	}
	const char *copy = wnni_info_strdup(info, msg);
	if (!copy)
		return -1;
	info->problems[info->pub.n_problems++] = copy;
	info->pub.problems = info->problems;
	return 0;
}

void webnn_model_info_destroy(struct webnn_model_info *pub)
{
	struct wnni_info *info = (struct wnni_info *)pub;
	if (!info)
		return;
	for (size_t i = 0; i < info->n_owned; i++)
		free(info->owned[i]);
	free(info->owned);
	free(info->problems);
	free(info);
}

/* NNEF declares nothing the importer reads apart from evaluating the graph: what the trial load
 * built is what it declares. */
static int info_from_model(struct wnni_info *info, const struct webnn_model *m)
{
	struct webnn_model_value_info *in = wnni_info_alloc(info, (m->n_inputs + 1) * sizeof(*in));
	struct webnn_model_value_info *out = wnni_info_alloc(info, (m->n_outputs + 1) * sizeof(*out));
	if (!in || !out)
		return -1;
	for (size_t k = 0; k < 2; k++) {
		const struct wnni_io *io = k ? m->outputs : m->inputs;
		struct webnn_model_value_info *v = k ? out : in;
		for (size_t i = 0; i < (k ? m->n_outputs : m->n_inputs); i++) {
			v[i].name = wnni_info_strdup(info, io[i].name);
			if (!v[i].name)
				return -1;
			v[i].type_name = webnn_data_type_name(io[i].desc.data_type);
			v[i].has_data_type = v[i].has_shape = true;
			v[i].data_type = io[i].desc.data_type;
			v[i].rank = io[i].desc.rank;
			memcpy(v[i].shape, io[i].desc.shape, sizeof(v[i].shape));
		}
	}
	info->pub.inputs = in;
	info->pub.outputs = out;
	info->pub.n_inputs = m->n_inputs;
	info->pub.n_outputs = m->n_outputs;
	return 0;
}

enum webnn_status webnn_model_inspect(struct webnn_context *ctx, const char *path,
				      const struct webnn_import_options *options,
				      struct webnn_model_info **out, char *error, size_t len)
{
	if (out)
		*out = NULL;
	if (error && len)
		error[0] = 0;
	if (!path || !out)
		return fail(error, len, WEBNN_STATUS_TYPE_ERROR, "import: %s is NULL",
			    !path ? "path" : "out");
	struct webnn_import_options full;
	enum webnn_status os = current_options(&options, &full, error, len);
	if (os != WEBNN_STATUS_OK)
		return os;
	struct wnni_info *info = calloc(1, sizeof(*info));
	if (!info)
		return fail(error, len, WEBNN_STATUS_NO_MEMORY, "import: out of memory");
	enum webnn_model_format format = options ? options->format : WEBNN_MODEL_FORMAT_AUTO;
	struct stat st;
	bool dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	if (format == WEBNN_MODEL_FORMAT_AUTO)
		format = dir || ends_with(path, ".nnef") ? WEBNN_MODEL_FORMAT_NNEF
							 : WEBNN_MODEL_FORMAT_ONNX;
	enum webnn_status s = WEBNN_STATUS_OK;
	if (format == WEBNN_MODEL_FORMAT_ONNX) {
		size_t size = 0;
		void *data = wnni_map_file(path, &size, error, len);
		s = data ? wnni_onnx_declared(data, size, info, error, len)
			 : WEBNN_STATUS_TYPE_ERROR;
		wnni_unmap_file(data, size);
	} else {
		info->pub.format = "nnef";
	}
	if (s == WEBNN_STATUS_OK && ctx) {
		/* The trial load: the format lists each failure in info (ONNX); a load error it
		 * did not list (NNEF, or past the nodes: the build) is the one problem. */
		size_t elen = 1 << 16;
		char *e = malloc(elen);
		struct webnn_model *m = NULL;
		struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
		if (options)
			o = *options;
		o.format = format;
		s = e ? WEBNN_STATUS_OK : WEBNN_STATUS_NO_MEMORY;
		if (e) {
			enum webnn_status ls = load_path(ctx, path, &o, info, &m, e, elen);
			if (ls == WEBNN_STATUS_OK && !info->pub.inputs && info_from_model(info, m))
				s = WEBNN_STATUS_NO_MEMORY;
			if (ls != WEBNN_STATUS_OK && !info->pub.n_problems &&
			    wnni_info_problem(info, e) != 0)
				s = WEBNN_STATUS_NO_MEMORY;
		}
		webnn_model_destroy(m);
		free(e);
		if (s != WEBNN_STATUS_OK)
			fail(error, len, s, "import: out of memory");
	}
	if (s != WEBNN_STATUS_OK) {
		webnn_model_info_destroy(&info->pub);
		return s;
	}
	*out = &info->pub;
	return WEBNN_STATUS_OK;
}
