/* Hostile suite, a compromised device worker against all users' memory budget (its leases). */
#include "tests/hostile.h"

#include <inttypes.h>
#include <stdio.h>
#include <signal.h>
#include <unistd.h>

/* The budgets of these tests: all users 24 MiB, a uid (and a connection) 16 MiB. */
#define HL_TOTAL "max_total_bytes=25165824"
#define HL_UID "max_uid_bytes=16777216"
#define HL_CONN "max_connection_bytes=16777216"
#define HL_UID_BYTES 16777216ull

static void hl_start(struct test_daemon *d)
{
	hz_start_binary(d, "bin/webnnd-testhooks", "--limit", HL_TOTAL, "--limit", HL_UID,
			"--limit", HL_CONN, NULL);
}

/* The lease the front door stated in a "lease-ask" hook's answer. */
static uint64_t hl_ask(const struct test_daemon *d, struct pt_conn *c, uint64_t need,
		       uint64_t want)
{
	char action[96], got[300];
	snprintf(action, sizeof(action), "lease-ask:%" PRIu64 ":%" PRIu64, need, want);
	hz_connect_as(c, d, HZ_NOBODY);
	hz_hook(c, action, got, sizeof(got));
	printf("  %s -> %s\n", action, got);
	unsigned long long lease = 0;
	ASSERT_MSG(sscanf(got, "wnn-test lease-ask: lease %llu", &lease) == 1, "%s", got);
	return lease;
}

/* Creates rows-row tensors (4 KiB a row) from id on until one is refused; returns how many
 * MiB fit, failing if a refusal is not NO_MEMORY naming max_total_bytes. */
static uint32_t hl_fill(struct pt_conn *c, uint32_t id, uint32_t max_mib)
{
	uint32_t mib = 0;
	for (; mib < max_mib; mib++) {
		Webnn__Ipc__ServerMessage *r = hz_create_rows(c, 1, id + mib, 256);
		bool refused = r->reply->error != NULL;
		if (refused) {
			printf("  refused after %u MiB: %s\n", mib, r->reply->error->message);
			ASSERT_EQ(r->reply->error->status, WEBNN__IPC__STATUS__NO_MEMORY);
			ASSERT_CONTAINS(r->reply->error->message, "max_total_bytes");
		}
		pt_free(r);
		if (refused)
			break;
	}
	return mib;
}

/* Abuse: a worker (a test hook standing for a compromised one) claims leases of all users'
 * budget: UINT64_MAX and max_uid_bytes + 1 are refused, max_uid_bytes is granted (what the uid
 * could legitimately use). Another uid keeps working within what is left and is refused only
 * past it (the total still holds); once the abuser's worker is killed its lease returns and the
 * other uid can use it. No shared accounting exists for the worker to write. */
