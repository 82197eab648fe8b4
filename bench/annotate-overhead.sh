#!/bin/sh
# Issue 16's overhead target: live, -a -F 4000 with one function annotated
# (--annotate=leaf_a, the workload's hottest), proftop's CPU at most 1.2x
# its CPU without annotate.  Two busy workload processes; proftop --batch
# -d 2 for SECS seconds (default 10) each way, ROUNDS times alternated
# (default 3), best CPU (utime + stime from /proc) of each; prints the
# ratio.  Then the same comparison in instructions (callgrind, which times
# on a shared machine are not): a perf record -a -F 4000 of the same
# workloads replayed by proftop -i --batch with and without --annotate.
# Needs root (system-wide) and perf; run from the top of the tree.
# usage: [SECS=10] [ROUNDS=3] sh bench/annotate-overhead.sh
. bench/common.sh
need perf python3
SECS=${SECS:-10}
ROUNDS=${ROUNDS:-3}
SYM=${SYM:-leaf_a}
TMP=${TMPDIR:-/tmp}/proftop-bench-annov.$$
mkdir -p "$TMP"
WL=
cleanup() {
	for p in $WL; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
[ -x "$PROFTOP" ] && [ -x "$WORKLOAD" ] || { echo "build first: make tests/helpers/workload"; exit 1; }

"$WORKLOAD" 0 >/dev/null & WL="$WL $!"
"$WORKLOAD" 0 >/dev/null & WL="$WL $!"
sleep 0.5

# live NAME ARGS...: proftop's CPU seconds over SECS into $c, its output in
# $TMP/NAME.out.
live() {
	name=$1
	shift
	"$PROFTOP" -a -F 4000 --batch -d 2 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	pid=$!
	sleep "$SECS"
	c=$(cpu_seconds $pid)
	kill -INT $pid
	wait $pid 2>/dev/null
}

plain= ann=
for r in $(seq "$ROUNDS"); do
	live plain
	plain="$plain $c"
	live ann --annotate="$SYM"
	ann="$ann $c"
done
# shellcheck disable=SC2086 # lists of numbers
p=$(min $plain) a=$(min $ann)
grep -q "^Annotate $SYM " "$TMP/ann.out" || { echo "SKIP: no $SYM annotated: $(tail -3 "$TMP/ann.err")"; exit 77; }
n=$(grep -c "^Annotate $SYM " "$TMP/ann.out")
# shellcheck disable=SC2086
echo "annotate live cpu (-a -F 4000, ${SECS}s, best of $ROUNDS): proftop $p s (spread $(spread $plain)), with --annotate=$SYM $a s (spread $(spread $ann), $n refreshes annotated), ratio $(ratio "$a" "$p") (target <= 1.2)"

if command -v valgrind >/dev/null 2>&1 &&
	perf record -q -a -F 4000 -e cpu-clock -o "$TMP/rec.data" -- sleep 3 >/dev/null 2>"$TMP/rec.err"; then
	# cg NAME ARGS...: proftop -i's instruction count with ARGS.
	cg() {
		cg_name=$1
		shift
		valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.$cg_name" "$PROFTOP" \
			-i "$TMP/rec.data" --batch "$@" >/dev/null 2>"$TMP/cg.$cg_name.err"
		grep -h '^summary:' "$TMP/cg.$cg_name" | awk '{ print $2 }'
	}
	ip=$(cg plain -d 2)
	ia=$(cg ann -d 2 --annotate="$SYM")
	samples=$("$PROFTOP" -i "$TMP/rec.data" --json 2>/dev/null | tail -1 |
		python3 -c 'import json, sys; print(json.loads(sys.stdin.read())["total_samples"])' 2>/dev/null)
	echo "annotate replay instructions (perf record -a -F 4000, 3 s, $samples samples): proftop -i --batch $ip, with --annotate=$SYM $ia, ratio $(ratio "$ia" "$ip")"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
