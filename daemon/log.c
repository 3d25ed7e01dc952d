/* Leveled logging to stderr, one escaped line per event; under systemd (JOURNAL_STREAM) lines
 * carry <N> priority prefixes. */
#include "daemon/log.h"

#include <pthread.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static enum log_level log_max = LOG_LEVEL_INFO;
static int log_journal = -1;

void log_set_level(enum log_level max)
{
	log_max = max;
}

bool log_enabled(enum log_level level)
{
	return level <= log_max;
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 when it is not one: no overlong
 * forms, surrogates or code points past U+10FFFF. C1 controls (U+0080..U+009F) count as invalid
 * here, so they are escaped like the C0 ones (a terminal may act on them). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;
	uint32_t cp;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
		return 0;
	return len;
}

size_t log_escape(char *out, size_t cap, const char *in, size_t len)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		unsigned c = p[i];
		size_t n = c >= 0x80 ? utf8_len(p + i, len - i) : 1;
		char esc[5];
		const char *piece = (const char *)p + i;
		size_t plen = n;
		if (c == '\\') {
			piece = "\\\\";
			plen = 2;
		} else if (c < 0x20 || c == 0x7f || n == 0) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			piece = esc;
			plen = 4;
			n = 1;
		}
		if (o + plen >= cap)
			break;
		memcpy(out + o, piece, plen);
		o += plen;
		i += n;
	}
	out[o] = '\0';
	return o;
}

static void log_line(enum log_level level, const char *file, int line, const char *fmt,
		     va_list ap) __attribute__((format(printf, 4, 0)));

void log_msg(enum log_level level, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_line(level, file, line, fmt, ap);
	va_end(ap);
}

void log_vmsg(enum log_level level, const char *file, int line, const char *fmt, va_list ap)
{
	log_line(level, file, line, fmt, ap);
}

static void log_line(enum log_level level, const char *file, int line, const char *fmt,
		     va_list ap)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	static const int prio[] = { 3, 4, 6, 7 }; /* syslog priorities understood by journald */
	if (!log_enabled(level))
		return;
	if (log_journal < 0)
		log_journal = getenv("JOURNAL_STREAM") != NULL;
	/* Messages carry client-controlled text (names, labels, reasons): a message is cut at
	 * LOG_MAX bytes and escaped, so that every event is one line and a client can neither
	 * start a line of its own (a forged "<0>" priority for journald) nor send a terminal
	 * escape sequence to whoever reads the log. */
	char raw[LOG_MAX], msg[4 * LOG_MAX + 16];
	int n = vsnprintf(raw, sizeof(raw), fmt, ap);
	size_t len = n < 0 ? 0 : (size_t)n < sizeof(raw) ? (size_t)n : sizeof(raw) - 1;
	size_t o = log_escape(msg, sizeof(msg) - 16, raw, len);
	if (n >= 0 && (size_t)n >= sizeof(raw))
		snprintf(msg + o, sizeof(msg) - o, "... (cut)");
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	/* One fprintf per line so lines of concurrent threads do not interleave. */
	if (log_journal) {
		fprintf(stderr, "<%d>%s [%s:%d]\n", prio[level], msg, base, line);
	} else {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		struct tm tm;
		localtime_r(&ts.tv_sec, &tm);
		fprintf(stderr, "%02d:%02d:%02d.%03ld webnnd %s: %s [%s:%d]\n", tm.tm_hour,
			tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, names[level], msg, base, line);
	}
}

/* ---- rate-limited lines */

/* One bucket per (uid, call site), in a small table: a site's slot is taken over by another
 * key only after writing what it held back, so the table bounds memory, never silence. */
#define LOG_LIMIT_SLOTS 256
#define LOG_SAMPLE 120

