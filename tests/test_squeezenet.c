/* End-to-end model test: SqueezeNet 1.0 NHWC through libwebnn and webnnd vs the reference outputs. */
#include <math.h>
#include <string.h>

#include "tests/models.h"
#include "tests/npy.h"
#include "tests/test.h"
#include "webnn.h"

#define SQZ_CLASSES MODEL_CLASSES

struct sqz {
	struct model m;
	char dir[4096];
};

#define SQZ_OK(s, what) MODEL_OK(z->m.ctx, s, what)

/* SqueezeNet on a webnnd serving every context on one backend, against the model's outputs. */
static void sqz_check(const char *backend)
{
	const char *shared = test_shared_dir();
	if (!shared)
		SKIP("../shared (or $WEBNN_SHARED) is absent: no SqueezeNet weights");
	struct sqz zz = { 0 }, *z = &zz;
	const char *const args[] = { "--backend", backend, NULL };
	snprintf(z->dir, sizeof(z->dir), "%s/models/squeezenet1.0_nhwc", shared);
	z->m.dir = z->dir;

	struct test_daemon d;
	test_daemon_start(&d, args);
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	char err[512] = "";
	co.socket_path = d.socket_path;
	enum webnn_status s = webnn_context_create(&co, &z->m.ctx, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "context: %s: %s", webnn_status_name(s), err);
	struct webnn_context_info info;
	webnn_context_get_info(z->m.ctx, &info);
	ASSERT_STREQ(info.backend, backend);
	SQZ_OK(webnn_builder_create(z->m.ctx, &z->m.b), "builder");
	struct webnn_operand_desc id = { WEBNN_FLOAT32, 4, { 1, 224, 224, 3 } };
	struct webnn_operand *out;
	SQZ_OK(webnn_builder_input(z->m.b, "input", &id, &out), "input");
	out = model_squeezenet(&z->m, out);
	struct webnn_operand_desc od;
	webnn_operand_get_desc(out, &od);
	ASSERT_EQ(od.rank, 2);
	ASSERT_EQ(od.shape[1], SQZ_CLASSES);

	struct webnn_graph *g;
	struct webnn_named_operand named = { "output", out };
	SQZ_OK(webnn_builder_build(z->m.b, &named, 1, &g), "build");
	webnn_builder_destroy(z->m.b);

	struct webnn_tensor_desc tin = { { WEBNN_FLOAT32, 4, { 1, 224, 224, 3 } }, false, true };
	struct webnn_tensor_desc tout = { { WEBNN_FLOAT32, 2, { 1, SQZ_CLASSES } }, true, false };
	struct webnn_tensor *ti, *to;
	SQZ_OK(webnn_context_create_tensor(z->m.ctx, &tin, &ti), "input tensor");
	SQZ_OK(webnn_context_create_tensor(z->m.ctx, &tout, &to), "output tensor");
	static float result[SQZ_CLASSES];
	for (int k = 0; k < 3; k++) {
		char path[8192];
		struct npy_array in, ref;
		snprintf(path, sizeof(path), "%s/test_data_set/%d/input_0.npy", z->dir, k);
		ASSERT_MSG(npy_load_f32(path, &in, err, sizeof(err)), "%s", err);
		snprintf(path, sizeof(path), "%s/test_data_set/%d/output_0.npy", z->dir, k);
		ASSERT_MSG(npy_load_f32(path, &ref, err, sizeof(err)), "%s", err);
		ASSERT_EQ(in.count, 224 * 224 * 3);
		ASSERT_EQ(ref.count, SQZ_CLASSES);
		struct webnn_named_tensor bi = { "input", ti }, bo = { "output", to };
		SQZ_OK(webnn_context_write_tensor(z->m.ctx, ti, in.data, in.count * sizeof(float)),
		       "write");
		SQZ_OK(webnn_context_dispatch(z->m.ctx, g, &bi, 1, &bo, 1), "dispatch");
		SQZ_OK(webnn_context_read_tensor(z->m.ctx, to, result, sizeof(result)), "read");
		double maxd = 0;
		for (int i = 0; i < SQZ_CLASSES; i++) {
			double e = ref.data[i], diff = fabs((double)result[i] - e);
			ASSERT_MSG(diff <= 1e-3 + 1e-3 * fabs(e),
				   "test_data_set/%d: output[%d] = %.7g, expected %.7g", k, i,
				   result[i], e);
			maxd = diff > maxd ? diff : maxd;
		}
		printf("  test_data_set/%d: max |diff| %.3g\n", k, maxd);
		npy_free(&in);
		npy_free(&ref);
	}
	webnn_tensor_destroy(ti);
	webnn_tensor_destroy(to);
	webnn_graph_destroy(g);
	webnn_context_destroy(z->m.ctx);
	test_daemon_stop(&d);
}

TEST_TIMEOUT(squeezenet_reference_outputs_cpu, 300)
{
	sqz_check("cpu");
}

TEST_TIMEOUT(squeezenet_reference_outputs_opencl, 300)
{
	if (!test_have_opencl())
		SKIP("no OpenCL platform");
	sqz_check("opencl");
}
