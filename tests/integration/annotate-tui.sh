# The browser's per-instruction view (a), through tmux: a on the hottest
# row of the workload (leaf_a) shows its loop with the hottest instruction
# selected; p pauses it; TAB moves to the next hottest; t, o and s toggle; Esc gives
# the table back on the same row.  Then with -g at 80x24: a on main (a row
# with no samples of its own), Enter on its call to leaf_a opens leaf_a,
# Backspace comes back to the call, and every line fits the screen.  And
# a recording (-i): a opens leaf_a with all its samples (the row's).  The
# 120x40 view is kept in $TMP/view-120x40.txt.
. tests/lib.sh
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (./configure --install-deps)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
grep -q 'define HAVE_CAPSTONE 1' config.h 2>/dev/null ||
	skip "built without Capstone: the view shows raw bytes"
require_perf_events

ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
ABS_WORKLOAD=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")

tmux_start ann 120 40 || skip "tmux cannot start a session here"
colour() { $T capture-pane -p -e -t "$TMUX_SESSION"; }

# sel: the selected line of the view (reverse video), without escapes.
sel() {
	colour | python3 -c '
import re, sys
for line in sys.stdin.read().split("\n")[4:-2]:
    if re.search(r"\x1b\[[0-9;]*7m", line):
        print(re.sub(r"\x1b\[[0-9;]*m", "", line)); break'
}

# check_view WHAT: the selected line is the hottest on screen and inside
# the loop (from the backward jump's target to the jump); prints its
# address.
check_view() {
	colour >"$TMP/view.txt"
	python3 - "$TMP/view.txt" "$1" <<'PY' || exit 1
import re, sys
text = open(sys.argv[1]).read().split("\n")
what = sys.argv[2]
lines, sel = [], None
for raw in text[4:-2]:
    plain = re.sub(r"\x1b\[[0-9;]*m", "", raw)
    m = re.match(r"\s*([0-9.]+)?\s+([0-9a-f]+):  (.*)$", plain)
    if not m:
        continue
    item = (float(m.group(1) or 0), int(m.group(2), 16), m.group(3))
    lines.append(item)
    if re.search(r"\x1b\[[0-9;]*7m", raw):
        sel = item
if not lines or sel is None:
    print("not ok - %s: no view or no selection:\n%s" % (what, "\n".join(text))); sys.exit(1)
back = [(int(re.search(r"j\w+ 0x([0-9a-f]+)", t).group(1), 16), a) for _, a, t in lines
        if re.match(r"j\w+ 0x[0-9a-f]+  <leaf_a\+0x[0-9a-f]+>$", t)
        and int(re.search(r"0x([0-9a-f]+)", t).group(1), 16) < a]
if len(back) != 1:
    print("not ok - %s: backward jumps %s" % (what, back)); sys.exit(1)
lo, hi = back[0]
top = max(p for p, _, _ in lines)
if sel[0] != top or not lo <= sel[1] <= hi or top < 10:
    print("not ok - %s: selected %s, hottest %.2f, loop 0x%x-0x%x" % (what, sel, top, lo, hi))
    sys.exit(1)
print("%x" % sel[1])
PY
}

keys "clear; $ABS_PROFTOP -d 1 -- $ABS_WORKLOAD 0; echo EXIT=\$?" Enter
wait_for '\[\.\] leaf_a$' "the table"
i=0
until screen | sed -n 5p | grep -q '\[\.\] leaf_a$'; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "leaf_a is not the first row: $(screen | sed -n 5p)"
	sleep 0.1
done
keys a
wait_for '^Percent +Address: +Instruction +Annotate leaf_a +\[workload\] +[0-9]+ samples' "a: the view's title"
# A few refreshes (over 1000 samples), then paused: the heat order stays.
wait_for 'Annotate leaf_a +\[workload\] +[0-9]{4,} samples' "a: leaf_a's samples" 100
keys p
wait_for 'display paused' "p pauses the view"
hot=$(check_view "a on leaf_a") || { echo "$hot"; exit 1; }
ok "a on the hottest row: leaf_a's loop, the hottest line (0x$hot) selected"
screen >"$TMP/view-120x40.txt"

keys Tab
sleep 0.3
after=$(sel)
case "$after" in
*" $hot:  "*) fail "TAB did not move: $after" ;;
"") fail "TAB: no selection" ;;
esac
# TAB goes down the heat order: the new line is not hotter.
python3 -c '
import re, sys
a = float(sys.argv[1].split()[0]); print("ok" if a > 0 else "cold")' "$after" | grep -q ok ||
	fail "TAB went to a cold line: $after"
keys BTab
sleep 0.3
sel | grep -q " $hot:  " || fail "Shift-TAB did not come back to 0x$hot: $(sel)"
ok "TAB moves to the next hot instruction, Shift-TAB back"

