# [vdso] code named from our own vdso image: tests/helpers/oddcode vdso calls
# clock_gettime and time in a loop.  Live, and with -i on a perf recording
# of this kernel; the names must be the ones perf report gives.
. tests/lib.sh
require_perf_events
ODD=tests/helpers/oddcode
[ -x "$ODD" ] || fail "$ODD not built"
grep -q '\[vdso\]' /proc/self/maps || skip "no vdso in this system"

# vdso_names FILE: "name share" of the [vdso] rows of the last snapshot.
vdso_names() {
	python3 - "$1" <<'PY'
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
for r in snaps[-1]["rows"]:
    if r.get("dso") == "[vdso]":
        print("%s %.2f" % (r.get("symbol"), r["self"]))
PY
}

"$PROFTOP" --json -d 1 --accumulate -- "$ODD" vdso 2 >"$TMP/live.json" 2>"$TMP/err" ||
	fail "proftop: $(cat "$TMP/err")"
vdso_names "$TMP/live.json" >"$TMP/live.names"
echo "# live [vdso] rows: $(tr '\n' ' ' <"$TMP/live.names")"
grep -q '^__vdso_clock_gettime ' "$TMP/live.names" || fail "live: no [vdso] __vdso_clock_gettime row"
ok "live: [vdso] __vdso_clock_gettime named"

command -v perf >/dev/null || skip "perf not installed: no comparison"
perf record -q -e cpu-clock -o "$TMP/perf.data" -- "$ODD" vdso 2 >/dev/null 2>"$TMP/perf.err" ||
	skip "perf record failed: $(tail -1 "$TMP/perf.err")"
perf report -i "$TMP/perf.data" --stdio --sort dso,sym 2>/dev/null |
	awk '$2 == "[vdso]" && $4 !~ /^0x/ {print $4, $1}' | tr -d '%' >"$TMP/perf.names"
"$PROFTOP" -i "$TMP/perf.data" --json >"$TMP/replay.json" 2>"$TMP/err" || fail "proftop -i: $(cat "$TMP/err")"
vdso_names "$TMP/replay.json" >"$TMP/replay.names"
echo "# perf report [vdso]: $(tr '\n' ' ' <"$TMP/perf.names")"
echo "# proftop -i  [vdso]: $(tr '\n' ' ' <"$TMP/replay.names")"
python3 - "$TMP/perf.names" "$TMP/replay.names" <<'PY' || exit 1
import sys
def load(p):
    d = {}
    for l in open(p):
        name, share = l.split()
        if name != "[unknown]":
            d[name] = d.get(name, 0) + float(share)
    return d
perf, ours = load(sys.argv[1]), load(sys.argv[2])
if "__vdso_clock_gettime" not in perf:
    print("not ok - perf names no __vdso_clock_gettime: %s" % perf); sys.exit(1)
if set(perf) != set(ours):
    print("not ok - [vdso] names differ: perf %s, proftop %s" % (sorted(perf), sorted(ours))); sys.exit(1)
for n in perf:
    if abs(perf[n] - ours[n]) > 1.0:
        print("not ok - %s: perf %.2f%%, proftop %.2f%%" % (n, perf[n], ours[n])); sys.exit(1)
print("ok - -i: the [vdso] names and shares of perf report (within 1 point)")
PY
