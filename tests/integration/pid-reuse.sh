# pid reuse, live: while proftop -a runs, tests/helpers/workload exits and a new
# process running another binary (tests/helpers/callers) is given its pid through
# /proc/sys/kernel/ns_last_pid.  The new process's samples must carry its
# own names (cc_leaf...), never the old binary's (leaf_a...).
# run-tests: alone (times or rates measured; see tests/run-tests.sh)
. tests/lib.sh
require_perf_events
LAST=/proc/sys/kernel/ns_last_pid
[ -w "$LAST" ] || skip "$LAST not writable (needs root)"

"$PROFTOP" -a -s pid,comm,dso,sym --accumulate --json -d 1 -n 6 >"$TMP/out.json" 2>"$TMP/err" &
PT=$!
BG_PIDS="$BG_PIDS $PT"
sleep 1
start_workload 1.5
P=$WL_PID
wait "$P"
# Fork right after setting ns_last_pid: the next pid is P unless another
# process forks in between (retry), or P is taken meanwhile (skip).
try=0
while :; do
	try=$((try + 1))
	[ $try -le 50 ] || skip "could not get pid $P back (a busy machine)"
	[ ! -d "/proc/$P" ] || skip "pid $P taken by another process"
	echo $((P - 1)) >"$LAST"
	tests/helpers/callers 2 >"$TMP/callers.out" &
	NEW=$!
	[ "$NEW" != "$P" ] || break
	kill "$NEW" 2>/dev/null
	wait "$NEW" 2>/dev/null
done
BG_PIDS="$BG_PIDS $NEW"
echo "# pid $P reused after $try attempt(s)"
wait "$NEW"
wait "$PT" || fail "proftop: $(cat "$TMP/err")"

python3 - "$TMP/out.json" "$P" <<'PY' || exit 1
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
pid = int(sys.argv[2])
rows = [r for r in snaps[-1]["rows"] if r.get("pid") == pid and not r.get("kernel")]
by = {}
for r in rows:
    by.setdefault(r.get("comm"), []).append((r.get("dso"), r.get("symbol"), r["samples"]))
for c in by:
    print("# pid %d %s: %s" % (pid, c, sorted(by[c], key=lambda x: -x[2])[:5]))
old = {"leaf_a", "leaf_b", "leaf_c", "lib_leaf"}
new = {"cc_leaf", "parent_x", "parent_y"}
wl = {s for _, s, _ in by.get("workload", [])}
cl = by.get("callers", [])
if not wl & old:
    print("not ok - the old process's samples are missing: %s" % by.get("workload")); sys.exit(1)
# Nothing after the reuse (the fork of sh before its exec too) may be
# named from the old binary.
bad = [(c, d, s) for c in by if c != "workload" for d, s, _ in by[c]
       if s in old or d in ("workload", "libworkload.so")]
if bad:
    print("not ok - the new process got the old binary's names: %s" % bad); sys.exit(1)
own = sum(n for d, s, n in cl if s in new and d == "callers")
total = sum(n for _, _, n in cl)
if own < 20 or own < 0.8 * total:
    print("not ok - the new process: %d of %d user samples named from callers" % (own, total)); sys.exit(1)
print("ok - pid %d reused: the new binary's samples have its own names (%d of %d)" % (pid, own, total))
PY
