# proftop --off-cpu: rows weighed by time off the CPU.  The sleeper sleeps
# 3:1 under sleep_long and sleep_short: their shares of the off-CPU time
# within 5 points, each under its nanosleep chain; folded weights in
# microseconds; two busy programs pinned to one CPU wait as [runqueue],
# not blocked; --off-cpu with -e is a usage error.
. tests/lib.sh
SLEEPER=tests/helpers/sleeper
[ -x "$SLEEPER" ] || fail "$SLEEPER not built (make tests/helpers/sleeper)"
require_perf_events

# Skipped only where proftop says why the tracepoint cannot be opened
# (no tracefs, no permission): any other failure fails.
if ! out=$(timeout 30 "$PROFTOP" --off-cpu --json -d 0.2 -- true 2>&1); then
	case $out in
	*"--off-cpu: "*|*"sched:sched_switch"*)
		skip "the sched:sched_switch tracepoint cannot be opened: $(echo "$out" | tail -1)" ;;
	esac
	fail "proftop --off-cpu -- true: $out"
fi

"$PROFTOP" --off-cpu --json --accumulate -d 1 -s comm,sym -- "$SLEEPER" 3 >"$TMP/out.json" 2>"$TMP/err" ||
	fail "proftop --off-cpu -- sleeper failed: $(cat "$TMP/err")"
json_check "$TMP/out.json" 'snaps[-1]["event"] == "sched:sched_switch" and "off_cpu" in snaps[-1]' ||
	fail "the snapshot names the tracepoint and has off_cpu: $(tail -1 "$TMP/out.json" | cut -c1-300)"
python3 - "$TMP/out.json" <<'PY' || fail "shares of the off-CPU time"
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
last = snaps[-1]
rows = [r for r in last["rows"] if r.get("comm") == "sleeper"]
total = sum(r["period"] for r in rows)
# Off-CPU time is wall time minus a little computing: about 3 s, in ns.
assert 2.0e9 < total < 3.6e9, "sleeper's off-CPU total %d ns" % total
share = {}
for r in rows:
    if r["symbol"] in ("sleep_long", "sleep_short", "do_nanosleep"):
        share[r["symbol"]] = 100.0 * r["children"] * last["period"] / 100.0 / total
print("shares:", share)
assert abs(share.get("sleep_long", 0) - 75) <= 5, share
assert abs(share.get("sleep_short", 0) - 25) <= 5, share
assert share.get("do_nanosleep", 0) > 90, share
# Per second of a full refresh (the last is short): one thread off the
# CPU nearly all the time.
full = [s for s in snaps[:-1] if s["time"] > 0.5]
assert full and all(700 < s["off_cpu"]["ms_per_sec"] < 1300 for s in full), [s["off_cpu"] for s in snaps]
PY
ok "sleep_long 75% and sleep_short 25% of the off-CPU time, under do_nanosleep"

# One long sleep: charged up to each refresh while it lasts, not only at
# its end.
"$PROFTOP" --off-cpu --json -d 1 -- sleep 2.5 >"$TMP/sleep.json" 2>"$TMP/err" ||
	fail "--off-cpu -- sleep 2.5: $(cat "$TMP/err")"
json_check "$TMP/sleep.json" 'len(snaps) >= 2 and 800 < snaps[0]["off_cpu"]["ms_per_sec"] < 1100 and 800 < snaps[1]["off_cpu"]["ms_per_sec"] < 1100' ||
	fail "a thread asleep across refreshes: $(cut -c1-400 "$TMP/sleep.json")"
ok "a sleep across refreshes is charged up to each refresh"

"$PROFTOP" --off-cpu --folded --accumulate -d 5 -- "$SLEEPER" 1.5 >"$TMP/folded" 2>"$TMP/err" ||
	fail "--off-cpu --folded: $(cat "$TMP/err")"
python3 - "$TMP/folded" <<'PY' || fail "folded weights"
import sys
# Stacks without do_nanosleep are legitimate but small: the sleeper
# preempted while runnable ([runqueue]) on a loaded machine, a page fault.
w = {"long": 0, "short": 0}
other = 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    stack, n = line.rsplit(" ", 1)
    frames = stack.split(";")
    for k in w:
        if "sleep_" + k in frames:
            if "do_nanosleep" not in frames:
                other += int(n)
                continue
            assert frames.index("sleep_" + k) < frames.index("do_nanosleep"), line
            w[k] += int(n)
print("folded microseconds:", w, "elsewhere:", other)
assert other < 0.05 * (w["long"] + w["short"]), (w, other)
# 1.5 s: ~1.1 s under sleep_long, in microseconds.
assert 800000 < w["long"] < 1400000, w
assert abs(100.0 * w["long"] / (w["long"] + w["short"]) - 75) <= 5, w
PY
ok "folded: weights in microseconds, caller above the kernel's nanosleep"

# Two busy programs on one CPU: each waits for it about half the time,
# preempted while runnable.
"$PROFTOP" --off-cpu --json --accumulate -d 5 -s comm,sym -- sh -c \
	"taskset -c 0 $WORKLOAD 2 & taskset -c 0 $WORKLOAD 2; wait" >"$TMP/rq.json" 2>"$TMP/err" ||
	fail "--off-cpu with pinned workloads: $(cat "$TMP/err")"
