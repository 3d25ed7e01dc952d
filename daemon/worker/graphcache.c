/* The graph cache (SaveGraph/LoadGraph): entries written whole and renamed, mapped and verified at load, capped per user with LRU eviction. */
#include "daemon/worker/graphcache.h"

#include "daemon/worker/context.h"
#include "daemon/log.h"
#include "daemon/worker/mlgraph.h"
#include "daemon/worker/reply.h"
#include "daemon/worker/request.h"
#include "daemon/safedir.h"
#include "daemon/worker/session.h"
#include "daemon/worker/weights.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GC_MAGIC "WNNGRAPH"
#define GC_FORMAT 2u
#define GC_SUFFIX ".wg"
#define GC_ALIGN 4096u
/* A writer's temporary file older than this was left by a worker that died while writing. */
#define GC_STALE_TMP_S 600

/* The file: this header, the packed GraphInfo, the constant table, the table of the backend's
 * prepared copies and their keys, then (from data_off, page aligned) each constant's bytes and
 * each prepared copy's at 64-byte aligned offsets. */
struct gc_header {
	char magic[8];
	uint32_t format, n_consts;
	char version[192];     /* daemon, protocol, backend, device, driver, plan tag: NUL padded */
	uint64_t info_off, info_len;
	uint64_t table_off;    /* n_consts struct gc_const */
	uint64_t prep_off;     /* n_prep struct gc_prep */
	uint32_t n_prep, pad;
	uint64_t keys_off, keys_len;
	uint64_t data_off, data_len;
	uint64_t file_len;
	/* Of the hashes (gc_digest) of this header (both hashes zero), the GraphInfo, the tables
	 * and the keys: checked before anything of the entry is used. */
	uint64_t head_hash;
	/* Of the hashes of each constant's and each prepared copy's bytes: checked at the load
	 * when they are small (GC_EAGER_BYTES), else before the graph's first dispatch reads them
	 * (graphcache_check_run). */
	uint64_t data_hash;
};

struct gc_const {
	uint32_t operand, pad;
	uint64_t off, bytes; /* off: from data_off */
};

/* A copy the backend prepared from a constant (backend_prepared): made from the bytes at
 * src_off in constant operand `operand`, the way key (at key_off from keys_off) says. */
struct gc_prep {
	uint32_t operand, key_len;
	uint64_t src_off, key_off;
	uint64_t off, bytes; /* off: from data_off */
};

/* Data up to this size is hashed at the load; more, before the first dispatch. */
#define GC_EAGER_BYTES (16ull << 20)

/* Whether key is a valid key: false with diag (TYPE_ERROR naming the rule). */
static bool graphcache_key_valid(const char *key, const char *what, struct wnn_diag *diag)
{
	size_t n = key ? strlen(key) : 0;
	if (n == 0 || n > GRAPHCACHE_KEY_MAX) {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: the key is %zu characters long; "
			     "a key has 1 to %d", what, n, GRAPHCACHE_KEY_MAX);
		return false;
	}
	if (key[0] == '.') {
		wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR, "%s: the key '%s' starts with '.'",
			     what, key);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)key[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
		if (!ok) {
			wnn_diag_set(diag, WEBNN_STATUS_TYPE_ERROR,
				     "%s: the key has character 0x%02x at %zu; a key is made of "
				     "letters, digits, '.', '_' and '-'", what, ch, i);
			return false;
		}
	}
	return true;
}

/* What an entry must have been written by: another daemon, protocol, backend, device or
 * driver makes it stale. */
static void gc_version(const struct context *c, char *out, size_t len)
{
	char full[512];
	int n = snprintf(full, sizeof(full), "webnnd %s; protocol %d.%d; format %u; %s; %s; %s; "
			 "%s", WEBNND_VERSION, WNN_PROTOCOL_MAJOR, WNN_PROTOCOL_MINOR, GC_FORMAT,
			 c->backend->impl->name, c->info.device_name, c->info.driver_version,
			 c->info.plan_tag);
	size_t fl = n < 0 ? 0 : (size_t)n < sizeof(full) ? (size_t)n : sizeof(full) - 1;
	/* A long device name is cut in the header; the hash of the whole keeps it exact. */
	memset(out, 0, len);
	snprintf(out, len, "%.150s #%016" PRIx64, full, weights_hash(full, fl));
}

/* The user's store directory, opened (an O_PATH descriptor), created 0700 when missing. */
static int gc_dir(uid_t uid, struct wnn_diag *diag, const char *what)
{
	const char *base = getenv("WEBNN_CACHE_DIR");
	if (!base || !*base) {
		wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED, "%s: the daemon has no cache "
			     "directory (cache_dir)", what);
		return -1;
	}
	char dir[1024];
	if (snprintf(dir, sizeof(dir), "%s/graphs/%u", base, (unsigned)uid) >= (int)sizeof(dir)) {
		wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED, "%s: the cache directory's path "
			     "is too long", what);
		return -1;
	}
	struct safedir_rule rule = { .owners = { 0, geteuid() }, .n_owners = 2,
				     .create_mode = 0700, .chown_uid = (uid_t)-1,
				     .chown_gid = (gid_t)-1 };
	char why[512];
	int fd = safedir_open(dir, &rule, why, sizeof(why));
	if (fd < 0) {
		wnn_diag_set(diag, WEBNN_STATUS_NOT_SUPPORTED, "%s: cannot use the graph cache: %s",
			     what, why);
		return -1;
	}
	return fd;
}

static void gc_name(const char *key, char *out, size_t len)
{
	snprintf(out, len, "%s" GC_SUFFIX, key);
}

