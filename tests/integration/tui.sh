# The interactive browser driven through tmux: start proftop on the
# workload in a 120x40 pane, check the header and the top rows, press keys
# (sort, filter, expand, zoom, help, resize to 80x24, pause, save, zero)
# and check the screen after each; q, a command's end and SIGTERM all give
# the shell's screen back.  Every wait polls the pane with a timeout.
. tests/lib.sh
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (./configure --install-deps)"
require_perf_events

ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
ABS_WORKLOAD=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")
ABS_TMP=$(cd "$TMP" && pwd)

# A shell in a 120x40 pane, in the test's directory (P writes there).
tmux_start tui 120 40 "$ABS_TMP" || skip "tmux cannot start a session here"
keys "clear; echo SHELL-BEFORE; $ABS_PROFTOP -g -d 0.5 -- $ABS_WORKLOAD 0; echo EXIT=\$?" Enter

# Header and table.
wait_for '^proftop  event ' "header line 1"
wait_for 'target: command .*workload' "target in the header"
wait_for '^Samples: [0-9]+ \([0-9]+/s\)  lost: 0  throttled: 0  user ' "counters in the header"
wait_for 'Children +Self +Samples +Command +Shared Object +Symbol' "column titles"
wait_for '\[\.\] leaf_c' "the workload's leaves"
ok "header and column titles at 120x40"
# The leaves in the workload's order (children = self for a leaf).
i=0
while [ "$(screen | grep -o -E '\[\.\] (leaf_[abc]|lib_leaf)$' | tr '\n' ' ')" != \
	"[.] leaf_a [.] leaf_b [.] lib_leaf [.] leaf_c " ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "leaf order: $(screen | grep -E 'leaf')"
	sleep 0.1
done
screen | grep -E '[0-9]+\.[0-9]{2}% +[0-9]+\.[0-9]{2}% +[0-9]+ +workload +workload +\[\.\] leaf_a$' >/dev/null ||
	fail "leaf_a row: $(screen | grep leaf_a)"
ok "top rows: leaf_a > leaf_b > lib_leaf > leaf_c, right-aligned numbers"

# Sort column.
keys s
wait_for '^Sort: Self ' "s sorts by the next column"
keys '>'
wait_for '^Sort: Samples ' "> sorts by the next column"
keys '<' '<'
wait_for '^Sort: Children ' "< goes back"
ok "sort keys s > <"

# Filter.
keys / l e a f _ b Enter
wait_for 'Filter: leaf_b' "filter in the header"
wait_gone '\[\.\] leaf_a$' "filter hides leaf_a"
wait_for '\[\.\] leaf_b$' "filter keeps leaf_b"
ok "/leaf_b filters"

# Expand the selected entry's callers.
keys Enter
wait_for '^-  ' "expanded row marked -"
wait_for '[->v] [0-9.]+% \[\.\] main  workload' "leaf_b's caller main"
keys G
wait_for 'trees show callees' "G toggles callers/callees"
keys G C
wait_gone '% \[\.\] main  workload' "C collapses"
ok "callchain expansion (Enter, G, C)"

# Clear the filter: the selection stays on leaf_b.
keys / Enter
wait_for 'filter cleared' "empty filter clears"
wait_for '\[\.\] leaf_a$' "leaf_a back"
# Zoom into the shared object of the selected row (leaf_b: workload).
keys d
wait_for 'Zoom DSO: workload' "d zooms into the DSO"
wait_gone 'libworkload\.so +\[\.\] lib_leaf' "zoom hides other DSOs"
keys Escape
wait_gone 'Zoom DSO' "Esc zooms out"
wait_for 'lib_leaf$' "lib_leaf back after zoom out"
keys t
wait_for 'Zoom command: workload' "t zooms into the command"
keys Left
wait_gone 'Zoom command' "Left zooms out"
ok "zoom d/t and Esc/Left"

# Hide kernel rows.
keys K
wait_for 'kernel hidden' "K hides the kernel"
wait_gone '\[k\] ' "no kernel rows"
keys K
wait_gone 'kernel hidden' "K again shows the kernel"
ok "K hides kernel rows"

# Help, generated from the key table.
keys h
wait_for '^Keys \(perf top / htop\)' "help screen"
wait_for 'q Ctrl-C +Quit' "help lists q"
wait_for '/ +Filter symbols' "help lists /"
keys q
wait_gone '^Keys \(perf top' "q closes the help"
wait_for 'Shared Object' "table after help"
ok "help screen"

# Resize to 80x24: everything still fits, the status line at the bottom.
$T resize-window -t tui -x 80 -y 24
wait_for '^ +Children +Self +Samples +Command +Shared' "titles at 80 columns" 
[ "$(screen | wc -l)" -eq 24 ] || fail "pane is not 24 lines"
# (the status line shows a captured message for a few seconds first)
i=0
until screen | sed -n '24p' | grep -q 'h help'; do
	i=$((i + 1))
	[ $i -lt 150 ] || fail "status line not on line 24: $(screen | sed -n 24p)"
	sleep 0.1
done
screen | sed -n '1p' | grep -q '^proftop' || fail "header not on line 1 after resize"
wait_for 'leaf_a$' "leaf_a at 80x24"
ok "resize to 80x24"
$T resize-window -t tui -x 120 -y 40

# Pause: the header says so and the table stops changing.
keys p
wait_for 'PAUSED: sampling goes on' "p pauses"
a=$(screen | sed -n 2p)
sleep 1.2
b=$(screen | sed -n 2p)
[ "$a" = "$b" ] || fail "paused header changed: '$a' -> '$b'"
keys Space
wait_gone 'PAUSED' "Space resumes"
ok "pause and resume"

# z, P.
keys z
wait_for 'refresh 0.5s  zero' "z: zeroing"
keys z
wait_for 'refresh 0.5s  decay' "z again: decay"
keys P
wait_for 'table written to ./proftop.hist.0' "P names its file"
grep -q 'leaf_a' "$TMP/proftop.hist.0" || fail "proftop.hist.0 lacks leaf_a"
ok "z toggles zeroing, P writes the table"

# q restores the shell's screen and exits 0.
keys q
wait_for '^EXIT=0$' "exit status 0 after q"
screen | grep -q '^SHELL-BEFORE$' || fail "the shell's screen is not back"
screen | grep -q 'Shared Object' && fail "the table is still on screen"
ok "q exits 0 and restores the screen"

# A command that ends: with the default (--exit-on-end) proftop leaves
# with the command's status; with --no-exit-on-end the table stays.
keys "clear; $ABS_PROFTOP -d 0.3 -- sh -c '$ABS_WORKLOAD 1 >/dev/null; exit 3'; echo EXIT=\$?" Enter
wait_for '^EXIT=3$' "exit on end with the command's status" 200
ok "command end: exits with its status"
keys "clear; $ABS_PROFTOP --no-exit-on-end -d 0.3 -- $ABS_WORKLOAD 1; echo EXIT=\$?" Enter
wait_for 'the command ended \(exit status 0\)' "end message" 200
wait_for 'ENDED' "ENDED in the header"
wait_for 'leaf_a$' "last table kept"
keys q
wait_for '^EXIT=0$' "q after the end"
ok "--no-exit-on-end keeps the last table"

# SIGTERM from outside restores the terminal too.
keys "clear; sh -c 'echo \$\$ >tui.pid; exec $ABS_PROFTOP -d 0.3 -- $ABS_WORKLOAD 0'; echo EXIT=\$?" Enter
wait_for 'Shared Object' "table before SIGTERM"
kill -TERM "$(cat "$TMP/tui.pid")"
wait_for '^EXIT=[0-9]+$' "proftop ends on SIGTERM"
screen | grep -q 'Shared Object' && fail "table left on screen after SIGTERM"
ok "SIGTERM restores the terminal"

# NO_COLOR and --no-color still draw the table.
keys "clear; NO_COLOR=1 $ABS_PROFTOP --no-color -d 0.3 -- $ABS_WORKLOAD 0; echo EXIT=\$?" Enter
wait_for 'leaf_a$' "monochrome table"
keys q
wait_for '^EXIT=0$' "monochrome quit"
ok "monochrome"

# Not a terminal: the batch table with a notice.
"$PROFTOP" -d 0.3 -- "$WORKLOAD" 1 >"$TMP/batch.out" 2>"$TMP/batch.err" ||
	fail "non-terminal run failed: $(cat "$TMP/batch.err")"
grep -q 'not a terminal' "$TMP/batch.err" || fail "no notice: $(cat "$TMP/batch.err")"
grep -q 'Overhead' "$TMP/batch.out" || fail "no batch table"
ok "not a terminal: batch with a notice"
