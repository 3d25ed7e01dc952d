/* make bench: real ONNX files from npm packages (bench/real_models.txt) on webnnd's cpu backend vs onnxruntime-node. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/bench_common.h"
#include "tests/test.h"
#include "webnn.h"
#include "webnn_import.h"

/* The files are whatever their packages ship; nothing here is tuned to them. Each row is loaded
 * with libwebnn-import on a cpu-backend webnnd and with onnxruntime-node at 1 and 2 intra-op
 * threads (each its own process, so no other session's spinning pool shares the CPU), fed the
 * same inputs, compared (|d| <= 1e-3 + 1e-3 |ORT|) and timed round robin; the ratio is against
 * the faster onnxruntime. A file that does not load is a row with the loader's error: the
 * table says where webnnd stands, it does not fail for it. A loaded model whose outputs differ
 * from onnxruntime's fails the test once the table is printed. */
#define RM_MAX_ROWS 48
#define RM_MAX_IO 8
#define RM_WARM 2
#define RM_SAMPLE 0.02 /* seconds a timed sample aims at (runs per sample = 0.02 / first run) */
#define RM_MAX_INNER 200

enum { RM_WEBNND, RM_ORT1, RM_ORT2, RM_N };

struct rm_row {
	char label[96], package[96], file[192], dims[256], values[160];
};

/* One input: its type, shape and bytes (in webnnd's type and in onnxruntime's). */
struct rm_input {
	char name[128]; /* as the model names it */
	char ort_type[16];
	uint32_t rank, shape[WEBNN_MAX_RANK];
	uint64_t count;
	double *v;
};

static char *rm_trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		s[--n] = 0;
	return s;
}

/* The manifest's rows; false with why when it cannot be read or a row is malformed. */
static bool rm_read_manifest(const char *path, struct rm_row *rows, int *n, char *why, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int lineno = 0;
	*n = 0;
	if (!f) {
		bc_fmt(why, len, "%s: cannot open it (run make bench from the source tree)", path);
		return false;
	}
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *s = rm_trim(line), *col[6];
		if (!*s || *s == '#')
			continue;
		int c = 0;
		for (char *p = s; c < 6; c++) {
			col[c] = p;
			char *bar = strchr(p, '|');
			if (!bar) {
				c++;
				break;
			}
			*bar = 0;
			p = bar + 1;
		}
		if (c != 6 || *n == RM_MAX_ROWS) {
			bc_fmt(why, len, "%s:%d: %s", path, lineno,
			       c != 6 ? "expected 6 '|'-separated columns" : "too many rows");
			fclose(f);
			return false;
		}
		struct rm_row *r = &rows[(*n)++];
		bc_fmt(r->label, sizeof r->label, "%s", rm_trim(col[0]));
		bc_fmt(r->package, sizeof r->package, "%s", rm_trim(col[1]));
		const char *base = strrchr(rm_trim(col[2]), '/');
		bc_fmt(r->file, sizeof r->file, "%s", base ? base + 1 : rm_trim(col[2]));
		bc_fmt(r->dims, sizeof r->dims, "%s", rm_trim(col[4]));
		bc_fmt(r->values, sizeof r->values, "%s", rm_trim(col[5]));
	}
	fclose(f);
	return true;
}

/* The row's free-dimension bindings for libwebnn-import (names point into buf). */
static size_t rm_dim_bindings(const char *dims, char *buf, size_t len,
			      struct webnn_dim_binding *out, size_t max)
{
	size_t n = 0;
	bc_fmt(buf, len, "%s", strcmp(dims, "-") == 0 ? "" : dims);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && n < max;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = 0;
		out[n].name = tok;
		out[n++].value = (uint32_t)strtoul(eq + 1, NULL, 10);
	}
	return n;
}

