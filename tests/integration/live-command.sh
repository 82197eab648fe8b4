# proftop -- COMMAND: profiles the command, ranks its leaf functions in the
# known proportions, exits when it ends with its exit status.
. tests/lib.sh
require_perf_events

"$PROFTOP" --batch --json -d 1 -- "$WORKLOAD" 3 >"$TMP/out.json" 2>"$TMP/err" ||
	fail "proftop -- workload failed: $(cat "$TMP/err")"
grep -v '^ready' "$TMP/out.json" >"$TMP/snaps.json"
check_shares "$TMP/snaps.json"
json_check "$TMP/snaps.json" 'all(r.get("pid") is None or r["comm"] == "workload" for s in snaps for r in s["rows"] if r.get("symbol") == "leaf_a")' ||
	fail "leaf_a rows carry the workload's comm"
ok "comm of the workload rows"
json_check "$TMP/snaps.json" 'snaps[-1]["target"].startswith("command ")' || fail "target names the command"
ok "target"

# Exit status passes through.
"$PROFTOP" --json -d 0.5 -- sh -c 'exit 7' >/dev/null 2>&1
st=$?
[ $st -eq 7 ] || fail "exit status $st, expected 7"
ok "command exit status 7 passed on"
"$PROFTOP" --json -d 0.5 -- sh -c 'kill -TERM $$' >/dev/null 2>&1
st=$?
[ $st -eq 143 ] || fail "exit status $st, expected 143 for SIGTERM"
ok "command killed by SIGTERM gives 143"
"$PROFTOP" --json -d 0.5 -- /nonexistent/cmd >/dev/null 2>"$TMP/err"
st=$?
[ $st -eq 127 ] || fail "exit status $st for a missing command, expected 127"
grep -q "cannot run '/nonexistent/cmd'" "$TMP/err" || fail "message for a missing command: $(cat "$TMP/err")"
ok "missing command: 127 and a message"

# A command that ends at once (before the engine's SIGCHLD handler is set)
# must still end the session.
i=0
while [ $i -lt 10 ]; do
	timeout 20 "$PROFTOP" --json -d 0.2 -- true >/dev/null 2>&1
	st=$?
	[ $st -eq 0 ] || fail "proftop -- true: status $st (124 = hung)"
	i=$((i + 1))
done
ok "an instantly ending command ends the session (10 runs)"

# Text output: a header and the hot function.
"$PROFTOP" --batch -d 1 -- "$WORKLOAD" 1.5 >"$TMP/out.txt" 2>"$TMP/err" || fail "batch text run"
grep -q 'leaf_a' "$TMP/out.txt" || fail "text output lacks leaf_a"
grep -q 'samples' "$TMP/out.txt" || fail "text output lacks the header"
ok "batch text output"

# -c PERIOD instead of a frequency.
"$PROFTOP" --json -c 100000 -e task-clock -d 1 -- "$WORKLOAD" 1 >"$TMP/c.json" 2>"$TMP/err" || fail "-c run: $(cat "$TMP/err")"
grep -v '^ready' "$TMP/c.json" >"$TMP/c2.json"
json_check "$TMP/c2.json" 'snaps[-1]["sample_period"] == 100000 and snaps[-1]["event"] == "task-clock" and any(r.get("symbol") == "leaf_a" for r in snaps[-1]["rows"])' ||
	fail "-c 100000 -e task-clock: $(tail -1 "$TMP/c2.json" | cut -c1-300)"
ok "-c PERIOD with task-clock"
