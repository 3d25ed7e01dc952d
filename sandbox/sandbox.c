/* Process lockdown: no_new_privs, inherited fds, the service user, Landlock and seccomp. */
#include "sandbox/sandbox.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <linux/magic.h>
#include <link.h>
#include <pwd.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>
#ifdef WNN_TEST_HOOKS
#include <spawn.h>
#include <sys/wait.h>
#endif

/* ---- the first lines of main() */

int sandbox_no_new_privs(void)
{
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : -errno;
}

static void close_span(unsigned first, unsigned last)
{
	if (first > last)
		return;
	if (close_range(first, last, 0) == 0)
		return;
	/* Kernels before 5.9: one by one, up to the descriptor limit. */
	struct rlimit rl;
	unsigned max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1u << 20 ?
			       (unsigned)rl.rlim_cur : 1u << 20;
	for (unsigned fd = first; fd <= last && fd < max; fd++)
		close((int)fd);
}

void sandbox_close_inherited_fds(int keep_first, int n_keep)
{
	if (n_keep <= 0 || keep_first < 3) {
		close_span(3, ~0u);
		return;
	}
	close_span(3, (unsigned)keep_first - 1);
	close_span((unsigned)(keep_first + n_keep), ~0u);
}

/* ---- the service user */

static int user_fill(struct sandbox_user *u, const struct passwd *pw)
{
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	int n = SANDBOX_MAX_GROUPS;
	if (getgrouplist(pw->pw_name, pw->pw_gid, u->groups, &n) < 0) {
		/* More groups than we keep: the primary one alone (GPU groups may be lost). */
		u->groups[0] = pw->pw_gid;
		n = 1;
	}
	u->n_groups = n;
	return 0;
}

static struct passwd *user_lookup(const char *name)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(name, &end, 10);
	if (!errno && *name && !*end && v < UINT32_MAX)
		return getpwuid((uid_t)v);
	return getpwnam(name);
}

int sandbox_user_resolve(const char *name, struct sandbox_user *u, char *why, size_t why_len)
{
	memset(u, 0, sizeof(*u));
	uid_t me = geteuid();
	if (me != 0) {
		struct passwd *want = name ? user_lookup(name) : NULL;
		if (name && (!want || want->pw_uid != me)) {
			snprintf(why, why_len, "--user %s: webnnd runs as uid %u and can only change "
				 "users when started as root", name, (unsigned)me);
			return -1;
		}
		struct passwd *pw = getpwuid(me);
		u->uid = me;
		u->gid = getegid();
		u->n_groups = getgroups(SANDBOX_MAX_GROUPS, u->groups);
		if (u->n_groups < 0)
			u->n_groups = 0;
		if (pw)
			snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
		else
			snprintf(u->name, sizeof(u->name), "%u", (unsigned)me);
		return 0;
	}
	const char *want = name;
	if (!want)
		want = getpwnam("webnn") ? "webnn" : "nobody";
	struct passwd *pw = user_lookup(want);
	if (!pw) {
		snprintf(why, why_len, "there is no user '%s' to run as (create it, or name "
			 "another with --user)", want);
		return -1;
	}
	user_fill(u, pw);
	u->drop = pw->pw_uid != 0;
	return 0;
}

/* Takes on u's identity as the effective one only (saved ids stay root) and back. */
struct effective_ids {
	gid_t groups[NGROUPS_MAX > 1024 ? 1024 : NGROUPS_MAX];
	int n_groups;
	uid_t euid;
	gid_t egid;
};

int sandbox_user_access(const struct sandbox_user *u, const char *path, int mode)
{
	if (!u || geteuid() == u->uid)
		return access(path, mode) == 0 ? 0 : -errno;
	static struct effective_ids saved;
	saved.euid = geteuid();
	saved.egid = getegid();
	saved.n_groups = getgroups((int)(sizeof(saved.groups) / sizeof(saved.groups[0])),
				   saved.groups);
	if (saved.n_groups < 0 || setgroups((size_t)u->n_groups, u->groups) != 0)
		return -errno;
	int r = -EPERM;
	if (setegid(u->gid) == 0) {
		if (seteuid(u->uid) == 0) {
			r = faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0 ? 0 : -errno;
			if (seteuid(saved.euid) != 0)
				abort(); /* we could not become root again: nothing sane to do */
		}
		if (setegid(saved.egid) != 0)
			abort();
	}
	if (setgroups((size_t)saved.n_groups, saved.groups) != 0)
		abort();
	return r;
}

