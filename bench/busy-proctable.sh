#!/bin/sh
# Start-up on a busy process table: NPROCS (2000) sleeping processes with a
# few maps each (sleep: the binary, libc, ld.so, vdso), then the first-frame
# measure of first-frame.sh: proftop against perf top, same -d, best of
# ROUNDS (3).  Needs root and tmux.
. bench/common.sh
NPROCS=${NPROCS:-2000}
DELAY=${DELAY:-2}
ROUNDS=${ROUNDS:-3}
need tmux perf
[ -x "$PROFTOP" ] && [ -x "$WORKLOAD" ] || { echo "build first: make && make check"; exit 1; }
# One process group for the sleepers: one kill ends them all.
setsid sh -c 'i=0; while [ $i -lt '"$NPROCS"' ]; do sleep 900 & i=$((i + 1)); done; wait' &
grp=$!
"$WORKLOAD" 0 >/dev/null &
wl=$!
trap 'kill $wl 2>/dev/null; kill -- -$grp 2>/dev/null; tmux kill-session -t pt-bp-$$ 2>/dev/null' EXIT INT TERM
while [ "$(pgrep -c -g "$grp" sleep)" -lt "$NPROCS" ]; do sleep 0.2; done
p= q=
for r in $(seq "$ROUNDS"); do
	p="$p $(first_frame pt-bp-$$ leaf_a 30 "$PROFTOP" -a -d "$DELAY")"
	q="$q $(first_frame pt-bp-$$ leaf_a 30 perf top -a -d "$DELAY")"
done
bp=$(min $p) bq=$(min $q)
echo "busy table first frame ($NPROCS processes): proftop $bp s, perf $bq s," \
	"ratio $(ratio "$bp" "$bq") (spread proftop $(spread $p) s, perf $(spread $q) s)"
