/* Shared helpers for the libwebnn tests that run against a reference-backend webnnd. */
#include "tests/clienttest.h"

#include <unistd.h>

void ct_require_webnnd(void)
{
	char bin[4096];
	snprintf(bin, sizeof(bin), "%s/bin/webnnd", test_build_dir());
	if (access(bin, X_OK) != 0)
		SKIP("%s is not built", bin);
}

void ct_daemon_up(struct test_daemon *d)
{
	static const char *const args[] = { "--backend", "reference", NULL };
	ct_require_webnnd();
	test_daemon_start(d, args);
}

struct webnn_context *ct_connect(const struct test_daemon *d, const char *client_name)
{
	struct webnn_context_options o = WEBNN_CONTEXT_OPTIONS_INIT;
	o.socket_path = d->socket_path;
	o.client_name = client_name;
	struct webnn_context *ctx = NULL;
	char err[512] = "";
	enum webnn_status s = webnn_context_create(&o, &ctx, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "webnn_context_create: %s: %s", webnn_status_name(s), err);
	ASSERT(ctx != NULL);
	return ctx;
}
