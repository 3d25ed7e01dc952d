/* Reference backend tests: hand-computed results per operator and option, support table, single-node evaluation. */
#include <math.h>

#include "tests/reftest.h"
#include "tests/test.h"

/* ---- helpers */

/* Message constructors: create every operand of an operation before its message, because the
 * message takes the next operand id for its output. */
static uint32_t binary(struct tg_graph *t, enum wnn_op which, uint32_t a, uint32_t b)
{
	Webnn__Ipc__ElementwiseBinary init = WEBNN__IPC__ELEMENTWISE_BINARY__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->a = a, m->b = b, m->output = tg_next(t);
	return rt_op(t, which, m);
}

static uint32_t unary_ab(struct tg_graph *t, enum wnn_op which, uint32_t x, bool has_alpha,
			 double alpha, bool has_beta, double beta)
{
	Webnn__Ipc__ElementwiseUnary init = WEBNN__IPC__ELEMENTWISE_UNARY__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = x, m->output = tg_next(t);
	m->has_alpha = has_alpha, m->alpha = alpha;
	m->has_beta = has_beta, m->beta = beta;
	return rt_op(t, which, m);
}

static uint32_t unary(struct tg_graph *t, enum wnn_op which, uint32_t x)
{
	return unary_ab(t, which, x, false, 0, false, 0);
}

static Webnn__Ipc__Conv2d *conv_msg(struct tg_graph *t, uint32_t in, uint32_t filter)
{
	Webnn__Ipc__Conv2d init = WEBNN__IPC__CONV2D__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = in, m->filter = filter, m->output = tg_next(t);
	return m;
}

static Webnn__Ipc__Pool2d *pool_msg(struct tg_graph *t, uint32_t in)
{
	Webnn__Ipc__Pool2d init = WEBNN__IPC__POOL2D__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = in, m->output = tg_next(t);
	return m;
}

static Webnn__Ipc__Gemm *gemm_msg(struct tg_graph *t, uint32_t a, uint32_t b)
{
	Webnn__Ipc__Gemm init = WEBNN__IPC__GEMM__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->a = a, m->b = b, m->output = tg_next(t);
	return m;
}

static Webnn__Ipc__BatchNormalization *bn_msg(struct tg_graph *t, uint32_t in, uint32_t mean,
					       uint32_t var)
{
	Webnn__Ipc__BatchNormalization init = WEBNN__IPC__BATCH_NORMALIZATION__INIT;
	Webnn__Ipc__BatchNormalization *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = in, m->mean = mean, m->variance = var, m->output = tg_next(t);
	return m;
}

/* ---- elementwise binary */

TEST(ref_add_broadcast_f32)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(2, 3)), b = tg_input(&t, WNN_F32, SHAPE(3));
	uint32_t o = binary(&t, WNN_OP_ADD, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 3));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(10, 20, 30)), D(11, 22, 33, 14, 25, 36), 0);
	tg_free(&t);
}

TEST(ref_broadcast_both_ways_and_scalar)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(2, 1)), b = tg_input(&t, WNN_F32, SHAPE(1, 3));
	uint32_t o = binary(&t, WNN_OP_MUL, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 3));
	rt_expect(&t, INS(D(1, 2), D(10, 20, 30)), D(10, 20, 30, 20, 40, 60), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(3));
	b = tg_input(&t, WNN_F32, 0, NULL);
	binary(&t, WNN_OP_SUB, a, b);
	rt_expect(&t, INS(D(1, 2, 3), D(5)), D(-4, -3, -2), 0);
	tg_free(&t);
}

TEST(ref_binary_float_ops)
{
	static const struct {
		enum wnn_op op;
		double want[4];
	} cases[] = {
		{ WNN_OP_ADD, { 3, 2, 2, 1 } },
		{ WNN_OP_SUB, { -1, -6, 4, 0 } },
		{ WNN_OP_MUL, { 2, -8, -3, 0.25 } },
		{ WNN_OP_DIV, { 0.5, -0.5, -3, 1 } },
		{ WNN_OP_MAX, { 2, 4, 3, 0.5 } },
		{ WNN_OP_MIN, { 1, -2, -1, 0.5 } },
		{ WNN_OP_POW, { 1, 16, 1.0 / 3, 0.70710678118654752 } },
		{ WNN_OP_EQUAL, { 0, 0, 0, 1 } },
		{ WNN_OP_NOT_EQUAL, { 1, 1, 1, 0 } },
		{ WNN_OP_GREATER, { 0, 0, 1, 0 } },
		{ WNN_OP_GREATER_OR_EQUAL, { 0, 0, 1, 1 } },
		{ WNN_OP_LESSER, { 1, 1, 0, 0 } },
		{ WNN_OP_LESSER_OR_EQUAL, { 1, 1, 0, 1 } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int f16 = 0; f16 < 2; f16++) {
			struct tg_graph t;
			enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
			tg_init(&t);
			uint32_t a = tg_input(&t, ty, SHAPE(4)), b = tg_input(&t, ty, SHAPE(4));
			uint32_t o = binary(&t, cases[i].op, a, b);
			ASSERT_EQ(t.descs[o].type, wnn_ops[cases[i].op].out == WNN_OUT_U8 ? WNN_U8 : ty);
			rt_expect(&t, INS(D(1, -2, 3, 0.5), D(2, 4, -1, 0.5)), cases[i].want, 1);
			tg_free(&t);
		}
	}
}

TEST(ref_binary_integers_wrap_and_divide_by_zero)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_I32, SHAPE(4)), b = tg_input(&t, WNN_I32, SHAPE(4));
	binary(&t, WNN_OP_ADD, a, b);
	rt_expect(&t, INS(D(2147483647, -5, 7, -2147483648.0), D(1, 3, -9, -1)),
	       D(-2147483648.0, -2, -2, 2147483647), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_I32, SHAPE(4));
	b = tg_input(&t, WNN_I32, SHAPE(4));
	binary(&t, WNN_OP_DIV, a, b);
	rt_expect(&t, INS(D(7, -7, 5, -2147483648.0), D(2, 2, 0, -1)), D(3, -3, 0, -2147483648.0), 0);
	tg_free(&t);

	/* INT64_MIN / -1 must neither trap nor be undefined: it wraps */
	tg_init(&t);
	a = tg_input(&t, WNN_I64, SHAPE(2));
	b = tg_input(&t, WNN_I64, SHAPE(2));
	binary(&t, WNN_OP_DIV, a, b);
	rt_expect(&t, INS(D(-9223372036854775808.0, 9), D(-1, -4)), D(-9223372036854775808.0, -2), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_U32, SHAPE(2));
	b = tg_input(&t, WNN_U32, SHAPE(2));
	binary(&t, WNN_OP_SUB, a, b);
	rt_expect(&t, INS(D(1, 10), D(2, 3)), D(4294967295.0, 7), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_I8, SHAPE(3));
	b = tg_input(&t, WNN_I8, SHAPE(3));
	binary(&t, WNN_OP_ADD, a, b);
	rt_expect(&t, INS(D(100, -100, 1), D(100, -100, 2)), D(-56, 56, 3), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_I32, SHAPE(3));
	b = tg_input(&t, WNN_I32, SHAPE(3));
	binary(&t, WNN_OP_MAX, a, b);
	rt_expect(&t, INS(D(-1, 5, 0), D(-2, 7, 0)), D(-1, 7, 0), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_U64, SHAPE(2));
	b = tg_input(&t, WNN_U64, SHAPE(2));
	uint32_t o = binary(&t, WNN_OP_GREATER, a, b);
	ASSERT_EQ(t.descs[o].type, WNN_U8);
	rt_expect(&t, INS(D(18446744073709549568.0, 1), D(1, 2)), D(1, 0), 0);
	tg_free(&t);
}

TEST(ref_logical_ops)
{
	static const struct {
		enum wnn_op op;
		double want[4];
	} cases[] = {
		{ WNN_OP_LOGICAL_AND, { 0, 0, 0, 1 } },
		{ WNN_OP_LOGICAL_OR, { 0, 1, 1, 1 } },
		{ WNN_OP_LOGICAL_XOR, { 0, 1, 1, 0 } },
	};
	for (size_t i = 0; i < 3; i++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t a = tg_input(&t, WNN_U8, SHAPE(4)), b = tg_input(&t, WNN_U8, SHAPE(4));
		binary(&t, cases[i].op, a, b);
		rt_expect(&t, INS(D(0, 0, 7, 255), D(0, 3, 0, 1)), cases[i].want, 0);
		tg_free(&t);
	}
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_U8, SHAPE(3));
	unary(&t, WNN_OP_LOGICAL_NOT, x);
	rt_expect(&t, INS(D(0, 1, 200)), D(1, 0, 0), 0);
	tg_free(&t);
}

/* ---- elementwise unary */

static void unary_case(enum wnn_op op, enum wnn_dtype ty, const double *x, const double *want,
		       size_t n, double ulp)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t in = tg_input(&t, ty, 1, (uint32_t[]){ (uint32_t)n });
	unary(&t, op, in);
	void **outs = rt_run(&t, INS(x));
	char msg[256];
	const struct wnn_desc *d = &t.descs[t.output_ids[0]];
	if (!tg_compare_values(outs[0], d->type, want, n, ulp, 0, msg, sizeof(msg)))
		FAIL("%s %s: %s", wnn_ops[op].name, wnn_dtype_name(ty), msg);
	tg_free(&t);
}

TEST(ref_unary_exact_float_ops)
{
	const double *x = D(-2, -0.5, 0, 1.5);
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		unary_case(WNN_OP_ABS, ty, x, D(2, 0.5, 0, 1.5), 4, 0);
		unary_case(WNN_OP_CEIL, ty, x, D(-2, -0.0, 0, 2), 4, 0);
		unary_case(WNN_OP_FLOOR, ty, x, D(-2, -1, 0, 1), 4, 0);
		unary_case(WNN_OP_NEG, ty, x, D(2, 0.5, -0.0, -1.5), 4, 0);
		unary_case(WNN_OP_RELU, ty, x, D(0, 0, 0, 1.5), 4, 0);
		unary_case(WNN_OP_SIGN, ty, x, D(-1, -1, 0, 1), 4, 0);
		unary_case(WNN_OP_IDENTITY, ty, x, x, 4, 0);
		unary_case(WNN_OP_RECIPROCAL, ty, x, D(-0.5, -2, INFINITY, 1 / 1.5), 4, 1);
		unary_case(WNN_OP_ROUND_EVEN, ty, D(-2.5, 0.5, 1.5, 2.5), D(-2, 0, 2, 2), 4, 0);
		unary_case(WNN_OP_SQRT, ty, D(4, 2, 0, 0.25), D(2, 1.4142135623730951, 0, 0.5), 4, 1);
		unary_case(WNN_OP_IS_NAN, ty, D(NAN, INFINITY, -INFINITY, 1), D(1, 0, 0, 0), 4, 0);
		unary_case(WNN_OP_IS_INFINITE, ty, D(NAN, INFINITY, -INFINITY, 1), D(0, 1, 1, 0), 4, 0);
	}
}

TEST(ref_unary_transcendental_ops)
{
	const double x[4] = { -1.25, -0.5, 0.25, 2 };
	double want[4];
	static const enum wnn_op ops[] = { WNN_OP_COS,     WNN_OP_ERF,      WNN_OP_EXP,
					   WNN_OP_SIN,     WNN_OP_TAN,      WNN_OP_TANH,
					   WNN_OP_SIGMOID, WNN_OP_SOFTPLUS, WNN_OP_SOFTSIGN,
					   WNN_OP_GELU,    WNN_OP_HARD_SWISH };
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		for (int i = 0; i < 4; i++) {
			double v = x[i];
			switch (ops[k]) {
			case WNN_OP_COS: want[i] = cos(v); break;
			case WNN_OP_ERF: want[i] = erf(v); break;
			case WNN_OP_EXP: want[i] = exp(v); break;
			case WNN_OP_SIN: want[i] = sin(v); break;
			case WNN_OP_TAN: want[i] = tan(v); break;
			case WNN_OP_TANH: want[i] = tanh(v); break;
			case WNN_OP_SIGMOID: want[i] = 1 / (1 + exp(-v)); break;
			case WNN_OP_SOFTPLUS: want[i] = log(1 + exp(v)); break;
			case WNN_OP_SOFTSIGN: want[i] = v / (1 + fabs(v)); break;
			case WNN_OP_GELU: want[i] = 0.5 * v * (1 + erf(v / sqrt(2))); break;
			default: want[i] = v * fmin(fmax(v + 3, 0), 6) / 6; break;
			}
		}
		unary_case(ops[k], WNN_F32, x, want, 4, 1);
		unary_case(ops[k], WNN_F16, x, want, 4, 1);
	}
	unary_case(WNN_OP_LOG, WNN_F32, D(1, 2.718281828459045, 0.5, 0), D(0, 1, -0.6931471805599453, -INFINITY), 4, 1);
	/* hard-swish corners: -3 and +3 */
	unary_case(WNN_OP_HARD_SWISH, WNN_F32, D(-4, -3, 3, 4), D(0, 0, 3, 4), 4, 0);
}

TEST(ref_unary_alpha_beta_defaults_and_options)
{
	const double *x = D(-2, -0.5, 0, 3);
	/* elu: alpha 1 */
	unary_case(WNN_OP_ELU, WNN_F32, x, D(expm1(-2), expm1(-0.5), 0, 3), 4, 1);
	/* leakyRelu: alpha 0.01 */
	unary_case(WNN_OP_LEAKY_RELU, WNN_F32, x, D(-0.02, -0.005, 0, 3), 4, 1);
	/* hardSigmoid: 0.2 x + 0.5 clamped to [0, 1] */
	unary_case(WNN_OP_HARD_SIGMOID, WNN_F32, x, D(0.1, 0.4, 0.5, 1), 4, 1);
	/* linear: 1 x + 0 */
	unary_case(WNN_OP_LINEAR, WNN_F32, x, x, 4, 0);

	static const struct {
		enum wnn_op op;
		double alpha, beta;
		bool has_beta;
		double want[4];
	} cases[] = {
		{ WNN_OP_ELU, 2, 0, false, { 0, 0, 0, 3 } },
		{ WNN_OP_LEAKY_RELU, 0.5, 0, false, { -1, -0.25, 0, 3 } },
		{ WNN_OP_HARD_SIGMOID, 0.5, 0.25, true, { 0, 0, 0.25, 1 } },
		{ WNN_OP_LINEAR, 2, 1, true, { -3, 0, 1, 7 } },
	};
	for (size_t i = 0; i < 4; i++) {
		double want[4];
		memcpy(want, cases[i].want, sizeof(want));
		if (cases[i].op == WNN_OP_ELU)
			want[0] = 2 * expm1(-2), want[1] = 2 * expm1(-0.5);
		for (int f16 = 0; f16 < 2; f16++) {
			struct tg_graph t;
			tg_init(&t);
			uint32_t in = tg_input(&t, f16 ? WNN_F16 : WNN_F32, SHAPE(4));
			unary_ab(&t, cases[i].op, in, true, cases[i].alpha, cases[i].has_beta,
				 cases[i].beta);
			rt_expect(&t, INS(x), want, 1);
			tg_free(&t);
		}
	}
}