keys t
wait_for '^Samples +Address: +Instruction' "t: the Samples column"
wait_for '^ +[0-9]+ +[0-9a-f]+:  ' "t: counts"
keys o
wait_for '^Samples +Offset: +Instruction' "o: the Offset column"
wait_for '^ +0:  pushq? +%rbp' "o: offsets from the function start"
keys t o
wait_for '^Percent +Address: ' "t and o again"
keys s
wait_for 'source lines shown' "s toggles the source lines"
# The loop's body, from workload.c (leaf_a's is the first), above its
# instructions; the same instruction stays selected.
body=$(grep -n '6364136223846793005ULL' tests/helpers/workload.c | head -1 | cut -d: -f1)
[ -n "$body" ] || fail "no loop body in tests/helpers/workload.c"
wait_for "^ {18}workload\\.c:$body  +v = v \\* 6364136223846793005ULL \\+ 1442695040888963407ULL;\$" \
	"s: the loop's source line"
sel | grep -q " $hot:  " || fail "s moved the selection: $(sel)"
screen >"$TMP/view-source-120x40.txt"
keys s
wait_gone "^ {18}workload\\.c:$body " "s hides the source lines"
ok "t, o and s toggle"

keys Escape
wait_for '^ +Self +Samples +Command' "Esc: the table"
screen | sed -n 5p | grep -q '\[\.\] leaf_a$' || fail "Esc: another row first: $(screen | sed -n 5p)"
colour | sed -n 5p | grep -q '7m' || fail "Esc: leaf_a's row not selected"
ok "Esc returns to the table, leaf_a still selected"
keys q
wait_for '^EXIT=0$' "q quits"

# -g, 80x24: main, then its call to leaf_a.
$T resize-window -t ann -x 80 -y 24
keys "clear; $ABS_PROFTOP -g -d 1 -- $ABS_WORKLOAD 0; echo EXIT=\$?" Enter
wait_for '\[\.\] main *$' "main among the rows"
keys / m a i n Enter
wait_for 'Filter: main' "filter main"
i=0
until colour | grep '7m' | grep -q '\[\.\] main\b'; do
	keys Down
	i=$((i + 1))
	[ $i -lt 10 ] || fail "no main row to select: $(screen)"
	sleep 0.2
done
keys a
wait_for '^Percent +Address: +Instruction +Annotate main +\[workload\]' "a on main" 50
# main may have a self sample or two by now (its loop calls now()): then
# its hottest line is selected, and the first may be off the screen.
keys Home
wait_for '^ +[0-9a-f]+:  pushq? +%rbp' "main's instructions" 50
i=0
until sel | grep -q '<leaf_a>$'; do
	keys Down
	i=$((i + 1))
	[ $i -lt 200 ] || fail "no call to leaf_a reached: $(screen)"
	sleep 0.05
done
call=$(sel | sed 's/^ *//; s/:.*//')
keys Enter
wait_for 'Annotate leaf_a +\[workload\]' "Enter on the call opens leaf_a"
keys BSpace
wait_for 'Annotate main +\[workload\]' "Backspace: main again"
sleep 0.3
sel | grep -q "$call:  callq\? .*<leaf_a>" || fail "Backspace: not back on the call: $(sel)"
ok "Enter on a call opens the callee, Backspace returns to the call"

# 80x24: the title, 19 instruction lines and the status, none past 80.
screen >"$TMP/view-80x24.txt"
[ "$(wc -l <"$TMP/view-80x24.txt")" -le 24 ] || fail "80x24: more than 24 lines"
python3 -c 'import sys; sys.exit(any(len(l) > 80 for l in
	open(sys.argv[1], encoding="utf-8").read().split("\n")))' "$TMP/view-80x24.txt" ||
	fail "80x24: a line wider than 80"
[ "$(grep -c -E '^ +[0-9.]* +[0-9a-f]+:  ' "$TMP/view-80x24.txt")" -eq 19 ] ||
	fail "80x24: not 19 instruction lines: $(cat "$TMP/view-80x24.txt")"
sed -n 24p "$TMP/view-80x24.txt" | grep -q '^Esc table' || fail "80x24: no status line"
ok "80x24: 19 instructions, the title and the keys, nothing cut off"
keys q
wait_for '^EXIT=0$' "q quits"

# A recording: every function's addresses are kept while it is read, so
# a shows leaf_a's samples at once, as many as its row has.
if command -v perf >/dev/null 2>&1 &&
	timeout 60 perf record -q -F 2000 -e cpu-clock -o "$TMP/rec.data" -- "$WORKLOAD" 1 \
		>/dev/null 2>&1; then
	ABS_REC=$(cd "$TMP" && pwd)/rec.data
	$T resize-window -t ann -x 120 -y 40
	keys "clear; $ABS_PROFTOP -i $ABS_REC; echo EXIT=\$?" Enter
	wait_for 'ENDED' "the recording read"
	wait_for '\[\.\] leaf_a$' "leaf_a's row"
	n=$(screen | sed -n 5p | awk '$NF == "leaf_a" { print $2 }')
	[ -n "$n" ] && [ "$n" -gt 100 ] || fail "-i: leaf_a is not the first row: $(screen | sed -n 5p)"
	keys a
	wait_for "Annotate leaf_a +\\[workload\\] +$n samples" "-i: a shows leaf_a's $n samples" 30
	hot=$(check_view "-i: a on leaf_a") || { echo "$hot"; exit 1; }
	ok "-i: a opens leaf_a with its row's $n samples, the hottest (0x$hot) selected"
	keys q
	wait_for '^EXIT=0$' "q quits"
else
	echo "# no perf record here: the recording part is skipped"
fi
