# Alpha ProfileMe per instruction: a recording written by mkperfdata with
# ProfileMe payloads (fixed seed) at the addresses of alpha_hot's
# instructions in a real Alpha binary (tests/helpers/alpha-code.c, built
# with alpha-linux-gnu-gcc), annotated with --annotate=alpha_hot.  Checks
# that the instructions are objdump's; that each instruction's "profileme"
# object has the counts a decoder written here in python (from the
# reference, not proftop's) gives for the samples at that address; that
# they add up, key by key, to the function's row; and the batch columns.
# Tools: apt-get install gcc-alpha-linux-gnu.
. tests/lib.sh

CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
OBJDUMP=${ALPHA_OBJDUMP:-alpha-linux-gnu-objdump}
MK=${MKPERFDATA:-tests/helpers/mkperfdata}
for t in "$CC" "$OBJDUMP" python3; do
	command -v "$t" >/dev/null 2>&1 ||
		skip "$t not installed (apt-get install gcc-alpha-linux-gnu)"
done
[ -x "$MK" ] || fail "$MK is not built (make tests/helpers/mkperfdata)"

BIN=$(pwd)/$TMP/alpha-code
"$CC" -O2 -mcpu=ev67 -o "$BIN" tests/helpers/alpha-code.c -lm 2>"$TMP/cc.err" ||
	{ cat "$TMP/cc.err"; fail "$CC alpha-code.c"; }
ID=$(readelf -n "$BIN" | awk '/Build ID/ { print $3 }')
"$OBJDUMP" -d "$BIN" >"$TMP/objdump" || fail "$OBJDUMP"

# The recording: 600 samples, most in alpha_hot's loop, some in
# alpha_float; one payload in ten not ProfileMe (version 0), the first
# sample among them; what each instruction must show in truth.json.
python3 tests/helpers/alpha-pm-rec.py "$TMP/objdump" "$BIN" "$ID" "$TMP/truth.json" >"$TMP/rec.txt" ||
	fail "gen"
"$MK" -o "$TMP/rec.data" "$TMP/rec.txt" || fail "mkperfdata"
ok "an Alpha ProfileMe recording of $(grep -c '^sample ' "$TMP/rec.txt") samples at alpha_hot's and alpha_float's instructions"

"$PROFTOP" -i "$TMP/rec.data" --json --annotate=alpha_hot >"$TMP/out.json" 2>"$TMP/err" ||
	fail "--json --annotate: status $? ($(tail -1 "$TMP/err"))"
python3 - "$TMP/out.json" "$TMP/truth.json" <<'PY' || exit 1
import json, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
want = json.load(open(sys.argv[2]))
def bad(msg):
    print("not ok - " + msg); sys.exit(1)
fns = snap.get("annotate", [])
if len(fns) != 1 or fns[0]["symbol"] != "alpha_hot":
    bad("annotate: %s" % [f["symbol"] for f in fns])
f = fns[0]
# objdump goes on to the next symbol (alignment padding); the function
# ends at its symbol's size.
got = [(i["addr"], i["text"]) for i in f["instructions"]]
if got != [tuple(x) for x in want["hot"][:len(got)]] or len(got) * 4 != f["size"]:
    bad("instructions differ from objdump's: %s, %d for %d bytes" %
        ([g for g, w in zip(got, want["hot"]) if g != tuple(w)][:3], len(got), f["size"]))
print("ok - alpha_hot's %d instructions are objdump's" % len(got))
truth = want["truth"]
def flat(d, pre=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, pre + k + "."))
        else:
            out[pre + k] = v
    return out
n = 0
for i in f["instructions"]:
    t = truth.get(str(i["addr"]))
    if not t:
        if i["samples"] or "profileme" in i:
            bad("%x: samples where the recording has none" % i["addr"])
        continue
    if i["samples"] != t["n"]:
        bad("%x: %d samples, want %d" % (i["addr"], i["samples"], t["n"]))
    pm = flat(i["profileme"])
    for k, v in flat({k: v for k, v in t.items() if k != "n"}).items():
        if pm.get(k, 0) != v:
            bad("%x: profileme %s = %s, want %s" % (i["addr"], k, pm.get(k), v))
    for k, v in pm.items():
        if v and k not in flat(t):
            bad("%x: profileme %s = %s, want 0" % (i["addr"], k, v))
    n += 1
