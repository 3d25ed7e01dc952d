/* webnnd's configuration file (/etc/webnnd/webnnd.conf): its keys, the parser and the printers. */
#ifndef DAEMON_CONFIG_H
#define DAEMON_CONFIG_H

#include "daemon/limits.h"

#include <stdbool.h>
#include <stdio.h>

#define CONFIG_DEFAULT_PATH "/etc/webnnd/webnnd.conf"
/* Users and groups allow_uids and allow_gids may each list. */
#define CONFIG_MAX_ALLOW 64
/* A worker reads the settings its front door started with from here, never the file again
 * (an edit between two worker starts must not give workers different limits). */
#define CONFIG_EFFECTIVE_ENV "WEBNND_EFFECTIVE_CONFIG"

/* The settings other than the limits (those live in struct daemon_limits). Strings are ""
 * when unset; every value here passed its key's rule. */
struct daemon_config {
	char socket[108];
	unsigned socket_mode;
	char socket_group[64];
	char allow_uids[1024];
	char allow_gids[1024];
	char backend[16]; /* "auto", "cpu", "opencl" or "reference" */
	int threads;      /* 0: every core the daemon may use */
	char cache_dir[512];
	char user[64];
	int log_level; /* enum log_level */
	bool sandbox;
	bool warm_up;
};

void config_default(struct daemon_config *c);

/* One "key = value" (value already trimmed) applied to c or to the limits. 0, or -1 with why
 * naming the key, the value and the rule it breaks. */
int config_set(struct daemon_config *c, struct daemon_limits *l, const char *key,
	       const char *value, char *why, size_t why_len);

/* Reads text (named name in messages) line by line. 0, or -1 with why = "NAME:LINE: ...". */
int config_parse(struct daemon_config *c, struct daemon_limits *l, const char *name,
		 const char *text, char *why, size_t why_len);

/* Reads the file at path. missing_ok: a file that does not exist is no error (the default
 * path). 0, or -1 with why. */
int config_load(struct daemon_config *c, struct daemon_limits *l, const char *path,
		bool missing_ok, char *why, size_t why_len);

/* After the front door's lockdown the user and group databases are out of reach (and NSS's
 * system calls out of its filter): names in a reloaded file are then only checked for their
 * form, and resolved at the next start (the keys that hold them take effect only then). */
void config_stop_name_lookups(void);

/* changed(key, old value, new value) for each key (not the limits) whose value differs. */
void config_diff(const struct daemon_config *a, const struct daemon_config *b,
		 void (*changed)(const char *key, const char *was, const char *now, void *ud),
		 void *ud);

/* The settings as a file config_parse reads back (--check-config, the worker's copy), the
 * commented default webnnd.conf (every key with its help), or webnnd.conf(5)'s key list. */
enum config_format { CONFIG_SETTINGS, CONFIG_TEMPLATE, CONFIG_MAN };
void config_write(FILE *f, const struct daemon_config *c, const struct daemon_limits *l,
		  enum config_format fmt);

#endif