struct log_bucket {
	const char *file; /* NULL: free */
	int line;
	unsigned uid;
	enum log_level level;
	double tokens, refilled_s;
	uint64_t suppressed;
	double since_s;           /* the first suppressed line */
	char sample[LOG_SAMPLE];  /* the first suppressed line's text, cut (not yet escaped) */
};

static pthread_mutex_t log_limit_lock = PTHREAD_MUTEX_INITIALIZER;
static struct log_bucket log_buckets[LOG_LIMIT_SLOTS];

static double log_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void log_summary(struct log_bucket *b, double now)
{
	if (!b->suppressed)
		return;
	char from[32];
	if (b->uid == LOG_ANY_UID)
		snprintf(from, sizeof(from), "clients");
	else
		snprintf(from, sizeof(from), "uid %u", b->uid);
	log_msg(b->level, b->file, b->line,
		"suppressed %" PRIu64 " message%s like '%s' from %s in the last %.0f s",
		b->suppressed, b->suppressed == 1 ? "" : "s", b->sample, from,
		now - b->since_s < 1 ? 1 : now - b->since_s);
	b->suppressed = 0;
}

/* Four slots a key may use: a key finds its own, else takes a free one or the one used least
 * recently (after writing its summary), so that keys sharing slots do not reset each other. */
#define LOG_LIMIT_WAYS 4

static struct log_bucket *log_bucket_of(unsigned uid, const char *file, int line, double now)
{
	uint64_t h = (uint64_t)(uintptr_t)file * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)line * 0xc2b2ae3d27d4eb4full ^ (uint64_t)uid * 0x165667b19e3779f9ull;
	size_t first = (size_t)(h >> 32) % LOG_LIMIT_SLOTS & ~(size_t)(LOG_LIMIT_WAYS - 1);
	struct log_bucket *victim = NULL;
	for (size_t i = first; i < first + LOG_LIMIT_WAYS; i++) {
		struct log_bucket *b = &log_buckets[i];
		if (b->file == file && b->line == line && b->uid == uid)
			return b;
		if (!victim || (victim->file && (!b->file || b->refilled_s < victim->refilled_s)))
			victim = b;
	}
	log_summary(victim, now);
	*victim = (struct log_bucket){ .file = file, .line = line, .uid = uid,
				       .tokens = LOG_LIMIT_BURST, .refilled_s = now };
	return victim;
}

void log_limited(enum log_level level, unsigned uid, const char *file, int line,
		 const char *fmt, ...)
{
	if (!log_enabled(level))
		return;
	double now = log_now_s();
	pthread_mutex_lock(&log_limit_lock);
	struct log_bucket *b = log_bucket_of(uid, file, line, now);
	b->level = level;
	b->tokens += (now - b->refilled_s) * LOG_LIMIT_PER_S;
	if (b->tokens > LOG_LIMIT_BURST)
		b->tokens = LOG_LIMIT_BURST;
	b->refilled_s = now;
	va_list ap;
	va_start(ap, fmt);
	if (b->tokens >= 1) {
		b->tokens -= 1;
		log_summary(b, now);
		log_line(level, file, line, fmt, ap);
	} else if (b->suppressed++ == 0) {
		b->since_s = now;
		/* raw: log_msg escapes it with the summary */
		int n = vsnprintf(b->sample, sizeof(b->sample), fmt, ap);
		if (n >= (int)sizeof(b->sample))
			memcpy(b->sample + sizeof(b->sample) - 4, "...", 4);
	}
	va_end(ap);
	pthread_mutex_unlock(&log_limit_lock);
}

void log_limit_flush(bool final)
{
	double now = log_now_s();
	pthread_mutex_lock(&log_limit_lock);
	for (size_t i = 0; i < LOG_LIMIT_SLOTS; i++) {
		struct log_bucket *b = &log_buckets[i];
		if (b->suppressed && (final || now - b->since_s >= LOG_LIMIT_SUMMARY_S))
			log_summary(b, now);
	}
	pthread_mutex_unlock(&log_limit_lock);
}
