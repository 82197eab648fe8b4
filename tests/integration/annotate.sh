# --annotate on the test workload, live (-- COMMAND, decay): each refresh's
# per-instruction samples add up to the function's row; every address and
# mnemonic agree with objdump -d's for the same function (in the
# executable and in libworkload.so); the hottest instruction of leaf_a is
# inside its loop; -M intel; batch text; and a name that matches nothing.
# Capstone and objdump spell some things differently, so the test compares:
# - mnemonics, Capstone's AT&T size suffix dropped where objdump has none
#   (pushq/push, movq/mov, retq/ret, movabsq/movabs, imulq/imul ...);
# - register operands (the %reg tokens in order), and jump targets
#   (objdump's "<sym+off>" beside a jump is JSON's "target"): immediates and
#   displacements are printed in decimal by Capstone when small ($0 against
#   $0x0, -8(%rbp) against -0x8(%rbp)), and objdump adds <sym+off> to
#   jump targets.
# Skipped without sampling, objdump or python3, or without Capstone.
. tests/lib.sh

command -v objdump >/dev/null 2>&1 || skip "objdump is not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
grep -q 'define HAVE_CAPSTONE 1' config.h 2>/dev/null ||
	skip "built without Capstone: --annotate shows raw bytes"
require_perf_events

timeout 60 "$PROFTOP" --json -d 1 --annotate=leaf_a --annotate=lib_leaf@libworkload.so \
	--annotate=no_such_function -- "$WORKLOAD" 3.5 >"$TMP/live.json" 2>"$TMP/live.err" ||
	fail "live --annotate: status $? ($(tail -1 "$TMP/live.err"))"
objdump -d --no-show-raw-insn --disassemble=leaf_a "$WORKLOAD" >"$TMP/leaf_a.objdump" ||
	fail "objdump on $WORKLOAD"
objdump -d --no-show-raw-insn --disassemble=lib_leaf tests/helpers/libworkload.so \
	>"$TMP/lib_leaf.objdump" || fail "objdump on libworkload.so"

python3 - "$TMP/live.json" "$TMP" <<'PY' || exit 1
import json, re, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
tmp = sys.argv[2]
def bad(msg):
    print("not ok - " + msg); sys.exit(1)
if len(snaps) < 3:
    bad("%d refreshes, not 3" % len(snaps))

# Sums: each refresh (decay), each function: lines = function = its row.
for n, s in enumerate(snaps):
    if s.get("annotate_unmatched") != ["no_such_function"]:
        bad("refresh %d: annotate_unmatched %s" % (n, s.get("annotate_unmatched")))
    for f in s["annotate"]:
        row = [r for r in s["rows"] if r.get("symbol") == f["symbol"] and r.get("dso") == f["dso"]]
        if len(row) != 1:
            bad("refresh %d: %d rows for %s" % (n, len(row), f["symbol"]))
        lp = sum(i["period"] for i in f["instructions"])
        ls = sum(i["samples"] for i in f["instructions"])
        if (lp, ls) != (f["period"], f["samples"]) or ls != row[0]["samples"]:
            bad("refresh %d: %s lines %d/%d, function %d/%d, row %d samples"
                % (n, f["symbol"], ls, lp, f["samples"], f["period"], row[0]["samples"]))
print("ok - per-instruction samples add up to the row's in each of %d refreshes (decay)" % len(snaps))

last = {f["symbol"]: f for f in snaps[-1]["annotate"]}
if set(last) != {"leaf_a", "lib_leaf"}:
    bad("annotated %s" % sorted(last))

def objdump(path):
    out = []
    for line in open(path):
        m = re.match(r"\s+([0-9a-f]+):\t(\S+)\s*(.*)$", line)
        if m:
            out.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return out

