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
# VALGRIND_BACKENDS="cpu opencl" checks only those (default: reference, cpu and opencl).
BACKENDS=${VALGRIND_BACKENDS:-reference cpu opencl}

# Each daemon leads a process group of its own, killed whole when the script ends.
. "$(dirname "$0")/procgroup.sh"
DIR=

# What valgrind does not follow into: the programs PoCL runs from a worker (the linker, the
# compiler driver: anything from /usr/bin or /bin).
SKIP='/usr/bin/*,/bin/*,*/ld,*/ld.*'

# start_daemon BACKEND [valgrind args...]: webnnd on $SOCK with that backend, in a process group
# of its own, under the given command (none: natively); GROUP_PID is its pid.
start_daemon() {
	local backend=$1
	shift
	# Caches start empty on every run, as on a new machine: a cache of the run's own, which the
	# daemon creates and gives to the service user, never what PoCL or an earlier run left.
	group_start env -u POCL_CACHE_DIR WEBNN_NO_WARMUP=1 WEBNN_CACHE_DIR="$DIR/cache" \
		"$@" "$DAEMON" --socket "$SOCK" --backend "$backend" --no-sandbox >>"$DLOG" 2>&1
}

# wait_ready SECONDS WHAT: until a client gets a context from $GROUP_PID on $SOCK.
wait_ready() {
	local i
	for i in $(seq 1 $(($1 * 10))); do
		if ! kill -0 "$GROUP_PID" 2>/dev/null; then
			wait "$GROUP_PID"
			local st=$?
			GROUP_PID=
			fail "$2 exited during start-up (status $st)"
		fi
		if [ -S "$SOCK" ] && "$INFO" --socket "$SOCK" >"$DIR/info.json" 2>"$DIR/info.err"; then
			! grep -q 'as the cache directory' "$DLOG" ||
				fail "$2 did not take its empty cache $DIR/cache: $(grep -m1 'as the cache directory' "$DLOG")"
			return 0
		fi
		sleep 0.1
	done
	fail "$2 did not serve a context on $SOCK within $1 s ($(cat "$DIR/info.err"))"
}

# replay NAME FILES...: the conformance files through the daemon on $SOCK (when ../shared is
# there); sets CLIENTS to what was run.
replay() {
	local backend=$1
	shift
	if [ -d "$SHARED/conformance" ]; then
		local files=() f
		for f in "$@"; do
			files+=("$SHARED/conformance/$f.json")
		done
		"$BUILD/bin/webnn-run" --socket "$SOCK" --check ${FILTER:+--filter "$FILTER"} "${files[@]}" \
			>"$DIR/run.txt" 2>&1 ||
			fail "webnn-run against the $backend backend failed: $(grep -m3 '^FAIL\|webnn-run:' "$DIR/run.txt")"
		CLIENTS="3 clients ($(tail -n 1 "$DIR/run.txt"))"
	else
		CLIENTS="2 clients (no conformance data at $SHARED: no graphs run)"
	fi
}

# run_backend NAME FILES...: one daemon under valgrind with that backend; FILES are conformance
# files replayed through it (graphs, constants, tensors, dispatch) when ../shared is present.
# Whether the process of a valgrind log was ended by SIGTERM before main: its termination
# stack is still in the dynamic loader's _dl_init (a library's initialisers).
killed_before_main() {
	awk '/Process terminating with default action of signal 15/ { t = 1; next }
	     t && /^==[0-9]+== *$/ { exit }
	     t && /_dl_init/ { found = 1 }
	     END { exit !found }' "$1"
}

