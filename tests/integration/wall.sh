# proftop --wall: cpu-clock samples and off-CPU intervals in one table.
# The waiter's main thread spends 40% in nanosleep, 30% blocked reading a
# pipe, 20% in pthread_cond_timedwait and 10% computing: its shares of the
# wall time within 5 points, each under its own chain, live (command, -p,
# -t, system-wide) and from a perf record -e cpu-clock -e sched:sched_switch
# recording (total within 1% of perf script's); three busy threads pinned
# to one CPU wait to run two-thirds of the time; the browser's columns.
. tests/lib.sh
WAITER=tests/helpers/waiter
[ -x "$WAITER" ] || fail "$WAITER not built (make tests/helpers/waiter)"
require_perf_events

if ! out=$(timeout 30 "$PROFTOP" --wall --json -d 0.2 -- true 2>&1); then
	case $out in
	*"--wall: "*|*"sched:sched_switch"*)
		skip "the sched:sched_switch tracepoint cannot be opened: $(echo "$out" | tail -1)" ;;
	esac
	fail "proftop --wall -- true: $out"
fi

# wall_shares FOLDED SECONDS [COMM]: the waiter thread's stacks (comm COMM,
# waiter by default) by
# what they wait in; each share of its wall time within 5 points of the
# loop's, its total about SECONDS; a futex wait is told by the kernel's
# futex_wait (glibc's futex code keeps no frame pointer, so its caller is
# not on the chain), the others by their caller above the syscall; time
# waiting to run ([runqueue]: the machine's load) is left out of the shares.
wall_shares() {
	python3 - "$1" "$2" "${3:-waiter}" <<'PY'
import sys
want = {"in_sleep": 40, "in_read": 30, "futex_wait": 20, "in_compute": 10}
kernel = {"in_sleep": "do_nanosleep", "in_read": "pipe_read", "futex_wait": "futex_wait"}
w = dict.fromkeys(want, 0)
w["other"] = 0
runq = 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith(sys.argv[3] + ";"):
        continue
    stack, n = line.rsplit(" ", 1)
    frames = stack.split(";")
    # Waiting for a CPU is the machine's load (other tests), not the loop's.
    if "[runqueue]" in frames:
        runq += int(n)
        continue
    k = next((k for k in want if k in frames), "other")
    # Blocked under its own syscall (off the CPU: the leaf is __schedule,
    # where the switch-out was taken): the caller above the kernel's frames.
    if k in kernel and frames[-1] == "__schedule":
        assert any(f.endswith(kernel[k]) for f in frames), line
        if k != "futex_wait":
            assert frames.index(k) < frames.index("entry_SYSCALL_64_after_hwframe"), line
    w[k] += int(n)
total = sum(w.values())
shares = {k: round(100.0 * v / total, 1) for k, v in w.items()}
print("# waiter wall %.2f s, shares %s, waiting to run %.3f s" % (total / 1e6, shares, runq / 1e6))
assert abs((total + runq) / 1e6 - float(sys.argv[2])) < 0.25 * float(sys.argv[2]), total
for k, pct in want.items():
    assert abs(shares[k] - pct) <= 5, (k, shares)
PY
}

"$PROFTOP" --wall --folded --accumulate -d 5 -- "$WAITER" 3 >"$TMP/cmd.folded" 2>"$TMP/err" ||
	fail "proftop --wall -- waiter: $(cat "$TMP/err")"
wall_shares "$TMP/cmd.folded" 3 || fail "the waiter's shares under --wall -- COMMAND"
ok "command: nanosleep 40%, pipe read 30%, futex 20%, computing 10%, each under its chain"

# JSON: On-CPU near 10% of the waiter thread's wall time; On + Off = Wall.
"$PROFTOP" --wall --json --accumulate -d 5 --no-children -s comm,tid -- "$WAITER" 2 \
	>"$TMP/cmd.json" 2>"$TMP/err" || fail "--wall --json: $(cat "$TMP/err")"
