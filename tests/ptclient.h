/* A raw wire-protocol test client shared by test_protocol.c and test_faults.c. */
#ifndef TESTS_PTCLIENT_H
#define TESTS_PTCLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/webnn.pb-c.h"
#include "proto/wire.h"
#include "proto/wnn.h"
#include "tests/test.h"

struct pt_conn {
	int fd;
	struct wnn_reader r;
	uint64_t serial;
	/* Fail on an ErrorEvent, ContextLost or other message not asked for while awaiting a reply,
	 * instead of skipping it (pt_connect leaves it false). */
	bool strict;
	/* How long pt_recv waits for the daemon (pt_connect: 10 s; a cold OpenCL compile may
	 * need more). */
	int timeout_ms;
};

/* ErrorEvents and ContextLost that arrived before an awaited reply. */
struct pt_events {
	int errors, lost;
	uint32_t error_context[8], error_object[8], error_status[8];
	char error_message[8][512];
	uint32_t lost_context;
	char lost_message[512];
};

/* webnnd arguments for the reference backend. */
extern const char *const pt_reference[];

void pt_connect(struct pt_conn *c, const struct test_daemon *d);
void pt_close(struct pt_conn *c);
void pt_send_fds(struct pt_conn *c, Webnn__Ipc__ClientMessage *m, const int *fds, int n_fds);
void pt_send(struct pt_conn *c, Webnn__Ipc__ClientMessage *m);
/* Sends m; 0 or -errno (a peer that already hung up, having said why, is not a failure). */
int pt_try_send(struct pt_conn *c, Webnn__Ipc__ClientMessage *m);
/* Next server message, or NULL on EOF / connection reset; fails after timeout_ms of silence (pt_connect: 10 s). */
Webnn__Ipc__ServerMessage *pt_recv(struct pt_conn *c);
/* Next server message within timeout_ms, or NULL: on EOF or reset (*closed set) or silence. */
Webnn__Ipc__ServerMessage *pt_recv_within(struct pt_conn *c, int timeout_ms, bool *closed);
/* A connection from an fd already connected (by another uid's process, say). */
void pt_adopt(struct pt_conn *c, int fd);
/* Raw bytes in one go, the fds attached to the first byte: what a hostile client sends. */
void pt_send_raw(struct pt_conn *c, const void *bytes, size_t len, const int *fds, int n_fds);
/* m packed behind a header of the caller's choosing: size off by size_delta, n_fds and flags
 * as given, n_sent fds attached whatever the header says. */
void pt_send_frame_raw(struct pt_conn *c, Webnn__Ipc__ClientMessage *m, uint32_t size_delta,
		       uint16_t n_fds, uint16_t flags, const int *fds, int n_sent);
/* Sends m with a fresh serial and returns the Reply to it; events before it are recorded in ev
 * (NULL: skipped, or a failure on a strict connection). A Goodbye fails the test. */
Webnn__Ipc__ServerMessage *pt_call_ev(struct pt_conn *c, Webnn__Ipc__ClientMessage *m,
				      const int *fds, int n_fds, struct pt_events *ev);
Webnn__Ipc__ServerMessage *pt_call_fds(struct pt_conn *c, Webnn__Ipc__ClientMessage *m,
				       const int *fds, int n_fds);
Webnn__Ipc__ServerMessage *pt_call(struct pt_conn *c, Webnn__Ipc__ClientMessage *m);
void pt_free(Webnn__Ipc__ServerMessage *s);
/* Expects a successful reply and frees it. */
void pt_expect_ok(Webnn__Ipc__ServerMessage *s);
/* Expects Reply{error} with the status and a message containing needle, and frees it. */
void pt_expect_err(Webnn__Ipc__ServerMessage *s, int status, const char *needle);
void pt_call_ok(struct pt_conn *c, Webnn__Ipc__ClientMessage *m);
void pt_call_err(struct pt_conn *c, Webnn__Ipc__ClientMessage *m, int status, const char *needle);
/* Expects Goodbye{reason containing needle} and then the end of the connection. */
void pt_expect_goodbye(struct pt_conn *c, const char *needle);

/* Makes m a Hello of this protocol version, its body in h (no serial); the caller sends it. */
void pt_hello_fill(Webnn__Ipc__ClientMessage *m, Webnn__Ipc__Hello *h, const char *client_name);
void pt_hello(struct pt_conn *c, const char *client_name);
/* Hello, and the value of the limit named key in the HelloReply's budget list. */
uint64_t pt_hello_limit(struct pt_conn *c, const char *client_name, const char *key);
Webnn__Ipc__ServerMessage *pt_create_context_reply(struct pt_conn *c, uint32_t id);
void pt_create_context(struct pt_conn *c, uint32_t id);

/* A CreateTensor message over the given shape; the caller sends it. */
struct pt_tensor_msg {
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__CreateTensor ct;
	Webnn__Ipc__OperandDescriptor d;
	uint32_t shape[WNN_MAX_RANK + 2];
};
void pt_tensor_msg(struct pt_tensor_msg *t, uint32_t ctx, uint32_t id, int type,
		   const uint32_t *shape, size_t rank, bool readable, bool writable);
/* A readable, writable float32 tensor. */
void pt_create_tensor(struct pt_conn *c, uint32_t ctx, uint32_t id, const uint32_t *shape,
		      size_t rank);
