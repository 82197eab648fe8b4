#!/bin/sh
# Ingestion ceiling: a generated perf.data of SAMPLES (2M) samples with
# DEPTH-frame (32) callchains over 5,000 functions of a generated shared
# object, replayed with `proftop -i F --batch -g`: samples per second of CPU
# time (user + sys; one core does the work), best of ROUNDS (3).  perf has
# no equivalent, so `perf report --stdio --no-children --sort sym` on the
# same file gives the figure for the ratio (best of PERF_ROUNDS, 1).
. bench/common.sh
SAMPLES=${SAMPLES:-2000000}
DEPTH=${DEPTH:-32}
ROUNDS=${ROUNDS:-3}
PERF_ROUNDS=${PERF_ROUNDS:-1}
GEN=${GEN:-bench/gen-perfdata}
TMP=${TMPDIR:-/tmp}/proftop-ingest.$$
need perf gcc nm
[ -x "$PROFTOP" ] && [ -x "$GEN" ] || { echo "build first: make bench"; exit 1; }
[ -x /usr/bin/time ] || { echo "SKIP: /usr/bin/time not installed"; exit 77; }
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT INT TERM

# The functions: real names in a real ELF, so both tools resolve them.
awk 'BEGIN { for (i = 0; i < 5000; i++)
	printf "int ingest_fn%04d(int x) { return x * %d + %d; }\n", i, i + 3, i }' >"$TMP/syms.c"
gcc -O0 -shared -fPIC -o "$TMP/libingest.so" "$TMP/syms.c"
nm -S --defined-only "$TMP/libingest.so" |
	awk '$3 ~ /^[Tt]$/ && $4 ~ /^ingest_fn/ { print $1, $2 }' >"$TMP/syms.txt"
t0=$(date +%s.%N)
"$GEN" -o "$TMP/perf.data" -e "$TMP/libingest.so" -s "$TMP/syms.txt" -n "$SAMPLES" -d "$DEPTH"
t1=$(date +%s.%N)
echo "# ingest file: $(du -m "$TMP/perf.data" | cut -f1) MB, $SAMPLES samples x $DEPTH frames," \
	"generated in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"

# cpu_of CMD...: user + sys seconds of CMD (its peak RSS stays in $TMP/time:
# this runs in a command substitution, a subshell)
cpu_of() {
	cat "$TMP/perf.data" >/dev/null
	/usr/bin/time -f '%U %S %M' -o "$TMP/time" "$@" >/dev/null 2>"$TMP/err"
	tail -1 "$TMP/time" | awk '{ printf "%.2f", $1 + $2 }'
}
last_rss_kb() { tail -1 "$TMP/time" | cut -d' ' -f3; }
p= q=
for r in $(seq "$ROUNDS"); do
	p="$p $(cpu_of "$PROFTOP" -i "$TMP/perf.data" --batch -g)"
	prss=$(last_rss_kb)
done
for r in $(seq "$PERF_ROUNDS"); do
	q="$q $(cpu_of perf report -i "$TMP/perf.data" --stdio --no-children --sort sym)"
	qrss=$(last_rss_kb)
done
bp=$(min $p) bq=$(min $q)
rp=$(awk -v n="$SAMPLES" -v t="$bp" 'BEGIN { printf "%.0f", n / t }')
rq=$(awk -v n="$SAMPLES" -v t="$bq" 'BEGIN { printf "%.0f", n / t }')
echo "ingest rate: proftop $rp samples/s/core, perf $rq samples/s/core, ratio $(ratio "$rp" "$rq")" \
	"(cpu proftop $bp s spread $(spread $p) s, perf $bq s)"
echo "ingest rss: proftop $((prss / 1024)) MB, perf $((qrss / 1024)) MB, ratio $(ratio "$prss" "$qrss")"
