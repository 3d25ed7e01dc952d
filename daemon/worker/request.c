/* Request decoding with a memory budget, id lookups and protocol violations, shared by handlers. */
#include "daemon/worker/request.h"

#include "daemon/log.h"
#include "daemon/worker/obj.h"
#include "daemon/worker/reply.h"
#include "daemon/worker/session.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void *pb_alloc(void *data, size_t size)
{
	struct session *s = data;
	if (s && size > s->unpack_limit - s->unpack_used)
		return NULL;
	if (s)
		s->unpack_used += size;
	return malloc(size);
}

static void pb_free(void *data, void *ptr)
{
	(void)data;
	free(ptr);
}

static ProtobufCAllocator pb_free_allocator = { pb_alloc, pb_free, NULL };

Webnn__Ipc__ClientMessage *request_unpack(struct session *s, const uint8_t *payload, size_t len)
{
	s->unpack_used = 0;
	return webnn__ipc__client_message__unpack(&(ProtobufCAllocator){ pb_alloc, pb_free, s },
						  len, payload);
}

void request_msg_free(Webnn__Ipc__ClientMessage *m)
{
	if (m)
		webnn__ipc__client_message__free_unpacked(m, &pb_free_allocator);
}

int request_violation(struct session *s, const char *fmt, ...)
{
	if (s->closed)
		return -1;
	char reason[WNN_MAX_DIAG];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	reply_goodbye(s, reason);
	log_client_warn(s->uid, "session %" PRIu64 " (%s, pid %d): protocol violation: %s", s->no,
			s->name, (int)s->pid, reason);
	session_close(s, "protocol violation");
	return -1;
}

struct obj *request_lookup(struct session *s, uint32_t id, const struct obj_kind *kind,
			   const char *what)
{
	if (id == 0) {
		request_violation(s, "%s: id 0 is not a valid %s id", what, kind->name);
		return NULL;
	}
	struct obj *o = idmap_get(&s->ids, id);
	if (!o) {
		request_violation(s, "%s: unknown %s id %" PRIu32, what, kind->name, id);
		return NULL;
	}
	if (o->kind != kind) {
		request_violation(s, "%s: id %" PRIu32 " is a %s, expected a %s", what, id,
				  o->kind->name, kind->name);
		return NULL;
	}
	return o;
}

int request_check_new_id(struct session *s, uint32_t id, const char *what)
{
	if (id == 0)
		return request_violation(s, "%s: id 0 is not a valid object id", what);
	struct obj *o = idmap_get(&s->ids, id);
	if (o)
		return request_violation(s, "%s: id %" PRIu32 " is already used by a live %s", what,
					 id, o->kind->name);
	return 0;
}