int sandbox_drop_privileges(const struct sandbox_user *u, char *why, size_t why_len)
{
	if (!u->drop)
		return 0;
	/* Nothing exec'd later (PoCL's ld) may gain a capability back through file caps. */
	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL)
			break;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (setgroups((size_t)u->n_groups, u->groups) != 0) {
		snprintf(why, why_len, "setgroups for user %s: %s", u->name, strerror(errno));
		return -1;
	}
	if (setresgid(u->gid, u->gid, u->gid) != 0) {
		snprintf(why, why_len, "setresgid(%u): %s", (unsigned)u->gid, strerror(errno));
		return -1;
	}
	if (setresuid(u->uid, u->uid, u->uid) != 0) {
		snprintf(why, why_len, "setresuid(%u): %s", (unsigned)u->uid, strerror(errno));
		return -1;
	}
	uid_t r, e, s;
	gid_t rg, eg, sg;
	if (getresuid(&r, &e, &s) != 0 || r != u->uid || e != u->uid || s != u->uid ||
	    getresgid(&rg, &eg, &sg) != 0 || rg != u->gid || eg != u->gid || sg != u->gid) {
		snprintf(why, why_len, "the user and group ids did not all change to %u/%u",
			 (unsigned)u->uid, (unsigned)u->gid);
		return -1;
	}
	if (setresuid(0, 0, 0) == 0 || setresgid(0, 0, 0) == 0) {
		snprintf(why, why_len, "root's ids could be regained after dropping to %s", u->name);
		return -1;
	}
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[2] = { { 0 } };
	if (syscall(SYS_capget, &hdr, caps) != 0 || caps[0].effective || caps[0].permitted ||
	    caps[1].effective || caps[1].permitted) {
		snprintf(why, why_len, "capabilities are left after dropping to %s", u->name);
		return -1;
	}
	return 0;
}

/* ---- lockdown */

int sandbox_harden_process(void)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		return -errno;
	struct rlimit rl = { 0, 0 };
	if (setrlimit(RLIMIT_CORE, &rl) != 0) {
		/* A service manager may refuse setrlimit (systemd's ~@resources) and set
		 * LimitCORE=0 itself. */
		int err = errno;
		if (getrlimit(RLIMIT_CORE, &rl) != 0 || rl.rlim_cur != 0)
			return -err;
	}
	return 0;
}

/* AddressSanitizer builds (make check-asan): LeakSanitizer's exit-time check stops the world
 * from a ptrace-ing clone that reads /proc/<pid>/task and /proc/<pid>/maps. Production builds
 * never have these allowances. */
#if defined(__SANITIZE_ADDRESS__)
#define WNN_SANITIZED 1
#else
#define WNN_SANITIZED 0
#endif

/* ---- Landlock (raw syscalls: Debian has no liblandlock; its 6.1 headers stop at ABI 2) */

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13) /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#endif
#define WNN_LANDLOCK_NET_BIND_TCP (1ULL << 0)                 /* ABI 4 */
#define WNN_LANDLOCK_NET_CONNECT_TCP (1ULL << 1)              /* ABI 4 */
#define WNN_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)   /* ABI 6 */
#define WNN_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)                 /* ABI 6 */

/* struct landlock_ruleset_attr as of ABI 6; older kernels accept the zeroed tail. */
struct wnn_landlock_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

#define LL_FS_ABI1 ((1ULL << 13) - 1) /* EXECUTE .. MAKE_SYM */
#define LL_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_DEVICE (LL_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define LL_CACHE                                                                               \
	(LL_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |                \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |                        \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REFER)
/* The rights that apply to a file (rather than to a directory's entries). */
#define LL_FILE_RIGHTS                                                                         \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |                           \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

int sandbox_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return abi > 0 ? (int)abi : abi == 0 ? -EOPNOTSUPP : -errno;
}

static uint64_t landlock_fs_rights(int abi)
{
	uint64_t fs = LL_FS_ABI1;
	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return fs;
}

/* procfs makes a new inode each time it looks up a name whose dentry the kernel dropped
 * (memory pressure), and Landlock's rules hold inodes: a rule on /proc/<pid> or /proc/cpuinfo
 * would silently stop applying. The descriptors the rules were made from stay open (O_PATH,
 * close-on-exec) for the life of the process, which keeps those dentries, and so the inodes
 * the rules name, in place. sysfs and cgroupfs look their inodes up by number: no need. */
#define SANDBOX_MAX_PINNED 32
static int pinned_fds[SANDBOX_MAX_PINNED];
static int n_pinned;

/* Allows `access` beneath the file or directory fd names (name: for the error). */
static int landlock_allow_fd(int ruleset, uint64_t handled, int fd, const char *name,
			     uint64_t access, char *why, size_t why_len)
{
	struct stat st;
	struct statfs sf;
	if (fstat(fd, &st) != 0 || fstatfs(fd, &sf) != 0) {
		close(fd);
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		access &= LL_FILE_RIGHTS;
	struct landlock_path_beneath_attr pb = { .allowed_access = access & handled,
						 .parent_fd = fd };
	long r = pb.allowed_access ?
			 syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) :
			 0;
	int err = errno;
	if (r == 0 && sf.f_type == PROC_SUPER_MAGIC && pb.allowed_access) {
		if (n_pinned == SANDBOX_MAX_PINNED) {
			close(fd);
			snprintf(why, why_len, "landlock rule for %s: more than %d /proc rules",
				 name, SANDBOX_MAX_PINNED);
			return -1;
		}
		pinned_fds[n_pinned++] = fd;
		return 0;
	}
	close(fd);
	if (r != 0) {
		snprintf(why, why_len, "landlock rule for %s: %s", name, strerror(err));
		return -1;
	}
	return 0;
}

