/* Safe directories: walked with O_NOFOLLOW, each component's owner and mode checked (safedir.h). */
#include "daemon/safedir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool owner_ok(const struct safedir_rule *rule, uid_t uid)
{
	for (int i = 0; i < rule->n_owners; i++)
		if (rule->owners[i] == uid)
			return true;
	return false;
}

/* The rule for one directory (fd, shown as `shown`). 0 or -errno with why. */
static int check_dir(int fd, const char *shown, const struct safedir_rule *rule, char *why,
		     size_t why_len)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int err = errno;
		snprintf(why, why_len, "cannot check %s: %s", shown, strerror(err));
		return -err;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%s is not a directory", shown);
		return -ENOTDIR;
	}
	if (!owner_ok(rule, st.st_uid)) {
		char list[64] = "";
		size_t n = 0;
		for (int i = 0; i < rule->n_owners && n < sizeof(list); i++) {
			bool seen = false;
			for (int j = 0; j < i; j++)
				seen |= rule->owners[j] == rule->owners[i];
			if (!seen)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%u",
						      n ? ", " : "", (unsigned)rule->owners[i]);
		}
		snprintf(why, why_len, "%s belongs to uid %u, and only uid %s may own the directories "
			 "on this path (another owner could swap what webnnd creates there for a "
			 "symlink or a socket of its own)", shown, (unsigned)st.st_uid, list);
		return -EPERM;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		snprintf(why, why_len, "%s has mode %04o: writable by its group or by others without "
			 "the sticky bit, so they could swap what webnnd creates there", shown,
			 (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* Creates name in the directory at, with the rule's mode and owner, and opens it. */
static int make_dir(int at, const char *name, const char *shown, const struct safedir_rule *rule,
		    char *why, size_t why_len)
{
	if (mkdirat(at, name, 0700) != 0 && errno != EEXIST) {
		int err = errno;
		snprintf(why, why_len, "cannot create %s: %s", shown, strerror(err));
		return -err;
	}
	/* Ours or not (EEXIST: created meanwhile by someone), it is checked before any use. */
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		snprintf(why, why_len, "cannot open %s: %s", shown, strerror(err));
		return -err;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && st.st_uid == geteuid()) {
		/* The mode as asked, whatever the umask; then the owner (the mode first: once
		 * given away, it is no longer ours to change). */
		if (fchmod(fd, rule->create_mode) != 0 ||
		    (rule->chown_uid != (uid_t)-1 &&
		     fchown(fd, rule->chown_uid, rule->chown_gid) != 0)) {
			int err = errno;
			snprintf(why, why_len, "cannot set the mode and owner of %s: %s", shown,
				 strerror(err));
			close(fd);
			return -err;
		}
	}
	return fd;
}

/* Opens the directory the walk starts from: "/" (checked). */
static int open_root(const struct safedir_rule *rule, char *shown, char *why, size_t why_len)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		snprintf(why, why_len, "cannot open /: %s", strerror(err));
		return -err;
	}
	shown[0] = '\0';
	int r = check_dir(fd, "/", rule, why, why_len);
	if (r != 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* Symlinks are followed by hand: only one in a directory that passed the rule and owned by a
 * trusted user (in a sticky directory anyone may add one), and the walk goes on from its
 * target, which is checked in turn. */
#define SAFEDIR_MAX_LINKS 40

int safedir_open(const char *dir, const struct safedir_rule *rule, char *why, size_t why_len)
{
	/* todo: what is left to walk; shown: where the walk is (for messages) */
	char todo[PATH_MAX * 2], shown[PATH_MAX * 2];
	if (dir[0] == '/') {
		if (snprintf(todo, sizeof(todo), "%s", dir) >= (int)sizeof(todo))
			goto too_long;
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd))) {
			int err = errno;
			snprintf(why, why_len, "cannot resolve %s: %s", dir, strerror(err));
			return -err;
		}
		if (snprintf(todo, sizeof(todo), "%s/%s", cwd, dir) >= (int)sizeof(todo))
			goto too_long;
	}
	int fd = open_root(rule, shown, why, why_len);
	if (fd < 0)
		return fd;
	int links = 0;
	char *p = todo;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			return fd;
		size_t n = strcspn(p, "/");
		char c[NAME_MAX + 1];
		if (n > NAME_MAX) {
			close(fd);
			goto too_long;
		}
		memcpy(c, p, n);
		c[n] = '\0';
		p += n;
		if (strcmp(c, ".") == 0)
			continue;
		size_t sl = strlen(shown);
		if (strcmp(c, "..") == 0) {
			char *up = strrchr(shown, '/');
			if (up)
				*up = '\0';
		} else if (snprintf(shown + sl, sizeof(shown) - sl, "/%s", c) >=
			   (int)(sizeof(shown) - sl)) {
			close(fd);
			goto too_long;
		}
		const char *name = shown[0] ? shown : "/";
		int next = openat(fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && rule->create_mode)
			next = make_dir(fd, c, name, rule, why, why_len);
		else if (next < 0) {
			int err = errno;
			if (err == ENOENT)
				snprintf(why, why_len, "%s does not exist", name);
			else
				snprintf(why, why_len, "cannot open %s: %s", name, strerror(err));
			next = -err;
		}
		if (next < 0) {
			close(fd);
			return next;
		}
		struct stat st;
		if (fstat(next, &st) != 0) {
			int err = errno;
			snprintf(why, why_len, "cannot check %s: %s", name, strerror(err));
			close(next);
			close(fd);
			return -err;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX], rest[PATH_MAX * 2];
			ssize_t tl = readlinkat(next, "", target, sizeof(target) - 1);
			close(next);
			if (!owner_ok(rule, st.st_uid)) {
				snprintf(why, why_len, "%s is a symlink of uid %u, and webnnd follows "
					 "only those of trusted users (it could point anywhere)", name,
					 (unsigned)st.st_uid);
				close(fd);
				return -EPERM;
			}
			if (tl < 0 || ++links > SAFEDIR_MAX_LINKS) {
				snprintf(why, why_len, "cannot follow the symlink %s: %s", name,
					 tl < 0 ? strerror(errno) : "too many levels of links");
				close(fd);
				return tl < 0 ? -errno : -ELOOP;
			}
			target[tl] = '\0';
			if (snprintf(rest, sizeof(rest), "%s%s", target, p) >= (int)sizeof(rest)) {
				close(fd);
				goto too_long;
			}
			memcpy(todo, rest, strlen(rest) + 1);
			p = todo;
			/* Relative: from the directory holding the link (shown back to it). */
			char *up = strrchr(shown, '/');
			if (up)
				*up = '\0';
			if (target[0] == '/') {
				close(fd);
				fd = open_root(rule, shown, why, why_len);
				if (fd < 0)
					return fd;
			}
			continue;
		}
		close(fd);
		fd = next;
		int r = check_dir(fd, name, rule, why, why_len);
		if (r != 0) {
			close(fd);
			return r;
		}
	}
too_long:
	snprintf(why, why_len, "%.200s: the path is too long", dir);
	return -ENAMETOOLONG;
}
