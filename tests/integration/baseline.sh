# --baseline: two recordings of the workload, the second with leaf_c made
# twice as expensive; the second replayed against a pprof of the first
# must give perf diff's Baseline and Delta (within 0.5 points), and the
# shares the workload's loop predicts (within 2).  The same recording
# against its own pprof, go tool pprof -proto's copy of it, its --folded
# output and its --baseline-save gives deltas of 0.  Bad baselines end
# with one line and exit 2.  In the browser, B takes the table as the
# baseline, and Delta is red up, green down.
. tests/lib.sh

command -v perf >/dev/null 2>&1 || skip "perf not found: perf diff is the reference"
require_perf_events
WL=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")
export HOME="$PWD/$TMP"

rec() { # rec OUT EVENT ARGS...: a perf.data of the workload
	out=$1 ev=$2
	shift 2
	perf record -q -e "$ev" -F 4000 -o "$out" -- "$WL" "$@" >/dev/null 2>"$out.err" ||
		skip "perf record -e $ev cannot record here: $(tail -1 "$out.err")"
}
rec "$TMP/base.data" cpu-clock 3 1
rec "$TMP/new.data" cpu-clock 3 2

$PROFTOP -i "$TMP/base.data" --pprof="$TMP/base.pb.gz" 2>"$TMP/err" ||
	fail "--pprof of the base: $(cat "$TMP/err")"
$PROFTOP -i "$TMP/new.data" --json --baseline="$TMP/base.pb.gz" >"$TMP/diff.json" 2>"$TMP/err" ||
	fail "--baseline: $(cat "$TMP/err")"
$PROFTOP -i "$TMP/new.data" --batch --baseline="$TMP/base.pb.gz" >"$TMP/diff.txt" 2>&1
sed -n '1,12s/^/# /p' "$TMP/diff.txt"
perf diff -c delta "$TMP/base.data" "$TMP/new.data" >"$TMP/perfdiff.txt" 2>/dev/null ||
	fail "perf diff failed"

python3 - "$TMP/diff.json" "$TMP/perfdiff.txt" <<'PY' || exit 1
import json, re, sys
rows = {(r["dso"], r["symbol"]): r for r in json.load(open(sys.argv[1]))["rows"]}
row = re.compile(r'^\s+(?:([\d.]+)%)?\s+(?:([+-][\d.]+)%)?\s+(\S+)\s+\[.\]\s+(.+?)\s*$')
n = 0
for line in open(sys.argv[2]):
    if line.startswith("#"):
        continue
    m = row.match(line)
    if not m:
        continue
    base, delta, key = m.group(1), m.group(2), (m.group(3), m.group(4))
    r = rows.get(key)
    if r is None:
        print("not ok - %s %s: in perf diff, not in proftop's table" % key); sys.exit(1)
    if base is None:          # only in the new recording
        if not r.get("new"):
            print("not ok - %s %s: new for perf diff, not for proftop: %r" % (key + (r,))); sys.exit(1)
    elif delta is None:       # only in the baseline
        if not r.get("gone") or abs(r["baseline"] - float(base)) > 0.5:
            print("not ok - %s %s: gone for perf diff (%s%%), proftop %r" % (key + (base, r))); sys.exit(1)
    else:
        if abs(r["baseline"] - float(base)) > 0.5 or abs(r["delta"] - float(delta)) > 0.5:
            print("not ok - %s %s: perf diff %s%% %s, proftop %r" % (key + (base, delta, r))); sys.exit(1)
    n += 1
if n < 4:
    print("not ok - only %d rows in perf diff's output" % n); sys.exit(1)
print("# %d rows agree with perf diff (Baseline, Delta within 0.5 points)" % n)
# The loop: 6:3:1:2 units, then 6:3:2:2.
old = {"leaf_a": 6 / 12, "leaf_b": 3 / 12, "leaf_c": 1 / 12, "lib_leaf": 2 / 12}
new = {"leaf_a": 6 / 13, "leaf_b": 3 / 13, "leaf_c": 2 / 13, "lib_leaf": 2 / 13}
for (dso, sym), r in rows.items():
    if sym in old:
        want = 100 * (new[sym] - old[sym])
        if abs(r["delta"] - want) > 2 or (r["delta"] > 0) != (want > 0):
            print("not ok - %s: delta %.2f, expected %.2f" % (sym, r["delta"], want)); sys.exit(1)
        print("# %s delta %+.2f (expected %+.2f)" % (sym, r["delta"], want))
PY
ok "a replay against another recording's pprof: perf diff's Baseline and Delta"

