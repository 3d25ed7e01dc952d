/* Process policy for the backends' on-disk caches: the directory, PoCL's cache, the warm-up child. */
#ifndef DAEMON_CACHES_H
#define DAEMON_CACHES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "daemon/backend/backend.h"

struct sandbox_user;

/* The first of $WEBNN_CACHE_DIR, $XDG_CACHE_HOME/webnn, ~/.cache/webnn, /tmp/webnn-cache-UID
 * that can be created (mode 0700), belongs to `owner` (the user the workers run as; NULL: us),
 * is writable by no one else and can be written by owner; "" when none can. Dropping from
 * root to owner: $WEBNN_CACHE_DIR, /var/cache/webnn, /tmp/webnn-cache-UID, and the
 * directories created are given to owner. */
void caches_pick_dir(char *out, size_t len, const struct sandbox_user *owner);
/* Points PoCL's kernel cache at <dir>/pocl (made as above) unless POCL_CACHE_DIR is already
 * set. PoCL reads it when its platform initialises, so this runs before any backend init. */
void caches_point_pocl(const char *dir, const struct sandbox_user *owner);

/* Forks the child that runs impl->warm_caches(opts) and exits; call it before the backend's
 * init (the child must start OpenCL on its own) and before the lockdown. Returns the child's
 * pid, or 0 when the backend has no warm-up hook or the fork failed. The child dies with the
 * daemon, closes every inherited descriptor and runs at a lower priority. */
pid_t caches_warm_start(const struct backend_impl *impl, const struct backend_options *opts);
/* Reaps the child if it has finished (never blocks); *pid becomes 0 once reaped. */
void caches_warm_reap(pid_t *pid);
/* Kills the child if it still runs and reaps it: the daemon never waits for a warm-up. */
void caches_warm_stop(pid_t *pid);

#endif
