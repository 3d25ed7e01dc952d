/* make bench: a 4-bit MatMulNBits linear stack (4 x 2048x2048, block 32) on webnnd's cpu backend vs onnxruntime-node's MatMulNBits. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/bench_common.h"
#include "tests/onnx_writer.h"
#include "tests/test.h"
#include "webnn.h"
#include "webnn_import.h"

/* The layers as 4-bit weight-only quantized LLM exports write them: com.microsoft MatMulNBits,
 * B uint8 [N, K / 32, 16], float scales, packed uint8 zero points (asymmetric). Both runtimes
 * load the same file; rows M = 1 (a decoding step) and M = 32. */
#define QB_LAYERS 4
#define QB_K 2048
#define QB_BS 32
#define QB_NB (QB_K / QB_BS)

/* An LCG's bits 16 and up: the low byte of qb_rand() repeats only after 2^24 draws. (Bits 8-15
 * repeated every 2^16, which made the four layers' codes the same bytes: webnnd keeps equal
 * constants once, so the bench measured one layer's weights four times.) */
static uint32_t qb_seed = 12345;
static uint32_t qb_rand(void)
{
	qb_seed = qb_seed * 1664525u + 1013904223u;
	return qb_seed >> 16;
}

/* Writes the model with input x [m, K] to path; false on a write error. */
static bool qb_write(const char *path, uint32_t m)
{
	static const int64_t bd[3] = { QB_K, QB_NB, QB_BS / 2 }, sd[1] = { QB_K * QB_NB },
			     zd[1] = { QB_K * QB_NB / 2 };
	const int64_t xd[2] = { m, QB_K };
	struct onnx_writer w;
	onnx_writer_init(&w, 17);
	onnx_writer_opset(&w, "com.microsoft", 1);
	w.graph->name = onnx_writer_strdup(&w, "nbits");
	onnx_writer_input(&w, "x", ONNX_FLOAT, 2, xd);
	onnx_writer_output(&w, "y", ONNX_FLOAT, 2, xd);
	qb_seed = 12345;
	for (int l = 0; l < QB_LAYERS; l++) {
		char b[16], s[16], z[16], in[16], out[16], ins[80];
		snprintf(b, sizeof b, "b%d", l);
		snprintf(s, sizeof s, "s%d", l);
		snprintf(z, sizeof z, "z%d", l);
		snprintf(in, sizeof in, l ? "h%d" : "x", l - 1);
		snprintf(out, sizeof out, l == QB_LAYERS - 1 ? "y" : "h%d", l);
		/* the weights written in place, drawn in the order b, z, s */
		Onnx__TensorProto *tb = onnx_writer_initializer(&w, b, ONNX_UINT8, 3, bd, NULL);
		Onnx__TensorProto *ts = onnx_writer_initializer(&w, s, ONNX_FLOAT, 1, sd, NULL);
		Onnx__TensorProto *tz = onnx_writer_initializer(&w, z, ONNX_UINT8, 1, zd, NULL);
		for (size_t i = 0; i < tb->raw_data.len; i++)
			tb->raw_data.data[i] = (uint8_t)qb_rand();
		for (size_t i = 0; i < tz->raw_data.len; i++)
			tz->raw_data.data[i] = (uint8_t)qb_rand();
		float *sv = (float *)ts->raw_data.data;
		for (size_t i = 0; i < QB_K * QB_NB; i++)
			sv[i] = 0.002f + 0.004f * (float)(qb_rand() & 1023) / 1024.0f;
		snprintf(ins, sizeof ins, "%s,%s,%s,%s", in, b, s, z);
		Onnx__NodeProto *n = onnx_writer_node(&w, NULL, "MatMulNBits", "com.microsoft", ins,
						      out);
		onnx_writer_attr_int(&w, n, "K", QB_K);
		onnx_writer_attr_int(&w, n, "N", QB_K);
		onnx_writer_attr_int(&w, n, "bits", 4);
		onnx_writer_attr_int(&w, n, "block_size", QB_BS);
	}
	bool ok = onnx_writer_save(&w, path);
	onnx_writer_free(&w);
	return ok;
}

/* Resident kB of the daemon's worker processes (its children): field "VmRSS:" for all of it,
 * "RssAnon:" for the private anonymous memory weights live in (not the tensors' shared memory
 * nor library pages). */