/* The hash of an entry: of the hashes of its parts, so that each constant is hashed alone. */
struct gc_digest {
	uint64_t *h;
	size_t n;
};

static uint64_t gc_digest_final(const struct gc_digest *d)
{
	return weights_hash(d->h, d->n * sizeof(uint64_t));
}

static uint64_t gc_header_hash(const struct gc_header *h)
{
	struct gc_header c = *h;
	c.head_hash = c.data_hash = 0;
	return weights_hash(&c, sizeof(c));
}

/* The head hash of an entry whose parts lie at these addresses. */
static uint64_t gc_head_hash(const struct gc_header *h, const void *info, const void *table,
			     const void *prep, const void *keys)
{
	uint64_t parts[5] = {
		gc_header_hash(h),
		weights_hash(info, h->info_len),
		weights_hash(table, h->n_consts * sizeof(struct gc_const)),
		weights_hash(prep, h->n_prep * sizeof(struct gc_prep)),
		weights_hash(keys, h->keys_len),
	};
	return weights_hash(parts, sizeof(parts));
}

/* The data hash of n parts (p[i], bytes[i] long); 0 with *oom when out of memory. */
/* ---- save */

struct gc_save {
	uv_work_t work;
	struct session *s;
	struct mlgraph *g;        /* referenced */
	uint64_t serial;
	int dir;
	char key[GRAPHCACHE_KEY_MAX + 1];
	uint64_t cap;
	uint8_t *info;            /* the packed GraphInfo */
	size_t info_len;
	struct gc_header h;
	struct gc_const *consts;
	const void **cdata;
	struct gc_prep *preps;
	uint8_t *keys;
	const void **pdata;       /* the prepared copies' bytes, referenced (prepared_release) */
	uint64_t weights_restored, weights_dropped; /* constant bytes (mlgraph_pin_all) */
	const struct backend_impl *impl;
	struct wnn_diag diag;
	uint64_t evicted, evicted_bytes;
};

static bool write_all(int fd, const void *p, size_t n, uint64_t off)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t w = pwrite(fd, b, n > (1u << 30) ? (1u << 30) : n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		b += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return true;
}

struct gc_file {
	char name[GRAPHCACHE_KEY_MAX + 8];
	uint64_t bytes;
	struct timespec used;
};

static int cmp_used(const void *a, const void *b)
{
	const struct gc_file *x = a, *y = b;
	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* Removes the least recently used entries (never `keep`) until the store holds at most cap
 * bytes besides `reserve`, and temporary files writers left behind. false when it cannot. */
static bool gc_evict(int dir, const char *keep, uint64_t reserve, uint64_t cap,
		     uint64_t *evicted, uint64_t *evicted_bytes)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dp) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	struct gc_file *files = NULL;
	size_t n = 0, cap_files = 0;
	uint64_t total = 0;
	time_t now = time(NULL);
	struct dirent *e;
	while ((e = readdir(dp))) {
		struct stat st;
		if (fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' && len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0) {
			if (now - st.st_mtime > GC_STALE_TMP_S)
				unlinkat(dir, e->d_name, 0);
			continue;
		}
		if (len <= strlen(GC_SUFFIX) || len >= sizeof(files[0].name) ||
		    strcmp(e->d_name + len - strlen(GC_SUFFIX), GC_SUFFIX) != 0)
			continue;
		if (n == cap_files) {
			size_t nc = cap_files ? cap_files * 2 : 32;
			struct gc_file *nf = realloc(files, nc * sizeof(*nf));
			if (!nf)
				break;
			files = nf;
			cap_files = nc;
		}
		memcpy(files[n].name, e->d_name, len + 1); /* len < sizeof(name): checked above */
		files[n].bytes = (uint64_t)st.st_blocks * 512;
		files[n].used = st.st_mtim;
		total += files[n].bytes;
		n++;
	}
	closedir(dp);
	if (n)
		qsort(files, n, sizeof(*files), cmp_used);
	for (size_t i = 0; i < n && total + reserve > cap; i++) {
		if (keep && strcmp(files[i].name, keep) == 0)
			continue;
		if (unlinkat(dir, files[i].name, 0) == 0) {
			total -= files[i].bytes;
			(*evicted)++;
			*evicted_bytes += files[i].bytes;
		}
	}
	free(files);
	return total + reserve <= cap;
}

/* The bytes of constant i of the save, pinned (daemon/worker/weights.h: a constant given back
 * once the backend reordered it is written back for as long as it is hashed and written, one
 * at a time, so that a save needs one constant's memory more, not the model's). *w: the shared
 * copy pinned, NULL when the bytes are not a shared copy. false when they cannot be restored. */
static bool save_pin(struct gc_save *sv, uint32_t i, struct weights **w)
{
	*w = mlgraph_operand_weights(sv->g, sv->consts[i].operand);
	return !*w || weights_pin(*w, &sv->weights_restored);
}

static void save_unpin(struct gc_save *sv, struct weights *w)
{
	if (!w)
		return;
	weights_unpin(w);
	sv->weights_dropped += weights_drop(w, sv->impl);
}

