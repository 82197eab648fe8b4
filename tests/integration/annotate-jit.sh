# --annotate on JIT code: tests/helpers/oddcode writes a loop into an
# anonymous executable mapping, names it in /tmp/perf-PID.map and runs it
# hot; proftop reads the function's bytes from the live process.  The
# bytes must be the ones written (oddcode.c's loop_code), the instructions
# objdump's for those bytes at that address, and the samples add up to the
# row's.  Skipped without sampling, objdump or python3, or where oddcode
# cannot make code (not x86_64), or without Capstone.
. tests/lib.sh

ODD=tests/helpers/oddcode
[ -x "$ODD" ] || fail "$ODD not built (make $ODD)"
command -v objdump >/dev/null 2>&1 || skip "objdump is not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
grep -q 'define HAVE_CAPSTONE 1' config.h 2>/dev/null ||
	skip "built without Capstone: --annotate shows raw bytes"
require_perf_events

timeout 60 "$PROFTOP" --json -d 1 --annotate=jit_first -- "$ODD" jit 2.5 >"$TMP/out" \
	2>"$TMP/err"
st=$?
[ $st -eq 0 ] || { grep -q "cannot make code" "$TMP/err" && skip "no JIT code here"; fail "proftop: status $st ($(tail -1 "$TMP/err"))"; }
FIRST=$(awk '$1 == "first" { print $2 }' "$TMP/out")
[ -n "$FIRST" ] || fail "oddcode did not say where its code is"
# The bytes oddcode wrote, as its source has them.
WROTE=$(sed -n 's/.*loop_code\[\] = { \(.*\) };/\1/p' tests/helpers/oddcode.c | tr -d ' ' | tr ',' '\n' |
	sed 's/^0x//' | tr '\n' ' ' | sed 's/ $//')
[ -n "$WROTE" ] || fail "no loop_code in oddcode.c"
python3 -c 'import sys; open(sys.argv[1], "wb").write(bytes.fromhex(sys.argv[2]))' "$TMP/code.bin" \
	"$WROTE" || fail "writing the bytes"
objdump -D -b binary -m i386:x86-64 --adjust-vma="$FIRST" "$TMP/code.bin" >"$TMP/objdump" ||
	fail "objdump on the bytes"

python3 - "$TMP/out" "$FIRST" "$WROTE" "$TMP/objdump" <<'PY' || exit 1
import json, re, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
first, wrote = int(sys.argv[2], 16), sys.argv[3]
def bad(msg):
    print("not ok - " + msg); sys.exit(1)
fns = [f for s in snaps for f in s.get("annotate", []) if f["symbol"] == "jit_first"]
if not fns:
    bad("jit_first was never annotated: %s" % [s.get("annotate_unmatched") for s in snaps])
f = fns[-1]
if not re.match(r"perf-\d+\.map$", f["dso"]) or f.get("note"):
    bad("dso %s, note %s" % (f["dso"], f.get("note")))
if f["start"] != first:
    bad("start 0x%x, oddcode's code at 0x%x" % (f["start"], first))
got = " ".join(i["bytes"] for i in f["instructions"])
if got != wrote:
    bad("bytes %s, oddcode wrote %s" % (got, wrote))
print("ok - jit_first's %d bytes read from the process are the ones it wrote" % f["size"])
want = []
for line in open(sys.argv[4]):
    m = re.match(r"^ +([0-9a-f]+):\t(?:[0-9a-f]{2} )+\s*\t(\S+)", line)
    if m:
        want.append((int(m.group(1), 16), m.group(2)))
mine = [(i["addr"], i["text"].split()[0].rstrip("q") if i["text"].split()[0] in ("subq", "retq") else i["text"].split()[0]) for i in f["instructions"]]
if mine != want:
    bad("instructions %s, objdump's %s" % (mine, want))
print("ok - its instructions are objdump's for those bytes: %s" % ", ".join(i["text"] for i in f["instructions"]))
for n, s in enumerate(snaps):
    for g in s.get("annotate", []):
        row = [r for r in s["rows"] if r.get("symbol") == g["symbol"] and r.get("dso") == g["dso"]]
        ls = sum(i["samples"] for i in g["instructions"])
        if ls != g["samples"] or len(row) != 1 or row[0]["samples"] != ls:
            bad("refresh %d: %s lines %d, function %d, rows %s" % (n, g["symbol"], ls, g["samples"], [r["samples"] for r in row]))
if max(f["samples"] for f in fns) < 100:
    bad("only %d samples in jit_first" % max(f["samples"] for f in fns))
print("ok - per-instruction samples add up to the row's in each refresh (%d in jit_first)" % f["samples"])
PY
rm -rf "$TMP"
