/* Leveled logging of the daemon and its backends: stderr, one line per message, journald priorities. */
#ifndef DAEMON_LOG_H
#define DAEMON_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

/* Longest message (before escaping); longer ones are cut and marked "... (cut)". */
#define LOG_MAX 1024

void log_set_level(enum log_level max);
bool log_enabled(enum log_level level);
void log_msg(enum log_level level, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void log_vmsg(enum log_level level, const char *file, int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/* in (len bytes) as one line of text into out (cap bytes, NUL-terminated): backslash as \\,
 * control bytes and bytes that are not valid UTF-8 as \xNN, valid UTF-8 kept. Returns the
 * length written (whole escapes only). Every message log_msg writes goes through it. */
size_t log_escape(char *out, size_t cap, const char *in, size_t len);

/* Lines a client can cause (refusals, protocol violations, lost contexts, dying workers) go
 * through a token bucket per (uid, call site): LOG_LIMIT_BURST lines at once, then
 * LOG_LIMIT_PER_S a second. What is held back is counted, and one line says so ("suppressed K
 * messages like '...' from uid U in the last T s") before the site's next line or, when the
 * flood stops, at the next log_limit_flush() after LOG_LIMIT_SUMMARY_S. A flood of refusals
 * is then a few lines a second, not thousands that would push everything else out of the
 * journal (journald drops a service's lines past its own rate limit). */
#define LOG_LIMIT_BURST 20
#define LOG_LIMIT_PER_S 2
#define LOG_LIMIT_SUMMARY_S 10
void log_limited(enum log_level level, unsigned uid, const char *file, int line,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The uid of lines no one uid causes (a flood of connections before any is accepted). */
#define LOG_ANY_UID ((unsigned)-1)
/* Writes the summaries that are due (call it now and then: a timer; at exit with final true,
 * every pending one). */
void log_limit_flush(bool final);

#define log_client_error(uid, ...) log_limited(LOG_LEVEL_ERROR, uid, __FILE__, __LINE__, __VA_ARGS__)
#define log_client_warn(uid, ...) log_limited(LOG_LEVEL_WARN, uid, __FILE__, __LINE__, __VA_ARGS__)
#define log_client_info(uid, ...) log_limited(LOG_LEVEL_INFO, uid, __FILE__, __LINE__, __VA_ARGS__)

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __FILE__, __LINE__, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LEVEL_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __FILE__, __LINE__, __VA_ARGS__)
#define log_debug(...)                                                                         \
	do {                                                                                   \
		if (log_enabled(LOG_LEVEL_DEBUG))                                              \
			log_msg(LOG_LEVEL_DEBUG, __FILE__, __LINE__, __VA_ARGS__);             \
	} while (0)

#endif