/* 64-bit xorshift*, seeded from the file's name: the same inputs every run and for both. */
static uint64_t rm_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* Fills in->v: the row's constant or range for this input (by its name), else uniform [-1, 1). */
static void rm_fill(struct rm_input *in, const char *name, const char *values, uint64_t *seed)
{
	double lo = -1, hi = 1;
	bool constant = false;
	size_t nl = strlen(name);
	for (const char *p = values; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		bool frozen = strncmp(p, name, nl) == 0 && p[nl] == ':' && p[nl + 1] == '=';
		if (strncmp(p, name, nl) == 0 && (p[nl] == '=' || frozen)) {
			const char *v = p + nl + 1 + frozen, *dots = strstr(v, "..");
			lo = atof(v);
			if (dots && (!strchr(v, ',') || dots < strchr(v, ',')))
				hi = atof(dots + 2);
			else
				constant = true;
		}
	}
	in->v = malloc((in->count ? in->count : 1) * sizeof(double));
	ASSERT(in->v);
	for (uint64_t i = 0; i < in->count; i++)
		in->v[i] = constant ? lo :
				      lo + (hi - lo) * (double)(rm_next(seed) >> 11) * 0x1.0p-53;
}

/* The input's values as bytes of webnnd type t (NULL for a type the bench does not feed). */
static void *rm_bytes_webnn(const struct rm_input *in, enum webnn_data_type t, size_t *size)
{
	size_t es = webnn_data_type_size(t);
	void *b = malloc(in->count * es + 1);
	ASSERT(b);
	for (uint64_t i = 0; i < in->count; i++)
		switch (t) {
		case WEBNN_FLOAT32:
			((float *)b)[i] = (float)in->v[i];
			break;
		case WEBNN_INT64:
			((int64_t *)b)[i] = (int64_t)in->v[i];
			break;
		case WEBNN_INT32:
			((int32_t *)b)[i] = (int32_t)in->v[i];
			break;
		case WEBNN_UINT8:
			((uint8_t *)b)[i] = (uint8_t)in->v[i];
			break;
		default:
			free(b);
			return NULL;
		}
	*size = in->count * es;
	return b;
}

/* Writes the input for onnxruntime in its type to dir/in<i>.bin; false for a type not fed. */
static bool rm_write_ort(const struct rm_input *in, const char *dir, int i)
{
	static const struct {
		const char *name;
		enum webnn_data_type t;
	} map[] = { { "float32", WEBNN_FLOAT32 },
		    { "int64", WEBNN_INT64 },
		    { "int32", WEBNN_INT32 },
		    { "uint8", WEBNN_UINT8 },
		    { "bool", WEBNN_UINT8 } };
	for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
		if (strcmp(in->ort_type, map[k].name) == 0) {
			size_t size;
			void *b = rm_bytes_webnn(in, map[k].t, &size);
			char path[600];
			snprintf(path, sizeof path, "%s/in%d.bin", dir, i);
			FILE *f = fopen(path, "wb");
			bool ok = b && f && fwrite(b, 1, size, f) == size;
			if (f)
				fclose(f);
			free(b);
			return ok;
		}
	return false;
}

/* Parses "type:1x3x640x640=name" (or "type:scalar=name") into in. */
static bool rm_parse_ort_input(const char *tok, struct rm_input *in)
{
	const char *colon = strchr(tok, ':');
	if (!colon || (size_t)(colon - tok) >= sizeof in->ort_type)
		return false;
	memset(in, 0, sizeof *in);
	memcpy(in->ort_type, tok, colon - tok);
	in->count = 1;
	const char *eq = strchr(colon, '=');
	if (!eq || strlen(eq + 1) >= sizeof in->name)
		return false;
	memcpy(in->name, eq + 1, strlen(eq + 1) + 1);
	if (strncmp(colon + 1, "scalar=", 7) == 0)
		return true;
	for (const char *p = colon + 1; p < eq && in->rank < WEBNN_MAX_RANK; in->rank++) {
		char *end;
		in->shape[in->rank] = (uint32_t)strtoul(p, &end, 10);
		in->count *= in->shape[in->rank];
		p = *end == 'x' ? end + 1 : end;
	}
	return true;
}

/* The row's frozen inputs (NAME:=V in its values: a value the package's own code always feeds,
 * which webnnd's user binds at load as `webnn-run --bind NAME=V` does; onnxruntime is fed it),
 * as libwebnn-import bindings, typed and shaped as the file declares them. data holds the
 * values (free it); false with why for a frozen input the file does not declare fully. */
