#!/bin/sh
# Off-CPU overhead under a switch storm: a pipe ping-pong paced to about
# RATE (20,000) context switches a second for SECS (15) s, watched
# system-wide by proftop --off-cpu -a, by perf record -e sched:sched_switch
# -g -a followed by perf report, and (where it runs) by an offcputime-style
# bpftrace script.  Prints per tool: its CPU time (utime+stime of it and its
# children, from wait4) and the ratio to perf's (record plus report); the
# ping-pong's own CPU time per 1000 round trips against a run alone (its
# throughput loss: the tracepoint's callchains are taken in its context);
# lost records; and how the tools agree on the ping-pong's off-CPU time.
# CALLGRAPH=dwarf: both unwind user stacks (--call-graph dwarf), a stack
# copy per switch.  NOBPF=1 skips bpftrace, NOCALLGRIND=1 the instruction
# counts.
# Needs root, perf, python3, cc; run from the top of the tree.
. bench/common.sh
SECS=${SECS:-15}
RATE=${RATE:-20000}
CG="-g"
[ "${CALLGRAPH:-fp}" = dwarf ] && CG="--call-graph dwarf"
TMP=${TMPDIR:-/tmp}/proftop-offcpu.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT INT TERM
need perf python3 cc
[ -x "$PROFTOP" ] || { echo "build first: make"; exit 1; }
cc -O2 -o "$TMP/pingpong" bench/pingpong.c || exit 1

# measure SECONDS OUT CMD...: run CMD, SIGINT it after SECONDS (unless it
# ends first), wait; print
# its CPU seconds (it and its children).  Its stdout goes to OUT.
measure() {
	python3 - "$@" <<'PY'
import os, resource, signal, subprocess, sys, time
secs, out, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    p = subprocess.Popen(cmd, stdout=f, stderr=open(out + ".err", "w"))
    try:
        p.wait(timeout=secs)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)
        p.wait(timeout=300)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f" % (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
PY
}

ctxt() { awk '/^ctxt/ { print $2 }' /proc/stat; }

# Calibrate: the system's switches per round trip (less its own rate).
a=$(ctxt); sleep 2; b=$(ctxt)
idle=$(( (b - a) / 2 ))
a=$(ctxt); "$TMP/pingpong" 5000 2 >/dev/null; b=$(ctxt)
per=$(awk -v d=$(( (b - a) / 2 - idle )) 'BEGIN { printf "%.2f", d / 5000 }')
ROUNDS=$(awk -v r="$RATE" -v p="$per" 'BEGIN { printf "%d", r / (p > 0 ? p : 2) }')
echo "# ping-pong: $ROUNDS round trips/s ($per switches each, $idle/s besides), ${SECS}s per run"

# pingpong_run: the ping-pong for SECS, in the background; PP its pid.
pingpong_run() {
	"$TMP/pingpong" "$ROUNDS" "$SECS" >"$TMP/pp.$1" &
	PP=$!
}
# per1000 FILE: the ping-pong's CPU ms per 1000 round trips, and its rate.
per1000() {
	awk '{ printf "%.3f", $6 * 1e6 / $2 }' "$1"
}
achieved() {
	awk '{ printf "%.0f", $2 / $4 }' "$1"
}

a=$(ctxt)
pingpong_run alone
wait $PP
b=$(ctxt)
base=$(per1000 "$TMP/pp.alone")
echo "switches/s during the ping-pong alone: $(( (b - a) / SECS ))"
echo "ping-pong alone: $(achieved "$TMP/pp.alone") round trips/s, $base ms CPU per 1000"

