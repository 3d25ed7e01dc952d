/* Importing a validated GraphInfo into the graph IR: the one place the IR meets protobuf. */
#ifndef DAEMON_GRAPH_IMPORT_H
#define DAEMON_GRAPH_IMPORT_H

#include "daemon/graph/graph.h"
#include "proto/webnn.pb-c.h"

/* A graph as the daemon received and validated it (wnn_graph_validate), with its constants
 * bound. Operand ids index descs and constant_data. Nothing here is kept by the import except
 * constant bytes, which must outlive the imported graph. */
struct graph_source {
	const Webnn__Ipc__GraphInfo *info;  /* operations in topological order */
	const struct wnn_desc *descs;       /* info->n_operands validated descriptors */
	const void *const *constant_data;   /* host bytes of constant operands, NULL otherwise */
	size_t n_operands;                  /* info->n_operands */
	const uint32_t *input_operands;     /* graph inputs: operand ids, in info->inputs order */
	size_t n_inputs;
	const uint32_t *output_operands;    /* graph outputs: operand ids, in info->outputs order */
	size_t n_outputs;
	/* The build's context's cancel flag (NULL: never): a graph of many operations stops
	 * importing once it is set. */
	const atomic_bool *cancel;
};

/* Resolves every operation once (wnn_resolve) into nodes. Fails with a diag naming the
 * operator when an operation does not resolve or the source is inconsistent, and with
 * CONTEXT_LOST once src->cancel is set (checked every GRAPH_IMPORT_CANCEL_EVERY operations). */
#define GRAPH_IMPORT_CANCEL_EVERY 256u
enum webnn_status graph_import(const struct graph_source *src, struct graph_ir **out,
			       struct wnn_diag *diag);

#endif
