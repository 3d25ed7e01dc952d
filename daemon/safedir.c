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
		for (int i = 0; i < rule->n_owners && n < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%u", i ? ", " : "",
					      (unsigned)rule->owners[i]);
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

int safedir_open(const char *dir, const struct safedir_rule *rule, char *why, size_t why_len)
{
	char abs[PATH_MAX], canon[PATH_MAX], probe[PATH_MAX];
	if (dir[0] == '/') {
		if (snprintf(abs, sizeof(abs), "%s", dir) >= (int)sizeof(abs))
			goto too_long;
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd))) {
			int err = errno;
			snprintf(why, why_len, "cannot resolve %s: %s", dir, strerror(err));
			return -err;
		}
		if (snprintf(abs, sizeof(abs), "%s/%s", cwd, dir) >= (int)sizeof(abs))
			goto too_long;
	}
	/* The longest prefix that exists, resolved; the rest is created below. */
	size_t cut = strlen(abs);
	while (cut > 1 && abs[cut - 1] == '/')
		cut--;
	for (;;) {
		memcpy(probe, abs, cut);
		probe[cut] = '\0';
		if (realpath(cut ? probe : "/", canon))
			break;
		if (errno != ENOENT) {
			int err = errno;
			snprintf(why, why_len, "cannot resolve %s: %s", probe, strerror(err));
			return -err;
		}
		while (cut > 0 && abs[cut - 1] != '/')
			cut--;
		while (cut > 1 && abs[cut - 1] == '/')
			cut--;
		if (cut <= 1) {
			cut = 0;
			snprintf(canon, sizeof(canon), "/");
			break;
		}
	}
	const char *rest = abs + cut;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		snprintf(why, why_len, "cannot open /: %s", strerror(err));
		return -err;
	}
	int r = check_dir(fd, "/", rule, why, why_len);
	char shown[PATH_MAX] = "";
	size_t shown_len = 0;
	char walk[PATH_MAX * 2];
	snprintf(walk, sizeof(walk), "%s%s", canon, rest);
	for (char *save = NULL, *c = strtok_r(walk, "/", &save); c && r == 0;
	     c = strtok_r(NULL, "/", &save)) {
		bool existing = (size_t)(c - walk) < strlen(canon);
		shown_len += (size_t)snprintf(shown + shown_len, sizeof(shown) - shown_len, "/%s", c);
		if (shown_len >= sizeof(shown))
			goto too_long_fd;
		if (!existing && (strcmp(c, ".") == 0 || strcmp(c, "..") == 0)) {
			snprintf(why, why_len, "%s: '.' and '..' are not allowed in the part of the "
				 "path webnnd creates", dir);
			r = -EINVAL;
			break;
		}
		int next = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && !existing && rule->create_mode)
			next = make_dir(fd, c, shown, rule, why, why_len);
		else if (next < 0) {
			int err = errno;
			if (err == ENOENT)
				snprintf(why, why_len, "%s does not exist", shown);
			else if (err == ENOTDIR)
				snprintf(why, why_len, "%s is not a directory", shown);
			else if (err == ELOOP)
				snprintf(why, why_len, "%s became a symlink while webnnd checked the "
					 "path", shown);
			else
				snprintf(why, why_len, "cannot open %s: %s", shown, strerror(err));
			next = -err;
		}
		close(fd);
		fd = -1;
		if (next < 0) {
			r = next;
			break;
		}
		fd = next;
		r = check_dir(fd, shown, rule, why, why_len);
	}
	if (r != 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	return fd;
too_long_fd:
	close(fd);
too_long:
	snprintf(why, why_len, "%.200s: the path is too long", dir);
	return -ENAMETOOLONG;
}