static void save_work(uv_work_t *w)
{
	struct gc_save *sv = w->data;
	struct gc_header *h = &sv->h;
	struct wnn_diag *diag = &sv->diag;
	/* A graph loaded from an entry whose bytes are not checked yet is saved only once they
	 * are: a damaged entry must not be written again under a fresh hash. */
	if (sv->g->check && graphcache_check_run(sv->g->check, diag) != WEBNN_STATUS_OK)
		return;
	size_t n_parts = (size_t)h->n_consts + h->n_prep;
	uint64_t *hashes = calloc(n_parts ? n_parts : 1, sizeof(*hashes));
	if (!hashes) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "save: out of memory");
		return;
	}
	if (!gc_evict(sv->dir, NULL, h->file_len, sv->cap, &sv->evicted, &sv->evicted_bytes)) {
		wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "save: the graph cache of this user "
			     "cannot take an entry of %" PRIu64 " bytes (max_graph_cache_bytes %"
			     PRIu64 ")", h->file_len, sv->cap);
		free(hashes);
		return;
	}
	char tmp[GRAPHCACHE_KEY_MAX + 64], name[GRAPHCACHE_KEY_MAX + 8];
	snprintf(tmp, sizeof(tmp), ".%s.%d.%lx.tmp", sv->key, (int)getpid(),
		 (unsigned long)(uintptr_t)sv);
	gc_name(sv->key, name, sizeof(name));
	int fd = openat(sv->dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		wnn_diag_set(diag, WEBNN_STATUS_OPERATION_ERROR, "save: cannot create the cache "
			     "entry: %s", strerror(errno));
		free(hashes);
		return;
	}
	bool ok = ftruncate(fd, (off_t)h->file_len) == 0 &&
		  write_all(fd, sv->info, sv->info_len, h->info_off) &&
		  write_all(fd, sv->consts, h->n_consts * sizeof(*sv->consts), h->table_off) &&
		  write_all(fd, sv->preps, h->n_prep * sizeof(*sv->preps), h->prep_off) &&
		  write_all(fd, sv->keys, h->keys_len, h->keys_off);
	int err = errno;
	bool restore_failed = false;
	for (uint32_t i = 0; ok && i < h->n_consts; i++) {
		struct weights *pw;
		if (!save_pin(sv, i, &pw)) {
			ok = false;
			restore_failed = true;
			break;
		}
		hashes[i] = weights_hash(sv->cdata[i], sv->consts[i].bytes);
		ok = write_all(fd, sv->cdata[i], sv->consts[i].bytes,
			       h->data_off + sv->consts[i].off);
		err = errno;
		save_unpin(sv, pw);
	}
	for (uint32_t i = 0; ok && i < h->n_prep; i++) {
		hashes[h->n_consts + i] = weights_hash(sv->pdata[i], sv->preps[i].bytes);
		ok = write_all(fd, sv->pdata[i], sv->preps[i].bytes,
			       h->data_off + sv->preps[i].off);
		err = errno;
	}
	if (ok) {
		/* the header last: its hashes cover the bytes just written */
		struct gc_digest d = { hashes, n_parts };
		h->data_hash = gc_digest_final(&d);
		h->head_hash = gc_head_hash(h, sv->info, sv->consts, sv->preps, sv->keys);
		ok = write_all(fd, h, sizeof(*h), 0);
		err = errno;
	}
	free(hashes);
	/* The rename publishes a whole file: a reader opens the old entry, the new one or none
	 * (a crash before the data reach the disk leaves an entry the hashes refuse). */
	if (close(fd) != 0 && ok) {
		ok = false;
		err = errno;
	}
	if (ok && renameat(sv->dir, tmp, sv->dir, name) != 0) {
		ok = false;
		err = errno;
	}
	if (!ok) {
		unlinkat(sv->dir, tmp, 0);
		if (restore_failed)
			wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "save: out of memory restoring "
				     "a constant's bytes");
		else
			wnn_diag_set(diag, err == ENOSPC || err == EDQUOT
						   ? WEBNN_STATUS_NO_MEMORY
						   : WEBNN_STATUS_OPERATION_ERROR,
				     "save: cannot write the cache entry: %s", strerror(err));
	}
}

static void save_free(struct gc_save *sv)
{
	if (sv->dir >= 0)
		close(sv->dir);
	for (uint32_t i = 0; sv->pdata && i < sv->h.n_prep; i++)
		sv->impl->prepared_release(sv->pdata[i]);
	free(sv->info);
	free(sv->consts);
	free(sv->cdata);
	free(sv->preps);
	free(sv->keys);
	free(sv->pdata);
	free(sv);
}

static void save_done(uv_work_t *w, int status)
{
	(void)status;
	struct gc_save *sv = w->data;
	struct session *s = sv->s;
	if (sv->evicted)
		log_info("graph cache of uid %u: %" PRIu64 " least recently used entries (%" PRIu64
			 " bytes) evicted to stay within max_graph_cache_bytes", (unsigned)s->uid,
			 sv->evicted, sv->evicted_bytes);
	if (!s->closed) {
		if (sv->diag.status != WEBNN_STATUS_OK)
			reply_error(s, sv->serial, &sv->diag);
		else
			reply_ok(s, sv->serial);
	}
	struct mlgraph *g = sv->g;
	mlgraph_weights_settle(s->d, sv->weights_dropped, sv->weights_restored);
	save_free(sv);
	obj_unref(&g->obj);
	session_unref(s);
}

static bool is_constant_operand(const Webnn__Ipc__Operand *o)
{
	return o->kind == WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT ||
	       o->kind == WEBNN__IPC__OPERAND_KIND__OPERAND_CONSTANT_TENSOR;
}

/* The backend's prepared copies made from the graph's constants (sv->consts and cdata filled):
 * kept referenced in sv->pdata, with their table and keys. false when out of memory. */
