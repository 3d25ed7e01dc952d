#!/usr/bin/env bash
# make check's install round trip: make install into a scratch DESTDIR (Debian's multiarch LIBDIR),
# units where systemd reads them, man pages that render without warnings, only webnn_* exported,
# one version everywhere; then make uninstall leaves no file behind.
set -euo pipefail

BUILD=${1:-build}
VERSION=${2:?usage: install-check.sh BUILD VERSION}
MAKE=${MAKE:-make}
dest=$(mktemp -d "${TMPDIR:-/tmp}/webnn-install.XXXXXX")
trap 'rm -rf "$dest"' EXIT
fail() { echo "install-check: $*" >&2; exit 1; }

vars=(BUILD="$BUILD" DESTDIR="$dest" PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu
	SYSTEMD_UNITDIR=/usr/lib/systemd/system)
# make -j2 runs protoc-c once for its two outputs (a grouped target).
runs=$($MAKE -n -j2 BUILD="$dest/gen-check" "$dest/gen-check/gen/proto/webnn.pb-c.c" \
	"$dest/gen-check/gen/proto/webnn.pb-c.h" | grep -c '^protoc-c' || true)
[ "$runs" = 1 ] || fail "make -j2 runs protoc-c $runs times for webnn.pb-c.c and webnn.pb-c.h"

$MAKE -s "${vars[@]}" install >/dev/null

# LIBDIR must not drag the units along (systemd never reads /usr/lib/<triplet>/systemd).
[ -f "$dest/usr/lib/systemd/system/webnnd.service" ] || fail "webnnd.service is not in /usr/lib/systemd/system"
[ -f "$dest/usr/lib/systemd/system/webnnd.socket" ] || fail "webnnd.socket is not in /usr/lib/systemd/system"
[ ! -e "$dest/usr/lib/x86_64-linux-gnu/systemd" ] || fail "units installed under LIBDIR"
grep -q '^ExecStart=/usr/sbin/webnnd$' "$dest/usr/lib/systemd/system/webnnd.service" ||
	fail "webnnd.service does not start /usr/sbin/webnnd"
# Documentation= names installed man pages.
for unit in webnnd.service webnnd.socket; do
	for doc in $(sed -n 's/^Documentation=//p' "$dest/usr/lib/systemd/system/$unit"); do
		case $doc in
		man:*) page=${doc#man:}; name=${page%(*}; sec=${page#*(}; sec=${sec%)}
			[ -f "$dest/usr/share/man/man$sec/$name.$sec" ] || fail "$unit: $doc is not installed";;
		*) fail "$unit: Documentation=$doc is not a man page";;
		esac
	done
done

# Man pages: each one installed, and no groff warning (or mandoc lint warning) in any.
for page in man1/webnn-info.1 man1/webnn-run.1 man1/webnn-demo.1 man3/libwebnn.3 \
	man5/webnnd.conf.5 man8/webnnd.8; do
	f=$dest/usr/share/man/$page
	[ -f "$f" ] || fail "$page is not installed"
	out=$(LC_ALL=C.UTF-8 groff -ww -z -man "$f" 2>&1) || fail "groff failed on $page: $out"
	[ -z "$out" ] || fail "groff warns on $page: $out"
	if command -v mandoc >/dev/null; then
		out=$(mandoc -T lint -W warning "$f" 2>&1) || fail "mandoc lint on $page: $out"
	fi
	grep -q "webnnd $VERSION" "$f" || fail "$page does not name version $VERSION"
done
# libwebnn(3)'s example is the README's.
diff <(sed -n '/^```c$/,/^```$/p' README.md | sed '1d;$d' | awk '/^\/\* y = relu/,0') \
	<(sed -n '/^\.ft CR$/,/^\.ft R$/p' man/libwebnn.3 | sed '1d;$d' |
		sed -e 's/\\e/\\/g; s/^\\&//' -e ':a; s/^\(\t*\)    /\1\t/; ta') >/dev/null ||
	fail "the example in man/libwebnn.3 differs from the README's"
# Every key of the daemon's settings is documented and in the default webnnd.conf.
conf=$dest/etc/webnnd/webnnd.conf
[ -f "$conf" ] || fail "/etc/webnnd/webnnd.conf is not installed"
keys=$("$BUILD/bin/webnnd" --check-config --config /dev/null | sed -n 's/^\([a-z_0-9]*\) = .*/\1/p')
[ "$(echo "$keys" | wc -l)" -gt 30 ] || fail "webnnd --check-config printed too few keys"
for k in $keys; do
	grep -q "^\\\\fB$k\\\\fR = " "$dest/usr/share/man/man5/webnnd.conf.5" ||
		fail "webnnd.conf(5) does not document $k"
	grep -q "^#$k = " "$conf" || fail "the default webnnd.conf does not list $k"
done
"$BUILD/bin/webnnd" --check-config --config "$conf" >/dev/null || fail "the default webnnd.conf does not parse"

# Symbols: only webnn_* global in both libraries, the shared ones in version node WEBNN_0.
lib=$dest/usr/lib/x86_64-linux-gnu
bad=$(nm -D --defined-only "$lib/libwebnn.so.0" | awk '{print $3}' | grep -v -E '^(webnn_[a-z][a-z0-9_]*@@WEBNN_0|WEBNN_0)$' || true)
[ -z "$bad" ] || fail "libwebnn.so.0 exports more than webnn_*: $(echo $bad | head -c 300)"
nm -D --defined-only "$lib/libwebnn.so.0" | grep -q ' T webnn_context_create@@WEBNN_0$' ||
	fail "libwebnn.so.0 lacks webnn_context_create@@WEBNN_0"
bad=$(nm -g --defined-only "$lib/libwebnn.a" | awk 'NF == 3 {print $3}' | grep -v -E '^webnn_[a-z][a-z0-9_]*$' || true)
[ -z "$bad" ] || fail "libwebnn.a has global symbols other than webnn_*: $(echo $bad | head -c 300)"
[ "$(readelf -d "$lib/libwebnn.so.0" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')" = libwebnn.so.0 ] ||
	fail "the soname is not libwebnn.so.0"

# One version: pkg-config, the header, every program.
pcv=$(PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_LIBDIR="$lib/pkgconfig" pkg-config --modversion webnn)
[ "$pcv" = "$VERSION" ] || fail "webnn.pc says $pcv, not $VERSION"
for p in usr/sbin/webnnd usr/bin/webnn-info usr/bin/webnn-run usr/bin/webnn-demo; do
	out=$("$dest/$p" --version)
	case $out in "$(basename "$p") $VERSION"|"$(basename "$p") $VERSION "*) ;;
	*) fail "$p --version printed '$out', not $VERSION";; esac
done

$MAKE -s "${vars[@]}" uninstall >/dev/null
left=$(find "$dest" \( -type f -o -type l \) | sed "s|^$dest||")
[ -z "$left" ] || fail "make uninstall left: $left"
# An edited webnnd.conf survives uninstall.
$MAKE -s "${vars[@]}" install >/dev/null
echo "threads = 2" >> "$conf"
$MAKE -s "${vars[@]}" uninstall >/dev/null
[ -f "$conf" ] || fail "make uninstall removed an edited webnnd.conf"
left=$(find "$dest" \( -type f -o -type l \) | sed "s|^$dest||")
[ "$left" = /etc/webnnd/webnnd.conf ] || fail "make uninstall left: $left"
echo "install-check: make install/uninstall, units, man pages, symbols and version $VERSION: ok"