TEST(ref_unary_integers)
{
	const double *x = D(-7, 0, 5, -2147483648.0);
	unary_case(WNN_OP_ABS, WNN_I32, x, D(7, 0, 5, -2147483648.0), 4, 0);
	unary_case(WNN_OP_NEG, WNN_I32, x, D(7, 0, -5, -2147483648.0), 4, 0);
	unary_case(WNN_OP_SIGN, WNN_I32, x, D(-1, 0, 1, -1), 4, 0);
	unary_case(WNN_OP_RELU, WNN_I32, x, D(0, 0, 5, 0), 4, 0);
	unary_case(WNN_OP_IDENTITY, WNN_I32, x, x, 4, 0);
	unary_case(WNN_OP_ABS, WNN_I8, D(-128, -3, 3, 127), D(-128, 3, 3, 127), 4, 0);
	unary_case(WNN_OP_NEG, WNN_I64, D(-9223372036854775808.0, 3), D(-9223372036854775808.0, -3), 2, 0);
	unary_case(WNN_OP_RELU, WNN_I64, D(-4, 4), D(0, 4), 2, 0);

	/* uint64 values above 2^53 go through bit-exactly */
	struct tg_graph t;
	tg_init(&t);
	uint32_t in = tg_input(&t, WNN_U64, SHAPE(2));
	unary(&t, WNN_OP_IDENTITY, in);
	const struct graph_ir *g = tg_finish(&t, &(struct wnn_diag){ 0 });
	ASSERT(g);
	uint64_t src[2] = { UINT64_MAX, (1ull << 60) + 1 }, dst[2] = { 0, 0 };
	struct wnn_diag diag = { 0 };
	ASSERT_EQ(tg_run(&backend_reference, NULL, g, (const void *const[]){ src },
			 (void *const[]){ dst }, &diag), WEBNN_STATUS_OK);
	ASSERT(dst[0] == UINT64_MAX && dst[1] == (1ull << 60) + 1);
	tg_free(&t);
}

/* ---- clamp */

static Webnn__Ipc__Clamp *clamp_msg(struct tg_graph *t, uint32_t in)
{
	Webnn__Ipc__Clamp init = WEBNN__IPC__CLAMP__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = in, m->output = tg_next(t);
	return m;
}

TEST(ref_clamp_float)
{
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		struct tg_graph t;
		tg_init(&t);
		uint32_t in = tg_input(&t, ty, SHAPE(5));
		Webnn__Ipc__Clamp *m = clamp_msg(&t, in);
		m->min_value = rt_number(-1);
		m->max_value = rt_number(2);
		rt_op(&t, WNN_OP_CLAMP, m);
		rt_expect(&t, INS(D(-5, -1, 0.5, 1, 5)), D(-1, -1, 0.5, 1, 2), 0);
		tg_free(&t);

		tg_init(&t);
		in = tg_input(&t, ty, SHAPE(3));
		m = clamp_msg(&t, in);
		m->min_value = rt_number(0);
		rt_op(&t, WNN_OP_CLAMP, m);
		rt_expect(&t, INS(D(-5, 0.25, 1000)), D(0, 0.25, 1000), 0);
		tg_free(&t);

		tg_init(&t);
		in = tg_input(&t, ty, SHAPE(3));
		rt_op(&t, WNN_OP_CLAMP, clamp_msg(&t, in));
		rt_expect(&t, INS(D(-INFINITY, 3, INFINITY)), D(-INFINITY, 3, INFINITY), 0);
		tg_free(&t);
	}
}

TEST(ref_clamp_integers_exact)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t in = tg_input(&t, WNN_I64, SHAPE(3));
	Webnn__Ipc__Clamp *m = clamp_msg(&t, in);
	Webnn__Ipc__Number lo = WEBNN__IPC__NUMBER__INIT;
	lo.value_case = WEBNN__IPC__NUMBER__VALUE_I;
	lo.i = (1ll << 62) + 1; /* not representable as a double */
	m->min_value = &lo;
	rt_op(&t, WNN_OP_CLAMP, m);
	const struct graph_ir *g = tg_finish(&t, &(struct wnn_diag){ 0 });
	ASSERT(g);
	int64_t src[3] = { 1ll << 62, (1ll << 62) + 2, -5 }, dst[3];
	struct wnn_diag diag = { 0 };
	ASSERT_EQ(tg_run(&backend_reference, NULL, g, (const void *const[]){ src },
			 (void *const[]){ dst }, &diag), WEBNN_STATUS_OK);
	ASSERT(dst[0] == (1ll << 62) + 1 && dst[1] == (1ll << 62) + 2 && dst[2] == (1ll << 62) + 1);
	tg_free(&t);

	tg_init(&t);
	in = tg_input(&t, WNN_U8, SHAPE(4));
	m = clamp_msg(&t, in);
	m->min_value = rt_number(10);
	m->max_value = rt_number(200);
	rt_op(&t, WNN_OP_CLAMP, m);
	rt_expect(&t, INS(D(5, 100, 250, 200)), D(10, 100, 200, 200), 0);
	tg_free(&t);

	/* a bound outside the type saturates (casting) */
	tg_init(&t);
	in = tg_input(&t, WNN_I8, SHAPE(3));
	m = clamp_msg(&t, in);
	m->min_value = rt_number(-1000);
	m->max_value = rt_number(3);
	rt_op(&t, WNN_OP_CLAMP, m);
	rt_expect(&t, INS(D(-128, 0, 127)), D(-128, 0, 3), 0);
	tg_free(&t);
}

/* ---- conv2d. Input 1..9 as 3x3; the filter of two output channels is, as [o][ky][kx],
 * o0 = {1,0,0,1}, o1 = {0,1,2,0}. */

static const double iota9[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };

TEST(ref_conv2d_basic_and_f16)
{
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, ty, SHAPE(1, 1, 3, 3));
		uint32_t f = rt_constant(&t, ty, SHAPE(1, 1, 2, 2), D(1, 0, 0, 1));
		uint32_t o = rt_op(&t, WNN_OP_CONV2D, conv_msg(&t, x, f));
		rt_expect_shape(&t, o, SHAPE(1, 1, 2, 2));
		rt_expect(&t, INS(iota9), D(6, 8, 12, 14), 0);
		tg_free(&t);
	}
}

TEST(ref_conv2d_padding_strides_dilations_bias)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
	uint32_t f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 1, 1, 1));
	Webnn__Ipc__Conv2d *m = conv_msg(&t, x, f);
	LIST(m, padding, 1, 1, 1, 1);
	LIST(m, strides, 2, 2);
	uint32_t o = rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 2, 2));
	rt_expect(&t, INS(iota9), D(1, 5, 11, 28), 0);
	tg_free(&t);

	/* asymmetric padding: only the bottom and right */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
	f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 1, 1, 1));
	m = conv_msg(&t, x, f);
	LIST(m, padding, 0, 1, 0, 1);
	LIST(m, strides, 2, 2);
	o = rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 2, 2));
	rt_expect(&t, INS(iota9), D(12, 9, 15, 9), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
	f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 1, 1, 1));
	m = conv_msg(&t, x, f);
	LIST(m, dilations, 2, 2);
	o = rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 1, 1));
	rt_expect(&t, INS(iota9), D(20), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
	f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 0, 0, 1));
	uint32_t b = rt_constant(&t, WNN_F32, SHAPE(1), D(0.5));
	m = conv_msg(&t, x, f);
	m->has_bias = true, m->bias = b;
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(iota9), D(6.5, 8.5, 12.5, 14.5), 0);
	tg_free(&t);
}

TEST(ref_conv2d_filter_layouts_and_nhwc)
{
	static const struct {
		Webnn__Ipc__Conv2dFilterLayout layout;
		uint32_t dims[4];
		double data[8];
	} layouts[] = {
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW, { 2, 1, 2, 2 }, { 1, 0, 0, 1, 0, 1, 2, 0 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__HWIO, { 2, 2, 1, 2 }, { 1, 0, 0, 1, 0, 2, 1, 0 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI, { 2, 2, 2, 1 }, { 1, 0, 0, 1, 0, 1, 2, 0 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO, { 1, 2, 2, 2 }, { 1, 0, 0, 1, 0, 2, 1, 0 } },
	};
	for (size_t i = 0; i < 4; i++)
		for (int nhwc = 0; nhwc < 2; nhwc++) {
			struct tg_graph t;
			tg_init(&t);
			uint32_t x = nhwc ? tg_input(&t, WNN_F32, SHAPE(1, 3, 3, 1))
					  : tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
			uint32_t f = rt_constant(&t, WNN_F32, 4, layouts[i].dims, layouts[i].data);
			Webnn__Ipc__Conv2d *m = conv_msg(&t, x, f);
			m->filter_layout = layouts[i].layout;
			m->input_layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC
					       : WEBNN__IPC__INPUT_LAYOUT__NCHW;
			uint32_t o = rt_op(&t, WNN_OP_CONV2D, m);
			if (nhwc) {
				rt_expect_shape(&t, o, SHAPE(1, 2, 2, 2));
				rt_expect(&t, INS(iota9), D(6, 10, 8, 13, 12, 19, 14, 22), 0);
			} else {
				rt_expect_shape(&t, o, SHAPE(1, 2, 2, 2));
				rt_expect(&t, INS(iota9), D(6, 8, 12, 14, 10, 13, 19, 22), 0);
			}
			tg_free(&t);
		}
}

TEST(ref_conv2d_groups_and_depthwise)
{
	/* depthwise: groups = input channels = output channels = 2 */
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 2, 2, 2));
	uint32_t f = rt_constant(&t, WNN_F32, SHAPE(2, 1, 2, 2), D(1, 1, 1, 1, 1, 0, 0, -1));
	Webnn__Ipc__Conv2d *m = conv_msg(&t, x, f);
	m->groups = 2;
	uint32_t o = rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 2, 1, 1));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6, 7, 8)), D(10, -3), 0);
	tg_free(&t);

	/* two groups of one input channel and two output channels each */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 2, 1, 1));
	f = rt_constant(&t, WNN_F32, SHAPE(4, 1, 1, 1), D(1, 2, 3, 4));
	m = conv_msg(&t, x, f);
	m->groups = 2;
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(D(10, 100)), D(10, 20, 300, 400), 0);
	tg_free(&t);

	/* two groups of two input channels (filter [o][i] with i within the group), nhwc + ohwi */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 1, 4));
	f = rt_constant(&t, WNN_F32, SHAPE(2, 1, 1, 2), D(1, 10, 100, 1000));
	m = conv_msg(&t, x, f);
	m->groups = 2;
	m->input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	m->filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI;
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(21, 4300), 0);
	tg_free(&t);
}

/* Permutes a dense 4-D tensor: out dims = in dims[perm[i]]. */
static void permute4(const float *in, const uint32_t *dims, const uint32_t *perm, float *out)
{
	uint32_t od[4];
	uint64_t is[4];
	for (int i = 0; i < 4; i++)
		od[i] = dims[perm[i]];
	wnn_shape_strides(4, dims, is);
	uint64_t k = 0;
	for (uint32_t a = 0; a < od[0]; a++)
		for (uint32_t b = 0; b < od[1]; b++)
			for (uint32_t c = 0; c < od[2]; c++)
				for (uint32_t d = 0; d < od[3]; d++)
					out[k++] = in[a * is[perm[0]] + b * is[perm[1]] +
						      c * is[perm[2]] + d * is[perm[3]]];
}

/* Every filter layout and both input layouts compute the same convolution, bit for bit (the
 * accumulation order does not depend on the layout). */
TEST(ref_conv2d_layouts_agree_on_random_data)
{
	enum { N = 2, C = 4, H = 5, W = 6, O = 6, G = 2, KH = 3, KW = 2 };
	static float x[N * C * H * W], xh[N * C * H * W], fo[O * (C / G) * KH * KW], fl[sizeof(fo) / 4];
	static float bias[O], ref[N * O * 2 * 7], out[sizeof(ref) / 4], back[sizeof(ref) / 4];
	const uint32_t xd[4] = { N, C, H, W }, fd[4] = { O, C / G, KH, KW };
	tg_random(x, WNN_F32, N * C * H * W, 1, -1, 1);
	tg_random(fo, WNN_F32, sizeof(fo) / 4, 2, -1, 1);
	tg_random(bias, WNN_F32, O, 3, -1, 1);
	permute4(x, xd, (uint32_t[]){ 0, 2, 3, 1 }, xh);
	static const struct {
		Webnn__Ipc__Conv2dFilterLayout layout;
		uint32_t perm[4]; /* of oihw */
	} layouts[] = {
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__OIHW, { 0, 1, 2, 3 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__HWIO, { 2, 3, 1, 0 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__OHWI, { 0, 2, 3, 1 } },
		{ WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO, { 1, 2, 3, 0 } },
	};
	for (int nhwc = 0; nhwc < 2; nhwc++)
		for (size_t l = 0; l < 4; l++) {
			uint32_t fdims[4];
			for (int i = 0; i < 4; i++)
				fdims[i] = fd[layouts[l].perm[i]];
			permute4(fo, fd, layouts[l].perm, fl);
			struct tg_graph t;
			struct wnn_diag diag = { 0 };
			tg_init(&t);
			uint32_t in = nhwc ? tg_input(&t, WNN_F32, SHAPE(N, H, W, C))
					   : tg_input(&t, WNN_F32, SHAPE(N, C, H, W));
			uint32_t f = tg_constant(&t, WNN_F32, 4, fdims, fl);
			uint32_t b = tg_constant(&t, WNN_F32, SHAPE(O), bias);
			Webnn__Ipc__Conv2d *m = conv_msg(&t, in, f);
			m->groups = G;
			m->has_bias = true, m->bias = b;
			m->filter_layout = layouts[l].layout;
			m->input_layout = nhwc ? WEBNN__IPC__INPUT_LAYOUT__NHWC
					       : WEBNN__IPC__INPUT_LAYOUT__NCHW;
			LIST(m, padding, 1, 0, 2, 1);
			LIST(m, strides, 2, 1);
			LIST(m, dilations, 1, 2);
			uint32_t o = rt_op(&t, WNN_OP_CONV2D, m);
			/* H: (5 + 1 + 0 - 3) / 2 + 1 = 2; W: (6 + 2 + 1 - 3) / 1 + 1 = 7 */
			const struct graph_ir *g = tg_finish(&t, &diag);
			ASSERT_MSG(g, "%s", diag.message);
			float *dst = l == 0 && !nhwc ? ref : out;
			ASSERT_EQ(tg_run(&backend_reference, NULL, g,
					 (const void *const[]){ nhwc ? xh : x }, (void *const[]){ dst },
					 &diag), WEBNN_STATUS_OK);
			uint32_t oh = nhwc ? t.descs[o].dims[1] : t.descs[o].dims[2];
			uint32_t ow = nhwc ? t.descs[o].dims[2] : t.descs[o].dims[3];
			ASSERT_EQ(oh, 2);
			ASSERT_EQ(ow, 7);
			if (nhwc) {
				uint32_t od[4] = { N, 2, 7, O };
				permute4(out, od, (uint32_t[]){ 0, 3, 1, 2 }, back);
				dst = back;
			}
			char msg[256];
			if (dst != ref && !tg_compare(dst, ref, WNN_F32, N * O * 2 * 7, 0, 0, 0, msg,
						      sizeof(msg)))
				FAIL("layout %zu nhwc %d: %s", l, nhwc, msg);
			tg_free(&t);
		}
}

/* ---- pooling */

static uint32_t pool(struct tg_graph *t, enum wnn_op op, Webnn__Ipc__Pool2d *m)
{
	return rt_op(t, op, m);
}

TEST(ref_pool2d_global_defaults)
{
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		static const struct {
			enum wnn_op op;
			double want;
		} cases[] = { { WNN_OP_AVERAGE_POOL2D, 2.5 },
			      { WNN_OP_MAX_POOL2D, 4 },
			      { WNN_OP_L2_POOL2D, 5.477225575051661 } };
		for (size_t i = 0; i < 3; i++) {
			struct tg_graph t;
			tg_init(&t);
			uint32_t x = tg_input(&t, ty, SHAPE(1, 1, 2, 2));
			uint32_t o = pool(&t, cases[i].op, pool_msg(&t, x));
			rt_expect_shape(&t, o, SHAPE(1, 1, 1, 1));
			rt_expect(&t, INS(D(1, 2, 3, 4)), &cases[i].want, 1);
			tg_free(&t);
		}
	}
}