static bool rm_input_bindings(const char *path, const char *values,
			      struct webnn_input_binding *out, size_t max, size_t *n,
			      void **data, char *why, size_t len)
{
	*n = 0;
	*data = NULL;
	if (!strstr(values, ":="))
		return true;
	struct webnn_model_info *info = NULL;
	char err[512];
	if (webnn_model_inspect(NULL, path, NULL, &info, err, sizeof err) != WEBNN_STATUS_OK) {
		bc_fmt(why, len, "%s", err);
		return false;
	}
	*data = calloc(max, 8 * sizeof(double));
	ASSERT(*data);
	bool ok = true;
	for (size_t i = 0; ok && i < info->n_inputs && *n < max; i++) {
		const struct webnn_model_value_info *in = &info->inputs[i];
		size_t nl = strlen(in->name);
		const char *p = values;
		while (p && !(strncmp(p, in->name, nl) == 0 && p[nl] == ':' && p[nl + 1] == '='))
			p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
		if (!p)
			continue;
		uint64_t count = 1;
		for (uint32_t d = 0; in->has_shape && d < in->rank; d++)
			count *= in->shape[d];
		if (!in->has_data_type || !in->has_shape || count != 1) {
			bc_fmt(why, len, "input %s: frozen (:=) but not declared as one value", in->name);
			ok = false;
			break;
		}
		struct webnn_input_binding *b = &out[(*n)++];
		b->name = strdup(in->name);
		ASSERT(b->name);
		b->desc = (struct webnn_operand_desc){ .data_type = in->data_type, .rank = in->rank };
		for (uint32_t d = 0; d < in->rank; d++)
			b->desc.shape[d] = 1;
		struct rm_input one = { .count = 1 };
		uint64_t seed = 1;
		rm_fill(&one, in->name, values, &seed);
		void *bytes = rm_bytes_webnn(&one, in->data_type, &b->size);
		free(one.v);
		if (!bytes) {
			bc_fmt(why, len, "input %s: type %s is not one the bench feeds", in->name,
			       webnn_data_type_name(in->data_type));
			ok = false;
			break;
		}
		void *slot = (char *)*data + (*n - 1) * 8 * sizeof(double);
		memcpy(slot, bytes, b->size);
		free(bytes);
		b->data = slot;
	}
	webnn_model_info_destroy(info);
	return ok;
}

/* webnnd's side of a row: the model, its tensors and its outputs' values. */
struct rm_webnnd {
	struct webnn_model *m;
	size_t n_in, n_out;
	struct webnn_tensor *ti[RM_MAX_IO], *to[RM_MAX_IO];
	struct webnn_named_tensor bi[RM_MAX_IO], bo[RM_MAX_IO];
	uint64_t out_count[RM_MAX_IO];
	size_t out_size[RM_MAX_IO];
	float *out[RM_MAX_IO];
};

