# The browser's header with --call-graph dwarf: the unwind line (outcome
# shares) below the three usual lines, and with rings too small for the
# stack copies (-m 8: 32 KiB, three 8 KiB copies) the rings line with the
# -m to use; the table starts below them, and a fp run without the need
# for a hint has neither.
. tests/lib.sh
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (./configure --install-deps)"
require_perf_events
NOFP=${NOFP:-tests/helpers/nofp}
[ -x "$NOFP" ] || skip "make tests/helpers/nofp first"

ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
ABS_NOFP=$(cd "$(dirname "$NOFP")" && pwd)/$(basename "$NOFP")
ABS_WORKLOAD=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")
ABS_TMP=$(cd "$TMP" && pwd)

tmux_start unwindtui 120 40 "$ABS_TMP" || skip "tmux cannot start a session here"
keys "clear; $ABS_PROFTOP --call-graph dwarf -m 8 -d 0.5 -- $ABS_NOFP 0; echo EXIT=\$?" Enter
wait_for '^unwind: dwarf [0-9]+ chains  root [0-9.]+%' "the unwind line"
wait_for '^rings: 32 KiB per CPU, too small for 8 KiB stack copies at this rate: -m [0-9]+' \
	"the rings line"
# Line 4 and 5 (the first four of the screen: header, counters, sort,
# unwind; then rings), the column titles right after.
s=$(screen)
[ "$(echo "$s" | sed -n 4p | cut -c1-14)" = "unwind: dwarf " ] ||
	fail "unwind line not the 4th: $(echo "$s" | head -6)"
[ "$(echo "$s" | sed -n 5p | cut -c1-6)" = "rings:" ] ||
	fail "rings line not the 5th: $(echo "$s" | head -6)"
echo "$s" | sed -n 6p | grep -q -E 'Children +Self' ||
	fail "column titles not below the header: $(echo "$s" | head -7)"
m=$(echo "$s" | sed -n 's/^rings: .* -m \([0-9]*\)$/\1/p')
[ "$m" -gt 8 ] && [ $((m & (m - 1))) -eq 0 ] || fail "-m $m: not a power of 2 above 8"
keys q
wait_for '^EXIT=0$' "quit"
ok "browser header: unwind line and rings line (-m $m) above the table"

# Frame pointers that reach a root: no extra line.
keys "clear; $ABS_PROFTOP -g -d 0.5 -- $ABS_WORKLOAD 0; echo EXIT=\$?" Enter
wait_for 'Children +Self' "fp table"
sleep 1.2
s=$(screen)
echo "$s" | grep -q -E '^(unwind|rings):' && fail "extra header line with fp: $(echo "$s" | head -5)"
echo "$s" | sed -n 4p | grep -q -E 'Children +Self' || fail "titles moved: $(echo "$s" | head -5)"
keys q
wait_for '^EXIT=0$' "quit fp"
ok "frame pointers reaching a root: the three header lines only"

# JSON says what the rings line says: rings_too_small, with the same -m
# (a power of 2 above 8), and no such key with rings left at their size.
"$PROFTOP" --call-graph dwarf -m 8 --json -d 0.5 -- "$NOFP" 2 >"$TMP/small.json" 2>"$TMP/small.err" ||
	fail "json run: $(cat "$TMP/small.err")"
python3 - "$TMP/small.json" <<'PY' || fail "rings_too_small: $(tail -c 600 "$TMP/small.json")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
r = [o["rings_too_small"] for o in rows if "rings_too_small" in o]
assert r, "no rings_too_small"
m = r[-1]["suggest_mmap_pages"]
assert r[-1]["kib_per_cpu"] == 32 and r[-1]["stack_copy"] == 8192, r[-1]
assert m > 8 and m & (m - 1) == 0, m
PY
"$PROFTOP" --call-graph dwarf --json -d 0.5 -- "$NOFP" 1 >"$TMP/roomy.json" 2>&1 || fail "json run, default rings"
grep -q rings_too_small "$TMP/roomy.json" && fail "rings_too_small with the default rings"
ok "JSON: rings_too_small with -m 8, none with the default rings"
