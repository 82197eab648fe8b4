# Helpers shared by the benchmarks (sourced, not run).
PROFTOP=${PROFTOP:-./proftop}
WORKLOAD=${WORKLOAD:-tests/helpers/workload}
HZ=$(getconf CLK_TCK)
# hang_evidence, descendants
. tests/evidence.sh
# Where first_frame keeps the evidence of a timeout.
KEEP=${KEEP:-bench/kept}

# need TOOL...: exit 77 (skip) when one is missing.
need() {
	for t; do
		command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not installed"; exit 77; }
	done
}

# cpu_seconds PID: utime + stime (fields 14, 15; comm may hold spaces).
cpu_seconds() {
	sed 's/.*) //' "/proc/$1/stat" | awk -v hz="$HZ" '{ printf "%.2f", ($12 + $13) / hz }'
}
# cpu_ns PID: CPU nanoseconds of PID's live threads, exact (schedstat's
# first field, summed over /proc/PID/task), where cpu_seconds counts ticks.
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'
}
hwm_mb() {
	awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"
}
rss_mb() {
	awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "inf"; else printf "%.3f\n", a / b }'
}
# min A B..., max A B..., spread A B... (max - min, the noise of a best-of-N)
min() { printf '%s\n' "$@" | sort -g | head -1; }
max() { printf '%s\n' "$@" | sort -g | tail -1; }
spread() { awk -v a="$(min "$@")" -v b="$(max "$@")" 'BEGIN { printf "%.3f", b - a }'; }

# first_frame SESSION PATTERN TIMEOUT CMD: seconds from starting CMD in a
# new tmux pane until PATTERN shows in the pane (capture-pane every 10 ms),
# or TIMEOUT.  The pane's size is fixed so both tools draw the same table.
# On a timeout the pane, CMD's stderr and the stacks of its threads are
# kept in $KEEP/SESSION.N.{pane,err,hang} (named on stderr).
first_frame() {
	s=$1 pat=$2 limit=$3
	shift 3
	mkdir -p "$KEEP"
	ff_err=$KEEP/$s.$$.err
	t0=$(date +%s.%N)
	tmux new-session -d -s "$s" -x 200 -y 50 "$* 2>$ff_err"
	while :; do
		if tmux capture-pane -p -t "$s" 2>/dev/null | grep -q "$pat"; then
			t1=$(date +%s.%N)
			break
		fi
		t1=$(date +%s.%N)
		if [ "$(awk -v a="$t0" -v b="$t1" -v l="$limit" 'BEGIN { print (b - a > l) }')" = 1 ]; then
			t1=inf
			break
		fi
		sleep 0.01
	done
	if [ "$t1" = inf ]; then
		ff_n=1
		while [ -e "$KEEP/$s.$ff_n.pane" ]; do ff_n=$((ff_n + 1)); done
		ff_keep=$KEEP/$s.$ff_n
		tmux capture-pane -p -t "$s" >"$ff_keep.pane" 2>&1
		ff_p=$(tmux list-panes -t "$s" -F '#{pane_pid}' 2>/dev/null)
		for ff_p in $ff_p $(descendants "$ff_p"); do
			hang_evidence "$ff_p" "$ff_keep.hang.$ff_p"
		done
	fi
	tmux kill-session -t "$s" 2>/dev/null
	# let the profiler exit (and write its stderr) before the next run
	sleep 0.5
	if [ "$t1" = inf ]; then
		mv "$ff_err" "$ff_keep.err"
		echo "first_frame: '$pat' not on screen after $limit s: kept $ff_keep.*" >&2
		echo "$limit"
	else
		rm -f "$ff_err"
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
	fi
}
