#!/bin/sh
# The browser's a on a big function, against perf annotate: record a
# command that spends its time in SYMBOL of BIN, then time
#   perf annotate --stdio -i F -s SYMBOL          (objdump underneath)
#   proftop -i F --batch --annotate=SYMBOL        (the same recording)
#   bench/annotate-open BIN SYMBOL                (what a costs: the code,
#                                                  Capstone, the DWARF lines)
# best of 3 each, wall and CPU, and print the ratios to perf; then the
# instruction counts (callgrind) of the open and of perf annotate.
# usage: sh bench/annotate.sh [BIN SYMBOL [-- CMD...]]
#   default: /usr/bin/python3.11 _PyEval_EvalFrameDefault (~12,700
#   instructions) running a loop; e.g. also
#   sh bench/annotate.sh /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 sqlite3VdbeExec \
#     -- sqlite3 :memory: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1
#        FROM c WHERE x<2000000) SELECT sum(x) FROM c;'
. bench/common.sh
need perf
BIN=${1:-/usr/bin/python3.11}
SYM=${2:-_PyEval_EvalFrameDefault}
[ $# -ge 2 ] && shift 2
[ "$1" = -- ] && shift
[ $# -gt 0 ] || set -- /usr/bin/python3.11 -c 'x = 0
for i in range(3000000): x += i * i'
[ -e "$BIN" ] || { echo "SKIP: $BIN not installed"; exit 77; }
TMP=${TMPDIR:-/tmp}/proftop-bench-annotate.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT INT TERM
[ -x bench/annotate-open ] || make -s bench/annotate-open >/dev/null ||
	{ echo "SKIP: cannot build bench/annotate-open"; exit 77; }

if ! perf record -q -F 2000 -e cpu-clock -o "$TMP/rec.data" -- "$@" >/dev/null 2>"$TMP/rec.err"; then
	echo "SKIP: perf record failed: $(tail -1 "$TMP/rec.err")"
	exit 77
fi

# run NAME CMD...: wall seconds into $t, CPU seconds (user + sys) into $c.
run() {
	name=$1
	shift
	start=$(date +%s.%N)
	/usr/bin/time -f '%U %S' -o "$TMP/$name.time" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	end=$(date +%s.%N)
	c=$(tail -1 "$TMP/$name.time" | awk '{ print $1 + $2 }')
	t=$(echo "$end - $start" | bc -l)
}
bmin() { echo "if ($1 < $2) $1 else $2" | bc -l; }

tp=999 cp=999 tq=999 cq=999 to=999
for round in 1 2 3; do
	run perf perf annotate --stdio -i "$TMP/rec.data" -s "$SYM"
	tp=$(bmin "$t" "$tp") cp=$(bmin "$c" "$cp")
	run proftop "$PROFTOP" -i "$TMP/rec.data" --batch --annotate="$SYM"
	tq=$(bmin "$t" "$tq") cq=$(bmin "$c" "$cq")
	o=$(bench/annotate-open -r 3 "$BIN" "$SYM" | awk '/^open:/ { print $2 / 1000 }')
	to=$(bmin "$o" "$to")
done
grep -q "^Annotate $SYM " "$TMP/proftop.out" || { echo "SKIP: proftop shows no $SYM"; exit 77; }
grep -q "$SYM" "$TMP/perf.out" || { echo "SKIP: perf annotate shows no $SYM"; exit 77; }
bench/annotate-open -r 1 "$BIN" "$SYM" | head -1
echo "perf annotate: $(grep -c -E '^ +[0-9.]+ +:? +[0-9a-f]+:' "$TMP/perf.out") lines;" \
	"proftop: $(grep -c -E '^ +[0-9.]+% +[0-9]+ +[0-9a-f]+  ' "$TMP/proftop.out") instructions"
printf 'annotate open (a): proftop %.4f s, perf annotate %.3f s, ratio %.3f\n' "$to" "$tp" \
	"$(echo "$to / $tp" | bc -l)"
printf 'annotate -i --batch: proftop %.3f s, perf annotate %.3f s, ratio %.3f\n' "$tq" "$tp" \
	"$(echo "$tq / $tp" | bc -l)"
printf 'annotate -i --batch cpu: proftop %.3f s, perf annotate %.3f s, ratio %.3f\n' "$cq" "$cp" \
	"$(echo "$cq / $cp" | bc -l)"
# Instruction counts: reproducible where times are not (perf's include
# objdump's: --trace-children).
if command -v valgrind >/dev/null 2>&1; then
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.open" \
		--toggle-collect=annotate_report_of \
		bench/annotate-open -r 1 "$BIN" "$SYM" >/dev/null 2>"$TMP/cg.open.err"
	valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$TMP/cg.perf.%p" \
		perf annotate --stdio -i "$TMP/rec.data" -s "$SYM" >/dev/null 2>"$TMP/cg.perf.err"
	io=$(grep -h '^summary:' "$TMP/cg.open" | awk '{ s += $2 } END { print s }')
	ip=$(cat "$TMP"/cg.perf.* | grep '^summary:' | awk '{ s += $2 } END { print s }')
	printf 'annotate instructions: proftop open %s (annotate_report_of: open and a refresh), perf annotate %s, ratio %.4f\n' \
		"$io" "$ip" "$(echo "$io / $ip" | bc -l)"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