print("ok - each of %d sampled instructions has the ProfileMe counts of its samples" % n)
row = [r for r in snap["rows"] if r.get("symbol") == "alpha_hot"]
if len(row) != 1:
    bad("%d rows for alpha_hot" % len(row))
row = row[0]
sums = {}
for i in f["instructions"]:
    for k, v in flat(i.get("profileme", {})).items():
        sums[k] = sums.get(k, 0) + v
rowpm = flat(row["profileme"])
if sums != rowpm or flat(f["profileme"]) != rowpm:
    bad("instructions' ProfileMe sums differ from the row's: %s" %
        {k: (sums.get(k), v) for k, v in rowpm.items() if sums.get(k) != v})
if sum(i["samples"] for i in f["instructions"]) != row["samples"]:
    bad("samples do not add up to the row's")
print("ok - the instructions' ProfileMe counts add up to the row's, all %d keys" % len(rowpm))
PY

# Jump and call targets: where objdump prints " <SYM+OFF>" after an
# instruction (branches, and jsr's hint), the JSON has the same target,
# its address, and call for bsr and jsr only; elsewhere none.
"$PROFTOP" -i "$TMP/rec.data" --json --annotate=alpha_hot --annotate=alpha_float \
	>"$TMP/targets.json" 2>"$TMP/err" || fail "--json, two --annotate: status $?"
python3 - "$TMP/targets.json" "$TMP/objdump" <<'PY' || exit 1
import json, re, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
want = {}
for line in open(sys.argv[2]):
    m = re.match(r"^ +([0-9a-f]+):\t(?:[0-9a-f]{2} ){4}\t(\S+)\t?.*?([0-9a-f]+) <([^>]*)>$", line)
    if m:
        want[int(m.group(1), 16)] = (m.group(4), int(m.group(3), 16), m.group(2) in ("bsr", "jsr"))
n = calls = 0
for f in snap.get("annotate", []):
    for i in f["instructions"]:
        got = (i["target"], i["target_addr"], i["call"]) if "target" in i else None
        if got != want.get(i["addr"]):
            print("not ok - %s %x %s: target %s, objdump %s" % (f["symbol"], i["addr"], i["text"],
                                                              got, want.get(i["addr"])))
            sys.exit(1)
        n += got is not None
        calls += bool(got and got[2])
if n < 5 or not calls:
    print("not ok - only %d targets (%d calls) in %s" %
          (n, calls, [f["symbol"] for f in snap.get("annotate", [])]))
    sys.exit(1)
print("ok - %d jump/call targets (%d calls) are objdump's, in %d functions" %
      (n, calls, len(snap["annotate"])))
PY

# --annotate of a function with no samples of its own: main, a caller in
# every chain (-g: a row with children only), shows with 0 samples and its
# instructions, bsr's and jsr's targets objdump's; a function in no chain
# (alpha_bytes) stays unmatched.
HOT=$(awk '/<alpha_hot>:$/ { print "0x" $1 }' "$TMP/objdump")
RET=$(awk '/<main>:$/ { f = 1 } f && /\tbsr\t/ { sub(":", "", $1); print $1; exit }' "$TMP/objdump")
[ -n "$HOT" ] && [ -n "$RET" ] || fail "no alpha_hot, or no bsr in main, in objdump's output"
{
	echo "attr sample_type=IP|TID|TIME|CALLCHAIN|PERIOD period=1000 name=cpu-clock"
	echo "arch alpha"
	echo "comm pid=42 tid=42 comm=alpha-code time=1"
	echo "mmap2 pid=42 tid=42 start=0x120000000 len=0x10000 pgoff=0 file=$BIN buildid=$ID time=2"
	for t in 100 101 102 103; do
		ip=$(printf '0x%x' $((HOT + 4 * (t - 96))))
		echo "sample pid=42 tid=42 ip=$ip time=$t period=1000 callchain=-512,$ip,$(printf '0x%x' $((0x$RET + 4)))"
	done
} >"$TMP/cc.txt"
"$MK" -o "$TMP/cc.data" "$TMP/cc.txt" || fail "mkperfdata (callchains)"
"$PROFTOP" -i "$TMP/cc.data" -g --json --annotate=main --annotate=alpha_bytes \
	>"$TMP/cc.json" 2>"$TMP/err" || fail "-g --annotate=main: status $? ($(tail -1 "$TMP/err"))"
