/* The graph cache: built graphs saved under a key in their user's store, loaded by later connections without their constants travelling again. */
#ifndef DAEMON_GRAPHCACHE_H
#define DAEMON_GRAPHCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/webnn.pb-c.h"
#include "proto/wnn.h"

struct mlgraph;
struct request;
struct session;

/*
 * The WebNN MLGraph caching explainer's saveGraph/loadGraph. An entry is one file,
 * <cache_dir>/graphs/<uid>/<key>.wg, holding what BuildGraph validated: the GraphInfo (as the
 * protocol packs it), the bytes of every constant operand, and what the backend prepared from
 * them (backend_prepared: the cpu backend's weights reordered for oneDNN, with the memory
 * descriptors they were made for), page aligned so that a load maps them instead of reading
 * them. The backend's plan is compiled again at load, from the mapped constants, but binds the
 * mapped prepared copies instead of making them again (a BERT-base-sized graph: 7 ms to
 * compile instead of 230). A worker serves one uid and only ever opens that uid's directory
 * (made 0700 by daemon/safedir.h's rule; entries 0600, checked to be the daemon's own at load).
 *
 * An entry is written to a temporary file and renamed into place, so a reader sees a whole
 * entry or none. A load checks, in order: the header (magic, format, offsets within the file,
 * the file's length), the version (daemon, protocol, backend, device, driver, the backend's
 * plan tag such as the cpu's instruction set: an entry of another is removed and counts as
 * absent), the hash of the header, GraphInfo, tables and keys (all the load and the compile
 * read besides constants), and the hash of the constants' and prepared copies' bytes: at the
 * load when they are small, else before the graph's first dispatch (graphcache_check_run). A
 * damaged entry is refused with DATA_ERROR and removed. The store is capped at
 * max_graph_cache_bytes per user: saving evicts the least recently used entries (a load
 * touches its entry's mtime) until the new one fits.
 */
#define GRAPHCACHE_KEY_MAX 128

/* What a load of a large entry leaves to check: the hash of its constants' and the backend's
 * prepared copies' bytes, which nothing reads before the graph's first dispatch (the compile
 * may read constants, but whatever bytes a constant holds, a compile never crashes on them:
 * a client could send the same). Run by the first dispatch (and by a save of the graph)
 * before anything reads them; a damaged entry is removed, and that dispatch and every later
 * one fail with DATA_ERROR. Thread safe. */
struct graphcache_check;
enum webnn_status graphcache_check_run(struct graphcache_check *k, struct wnn_diag *diag);
bool graphcache_check_pending(struct graphcache_check *k);
void graphcache_check_free(struct graphcache_check *k);

int handle_save_graph(struct session *s, struct request *rq);
int handle_load_graph(struct session *s, struct request *rq);

/* A loaded graph compiled: fills r (a Reply's LoadGraphReply body, from br and the graph's
 * inputs, outputs and operations). The arrays it allocates are freed by graphcache_reply_free. */
struct graphcache_reply {
	Webnn__Ipc__LoadGraphReply lr;
	Webnn__Ipc__NamedDescriptor *io;
	Webnn__Ipc__NamedDescriptor **io_ptrs;
	Webnn__Ipc__OperandDescriptor *descs;
	uint32_t *ops;
};
bool graphcache_reply_fill(struct graphcache_reply *gr, const struct mlgraph *g,
			   Webnn__Ipc__BuildGraphReply *br);
void graphcache_reply_free(struct graphcache_reply *gr);

#endif
