/* Reads a session's frames, checks each request's envelope (Hello first, serials, fds) and
 * routes it through the handler table, indexed by the ClientMessage oneof case. */
#include "daemon/worker/router.h"

#include "daemon/worker/constant.h"
#include "daemon/worker/context.h"
#include "daemon/worker/graphcache.h"
#include "daemon/log.h"
#include "daemon/worker/mlgraph.h"
#include "daemon/worker/reply.h"
#include "daemon/worker/request.h"
#include "daemon/worker/session.h"
#include "daemon/worker/shm.h"
#include "daemon/worker/tensor.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int handle_hello(struct session *s, struct request *rq);

enum {
	H_SERIAL = 1 << 0, /* a serial is required */
	H_FDS = 1 << 1,    /* the frame may carry fds */
};
struct handler {
	const char *name;
	handler_fn fn;
	unsigned flags;
};
#define BODY(x) WEBNN__IPC__CLIENT_MESSAGE__BODY_##x
static const struct handler handlers[] = {
	[BODY(HELLO)] = { "Hello", handle_hello, H_SERIAL },
	[BODY(REGISTER_SHM)] = { "RegisterShm", handle_register_shm, H_SERIAL | H_FDS },
	[BODY(UNREGISTER_SHM)] = { "UnregisterShm", handle_unregister_shm, 0 },
	[BODY(CREATE_CONTEXT)] = { "CreateContext", handle_create_context, H_SERIAL },
	[BODY(DESTROY_CONTEXT)] = { "DestroyContext", handle_destroy_context, 0 },
	[BODY(CREATE_TENSOR)] = { "CreateTensor", handle_create_tensor, H_SERIAL },
	[BODY(WRITE_TENSOR)] = { "WriteTensor", handle_write_tensor, 0 },
	[BODY(READ_TENSOR)] = { "ReadTensor", handle_read_tensor, H_SERIAL },
	[BODY(DESTROY_TENSOR)] = { "DestroyTensor", handle_destroy_tensor, 0 },
	[BODY(CREATE_CONSTANT)] = { "CreateConstant", handle_create_constant, 0 },
	[BODY(DESTROY_CONSTANT)] = { "DestroyConstant", handle_destroy_constant, 0 },
	[BODY(BUILD_GRAPH)] = { "BuildGraph", handle_build_graph, H_SERIAL },
	[BODY(DESTROY_GRAPH)] = { "DestroyGraph", handle_destroy_graph, 0 },
	[BODY(DISPATCH)] = { "Dispatch", handle_dispatch, 0 },
	[BODY(FLUSH)] = { "Flush", handle_flush, H_SERIAL },
	[BODY(GOODBYE)] = { "Goodbye", NULL, 0 }, /* handled in router_frame */
	[BODY(SAVE_GRAPH)] = { "SaveGraph", handle_save_graph, H_SERIAL },
	[BODY(LOAD_GRAPH)] = { "LoadGraph", handle_load_graph, H_SERIAL },
};
#define N_HANDLERS (sizeof(handlers) / sizeof(handlers[0]))

