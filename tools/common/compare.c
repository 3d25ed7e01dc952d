/* WPT's rules for comparing an output element with its expected value, shared by webnn-run and the tests. */
#include "tools/common/compare.h"

#include <math.h>
#include <string.h>

/* Orders floats as integers: adjacent floats are 1 apart and -0 and +0 share 0. */
static int64_t f32_key(float x)
{
	uint32_t b;
	float a = fabsf(x);
	memcpy(&b, &a, sizeof(b));
	return x < 0 ? -(int64_t)b : (int64_t)b;
}

double tool_f32_ulp_distance(float actual, float expected)
{
	if (isnan(actual) || isnan(expected))
		return isnan(actual) && isnan(expected) ? 0 : INFINITY;
	if (actual == expected)
		return 0;
	return fabs((double)(f32_key(actual) - f32_key(expected)));
}

double tool_f16_ulp_distance(uint16_t actual, uint16_t expected)
{
	if ((actual & 0x7fff) == 0 && (expected & 0x7fff) == 0)
		return 0;
	return fabs((double)actual - (double)expected);
}

bool tool_within_atol(double actual, double expected, double atol, double *dist)
{
	*dist = fabs(actual - expected);
	return !isnan(actual) && !isnan(expected) && *dist <= atol;
}

uint64_t tool_int_distance(int64_t actual, int64_t expected)
{
	return actual > expected ? (uint64_t)actual - (uint64_t)expected
				 : (uint64_t)expected - (uint64_t)actual;
}

uint64_t tool_uint_distance(uint64_t actual, uint64_t expected)
{
	return actual > expected ? actual - expected : expected - actual;
}
