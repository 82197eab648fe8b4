# The per-instruction view (a) of an Alpha ProfileMe recording, through
# tmux: the payload's columns beside each instruction, with the values
# --batch --annotate prints for them (checked against a decoder in python
# by annotate-alpha.sh); the pane (I) with the selected instruction's
# breakdown, its counts the recording's (tests/helpers/alpha-pm-rec.py's
# truth); I hides it; Enter follows the loop's branch and Backspace comes
# back.  At 80x24 the columns that do not fit give way and nothing is
# wider than the screen.  The 120x40 screen is kept in $TMP/view-120x40.txt.
# Tools: apt-get install gcc-alpha-linux-gnu.
. tests/lib.sh

CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
OBJDUMP=${ALPHA_OBJDUMP:-alpha-linux-gnu-objdump}
MK=${MKPERFDATA:-tests/helpers/mkperfdata}
for t in "$CC" "$OBJDUMP" python3 tmux; do
	command -v "$t" >/dev/null 2>&1 ||
		skip "$t not installed (apt-get install gcc-alpha-linux-gnu tmux)"
done
[ -x "$MK" ] || fail "$MK is not built (make tests/helpers/mkperfdata)"

BIN=$(pwd)/$TMP/alpha-code
"$CC" -O2 -mcpu=ev67 -o "$BIN" tests/helpers/alpha-code.c -lm 2>"$TMP/cc.err" ||
	{ cat "$TMP/cc.err"; fail "$CC alpha-code.c"; }
ID=$(readelf -n "$BIN" | awk '/Build ID/ { print $3 }')
"$OBJDUMP" -d "$BIN" >"$TMP/objdump" || fail "$OBJDUMP"
python3 tests/helpers/alpha-pm-rec.py "$TMP/objdump" "$BIN" "$ID" "$TMP/truth.json" \
	>"$TMP/rec.txt" || fail "gen"
"$MK" -o "$TMP/rec.data" "$TMP/rec.txt" || fail "mkperfdata"
"$PROFTOP" -i "$TMP/rec.data" --batch --annotate=alpha_hot 2>/dev/null |
	sed -n '/^Annotate alpha_hot/,/^$/p' >"$TMP/batch.txt"
[ -s "$TMP/batch.txt" ] || fail "--batch --annotate=alpha_hot printed nothing"

ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
ABS_REC=$(cd "$TMP" && pwd)/rec.data
tmux_start annpm 120 40 || skip "tmux cannot start a session here"

# check_cols FILE: every instruction line's payload cells are the batch's
# for that address, under the titles the view shows; prints the titles.
check_cols() {
	python3 - "$1" "$TMP/batch.txt" <<'PY'
import re, sys
view = open(sys.argv[1]).read().split("\n")
batch = open(sys.argv[2]).read().split("\n")
def cols(title):
    return re.findall(r"\S+", title)
# batch: " Percent Samples Address T1 T2 ... Instruction", one name column
# (Trap) whose cell may hold spaces: cut by the titles' right edges.
bt = batch[1]
titles = cols(bt)[3:-1]
edges = [(t, bt.index(" " + t + " ") + 1) for t in titles]
want = {}
for l in batch[2:]:
    m = re.match(r"\s*\S+\s+\d+\s+([0-9a-f]+)\s", l)
    if m:
        want[m.group(1)] = {t: l[:e + len(t)].split()[-1] if t != "Trap" else None
                            for t, e in edges}
head = [l for l in view if l.startswith("Percent")]
if not head:
    print("not ok - no column titles:\n" + "\n".join(view)); sys.exit(1)
vt = cols(head[0].split("Instruction")[0])[2:]
if not vt or any(t not in titles for t in vt):
    print("not ok - view's payload titles %s, batch's %s" % (vt, titles)); sys.exit(1)
n = 0
for l in view:
    m = re.match(r"\s*([0-9.]+)?\s+([0-9a-f]+):\s+((?:\S+\s+){%d})" % len(vt), l)
    if not m or m.group(2) not in want:
        continue
    got = m.group(3).split()
    for t, g in zip(vt, got):
        if want[m.group(2)][t] not in (None, g):
            print("not ok - %s %s: %s, batch %s" % (m.group(2), t, g, want[m.group(2)][t]))
            sys.exit(1)
    n += 1
if n < 5:
    print("not ok - only %d instruction lines with payload cells" % n); sys.exit(1)
print(" ".join(vt))
PY
}