/* Allows `access` beneath path (a missing path is skipped: /lib32, GPU nodes, ...). A symlink
 * is followed: the rule holds what it names (/proc/self: /proc/<pid>). */
static int landlock_allow(int ruleset, uint64_t handled, const char *path, uint64_t access,
			  char *why, size_t why_len)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0;
	return landlock_allow_fd(ruleset, handled, fd, path, access, why, why_len);
}

/* The ELF interpreter this program runs under (PoCL's ld runs under the same one). */
static const char *elf_interpreter(void)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
	size_t n = getauxval(AT_PHNUM);
	uintptr_t base = 0;
	for (size_t i = 0; ph && i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			base = (uintptr_t)ph - ph[i].p_vaddr;
	for (size_t i = 0; ph && i < n; i++)
		if (ph[i].p_type == PT_INTERP)
			return (const char *)(base + ph[i].p_vaddr);
	return NULL;
}

/* What a device worker reads: its libraries and drivers' data (/usr, /opt, the /lib links),
 * the few /etc files the dynamic loader, ocl-icd, clang's driver and ld read. Nothing else of
 * /etc (no passwd, shadow, ssh keys), no home directory, no /tmp, /run or /var. */
static const char *const worker_read_paths[] = {
	"/usr", "/opt", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/OpenCL",
	"/etc/os-release", "/etc/debian_version", "/etc/lsb-release", "/etc/localtime",
	"/dev/zero", "/dev/urandom", "/dev/random",
};

/* Of /proc and /sys, what the backends were traced reading (strace of the cpu, opencl and
 * reference test suites): the processor and memory description (the cpu backend and PoCL name
 * the processor from cpuinfo; hwloc reads meminfo) and the processor and NUMA topology
 * (glibc's sysconf, libgomp, hwloc: online CPUs, caches, siblings, nodes). No other process's
 * /proc, no /proc/sys, kallsyms or modules; nothing of /sys/kernel, /sys/class, /sys/bus,
 * /sys/fs, /sys/firmware but what is added below for the worker's own cgroups and devices.
 * What hwloc then cannot read (hugepage counts, DMI, DAX, the PCI host bridge) it skips. */
static const char *const worker_proc_sys_paths[] = {
	"/proc/cpuinfo", "/proc/meminfo", "/sys/devices/system/cpu", "/sys/devices/system/node",
};

/* The process's own /proc/<pid> files it may read: memory maps and status (glibc, the
 * sanitizers), its cgroups, cpuset and mounts (hwloc), its own command line, environment and
 * limits. Its directory, fd/ and task/ may be listed, but no file of /proc/<pid>/net (the
 * sockets of the whole network namespace: /proc/net is a link to it) nor of task/<tid>/. */
static const char *const own_proc_files[] = {
	"status", "stat", "statm", "maps", "smaps", "smaps_rollup", "numa_maps", "cmdline",
	"environ", "auxv", "limits", "comm", "cgroup", "cpuset", "mountinfo", "mounts",
};

/* The calling process's own /proc/<pid>, which its threads reach through /proc/self and
 * /proc/thread-self too. */
static int landlock_own_proc(int ruleset, uint64_t handled, char *why, size_t why_len)
{
	char dir[32];
	snprintf(dir, sizeof(dir), "/proc/%d", (int)getpid());
	if (landlock_allow(ruleset, handled, dir, LANDLOCK_ACCESS_FS_READ_DIR, why, why_len))
		return -1;
	for (size_t i = 0; i < sizeof(own_proc_files) / sizeof(own_proc_files[0]); i++) {
		char file[64];
		snprintf(file, sizeof(file), "%s/%s", dir, own_proc_files[i]);
		if (landlock_allow(ruleset, handled, file, LANDLOCK_ACCESS_FS_READ_FILE, why,
				   why_len))
			return -1;
	}
	return 0;
}

/* The limits of its own cgroups a process may read (hwloc's cpuset, cgroup-aware thread and
 * memory sizing), cgroup v2 names then v1. Not the cgroup's members, its statistics or any
 * other cgroup. */
static const char *const cgroup_limit_files[] = {
	"cpuset.cpus.effective", "cpuset.mems.effective", "cpu.max", "memory.max", "memory.high",
	"cpuset.cpus", "cpuset.mems", "cpu.cfs_quota_us", "cpu.cfs_period_us",
	"memory.limit_in_bytes",
};

