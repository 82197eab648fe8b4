# --call-graph dwarf: DWARF unwinding of code without frame pointers
# (tests/helpers/nofp and libnofp.so, -O2 -fomit-frame-pointer: nofp_leaf
# called by nofp_caller_a for 3 units, nofp_caller_b for 1).  Replay of a
# `perf record --call-graph dwarf` file against perf report --children, the
# live option with the known split, and, where Debian's xz is installed, its
# liblzma (no frame pointers, stripped) against perf report.
. tests/lib.sh
NOFP=${NOFP:-tests/helpers/nofp}

# compare REPORT JSON NTOP NEED [LENIENT]: perf's top NTOP --children rows
# (by symbol) and proftop's rows of the same symbol within 1 point, the
# names NEED compared; with LENIENT, only NEED must be within 1 point (perf
# names a frame by the function inlined there, "nofp_loop (inlined)", and
# gives the function's own symbol only the samples outside the inlined
# code; which of those make its top rows depends on the recording).
compare() {
	python3 - "$@" <<'PY' || exit 1
import json, re, sys
perf = []
for l in open(sys.argv[1]):
    m = re.match(r"^\s+([\d.]+)%\s+([\d.]+)%\s+\[.\]\s+(.*?)\s*$", l)
    if m:
        perf.append((m.group(3), float(m.group(1)), float(m.group(2))))
perf = perf[:int(sys.argv[3])]
need = sys.argv[4].split(",")
lenient = len(sys.argv) > 5
snap = json.loads(open(sys.argv[2]).read().splitlines()[-1])
if not snap.get("callchains"):
    print("not ok - -i did not use the file's stacks"); sys.exit(1)
# Names may repeat (ld.so's _start and the program's): paired in order.
ours = {}
for r in snap["rows"]:
    ours.setdefault(r["symbol"], []).append(r)
compared = []
for sym, ch, self in perf:
    if not ours.get(sym):
        print("# %s: no row of that name in proftop (perf %.2f%%)" % (sym, ch)); continue
    r = ours[sym].pop(0)
    print("# %-32s children perf %6.2f proftop %6.2f" % (sym, ch, r["children"]))
    if abs(r["children"] - ch) > 1:
        if not lenient or sym in need:
            print("not ok - %s children differ by more than 1 point" % sym); sys.exit(1)
        print("# (not counted: perf's name for this frame varies)")
        continue
    compared.append(sym)
missing = [s for s in need if s not in compared]
if missing:
    print("not ok - %s not compared" % missing); sys.exit(1)
print("ok - children of %d rows within 1 point of perf report --children" % len(compared))
PY
}

# split JSON: nofp_leaf's callers and the callers' children 75/25 within 5.
split() {
	python3 - "$1" <<'PY' || exit 1
import json, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.strip() and l[0] == "{"][-1]
rows = {r.get("symbol"): r for r in snap["rows"]}
for s in ("nofp_leaf", "nofp_caller_a", "nofp_caller_b", "nofp_run", "main"):
    if s not in rows:
        print("not ok - no row %s: %s" % (s, [r.get("symbol") for r in snap["rows"][:12]])); sys.exit(1)
leaf = rows["nofp_leaf"]["children"]
a, b = rows["nofp_caller_a"]["children"], rows["nofp_caller_b"]["children"]
print("# children: leaf %.2f run %.2f main %.2f caller_a %.2f caller_b %.2f"
      % (leaf, rows["nofp_run"]["children"], rows["main"]["children"], a, b))
if abs(100 * a / leaf - 75) > 5 or abs(100 * b / leaf - 25) > 5:
    print("not ok - callers' children %.1f/%.1f, want 75/25 of the leaf" % (a, b)); sys.exit(1)
if rows["main"]["children"] < 90:
    print("not ok - main's children %.1f: the chains do not reach main" % rows["main"]["children"]); sys.exit(1)
split = {c["symbol"]: c["share"] for c in rows["nofp_leaf"].get("callers") or []}
print("# nofp_leaf callers: " + ", ".join("%s %.2f%%" % kv for kv in sorted(split.items())))
if abs(split.get("nofp_caller_a", 0) - 75) > 5 or abs(split.get("nofp_caller_b", 0) - 25) > 5:
    print("not ok - callers split %s" % split); sys.exit(1)
print("ok - nofp_leaf's callers split 75/25 within 5 points, main above 90%")
PY
}

[ -x "$NOFP" ] || fail "$NOFP not built (make tests/helpers/nofp)"

if command -v perf >/dev/null 2>&1 &&
	perf record -q --call-graph dwarf -F 4000 -e cpu-clock -o "$TMP/nofp.data" -- "$NOFP" 2 \
		>/dev/null 2>"$TMP/perf.err"; then
	perf report -i "$TMP/nofp.data" --children --sort sym --stdio -g none 2>/dev/null >"$TMP/report.txt"
	"$PROFTOP" -i "$TMP/nofp.data" -s sym -G 20 --json >"$TMP/file.json" 2>"$TMP/err" ||
		fail "proftop -i: $(cat "$TMP/err")"
	compare "$TMP/report.txt" "$TMP/file.json" 20 main,nofp_run,nofp_leaf,nofp_caller_a,nofp_caller_b lenient
	split "$TMP/file.json"
	json_check "$TMP/file.json" 'snaps[-1]["unwind"]["chains"] > 1000 and snaps[-1]["unwind"]["root"] > 0.95 * snaps[-1]["unwind"]["chains"] and snaps[-1]["unwind"]["method"] == "dwarf"' ||
		fail "JSON unwind object: $(tail -1 "$TMP/file.json" | grep -o '"unwind":{[^}]*}')"
	"$PROFTOP" -i "$TMP/nofp.data" --batch -G 0 >"$TMP/file.txt" 2>"$TMP/err" || fail "-i text"
	sed -n 3p "$TMP/file.txt" | grep -q '^unwind: dwarf [0-9]* chains  root [0-9.]*%' ||
		fail "no unwind line in the header: $(head -4 "$TMP/file.txt")"
	ok "unwind outcomes: JSON object and header line, $(sed -n 3p "$TMP/file.txt")"
	# The same chains in the text tree and in folded stacks.
	"$PROFTOP" -i "$TMP/nofp.data" --folded >"$TMP/folded" 2>"$TMP/err" || fail "--folded"
	python3 - "$TMP/folded" <<'PY' || exit 1
