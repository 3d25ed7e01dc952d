/* MLGraph objects: BuildGraph (validate, bind constants, prepare, compile on the timeline),
 * DestroyGraph and Dispatch. */
#ifndef DAEMON_MLGRAPH_H
#define DAEMON_MLGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/webnn.pb-c.h"
#include "daemon/backend/backend.h"
#include "daemon/graph/import.h"
#include "daemon/worker/obj.h"
#include "proto/wire.h"
#include "proto/wnn.h"

struct context;
struct graphcache_check;
struct request;

/* Lifetime: everything below is owned by the graph and freed together by its release command,
 * after the plan, which may point into any of it. */
struct mlgraph {
	struct obj obj;
	struct context *ctx;
	Webnn__Ipc__ClientMessage *msg; /* retained BuildGraph request: owns the GraphInfo */
	/* A graph loaded from the graph cache (daemon/worker/graphcache.h) instead: */
	Webnn__Ipc__GraphInfo *loaded_info; /* its GraphInfo (msg is NULL) */
	void *map;                       /* the cache entry, mapped: its constants' bytes */
	size_t map_len;
	struct graphcache_check *check;  /* the entry's bytes, checked before the first dispatch
					    (NULL: checked at the load) */
	const struct backend_impl *prepared_impl;
	const void **prepared;           /* the entry's copies the backend adopted: released
					    (prepared_release) with the graph, before the unmap */
	size_t n_prepared;
	/* What BuildGraph checked and bound: */
	struct wnn_desc *descs;          /* validated descriptor of every operand */
	const void **cdata;              /* bytes of constant operands, NULL for others */
	struct obj **deps;               /* constants and constant tensors referenced (kept alive) */
	size_t *dep_operand;             /* the operand each of deps binds */
	size_t n_deps;
	/* Per dep: the shared constant bytes (daemon/worker/weights.h) this graph pins, NULL when
	 * none: pinned by the compile, then kept pinned only where the plan reads them as they
	 * are (the others may be given back while the backend holds its copies). */
	struct weights **pinned;
	/* Bytes given back and restored on the pool, for the loop to move the uid's charge. */
	uint64_t weights_dropped, weights_restored;
	uint8_t *scalars;                /* bytes of scalar constants */
	uint64_t mem_bytes;              /* charged to the memory budgets (daemon/budget.h) */
	uint64_t compiled_bytes;         /* the part of mem_bytes for what the compile makes:
					    until it is done every intermediate and a bound of the
					    IR and of the backend's plan per operation; then the
					    memory plan's peak, the folded constants, the IR's
					    heap and the backend's plan_bytes */
	uint64_t fold_budget;            /* bytes of constants folding may make (budget left) */
	uint64_t plan_max_bytes;         /* the most intermediates the memory plan may need: the
					    live peak charged plus what the budgets had left */
	/* What mlgraph_prepare() made of it for the IR import: */
	struct graph_source bg;
	uint32_t *in_ops, *out_ops;
	struct graph_ir *ir;             /* imported and optimised by the compile command */
	uint64_t estimate_ns;            /* its time estimate per dispatch (graph_estimate_cost) */
	/* The compile command's result: */
	struct backend_plan *plan;
	bool compiled, failed;
	bool quick;                      /* dispatches may run on the loop thread (timeline.c) */
	unsigned quick_strikes;          /* its quick runs in a row that took too long */
	char fail_msg[WNN_MAX_DIAG];
};

extern const struct obj_kind mlgraph_kind;

/* The validated GraphInfo: the BuildGraph request's, or the cache entry's. */
static inline const Webnn__Ipc__GraphInfo *mlgraph_info(const struct mlgraph *g)
{
	return g->loaded_info ? g->loaded_info : g->msg->build_graph->graph;
}

/* Constants folding may make for one graph, at most (and never more than the budgets left). */
#define GRAPH_FOLD_MAX_BYTES (64ull << 20)

/* What a graph cache entry gives a load: the GraphInfo (unpacked with the default allocator)
 * and, per operand, the mapped bytes of constant operands and their length. */
struct mlgraph_loaded {
	Webnn__Ipc__GraphInfo *info;
	void *map;
	size_t map_len;
	const void **data;     /* per operand: NULL, or the constant's bytes in map */
	const uint64_t *bytes; /* per operand: the length of data[i] */
	struct graphcache_check *check;    /* see struct mlgraph */
	const struct backend_impl *impl;
	const void **prepared;
	size_t n_prepared;
};
/* Frees what ld still holds (a load that did not become a graph). */
void mlgraph_loaded_free(struct mlgraph_loaded *ld);
/* The shared bytes (daemon/worker/weights.h) constant operand `operand` binds, NULL when it binds
 * none (a constant tensor, a loaded graph's mapped entry, an unshared copy). */
struct weights;
struct weights *mlgraph_operand_weights(const struct mlgraph *g, size_t operand);
/* Moves the uid's charge for the bytes given back (released) and restored (charged). */
struct daemon;
struct weights;
void mlgraph_weights_settle(struct daemon *d, uint64_t dropped, uint64_t restored);
/* Builds graph `graph_id` of context c from a cache entry as BuildGraph builds a request's
 * (the same checks, charges and compile; the mapped bytes are charged like constants). Takes
 * ld's info and map in every case; the reply (an error, or LoadGraphReply once compiled) goes
 * to serial. -1 when the session closed. */
int mlgraph_build_loaded(struct session *s, struct context *c, uint32_t graph_id, uint64_t serial,
			 struct mlgraph_loaded *ld);

int handle_build_graph(struct session *s, struct request *rq);
int handle_destroy_graph(struct session *s, struct request *rq);
int handle_dispatch(struct session *s, struct request *rq); /* dispatch.c */

#endif
