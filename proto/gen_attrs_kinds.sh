#!/bin/sh
# Generates WNN_ATTRS_KINDS, the list of attributes kinds, from webnn.proto's Operation.attrs oneof (their one description).
# usage: gen_attrs_kinds.sh proto/webnn.proto > attrs_kinds.h
set -eu
awk '
/^message Operation[ {]/ { in_op = 1 }
in_op && /oneof attrs/ { in_attrs = 1; next }
in_attrs && /^[ \t]*}/ { in_attrs = 0; in_op = 0 }
in_attrs && /=/ {
	line = $0
	sub(/\/\/.*/, "", line)
	gsub(/[;=]/, " ", line)
	split(line, f, " ")
	# f[1]: the message, f[2]: the field name, f[3]: its tag
	name = f[2]; tag = f[3]
	kind = toupper(name)
	rows = rows sprintf(" \\\n\tA(%s, %s, %s)", kind, tag, name)
	n++
}
END {
	if (n == 0) {
		print "gen_attrs_kinds.sh: no Operation.attrs oneof found" > "/dev/stderr"
		exit 1
	}
	print "/* Generated from proto/webnn.proto (Operation.attrs) by proto/gen_attrs_kinds.sh: do not edit. */"
	print "/* A(KIND, wire tag, field name): one row per attributes kind, in the oneof'"'"'s order. */"
	printf "#define WNN_ATTRS_KINDS(A)%s\n", rows
}
' "$1"
