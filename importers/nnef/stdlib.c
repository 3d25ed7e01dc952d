/* The standard fragment library's text, embedded from importers/nnef/stdlib.nnef by the Makefile. */
#include "importers/nnef/nnef.h"

const char nnef_stdlib_text[] =
#include "nnef_stdlib.inc"
	;
