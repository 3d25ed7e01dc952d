#!/usr/bin/env bash
# make check-deb: the built packages unpacked into a scratch root (dpkg -x; nothing is installed on
# the machine): contents, conffile and maintainer scripts, the units (systemd-analyze verify), the
# installed webnnd socket-activated and serving webnn-info, and the README's example built with
# pkg-config alone, shared and static (with symbols named like libwebnn's internal ones).
set -euo pipefail

DEB_DIR=${1:?usage: deb-check.sh DEB_DIR VERSION}
VERSION=${2:?usage: deb-check.sh DEB_DIR VERSION}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/webnn-debcheck.XXXXXX")
root=$work/root
# The installed daemon leads a process group of its own, killed whole whenever this script ends.
. "$here/tests/procgroup.sh"
cleanup() {
	group_kill
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "deb-check: $*" >&2; [ -f "$work/daemon.log" ] && tail -n 20 "$work/daemon.log" >&2; exit 1; }

arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for p in webnnd libwebnn0 libwebnn-dev; do
	deb=$DEB_DIR/${p}_${VERSION}-1_$arch.deb
	[ -f "$deb" ] || fail "$deb was not built"
	dpkg -x "$deb" "$root"
done
deb_d=$DEB_DIR/webnnd_${VERSION}-1_$arch.deb

# What each package holds.
for f in usr/sbin/webnnd usr/bin/webnn-info usr/bin/webnn-run usr/bin/webnn-demo \
	etc/webnnd/webnnd.conf lib/systemd/system/webnnd.service lib/systemd/system/webnnd.socket \
	usr/lib/sysusers.d/webnnd.conf usr/share/man/man8/webnnd.8.gz \
	usr/share/man/man5/webnnd.conf.5.gz usr/share/man/man1/webnn-info.1.gz \
	usr/share/man/man1/webnn-run.1.gz usr/share/man/man1/webnn-demo.1.gz \
	"usr/lib/$multiarch/libwebnn.so.0" "usr/lib/$multiarch/libwebnn.so" \
	"usr/lib/$multiarch/libwebnn.a" "usr/lib/$multiarch/pkgconfig/webnn.pc" \
	usr/include/webnn.h usr/include/webnn_types.h usr/include/webnn_ops.h \
	usr/share/man/man3/libwebnn.3.gz; do
	[ -e "$root/$f" ] || fail "/$f is in no package"
done
dpkg-deb -I "$deb_d" conffiles | grep -qx /etc/webnnd/webnnd.conf || fail "webnnd.conf is not a conffile"
dpkg-deb -I "$deb_d" postinst | grep -q 'webnnd.socket' || fail "postinst does not enable webnnd.socket"
dpkg-deb -I "$deb_d" postinst | grep -q 'systemd-sysusers' || fail "postinst does not create the webnn user"
# The man pages render without a warning.
for m in "$root"/usr/share/man/man*/*.gz; do
	out=$(zcat "$m" | LC_ALL=C.UTF-8 groff -ww -z -man 2>&1) || fail "groff failed on $m: $out"
	[ -z "$out" ] || fail "groff warns on $m: $out"
done

# One version: the packages, the programs, pkg-config.
[ "$(dpkg-deb -f "$deb_d" Version)" = "$VERSION-1" ] || fail "webnnd's package version is not $VERSION-1"
for p in usr/sbin/webnnd usr/bin/webnn-info usr/bin/webnn-run usr/bin/webnn-demo; do
	out=$("$root/$p" --version)
	case $out in "$(basename "$p") $VERSION"|"$(basename "$p") $VERSION "*) ;;
	*) fail "/$p --version printed '$out', not $VERSION";; esac
done
# the packages' webnn.pc first, then the machine's (libprotobuf-c, which libwebnn-dev depends on)
export PKG_CONFIG_SYSROOT_DIR=$root
export PKG_CONFIG_LIBDIR=$root/usr/lib/$multiarch/pkgconfig:/usr/lib/$multiarch/pkgconfig:/usr/share/pkgconfig
[ "$(pkg-config --modversion webnn)" = "$VERSION" ] || fail "webnn.pc's version is not $VERSION"

# The shipped configuration file is valid and the units pass systemd-analyze verify (webnnd and
# the unit files resolved inside the scratch root).
"$root/usr/sbin/webnnd" --check-config --config "$root/etc/webnnd/webnnd.conf" >/dev/null ||
	fail "the shipped webnnd.conf does not pass --check-config"
# systemd-analyze resolves ExecStart= and the Documentation= man pages on this machine: the units
# are checked with both pointed into the scratch root.
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$work/units"
	sed "s|^ExecStart=/usr/sbin/webnnd|ExecStart=$root/usr/sbin/webnnd|" \
		"$root/lib/systemd/system/webnnd.service" > "$work/units/webnnd.service"
	cp "$root/lib/systemd/system/webnnd.socket" "$work/units/"
	out=$(MANPATH=$root/usr/share/man systemd-analyze verify "$work/units/webnnd.socket" \
		"$work/units/webnnd.service" 2>&1) || fail "systemd-analyze verify: $out"
	[ -z "$out" ] || fail "systemd-analyze verify: $out"
	level=$(systemd-analyze security --offline=true "$work/units/webnnd.service" 2>&1 |
		sed -n 's/.*Overall exposure level for webnnd.service: \([0-9.]*\).*/\1/p')
	[ -n "$level" ] && awk -v l="$level" 'BEGIN { exit !(l <= 1.0) }' ||
		fail "systemd-analyze security: webnnd.service's exposure is '$level' (expected at most 1.0)"