static int handle_hello(struct session *s, struct request *rq)
{
	const Webnn__Ipc__Hello *m = rq->msg->hello;
	const struct daemon_limits *lim = &s->d->limits;
	if (m->client_name && *m->client_name)
		snprintf(s->name, sizeof(s->name), "%s", m->client_name);
	if (m->major != WNN_PROTOCOL_MAJOR)
		return request_violation(s, "protocol version %u.%u is not supported (this daemon "
					    "speaks %d.%d)", m->major, m->minor,
					 WNN_PROTOCOL_MAJOR, WNN_PROTOCOL_MINOR);
	s->hello_done = true;
	Webnn__Ipc__Limits l = WEBNN__IPC__LIMITS__INIT;
	l.max_frame_bytes = lim->max_frame_bytes;
	l.max_inline_bytes = lim->max_inline_bytes;
	l.max_fds_per_frame = lim->max_fds_per_frame;
	l.max_objects = lim->max_objects;
	l.max_shm_bytes = lim->max_shm_bytes;
	l.max_tensor_bytes = lim->max_tensor_bytes;
	l.max_rank = lim->max_rank;
	l.max_operations = lim->max_operations;
	Webnn__Ipc__Budget budgets[DAEMON_N_LIMITS], *budget_ptrs[DAEMON_N_LIMITS];
	l.n_budgets = daemon_limits_report(lim, budgets, budget_ptrs);
	l.budgets = budget_ptrs;
	Webnn__Ipc__HelloReply hr = WEBNN__IPC__HELLO_REPLY__INIT;
	hr.major = WNN_PROTOCOL_MAJOR;
	hr.minor = WNN_PROTOCOL_MINOR;
	hr.limits = &l;
	hr.server_name = "webnnd " WEBNND_VERSION;
#ifdef WNN_TEST_HOOKS
	char hook[300];
	if (budget_test_hook(&s->d->budget, m->client_name, hook, sizeof(hook)) ||
	    sandbox_test_hook(m->client_name, hook, sizeof(hook)))
		hr.server_name = hook;
#endif
	Webnn__Ipc__Device devs[DAEMON_MAX_BACKENDS * DAEMON_MAX_DEVICES];
	Webnn__Ipc__Device *dev_ptrs[DAEMON_MAX_BACKENDS * DAEMON_MAX_DEVICES];
	for (uint32_t b = 0; b < s->d->n_backends; b++) {
		const struct daemon_backend *db = &s->d->backends[b];
		for (uint32_t i = 0; i < db->n_devices; i++) {
			const struct backend_device_info *in = &db->devices[i];
			Webnn__Ipc__Device *dv = &devs[hr.n_devices];
			webnn__ipc__device__init(dv);
			dv->backend = (char *)db->impl->name;
			dv->device_name = (char *)in->device_name;
			dv->device_type = (char *)in->device_type;
			dv->platform_name = (char *)in->platform_name;
			dv->driver_version = (char *)in->driver_version;
			dv->accelerated = in->accelerated;
			dev_ptrs[hr.n_devices++] = dv;
		}
	}
	hr.devices = dev_ptrs;
	Webnn__Ipc__Reply r = WEBNN__IPC__REPLY__INIT;
	r.serial = rq->serial;
	r.body_case = WEBNN__IPC__REPLY__BODY_HELLO;
	r.hello = &hr;
	reply_send(s, &r);
	log_debug("session %" PRIu64 ": %s (pid %d, uid %d) connected, protocol %u.%u", s->no,
		 s->name, (int)s->pid, (int)s->uid, m->major, m->minor);
	return 0;
}

