/* WPT's rules for comparing an output element with its expected value, shared by webnn-run and the tests. */
#ifndef WEBNN_TOOLS_COMPARE_H
#define WEBNN_TOOLS_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

/* A conformance case's tolerance: units in the last place, or an absolute difference. */
enum tool_metric { TOOL_METRIC_ULP, TOOL_METRIC_ATOL };
struct tool_tolerance {
	enum tool_metric metric;
	double value;
};

/* ULP distance of float32 values, on sign-magnitude keys so that the distance crosses zero:
 * 0 when equal or both NaN, INFINITY when only one is NaN. */
double tool_f32_ulp_distance(float actual, float expected);

/* ULP distance of float16 values, on their raw bits as WPT computes it; zeros of either sign
 * are 0 apart. */
double tool_f16_ulp_distance(uint16_t actual, uint16_t expected);

/* |actual - expected| <= atol; a NaN on either side is never within (WPT's ATOL metric).
 * The distance goes to *dist. */
bool tool_within_atol(double actual, double expected, double atol, double *dist);

/* Exact distance of integers of the same signedness (no overflow for the 64-bit types). */
uint64_t tool_int_distance(int64_t actual, int64_t expected);
uint64_t tool_uint_distance(uint64_t actual, uint64_t expected);

#endif