# all_zero JSON WHAT: every row matched, with a delta of 0 (within TOL).
all_zero() {
	python3 - "$1" "${3:-0}" <<'PY' || fail "$2"
import json, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
bad = [r for r in snap["rows"] if r.get("new") or r.get("gone") or abs(r["delta"]) > float(sys.argv[2])]
if bad or not snap["rows"]:
    print("not ok - %d rows, %d not 0: %r" % (len(snap["rows"]), len(bad), bad[:3])); sys.exit(1)
PY
	ok "$2"
}

$PROFTOP -i "$TMP/base.data" --json -s comm,dso,sym --baseline="$TMP/base.pb.gz" >"$TMP/self.json" ||
	fail "own pprof as the baseline"
all_zero "$TMP/self.json" "proftop's own pprof read back: every delta 0.00"
if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
	go tool pprof -proto "$TMP/base.pb.gz" >"$TMP/go.pb.gz" 2>"$TMP/err" ||
		fail "go tool pprof -proto: $(cat "$TMP/err")"
	$PROFTOP -i "$TMP/base.data" --json --baseline="$TMP/go.pb.gz" >"$TMP/go.json" 2>"$TMP/err" ||
		fail "go tool pprof -proto's file as the baseline: $(cat "$TMP/err")"
	all_zero "$TMP/go.json" "go tool pprof -proto's copy as the baseline: every delta 0.00"
else
	echo "# go tool pprof not found: its -proto output is not tried"
fi
$PROFTOP -i "$TMP/base.data" --folded >"$TMP/base.folded" || fail "--folded"
$PROFTOP -i "$TMP/base.data" --json -s comm,sym --baseline="$TMP/base.folded" >"$TMP/folded.json" ||
	fail "folded baseline"
# Folded stacks count samples, the table periods: cpu-clock's vary a little.
all_zero "$TMP/folded.json" "--folded output as the baseline: every delta 0 (within 0.1)" 0.1
# The recording itself, replayed for its table: the pprof's deltas.
$PROFTOP -i "$TMP/new.data" --json --baseline="$TMP/base.data" >"$TMP/rec.json" 2>"$TMP/err" ||
	fail "a perf.data as the baseline: $(cat "$TMP/err")"
python3 - "$TMP/rec.json" "$TMP/diff.json" <<'PY' || exit 1
import json, sys
a, b = (json.load(open(f))["rows"] for f in sys.argv[1:3])
ka = {(r["dso"], r["symbol"]): (r.get("baseline"), r["delta"]) for r in a}
kb = {(r["dso"], r["symbol"]): (r.get("baseline"), r["delta"]) for r in b}
if ka != kb:
    print("not ok - perf.data and pprof baselines differ: %r" %
          {k: (ka.get(k), kb.get(k)) for k in set(ka) | set(kb) if ka.get(k) != kb.get(k)}); sys.exit(1)
PY
ok "a perf.data as the baseline: the same Baseline and Delta as its pprof"
$PROFTOP -i "$TMP/base.data" --batch --baseline-save="$TMP/saved.pb.gz" >/dev/null ||
	fail "--baseline-save"
$PROFTOP -i "$TMP/base.data" --json --baseline="$TMP/saved.pb.gz" >"$TMP/saved.json" ||
	fail "the saved baseline"
all_zero "$TMP/saved.json" "--baseline-save's file as the baseline: every delta 0.00"

# Bad baselines: one line, exit 2, no crash.
bad() { # bad FILE WHAT PATTERN
	$PROFTOP -i "$TMP/new.data" --batch --baseline="$1" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	[ $rc -eq 2 ] || fail "$2: exit $rc, not 2: $(cat "$TMP/bad.err")"
	# (a recording's replay may say what it notices in it first)
	grep -v '^proftop: notice: ' "$TMP/bad.err" >"$TMP/bad.err1"
	[ "$(wc -l <"$TMP/bad.err1")" -eq 1 ] || fail "$2: not one line: $(cat "$TMP/bad.err")"
	grep -q -E -- "$3" "$TMP/bad.err1" || fail "$2: $(cat "$TMP/bad.err")"
	[ ! -s "$TMP/bad.out" ] || fail "$2: a table was printed"
	ok "$2: $(cat "$TMP/bad.err1")"
}
head -c 200 "$TMP/base.pb.gz" >"$TMP/trunc.pb.gz"
bad "$TMP/trunc.pb.gz" "a truncated pprof" "truncated"
printf 'not a profile\n' >"$TMP/text"
bad "$TMP/text" "a file that is neither" "neither a pprof profile \(gzip\) nor folded stacks"
head -c 300 "$TMP/base.data" >"$TMP/empty.data"
bad "$TMP/empty.data" "a perf.data without samples" "empty.data: no samples in the recording"
printf 'wl;main;leaf 12\nwl;main;leaf x12\n' >"$TMP/count.folded"
bad "$TMP/count.folded" "a folded file with a bad count" "line 2: the count 'x12'"
python3 -c 'import sys; sys.stdout.write("a;" + "b" * (2 << 20) + " 1\n")' >"$TMP/long.folded"
bad "$TMP/long.folded" "a folded file with a very long line" "line 1 is over"
bad "$TMP/nonexistent" "a missing file" "nonexistent: No such file"
if perf record -q -e page-faults -c 1 -o "$TMP/faults.data" -- "$WL" 0.2 >/dev/null 2>&1; then
	$PROFTOP -i "$TMP/faults.data" --pprof="$TMP/faults.pb.gz" || fail "--pprof of page faults"
	bad "$TMP/faults.pb.gz" "a baseline of another event" "counts page-faults, this profile cpu"
