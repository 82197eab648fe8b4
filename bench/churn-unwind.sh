#!/bin/sh
# Memory under process churn with DWARF unwinding: proftop -a --call-graph
# dwarf for CHURN_SECONDS (600) while CHURN (3) loops each start short-lived
# processes of Debian's own binaries, without frame pointers (xz -9, bzip2,
# python3.11 doing a little work), so the unwinder makes state for process
# after process and must free it at each exit.  RSS every tenth of the run;
# printed: the samples, the growth over the second half (the last sample
# against the one at half time), and the unwind outcomes and lost samples.
# CHURN_MODE=command profiles the churn alone (proftop -- sh -c LOOPS): on
# a shared machine, -a also loads the symbols of whatever else starts, and
# its RSS says little about the unwinder's.
# usage: sh bench/churn-unwind.sh   (as root; CHURN_SECONDS=600, CHURN_MODE=a)
. bench/common.sh
SECS=${CHURN_SECONDS:-600}
CHURN=${CHURN:-3}
need xz bzip2 python3
[ "$(id -u)" = 0 ] || { echo "SKIP: system-wide sampling needs root"; exit 77; }
[ -x "$PROFTOP" ] || { echo "build first: make"; exit 1; }
PY=$(command -v python3.11 || command -v python3)
STEP=$((SECS / 10))
[ "$STEP" -ge 1 ] || STEP=1
TMP=${TMPDIR:-/tmp}/proftop-bench-churn.$$
mkdir -p "$TMP"
: >"$TMP/in"
while [ "$(wc -c <"$TMP/in")" -lt 300000 ]; do
	cat README src/*.c >>"$TMP/in"
done
# Each loop: one process at a time, each living a fraction of a second.
LOOPS='for i in $(seq '"$CHURN"'); do
	( while :; do
		xz -9 -T1 -c "'"$TMP/in"'" >/dev/null
		bzip2 -9 -c "'"$TMP/in"'" >/dev/null
		'"$PY"' -c "sum(i * i for i in range(300000))"
	done ) &
	done; wait'
if [ "${CHURN_MODE:-a}" = command ]; then
	setsid "$PROFTOP" --call-graph dwarf --json -d 5 -- sh -c "$LOOPS" >"$TMP/out.json" \
		2>"$TMP/err" &
	pp=$!
	grp=$pp
else
	setsid sh -c "$LOOPS" &
	grp=$!
	"$PROFTOP" -a --call-graph dwarf --json -d 5 >"$TMP/out.json" 2>"$TMP/err" &
	pp=$!
fi
trap 'kill $pp 2>/dev/null; kill -- -$grp 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
t=0 pr=
while [ $t -lt "$SECS" ]; do
	sleep "$STEP"
	t=$((t + STEP))
	pr="$pr $(rss_mb $pp)"
done
kill -INT $pp
wait $pp 2>/dev/null
kill -- -$grp 2>/dev/null
set -- $(echo $pr | awk '{ n = NF; h = int((n + 1) / 2); printf "%s %s", $h, $n }')
g=$(awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a ? (b - a) * 100 / a : 0 }')
echo "# churn ${SECS}s (${CHURN_MODE:-a}), $CHURN loops of xz/bzip2/$(basename "$PY"), RSS MB every ${STEP}s:$pr"
echo "churn-unwind rss growth (2nd half): proftop $g % ($1 -> $2 MB)"
tail -1 "$TMP/out.json" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
u = j.get("unwind", {})
print("churn-unwind lost: %s; unwind %s" % (j["lost"], " ".join("%s %s" % kv for kv in u.items())))' 2>/dev/null
