/* WPT's rules for comparing an output element with its expected value, shared by webnn-run and the tests. */
#include "client/tools/common/compare.h"

#include <math.h>
#include <string.h>

double wnn_half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;
	if (e == 0)
		v = ldexp(m, -24);
	else if (e == 31)
		v = m ? NAN : INFINITY;
	else
		v = ldexp(m | 0x400, e - 25);
	return (h & 0x8000) ? -v : v;
}

/* Orders floats as integers: adjacent floats are 1 apart and -0 and +0 share 0. */
static int64_t f32_key(float x)
{
	uint32_t b;
	float a = fabsf(x);
	memcpy(&b, &a, sizeof(b));
	return x < 0 ? -(int64_t)b : (int64_t)b;
}

double wnn_f32_ulp_distance(float actual, float expected)
{
	if (isnan(actual) || isnan(expected))
		return isnan(actual) && isnan(expected) ? 0 : INFINITY;
	if (actual == expected)
		return 0;
	return fabs((double)(f32_key(actual) - f32_key(expected)));
}

double wnn_f16_ulp_distance(uint16_t actual, uint16_t expected)
{
	if ((actual & 0x7fff) == 0 && (expected & 0x7fff) == 0)
		return 0;
	return fabs((double)actual - (double)expected);
}

bool wnn_within_atol(double actual, double expected, double atol, double *dist)
{
	*dist = fabs(actual - expected);
	return !isnan(actual) && !isnan(expected) && *dist <= atol;
}

uint64_t wnn_int_distance(int64_t actual, int64_t expected)
{
	return actual > expected ? (uint64_t)actual - (uint64_t)expected
				 : (uint64_t)expected - (uint64_t)actual;
}

uint64_t wnn_uint_distance(uint64_t actual, uint64_t expected)
{
	return actual > expected ? actual - expected : expected - actual;
}
