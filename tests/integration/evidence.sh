# The evidence a stall leaves (tests/lib.sh): run_bounded ends a command
# that outlives its time and keeps the stacks of its threads; wait_for,
# on a timeout, shows the pane and the stacks of the proftop under it.
# A stall seen once under load must explain itself (issue 9).  Here
# proftop is made to wait on purpose: -d 60, so no table for 60 s.
. tests/lib.sh
require_perf_events

t0=$(date +%s)
run_bounded 2 slow "$PROFTOP" --json -d 60 -n 1 -- "$WORKLOAD" 0 >"$TMP/slow.json" 2>"$TMP/slow.err"
st=$?
t1=$(date +%s)
[ $st -eq 124 ] || fail "run_bounded: status $st, expected 124"
[ $((t1 - t0)) -lt 20 ] || fail "run_bounded took $((t1 - t0)) s to end it"
grep -q '^== thread [0-9]* (proftop): state [A-Z]' "$TMP/slow.hang" ||
	fail "no thread states in slow.hang: $(cat "$TMP/slow.hang")"
if command -v gdb >/dev/null 2>&1 || command -v eu-stack >/dev/null 2>&1; then
	grep -q 'engine_run' "$TMP/slow.hang" || fail "no engine_run frame in slow.hang: $(cat "$TMP/slow.hang")"
	ok "run_bounded: 124 after 2 s, the threads' states and stacks kept (engine_run)"
else
	ok "run_bounded: 124 after 2 s, the threads' states kept (no gdb: no stacks)"
fi
# The command ended: no proftop or workload left behind.
sleep 0.5
pgrep -f "$TMP" >/dev/null 2>&1 && fail "left running: $(pgrep -af "$TMP")"
run_bounded 20 quick "$PROFTOP" --json -d 0.2 -- true >"$TMP/quick.json" 2>&1 ||
	fail "run_bounded: a quick run failed"
[ ! -e "$TMP/quick.hang" ] || fail "quick.hang written for a run that ended in time"
ok "run_bounded: a run that ends in time gives its status, no evidence"

command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (other parts done)"
ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
ABS_WORKLOAD=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")
tmux_start ev 100 30 || skip "tmux cannot start a session here"
keys "$ABS_PROFTOP -d 60 -- $ABS_WORKLOAD 0; echo EXIT=\$?" Enter
wait_for '^proftop  event ' "header"
(wait_for 'NEVER ON SCREEN' "a line that never comes" 2) >"$TMP/wait.out" 2>&1 &&
	fail "wait_for did not fail"
grep -q "^not ok - a line that never comes: no line matching 'NEVER ON SCREEN'" "$TMP/wait.out" ||
	fail "wait_for: $(cat "$TMP/wait.out")"
grep -q '^# | proftop  event ' "$TMP/wait.out" || fail "no pane in: $(cat "$TMP/wait.out")"
grep -q '^# | == thread [0-9]* (proftop)' "$TMP/wait.out" ||
	fail "no proftop threads in: $(cat "$TMP/wait.out")"
ok "wait_for: on a timeout, the pane and the threads of the proftop under it"
keys q
wait_for '^EXIT=0$' "q exits"
(wait_gone '^EXIT=0$' "a line that stays" 2) >"$TMP/gone.out" 2>&1 && fail "wait_gone did not fail"
grep -q "^not ok - a line that stays: '^EXIT=0\$' still on screen" "$TMP/gone.out" ||
	fail "wait_gone: $(cat "$TMP/gone.out")"
grep -q '^# | EXIT=0' "$TMP/gone.out" || fail "no pane in: $(cat "$TMP/gone.out")"
ok "wait_gone: on a timeout, the pane"
