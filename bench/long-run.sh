#!/bin/sh
# Long run: proftop -a -g and perf top -a -g (in tmux) side by side for
# LONG_RUN_SECONDS (600) while processes churn: CHURN (4) loops each start a
# short-lived process (a shell that spins ~50 ms) again and again, so at
# most CHURN are alive at once.  RSS is sampled every tenth of the run
# (every 10 s for 10 minutes); printed: the growth over the second half.
# `make bench` shortens it (LONG_RUN_SECONDS=60 unless set).
. bench/common.sh
SECS=${LONG_RUN_SECONDS:-600}
CHURN=${CHURN:-4}
need tmux perf
[ -x "$PROFTOP" ] && [ -x "$WORKLOAD" ] || { echo "build first: make && make check"; exit 1; }
STEP=$((SECS / 10))
[ "$STEP" -ge 1 ] || STEP=1
setsid sh -c 'for i in $(seq '"$CHURN"'); do
	( while :; do sh -c "i=0; while [ \$i -lt 3000 ]; do i=\$((i+1)); done"; done ) &
	done; wait' &
grp=$!
"$WORKLOAD" 0 >/dev/null &
wl=$!
s=pt-lr-$$
trap 'kill $wl 2>/dev/null; kill -- -$grp 2>/dev/null; kill $pp 2>/dev/null; tmux kill-session -t $s 2>/dev/null' EXIT INT TERM
"$PROFTOP" -a -g --batch -d 2 >/dev/null 2>&1 &
pp=$!
tmux new-session -d -s $s -x 200 -y 50 "exec perf top -a -g -d 2"
sleep 1
qp=$(tmux list-panes -t $s -F '#{pane_pid}')
t=0 pr= qr=
while [ $t -lt "$SECS" ]; do
	sleep "$STEP"
	t=$((t + STEP))
	pr="$pr $(rss_mb $pp)"
	qr="$qr $(rss_mb $qp)"
done
# growth over the second half: last sample against the one at half time
half() { echo $1 | awk '{ n = NF; h = int((n + 1) / 2); printf "%s %s", $h, $n }'; }
set -- $(half "$pr")
gp=$(awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a ? (b - a) * 100 / a : 0 }')
lp=$2
set -- $(half "$qr")
gq=$(awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a ? (b - a) * 100 / a : 0 }')
lq=$2
echo "# long run ${SECS}s with churn, RSS MB every ${STEP}s: proftop$pr; perf$qr"
echo "long run rss: proftop $lp MB, perf $lq MB, ratio $(ratio "$lp" "$lq")"
echo "long run rss growth (2nd half): proftop $gp %, perf $gq %"
