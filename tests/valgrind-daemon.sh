#!/usr/bin/env bash
# make valgrind: webnnd under valgrind (reference, cpu, then OpenCL backend), its front door and every device worker it starts, serves clients, stops on SIGTERM, leaks nothing.
set -uo pipefail

BUILD=${1:-build}
DAEMON="$BUILD/bin/webnnd"
INFO="$BUILD/bin/webnn-info"
for bin in "$DAEMON" "$INFO"; do
	[ -x "$bin" ] || { echo "valgrind: $bin is missing; run make first" >&2; exit 1; }
done
command -v valgrind >/dev/null || { echo "valgrind: valgrind is not installed (make deps)" >&2; exit 1; }

SHARED=${WEBNN_SHARED:-../shared}
SUPP="$(dirname "$0")/valgrind.supp"

# run_backend NAME FILES...: one daemon under valgrind with that backend; FILES are conformance
# files replayed through it (graphs, constants, tensors, dispatch) when ../shared is present.
run_backend() {
	local backend=$1
	shift
	DIR=$(mktemp -d "${TMPDIR:-/tmp}/webnn-valgrind.XXXXXX")
	# Started as root, webnnd drops to its service user before it starts the spawner and the
	# workers, whose valgrind logs go here too.
	chmod 1777 "$DIR"
	SOCK="$DIR/webnnd.sock"
	VGLOG="$DIR/valgrind.log" # the front door's; each worker writes valgrind.<pid>.log
	DLOG="$DIR/webnnd.log"
	# The OpenCL run skips the background CLBlast warm-up: it only fills PoCL's cache, in a child.
	# Valgrind follows the exec of every device worker (--trace-children). Its own syscalls are
	# not in the workers' seccomp allow-list, so the lockdown is left out here (--no-sandbox):
	# this run checks memory; tests/test_sandbox.c checks the lockdown.
	WEBNN_NO_WARMUP=1 valgrind --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=1 --track-fds=no --num-callers=50 \
		--trace-children=yes --vgdb=no --suppressions="$SUPP" --log-file="$DIR/valgrind.%p.log" \
		"$DAEMON" --socket "$SOCK" --backend "$backend" --no-sandbox >"$DLOG" 2>&1 &
	PID=$!
	VGLOG="$DIR/valgrind.$PID.log"
	trap 'kill -KILL "$PID" 2>/dev/null; wait "$PID" 2>/dev/null' INT TERM

	# valgrind slows start-up down a lot (PoCL loads LLVM): allow three minutes.
	local ready=0
	for _ in $(seq 1 1800); do
		kill -0 "$PID" 2>/dev/null || { wait "$PID"; fail "webnnd exited during start-up (status $?)"; }
		if [ -S "$SOCK" ] && "$INFO" --socket "$SOCK" >"$DIR/info.json" 2>"$DIR/info.err"; then
			ready=1
			break
		fi
		sleep 0.1
	done
	if [ "$ready" -ne 1 ]; then
		kill -KILL "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
		fail "webnnd did not serve a context on $SOCK within 180 s ($(cat "$DIR/info.err"))"
	fi
	grep -q "\"backend\": \"$backend\"" "$DIR/info.json" || fail "webnn-info did not report the $backend backend"

	# A second client: sessions are torn down and set up again under valgrind.
	"$INFO" --socket "$SOCK" >/dev/null || fail "second webnn-info failed"

	local clients
	if [ -d "$SHARED/conformance" ]; then
		local files=()
		for f in "$@"; do
			files+=("$SHARED/conformance/$f.json")
		done
		"$BUILD/bin/webnn-run" --socket "$SOCK" --check "${files[@]}" >"$DIR/run.txt" 2>&1 ||
			fail "webnn-run against the $backend backend failed: $(grep -m3 '^FAIL\|webnn-run:' "$DIR/run.txt")"
		clients="3 clients ($(tail -n 1 "$DIR/run.txt"))"
	else
		clients="2 clients (no conformance data at $SHARED: no graphs run)"
	fi

	kill -TERM "$PID"
	wait "$PID"
	local status=$?
	if [ "$status" -ne 0 ]; then
		fail "webnnd under valgrind exited with status $status (1: valgrind found errors)"
	fi
	# Every process: the front door and each worker (the spare too) must have ended with no
	# error; a worker's exit status only reaches the front door's log.
	# A spare still starting when the daemon stops is killed before valgrind can write its
	# summary: such a log must report no error either, and does not count as checked.
	local n=0 cut=0 log
	for log in "$DIR"/valgrind.*.log; do
		VGLOG=$log
		if grep -q "ERROR SUMMARY:" "$log"; then
			grep -q "ERROR SUMMARY: 0 errors" "$log" || fail "valgrind reported errors in $(basename "$log")"
			n=$((n + 1))
		elif grep -Eq "Invalid (read|write|free)|uninitialised|Conditional jump|Syscall param|Mismatched|Source and destination overlap|lost in loss record" "$log"; then
			fail "valgrind reported errors in $(basename "$log") (a process killed before its summary)"
		else
			cut=$((cut + 1))
		fi
	done
	[ "$n" -ge 2 ] || fail "valgrind followed $n process(es) to the end: the front door and at least one worker expected"
	local leaks
	leaks=$(grep -c 'All heap blocks were freed' "$DIR"/valgrind.*.log | grep -c ':1$')
	echo "valgrind: webnnd --backend $backend (front door and $((n - 1)) worker process(es); $cut stopped while starting) served $clients and stopped cleanly: 0 errors in each; all heap blocks freed in $leaks of $n (the rest: no definite or indirect leaks)"
	rm -rf "$DIR"
}

fail() {
	echo "valgrind: $*" >&2
	echo "--- webnnd output ($DLOG):" >&2
	tail -n 40 "$DLOG" >&2
	echo "--- valgrind log ($VGLOG):" >&2
	tail -n 80 "$VGLOG" >&2
	exit 1
}

run_backend reference conv2d gemm softmax concat batch_normalization averagePool2d \
	quantizeLinear dequantizeLinear
# oneDNN sees valgrind's CPU (no AVX-512) and generates its AVX2 kernels: the same plans, steps
# and bindings as on the real CPU.
run_backend cpu conv2d conv_transpose2d gemm matmul softmax concat batch_normalization \
	averagePool2d maxPool2d add relu transpose reduce_sum quantizeLinear dequantizeLinear
if "$DAEMON" --help >/dev/null 2>&1 && command -v clinfo >/dev/null && [ "$(clinfo -l 2>/dev/null | grep -c Device)" -gt 0 ]; then
	run_backend opencl relu concat
else
	echo "valgrind: no OpenCL device: the OpenCL backend was not checked"
fi
