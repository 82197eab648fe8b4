# System-wide sampling (as root): the workload's leaves and kernel symbols.
. tests/lib.sh
require_perf_events
[ "$(id -u)" -eq 0 ] || skip "system-wide sampling needs root"

start_workload 0
"$PROFTOP" --json -n 2 -d 1 -s comm,dso,sym >"$TMP/out.json" 2>"$TMP/err" ||
	fail "proftop system-wide failed: $(cat "$TMP/err")"
json_check "$TMP/out.json" 'any(r.get("symbol") == "leaf_a" and r.get("comm") == "workload" for r in snaps[-1]["rows"])' ||
	fail "leaf_a of workload not in the system-wide table"
ok "workload seen system-wide"
json_check "$TMP/out.json" 'any(r["kernel"] and r.get("dso") == "[kernel.kallsyms]" and r.get("symbol") != "[unknown]" for r in snaps[-1]["rows"])' ||
	fail "no named kernel symbol in the system-wide table"
ok "kernel symbols resolved"
json_check "$TMP/out.json" 'snaps[-1]["target"] == "system-wide" and snaps[-1]["sample_freq"] == 4000' || fail "header fields"
ok "header fields"

# -C: one CPU only.
"$PROFTOP" --json -n 1 -d 1 -C 0 -s cpu >"$TMP/cpu.json" 2>"$TMP/err" || fail "-C 0: $(cat "$TMP/err")"
json_check "$TMP/cpu.json" 'all(r["cpu"] == 0 for r in snaps[-1]["rows"]) and len(snaps[-1]["rows"]) >= 1' || fail "-C 0 -s cpu rows"
ok "-C 0 samples only CPU 0"

# -K hides kernel rows.
"$PROFTOP" --json -n 1 -d 1 -K >"$TMP/k.json" 2>"$TMP/err" || fail "-K: $(cat "$TMP/err")"
json_check "$TMP/k.json" 'not any(r["kernel"] for r in snaps[-1]["rows"])' || fail "-K left kernel rows"
ok "-K"

# cycles falls back to cpu-clock where the CPU has no counter, and says so.
"$PROFTOP" --json -n 1 -d 0.5 -e cycles >"$TMP/cyc.json" 2>"$TMP/err" || fail "-e cycles: $(cat "$TMP/err")"
if json_check "$TMP/cyc.json" 'snaps[0]["event"] == "cpu-clock"'; then
	json_check "$TMP/cyc.json" '"cpu-clock" in snaps[0]["event_note"]' || fail "fallback not noted"
	grep -q "cycles not supported" "$TMP/err" || fail "fallback notice on stderr"
	ok "cycles -> cpu-clock fallback noted"
else
	ok "cycles supported here"
fi
