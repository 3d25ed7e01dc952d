/* webnnd's limits and budgets from daemon/limits.def: defaults, KEY=VALUE parsing, help, handshake. */
#include "daemon/limits.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct limit_info {
	const char *key, *unit, *help;
	size_t offset;
	size_t size; /* 4: uint32_t, 8: uint64_t */
	uint64_t ceiling;
	bool live; /* a SIGHUP applies it (else the next start does) */
};

static const struct limit_info limit_table[DAEMON_N_LIMITS] = {
#define LIVE true
#define RESTART false
#define X(k, type, def, ceil, u, reload, h)                                                      \
	[DAEMON_LIMIT_##k] = { .key = #k, .unit = u, .help = h,                                  \
			       .offset = offsetof(struct daemon_limits, k), .size = sizeof(type),      \
			       .ceiling = (uint64_t)(ceil), .live = reload },
#include "daemon/limits.def"
#undef X
#undef LIVE
#undef RESTART
};

void daemon_limits_default(struct daemon_limits *l)
{
	*l = (struct daemon_limits){
#define X(k, type, def, ceil, u, reload, h) .k = (type)(def),
#include "daemon/limits.def"
#undef X
	};
}

static uint64_t limit_get(const struct daemon_limits *l, const struct limit_info *li)
{
	const char *p = (const char *)l + li->offset;
	if (li->size == sizeof(uint32_t)) {
		uint32_t v;
		memcpy(&v, p, sizeof(v));
		return v;
	}
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Index of the limit named key (klen bytes), or -1. */
static int limit_find(const char *key, size_t klen)
{
	for (size_t i = 0; i < DAEMON_N_LIMITS; i++)
		if (strlen(limit_table[i].key) == klen && strncmp(limit_table[i].key, key, klen) == 0)
			return (int)i;
	return -1;
}

bool daemon_limits_has(const char *key)
{
	return limit_find(key, strlen(key)) >= 0;
}

int daemon_limits_set_value(struct daemon_limits *l, const char *key, const char *num, char *why,
			    size_t why_len)
{
	int i = limit_find(key, strlen(key));
	if (i < 0) {
		snprintf(why, why_len, "unknown limit '%.64s' (webnnd --help-limits lists them)", key);
		return -1;
	}
	const struct limit_info *li = &limit_table[i];
	if (!*num) {
		snprintf(why, why_len, "%s needs a value (%s=N)", li->key, li->key);
		return -1;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(num, &end, 10);
	unsigned shift = 0;
	switch (*end) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	case 'T': shift = 40; end++; break;
	default: break;
	}
	if (errno || end == num || *end || num[0] == '-' || (shift && v > (UINT64_MAX >> shift))) {
		snprintf(why, why_len, "%s = %.64s: not a number (digits, optional K/M/G/T suffix)",
			 li->key, num);
		return -1;
	}
	uint64_t value = (uint64_t)v << shift;
	uint64_t max = li->ceiling ? li->ceiling : li->size == sizeof(uint32_t) ? UINT32_MAX : UINT64_MAX;
	if (value == 0 || value > max) {
		snprintf(why, why_len, "%s = %.64s: outside 1..%" PRIu64, li->key, num, max);
		return -1;
	}
	char *p = (char *)l + li->offset;
	if (li->size == sizeof(uint32_t)) {
		uint32_t v32 = (uint32_t)value;
		memcpy(p, &v32, sizeof(v32));
	} else {
		memcpy(p, &value, sizeof(value));
	}
	return 0;
}

int daemon_limits_set(struct daemon_limits *l, const char *key_value, char *why, size_t why_len)
{
	const char *eq = strchr(key_value, '=');
	size_t klen = eq ? (size_t)(eq - key_value) : strlen(key_value);
	char key[64];
	if (klen >= sizeof(key) || limit_find(key_value, klen) < 0) {
		snprintf(why, why_len, "unknown limit '%.*s' (webnnd --help-limits lists them)",
			 (int)(klen > 64 ? 64 : klen), key_value);
		return -1;
	}
	memcpy(key, key_value, klen);
	key[klen] = '\0';
	char inner[200];
	if (daemon_limits_set_value(l, key, eq ? eq + 1 : "", inner, sizeof(inner)) != 0) {
		snprintf(why, why_len, "--limit %s", inner);
		return -1;
	}
	return 0;
}

void daemon_limits_print(FILE *f, const struct daemon_limits *l)
{
	fprintf(f, "webnnd limits (--limit KEY=VALUE; values take K, M, G, T binary suffixes):\n");
	for (size_t i = 0; i < DAEMON_N_LIMITS; i++) {
		const struct limit_info *li = &limit_table[i];
		fprintf(f, "  %-26s %20" PRIu64 " %-6s %s%s\n", li->key, limit_get(l, li), li->unit,
			li->help, li->live ? "" : " (changes at the next start, not at a reload)");
	}
}

/* roff-safe text: '-' as \- and '\' as \e (help texts hold no other troff syntax). */
void daemon_man_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\\')
			fputs("\\e", f);
		else
			fputc(*s, f);
	}
}

