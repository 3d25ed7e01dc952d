/* The backend registry: every backend of this build in one list, and their names. */
#include "daemon/backend/backend.h"

#include <stdio.h>
#include <string.h>

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