python3 - "$TMP/cmd.json" <<'PY' || fail "--wall JSON"
import json, sys
last = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
assert last["event"] == "cpu-clock,sched:sched_switch", last["event"]
assert "on_cpu" in last and "off_cpu" in last, list(last)
# The waiter's main thread (its filler thread is named "filler" once it
# runs, but a sample taken before it renamed itself says "waiter").
rows = [r for r in last["rows"] if r.get("comm") == "waiter" and r["pid"] == r["tid"]]
assert len(rows) == 1, rows
t = rows[0]["wall"]
assert t["on_cpu_ns"] + t["off_cpu_ns"] == t["wall_ns"] == rows[0]["period"], t
assert t["off_cpu_ns"] == t["blocked_ns"] + t["runq_ns"], t
on = 100.0 * t["on_cpu_ns"] / t["wall_ns"]
print("# waiter thread: on-CPU %.1f%% of %.2f s" % (on, t["wall_ns"] / 1e9))
assert 6 <= on <= 15, on
PY
ok "JSON: On-CPU near 10% of the waiter's wall time, On + Off = Wall = period"

# -p and -t: the process (filler included), or its main thread alone.
"$WAITER" 30 &
WPID=$!
BG_PIDS="$BG_PIDS $WPID"
sleep 0.3
"$PROFTOP" --wall --folded --accumulate -d 3 -n 1 -t "$WPID" >"$TMP/tid.folded" 2>"$TMP/err" ||
	fail "--wall -t: $(cat "$TMP/err")"
wall_shares "$TMP/tid.folded" 3 || fail "the waiter's shares under --wall -t"
grep -q '^filler;' "$TMP/tid.folded" && fail "--wall -t TID shows another thread: $(grep -c '^filler;' "$TMP/tid.folded")"
ok "-t TID: the same shares, that thread alone"
"$PROFTOP" --wall --folded --accumulate -d 3 -n 1 -p "$WPID" >"$TMP/pid.folded" 2>"$TMP/err" ||
	fail "--wall -p: $(cat "$TMP/err")"
wall_shares "$TMP/pid.folded" 3 || fail "the waiter's shares under --wall -p"
grep -q '^filler;.*do_nanosleep' "$TMP/pid.folded" || fail "--wall -p: no filler thread"
ok "-p PID: the same shares, and the filler thread beside"

# System-wide: the waiter among every thread; idle CPUs count as the idle
# task's on-CPU time, never off-CPU.
"$PROFTOP" --wall -a --json -d 2 -n 1 --no-children -s comm,tid >"$TMP/sys.json" 2>"$TMP/err" ||
	fail "--wall -a: $(cat "$TMP/err")"
python3 - "$TMP/sys.json" "$WPID" <<'PY' || fail "--wall -a rows"
import json, sys
last = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
me = [r for r in last["rows"] if r.get("tid") == int(sys.argv[2])]
assert len(me) == 1, me
t = me[0]["wall"]
on = 100.0 * t["on_cpu_ns"] / t["wall_ns"]
print("# system-wide: waiter %.2f s, on-CPU %.1f%%, %d rows" % (t["wall_ns"] / 1e9, on, len(last["rows"])))
assert 1.5e9 < t["wall_ns"] < 2.6e9, t
assert 4 <= on <= 18, on
# The idle task: on-CPU time only (on a busy machine there may be none).
idle = [r["wall"] for r in last["rows"] if r.get("tid") == 0]
print("# idle task: %s" % idle)
assert all(t["off_cpu_ns"] == 0 for t in idle), idle
PY
ok "system-wide: the waiter thread's wall time and on-CPU share, the idle task on-CPU only"

# System-wide, the shares too: the tracepoint misses the switch-ins that
# follow some tasks' switch-outs (the idle task's among them), and the
# switch records give them.  The waiter under a name of its own, apart
# from any other test's.
SYSW="$TMP/wa$$"
cp "$WAITER" "$SYSW"
"$SYSW" 30 &
SPID=$!
BG_PIDS="$BG_PIDS $SPID"
sleep 0.3
"$PROFTOP" --wall -a --folded --accumulate -d 3 -n 1 >"$TMP/sysw.folded" 2>"$TMP/err" ||
	fail "--wall -a --folded: $(cat "$TMP/err")"
wall_shares "$TMP/sysw.folded" 3 "$(basename "$SYSW" | cut -c1-15)" ||
	fail "the waiter's shares under --wall -a"
kill "$SPID" 2>/dev/null
ok "-a: the same shares, among every thread"
kill "$WPID" 2>/dev/null