void daemon_conf_comment(FILE *f, const char *text)
{
	enum { WIDTH = 78 };
	const char *p = text;
	while (*p) {
		/* the longest run of whole words that fits after "# " */
		size_t n = strlen(p), cut = n;
		if (n > WIDTH - 2) {
			cut = WIDTH - 2;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = strcspn(p, " ");
		}
		fprintf(f, "# %.*s\n", (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
}

void daemon_limits_write(FILE *f, const struct daemon_limits *l, enum daemon_limits_format fmt)
{
	for (size_t i = 0; i < DAEMON_N_LIMITS; i++) {
		const struct limit_info *li = &limit_table[i];
		uint64_t v = limit_get(l, li);
		switch (fmt) {
		case DAEMON_LIMITS_SETTINGS:
			fprintf(f, "%s = %" PRIu64 "\n", li->key, v);
			break;
		case DAEMON_LIMITS_TEMPLATE:
		{
			char text[400];
			snprintf(text, sizeof(text), "%s (%s%s)", li->help, li->unit,
				 li->live ? "" : "; changes at the next start, not at a reload");
			fputc('\n', f);
			daemon_conf_comment(f, text);
			fprintf(f, "#%s = %" PRIu64 "\n", li->key, v);
		}
			break;
		case DAEMON_LIMITS_MAN:
			fprintf(f, ".TP\n\\fB%s\\fR = \\fI%" PRIu64 "\\fR\n", li->key, v);
			daemon_man_escape(f, li->help);
			fprintf(f, " (%s; \\fB\\-\\-limit %s=\\fR\\fIN\\fR%s)\n", li->unit, li->key,
				li->live ? "" : "; changes at the next start, not at a reload");
			break;
		}
	}
}

size_t daemon_limits_report(const struct daemon_limits *l, Webnn__Ipc__Budget *items,
			    Webnn__Ipc__Budget **ptrs)
{
	for (size_t i = 0; i < DAEMON_N_LIMITS; i++) {
		webnn__ipc__budget__init(&items[i]);
		items[i].key = (char *)limit_table[i].key;
		items[i].unit = (char *)limit_table[i].unit;
		items[i].value = limit_get(l, &limit_table[i]);
		ptrs[i] = &items[i];
	}
	return DAEMON_N_LIMITS;
}

const char *daemon_limit_key(int i)
{
	return limit_table[i].key;
}

uint64_t daemon_limit_get(const struct daemon_limits *l, int i)
{
	return limit_get(l, &limit_table[i]);
}

bool daemon_limit_live(int i)
{
	return limit_table[i].live;
}

int daemon_limit_index(const char *key)
{
	return limit_find(key, strlen(key));
}
