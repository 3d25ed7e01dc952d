# Process groups for the test scripts that start webnnd: nothing a script started outlives it.
# Sourced (by scripts with set -e or not): each daemon leads a process group of its own, and
# whatever ends the script (a failed check, an error, ^C) kills that whole group: front door,
# spawner and workers, under valgrind or not.

GROUP_PID=

# group_start CMD...: CMD in the background as the leader of a new process group (setsid: in a
# script without job control a background job is no group leader, so setsid execs CMD itself and
# GROUP_PID is CMD's pid). Redirections given to group_start apply to CMD.
group_start() {
	setsid "$@" &
	GROUP_PID=$!
}

# group_kill: SIGKILL to every process of the group, then reap the leader. Safe to call twice.
group_kill() {
	if [ -n "$GROUP_PID" ]; then
		kill -KILL -- "-$GROUP_PID" 2>/dev/null || true
		wait "$GROUP_PID" 2>/dev/null || true
		GROUP_PID=
	fi
}

# group_stop [SECONDS]: SIGTERM to the leader and its exit status, as `wait` gives it; a leader
# still running after SECONDS (default 60) is killed with its group (status 137). What the leader
# left behind in its group is killed either way.
group_stop() {
	local limit=${1:-60} i status
	[ -n "$GROUP_PID" ] || return 0
	kill -TERM "$GROUP_PID" 2>/dev/null || true
	for ((i = 0; i < limit * 10; i++)); do
		kill -0 "$GROUP_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$GROUP_PID" 2>/dev/null; then
		echo "$(basename "$0"): pid $GROUP_PID did not stop within $limit s of SIGTERM: killed" >&2
		group_kill
		return 137
	fi
	wait "$GROUP_PID" && status=0 || status=$?
	kill -KILL -- "-$GROUP_PID" 2>/dev/null || true
	GROUP_PID=
	return "$status"
}

trap group_kill EXIT
trap 'exit 130' INT TERM