TEST(ref_pool2d_average_excludes_padding)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	Webnn__Ipc__Pool2d *m = pool_msg(&t, x);
	LIST(m, window_dimensions, 2, 2);
	LIST(m, padding, 1, 1, 1, 1);
	uint32_t o = pool(&t, WNN_OP_AVERAGE_POOL2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 3, 3));
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4), 0);
	tg_free(&t);
}

static const double iota25[] = { 1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
				   14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25 };

TEST(ref_pool2d_ceil_rounding_asymmetric_window)
{
	static const struct {
		enum wnn_op op;
		double want[6];
	} cases[] = {
		{ WNN_OP_AVERAGE_POOL2D, { 6.5, 8.5, 10, 16.5, 18.5, 20 } },
		{ WNN_OP_MAX_POOL2D, { 12, 14, 15, 22, 24, 25 } },
	};
	for (size_t i = 0; i < 2; i++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
		Webnn__Ipc__Pool2d *m = pool_msg(&t, x);
		LIST(m, window_dimensions, 3, 2);
		LIST(m, strides, 2, 2);
		m->output_shape_rounding = WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
		uint32_t o = pool(&t, cases[i].op, m);
		rt_expect_shape(&t, o, SHAPE(1, 1, 2, 3));
		rt_expect(&t, INS(iota25), cases[i].want, 0);
		tg_free(&t);
	}
	/* floor rounding of the same window drops the partial last column */
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
	Webnn__Ipc__Pool2d *m = pool_msg(&t, x);
	LIST(m, window_dimensions, 3, 2);
	LIST(m, strides, 2, 2);
	uint32_t o = pool(&t, WNN_OP_AVERAGE_POOL2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 2, 2));
	rt_expect(&t, INS(iota25), D(6.5, 8.5, 16.5, 18.5), 0);
	tg_free(&t);
}

TEST(ref_pool2d_output_sizes_strides_dilations_nhwc)
{
	/* outputSizes picks the ceil size [3, 3] (padding kept) or the floor size [2, 2] */
	void **outs[2];
	for (int k = 0; k < 2; k++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
		Webnn__Ipc__Pool2d *m = pool_msg(&t, x);
		LIST(m, window_dimensions, 3, 3);
		LIST(m, padding, 1, 0, 0, 1);
		LIST(m, strides, 2, 2);
		if (k == 0)
			LIST(m, output_sizes, 3, 3);
		else
			m->output_shape_rounding = WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
		uint32_t o = pool(&t, WNN_OP_MAX_POOL2D, m);
		rt_expect_shape(&t, o, SHAPE(1, 1, 3, 3));
		outs[k] = rt_run(&t, INS(iota25));
		tg_free(&t);
	}
	ASSERT(memcmp(outs[0][0], outs[1][0], 9 * sizeof(float)) == 0);
	/* window rows -1..1 / 1..3 / 3..5, columns 0..2 / 2..4 / 4..6 */
	ASSERT(tg_compare_values(outs[0][0], WNN_F32, D(8, 10, 10, 18, 20, 20, 23, 25, 25), 9, 0, 0,
				 NULL, 0));

	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
	Webnn__Ipc__Pool2d *m = pool_msg(&t, x);
	LIST(m, window_dimensions, 3, 3);
	LIST(m, padding, 1, 0, 0, 1);
	LIST(m, strides, 2, 2);
	LIST(m, output_sizes, 2, 2);
	pool(&t, WNN_OP_MAX_POOL2D, m);
	rt_expect(&t, INS(iota25), D(8, 10, 18, 20), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 4, 4));
	m = pool_msg(&t, x);
	LIST(m, window_dimensions, 2, 2);
	LIST(m, strides, 2, 2);
	pool(&t, WNN_OP_MAX_POOL2D, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), D(6, 8, 14, 16), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 3, 3));
	m = pool_msg(&t, x);
	LIST(m, window_dimensions, 2, 2);
	LIST(m, dilations, 2, 2);
	pool(&t, WNN_OP_AVERAGE_POOL2D, m);
	rt_expect(&t, INS(iota9), D(5), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 2, 2, 2));
	m = pool_msg(&t, x);
	m->layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	uint32_t o = pool(&t, WNN_OP_AVERAGE_POOL2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 1, 2));
	rt_expect(&t, INS(D(1, 10, 2, 20, 3, 30, 4, 40)), D(2.5, 25), 0);
	tg_free(&t);
}

/* Padding never wins a max (negative inputs stay negative); a window holding only padding gives
 * 0, as in WPT's "maxPool2d ... ceil and symmetric padding" case. */
TEST(ref_max_pool2d_padding_and_empty_windows)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	Webnn__Ipc__Pool2d *m = pool_msg(&t, x);
	LIST(m, window_dimensions, 2, 2);
	LIST(m, padding, 1, 0, 1, 0);
	pool(&t, WNN_OP_MAX_POOL2D, m);
	rt_expect(&t, INS(D(-1, -2, -3, -4)), D(-1, -1, -1, -1), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	m = pool_msg(&t, x);
	LIST(m, window_dimensions, 1, 1);
	LIST(m, padding, 0, 1, 0, 1);
	LIST(m, strides, 2, 2);
	uint32_t o = pool(&t, WNN_OP_MAX_POOL2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 2, 2));
	rt_expect(&t, INS(D(-1, -2, -3, -4)), D(-1, 0, 0, 0), 0);
	tg_free(&t);
}

TEST(ref_max_pool2d_integers)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_I32, SHAPE(1, 1, 2, 2));
	pool(&t, WNN_OP_MAX_POOL2D, pool_msg(&t, x));
	rt_expect(&t, INS(D(-5, 3, 7, -1)), D(7), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_U8, SHAPE(1, 1, 2, 2));
	pool(&t, WNN_OP_MAX_POOL2D, pool_msg(&t, x));
	rt_expect(&t, INS(D(5, 250, 7, 1)), D(250), 0);
	tg_free(&t);
}

/* ---- gemm and matmul: a = [[1,2,3],[4,5,6]], b = [[7,8],[9,10],[11,12]], a*b = [[58,64],[139,154]] */

TEST(ref_gemm_options)
{
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		struct tg_graph t;
		tg_init(&t);
		uint32_t a = tg_input(&t, ty, SHAPE(2, 3)), b = tg_input(&t, ty, SHAPE(3, 2));
		uint32_t o = rt_op(&t, WNN_OP_GEMM, gemm_msg(&t, a, b));
		rt_expect_shape(&t, o, SHAPE(2, 2));
		rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10, 11, 12)), D(58, 64, 139, 154), 0);
		tg_free(&t);
	}

	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(3, 2)), b = tg_input(&t, WNN_F32, SHAPE(2, 3));
	Webnn__Ipc__Gemm *m = gemm_msg(&t, a, b);
	m->a_transpose = true, m->b_transpose = true;
	rt_op(&t, WNN_OP_GEMM, m);
	rt_expect(&t, INS(D(1, 4, 2, 5, 3, 6), D(7, 9, 11, 8, 10, 12)), D(58, 64, 139, 154), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 3));
	b = tg_input(&t, WNN_F32, SHAPE(3, 2));
	uint32_t c = tg_input(&t, WNN_F32, SHAPE(2));
	m = gemm_msg(&t, a, b);
	m->has_c = true, m->c = c, m->alpha = 2, m->beta = 0.5;
	rt_op(&t, WNN_OP_GEMM, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10, 11, 12), D(1, 2)),
	       D(116.5, 129, 278.5, 309), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 3));
	b = tg_input(&t, WNN_F32, SHAPE(3, 2));
	c = rt_constant(&t, WNN_F32, 0, NULL, D(10));
	m = gemm_msg(&t, a, b);
	m->has_c = true, m->c = c;
	rt_op(&t, WNN_OP_GEMM, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10, 11, 12)), D(68, 74, 149, 164), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 3));
	b = tg_input(&t, WNN_F32, SHAPE(3, 2));
	c = tg_input(&t, WNN_F32, SHAPE(2, 1));
	m = gemm_msg(&t, a, b);
	m->has_c = true, m->c = c;
	rt_op(&t, WNN_OP_GEMM, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10, 11, 12), D(1, 2)), D(59, 65, 141, 156), 0);
	tg_free(&t);
}

static uint32_t matmul(struct tg_graph *t, uint32_t a, uint32_t b)
{
	Webnn__Ipc__Matmul init = WEBNN__IPC__MATMUL__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->a = a, m->b = b, m->output = tg_next(t);
	return rt_op(t, WNN_OP_MATMUL, m);
}

TEST(ref_matmul_batched_and_broadcast)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(2, 3)), b = tg_input(&t, WNN_F32, SHAPE(3, 2));
	matmul(&t, a, b);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10, 11, 12)), D(58, 64, 139, 154), 0);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F16, SHAPE(2, 2, 2));
	b = tg_input(&t, WNN_F16, SHAPE(2, 2, 2));
	uint32_t o = matmul(&t, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 2, 2));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6, 7, 8), D(1, 0, 0, 1, 0, 1, 1, 0)), D(1, 2, 3, 4, 6, 5, 8, 7), 0);
	tg_free(&t);

	/* batch shapes [2, 1] and [3] broadcast to [2, 3] */
	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 1, 1, 2));
	b = tg_input(&t, WNN_F32, SHAPE(3, 2, 1));
	o = matmul(&t, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 3, 1, 1));
	rt_expect(&t, INS(D(1, 2, 3, 4), D(1, 1, 2, 0, 0, 3)), D(3, 2, 6, 7, 6, 12), 0);
	tg_free(&t);

	/* a 2-D b against a batched a */
	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 1, 2));
	b = tg_input(&t, WNN_F32, SHAPE(2, 2));
	o = matmul(&t, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 1, 2));
	rt_expect(&t, INS(D(1, 2, 3, 4), D(1, 2, 3, 4)), D(7, 10, 15, 22), 0);
	tg_free(&t);
}

/* ---- data movement */

TEST(ref_transpose_reshape_concat)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_I32, SHAPE(2, 3));
	Webnn__Ipc__Transpose ti = WEBNN__IPC__TRANSPOSE__INIT, *tm = rt_arena(sizeof(*tm));
	*tm = ti;
	tm->input = x, tm->output = tg_next(&t);
	uint32_t o = rt_op(&t, WNN_OP_TRANSPOSE, tm);
	rt_expect_shape(&t, o, SHAPE(3, 2));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6)), D(1, 4, 2, 5, 3, 6), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F16, SHAPE(2, 2, 2));
	tm = rt_arena(sizeof(*tm));
	*tm = ti;
	tm->input = x, tm->output = tg_next(&t), tm->has_permutation = true;
	LIST(tm, permutation, 1, 0, 2);
	rt_op(&t, WNN_OP_TRANSPOSE, tm);
	rt_expect(&t, INS(D(0, 1, 2, 3, 4, 5, 6, 7)), D(0, 1, 4, 5, 2, 3, 6, 7), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_I64, SHAPE(2, 3));
	Webnn__Ipc__Reshape ri = WEBNN__IPC__RESHAPE__INIT, *rm = rt_arena(sizeof(*rm));
	*rm = ri;
	rm->input = x, rm->output = tg_next(&t);
	LIST(rm, new_shape, 3, 1, 2);
	o = rt_op(&t, WNN_OP_RESHAPE, rm);
	rt_expect_shape(&t, o, SHAPE(3, 1, 2));
	rt_expect(&t, INS(D(1, -2, 3, -4, 5, -6)), D(1, -2, 3, -4, 5, -6), 0);
	tg_free(&t);

	for (int axis = 0; axis < 2; axis++) {
		tg_init(&t);
		uint32_t a = axis ? tg_input(&t, WNN_U8, SHAPE(2, 1)) : tg_input(&t, WNN_U8, SHAPE(1, 2));
		uint32_t b = tg_input(&t, WNN_U8, SHAPE(2, 2));
		uint32_t c = axis ? rt_constant(&t, WNN_U8, SHAPE(2, 1), D(7, 8)) : rt_constant(&t, WNN_U8, SHAPE(1, 2), D(7, 8));
		Webnn__Ipc__Concat ci = WEBNN__IPC__CONCAT__INIT, *cm = rt_arena(sizeof(*cm));
		*cm = ci;
		LIST(cm, inputs, a, b, c);
		cm->axis = (uint32_t)axis, cm->output = tg_next(&t);
		o = rt_op(&t, WNN_OP_CONCAT, cm);
		if (axis) {
			rt_expect_shape(&t, o, SHAPE(2, 4));
			rt_expect(&t, INS(D(1, 2), D(3, 4, 5, 6)), D(1, 3, 4, 7, 2, 5, 6, 8), 0);
		} else {
			rt_expect_shape(&t, o, SHAPE(4, 2));
			rt_expect(&t, INS(D(1, 2), D(3, 4, 5, 6)), D(1, 2, 3, 4, 5, 6, 7, 8), 0);
		}
		tg_free(&t);
	}
}

/* ---- normalisation */

static uint32_t softmax(struct tg_graph *t, uint32_t x, uint32_t axis)
{
	Webnn__Ipc__Softmax init = WEBNN__IPC__SOFTMAX__INIT, *m = rt_arena(sizeof(*m));
	*m = init;
	m->input = x, m->axis = axis, m->output = tg_next(t);
	return rt_op(t, WNN_OP_SOFTMAX, m);
}

TEST(ref_softmax_axes)
{
	double e = exp(1), e2 = exp(2), s = 1 + e + e2;
	for (int f16 = 0; f16 < 2; f16++) {
		enum wnn_dtype ty = f16 ? WNN_F16 : WNN_F32;
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, ty, SHAPE(2, 3));
		softmax(&t, x, 1);
		rt_expect(&t, INS(D(0, 1, 2, 5, 5, 5)),
		       D(1 / s, e / s, e2 / s, 1.0 / 3, 1.0 / 3, 1.0 / 3), 1);
		tg_free(&t);

		tg_init(&t);
		x = tg_input(&t, ty, SHAPE(2, 2));
		softmax(&t, x, 0);
		rt_expect(&t, INS(D(1, 1, 0, 3)),
		       D(e / (e + 1), 1 / (1 + e2), 1 / (e + 1), e2 / (1 + e2)), 1);
		tg_free(&t);
	}
}

TEST(ref_batch_normalization_with_and_without_scale_bias)
{
	double eps = (float)1e-5;
	double n0 = 1 / sqrt(4 + eps), n1 = 1 / sqrt(1 + eps);
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 2, 1, 2));
	uint32_t mean = rt_constant(&t, WNN_F32, SHAPE(2), D(1, 3));
	uint32_t var = rt_constant(&t, WNN_F32, SHAPE(2), D(4, 1));
	rt_op(&t, WNN_OP_BATCH_NORMALIZATION, bn_msg(&t, x, mean, var));
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(0, n0, 0, n1), 1);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 2, 1, 2));
	mean = rt_constant(&t, WNN_F32, SHAPE(2), D(1, 3));
	var = rt_constant(&t, WNN_F32, SHAPE(2), D(4, 1));
	uint32_t scale = rt_constant(&t, WNN_F32, SHAPE(2), D(2, 3));
	uint32_t bias = rt_constant(&t, WNN_F32, SHAPE(2), D(1, -1));
	Webnn__Ipc__BatchNormalization *m = bn_msg(&t, x, mean, var);
	m->has_scale = true, m->scale = scale, m->has_bias = true, m->bias = bias;
	rt_op(&t, WNN_OP_BATCH_NORMALIZATION, m);
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(1, 1 + 2 * n0, -1, -1 + 3 * n1), 1);
	tg_free(&t);

	/* axis 0 of a [2, 2] tensor, only bias, epsilon 0.5, float16 */
	tg_init(&t);
	x = tg_input(&t, WNN_F16, SHAPE(2, 2));
	mean = rt_constant(&t, WNN_F16, SHAPE(2), D(0, 2));
	var = rt_constant(&t, WNN_F16, SHAPE(2), D(3.5, 0.5));
	bias = rt_constant(&t, WNN_F16, SHAPE(2), D(10, 20));
	m = bn_msg(&t, x, mean, var);
	m->axis = 0, m->epsilon = 0.5, m->has_bias = true, m->bias = bias;
	rt_op(&t, WNN_OP_BATCH_NORMALIZATION, m);
	rt_expect(&t, INS(D(2, -2, 3, 1)), D(11, 9, 21, 19), 0);
	tg_free(&t);
}

