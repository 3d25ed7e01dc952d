/* What the backends that compute in host memory (reference, cpu) share: tensors, and where every value of a graph lives during a run. */
#ifndef DAEMON_BACKEND_HOST_HOST_H
#define DAEMON_BACKEND_HOST_HOST_H

#include "daemon/backend/backend.h"

/* An MLTensor in host memory, 64-byte aligned for vector kernels; new tensors read as zeros.
 * The backends that include this header use it as their struct backend_tensor. */
struct backend_tensor {
	struct wnn_desc desc;
	size_t bytes;
	void *data;
	bool shared; /* data is the client's shared memory (host_tensor_create_shared): not freed */
};

enum webnn_status host_tensor_create(const struct wnn_desc *desc, const char *who,
				     struct backend_tensor **out, struct wnn_diag *diag);
/* A tensor computing in place in the shared memory at host (see tensor_create_shared). */
enum webnn_status host_tensor_create_shared(const struct wnn_desc *desc, void *host,
					    const char *who, struct backend_tensor **out,
					    struct wnn_diag *diag);
void host_tensor_destroy(struct backend_tensor *t);
enum webnn_status host_tensor_write(struct backend_tensor *t, const void *src, size_t size,
				    struct wnn_diag *diag);
enum webnn_status host_tensor_read(struct backend_tensor *t, void *dst, size_t size,
				   struct wnn_diag *diag);

/* Where a value's bytes are during a run. */
enum host_source {
	HOST_SRC_NONE,
	HOST_SRC_INPUT,    /* the caller's input tensor */
	HOST_SRC_CONSTANT, /* the constant's bytes (never written) */
	HOST_SRC_OUTPUT,   /* the caller's output tensor (its first binding) */
	HOST_SRC_BUFFER,   /* a buffer of the memory plan */
	HOST_SRC_ALIAS,    /* the storage of another value (alias[v]) */
};

/* The values of one compiled graph: bufs[v] is value v's memory for the run in progress (the
 * backend's kernels index it by value id); executes of one plan are serialised by the
 * context's timeline. */
struct host_values {
	const struct graph_ir *g;
	struct wnn_desc *descs;  /* per value: g->values[v].desc */
	enum host_source *src;   /* per value */
	uint32_t *alias;         /* HOST_SRC_ALIAS: the value whose storage it shares */
	void **buffers;          /* the memory plan's buffers, 64-byte aligned, zeroed */
	void **bufs;             /* per value */
};

/* Allocates the buffers and binds every value. With alias_epilogues, the own output of a node
 * whose epilogue was fused shares the storage of the value the epilogue finally writes (for
 * backends asking for epilogues). who names the backend in messages. */
/* The heap hv's per-value arrays take (not its buffers: the memory plan's). */
uint64_t host_values_bytes(const struct host_values *hv);
enum webnn_status host_values_init(struct host_values *hv, const struct graph_ir *g,
				   bool alias_epilogues, const char *who, struct wnn_diag *diag);
void host_values_fini(struct host_values *hv);
/* Every value live node `index` reads has bytes when it runs, every value it writes a place
 * (for a chain head: what its members read from outside the chain, and the last one's output). */
enum webnn_status host_values_check_node(const struct host_values *hv, uint32_t index,
					 struct wnn_diag *diag);
/* Points the graph's inputs and outputs at the tensors of this run (and aliases after them). */
void host_values_bind_run(struct host_values *hv, struct backend_tensor *const *inputs,
			  struct backend_tensor *const *outputs);
/* After the kernels: outputs bound twice and outputs that folding made constant. */
void host_values_copy_outputs(const struct host_values *hv,
			      struct backend_tensor *const *outputs);

#endif