/* Creates the tensors and writes the inputs; false with why. */
static bool rm_webnnd_bind(struct rm_webnnd *w, struct webnn_context *ctx, struct rm_input *ins,
			   size_t n_ins, char *why, size_t len)
{
	w->n_in = webnn_model_input_count(w->m);
	w->n_out = webnn_model_output_count(w->m);
	if (w->n_in > RM_MAX_IO || w->n_out > RM_MAX_IO) {
		bc_fmt(why, len, "%zu inputs and %zu outputs in webnnd: more than the bench feeds",
		       w->n_in, w->n_out);
		return false;
	}
	for (size_t i = 0; i < w->n_in; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		webnn_model_input_desc(w->m, i, &td.desc);
		struct rm_input *in = NULL;
		for (size_t j = 0; j < n_ins && !in; j++)
			if (strcmp(ins[j].name, webnn_model_input_name(w->m, i)) == 0)
				in = &ins[j];
		if (!in) {
			bc_fmt(why, len, "input %s: onnxruntime has no input of that name",
			       webnn_model_input_name(w->m, i));
			return false;
		}
		bool same = td.desc.rank == in->rank;
		for (uint32_t d = 0; same && d < in->rank; d++)
			same = td.desc.shape[d] == in->shape[d];
		if (!same) {
			bc_fmt(why, len, "input %s: webnnd's shape differs from onnxruntime's",
			       webnn_model_input_name(w->m, i));
			return false;
		}
		size_t size;
		void *b = rm_bytes_webnn(in, td.desc.data_type, &size);
		if (!b) {
			bc_fmt(why, len, "input %s: type %s is not one the bench feeds",
			       webnn_model_input_name(w->m, i),
			       webnn_data_type_name(td.desc.data_type));
			return false;
		}
		enum webnn_status s = webnn_context_create_tensor(ctx, &td, &w->ti[i]);
		if (s == WEBNN_STATUS_OK)
			s = webnn_context_write_tensor(ctx, w->ti[i], b, size);
		free(b);
		if (s != WEBNN_STATUS_OK) {
			bc_fmt(why, len, "input %s: %s: %s", webnn_model_input_name(w->m, i),
			       webnn_status_name(s), webnn_context_last_error(ctx));
			return false;
		}
		w->bi[i] = (struct webnn_named_tensor){ webnn_model_input_name(w->m, i), w->ti[i] };
	}
	for (size_t i = 0; i < w->n_out; i++) {
		struct webnn_tensor_desc td = { .readable = true };
		webnn_model_output_desc(w->m, i, &td.desc);
		if (td.desc.data_type != WEBNN_FLOAT32) {
			bc_fmt(why, len, "output %s: %s (the bench compares float32 outputs)",
			       webnn_model_output_name(w->m, i),
			       webnn_data_type_name(td.desc.data_type));
			return false;
		}
		w->out_count[i] = 1;
		for (uint32_t d = 0; d < td.desc.rank; d++)
			w->out_count[i] *= td.desc.shape[d];
		w->out_size[i] = w->out_count[i] * sizeof(float);
		w->out[i] = calloc(w->out_count[i] + 1, sizeof(float));
		ASSERT(w->out[i]);
		enum webnn_status s = webnn_context_create_tensor(ctx, &td, &w->to[i]);
		if (s != WEBNN_STATUS_OK) {
			bc_fmt(why, len, "output %s: %s: %s", webnn_model_output_name(w->m, i),
			       webnn_status_name(s), webnn_context_last_error(ctx));
			return false;
		}
		w->bo[i] = (struct webnn_named_tensor){ webnn_model_output_name(w->m, i), w->to[i] };
	}
	return true;
}

/* Mean seconds of n dispatches, each with the read of every output (which waits for it); NAN
 * with why on failure. */
static double rm_webnnd_run(struct rm_webnnd *w, struct webnn_context *ctx, int n, char *why,
			    size_t len)
{
	double t0 = bc_now();
	for (int i = 0; i < n; i++) {
		enum webnn_status s = webnn_context_dispatch(ctx, webnn_model_graph(w->m), w->bi,
							     w->n_in, w->bo, w->n_out);
		for (size_t o = 0; s == WEBNN_STATUS_OK && o < w->n_out; o++)
			s = webnn_context_read_tensor(ctx, w->to[o], w->out[o], w->out_size[o]);
		if (s != WEBNN_STATUS_OK) {
			bc_fmt(why, len, "run: %s: %s", webnn_status_name(s),
			       webnn_context_last_error(ctx));
			return NAN;
		}
	}
	return (bc_now() - t0) / n;
}

static void rm_webnnd_close(struct rm_webnnd *w)
{
	for (size_t i = 0; i < RM_MAX_IO; i++) {
		webnn_tensor_destroy(w->ti[i]);
		webnn_tensor_destroy(w->to[i]);
		free(w->out[i]);
	}
	webnn_model_destroy(w->m);
	memset(w, 0, sizeof *w);
}

/* Compares webnnd's outputs with onnxruntime's (dir/out<i>.bin, counts in the reply of
 * "outs"); false with why; *maxd is the largest |d|. */
