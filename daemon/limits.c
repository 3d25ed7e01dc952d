/* webnnd's limits and budgets from daemon/limits.def: defaults, KEY=VALUE parsing, help, handshake. */
#include "daemon/daemon.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct limit_info {
	const char *key, *unit, *help;
	size_t offset;
	size_t size; /* 4: uint32_t, 8: uint64_t */
	uint64_t ceiling;
};

static const struct limit_info limit_table[DAEMON_N_LIMITS] = {
#define X(k, type, def, ceil, u, h)                                                                  \
	[DAEMON_LIMIT_##k] = { .key = #k, .unit = u, .help = h,                                  \
			       .offset = offsetof(struct daemon_limits, k), .size = sizeof(type),      \
			       .ceiling = (uint64_t)(ceil) },
#include "daemon/limits.def"
#undef X
};

void daemon_limits_default(struct daemon_limits *l)
{
	*l = (struct daemon_limits){
#define X(k, type, def, ceil, u, h) .k = (type)(def),
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

int daemon_limits_set(struct daemon_limits *l, const char *key_value, char *why, size_t why_len)
{
	const char *eq = strchr(key_value, '=');
	size_t klen = eq ? (size_t)(eq - key_value) : strlen(key_value);
	const struct limit_info *li = NULL;
	for (size_t i = 0; i < DAEMON_N_LIMITS; i++)
		if (strlen(limit_table[i].key) == klen &&
		    strncmp(limit_table[i].key, key_value, klen) == 0)
			li = &limit_table[i];
	if (!li) {
		snprintf(why, why_len, "unknown limit '%.*s' (webnnd --help-limits lists them)",
			 (int)(klen > 64 ? 64 : klen), key_value);
		return -1;
	}
	if (!eq || !eq[1]) {
		snprintf(why, why_len, "--limit %s needs a value (%s=N)", li->key, li->key);
		return -1;
	}
	const char *num = eq + 1;
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
		snprintf(why, why_len, "--limit %s: '%s' is not a number (digits, optional K/M/G/T)",
			 li->key, num);
		return -1;
	}
	uint64_t value = (uint64_t)v << shift;
	uint64_t max = li->ceiling ? li->ceiling : li->size == sizeof(uint32_t) ? UINT32_MAX : UINT64_MAX;
	if (value == 0 || value > max) {
		snprintf(why, why_len, "--limit %s=%s is outside 1..%" PRIu64, li->key, num, max);
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

void daemon_limits_print(FILE *f, const struct daemon_limits *l)
{
	fprintf(f, "webnnd limits (--limit KEY=VALUE; values take K, M, G, T binary suffixes):\n");
	for (size_t i = 0; i < DAEMON_N_LIMITS; i++) {
		const struct limit_info *li = &limit_table[i];
		fprintf(f, "  %-26s %20" PRIu64 " %-6s %s\n", li->key, limit_get(l, li), li->unit,
			li->help);
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
