# What --off-cpu asks of the kernel at each switch: system-wide, the
# tracepoint alone (its next_pid is the switch-in; switch records beside it
# would write two more records in every switch, the workload's cost, as
# perf record -e sched:sched_switch -a does without them); per thread
# (-p, -t, a command), switch records too, whose events see only their own
# switch-outs.  Read from the perf_event_open calls strace shows.
. tests/lib.sh
require_perf_events
command -v strace >/dev/null 2>&1 || skip "no strace"

# opens FILE: "TYPE context_switch" per perf_event_open of a tracepoint or
# cpu-clock, one a line, sorted and unique.
opens() {
	grep -v 'config=PERF_COUNT_SW_DUMMY' "$1" |
		sed -n 's/.*perf_event_open({type=\(PERF_TYPE_[A-Z]*\), .*context_switch=\([01]\).*/\1 \2/p' |
		sort -u
}
strace -f -v -e trace=perf_event_open -o "$TMP/sys.st" \
	"$PROFTOP" --off-cpu -a --batch -d 0.3 -n 1 >/dev/null 2>"$TMP/err" ||
	skip "--off-cpu -a: $(tail -1 "$TMP/err")"
[ "$(opens "$TMP/sys.st")" = "PERF_TYPE_TRACEPOINT 0" ] ||
	fail "--off-cpu -a opens: $(opens "$TMP/sys.st" | tr '\n' ' ')"
ok "--off-cpu -a: the tracepoint without switch records"
strace -f -v -e trace=perf_event_open -o "$TMP/wall.st" \
	"$PROFTOP" --wall -a --batch -d 0.3 -n 1 >/dev/null 2>"$TMP/err" || fail "--wall -a: $(cat "$TMP/err")"
[ "$(opens "$TMP/wall.st" | grep -c ' 1$')" = 0 ] ||
	fail "--wall -a opens switch records: $(opens "$TMP/wall.st" | tr '\n' ' ')"
ok "--wall -a: no switch records on either event"
strace -f -v -e trace=perf_event_open -o "$TMP/cmd.st" \
	"$PROFTOP" --off-cpu --batch -d 1 -- sleep 0.3 >/dev/null 2>"$TMP/err" ||
	fail "--off-cpu -- sleep: $(cat "$TMP/err")"
[ "$(opens "$TMP/cmd.st")" = "PERF_TYPE_TRACEPOINT 1" ] ||
	fail "--off-cpu -- COMMAND opens: $(opens "$TMP/cmd.st" | tr '\n' ' ')"
ok "--off-cpu -- COMMAND: switch records for the switch-ins"
