#!/usr/bin/env bash
# The main job (make demo): starts webnnd on its default socket, runs webnn-demo, stops the daemon.
set -uo pipefail

BUILD=${1:-build}
SOCK=${WEBNN_SOCKET:-/run/webnn/webnnd.sock}
DEFAULT_SOCK=/run/webnn/webnnd.sock
DAEMON="$BUILD/bin/webnnd"
LOG=$(mktemp "${TMPDIR:-/tmp}/webnnd-demo.XXXXXX.log")

for bin in "$DAEMON" "$BUILD/bin/webnn-demo" "$BUILD/bin/webnn-info"; do
	[ -x "$bin" ] || { echo "demo: $bin is missing; run make first" >&2; exit 1; }
done

# /run/webnn is root's (webnnd creates it when it can). Without WEBNN_SOCKET, a user who cannot
# write there gets a socket of their own instead, and a line saying so.
sock_dir_usable() { mkdir -p "$1" 2>/dev/null && [ -w "$1" ] && [ -x "$1" ]; }
if [ -z "${WEBNN_SOCKET:-}" ] && ! sock_dir_usable "$(dirname "$SOCK")"; then
	if [ -n "${XDG_RUNTIME_DIR:-}" ] && sock_dir_usable "$XDG_RUNTIME_DIR/webnn"; then
		SOCK=$XDG_RUNTIME_DIR/webnn/webnnd.sock
	else
		SOCK=${TMPDIR:-/tmp}/webnn-$(id -u)/webnnd.sock
		mkdir -p -m 0700 "$(dirname "$SOCK")" 2>/dev/null
	fi
	echo "demo: $(dirname "$DEFAULT_SOCK") is not writable by $(id -un) (it needs root): using $SOCK instead"
fi
if ! sock_dir_usable "$(dirname "$SOCK")"; then
	echo "demo: cannot create or write $(dirname "$SOCK") (run as root, or set WEBNN_SOCKET to a path you own)" >&2
	exit 1
fi

# The daemon leads a process group of its own: however this script ends, nothing it started
# (front door, spawner, workers) outlives it.
. "$(dirname "$0")/procgroup.sh"
group_start "$DAEMON" --socket "$SOCK" >"$LOG" 2>&1
PID=$GROUP_PID

stop_daemon() {
	group_stop 30
	local st=$?
	[ "$st" -eq 0 ] || echo "demo: webnnd exited with status $st (log: $LOG)" >&2
}
trap 'stop_daemon; group_kill' EXIT

# Ready when a client can create a context (a stale socket file alone proves nothing).
ready=0
for _ in $(seq 1 600); do
	if ! kill -0 "$PID" 2>/dev/null; then
		wait "$PID"
		echo "demo: webnnd exited during start-up (status $?); its log ($LOG):" >&2
		cat "$LOG" >&2
		GROUP_PID=
		exit 1
	fi
	if [ -S "$SOCK" ] && "$BUILD/bin/webnn-info" --socket "$SOCK" >/dev/null 2>&1; then
		ready=1
		break
	fi
	sleep 0.1
done
if [ "$ready" -ne 1 ]; then
	echo "demo: webnnd did not accept a context on $SOCK within 60 s; its log ($LOG):" >&2
	cat "$LOG" >&2
	exit 1
fi
echo "demo: webnnd (pid $PID) is serving $SOCK; log in $LOG"

"$BUILD/bin/webnn-demo" --socket "$SOCK"
status=$?
stop_daemon
trap group_kill EXIT
if [ "$status" -eq 0 ]; then
	rm -f "$LOG"
else
	echo "demo: webnn-demo failed (status $status); webnnd log: $LOG" >&2
fi
exit "$status"
