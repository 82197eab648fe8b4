# A printed refresh (--json, --stdio) waits for the kernel's symbols, which
# load on a thread of their own: the rings must be read meanwhile.  Joining
# that thread stopped the ingestion for as long as kallsyms took (5 s seen
# on a loaded machine), and a small ring then overflowed: samples lost.
# PROFTOP_TEST_KERNEL_DELAY_MS makes the kernel's thread that slow here.
# run-tests: alone (times or rates measured; see tests/run-tests.sh)
. tests/lib.sh
require_perf_events
[ "$(id -u)" -eq 0 ] || skip "system-wide sampling needs root"

start_workload 0
ncpu=$(getconf _NPROCESSORS_ONLN)
# -m 1 at 1000 Hz: one page of ring per CPU holds ~0.1 s of samples.
PROFTOP_TEST_KERNEL_DELAY_MS=3000 timeout 60 "$PROFTOP" -a --json -n 2 -d 0.5 -m 1 -F 1000 \
	>"$TMP/out.json" 2>"$TMP/err" || fail "proftop failed: $(cat "$TMP/err")"
json_check "$TMP/out.json" 'snaps[0]["time"] >= 2.9' ||
	fail "the first printed refresh did not wait for the kernel's symbols"
ok "the printed refresh waits for the kernel's symbols"
json_check "$TMP/out.json" 'any(r["kernel"] and r.get("symbol") not in (None, "[unknown]") for r in snaps[0]["rows"])' ||
	fail "no named kernel row in the first refresh"
ok "kernel rows named in the first refresh"
# cpu-clock fires on every CPU, busy or idle: 1000 a second each.
json_check "$TMP/out.json" "all(s['total_samples'] >= 0.5 * s['time'] * 1000 * $ncpu for s in snaps)" ||
	fail "samples not read while the kernel's symbols loaded: $(python3 -c "
import json; d = [json.loads(l) for l in open('$TMP/out.json')][-1]
print(d['total_samples'], 'samples,', d['lost'], 'lost in', d['time'], 's')")"
ok "rings read while waiting (no overflow)"
