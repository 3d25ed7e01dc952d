/* Hand-computed operator test vectors: tables of one-operator graphs with independently computed expected outputs. */
#ifndef TESTS_OPVECTORS_H
#define TESTS_OPVECTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/wnn.h"
#include "tests/clienttest.h"

#define OV_MAX_IN 8
#define OV_MAX_OUT 3

/* One operand of a vector. Values are written as doubles (exact for every value the vectors
 * use, NaN, infinities and -0 included) and converted to the operand's type when sent. */
struct ov_operand {
	enum webnn_data_type type; /* 0: unused slot */
	uint32_t rank;
	uint32_t shape[4];
	const double *v;
	bool constant; /* a builder constant instead of a graph input */
};

typedef enum webnn_status (*ov_unary_fn)(struct webnn_builder *b, struct webnn_operand *x,
					  struct webnn_operand **out);
typedef enum webnn_status (*ov_binary_fn)(struct webnn_builder *b, struct webnn_operand *a,
					   struct webnn_operand *bb, struct webnn_operand **out);
/* Builds the vector's operation from its operands (in[] in the vector's order) and stores its
 * outputs in out[] (as many as the vector expects). */
typedef enum webnn_status (*ov_build_fn)(struct webnn_builder *b, struct webnn_operand *const *in,
					  struct webnn_operand **out);

/* One operator applied once: exactly one of unary/binary/build is set. The expected outputs
 * were computed by hand or with Python's math module from the spec's definition, never with the
 * project's expressions or kernels. Float outputs pass when |got - want| <= atol + rtol*|want|
 * (both 0: the default relative tolerance of the output type); NaN must give NaN, infinities
 * the same infinity; integer outputs must be exact. */
struct op_vector {
	enum wnn_op op;
	const char *what;
	ov_unary_fn unary;
	ov_binary_fn binary;
	ov_build_fn build;
	struct ov_operand in[OV_MAX_IN];
	struct ov_operand want[OV_MAX_OUT];
	double rtol, atol;
	bool zero_sign; /* the sign of a zero expected value must match too */
};

/* A family file's vectors, registered in the "wnn_opvectors" section so that the coverage
 * test finds every table without a hand-written list. */
struct ov_table {
	enum wnn_family family;
	const struct op_vector *v;
	size_t n;
};
#define OV_TABLE(family_, array_)                                                              \
	static const struct ov_table ov_table_##array_                                         \
		__attribute__((used, section("wnn_opvectors"), aligned(sizeof(void *)))) = {   \
			WNN_FAMILY_##family_, array_, sizeof(array_) / sizeof(array_[0]) }

/* Runs every registered vector of the family on a webnnd with the given backend ("reference",
 * "cpu", "opencl"; opencl SKIPs without a device) and fails naming each vector that did not match. */
void ov_run_family(enum wnn_family family, const char *backend);

/* TEST(ops_<family>_reference), TEST(ops_<family>_opencl) and TEST(ops_<family>_cpu) for a
 * family's vectors. */
#define OV_FAMILY_TESTS(family_, name_)                                                        \
	TEST_TIMEOUT(ops_##name_##_reference, 60)                                              \
	{                                                                                      \
		ov_run_family(WNN_FAMILY_##family_, "reference");                              \
	}                                                                                      \
	TEST_TIMEOUT(ops_##name_##_opencl, 120)                                                \
	{                                                                                      \
		ov_run_family(WNN_FAMILY_##family_, "opencl");                                 \
	}                                                                                      \
	TEST_TIMEOUT(ops_##name_##_cpu, 60)                                                    \
	{                                                                                      \
		ov_run_family(WNN_FAMILY_##family_, "cpu");                                    \
	}

/* Operand shorthands: OV_IN(type, rank, OV_SHAPE(dims...), values...) for a graph input,
 * OV_CONST(...) for a builder constant, OV_<TYPE>(n, values...) for a 1-D graph input. */
/* The shape stays parenthesised until OV_IN opens it, so that it passes through other macros. */
#define OV_SHAPE(...) (__VA_ARGS__)
#define OV_DIMS(...) { __VA_ARGS__ }
#define OV_VALS(...) ((const double[]){ __VA_ARGS__ })
#define OV_IN(type_, rank_, shape_, ...) \
	{ type_, rank_, OV_DIMS shape_, OV_VALS(__VA_ARGS__), false }
#define OV_CONST(type_, rank_, shape_, ...) \
	{ type_, rank_, OV_DIMS shape_, OV_VALS(__VA_ARGS__), true }
#define OV_F32(n_, ...) OV_IN(WEBNN_FLOAT32, 1, OV_SHAPE(n_), __VA_ARGS__)
#define OV_F16(n_, ...) OV_IN(WEBNN_FLOAT16, 1, OV_SHAPE(n_), __VA_ARGS__)
#define OV_I8(n_, ...) OV_IN(WEBNN_INT8, 1, OV_SHAPE(n_), __VA_ARGS__)
#define OV_U8(n_, ...) OV_IN(WEBNN_UINT8, 1, OV_SHAPE(n_), __VA_ARGS__)
#define OV_I4(n_, ...) OV_IN(WEBNN_INT4, 1, OV_SHAPE(n_), __VA_ARGS__)
#define OV_U4(n_, ...) OV_IN(WEBNN_UINT4, 1, OV_SHAPE(n_), __VA_ARGS__)
#define OV_I32(n_, ...) OV_IN(WEBNN_INT32, 1, OV_SHAPE(n_), __VA_ARGS__)
#define OV_U32(n_, ...) OV_IN(WEBNN_UINT32, 1, OV_SHAPE(n_), __VA_ARGS__)
#define OV_I64(n_, ...) OV_IN(WEBNN_INT64, 1, OV_SHAPE(n_), __VA_ARGS__)
#define OV_U64(n_, ...) OV_IN(WEBNN_UINT64, 1, OV_SHAPE(n_), __VA_ARGS__)

#endif