regs = lambda s: re.findall(r"%\w+", s)
for name in ("leaf_a", "lib_leaf"):
    f = last[name]
    ref = objdump("%s/%s.objdump" % (tmp, name))
    mine = [(i["addr"], i["text"].split(" ", 1)[0], (i["text"].split(" ", 1) + [""])[1])
            for i in f["instructions"]]
    if f.get("note"):
        bad("%s: note %s" % (name, f["note"]))
    if [a for a, _, _ in mine] != [a for a, _, _ in ref]:
        bad("%s: addresses %s, objdump %s" % (name, [hex(a) for a, _, _ in mine],
                                               [hex(a) for a, _, _ in ref]))
    if f["start"] != ref[0][0]:
        bad("%s: start 0x%x, objdump 0x%x" % (name, f["start"], ref[0][0]))
    agree = 0
    for (a, m, ops), (_, rm, rops) in zip(mine, ref):
        same_m = m == rm or (m[:-1] == rm and m[-1] in "bwlq")
        if same_m and regs(ops) == regs(rops):
            agree += 1
        else:
            print("# %s 0x%x: %s %s | objdump: %s %s" % (name, a, m, ops, rm, rops))
    if agree < 0.98 * len(ref):
        bad("%s: %d of %d instructions agree with objdump" % (name, agree, len(ref)))
    print("ok - %s: %d instructions, addresses all objdump's, %d agree in mnemonic and registers"
          % (name, len(ref), agree))
    # Jump and call targets: objdump's "11cf <leaf_a+0x46>", each one.
    theirs = {a: (int(ops.split()[0], 16), re.search(r"<(.*)>", ops).group(1))
              for a, _, ops in ref if re.match(r"[0-9a-f]+ <[^>]*>$", ops)}
    ours = {i["addr"]: (i["target_addr"], i["target"]) for i in f["instructions"] if "target" in i}
    if not theirs or ours != theirs:
        bad("%s: targets %s, objdump %s" % (name, ours, theirs))
    print("ok - %s: %d jump targets, objdump's addresses and names" % (name, len(ours)))

# The hottest instruction of leaf_a is inside its loop: from the backward
# jump's target to the jump.
f = last["leaf_a"]
ref = objdump("%s/leaf_a.objdump" % tmp)
back = [(int(re.match(r"([0-9a-f]+)", ops).group(1), 16), a) for a, m, ops in ref
        if m.startswith("j") and re.match(r"[0-9a-f]+ <", ops)
        and int(ops.split()[0], 16) < a]
if len(back) != 1:
    bad("leaf_a: backward jumps %s" % back)
lo, hi = back[0]
hot = max(f["instructions"], key=lambda i: i["samples"])
if not lo <= hot["addr"] <= hi or hot["samples"] < 10:
    bad("leaf_a: hottest 0x%x (%d samples) outside the loop 0x%x-0x%x"
        % (hot["addr"], hot["samples"], lo, hi))
print("ok - leaf_a: hottest instruction 0x%x (%.1f%%) inside the loop 0x%x-0x%x"
      % (hot["addr"], hot["percent"], lo, hi))
PY

# A recording (-i): its samples wait for the symbols' thread (deferred),
# and still add up.
if command -v perf >/dev/null 2>&1 &&
	timeout 60 perf record -q -F 2000 -o "$TMP/rec.data" -- "$WORKLOAD" 1 >/dev/null 2>&1; then
	"$PROFTOP" --json -i "$TMP/rec.data" --annotate=leaf_b >"$TMP/rec.json" 2>"$TMP/rec.err" ||
		fail "-i --annotate: status $? ($(tail -1 "$TMP/rec.err"))"
	python3 - "$TMP/rec.json" <<'PY' || exit 1
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
f = s["annotate"][0]
row = [r for r in s["rows"] if r.get("symbol") == "leaf_b"][0]
ls = sum(i["samples"] for i in f["instructions"])
if not (ls == f["samples"] == row["samples"] > 0):
    print("not ok - -i: leaf_b lines %d, function %d, row %d" % (ls, f["samples"], row["samples"]))
    sys.exit(1)
print("ok - -i: leaf_b's %d samples per instruction add up to its row" % ls)
PY
else
	echo "# no perf record here: the recording part is skipped"
fi

# Source lines: every instruction's "source" and "inlined" are
# eu-addr2line -f -i's innermost frame (file:line, and the function when
# it says "inlined at"), in leaf_a (no inlining) and in an -O2 function
# with an always_inline loop (tests/helpers/inline-fixture.c).
if command -v eu-addr2line >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1; then
	gcc -O2 -g -o "$TMP/inlfix" tests/helpers/inline-fixture.c || fail "cannot build the fixture"
	timeout 60 "$PROFTOP" --json -d 5 --annotate=outer_noinline -- "$TMP/inlfix" 1 \
		>"$TMP/inl.json" 2>"$TMP/inl.err" || fail "--annotate outer_noinline: status $?"
	python3 - "$TMP/live.json" "$WORKLOAD" leaf_a "$TMP/inl.json" "$TMP/inlfix" outer_noinline <<'PY' || exit 1