keys "clear; $ABS_PROFTOP -i $ABS_REC; echo EXIT=\$?" Enter
wait_for 'ENDED' "the recording read"
wait_for '\[\.\] alpha_hot' "alpha_hot's row"
keys a
wait_for '^Percent +Address: +Retired .* Instruction' "a: the ProfileMe columns"
n=$(sed -n '1s/.*bytes: \([0-9]*\) samples.*/\1/p' "$TMP/batch.txt")
wait_for "^Annotate alpha_hot +\\[alpha-code\\] +$n samples +14 instructions" "a: the title above them"
screen >"$TMP/view-120x40.txt"
titles=$(check_cols "$TMP/view-120x40.txt") || { echo "$titles"; exit 1; }
ok "120x40: columns $titles beside each instruction, the batch's values"

# The pane: the hottest instruction (selected on open), its counts.
python3 - "$TMP/view-120x40.txt" "$TMP/truth.json" <<'PY' || exit 1
import json, re, sys
view = open(sys.argv[1]).read()
truth = json.load(open(sys.argv[2]))["truth"]
m = re.search(r"^ProfileMe: alpha_hot\+0x[0-9a-f]+  ([0-9a-f]+):  .*$", view, re.M)
if not m:
    print("not ok - no ProfileMe pane for the selected instruction:\n" + view); sys.exit(1)
t = truth[str(int(m.group(1), 16))]
for what, key in (("samples", "samples"), ("retired", "retired"), ("killed", "killed"),
                  ("mispredicted", "mispredicted")):
    if not re.search(r"\b%s %d\b" % (what, t[key]), view):
        print("not ok - pane of %s: no '%s %d'" % (m.group(1), what, t[key])); sys.exit(1)
print("ok - the pane shows %s's breakdown: %d samples, %d retired" %
      (m.group(1), t["samples"], t["retired"]))
PY
keys I
wait_gone '^ProfileMe: alpha_hot' "I hides the pane"
keys I
wait_for '^ProfileMe: alpha_hot' "I shows the pane again"
ok "I hides and shows the pane"

# Enter on the loop's branch (beq, back to the loop's start) moves there.
keys End
wait_for '^ProfileMe: alpha_hot\+0x34 ' "End: the last instruction"
keys Up
wait_for '^ProfileMe: alpha_hot\+0x30 .*beq' "the loop's branch selected"
keys Enter
wait_for '^ProfileMe: alpha_hot\+0x10 ' "Enter follows beq to alpha_hot+0x10"
keys BSpace
wait_for '^ProfileMe: alpha_hot\+0x30 ' "Backspace returns to the branch"
ok "Enter follows the branch to its target, Backspace returns"

$T resize-window -t annpm -x 80 -y 24
wait_for '^Percent +Address: +Retired' "80x24: the view"
sleep 0.5
screen >"$TMP/view-80x24.txt"
python3 -c '
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
sys.exit(any(len(l) > 80 for l in lines))' "$TMP/view-80x24.txt" ||
	fail "80x24: a line wider than 80"
titles=$(check_cols "$TMP/view-80x24.txt") || { echo "$titles"; exit 1; }
grep -q '^ProfileMe: alpha_hot' "$TMP/view-80x24.txt" || fail "80x24: no pane"
ok "80x24: columns $titles, the pane, nothing wider than the screen"
keys q
wait_for '^EXIT=0$' "q quits"
