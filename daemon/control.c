/* The front door <-> worker control channel (SOCK_SEQPACKET + SCM_RIGHTS) and door-side Goodbyes. */
#include "daemon/control.h"

#include "proto/webnn.pb-c.h"
#include "proto/wire.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int control_send(int sock, const struct control_msg *m, int fd)
{
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	for (;;) {
		ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n == (ssize_t)sizeof(*m))
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? -errno : -EPROTO;
	}
}

int control_recv(int sock, struct control_msg *m, int *fd)
{
	*fd = -1;
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	ssize_t n;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	int got[4], n_got = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k && n_got < 4; i++)
			memcpy(&got[n_got++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}
	if (n == 0 && n_got == 0)
		return 0;
	if (n != (ssize_t)sizeof(*m) || n_got > 1 || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		for (int i = 0; i < n_got; i++)
			close(got[i]);
		return -EPROTO;
	}
	if (n_got == 1)
		*fd = got[0];
	return 1;
}

void control_goodbye(int client_fd, const char *reason)
{
	Webnn__Ipc__Goodbye bye = WEBNN__IPC__GOODBYE__INIT;
	bye.reason = (char *)reason;
	Webnn__Ipc__ServerMessage m = WEBNN__IPC__SERVER_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__SERVER_MESSAGE__BODY_GOODBYE;
	m.goodbye = &bye;
	size_t len;
	uint8_t *buf = wnn_frame_pack(&m, &len);
	if (!buf)
		return;
	ssize_t n;
	do
		n = send(client_fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	free(buf);
}

void control_stop_text(const struct control_msg *m, char *out, size_t len)
{
	switch (m->uid) {
	case CONTROL_STOP_SIGNAL: {
		const char *name = sigabbrev_np(m->pid);
		snprintf(out, len, "webnnd is shutting down (SIG%s): its contexts are lost",
			 name ? name : "?");
		break;
	}
	case CONTROL_STOP_NO_SPAWNER:
		snprintf(out, len, "webnnd stopped: both of its worker spawners died, so no device "
			 "worker could start any more; its service manager restarts it");
		break;
	default:
		snprintf(out, len, "webnnd stopped on an error (its log says which)");
		break;
	}
}
