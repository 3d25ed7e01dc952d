/* libwebnn tests of the builders of every operator family: eager errors, labels, small graphs. */
#include "proto/webnn.pb-c.h"
#include "tests/clienttest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/wnn.h"
#include "webnn.h"

/* ---- eager validation */

/* The spec's errors at the builder call, with the rule in the text, family by family. x is
 * float32 [2, 3], v float32 [4], img float32 [1, 2, 3, 4]. */

static void eager_errors_elementwise_cast(struct webnn_context *ctx, struct webnn_builder *b,
					  struct webnn_operand *x)
{
	struct webnn_operand *out = (struct webnn_operand *)1;
	/* cast: a known target type */
	FAILS(ctx, webnn_builder_cast(b, x, (enum webnn_data_type)99, &out),
		  WEBNN_STATUS_TYPE_ERROR, "cast: target data type 99 is not a valid data type");

	/* where: the condition must be uint8 */
	FAILS(ctx, webnn_builder_where(b, x, x, x, &out), WEBNN_STATUS_TYPE_ERROR,
		  "where: condition data type float32 is not allowed");
}

static void eager_errors_reduce(struct webnn_context *ctx, struct webnn_builder *b,
				struct webnn_operand *x)
{
	const uint32_t s23[] = { 2, 3 }, s4[] = { 4 };
	struct webnn_operand *out = (struct webnn_operand *)1;
	/* argMax: axis in range, output type int32/int64 */
	FAILS(ctx, webnn_builder_arg_max(b, x, 2, NULL, &out), WEBNN_STATUS_TYPE_ERROR,
		  "argMax: axis 2 is out of range for rank 2");
	ASSERT(out == NULL);
	struct webnn_arg_min_max_options amo = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
	amo.output_data_type = WEBNN_FLOAT32;
	FAILS(ctx, webnn_builder_arg_min(b, x, 0, &amo, &out), WEBNN_STATUS_TYPE_ERROR,
		  "argMin: output data type float32 is not allowed");

	/* reductions: axes unique and in range; NULL axes (all) differs from an empty list */
	const uint32_t dup[] = { 1, 1 };
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.axes = dup;
	ro.n_axes = 2;
	FAILS(ctx, webnn_builder_reduce_sum(b, x, &ro, &out), WEBNN_STATUS_TYPE_ERROR,
		  "reduceSum: axes contain the axis 1 more than once");
	FAILS(ctx, webnn_builder_reduce_l2(b, ct_input(ctx, b, "i", WEBNN_INT32, 1, s4), NULL,
					       &out),
		  WEBNN_STATUS_TYPE_ERROR, "reduceL2: input data type int32 is not allowed");
	OK(ctx, webnn_builder_reduce_mean(b, x, NULL, &out));
	ct_assert_shape(out, WEBNN_FLOAT32, 0, NULL);
	ro.n_axes = 0; /* axes = [] reduces nothing */
	OK(ctx, webnn_builder_reduce_mean(b, x, &ro, &out));
	ct_assert_shape(out, WEBNN_FLOAT32, 2, s23);
}

static void eager_errors_data(struct webnn_context *ctx, struct webnn_builder *b,
			      struct webnn_operand *x, struct webnn_operand *v)
{
	struct webnn_operand *out = (struct webnn_operand *)1;
	/* pad: one padding value per axis; reflection smaller than the dimension */
	const uint32_t p1[] = { 1 }, p11[] = { 1, 1 }, p33[] = { 3, 3 };
	FAILS(ctx, webnn_builder_pad(b, x, p1, 1, p11, 2, NULL, &out),
		  WEBNN_STATUS_TYPE_ERROR,
		  "pad: beginningPadding and endingPadding have 1 and 2 values, expected 2");
	struct webnn_pad_options po = WEBNN_PAD_OPTIONS_INIT;
	po.mode = WEBNN_PAD_REFLECTION;
	FAILS(ctx, webnn_builder_pad(b, x, p33, 2, p11, 2, &po, &out), WEBNN_STATUS_TYPE_ERROR,
		  "pad: reflection padding 3+1 along axis 0 must be smaller than the input "
		  "dimension 2");
	po.mode = (enum webnn_padding_mode)9;
	FAILS(ctx, webnn_builder_pad(b, x, p11, 2, p11, 2, &po, &out),
		  WEBNN_STATUS_TYPE_ERROR, "pad: unknown mode 9");
	FAILS(ctx, webnn_builder_pad(b, x, NULL, 2, p11, 2, NULL, &out),
		  WEBNN_STATUS_TYPE_ERROR, "pad: beginningPadding is NULL with 2 values");