TEST(hostile_worker_claims_leases)
{
	hz_need_testhooks();
	struct test_daemon d;
	hl_start(&d);
	struct hz_client good;
	hz_client_open(&good, &d, 0);
	struct pt_conn huge, over, max, board;
	ASSERT_MSG(hl_ask(&d, &huge, UINT64_MAX, UINT64_MAX) < HL_UID_BYTES,
		   "a lease of 2^64-1 bytes was granted");
	ASSERT_MSG(hl_ask(&d, &over, HL_UID_BYTES + 1, HL_UID_BYTES + 1) < HL_UID_BYTES,
		   "a lease past max_uid_bytes was granted");
	ASSERT_EQ(hl_ask(&d, &max, HL_UID_BYTES, HL_UID_BYTES), HL_UID_BYTES);
	pid_t abuser = hz_worker_pid(&d, HZ_NOBODY);

	/* Nothing shared to write: fd 4 is the lease socket, no budget mapping exists. */
	char got[300];
	hz_connect_as(&board, &d, HZ_NOBODY);
	hz_hook(&board, "board", got, sizeof(got));
	printf("  board -> %s\n", got);
	ASSERT_CONTAINS(got, "errno");
	ASSERT_CONTAINS(got, "no shared budget mapping");

	/* 24 MiB less the abuser's 16 leave under 8 for everyone else. */
	struct pt_conn other;
	hz_connect_as(&other, &d, HZ_OTHER);
	pt_hello(&other, "bystander");
	pt_create_context(&other, 1);
	uint32_t mib = hl_fill(&other, 100, 24);
	printf("  the other uid got %u MiB beside the 16 MiB lease\n", mib);
	ASSERT_MSG(mib >= 5, "the other uid got only %u MiB of the 8 left", mib);
	ASSERT_MSG(mib < 8, "the other uid got %u MiB: the abuser's lease was not counted", mib);
	hz_client_roundtrip(&good, HZ_RTT_MS);

	/* The abuser's worker dies: its lease returns once the front door reaps it. */
	ASSERT(kill(abuser, SIGKILL) == 0);
	hz_expect_end(&max, "killed by signal 9", true, 5000);
	uint32_t more = 0;
	for (double end = hz_now_ms() + 5000; more < 8; usleep(50000)) {
		more += hl_fill(&other, 200 + more, 8 - more);
		ASSERT_MSG(more >= 8 || hz_now_ms() < end, "a killed worker's lease did not return "
			   "(%u MiB more fit)", more);
	}
	hz_client_roundtrip(&good, HZ_RTT_MS);
	pt_close(&huge);
	pt_close(&over);
	pt_close(&max);
	pt_close(&board);
	pt_close(&other);
	hz_client_close(&good);
	test_daemon_stop(&d);
}

/* Abuse: garbage on the lease socket (a short datagram), and a message of the wrong direction
 * (a grant sent to the front door). The front door stops that worker (SIGKILL): its clients are
 * told, another uid is unaffected, and the uid's next connection gets a new worker. */
TEST(hostile_worker_garbage_lease_messages)
{
	hz_need_testhooks();
	struct test_daemon d;
	hl_start(&d);
	struct hz_client other;
	hz_client_open(&other, &d, HZ_OTHER);
	static const char *const actions[] = { "wnn-test:lease-garbage", "wnn-test:lease-forge" };
	for (int i = 0; i < 2; i++) {
		struct pt_conn c;
		hz_connect_as(&c, &d, HZ_NOBODY);
		pid_t w = hz_worker_pid(&d, HZ_NOBODY);
		struct hz_hello h;
		hz_hello_msg(&h, actions[i], 1);
		pt_send(&c, &h.m);
		hz_expect_end(&c, "killed by signal 9", true, 5000);
		pt_close(&c);
		hz_client_roundtrip(&other, HZ_RTT_MS);
		hz_fresh_client(&d, HZ_NOBODY, 5000);
		ASSERT_MSG(hz_find_worker(&d, HZ_NOBODY) != w, "%s: the worker was not stopped",
			   actions[i]);
	}
	hz_client_close(&other);
	test_daemon_stop(&d);
}

/* Abuse: a worker floods the front door with lease asks for 300 ms. The front door reads a
 * bounded number per tick: another uid's round trips stay fast, and the flooding worker's own
 * charges still work afterwards (stale answers are skipped). */
TEST(hostile_worker_lease_flood)
{
	hz_need_testhooks();
	struct test_daemon d;
	hl_start(&d);
	struct hz_watch watch;
	hz_watch_start(&watch, &d, HZ_OTHER);
	struct pt_conn c;
	char got[300];
	hz_connect_as(&c, &d, HZ_NOBODY);
	hz_hook(&c, "lease-flood", got, sizeof(got));
	printf("  %s\n", got);
	ASSERT_CONTAINS(got, "asks sent");
	pt_create_context(&c, 1);
	ASSERT_EQ(hl_fill(&c, 10, 6), 6u);
	hz_watch_stop(&watch, HZ_RTT_MS);
	hz_fresh_client(&d, HZ_OTHER, HZ_RTT_MS);
	pt_close(&c);
	test_daemon_stop(&d);
}