/* ---- graphs, support and errors */

TEST(ref_chain_of_operations_with_intermediate_and_two_outputs)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(2, 2));
	uint32_t s = binary(&t, WNN_OP_ADD, a, a);
	uint32_t r = unary(&t, WNN_OP_RELU, s);
	uint32_t p = binary(&t, WNN_OP_MUL, r, a);
	tg_output(&t, p);
	tg_output(&t, s);
	void **outs = rt_run(&t, INS(D(1, -2, 3, -4)));
	rt_check(&t, outs, 0, D(2, 0, 18, 0), 0, 0);
	rt_check(&t, outs, 1, D(2, -4, 6, -8), 0, 0);
	tg_free(&t);
}

/* ---- plans over the graph IR and single-node evaluation */

TEST(ref_compile_needs_an_optimised_graph_and_reuses_plan_buffers)
{
	struct tg_graph t;
	struct wnn_diag diag = { 0 };
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(4));
	uint32_t v = x;
	for (int i = 0; i < 5; i++) /* neg five times: intermediates alternate two buffers */
		v = unary(&t, WNN_OP_NEG, v);
	uint32_t o = binary(&t, WNN_OP_MUL, v, x);
	tg_output(&t, o);
	tg_output(&t, o); /* bound twice: written once, copied */
	static char second[] = "again";
	t.out_named[1]->name = second;
	const struct graph_ir *g = tg_finish(&t, &diag);
	ASSERT_MSG(g, "%s", diag.message);
	struct backend *be;
	struct backend_context *ctx;
	struct backend_plan *plan;
	struct backend_context_options opts = { 0 };
	ASSERT_EQ(backend_reference.init(NULL, &be, &diag), WEBNN_STATUS_OK);
	ASSERT_EQ(backend_reference.context_create(be, &opts, &ctx, &diag), WEBNN_STATUS_OK);
	ASSERT_EQ(backend_reference.compile(ctx, g, &plan, &diag), WEBNN_STATUS_OPERATION_ERROR);
	ASSERT_CONTAINS(diag.message, "reference: graph was not optimised");
	wnn_diag_clear(&diag);
	ASSERT_EQ(tg_optimize(t.ir, &backend_reference, ctx, &diag), WEBNN_STATUS_OK);
	ASSERT_EQ(g->plan.n_buffers, 2u);
	for (uint32_t i = 0; i < g->n_nodes; i++)
		ASSERT(g->nodes[i].state == GRAPH_NODE_LIVE);
	backend_reference.context_destroy(ctx);
	backend_reference.shutdown(be);
	float in[4] = { 1, -2, 3.5f, 0 }, out0[4], out1[4];
	ASSERT_EQ(tg_run(&backend_reference, NULL, g, (const void *const[]){ in },
			 (void *const[]){ out0, out1 }, &diag), WEBNN_STATUS_OK);
	const float want[4] = { -1, -4, -12.25f, 0 }; /* -x * x */
	for (int i = 0; i < 4; i++)
		ASSERT(out0[i] == want[i] && out1[i] == want[i]);
	tg_free(&t);
}

/* Calls reference_evaluate on node k of g with inputs given in order. */
static enum webnn_status evaluate_node(const struct graph_ir *g, uint32_t k,
				       const void *const *inputs, void *const *outputs,
				       struct wnn_diag *diag)
{
	return reference_evaluate(&g->nodes[k], g->values, inputs, outputs, diag);
}

TEST(ref_evaluate_runs_one_node_on_host_memory)
{
	struct tg_graph t;
	struct wnn_diag diag = { 0 };
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(2, 3));
	uint32_t b = tg_input(&t, WNN_F32, SHAPE(3));
	uint32_t s = binary(&t, WNN_OP_SUB, a, b);
	Webnn__Ipc__Split *sp = MSG(Webnn__Ipc__Split, WEBNN__IPC__SPLIT__INIT);
	sp->input = s, sp->axis = 1;
	LIST(sp, sizes, 1, 2);
	LIST(sp, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_SPLIT, sp);
	uint32_t c = tg_input(&t, WNN_I32, SHAPE(2));
	Webnn__Ipc__Concat *cm = MSG(Webnn__Ipc__Concat, WEBNN__IPC__CONCAT__INIT);
	LIST(cm, inputs, c, c, c);
	cm->axis = 0, cm->output = tg_next(&t);
	uint32_t cat = rt_op(&t, WNN_OP_CONCAT, cm);
	tg_output(&t, sp->outputs[0]);
	tg_output(&t, sp->outputs[1]);
	tg_output(&t, cat);
	const struct graph_ir *g = tg_finish(&t, &diag);
	ASSERT(g && g->n_nodes == 3);

	/* broadcast binary */
	float av[6] = { 1, 2, 3, 4, 5, 6 }, bv[3] = { 1, 1, 2 }, sv[6] = { 0 };
	ASSERT_EQ(evaluate_node(g, 0, (const void *const[]){ av, bv }, (void *const[]){ sv }, &diag),
		  WEBNN_STATUS_OK);
	const float want_s[6] = { 0, 1, 1, 3, 4, 4 };
	ASSERT(memcmp(sv, want_s, sizeof(sv)) == 0);
	/* two outputs */
	float o0[2] = { 0 }, o1[4] = { 0 };
	ASSERT_EQ(evaluate_node(g, 1, (const void *const[]){ sv }, (void *const[]){ o0, o1 }, &diag),
		  WEBNN_STATUS_OK);
	ASSERT(o0[0] == 0 && o0[1] == 3);
	ASSERT(o1[0] == 1 && o1[1] == 1 && o1[2] == 4 && o1[3] == 4);
	/* the same value three times (concat reads its inputs' descriptors) */
	int32_t cv[2] = { 7, -9 }, co[6] = { 0 };
	ASSERT_EQ(evaluate_node(g, 2, (const void *const[]){ cv, cv, cv }, (void *const[]){ co },
				&diag), WEBNN_STATUS_OK);
	for (int i = 0; i < 6; i++)
		ASSERT_EQ(co[i], i % 2 ? -9 : 7);
	ASSERT(b == 1 && s == 2); /* ids as the graph's values */
	tg_free(&t);
}

TEST(ref_supports_exactly_what_it_implements)
{
	bool (*sup)(struct backend *, enum wnn_op, enum wnn_dtype) = backend_reference.supports;
	ASSERT(sup(NULL, WNN_OP_ADD, WNN_F32) && sup(NULL, WNN_OP_ADD, WNN_I64));
	ASSERT(sup(NULL, WNN_OP_ADD, WNN_F16) && sup(NULL, WNN_OP_DIV, WNN_U8));
	ASSERT(sup(NULL, WNN_OP_POW, WNN_I32));         /* integer pow: a loop in ref_elementwise.c */
	ASSERT(!sup(NULL, WNN_OP_LOGICAL_AND, WNN_F32)); /* uint8 only */
	ASSERT(!sup(NULL, WNN_OP_ABS, WNN_U32));
	ASSERT(sup(NULL, WNN_OP_ABS, WNN_I8) && sup(NULL, WNN_OP_GELU, WNN_F16));
	ASSERT(!sup(NULL, WNN_OP_EXP, WNN_I32));
	ASSERT(sup(NULL, WNN_OP_CLAMP, WNN_U64) && sup(NULL, WNN_OP_IDENTITY, WNN_I8));
	ASSERT(sup(NULL, WNN_OP_CONV2D, WNN_F16) && !sup(NULL, WNN_OP_CONV2D, WNN_I32));
	ASSERT(sup(NULL, WNN_OP_MAX_POOL2D, WNN_U8) && !sup(NULL, WNN_OP_AVERAGE_POOL2D, WNN_I32));
	ASSERT(sup(NULL, WNN_OP_L2_POOL2D, WNN_F32) && sup(NULL, WNN_OP_GEMM, WNN_F16));
	ASSERT(sup(NULL, WNN_OP_MATMUL, WNN_F32) && !sup(NULL, WNN_OP_MATMUL, WNN_I32));
	ASSERT(sup(NULL, WNN_OP_TRANSPOSE, WNN_U64) && sup(NULL, WNN_OP_CONCAT, WNN_I8));
	ASSERT(sup(NULL, WNN_OP_RESHAPE, WNN_I64) && sup(NULL, WNN_OP_SOFTMAX, WNN_F16));
	ASSERT(sup(NULL, WNN_OP_BATCH_NORMALIZATION, WNN_F32));
	ASSERT(sup(NULL, WNN_OP_CAST, WNN_F32) && sup(NULL, WNN_OP_GATHER, WNN_F32));
	ASSERT(!sup(NULL, WNN_OP_ADD, WNN_DT_NONE) && !sup(NULL, WNN_OP_COUNT, WNN_F32));
	/* every elementwise operator has at least one supported type */
	for (int op = 0; op < WNN_OP_COUNT; op++) {
		uint32_t fam = wnn_ops[op].attrs;
		if (fam != WEBNN__IPC__OPERATION__ATTRS_BINARY && fam != WEBNN__IPC__OPERATION__ATTRS_UNARY)
			continue;
		bool any = false;
		for (int ty = 1; ty < WNN_DT_COUNT; ty++)
			any |= sup(NULL, (enum wnn_op)op, (enum wnn_dtype)ty);
		ASSERT_MSG(any, "%s has no supported type", wnn_ops[op].name);
	}
}

TEST(ref_unsupported_operation_and_bad_sizes_fail_clearly)
{
	struct tg_graph t;
	struct wnn_diag diag = { 0 };
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2));
	Webnn__Ipc__Cast ci = WEBNN__IPC__CAST__INIT, *cm = rt_arena(sizeof(*cm));
	*cm = ci;
	cm->input = x, cm->output = tg_next(&t), cm->data_type = WEBNN__IPC__DATA_TYPE__INT32;
	rt_op(&t, WNN_OP_CAST, cm);
	const struct graph_ir *g = tg_finish(&t, &diag);
	ASSERT(g);
	float in[2] = { 1, 2 };
	int32_t out[2];
	/* every operator is implemented now: cast runs (inconsistent operations are rejected
	 * when they are resolved: refx_resolve_rejects_inconsistent_operations) */
	ASSERT_EQ(tg_run(&backend_reference, NULL, g, (const void *const[]){ in },
			 (void *const[]){ out }, &diag), WEBNN_STATUS_OK);
	ASSERT(out[0] == 1 && out[1] == 2);
	tg_free(&t);

	struct backend *be;
	struct backend_context *ctx;
	struct backend_tensor *ten;
	struct backend_context_options opts = { 0 };
	struct backend_device_info info;
	wnn_diag_clear(&diag);
	ASSERT_EQ(backend_reference.init(NULL, &be, &diag), WEBNN_STATUS_OK);
	ASSERT_EQ(backend_reference.context_create(be, &opts, &ctx, &diag), WEBNN_STATUS_OK);
	backend_reference.context_info(ctx, &info);
	ASSERT_STREQ(info.device_type, "cpu");
	ASSERT(!info.accelerated);
	struct wnn_desc d = { .type = WNN_F32, .rank = 1, .dims = { 4 } };
	ASSERT_EQ(backend_reference.tensor_create(ctx, &d, &ten, &diag), WEBNN_STATUS_OK);
	float zeros[4] = { 1, 1, 1, 1 };
	ASSERT_EQ(backend_reference.tensor_read(ten, zeros, sizeof(zeros), &diag), WEBNN_STATUS_OK);
	ASSERT(zeros[0] == 0 && zeros[3] == 0); /* new tensors read as zeros */
	ASSERT_EQ(backend_reference.tensor_write(ten, zeros, 8, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "8 bytes");
	backend_reference.tensor_destroy(ten);
	backend_reference.context_destroy(ctx);
	backend_reference.shutdown(be);
}