python3 - "$TMP/cc.json" "$TMP/objdump" <<'PY' || exit 1
import json, re, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
fns = {f["symbol"]: f for f in snap.get("annotate", [])}
if sorted(fns) != ["main"] or snap.get("annotate_unmatched") != ["alpha_bytes"]:
    print("not ok - -g: annotated %s, unmatched %s" % (sorted(fns), snap.get("annotate_unmatched")))
    sys.exit(1)
f = fns["main"]
want, calls = {}, 0
inmain = False
for line in open(sys.argv[2]):
    if re.match(r"^[0-9a-f]+ <", line):
        inmain = line.rstrip().endswith("<main>:")
    m = re.match(r"^ +([0-9a-f]+):\t(?:[0-9a-f]{2} ){4}\t(\S+)\t?.*?([0-9a-f]+) <([^>]*)>$", line)
    if inmain and m:
        want[int(m.group(1), 16)] = (m.group(4), int(m.group(3), 16), m.group(2) in ("bsr", "jsr"))
for i in f["instructions"]:
    got = (i["target"], i["target_addr"], i["call"]) if "target" in i else None
    if got != want.get(i["addr"]) or i["samples"]:
        print("not ok - main %x %s: target %s samples %d, objdump %s" %
              (i["addr"], i["text"], got, i["samples"], want.get(i["addr"])))
        sys.exit(1)
    calls += bool(got and got[2])
if f["samples"] or len(f["instructions"]) * 4 != f["size"] or calls < 3:
    print("not ok - main: %d samples, %d instructions for %d bytes, %d calls" %
          (f["samples"], len(f["instructions"]), f["size"], calls))
    sys.exit(1)
print("ok - -g --annotate=main (children only): 0 samples, %d instructions, %d calls' targets "
      "objdump's; alpha_bytes (no row) unmatched" % (len(f["instructions"]), calls))
PY
"$PROFTOP" -i "$TMP/cc.data" -g --batch --annotate=main >"$TMP/cc.out" 2>/dev/null ||
	fail "-g --batch --annotate=main: status $?"
grep -q '^Annotate main \[alpha-code\] 0x[0-9a-f]*, [0-9]* bytes: 0 samples' "$TMP/cc.out" ||
	fail "-g --batch: no main with 0 samples: $(grep -i annotate "$TMP/cc.out")"
grep -q 'bsr ra,[0-9a-f]*  <alpha_bytes>$' "$TMP/cc.out" || fail "-g --batch: no bsr <alpha_bytes>"
ok "-g --batch --annotate=main: main with 0 samples, bsr's target by name"

"$PROFTOP" -i "$TMP/rec.data" --batch --annotate=alpha_hot >"$TMP/out.txt" 2>"$TMP/err" ||
	fail "--batch --annotate: status $?"
sed -n '/^Annotate alpha_hot/,$p' "$TMP/out.txt" >"$TMP/ann.txt"
head -2 "$TMP/ann.txt" | tail -1 | grep -q 'Address  *Retired  *Killed  *Stalled  *Mispred  *Traps  *Trap  *ICmiss  *LdSt  *RetDly  *Instruction' ||
	{ head -3 "$TMP/ann.txt"; fail "batch: no ProfileMe columns in the annotate header"; }
# The hottest line: its Retired cell is the python count's share.
python3 - "$TMP/ann.txt" "$TMP/truth.json" <<'PY' || exit 1
import json, sys
lines = open(sys.argv[1]).read().splitlines()[2:]
truth = json.load(open(sys.argv[2]))["truth"]
rows = [l.split() for l in lines if l.strip() and not l.lstrip().startswith(";")]
top = max(rows, key=lambda r: int(r[1]))
t = truth[str(int(top[2], 16))]
want = "%.1f%%" % (100.0 * t["retired"] / t["samples"])
if top[3] != want:
    print("not ok - batch: Retired of %s is %s, want %s" % (top[2], top[3], want)); sys.exit(1)
print("ok - batch: the hottest instruction (%s) shows Retired %s" % (top[2], want))
PY
rm -rf "$TMP"
