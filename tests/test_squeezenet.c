/* End-to-end model test: SqueezeNet 1.0 NHWC through libwebnn and webnnd vs the reference outputs. */
#include <math.h>
#include <string.h>

#include "tests/npy.h"
#include "tests/test.h"
#include "webnn.h"

#define SQZ_CLASSES 1001

struct sqz {
	struct webnn_context *ctx;
	struct webnn_builder *b;
	char dir[4096];
};

#define SQZ_OK(s, what)                                                                        \
	ASSERT_MSG((s) == WEBNN_STATUS_OK, "%s: %s: %s", what, webnn_status_name(s),           \
		   webnn_context_last_error(z->ctx))

static struct webnn_operand *sqz_weight(struct sqz *z, const char *name)
{
	char path[8192], err[9000];
	struct webnn_operand *op;
	snprintf(path, sizeof(path), "%s/weights/%s.npy", z->dir, name);
	ASSERT_MSG(npy_constant(z->ctx, z->b, path, &op, err, sizeof(err)), "%s", err);
	return op;
}

static struct webnn_operand *sqz_conv(struct sqz *z, struct webnn_operand *x, const char *name,
				      uint32_t stride, uint32_t pad_begin, uint32_t pad_end)
{
	char w[128], bias[128];
	struct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;
	struct webnn_operand *y;
	snprintf(w, sizeof(w), "%s_kernel", name);
	snprintf(bias, sizeof(bias), "%s_Conv2D_bias", name);
	o.input_layout = WEBNN_LAYOUT_NHWC;
	o.filter_layout = WEBNN_FILTER_OHWI;
	o.bias = sqz_weight(z, bias);
	o.strides[0] = o.strides[1] = stride;
	o.n_strides = 2;
	o.padding[0] = o.padding[2] = pad_begin;
	o.padding[1] = o.padding[3] = pad_end;
	o.n_padding = 4;
	SQZ_OK(webnn_builder_conv2d(z->b, x, sqz_weight(z, w), &o, &y), name);
	SQZ_OK(webnn_builder_relu(z->b, y, &y), "relu");
	return y;
}

static struct webnn_operand *sqz_pool(struct sqz *z, struct webnn_operand *x, bool max,
				      uint32_t window, uint32_t stride)
{
	struct webnn_pool2d_options o = WEBNN_POOL2D_OPTIONS_INIT;
	struct webnn_operand *y;
	o.window_dimensions[0] = o.window_dimensions[1] = window;
	o.n_window_dimensions = 2;
	o.strides[0] = o.strides[1] = stride;
	o.n_strides = 2;
	o.layout = WEBNN_LAYOUT_NHWC;
	SQZ_OK(max ? webnn_builder_max_pool2d(z->b, x, &o, &y)
		   : webnn_builder_average_pool2d(z->b, x, &o, &y),
	       "pool2d");
	return y;
}

static struct webnn_operand *sqz_fire(struct sqz *z, struct webnn_operand *x, int n)
{
	char name[64];
	snprintf(name, sizeof(name), "fire%d_squeeze", n);
	struct webnn_operand *s = sqz_conv(z, x, name, 1, 0, 0), *e[2], *y;
	snprintf(name, sizeof(name), "fire%d_e1x1", n);
	e[0] = sqz_conv(z, s, name, 1, 0, 0);
	snprintf(name, sizeof(name), "fire%d_e3x3", n);
	e[1] = sqz_conv(z, s, name, 1, 1, 1);
	SQZ_OK(webnn_builder_concat(z->b, e, 2, 3, &y), "concat");
	return y;
}

/* shared/models/README.md, "SqueezeNet 1.0 NHWC graph". */
static struct webnn_operand *sqz_graph(struct sqz *z)
{
	struct webnn_operand_desc in = { WEBNN_FLOAT32, 4, { 1, 224, 224, 3 } };
	static const uint32_t flat[2] = { 1, SQZ_CLASSES };
	struct webnn_operand *x;
	SQZ_OK(webnn_builder_input(z->b, "input", &in, &x), "input");
	x = sqz_pool(z, sqz_conv(z, x, "conv1", 2, 2, 3), true, 3, 2);
	x = sqz_pool(z, sqz_fire(z, sqz_fire(z, sqz_fire(z, x, 2), 3), 4), true, 3, 2);
	x = sqz_fire(z, sqz_fire(z, sqz_fire(z, sqz_fire(z, x, 5), 6), 7), 8);
	x = sqz_pool(z, x, true, 3, 2);
	x = sqz_conv(z, sqz_fire(z, x, 9), "conv10", 1, 0, 0);
	x = sqz_pool(z, x, false, 13, 1);
	SQZ_OK(webnn_builder_reshape(z->b, x, flat, 2, &x), "reshape");
	SQZ_OK(webnn_builder_softmax(z->b, x, 1, &x), "softmax");
	return x;
}

TEST_TIMEOUT(squeezenet_reference_outputs, 300)
{
	const char *shared = test_shared_dir();
	if (!shared)
		SKIP("../shared (or $WEBNN_SHARED) is absent: no SqueezeNet weights");
	if (!test_have_opencl())
		SKIP("no OpenCL platform");
	struct sqz zz = { 0 }, *z = &zz;
	snprintf(z->dir, sizeof(z->dir), "%s/models/squeezenet1.0_nhwc", shared);

	struct test_daemon d;
	test_daemon_start(&d, NULL);
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	char err[512] = "";
	co.socket_path = d.socket_path;
	enum webnn_status s = webnn_context_create(&co, &z->ctx, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "context: %s: %s", webnn_status_name(s), err);
	SQZ_OK(webnn_builder_create(z->ctx, &z->b), "builder");
	struct webnn_operand *out = sqz_graph(z);
	struct webnn_operand_desc od;
	webnn_operand_get_desc(out, &od);
	ASSERT_EQ(od.rank, 2);
	ASSERT_EQ(od.shape[1], SQZ_CLASSES);

	struct webnn_graph *g;
	struct webnn_named_operand named = { "output", out };
	SQZ_OK(webnn_builder_build(z->b, &named, 1, &g), "build");
	webnn_builder_destroy(z->b);

	struct webnn_tensor_desc tin = { { WEBNN_FLOAT32, 4, { 1, 224, 224, 3 } }, false, true };
	struct webnn_tensor_desc tout = { { WEBNN_FLOAT32, 2, { 1, SQZ_CLASSES } }, true, false };
	struct webnn_tensor *ti, *to;
	SQZ_OK(webnn_context_create_tensor(z->ctx, &tin, &ti), "input tensor");
	SQZ_OK(webnn_context_create_tensor(z->ctx, &tout, &to), "output tensor");
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
		SQZ_OK(webnn_context_write_tensor(z->ctx, ti, in.data, in.count * sizeof(float)),
		       "write");
		SQZ_OK(webnn_context_dispatch(z->ctx, g, &bi, 1, &bo, 1), "dispatch");
		SQZ_OK(webnn_context_read_tensor(z->ctx, to, result, sizeof(result)), "read");
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
	webnn_context_destroy(z->ctx);
	test_daemon_stop(&d);
}
