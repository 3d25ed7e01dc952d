/* The process-wide state of webnnd: event loop, active backend, limits, opSupportLimits. */
#ifndef DAEMON_DAEMON_H
#define DAEMON_DAEMON_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/backend/backend.h"
#include "daemon/graph/import.h"
#include "proto/wire.h"
#include "proto/webnn.pb-c.h"
#include "proto/wnn.h"

#define WEBNND_VERSION "0.1"

/* Limits announced in HelloReply.limits (and the unannounced per-connection byte quota). */
struct daemon_limits {
	uint32_t max_frame_bytes;
	uint32_t max_inline_bytes;
	uint32_t max_fds_per_frame;
	uint32_t max_objects;       /* live ids of one connection */
	uint64_t max_shm_bytes;     /* registered shared memory of one connection */
	uint64_t max_tensor_bytes;  /* one tensor or constant */
	uint32_t max_rank;
	uint32_t max_operations;    /* operations of one graph */
	uint32_t max_operands;      /* operands of one graph */
	uint64_t max_session_bytes; /* tensors + constants + retained graphs of one connection */
	size_t unpack_budget;       /* heap one protobuf unpack may use */
	uint32_t max_sessions;      /* connections served at once */
	uint32_t max_contexts;      /* live contexts of one connection (each holds a device queue) */
};

/* The (operator, role) limits of opSupportLimits for one backend, built once. */
#define DAEMON_MAX_BACKENDS 3
#define DAEMON_MAX_DEVICES 16

struct daemon_op_limits {
	Webnn__Ipc__TensorLimit *items;
	Webnn__Ipc__TensorLimit **ptrs;
	char (*roles)[32];
	size_t n;
	uint32_t input_types, constant_types, output_types;
};

/* One started backend: contexts it serves hold a pointer to it. */
struct daemon_backend {
	const struct backend_impl *impl;
	struct backend *be;
	struct daemon_op_limits op_limits;
	struct backend_device_info devices[DAEMON_MAX_DEVICES]; /* what it serves */
	uint32_t n_devices;
	bool accelerated; /* serves a GPU or an accelerator */
};

struct daemon {
	uv_loop_t *loop;
	/* In routing order: a forced backend alone; else cpu (CPU devices), then opencl when it
	 * serves a GPU or accelerator. */
	struct daemon_backend backends[DAEMON_MAX_BACKENDS];
	uint32_t n_backends;
	struct daemon_limits limits;
};

/* The backend a new context runs on (routing: daemon/context.c). */
const struct daemon_backend *daemon_route(const struct daemon *d,
					  const struct backend_context_options *opts);

void daemon_limits_default(struct daemon_limits *l);

#endif
