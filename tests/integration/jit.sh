# JIT code named from perf maps, live: tests/helpers/oddcode jit runs code in an
# anonymous executable mapping named in /tmp/perf-PID.map, and halfway
# appends a second function (a re-read of the appended part).  Then the
# same inside a pid and mount namespace with its own /tmp: the map is
# /proc/PID/root/tmp/perf-NSPID.map, and a decoy /tmp/perf-HOSTPID.map on
# the host must not be used.
# run-tests: alone (times or rates measured; see tests/run-tests.sh)
. tests/lib.sh
require_perf_events
ODD=tests/helpers/oddcode
[ -x "$ODD" ] || fail "$ODD not built"

# wait_ready FILE: until the program printed "ready".
wait_ready() {
	i=0
	while ! grep -q ready "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 500 ] || return 1
		sleep 0.01
	done
}

# check_jit FILE WHAT DSO: both JIT functions named in DSO, no decoy, and
# once the appended line was read (at most a second after the first miss)
# the code is named: in the last refresh with 50 samples of jit_second
# (-z: one refresh's samples), unnamed //anon code is under a tenth of it.
check_jit() {
	python3 - "$1" "$2" "$3" <<'PY' || exit 1
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
what, dso = sys.argv[2], sys.argv[3]
named = {}
for s in snaps:
    for r in s["rows"]:
        k = (r.get("dso"), r.get("symbol"))
        named[k] = named.get(k, 0) + r["samples"]
print("# %s: %s" % (what, sorted(named.items(), key=lambda kv: -kv[1])[:6]))
if any("decoy" in (s or "") for _, s in named):
    print("not ok - %s: a name from the host's decoy map" % what); sys.exit(1)
for f in ("jit_first", "jit_second"):
    if named.get((dso, f), 0) < 10:
        print("not ok - %s: %s not named in %s" % (what, f, dso)); sys.exit(1)
def count(s, d, sym=None):
    return sum(r["samples"] for r in s["rows"] if r.get("dso") == d and sym in (None, r.get("symbol")))
full = [s for s in snaps if count(s, dso, "jit_second") >= 50]
if not full:
    print("not ok - %s: no refresh with 50 samples of jit_second" % what); sys.exit(1)
last = full[-1]
second, anon = count(last, dso, "jit_second"), count(last, "//anon")
print("# %s: last snapshot with jit_second: %d samples there, %d in unnamed //anon" % (what, second, anon))
if anon > second / 10:
    print("not ok - %s: unnamed JIT code after the re-read" % what); sys.exit(1)
print("ok - %s: jit_first and jit_second named from the perf map" % what)
PY
}

"$ODD" jit 5 >"$TMP/jit.out" 2>"$TMP/jit.err" &
JPID=$!
BG_PIDS="$BG_PIDS $JPID"
wait_ready "$TMP/jit.out" || { grep -q "cannot make code" "$TMP/jit.err" && skip "no JIT code here"; fail "oddcode jit did not start"; }
"$PROFTOP" -p "$JPID" -z --json -d 1 >"$TMP/host.json" 2>"$TMP/err" || fail "proftop -p: $(cat "$TMP/err")"
check_jit "$TMP/host.json" "host process" "perf-$JPID.map"
wait "$JPID"

# In a container: its own pid namespace (it is pid 1 there) and /tmp.
command -v unshare >/dev/null || skip "unshare (util-linux) not installed"
unshare -m -p -f --propagation private true 2>/dev/null || skip "unshare -m -p refused here"
unshare -m -p -f --propagation private sh -c \
	"mount -t tmpfs jit-tmp /tmp && exec '$ODD' jit 5" >"$TMP/ns.out" 2>"$TMP/ns.err" &
UPID=$!
BG_PIDS="$BG_PIDS $UPID"
wait_ready "$TMP/ns.out" || fail "oddcode jit in a namespace did not start: $(cat "$TMP/ns.err")"
[ "$(awk '/ready/ {print $2}' "$TMP/ns.out")" = 1 ] || fail "not pid 1 in its namespace"
NSPID=$(ps -o pid= --ppid "$UPID" | tr -d ' ')
[ -n "$NSPID" ] || fail "no host pid for the namespace's process"
BG_PIDS="$BG_PIDS $NSPID"
# The host's /tmp/perf-HOSTPID.map: valid, root's, covering everything.
DECOY=/tmp/perf-$NSPID.map
printf '0 7fffffffffff decoy_host_name\n' >"$DECOY"
trap 'rm -f "$DECOY"; cleanup' EXIT INT TERM
[ ! -e /tmp/perf-1.map ] || fail "/tmp/perf-1.map exists on the host"
"$PROFTOP" -p "$NSPID" -z --json -d 1 >"$TMP/ns.json" 2>"$TMP/err" || fail "proftop -p: $(cat "$TMP/err")"
check_jit "$TMP/ns.json" "namespaced process" "perf-$NSPID.map"