grep -v '^ready' "$TMP/rq.json" >"$TMP/rq2.json"
python3 - "$TMP/rq2.json" <<'PY' || fail "runqueue time"
import json, sys
last = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
rows = [r for r in last["rows"] if r.get("comm") == "workload"]
total = sum(r["period"] for r in rows)
runq = sum(r["period"] for r in rows if r["symbol"] == "[runqueue]")
print("workload off-CPU %.2f s, [runqueue] %.2f s" % (total / 1e9, runq / 1e9))
assert total > 1.0e9, total
assert runq > 0.8 * total, (runq, total)
PY
ok "pinned busy programs wait as [runqueue], not blocked"

"$PROFTOP" --off-cpu -e cycles -- true >/dev/null 2>"$TMP/err"
st=$?
[ $st -eq 2 ] || fail "--off-cpu -e: status $st, expected 2"
grep -q 'excludes -e' "$TMP/err" || fail "--off-cpu -e message: $(cat "$TMP/err")"
ok "--off-cpu with -e is a usage error"

# The browser: the same rows, its header in off-CPU terms.
if command -v tmux >/dev/null 2>&1 && tmux_start offcpu 120 40; then
	ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
	ABS_SLEEPER=$(cd "$(dirname "$SLEEPER")" && pwd)/$(basename "$SLEEPER")
	keys "clear; $ABS_PROFTOP --off-cpu -d 0.5 -- $ABS_SLEEPER 30" Enter
	wait_for '^proftop  event sched:sched_switch ' "tracepoint in the header"
	wait_for '% of all off-CPU time  off-CPU [0-9.]+ ms/s  switches [0-9]+/s' "off-CPU units"
	wait_for 'sleeper +sleeper +\[\.\] sleep_long$' "sleep_long row"
	keys q
	ok "browser: off-CPU header and the sleeper's rows"
else
	echo "# browser part skipped: tmux cannot start a session here"
fi

# Without permission for the tracepoint: one line naming cause and fix, exit 1.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
	su nobody -s /bin/sh -c "$ABS_PROFTOP --off-cpu -b -n 1 -d 0.3 -- true" >/dev/null 2>"$TMP/nobody.err"
	st=$?
	if [ $st -eq 126 ] || [ $st -eq 127 ]; then
		echo "# unprivileged part skipped: nobody cannot run $ABS_PROFTOP"
	else
		[ $st -eq 1 ] || fail "--off-cpu as nobody: status $st, expected 1: $(cat "$TMP/nobody.err")"
		[ "$(wc -l <"$TMP/nobody.err")" -eq 1 ] || fail "--off-cpu as nobody: not one line: $(cat "$TMP/nobody.err")"
		grep -q -- '--off-cpu: .*run as root' "$TMP/nobody.err" ||
			fail "--off-cpu as nobody: $(cat "$TMP/nobody.err")"
		ok "--off-cpu without permission: one line with the fix, exit 1"
	fi
fi

# Replay: perf record -e sched:sched_switch -g --switch-events, the format
# from the file's tracing data; the total agrees with the intervals that
# perf script shows (switch-out sample to switch-in record) within 1%.
if command -v perf >/dev/null 2>&1 &&
	perf record -q -e sched:sched_switch -g --switch-events -o "$TMP/ss.data" -- "$SLEEPER" 1.5 \
		>/dev/null 2>"$TMP/perf.err" && [ -s "$TMP/ss.data" ]; then
	"$PROFTOP" --off-cpu -i "$TMP/ss.data" --json --accumulate -s comm,sym >"$TMP/replay.json" 2>"$TMP/err" ||
		fail "--off-cpu -i: $(cat "$TMP/err")"
	perf script -i "$TMP/ss.data" --ns --show-switch-events -F comm,tid,time,event \
		>"$TMP/script.txt" 2>/dev/null || fail "perf script on the recording"
	python3 - "$TMP/replay.json" "$TMP/script.txt" <<'PY' || fail "replay against perf script"
import json, sys
last = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
start, total = {}, 0
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) < 4:
        continue
    tid, t = f[1], round(float(f[2].rstrip(":")) * 1e9)
    if "sched:sched_switch:" in line:
        start[tid] = t
    elif "PERF_RECORD_SWITCH" in line and "IN" in f and tid in start:
        total += t - start.pop(tid)
rows = [r for r in last["rows"] if r.get("comm") == "sleeper"]
ours = sum(r["period"] for r in rows)
share = {r["symbol"]: r["children"] * last["period"] / ours for r in rows
         if r["symbol"] in ("sleep_long", "sleep_short")}
print("proftop %.4f s, perf script %.4f s, shares %s" % (ours / 1e9, total / 1e9, share))
assert total > 1e9, total
assert abs(ours - total) <= 0.01 * total, (ours, total)
assert abs(share["sleep_long"] - 75) <= 5 and abs(share["sleep_short"] - 25) <= 5, share
PY
	ok "replay of a sched_switch recording: total within 1% of perf script's, 3:1 shares"
else
	echo "# replay part skipped: perf record -e sched:sched_switch failed: $(tail -1 "$TMP/perf.err" 2>/dev/null)"
fi

# A recording of another event: one line saying what --off-cpu needs.
if perf record -q -e cpu-clock -o "$TMP/cc.data" -- true >/dev/null 2>&1; then
	"$PROFTOP" --off-cpu -i "$TMP/cc.data" --json >/dev/null 2>"$TMP/err"
	st=$?
	[ $st -eq 1 ] && grep -q 'not recorded with the sched:sched_switch' "$TMP/err" ||
		fail "--off-cpu -i on a cpu-clock recording: status $st: $(cat "$TMP/err")"
	ok "--off-cpu -i on a recording without sched_switch: exit 1 and why"
fi
