/* What a lease of all users' memory budget costs (make bench): a worker's ask to the front door
 * and its answer, the round trip a charge makes when its lease is too small. */
#include "tests/hostile.h"

#include <stdio.h>

/* 5 rounds of 2000 asks that change nothing (webnnd-testhooks' "lease-rtt" hook times them in
 * the worker, around the same exchange a charge makes). */
TEST_TIMEOUT(bench_budget_lease_round_trip, 120)
{
	hz_need_testhooks();
	struct test_daemon d;
	hz_start_binary(&d, "bin/webnnd-testhooks", NULL);
	for (int r = 0; r < 5; r++) {
		struct pt_conn c;
		char got[300];
		hz_connect_as(&c, &d, HZ_NOBODY);
		hz_hook(&c, "lease-rtt:2000", got, sizeof(got));
		printf("  round %d: %s\n", r, got);
		ASSERT_CONTAINS(got, "2000 round trips");
		pt_close(&c);
	}
	test_daemon_stop(&d);
}