run_backend() {
	local backend=$1
	shift
	DIR=$(mktemp -d "${TMPDIR:-/tmp}/webnn-valgrind.XXXXXX")
	# Started as root, webnnd drops to its service user before it starts the spawner and the
	# workers, whose valgrind logs go here too.
	chmod 1777 "$DIR"
	SOCK="$DIR/webnnd.sock"
	DLOG="$DIR/webnnd.log"
	VGLOG="$DLOG"
	if [ "$backend" = opencl ]; then
		# PoCL compiles each kernel with LLVM inside the worker, for the CPU it detects, and
		# valgrind shows it another CPU than the real one (haswell for skylake-avx512: no
		# AVX-512), so nothing a native run compiled can serve the run under memcheck, which
		# takes minutes per kernel, past the build watchdog. The same graphs therefore run
		# first under valgrind's no-op tool (the same CPU, several times faster than memcheck),
		# which fills the run's empty cache; memcheck then finds every kernel there. A kernel
		# it still misses is compiled and linked there all the same, only slowly.
		start_daemon "$backend" valgrind --tool=none --trace-children=yes \
			--trace-children-skip="$SKIP" --vgdb=no --log-file="$DIR/fill.%p.log"
		wait_ready 300 "webnnd (valgrind --tool=none, filling the kernel cache)"
		replay "$backend" "$@"
		group_stop 120 || fail "webnnd (filling the kernel cache) exited with status $?"
	fi
	# Valgrind follows the exec of every device worker (--trace-children), but not the programs
	# PoCL runs from a worker (the linker, the compiler driver: anything from /usr/bin or /bin):
	# their own leaks are not ours, and valgrind's exit status for them would fail the link and
	# abort the worker. Every webnnd process (front door, spawner, workers) is still checked.
	# Valgrind's own syscalls are not in the workers' seccomp allow-list, so the lockdown is left
	# out here (--no-sandbox): this run checks memory; tests/test_sandbox.c checks the lockdown.
	start_daemon "$backend" valgrind --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=1 --track-fds=no \
		--num-callers=50 --trace-children=yes --trace-children-skip="$SKIP" \
		--vgdb=no --suppressions="$SUPP" --log-file="$DIR/valgrind.%p.log"
	VGLOG="$DIR/valgrind.$GROUP_PID.log" # the front door's; each worker writes valgrind.<pid>.log
	# valgrind slows start-up down a lot (PoCL loads LLVM): allow three minutes.
	wait_ready 180 "webnnd under valgrind"
	grep -q "\"backend\": \"$backend\"" "$DIR/info.json" || fail "webnn-info did not report the $backend backend"

	# A second client: sessions are torn down and set up again under valgrind.
	"$INFO" --socket "$SOCK" >/dev/null || fail "second webnn-info failed"
	replay "$backend" "$@"

	# The front door reaps its workers; a spare still starting is killed with the group.
	group_stop 300
	local status=$?
	if [ "$status" -ne 0 ]; then
		fail "webnnd under valgrind exited with status $status (1: valgrind found errors)"
	fi
	# Every process: the front door and each worker (the spare too) must have ended with no
	# error; a worker's exit status only reaches the front door's log. A log with no summary is
	# a process killed while starting (a spare when the daemon stops) or a child forked to run
	# a program valgrind does not follow (PoCL's linker): it must report no error either, and
	# does not count as checked.
	local n=0 cut=0 log
	for log in "$DIR"/valgrind.*.log; do
		VGLOG=$log
		if killed_before_main "$log"; then
			# a spare SIGTERMed with the group while the loader still ran a library's
			# initialisers (CLBlast's, under valgrind's slow start): an allocation it was
			# making can show as lost, but none of our code ran
			cut=$((cut + 1))
		elif grep -q "ERROR SUMMARY:" "$log"; then
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
	echo "valgrind: webnnd --backend $backend (front door and $((n - 1)) worker process(es); $cut stopped while starting or not followed) served $CLIENTS and stopped cleanly: 0 errors in each; all heap blocks freed in $leaks of $n (the rest: no definite or indirect leaks)"
	rm -rf "$DIR"
}

fail() {
	echo "valgrind: $*" >&2
	group_kill
	echo "--- webnnd output ($DLOG):" >&2
	tail -n 40 "$DLOG" >&2
	echo "--- valgrind log ($VGLOG):" >&2
	tail -n 80 "$VGLOG" >&2
	exit 1
}

wanted() { case " $BACKENDS " in *" $1 "*) return 0 ;; esac; return 1; }
if wanted reference; then
	run_backend reference conv2d gemm softmax concat batch_normalization averagePool2d \
		quantizeLinear dequantizeLinear
fi
# oneDNN sees valgrind's CPU (no AVX-512) and generates its AVX2 kernels: the same plans, steps
# and bindings as on the real CPU.
if wanted cpu; then
	run_backend cpu conv2d conv_transpose2d gemm matmul softmax concat batch_normalization \
		averagePool2d maxPool2d add relu transpose reduce_sum quantizeLinear dequantizeLinear
fi
if ! wanted opencl; then
	:
elif "$DAEMON" --help >/dev/null 2>&1 && command -v clinfo >/dev/null && [ "$(clinfo -l 2>/dev/null | grep -c Device)" -gt 0 ]; then
	# float32 cases only: each other data type is a kernel compiled again (under valgrind's CPU,
	# in the filling run), for no code of ours that the float32 cases do not reach.
	FILTER=float32 run_backend opencl relu concat
else
	echo "valgrind: no OpenCL device: the OpenCL backend was not checked"
fi