	/* slice: windows inside the input */
	const uint32_t st[] = { 1, 1 }, sz[] = { 1, 3 };
	FAILS(ctx, webnn_builder_slice(b, x, st, 2, sz, 2, NULL, &out),
		  WEBNN_STATUS_TYPE_ERROR,
		  "slice: starts 1 + sizes 3 along axis 1 exceed the input dimension 3");

	/* triangular: rank 2 or more */
	FAILS(ctx, webnn_builder_triangular(b, v, NULL, &out), WEBNN_STATUS_TYPE_ERROR,
		  "triangular: input rank is 1, expected at least 2");

	/* split: a valid count, divisible dimension, room for the parts */
	struct webnn_operand *parts[4] = { (struct webnn_operand *)1 };
	size_t n_parts = 99;
	struct webnn_split_options so = WEBNN_SPLIT_OPTIONS_INIT;
	so.axis = 1;
	FAILS(ctx, webnn_builder_split(b, x, 0, &so, parts, 4, &n_parts),
		  WEBNN_STATUS_TYPE_ERROR, "split: splits count 0 is not a valid tensor count");
	ASSERT(n_parts == 0 && parts[0] == NULL);
	FAILS(ctx, webnn_builder_split(b, x, 2, &so, parts, 4, &n_parts),
		  WEBNN_STATUS_TYPE_ERROR,
		  "split: input dimension 3 along axis 1 is not divisible by splits 2");
	FAILS(ctx, webnn_builder_split(b, x, 100, &so, parts, 4, &n_parts),
		  WEBNN_STATUS_TYPE_ERROR, "split: 100 outputs exceed the maximum of 64 outputs");
	FAILS(ctx, webnn_builder_split(b, x, 3, &so, parts, 2, &n_parts),
		  WEBNN_STATUS_TYPE_ERROR, "split: the operator returns 3 operands, outs has room "
					   "for 2");
	const uint32_t sizes[] = { 1, 1 };
	FAILS(ctx, webnn_builder_split_sizes(b, x, sizes, 2, &so, parts, 4, &n_parts),
		  WEBNN_STATUS_TYPE_ERROR, "split: splits sum to 2, expected 3");
	OK(ctx, webnn_builder_split(b, x, 3, &so, parts, 4, &n_parts));
	ASSERT_EQ(n_parts, 3);
	const uint32_t s21[] = { 2, 1 };
	for (int i = 0; i < 3; i++)
		ct_assert_shape(parts[i], WEBNN_FLOAT32, 2, s21);
	ASSERT(parts[3] == NULL);

	/* options.struct_size 0 is caught */
	struct webnn_triangular_options bad = { 0 };
	FAILS(ctx, webnn_builder_triangular(b, x, &bad, &out), WEBNN_STATUS_TYPE_ERROR,
		  "triangular: options.struct_size is 0");
}

