# Recordings made by perf record, replayed by proftop -i and by perf report:
# the same top symbols with shares within 0.5 points (both are percent of
# the total period).  Skipped where perf or sampling is unavailable.
. tests/lib.sh

command -v perf >/dev/null 2>&1 || skip "perf is not installed"
perf record -q -o "$TMP/probe.data" -e cpu-clock -F 999 -- true >/dev/null 2>&1 ||
	skip "perf record cannot sample here"

# compare NAME FILE: perf's and proftop's top rows must agree.
compare() {
	name=$1
	file=$2
	perf report -i "$file" --stdio --no-children --sort dso,sym 2>/dev/null >"$TMP/$name.perf" ||
		fail "$name: perf report failed"
	"$PROFTOP" -i "$file" --json >"$TMP/$name.json" 2>"$TMP/$name.err" ||
		fail "$name: proftop -i exit status $? ($(cat "$TMP/$name.err"))"
	python3 - "$name" "$TMP/$name.perf" "$TMP/$name.json" <<'PY' || exit 1
import json, re, sys
name, perf_out, pt_out = sys.argv[1:4]
perf = {}
for line in open(perf_out):
    m = re.match(r'^\s+([0-9.]+)%\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$', line)
    if m:
        sym = m.group(4)
        # perf lists unresolved addresses one by one; proftop as one row.
        if re.match(r'^0x[0-9a-f]+$', sym):
            sym = "[unknown]"
        key = (m.group(2), sym)
        perf[key] = perf.get(key, 0) + float(m.group(1))
snap = [json.loads(l) for l in open(pt_out) if l.strip()][-1]
ours = {}
for r in snap["rows"]:
    if r["self"] > 0:
        key = (r["dso"], r.get("symbol", "[unknown]"))
        # perf shows code without symbols as raw addresses, proftop as the
        # CFI function (sub_<hex>): compared in cfinames.sh, one here.
        if r.get("synthetic"):
            key = (r["dso"], "[unknown]")
        ours[key] = ours.get(key, 0) + r["self"]
def top(d):
    return sorted(d.items(), key=lambda kv: -kv[1])[:10]
print("# %s: %d samples; top symbols (perf report / proftop):" % (name, snap["samples"]))
for k, v in top(perf):
    print("#   %-24s %-36s %6.2f%% %6.2f%%" % (k[0], k[1], v, ours.get(k, 0)))
bad, notes = [], []
# Rows under 0.5% tie with many others: their rank is noise, not a difference.
# Unresolved addresses are noted, not compared: perf files them by map (and
# files JIT code in anonymous maps, e.g. valgrind's, under the process's
# main binary), proftop under the anonymous map itself.
def judge(k, msg):
    (notes if k[1] == "[unknown]" else bad).append(msg)
for k, v in top(perf):
    if v >= 0.5 and abs(v - ours.get(k, 0)) > 0.5:
        judge(k, "%s %s: perf %.2f%%, proftop %.2f%%" % (k[0], k[1], v, ours.get(k, 0)))
for k, v in top(ours):
    if v >= 1.0 and abs(v - perf.get(k, 0)) > 0.5:
        judge(k, "%s %s: proftop %.2f%%, perf %.2f%%" % (k[0], k[1], v, perf.get(k, 0)))
for n in sorted(set(notes)):
    print("# note: unresolved rows differ: " + n)
if not perf:
    bad.append("perf report showed no rows")
if bad:
    print("not ok - %s: %s" % (name, "; ".join(sorted(set(bad)))))
    sys.exit(1)
print("ok - %s: the same top symbols as perf report, within 0.5 points" % name)
PY
}

rec() {
	name=$1
	shift
	perf record -q -o "$TMP/$name.data" -F 999 -e cpu-clock "$@" >/dev/null 2>"$TMP/$name.rec" ||
		fail "$name: perf record $*: $(cat "$TMP/$name.rec")"
	compare "$name" "$TMP/$name.data"
}

rec command -- "$WORKLOAD" 2
rec command-g -g -- "$WORKLOAD" 2
start_workload 0
rec pid -p "$WL_PID" -- sleep 2
rec pid-g -g -p "$WL_PID" -- sleep 2
if perf record -q -o "$TMP/probe.data" -a -e cpu-clock -F 99 -- true >/dev/null 2>&1; then
	rec system -a -- sleep 2
	rec system-g -g -a -- sleep 2
else
	echo "SKIP: perf record -a is not allowed here: system-wide recordings not compared"
fi
