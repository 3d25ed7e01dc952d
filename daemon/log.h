/* Leveled logging of the daemon and its backends: stderr, one line per message, journald priorities. */
#ifndef DAEMON_LOG_H
#define DAEMON_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

/* Longest message (before escaping); longer ones are cut and marked "... (cut)". */
#define LOG_MAX 1024

void log_set_level(enum log_level max);
bool log_enabled(enum log_level level);
void log_msg(enum log_level level, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* in (len bytes) as one line of text into out (cap bytes, NUL-terminated): backslash as \\,
 * control bytes and bytes that are not valid UTF-8 as \xNN, valid UTF-8 kept. Returns the
 * length written (whole escapes only). Every message log_msg writes goes through it. */
size_t log_escape(char *out, size_t cap, const char *in, size_t len);

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __FILE__, __LINE__, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LEVEL_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __FILE__, __LINE__, __VA_ARGS__)
#define log_debug(...)                                                                         \
	do {                                                                                   \
		if (log_enabled(LOG_LEVEL_DEBUG))                                              \
			log_msg(LOG_LEVEL_DEBUG, __FILE__, __LINE__, __VA_ARGS__);             \
	} while (0)

#endif
