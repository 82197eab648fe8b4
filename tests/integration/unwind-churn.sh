# --call-graph dwarf while processes come and go (a short churn run: the
# ten-minute one is bench/churn-unwind.sh): the unwinder makes state for
# each new process and frees it at its exit.  tests/helpers/nofp started
# again and again (libnofp.so has no frame pointers), -F 1000 for 40 s: its
# processes' chains still reach main through nofp_run at the end, and RSS
# grows less than 15% over the second half (a leak of per-process state,
# a Dwfl or a map table each, grows with every process).
. tests/lib.sh
NOFP=${NOFP:-tests/helpers/nofp}
SECS=${UNWIND_CHURN_SECONDS:-40}
[ -x "$NOFP" ] || skip "tests/helpers/nofp not built"
require_perf_events

# Two loops of short-lived processes, one at a time each, under proftop:
# only they are sampled (system-wide, another program's libraries would
# load their symbols meanwhile and the RSS would say nothing).
"$PROFTOP" --call-graph dwarf -F 1000 --json -d 2 -- sh -c "
	end=\$((\$(date +%s) + $SECS + 5))
	for i in 1 2; do
		while [ \$(date +%s) -lt \$end ]; do '$NOFP' 0.15 >/dev/null; done &
	done
	wait" >"$TMP/out.json" 2>"$TMP/err" &
pp=$!
BG_PIDS="$pp $BG_PIDS"
step=$((SECS / 10)) t=0 rss=
while [ $t -lt "$SECS" ]; do
	sleep $step
	t=$((t + step))
	kill -0 $pp 2>/dev/null || fail "proftop exited: $(tail -3 "$TMP/err")"
	rss="$rss $(awk '/^VmRSS:/ { print $2 }' /proc/$pp/status)"
done
kill -INT $pp
wait $pp 2>/dev/null
echo "# RSS kB every ${step}s:$rss"
set -- $(echo $rss | awk '{ h = int((NF + 1) / 2); print $h, $NF }')
growth=$(awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) * 100 / a }')
if ldd "$PROFTOP" 2>/dev/null | grep -q libasan; then
	# ASan holds freed memory in quarantine: RSS says nothing here (the
	# freeing is checked by check_unwind and check_jitmap).
	echo "# RSS +$growth% over the second half under ASan (quarantine), not checked"
else
	awk -v g="$growth" 'BEGIN { exit !(g < 15) }' ||
		fail "RSS grew $growth% over the second half ($1 -> $2 kB)"
	ok "RSS grew $growth% over the second half ($1 -> $2 kB)"
fi
python3 - "$TMP/out.json" <<'PY' || exit 1
import json, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
u = snap.get("unwind", {})
rows = {r["symbol"]: r for r in snap["rows"] if r.get("dso") in ("nofp", "libnofp.so")}
print("# unwind %s" % u)
leaf, main = rows.get("nofp_leaf"), rows.get("main")
if not leaf or not main:
    print("not ok - no nofp_leaf or main row of the churned processes"); sys.exit(1)
# main's children hold nofp_leaf's: the new processes' chains reached it
# (but for samples the unwinder dropped when busy: their leaf only).
drop = u.get("dropped", 0) / max(u.get("chains", 1), 1)
if main["children"] < (0.9 - drop) * leaf["children"]:
    print("not ok - main %.2f%% < %.0f%% of nofp_leaf's %.2f%%: chains of new processes broke"
          % (main["children"], 100 * (0.9 - drop), leaf["children"])); sys.exit(1)
print("ok - the churned processes' chains reach main (main %.2f%%, nofp_leaf %.2f%% children)"
      % (main["children"], leaf["children"]))
PY
