/* Directories webnnd creates or uses while it may be root, opened one component at a time so
 * that no other user can redirect what it does in them. */
#ifndef DAEMON_SAFEDIR_H
#define DAEMON_SAFEDIR_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The rule, checked on every directory from / down to the last one with fstat on a descriptor
 * opened with O_NOFOLLOW (so the directory checked is the directory used):
 *   - it belongs to one of `owners` (root, the daemon's own uid, the service user), and
 *   - it is writable by neither its group nor others, unless it has the sticky bit (/tmp):
 *     there others may add names but can neither remove nor rename the daemon's.
 * Anyone else who could write a directory on the path could swap what webnnd creates in it
 * for a symlink (root then changes the target) or a listener of its own. A symlink on the
 * path is followed only when it belongs to one of `owners` (its directory passed the rule
 * already), and the directories it leads to are checked in turn.
 */
#define SAFEDIR_MAX_OWNERS 3

struct safedir_rule {
	uid_t owners[SAFEDIR_MAX_OWNERS];
	int n_owners;
	mode_t create_mode; /* missing directories are created with this mode (0: not created) */
	uid_t chown_uid;    /* ... and given to this user and group ((uid_t)-1: kept ours) */
	gid_t chown_gid;
};

/* Opens dir (relative: to the working directory) as an O_PATH directory descriptor that
 * passed the rule, creating what is missing. The descriptor, or -errno with why naming the
 * directory and the rule it breaks. */
int safedir_open(const char *dir, const struct safedir_rule *rule, char *why, size_t why_len);

#endif
