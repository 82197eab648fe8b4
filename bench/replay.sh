#!/bin/sh
# Replay speed against perf report: record ~150K samples system-wide with
# callchains, then time `proftop -i F --batch` and `perf report -i F` on the
# same file in the same run, with peak RSS.  Prints ratios, not a verdict.
# usage: sh bench/replay.sh [SECONDS]    (default 19: 2 CPUs x 4000 Hz)
PROFTOP=${PROFTOP:-./proftop}
WORKLOAD=${WORKLOAD:-tests/helpers/workload}
SECS=${1:-19}
TMP=${TMPDIR:-/tmp}/proftop-bench.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT INT TERM

command -v perf >/dev/null 2>&1 || { echo "SKIP: perf is not installed"; exit 0; }
ncpu=$(getconf _NPROCESSORS_ONLN)
pids=
i=0
while [ $i -lt "$ncpu" ]; do
	"$WORKLOAD" $((SECS + 2)) >/dev/null &
	pids="$pids $!"
	i=$((i + 1))
done
if ! perf record -q -g -a -F 4000 -e cpu-clock -o "$TMP/perf.data" -- sleep "$SECS" \
	>/dev/null 2>"$TMP/rec.err"; then
	echo "SKIP: perf record -a failed: $(tail -1 "$TMP/rec.err")"
	exit 0
fi
for p in $pids; do kill "$p" 2>/dev/null; done
wait 2>/dev/null
samples=$(perf report -i "$TMP/perf.data" --stdio --sort sym 2>/dev/null |
	awk '/^# Samples:/ { n = $3; m = 1
		if (n ~ /K$/) m = 1000; if (n ~ /M$/) m = 1000000
		s += n * m } END { print s + 0 }')
echo "replay file: $(du -h "$TMP/perf.data" | cut -f1), $samples samples"

# run NAME CMD...: wall seconds into $t, CPU seconds (user + sys) into $c
# (the fairer number on a shared machine), peak RSS (kB) into $rss.
run() {
	name=$1
	shift
	cat "$TMP/perf.data" >/dev/null    # both start from the page cache
	if [ -x /usr/bin/time ]; then
		start=$(date +%s.%N)
		/usr/bin/time -f '%M %U %S' -o "$TMP/$name.rss" "$@" >"$TMP/$name.out" \
			2>"$TMP/$name.err"
		end=$(date +%s.%N)
		rss=$(tail -1 "$TMP/$name.rss" | cut -d' ' -f1)
		c=$(tail -1 "$TMP/$name.rss" | awk '{ print $2 + $3 }')
	else
		start=$(date +%s.%N)
		"$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
		p=$!
		rss=0
		while kill -0 $p 2>/dev/null; do
			r=$(awk '/^VmHWM/ { print $2 }' /proc/$p/status 2>/dev/null)
			[ -n "$r" ] && rss=$r
			sleep 0.05
		done
		wait $p
		end=$(date +%s.%N)
		c=0
	fi
	t=$(echo "$end - $start" | bc -l)
}

# Best of three for each (noise on a shared machine only adds time).
min() { echo "if ($1 < $2) $1 else $2" | bc -l; }
bp=999999 bf=999999 cp=999999 cf=999999
for round in 1 2 3; do
	run proftop "$PROFTOP" -i "$TMP/perf.data" --batch
	bp=$(min "$t" "$bp") cp=$(min "$c" "$cp") rp=$rss
	run perf perf report -i "$TMP/perf.data" --stdio --no-children --sort sym
	bf=$(min "$t" "$bf") cf=$(min "$c" "$cf") rf=$rss
done
printf 'replay time: proftop %.2f s, perf %.2f s, ratio %.3f\n' "$bp" "$bf" \
	"$(echo "$bp / $bf" | bc -l)"
[ "$(echo "$cf > 0" | bc -l)" = 1 ] &&
	printf 'replay cpu time: proftop %.2f s, perf %.2f s, ratio %.3f\n' "$cp" "$cf" \
		"$(echo "$cp / $cf" | bc -l)"
printf 'replay rss: proftop %d kB, perf %d kB, ratio %.3f\n' "$rp" "$rf" \
	"$(echo "$rp / $rf" | bc -l)"
# Times mean little without the machine's load: say it.
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