static void eager_errors_rnn(struct webnn_context *ctx, struct webnn_builder *b)
{
	/* gru: activations and shapes; results counted */
	const uint32_t s123[] = { 1, 2, 3 }, w[] = { 1, 6, 3 }, rw[] = { 1, 6, 2 };
	struct webnn_operand *seq = ct_input(ctx, b, "seq", WEBNN_FLOAT32, 3, s123);
	struct webnn_operand *gw = ct_input(ctx, b, "gw", WEBNN_FLOAT32, 3, w);
	struct webnn_operand *grw = ct_input(ctx, b, "grw", WEBNN_FLOAT32, 3, rw);
	struct webnn_gru_options go = WEBNN_GRU_OPTIONS_INIT;
	go.n_activations = 3;
	struct webnn_operand *gouts[2];
	size_t n_gouts = 0;
	FAILS(ctx, webnn_builder_gru(b, seq, gw, grw, 1, 2, &go, gouts, 2, &n_gouts),
		  WEBNN_STATUS_TYPE_ERROR, "gru: activations has 3 items, expected 2");
	go.n_activations = 0;
	FAILS(ctx, webnn_builder_gru(b, seq, gw, grw, 2, 2, &go, gouts, 2, &n_gouts),
		  WEBNN_STATUS_TYPE_ERROR, "gru: input.shape[0] is 1, expected steps 2");
	FAILS(ctx, webnn_builder_gru(b, seq, gw, grw, 1, 3, &go, gouts, 2, &n_gouts),
		  WEBNN_STATUS_TYPE_ERROR, "gru: weight shape [1, 6, 3] is not [1, 9, 3]");
	go.return_sequence = true;
	OK(ctx, webnn_builder_gru(b, seq, gw, grw, 1, 2, &go, gouts, 2, &n_gouts));
	ASSERT_EQ(n_gouts, 2);
	const uint32_t h[] = { 1, 2, 2 }, hs[] = { 1, 1, 2, 2 };
	ct_assert_shape(gouts[0], WEBNN_FLOAT32, 3, h);
	ct_assert_shape(gouts[1], WEBNN_FLOAT32, 4, hs);
	FAILS(ctx, webnn_builder_gru(b, seq, gw, grw, 1, 2, &go, NULL, 0, &n_gouts),
		  WEBNN_STATUS_TYPE_ERROR, "gru: out is NULL");
}

static void eager_errors_conv_resample_normalization(struct webnn_context *ctx,
						     struct webnn_builder *b,
						     struct webnn_operand *x,
						     struct webnn_operand *v,
						     struct webnn_operand *img)
{
	struct webnn_operand *out = (struct webnn_operand *)1;
	/* convTranspose2d / resample2d: option arrays and enums checked before the spec rules */
	struct webnn_conv_transpose2d_options cto = WEBNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
	cto.filter_layout = (enum webnn_conv_transpose2d_filter_layout)7;
	FAILS(ctx, webnn_builder_conv_transpose2d(b, img, img, &cto, &out),
		  WEBNN_STATUS_TYPE_ERROR, "convTranspose2d: unknown filter layout 7");
	struct webnn_resample2d_options rso = WEBNN_RESAMPLE2D_OPTIONS_INIT;
	rso.n_scales = 3;
	FAILS(ctx, webnn_builder_resample2d(b, img, &rso, &out), WEBNN_STATUS_TYPE_ERROR,
		  "resample2d: scales has 3 values, expected at most 2");
	rso.n_scales = 2;
	rso.scales[0] = 0;
	FAILS(ctx, webnn_builder_resample2d(b, img, &rso, &out), WEBNN_STATUS_TYPE_ERROR,
		  "resample2d: scales item 0 is 0, expected a positive number");

	/* layerNormalization: scale shape follows the axes */
	const uint32_t ax0[] = { 0 };
	struct webnn_layer_normalization_options lo = WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT;
	lo.axes = ax0;
	lo.n_axes = 1;
	lo.scale = v;
	FAILS(ctx, webnn_builder_layer_normalization(b, x, &lo, &out),
		  WEBNN_STATUS_TYPE_ERROR,
		  "layerNormalization: scale shape [4] does not match the input dimensions along "
		  "the axes");
}

TEST(client_builders_eager_errors)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client_builders");
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	const uint32_t s23[] = { 2, 3 }, s4[] = { 4 }, s1234[] = { 1, 2, 3, 4 };
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, s23);
	struct webnn_operand *v = ct_input(ctx, b, "v", WEBNN_FLOAT32, 1, s4);
	struct webnn_operand *img = ct_input(ctx, b, "img", WEBNN_FLOAT32, 4, s1234);
	eager_errors_elementwise_cast(ctx, b, x);
	eager_errors_reduce(ctx, b, x);
	eager_errors_data(ctx, b, x, v);
	eager_errors_rnn(ctx, b);
	eager_errors_conv_resample_normalization(ctx, b, x, v, img);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ---- labels: set for one call, named in its errors, carried to webnnd */

