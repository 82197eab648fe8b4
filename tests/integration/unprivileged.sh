# As a non-root user under perf_event_paranoid 2: own processes in user space
# only with a one-line notice; system-wide refused with the cause and the fix.
. tests/lib.sh
[ "$(id -u)" -eq 0 ] || skip "needs root to switch to an unprivileged user"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$paranoid" -eq 2 ] || skip "perf_event_paranoid is $paranoid, this test is for 2"
require_perf_events
asuser() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
asuser "$PROFTOP" --version >/dev/null 2>&1 || skip "user nobody cannot run $PROFTOP here"

asuser "$PROFTOP" --json -d 1 -- "$WORKLOAD" 1.5 >"$TMP/out.json" 2>"$TMP/err"
st=$?
[ $st -eq 0 ] || fail "unprivileged command run: status $st: $(cat "$TMP/err")"
grep -q "user space only" "$TMP/err" || fail "no notice about user space only: $(cat "$TMP/err")"
[ "$(grep -c 'user space only' "$TMP/err")" -eq 1 ] || fail "notice printed more than once"
ok "notice: $(grep 'user space only' "$TMP/err")"
grep -v '^ready' "$TMP/out.json" >"$TMP/snaps.json"
json_check "$TMP/snaps.json" 'any(r.get("symbol") == "leaf_a" for r in snaps[-1]["rows"]) and not any(r["kernel"] for s in snaps for r in s["rows"])' ||
	fail "user-only table: $(tail -1 "$TMP/snaps.json" | cut -c1-300)"
ok "own process profiled in user space only"

asuser "$PROFTOP" --json -n 1 -d 0.5 >"$TMP/sys.json" 2>"$TMP/err"
st=$?
[ $st -eq 1 ] || fail "unprivileged system-wide: status $st, expected 1"
grep -q "paranoid" "$TMP/err" || fail "system-wide refusal does not name perf_event_paranoid: $(cat "$TMP/err")"
grep -q -- "-p PID" "$TMP/err" || fail "system-wide refusal does not suggest -p: $(cat "$TMP/err")"
ok "system-wide refused: $(cat "$TMP/err")"
