# --inline and -s srcline on a fixture built here (tests/helpers/inline-fixture.c,
# gcc -O2 -g: an always_inline hot loop in a noinline function), live
# (-- COMMAND) and replayed (-i of a perf record), compared with elfutils
# (eu-addr2line -i -f / -s on the sampled addresses) and perf report
# -s srcline.  perf 6.1 report --inline shows no inlined frame for this
# fixture at all (it only lists outer_noinline), so for inlines the
# reference is eu-addr2line.  Then the browser on the recording, in tmux.
# Skipped without gcc, or without sampling (parts: without perf, tmux).
. tests/lib.sh

command -v gcc >/dev/null 2>&1 || skip "gcc is not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
FIX=$TMP/inlfix
gcc -O2 -g -o "$FIX" tests/helpers/inline-fixture.c || fail "cannot build the fixture"

# --- live -------------------------------------------------------------
if perf_events_usable; then
	timeout 60 "$PROFTOP" --json --accumulate -d 5 --inline -s dso,sym,srcline -- "$FIX" 1.5 \
		>"$TMP/live.json" 2>"$TMP/live.err" || fail "live --inline: status $? ($(cat "$TMP/live.err"))"
	timeout 60 "$PROFTOP" --json --accumulate -d 5 -g --inline -G 10 -- "$FIX" 1.5 \
		>"$TMP/live-g.json" 2>"$TMP/live-g.err" || fail "live -g --inline: status $?"
	timeout 60 "$PROFTOP" --json --accumulate -d 5 -g -G 10 -- "$FIX" 1.5 \
		>"$TMP/live-plain.json" 2>"$TMP/live-plain.err" || fail "live -g: status $?"
	python3 - "$TMP/live.json" "$TMP/live-g.json" "$TMP/live-plain.json" <<'PY' || exit 1
import json, sys
def last(p):
    return [json.loads(l) for l in open(p) if l.strip()][-1]
s = last(sys.argv[1])
hot = [r for r in s["rows"] if r.get("dso") == "inlfix" and r.get("symbol") == "hot_inline"]
share = sum(r["self"] for r in hot)
lines = sorted(set(r["srcline"] for r in hot))
print("# live: hot_inline (inlined) %.1f%% of %d samples, lines %s" % (share, s["samples"], lines))
if not hot or not all(r.get("inlined") is True for r in hot):
    print("not ok - live: no inlined hot_inline row: %s" % s["rows"][:3]); sys.exit(1)
if share < 50:
    print("not ok - live: hot_inline only %.1f%%" % share); sys.exit(1)
if not set(lines) <= {"inline-fixture.c:%d" % n for n in range(11, 17)}:
    print("not ok - live: hot_inline lines %s outside its body (11-16)" % lines); sys.exit(1)
g = last(sys.argv[2])
row = [r for r in g["rows"] if r.get("symbol") == "hot_inline" and r.get("inlined")]
if not row or not row[0].get("callers"):
    print("not ok - live -g: no callers tree for hot_inline"); sys.exit(1)
callers = [c["symbol"] for c in row[0]["callers"]]
if callers[:1] != ["outer_noinline"]:
    print("not ok - live -g: hot_inline's callers %s, want outer_noinline first" % callers); sys.exit(1)
outer = [r for r in g["rows"] if r.get("symbol") == "outer_noinline"]
if not outer or outer[0]["children"] < row[0]["children"]:
    print("not ok - live -g: outer_noinline's children below hot_inline's"); sys.exit(1)
callees = [c for c in outer[0].get("callees", []) if c["symbol"] == "hot_inline"]
if not callees or callees[0].get("inlined") is not True:
    print("not ok - live -g: outer_noinline's callees lack hot_inline (inlined)"); sys.exit(1)
p = last(sys.argv[3])
if any(r.get("inlined") for r in p["rows"]) or any("srcline" in r for r in p["rows"]):
    print("not ok - without --inline rows have inline or srcline fields"); sys.exit(1)