TEST(client_builders_operator_labels)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client_builders");
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	const uint32_t s23[] = { 2, 3 };
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, s23);
	struct webnn_operand *out = NULL;

	/* A spec rule failing in the shared validation. */
	OK(ctx, webnn_builder_set_next_label(b, "my-argmax"));
	FAILS(ctx, webnn_builder_arg_max(b, x, 5, NULL, &out), WEBNN_STATUS_TYPE_ERROR,
		  "argMax: axis 5 is out of range for rank 2 (operator \"my-argmax\")");
	/* Consumed by that call: the next error carries no label. */
	FAILS(ctx, webnn_builder_arg_max(b, x, 5, NULL, &out), WEBNN_STATUS_TYPE_ERROR,
		  "argMax: axis 5 is out of range for rank 2");
	ASSERT(!strstr(webnn_context_last_error(ctx), "my-argmax"));
	/* A client-side check (NULL operand) names it too. */
	OK(ctx, webnn_builder_set_next_label(b, "lonely"));
	FAILS(ctx, webnn_builder_prelu(b, x, NULL, &out), WEBNN_STATUS_TYPE_ERROR,
		  "prelu: operand slope is NULL (operator \"lonely\")");
	/* input() and constant() leave it for the next operator. */
	OK(ctx, webnn_builder_set_next_label(b, "after-input"));
	const uint32_t s1[] = { 1 };
	ct_input(ctx, b, "y", WEBNN_FLOAT32, 1, s1);
	FAILS(ctx, webnn_builder_cumulative_sum(b, x, 3, NULL, &out), WEBNN_STATUS_TYPE_ERROR,
		  "cumulativeSum: axis 3 is out of range for rank 2 (operator \"after-input\")");
	/* A labelled success, then clearing with NULL. */
	OK(ctx, webnn_builder_set_next_label(b, "fine"));
	OK(ctx, webnn_builder_reverse(b, x, NULL, &out));
	OK(ctx, webnn_builder_set_next_label(b, "dropped"));
	OK(ctx, webnn_builder_set_next_label(b, NULL));
	FAILS(ctx, webnn_builder_arg_min(b, x, 7, NULL, &out), WEBNN_STATUS_TYPE_ERROR,
		  "argMin: axis 7");
	ASSERT(!strstr(webnn_context_last_error(ctx), "dropped"));

	/* The labelled graph builds and runs (the label travels in Operation.label). */
	struct webnn_named_operand named = { "out", NULL };
	OK(ctx, webnn_builder_set_next_label(b, "tri"));
	OK(ctx, webnn_builder_triangular(b, x, NULL, &named.operand));
	struct webnn_graph *g = NULL;
	OK(ctx, webnn_builder_build(b, &named, 1, &g));
	FAILS(ctx, webnn_builder_set_next_label(b, "late"), WEBNN_STATUS_INVALID_STATE,
		  "already built");
	webnn_graph_destroy(g);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ---- end to end on the reference backend */

