/* WPT's rules for comparing an output element with its expected value, shared by webnn-run and the tests. */
#ifndef WNN_TOOLS_COMPARE_H
#define WNN_TOOLS_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

/* A conformance case's tolerance: units in the last place, or an absolute difference. */
enum wnn_metric { WNN_METRIC_ULP, WNN_METRIC_ATOL };
struct wnn_tolerance {
	enum wnn_metric metric;
	double value;
};

/* IEEE binary16 bits as a double (exact). */
double wnn_half_to_double(uint16_t h);

/* ULP distance of float32 values, on sign-magnitude keys so that the distance crosses zero:
 * 0 when equal or both NaN, INFINITY when only one is NaN. */
double wnn_f32_ulp_distance(float actual, float expected);

/* ULP distance of float16 values, on their raw bits as WPT computes it; zeros of either sign
 * are 0 apart. */
double wnn_f16_ulp_distance(uint16_t actual, uint16_t expected);

/* |actual - expected| <= atol; a NaN on either side is never within (WPT's ATOL metric).
 * The distance goes to *dist. */
bool wnn_within_atol(double actual, double expected, double atol, double *dist);

/* Exact distance of integers of the same signedness (no overflow for the 64-bit types). */
uint64_t wnn_int_distance(int64_t actual, int64_t expected);
uint64_t wnn_uint_distance(uint64_t actual, uint64_t expected);

#endif