TEST(ref_resolve_defaults)
{
	/* pool window defaults to the spatial size; conv strides/dilations to 1; gemm alpha/beta 1 */
	struct wnn_desc descs[3] = { { .type = WNN_F32, .rank = 4, .dims = { 1, 3, 4, 5 } },
				     { .type = WNN_F32, .rank = 4, .dims = { 1, 3, 1, 1 } } };
	Webnn__Ipc__Pool2d pm = WEBNN__IPC__POOL2D__INIT;
	pm.input = 0, pm.output = 1;
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_L2_POOL2D, &pm);
	struct wnn_pool2d_attrs pp;
	struct wnn_diag diag = { 0 };
	ASSERT_EQ(wnn_resolve_pool2d(&op, descs, 2, &pp, &diag), WEBNN_STATUS_OK);
	ASSERT(pp.kind == WNN_POOL_L2 && pp.win_h == 4 && pp.win_w == 5 && pp.stride_h == 1 &&
	       pp.dil_w == 1 && pp.out_h == 1 && pp.out_w == 1 && !pp.nhwc);

	Webnn__Ipc__ElementwiseUnary um = WEBNN__IPC__ELEMENTWISE_UNARY__INIT;
	um.input = 0, um.output = 1;
	descs[1] = descs[0];
	tg_set_op(&op, WNN_OP_HARD_SIGMOID, &um);
	struct wnn_unary_attrs pu;
	ASSERT_EQ(wnn_resolve_unary(&op, descs, 2, &pu, &diag), WEBNN_STATUS_OK);
	ASSERT(pu.alpha == (double)0.2f && pu.beta == 0.5);
	tg_set_op(&op, WNN_OP_LEAKY_RELU, &um);
	ASSERT_EQ(wnn_resolve_unary(&op, descs, 2, &pu, &diag), WEBNN_STATUS_OK);
	ASSERT(pu.alpha == (double)0.01f);

	/* a mismatched attrs member is refused, naming the operator */
	tg_set_op(&op, WNN_OP_RELU, &um);
	op.attrs_case = WEBNN__IPC__OPERATION__ATTRS_BINARY;
	ASSERT_EQ(wnn_resolve_unary(&op, descs, 2, &pu, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "relu");
	wnn_diag_clear(&diag);
	tg_set_op(&op, WNN_OP_RELU, &um);
	um.input = 7;
	ASSERT_EQ(wnn_resolve_unary(&op, descs, 2, &pu, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "relu: input operand 7");
}

/* ---- literal WPT conformance cases (../shared/conformance), copied so this file stands alone */

/* conv2d.json: "conv2d float32 4D input and filter tensors options.dilations"
 * (tolerance ULP 18) */
static const double cf_conv_dil_conv2dInput[] = {
	0.6124474406242371, 0.8857858777046204, 0.13667134940624237, 0.5645291209220886,
	0.8965172171592712, 0.36792829632759094, 0.6811466217041016, 0.0479511022567749,
	0.33355462551116943, 0.19882695376873016, 0.41167140007019043, 0.07934240251779556,
	0.4272463321685791, 0.535800576210022, 0.5910806059837341, 0.28415432572364807,
	0.4147258698940277, 0.026906268671154976, 0.3621256649494171, 0.9945681691169739,
	0.07184549421072006, 0.12204372137784958, 0.8422137498855591, 0.4537501037120819,
	0.21529443562030792
};
static const double cf_conv_dil_conv2dFilter[] = {
	0.3804761469364166, 0.5280312299728394, 0.21947036683559418, 0.36689770221710205,
	0.33974137902259827, 0.4200059771537781, 0.3805030882358551, 0.19443586468696594,
	0.5686976909637451
};
static const double cf_conv_dil_out[] = {
	1.3599307537078857
};

/* conv2d.json: "depthwise conv2d float32 4D input and filter tensors options.groups= input_channels"
 * (tolerance ULP 8) */
static const double cf_conv_dw_conv2dInput[] = {
	0.8444867730140686, 0.9432409405708313, 0.6556113362312317, 0.6982811689376831,
	0.9994443655014038, 0.23663610219955444, 0.36740678548812866, 0.2619246542453766,
	0.6254158616065979, 0.8403863906860352, 0.3783077001571655, 0.4543924033641815,
	0.25327208638191223, 0.5780375599861145, 0.5414554476737976, 0.37846308946609497
};
static const double cf_conv_dw_conv2dFilter[] = {
	0.27221617102622986, 0.281202495098114, 0.854483962059021, 0.1796930730342865,
	0.7762278318405151, 0.5140685439109802, 0.6374202966690063, 0.12801742553710938,
	0.8373776078224182, 0.5726001858711243, 0.09855203330516815, 0.5929878950119019,
	0.5900803804397583, 0.9690897464752197, 0.23175589740276337, 0.14805112779140472
};
static const double cf_conv_dw_out[] = {
	1.1808103322982788, 1.165167212486267, 1.311646819114685, 0.8911385536193848
};

/* conv2d.json: "conv2d float32 4D input and filter tensors options.inputLayout='nhwc' and options.filterLayout='ihwo'"
 * (tolerance ULP 8) */
static const double cf_conv_nhwc_conv2dInput[] = {
	0.7529087066650391, 0.7520291805267334, 0.5949527621269226, 0.2163185328245163,
	0.07589349150657654, 0.151067852973938, 0.1212485060095787, 0.5364335179328918,
	0.5937089920043945, 0.991003155708313, 0.3630942404270172, 0.9289674162864685,
	0.22727376222610474, 0.5414124131202698, 0.08445341885089874, 0.6765284538269043,
	0.6193256378173828, 0.3929215967655182
};
static const double cf_conv_nhwc_conv2dFilter[] = {
	0.14543837308883667, 0.6952692270278931, 0.3072136342525482, 0.9671129584312439,
	0.5070913434028625, 0.43241235613822937, 0.10836050659418106, 0.08139707148075104,
	0.9849002361297607, 0.3202308118343353, 0.5303338766098022, 0.4281076192855835
};
static const double cf_conv_nhwc_out[] = {
	0.8845428228378296, 0.9626783132553101, 0.8020333051681519, 0.7413608431816101,
	0.9108520746231079, 0.6277193427085876, 0.2897796928882599, 0.4832426905632019,
	0.4483422338962555, 0.4053896367549896, 0.4878997206687927, 0.8711439371109009,
	0.6932874917984009, 1.1787647008895874, 0.9170808792114258, 1.0369365215301514,
	0.8123774528503418, 1.082636833190918, 0.8282973766326904, 0.816078782081604,
	1.2353861331939697, 0.35335418581962585, 0.6780439019203186, 0.9810346961021423
};

/* conv2d.json: "conv2d float32 4D input and filter tensors 1D options.bias"
 * (tolerance ULP 8) */
static const double cf_conv_bias_conv2dInput[] = {
	0.7529087066650391, 0.7520291805267334, 0.5949527621269226, 0.2163185328245163,
	0.07589349150657654, 0.151067852973938, 0.1212485060095787, 0.5364335179328918,
	0.5937089920043945, 0.991003155708313, 0.3630942404270172, 0.9289674162864685,
	0.22727376222610474, 0.5414124131202698, 0.08445341885089874, 0.6765284538269043,
	0.6193256378173828, 0.3929215967655182
};
static const double cf_conv_bias_conv2dFilter[] = {
	0.14543837308883667, 0.9671129584312439, 0.10836050659418106, 0.3202308118343353,
	0.6952692270278931, 0.5070913434028625, 0.08139707148075104, 0.5303338766098022,
	0.3072136342525482, 0.43241235613822937, 0.9849002361297607, 0.4281076192855835
};
static const double cf_conv_bias_conv2dBias[] = {
	0.8135762214660645, 0.8394582867622375, 0.49444812536239624
};
static const double cf_conv_bias_out[] = {
	1.698119044303894, 1.5549371242523193, 1.103355884552002, 1.2189658880233765,
	1.8021366596221924, 1.7503103017807007, 1.3227009773254395, 1.3273580074310303,
	1.2964813709259033, 1.1221674680709839, 0.9427903890609741, 1.365592122077942,
	1.5068637132644653, 1.8505127429962158, 1.6418735980987549, 1.1669304370880127,
	2.0182230472564697, 1.6518357992172241, 1.6555371284484863, 1.5175021886825562,
	1.4115289449691772, 1.577085018157959, 1.7298341989517212, 1.4754828214645386
};

/* gemm.json: "gemm two float32 2D tensors broadcast options.c [3, 1] => [3, 5]"
 * (tolerance ULP 9) */
static const double cf_gemm_inputA[] = {
	82.98884582519531, 90.51641082763672, 59.638519287109375, 36.271873474121094,
	18.9648494720459, 43.89479446411133, 98.89488220214844, 91.46013641357422,
	50.51683807373047, 40.45679473876953, 50.76741409301758, 9.336554527282715
};
static const double cf_gemm_inputB[] = {
	25.14739227294922, 66.6923828125, 63.29909896850586, 10.629964828491211, 61.32737731933594,
	0.0037256532814353704, 16.4991455078125, 3.036668062210083, 93.14022064208984,
	70.08265686035156, 75.74880981445312, 96.60688018798828, 99.10041809082031,
	23.2437744140625, 86.11856842041016, 42.90679168701172, 34.08055114746094,
	87.37654876708984, 92.34209442138672, 60.32209014892578
};
static const double cf_gemm_inputC[] = {
	6.20251989364624, 81.40641784667969, 73.00516510009766
};
static const double cf_gemm_out[] = {
	8167.349609375, 14032.0263671875, 14613.703125, 14054.734375, 18763.30078125,
	11973.9169921875, 14741.3818359375, 19207.154296875, 15115.68359375, 18354.486328125,
	5589.6953125, 9332.2724609375, 9240.3974609375, 6420.33544921875, 10941.607421875
};

/* matmul.json: "matmul float32 3D and 3D (broadcast) tensors"
 * (tolerance ULP 8) */
static const double cf_matmul_inputA[] = {
	56.46701431274414, 99.86045837402344, 71.054931640625, 32.454383850097656,
	17.310747146606445, 2.586275100708008, 92.31499481201172, 96.9758529663086,
	26.472131729125977, 77.67031860351562, 29.278789520263672, 82.12142181396484,
	89.89308166503906, 82.49795532226562, 64.36865997314453, 23.75928497314453,
	6.670266628265381, 81.55583190917969, 16.142963409423828, 57.45134735107422,
	26.826417922973633, 85.02970123291016, 36.1988639831543, 89.60960388183594
};
static const double cf_matmul_inputB[] = {
	27.829805374145508, 83.1454849243164, 34.41289520263672, 83.20379638671875
};
static const double cf_matmul_out[] = {
	15019.9462890625, 11942.376953125, 15035.0322265625, 13553.013671875, 12302.328125,
	16517.9765625
};

/* softmax.json: "softmax float32 3D constant tensor"
 * (tolerance ULP 12) */
static const double cf_softmax_softmaxInput[] = {
	0.4301910996437073, 0.5471914410591125, -1.1637765169143677, 0.18390046060085297,
	0.583903968334198, 0.17356790602207184, 0.5397239923477173, -0.9535139799118042,
	-0.5920282602310181, -0.17344485223293304, 0.14395014941692352, -0.37920907139778137
};
static const double cf_softmax_out[] = {
	0.39589041471481323, 0.45983806252479553, 0.09812675416469574, 0.529077410697937,
	0.4616699814796448, 0.31647709012031555, 0.5390242338180542, 0.16964708268642426,
	0.142439603805542, 0.22368484735488892, 0.36284899711608887, 0.3012755215167999
};

/* batch_normalization.json: "batchNormalization float32 4D NHWC tensor all options"
 * (tolerance ULP 6) */
static const double cf_bn_bnInput[] = {
	-41.30733108520508, 83.02227020263672, -40.90216064453125, 64.08863830566406,
	-80.08049011230469, 56.96306228637695, -63.376670837402344, -62.144378662109375,
	37.37249755859375, -46.790367126464844, -0.10012771934270859, 57.046478271484375,
	82.05680084228516, -21.35103988647461, -85.36802673339844, -86.1164321899414,
	-96.93824005126953, 62.35185241699219, 76.8831787109375, -9.359310150146484,
	-68.4724349975586, 97.03362274169922, 80.20824432373047, -12.10716724395752
};
static const double cf_bn_bnMean[] = {
	51.629150390625, 99.36075592041016, -96.1473617553711
};
static const double cf_bn_bnVariance[] = {
	30.448015213012695, 86.36219024658203, 73.88455200195312
};
static const double cf_bn_bnScale[] = {
	65.50171661376953, -71.007568359375, -5.569730758666992
};
static const double cf_bn_bnBias[] = {
	64.2044677734375, 75.28591918945312, -84.57243347167969
};
static const double cf_bn_out[] = {
	-1039.0085734071204, 200.12613597546277, -120.36987167541395, 212.10626540432202,
	1446.3732126569944, -183.78396479879416, -1300.9852072279227, 1309.3257094058545,
	-171.08979404258523, -1104.0956031373803, 835.2536189871761, -183.83801576309426,
	425.3993215144054, 997.6290832897452, -91.55716013805052, -1570.920072497096,
	1575.1810627320297, -187.2757593197739, 363.98524710447384, 906.0018322105,
	-102.5050592863526, 603.1834043179756, 221.6277675074517, -139.02827100419768
};

/* l2Pool2d.json: "l2Pool2d float32 4D tensor options.outputShapeRounding=ceil with asymmetric window"
 * (tolerance ULP 8) */
static const double cf_l2pool_l2Pool2dInput[] = {
	3.0, 3.0, 3.0, 3.0, 1.0, 4.0, 4.0, 4.0, 4.0, 2.0, 5.0, 5.0, 5.0, 5.0, 2.0, 3.0, 3.0, 3.0,
	3.0, 2.0, 4.0, 4.0, 4.0, 4.0, 1.0
};
static const double cf_l2pool_out[] = {
	10.0, 10.0, 3.0, 10.0, 10.0, 3.0
};

/* averagePool2d.json: "averagePool2d float16 4D tensor options.padding"
 * (tolerance ULP 27) */
static const double cf_avgpool16_averagePool2dInput[] = {
	22.96875, 78.125, 9.6875, 51.3125, 32.1875, 87.625, 87.25, 39.5, 80.125, 10.21875, 52.59375,
	1.4130859375, 11.953125, 85.0, 64.8125, 88.0625, 11.3359375, 70.625, 84.875, 79.0625,
	7.328125, 35.96875, 10.1796875, 1.4140625, 78.125, 91.625, 65.625, 55.15625, 18.4375,
	49.34375, 15.6484375, 68.0, 20.34375, 26.734375, 64.875, 46.5625, 79.5625, 4.33984375,
	38.1875, 45.25, 81.0, 67.5625, 6.02734375, 29.78125, 58.59375, 2.23828125, 14.5078125,
	68.75, 76.4375, 23.53125
};
static const double cf_avgpool16_out[] = {
	52.4375, 49.84375, 47.28125, 46.15625, 46.625, 43.625, 44.71875, 44.0625
};
static const uint16_t cf_avgpool16_bits[] = {
	21134, 21051, 20969, 20933, 20948, 20852, 20887, 20866
};

TEST(ref_conformance_conv2d)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
	uint32_t f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 3, 3), cf_conv_dil_conv2dFilter);
	Webnn__Ipc__Conv2d *m = conv_msg(&t, x, f);
	LIST(m, dilations, 2, 2);
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(cf_conv_dil_conv2dInput), cf_conv_dil_out, 18);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 4, 2, 2));
	f = rt_constant(&t, WNN_F32, SHAPE(4, 1, 2, 2), cf_conv_dw_conv2dFilter);
	m = conv_msg(&t, x, f);
	m->groups = 4;
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(cf_conv_dw_conv2dInput), cf_conv_dw_out, 8);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 3, 3, 1));
	f = rt_constant(&t, WNN_F32, SHAPE(1, 2, 2, 3), cf_conv_nhwc_conv2dFilter);
	m = conv_msg(&t, x, f);
	m->input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	m->filter_layout = WEBNN__IPC__CONV2D_FILTER_LAYOUT__IHWO;
	uint32_t o = rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect_shape(&t, o, SHAPE(2, 2, 2, 3));
	rt_expect(&t, INS(cf_conv_nhwc_conv2dInput), cf_conv_nhwc_out, 8);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 1, 3, 3));
	f = rt_constant(&t, WNN_F32, SHAPE(3, 1, 2, 2), cf_conv_bias_conv2dFilter);
	uint32_t b = rt_constant(&t, WNN_F32, SHAPE(3), cf_conv_bias_conv2dBias);
	m = conv_msg(&t, x, f);
	m->has_bias = true, m->bias = b;
	rt_op(&t, WNN_OP_CONV2D, m);
	rt_expect(&t, INS(cf_conv_bias_conv2dInput), cf_conv_bias_out, 8);
	tg_free(&t);
}

TEST(ref_conformance_gemm_matmul_softmax)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_F32, SHAPE(3, 4)), b = tg_input(&t, WNN_F32, SHAPE(4, 5));
	uint32_t c = tg_input(&t, WNN_F32, SHAPE(3, 1));
	Webnn__Ipc__Gemm *m = gemm_msg(&t, a, b);
	m->has_c = true, m->c = c;
	rt_op(&t, WNN_OP_GEMM, m);
	rt_expect(&t, INS(cf_gemm_inputA, cf_gemm_inputB, cf_gemm_inputC), cf_gemm_out, 9);
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_F32, SHAPE(2, 3, 4));
	b = tg_input(&t, WNN_F32, SHAPE(1, 4, 1));
	uint32_t o = matmul(&t, a, b);
	rt_expect_shape(&t, o, SHAPE(2, 3, 1));
	rt_expect(&t, INS(cf_matmul_inputA, cf_matmul_inputB), cf_matmul_out, 8);
	tg_free(&t);

	tg_init(&t);
	uint32_t x = rt_constant(&t, WNN_F32, SHAPE(1, 3, 4), cf_softmax_softmaxInput);
	softmax(&t, x, 1);
	rt_expect(&t, INS(NULL), cf_softmax_out, 12);
	tg_free(&t);
}

