# Shared helpers for the integration tests (sourced; POSIX sh).
# Each check prints "ok - what" or "not ok - what"; a script exits 1 at the
# first failure, 77 to skip.
PROFTOP=${PROFTOP:-./proftop}
WORKLOAD=${WORKLOAD:-tests/workload}
TMP=tests/tmp/$(basename "$0" .sh).$$
mkdir -p "$TMP"
BG_PIDS=

cleanup() {
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap cleanup EXIT INT TERM

ok() { echo "ok - $*"; }
fail() {
	echo "not ok - $*"
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}

# Skip unless perf_event_open works for us here (a command of our own).
require_perf_events() {
	if ! out=$(timeout 30 "$PROFTOP" --json -d 0.2 -- true 2>&1); then
		skip "perf_event_open unavailable: $(echo "$out" | tail -1)"
	fi
}

# Start the workload in the background for SECS (0 = until killed); sets WL_PID.
start_workload() {
	"$WORKLOAD" "$1" >"$TMP/wl.out" &
	WL_PID=$!
	BG_PIDS="$BG_PIDS $WL_PID"
	i=0
	while ! grep -q ready "$TMP/wl.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 500 ] || fail "workload did not start"
		sleep 0.01
	done
}

# check_shares FILE [PID]: the last JSON snapshot in FILE must rank the
# workload's leaves a > b > lib > c with shares within 5 points of 50, 25,
# 16.7 and 8.3 (of the four leaves' total, which must be >= 80% of the
# workload's samples).
check_shares() {
	python3 - "$@" <<'PY' || exit 1
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
if not lines:
    print("not ok - no JSON output"); sys.exit(1)
snaps = [json.loads(l) for l in lines]
snap = snaps[-1]
want = {"leaf_a": 50.0, "leaf_b": 25.0, "lib_leaf": 100 * 2 / 12, "leaf_c": 100 / 12}
dso = {"leaf_a": "workload", "leaf_b": "workload", "leaf_c": "workload", "lib_leaf": "libworkload.so"}
got = {}
for r in snap["rows"]:
    s = r.get("symbol")
    if s in want:
        if r.get("dso") != dso[s]:
            print("not ok - %s in dso %r, expected %r" % (s, r.get("dso"), dso[s])); sys.exit(1)
        got[s] = got.get(s, 0) + r["self"]
missing = [s for s in want if s not in got]
if missing:
    print("not ok - missing %s in %s" % (missing, [r.get("symbol") for r in snap["rows"][:10]])); sys.exit(1)
total = sum(got.values())
order = sorted(got, key=lambda s: -got[s])
print("# shares (of the leaves): " + ", ".join("%s %.1f%% (want %.1f)" % (s, 100 * got[s] / total, want[s]) for s in order))
print("# leaves are %.1f%% of all samples in the last snapshot (%d samples)" % (total, snap["samples"]))
if order != ["leaf_a", "leaf_b", "lib_leaf", "leaf_c"]:
    print("not ok - order %s" % order); sys.exit(1)
for s in want:
    share = 100 * got[s] / total
    if abs(share - want[s]) > 5:
        print("not ok - %s share %.1f, expected %.1f +- 5" % (s, share, want[s])); sys.exit(1)
if total < 80:
    print("not ok - leaves only %.1f%% of the samples" % total); sys.exit(1)
print("ok - leaf order and shares")
PY
}

# json_check FILE PYTHON-EXPR: evaluate EXPR with `snaps` (list of objects).
json_check() {
	python3 - "$1" "$2" <<'PY'
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ok = eval(sys.argv[2])
sys.exit(0 if ok else 1)
PY
}
