# What --off-cpu and --wall ask of the kernel at each switch, read from the
# perf_event_open calls strace shows.  Per thread, switch records: the
# events see only their own switch-outs.  System-wide, the tracepoint
# alone, as perf record -e sched:sched_switch -a: a switch record costs
# the switching task a second write.  Where the tracepoint writes no
# sample for an idle task's switch-outs, that CPU gets switch records (a
# dummy on pid -1 and the CPU) while it lasts (src/offcpu-holes.c).
# The clock: CLOCK_MONOTONIC, so that a refresh charges a thread still off
# the CPU up to its own clock (the cost to the workload of that clock
# against perf's default was within the noise: AB=4 sh bench/offcpu.sh).
. tests/lib.sh
require_perf_events
command -v strace >/dev/null 2>&1 || skip "no strace"
require_perf_events
# LeakSanitizer cannot run under ptrace; the other tests check leaks.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS

# opens FILE: "TYPE context_switch=N use_clockid=N" per perf_event_open of a
# tracepoint or cpu-clock, sorted and unique.  Dummies aside: the tracking
# probes, and the CPUs' switch records (checked by cpu_watches_only).
opens() {
	grep -v 'config=PERF_COUNT_SW_DUMMY' "$1" |
		sed -n 's/.*perf_event_open({type=\(PERF_TYPE_[A-Z]*\), .*\(use_clockid=[01]\), \(context_switch=[01]\).*/\1 \3 \2/p' |
		sort -u | tr '\n' ' '
}
# cpu_watches_only FILE: every dummy with switch records is a whole CPU's
# (pid -1, a CPU), none a thread's.
cpu_watches_only() {
	! grep 'config=PERF_COUNT_SW_DUMMY.*context_switch=1' "$1" |
		grep -v '}, -1, [0-9][0-9]*, -1,' | grep -q .
}
strace -f -v -e trace=perf_event_open -o "$TMP/sys.st" \
	"$PROFTOP" --off-cpu -a --batch -d 0.3 -n 1 >/dev/null 2>"$TMP/err" || {
	# Skipped only where proftop says why the tracepoint or -a is refused.
	case $(cat "$TMP/err") in
	*"runtime error:"*|*Sanitizer*|*"==ERROR"*) ;;
	*"--off-cpu: "*|*"sched:sched_switch"*|*"system-wide"*|*"-a"*)
		skip "--off-cpu -a: $(tail -1 "$TMP/err")" ;;
	esac
	fail "--off-cpu -a: $(tail -3 "$TMP/err")"
}
[ "$(opens "$TMP/sys.st")" = "PERF_TYPE_TRACEPOINT context_switch=0 use_clockid=1 " ] ||
	fail "--off-cpu -a opens: $(opens "$TMP/sys.st")"
cpu_watches_only "$TMP/sys.st" || fail "--off-cpu -a: switch records not per CPU"
ok "--off-cpu -a: the tracepoint without switch records, CLOCK_MONOTONIC"
strace -f -v -e trace=perf_event_open -o "$TMP/wall.st" \
	"$PROFTOP" --wall -a --batch -d 0.3 -n 1 >/dev/null 2>"$TMP/err" || fail "--wall -a: $(cat "$TMP/err")"
[ "$(opens "$TMP/wall.st")" = "PERF_TYPE_SOFTWARE context_switch=0 use_clockid=1 PERF_TYPE_TRACEPOINT context_switch=0 use_clockid=1 " ] ||
	fail "--wall -a opens: $(opens "$TMP/wall.st")"
cpu_watches_only "$TMP/wall.st" || fail "--wall -a: switch records not per CPU"
ok "--wall -a: cpu-clock and the tracepoint on one clock"
strace -f -v -e trace=perf_event_open -o "$TMP/cmd.st" \
	"$PROFTOP" --off-cpu --batch -d 1 -- sleep 0.3 >/dev/null 2>"$TMP/err" ||
	fail "--off-cpu -- sleep: $(cat "$TMP/err")"
[ "$(opens "$TMP/cmd.st")" = "PERF_TYPE_TRACEPOINT context_switch=1 use_clockid=1 " ] ||
	fail "--off-cpu -- COMMAND opens: $(opens "$TMP/cmd.st")"
ok "--off-cpu -- COMMAND: switch records, CLOCK_MONOTONIC"
strace -f -v -e trace=perf_event_open -o "$TMP/wcmd.st" \
	"$PROFTOP" --wall --batch -d 1 -- sleep 0.3 >/dev/null 2>"$TMP/err" ||
	fail "--wall -- sleep: $(cat "$TMP/err")"
[ "$(opens "$TMP/wcmd.st")" = "PERF_TYPE_SOFTWARE context_switch=0 use_clockid=1 PERF_TYPE_TRACEPOINT context_switch=1 use_clockid=1 " ] ||
	fail "--wall -- COMMAND opens: $(opens "$TMP/wcmd.st")"
ok "--wall -- COMMAND: both events on CLOCK_MONOTONIC"