if not any(r.get("symbol") == "outer_noinline" and r["self"] > 50 for r in p["rows"]):
    print("not ok - without --inline the samples are not outer_noinline's"); sys.exit(1)
PY
	ok "live: --inline shows hot_inline (inlined) with outer_noinline as its caller; without it nothing changes"
	timeout 60 "$PROFTOP" --folded --accumulate -d 5 --inline -- "$FIX" 1 >"$TMP/folded" \
		2>"$TMP/folded.err" || fail "--folded --inline: status $?"
	grep -q "^inlfix;outer_noinline;hot_inline [0-9]" "$TMP/folded" ||
		fail "--folded --inline: no inlfix;outer_noinline;hot_inline stack ($(head -3 "$TMP/folded"))"
	ok "live: --folded --inline has the inlined frame under its function"
else
	echo "# SKIP live part: perf_event_open unavailable: $PERF_EVENTS_WHY"
fi

# --- perf record, replayed -------------------------------------------
command -v perf >/dev/null 2>&1 || skip "perf is not installed (live part done)"
perf record -q -o "$TMP/fix.data" -e cpu-clock -F 2000 -g -- "$FIX" 1.5 >/dev/null 2>&1 ||
	skip "perf record cannot sample here (live part done)"
"$PROFTOP" -i "$TMP/fix.data" --json -s dso,srcline >"$TMP/srcline.json" 2>"$TMP/srcline.err" ||
	fail "-i -s dso,srcline: status $? ($(cat "$TMP/srcline.err"))"
"$PROFTOP" -i "$TMP/fix.data" --json --inline -s dso,sym >"$TMP/inline.json" 2>"$TMP/inline.err" ||
	fail "-i --inline: status $?"
"$PROFTOP" -i "$TMP/fix.data" --batch -s sym,srcline >"$TMP/srcline.txt" 2>&1 ||
	fail "-i -s sym,srcline (text): status $?"
grep -q "Source:Line" "$TMP/srcline.txt" || fail "-s sym,srcline: no Source:Line column"
# The sampled addresses (ELF vaddr: symbol start + offset) of the fixture.
nm "$FIX" >"$TMP/nm.txt" || fail "nm failed"
perf script -i "$TMP/fix.data" -F ip,sym,symoff,dso 2>/dev/null >"$TMP/script.txt" ||
	fail "perf script failed"
t0=$(date +%s.%N)
perf report -i "$TMP/fix.data" --stdio --no-children -s dso,srcline 2>/dev/null >"$TMP/perf-srcline.txt" ||
	fail "perf report -s srcline failed"
t1=$(date +%s.%N)
echo "# perf report -s dso,srcline took $(echo "$t1 - $t0" | bc 2>/dev/null || echo '?') s"
python3 - "$TMP/nm.txt" "$TMP/script.txt" "$FIX" "$TMP/srcline.json" "$TMP/inline.json" \
	"$TMP/perf-srcline.txt" <<'PY' || exit 1
import collections, json, re, subprocess, sys
nm, script, fix, srcj, inlj, perfsrc = sys.argv[1:7]
syms = {}
for l in open(nm):
    f = l.split()
    if len(f) == 3 and f[1] in "tTwW":
        syms[f[2]] = int(f[0], 16)
# "sym+0xoff (path/inlfix)" at the top of each sample's chain
addrs = collections.Counter()
first = True
for l in open(script):
    if not l.strip():
        first = True
        continue
    if not first:
        continue
    first = False
    m = re.search(r'(\S+)\+0x([0-9a-f]+) \((\S+)\)', l)
    if m and m.group(3).endswith("/inlfix") and m.group(1) in syms:
        addrs[syms[m.group(1)] + int(m.group(2), 16)] += 1
if not addrs:
    print("not ok - no samples of the fixture in perf script"); sys.exit(1)
def a2l(args, a):
    return subprocess.run(["eu-addr2line"] + args + ["-e", fix, hex(a)], capture_output=True,
                          text=True).stdout.splitlines()
