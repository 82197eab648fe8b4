# proftop --wall / --off-cpu with --call-graph dwarf: each switch-out's
# user stack is unwound, so the waiter's futex wait shows under in_condwait
# (glibc's futex code keeps no frame pointer: with -g it has no caller),
# live and from a perf record --call-graph dwarf recording (total within 1%
# of perf script's); Debian's stripped python3.11 and sqlite3 get their
# user frames (from .eh_frame) above the syscall they block in.
. tests/lib.sh
WAITER=tests/helpers/waiter
[ -x "$WAITER" ] || fail "$WAITER not built (make tests/helpers/waiter)"
require_perf_events

if ! out=$(timeout 30 "$PROFTOP" --wall --call-graph dwarf --json -d 0.2 -- true 2>&1); then
	case $out in
	*"--wall: "*|*"sched:sched_switch"*)
		skip "the sched:sched_switch tracepoint cannot be opened: $(echo "$out" | tail -1)" ;;
	esac
	fail "proftop --wall --call-graph dwarf -- true: $out"
fi

# dwarf_shares FOLDED SECONDS: the waiter thread's stacks by the function
# of the loop they are under; each share within 5 points of the loop's,
# every blocked interval under its caller above the kernel's frames, the
# futex wait's too.
dwarf_shares() {
	python3 - "$1" "$2" <<'PY'
import sys
want = {"in_sleep": 40, "in_read": 30, "in_condwait": 20, "in_compute": 10}
kernel = {"in_sleep": "do_nanosleep", "in_read": "pipe_read", "in_condwait": "futex_wait"}
w = dict.fromkeys(want, 0)
w["other"] = 0
runq = futex_orphans = 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("waiter;"):
        continue
    stack, n = line.rsplit(" ", 1)
    frames = stack.split(";")
    if "[runqueue]" in frames:
        runq += int(n)
        continue
    k = next((k for k in want if k in frames), "other")
    if k in kernel and frames[-1] == "__schedule":
        assert any(f.endswith(kernel[k]) for f in frames), line
        assert frames.index(k) < frames.index("entry_SYSCALL_64_after_hwframe"), line
        assert frames[1] == "_start", line
    # A futex wait with no in_condwait above it: the chain -g gives.
    if k == "other" and "futex_wait" in frames and "__pthread_clockjoin_ex" not in frames:
        futex_orphans += int(n)
    w[k] += int(n)
total = sum(w.values())
shares = {k: round(100.0 * v / total, 1) for k, v in w.items()}
print("# waiter wall %.2f s, shares %s, waiting to run %.3f s, futex waits without a caller %.3f s"
      % (total / 1e6, shares, runq / 1e6, futex_orphans / 1e6))
assert abs((total + runq) / 1e6 - float(sys.argv[2])) < 0.25 * float(sys.argv[2]), total
for k, pct in want.items():
    assert abs(shares[k] - pct) <= 5, (k, shares)
assert futex_orphans < 0.01 * total, futex_orphans
PY
}

"$PROFTOP" --wall --call-graph dwarf --folded --accumulate -d 5 -- "$WAITER" 3 \
	>"$TMP/cmd.folded" 2>"$TMP/err" || fail "proftop --wall --call-graph dwarf -- waiter: $(cat "$TMP/err")"
dwarf_shares "$TMP/cmd.folded" 3 || fail "the waiter's shares under --wall --call-graph dwarf -- COMMAND"
ok "command: nanosleep 40%, pipe read 30%, futex 20% under in_condwait, computing 10%"

"$WAITER" 30 &
WPID=$!
BG_PIDS="$BG_PIDS $WPID"
sleep 0.3
"$PROFTOP" --off-cpu --call-graph dwarf --folded --accumulate -d 3 -n 1 -t "$WPID" \
	>"$TMP/tid.folded" 2>"$TMP/err" || fail "--off-cpu --call-graph dwarf -t: $(cat "$TMP/err")"
grep -q '^waiter;_start;.*;waits;in_condwait;.*futex_wait' "$TMP/tid.folded" ||
	fail "--off-cpu --call-graph dwarf -t: no futex wait under in_condwait: $(cut -c1-200 "$TMP/tid.folded")"
ok "-t TID --off-cpu: the futex wait under in_condwait"
"$PROFTOP" --wall --call-graph dwarf --json -a -d 2 -n 1 >"$TMP/sys.json" 2>"$TMP/err" ||
	fail "--wall --call-graph dwarf -a: $(cat "$TMP/err")"
