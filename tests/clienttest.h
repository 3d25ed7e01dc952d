/* Shared helpers for the libwebnn tests that run against a reference-backend webnnd. */
#ifndef TESTS_CLIENTTEST_H
#define TESTS_CLIENTTEST_H

#include "tests/test.h"
#include "webnn.h"

/* SKIPs the test when bin/webnnd is not built. */
void ct_require_webnnd(void);
/* Starts a reference-backend webnnd (SKIP when it is not built). */
void ct_daemon_up(struct test_daemon *d);
/* A context on d's socket under client_name; fails the test when it cannot be created. */
struct webnn_context *ct_connect(const struct test_daemon *d, const char *client_name);

#define OK(ctx, expr)                                                                          \
	do {                                                                                   \
		enum webnn_status s_ = (expr);                                                 \
		ASSERT_MSG(s_ == WEBNN_STATUS_OK, "%s -> %s: %s", #expr, webnn_status_name(s_), \
			   webnn_context_last_error(ctx));                                     \
	} while (0)

/* Expects a status and an error message containing needle. */
#define FAILS(ctx, expr, status, needle)                                                       \
	do {                                                                                   \
		enum webnn_status s_ = (expr);                                                 \
		ASSERT_MSG(s_ == (status), "%s -> %s (%s), expected %s", #expr,                \
			   webnn_status_name(s_), webnn_context_last_error(ctx),               \
			   webnn_status_name(status));                                         \
		ASSERT_CONTAINS(webnn_context_last_error(ctx), needle);                        \
	} while (0)

#endif
