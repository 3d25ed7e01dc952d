/* Leveled logging to stderr; under systemd (JOURNAL_STREAM) lines carry <N> priority prefixes. */
#include "daemon/log.h"

#include <stdarg.h>
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

void log_msg(enum log_level level, const char *file, int line, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	static const int prio[] = { 3, 4, 6, 7 }; /* syslog priorities understood by journald */
	if (!log_enabled(level))
		return;
	if (log_journal < 0)
		log_journal = getenv("JOURNAL_STREAM") != NULL;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
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
