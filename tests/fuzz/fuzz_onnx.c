/* libFuzzer target: bytes -> the ONNX importer (ModelProto parse, tensor decoding, op mapping, build) against a reference webnnd. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "importers/onnx/onnx_internal.h"
#include "webnn.h"
#include "webnn_import.h"

/*
 * Every input is decoded twice: as a TensorProto (the .pb tensor files' reader) and as a whole
 * model loaded through webnn_model_load_memory into a context of a webnnd started here on the
 * reference backend ($WEBNN_FUZZ_WEBNND, else ../bin/webnnd beside this program's folder).
 * Without a daemon only the parsing and tensor decoding run (said once on stderr). External
 * data resolve against an empty folder of their own.
 */
static pid_t daemon_pid;
static char dir[64], sock[128];
static struct webnn_context *ctx;

static void stop_daemon(void)
{
	webnn_context_destroy(ctx);
	ctx = NULL;
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		waitpid(daemon_pid, NULL, 0);
		daemon_pid = 0;
	}
	unlink(sock);
	char data[96];
	snprintf(data, sizeof(data), "%s/data", dir);
	rmdir(data);
	rmdir(dir);
}

static struct webnn_context *connect(void)
{
	struct webnn_context_options o = WEBNN_CONTEXT_OPTIONS_INIT;
	o.socket_path = sock;
	o.client_name = "fuzz_onnx";
	struct webnn_context *c = NULL;
	char err[256];
	return webnn_context_create(&o, &c, err, sizeof(err)) == WEBNN_STATUS_OK ? c : NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	snprintf(dir, sizeof(dir), "/tmp/wnn-fuzz-onnx-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	char data[96];
	snprintf(data, sizeof(data), "%s/data", dir);
	mkdir(data, 0755);
	snprintf(sock, sizeof(sock), "%s/webnnd.sock", dir);
	char bin[4096];
	const char *env = getenv("WEBNN_FUZZ_WEBNND");
	if (env) {
		snprintf(bin, sizeof(bin), "%s", env);
	} else {
		const char *self = (*argv)[0], *slash = strrchr(self, '/');
		snprintf(bin, sizeof(bin), "%.*s/../bin/webnnd", slash ? (int)(slash - self) : 1,
			 slash ? self : ".");
	}
	if (access(bin, X_OK) == 0) {
		daemon_pid = fork();
		if (daemon_pid == 0) {
			/* its log would drown the fuzzer's */
			freopen("/dev/null", "w", stderr);
			execl(bin, bin, "--socket", sock, "--backend", "reference", (char *)NULL);
			_exit(127);
		}
		for (int i = 0; i < 1000 && daemon_pid > 0 && !ctx; i++) {
			usleep(10000);
			ctx = connect();
		}
	}
	if (!ctx)
		fprintf(stderr, "fuzz_onnx: no webnnd at %s: parsing and tensor decoding only\n", bin);
	atexit(stop_daemon);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t len)
{
	char data_dir[96], err[512];
	snprintf(data_dir, sizeof(data_dir), "%s/data", dir);
	Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, buf);
	if (t) {
		int ot;
		uint32_t rank, dims[WEBNN_MAX_RANK];
		void *p = NULL;
		size_t size;
		enum webnn_status s;
		if (ox_tensor_decode(t, data_dir, &ot, &rank, dims, &p, &size, err, sizeof(err),
				     &s) == 0)
			free(p);
		onnx__tensor_proto__free_unpacked(t, NULL);
	}
	if (ctx && webnn_context_is_lost(ctx)) {
		webnn_context_destroy(ctx);
		ctx = connect();
	}
	if (!ctx)
		return 0;
	struct webnn_import_options o = WEBNN_IMPORT_OPTIONS_INIT;
	static const struct webnn_dim_binding dims[] = { { "N", 1 }, { "batch", 1 } };
	o.format = WEBNN_MODEL_FORMAT_ONNX;
	o.dims = dims;
	o.n_dims = 2;
	struct webnn_model *m = NULL;
	if (webnn_model_load_memory(ctx, buf, len, data_dir, &o, &m, err, sizeof(err)) ==
	    WEBNN_STATUS_OK)
		webnn_model_destroy(m);
	return 0;
}
