# The browser at 80x24 (tmux): the symbol column keeps its room.  Command
# and Shared Object fit their content and give way first, down to their
# titles, so that the top rows' whole symbol names show, the title line
# and the header still fit, and nothing runs past the right edge.
. tests/lib.sh
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (./configure --install-deps)"
require_perf_events

CALLERS=${CALLERS:-tests/helpers/callers}
[ -x "$CALLERS" ] || fail "$CALLERS is not built (make tests/helpers/callers)"
ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
ABS_CALLERS=$(cd "$(dirname "$CALLERS")" && pwd)/$(basename "$CALLERS")
ABS_WORKLOAD=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")

tmux_start narrow 80 24 || skip "tmux cannot start a session here"

# wider COLS: the pane's lines wider than COLS characters ("…" is one).
wider() { screen | sed 's/…/./g' | awk -v w="$1" 'length($0) > w'; }

# With callers (-g): a gutter, Children, Self and Samples, then the three
# names; libc's __libc_start_call_main is the longest of the top rows.
keys "clear; $ABS_PROFTOP -g -d 0.5 -- $ABS_CALLERS; echo EXIT=\$?" Enter
wait_for '^ +Children +Self +Samples +Command +Shared Object +Symbol$' "whole titles at 80"
for sym in __libc_start_call_main main cc_leaf parent_x parent_y; do
	wait_for " callers +[^ ]+ +\[\.\] $sym\$" "$sym whole at 80 columns"
done
# The first rows are those five: no name in them is cut.
screen | sed -n '5,9p' | grep '…' && fail "a top row is cut: $(screen | sed -n '5,9p')"
screen | grep -q -E ' callers +libc\.so\.6 +\[\.\] __libc_start_call_main$' ||
	fail "libc.so.6 cut or misplaced: $(screen | grep __libc_start_call_main)"
[ -z "$(wider 80)" ] || fail "-g at 80x24: lines wider than 80: $(wider 80)"
ok "-g at 80x24: the top rows' symbols whole, Command and Shared Object fit"
keys q
wait_for '^EXIT=0$' "q exits"

# Without callers: the workload's leaves and their objects whole.
keys "clear; $ABS_PROFTOP -d 0.5 -- $ABS_WORKLOAD 0; echo EXIT=\$?" Enter
wait_for '^ +Self +Samples +Command +Shared Object +Symbol$' "titles without -g"
wait_for ' workload +libworkload\.so +\[\.\] lib_leaf$' "lib_leaf and its library whole"
for sym in leaf_a leaf_b leaf_c; do
	wait_for " workload +workload +\[\.\] $sym\$" "$sym whole"
done
[ -z "$(wider 80)" ] || fail "80x24: lines wider than 80: $(wider 80)"
ok "80x24 without -g: names whole"

# Narrower still (60 columns): the symbol keeps at least its minimum and
# no line runs past the edge; Command and Shared Object are cut first.
$T resize-window -t narrow -x 60 -y 24
wait_for '^ +Self +Samples +Comm' "titles at 60 columns"
wait_for '\[\.\] leaf_a$' "leaf_a whole at 60 columns"
[ -z "$(wider 60)" ] || fail "lines wider than 60: $(wider 60)"
ok "60 columns: the symbol keeps its room"
keys q
wait_for '^EXIT=0$' "q exits"