static bool rm_compare(const struct rm_webnnd *w, const char *reply, const char *dir, double *maxd,
		       char *why, size_t len)
{
	char *p;
	long n = strtol(reply + 3, &p, 10);
	*maxd = 0;
	if ((size_t)n != w->n_out) {
		bc_fmt(why, len, "%zu outputs in webnnd, %ld in onnxruntime", w->n_out, n);
		return false;
	}
	bool ok = true;
	for (size_t o = 0; o < w->n_out; o++) {
		uint64_t count = strtoull(p, &p, 10);
		if (count != w->out_count[o]) {
			bc_fmt(why, len, "output %s: %llu values in webnnd, %llu in onnxruntime",
			       webnn_model_output_name(w->m, o),
			       (unsigned long long)w->out_count[o], (unsigned long long)count);
			return false;
		}
		char path[600];
		snprintf(path, sizeof path, "%s/out%zu.bin", dir, o);
		float *ref = malloc((count + 1) * sizeof(float));
		FILE *f = fopen(path, "rb");
		ASSERT(ref && f && fread(ref, sizeof(float), count, f) == count);
		fclose(f);
		uint64_t bad = 0, first = 0;
		for (uint64_t i = 0; i < count; i++) {
			double d = fabs((double)w->out[o][i] - ref[i]);
			if (!(d <= 1e-3 + 1e-3 * fabs(ref[i])) && bad++ == 0)
				first = i;
			*maxd = d > *maxd || isnan(d) ? d : *maxd;
		}
		if (bad && ok) {
			bc_fmt(why, len,
			       "output %s: %llu of %llu values differ, first [%llu] %g vs "
			       "onnxruntime's %g",
			       webnn_model_output_name(w->m, o), (unsigned long long)bad,
			       (unsigned long long)count, (unsigned long long)first,
			       w->out[o][first], ref[first]);
			ok = false;
		}
		free(ref);
	}
	return ok;
}

