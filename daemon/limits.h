/* webnnd's limits and budgets (daemon/limits.def) and its version: what the front door, the workers and the configuration share. */
#ifndef DAEMON_LIMITS_H
#define DAEMON_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proto/webnn.pb-c.h"
#include "proto/wire.h"
#include "proto/wnn.h"

#define WEBNND_VERSION WEBNN_VERSION_STRING

/* Every limit and budget of the daemon, from the one table daemon/limits.def. */
struct daemon_limits {
#define X(key, type, def, ceil, unit, reload, help) type key;
#include "daemon/limits.def"
#undef X
};

enum daemon_limit_index {
#define X(key, type, def, ceil, unit, reload, help) DAEMON_LIMIT_##key,
#include "daemon/limits.def"
#undef X
	DAEMON_N_LIMITS
};

/* The table's defaults. */
void daemon_limits_default(struct daemon_limits *l);
/* Applies one "KEY=VALUE" (VALUE: a decimal integer with an optional K, M, G or T binary
 * suffix). 0, or -1 with why filled (unknown key, not a number, out of the type's range, 0). */
int daemon_limits_set(struct daemon_limits *l, const char *key_value, char *why, size_t why_len);
/* The same for a key and its value apart (the configuration file): why names the key, the
 * value and the rule broken. */
int daemon_limits_set_value(struct daemon_limits *l, const char *key, const char *value, char *why,
			    size_t why_len);
bool daemon_limits_has(const char *key);
/* Every limit with its value: "key = value" lines (--check-config), the commented lines of the
 * default webnnd.conf, or the man page's entries (webnnd.conf(5)). */
enum daemon_limits_format { DAEMON_LIMITS_SETTINGS, DAEMON_LIMITS_TEMPLATE, DAEMON_LIMITS_MAN };
void daemon_limits_write(FILE *f, const struct daemon_limits *l, enum daemon_limits_format fmt);
/* text as "# " comment lines of at most 78 columns (the default webnnd.conf). */
void daemon_conf_comment(FILE *f, const char *text);
/* text for a roff man page: '-' as \- and '\' as \e (help texts hold no other troff). */
void daemon_man_escape(FILE *f, const char *s);
/* The table as `--help-limits` prints it: key, default, unit, what it bounds. */
void daemon_limits_print(FILE *f, const struct daemon_limits *l);
/* Limit i (< DAEMON_N_LIMITS) by number: its key, its value in l, whether a reload (SIGHUP)
 * applies it; and the number of the limit named key (-1: none). */
const char *daemon_limit_key(int i);
uint64_t daemon_limit_get(const struct daemon_limits *l, int i);
bool daemon_limit_live(int i);
int daemon_limit_index(const char *key);
/* The table as the HelloReply's budget list (items[] and ptrs[] hold at least
 * DAEMON_N_LIMITS entries; key strings are static). Returns the count. */
size_t daemon_limits_report(const struct daemon_limits *l, Webnn__Ipc__Budget *items,
			    Webnn__Ipc__Budget **ptrs);

#endif