static long qb_workers_rss_kb(pid_t daemon, const char *field)
{
	char path[96], line[256];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)daemon, (int)daemon);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long total = 0;
	int child;
	while (fscanf(f, "%d", &child) == 1) {
		snprintf(path, sizeof path, "/proc/%d/status", child);
		FILE *s = fopen(path, "r");
		if (!s)
			continue;
		while (fgets(line, sizeof line, s))
			if (strncmp(line, field, strlen(field)) == 0)
				total += strtol(line + strlen(field), NULL, 10);
		fclose(s);
	}
	fclose(f);
	return total;
}

TEST_TIMEOUT(bench_matmul_nbits, 900)
{
	char why[1200], tmp[64], path[128], reply[2048];
	snprintf(tmp, sizeof tmp, "/tmp/webnn-bench-nbits-XXXXXX");
	ASSERT(mkdtemp(tmp));
	static struct bc_daemon dm;
	ASSERT_MSG(bc_daemon_start(&dm, NULL, "cpu", NULL, why, sizeof why), "%s", why);
	static struct bc_child ort;
	char ort_why[600] = "";
	bool have_ort = bc_ort_start(&ort, 2, ort_why, sizeof ort_why);
	if (!have_ort)
		fprintf(stderr, "bench_matmul_nbits: no onnxruntime peer: %s\n", ort_why);
	static const uint32_t rows[2] = { 1, 32 };
	double params = (double)QB_LAYERS * QB_K * QB_K, load0 = test_load_average();
	int rounds = bc_rounds() < 3 ? 3 : bc_rounds();
	bool mismatch = false;
	for (int r = 0; r < 2; r++) {
		uint32_t m = rows[r];
		snprintf(path, sizeof path, "%s/nbits_m%u.onnx", tmp, m);
		ASSERT(qb_write(path, m));
		float *x = malloc(sizeof(float) * m * QB_K), *y = malloc(sizeof(float) * m * QB_K),
		      *yo = malloc(sizeof(float) * m * QB_K);
		ASSERT(x && y && yo);
		for (uint32_t i = 0; i < m * QB_K; i++)
			x[i] = (float)(qb_rand() & 2047) / 1024.0f - 1.0f;
		long rss0 = qb_workers_rss_kb(dm.pid, "VmRSS:"),
		     anon0 = qb_workers_rss_kb(dm.pid, "RssAnon:");
		struct webnn_model *model = NULL;
		double t_load = bc_now();
		enum webnn_status s = webnn_model_load(dm.ctx, path, NULL, &model, why, sizeof why);
		t_load = bc_now() - t_load;
		ASSERT_MSG(s == WEBNN_STATUS_OK, "%s", why);
		struct webnn_named_tensor in = { "x", NULL }, out = { "y", NULL };
		struct webnn_tensor_desc ti = { .writable = true }, to = { .readable = true };
		webnn_model_input_desc(model, 0, &ti.desc);
		webnn_model_output_desc(model, 0, &to.desc);
		ASSERT(webnn_context_create_tensor(dm.ctx, &ti, &in.tensor) == WEBNN_STATUS_OK);
		ASSERT(webnn_context_create_tensor(dm.ctx, &to, &out.tensor) == WEBNN_STATUS_OK);
		ASSERT(webnn_context_write_tensor(dm.ctx, in.tensor, x, sizeof(float) * m * QB_K) ==
		       WEBNN_STATUS_OK);
		struct webnn_graph *g = webnn_model_graph(model);
		ASSERT(webnn_context_dispatch(dm.ctx, g, &in, 1, &out, 1) == WEBNN_STATUS_OK);
		ASSERT(webnn_context_read_tensor(dm.ctx, out.tensor, y, sizeof(float) * m * QB_K) ==
		       WEBNN_STATUS_OK);
		long rss1 = qb_workers_rss_kb(dm.pid, "VmRSS:"),
		     anon1 = qb_workers_rss_kb(dm.pid, "RssAnon:");
		/* onnxruntime on the same file and input */
		bool ort_ok = have_ort;
		if (ort_ok) {
			char f[160];
			snprintf(f, sizeof f, "%s/in0.bin", tmp);
			FILE *fp = fopen(f, "wb");
			ASSERT(fp && fwrite(x, sizeof(float), (size_t)m * QB_K, fp) == (size_t)m * QB_K &&
			       fclose(fp) == 0);
			ort_ok = bc_child_cmd(&ort, reply, sizeof reply, "open q%u %s -", m, path) &&
				 bc_child_cmd(&ort, reply, sizeof reply, "feed q%u %s", m, tmp) &&
				 bc_child_cmd(&ort, reply, sizeof reply, "outs q%u %s", m, tmp);
			if (!ort_ok)
				fprintf(stderr, "onnxruntime: %s\n", reply);
			snprintf(f, sizeof f, "%s/out0.bin", tmp);
			fp = ort_ok ? fopen(f, "rb") : NULL;
			ort_ok = fp && fread(yo, sizeof(float), (size_t)m * QB_K, fp) ==
					       (size_t)m * QB_K;
			if (fp)
				fclose(fp);
		}
		double maxd = 0, maxy = 0;
		for (uint32_t i = 0; ort_ok && i < m * QB_K; i++) {
			maxd = fmax(maxd, fabs((double)y[i] - yo[i]));
			maxy = fmax(maxy, fabs((double)yo[i]));
		}
		/* both dequantize the same codes exactly; only the order of float sums differs */
		if (ort_ok && maxd > 1e-4 * maxy)
			mismatch = true;
		/* interleaved rounds, each about 0.2 s per runtime */
		double t1 = bc_now();
		ASSERT(webnn_context_dispatch(dm.ctx, g, &in, 1, &out, 1) == WEBNN_STATUS_OK);
		ASSERT(webnn_context_read_tensor(dm.ctx, out.tensor, y, sizeof(float) * m * QB_K) == WEBNN_STATUS_OK);
		int inner = (int)(0.2 / fmax(bc_now() - t1, 1e-5)) + 1;
		double tw[16], tort[16];
		/* one contender at a time: the other's process tree is stopped (a spinning
		 * thread pool would be charged to whoever runs next) */
		for (int k = 0; k < rounds && k < 16; k++) {
			if (ort_ok)
				bc_pause(ort.pid);
			double t0 = bc_now();
			for (int i = 0; i < inner; i++)
				ASSERT(webnn_context_dispatch(dm.ctx, g, &in, 1, &out, 1) ==
				       WEBNN_STATUS_OK);
			ASSERT(webnn_context_read_tensor(dm.ctx, out.tensor, y,
							 sizeof(float) * m * QB_K) == WEBNN_STATUS_OK);
			tw[k] = (bc_now() - t0) / inner;
			tort[k] = NAN;
			if (ort_ok) {
				char id[16];
				snprintf(id, sizeof id, "q%u", m);
				bc_resume(ort.pid);
				bc_pause(dm.pid);
				tort[k] = bc_ort_run(&ort, id, inner);
				bc_resume(dm.pid);
			}
		}
		int nr = rounds < 16 ? rounds : 16;
		fprintf(stderr,
			"MatMulNBits 4 x %dx%d block %d, M %u: webnnd %.3f ms, onnxruntime (2 threads) "
			"%.3f ms, ratio %.2f; max |d| %.2g (max |y| %.3g); load %.2f s; worker "
			"resident +%.1f MiB, of which anonymous (the weights) +%.1f MiB = %.3f "
			"bytes/parameter\n",
			QB_K, QB_K, QB_BS, m, bc_median(tw, nr) * 1e3,
			ort_ok ? bc_median(tort, nr) * 1e3 : NAN,
			ort_ok ? bc_ratio(tw, tort, nr) : NAN, maxd, maxy, t_load,
			(double)(rss1 - rss0) / 1024.0, (double)(anon1 - anon0) / 1024.0,
			(double)(anon1 - anon0) * 1024.0 / params);
		if (ort_ok)
			bc_child_cmd(&ort, reply, sizeof reply, "close q%u", m);
		webnn_tensor_destroy(in.tensor);
		webnn_tensor_destroy(out.tensor);
		webnn_model_destroy(model);
		free(x);
		free(y);
		free(yo);
	}
	fprintf(stderr, "load average %.2f -> %.2f (2 cores)\n", load0, test_load_average());
	if (have_ort)
		bc_child_stop(&ort);
	bc_daemon_stop(&dm);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
	ASSERT(system(cmd) == 0);
	ASSERT_MSG(!mismatch, "webnnd's MatMulNBits differs from onnxruntime's");
}
