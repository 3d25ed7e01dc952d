/* webnn-demo: float32 .npy files (weights, reference inputs and outputs) and dying with a message. */
#include "demo.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void demo_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "webnn-demo: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

struct array demo_npy_load(const char *path)
{
	struct array a = { 0 };
	FILE *f = fopen(path, "rb");
	unsigned char pre[12];
	if (!f)
		demo_die("cannot open %s: %s", path, strerror(errno));
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0)
		demo_die("%s: not a .npy file", path);
	size_t hlen = pre[8] | (size_t)pre[9] << 8;
	if (pre[6] >= 2) {
		if (fread(pre + 10, 1, 2, f) != 2)
			demo_die("%s: truncated header", path);
		hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	}
	if (hlen > 65536)
		demo_die("%s: header of %zu bytes is too large", path, hlen);
	char *h = calloc(1, hlen + 1);
	if (!h || fread(h, 1, hlen, f) != hlen)
		demo_die("%s: truncated header", path);
	if (!strstr(h, "'descr': '<f4'") || !strstr(h, "'fortran_order': False"))
		demo_die("%s: expected little-endian float32 in C order (header %s)", path, h);
	char *p = strstr(h, "'shape': (");
	if (!p)
		demo_die("%s: header has no shape", path);
	p += strlen("'shape': (");
	a.count = 1;
	while (*p && *p != ')') {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || a.rank == WEBNN_MAX_RANK || v > UINT32_MAX)
			demo_die("%s: bad shape in header", path);
		a.shape[a.rank++] = (uint32_t)v;
		a.count *= v;
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	free(h);
	if (a.count > (1u << 28))
		demo_die("%s: %zu elements is too many", path, a.count);
	a.data = malloc(a.count * sizeof(float) + 1);
	if (!a.data || fread(a.data, sizeof(float), a.count, f) != a.count)
		demo_die("%s: expected %zu float32 values", path, a.count);
	fclose(f);
	return a;
}

