/* What the backend layer gives every backend and the daemon: logging through the daemon's services, and the host evaluator that folds constants for backends without their own. */
#include "daemon/backend/backend.h"

#include <stdio.h>

#include "daemon/backend/host/kernels.h"

void backend_log(const struct backend_services *s, enum backend_log_level level,
		 const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (s && s->log) {
		s->log(level, file, line, fmt, ap);
	} else if (level != BACKEND_LOG_DEBUG) {
		static const char *const names[] = { "error", "warning", "info", "debug" };
		char line_text[1024];
		vsnprintf(line_text, sizeof(line_text), fmt, ap);
		fprintf(stderr, "%s: %s [%s:%d]\n", names[level], line_text, file, line);
	}
	va_end(ap);
}

bool backend_log_enabled(const struct backend_services *s, enum backend_log_level level)
{
	if (s && s->log_enabled)
		return s->log_enabled(level);
	return level != BACKEND_LOG_DEBUG;
}

const backend_host_evaluator backend_host_evaluate = hk_evaluate;
const struct graph_cost_model *const backend_host_evaluate_cost = &graph_cost_reference;
