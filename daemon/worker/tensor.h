/* MLTensor objects: CreateTensor, WriteTensor, ReadTensor, DestroyTensor, through the timeline. */
#ifndef DAEMON_TENSOR_H
#define DAEMON_TENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/worker/obj.h"
#include "proto/wnn.h"

struct backend_tensor;
struct context;
struct request;

struct tensor {
	struct obj obj;
	struct context *ctx;
	struct wnn_desc desc;
	uint64_t bytes;             /* byte length */
	uint64_t charged;           /* against the connection's quota */
	bool readable, writable, constant;
	bool failed;                /* creation failed: never usable */
	struct backend_tensor *bt;  /* written by the create command on the pool */
	void *host;                 /* constant tensors: the initial bytes, for graphs */
	/* CreateTensor.storage: the slot (referenced: its mapping lives as long as the tensor,
	 * whatever the client unregisters) and where in it the bytes are; NULL: daemon memory. */
	struct shm *storage;
	uint64_t storage_off;
	char *poison;               /* why the contents are invalid (failed dispatch), or NULL */
};

extern const struct obj_kind tensor_kind;

/* The tensor's contents are invalid (a failed write or dispatch): reads and dispatches that
 * use it fail saying why. */
void tensor_poison(struct tensor *t, const char *why);

int handle_create_tensor(struct session *s, struct request *rq);
int handle_write_tensor(struct session *s, struct request *rq);
int handle_read_tensor(struct session *s, struct request *rq);
int handle_destroy_tensor(struct session *s, struct request *rq);

#endif
