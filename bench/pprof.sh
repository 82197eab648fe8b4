#!/bin/sh
# --pprof's cost, against perf in the same run (issue 18's speed targets):
#  1. replay: a ~150K-sample `perf record -g -a` file (of the load, below);
#     callgrind counts the instructions of writing the pprof
#     (pprof_writer_snapshot: encoding with protobuf-c and gzip) and of
#     `perf report` on the file; wall and CPU
#     time of both commands, peak RSS.  Target: write <= 0.2x perf report.
#     Also the instructions of one refresh's --pprof work apart: the
#     stacks (view_build_stacks) and the write (pprof_writer_snapshot).
#  2. live: two busy workloads (LOAD=stacks: bench/manystacks and one),
#     proftop -a -g -F 4000 -d 1 for SECS (20) s with --batch and with
#     --pprof at the same time (the same workload, the same noise,
#     started in an order that turns each round; with REF=BINARY that
#     proftop's two runs beside them), then one after the other (AB, BA
#     alternately), ROUNDS (6) rounds of each interleaved:
#     each one's exact CPU time (schedstat's nanoseconds, not
#     /proc/PID/stat's ticks), every round's ratio --pprof / --batch,
#     their mean, least and greatest.  Target: <= 1.10.  A second
#     --batch runs beside them: its ratio to the first (A/A) is the
#     noise of one round, as large as the difference measured (each
#     proftop uses a few ms of CPU a second on the default load).  Both
#     modes print the per-refresh instructions of bench/pprof-refresh
#     (--batch against --pprof) and, for the live runs, the instructions
#     that decide when time cannot: --batch and --pprof under callgrind
#     side by side for SECS s, -p the load's pids (so neither samples the
#     other), all of ingestion and refreshes (engine_run_sources), with
#     the records each took (IRSECS=0: skipped).
# usage: sh bench/pprof.sh [perf.data | --live]   (default: record one, 19 s)
#        [SECS=20] [ROUNDS=6] [IRSECS=SECS] [LOAD=workload|stacks] [REF=other-proftop]
#        [WARM=0]: each live run's first WARM s not counted (its CPU
#        then taken off), for the steady state: on LOAD=stacks the store,
#        the stack groups and --pprof's tables grow for about 30 s (and
#        fault their memory in), then stay
# Needs root, perf, valgrind, tmux; run from the top of the tree (and make
# bench/pprof-refresh for the refresh counts).
. bench/common.sh
SECS=${SECS:-20}
TMP=${TMPDIR:-/tmp}/proftop-bench.$$
mkdir -p "$TMP"
WL=
cleanup() {
	for p in $WL; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
need perf valgrind callgrind_annotate
[ -x "$PROFTOP" ] && [ -x "$WORKLOAD" ] || { echo "build first: make && make tests/helpers/workload"; exit 1; }

# The load: two busy workloads (LOAD=workload, the default: a handful of
# stacks, proftop uses ~5 ms of CPU a second), or bench/manystacks and
# one workload (LOAD=stacks: tens of thousands of stacks, a refresh is
# most of proftop's CPU).  Started once: a load killed just after it
# started (the stacks load used to replace the default one) could miss
# the signal and run on after the bench.
LOAD=${LOAD:-workload}
if [ "$LOAD" = stacks ]; then
	[ -x bench/manystacks ] || { echo "LOAD=stacks: make bench/manystacks first"; exit 1; }
	bench/manystacks 0 >/dev/null & WL="$WL $!"
else
	"$WORKLOAD" 0 >/dev/null & WL="$WL $!"
fi
"$WORKLOAD" 0 >/dev/null & WL="$WL $!"

# The replay half, skipped with --live.
replay() {
	F=$1
	if [ -z "$F" ]; then
		F=$TMP/perf.data
		perf record -q -g -a -F 4000 -o "$F" -- sleep 19 >/dev/null 2>"$TMP/rec.err" ||
			{ echo "SKIP: perf record -a failed: $(tail -1 "$TMP/rec.err")"; exit 77; }
	fi
	samples=$(perf report -i "$F" --stdio --sort sym 2>/dev/null | sed -n 's/^# Samples: \([0-9.]*K*\) .*/\1/p' | head -1)
	echo "# replay file: $(du -h "$F" | cut -f1), $samples samples"

	# ir TOGGLE CMD...: instructions callgrind counts (only under function
	# TOGGLE's calls unless it is "-").
	ir() {
		tog=
		[ "$1" = - ] || tog=--toggle-collect=$1
		shift
		valgrind --tool=callgrind --callgrind-out-file="$TMP/cg" $tog "$@" >/dev/null 2>"$TMP/cg.err" ||
			{ echo "callgrind failed: $(tail -1 "$TMP/cg.err")" >&2; echo 0; return; }
		callgrind_annotate "$TMP/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
	}
	w_ir=$(ir pprof_writer_snapshot "$PROFTOP" -i "$F" --pprof="$TMP/out.pb.gz")
	s_ir=$(ir view_build_stacks "$PROFTOP" -i "$F" --pprof="$TMP/out.pb.gz")
	echo "replay Ir of the one refresh: stacks (view_build_stacks) $s_ir, write (pprof_writer_snapshot) $w_ir, both $((s_ir + w_ir))"
	all_ir=$(ir - "$PROFTOP" -i "$F" --pprof="$TMP/out.pb.gz")
	r_ir=$(ir - perf report -i "$F" --stdio --no-children --sort sym)
	echo "replay Ir: pprof write $w_ir (whole proftop -i --pprof $all_ir), perf report $r_ir, ratio write/perf $(ratio "$w_ir" "$r_ir"), whole/perf $(ratio "$all_ir" "$r_ir")"

	# best of 3 of CMD: wall seconds, CPU seconds and peak RSS (kB) of the best
	best3() {
		bw=999999
		for i in 1 2 3; do
			/usr/bin/time -f "%e %U %S %M" -o "$TMP/t" "$@" >/dev/null 2>&1
			read -r w u s m <"$TMP/t"
			if [ "$(awk -v a="$w" -v b="$bw" 'BEGIN { print (a < b) }')" = 1 ]; then
				bw=$w bc=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') bm=$m
			fi
		done
		echo "$bw $bc $bm"
	}
	set -- $(best3 "$PROFTOP" -i "$F" --pprof="$TMP/out.pb.gz")
	pw=$1 pc=$2 pm=$3
	set -- $(best3 "$PROFTOP" -i "$F" --batch)
	bw=$1 bc=$2 bm=$3
	set -- $(best3 perf report -i "$F" --stdio --no-children --sort sym)
	qw=$1 qc=$2 qm=$3
	echo "replay time: proftop -i --pprof ${pw}s (cpu ${pc}s), -i --batch ${bw}s (cpu ${bc}s), perf report ${qw}s (cpu ${qc}s), ratio --pprof/perf $(ratio "$pc" "$qc") cpu"
	echo "replay rss: proftop -i --pprof $pm kB, -i --batch $bm kB, perf report $qm kB, ratio --pprof/perf $(ratio "$pm" "$qm")"
}
[ "$1" = --live ] || replay "$1"

# A live refresh's work, deterministic: bench/pprof-refresh's 20 refreshes
# of generated samples under callgrind, each mode's instructions a refresh.
PPROF_REFRESH=${PPROF_REFRESH:-bench/pprof-refresh}
if [ -x "$PPROF_REFRESH" ]; then
	for m in batch full kept; do
		valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.$m" --toggle-collect=bench_refresh \
			"$PPROF_REFRESH" $m 20 >"$TMP/pr.out" 2>"$TMP/cg.err"
		n=$(callgrind_annotate "$TMP/cg.$m" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
		eval "pr_$m=\$((n / 20))"
	done
	echo "refresh Ir (pprof-refresh, $(sed 's/.*samples, //' "$TMP/pr.out")): --batch $pr_batch, --pprof before $pr_full, now $pr_kept; now/batch $(ratio "$pr_kept" "$pr_batch"), now/before $(ratio "$pr_kept" "$pr_full")"
fi

# Live CPU is exact (cpu_ns: schedstat, not ticks), in ROUNDS rounds each
# way, every round printed, then the mean of the rounds' ratios, their
# least and greatest (ROUNDS=0: none, for the replay alone).  With REF=an
# older proftop (e.g. main's), its --pprof and --batch run beside ours in
# each round, and its ratio is printed too.
ROUNDS=${ROUNDS:-6}
# Live instructions: both modes under callgrind at once, -p the load's
# pids, IRSECS seconds; each one's instructions of engine_run_sources and
# its records (the calls of ingest_record callgrind counted: the two
# may take a few more or fewer samples).
IRSECS=${IRSECS:-$SECS}
# ir_total FILE: the instructions callgrind's FILE counted
ir_total() {
	callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}
# cg_calls FILE FN: the calls of function FN in callgrind's FILE (names
# are compressed: "(id) name" once, "(id)" after).
cg_calls() {
	awk -v fn="$2" '
		/^c?fn=\(/ {
			id = $0; sub(/^c?fn=/, "", id); sub(/\).*/, ")", id)
			if (match($0, /\) .*/)) name[id] = substr($0, RSTART + 2)
			want = /^cfn=/ && name[id] == fn
			next
		}
		want && /^calls=/ { split($0, a, /[= ]/); n += a[2]; want = 0 }
		END { printf "%.0f", n }' "$1"
}
if [ "$IRSECS" -gt 0 ] && [ "$ROUNDS" -gt 0 ]; then
	pidlist=$(echo $WL | tr ' ' ',') irpids=
	for m in batch pprof; do
		arg=--batch
		[ $m = pprof ] && arg=--pprof=$TMP/ir.pb.gz
		valgrind --tool=callgrind --toggle-collect=engine_run_sources \
			--callgrind-out-file="$TMP/ir.$m" "$PROFTOP" -p "$pidlist" -g -F 4000 -d 1 $arg \
			>/dev/null 2>"$TMP/ir.$m.err" &
		irpids="$irpids $!"
	done
	sleep "$IRSECS"
	kill -INT $irpids 2>/dev/null
	wait $irpids 2>/dev/null
	ir_batch=$(ir_total "$TMP/ir.batch") rec_batch=$(cg_calls "$TMP/ir.batch" ingest_record)
	ir_pprof=$(ir_total "$TMP/ir.pprof") rec_pprof=$(cg_calls "$TMP/ir.pprof" ingest_record)
	echo "live Ir, LOAD=$LOAD, both under callgrind side by side ${IRSECS} s, -p the load: --batch $ir_batch ($rec_batch records, $(ratio "$ir_batch" "$rec_batch") each), --pprof $ir_pprof ($rec_pprof records, $(ratio "$ir_pprof" "$rec_pprof") each); ratio --pprof/--batch $(ratio "$ir_pprof" "$ir_batch"), per record $(ratio "$(ratio "$ir_pprof" "$rec_pprof")" "$(ratio "$ir_batch" "$rec_batch")") (target <= 1.10)"
fi

# start TAG BIN ARGS...: BIN -a -g -F 4000 -d 1 ARGS in the background,
# its pid and TAG appended to $pids, $tags.
start() {
	tag=$1 bin=$2
	shift 2
	"$bin" -a -g -F 4000 -d 1 "$@" >/dev/null 2>"$TMP/$tag.err" &
	pids="$pids $!" tags="$tags $tag"
}
# stop: each started proftop's CPU nanoseconds into $c_TAG, then they
# are stopped.
stop() {
	set -- $tags
	for p in $pids; do
		eval "c_$1=\$(($(cpu_ns "$p") - w_$1))"
		shift
	done
	kill -INT $pids 2>/dev/null
	wait $pids 2>/dev/null
	pids= tags=
}
# run: the started proftops' SECS seconds, after WARM seconds whose CPU
# is not counted (w_TAG: each one's CPU then; 0 without WARM).
WARM=${WARM:-0}
run() {
	set -- $tags
	for t; do eval "w_$t=0"; done
	if [ "$WARM" -gt 0 ]; then
		sleep "$WARM"
		for p in $pids; do
			eval "w_$1=$(cpu_ns "$p")"
			shift
		done
	fi
	sleep "$SECS"
}
# side_start TAG...: the side-by-side proftops of TAGs (b --batch, p
# --pprof, a another --batch; rb, rp REF's), in that order.
side_start() {
	for t; do
		case $t in
		b | a) start $t "$PROFTOP" --batch ;;
		p) start p "$PROFTOP" --pprof="$TMP/pair.pb.gz" ;;
		rb) start rb "$REF" --batch ;;
		rp) start rp "$REF" --pprof="$TMP/ref.pb.gz" ;;
		esac
	done
}
# s NS: nanoseconds as seconds
s() { awk -v n="$1" 'BEGIN { printf "%.4f", n / 1e9 }'; }
mean() { printf '%s\n' "$@" | awk 'NF { s += $1; n++ } END { if (n) printf "%.3f", s / n; else printf "-" }'; }
side= seq= refside= aa=
warm=
[ "$WARM" -gt 0 ] && warm=" after $WARM s not counted"
echo "# live: proftop -a -g -F 4000 -d 1, --batch against --pprof=FILE, LOAD=$LOAD, $SECS s a run$warm, $ROUNDS rounds${REF:+, REF=$REF beside}"
for r in $(seq "$ROUNDS"); do
	# side by side: the same load and noise for all, started in an order
	# that turns each round (no place is always first)
	pids= tags=
	case $((r % 3)) in
	1) order="b p a" ;;
	2) order="p a b" ;;
	0) order="a b p" ;;
	esac
	[ -z "$REF" ] || order="$order rb rp"
	side_start $order
	run
	stop
	q=$(ratio "$c_p" "$c_b")
	side="$side $q"
	aq=$(ratio "$c_a" "$c_b")
	aa="$aa $aq"
	line="live cpu, side by side ($order), round $r: --batch $(s "$c_b")s, --pprof $(s "$c_p")s, ratio $q; A/A: another --batch $(s "$c_a")s, ratio $aq"
	if [ -n "$REF" ]; then
		rq=$(ratio "$c_rp" "$c_rb")
		refside="$refside $rq"
		line="$line; REF --batch $(s "$c_rb")s, --pprof $(s "$c_rp")s, ratio $rq; --pprof/REF's $(ratio "$c_p" "$c_rp")"
	fi
	echo "$line"
	# one after the other (AB, then BA in the next round)
	if [ $((r % 2)) = 1 ]; then
		order=AB
		start b "$PROFTOP" --batch; run; stop
		start p "$PROFTOP" --pprof="$TMP/live.pb.gz"; run; stop
	else
		order=BA
		start p "$PROFTOP" --pprof="$TMP/live.pb.gz"; run; stop
		start b "$PROFTOP" --batch; run; stop
	fi
	q=$(ratio "$c_p" "$c_b")
	seq="$seq $q"
	echo "live cpu, one after the other ($order), round $r: --batch $(s "$c_b")s, --pprof $(s "$c_p")s, ratio $q"
done
if [ "$ROUNDS" -gt 0 ]; then
	echo "live ratio --pprof/--batch (target <= 1.10), LOAD=$LOAD: side by side mean $(mean $side) (least $(min $side), most $(max $side); rounds$side), one after the other mean $(mean $seq) (least $(min $seq), most $(max $seq); rounds$seq)"
	echo "live ratio --batch/--batch (A/A, the noise), side by side: mean $(mean $aa) (least $(min $aa), most $(max $aa); rounds$aa)"
	[ -z "$REF" ] || echo "live ratio of REF ($REF), side by side: mean $(mean $refside) (rounds$refside)"
fi