/* Decodes and dispatches one frame; returns -1 when the session closed. */
static int router_frame(struct session *s, const uint8_t *payload, size_t len, int *fds,
				int n_fds)
{
	struct request rq = { .fds = fds, .n_fds = n_fds };
	int ret = 0;
	rq.msg = request_unpack(s, payload, len);
	if (!rq.msg) {
		ret = request_violation(s, "undecodable message (%zu bytes: malformed protobuf, "
					   "missing required field or over the %zu-byte decode budget)",
					len, s->unpack_limit);
		goto out;
	}
	rq.serial = rq.msg->has_serial ? rq.msg->serial : 0;
	unsigned c = (unsigned)rq.msg->body_case;
	const struct handler *h = c < N_HANDLERS ? &handlers[c] : NULL;
	if (!h || !h->name) {
		ret = request_violation(s, "unknown request (message case %u)", c);
		goto out;
	}
	if (!s->hello_done && c != BODY(HELLO)) {
		ret = request_violation(s, "the first message must be Hello, got %s", h->name);
		goto out;
	}
	if (s->hello_done && c == BODY(HELLO)) {
		ret = request_violation(s, "Hello sent twice");
		goto out;
	}
	if ((h->flags & H_SERIAL) && rq.serial == 0) {
		ret = request_violation(s, "%s: a non-zero serial is required", h->name);
		goto out;
	}
	if (n_fds && !(h->flags & H_FDS)) {
		ret = request_violation(s, "%s: unexpected fds (%d) with this request", h->name,
					n_fds);
		goto out;
	}
	if (c == BODY(GOODBYE)) {
		session_close(s, NULL);
		ret = -1;
		goto out;
	}
	log_debug("session %" PRIu64 ": %s serial %" PRIu64, s->no, h->name, rq.serial);
	ret = h->fn(s, &rq) < 0 || s->closed ? -1 : 0;
out:
	for (int i = 0; i < n_fds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (!rq.retained)
		request_msg_free(rq.msg);
	return ret;
}

/* A frame's buffer is charged to the memory budgets once its header is in, before the reader
 * grows its buffer to hold it: partial frames of many connections used to pin gigabytes. Over
 * budget, the connection ends with a Goodbye (no request of it could be answered: its serial
 * has not arrived). false when it did. */
static bool router_charge_frame(struct session *s)
{
	struct wnn_reader *r = &s->reader;
	struct wnn_frame_header h;
	if (r->have < sizeof(h))
		return true;
	memcpy(&h, r->buf, sizeof(h));
	uint64_t need = sizeof(h) + (uint64_t)h.size;
	if (h.size > r->max_frame || need <= s->frame_charged)
		return true; /* a bad header is wnn_reader_fill's to report */
	/* The whole frame is reserved anew, so the refusal names its size. */
	uint64_t had = s->frame_charged;
	session_uncharge(s, had);
	s->frame_charged = 0;
	struct wnn_diag diag = { 0 };
	if (!session_charge(s, need, "reading a frame", &diag)) {
		budget_force(s, had); /* the bytes already buffered stay until the session ends */
		s->frame_charged = had;
		request_violation(s, "%s", diag.message);
		return false;
	}
	s->frame_charged = need;
	return true;
}

/* The reader keeps its buffer between frames; one grown for a large frame is given back once
 * that frame is handled, so an idle connection holds (and is charged) a few KiB, not 16 MiB. */
#define ROUTER_FRAME_KEEP (64u << 10)

static void router_release_frame(struct session *s)
{
	struct wnn_reader *r = &s->reader;
	if (s->frame_charged <= ROUTER_FRAME_KEEP || r->have != 0 || r->n_fds != 0)
		return;
	uint32_t max = r->max_frame;
	wnn_reader_finish(r);
	wnn_reader_init(r, max);
	session_uncharge(s, s->frame_charged);
	s->frame_charged = 0;
}

void router_on_readable(struct session *s)
{
	session_ref(s);
	/* A bounded number of reads per wake-up keeps one busy client from starving others. */
	for (int round = 0; round < 64 && !s->closed && !session_backlogged(s); round++) {
		if (!router_charge_frame(s))
			break;
		/* Frames held while the connection was backlogged go first. */
		int r = wnn_reader_ready(&s->reader) ? 1 : wnn_reader_fill(&s->reader, s->conn.fd);
		if (r == -EAGAIN)
			break;
		if (r == -EPROTO) {
			/* A bad header, or fds that do not match it (the reader closed them). */
			request_violation(s, "%s", s->reader.error);
			break;
		}
		if (r < 0) {
			char why[96];
			snprintf(why, sizeof(why), "read error: %s", strerror(-r));
			session_close(s, why);
			break;
		}
		bool held = false;
		for (;;) {
			/* Frames read ahead wait while the connection is backlogged (the
			 * connection resumes them: conn_update); each one counts. */
			if (session_backlogged(s) && wnn_reader_ready(&s->reader)) {
				held = true;
				break;
			}
			const uint8_t *payload;
			size_t len;
			int fds[WNN_FRAME_MAX_FDS], n_fds = 0;
			int nr = wnn_reader_next(&s->reader, &payload, &len, fds, &n_fds);
			if (nr < 0) {
				request_violation(s, "%s", s->reader.error);
				break;
			}
			if (nr == 0)
				break;
			int hr = router_frame(s, payload, len, fds, n_fds);
			if (hr < 0 || s->closed)
				break;
			wnn_reader_consume(&s->reader);
		}
		if (!s->closed)
			router_release_frame(s);
		if (held)
			break;
		/* The read came back short: the socket is empty, and the poll (level-triggered)
		 * wakes us for more; another read now would only fail with EAGAIN. */
		if (r > 0 && s->reader.drained && !wnn_reader_ready(&s->reader))
			break;
		if (r == 0 && !s->closed) {
			session_close(s, NULL); /* EOF */
			break;
		}
	}
	/* Bytes of an incomplete frame start the slow-sender clock (server.c sweeps it); complete
	 * frames waiting for back-pressure to ease are not the client's delay. */
	if (s->closed || s->reader.have == 0 || session_backlogged(s))
		s->partial_since_ms = 0;
	else if (!s->partial_since_ms)
		s->partial_since_ms = uv_now(s->d->loop);
	session_unref(s);
}