# Three busy threads pinned to one CPU: each runs a third of its wall time
# and waits to run (Runq) the rest, not blocked.
"$PROFTOP" --wall --json --accumulate -d 5 --no-children -s comm,tid -- "$WAITER" --runq 3 \
	>"$TMP/rq.json" 2>"$TMP/err" || fail "--wall, pinned threads: $(cat "$TMP/err")"
python3 - "$TMP/rq.json" <<'PY' || fail "runqueue shares"
import json, sys
last = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
# The spinners: the threads other than the main one (blocked in join).
rows = [r for r in last["rows"] if r.get("comm") == "waiter" and r["wall"]["on_cpu_ns"] > 1e8]
assert len(rows) == 3, [(r["tid"], r["wall"]) for r in last["rows"]]
on = [r["wall"]["on_cpu_ns"] for r in rows]
for r in rows:
    t = r["wall"]
    runq, blocked = t["runq_ns"] / t["wall_ns"], t["blocked_ns"] / t["wall_ns"]
    print("# tid %d: wall %.2f s, on the CPU %.0f%%, waiting to run %.0f%%, blocked %.1f%%"
          % (r["tid"], t["wall_ns"] / 1e9, 100 * t["on_cpu_ns"] / t["wall_ns"], 100 * runq,
             100 * blocked))
    # Two-thirds on an idle CPU; more when other work shares it too.
    assert 0.55 <= runq <= 0.95, runq
    assert blocked < 0.05, blocked
# The CPU shared fairly: each got about a third of what the three got.
assert max(on) < 1.3 * min(on), on
PY
ok "three threads pinned to one CPU: about two-thirds waiting to run each"

# --off-cpu's Runq column: those threads' waits are all for a CPU.
"$PROFTOP" --off-cpu --json --accumulate -d 5 --no-children -s comm,tid -- "$WAITER" --runq 2 \
	>"$TMP/rq2.json" 2>"$TMP/err" || fail "--off-cpu, pinned threads: $(cat "$TMP/err")"
python3 - "$TMP/rq2.json" <<'PY' || fail "--off-cpu Runq column"
import json, sys
last = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
rows = [r for r in last["rows"] if r.get("comm") == "waiter" and r["times"]["runq_ns"] > 5e8]
assert len(rows) == 3, [(r["tid"], r["times"]) for r in last["rows"]]
for r in rows:
    assert r["times"]["runq_ns"] > 0.95 * r["times"]["off_cpu_ns"], r["times"]
    assert r["times"]["on_cpu_ns"] == 0, r["times"]
PY
ok "--off-cpu: the pinned threads' off-CPU time is all in the Runq column"

"$PROFTOP" --wall -e cpu-clock -- true >/dev/null 2>"$TMP/err"
st=$?
[ $st -eq 2 ] && grep -q 'excludes -e' "$TMP/err" || fail "--wall -e: status $st: $(cat "$TMP/err")"
ok "--wall with -e is a usage error"

# Replay: cpu-clock and sched_switch in one recording; proftop's total time
# of the waiter's process agrees with perf script's (cpu-clock periods plus
# switch-out to switch-in intervals) within 1%.
if command -v perf >/dev/null 2>&1 &&
	perf record -q -e cpu-clock -e sched:sched_switch -g --switch-events -o "$TMP/w.data" \
		-- "$WAITER" 2 >/dev/null 2>"$TMP/perf.err" && [ -s "$TMP/w.data" ]; then
	"$PROFTOP" --wall -i "$TMP/w.data" --folded >"$TMP/replay.folded" 2>"$TMP/err" ||
		fail "--wall -i: $(cat "$TMP/err")"
	wall_shares "$TMP/replay.folded" 2 || fail "the waiter's shares from a recording"
	perf script -i "$TMP/w.data" --ns --show-switch-events -F comm,tid,time,event,period \
		>"$TMP/script.txt" 2>/dev/null || fail "perf script on the recording"
	python3 - "$TMP/replay.folded" "$TMP/script.txt" <<'PY' || fail "replay against perf script"
import sys
ours = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1])
           if l.startswith(("waiter;", "filler;")))
start, total = {}, 0
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) < 4 or f[0] not in ("waiter", "filler"):
        continue
    tid, t = f[1], round(float(f[2].rstrip(":")) * 1e9)
    if "sched:sched_switch:" in line:
        start[tid] = t
    elif "cpu-clock:" in line:
        total += int(f[3])
    elif "PERF_RECORD_SWITCH" in line and "IN" in f and tid in start:
        total += t - start.pop(tid)
