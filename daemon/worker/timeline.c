/* Per-context in-order timelines: one command at a time on the libuv thread pool; completions
 * reply through the reply module and account through the session, never the server. */
#include "daemon/worker/timeline.h"

#include "daemon/graph/passes.h"
#include "daemon/worker/constant.h"
#include "daemon/worker/context.h"
#include "daemon/control.h"
#include "daemon/worker/graphcache.h"
#include "daemon/log.h"
#include "daemon/worker/mlgraph.h"
#include "daemon/worker/reply.h"
#include "daemon/worker/session.h"
#include "daemon/worker/shm.h"
#include "daemon/worker/tensor.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The device context is gone: sends ContextLost once; later work fails with CONTEXT_LOST, and
 * the work running on it is cancelled. */
static void timeline_lose(struct context *c, const char *message);

_Static_assert(sizeof(struct cmd) + 8 <= OBJ_CMD_BYTES, "obj_charge_bytes counts a command");

/* How often the watchdog looks at the running commands. */
#define WATCHDOG_TICK_MS 100

struct cmd *cmd_new(const struct cmd_kind *kind, struct context *c)
{
	struct cmd *cmd = calloc(1, sizeof(*cmd));
	if (!cmd)
		return NULL;
	cmd->kind = kind;
	cmd->ctx = c;
	obj_ref(&c->obj);
	cmd->work.data = cmd;
	return cmd;
}

void cmd_read_from(struct cmd *cmd, struct shm *slot, uint64_t offset)
{
	obj_ref(&slot->obj);
	cmd->src = slot;
	cmd->src_off = offset;
}

static bool cmd_is_release(const struct cmd *cmd)
{
	return cmd->kind->release_object != NULL;
}

static void cmd_free(struct cmd *cmd)
{
	if (cmd->queued) {
		struct context *c = cmd->ctx;
		struct session *s = c->obj.s;
		if (c->n_queued-- == s->d->limits.max_inflight_per_context)
			session_context_full(s, false);
		session_pending_done(s, cmd->pending); /* reading resumes when nothing is full */
	}
	if (cmd_is_release(cmd)) {
		cmd->kind->release_object(cmd); /* refs already 0: this command owns the object */
	} else {
		if (cmd->tensor)
			obj_unref(&cmd->tensor->obj);
		if (cmd->graph)
			obj_unref(&cmd->graph->obj);
	}
	for (size_t i = 0; i < cmd->n_ins; i++)
		obj_unref(&cmd->ins[i]->obj);
	for (size_t i = 0; i < cmd->n_outs; i++)
		obj_unref(&cmd->outs[i]->obj);
	free(cmd->ins);
	free(cmd->outs);
	if (cmd->dest)
		obj_unref(&cmd->dest->obj);
	if (cmd->src)
		obj_unref(&cmd->src->obj);
	if (cmd->constant)
		obj_unref(&cmd->constant->obj);
	free(cmd->data);
	if (cmd->charged)
		session_uncharge(cmd->ctx->obj.s, cmd->charged);
	struct context *c = cmd->ctx;
	free(cmd);
	obj_unref(&c->obj);
}

void cmd_discard(struct cmd *cmd)
{
	cmd_free(cmd);
}

void cmd_reply_ok(struct cmd *cmd, Webnn__Ipc__Reply *r)
{
	r->serial = cmd->serial;
	reply_send(cmd->ctx->obj.s, r);
}

void cmd_fail(struct cmd *cmd, uint32_t object_id)
{
	struct session *s = cmd->ctx->obj.s;
	if (cmd->serial)
		reply_error(s, cmd->serial, &cmd->diag);
	else
		reply_error_event(s, cmd->ctx->obj.id, object_id, &cmd->diag);
}

/* Pool (or quick) side: the kind's work, on backend calls and the command's own fields. */
static void cmd_work(uv_work_t *w)
{
	struct cmd *cmd = w->data;
	atomic_store(&cmd->started_ms, uv_hrtime() / 1000000 + 1);
	cmd->kind->work(cmd);
	if (cmd->status != WEBNN_STATUS_OK && cmd->diag.status == WEBNN_STATUS_OK)
		wnn_diag_set(&cmd->diag, cmd->status, "the %s backend failed without a message",
			     cmd->ctx->backend->impl->name);
}