TEST(ref_conformance_batchnorm_and_pools)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 2, 2, 3));
	uint32_t mean = tg_input(&t, WNN_F32, SHAPE(3)), var = tg_input(&t, WNN_F32, SHAPE(3));
	uint32_t scale = tg_input(&t, WNN_F32, SHAPE(3)), bias = tg_input(&t, WNN_F32, SHAPE(3));
	Webnn__Ipc__BatchNormalization *m = bn_msg(&t, x, mean, var);
	m->has_scale = true, m->scale = scale, m->has_bias = true, m->bias = bias;
	m->axis = 3, m->epsilon = 1e-6;
	rt_op(&t, WNN_OP_BATCH_NORMALIZATION, m);
	rt_expect(&t, INS(cf_bn_bnInput, cf_bn_bnMean, cf_bn_bnVariance, cf_bn_bnScale, cf_bn_bnBias),
	       cf_bn_out, 6);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 5, 5));
	Webnn__Ipc__Pool2d *p = pool_msg(&t, x);
	LIST(p, window_dimensions, 3, 2);
	LIST(p, strides, 2, 2);
	p->output_shape_rounding = WEBNN__IPC__ROUNDING_TYPE__ROUND_CEIL;
	uint32_t o = pool(&t, WNN_OP_L2_POOL2D, p);
	rt_expect_shape(&t, o, SHAPE(1, 1, 2, 3));
	rt_expect(&t, INS(cf_l2pool_l2Pool2dInput), cf_l2pool_out, 8);
	tg_free(&t);

	/* float16: compared on the expected half bit patterns with WPT's 27 ULP */
	tg_init(&t);
	x = tg_input(&t, WNN_F16, SHAPE(1, 2, 5, 5));
	p = pool_msg(&t, x);
	LIST(p, padding, 1, 0, 0, 1);
	o = pool(&t, WNN_OP_AVERAGE_POOL2D, p);
	rt_expect_shape(&t, o, SHAPE(1, 2, 2, 2));
	void **outs = rt_run(&t, INS(cf_avgpool16_averagePool2dInput));
	char msg[256];
	if (!tg_compare(outs[0], cf_avgpool16_bits, WNN_F16, 8, 27, 0, 0, msg, sizeof(msg)))
		FAIL("%s", msg);
	(void)cf_avgpool16_out;
	tg_free(&t);
}

/* Found by reading for the fuzz targets: compile listed an operation's inputs into a fixed
 * 80-entry array, so a concat of more inputs failed with "cannot list its inputs". */
TEST(ref_concat_of_many_inputs)
{
	enum { N = 300 };
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_I32, SHAPE(1, 2));
	Webnn__Ipc__Concat ci = WEBNN__IPC__CONCAT__INIT, *cm = rt_arena(sizeof(*cm));
	*cm = ci;
	uint32_t *ids = rt_arena(N * sizeof(uint32_t));
	for (int i = 0; i < N; i++)
		ids[i] = x;
	cm->inputs = ids, cm->n_inputs = N;
	cm->axis = 0, cm->output = tg_next(&t);
	uint32_t o = rt_op(&t, WNN_OP_CONCAT, cm);
	rt_expect_shape(&t, o, SHAPE(N, 2));
	double *want = rt_arena(2 * N * sizeof(double));
	for (int i = 0; i < N; i++)
		want[2 * i] = 7, want[2 * i + 1] = -3;
	rt_expect(&t, INS(D(7, -3)), want, 0);
	tg_free(&t);
}

/* ---- hand-computed values: cast, quantization, data movement, gather/scatter, reductions,
 * normalization, resample2d, recurrent cells, integer pow */

/* ---- cast, argMin/argMax, cumulativeSum */

TEST(refx_cast_truncates_saturates_and_wraps)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(6));
	Webnn__Ipc__Cast *m = MSG(Webnn__Ipc__Cast, WEBNN__IPC__CAST__INIT);
	m->input = x, m->output = tg_next(&t), m->data_type = WEBNN__IPC__DATA_TYPE__INT8;
	rt_op(&t, WNN_OP_CAST, m);
	/* toward zero; out of range saturates; NaN -> 0 */
	rt_expect(&t, INS(D(2.9, -2.9, 300, -300, NAN, 127.5)), D(2, -2, 127, -128, 0, 127), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_I32, SHAPE(3));
	m = MSG(Webnn__Ipc__Cast, WEBNN__IPC__CAST__INIT);
	m->input = x, m->output = tg_next(&t), m->data_type = WEBNN__IPC__DATA_TYPE__UINT8;
	rt_op(&t, WNN_OP_CAST, m);
	rt_expect(&t, INS(D(257, -1, 7)), D(1, 255, 7), 0); /* integer -> integer wraps */
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_U8, SHAPE(2));
	m = MSG(Webnn__Ipc__Cast, WEBNN__IPC__CAST__INIT);
	m->input = x, m->output = tg_next(&t), m->data_type = WEBNN__IPC__DATA_TYPE__FLOAT16;
	rt_op(&t, WNN_OP_CAST, m);
	rt_expect(&t, INS(D(255, 3)), D(255, 3), 0);
	tg_free(&t);

	/* int64 -> float32 rounds once: 2^53 + 1 -> 2^53 */
	tg_init(&t);
	int64_t big[1] = { 9007199254740993LL };
	x = tg_constant(&t, WNN_I64, SHAPE(1), big);
	m = MSG(Webnn__Ipc__Cast, WEBNN__IPC__CAST__INIT);
	m->input = x, m->output = tg_next(&t), m->data_type = WEBNN__IPC__DATA_TYPE__FLOAT32;
	rt_op(&t, WNN_OP_CAST, m);
	float *f = rt_run(&t, NULL)[0];
	ASSERT(f[0] == 9007199254740992.0f);
	tg_free(&t);
}

TEST(refx_arg_min_max_ties_axes_and_output_types)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	Webnn__Ipc__ArgMinMax *m = MSG(Webnn__Ipc__ArgMinMax, WEBNN__IPC__ARG_MIN_MAX__INIT);
	m->input = x, m->output = tg_next(&t), m->axis = 1;
	uint32_t o = rt_op(&t, WNN_OP_ARG_MAX, m);
	rt_expect_shape(&t, o, SHAPE(2));
	rt_expect(&t, INS(D(1, 5, 5, 7, NAN, 2)), D(1, 0), 0); /* ties: first; NaN never wins */
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_I64, SHAPE(2, 3));
	m = MSG(Webnn__Ipc__ArgMinMax, WEBNN__IPC__ARG_MIN_MAX__INIT);
	m->input = x, m->output = tg_next(&t), m->axis = 0, m->keep_dimensions = true;
	m->has_output_data_type = true, m->output_data_type = WEBNN__IPC__DATA_TYPE__INT64;
	o = rt_op(&t, WNN_OP_ARG_MIN, m);
	rt_expect_shape(&t, o, SHAPE(1, 3));
	ASSERT_EQ(t.descs[o].type, WNN_I64);
	rt_expect(&t, INS(D(3, -4, 9, 3, -5, 8)), D(0, 1, 1), 0);
	tg_free(&t);
}

TEST(refx_cumulative_sum_exclusive_reversed)
{
	const double *want[4] = { D(1, 3, 6, 10, 5, 11, 18, 26), D(0, 1, 3, 6, 0, 5, 11, 18),
				  D(10, 9, 7, 4, 26, 21, 15, 8), D(9, 7, 4, 0, 21, 15, 8, 0) };
	for (int k = 0; k < 4; k++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, k < 2 ? WNN_F32 : WNN_I32, SHAPE(2, 4));
		Webnn__Ipc__CumulativeSum *m =
			MSG(Webnn__Ipc__CumulativeSum, WEBNN__IPC__CUMULATIVE_SUM__INIT);
		m->input = x, m->output = tg_next(&t), m->axis = 1;
		m->exclusive = k & 1, m->reversed = k >= 2;
		rt_op(&t, WNN_OP_CUMULATIVE_SUM, m);
		rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6, 7, 8)), want[k], 0);
		tg_free(&t);
	}
}

/* ---- convTranspose2d */

TEST(refx_conv_transpose2d_strides_padding_output_padding_bias)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	uint32_t f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 1, 1, 1));
	Webnn__Ipc__ConvTranspose2d *m =
		MSG(Webnn__Ipc__ConvTranspose2d, WEBNN__IPC__CONV_TRANSPOSE2D__INIT);
	m->input = x, m->filter = f, m->output = tg_next(&t);
	uint32_t o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 3, 3));
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(1, 3, 2, 4, 10, 6, 3, 7, 4), 0);
	tg_free(&t);

	/* stride 2: each input becomes a separate 2x2 block; outputPadding adds a zero row/col
	 * (bias 10 there); padding 1 crops one from the start */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	f = rt_constant(&t, WNN_F32, SHAPE(1, 1, 2, 2), D(1, 2, 3, 4));
	uint32_t b = rt_constant(&t, WNN_F32, SHAPE(1), D(10));
	m = MSG(Webnn__Ipc__ConvTranspose2d, WEBNN__IPC__CONV_TRANSPOSE2D__INIT);
	m->input = x, m->filter = f, m->output = tg_next(&t);
	m->has_bias = true, m->bias = b;
	LIST(m, strides, 2, 2);
	LIST(m, output_padding, 1, 1);
	LIST(m, padding, 1, 0, 1, 0);
	o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 4, 4));
	/* full (uncropped) 5x5 of x=[1,0;0,0]-style blocks: row r, col c of block (i,j) =
	 * x[i][j] * f[r][c]; crop first row and column */
	rt_expect(&t, INS(D(1, 0, 0, 1)),
		D(14, 10, 10, 10, 10, 11, 12, 10, 10, 13, 14, 10, 10, 10, 10, 10), 0);
	tg_free(&t);
}

TEST(refx_conv_transpose2d_layouts_groups_agree)
{
	/* groups 2, 2 input channels, 2 output channels per group: out channel oc of group g
	 * sums only input channel g. IOHW filter [2, 2, 1, 1]. */
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 2, 1, 1));
	uint32_t f = rt_constant(&t, WNN_F32, SHAPE(2, 2, 1, 1), D(1, 2, 3, 4));
	Webnn__Ipc__ConvTranspose2d *m =
		MSG(Webnn__Ipc__ConvTranspose2d, WEBNN__IPC__CONV_TRANSPOSE2D__INIT);
	m->input = x, m->filter = f, m->output = tg_next(&t), m->groups = 2;
	uint32_t o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 4, 1, 1));
	rt_expect(&t, INS(D(10, 100)), D(10, 20, 300, 400), 0);
	tg_free(&t);

	/* NHWC input with HWOI filter = NCHW with IOHW on the same numbers */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 2, 2, 1));
	f = rt_constant(&t, WNN_F32, SHAPE(2, 2, 1, 1), D(1, 2, 3, 4)); /* HWOI: [kh, kw, o, i] */
	m = MSG(Webnn__Ipc__ConvTranspose2d, WEBNN__IPC__CONV_TRANSPOSE2D__INIT);
	m->input = x, m->filter = f, m->output = tg_next(&t);
	m->input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	m->filter_layout = WEBNN__IPC__CONV_TRANSPOSE2D_FILTER_LAYOUT__HWOI;
	o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 3, 3, 1));
	/* input [1,2;3,4] (h, w), kernel [1,2;3,4] */
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(1, 4, 4, 6, 20, 16, 9, 24, 16), 0);
	tg_free(&t);
}

/* ---- quantization */

TEST(refx_quantize_dequantize_rounding_saturation_blocks)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	uint32_t s = rt_constant(&t, WNN_F32, SHAPE(2, 1), D(1, 0.5));
	uint32_t z = rt_constant(&t, WNN_I8, SHAPE(2, 1), D(0, 10));
	Webnn__Ipc__QuantizeLinear *m =
		MSG(Webnn__Ipc__QuantizeLinear, WEBNN__IPC__QUANTIZE_LINEAR__INIT);
	m->input = x, m->scale = s, m->zero_point = z, m->output = tg_next(&t);
	uint32_t o = rt_op(&t, WNN_OP_QUANTIZE_LINEAR, m);
	ASSERT_EQ(t.descs[o].type, WNN_I8);
	/* row 0: ties to even, saturation; row 1: x / 0.5 + 10 */
	rt_expect(&t, INS(D(0.5, 2.5, -300, 1.25, -3, 100)), D(0, 2, -128, 12, 4, 127), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_U8, SHAPE(4));
	s = rt_constant(&t, WNN_F16, SHAPE(2), D(0.5, 2));
	z = rt_constant(&t, WNN_U8, SHAPE(2), D(5, 0));
	m = MSG(Webnn__Ipc__QuantizeLinear, WEBNN__IPC__QUANTIZE_LINEAR__INIT);
	m->input = x, m->scale = s, m->zero_point = z, m->output = tg_next(&t);
	o = rt_op(&t, WNN_OP_DEQUANTIZE_LINEAR, m);
	ASSERT_EQ(t.descs[o].type, WNN_F16);
	rt_expect(&t, INS(D(10, 0, 3, 255)), D(2.5, -2.5, 6, 510), 0); /* block size 2 */
	tg_free(&t);
}

/* ---- data movement */

TEST(refx_expand_tile)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_I32, SHAPE(3, 1));
	Webnn__Ipc__Expand *e = MSG(Webnn__Ipc__Expand, WEBNN__IPC__EXPAND__INIT);
	e->input = x, e->output = tg_next(&t);
	LIST(e, new_shape, 2, 3, 2);
	uint32_t o = rt_op(&t, WNN_OP_EXPAND, e);
	rt_expect_shape(&t, o, SHAPE(2, 3, 2));
	rt_expect(&t, INS(D(1, 2, 3)), D(1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F16, SHAPE(1, 2));
	Webnn__Ipc__Tile *tm = MSG(Webnn__Ipc__Tile, WEBNN__IPC__TILE__INIT);
	tm->input = x, tm->output = tg_next(&t);
	LIST(tm, repetitions, 2, 3);
	o = rt_op(&t, WNN_OP_TILE, tm);
	rt_expect_shape(&t, o, SHAPE(2, 6));
	rt_expect(&t, INS(D(1, 2)), D(1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2), 0);
	tg_free(&t);
}

TEST(refx_gather_family_negative_and_out_of_range_indices)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	uint32_t i = rt_constant(&t, WNN_I64, SHAPE(4), D(2, -1, -3, 99)); /* -3 -> 0, 99 clamps to 2 */
	Webnn__Ipc__Gather *m = MSG(Webnn__Ipc__Gather, WEBNN__IPC__GATHER__INIT);
	m->input = x, m->indices = i, m->output = tg_next(&t), m->axis = 1;
	uint32_t o = rt_op(&t, WNN_OP_GATHER, m);
	rt_expect_shape(&t, o, SHAPE(2, 4));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6)), D(3, 3, 1, 3, 6, 6, 4, 6), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	i = rt_constant(&t, WNN_U32, SHAPE(1, 3), D(1, 0, 7));
	m = MSG(Webnn__Ipc__Gather, WEBNN__IPC__GATHER__INIT);
	m->input = x, m->indices = i, m->output = tg_next(&t), m->axis = 0;
	o = rt_op(&t, WNN_OP_GATHER_ELEMENTS, m);
	rt_expect_shape(&t, o, SHAPE(1, 3));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6)), D(4, 2, 6), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_I8, SHAPE(2, 2, 2));
	i = rt_constant(&t, WNN_I32, SHAPE(3, 2), D(0, 1, -1, 0, 5, -9));
	m = MSG(Webnn__Ipc__Gather, WEBNN__IPC__GATHER__INIT);
	m->input = x, m->indices = i, m->output = tg_next(&t);
	o = rt_op(&t, WNN_OP_GATHER_ND, m);
	rt_expect_shape(&t, o, SHAPE(3, 2));
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6, 7, 8)), D(3, 4, 5, 6, 5, 6), 0); /* (1, -9): -7 clamps to 0 */
	tg_free(&t);
}

TEST(refx_scatter_elements_and_nd)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	uint32_t i = rt_constant(&t, WNN_I32, SHAPE(2, 2), D(2, 2, 0, -1)); /* duplicate: later wins */
	uint32_t u = tg_input(&t, WNN_F32, SHAPE(2, 2));
	Webnn__Ipc__Scatter *m = MSG(Webnn__Ipc__Scatter, WEBNN__IPC__SCATTER__INIT);
	m->input = x, m->indices = i, m->updates = u, m->output = tg_next(&t), m->axis = 1;
	rt_op(&t, WNN_OP_SCATTER_ELEMENTS, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(10, 20, 30, 40)), D(1, 2, 20, 30, 5, 40), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_I64, SHAPE(3, 2));
	i = rt_constant(&t, WNN_I64, SHAPE(2, 1), D(-1, 50)); /* row 2, then row 2 again (clamped) */
	u = tg_input(&t, WNN_I64, SHAPE(2, 2));
	m = MSG(Webnn__Ipc__Scatter, WEBNN__IPC__SCATTER__INIT);
	m->input = x, m->indices = i, m->updates = u, m->output = tg_next(&t);
	rt_op(&t, WNN_OP_SCATTER_ND, m);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6), D(7, 8, 9, 10)), D(1, 2, 3, 4, 9, 10), 0);
	tg_free(&t);
}

