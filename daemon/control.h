/* The control channel between the front door and a device worker: connection hand-off, closes,
 * and the lease channel on which a worker asks for room in all users' memory budget. */
#ifndef DAEMON_CONTROL_H
#define DAEMON_CONTROL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The worker's ends of its control socket and of its lease socket are at fixed fds after exec.
 * The lease socket is separate so that a worker can wait for a grant synchronously without
 * reading (and having to set aside) connections handed to it meanwhile. */
#define CONTROL_WORKER_FD 3
#define CONTROL_LEASE_FD 4

/* A worker's exit status when a dispatch never returned past the watchdog's grace period: the
 * thread cannot be reclaimed, so the process ends and the front door tells its clients why. */
#define WORKER_EXIT_WATCHDOG 70

/* One SOCK_SEQPACKET datagram each way; the front door never parses client bytes, so this
 * fixed struct is the only thing it reads, and only from its own workers, which it treats as
 * hostile (a compromised worker may send anything: see daemon/budget.h for the leases). */
enum control_type {
	CONTROL_CONNECTION = 1, /* door -> worker: serve this connection (its fd rides along) */
	CONTROL_CLOSED = 2,     /* worker -> door: connection `no` is closed (the door drops its dup) */
	CONTROL_READY = 3,      /* worker -> door: started and locked down (start-up latency) */
	CONTROL_FAILED = 4,     /* worker -> door: cannot start, `reason` says why; it exits */
	CONTROL_SETTING = 5,    /* door -> worker: a reload changed setting `key` to `no` */
	CONTROL_STOP = 6,       /* door -> worker: webnnd stops, for reason `uid` (a SIGTERM follows) */
	/* On the lease socket only: */
	CONTROL_LEASE_ASK = 7,    /* worker -> door: make my lease `lease`, or at least `lease_min` */
	CONTROL_LEASE_GRANT = 8,  /* door -> worker: the answer to ask `no`: your lease is `lease` */
	CONTROL_LEASE_RETURN = 9, /* worker -> door: my lease is now `lease` (lower; no answer) */
};

/* Why the front door stops (CONTROL_STOP's uid), in the Goodbye the worker's clients get. */
enum control_stop_reason {
	CONTROL_STOP_SIGNAL = 1,     /* a stop signal, its number in pid */
	CONTROL_STOP_NO_SPAWNER = 2, /* both worker spawners died */
	CONTROL_STOP_FAILED = 3,     /* the start failed (the front door's log says why) */
};

#define CONTROL_REASON_MAX 240

struct control_msg {
	uint32_t type;
	uint32_t uid; /* SO_PEERCRED of the connection, as admitted; CONTROL_STOP: the reason */
	uint64_t no;  /* the connection's number, the same in both processes' logs; LEASE_ASK and
		       * LEASE_GRANT: the ask's number; CONTROL_SETTING: the value */
	int32_t pid;
	uint32_t gid;
	uint64_t lease;     /* LEASE_*: bytes of all users' budget asked for, granted or kept */
	uint64_t lease_min; /* LEASE_ASK: the least that will do */
	uint64_t pool_used; /* LEASE_GRANT: every worker's lease together, after this answer */
	char reason[CONTROL_REASON_MAX]; /* CONTROL_FAILED: NUL-terminated */
	char key[48]; /* CONTROL_SETTING: a limits.def key or "log_level" (NUL-terminated) */
};

/* Sends one message with an optional fd (-1: none). 0 or -errno (EAGAIN when full). */
int control_send(int sock, const struct control_msg *m, int fd);
/* Receives one message and its fd (-1 when none; more than one, or a short or unexpected
 * datagram, is -EPROTO with every received fd closed). 1, 0 on EOF, -EAGAIN, or -errno. */
int control_recv(int sock, struct control_msg *m, int *fd);

/* The Goodbye reason for a CONTROL_STOP. */
void control_stop_text(const struct control_msg *m, char *out, size_t len);

/* Writes a Goodbye{reason} frame to a client socket without blocking (best effort: a refused
 * or orphaned connection's socket buffer is empty, so it fits). */
void control_goodbye(int client_fd, const char *reason);

#endif