void cmd_complete(struct cmd *cmd)
{
	if (cmd->status == WEBNN_STATUS_CONTEXT_LOST)
		timeline_lose(cmd->ctx, cmd->diag.message);
	if (cmd->kind->complete)
		cmd->kind->complete(cmd, cmd->status == WEBNN_STATUS_OK);
}

/* Loop-side checks made when a command reaches the head of its timeline; false when it was
 * completed without needing the pool. */
static bool cmd_prepare(struct cmd *cmd)
{
	struct context *c = cmd->ctx;
	const struct cmd_kind *k = cmd->kind;
	if (cmd_is_release(cmd))
		return k->prepare(cmd); /* whether there is device memory to free */
	if (c->lost && !k->on_lost) {
		cmd->status = wnn_diag_set(&cmd->diag, WEBNN_STATUS_CONTEXT_LOST,
					   "context %" PRIu32 " is lost: %s", c->obj.id, c->lost_msg);
		goto done;
	}
	if (k->prepare && !k->prepare(cmd))
		return false; /* completed at the head */
	/* An in-place write or read of a tensor computed in its shared memory moves nothing:
	 * it completes here, in timeline order, without a trip through the pool. */
	if (cmd->status == WEBNN_STATUS_OK && cmd->in_place && !c->backend->impl->tensor_sync) {
		cmd_complete(cmd);
		return false;
	}
done:
	if (cmd->status != WEBNN_STATUS_OK) {
		cmd_complete(cmd);
		return false;
	}
	return true;
}

/* The timeline's own command: a reply queued behind the work sent before its request. */
static bool reply_prepare(struct cmd *cmd)
{
	/* due even on a lost context */
	cmd_complete(cmd);
	return false;
}

static void reply_complete(struct cmd *cmd, bool ok)
{
	(void)ok;
	if (cmd->data) {
		reply_frame(cmd->ctx->obj.s, cmd->data, cmd->size);
		cmd->data = NULL;
	}
}

static const struct cmd_kind cmd_reply = {
	.verb = "reply",
	.on_lost = true,
	.prepare = reply_prepare,
	.complete = reply_complete,
};

static void timeline_kick(struct context *c);

/* ---- the watchdog */

static uint64_t mono_ms(void)
{
	return uv_hrtime() / 1000000;
}

static void watchdog_tick(uv_timer_t *t)
{
	struct daemon *d = t->data;
	const struct daemon_limits *lim = &d->limits;
	uint64_t grace = (uint64_t)lim->dispatch_timeout_ms * 2;
	if (grace < lim->watchdog_grace_ms)
		grace = lim->watchdog_grace_ms;
	uint64_t now = mono_ms();
	struct cmd *cmd = d->running;
	while (cmd) {
		struct cmd *next = cmd->run_next; /* losing a context never ends a command here */
		uint64_t t0 = atomic_load(&cmd->started_ms);
		bool watched = cmd->kind->watched;
		uint64_t ran = t0 ? now + 1 - t0 : 0; /* started_ms is offset by 1 from 0 */
		struct context *c = cmd->ctx;
		if (watched && !cmd->timed_out && ran > lim->dispatch_timeout_ms) {
			cmd->timed_out = true;
			char why[WNN_MAX_DIAG];
			snprintf(why, sizeof(why), "%s of graph %" PRIu32 " ran longer than "
				 "dispatch_timeout_ms (%" PRIu32 " ms)", cmd->kind->verb,
				 cmd->graph->obj.id, lim->dispatch_timeout_ms);
			if (c->closing) /* already cancelled, and nobody to tell */
				log_client_warn(c->obj.s->uid, "session %" PRIu64 ": %s (context "
						"%" PRIu32 " is closing)", c->obj.s->no, why, c->obj.id);
			else
				timeline_lose(c, why); /* cancels it; its client learns why */
		}
		if (cmd->timed_out && ran > (uint64_t)lim->dispatch_timeout_ms + grace) {
			log_error("session %" PRIu64 ": the %s of graph %" PRIu32 " on context %" PRIu32
				  " has not returned %" PRIu64 " ms after dispatch_timeout_ms (%" PRIu32
				  " ms) cancelled it: the worker exits (watchdog)", c->obj.s->no,
				  cmd->kind->verb, cmd->graph->obj.id, c->obj.id, grace,
				  lim->dispatch_timeout_ms);
			/* Its thread cannot be reclaimed; nothing here may wait for it (exit()'s
			 * handlers and library destructors could). */
			_exit(WORKER_EXIT_WATCHDOG);
		}
		cmd = next;
	}
}

