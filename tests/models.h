/* The model graphs of shared/models/README.md built through libwebnn, for the model tests and
 * benches. */
#ifndef TESTS_MODELS_H
#define TESTS_MODELS_H

#include <stdint.h>

#include "tests/test.h"
#include "webnn.h"

/* One graph being built; weights come from <dir>/weights/<name>.npy. */
struct model {
	struct webnn_context *ctx;
	struct webnn_builder *b;
	const char *dir;
	/* When set, called with each intermediate stage of a model that has them (MobileNetV2:
	 * "stem", "block0".."block15", "head"); what describes the operations up to it. */
	void (*stage)(struct model *m, const char *name, struct webnn_operand *op,
		      const char *what);
};

/* Fails the test naming what, the status and the context's last error. */
#define MODEL_OK(ctx, expr, what)                                                              \
	do {                                                                                   \
		enum webnn_status ms_ = (expr);                                                \
		ASSERT_MSG(ms_ == WEBNN_STATUS_OK, "%s: %s: %s", what, webnn_status_name(ms_), \
			   webnn_context_last_error(ctx));                                     \
	} while (0)

#define MODEL_CLASSES 1001
#define MODEL_MOBILENETV2_FEATURES 1280

/* Fails the test unless op is float32 of the given shape (the README's shapes). */
void model_expect_shape(const struct webnn_operand *op, const char *what, uint32_t rank,
			const uint32_t *shape);

/* SqueezeNet 1.0 NHWC: input [1,224,224,3] to softmax [1,1001]. */
struct webnn_operand *model_squeezenet(struct model *m, struct webnn_operand *input);
/* MobileNetV2 NHWC conv2d with bias (groups > 1: depthwise, ihwo) and optional relu6, its
 * weights' and output's shapes checked; 3x3 padding is the old "same-upper". */
struct webnn_operand *model_mobilenetv2_conv(struct model *m, struct webnn_operand *x,
					     const char *filter, const char *bias, uint32_t out_c,
					     uint32_t k, uint32_t stride, uint32_t groups,
					     bool relu6, uint32_t out_hw);
/* MobileNetV2 NHWC up to the pooled features: input [1,224,224,3] to [1,1,1,1280]. */
struct webnn_operand *model_mobilenetv2_body(struct model *m, struct webnn_operand *input);

/* A mobile angle classifier like the one issue 19 measured (PaddleOCR's direction classifier):
 * input [1,3,48,192] NCHW, a stem and MODEL_ANGLE_BLOCKS blocks of a 1x1 and a depthwise 3x3
 * convolution (35 in all), each followed by batchNormalization and hard-swish, then average
 * pooling, gemm to 2 classes and softmax; weights seeded. exported: written as ONNX exports it
 * (bias-less conv, batchNormalization, hard-swish as add, clamp, mul, div); otherwise the
 * same work written by hand (conv with bias, hardSwish), which the passes should make it. */
#define MODEL_ANGLE_BLOCKS 17
#define MODEL_ANGLE_CONVS (1 + 2 * MODEL_ANGLE_BLOCKS)
struct webnn_operand *model_angle_classifier(struct model *m, struct webnn_operand *x,
					     bool exported);

#endif
