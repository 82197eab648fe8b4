# A big perf map is read off the ingestion thread: tests/helpers/oddcode runs JIT
# code named on the last lines of a generated ~36 MB /tmp/perf-PID.map
# (800000 filler lines before them), put in place while proftop runs.  proftop -p PID --json -d 0.2 must
# keep refreshing while the map is read (the longest gap between two
# refreshes under MAX_GAP s; reading the map on the engine thread stalled
# it for 5.3 s), and then name the JIT code: its samples under jit_second
# in perf-PID.map, none filed in unnamed //anon code once the map is there.
# run-tests: alone (times or rates measured; see tests/run-tests.sh)
. tests/lib.sh
require_perf_events
ODD=tests/helpers/oddcode
[ -x "$ODD" ] || fail "$ODD not built"
MAX_GAP=${MAX_GAP:-1.5}

"$ODD" jit 0 nomap >"$TMP/jit.out" 2>"$TMP/jit.err" &
JPID=$!
BG_PIDS="$BG_PIDS $JPID"
i=0
# jit 0: jit_first for 2 s, then jit_second until killed.
while ! grep -q '^second' "$TMP/jit.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 1000 ] || { grep -q "cannot make code" "$TMP/jit.err" && skip "no JIT code here"; fail "oddcode jit did not start"; }
	sleep 0.01
done
FIRST=$(awk '/^first/ { print $2 }' "$TMP/jit.out")
SECOND=$(awk '/^second/ { print $2 }' "$TMP/jit.out")
MAP=/tmp/perf-$JPID.map
trap 'rm -f "$MAP" "$MAP.part"; cleanup' EXIT INT TERM
# Filler far below the code, then the code's own line; put in place only
# once proftop runs (below).
python3 - "$MAP.part" "$FIRST" "$SECOND" <<'PY' || fail "cannot write $MAP"
import os, sys
path, first, second = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
with open(path, "w") as f:
    f.writelines("%x 40 filler_function_%07d_of_a_jit\n" % (0x10000000 + i * 0x40, i)
                 for i in range(800000))
    f.write("%x 40 jit_first\n%x 40 jit_second\n" % (first, second))
print("# %s: %.1f MB" % (path, os.path.getsize(path) / 1e6))
PY

# The map appears after proftop's start-up (its first refreshes wait for
# the kernel's symbols, seconds on a busy machine): a miss then reads it
# within a second.
# The read takes 1-10 s (a loaded machine): proftop runs until the code
# is named and then 10 refreshes more, or at most 90 s.
# (out exists before the polls below: the background shell may open it late)
: >"$TMP/out"
"$PROFTOP" -p "$JPID" --accumulate --json -d 0.2 -n 450 >"$TMP/out" 2>"$TMP/err" &
PT=$!
BG_PIDS="$BG_PIDS $PT"
i=0
while [ "$(grep -c '^{' "$TMP/out")" -lt 3 ]; do
	i=$((i + 1))
	[ $i -lt 3000 ] || fail "proftop -p: no refresh: $(cat "$TMP/err")"
	sleep 0.01
done
mv "$MAP.part" "$MAP"
SHOWN=$(grep -c '^{' "$TMP/out")
while kill -0 "$PT" 2>/dev/null; do
	n=$(grep -n jit_second "$TMP/out" | head -1 | cut -d: -f1)
	[ -z "$n" ] || [ "$(grep -c '^{' "$TMP/out")" -lt $((n + 10)) ] || break
	sleep 0.1
done
if kill -0 "$PT" 2>/dev/null; then
	kill "$PT"
	wait "$PT"
else
	wait "$PT" || fail "proftop -p: $(cat "$TMP/err")"
fi

python3 - "$TMP/out" "$JPID" "$MAX_GAP" "$SHOWN" <<'PY' || exit 1
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
pid, max_gap, shown = sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
if len(snaps) < shown + 10:
    print("not ok - only %d refreshes" % len(snaps)); sys.exit(1)
# "time": seconds since the start, at the refresh; from the last one
# before the map was there.
stamps = [s["time"] for s in snaps[shown - 1:]]
gaps = [b - a for a, b in zip(stamps, stamps[1:])]
print("# %d refreshes, the map there from %.1f s: the longest gap since %.2f s (median %.2f s)" %
      (len(snaps), stamps[0], max(gaps), sorted(gaps)[len(gaps) // 2]))
dso = "perf-%s.map" % pid
def count(s, d, sym=None):
    return sum(r["samples"] for r in s["rows"] if r.get("dso") == d and sym in (None, r.get("symbol")))
named = [s for s in snaps if count(s, dso, "jit_second") > 0]
last = snaps[-1]
jit, anon = count(last, dso, "jit_second"), count(last, "//anon")
if max(gaps) >= max_gap:
    print("not ok - a refresh took %.2f s (>= %.1f s) while the map was read" % (max(gaps), max_gap))
    sys.exit(1)
print("ok - refreshes every %.2f s at most while a big perf map is read" % max(gaps))
if not named or jit < 20:
    print("not ok - jit_second not named in %s: %s" % (dso, [(r.get("dso"), r.get("symbol")) for r in last["rows"][:6]]))
    sys.exit(1)
# Before the map was there the code was //anon; held while it was read,
# and named once it is in: no //anon sample after that.
anon_then = count(named[0], "//anon")
print("# jit_second named at %.1f s; at the end %d samples there, %d in //anon (%d when named)" %
      (named[0]["time"], jit, anon, anon_then))
if anon != anon_then:
    print("not ok - %d samples of JIT code filed under //anon after the map was read" % (anon - anon_then))
    sys.exit(1)
print("ok - JIT code named from the big map, none filed as //anon meanwhile")
PY