/* The command goes to the pool: the watchdog times it. */
static void watchdog_add(struct cmd *cmd)
{
	struct daemon *d = cmd->ctx->obj.s->d;
	cmd->run_prev = NULL;
	cmd->run_next = d->running;
	if (d->running)
		d->running->run_prev = cmd;
	d->running = cmd;
	if (!d->watchdog_init) {
		uv_timer_init(d->loop, &d->watchdog);
		d->watchdog.data = d;
		d->watchdog_init = true;
	}
	if (!d->watchdog_on && !uv_is_closing((uv_handle_t *)&d->watchdog)) {
		d->watchdog_on = true;
		uv_timer_start(&d->watchdog, watchdog_tick, WATCHDOG_TICK_MS, WATCHDOG_TICK_MS);
	}
}

static void watchdog_remove(struct cmd *cmd)
{
	struct daemon *d = cmd->ctx->obj.s->d;
	if (cmd->run_prev)
		cmd->run_prev->run_next = cmd->run_next;
	else if (d->running == cmd)
		d->running = cmd->run_next;
	if (cmd->run_next)
		cmd->run_next->run_prev = cmd->run_prev;
	cmd->run_prev = cmd->run_next = NULL;
	if (!d->running && d->watchdog_on) {
		d->watchdog_on = false;
		uv_timer_stop(&d->watchdog);
	}
}

void timeline_watchdog_close(struct daemon *d)
{
	if (d->watchdog_init && !uv_is_closing((uv_handle_t *)&d->watchdog)) {
		d->watchdog_on = false;
		uv_close((uv_handle_t *)&d->watchdog, NULL);
	}
}

/* Whether the command at the head of an idle timeline may run on the loop thread now. */
static bool cmd_quick(struct cmd *cmd)
{
	struct daemon *d = cmd->ctx->obj.s->d;
	uint64_t tick = uv_now(d->loop);
	if (tick != d->quick_tick) {
		d->quick_tick = tick;
		d->quick_spent_ns = 0;
	}
	if (d->quick_spent_ns >= QUICK_TICK_NS)
		return false;
	return cmd->kind->quick && cmd->kind->quick(cmd);
}

static void cmd_after(uv_work_t *w, int status);

/* Runs a quick command on the loop thread, then completes it as the pool's would be. */
static void cmd_run_quick(struct cmd *cmd)
{
	struct daemon *d = cmd->ctx->obj.s->d;
	uint64_t t0 = uv_hrtime();
	cmd->quick = true;
	cmd_work(&cmd->work);
	uint64_t ns = uv_hrtime() - t0;
	d->quick_spent_ns += ns;
	if (cmd->kind->ran_quick)
		cmd->kind->ran_quick(cmd, ns);
	cmd_after(&cmd->work, 0);
}

static void cmd_after(uv_work_t *w, int status)
{
	struct cmd *cmd = w->data;
	struct context *c = cmd->ctx;
	(void)status; /* never cancelled: uv_cancel is not used */
	obj_ref(&c->obj);
	c->running = false;
	watchdog_remove(cmd);
	if (c->lost && !cmd_is_release(cmd)) {
		/* Lost while it ran (the watchdog): whatever it made is discarded, as for the
		 * commands queued behind it. */
		wnn_diag_clear(&cmd->diag);
		cmd->status = wnn_diag_set(&cmd->diag, WEBNN_STATUS_CONTEXT_LOST,
					   "context %" PRIu32 " is lost: %s", c->obj.id, c->lost_msg);
	}
	if (!cmd_is_release(cmd) && !c->closing)
		cmd_complete(cmd);
	cmd_free(cmd);
	timeline_kick(c);
	obj_unref(&c->obj);
}