TEST_TIMEOUT(bench_real_models, 1200)
{
	static struct rm_row rows[RM_MAX_ROWS];
	int n_rows;
	char why[1200], manifest[4200], dir[4200];
	const char *e = getenv("WEBNN_BENCH_SCRIPTS");
	snprintf(manifest, sizeof manifest, "%s/real_models.txt", e && *e ? e : "bench");
	snprintf(dir, sizeof dir, "%s/real-models", test_build_dir());
	if (!rm_read_manifest(manifest, rows, &n_rows, why, sizeof why))
		SKIP("%s", why);
	int present = 0;
	for (int r = 0; r < n_rows; r++) {
		char path[4500];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, rows[r].file);
		present += stat(path, &st) == 0;
	}
	if (present == 0)
		SKIP("none of %s's files is in %s: make bench fetches them with npm "
		     "(bench/fetch_real_models.sh; no npm or no network?)",
		     manifest, dir);

	static struct bc_daemon dm;
	ASSERT_MSG(bc_daemon_start(&dm, NULL, "cpu", NULL, why, sizeof why), "%s", why);
	static struct bc_child ort[2];
	char ort_why[600] = "";
	bool have_ort = bc_ort_start(&ort[0], 1, ort_why, sizeof ort_why) &&
			bc_ort_start(&ort[1], 2, ort_why, sizeof ort_why);
	char tmp[64];
	snprintf(tmp, sizeof tmp, "/tmp/webnn-bench-rm-XXXXXX");
	ASSERT(mkdtemp(tmp));
	int rounds = bc_rounds(), loaded = 0, matched = 0, faster = 0, compared = 0;
	double budget = bc_budget(), load0 = test_load_average(), t_start = bc_now();
	/* per row, printed once all have run */
	static char line[RM_MAX_ROWS][1400];
	bool mismatch = false;

	for (int r = 0; r < n_rows; r++) {
		const struct rm_row *row = &rows[r];
		char path[4500], err[1000] = "", reply[2048];
		snprintf(path, sizeof path, "%s/%s", dir, row->file);
		struct stat st;
		if (stat(path, &st) != 0) {
			bc_fmt(line[r], sizeof line[r], "  %-34s absent: %s was not fetched",
			       row->label, row->package);
			continue;
		}
		/* onnxruntime first: its input shapes, with the row's bindings */
		static struct rm_input ins[RM_MAX_IO];
		size_t n_ins = 0;
		bool ort_ok = have_ort;
		double ort_create = 0;
		memset(ins, 0, sizeof ins);
		for (int k = 0; ort_ok && k < 2; k++) {
			if (!bc_child_cmd(&ort[k], reply, sizeof reply, "open m%d %s %s", r, path,
					  row->dims)) {
				bc_fmt(err, sizeof err, "onnxruntime: %s", reply);
				ort_ok = false;
				break;
			}
			if (k)
				continue;
			char *p = reply + 3, *tok, *save = NULL;
			ort_create = strtod(p, &p);
			long ni = strtol(p, &p, 10);
			for (tok = strtok_r(p, " ", &save); tok && (long)n_ins < ni && n_ins < RM_MAX_IO;
			     tok = strtok_r(NULL, " ", &save))
				ASSERT(rm_parse_ort_input(tok, &ins[n_ins++]));
		}
		/* webnnd */
		char dimbuf[256];
		struct webnn_dim_binding binds[16];
		struct webnn_import_options io = WEBNN_IMPORT_OPTIONS_INIT;
		io.dims = binds;
		io.n_dims = rm_dim_bindings(row->dims, dimbuf, sizeof dimbuf, binds, 16);
		struct webnn_input_binding frozen[RM_MAX_IO];
		void *frozen_data = NULL;
		enum webnn_status s = WEBNN_STATUS_OK;
		if (!rm_input_bindings(path, row->values, frozen, RM_MAX_IO, &io.n_binds,
				       &frozen_data, why, sizeof why))
			s = WEBNN_STATUS_DATA_ERROR;
		io.binds = frozen;
		static struct rm_webnnd w;
		memset(&w, 0, sizeof w);
		double t_load = bc_now();
		if (s == WEBNN_STATUS_OK)
			s = webnn_model_load(dm.ctx, path, &io, &w.m, why, sizeof why);
		t_load = bc_now() - t_load;
		for (size_t i = 0; i < io.n_binds; i++)
			free((void *)frozen[i].name);
		free(frozen_data);
		if (s != WEBNN_STATUS_OK) {
			bc_fmt(line[r], sizeof line[r], "  %-34s does not load: %s: %s", row->label,
			       webnn_status_name(s), why);
			for (int k = 0; ort_ok && k < 2; k++)
				bc_child_cmd(&ort[k], reply, sizeof reply, "close m%d", r);
			continue;
		}
		loaded++;
		if (!ort_ok) {
			/* no peer: webnnd's own shapes and a time alone */
			n_ins = webnn_model_input_count(w.m);
			for (size_t i = 0; i < n_ins && i < RM_MAX_IO; i++) {
				struct webnn_operand_desc d;
				webnn_model_input_desc(w.m, i, &d);
				bc_fmt(ins[i].name, sizeof ins[i].name, "%s", webnn_model_input_name(w.m, i));
				ins[i].rank = d.rank;
				ins[i].count = 1;
				for (uint32_t k = 0; k < d.rank; k++)
					ins[i].count *= ins[i].shape[k] = d.shape[k];
			}
		}
		uint64_t seed = 0x9E3779B97F4A7C15ULL;
		for (const char *c = row->file; *c; c++)
			seed = (seed ^ (uint8_t)*c) * 0x100000001B3ULL;
		for (size_t i = 0; i < n_ins; i++) {
			rm_fill(&ins[i], ins[i].name, strcmp(row->values, "-") ? row->values : "", &seed);
			ASSERT_MSG(!ort_ok || rm_write_ort(&ins[i], tmp, (int)i),
				   "%s: input %zu: type %s is not one the bench feeds", row->label, i,
				   ins[i].ort_type);
		}
		bool ok = rm_webnnd_bind(&w, dm.ctx, ins, n_ins, err, sizeof err);
		double first[RM_N] = { NAN, NAN, NAN };
		if (ok)
			first[RM_WEBNND] = rm_webnnd_run(&w, dm.ctx, 1, err, sizeof err);
		ok = ok && !isnan(first[RM_WEBNND]);
		for (int k = 0; ok && ort_ok && k < 2; k++) {
			if (!bc_child_cmd(&ort[k], reply, sizeof reply, "feed m%d %s", r, tmp)) {
				bc_fmt(err, sizeof err, "onnxruntime: %s", reply);
				ort_ok = false;
			} else
				first[RM_ORT1 + k] = atof(reply + 3) / 1e3;
		}
		/* outputs first: a time of a wrong result means nothing */
		double maxd = NAN;
		bool same = false;
		if (ok && ort_ok) {
			compared++;
			ASSERT_MSG(bc_child_cmd(&ort[1], reply, sizeof reply, "outs m%d %s", r, tmp),
				   "onnxruntime outputs: %s", reply);
			same = rm_compare(&w, reply, tmp, &maxd, err, sizeof err);
			matched += same;
			mismatch = mismatch || !same;
		}
		/* timing: round robin, the order rotating; a sample is enough runs for RM_SAMPLE */
		int nv = ort_ok ? RM_N : 1, inner[RM_N], done = 0;
		double t[RM_N][BC_MAX_ROUNDS];
		pid_t pid[RM_N] = { dm.pid, ort[0].pid, ort[1].pid };
		for (int v = 0; v < nv; v++) {
			inner[v] = first[v] > 0 ? (int)(RM_SAMPLE / first[v]) : 1;
			inner[v] = inner[v] < 1 ? 1 : inner[v] > RM_MAX_INNER ? RM_MAX_INNER : inner[v];
			bc_pause(pid[v]);
		}
		char id[16];
		snprintf(id, sizeof id, "m%d", r);
		for (int k = -RM_WARM; ok && k < rounds; k++) {
			if (k >= 3 && bc_now() - t_start > budget)
				break;
			for (int j = 0; ok && j < nv; j++) {
				int v = (j + (k < 0 ? 0 : k)) % nv;
				bc_resume(pid[v]);
				double x = v == RM_WEBNND ?
						   rm_webnnd_run(&w, dm.ctx, inner[v], err, sizeof err) :
						   bc_ort_run(&ort[v - RM_ORT1], id, inner[v]);
				bc_pause(pid[v]);
				if (isnan(x)) {
					if (v != RM_WEBNND)
						bc_fmt(err, sizeof err, "onnxruntime failed to run");
					ok = false;
				} else if (k >= 0)
					t[v][k] = x;
			}
			done = k + 1;
		}
		for (int v = 0; v < nv; v++)
			bc_resume(pid[v]);
		for (int k = 0; ort_ok && k < 2; k++)
			bc_child_cmd(&ort[k], reply, sizeof reply, "close m%d", r);
		for (size_t i = 0; i < n_ins; i++)
			free(ins[i].v);
		if (!ok || done <= 0) {
			bc_fmt(line[r], sizeof line[r], "  %-34s loads (%.0f ms), then fails: %s",
			       row->label, t_load * 1e3, err);
			rm_webnnd_close(&w);
			continue;
		}
		double med[RM_N];
		for (int v = 0; v < nv; v++)
			med[v] = bc_median(t[v], done);
		if (!ort_ok) {
			bc_fmt(line[r], sizeof line[r], "  %-34s %9.3f ms   (onnxruntime: %s)",
			       row->label, med[0] * 1e3, err[0] ? err : ort_why);
			rm_webnnd_close(&w);
			continue;
		}
		int best = med[RM_ORT1] <= med[RM_ORT2] ? RM_ORT1 : RM_ORT2;
		double q = bc_ratio(t[RM_WEBNND], t[best], done);
		faster += same && q <= 1.0;
		bc_fmt(line[r], sizeof line[r],
		       "  %-34s %9.3f %9.3f %9.3f   %5.2f%s   %8.2g  %s%s%s   load %.0f / %.0f ms",
		       row->label, med[0] * 1e3, med[1] * 1e3, med[2] * 1e3, q,
		       best == RM_ORT1 ? "(1)" : "(2)", maxd, same ? "match" : "MISMATCH",
		       same ? "" : ": ", same ? "" : err, t_load * 1e3, ort_create);
		rm_webnnd_close(&w);
	}
	double elapsed = bc_now() - t_start;
	printf("  real models (%s, files in %s): %d rounds (after %d warm-up) of ~%.0f ms "
	       "samples per contender, round robin (%.1f s, load average %.2f before, %.2f after); "
	       "medians; ratio = median per-round webnnd/faster ORT ((1) or (2) threads)\n",
	       manifest, dir, rounds, RM_WARM, RM_SAMPLE * 1e3, elapsed, load0,
	       test_load_average());
	printf("    webnnd: %s, cpu backend; onnxruntime: %s\n", dm.device,
	       have_ort ? ort[0].version : ort_why);
	printf("  %-34s %9s %9s %9s   %8s   %8s  %s   %s\n", "model (ms)", "webnnd", "ORT 1 thr",
	       "ORT 2 thr", "ratio", "max |d|", "outputs", "load webnnd / ORT");
	for (int r = 0; r < n_rows; r++)
		printf("%s\n", line[r]);
	printf("  %d of %d files load in webnnd; %d of %d compared match onnxruntime; %d at or "
	       "under 1.0x onnxruntime's time\n",
	       loaded, n_rows, matched, compared, faster);
	for (int i = 0; i < RM_MAX_IO; i++) {
		char path[600];
		snprintf(path, sizeof path, "%s/in%d.bin", tmp, i);
		unlink(path);
		snprintf(path, sizeof path, "%s/out%d.bin", tmp, i);
		unlink(path);
	}
	rmdir(tmp);
	for (int k = 0; k < 2; k++)
		bc_child_stop(&ort[k]);
	bc_daemon_stop(&dm);
	ASSERT_MSG(!mismatch, "a model that loads gives other outputs than onnxruntime (above)");
}