TEST(client_builders_graph_split_reduce_arg_max)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client_builders");
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	const uint32_t s26[] = { 2, 6 };
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, s26);
	struct webnn_operand *parts[3];
	size_t n = 0;
	struct webnn_split_options so = WEBNN_SPLIT_OPTIONS_INIT;
	so.axis = 1;
	const uint32_t sizes[] = { 1, 2, 3 };
	OK(ctx, webnn_builder_split_sizes(b, x, sizes, 3, &so, parts, 3, &n));
	ASSERT_EQ(n, 3);
	const uint32_t ax1[] = { 1 };
	struct webnn_reduce_options ro = WEBNN_REDUCE_OPTIONS_INIT;
	ro.axes = ax1;
	ro.n_axes = 1;
	ro.keep_dimensions = true;
	struct webnn_operand *sum = NULL, *am = NULL;
	OK(ctx, webnn_builder_reduce_sum(b, parts[2], &ro, &sum));
	struct webnn_arg_min_max_options amo = WEBNN_ARG_MIN_MAX_OPTIONS_INIT;
	amo.output_data_type = WEBNN_INT64;
	OK(ctx, webnn_builder_arg_max(b, x, 1, &amo, &am));
	const uint32_t s21[] = { 2, 1 }, s2[] = { 2 };
	ct_assert_shape(sum, WEBNN_FLOAT32, 2, s21);
	ct_assert_shape(am, WEBNN_INT64, 1, s2);

	float xin[12] = { 1, 2, 3, 4, 5, 6, 9, 8, 7, -1, -2, -3 };
	float p1[4], s[2];
	int64_t idx[2];
	const struct ct_io in[] = { { "x", NULL, xin } };
	const struct ct_io outs[] = { { "middle", parts[1], p1 },
				       { "sum", sum, s },
				       { "argmax", am, idx } };
	ct_run(ctx, b, "split+reduceSum+argMax", in, 1, outs, 3);
	const float want_p1[] = { 2, 3, 8, 7 }, want_s[] = { 15, -6 };
	ct_assert_floats("middle", p1, want_p1, 4, 0);
	ct_assert_floats("sum", s, want_s, 2, 0);
	ASSERT_EQ(idx[0], 5);
	ASSERT_EQ(idx[1], 0);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(client_builders_graph_data_movement)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client_builders");
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	const uint32_t s23[] = { 2, 3 }, s2[] = { 2 };
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, s23);

	/* pad with a constant, then slice every other column */
	const uint32_t pb[] = { 0, 1 }, pe[] = { 0, 1 };
	struct webnn_pad_options po = WEBNN_PAD_OPTIONS_INIT;
	po.value = -1;
	struct webnn_operand *padded = NULL, *sliced = NULL, *tiled = NULL, *gathered = NULL;
	struct webnn_operand *tri = NULL, *rev = NULL, *cs = NULL, *cond = NULL, *sel = NULL;
	OK(ctx, webnn_builder_pad(b, x, pb, 2, pe, 2, &po, &padded));
	const uint32_t st[] = { 0, 0 }, sz[] = { 2, 5 }, strides[] = { 1, 2 };
	struct webnn_slice_options slo = WEBNN_SLICE_OPTIONS_INIT;
	slo.strides = strides;
	slo.n_strides = 2;
	OK(ctx, webnn_builder_slice(b, padded, st, 2, sz, 2, &slo, &sliced));
	/* tile the first row twice along columns via gather + tile */
	const int32_t row0[] = { 0 };
	const uint32_t s1[] = { 1 };
	struct webnn_operand *ind = ct_const(ctx, b, WEBNN_INT32, 1, s1, row0);
	OK(ctx, webnn_builder_gather(b, x, ind, NULL, &gathered));
	const uint32_t reps[] = { 1, 2 };
	OK(ctx, webnn_builder_tile(b, gathered, reps, 2, &tiled));
	struct webnn_triangular_options to = WEBNN_TRIANGULAR_OPTIONS_INIT;
	to.upper = false;
	OK(ctx, webnn_builder_triangular(b, x, &to, &tri));
	const uint32_t ax1[] = { 1 };
	struct webnn_reverse_options rvo = WEBNN_REVERSE_OPTIONS_INIT;
	rvo.axes = ax1;
	rvo.n_axes = 1;
	OK(ctx, webnn_builder_reverse(b, x, &rvo, &rev));
	struct webnn_cumulative_sum_options cso = WEBNN_CUMULATIVE_SUM_OPTIONS_INIT;
	cso.exclusive = true;
	OK(ctx, webnn_builder_cumulative_sum(b, x, 1, &cso, &cs));
	const uint8_t cbits[] = { 1, 0 };
	cond = ct_const(ctx, b, WEBNN_UINT8, 1, s2, cbits);
	const uint32_t s21[] = { 2, 1 };
	struct webnn_operand *cond2 = NULL;
	OK(ctx, webnn_builder_reshape(b, cond, s21, 2, &cond2));
	OK(ctx, webnn_builder_where(b, cond2, x, rev, &sel));

	float xin[6] = { 1, 2, 3, 4, 5, 6 };
	float o_sl[6], o_tile[6], o_tri[6], o_rev[6], o_cs[6], o_sel[6];
	const struct ct_io in[] = { { "x", NULL, xin } };
	const struct ct_io outs[] = { { "sliced", sliced, o_sl },  { "tiled", tiled, o_tile },
				       { "tri", tri, o_tri },        { "rev", rev, o_rev },
				       { "cumsum", cs, o_cs },       { "where", sel, o_sel } };
	ct_run(ctx, b, "pad/slice/gather/tile/triangular/reverse/cumulativeSum/where", in, 1,
	       outs, 6);
	const float w_sl[] = { -1, 2, -1, -1, 5, -1 }, w_tile[] = { 1, 2, 3, 1, 2, 3 },
		    w_tri[] = { 1, 0, 0, 4, 5, 0 }, w_rev[] = { 3, 2, 1, 6, 5, 4 },
		    w_cs[] = { 0, 1, 3, 0, 4, 9 }, w_sel[] = { 1, 2, 3, 6, 5, 4 };
	ct_assert_floats("sliced", o_sl, w_sl, 6, 0);
	ct_assert_floats("tiled", o_tile, w_tile, 6, 0);
	ct_assert_floats("triangular", o_tri, w_tri, 6, 0);
	ct_assert_floats("reverse", o_rev, w_rev, 6, 0);
	ct_assert_floats("cumulativeSum", o_cs, w_cs, 6, 0);
	ct_assert_floats("where", o_sel, w_sel, 6, 0);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* 64-bit MLNumbers stay exact end to end: 2^53 + 1 is not a double. */
