/* The cpu backend's rnn family: fast kernels, or the reference kernel where none is written yet. */
#include "daemon/backend/cpu/cpu.h"

enum webnn_status cpu_rnn_prepare(const struct cpu_build *b, struct cpu_step *s,
				    struct wnn_diag *diag)
{
	(void)b;
	(void)diag;
	s->run = NULL; /* the reference kernel */
	return WEBNN_STATUS_OK;
}