# proftop: live, system-wide, a refresh a second as a user would watch it.
pingpong_run proftop
P_CPU=$(measure "$((SECS + 1))" "$TMP/proftop.json" "$PROFTOP" --off-cpu $CG -a --json --accumulate -d 1 -s comm,sym)
wait $PP
P_PP=$(per1000 "$TMP/pp.proftop")
P_LOST=$(tail -1 "$TMP/proftop.json" | python3 -c 'import json,sys; s=json.loads(sys.stdin.read()); print(s["lost"], s["off_cpu"]["dropped"], s.get("unwind", {}).get("dropped", "-"))' 2>/dev/null || echo "? ? ?")
# The holes proftop found in the tracepoint's samples, and how many times
# a CPU's switch records were opened for them (src/offcpu-holes.c).
P_HOLES=$(tail -1 "$TMP/proftop.json" | python3 -c 'import json,sys; o=json.loads(sys.stdin.read())["off_cpu"]; print("%d switch-ins missing (%d after an idle task), %d of them on a CPU with its switch records; switch records opened %d times, closed %d" % (o["holes"], o["holes_idle"], o["holes_closed"], o["cpu_watches"], o["cpu_unwatches"]))' 2>/dev/null || echo "?")
P_SW=$(python3 -c 'import json,sys; v=[json.loads(l)["off_cpu"]["switches_per_sec"] for l in open(sys.argv[1]) if l.strip()][1:-1]; print("%.0f" % (sum(v)/len(v)) if v else "?")' "$TMP/proftop.json")

# perf record, then perf report on what it wrote.
pingpong_run perf
Q_REC=$(measure "$((SECS + 1))" /dev/null perf record -q -e sched:sched_switch $CG -a -o "$TMP/perf.data")
wait $PP
Q_PP=$(per1000 "$TMP/pp.perf")
Q_REP=$(measure 600 "$TMP/report.txt" perf report -i "$TMP/perf.data" --stdio --no-children --sort comm,sym)
Q_CPU=$(awk -v a="$Q_REC" -v b="$Q_REP" 'BEGIN { printf "%.2f", a + b }')
# Samples lost, as perf report counts them (its --stats lines end in a
# percentage, which summed made "9466.1").
Q_LOST=$(sed -n 's/^# Total Lost Samples: *\([0-9]*\).*/\1/p' "$TMP/report.txt" | head -1)
Q_N=$(perf report -i "$TMP/perf.data" --stats 2>/dev/null | sed -n 's/.*SAMPLE events: *\([0-9]*\).*/\1/p' | head -1)

