/* The backend registry: every backend of this build in one list, and the host evaluator that folds constants for backends without their own. */
#include "daemon/backend/backend.h"

#include <stdio.h>
#include <string.h>

#include "daemon/backend/reference/ref.h"

/* Among backends that serve the same devices (backend_serves), the automatic choice tries them
 * in this order. */
const struct backend_impl *const backend_registry[] = {
	&backend_cpu,
	&backend_opencl,
	&backend_reference,
	NULL,
};

const struct backend_impl *backend_find(const char *name)
{
	for (size_t i = 0; name && backend_registry[i]; i++)
		if (strcmp(name, backend_registry[i]->name) == 0)
			return backend_registry[i];
	return NULL;
}

const char *backend_names_text(void)
{
	static char text[128];
	if (!text[0]) {
		size_t n = 0;
		while (backend_registry[n])
			n++;
		size_t len = 0;
		for (size_t i = 0; i < n && len < sizeof(text); i++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s",
						i == 0	       ? ""
						: i + 1 == n ? " or "
							     : ", ",
						backend_registry[i]->name);
	}
	return text;
}

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

const backend_host_evaluator backend_host_evaluate = reference_evaluate;
const struct graph_cost_model *const backend_host_evaluate_cost = &graph_cost_reference;
