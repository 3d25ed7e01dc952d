/* The request table (proto/messages.def) indexed by ClientMessage body case. */
#include "proto/messages.h"

#include "proto/webnn.pb-c.h"

#define X(body, name_, handler, flags_)                                                       \
	[WEBNN__IPC__CLIENT_MESSAGE__BODY_##body] = { .name = name_, .flags = flags_ },
static const struct wnn_message messages[] = {
#include "proto/messages.def"
};
#undef X

const struct wnn_message *wnn_message_find(unsigned body_case)
{
	if (body_case >= sizeof(messages) / sizeof(messages[0]) || !messages[body_case].name)
		return NULL;
	return &messages[body_case];
}