total //= 1000
print("# proftop %.4f s, perf script %.4f s" % (ours / 1e6, total / 1e6))
assert total > 2e6, total
assert abs(ours - total) <= 0.01 * total, (ours, total)
PY
	ok "replay: the same shares; total within 1% of perf script's"
	# Inlined functions' rows have no time of their own (they once had no
	# stats at all, and the snapshot copied from NULL).
	"$PROFTOP" --wall -i "$TMP/w.data" --json -s dso,sym >"$TMP/plain.json" 2>"$TMP/err" ||
		fail "--wall -i --json: $(cat "$TMP/err")"
	"$PROFTOP" --wall -i "$TMP/w.data" --json --inline -s dso,sym,srcline >"$TMP/inl.json" \
		2>"$TMP/err" || fail "--wall -i --inline -s dso,sym,srcline: status $?: $(cat "$TMP/err")"
	python3 - "$TMP/plain.json" "$TMP/inl.json" <<'PY' || fail "--wall --inline rows"
import json, sys
plain, inl = (json.loads(open(f).read().splitlines()[-1])["rows"] for f in sys.argv[1:])
assert any(r.get("inlined") for r in inl), "no inlined row"
assert sum(r["period"] for r in inl) == sum(r["period"] for r in plain)
PY
	ok "--wall --inline -s dso,sym,srcline: inlined rows, the same total time"
	# perf's pipe format: the formats come as a record in the stream.
	perf record -q -o - -e cpu-clock -e sched:sched_switch -g --switch-events -- "$WAITER" 2 \
		2>/dev/null | "$PROFTOP" --wall -i - --folded >"$TMP/pipe.folded" 2>"$TMP/err" ||
		fail "--wall -i -: $(cat "$TMP/err")"
	wall_shares "$TMP/pipe.folded" 2 || fail "the waiter's shares from perf's pipe format"
	perf record -q -o - -e sched:sched_switch -g --switch-events -- "$WAITER" 1 2>/dev/null |
		"$PROFTOP" --off-cpu -i - --json -s comm >"$TMP/pipe.json" 2>"$TMP/err" ||
		fail "--off-cpu -i -: $(cat "$TMP/err")"
	json_check "$TMP/pipe.json" '0.8e9 < sum(r["period"] for r in snaps[-1]["rows"] if r["comm"] == "waiter") < 1.2e9' ||
		fail "--off-cpu -i -: the waiter's off-CPU time: $(cut -c1-300 "$TMP/pipe.json")"
	ok "perf record -o - | proftop --wall (and --off-cpu) -i -: the formats from the stream"
	perf record -q -e sched:sched_switch -g -o "$TMP/ss.data" -- true >/dev/null 2>&1
	"$PROFTOP" --wall -i "$TMP/ss.data" --json >/dev/null 2>"$TMP/err"
	st=$?
	[ $st -eq 1 ] && grep -q 'not recorded with both cpu-clock' "$TMP/err" ||
		fail "--wall -i on a sched_switch-only recording: status $st: $(cat "$TMP/err")"
	ok "--wall -i without cpu-clock: exit 1 and why"
else
	echo "# replay part skipped: perf record failed: $(tail -1 "$TMP/perf.err" 2>/dev/null)"
fi

# The browser: the four columns, and the sort moves through them.
if command -v tmux >/dev/null 2>&1 && tmux_start wall 120 40; then
	ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
	ABS_WAITER=$(cd "$(dirname "$WAITER")" && pwd)/$(basename "$WAITER")
	keys "clear; $ABS_PROFTOP --wall -d 0.5 -- $ABS_WAITER 30" Enter
	wait_for '^proftop  event cpu-clock,sched:sched_switch ' "both events in the header"
	wait_for '% of all wall time  on-CPU [0-9.]+ ms/s  off-CPU [0-9.]+ ms/s' "wall units"
	wait_for 'Children +Self +Samples +On-CPU +Off-CPU +Runq +Wall ' "the time columns"
	wait_for 'waiter +waiter +\[\.\] in_sleep$' "in_sleep row"
	keys '>' '>' '>'
	wait_for 'Sort: On-CPU ' "sorted by On-CPU"
	screen >"$TMP/browser.txt"
	keys q
	ok "browser: the time columns, sorted by On-CPU"
else
	echo "# browser part skipped: tmux cannot start a session here"
fi