static void timeline_kick(struct context *c)
{
	if (c->kicking)
		return; /* the outer loop below picks up what nested pushes appended */
	c->kicking = true;
	obj_ref(&c->obj);
	while (!c->running && c->head) {
		struct cmd *cmd = c->head;
		c->head = cmd->next;
		if (!c->head)
			c->tail = NULL;
		cmd->next = NULL;
		if (c->closing && !cmd_is_release(cmd)) {
			cmd_free(cmd); /* dropped: nobody is listening any more */
			continue;
		}
		if (!cmd_prepare(cmd)) {
			cmd_free(cmd);
			continue;
		}
		c->running = true;
		if (cmd_quick(cmd)) {
			cmd_run_quick(cmd);
			continue;
		}
		watchdog_add(cmd);
		int r = uv_queue_work(c->obj.s->d->loop, &cmd->work, cmd_work, cmd_after);
		if (c->backend && c->backend->impl->work_queued)
			c->backend->impl->work_queued(c->backend->be);
		if (r != 0) {
			/* Only fails on invalid arguments; run it here rather than lose it. */
			log_error("uv_queue_work: %s", uv_strerror(r));
			cmd_work(&cmd->work);
			cmd_after(&cmd->work, 0);
		}
	}
	c->kicking = false;
	obj_unref(&c->obj);
}

void timeline_push(struct cmd *cmd)
{
	struct context *c = cmd->ctx;
	if (!cmd_is_release(cmd)) {
		struct session *s = c->obj.s;
		cmd->queued = true;
		cmd->pending = cmd->size;
		session_pending_add(s, cmd->pending);
		/* A client pipelining on one context is no longer read from at the limit (the
		 * router checks between frames), so it cannot make the daemon hold unbounded work. */
		if (++c->n_queued == s->d->limits.max_inflight_per_context)
			session_context_full(s, true);
	}
	if (c->tail)
		c->tail->next = cmd;
	else
		c->head = cmd;
	c->tail = cmd;
	timeline_kick(c);
}

void timeline_reply(struct context *c, Webnn__Ipc__Reply *reply)
{
	struct session *s = c->obj.s;
	if (!c->running && !c->head) {
		reply_send(s, reply);
		return;
	}
	/* Work is queued: the reply waits its turn so replies stay in request order. */
	size_t len;
	uint8_t *buf = reply_pack(reply, &len);
	struct cmd *cmd = buf ? cmd_new(&cmd_reply, c) : NULL;
	if (!cmd) {
		free(buf);
		session_close(s, "out of memory queueing a reply");
		return;
	}
	cmd->data = buf;
	cmd->size = len;
	/* Owed to the client like any reply (session_queue). */
	budget_force(s, len);
	cmd->charged = len;
	timeline_push(cmd);
}

void timeline_reply_error(struct context *c, uint64_t serial, const struct wnn_diag *diag)
{
	Webnn__Ipc__Error err;
	Webnn__Ipc__Reply r;
	reply_error_fill(&r, &err, c->obj.s, serial, diag);
	timeline_reply(c, &r);
}

void timeline_fail(struct context *c, uint64_t serial, uint32_t object_id,
		   const struct wnn_diag *diag)
{
	if (serial)
		timeline_reply_error(c, serial, diag);
	else
		reply_error_event(c->obj.s, c->obj.id, object_id, diag);
}

static void timeline_lose(struct context *c, const char *message)
{
	if (c->lost)
		return;
	c->lost = true;
	atomic_store(&c->cancel, true);
	snprintf(c->lost_msg, sizeof(c->lost_msg), "%s", message);
	log_client_warn(c->obj.s->uid, "session %" PRIu64 ": context %" PRIu32 " lost: %s",
			c->obj.s->no, c->obj.id, message);
	reply_context_lost(c->obj.s, c->obj.id, c->lost_msg);
}

void timeline_close(struct context *c)
{
	c->closing = true;
	atomic_store(&c->cancel, true);
}
