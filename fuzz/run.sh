#!/bin/sh
# Runs each fuzz target for a bounded time from its seed corpus and prints
# one line per target: executions, and crashes (with their files).
# usage: fuzz/run.sh BUILDDIR SECONDS TARGET...   (make fuzz calls it)
set -u
B=$1 SECS=$2
shift 2
sh fuzz/seeds.sh "$B/seeds" || exit 1
status=0
printf '%-16s %12s %8s  %s\n' target executions crashes artifacts
for t in "$@"; do
	corpus=$B/corpus/$t
	art=$B/crashes/$t/
	mkdir -p "$corpus" "$art"
	# Keep what earlier runs found; add the fresh seeds.
	cp "$B/seeds/$t/"* "$corpus/" 2>/dev/null || true
	log=$B/$t.log
	# -rss_limit_mb and -timeout turn runaway memory or a hang into a
	# finding; detect_leaks stays on (a leak on bad input is a bug).
	"$B/$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$art" "$corpus" >"$log" 2>&1
	st=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	ncrash=$(ls "$art" | wc -l)
	printf '%-16s %12s %8s  %s\n' "$t" "${execs:-?}" "$ncrash" \
		"$( [ "$ncrash" -eq 0 ] || echo "$art (log: $log)")"
	if [ $st -ne 0 ] || [ "$ncrash" -ne 0 ]; then
		status=1
		grep -m1 -A12 'ERROR\|runtime error\|deadly signal' "$log" | sed 's/^/    /'
	fi
done
exit $status