static bool save_prepared(struct gc_save *sv, uint32_t n_consts)
{
	struct backend_prepared *list = NULL;
	size_t n = sv->impl->prepared_take ? sv->impl->prepared_take(&list) : 0;
	bool ok = true;
	if (n) {
		sv->preps = calloc(n, sizeof(*sv->preps));
		sv->pdata = calloc(n, sizeof(*sv->pdata));
		ok = sv->preps && sv->pdata;
	}
	uint64_t keys_len = 0;
	uint32_t kept = 0;
	for (size_t j = 0; j < n; j++) {
		const struct backend_prepared *p = &list[j];
		uint32_t c = n_consts;
		/* the backend holds the copies of every graph of the worker: this graph's are
		 * those made from bytes in its constants */
		for (uint32_t i = 0; ok && i < n_consts; i++) {
			const uint8_t *base = sv->cdata[i];
			if (base && (const uint8_t *)p->src >= base &&
			    (const uint8_t *)p->src < base + sv->consts[i].bytes) {
				c = i;
				break;
			}
		}
		if (c == n_consts) {
			sv->impl->prepared_release(p->data);
			continue;
		}
		sv->preps[kept] = (struct gc_prep){
			.operand = sv->consts[c].operand, .key_len = p->key_len,
			.src_off = (uint64_t)((const uint8_t *)p->src - (const uint8_t *)sv->cdata[c]),
			.key_off = keys_len, .bytes = p->bytes };
		sv->pdata[kept++] = p->data;
		keys_len += (p->key_len + 7) & ~(uint32_t)7;
	}
	sv->h.n_prep = kept;
	sv->h.keys_len = keys_len;
	sv->keys = calloc(keys_len ? keys_len : 1, 1);
	for (uint32_t i = 0, j = 0; sv->keys && j < n && i < kept; j++)
		if (list[j].data == sv->pdata[i]) {
			memcpy(sv->keys + sv->preps[i].key_off, list[j].key, list[j].key_len);
			i++;
		}
	free(list);
	return ok && sv->keys;
}

int handle_save_graph(struct session *s, struct request *rq)
{
	const Webnn__Ipc__SaveGraph *m = rq->msg->save_graph;
	struct wnn_diag diag = { 0 };
	if (rq->serial == 0)
		return request_violation(s, "SaveGraph: a serial is required");
	struct mlgraph *g =
		(struct mlgraph *)request_lookup(s, m->graph_id, &mlgraph_kind, "SaveGraph");
	if (!g)
		return -1;
	struct gc_save *sv = NULL;
	if (!graphcache_key_valid(m->key, "save", &diag))
		goto fail;
	if (!g->compiled || g->failed) {
		wnn_diag_set(&diag, WEBNN_STATUS_INVALID_STATE, "save: graph %" PRIu32 " is not "
			     "built%s%s", g->obj.id, g->failed ? ": " : "",
			     g->failed ? g->fail_msg : "");
		goto fail;
	}
	const Webnn__Ipc__GraphInfo *gi = mlgraph_info(g);
	sv = calloc(1, sizeof(*sv));
	if (!sv)
		goto oom;
	sv->dir = -1;
	uint32_t n_consts = 0;
	for (size_t i = 0; i < gi->n_operands; i++)
		n_consts += is_constant_operand(gi->operands[i]);
	sv->info_len = webnn__ipc__graph_info__get_packed_size(gi);
	sv->info = malloc(sv->info_len ? sv->info_len : 1);
	sv->consts = calloc(n_consts ? n_consts : 1, sizeof(*sv->consts));
	sv->cdata = calloc(n_consts ? n_consts : 1, sizeof(*sv->cdata));
	if (!sv->info || !sv->consts || !sv->cdata)
		goto oom;
	webnn__ipc__graph_info__pack(gi, sv->info);
	struct gc_header *h = &sv->h;
	uint32_t k = 0;
	for (size_t i = 0; i < gi->n_operands; i++) {
		if (!is_constant_operand(gi->operands[i]))
			continue;
		uint64_t b = 0;
		wnn_desc_bytes(&g->descs[i], &b);
		sv->consts[k] = (struct gc_const){ .operand = (uint32_t)i, .bytes = b };
		sv->cdata[k++] = g->cdata[i];
	}
	sv->impl = g->ctx->backend->impl;
	if (!save_prepared(sv, n_consts))
		goto oom;
	memcpy(h->magic, GC_MAGIC, 8);
	h->format = GC_FORMAT;
	h->n_consts = n_consts;
	gc_version(g->ctx, h->version, sizeof(h->version));
	h->info_off = sizeof(*h);
	h->info_len = sv->info_len;
	h->table_off = (h->info_off + h->info_len + 7) & ~(uint64_t)7;
	h->prep_off = h->table_off + n_consts * sizeof(struct gc_const);
	h->keys_off = h->prep_off + h->n_prep * sizeof(struct gc_prep);
	h->data_off = (h->keys_off + h->keys_len + GC_ALIGN - 1) & ~(uint64_t)(GC_ALIGN - 1);
	uint64_t off = 0;
	for (uint32_t i = 0; i < n_consts; i++) {
		sv->consts[i].off = off;
		off = (off + sv->consts[i].bytes + 63) & ~(uint64_t)63;
	}
	for (uint32_t i = 0; i < h->n_prep; i++) {
		sv->preps[i].off = off;
		off = (off + sv->preps[i].bytes + 63) & ~(uint64_t)63;
	}
	h->data_len = off;
	h->file_len = h->data_off + off;
	sv->dir = gc_dir(s->uid, &diag, "save");
	if (sv->dir < 0)
		goto fail;
	snprintf(sv->key, sizeof(sv->key), "%s", m->key);
	sv->cap = s->d->limits.max_graph_cache_bytes;
	if (h->file_len > sv->cap) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "save: the entry would be %" PRIu64
			     " bytes, more than the graph cache of a user holds "
			     "(max_graph_cache_bytes %" PRIu64 ")", h->file_len, sv->cap);
		goto fail;
	}
	sv->s = s;
	sv->g = g;
	sv->serial = rq->serial;
	sv->work.data = sv;
	obj_ref(&g->obj);
	session_ref(s);
	/* The graph's constants stay as they are while it is referenced: written on the pool. */
	if (uv_queue_work(s->d->loop, &sv->work, save_work, save_done) != 0) {
		obj_unref(&g->obj);
		session_unref(s);
		goto oom;
	}
	return 0;
