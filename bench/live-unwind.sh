#!/bin/sh
# Live DWARF unwinding against perf top: two busy workloads whose libraries
# lack frame pointers (tests/helpers/nofp, and a loop of Debian's xz -9
# -T1: liblzma), sampled system-wide with --call-graph dwarf -F 1000 for
# SECS (15) s each.  Prints the profiler's CPU time (utime + stime of all
# its threads, to the microsecond, from wait4 at its end), peak RSS (VmHWM) and lost samples (and proftop's samples
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

# timed OUT CMD...: run CMD as a child, its pid in OUT.pid; when it
# ends, its CPU (user + system of all its threads, those gone too, to the
# microsecond: wait4's rusage, not /proc's 10 ms ticks) goes to OUT.  A
# signal to the wrapper goes on to CMD.
cat >"$TMP/timed.py" <<'EOF2'
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
with open(sys.argv[1] + ".pid", "w") as f:
    f.write("%d\n" % pid)
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, lambda n, f: os.kill(pid, n))
while True:
    try:
        ru = os.wait4(pid, 0)[2]
        break
    except InterruptedError:
        pass
with open(sys.argv[1], "w") as f:
    f.write("%.4f\n" % (ru.ru_utime + ru.ru_stime))
EOF2
TIMED="python3 $TMP/timed.py"

# child OUT: the pid of the command timed runs for OUT, waited for
# (python's start takes a while on a busy machine).
child() {
	for i in $(seq 400); do
		[ -s "$1.pid" ] && break
		sleep 0.05
	done
	cat "$1.pid" 2>/dev/null
}

# stop PID OUT: SIGINT to PID, then OUT's CPU once timed wrote it.
stop() {
	kill -INT "$1" 2>/dev/null
	for i in $(seq 100); do
		[ -s "$2" ] && break
		sleep 0.1
	done
	cat "$2" 2>/dev/null || echo "?"
}

# watch_proc PID: "CPU RSS CPU2 RSS2 THREADS..." of PID after SECS s, and
# after 2 s (its start: kallsyms, /proc, the first symbol tables).
watch_proc() {
	sleep 2
	w_cpu2=$(cpu_seconds $1)
	w_rss2=$(hwm_mb $1)
	sleep $((SECS - 2))
	echo "$(cpu_seconds $1) $(hwm_mb $1) $w_cpu2 $w_rss2" \
		"$(for t in /proc/$1/task/*; do sed 's/.*) //' "$t/stat" | awk -v hz="$HZ" '{ printf "%.2f ", ($12 + $13) / hz }'; done)"
}

# proftop: the JSON's last object has the lost and unwind counts.
$TIMED "$TMP/p.cpu" "$PROFTOP" -a --call-graph dwarf -F 1000 --json -d 2 >"$TMP/proftop.json" 2>"$TMP/proftop.err" &
wrap=$!
pid=$(child "$TMP/p.cpu")
read -r P_CPU P_RSS P_CPU2 P_RSS2 P_THREADS <<EOT
$(watch_proc $pid)
EOT
{
	echo "# $PROFTOP -a --call-graph dwarf -F 1000, after $SECS s"
	grep -E '^(VmHWM|VmRSS|RssAnon|RssFile|RssShmem)' "/proc/$pid/status"
	cat "/proc/$pid/smaps_rollup"
	echo "# mappings by Rss (kB)"
	awk '/^[0-9a-f]+-[0-9a-f]+ / { m = $0 } /^Rss:/ { print $2, m }' "/proc/$pid/smaps" |
		sort -rn | head -15
} >"$KEEP/live-unwind.smaps" 2>/dev/null
P_CPU=$(stop $pid "$TMP/p.cpu")
wait $wrap 2>/dev/null
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
tmux new-session -d -s $S -x 200 -y 50 "exec $TIMED $TMP/t.cpu $PROFTOP -a --call-graph dwarf -F 1000"
tpid=$(child "$TMP/t.cpu")
read -r T_CPU T_RSS T_CPU2 T_RSS2 T_THREADS <<EOT
$(watch_proc $tpid)
EOT
tmux capture-pane -p -t $S >"$TMP/tui"
T_CPU=$(stop $tpid "$TMP/t.cpu")
tmux kill-session -t $S 2>/dev/null
T_LOST=$(sed -n 's/.*lost: *\([0-9]*\).*/\1/p' "$TMP/tui" | head -1)
T_CHAINS=$(sed -n 's/^unwind: dwarf \([0-9]*\) chains.*/\1/p' "$TMP/tui" | head -1)
T_DROPPED=$(sed -n 's/^unwind: dwarf.*dropped \([0-9.]*%\).*/\1/p' "$TMP/tui" | head -1)

tmux new-session -d -s $S -x 200 -y 50 "exec $TIMED $TMP/q.cpu perf top -a --call-graph dwarf -F 1000"
qpid=$(child "$TMP/q.cpu")
sleep $SECS
Q_RSS=$(hwm_mb $qpid)
Q_LOST=$(tmux capture-pane -p -t $S | sed -n 's/.*lost: *\([0-9/]*\).*/\1/p' | head -1)
Q_CPU=$(stop $qpid "$TMP/q.cpu")
tmux kill-session -t $S 2>/dev/null

echo "# -a --call-graph dwarf -F 1000, ${SECS} s each; nofp + xz -9 -T1 busy"
echo "live-unwind cpu: proftop $T_CPU s, perf top $Q_CPU s, ratio $(ratio "$T_CPU" "$Q_CPU") (both TUIs)"
echo "live-unwind proftop: $T_CPU2 s CPU and $T_RSS2 MB peak in the first 2 s; per thread (s): $T_THREADS"
echo "live-unwind rss: proftop $T_RSS MB, perf top $Q_RSS MB, ratio $(ratio "$T_RSS" "$Q_RSS")"
echo "live-unwind lost: proftop ${T_LOST:-?} (unwind dropped ${T_DROPPED:-0%} of ${T_CHAINS:-?} chains), perf top ${Q_LOST:-?}"
echo "live-unwind --json -d 2: cpu $P_CPU s (ratio $(ratio "$P_CPU" "$Q_CPU")), $P_CPU2 s in the first 2 s; rss $P_RSS MB (ratio $(ratio "$P_RSS" "$Q_RSS")); per thread (s): $P_THREADS"
echo "live-unwind --json -d 2 lost: $P_LOST (unwind dropped $P_DROPPED of $P_CHAINS chains)"