/* Whether the comma-separated list has the item. */
static bool list_has(const char *list, const char *item, size_t len)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (n == len && strncmp(p, item, len) == 0)
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* Whether the cgroup line's controllers ("cpu,cpuacct", "name=systemd", "" for v2) are what
 * the mount of type fstype with super options opts holds. */
static bool cgroup_mount_matches(const char *controllers, const char *fstype, const char *opts)
{
	if (strcmp(fstype, "cgroup2") == 0)
		return !*controllers;
	if (strcmp(fstype, "cgroup") != 0 || !*controllers)
		return false;
	for (const char *p = controllers; *p;) {
		size_t n = strcspn(p, ",");
		if (!list_has(opts, p, n))
			return false;
		p += n + (p[n] == ',');
	}
	return true;
}

/* Reads the limit files of the calling process's cgroups: each line "id:controllers:path" of
 * /proc/self/cgroup, under each cgroup mount of /proc/self/mountinfo that holds it. */
static int landlock_own_cgroups(int ruleset, uint64_t handled, char *why, size_t why_len)
{
	FILE *cg = fopen("/proc/self/cgroup", "re");
	if (!cg)
		return 0;
	char line[1024], mline[2048];
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof(line), cg)) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = 0;
		const char *controllers = c1 + 1, *path = c2 + 1;
		FILE *mi = fopen("/proc/self/mountinfo", "re");
		if (!mi)
			break;
		while (rc == 0 && fgets(mline, sizeof(mline), mi)) {
			/* id parent dev root mountpoint options [optional...] - fstype source super */
			char root[512], point[512], fstype[32], opts[512];
			const char *dash = strstr(mline, " - ");
			if (!dash || sscanf(mline, "%*s %*s %*s %511s %511s", root, point) != 2 ||
			    sscanf(dash + 3, "%31s %*s %511s", fstype, opts) != 2 ||
			    !cgroup_mount_matches(controllers, fstype, opts) || strchr(point, '\\'))
				continue;
			/* The mount shows the hierarchy from root on: path must lie beneath it. */
			size_t rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
			if (strncmp(path, root, rl) != 0 || (path[rl] != '/' && path[rl] != 0))
				continue;
			for (size_t i = 0; rc == 0 && i < sizeof(cgroup_limit_files) /
							     sizeof(cgroup_limit_files[0]);
			     i++) {
				char file[1600];
				snprintf(file, sizeof(file), "%s%s/%s", point, path + rl,
					 cgroup_limit_files[i]);
				rc = landlock_allow(ruleset, handled, file, LANDLOCK_ACCESS_FS_READ_FILE,
						    why, why_len);
			}
		}
		fclose(mi);
	}
	fclose(cg);
	return rc;
}

/* GPU and accelerator device nodes (DRM render nodes, AMD's compute node, NVIDIA's nodes,
 * the accel subsystem). */
static const char *const worker_device_paths[] = {
	"/dev/dri", "/dev/kfd", "/dev/accel", "/dev/nvidiactl", "/dev/nvidia-uvm",
	"/dev/nvidia-uvm-tools", "/dev/nvidia-modeset",
};

/* The sysfs of one character device node: its bus device when it has one (a DRM node's PCI
 * function: vendor, device, config, resource and the drm/ nodes beneath, which libdrm, Mesa
 * and ROCm read through /sys/dev/char, /sys/class/drm or /sys/bus/pci alike, since Landlock
 * judges the resolved path), else its own directory (/dev/kfd: the KFD topology). */
static int landlock_device_sysfs(int ruleset, uint64_t handled, const char *node, char *why,
				 size_t why_len)
{
	struct stat st;
	if (stat(node, &st) != 0 || !S_ISCHR(st.st_mode))
		return 0;
	char sys[96];
	snprintf(sys, sizeof(sys), "/sys/dev/char/%u:%u/device", major(st.st_rdev),
		 minor(st.st_rdev));
	if (access(sys, F_OK) != 0)
		sys[strlen(sys) - strlen("/device")] = 0;
	return landlock_allow(ruleset, handled, sys, LL_READ, why, why_len);
}

/* The sysfs of every node in the device directory dir (or of dir, a node itself). */
static int landlock_devices_sysfs(int ruleset, uint64_t handled, const char *dir, char *why,
				  size_t why_len)
{
	DIR *d = opendir(dir);
	if (!d)
		return landlock_device_sysfs(ruleset, handled, dir, why, why_len);
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d))) {
		char node[300];
		if (e->d_name[0] == '.')
			continue;
		snprintf(node, sizeof(node), "%s/%s", dir, e->d_name);
		rc = landlock_device_sysfs(ruleset, handled, node, why, why_len);
	}
	closedir(d);
	return rc;
}