oom:
	wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "save: out of memory");
fail:
	if (sv)
		save_free(sv);
	reply_error(s, rq->serial, &diag);
	return 0;
}

/* ---- load */

enum gc_found { GC_ABSENT, GC_LOADED, GC_FAILED };

/* The part of a load checked later: the hash of the constants' and prepared copies' bytes. */
struct graphcache_check {
	pthread_mutex_t lock;
	int state;                /* CHECK_PENDING, CHECK_OK, CHECK_DAMAGED */
	const void **parts;       /* in the graph's mapped entry */
	uint64_t *lens;
	size_t n;
	size_t n_consts;          /* the first parts: constants, whose pages are dropped once
				     hashed (gc_hash_drop) */
	uint64_t want;
	int dir;                  /* the user's store, to remove the entry when damaged */
	dev_t dev;
	ino_t ino;
	char key[GRAPHCACHE_KEY_MAX + 1];
	double ms;                /* how long the check took (for the log) */
};
enum { CHECK_PENDING, CHECK_OK, CHECK_DAMAGED };

static void check_free(struct graphcache_check *k)
{
	if (!k)
		return;
	if (k->dir >= 0)
		close(k->dir);
	pthread_mutex_destroy(&k->lock);
	free(k->parts);
	free(k->lens);
	free(k);
}

/* The data hash of k's parts. Each constant's whole pages are dropped from the process once
 * hashed (MADV_DONTNEED: the mapping is read-only and private, so they stay in the page cache
 * and a later read faults them back): the constants a prepared copy replaced are never read
 * again, and the worker's memory then holds one copy of each weight instead of two (BERT-base
 * loaded from the cache: 0.66 GB at peak before, see README). The prepared copies stay: every
 * dispatch reads them. */
static uint64_t gc_hash_drop(struct graphcache_check *k, bool *oom)
{
	uint64_t *hashes = calloc(k->n ? k->n : 1, sizeof(uint64_t));
	*oom = !hashes;
	if (!hashes)
		return 0;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < k->n; i++) {
		hashes[i] = weights_hash(k->parts[i], k->lens[i]);
		uintptr_t a = ((uintptr_t)k->parts[i] + page - 1) & ~(page - 1);
		uintptr_t b = ((uintptr_t)k->parts[i] + k->lens[i]) & ~(page - 1);
		if (i < k->n_consts && b > a)
			madvise((void *)a, b - a, MADV_DONTNEED);
	}
	struct gc_digest d = { hashes, k->n };
	uint64_t r = gc_digest_final(&d);
	free(hashes);
	return r;
}

void graphcache_check_free(struct graphcache_check *k)
{
	check_free(k);
}