have_eu = subprocess.run(["sh", "-c", "command -v eu-addr2line"], capture_output=True).returncode == 0
if not have_eu:
    print("# eu-addr2line not installed (Debian: elfutils): skipping the elfutils comparison")
# srcline: per line, the samples eu-addr2line -s gives = proftop's
want = collections.Counter()
inl = collections.Counter()
for a, n in addrs.items():
    if have_eu:
        out = a2l(["-s"], a)
        want[re.sub(r':(\d+):\d+$', r':\1', out[0]) if out else "??:0"] += n
        fi = a2l(["-f", "-i"], a)
        inl[fi[0].split()[0] if fi and " inlined at " in fi[0] else None] += n
s = [json.loads(l) for l in open(srcj) if l.strip()][-1]
ours = collections.Counter()
for r in s["rows"]:
    if r.get("dso") == "inlfix":
        ours[r["srcline"]] += r["samples"]
print("# -s srcline (samples): proftop %s" % dict(ours))
if have_eu:
    print("#                       eu-addr2line %s" % dict(want))
    if ours != want:
        print("not ok - srcline counts differ from eu-addr2line -s"); sys.exit(1)
# perf report -s dso,srcline: the same percentages for the fixture's lines
perf = {}
for l in open(perfsrc):
    m = re.match(r'^\s+([0-9.]+)%\s+(\S+)\s+(\S+)\s*$', l)
    if m and m.group(2) == "inlfix":
        perf[m.group(3)] = perf.get(m.group(3), 0) + float(m.group(1))
mine = {}
for r in s["rows"]:
    if r.get("dso") == "inlfix":
        mine[r["srcline"]] = mine.get(r["srcline"], 0) + r["self"]
print("# perf report -s srcline: %s" % {k: round(v, 2) for k, v in perf.items()})
print("# proftop -s srcline:     %s" % {k: round(v, 2) for k, v in mine.items()})
for k in set(perf) | set(mine):
    if perf.get(k, 0) >= 0.5 and abs(perf.get(k, 0) - mine.get(k, 0)) > 0.1:
        print("not ok - %s: perf %.2f%%, proftop %.2f%%" % (k, perf.get(k, 0), mine.get(k, 0)))
        sys.exit(1)
# --inline: samples in inlined code are hot_inline's, as eu-addr2line -i says
t = [json.loads(l) for l in open(inlj) if l.strip()][-1]
hot = sum(r["samples"] for r in t["rows"] if r.get("symbol") == "hot_inline" and r.get("inlined"))
print("# --inline: hot_inline (inlined) %d samples; eu-addr2line -i: %s" % (hot, dict(inl)))
if hot == 0 or (have_eu and hot != inl["hot_inline"]):
    print("not ok - --inline: %d samples of hot_inline, eu-addr2line says %d" % (hot, inl["hot_inline"]))
    sys.exit(1)
PY
ok "-i: -s srcline matches eu-addr2line -s and perf report -s srcline; --inline matches eu-addr2line -i"

# --- the browser (tmux) ----------------------------------------------
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (other parts done)"
ABS=$(pwd)
tmux_start tui 120 30 || skip "tmux cannot start a session here"
keys "$ABS/$PROFTOP -i $ABS/$TMP/fix.data --tui -g --inline -s sym,srcline; echo EXIT=\$?" Enter
wait_for 'Source:Line' "browser: the Source:Line column"
wait_for '\[\.\] hot_inline \(inlined\) +inline-fixture\.c:1[0-9]' "browser: an inlined row with its line"
# Enter on the top row (hot_inline's, the hottest) opens its callers tree.
keys Enter
wait_for '\[\.\] outer_noinline +inlfix' "browser: outer_noinline under hot_inline in its callers tree"
keys q
wait_for '^EXIT=0' "browser: exit status 0 after q"
ok "browser: Source:Line column, hot_inline (inlined) rows, outer_noinline as its caller"