import re, sys
x = y = 0
for l in open(sys.argv[1]):
    m = re.match(r"^(.*) (\d+)$", l.rstrip("\n"))
    if not m: continue
    if m.group(1).endswith("nofp_run;nofp_caller_a;nofp_leaf"): x += int(m.group(2))
    if m.group(1).endswith("nofp_run;nofp_caller_b;nofp_leaf"): y += int(m.group(2))
print("# folded: caller_a %d caller_b %d" % (x, y))
if not x or not y or abs(100.0 * x / (x + y) - 75) > 5:
    print("not ok - folded split"); sys.exit(1)
print("ok - folded stacks through both callers, 75/25")
PY
else
	echo "# SKIP: perf record --call-graph dwarf unavailable: $(tail -1 "$TMP/perf.err" 2>/dev/null)"
fi

# Debian's xz: liblzma has no frame pointers and no static symbols.
if command -v perf >/dev/null 2>&1 && command -v xz >/dev/null 2>&1; then
	head -c 3000000 /dev/urandom | od -An -x >"$TMP/big.txt" 2>/dev/null
	if perf record -q --call-graph dwarf -e cpu-clock -o "$TMP/xz.data" -- \
		xz -9 -T1 -c "$TMP/big.txt" >/dev/null 2>"$TMP/perf.err"; then
		perf report -i "$TMP/xz.data" --children --sort sym --stdio -g none 2>/dev/null \
			>"$TMP/xz-report.txt"
		"$PROFTOP" -i "$TMP/xz.data" -s sym --json >"$TMP/xz.json" 2>"$TMP/err" ||
			fail "proftop -i xz: $(cat "$TMP/err")"
		compare "$TMP/xz-report.txt" "$TMP/xz.json" 20 lzma_code lenient
	fi
fi

# Live: the option on the same workload.
require_perf_events
"$PROFTOP" --call-graph dwarf -e cpu-clock -G 20 --batch --json -d 1.5 -- "$NOFP" 2 \
	>"$TMP/live.json" 2>"$TMP/err" || fail "proftop --call-graph dwarf: $(cat "$TMP/err")"
split "$TMP/live.json"
"$PROFTOP" --call-graph dwarf,4096 -e cpu-clock -G 10 --batch -d 1 -- "$NOFP" 1 \
	>"$TMP/live.txt" 2>"$TMP/err" || fail "--call-graph dwarf,4096: $(cat "$TMP/err")"
grep -q -- "--nofp_caller_a" "$TMP/live.txt" || fail "no caller graph: $(head -30 "$TMP/live.txt")"
ok "live --call-graph dwarf,4096: caller graph"

# Frame-pointer chains: their root share, and the hint where they break.
"$PROFTOP" -g -e cpu-clock --batch --json -d 1.5 -- "$NOFP" 2 >"$TMP/fp.json" 2>"$TMP/err" ||
	fail "proftop -g: $(cat "$TMP/err")"
grep -v '^ready' "$TMP/fp.json" >"$TMP/fp2.json"
json_check "$TMP/fp2.json" 'snaps[-1]["unwind"]["method"] == "fp" and snaps[-1]["unwind"]["hint"] == "--call-graph dwarf" and snaps[-1]["unwind"]["root"] < 0.7 * snaps[-1]["unwind"]["chains"]' ||
	fail "-g on code without frame pointers: no hint: $(tail -1 "$TMP/fp2.json" | grep -o '"unwind":{[^}]*}')"
"$PROFTOP" -g -e cpu-clock --batch -d 1.5 -- "$NOFP" 2 >"$TMP/fp.txt" 2>"$TMP/err" || fail "proftop -g text"
grep -q '^unwind: fp [0-9]* chains  root [0-9.]*%: .* try --call-graph dwarf$' "$TMP/fp.txt" ||
	fail "no hint line: $(sed -n 1,4p "$TMP/fp.txt")"
ok "-g without frame pointers: $(grep '^unwind:' "$TMP/fp.txt" | tail -1)"
"$PROFTOP" -g -e cpu-clock --batch --json -d 1 -- tests/helpers/callers 1.5 >"$TMP/cfp.json" 2>"$TMP/err" ||
	fail "proftop -g callers: $(cat "$TMP/err")"
grep -v '^ready' "$TMP/cfp.json" >"$TMP/cfp2.json"
json_check "$TMP/cfp2.json" 'snaps[-1]["unwind"]["hint"] is None and snaps[-1]["unwind"]["root"] > 0.9 * snaps[-1]["unwind"]["chains"]' ||
	fail "-g with frame pointers: $(tail -1 "$TMP/cfp2.json" | grep -o '"unwind":{[^}]*}')"
ok "-g with frame pointers: chains reach a root, no hint"