/* The table must stay reproducible: every row names an exact package version, a file and its
 * sha256 (what bench/fetch_real_models.sh checks), and the file names are distinct (they share
 * one folder). */
TEST(real_models_manifest_pinned)
{
	static struct rm_row rows[RM_MAX_ROWS];
	int n;
	char why[600], manifest[4200];
	const char *e = getenv("WEBNN_BENCH_SCRIPTS");
	snprintf(manifest, sizeof manifest, "%s/real_models.txt", e && *e ? e : "bench");
	struct stat st;
	if (stat(manifest, &st) != 0)
		SKIP("%s is absent (run the tests from the source tree)", manifest);
	ASSERT_MSG(rm_read_manifest(manifest, rows, &n, why, sizeof why), "%s", why);
	ASSERT_MSG(n > 0, "%s has no rows", manifest);
	FILE *f = fopen(manifest, "r");
	ASSERT(f);
	char line[1024];
	int sums = 0;
	while (fgets(line, sizeof line, f)) {
		char *s = rm_trim(line);
		if (!*s || *s == '#')
			continue;
		char *col = s;
		for (int c = 0; c < 3; c++)
			col = strchr(col, '|') + 1;
		char *sum = rm_trim(strtok(col, "|"));
		ASSERT_MSG(strlen(sum) == 64 && strspn(sum, "0123456789abcdef") == 64,
			   "%s: row %d: '%s' is not a sha256", manifest, sums + 1, sum);
		sums++;
	}
	fclose(f);
	ASSERT_EQ(sums, n);
	for (int r = 0; r < n; r++) {
		const char *at = strrchr(rows[r].package, '@');
		ASSERT_MSG(at && at != rows[r].package && strspn(at + 1, "0123456789.") == strlen(at + 1) &&
				   at[1],
			   "%s: %s: '%s' is not package@exact-version", manifest, rows[r].label,
			   rows[r].package);
		ASSERT_MSG(strstr(rows[r].file, ".onnx"), "%s: %s: %s is not an ONNX file", manifest,
			   rows[r].label, rows[r].file);
		for (int q = 0; q < r; q++)
			ASSERT_MSG(strcmp(rows[q].file, rows[r].file) != 0, "%s: %s twice", manifest,
				   rows[r].file);
	}
}