TEST(refx_pad_modes)
{
	const double *want[3] = { D(9, 9, 1, 2, 3, 9, 9), D(1, 1, 1, 2, 3, 3, 3),
				  D(3, 2, 1, 2, 3, 2, 1) };
	for (int mode = 0; mode < 3; mode++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(3));
		Webnn__Ipc__Pad *m = MSG(Webnn__Ipc__Pad, WEBNN__IPC__PAD__INIT);
		m->input = x, m->output = tg_next(&t), m->mode = (Webnn__Ipc__PaddingMode)mode;
		LIST(m, beginning_padding, 2);
		LIST(m, ending_padding, 2);
		if (mode == 0)
			m->value = rt_number(9);
		uint32_t o = rt_op(&t, WNN_OP_PAD, m);
		rt_expect_shape(&t, o, SHAPE(7));
		rt_expect(&t, INS(D(1, 2, 3)), want[mode], 0);
		tg_free(&t);
	}
	/* 2-D integer, default value 0, value saturated to the type */
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_U8, SHAPE(1, 2));
	Webnn__Ipc__Pad *m = MSG(Webnn__Ipc__Pad, WEBNN__IPC__PAD__INIT);
	m->input = x, m->output = tg_next(&t), m->value = rt_number(1000);
	LIST(m, beginning_padding, 1, 0);
	LIST(m, ending_padding, 0, 1);
	rt_op(&t, WNN_OP_PAD, m);
	rt_expect(&t, INS(D(4, 5)), D(255, 255, 255, 4, 5, 255), 0);
	tg_free(&t);
}

TEST(refx_reverse_slice_split)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	Webnn__Ipc__Reverse *r = MSG(Webnn__Ipc__Reverse, WEBNN__IPC__REVERSE__INIT);
	r->input = x, r->output = tg_next(&t), r->has_axes = true;
	LIST(r, axes, 1);
	rt_op(&t, WNN_OP_REVERSE, r);
	rt_expect(&t, INS(D(1, 2, 3, 4, 5, 6)), D(3, 2, 1, 6, 5, 4), 0);
	tg_free(&t);

	tg_init(&t); /* axes absent: all axes; given but empty: none */
	x = tg_input(&t, WNN_I32, SHAPE(2, 2));
	r = MSG(Webnn__Ipc__Reverse, WEBNN__IPC__REVERSE__INIT);
	r->input = x, r->output = tg_next(&t);
	uint32_t a = rt_op(&t, WNN_OP_REVERSE, r);
	r = MSG(Webnn__Ipc__Reverse, WEBNN__IPC__REVERSE__INIT);
	r->input = x, r->output = tg_next(&t), r->has_axes = true;
	uint32_t b = rt_op(&t, WNN_OP_REVERSE, r);
	tg_output(&t, a);
	tg_output(&t, b);
	void **outs = rt_run(&t, INS(D(1, 2, 3, 4)));
	rt_check(&t, outs, 0, D(4, 3, 2, 1), 0, 0);
	rt_check(&t, outs, 1, D(1, 2, 3, 4), 0, 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(3, 5));
	Webnn__Ipc__Slice *s = MSG(Webnn__Ipc__Slice, WEBNN__IPC__SLICE__INIT);
	s->input = x, s->output = tg_next(&t);
	LIST(s, starts, 0, 1);
	LIST(s, sizes, 3, 4);
	LIST(s, strides, 2, 3);
	uint32_t o = rt_op(&t, WNN_OP_SLICE, s);
	rt_expect_shape(&t, o, SHAPE(2, 2));
	rt_expect(&t, INS(D(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)), D(1, 4, 11, 14), 0);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 5));
	Webnn__Ipc__Split *sp = MSG(Webnn__Ipc__Split, WEBNN__IPC__SPLIT__INIT);
	sp->input = x, sp->axis = 1;
	LIST(sp, sizes, 2, 3);
	LIST(sp, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_SPLIT, sp);
	outs = rt_run(&t, INS(D(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)));
	rt_check(&t, outs, 0, D(0, 1, 5, 6), 0, 0);
	rt_check(&t, outs, 1, D(2, 3, 4, 7, 8, 9), 0, 0);
	tg_free(&t);
}

TEST(refx_triangular_where_prelu)
{
	const double in[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	const struct {
		bool upper;
		int diag;
		double want[9];
	} cases[] = {
		{ true, 0, { 1, 2, 3, 0, 5, 6, 0, 0, 9 } },
		{ true, 1, { 0, 2, 3, 0, 0, 6, 0, 0, 0 } },
		{ false, 0, { 1, 0, 0, 4, 5, 0, 7, 8, 9 } },
		{ false, -1, { 0, 0, 0, 4, 0, 0, 7, 8, 0 } },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_I32, SHAPE(3, 3));
		Webnn__Ipc__Triangular *m = MSG(Webnn__Ipc__Triangular, WEBNN__IPC__TRIANGULAR__INIT);
		m->input = x, m->output = tg_next(&t);
		m->upper = cases[k].upper, m->diagonal = cases[k].diag;
		rt_op(&t, WNN_OP_TRIANGULAR, m);
		rt_expect(&t, INS(in), cases[k].want, 0);
		tg_free(&t);
	}

	struct tg_graph t;
	tg_init(&t);
	uint32_t c = tg_input(&t, WNN_U8, SHAPE(2, 1));
	uint32_t tv = tg_input(&t, WNN_F32, SHAPE(3));
	uint32_t fv = rt_constant(&t, WNN_F32, SHAPE(1), D(-1));
	Webnn__Ipc__Where *w = MSG(Webnn__Ipc__Where, WEBNN__IPC__WHERE__INIT);
	w->condition = c, w->true_value = tv, w->false_value = fv, w->output = tg_next(&t);
	uint32_t o = rt_op(&t, WNN_OP_WHERE, w);
	rt_expect_shape(&t, o, SHAPE(2, 3));
	rt_expect(&t, INS(D(0, 7), D(1, 2, 3)), D(-1, -1, -1, 1, 2, 3), 0);
	tg_free(&t);

	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_I32, SHAPE(2, 2));
	uint32_t sl = rt_constant(&t, WNN_I32, SHAPE(2), D(2, 3));
	Webnn__Ipc__Prelu *p = MSG(Webnn__Ipc__Prelu, WEBNN__IPC__PRELU__INIT);
	p->input = x, p->slope = sl, p->output = tg_next(&t);
	rt_op(&t, WNN_OP_PRELU, p);
	rt_expect(&t, INS(D(-1, -2, 5, 0)), D(-2, -6, 5, 0), 0);
	tg_free(&t);
}

/* ---- reductions and normalisation */

TEST(refx_reduce_every_op_along_an_axis)
{
	const double in[6] = { 1, -2, 3, 4, 5, -6 };
	const struct {
		enum wnn_op op;
		double want[2];
	} cases[] = {
		{ WNN_OP_REDUCE_L1, { 6, 15 } },
		{ WNN_OP_REDUCE_L2, { sqrt(14), sqrt(77) } },
		{ WNN_OP_REDUCE_LOG_SUM, { log(2), log(3) } },
		{ WNN_OP_REDUCE_LOG_SUM_EXP,
		  { log(exp(1) + exp(-2) + exp(3)), log(exp(4) + exp(5) + exp(-6)) } },
		{ WNN_OP_REDUCE_MAX, { 3, 5 } },
		{ WNN_OP_REDUCE_MEAN, { 2.0 / 3, 1 } },
		{ WNN_OP_REDUCE_MIN, { -2, -6 } },
		{ WNN_OP_REDUCE_PRODUCT, { -6, -120 } },
		{ WNN_OP_REDUCE_SUM, { 2, 3 } },
		{ WNN_OP_REDUCE_SUM_SQUARE, { 14, 77 } },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
		Webnn__Ipc__Reduce *m = rt_reduce_msg(&t, x);
		m->has_axes = true;
		LIST(m, axes, 1);
		uint32_t o = rt_op(&t, cases[k].op, m);
		rt_expect_shape(&t, o, SHAPE(2));
		rt_expect(&t, INS(in), cases[k].want, 2);
		tg_free(&t);
	}
}

TEST(refx_reduce_axes_default_empty_and_keep_dimensions)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 3));
	Webnn__Ipc__Reduce *m = rt_reduce_msg(&t, x); /* no axes: all */
	uint32_t all = rt_op(&t, WNN_OP_REDUCE_SUM, m);
	m = rt_reduce_msg(&t, x);
	m->keep_dimensions = true;
	uint32_t kept = rt_op(&t, WNN_OP_REDUCE_MEAN, m);
	m = rt_reduce_msg(&t, x);
	m->has_axes = true; /* empty: no reduction, the op per element */
	uint32_t none = rt_op(&t, WNN_OP_REDUCE_L1, m);
	m = rt_reduce_msg(&t, x);
	m->has_axes = true, m->keep_dimensions = true;
	LIST(m, axes, 0);
	uint32_t col = rt_op(&t, WNN_OP_REDUCE_MAX, m);
	rt_expect_shape(&t, all, 0, NULL);
	rt_expect_shape(&t, kept, SHAPE(1, 1));
	rt_expect_shape(&t, none, SHAPE(2, 3));
	rt_expect_shape(&t, col, SHAPE(1, 3));
	tg_output(&t, all), tg_output(&t, kept), tg_output(&t, none), tg_output(&t, col);
	void **outs = rt_run(&t, INS(D(1, -2, 3, 4, 5, -6)));
	rt_check(&t, outs, 0, D(5), 0, 0);
	rt_check(&t, outs, 1, D(5.0 / 6), 1, 0);
	rt_check(&t, outs, 2, D(1, 2, 3, 4, 5, 6), 0, 0);
	rt_check(&t, outs, 3, D(4, 5, 3), 0, 0);
	tg_free(&t);
}

TEST(refx_reduce_integers_exact_and_wrapping)
{
	struct tg_graph t;
	tg_init(&t);
	uint64_t big[2] = { UINT64_MAX, 5 };
	uint32_t x = tg_constant(&t, WNN_U64, SHAPE(2), big);
	uint32_t mx = rt_op(&t, WNN_OP_REDUCE_MAX, rt_reduce_msg(&t, x));
	uint32_t sum = rt_op(&t, WNN_OP_REDUCE_SUM, rt_reduce_msg(&t, x)); /* wraps to 4 */
	uint32_t p32 = tg_input(&t, WNN_U32, SHAPE(2));
	uint32_t prod = rt_op(&t, WNN_OP_REDUCE_PRODUCT, rt_reduce_msg(&t, p32));
	uint32_t i64 = tg_input(&t, WNN_I64, SHAPE(3));
	uint32_t l1 = rt_op(&t, WNN_OP_REDUCE_L1, rt_reduce_msg(&t, i64));
	uint32_t ss = rt_op(&t, WNN_OP_REDUCE_SUM_SQUARE, rt_reduce_msg(&t, i64));
	uint32_t mn = rt_op(&t, WNN_OP_REDUCE_MIN, rt_reduce_msg(&t, i64));
	tg_output(&t, mx), tg_output(&t, sum), tg_output(&t, prod);
	tg_output(&t, l1), tg_output(&t, ss), tg_output(&t, mn);
	void **outs = rt_run(&t, INS(D(65536, 65536), D(-3, 4, -1000000)));
	ASSERT(*(uint64_t *)outs[0] == UINT64_MAX);
	ASSERT(*(uint64_t *)outs[1] == 4);
	ASSERT(*(uint32_t *)outs[2] == 0); /* 2^32 wraps */
	ASSERT(*(int64_t *)outs[3] == 1000007);
	ASSERT(*(int64_t *)outs[4] == 1000000000025LL);
	ASSERT(*(int64_t *)outs[5] == -1000000);
	tg_free(&t);
}

TEST(refx_instance_and_layer_normalization)
{
	const double eps = 1e-5;
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 2, 1, 2));
	uint32_t sc = rt_constant(&t, WNN_F32, SHAPE(2), D(2, 1));
	uint32_t bi = rt_constant(&t, WNN_F32, SHAPE(2), D(0, 5));
	Webnn__Ipc__InstanceNormalization *m =
		MSG(Webnn__Ipc__InstanceNormalization, WEBNN__IPC__INSTANCE_NORMALIZATION__INIT);
	m->input = x, m->output = tg_next(&t);
	m->has_scale = true, m->scale = sc, m->has_bias = true, m->bias = bi;
	rt_op(&t, WNN_OP_INSTANCE_NORMALIZATION, m);
	double a = 2 / sqrt(1 + eps), b = 5 / sqrt(25 + eps);
	rt_expect(&t, INS(D(1, 3, 10, 20)), D(-a, a, 5 - b, 5 + b), 2);
	tg_free(&t);

	/* NHWC: channels last, the same numbers rearranged */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	m = MSG(Webnn__Ipc__InstanceNormalization, WEBNN__IPC__INSTANCE_NORMALIZATION__INIT);
	m->input = x, m->output = tg_next(&t), m->layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	rt_op(&t, WNN_OP_INSTANCE_NORMALIZATION, m);
	double u = 1 / sqrt(1 + eps), v = 1 / sqrt(25 + eps);
	rt_expect(&t, INS(D(1, 10, 3, 20)), D(-u, -5 * v, u, 5 * v), 2);
	tg_free(&t);

	/* layer: default axes [1..rank), scale/bias indexed in axes order */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 2));
	Webnn__Ipc__LayerNormalization *l =
		MSG(Webnn__Ipc__LayerNormalization, WEBNN__IPC__LAYER_NORMALIZATION__INIT);
	l->input = x, l->output = tg_next(&t);
	rt_op(&t, WNN_OP_LAYER_NORMALIZATION, l);
	rt_expect(&t, INS(D(1, 3, 10, 20)), D(-u, u, -5 * v, 5 * v), 2);
	tg_free(&t);

	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(2, 2));
	sc = rt_constant(&t, WNN_F32, SHAPE(2), D(1, 10));
	l = MSG(Webnn__Ipc__LayerNormalization, WEBNN__IPC__LAYER_NORMALIZATION__INIT);
	l->input = x, l->output = tg_next(&t), l->has_axes = true, l->epsilon = 0;
	l->has_scale = true, l->scale = sc;
	LIST(l, axes, 0); /* normalise columns; scale indexed by row */
	rt_op(&t, WNN_OP_LAYER_NORMALIZATION, l);
	rt_expect(&t, INS(D(1, 3, 5, 7)), D(-1, -1, 10, 10), 2);
	tg_free(&t);
}

/* ---- resample2d */