TEST(client_builders_graph_exact_int64_numbers)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client_builders");
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	const uint32_t s2[] = { 2 }, one[] = { 1 };
	const int64_t big = (INT64_C(1) << 53) + 1;
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_INT64, 1, s2);
	struct webnn_operand *padded = NULL, *clamped = NULL, *casted = NULL;
	struct webnn_pad_options po = WEBNN_PAD_OPTIONS_INIT;
	po.value_number = WEBNN_NUMBER_I64(big);
	OK(ctx, webnn_builder_pad(b, x, one, 1, one, 1, &po, &padded));
	struct webnn_clamp_options co = WEBNN_CLAMP_OPTIONS_INIT;
	co.min_number = WEBNN_NUMBER_I64(big);
	OK(ctx, webnn_builder_clamp(b, x, &co, &clamped));
	OK(ctx, webnn_builder_cast(b, x, WEBNN_INT32, &casted));
	int64_t xin[2] = { 5, INT64_C(1) << 60 };
	int64_t o_pad[4], o_clamp[2];
	int32_t o_cast[2];
	const struct ct_io in[] = { { "x", NULL, xin } };
	const struct ct_io outs[] = { { "pad", padded, o_pad },
				       { "clamp", clamped, o_clamp },
				       { "cast", casted, o_cast } };
	ct_run(ctx, b, "pad/clamp int64", in, 1, outs, 3);
	ASSERT(o_pad[0] == big && o_pad[1] == 5 && o_pad[2] == (INT64_C(1) << 60) &&
	       o_pad[3] == big);
	ASSERT(o_clamp[0] == big && o_clamp[1] == (INT64_C(1) << 60));
	ASSERT_EQ(o_cast[0], 5);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(client_builders_graph_normalization_resample_quantize)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "test_client_builders");
	struct webnn_builder *b = NULL;
	OK(ctx, webnn_builder_create(ctx, &b));
	const uint32_t s1122[] = { 1, 1, 2, 2 };
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 4, s1122);
	struct webnn_operand *ln = NULL, *inorm = NULL, *up = NULL, *q = NULL, *dq = NULL;
	OK(ctx, webnn_builder_layer_normalization(b, x, NULL, &ln));
	struct webnn_instance_normalization_options io = WEBNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
	io.epsilon = 0;
	OK(ctx, webnn_builder_instance_normalization(b, x, &io, &inorm));
	struct webnn_resample2d_options ro = WEBNN_RESAMPLE2D_OPTIONS_INIT;
	ro.scales[0] = ro.scales[1] = 2;
	ro.n_scales = 2;
	OK(ctx, webnn_builder_resample2d(b, x, &ro, &up));
	const uint32_t s1144[] = { 1, 1, 4, 4 };
	ct_assert_shape(up, WEBNN_FLOAT32, 4, s1144);
	const float scale[] = { 0.5f };
	const uint8_t zp[] = { 10 };
	/* scale and zeroPoint have the input's rank (blockwise over the whole tensor here) */
	const uint32_t s1111[] = { 1, 1, 1, 1 };
	struct webnn_operand *sc = ct_const(ctx, b, WEBNN_FLOAT32, 4, s1111, scale);
	struct webnn_operand *z = ct_const(ctx, b, WEBNN_UINT8, 4, s1111, zp);
	OK(ctx, webnn_builder_quantize_linear(b, x, sc, z, &q));
	ct_assert_shape(q, WEBNN_UINT8, 4, s1122);
	OK(ctx, webnn_builder_dequantize_linear(b, q, sc, z, &dq));

	float xin[4] = { 1, 2, 3, 4 };
	float o_ln[4], o_in[4], o_up[16], o_dq[4];
	uint8_t o_q[4];
	const struct ct_io in[] = { { "x", NULL, xin } };
	const struct ct_io outs[] = { { "ln", ln, o_ln },   { "in", inorm, o_in },
				       { "up", up, o_up },   { "q", q, o_q },
				       { "dq", dq, o_dq } };
	ct_run(ctx, b, "layerNorm/instanceNorm/resample2d/quantize", in, 1, outs, 5);
	/* mean 2.5, variance 1.25 over all four values */
	const float r = 1.0f / sqrtf(1.25f);
	const float w_in[] = { -1.5f * r, -0.5f * r, 0.5f * r, 1.5f * r };
	ct_assert_floats("instanceNormalization", o_in, w_in, 4, 1e-5f);
	ct_assert_floats("layerNormalization", o_ln, w_in, 4, 1e-4f);
	const float w_up[] = { 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4 };
	ct_assert_floats("resample2d", o_up, w_up, 16, 0);
	ASSERT(o_q[0] == 12 && o_q[1] == 14 && o_q[2] == 16 && o_q[3] == 18);
	ct_assert_floats("dequantizeLinear", o_dq, xin, 4, 0);
	webnn_builder_destroy(b);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* ---- the public operator list, option defaults and headers */

