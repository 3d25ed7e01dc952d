/* A device worker's process-wide state: event loop, started backends, limits, opSupportLimits, budget, running commands. */
#ifndef DAEMON_WORKER_DAEMON_H
#define DAEMON_WORKER_DAEMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <uv.h>

#include "daemon/backend/backend.h"
#include "daemon/limits.h"
#include "daemon/worker/budget.h"
#include "daemon/worker/conn.h"
#include "daemon/graph/import.h"
#include "proto/wire.h"
#include "proto/webnn.pb-c.h"
#include "proto/wnn.h"

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

struct cmd;

struct daemon {
	uv_loop_t *loop;
	/* In routing order: a forced backend alone; else cpu (CPU devices), then opencl when it
	 * serves a GPU or accelerator. */
	struct daemon_backend backends[DAEMON_MAX_BACKENDS];
	uint32_t n_backends;
	struct daemon_limits limits;
	struct budget budget; /* a worker's memory accounting (daemon/budget.h) */
	/* Timeline commands on the thread pool and the watchdog that times them (timeline.c). */
	struct cmd *running;
	uv_timer_t watchdog;
	bool watchdog_init, watchdog_on;
	struct conn_batch batch; /* replies written once per round of loop events (conn.h) */
	/* Short commands run on the loop thread (timeline.c): what they took in this loop tick. */
	uint64_t quick_tick;
	uint64_t quick_spent_ns;
};


#endif