/* NVIDIA's nodes have no sysfs of their own: the driver's /proc/driver/nvidia (its parameters
 * and one directory per GPU, named by PCI address) and those PCI functions. */
static int landlock_nvidia(int ruleset, uint64_t handled, char *why, size_t why_len)
{
	if (landlock_allow(ruleset, handled, "/proc/driver/nvidia", LL_READ, why, why_len))
		return -1;
	DIR *d = opendir("/proc/driver/nvidia/gpus");
	if (!d)
		return 0;
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d))) {
		char pci[300];
		if (e->d_name[0] == '.')
			continue;
		snprintf(pci, sizeof(pci), "/sys/bus/pci/devices/%s", e->d_name);
		rc = landlock_allow(ruleset, handled, pci, LL_READ, why, why_len);
	}
	closedir(d);
	return rc;
}

static int landlock_worker_rules(int ruleset, uint64_t handled, const struct sandbox_fs_rules *r,
				 char *why, size_t why_len)
{
	for (size_t i = 0; i < sizeof(worker_read_paths) / sizeof(worker_read_paths[0]); i++)
		if (landlock_allow(ruleset, handled, worker_read_paths[i], LL_READ, why, why_len))
			return -1;
	for (size_t i = 0; i < sizeof(worker_proc_sys_paths) / sizeof(worker_proc_sys_paths[0]);
	     i++)
		if (landlock_allow(ruleset, handled, worker_proc_sys_paths[i], LL_READ, why,
				   why_len))
			return -1;
	if (landlock_own_proc(ruleset, handled, why, why_len) ||
	    landlock_own_cgroups(ruleset, handled, why, why_len))
		return -1;
	if (landlock_allow(ruleset, handled, "/dev/null", LL_READ | LANDLOCK_ACCESS_FS_WRITE_FILE,
			   why, why_len))
		return -1;
	for (int i = 0; i < SANDBOX_MAX_PATHS; i++) {
		if (r->readable[i] && landlock_allow(ruleset, handled, r->readable[i], LL_READ, why,
						     why_len))
			return -1;
		if (r->writable[i] && landlock_allow(ruleset, handled, r->writable[i], LL_CACHE, why,
						     why_len))
			return -1;
	}
	if (r->devices) {
		for (size_t i = 0; i < sizeof(worker_device_paths) / sizeof(worker_device_paths[0]);
		     i++)
			if (landlock_allow(ruleset, handled, worker_device_paths[i], LL_DEVICE, why,
					   why_len) ||
			    landlock_devices_sysfs(ruleset, handled, worker_device_paths[i], why,
						   why_len))
				return -1;
		if (landlock_nvidia(ruleset, handled, why, why_len))
			return -1;
		for (int i = 0; i < 16; i++) {
			char node[32];
			snprintf(node, sizeof(node), "/dev/nvidia%d", i);
			if (landlock_allow(ruleset, handled, node, LL_DEVICE, why, why_len))
				return -1;
		}
	}
	if (r->compiler) {
		/* PoCL links each new kernel with /usr/bin/ld (a symlink: the rule holds the
		 * binary it names), which the kernel starts through the ELF interpreter. */
		char ld[PATH_MAX], interp[PATH_MAX];
		const char *in = elf_interpreter();
		if (realpath("/usr/bin/ld", ld) &&
		    landlock_allow(ruleset, handled, ld, LANDLOCK_ACCESS_FS_EXECUTE | LL_READ, why,
				   why_len))
			return -1;
		if (in && realpath(in, interp) &&
		    landlock_allow(ruleset, handled, interp, LANDLOCK_ACCESS_FS_EXECUTE | LL_READ, why,
				   why_len))
			return -1;
	}
	return 0;
}

