#!/bin/sh
# First frame: seconds from start until the hot function of an already
# running workload (leaf_a in tests/helpers/workload) is on screen, proftop against
# perf top, both system-wide in a tmux pane with the same -d (DELAY,
# default 2).  Best of ROUNDS (3), with the spread.  Needs root and tmux.
. bench/common.sh
DELAY=${DELAY:-2}
ROUNDS=${ROUNDS:-3}
need tmux perf
[ -x "$PROFTOP" ] && [ -x "$WORKLOAD" ] || { echo "build first: make && make check"; exit 1; }
"$WORKLOAD" 0 >/dev/null &
wl=$!
trap 'kill $wl 2>/dev/null; tmux kill-session -t pt-ff-$$ 2>/dev/null' EXIT INT TERM
sleep 1
p= q=
for r in $(seq "$ROUNDS"); do
	p="$p $(first_frame pt-ff-$$ leaf_a 20 "$PROFTOP" -a -d "$DELAY")"
	q="$q $(first_frame pt-ff-$$ leaf_a 20 perf top -a -d "$DELAY")"
done
bp=$(min $p) bq=$(min $q)
echo "first frame (-d $DELAY): proftop $bp s, perf $bq s, ratio $(ratio "$bp" "$bq")" \
	"(spread proftop $(spread $p) s, perf $(spread $q) s)"
