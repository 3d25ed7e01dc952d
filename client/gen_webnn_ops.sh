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
# The signature of webnn_builder_<c_name>(), shared by every operator of the form: a unary
# operator with scalar options (a DEFAULTS entry) takes its own options struct; OWN: a
# signature of its own, declared by hand in webnn.h.
function form(attrs, defaults) {
	if (attrs == "UNARY" && defaults != "()")
		return "UNARY_OPTIONS"
	if (attrs == "BINARY" || attrs == "UNARY" || attrs == "REDUCE")
		return attrs
	return "OWN"
}
function list(name, comment, members) {
	print ""
	if (comment != "")
		print comment
	printf "#define %s(X)%s\n", name, members
}
BEGIN {
	print "/* Generated from proto/ops.def by client/gen_webnn_ops.sh: do not edit. */"
	print "/* Every MLGraphBuilder operator, in ops.def order, as X-macro lists. */"
	print "#ifndef WEBNN_OPS_H"
	print "#define WEBNN_OPS_H"
	ops = ""; forms = ""; binary = ""; unary = ""; reduce = ""
}
/^X\(/ {
	line = $0
	sub(/^X\(/, "", line)
	# The first seven columns hold no comma; DEFAULTS (the eighth) may.
	n = split(line, f, ",")
	for (i = 1; i <= 8; i++) gsub(/^[ \t]+|[ \t]+$/, "", f[i])
	spec = f[2]; c = c_name(spec); fm = form(f[5], f[8])
	ops = ops sprintf(" \\\n\tX(%s, %s, %s, %s)", spec, c, f[4], f[5])
	forms = forms sprintf(" \\\n\tX(%s, %s, %s)", spec, c, fm)
	if (fm == "BINARY") binary = binary sprintf(" \\\n\tX(%s)", c)
	if (fm == "UNARY") unary = unary sprintf(" \\\n\tX(%s)", c)
	if (fm == "REDUCE") reduce = reduce sprintf(" \\\n\tX(%s)", c)
}
END {
	list("WEBNN_OPERATORS", "/* X(specName, c_name, FAMILY, ATTRS): the spec method name, the suffix of its\n * webnn_builder_<c_name>() function, its operator family and its attributes kind. */", ops)
	list("WEBNN_BUILDER_FORMS", "/* X(specName, c_name, FORM): the signature of webnn_builder_<c_name>(): BINARY (a, b),\n * UNARY (input), UNARY_OPTIONS (input, struct webnn_<c_name>_options: its scalar options),\n * REDUCE (input, struct webnn_reduce_options) or OWN (a signature of its own). */", forms)
	list("WEBNN_BINARY_OPS", "/* X(c_name) of the operators of each shared form. */", binary)
	list("WEBNN_UNARY_OPS", "", unary)
	list("WEBNN_REDUCE_OPS", "", reduce)
	print ""
	print "#endif"
}
' "$1"
