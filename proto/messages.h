/* The request table (proto/messages.def) as data: a ClientMessage body's name and properties. */
#ifndef WNN_MESSAGES_H
#define WNN_MESSAGES_H

#include <stdbool.h>

enum {
	WNN_MSG_SERIAL = 1u << 0,  /* a non-zero serial is required; a Reply comes back */
	WNN_MSG_FDS = 1u << 1,     /* the frame may carry file descriptors */
	WNN_MSG_ORDERED = 1u << 2, /* the reply waits behind the context's earlier work */
};

struct wnn_message {
	const char *name;
	unsigned flags;
};

/* The row of a ClientMessage body case; NULL when no row has it (not a request, or unknown). */
const struct wnn_message *wnn_message_find(unsigned body_case);

static inline bool wnn_message_has(unsigned body_case, unsigned flag)
{
	const struct wnn_message *m = wnn_message_find(body_case);
	return m && (m->flags & flag);
}

#endif