import json, subprocess, sys
args = sys.argv[1:]
for k in range(0, len(args), 3):
    path, binary, name = args[k:k + 3]
    f = [f for l in open(path) if l.startswith("{") for f in json.loads(l)["annotate"]
         if f["symbol"] == name][-1]
    marked = inl = 0
    for i in f["instructions"]:
        out = subprocess.run(["eu-addr2line", "-f", "-i", "-e", binary, hex(i["addr"])],
                             capture_output=True, text=True).stdout.split("\n")
        loc = out[1].rsplit(":", 1)[0] if out[1].count(":") >= 2 else None
        want_inl = out[0].split(" inlined at ")[0] if " inlined at " in out[0] else None
        if i.get("source") != loc or i.get("inlined") != want_inl:
            print("not ok - %s 0x%x: source %s inlined %s, eu-addr2line %s" %
                  (name, i["addr"], i.get("source"), i.get("inlined"), out[:2]))
            sys.exit(1)
        marked += loc is not None
        inl += want_inl is not None
    if not marked or (name == "outer_noinline" and not inl):
        print("not ok - %s: %d with a source, %d inlined" % (name, marked, inl)); sys.exit(1)
    print("ok - %s: %d instructions' source lines (%d inlined) as eu-addr2line's"
          % (name, marked, inl))
PY
	# The batch text: each source line ("; file:line [inlined: f]  text")
	# above the instructions it produced, eu-addr2line's for the next one.
	timeout 60 "$PROFTOP" -b -d 5 --annotate=outer_noinline -- "$TMP/inlfix" 1 \
		>"$TMP/inl.txt" 2>"$TMP/inl.err" || fail "-b --annotate outer_noinline: status $?"
	python3 - "$TMP/inl.txt" "$TMP/inlfix" <<'PY' || exit 1
import os, re, subprocess, sys
text = open(sys.argv[1]).read().split("\nAnnotate outer_noinline ")[-1].split("\n\n")[0]
src, n, inl = None, 0, 0
for l in text.split("\n")[2:]:
    m = re.match(r"^ {38}; (\S+?:\d+)( \[inlined: (\w+)\])?", l)
    if m:
        src = (m.group(1), m.group(3))
        continue
    m = re.match(r"^ +[0-9.]+% +\d+ +([0-9a-f]+)  ", l)
    if not m or src is None:
        print("not ok - batch: an instruction before any source line: %r" % l); sys.exit(1)
    out = subprocess.run(["eu-addr2line", "-f", "-i", "-e", sys.argv[2], "0x" + m.group(1)],
                         capture_output=True, text=True).stdout.split("\n")
    loc = os.path.basename(out[1].rsplit(":", 1)[0])
    want = (loc, out[0].split(" inlined at ")[0] if " inlined at " in out[0] else None)
    if src != want:
        print("not ok - batch 0x%s: under %s, eu-addr2line %s" % (m.group(1), src, want))
        sys.exit(1)
    n += 1
    inl += src[1] is not None
if n < 10 or not inl:
    print("not ok - batch: %d instructions, %d inlined" % (n, inl)); sys.exit(1)
print("ok - batch text: each of %d instructions under its source line (%d inlined)" % (n, inl))
PY
else
	echo "# no eu-addr2line or gcc: the source lines are not compared"
fi

# Batch text and Intel syntax.
timeout 60 "$PROFTOP" -b -d 5 -M intel --annotate=leaf_a -- "$WORKLOAD" 1 \
	>"$TMP/intel.txt" 2>"$TMP/intel.err" || fail "-M intel: status $?"
grep -q '^Annotate leaf_a \[workload\] 0x' "$TMP/intel.txt" || fail "-b: no Annotate title"
grep -Eq '^ +[0-9.]+% +[0-9]+ +[0-9a-f]+  mov rbp, rsp$' "$TMP/intel.txt" ||
	fail "-M intel: no 'mov rbp, rsp' line: $(grep -A3 Annotate "$TMP/intel.txt")"
ok "batch text with -M intel"
"$PROFTOP" -M bogus --annotate=x -- true 2>"$TMP/bad.err"
[ $? -eq 2 ] && grep -q "intel or att" "$TMP/bad.err" || fail "-M bogus: $(cat "$TMP/bad.err")"
ok "-M bogus is a usage error"