json_check "$TMP/sys.json" 'snaps[-1]["unwind"]["method"] == "dwarf" and snaps[-1]["off_cpu"]["switches_per_sec"] > 0' ||
	fail "--wall --call-graph dwarf -a: $(cut -c1-400 "$TMP/sys.json")"
ok "system-wide: dwarf unwinding of the switches"
kill "$WPID" 2>/dev/null

# Debian's stripped binaries: python3.11's time.sleep and sqlite3's
# fdatasync, their callers found from .eh_frame.
if [ -x /usr/bin/python3.11 ]; then
	"$PROFTOP" --off-cpu --call-graph dwarf --folded --accumulate -d 3 -- \
		/usr/bin/python3.11 -c 'import time; time.sleep(1)' >"$TMP/py.folded" 2>"$TMP/err" ||
		fail "--off-cpu --call-graph dwarf -- python3.11: $(cat "$TMP/err")"
	python3 - "$TMP/py.folded" <<'PY' || fail "python3.11's sleep without its callers"
import sys
best = max((int(l.rsplit(" ", 1)[1]), l.rsplit(" ", 1)[0].split(";"))
           for l in open(sys.argv[1]) if l.startswith("python3.11;") and "do_nanosleep" in l)
n, frames = best
print("# python3.11: %.3f s under %s" % (n / 1e6, ";".join(frames[:frames.index("entry_SYSCALL_64_after_hwframe")])))
assert 0.9e6 < n < 1.2e6, n
# (time_sleep is static: sub_<hex> without python's debug file)
for f in ("_start", "Py_BytesMain", "_PyEval_EvalFrameDefault", "PyObject_Vectorcall"):
    assert f in frames, (f, frames)
PY
	ok "python3.11 (stripped): time.sleep's second under _start, Py_BytesMain, the eval loop"
fi
if command -v sqlite3 >/dev/null 2>&1; then
	{
		echo "CREATE TABLE t(a, b);"
		i=0
		while [ $i -lt 50 ]; do echo "INSERT INTO t VALUES($i, randomblob(2000));"; i=$((i + 1)); done
	} >"$TMP/ins.sql"
	"$PROFTOP" --off-cpu --call-graph dwarf --folded --accumulate -d 5 -- \
		sqlite3 "$TMP/t.db" ".read $TMP/ins.sql" >"$TMP/sq.folded" 2>"$TMP/err" ||
		fail "--off-cpu --call-graph dwarf -- sqlite3: $(cat "$TMP/err")"
	grep -q '^sqlite3;.*sqlite3_step;.*sqlite3PagerCommitPhase.*;entry_SYSCALL_64' "$TMP/sq.folded" ||
		fail "sqlite3's waits without their callers: $(sort -t' ' -k2 -rn "$TMP/sq.folded" | head -3 | cut -c1-300)"
	ok "sqlite3 (stripped): its I/O waits under sqlite3_step and the pager's commit"
fi

# Replay: perf record --call-graph dwarf; the shares as live, and the
# total within 1% of the intervals perf script shows.
if command -v perf >/dev/null 2>&1 &&
	perf record -q -e cpu-clock -e sched:sched_switch --call-graph dwarf --switch-events \
		-o "$TMP/w.data" -- "$WAITER" 2 >/dev/null 2>"$TMP/perf.err" && [ -s "$TMP/w.data" ]; then
	"$PROFTOP" --wall -i "$TMP/w.data" --folded >"$TMP/replay.folded" 2>"$TMP/err" ||
		fail "--wall -i (dwarf): $(cat "$TMP/err")"
	dwarf_shares "$TMP/replay.folded" 2 || fail "the waiter's shares from a dwarf recording"
	perf script -i "$TMP/w.data" --ns --show-switch-events -F comm,tid,time,event,period \
		>"$TMP/script.txt" 2>/dev/null || fail "perf script on the recording"
	python3 - "$TMP/replay.folded" "$TMP/script.txt" <<'PY' || fail "dwarf replay against perf script"
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
	ok "replay of a --call-graph dwarf recording: the same shares; total within 1% of perf script's"
else
	echo "# replay part skipped: perf record failed: $(tail -1 "$TMP/perf.err" 2>/dev/null)"
fi
