# proftop -p PID: a running process's threads, resolved from /proc at start;
# the session ends with a message when the process exits.
. tests/lib.sh
require_perf_events

start_workload 0
"$PROFTOP" -p "$WL_PID" --batch --json -n 2 -d 1 >"$TMP/out.json" 2>"$TMP/err" ||
	fail "proftop -p failed: $(cat "$TMP/err")"
check_shares "$TMP/out.json"
json_check "$TMP/out.json" 'len(snaps) == 2' || fail "-n 2 gives 2 snapshots"
ok "-n 2"
kill "$WL_PID"

# The target exits mid-session: a message, the last table, exit 0.
start_workload 2
"$PROFTOP" -p "$WL_PID" --json -d 0.5 >"$TMP/exit.json" 2>"$TMP/err"
st=$?
[ $st -eq 0 ] || fail "exit status $st when the target exits"
grep -q "exited" "$TMP/err" || fail "no message when the target exits: $(cat "$TMP/err")"
json_check "$TMP/exit.json" 'any(r.get("symbol") == "leaf_a" for r in snaps[-1]["rows"])' || fail "last table kept"
ok "target exit ends the session with a message"

# -t: one thread (its top user row: on this VM a preempted vCPU puts
# samples in the kernel's pvm_irq_enable, 38% of them seen under load).
start_workload 0
"$PROFTOP" -t "$WL_PID" --json -n 1 -d 1 >"$TMP/t.json" 2>"$TMP/err" || fail "proftop -t: $(cat "$TMP/err")"
json_check "$TMP/t.json" '[r for r in snaps[-1]["rows"] if not r["kernel"]][0]["symbol"] == "leaf_a"' || fail "-t top symbol"
ok "-t TID"