int sandbox_restrict_fs(enum sandbox_role role, const struct sandbox_fs_rules *r, char *why,
			size_t why_len)
{
	int abi = sandbox_landlock_abi();
	/* Not built in, disabled at boot, or refused by a service manager's syscall filter. */
	if (abi == -ENOSYS || abi == -EOPNOTSUPP || abi == -EPERM)
		return 1;
	if (abi < 0) {
		snprintf(why, why_len, "landlock: %s", strerror(-abi));
		return -1;
	}
	if (role == SANDBOX_WORKER && r->compiler && abi < 2) {
		/* ABI 1 refuses every rename across directories, which PoCL's cache does. */
		return 1;
	}
	struct wnn_landlock_ruleset_attr attr = { .handled_access_fs = landlock_fs_rights(abi) };
	if (abi >= 4)
		attr.handled_access_net = WNN_LANDLOCK_NET_BIND_TCP | WNN_LANDLOCK_NET_CONNECT_TCP;
	/* A worker may not signal processes outside its domain (other workers, the front door)
	 * nor reach abstract sockets; the front door must signal its workers, and may notify
	 * systemd on an abstract socket. */
	if (abi >= 6 && role == SANDBOX_WORKER)
		attr.scoped = WNN_LANDLOCK_SCOPE_SIGNAL | WNN_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
	int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0) {
		snprintf(why, why_len, "landlock_create_ruleset: %s", strerror(errno));
		return -1;
	}
	int rc;
	if (role == SANDBOX_WORKER) {
		rc = landlock_worker_rules(ruleset, attr.handled_access_fs, r, why, why_len);
	} else {
		/* The reserve descriptor for EMFILE is /dev/null; the socket is unlinked at exit. */
		rc = landlock_allow(ruleset, attr.handled_access_fs, "/dev/null",
				    LANDLOCK_ACCESS_FS_READ_FILE, why, why_len);
		/* The sanitizers read the process's own maps and threads (LeakSanitizer's
		 * tracer by pid, from a process of its own). */
		if (rc == 0 && WNN_SANITIZED)
			rc = landlock_own_proc(ruleset, attr.handled_access_fs, why, why_len);
		if (rc == 0 && r->removable_in)
			rc = landlock_allow(ruleset, attr.handled_access_fs, r->removable_in,
					    LANDLOCK_ACCESS_FS_REMOVE_FILE, why, why_len);
		/* The configuration file's directory, files only: a reload reads it again. */
		for (int i = 0; rc == 0 && i < SANDBOX_MAX_PATHS; i++)
			if (r->readable[i])
				rc = landlock_allow(ruleset, attr.handled_access_fs, r->readable[i],
						    LANDLOCK_ACCESS_FS_READ_FILE, why, why_len);
	}
	if (rc == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
		snprintf(why, why_len, "landlock_restrict_self: %s", strerror(errno));
		rc = -1;
	}
	close(ruleset);
	return rc;
}

/* ---- seccomp */

/*
 * Each list is what the process was measured to need after its lockdown (strace -f and
 * SCMP_ACT_LOG runs of the test suite: cpu, reference and opencl backends, builds, dispatches,
 * shm, OpenMP teams, PoCL compiling new kernels into an empty cache). Anything else kills the
 * process with SIGSYS; the front door then tells the worker's clients why.
 */

/* Both roles (single-threaded front door included): malloc, libuv's loop, exit. */
static const char *const common_calls[] = {
	/* malloc (realloc of large blocks remaps) */
	"brk", "mmap", "munmap", "mremap",
	/* libuv: epoll, its signal pipe and handlers, the clock when the vDSO cannot answer;
	 * logging to stderr */
	"epoll_wait", "epoll_ctl", "read", "write", "close", "fcntl", "rt_sigreturn",
	"rt_sigprocmask", "rt_sigaction", "clock_gettime", "exit_group",
	/* connections and control messages (fds ride along) */
	"recvmsg", "sendmsg", "shutdown",
};

/* A device worker, whatever its backends. */
static const char *const worker_calls[] = {
	/* threads: libuv's pool, OpenMP's team, the cpu backend's compute thread, PoCL's
	 * workers (clone itself is checked below); madvise: free() in threads' arenas and
	 * tensor memory */
	"futex", "exit", "getpid", "gettid", "set_robust_list", "rseq", "mprotect", "madvise",
	"sched_getaffinity", "sched_yield", "sysinfo",
	/* libuv streams: replies go out with writev */
	"writev", "epoll_pwait",
	/* waiting for the front door's answer on the lease socket (daemon/worker/budget.c) */
	"poll", "ppoll",
	/* files beneath the Landlock rules: drivers' data, /proc and /sys, the caches, and
	 * dlopen() of the kernels PoCL links (ELF headers are read with pread64) */
	"openat", "newfstatat", "fstat", "getdents64", "readlink", "access", "lseek", "pread64",
	/* keyed hashes, libraries' seeds */
	"getrandom",
	/* the graph cache (daemon/worker/graphcache.c), in the user's store beneath the cache directory:
	 * its directory made, entries written to a temporary file and renamed into place, the
	 * least recently used removed, a loaded one's time touched */
	"mkdirat", "ftruncate", "pwrite64", "renameat", "renameat2", "unlinkat", "utimensat",
	/* ... checked to be the worker's own, made with its mode (daemon/safedir.h) */
	"geteuid", "fchmod",
};

/* PoCL compiling a new kernel at its first enqueue: LLVM writes objects into the cache and
 * renames them into place, then /usr/bin/ld runs (posix_spawn: vfork + execve, wait4) and its
 * own start-up calls. */
static const char *const compiler_calls[] = {
	"execve", "wait4", "mkdir", "rename", "unlink", "chmod", "umask", "getcwd", "fdatasync",
	"getrusage", "arch_prctl", "set_tid_address",
};

/* The front door: accepting (and refusing with a Goodbye: send), a control socketpair per
 * worker, asking the spawner (poll, recv) and reaping (wait4), its socket unlinked at exit.
 * Measured with strace on a front door serving clients of two uids, a worker killed by hand
 * and SIGTERM: these and the common calls, nothing else. */
