#!/bin/sh
# Generates the public operator list webnn_ops.h from proto/ops.def (the one place C names are made).
# usage: gen_webnn_ops.sh proto/ops.def > webnn_ops.h
set -eu
awk '
function c_name(s,    out, i, ch, prev) {
	gsub(/NaN/, "Nan", s)          # the acronym NaN is one word: isNaN -> is_nan
	out = ""; prev = ""
	for (i = 1; i <= length(s); i++) {
		ch = substr(s, i, 1)
		if (ch ~ /[A-Z]/ && prev ~ /[a-z0-9]/)
			out = out "_"
		out = out tolower(ch); prev = ch
	}
	return out
}
BEGIN {
	print "/* Generated from proto/ops.def by client/gen_webnn_ops.sh: do not edit. */"
	print "/* Every MLGraphBuilder operator, in ops.def order:"
	print " * X(specName, c_name, FAMILY, ATTRS): the spec method name, the suffix of its"
	print " * webnn_builder_<c_name>() function, its operator family and its attributes kind. */"
	print "#ifndef WEBNN_OPS_H"
	print "#define WEBNN_OPS_H"
	print ""
	printf "#define WEBNN_OPERATORS(X)"
}
/^X\(/ {
	line = $0
	sub(/^X\(/, "", line)
	n = split(line, f, ",")
	for (i = 1; i <= 5; i++) gsub(/^[ \t]+|[ \t]+$/, "", f[i])
	printf " \\\n\tX(%s, %s, %s, %s)", f[2], c_name(f[2]), f[4], f[5]
}
END { print ""; print ""; print "#endif" }
' "$1"