enum webnn_status graphcache_check_run(struct graphcache_check *k, struct wnn_diag *diag)
{
	pthread_mutex_lock(&k->lock);
	if (k->state == CHECK_PENDING) {
		uint64_t t0 = uv_hrtime();
		bool oom = false;
		uint64_t h = gc_hash_drop(k, &oom);
		k->ms = (double)(uv_hrtime() - t0) / 1e6;
		if (oom) {
			pthread_mutex_unlock(&k->lock);
			return wnn_diag_set(diag, WEBNN_STATUS_NO_MEMORY, "the graph cache entry "
					    "'%s' could not be checked: out of memory", k->key);
		}
		k->state = h == k->want ? CHECK_OK : CHECK_DAMAGED;
		if (k->state == CHECK_DAMAGED) {
			/* removed unless a new entry took the name meanwhile */
			char name[GRAPHCACHE_KEY_MAX + 8];
			struct stat st;
			gc_name(k->key, name, sizeof(name));
			if (fstatat(k->dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    st.st_dev == k->dev && st.st_ino == k->ino)
				unlinkat(k->dir, name, 0);
			log_warn("graph cache: entry '%s' is damaged (its constants do not match "
				 "their hash): removed", k->key);
		} else {
			log_debug("graph cache: entry '%s' checked in %.1f ms", k->key, k->ms);
		}
	}
	int state = k->state;
	pthread_mutex_unlock(&k->lock);
	if (state == CHECK_DAMAGED)
		return wnn_diag_set(diag, WEBNN_STATUS_DATA_ERROR, "the graph was loaded from the "
				    "graph cache entry '%s', which is damaged (its constants do not "
				    "match their hash): it was removed; build the graph again",
				    k->key);
	return WEBNN_STATUS_OK;
}

bool graphcache_check_pending(struct graphcache_check *k)
{
	pthread_mutex_lock(&k->lock);
	bool pending = k->state == CHECK_PENDING;
	pthread_mutex_unlock(&k->lock);
	return pending;
}

struct gc_load {
	uv_work_t work;
	struct session *s;
	struct context *c;        /* referenced */
	const struct backend_impl *impl;
	uint64_t serial;
	uint32_t graph_id;
	int dir;
	char key[GRAPHCACHE_KEY_MAX + 1];
	char version[192];
	uint64_t max_info;
	enum gc_found found;
	struct wnn_diag diag;
	const char *stale;        /* why an entry was dropped as stale (logged) */
	double map_ms, hash_ms;   /* for the log */
	uint32_t adopted;         /* prepared copies the backend took */
	struct mlgraph_loaded ld;
	const void **data;
	uint64_t *bytes;
};

/* The entry is damaged: refused (DATA_ERROR naming why) and removed. */
static void load_damaged(struct gc_load *ld, const char *name, const char *why)
{
	unlinkat(ld->dir, name, 0);
	ld->found = GC_FAILED;
	wnn_diag_set(&ld->diag, WEBNN_STATUS_DATA_ERROR, "load: the graph cache entry '%s' is "
		     "damaged (%s): it was removed; build the graph again", ld->key, why);
}

static void load_oom(struct gc_load *ld)
{
	ld->found = GC_FAILED;
	wnn_diag_set(&ld->diag, WEBNN_STATUS_NO_MEMORY, "load: out of memory");
}

/* Whether [off, off + len) lies within [0, total). */
static bool gc_within(uint64_t off, uint64_t len, uint64_t total)
{
	return off <= total && len <= total - off;
}

/* The header's parts lie within the file of len bytes. */
static bool gc_header_sane(const struct gc_header *h, uint64_t len, uint64_t max_info)
{
	return h->file_len == len && h->info_off >= sizeof(*h) && h->info_len <= max_info &&
	       gc_within(h->info_off, h->info_len, len) && h->table_off <= len &&
	       h->n_consts <= (len - h->table_off) / sizeof(struct gc_const) &&
	       h->prep_off <= len && h->n_prep <= (len - h->prep_off) / sizeof(struct gc_prep) &&
	       gc_within(h->keys_off, h->keys_len, len) && gc_within(h->data_off, h->data_len, len);
}

/* The data parts' addresses and lengths (constants, then prepared copies), in ld->ld.check;
 * false when out of memory. */
static bool load_check_new(struct gc_load *ld, const struct gc_header *h, const uint8_t *base,
			   const struct gc_const *table, const struct gc_prep *prep,
			   const struct stat *st)
{
	struct graphcache_check *k = calloc(1, sizeof(*k));
	size_t n = (size_t)h->n_consts + h->n_prep;
	if (!k)
		return false;
	k->dir = -1;
	pthread_mutex_init(&k->lock, NULL);
	k->parts = calloc(n ? n : 1, sizeof(*k->parts));
	k->lens = calloc(n ? n : 1, sizeof(*k->lens));
	if (!k->parts || !k->lens) {
		check_free(k);
		return false;
	}
	for (uint32_t i = 0; i < h->n_consts; i++) {
		k->parts[i] = base + h->data_off + table[i].off;
		k->lens[i] = table[i].bytes;
	}
	for (uint32_t i = 0; i < h->n_prep; i++) {
		k->parts[h->n_consts + i] = base + h->data_off + prep[i].off;
		k->lens[h->n_consts + i] = prep[i].bytes;
	}
	k->n = n;
	k->n_consts = h->n_consts;
	k->want = h->data_hash;
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	snprintf(k->key, sizeof(k->key), "%s", ld->key);
	ld->ld.check = k;
	return true;
}

/* Offers the entry's prepared copies to the backend (those it takes are released with the
 * graph). false when out of memory. */
static bool load_adopt(struct gc_load *ld, const struct gc_header *h, const uint8_t *base,
		       const struct gc_prep *prep, size_t n_operands)
{
	if (!h->n_prep || !ld->impl->prepared_adopt)
		return true;
	const void **taken = calloc(h->n_prep, sizeof(*taken));
	if (!taken)
		return false;
	uint32_t n = 0;
	for (uint32_t i = 0; i < h->n_prep; i++) {
		const struct gc_prep *p = &prep[i];
		/* bounds were checked at the load; the operand and offset against the graph */
		if (p->operand >= n_operands || !ld->data[p->operand] ||
		    p->src_off >= ld->bytes[p->operand])
			continue;
		struct backend_prepared bp = {
			.src = (const uint8_t *)ld->data[p->operand] + p->src_off,
			.key = base + h->keys_off + p->key_off, .key_len = p->key_len,
			.data = base + h->data_off + p->off, .bytes = p->bytes };
		if (ld->impl->prepared_adopt(&bp))
			taken[n++] = bp.data;
	}
	ld->ld.prepared = taken;
	ld->ld.n_prepared = n;
	ld->ld.impl = ld->impl;
	ld->adopted = n;
	return true;
}

static void load_work(uv_work_t *w)
{
	struct gc_load *ld = w->data;
	char name[GRAPHCACHE_KEY_MAX + 8];
	gc_name(ld->key, name, sizeof(name));
	int fd = openat(ld->dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT) {
			ld->found = GC_ABSENT;
		} else {
			ld->found = GC_FAILED;
			wnn_diag_set(&ld->diag, WEBNN_STATUS_OPERATION_ERROR, "load: cannot open "
				     "the graph cache entry '%s': %s", ld->key, strerror(errno));
		}
		return;
	}
	struct stat st;
	struct gc_header h;
	void *map = MAP_FAILED;
	size_t len = 0;
	Webnn__Ipc__GraphInfo *gi = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077)) {
		load_damaged(ld, name, "not a file of the daemon's own with mode 0600");
		goto out;
	}
	len = (size_t)st.st_size;
	if (len < sizeof(h) || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, GC_MAGIC, 8) != 0) {
		load_damaged(ld, name, "no entry header");
		goto out;
	}
	h.version[sizeof(h.version) - 1] = 0;
	if (h.format != GC_FORMAT || strcmp(h.version, ld->version) != 0) {
		/* Written by another daemon, backend or device: stale, not damaged. */
		unlinkat(ld->dir, name, 0);
		ld->found = GC_ABSENT;
		ld->stale = "it was written by another daemon version, backend or device";
		goto out;
	}
	if (!gc_header_sane(&h, len, ld->max_info)) {
		load_damaged(ld, name, "its length or offsets do not match its header: truncated?");
		goto out;
	}
	/* Not populated: the compile reads the GraphInfo, the tables and the constants no
	 * prepared copy replaces; the rest is read when the data are checked or run. */
	uint64_t t0 = uv_hrtime();
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	uint64_t t1 = uv_hrtime();
	if (map == MAP_FAILED) {
		ld->found = GC_FAILED;
		wnn_diag_set(&ld->diag, WEBNN_STATUS_NO_MEMORY, "load: cannot map the graph cache "
			     "entry '%s' (%zu bytes): %s", ld->key, len, strerror(errno));
		goto out;
	}
	const uint8_t *base = map;
	const struct gc_const *table = (const struct gc_const *)(base + h.table_off);
	const struct gc_prep *prep = (const struct gc_prep *)(base + h.prep_off);
	if (gc_head_hash(&h, base + h.info_off, table, prep, base + h.keys_off) != h.head_hash) {
		load_damaged(ld, name, "its graph or tables do not match their hash");
		goto out;
	}
	for (uint32_t i = 0; i < h.n_consts; i++)
		if (!gc_within(table[i].off, table[i].bytes, h.data_len)) {
			load_damaged(ld, name, "a constant lies outside the entry");
			goto out;
		}
	for (uint32_t i = 0; i < h.n_prep; i++)
		if (!gc_within(prep[i].off, prep[i].bytes, h.data_len) ||
		    !gc_within(prep[i].key_off, prep[i].key_len, h.keys_len)) {
			load_damaged(ld, name, "a prepared copy lies outside the entry");
			goto out;
		}
	if (!load_check_new(ld, &h, base, table, prep, &st)) {
		load_oom(ld);
		goto out;
	}
	if (h.data_len <= GC_EAGER_BYTES) {
		struct wnn_diag d = { 0 };
		if (graphcache_check_run(ld->ld.check, &d) != WEBNN_STATUS_OK) {
			if (d.status == WEBNN_STATUS_NO_MEMORY) {
				load_oom(ld);
				goto out;
			}
			load_damaged(ld, name, "its contents do not match their hash");
			goto out;
		}
		check_free(ld->ld.check);
		ld->ld.check = NULL;
	} else {
		ld->ld.check->dir = openat(ld->dir, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	ld->map_ms = (double)(t1 - t0) / 1e6;
	ld->hash_ms = (double)(uv_hrtime() - t1) / 1e6;
	gi = webnn__ipc__graph_info__unpack(NULL, (size_t)h.info_len, base + h.info_off);
	if (!gi) {
		load_damaged(ld, name, "its graph does not decode");
		goto out;
	}
	size_t n = gi->n_operands ? gi->n_operands : 1;
	ld->data = calloc(n, sizeof(*ld->data));
	ld->bytes = calloc(n, sizeof(*ld->bytes));
	if (!ld->data || !ld->bytes) {
		load_oom(ld);
		goto out;
	}
	for (uint32_t i = 0; i < h.n_consts; i++)
		if (table[i].operand < gi->n_operands) {
			ld->data[table[i].operand] = base + h.data_off + table[i].off;
			ld->bytes[table[i].operand] = table[i].bytes;
		}
	if (!load_adopt(ld, &h, base, prep, gi->n_operands)) {
		load_oom(ld);
		goto out;
	}
	/* Used now: the least recently used entries go first when the store is full. */
	futimens(fd, NULL);
	ld->ld.info = gi;
	ld->ld.map = map;
	ld->ld.map_len = len;
	ld->ld.data = ld->data;
	ld->ld.bytes = ld->bytes;
	gi = NULL;
	map = MAP_FAILED;
	ld->found = GC_LOADED;
out:
	if (gi)
		webnn__ipc__graph_info__free_unpacked(gi, NULL);
	if (ld->found != GC_LOADED) {
		check_free(ld->ld.check);
		ld->ld.check = NULL;
	}
	if (map != MAP_FAILED)
		munmap(map, len);
	close(fd);
}

static void load_reply_absent(struct session *s, uint64_t serial)
{
	Webnn__Ipc__LoadGraphReply lr = WEBNN__IPC__LOAD_GRAPH_REPLY__INIT;
	lr.found = false;
	Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
	r.serial = serial;
	r.body_case = WEBNN__IPC__REPLY__BODY_LOAD_GRAPH;
	r.load_graph = &lr;
	reply_send(s, &r);
}

static void load_done(uv_work_t *w, int status)
{
	(void)status;
	struct gc_load *ld = w->data;
	struct session *s = ld->s;
	struct context *c = ld->c;
	if (ld->stale)
		log_info("graph cache of uid %u: entry '%s' removed: %s", (unsigned)s->uid, ld->key,
			 ld->stale);
	if (ld->found == GC_FAILED)
		log_warn("graph cache of uid %u: %s", (unsigned)s->uid, ld->diag.message);
	if (s->closed || c->closing || idmap_get(&s->ids, ld->graph_id)) {
		/* gone, or the id was taken meanwhile (a protocol error the client made) */
		if (!s->closed && !c->closing && ld->found == GC_LOADED) {
			wnn_diag_set(&ld->diag, WEBNN_STATUS_TYPE_ERROR, "load: graph id %" PRIu32
				     " was taken while the entry loaded", ld->graph_id);
			reply_error(s, ld->serial, &ld->diag);
		}
		mlgraph_loaded_free(&ld->ld);
	} else if (ld->found == GC_ABSENT) {
		load_reply_absent(s, ld->serial);
	} else if (ld->found == GC_FAILED) {
		reply_error(s, ld->serial, &ld->diag);
	} else {
		log_debug("graph cache of uid %u: entry '%s' (%zu bytes) mapped in %.1f ms, "
			  "its graph and tables verified in %.1f ms (its constants %s), %u "
			  "prepared copies offered to the backend", (unsigned)s->uid, ld->key,
			  ld->ld.map_len, ld->map_ms, ld->hash_ms,
			  ld->ld.check ? "before the first dispatch" : "too", ld->adopted);
		mlgraph_build_loaded(s, c, ld->graph_id, ld->serial, &ld->ld);
	}
	close(ld->dir);
	free(ld->data);
	free(ld->bytes);
	obj_unref(&c->obj);
	free(ld);
	session_unref(s);
}

int handle_load_graph(struct session *s, struct request *rq)
{
	const Webnn__Ipc__LoadGraph *m = rq->msg->load_graph;
	struct wnn_diag diag = { 0 };
	if (rq->serial == 0)
		return request_violation(s, "LoadGraph: a serial is required");
	struct context *c =
		(struct context *)request_lookup(s, m->context_id, &context_kind, "LoadGraph");
	if (!c || request_check_new_id(s, m->graph_id, "LoadGraph") < 0)
		return -1;
	if (!graphcache_key_valid(m->key, "load", &diag)) {
		reply_error(s, rq->serial, &diag);
		return 0;
	}
	struct gc_load *ld = calloc(1, sizeof(*ld));
	if (!ld) {
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "load: out of memory");
		reply_error(s, rq->serial, &diag);
		return 0;
	}
	ld->dir = gc_dir(s->uid, &diag, "load");
	if (ld->dir < 0) {
		free(ld);
		reply_error(s, rq->serial, &diag);
		return 0;
	}
	snprintf(ld->key, sizeof(ld->key), "%s", m->key);
	gc_version(c, ld->version, sizeof(ld->version));
	ld->impl = c->backend->impl;
	ld->max_info = s->d->limits.max_frame_bytes;
	ld->s = s;
	ld->c = c;
	ld->serial = rq->serial;
	ld->graph_id = m->graph_id;
	ld->work.data = ld;
	obj_ref(&c->obj);
	session_ref(s);
	if (uv_queue_work(s->d->loop, &ld->work, load_work, load_done) != 0) {
		obj_unref(&c->obj);
		session_unref(s);
		close(ld->dir);
		free(ld);
		wnn_diag_set(&diag, WEBNN_STATUS_NO_MEMORY, "load: out of memory");
		reply_error(s, rq->serial, &diag);
	}
	return 0;
}