void pt_write_inline(struct pt_conn *c, uint32_t id, const void *bytes, size_t len);
/* DestroyTensor, sent without waiting for an answer. */
void pt_destroy_tensor(struct pt_conn *c, uint32_t id);
/* UnregisterShm of a slot, sent without waiting for an answer. */
void pt_unregister_shm(struct pt_conn *c, uint32_t slot);
Webnn__Ipc__ServerMessage *pt_read_reply_ev(struct pt_conn *c, uint32_t id, struct pt_events *ev);
Webnn__Ipc__ServerMessage *pt_read_reply(struct pt_conn *c, uint32_t id);
/* A memfd of size bytes with the given seals (0: none). */
int pt_memfd(size_t size, unsigned seals);
Webnn__Ipc__ServerMessage *pt_register_shm(struct pt_conn *c, uint32_t slot, size_t size, int fd);
/* Flush of a context, expecting success. */
void pt_flush(struct pt_conn *c, uint32_t ctx);
/* Reads a float tensor inline and compares it with want. */
void pt_read_expect(struct pt_conn *c, uint32_t id, const float *want, size_t n);
/* Tensor create/write/read round trip with values derived from seed. */
void pt_roundtrip(struct pt_conn *c, uint32_t ctx, uint32_t tensor, float seed);

/* ---- graphs, written out as the client library would send them */

struct pt_graph {
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__BuildGraph bg;
	Webnn__Ipc__GraphInfo gi;
	Webnn__Ipc__Operand operands[4], *op_ptrs[4];
	Webnn__Ipc__OperandDescriptor descs[4];
	uint32_t shapes[4][4];
	Webnn__Ipc__Operation op, *op_ptr;
	Webnn__Ipc__ElementwiseBinary bin;
	Webnn__Ipc__ElementwiseUnary un;
	Webnn__Ipc__Conv2d conv;
	Webnn__Ipc__Matmul mm;
	Webnn__Ipc__NamedOperand names[4], *in_ptrs[3], *out_ptr;
};

void pt_operand(struct pt_graph *g, int i, Webnn__Ipc__OperandKind kind, const char *name,
		const uint32_t *shape, size_t rank);
/* One operation over n_operands float32 operands, as graph id in context ctx. */
void pt_graph_init(struct pt_graph *g, uint32_t ctx, uint32_t id, size_t n_operands);
/* Makes m a BuildGraph request (in bg) of graph gi as graph id of context ctx. */
void pt_build_graph_msg(Webnn__Ipc__ClientMessage *m, Webnn__Ipc__BuildGraph *bg, uint32_t ctx,
			uint32_t id, Webnn__Ipc__GraphInfo *gi);
void pt_graph_io(struct pt_graph *g, int n_in, const char *const *in_names, const uint32_t *in_ops,
		 const char *out_name, uint32_t out_op);
/* z = add(x, y) over [2, 3]. */
void pt_add_graph(struct pt_graph *g, uint32_t ctx, uint32_t id);
/* z = matmul(x [m, k], y [k, n]). */
void pt_matmul_graph(struct pt_graph *g, uint32_t ctx, uint32_t id, uint32_t m, uint32_t k,
		     uint32_t n);
/* Dispatch of the add graph: x, y in, z out (sent, no reply). */
void pt_dispatch(struct pt_conn *c, uint32_t ctx, uint32_t graph, uint32_t x, uint32_t y,
		 uint32_t z);
/* Chains of matmuls over [m, m] float32, n_ops deep:
 *  dispatched: z = (...((x @ y) @ y)...) @ y, inputs "x" and "y" (the names pt_dispatch binds);
 *  folded:     z = ((...((y @ y) @ y)...) @ y) + x with y = expand(0.0), a constant, so the
 *              whole chain is evaluated by constant folding while the graph builds. */

struct pt_matmul_chain {
	Webnn__Ipc__ClientMessage m;
	Webnn__Ipc__BuildGraph bg;
	Webnn__Ipc__GraphInfo gi;
	Webnn__Ipc__Operand *operands, **operand_ptrs;
	Webnn__Ipc__OperandDescriptor desc, scalar_desc;
	uint32_t shape[2];
	Webnn__Ipc__Operation *ops, **op_ptrs;
	Webnn__Ipc__Matmul *mm;
	char (*labels)[16];
	Webnn__Ipc__Number zero;
	Webnn__Ipc__Expand expand;
	Webnn__Ipc__ElementwiseBinary add;
	Webnn__Ipc__NamedOperand names[3], *in_ptrs[2], *out_ptr;
};
/* The chain as graph `id` of context `ctx`; matmul i is labelled "mm<i>". */
void pt_matmul_chain(struct pt_matmul_chain *g, uint32_t ctx, uint32_t id, uint32_t m,
		     uint32_t n_ops, bool folded);
void pt_matmul_chain_free(struct pt_matmul_chain *g);

/* Sends DestroyContext for ctx (no reply). */
void pt_destroy_context(struct pt_conn *c, uint32_t ctx);
/* Builds add, creates x y z, dispatches and checks z = x + y. Ids from base upward. */
void pt_add_roundtrip(struct pt_conn *c, uint32_t ctx, uint32_t base, float seed);

#endif
