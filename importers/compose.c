/* Compositions both importers use where WebNN has no single operation: the inverse trigonometric functions, from polynomials and WebNN's elementwise operations. */
#include "importers/import_internal.h"

#include "webnn.h"

#include <math.h>

/* atan(x) / x as a polynomial in t = x^2 on [0, 1]: the Chebyshev interpolant of degree 8,
 * rounded to float32 (fitted for this file; evaluated in float32 by Horner's rule it is within
 * 1.9 ulp of atan over [0, 1]). */
static const double atan_poly[9] = { 1.0,
				     -0.3333306610584259,
				     0.19992484152317047,
				     -0.14202570915222168,
				     0.10636754333972931,
				     -0.07495445758104324,
				     0.042587608098983765,
				     -0.016005029901862144,
				     0.0028340641874819994 };

/* A chain of builder calls: the first failure is kept and later calls skipped. */
struct chain {
	struct webnn_builder *b;
	enum webnn_data_type t;
	enum webnn_status st;
};

static struct webnn_operand *c_scalar(struct chain *c, double v)
{
	struct webnn_operand *o = NULL;
	if (c->st == WEBNN_STATUS_OK)
		c->st = webnn_builder_constant_scalar(c->b, c->t, v, &o);
	return o;
}

typedef enum webnn_status (*bin_fn)(struct webnn_builder *, struct webnn_operand *,
				    struct webnn_operand *, struct webnn_operand **);
typedef enum webnn_status (*un_fn)(struct webnn_builder *, struct webnn_operand *,
				   struct webnn_operand **);

static struct webnn_operand *c_bin(struct chain *c, bin_fn fn, struct webnn_operand *a,
				   struct webnn_operand *b)
{
	struct webnn_operand *o = NULL;
	if (c->st == WEBNN_STATUS_OK)
		c->st = fn(c->b, a, b, &o);
	return o;
}

static struct webnn_operand *c_un(struct chain *c, un_fn fn, struct webnn_operand *a)
{
	struct webnn_operand *o = NULL;
	if (c->st == WEBNN_STATUS_OK)
		c->st = fn(c->b, a, &o);
	return o;
}

static struct webnn_operand *c_where(struct chain *c, struct webnn_operand *cond,
				     struct webnn_operand *a, struct webnn_operand *b)
{
	struct webnn_operand *o = NULL;
	if (c->st == WEBNN_STATUS_OK)
		c->st = webnn_builder_where(c->b, cond, a, b, &o);
	return o;
}

/* atan on float32: |x| > 1 is reduced by atan(x) = pi / 2 - atan(1 / x), the sign restored. */
static struct webnn_operand *c_atan(struct chain *c, struct webnn_operand *x)
{
	struct webnn_operand *ax = c_un(c, webnn_builder_abs, x);
	struct webnn_operand *one = c_scalar(c, 1);
	struct webnn_operand *big = c_bin(c, webnn_builder_greater, ax, one);
	struct webnn_operand *r = c_where(c, big, c_bin(c, webnn_builder_div, one, ax), ax);
	struct webnn_operand *t = c_bin(c, webnn_builder_mul, r, r);
	struct webnn_operand *p = c_scalar(c, atan_poly[8]);
	for (int i = 7; i >= 0; i--)
		p = c_bin(c, webnn_builder_add, c_bin(c, webnn_builder_mul, p, t),
			  c_scalar(c, atan_poly[i]));
	p = c_bin(c, webnn_builder_mul, p, r);
	p = c_where(c, big, c_bin(c, webnn_builder_sub, c_scalar(c, M_PI / 2), p), p);
	return c_bin(c, webnn_builder_mul, p, c_un(c, webnn_builder_sign, x));
}

enum webnn_status wnni_inverse_trig(struct webnn_builder *b, enum wnni_inverse_trig which,
				    struct webnn_operand *x, struct webnn_operand **out)
{
	struct webnn_operand_desc d;
	webnn_operand_get_desc(x, &d);
	if (d.data_type != WEBNN_FLOAT32 && d.data_type != WEBNN_FLOAT16)
		return WEBNN_STATUS_NOT_SUPPORTED;
	struct chain c = { b, WEBNN_FLOAT32, WEBNN_STATUS_OK };
	if (d.data_type == WEBNN_FLOAT16) /* the polynomial is float32's */
		c.st = webnn_builder_cast(b, x, WEBNN_FLOAT32, &x);
	struct webnn_operand *y;
	if (which == WNNI_ATAN) {
		y = c_atan(&c, x);
	} else {
		struct webnn_operand *one = c_scalar(&c, 1);
		struct webnn_operand *lo = c_bin(&c, webnn_builder_sub, one, x);
		struct webnn_operand *hi = c_bin(&c, webnn_builder_add, one, x);
		if (which == WNNI_ASIN) { /* atan(x / sqrt((1 - x)(1 + x))): +-inf at +-1 */
			struct webnn_operand *s = c_un(&c, webnn_builder_sqrt,
						       c_bin(&c, webnn_builder_mul, lo, hi));
			y = c_atan(&c, c_bin(&c, webnn_builder_div, x, s));
		} else { /* 2 atan(sqrt((1 - x) / (1 + x))): no cancellation near x = 1 */
			struct webnn_operand *q = c_un(&c, webnn_builder_sqrt,
						       c_bin(&c, webnn_builder_div, lo, hi));
			y = c_bin(&c, webnn_builder_mul, c_atan(&c, q), c_scalar(&c, 2));
		}
	}
	if (c.st == WEBNN_STATUS_OK && d.data_type == WEBNN_FLOAT16)
		c.st = webnn_builder_cast(b, y, WEBNN_FLOAT16, &y);
	if (c.st == WEBNN_STATUS_OK)
		*out = y;
	return c.st;
}