TEST(refx_resample2d_nearest_and_linear)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1, 2, 2));
	Webnn__Ipc__Resample2d *m = MSG(Webnn__Ipc__Resample2d, WEBNN__IPC__RESAMPLE2D__INIT);
	m->input = x, m->output = tg_next(&t);
	m->n_scales = 2, m->scales = rt_arena(2 * sizeof(float)), m->scales[0] = 2, m->scales[1] = 2;
	uint32_t o = rt_op(&t, WNN_OP_RESAMPLE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 1, 4, 4));
	rt_expect(&t, INS(D(1, 2, 3, 4)), D(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4), 0);
	tg_free(&t);

	/* linear, sizes: half-pixel coordinates clamped at the edges */
	tg_init(&t);
	x = tg_input(&t, WNN_F32, SHAPE(1, 1, 1, 2));
	m = MSG(Webnn__Ipc__Resample2d, WEBNN__IPC__RESAMPLE2D__INIT);
	m->input = x, m->output = tg_next(&t), m->mode = WEBNN__IPC__INTERPOLATION_MODE__LINEAR;
	LIST(m, sizes, 1, 4);
	rt_op(&t, WNN_OP_RESAMPLE2D, m);
	rt_expect(&t, INS(D(0, 4)), D(0, 1, 3, 4), 0);
	tg_free(&t);

	/* uint8 linear rounds to nearest; axes [0, 1] */
	tg_init(&t);
	x = tg_input(&t, WNN_U8, SHAPE(1, 2, 1, 1));
	m = MSG(Webnn__Ipc__Resample2d, WEBNN__IPC__RESAMPLE2D__INIT);
	m->input = x, m->output = tg_next(&t), m->mode = WEBNN__IPC__INTERPOLATION_MODE__LINEAR;
	LIST(m, sizes, 1, 4);
	LIST(m, axes, 0, 1);
	o = rt_op(&t, WNN_OP_RESAMPLE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 4, 1, 1));
	rt_expect(&t, INS(D(0, 3)), D(0, 1, 2, 3), 0);
	tg_free(&t);
}

/* ---- recurrent cells, against the spec's formulas written out */

static double sigm(double x)
{
	return 1 / (1 + exp(-x));
}

TEST(refx_gru_cell_reset_after_and_layouts)
{
	/* input 1, hidden 1, batch 1: W = [z, r, n], R = [z, r, n] in zrn layout */
	const double wz = 0.5, wr = -1, wn = 2, rz = 1, rr = 0.5, rn = -1;
	const double b[3] = { 0.1, 0.2, 0.3 }, rb[3] = { 0.4, 0.5, 0.6 }, xv = 1, h = 0.5;
	for (int k = 0; k < 4; k++) {
		bool reset_after = k & 1, rzn = k >= 2;
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1));
		uint32_t w = rzn ? rt_constant(&t, WNN_F32, SHAPE(3, 1), D(wr, wz, wn))
				 : rt_constant(&t, WNN_F32, SHAPE(3, 1), D(wz, wr, wn));
		uint32_t r = rzn ? rt_constant(&t, WNN_F32, SHAPE(3, 1), D(rr, rz, rn))
				 : rt_constant(&t, WNN_F32, SHAPE(3, 1), D(rz, rr, rn));
		uint32_t hs = tg_input(&t, WNN_F32, SHAPE(1, 1));
		uint32_t bb = rzn ? rt_constant(&t, WNN_F32, SHAPE(3), D(b[1], b[0], b[2]))
				  : rt_constant(&t, WNN_F32, SHAPE(3), b);
		uint32_t rbb = rzn ? rt_constant(&t, WNN_F32, SHAPE(3), D(rb[1], rb[0], rb[2]))
				   : rt_constant(&t, WNN_F32, SHAPE(3), rb);
		Webnn__Ipc__GruCell *m = MSG(Webnn__Ipc__GruCell, WEBNN__IPC__GRU_CELL__INIT);
		m->input = x, m->weight = w, m->recurrent_weight = r, m->hidden_state = hs;
		m->has_bias = true, m->bias = bb, m->has_recurrent_bias = true, m->recurrent_bias = rbb;
		m->output = tg_next(&t), m->hidden_size = 1, m->reset_after = reset_after;
		m->has_layout = true;
		m->layout = rzn ? WEBNN__IPC__GRU_WEIGHT_LAYOUT__RZN : WEBNN__IPC__GRU_WEIGHT_LAYOUT__ZRN;
		rt_op(&t, WNN_OP_GRU_CELL, m);
		double z = sigm(wz * xv + rz * h + b[0] + rb[0]);
		double rg = sigm(wr * xv + rr * h + b[1] + rb[1]);
		double n = reset_after ? tanh(wn * xv + b[2] + rg * (rn * h + rb[2]))
				       : tanh(wn * xv + rn * (rg * h) + b[2] + rb[2]);
		double want = z * h + (1 - z) * n;
		rt_expect(&t, INS(D(xv), D(h)), D(want), 4);
		tg_free(&t);
	}
}

TEST(refx_lstm_cell_peephole_and_activations)
{
	/* iofg layout; gates i, o, f, g; peephole (i, o, f) against the incoming cell state */
	const double w[4] = { 0.5, -0.25, 1, 0.75 }, rw[4] = { 0.1, 0.2, -0.3, 0.4 };
	const double bias[4] = { 0.01, 0.02, 0.03, 0.04 }, ph[3] = { 0.5, -0.5, 0.25 };
	const double xv = 2, h = -1, c = 0.5;
	for (int relu = 0; relu < 2; relu++) {
		struct tg_graph t;
		tg_init(&t);
		uint32_t x = tg_input(&t, WNN_F32, SHAPE(1, 1));
		uint32_t wc = rt_constant(&t, WNN_F32, SHAPE(4, 1), w);
		uint32_t rc = rt_constant(&t, WNN_F32, SHAPE(4, 1), rw);
		uint32_t hs = tg_input(&t, WNN_F32, SHAPE(1, 1));
		uint32_t cs = tg_input(&t, WNN_F32, SHAPE(1, 1));
		uint32_t bc = rt_constant(&t, WNN_F32, SHAPE(4), bias);
		uint32_t pc = rt_constant(&t, WNN_F32, SHAPE(3), ph);
		Webnn__Ipc__LstmCell *m = MSG(Webnn__Ipc__LstmCell, WEBNN__IPC__LSTM_CELL__INIT);
		m->input = x, m->weight = wc, m->recurrent_weight = rc, m->hidden_state = hs;
		m->cell_state = cs, m->has_bias = true, m->bias = bc;
		m->has_peephole_weight = true, m->peephole_weight = pc, m->hidden_size = 1;
		LIST(m, outputs, tg_next(&t), tg_next(&t) + 1);
		if (relu) {
			m->n_activations = 3;
			m->activations = rt_arena(3 * sizeof(*m->activations));
			for (int i = 0; i < 3; i++)
				m->activations[i] = WEBNN__IPC__RECURRENT_ACTIVATION__ACT_RELU;
		}
		rt_op(&t, WNN_OP_LSTM_CELL, m);
		double (*fa)(double) = relu ? NULL : sigm;
#define ACT_A(v) (fa ? fa(v) : ((v) > 0 ? (v) : 0))
#define ACT_B(v) (relu ? ((v) > 0 ? (v) : 0) : tanh(v))
		double ig = ACT_A(w[0] * xv + rw[0] * h + bias[0] + ph[0] * c);
		double og = ACT_A(w[1] * xv + rw[1] * h + bias[1] + ph[1] * c);
		double fg = ACT_A(w[2] * xv + rw[2] * h + bias[2] + ph[2] * c);
		double gg = ACT_B(w[3] * xv + rw[3] * h + bias[3]);
		double c2 = fg * c + ig * gg;
		double h2 = og * ACT_B(c2);
#undef ACT_A
#undef ACT_B
		void **outs = rt_run(&t, INS(D(xv), D(h), D(c)));
		rt_check(&t, outs, 0, D(h2), 4, 0);
		rt_check(&t, outs, 1, D(c2), 4, 0);
		tg_free(&t);
	}
}

TEST(refx_gru_sequence_directions_match_cells)
{
	/* gru over 2 steps, direction both with returnSequence: direction 0 runs steps 0, 1 and
	 * direction 1 runs 1, 0; computed here with single gruCell graphs. */
	const double xs[2] = { 1, -2 }, w[3] = { 0.5, -1, 2 }, r[3] = { 1, 0.5, -1 };
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = tg_input(&t, WNN_F32, SHAPE(2, 1, 1));
	uint32_t wc = rt_constant(&t, WNN_F32, SHAPE(2, 3, 1), D(0.5, -1, 2, 0.5, -1, 2));
	uint32_t rc = rt_constant(&t, WNN_F32, SHAPE(2, 3, 1), D(1, 0.5, -1, 1, 0.5, -1));
	Webnn__Ipc__Gru *m = MSG(Webnn__Ipc__Gru, WEBNN__IPC__GRU__INIT);
	m->input = x, m->weight = wc, m->recurrent_weight = rc, m->steps = 2, m->hidden_size = 1;
	m->direction = WEBNN__IPC__RECURRENT_DIRECTION__BOTH, m->return_sequence = true;
	LIST(m, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_GRU, m);
	void **outs = rt_run(&t, INS(xs));
	/* the cell by hand (reset_after, no biases, h0 = 0) */
	double seq[2][2], fin[2];
	for (int dir = 0; dir < 2; dir++) {
		double h = 0;
		for (int step = 0; step < 2; step++) {
			int ts = dir ? 1 - step : step;
			double z = sigm(w[0] * xs[ts] + r[0] * h), rg = sigm(w[1] * xs[ts] + r[1] * h);
			double n = tanh(w[2] * xs[ts] + rg * (r[2] * h));
			h = z * h + (1 - z) * n;
			seq[ts][dir] = h;
		}
		fin[dir] = h;
	}
	rt_check(&t, outs, 0, fin, 6, 0);
	rt_check(&t, outs, 1, D(seq[0][0], seq[0][1], seq[1][0], seq[1][1]), 6, 0);
	tg_free(&t);
}

/* ---- integer pow */

TEST(refx_integer_pow_exact)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t a = tg_input(&t, WNN_I32, SHAPE(7));
	uint32_t b = tg_input(&t, WNN_I32, SHAPE(7));
	Webnn__Ipc__ElementwiseBinary *m =
		MSG(Webnn__Ipc__ElementwiseBinary, WEBNN__IPC__ELEMENTWISE_BINARY__INIT);
	m->a = a, m->b = b, m->output = tg_next(&t);
	rt_op(&t, WNN_OP_POW, m);
	/* negative exponents: 1/a^|b| truncated; 0^-1 -> 0 like integer division by zero */
	rt_expect(&t, INS(D(2, -2, 2, 1, -1, 0, 7), D(10, 3, -1, -5, -3, -1, 0)),
		D(1024, -8, 0, 1, -1, 0, 1), 0);
	tg_free(&t);

	tg_init(&t);
	int64_t base[2] = { 3, 3 }, ex[2] = { 39, 41 };
	uint32_t ca = tg_constant(&t, WNN_I64, SHAPE(2), base);
	uint32_t cb = tg_constant(&t, WNN_I64, SHAPE(2), ex);
	m = MSG(Webnn__Ipc__ElementwiseBinary, WEBNN__IPC__ELEMENTWISE_BINARY__INIT);
	m->a = ca, m->b = cb, m->output = tg_next(&t);
	rt_op(&t, WNN_OP_POW, m);
	int64_t *r = rt_run(&t, NULL)[0];
	ASSERT(r[0] == 4052555153018976267LL);                 /* 3^39, exact */
	ASSERT((uint64_t)r[1] == 4052555153018976267ULL * 9ULL); /* 3^41 mod 2^64 */
	tg_free(&t);

	tg_init(&t);
	a = tg_input(&t, WNN_U8, SHAPE(3));
	b = tg_input(&t, WNN_U8, SHAPE(3));
	m = MSG(Webnn__Ipc__ElementwiseBinary, WEBNN__IPC__ELEMENTWISE_BINARY__INIT);
	m->a = a, m->b = b, m->output = tg_next(&t);
	rt_op(&t, WNN_OP_POW, m);
	rt_expect(&t, INS(D(2, 3, 0), D(8, 5, 0)), D(0, 243, 1), 0); /* 2^8 wraps; 0^0 = 1 */
	tg_free(&t);
}

/* ---- support table and consistency checks */

TEST(refx_supports_every_operator_and_type_of_the_table)
{
	for (int op = 0; op < WNN_OP_COUNT; op++)
		for (int ty = 1; ty < WNN_DT_COUNT; ty++) {
			bool allowed = wnn_ops[op].dtypes & WNN_DT_BIT(ty);
			bool elementwise = wnn_ops[op].attrs == WEBNN__IPC__OPERATION__ATTRS_BINARY ||
					   wnn_ops[op].attrs == WEBNN__IPC__OPERATION__ATTRS_UNARY;
			if (!allowed || elementwise)
				continue;
			ASSERT_MSG(backend_reference.supports(NULL, (enum wnn_op)op, (enum wnn_dtype)ty),
				   "%s %s", wnn_ops[op].name, wnn_dtype_name((enum wnn_dtype)ty));
		}
	ASSERT(backend_reference.supports(NULL, WNN_OP_POW, WNN_U64));
	ASSERT(!backend_reference.supports(NULL, WNN_OP_GRU, WNN_I32));
}

TEST(refx_resolve_rejects_inconsistent_operations)
{
	/* resolved once in proto/ before any backend sees the node */
	struct wnn_diag diag = { 0 };
	enum wnn_op kind;
	union wnn_attrs attrs;
	/* gather whose output shape does not match (validated graphs never get here) */
	struct wnn_desc descs[3] = { { .type = WNN_F32, .rank = 2, .dims = { 2, 3 } },
				     { .type = WNN_I32, .rank = 1, .dims = { 4 } },
				     { .type = WNN_F32, .rank = 2, .dims = { 2, 5 } } };
	Webnn__Ipc__Gather gm = WEBNN__IPC__GATHER__INIT;
	gm.input = 0, gm.indices = 1, gm.output = 2, gm.axis = 1;
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;
	tg_set_op(&op, WNN_OP_GATHER, &gm);
	ASSERT_EQ(wnn_resolve(&op, descs, 3, &kind, &attrs, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "gather: output shape");
	/* attrs of another family */
	wnn_diag_clear(&diag);
	op.op = wnn_ops[WNN_OP_SCATTER_ND].id;
	ASSERT(wnn_resolve(&op, descs, 3, &kind, &attrs, &diag) != WEBNN_STATUS_OK);
	ASSERT_CONTAINS(diag.message, "scatterND");
	/* operand id out of range */
	wnn_diag_clear(&diag);
	op.op = wnn_ops[WNN_OP_GATHER].id;
	gm.indices = 7;
	ASSERT_EQ(wnn_resolve(&op, descs, 3, &kind, &attrs, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "indices operand 7");
	/* an rnn with a wrong weight size */
	wnn_diag_clear(&diag);
	struct wnn_desc rd[5] = { { .type = WNN_F32, .rank = 2, .dims = { 1, 2 } },
				  { .type = WNN_F32, .rank = 2, .dims = { 3, 3 } },
				  { .type = WNN_F32, .rank = 2, .dims = { 3, 1 } },
				  { .type = WNN_F32, .rank = 2, .dims = { 1, 1 } },
				  { .type = WNN_F32, .rank = 2, .dims = { 1, 1 } } };
	Webnn__Ipc__GruCell cm = WEBNN__IPC__GRU_CELL__INIT;
	cm.input = 0, cm.weight = 1, cm.recurrent_weight = 2, cm.hidden_state = 3, cm.output = 4;
	cm.hidden_size = 1;
	tg_set_op(&op, WNN_OP_GRU_CELL, &cm);
	ASSERT_EQ(wnn_resolve(&op, rd, 5, &kind, &attrs, &diag), WEBNN_STATUS_TYPE_ERROR);
	ASSERT_CONTAINS(diag.message, "gruCell: weight");
	/* wnn_wrap_index never leaves [0, n) */
	ASSERT_EQ(wnn_wrap_index(-1, 5), 4u);
	ASSERT_EQ(wnn_wrap_index(-6, 5), 0u);
	ASSERT_EQ(wnn_wrap_index(INT64_MIN, 5), 0u);
	ASSERT_EQ(wnn_wrap_index(INT64_MAX, 5), 4u);
	ASSERT_EQ(wnn_wrap_index(3, 5), 3u);
}
