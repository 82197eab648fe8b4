# perf keeps working while proftop samples: on kernels that leak the MMAP2
# build-ID flag into other events, proftop must not ask for build IDs
# (perf 6.1 crashes on the records it then gets).
. tests/lib.sh
require_perf_events
command -v perf >/dev/null || skip "perf not installed"
[ "$(id -u)" -eq 0 ] || skip "needs root for system-wide sampling"
perf record -q -o "$TMP/alone.data" -- true >/dev/null 2>&1 ||
	skip "perf record does not work here even alone"

"$PROFTOP" -a --json -d 30 -n 1 >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
sleep 1
perf record -o "$TMP/both.data" -- "$WORKLOAD" 0.5 >"$TMP/perf.out" 2>&1 ||
	fail "perf record failed while proftop ran: $(tail -2 "$TMP/perf.out")"
ok "perf record works while proftop samples system-wide"
"$PROFTOP" -i "$TMP/both.data" --json >"$TMP/both.json" 2>"$TMP/err" ||
	fail "proftop -i on that recording: $(cat "$TMP/err")"
json_check "$TMP/both.json" '[r for r in snaps[0]["rows"] if not r["kernel"]][0]["symbol"] == "leaf_a"' ||
	fail "the recording made beside proftop resolves: $(cut -c1-300 "$TMP/both.json")"
ok "and its recording resolves"