# What the tracepoint alone gives: on each CPU a switch's prev_pid is the
# previous switch's next_pid, unless the kernel wrote no sample for a
# switch (it writes none in the context of some tasks, an idle task among
# them here); then a switch-in is missing.  Why proftop keeps switch
# records beside the tracepoint system-wide (src/live.c).
Q_HOLES=$(perf script -i "$TMP/perf.data" -F cpu,trace 2>/dev/null | awk '
	{ cpu = $1; prev = next_ = "" }
	{ for (i = 2; i <= NF; i++) { if ($i ~ /^prev_pid=/) prev = substr($i, 10); if ($i ~ /^next_pid=/) next_ = substr($i, 10) } }
	prev == "" { next }
	{ n++; if (cpu in last && last[cpu] != prev) { holes++; if (last[cpu] == 0) idle++ } last[cpu] = next_ }
	END { printf "%d of %d switches (%d after the idle task)", holes, n, idle }')

# The same work without the live noise: the recording replayed, proftop
# --off-cpu -i against perf report on it; and, with valgrind, instructions
# (callgrind) for each on a 2 s cut of it.
R_P=$(measure 600 /dev/null "$PROFTOP" --off-cpu -i "$TMP/perf.data" --batch -s comm,sym)
echo "replay cpu: proftop --off-cpu -i $R_P s, perf report $Q_REP s, ratio $(ratio "$R_P" "$Q_REP")"
if [ -z "${NOCALLGRIND:-}" ] && command -v valgrind >/dev/null 2>&1; then
	pingpong_run small
	perf record -q -e sched:sched_switch $CG -a -o "$TMP/small.data" -- sleep 2 2>/dev/null
	wait $PP
	callgrind_ir() {
		valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$@" >/dev/null 2>"$TMP/cg.err"
		sed -n 's/.*Collected : *//p' "$TMP/cg.err" | head -1
	}
	I_P=$(callgrind_ir "$PROFTOP" --off-cpu -i "$TMP/small.data" --batch -s comm,sym)
	I_Q=$(callgrind_ir perf report -i "$TMP/small.data" --stdio --no-children --sort comm,sym)
	echo "replay instructions (callgrind, 2 s recording): proftop $I_P, perf report $I_Q, ratio $(ratio "$I_P" "$I_Q")"
fi

loss() {
	awk -v x="$1" -v b="$base" 'BEGIN { printf "%+.1f%%", 100 * (x - b) / b }'
}
echo "cpu: proftop $P_CPU s, perf $Q_CPU s (record $Q_REC + report $Q_REP), ratio $(ratio "$P_CPU" "$Q_CPU")"
echo "ping-pong CPU per 1000 round trips: alone $base ms, under proftop $P_PP ms ($(loss "$P_PP")), under perf record $Q_PP ms ($(loss "$Q_PP"))"
echo "ping-pong round trips/s: under proftop $(achieved "$TMP/pp.proftop"), under perf record $(achieved "$TMP/pp.perf") (paced at $ROUNDS)"
echo "lost records: proftop $(echo "$P_LOST" | cut -d' ' -f1) (dropped intervals $(echo "$P_LOST" | cut -d' ' -f2), not unwound for want of queue room $(echo "$P_LOST" | cut -d' ' -f3)), perf record $Q_LOST"
echo "switch-ins missing from the tracepoint (perf script on perf record's file): $Q_HOLES"
echo "proftop's holes: $P_HOLES"
echo "sched_switch: proftop ${P_SW}/s, perf record $Q_N samples ($(awk -v n="${Q_N:-0}" -v s="$SECS" 'BEGIN { printf "%.0f", n / (s + 1) }')/s)"

# bpftrace: offcputime by the same tracepoint (the stack of the task going
# off, charged at its switch-in), kernel and user stacks, in a BPF map.
if [ -z "${NOBPF:-}" ] && command -v bpftrace >/dev/null 2>&1; then
	cat >"$TMP/offcpu.bt" <<'BT'
tracepoint:sched:sched_switch
{
	if (args->prev_pid) {
		@ts[args->prev_pid] = nsecs;
		@ks[args->prev_pid] = kstack;
		@us[args->prev_pid] = ustack;
	}
	$t = @ts[args->next_pid];
	if ($t) {
		@off[args->next_comm, @ks[args->next_pid], @us[args->next_pid]] = sum((nsecs - $t) / 1000);
		delete(@ts[args->next_pid]);
	}
}
END { clear(@ts); clear(@ks); clear(@us); }
BT
	pingpong_run bpftrace
	# Stacks in a stack-id map: sized up, since a full bucket loses the
	# stack (bpf_get_stackid's -EEXIST: "failed to look up stack id").
	export BPFTRACE_MAP_KEYS_MAX=262144
	B_CPU=$(measure "$((SECS + 1))" "$TMP/bt.txt" bpftrace "$TMP/offcpu.bt")
	echo "bpftrace stacks lost (stack-id map collisions): $(grep -c 'failed to look up stack id' "$TMP/bt.txt.err")"
	wait $PP
	B_PP=$(per1000 "$TMP/pp.bpftrace")
	echo "cpu: proftop $P_CPU s, bpftrace $B_CPU s, ratio $(ratio "$P_CPU" "$B_CPU")"
	echo "ping-pong CPU per 1000 round trips under bpftrace: $B_PP ms ($(loss "$B_PP"))"
	# Agreement: the ping-pong's off-CPU time, and its share under the
	# pipe read, in each tool (both over the whole run).
	python3 - "$TMP/proftop.json" "$TMP/bt.txt" <<'PY'
import json, re, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
rows = [r for r in s["rows"] if r.get("comm") == "pingpong"]
p_tot = sum(r["period"] for r in rows) / 1e3
p_pipe = sum(r["children"] for r in rows if r["symbol"] == "anon_pipe_read") * s["period"] / 100 / 1e3
b_tot = b_pipe = 0
for m in re.finditer(r"@off\[pingpong,(.*?)\]: (\d+)", open(sys.argv[2]).read(), re.S):
    b_tot += int(m.group(2))
    if "anon_pipe_read" in m.group(1):
        b_pipe += int(m.group(2))
print("ping-pong off-CPU time: proftop %.2f s (%.1f%% under anon_pipe_read), bpftrace %.2f s (%.1f%%)"
      % (p_tot / 1e6, 100 * p_pipe / p_tot if p_tot else 0, b_tot / 1e6, 100 * b_pipe / b_tot if b_tot else 0))
PY
else
	if [ -n "${NOBPF:-}" ]; then
		echo "bpftrace: SKIP (NOBPF)"
	else
		echo "bpftrace: SKIP (not installed: apt-get install bpftrace)"
	fi
fi

# AB=N: the ping-pong's loss under each, in N interleaved rounds (the order
# swapped every other round) of 8 s: nothing ("alone"), perf record -g -a
# plain, perf record with --switch-events (what proftop opened beside the
# tracepoint before it opened switch records only on CPUs with holes),
# and proftop --off-cpu -a as in the run above; each run's CPU per 1000
# round trips, proftop's holes and switch-record openings, then the
# means.  Each tool's CPU seconds too ("cpu", perf's record plus report),
# and each proftop's ratio to perf record -g -a plain's in the same round.
# PROFTOP_OLD=BINARY adds another proftop to each round (an older build,
# to compare).  AB_SECS: a round's runs, 8 s unless set (the target's
# are 15 s).  The machine's other load moves single runs by 10-20%.
AB_SECS=${AB_SECS:-8}
if [ -n "${AB:-}" ]; then
	ab_run() {
		name=$1
		shift
		"$TMP/pingpong" "$ROUNDS" "$AB_SECS" >"$TMP/pp.ab" &
		PP=$!
		extra=
		cpu=0
		case $name in
		alone) wait $PP ;;
		proftop-old)
			cpu=$(measure "$AB_SECS" /dev/null "$PROFTOP_OLD" --off-cpu $CG -a --json \
				--accumulate -d 1 -s comm,sym) ;;
		proftop)
			cpu=$(measure "$AB_SECS" "$TMP/ab.json" "$PROFTOP" --off-cpu $CG -a --json \
				--accumulate -d 1 -s comm,sym)
			extra=$(tail -1 "$TMP/ab.json" | python3 -c 'import json,sys; o=json.loads(sys.stdin.read())["off_cpu"]; print("holes %d idle %d closed %d cpu-watches %d unwatches %d" % (o["holes"], o["holes_idle"], o["holes_closed"], o["cpu_watches"], o["cpu_unwatches"]))' 2>/dev/null) ;;
		*)
			rec=$(measure "$((AB_SECS + 1))" /dev/null perf record -q -e sched:sched_switch \
				$CG -a "$@" -o "$TMP/ab.data" -- sleep "$AB_SECS")
			rep=$(measure 600 /dev/null perf report -i "$TMP/ab.data" --stdio --no-children \
				--sort comm,sym)
			cpu=$(awk -v a="$rec" -v b="$rep" 'BEGIN { printf "%.2f", a + b }')
			extra="record $rec report $rep" ;;
		esac
		wait $PP
		echo "$name $(per1000 "$TMP/pp.ab") cpu $cpu $extra"
	}
	for r in $(seq "$AB"); do
		if [ $((r % 2)) = 1 ]; then
			ab_run alone; ab_run plain; ab_run switch-events --switch-events; ab_run proftop
			[ -n "${PROFTOP_OLD:-}" ] && ab_run proftop-old
		else
			[ -n "${PROFTOP_OLD:-}" ] && ab_run proftop-old
			ab_run proftop; ab_run switch-events --switch-events; ab_run plain; ab_run alone
		fi | tee "$TMP/ab.round"
		# This round's ratios to perf record -g -a plain (record + report).
		awk '$1 == "plain" { p = $4 } $1 ~ /^proftop/ { c[$1] = $4 }
		     END { for (k in c) if (p > 0) printf "ratio %s %.3f\n", k, c[k] / p }' \
			"$TMP/ab.round"
	done | tee "$TMP/ab.txt" | sed 's/^/ab: /'
	awk '$1 != "ratio" { s[$1] += $2; cpu[$1] += $4; n[$1]++ } END { for (k in s) printf "ab mean: %s %.3f ms per 1000, cpu %.2f s (%d runs)\n", k, s[k] / n[k], cpu[k] / n[k], n[k] }' "$TMP/ab.txt" | sort
	awk '$1 == "ratio" { s[$2] += $3; n[$2]++ } END { for (k in s) printf "ab mean: ratio %s %.3f (%d rounds)\n", k, s[k] / n[k], n[k] }' "$TMP/ab.txt" | sort
fi
