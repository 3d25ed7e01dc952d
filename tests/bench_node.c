/* bench_node_dispatch: a small dispatch + read through the Node.js binding against the same from C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/clienttest.h"

#define BN_BLOCKS 5
#define BN_PER 400

static int bn_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double bn_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bn_cmp);
	return v[n / 2];
}

/* relu on 4 floats, dispatch + blocking read, per-call medians of blocks of BN_PER calls; hold:
 * with webnn_context_hold_sends (as the binding runs: the dispatch goes with the read). */
static void bn_c_side(const struct test_daemon *d, double *med, bool hold)
{
	static const uint32_t shape[] = { 4 };
	struct webnn_context *ctx = ct_connect(d, "bench-node-c");
	webnn_context_hold_sends(ctx, hold);
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 1, shape), *y = NULL;
	OK(ctx, webnn_builder_relu(b, x, &y));
	struct webnn_named_operand out = { "y", y };
	struct webnn_graph *g = NULL;
	OK(ctx, webnn_builder_build(b, &out, 1, &g));
	struct webnn_operand_desc desc = ct_desc_of(WEBNN_FLOAT32, 1, shape);
	struct webnn_tensor_desc xd = { .desc = desc, .writable = true },
				 yd = { .desc = desc, .readable = true };
	struct webnn_tensor *tx = NULL, *ty = NULL;
	OK(ctx, webnn_context_create_tensor(ctx, &xd, &tx));
	OK(ctx, webnn_context_create_tensor(ctx, &yd, &ty));
	const float in[4] = { -1, 2, -3, 4 };
	float got[4];
	OK(ctx, webnn_context_write_tensor(ctx, tx, in, sizeof(in)));
	struct webnn_named_tensor bi = { "x", tx }, bo = { "y", ty };
	double t[BN_PER];
	for (int k = -1; k < BN_BLOCKS; k++) { /* block -1 warms up */
		for (int i = 0; i < BN_PER; i++) {
			double t0 = test_now();
			OK(ctx, webnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
			OK(ctx, webnn_context_read_tensor(ctx, ty, got, sizeof(got)));
			t[i] = test_now() - t0;
		}
		if (k >= 0)
			med[k] = bn_median(t, BN_PER);
	}
	ASSERT(got[0] == 0 && got[1] == 2);
	webnn_tensor_destroy(tx);
	webnn_tensor_destroy(ty);
	webnn_graph_destroy(g);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
}

static void bn_node_side(const struct test_daemon *d, double *med)
{
	char cmd[8192], line[4096];
	snprintf(cmd, sizeof(cmd), "node bench/node_dispatch.js '%s/node/webnn' '%s' %d %d",
		 test_build_dir(), d->socket_path, BN_BLOCKS, BN_PER);
	FILE *p = popen(cmd, "r");
	ASSERT(p);
	ASSERT_MSG(fgets(line, sizeof(line), p), "bench/node_dispatch.js printed nothing");
	pclose(p);
	char *s = line;
	for (int k = 0; k < BN_BLOCKS; k++)
		med[k] = strtod(s, &s);
}

TEST_TIMEOUT(bench_node_dispatch, 600)
{
	char addon[4096];
	if (system("node --version > /dev/null 2>&1") != 0)
		SKIP("node is not installed");
	snprintf(addon, sizeof(addon), "%s/node/webnn/webnn.node", test_build_dir());
	if (access(addon, R_OK) != 0)
		SKIP("%s is not built", addon);
	const char *const args[] = { "--backend", "cpu", NULL };
	struct test_daemon d;
	test_daemon_start(&d, args);
	enum { ROUNDS = 4 };
	double c[ROUNDS * BN_BLOCKS], h[ROUNDS * BN_BLOCKS], n[ROUNDS * BN_BLOCKS], ratio[ROUNDS];
	double load0 = test_load_average();
	for (int r = 0; r < ROUNDS; r++) { /* interleaved: C, C holding sends, Node, each round */
		bn_c_side(&d, c + r * BN_BLOCKS, false);
		bn_c_side(&d, h + r * BN_BLOCKS, true);
		bn_node_side(&d, n + r * BN_BLOCKS);
		double cm[BN_BLOCKS], nm[BN_BLOCKS];
		memcpy(cm, c + r * BN_BLOCKS, sizeof(cm));
		memcpy(nm, n + r * BN_BLOCKS, sizeof(nm));
		ratio[r] = bn_median(nm, BN_BLOCKS) / bn_median(cm, BN_BLOCKS);
	}
	double cmed = bn_median(c, ROUNDS * BN_BLOCKS), nmed = bn_median(n, ROUNDS * BN_BLOCKS);
	double hmed = bn_median(h, ROUNDS * BN_BLOCKS);
	printf("  relu on 4 floats, dispatch + read, median per call over %d blocks of %d:\n",
	       ROUNDS * BN_BLOCKS, BN_PER);
	printf("    C (blocking read)          %8.1f us\n", cmed * 1e6);
	printf("    C holding sends            %8.1f us  (webnn_context_hold_sends, as the binding)\n",
	       hmed * 1e6);
	printf("    Node (awaited readTensor)  %8.1f us\n", nmed * 1e6);
	printf("    Node / C %.2fx (per round:", nmed / cmed);
	for (int r = 0; r < ROUNDS; r++)
		printf(" %.2f", ratio[r]);
	printf("; target <= 1.3); against C holding sends %.2fx; load %.2f -> %.2f\n",
	       nmed / hmed, load0, test_load_average());
	test_daemon_stop(&d);
}