fi

# Live, against the base: leaf_c is up.
# (-n ends the run: the workload is killed, and its status is proftop's)
$PROFTOP --json -d 1 -n 2 --baseline="$TMP/base.pb.gz" -- "$WL" 0 2 >"$TMP/live.json" 2>"$TMP/err"
[ -s "$TMP/live.json" ] || fail "live --baseline: $(cat "$TMP/err")"
python3 - "$TMP/live.json" <<'PY' || exit 1
import json, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
d = {r["symbol"]: r for r in snap["rows"] if "symbol" in r}
if not (d["leaf_c"]["delta"] > 2 and d["leaf_a"]["delta"] < 0):
    print("not ok - live deltas: %r" % {k: d[k]["delta"] for k in d if "leaf" in k}); sys.exit(1)
print("# live: leaf_c %+.2f, leaf_a %+.2f" % (d["leaf_c"]["delta"], d["leaf_a"]["delta"]))
PY
ok "live --baseline: leaf_c up, leaf_a down"

# The browser: B, and the colours.
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (the rest is the browser's)"
ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
ABS_TMP=$(cd "$TMP" && pwd)
tmux_start baseline 120 30 "$ABS_TMP" || skip "tmux cannot start a session here"
keys "clear; $ABS_PROFTOP -i new.data --baseline=base.pb.gz; echo EXIT=\$?" Enter
wait_for 'Self +Baseline +Delta +Samples' "Baseline and Delta columns in the browser"
# Red (31) for leaf_c's rise, green (32) for leaf_a's fall.
i=0
until $T capture-pane -e -p -t baseline | grep 'leaf_c' | grep -q -E '\[(1;)?31m *\+[0-9.]+' &&
	$T capture-pane -e -p -t baseline | grep 'leaf_a' | grep -q -E '\[32m *-[0-9.]+'; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "colours: $($T capture-pane -e -p -t baseline | grep -E 'leaf_[ac]' | od -c | head -20)"
	sleep 0.1
done
ok "the browser: Delta red up (leaf_c), green down (leaf_a)"
# s to Delta: the rise first (Home: the selection, leaf_a, went down).
keys s s
wait_for '^Sort: Delta' "s sorts by Delta"
keys Home
sleep 0.3
screen | grep -E '^ +[0-9.]+% +[0-9.]+% +\+[0-9.]+ ' | head -1 | grep -q leaf_c ||
	fail "Delta order: $(screen | sed -n 4,8p)"
ok "sorted by Delta, leaf_c first"
keys B
wait_for 'baseline: the table at' "B says the table is the baseline"
i=0
until [ "$(screen | grep -c -E '% +[0-9.]+% +0\.00 +[0-9]+ ')" -ge 4 ]; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "B: deltas not 0: $(screen | sed -n 4,10p)"
	sleep 0.1
done
screen | grep -q -E ' (new|gone) ' && fail "B: a new or gone row: $(screen | grep -E ' (new|gone) ')"
ok "B: the table is the baseline, every delta 0.00"
keys q
wait_for '^EXIT=0$' "q after B"

# B in a live session, then --baseline-save of the browser's table.
keys "clear; $ABS_PROFTOP -d 0.5 --baseline-save=live.pb.gz -- $WL 0; echo EXIT=\$?" Enter
wait_for '\[\.\] leaf_c' "live rows"
keys B
wait_for 'Self +Baseline +Delta' "B live: the columns"
wait_for 'leaf_a' "rows after B"
keys q
wait_for '^EXIT=0$' "q live"
[ -s "$TMP/live.pb.gz" ] || fail "--baseline-save wrote nothing from the browser"
$PROFTOP -i "$TMP/base.data" --json --baseline="$TMP/live.pb.gz" >"$TMP/b.json" ||
	fail "the browser's saved baseline does not read"
ok "B live, and --baseline-save from the browser"