static const char *const frontdoor_calls[] = {
	"accept4", "socketpair", "wait4", "unlink", "sendto", "recvfrom", "poll",
};

/* The syscalls a filter lets through in some form (for the count it reports). */
struct allowed {
	uint64_t bits[8];
};

static void allowed_mark(struct allowed *a, int nr)
{
	if (nr >= 0 && nr < 512)
		a->bits[nr / 64] |= 1ULL << (nr % 64);
}

static int allowed_count(const struct allowed *a)
{
	int n = 0;
	for (int i = 0; i < 8; i++)
		n += __builtin_popcountll(a->bits[i]);
	return n;
}

static int add_calls(scmp_filter_ctx ctx, const char *const *names, size_t n,
		     struct allowed *allowed, char *why, size_t why_len)
{
	for (size_t i = 0; i < n; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture */
		int r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (r != 0 && r != -EEXIST) {
			snprintf(why, why_len, "seccomp rule for %s: %s", names[i], strerror(-r));
			return -1;
		}
		allowed_mark(allowed, nr);
	}
	return 0;
}

#define ADD_CALLS(list)                                                                        \
	add_calls(ctx, list, sizeof(list) / sizeof(list[0]), &allowed, why, why_len)

/* A rule with argument comparisons. */
#define RULE(action, name, ...)                                                                \
	do {                                                                                   \
		int r_ = seccomp_rule_add(ctx, action, SCMP_SYS(name), __VA_ARGS__);           \
		if (r_ != 0) {                                                                 \
			snprintf(why, why_len, "seccomp rule for " #name ": %s", strerror(-r_)); \
			goto fail;                                                             \
		}                                                                              \
		if ((action) == SCMP_ACT_ALLOW)                                                \
			allowed_mark(&allowed, SCMP_SYS(name));                                \
	} while (0)

/* libuv sets non-blocking and close-on-exec modes; stdio asks whether it writes to a tty. */
static int allow_tty_ioctls(scmp_filter_ctx ctx, struct allowed *allowed, char *why,
			    size_t why_len)
{
	static const unsigned long ioctls[] = { FIONBIO, FIOCLEX, FIONCLEX, TCGETS };
	for (size_t i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++) {
		int r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
					 SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, ioctls[i]));
		if (r != 0) {
			snprintf(why, why_len, "seccomp rule for ioctl: %s", strerror(-r));
			return -1;
		}
	}
	allowed_mark(allowed, SCMP_SYS(ioctl));
	return 0;
}

/* See WNN_SANITIZED. */
static const char *const sanitizer_calls[] = {
	"open", "getdents", "getdents64", "getppid", "ptrace", "wait4", "sched_yield", "prctl",
	"readlink", "sigaltstack", "mprotect", "openat", "newfstatat", "fstat", "lseek",
	"pread64", "futex", "exit", "getpid", "gettid", "madvise",
};

#define CLONE_THREAD_MASK                                                                      \
	(CLONE_THREAD | CLONE_VM | CLONE_SIGHAND | CLONE_PARENT | CLONE_VFORK | CLONE_NEWNS |   \
	 CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |            \
	 CLONE_NEWCGROUP | CLONE_UNTRACED)