/* The _INIT macros state the scalar defaults for C callers; the builder applies ops.def's
 * (wnn_ops[].defaults). The two must agree. */
TEST(client_option_init_macros_mirror_ops_def)
{
	const struct webnn_elu_options elu = WEBNN_ELU_OPTIONS_INIT;
	const struct webnn_leaky_relu_options leaky = WEBNN_LEAKY_RELU_OPTIONS_INIT;
	const struct webnn_hard_sigmoid_options hs = WEBNN_HARD_SIGMOID_OPTIONS_INIT;
	const struct webnn_linear_options lin = WEBNN_LINEAR_OPTIONS_INIT;
	const struct webnn_gemm_options gemm = WEBNN_GEMM_OPTIONS_INIT;
	const struct webnn_batch_normalization_options bn = WEBNN_BATCH_NORMALIZATION_OPTIONS_INIT;
	const struct webnn_instance_normalization_options in =
		WEBNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
	const struct webnn_layer_normalization_options ln = WEBNN_LAYER_NORMALIZATION_OPTIONS_INIT;
	const struct {
		const char *what;
		double init;
		double ops_def;
	} rows[] = {
		{ "elu alpha", elu.alpha, wnn_ops[WNN_OP_ELU].defaults.alpha },
		{ "leakyRelu alpha", leaky.alpha, wnn_ops[WNN_OP_LEAKY_RELU].defaults.alpha },
		{ "hardSigmoid alpha", hs.alpha, wnn_ops[WNN_OP_HARD_SIGMOID].defaults.alpha },
		{ "hardSigmoid beta", hs.beta, wnn_ops[WNN_OP_HARD_SIGMOID].defaults.beta },
		{ "linear alpha", lin.alpha, wnn_ops[WNN_OP_LINEAR].defaults.alpha },
		{ "linear beta", lin.beta, wnn_ops[WNN_OP_LINEAR].defaults.beta },
		{ "gemm alpha", gemm.alpha, wnn_ops[WNN_OP_GEMM].defaults.alpha },
		{ "gemm beta", gemm.beta, wnn_ops[WNN_OP_GEMM].defaults.beta },
		{ "batchNormalization epsilon", bn.epsilon,
		  wnn_ops[WNN_OP_BATCH_NORMALIZATION].defaults.epsilon },
		{ "instanceNormalization epsilon", in.epsilon,
		  wnn_ops[WNN_OP_INSTANCE_NORMALIZATION].defaults.epsilon },
		{ "layerNormalization epsilon", ln.epsilon,
		  wnn_ops[WNN_OP_LAYER_NORMALIZATION].defaults.epsilon },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ASSERT_MSG(rows[i].init == rows[i].ops_def, "%s: the _INIT macro says %.17g, ops.def %.17g",
			   rows[i].what, rows[i].init, rows[i].ops_def);
}

/* One generated row of WEBNN_BUILDER_FORMS: its spec name is an ops.def operator and its form
 * matches that operator's attrs kind (UNARY_OPTIONS: a unary operator with scalar defaults). */
static void check_form(const char *spec, const char *form)
{
	enum wnn_op op = wnn_op_from_name(spec);
	ASSERT_MSG(op < WNN_OP_COUNT, "%s: not an operator of ops.def", spec);
	const struct wnn_op_info *info = &wnn_ops[op];
	bool unary = info->attrs == WNN_ATTRS_UNARY;
	bool scalar = info->defaults.alpha != 0 || info->defaults.beta != 0 ||
		      info->defaults.epsilon != 0;
	const char *want = unary && scalar ? "UNARY_OPTIONS"
			   : unary			       ? "UNARY"
			   : info->attrs == WNN_ATTRS_BINARY ? "BINARY"
			   : info->attrs == WNN_ATTRS_REDUCE ? "REDUCE"
										 : "OWN";
	ASSERT_MSG(strcmp(form, want) == 0, "%s: form %s, expected %s", spec, form, want);
}

TEST(client_builder_forms_cover_ops_def)
{
	size_t rows = 0;
#define CHECK_FORM_(spec, c, FORM)                                                             \
	check_form(#spec, #FORM);                                                              \
	rows++;
	WEBNN_BUILDER_FORMS(CHECK_FORM_)
#undef CHECK_FORM_
	ASSERT_EQ(rows, (size_t)WNN_OP_COUNT);
}

/* What a program using only the installed headers compiles: every form's signature, the
 * operator list and an _INIT macro. */
static const char standalone_program[] =
	"#include <webnn.h>\n"
	"#define COUNT_(spec, c, FAMILY, ATTRS) +1\n"
	"enum { N_OPERATORS = 0 WEBNN_OPERATORS(COUNT_) };\n"
	"typedef struct webnn_operand operand;\n"
	"int main(void)\n{\n"
	"\tenum webnn_status (*bin)(struct webnn_builder *, operand *, operand *, operand **) =\n"
	"\t\twebnn_builder_not_equal;\n"
	"\tenum webnn_status (*un)(struct webnn_builder *, operand *, operand **) =\n"
	"\t\twebnn_builder_is_nan;\n"
	"\tenum webnn_status (*unopt)(struct webnn_builder *, operand *,\n"
	"\t\tconst struct webnn_leaky_relu_options *, operand **) = webnn_builder_leaky_relu;\n"
	"\tenum webnn_status (*red)(struct webnn_builder *, operand *,\n"
	"\t\tconst struct webnn_reduce_options *, operand **) = webnn_builder_reduce_sum;\n"
	"\tstruct webnn_conv2d_options o = WEBNN_CONV2D_OPTIONS_INIT;\n"
	"\treturn !(bin && un && unopt && red && o.groups == 1 && N_OPERATORS > 90);\n"
	"}\n";

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb");
	ASSERT_MSG(in, "cannot open %s (run the tests from the source tree)", from);
	FILE *out = fopen(to, "wb");
	ASSERT_MSG(out, "cannot create %s", to);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		ASSERT(fwrite(buf, 1, n, out) == n);
	fclose(in);
	ASSERT(fclose(out) == 0);
}

/* The headers `make install` puts in INCLUDEDIR (webnn.h, webnn_types.h, the generated
 * webnn_ops.h) are the whole public interface: a C program including <webnn.h> compiles
 * against them alone. */
TEST(client_public_headers_stand_alone)
{
	char dir[4096];
	test_scratch_dir(dir, sizeof(dir), "webnn-headers");
	char path[4200], ops[4200], cmd[12800];
	/* where make install takes them from */
	const char *names[] = { "client/include/webnn.h", "proto/include/webnn_types.h" };
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, strrchr(names[i], '/') + 1);
		copy_file(names[i], path);
	}
	snprintf(ops, sizeof(ops), "%s/gen/webnn_ops.h", test_build_dir());
	snprintf(path, sizeof(path), "%s/webnn_ops.h", dir);
	copy_file(ops, path);
	snprintf(path, sizeof(path), "%s/use.c", dir);
	FILE *f = fopen(path, "w");
	ASSERT(f && fputs(standalone_program, f) >= 0 && fclose(f) == 0);
	const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
	snprintf(cmd, sizeof(cmd),
		 "%s -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I%s %s 2>&1", cc,
		 dir, path);
	int rc = system(cmd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT(system(cmd) == 0);
	ASSERT_MSG(rc == 0, "a program including only <webnn.h> does not compile (%s)", cc);
}
