#!/bin/sh
# Live DWARF unwinding against perf top: two busy workloads whose libraries
# lack frame pointers (tests/helpers/nofp, and a loop of Debian's xz -9
# -T1: liblzma), sampled system-wide with --call-graph dwarf -F 1000 for
# SECS (15) s each.  Prints the profiler's CPU time (utime + stime of all
# its threads), peak RSS (VmHWM) and lost samples (and proftop's samples
# left unwound), with the ratios to perf top's.  Like for like, both run
# their TUI in a tmux pane, as a user runs them, refreshing every 2 s (the
# counts read from each header); proftop also runs with --json -d 2 (every
# row printed every 2 s), its CPU, RSS and counts printed beside.
# proftop's CPU and peak RSS after 2 s (its start) and its threads' CPU
# are printed too.  Where proftop's RSS goes (smaps_rollup and its
# largest mappings) is kept in $KEEP/live-unwind.smaps.
# usage: sh bench/live-unwind.sh    (as root; SECS=15)
. bench/common.sh
SECS=${SECS:-15}
need perf tmux xz python3
[ "$(id -u)" = 0 ] || { echo "SKIP: system-wide sampling needs root"; exit 77; }
NOFP=${NOFP:-tests/helpers/nofp}
[ -x "$PROFTOP" ] && [ -x "$NOFP" ] || { echo "build first: make && make tests/helpers/nofp"; exit 1; }
TMP=${TMPDIR:-/tmp}/proftop-bench-lu.$$
mkdir -p "$TMP" "$KEEP"
S=proftop-bench-lu-$$
WL=
cleanup() {
	for p in $WL; do kill "$p" 2>/dev/null; done
	tmux kill-session -t $S 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

# xz's input: the sources, compressible, ~4 MB (a second or so a round).
: >"$TMP/in"
while [ "$(wc -c <"$TMP/in")" -lt 4000000 ]; do
	cat README src/*.c >>"$TMP/in"
done
"$NOFP" 0 >/dev/null & WL="$WL $!"
sh -c "while :; do xz -9 -T1 -c '$TMP/in' >/dev/null; done" & WL="$WL $!"
sleep 1

# proftop: the JSON's last object has the lost and unwind counts.
"$PROFTOP" -a --call-graph dwarf -F 1000 --json -d 2 >"$TMP/proftop.json" 2>"$TMP/proftop.err" &
pid=$!
# The start (kallsyms, /proc, the first symbol tables) apart from the rest.
sleep 2
P_CPU2=$(cpu_seconds $pid)
P_RSS2=$(hwm_mb $pid)
sleep $((SECS - 2))
P_CPU=$(cpu_seconds $pid)
P_THREADS=$(for t in /proc/$pid/task/*; do sed 's/.*) //' "$t/stat" | awk -v hz="$HZ" '{ printf "%.2f ", ($12 + $13) / hz }'; done)
P_RSS=$(hwm_mb $pid)
{
	echo "# $PROFTOP -a --call-graph dwarf -F 1000, after $SECS s"
	grep -E '^(VmHWM|VmRSS|RssAnon|RssFile|RssShmem)' "/proc/$pid/status"
	cat "/proc/$pid/smaps_rollup"
	echo "# mappings by Rss (kB)"
	awk '/^[0-9a-f]+-[0-9a-f]+ / { m = $0 } /^Rss:/ { print $2, m }' "/proc/$pid/smaps" |
		sort -rn | head -15
} >"$KEEP/live-unwind.smaps" 2>/dev/null
kill -INT $pid
wait $pid 2>/dev/null
read -r P_LOST P_DROPPED P_CHAINS <<EOT
$(tail -1 "$TMP/proftop.json" | python3 -c '
import json, sys
try:
    j = json.loads(sys.stdin.read())
    u = j.get("unwind", {})
    print(j["lost"], u.get("dropped", "?"), u.get("chains", "?"))
except Exception:
    print("? ? ?")')
EOT

# proftop's TUI, as perf top's below: its header has the counts.
tmux new-session -d -s $S -x 200 -y 50 "exec $PROFTOP -a --call-graph dwarf -F 1000"
tpid=$(tmux list-panes -t $S -F '#{pane_pid}')
sleep 2
T_CPU2=$(cpu_seconds $tpid)
T_RSS2=$(hwm_mb $tpid)
sleep $((SECS - 2))
T_CPU=$(cpu_seconds $tpid)
T_THREADS=$(for t in /proc/$tpid/task/*; do sed 's/.*) //' "$t/stat" | awk -v hz="$HZ" '{ printf "%.2f ", ($12 + $13) / hz }'; done)
T_RSS=$(hwm_mb $tpid)
tmux capture-pane -p -t $S >"$TMP/tui"
tmux kill-session -t $S 2>/dev/null
T_LOST=$(sed -n 's/.*lost: *\([0-9]*\).*/\1/p' "$TMP/tui" | head -1)
T_CHAINS=$(sed -n 's/^unwind: dwarf \([0-9]*\) chains.*/\1/p' "$TMP/tui" | head -1)
T_DROPPED=$(sed -n 's/^unwind: dwarf.*dropped \([0-9.]*%\).*/\1/p' "$TMP/tui" | head -1)

tmux new-session -d -s $S -x 200 -y 50 "exec perf top -a --call-graph dwarf -F 1000"
sleep 1
qpid=$(tmux list-panes -t $S -F '#{pane_pid}')
[ "$(cat /proc/$qpid/comm 2>/dev/null)" = perf ] || qpid=$(pgrep -P "$qpid" perf | head -1)
sleep $((SECS - 1))
Q_CPU=$(cpu_seconds $qpid)
Q_RSS=$(hwm_mb $qpid)
Q_LOST=$(tmux capture-pane -p -t $S | sed -n 's/.*lost: *\([0-9/]*\).*/\1/p' | head -1)
tmux kill-session -t $S 2>/dev/null

echo "# -a --call-graph dwarf -F 1000, ${SECS} s each; nofp + xz -9 -T1 busy"
echo "live-unwind cpu: proftop $T_CPU s, perf top $Q_CPU s, ratio $(ratio "$T_CPU" "$Q_CPU") (both TUIs)"
echo "live-unwind proftop: $T_CPU2 s CPU and $T_RSS2 MB peak in the first 2 s; per thread (s): $T_THREADS"
echo "live-unwind rss: proftop $T_RSS MB, perf top $Q_RSS MB, ratio $(ratio "$T_RSS" "$Q_RSS")"
echo "live-unwind lost: proftop ${T_LOST:-?} (unwind dropped ${T_DROPPED:-0%} of ${T_CHAINS:-?} chains), perf top ${Q_LOST:-?}"
echo "live-unwind --json -d 2: cpu $P_CPU s (ratio $(ratio "$P_CPU" "$Q_CPU")), $P_CPU2 s in the first 2 s; rss $P_RSS MB (ratio $(ratio "$P_RSS" "$Q_RSS")); per thread (s): $P_THREADS"
echo "live-unwind --json -d 2 lost: $P_LOST (unwind dropped $P_DROPPED of $P_CHAINS chains)"
