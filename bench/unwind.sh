#!/bin/sh
# DWARF unwinding against perf: a `perf record --call-graph dwarf` recording
# of Debian's xz (liblzma: no frame pointers, stripped), replayed by
# `proftop -i` and `perf report --children`, CPU time (user + sys, best of
# ROUNDS, from perf stat's task-clock) and peak RSS of each, and unwound samples a second.  Prints
# ratios, not a verdict.
# usage: sh bench/unwind.sh     (ROUNDS=3, SIZE=6000000 bytes of input)
. bench/common.sh
ROUNDS=${ROUNDS:-3}
SIZE=${SIZE:-6000000}
need perf xz
TMP=${TMPDIR:-/tmp}/proftop-bench-unwind.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT INT TERM
# Compressible text: the README and the sources, again and again.
: >"$TMP/in"
while [ "$(wc -c <"$TMP/in")" -lt "$SIZE" ]; do
	cat README src/*.c >>"$TMP/in"
done
if ! perf record -q --call-graph dwarf -e cpu-clock -o "$TMP/xz.data" -- \
	xz -9 -T1 -c "$TMP/in" >/dev/null 2>"$TMP/rec.err"; then
	echo "SKIP: perf record --call-graph dwarf failed: $(tail -1 "$TMP/rec.err")"
	exit 77
fi
samples=$("$PROFTOP" -i "$TMP/xz.data" --json | tail -1 |
	python3 -c 'import json, sys; print(json.loads(sys.stdin.read())["unwind"]["chains"])')
echo "recording: $(du -h "$TMP/xz.data" | cut -f1), $samples unwound samples"
# cpu NAME CMD...: CPU seconds (perf stat's task-clock: all threads, to
# the microsecond; time(1)'s user + sys count 10 ms ticks, and proftop's
# replay takes a few); peak RSS (kB) in $TMP/NAME.rss, from a run of its own
# (time(1) of perf stat would give perf stat's).
cpu() {
	name=$1
	shift
	/usr/bin/time -f "%M" -o "$TMP/$name.rss" "$@" >/dev/null 2>&1
	perf stat -x, -e task-clock -o "$TMP/stat" -- "$@" >/dev/null 2>&1
	awk -F, '/task-clock/ { printf "%.4f\n", $1 / 1000 }' "$TMP/stat"
}
p= q=
for r in $(seq "$ROUNDS"); do
	p="$p $(cpu proftop "$PROFTOP" -i "$TMP/xz.data" --batch -G 0)"
	q="$q $(cpu perf perf report -i "$TMP/xz.data" --children --stdio)"
done
prss=$(cat "$TMP/proftop.rss") qrss=$(cat "$TMP/perf.rss")
bp=$(min $p) bq=$(min $q)
echo "replay CPU: proftop $bp s, perf report $bq s, ratio $(ratio "$bp" "$bq")" \
	"(spread $(spread $p) / $(spread $q) s)"
echo "unwound samples a second: proftop $(awk -v n="$samples" -v t="$bp" 'BEGIN { printf "%.0f", n / (t > 0 ? t : 0.01) }')," \
	"perf report $(awk -v n="$samples" -v t="$bq" 'BEGIN { printf "%.0f", n / (t > 0 ? t : 0.01) }')"
echo "peak RSS: proftop $prss kB, perf report $qrss kB, ratio $(ratio "$prss" "$qrss")"
