/* The daemon's log is one escaped line per event: client text cannot start a line of its own
 * (a forged journald priority) or carry terminal escapes. */
#include "tests/ptclient.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "daemon/log.h"

static void expect_escaped(const char *in, size_t len, const char *want)
{
	char out[256];
	log_escape(out, sizeof(out), in, len);
	ASSERT_STREQ(out, want);
}

TEST(log_escape_rules)
{
	expect_escaped("plain text", 10, "plain text");
	expect_escaped("a\nb\rc\td", 7, "a\\x0ab\\x0dc\\x09d");
	expect_escaped("x\n<0>forged", 11, "x\\x0a<0>forged");
	expect_escaped("\x1b[2J\x7f", 5, "\\x1b[2J\\x7f");
	expect_escaped("back\\slash", 10, "back\\\\slash");
	expect_escaped("nul\0byte", 8, "nul\\x00byte");
	/* Valid UTF-8 stays readable: 2, 3 and 4 bytes. */
	expect_escaped("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14,
		       "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* Not UTF-8: a stray byte, an overlong '/', a surrogate, past U+10FFFF, cut short. */
	expect_escaped("\xff", 1, "\\xff");
	expect_escaped("\xc0\xaf", 2, "\\xc0\\xaf");
	expect_escaped("\xed\xa0\x80", 3, "\\xed\\xa0\\x80");
	expect_escaped("\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80");
	expect_escaped("\xe2\x82", 2, "\\xe2\\x82");
	/* C1 controls (CSI is U+009B) are valid UTF-8 but act on terminals. */
	expect_escaped("\xc2\x9b" "31m", 5, "\\xc2\\x9b31m");
	/* A full buffer ends at a whole escape. */
	char small[8];
	ASSERT_EQ(log_escape(small, sizeof(small), "ab\n\n\n", 5), 6);
	ASSERT_STREQ(small, "ab\\x0a");
}

/* Reads a whole file (NUL-terminated). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ASSERT_MSG(f, "%s: %s", path, strerror(errno));
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	ASSERT(buf);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n - 1 == 0) {
			cap *= 2;
			buf = realloc(buf, cap);
			ASSERT(buf);
		}
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* log_msg itself, in this process: one line however long or hostile the message. */
TEST(log_msg_one_line_per_event)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/webnn-test-log-XXXXXX", test_tmpdir());
	int fd = mkstemp(path);
	ASSERT(fd >= 0);
	ASSERT(dup2(fd, STDERR_FILENO) == STDERR_FILENO);
	close(fd);
	char big[3000];
	memset(big, '\n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_warn("name %s end", "x\n<0>forged");
	log_warn("%s", big);
	fflush(stderr);
	size_t len;
	char *text = slurp(path, &len);
	unlink(path);
	int lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	ASSERT_EQ(lines, 2);
	ASSERT_CONTAINS(text, "name x\\x0a<0>forged end");
	ASSERT_CONTAINS(text, "\\x0a\\x0a... (cut)");
	free(text);
}

/* A Hello whose client_name forges a journald line, then a protocol violation: the warning
 * (and the debug lines naming the client) stay one escaped line each, with and without
 * JOURNAL_STREAM. */
TEST(log_client_name_cannot_forge_lines)
{
	static const char name[] = "x\n<0>forged\r\x1b[2Jz\\";
	static const char escaped[] = "x\\x0a<0>forged\\x0d\\x1b[2Jz\\\\";
	for (int journal = 0; journal < 2; journal++) {
		if (journal)
			setenv("JOURNAL_STREAM", "8:4242", 1);
		else
			unsetenv("JOURNAL_STREAM");
		char path[4096];
		snprintf(path, sizeof(path), "%s/webnn-test-log-XXXXXX", test_tmpdir());
		int fd = mkstemp(path);
		ASSERT(fd >= 0);
		close(fd);
		struct test_daemon d;
		test_daemon_start_logged(&d, NULL, (const char *const[]){ "--backend", "reference",
								   "--verbose", NULL },
					 path);
		struct pt_conn c;
		pt_connect(&c, &d);
		pt_hello(&c, name);
		Webnn__Ipc__DestroyTensor dt = WEBNN__IPC__DESTROY_TENSOR__INIT;
		dt.tensor_id = 77;
		Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
		m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_DESTROY_TENSOR;
		m.destroy_tensor = &dt;
		pt_send(&c, &m);
		pt_expect_goodbye(&c, "unknown tensor id 77");
		pt_close(&c);
		test_daemon_stop(&d);
		size_t len;
		char *text = slurp(path, &len);
		unlink(path);
		ASSERT_MSG(!strchr(text, '\r') && !strchr(text, '\x1b'),
			   "a raw control byte reached the log");
		int violations = 0, named = 0;
		for (char *line = text, *next; *line; line = next) {
			char *nl = strchr(line, '\n');
			next = nl ? nl + 1 : line + strlen(line);
			if (nl)
				*nl = '\0';
			ASSERT_MSG(strncmp(line, "<0>", 3) != 0 && strncmp(line, "forged", 6) != 0,
				   "a forged line: %s", line);
			if (strstr(line, escaped)) {
				named++;
				bool prio = line[0] == '<' && line[1] >= '3' && line[1] <= '7' &&
					    line[2] == '>';
				ASSERT_MSG(!journal || prio, "no priority prefix: %s", line);
			}
			if (strstr(line, "protocol violation:")) {
				violations++;
				ASSERT_CONTAINS(line, escaped);
				ASSERT_CONTAINS(line, "unknown tensor id 77");
				if (journal)
					ASSERT_MSG(strncmp(line, "<4>", 3) == 0, "%s", line);
			}
		}
		ASSERT_EQ(violations, 1);
		ASSERT_MSG(named >= 2, "the client's name is in %d lines (connected, violation, "
			   "closed)", named);
		free(text);
	}
}