fi

# The installed daemon, socket-activated as webnnd.socket does it, serves the installed client.
sock=$work/run/webnnd.sock
mkdir -p "$work/run"
chmod 0755 "$work" "$work/run"
group_start systemd-socket-activate -l "$sock" "$root/usr/sbin/webnnd" \
	--config "$root/etc/webnnd/webnnd.conf" --backend reference >"$work/daemon.log" 2>&1
pid=$GROUP_PID
ok=0
for _ in $(seq 1 300); do
	if "$root/usr/bin/webnn-info" --socket "$sock" >"$work/info.json" 2>"$work/info.err"; then ok=1; break; fi
	kill -0 "$pid" 2>/dev/null || fail "the installed webnnd exited"
	sleep 0.1
done
[ "$ok" = 1 ] || fail "webnn-info got no context from the installed webnnd: $(cat "$work/info.err")"
grep -q '"backend": "reference"' "$work/info.json" || fail "webnn-info: $(head -c 300 "$work/info.json")"
grep -q 'listening on the socket passed by systemd' "$work/daemon.log" || fail "webnnd did not use the activation socket"
grep -q "webnnd $VERSION worker started: reference backend" "$work/daemon.log" ||
	fail "no start-up line naming the version, backend and device"

# The README's example, built with pkg-config alone, against the installed daemon.
sed -n '/^```c$/,/^```$/p' "$here/README.md" | sed '1d;$d' | awk '/^\/\* y = relu/,0' > "$work/example.c"
grep -q 'webnn_builder_build' "$work/example.c" || fail "no example found in README.md"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -o "$work/example" "$work/example.c" $(pkg-config --cflags --libs webnn) ||
	fail "the example does not build with pkg-config --cflags --libs webnn"
out=$(WEBNN_SOCKET=$sock LD_LIBRARY_PATH=$root/usr/lib/$multiarch "$work/example") || fail "example: $out"
[ "$out" = "0 2 3 4" ] || fail "the example printed '$out', not '0 2 3 4'"
# Static, beside an application's own wnn_desc_count and protobuf-c-style webnn__ name: no clash.
cat > "$work/clash.c" <<'EOF'
int wnn_desc_count(void) { return 42; }
int webnn__ipc__hello__init(void) { return 43; }
int wnnc_enter(void) { return 44; }
EOF
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -o "$work/example-static" "$work/example.c" "$work/clash.c" \
	$(pkg-config --cflags webnn) "$root/usr/lib/$multiarch/libwebnn.a" \
	$(pkg-config --static --libs-only-l webnn | sed 's/-lwebnn\b//') ||
	fail "the static library clashes with an application's symbols (or does not link)"
out=$(WEBNN_SOCKET=$sock "$work/example-static") || fail "static example: $out"
[ "$out" = "0 2 3 4" ] || fail "the static example printed '$out'"

group_stop 30 || fail "the installed webnnd did not stop cleanly"
echo "deb-check: webnnd, libwebnn0, libwebnn-dev $VERSION-1: contents, units, socket activation, pkg-config example: ok"
