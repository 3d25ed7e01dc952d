/* libwebnn's shared types: status codes and wire-valued enums, used by webnn.h and by webnnd. */
#ifndef WEBNN_TYPES_H
#define WEBNN_TYPES_H

/* Default socket when neither webnn_context_options.socket_path nor $WEBNN_SOCKET is set. */
#define WEBNN_DEFAULT_SOCKET "/run/webnn/webnnd.sock"

/* The one version number of libwebnn, webnnd and the tools: the Makefile, pkg-config and the
 * Debian packages read it from here. */
#define WEBNN_VERSION_MAJOR 0
#define WEBNN_VERSION_MINOR 1
#define WEBNN_VERSION_PATCH 0
#define WEBNN_VERSION_STRING_(a, b, c) #a "." #b "." #c
#define WEBNN_VERSION_STRING_X(a, b, c) WEBNN_VERSION_STRING_(a, b, c)
#define WEBNN_VERSION_STRING                                                           \
	WEBNN_VERSION_STRING_X(WEBNN_VERSION_MAJOR, WEBNN_VERSION_MINOR, WEBNN_VERSION_PATCH)

/* ---- status codes: wire-stable, never renumber. X(NAME, code, DOMException name, text);
 * OK, not an exception, is named "OK". */
#define WEBNN_STATUS_MAP(X)                                                            \
	X(OK, 0, "OK", "success")                                                      \
	X(TYPE_ERROR, 1, "TypeError", "invalid argument")                              \
	X(DATA_ERROR, 2, "DataError", "invalid tensor data")                           \
	X(OPERATION_ERROR, 3, "OperationError", "operation failed")                    \
	X(NOT_SUPPORTED, 4, "NotSupportedError", "not supported by this context")      \
	X(INVALID_STATE, 5, "InvalidStateError", "object in wrong state")              \
	X(CONTEXT_LOST, 6, "InvalidStateError", "context lost")                        \
	X(NO_MEMORY, 7, "UnknownError", "out of memory")                               \
	X(PROTOCOL_ERROR, 8, "UnknownError", "protocol error")

enum webnn_status {
#define WEBNN_STATUS_ENUM_(name, code, dom, text) WEBNN_STATUS_##name = code,
	WEBNN_STATUS_MAP(WEBNN_STATUS_ENUM_)
#undef WEBNN_STATUS_ENUM_
};
/* ---- enums (values are wire values) */
enum webnn_data_type {
	WEBNN_FLOAT32 = 1,
	WEBNN_FLOAT16 = 2,
	WEBNN_INT32 = 3,
	WEBNN_UINT32 = 4,
	WEBNN_INT64 = 5,
	WEBNN_UINT64 = 6,
	WEBNN_INT8 = 7,
	WEBNN_UINT8 = 8,
	/* Extension (WPT and Chromium have them; the spec text does not): packed two per byte, see
	 * webnn_int4_pack(). Only quantizeLinear's zeroPoint/output and dequantizeLinear's
	 * input/zeroPoint take them. */
	WEBNN_INT4 = 9,
	WEBNN_UINT4 = 10,
};
enum webnn_power_preference { WEBNN_POWER_DEFAULT, WEBNN_POWER_HIGH_PERFORMANCE, WEBNN_POWER_LOW_POWER };
enum webnn_layout { WEBNN_LAYOUT_NCHW, WEBNN_LAYOUT_NHWC };
enum webnn_conv2d_filter_layout { WEBNN_FILTER_OIHW, WEBNN_FILTER_HWIO, WEBNN_FILTER_OHWI, WEBNN_FILTER_IHWO };
enum webnn_rounding { WEBNN_ROUND_FLOOR, WEBNN_ROUND_CEIL };

#define WEBNN_MAX_RANK 8

#endif
