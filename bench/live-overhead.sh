#!/bin/sh
# Live overhead against perf top: two busy workload processes, system-wide
# sampling at -F 4000 for SECS seconds (default 20), without and with -g.
# Measures the profiler's own CPU time (utime+stime from /proc/PID/stat),
# its peak RSS (VmHWM) and lost samples; perf top runs in a tmux pane as a
# user would run it.  Prints one line per measure with the ratio.
# Needs root (system-wide), tmux and perf; run from the top of the tree.
SECS=${SECS:-20}
PROFTOP=${PROFTOP:-./proftop}
WORKLOAD=${WORKLOAD:-tests/helpers/workload}
TMP=${TMPDIR:-/tmp}/proftop-bench.$$
HZ=$(getconf CLK_TCK)
mkdir -p "$TMP"
WL=

cleanup() {
	for p in $WL; do kill "$p" 2>/dev/null; done
	tmux kill-session -t proftop-bench-$$ 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

for t in tmux perf python3; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: $t not installed"; exit 77; }
done
[ -x "$PROFTOP" ] && [ -x "$WORKLOAD" ] || { echo "build first: make && make check"; exit 1; }

# cpu_seconds PID: utime + stime in seconds (fields 14 and 15; the comm
# field may hold spaces, so count from the closing parenthesis).
cpu_seconds() {
	sed 's/.*) //' "/proc/$1/stat" | awk -v hz="$HZ" '{ printf "%.2f", ($12 + $13) / hz }'
}
hwm_mb() {
	awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"
}

"$WORKLOAD" 0 >/dev/null & WL="$WL $!"
"$WORKLOAD" 0 >/dev/null & WL="$WL $!"

# run_proftop NAME ARGS...: sets P_CPU P_RSS P_LOST
run_proftop() {
	"$PROFTOP" -a -F 4000 "$@" --json -d 2 >"$TMP/proftop.json" 2>"$TMP/proftop.err" &
	pid=$!
	sleep "$SECS"
	P_CPU=$(cpu_seconds $pid)
	P_RSS=$(hwm_mb $pid)
	kill -INT $pid
	wait $pid 2>/dev/null
	P_LOST=$(tail -1 "$TMP/proftop.json" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["lost"])' 2>/dev/null || echo "?")
}

# run_perf ARGS...: sets Q_CPU Q_RSS Q_LOST
run_perf() {
	s=proftop-bench-$$
	tmux new-session -d -s $s -x 200 -y 50 "exec perf top -F 4000 -a $*"
	sleep 1
	ppid=$(tmux list-panes -t $s -F '#{pane_pid}')
	pid=$ppid
	# the pane's process is perf itself (exec), or its parent shell
	[ "$(cat /proc/$pid/comm 2>/dev/null)" = perf ] || pid=$(pgrep -P "$ppid" perf | head -1)
	sleep $((SECS - 1))
	Q_CPU=$(cpu_seconds $pid)
	Q_RSS=$(hwm_mb $pid)
	Q_LOST=$(tmux capture-pane -p -t $s | sed -n 's/.*lost: *\([0-9/]*\).*/\1/p' | head -1)
	[ -n "$Q_LOST" ] || Q_LOST="?"
	tmux kill-session -t $s 2>/dev/null
	sleep 1
}

ratio() {
	python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('%.3f' % (a / b) if b else 'inf')" "$1" "$2"
}

echo "# two busy workloads, -a -F 4000, ${SECS}s per run"
for g in "" "-g"; do
	run_proftop $g
	run_perf $g
	tag=${g:+" -g"}
	echo "live cpu$tag: proftop $P_CPU s, perf $Q_CPU s, ratio $(ratio "$P_CPU" "$Q_CPU")"
	echo "live rss$tag: proftop $P_RSS MB, perf $Q_RSS MB, ratio $(ratio "$P_RSS" "$Q_RSS")"
	echo "live lost$tag: proftop $P_LOST, perf $Q_LOST"
done