int sandbox_restrict_syscalls(enum sandbox_role role, const struct sandbox_syscall_rules *r,
			      char *why, size_t why_len)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx) {
		snprintf(why, why_len, "seccomp_init failed");
		return -1;
	}
	struct allowed allowed = { { 0 } };
	pid_t self = getpid();
	int rc;
	/* Every thread, those PoCL, OpenMP and libuv started before this point included. */
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1)) != 0) {
		snprintf(why, why_len, "seccomp TSYNC: %s", strerror(-rc));
		goto fail;
	}
	if (ADD_CALLS(common_calls))
		goto fail;
	/* clone3's arguments sit behind a pointer the filter cannot read: ENOSYS makes glibc
	 * fall back to clone, whose flags it can. */
	RULE(SCMP_ACT_ERRNO(ENOSYS), clone3, 0);
	if (WNN_SANITIZED) {
		if (ADD_CALLS(sanitizer_calls))
			goto fail;
		/* LeakSanitizer's tracer (internal_clone in StopTheWorld). */
		RULE(SCMP_ACT_ALLOW, clone, 1,
		     SCMP_A0(SCMP_CMP_EQ, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_UNTRACED));
	}
	if (role == SANDBOX_WORKER) {
		if (ADD_CALLS(worker_calls))
			goto fail;
		/* New threads only: no fork, no namespaces. */
		RULE(SCMP_ACT_ALLOW, clone, 1,
		     SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD_MASK,
			     CLONE_THREAD | CLONE_VM | CLONE_SIGHAND));
		/* Signals to itself only (abort, raise, libgomp); never to other workers. */
		RULE(SCMP_ACT_ALLOW, kill, 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
		RULE(SCMP_ACT_ALLOW, tgkill, 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
		/* SO_PEERCRED of a handed-off connection. */
		RULE(SCMP_ACT_ALLOW, getsockopt, 1, SCMP_A1(SCMP_CMP_EQ, SOL_SOCKET));
		/* Process names (the worker names itself after its uid) and thread names. */
		RULE(SCMP_ACT_ALLOW, prctl, 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_NAME));
		RULE(SCMP_ACT_ALLOW, prctl, 1, SCMP_A0(SCMP_CMP_EQ, PR_GET_NAME));
		/* Replies (send: no address). */
		RULE(SCMP_ACT_ALLOW, sendto, 1, SCMP_A4(SCMP_CMP_EQ, 0));
		/* Its own limits (glibc's sysconf, ld's stack): never another process's. */
		RULE(SCMP_ACT_ALLOW, prlimit64, 1, SCMP_A0(SCMP_CMP_EQ, 0));
		if (r->gpu)
			/* GPU drivers talk to the kernel through ioctls of their own. */
			RULE(SCMP_ACT_ALLOW, ioctl, 0);
		else if (allow_tty_ioctls(ctx, &allowed, why, why_len))
			goto fail;
		if (r->compiler) {
			if (ADD_CALLS(compiler_calls))
				goto fail;
			/* posix_spawn's vfork for ld, and nothing else that forks. */
			RULE(SCMP_ACT_ALLOW, clone, 1,
			     SCMP_A0(SCMP_CMP_EQ, CLONE_VM | CLONE_VFORK | SIGCHLD));
		}
	} else {
		if (ADD_CALLS(frontdoor_calls))
			goto fail;
		if (allow_tty_ioctls(ctx, &allowed, why, why_len))
			goto fail;
		/* sd_notify's datagram socket; the listening socket is already open. */
		RULE(SCMP_ACT_ALLOW, socket, 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
		/* Peer credentials and groups of a new connection. */
		RULE(SCMP_ACT_ALLOW, getsockopt, 1, SCMP_A1(SCMP_CMP_EQ, SOL_SOCKET));
		/* Its workers are told to stop, or killed. */
		RULE(SCMP_ACT_ALLOW, kill, 1, SCMP_A1(SCMP_CMP_EQ, SIGTERM));
		RULE(SCMP_ACT_ALLOW, kill, 1, SCMP_A1(SCMP_CMP_EQ, SIGKILL));
		/* /dev/null, read-only, as the descriptor kept in reserve for EMFILE. */
		RULE(SCMP_ACT_ALLOW, openat, 1,
		     SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY));
	}
	if ((rc = seccomp_load(ctx)) != 0) {
		snprintf(why, why_len, "seccomp_load: %s", strerror(-rc));
		goto fail;
	}
	seccomp_release(ctx);
	return allowed_count(&allowed);
fail:
	seccomp_release(ctx);
	return -1;
}

#ifdef WNN_TEST_HOOKS
bool sandbox_test_hook(const char *client_name, char *reply, size_t reply_len)
{
	static const char prefix[] = "wnn-test:";
	if (!client_name || strncmp(client_name, prefix, sizeof(prefix) - 1) != 0)
		return false;
	const char *what = client_name + sizeof(prefix) - 1;
	if (strncmp(what, "open:", 5) == 0) {
		int fd = open(what + 5, O_RDONLY | O_CLOEXEC);
		int err = errno;
		if (fd >= 0) {
			close(fd);
			snprintf(reply, reply_len, "wnn-test open %s: opened", what + 5);
		} else {
			snprintf(reply, reply_len, "wnn-test open %s: errno %d (%s)", what + 5, err,
				 strerrorname_np(err));
		}
	} else if (strncmp(what, "exec:", 5) == 0) {
		char *const argv[] = { (char *)(what + 5), NULL };
		pid_t pid;
		int err = posix_spawn(&pid, what + 5, NULL, NULL, argv, NULL);
		int st = 0;
		if (err == 0)
			waitpid(pid, &st, 0);
		if (err == 0)
			snprintf(reply, reply_len, "wnn-test exec %s: ran (status %#x)", what + 5, st);
		else
			snprintf(reply, reply_len, "wnn-test exec %s: errno %d (%s)", what + 5, err,
				 strerrorname_np(err));
	} else if (strcmp(what, "socket-inet") == 0) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int err = errno;
		if (fd >= 0)
			close(fd);
		snprintf(reply, reply_len, "wnn-test socket-inet: %s %d", fd >= 0 ? "fd" : "errno",
			 fd >= 0 ? fd : err);
	} else {
		snprintf(reply, reply_len, "wnn-test: no hook '%s'", what);
	}
	return true;
}
#endif