/* ---- the loaded graph's reply */

bool graphcache_reply_fill(struct graphcache_reply *gr, const struct mlgraph *g,
			   Webnn__Ipc__BuildGraphReply *br)
{
	const Webnn__Ipc__GraphInfo *gi = g->loaded_info;
	size_t n_io = gi->n_inputs + gi->n_outputs;
	memset(gr, 0, sizeof(*gr));
	webnn__ipc__load_graph_reply__init(&gr->lr);
	gr->io = calloc(n_io ? n_io : 1, sizeof(*gr->io));
	gr->io_ptrs = calloc(n_io ? n_io : 1, sizeof(*gr->io_ptrs));
	gr->descs = calloc(n_io ? n_io : 1, sizeof(*gr->descs));
	gr->ops = calloc(gi->n_operations ? gi->n_operations : 1, sizeof(*gr->ops));
	if (!gr->io || !gr->io_ptrs || !gr->descs || !gr->ops) {
		graphcache_reply_free(gr);
		return false;
	}
	for (size_t i = 0; i < n_io; i++) {
		const Webnn__Ipc__NamedOperand *no =
			i < gi->n_inputs ? gi->inputs[i] : gi->outputs[i - gi->n_inputs];
		webnn__ipc__named_descriptor__init(&gr->io[i]);
		gr->io[i].name = no->name;
		wnn_desc_to_pb(&g->descs[no->operand], &gr->descs[i]);
		gr->io[i].descriptor = &gr->descs[i];
		gr->io_ptrs[i] = &gr->io[i];
	}
	for (size_t i = 0; i < gi->n_operations; i++)
		gr->ops[i] = gi->operations[i]->op;
	gr->lr.found = true;
	gr->lr.build = br;
	gr->lr.n_inputs = gi->n_inputs;
	gr->lr.inputs = gr->io_ptrs;
	gr->lr.n_outputs = gi->n_outputs;
	gr->lr.outputs = gr->io_ptrs + gi->n_inputs;
	gr->lr.n_operations = gi->n_operations;
	gr->lr.operations = gr->ops;
	return true;
}

void graphcache_reply_free(struct graphcache_reply *gr)
{
	free(gr->io);
	free(gr->io_ptrs);
	free(gr->descs);
	free(gr->ops);
	memset(gr, 0, sizeof(*gr));
}
