/* Framing over the AF_UNIX stream socket: header + protobuf bytes, fds as SCM_RIGHTS. */
#ifndef WNN_WIRE_H
#define WNN_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WNN_FRAME_MAX (16u << 20)   /* largest frame either side accepts (checked before unpack) */
#define WNN_INLINE_MAX (64u << 10)  /* payloads above this travel through shared memory (memfd) */
#define WNN_FRAME_MAX_FDS 4         /* fds one frame may carry */

struct wnn_frame_header {
	uint32_t size;  /* bytes of protobuf payload after the header */
	uint16_t n_fds; /* fds sent with this frame (SCM_RIGHTS on its first byte) */
	uint16_t flags; /* reserved, 0 */
};

/* Incremental frame reader for blocking or non-blocking sockets. Small frames are read ahead
 * (several per recvmsg, into the buffer's spare room), but never past a frame whose fds are
 * pending. File descriptors belong to exactly one frame: the kernel hands over one sender's
 * batch per recvmsg and ends that read with the message that carried it, so a batch belongs to
 * the last frame whose first byte that read brought in; that frame's header must announce
 * exactly that many, every frame announcing fds must have them, and fds arriving where no frame
 * starts are a protocol error. Every fd received is either handed out with its frame or closed
 * at once. */
struct wnn_reader {
	uint8_t *buf;
	size_t cap, have;       /* the current frame from its first byte, then any read ahead */
	int fds[WNN_FRAME_MAX_FDS]; /* the pending fds, until their frame is handed out */
	int n_fds;
	size_t fds_at;          /* offset in buf of the frame the pending fds belong to */
	uint32_t max_frame;
	char error[160];        /* why the last -EPROTO, for the peer's Goodbye */
	bool drained;           /* the last read returned less than it asked: the socket was
				   empty then (a level-triggered poll says when there is more) */
};

void wnn_reader_init(struct wnn_reader *r, uint32_t max_frame);
/* Closes the buffered frame's fds, frees the buffer. */
void wnn_reader_finish(struct wnn_reader *r);
/* One recvmsg (see above for how far it reads). Returns >0 bytes read, 0 on EOF,
 * -EAGAIN when nothing is there, -EBUSY when a whole frame is buffered (take it with
 * wnn_reader_next first), -EPROTO with r->error set on a bad header (too large, too many fds,
 * flags set) or fds that do not match it (with a frame announcing fewer or none, or arriving
 * after its first bytes), other -errno. */
int wnn_reader_fill(struct wnn_reader *r, int sock);
/* If a whole frame is buffered: returns 1 and sets *payload and *len (valid until
 * wnn_reader_consume()) and moves the frame's fds into fds (caller owns them, *n_fds <=
 * WNN_FRAME_MAX_FDS; call once per frame). Returns 0 when more bytes are needed, -EPROTO
 * (r->error set) when the frame's fds are not there. */
int wnn_reader_next(struct wnn_reader *r, const uint8_t **payload, size_t *len, int *fds,
		    int *n_fds);
/* Whether a whole frame is buffered (read ahead, not yet handed out). */
bool wnn_reader_ready(const struct wnn_reader *r);
/* Drops the frame returned by wnn_reader_next. */
void wnn_reader_consume(struct wnn_reader *r);

/* Blocking send of one whole frame: retries on EINTR and partial writes, polls on EAGAIN.
 * Returns 0 or -errno. */
int wnn_frame_send(int sock, const void *payload, size_t len, const int *fds, int n_fds);

/* Packs header+message into a fresh malloc'd buffer (for queued non-blocking writes).
 * Returns NULL on allocation failure or when the message exceeds WNN_FRAME_MAX. */
uint8_t *wnn_frame_pack(const void *pb_message, size_t *out_len);

#endif
