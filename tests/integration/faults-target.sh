# Faults of the profiled process while live: it execs another program (new
# names only afterwards), is stopped and continued (the session goes on),
# and is killed mid-session (a message, the last table kept).
# run-tests: alone (times or rates measured; see tests/run-tests.sh)
. tests/lib.sh
require_perf_events
EXECER=${EXECER:-tests/helpers/execer}
[ -x "$EXECER" ] || fail "$EXECER is not built (make tests/helpers/execer)"

# exec: 1.5 s in execer's own leaf, then the workload for 3 s.  With -z each
# snapshot covers its interval only: the last ones are after the exec and
# must name the workload's leaves, never execer's.
"$EXECER" 1.5 "$WORKLOAD" 3 >"$TMP/ex.out" &
EX_PID=$!
BG_PIDS="$BG_PIDS $EX_PID"
i=0
while ! grep -q ready "$TMP/ex.out" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 500 ] || fail "execer did not start"; sleep 0.01
done
"$PROFTOP" -p "$EX_PID" -z --json -d 0.5 >"$TMP/ex.json" 2>"$TMP/ex.err" ||
	fail "proftop -p over an exec: status $? ($(cat "$TMP/ex.err"))"
python3 - "$TMP/ex.json" <<'PY' || fail "names across the exec"
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def syms(s):
    return {(r.get("dso"), r.get("symbol")) for r in s["rows"] if r["samples"] > 0}
before = [s for s in snaps if ("execer", "pre_exec_leaf") in syms(s)]
after = [s for s in snaps if ("workload", "leaf_a") in syms(s)]
if not before or not after:
    print("not ok - expected pre_exec_leaf then leaf_a: %s" % [sorted(syms(s)) for s in snaps]); sys.exit(1)
first_after = snaps.index(after[0])
# The snapshot of the exec itself may hold both; every later one only new names.
for s in snaps[first_after + 1:]:
    stale = [x for x in syms(s) if x[0] == "execer"]
    if stale:
        print("not ok - stale names after the exec: %s" % stale); sys.exit(1)
print("# %d snapshots, exec seen in #%d; later ones name only the new program" % (len(snaps), first_after))
PY
ok "exec: the table after the exec shows the new program's names only"
grep -q "exited" "$TMP/ex.err" || fail "no exit message after the exec'd program ended: $(cat "$TMP/ex.err")"
ok "exec: the session ends with a message when the exec'd program exits"

# SIGSTOP / SIGCONT: no samples while stopped, the session goes on, and
# samples come back after SIGCONT.
start_workload 0
"$PROFTOP" -p "$WL_PID" -z --json -d 0.5 -n 8 >"$TMP/st.json" 2>"$TMP/st.err" &
PT=$!
sleep 1.2
kill -STOP "$WL_PID"
sleep 1.5
kill -CONT "$WL_PID"
wait "$PT" || fail "proftop -p with a stopped target: status $? ($(cat "$TMP/st.err"))"
python3 - "$TMP/st.json" <<'PY' || fail "SIGSTOP/SIGCONT"
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
n = [sum(r["samples"] for r in s["rows"] if r.get("symbol") == "leaf_a") for s in snaps]
print("# leaf_a samples per 0.5 s snapshot: %s" % n)
if len(snaps) != 8:
    print("not ok - %d snapshots, expected 8 (-n 8)" % len(snaps)); sys.exit(1)
if 0 not in n[1:-1]:
    print("not ok - no empty snapshot while stopped"); sys.exit(1)
if n[-1] == 0 or n[0] == 0:
    print("not ok - no samples before the stop or after SIGCONT"); sys.exit(1)
PY
ok "SIGSTOP/SIGCONT: empty while stopped, sampled again after, session not ended"
kill "$WL_PID"

# SIGKILL mid-session: exit 0, "exited", the last table still printed.
start_workload 0
"$PROFTOP" -p "$WL_PID" --json -d 0.4 >"$TMP/k.json" 2>"$TMP/k.err" &
PT=$!
sleep 1
kill -KILL "$WL_PID"
i=0
while kill -0 "$PT" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 500 ] || fail "proftop did not end after its target was killed"; sleep 0.01
done
wait "$PT" || fail "exit status $? after the target was killed ($(cat "$TMP/k.err"))"
grep -q "exited" "$TMP/k.err" || fail "no message: $(cat "$TMP/k.err")"
json_check "$TMP/k.json" 'any(r.get("symbol") == "leaf_a" for r in snaps[-1]["rows"])' ||
	fail "last table not kept"
ok "SIGKILL of the target: message ($(grep exited "$TMP/k.err")), last table kept"
